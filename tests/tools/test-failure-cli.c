/* test-failure-cli.c: anot-run when the infrastructure fails: a server
 * that goes down in the middle of a run and comes back (direct calls to
 * either API, and batch mode), a key the server refuses, a model it does
 * not know, no key at all
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

/* Requests of the demo benchmark each run uses. */
#define N_REQUESTS 8

static void
fixture_setup (Fixture       *f,
               gconstpointer  data)
{
  /* A ranking cot reads, answered late enough that an outage can start
   * between two requests. */
  anot_test_cli_setup (f, "anot-test-failure-cli-XXXXXX",
                       "{\"default_reply\": \"[3, 1, 2, 5, 4]\", \"latency_ms\": 40}");
}

static void
fixture_teardown (Fixture       *f,
                  gconstpointer  data)
{
  anot_test_cli_teardown (f);
}

/* anot-run with @argv (NULL-terminated) and @env ("NAME=VALUE" to set,
 * "NAME" to unset; NULL-terminated or NULL), its output captured, with no
 * key or base URL from the environment.  Retries are quick, so an outage
 * fails a call in well under a second. */
static GSubprocess *
spawn (const char **argv,
       const char **env)
{
  g_autoptr(GPtrArray) all = g_ptr_array_new ();
  static const char * const quick[] = {
    "ANOT_MAX_RETRIES=1", "ANOT_RETRY_BASE_MS=20", "ANOT_RETRY_MAX_MS=40",
    "ANOT_BASE_URL", "OPENAI_API_KEY", "ANTHROPIC_API_KEY",
  };

  for (guint i = 0; i < G_N_ELEMENTS (quick); i++)
    g_ptr_array_add (all, (gpointer) quick[i]);
  for (guint i = 0; env != NULL && env[i] != NULL; i++)
    g_ptr_array_add (all, (gpointer) env[i]);
  g_ptr_array_add (all, NULL);
  return anot_test_cli_spawn (G_SUBPROCESS_FLAGS_STDOUT_PIPE | G_SUBPROCESS_FLAGS_STDERR_PIPE,
                              argv, (const char * const *) all->pdata);
}

static int
run (const char **argv,
     const char **env,
     char       **out_stdout,
     char       **out_stderr)
{
  g_autoptr(GSubprocess) process = spawn (argv, env);

  return anot_test_cli_wait (process, NULL, NULL, out_stdout, out_stderr);
}

static guint
count_chat_requests (AnotFakeLlm *server)
{
  guint n = 0;

  for (guint i = 0; i < anot_fake_llm_get_n_requests (server); i++)
    {
      const char *path = json_object_get_string_member (anot_fake_llm_get_request (server, i), "path");

      if (strcmp (path, "/v1/chat/completions") == 0 || strcmp (path, "/v1/messages") == 0)
        n++;
    }
  return n;
}

/* The rows of a results file by request id: the row without what depends
 * on the clock, and the parsed object. */
static GHashTable *
read_rows (const char *path,
           GPtrArray **out_objects)
{
  g_autofree char *contents = NULL;
  g_auto(GStrv) lines = NULL;
  GHashTable *rows = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);

  if (out_objects)
    *out_objects = g_ptr_array_new_with_free_func ((GDestroyNotify) json_object_unref);
  if (!g_file_get_contents (path, &contents, NULL, NULL))
    return rows;
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
      if (out_objects)
        g_ptr_array_add (*out_objects, json_object_ref (row));
      row = json_object_ref (row);
      json_object_remove_member (row, "latency_ms");
      json_generator_set_root (generator, json_parser_get_root (parser));
      g_hash_table_insert (rows, g_strdup (json_object_get_string_member (row, "request_id")),
                           json_generator_to_data (generator, NULL));
      json_object_unref (row);
    }
  return rows;
}

static char *
config_status (const char *experiment)
{
  g_autofree char *path = g_build_filename (experiment, "clean", "run_1", "config.json", NULL);
  g_autoptr(JsonParser) parser = json_parser_new ();
  JsonObject *anot;

  g_assert_true (json_parser_load_from_file (parser, path, NULL));
  anot = json_object_get_object_member (json_node_get_object (json_parser_get_root (parser)), "anot");
  return g_strdup (json_object_get_string_member (anot, "status"));
}

/* ------------------------------------------------------------------------
 * An outage in the middle of a run
 * --------------------------------------------------------------------- */

typedef enum
{
  OUTAGE_OPENAI,
  OUTAGE_ANTHROPIC,
  OUTAGE_BATCH,
} OutageMode;

typedef struct
{
  Fixture *f;
  OutageMode mode;
  const char *state_path;
  gboolean down;
} Outage;

static gboolean
batch_recorded (const char *state_path)
{
  g_autofree char *contents = NULL;

  return g_file_get_contents (state_path, &contents, NULL, NULL) &&
         strstr (contents, "\"submitted\"") != NULL;
}

/* The server goes down once it answered three calls (direct), or once
 * the run recorded its first batch (batch mode: the outage fails its
 * polls, and the second batch's submission), and stays down until the
 * run ends. */
static void
outage_tick (gpointer data)
{
  Outage *outage = data;

  if (outage->down)
    return;
  if (outage->mode == OUTAGE_BATCH ? batch_recorded (outage->state_path)
                                   : count_chat_requests (outage->f->server) >= 3)
    {
      anot_fake_llm_set_down (outage->f->server, TRUE);
      outage->down = TRUE;
    }
}

static void
experiment_argv (Fixture     *f,
                 OutageMode   mode,
                 const char  *name,
                 GPtrArray   *argv)
{
  g_autofree char *url = g_strdup (anot_fake_llm_get_url (f->server));
  const char *common[] = {
    "--method", "cot", "--candidates", "5", "--limit", G_STRINGIFY (N_REQUESTS),
    "--concurrency", "2", "--out", f->root, "--name", name,
  };

  for (guint i = 0; i < G_N_ELEMENTS (common); i++)
    g_ptr_array_add (argv, g_strdup (common[i]));
  if (mode == OUTAGE_ANTHROPIC)
    {
      g_ptr_array_add (argv, g_strdup ("--backend"));
      g_ptr_array_add (argv, g_strdup ("anthropic"));
      g_ptr_array_add (argv, g_strdup ("--base-url"));
      g_ptr_array_add (argv, g_strdup (url));
      g_ptr_array_add (argv, g_strdup ("--model"));
      g_ptr_array_add (argv, g_strdup ("claude-3-5-haiku-latest"));
    }
  else
    {
      g_ptr_array_add (argv, g_strdup ("--backend"));
      g_ptr_array_add (argv, g_strdup ("openai"));
      g_ptr_array_add (argv, g_strdup ("--base-url"));
      g_ptr_array_add (argv, g_strdup (f->base_url));
      g_ptr_array_add (argv, g_strdup ("--model"));
      g_ptr_array_add (argv, g_strdup ("gpt-4o-mini"));
    }
  if (mode == OUTAGE_BATCH)
    {
      /* Two batches of four requests: the second is submitted while the
       * server is down. */
      g_ptr_array_add (argv, g_strdup ("--batch"));
      g_ptr_array_add (argv, g_strdup ("--batch-max-size"));
      g_ptr_array_add (argv, g_strdup ("4"));
      g_ptr_array_add (argv, g_strdup ("--concurrency"));
      g_ptr_array_add (argv, g_strdup (G_STRINGIFY (N_REQUESTS)));
    }
  g_ptr_array_add (argv, NULL);
}

/* The server goes down in the middle of a run and comes back: the
 * requests it failed are rows with the error and its class, unscored;
 * the run says so and exits with 4; a resume runs those requests (and
 * only those) and ends with the rows of a run without an outage. */
