/* anot-domain.c
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "anot-domain.h"

#include <string.h>
#include <json-glib/json-glib.h>

#include "anot-dataset-private.h"
#include "anot-error.h"

/**
 * AnotDomain:
 *
 * What a benchmark's items are: the nouns the prompts and the attacks use
 * for them ("restaurant", "restaurants"; "hotel", "hotels") and, optionally,
 * a glossary of the benchmark's attribute names.
 *
 * A benchmark declares its domain in the `domain` member of its
 * `meta.json` (see the dataset format guide):
 *
 * ```json
 * {"domain": {"item": "hotel", "items": "hotels",
 *             "attributes": {"Pool": "has a swimming pool"}}}
 * ```
 *
 * A benchmark without one is about restaurants, as the original
 * framework's: every prompt for such a benchmark is the original wording.
 *
 * Domains are immutable once a dataset holds them.
 */
struct _AnotDomain
{
  GObject parent_instance;

  char      *item;
  char      *items;
  char      *item_title;          /* "Restaurant": item with a capital */
  char      *items_title;
  GPtrArray *attribute_names;     /* NULL-terminated, in declaration order */
  GHashTable *attributes;         /* name -> description */
  GStrv      common_attributes;   /* the benchmark's most common, without a glossary */
  gboolean   is_default;
};

G_DEFINE_FINAL_TYPE (AnotDomain, anot_domain, G_TYPE_OBJECT)

