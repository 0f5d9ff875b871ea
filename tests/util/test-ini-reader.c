/* test-ini-reader.c: the one config.ini reader, and what reads through it
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <string.h>
#include <anot/anot.h>
#include "anot-ini-reader-private.h"

static void
test_values (void)
{
  static const char text[] =
    "# a comment\n"
    "  # an indented comment\n"
    "\n"
    "[default]\n"
    "model = gpt-4o-mini   \n"
    "  temperature=0\n"
    "[role lats.selection]\r\n"
    "model = m\r\n"
    "[prices]\n"
    "escaped = \\sa\\tb\\nc\\\\\n"
    "empty =\n"
    "[default]\n"
    "seed = 7\n";
  g_autoptr(GError) error = NULL;
  g_autoptr(AnotIniReader) reader = anot_ini_reader_new_from_data ("mem.ini", text, strlen (text), &error);
  g_auto(GStrv) sections = NULL;
  g_auto(GStrv) keys = NULL;
  g_autofree char *where = NULL;

  g_assert_no_error (error);
  sections = anot_ini_reader_list_sections (reader);
  g_assert_cmpuint (g_strv_length (sections), ==, 3);
  g_assert_cmpstr (sections[0], ==, "default");
  g_assert_cmpstr (sections[1], ==, "role lats.selection");
  g_assert_cmpstr (sections[2], ==, "prices");

  /* A repeated section is merged, in the order of the file. */
  keys = anot_ini_reader_list_keys (reader, "default");
  g_assert_cmpuint (g_strv_length (keys), ==, 3);
  g_assert_cmpstr (keys[2], ==, "seed");
  g_assert_cmpstr (anot_ini_reader_get_value (reader, "default", "model"), ==, "gpt-4o-mini");
  g_assert_cmpstr (anot_ini_reader_get_value (reader, "default", "temperature"), ==, "0");
  g_assert_cmpstr (anot_ini_reader_get_value (reader, "role lats.selection", "model"), ==, "m");
  /* GKeyFile's escapes; \s keeps a leading space, stripping stops at it. */
  g_assert_cmpstr (anot_ini_reader_get_value (reader, "prices", "escaped"), ==, "a\tb\nc\\");
  g_assert_cmpstr (anot_ini_reader_get_value (reader, "prices", "empty"), ==, "");
  g_assert_null (anot_ini_reader_get_value (reader, "prices", "absent"));
  g_assert_null (anot_ini_reader_get_value (reader, "absent", "model"));
  g_assert_false (anot_ini_reader_has_section (reader, "absent"));

  g_assert_cmpuint (anot_ini_reader_get_line (reader, "default", NULL), ==, 4);
  g_assert_cmpuint (anot_ini_reader_get_line (reader, "default", "temperature"), ==, 6);
  g_assert_cmpuint (anot_ini_reader_get_line (reader, "default", "seed"), ==, 13);
  g_assert_cmpuint (anot_ini_reader_get_line (reader, "role lats.selection", "model"), ==, 8);
  where = anot_ini_reader_where (reader, "default", "seed");
  g_assert_cmpstr (where, ==, "mem.ini:13 [default]");

  anot_ini_reader_set_error (reader, &error, "prices", "escaped", "bad %s", "thing");
  g_assert_error (error, ANOT_ERROR, ANOT_ERROR_CONFIG);
  g_assert_cmpstr (error->message, ==, "mem.ini:10: [prices] escaped: bad thing");
  g_clear_error (&error);
  anot_ini_reader_set_error (reader, &error, "prices", NULL, "whole section");
  g_assert_cmpstr (error->message, ==, "mem.ini:9: [prices]: whole section");
}

static void
test_syntax_errors (void)
{
  static const struct
  {
    const char *text;
    const char *message;
  } cases[] = {
    { "model = m\n", "bad.ini:1: key “model” before the first [SECTION]" },
    { "[default]\nmodel m\n", "bad.ini:2: [default]: expected KEY = VALUE or [SECTION], got “model m”" },
    { "[default]\n\n = m\n", "bad.ini:3: [default]: a value without a key" },
    { "[default\n", "bad.ini:1: expected a section header [NAME], got “[default”" },
    { "[]\n", "bad.ini:1: expected a section header [NAME], got “[]”" },
    { "[a]b]\n", "bad.ini:1: expected a section header [NAME], got “[a]b]”" },
    { "[default]\nmodel = a\\qb\n", "bad.ini:2: [default] model: invalid escape “\\q”" },
    { "[default]\nmodel = a\nseed = 1\nmodel = b\n",
      "bad.ini:4: [default] model: given twice (first on line 2)" },
    { "[default]\nmodel = \xff\n", "bad.ini:2: not valid UTF-8" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(AnotIniReader) reader = anot_ini_reader_new_from_data ("bad.ini", cases[i].text,
                                                                       strlen (cases[i].text), &error);

      g_assert_null (reader);
      g_assert_error (error, ANOT_ERROR, ANOT_ERROR_CONFIG);
      if (!g_str_has_prefix (error->message, cases[i].message))
        g_error ("case %u: “%s” does not start with “%s”", i, error->message, cases[i].message);
    }

  {
    g_autoptr(GError) error = NULL;
    g_autoptr(AnotIniReader) reader = anot_ini_reader_new_from_data ("nul.ini", "[a]\nx = 1\0\n", 10, &error);

    g_assert_null (reader);
    g_assert_error (error, ANOT_ERROR, ANOT_ERROR_CONFIG);
    g_assert_cmpstr (error->message, ==, "nul.ini:2: a NUL byte");
  }
  {
    g_autoptr(GError) error = NULL;
    g_autoptr(AnotIniReader) reader = anot_ini_reader_new_from_file ("/nonexistent/config.ini", &error);

    g_assert_null (reader);
    g_assert_error (error, ANOT_ERROR, ANOT_ERROR_CONFIG);
    g_assert_nonnull (strstr (error->message, "/nonexistent/config.ini"));
  }
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/ini-reader/values", test_values);
  g_test_add_func ("/ini-reader/syntax-errors", test_syntax_errors);
  return g_test_run ();
}
