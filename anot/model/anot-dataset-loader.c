/* anot-dataset-loader.c: a benchmark directory put together
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * anot_dataset_load() and what it reads beside the items and reviews: the
 * friend graph and review assignments, the requests, the ground truth, the
 * cached judgements and meta.json; then the attributes most items have.
 */
#include "config.h"

#include <errno.h>
#include <string.h>

#include "anot-dataset-loader-private.h"
#include "anot-error.h"
#include "anot-json-private.h"
#include "anot-text-private.h"

/* ------------------------------------------------------------------------ *
 * user_mapping.json
 * ------------------------------------------------------------------------ */

/* Copies an array of names into the store.  @display names the array in
 * errors. */
static const char * const *
store_name_list (AnotStore         *store,
                 AnotJsonDocument  *doc,
                 int                array,
                 const char        *display,
                 GError           **error)
{
  const char **names;
  guint len;
  int element = array + 1;

  if (anot_json_document_get_kind (doc, array) != ANOT_JSON_KIND_ARRAY)
    {
      g_set_error (error, ANOT_ERROR, ANOT_ERROR_INVALID_FIELD,
                   "field “%s”: expected an array of names", display);
      return NULL;
    }

  len = anot_json_document_get_size (doc, array);
  if (len == 0)
    return _anot_dataset_empty_strv;

  names = _anot_store_alloc (store, (len + 1) * sizeof (char *));
  for (guint i = 0; i < len; i++, element = _anot_json_document_get_next (doc, element))
    {
      if (anot_json_document_get_kind (doc, element) != ANOT_JSON_KIND_STRING)
        {
          g_set_error (error, ANOT_ERROR, ANOT_ERROR_INVALID_FIELD,
                       "field “%s[%u]”: expected a string", display, i);
          return NULL;
        }
      names[i] = _anot_store_intern_json_string (store, doc, element);
    }
  names[len] = NULL;

  return names;
}

static gboolean
load_friend_graph (AnotDataset       *ds,
                   AnotJsonDocument  *doc,
                   int                graph,
                   GError           **error)
{
  guint size = anot_json_document_get_size (doc, graph);
  int key = graph + 1;

  /* A repeated name: its last list stays in the table. */
  for (guint i = 0; i < size; i++, key = _anot_json_document_get_next (doc, key + 1))
    {
      g_autofree char *name = anot_json_document_dup_string (doc, key);
      g_autofree char *display = g_strdup_printf ("friend_graph.%s", name);
      const char * const *friends;

      friends = store_name_list (ds->store, doc, key + 1, display, error);
      if (friends == NULL)
        return FALSE;
      g_hash_table_insert (ds->friend_graph,
                           (gpointer) _anot_store_intern (ds->store, name),
                           (gpointer) friends);
    }

  return TRUE;
}

static gboolean
parse_item_index (const char *key,
                  guint64    *out)
{
  char *end = NULL;

  if (!g_ascii_isdigit (key[0]))
    return FALSE;

  errno = 0;
  *out = g_ascii_strtoull (key, &end, 10);

  return errno == 0 && *end == '\0';
}

static gboolean
load_review_assignments (Loader            *loader,
                         AnotJsonDocument  *doc,
                         int                assignments,
                         GError           **error)
{
  AnotDataset *ds = loader->ds;
  guint size = anot_json_document_get_size (doc, assignments);
  int key_value = assignments + 1;

  for (guint k = 0; k < size; k++, key_value = _anot_json_document_get_next (doc, key_value + 1))
    {
      g_autofree char *key = anot_json_document_dup_string (doc, key_value);
      int records = key_value + 1, record;
      AnotItem *item;
      guint64 index;
      guint n_records;

      if (!parse_item_index (key, &index))
        {
          g_set_error (error, ANOT_ERROR, ANOT_ERROR_INVALID_FIELD,
                       "field “review_assignments.%s”: expected an item index as key", key);
          return FALSE;
        }
      if (index >= ds->items->len)
        {
          g_set_error (error, ANOT_ERROR, ANOT_ERROR_UNKNOWN_REFERENCE,
                       "field “review_assignments.%s”: no item with index %s", key, key);
          return FALSE;
        }
      if (anot_json_document_get_kind (doc, records) != ANOT_JSON_KIND_ARRAY)
        {
          g_set_error (error, ANOT_ERROR, ANOT_ERROR_INVALID_FIELD,
                       "field “review_assignments.%s”: expected an array", key);
          return FALSE;
        }

      item = g_ptr_array_index (ds->items, index);
      n_records = anot_json_document_get_size (doc, records);
      record = records + 1;

      for (guint i = 0; i < n_records; i++, record = _anot_json_document_get_next (doc, record))
        {
          g_autofree char *display = g_strdup_printf ("review_assignments.%s[%u]", key, i);
          g_autofree char *field = NULL;
          g_autofree char *name = NULL;
          const char * const *friends;
          int friends_value, name_value;
          gint64 review_idx;
          gboolean present;
          GError *local_error = NULL;

          if (anot_json_document_get_kind (doc, record) != ANOT_JSON_KIND_OBJECT)
            {
              g_set_error (error, ANOT_ERROR, ANOT_ERROR_INVALID_FIELD,
                           "field “%s”: expected an object", display);
              return FALSE;
            }

          field = g_strconcat (display, ".review_idx", NULL);
          if (!_anot_loader_read_int (doc, _anot_loader_member (doc, record, "review_idx"), field, TRUE, &review_idx, &present, error))
            return FALSE;
          g_free (field);
          field = g_strconcat (display, ".name", NULL);
          if (!_anot_loader_read_string (doc, _anot_loader_member (doc, record, "name"), field, TRUE, &name_value, error))
            return FALSE;
          name = anot_json_document_dup_string (doc, name_value);

          /* Records past the item's reviews are ignored, as the original
           * did (philly_cafes' 19-review items have a record for review
           * 19), but said: in a new benchmark it is a mistake. */
          if (review_idx < 0 || review_idx >= anot_item_get_n_reviews (item))
            {
              _anot_dataset_add_warning (ds, "user_mapping.json: field “%s.review_idx”: item %s has %u reviews, "
                           "so there is no review %" G_GINT64_FORMAT "; the record is ignored",
                           display, anot_item_get_id (item), anot_item_get_n_reviews (item),
                           review_idx);
              continue;
            }

          friends_value = _anot_loader_member (doc, record, "friends");
          if (friends_value >= 0 && anot_json_document_get_kind (doc, friends_value) != ANOT_JSON_KIND_NULL)
            {
              g_free (field);
              field = g_strconcat (display, ".friends", NULL);
              friends = store_name_list (ds->store, doc, friends_value, field, &local_error);
              if (friends == NULL)
                {
                  g_propagate_error (error, local_error);
                  return FALSE;
                }
            }
          else
            {
              /* As the original loader: without its own list, a record
               * shows the reviewer's friend_graph entry. */
              friends = g_hash_table_lookup (ds->friend_graph, name);
              if (friends == NULL)
                friends = _anot_dataset_empty_strv;
            }

          /* Several records for one review: the last wins, as in the
           * reference's dict comprehension. */
          _anot_review_set_assignment (anot_item_get_review (item, review_idx),
                                       _anot_store_intern (ds->store, name),
                                       friends);
          loader->review_fields |= ANOT_REVIEW_HAS_ASSIGNMENT;
        }
    }

  return TRUE;
}

