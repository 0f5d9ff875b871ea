/* test-pacing.c: rate limits read and kept, concurrency that adapts,
 * against the fake LLM server's OpenAI and Anthropic accounting
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * These tests depend on time only through the server's window, which they
 * shorten (rate-window-ms on both sides).  They assert counts — calls
 * answered 429, calls in flight, tokens per window at the server — never
 * how long a run took.  Checked 20/20 beside two busy loops
 * (`for i in 1 2; do (while :; do :; done) & done`).
 */
#include <anot/anot.h>

#include "anot-fake-llm.h"
#include "anot-test-backend.h"
#include "anot-test-cli.h"
#include "anot-test-data.h"

#include <string.h>

#define WINDOW_MS 600

typedef struct
{
  guint pending;
  guint n_ok;
  guint n_failed;
  guint max_wait_ms;
} Calls;

static void
on_complete (GObject      *source,
             GAsyncResult *result,
             gpointer      user_data)
{
  Calls *calls = user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(AnotCompletion) completion = anot_backend_complete_finish (ANOT_BACKEND (source), result,
                                                                     &error);

  if (completion != NULL)
    calls->n_ok++;
  else
    {
      g_test_message ("call failed: %s", error->message);
      calls->n_failed++;
    }
  calls->pending--;
}

/* @n calls of @prompt_bytes bytes (a quarter as many tokens, as both
 * sides count them) and @max_tokens, all started at once; waits for them
 * and notes the longest rate-limit wait the backend reported meanwhile. */
static void
run_calls (AnotBackend *backend,
           guint        n,
           gsize        prompt_bytes,
           guint        max_tokens,
           Calls       *calls)
{
  memset (calls, 0, sizeof *calls);
  for (guint i = 0; i < n; i++)
    {
      g_autofree char *filler = g_strnfill (prompt_bytes - 16, 'a');
      g_autofree char *prompt = g_strdup_printf ("call %04u %s", i, filler);
      g_autoptr(AnotChatRequest) request = anot_chat_request_new (NULL, prompt);

      anot_chat_request_set_max_tokens (request, max_tokens);
      calls->pending++;
      anot_backend_complete_async (backend, request, NULL, on_complete, calls);
    }
  while (calls->pending > 0)
    {
      g_main_context_iteration (NULL, TRUE);
      calls->max_wait_ms = MAX (calls->max_wait_ms,
                                anot_http_backend_get_rate_limit_wait_ms (ANOT_HTTP_BACKEND (backend)));
    }
}

static guint
count_status (AnotFakeLlm *server,
              guint        status)
{
  guint n = 0;

  for (guint i = 0; i < anot_fake_llm_get_n_requests (server); i++)
    if (json_object_get_int_member (anot_fake_llm_get_request (server, i), "status") == status)
      n++;
  return n;
}

static AnotBackend *
backend_for (AnotFakeLlm *server,
             const char  *api)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *base_url = strcmp (api, "openai") == 0 ? anot_fake_llm_get_openai_base_url (server)
                                                          : g_strdup (anot_fake_llm_get_url (server));
  AnotBackend *backend = anot_registry_create_backend (anot_registry_get_default (), api, &error);

  g_assert_no_error (error);
  g_object_set (backend,
                "base-url", base_url,
                "api-key", "sk-test",
                "model", "fake",
                "retry-base-ms", 10,
                "retry-max-ms", 50,
                "max-retries", 10,
                "rate-window-ms", WINDOW_MS,
                NULL);
  return backend;
}

/* OpenAI's accounting (prompt characters / 4 + max_tokens when admitted,
 * a sliding window, x-ratelimit-* on every answer, "try again in" in the
 * 429, no Retry-After): 24 calls of 1,200 tokens against 6,000 a window,
 * all started at once.  Without pacing, a third of them would be 429s. */
static void
test_openai_headers (void)
{
  g_autoptr(AnotFakeLlm) server = anot_test_fake_llm_start (
    "{\"latency_ms\": 30, \"rate_limit\": {\"style\": \"openai\", \"tpm\": 6000, "
    "\"rpm\": 100, \"window_ms\": " G_STRINGIFY (WINDOW_MS) "}}", NULL);
  g_autoptr(AnotBackend) backend = backend_for (server, "openai");
  Calls calls;

  g_object_set (backend, "adaptive-concurrency", TRUE, "max-concurrency", 16, NULL);
  run_calls (backend, 24, 4000, 200, &calls);
  g_assert_cmpuint (calls.n_ok, ==, 24);
  g_assert_cmpuint (count_status (server, 429), <=, 2);
  g_assert_cmpuint (count_status (server, 200), ==, 24);
  /* The queue waited for the limit, and said so. */
  g_assert_cmpuint (calls.max_wait_ms, >, 0);
  g_assert_cmpuint (calls.max_wait_ms, <=, WINDOW_MS + 1000);
}

