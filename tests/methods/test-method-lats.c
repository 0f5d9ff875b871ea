/* test-method-lats.c: the lats method end to end against the fake LLM
 * server: a scripted search that must backtrack, per-phase routing seen at
 * the server, every stop reason, concurrency, settings and the command line
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <anot/anot.h>

#include "anot-fake-llm.h"
#include "anot-test-backend.h"
#include "anot-test-cli.h"
#include "anot-test-data.h"

#include <math.h>
#include <string.h>

#define TEST_KEY "sk-anot-test-method-lats"
#define N_CANDIDATES 6
#define LATENCY_MS 30

typedef struct {
  const char *match;
  const char *reply;
  int         latency_ms;      /* 0: the default */
  const char *fault;
} Rule;

/* The scripted search (beam width 2, mean backpropagation, √2):
 *
 *  iteration 1: the root gives A = sample(HasTV) (0.7) and B = check(DriveThru) (0.6);
 *  iteration 2: UCT picks A (1.877 against 1.777); its children are a wrong
 *               final answer (0.1, with a reflection) and count (0.1);
 *  iteration 3: A has fallen to 0.3 (UCT 1.261), B is at 2.265: the search
 *               backtracks to B, whose final answer "6, 1" is judged 0.95,
 *               a solution.
 *
 * Item 6 is the gold: the candidates are the demo's first six, reversed. */
static const Rule backtrack_rules[] = {
  { "^Propose.*Action: check.*option 1 of", "Thought: item 6 has a drive-thru and no TV.\nAction: finish(\"6, 1\")" },
  { "^Propose.*Action: check.*option 2 of", "Thought: look at item 6.\nAction: keys(\"items[6].attributes\")" },
  { "^Propose.*Action: sample.*option 1 of", "Thought: items 2 and 3 have no TV.\nAction: finish(\"2, 3\")" },
  { "^Propose.*Action: sample.*option 2 of", "Thought: how many are there?\nAction: count(\"items\")" },
  { "^Propose.*option 1 of", "Thought: who has a TV?\nAction: sample(\"items[*].attributes.HasTV\")" },
  { "^Propose.*option 2 of", "Thought: who has a drive-thru?\nAction: check(\"attributes.get('DriveThru') == True\")" },
  { "^Evaluate.*Latest step:.*Action: finish\\(\"6", "{\"value\": 0.95, \"reflection\": \"\", \"ranking\": [6, 1]}" },
  { "^Evaluate.*Latest step:.*Action: finish",
    "{\"value\": 0.1, \"reflection\": \"HasTV alone does not settle it: check the drive-thru first\", \"ranking\": [2, 3]}" },
  { "^Evaluate.*Latest step:.*Action: count", "{\"value\": 0.1, \"reflection\": \"counting says nothing\"}" },
  { "^Evaluate.*Latest step:.*Action: keys", "{\"value\": 0.5, \"reflection\": \"\"}" },
  { "^Evaluate.*Latest step:.*Action: sample", "{\"value\": 0.7, \"reflection\": \"\", \"ranking\": [2, 3]}" },
  { "^Evaluate.*Latest step:.*Action: check", "Here it is: {\"value\": 0.6, \"reflection\": \"\", \"ranking\": [6]}" },
  { "^Choose which partial search", "SELECT: 2" },
};

static char *
rules_json (const Rule *rules,
            guint       n_rules,
            const Rule *extra,
            guint       n_extra)
{
  g_autoptr(JsonBuilder) builder = json_builder_new ();
  g_autoptr(JsonNode) root = NULL;

  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "latency_ms");
  json_builder_add_int_value (builder, LATENCY_MS);
  json_builder_set_member_name (builder, "default_reply");
  json_builder_add_string_value (builder, "no rule matched");
  json_builder_set_member_name (builder, "rules");
  json_builder_begin_array (builder);
  for (guint pass = 0; pass < 2; pass++)
    {
      const Rule *list = pass == 0 ? extra : rules;
      guint n = pass == 0 ? n_extra : n_rules;

      for (guint i = 0; i < n; i++)
        {
          json_builder_begin_object (builder);
          json_builder_set_member_name (builder, "match");
          json_builder_add_string_value (builder, list[i].match);
          if (list[i].reply != NULL)
            {
              json_builder_set_member_name (builder, "reply");
              json_builder_add_string_value (builder, list[i].reply);
            }
          if (list[i].latency_ms > 0)
            {
              json_builder_set_member_name (builder, "latency_ms");
              json_builder_add_int_value (builder, list[i].latency_ms);
            }
          if (list[i].fault != NULL)
            {
              json_builder_set_member_name (builder, "fault");
              json_builder_add_string_value (builder, list[i].fault);
            }
          json_builder_end_object (builder);
        }
    }
  json_builder_end_array (builder);
  json_builder_end_object (builder);
  root = json_builder_get_root (builder);
  return json_to_string (root, FALSE);
}

typedef struct {
  AnotFakeLlm       *server;
  AnotDataset       *dataset;
  AnotBackendRouter *router;
  GPtrArray         *candidates;
  AnotRequest       *request;
  AnotMethod        *method;
  GOutputStream     *log_stream;
  guint              gold;
} Fixture;

static AnotBackend *
new_backend (AnotFakeLlm *server,
             const char  *model)
{
  return anot_test_backend_new (server, TEST_KEY, model, 1, 20000);
}

