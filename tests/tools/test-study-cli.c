/* test-study-cli.c: `anot-run study FILE` against the fake LLM server: a
 * study of bm25, cot on two models and listwise on one, clean and
 * typo_10, on 10 demo requests at N=10 (8 cells of 10 rows)
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <anot/anot.h>

#include <glib/gstdio.h>
#include <signal.h>
#include <string.h>

#include "anot-fake-llm.h"
#include "anot-test-cli.h"

typedef AnotTestCli Fixture;

#define N_CELLS 8
#define N_ROWS 10
#define N_CALLS 60      /* cot × 2 models and listwise, 2 attacks, 10 requests, 1 call each */
#define CONCURRENCY 4

/* The cells: experiment label, method, model (NULL: none), attack. */
static const struct
{
  const char *label;
  const char *method;
  const char *model;
  const char *attack;
} cells[N_CELLS] = {
  { "bm25", "bm25", NULL, "clean" },
  { "bm25", "bm25", NULL, "typo_10" },
  { "cot@gpt-4o-mini", "cot", "gpt-4o-mini", "clean" },
  { "cot@gpt-4o-mini", "cot", "gpt-4o-mini", "typo_10" },
  { "cot@gpt-4.1-mini", "cot", "gpt-4.1-mini", "clean" },
  { "cot@gpt-4.1-mini", "cot", "gpt-4.1-mini", "typo_10" },
  { "listwise@gpt-4o-mini", "listwise", "gpt-4o-mini", "clean" },
  { "listwise@gpt-4o-mini", "listwise", "gpt-4o-mini", "typo_10" },
};

static void
fixture_setup (Fixture       *f,
               gconstpointer  data)
{
  g_autofree char *config = g_build_filename (g_get_user_config_dir (), "anot", "config.ini", NULL);
  g_autoptr(GError) error = NULL;

  /* A ranking cot and listwise read. */
  anot_test_cli_setup (f, "anot-test-study-cli-XXXXXX",
                       "{\"default_reply\": \"[3, 1, 2, 5, 4]\", \"latency_ms\": 5}");
  /* gpt-4.1-mini is not in the built-in table: its price (OpenAI's list
   * price) is the test's to give, as a user would. */
  g_assert_true (g_file_set_contents (config, "[prices]\ngpt-4.1-mini = 0.40, 1.60\n", -1, &error));
  g_assert_no_error (error);
}

static void
fixture_teardown (Fixture       *f,
                  gconstpointer  data)
{
  anot_test_cli_teardown (f);
}

/* The study file, with @extra lines appended to [study]. */
static char *
write_study (Fixture    *f,
             const char *file_name,
             const char *extra)
{
  g_autofree char *path = g_build_filename (f->root, file_name, NULL);
  g_autofree char *text = g_strdup_printf (
    "# The issue's study\n"
    "[study]\n"
    "name = grid\n"
    "candidates = 10\n"
    "limit = %u\n"
    "attacks = clean, typo_10\n"
    "concurrency = %u\n"
    "backend = openai\n"
    "base_url = %s\n"
    "baseline = bm25\n"
    "%s\n"
    "[method bm25]\n"
    "\n"
    "[method cot]\n"
    "models = gpt-4o-mini, gpt-4.1-mini\n"
    "\n"
    "[method listwise]\n"
    "models = gpt-4o-mini\n",
    N_ROWS, CONCURRENCY, f->base_url, extra ? extra : "");

  g_assert_true (g_file_set_contents (path, text, -1, NULL));
  return g_steal_pointer (&path);
}

static GSubprocess *
spawn (const char * const *argv)
{
  static const char * const env[] = {
    "ANOT_MAX_RETRIES=0", "ANOT_BASE_URL", "OPENAI_API_KEY", "ANTHROPIC_API_KEY", "ANOT_CONFIG",
    NULL
  };

  return anot_test_cli_spawn (G_SUBPROCESS_FLAGS_STDOUT_PIPE | G_SUBPROCESS_FLAGS_STDERR_PIPE, argv, env);
}

static int
run_cli (char **out_stdout,
         char **out_stderr,
         ...)
{
  g_autoptr(GPtrArray) argv = g_ptr_array_new ();
  g_autoptr(GSubprocess) process = NULL;
  va_list args;
  const char *arg;

  va_start (args, out_stderr);
  while ((arg = va_arg (args, const char *)) != NULL)
    g_ptr_array_add (argv, (gpointer) arg);
  va_end (args);
  g_ptr_array_add (argv, NULL);
  process = spawn ((const char * const *) argv->pdata);
  return anot_test_cli_wait (process, NULL, NULL, out_stdout, out_stderr);
}

