/* test-formatter.c: candidate formatting (AnotFormatter, anot_json_dumps)
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The byte-exact expectations on the philly benchmark come from
 * tests/tools/format-reference.py, an independent implementation of the
 * original's string context (methods.md §0.3, evidence.md §5 pass A) that
 * uses Python's own json.dumps:
 *
 *   python3 tests/tools/format-reference.py ../shared/data/philly_cafes 0
 *   python3 tests/tools/format-reference.py ../shared/data/philly_cafes 49 7 23
 */

#include <anot/anot.h>

#include "anot-test-data.h"
#include <string.h>


static GPtrArray *
pick (AnotDataset *ds,
      const guint *indices,
      guint        n)
{
  GPtrArray *items = g_ptr_array_new ();

  for (guint i = 0; i < n; i++)
    g_ptr_array_add (items, anot_dataset_get_item (ds, indices[i]));
  return items;
}

static GPtrArray *
all_items (AnotDataset *ds)
{
  GPtrArray *items = g_ptr_array_new ();

  for (guint i = 0; i < anot_dataset_get_n_items (ds); i++)
    g_ptr_array_add (items, anot_dataset_get_item (ds, i));
  return items;
}

static char *
sha256 (const char *text)
{
  return g_compute_checksum_for_string (G_CHECKSUM_SHA256, text, -1);
}

static JsonNode *
parse_json (const char *text)
{
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(GError) error = NULL;

  json_parser_load_from_data (parser, text, -1, &error);
  g_assert_no_error (error);
  return json_node_ref (json_parser_get_root (parser));
}

/* ------------------------------------------------------------------------ */

