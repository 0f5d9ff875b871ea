/* test-lwt-executor.c: running LWT scripts against the fake LLM server
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <anot/anot.h>

#include "anot-fake-llm.h"
#include "anot-test-backend.h"
#include "anot-test-data.h"

#include <string.h>

#define TEST_KEY "sk-anot-test-lwt"

typedef struct {
  AnotFakeLlm       *server;
  AnotDataset       *dataset;
  AnotBackend       *backend;
  AnotBackendRouter *router;
  AnotMethodContext *context;
  AnotLwtExecutor   *executor;
} Fixture;

static void
fixture_start (Fixture    *fixture,
               const char *rules)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *demo = g_build_filename (g_getenv ("ANOT_DATA_DIR"), "demo", NULL);

  fixture->server = anot_test_fake_llm_start (rules, TEST_KEY);

  fixture->backend = anot_test_backend_new (fixture->server, TEST_KEY, "fake-model", 1, 10000);

  fixture->router = anot_backend_router_new ();
  anot_backend_router_set_route (fixture->router, ANOT_DEFAULT_ROLE, "openai", fixture->backend, NULL);

  fixture->dataset = anot_dataset_load (demo, NULL, &error);
  g_assert_no_error (error);
  fixture->context = anot_method_context_new (fixture->dataset, "R01", 1);
  anot_method_context_set_router (fixture->context, fixture->router);
  fixture->executor = anot_lwt_executor_new (fixture->context);
}

static void
fixture_stop (Fixture *fixture)
{
  g_clear_object (&fixture->executor);
  g_clear_object (&fixture->context);
  g_clear_object (&fixture->router);
  g_clear_object (&fixture->backend);
  g_clear_object (&fixture->dataset);
  g_clear_object (&fixture->server);
}

static void
on_done (GObject      *source,
         GAsyncResult *result,
         gpointer      user_data)
{
  *(GAsyncResult **) user_data = g_object_ref (result);
}

static AnotLwtResult *
execute (Fixture       *fixture,
         AnotLwtScript *script,
         GCancellable  *cancellable,
         GError       **error)
{
  g_autoptr(GAsyncResult) result = NULL;

  anot_lwt_executor_execute_async (fixture->executor, script, cancellable, on_done, &result);
  while (result == NULL)
    g_main_context_iteration (NULL, TRUE);
  return anot_lwt_executor_execute_finish (fixture->executor, result, error);
}

static AnotLwtScript *
parse (const char *text)
{
  g_autoptr(GError) error = NULL;
  AnotLwtScript *script = anot_lwt_script_parse (text, ANOT_LWT_PARSE_FLAGS_NONE, &error);

  g_assert_no_error (error);
  return script;
}

/* Every step of a layer is in flight at once; the aggregation waits for
 * all of them and reads their outputs. */