static guint
count_calls (AnotFakeLlm *server)
{
  guint n = 0;

  for (guint i = 0; i < anot_fake_llm_get_n_requests (server); i++)
    if (strcmp (json_object_get_string_member (anot_fake_llm_get_request (server, i), "path"),
                "/v1/chat/completions") == 0)
      n++;
  return n;
}

/* request id -> the row without what depends on the clock. */
static GHashTable *
read_rows (const char *path,
           double     *cost)
{
  g_autofree char *contents = NULL;
  g_auto(GStrv) lines = NULL;
  GHashTable *rows = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);

  if (!g_file_get_contents (path, &contents, NULL, NULL))
    return rows;
  lines = g_strsplit (contents, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    {
      g_autoptr(JsonParser) parser = json_parser_new ();
      JsonObject *row;

      /* A line a SIGKILL cut is not a row. */
      if (*lines[i] == '\0' || !json_parser_load_from_data (parser, lines[i], -1, NULL))
        continue;
      row = json_node_get_object (json_parser_get_root (parser));
      json_object_remove_member (row, "latency_ms");
      if (cost != NULL)
        *cost += json_object_get_double_member_with_default (row, "cost_usd", 0);
      g_hash_table_insert (rows, g_strdup (json_object_get_string_member (row, "request_id")),
                           json_to_string (json_parser_get_root (parser), FALSE));
    }
  return rows;
}

static char *
cell_results (const char *study_dir,
              guint       c)
{
  return g_build_filename (study_dir, cells[c].label, cells[c].attack, "run_1", "results_10.jsonl", NULL);
}

/* The rows of every cell, and what they cost. */
static guint
count_rows (const char *study_dir,
            double     *cost)
{
  guint n = 0;

  if (cost != NULL)
    *cost = 0;
  for (guint c = 0; c < N_CELLS; c++)
    {
      g_autofree char *path = cell_results (study_dir, c);
      g_autoptr(GHashTable) rows = read_rows (path, cost);

      n += g_hash_table_size (rows);
    }
  return n;
}

static void
assert_same_study (const char *a,
                   const char *b)
{
  for (guint c = 0; c < N_CELLS; c++)
    {
      g_autofree char *path_a = cell_results (a, c);
      g_autofree char *path_b = cell_results (b, c);
      g_autoptr(GHashTable) rows_a = read_rows (path_a, NULL);
      g_autoptr(GHashTable) rows_b = read_rows (path_b, NULL);

      g_assert_cmpuint (g_hash_table_size (rows_a), ==, N_ROWS);
      anot_test_assert_same_rows (rows_a, rows_b);
    }
}

/* The whole study in one command: 8 cells of 10 rows, each equal to the
 * cell run alone with anot-run; the report names every method and model;
 * run again, it calls nothing. */
