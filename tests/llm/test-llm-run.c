/* test-llm-run.c: experiments whose method calls LLMs, end to end against
 * the fake LLM server: usage attribution, faults, role routing, the
 * response cache and offline replays, debug levels, and keys never
 * written
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <anot/anot.h>

#include "anot-fake-llm.h"

#include <math.h>
#include <string.h>

#define TEST_KEY "sk-anot-test-SECRET-5f3a9c1e"

/* The test-llm method asks "PLAN <id>: ..." then "SCORE <id> item <i>:
 * <name>" for each candidate; the server scores item i as i. */
static const char *scoring_rules =
  "{\"latency_ms\": [2, 20], \"rules\": ["
  "  {\"match\": \"^SCORE \\\\S+ item (\\\\d+)\", \"reply\": \"\\\\1\"},"
  "  {\"match\": \"^PLAN\", \"reply\": \"Check every candidate.\"}"
  "]}";

static AnotFakeLlm *
start_server (const char *rules)
{
  g_autoptr(GError) error = NULL;
  AnotFakeLlm *server = anot_fake_llm_new ();

  g_assert_true (anot_fake_llm_set_rules_json (server, rules, &error));
  g_assert_no_error (error);
  anot_fake_llm_set_api_key (server, TEST_KEY);
  g_assert_true (anot_fake_llm_start (server, 0, &error));
  g_assert_no_error (error);
  return server;
}

static char *
out_dir (const char *name)
{
  return g_build_filename (g_get_user_data_dir (), name, NULL);
}

/* The request id a prompt was sent for. */
static char *
prompt_request (const char *last_user)
{
  g_auto(GStrv) words = g_strsplit (last_user ? last_user : "", " ", 3);
  char *id;

  if (words[0] == NULL || words[1] == NULL)
    return NULL;
  id = g_strdup (words[1]);
  if (g_str_has_suffix (id, ":"))
    id[strlen (id) - 1] = '\0';
  return id;
}

/* ------------------------------------------------------------------------
 * In-process experiments
 * --------------------------------------------------------------------- */

static void
on_run_done (GObject      *source,
             GAsyncResult *result,
             gpointer      user_data)
{
  GAsyncResult **out = user_data;

  *out = g_object_ref (result);
}

static AnotExperiment *
run_experiment (const char  *name,
                const char  *first_option,
                ...)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *demo = g_build_filename (g_getenv ("ANOT_DATA_DIR"), "demo", NULL);
  g_autoptr(AnotDataset) dataset = anot_dataset_load (demo, NULL, &error);
  g_autoptr(AnotExperiment) experiment = NULL;
  g_autoptr(GAsyncResult) result = NULL;
  g_autofree char *out = out_dir ("results");
  va_list args;

  g_assert_no_error (error);
  experiment = anot_experiment_new (dataset, "test-llm");
  anot_experiment_set_option (experiment, "out", out);
  anot_experiment_set_option (experiment, "name", name);
  anot_experiment_set_option (experiment, "force", "true");
  va_start (args, first_option);
  for (const char *key = first_option; key != NULL; key = va_arg (args, const char *))
    anot_experiment_set_option (experiment, key, va_arg (args, const char *));
  va_end (args);

  anot_experiment_run_async (experiment, NULL, on_run_done, &result);
  while (result == NULL)
    g_main_context_iteration (NULL, TRUE);
  g_assert_true (anot_experiment_run_finish (experiment, result, &error));
  g_assert_no_error (error);
  return g_steal_pointer (&experiment);
}

/* 16 requests at once, each with its planner and scorer calls: each
 * request's usage is exactly what the server counted for that request's
 * prompts, per role too (the original framework's per-request counts
 * were inflated by the requests running alongside). */