static void
test_outage (Fixture       *f,
             gconstpointer  data)
{
  OutageMode mode = GPOINTER_TO_INT (data);
  g_autoptr(GPtrArray) reference_argv = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GPtrArray) outage_argv = g_ptr_array_new_with_free_func (g_free);
  g_autofree char *experiment = g_build_filename (f->root, "outage", NULL);
  g_autofree char *reference_rows_path = g_build_filename (f->root, "reference", "clean", "run_1",
                                                           "results_5.jsonl", NULL);
  g_autofree char *rows_path = g_build_filename (experiment, "clean", "run_1", "results_5.jsonl", NULL);
  g_autofree char *summary_path = g_build_filename (experiment, "clean", "summary.json", NULL);
  g_autofree char *out = NULL;
  g_autofree char *err = NULL;
  g_autofree char *status = NULL;
  g_autofree char *ran = NULL;
  g_autofree char *summary = NULL;
  g_autoptr(GHashTable) reference = NULL;
  g_autoptr(GHashTable) rows = NULL;
  g_autoptr(GPtrArray) objects = NULL;
  g_autoptr(GSubprocess) process = NULL;
  const char *resume_argv[] = { "--resume", experiment, NULL };
  g_autofree char *state_path = g_build_filename (experiment, "batches.jsonl", NULL);
  Outage outage = { f, mode, state_path, FALSE };
  guint unscored = 0, scored = 0;
  guint64 lines_before;

  experiment_argv (f, mode, "reference", reference_argv);
  experiment_argv (f, mode, "outage", outage_argv);
  g_assert_cmpint (run ((const char **) reference_argv->pdata, NULL, &out, &err), ==, 0);
  reference = read_rows (reference_rows_path, NULL);
  g_assert_cmpuint (g_hash_table_size (reference), ==, N_REQUESTS);
  anot_fake_llm_clear_requests (f->server);
  lines_before = anot_fake_llm_get_n_batch_lines (f->server);

  /* The outage: exit 4, every request has a row, those the outage failed
   * keep their error, classed as the infrastructure's. */
  process = spawn ((const char **) outage_argv->pdata, NULL);
  g_assert_cmpint (anot_test_cli_wait (process, outage_tick, &outage, &out, &err), ==, 4);
  g_assert_true (outage.down);
  g_assert_nonnull (strstr (err, "could not be scored"));
  g_assert_nonnull (strstr (err, "--resume"));
  g_assert_nonnull (strstr (out, "unscored"));
  rows = read_rows (rows_path, &objects);
  g_assert_cmpuint (objects->len, ==, N_REQUESTS);
  for (guint i = 0; i < objects->len; i++)
    {
      JsonObject *row = g_ptr_array_index (objects, i);
      const char *error_class = json_object_get_string_member_with_default (row, "error_class", NULL);

      if (g_strcmp0 (error_class, "infrastructure") == 0)
        {
          g_assert_nonnull (json_object_get_string_member_with_default (row, "error", NULL));
          unscored++;
        }
      else
        {
          /* What was answered before the outage is the method's result. */
          g_assert_null (error_class);
          g_assert_cmpstr (g_hash_table_lookup (rows, json_object_get_string_member (row, "request_id")), ==,
                           g_hash_table_lookup (reference, json_object_get_string_member (row, "request_id")));
          scored++;
        }
    }
  g_test_message ("%u scored, %u unscored", scored, unscored);
  g_assert_cmpuint (unscored, >, 0);
  g_assert_cmpuint (scored + unscored, ==, N_REQUESTS);
  status = config_status (experiment);
  g_assert_cmpstr (status, ==, "incomplete");
  /* The summary counts them beside metrics over the scored requests. */
  g_assert_true (g_file_get_contents (summary_path, &summary, NULL, NULL));
  {
    g_autofree char *member = g_strdup_printf ("\"unscored\" : %u", unscored);
    g_autoptr(JsonParser) parser = json_parser_new ();

    g_assert_nonnull (strstr (summary, member));
    /* Beside the figures, not only in per_run. */
    g_assert_true (json_parser_load_from_data (parser, summary, -1, NULL));
    g_assert_cmpint (json_object_get_int_member_with_default (json_node_get_object (json_parser_get_root (parser)),
                                                              "unscored", 0), ==, unscored);
  }

  /* The server is back: the resume runs the unscored requests, only
   * them, and ends with the rows of the uninterrupted run. */
  anot_fake_llm_set_down (f->server, FALSE);
  anot_fake_llm_clear_requests (f->server);
  g_assert_cmpint (run (resume_argv, NULL, &out, &err), ==, 0);
  if (scored > 0)
    ran = g_strdup_printf ("Ran %u request%s (%u already done)", unscored, unscored == 1 ? "" : "s", scored);
  else
    ran = g_strdup_printf ("Ran %u request%s\n", unscored, unscored == 1 ? "" : "s");
  g_assert_nonnull (strstr (out, ran));
  if (mode != OUTAGE_BATCH)
    g_assert_cmpuint (count_chat_requests (f->server), ==, unscored);
  else
    {
      /* The batches created before the outage were polled again, not
       * paid again: each line went to the provider once. */
      g_assert_null (strstr (out, " 0 recorded by an interrupted run polled again"));
      g_assert_cmpuint (anot_fake_llm_get_n_batch_lines (f->server), ==, lines_before + N_REQUESTS);
    }
  g_clear_pointer (&rows, g_hash_table_unref);
  rows = read_rows (rows_path, NULL);
  anot_test_assert_same_rows (reference, rows);
  g_clear_pointer (&status, g_free);
  status = config_status (experiment);
  g_assert_cmpstr (status, ==, "complete");
}

/* ------------------------------------------------------------------------
 * Errors no retry fixes
 * --------------------------------------------------------------------- */

/* The server refuses the key: the run stops at the first 401 with the
 * message, sends nothing more than the requests already in flight, keeps
 * no row, and resumes once the key is right. */
static void
test_refused_key (Fixture       *f,
                  gconstpointer  data)
{
  g_autofree char *experiment = g_build_filename (f->root, "refused", NULL);
  g_autofree char *rows_path = g_build_filename (experiment, "clean", "run_1", "results_5.jsonl", NULL);
  g_autofree char *out = NULL;
  g_autofree char *err = NULL;
  g_autoptr(GHashTable) rows = NULL;
  g_autoptr(GPtrArray) objects = NULL;
  const char *argv[] = {
    "--method", "cot", "--backend", "openai", "--base-url", f->base_url, "--model", "gpt-4o-mini",
    "--candidates", "5", "--limit", G_STRINGIFY (N_REQUESTS), "--concurrency", "2",
    "--out", f->root, "--name", "refused", NULL,
  };
  const char *wrong[] = { "OPENAI_API_KEY=sk-wrong", NULL };
  const char *right[] = { "OPENAI_API_KEY=sk-right", NULL };
  const char *resume_argv[] = { "--resume", experiment, NULL };

  anot_fake_llm_set_api_key (f->server, "sk-right");
  g_assert_cmpint (run (argv, wrong, &out, &err), ==, 1);
  g_assert_nonnull (strstr (err, "HTTP 401"));
  g_assert_nonnull (strstr (err, "OPENAI_API_KEY"));
  g_assert_nonnull (strstr (err, "--resume"));
  /* The requests in flight at the first 401, never retried: not one
   * per request. */
  g_assert_cmpuint (count_chat_requests (f->server), <=, 2);
  rows = read_rows (rows_path, NULL);
  g_assert_cmpuint (g_hash_table_size (rows), ==, 0);

  g_assert_cmpint (run (resume_argv, right, &out, &err), ==, 0);
  g_clear_pointer (&rows, g_hash_table_unref);
  rows = read_rows (rows_path, &objects);
  g_assert_cmpuint (g_hash_table_size (rows), ==, N_REQUESTS);
  for (guint i = 0; i < objects->len; i++)
    g_assert_false (json_object_has_member (g_ptr_array_index (objects, i), "error"));
}

/* An unknown model (HTTP 404): the same stop, resumed once the base URL
 * is right. */
static void
test_unknown_model (Fixture       *f,
                    gconstpointer  data)
{
  g_autofree char *experiment = g_build_filename (f->root, "missing", NULL);
  g_autofree char *rows_path = g_build_filename (experiment, "clean", "run_1", "results_5.jsonl", NULL);
  g_autofree char *wrong_url = g_strconcat (anot_fake_llm_get_url (f->server), "/nowhere/v1", NULL);
  g_autofree char *out = NULL;
  g_autofree char *err = NULL;
  g_autoptr(GHashTable) rows = NULL;
  const char *argv[] = {
    "--method", "cot", "--backend", "openai", "--base-url", wrong_url, "--model", "gpt-4o-mini",
    "--candidates", "5", "--limit", G_STRINGIFY (N_REQUESTS), "--concurrency", "2",
    "--out", f->root, "--name", "missing", NULL,
  };
  const char *resume_argv[] = { "--resume", experiment, "--base-url", f->base_url, NULL };

  g_assert_cmpint (run (argv, NULL, &out, &err), ==, 1);
  g_assert_nonnull (strstr (err, "HTTP 404"));
  g_assert_nonnull (strstr (err, "gpt-4o-mini"));
  g_assert_nonnull (strstr (err, "--resume"));
  g_assert_cmpuint (anot_fake_llm_get_n_requests (f->server), <=, 2);
  rows = read_rows (rows_path, NULL);
  g_assert_cmpuint (g_hash_table_size (rows), ==, 0);

  g_assert_cmpint (run (resume_argv, NULL, &out, &err), ==, 0);
  g_clear_pointer (&rows, g_hash_table_unref);
  rows = read_rows (rows_path, NULL);
  g_assert_cmpuint (g_hash_table_size (rows), ==, N_REQUESTS);
}

/* No key for the provider's own endpoint: a usage error naming the
 * variable, before anything runs: no results directory, no request.
 * Only the roles the method declared need a key: a method that calls no
 * LLM runs without one, a role routed to another provider needs that
 * provider's key, the estimate sends nothing and needs none, and the
 * same backend pointed at another server needs none. */
