/* anot-data-context.c: the dict context of a candidate pool
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "anot-data-context.h"

#include <math.h>
#include <string.h>

#include "anot-data-path-private.h"
#include "anot-pyliteral-private.h"
#include "anot-shared-table-private.h"

/* json.loads() of the original's values back to JSON, so the tools see
 * `true` and `{"garage": false}` where the file has `"True"` and
 * `"{'garage': False}"`. */
static JsonNode *
attributes_to_json (JsonNode *attributes)
{
  JsonObject *in;
  JsonObject *out;
  JsonNode *node;
  g_autoptr(GList) members = NULL;

  if (!JSON_NODE_HOLDS_OBJECT (attributes))
    return json_node_copy (attributes);

  in = json_node_get_object (attributes);
  out = json_object_new ();
  members = json_object_get_members (in);
  for (GList *l = members; l != NULL; l = l->next)
    {
      JsonNode *member = json_object_get_member (in, l->data);
      g_autoptr(AnotPyValue) raw = anot_py_value_new_from_json (member);
      g_autoptr(AnotPyValue) normalised = anot_py_normalise_pass_a (raw);

      json_object_set_member (out, l->data, anot_py_value_to_json (normalised));
    }

  node = json_node_init_object (json_node_alloc (), out);
  json_object_unref (out);
  return node;
}

/* An item's record as the dict context shows it (its reviews above all)
 * is most of a dict context (megabytes of json nodes at N = 50 on
 * philly_cafes) and the same in every context of that item but for
 * `index`: contexts built while others are alive share its member nodes
 * instead of each holding a copy (with -j 32 at N = 50, 32 copies of the
 * same 50 items' reviews were 190 MB of the run's 210 MB heap; the other
 * members, copied, were still ~3 MB), through a table of the 256 most
 * recently used items (anot-shared-table-private.h).  Shared nodes are
 * sealed: a consumer that tried to change one would get a critical
 * warning, not change the others' data. */
typedef struct
{
  AnotItem   *item;              /* a reference: the key cannot be reused */
  JsonObject *fields;            /* every member but `index`, in order */
} SharedItem;

static void shared_item_free (SharedItem *entry);

static AnotSharedTable shared_items = ANOT_SHARED_TABLE_INIT (256, shared_item_free);

static JsonArray *
reviews_to_json (AnotItem *item)
{
  JsonArray *reviews = json_array_new ();
  guint n_reviews = anot_item_get_n_reviews (item);

  for (guint i = 0; i < n_reviews; i++)
    json_array_add_object_element (reviews,
                                   anot_review_to_json (anot_item_get_review (item, i)));
  return reviews;
}

/* The members of anot_data_context_new_item() but `index`, sealed. */
static JsonObject *
item_fields (AnotItem *item)
{
  JsonObject *record = anot_item_get_record (item);
  JsonObject *out = json_object_new ();
  JsonNode *node;
  g_autoptr(GList) members = json_object_get_members (record);

  for (GList *l = members; l != NULL; l = l->next)
    {
      const char *name = l->data;
      JsonNode *member = json_object_get_member (record, name);

      if (strcmp (name, "attributes") == 0)
        json_object_set_member (out, name, attributes_to_json (member));
      else if (strcmp (name, "categories") == 0 && JSON_NODE_HOLDS_VALUE (member))
        {
          const char * const *categories = anot_item_get_categories (item);
          JsonArray *list = json_array_new ();

          for (guint i = 0; categories != NULL && categories[i] != NULL; i++)
            json_array_add_string_element (list, categories[i]);
          json_object_set_array_member (out, name, list);
        }
      else
        json_object_set_member (out, name, json_node_copy (member));
    }
  json_object_set_array_member (out, "reviews", reviews_to_json (item));

  /* Seals every member with it. */
  node = json_node_init_object (json_node_alloc (), out);
  json_node_seal (node);
  json_node_unref (node);
  return out;
}

static void
shared_item_free (SharedItem *entry)
{
  json_object_unref (entry->fields);
  g_object_unref (entry->item);
  g_free (entry);
}

static gpointer
shared_item_new (gpointer item)
{
  SharedItem *entry = g_new0 (SharedItem, 1);

  entry->item = g_object_ref (item);
  entry->fields = item_fields (item);
  return entry;
}

static gpointer
shared_item_ref_fields (gpointer entry)
{
  return json_object_ref (((SharedItem *) entry)->fields);
}

/**
 * anot_data_context_new_item:
 * @item: an item
 * @index: the 1-based position of @item among the candidates
 *
 * Builds the record of one candidate as the original framework showed it
 * to its dict-mode methods (methods.md §0.3 and §0.4): every field of
 * `restaurants.jsonl` except `llm_score` and `llm_reasoning` (they leak
 * the answer); `attributes` with Yelp's Python-flavoured strings parsed
 * (`"True"` is `true`, `"u'free'"` is `"free"`, `"{'a': True}"` is an
 * object, `"None"` is `null`); `categories` as a list; `reviews`, every
 * review of the item in file order (see anot_review_to_json()); and
 * `index`.
 *
 * Every member but `index` is shared with the other contexts of @item
 * built while they are alive, and sealed (json_node_seal()): read them,
 * do not change them.
 *
 * Returns: (transfer full): a new JSON object node
 */