static void
test_usage_per_request (void)
{
  /* Slow enough answers that the 16 requests overlap, even under ASan. */
  g_autoptr(AnotFakeLlm) server = start_server (
    "{\"latency_ms\": [60, 120], \"rules\": ["
    "  {\"match\": \"^SCORE \\\\S+ item (\\\\d+)\", \"reply\": \"\\\\1\"},"
    "  {\"match\": \"^PLAN\", \"reply\": \"Check every candidate.\"}"
    "]}");
  g_autofree char *url = anot_fake_llm_get_openai_base_url (server);
  g_autoptr(AnotExperiment) experiment = NULL;
  g_autoptr(GPtrArray) results = NULL;
  g_autoptr(GHashTable) prompt_tokens = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  g_autoptr(GHashTable) completion_tokens = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  g_autofree char *usage_path = NULL;
  g_autofree char *usage_text = NULL;
  g_auto(GStrv) usage_lines = NULL;

  g_setenv ("OPENAI_API_KEY", TEST_KEY, TRUE);
  experiment = run_experiment ("usage", "method.test-llm.tag", "usage",
                               "backend", "openai", "base-url", url, "model", "fake-model",
                               "candidates", "5", "limit", "16", "concurrency", "16", NULL);

  g_assert_cmpuint (anot_fake_llm_get_n_requests (server), ==, 16 * 6);
  /* The requests really overlapped. */
  g_assert_cmpuint (anot_fake_llm_get_peak_in_flight (server), >=, 16);

  for (guint i = 0; i < anot_fake_llm_get_n_requests (server); i++)
    {
      JsonObject *record = anot_fake_llm_get_request (server, i);
      g_autofree char *id = prompt_request (json_object_get_string_member (record, "last_user"));
      guint64 p = GPOINTER_TO_SIZE (g_hash_table_lookup (prompt_tokens, id));
      guint64 c = GPOINTER_TO_SIZE (g_hash_table_lookup (completion_tokens, id));

      g_assert_cmpint (json_object_get_int_member (record, "status"), ==, 200);
      p += json_object_get_int_member (record, "prompt_tokens");
      c += json_object_get_int_member (record, "completion_tokens");
      g_hash_table_insert (prompt_tokens, g_strdup (id), GSIZE_TO_POINTER (p));
      g_hash_table_insert (completion_tokens, g_steal_pointer (&id), GSIZE_TO_POINTER (c));
    }

  results = anot_experiment_get_results (experiment, 5, 1);
  g_assert_cmpuint (results->len, ==, 16);
  for (guint i = 0; i < results->len; i++)
    {
      AnotResult *result = g_ptr_array_index (results, i);
      const char *id = anot_result_get_request_id (result);
      AnotUsage *usage = anot_result_get_usage (result);
      g_autoptr(AnotUsage) planner = anot_usage_dup_role_usage (usage, "planner");
      g_autoptr(AnotUsage) scorer = anot_usage_dup_role_usage (usage, "scorer");
      guint n;
      const guint *preds = anot_result_get_shuffled_preds (result, &n);

      g_assert_null (anot_result_get_error_message (result));
      g_assert_cmpuint (anot_usage_get_prompt_tokens (usage), ==,
                        GPOINTER_TO_SIZE (g_hash_table_lookup (prompt_tokens, id)));
      g_assert_cmpuint (anot_usage_get_completion_tokens (usage), ==,
                        GPOINTER_TO_SIZE (g_hash_table_lookup (completion_tokens, id)));
      g_assert_cmpuint (anot_usage_get_calls (usage), ==, 6);
      g_assert_cmpuint (anot_usage_get_calls (planner), ==, 1);
      g_assert_cmpuint (anot_usage_get_calls (scorer), ==, 5);
      g_assert_cmpuint (anot_usage_get_prompt_tokens (planner) + anot_usage_get_prompt_tokens (scorer),
                        ==, anot_usage_get_prompt_tokens (usage));
      /* "fake-model" has no price (no [prices] here, and no made-up
       * default): the cost is unknown, every call counted as such, the
       * tokens counted all the same. */
      g_assert_false (anot_usage_get_cost_known (usage));
      g_assert_true (isnan (anot_usage_get_cost_usd (usage)));
      g_assert_cmpuint (anot_usage_get_unpriced_calls (usage), ==, 6);
      g_assert_cmpuint (anot_usage_get_unpriced_calls (planner), ==, 1);
      g_assert_cmpuint (anot_usage_get_unpriced_calls (scorer), ==, 5);
      /* The server scored item i as i: the last shown comes first. */
      g_assert_cmpuint (n, >=, 1);
      g_assert_cmpuint (preds[0], ==, 5);
      g_assert_cmpstr (anot_result_get_raw_response (result), ==, "Check every candidate.");
    }

  /* usage.jsonl has the same numbers. */
  usage_path = g_build_filename (anot_experiment_get_directory (experiment), "clean", "run_1",
                                 "usage.jsonl", NULL);
  g_assert_true (g_file_get_contents (usage_path, &usage_text, NULL, NULL));
  usage_lines = g_strsplit (g_strstrip (usage_text), "\n", -1);
  g_assert_cmpuint (g_strv_length (usage_lines), ==, 16);
  for (guint i = 0; usage_lines[i] != NULL; i++)
    {
      g_autoptr(JsonNode) node = json_from_string (usage_lines[i], NULL);
      JsonObject *row = json_node_get_object (node);
      const char *id = json_object_get_string_member (row, "request_id");

      g_assert_cmpint (json_object_get_int_member (row, "prompt_tokens"), ==,
                       GPOINTER_TO_SIZE (g_hash_table_lookup (prompt_tokens, id)));
      g_assert_true (json_object_get_null_member (row, "cost_usd"));
      g_assert_cmpint (json_object_get_int_member (row, "unpriced_calls"), ==, 6);
    }
  g_unsetenv ("OPENAI_API_KEY");
}

/* Every kind of fault, injected at random: the run completes, every
 * request has its result, and the retries counted in usage are the
 * faults the server injected. */
