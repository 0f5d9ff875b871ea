/* test-json.c: AnotJsonDocument and AnotJsonWriter against json-glib
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "anot-json-private.h"
#include "anot-json-document.h"
#include "anot-json-writer.h"
#include "anot-text-private.h"

#include <math.h>
#include <string.h>

static JsonNode *
glib_parse (const char *text)
{
  g_autoptr(JsonParser) parser = json_parser_new ();

  if (!json_parser_load_from_data (parser, text, -1, NULL))
    return NULL;
  return json_parser_steal_root (parser);
}

/* Parsed the same as json-glib does, and written back to text json-glib
 * reads as the same tree. */
static void
assert_same (const char *text)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) ours = anot_json_parse (text, strlen (text), &error);
  g_autoptr(JsonNode) theirs = glib_parse (text);
  g_autoptr(GString) written = g_string_new (NULL);
  g_autoptr(JsonNode) reread = NULL;
  g_autofree char *glib_text = NULL;

  g_assert_no_error (error);
  g_assert_nonnull (ours);
  g_assert_nonnull (theirs);
  if (!json_node_equal (ours, theirs))
    g_error ("parsed differently: %s", text);

  anot_json_write (written, ours);
  reread = glib_parse (written->str);
  g_assert_nonnull (reread);
  if (!json_node_equal (reread, theirs))
    g_error ("written differently: %s → %s", text, written->str);
  /* The same text as json-glib's generator, where that is valid JSON
   * (json-glib 1.6 writes 1e+308 as "1e+308.0" and U+001F unescaped). */
  glib_text = json_to_string (theirs, FALSE);
  {
    g_autoptr(JsonNode) valid = anot_json_parse (glib_text, strlen (glib_text), NULL);

    if (valid != NULL)
      g_assert_cmpstr (written->str, ==, glib_text);
  }
}

static void
test_values (void)
{
  static const char * const documents[] = {
    "{}", "[]", "null", "true", "false", "0", "-0", "42", "-17", "3.25", "-0.5e-3", "1E+2",
    "9223372036854775807", "-9223372036854775808", "1e308", "2.5e-308",
    "\"\"", "\"plain\"", "\"caf\\u00e9 \\u2603 \\ud83d\\ude00\"", "\"tab\\tnew\\nline\\r\\\"q\\\" \\\\ \\/ \\b\\f\"",
    "\"héllo ☃ 😀\"",
    " \n\t{ \"a\" : [ 1 , 2.0 , \"x\" , null , true , { } , [ ] ] } \r\n",
    "{\"id\":\"chatcmpl-1\",\"object\":\"chat.completion\",\"choices\":[{\"index\":0,"
    "\"message\":{\"role\":\"assistant\",\"content\":\"3, 1, 2\",\"refusal\":null},"
    "\"finish_reason\":\"stop\"}],\"usage\":{\"prompt_tokens\":12,\"completion_tokens\":3}}",
    "{\"content\":[{\"type\":\"text\",\"text\":\"A\\nB\"}],\"usage\":{\"input_tokens\":1}}",
    "[[[[[[[[[[1]]]]]]]]]]",
    "{\"dup\": 1, \"dup\": 2}",
    "{\"ctrl\":\"\\u0001\\u001f\"}",
  };

  for (guint i = 0; i < G_N_ELEMENTS (documents); i++)
    assert_same (documents[i]);
}

static void
test_large_integers_become_doubles (void)
{
  g_autoptr(JsonNode) node = anot_json_parse ("18446744073709551616", 20, NULL);

  g_assert_nonnull (node);
  g_assert_cmpint (json_node_get_value_type (node), ==, G_TYPE_DOUBLE);
  g_assert_cmpfloat (json_node_get_double (node), ==, 18446744073709551616.0);
}

static void
test_invalid (void)
{
  static const char * const documents[] = {
    "", " ", "{", "}", "[1,]", "{\"a\":1,}", "{\"a\" 1}", "{a:1}", "01", "1.", ".5", "-",
    "1e", "+1", "tru", "nul", "\"unterminated", "\"bad \\x escape\"", "\"ctrl \x01 char\"",
    "\"\\ud800\"", "\"\\udc00\"", "\"\\ud800\\u0041\"", "\"\\u12\"", "\"\\u0000\"",
    "[1] 2", "{} {}", "\"\xff\"", "NaN", "Infinity", "'single'",
  };

  for (guint i = 0; i < G_N_ELEMENTS (documents); i++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(JsonNode) node = anot_json_parse (documents[i], strlen (documents[i]), &error);

      if (node != NULL)
        g_error ("accepted invalid JSON: %s", documents[i]);
      g_assert_error (error, JSON_PARSER_ERROR, JSON_PARSER_ERROR_INVALID_DATA);
    }

  /* Nesting is bounded. */
  {
    g_autoptr(GString) deep = g_string_new (NULL);
    g_autoptr(GError) error = NULL;
    g_autoptr(JsonNode) node = NULL;

    for (guint i = 0; i < 600; i++)
      g_string_append_c (deep, '[');
    for (guint i = 0; i < 600; i++)
      g_string_append_c (deep, ']');
    node = anot_json_parse (deep->str, deep->len, &error);
    g_assert_null (node);
    g_assert_nonnull (strstr (error->message, "deeply"));
  }
}