static gboolean
load_user_mapping (Loader  *loader,
                   GError **error)
{
  AnotDataset *ds = loader->ds;
  AnotJsonDocument *doc = loader->doc;
  g_autofree char *contents = NULL;
  GError *local_error = NULL;
  int node;

  if (!_anot_loader_load_json_document (loader, "user_mapping.json", &contents, &local_error))
    {
      if (local_error == NULL)
        return TRUE;
      g_propagate_error (error, local_error);
      return FALSE;
    }

  /* The graph first: assignments without a friends list fall back to it. */
  node = _anot_loader_member (doc, 0, "friend_graph");
  if (node >= 0 && anot_json_document_get_kind (doc, node) != ANOT_JSON_KIND_NULL)
    {
      if (anot_json_document_get_kind (doc, node) != ANOT_JSON_KIND_OBJECT)
        {
          g_set_error (error, ANOT_ERROR, ANOT_ERROR_INVALID_FIELD,
                       "user_mapping.json: field “friend_graph”: expected an object");
          return FALSE;
        }
      if (!load_friend_graph (ds, doc, node, &local_error))
        {
          g_propagate_prefixed_error (error, local_error, "user_mapping.json: ");
          return FALSE;
        }
    }

  node = _anot_loader_member (doc, 0, "review_assignments");
  if (node >= 0 && anot_json_document_get_kind (doc, node) != ANOT_JSON_KIND_NULL)
    {
      if (anot_json_document_get_kind (doc, node) != ANOT_JSON_KIND_OBJECT)
        {
          g_set_error (error, ANOT_ERROR, ANOT_ERROR_INVALID_FIELD,
                       "user_mapping.json: field “review_assignments”: expected an object");
          return FALSE;
        }
      if (!load_review_assignments (loader, doc, node, &local_error))
        {
          g_propagate_prefixed_error (error, local_error, "user_mapping.json: ");
          return FALSE;
        }
    }

  return TRUE;
}

/* The gold item's id: `gold_item`, or `gold_restaurant` as the original
 * framework names it.  Both may be given (a file kept readable by the
 * original's tools) when they agree.  *@display is the name used. */
static gboolean
read_gold (AnotJsonDocument  *doc,
           int               *out,
           const char       **display,
           GError           **error)
{
  int item_value, restaurant_value;

  if (!_anot_loader_read_string (doc, _anot_loader_member (doc, 0, "gold_item"), "gold_item", FALSE, &item_value, error) ||
      !_anot_loader_read_string (doc, _anot_loader_member (doc, 0, "gold_restaurant"), "gold_restaurant", FALSE, &restaurant_value, error))
    return FALSE;

  if (item_value >= 0 && restaurant_value >= 0)
    {
      g_autofree char *a = anot_json_document_dup_string (doc, item_value);
      g_autofree char *b = anot_json_document_dup_string (doc, restaurant_value);

      if (strcmp (a, b) != 0)
        {
          g_set_error (error, ANOT_ERROR, ANOT_ERROR_INVALID_FIELD,
                       "field “gold_item”: “%s” disagrees with “gold_restaurant” (“%s”); give one of them",
                       a, b);
          return FALSE;
        }
    }
  if (item_value < 0 && restaurant_value < 0)
    {
      g_set_error (error, ANOT_ERROR, ANOT_ERROR_MISSING_FIELD,
                   "field “gold_item”: missing (or “gold_restaurant”, its original name)");
      return FALSE;
    }

  *out = item_value >= 0 ? item_value : restaurant_value;
  *display = item_value >= 0 ? "gold_item" : "gold_restaurant";
  return TRUE;
}