static void
test_faults (void)
{
  static const char * const kinds[] = { "429", "500", "503", "malformed", "close", "slow" };
  g_autoptr(AnotFakeLlm) server = start_server (
    "{\"seed\": 7, \"retry_after\": \"0\", \"slow_ms\": 6000,"
    " \"faults\": {\"429\": 0.05, \"500\": 0.05, \"503\": 0.05, \"malformed\": 0.05,"
    "              \"close\": 0.05, \"slow\": 0.03},"
    " \"rules\": [{\"match\": \"^SCORE \\\\S+ item (\\\\d+)\", \"reply\": \"\\\\1\"}]}");
  g_autofree char *url = anot_fake_llm_get_openai_base_url (server);
  g_autoptr(AnotExperiment) experiment = NULL;
  g_autoptr(GPtrArray) results = NULL;
  guint64 retries = 0;
  guint faults = 0;
  guint by_kind[G_N_ELEMENTS (kinds)] = { 0 };

  g_setenv ("OPENAI_API_KEY", TEST_KEY, TRUE);
  g_setenv ("ANOT_TIMEOUT_MS", "2000", TRUE);
  g_setenv ("ANOT_RETRY_BASE_MS", "2", TRUE);
  g_setenv ("ANOT_RETRY_MAX_MS", "20", TRUE);
  g_setenv ("ANOT_MAX_RETRIES", "12", TRUE);
  /* Four requests at a time (up to 20 calls in flight): enough to mix the
   * faults, few enough that a loaded CI machine does not time out healthy
   * calls, which would be retries without a fault. */
  experiment = run_experiment ("faults", "backend", "openai", "base-url", url,
                               "candidates", "5", "limit", "16", "concurrency", "4", NULL);

  for (guint i = 0; i < anot_fake_llm_get_n_requests (server); i++)
    {
      JsonObject *record = anot_fake_llm_get_request (server, i);
      const char *fault = json_object_get_string_member_with_default (record, "fault", NULL);

      if (fault == NULL)
        continue;
      faults++;
      for (guint k = 0; k < G_N_ELEMENTS (kinds); k++)
        if (strcmp (fault, kinds[k]) == 0)
          by_kind[k]++;
    }
  for (guint k = 0; k < G_N_ELEMENTS (kinds); k++)
    {
      g_test_message ("%s: %u", kinds[k], by_kind[k]);
      g_assert_cmpuint (by_kind[k], >, 0);
    }

  results = anot_experiment_get_results (experiment, 5, 1);
  g_assert_cmpuint (results->len, ==, 16);
  for (guint i = 0; i < results->len; i++)
    {
      AnotResult *result = g_ptr_array_index (results, i);

      if (anot_result_get_error_message (result) != NULL)
        g_error ("%s failed: %s", anot_result_get_request_id (result),
                 anot_result_get_error_message (result));
      g_assert_cmpuint (anot_usage_get_calls (anot_result_get_usage (result)), ==, 6);
      retries += anot_usage_get_retries (anot_result_get_usage (result));
    }
  g_assert_cmpuint (retries, ==, faults);
  g_assert_cmpuint (anot_fake_llm_get_n_requests (server), ==, 16 * 6 + faults);

  /* The totals of config.json and summary.json count them too. */
  for (guint f = 0; f < 2; f++)
    {
      g_autofree char *path = g_build_filename (anot_experiment_get_directory (experiment), "clean",
                                                f == 0 ? "run_1/config.json" : "summary.json", NULL);
      g_autoptr(JsonParser) parser = json_parser_new ();
      JsonObject *usage;

      g_assert_true (json_parser_load_from_file (parser, path, NULL));
      usage = json_object_get_object_member (json_node_get_object (json_parser_get_root (parser)),
                                             "usage");
      g_assert_cmpint (json_object_get_int_member (usage, "total_retries"), ==, faults);
      g_assert_cmpint (json_object_get_int_member (usage, "total_calls"), ==, 16 * 6);
      if (f == 1)
        g_assert_cmpstr (json_object_get_string_member (json_node_get_object (json_parser_get_root (parser)),
                                                        "model"), ==, "gpt-5-nano");
    }

  g_unsetenv ("ANOT_TIMEOUT_MS");
  g_unsetenv ("ANOT_RETRY_BASE_MS");
  g_unsetenv ("ANOT_RETRY_MAX_MS");
  g_unsetenv ("ANOT_MAX_RETRIES");
  g_unsetenv ("OPENAI_API_KEY");
}

/* --role planner=anthropic:MODEL sends the planner's calls to the
 * Anthropic API and leaves the scorer on the default OpenAI route. */
static void
test_roles (void)
{
  g_autoptr(AnotFakeLlm) server = start_server (scoring_rules);
  g_autofree char *url = anot_fake_llm_get_openai_base_url (server);
  g_autoptr(AnotExperiment) experiment = NULL;
  g_autoptr(GPtrArray) results = NULL;
  guint n_messages = 0, n_chat = 0;

  g_setenv ("OPENAI_API_KEY", TEST_KEY, TRUE);
  g_setenv ("ANTHROPIC_API_KEY", TEST_KEY, TRUE);
  g_setenv ("ANOT_PLANNER_BASE_URL", anot_fake_llm_get_url (server), TRUE);
  experiment = run_experiment ("roles", "backend", "openai", "base-url", url, "model", "gpt-fake",
                               "role", "planner=anthropic:claude-fake",
                               "candidates", "3", "limit", "4", NULL);

  for (guint i = 0; i < anot_fake_llm_get_n_requests (server); i++)
    {
      JsonObject *record = anot_fake_llm_get_request (server, i);
      const char *prompt = json_object_get_string_member (record, "last_user");
      const char *path = json_object_get_string_member (record, "path");

      if (g_str_has_prefix (prompt, "PLAN"))
        {
          g_assert_cmpstr (path, ==, "/v1/messages");
          g_assert_cmpstr (json_object_get_string_member (record, "model"), ==, "claude-fake");
          n_messages++;
        }
      else
        {
          g_assert_cmpstr (path, ==, "/v1/chat/completions");
          g_assert_cmpstr (json_object_get_string_member (record, "model"), ==, "gpt-fake");
          n_chat++;
        }
    }
  g_assert_cmpuint (n_messages, ==, 4);
  g_assert_cmpuint (n_chat, ==, 12);

  results = anot_experiment_get_results (experiment, 3, 1);
  for (guint i = 0; i < results->len; i++)
    {
      g_autoptr(JsonNode) row = anot_result_to_json (g_ptr_array_index (results, i));
      JsonObject *by_model = json_object_get_object_member (json_node_get_object (row), "by_model");
      JsonObject *by_role = json_object_get_object_member (json_node_get_object (row), "by_role");

      g_assert_cmpint (json_object_get_int_member (json_object_get_object_member (by_model, "claude-fake"),
                                                   "calls"), ==, 1);
      g_assert_cmpint (json_object_get_int_member (json_object_get_object_member (by_model, "gpt-fake"),
                                                   "calls"), ==, 3);
      g_assert_cmpint (json_object_get_int_member (json_object_get_object_member (by_role, "scorer"),
                                                   "calls"), ==, 3);
    }

  /* config.json names both routes. */
  {
    g_autofree char *config_path = g_build_filename (anot_experiment_get_directory (experiment), "clean",
                                                     "run_1", "config.json", NULL);
    g_autoptr(JsonParser) parser = json_parser_new ();
    JsonObject *llm, *planner;

    g_assert_true (json_parser_load_from_file (parser, config_path, NULL));
    llm = json_object_get_object_member (json_node_get_object (json_parser_get_root (parser)),
                                         "llm_config");
    g_assert_cmpstr (json_object_get_string_member (llm, "provider"), ==, "openai");
    g_assert_cmpstr (json_object_get_string_member (llm, "model"), ==, "gpt-fake");
    planner = json_object_get_object_member (json_object_get_object_member (llm, "roles"), "planner");
    g_assert_cmpstr (json_object_get_string_member (planner, "provider"), ==, "anthropic");
    g_assert_cmpstr (json_object_get_string_member (planner, "model"), ==, "claude-fake");
  }

  g_unsetenv ("ANOT_PLANNER_BASE_URL");
  g_unsetenv ("OPENAI_API_KEY");
  g_unsetenv ("ANTHROPIC_API_KEY");
}

