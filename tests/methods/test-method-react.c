/* test-method-react.c: the react method end to end against the fake LLM
 * server
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <anot/anot.h>

#include "anot-fake-llm.h"
#include "anot-test-backend.h"

#include <string.h>

#define TEST_KEY "sk-anot-test-method-react"
#define N_CANDIDATES 6

/* Step 1 reads the attribute names, step 2 checks the drive-thru (its
 * observation is the real result), step 3 answers. */
static const char *trajectory_rules =
  "{\"latency_ms\": 5, \"rules\": ["
  "  {\"match\": \"Observation: \\\\{\\\"true\\\":\","
  "   \"reply\": \"Thought: item 6 has a drive-thru.\\nAction: finish(\\\"6, 2\\\")\"},"
  "  {\"match\": \"Action: union_keys\","
  "   \"reply\": \"Thought: who has a drive-thru?\\nAction: check(\\\"attributes.get('DriveThru') == True\\\")\"},"
  "  {\"match\": \"^Request:\","
  "   \"reply\": \"Thought: which attributes exist?\\nAction: union_keys(\\\"items[*].attributes\\\")\"}"
  "]}";

/* Never finishes: the forced finish answers. */
static const char *forced_rules =
  "{\"latency_ms\": 5, \"rules\": ["
  "  {\"match\": \"You have used every step\", \"reply\": \"4, 2\\\")\"},"
  "  {\"match\": \"Observation: Error: No action\","
  "   \"reply\": \"Thought: count them.\\nAction: count(\\\"items\\\")\"},"
  "  {\"match\": \"^Request:\", \"reply\": \"I am thinking about it.\"}"
  "]}";

/* The forced finish is unreadable as well. */
static const char *fallback_rules =
  "{\"latency_ms\": 5, \"rules\": ["
  "  {\"match\": \"You have used every step\", \"reply\": \"I cannot decide.\"},"
  "  {\"match\": \"^Request:\", \"reply\": \"Thought: count.\\nAction: count(\\\"items\\\")\"}"
  "]}";

typedef struct {
  AnotFakeLlm       *server;
  AnotDataset       *dataset;
  AnotBackendRouter *router;
  GPtrArray         *candidates;
  AnotRequest       *request;
  AnotMethod        *method;
} Fixture;

static void
fixture_start (Fixture    *fixture,
               const char *rules)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *demo = g_build_filename (g_getenv ("ANOT_DATA_DIR"), "demo", NULL);
  g_autoptr(AnotBackend) fallback = NULL;
  g_autoptr(AnotBackend) react = NULL;

  fixture->server = anot_test_fake_llm_start (rules, TEST_KEY);

  fallback = anot_test_backend_new (fixture->server, TEST_KEY, "default-model", 0, 0);
  react = anot_test_backend_new (fixture->server, TEST_KEY, "react-model", 0, 0);
  fixture->router = anot_backend_router_new ();
  anot_backend_router_set_route (fixture->router, ANOT_DEFAULT_ROLE, "openai", fallback, NULL);
  anot_backend_router_set_route (fixture->router, "react", "openai", react, NULL);

  fixture->dataset = anot_dataset_load (demo, NULL, &error);
  g_assert_no_error (error);
  fixture->candidates = g_ptr_array_new_with_free_func (g_object_unref);
  for (guint i = N_CANDIDATES; i-- > 0;)
    g_ptr_array_add (fixture->candidates, g_object_ref (anot_dataset_get_item (fixture->dataset, i)));
  fixture->request = g_object_ref (anot_dataset_get_request (fixture->dataset, 0));
  fixture->method = anot_registry_create_method (anot_registry_get_default (), "react", &error);
  g_assert_no_error (error);
}

static void
fixture_stop (Fixture *fixture)
{
  g_clear_object (&fixture->method);
  g_clear_object (&fixture->request);
  g_clear_pointer (&fixture->candidates, g_ptr_array_unref);
  g_clear_object (&fixture->dataset);
  g_clear_object (&fixture->router);
  g_clear_object (&fixture->server);
}