/* The same with -j fixed: the first calls go before any answer says the
 * limits; once one has, the rest are paced (at most the first burst is
 * refused, and each refused call waits the time the 429 names). */
static void
test_openai_headers_fixed_concurrency (void)
{
  g_autoptr(AnotFakeLlm) server = anot_test_fake_llm_start (
    "{\"latency_ms\": 30, \"rate_limit\": {\"style\": \"openai\", \"tpm\": 6000, "
    "\"window_ms\": " G_STRINGIFY (WINDOW_MS) "}}", NULL);
  g_autoptr(AnotBackend) backend = backend_for (server, "openai");
  Calls calls;

  g_object_set (backend, "max-concurrency", 2, NULL);
  run_calls (backend, 20, 4000, 200, &calls);
  g_assert_cmpuint (calls.n_ok, ==, 20);
  g_assert_cmpuint (count_status (server, 429), <=, 2);
}

/* Anthropic's: requests, input tokens and output tokens (max_tokens)
 * separately, RFC 3339 resets, retry-after on a 429.  The output limit is
 * the tight one here. */
static void
test_anthropic_headers (void)
{
  g_autoptr(AnotFakeLlm) server = anot_test_fake_llm_start (
    "{\"latency_ms\": 30, \"rate_limit\": {\"style\": \"anthropic\", \"rpm\": 50, "
    "\"itpm\": 20000, \"otpm\": 2000, \"window_ms\": " G_STRINGIFY (WINDOW_MS) "}}", NULL);
  g_autoptr(AnotBackend) backend = backend_for (server, "anthropic");
  Calls calls;

  g_object_set (backend, "adaptive-concurrency", TRUE, NULL);
  run_calls (backend, 20, 400, 500, &calls);
  g_assert_cmpuint (calls.n_ok, ==, 20);
  g_assert_cmpuint (count_status (server, 429), <=, 2);
  g_assert_cmpuint (calls.max_wait_ms, >, 0);
}

/* What the server admitted in any stretch of @span_ms, the largest: the
 * sum of @member (or 1 per request when NULL; max_tokens added when
 * @with_max_tokens). */
static guint64
busiest_stretch (AnotFakeLlm *server,
                 double       span_ms,
                 guint        max_tokens)
{
  guint n = anot_fake_llm_get_n_requests (server);
  guint64 busiest = 0;

  for (guint i = 0; i < n; i++)
    {
      JsonObject *first = anot_fake_llm_get_request (server, i);
      double from = json_object_get_double_member (first, "time_ms");
      guint64 sum = 0;

      for (guint j = 0; j < n; j++)
        {
          JsonObject *record = anot_fake_llm_get_request (server, j);
          double t = json_object_get_double_member (record, "time_ms");

          if (t >= from && t < from + span_ms)
            sum += (guint64) json_object_get_int_member (record, "prompt_tokens") + max_tokens;
        }
      busiest = MAX (busiest, sum);
    }
  return busiest;
}

/* A server that says nothing (vLLM, llama.cpp): the user's tpm and rpm
 * pace the calls, counted from the server's own records. */
static void
test_user_limits (void)
{
  g_autoptr(AnotFakeLlm) server = anot_test_fake_llm_start ("{\"latency_ms\": 20}", NULL);
  g_autoptr(AnotBackend) backend = backend_for (server, "openai");
  Calls calls;

  g_object_set (backend, "tpm", 5000, "rpm", 1000, "max-concurrency", 16, NULL);
  run_calls (backend, 16, 4000, 200, &calls);
  g_assert_cmpuint (calls.n_ok, ==, 16);
  /* Four calls of 1,200 tokens fit a window of 5,000.  The server's clock
   * reads a call a little after it is sent: four fifths of a window
   * leaves room for that. */
  g_assert_cmpuint (busiest_stretch (server, WINDOW_MS * 0.8, 200), <=, 5000);
  g_assert_cmpuint (calls.max_wait_ms, >, 0);

  /* requests per minute alone */
  anot_fake_llm_clear_requests (server);
  g_object_set (backend, "tpm", 0, "rpm", 3, NULL);
  run_calls (backend, 9, 100, 0, &calls);
  g_assert_cmpuint (calls.n_ok, ==, 9);
  {
    guint n = anot_fake_llm_get_n_requests (server);

    for (guint i = 0; i + 3 < n; i++)
      {
        double a = json_object_get_double_member (anot_fake_llm_get_request (server, i), "time_ms");
        double b = json_object_get_double_member (anot_fake_llm_get_request (server, i + 3), "time_ms");

        /* The fourth call after one is at least (nearly) a window later. */
        g_assert_cmpfloat (b - a, >=, WINDOW_MS * 0.8);
      }
  }
}

