/* test-cli.c: the anot-run command line
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <anot/anot.h>

#include "anot-test-data.h"
#include <glib/gstdio.h>
#include <signal.h>
#include <string.h>

typedef struct
{
  char *root;
} Fixture;

static void
fixture_setup (Fixture       *f,
               gconstpointer  data)
{
  g_autoptr(GError) error = NULL;

  f->root = g_dir_make_tmp ("anot-test-cli-XXXXXX", &error);
  g_assert_no_error (error);
}

static void
fixture_teardown (Fixture       *f,
                  gconstpointer  data)
{
  anot_test_remove_tree (f->root);
  g_free (f->root);
}

static const char *
anot_run_path (void)
{
  const char *path = g_getenv ("ANOT_RUN");

  g_assert_nonnull (path);
  return path;
}

/* Runs anot-run with the given arguments (NULL-terminated) and returns its
 * exit status; stdout and stderr are returned when asked for, replacing
 * (and freeing) what an earlier call left there, so a test can reuse one
 * variable. */
static int
run_cli (char       **out_stdout,
         char       **out_stderr,
         const char  *first,
         ...) G_GNUC_NULL_TERMINATED;

static int
run_cli (char       **out_stdout,
         char       **out_stderr,
         const char  *first,
         ...)
{
  g_autoptr(GPtrArray) argv = g_ptr_array_new ();
  g_autoptr(GSubprocess) process = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *stdout_text = NULL;
  g_autofree char *stderr_text = NULL;
  const char *arg;
  va_list args;

  g_ptr_array_add (argv, (gpointer) anot_run_path ());
  va_start (args, first);
  for (arg = first; arg != NULL; arg = va_arg (args, const char *))
    g_ptr_array_add (argv, (gpointer) arg);
  va_end (args);
  g_ptr_array_add (argv, NULL);

  process = g_subprocess_newv ((const char * const *) argv->pdata,
                               G_SUBPROCESS_FLAGS_STDOUT_PIPE | G_SUBPROCESS_FLAGS_STDERR_PIPE,
                               &error);
  g_assert_no_error (error);
  g_assert_true (g_subprocess_communicate_utf8 (process, NULL, NULL, &stdout_text,
                                                &stderr_text, &error));
  g_assert_no_error (error);
  g_assert_true (g_subprocess_get_if_exited (process));

  if (out_stdout)
    {
      g_free (*out_stdout);
      *out_stdout = g_steal_pointer (&stdout_text);
    }
  if (out_stderr)
    {
      g_free (*out_stderr);
      *out_stderr = g_steal_pointer (&stderr_text);
    }
  return g_subprocess_get_exit_status (process);
}

static guint
count_complete_lines (const char *path)
{
  g_autofree char *contents = NULL;
  guint n = 0;

  if (!g_file_get_contents (path, &contents, NULL, NULL))
    return 0;
  for (const char *p = contents; *p; p++)
    if (*p == '\n')
      n++;
  return n;
}