static void
test_missing_key (Fixture       *f,
                  gconstpointer  data)
{
  static const struct
  {
    const char *backend, *model, *variable, *provider_url;
  } cases[] = {
    { "openai", "gpt-4o-mini", "OPENAI_API_KEY", "https://api.openai.com/v1" },
    { "anthropic", "claude-3-5-haiku-latest", "ANTHROPIC_API_KEY", "https://api.anthropic.com" },
  };

  for (guint c = 0; c < G_N_ELEMENTS (cases); c++)
    {
      g_autofree char *name = g_strdup_printf ("nokey-%s", cases[c].backend);
      g_autofree char *experiment = g_build_filename (f->root, name, NULL);
      g_autofree char *out = NULL;
      g_autofree char *err = NULL;
      const char *argv[] = {
        "--method", "cot", "--backend", cases[c].backend, "--model", cases[c].model,
        "--candidates", "5", "--limit", G_STRINGIFY (N_REQUESTS), "--out", f->root, "--name", name, NULL,
      };
      const char *estimate_argv[] = {
        "estimate", "--method", "cot", "--backend", cases[c].backend, "--model", cases[c].model,
        "--candidates", "5", "--limit", G_STRINGIFY (N_REQUESTS), "--out", f->root, "--name", name, NULL,
      };

      g_assert_cmpint (run (argv, NULL, &out, &err), ==, 2);
      g_assert_nonnull (strstr (err, cases[c].variable));
      g_assert_nonnull (strstr (err, "--base-url"));
      g_assert_nonnull (strstr (err, "cot calls an LLM (role default)"));
      /* Refused before the run started: nothing planned was printed,
       * nothing written. */
      g_assert_null (strstr (out, "requests planned"));
      g_assert_false (g_file_test (experiment, G_FILE_TEST_EXISTS));

      /* The cost estimate sends nothing: no key needed. */
      g_assert_cmpint (run (estimate_argv, NULL, &out, &err), ==, 0);
      g_assert_nonnull (strstr (out, "Calls per request: 1"));
      g_assert_false (g_file_test (experiment, G_FILE_TEST_EXISTS));

      /* A run against the fake server (not the provider's endpoint)
       * needs no key; its resume pointed at the provider's endpoint is
       * refused before it writes anything. */
      {
        g_autofree char *rows_path = g_build_filename (experiment, "clean", "run_1",
                                                       "results_5.jsonl", NULL);
        g_autofree char *config_path = g_build_filename (experiment, "clean", "run_1", "config.json", NULL);
        g_autofree char *rows_before = NULL;
        g_autofree char *rows_after = NULL;
        g_autofree char *config_before = NULL;
        g_autofree char *config_after = NULL;
        g_autofree char *url = g_strdup (c == 0 ? f->base_url : anot_fake_llm_get_url (f->server));
        const char *fake_argv[] = {
          "--method", "cot", "--backend", cases[c].backend, "--model", cases[c].model,
          "--base-url", url, "--candidates", "5", "--limit", "2",
          "--out", f->root, "--name", name, NULL,
        };
        const char *resume_argv[] = { "--resume", experiment, "--base-url", cases[c].provider_url, NULL };

        g_assert_cmpint (run (fake_argv, NULL, &out, &err), ==, 0);
        g_assert_true (g_file_get_contents (rows_path, &rows_before, NULL, NULL));
        g_assert_true (g_file_get_contents (config_path, &config_before, NULL, NULL));
        g_assert_cmpint (run (resume_argv, NULL, &out, &err), ==, 2);
        g_assert_nonnull (strstr (err, cases[c].variable));
        g_assert_true (g_file_get_contents (rows_path, &rows_after, NULL, NULL));
        g_assert_true (g_file_get_contents (config_path, &config_after, NULL, NULL));
        g_assert_cmpstr (rows_before, ==, rows_after);
        g_assert_cmpstr (config_before, ==, config_after);
      }
    }

  /* A method that calls no LLM needs no key, even with a provider's
   * backend configured. */
  {
    g_autofree char *out = NULL;
    g_autofree char *err = NULL;
    const char *argv[] = {
      "--method", "bm25", "--backend", "openai", "--model", "gpt-4o-mini",
      "--candidates", "5", "--limit", "2", "--out", f->root, "--name", "nokey-bm25", NULL,
    };

    g_assert_cmpint (run (argv, NULL, &out, &err), ==, 0);
    g_assert_nonnull (strstr (out, "Ran 2 requests"));
  }

  /* aot's scorer routed to Anthropic: OpenAI's key is not enough, and the
   * message names the role and the variable it lacks. */
  {
    g_autofree char *out = NULL;
    g_autofree char *err = NULL;
    g_autofree char *experiment = g_build_filename (f->root, "nokey-role", NULL);
    const char *env[] = { "OPENAI_API_KEY=sk-anything", NULL };
    const char *argv[] = {
      "--method", "aot", "--backend", "openai", "--model", "gpt-4o-mini",
      "--role", "scorer=anthropic:claude-3-5-haiku-latest",
      "--candidates", "5", "--limit", "2", "--out", f->root, "--name", "nokey-role", NULL,
    };

    g_assert_cmpint (run (argv, env, &out, &err), ==, 2);
    g_assert_nonnull (strstr (err, "aot calls an LLM (role scorer)"));
    g_assert_nonnull (strstr (err, "ANTHROPIC_API_KEY"));
    g_assert_false (g_file_test (experiment, G_FILE_TEST_EXISTS));
  }

  g_assert_cmpuint (count_chat_requests (f->server), ==, 2 * 2);
}

/* ------------------------------------------------------------------------
 * Prompts shrunk to the context window
 * --------------------------------------------------------------------- */

/* cot at N=10 with a 6,000-token window must drop reviews from every
 * prompt: each row says how many (as the trace does), and the table,
 * the summary and compare in every format show the share of shrunk
 * requests and of reviews dropped beside the metrics. */
static void
test_context_fit (Fixture       *f,
                  gconstpointer  data)
{
  g_autofree char *experiment = g_build_filename (f->root, "fitted", NULL);
  g_autofree char *whole = g_build_filename (f->root, "whole", NULL);
  g_autofree char *rows_path = g_build_filename (experiment, "clean", "run_1", "results_10.jsonl", NULL);
  g_autofree char *trace_path = g_build_filename (experiment, "clean", "run_1", "trace_10.jsonl", NULL);
  g_autofree char *summary_path = g_build_filename (experiment, "clean", "summary.json", NULL);
  g_autofree char *out = NULL;
  g_autofree char *err = NULL;
  g_autofree char *summary = NULL;
  g_autoptr(GHashTable) rows = NULL;
  g_autoptr(GHashTable) traces = NULL;
  g_autoptr(GPtrArray) objects = NULL;
  g_autoptr(GPtrArray) trace_objects = NULL;
  const char *argv[] = {
    "--method", "cot", "--backend", "openai", "--base-url", f->base_url, "--model", "fake",
    "--candidates", "10", "--limit", "3", "--out", f->root, "--name", "fitted",
    "--context-tokens", "6000", NULL,
  };
  const char *whole_argv[] = {
    "--method", "cot", "--backend", "openai", "--base-url", f->base_url, "--model", "fake",
    "--candidates", "10", "--limit", "3", "--out", f->root, "--name", "whole", NULL,
  };
  static const char *const formats[] = { "text", "markdown", "latex" };

  g_assert_cmpint (run (argv, NULL, &out, &err), ==, 0);
  g_assert_nonnull (strstr (out, "shrunk"));
  g_assert_nonnull (strstr (out, "100.0%"));
  rows = read_rows (rows_path, &objects);
  traces = read_rows (trace_path, &trace_objects);
  g_assert_cmpuint (objects->len, ==, 3);
  for (guint i = 0; i < objects->len; i++)
    {
      JsonObject *row = g_ptr_array_index (objects, i);
      JsonObject *fit = json_object_get_object_member (row, "context_fit");
      JsonObject *trace = NULL;
      JsonObjectIter iter;
      const char *phase;
      JsonNode *node;
      gint64 dropped = 0, total = 0;

      g_assert_nonnull (fit);
      for (guint t = 0; t < trace_objects->len; t++)
        if (strcmp (json_object_get_string_member (g_ptr_array_index (trace_objects, t), "request_id"),
                    json_object_get_string_member (row, "request_id")) == 0)
          trace = json_object_get_object_member (g_ptr_array_index (trace_objects, t), "trace");
      g_assert_nonnull (trace);
      json_object_iter_init (&iter, json_object_get_object_member (trace, "formatting"));
      while (json_object_iter_next (&iter, &phase, &node))
        {
          dropped += json_object_get_int_member (json_node_get_object (node), "reviews_dropped");
          total += json_object_get_int_member (json_node_get_object (node), "reviews_total");
        }
      /* What the row says is what the prompt left out. */
      g_assert_cmpint (json_object_get_int_member (fit, "reviews_dropped"), ==, dropped);
      g_assert_cmpint (json_object_get_int_member (fit, "reviews"), ==, total);
      g_assert_cmpint (dropped, >, 0);
      g_assert_cmpint (dropped, <=, total);
      g_assert_cmpint (json_object_get_int_member (fit, "calls_fitted"), ==, 1);
    }
  g_assert_true (g_file_get_contents (summary_path, &summary, NULL, NULL));
  g_assert_nonnull (strstr (summary, "\"context_fit\""));
  g_assert_nonnull (strstr (summary, "\"shrunk\" : 1.0"));

  /* Without the small window nothing is shrunk: no such member. */
  g_assert_cmpint (run (whole_argv, NULL, &out, &err), ==, 0);
  g_assert_null (strstr (out, "shrunk"));

  for (guint i = 0; i < G_N_ELEMENTS (formats); i++)
    {
      const char *compare_argv[] = { "compare", experiment, whole, "--resamples", "50",
                                     "--format", formats[i], NULL };

      g_assert_cmpint (run (compare_argv, NULL, &out, &err), ==, 0);
      g_assert_nonnull (strstr (out, "shrunk"));
      g_assert_nonnull (strstr (out, "reviews dropped"));
      g_assert_nonnull (strstr (out, "100"));
      g_assert_nonnull (strstr (err, "warning:"));
      g_assert_nonnull (strstr (err, "shrunk to the model's context window"));
    }
  {
    const char *compare_argv[] = { "compare", experiment, whole, "--resamples", "50",
                                   "--format", "csv", NULL };
    g_auto(GStrv) lines = NULL;
    gboolean found = FALSE;

    g_assert_cmpint (run (compare_argv, NULL, &out, &err), ==, 0);
    lines = g_strsplit (out, "\n", -1);
    g_assert_true (g_str_has_suffix (lines[0], ",unscored,shrunk,reviews_dropped,excluded"));
    /* Both experiments are cot: the labels are the experiments' names. */
    for (guint i = 1; lines[i] != NULL; i++)
      if (g_str_has_prefix (lines[i], "cells,fitted,") && strstr (lines[i], ",0,1,0.") != NULL)
        found = TRUE;
    g_assert_true (found);
  }
}