/* Whether @name is a person of the friend graph: a key, or a friend of
 * someone.  Built on the first social leaf. */
static gboolean
graph_has_name (Loader     *loader,
                const char *name)
{
  AnotDataset *ds = loader->ds;

  if (loader->graph_names == NULL)
    {
      GHashTableIter iter;
      gpointer key, value;

      loader->graph_names = g_hash_table_new (g_str_hash, g_str_equal);
      g_hash_table_iter_init (&iter, ds->friend_graph);
      while (g_hash_table_iter_next (&iter, &key, &value))
        {
          const char * const *friends = value;

          g_hash_table_add (loader->graph_names, key);
          for (guint i = 0; friends[i] != NULL; i++)
            g_hash_table_add (loader->graph_names, (gpointer) friends[i]);
        }
    }
  return g_hash_table_contains (loader->graph_names, name);
}

/* Whether some item has @path (a JSON array of keys from the item, as
 * item_meta's `path`): a request about an attribute no item has reads null
 * on every item, which is a typo more often than a design. */
static gboolean
some_item_has_path (Loader    *loader,
                    JsonArray *path)
{
  AnotDataset *ds = loader->ds;
  g_autoptr(GString) key = g_string_new (NULL);
  guint len = json_array_get_length (path);
  gpointer found;
  gboolean result = FALSE;

  for (guint i = 0; i < len; i++)
    {
      JsonNode *step = json_array_get_element (path, i);

      if (!JSON_NODE_HOLDS_VALUE (step) || json_node_get_value_type (step) != G_TYPE_STRING)
        return TRUE;   /* not a path of keys: the validator says what it means */
      g_string_append_printf (key, "%s\n", json_node_get_string (step));
    }
  if (loader->known_paths == NULL)
    loader->known_paths = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  if (g_hash_table_lookup_extended (loader->known_paths, key->str, NULL, &found))
    return GPOINTER_TO_INT (found);

  for (guint i = 0; i < ds->items->len && !result; i++)
    {
      AnotItem *item = ds->items->pdata[i];

      /* The common case without parsing the record: a string attribute. */
      if (len == 2 && strcmp (json_array_get_string_element (path, 0), "attributes") == 0 &&
          anot_item_get_attribute (item, json_array_get_string_element (path, 1)) != NULL)
        result = TRUE;
    }
  for (guint i = 0; i < ds->items->len && !result; i++)
    {
      g_autoptr(JsonObject) record = _anot_item_dup_record (ds->items->pdata[i]);
      JsonObject *object = record;

      for (guint s = 0; s < len && object != NULL; s++)
        {
          JsonNode *member = json_object_get_member (object, json_array_get_string_element (path, s));

          if (member == NULL || JSON_NODE_HOLDS_NULL (member))
            break;
          if (s + 1 == len)
            result = TRUE;
          object = JSON_NODE_HOLDS_OBJECT (member) ? json_node_get_object (member) : NULL;
        }
    }
  g_hash_table_insert (loader->known_paths, g_strdup (key->str), GINT_TO_POINTER (result));
  return result;
}

/* The AnotReviewFlags bit of a review field (`"date"`, `["user",
 * "average_stars"]`) as review_group_rating's `group_filter.field` names
 * it; 0 for the fields every review has; -1 for one no review can have. */
static int
review_field_flag (JsonNode *field)
{
  static const struct { const char *name; int flag; } top[] = {
    { "review_id", 0 }, { "business_id", 0 }, { "stars", 0 }, { "text", 0 },
    { "date", ANOT_REVIEW_HAS_DATE }, { "useful", ANOT_REVIEW_HAS_USEFUL },
    { "funny", ANOT_REVIEW_HAS_FUNNY }, { "cool", ANOT_REVIEW_HAS_COOL },
    { "user_id", ANOT_REVIEW_HAS_USER_ID }, { "user", ANOT_REVIEW_HAS_USER },
  }, user[] = {
    { "review_count", ANOT_REVIEW_HAS_USER_REVIEW_COUNT },
    { "average_stars", ANOT_REVIEW_HAS_USER_AVERAGE_STARS },
    { "yelping_since", ANOT_REVIEW_HAS_USER_YELPING_SINCE },
    { "name", ANOT_REVIEW_HAS_ASSIGNMENT }, { "friends", ANOT_REVIEW_HAS_ASSIGNMENT },
  };
  const char *first = NULL, *second = NULL;

  if (JSON_NODE_HOLDS_VALUE (field) && json_node_get_value_type (field) == G_TYPE_STRING)
    first = json_node_get_string (field);
  else if (JSON_NODE_HOLDS_ARRAY (field))
    {
      JsonArray *array = json_node_get_array (field);

      if (json_array_get_length (array) == 0 || json_array_get_length (array) > 2)
        return 0;   /* the validator's business */
      first = json_array_get_string_element (array, 0);
      if (json_array_get_length (array) == 2)
        second = json_array_get_string_element (array, 1);
    }
  if (first == NULL)
    return 0;
  if (second == NULL)
    {
      for (guint i = 0; i < G_N_ELEMENTS (top); i++)
        if (strcmp (first, top[i].name) == 0)
          return top[i].flag;
      return -1;
    }
  if (strcmp (first, "user") != 0)
    return -1;
  for (guint i = 0; i < G_N_ELEMENTS (user); i++)
    if (strcmp (second, user[i].name) == 0)
      return user[i].flag;
  return -1;
}

/* Warns (file, line, field) of a leaf that names an attribute, a path or
 * a review field no item or review of the benchmark has: `anot-run
 * validate` prints it, and refuses the benchmark with --strict. */