/* Rows of a results file without the wall-clock field, for comparison. */
static GPtrArray *
read_rows (const char *path)
{
  g_autofree char *contents = NULL;
  g_auto(GStrv) lines = NULL;
  GPtrArray *rows = g_ptr_array_new_with_free_func (g_free);

  g_assert_true (g_file_get_contents (path, &contents, NULL, NULL));
  lines = g_strsplit (contents, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    {
      g_autoptr(JsonParser) parser = json_parser_new ();
      g_autoptr(JsonGenerator) generator = json_generator_new ();
      g_autoptr(GError) error = NULL;

      if (*lines[i] == '\0')
        continue;
      g_assert_true (json_parser_load_from_data (parser, lines[i], -1, &error));
      g_assert_no_error (error);
      json_object_remove_member (json_node_get_object (json_parser_get_root (parser)), "latency_ms");
      json_generator_set_root (generator, json_parser_get_root (parser));
      g_ptr_array_add (rows, json_generator_to_data (generator, NULL));
    }
  return rows;
}

static char *
config_status (const char *config_path)
{
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(GError) error = NULL;
  JsonObject *anot;

  g_assert_true (json_parser_load_from_file (parser, config_path, &error));
  g_assert_no_error (error);
  anot = json_object_get_object_member (json_node_get_object (json_parser_get_root (parser)), "anot");
  return g_strdup (json_object_get_string_member (anot, "status"));
}

/* ------------------------------------------------------------------------ */

static void
test_help (Fixture       *f,
           gconstpointer  data)
{
  g_autofree char *out = NULL;
  const char * const options[] = {
    "--method", "--data", "--candidates", "--scaling", "--compat", "--pool", "--shuffle", "--k",
    "--seed", "--runs", "--concurrency", "--limit", "--requests", "--groups",
    "--method-option", "--out", "--name", "--force", "--resume", "--list", "--version",
    "validate",
  };
  const char * const exit_codes[] = { "  0 ", "  1 ", "  2 ", "  130 " };

  g_assert_cmpint (run_cli (&out, NULL, "--help", NULL), ==, 0);
  for (guint i = 0; i < G_N_ELEMENTS (options); i++)
    {
      if (strstr (out, options[i]) == NULL)
        g_error ("--help does not mention %s:\n%s", options[i], out);
    }
  g_assert_nonnull (strstr (out, "Exit status"));
  for (guint i = 0; i < G_N_ELEMENTS (exit_codes); i++)
    g_assert_nonnull (strstr (out, exit_codes[i]));

  /* The same help through the explicit command. */
  {
    g_autofree char *out2 = NULL;

    g_assert_cmpint (run_cli (&out2, NULL, "run", "--help", NULL), ==, 0);
    g_assert_cmpstr (out2, ==, out);
  }
}

static void
test_usage_errors (Fixture       *f,
                   gconstpointer  data)
{
  g_autofree char *out_dir = g_build_filename (f->root, "results", NULL);
  const char *cases[][4] = {
    { "--k", "5", NULL, NULL },                       /* no --method */
    { "-m", "bm25", "--k", "abc" },
    { "-m", "bm25", "--candidates", "0" },
    { "-m", "bm25", "--candidates", "500" },          /* larger than the demo */
    { "-m", "bm25", "--pool", "top" },
    { "-m", "bm25", "--compat", "exact" },
    { "-m", "bm25", "--shuffle", "sideways" },
    { "-m", "bm25", "--groups", "G42" },
    { "-m", "bm25", "--requests", "R999" },
    { "-m", "bm25", "--runs", "-1" },
    { "-m", "bm25", "--bogus-option", NULL },
    { "-m", "bm25", "extra-argument", NULL },
    { "-m", "bm25", "--method-option", "novalue" },
    { "frobnicate", NULL, NULL, NULL },
    { "--resume", "/nonexistent", "--seed", "3" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *err = NULL;
      int status;

      if (cases[i][2] == NULL)
        status = run_cli (NULL, &err, cases[i][0], cases[i][1], "--out", out_dir, NULL);
      else
        status = run_cli (NULL, &err, cases[i][0], cases[i][1], cases[i][2], cases[i][3],
                          "--out", out_dir, NULL);
      g_test_message ("case %u: exit %d: %s", i, status, err);
      g_assert_cmpint (status, ==, 2);
      g_assert_true (g_str_has_prefix (err, "anot-run: "));
    }
  /* A directory that holds no run cannot be resumed. */
  {
    g_autofree char *err = NULL;

    g_assert_cmpint (run_cli (NULL, &err, "--resume", f->root, NULL), ==, 2);
    g_assert_nonnull (strstr (err, "Cannot resume"));
  }

  /* Nothing was written by refused invocations. */
  g_assert_false (g_file_test (out_dir, G_FILE_TEST_EXISTS));
}

/* Every check that can refuse a run refuses it before the results
 * directory exists: a base URL without a scheme, an empty model name, a
 * seed config.json could not record exactly (a JSON integer is signed). */
static void
test_refused_before_writing (Fixture       *f,
                             gconstpointer  data)
{
  g_autofree char *out_dir = g_build_filename (f->root, "results", NULL);
  g_autofree char *err = NULL;

  g_assert_cmpint (run_cli (NULL, &err, "-m", "cot", "--backend", "openai", "--base-url",
                            "127.0.0.1:9/v1", "--model", "m", "--out", out_dir, NULL), ==, 2);
  g_test_message ("%s", err);
  g_assert_nonnull (strstr (err, "127.0.0.1:9/v1"));
  g_assert_null (strstr (err, "--resume"));
  g_assert_cmpint (run_cli (NULL, &err, "-m", "cot", "--backend", "openai", "--base-url",
                            "http://127.0.0.1:9/v1", "--model", "", "--out", out_dir, NULL), ==, 2);
  g_test_message ("%s", err);
  g_assert_nonnull (strstr (err, "model"));
  g_assert_cmpint (run_cli (NULL, &err, "-m", "bm25", "--seed", "18446744073709551615",
                            "--out", out_dir, NULL), ==, 2);
  g_test_message ("%s", err);
  g_assert_nonnull (strstr (err, "9223372036854775807"));
  g_assert_false (g_file_test (out_dir, G_FILE_TEST_EXISTS));

  /* The largest seed it takes is recorded as given. */
  {
    g_autofree char *config = g_build_filename (out_dir, "bm25_demo", "clean", "run_1",
                                                "config.json", NULL);
    g_autofree char *text = NULL;

    g_assert_cmpint (run_cli (NULL, NULL, "-m", "bm25", "--seed", "9223372036854775807",
                              "--candidates", "5", "--limit", "1", "--out", out_dir, NULL), ==, 0);
    g_assert_true (g_file_get_contents (config, &text, NULL, NULL));
    g_assert_nonnull (strstr (text, "9223372036854775807"));
  }
}

/* Every option goes through AnotRunConfig: a bad value is a usage error
 * naming the setting and the value, and so is a key a resume finds in
 * config.json that no setting has. */
static void
test_setting_errors (Fixture       *f,
                     gconstpointer  data)
{
  g_autofree char *out_dir = g_build_filename (f->root, "results", NULL);
  g_autofree char *run_dir = g_build_filename (out_dir, "edited", NULL);
  g_autofree char *config_path = g_build_filename (run_dir, "clean", "run_1", "config.json", NULL);
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(JsonGenerator) generator = json_generator_new ();
  g_autoptr(GError) error = NULL;
  g_autofree char *err = NULL;
  JsonObject *options;

  g_assert_cmpint (run_cli (NULL, &err, "-m", "bm25", "--k", "abc", "--out", out_dir, NULL), ==, 2);
  g_assert_nonnull (strstr (err, "“abc” for k"));
  g_assert_cmpint (run_cli (NULL, &err, "-m", "bm25", "--candidates", "10,10", "--out", out_dir,
                            NULL), ==, 2);
  g_assert_nonnull (strstr (err, "“10,10” for candidates"));
  g_assert_cmpint (run_cli (NULL, &err, "-m", "bm25", "--name", "a/b", "--out", out_dir, NULL), ==, 2);
  g_assert_nonnull (strstr (err, "“a/b” for name"));

  g_assert_cmpint (run_cli (NULL, NULL, "-m", "bm25", "--limit", "1", "--out", out_dir,
                            "--name", "edited", NULL), ==, 0);
  g_assert_true (json_parser_load_from_file (parser, config_path, &error));
  g_assert_no_error (error);
  options = json_object_get_object_member (
    json_object_get_object_member (json_node_get_object (json_parser_get_root (parser)), "anot"),
    "options");
  json_object_set_string_member (options, "candidatez", "10");
  json_generator_set_root (generator, json_parser_get_root (parser));
  g_assert_true (json_generator_to_file (generator, config_path, &error));
  g_assert_no_error (error);

  g_assert_cmpint (run_cli (NULL, &err, "--resume", run_dir, NULL), ==, 2);
  g_test_message ("%s", err);
  g_assert_nonnull (strstr (err, "“candidatez”"));
}

static void
test_unknown_method (Fixture       *f,
                     gconstpointer  data)
{
  g_autofree char *err = NULL;
  g_autofree char *out_dir = g_build_filename (f->root, "results", NULL);

  g_assert_cmpint (run_cli (NULL, &err, "--method", "no-such-method", "--out", out_dir, NULL), ==, 2);
  g_assert_nonnull (strstr (err, "no-such-method"));
  g_assert_nonnull (strstr (err, "bm25"));
  g_assert_nonnull (strstr (err, "random"));
  g_assert_nonnull (strstr (err, "oracle"));
}

static void
test_run_demo (Fixture       *f,
               gconstpointer  data)
{
  g_autofree char *out = NULL;
  g_autofree char *err = NULL;
  g_autofree char *out_dir = g_build_filename (f->root, "results", NULL);
  g_autofree char *exp_dir = g_build_filename (out_dir, "bm25_demo", NULL);
  g_autofree char *run_dir = g_build_filename (exp_dir, "clean", "run_1", NULL);
  const char * const files[] = { "config.json", "results_10.jsonl", "results_20.jsonl",
                                 "usage.jsonl", "scaling_summary.json" };
  g_autofree char *summary = g_build_filename (exp_dir, "clean", "summary.json", NULL);

  g_assert_cmpint (run_cli (&out, &err, "--method", "bm25", "--scaling", "--out", out_dir, NULL),
                   ==, 0);
  g_test_message ("%s", out);
  for (guint i = 0; i < G_N_ELEMENTS (files); i++)
    {
      g_autofree char *path = g_build_filename (run_dir, files[i], NULL);
      g_assert_true (g_file_test (path, G_FILE_TEST_IS_REGULAR));
    }
  g_assert_true (g_file_test (summary, G_FILE_TEST_IS_REGULAR));
  g_assert_nonnull (strstr (out, exp_dir));
  g_assert_nonnull (strstr (out, "Hits@1"));
  g_assert_nonnull (strstr (out, "skipped"));  /* N=30..50 on a 24-item demo */
  /* Not a terminal: no progress line. */
  g_assert_null (strstr (err, "\r"));
  g_assert_null (strstr (err, "ETA"));

  /* The same directory again is refused, --force overwrites it. */
  {
    g_autofree char *err2 = NULL;

    g_assert_cmpint (run_cli (NULL, &err2, "--method", "bm25", "--out", out_dir, NULL), ==, 2);
    g_assert_nonnull (strstr (err2, "--resume"));
    g_assert_cmpint (run_cli (NULL, NULL, "--method", "bm25", "--out", out_dir, "--force",
                              "--limit", "5", NULL), ==, 0);
    {
      g_autofree char *path = g_build_filename (run_dir, "results_10.jsonl", NULL);
      g_autofree char *stale = g_build_filename (run_dir, "results_20.jsonl", NULL);

      g_assert_cmpuint (count_complete_lines (path), ==, 5);
      g_assert_false (g_file_test (stale, G_FILE_TEST_EXISTS));
    }
  }
}

static void
test_every_request_fails (Fixture       *f,
                          gconstpointer  data)
{
  g_autofree char *err = NULL;
  g_autofree char *out_dir = g_build_filename (f->root, "results", NULL);
  g_autofree char *bad_results = g_build_filename (out_dir, "bm25_demo", NULL);
  g_autofree char *fail_results = g_build_filename (out_dir, "test-slow_demo", "clean", "run_1",
                                                    "results_10.jsonl", NULL);

  /* An ill-typed option is refused before the run: exit 2, nothing written. */
  g_assert_cmpint (run_cli (NULL, &err, "--method", "bm25", "--method-option", "bm25.k1=abc",
                            "--out", out_dir, NULL), ==, 2);
  g_assert_nonnull (strstr (err, "bm25.k1"));
  g_assert_nonnull (strstr (err, "expected a number"));
  g_assert_false (g_file_test (bad_results, G_FILE_TEST_EXISTS));
  g_clear_pointer (&err, g_free);

  /* A mistyped key too, with the nearest known one. */
  g_assert_cmpint (run_cli (NULL, &err, "--method", "bm25", "-O", "bm25.kk=1",
                            "--out", out_dir, NULL), ==, 2);
  g_assert_nonnull (strstr (err, "bm25.kk (did you mean bm25.k1?)"));
  g_assert_false (g_file_test (bad_results, G_FILE_TEST_EXISTS));
  g_clear_pointer (&err, g_free);

  /* The method fails every request: exit 1, rows written. */
  g_assert_cmpint (run_cli (NULL, &err, "--method", "test-slow", "-O", "test-slow.fail=true",
                            "-O", "test-slow.delay-ms=0", "--out", out_dir, NULL), ==, 1);
  g_assert_nonnull (strstr (err, "test-slow.fail"));
  g_assert_cmpuint (count_complete_lines (fail_results), ==, 30);
}

/* config.ini's [method NAME] and the environment are checked against the
 * declared options too, before the run; --list and --help-options show
 * them; config.json records every declared option's effective value. */
static void
test_declared_options (Fixture       *f,
                       gconstpointer  data)
{
  g_autofree char *out_dir = g_build_filename (f->root, "results", NULL);
  g_autofree char *config = g_build_filename (f->root, "config.ini", NULL);
  g_autofree char *where = g_strdup_printf ("%s:3 [method bm25]: unknown key kk (did you mean k1?)", config);
  g_autofree char *k1_where = g_strdup_printf ("%s:2 [method bm25]", config);
  g_autofree char *config_json = g_build_filename (out_dir, "bm25_demo", "clean", "run_1", "config.json", NULL);
  g_autofree char *out = NULL;
  g_autofree char *err = NULL;
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(GError) error = NULL;
  JsonObject *settings;

  g_setenv ("ANOT_CONFIG", config, TRUE);
  g_assert_true (g_file_set_contents (config, "[method bm25]\nk1 = 1.2\nkk = 1\n", -1, NULL));
  g_assert_cmpint (run_cli (NULL, &err, "--method", "bm25", "--out", out_dir, NULL), ==, 2);
  g_assert_nonnull (strstr (err, where));
  g_clear_pointer (&err, g_free);

  g_assert_true (g_file_set_contents (config, "[method bm25]\nk1 = 1.2\n", -1, NULL));
  g_setenv ("ANOT_BM25_B", "2", TRUE);
  g_assert_cmpint (run_cli (NULL, &err, "--method", "bm25", "--out", out_dir, NULL), ==, 2);
  g_assert_nonnull (strstr (err, "bm25.b (from environment ANOT_BM25_B): expected a number from 0 to 1, got “2”"));
  g_clear_pointer (&err, g_free);
  g_unsetenv ("ANOT_BM25_B");

  /* A variable of no declared key (a typo of k1) is refused too, with the
   * nearest declared variable; an LLM role's setting is not a method
   * option. */
  g_setenv ("ANOT_BM25_KK", "1", TRUE);
  g_assert_cmpint (run_cli (NULL, &err, "--method", "bm25", "--out", out_dir, NULL), ==, 2);
  g_assert_nonnull (strstr (err, "Environment variable ANOT_BM25_KK sets no option of the method bm25 "
                                 "(did you mean ANOT_BM25_K1?)"));
  g_clear_pointer (&err, g_free);
  g_unsetenv ("ANOT_BM25_KK");
  g_setenv ("ANOT_BM25_RANKER_MODEL", "small", TRUE);
  g_assert_cmpint (run_cli (NULL, NULL, "estimate", "--method", "bm25", NULL), ==, 0);
  g_unsetenv ("ANOT_BM25_RANKER_MODEL");

  /* An option of another method, one without a method, a good run. */
  g_assert_cmpint (run_cli (NULL, &err, "--method", "bm25", "-O", "lats.beam_width=2", "--out", out_dir,
                            NULL), ==, 2);
  g_assert_nonnull (strstr (err, "is an option of the method lats, but this run's method is bm25"));
  g_clear_pointer (&err, g_free);
  /* format.* would do nothing for a method that does not use the formatter. */
  g_assert_cmpint (run_cli (NULL, &err, "--method", "bm25", "-O", "format.style=text", "--out", out_dir,
                            NULL), ==, 2);
  g_assert_nonnull (strstr (err, "Method option format.style: the method bm25 does not write its candidates "
                                 "with the formatter"));
  g_assert_nonnull (strstr (err, "(methods that read them: cot, listwise, plan_act, ps, weaver)"));
  g_clear_pointer (&err, g_free);
  g_assert_cmpint (run_cli (NULL, &err, "--method", "bm25", "-O", "k1=2", "--out", out_dir, NULL), ==, 2);
  g_assert_nonnull (strstr (err, "Unknown method option k1 (did you mean bm25.k1?)"));
  g_assert_cmpint (run_cli (NULL, NULL, "--method", "bm25", "--limit", "2", "--out", out_dir, NULL), ==, 0);
  g_assert_true (json_parser_load_from_file (parser, config_json, &error));
  g_assert_no_error (error);
  settings = json_object_get_object_member (json_object_get_object_member (json_node_get_object (json_parser_get_root (parser)),
                                                                           "anot"),
                                            "method_settings");
  g_assert_cmpfloat (json_object_get_double_member (json_object_get_object_member (settings, "k1"), "value"), ==, 1.2);
  g_assert_cmpstr (json_object_get_string_member (json_object_get_object_member (settings, "k1"), "source"), ==,
                   k1_where);
  g_assert_cmpfloat (json_object_get_double_member (json_object_get_object_member (settings, "b"), "value"), ==, 0.75);
  g_assert_cmpstr (json_object_get_string_member (json_object_get_object_member (settings, "b"), "source"), ==,
                   "default");
  g_unsetenv ("ANOT_CONFIG");

  g_assert_cmpint (run_cli (&out, NULL, "--method", "lats", "--help-options", NULL), ==, 0);
  g_assert_nonnull (strstr (out, "lats.timeout"));
  g_assert_nonnull (strstr (out, "default 0."));
  g_assert_nonnull (strstr (out, "lats does not write its candidates with the formatter: it refuses"));
  g_clear_pointer (&out, g_free);
  g_assert_cmpint (run_cli (&out, NULL, "--method", "listwise", "--help-options", NULL), ==, 0);
  g_assert_nonnull (strstr (out, "default 20 (always 0 with --compat original)"));
  g_assert_nonnull (strstr (out, "listwise writes its candidates with the formatter, so it also takes"));
  g_clear_pointer (&out, g_free);
  g_assert_cmpint (run_cli (&out, NULL, "--list", NULL), ==, 0);
  g_assert_nonnull (strstr (out, "-O bm25.k1  a number ≥ 0; default 1.5. term-frequency saturation"));
  g_assert_nonnull (strstr (out, "--defense: not supported"));
  g_assert_cmpint (run_cli (NULL, NULL, "--help-options", NULL), ==, 2);
}

/* An option --compat original fixes (listwise.window, anot.variant) set
 * to another value, from -O, the environment or config.ini, is a usage
 * error naming the option and the compat mode, before anything runs: the
 * run would otherwise ignore it while config.json recorded it. */
static void
test_compat_fixed_options (Fixture       *f,
                           gconstpointer  data)
{
  g_autofree char *out_dir = g_build_filename (f->root, "results", NULL);
  g_autofree char *config = g_build_filename (f->root, "config.ini", NULL);
  g_autofree char *where = g_strdup_printf ("anot.variant=explore (from %s:2 [method anot]) contradicts "
                                            "--compat original", config);
  g_autofree char *err = NULL;

  g_assert_cmpint (run_cli (NULL, &err, "--method", "listwise", "--compat", "original",
                            "-O", "listwise.window=20", "--out", out_dir, NULL), ==, 2);
  g_assert_nonnull (strstr (err, "listwise.window=20 (from method option listwise.window) contradicts "
                                 "--compat original, which runs it with listwise.window=0"));
  g_clear_pointer (&err, g_free);

  g_setenv ("ANOT_LISTWISE_WINDOW", "5", TRUE);
  g_assert_cmpint (run_cli (NULL, &err, "--method", "listwise", "--compat", "original",
                            "--out", out_dir, NULL), ==, 2);
  g_assert_nonnull (strstr (err, "listwise.window=5 (from environment ANOT_LISTWISE_WINDOW) contradicts"));
  g_clear_pointer (&err, g_free);
  /* The estimate prepares the same run, so refuses it too. */
  g_assert_cmpint (run_cli (NULL, &err, "estimate", "--method", "listwise", "--compat", "original",
                            NULL), ==, 2);
  g_assert_nonnull (strstr (err, "ANOT_LISTWISE_WINDOW"));
  g_clear_pointer (&err, g_free);
  /* The value fixed is admitted however it is spelled; without --compat any. */
  g_setenv ("ANOT_LISTWISE_WINDOW", "00", TRUE);
  g_assert_cmpint (run_cli (NULL, NULL, "estimate", "--method", "listwise", "--compat", "original",
                            NULL), ==, 0);
  g_setenv ("ANOT_LISTWISE_WINDOW", "5", TRUE);
  g_assert_cmpint (run_cli (NULL, NULL, "estimate", "--method", "listwise", NULL), ==, 0);
  g_unsetenv ("ANOT_LISTWISE_WINDOW");

  g_setenv ("ANOT_CONFIG", config, TRUE);
  g_assert_true (g_file_set_contents (config, "[method anot]\nvariant = explore\n", -1, NULL));
  g_assert_cmpint (run_cli (NULL, &err, "--method", "anot", "--compat", "original",
                            "--out", out_dir, NULL), ==, 2);
  g_assert_nonnull (strstr (err, where));
  g_clear_pointer (&err, g_free);
  g_assert_true (g_file_set_contents (config, "[method anot]\nvariant = HEAD\n", -1, NULL));
  g_assert_cmpint (run_cli (NULL, NULL, "estimate", "--method", "anot", "--compat", "original",
                            NULL), ==, 0);
  g_unsetenv ("ANOT_CONFIG");

  /* An option ANoT-HEAD does not read, set for a HEAD run, would do
   * nothing: refused too, whether HEAD comes from the option or the
   * compat mode. */
  g_assert_cmpint (run_cli (NULL, &err, "--method", "anot", "-O", "anot.variant=head",
                            "-O", "anot.aggregate=false", "--out", out_dir, NULL), ==, 2);
  g_assert_nonnull (strstr (err, "anot.aggregate (from method option anot.aggregate) is read only with "
                                 "anot.variant=explore; this run has anot.variant=head (from method option "
                                 "anot.variant)"));
  g_clear_pointer (&err, g_free);
  g_assert_cmpint (run_cli (NULL, &err, "--method", "anot", "--compat", "original",
                            "-O", "anot.max_reviews=3", "--out", out_dir, NULL), ==, 2);
  g_assert_nonnull (strstr (err, "this run has anot.variant=head (from default (--compat original))"));
  g_clear_pointer (&err, g_free);
  g_assert_cmpint (run_cli (NULL, NULL, "estimate", "--method", "anot", "-O", "anot.aggregate=false", NULL), ==, 0);

  /* Nothing was written by the refused runs. */
  g_assert_false (g_file_test (out_dir, G_FILE_TEST_EXISTS));
}

/* data/demo/requests.jsonl */
#define N_DEMO_REQUESTS 30

static GSubprocess *
spawn_slow_run (const char *out_dir,
                const char *name)
{
  g_autoptr(GError) error = NULL;
  GSubprocess *process;

  /* The test-slow method waits 60 ms per request and requests run one at a
   * time, so the 30 demo requests take about two seconds: long enough to
   * interrupt the run after some rows were written, on any machine. */
  process = g_subprocess_new (G_SUBPROCESS_FLAGS_STDOUT_SILENCE | G_SUBPROCESS_FLAGS_STDERR_PIPE,
                              &error, anot_run_path (), "--method", "test-slow",
                              "--candidates", "10", "--concurrency", "1",
                              "--out", out_dir, "--name", name, NULL);
  g_assert_no_error (error);
  return process;
}

static guint
wait_for_rows (const char  *path,
               GSubprocess *process,
               guint        n)
{
  gint64 deadline = g_get_monotonic_time () + 120 * G_USEC_PER_SEC;
  guint lines = 0;

  while (g_get_monotonic_time () < deadline)
    {
      lines = count_complete_lines (path);
      if (lines >= n)
        break;
      g_usleep (5000);
    }
  return lines;
}

/* Copies the files of directory @from into the new directory @to. */
static void
copy_dir (const char *from,
          const char *to)
{
  g_autoptr(GDir) dir = g_dir_open (from, 0, NULL);
  const char *name;

  g_assert_nonnull (dir);
  g_assert_cmpint (g_mkdir_with_parents (to, 0700), ==, 0);
  while ((name = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *src = g_build_filename (from, name, NULL);
      g_autofree char *dst = g_build_filename (to, name, NULL);
      g_autofree char *contents = NULL;
      gsize len;

      if (!g_file_test (src, G_FILE_TEST_IS_REGULAR))
        continue;
      g_assert_true (g_file_get_contents (src, &contents, &len, NULL));
      g_assert_true (g_file_set_contents (dst, contents, len, NULL));
    }
}

static void
test_validate_write_groundtruth (Fixture       *f,
                                 gconstpointer  data)
{
  g_autofree char *demo = g_build_filename (g_getenv ("ANOT_DATA_DIR"), "demo", NULL);
  g_autofree char *copy = g_build_filename (f->root, "demo", NULL);
  g_autofree char *original = g_build_filename (demo, "groundtruth.jsonl", NULL);
  g_autofree char *written = g_build_filename (copy, "groundtruth.jsonl", NULL);
  g_autofree char *mapping = g_build_filename (copy, "user_mapping.json", NULL);
  g_autofree char *expected = NULL, *got = NULL, *out = NULL, *err = NULL, *text = NULL;
  g_autoptr(JsonNode) root = NULL;
  JsonArray *records;
  g_autoptr(JsonObject) extra = json_object_new ();

  copy_dir (demo, copy);
  g_assert_cmpint (g_unlink (written), ==, 0);

  /* Written from the validator, it is the file the benchmark ships. */
  g_assert_cmpint (run_cli (&out, &err, "validate", "-d", copy, "--write-groundtruth", NULL), ==, 0);
  g_assert_nonnull (strstr (out, "Wrote "));
  g_assert_true (g_file_get_contents (original, &expected, NULL, NULL));
  g_assert_true (g_file_get_contents (written, &got, NULL, NULL));
  g_assert_cmpstr (got, ==, expected);
  g_assert_null (strstr (err, "warning:"));

  g_assert_cmpint (run_cli (NULL, &err, "validate", "-d", copy, "--write-groundtruth", "-r", "R01", NULL), ==, 2);
  g_assert_nonnull (strstr (err, "--write-groundtruth"));

  /* A record for a review the item does not have is ignored, and said. */
  g_assert_true (g_file_get_contents (mapping, &text, NULL, NULL));
  root = json_from_string (text, NULL);
  records = json_object_get_array_member (json_object_get_object_member (json_node_get_object (root),
                                                                          "review_assignments"), "0");
  json_object_set_int_member (extra, "review_idx", 999);
  json_object_set_string_member (extra, "name", "Nobody");
  json_array_add_object_element (records, g_steal_pointer (&extra));
  g_free (text);
  text = json_to_string (root, FALSE);
  g_assert_true (g_file_set_contents (mapping, text, -1, NULL));
  g_assert_cmpint (run_cli (&out, &err, "validate", "-d", copy, NULL), ==, 0);
  g_assert_nonnull (strstr (err, "warning: user_mapping.json: field “review_assignments.0["));
  g_assert_nonnull (strstr (err, "no review 999; the record is ignored"));
}

static void
test_kill_and_resume (Fixture       *f,
                      gconstpointer  data)
{
  g_autofree char *out_dir = g_build_filename (f->root, "results", NULL);
  g_autofree char *killed_dir = g_build_filename (out_dir, "killed", NULL);
  g_autofree char *killed_results = g_build_filename (killed_dir, "clean", "run_1",
                                                      "results_10.jsonl", NULL);
  g_autofree char *ref_results = g_build_filename (out_dir, "reference", "clean", "run_1",
                                                   "results_10.jsonl", NULL);
  g_autofree char *config = g_build_filename (killed_dir, "clean", "run_1", "config.json", NULL);
  g_autoptr(GSubprocess) process = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) reference = NULL;
  g_autoptr(GPtrArray) resumed = NULL;
  g_autofree char *out = NULL;
  g_autofree char *status = NULL;
  g_autofree char *already = NULL;
  guint rows_at_kill;

  process = spawn_slow_run (out_dir, "killed");
  g_assert_cmpuint (wait_for_rows (killed_results, process, 3), >=, 3);
  g_subprocess_force_exit (process);     /* SIGKILL */
  g_assert_true (g_subprocess_wait (process, NULL, &error));
  g_assert_no_error (error);
  g_assert_false (g_subprocess_get_if_exited (process));
  g_assert_cmpint (g_subprocess_get_term_sig (process), ==, SIGKILL);

  rows_at_kill = count_complete_lines (killed_results);
  g_test_message ("killed after %u rows", rows_at_kill);
  g_assert_cmpuint (rows_at_kill, <, N_DEMO_REQUESTS);
  status = config_status (config);
  g_assert_cmpstr (status, ==, "running");

  g_assert_cmpint (run_cli (&out, NULL, "--resume", killed_dir, NULL), ==, 0);
  g_test_message ("%s", out);
  /* Finished requests were not run again. */
  already = g_strdup_printf ("(%u already done)", rows_at_kill);
  g_assert_nonnull (strstr (out, already));
  {
    g_autofree char *ran = g_strdup_printf ("Ran %u request", N_DEMO_REQUESTS - rows_at_kill);
    g_assert_nonnull (strstr (out, ran));
  }
  g_clear_pointer (&status, g_free);
  status = config_status (config);
  g_assert_cmpstr (status, ==, "complete");

  /* The same experiment without interruption: the same rows. */
  g_assert_cmpint (run_cli (NULL, NULL, "--method", "test-slow", "-O", "test-slow.delay-ms=1",
                            "--candidates", "10", "--concurrency", "4",
                            "--out", out_dir, "--name", "reference", NULL), ==, 0);
  reference = read_rows (ref_results);
  resumed = read_rows (killed_results);
  g_assert_cmpuint (reference->len, ==, N_DEMO_REQUESTS);
  g_assert_cmpuint (resumed->len, ==, N_DEMO_REQUESTS);
  for (guint i = 0; i < reference->len; i++)
    g_assert_cmpstr (g_ptr_array_index (resumed, i), ==, g_ptr_array_index (reference, i));
}

/* A stop signal (Ctrl-C's SIGINT, Slurm's SIGTERM) is a graceful stop:
 * the rows so far written, "interrupted", the resume hint, @status, and
 * within Slurm's 30 s between SIGTERM and SIGKILL; the run resumes. */
static void
check_graceful_stop (Fixture *f,
                     int      signum,
                     int      expected_status)
{
  g_autofree char *out_dir = g_build_filename (f->root, "results", NULL);
  g_autofree char *exp_dir = g_build_filename (out_dir, "interrupted", NULL);
  g_autofree char *results = g_build_filename (exp_dir, "clean", "run_1", "results_10.jsonl", NULL);
  g_autofree char *config = g_build_filename (exp_dir, "clean", "run_1", "config.json", NULL);
  g_autofree char *summary = g_build_filename (exp_dir, "clean", "summary.json", NULL);
  g_autoptr(GSubprocess) process = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *err = NULL;
  g_autofree char *status = NULL;
  g_autofree char *contents = NULL;
  g_autoptr(GPtrArray) rows = NULL;
  gint64 signalled_us;
  double seconds;

  process = spawn_slow_run (out_dir, "interrupted");
  g_assert_cmpuint (wait_for_rows (results, process, 3), >=, 3);
  signalled_us = g_get_monotonic_time ();
  g_subprocess_send_signal (process, signum);
  g_assert_true (g_subprocess_communicate_utf8 (process, NULL, NULL, NULL, &err, &error));
  g_assert_no_error (error);
  seconds = (g_get_monotonic_time () - signalled_us) / 1e6;
  g_test_message ("%s(stopped %.2f s after signal %d)", err, seconds, signum);

  g_assert_true (g_subprocess_get_if_exited (process));
  g_assert_cmpint (g_subprocess_get_exit_status (process), ==, expected_status);
  g_assert_nonnull (strstr (err, "--resume"));
  g_assert_cmpfloat (seconds, <, 30.0);

  status = config_status (config);
  g_assert_cmpstr (status, ==, "interrupted");
  g_assert_true (g_file_test (summary, G_FILE_TEST_IS_REGULAR));

  /* The partial results file is whole lines, sorted, fewer than planned. */
  g_assert_true (g_file_get_contents (results, &contents, NULL, NULL));
  g_assert_true (g_str_has_suffix (contents, "\n"));
  rows = read_rows (results);
  g_assert_cmpuint (rows->len, >=, 3);
  g_assert_cmpuint (rows->len, <, N_DEMO_REQUESTS);
  for (guint i = 1; i < rows->len; i++)
    g_assert_cmpint (strcmp (g_ptr_array_index (rows, i - 1), g_ptr_array_index (rows, i)), <, 0);

  /* And it can be finished. */
  g_assert_cmpint (run_cli (NULL, NULL, "--resume", exp_dir, "--concurrency", "4", NULL), ==, 0);
  g_assert_cmpuint (count_complete_lines (results), ==, N_DEMO_REQUESTS);
}

static void
test_sigint (Fixture       *f,
             gconstpointer  data)
{
  check_graceful_stop (f, SIGINT, 130);
}

static void
test_sigterm (Fixture       *f,
              gconstpointer  data)
{
  check_graceful_stop (f, SIGTERM, 143);
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);

  /* The interruption tests use the test-slow method, built in its own
   * folder; the anot-run processes inherit the path. */
  {
    g_autofree char *slow_dir = g_build_filename (g_getenv ("ANOT_TEST_BUILDDIR"),
                                                  "slow-plugin", NULL);
    g_autofree char *path = g_strjoin (G_SEARCHPATH_SEPARATOR_S,
                                       g_getenv ("ANOT_PLUGIN_PATH"), slow_dir, NULL);
    g_setenv ("ANOT_PLUGIN_PATH", path, TRUE);
  }

#define ADD(path, func) \
  g_test_add (path, Fixture, NULL, fixture_setup, func, fixture_teardown)

  ADD ("/cli/help", test_help);
  ADD ("/cli/usage-errors", test_usage_errors);
  ADD ("/cli/refused-before-writing", test_refused_before_writing);
  ADD ("/cli/setting-errors", test_setting_errors);
  ADD ("/cli/unknown-method", test_unknown_method);
  ADD ("/cli/run-demo", test_run_demo);
  ADD ("/cli/every-request-fails", test_every_request_fails);
  ADD ("/cli/declared-options", test_declared_options);
  ADD ("/cli/compat-fixed-options", test_compat_fixed_options);
  ADD ("/cli/kill-and-resume", test_kill_and_resume);
  ADD ("/cli/sigint", test_sigint);
  ADD ("/cli/sigterm", test_sigterm);
  ADD ("/cli/validate-write-groundtruth", test_validate_write_groundtruth);

#undef ADD

  return g_test_run ();
}