/* ------------------------------------------------------------------------
 * anot-run
 * --------------------------------------------------------------------- */

typedef struct
{
  gboolean done;
  char *stdout_text;
  char *stderr_text;
} CliRun;

static void
on_communicated (GObject      *source,
                 GAsyncResult *result,
                 gpointer      user_data)
{
  CliRun *run = user_data;
  g_autoptr(GError) error = NULL;

  g_assert_true (g_subprocess_communicate_utf8_finish (G_SUBPROCESS (source), result,
                                                       &run->stdout_text, &run->stderr_text,
                                                       &error));
  g_assert_no_error (error);
  run->done = TRUE;
}

/* Runs anot-run with extra environment variables (NAME, VALUE pairs, then
 * NULL) and arguments (then NULL), serving the fake server meanwhile. */
static int
run_cli (char       **out_stderr,
         const char * const *env,
         const char  *first,
         ...)
{
  g_autoptr(GSubprocessLauncher) launcher = NULL;
  g_autoptr(GPtrArray) argv = g_ptr_array_new ();
  g_autoptr(GSubprocess) process = NULL;
  g_autoptr(GError) error = NULL;
  CliRun run = { 0 };
  va_list args;

  launcher = g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_STDOUT_PIPE |
                                        G_SUBPROCESS_FLAGS_STDERR_PIPE);
  for (guint i = 0; env && env[i] && env[i + 1]; i += 2)
    g_subprocess_launcher_setenv (launcher, env[i], env[i + 1], TRUE);

  g_ptr_array_add (argv, (gpointer) g_getenv ("ANOT_RUN"));
  va_start (args, first);
  for (const char *arg = first; arg != NULL; arg = va_arg (args, const char *))
    g_ptr_array_add (argv, (gpointer) arg);
  va_end (args);
  g_ptr_array_add (argv, NULL);

  process = g_subprocess_launcher_spawnv (launcher, (const char * const *) argv->pdata, &error);
  g_assert_no_error (error);
  g_subprocess_communicate_utf8_async (process, NULL, NULL, on_communicated, &run);
  while (!run.done)
    g_main_context_iteration (NULL, TRUE);
  g_assert_true (g_subprocess_get_if_exited (process));

  if (g_subprocess_get_exit_status (process) != 0 && out_stderr == NULL)
    g_test_message ("anot-run: %s", run.stderr_text);
  if (out_stderr)
    *out_stderr = g_steal_pointer (&run.stderr_text);
  g_free (run.stdout_text);
  g_free (run.stderr_text);
  return g_subprocess_get_exit_status (process);
}

static void
collect_files (const char *dir,
               GPtrArray  *files)
{
  g_autoptr(GDir) handle = g_dir_open (dir, 0, NULL);
  const char *name;

  g_assert_nonnull (handle);
  while ((name = g_dir_read_name (handle)) != NULL)
    {
      char *path = g_build_filename (dir, name, NULL);

      if (g_file_test (path, G_FILE_TEST_IS_DIR))
        {
          collect_files (path, files);
          g_free (path);
        }
      else
        g_ptr_array_add (files, path);
    }
}

static gboolean
file_contains (const char *path,
               const char *needle)
{
  g_autofree char *contents = NULL;
  gsize length;

  g_assert_true (g_file_get_contents (path, &contents, &length, NULL));
  return g_strstr_len (contents, length, needle) != NULL;
}

/* With the most verbose debug log and a response cache, no file the run
 * writes contains the key (nor an HTTP header). */
static void
test_no_key_in_files (void)
{
  g_autoptr(AnotFakeLlm) server = start_server (scoring_rules);
  g_autofree char *url = anot_fake_llm_get_openai_base_url (server);
  g_autofree char *out = out_dir ("keys");
  g_autofree char *cache = g_build_filename (out, "cache.sqlite", NULL);
  g_autofree char *debug_log = g_build_filename (out, "test-llm_demo", "clean", "run_1", "debug.log", NULL);
  g_autoptr(GPtrArray) files = g_ptr_array_new_with_free_func (g_free);
  const char * const env[] = { "OPENAI_API_KEY", TEST_KEY, "ANOT_DEBUG", "3", NULL };
  g_autofree char *log = NULL;

  g_assert_cmpint (run_cli (NULL, env, "--method", "test-llm", "--backend", "openai",
                            "--base-url", url, "--model", "fake-model", "--limit", "3",
                            "--candidates", "3", "--cache", cache, "--out", out, NULL), ==, 0);
  g_assert_cmpuint (anot_fake_llm_get_n_requests (server), ==, 3 * 4);

  collect_files (out, files);
  g_assert_cmpuint (files->len, >=, 6);
  for (guint i = 0; i < files->len; i++)
    {
      const char *path = g_ptr_array_index (files, i);

      if (file_contains (path, TEST_KEY) || file_contains (path, "Bearer") ||
          file_contains (path, "Authorization"))
        g_error ("%s contains the API key or a header", path);
    }

  /* Level 3: the prompts and answers are there. */
  g_assert_true (g_file_get_contents (debug_log, &log, NULL, NULL));
  g_assert_nonnull (strstr (log, "[LLM:R01] planner prompt:"));
  g_assert_nonnull (strstr (log, "PLAN R01: "));
  g_assert_nonnull (strstr (log, "scorer response:"));
  g_assert_nonnull (strstr (log, "[LLM:R02] scorer openai:fake-model "));
  g_assert_nonnull (strstr (log, "[RUN:R03] N=3 gold rank"));
}