static void
test_layers_in_parallel (void)
{
  Fixture fixture = { 0 };
  g_autoptr(GString) text = g_string_new (NULL);
  g_autoptr(AnotLwtScript) script = NULL;
  g_autoptr(AnotLwtResult) result = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *expected_agg = NULL;
  const guint n = 12;
  double last_item_end = 0;

  /* The items' hold outlasts sending all twelve, stretched under the
   * sanitizers where the sends alone can take longer than 400 ms. */
  guint scale = anot_test_time_scale ();
  const double hold_ms = 400.0 * scale;
  g_autofree char *rules = g_strdup_printf ("{\"latency_ms\": %u, \"rules\": ["
                                            "  {\"match\": \"^Rate item (\\\\d+)\", \"reply\": \"\\\\1\"},"
                                            "  {\"match\": \"^Scores:\", \"reply\": \"done\", \"latency_ms\": 20}"
                                            "]}", 400 * scale);

  fixture_start (&fixture, rules);

  for (guint i = 0; i < n; i++)
    g_string_append_printf (text, "(%u)=LLM(\"Rate item %u. Output: <score>\")\n", i, i);
  g_string_append (text, "(agg)=LLM(\"Scores:");
  for (guint i = 0; i < n; i++)
    g_string_append_printf (text, " {(%u)}", i);
  g_string_append (text, "\")");
  script = parse (text->str);

  result = execute (&fixture, script, NULL, &error);
  g_assert_no_error (error);

  /* The server saw all item calls together. */
  g_assert_cmpuint (anot_fake_llm_get_n_requests (fixture.server), ==, n + 1);
  g_assert_cmpuint (anot_fake_llm_get_peak_in_flight (fixture.server), ==, n);
  g_assert_cmpuint (anot_lwt_result_get_max_in_flight (result), ==, n);
  g_assert_cmpuint (anot_lwt_result_get_n_calls (result), ==, n + 1);
  g_assert_cmpuint (anot_lwt_result_get_n_failed (result), ==, 0);

  for (guint i = 0; i < n; i++)
    {
      g_autofree char *id = g_strdup_printf ("%u", i);
      g_autofree char *prompt = g_strdup_printf ("Rate item %u. Output: <score>", i);

      g_assert_cmpstr (anot_lwt_result_get_output (result, id), ==, id);
      g_assert_cmpstr (anot_lwt_result_get_prompt (result, id), ==, prompt);
      g_assert_cmpfloat (anot_lwt_result_get_latency_ms (result, id), >=, hold_ms);
      /* Issued at once, at the start. */
      g_assert_cmpfloat (anot_lwt_result_get_start_ms (result, id), <, 100 * scale);
      g_assert_cmpuint (anot_lwt_result_get_prompt_tokens (result, id), ==,
                        anot_fake_llm_count_tokens (prompt));
      g_assert_cmpuint (anot_lwt_result_get_completion_tokens (result, id), ==,
                        anot_fake_llm_count_tokens (id));
      last_item_end = MAX (last_item_end, anot_lwt_result_get_start_ms (result, id) +
                                          anot_lwt_result_get_latency_ms (result, id));
    }

  expected_agg = g_strdup ("Scores: 0 1 2 3 4 5 6 7 8 9 10 11");
  g_assert_cmpstr (anot_lwt_result_get_prompt (result, "agg"), ==, expected_agg);
  g_assert_cmpstr (anot_lwt_result_get_final_output (result), ==, "done");
  g_assert_cmpfloat (anot_lwt_result_get_start_ms (result, "agg"), >=, last_item_end - 1);

  /* Two rounds of latency, not n + 1. */
  g_test_message ("wall %.0f ms for 2 rounds of %.0f + 20 ms", anot_lwt_result_get_wall_ms (result), hold_ms);
  g_assert_cmpfloat (anot_lwt_result_get_wall_ms (result), >=, hold_ms + 20);
  /* n + 1 rounds would be 13 holds; the slack above two rounds grows
   * under the sanitizers, where every send costs more. */
  g_assert_cmpfloat (anot_lwt_result_get_wall_ms (result), <, hold_ms + 20 + 350 * scale);

  /* The request's usage counts every call. */
  {
    AnotUsage *usage = anot_method_context_get_usage (fixture.context);

    g_assert_cmpuint (anot_usage_get_calls (usage), ==, n + 1);
    g_assert_cmpuint (anot_usage_get_prompt_tokens (usage), ==,
                      anot_lwt_result_get_total_prompt_tokens (result));
    g_assert_cmpuint (anot_usage_get_completion_tokens (usage), ==,
                      anot_lwt_result_get_total_completion_tokens (result));
  }

  /* The trace object. */
  {
    g_autoptr(JsonNode) trace = anot_lwt_result_to_json (result, 100);
    JsonObject *steps = json_node_get_object (trace);
    JsonObject *agg = json_object_get_object_member (steps, "agg");

    g_assert_cmpuint (json_object_get_size (steps), ==, n + 1);
    g_assert_cmpstr (json_object_get_string_member (agg, "output"), ==, "done");
    g_assert_cmpint (json_object_get_int_member (agg, "prompt_tokens"), ==,
                     anot_fake_llm_count_tokens (expected_agg));
    g_assert_false (json_object_has_member (agg, "error"));
    g_assert_cmpfloat (json_object_get_double_member (agg, "latency_ms"), >=, 20);
  }

  fixture_stop (&fixture);
}

/* A step is issued when its own dependencies answer, not when its layer's
 * slowest step does.  Asserted as an order of events with seconds between
 * them (k starts and answers while b is out for 3 s), not as a wall time:
 * checked 20 runs out of 20 beside two busy loops. */
