/* test-data-tools.c: the path language, the dict context and the
 * data-exploration tools (count, keys, union_keys, sample)
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <anot/anot.h>

#include "anot-test-data.h"
#include <string.h>

static GPtrArray *
first_items (AnotDataset *dataset,
             guint        n)
{
  GPtrArray *items = g_ptr_array_new_with_free_func (g_object_unref);

  for (guint i = 0; i < n && i < anot_dataset_get_n_items (dataset); i++)
    g_ptr_array_add (items, g_object_ref (anot_dataset_get_item (dataset, i)));
  return items;
}

static JsonNode *
parse_json (const char *text)
{
  g_autoptr(GError) error = NULL;
  JsonNode *node = json_from_string (text, &error);

  g_assert_no_error (error);
  return node;
}

static JsonNode *
run_tool (const char *name,
          JsonNode   *data,
          const char *path)
{
  g_autoptr(AnotDataTool) tool = anot_data_tool_new (name, data);

  g_assert_nonnull (tool);
  return anot_data_tool_invoke_path (tool, path);
}

static char *
run_tool_text (const char *name,
               JsonNode   *data,
               const char *path)
{
  g_autoptr(JsonNode) result = run_tool (name, data, path);

  return anot_tool_result_to_text (result);
}

static const char *
error_message (JsonNode *result)
{
  g_assert_true (anot_tool_result_is_error (result));
  return json_object_get_string_member (json_node_get_object (result), "error");
}

/* ------------------------------------------------------------------------ */

static void
test_path_canonical (void)
{
  const struct {
    const char *text;
    const char *canonical;
    guint n_segments;
    gboolean wildcard;
  } cases[] = {
    { "", "", 0, FALSE },
    { "$", "", 0, FALSE },
    { "$.", "", 0, FALSE },
    { ".", "", 0, FALSE },
    { "items", "items", 1, FALSE },
    { "$.items", "items", 1, FALSE },
    { ".items", "items", 1, FALSE },
    { "items[0]", "items[0]", 2, FALSE },
    { "items.0", "items[0]", 2, FALSE },
    { "items[*].attributes", "items[*].attributes", 3, TRUE },
    { "items.*.attributes", "items[*].attributes", 3, TRUE },
    { " items [ 3 ] . name ", "items[3].name", 3, FALSE },
    { "items[1][attributes][WiFi]", "items[1].attributes.WiFi", 4, FALSE },
    { "items[1][Good For Kids]", "items[1][\"Good For Kids\"]", 3, FALSE },
    { "items[1][\"Good For Kids\"]", "items[1][\"Good For Kids\"]", 3, FALSE },
    { "items[1].'Good For Kids'", "items[1][\"Good For Kids\"]", 3, FALSE },
    { "items['1']", "items[\"1\"]", 2, FALSE },
    { "a[\"x\\\"y\"]", "a[\"x\\\"y\"]", 2, FALSE },
    { "a[\"dot.key\"]", "a[\"dot.key\"]", 2, FALSE },
    { "reviews[-1].text", "reviews[-1].text", 3, FALSE },
    { "a[\"*\"]", "a[\"*\"]", 2, FALSE },
    /* Found by fuzz-data-path: a quoted "-1" is a key, never an index. */
    { "items['-1'].x", "items[\"-1\"].x", 3, FALSE },
    { "a.b-c", "a.b-c", 2, FALSE },
    { "[*]", "[*]", 1, TRUE },
    { "caf\xc3\xa9.men\xc3\xba", "caf\xc3\xa9.men\xc3\xba", 2, FALSE },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(AnotDataPath) path = anot_data_path_parse (cases[i].text, &error);
      g_autoptr(AnotDataPath) again = NULL;
      g_autofree char *canonical = NULL;
      g_autofree char *canonical_again = NULL;

      g_test_message ("path %s", cases[i].text);
      g_assert_no_error (error);
      canonical = anot_data_path_to_string (path);
      g_assert_cmpstr (canonical, ==, cases[i].canonical);
      g_assert_cmpuint (anot_data_path_get_n_segments (path), ==, cases[i].n_segments);
      g_assert_cmpint (anot_data_path_has_wildcard (path), ==, cases[i].wildcard);
      g_assert_cmpstr (anot_data_path_get_text (path), ==, cases[i].text);

      /* The canonical form reads back to itself. */
      again = anot_data_path_parse (canonical, &error);
      g_assert_no_error (error);
      canonical_again = anot_data_path_to_string (again);
      g_assert_cmpstr (canonical_again, ==, canonical);
    }
}