/* Every line of the demo benchmark's files. */
static void
test_benchmark_files (void)
{
  static const char * const files[] = {
    "restaurants.jsonl", "reviews.jsonl", "requests.jsonl", "groundtruth.jsonl",
  };
  guint n_lines = 0;

  for (guint f = 0; f < G_N_ELEMENTS (files); f++)
    {
      g_autofree char *path = g_build_filename (g_getenv ("ANOT_DATA_DIR"), "demo", files[f], NULL);
      g_autofree char *contents = NULL;
      g_auto(GStrv) lines = NULL;

      g_assert_true (g_file_get_contents (path, &contents, NULL, NULL));
      lines = g_strsplit (contents, "\n", -1);
      for (guint i = 0; lines[i] != NULL; i++)
        if (*g_strstrip (lines[i]) != '\0')
          {
            assert_same (lines[i]);
            n_lines++;
          }
    }
  g_assert_cmpuint (n_lines, >, 200);
}

static void
test_document_lookups (void)
{
  static const char text[] =
    "{\"id\":\"x\",\"choices\":[{\"index\":0,\"message\":{\"content\":\"caf\\u00e9 \\\"ok\\\"\\n\","
    "\"refusal\":null}},{\"index\":1}],\"usage\":{\"prompt_tokens\":12,\"completion_tokens\":3.9,"
    "\"big\":18446744073709551616,\"neg\":-9223372036854775808},\"caf\\u00e9\":true,"
    "\"dup\":1,\"dup\":2,\"empty\":{},\"list\":[]}";
  g_autoptr(GError) error = NULL;
  g_autoptr(AnotJsonDocument) doc = anot_json_document_new_from_data (text, -1, &error);
  g_autoptr(JsonNode) tree = NULL;
  g_autoptr(JsonNode) theirs = glib_parse (text);
  g_autofree char *content = NULL;
  int choices, message;

  g_assert_no_error (error);
  g_assert_nonnull (doc);
  g_assert_cmpint (anot_json_document_get_kind (doc, 0), ==, ANOT_JSON_KIND_OBJECT);
  g_assert_cmpuint (anot_json_document_get_size (doc, 0), ==, 8);

  choices = anot_json_document_get_member (doc, 0, "choices");
  g_assert_cmpint (anot_json_document_get_kind (doc, choices), ==, ANOT_JSON_KIND_ARRAY);
  g_assert_cmpuint (anot_json_document_get_size (doc, choices), ==, 2);
  /* Element 1 comes after the whole subtree of element 0. */
  g_assert_cmpint (anot_json_document_get_int (doc, anot_json_document_get_path (doc, choices, "[1].index"), -1), ==, 1);
  g_assert_cmpint (anot_json_document_get_element (doc, choices, 2), ==, -1);

  message = anot_json_document_get_path (doc, 0, "choices[0].message");
  content = anot_json_document_dup_string (doc, anot_json_document_get_member (doc, message, "content"));
  g_assert_cmpstr (content, ==, "café \"ok\"\n");
  g_assert_true (anot_json_document_string_equal (doc, anot_json_document_get_member (doc, message, "content"),
                                                  "café \"ok\"\n"));
  g_assert_false (anot_json_document_string_equal (doc, anot_json_document_get_member (doc, message, "content"),
                                                   "café"));
  g_assert_cmpint (anot_json_document_get_kind (doc, anot_json_document_get_member (doc, message, "refusal")),
                   ==, ANOT_JSON_KIND_NULL);
  g_assert_null (anot_json_document_dup_string (doc, anot_json_document_get_member (doc, message, "refusal")));

  /* Numbers, with their fallbacks. */
  g_assert_cmpint (anot_json_document_get_int (doc, anot_json_document_get_path (doc, 0, "usage.prompt_tokens"), -1), ==, 12);
  g_assert_cmpint (anot_json_document_get_int (doc, anot_json_document_get_path (doc, 0, "usage.completion_tokens"), -1), ==, 3);
  g_assert_cmpfloat (anot_json_document_get_double (doc, anot_json_document_get_path (doc, 0, "usage.completion_tokens"), -1), ==, 3.9);
  g_assert_cmpint (anot_json_document_get_kind (doc, anot_json_document_get_path (doc, 0, "usage.big")), ==, ANOT_JSON_KIND_DOUBLE);
  g_assert_cmpint (anot_json_document_get_int (doc, anot_json_document_get_path (doc, 0, "usage.big"), 0), ==, G_MAXINT64);
  g_assert_cmpint (anot_json_document_get_kind (doc, anot_json_document_get_path (doc, 0, "usage.neg")), ==, ANOT_JSON_KIND_INTEGER);
  g_assert_cmpint (anot_json_document_get_int (doc, anot_json_document_get_path (doc, 0, "usage.neg"), 0), ==, G_MININT64);
  g_assert_cmpint (anot_json_document_get_int (doc, anot_json_document_get_member (doc, 0, "id"), -7), ==, -7);
  g_assert_cmpfloat (anot_json_document_get_double (doc, -1, 2.5), ==, 2.5);
  g_assert_cmpuint (anot_json_document_get_uint (doc, anot_json_document_get_path (doc, 0, "usage.prompt_tokens"), 7), ==, 12);
  g_assert_cmpuint (anot_json_document_get_uint (doc, anot_json_document_get_path (doc, 0, "usage.completion_tokens"), 7), ==, 3);
  g_assert_cmpuint (anot_json_document_get_uint (doc, anot_json_document_get_path (doc, 0, "usage.neg"), 7), ==, 7);
  g_assert_cmpuint (anot_json_document_get_uint (doc, anot_json_document_get_path (doc, 0, "usage.big"), 7), ==, G_MAXUINT64);
  g_assert_cmpuint (anot_json_document_get_uint (doc, anot_json_document_get_member (doc, 0, "id"), 7), ==, 7);

  /* A member whose name has an escape; the first of a repeated member. */
  g_assert_true (anot_json_document_get_boolean (doc, anot_json_document_get_member (doc, 0, "café"), FALSE));
  g_assert_cmpint (anot_json_document_get_int (doc, anot_json_document_get_member (doc, 0, "dup"), 0), ==, 1);
  g_assert_cmpuint (anot_json_document_get_size (doc, anot_json_document_get_member (doc, 0, "empty")), ==, 0);
  g_assert_cmpint (anot_json_document_get_member (doc, anot_json_document_get_member (doc, 0, "empty"), "x"), ==, -1);
  g_assert_cmpint (anot_json_document_get_element (doc, anot_json_document_get_member (doc, 0, "list"), 0), ==, -1);

  /* -1 flows through every accessor. */
  g_assert_cmpint (anot_json_document_get_path (doc, 0, "choices[0].nothing.deeper[3]"), ==, -1);
  g_assert_cmpint (anot_json_document_get_path (doc, 0, "id.x"), ==, -1);
  g_assert_cmpint (anot_json_document_get_kind (doc, -1), ==, ANOT_JSON_KIND_NONE);
  g_assert_cmpint (anot_json_document_get_kind (doc, 100000), ==, ANOT_JSON_KIND_NONE);
  g_assert_cmpuint (anot_json_document_get_size (doc, -1), ==, 0);
  g_assert_null (anot_json_document_dup_node (doc, -1));

  /* The tree equals json-glib's (where a repeated member keeps the last),
   * but for the integer too large for 64 bits, a double here. */
  tree = anot_json_document_dup_node (doc, 0);
  g_assert_cmpfloat (json_object_get_double_member (json_object_get_object_member (json_node_get_object (tree), "usage"), "big"),
                     ==, 18446744073709551616.0);
  json_object_remove_member (json_object_get_object_member (json_node_get_object (tree), "usage"), "big");
  json_object_remove_member (json_object_get_object_member (json_node_get_object (theirs), "usage"), "big");
  g_assert_true (json_node_equal (tree, theirs));
}