/* ------------------------------------------------------------------------
 * Odd characters in answers, counted in every LLM method's trace
 * --------------------------------------------------------------------- */

static void
add_escapes_rule (JsonBuilder *builder,
                  const char  *match,
                  const char  *reply)
{
  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "match");
  json_builder_add_string_value (builder, match);
  json_builder_set_member_name (builder, "fault");
  json_builder_add_string_value (builder, "escapes");
  json_builder_set_member_name (builder, "reply");
  json_builder_add_string_value (builder, reply);
  json_builder_end_object (builder);
}

/* Answers with \u0000 escapes (each reply's "\\u0000" arrives as a JSON
 * escape): cot (through llm-common) and aot (its own calls: a plan, then
 * one judge per candidate) both rank, and each request's trace line says
 * how many characters were read as U+FFFD, counted by the core over every
 * call of the request. */
static void
test_replaced_characters (Fixture       *f,
                          gconstpointer  data)
{
  static const struct { const char *method; gint64 per_request; } cases[] = {
    { "cot", 1 },
    /* The plan's question holds one, so does each of the 5 judges'
     * answers. */
    { "aot", 1 + 5 },
  };
  g_autoptr(JsonBuilder) builder = json_builder_new ();
  g_autoptr(JsonGenerator) generator = json_generator_new ();
  g_autoptr(JsonNode) root = NULL;
  g_autofree char *rules = NULL;
  g_autoptr(GError) error = NULL;

  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "rules");
  json_builder_begin_array (builder);
  add_escapes_rule (builder, "^Write an Atom of Thought plan",
                    "{\"atoms\": [{\"id\": 1, \"kind\": \"tool\", \"name\": \"llm_judge\", "
                    "\"input\": {\"item\": \"*\", \"question\": \"Good for kids?\\\\u0000\"}, "
                    "\"dependsOn\": []}, {\"id\": 2, \"kind\": \"final\", \"name\": \"rank\", "
                    "\"input\": {\"scores\": [\"$1\"]}, \"dependsOn\": [1]}]}");
  add_escapes_rule (builder, "^Question about one item", "Score: 5\\\\u0000");
  add_escapes_rule (builder, ".", "[3, 1, 2, 5, 4]\\\\u0000");
  json_builder_end_array (builder);
  json_builder_end_object (builder);
  root = json_builder_get_root (builder);
  json_generator_set_root (generator, root);
  rules = json_generator_to_data (generator, NULL);
  g_assert_true (anot_fake_llm_set_rules_json (f->server, rules, &error));
  g_assert_no_error (error);

  for (guint c = 0; c < G_N_ELEMENTS (cases); c++)
    {
      g_autofree char *name = g_strdup_printf ("odd-%s", cases[c].method);
      g_autofree char *trace_path = g_build_filename (f->root, name, "clean", "run_1", "trace_5.jsonl", NULL);
      g_autofree char *rows_path = g_build_filename (f->root, name, "clean", "run_1", "results_5.jsonl", NULL);
      g_autofree char *out = NULL;
      g_autofree char *err = NULL;
      g_autoptr(GHashTable) traces = NULL;
      g_autoptr(GHashTable) rows = NULL;
      g_autoptr(GPtrArray) trace_objects = NULL;
      g_autoptr(GPtrArray) row_objects = NULL;
      const char *argv[] = {
        "--method", cases[c].method, "--backend", "openai", "--base-url", f->base_url,
        "--model", "fake", "--candidates", "5", "--limit", "2", "--out", f->root, "--name", name, NULL,
      };

      g_assert_cmpint (run (argv, NULL, &out, &err), ==, 0);
      rows = read_rows (rows_path, &row_objects);
      traces = read_rows (trace_path, &trace_objects);
      g_assert_cmpuint (row_objects->len, ==, 2);
      g_assert_cmpuint (trace_objects->len, ==, 2);
      for (guint i = 0; i < row_objects->len; i++)
        {
          /* Accepted, not failed and retried. */
          g_assert_false (json_object_has_member (g_ptr_array_index (row_objects, i), "error"));
          g_assert_cmpint (json_object_get_int_member (g_ptr_array_index (row_objects, i), "retries"), ==, 0);
        }
      for (guint i = 0; i < trace_objects->len; i++)
        {
          JsonObject *trace = json_object_get_object_member (g_ptr_array_index (trace_objects, i), "trace");

          g_assert_nonnull (trace);
          g_assert_cmpint (json_object_get_int_member_with_default (trace, "replaced_characters", 0),
                           ==, cases[c].per_request);
        }
    }

  /* Without such answers the member is absent. */
  g_assert_true (anot_fake_llm_set_rules_json (f->server, "{\"default_reply\": \"[3, 1, 2, 5, 4]\"}", &error));
  g_assert_no_error (error);
  {
    g_autofree char *trace_path = g_build_filename (f->root, "plain", "clean", "run_1", "trace_5.jsonl", NULL);
    g_autofree char *out = NULL;
    g_autofree char *err = NULL;
    g_autoptr(GHashTable) traces = NULL;
    g_autoptr(GPtrArray) trace_objects = NULL;
    const char *argv[] = {
      "--method", "cot", "--backend", "openai", "--base-url", f->base_url,
      "--model", "fake", "--candidates", "5", "--limit", "2", "--out", f->root, "--name", "plain", NULL,
    };

    g_assert_cmpint (run (argv, NULL, &out, &err), ==, 0);
    traces = read_rows (trace_path, &trace_objects);
    g_assert_cmpuint (trace_objects->len, ==, 2);
    for (guint i = 0; i < trace_objects->len; i++)
      g_assert_false (json_object_has_member (json_object_get_object_member (g_ptr_array_index (trace_objects, i),
                                                                             "trace"),
                                              "replaced_characters"));
  }
}

/* The sum of "cost_usd" over the rows of @path. */
static double
rows_cost (const char *path)
{
  g_autoptr(GPtrArray) objects = NULL;
  g_autoptr(GHashTable) rows = read_rows (path, &objects);
  double cost = 0.0;

  g_assert_cmpuint (objects->len, >, 0);
  for (guint i = 0; i < objects->len; i++)
    cost += json_object_get_double_member (g_ptr_array_index (objects, i), "cost_usd");
  return cost;
}

/* The "LLM:" line counts what the run paid for: the calls of every attack
 * (it counted the clean runs' only, half the bill of `-a clean,typo_10`). */
static void
test_usage_every_attack (Fixture       *f,
                         gconstpointer  data)
{
  g_autofree char *out = NULL;
  g_autofree char *err = NULL;
  g_autofree char *expected = NULL;
  double cost = 0.0;
  gint64 prompt_tokens = 0;
  const char *argv[] = {
    "--method", "cot", "--backend", "openai", "--base-url", f->base_url, "--model", "fake",
    "--candidates", "5", "--limit", "3", "-a", "clean,typo_10", "--out", f->root, "--name", "two", NULL,
  };
  static const char * const attacks[] = { "clean", "typo_10" };

  g_assert_cmpint (run (argv, NULL, &out, &err), ==, 0);
  g_assert_cmpuint (count_chat_requests (f->server), ==, 6);
  for (guint a = 0; a < G_N_ELEMENTS (attacks); a++)
    {
      g_autofree char *path = g_build_filename (f->root, "two", attacks[a], "run_1", "results_5.jsonl", NULL);

      cost += rows_cost (path);
    }
  /* What the server received. */
  for (guint i = 0; i < anot_fake_llm_get_n_requests (f->server); i++)
    prompt_tokens += json_object_get_int_member (anot_fake_llm_get_request (f->server, i), "prompt_tokens");
  expected = g_strdup_printf ("LLM: 6 calls, %" G_GINT64_FORMAT " prompt + ", prompt_tokens);
  g_assert_nonnull (strstr (out, expected));
  g_free (expected);
  expected = g_strdup_printf (" completion tokens, $%.4f, ", cost);
  g_assert_nonnull (strstr (out, expected));
}

