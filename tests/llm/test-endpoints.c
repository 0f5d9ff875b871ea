/* test-endpoints.c: one backend, several LLM servers — least outstanding
 * calls, cool-down and probe, retry on another server, per-endpoint usage
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <anot/anot.h>

#include "anot-fake-llm.h"

#include <string.h>

#define TEST_KEY "sk-anot-test-SECRET-endpoints"
#define N_CANDIDATES "10"

#define RULES_TEMPLATE \
  "{\"latency_ms\": %u, \"rules\": [" \
  "  {\"match\": \"^SCORE \\\\S+ item (\\\\d+)\", \"reply\": \"\\\\1\"}," \
  "  {\"match\": \"^PLAN\", \"reply\": \"Check every candidate.\"}" \
  "]}"

static void
set_latency (AnotFakeLlm *server,
             guint        latency_ms)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *rules = g_strdup_printf (RULES_TEMPLATE, latency_ms);

  g_assert_true (anot_fake_llm_set_rules_json (server, rules, &error));
  g_assert_no_error (error);
}

static AnotFakeLlm *
start_server (guint latency_ms,
              guint port)
{
  g_autoptr(GError) error = NULL;
  AnotFakeLlm *server = anot_fake_llm_new ();

  set_latency (server, latency_ms);
  anot_fake_llm_set_api_key (server, TEST_KEY);
  anot_fake_llm_set_record_bodies (server, FALSE);
  g_assert_true (anot_fake_llm_start (server, port, &error));
  g_assert_no_error (error);
  return server;
}

static guint
server_port (AnotFakeLlm *server)
{
  g_autoptr(GUri) uri = g_uri_parse (anot_fake_llm_get_url (server), G_URI_FLAGS_NONE, NULL);

  return (guint) g_uri_get_port (uri);
}

/* Server-side: the last user message of every request answered. */
static void
add_prompts (GHashTable  *counts,
             AnotFakeLlm *server)
{
  for (guint i = 0; i < anot_fake_llm_get_n_requests (server); i++)
    {
      JsonObject *record = anot_fake_llm_get_request (server, i);
      const char *prompt = json_object_get_string_member (record, "last_user");
      guint n = GPOINTER_TO_UINT (g_hash_table_lookup (counts, prompt));

      g_hash_table_insert (counts, g_strdup (prompt), GUINT_TO_POINTER (n + 1));
    }
}

typedef struct
{
  AnotFakeLlm **stopped;      /* the server to stop and restart */
  guint latency_ms;
  AnotFakeLlm *others[2];     /* held while it is out, see on_result() */
  guint others_latency_ms[2];
  guint port;
  guint results;
  guint stop_after;
  guint in_flight_at_stop;
  GHashTable *prompts_before_stop;  /* what the stopped server received */
  guint received_before_stop;
  gboolean restarted;
} Outage;

static gboolean
release_others (gpointer user_data)
{
  Outage *outage = user_data;

  if (anot_fake_llm_get_n_requests (*outage->stopped) == 0)
    return G_SOURCE_CONTINUE;
  for (guint i = 0; i < G_N_ELEMENTS (outage->others); i++)
    set_latency (outage->others[i], outage->others_latency_ms[i]);
  return G_SOURCE_REMOVE;
}

static gboolean
restart_server (gpointer user_data)
{
  Outage *outage = user_data;

  *outage->stopped = start_server (outage->latency_ms, outage->port);
  outage->restarted = TRUE;
  g_timeout_add (5, release_others, outage);
  return G_SOURCE_REMOVE;
}

static void
on_result (AnotExperiment *experiment,
           AnotResult     *result,
           gpointer        user_data)
{
  Outage *outage = user_data;

  outage->results++;
  if (outage->prompts_before_stop == NULL || *outage->stopped == NULL ||
      g_hash_table_size (outage->prompts_before_stop) > 0 ||
      outage->results < outage->stop_after ||
      anot_fake_llm_get_in_flight (*outage->stopped) == 0)
    return;
  /* Stopped with calls on it: those connections close unanswered. */
  outage->in_flight_at_stop = anot_fake_llm_get_in_flight (*outage->stopped);
  outage->received_before_stop = anot_fake_llm_get_n_requests (*outage->stopped);
  add_prompts (outage->prompts_before_stop, *outage->stopped);
  g_clear_object (outage->stopped);
  /* The run must outlast the outage and the cool-down for the probe to
   * reach the restarted server, however fast the machine: the other
   * servers answer slowly from now until it has received a call. */
  for (guint i = 0; i < G_N_ELEMENTS (outage->others); i++)
    set_latency (outage->others[i], 1000);
  g_timeout_add (200, restart_server, outage);
}