static void
test_document_errors (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) empty = g_bytes_new (NULL, 0);
  AnotJsonDocument *doc;

  doc = anot_json_document_new_from_data ("{\"a\": [1, 2}", -1, &error);
  g_assert_null (doc);
  g_assert_error (error, JSON_PARSER_ERROR, JSON_PARSER_ERROR_INVALID_DATA);
  g_assert_nonnull (strstr (error->message, "expected “,” or “]” at byte 11"));
  g_clear_error (&error);

  doc = anot_json_document_new_from_bytes (empty, &error);
  g_assert_null (doc);
  g_assert_error (error, JSON_PARSER_ERROR, JSON_PARSER_ERROR_INVALID_DATA);
}

/* The writer's text equals json-glib's generator for the tree JsonBuilder
 * builds from the same calls. */
static void
test_writer_matches_json_glib (void)
{
  g_autoptr(JsonBuilder) builder = json_builder_new ();
  g_autoptr(AnotJsonWriter) writer = anot_json_writer_new ();
  g_autoptr(JsonNode) schema = glib_parse ("{\"type\":\"object\",\"properties\":{\"s\":{\"type\":\"number\"}}}");
  g_autoptr(JsonNode) root = NULL;
  g_autofree char *expected = NULL;
  g_autoptr(GBytes) bytes = NULL;
  static const double doubles[] = { 0.7, 1.0, -0.0, 1e300, 2.5e-8, 123456789.125 };
  static const char * const strings[] = { "", "plain", "q\"uote \\ back", "tab\tnl\ncr\r\b\f\x01\x1f", "café ☃ 😀" };

#define BOTH(json_call, writer_call) G_STMT_START { json_call; writer_call; } G_STMT_END
  BOTH (json_builder_begin_object (builder), anot_json_writer_begin_object (writer));
  for (guint i = 0; i < G_N_ELEMENTS (strings); i++)
    {
      BOTH (json_builder_set_member_name (builder, strings[i]), anot_json_writer_set_member_name (writer, strings[i]));
      BOTH (json_builder_add_string_value (builder, strings[i]), anot_json_writer_add_string_value (writer, strings[i]));
    }
  BOTH (json_builder_set_member_name (builder, "numbers"), anot_json_writer_set_member_name (writer, "numbers"));
  BOTH (json_builder_begin_array (builder), anot_json_writer_begin_array (writer));
  for (guint i = 0; i < G_N_ELEMENTS (doubles); i++)
    BOTH (json_builder_add_double_value (builder, doubles[i]), anot_json_writer_add_double_value (writer, doubles[i]));
  BOTH (json_builder_add_int_value (builder, G_MININT64), anot_json_writer_add_int_value (writer, G_MININT64));
  BOTH (json_builder_add_boolean_value (builder, TRUE), anot_json_writer_add_boolean_value (writer, TRUE));
  BOTH (json_builder_add_null_value (builder), anot_json_writer_add_null_value (writer));
  BOTH (json_builder_begin_array (builder), anot_json_writer_begin_array (writer));
  BOTH (json_builder_end_array (builder), anot_json_writer_end_array (writer));
  BOTH (json_builder_begin_object (builder), anot_json_writer_begin_object (writer));
  BOTH (json_builder_end_object (builder), anot_json_writer_end_object (writer));
  BOTH (json_builder_end_array (builder), anot_json_writer_end_array (writer));
  BOTH (json_builder_set_member_name (builder, "schema"), anot_json_writer_set_member_name (writer, "schema"));
  BOTH (json_builder_add_value (builder, json_node_copy (schema)), anot_json_writer_add_value (writer, schema));
  g_assert_false (anot_json_writer_is_complete (writer));
  BOTH (json_builder_end_object (builder), anot_json_writer_end_object (writer));
#undef BOTH

  g_assert_true (anot_json_writer_is_complete (writer));
  root = json_builder_get_root (builder);
  expected = json_to_string (root, FALSE);
  /* json-glib 1.6 writes U+001F unescaped, which is not JSON: compare the
   * trees for that part and the text for the rest. */
  {
    gsize length;
    const char *text = anot_json_writer_get_text (writer, &length);
    g_autoptr(JsonNode) reread = glib_parse (text);

    g_assert_cmpuint (length, ==, strlen (text));
    g_assert_nonnull (reread);
    g_assert_true (json_node_equal (reread, root));
    g_assert_nonnull (strstr (text, "\"tab\\tnl\\ncr\\r\\b\\f\\u0001\\u001f\""));
    g_assert_nonnull (strstr (text, "[0.69999999999999996,1.0,-0.0,1.0000000000000001e+300,"));
    g_assert_cmpstr (strstr (text, "\"numbers\""), ==, strstr (expected, "\"numbers\""));
  }
  bytes = anot_json_writer_steal_bytes (writer);
  g_assert_nonnull (bytes);
  g_assert_null (anot_json_writer_get_text (writer, NULL));
}