static void
check_references (Loader        *loader,
                  AnotCondition *condition,
                  const char    *path)
{
  AnotDataset *ds = loader->ds;
  JsonObject *evidence = anot_condition_get_evidence (condition);
  const char *kind;
  JsonNode *node;

  if (evidence == NULL)
    return;
  kind = json_object_get_string_member_with_default (evidence, "kind", "");
  node = json_object_get_member (evidence, "path");
  if (strcmp (kind, "item_meta") == 0 && node != NULL && JSON_NODE_HOLDS_ARRAY (node) &&
      !some_item_has_path (loader, json_node_get_array (node)))
    {
      g_autofree char *text = json_to_string (node, FALSE);

      _anot_dataset_add_warning (ds, "requests.jsonl:%u: field “%s.evidence.path”: no item has %s, "
                                 "so the condition reads a missing value on every item",
                                 loader->line_no, path, text);
    }
  if (g_str_has_prefix (kind, "review_group_rating"))
    {
      JsonNode *filter = json_object_get_member (evidence, "group_filter");
      JsonNode *field = filter != NULL && JSON_NODE_HOLDS_OBJECT (filter)
                        ? json_object_get_member (json_node_get_object (filter), "field") : NULL;
      int flag;

      if (field == NULL)
        return;
      flag = review_field_flag (field);
      if (flag < 0 || (flag > 0 && (loader->review_fields & (guint) flag) == 0))
        {
          g_autofree char *text = json_to_string (field, FALSE);

          _anot_dataset_add_warning (ds, "requests.jsonl:%u: field “%s.evidence.group_filter.field”: "
                                     "no review has %s, so the condition selects no review",
                                     loader->line_no, path, text);
        }
    }
}

/* What the grammar allows but the format forbids: an aspect label used
 * twice in one request (results and traces identify leaves by it), and a
 * social anchor nobody in the friend graph has heard of (every social
 * test of it is false, so the gold can only come out as no_match). */
static gboolean
check_structure (Loader         *loader,
                 AnotCondition  *condition,
                 GString        *path,
                 GHashTable     *aspects,
                 GError        **error)
{
  JsonObject *evidence;
  JsonNode *filter, *friends;
  const char *aspect, *other;

  if (anot_condition_get_op (condition) != ANOT_CONDITION_OP_LEAF)
    {
      gsize len = path->len;

      for (guint i = 0; i < anot_condition_get_n_children (condition); i++)
        {
          g_string_append_printf (path, ".args[%u]", i);
          if (!check_structure (loader, anot_condition_get_child (condition, i), path, aspects, error))
            return FALSE;
          g_string_truncate (path, len);
        }
      return TRUE;
    }

  aspect = anot_condition_get_aspect (condition);
  other = g_hash_table_lookup (aspects, aspect);
  if (other != NULL)
    {
      g_set_error (error, ANOT_ERROR, ANOT_ERROR_DUPLICATE_ID,
                   "field “%s.aspect”: duplicate aspect “%s” (also at %s); "
                   "aspects must be unique within a request",
                   path->str, aspect, other);
      return FALSE;
    }
  g_hash_table_insert (aspects, (gpointer) aspect, g_strdup (path->str));
  check_references (loader, condition, path->str);

  evidence = anot_condition_get_evidence (condition);
  filter = evidence != NULL ? json_object_get_member (evidence, "social_filter") : NULL;
  if (filter == NULL || !JSON_NODE_HOLDS_OBJECT (filter))
    return TRUE;
  friends = json_object_get_member (json_node_get_object (filter), "friends");
  if (friends == NULL || !JSON_NODE_HOLDS_ARRAY (friends))
    return TRUE;
  for (guint i = 0; i < json_array_get_length (json_node_get_array (friends)); i++)
    {
      const char *name = json_array_get_string_element (json_node_get_array (friends), i);

      if (!graph_has_name (loader, name))
        {
          g_set_error (error, ANOT_ERROR, ANOT_ERROR_UNKNOWN_REFERENCE,
                       "field “%s.evidence.social_filter.friends[%u]”: “%s” is not in the friend "
                       "graph (user_mapping.json “friend_graph”)",
                       path->str, i, name);
          return FALSE;
        }
    }
  return TRUE;
}

/* ------------------------------------------------------------------------ *
 * requests.jsonl
 * ------------------------------------------------------------------------ */