static void
on_run_done (GObject      *source,
             GAsyncResult *result,
             gpointer      user_data)
{
  *(GAsyncResult **) user_data = g_object_ref (result);
}

static AnotExperiment *
run_experiment (const char *name,
                const char *base_url,
                Outage     *outage)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *demo = g_build_filename (g_getenv ("ANOT_DATA_DIR"), "demo", NULL);
  g_autoptr(AnotDataset) dataset = anot_dataset_load (demo, NULL, &error);
  g_autoptr(AnotExperiment) experiment = NULL;
  g_autoptr(GAsyncResult) result = NULL;
  g_autofree char *out = g_build_filename (g_get_user_data_dir (), "results", NULL);

  g_assert_no_error (error);
  experiment = anot_experiment_new (dataset, "test-llm");
  anot_experiment_set_option (experiment, "out", out);
  anot_experiment_set_option (experiment, "name", name);
  anot_experiment_set_option (experiment, "force", "true");
  anot_experiment_set_option (experiment, "backend", "openai");
  anot_experiment_set_option (experiment, "model", "fake-model");
  anot_experiment_set_option (experiment, "base-url", base_url);
  anot_experiment_set_option (experiment, "candidates", N_CANDIDATES);
  anot_experiment_set_option (experiment, "concurrency", "8");
  if (outage != NULL)
    g_signal_connect (experiment, "result", G_CALLBACK (on_result), outage);

  anot_experiment_run_async (experiment, NULL, on_run_done, &result);
  while (result == NULL)
    g_main_context_iteration (NULL, TRUE);
  g_assert_true (anot_experiment_run_finish (experiment, result, &error));
  g_assert_no_error (error);
  return g_steal_pointer (&experiment);
}

static char *
read_file (const char *name,
           const char *file)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *path = g_build_filename (g_get_user_data_dir (), "results", name, "clean",
                                            "run_1", file, NULL);
  char *text = NULL;

  g_assert_true (g_file_get_contents (path, &text, NULL, &error));
  g_assert_no_error (error);
  return text;
}

/* What may differ between a run on one server and on three: wall time,
 * retries (failed attempts), and which server answered. */
static void
strip_volatile (JsonNode *node)
{
  if (JSON_NODE_HOLDS_OBJECT (node))
    {
      JsonObject *object = json_node_get_object (node);
      g_autoptr(GList) members = json_object_get_members (object);

      json_object_remove_member (object, "latency_ms");
      json_object_remove_member (object, "retries");
      json_object_remove_member (object, "by_endpoint");
      for (GList *l = members; l != NULL; l = l->next)
        if (json_object_has_member (object, l->data))
          strip_volatile (json_object_get_member (object, l->data));
    }
  else if (JSON_NODE_HOLDS_ARRAY (node))
    {
      JsonArray *array = json_node_get_array (node);

      for (guint i = 0; i < json_array_get_length (array); i++)
        strip_volatile (json_array_get_element (array, i));
    }
}

static GPtrArray *
rows_without_volatile (const char *name)
{
  g_autofree char *text = read_file (name, "results_" N_CANDIDATES ".jsonl");
  g_auto(GStrv) lines = g_strsplit (text, "\n", -1);
  GPtrArray *rows = g_ptr_array_new_with_free_func (g_free);

  for (guint i = 0; lines[i] != NULL; i++)
    {
      g_autoptr(JsonNode) node = NULL;

      if (*lines[i] == '\0')
        continue;
      node = json_from_string (lines[i], NULL);
      g_assert_nonnull (node);
      strip_volatile (node);
      g_ptr_array_add (rows, json_to_string (node, FALSE));
    }
  return rows;
}