static void
test_debug_levels (void)
{
  g_autoptr(AnotFakeLlm) server = start_server (scoring_rules);
  g_autofree char *url = anot_fake_llm_get_openai_base_url (server);
  g_autofree char *out = out_dir ("levels");
  g_autofree char *debug_log = g_build_filename (out, "test-llm_demo", "clean", "run_1", "debug.log", NULL);

  for (guint level = 0; level <= 2; level++)
    {
      g_autofree char *level_text = g_strdup_printf ("%u", level);
      const char * const env[] = { "OPENAI_API_KEY", TEST_KEY, "ANOT_DEBUG", level_text, NULL };
      g_autofree char *log = NULL;

      g_assert_cmpint (run_cli (NULL, env, "--method", "test-llm", "--base-url", url,
                                "--limit", "2", "--candidates", "3", "--out", out, "--force",
                                NULL), ==, 0);
      if (level == 0)
        {
          g_assert_false (g_file_test (debug_log, G_FILE_TEST_EXISTS));
          continue;
        }
      g_assert_true (g_file_get_contents (debug_log, &log, NULL, NULL));
      /* Level 1: phases and per-request summaries. */
      g_assert_nonnull (strstr (log, "run 1, N=3: 2 requests"));
      g_assert_nonnull (strstr (log, "[RUN:?] "));
      g_assert_nonnull (strstr (log, "[P1:R01] Plan: Check every candidate."));
      g_assert_nonnull (strstr (log, "[RUN:R02] N=3 gold rank"));
      /* Level 2: per item and per call; never prompts below 3. */
      g_assert_true ((strstr (log, "[LLM:R01] planner openai:") != NULL) == (level >= 2));
      g_assert_true ((strstr (log, "[P2:R01] Item 0") != NULL) == (level >= 2));
      g_assert_null (strstr (log, "prompt:"));
      g_assert_null (strstr (log, TEST_KEY));
    }
}

static char *
read_without_timestamps (const char *path)
{
  g_autofree char *contents = NULL;
  g_autoptr(GRegex) regex = g_regex_new ("\"timestamp\" *: *\"[^\"]*\"", 0, 0, NULL);

  g_assert_true (g_file_get_contents (path, &contents, NULL, NULL));
  return g_regex_replace_literal (regex, contents, -1, 0, "\"timestamp\": \"\"", 0, NULL);
}

/* A run with --cache, then the same run --offline from the cache file
 * alone: no server call, the same files apart from timestamps.  Then a
 * question the cache has not seen fails, naming the request and role. */
static void
test_cache_replay (void)
{
  static const char * const result_files[] = {
    "clean/run_1/results_4.jsonl", "clean/run_1/usage.jsonl", "clean/run_1/config.json",
    "clean/summary.json",
  };
  g_autoptr(AnotFakeLlm) server = start_server (scoring_rules);
  g_autofree char *url = anot_fake_llm_get_openai_base_url (server);
  g_autofree char *out = out_dir ("replay");
  g_autofree char *cache = g_build_filename (g_get_user_cache_dir (), "shipped.sqlite", NULL);
  g_autofree char *exp_dir = g_build_filename (out, "test-llm_demo", NULL);
  g_autoptr(GPtrArray) first = g_ptr_array_new_with_free_func (g_free);
  g_autofree char *err = NULL;
  const char * const env[] = { "OPENAI_API_KEY", TEST_KEY, NULL };
  /* The replay has no key at all. */
  const char * const no_key_env[] = { "OPENAI_API_KEY", "", NULL };
  guint n_calls;

  g_assert_cmpint (run_cli (NULL, env, "--method", "test-llm", "--base-url", url,
                            "--model", "fake-model", "--limit", "6", "--candidates", "4",
                            "--concurrency", "3", "--cache", cache, "--out", out, NULL), ==, 0);
  n_calls = anot_fake_llm_get_n_requests (server);
  g_assert_cmpuint (n_calls, ==, 6 * 5);
  for (guint i = 0; i < G_N_ELEMENTS (result_files); i++)
    {
      g_autofree char *path = g_build_filename (exp_dir, result_files[i], NULL);

      g_ptr_array_add (first, read_without_timestamps (path));
    }

  g_assert_cmpint (run_cli (NULL, no_key_env, "--method", "test-llm", "--base-url", url,
                            "--model", "fake-model", "--limit", "6", "--candidates", "4",
                            "--concurrency", "5", "--cache", cache, "--offline", "--out", out,
                            "--force", NULL), ==, 0);
  g_assert_cmpuint (anot_fake_llm_get_n_requests (server), ==, n_calls);
  for (guint i = 0; i < G_N_ELEMENTS (result_files); i++)
    {
      g_autofree char *path = g_build_filename (exp_dir, result_files[i], NULL);
      g_autofree char *again = read_without_timestamps (path);

      /* Only the concurrency, which does not change results, differs. */
      if (g_str_has_suffix (path, "config.json"))
        {
          g_autoptr(GRegex) regex = g_regex_new ("\"concurrency\" *: *\"?[0-9]+\"?", 0, 0, NULL);
          g_autofree char *a = g_regex_replace_literal (regex, g_ptr_array_index (first, i), -1, 0, "", 0, NULL);
          g_autofree char *b = g_regex_replace_literal (regex, again, -1, 0, "", 0, NULL);

          g_assert_cmpstr (a, ==, b);
        }
      else
        g_assert_cmpstr (g_ptr_array_index (first, i), ==, again);
    }

  /* New questions, offline: every request fails with a cache miss, which
   * says nothing about the method: unscored, the run incomplete (4). */
  g_assert_cmpint (run_cli (&err, no_key_env, "--method", "test-llm", "--base-url", url,
                            "--model", "fake-model", "--limit", "2", "--candidates", "4",
                            "-O", "test-llm.tag=unseen", "--cache", cache, "--offline",
                            "--out", out, "--force", NULL), ==, 4);
  g_assert_cmpuint (anot_fake_llm_get_n_requests (server), ==, n_calls);
  g_assert_nonnull (strstr (err, "ANOT_ERROR_CACHE_MISS"));
  g_assert_nonnull (strstr (err, "Offline: no answer for request R0"));
  g_assert_nonnull (strstr (err, ", role planner in the response cache"));
}