static void
test_grid (Fixture       *f,
           gconstpointer  data)
{
  g_autofree char *study = write_study (f, "study.ini", NULL);
  g_autofree char *out = g_build_filename (f->root, "out", NULL);
  g_autofree char *study_dir = g_build_filename (out, "grid", NULL);
  g_autofree char *report = g_build_filename (study_dir, "report.html", NULL);
  g_autofree char *comparison = g_build_filename (study_dir, "comparison.md", NULL);
  g_autofree char *csv = g_build_filename (study_dir, "comparison.csv", NULL);
  g_autofree char *stdout_text = NULL;
  g_autofree char *html = NULL;
  g_autofree char *markdown = NULL;
  g_autoptr(GHashTable) first_models = g_hash_table_new (g_str_hash, g_str_equal);

  g_assert_cmpint (run_cli (&stdout_text, NULL, "study", study, "-o", out, NULL), ==, 0);
  g_assert_nonnull (strstr (stdout_text, "Study grid: 8 cells, 80 requests planned"));
  g_assert_cmpuint (count_rows (study_dir, NULL), ==, N_CELLS * N_ROWS);
  g_assert_cmpuint (count_calls (f->server), ==, N_CALLS);

  /* One gate for every cell: never more in flight than the study's
   * concurrency (3 LLM experiments of 4 each would reach 12), and the
   * cells' requests in flight together: the first calls the server
   * received are of more than one model.  An order, not a race: when the
   * gate opens it hands its slots round the experiments (bm25's first) in
   * one go, before the client can read any answer; checked 20/20 beside
   * two busy loops. */
  g_assert_cmpuint (anot_fake_llm_get_peak_in_flight (f->server), <=, CONCURRENCY);
  for (guint i = 0; i < CONCURRENCY - 1; i++)
    g_hash_table_add (first_models,
                      (gpointer) json_object_get_string_member (anot_fake_llm_get_request (f->server, i), "model"));
  g_assert_cmpuint (g_hash_table_size (first_models), >=, 2);

  /* The report and the comparison name every method with its model. */
  g_assert_true (g_file_get_contents (report, &html, NULL, NULL));
  g_assert_true (g_file_get_contents (comparison, &markdown, NULL, NULL));
  g_assert_true (g_file_test (csv, G_FILE_TEST_IS_REGULAR));
  for (guint c = 0; c < N_CELLS; c++)
    {
      g_assert_nonnull (strstr (html, cells[c].label));
      g_assert_nonnull (strstr (markdown, cells[c].label));
    }
  g_assert_nonnull (strstr (markdown, "| cot@gpt-4.1-mini | bm25 | typo_10 |"));
  /* anot-run compare of one of its experiments keeps the study's name. */
  {
    g_autofree char *listwise = g_build_filename (study_dir, "listwise@gpt-4o-mini", NULL);
    g_autofree char *compared = NULL;

    g_assert_cmpint (run_cli (&compared, NULL, "compare", listwise, NULL), ==, 0);
    g_assert_nonnull (strstr (compared, "listwise@gpt-4o-mini  clean"));
  }

  /* Each cell equals the same cell run alone. */
  for (guint c = 0; c < N_CELLS; c++)
    {
      g_autofree char *name = g_strdup_printf ("lone%u", c);
      g_autofree char *limit = g_strdup_printf ("%u", N_ROWS);
      g_autofree char *lone = g_build_filename (out, name, cells[c].attack, "run_1", "results_10.jsonl", NULL);
      g_autofree char *in_study = cell_results (study_dir, c);
      g_autoptr(GHashTable) lone_rows = NULL;
      g_autoptr(GHashTable) study_rows = NULL;

      if (cells[c].model != NULL)
        g_assert_cmpint (run_cli (NULL, NULL, "-m", cells[c].method, "--model", cells[c].model,
                                  "--backend", "openai", "--base-url", f->base_url,
                                  "--attack", cells[c].attack, "--limit", limit, "-n", "10",
                                  "-o", out, "--name", name, NULL), ==, 0);
      else
        g_assert_cmpint (run_cli (NULL, NULL, "-m", cells[c].method, "--attack", cells[c].attack,
                                  "--limit", limit, "-n", "10", "-o", out, "--name", name, NULL), ==, 0);
      lone_rows = read_rows (lone, NULL);
      study_rows = read_rows (in_study, NULL);
      g_assert_cmpuint (g_hash_table_size (study_rows), ==, N_ROWS);
      anot_test_assert_same_rows (lone_rows, study_rows);
    }

  /* The same command again: nothing left, nothing called. */
  {
    guint before = count_calls (f->server);

    g_assert_cmpint (run_cli (NULL, NULL, "study", study, "-o", out, NULL), ==, 0);
    g_assert_cmpuint (count_calls (f->server), ==, before);
  }
}

/* The estimate's total is the sum of its cells, and each cell's figures
 * are those of `anot-run estimate` on the cell alone. */