/* Three servers answering in 20, 60 and 200 ms; the 200 ms one is stopped
 * with calls on it and restarted 200 ms later.  The run has the rows of
 * a run on one server, every call answered exactly once, and every
 * server took calls.  It asserts counts, not which server was faster (it
 * once failed with "n_fast > n_middle (134 > 134)" on a busy machine);
 * checked 20 times out of 20 beside two busy loops. */
static void
test_three_servers_one_restarted (void)
{
  g_autoptr(AnotFakeLlm) single = start_server (20, 0);
  g_autoptr(AnotFakeLlm) fast = start_server (20, 0);
  g_autoptr(AnotFakeLlm) middle = start_server (60, 0);
  g_autoptr(AnotFakeLlm) slow = start_server (200, 0);
  g_autofree char *single_url = anot_fake_llm_get_openai_base_url (single);
  g_autofree char *fast_url = anot_fake_llm_get_openai_base_url (fast);
  g_autofree char *middle_url = anot_fake_llm_get_openai_base_url (middle);
  g_autofree char *slow_url = anot_fake_llm_get_openai_base_url (slow);
  g_autofree char *urls = g_strjoin (",", fast_url, middle_url, slow_url, NULL);
  g_autoptr(GHashTable) single_prompts = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  g_autoptr(GHashTable) prompts = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  g_autoptr(GPtrArray) single_rows = NULL;
  g_autoptr(GPtrArray) rows = NULL;
  g_autoptr(AnotExperiment) reference = NULL;
  g_autoptr(AnotExperiment) experiment = NULL;
  g_autoptr(JsonNode) config = NULL;
  g_autofree char *config_text = NULL;
  g_autofree char *usage_text = NULL;
  JsonObject *by_endpoint;
  Outage outage = { 0 };
  guint answered, n_fast, n_middle, n_slow;
  guint64 calls = 0, errors = 0;
  GHashTableIter iter;
  gpointer key, value;

  g_setenv ("OPENAI_API_KEY", TEST_KEY, TRUE);
  /* Short cool-downs, so the restarted server is probed within the run. */
  g_setenv ("ANOT_RETRY_BASE_MS", "50", TRUE);
  g_setenv ("ANOT_RETRY_MAX_MS", "200", TRUE);

  reference = run_experiment ("one-server", single_url, NULL);
  add_prompts (single_prompts, single);

  outage.stopped = &slow;
  outage.latency_ms = 200;
  outage.port = server_port (slow);
  outage.stop_after = 3;
  outage.others[0] = fast;
  outage.others_latency_ms[0] = 20;
  outage.others[1] = middle;
  outage.others_latency_ms[1] = 60;
  outage.prompts_before_stop = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  experiment = run_experiment ("three-servers", urls, &outage);
  g_assert_true (outage.restarted);
  g_assert_cmpuint (outage.in_flight_at_stop, >, 0);

  /* The same rows, request by request. */
  single_rows = rows_without_volatile ("one-server");
  rows = rows_without_volatile ("three-servers");
  g_assert_cmpuint (rows->len, ==, single_rows->len);
  g_assert_cmpuint (rows->len, >, 0);
  for (guint i = 0; i < rows->len; i++)
    g_assert_cmpstr (g_ptr_array_index (rows, i), ==, g_ptr_array_index (single_rows, i));

  /* No call lost or doubled: the prompts the servers answered are the
   * single run's, each as often.  The stopped server received its
   * in-flight calls without answering them. */
  add_prompts (prompts, fast);
  add_prompts (prompts, middle);
  add_prompts (prompts, slow);
  g_hash_table_iter_init (&iter, outage.prompts_before_stop);
  while (g_hash_table_iter_next (&iter, &key, &value))
    {
      guint n = GPOINTER_TO_UINT (g_hash_table_lookup (prompts, key));

      g_hash_table_insert (prompts, g_strdup (key), GUINT_TO_POINTER (n + GPOINTER_TO_UINT (value)));
    }
  n_fast = anot_fake_llm_get_n_requests (fast);
  n_middle = anot_fake_llm_get_n_requests (middle);
  n_slow = outage.received_before_stop - outage.in_flight_at_stop + anot_fake_llm_get_n_requests (slow);
  answered = n_fast + n_middle + n_slow;
  g_assert_cmpuint (answered, ==, anot_fake_llm_get_n_requests (single));
  g_hash_table_iter_init (&iter, single_prompts);
  while (g_hash_table_iter_next (&iter, &key, &value))
    {
      guint received = GPOINTER_TO_UINT (g_hash_table_lookup (prompts, key));

      /* Answered as often as in the single run; received at most once
       * more (an answer lost with the stopped server). */
      g_assert_cmpuint (received, >=, GPOINTER_TO_UINT (value));
      g_assert_cmpuint (received, <=, GPOINTER_TO_UINT (value) + 1);
    }

  /* The restarted server took calls again after its probe. */
  g_assert_cmpuint (anot_fake_llm_get_n_requests (slow), >, 0);
  /* Every server took calls: the run's first eight calls leave at once,
   * spread over the three by least outstanding calls.  Which server
   * answers more after that depends on the machine's load, not on the
   * code: /endpoints/least-outstanding checks the choice itself. */
  g_test_message ("calls answered: 20 ms %u, 60 ms %u, 200 ms %u (stopped once)",
                  n_fast, n_middle, n_slow);
  g_assert_cmpuint (n_fast, >, 0);
  g_assert_cmpuint (n_middle, >, 0);

  /* Per-endpoint usage in config.json: every call, and the errors of
   * the stopped server's attempts. */
  config_text = read_file ("three-servers", "config.json");
  config = json_from_string (config_text, NULL);
  by_endpoint = json_object_get_object_member (
    json_object_get_object_member (json_node_get_object (config), "usage"), "by_endpoint");
  g_assert_nonnull (by_endpoint);
  g_assert_cmpuint (json_object_get_size (by_endpoint), ==, 3);
  g_assert_cmpint (json_object_get_int_member (json_object_get_object_member (by_endpoint, fast_url),
                                               "calls"), ==, n_fast);
  g_assert_cmpint (json_object_get_int_member (json_object_get_object_member (by_endpoint, middle_url),
                                               "calls"), ==, n_middle);
  g_assert_cmpint (json_object_get_int_member (json_object_get_object_member (by_endpoint, slow_url),
                                               "errors"), >=, outage.in_flight_at_stop);
  {
    g_autoptr(GList) members = json_object_get_members (by_endpoint);

    for (GList *l = members; l != NULL; l = l->next)
      {
        JsonObject *entry = json_object_get_object_member (by_endpoint, l->data);

        calls += json_object_get_int_member (entry, "calls");
        errors += json_object_get_int_member (entry, "errors");
        g_assert_true (json_object_has_member (entry, "latency_ms"));
        g_assert_true (json_object_has_member (entry, "prompt_tokens"));
      }
  }
  g_assert_cmpuint (calls, ==, answered);
  g_assert_cmpuint (errors, >=, outage.in_flight_at_stop);
  /* ...and per request in usage.jsonl. */
  usage_text = read_file ("three-servers", "usage.jsonl");
  g_assert_nonnull (strstr (usage_text, "\"by_endpoint\""));
  g_assert_nonnull (strstr (usage_text, fast_url));

  /* The table is read back from the rows: a resume (with nothing left to
   * do) writes the same one, wall times aside (the rows keep each
   * request's latency rounded to 0.01 ms). */
  {
    g_autofree char *dir = g_build_filename (g_get_user_data_dir (), "results", "three-servers", NULL);
    g_autoptr(GError) error = NULL;
    g_autoptr(AnotExperiment) resumed = anot_experiment_new_for_resume (dir, NULL, &error);
    g_autoptr(GAsyncResult) result = NULL;
    g_autoptr(JsonNode) again = NULL;
    g_autofree char *again_text = NULL;
    JsonNode *before_node = json_object_get_member (
      json_object_get_object_member (json_node_get_object (config), "usage"), "by_endpoint");
    JsonNode *again_node;
    g_autofree char *before = NULL;
    g_autofree char *after = NULL;

    g_assert_no_error (error);
    anot_experiment_run_async (resumed, NULL, on_run_done, &result);
    while (result == NULL)
      g_main_context_iteration (NULL, TRUE);
    g_assert_true (anot_experiment_run_finish (resumed, result, &error));
    g_assert_no_error (error);
    again_text = read_file ("three-servers", "config.json");
    again = json_from_string (again_text, NULL);
    again_node = json_object_get_member (
      json_object_get_object_member (json_node_get_object (again), "usage"), "by_endpoint");
    strip_volatile (before_node);
    strip_volatile (again_node);
    before = json_to_string (before_node, FALSE);
    after = json_to_string (again_node, FALSE);
    g_assert_cmpstr (after, ==, before);
    g_assert_nonnull (strstr (after, "\"errors\""));
  }

  g_hash_table_unref (outage.prompts_before_stop);
  g_unsetenv ("ANOT_RETRY_BASE_MS");
  g_unsetenv ("ANOT_RETRY_MAX_MS");
}