/* Strings are escaped a run at a time, the runs found eight bytes at a
 * time: the text must be the byte-by-byte escape of every string, whatever
 * where its escapes fall in a word (random strings of 0-40 bytes, one in
 * a hundred up to 3,000, drawn from quotes, backslashes, control bytes,
 * ASCII and UTF-8). */
static void
test_writer_string_escapes (void)
{
  static const char *const pieces[] = {
    "\"", "\\", "\n", "\t", "\r", "\b", "\f", "\x01", "\x1f", "\x7f", "a", "Z", " ", "/",
    "\xc3\xa9", "\xe2\x82\xac", "\xf0\x9f\x98\x80",
  };
  g_autoptr(GRand) rand = g_rand_new_with_seed (36);

  for (guint n = 0; n < 20000; n++)
    {
      g_autoptr(GString) text = g_string_new (NULL);
      g_autoptr(GString) expected = g_string_new ("[\"");
      g_autoptr(AnotJsonWriter) writer = anot_json_writer_new ();
      /* Some long enough to grow the writer's text while escaping. */
      guint length = n % 100 == 0 ? (guint) g_rand_int_range (rand, 0, 3001) : (guint) g_rand_int_range (rand, 0, 41);

      /* Mostly plain text, so runs of every length appear. */
      while (text->len < length)
        g_string_append (text, g_rand_int_range (rand, 0, 4) != 0 ? "x"
                         : pieces[g_rand_int_range (rand, 0, G_N_ELEMENTS (pieces))]);
      for (const char *p = text->str; *p != '\0'; p++)
        {
          guchar c = (guchar) *p;

          switch (c)
            {
            case '"': g_string_append (expected, "\\\""); break;
            case '\\': g_string_append (expected, "\\\\"); break;
            case '\n': g_string_append (expected, "\\n"); break;
            case '\t': g_string_append (expected, "\\t"); break;
            case '\r': g_string_append (expected, "\\r"); break;
            case '\b': g_string_append (expected, "\\b"); break;
            case '\f': g_string_append (expected, "\\f"); break;
            default:
              if (c < 0x20)
                g_string_append_printf (expected, "\\u%04x", c);
              else
                g_string_append_c (expected, (char) c);
            }
        }
      g_string_append (expected, "\"]");

      anot_json_writer_begin_array (writer);
      anot_json_writer_add_string_value (writer, text->str);
      anot_json_writer_end_array (writer);
      g_assert_cmpstr (anot_json_writer_get_text (writer, NULL), ==, expected->str);
    }
}

