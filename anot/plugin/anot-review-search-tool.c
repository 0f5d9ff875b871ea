/* anot-review-search-tool.c: keyword search in the candidates' reviews
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "anot-review-search-tool.h"

#include <string.h>

#include "anot-tool-private.h"
#include "anot-data-tool.h"
#include "anot-error.h"
#include "anot-tool.h"

/**
 * AnotReviewSearchTool:
 *
 * The `search_reviews` tool of the agents: finds the reviews of each
 * candidate that mention a keyword, so a model can check what only
 * reviews tell (a quiet room, a friendly owner, a dog at the door) across
 * the pool in one step — `search_reviews("quiet|calm")`,
 * `search_reviews("parking", 4)`.
 *
 * The keyword is matched case-insensitively (ASCII letters) as a
 * substring of each review's `text`; `|` separates alternatives.
 *
 * Arguments: `["keyword"]`, `["keyword", item]` (an item number, or a
 * list of them), or `{"keyword": ..., "item": ...}`.
 *
 * Result: `{"keyword", "items_matching": [numbers], "matches": {"2":
 * {"n_matching_reviews", "n_reviews", "snippets": ["(5 stars) ...text
 * around the match..."]}}, "no_match": [numbers]}`, with at most
 * [property@Anot.ReviewSearchTool:max-snippets] snippets per item of
 * [property@Anot.ReviewSearchTool:snippet-chars] characters on each side
 * of the match.
 */

#define DEFAULT_MAX_SNIPPETS 2
#define DEFAULT_SNIPPET_CHARS 80

struct _AnotReviewSearchTool
{
  GObject   parent_instance;

  JsonNode *data;
  guint     max_snippets;
  guint     snippet_chars;
};