static gboolean
handle_request (Loader            *loader,
                AnotJsonDocument  *doc,
                GError           **error)
{
  AnotDataset *ds = loader->ds;
  g_autoptr(AnotCondition) structure = NULL;
  g_autoptr(JsonNode) node = NULL;
  g_autofree char *id = NULL, *group = NULL, *scenario = NULL, *text = NULL;
  g_autofree char *shorthand = NULL, *gold_id = NULL;
  AnotRequest *request;
  AnotItem *gold;
  int id_value, group_value, scenario_value, text_value, shorthand_value, gold_value, structure_value;
  const char *gold_display;

  if (!_anot_loader_read_id (doc, _anot_loader_member (doc, 0, "id"), "id", &id_value, error) ||
      !_anot_loader_read_string (doc, _anot_loader_member (doc, 0, "group"), "group", TRUE, &group_value, error) ||
      !_anot_loader_read_string (doc, _anot_loader_member (doc, 0, "text"), "text", TRUE, &text_value, error))
    return FALSE;

  structure_value = _anot_loader_member (doc, 0, "structure");
  if (structure_value < 0)
    return _anot_loader_field_missing ("structure", error);

  if (!read_gold (doc, &gold_value, &gold_display, error) ||
      !_anot_loader_read_string (doc, _anot_loader_member (doc, 0, "scenario"), "scenario", FALSE, &scenario_value, error) ||
      !_anot_loader_read_string (doc, _anot_loader_member (doc, 0, "shorthand"), "shorthand", FALSE, &shorthand_value, error))
    return FALSE;

  id = anot_json_document_dup_string (doc, id_value);
  group = anot_json_document_dup_string (doc, group_value);
  text = anot_json_document_dup_string (doc, text_value);
  gold_id = anot_json_document_dup_string (doc, gold_value);
  scenario = anot_json_document_dup_string (doc, scenario_value);
  shorthand = anot_json_document_dup_string (doc, shorthand_value);

  /* The condition keeps the structure as a tree (a small one): sealed, it
   * is shared instead of copied. */
  node = anot_json_document_dup_node (doc, structure_value);
  json_node_seal (node);
  structure = _anot_condition_new_from_json_at (node, "structure", error);
  if (structure == NULL)
    return FALSE;
  {
    g_autoptr(GString) path = g_string_new ("structure");
    g_autoptr(GHashTable) aspects = g_hash_table_new_full (g_str_hash, g_str_equal, NULL, g_free);

    if (!check_structure (loader, structure, path, aspects, error))
      return FALSE;
  }

  gold = g_hash_table_lookup (ds->items_by_id, gold_id);
  if (gold == NULL)
    {
      g_set_error (error, ANOT_ERROR, ANOT_ERROR_UNKNOWN_REFERENCE,
                   "field “%s”: unknown item “%s”", gold_display, gold_id);
      return FALSE;
    }

  if (g_hash_table_contains (ds->requests_by_id, id))
    {
      g_set_error (error, ANOT_ERROR, ANOT_ERROR_DUPLICATE_ID,
                   "field “id”: duplicate request id “%s”", id);
      return FALSE;
    }

  request = anot_request_new_internal (id, group, scenario, text, shorthand, structure,
                                       anot_item_get_id (gold), anot_item_get_index (gold));
  g_ptr_array_add (ds->requests, request);
  g_hash_table_insert (ds->requests_by_id, (gpointer) anot_request_get_id (request), request);

  return TRUE;
}

/* ------------------------------------------------------------------------ *
 * groundtruth.jsonl
 * ------------------------------------------------------------------------ */

static gboolean
handle_groundtruth (Loader            *loader,
                    AnotJsonDocument  *doc,
                    GError           **error)
{
  AnotDataset *ds = loader->ds;
  GHashTable *seen = loader->gt_seen;
  g_autofree char *request_id = NULL, *gold_id = NULL, *status_str = NULL;
  AnotRequest *request;
  AnotItem *gold;
  AnotGoldStatus status;
  gint64 gold_idx;
  gboolean present;
  int request_value, gold_value, status_value;
  const char *gold_display;

  if (!_anot_loader_read_string (doc, _anot_loader_member (doc, 0, "request_id"), "request_id", TRUE, &request_value, error) ||
      !read_gold (doc, &gold_value, &gold_display, error) ||
      !_anot_loader_read_int (doc, _anot_loader_member (doc, 0, "gold_idx"), "gold_idx", TRUE, &gold_idx, &present, error) ||
      !_anot_loader_read_string (doc, _anot_loader_member (doc, 0, "status"), "status", FALSE, &status_value, error))
    return FALSE;
  request_id = anot_json_document_dup_string (doc, request_value);
  gold_id = anot_json_document_dup_string (doc, gold_value);
  status_str = anot_json_document_dup_string (doc, status_value);

  request = g_hash_table_lookup (ds->requests_by_id, request_id);
  if (request == NULL)
    {
      g_set_error (error, ANOT_ERROR, ANOT_ERROR_UNKNOWN_REFERENCE,
                   "field “request_id”: unknown request “%s”", request_id);
      return FALSE;
    }

  if (g_hash_table_contains (seen, request))
    {
      g_set_error (error, ANOT_ERROR, ANOT_ERROR_DUPLICATE_ID,
                   "field “request_id”: duplicate line for request “%s”", request_id);
      return FALSE;
    }
  g_hash_table_add (seen, request);

  gold = g_hash_table_lookup (ds->items_by_id, gold_id);
  if (gold == NULL)
    {
      g_set_error (error, ANOT_ERROR, ANOT_ERROR_UNKNOWN_REFERENCE,
                   "field “%s”: unknown item “%s”", gold_display, gold_id);
      return FALSE;
    }

  if (strcmp (gold_id, anot_request_get_gold_item_id (request)) != 0)
    {
      g_set_error (error, ANOT_ERROR, ANOT_ERROR_INVALID_FIELD,
                   "field “%s”: “%s” disagrees with requests.jsonl, "
                   "which has “%s” for request “%s”",
                   gold_display, gold_id, anot_request_get_gold_item_id (request), request_id);
      return FALSE;
    }

  if (gold_idx != anot_item_get_index (gold))
    {
      g_set_error (error, ANOT_ERROR, ANOT_ERROR_INVALID_FIELD,
                   "field “gold_idx”: %" G_GINT64_FORMAT " is not the index of item “%s” (%u)",
                   gold_idx, gold_id, anot_item_get_index (gold));
      return FALSE;
    }

  if (status_str != NULL)
    {
      if (!_anot_gold_status_from_string (status_str, &status))
        {
          g_set_error (error, ANOT_ERROR, ANOT_ERROR_INVALID_FIELD,
                       "field “status”: unknown status “%s”", status_str);
          return FALSE;
        }
      _anot_request_set_gold_status (request, status);
    }

  return TRUE;
}