/* The reader scans strings sixteen bytes at a time, then a word at a
 * time: whatever where a quote, an escape, a control byte or a UTF-8
 * sequence falls, what the writer wrote must read back as the string it
 * was (random strings of 0-80 bytes, one in a hundred up to 3,000), and a
 * raw control byte or a stray continuation byte put anywhere in the text
 * must be refused. */
static void
test_document_string_scan (void)
{
  static const char *const pieces[] = {
    "\"", "\\", "\n", "\t", "\x01", "\x1f", "\x7f", "a", " ", "/",
    "\xc3\xa9", "\xe2\x82\xac", "\xf0\x9f\x98\x80",
  };
  static const char bad[] = { '\x01', '\n', '\x1f', '\x80', '\xbf', '\xff' };
  g_autoptr(GRand) rand = g_rand_new_with_seed (3616);

  for (guint n = 0; n < 20000; n++)
    {
      g_autoptr(GString) text = g_string_new (NULL);
      g_autoptr(AnotJsonWriter) writer = anot_json_writer_new ();
      g_autoptr(AnotJsonDocument) doc = NULL;
      g_autoptr(AnotJsonDocument) broken_doc = NULL;
      g_autoptr(GError) error = NULL;
      g_autofree char *copy = NULL;
      g_autofree char *read = NULL;
      guint length = n % 100 == 0 ? (guint) g_rand_int_range (rand, 0, 3001) : (guint) g_rand_int_range (rand, 0, 81);
      const char *written;
      gsize written_len, at;

      while (text->len < length)
        g_string_append (text, g_rand_int_range (rand, 0, 8) != 0 ? "x"
                         : pieces[g_rand_int_range (rand, 0, G_N_ELEMENTS (pieces))]);

      anot_json_writer_begin_array (writer);
      anot_json_writer_add_string_value (writer, text->str);
      anot_json_writer_end_array (writer);
      written = anot_json_writer_get_text (writer, &written_len);

      doc = anot_json_document_new_from_data (written, written_len, &error);
      g_assert_no_error (error);
      read = anot_json_document_dup_string (doc, anot_json_document_get_element (doc, 0, 0));
      g_assert_cmpstr (read, ==, text->str);

      /* Between the quotes, at a byte of plain text (not inside an escape
       * or a UTF-8 sequence, where it would make another error). */
      if (text->len == 0)
        continue;
      copy = g_strndup (written, written_len);
      at = 2 + (gsize) g_rand_int_range (rand, 0, (gint32) (written_len - 4));
      if (copy[at] != 'x' && copy[at] != 'a' && copy[at] != ' ')
        continue;
      copy[at] = bad[g_rand_int_range (rand, 0, G_N_ELEMENTS (bad))];
      broken_doc = anot_json_document_new_from_data (copy, written_len, &error);
      if (broken_doc != NULL)
        g_error ("accepted a raw 0x%02x at byte %" G_GSIZE_FORMAT " of %s",
                 (guchar) copy[at], at, written);
      g_clear_error (&error);
    }
}