/* A run stopped by a role's budget says that budget as given (not $0.01
 * for $0.015) and the option that raises it; a resume with it finishes. */
static void
test_role_budget (Fixture       *f,
                  gconstpointer  data)
{
  g_autofree char *dir = g_build_filename (f->root, "role_budget", NULL);
  g_autofree char *rows_path = g_build_filename (dir, "clean", "run_1", "results_5.jsonl", NULL);
  g_autofree char *out = NULL;
  g_autofree char *err = NULL;
  g_autofree char *hint = NULL;
  g_autoptr(GPtrArray) objects = NULL;
  g_autoptr(GHashTable) rows = NULL;
  const char *argv[] = {
    "--method", "cot", "--backend", "openai", "--base-url", f->base_url, "--model", "fake",
    "--candidates", "5", "--limit", "3", "-j", "1", "--out", f->root, "--name", "role_budget",
    "--max-cost-role", "default=0.015", NULL,
  };
  const char *resume_argv[] = { "--resume", dir, "--max-cost-role", "default=1", NULL };

  g_assert_cmpint (run (argv, NULL, &out, &err), ==, 3);
  g_assert_nonnull (strstr (err, "the budget of role default of $0.015 has no room for the next"));
  hint = g_strdup_printf ("anot-run --resume %s --max-cost-role default=USD", dir);
  g_assert_nonnull (strstr (err, hint));
  rows = read_rows (rows_path, &objects);
  g_assert_cmpuint (objects->len, <, 3);
  g_clear_pointer (&rows, g_hash_table_unref);
  g_clear_pointer (&objects, g_ptr_array_unref);
  g_clear_pointer (&out, g_free);
  g_clear_pointer (&err, g_free);

  g_assert_cmpint (run (resume_argv, NULL, &out, &err), ==, 0);
  rows = read_rows (rows_path, &objects);
  g_assert_cmpuint (objects->len, ==, 3);
}

/* The calls a request made before an outage failed it were paid: a
 * resume that runs it again counts them against the budget (its row is
 * replaced, the money is not given back).  Here every call of two of the
 * four requests was paid before they were unscored: with a budget of
 * what the four cost plus a fraction of one, nothing more may start. */
static void
test_budget_counts_unscored (Fixture       *f,
                             gconstpointer  data)
{
  g_autofree char *dir = g_build_filename (f->root, "paid", NULL);
  g_autofree char *rows_path = g_build_filename (dir, "clean", "run_1", "results_5.jsonl", NULL);
  g_autofree char *budget = NULL;
  g_autofree char *spent = NULL;
  g_autofree char *out = NULL;
  g_autofree char *err = NULL;
  g_autoptr(GPtrArray) objects = NULL;
  g_autoptr(GHashTable) rows = NULL;
  static const char * const failed[] = { "R01", "R02", NULL };
  double total = 0.0;
  guint calls;
  const char *argv[] = {
    "--method", "cot", "--backend", "openai", "--base-url", f->base_url, "--model", "fake",
    "--candidates", "5", "--limit", "4", "-j", "1", "--out", f->root, "--name", "paid", NULL,
  };
  const char *resume_argv[] = { "--resume", dir, "--max-cost", NULL, NULL };

  g_assert_cmpint (run (argv, NULL, NULL, NULL), ==, 0);
  rows = read_rows (rows_path, &objects);
  g_assert_cmpuint (objects->len, ==, 4);
  for (guint i = 0; i < objects->len; i++)
    total += json_object_get_double_member (g_ptr_array_index (objects, i), "cost_usd");
  anot_test_fail_rows (rows_path, failed);

  budget = g_strdup_printf ("%.6f", total * 1.1);
  resume_argv[3] = budget;
  calls = count_chat_requests (f->server);
  g_assert_cmpint (run (resume_argv, NULL, &out, &err), ==, 3);
  spent = g_strdup_printf ("$%.4f spent", total);
  g_assert_nonnull (strstr (err, spent));
  g_assert_cmpuint (count_chat_requests (f->server), ==, calls);
}

/* ------------------------------------------------------------------------
 * A stall under the request deadline
 * --------------------------------------------------------------------- */

/* After the client exited: the chat calls the server has not answered
 * (its client cancelled them on the wire) and the prompt tokens they
 * carried. */
static guint
count_abandoned (AnotFakeLlm *server,
                 guint64     *out_prompt_tokens)
{
  guint n = 0;

  *out_prompt_tokens = 0;
  for (guint i = 0; i < anot_fake_llm_get_n_requests (server); i++)
    {
      JsonObject *record = anot_fake_llm_get_request (server, i);

      if (strcmp (json_object_get_string_member (record, "path"), "/v1/chat/completions") == 0 &&
          !json_object_get_boolean_member_with_default (record, "answered", TRUE))
        {
          n++;
          *out_prompt_tokens += json_object_get_int_member (record, "prompt_tokens");
        }
    }
  return n;
}

/* The `usage` object of @path (config.json, summary.json). */
static JsonObject *
read_usage (const char *path,
            JsonParser *parser)
{
  g_assert_true (json_parser_load_from_file (parser, path, NULL));
  return json_object_get_object_member (json_node_get_object (json_parser_get_root (parser)), "usage");
}

/* The calls cancelled in flight that @usage counts (0 without the
 * member), checked against the server: as many as it saw abandoned,
 * @abandoned_prompt their prompt tokens (the estimate counts a prompt as
 * the server does, 4 bytes a token), priced at gpt-4o-mini's list price
 * with the answer the estimate assumed. */
static guint64
assert_cancelled_usage (JsonObject *usage,
                        guint       abandoned,
                        guint64     abandoned_prompt)
{
  JsonObject *cancelled = json_object_get_object_member (usage, "cancelled_in_flight");
  double estimate;

  g_assert_nonnull (cancelled);
  g_assert_cmpint (json_object_get_int_member (cancelled, "calls"), ==, abandoned);
  g_assert_cmpint (json_object_get_int_member (cancelled, "prompt_tokens"), ==, abandoned_prompt);
  g_assert_cmpint (json_object_get_int_member (cancelled, "completion_tokens"), >, 0);
  estimate = abandoned_prompt * 0.15e-6 +
             json_object_get_int_member (cancelled, "completion_tokens") * 0.60e-6;
  g_assert_cmpfloat_with_epsilon (json_object_get_double_member (cancelled, "estimated_cost_usd"),
                                  estimate, 5e-7);
  return json_object_get_int_member (cancelled, "calls");
}

/* What the experiment's summary and answers.jsonl say was spent on the
 * batch lines the server answered since it had answered @prompt_before +
 * @completion_before tokens of lines: their bill at gpt-4o-mini's batch
 * price (half of $0.15 and $0.60 per million tokens), one journal line
 * each. */
static void
assert_spend_is_batch_bill (AnotFakeLlm *server,
                            const char  *dir,
                            guint64      prompt_before,
                            guint64      completion_before)
{
  g_autofree char *summary_path = g_build_filename (dir, "clean", "summary.json", NULL);
  g_autofree char *journal_path = g_build_filename (dir, "answers.jsonl", NULL);
  g_autofree char *journal = NULL;
  g_autoptr(JsonParser) parser = json_parser_new ();
  guint64 prompt, completion, lines = 0;
  double bill;
  JsonObject *usage;

  anot_fake_llm_get_batch_tokens (server, &prompt, &completion);
  bill = (prompt - prompt_before) * 0.075e-6 + (completion - completion_before) * 0.30e-6;
  g_assert_true (json_parser_load_from_file (parser, summary_path, NULL));
  usage = json_object_get_object_member (json_node_get_object (json_parser_get_root (parser)), "usage");
  g_test_message ("batch lines billed $%.8f; summary $%.8f", bill,
                  json_object_get_double_member (usage, "total_cost_usd"));
  g_assert_cmpfloat (bill, >, 0);
  /* The summary rounds to the millionth of a dollar. */
  g_assert_cmpfloat_with_epsilon (json_object_get_double_member (usage, "total_cost_usd"), bill, 5e-7);
  g_assert_true (g_file_get_contents (journal_path, &journal, NULL, NULL));
  for (const char *p = journal; *p != '\0'; p++)
    lines += *p == '\n';
  g_assert_cmpuint (lines, ==, 4);
}

/* The server stalls (direct: it answers after 30 s, past a deadline of
 * 1 s; batch mode: the batch runs for 8 s, past a deadline of 3 s, well
 * after the batch is submitted) past every request's deadline: they were
 * late because their calls waited on the server, so their rows are the
 * infrastructure's, unscored, and the run exits with 4; the resume scores
 * every one of them, paying each call (direct) or batch line once.  The
 * margins are seconds; checked 12 runs out of 12 beside two busy loops on
 * a machine already at load 25, as were the full-disk, spend and retries
 * tests below (which assert counts, not timings). */