static void
test_path_syntax_errors (void)
{
  const struct {
    const char *text;
    const char *column;   /* "column N" in the message */
    const char *fragment; /* another part of the message */
  } cases[] = {
    { "items[", "column 6", "unclosed" },
    { "items[0", "column 6", "unclosed" },
    { "items[]", "column 6", "empty brackets" },
    { "items[\"abc", "column 7", "unterminated quoted key" },
    { "items..name", "column 7", "expected a key" },
    { "items.", "column 7", "expected a key" },
    { "items]", "column 6", "without" },
    { "items[0]x", "column 9", "unexpected" },
    { "items[1].Good For Kids", "column 15", "quote keys that contain spaces" },
    { "caf\xc3\xa9[", "column 5", "unclosed" },
    { "items[\"a\" b]", "column 11", "expected “]”" },
    /* Found by fuzz-data-path: the whole character, never half of it. */
    { "items[\"a\" \xc3\xa9]", "column 11", "found “\xc3\xa9”" },
    { "items..\xc3\xa9", "column 7", "expected a key" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(AnotDataPath) path = anot_data_path_parse (cases[i].text, &error);

      g_test_message ("path %s: %s", cases[i].text, error ? error->message : "(parsed)");
      g_assert_null (path);
      g_assert_error (error, ANOT_ERROR, ANOT_ERROR_PARSE);
      g_assert_true (g_utf8_validate (error->message, -1, NULL));
      g_assert_nonnull (strstr (error->message, cases[i].column));
      g_assert_nonnull (strstr (error->message, cases[i].fragment));
    }

  {
    g_autoptr(GError) error = NULL;
    g_autoptr(AnotDataPath) path = anot_data_path_parse ("items\xff", &error);

    g_assert_null (path);
    g_assert_error (error, ANOT_ERROR, ANOT_ERROR_PARSE);
    g_assert_nonnull (strstr (error->message, "byte 5"));
  }
}

static const char *small_doc =
  "{\"items\": {\"1\": {\"name\": \"A\", \"tags\": [\"x\", \"y\", \"z\"],"
  "                   \"attrs\": {\"Good For Kids\": true, \"WiFi\": \"free\"}},"
  "             \"2\": {\"name\": \"B\", \"tags\": [],"
  "                   \"attrs\": {\"WiFi\": \"no\", \"DriveThru\": false}},"
  "             \"3\": {\"name\": \"C\"}},"
  " \"list\": [10, 20, 30],"
  " \"empty\": {}}";

static void
test_path_resolve (void)
{
  g_autoptr(JsonNode) doc = parse_json (small_doc);
  const struct {
    const char *path;
    const char *values;  /* compact JSON of the matches, as an array */
    const char *paths;   /* canonical paths, comma-separated */
  } cases[] = {
    { "", NULL, "" },
    { "list[0]", "[10]", "list[0]" },
    { "list[-1]", "[30]", "list[2]" },
    { "list.1", "[20]", "list[1]" },
    { "items[1].name", "[\"A\"]", "items[1].name" },
    { "items.2.attrs.WiFi", "[\"no\"]", "items[2].attrs.WiFi" },
    { "items[1].attrs[\"Good For Kids\"]", "[true]", "items[1].attrs[\"Good For Kids\"]" },
    { "items[*].name", "[\"A\",\"B\",\"C\"]", "items[1].name,items[2].name,items[3].name" },
    /* Below a wildcard, items without the key are skipped. */
    { "items[*].attrs.WiFi", "[\"free\",\"no\"]", "items[1].attrs.WiFi,items[2].attrs.WiFi" },
    { "items[*].tags[*]", "[\"x\",\"y\",\"z\"]", "items[1].tags[0],items[1].tags[1],items[1].tags[2]" },
    { "list[*]", "[10,20,30]", "list[0],list[1],list[2]" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(AnotDataPath) path = anot_data_path_parse (cases[i].path, &error);
      g_autoptr(GPtrArray) matches = NULL;
      g_auto(GStrv) paths = NULL;
      g_autofree char *joined = NULL;

      g_test_message ("resolve %s", cases[i].path);
      g_assert_no_error (error);
      matches = anot_data_path_resolve (path, doc, &paths, &error);
      g_assert_no_error (error);
      g_assert_cmpuint (matches->len, ==, g_strv_length (paths));

      if (cases[i].values != NULL)
        {
          JsonArray *array = json_array_new ();
          g_autoptr(JsonNode) node = json_node_init_array (json_node_alloc (), array);
          g_autofree char *text = NULL;

          for (guint m = 0; m < matches->len; m++)
            json_array_add_element (array, json_node_copy (g_ptr_array_index (matches, m)));
          json_array_unref (array);
          text = json_to_string (node, FALSE);
          g_assert_cmpstr (text, ==, cases[i].values);
        }
      else
        {
          g_assert_cmpuint (matches->len, ==, 1);
          g_assert_true (g_ptr_array_index (matches, 0) == doc);
        }

      joined = g_strjoinv (",", paths);
      g_assert_cmpstr (joined, ==, cases[i].paths);
    }
}

static void
test_path_resolve_errors (void)
{
  g_autoptr(JsonNode) doc = parse_json (small_doc);
  const struct {
    const char *path;
    gint code;
    const char *fragment;
  } cases[] = {
    { "items[0]", ANOT_ERROR_UNKNOWN_REFERENCE, "items has no key “0” (keys: \"1\", \"2\", \"3\")" },
    { "nothing", ANOT_ERROR_UNKNOWN_REFERENCE, "the root has no key “nothing”" },
    { "list[3]", ANOT_ERROR_UNKNOWN_REFERENCE, "index 3 is out of range: list has 3 elements ([0]..[2])" },
    { "list[-4]", ANOT_ERROR_UNKNOWN_REFERENCE, "out of range" },
    { "list.name", ANOT_ERROR_INVALID_ARGUMENT, "list is an array of 3, not an object" },
    { "list[\"0\"]", ANOT_ERROR_INVALID_ARGUMENT, "not an object" },
    { "items[1].name.first", ANOT_ERROR_INVALID_ARGUMENT, "items[1].name is a string, which has no key “first”" },
    { "items[2].tags[0]", ANOT_ERROR_UNKNOWN_REFERENCE, "items[2].tags is an empty array" },
    { "items[*].price", ANOT_ERROR_UNKNOWN_REFERENCE, "no value matches" },
    { "empty[*]", ANOT_ERROR_UNKNOWN_REFERENCE, "no value matches" },
    { "items[1].name[*]", ANOT_ERROR_INVALID_ARGUMENT, "* needs an object or an array" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(AnotDataPath) path = anot_data_path_parse (cases[i].path, &error);
      g_autoptr(GPtrArray) matches = NULL;

      g_assert_no_error (error);
      matches = anot_data_path_resolve (path, doc, NULL, &error);
      g_test_message ("resolve %s: %s", cases[i].path, error ? error->message : "(matched)");
      g_assert_null (matches);
      g_assert_error (error, ANOT_ERROR, cases[i].code);
      g_assert_nonnull (strstr (error->message, cases[i].fragment));
      /* The message names the path the model wrote. */
      g_assert_nonnull (strstr (error->message, cases[i].path));
    }
}

/* ------------------------------------------------------------------------ */

static void
test_dict_context_demo (void)
{
  g_autoptr(AnotDataset) dataset = anot_test_load_demo ();
  g_autoptr(GPtrArray) items = first_items (dataset, 10);
  g_autoptr(JsonNode) context = anot_data_context_new (items);
  JsonObject *by_key;

  g_assert_true (JSON_NODE_HOLDS_OBJECT (context));
  g_assert_cmpuint (json_object_get_size (json_node_get_object (context)), ==, 1);
  by_key = json_object_get_object_member (json_node_get_object (context), "items");
  g_assert_cmpuint (json_object_get_size (by_key), ==, 10);

  for (guint i = 0; i < items->len; i++)
    {
      AnotItem *item = g_ptr_array_index (items, i);
      g_autofree char *key = g_strdup_printf ("%u", i + 1);
      JsonObject *record = json_object_get_object_member (by_key, key);
      JsonObject *source = anot_item_get_record (item);
      JsonArray *categories, *reviews;
      const char * const *expected_categories = anot_item_get_categories (item);

      g_assert_nonnull (record);
      g_assert_cmpint (json_object_get_int_member (record, "index"), ==, i + 1);
      g_assert_cmpstr (json_object_get_string_member (record, "name"), ==, anot_item_get_name (item));
      g_assert_false (json_object_has_member (record, "llm_score"));
      g_assert_false (json_object_has_member (record, "llm_reasoning"));

      /* Every other field of the file is there. */
      {
        g_autoptr(GList) members = json_object_get_members (source);

        for (GList *l = members; l != NULL; l = l->next)
          if (strcmp (l->data, "llm_score") != 0 && strcmp (l->data, "llm_reasoning") != 0)
            g_assert_true (json_object_has_member (record, l->data));
      }

      categories = json_object_get_array_member (record, "categories");
      g_assert_cmpuint (json_array_get_length (categories), ==, g_strv_length ((GStrv) expected_categories));
      for (guint c = 0; expected_categories[c] != NULL; c++)
        g_assert_cmpstr (json_array_get_string_element (categories, c), ==, expected_categories[c]);

      reviews = json_object_get_array_member (record, "reviews");
      g_assert_cmpuint (json_array_get_length (reviews), ==, anot_item_get_n_reviews (item));
      for (guint r = 0; r < anot_item_get_n_reviews (item); r++)
        g_assert_cmpstr (json_object_get_string_member (json_array_get_object_element (reviews, r), "text"),
                         ==, anot_review_get_text (anot_item_get_review (item, r)));

      /* Attribute strings are parsed the way the original's loader did. */
      {
        JsonObject *attributes = json_object_get_object_member (record, "attributes");
        g_autoptr(GList) names = json_object_get_members (attributes);

        for (GList *l = names; l != NULL; l = l->next)
          {
            const char *raw = anot_item_get_attribute (item, l->data);
            JsonNode *value = json_object_get_member (attributes, l->data);

            if (raw == NULL)
              continue;
            if (strcmp (raw, "True") == 0 || strcmp (raw, "False") == 0)
              {
                g_assert_true (JSON_NODE_HOLDS_VALUE (value));
                g_assert_cmpint (json_node_get_boolean (value), ==, strcmp (raw, "True") == 0);
              }
            else if (strcmp (raw, "None") == 0)
              g_assert_true (JSON_NODE_HOLDS_NULL (value));
            else if (g_str_has_prefix (raw, "u'"))
              {
                g_autofree char *inner = g_strndup (raw + 2, strlen (raw) - 3);

                g_assert_cmpstr (json_node_get_string (value), ==, inner);
              }
            else if (raw[0] == '{')
              g_assert_true (JSON_NODE_HOLDS_OBJECT (value));
          }
      }
    }
}

/* The reviews and attributes of an item are shared by the contexts alive
 * at once (a run's requests in flight), sealed so none can change the
 * others', and the table that shares them is bounded: after 256 other
 * items an item's reviews are built anew, and the older context still
 * reads its own. */
static void
test_dict_context_shared (void)
{
  g_autoptr(AnotDataset) dataset = anot_test_load_demo ();
  g_autoptr(GPtrArray) items = first_items (dataset, 2);
  g_autoptr(JsonNode) first = anot_data_context_new (items);
  g_autoptr(JsonNode) second = anot_data_context_new (items);
  g_autoptr(JsonNode) later = NULL;
  g_autofree char *first_text = NULL;
  g_autofree char *later_text = NULL;
  JsonObject *a, *b, *c;
  JsonArray *reviews;
  AnotItem *item = g_ptr_array_index (items, 0);

  a = json_object_get_object_member (json_object_get_object_member (json_node_get_object (first), "items"), "1");
  b = json_object_get_object_member (json_object_get_object_member (json_node_get_object (second), "items"), "1");
  g_assert_true (a != b);
  reviews = json_object_get_array_member (a, "reviews");
  g_assert_true (reviews == json_object_get_array_member (b, "reviews"));
  g_assert_true (json_object_get_object_member (a, "attributes") ==
                 json_object_get_object_member (b, "attributes"));
  g_assert_cmpuint (json_array_get_length (reviews), >, 0);
  g_assert_true (json_node_is_immutable (json_array_get_element (reviews, 0)));
  g_assert_true (json_object_is_immutable (json_object_get_object_member (a, "attributes")));
  /* Every member but index is the same node, sealed... */
  {
    JsonObjectIter iter;
    const char *name;
    JsonNode *member;
    guint n_members = 0;

    json_object_iter_init_ordered (&iter, a);
    while (json_object_iter_next_ordered (&iter, &name, &member))
      {
        n_members++;
        if (strcmp (name, "index") == 0)
          continue;
        g_assert_true (member == json_object_get_member (b, name));
        g_assert_true (json_node_is_immutable (member));
      }
    g_assert_cmpuint (n_members, >, 5);
    g_assert_cmpuint (n_members, ==, json_object_get_size (b));
  }
  /* ...but the item objects themselves are each context's. */
  g_assert_false (json_object_is_immutable (a));
  /* One member is read without building a record: the same shared node. */
  {
    g_autoptr(JsonNode) attributes = anot_data_context_dup_item_member (item, "attributes");
    g_autoptr(JsonNode) index = anot_data_context_dup_item_member (item, "index");
    g_autoptr(JsonNode) missing = anot_data_context_dup_item_member (item, "no such member");

    g_assert_true (attributes == json_object_get_member (a, "attributes"));
    g_assert_null (index);
    g_assert_null (missing);
  }

  /* 256 other items later, the item's reviews are no longer shared. */
  for (guint i = 0; i < 256; i++)
    {
      g_autoptr(GPtrArray) one = g_ptr_array_new_with_free_func (g_object_unref);
      g_autoptr(JsonNode) other = NULL;

      g_ptr_array_add (one, anot_item_copy_with_reviews (item, anot_item_get_reviews (item)));
      other = anot_data_context_new (one);
    }
  later = anot_data_context_new (items);
  c = json_object_get_object_member (json_object_get_object_member (json_node_get_object (later), "items"), "1");
  g_assert_true (json_object_get_array_member (c, "reviews") != reviews);

  /* Shared or not, a context is the same document. */
  first_text = json_to_string (first, FALSE);
  later_text = json_to_string (later, FALSE);
  g_assert_cmpstr (first_text, ==, later_text);
}

static void
test_value_to_text (void)
{
  const struct {
    const char *json;
    const char *text;
  } cases[] = {
    { "\"plain\"", "plain" },
    { "true", "True" },
    { "false", "False" },
    { "null", "None" },
    { "4", "4" },
    { "4.5", "4.5" },
    { "4.0", "4.0" },
    { "39.9699745", "39.9699745" },
    { "0.1", "0.1" },
    { "{\"a\": [1, \"b\"]}", "{\"a\":[1,\"b\"]}" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(JsonNode) node = parse_json (cases[i].json);
      g_autofree char *text = anot_json_value_to_text (node);

      g_assert_cmpstr (text, ==, cases[i].text);
    }
  {
    g_autofree char *text = anot_json_value_to_text (NULL);

    g_assert_cmpstr (text, ==, "None");
  }
}

/* ------------------------------------------------------------------------ */

/* Sorted union of attribute names, computed from the items, not the tools. */
static char *
expected_union_keys (GPtrArray *items)
{
  g_autoptr(GHashTable) seen = g_hash_table_new (g_str_hash, g_str_equal);
  g_autoptr(GList) keys = NULL;
  g_autoptr(JsonBuilder) builder = json_builder_new ();
  g_autoptr(JsonNode) root = NULL;

  for (guint i = 0; i < items->len; i++)
    {
      JsonObject *attributes = anot_item_get_attributes (g_ptr_array_index (items, i));
      g_autoptr(GList) members = attributes ? json_object_get_members (attributes) : NULL;

      for (GList *l = members; l != NULL; l = l->next)
        g_hash_table_add (seen, l->data);
    }
  keys = g_list_sort (g_hash_table_get_keys (seen), (GCompareFunc) strcmp);
  json_builder_begin_array (builder);
  for (GList *l = keys; l != NULL; l = l->next)
    json_builder_add_string_value (builder, l->data);
  json_builder_end_array (builder);
  root = json_builder_get_root (builder);
  return json_to_string (root, FALSE);
}

static void
check_tools_on (AnotDataset *dataset,
                guint        n)
{
  g_autoptr(GPtrArray) items = first_items (dataset, n);
  g_autoptr(JsonNode) context = anot_data_context_new (items);
  g_autofree char *count = run_tool_text ("count", context, "items");
  g_autofree char *expected_count = g_strdup_printf ("%u", items->len);
  g_autofree char *union_keys = run_tool_text ("union_keys", context, "items[*].attributes");
  g_autofree char *expected_union = expected_union_keys (items);
  AnotItem *first = g_ptr_array_index (items, 0);

  g_assert_cmpstr (count, ==, expected_count);
  g_assert_cmpstr (union_keys, ==, expected_union);

  /* keys of an item: sorted, the record's fields plus reviews and index. */
  {
    g_autoptr(JsonNode) keys = run_tool ("keys", context, "items[1]");
    JsonArray *array = json_node_get_array (keys);
    guint n_fields = json_object_get_size (anot_item_get_record (first));

    g_assert_cmpuint (json_array_get_length (array), ==, n_fields + 2);
    for (guint i = 1; i < json_array_get_length (array); i++)
      g_assert_cmpint (strcmp (json_array_get_string_element (array, i - 1),
                               json_array_get_string_element (array, i)), <, 0);
  }

  /* Counts of every item's reviews, keyed by path. */
  {
    g_autoptr(JsonNode) counts = run_tool ("count", context, "items[*].reviews");
    JsonObject *object = json_node_get_object (counts);

    g_assert_cmpuint (json_object_get_size (object), ==, items->len);
    for (guint i = 0; i < items->len; i++)
      {
        g_autofree char *path = g_strdup_printf ("items[%u].reviews", i + 1);

        g_assert_cmpint (json_object_get_int_member (object, path), ==,
                         anot_item_get_n_reviews (g_ptr_array_index (items, i)));
      }
  }

  {
    g_autofree char *name = run_tool_text ("sample", context, "items[1].name");
    g_autofree char *expected = g_strdup_printf ("\"%s\"", anot_item_get_name (first));

    g_assert_cmpstr (name, ==, expected);
  }
}

static void
test_tools_demo (void)
{
  g_autoptr(AnotDataset) dataset = anot_test_load_demo ();

  check_tools_on (dataset, 10);
  check_tools_on (dataset, anot_dataset_get_n_items (dataset));
}

static void
test_tools_philly (void)
{
  g_autoptr(AnotDataset) dataset = anot_test_load_philly ();

  if (dataset == NULL)
    {
      g_test_skip ("philly_cafes benchmark not found (set ANOT_PHILLY_DATA)");
      return;
    }
  check_tools_on (dataset, 10);
  check_tools_on (dataset, anot_dataset_get_n_items (dataset));

  /* Milkcrate Cafe has a drive-thru: the tools see a boolean, not "True". */
  {
    g_autoptr(GPtrArray) items = first_items (dataset, anot_dataset_get_n_items (dataset));
    g_autoptr(JsonNode) context = anot_data_context_new (items);
    guint milkcrate = 0;

    for (guint i = 0; i < items->len; i++)
      if (g_strcmp0 (anot_item_get_name (g_ptr_array_index (items, i)), "Milkcrate Cafe") == 0)
        milkcrate = i + 1;
    g_assert_cmpuint (milkcrate, >, 0);

    {
      g_autofree char *path = g_strdup_printf ("items[%u].attributes.DriveThru", milkcrate);
      g_autofree char *drive_thru = run_tool_text ("sample", context, path);
      g_autofree char *ambience_path = g_strdup_printf ("items[%u].attributes.Ambience.hipster", milkcrate);
      g_autofree char *hipster = run_tool_text ("sample", context, ambience_path);

      g_assert_cmpstr (drive_thru, ==, "true");
      g_assert_cmpstr (hipster, ==, "true");
    }
  }
}

static void
test_truncation (void)
{
  g_autoptr(AnotDataset) dataset = anot_test_load_demo ();
  g_autoptr(GPtrArray) items = first_items (dataset, 3);
  g_autoptr(JsonNode) context = anot_data_context_new (items);
  g_autoptr(AnotDataTool) sample = anot_data_tool_new ("sample", context);
  AnotItem *first = g_ptr_array_index (items, 0);
  const char *text = anot_review_get_text (anot_item_get_review (first, 0));

  g_assert_cmpuint (anot_data_tool_get_max_value_length (sample), ==,
                    ANOT_DATA_TOOL_DEFAULT_MAX_VALUE_LENGTH);
  g_object_set (sample, "max-value-length", 20, NULL);
  g_assert_cmpuint (anot_data_tool_get_max_value_length (sample), ==, 20);
  g_assert_cmpuint (g_utf8_strlen (text, -1), >, 20);

  {
    g_autoptr(JsonNode) result = anot_data_tool_invoke_path (sample, "items[1].reviews[0].text");
    g_autofree char *expected = g_strdup_printf ("%.*s...", 20, text);

    g_assert_cmpstr (json_node_get_string (result), ==, expected);
  }

  /* A container longer than the limit is shown as cut JSON text. */
  {
    g_autoptr(JsonNode) result = anot_data_tool_invoke_path (sample, "items[1].attributes");
    g_autoptr(JsonNode) full = NULL;
    g_autofree char *full_text = NULL;
    g_autofree char *expected = NULL;
    g_autoptr(AnotDataTool) wide = anot_data_tool_new ("sample", context);

    anot_data_tool_set_max_value_length (wide, 100000);
    full = anot_data_tool_invoke_path (wide, "items[1].attributes");
    g_assert_true (JSON_NODE_HOLDS_OBJECT (full));
    full_text = json_to_string (full, FALSE);
    expected = g_strdup_printf ("%.*s...", 20, full_text);
    g_assert_true (JSON_NODE_HOLDS_VALUE (result));
    g_assert_cmpstr (json_node_get_string (result), ==, expected);
  }

  /* Short values are untouched; numbers are never cut. */
  {
    g_autoptr(JsonNode) stars = anot_data_tool_invoke_path (sample, "items[1].stars");

    g_assert_cmpfloat (json_node_get_double (stars), ==, anot_item_get_stars (first));
  }

  /* Wildcards show max-samples matches and say how many more there are. */
  {
    g_autoptr(JsonNode) result = NULL;
    JsonObject *object;

    anot_data_tool_set_max_samples (sample, 2);
    result = anot_data_tool_invoke_path (sample, "items[*].name");
    object = json_node_get_object (result);
    g_assert_cmpuint (json_object_get_size (object), ==, 3);
    g_assert_cmpstr (json_object_get_string_member (object, "items[1].name"), ==,
                     anot_item_get_name (first));
    g_assert_cmpstr (json_object_get_string_member (object, "items[2].name"), ==,
                     anot_item_get_name (g_ptr_array_index (items, 1)));
    g_assert_cmpstr (json_object_get_string_member (object, "..."), ==, "1 more matches");
  }

  /* UTF-8 is cut on character boundaries. */
  {
    g_autoptr(JsonNode) doc = parse_json ("{\"s\": \"\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\"}");
    g_autoptr(AnotDataTool) tool = anot_data_tool_new ("sample", doc);
    g_autoptr(JsonNode) result = NULL;

    anot_data_tool_set_max_value_length (tool, 3);
    result = anot_data_tool_invoke_path (tool, "s");
    g_assert_cmpstr (json_node_get_string (result), ==, "\xc3\xa9\xc3\xa9\xc3\xa9...");
  }
}

static void
test_tool_errors (void)
{
  g_autoptr(JsonNode) doc = parse_json (small_doc);
  const struct {
    const char *tool;
    const char *path;
    const char *fragment;
  } cases[] = {
    { "keys", "items[*]", "use union_keys(\"items[*]\")" },
    { "keys", "items[1].name", "items[1].name is a string, which has no keys" },
    { "keys", "items[0]", "has no key “0”" },
    { "union_keys", "items", "union_keys requires [*]" },
    { "union_keys", "list[*]", "not objects" },
    { "count", "items[1].name", "count() counts" },
    { "count", "items[*].name", "matches no object or array" },
    { "count", "items[", "column 6" },
    { "sample", "items[9]", "has no key “9”" },
    { "sample", "items[1].Good For Kids", "quote keys" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(JsonNode) result = run_tool (cases[i].tool, doc, cases[i].path);
      g_autofree char *text = anot_tool_result_to_text (result);

      g_test_message ("%s(%s) = %s", cases[i].tool, cases[i].path, text);
      g_assert_nonnull (strstr (error_message (result), cases[i].fragment));
      g_assert_true (g_str_has_prefix (text, "Error: "));
    }

  /* Results that happen to be objects are not errors. */
  {
    g_autoptr(JsonNode) not_error = parse_json ("{\"error\": \"x\", \"other\": 1}");
    g_autoptr(JsonNode) not_error2 = parse_json ("{\"error\": 3}");

    g_assert_false (anot_tool_result_is_error (not_error));
    g_assert_false (anot_tool_result_is_error (not_error2));
    g_assert_false (anot_tool_result_is_error (NULL));
  }
}

static void
test_tool_interface (void)
{
  g_autoptr(JsonNode) doc = parse_json (small_doc);
  AnotRegistry *registry = anot_registry_get_default ();
  g_auto(GStrv) names = anot_registry_list (registry, ANOT_TOOL_EXTENSION_POINT_NAME);
  g_auto(GStrv) builtin = anot_data_tool_list_builtin ();

  g_assert_cmpuint (g_strv_length (builtin), ==, 4);
  for (guint i = 0; builtin[i] != NULL; i++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(AnotTool) tool = anot_registry_create_tool (registry, builtin[i], &error);
      g_autoptr(JsonNode) schema = NULL;
      g_autoptr(JsonNode) bad = NULL;
      g_autoptr(JsonNode) args = NULL;
      g_autoptr(JsonNode) result = NULL;
      g_autoptr(JsonNode) bare = NULL;
      g_autoptr(JsonNode) from_string = NULL;
      g_autofree char *a = NULL;
      g_autofree char *b = NULL;
      JsonObject *properties;

      g_assert_true (g_strv_contains ((const char * const *) names, builtin[i]));
      g_assert_no_error (error);
      g_assert_true (ANOT_IS_DATA_TOOL (tool));
      g_assert_cmpstr (anot_tool_get_name (tool), ==, builtin[i]);
      g_assert_cmpstr (anot_registry_get_description (registry, ANOT_TOOL_EXTENSION_POINT_NAME,
                                                      builtin[i]),
                       ==, anot_tool_get_description (tool));

      schema = anot_tool_get_schema (tool);
      properties = json_object_get_object_member (json_node_get_object (schema), "properties");
      g_assert_cmpstr (json_object_get_string_member (json_object_get_object_member (properties, "path"),
                                                      "type"), ==, "string");

      /* Without data: the one case that is a GError. */
      args = parse_json ("{\"path\": \"items\"}");
      result = anot_tool_invoke (tool, args, &error);
      g_assert_error (error, ANOT_ERROR, ANOT_ERROR_INVALID_ARGUMENT);
      g_assert_null (result);
      g_clear_error (&error);

      anot_data_tool_set_data (ANOT_DATA_TOOL (tool), doc);
      g_assert_true (anot_data_tool_get_data (ANOT_DATA_TOOL (tool)) == doc);

      /* {"path": p} and the bare string "p" are the same call. */
      result = anot_tool_invoke (tool, args, &error);
      g_assert_no_error (error);
      bare = parse_json ("\"items[*].attrs\"");
      from_string = anot_tool_invoke (tool, bare, &error);
      g_assert_no_error (error);
      g_clear_pointer (&args, json_node_unref);
      args = parse_json ("{\"path\": \"items[*].attrs\"}");
      g_clear_pointer (&result, json_node_unref);
      result = anot_tool_invoke (tool, args, &error);
      g_assert_no_error (error);
      a = json_to_string (result, FALSE);
      b = json_to_string (from_string, FALSE);
      g_assert_cmpstr (a, ==, b);

      /* Arguments of the wrong shape are error results. */
      {
        const char *wrong[] = { "3", "null", "[\"items\"]", "{}", "{\"path\": 1}", "{\"p\": \"items\"}" };

        for (guint w = 0; w < G_N_ELEMENTS (wrong); w++)
          {
            g_autoptr(JsonNode) wrong_args = parse_json (wrong[w]);

            bad = anot_tool_invoke (tool, wrong_args, &error);
            g_assert_no_error (error);
            g_assert_nonnull (strstr (error_message (bad), "takes one argument"));
            g_clear_pointer (&bad, json_node_unref);
          }
      }
    }
}

static void
test_list_cli (void)
{
  const char *anot_run = g_getenv ("ANOT_RUN");
  const char *argv[] = { anot_run, "--list", NULL };
  g_autofree char *out = NULL;
  g_autoptr(GError) error = NULL;
  int status = 0;

  if (anot_run == NULL)
    {
      g_test_skip ("ANOT_RUN is not set");
      return;
    }

  g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_STDERR_TO_DEV_NULL, NULL, NULL,
                &out, NULL, &status, &error);
  g_assert_no_error (error);
  g_assert_true (g_spawn_check_wait_status (status, NULL));
  g_assert_nonnull (strstr (out, "Tools:"));
  g_assert_nonnull (strstr (out, "union_keys"));
  g_assert_nonnull (strstr (strstr (out, "Tools:"), "count "));
}

/* Random paths built from the language's characters, on every tool: a
 * result every time, never a crash. */
static void
test_tools_never_crash (void)
{
  static const char *pieces[] = {
    "items", "[", "]", ".", "*", "\"", "'", "\\", " ", "0", "1", "-1", "99999999999999999999",
    "attrs", "WiFi", "name", "tags", "list", "$", "Good For Kids", "\xc3\xa9", "[*]", "[1]",
    "\"1\"", "'x", "\n", "..", "][",
  };
  g_autoptr(JsonNode) doc = parse_json (small_doc);
  g_auto(GStrv) names = anot_data_tool_list_builtin ();
  g_autoptr(GRand) rand = g_rand_new_with_seed (20260102);
  guint n_errors = 0, n_values = 0;

  for (guint round = 0; round < 20000; round++)
    {
      g_autoptr(GString) path = g_string_new (NULL);
      guint length = g_rand_int_range (rand, 0, 9);
      g_autoptr(JsonNode) result = NULL;
      g_autoptr(AnotDataTool) tool = NULL;

      for (guint i = 0; i < length; i++)
        g_string_append (path, pieces[g_rand_int_range (rand, 0, G_N_ELEMENTS (pieces))]);

      tool = anot_data_tool_new (names[round % 4], doc);
      anot_data_tool_set_max_value_length (tool, g_rand_int_range (rand, 1, 30));
      result = anot_data_tool_invoke_path (tool, path->str);
      g_assert_nonnull (result);
      if (anot_tool_result_is_error (result))
        n_errors++;
      else
        n_values++;
    }

  g_test_message ("%u error results, %u values", n_errors, n_values);
  /* Both outcomes occur, so the generator reaches past the parser. */
  g_assert_cmpuint (n_errors, >, 0);
  g_assert_cmpuint (n_values, >, 0);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);

  g_test_add_func ("/data-path/canonical", test_path_canonical);
  g_test_add_func ("/data-path/syntax-errors", test_path_syntax_errors);
  g_test_add_func ("/data-path/resolve", test_path_resolve);
  g_test_add_func ("/data-path/resolve-errors", test_path_resolve_errors);
  g_test_add_func ("/data-context/demo", test_dict_context_demo);
  g_test_add_func ("/data-context/shared", test_dict_context_shared);
  g_test_add_func ("/data-context/value-to-text", test_value_to_text);
  g_test_add_func ("/data-tools/demo", test_tools_demo);
  g_test_add_func ("/data-tools/philly", test_tools_philly);
  g_test_add_func ("/data-tools/truncation", test_truncation);
  g_test_add_func ("/data-tools/errors", test_tool_errors);
  g_test_add_func ("/data-tools/interface", test_tool_interface);
  g_test_add_func ("/data-tools/list-cli", test_list_cli);
  g_test_add_func ("/data-tools/never-crash", test_tools_never_crash);

  return g_test_run ();
}