static AnotBackend *
new_openai (void)
{
  g_autoptr(GError) error = NULL;
  AnotBackend *backend = anot_registry_create_backend (anot_registry_get_default (), "openai", &error);

  g_assert_no_error (error);
  return backend;
}

static void
on_complete (GObject      *source,
             GAsyncResult *result,
             gpointer      user_data)
{
  GPtrArray *completions = user_data;
  g_autoptr(GError) error = NULL;
  AnotCompletion *completion = anot_backend_complete_finish (ANOT_BACKEND (source), result, &error);

  g_assert_no_error (error);
  g_ptr_array_add (completions, completion);
}

static void
complete_n (AnotBackend *backend,
            guint        n,
            GPtrArray   *completions)
{
  guint target = completions->len + n;

  for (guint i = 0; i < n; i++)
    {
      g_autofree char *text = g_strdup_printf ("SCORE R01 item %u", i);
      g_autoptr(AnotChatRequest) request = anot_chat_request_new (NULL, text);

      anot_backend_complete_async (backend, request, NULL, on_complete, completions);
    }
  while (completions->len < target)
    g_main_context_iteration (NULL, TRUE);
}

/* A server that refuses connections is taken out after two failures in
 * a row: later calls do not try it until its cool-down is over, and a
 * probe that succeeds brings it back. */