static void
test_stall (Fixture       *f,
            gconstpointer  data)
{
  gboolean batch = GPOINTER_TO_INT (data);
  g_autofree char *dir = g_build_filename (f->root, "stalled", NULL);
  g_autofree char *rows_path = g_build_filename (dir, "clean", "run_1", "results_5.jsonl", NULL);
  g_autofree char *reference_path = g_build_filename (f->root, "reference", "clean", "run_1",
                                                      "results_5.jsonl", NULL);
  g_autofree char *out = NULL;
  g_autofree char *err = NULL;
  g_autoptr(GPtrArray) objects = NULL;
  g_autoptr(GHashTable) rows = NULL;
  g_autoptr(GHashTable) reference = NULL;
  const char *reference_argv[] = {
    "--method", "cot", "--backend", "openai", "--base-url", f->base_url, "--model", "gpt-4o-mini",
    "--candidates", "5", "--limit", "4", "-j", "4", "--out", f->root, "--name", "reference",
    batch ? "--batch" : NULL, NULL,
  };
  const char *argv[] = {
    "--method", "cot", "--backend", "openai", "--base-url", f->base_url, "--model", "gpt-4o-mini",
    "--candidates", "5", "--limit", "4", "-j", "4", "--out", f->root, "--name", "stalled",
    "--request-timeout", batch ? "3" : "1", batch ? "--batch" : NULL, NULL,
  };
  const char *resume_argv[] = { "--resume", dir, "--request-timeout", "0", NULL };
  guint64 lines_before, lines_before_prompt, lines_before_completion;
  guint stalled_calls, stalled_batches;

  g_assert_cmpint (run (reference_argv, NULL, NULL, NULL), ==, 0);
  reference = read_rows (reference_path, NULL);
  anot_fake_llm_clear_requests (f->server);
  lines_before = anot_fake_llm_get_n_batch_lines (f->server);
  anot_fake_llm_get_batch_tokens (f->server, &lines_before_prompt, &lines_before_completion);

  if (batch)
    anot_fake_llm_set_batch_delay_ms (f->server, 8000);
  else
    g_assert_true (anot_fake_llm_set_rules_json (f->server, "{\"default_reply\": \"[3, 1, 2, 5, 4]\", "
                                                 "\"latency_ms\": 30000}", NULL));
  g_assert_cmpint (run (argv, NULL, &out, &err), ==, 4);
  g_assert_nonnull (strstr (err, "--resume"));
  /* The run does not wait for the batch its requests gave up on: it says
   * the batch still runs, billed, and that a resume takes its answers (a
   * machine slow enough to pass the deadline before the batch was
   * submitted has none to name). */
  if (batch && anot_test_cli_count_requests (f->server, "POST", "/v1/batches") == 1)
    g_assert_nonnull (strstr (out, "Batches: 1 still running at the provider (4 lines, billed when "
                                   "they end)"));
  rows = read_rows (rows_path, &objects);
  g_assert_cmpuint (objects->len, ==, 4);
  for (guint i = 0; i < objects->len; i++)
    {
      JsonObject *row = g_ptr_array_index (objects, i);

      g_assert_cmpstr (json_object_get_string_member_with_default (row, "error_class", NULL), ==,
                       "infrastructure");
      g_assert_true (g_str_has_prefix (json_object_get_string_member (row, "error"),
                                       batch ? "ANOT_ERROR_LLM_TIMEOUT: the request's deadline of 3 s"
                                             : "ANOT_ERROR_LLM_TIMEOUT: the request's deadline of 1 s"));
    }
  /* At most one call a request reached the server (a slow machine may
   * pass the deadline before some are sent). */
  if (batch)
    g_assert_cmpuint (anot_test_cli_count_requests (f->server, "POST", "/v1/batches"), <=, 1);
  else
    g_assert_cmpuint (count_chat_requests (f->server), <=, 4);
  stalled_calls = count_chat_requests (f->server);
  stalled_batches = anot_test_cli_count_requests (f->server, "POST", "/v1/batches");
  /* Direct: the deadline cancelled the calls on the wire, each counted as
   * cancelled in flight, at an estimate, in config.json. */
  if (!batch)
    {
      g_autofree char *config_path = g_build_filename (dir, "clean", "run_1", "config.json", NULL);
      g_autoptr(JsonParser) parser = json_parser_new ();
      guint64 abandoned_prompt;
      guint abandoned = count_abandoned (f->server, &abandoned_prompt);

      g_assert_cmpuint (abandoned, ==, stalled_calls);
      if (abandoned > 0)
        assert_cancelled_usage (read_usage (config_path, parser), abandoned, abandoned_prompt);
    }

  /* The server is quick again: the resume scores every request. */
  g_assert_true (anot_fake_llm_set_rules_json (f->server, "{\"default_reply\": \"[3, 1, 2, 5, 4]\"}",
                                               NULL));
  g_assert_cmpint (run (resume_argv, NULL, &out, &err), ==, 0);
  g_assert_nonnull (strstr (out, "Ran 4 requests"));
  g_clear_pointer (&rows, g_hash_table_unref);
  rows = read_rows (rows_path, NULL);
  anot_test_assert_same_rows (reference, rows);
  if (batch)
    {
      /* The batch the deadline left was polled, not sent again: each line
       * was answered once. */
      g_assert_cmpuint (anot_test_cli_count_requests (f->server, "POST", "/v1/batches"), ==,
                        MAX (stalled_batches, 1));
      g_assert_cmpuint (anot_fake_llm_get_n_batch_lines (f->server), ==, lines_before + 4);
      g_assert_cmpuint (count_chat_requests (f->server), ==, 0);
      assert_spend_is_batch_bill (f->server, dir, lines_before_prompt, lines_before_completion);
    }
  else
    g_assert_cmpuint (count_chat_requests (f->server), ==, stalled_calls + 4);
}

/* ------------------------------------------------------------------------
 * A full disk
 * --------------------------------------------------------------------- */

static goffset
file_size (const char *path)
{
  GStatBuf buf;

  g_assert_cmpint (g_stat (path, &buf), ==, 0);
  return buf.st_size;
}

/* The disk fills up in the middle of a run (no file may grow past half
 * of the traces the run writes): the run stops, saying how many finished
 * requests it could not write and how to resume.  Their answers, paid
 * for, are in answers.jsonl: the resume, with room again, pays for none
 * of them.  Over both, the server answered each request's call once, and
 * the rows are those of a run on a disk with room. */