static gboolean
load_groundtruth (Loader  *loader,
                  GError **error)
{
  AnotDataset *ds = loader->ds;
  g_autoptr(GHashTable) seen = g_hash_table_new (NULL, NULL);
  gboolean found, ok;

  loader->gt_seen = seen;
  ok = _anot_loader_load_jsonl (loader, "groundtruth.jsonl", TRUE, &found, handle_groundtruth, error);
  loader->gt_seen = NULL;

  if (!ok || !found)
    return ok;

  for (guint i = 0; i < ds->requests->len; i++)
    {
      AnotRequest *request = g_ptr_array_index (ds->requests, i);

      if (!g_hash_table_contains (seen, request))
        {
          g_set_error (error, ANOT_ERROR, ANOT_ERROR_MISSING_FIELD,
                       "groundtruth.jsonl: no line for request “%s”",
                       anot_request_get_id (request));
          return FALSE;
        }
    }

  return TRUE;
}

/* ------------------------------------------------------------------------ *
 * judgement_cache.json
 * ------------------------------------------------------------------------ */

static AnotJudgement
parse_judgement (AnotJsonDocument *doc,
                 int               value)
{
  static const struct {
    const char    *word;
    AnotJudgement  judgement;
  } words[] = {
    { "positive", ANOT_JUDGEMENT_POSITIVE },
    { "pos", ANOT_JUDGEMENT_POSITIVE },
    { "true", ANOT_JUDGEMENT_POSITIVE },
    { "yes", ANOT_JUDGEMENT_POSITIVE },
    { "negative", ANOT_JUDGEMENT_NEGATIVE },
    { "neg", ANOT_JUDGEMENT_NEGATIVE },
    { "false", ANOT_JUDGEMENT_NEGATIVE },
    { "no", ANOT_JUDGEMENT_NEGATIVE },
    { "neutral", ANOT_JUDGEMENT_NEUTRAL },
    { "mixed", ANOT_JUDGEMENT_NEUTRAL },
  };

  switch (anot_json_document_get_kind (doc, value))
    {
    case ANOT_JSON_KIND_BOOLEAN:
      return anot_json_document_get_boolean (doc, value, FALSE) ? ANOT_JUDGEMENT_POSITIVE
                                                                 : ANOT_JUDGEMENT_NOT_MENTIONED;
    case ANOT_JSON_KIND_STRING:
      {
        /* Python's str.lower(): Unicode-aware, so "NÉGATIVE" stays unknown
         * either way, but ASCII case never matters. */
        g_autofree char *text = anot_json_document_dup_string (doc, value);
        g_autofree char *lower = g_utf8_strdown (text, -1);

        for (guint i = 0; i < G_N_ELEMENTS (words); i++)
          {
            if (strcmp (lower, words[i].word) == 0)
              return words[i].judgement;
          }
      }
      return ANOT_JUDGEMENT_NOT_MENTIONED;
    default:
      return ANOT_JUDGEMENT_NOT_MENTIONED;
    }
}

static gboolean
load_judgements (Loader  *loader,
                 GError **error)
{
  AnotDataset *ds = loader->ds;
  AnotJsonDocument *doc = loader->doc;
  g_autofree char *contents = NULL;
  GError *local_error = NULL;
  guint size;
  int key;

  if (!_anot_loader_load_json_document (loader, "judgement_cache.json", &contents, &local_error))
    {
      if (local_error == NULL)
        return TRUE;
      g_propagate_error (error, local_error);
      return FALSE;
    }

  size = anot_json_document_get_size (doc, 0);
  key = 1;
  for (guint i = 0; i < size; i++, key = _anot_json_document_get_next (doc, key + 1))
    {
      g_autofree char *name = anot_json_document_dup_string (doc, key);
      AnotJudgement judgement;

      if (anot_json_document_get_kind (doc, key + 1) != ANOT_JSON_KIND_OBJECT)
        {
          g_set_error (error, ANOT_ERROR, ANOT_ERROR_INVALID_FIELD,
                       "judgement_cache.json: field “%s”: expected an object", name);
          return FALSE;
        }

      /* Not-mentioned is also the answer for an absent key: keep only the
       * entries that say something; a repeated key's last entry decides. */
      judgement = parse_judgement (doc, _anot_loader_member (doc, key + 1, "judgement"));
      if (judgement != ANOT_JUDGEMENT_NOT_MENTIONED)
        g_hash_table_insert (ds->judgements, g_steal_pointer (&name), GINT_TO_POINTER (judgement));
      else
        g_hash_table_remove (ds->judgements, name);
    }

  return TRUE;
}

/* ------------------------------------------------------------------------ *
 * meta.json and the items' file name
 * ------------------------------------------------------------------------ */

/* The items are in `restaurants.jsonl` (the original framework's name) or
 * in `items.jsonl`; both at once would leave it to chance which one a
 * reader of the directory takes for the benchmark. */
static gboolean
choose_items_file (Loader  *loader,
                   GError **error)
{
  g_autoptr(GFile) restaurants = g_file_get_child (loader->dir, "restaurants.jsonl");
  g_autoptr(GFile) items = g_file_get_child (loader->dir, "items.jsonl");
  gboolean has_restaurants = g_file_query_exists (restaurants, loader->cancellable);
  gboolean has_items = g_file_query_exists (items, loader->cancellable);

  if (has_restaurants && has_items)
    {
      g_set_error (error, ANOT_ERROR, ANOT_ERROR_INVALID_FIELD,
                   "both items.jsonl and restaurants.jsonl are present: "
                   "keep the items in one of them");
      return FALSE;
    }
  if (has_items)
    {
      g_free (loader->ds->items_file);
      loader->ds->items_file = g_strdup ("items.jsonl");
    }
  /* Otherwise restaurants.jsonl, whose absence the reader reports. */
  return TRUE;
}

