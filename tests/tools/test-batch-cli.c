/* test-batch-cli.c: anot-run --batch against the fake LLM server, killed
 * while a batch is pending and resumed
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <anot/anot.h>

#include "anot-test-data.h"
#include <glib/gstdio.h>
#include <signal.h>
#include <string.h>

#include "anot-fake-llm.h"
#include "anot-test-cli.h"

typedef AnotTestCli Fixture;

static void
fixture_setup (Fixture       *f,
               gconstpointer  data)
{
  /* A reply cot reads as a ranking, so the rows have predictions. */
  anot_test_cli_setup (f, "anot-test-batch-cli-XXXXXX", "{\"default_reply\": \"[3, 1, 2, 5, 4]\"}");
}

static void
fixture_teardown (Fixture       *f,
                  gconstpointer  data)
{
  anot_test_cli_teardown (f);
}

/* anot-run with @extra (NULL-terminated), its output silenced. */
static GSubprocess *
spawn (Fixture     *f,
       const char **extra)
{
  return anot_test_cli_spawn (G_SUBPROCESS_FLAGS_STDOUT_SILENCE | G_SUBPROCESS_FLAGS_STDERR_SILENCE,
                              extra, NULL);
}

/* Its exit status; the fake server answers on this main loop meanwhile. */
static int
wait_for (GSubprocess *process)
{
  return anot_test_cli_wait (process, NULL, NULL, NULL, NULL);
}

static int
run (Fixture    *f,
     const char *name,
     gboolean    batch)
{
  g_autoptr(GSubprocess) process = NULL;
  const char *argv[] = {
    "--method", "cot", "--backend", "openai", "--base-url", f->base_url, "--model", "gpt-4o-mini",
    "--candidates", "5", "--limit", "4", "--out", f->root, "--name", name,
    batch ? "--batch" : NULL, NULL,
  };

  process = spawn (f, argv);
  return wait_for (process);
}

#define count_requests anot_test_cli_count_requests

/* anot-run with @argv, killed (SIGKILL) once @state records a submitted
 * batch: a run interrupted while its batch runs. */
static void
kill_once_submitted (Fixture     *f,
                     const char **argv,
                     const char  *state)
{
  g_autoptr(GSubprocess) process = spawn (f, argv);

  for (;;)
    {
      g_autofree char *contents = NULL;

      if (g_file_get_contents (state, &contents, NULL, NULL) && strstr (contents, "\"submitted\"") != NULL)
        break;
      /* Not blocking: the file is looked at between the server's work. */
      if (!g_main_context_iteration (NULL, FALSE))
        g_usleep (2000);
    }
  g_subprocess_force_exit (process);
  wait_for (process);
  g_assert_true (g_subprocess_get_if_signaled (process));
  g_assert_cmpint (g_subprocess_get_term_sig (process), ==, SIGKILL);
}

/* The rows of a results file by request, without what depends on how
 * the calls were made (latency, cost). */
static GHashTable *
read_rows (const char *path,
           double     *total_cost)
{
  g_autofree char *contents = NULL;
  g_auto(GStrv) lines = NULL;
  GHashTable *rows = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);

  *total_cost = 0;
  g_assert_true (g_file_get_contents (path, &contents, NULL, NULL));
  lines = g_strsplit (contents, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    {
      g_autoptr(JsonParser) parser = json_parser_new ();
      g_autoptr(JsonGenerator) generator = json_generator_new ();
      JsonObject *row;

      if (*lines[i] == '\0')
        continue;
      g_assert_true (json_parser_load_from_data (parser, lines[i], -1, NULL));
      row = json_node_get_object (json_parser_get_root (parser));
      *total_cost += json_object_get_double_member (row, "cost_usd");
      json_object_remove_member (row, "latency_ms");
      json_object_remove_member (row, "cost_usd");
      json_object_remove_member (row, "by_model");
      json_object_remove_member (row, "by_role");
      json_generator_set_root (generator, json_parser_get_root (parser));
      g_hash_table_insert (rows, g_strdup (json_object_get_string_member (row, "request_id")),
                           json_generator_to_data (generator, NULL));
    }
  return rows;
}

/* A batch run is killed with SIGKILL while its batch is pending; the
 * resumed run polls the recorded batch, submits nothing, and ends with
 * the rows of an uninterrupted direct run at half its cost. */
static void
test_kill_and_resume (Fixture       *f,
                      gconstpointer  data)
{
  g_autofree char *killed = g_build_filename (f->root, "killed", NULL);
  g_autofree char *state = g_build_filename (killed, "batches.jsonl", NULL);
  g_autofree char *direct_rows_path = g_build_filename (f->root, "direct", "clean", "run_1", "results_5.jsonl", NULL);
  g_autofree char *killed_rows_path = g_build_filename (killed, "clean", "run_1", "results_5.jsonl", NULL);
  g_autoptr(GSubprocess) process = NULL;
  g_autoptr(GHashTable) direct_rows = NULL;
  g_autoptr(GHashTable) resumed_rows = NULL;
  double direct_cost, resumed_cost;
  guint direct_calls;
  const char *batch_argv[] = {
    "--method", "cot", "--backend", "openai", "--base-url", f->base_url, "--model", "gpt-4o-mini",
    "--candidates", "5", "--limit", "4", "--out", f->root, "--name", "killed", "--batch", NULL,
  };
  const char *resume_argv[] = { "--resume", killed, NULL };

  /* The reference: direct calls. */
  g_assert_cmpint (run (f, "direct", FALSE), ==, 0);
  direct_calls = count_requests (f->server, "POST", "/v1/chat/completions");
  g_assert_cmpuint (direct_calls, ==, 4);
  direct_rows = read_rows (direct_rows_path, &direct_cost);

  /* The batch run, killed once its batch is submitted and recorded. */
  anot_fake_llm_set_batch_delay_ms (f->server, 1500);
  kill_once_submitted (f, batch_argv, state);
  g_assert_cmpuint (count_requests (f->server, "POST", "/v1/batches"), ==, 1);
  g_assert_cmpuint (anot_fake_llm_get_n_batch_lines (f->server), ==, 0);

  /* The resumed run polls the same batch. */
  process = spawn (f, resume_argv);
  g_assert_cmpint (wait_for (process), ==, 0);
  g_assert_cmpuint (count_requests (f->server, "POST", "/v1/batches"), ==, 1);
  g_assert_cmpuint (count_requests (f->server, "POST", "/v1/files"), ==, 1);
  g_assert_cmpuint (anot_fake_llm_get_n_batch_lines (f->server), ==, 4);
  g_assert_cmpuint (count_requests (f->server, "POST", "/v1/chat/completions"), ==, direct_calls);

  resumed_rows = read_rows (killed_rows_path, &resumed_cost);
  anot_test_assert_same_rows (direct_rows, resumed_rows);
  /* gpt-4o-mini: $0.15/$0.60 per million tokens, $0.075/$0.30 batched. */
  g_assert_cmpfloat_with_epsilon (resumed_cost, direct_cost / 2, 1e-9);
}