/* @extra rules come before the scenario's. */
static void
fixture_start_with (Fixture    *fixture,
                    const Rule *extra,
                    guint       n_extra)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *demo = g_build_filename (g_getenv ("ANOT_DATA_DIR"), "demo", NULL);
  g_autofree char *rules = rules_json (backtrack_rules, G_N_ELEMENTS (backtrack_rules), extra, n_extra);
  g_autoptr(AnotBackend) backend = NULL;
  const char *gold_id;

  fixture->server = anot_test_fake_llm_start (rules, TEST_KEY);

  backend = new_backend (fixture->server, "lats-model");
  fixture->router = anot_backend_router_new ();
  anot_backend_router_set_route (fixture->router, ANOT_DEFAULT_ROLE, "openai", backend, NULL);

  fixture->dataset = anot_dataset_load (demo, NULL, &error);
  g_assert_no_error (error);
  fixture->candidates = g_ptr_array_new_with_free_func (g_object_unref);
  for (guint i = N_CANDIDATES; i-- > 0;)
    g_ptr_array_add (fixture->candidates, g_object_ref (anot_dataset_get_item (fixture->dataset, i)));
  fixture->request = g_object_ref (anot_dataset_get_request (fixture->dataset, 0));

  gold_id = anot_request_get_gold_item_id (fixture->request);
  fixture->gold = G_MAXUINT;
  for (guint i = 0; i < N_CANDIDATES; i++)
    if (g_strcmp0 (anot_item_get_id (g_ptr_array_index (fixture->candidates, i)), gold_id) == 0)
      fixture->gold = i;
  /* The scenario's replies name item 6 as the answer. */
  g_assert_cmpuint (fixture->gold, ==, 5);

  fixture->method = anot_registry_create_method (anot_registry_get_default (), "lats", &error);
  g_assert_no_error (error);
  fixture->log_stream = g_memory_output_stream_new_resizable ();
}

static void
fixture_start (Fixture *fixture)
{
  fixture_start_with (fixture, NULL, 0);
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
  g_clear_object (&fixture->log_stream);
}

/* A context with beam width 2 and the given NULL-terminated options. */
static AnotMethodContext *
new_context (Fixture    *fixture,
             const char *first_option,
             ...)
{
  AnotMethodContext *context = anot_method_context_new (fixture->dataset,
                                                        anot_request_get_id (fixture->request), 7);
  g_autoptr(AnotDebugLog) log = anot_debug_log_new_for_stream (fixture->log_stream,
                                                               ANOT_DEBUG_LEVEL_VERBOSE);
  va_list args;

  anot_method_context_set_router (context, fixture->router);
  anot_method_context_set_debug_log (context, log);
  anot_method_context_set_option (context, "lats.beam_width", "2");
  va_start (args, first_option);
  for (const char *key = first_option; key != NULL; key = va_arg (args, const char *))
    anot_method_context_set_option (context, key, va_arg (args, const char *));
  va_end (args);
  return context;
}

static AnotRanking *
rank (Fixture            *fixture,
      AnotMethodContext  *context,
      GCancellable       *cancellable,
      GError            **error)
{
  return anot_test_rank (fixture->method, fixture->request, fixture->candidates, 5, context, cancellable, error);
}

static JsonObject *
trace_of (AnotRanking *ranking)
{
  JsonNode *trace = anot_ranking_get_trace (ranking);

  g_assert_nonnull (trace);
  return json_node_get_object (trace);
}

static JsonObject *
tree_node (JsonObject *trace,
           guint       id)
{
  JsonArray *nodes = json_object_get_array_member (json_object_get_object_member (trace, "tree"), "nodes");

  return json_array_get_object_element (nodes, id);
}

static JsonObject *
iteration (JsonObject *trace,
           guint       index)
{
  return json_array_get_object_element (json_object_get_array_member (trace, "iteration_log"), index);
}

static void
assert_ranking (AnotRanking *ranking,
                const guint *expected,
                guint        n)
{
  g_assert_cmpuint (anot_ranking_get_length (ranking), ==, n);
  for (guint i = 0; i < n; i++)
    g_assert_cmpuint (anot_ranking_get_index (ranking, i), ==, expected[i]);
}

/* ------------------------------------------------------------------------ */