static void
test_estimate (Fixture       *f,
               gconstpointer  data)
{
  g_autofree char *study = write_study (f, "study.ini", NULL);
  g_autofree char *out = g_build_filename (f->root, "out", NULL);
  g_autofree char *json_text = NULL;
  g_autofree char *text = NULL;
  g_autoptr(JsonParser) parser = json_parser_new ();
  JsonObject *total;
  JsonArray *cell_array;
  static const char * const ints[] = { "requests", "calls", "prompt_tokens", "completion_tokens" };
  gint64 sums[G_N_ELEMENTS (ints)] = { 0 };
  gint64 lone_sums[G_N_ELEMENTS (ints)] = { 0 };
  double cost = 0, batch = 0, lone_cost = 0, lone_batch = 0;

  g_assert_cmpint (run_cli (&json_text, NULL, "study", study, "-o", out, "--estimate", "--json", NULL), ==, 0);
  g_assert_true (json_parser_load_from_data (parser, json_text, -1, NULL));
  total = json_object_get_object_member (json_node_get_object (json_parser_get_root (parser)), "total");
  cell_array = json_object_get_array_member (json_node_get_object (json_parser_get_root (parser)), "cells");
  g_assert_cmpuint (json_array_get_length (cell_array), ==, N_CELLS);

  for (guint c = 0; c < N_CELLS; c++)
    {
      JsonObject *cell = json_array_get_object_element (cell_array, c);
      g_autofree char *name = g_strconcat (cells[c].label, "/", cells[c].attack, NULL);
      g_autofree char *limit = g_strdup_printf ("%u", N_ROWS);
      g_autofree char *lone_text = NULL;
      g_autoptr(JsonParser) lone_parser = json_parser_new ();
      JsonObject *lone;

      g_assert_cmpstr (json_object_get_string_member (cell, "cell"), ==, name);
      for (guint m = 0; m < G_N_ELEMENTS (ints); m++)
        sums[m] += json_object_get_int_member (cell, ints[m]);
      cost += json_object_get_double_member (cell, "cost_usd");
      batch += json_object_get_double_member (cell, "batch_cost_usd");

      if (cells[c].model != NULL)
        g_assert_cmpint (run_cli (&lone_text, NULL, "estimate", "--json", "-m", cells[c].method,
                                  "--model", cells[c].model, "--backend", "openai",
                                  "--base-url", f->base_url, "--attack", cells[c].attack,
                                  "--limit", limit, "-n", "10", NULL), ==, 0);
      else
        g_assert_cmpint (run_cli (&lone_text, NULL, "estimate", "--json", "-m", cells[c].method,
                                  "--attack", cells[c].attack, "--limit", limit, "-n", "10", NULL), ==, 0);
      g_assert_true (json_parser_load_from_data (lone_parser, lone_text, -1, NULL));
      lone = json_object_get_object_member (json_node_get_object (json_parser_get_root (lone_parser)), "total");
      for (guint m = 0; m < G_N_ELEMENTS (ints); m++)
        {
          g_assert_cmpint (json_object_get_int_member (lone, ints[m]), ==, json_object_get_int_member (cell, ints[m]));
          lone_sums[m] += json_object_get_int_member (lone, ints[m]);
        }
      g_assert_cmpfloat_with_epsilon (json_object_get_double_member (lone, "cost_usd"),
                                      json_object_get_double_member (cell, "cost_usd"), 1e-9);
      lone_cost += json_object_get_double_member (lone, "cost_usd");
      lone_batch += json_object_get_double_member (lone, "batch_cost_usd");
    }
  for (guint m = 0; m < G_N_ELEMENTS (ints); m++)
    {
      g_assert_cmpint (json_object_get_int_member (total, ints[m]), ==, sums[m]);
      g_assert_cmpint (sums[m], ==, lone_sums[m]);
    }
  g_assert_cmpint (json_object_get_int_member (total, "requests"), ==, N_CELLS * N_ROWS);
  g_assert_cmpint (json_object_get_int_member (total, "calls"), ==, N_CALLS);
  g_assert_cmpfloat (cost, >, 0);
  g_assert_cmpfloat_with_epsilon (json_object_get_double_member (total, "cost_usd"), cost, 1e-9);
  g_assert_cmpfloat_with_epsilon (json_object_get_double_member (total, "batch_cost_usd"), batch, 1e-9);
  g_assert_cmpfloat_with_epsilon (cost, lone_cost, 1e-9);
  g_assert_cmpfloat_with_epsilon (batch, lone_batch, 1e-9);

  /* The text form ends with anot-run estimate's Total: line. */
  g_assert_cmpint (run_cli (&text, NULL, "study", study, "-o", out, "--estimate", NULL), ==, 0);
  g_assert_nonnull (strstr (text, "\nTotal: 80 requests, 60 calls"));
  g_assert_true (g_str_has_suffix (text, " batched\n"));
  /* Nothing was called or written. */
  g_assert_cmpuint (count_calls (f->server), ==, 0);
  g_assert_false (g_file_test (out, G_FILE_TEST_EXISTS));
}