/* The `total` of `anot-run estimate --json` with @extra, which calls no
 * LLM (so it may run synchronously). */
static JsonObject *
estimate_total (const char **extra)
{
  g_autoptr(GPtrArray) argv = g_ptr_array_new ();
  g_autoptr(GSubprocess) process = NULL;
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(GError) error = NULL;
  g_autofree char *stdout_text = NULL;

  g_ptr_array_add (argv, (gpointer) g_getenv ("ANOT_RUN"));
  g_ptr_array_add (argv, (gpointer) "estimate");
  g_ptr_array_add (argv, (gpointer) "--json");
  for (guint i = 0; extra[i] != NULL; i++)
    g_ptr_array_add (argv, (gpointer) extra[i]);
  g_ptr_array_add (argv, NULL);
  process = g_subprocess_newv ((const char * const *) argv->pdata, G_SUBPROCESS_FLAGS_STDOUT_PIPE,
                               &error);
  g_assert_no_error (error);
  g_assert_true (g_subprocess_communicate_utf8 (process, NULL, NULL, &stdout_text, NULL, &error));
  g_assert_no_error (error);
  g_assert_cmpint (g_subprocess_get_exit_status (process), ==, 0);
  g_assert_true (json_parser_load_from_data (parser, stdout_text, -1, &error));
  g_assert_no_error (error);
  return json_object_ref (json_object_get_object_member (json_node_get_object (json_parser_get_root (parser)),
                                                         "total"));
}

/* --max-cost stops starting requests before the budget is passed, exits
 * with 3, and --resume with a higher budget finishes the run. */
static void
test_budget (Fixture       *f,
             gconstpointer  data)
{
  g_autofree char *dir = g_build_filename (f->root, "budget", NULL);
  g_autofree char *rows_path = g_build_filename (dir, "clean", "run_1", "results_5.jsonl", NULL);
  g_autoptr(GHashTable) rows = NULL;
  g_autoptr(GSubprocess) process = NULL;
  double cost;
  guint first_rows;
  const char *argv[] = {
    "--method", "cot", "--backend", "openai", "--base-url", f->base_url, "--model", "gpt-4o",
    "--candidates", "5", "--limit", "12", "--concurrency", "2", "--out", f->root,
    "--name", "budget", "--max-cost", "0.1", NULL,
  };
  const char *resume_argv[] = { "--resume", dir, "--max-cost", "1", NULL };
  const char *bad_argv[] = { "--method", "cot", "--max-cost-role", "planner", NULL };

  /* About 12 000 prompt tokens a request at $2.50 per million: $0.03. */
  process = spawn (f, argv);
  g_assert_cmpint (wait_for (process), ==, 3);
  rows = read_rows (rows_path, &cost);
  first_rows = g_hash_table_size (rows);
  g_assert_cmpuint (first_rows, >=, 2);
  g_assert_cmpuint (first_rows, <, 12);
  g_assert_cmpfloat (cost, <=, 0.1);
  g_clear_pointer (&rows, g_hash_table_unref);
  g_clear_object (&process);

  /* The estimate of the resume is of what is left. */
  {
    const char *estimate_argv[] = { "--resume", dir, NULL };
    g_autoptr(JsonObject) total = estimate_total (estimate_argv);

    g_assert_cmpint (json_object_get_int_member (total, "requests"), ==, 12 - first_rows);
  }

  process = spawn (f, resume_argv);
  g_assert_cmpint (wait_for (process), ==, 0);
  rows = read_rows (rows_path, &cost);
  g_assert_cmpuint (g_hash_table_size (rows), ==, 12);
  g_assert_cmpfloat (cost, >, 0.1);
  g_clear_object (&process);

  /* A budget is a cap at any concurrency, and in batch mode: each
   * request reserves its estimated cost before it starts, so what the run
   * spends never passes --max-cost, and a batch holds only the lines that
   * fit.  ~$0.03 a request: 0.1 fits three. */
  {
    static const struct { const char *j; gboolean batch; } cases[] = {
      { "1", FALSE }, { "4", FALSE }, { "12", FALSE }, { "12", TRUE },
    };

    for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
      {
        g_autofree char *name = g_strdup_printf ("cap_%s%s", cases[i].j, cases[i].batch ? "_batch" : "");
        g_autofree char *cap_dir = g_build_filename (f->root, name, NULL);
        g_autofree char *cap_rows_path = g_build_filename (cap_dir, "clean", "run_1", "results_5.jsonl", NULL);
        g_autoptr(GHashTable) cap_rows = NULL;
        guint lines_before = anot_fake_llm_get_n_batch_lines (f->server);
        const char *cap_argv[] = {
          "--method", "cot", "--backend", "openai", "--base-url", f->base_url, "--model", "gpt-4o",
          "--candidates", "5", "--limit", "12", "--concurrency", cases[i].j, "--out", f->root,
          "--name", name, "--max-cost", "0.1", cases[i].batch ? "--batch" : NULL, NULL,
        };

        g_clear_object (&process);
        process = spawn (f, cap_argv);
        g_assert_cmpint (wait_for (process), ==, 3);
        cap_rows = read_rows (cap_rows_path, &cost);
        g_test_message ("-j %s%s: %u rows, $%.4f", cases[i].j, cases[i].batch ? " --batch" : "",
                        g_hash_table_size (cap_rows), cost);
        g_assert_cmpfloat (cost, <=, 0.1);
        g_assert_cmpuint (g_hash_table_size (cap_rows), >=, cases[i].batch ? 4 : 2);
        g_assert_cmpuint (g_hash_table_size (cap_rows), <, 12);
        if (cases[i].batch)
          g_assert_cmpuint (anot_fake_llm_get_n_batch_lines (f->server) - lines_before, ==,
                            g_hash_table_size (cap_rows));
      }
  }

  /* A budget smaller than one request starts nothing. */
  {
    g_autofree char *none_dir = g_build_filename (f->root, "budget_none", NULL);
    g_autofree char *none_rows_path = g_build_filename (none_dir, "clean", "run_1", "results_5.jsonl", NULL);
    guint calls_before = count_requests (f->server, "POST", "/v1/chat/completions");
    const char *none_argv[] = {
      "--method", "cot", "--backend", "openai", "--base-url", f->base_url, "--model", "gpt-4o",
      "--candidates", "5", "--limit", "4", "--concurrency", "4", "--out", f->root,
      "--name", "budget_none", "--max-cost", "0.01", NULL,
    };

    g_clear_object (&process);
    process = spawn (f, none_argv);
    g_assert_cmpint (wait_for (process), ==, 3);
    g_assert_cmpuint (count_requests (f->server, "POST", "/v1/chat/completions"), ==, calls_before);
    if (g_file_test (none_rows_path, G_FILE_TEST_EXISTS))
      {
        g_autoptr(GHashTable) none_rows = read_rows (none_rows_path, &cost);

        g_assert_cmpuint (g_hash_table_size (none_rows), ==, 0);
      }
    g_clear_object (&process);
  }

  /* A malformed role budget is a usage error. */
  process = spawn (f, bad_argv);
  g_assert_cmpint (wait_for (process), ==, 2);
}