static void
test_writer_non_finite (void)
{
  g_autoptr(AnotJsonWriter) writer = anot_json_writer_new ();
  g_autoptr(AnotJsonDocument) doc = anot_json_document_new_from_data ("[1e400, -1e400]", -1, NULL);
  g_autoptr(JsonNode) tree = anot_json_document_dup_node (doc, 0);

  /* Beyond the double range reads as infinities... */
  g_assert_true (isinf (anot_json_document_get_double (doc, anot_json_document_get_element (doc, 0, 0), 0)));
  /* ...which JSON cannot express: null, as JSON.stringify() writes them. */
  anot_json_writer_begin_array (writer);
  anot_json_writer_add_double_value (writer, NAN);
  anot_json_writer_add_value (writer, tree);
  anot_json_writer_end_array (writer);
  g_assert_cmpstr (anot_json_writer_get_text (writer, NULL), ==, "[null,[null,null]]");
}

/* Numbers are written without printf where that is cheaper; the text must
 * stay exactly printf's: "%" G_GINT64_FORMAT for integers, "%.17g" (with
 * ".0" when it reads as an integer) for doubles, whole ones included. */
static void
test_writer_numbers (void)
{
  static const gint64 ints[] = {
    0, 1, -1, 9, 10, -10, 1234567890123, G_MAXINT64, G_MININT64, G_MININT64 + 1,
  };
  static const double doubles[] = {
    0.0, -0.0, 1.0, -1.0, 3.0, 10.0, 100.0, 12345.0, -98765.0, 0.5, 0.1, 2.25,
    1e14, 999999999999999.0, 1e15, -1e15, 1e16, 1e17, 1e22, 9007199254740993.0,
    123456789.125, 1e-7, -3.5e-300,
  };

  for (guint i = 0; i < G_N_ELEMENTS (ints); i++)
    {
      g_autoptr(AnotJsonWriter) writer = anot_json_writer_new ();
      g_autofree char *expected = g_strdup_printf ("%" G_GINT64_FORMAT, ints[i]);

      anot_json_writer_add_int_value (writer, ints[i]);
      g_assert_cmpstr (anot_json_writer_get_text (writer, NULL), ==, expected);
    }
  for (guint i = 0; i < G_N_ELEMENTS (doubles); i++)
    {
      g_autoptr(AnotJsonWriter) writer = anot_json_writer_new ();
      char buffer[G_ASCII_DTOSTR_BUF_SIZE];
      g_autofree char *expected = NULL;

      g_ascii_formatd (buffer, sizeof buffer, "%.17g", doubles[i]);
      expected = g_strconcat (buffer, strpbrk (buffer, ".eEn") == NULL ? ".0" : "", NULL);
      anot_json_writer_add_double_value (writer, doubles[i]);
      g_assert_cmpstr (anot_json_writer_get_text (writer, NULL), ==, expected);
    }
}

static void
check_number_as_strtod (const char *text)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(AnotJsonDocument) doc = anot_json_document_new_from_data (text, -1, &error);
  double expected = g_ascii_strtod (text, NULL);
  double got;

  g_assert_no_error (error);
  got = anot_json_document_get_double (doc, 0, 0.0);
  /* Bit for bit: the sign of a zero too. */
  if (memcmp (&got, &expected, sizeof got) != 0)
    g_error ("%s read as %a, strtod() gives %a", text, got, expected);
}

/* Numbers read as strtod() reads them, through the reader's own short
 * path where it takes one (mantissas up to 2^53, powers of ten up to
 * 10^22) and strtod() beyond: random digits, dots and exponents, and the
 * edges of the short path. */
static void
test_document_numbers_as_strtod (void)
{
  static const char *edges[] = {
    "0.0", "-0.0", "0e5", "-0E-5", "0.000", "4.0", "3.25", "-12.5e-3", "1e22", "1e23", "1e-22", "1e-23",
    "9007199254740992.0", "9007199254740993.0", "9007199254740991e22", "9007199254740993e-22",
    "1234567890123456.7", "0.1", "0.30000000000000004", "2.3999999999999999", "1.7976931348623157e308",
    "1e400", "-1e400", "4.9e-324", "1e-400", "0e99999999999", "1.00000000000000000000000001", "123e+0000000002",
  };

  for (guint i = 0; i < G_N_ELEMENTS (edges); i++)
    check_number_as_strtod (edges[i]);
  for (guint i = 0; i < 100000; i++)
    {
      g_autoptr(GString) text = g_string_new (g_test_rand_bit () ? "-" : "");
      guint n_int = (guint) g_test_rand_int_range (1, 20);
      guint n_frac = (guint) g_test_rand_int_range (0, 20);

      g_string_append_c (text, (char) ('0' + g_test_rand_int_range (n_int > 1 ? 1 : 0, 10)));
      for (guint j = 1; j < n_int; j++)
        g_string_append_c (text, (char) ('0' + g_test_rand_int_range (0, 10)));
      if (n_frac > 0)
        {
          g_string_append_c (text, '.');
          for (guint j = 0; j < n_frac; j++)
            g_string_append_c (text, (char) ('0' + g_test_rand_int_range (0, 10)));
        }
      if (g_test_rand_bit ())
        g_string_append_printf (text, "%s%d", g_test_rand_bit () ? "e" : "E-", g_test_rand_int_range (0, 40));
      else if (n_frac == 0)
        g_string_append (text, ".5");
      check_number_as_strtod (text->str);
    }
}