static void
test_cooldown_and_probe (void)
{
  g_autoptr(AnotFakeLlm) up = start_server (1, 0);
  g_autoptr(AnotFakeLlm) down = start_server (1, 0);
  guint port = server_port (down);
  g_autofree char *up_url = anot_fake_llm_get_openai_base_url (up);
  g_autofree char *down_url = anot_fake_llm_get_openai_base_url (down);
  g_autofree char *urls = g_strdup_printf ("%s,%s", down_url, up_url);
  g_autoptr(GPtrArray) completions = g_ptr_array_new_with_free_func (g_object_unref);
  g_autoptr(AnotBackend) backend = NULL;
  g_autoptr(AnotUsage) usage = anot_usage_new ();
  g_autoptr(JsonNode) json = NULL;
  JsonObject *down_entry;
  guint errors;

  g_clear_object (&down);
  backend = new_openai ();
  g_object_set (backend, "base-url", urls, "model", "fake", "api-key", TEST_KEY,
                "retry-base-ms", 400, "retry-max-ms", 400, "max-concurrency", 1, NULL);

  /* One at a time: the first two go to the refusing server first (it is
   * listed first), fail over to the other, and take it out. */
  complete_n (backend, 6, completions);
  for (guint i = 0; i < completions->len; i++)
    anot_usage_add_completion (usage, g_ptr_array_index (completions, i));
  json = anot_usage_to_json (usage);
  down_entry = json_object_get_object_member (
    json_object_get_object_member (json_node_get_object (json), "by_endpoint"), down_url);
  errors = json_object_get_int_member (down_entry, "errors");
  g_assert_cmpint (json_object_get_int_member (down_entry, "calls"), ==, 0);
  g_assert_cmpuint (errors, ==, 2);
  g_assert_cmpstr (anot_completion_get_endpoint (g_ptr_array_index (completions, 5)), ==, up_url);
  g_assert_cmpstr (anot_completion_get_endpoint_errors (g_ptr_array_index (completions, 0))[0], ==,
                   down_url);

  /* Back up; after the cool-down a probe finds it and it takes calls. */
  down = start_server (1, port);
  g_usleep (450 * 1000);
  complete_n (backend, 4, completions);
  g_assert_cmpuint (anot_fake_llm_get_n_requests (down), >, 0);
  g_assert_cmpstr (anot_completion_get_endpoint (g_ptr_array_index (completions, 6)), ==, down_url);
}