static void
test_data_flow (void)
{
  Fixture fixture = { 0 };
  g_autoptr(AnotLwtScript) script = NULL;
  g_autoptr(AnotLwtResult) result = NULL;
  g_autoptr(GError) error = NULL;

  fixture_start (&fixture,
                 "{\"rules\": ["
                 "  {\"match\": \"^fast\", \"reply\": \"F\", \"latency_ms\": 20},"
                 "  {\"match\": \"^slow\", \"reply\": \"S\", \"latency_ms\": 3000},"
                 "  {\"match\": \"^after\", \"reply\": \"A\", \"latency_ms\": 20}"
                 "]}");
  script = parse ("(a)=LLM(\"fast\")\n(b)=LLM(\"slow\")\n(k)=LLM(\"after {(a)}\")\n"
                  "(d)=LLM(\"after {(k)} and {(b)}\")");
  g_assert_cmpuint (anot_lwt_script_get_n_layers (script), ==, 3);

  result = execute (&fixture, script, NULL, &error);
  g_assert_no_error (error);
  /* k (layer 1) ran, and answered, while b (layer 0) was still out. */
  g_assert_cmpfloat (anot_lwt_result_get_start_ms (result, "k") + anot_lwt_result_get_latency_ms (result, "k"), <,
                     anot_lwt_result_get_start_ms (result, "b") + anot_lwt_result_get_latency_ms (result, "b"));
  g_assert_cmpstr (anot_lwt_result_get_prompt (result, "d"), ==, "after A and S");
  /* d waited for b, the last of its dependencies. */
  g_assert_cmpfloat (anot_lwt_result_get_start_ms (result, "d"), >=,
                     anot_lwt_result_get_start_ms (result, "b") + anot_lwt_result_get_latency_ms (result, "b"));

  fixture_stop (&fixture);
}