/* Three shards merged are what one process writes. */
static void
test_shards (Fixture       *f,
             gconstpointer  data)
{
  g_autofree char *study = write_study (f, "study.ini", NULL);
  g_autofree char *one = g_build_filename (f->root, "one", NULL);
  g_autofree char *one_dir = g_build_filename (one, "grid", NULL);
  g_autofree char *merged = g_build_filename (f->root, "merged", NULL);
  g_autofree char *report = g_build_filename (merged, "report.html", NULL);
  g_autofree char *record = g_build_filename (merged, "study.json", NULL);
  g_autoptr(GPtrArray) shard_dirs = g_ptr_array_new_with_free_func (g_free);
  guint planned_total = 0;

  for (guint i = 0; i < 3; i++)
    {
      g_autofree char *shard = g_strdup_printf ("%u/3", i);
      g_autofree char *root = g_strdup_printf ("%s/shards/%u", f->root, i);
      g_autofree char *text = NULL;
      const char *planned;

      g_assert_cmpint (run_cli (&text, NULL, "study", study, "-o", root, "--shard", shard, NULL), ==, 0);
      planned = strstr (text, "8 cells, ");
      g_assert_nonnull (planned);
      planned_total += (guint) g_ascii_strtoull (planned + strlen ("8 cells, "), NULL, 10);
      g_ptr_array_add (shard_dirs, g_build_filename (root, "grid", NULL));
    }
  g_assert_cmpuint (planned_total, ==, N_CELLS * N_ROWS);
  g_assert_cmpuint (count_calls (f->server), ==, N_CALLS);
  g_ptr_array_add (shard_dirs, NULL);
  {
    g_autoptr(GPtrArray) argv = g_ptr_array_new ();
    g_autoptr(GSubprocess) process = NULL;

    g_ptr_array_add (argv, (gpointer) "merge");
    g_ptr_array_add (argv, merged);
    for (guint i = 0; i < 3; i++)
      g_ptr_array_add (argv, g_ptr_array_index (shard_dirs, i));
    g_ptr_array_add (argv, NULL);
    process = spawn ((const char * const *) argv->pdata);
    g_assert_cmpint (anot_test_cli_wait (process, NULL, NULL, NULL, NULL), ==, 0);
  }
  g_assert_true (g_file_test (report, G_FILE_TEST_IS_REGULAR));
  g_assert_true (g_file_test (record, G_FILE_TEST_IS_REGULAR));

  g_assert_cmpint (run_cli (NULL, NULL, "study", study, "-o", one, NULL), ==, 0);
  assert_same_study (one_dir, merged);

  /* Two shards of three are refused, naming the missing one. */
  {
    g_autofree char *err = NULL;
    g_autofree char *partial = g_build_filename (f->root, "partial", NULL);

    g_assert_cmpint (run_cli (NULL, &err, "merge", partial, g_ptr_array_index (shard_dirs, 0),
                              g_ptr_array_index (shard_dirs, 2), NULL), ==, 2);
    g_assert_nonnull (strstr (err, "Shard 1/3 of the study is missing"));
  }
}

typedef struct
{
  const char *study_dir;
  GSubprocess *process;
  gboolean killed;
} KillState;

static void
kill_half_way (gpointer user_data)
{
  KillState *state = user_data;

  if (state->killed || count_rows (state->study_dir, NULL) < N_CELLS * N_ROWS / 2)
    return;
  g_subprocess_force_exit (state->process);    /* SIGKILL */
  state->killed = TRUE;
}

/* Killed half-way (SIGKILL) and started again, it pays no call twice:
 * every call the server answered before the kill is not made again;
 * only those the kill cut in flight (at most the study's concurrency)
 * are, and the rows equal those of an uninterrupted study. */