static void
test_auth_failure (void)
{
  g_autoptr(AnotFakeLlm) server = start_server (scoring_rules);
  g_autofree char *url = anot_fake_llm_get_openai_base_url (server);
  g_autofree char *out = out_dir ("auth");
  g_autofree char *results = g_build_filename (out, "test-llm_demo", "clean", "run_1",
                                               "results_3.jsonl", NULL);
  g_autofree char *err = NULL;
  g_autofree char *rows = NULL;
  const char * const env[] = { "OPENAI_API_KEY", "sk-wrong-KEY-999", NULL };

  g_assert_cmpint (run_cli (&err, env, "--method", "test-llm", "--base-url", url,
                            "--limit", "3", "--candidates", "3", "--concurrency", "1",
                            "--out", out, NULL), ==, 1);
  /* The first 401 stops the run: never retried, no other request sent,
   * no row (a resume runs them all once the key is right). */
  g_assert_cmpuint (anot_fake_llm_get_n_requests (server), ==, 1);
  g_assert_nonnull (strstr (err, "HTTP 401"));
  g_assert_nonnull (strstr (err, "OPENAI_API_KEY"));
  g_assert_nonnull (strstr (err, "--resume"));
  g_assert_null (strstr (err, "sk-wrong"));
  g_assert_true (g_file_get_contents (results, &rows, NULL, NULL));
  g_assert_cmpstr (rows, ==, "");
}

/* A method that declares no roles is not checked before the run (its
 * models are known only at its calls): with a budget, a call to a model
 * without a price is not sent, and the run stops on the budget saying
 * why, instead of counting the call as free. */
static void
test_budget_unpriced_call (void)
{
  g_autoptr(AnotFakeLlm) server = start_server (scoring_rules);
  g_autofree char *url = anot_fake_llm_get_openai_base_url (server);
  g_autofree char *demo = g_build_filename (g_getenv ("ANOT_DATA_DIR"), "demo", NULL);
  g_autofree char *out = out_dir ("results");
  g_autoptr(GError) error = NULL;
  g_autoptr(AnotDataset) dataset = anot_dataset_load (demo, NULL, &error);
  g_autoptr(AnotExperiment) experiment = NULL;
  g_autoptr(GAsyncResult) result = NULL;
  g_auto(GStrv) unpriced = NULL;

  g_assert_no_error (error);
  g_setenv ("OPENAI_API_KEY", TEST_KEY, TRUE);
  experiment = anot_experiment_new (dataset, "test-llm");
  anot_experiment_set_option (experiment, "out", out);
  anot_experiment_set_option (experiment, "name", "unpriced-budget");
  anot_experiment_set_option (experiment, "force", "true");
  anot_experiment_set_option (experiment, "backend", "openai");
  anot_experiment_set_option (experiment, "base-url", url);
  anot_experiment_set_option (experiment, "model", "fake-model");
  anot_experiment_set_option (experiment, "candidates", "5");
  anot_experiment_set_option (experiment, "limit", "2");
  anot_experiment_set_option (experiment, "max-cost", "5");
  unpriced = anot_experiment_list_unpriced_models (experiment);
  g_assert_cmpstrv (unpriced, ((const char * const[]) { NULL }));
  anot_experiment_run_async (experiment, NULL, on_run_done, &result);
  while (result == NULL)
    g_main_context_iteration (NULL, TRUE);
  g_assert_false (anot_experiment_run_finish (experiment, result, &error));
  g_assert_error (error, ANOT_ERROR, ANOT_ERROR_BUDGET);
  g_assert_nonnull (strstr (error->message, "its model has no price"));
  g_assert_cmpuint (anot_fake_llm_get_n_requests (server), ==, 0);
  g_unsetenv ("OPENAI_API_KEY");
}

/* config.ini's [prices] decides what an experiment's calls cost: an
 * entry for the model, or `*` for every model without one. */