static AnotRanking *
rank (Fixture            *fixture,
      AnotMethodContext  *context,
      GError            **error)
{
  return anot_test_rank (fixture->method, fixture->request, fixture->candidates, 5, context, NULL, error);
}

static AnotMethodContext *
new_context (Fixture *fixture)
{
  AnotMethodContext *context = anot_method_context_new (fixture->dataset,
                                                        anot_request_get_id (fixture->request), 1);

  anot_method_context_set_router (context, fixture->router);
  return context;
}

static const char *
request_text (AnotFakeLlm *server,
              guint        index)
{
  return json_object_get_string_member_with_default (anot_fake_llm_get_request (server, index),
                                                     "last_user", "");
}

static void
test_trajectory (void)
{
  Fixture fixture = { 0 };
  g_autoptr(AnotMethodContext) context = NULL;
  g_autoptr(AnotRanking) ranking = NULL;
  g_autoptr(GError) error = NULL;
  JsonObject *trace;
  JsonArray *steps;
  const char *third;

  fixture_start (&fixture, trajectory_rules);
  context = new_context (&fixture);
  ranking = rank (&fixture, context, &error);
  g_assert_no_error (error);

  /* finish("6, 2"): positions 5 and 1, nothing appended. */
  g_assert_cmpuint (anot_ranking_get_length (ranking), ==, 2);
  g_assert_cmpuint (anot_ranking_get_index (ranking, 0), ==, 5);
  g_assert_cmpuint (anot_ranking_get_index (ranking, 1), ==, 1);

  /* Three calls, all of role react. */
  g_assert_cmpuint (anot_fake_llm_get_n_requests (fixture.server), ==, 3);
  for (guint i = 0; i < 3; i++)
    g_assert_cmpstr (json_object_get_string_member (anot_fake_llm_get_request (fixture.server, i), "model"),
                     ==, "react-model");

  /* Each prompt carries the request, the actions and the steps so far,
   * with the observations the core's tools produced. */
  g_assert_nonnull (strstr (request_text (fixture.server, 0), anot_request_get_text (fixture.request)));
  g_assert_nonnull (strstr (request_text (fixture.server, 0), "- search_reviews(\"keyword\"[, item]): "));
  g_assert_nonnull (strstr (request_text (fixture.server, 0), "There are 6 restaurants, items.1 to items.6."));
  third = request_text (fixture.server, 2);
  g_assert_nonnull (strstr (third, "Thought: which attributes exist?\n"
                                   "Action: union_keys(\"items[*].attributes\")\n"
                                   "Observation: [\"Alcohol\""));
  g_assert_nonnull (strstr (third, "Observation: {\"true\":["));
  {
    /* The check's observation lists the items whose file says True. */
    g_autoptr(GString) yes = g_string_new ("{\"true\":[");
    gboolean first = TRUE;

    for (guint i = 0; i < N_CANDIDATES; i++)
      if (g_strcmp0 (anot_item_get_attribute (g_ptr_array_index (fixture.candidates, i), "DriveThru"),
                     "True") == 0)
        {
          g_string_append_printf (yes, "%s%u", first ? "" : ",", i + 1);
          first = FALSE;
        }
    g_string_append (yes, "]");
    g_assert_nonnull (strstr (third, yes->str));
  }

  trace = json_node_get_object (anot_ranking_get_trace (ranking));
  g_assert_cmpstr (json_object_get_string_member (trace, "finished"), ==, "finish");
  g_assert_cmpint (json_object_get_int_member (trace, "n_steps"), ==, 3);
  g_assert_cmpint (json_object_get_int_member (trace, "n_calls"), ==, 3);
  steps = json_object_get_array_member (trace, "steps");
  g_assert_cmpuint (json_array_get_length (steps), ==, 3);
  g_assert_cmpstr (json_object_get_string_member (json_array_get_object_element (steps, 1), "action"), ==,
                   "check(\"attributes.get('DriveThru') == True\")");
  g_assert_cmpstr (json_object_get_string_member (json_array_get_object_element (steps, 2), "observation"), ==,
                   "Final answer: 6, 2");
  fixture_stop (&fixture);
}

