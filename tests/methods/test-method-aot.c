/* test-method-aot.c: the aot method end to end against the fake LLM
 * server: a JSON-schema plan request, the repair round-trip, execution
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <anot/anot.h>

#include "anot-fake-llm.h"
#include "anot-test-backend.h"

#include <string.h>

#define TEST_KEY "sk-anot-test-aot"
#define N_CANDIDATES 5

/* The first plan reuses id 1 and calls a tool that does not exist; the
 * repaired plan (asked for after those problems) is valid. */
static const char *repair_rules =
  "{\"rules\": ["
  "  {\"match\": \"^The system cannot run that plan\","
  "   \"reply\": \"{\\\"atoms\\\": ["
  "{\\\"id\\\": 1, \\\"kind\\\": \\\"tool\\\", \\\"name\\\": \\\"llm_judge\\\", \\\"input\\\": {\\\"item\\\": \\\"*\\\", \\\"question\\\": \\\"Good for kids?\\\"}, \\\"dependsOn\\\": []},"
  "{\\\"id\\\": 2, \\\"kind\\\": \\\"tool\\\", \\\"name\\\": \\\"check_attribute\\\", \\\"input\\\": {\\\"item\\\": \\\"*\\\", \\\"attribute\\\": \\\"DriveThru\\\", \\\"expected\\\": true}, \\\"dependsOn\\\": []},"
  "{\\\"id\\\": 3, \\\"kind\\\": \\\"final\\\", \\\"name\\\": \\\"rank\\\", \\\"input\\\": {\\\"scores\\\": [\\\"$1\\\", \\\"$2\\\"], \\\"weights\\\": [1, 0]}, \\\"dependsOn\\\": [1, 2]}"
  "]}\"},"
  "  {\"match\": \"^Write an Atom of Thought plan\","
  "   \"reply\": \"```json\\n{\\\"atoms\\\": ["
  "{\\\"id\\\": 1, \\\"kind\\\": \\\"tool\\\", \\\"name\\\": \\\"llm_judge\\\", \\\"input\\\": {\\\"item\\\": \\\"*\\\", \\\"question\\\": \\\"Good for kids?\\\"}, \\\"dependsOn\\\": []},"
  "{\\\"id\\\": 1, \\\"kind\\\": \\\"tool\\\", \\\"name\\\": \\\"drive_thru_check\\\", \\\"input\\\": {}, \\\"dependsOn\\\": []},"
  "{\\\"id\\\": 3, \\\"kind\\\": \\\"final\\\", \\\"name\\\": \\\"rank\\\", \\\"input\\\": {\\\"scores\\\": [\\\"$1\\\"]}, \\\"dependsOn\\\": [1]}"
  "]}\\n```\"},"
  "  {\"match\": \"^Question about one item: Good for kids\\\\?\\\\n\\\\nITEM 4:\", \"reply\": \"9\"},"
  "  {\"match\": \"^Question about one item: Good for kids\\\\?\\\\n\\\\nITEM 2:\", \"reply\": \"9\"},"
  "  {\"match\": \"^Question about one item: Good for kids\\\\?\\\\n\\\\nITEM (\\\\d):\", \"reply\": \"Score: \\\\1\"}"
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
  g_autoptr(AnotBackend) backend = NULL;

  fixture->server = anot_test_fake_llm_start (rules, TEST_KEY);

  backend = anot_test_backend_new (fixture->server, TEST_KEY, "fake", 0, 0);
  fixture->router = anot_backend_router_new ();
  anot_backend_router_set_route (fixture->router, ANOT_DEFAULT_ROLE, "openai", backend, NULL);

  fixture->dataset = anot_dataset_load (demo, NULL, &error);
  g_assert_no_error (error);
  fixture->candidates = g_ptr_array_new_with_free_func (g_object_unref);
  for (guint i = 0; i < N_CANDIDATES; i++)
    g_ptr_array_add (fixture->candidates, g_object_ref (anot_dataset_get_item (fixture->dataset, i)));
  fixture->request = g_object_ref (anot_dataset_get_request (fixture->dataset, 0));
  fixture->method = anot_registry_create_method (anot_registry_get_default (), "aot", &error);
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
  return anot_test_rank (fixture->method, fixture->request, fixture->candidates, 3, context, NULL, error);
}