/* A server that serves 4 calls at full speed and slows every call in
 * proportion beyond: the adaptive limit grows from 1 past it, backs off
 * when latency doubles, and never passes its cap. */
static void
test_adaptive_capacity (void)
{
  g_autoptr(AnotFakeLlm) server = anot_test_fake_llm_start (
    "{\"latency_ms\": 100, \"capacity\": 4}", NULL);
  g_autoptr(AnotBackend) backend = backend_for (server, "openai");
  AnotHttpBackend *http = ANOT_HTTP_BACKEND (backend);
  Calls calls;

  g_object_set (backend, "adaptive-concurrency", TRUE, "max-concurrency", 32, NULL);
  g_assert_cmpuint (anot_http_backend_get_concurrency_limit (http), ==, 1);
  run_calls (backend, 160, 100, 0, &calls);
  g_assert_cmpuint (calls.n_ok, ==, 160);
  g_assert_cmpuint (anot_fake_llm_get_peak_in_flight (server), <=, 32);
  g_test_message ("peak limit %u, final %u, peak in flight at the server %u",
                  anot_http_backend_get_peak_concurrency (http),
                  anot_http_backend_get_concurrency_limit (http),
                  anot_fake_llm_get_peak_in_flight (server));
  /* It found more than one... */
  g_assert_cmpuint (anot_http_backend_get_peak_concurrency (http), >=, 4);
  /* ...and did not stay at the cap: at 16 calls in flight every call
   * takes four times as long. */
  g_assert_cmpuint (anot_http_backend_get_concurrency_limit (http), <, 16);

  /* Fixed, it stays fixed. */
  g_object_set (backend, "adaptive-concurrency", FALSE, "max-concurrency", 6, NULL);
  anot_fake_llm_clear_requests (server);
  run_calls (backend, 30, 100, 0, &calls);
  g_assert_cmpuint (anot_http_backend_get_concurrency_limit (http), ==, 6);
  /* At most: how many the server sees at once is the machine's (under
   * valgrind a call may end before the sixth is read). */
  g_assert_cmpuint (anot_fake_llm_get_peak_in_flight (server), <=, 6);
}

/* 429s without a rate limit to read (a server's own throttle) shrink the
 * calls in flight. */
static void
test_adaptive_backs_off_on_429 (void)
{
  g_autoptr(AnotFakeLlm) server = anot_test_fake_llm_start (
    "{\"latency_ms\": 20, \"rules\": [{\"match\": \"^call 00[2-9]\", \"fault\": \"429\", "
    "\"fault_rate\": 0.5, \"retry_after_ms\": \"10\"}]}", NULL);
  g_autoptr(AnotBackend) backend = backend_for (server, "openai");
  AnotHttpBackend *http = ANOT_HTTP_BACKEND (backend);
  Calls calls;

  /* Half refused: 40 retries make a call that never gets through a
   * chance of 2^-41. */
  g_object_set (backend, "adaptive-concurrency", TRUE, "max-concurrency", 32, "max-retries", 40,
                NULL);
  /* Calls 0000-0019 succeed and the limit grows... */
  run_calls (backend, 20, 100, 0, &calls);
  g_assert_cmpuint (anot_http_backend_get_concurrency_limit (http), >=, 4);
  {
    guint grown = anot_http_backend_get_concurrency_limit (http);

    /* ...then half of calls 0020-0099 are refused, and it shrinks. */
    run_calls (backend, 100, 100, 0, &calls);
    g_assert_cmpuint (calls.n_ok, ==, 100);
    g_assert_cmpuint (anot_http_backend_get_concurrency_limit (http), <, grown);
  }
}

/* The case, scaled down: cot on the demo's 30 requests (about
 * 22,000 prompt tokens each) against 600,000 tokens a window, without
 * -j, through anot-run.  Every request scored, at most 2 calls refused,
 * at most 96 in flight. */