/* Calls that leave together (within one pump of the backend: no answer
 * can come in between, whatever the load) go to the endpoint with the
 * fewest calls in flight per unit of weight, ties to the first listed:
 * the count each server gets is exact.  Checked 20 times out of 20
 * beside two busy loops. */
static guint
count_endpoint (GPtrArray  *completions,
                guint       from,
                const char *url)
{
  guint n = 0;

  for (guint i = from; i < completions->len; i++)
    if (g_strcmp0 (anot_completion_get_endpoint (g_ptr_array_index (completions, i)), url) == 0)
      n++;
  return n;
}

static void
test_least_outstanding (void)
{
  g_autoptr(AnotFakeLlm) a = start_server (30, 0);
  g_autoptr(AnotFakeLlm) b = start_server (30, 0);
  g_autoptr(AnotFakeLlm) c = start_server (30, 0);
  g_autofree char *a_url = anot_fake_llm_get_openai_base_url (a);
  g_autofree char *b_url = anot_fake_llm_get_openai_base_url (b);
  g_autofree char *c_url = anot_fake_llm_get_openai_base_url (c);
  g_autofree char *urls = g_strjoin (",", a_url, b_url, c_url, NULL);
  g_autoptr(GPtrArray) completions = g_ptr_array_new_with_free_func (g_object_unref);
  g_autoptr(AnotBackend) backend = new_openai ();

  g_object_set (backend, "base-url", urls, "model", "fake", "api-key", TEST_KEY,
                "max-concurrency", 9, NULL);
  complete_n (backend, 9, completions);
  g_assert_cmpuint (count_endpoint (completions, 0, a_url), ==, 3);
  g_assert_cmpuint (count_endpoint (completions, 0, b_url), ==, 3);
  g_assert_cmpuint (count_endpoint (completions, 0, c_url), ==, 3);
  /* One at a time, every call finds them all empty: the first listed. */
  g_object_set (backend, "max-concurrency", 1, NULL);
  complete_n (backend, 3, completions);
  g_assert_cmpuint (count_endpoint (completions, 9, a_url), ==, 3);
}

/* `;max_concurrency=C` bounds one server (the fake server counts its
 * calls in flight), and `;weight=W` gives it W times the share: twelve
 * calls leaving together go 2 (bounded), 8 (weight 3), 2 (weight 1).
 * Counts, not races: checked 20 times out of 20 beside two busy loops. */
static void
test_bound_and_weight (void)
{
  g_autoptr(AnotFakeLlm) bounded = start_server (30, 0);
  g_autoptr(AnotFakeLlm) heavy = start_server (30, 0);
  g_autoptr(AnotFakeLlm) light = start_server (30, 0);
  g_autofree char *bounded_url = anot_fake_llm_get_openai_base_url (bounded);
  g_autofree char *heavy_url = anot_fake_llm_get_openai_base_url (heavy);
  g_autofree char *light_url = anot_fake_llm_get_openai_base_url (light);
  g_autofree char *urls = g_strdup_printf ("%s;max_concurrency=2, %s;weight=3, %s",
                                           bounded_url, heavy_url, light_url);
  g_autoptr(GPtrArray) completions = g_ptr_array_new_with_free_func (g_object_unref);
  g_autoptr(AnotBackend) backend = new_openai ();

  g_object_set (backend, "base-url", urls, "model", "fake", "api-key", TEST_KEY,
                "max-concurrency", 12, NULL);
  complete_n (backend, 12, completions);
  g_assert_cmpuint (count_endpoint (completions, 0, bounded_url), ==, 2);
  g_assert_cmpuint (count_endpoint (completions, 0, heavy_url), ==, 8);
  g_assert_cmpuint (count_endpoint (completions, 0, light_url), ==, 2);

  /* Then 48 more as answers free room: whatever the order of the
   * answers, the bound holds and every call is answered once. */
  complete_n (backend, 48, completions);
  g_test_message ("calls: bounded %u (peak %u), weight 3 %u (peak %u), weight 1 %u (peak %u)",
                  anot_fake_llm_get_n_requests (bounded), anot_fake_llm_get_peak_in_flight (bounded),
                  anot_fake_llm_get_n_requests (heavy), anot_fake_llm_get_peak_in_flight (heavy),
                  anot_fake_llm_get_n_requests (light), anot_fake_llm_get_peak_in_flight (light));
  g_assert_cmpuint (anot_fake_llm_get_peak_in_flight (bounded), <=, 2);
  /* With 12 in flight at most, weight 1 is picked over weight 3 only
   * while (n + 1) * 3 < (heavy's + 1): never past 3 in flight (the
   * server sees no more than the client sent). */
  g_assert_cmpuint (anot_fake_llm_get_peak_in_flight (light), <=, 3);
  g_assert_cmpuint (anot_fake_llm_get_n_requests (bounded) + anot_fake_llm_get_n_requests (heavy) +
                    anot_fake_llm_get_n_requests (light), ==, 60);
}