static void
test_kill_resume (Fixture       *f,
                  gconstpointer  data)
{
  g_autofree char *study = write_study (f, "study.ini", NULL);
  g_autofree char *out = g_build_filename (f->root, "out", NULL);
  g_autofree char *study_dir = g_build_filename (out, "grid", NULL);
  g_autofree char *reference = g_build_filename (f->root, "reference", NULL);
  g_autofree char *reference_dir = g_build_filename (reference, "grid", NULL);
  const char *argv[] = { "study", study, "-o", out, NULL };
  g_autoptr(GHashTable) before = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  KillState state = { study_dir, NULL, FALSE };
  guint rows_at_kill, calls_at_kill, again = 0, total;
  g_autoptr(GError) error = NULL;

  /* Answers late enough that the kill lands with rows written and
   * requests left. */
  g_assert_true (anot_fake_llm_set_rules_json (f->server, "{\"default_reply\": \"[3, 1, 2, 5, 4]\", "
                                               "\"latency_ms\": 30}", &error));
  g_assert_no_error (error);
  state.process = spawn (argv);
  anot_test_cli_wait (state.process, kill_half_way, &state, NULL, NULL);
  g_assert_true (state.killed);
  g_assert_false (g_subprocess_get_if_exited (state.process));
  g_object_unref (state.process);
  rows_at_kill = count_rows (study_dir, NULL);
  calls_at_kill = anot_fake_llm_get_n_requests (f->server);
  g_test_message ("killed with %u rows, %u calls", rows_at_kill, calls_at_kill);
  g_assert_cmpuint (rows_at_kill, <, N_CELLS * N_ROWS);

  for (guint i = 0; i < calls_at_kill; i++)
    {
      JsonObject *request = anot_fake_llm_get_request (f->server, i);
      g_autofree char *body = json_to_string (json_object_get_member (request, "body"), FALSE);

      g_hash_table_add (before, g_steal_pointer (&body));
    }

  g_assert_cmpint (run_cli (NULL, NULL, "study", study, "-o", out, NULL), ==, 0);
  g_assert_cmpuint (count_rows (study_dir, NULL), ==, N_CELLS * N_ROWS);
  total = anot_fake_llm_get_n_requests (f->server);
  for (guint i = calls_at_kill; i < total; i++)
    {
      JsonObject *request = anot_fake_llm_get_request (f->server, i);
      g_autofree char *body = json_to_string (json_object_get_member (request, "body"), FALSE);

      if (g_hash_table_contains (before, body))
        again++;
    }
  g_test_message ("%u calls made again (cut in flight)", again);
  g_assert_cmpuint (again, <=, CONCURRENCY);
  g_assert_cmpuint (total, ==, N_CALLS + again);

  g_assert_cmpint (run_cli (NULL, NULL, "study", study, "-o", reference, NULL), ==, 0);
  assert_same_study (reference_dir, study_dir);
}

/* max_cost at 40 % of what the whole study costs stops it with exit 3
 * within the cap; the same command with a higher cap finishes it, no
 * call made twice. */
static void
test_budget (Fixture       *f,
             gconstpointer  data)
{
  g_autofree char *study = write_study (f, "study.ini", NULL);
  g_autofree char *whole = g_build_filename (f->root, "whole", NULL);
  g_autofree char *whole_dir = g_build_filename (whole, "grid", NULL);
  g_autofree char *out = g_build_filename (f->root, "out", NULL);
  g_autofree char *study_dir = g_build_filename (out, "grid", NULL);
  g_autofree char *capped = NULL;
  g_autofree char *cap_text = NULL;
  g_autofree char *err = NULL;
  double whole_cost, spent, cap;
  guint calls_before;

  g_assert_cmpint (run_cli (NULL, NULL, "study", study, "-o", whole, NULL), ==, 0);
  count_rows (whole_dir, &whole_cost);
  g_assert_cmpfloat (whole_cost, >, 0);
  cap = 0.4 * whole_cost;
  calls_before = count_calls (f->server);

  cap_text = g_strdup_printf ("max_cost = %.6f\n", cap);
  capped = write_study (f, "capped.ini", cap_text);
  g_assert_cmpint (run_cli (NULL, &err, "study", capped, "-o", out, NULL), ==, 3);
  g_assert_nonnull (strstr (err, "Stopped by the study's budget"));
  count_rows (study_dir, &spent);
  g_test_message ("whole $%.4f, cap $%.4f, spent $%.4f", whole_cost, cap, spent);
  g_assert_cmpfloat (spent, <=, cap);
  g_assert_cmpfloat (spent, >, 0);
  g_assert_cmpuint (count_rows (study_dir, NULL), <, N_CELLS * N_ROWS);

  g_assert_cmpint (run_cli (NULL, NULL, "study", capped, "-o", out, "--max-cost", "1000", NULL), ==, 0);
  g_assert_cmpuint (count_rows (study_dir, NULL), ==, N_CELLS * N_ROWS);
  g_assert_cmpuint (count_calls (f->server) - calls_before, ==, N_CALLS);
  assert_same_study (whole_dir, study_dir);
}