static void
test_backtrack (void)
{
  Fixture fixture = { 0 };
  g_autoptr(AnotMethodContext) context = NULL;
  g_autoptr(AnotRanking) ranking = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *tree_path = g_build_filename (g_get_user_data_dir (), "trees.jsonl", NULL);
  g_autofree char *tree_text = NULL;
  JsonObject *trace, *a, *b, *a1, *b1, *phases, *expansion;
  JsonArray *best_path;
  const guint expected[] = { 5, 0 };
  const char *b_prompt = NULL;

  g_mkdir_with_parents (g_get_user_data_dir (), 0700);
  fixture_start (&fixture);
  context = new_context (&fixture, "lats.tree_file", tree_path, NULL);
  ranking = rank (&fixture, context, NULL, &error);
  g_assert_no_error (error);

  /* The gold first: the answer of the branch reached by backtracking. */
  assert_ranking (ranking, expected, G_N_ELEMENTS (expected));
  g_assert_cmpuint (anot_ranking_get_index (ranking, 0), ==, fixture.gold);
  g_assert_cmpstr (anot_ranking_get_raw_response (ranking), ==, "finish(\"6, 1\")");

  trace = trace_of (ranking);
  g_assert_cmpstr (json_object_get_string_member (trace, "stop_reason"), ==, "solution");
  g_assert_true (json_object_get_boolean_member (trace, "solution_found"));
  g_assert_cmpstr (json_object_get_string_member (trace, "answer_source"), ==, "solution");
  g_assert_cmpint (json_object_get_int_member (trace, "iterations"), ==, 3);
  g_assert_cmpint (json_object_get_int_member (trace, "nodes"), ==, 7);
  g_assert_cmpint (json_object_get_int_member (trace, "nodes_expanded"), ==, 3);
  g_assert_cmpint (json_object_get_int_member (trace, "tree_depth"), ==, 2);
  g_assert_cmpint (json_object_get_int_member (trace, "calls_used"), ==, 12);
  g_assert_cmpuint (anot_fake_llm_get_n_requests (fixture.server), ==, 12);
  g_assert_cmpuint (anot_test_count_requests (fixture.server, "Propose the next step", NULL), ==, 6);
  g_assert_cmpuint (anot_test_count_requests (fixture.server, "Evaluate a partial search", NULL), ==, 6);

  /* Nodes: 1 = A (sample), 2 = B (check), 3 = A's final answer, 4 = count,
   * 5 = B's final answer, 6 = keys. */
  a = tree_node (trace, 1);
  b = tree_node (trace, 2);
  a1 = tree_node (trace, 3);
  b1 = tree_node (trace, 5);
  g_assert_cmpstr (json_object_get_string_member (a, "action"), ==, "sample(\"items[*].attributes.HasTV\")");
  g_assert_cmpstr (json_object_get_string_member (b, "action"), ==,
                   "check(\"attributes.get('DriveThru') == True\")");
  g_assert_cmpstr (json_object_get_string_member (a1, "action"), ==, "finish(\"2, 3\")");
  g_assert_cmpstr (json_object_get_string_member (b1, "action"), ==, "finish(\"6, 1\")");
  /* Mean backpropagation: A = (0.7 + 0.1 + 0.1) / 3, B = (0.6 + 0.95 + 0.5) / 3. */
  g_assert_cmpfloat_with_epsilon (json_object_get_double_member (a, "value"), 0.3, 1e-9);
  g_assert_cmpint (json_object_get_int_member (a, "visits"), ==, 3);
  g_assert_cmpfloat_with_epsilon (json_object_get_double_member (b, "value"), (0.6 + 0.95 + 0.5) / 3, 1e-9);
  g_assert_true (json_object_get_boolean_member (a1, "terminal"));
  g_assert_false (json_object_get_boolean_member (a1, "solution"));
  g_assert_cmpstr (json_object_get_string_member (a1, "reflection"), ==,
                   "HasTV alone does not settle it: check the drive-thru first");
  g_assert_true (json_object_get_boolean_member (b1, "solution"));
  /* Observations are what the core's tools returned. */
  g_assert_true (g_str_has_prefix (json_object_get_string_member (b, "observation"), "{\"true\":["));
  g_assert_cmpstr (json_object_get_string_member (b1, "observation"), ==, "Final answer: 6, 1");

  /* Iterations: the root, A, then back to B. */
  g_assert_cmpint (json_object_get_int_member (iteration (trace, 0), "selected"), ==, 0);
  g_assert_cmpint (json_object_get_int_member (iteration (trace, 1), "selected"), ==, 1);
  g_assert_cmpint (json_object_get_int_member (iteration (trace, 2), "selected"), ==, 2);
  g_assert_cmpfloat_with_epsilon (json_object_get_double_member (iteration (trace, 1), "uct"),
                                  0.7 + G_SQRT2 * sqrt (log (2)), 1e-9);
  g_assert_cmpfloat_with_epsilon (json_object_get_double_member (iteration (trace, 2), "uct"),
                                  0.6 + G_SQRT2 * sqrt (log (4)), 1e-9);

  /* The failed answer's reflection reached B's expansion prompts. */
  for (guint i = 0; i < anot_fake_llm_get_n_requests (fixture.server); i++)
    {
      const char *text = json_object_get_string_member_with_default (
        anot_fake_llm_get_request (fixture.server, i), "last_user", "");

      if (g_str_has_prefix (text, "Propose") && strstr (text, "Action: check") != NULL)
        b_prompt = text;
    }
  g_assert_nonnull (b_prompt);
  /* Newest first. */
  g_assert_nonnull (strstr (b_prompt, "Lessons from earlier attempts that failed:\n"
                                      "- counting says nothing (after count(\"items\"))\n"
                                      "- HasTV alone does not settle it: check the drive-thru first "
                                      "(after finish(\"2, 3\"))\n"));

  best_path = json_object_get_array_member (trace, "best_path");
  g_assert_cmpuint (json_array_get_length (best_path), ==, 3);
  g_assert_cmpint (json_object_get_int_member (json_array_get_object_element (best_path, 1), "node"), ==, 2);
  g_assert_cmpint (json_object_get_int_member (json_array_get_object_element (best_path, 2), "node"), ==, 5);

  /* Per phase: 6 expansions and 6 evaluations, no selection call; each
   * phase's calls were in flight together. */
  phases = json_object_get_object_member (trace, "phases");
  expansion = json_object_get_object_member (phases, "expansion");
  g_assert_cmpint (json_object_get_int_member (expansion, "calls"), ==, 6);
  g_assert_cmpint (json_object_get_int_member (json_object_get_object_member (phases, "evaluation"), "calls"), ==, 6);
  g_assert_cmpint (json_object_get_int_member (json_object_get_object_member (phases, "selection"), "calls"), ==, 0);
  g_assert_cmpint (json_object_get_int_member (expansion, "prompt_tokens"), >, 0);
  g_assert_cmpstr (json_object_get_string_member (expansion, "model"), ==, "lats-model");
  g_assert_cmpfloat (json_object_get_double_member (expansion, "wall_ms"), <,
                     json_object_get_double_member (expansion, "latency_ms"));
  g_assert_cmpuint (anot_fake_llm_get_peak_in_flight (fixture.server), ==, 2);
  g_assert_cmpint (json_object_get_int_member (
                     json_object_get_object_member (json_object_get_object_member (trace, "roles"),
                                                    "lats.evaluation"), "calls"), ==, 6);
  g_assert_cmpint (json_object_get_int_member (trace, "tokens"), ==,
                   json_object_get_int_member (trace, "prompt_tokens") +
                   json_object_get_int_member (trace, "completion_tokens"));

  /* The tree file for notebooks: one line per request. */
  g_assert_true (g_file_get_contents (tree_path, &tree_text, NULL, NULL));
  {
    g_autoptr(JsonParser) parser = json_parser_new ();
    JsonObject *row;

    g_assert_cmpuint (strlen (tree_text), >, 0);
    g_assert_true (g_str_has_suffix (tree_text, "\n"));
    g_assert_null (strchr (tree_text, '\n') + 1 == tree_text + strlen (tree_text) ? NULL : "two lines");
    g_assert_true (json_parser_load_from_data (parser, tree_text, -1, NULL));
    row = json_node_get_object (json_parser_get_root (parser));
    g_assert_cmpstr (json_object_get_string_member (row, "request_id"), ==, "R01");
    g_assert_cmpstr (json_object_get_string_member (row, "stop_reason"), ==, "solution");
    g_assert_cmpint (json_object_get_int_member (json_object_get_object_member (row, "tree"), "n_nodes"), ==, 7);
  }

  /* ANOT_DEBUG summary lines. */
  {
    GMemoryOutputStream *stream = G_MEMORY_OUTPUT_STREAM (fixture.log_stream);
    g_autofree char *log = g_strndup (g_memory_output_stream_get_data (stream),
                                      g_memory_output_stream_get_data_size (stream));

    g_assert_nonnull (strstr (log, "iteration 3: expanded node 2 (depth 1): 5=0.95 (solution), 6=0.50"));
    g_assert_nonnull (strstr (log, "stopped (solution) after 3 iteration(s), 7 node(s), depth 2, 12 call(s)"));
  }

  fixture_stop (&fixture);
}