static void
test_forced_finish (void)
{
  Fixture fixture = { 0 };
  g_autoptr(AnotMethodContext) context = NULL;
  g_autoptr(AnotRanking) ranking = NULL;
  g_autoptr(GError) error = NULL;
  JsonObject *trace;
  const char *second;
  const char *last;

  fixture_start (&fixture, forced_rules);
  context = new_context (&fixture);
  anot_method_context_set_option (context, "react.max_steps", "2");
  ranking = rank (&fixture, context, &error);
  g_assert_no_error (error);

  /* Step 1 wrote no action: step 2 sees why; then the forced finish. */
  g_assert_cmpuint (anot_fake_llm_get_n_requests (fixture.server), ==, 3);
  second = request_text (fixture.server, 1);
  g_assert_nonnull (strstr (second, "Thought: I am thinking about it.\nObservation: Error: No action found"));
  last = request_text (fixture.server, 2);
  g_assert_true (g_str_has_suffix (last, "Action: finish(\""));
  g_assert_nonnull (strstr (last, "Action: count(\"items\")\nObservation: 6\n"));

  g_assert_cmpuint (anot_ranking_get_length (ranking), ==, 2);
  g_assert_cmpuint (anot_ranking_get_index (ranking, 0), ==, 3);
  g_assert_cmpuint (anot_ranking_get_index (ranking, 1), ==, 1);
  trace = json_node_get_object (anot_ranking_get_trace (ranking));
  g_assert_cmpstr (json_object_get_string_member (trace, "finished"), ==, "forced");
  g_assert_cmpint (json_object_get_int_member (trace, "n_steps"), ==, 2);
  g_assert_cmpstr (json_object_get_string_member (
                     json_object_get_object_member (json_object_get_object_member (trace, "settings"),
                                                    "max_steps"), "source"), ==, "method option react.max_steps");
  fixture_stop (&fixture);
}

static void
test_fallback (void)
{
  Fixture fixture = { 0 };
  g_autoptr(AnotMethodContext) context = NULL;
  g_autoptr(AnotRanking) ranking = NULL;
  g_autoptr(GError) error = NULL;

  fixture_start (&fixture, fallback_rules);
  context = new_context (&fixture);
  /* The default: 5 steps, then the forced finish. */
  ranking = rank (&fixture, context, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (anot_fake_llm_get_n_requests (fixture.server), ==, 6);
  /* As the original: "1". */
  g_assert_cmpuint (anot_ranking_get_length (ranking), ==, 1);
  g_assert_cmpuint (anot_ranking_get_index (ranking, 0), ==, 0);
  g_assert_cmpstr (json_object_get_string_member (json_node_get_object (anot_ranking_get_trace (ranking)),
                                                  "finished"), ==, "fallback");
  fixture_stop (&fixture);
}

static void
test_llm_error (void)
{
  Fixture fixture = { 0 };
  g_autoptr(AnotMethodContext) context = NULL;
  g_autoptr(AnotRanking) ranking = NULL;
  g_autoptr(GError) error = NULL;

  fixture_start (&fixture, "{\"rules\": [{\"match\": \"\", \"fault\": \"400\", \"error\": \"bad model\"}]}");
  context = new_context (&fixture);
  ranking = rank (&fixture, context, &error);
  g_assert_null (ranking);
  g_assert_error (error, ANOT_ERROR, ANOT_ERROR_LLM_BAD_REQUEST);
  g_assert_true (g_str_has_prefix (error->message, "react, step 1: "));
  fixture_stop (&fixture);
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);

  g_test_add_func ("/method-react/trajectory", test_trajectory);
  g_test_add_func ("/method-react/forced-finish", test_forced_finish);
  g_test_add_func ("/method-react/fallback", test_fallback);
  g_test_add_func ("/method-react/llm-error", test_llm_error);

  return g_test_run ();
}