static void
test_prices_from_config (void)
{
  static const struct
  {
    const char *prices;
    double input, output;
  } cases[] = {
    { "[prices]\nfake-model = 1000, 2000\n", 1000, 2000 },
    { "[prices]\n* = 7, 11\n", 7, 11 },
  };
  g_autoptr(AnotFakeLlm) server = start_server (scoring_rules);
  g_autofree char *url = anot_fake_llm_get_openai_base_url (server);
  g_autofree char *config = g_build_filename (g_get_user_config_dir (), "prices.ini", NULL);

  g_setenv ("OPENAI_API_KEY", TEST_KEY, TRUE);
  g_mkdir_with_parents (g_get_user_config_dir (), 0700);
  for (guint c = 0; c < G_N_ELEMENTS (cases); c++)
    {
      g_autoptr(AnotExperiment) experiment = NULL;
      g_autoptr(GPtrArray) results = NULL;

      g_assert_true (g_file_set_contents (config, cases[c].prices, -1, NULL));
      g_setenv ("ANOT_CONFIG", config, TRUE);
      experiment = run_experiment ("prices", "method.test-llm.tag", "prices",
                                   "backend", "openai", "base-url", url, "model", "fake-model",
                                   "candidates", "5", "limit", "2", NULL);
      g_unsetenv ("ANOT_CONFIG");
      results = anot_experiment_get_results (experiment, 5, 1);
      g_assert_cmpuint (results->len, ==, 2);
      for (guint i = 0; i < results->len; i++)
        {
          AnotUsage *usage = anot_result_get_usage (g_ptr_array_index (results, i));

          g_assert_cmpuint (anot_usage_get_prompt_tokens (usage), >, 0);
          g_assert_cmpfloat_with_epsilon (anot_usage_get_cost_usd (usage),
                                          anot_usage_get_prompt_tokens (usage) / 1e6 * cases[c].input +
                                          anot_usage_get_completion_tokens (usage) / 1e6 * cases[c].output,
                                          1e-9);
        }
    }
}

/* An experiment of @method on @dataset asking the fake server at @url,
 * writing under @out/@name. */
static AnotExperiment *
fake_server_experiment (AnotDataset *dataset,
                        const char  *method,
                        const char  *url,
                        const char  *out,
                        const char  *name)
{
  AnotExperiment *experiment = anot_experiment_new (dataset, method);

  anot_experiment_set_option (experiment, "out", out);
  anot_experiment_set_option (experiment, "name", name);
  anot_experiment_set_option (experiment, "force", "true");
  anot_experiment_set_option (experiment, "backend", "openai");
  anot_experiment_set_option (experiment, "base-url", url);
  anot_experiment_set_option (experiment, "model", "fake-model");
  return experiment;
}

/* Prepares @experiment with @before as the configuration file @path, then
 * runs it with @after in the file instead: what the run reads of
 * config.ini must be what it read when it was planned. */
static void
run_with_config_rewritten (AnotExperiment *experiment,
                           const char     *path,
                           const char     *before,
                           const char     *after)
{
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GError) error = NULL;

  g_mkdir_with_parents (g_get_user_config_dir (), 0700);
  g_assert_true (g_file_set_contents (path, before, -1, NULL));
  g_setenv ("ANOT_CONFIG", path, TRUE);
  g_assert_true (anot_experiment_prepare (experiment, &error));
  g_assert_no_error (error);

  g_assert_true (g_file_set_contents (path, after, -1, NULL));
  anot_experiment_run_async (experiment, NULL, on_run_done, &result);
  while (result == NULL)
    g_main_context_iteration (NULL, TRUE);
  g_unsetenv ("ANOT_CONFIG");
  g_assert_true (anot_experiment_run_finish (experiment, result, &error));
  g_assert_no_error (error);
}

/* The defense prompt is read once, when the run is planned: a config.ini
 * changed while the run goes on does not change what later requests send. */
static void
test_defense_prompt_read_once (void)
{
  g_autoptr(AnotFakeLlm) server = start_server (scoring_rules);
  g_autofree char *url = anot_fake_llm_get_openai_base_url (server);
  g_autofree char *config = g_build_filename (g_get_user_config_dir (), "defense-once.ini", NULL);
  g_autofree char *demo = g_build_filename (g_getenv ("ANOT_DATA_DIR"), "demo", NULL);
  g_autofree char *out = out_dir ("results");
  g_autoptr(GError) error = NULL;
  g_autoptr(AnotDataset) dataset = anot_dataset_load (demo, NULL, &error);
  g_autoptr(AnotExperiment) experiment = NULL;
  guint planners = 0;

  g_assert_no_error (error);
  g_setenv ("OPENAI_API_KEY", TEST_KEY, TRUE);
  anot_fake_llm_set_record_bodies (server, TRUE);
  experiment = fake_server_experiment (dataset, "test-llm", url, out, "defense-once");
  anot_experiment_set_option (experiment, "defense", "true");
  anot_experiment_set_option (experiment, "candidates", "5");
  anot_experiment_set_option (experiment, "limit", "3");
  run_with_config_rewritten (experiment, config, "[defense]\nprompt = FIRST DEFENSE TEXT\n",
                             "[defense]\nprompt = SECOND DEFENSE TEXT\n");

  for (guint i = 0; i < anot_fake_llm_get_n_requests (server); i++)
    {
      JsonObject *record = anot_fake_llm_get_request (server, i);
      g_autofree char *body = json_to_string (json_object_get_member (record, "body"), FALSE);

      if (strstr (body, "You plan the ranking.") == NULL)
        continue;
      planners++;
      g_assert_nonnull (strstr (body, "FIRST DEFENSE TEXT"));
      g_assert_null (strstr (body, "SECOND DEFENSE TEXT"));
    }
  g_assert_cmpuint (planners, ==, 3);
}