/* The estimate of a run equals what the run then uses: the same calls and,
 * with the approximation the fake server also counts by, the same prompt
 * tokens; `estimate` calls no LLM. */
static void
test_estimate_matches_run (Fixture       *f,
                           gconstpointer  data)
{
  const char *methods[] = { "cot", "listwise" };

  for (guint m = 0; m < G_N_ELEMENTS (methods); m++)
    {
      g_autofree char *stdout_text = NULL;
      g_autoptr(GSubprocess) process = NULL;
      g_autoptr(JsonParser) parser = json_parser_new ();
      g_autoptr(GError) error = NULL;
      g_autoptr(GHashTable) rows = NULL;
      g_autofree char *rows_path = NULL;
      g_autofree char *name = g_strconcat ("estimated_", methods[m], NULL);
      JsonObject *total;
      GHashTableIter iter;
      gpointer value;
      guint64 prompt_tokens = 0, calls = 0;
      guint requests_before = anot_fake_llm_get_n_requests (f->server);
      double cost;
      const char *estimate_argv[] = {
        g_getenv ("ANOT_RUN"), "estimate", "--method", methods[m], "--backend", "openai",
        "--base-url", f->base_url, "--model", "fake", "--candidates", "24", "--limit", "6",
        "--json", NULL,
      };

      process = g_subprocess_newv (estimate_argv, G_SUBPROCESS_FLAGS_STDOUT_PIPE, &error);
      g_assert_no_error (error);
      g_assert_true (g_subprocess_communicate_utf8 (process, NULL, NULL, &stdout_text, NULL, &error));
      g_assert_no_error (error);
      g_assert_cmpint (g_subprocess_get_exit_status (process), ==, 0);
      g_assert_cmpuint (anot_fake_llm_get_n_requests (f->server), ==, requests_before);
      g_assert_true (json_parser_load_from_data (parser, stdout_text, -1, &error));
      g_assert_no_error (error);
      total = json_object_get_object_member (json_node_get_object (json_parser_get_root (parser)), "total");
      g_assert_cmpstr (json_object_get_string_member (json_object_get_object_member (json_node_get_object (json_parser_get_root (parser)), "tokenizers"), "fake"), ==, "approximate");

      {
        g_autoptr(GSubprocess) run_process = NULL;
        const char *run_argv[] = {
          "--method", methods[m], "--backend", "openai", "--base-url", f->base_url, "--model", "fake",
          "--candidates", "24", "--limit", "6", "--out", f->root, "--name", name, NULL,
        };

        run_process = spawn (f, run_argv);
        g_assert_cmpint (wait_for (run_process), ==, 0);
      }
      rows_path = g_build_filename (f->root, name, "clean", "run_1", "results_24.jsonl", NULL);
      rows = read_rows (rows_path, &cost);
      g_hash_table_iter_init (&iter, rows);
      while (g_hash_table_iter_next (&iter, NULL, &value))
        {
          g_autoptr(JsonParser) row_parser = json_parser_new ();
          JsonObject *row;

          g_assert_true (json_parser_load_from_data (row_parser, value, -1, NULL));
          row = json_node_get_object (json_parser_get_root (row_parser));
          prompt_tokens += json_object_get_int_member (row, "prompt_tokens");
          calls += json_object_get_int_member (row, "calls");
        }
      g_assert_cmpint (json_object_get_int_member (total, "requests"), ==, 6);
      g_assert_cmpint (json_object_get_int_member (total, "calls"), ==, calls);
      g_assert_cmpint (json_object_get_int_member (total, "prompt_tokens"), ==, prompt_tokens);
      g_assert_cmpint (json_object_get_int_member (total, "incomplete"), ==, 0);
      /* At the fallback price, $1 and $3 per million, halved in batch. */
      g_assert_cmpfloat_with_epsilon (json_object_get_double_member (total, "batch_cost_usd"),
                                      json_object_get_double_member (total, "cost_usd") / 2, 1e-9);
    }

  /* A shard's estimate is of its own cells: 6 requests dealt to 4 shards. */
  for (guint shard = 0; shard < 4; shard++)
    {
      g_autofree char *shard_text = g_strdup_printf ("%u/4", shard);
      const char *shard_argv[] = {
        "--method", "cot", "--model", "fake", "--candidates", "24", "--limit", "6",
        "--shard", shard_text, "--out", f->root, "--name", "estimated_shard", NULL,
      };
      g_autoptr(JsonObject) total = estimate_total (shard_argv);

      g_assert_cmpint (json_object_get_int_member (total, "requests"), ==, shard < 2 ? 2 : 1);
    }
}

/* A prompt larger than the context window is shrunk (a review less per
 * candidate each time) before it is sent: the server sees only prompts
 * that fit, and the trace records the calls not sent. */
static void
test_context_fitting (Fixture       *f,
                      gconstpointer  data)
{
  g_autofree char *trace_path = g_build_filename (f->root, "fitted", "clean", "run_1", "trace_10.jsonl", NULL);
  g_autofree char *trace = NULL;
  g_autoptr(GSubprocess) process = NULL;
  guint before = anot_fake_llm_get_n_requests (f->server);
  const char *argv[] = {
    "--method", "cot", "--backend", "openai", "--base-url", f->base_url, "--model", "fake",
    "--candidates", "10", "--limit", "3", "--out", f->root, "--name", "fitted",
    "--context-tokens", "6000", NULL,
  };

  process = spawn (f, argv);
  g_assert_cmpint (wait_for (process), ==, 0);
  /* One call per request reached the server, each within the window. */
  g_assert_cmpuint (anot_fake_llm_get_n_requests (f->server) - before, ==, 3);
  for (guint i = before; i < anot_fake_llm_get_n_requests (f->server); i++)
    g_assert_cmpint (json_object_get_int_member (anot_fake_llm_get_request (f->server, i), "prompt_tokens"), <=, 6000);
  g_assert_true (g_file_get_contents (trace_path, &trace, NULL, NULL));
  g_assert_nonnull (strstr (trace, "not sent: the prompt has"));
  g_assert_nonnull (strstr (trace, "maximum context length of 6000 tokens"));
  g_assert_null (strstr (trace, "\"truncation_retries\":0"));
}