JsonNode *
anot_data_context_new_item (AnotItem *item,
                            guint     index)
{
  g_autoptr(JsonObject) fields = NULL;
  JsonObjectIter iter;
  const char *name;
  JsonNode *member;
  JsonObject *out;
  JsonNode *node;

  g_return_val_if_fail (ANOT_IS_ITEM (item), NULL);

  fields = anot_shared_table_lookup (&shared_items, item, shared_item_new, shared_item_ref_fields);

  out = json_object_new ();
  json_object_iter_init_ordered (&iter, fields);
  while (json_object_iter_next_ordered (&iter, &name, &member))
    json_object_set_member (out, name, json_node_ref (member));
  json_object_set_int_member (out, "index", index);

  node = json_node_init_object (json_node_alloc (), out);
  json_object_unref (out);
  return node;
}

/**
 * anot_data_context_dup_item_member:
 * @item: an item
 * @name: a member of @item's record in the dict context, e.g.
 *   `attributes`; not `index`, which depends on the pool
 *
 * Reads one member of the record anot_data_context_new_item() builds,
 * without building the record: the node every context of @item shares
 * (sealed), for a caller that needs one field, such as a prompt about
 * one item.
 *
 * Returns: (transfer full) (nullable): the member, or %NULL if the
 *   record has none
 */
JsonNode *
anot_data_context_dup_item_member (AnotItem   *item,
                                   const char *name)
{
  g_autoptr(JsonObject) fields = NULL;
  JsonNode *member;

  g_return_val_if_fail (ANOT_IS_ITEM (item), NULL);
  g_return_val_if_fail (name != NULL, NULL);

  fields = anot_shared_table_lookup (&shared_items, item, shared_item_new, shared_item_ref_fields);
  member = json_object_get_member (fields, name);
  return member != NULL ? json_node_ref (member) : NULL;
}

/**
 * anot_data_context_new:
 * @candidates: (element-type Anot.Item): the candidates, in the order the
 *   method sees them
 *
 * Builds the dict context of a candidate pool, the document the
 * data-exploration tools and LWT scripts read:
 * `{"items": {"1": item, "2": item, ...}}` with 1-based string keys and
 * each item as anot_data_context_new_item() builds it (its reviews and
 * attributes shared and sealed).  Nothing is truncated.
 *
 * Returns: (transfer full): a new JSON object node
 */
JsonNode *
anot_data_context_new (GPtrArray *candidates)
{
  JsonObject *root;
  JsonObject *items;
  JsonNode *node;

  g_return_val_if_fail (candidates != NULL, NULL);

  items = json_object_new ();
  for (guint i = 0; i < candidates->len; i++)
    {
      char key[16];

      g_snprintf (key, sizeof key, "%u", i + 1);
      json_object_set_member (items, key,
                              anot_data_context_new_item (g_ptr_array_index (candidates, i),
                                                          i + 1));
    }

  root = json_object_new ();
  json_object_set_object_member (root, "items", items);
  node = json_node_init_object (json_node_alloc (), root);
  json_object_unref (root);
  return node;
}

/* Python's repr() of a float: the shortest text that reads back the same
 * value, with ".0" on integral values. */
static void
append_python_float (GString *out,
                     double   d)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];

  if (d == floor (d) && fabs (d) < 1e16)
    {
      g_string_append_printf (out, "%.1f", d);
      return;
    }

  for (int precision = 1; precision <= 17; precision++)
    {
      char format[8];

      g_snprintf (format, sizeof format, "%%.%dg", precision);
      g_ascii_formatd (buf, sizeof buf, format, d);
      if (g_ascii_strtod (buf, NULL) == d)
        break;
    }
  g_string_append (out, buf);
}

/**
 * anot_json_value_to_text:
 * @node: (nullable): a JSON value
 *
 * Writes a value the way the original framework put values into prompts
 * (Python's `str()` of the decoded value for scalars, JSON text for
 * containers): a string as itself, `true` as `True`, `null` (or %NULL) as
 * `None`, `4.0` as `4.0`, an object or array as compact JSON.
 *
 * Returns: (transfer full): the text
 */
char *
anot_json_value_to_text (JsonNode *node)
{
  if (node == NULL || JSON_NODE_HOLDS_NULL (node))
    return g_strdup ("None");

  if (JSON_NODE_HOLDS_OBJECT (node) || JSON_NODE_HOLDS_ARRAY (node))
    return json_to_string (node, FALSE);

  switch (json_node_get_value_type (node))
    {
    case G_TYPE_STRING:
      return g_strdup (json_node_get_string (node));
    case G_TYPE_BOOLEAN:
      return g_strdup (json_node_get_boolean (node) ? "True" : "False");
    case G_TYPE_INT64:
      return g_strdup_printf ("%" G_GINT64_FORMAT, json_node_get_int (node));
    case G_TYPE_DOUBLE:
      {
        GString *out = g_string_new (NULL);

        append_python_float (out, json_node_get_double (node));
        return g_string_free (out, FALSE);
      }
    default:
      return json_to_string (node, FALSE);
    }
}