/* config.ini's [method listwise] is read once, when the run is planned:
 * a file rewritten between prepare() and run() changes no request's
 * settings (20 candidates, window 10: step 5 is 3 calls a request, the
 * rewritten step 10 would be 2). */
static void
test_method_settings_read_once (void)
{
  g_autoptr(AnotFakeLlm) server = start_server ("{\"rules\": [{\"match\": \"\", \"reply\": \"[2] > [1]\"}]}");
  g_autofree char *url = anot_fake_llm_get_openai_base_url (server);
  g_autofree char *config = g_build_filename (g_get_user_config_dir (), "settings-once.ini", NULL);
  g_autofree char *demo = g_build_filename (g_getenv ("ANOT_DATA_DIR"), "demo", NULL);
  g_autofree char *out = out_dir ("results");
  g_autoptr(GError) error = NULL;
  g_autoptr(AnotDataset) dataset = anot_dataset_load (demo, NULL, &error);
  g_autoptr(AnotExperiment) experiment = NULL;

  g_assert_no_error (error);
  g_setenv ("OPENAI_API_KEY", TEST_KEY, TRUE);
  experiment = fake_server_experiment (dataset, "listwise", url, out, "settings-once");
  anot_experiment_set_option (experiment, "candidates", "20");
  anot_experiment_set_option (experiment, "limit", "2");
  run_with_config_rewritten (experiment, config, "[method listwise]\nwindow = 10\nstep = 5\n",
                             "[method listwise]\nwindow = 10\nstep = 10\n");
  g_assert_cmpuint (anot_fake_llm_get_n_requests (server), ==, 2 * 3);

  /* config.json records the section the run read... */
  {
    g_autofree char *config_json = g_build_filename (anot_experiment_get_directory (experiment),
                                                     "clean", "run_1", "config.json", NULL);
    g_autoptr(JsonParser) parser = json_parser_new ();
    JsonObject *recorded;

    g_assert_true (json_parser_load_from_file (parser, config_json, &error));
    g_assert_no_error (error);
    recorded = json_object_get_object_member (json_object_get_object_member (json_node_get_object (json_parser_get_root (parser)),
                                                                             "anot"),
                                              "method_settings_file");
    g_assert_nonnull (recorded);
    g_assert_cmpuint (json_object_get_size (recorded), ==, 2);
    g_assert_cmpstr (json_object_get_string_member (recorded, "step"), ==, "5");
    g_assert_cmpstr (json_object_get_string_member (recorded, "window"), ==, "10");
  }
  /* ...and a resume refuses a file that says otherwise now (step 10), and
   * accepts it once it is put back. */
  {
    g_autoptr(AnotExperiment) resumed = NULL;

    g_setenv ("ANOT_CONFIG", config, TRUE);
    resumed = anot_experiment_new_for_resume (anot_experiment_get_directory (experiment), dataset, &error);
    g_assert_no_error (error);
    g_assert_false (anot_experiment_prepare (resumed, &error));
    g_assert_error (error, ANOT_ERROR, ANOT_ERROR_RESUME);
    g_assert_nonnull (strstr (error->message, "[method listwise]"));
    g_assert_nonnull (strstr (error->message, "step is 10 now, 5 then"));
    g_clear_error (&error);
    g_assert_true (g_file_set_contents (config, "[method listwise]\nwindow = 10\nstep = 5\n", -1, NULL));
    g_assert_true (anot_experiment_prepare (resumed, &error));
    g_assert_no_error (error);
    g_unsetenv ("ANOT_CONFIG");
  }

  /* A file that cannot be parsed fails the plan, before any request. */
  g_assert_true (g_file_set_contents (config, "[method listwise\nstep = 10\n", -1, NULL));
  g_setenv ("ANOT_CONFIG", config, TRUE);
  g_clear_object (&experiment);
  experiment = fake_server_experiment (dataset, "listwise", url, out, "settings-broken");
  g_assert_false (anot_experiment_prepare (experiment, &error));
  g_assert_error (error, ANOT_ERROR, ANOT_ERROR_CONFIG);
  g_assert_nonnull (strstr (error->message, config));
  g_unsetenv ("ANOT_CONFIG");
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);
  g_unsetenv ("ANOT_DEBUG");
  g_unsetenv ("ANOT_CONFIG");

  /* The test-llm method is built in a folder of its own; the anot-run
   * processes inherit the path. */
  {
    g_autofree char *dir = g_build_filename (g_getenv ("ANOT_TEST_BUILDDIR"), "llm-plugin", NULL);
    g_autofree char *path = g_strjoin (G_SEARCHPATH_SEPARATOR_S,
                                       g_getenv ("ANOT_PLUGIN_PATH"), dir, NULL);
    g_setenv ("ANOT_PLUGIN_PATH", path, TRUE);
  }

  g_test_add_func ("/llm-run/usage-per-request", test_usage_per_request);
  g_test_add_func ("/llm-run/prices-from-config", test_prices_from_config);
  g_test_add_func ("/llm-run/budget-unpriced-call", test_budget_unpriced_call);
  g_test_add_func ("/llm-run/defense-prompt-read-once", test_defense_prompt_read_once);
  g_test_add_func ("/llm-run/method-settings-read-once", test_method_settings_read_once);
  g_test_add_func ("/llm-run/faults", test_faults);
  g_test_add_func ("/llm-run/roles", test_roles);
  g_test_add_func ("/llm-run/no-key-in-files", test_no_key_in_files);
  g_test_add_func ("/llm-run/debug-levels", test_debug_levels);
  g_test_add_func ("/llm-run/cache-replay", test_cache_replay);
  g_test_add_func ("/llm-run/auth-failure", test_auth_failure);

  return g_test_run ();
}