static void
test_full_disk (Fixture       *f,
                gconstpointer  data)
{
  g_autofree char *dir = g_build_filename (f->root, "full", NULL);
  g_autofree char *rows_path = g_build_filename (dir, "clean", "run_1", "results_5.jsonl", NULL);
  g_autofree char *reference_dir = g_build_filename (f->root, "reference", NULL);
  g_autofree char *reference_path = g_build_filename (reference_dir, "clean", "run_1",
                                                      "results_5.jsonl", NULL);
  g_autofree char *trace_path = g_build_filename (reference_dir, "clean", "run_1", "trace_5.jsonl", NULL);
  g_autofree char *config_path = g_build_filename (reference_dir, "clean", "run_1", "config.json", NULL);
  g_autofree char *resume_hint = g_strdup_printf ("anot-run --resume %s", dir);
  g_autofree char *out = NULL;
  g_autofree char *err = NULL;
  g_autoptr(GHashTable) reference = NULL;
  g_autoptr(GHashTable) rows = NULL;
  g_autoptr(GSubprocess) process = NULL;
  const char *reference_argv[] = {
    "--method", "cot", "--backend", "openai", "--base-url", f->base_url, "--model", "gpt-4o-mini",
    "--candidates", "5", "--limit", "16", "-j", "2", "--out", f->root, "--name", "reference", NULL,
  };
  const char *argv[] = {
    "--method", "cot", "--backend", "openai", "--base-url", f->base_url, "--model", "gpt-4o-mini",
    "--candidates", "5", "--limit", "16", "-j", "2", "--out", f->root, "--name", "full", NULL,
  };
  const char *resume_argv[] = { "--resume", dir, NULL };
  const char *quick[] = {
    "ANOT_MAX_RETRIES=1", "ANOT_RETRY_BASE_MS=20", "ANOT_RETRY_MAX_MS=40",
    "ANOT_BASE_URL", "OPENAI_API_KEY", "ANTHROPIC_API_KEY", NULL,
  };
  gsize limit;
  guint first_calls;

  g_assert_cmpint (run (reference_argv, NULL, NULL, NULL), ==, 0);
  reference = read_rows (reference_path, NULL);
  g_assert_cmpuint (g_hash_table_size (reference), ==, 16);
  /* The files written before any row fit. */
  limit = (gsize) file_size (trace_path) / 2;
  g_assert_cmpuint (limit, >, file_size (config_path));
  anot_fake_llm_clear_requests (f->server);

  process = anot_test_cli_spawn_limited (G_SUBPROCESS_FLAGS_STDOUT_PIPE | G_SUBPROCESS_FLAGS_STDERR_PIPE,
                                         argv, quick, limit);
  g_assert_cmpint (anot_test_cli_wait (process, NULL, NULL, &out, &err), ==, 1);
  g_test_message ("%s", err);
  g_assert_nonnull (strstr (err, "could not be written"));
  g_assert_nonnull (strstr (err, resume_hint));
  rows = read_rows (rows_path, NULL);
  g_assert_cmpuint (g_hash_table_size (rows), <, 16);
  first_calls = count_chat_requests (f->server);
  g_assert_cmpuint (first_calls, >, g_hash_table_size (rows));
  /* The report says that a trace line is torn, rather than reading one
   * trace fewer in silence.  Where the disk filled up depends on the
   * lengths of the lines written before (a trace holds latencies, so two
   * runs differ by a few bytes): the limit can fall in the middle of a
   * line (torn), just before its newline (a whole JSON object, read, and
   * left out because its request has no row), or between two lines.  In
   * the last two cases the line is torn here, as a kill in the middle of
   * the write leaves it, so that there is exactly one torn line whatever
   * the lengths were.  Checked 20 runs out of 20 beside ten busy loops. */
  {
    g_autofree char *page = g_build_filename (f->root, "full.html", NULL);
    g_autofree char *traces_path = g_build_filename (dir, "clean", "run_1", "trace_5.jsonl", NULL);
    g_autofree char *contents = NULL;
    const char *report_argv[] = { "report", dir, "-o", page, NULL };
    const char *last_line;
    g_autoptr(JsonParser) parser = json_parser_new ();

    g_assert_true (g_file_get_contents (traces_path, &contents, NULL, NULL));
    last_line = strrchr (contents, '\n');
    last_line = last_line != NULL ? last_line + 1 : contents;
    if (*last_line == '\0' || json_parser_load_from_data (parser, last_line, -1, NULL))
      {
        g_autoptr(GFile) file = g_file_new_for_path (traces_path);
        g_autoptr(GFileOutputStream) stream = g_file_append_to (file, G_FILE_CREATE_NONE, NULL, NULL);
        const char *torn = *last_line == '\0' ? "{\"request_id\": \"R1" : "\n{\"request_id\": \"R1";

        g_assert_nonnull (stream);
        g_assert_true (g_output_stream_write_all (G_OUTPUT_STREAM (stream), torn, strlen (torn),
                                                  NULL, NULL, NULL));
      }

    g_clear_pointer (&out, g_free);
    g_assert_cmpint (run (report_argv, NULL, &out, NULL), ==, 0);
    g_assert_nonnull (strstr (out, "1 trace line unreadable"));
  }

  g_assert_cmpint (run (resume_argv, NULL, &out, &err), ==, 0);
  g_assert_cmpuint (count_chat_requests (f->server), ==, 16);
  g_clear_pointer (&rows, g_hash_table_unref);
  rows = read_rows (rows_path, NULL);
  anot_test_assert_same_rows (reference, rows);
  /* One whole trace a request: the torn line the full disk left, and the
   * traces of the requests run again, are gone. */
  {
    g_autofree char *traces_path = g_build_filename (dir, "clean", "run_1", "trace_5.jsonl", NULL);
    g_autoptr(GHashTable) traces = read_rows (traces_path, NULL);
    g_autofree char *contents = NULL;
    g_auto(GStrv) lines = NULL;

    g_assert_true (g_file_get_contents (traces_path, &contents, NULL, NULL));
    g_assert_true (g_str_has_suffix (contents, "\n"));
    g_assert_cmpuint (g_hash_table_size (traces), ==, 16);
    lines = g_strsplit (contents, "\n", -1);
    g_assert_cmpuint (g_strv_length (lines), ==, 17);
  }
}

/* ------------------------------------------------------------------------
 * What was paid for
 * --------------------------------------------------------------------- */

typedef struct
{
  AnotFakeLlm *server;
  guint after;
  gboolean down;
} Cut;

static void
cut_tick (gpointer data)
{
  Cut *cut = data;

  if (!cut->down && count_chat_requests (cut->server) >= cut->after)
    {
      anot_fake_llm_set_down (cut->server, TRUE);
      cut->down = TRUE;
    }
}

/* The server's bill: every chat call it answered, at gpt-4o-mini's list
 * price ($0.15 and $0.60 per million tokens). */
static double
server_bill (AnotFakeLlm *server,
             guint       *out_calls)
{
  double bill = 0;

  *out_calls = 0;
  for (guint i = 0; i < anot_fake_llm_get_n_requests (server); i++)
    {
      JsonObject *record = anot_fake_llm_get_request (server, i);

      if (strcmp (json_object_get_string_member (record, "path"), "/v1/chat/completions") != 0 ||
          json_object_get_int_member (record, "status") != 200)
        continue;
      /* Cut by the client before its answer was due. */
      if (!json_object_get_boolean_member_with_default (record, "answered", TRUE))
        continue;
      (*out_calls)++;
      bill += json_object_get_int_member (record, "prompt_tokens") * 0.15e-6 +
              json_object_get_int_member (record, "completion_tokens") * 0.60e-6;
    }
  return bill;
}

/* plan_act makes two calls a request; the server goes down after five,
 * in the middle of a request, until the run ends: a request whose first
 * call was answered and paid for is unscored.  The resume replays that
 * answer and pays only for what was not answered: the summary's calls
 * and spend are the server's, call for call. */
static void
test_outage_spend (Fixture       *f,
                   gconstpointer  data)
{
  g_autofree char *dir = g_build_filename (f->root, "paid", NULL);
  g_autofree char *summary_path = g_build_filename (dir, "clean", "summary.json", NULL);
  g_autoptr(GSubprocess) process = NULL;
  g_autoptr(JsonParser) parser = json_parser_new ();
  JsonObject *usage;
  Cut cut = { f->server, 5, FALSE };
  double bill;
  guint calls;
  const char *argv[] = {
    "--method", "plan_act", "--backend", "openai", "--base-url", f->base_url, "--model", "gpt-4o-mini",
    "--candidates", "5", "--limit", "8", "-j", "2", "--out", f->root, "--name", "paid", NULL,
  };
  const char *resume_argv[] = { "--resume", dir, NULL };

  process = spawn (argv, NULL);
  g_assert_cmpint (anot_test_cli_wait (process, cut_tick, &cut, NULL, NULL), ==, 4);
  g_assert_true (cut.down);
  anot_fake_llm_set_down (f->server, FALSE);
  g_assert_cmpint (run (resume_argv, NULL, NULL, NULL), ==, 0);

  bill = server_bill (f->server, &calls);
  g_assert_true (json_parser_load_from_file (parser, summary_path, NULL));
  usage = json_object_get_object_member (json_node_get_object (json_parser_get_root (parser)), "usage");
  g_test_message ("server: %u calls, $%.8f; summary: %" G_GINT64_FORMAT " calls, $%.8f", calls, bill,
                  json_object_get_int_member (usage, "total_calls"),
                  json_object_get_double_member (usage, "total_cost_usd"));
  g_assert_cmpint (json_object_get_int_member (usage, "total_calls"), ==, calls);
  /* The summary rounds to the millionth of a dollar; the rows do not. */
  g_assert_cmpfloat_with_epsilon (json_object_get_double_member (usage, "total_cost_usd"), bill, 5e-7);
  {
    g_autofree char *rows_path = g_build_filename (dir, "clean", "run_1", "results_5.jsonl", NULL);
    g_autoptr(GHashTable) rows = NULL;
    g_autoptr(GPtrArray) objects = NULL;
    double spent = 0;

    rows = read_rows (rows_path, &objects);
    for (guint i = 0; i < objects->len; i++)
      spent += json_object_get_double_member (g_ptr_array_index (objects, i), "cost_usd");
    g_assert_cmpfloat_with_epsilon (spent, bill, 1e-12);
  }
}

/* Rate-limited: the first three calls are answered 429.  With one retry
 * a call, the first call gives up after its retry and the second gets
 * through on its retry: every call the server saw beyond one a request is
 * a retry, and the rows, the summary and the LLM line count them all, the
 * failed call's included. */
static void
test_retries_counted (Fixture       *f,
                      gconstpointer  data)
{
  g_autofree char *dir = g_build_filename (f->root, "limited", NULL);
  g_autofree char *summary_path = g_build_filename (dir, "clean", "summary.json", NULL);
  g_autofree char *out = NULL;
  g_autofree char *line = NULL;
  g_autoptr(JsonParser) parser = json_parser_new ();
  JsonObject *usage;
  guint sent, retries;
  const char *argv[] = {
    "--method", "cot", "--backend", "openai", "--base-url", f->base_url, "--model", "gpt-4o-mini",
    "--candidates", "5", "--limit", "4", "-j", "1", "--out", f->root, "--name", "limited", NULL,
  };

  g_assert_true (anot_fake_llm_set_rules_json (f->server,
                                               "{\"default_reply\": \"[3, 1, 2, 5, 4]\", \"rules\": "
                                               "[{\"match\": \".\", \"fault\": \"429\", \"times\": 3}]}",
                                               NULL));
  g_assert_cmpint (run (argv, NULL, &out, NULL), ==, 4);
  sent = count_chat_requests (f->server);
  g_assert_cmpuint (sent, ==, 6);
  retries = sent - 4;
  line = g_strdup_printf (", %u retries\n", retries);
  g_assert_nonnull (strstr (out, line));
  g_assert_true (json_parser_load_from_file (parser, summary_path, NULL));
  usage = json_object_get_object_member (json_node_get_object (json_parser_get_root (parser)), "usage");
  g_assert_cmpint (json_object_get_int_member (usage, "total_retries"), ==, retries);
}