/* Without exploration (weight 0), iteration 3 follows the values alone:
 * with mean backpropagation A has fallen to 0.3 and B (0.6) is expanded;
 * with max backpropagation A keeps 0.7 and the descent stays in A, on its
 * unfinished child (node 4, count). */
static void
test_backprop_modes (void)
{
  const struct { const char *mode; gint64 third; double a_value; } cases[] = {
    { "mean", 2, 0.3 },
    { "max", 4, 0.7 },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      Fixture fixture = { 0 };
      g_autoptr(AnotMethodContext) context = NULL;
      g_autoptr(AnotRanking) ranking = NULL;
      g_autoptr(GError) error = NULL;
      JsonObject *trace;

      fixture_start (&fixture);
      context = new_context (&fixture, "lats.backprop", cases[i].mode, "lats.exploration_weight", "0",
                             "lats.max_iterations", "3", NULL);
      ranking = rank (&fixture, context, NULL, &error);
      g_assert_no_error (error);
      trace = trace_of (ranking);
      g_assert_cmpfloat_with_epsilon (json_object_get_double_member (tree_node (trace, 1), "value"),
                                      cases[i].a_value, 1e-9);
      g_assert_cmpint (json_object_get_int_member (iteration (trace, 1), "selected"), ==, 1);
      g_assert_cmpint (json_object_get_int_member (iteration (trace, 2), "selected"), ==, cases[i].third);
      g_assert_cmpstr (json_object_get_string_member (trace, "stop_reason"), ==,
                       cases[i].third == 2 ? "solution" : "max_iterations");
      fixture_stop (&fixture);
    }
}

static void
test_unvisited_first (void)
{
  /* B's evaluation fails: B is never visited, so it is expanded next
   * although A's value is higher. */
  static const Rule fail_b[] = {
    { "^Evaluate.*Latest step:.*Action: check", NULL, 0, "500" },
  };
  Fixture fixture = { 0 };
  g_autoptr(AnotMethodContext) context = NULL;
  g_autoptr(AnotRanking) ranking = NULL;
  g_autoptr(GError) error = NULL;
  JsonObject *trace;

  fixture_start_with (&fixture, fail_b, G_N_ELEMENTS (fail_b));
  context = new_context (&fixture, "lats.max_iterations", "2", NULL);
  ranking = rank (&fixture, context, NULL, &error);
  g_assert_no_error (error);
  trace = trace_of (ranking);
  g_assert_cmpint (json_object_get_int_member (trace, "failed_evaluations"), ==, 1);
  g_assert_cmpint (json_object_get_int_member (tree_node (trace, 2), "visits"), >=, 1);
  g_assert_cmpint (json_object_get_int_member (iteration (trace, 1), "selected"), ==, 2);
  g_assert_true (json_object_get_null_member (iteration (trace, 1), "uct"));
  /* B's final answer was found in iteration 2: a solution. */
  g_assert_cmpstr (json_object_get_string_member (trace, "stop_reason"), ==, "solution");
  fixture_stop (&fixture);
}

static void
test_max_iterations (void)
{
  Fixture fixture = { 0 };
  g_autoptr(AnotMethodContext) context = NULL;
  g_autoptr(AnotRanking) ranking = NULL;
  g_autoptr(GError) error = NULL;
  JsonObject *trace;
  /* A's provisional ranking "2, 3": the best partial answer. */
  const guint expected[] = { 1, 2 };

  fixture_start (&fixture);
  context = new_context (&fixture, "lats.max_iterations", "1", NULL);
  ranking = rank (&fixture, context, NULL, &error);
  g_assert_no_error (error);
  trace = trace_of (ranking);
  g_assert_cmpstr (json_object_get_string_member (trace, "stop_reason"), ==, "max_iterations");
  g_assert_false (json_object_get_boolean_member (trace, "solution_found"));
  g_assert_cmpstr (json_object_get_string_member (trace, "answer_source"), ==, "best_partial");
  g_assert_cmpint (json_object_get_int_member (trace, "answer_node"), ==, 1);
  g_assert_cmpint (json_object_get_int_member (trace, "iterations"), ==, 1);
  g_assert_cmpuint (anot_fake_llm_get_n_requests (fixture.server), ==, 4);
  assert_ranking (ranking, expected, G_N_ELEMENTS (expected));
  fixture_stop (&fixture);
}