static void anot_review_search_tool_tool_iface_init (AnotToolInterface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE (AnotReviewSearchTool, anot_review_search_tool, G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (ANOT_TYPE_TOOL,
                                                      anot_review_search_tool_tool_iface_init))

enum {
  PROP_0,
  PROP_DATA,
  PROP_MAX_SNIPPETS,
  PROP_SNIPPET_CHARS,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

static void
anot_review_search_tool_finalize (GObject *object)
{
  AnotReviewSearchTool *self = ANOT_REVIEW_SEARCH_TOOL (object);

  g_clear_pointer (&self->data, json_node_unref);

  G_OBJECT_CLASS (anot_review_search_tool_parent_class)->finalize (object);
}

static void
anot_review_search_tool_get_property (GObject    *object,
                                      guint       prop_id,
                                      GValue     *value,
                                      GParamSpec *pspec)
{
  AnotReviewSearchTool *self = ANOT_REVIEW_SEARCH_TOOL (object);

  switch (prop_id)
    {
    case PROP_DATA:
      g_value_set_boxed (value, self->data);
      break;
    case PROP_MAX_SNIPPETS:
      g_value_set_uint (value, self->max_snippets);
      break;
    case PROP_SNIPPET_CHARS:
      g_value_set_uint (value, self->snippet_chars);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
anot_review_search_tool_set_property (GObject      *object,
                                      guint         prop_id,
                                      const GValue *value,
                                      GParamSpec   *pspec)
{
  AnotReviewSearchTool *self = ANOT_REVIEW_SEARCH_TOOL (object);

  switch (prop_id)
    {
    case PROP_DATA:
      anot_review_search_tool_set_data (self, g_value_get_boxed (value));
      break;
    case PROP_MAX_SNIPPETS:
      anot_review_search_tool_set_max_snippets (self, g_value_get_uint (value));
      break;
    case PROP_SNIPPET_CHARS:
      anot_review_search_tool_set_snippet_chars (self, g_value_get_uint (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
anot_review_search_tool_class_init (AnotReviewSearchToolClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = anot_review_search_tool_finalize;
  object_class->get_property = anot_review_search_tool_get_property;
  object_class->set_property = anot_review_search_tool_set_property;

  /**
   * AnotReviewSearchTool:data:
   *
   * The dict context the tool reads, `{"items": {"1": ..., ...}}`.
   */
  properties[PROP_DATA] =
    g_param_spec_boxed ("data", NULL, NULL, JSON_TYPE_NODE,
                        G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);

  /**
   * AnotReviewSearchTool:max-snippets:
   *
   * How many matching reviews of one item are quoted.
   */
  properties[PROP_MAX_SNIPPETS] =
    g_param_spec_uint ("max-snippets", NULL, NULL, 0, G_MAXUINT, DEFAULT_MAX_SNIPPETS,
                       G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);

  /**
   * AnotReviewSearchTool:snippet-chars:
   *
   * How many characters a snippet shows on each side of the match.
   */
  properties[PROP_SNIPPET_CHARS] =
    g_param_spec_uint ("snippet-chars", NULL, NULL, 0, G_MAXUINT, DEFAULT_SNIPPET_CHARS,
                       G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);

  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
anot_review_search_tool_init (AnotReviewSearchTool *self)
{
  self->max_snippets = DEFAULT_MAX_SNIPPETS;
  self->snippet_chars = DEFAULT_SNIPPET_CHARS;
}

static const char *
anot_review_search_tool_get_name (AnotTool *tool)
{
  return "search_reviews";
}

static const char *
anot_review_search_tool_get_description (AnotTool *tool)
{
  return "finds the reviews of every item (or of the item numbers given) that mention a keyword, "
         "case-insensitively, with snippets; alternatives separated by |, "
         "e.g. search_reviews(\"quiet|calm\")";
}

static JsonNode *
anot_review_search_tool_get_schema (AnotTool *tool)
{
  g_autoptr(JsonParser) parser = json_parser_new_immutable ();

  json_parser_load_from_data (parser,
    "{\"type\": \"object\", \"properties\": {"
    "  \"keyword\": {\"type\": \"string\", \"description\": "
    "     \"Text to find in the reviews; | separates alternatives\"},"
    "  \"item\": {\"description\": \"An item number or a list of them; all items when absent\","
    "     \"oneOf\": [{\"type\": \"integer\"}, {\"type\": \"array\", \"items\": {\"type\": \"integer\"}}]}"
    "}, \"required\": [\"keyword\"], \"additionalProperties\": false}", -1, NULL);
  return json_node_copy (json_parser_get_root (parser));
}

/* The text around byte @start .. @end of @text, on character boundaries. */
static char *
snippet (AnotReviewSearchTool *self,
         const char           *text,
         gsize                 start,
         gsize                 end)
{
  const char *from = text + start;
  const char *to = text + end;
  g_autofree char *middle = NULL;

  for (guint i = 0; i < self->snippet_chars && from > text; i++)
    from = g_utf8_find_prev_char (text, from);
  for (guint i = 0; i < self->snippet_chars && *to != '\0'; i++)
    to = g_utf8_next_char (to);
  middle = g_strndup (from, to - from);
  g_strdelimit (middle, "\n\r\t", ' ');
  return g_strdup_printf ("%s%s%s", from > text ? "..." : "", middle, *to != '\0' ? "..." : "");
}

static JsonNode *
anot_review_search_tool_invoke (AnotTool  *tool,
                                JsonNode  *args,
                                GError   **error)
{
  AnotReviewSearchTool *self = ANOT_REVIEW_SEARCH_TOOL (tool);
  static const char * const names[] = { "keyword", "item" };
  JsonNode *arguments[2];
  g_autofree char *message = NULL;
  g_autoptr(GArray) all = NULL;
  g_autoptr(GArray) items = NULL;
  g_auto(GStrv) alternatives = NULL;
  g_autoptr(GPtrArray) terms = g_ptr_array_new_with_free_func (g_free);
  JsonObject *result, *matches;
  JsonArray *matching, *no_match;

  if (self->data == NULL)
    {
      g_set_error (error, ANOT_ERROR, ANOT_ERROR_INVALID_ARGUMENT,
                   "Tool “search_reviews” has no data to read");
      return NULL;
    }

  if (!_anot_tool_arguments (args, names, G_N_ELEMENTS (names), arguments) ||
      arguments[0] == NULL || !JSON_NODE_HOLDS_VALUE (arguments[0]) ||
      json_node_get_value_type (arguments[0]) != G_TYPE_STRING)
    return anot_tool_result_new_error ("search_reviews() takes a keyword in quotes, and optionally "
                                       "an item number: search_reviews(\"quiet\")");

  alternatives = g_strsplit (json_node_get_string (arguments[0]), "|", -1);
  for (guint i = 0; alternatives[i] != NULL; i++)
    {
      char *term = g_ascii_strdown (g_strstrip (alternatives[i]), -1);

      if (term[0] != '\0')
        g_ptr_array_add (terms, term);
      else
        g_free (term);
    }
  if (terms->len == 0)
    return anot_tool_result_new_error ("search_reviews() needs a non-empty keyword");

  all = _anot_tool_list_items (self->data, &message);
  if (all == NULL)
    return anot_tool_result_new_error (message);
  items = _anot_tool_select_items (all, arguments[1], &message);
  if (items == NULL)
    return anot_tool_result_new_error (message);

  result = json_object_new ();
  json_object_set_string_member (result, "keyword", json_node_get_string (arguments[0]));
  matches = json_object_new ();
  matching = json_array_new ();
  no_match = json_array_new ();

  for (guint i = 0; i < items->len; i++)
    {
      AnotToolItem *item = &g_array_index (items, AnotToolItem, i);
      JsonNode *reviews_node = json_object_get_member (item->item, "reviews");
      JsonArray *reviews = reviews_node != NULL && JSON_NODE_HOLDS_ARRAY (reviews_node)
                           ? json_node_get_array (reviews_node) : NULL;
      guint n_reviews = reviews != NULL ? json_array_get_length (reviews) : 0;
      guint n_matching = 0;
      JsonArray *snippets = json_array_new ();

      for (guint r = 0; r < n_reviews; r++)
        {
          JsonNode *review = json_array_get_element (reviews, r);
          JsonObject *object = JSON_NODE_HOLDS_OBJECT (review) ? json_node_get_object (review) : NULL;
          const char *text = object != NULL
                             ? json_object_get_string_member_with_default (object, "text", NULL)
                             : NULL;
          g_autofree char *lower = NULL;
          const char *hit = NULL;
          gsize hit_length = 0;

          if (text == NULL)
            continue;
          lower = g_ascii_strdown (text, -1);
          for (guint t = 0; t < terms->len; t++)
            {
              const char *found = strstr (lower, g_ptr_array_index (terms, t));

              if (found != NULL && (hit == NULL || found < hit))
                {
                  hit = found;
                  hit_length = strlen (g_ptr_array_index (terms, t));
                }
            }
          if (hit == NULL)
            continue;
          n_matching++;
          if (json_array_get_length (snippets) < self->max_snippets)
            {
              g_autofree char *cut = snippet (self, text, hit - lower, hit - lower + hit_length);
              JsonNode *stars = json_object_get_member (object, "stars");

              if (stars != NULL && JSON_NODE_HOLDS_VALUE (stars))
                {
                  g_autofree char *with_stars =
                    g_strdup_printf ("(%g stars) %s", json_node_get_double (stars), cut);

                  json_array_add_string_element (snippets, with_stars);
                }
              else
                json_array_add_string_element (snippets, cut);
            }
        }

      if (n_matching > 0)
        {
          JsonObject *entry = json_object_new ();

          json_object_set_int_member (entry, "n_matching_reviews", n_matching);
          json_object_set_int_member (entry, "n_reviews", n_reviews);
          json_object_set_array_member (entry, "snippets", snippets);
          json_object_set_object_member (matches, item->key, entry);
          json_array_add_int_element (matching, item->number);
        }
      else
        {
          json_array_unref (snippets);
          json_array_add_int_element (no_match, item->number);
        }
    }

  json_object_set_array_member (result, "items_matching", matching);
  json_object_set_object_member (result, "matches", matches);
  json_object_set_array_member (result, "no_match", no_match);
  return _anot_tool_object_node (result);
}

static void
anot_review_search_tool_tool_iface_init (AnotToolInterface *iface)
{
  iface->get_name = anot_review_search_tool_get_name;
  iface->get_description = anot_review_search_tool_get_description;
  iface->get_schema = anot_review_search_tool_get_schema;
  iface->invoke = anot_review_search_tool_invoke;
}

/**
 * anot_review_search_tool_new:
 * @data: (nullable): the dict context to read
 *
 * Returns: (transfer full): a new `search_reviews` tool
 */
AnotReviewSearchTool *
anot_review_search_tool_new (JsonNode *data)
{
  return g_object_new (ANOT_TYPE_REVIEW_SEARCH_TOOL, "data", data, NULL);
}

/**
 * anot_review_search_tool_get_data:
 * @self: a tool
 *
 * Returns: (transfer none) (nullable): the dict context the tool reads
 */
JsonNode *
anot_review_search_tool_get_data (AnotReviewSearchTool *self)
{
  g_return_val_if_fail (ANOT_IS_REVIEW_SEARCH_TOOL (self), NULL);

  return self->data;
}

/**
 * anot_review_search_tool_set_data:
 * @self: a tool
 * @data: (nullable): the dict context to read; a reference is kept and
 *   it is never modified
 *
 * Sets the document the tool reads.
 */
void
anot_review_search_tool_set_data (AnotReviewSearchTool *self,
                                  JsonNode             *data)
{
  g_return_if_fail (ANOT_IS_REVIEW_SEARCH_TOOL (self));

  if (self->data == data)
    return;
  g_clear_pointer (&self->data, json_node_unref);
  self->data = data != NULL ? json_node_ref (data) : NULL;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_DATA]);
}

/**
 * anot_review_search_tool_get_max_snippets:
 * @self: a tool
 *
 * Returns: how many matching reviews of one item are quoted
 */
guint
anot_review_search_tool_get_max_snippets (AnotReviewSearchTool *self)
{
  g_return_val_if_fail (ANOT_IS_REVIEW_SEARCH_TOOL (self), 0);

  return self->max_snippets;
}

/**
 * anot_review_search_tool_set_max_snippets:
 * @self: a tool
 * @max_snippets: a count (0: counts only)
 *
 * Sets how many matching reviews of one item are quoted.
 */
void
anot_review_search_tool_set_max_snippets (AnotReviewSearchTool *self,
                                          guint                 max_snippets)
{
  g_return_if_fail (ANOT_IS_REVIEW_SEARCH_TOOL (self));

  if (self->max_snippets == max_snippets)
    return;
  self->max_snippets = max_snippets;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_MAX_SNIPPETS]);
}

/**
 * anot_review_search_tool_get_snippet_chars:
 * @self: a tool
 *
 * Returns: how many characters a snippet shows on each side of the match
 */
guint
anot_review_search_tool_get_snippet_chars (AnotReviewSearchTool *self)
{
  g_return_val_if_fail (ANOT_IS_REVIEW_SEARCH_TOOL (self), 0);

  return self->snippet_chars;
}

/**
 * anot_review_search_tool_set_snippet_chars:
 * @self: a tool
 * @snippet_chars: a count of characters
 *
 * Sets how many characters a snippet shows on each side of the match.
 */
void
anot_review_search_tool_set_snippet_chars (AnotReviewSearchTool *self,
                                           guint                 snippet_chars)
{
  g_return_if_fail (ANOT_IS_REVIEW_SEARCH_TOOL (self));

  if (self->snippet_chars == snippet_chars)
    return;
  self->snippet_chars = snippet_chars;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_SNIPPET_CHARS]);
}