static void
test_cli_paced_run (void)
{
  AnotTestCli cli;
  g_autoptr(GSubprocess) process = NULL;
  g_autofree char *out = NULL;
  g_autofree char *err = NULL;
  g_autofree char *results = NULL;
  g_autofree char *config_path = NULL;
  g_autofree char *contents = NULL;
  g_auto(GStrv) lines = NULL;
  guint n_scored = 0;
  const char *env[] = { "ANOT_RATE_WINDOW_MS=3000", "OPENAI_API_KEY=sk-test", NULL };
  const char *argv[] = {
    "--method", "cot", "--backend", "openai", "--base-url", NULL, "--model", "fake",
    "--candidates", "10", "--out", NULL, "--name", "paced", NULL,
  };

  anot_test_cli_setup (&cli, "anot-pacing-XXXXXX",
                       "{\"latency_ms\": 200, "
                       "\"rules\": [{\"match\": \".*\", \"reply\": \"[1, 2, 3, 4, 5, 6, 7, 8, 9, 10]\"}], "
                       "\"rate_limit\": {\"style\": \"openai\", \"tpm\": 600000, \"window_ms\": 3000}}");
  argv[5] = cli.base_url;
  argv[11] = cli.root;
  process = anot_test_cli_spawn (G_SUBPROCESS_FLAGS_STDOUT_PIPE | G_SUBPROCESS_FLAGS_STDERR_PIPE,
                                 argv, env);
  g_assert_cmpint (anot_test_cli_wait (process, NULL, NULL, &out, &err), ==, 0);
  g_test_message ("%s%s", out, err);

  results = g_build_filename (cli.root, "paced", "clean", "run_1", "results_10.jsonl", NULL);
  g_assert_true (g_file_get_contents (results, &contents, NULL, NULL));
  lines = g_strsplit (contents, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    if (*lines[i] != '\0' && strstr (lines[i], "\"error\"") == NULL)
      n_scored++;
  g_assert_cmpuint (n_scored, ==, 30);
  g_assert_cmpuint (count_status (cli.server, 429), <=, 2);
  g_assert_cmpuint (anot_fake_llm_get_peak_in_flight (cli.server), <=, 96);
  /* More than one window's tokens: some calls waited. */
  g_assert_cmpuint (anot_fake_llm_get_n_requests (cli.server), >=, 30);

  /* Where the concurrency found goes: config.json, outside what a resume
   * reads. */
  g_clear_pointer (&contents, g_free);
  config_path = g_build_filename (cli.root, "paced", "clean", "run_1", "config.json", NULL);
  g_assert_true (g_file_get_contents (config_path, &contents, NULL, NULL));
  g_assert_nonnull (strstr (contents, "\"concurrency_reached\""));
  g_assert_nonnull (strstr (out, "Calls in flight adapted to at most"));
  anot_test_cli_teardown (&cli);
}

/* estimate: the time at the limits it knows, beside the cost. */
static void
test_estimate_time (void)
{
  g_autoptr(GSubprocess) process = NULL;
  g_autofree char *out = NULL;
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(GError) error = NULL;
  JsonObject *root, *pace, *total;
  const char *argv[] = {
    "estimate", "--method", "cot", "--candidates", "10", "--backend", "openai",
    "--model", "fake", "--tpm", "100000", "--rpm", "10", "--json", NULL,
  };
  double tokens;

  process = anot_test_cli_spawn (G_SUBPROCESS_FLAGS_STDOUT_PIPE, argv, NULL);
  g_assert_cmpint (anot_test_cli_wait (process, NULL, NULL, &out, NULL), ==, 0);
  g_assert_true (json_parser_load_from_data (parser, out, -1, &error));
  g_assert_no_error (error);
  root = json_node_get_object (json_parser_get_root (parser));
  pace = json_object_get_object_member (root, "pace");
  total = json_object_get_object_member (root, "total");
  g_assert_cmpint (json_object_get_int_member (pace, "tpm"), ==, 100000);
  g_assert_cmpint (json_object_get_int_member (pace, "rpm"), ==, 10);
  tokens = json_object_get_int_member (total, "prompt_tokens") +
           json_object_get_int_member (total, "completion_tokens");
  /* 30 calls at 10 a minute: 3 min; ~680,000 tokens at 100,000: ~6.8. */
  g_assert_cmpstr (json_object_get_string_member (pace, "bound_by"), ==, "tokens");
  g_assert_cmpfloat_with_epsilon (json_object_get_double_member (pace, "minutes"),
                                  tokens / 100000, 1e-9);
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);
  g_unsetenv ("ANOT_DEBUG");
  g_unsetenv ("ANOT_CONFIG");

  g_test_add_func ("/pacing/openai-headers", test_openai_headers);
  g_test_add_func ("/pacing/openai-headers-fixed-concurrency", test_openai_headers_fixed_concurrency);
  g_test_add_func ("/pacing/anthropic-headers", test_anthropic_headers);
  g_test_add_func ("/pacing/user-limits", test_user_limits);
  g_test_add_func ("/pacing/adaptive-capacity", test_adaptive_capacity);
  g_test_add_func ("/pacing/adaptive-backs-off-on-429", test_adaptive_backs_off_on_429);
  g_test_add_func ("/pacing/cli-paced-run", test_cli_paced_run);
  g_test_add_func ("/pacing/estimate-time", test_estimate_time);
  return g_test_run ();
}