/* ------------------------------------------------------------------------
 * Calls cancelled in flight
 * --------------------------------------------------------------------- */

typedef struct
{
  AnotFakeLlm *server;
  GSubprocess *process;
  guint n_calls;             /* once the server has had that many calls */
  guint n_in_flight;         /* and holds that many */
  gboolean sent;
} Interrupt;

/* Ctrl-C once the calls reached the server and those it holds are on the
 * wire. */
static void
interrupt_tick (gpointer data)
{
  Interrupt *interrupt = data;

  if (!interrupt->sent && count_chat_requests (interrupt->server) == interrupt->n_calls &&
      anot_fake_llm_get_in_flight (interrupt->server) == interrupt->n_in_flight)
    {
      g_subprocess_send_signal (interrupt->process, SIGINT);
      interrupt->sent = TRUE;
    }
}

/* Ctrl-C with two calls on the wire: they are cancelled, and a provider
 * may bill them.  No answer came back, so each is counted as cancelled in
 * flight, at an estimated cost, apart from the cost: in answers.jsonl,
 * config.json, summary.json and the LLM line, and still after the resume
 * (which pays for those calls again: they had no answer to replay), while
 * the cost stays the server's bill for the calls it answered.  Counts,
 * not timings: the signal is sent once the server holds the two slow
 * calls, whose answers are a minute away (checked 20 runs out of 20
 * beside two busy loops). */
static void
test_cancelled_in_flight (Fixture       *f,
                          gconstpointer  data)
{
  g_autofree char *dir = g_build_filename (f->root, "cut", NULL);
  g_autofree char *config_path = g_build_filename (dir, "clean", "run_1", "config.json", NULL);
  g_autofree char *summary_path = g_build_filename (dir, "clean", "summary.json", NULL);
  g_autofree char *out = NULL;
  g_autofree char *err = NULL;
  g_autofree char *line = NULL;
  g_autoptr(GSubprocess) process = NULL;
  g_autoptr(JsonParser) parser = json_parser_new ();
  /* The two quick calls answered, the two slow ones on the wire. */
  Interrupt interrupt = { f->server, NULL, 4, 2, FALSE };
  const char *argv[] = {
    "--method", "cot", "--backend", "openai", "--base-url", f->base_url, "--model", "gpt-4o-mini",
    "--candidates", "5", "--limit", "4", "-j", "4", "--out", f->root, "--name", "cut", NULL,
  };
  const char *resume_argv[] = { "--resume", dir, NULL };
  guint64 abandoned_prompt = 0;
  guint abandoned, calls;
  double bill;

  g_assert_true (anot_fake_llm_set_rules_json (f->server,
                                               "{\"default_reply\": \"[3, 1, 2, 5, 4]\", "
                                               "\"slow_ms\": 60000, \"rules\": [{\"match\": \".\", "
                                               "\"fault\": \"slow\", \"times\": 2}]}", NULL));
  process = spawn (argv, NULL);
  interrupt.process = process;
  g_assert_cmpint (anot_test_cli_wait (process, interrupt_tick, &interrupt, &out, &err), ==, 130);
  g_assert_true (interrupt.sent);
  abandoned = count_abandoned (f->server, &abandoned_prompt);
  g_assert_cmpuint (abandoned, ==, 2);
  line = g_strdup_printf (", %u cancelled in flight (up to $", abandoned);
  g_assert_nonnull (strstr (out, line));
  assert_cancelled_usage (read_usage (config_path, parser), abandoned, abandoned_prompt);

  /* The resume runs the two cut requests again: the cancelled calls stay
   * counted, the cost is what the server answered. */
  g_assert_true (anot_fake_llm_set_rules_json (f->server, "{\"default_reply\": \"[3, 1, 2, 5, 4]\"}",
                                               NULL));
  g_assert_cmpint (run (resume_argv, NULL, &out, NULL), ==, 0);
  g_assert_nonnull (strstr (out, line));
  assert_cancelled_usage (read_usage (config_path, parser), abandoned, abandoned_prompt);
  assert_cancelled_usage (read_usage (summary_path, parser), abandoned, abandoned_prompt);
  bill = server_bill (f->server, &calls);
  g_assert_cmpint (json_object_get_int_member (read_usage (summary_path, parser), "total_calls"), ==,
                   calls);
  g_assert_cmpfloat_with_epsilon (json_object_get_double_member (read_usage (summary_path, parser),
                                                                 "total_cost_usd"), bill, 5e-7);
}

/* Calls cut on the wire (here by Ctrl-C) may be billed whole: a budget
 * counts their estimates as spent, in the run and in its resume.  A
 * resume whose budget is below those estimates starts nothing.  Counts,
 * not timings: the signal goes once the server holds the four calls,
 * whose answers are 30 s away (checked 20 runs out of 20 beside two busy
 * loops at load 19, and under ASan).  /stall/direct (its count of cancelled
 * calls) was checked 20 runs out of 20 beside two busy loops at load 13,
 * /stall/batch 6 out of 6. */
static void
test_budget_counts_cancelled (Fixture       *f,
                              gconstpointer  data)
{
  g_autofree char *dir = g_build_filename (f->root, "late", NULL);
  g_autofree char *config_path = g_build_filename (dir, "clean", "run_1", "config.json", NULL);
  g_autofree char *err = NULL;
  g_autofree char *budget = NULL;
  g_autoptr(JsonParser) parser = json_parser_new ();
  const char *argv[] = {
    "--method", "cot", "--backend", "openai", "--base-url", f->base_url, "--model", "gpt-4o-mini",
    "--candidates", "5", "--limit", "4", "-j", "4", "--out", f->root, "--name", "late", NULL,
  };
  const char *resume_argv[] = { "--resume", dir, "--max-cost", NULL, NULL };
  g_autoptr(GSubprocess) process = NULL;
  Interrupt interrupt = { f->server, NULL, 4, 4, FALSE };
  guint64 abandoned_prompt;
  guint abandoned, calls;
  double estimate;

  g_assert_true (anot_fake_llm_set_rules_json (f->server, "{\"default_reply\": \"[3, 1, 2, 5, 4]\", "
                                               "\"latency_ms\": 30000}", NULL));
  process = spawn (argv, NULL);
  interrupt.process = process;
  g_assert_cmpint (anot_test_cli_wait (process, interrupt_tick, &interrupt, NULL, NULL), ==, 130);
  abandoned = count_abandoned (f->server, &abandoned_prompt);
  g_assert_cmpuint (abandoned, ==, 4);
  assert_cancelled_usage (read_usage (config_path, parser), abandoned, abandoned_prompt);
  estimate = json_object_get_double_member (json_object_get_object_member (read_usage (config_path, parser),
                                                                           "cancelled_in_flight"),
                                            "estimated_cost_usd");

  g_assert_true (anot_fake_llm_set_rules_json (f->server, "{\"default_reply\": \"[3, 1, 2, 5, 4]\"}",
                                               NULL));
  calls = count_chat_requests (f->server);
  budget = g_strdup_printf ("%.6f", estimate / 2);
  resume_argv[3] = budget;
  g_assert_cmpint (run (resume_argv, NULL, NULL, &err), ==, 3);
  g_assert_nonnull (strstr (err, "has no room for the next request"));
  g_assert_cmpuint (count_chat_requests (f->server), ==, calls);
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);

#define ADD(path, func, data) \
  g_test_add (path, Fixture, data, fixture_setup, func, fixture_teardown)

  ADD ("/failure-cli/outage/openai", test_outage, GINT_TO_POINTER (OUTAGE_OPENAI));
  ADD ("/failure-cli/outage/anthropic", test_outage, GINT_TO_POINTER (OUTAGE_ANTHROPIC));
  ADD ("/failure-cli/outage/batch", test_outage, GINT_TO_POINTER (OUTAGE_BATCH));
  ADD ("/failure-cli/refused-key", test_refused_key, NULL);
  ADD ("/failure-cli/unknown-model", test_unknown_model, NULL);
  ADD ("/failure-cli/missing-key", test_missing_key, NULL);
  ADD ("/failure-cli/context-fit", test_context_fit, NULL);
  ADD ("/failure-cli/replaced-characters", test_replaced_characters, NULL);
  ADD ("/failure-cli/usage-every-attack", test_usage_every_attack, NULL);
  ADD ("/failure-cli/role-budget", test_role_budget, NULL);
  ADD ("/failure-cli/budget-counts-unscored", test_budget_counts_unscored, NULL);
  ADD ("/failure-cli/stall/direct", test_stall, GINT_TO_POINTER (FALSE));
  ADD ("/failure-cli/stall/batch", test_stall, GINT_TO_POINTER (TRUE));
  ADD ("/failure-cli/full-disk", test_full_disk, NULL);
  ADD ("/failure-cli/outage/spend", test_outage_spend, NULL);
  ADD ("/failure-cli/retries-counted", test_retries_counted, NULL);
  ADD ("/failure-cli/cancelled-in-flight", test_cancelled_in_flight, NULL);
  ADD ("/failure-cli/budget-counts-cancelled", test_budget_counts_cancelled, NULL);

#undef ADD

  return g_test_run ();
}