static void
check_double_as_printf (double value)
{
  g_autoptr(AnotJsonWriter) writer = anot_json_writer_new ();
  char buffer[G_ASCII_DTOSTR_BUF_SIZE];
  g_autofree char *expected = NULL;

  if (!isfinite (value))
    return;
  g_ascii_formatd (buffer, sizeof buffer, "%.17g", value);
  expected = g_strconcat (buffer, strpbrk (buffer, ".eEn") == NULL ? ".0" : "", NULL);
  anot_json_writer_add_double_value (writer, value);
  if (g_strcmp0 (anot_json_writer_get_text (writer, NULL), expected) != 0)
    g_error ("%a written as %s, printf's \"%%.17g\" gives %s", value,
             anot_json_writer_get_text (writer, NULL), expected);
}

/* The writer's own "%.17g" against printf's: random bit patterns (every
 * exponent), random mantissas at the magnitudes a trace holds (1e-12 to
 * 1e40, where the writer does not call printf), the halfway cases that
 * printf rounds to even (1 + j/2^17 has 18 significant digits, the last a
 * 5), and the neighbours of powers of ten. */
static void
test_writer_doubles_as_printf (void)
{
  for (guint i = 0; i < 100000; i++)
    {
      guint64 bits = ((guint64) g_test_rand_int () << 32) | (guint32) g_test_rand_int ();
      double value;

      memcpy (&value, &bits, sizeof value);
      check_double_as_printf (value);
      value = ldexp (g_test_rand_double_range (1.0, 2.0), g_test_rand_int_range (-40, 134));
      check_double_as_printf (g_test_rand_bit () ? value : -value);
      check_double_as_printf (g_test_rand_double_range (-1000.0, 1000.0));
      check_double_as_printf ((double) g_test_rand_int_range (0, 1000000) / 1000.0);
    }
  for (guint j = 1; j < 20000; j += 2)
    {
      check_double_as_printf (1.0 + ldexp (j, -17));
      check_double_as_printf (ldexp (1.0 + ldexp (j, -17), g_test_rand_int_range (-30, 60)));
    }
  for (int e = -12; e <= 40; e++)
    {
      double power = pow (10.0, e);

      check_double_as_printf (power);
      check_double_as_printf (nextafter (power, 0.0));
      check_double_as_printf (nextafter (power, G_MAXDOUBLE));
    }
}

/* A value of a document copied into a writer: the text as written (escapes
 * kept, numbers as spelled), without whitespace, a repeated member twice,
 * wherever a value may go. */
static void
test_writer_document_value (void)
{
  static const char *text =
    " { \"a\" : [ 1 , -0 , 2.50 , 1E3 , true , false , null , \"\\u00e9\\n\\\"q\\\" caf\u00c3\u00a9\" ] ,"
    "   \"o\" : { } , \"e\" : [ ] , \"a\" : { \"deep\" : [ [ { \"x\" : 123456789012345678901234567890 } ] ] } } ";
  static const char *compact =
    "{\"a\":[1,-0,2.50,1E3,true,false,null,\"\\u00e9\\n\\\"q\\\" caf\u00c3\u00a9\"],"
    "\"o\":{},\"e\":[],\"a\":{\"deep\":[[{\"x\":123456789012345678901234567890}]]}}";
  g_autoptr(GError) error = NULL;
  g_autoptr(AnotJsonDocument) doc = anot_json_document_new_from_data (text, -1, &error);
  g_autoptr(AnotJsonWriter) whole = anot_json_writer_new ();
  g_autoptr(AnotJsonWriter) parts = anot_json_writer_new ();
  g_autoptr(AnotJsonDocument) reread = NULL;

  g_assert_no_error (error);
  anot_json_writer_add_document_value (whole, doc, 0);
  g_assert_cmpstr (anot_json_writer_get_text (whole, NULL), ==, compact);
  g_assert_true (anot_json_writer_is_complete (whole));
  reread = anot_json_document_new_from_data (compact, -1, &error);
  g_assert_no_error (error);

  /* Members and elements, inside a document being written. */
  anot_json_writer_begin_object (parts);
  anot_json_writer_set_member_name (parts, "first");
  anot_json_writer_add_document_value (parts, doc, anot_json_document_get_member (doc, 0, "a"));
  anot_json_writer_set_member_name (parts, "list");
  anot_json_writer_begin_array (parts);
  anot_json_writer_add_document_value (parts, doc, anot_json_document_get_path (doc, 0, "a[7]"));
  anot_json_writer_add_document_value (parts, doc, anot_json_document_get_path (doc, 0, "a[3]"));
  anot_json_writer_add_document_value (parts, doc, anot_json_document_get_member (doc, 0, "o"));
  anot_json_writer_add_document_value (parts, doc, anot_json_document_get_member (doc, 0, "e"));
  anot_json_writer_end_array (parts);
  anot_json_writer_end_object (parts);
  g_assert_cmpstr (anot_json_writer_get_text (parts, NULL), ==,
                   "{\"first\":[1,-0,2.50,1E3,true,false,null,\"\\u00e9\\n\\\"q\\\" caf\u00c3\u00a9\"],"
                   "\"list\":[\"\\u00e9\\n\\\"q\\\" caf\u00c3\u00a9\",1E3,{},[]]}");
}