/* A backend error fails its step; the steps reading it see the failure. */
static void
test_step_failure (void)
{
  Fixture fixture = { 0 };
  g_autoptr(AnotLwtScript) script = NULL;
  g_autoptr(AnotLwtResult) result = NULL;
  g_autoptr(AnotLwtResult) again = NULL;
  g_autoptr(GError) error = NULL;
  const char *failure;

  fixture_start (&fixture,
                 "{\"latency_ms\": 5, \"rules\": ["
                 "  {\"match\": \"^broken\", \"fault\": \"500\"},"
                 "  {\"match\": \"^refuse\", \"fault\": \"400\", \"error\": \"bad input\"},"
                 "  {\"match\": \"^ok\", \"reply\": \"7\"},"
                 "  {\"match\": \"^sum (.*)\", \"reply\": \"seen: \\\\1\"}"
                 "]}");
  script = parse ("(a)=LLM(\"ok\")\n(b)=LLM(\"broken\")\n(e)=LLM(\"refuse\")\n"
                  "(s)=LLM(\"sum {(a)} | {(b)} | {(e)}\")");

  result = execute (&fixture, script, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (anot_lwt_result_get_n_failed (result), ==, 2);
  g_assert_null (anot_lwt_result_get_error (result, "a"));
  g_assert_nonnull (anot_lwt_result_get_error (result, "b"));
  g_assert_nonnull (strstr (anot_lwt_result_get_error (result, "e"), "bad input"));
  failure = anot_lwt_result_get_output (result, "b");
  g_assert_true (g_str_has_prefix (failure, "[step b failed: "));
  g_assert_cmpstr (anot_lwt_result_get_output (result, "a"), ==, "7");

  /* The dependant ran, and saw the failures. */
  g_assert_null (anot_lwt_result_get_error (result, "s"));
  g_assert_nonnull (strstr (anot_lwt_result_get_prompt (result, "s"), "[step b failed: "));
  g_assert_nonnull (strstr (anot_lwt_result_get_prompt (result, "s"), "[step e failed: "));
  g_assert_true (g_str_has_prefix (anot_lwt_result_get_output (result, "s"), "seen: 7 | [step b failed"));

  {
    g_autoptr(JsonNode) trace = anot_lwt_result_to_json (result, 0);
    JsonObject *b = json_object_get_object_member (json_node_get_object (trace), "b");

    g_assert_cmpstr (json_object_get_string_member (b, "error"), ==,
                     anot_lwt_result_get_error (result, "b"));
  }

  /* The original's failure outputs: failed steps read as "0". */
  anot_lwt_executor_set_failure_output (fixture.executor, "0");
  again = execute (&fixture, script, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (anot_lwt_result_get_output (again, "b"), ==, "0");
  g_assert_cmpstr (anot_lwt_result_get_prompt (again, "s"), ==, "sum 7 | 0 | 0");
  /* Failures are not cached: b was asked again; a was not. */
  g_assert_cmpuint (anot_lwt_result_get_n_calls (again), ==, 3);
  g_assert_true (anot_lwt_result_get_cached (again, "a"));

  fixture_stop (&fixture);
}

/* Identical prompts are asked once. */
static void
test_cache (void)
{
  Fixture fixture = { 0 };
  g_autoptr(AnotLwtScript) script = NULL;
  g_autoptr(AnotLwtResult) result = NULL;
  g_autoptr(AnotLwtResult) second = NULL;
  g_autoptr(GError) error = NULL;

  fixture_start (&fixture, "{\"latency_ms\": 30, \"default_reply\": \"same\"}");
  script = parse ("(a)=LLM(\"q\")\n(b)=LLM(\"q\")\n(k)=LLM(\"other\")\n(d)=LLM(\"{(a)}{(b)}\")");
  result = execute (&fixture, script, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (anot_fake_llm_get_n_requests (fixture.server), ==, 3);
  g_assert_cmpuint (anot_lwt_result_get_n_calls (result), ==, 3);
  g_assert_false (anot_lwt_result_get_cached (result, "a"));
  g_assert_true (anot_lwt_result_get_cached (result, "b"));
  g_assert_cmpstr (anot_lwt_result_get_output (result, "b"), ==, "same");
  g_assert_cmpstr (anot_lwt_result_get_prompt (result, "d"), ==, "samesame");

  /* A second execution is answered from the cache... */
  second = execute (&fixture, script, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (anot_fake_llm_get_n_requests (fixture.server), ==, 3);
  g_assert_cmpuint (anot_lwt_result_get_n_calls (second), ==, 0);

  /* ...until it is cleared, or the role changes. */
  anot_lwt_executor_clear_cache (fixture.executor);
  g_clear_object (&second);
  second = execute (&fixture, script, NULL, &error);
  g_assert_cmpuint (anot_fake_llm_get_n_requests (fixture.server), ==, 6);
  anot_lwt_executor_set_role (fixture.executor, "scorer");
  g_clear_object (&second);
  second = execute (&fixture, script, NULL, &error);
  g_assert_cmpuint (anot_fake_llm_get_n_requests (fixture.server), ==, 9);
  g_assert_cmpstr (anot_lwt_executor_get_role (fixture.executor), ==, "scorer");

  fixture_stop (&fixture);
}

/* Variables fill {(query)} and {(context)} paths; long values and prompts
 * are cut. */
static void
test_variables (void)
{
  Fixture fixture = { 0 };
  g_autoptr(AnotLwtScript) script = NULL;
  g_autoptr(AnotLwtResult) result = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) items = g_ptr_array_new ();
  g_autoptr(JsonNode) context = NULL;
  g_autoptr(JsonNode) query = json_node_init_string (json_node_alloc (), "a cafe with WiFi");
  g_autofree char *expected = NULL;
  AnotItem *first;

  fixture_start (&fixture, "{\"default_reply\": \"ok\"}");
  for (guint i = 0; i < 3; i++)
    g_ptr_array_add (items, anot_dataset_get_item (fixture.dataset, i));
  first = g_ptr_array_index (items, 0);
  context = anot_data_context_new (items);
  anot_lwt_executor_set_variable (fixture.executor, "query",  query);
  anot_lwt_executor_set_variable (fixture.executor, "context",
                                  json_object_get_member (json_node_get_object (context), "items"));
  g_assert_true (anot_lwt_executor_get_variable (fixture.executor, "query") == query);

  script = parse ("(1)=LLM(\"For {(query)}: {(context)}[1][name] has WiFi {(context)}[1][attributes][WiFi]\")\n"
                  "(2)=LLM(\"{(context)}[1][reviews][0][text]\")");
  anot_lwt_executor_set_max_value_length (fixture.executor, 40);
  result = execute (&fixture, script, NULL, &error);
  g_assert_no_error (error);

  {
    g_autofree char *raw_wifi = g_strdup (anot_item_get_attribute (first, "WiFi"));
    g_autofree char *wifi = NULL;

    /* u'free' in the file reads as free. */
    if (g_str_has_prefix (raw_wifi, "u'"))
      wifi = g_strndup (raw_wifi + 2, strlen (raw_wifi) - 3);
    else
      wifi = g_strdup (raw_wifi);
    expected = g_strdup_printf ("For a cafe with WiFi: %s has WiFi %s", anot_item_get_name (first), wifi);
  }
  g_assert_cmpstr (anot_lwt_result_get_prompt (result, "1"), ==, expected);
  g_assert_nonnull (strstr (anot_lwt_result_get_prompt (result, "2"), "\n...[TRUNCATED]...\n"));

  /* A whole prompt over the limit is cut too. */
  anot_lwt_executor_set_max_value_length (fixture.executor, 0);
  anot_lwt_executor_set_max_prompt_length (fixture.executor, 20);
  g_clear_object (&result);
  result = execute (&fixture, script, NULL, &error);
  g_assert_cmpuint (g_utf8_strlen (anot_lwt_result_get_prompt (result, "1"), -1), ==,
                    10 + strlen ("\n...[TRUNCATED]...\n") + 5);

  /* Unset. */
  anot_lwt_executor_set_variable (fixture.executor, "query", NULL);
  g_assert_null (anot_lwt_executor_get_variable (fixture.executor, "query"));

  fixture_stop (&fixture);
}

static void
test_max_concurrent (void)
{
  Fixture fixture = { 0 };
  g_autoptr(GString) text = g_string_new (NULL);
  g_autoptr(AnotLwtScript) script = NULL;
  g_autoptr(AnotLwtResult) result = NULL;
  g_autoptr(GError) error = NULL;

  fixture_start (&fixture, "{\"latency_ms\": 20, \"rules\": [{\"match\": \"^x (\\\\d+)\", \"reply\": \"\\\\1\"}]}");
  for (guint i = 0; i < 10; i++)
    g_string_append_printf (text, "(%u)=LLM(\"x %u\")\n", i, i);
  script = parse (text->str);
  anot_lwt_executor_set_max_concurrent (fixture.executor, 3);
  result = execute (&fixture, script, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (anot_lwt_result_get_max_in_flight (result), ==, 3);
  g_assert_cmpuint (anot_fake_llm_get_peak_in_flight (fixture.server), ==, 3);
  g_assert_cmpuint (anot_lwt_result_get_n_calls (result), ==, 10);

  fixture_stop (&fixture);
}

/* Past a full round of calls waiting at the backend, started steps wait
 * in the executor unsent: with 2 calls at once allowed, the backend's
 * queue never holds more than 2 of an execution of 20 independent steps
 * (18 at once before), every step answers, and the trace's max_in_flight
 * still counts the 20 steps started together.  Counts only, sampled after
 * the first pass and at every main-loop iteration: a send happens only
 * while fewer than 2 wait, so no timing can raise the count (checked 20
 * runs out of 20 beside two busy loops). */
static void
test_backlog (void)
{
  Fixture fixture = { 0 };
  g_autoptr(GString) text = g_string_new (NULL);
  g_autoptr(AnotLwtScript) script = NULL;
  g_autoptr(AnotLwtResult) result = NULL;
  g_autoptr(GError) error = NULL;

  fixture_start (&fixture, "{\"latency_ms\": 5, \"rules\": [{\"match\": \"^x (\\\\d+)\", \"reply\": \"\\\\1\"}]}");
  anot_http_backend_set_max_concurrency (ANOT_HTTP_BACKEND (fixture.backend), 2);
  g_assert_false (anot_method_context_is_backlogged (fixture.context, ANOT_DEFAULT_ROLE));
  for (guint i = 0; i < 20; i++)
    g_string_append_printf (text, "(%u)=LLM(\"x %u\")\n", i, i);
  script = parse (text->str);
  {
    g_autoptr(GAsyncResult) async_result = NULL;
    AnotHttpBackend *http = ANOT_HTTP_BACKEND (fixture.backend);
    guint most_queued = anot_http_backend_get_n_queued (http);

    anot_lwt_executor_execute_async (fixture.executor, script, NULL, on_done, &async_result);
    most_queued = MAX (most_queued, anot_http_backend_get_n_queued (http));
    while (async_result == NULL)
      {
        g_main_context_iteration (NULL, TRUE);
        most_queued = MAX (most_queued, anot_http_backend_get_n_queued (http));
      }
    result = anot_lwt_executor_execute_finish (fixture.executor, async_result, &error);
    g_assert_cmpuint (most_queued, ==, 2);
  }
  g_assert_no_error (error);
  g_assert_cmpuint (anot_lwt_result_get_max_in_flight (result), ==, 20);
  g_assert_cmpuint (anot_fake_llm_get_peak_in_flight (fixture.server), ==, 2);
  g_assert_cmpuint (anot_lwt_result_get_n_calls (result), ==, 20);
  for (guint i = 0; i < 20; i++)
    {
      char id[16];
      g_autofree char *expected = g_strdup_printf ("%u", i);

      g_snprintf (id, sizeof id, "%u", i);
      g_assert_cmpstr (anot_lwt_result_get_output (result, id), ==, expected);
    }
  g_assert_false (anot_method_context_is_backlogged (fixture.context, ANOT_DEFAULT_ROLE));

  fixture_stop (&fixture);
}

/* While one execution keeps the backend's queue full, another request's
 * execution still gets a call out at once (no run waits for the others'
 * held steps to drain), and only one: its other steps are held too.
 * Counts only, read right after each execute_async(), which issues its
 * calls before returning: no answer is read before the main loop runs
 * again, so no timing can change them (checked 20 runs out of 20 beside
 * two busy loops). */
static void
test_backlog_other_request (void)
{
  Fixture fixture = { 0 };
  g_autoptr(GString) text = g_string_new (NULL);
  g_autoptr(AnotLwtScript) script = NULL;
  g_autoptr(AnotLwtScript) other_script = NULL;
  g_autoptr(AnotLwtResult) result = NULL;
  g_autoptr(AnotLwtResult) other_result = NULL;
  g_autoptr(AnotMethodContext) other_context = NULL;
  g_autoptr(AnotLwtExecutor) other = NULL;
  g_autoptr(GAsyncResult) res = NULL;
  g_autoptr(GAsyncResult) other_res = NULL;
  g_autoptr(GError) error = NULL;
  AnotHttpBackend *backend;
  const guint n = 12;

  fixture_start (&fixture, "{\"latency_ms\": 5, \"rules\": ["
                           "  {\"match\": \"^x (\\\\d+)\", \"reply\": \"\\\\1\"},"
                           "  {\"match\": \"^y (\\\\d+)\", \"reply\": \"y\\\\1\"},"
                           "  {\"match\": \"^Sum:\", \"reply\": \"sum\"}"
                           "]}");
  backend = ANOT_HTTP_BACKEND (fixture.backend);
  anot_http_backend_set_max_concurrency (backend, 2);

  for (guint i = 0; i < n; i++)
    g_string_append_printf (text, "(%u)=LLM(\"x %u\")\n", i, i);
  g_string_append (text, "(sum)=LLM(\"Sum:");
  for (guint i = 0; i < n; i++)
    g_string_append_printf (text, " {(%u)}", i);
  g_string_append (text, "\")");
  script = parse (text->str);

  anot_lwt_executor_execute_async (fixture.executor, script, NULL, on_done, &res);
  /* Two on the wire, two waiting for them; the other eight held back. */
  g_assert_cmpuint (anot_http_backend_get_n_in_flight (backend), ==, 2);
  g_assert_cmpuint (anot_http_backend_get_n_queued (backend), ==, 2);
  g_assert_true (anot_method_context_is_backlogged (fixture.context, ANOT_DEFAULT_ROLE));

  other_context = anot_method_context_new (fixture.dataset, "R02", 1);
  anot_method_context_set_router (other_context, fixture.router);
  other = anot_lwt_executor_new (other_context);
  other_script = parse ("(a)=LLM(\"y 1\")\n(b)=LLM(\"y 2\")\n(d)=LLM(\"y 3\")\n");
  anot_lwt_executor_execute_async (other, other_script, NULL, on_done, &other_res);
  /* One of its three joins the queue, past the round waiting. */
  g_assert_cmpuint (anot_http_backend_get_n_queued (backend), ==, 3);

  while (res == NULL || other_res == NULL)
    g_main_context_iteration (NULL, TRUE);
  result = anot_lwt_executor_execute_finish (fixture.executor, res, &error);
  g_assert_no_error (error);
  other_result = anot_lwt_executor_execute_finish (other, other_res, &error);
  g_assert_no_error (error);

  /* Every step ran, once, with its own answer. */
  g_assert_cmpuint (anot_lwt_result_get_n_calls (result), ==, n + 1);
  g_assert_cmpuint (anot_lwt_result_get_n_failed (result), ==, 0);
  for (guint i = 0; i < n; i++)
    {
      g_autofree char *id = g_strdup_printf ("%u", i);

      g_assert_cmpstr (anot_lwt_result_get_output (result, id), ==, id);
    }
  g_assert_cmpstr (anot_lwt_result_get_output (result, "sum"), ==, "sum");
  g_assert_cmpuint (anot_lwt_result_get_n_calls (other_result), ==, 3);
  g_assert_cmpuint (anot_lwt_result_get_n_failed (other_result), ==, 0);
  g_assert_cmpstr (anot_lwt_result_get_output (other_result, "a"), ==, "y1");
  g_assert_cmpstr (anot_lwt_result_get_output (other_result, "d"), ==, "y3");
  g_assert_cmpuint (anot_fake_llm_get_n_requests (fixture.server), ==, n + 1 + 3);
  g_assert_cmpuint (anot_fake_llm_get_peak_in_flight (fixture.server), <=, 2);
  /* The held steps count as in flight: the figure is the script's
   * schedule (a layer of twelve), not how full the backend was. */
  g_assert_cmpuint (anot_lwt_result_get_max_in_flight (result), ==, n);
  g_assert_cmpuint (anot_lwt_result_get_max_in_flight (other_result), ==, 3);
  g_assert_cmpuint (anot_http_backend_get_n_queued (backend), ==, 0);
  g_assert_false (anot_method_context_is_backlogged (fixture.context, ANOT_DEFAULT_ROLE));

  g_clear_object (&other);
  fixture_stop (&fixture);
}

static gboolean
cancel_soon (gpointer data)
{
  g_cancellable_cancel (data);
  return G_SOURCE_REMOVE;
}

static void
test_cancel (void)
{
  Fixture fixture = { 0 };
  g_autoptr(AnotLwtScript) script = NULL;
  g_autoptr(AnotLwtResult) result = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  g_autoptr(GTimer) timer = g_timer_new ();

  /* The answers would take 30 s: returning well before says the calls
   * were cancelled, with margins no load reaches (checked 20/20 beside
   * two busy loops). */
  fixture_start (&fixture, "{\"latency_ms\": 30000, \"default_reply\": \"late\"}");
  script = parse ("(a)=LLM(\"x\")\n(b)=LLM(\"y\")\n(k)=LLM(\"{(a)}\")");
  g_timeout_add (50, cancel_soon, cancellable);
  result = execute (&fixture, script, cancellable, &error);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_assert_null (result);
  g_assert_cmpfloat (g_timer_elapsed (timer, NULL), <, 15);
  /* k was never issued. */
  g_assert_cmpuint (anot_fake_llm_get_n_requests (fixture.server), ==, 2);

  fixture_stop (&fixture);
}

/* A lenient script with a cycle still runs: the cycle last, together. */
static void
test_cycle (void)
{
  Fixture fixture = { 0 };
  g_autoptr(AnotLwtScript) script = NULL;
  g_autoptr(AnotLwtResult) result = NULL;
  g_autoptr(GError) error = NULL;

  fixture_start (&fixture, "{\"rules\": [{\"match\": \"^(\\\\w+)\", \"reply\": \"\\\\1!\"}]}");
  script = anot_lwt_script_parse ("(a)=LLM(\"first\")\n(x)=LLM(\"xx {(y)}\")\n(y)=LLM(\"yy {(x)} {(a)}\")",
                                  ANOT_LWT_PARSE_FLAGS_LENIENT, &error);
  g_assert_no_error (error);
  g_assert_true (anot_lwt_script_has_cycle (script));
  result = execute (&fixture, script, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (anot_lwt_result_get_output (result, "a"), ==, "first!");
  /* Neither waited for the other: each read the other as empty. */
  g_assert_cmpstr (anot_lwt_result_get_prompt (result, "x"), ==, "xx ");
  g_assert_cmpstr (anot_lwt_result_get_prompt (result, "y"), ==, "yy  first!");
  g_assert_cmpstr (anot_lwt_result_get_final_output (result), ==, "yy!");

  fixture_stop (&fixture);
}

static void
on_direct_done (GObject      *source,
                GAsyncResult *result,
                gpointer      user_data)
{
  guint *pending = user_data;
  g_autoptr(AnotCompletion) completion = NULL;

  completion = anot_method_context_complete_finish (ANOT_METHOD_CONTEXT (source), result, NULL);
  g_assert_nonnull (completion);
  (*pending)--;
}

/* The executor's own cost per step: n independent steps against a server
 * that answers at once, compared with the same n calls made directly
 * through the method context. */
static void
test_overhead (void)
{
  Fixture fixture = { 0 };
  g_autoptr(GString) text = g_string_new (NULL);
  g_autoptr(AnotLwtScript) script = NULL;
  g_autoptr(AnotLwtResult) result = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GTimer) timer = g_timer_new ();
  const guint n = 400;
  double lwt_ms = G_MAXDOUBLE, direct_ms = G_MAXDOUBLE;

  fixture_start (&fixture, "{\"rules\": [{\"match\": \"^s (\\\\d+)\", \"reply\": \"\\\\1\"}]}");
  for (guint i = 0; i < n; i++)
    g_string_append_printf (text, "(%u)=LLM(\"s %u {(query)}\")\n", i, i);
  script = parse (text->str);

  /* Best of three each, after a warm-up that fills the connection pool. */
  for (guint round = 0; round < 4; round++)
    {
      guint pending = n;
      g_autofree char *query = g_strdup_printf ("round %u", round);
      g_autoptr(JsonNode) value = json_node_init_string (json_node_alloc (), query);

      anot_lwt_executor_set_variable (fixture.executor, "query", value);
      g_timer_start (timer);
      g_clear_object (&result);
      result = execute (&fixture, script, NULL, &error);
      g_assert_no_error (error);
      g_assert_cmpuint (anot_lwt_result_get_n_calls (result), ==, n);
      if (round > 0)
        lwt_ms = MIN (lwt_ms, g_timer_elapsed (timer, NULL) * 1000);

      g_timer_start (timer);
      for (guint i = 0; i < n; i++)
        {
          g_autofree char *prompt = g_strdup_printf ("s %u direct %s", i, query);

          anot_method_context_complete_async (fixture.context, ANOT_DEFAULT_ROLE, NULL, prompt,
                                              NULL, on_direct_done, &pending);
        }
      while (pending > 0)
        g_main_context_iteration (NULL, TRUE);
      if (round > 0)
        direct_ms = MIN (direct_ms, g_timer_elapsed (timer, NULL) * 1000);
    }

  g_test_message ("%u calls: %.1f ms through the executor, %.1f ms directly: "
                  "%.1f µs of executor overhead per step",
                  n, lwt_ms, direct_ms, (lwt_ms - direct_ms) * 1000 / n);
  if (g_test_verbose ())
    g_printerr ("LWT executor: %.1f µs overhead per step (%u steps: %.1f ms vs %.1f ms direct)\n",
                (lwt_ms - direct_ms) * 1000 / n, n, lwt_ms, direct_ms);
  /* Generous: the executor must not cost as much as the calls themselves. */
  g_assert_cmpfloat (lwt_ms, <, direct_ms * 2 + 50);

  fixture_stop (&fixture);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);

  g_test_add_func ("/lwt-executor/layers-in-parallel", test_layers_in_parallel);
  g_test_add_func ("/lwt-executor/data-flow", test_data_flow);
  g_test_add_func ("/lwt-executor/step-failure", test_step_failure);
  g_test_add_func ("/lwt-executor/cache", test_cache);
  g_test_add_func ("/lwt-executor/variables", test_variables);
  g_test_add_func ("/lwt-executor/max-concurrent", test_max_concurrent);
  g_test_add_func ("/lwt-executor/backlog", test_backlog);
  g_test_add_func ("/lwt-executor/backlog-other-request", test_backlog_other_request);
  g_test_add_func ("/lwt-executor/cancel", test_cancel);
  g_test_add_func ("/lwt-executor/cycle", test_cycle);
  g_test_add_func ("/lwt-executor/overhead", test_overhead);

  return g_test_run ();
}