/* meta.json is free-form but for its `domain`.  It counts towards the
 * checksum only when it declares one, since only then does it change what
 * a method is shown: the original's meta.json (a description of how the
 * data was built) leaves philly_cafes' checksum as it always was. */
static gboolean
load_meta (Loader  *loader,
           GError **error)
{
  g_autoptr(GFile) file = g_file_get_child (loader->dir, "meta.json");
  g_autofree char *contents = NULL;
  g_autoptr(JsonNode) node = NULL;
  g_autoptr(AnotDomain) domain = NULL;
  GError *local_error = NULL;
  gsize length, offset = 0, bom;
  int value;

  if (!g_file_load_contents (file, loader->cancellable, &contents, &length, NULL, &local_error))
    {
      if (g_error_matches (local_error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND))
        {
          g_error_free (local_error);
          return TRUE;
        }
      return _anot_loader_read_failed ("meta.json", local_error, error);
    }

  bom = anot_utf8_bom_length (contents, length);
  if (!_anot_json_document_reparse (loader->doc, contents + bom, length - bom, &offset, &local_error))
    {
      _anot_loader_set_parse_error (error, "meta.json", 0, TRUE, contents + bom, offset, local_error);
      g_error_free (local_error);
      return FALSE;
    }
  if (anot_json_document_get_kind (loader->doc, 0) != ANOT_JSON_KIND_OBJECT)
    {
      g_set_error (error, ANOT_ERROR, ANOT_ERROR_PARSE, "meta.json: expected a JSON object");
      return FALSE;
    }

  value = _anot_loader_member (loader->doc, 0, "domain");
  if (value < 0 || anot_json_document_get_kind (loader->doc, value) == ANOT_JSON_KIND_NULL)
    return TRUE;

  node = anot_json_document_dup_node (loader->doc, value);
  domain = _anot_domain_new_from_node (node, &local_error);
  if (domain == NULL)
    {
      g_propagate_prefixed_error (error, local_error, "meta.json: ");
      return FALSE;
    }

  _anot_loader_hasher_push (&loader->hasher, g_bytes_new_take (g_steal_pointer (&contents), length));
  g_set_object (&loader->ds->domain, domain);
  return TRUE;
}

/* A domain without a glossary names the benchmark's own attributes in
 * prompts: the six most items have (ties: by name). */
static int
compare_counts (gconstpointer a,
                gconstpointer b,
                gpointer      user_data)
{
  GHashTable *counts = user_data;
  const char *x = *(const char * const *) a, *y = *(const char * const *) b;
  guint cx = GPOINTER_TO_UINT (g_hash_table_lookup (counts, x));
  guint cy = GPOINTER_TO_UINT (g_hash_table_lookup (counts, y));

  return cx != cy ? (cx > cy ? -1 : 1) : strcmp (x, y);
}

static void
find_common_attributes (AnotDataset *ds)
{
  g_autoptr(GHashTable) counts = g_hash_table_new (g_str_hash, g_str_equal);
  g_autoptr(GPtrArray) names = g_ptr_array_new ();
  GHashTableIter iter;
  gpointer key;

  if (anot_domain_is_default (ds->domain) || anot_domain_get_attribute_names (ds->domain)[0] != NULL)
    return;

  for (guint i = 0; i < ds->items->len; i++)
    {
      AnotItem *item = ds->items->pdata[i];

      for (guint a = 0; a < _anot_item_get_n_attribute_names (item); a++)
        {
          const char *name = _anot_item_get_attribute_name (item, a);

          g_hash_table_insert (counts, (gpointer) name,
                               GUINT_TO_POINTER (GPOINTER_TO_UINT (g_hash_table_lookup (counts, name)) + 1));
        }
    }
  g_hash_table_iter_init (&iter, counts);
  while (g_hash_table_iter_next (&iter, &key, NULL))
    g_ptr_array_add (names, key);
  g_ptr_array_sort_with_data (names, compare_counts, counts);
  g_ptr_array_set_size (names, MIN (names->len, 6));
  g_ptr_array_add (names, NULL);
  _anot_domain_set_common_attributes (ds->domain, (const char * const *) names->pdata);
}

/* ------------------------------------------------------------------------ *
 * Loading
 * ------------------------------------------------------------------------ */

/**
 * anot_dataset_load:
 * @path: (type filename): a benchmark directory
 * @cancellable: (nullable): a #GCancellable
 * @error: return location for a #GError
 *
 * Loads a benchmark directory (see #AnotDataset for the files).
 *
 * Bad input fails with an error in the %ANOT_ERROR domain whose message
 * names the file, the line and the field, e.g.
 * `reviews.jsonl:12: field “stars”: expected a number` (for the whole-file
 * documents `user_mapping.json` and `judgement_cache.json`, the key path
 * instead of the line).  The codes are %ANOT_ERROR_IO (missing directory or
 * required file, read error), %ANOT_ERROR_PARSE (invalid JSON, a line that
 * is not an object), %ANOT_ERROR_MISSING_FIELD, %ANOT_ERROR_INVALID_FIELD
 * (wrong type, unknown evidence kind or op, a groundtruth line that
 * disagrees with the requests), %ANOT_ERROR_DUPLICATE_ID and
 * %ANOT_ERROR_UNKNOWN_REFERENCE (a review of an unknown item, a gold that is
 * not an item).  Cancellation gives %G_IO_ERROR_CANCELLED.
 *
 * Returns: (transfer full): the dataset, or %NULL on error
 */