static void
test_max_depth (void)
{
  Fixture fixture = { 0 };
  g_autoptr(AnotMethodContext) context = NULL;
  g_autoptr(AnotRanking) ranking = NULL;
  g_autoptr(GError) error = NULL;
  JsonObject *trace;

  fixture_start (&fixture);
  context = new_context (&fixture, "lats.max_depth", "1", NULL);
  ranking = rank (&fixture, context, NULL, &error);
  g_assert_no_error (error);
  trace = trace_of (ranking);
  g_assert_cmpstr (json_object_get_string_member (trace, "stop_reason"), ==, "max_depth");
  g_assert_cmpint (json_object_get_int_member (trace, "iterations"), ==, 1);
  g_assert_cmpint (json_object_get_int_member (trace, "tree_depth"), ==, 1);
  g_assert_true (json_object_get_boolean_member (json_object_get_object_member (trace, "tree"), "depth_limited"));
  g_assert_cmpuint (anot_fake_llm_get_n_requests (fixture.server), ==, 4);
  g_assert_cmpstr (json_object_get_string_member (trace, "answer_source"), ==, "best_partial");
  fixture_stop (&fixture);
}

static void
test_call_budget (void)
{
  Fixture fixture = { 0 };
  g_autoptr(AnotMethodContext) context = NULL;
  g_autoptr(AnotRanking) ranking = NULL;
  g_autoptr(GError) error = NULL;
  JsonObject *trace;

  fixture_start (&fixture);
  context = new_context (&fixture, "lats.max_calls", "5", NULL);
  ranking = rank (&fixture, context, NULL, &error);
  g_assert_no_error (error);
  trace = trace_of (ranking);
  /* 4 calls in iteration 1; iteration 2 has one call left: one
   * expansion ("option 1 of 1") and no evaluation. */
  g_assert_cmpstr (json_object_get_string_member (trace, "stop_reason"), ==, "call_budget");
  g_assert_cmpuint (anot_fake_llm_get_n_requests (fixture.server), ==, 5);
  g_assert_cmpint (json_object_get_int_member (trace, "calls_used"), ==, 5);
  g_assert_cmpint (json_object_get_int_member (trace, "n_calls"), ==, 5);
  g_assert_cmpuint (anot_test_count_requests (fixture.server, "Propose", NULL), ==, 3);
  g_assert_cmpint (json_object_get_int_member (tree_node (trace, 3), "visits"), ==, 0);
  g_assert_cmpstr (json_object_get_string_member (tree_node (trace, 3), "action"), ==, "finish(\"2, 3\")");
  g_assert_cmpint (json_object_get_int_member (trace, "nodes"), ==, 4);
  fixture_stop (&fixture);
}

static void
test_timeout (void)
{
  /* Iteration 2's expansions take 30 s; the search has 0.4 s (both
   * stretched under the sanitizers, where iteration 1 alone can take
   * longer than 0.4 s on a loaded machine).  The margin between the cut
   * and the answers is wide enough for any load (checked 20/20 beside two
   * busy loops). */
  guint scale = anot_test_time_scale ();
  const Rule slow[] = {
    { "^Propose.*Action: sample", "Thought: late.\nAction: count(\"items\")", 30000 * scale, NULL },
  };
  Fixture fixture = { 0 };
  g_autoptr(AnotMethodContext) context = NULL;
  g_autoptr(AnotRanking) ranking = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *timeout = g_strdup_printf ("%g", 0.4 * scale);
  g_autofree char *cut_by = g_strdup_printf ("lats.timeout=%g s", 0.4 * scale);
  JsonObject *trace, *expansion;
  gint64 start = g_get_monotonic_time ();
  double elapsed_ms;

  fixture_start_with (&fixture, slow, G_N_ELEMENTS (slow));
  context = new_context (&fixture, "lats.timeout", timeout, NULL);
  ranking = rank (&fixture, context, NULL, &error);
  elapsed_ms = (g_get_monotonic_time () - start) / 1000.0;
  g_assert_no_error (error);
  trace = trace_of (ranking);
  g_assert_cmpstr (json_object_get_string_member (trace, "stop_reason"), ==, "timeout");
  g_assert_cmpfloat (elapsed_ms, >=, 400 * scale);
  g_assert_cmpfloat (elapsed_ms, <, 15000 * scale);
  expansion = json_object_get_object_member (json_object_get_object_member (trace, "phases"), "expansion");
  g_assert_cmpint (json_object_get_int_member (expansion, "cancelled"), ==, 2);
  g_assert_cmpstr (json_object_get_string_member (trace, "answer_source"), ==, "best_partial");
  g_assert_cmpuint (anot_ranking_get_index (ranking, 0), ==, 1);
  /* The row says which limit cut it. */
  g_assert_cmpstr (anot_ranking_get_cut_by (ranking), ==, cut_by);
  fixture_stop (&fixture);
}