enum {
  PROP_0,
  PROP_ITEM,
  PROP_ITEMS,
  PROP_IS_DEFAULT,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

static void
anot_domain_finalize (GObject *object)
{
  AnotDomain *self = ANOT_DOMAIN (object);

  g_clear_pointer (&self->item, g_free);
  g_clear_pointer (&self->items, g_free);
  g_clear_pointer (&self->item_title, g_free);
  g_clear_pointer (&self->items_title, g_free);
  g_clear_pointer (&self->attribute_names, g_ptr_array_unref);
  g_clear_pointer (&self->attributes, g_hash_table_unref);
  g_clear_pointer (&self->common_attributes, g_strfreev);

  G_OBJECT_CLASS (anot_domain_parent_class)->finalize (object);
}

static void
anot_domain_get_property (GObject    *object,
                          guint       prop_id,
                          GValue     *value,
                          GParamSpec *pspec)
{
  AnotDomain *self = ANOT_DOMAIN (object);

  switch (prop_id)
    {
    case PROP_ITEM:
      g_value_set_string (value, self->item);
      break;
    case PROP_ITEMS:
      g_value_set_string (value, self->items);
      break;
    case PROP_IS_DEFAULT:
      g_value_set_boolean (value, self->is_default);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
anot_domain_class_init (AnotDomainClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  const GParamFlags flags = G_PARAM_READABLE | G_PARAM_STATIC_STRINGS;

  object_class->finalize = anot_domain_finalize;
  object_class->get_property = anot_domain_get_property;

  /**
   * AnotDomain:item:
   *
   * The noun for one item, in lower case: `"restaurant"`, `"hotel"`.
   */
  properties[PROP_ITEM] = g_param_spec_string ("item", NULL, NULL, NULL, flags);
  /**
   * AnotDomain:items:
   *
   * The noun for several items, in lower case: `"restaurants"`, `"hotels"`.
   */
  properties[PROP_ITEMS] = g_param_spec_string ("items", NULL, NULL, NULL, flags);
  /**
   * AnotDomain:is-default:
   *
   * Whether this is the domain of a benchmark that declares none
   * (restaurants, with the original framework's prompts).
   */
  properties[PROP_IS_DEFAULT] = g_param_spec_boolean ("is-default", NULL, NULL, FALSE, flags);

  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
anot_domain_init (AnotDomain *self)
{
  self->attribute_names = g_ptr_array_new_with_free_func (g_free);
  g_ptr_array_add (self->attribute_names, NULL);
  self->attributes = g_hash_table_new_full (g_str_hash, g_str_equal, NULL, g_free);
}

/* @word with its first character in title case, the rest as it is. */
static char *
title_case (const char *word)
{
  char first[8] = { 0 };

  g_unichar_to_utf8 (g_unichar_totitle (g_utf8_get_char (word)), first);
  return g_strconcat (first, g_utf8_next_char (word), NULL);
}

/**
 * anot_domain_new:
 * @item: the noun for one item (e.g. `"hotel"`)
 * @items: (nullable): the noun for several, or %NULL for @item followed by
 *   an `s`
 *
 * Creates a domain without an attribute glossary.
 *
 * Returns: (transfer full): a new domain
 */
AnotDomain *
anot_domain_new (const char *item,
                 const char *items)
{
  AnotDomain *self;

  g_return_val_if_fail (item != NULL && *item != '\0', NULL);

  self = g_object_new (ANOT_TYPE_DOMAIN, NULL);
  self->item = g_strdup (item);
  self->items = items != NULL ? g_strdup (items) : g_strconcat (item, "s", NULL);
  self->item_title = title_case (self->item);
  self->items_title = title_case (self->items);
  return self;
}

/**
 * anot_domain_new_default:
 *
 * Creates the domain of a benchmark that declares none: restaurants.
 *
 * Returns: (transfer full): a new domain whose #AnotDomain:is-default is
 *   %TRUE
 */
AnotDomain *
anot_domain_new_default (void)
{
  AnotDomain *self = anot_domain_new ("restaurant", "restaurants");

  self->is_default = TRUE;
  return self;
}

static gboolean
read_noun (JsonObject  *object,
           const char  *name,
           gboolean     required,
           char       **out,
           GError     **error)
{
  JsonNode *node = json_object_get_member (object, name);
  const char *s;

  *out = NULL;
  if (node == NULL || JSON_NODE_HOLDS_NULL (node))
    {
      if (!required)
        return TRUE;
      g_set_error (error, ANOT_ERROR, ANOT_ERROR_MISSING_FIELD,
                   "field “domain.%s”: missing", name);
      return FALSE;
    }
  if (!JSON_NODE_HOLDS_VALUE (node) || json_node_get_value_type (node) != G_TYPE_STRING)
    {
      g_set_error (error, ANOT_ERROR, ANOT_ERROR_INVALID_FIELD,
                   "field “domain.%s”: expected a string", name);
      return FALSE;
    }
  s = json_node_get_string (node);
  /* The nouns go into prompts mid-sentence: one short line, no padding. */
  if (*s == '\0' || g_ascii_isspace (*s) || g_ascii_isspace (s[strlen (s) - 1]) ||
      strchr (s, '\n') != NULL || g_utf8_strlen (s, -1) > 64)
    {
      g_set_error (error, ANOT_ERROR, ANOT_ERROR_INVALID_FIELD,
                   "field “domain.%s”: expected a noun of 1 to 64 characters on one line "
                   "without surrounding spaces, got “%s”",
                   name, s);
      return FALSE;
    }
  *out = g_strdup (s);
  return TRUE;
}

/* The `domain` member of meta.json; the loader prefixes the file name. */
AnotDomain *
_anot_domain_new_from_node (JsonNode  *node,
                            GError   **error)
{
  g_autoptr(AnotDomain) self = NULL;
  g_autofree char *item = NULL, *items = NULL;
  JsonObject *object;
  JsonNode *attributes;

  if (!JSON_NODE_HOLDS_OBJECT (node))
    {
      g_set_error (error, ANOT_ERROR, ANOT_ERROR_INVALID_FIELD,
                   "field “domain”: expected an object");
      return NULL;
    }
  object = json_node_get_object (node);

  {
    g_autoptr(GList) members = json_object_get_members (object);

    for (GList *l = members; l != NULL; l = l->next)
      {
        const char *name = l->data;

        if (strcmp (name, "item") != 0 && strcmp (name, "items") != 0 && strcmp (name, "attributes") != 0)
          {
            g_set_error (error, ANOT_ERROR, ANOT_ERROR_INVALID_FIELD,
                         "field “domain.%s”: unknown member (expected “item”, “items” or “attributes”)",
                         name);
            return NULL;
          }
      }
  }

  if (!read_noun (object, "item", TRUE, &item, error) ||
      !read_noun (object, "items", FALSE, &items, error))
    return NULL;

  self = anot_domain_new (item, items);

  attributes = json_object_get_member (object, "attributes");
  if (attributes != NULL && !JSON_NODE_HOLDS_NULL (attributes))
    {
      g_autoptr(GList) members = NULL;

      if (!JSON_NODE_HOLDS_OBJECT (attributes))
        {
          g_set_error (error, ANOT_ERROR, ANOT_ERROR_INVALID_FIELD,
                       "field “domain.attributes”: expected an object (attribute name → description)");
          return NULL;
        }
      /* json-glib keeps members in document order: the glossary's order is
       * the order the prompts list them in. */
      members = json_object_get_members (json_node_get_object (attributes));
      for (GList *l = members; l != NULL; l = l->next)
        {
          JsonNode *value = json_object_get_member (json_node_get_object (attributes), l->data);

          if (!JSON_NODE_HOLDS_VALUE (value) || json_node_get_value_type (value) != G_TYPE_STRING)
            {
              g_set_error (error, ANOT_ERROR, ANOT_ERROR_INVALID_FIELD,
                           "field “domain.attributes.%s”: expected a string (what the attribute means)",
                           (const char *) l->data);
              return NULL;
            }
          anot_domain_add_attribute (self, l->data, json_node_get_string (value));
        }
    }

  return g_steal_pointer (&self);
}

/**
 * anot_domain_new_from_json:
 * @json: the JSON text of a domain object, as in `meta.json`'s `domain`
 * @length: the length of @json in bytes, or -1 if it is nul-terminated
 * @error: return location for a #GError
 *
 * Reads a domain from its JSON form: `item` (required), `items` (optional,
 * @item with an `s` by default) and `attributes` (optional, an object of
 * attribute name to description).  Unknown members are an error, so a typo
 * does not go unnoticed.
 *
 * Returns: (transfer full): the domain, or %NULL with @error set
 *   (%ANOT_ERROR_PARSE, %ANOT_ERROR_MISSING_FIELD, %ANOT_ERROR_INVALID_FIELD)
 */
AnotDomain *
anot_domain_new_from_json (const char  *json,
                           gssize       length,
                           GError     **error)
{
  g_autoptr(JsonParser) parser = json_parser_new ();
  GError *local_error = NULL;

  g_return_val_if_fail (json != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (!json_parser_load_from_data (parser, json, length, &local_error))
    {
      g_set_error (error, ANOT_ERROR, ANOT_ERROR_PARSE, "domain: %s", local_error->message);
      g_error_free (local_error);
      return NULL;
    }
  return _anot_domain_new_from_node (json_parser_get_root (parser), error);
}

/**
 * anot_domain_get_item:
 * @self: an #AnotDomain
 *
 * Returns: the noun for one item, e.g. `"hotel"`
 */
const char *
anot_domain_get_item (AnotDomain *self)
{
  g_return_val_if_fail (ANOT_IS_DOMAIN (self), NULL);
  return self->item;
}

/**
 * anot_domain_get_items:
 * @self: an #AnotDomain
 *
 * Returns: the noun for several items, e.g. `"hotels"`
 */
const char *
anot_domain_get_items (AnotDomain *self)
{
  g_return_val_if_fail (ANOT_IS_DOMAIN (self), NULL);
  return self->items;
}

/**
 * anot_domain_get_item_title:
 * @self: an #AnotDomain
 *
 * The noun for one item with its first letter in title case, as a heading
 * or the start of a sentence writes it: the formatter's `Restaurant 3:`,
 * a prompt's `{Item}`.  Only the first character changes (`"bed and
 * breakfast"` gives `"Bed and breakfast"`); it may be outside ASCII.
 *
 * Returns: (transfer none): the capitalised noun, e.g. `"Hotel"`
 */
const char *
anot_domain_get_item_title (AnotDomain *self)
{
  g_return_val_if_fail (ANOT_IS_DOMAIN (self), NULL);
  return self->item_title;
}

/**
 * anot_domain_get_items_title:
 * @self: an #AnotDomain
 *
 * The noun for several items, capitalised as by
 * anot_domain_get_item_title(): the formatter's heading `Restaurants:`, a
 * prompt's `{Items}`.
 *
 * Returns: (transfer none): the capitalised noun, e.g. `"Hotels"`
 */
const char *
anot_domain_get_items_title (AnotDomain *self)
{
  g_return_val_if_fail (ANOT_IS_DOMAIN (self), NULL);
  return self->items_title;
}

/**
 * anot_domain_is_default:
 * @self: an #AnotDomain
 *
 * Returns: whether the benchmark declared no domain (restaurants, with the
 *   original wording of every prompt)
 */
gboolean
anot_domain_is_default (AnotDomain *self)
{
  g_return_val_if_fail (ANOT_IS_DOMAIN (self), FALSE);
  return self->is_default;
}

/**
 * anot_domain_add_attribute:
 * @self: an #AnotDomain
 * @name: an attribute name, as in the items' `attributes`
 * @description: what it means, e.g. `"has a swimming pool"`
 *
 * Adds (or replaces the description of) a glossary entry.  For building a
 * domain in code; a dataset's domain is not to be changed.
 */
void
anot_domain_add_attribute (AnotDomain *self,
                           const char *name,
                           const char *description)
{
  g_return_if_fail (ANOT_IS_DOMAIN (self));
  g_return_if_fail (name != NULL);
  g_return_if_fail (description != NULL);

  if (!g_hash_table_contains (self->attributes, name))
    {
      char *key = g_strdup (name);

      g_ptr_array_index (self->attribute_names, self->attribute_names->len - 1) = key;
      g_ptr_array_add (self->attribute_names, NULL);
      g_hash_table_insert (self->attributes, key, g_strdup (description));
    }
  else
    /* The hash table keeps its key (the name array's copy) and frees the
     * old description. */
    g_hash_table_insert (self->attributes, (gpointer) name, g_strdup (description));
}

/**
 * anot_domain_get_attribute_names:
 * @self: an #AnotDomain
 *
 * Gets the attribute names of the glossary, in the order `meta.json`
 * lists them.
 *
 * Returns: (transfer none) (array zero-terminated=1): the names; empty
 *   when the domain has no glossary
 */
const char * const *
anot_domain_get_attribute_names (AnotDomain *self)
{
  g_return_val_if_fail (ANOT_IS_DOMAIN (self), NULL);
  return (const char * const *) self->attribute_names->pdata;
}

/**
 * anot_domain_get_attribute_description:
 * @self: an #AnotDomain
 * @name: an attribute name
 *
 * Returns: (nullable): the glossary's description of @name, or %NULL
 */
const char *
anot_domain_get_attribute_description (AnotDomain *self,
                                       const char *name)
{
  g_return_val_if_fail (ANOT_IS_DOMAIN (self), NULL);
  g_return_val_if_fail (name != NULL, NULL);
  return g_hash_table_lookup (self->attributes, name);
}

void
_anot_domain_set_common_attributes (AnotDomain         *self,
                                    const char * const *names)
{
  g_clear_pointer (&self->common_attributes, g_strfreev);
  self->common_attributes = g_strdupv ((char **) names);
}

/* The examples the original prompts give of a restaurant's attributes. */
static const char * const restaurant_examples[] = {
  "WiFi", "NoiseLevel", "OutdoorSeating", "Alcohol", "Ambience", "RestaurantsPriceRange2", NULL,
};

/**
 * anot_domain_get_example_attributes:
 * @self: an #AnotDomain
 *
 * Gets the attribute names prompts give as examples of what the items'
 * `attributes` hold: the original prompts' six for the restaurant domain,
 * the glossary's names when `meta.json` has one, and otherwise the six
 * attributes most items of the benchmark have.
 *
 * Returns: (transfer none) (array zero-terminated=1): the names (possibly
 *   none)
 */
const char * const *
anot_domain_get_example_attributes (AnotDomain *self)
{
  static const char * const none[] = { NULL };

  g_return_val_if_fail (ANOT_IS_DOMAIN (self), NULL);

  if (self->is_default)
    return restaurant_examples;
  if (self->attribute_names->len > 1)
    return (const char * const *) self->attribute_names->pdata;
  if (self->common_attributes != NULL)
    return (const char * const *) self->common_attributes;
  return none;
}