AnotDataset *
anot_dataset_load (const char    *path,
                   GCancellable  *cancellable,
                   GError       **error)
{
  g_autoptr(AnotDataset) self = NULL;
  g_autoptr(GFile) dir = NULL;
  g_autoptr(AnotJsonDocument) doc = NULL;
  g_autofree char *digest = NULL;
  Loader loader = { 0, };
  gint64 t0, t1, t2, t3;
  gboolean ok;

  g_return_val_if_fail (path != NULL, NULL);
  g_return_val_if_fail (cancellable == NULL || G_IS_CANCELLABLE (cancellable), NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  dir = g_file_new_for_path (path);
  switch (g_file_query_file_type (dir, G_FILE_QUERY_INFO_NONE, cancellable))
    {
    case G_FILE_TYPE_DIRECTORY:
      break;
    case G_FILE_TYPE_UNKNOWN:
      if (g_cancellable_set_error_if_cancelled (cancellable, error))
        return NULL;
      g_set_error (error, ANOT_ERROR, ANOT_ERROR_IO,
                   "%s: no such dataset directory", path);
      return NULL;
    default:
      g_set_error (error, ANOT_ERROR, ANOT_ERROR_IO,
                   "%s: not a directory", path);
      return NULL;
    }

  self = g_object_new (ANOT_TYPE_DATASET, NULL);
  self->path = g_file_get_path (dir);
  self->name = g_path_get_basename (self->path);

  doc = _anot_json_document_new_reusable ();

  loader.ds = self;
  loader.dir = dir;
  loader.cancellable = cancellable;
  loader.doc = doc;
  loader.spares = g_async_queue_new_full (g_free);
  _anot_loader_hasher_start (&loader.hasher);

  /* The order is part of the checksum's definition. */
  t0 = g_get_monotonic_time ();
  ok = choose_items_file (&loader, error) &&
       _anot_loader_load_items (&loader, self->items_file, error);
  t1 = g_get_monotonic_time ();
  ok = ok && _anot_loader_load_reviews (&loader, error);
  t2 = g_get_monotonic_time ();
  ok = (ok &&
        load_user_mapping (&loader, error) &&
        _anot_loader_load_jsonl (&loader, "requests.jsonl", FALSE, NULL, handle_request, error) &&
        load_groundtruth (&loader, error) &&
        load_judgements (&loader, error) &&
        load_meta (&loader, error));
  t3 = g_get_monotonic_time ();

  digest = _anot_loader_hasher_finish (&loader.hasher);
  g_clear_pointer (&loader.graph_names, g_hash_table_unref);
  g_clear_pointer (&loader.known_paths, g_hash_table_unref);
  /* Buffers still out (none once the hasher is done) free themselves. */
  g_async_queue_unref (loader.spares);
  if (!ok)
    return NULL;

  g_debug ("dataset %s: %u items in %.3f s, %u reviews in %.3f s, the rest in %.3f s, "
           "checksum after %.3f s more",
           self->name, self->items->len, (t1 - t0) / 1e6, self->n_reviews, (t2 - t1) / 1e6,
           (t3 - t2) / 1e6, (g_get_monotonic_time () - t3) / 1e6);

  self->checksum = g_steal_pointer (&digest);
  find_common_attributes (self);
  _anot_store_seal (self->store);

  return g_steal_pointer (&self);
}

static void
load_thread (GTask        *task,
             gpointer      source_object,
             gpointer      task_data,
             GCancellable *cancellable)
{
  GError *error = NULL;
  AnotDataset *self;

  self = anot_dataset_load (task_data, cancellable, &error);
  if (self == NULL)
    g_task_return_error (task, error);
  else
    g_task_return_pointer (task, self, g_object_unref);
}

/**
 * anot_dataset_load_async:
 * @path: (type filename): a benchmark directory
 * @cancellable: (nullable): a #GCancellable
 * @callback: (scope async): a callback to call when the dataset is loaded
 * @user_data: data for @callback
 *
 * Loads a benchmark directory in a worker thread; see anot_dataset_load().
 */
void
anot_dataset_load_async (const char          *path,
                         GCancellable        *cancellable,
                         GAsyncReadyCallback  callback,
                         gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;

  g_return_if_fail (path != NULL);
  g_return_if_fail (cancellable == NULL || G_IS_CANCELLABLE (cancellable));

  task = g_task_new (NULL, cancellable, callback, user_data);
  g_task_set_source_tag (task, anot_dataset_load_async);
  g_task_set_task_data (task, g_strdup (path), g_free);
  g_task_run_in_thread (task, load_thread);
}

/**
 * anot_dataset_load_finish:
 * @result: the #GAsyncResult given to the callback
 * @error: return location for a #GError
 *
 * Finishes anot_dataset_load_async().
 *
 * Returns: (transfer full): the dataset, or %NULL on error
 */
AnotDataset *
anot_dataset_load_finish (GAsyncResult  *result,
                          GError       **error)
{
  g_return_val_if_fail (g_task_is_valid (result, NULL), NULL);
  g_return_val_if_fail (g_async_result_is_tagged (result, anot_dataset_load_async), NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  return g_task_propagate_pointer (G_TASK (result), error);
}