static void
test_dumps_scalars (void)
{
  struct { const char *json; const char *expected; } cases[] = {
    /* json.dumps(json.loads(x)) in CPython */
    { "4.0", "4.0" },
    { "4.5", "4.5" },
    { "0.1", "0.1" },
    { "1e-05", "1e-05" },
    { "0.0001", "0.0001" },
    { "1e16", "1e+16" },
    { "123456789012345678.0", "1.2345678901234568e+17" },
    { "-39.95", "-39.95" },
    { "17", "17" },
    { "-3", "-3" },
    { "true", "true" },
    { "null", "null" },
    { "\"caf\\u00e9\"", "\"caf\\u00e9\"" },
    { "\"\\ud83d\\ude00\"", "\"\\ud83d\\ude00\"" },
    { "\"a\\\"b\\\\c/d\"", "\"a\\\"b\\\\c/d\"" },
    { "\"\\n\\r\\t\\b\\f\\u0001\\u007f\"", "\"\\n\\r\\t\\b\\f\\u0001\\u007f\"" },
    { "[]", "[]" },
    { "{}", "{}" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(JsonNode) node = parse_json (cases[i].json);
      g_autofree char *text = anot_json_dumps (node, 2, TRUE);

      g_assert_cmpstr (text, ==, cases[i].expected);
    }
}

/* Strings are written a run at a time, the runs found sixteen and eight
 * bytes at a time: every string must come out as json.dumps() escapes it
 * byte by byte, with and without ensure_ascii, wherever its escapes fall
 * (random strings of 0-60 bytes of ASCII, quotes, backslashes, control
 * bytes, DEL and UTF-8 of two to four bytes). */
static void
test_dumps_string_runs (void)
{
  static const char *const pieces[] = {
    "\"", "\\", "\n", "\t", "\r", "\b", "\f", "\x01", "\x1f", "\x7f", "/",
    "\xc3\xa9", "\xe2\x80\x99", "\xf0\x9f\x98\x80",
  };
  g_autoptr(GRand) rand = g_rand_new_with_seed (36);

  for (guint n = 0; n < 20000; n++)
    {
      g_autoptr(GString) text = g_string_new (NULL);
      g_autoptr(GString) ascii = g_string_new ("\"");
      g_autoptr(GString) utf8 = g_string_new ("\"");
      g_autoptr(JsonNode) node = json_node_new (JSON_NODE_VALUE);
      g_autofree char *ascii_text = NULL, *utf8_text = NULL;
      guint length = g_rand_int_range (rand, 0, 61);

      while (text->len < length)
        g_string_append (text, g_rand_int_range (rand, 0, 4) != 0 ? "x"
                         : pieces[g_rand_int_range (rand, 0, G_N_ELEMENTS (pieces))]);
      for (const char *p = text->str; *p != '\0'; p = g_utf8_next_char (p))
        {
          gunichar c = g_utf8_get_char (p);
          const char *escape = NULL;

          switch (c)
            {
            case '"': escape = "\\\""; break;
            case '\\': escape = "\\\\"; break;
            case '\n': escape = "\\n"; break;
            case '\r': escape = "\\r"; break;
            case '\t': escape = "\\t"; break;
            case '\b': escape = "\\b"; break;
            case '\f': escape = "\\f"; break;
            }
          if (escape != NULL)
            {
              g_string_append (ascii, escape);
              g_string_append (utf8, escape);
              continue;
            }
          if (c < 0x20)
            g_string_append_printf (utf8, "\\u%04x", c);
          else
            g_string_append_len (utf8, p, g_utf8_next_char (p) - p);
          if (c < 0x20 || (c >= 0x7f && c < 0x10000))
            g_string_append_printf (ascii, "\\u%04x", c);
          else if (c >= 0x10000)
            g_string_append_printf (ascii, "\\u%04x\\u%04x", 0xd800 | ((c - 0x10000) >> 10),
                                    0xdc00 | ((c - 0x10000) & 0x3ff));
          else
            g_string_append_c (ascii, (char) c);
        }
      g_string_append_c (ascii, '"');
      g_string_append_c (utf8, '"');

      json_node_set_string (node, text->str);
      ascii_text = anot_json_dumps (node, -1, TRUE);
      utf8_text = anot_json_dumps (node, -1, FALSE);
      g_assert_cmpstr (ascii_text, ==, ascii->str);
      g_assert_cmpstr (utf8_text, ==, utf8->str);
    }
}

static void
test_dumps_layout (void)
{
  g_autoptr(JsonNode) node = parse_json ("{\"a\": [1, {\"b\": null}], \"c\": {}, \"d\": \"\\u00e9\"}");
  g_autofree char *indented = anot_json_dumps (node, 2, TRUE);
  g_autofree char *flat = anot_json_dumps (node, -1, TRUE);
  g_autofree char *utf8 = anot_json_dumps (node, -1, FALSE);
  g_autofree char *repr = anot_json_to_python_repr (node);

  g_assert_cmpstr (indented, ==,
                   "{\n  \"a\": [\n    1,\n    {\n      \"b\": null\n    }\n  ],\n"
                   "  \"c\": {},\n  \"d\": \"\\u00e9\"\n}");
  g_assert_cmpstr (flat, ==, "{\"a\": [1, {\"b\": null}], \"c\": {}, \"d\": \"\\u00e9\"}");
  g_assert_cmpstr (utf8, ==, "{\"a\": [1, {\"b\": null}], \"c\": {}, \"d\": \"é\"}");
  g_assert_cmpstr (repr, ==, "{'a': [1, {'b': None}], 'c': {}, 'd': 'é'}");
}

/* The validator's reading of a value: Yelp's two spellings of one string
 * come out as one. */
static void
test_validator_repr (void)
{
  static const struct { const char *json; const char *expected; } cases[] = {
    { "\"u'free'\"", "'free'" },
    { "\"'free'\"", "'free'" },
    { "\"free\"", "'free'" },
    { "\"u'very_loud'\"", "'very_loud'" },
    { "\"True\"", "True" },
    { "\"None\"", "None" },
    { "true", "True" },
    { "null", "None" },
    { "\"{'hipster': False}\"", "{'hipster': False}" },
    { "{\"hipster\": false}", "{'hipster': False}" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(JsonNode) node = parse_json (cases[i].json);
      g_autofree char *text = anot_json_to_validator_repr (node);

      g_assert_cmpstr (text, ==, cases[i].expected);
    }
}

/* ------------------------------------------------------------------------ */

static void
test_philly_byte_exact (void)
{
  AnotDataset *ds = anot_test_get_philly ();
  const guint one[] = { 0 };
  const guint three[] = { 49, 7, 23 };
  g_autoptr(AnotFormatter) f = anot_formatter_new ();
  g_autoptr(GPtrArray) c1 = NULL;
  g_autoptr(GPtrArray) c3 = NULL;
  g_autofree char *t1 = NULL;
  g_autofree char *t3 = NULL;
  g_autofree char *h1 = NULL;
  g_autofree char *h3 = NULL;
  g_autofree char *item2 = NULL;
  g_autofree char *h_item2 = NULL;
  g_autoptr(JsonNode) stats = NULL;
  JsonObject *s;

  if (ds == NULL)
    return;

  c1 = pick (ds, one, 1);
  t1 = anot_formatter_format (f, c1, NULL);
  h1 = sha256 (t1);
  g_assert_cmpuint (strlen (t1), ==, 36771);
  g_assert_cmpstr (h1, ==, "a4623b6edb30cc9aad16fe91e246f847e18be3283d1529ed47f0712d311a8a99");

  /* Volo Coffeehouse (no reviews), then two others: the separators between
   * items and the empty reviews list. */
  c3 = pick (ds, three, 3);
  t3 = anot_formatter_format (f, c3, &stats);
  h3 = sha256 (t3);
  g_assert_cmpuint (strlen (t3), ==, 117048);
  g_assert_cmpstr (h3, ==, "77aecae63febda16e02b301ccc86a86958a85d1295744523337d87791e1cdf1c");

  item2 = anot_formatter_format_item (f, g_ptr_array_index (c3, 1), 2);
  h_item2 = sha256 (item2);
  g_assert_cmpstr (h_item2, ==, "596edd73f79a1146f067ddcb4895b66075cafde3c8287c388a1206092ddd3cfb");

  s = json_node_get_object (stats);
  g_assert_cmpint (json_object_get_int_member (s, "restaurants"), ==, 3);
  g_assert_cmpint (json_object_get_int_member (s, "reviews_total"), ==,
                   anot_item_get_n_reviews (g_ptr_array_index (c3, 1)) +
                   anot_item_get_n_reviews (g_ptr_array_index (c3, 2)));
  g_assert_cmpint (json_object_get_int_member (s, "reviews_dropped"), ==, 0);
  g_assert_true (json_object_get_null_member (s, "max_reviews_per_item"));
  g_assert_cmpint (json_object_get_int_member (s, "chars"), ==, 117048);
}

/* Facts of the spec that hold for every philly candidate, checked on the
 * text itself. */
static void
test_philly_facts (void)
{
  AnotDataset *ds = anot_test_get_philly ();
  g_autoptr(AnotFormatter) f = anot_formatter_new ();
  g_autoptr(GPtrArray) items = NULL;
  g_autofree char *text = NULL;
  g_auto(GStrv) blocks = NULL;

  if (ds == NULL)
    return;

  items = all_items (ds);
  text = anot_formatter_format (f, items, NULL);
  g_assert_true (g_str_has_prefix (text, "Restaurants:\n\n{\n  \"business_id\": "));
  g_assert_true (g_str_has_suffix (text, "\n}\n"));
  g_assert_null (strstr (text, "llm_score"));
  g_assert_null (strstr (text, "llm_reasoning"));

  /* Every character is printable ASCII or a newline. */
  for (const char *p = text; *p; p++)
    g_assert_true (*p == '\n' || (*p >= 0x20 && *p < 0x7f));

  blocks = g_strsplit (text + strlen ("Restaurants:\n\n"), "\n\n", -1);
  g_assert_cmpuint (g_strv_length (blocks), ==, items->len);
  for (guint i = 0; i < items->len; i++)
    {
      AnotItem *item = g_ptr_array_index (items, i);
      g_autoptr(JsonNode) node = parse_json (blocks[i]);
      JsonObject *o = json_node_get_object (node);
      JsonObject *attrs = json_object_get_object_member (o, "attributes");
      JsonArray *reviews = json_object_get_array_member (o, "reviews");
      g_autoptr(GList) members = json_object_get_members (o);
      const char *wifi = anot_item_get_attribute (item, "WiFi");

      g_assert_cmpint (json_object_get_int_member (o, "index"), ==, i + 1);
      g_assert_cmpstr (g_list_last (members)->data, ==, "index");
      g_assert_cmpstr (g_list_last (members)->prev->data, ==, "reviews");
      g_assert_cmpstr (json_object_get_string_member (o, "business_id"), ==, anot_item_get_id (item));
      g_assert_cmpuint (json_array_get_length (reviews), ==, anot_item_get_n_reviews (item));
      g_assert_cmpuint (json_array_get_length (json_object_get_array_member (o, "categories")), ==,
                        g_strv_length ((char **) anot_item_get_categories (item)));

      /* Pass A: u'free' loses its prefix, 'free' keeps its quotes. */
      if (g_strcmp0 (wifi, "u'free'") == 0)
        g_assert_cmpstr (json_object_get_string_member (attrs, "WiFi"), ==, "free");
      else if (g_strcmp0 (wifi, "'free'") == 0)
        g_assert_cmpstr (json_object_get_string_member (attrs, "WiFi"), ==, "'free'");
      if (g_strcmp0 (anot_item_get_attribute (item, "HasTV"), "True") == 0)
        g_assert_true (json_object_get_boolean_member (attrs, "HasTV"));
      if (anot_item_get_attribute (item, "Ambience") != NULL &&
          anot_item_get_attribute (item, "Ambience")[0] == '{')
        g_assert_true (JSON_NODE_HOLDS_OBJECT (json_object_get_member (attrs, "Ambience")));

      if (json_array_get_length (reviews) > 0)
        {
          JsonObject *r0 = json_array_get_object_element (reviews, 0);
          JsonObject *user = json_object_get_object_member (r0, "user");

          g_assert_cmpstr (json_object_get_string_member (r0, "text"), ==,
                           anot_review_get_text (anot_item_get_review (item, 0)));
          g_assert_cmpstr (json_object_get_string_member (user, "name"), ==,
                           anot_review_get_reviewer_name (anot_item_get_review (item, 0)));
          g_assert_true (JSON_NODE_HOLDS_ARRAY (json_object_get_member (user, "friends")));
        }
    }
}

/* ------------------------------------------------------------------------ */

static void
test_max_reviews (void)
{
  AnotDataset *ds = anot_test_get_demo ();
  g_autoptr(GPtrArray) items = all_items (ds);
  g_autoptr(AnotFormatter) f = anot_formatter_new ();
  g_autoptr(JsonNode) stats = NULL;
  g_autofree char *text = NULL;
  guint total = 0, expected_included = 0;
  JsonObject *s;

  anot_formatter_set_max_reviews (f, 1);
  text = anot_formatter_format (f, items, &stats);
  for (guint i = 0; i < items->len; i++)
    {
      AnotItem *item = g_ptr_array_index (items, i);
      g_autoptr(JsonNode) node = anot_formatter_build_item (f, item, i + 1);
      JsonArray *reviews = json_object_get_array_member (json_node_get_object (node), "reviews");

      total += anot_item_get_n_reviews (item);
      expected_included += MIN (1, anot_item_get_n_reviews (item));
      g_assert_cmpuint (json_array_get_length (reviews), ==, MIN (1, anot_item_get_n_reviews (item)));
    }
  s = json_node_get_object (stats);
  g_assert_cmpint (json_object_get_int_member (s, "reviews_total"), ==, total);
  g_assert_cmpint (json_object_get_int_member (s, "reviews_included"), ==, expected_included);
  g_assert_cmpint (json_object_get_int_member (s, "reviews_dropped"), ==, total - expected_included);
  g_assert_cmpint (json_object_get_int_member (s, "max_reviews_per_item"), ==, 1);
  g_assert_cmpuint (total, >, expected_included);

  anot_formatter_set_max_reviews (f, 0);
  g_clear_pointer (&text, g_free);
  text = anot_formatter_format (f, items, NULL);
  g_assert_nonnull (strstr (text, "\"reviews\": [],"));
}

static void
test_review_chars (void)
{
  AnotDataset *ds = anot_test_get_demo ();
  AnotItem *item = anot_dataset_get_item (ds, 0);
  g_autoptr(AnotFormatter) f = anot_formatter_new ();
  g_autoptr(JsonNode) node = NULL;
  JsonArray *reviews;

  anot_formatter_set_review_chars (f, 40);
  anot_formatter_set_truncation_mark (f, " [cut]");
  node = anot_formatter_build_item (f, item, 1);
  reviews = json_object_get_array_member (json_node_get_object (node), "reviews");
  g_assert_cmpuint (json_array_get_length (reviews), ==, anot_item_get_n_reviews (item));
  for (guint i = 0; i < json_array_get_length (reviews); i++)
    {
      const char *text = json_object_get_string_member (json_array_get_object_element (reviews, i), "text");
      const char *orig = anot_review_get_text (anot_item_get_review (item, i));

      if (g_utf8_strlen (orig, -1) > 40)
        {
          g_assert_true (g_str_has_suffix (text, " [cut]"));
          g_assert_cmpint (g_utf8_strlen (text, -1), ==, 40 + 6);
          g_assert_true (strncmp (text, orig, strlen (text) - 6) == 0);
        }
      else
        g_assert_cmpstr (text, ==, orig);
    }
}

static void
check_budget (AnotDataset *ds,
              int          budget)
{
  g_autoptr(GPtrArray) items = all_items (ds);
  g_autoptr(AnotFormatter) f = anot_formatter_new ();
  g_autoptr(JsonNode) stats = NULL;
  g_autofree char *all = NULL;
  guint over = 0, included = 0, some_cut = 0;

  anot_formatter_set_item_chars (f, budget);
  all = anot_formatter_format (f, items, &stats);
  for (guint i = 0; i < items->len; i++)
    {
      AnotItem *item = g_ptr_array_index (items, i);
      g_autofree char *text = anot_formatter_format_item (f, item, i + 1);
      g_autoptr(JsonNode) node = parse_json (text);
      JsonArray *reviews = json_object_get_array_member (json_node_get_object (node), "reviews");
      guint n = json_array_get_length (reviews);

      included += n;
      if ((int) strlen (text) > budget)
        {
          over++;
          g_assert_cmpuint (n, ==, 0);
        }
      for (guint j = 0; j < n; j++)
        {
          const char *t = json_object_get_string_member (json_array_get_object_element (reviews, j), "text");
          const char *orig = anot_review_get_text (anot_item_get_review (item, j));

          if (g_strcmp0 (t, orig) != 0)
            {
              /* Only the last kept review may be cut, and it ends with
               * the mark. */
              g_assert_cmpuint (j, ==, n - 1);
              g_assert_true (g_str_has_suffix (t, "..."));
              some_cut++;
            }
        }
      /* One more whole review would not have fitted. */
      if (n < anot_item_get_n_reviews (item) && (int) strlen (text) <= budget)
        {
          g_autoptr(AnotFormatter) more = anot_formatter_new ();
          g_autofree char *bigger = NULL;

          anot_formatter_set_max_reviews (more, n + 1);
          bigger = anot_formatter_format_item (more, item, i + 1);
          g_assert_cmpint ((int) strlen (bigger), >, budget);
        }
    }
  g_assert_cmpint (json_object_get_int_member (json_node_get_object (stats), "items_over_budget"), ==, over);
  g_assert_cmpint (json_object_get_int_member (json_node_get_object (stats), "reviews_included"), ==, included);
  g_assert_cmpint (json_object_get_int_member (json_node_get_object (stats), "reviews_cut"), ==, some_cut);
}

static void
test_item_budget_demo (void)
{
  check_budget (anot_test_get_demo (), 1500);
  check_budget (anot_test_get_demo (), 300);
}

static void
test_item_budget_philly (void)
{
  AnotDataset *ds = anot_test_get_philly ();

  if (ds == NULL)
    return;
  check_budget (ds, 6000);
  check_budget (ds, 1000);
}

static void
test_exclude_and_numbering (void)
{
  AnotDataset *ds = anot_test_get_demo ();
  g_autoptr(GPtrArray) items = all_items (ds);
  g_autoptr(AnotFormatter) f = anot_formatter_new ();
  const char * const exclude[] = { "hours", "reviews.user.friends", "attributes.Ambience", NULL };
  g_autofree char *text = NULL;
  g_autoptr(JsonNode) context = NULL;
  JsonObject *ctx_items;

  anot_formatter_set_exclude (f, exclude);
  anot_formatter_set_first_index (f, 0);
  text = anot_formatter_format (f, items, NULL);
  g_assert_null (strstr (text, "\"hours\""));
  g_assert_null (strstr (text, "\"friends\""));
  g_assert_null (strstr (text, "\"Ambience\""));
  g_assert_nonnull (strstr (text, "\"index\": 0\n}"));

  context = anot_formatter_build_context (f, items);
  ctx_items = json_object_get_object_member (json_node_get_object (context), "items");
  g_assert_cmpuint (json_object_get_size (ctx_items), ==, items->len);
  g_assert_true (json_object_has_member (ctx_items, "0"));
  g_assert_cmpint (json_object_get_int_member (json_object_get_object_member (ctx_items, "1"), "index"), ==, 1);
}

static void
test_python_style (void)
{
  AnotDataset *ds = anot_test_get_demo ();
  g_autoptr(GPtrArray) items = all_items (ds);
  g_autoptr(AnotFormatter) f = anot_formatter_new ();
  g_autofree char *text = NULL;
  g_autofree char *repr = NULL;
  g_autoptr(JsonNode) context = NULL;

  anot_formatter_set_style (f, ANOT_FORMAT_STYLE_PYTHON);
  text = anot_formatter_format (f, items, NULL);
  g_assert_true (g_str_has_prefix (text, "{'items': {'1': {'business_id': '"));
  g_assert_true (g_str_has_suffix (text, "}}"));

  /* The same as the repr of the dict context built as JSON. */
  context = anot_formatter_build_context (f, items);
  repr = anot_json_to_python_repr (context);
  g_assert_cmpstr (text, ==, repr);
}

static void
test_text_style (void)
{
  AnotDataset *ds = anot_test_get_demo ();
  g_autoptr(GPtrArray) items = all_items (ds);
  g_autoptr(AnotFormatter) f = anot_formatter_new ();
  g_autofree char *text = NULL;

  anot_formatter_set_style (f, ANOT_FORMAT_STYLE_TEXT);
  anot_formatter_set_max_reviews (f, 2);
  text = anot_formatter_format (f, items, NULL);
  g_assert_true (g_str_has_prefix (text, "Restaurants:\n\nRestaurant 1: "));
  for (guint i = 0; i < items->len; i++)
    {
      AnotItem *item = g_ptr_array_index (items, i);
      g_autofree char *header = g_strdup_printf ("Restaurant %u: %s\n", i + 1, anot_item_get_name (item));
      g_autofree char *count = g_strdup_printf ("reviews (%u of %u):",
                                                MIN (2, anot_item_get_n_reviews (item)),
                                                anot_item_get_n_reviews (item));

      g_assert_nonnull (strstr (text, header));
      g_assert_nonnull (strstr (text, count));
    }
}

static void
test_options (void)
{
  g_autoptr(AnotMethodContext) ctx = anot_method_context_new (anot_test_get_demo (), "R01", 1);
  g_autoptr(AnotFormatter) f = anot_formatter_new ();
  g_autoptr(GError) error = NULL;

  anot_method_context_set_option (ctx, "format.style", "text");
  anot_method_context_set_option (ctx, "format.max-reviews", "3");
  anot_method_context_set_option (ctx, "format.item-chars", "2000");
  anot_method_context_set_option (ctx, "format.exclude", "hours, reviews.useful");
  g_assert_true (anot_formatter_apply_options (f, ctx, &error));
  g_assert_no_error (error);
  g_assert_cmpint (anot_formatter_get_style (f), ==, ANOT_FORMAT_STYLE_TEXT);
  g_assert_cmpint (anot_formatter_get_max_reviews (f), ==, 3);
  g_assert_cmpint (anot_formatter_get_item_chars (f), ==, 2000);
  g_assert_cmpint (anot_formatter_get_review_chars (f), ==, -1);
  g_assert_cmpstr (anot_formatter_get_exclude (f)[1], ==, "reviews.useful");

  anot_method_context_set_option (ctx, "format.max-reviews", "lots");
  g_assert_false (anot_formatter_apply_options (f, ctx, &error));
  g_assert_error (error, ANOT_ERROR, ANOT_ERROR_INVALID_ARGUMENT);
}

int
main (int argc, char **argv)
{
  int ret;

  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);

  g_test_add_func ("/formatter/dumps/scalars", test_dumps_scalars);
  g_test_add_func ("/formatter/dumps/layout", test_dumps_layout);
  g_test_add_func ("/formatter/dumps/string-runs", test_dumps_string_runs);
  g_test_add_func ("/formatter/validator-repr", test_validator_repr);
  g_test_add_func ("/formatter/philly/byte-exact", test_philly_byte_exact);
  g_test_add_func ("/formatter/philly/facts", test_philly_facts);
  g_test_add_func ("/formatter/max-reviews", test_max_reviews);
  g_test_add_func ("/formatter/review-chars", test_review_chars);
  g_test_add_func ("/formatter/item-budget/demo", test_item_budget_demo);
  g_test_add_func ("/formatter/item-budget/philly", test_item_budget_philly);
  g_test_add_func ("/formatter/exclude-and-numbering", test_exclude_and_numbering);
  g_test_add_func ("/formatter/python-style", test_python_style);
  g_test_add_func ("/formatter/text-style", test_text_style);
  g_test_add_func ("/formatter/options", test_options);

  ret = g_test_run ();
  return ret;
}