static void
on_communicated (GObject      *source,
                 GAsyncResult *result,
                 gpointer      user_data)
{
  char **stdout_text = user_data;
  g_autoptr(GError) error = NULL;

  g_assert_true (g_subprocess_communicate_utf8_finish (G_SUBPROCESS (source), result,
                                                       stdout_text, NULL, &error));
  g_assert_no_error (error);
}

/* What `anot-run` prints for @extra, run while the fake server answers. */
static char *
run_output (Fixture     *f,
            const char **extra)
{
  g_autoptr(GPtrArray) argv = g_ptr_array_new ();
  g_autoptr(GSubprocess) process = NULL;
  g_autoptr(GError) error = NULL;
  char *stdout_text = NULL;

  g_ptr_array_add (argv, (gpointer) g_getenv ("ANOT_RUN"));
  for (guint i = 0; extra[i] != NULL; i++)
    g_ptr_array_add (argv, (gpointer) extra[i]);
  g_ptr_array_add (argv, NULL);
  process = g_subprocess_newv ((const char * const *) argv->pdata,
                               G_SUBPROCESS_FLAGS_STDOUT_PIPE | G_SUBPROCESS_FLAGS_STDERR_SILENCE,
                               &error);
  g_assert_no_error (error);
  g_subprocess_communicate_utf8_async (process, NULL, NULL, on_communicated, &stdout_text);
  while (stdout_text == NULL)
    g_main_context_iteration (NULL, TRUE);
  g_assert_cmpint (wait_for (process), ==, 0);
  return stdout_text;
}

/* At most --concurrency requests are in flight, which bounds what a batch
 * gathers: a batch run says so when --concurrency is below the requests
 * it plans, and not otherwise. */
static void
test_concurrency_hint (Fixture       *f,
                       gconstpointer  data)
{
  g_autofree char *low = NULL;
  g_autofree char *enough = NULL;
  const char *low_argv[] = {
    "--method", "cot", "--backend", "openai", "--base-url", f->base_url, "--model", "fake",
    "--candidates", "5", "--limit", "3", "--concurrency", "2", "--batch", "--out", f->root,
    "--name", "low", NULL,
  };
  const char *enough_argv[] = {
    "--method", "cot", "--backend", "openai", "--base-url", f->base_url, "--model", "fake",
    "--candidates", "5", "--limit", "3", "--concurrency", "3", "--batch", "--out", f->root,
    "--name", "enough", NULL,
  };

  low = run_output (f, low_argv);
  g_assert_nonnull (strstr (low, "Batch mode: at most 2 requests in flight, so a batch holds "
                                 "the calls of at most 2 of the 3 requests; -j 3 puts them all "
                                 "in each batch"));
  enough = run_output (f, enough_argv);
  g_assert_null (strstr (enough, "Batch mode:"));
  g_assert_nonnull (strstr (enough, "Ran 3 requests"));
}

static void
on_stderr (GObject      *source,
           GAsyncResult *result,
           gpointer      user_data)
{
  char **stderr_text = user_data;
  g_autoptr(GError) error = NULL;

  g_assert_true (g_subprocess_communicate_utf8_finish (G_SUBPROCESS (source), result,
                                                       NULL, stderr_text, &error));
  g_assert_no_error (error);
}

/* anot-run with @extra; its exit status, *@stderr_text what it printed
 * there. */
static int
run_stderr (const char **extra,
            char       **stderr_text)
{
  g_autoptr(GPtrArray) argv = g_ptr_array_new ();
  g_autoptr(GSubprocess) process = NULL;
  g_autoptr(GError) error = NULL;

  g_ptr_array_add (argv, (gpointer) g_getenv ("ANOT_RUN"));
  for (guint i = 0; extra[i] != NULL; i++)
    g_ptr_array_add (argv, (gpointer) extra[i]);
  g_ptr_array_add (argv, NULL);
  process = g_subprocess_newv ((const char * const *) argv->pdata,
                               G_SUBPROCESS_FLAGS_STDOUT_SILENCE | G_SUBPROCESS_FLAGS_STDERR_PIPE,
                               &error);
  g_assert_no_error (error);
  *stderr_text = NULL;
  g_subprocess_communicate_utf8_async (process, NULL, NULL, on_stderr, stderr_text);
  while (*stderr_text == NULL)
    g_main_context_iteration (NULL, TRUE);
  return wait_for (process);
}

/* Waits (serving the fake server) until @path names its holder. */
static void
wait_for_lock (const char *path)
{
  for (;;)
    {
      g_autofree char *contents = NULL;

      if (g_file_get_contents (path, &contents, NULL, NULL) && strstr (contents, "PID ") != NULL)
        return;
      if (!g_main_context_iteration (NULL, FALSE))
        g_usleep (2000);
    }
}

/* One writer per results directory: while a run writes DIR, a resume of
 * DIR, a --force run into it and a merge into it are refused at once
 * (status 2, the holder's PID and host named) and send nothing; the run
 * ends with every row once; after a kill -9 nothing is left locked. */