static void
test_invalid_lists (void)
{
  static const char * const bad[] = {
    "http://a:1/v1,http://a:1/v1",
    "http://a:1/v1;weight=0",
    "http://a:1/v1;speed=3",
    "http://a:1/v1,ftp://b/v1",
  };

  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      g_autoptr(AnotBackend) backend = new_openai ();
      g_autoptr(AnotChatRequest) request = anot_chat_request_new (NULL, "hi");
      g_autoptr(GPtrArray) completions = g_ptr_array_new_with_free_func (g_object_unref);
      g_autoptr(GError) error = NULL;
      GAsyncResult *result = NULL;

      g_object_set (backend, "base-url", bad[i], "model", "m", NULL);
      anot_backend_complete_async (backend, request, NULL, on_run_done, &result);
      while (result == NULL)
        g_main_context_iteration (NULL, TRUE);
      g_assert_null (anot_backend_complete_finish (backend, result, &error));
      g_assert_error (error, ANOT_ERROR, ANOT_ERROR_CONFIG);
      g_test_message ("%s: %s", bad[i], error->message);
      g_object_unref (result);
    }
}

/* A batch is one provider's: a list of servers is refused, not half used. */
static void
test_batch_needs_one_server (void)
{
  g_autoptr(AnotBackend) backend = new_openai ();
  g_autoptr(AnotBatchQueue) queue = anot_batch_queue_new ();
  g_autoptr(AnotChatRequest) request = anot_chat_request_new (NULL, "hi");
  g_autoptr(GError) error = NULL;
  GAsyncResult *result = NULL;

  g_object_set (backend, "base-url", "http://a:1/v1,http://b:1/v1", "model", "m", NULL);
  anot_http_backend_set_batch_queue (ANOT_HTTP_BACKEND (backend), queue);
  anot_backend_complete_async (backend, request, NULL, on_run_done, &result);
  while (result == NULL)
    g_main_context_iteration (NULL, TRUE);
  g_assert_null (anot_backend_complete_finish (backend, result, &error));
  g_assert_error (error, ANOT_ERROR, ANOT_ERROR_CONFIG);
  g_assert_nonnull (strstr (error->message, "single base URL"));
  g_object_unref (result);
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);
  g_unsetenv ("ANOT_DEBUG");
  g_unsetenv ("ANOT_CONFIG");
  /* The test-llm method is built in a folder of its own. */
  {
    g_autofree char *dir = g_build_filename (g_getenv ("ANOT_TEST_BUILDDIR"), "llm-plugin", NULL);
    g_autofree char *path = g_strjoin (G_SEARCHPATH_SEPARATOR_S,
                                       g_getenv ("ANOT_PLUGIN_PATH"), dir, NULL);
    g_setenv ("ANOT_PLUGIN_PATH", path, TRUE);
  }

  g_test_add_func ("/endpoints/three-servers-one-restarted", test_three_servers_one_restarted);
  g_test_add_func ("/endpoints/cooldown-and-probe", test_cooldown_and_probe);
  g_test_add_func ("/endpoints/least-outstanding", test_least_outstanding);
  g_test_add_func ("/endpoints/bound-and-weight", test_bound_and_weight);
  g_test_add_func ("/endpoints/invalid-lists", test_invalid_lists);
  g_test_add_func ("/endpoints/batch-needs-one-server", test_batch_needs_one_server);
  return g_test_run ();
}