static AnotMethodContext *
new_context (Fixture *fixture)
{
  AnotMethodContext *context = anot_method_context_new (fixture->dataset,
                                                        anot_request_get_id (fixture->request), 1);

  anot_method_context_set_router (context, fixture->router);
  return context;
}

static JsonObject *
request_body (AnotFakeLlm *server,
              guint        index)
{
  return json_object_get_object_member (anot_fake_llm_get_request (server, index), "body");
}

static void
test_repair_round_trip (void)
{
  Fixture fixture = { 0 };
  g_autoptr(AnotMethodContext) context = NULL;
  g_autoptr(AnotRanking) ranking = NULL;
  g_autoptr(GError) error = NULL;
  JsonObject *first, *second;
  JsonArray *messages;
  JsonObject *trace, *planning;
  JsonArray *attempts;
  /* Judge scores 1, 9, 3, 9, 5: items 2 and 4 tie and keep their order. */
  const guint expected[] = { 1, 3, 4, 2, 0 };

  fixture_start (&fixture, repair_rules);
  context = new_context (&fixture);
  ranking = rank (&fixture, context, &error);
  g_assert_no_error (error);

  for (guint r = 0; r < N_CANDIDATES; r++)
    g_assert_cmpuint (anot_ranking_get_index (ranking, r), ==, expected[r]);

  /* 2 planning calls, then one judge call per item. */
  g_assert_cmpuint (anot_fake_llm_get_n_requests (fixture.server), ==, 2 + N_CANDIDATES);

  /* The first request asked for a JSON-schema answer. */
  first = request_body (fixture.server, 0);
  g_assert_nonnull (first);
  {
    JsonObject *format = json_object_get_object_member (first, "response_format");
    JsonObject *schema = json_object_get_object_member (json_object_get_object_member (format, "json_schema"),
                                                        "schema");

    g_assert_cmpstr (json_object_get_string_member (format, "type"), ==, "json_schema");
    g_assert_true (json_object_has_member (json_object_get_object_member (schema, "properties"), "atoms"));
  }
  messages = json_object_get_array_member (first, "messages");
  g_assert_cmpuint (json_array_get_length (messages), ==, 2);
  {
    const char *prompt = json_object_get_string_member (json_array_get_object_element (messages, 1), "content");

    /* The prompt lists the tools and the items' attributes. */
    g_assert_nonnull (strstr (prompt, "- llm_judge (tool): "));
    g_assert_nonnull (strstr (prompt, "- rank (final): "));
    g_assert_nonnull (strstr (prompt, "- DriveThru: "));
    g_assert_nonnull (strstr (prompt, anot_request_get_text (fixture.request)));
  }

  /* The repair continues the conversation: the bad plan as the
   * assistant's turn, then its problems. */
  second = request_body (fixture.server, 1);
  messages = json_object_get_array_member (second, "messages");
  g_assert_cmpuint (json_array_get_length (messages), ==, 4);
  g_assert_cmpstr (json_object_get_string_member (json_array_get_object_element (messages, 2), "role"), ==,
                   "assistant");
  g_assert_nonnull (strstr (json_object_get_string_member (json_array_get_object_element (messages, 2), "content"),
                            "drive_thru_check"));
  {
    const char *repair = json_object_get_string_member (json_array_get_object_element (messages, 3), "content");

    g_assert_true (g_str_has_prefix (repair, "The system cannot run that plan:\n- "));
    g_assert_nonnull (strstr (repair, "Duplicate atom id 1"));
    g_assert_nonnull (strstr (repair, "unknown tool “drive_thru_check”"));
  }

  /* The trace keeps both attempts, the plan run and every atom. */
  trace = json_node_get_object (anot_ranking_get_trace (ranking));
  planning = json_object_get_object_member (trace, "planning");
  attempts = json_object_get_array_member (planning, "attempts");
  g_assert_cmpuint (json_array_get_length (attempts), ==, 2);
  g_assert_cmpuint (json_array_get_length (json_object_get_array_member (json_array_get_object_element (attempts, 0),
                                                                         "problems")), ==, 2);
  g_assert_cmpuint (json_array_get_length (json_object_get_array_member (json_array_get_object_element (attempts, 1),
                                                                         "problems")), ==, 0);
  {
    JsonObject *execution = json_object_get_object_member (trace, "execution");
    JsonArray *order = json_object_get_array_member (execution, "order");

    g_assert_cmpuint (json_array_get_length (order), ==, 3);
    g_assert_cmpstr (json_array_get_string_element (order, 2), ==, "3");
    g_assert_cmpint (json_object_get_int_member (execution, "n_calls"), ==, N_CANDIDATES);
    g_assert_cmpint (json_object_get_int_member (execution, "max_in_flight"), ==, N_CANDIDATES);
  }

  fixture_stop (&fixture);
}