static void
test_exhausted (void)
{
  /* Both proposals are the same action: one child, one duplicate; then
   * the child's proposals are unreadable: nothing is left to expand. */
  static const Rule rules[] = {
    { "^Propose.*Action: count", "I would rather not." },
    { "^Propose", "Thought: count first.\nAction: count('items')" },
    { "^Evaluate", "{\"value\": 0.3}" },
  };
  Fixture fixture = { 0 };
  g_autoptr(AnotMethodContext) context = NULL;
  g_autoptr(AnotRanking) ranking = NULL;
  g_autoptr(GError) error = NULL;
  JsonObject *trace;

  fixture_start_with (&fixture, rules, G_N_ELEMENTS (rules));
  context = new_context (&fixture, NULL);
  ranking = rank (&fixture, context, NULL, &error);
  g_assert_no_error (error);
  trace = trace_of (ranking);
  g_assert_cmpstr (json_object_get_string_member (trace, "stop_reason"), ==, "exhausted");
  g_assert_cmpint (json_object_get_int_member (trace, "duplicate_actions"), ==, 1);
  g_assert_cmpint (json_object_get_int_member (trace, "invalid_actions"), ==, 2);
  g_assert_cmpint (json_object_get_int_member (trace, "iterations"), ==, 2);
  g_assert_cmpint (json_object_get_int_member (trace, "nodes"), ==, 2);
  /* No node proposed a ranking: an empty answer, and the trace says so. */
  g_assert_cmpstr (json_object_get_string_member (trace, "answer_source"), ==, "none");
  g_assert_cmpuint (anot_ranking_get_length (ranking), ==, 0);
  /* No wall-clock limit by default: nothing cut this search. */
  {
    JsonObject *timeout = json_object_get_object_member (json_object_get_object_member (trace, "settings"),
                                                         "timeout");

    g_assert_cmpfloat (json_object_get_double_member (timeout, "value"), ==, 0);
    g_assert_cmpstr (json_object_get_string_member (timeout, "source"), ==, "default");
    g_assert_null (anot_ranking_get_cut_by (ranking));
  }
  fixture_stop (&fixture);
}

/* Three backends with distinct models, one per phase; selection by the
 * model, which overrides UCT's choice. */
static void
test_phase_routing (void)
{
  Fixture fixture = { 0 };
  g_autoptr(AnotMethodContext) context = NULL;
  g_autoptr(AnotRanking) ranking = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(AnotBackend) selection = NULL;
  g_autoptr(AnotBackend) expansion = NULL;
  g_autoptr(AnotBackend) evaluation = NULL;
  JsonObject *trace, *phases;

  fixture_start (&fixture);
  g_clear_object (&fixture.router);
  {
    g_autoptr(AnotBackend) fallback = new_backend (fixture.server, "default-model");

    fixture.router = anot_backend_router_new ();
    anot_backend_router_set_route (fixture.router, ANOT_DEFAULT_ROLE, "openai", fallback, NULL);
  }
  selection = new_backend (fixture.server, "selection-model");
  expansion = new_backend (fixture.server, "expansion-model");
  evaluation = new_backend (fixture.server, "evaluation-model");
  anot_backend_router_set_route (fixture.router, "lats.selection", "openai", selection, NULL);
  anot_backend_router_set_route (fixture.router, "lats.expansion", "openai", expansion, NULL);
  anot_backend_router_set_route (fixture.router, "lats.evaluation", "openai", evaluation, NULL);

  context = new_context (&fixture, "lats.selection", "llm", NULL);
  ranking = rank (&fixture, context, NULL, &error);
  g_assert_no_error (error);

  /* Iteration 2: UCT would take A; the selection model answered 2 (B),
   * whose final answer is the solution. */
  trace = trace_of (ranking);
  g_assert_cmpstr (json_object_get_string_member (iteration (trace, 1), "selection"), ==, "llm");
  g_assert_cmpint (json_object_get_int_member (iteration (trace, 1), "selected"), ==, 2);
  g_assert_cmpstr (json_object_get_string_member (trace, "stop_reason"), ==, "solution");
  g_assert_cmpuint (anot_ranking_get_index (ranking, 0), ==, fixture.gold);

  /* Each phase went to its model, and nothing to the default. */
  g_assert_cmpuint (anot_test_count_requests (fixture.server, "Choose which partial search", "selection-model"), ==, 1);
  g_assert_cmpuint (anot_test_count_requests (fixture.server, "Propose the next step", "expansion-model"), ==, 4);
  g_assert_cmpuint (anot_test_count_requests (fixture.server, "Evaluate a partial search", "evaluation-model"), ==, 4);
  g_assert_cmpuint (anot_test_count_requests (fixture.server, "", "default-model"), ==, 0);
  g_assert_cmpuint (anot_fake_llm_get_n_requests (fixture.server), ==, 9);

  phases = json_object_get_object_member (trace, "phases");
  g_assert_cmpstr (json_object_get_string_member (json_object_get_object_member (phases, "selection"), "model"),
                   ==, "selection-model");
  g_assert_cmpstr (json_object_get_string_member (json_object_get_object_member (phases, "expansion"), "model"),
                   ==, "expansion-model");
  g_assert_cmpstr (json_object_get_string_member (json_object_get_object_member (phases, "evaluation"), "model"),
                   ==, "evaluation-model");
  g_assert_cmpint (json_object_get_int_member (json_object_get_object_member (phases, "selection"), "calls"), ==, 1);

  /* The request's usage counts each role. */
  {
    AnotUsage *usage = anot_method_context_get_usage (context);
    g_autoptr(AnotUsage) selection_usage = anot_usage_dup_role_usage (usage, "lats.selection");
    g_autoptr(AnotUsage) expansion_usage = anot_usage_dup_role_usage (usage, "lats.expansion");
    g_autoptr(AnotUsage) evaluation_usage = anot_usage_dup_role_usage (usage, "lats.evaluation");

    g_assert_cmpuint (anot_usage_get_calls (selection_usage), ==, 1);
    g_assert_cmpuint (anot_usage_get_calls (expansion_usage), ==, 4);
    g_assert_cmpuint (anot_usage_get_calls (evaluation_usage), ==, 4);
  }
  fixture_stop (&fixture);
}

/* The roles configured as a user does: the file's [role ...] sections,
 * ANOT_LATS_*_MODEL variables and --role on top; a role without settings
 * falls back to the default. */
