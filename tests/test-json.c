/* test-json.c: the HTTP client's JSON reader and writer against json-glib
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "anot-json-private.h"

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

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);

  g_test_add_func ("/json/values", test_values);
  g_test_add_func ("/json/large-integers", test_large_integers_become_doubles);
  g_test_add_func ("/json/invalid", test_invalid);
  g_test_add_func ("/json/benchmark-files", test_benchmark_files);

  return g_test_run ();
}