static void
test_one_writer (Fixture       *f,
                 gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *dir = g_build_filename (f->root, "busy", NULL);
  g_autofree char *lock = g_build_filename (dir, ".anot-lock", NULL);
  g_autofree char *rows_path = g_build_filename (dir, "clean", "run_1", "results_5.jsonl", NULL);
  g_autoptr(GSubprocess) first = NULL;
  g_autoptr(GHashTable) rows = NULL;
  g_autofree char *pid = NULL;
  double cost;
  guint n_calls;
  const char *argv[] = {
    "--method", "cot", "--backend", "openai", "--base-url", f->base_url, "--model", "gpt-4o-mini",
    "--candidates", "5", "--limit", "6", "--concurrency", "2", "--out", f->root, "--name", "busy", NULL,
  };
  const char *force_argv[] = {
    "--method", "cot", "--backend", "openai", "--base-url", f->base_url, "--model", "gpt-4o-mini",
    "--candidates", "5", "--limit", "6", "--concurrency", "2", "--out", f->root, "--name", "busy",
    "--force", NULL,
  };
  const char *resume_argv[] = { "--resume", dir, NULL };
  g_autofree char *shard0 = g_build_filename (f->root, "shard0", NULL);
  g_autofree char *shard1 = g_build_filename (f->root, "shard1", NULL);
  g_autofree char *shard0_dir = g_build_filename (shard0, "busy", NULL);
  g_autofree char *shard1_dir = g_build_filename (shard1, "busy", NULL);
  const char *merge_argv[] = { "merge", "--force", dir, shard0_dir, shard1_dir, NULL };

  g_assert_true (anot_fake_llm_set_rules_json (f->server, "{\"default_reply\": \"[3, 1, 2, 5, 4]\","
                                               " \"latency_ms\": 400}", &error));
  g_assert_no_error (error);

  /* Shards of the same experiment, for a merge into DIR. */
  for (guint i = 0; i < 2; i++)
    {
      g_autoptr(GSubprocess) shard = NULL;
      const char *shard_argv[] = {
        "--method", "cot", "--backend", "openai", "--base-url", f->base_url, "--model", "gpt-4o-mini",
        "--candidates", "5", "--limit", "6", "--concurrency", "2", "--out", i == 0 ? shard0 : shard1,
        "--name", "busy", "--shard", i == 0 ? "0/2" : "1/2", NULL,
      };

      shard = spawn (f, shard_argv);
      g_assert_cmpint (wait_for (shard), ==, 0);
    }

  first = spawn (f, argv);
  wait_for_lock (lock);
  pid = g_strdup_printf ("PID %s on host %s", g_subprocess_get_identifier (first), g_get_host_name ());

  {
    const char * const *refused[] = { resume_argv, force_argv, merge_argv };

    for (guint i = 0; i < G_N_ELEMENTS (refused); i++)
      {
        g_autofree char *err = NULL;

        /* The first run keeps calling meanwhile: that no refused process
         * called is the total below (12, the shards' and the run's). */
        g_assert_cmpint (run_stderr ((const char **) refused[i], &err), ==, 2);
        if (strstr (err, "is being written by another process") == NULL)
          g_error ("%s: %s", refused[i][0], err);
        g_assert_nonnull (strstr (err, pid));
      }
  }

  g_assert_cmpint (wait_for (first), ==, 0);
  n_calls = count_requests (f->server, "POST", "/v1/chat/completions");
  /* 6 for the shards, 6 for the run: none for those refused. */
  g_assert_cmpuint (n_calls, ==, 12);
  rows = read_rows (rows_path, &cost);
  g_assert_cmpuint (g_hash_table_size (rows), ==, 6);
  g_clear_object (&first);

  /* Killed with SIGKILL while holding the lock: the next one gets it. */
  first = spawn (f, force_argv);
  wait_for_lock (lock);
  g_subprocess_force_exit (first);
  wait_for (first);
  g_assert_true (g_subprocess_get_if_signaled (first));
  {
    g_autofree char *err = NULL;

    g_assert_cmpint (run_stderr (resume_argv, &err), ==, 0);
  }
  g_clear_pointer (&rows, g_hash_table_unref);
  rows = read_rows (rows_path, &cost);
  g_assert_cmpuint (g_hash_table_size (rows), ==, 6);
}

/* The errors of the rows of @path (NULL for a row without one), and
 * how many rows there are. */