static void
test_phase_routing_config (void)
{
  Fixture fixture = { 0 };
  g_autoptr(AnotMethodContext) context = NULL;
  g_autoptr(AnotRanking) ranking = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(AnotLlmConfig) config = anot_llm_config_new ();
  g_autofree char *url = NULL;
  g_autofree char *path = g_build_filename (g_get_user_config_dir (), "lats.ini", NULL);
  g_autofree char *key_variable = g_strdup_printf ("OPENAI_API_KEY=%s", TEST_KEY);
  const char *envp[] = { key_variable, "ANOT_LATS_EXPANSION_MODEL=env-expansion", NULL };

  fixture_start (&fixture);
  url = anot_fake_llm_get_openai_base_url (fixture.server);
  g_mkdir_with_parents (g_get_user_config_dir (), 0700);
  g_assert_true (g_file_set_contents (path,
                                      "[default]\nmodel = file-default\n\n"
                                      "[role lats.expansion]\nmodel = file-expansion\n\n"
                                      "[role lats.evaluation]\nmodel = file-evaluation\n\n"
                                      "[backend openai]\nmax_retries = 0\n\n"
                                      "[method lats]\nselection = llm\n", -1, &error));
  anot_llm_config_set_environment (config, envp);
  g_assert_true (anot_llm_config_load_file (config, path, &error));
  g_assert_true (anot_llm_config_set (config, ANOT_DEFAULT_ROLE, "backend", "openai", &error));
  g_assert_true (anot_llm_config_set (config, ANOT_DEFAULT_ROLE, "base_url", url, &error));
  g_assert_true (anot_llm_config_add_role_spec (config, "lats.selection=openai:cli-selection", &error));
  g_assert_no_error (error);
  g_clear_object (&fixture.router);
  fixture.router = anot_llm_config_create_router (config, &error);
  g_assert_no_error (error);

  /* [method lats] of the same file sets the selection mode. */
  g_setenv ("ANOT_CONFIG", path, TRUE);
  context = new_context (&fixture, NULL);
  ranking = rank (&fixture, context, NULL, &error);
  g_unsetenv ("ANOT_CONFIG");
  g_assert_no_error (error);

  g_assert_cmpuint (anot_test_count_requests (fixture.server, "Choose which partial search", "cli-selection"), ==, 1);
  g_assert_cmpuint (anot_test_count_requests (fixture.server, "Propose the next step", "env-expansion"), ==, 4);
  g_assert_cmpuint (anot_test_count_requests (fixture.server, "Evaluate a partial search", "file-evaluation"), ==, 4);
  g_assert_cmpuint (anot_fake_llm_get_n_requests (fixture.server), ==, 9);
  {
    JsonObject *settings = json_object_get_object_member (trace_of (ranking), "settings");
    JsonObject *selection = json_object_get_object_member (settings, "selection");
    g_autofree char *source = g_strdup_printf ("%s:14 [method lats]", path);

    g_assert_cmpstr (json_object_get_string_member (selection, "value"), ==, "llm");
    g_assert_cmpstr (json_object_get_string_member (selection, "source"), ==, source);
  }
  fixture_stop (&fixture);

  /* Without phase settings every phase uses the default model. */
  {
    Fixture plain = { 0 };
    g_autoptr(AnotLlmConfig) defaults = anot_llm_config_new ();
    g_autoptr(AnotMethodContext) plain_context = NULL;
    g_autoptr(AnotRanking) plain_ranking = NULL;
    g_autofree char *plain_url = NULL;
    const char *plain_envp[] = { key_variable, NULL };

    fixture_start (&plain);
    plain_url = anot_fake_llm_get_openai_base_url (plain.server);
    anot_llm_config_set_environment (defaults, plain_envp);
    g_assert_true (anot_llm_config_set (defaults, ANOT_DEFAULT_ROLE, "backend", "openai", &error));
    g_assert_true (anot_llm_config_set (defaults, ANOT_DEFAULT_ROLE, "base_url", plain_url, &error));
    g_assert_true (anot_llm_config_set (defaults, ANOT_DEFAULT_ROLE, "model", "only-model", &error));
    g_clear_object (&plain.router);
    plain.router = anot_llm_config_create_router (defaults, &error);
    g_assert_no_error (error);
    plain_context = new_context (&plain, "lats.selection", "llm", NULL);
    plain_ranking = rank (&plain, plain_context, NULL, &error);
    g_assert_no_error (error);
    g_assert_cmpuint (anot_test_count_requests (plain.server, "", "only-model"), ==, 9);
    fixture_stop (&plain);
  }
}

/* ANOT_LATS_* variables and the method options, as the method reads them
 * per request. */
static void
test_settings (void)
{
  Fixture fixture = { 0 };
  g_autoptr(AnotMethodContext) context = NULL;
  g_autoptr(AnotRanking) ranking = NULL;
  g_autoptr(GError) error = NULL;
  JsonObject *settings;

  fixture_start (&fixture);
  g_setenv ("ANOT_LATS_MAX_ITERATIONS", "1", TRUE);
  g_setenv ("ANOT_LATS_BEAM_WIDTH", "1", TRUE);
  /* The option (2, set by new_context) beats the variable (1). */
  context = new_context (&fixture, "lats.trace_tree", "false", NULL);
  ranking = rank (&fixture, context, NULL, &error);
  g_unsetenv ("ANOT_LATS_MAX_ITERATIONS");
  g_unsetenv ("ANOT_LATS_BEAM_WIDTH");
  g_assert_no_error (error);

  settings = json_object_get_object_member (trace_of (ranking), "settings");
  g_assert_cmpint (json_object_get_int_member (json_object_get_object_member (settings, "max_iterations"),
                                               "value"), ==, 1);
  g_assert_cmpstr (json_object_get_string_member (json_object_get_object_member (settings, "max_iterations"),
                                                  "source"), ==, "environment ANOT_LATS_MAX_ITERATIONS");
  g_assert_cmpint (json_object_get_int_member (json_object_get_object_member (settings, "beam_width"),
                                               "value"), ==, 2);
  g_assert_cmpfloat (json_object_get_double_member (json_object_get_object_member (settings, "exploration_weight"),
                                                    "value"), ==, G_SQRT2);
  g_assert_cmpuint (anot_fake_llm_get_n_requests (fixture.server), ==, 4);
  g_assert_false (json_object_has_member (trace_of (ranking), "tree"));

  /* A bad value fails the request with a message naming its source. */
  {
    g_autoptr(AnotMethodContext) bad = new_context (&fixture, "lats.backprop", "median", NULL);
    g_autoptr(AnotRanking) none = rank (&fixture, bad, NULL, &error);

    g_assert_null (none);
    g_assert_error (error, ANOT_ERROR, ANOT_ERROR_INVALID_ARGUMENT);
    g_assert_nonnull (strstr (error->message, "lats.backprop (from method option lats.backprop)"));
  }
  fixture_stop (&fixture);
}

