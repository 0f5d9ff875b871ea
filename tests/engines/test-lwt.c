/* test-lwt.c: the LWT script parser, templates and layering (no LLM)
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <anot/anot.h>
#include <string.h>

static AnotLwtScript *
parse_ok (const char        *text,
          AnotLwtParseFlags  flags)
{
  g_autoptr(GError) error = NULL;
  AnotLwtScript *script = anot_lwt_script_parse (text, flags, &error);

  g_assert_no_error (error);
  g_assert_nonnull (script);
  return script;
}

static char *
layers_string (AnotLwtScript *script)
{
  GString *out = g_string_new (NULL);

  for (guint i = 0; i < anot_lwt_script_get_n_layers (script); i++)
    {
      g_auto(GStrv) ids = anot_lwt_script_list_layer (script, i);
      g_autofree char *joined = g_strjoinv (",", ids);

      if (i > 0)
        g_string_append_c (out, '|');
      g_string_append (out, joined);
    }
  return g_string_free (out, FALSE);
}

static JsonObject *
values_from (const char *json)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) node = json_from_string (json, &error);

  g_assert_no_error (error);
  return json_object_ref (json_node_get_object (node));
}

/* ------------------------------------------------------------------------ */

static void
test_valid_scripts (void)
{
  const struct {
    const char *text;
    const char *ids;            /* comma-separated, script order */
    const char *instructions;   /* joined with '|' */
  } cases[] = {
    { "(0)=LLM(\"a\")", "0", "a" },
    { "(0) = LLM ( \"a\" )", "0", "a" },
    { "(0)=LLM('a')", "0", "a" },
    { "  (c1)=LLM(\"x\")  \n\n(final)=LLM('y')\n", "c1,final", "x|y" },
    { "# a comment\n// another\n(2.rev.0)=LLM(\"x\")  # trailing comment", "2.rev.0", "x" },
    /* Escapes. */
    { "(0)=LLM(\"say \\\"hi\\\" \\\\ now\\n\\tok\")", "0", "say \"hi\" \\ now\n\tok" },
    { "(0)=LLM('it\\'s')", "0", "it's" },
    { "(0)=LLM(\"keep \\d and \\x\")", "0", "keep \\d and \\x" },
    /* Apostrophes and inner quotes need no escape unless followed by ")". */
    { "(0)=LLM('that's the one')", "0", "that's the one" },
    { "(0)=LLM(\"a \"quoted\" word\")", "0", "a \"quoted\" word" },
    { "(0)=LLM(\"call f(x) now\")", "0", "call f(x) now" },
    /* Multi-line strings. */
    { "(0)=LLM(\"line one\nline two\")\n(1)=LLM(\"b\")", "0,1", "line one\nline two|b" },
    { "(0)=LLM(\"\"\"has \"quotes\") inside\nand lines\"\"\")", "0", "has \"quotes\") inside\nand lines" },
    { "(0)=LLM(\n  \"spread\"\n)", "0", "spread" },
    { "(0)=LLM(\"joined \\\nline\")", "0", "joined line" },
    /* CRLF line ends. */
    { "(0)=LLM(\"a\")\r\n(1)=LLM(\"b\")\r\n", "0,1", "a|b" },
    /* Non-ASCII text. */
    { "(0)=LLM(\"Caf\xc3\xa9 \xe2\x80\x94 ok\")", "0", "Caf\xc3\xa9 \xe2\x80\x94 ok" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(AnotLwtScript) script = NULL;
      g_autoptr(GString) ids = g_string_new (NULL);
      g_autoptr(GString) instructions = g_string_new (NULL);

      g_test_message ("script %u: %s", i, cases[i].text);
      script = parse_ok (cases[i].text, ANOT_LWT_PARSE_FLAGS_NONE);
      for (guint s = 0; s < anot_lwt_script_get_n_steps (script); s++)
        {
          AnotLwtStep *step = anot_lwt_script_get_step (script, s);

          g_string_append_printf (ids, "%s%s", s ? "," : "", anot_lwt_step_get_id (step));
          g_string_append_printf (instructions, "%s%s", s ? "|" : "",
                                  anot_lwt_step_get_instruction (step));
        }
      g_assert_cmpstr (ids->str, ==, cases[i].ids);
      g_assert_cmpstr (instructions->str, ==, cases[i].instructions);
      g_assert_cmpuint (g_strv_length ((GStrv) anot_lwt_script_get_warnings (script)), ==, 0);

      /* The same script, lenient, reads the same. */
      {
        g_autoptr(AnotLwtScript) lenient = parse_ok (cases[i].text, ANOT_LWT_PARSE_FLAGS_LENIENT);
        g_autofree char *a = anot_lwt_script_to_string (script);
        g_autofree char *b = anot_lwt_script_to_string (lenient);

        g_assert_cmpstr (a, ==, b);
      }

      /* What to_string writes parses back to the same steps. */
      {
        g_autofree char *text = anot_lwt_script_to_string (script);
        g_autoptr(AnotLwtScript) again = parse_ok (text, ANOT_LWT_PARSE_FLAGS_NONE);
        g_autofree char *text_again = anot_lwt_script_to_string (again);

        g_assert_cmpstr (text_again, ==, text);
        g_assert_cmpuint (anot_lwt_script_get_n_steps (again), ==, anot_lwt_script_get_n_steps (script));
        for (guint s = 0; s < anot_lwt_script_get_n_steps (script); s++)
          g_assert_cmpstr (anot_lwt_step_get_instruction (anot_lwt_script_get_step (again, s)), ==,
                           anot_lwt_step_get_instruction (anot_lwt_script_get_step (script, s)));
      }
    }
}

static void
test_positions (void)
{
  g_autoptr(AnotLwtScript) script =
    parse_ok ("\n  (a)=LLM(\"x\")\n# c\n\t(b)=LLM(\"multi\nline\")\n(z)=LLM('z')",
              ANOT_LWT_PARSE_FLAGS_NONE);

  g_assert_cmpuint (anot_lwt_step_get_line (anot_lwt_script_get_step (script, 0)), ==, 2);
  g_assert_cmpuint (anot_lwt_step_get_column (anot_lwt_script_get_step (script, 0)), ==, 3);
  g_assert_cmpuint (anot_lwt_step_get_line (anot_lwt_script_get_step (script, 1)), ==, 4);
  g_assert_cmpuint (anot_lwt_step_get_column (anot_lwt_script_get_step (script, 1)), ==, 2);
  /* Line counting continues after a multi-line string. */
  g_assert_cmpuint (anot_lwt_step_get_line (anot_lwt_script_get_step (script, 2)), ==, 6);
  g_assert_cmpuint (anot_lwt_step_get_column (anot_lwt_script_get_step (script, 2)), ==, 1);
}

static void
test_errors (void)
{
  const struct {
    const char *text;
    gint code;
    const char *position;   /* "line L, column C" or NULL */
    const char *fragment;
  } cases[] = {
    { "", ANOT_ERROR_PARSE, NULL, "no steps" },
    { "\n# only a comment\n", ANOT_ERROR_PARSE, NULL, "no steps" },
    { "Here is the script:\n(0)=LLM(\"a\")", ANOT_ERROR_PARSE, "line 1, column 1", "expected a step" },
    { "(0)=LLM(\"a\")\n  x", ANOT_ERROR_PARSE, "line 2, column 3", "expected a step" },
    { "()=LLM(\"a\")", ANOT_ERROR_PARSE, "line 1, column 2", "expected a step id" },
    { "(a b)=LLM(\"a\")", ANOT_ERROR_PARSE, "line 1, column 4", "expected “)” after the step id “a”" },
    { "(0=LLM(\"a\")", ANOT_ERROR_PARSE, "line 1, column 3", "expected “)”" },
    { "(0)LLM(\"a\")", ANOT_ERROR_PARSE, "line 1, column 4", "expected “=”" },
    { "(0)=GPT(\"a\")", ANOT_ERROR_PARSE, "line 1, column 5", "expected “LLM(”" },
    { "(0)=LLM \"a\"", ANOT_ERROR_PARSE, "line 1, column 9", "expected “(” after “LLM”" },
    { "(0)=LLM()", ANOT_ERROR_PARSE, "line 1, column 9", "empty LLM()" },
    { "(0)=LLM(a)", ANOT_ERROR_PARSE, "line 1, column 9", "expected a quoted instruction" },
    { "(0)=LLM(\"never closed", ANOT_ERROR_PARSE, "line 1, column 9", "unterminated string" },
    { "(0)=LLM(\"closed by the wrong quote')", ANOT_ERROR_PARSE, "line 1, column 9", "unterminated string" },
    { "(0)=LLM(\"open\n(1)=LLM(\"b\")", ANOT_ERROR_PARSE, "line 1, column 9", "the next line starts a new step" },
    { "(0)=LLM(\"a\")\n\n  (1)=LLM('''never", ANOT_ERROR_PARSE, "line 3, column 11", "unterminated string" },
    { "(0)=LLM(\"\"\"x\"\"\" y)", ANOT_ERROR_PARSE, "line 1, column 17", "expected “)” after the instruction" },
    { "(0)=LLM(\"a\") (1)=LLM(\"b\")", ANOT_ERROR_PARSE, "line 1, column 14", "one step per line" },
    { "(0)=LLM(\"a\")\n(1)=LLM(\"b\")\n(0)=LLM(\"c\")", ANOT_ERROR_DUPLICATE_ID, "line 3, column 1", "duplicate step id “0” (first defined on line 1)" },
    { "(0)=LLM(\"a\")\n(1)=LLM(\"use {(x)}\")", ANOT_ERROR_UNKNOWN_REFERENCE, "line 2, column 1", "refers to “x”" },
    { "(0)=LLM(\"me {(0)}\")", ANOT_ERROR_INVALID_ARGUMENT, "line 1, column 1", "refers to itself" },
    { "(a)=LLM(\"{(b)}\")\n(b)=LLM(\"{(e)}\")\n(e)=LLM(\"{(a)}\")", ANOT_ERROR_INVALID_ARGUMENT, NULL, "cycle: a → b → e → a" },
    { "(x)=LLM(\"{x2}\")\n(x2)=LLM(\"{x}\")", ANOT_ERROR_INVALID_ARGUMENT, NULL, "cycle: x → x2 → x" },
    { "(query)=LLM(\"a\")", ANOT_ERROR_INVALID_ARGUMENT, "line 1, column 1", "reserved name" },
    { "(0)=LLM(\"ok\")\n(1)=LLM(\"bad \xff byte\")", ANOT_ERROR_PARSE, "line 2, column 14", "not UTF-8" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(AnotLwtScript) script = anot_lwt_script_parse (cases[i].text,
                                                               ANOT_LWT_PARSE_FLAGS_NONE, &error);

      g_test_message ("case %u: %s", i, error ? error->message : "(parsed)");
      g_assert_null (script);
      g_assert_error (error, ANOT_ERROR, cases[i].code);
      if (cases[i].position != NULL)
        g_assert_true (g_str_has_prefix (error->message, cases[i].position));
      g_assert_nonnull (strstr (error->message, cases[i].fragment));
    }
}

static void
test_layers (void)
{
  const struct {
    const char *text;
    const char *layers;
    const char *output;
    const char *deps;   /* of the output step */
  } cases[] = {
    { "(0)=LLM(\"a\")\n(1)=LLM(\"b\")\n(2)=LLM(\"c\")", "0,1,2", "2", "" },
    /* The original's shape: N item steps and an aggregation. */
    { "(0)=LLM(\"a\")\n(1)=LLM(\"b\")\n(2)=LLM(\"Scores: {(0)}, {(1)}\")", "0,1|2", "2", "0,1" },
    /* Bare {idx} references, as in the seed. */
    { "(0)=LLM(\"a\")\n(1)=LLM(\"b\")\n(10)=LLM(\"Scores: {0}, {1}\")", "0,1|10", "10", "0,1" },
    /* A chain and a diamond; layers keep script order. */
    { "(d)=LLM(\"{(b)} {(e)}\")\n(b)=LLM(\"{(a)}\")\n(a)=LLM(\"x\")\n(e)=LLM(\"{(a)}\")",
      "a|b,e|d", "d", "b,e" },
    /* Dependencies once each, in order of first reference. */
    { "(a)=LLM(\"x\")\n(b)=LLM(\"y\")\n(e)=LLM(\"{(b)} {(a)} {(b)}[0] {b}\")", "a,b|e", "e", "b,a" },
    /* Reserved names are never dependencies. */
    { "(a)=LLM(\"{(query)} {(context)}[1][name] {items} {input} {c} {candidates}\")", "a", "a", "" },
    /* Unknown bare names are text, not dependencies. */
    { "(a)=LLM(\"x\")\n(b)=LLM(\"{score} {a} {1}\")", "a|b", "b", "a" },
    /* The output is the last step of the last layer, not of the script. */
    { "(final)=LLM(\"{(x)}\")\n(x)=LLM(\"a\")\n(y)=LLM(\"b\")", "x,y|final", "final", "x" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(AnotLwtScript) script = parse_ok (cases[i].text, ANOT_LWT_PARSE_FLAGS_NONE);
      g_autofree char *layers = layers_string (script);
      AnotLwtStep *last = anot_lwt_script_get_output_step (script);
      g_autofree char *deps = g_strjoinv (",", (GStrv) anot_lwt_step_get_dependencies (last));

      g_test_message ("case %u", i);
      g_assert_cmpstr (layers, ==, cases[i].layers);
      g_assert_cmpstr (anot_lwt_step_get_id (anot_lwt_script_get_output_step (script)), ==,
                       cases[i].output);
      g_assert_cmpstr (deps, ==, cases[i].deps);
      g_assert_false (anot_lwt_script_has_cycle (script));

      for (guint s = 0; s < anot_lwt_script_get_n_steps (script); s++)
        {
          AnotLwtStep *step = anot_lwt_script_get_step (script, s);
          const char * const *step_deps = anot_lwt_step_get_dependencies (step);
          int layer = anot_lwt_script_get_step_layer (script, anot_lwt_step_get_id (step));

          /* Every dependency is in an earlier layer, and the step is in
           * the first layer after its dependencies. */
          int max_dep = -1;

          for (guint d = 0; step_deps[d] != NULL; d++)
            {
              int dep_layer = anot_lwt_script_get_step_layer (script, step_deps[d]);

              g_assert_cmpint (dep_layer, <, layer);
              max_dep = MAX (max_dep, dep_layer);
            }
          g_assert_cmpint (layer, ==, max_dep + 1);
        }
    }

  {
    g_autoptr(AnotLwtScript) script = parse_ok ("(a)=LLM(\"x\")", ANOT_LWT_PARSE_FLAGS_NONE);

    g_assert_cmpint (anot_lwt_script_get_step_layer (script, "nope"), ==, -1);
    g_assert_null (anot_lwt_script_lookup_step (script, "nope"));
    g_assert_nonnull (anot_lwt_script_lookup_step (script, "a"));
  }
}

static void
test_built_scripts (void)
{
  g_autoptr(AnotLwtScript) script = anot_lwt_script_new ();
  g_autoptr(GError) error = NULL;
  g_autofree char *layers = NULL;
  g_autofree char *text = NULL;
  g_autoptr(AnotLwtScript) parsed = NULL;

  g_assert_false (anot_lwt_script_validate (script, &error));
  g_assert_error (error, ANOT_ERROR, ANOT_ERROR_PARSE);
  g_clear_error (&error);

  /* Steps may refer to steps added later. */
  g_assert_nonnull (anot_lwt_script_add_step (script, "agg", "Scores: {(0)}, {(1)}", &error));
  g_assert_nonnull (anot_lwt_script_add_step (script, "0", "Say \"5\"\nnow", &error));
  g_assert_false (anot_lwt_script_validate (script, &error));
  g_assert_error (error, ANOT_ERROR, ANOT_ERROR_UNKNOWN_REFERENCE);
  g_clear_error (&error);
  g_assert_nonnull (anot_lwt_script_add_step (script, "1", "b", &error));
  g_assert_no_error (error);
  g_assert_true (anot_lwt_script_validate (script, &error));
  g_assert_no_error (error);
  layers = layers_string (script);
  g_assert_cmpstr (layers, ==, "0,1|agg");

  g_assert_null (anot_lwt_script_add_step (script, "1", "again", &error));
  g_assert_error (error, ANOT_ERROR, ANOT_ERROR_DUPLICATE_ID);
  g_clear_error (&error);
  g_assert_null (anot_lwt_script_add_step (script, "a b", "x", &error));
  g_assert_error (error, ANOT_ERROR, ANOT_ERROR_INVALID_ARGUMENT);
  g_clear_error (&error);

  /* A built script written out and parsed back is the same script. */
  text = anot_lwt_script_to_string (script);
  g_assert_cmpstr (text, ==, "(agg)=LLM(\"Scores: {(0)}, {(1)}\")\n(0)=LLM(\"Say \\\"5\\\"\\nnow\")\n(1)=LLM(\"b\")");
  parsed = parse_ok (text, ANOT_LWT_PARSE_FLAGS_NONE);
  g_assert_cmpstr (anot_lwt_step_get_instruction (anot_lwt_script_get_step (parsed, 1)), ==,
                   "Say \"5\"\nnow");
}

static void
test_validate_order (void)
{
  /* anot_lwt_script_validate() happens after the first error-free parse. */
  g_autoptr(GError) error = NULL;
  g_autoptr(AnotLwtScript) script = anot_lwt_script_parse ("(0)=LLM(\"{(1)}\")\n(1)=LLM(\"x\")",
                                                           ANOT_LWT_PARSE_FLAGS_NONE, &error);

  /* A reference to a later step is fine. */
  g_assert_no_error (error);
  g_assert_cmpuint (anot_lwt_script_get_n_layers (script), ==, 2);
}

static void
test_lenient (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(AnotLwtScript) script = NULL;
  const char * const *warnings;
  g_autofree char *layers = NULL;

  script = parse_ok ("Here is my plan:\n"
                     "1. (0)=LLM(\"first\") because reasons\n"
                     "(1)=LLM(\"broken\n"
                     "(2)=LLM('{(0)} and {(1)}')\n"
                     "The LLM( call above is odd\n"
                     "(0)=LLM(\"first, again\")\n"
                     "(a)=LLM(\"{(b)}\")\n(b)=LLM(\"{(a)}\")\n",
                     ANOT_LWT_PARSE_FLAGS_LENIENT);

  g_assert_cmpuint (anot_lwt_script_get_n_steps (script), ==, 4);
  /* The later (0) replaced the earlier one, in its place. */
  g_assert_cmpstr (anot_lwt_step_get_id (anot_lwt_script_get_step (script, 0)), ==, "0");
  g_assert_cmpstr (anot_lwt_step_get_instruction (anot_lwt_script_get_step (script, 0)), ==,
                   "first, again");
  g_assert_cmpstr (anot_lwt_step_get_id (anot_lwt_script_get_step (script, 1)), ==, "2");

  warnings = anot_lwt_script_get_warnings (script);
  g_assert_cmpuint (g_strv_length ((GStrv) warnings), ==, 3);
  g_assert_nonnull (strstr (warnings[0], "line 3, column 9: unterminated string"));
  g_assert_nonnull (strstr (warnings[1], "line 5"));
  g_assert_nonnull (strstr (warnings[2], "line 6: step “0” replaces the one on line 2"));

  /* (1) was skipped, so {(1)} is no dependency; the cycle runs last. */
  g_assert_true (anot_lwt_script_has_cycle (script));
  layers = layers_string (script);
  g_assert_cmpstr (layers, ==, "0|2|a,b");
  g_assert_false (anot_lwt_script_validate (script, &error));
  g_assert_error (error, ANOT_ERROR, ANOT_ERROR_UNKNOWN_REFERENCE);
  g_clear_error (&error);

  g_assert_null (anot_lwt_script_parse ("no steps here\nnone at all", ANOT_LWT_PARSE_FLAGS_LENIENT,
                                        &error));
  g_assert_error (error, ANOT_ERROR, ANOT_ERROR_PARSE);
  g_clear_error (&error);
  g_assert_null (anot_lwt_script_parse ("(0)=LLM(\"unclosed", ANOT_LWT_PARSE_FLAGS_LENIENT, &error));
  g_assert_error (error, ANOT_ERROR, ANOT_ERROR_PARSE);
  g_assert_nonnull (strstr (error->message, "unterminated string"));
}

static void
test_render (void)
{
  g_autoptr(JsonObject) values = values_from (
    "{\"query\": \"a quiet cafe\","
    " \"context\": {\"1\": {\"name\": \"Milkcrate\", \"attributes\": {\"WiFi\": \"free\", \"DriveThru\": true,"
    "                                                   \"Ambience\": {\"hipster\": true}},"
    "                      \"stars\": 4.5, \"hours\": null,"
    "                      \"reviews\": [{\"text\": \"Great coffee and a quiet corner\"}, {\"text\": \"Loud\"}]}},"
    " \"0\": \"7\","
    " \"r\": \"['yes', 'no', {'k': True}]\","
    " \"j\": \"{\\\"a\\\": [1, 2, 3]}\"}");
  const struct {
    const char *instruction;
    const char *rendered;
  } cases[] = {
    { "Request: {(query)}", "Request: a quiet cafe" },
    { "Score {(0)} and {0}", "Score 7 and 7" },
    { "{(context)}[1][name]", "Milkcrate" },
    { "{(context)}[1][attributes][WiFi]!", "free!" },
    { "{(context)}[1][attributes][DriveThru]", "True" },
    { "{(context)}[1][attributes][Ambience]", "{\"hipster\":true}" },
    { "{(context)}[1]['attributes'][\"Ambience\"][hipster]", "True" },
    { "{(context)}[1][stars] {(context)}[1][hours]", "4.5 None" },
    { "{(context)}[1][reviews][0][text][0:5]", "Great" },
    { "{(context)}[1][reviews][-1][text]", "Loud" },
    { "{(context)}[1][reviews][0][text][-6:]", "corner" },
    { "{(context)}[1][reviews][0][text][:5]", "Great" },
    { "{(context)}[1][reviews][0][text][0]", "G" },
    { "{(context)}[1][reviews][1:][0][text]", "Loud" },
    /* Step outputs read as Python literals or JSON when accessed. */
    { "{(r)}[0] {(r)}[1] {(r)}[2][k]", "yes no True" },
    { "{(j)}[a][1] {(j)}[a]", "2 [1,2,3]" },
    /* What cannot be followed reads as nothing. */
    { "[{(context)}[9][name]][{(context)}[1][nope]][{(0)}[x]][{(missing)}]", "[][][][]" },
    { "{(context)}[1][name][99]", "" },
    /* Bare names that name nothing stay text; escapes are braces. */
    { "{score} {missing} {{(0)}} {{x}} }{", "{score} {missing} {(0)} {x} }{" },
    { "{(Looking for a cafe)} {(query", "{(Looking for a cafe)} {(query" },
    /* Brackets that are not accessors stay text. */
    { "{(0)} [note] {(0)}[] {(0)}[1:2:3]", "7 [note] 7[] " },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(AnotLwtScript) script = anot_lwt_script_new ();
      g_autoptr(GError) error = NULL;
      AnotLwtStep *step = anot_lwt_script_add_step (script, "s", cases[i].instruction, &error);
      g_autofree char *rendered = NULL;

      g_assert_no_error (error);
      rendered = anot_lwt_step_render (step, values, 0);
      g_test_message ("render %s → %s", cases[i].instruction, rendered);
      g_assert_cmpstr (rendered, ==, cases[i].rendered);
    }

  /* Without values, {(x)} reads as nothing and {x} as text unless x is a
   * step of the script. */
  {
    g_autoptr(AnotLwtScript) script = parse_ok ("(a)=LLM(\"x\")\n(b)=LLM(\"{a}|{(a)}|{z}|{(query)}\")",
                                                ANOT_LWT_PARSE_FLAGS_NONE);
    g_autofree char *rendered = anot_lwt_step_render (anot_lwt_script_get_step (script, 1), NULL, 0);
    g_auto(GStrv) references = anot_lwt_step_list_references (anot_lwt_script_get_step (script, 1));
    g_autofree char *joined = g_strjoinv (",", references);

    g_assert_cmpstr (rendered, ==, "||{z}|");
    g_assert_cmpstr (joined, ==, "a,query");
  }
}

static void
test_render_truncation (void)
{
  g_autoptr(GString) long_text = g_string_new (NULL);
  g_autoptr(JsonObject) values = json_object_new ();
  g_autoptr(AnotLwtScript) script = anot_lwt_script_new ();
  AnotLwtStep *step;
  g_autofree char *rendered = NULL;
  g_autofree char *full = NULL;

  for (guint i = 0; i < 100; i++)
    g_string_append_printf (long_text, "%c", 'a' + (i % 26));
  json_object_set_string_member (values, "x", long_text->str);
  step = anot_lwt_script_add_step (script, "s", "<{(x)}>", NULL);

  /* 40 characters: the first 20 and the last 10 around the marker. */
  rendered = anot_lwt_step_render (step, values, 40);
  g_assert_cmpstr (rendered, ==, "<abcdefghijklmnopqrst\n...[TRUNCATED]...\nmnopqrstuv>");
  full = anot_lwt_step_render (step, values, 100);
  g_assert_cmpuint (strlen (full), ==, 102);
}

/* ------------------------------------------------------------------------ */

static char *
corpus_path (void)
{
  const char *philly = g_getenv ("ANOT_PHILLY_DATA");
  g_autofree char *parent = NULL;

  if (philly == NULL)
    return NULL;
  parent = g_path_get_dirname (philly);
  return g_build_filename (parent, "llm_outputs", "llm_outputs.jsonl", NULL);
}

static int
compare_strings (gconstpointer a,
                 gconstpointer b)
{
  return strcmp (*(const char **) a, *(const char **) b);
}

/* Every LWT script the original framework received and executed parses to
 * the steps it executed. */
static void
test_corpus (void)
{
  g_autofree char *path = corpus_path ();
  g_autofree char *contents = NULL;
  g_auto(GStrv) lines = NULL;
  guint n_scripts = 0, n_expected = 0, n_matched = 0, n_parsed = 0, n_strict = 0;
  guint n_steps = 0;

  if (path == NULL || !g_file_get_contents (path, &contents, NULL, NULL))
    {
      g_test_skip ("llm_outputs.jsonl not found next to the philly_cafes benchmark");
      return;
    }

  lines = g_strsplit (contents, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    {
      g_autoptr(JsonNode) node = NULL;
      JsonObject *entry;
      const char *text;
      g_autoptr(AnotLwtScript) script = NULL;
      g_autoptr(AnotLwtScript) strict = NULL;
      g_autoptr(GError) error = NULL;

      if (lines[i][0] == '\0')
        continue;
      node = json_from_string (lines[i], NULL);
      g_assert_nonnull (node);
      entry = json_node_get_object (node);
      if (g_strcmp0 (json_object_get_string_member (entry, "kind"), "lwt_script") != 0)
        continue;

      n_scripts++;
      text = json_object_get_string_member (entry, "text");
      script = anot_lwt_script_parse (text, ANOT_LWT_PARSE_FLAGS_LENIENT, &error);
      strict = anot_lwt_script_parse (text, ANOT_LWT_PARSE_FLAGS_NONE, NULL);
      if (strict != NULL)
        n_strict++;
      if (script != NULL)
        {
          n_parsed++;
          n_steps += anot_lwt_script_get_n_steps (script);
          /* Layering and rendering work on everything that parses. */
          g_assert_cmpuint (anot_lwt_script_get_n_layers (script), >, 0);
          for (guint s = 0; s < anot_lwt_script_get_n_steps (script); s++)
            g_free (anot_lwt_step_render (anot_lwt_script_get_step (script, s), NULL, 8000));
        }

      if (json_object_has_member (entry, "expected") &&
          g_strcmp0 (json_object_get_string_member (entry, "parser"),
                     "parse_script -> executed step ids") == 0)
        {
          JsonArray *expected = json_object_get_array_member (entry, "expected");
          g_autoptr(GPtrArray) ids = g_ptr_array_new ();
          g_autoptr(GString) got = g_string_new (NULL);
          g_autoptr(GString) want = g_string_new (NULL);

          n_expected++;
          if (script == NULL)
            {
              g_test_message ("not parsed: %s: %s", error->message, text);
              continue;
            }
          for (guint s = 0; s < anot_lwt_script_get_n_steps (script); s++)
            g_ptr_array_add (ids, (gpointer) anot_lwt_step_get_id (anot_lwt_script_get_step (script, s)));
          g_ptr_array_sort (ids, compare_strings);
          for (guint s = 0; s < ids->len; s++)
            g_string_append_printf (got, "%s,", (char *) g_ptr_array_index (ids, s));
          for (guint s = 0; s < json_array_get_length (expected); s++)
            g_string_append_printf (want, "%s,", json_array_get_string_element (expected, s));
          if (g_strcmp0 (got->str, want->str) == 0)
            n_matched++;
          else
            g_test_message ("ids %s, expected %s: %s", got->str, want->str, text);
        }
    }

  g_test_message ("%u LWT scripts: %u parse leniently (%u steps), %u strictly; "
                  "%u of %u executed-id records match",
                  n_scripts, n_parsed, n_steps, n_strict, n_matched, n_expected);
  g_assert_cmpuint (n_scripts, >, 1000);
  g_assert_cmpuint (n_expected, >, 600);
  g_assert_cmpuint (n_matched, ==, n_expected);
  /* Only scripts the traces stored cut off mid-string may fail. */
  g_assert_cmpuint (n_parsed, >=, n_scripts - 5);
}

/* ------------------------------------------------------------------------ */

/* Mutations of valid scripts: whatever the bytes, parsing, layering and
 * rendering return normally (run under ASan in CI). */
static void
test_never_crash (void)
{
  static const char *seeds[] = {
    "(0)=LLM(\"Evaluate {(context)}[1][attributes][WiFi]. Output: <score>\")\n(1)=LLM('x')\n(2)=LLM(\"{(0)} {1}\")",
    "(a)=LLM(\"\"\"multi\nline {(b)}[0:3]\"\"\")\n(b)=LLM('it\\'s {{ok}}')\n# c\n",
    "(final)=LLM(\"{(c1)}[x][-1] {c2}\")\n(c1)=LLM(\"[1, 2]\")\n(c2)=LLM(\"{(final)}\")",
  };
  static const char *pieces[] = {
    "(", ")", "=", "LLM", "\"", "'", "\"\"\"", "\\", "{", "}", "{(", ")}", "[", "]", ":", "-1",
    "\n", " ", "#", "0", "a", "\xc3\xa9", "\xe2\x80\x94", "{(0)}", "[0:2]", "\r", ".", "_",
  };
  g_autoptr(JsonObject) values = values_from (
    "{\"0\": \"[1, 2, {'x': 3}]\", \"1\": \"{\\\"k\\\": [\\\"v\\\"]}\", \"a\": \"abc\","
    " \"context\": {\"1\": {\"attributes\": {\"WiFi\": \"free\"}}}, \"c1\": \"\\u00e9t\\u00e9\"}");
  g_autoptr(GRand) rand = g_rand_new_with_seed (424242);
  guint n_parsed = 0, n_failed = 0;

  for (guint round = 0; round < 30000; round++)
    {
      g_autoptr(GString) text = g_string_new (seeds[round % G_N_ELEMENTS (seeds)]);
      guint n_mutations = g_rand_int_range (rand, 1, 6);
      AnotLwtParseFlags flags = (round & 1) ? ANOT_LWT_PARSE_FLAGS_LENIENT : ANOT_LWT_PARSE_FLAGS_NONE;
      g_autoptr(AnotLwtScript) script = NULL;
      g_autoptr(GError) error = NULL;

      for (guint m = 0; m < n_mutations; m++)
        {
          guint at = g_rand_int_range (rand, 0, text->len + 1);
          const char *piece = pieces[g_rand_int_range (rand, 0, G_N_ELEMENTS (pieces))];

          switch (g_rand_int_range (rand, 0, 3))
            {
            case 0:
              g_string_insert (text, at, piece);
              break;
            case 1:
              if (at < text->len)
                {
                  /* Not inside MIN(): it would draw twice. */
                  gsize len = g_rand_int_range (rand, 1, 8);

                  g_string_erase (text, at, MIN (text->len - at, len));
                }
              break;
            default:
              /* A raw byte, possibly breaking UTF-8. */
              if (at < text->len)
                text->str[at] = (char) g_rand_int_range (rand, 1, 256);
            }
        }

      script = anot_lwt_script_parse (text->str, flags, &error);
      if (script == NULL)
        {
          g_assert_nonnull (error);
          g_assert_true (g_utf8_validate (error->message, -1, NULL));
          n_failed++;
          continue;
        }
      n_parsed++;
      g_assert_cmpuint (anot_lwt_script_get_n_steps (script), >, 0);
      g_assert_cmpuint (anot_lwt_script_get_n_layers (script), >, 0);
      g_assert_nonnull (anot_lwt_script_get_output_step (script));
      for (guint s = 0; s < anot_lwt_script_get_n_steps (script); s++)
        {
          AnotLwtStep *step = anot_lwt_script_get_step (script, s);
          g_autofree char *rendered = anot_lwt_step_render (step, values, round % 50);
          g_auto(GStrv) references = anot_lwt_step_list_references (step);

          g_assert_true (g_utf8_validate (rendered, -1, NULL));
        }

      /* What to_string writes parses back, strictly when it came strictly. */
      {
        g_autofree char *written = anot_lwt_script_to_string (script);
        g_autoptr(AnotLwtScript) again = anot_lwt_script_parse (written, flags, &error);

        g_assert_no_error (error);
        g_assert_cmpuint (anot_lwt_script_get_n_steps (again), ==, anot_lwt_script_get_n_steps (script));
      }
    }

  g_test_message ("%u parsed, %u rejected", n_parsed, n_failed);
  g_assert_cmpuint (n_parsed, >, 1000);
  g_assert_cmpuint (n_failed, >, 1000);
}

/* Prints the parser's throughput on a large script (and checks it parses). */
static void
test_parser_speed (void)
{
  g_autoptr(GString) text = g_string_new (NULL);
  g_autoptr(AnotLwtScript) script = NULL;
  g_autoptr(GTimer) timer = g_timer_new ();
  const guint n = 20000;
  double seconds;

  for (guint i = 0; i < n; i++)
    g_string_append_printf (text,
                            "(%u)=LLM(\"Evaluate item %u for: {(query)}. WiFi: {(context)}[%u][attributes][WiFi]. "
                            "Reviews: {(context)}[%u][reviews][0][text][0:200]. Output: <score>\")\n",
                            i, i, i + 1, i + 1);
  g_string_append (text, "(agg)=LLM(\"Scores:");
  for (guint i = 0; i < n; i++)
    g_string_append_printf (text, " {(%u)}", i);
  g_string_append (text, "\")\n");

  g_timer_start (timer);
  script = parse_ok (text->str, ANOT_LWT_PARSE_FLAGS_NONE);
  g_assert_cmpuint (anot_lwt_script_get_n_layers (script), ==, 2);
  seconds = g_timer_elapsed (timer, NULL);

  g_assert_cmpuint (anot_lwt_script_get_n_steps (script), ==, n + 1);
  g_test_message ("parsed and layered %u steps (%.1f MiB) in %.1f ms: %.1f MiB/s, %.2f µs per step",
                  n + 1, text->len / 1048576.0, seconds * 1000,
                  text->len / 1048576.0 / seconds, seconds * 1e6 / (n + 1));
  if (g_test_verbose ())
    g_printerr ("LWT parser: %.1f MiB/s, %.2f µs per step\n",
                text->len / 1048576.0 / seconds, seconds * 1e6 / (n + 1));
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);

  g_test_add_func ("/lwt/valid", test_valid_scripts);
  g_test_add_func ("/lwt/positions", test_positions);
  g_test_add_func ("/lwt/errors", test_errors);
  g_test_add_func ("/lwt/layers", test_layers);
  g_test_add_func ("/lwt/built", test_built_scripts);
  g_test_add_func ("/lwt/forward-reference", test_validate_order);
  g_test_add_func ("/lwt/lenient", test_lenient);
  g_test_add_func ("/lwt/render", test_render);
  g_test_add_func ("/lwt/render-truncation", test_render_truncation);
  g_test_add_func ("/lwt/corpus", test_corpus);
  g_test_add_func ("/lwt/never-crash", test_never_crash);
  g_test_add_func ("/lwt/parser-speed", test_parser_speed);

  return g_test_run ();
}