static guint
count_row_errors (const char *path,
                  const char *needle,
                  guint      *n_rows)
{
  g_autofree char *contents = NULL;
  g_auto(GStrv) lines = NULL;
  guint n = 0;

  *n_rows = 0;
  g_assert_true (g_file_get_contents (path, &contents, NULL, NULL));
  lines = g_strsplit (contents, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    {
      g_autoptr(JsonParser) parser = json_parser_new ();
      JsonObject *row;
      const char *error;

      if (*lines[i] == '\0')
        continue;
      g_assert_true (json_parser_load_from_data (parser, lines[i], -1, NULL));
      row = json_node_get_object (json_parser_get_root (parser));
      (*n_rows)++;
      error = json_object_get_string_member_with_default (row, "error", NULL);
      if (error != NULL && (needle == NULL || strstr (error, needle) != NULL))
        n++;
    }
  return n;
}

/* Batches within the providers' limits: a --scaling --batch sweep against
 * a server that refuses a batch over 400 kB or 3 requests completes
 * with every row answered, in batches the server took, for both APIs
 * (the limits given as options: the defaults are the providers' 200 MB
 * and 256 MB, too large for a test, and the server counts the bytes
 * itself, so every line's size is the client's exact count); a
 * call whose line alone passes --batch-max-bytes fails with a message
 * that says so, and sends nothing. */
static void
test_size_limits (Fixture       *f,
                  gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  static const char * const apis[] = { "openai", "anthropic" };

  g_assert_true (anot_fake_llm_set_rules_json (f->server,
                                               "{\"default_reply\": \"[3, 1, 2, 5, 4]\","
                                               " \"batch\": {\"max_bytes\": 400000, \"max_lines\": 3,"
                                               " \"delay_ms\": 50}}", &error));
  g_assert_no_error (error);

  for (guint a = 0; a < G_N_ELEMENTS (apis); a++)
    {
      g_autofree char *name = g_strdup_printf ("limits_%s", apis[a]);
      g_autofree char *url = g_strcmp0 (apis[a], "openai") == 0 ? g_strdup (f->base_url)
                             : g_strdup (anot_fake_llm_get_url (f->server));
      guint batches_before = anot_fake_llm_get_n_batches (f->server);
      guint batches;
      const char *argv[] = {
        "--method", "cot", "--backend", apis[a], "--base-url", url, "--model", "gpt-4o-mini",
        "--scaling", "--limit", "4", "-j", "100", "--batch", "--out", f->root, "--name", name,
        /* The server's limits, as the providers' are the defaults. */
        "--batch-max-bytes", "400000", "--batch-max-size", "3", NULL,
      };
      g_autoptr(GSubprocess) process = spawn (f, argv);

      g_assert_cmpint (wait_for (process), ==, 0);
      for (guint n = 10; n <= 20; n += 10)
        {
          g_autofree char *file = g_strdup_printf ("results_%u.jsonl", n);
          g_autofree char *path = g_build_filename (f->root, name, "clean", "run_1", file, NULL);
          guint n_rows;

          g_assert_cmpuint (count_row_errors (path, NULL, &n_rows), ==, 0);
          g_assert_cmpuint (n_rows, ==, 4);
        }
      /* 8 lines, 3 a batch at most and ~90 kB (N=10) or ~180 kB (N=20)
       * each: more batches than the 1 the line count alone would make. */
      batches = anot_fake_llm_get_n_batches (f->server) - batches_before;
      g_test_message ("%s: %u batches", apis[a], batches);
      g_assert_cmpuint (batches, >=, 4);
      for (guint b = batches_before; b < anot_fake_llm_get_n_batches (f->server); b++)
        g_assert_cmpint (json_object_get_int_member (anot_fake_llm_get_batch (f->server, b), "n_lines"), <=, 3);
    }

  /* One line over the limit: its call fails, nothing is submitted. */
  {
    g_autofree char *path = g_build_filename (f->root, "too_big", "clean", "run_1", "results_5.jsonl", NULL);
    guint batches_before = anot_fake_llm_get_n_batches (f->server);
    guint n_rows;
    const char *argv[] = {
      "--method", "cot", "--backend", "openai", "--base-url", f->base_url, "--model", "gpt-4o-mini",
      "--candidates", "5", "--limit", "2", "--batch", "--batch-max-bytes", "8000",
      "--out", f->root, "--name", "too_big", NULL,
    };
    g_autoptr(GSubprocess) process = spawn (f, argv);

    g_assert_cmpint (wait_for (process), ==, 1);
    g_assert_cmpuint (count_row_errors (path, "more than one batch may hold", &n_rows), ==, 2);
    g_assert_cmpuint (n_rows, ==, 2);
    g_assert_cmpuint (anot_fake_llm_get_n_batches (f->server), ==, batches_before);
  }
}

/* A kill in the creation window: the provider created the batch but its
 * answer never reached the run (killed while the server was slow to
 * answer), so batches.jsonl holds the intent and no batch id.  The resume
 * asks the provider (OpenAI: the batch whose metadata names the intent;
 * Anthropic: the batch in the list whose results hold the intent's custom
 * ids) and polls that batch, not a newer one of as many calls: nothing is
 * created or paid twice, and every row is there. */
static void
test_kill_during_creation (Fixture       *f,
                           gconstpointer  data)
{
  static const char * const apis[] = { "openai", "anthropic" };
  g_autoptr(GError) error = NULL;

  g_assert_true (anot_fake_llm_set_rules_json (f->server,
                                               "{\"default_reply\": \"[3, 1, 2, 5, 4]\","
                                               " \"batch\": {\"create_delay_ms\": 60000, \"delay_ms\": 200}}",
                                               &error));
  g_assert_no_error (error);

  for (guint a = 0; a < G_N_ELEMENTS (apis); a++)
    {
      g_autofree char *name = g_strdup_printf ("creation_%s", apis[a]);
      g_autofree char *dir = g_build_filename (f->root, name, NULL);
      g_autofree char *state = g_build_filename (dir, "batches.jsonl", NULL);
      g_autofree char *rows_path = g_build_filename (dir, "clean", "run_1", "results_5.jsonl", NULL);
      g_autofree char *url = g_strcmp0 (apis[a], "openai") == 0 ? g_strdup (f->base_url)
                             : g_strdup (anot_fake_llm_get_url (f->server));
      const char *create_path = g_strcmp0 (apis[a], "openai") == 0 ? "/v1/batches" : "/v1/messages/batches";
      guint batches_before = anot_fake_llm_get_n_batches (f->server);
      g_autoptr(GSubprocess) process = NULL;
      g_autoptr(GHashTable) rows = NULL;
      g_autofree char *contents = NULL;
      double cost;
      const char *argv[] = {
        "--method", "cot", "--backend", apis[a], "--base-url", url, "--model", "gpt-4o-mini",
        "--candidates", "5", "--limit", "3", "-j", "3", "--batch", "--out", f->root, "--name", name, NULL,
      };
      const char *resume_argv[] = { "--resume", dir, NULL };
      g_autofree char *decoy_name = g_strdup_printf ("decoy_%s", apis[a]);
      const char *decoy_argv[] = {
        "--method", "cot", "--backend", apis[a], "--base-url", url, "--model", "gpt-4o-mini",
        "--candidates", "4", "--limit", "3", "-j", "3", "--batch", "--out", f->root, "--name", decoy_name, NULL,
      };

      process = spawn (f, argv);
      /* The server has made the batch; its answer is a minute away. */
      while (anot_fake_llm_get_n_batches (f->server) == batches_before)
        if (!g_main_context_iteration (NULL, FALSE))
          g_usleep (2000);
      g_subprocess_force_exit (process);
      wait_for (process);
      g_assert_true (g_subprocess_get_if_signaled (process));
      g_assert_true (g_file_get_contents (state, &contents, NULL, NULL));
      g_assert_nonnull (strstr (contents, "\"intent\""));
      g_assert_null (strstr (contents, "\"submitted\""));
      g_clear_object (&process);

      /* Answers at once from now on. */
      g_assert_true (anot_fake_llm_set_rules_json (f->server,
                                                   "{\"default_reply\": \"[3, 1, 2, 5, 4]\","
                                                   " \"batch\": {\"delay_ms\": 200}}", &error));
      g_assert_no_error (error);
      /* A decoy: another run's batch of as many calls (other prompts, so
       * other custom ids), created after the intent and newer than the
       * batch the killed run made.  Creation time and size alone would
       * take it; the custom ids in its results (Anthropic) or its
       * metadata (OpenAI) do not. */
      process = spawn (f, decoy_argv);
      g_assert_cmpint (wait_for (process), ==, 0);
      g_clear_object (&process);
      g_assert_cmpuint (anot_fake_llm_get_n_batches (f->server), ==, batches_before + 2);
      process = spawn (f, resume_argv);
      g_assert_cmpint (wait_for (process), ==, 0);
      g_assert_cmpuint (anot_fake_llm_get_n_batches (f->server), ==, batches_before + 2);
      g_assert_cmpuint (count_requests (f->server, "POST", create_path), ==, 2);
      rows = read_rows (rows_path, &cost);
      g_assert_cmpuint (g_hash_table_size (rows), ==, 3);
      g_clear_pointer (&contents, g_free);
      g_assert_true (g_file_get_contents (state, &contents, NULL, NULL));
      g_assert_nonnull (strstr (contents, "\"submitted\""));

      g_assert_true (anot_fake_llm_set_rules_json (f->server,
                                                   "{\"default_reply\": \"[3, 1, 2, 5, 4]\","
                                                   " \"batch\": {\"create_delay_ms\": 60000, \"delay_ms\": 200}}",
                                                   &error));
      g_assert_no_error (error);
    }

  /* Anthropic, the batch still running when the resume asks: it has no
   * results, so no custom ids to read yet; the newest running batch of as
   * many requests is polled, and its results (matched by custom id when
   * it ends) answer every call: still nothing created twice. */
  {
    g_autofree char *dir = g_build_filename (f->root, "creation_running", NULL);
    g_autofree char *state = g_build_filename (dir, "batches.jsonl", NULL);
    g_autofree char *rows_path = g_build_filename (dir, "clean", "run_1", "results_5.jsonl", NULL);
    g_autofree char *url = g_strdup (anot_fake_llm_get_url (f->server));
    guint batches_before = anot_fake_llm_get_n_batches (f->server);
    guint creates_before = count_requests (f->server, "POST", "/v1/messages/batches");
    g_autoptr(GSubprocess) process = NULL;
    g_autoptr(GHashTable) rows = NULL;
    g_autofree char *contents = NULL;
    double cost;
    const char *argv[] = {
      "--method", "cot", "--backend", "anthropic", "--base-url", url, "--model", "gpt-4o-mini",
      "--candidates", "5", "--limit", "3", "-j", "3", "--batch", "--out", f->root,
      "--name", "creation_running", NULL,
    };
    const char *resume_argv[] = { "--resume", dir, NULL };

    g_assert_true (anot_fake_llm_set_rules_json (f->server,
                                                 "{\"default_reply\": \"[3, 1, 2, 5, 4]\","
                                                 " \"batch\": {\"create_delay_ms\": 60000, \"delay_ms\": 3000}}",
                                                 &error));
    g_assert_no_error (error);
    process = spawn (f, argv);
    while (anot_fake_llm_get_n_batches (f->server) == batches_before)
      if (!g_main_context_iteration (NULL, FALSE))
        g_usleep (2000);
    g_subprocess_force_exit (process);
    wait_for (process);
    g_clear_object (&process);
    g_assert_true (anot_fake_llm_set_rules_json (f->server,
                                                 "{\"default_reply\": \"[3, 1, 2, 5, 4]\","
                                                 " \"batch\": {\"delay_ms\": 3000}}", &error));
    g_assert_no_error (error);
    process = spawn (f, resume_argv);
    g_assert_cmpint (wait_for (process), ==, 0);
    g_assert_cmpuint (anot_fake_llm_get_n_batches (f->server), ==, batches_before + 1);
    g_assert_cmpuint (count_requests (f->server, "POST", "/v1/messages/batches"), ==, creates_before + 1);
    rows = read_rows (rows_path, &cost);
    g_assert_cmpuint (g_hash_table_size (rows), ==, 3);
    g_assert_true (g_file_get_contents (state, &contents, NULL, NULL));
    g_assert_nonnull (strstr (contents, "\"submitted\""));
  }
}

/* The answer to a batch creation is lost to a kill, and the resume cannot
 * ask the provider for its batches (the list answers HTTP 500): the calls,
 * which the batch may hold and the provider bill, are not sent again:
 * unscored, exit 4.  The next resume, the list answering again, finds the
 * batch and polls it: every line was sent once. */
static void
test_list_fails (Fixture       *f,
                 gconstpointer  data)
{
  static const char * const quick_retries[] = {
    "ANOT_MAX_RETRIES=1", "ANOT_RETRY_BASE_MS=20", "ANOT_RETRY_MAX_MS=40", NULL,
  };
  g_autofree char *dir = g_build_filename (f->root, "unlisted", NULL);
  g_autofree char *state = g_build_filename (dir, "batches.jsonl", NULL);
  g_autofree char *rows_path = g_build_filename (dir, "clean", "run_1", "results_5.jsonl", NULL);
  guint batches_before = anot_fake_llm_get_n_batches (f->server);
  guint64 lines_before = anot_fake_llm_get_n_batch_lines (f->server);
  g_autoptr(GSubprocess) process = NULL;
  g_autoptr(GHashTable) rows = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *contents = NULL;
  double cost;
  const char *argv[] = {
    "--method", "cot", "--backend", "openai", "--base-url", f->base_url, "--model", "gpt-4o-mini",
    "--candidates", "5", "--limit", "3", "-j", "3", "--batch", "--out", f->root, "--name", "unlisted", NULL,
  };
  const char *resume_argv[] = { "--resume", dir, NULL };

  g_assert_true (anot_fake_llm_set_rules_json (f->server,
                                               "{\"default_reply\": \"[3, 1, 2, 5, 4]\","
                                               " \"batch\": {\"create_delay_ms\": 60000, \"delay_ms\": 200}}",
                                               &error));
  g_assert_no_error (error);
  process = spawn (f, argv);
  while (anot_fake_llm_get_n_batches (f->server) == batches_before)
    if (!g_main_context_iteration (NULL, FALSE))
      g_usleep (2000);
  g_subprocess_force_exit (process);
  wait_for (process);
  g_clear_object (&process);
  g_assert_true (g_file_get_contents (state, &contents, NULL, NULL));
  g_assert_nonnull (strstr (contents, "\"intent\""));

  g_assert_true (anot_fake_llm_set_rules_json (f->server,
                                               "{\"default_reply\": \"[3, 1, 2, 5, 4]\","
                                               " \"batch\": {\"delay_ms\": 200, \"list_status\": 500}}",
                                               &error));
  g_assert_no_error (error);
  /* Retried quickly: the list fails in well under a second. */
  process = anot_test_cli_spawn (G_SUBPROCESS_FLAGS_STDOUT_SILENCE | G_SUBPROCESS_FLAGS_STDERR_SILENCE,
                                 resume_argv, quick_retries);
  g_assert_cmpint (wait_for (process), ==, 4);
  g_clear_object (&process);
  g_assert_cmpuint (count_requests (f->server, "POST", "/v1/batches"), ==, 1);
  g_assert_cmpuint (anot_fake_llm_get_n_batches (f->server), ==, batches_before + 1);

  g_assert_true (anot_fake_llm_set_rules_json (f->server,
                                               "{\"default_reply\": \"[3, 1, 2, 5, 4]\","
                                               " \"batch\": {\"delay_ms\": 200}}", &error));
  g_assert_no_error (error);
  process = spawn (f, resume_argv);
  g_assert_cmpint (wait_for (process), ==, 0);
  g_assert_cmpuint (count_requests (f->server, "POST", "/v1/batches"), ==, 1);
  g_assert_cmpuint (anot_fake_llm_get_n_batch_lines (f->server), ==, lines_before + 3);
  rows = read_rows (rows_path, &cost);
  g_assert_cmpuint (g_hash_table_size (rows), ==, 3);
}

/* The server restarts without the batch a killed run submitted: the
 * resume's polls answer 404; on the second the batch is recorded as lost
 * and its calls fail (unscored, exit 4) instead of being polled forever;
 * the next resume sends its lines once more, and says so. */
static void
test_lost_batch (Fixture       *f,
                 gconstpointer  data)
{
  g_autofree char *dir = g_build_filename (f->root, "lost", NULL);
  g_autofree char *state = g_build_filename (dir, "batches.jsonl", NULL);
  g_autofree char *rows_path = g_build_filename (dir, "clean", "run_1", "results_5.jsonl", NULL);
  g_autoptr(GSubprocess) process = NULL;
  g_autoptr(GHashTable) rows = NULL;
  g_autofree char *contents = NULL;
  g_autofree char *out = NULL;
  double cost;
  const char *argv[] = {
    "--method", "cot", "--backend", "openai", "--base-url", f->base_url, "--model", "gpt-4o-mini",
    "--candidates", "5", "--limit", "3", "-j", "3", "--batch", "--out", f->root, "--name", "lost", NULL,
  };
  const char *resume_argv[] = { "--resume", dir, NULL };

  anot_fake_llm_set_batch_delay_ms (f->server, 60000);
  kill_once_submitted (f, argv, state);
  g_assert_cmpuint (count_requests (f->server, "POST", "/v1/batches"), ==, 1);

  anot_fake_llm_forget_batches (f->server);
  anot_fake_llm_set_batch_delay_ms (f->server, 200);
  process = spawn (f, resume_argv);
  g_assert_cmpint (wait_for (process), ==, 4);
  g_clear_object (&process);
  g_assert_cmpuint (count_requests (f->server, "POST", "/v1/batches"), ==, 1);
  g_clear_pointer (&contents, g_free);
  g_assert_true (g_file_get_contents (state, &contents, NULL, NULL));
  g_assert_nonnull (strstr (contents, "\"lost\""));

  process = anot_test_cli_spawn (G_SUBPROCESS_FLAGS_STDOUT_PIPE | G_SUBPROCESS_FLAGS_STDERR_SILENCE,
                                 resume_argv, NULL);
  g_assert_cmpint (anot_test_cli_wait (process, NULL, NULL, &out, NULL), ==, 0);
  g_assert_nonnull (strstr (out, "3 of their lines sent once more"));
  g_assert_cmpuint (count_requests (f->server, "POST", "/v1/batches"), ==, 2);
  g_assert_cmpuint (anot_fake_llm_get_n_batch_lines (f->server), ==, 3);
  rows = read_rows (rows_path, &cost);
  g_assert_cmpuint (g_hash_table_size (rows), ==, 3);
}

/* A run killed while its batch runs is resumed with --base-url naming
 * another address of the same server: the call the recorded batch holds
 * is not sent again through it (it would be paid twice); the resume stops
 * naming the recorded endpoint, and one given that endpoint again takes
 * the batch. */
static void
test_resume_other_url (Fixture       *f,
                       gconstpointer  data)
{
  g_autofree char *dir = g_build_filename (f->root, "moved", NULL);
  g_autofree char *state = g_build_filename (dir, "batches.jsonl", NULL);
  g_autofree char *rows_path = g_build_filename (dir, "clean", "run_1", "results_5.jsonl", NULL);
  g_autofree char *other_url = NULL;
  g_autofree char *err = NULL;
  g_autoptr(GSubprocess) process = NULL;
  g_autoptr(GHashTable) rows = NULL;
  double cost;
  const char *argv[] = {
    "--method", "cot", "--backend", "openai", "--base-url", f->base_url, "--model", "gpt-4o-mini",
    "--candidates", "5", "--limit", "3", "-j", "3", "--batch", "--out", f->root, "--name", "moved", NULL,
  };
  const char *moved_argv[] = { "--resume", dir, "--base-url", NULL, NULL };
  const char *resume_argv[] = { "--resume", dir, "--base-url", f->base_url, NULL };

  g_assert_true (g_str_has_prefix (f->base_url, "http://127.0.0.1:"));
  other_url = g_strconcat ("http://localhost:", f->base_url + strlen ("http://127.0.0.1:"), NULL);
  moved_argv[3] = other_url;

  anot_fake_llm_set_batch_delay_ms (f->server, 1500);
  kill_once_submitted (f, argv, state);

  process = anot_test_cli_spawn (G_SUBPROCESS_FLAGS_STDOUT_SILENCE | G_SUBPROCESS_FLAGS_STDERR_PIPE,
                                 moved_argv, NULL);
  g_assert_cmpint (anot_test_cli_wait (process, NULL, NULL, NULL, &err), !=, 0);
  g_clear_object (&process);
  g_test_message ("%s", err);
  g_assert_nonnull (strstr (err, f->base_url));
  g_assert_nonnull (strstr (err, "not sent again"));
  g_assert_cmpuint (count_requests (f->server, "POST", "/v1/batches"), ==, 1);

  process = spawn (f, resume_argv);
  g_assert_cmpint (wait_for (process), ==, 0);
  g_assert_cmpuint (count_requests (f->server, "POST", "/v1/batches"), ==, 1);
  g_assert_cmpuint (anot_fake_llm_get_n_batch_lines (f->server), ==, 3);
  rows = read_rows (rows_path, &cost);
  g_assert_cmpuint (g_hash_table_size (rows), ==, 3);
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);

  g_test_add ("/batch-cli/kill-and-resume", Fixture, NULL, fixture_setup, test_kill_and_resume,
              fixture_teardown);
  g_test_add ("/batch-cli/estimate-matches-run", Fixture, NULL, fixture_setup,
              test_estimate_matches_run, fixture_teardown);
  g_test_add ("/batch-cli/context-fitting", Fixture, NULL, fixture_setup, test_context_fitting,
              fixture_teardown);
  g_test_add ("/batch-cli/budget", Fixture, NULL, fixture_setup, test_budget, fixture_teardown);
  g_test_add ("/batch-cli/concurrency-hint", Fixture, NULL, fixture_setup, test_concurrency_hint,
              fixture_teardown);
  g_test_add ("/batch-cli/one-writer", Fixture, NULL, fixture_setup, test_one_writer, fixture_teardown);
  g_test_add ("/batch-cli/size-limits", Fixture, NULL, fixture_setup, test_size_limits, fixture_teardown);
  g_test_add ("/batch-cli/kill-during-creation", Fixture, NULL, fixture_setup, test_kill_during_creation,
              fixture_teardown);
  g_test_add ("/batch-cli/list-fails", Fixture, NULL, fixture_setup, test_list_fails, fixture_teardown);
  g_test_add ("/batch-cli/lost-batch", Fixture, NULL, fixture_setup, test_lost_batch, fixture_teardown);
  g_test_add ("/batch-cli/resume-other-url", Fixture, NULL, fixture_setup, test_resume_other_url,
              fixture_teardown);
  return g_test_run ();
}