static gboolean
cancel_later (gpointer user_data)
{
  g_cancellable_cancel (user_data);
  return G_SOURCE_REMOVE;
}

static void
test_cancel (void)
{
  static const Rule slow[] = {
    /* Answers in 30 s: ending well before says the search was
     * cancelled (checked 20/20 beside two busy loops). */
    { "^Propose", "Thought: late.\nAction: count(\"items\")", 30000, NULL },
  };
  Fixture fixture = { 0 };
  g_autoptr(AnotMethodContext) context = NULL;
  g_autoptr(AnotRanking) ranking = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  gint64 start = g_get_monotonic_time ();

  fixture_start_with (&fixture, slow, G_N_ELEMENTS (slow));
  context = new_context (&fixture, NULL);
  g_timeout_add (100, cancel_later, cancellable);
  ranking = rank (&fixture, context, cancellable, &error);
  g_assert_null (ranking);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_assert_cmpint (g_get_monotonic_time () - start, <, 15 * G_USEC_PER_SEC);
  fixture_stop (&fixture);
}

/* anot-run --method lats with --role and -O, on the demo benchmark. */
static void
test_cli (void)
{
  Fixture fixture = { 0 };
  g_autoptr(GSubprocess) process = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *url = NULL;
  g_autofree char *demo = g_build_filename (g_getenv ("ANOT_DATA_DIR"), "demo", NULL);
  g_autofree char *out = g_build_filename (g_get_user_data_dir (), "results", NULL);
  g_autofree char *rows_path = NULL;
  g_autofree char *contents = NULL;
  g_autoptr(JsonParser) parser = json_parser_new ();
  JsonObject *row, *by_role;

  fixture_start (&fixture);
  url = anot_fake_llm_get_openai_base_url (fixture.server);
  {
    static const char * const env[] = { "OPENAI_API_KEY=" TEST_KEY, NULL };
    const char *argv[] = {
      "run", "--method", "lats", "--data", demo, "--requests", "R01",
      "--backend", "openai", "--base-url", url, "--model", "cli-default",
      "--role", "lats.evaluation=openai:cli-evaluation", "-O", "lats.beam_width=2",
      "-O", "lats.max_iterations=1", "--candidates", "10", "--out", out, "--force", NULL,
    };

    process = anot_test_cli_spawn (G_SUBPROCESS_FLAGS_STDOUT_PIPE | G_SUBPROCESS_FLAGS_STDERR_PIPE, argv, env);
  }
  g_assert_cmpint (anot_test_cli_wait (process, NULL, NULL, NULL, NULL), ==, 0);

  g_assert_cmpuint (anot_test_count_requests (fixture.server, "Propose the next step", "cli-default"), ==, 2);
  g_assert_cmpuint (anot_test_count_requests (fixture.server, "Evaluate a partial search", "cli-evaluation"), ==, 2);

  rows_path = g_build_filename (out, "lats_demo", "clean", "run_1", "results_10.jsonl", NULL);
  g_assert_true (g_file_get_contents (rows_path, &contents, NULL, &error));
  g_assert_true (json_parser_load_from_data (parser, contents, -1, &error));
  row = json_node_get_object (json_parser_get_root (parser));
  g_assert_cmpint (json_object_get_int_member (row, "calls"), ==, 4);
  by_role = json_object_get_object_member (row, "by_role");
  g_assert_cmpint (json_object_get_int_member (json_object_get_object_member (by_role, "lats.expansion"),
                                               "calls"), ==, 2);
  g_assert_cmpint (json_object_get_int_member (json_object_get_object_member (by_role, "lats.evaluation"),
                                               "calls"), ==, 2);
  fixture_stop (&fixture);
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);

  g_test_add_func ("/method-lats/backtrack", test_backtrack);
  g_test_add_func ("/method-lats/backprop-modes", test_backprop_modes);
  g_test_add_func ("/method-lats/unvisited-first", test_unvisited_first);
  g_test_add_func ("/method-lats/stop/max-iterations", test_max_iterations);
  g_test_add_func ("/method-lats/stop/max-depth", test_max_depth);
  g_test_add_func ("/method-lats/stop/call-budget", test_call_budget);
  g_test_add_func ("/method-lats/stop/timeout", test_timeout);
  g_test_add_func ("/method-lats/stop/exhausted", test_exhausted);
  g_test_add_func ("/method-lats/phase-routing", test_phase_routing);
  g_test_add_func ("/method-lats/phase-routing-config", test_phase_routing_config);
  g_test_add_func ("/method-lats/settings", test_settings);
  g_test_add_func ("/method-lats/cancel", test_cancel);
  g_test_add_func ("/method-lats/cli", test_cli);

  return g_test_run ();
}