/* --retry R runs the rows the infrastructure failed again. */
static void
test_retry (Fixture       *f,
            gconstpointer  data)
{
  g_autofree char *study = write_study (f, "study.ini", NULL);
  g_autofree char *out = g_build_filename (f->root, "out", NULL);
  g_autofree char *study_dir = g_build_filename (out, "grid", NULL);
  g_autofree char *again = g_build_filename (f->root, "again", NULL);
  g_autoptr(GError) error = NULL;
  static const char rules[] =
    "{\"default_reply\": \"[3, 1, 2, 5, 4]\", "
    "\"rules\": [{\"match\": \".\", \"fault\": \"500\", \"times\": 3}]}";

  /* Three calls fail (no retry inside the run): without --retry the study
   * is incomplete (exit 4)... */
  g_assert_true (anot_fake_llm_set_rules_json (f->server, rules, &error));
  g_assert_no_error (error);
  g_assert_cmpint (run_cli (NULL, NULL, "study", study, "-o", again, NULL), ==, 4);

  /* ...with it, they are run again in a second round. */
  g_assert_true (anot_fake_llm_set_rules_json (f->server, rules, &error));
  g_assert_cmpint (run_cli (NULL, NULL, "study", study, "-o", out, "--retry", "2", NULL), ==, 0);
  g_assert_cmpuint (count_rows (study_dir, NULL), ==, N_CELLS * N_ROWS);
}

/* A key, method, attack or option the study does not know is refused
 * before anything runs, naming the file, the line and the key. */
static void
test_refused (Fixture       *f,
              gconstpointer  data)
{
  static const struct
  {
    const char *extra;       /* appended to [study] */
    const char *where;       /* what stderr names */
  } cases[] = {
    { "limt = 3", "bad.ini:11: [study] limt:" },
    { "model = gpt-4o", "bad.ini:11: [study] model:" },
    { "[method nosuch]", "bad.ini:11: [method nosuch]: unknown method" },
    { "[method cot]\noptions = cot.nosuch=1", "bad.ini:12: [method cot] options:" },
    { "[method random]\nmodel = x", "bad.ini:12: [method random] model:" },
  };
  g_autofree char *out = g_build_filename (f->root, "out", NULL);

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *study = write_study (f, "bad.ini", cases[i].extra);
      g_autofree char *err = NULL;

      g_assert_cmpint (run_cli (NULL, &err, "study", study, "-o", out, NULL), ==, 2);
      g_assert_nonnull (strstr (err, cases[i].where));
    }

  /* An attack nobody registered: the line of `attacks`. */
  {
    g_autofree char *path = g_build_filename (f->root, "attack.ini", NULL);
    g_autofree char *text = g_strdup_printf ("[study]\nattacks = clean, typo_99\nlimit = 2\n"
                                             "base_url = %s\n[method bm25]\n", f->base_url);
    g_autofree char *err = NULL;

    g_assert_true (g_file_set_contents (path, text, -1, NULL));
    g_assert_cmpint (run_cli (NULL, &err, "study", path, "-o", out, NULL), ==, 2);
    g_assert_nonnull (strstr (err, "attack.ini:2: [study] attacks: No attack or attack category named “typo_99”"));
  }
  g_assert_false (g_file_test (out, G_FILE_TEST_EXISTS));
  g_assert_cmpuint (count_calls (f->server), ==, 0);
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);

  g_test_add ("/study/refused", Fixture, NULL, fixture_setup, test_refused, fixture_teardown);
  g_test_add ("/study/grid", Fixture, NULL, fixture_setup, test_grid, fixture_teardown);
  g_test_add ("/study/estimate", Fixture, NULL, fixture_setup, test_estimate, fixture_teardown);
  g_test_add ("/study/shards", Fixture, NULL, fixture_setup, test_shards, fixture_teardown);
  g_test_add ("/study/kill-resume", Fixture, NULL, fixture_setup, test_kill_resume, fixture_teardown);
  g_test_add ("/study/budget", Fixture, NULL, fixture_setup, test_budget, fixture_teardown);
  g_test_add ("/study/retry", Fixture, NULL, fixture_setup, test_retry, fixture_teardown);
  return g_test_run ();
}