/* A model that never writes a valid plan fails the request, saying why. */
static void
test_repair_fails (void)
{
  Fixture fixture = { 0 };
  g_autoptr(AnotMethodContext) context = NULL;
  g_autoptr(AnotRanking) ranking = NULL;
  g_autoptr(GError) error = NULL;

  fixture_start (&fixture, "{\"default_reply\": \"{\\\"atoms\\\": [{\\\"id\\\": 1, \\\"name\\\": \\\"count\\\", \\\"input\\\": {\\\"path\\\": \\\"items\\\"}}]}\"}");
  context = new_context (&fixture);
  ranking = rank (&fixture, context, &error);
  g_assert_null (ranking);
  g_assert_error (error, ANOT_ERROR, ANOT_ERROR_METHOD_FAILED);
  g_assert_nonnull (strstr (error->message, "no valid plan in 2 attempts"));
  g_assert_nonnull (strstr (error->message, "The plan has no final atom"));
  g_assert_cmpuint (anot_fake_llm_get_n_requests (fixture.server), ==, 2);
  g_clear_error (&error);
  g_clear_object (&context);

  /* Without repairs, one attempt; a reply without JSON is a problem too. */
  anot_fake_llm_clear_requests (fixture.server);
  g_assert_true (anot_fake_llm_set_rules_json (fixture.server, "{\"default_reply\": \"I would rank by kids first.\"}",
                                               &error));
  context = new_context (&fixture);
  anot_method_context_set_option (context, "aot.max_repairs", "0");
  anot_method_context_set_option (context, "aot.json_schema", "false");
  ranking = rank (&fixture, context, &error);
  g_assert_null (ranking);
  g_assert_error (error, ANOT_ERROR, ANOT_ERROR_METHOD_FAILED);
  g_assert_nonnull (strstr (error->message, "holds no JSON plan"));
  g_assert_cmpuint (anot_fake_llm_get_n_requests (fixture.server), ==, 1);
  g_assert_false (json_object_has_member (request_body (fixture.server, 0), "response_format"));

  fixture_stop (&fixture);
}

static void
test_bad_options (void)
{
  Fixture fixture = { 0 };
  const char *cases[][2] = {
    { "aot.max_repairs", "lots" },
    { "aot.max_repairs", "11" },
    { "aot.json_schema", "maybe" },
  };

  fixture_start (&fixture, "{}");
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(AnotMethodContext) context = new_context (&fixture);
      g_autoptr(AnotRanking) ranking = NULL;
      g_autoptr(GError) error = NULL;

      anot_method_context_set_option (context, cases[i][0], cases[i][1]);
      ranking = rank (&fixture, context, &error);
      g_assert_null (ranking);
      g_assert_error (error, ANOT_ERROR, ANOT_ERROR_INVALID_ARGUMENT);
      g_assert_nonnull (strstr (error->message, cases[i][0]));
    }
  g_assert_cmpuint (anot_fake_llm_get_n_requests (fixture.server), ==, 0);
  fixture_stop (&fixture);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);

  g_test_add_func ("/method-aot/repair-round-trip", test_repair_round_trip);
  g_test_add_func ("/method-aot/repair-fails", test_repair_fails);
  g_test_add_func ("/method-aot/bad-options", test_bad_options);

  return g_test_run ();
}