static void
test_writer_misuse (void)
{
  if (g_test_subprocess ())
    {
      g_autoptr(AnotJsonWriter) writer = anot_json_writer_new ();

      /* Reported and ignored, not fatal, so the text can be checked. */
      g_log_set_always_fatal (G_LOG_FATAL_MASK);
      anot_json_writer_begin_object (writer);
      anot_json_writer_add_int_value (writer, 1);
      anot_json_writer_end_array (writer);
      anot_json_writer_set_member_name (writer, "a");
      anot_json_writer_set_member_name (writer, "b");
      anot_json_writer_add_int_value (writer, 1);
      anot_json_writer_end_object (writer);
      anot_json_writer_add_null_value (writer);
      /* What was ignored left no trace. */
      g_assert_cmpstr (anot_json_writer_get_text (writer, NULL), ==, "{\"a\":1}");
      g_assert_true (anot_json_writer_is_complete (writer));
      return;
    }
  g_test_trap_subprocess (NULL, 0, G_TEST_SUBPROCESS_DEFAULT);
  g_test_trap_assert_passed ();
  g_test_trap_assert_stderr ("*add_int_value: no value can go here*"
                             "*end_array: no open array*"
                             "*set_member_name: a member name needs*"
                             "*add_null_value: no value can go here*");
}

/* anot_bytes_equal() against memcmp() at every length up to 40, with one
 * byte changed at each position (and none): its loads overlap and must
 * neither miss a difference nor read past either end (ASan checks that:
 * both copies are exactly @len bytes on the heap). */
static void
test_bytes_equal (void)
{
  for (gsize len = 0; len <= 40; len++)
    {
      g_autofree char *a = g_malloc (MAX (len, 1));
      g_autofree char *b = g_malloc (MAX (len, 1));

      for (gsize i = 0; i < len; i++)
        a[i] = (char) ('a' + (i * 7) % 26);
      memcpy (b, a, len);
      g_assert_true (anot_bytes_equal (a, b, len));
      g_assert_cmpuint (anot_hash_bytes (a, len), ==, anot_hash_bytes (b, len));
      for (gsize at = 0; at < len; at++)
        {
          b[at] ^= 0x20;
          g_assert_false (anot_bytes_equal (a, b, len));
          g_assert_cmpint (memcmp (a, b, len) == 0, ==, anot_bytes_equal (a, b, len));
          b[at] ^= 0x20;
        }
    }
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);

  g_test_add_func ("/json/values", test_values);
  g_test_add_func ("/json/large-integers", test_large_integers_become_doubles);
  g_test_add_func ("/json/invalid", test_invalid);
  g_test_add_func ("/json/benchmark-files", test_benchmark_files);
  g_test_add_func ("/json/document/lookups", test_document_lookups);
  g_test_add_func ("/json/document/errors", test_document_errors);
  g_test_add_func ("/json/document/numbers-as-strtod", test_document_numbers_as_strtod);
  g_test_add_func ("/json/document/string-scan", test_document_string_scan);
  g_test_add_func ("/json/writer/matches-json-glib", test_writer_matches_json_glib);
  g_test_add_func ("/json/writer/string-escapes", test_writer_string_escapes);
  g_test_add_func ("/json/writer/non-finite", test_writer_non_finite);
  g_test_add_func ("/json/writer/numbers", test_writer_numbers);
  g_test_add_func ("/json/writer/doubles-as-printf", test_writer_doubles_as_printf);
  g_test_add_func ("/json/writer/misuse", test_writer_misuse);
  g_test_add_func ("/json/writer/document-value", test_writer_document_value);
  g_test_add_func ("/text/bytes-equal", test_bytes_equal);

  return g_test_run ();
}
