/* test-plan.c: Atom of Thought plans: reading, checking and running them
 * (the judges' calls against the fake LLM server)
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <anot/anot.h>

#include "anot-fake-llm.h"
#include "anot-test-backend.h"
#include "anot-test-data.h"

#include <stdio.h>
#include <string.h>

#define TEST_KEY "sk-anot-test-plan"
#define N_CANDIDATES 6

typedef struct {
  AnotFakeLlm       *server;
  AnotDataset       *dataset;
  AnotBackendRouter *router;
  AnotMethodContext *context;
  GPtrArray         *candidates;
  AnotPlanExecutor  *executor;
} Fixture;

static void
fixture_start (Fixture    *fixture,
               const char *rules)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *demo = g_build_filename (g_getenv ("ANOT_DATA_DIR"), "demo", NULL);

  fixture->dataset = anot_dataset_load (demo, NULL, &error);
  g_assert_no_error (error);
  fixture->candidates = g_ptr_array_new_with_free_func (g_object_unref);
  for (guint i = 0; i < N_CANDIDATES; i++)
    g_ptr_array_add (fixture->candidates, g_object_ref (anot_dataset_get_item (fixture->dataset, i)));
  fixture->context = anot_method_context_new (fixture->dataset, "R01", 3);

  if (rules != NULL)
    {
      g_autoptr(AnotBackend) backend = NULL;

      fixture->server = anot_test_fake_llm_start (rules, TEST_KEY);
      backend = anot_test_backend_new (fixture->server, TEST_KEY, "fake", 0, 0);
      fixture->router = anot_backend_router_new ();
      anot_backend_router_set_route (fixture->router, ANOT_DEFAULT_ROLE, "openai", backend, NULL);
      anot_method_context_set_router (fixture->context, fixture->router);
    }

  fixture->executor = anot_plan_executor_new (fixture->context, fixture->candidates);
}

static void
fixture_stop (Fixture *fixture)
{
  g_clear_object (&fixture->executor);
  g_clear_pointer (&fixture->candidates, g_ptr_array_unref);
  g_clear_object (&fixture->context);
  g_clear_object (&fixture->router);
  g_clear_object (&fixture->dataset);
  g_clear_object (&fixture->server);
}

static AnotPlan *
plan_from (const char *text)
{
  g_autoptr(GError) error = NULL;
  AnotPlan *plan = anot_plan_parse (text, &error);

  g_assert_no_error (error);
  g_assert_nonnull (plan);
  return plan;
}

static char *
joined_problems (AnotPlanExecutor *executor,
                 const char       *text)
{
  g_autoptr(AnotPlan) plan = plan_from (text);
  g_auto(GStrv) problems = anot_plan_executor_check (executor, plan);

  return g_strjoinv ("\n", problems);
}

/* ------------------------------------------------------------------------ */

static const char *valid_plan =
  "{\"atoms\": ["
  " {\"id\": 1, \"kind\": \"tool\", \"name\": \"check_attribute\","
  "  \"input\": {\"item\": \"*\", \"attribute\": \"DriveThru\", \"expected\": true}, \"dependsOn\": []},"
  " {\"id\": 2, \"kind\": \"tool\", \"name\": \"hours_open\","
  "  \"input\": {\"item\": \"*\", \"day\": \"Sunday\", \"start\": \"09:00\", \"end\": \"11:00\"}, \"dependsOn\": []},"
  " {\"id\": 3, \"kind\": \"tool\", \"name\": \"reviews_matching\","
  "  \"input\": {\"item\": \"*\", \"pattern\": \"coffee\"}, \"dependsOn\": []},"
  " {\"id\": 4, \"kind\": \"tool\", \"name\": \"count\", \"input\": {\"path\": \"items\"}, \"dependsOn\": []},"
  " {\"id\": 5, \"kind\": \"final\", \"name\": \"rank\","
  "  \"input\": {\"scores\": [\"$1\", \"$2\", {\"ref\": 3}], \"weights\": [4, 2, 1]}, \"dependsOn\": [1, 2, 3]}"
  "]}";

static void
test_parse (void)
{
  g_autoptr(AnotPlan) plan = plan_from (valid_plan);
  g_autoptr(GError) error = NULL;

  g_assert_cmpuint (anot_plan_get_n_atoms (plan), ==, 5);
  g_assert_cmpstr (anot_plan_get_atom_id (plan, 0), ==, "1");
  g_assert_cmpstr (anot_plan_get_atom_kind (plan, 4), ==, "final");
  g_assert_cmpstr (anot_plan_get_atom_name (plan, 1), ==, "hours_open");
  g_assert_cmpstr (json_object_get_string_member (anot_plan_get_atom_input (plan, 0), "attribute"), ==,
                   "DriveThru");
  g_assert_cmpint (anot_plan_lookup_atom (plan, "4"), ==, 3);
  g_assert_cmpint (anot_plan_lookup_atom (plan, "9"), ==, -1);
  g_assert_cmpuint (g_strv_length ((GStrv) anot_plan_get_problems (plan)), ==, 0);
  {
    g_autofree char *deps = g_strjoinv (",", (GStrv) anot_plan_get_atom_dependencies (plan, 4));

    g_assert_cmpstr (deps, ==, "1,2,3");
  }

  /* In a code fence among prose; string ids, depends_on, no kind; a
   * reference adds a dependency dependsOn forgot. */
  {
    g_autoptr(AnotPlan) fenced = plan_from (
      "Here is the plan:\n```json\n[{\"id\": \"a\", \"name\": \"count\", \"input\": {\"path\": \"items\"}},"
      " {\"id\": \"b\", \"kind\": \"final\", \"name\": \"rank\", \"input\": {\"scores\": [\"$a\"]}, "
      "\"depends_on\": []}]\n```\nDone.");
    g_autofree char *deps = g_strjoinv (",", (GStrv) anot_plan_get_atom_dependencies (fenced, 1));

    g_assert_cmpuint (anot_plan_get_n_atoms (fenced), ==, 2);
    g_assert_cmpstr (anot_plan_get_atom_kind (fenced, 0), ==, "tool");
    g_assert_cmpstr (deps, ==, "a");
  }

  /* No JSON at all is the one parse failure. */
  g_assert_null (anot_plan_parse ("I would check the drive-thru first.", &error));
  g_assert_error (error, ANOT_ERROR, ANOT_ERROR_PARSE);
}

static void
test_structure_problems (void)
{
  const struct {
    const char *plan;
    const char *problem;
  } cases[] = {
    { "{\"steps\": []}", "The plan must be a JSON object with an \"atoms\" list" },
    { "{\"atoms\": []}", "The plan has no atoms" },
    { "{\"atoms\": [3]}", "Atom 1 (counting from 1) is not a JSON object" },
    { "{\"atoms\": [{\"name\": \"count\"}]}", "Atom 1 (counting from 1) has no id" },
    { "{\"atoms\": [{\"id\": 1, \"kind\": \"step\", \"name\": \"count\"}]}", "Atom 1: kind must be \"tool\" or \"final\"" },
    { "{\"atoms\": [{\"id\": 1}]}", "Atom 1 has no name" },
    { "{\"atoms\": [{\"id\": 1, \"name\": \"count\", \"input\": [1]}]}", "Atom 1: input must be a JSON object" },
    { "{\"atoms\": [{\"id\": 1, \"name\": \"count\", \"dependsOn\": 2}]}", "Atom 1: dependsOn must be a list" },
    { "{\"atoms\": [{\"id\": 1, \"name\": \"count\", \"dependsOn\": [true]}]}", "Atom 1: dependsOn[0] is not an atom id" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(AnotPlan) plan = plan_from (cases[i].plan);
      g_autofree char *problems = g_strjoinv ("\n", (GStrv) anot_plan_get_problems (plan));

      g_test_message ("%s: %s", cases[i].plan, problems);
      g_assert_nonnull (strstr (problems, cases[i].problem));
    }
}

/* Each kind of invalid plan is rejected with a message that names it. */
static void
test_check (void)
{
  Fixture fixture = { 0 };
  const struct {
    const char *atoms;
    const char *problem;
  } cases[] = {
    /* duplicate id */
    { "{\"id\": 1, \"name\": \"count\", \"input\": {\"path\": \"items\"}},"
      "{\"id\": 1, \"name\": \"llm_judge\", \"input\": {\"item\": \"*\", \"question\": \"q\"}},"
      "{\"id\": 2, \"kind\": \"final\", \"name\": \"rank\", \"input\": {\"scores\": [\"$1\"]}}",
      "Duplicate atom id 1" },
    /* unknown tool */
    { "{\"id\": 1, \"name\": \"grep\", \"input\": {}},"
      "{\"id\": 2, \"kind\": \"final\", \"name\": \"rank\", \"input\": {\"scores\": [\"$1\"]}}",
      "Atom 1 uses an unknown tool “grep” (tools: count, keys, union_keys, sample, check_attribute, "
      "has_category, hours_open, reviews_matching, llm_judge, rank)" },
    /* cycle */
    { "{\"id\": 1, \"name\": \"llm_judge\", \"input\": {\"item\": \"*\", \"question\": \"q\"}, \"dependsOn\": [2]},"
      "{\"id\": 2, \"name\": \"llm_judge\", \"input\": {\"item\": \"*\", \"question\": \"q\"}, \"dependsOn\": [1]},"
      "{\"id\": 3, \"kind\": \"final\", \"name\": \"rank\", \"input\": {\"scores\": [\"$1\", \"$2\"]}}",
      "The atoms depend on each other in a cycle: 1 → 2 → 1" },
    /* missing dependency */
    { "{\"id\": 1, \"name\": \"llm_judge\", \"input\": {\"item\": \"*\", \"question\": \"q\"}, \"dependsOn\": [9]},"
      "{\"id\": 2, \"kind\": \"final\", \"name\": \"rank\", \"input\": {\"scores\": [\"$1\", \"$7\"]}}",
      "Atom 1 depends on atom 9, which does not exist" },
    { "{\"id\": 1, \"name\": \"llm_judge\", \"input\": {\"item\": \"*\", \"question\": \"q\"}},"
      "{\"id\": 2, \"kind\": \"final\", \"name\": \"rank\", \"input\": {\"scores\": [\"$1\", \"$7\"]}}",
      "Atom 2 depends on atom 7, which does not exist" },
    { "{\"id\": 1, \"name\": \"llm_judge\", \"input\": {\"item\": \"*\", \"question\": \"q\"}, \"dependsOn\": [1]},"
      "{\"id\": 2, \"kind\": \"final\", \"name\": \"rank\", \"input\": {\"scores\": [\"$1\"]}}",
      "Atom 1 depends on itself" },
    /* typed inputs */
    { "{\"id\": 1, \"name\": \"check_attribute\", \"input\": {\"item\": 0, \"attribute\": \"WiFi\"}},"
      "{\"id\": 2, \"kind\": \"final\", \"name\": \"rank\", \"input\": {\"scores\": [\"$1\"]}}",
      "Atom 1: input “item” must be an item number from 1 to 6, or \"*\" for every item" },
    { "{\"id\": 1, \"name\": \"hours_open\", \"input\": {\"item\": 2, \"day\": \"Funday\", \"start\": \"9:00\"}},"
      "{\"id\": 2, \"kind\": \"final\", \"name\": \"rank\", \"input\": {\"scores\": [\"$1\"]}}",
      "Atom 1: input “day” must be a day of the week" },
    { "{\"id\": 1, \"name\": \"hours_open\", \"input\": {\"item\": 2, \"day\": \"Monday\", \"start\": \"25:00\"}},"
      "{\"id\": 2, \"kind\": \"final\", \"name\": \"rank\", \"input\": {\"scores\": [\"$1\"]}}",
      "Atom 1: input “start” must be a time such as \"18:30\"" },
    { "{\"id\": 1, \"name\": \"llm_judge\", \"input\": {\"item\": \"*\", \"question\": 5}},"
      "{\"id\": 2, \"kind\": \"final\", \"name\": \"rank\", \"input\": {\"scores\": [\"$1\"]}}",
      "Atom 1: input “question” must be a string" },
    { "{\"id\": 1, \"name\": \"llm_judge\", \"input\": {\"item\": \"*\"}},"
      "{\"id\": 2, \"kind\": \"final\", \"name\": \"rank\", \"input\": {\"scores\": [\"$1\"]}}",
      "Atom 1 (llm_judge) lacks the input “question” (string)" },
    { "{\"id\": 1, \"name\": \"llm_judge\", \"input\": {\"item\": \"*\", \"question\": \"q\", \"model\": \"big\"}},"
      "{\"id\": 2, \"kind\": \"final\", \"name\": \"rank\", \"input\": {\"scores\": [\"$1\"]}}",
      "Atom 1 (llm_judge) has an unexpected input “model” (inputs: item, question)" },
    { "{\"id\": 1, \"name\": \"check_attribute\", \"input\": {\"item\": \"*\", \"attribute\": \"WiFi\"}},"
      "{\"id\": 2, \"name\": \"llm_judge\", \"input\": {\"item\": \"*\", \"question\": \"$1\"}},"
      "{\"id\": 3, \"kind\": \"final\", \"name\": \"rank\", \"input\": {\"scores\": [\"$2\"]}}",
      "Atom 2: input “question” refers to atom 1 (check_attribute), which gives a result per item; expected a string" },
    { "{\"id\": 1, \"name\": \"count\", \"input\": {\"path\": \"items\"}},"
      "{\"id\": 2, \"kind\": \"final\", \"name\": \"rank\", \"input\": {\"scores\": [\"$1\"]}}",
      "Atom 2: scores[0] refers to atom 1 (count), which does not give a result per item" },
    { "{\"id\": 1, \"name\": \"llm_judge\", \"input\": {\"item\": \"*\", \"question\": \"q\"}},"
      "{\"id\": 2, \"kind\": \"final\", \"name\": \"rank\", \"input\": {\"scores\": [1]}}",
      "Atom 2: scores[0] must be a reference to an atom" },
    { "{\"id\": 1, \"name\": \"llm_judge\", \"input\": {\"item\": \"*\", \"question\": \"q\"}},"
      "{\"id\": 2, \"kind\": \"final\", \"name\": \"rank\", \"input\": {\"scores\": [\"$1\"], \"weights\": [1, 2]}}",
      "Atom 2: weights must have one number per score (1 scores, 2 weights)" },
    /* final atoms */
    { "{\"id\": 1, \"name\": \"llm_judge\", \"input\": {\"item\": \"*\", \"question\": \"q\"}}",
      "The plan has no final atom" },
    { "{\"id\": 1, \"name\": \"llm_judge\", \"input\": {\"item\": \"*\", \"question\": \"q\"}},"
      "{\"id\": 2, \"kind\": \"final\", \"name\": \"rank\", \"input\": {\"scores\": [\"$1\"]}},"
      "{\"id\": 3, \"kind\": \"final\", \"name\": \"rank\", \"input\": {\"scores\": [\"$1\"]}}",
      "The plan has 2 final atoms; it needs exactly one" },
    { "{\"id\": 1, \"name\": \"llm_judge\", \"input\": {\"item\": \"*\", \"question\": \"q\"}},"
      "{\"id\": 2, \"name\": \"rank\", \"input\": {\"scores\": [\"$1\"]}}",
      "Atom 2: rank is the final atom's tool; give the atom \"kind\": \"final\"" },
    { "{\"id\": 1, \"kind\": \"final\", \"name\": \"llm_judge\", \"input\": {\"item\": \"*\", \"question\": \"q\"}}",
      "Atom 1 is final but uses llm_judge" },
  };

  fixture_start (&fixture, NULL);
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *text = g_strdup_printf ("{\"atoms\": [%s]}", cases[i].atoms);
      g_autofree char *problems = joined_problems (fixture.executor, text);
      g_autoptr(AnotPlan) plan = plan_from (text);
      g_autoptr(GError) error = NULL;

      g_test_message ("case %u: %s", i, problems);
      g_assert_nonnull (strstr (problems, cases[i].problem));
      g_assert_false (anot_plan_executor_validate (fixture.executor, plan, &error));
      g_assert_error (error, ANOT_ERROR, ANOT_ERROR_INVALID_FIELD);
      g_assert_nonnull (strstr (error->message, cases[i].problem));
    }

  /* A valid plan has no problem. */
  {
    g_autofree char *problems = joined_problems (fixture.executor, valid_plan);

    g_assert_cmpstr (problems, ==, "");
  }
  fixture_stop (&fixture);
}

static void
on_done (GObject      *source,
         GAsyncResult *result,
         gpointer      user_data)
{
  *(GAsyncResult **) user_data = g_object_ref (result);
}

static AnotPlanResult *
execute (Fixture   *fixture,
         AnotPlan  *plan,
         GError   **error)
{
  g_autoptr(GAsyncResult) result = NULL;

  anot_plan_executor_execute_async (fixture->executor, plan, NULL, on_done, &result);
  while (result == NULL)
    g_main_context_iteration (NULL, TRUE);
  return anot_plan_executor_execute_finish (fixture->executor, result, error);
}

/* The per-item tools against the items' own data. */
static void
test_run_tools (void)
{
  Fixture fixture = { 0 };
  g_autoptr(AnotPlan) plan = NULL;
  g_autoptr(AnotPlanResult) result = NULL;
  g_autoptr(GError) error = NULL;
  JsonObject *drive_thru, *sunday, *coffee;
  double expected_scores[N_CANDIDATES];
  AnotRanking *ranking;

  fixture_start (&fixture, NULL);
  plan = plan_from (valid_plan);
  result = execute (&fixture, plan, &error);
  g_assert_no_error (error);

  drive_thru = json_node_get_object (anot_plan_result_get_atom_result (result, "1"));
  sunday = json_node_get_object (anot_plan_result_get_atom_result (result, "2"));
  coffee = json_node_get_object (anot_plan_result_get_atom_result (result, "3"));
  g_assert_cmpint (json_node_get_int (anot_plan_result_get_atom_result (result, "4")), ==, N_CANDIDATES);
  g_assert_cmpuint (json_object_get_size (drive_thru), ==, N_CANDIDATES);

  for (guint i = 0; i < N_CANDIDATES; i++)
    {
      AnotItem *item = g_ptr_array_index (fixture.candidates, i);
      g_autofree char *key = g_strdup_printf ("%u", i + 1);
      const char *raw = anot_item_get_attribute (item, "DriveThru");
      const char *hours = anot_item_get_hours (item, "Sunday");
      JsonNode *value;
      guint n_coffee = 0;
      double score = 0;

      /* check_attribute: null without the attribute, else == True. */
      value = json_object_get_member (drive_thru, key);
      if (raw == NULL || strcmp (raw, "None") == 0)
        g_assert_true (JSON_NODE_HOLDS_NULL (value));
      else
        {
          g_assert_cmpint (json_node_get_boolean (value), ==, strcmp (raw, "True") == 0);
          score += strcmp (raw, "True") == 0 ? 4 : 0;
        }

      /* hours_open 09:00-11:00, computed here from the hours text. */
      value = json_object_get_member (sunday, key);
      if (hours == NULL)
        g_assert_true (JSON_NODE_HOLDS_NULL (value));
      else
        {
          int oh, om, ch, cm;
          gboolean open;

          g_assert_cmpint (sscanf (hours, "%d:%d-%d:%d", &oh, &om, &ch, &cm), ==, 4);
          if (ch * 60 + cm <= oh * 60 + om)
            ch += 24;
          open = oh * 60 + om <= 9 * 60 && 11 * 60 <= ch * 60 + cm;
          g_assert_cmpint (json_node_get_boolean (value), ==, open);
          score += open ? 2 : 0;
        }

      /* reviews_matching, counted here. */
      for (guint r = 0; r < anot_item_get_n_reviews (item); r++)
        {
          g_autofree char *lower = g_ascii_strdown (anot_review_get_text (anot_item_get_review (item, r)), -1);

          if (strstr (lower, "coffee") != NULL)
            n_coffee++;
        }
      g_assert_cmpint (json_object_get_int_member (coffee, key), ==, n_coffee);
      score += n_coffee > 0 ? 1 : 0;
      expected_scores[i] = score;
    }

  /* The ranking: weighted sums, ties by position. */
  ranking = anot_plan_result_get_ranking (result);
  g_assert_cmpuint (anot_ranking_get_length (ranking), ==, N_CANDIDATES);
  for (guint r = 0; r < N_CANDIDATES; r++)
    {
      guint index = anot_ranking_get_index (ranking, r);

      g_assert_cmpfloat (anot_ranking_get_score (ranking, r), ==, expected_scores[index]);
      if (r > 0)
        {
          double previous = anot_ranking_get_score (ranking, r - 1);

          g_assert_cmpfloat (previous, >=, expected_scores[index]);
          if (previous == expected_scores[index])
            g_assert_cmpuint (anot_ranking_get_index (ranking, r - 1), <, index);
        }
    }

  /* The final atom ran last; the trace holds every atom. */
  {
    const char * const *order = anot_plan_result_get_order (result);
    g_autoptr(JsonNode) trace = anot_plan_result_to_json (result, 0);

    g_assert_cmpuint (g_strv_length ((GStrv) order), ==, 5);
    g_assert_cmpstr (order[4], ==, "5");
    g_assert_cmpuint (json_object_get_size (json_object_get_object_member (json_node_get_object (trace), "atoms")),
                      ==, 5);
    g_assert_cmpuint (anot_plan_result_get_n_calls (result), ==, 0);
  }

  /* check_attribute on nested attributes and without "expected". */
  {
    g_autoptr(AnotPlan) nested = plan_from (
      "{\"atoms\": [{\"id\": 1, \"name\": \"check_attribute\", \"input\": {\"item\": 1, \"attribute\": \"Ambience.casual\"}},"
      " {\"id\": 2, \"name\": \"check_attribute\", \"input\": {\"item\": 1, \"attribute\": \"WiFi\", \"expected\": \"FREE\"}},"
      " {\"id\": 3, \"name\": \"check_attribute\", \"input\": {\"item\": \"1\", \"attribute\": \"NoSuchThing\"}},"
      " {\"id\": 4, \"kind\": \"final\", \"name\": \"rank\", \"input\": {\"scores\": [\"$1\", \"$2\", \"$3\"]}}]}");
    g_autoptr(AnotPlanResult) nested_result = execute (&fixture, nested, &error);
    AnotItem *first = g_ptr_array_index (fixture.candidates, 0);
    const char *ambience = anot_item_get_attribute (first, "Ambience");
    JsonNode *casual;

    g_assert_no_error (error);
    casual = json_object_get_member (json_node_get_object (anot_plan_result_get_atom_result (nested_result, "1")),
                                     "1");
    g_assert_nonnull (casual);
    if (ambience != NULL && strstr (ambience, "'casual': True") != NULL)
      g_assert_true (json_node_get_boolean (casual));
    else if (ambience != NULL && strstr (ambience, "'casual': False") != NULL)
      g_assert_false (json_node_get_boolean (casual));
    else
      g_assert_true (JSON_NODE_HOLDS_NULL (casual));
    g_assert_cmpint (json_node_get_boolean (json_object_get_member (
                       json_node_get_object (anot_plan_result_get_atom_result (nested_result, "2")), "1")), ==,
                     g_strcmp0 (anot_item_get_attribute (first, "WiFi"), "u'free'") == 0);
    g_assert_true (JSON_NODE_HOLDS_NULL (json_object_get_member (
                     json_node_get_object (anot_plan_result_get_atom_result (nested_result, "3")), "1")));
    /* Only item 1 is in single-item results. */
    g_assert_cmpuint (json_object_get_size (json_node_get_object (anot_plan_result_get_atom_result (nested_result, "3"))),
                      ==, 1);
  }

  /* Running an invalid plan fails before anything runs. */
  {
    g_autoptr(AnotPlan) invalid = plan_from ("{\"atoms\": [{\"id\": 1, \"name\": \"grep\"}]}");
    g_autoptr(AnotPlanResult) none = execute (&fixture, invalid, &error);

    g_assert_null (none);
    g_assert_error (error, ANOT_ERROR, ANOT_ERROR_INVALID_FIELD);
    g_clear_error (&error);
  }

  fixture_stop (&fixture);
}

/* How a leaf's truth follows from the atom that asks the same question
 * (evidence.md §6.1): `true` is the atom (null: the leaf's `missing`);
 * `contains` reads a missing value as the text "none"; `not_true` and
 * `not_contains` are true for a missing value. */
typedef enum { LEAF_TRUE, LEAF_CONTAINS, LEAF_NOT } LeafMode;

typedef struct {
  LeafMode mode;
  AnotTruth when_null;
  AnotCondition *leaf;
} LeafAtom;

/* The atom a planner would write for @evidence, added to @atoms; FALSE
 * for a leaf no atom expresses. */
static gboolean
atom_for_leaf (JsonObject *evidence,
               guint       id,
               JsonArray  *atoms,
               LeafAtom   *out)
{
  JsonArray *path = json_object_get_array_member (evidence, "path");
  const char *first = json_array_get_string_element (path, 0);
  JsonObject *atom = json_object_new ();
  JsonObject *input = json_object_new ();
  const char *key;

  json_object_set_int_member (atom, "id", id);
  json_object_set_string_member (atom, "kind", "tool");
  json_object_set_string_member (input, "item", "*");
  out->when_null = ANOT_TRUTH_FALSE;

  if (strcmp (first, "categories") == 0)
    {
      g_assert_true (json_object_has_member (evidence, "contains"));
      json_object_set_string_member (atom, "name", "has_category");
      json_object_set_string_member (input, "category", json_object_get_string_member (evidence, "contains"));
      out->mode = LEAF_CONTAINS;
    }
  else
    {
      const char *attribute = json_array_get_string_element (path, 1);
      const char *pattern = NULL;

      g_assert_cmpstr (first, ==, "attributes");
      json_object_set_string_member (atom, "name", "check_attribute");
      if (json_object_has_member (evidence, "not_contains"))
        key = "not_contains", out->mode = LEAF_NOT, out->when_null = ANOT_TRUTH_TRUE;
      else if (json_object_has_member (evidence, "contains"))
        key = "contains", out->mode = LEAF_CONTAINS;
      else if (json_object_has_member (evidence, "not_true"))
        key = "not_true", out->mode = LEAF_NOT, out->when_null = ANOT_TRUTH_TRUE;
      else
        {
          key = "true", out->mode = LEAF_TRUE;
          out->when_null = json_object_get_int_member_with_default (evidence, "missing", 0);
        }
      pattern = json_object_get_string_member (evidence, key);

      if (out->mode != LEAF_TRUE && key[strlen (key) - 1] == 's' && g_str_has_suffix (pattern, "': True"))
        {
          /* "'romantic': True" in Ambience: Ambience.romantic is true. */
          g_autofree char *name = g_strndup (pattern + 1, strlen (pattern) - strlen ("'': True"));
          g_autofree char *nested = g_strdup_printf ("%s.%s", attribute, name);

          json_object_set_string_member (input, "attribute", nested);
          json_object_set_boolean_member (input, "expected", TRUE);
        }
      else
        {
          json_object_set_string_member (input, "attribute", attribute);
          json_object_set_string_member (input, "expected", pattern);
        }
    }

  json_object_set_object_member (atom, "input", input);
  json_object_set_array_member (atom, "dependsOn", json_array_new ());
  json_array_add_object_element (atoms, atom);
  return TRUE;
}

static AnotTruth
leaf_truth_from_atom (const LeafAtom *leaf,
                      JsonNode       *value)
{
  gboolean yes;

  g_assert_nonnull (value);
  if (JSON_NODE_HOLDS_NULL (value))
    return leaf->when_null;
  yes = json_node_get_boolean (value);
  if (leaf->mode == LEAF_NOT)
    yes = !yes;
  return yes ? ANOT_TRUTH_TRUE : ANOT_TRUTH_FALSE;
}

/* Every attribute and category leaf of every philly request, asked as
 * the atom a planner would write, agrees with the validator on every
 * cafe: the values the dataset keeps quoted ('free', 'beer_and_wine')
 * included, and u'none' against 'none' (R100). */
static void
test_atoms_agree_with_validator (void)
{
  AnotDataset *philly = anot_test_get_philly ();
  g_autoptr(AnotValidator) validator = NULL;
  g_autoptr(GPtrArray) candidates = g_ptr_array_new_with_free_func (g_object_unref);
  guint n_leaves = 0, n_checked = 0, n_quoted = 0;

  if (philly == NULL)
    {
      g_test_skip ("the philly_cafes benchmark is not available");
      return;
    }
  validator = anot_validator_new (philly);
  for (guint i = 0; i < anot_dataset_get_n_items (philly); i++)
    g_ptr_array_add (candidates, g_object_ref (anot_dataset_get_item (philly, i)));

  for (guint r = 0; r < anot_dataset_get_n_requests (philly); r++)
    {
      AnotRequest *request = anot_dataset_get_request (philly, r);
      g_autoptr(GPtrArray) leaves = anot_condition_collect_leaves (anot_request_get_structure (request));
      g_autoptr(GArray) leaf_atoms = g_array_new (FALSE, TRUE, sizeof (LeafAtom));
      g_autoptr(JsonArray) atoms = json_array_new ();
      g_autoptr(JsonArray) scores = json_array_new ();
      Fixture fixture = { 0 };
      g_autoptr(AnotPlan) plan = NULL;
      g_autoptr(AnotPlanResult) result = NULL;
      g_autoptr(GError) error = NULL;
      g_autoptr(JsonNode) root = NULL;
      g_autofree char *text = NULL;
      JsonObject *final;
      JsonObject *final_input;

      for (guint l = 0; l < leaves->len; l++)
        {
          AnotCondition *leaf = g_ptr_array_index (leaves, l);
          LeafAtom atom = { 0 };

          if (anot_condition_get_evidence_kind (leaf) != ANOT_EVIDENCE_ITEM_META)
            continue;
          n_leaves++;
          atom.leaf = leaf;
          g_assert_true (atom_for_leaf (anot_condition_get_evidence (leaf), leaf_atoms->len + 1, atoms, &atom));
          g_array_append_val (leaf_atoms, atom);
          {
            g_autofree char *ref = g_strdup_printf ("$%u", leaf_atoms->len);

            json_array_add_string_element (scores, ref);
          }
        }
      if (leaf_atoms->len == 0)
        continue;

      final = json_object_new ();
      final_input = json_object_new ();
      json_object_set_int_member (final, "id", leaf_atoms->len + 1);
      json_object_set_string_member (final, "kind", "final");
      json_object_set_string_member (final, "name", "rank");
      json_object_set_array_member (final_input, "scores", json_array_ref (scores));
      json_object_set_object_member (final, "input", final_input);
      json_array_add_object_element (atoms, final);
      /* json_node_init_object() takes a reference of its own. */
      root = json_node_new (JSON_NODE_OBJECT);
      json_node_take_object (root, json_object_new ());
      json_object_set_array_member (json_node_get_object (root), "atoms", json_array_ref (atoms));
      text = json_to_string (root, FALSE);

      fixture.dataset = g_object_ref (philly);
      fixture.candidates = g_ptr_array_ref (candidates);
      fixture.context = anot_method_context_new (philly, anot_request_get_id (request), 3);
      fixture.executor = anot_plan_executor_new (fixture.context, candidates);
      plan = plan_from (text);
      result = execute (&fixture, plan, &error);
      g_assert_no_error (error);

      for (guint a = 0; a < leaf_atoms->len; a++)
        {
          LeafAtom *atom = &g_array_index (leaf_atoms, LeafAtom, a);
          g_autofree char *id = g_strdup_printf ("%u", a + 1);
          JsonObject *per_item = json_node_get_object (anot_plan_result_get_atom_result (result, id));

          for (guint i = 0; i < candidates->len; i++)
            {
              AnotItem *item = g_ptr_array_index (candidates, i);
              g_autofree char *key = g_strdup_printf ("%u", i + 1);
              AnotTruth truth = anot_validator_evaluate_condition (validator, atom->leaf, item);
              AnotTruth from_atom = leaf_truth_from_atom (atom, json_object_get_member (per_item, key));

              if (truth != from_atom)
                g_error ("%s, leaf %s, item %u (%s): the validator says %d, the atom %d",
                         anot_request_get_id (request), anot_condition_get_aspect (atom->leaf), i,
                         anot_item_get_name (item), truth, from_atom);
              n_checked++;
              {
                JsonObject *evidence = anot_condition_get_evidence (atom->leaf);
                JsonNode *path = json_object_get_member (evidence, "path");
                const char *attribute = json_array_get_length (json_node_get_array (path)) > 1
                                        ? json_array_get_string_element (json_node_get_array (path), 1) : NULL;
                const char *raw = attribute ? anot_item_get_attribute (item, attribute) : NULL;

                if (truth == ANOT_TRUTH_TRUE && raw != NULL && raw[0] == '\'')
                  n_quoted++;
              }
            }
        }
      fixture_stop (&fixture);
    }

  /* Every item_meta leaf (evidence.md §3), on all 50 cafes. */
  g_assert_cmpuint (n_leaves, ==, 341);
  g_assert_cmpuint (n_checked, ==, 341 * 50);
  /* Matches on values spelled 'like_this' were among them. */
  g_assert_cmpuint (n_quoted, >, 0);
  g_test_message ("%u leaves, %u leaf × cafe checks, %u matches on a quoted value", n_leaves, n_checked, n_quoted);
}

/* Judges run in parallel unless one depends on another; the final atom
 * waits for all; the same plan gives the same result. */
static void
test_run_order_and_parallelism (void)
{
  Fixture fixture = { 0 };
  g_autoptr(AnotPlan) plan = NULL;
  g_autoptr(AnotPlanResult) result = NULL;
  g_autoptr(AnotPlanResult) again = NULL;
  g_autoptr(GError) error = NULL;

  fixture_start (&fixture,
                 "{\"latency_ms\": 500, \"rules\": ["
                 "  {\"match\": \"^Question about one item: first.*\\\\n\\\\nITEM (\\\\d+):\", \"reply\": \"Score: \\\\1\"},"
                 "  {\"match\": \"^Question about one item: second(?s).*ITEM (\\\\d+):\", \"reply\": \"\\\\1/10\"},"
                 "  {\"match\": \"^Question about one item: third(?s).*ITEM 3:\", \"reply\": \"no idea\"},"
                 "  {\"match\": \"^Question about one item: third(?s).*ITEM (\\\\d+):\", \"reply\": \"<score>5</score>\"}"
                 "]}");
  /* a and c are independent; b waits for a. */
  plan = plan_from ("{\"atoms\": ["
                    " {\"id\": \"a\", \"name\": \"llm_judge\", \"input\": {\"item\": \"*\", \"question\": \"first?\"}},"
                    " {\"id\": \"b\", \"name\": \"llm_judge\", \"input\": {\"item\": \"*\", \"question\": \"second?\"}, \"dependsOn\": [\"a\"]},"
                    " {\"id\": \"c\", \"name\": \"llm_judge\", \"input\": {\"item\": \"*\", \"question\": \"third?\"}},"
                    " {\"id\": \"z\", \"kind\": \"final\", \"name\": \"rank\", \"input\": {\"scores\": [\"$a\", \"$b\", \"$c\"], \"weights\": [1, 1, 2]}}"
                    "]}");
  result = execute (&fixture, plan, &error);
  g_assert_no_error (error);

  /* 3 judges x 6 items; a's and c's 12 calls in flight together. */
  g_assert_cmpuint (anot_plan_result_get_n_calls (result), ==, 3 * N_CANDIDATES);
  g_assert_cmpuint (anot_fake_llm_get_n_requests (fixture.server), ==, 3 * N_CANDIDATES);
  g_assert_cmpuint (anot_plan_result_get_max_in_flight (result), ==, 2 * N_CANDIDATES);
  g_assert_cmpuint (anot_fake_llm_get_peak_in_flight (fixture.server), ==, 2 * N_CANDIDATES);

  /* Dependency order. */
  g_assert_cmpfloat (anot_plan_result_get_atom_start_ms (result, "a"), <, 100);
  g_assert_cmpfloat (anot_plan_result_get_atom_start_ms (result, "c"), <, 100);
  g_assert_cmpfloat (anot_plan_result_get_atom_start_ms (result, "b"), >=,
                     anot_plan_result_get_atom_start_ms (result, "a") +
                     anot_plan_result_get_atom_latency_ms (result, "a"));
  {
    const char * const *order = anot_plan_result_get_order (result);
    g_autofree char *joined = g_strjoinv (",", (GStrv) order);

    g_assert_cmpuint (g_strv_length ((GStrv) order), ==, 4);
    g_assert_cmpstr (order[2], ==, "b");
    g_assert_cmpstr (order[3], ==, "z");
    g_assert_true (strcmp (joined, "a,c,b,z") == 0 || strcmp (joined, "c,a,b,z") == 0);
  }
  /* Two rounds of latency, not three. */
  g_assert_cmpfloat (anot_plan_result_get_wall_ms (result), <, 3 * 500);

  /* Scores: a = i, b = i, c = 5 except item 3 (no score: null, a note).
   * Totals (a/10 + b/10 + 2 c/10): item i: 0.2 i + 1, item 3: 0.6. */
  {
    AnotRanking *ranking = anot_plan_result_get_ranking (result);
    JsonObject *c = json_node_get_object (anot_plan_result_get_atom_result (result, "c"));
    const char * const *notes = anot_plan_result_get_notes (result);
    const guint expected[] = { 5, 4, 3, 1, 0, 2 };

    g_assert_true (JSON_NODE_HOLDS_NULL (json_object_get_member (c, "3")));
    g_assert_cmpfloat (json_object_get_double_member (c, "4"), ==, 5);
    g_assert_cmpfloat (json_object_get_double_member (json_node_get_object (anot_plan_result_get_atom_result (result, "b")), "6"),
                       ==, 6);
    g_assert_cmpuint (g_strv_length ((GStrv) notes), ==, 1);
    g_assert_nonnull (strstr (notes[0], "Atom c, item 3: no score"));
    for (guint r = 0; r < N_CANDIDATES; r++)
      g_assert_cmpuint (anot_ranking_get_index (ranking, r), ==, expected[r]);
    g_assert_cmpfloat_with_epsilon (anot_ranking_get_score (ranking, 0), 0.2 * 6 + 1, 1e-9);
  }

  /* The prompt shows the item. */
  {
    AnotItem *second = g_ptr_array_index (fixture.candidates, 1);
    g_autofree char *line = g_strdup_printf ("ITEM 2: %s\n", anot_item_get_name (second));
    gboolean found = FALSE;

    for (guint i = 0; i < anot_fake_llm_get_n_requests (fixture.server); i++)
      if (strstr (json_object_get_string_member (anot_fake_llm_get_request (fixture.server, i), "last_user"),
                  line) != NULL)
        found = TRUE;
    g_assert_true (found);
  }

  /* Deterministic: the same answers give the same results. */
  again = execute (&fixture, plan, &error);
  g_assert_no_error (error);
  {
    g_autoptr(JsonNode) a = anot_plan_result_to_json (result, 0);
    g_autoptr(JsonNode) b = anot_plan_result_to_json (again, 0);
    JsonObject *atoms_a = json_object_get_object_member (json_node_get_object (a), "atoms");
    JsonObject *atoms_b = json_object_get_object_member (json_node_get_object (b), "atoms");
    const char *ids[] = { "a", "b", "c", "z" };

    for (guint i = 0; i < G_N_ELEMENTS (ids); i++)
      g_assert_true (json_node_equal (json_object_get_member (json_object_get_object_member (atoms_a, ids[i]), "result"),
                                      json_object_get_member (json_object_get_object_member (atoms_b, ids[i]), "result")));
  }

  fixture_stop (&fixture);
}

/* A tool added by a method is usable by atoms and checked by its schema. */
static void
test_added_tool (void)
{
  Fixture fixture = { 0 };
  g_autoptr(AnotDataTool) tool = NULL;
  g_autoptr(GError) error = NULL;
  g_auto(GStrv) names = NULL;
  g_autoptr(JsonNode) described = NULL;
  g_autoptr(JsonNode) schema = NULL;

  fixture_start (&fixture, NULL);
  names = anot_plan_executor_list_tools (fixture.executor);
  g_assert_cmpstr (names[g_strv_length (names) - 1], ==, "rank");

  described = anot_plan_executor_describe_tools (fixture.executor);
  g_assert_cmpuint (json_array_get_length (json_node_get_array (described)), ==, g_strv_length (names));
  schema = anot_plan_executor_get_plan_schema (fixture.executor);
  {
    g_autofree char *text = json_to_string (schema, FALSE);

    g_assert_nonnull (strstr (text, "\"llm_judge\""));
  }

  /* A tool added under an existing name replaces it; its schema types
   * its inputs. */
  tool = anot_data_tool_new ("keys", anot_plan_executor_get_data (fixture.executor));
  anot_plan_executor_add_tool (fixture.executor, ANOT_TOOL (tool));
  {
    g_autoptr(AnotPlan) plan = plan_from (
      "{\"atoms\": [{\"id\": 1, \"name\": \"keys\", \"input\": {\"path\": 3}},"
      " {\"id\": 2, \"name\": \"check_attribute\", \"input\": {\"item\": \"*\", \"attribute\": \"WiFi\"}},"
      " {\"id\": 3, \"kind\": \"final\", \"name\": \"rank\", \"input\": {\"scores\": [\"$2\"]}}]}");
    g_autofree char *problems = NULL;
    g_auto(GStrv) list = anot_plan_executor_check (fixture.executor, plan);

    problems = g_strjoinv ("\n", list);
    g_assert_nonnull (strstr (problems, "Atom 1: input “path” must be a string"));
  }
  {
    g_autoptr(AnotPlan) plan = plan_from (
      "{\"atoms\": [{\"id\": 1, \"name\": \"keys\", \"input\": {\"path\": \"items[1]\"}},"
      " {\"id\": 2, \"name\": \"check_attribute\", \"input\": {\"item\": \"*\", \"attribute\": \"WiFi\"}},"
      " {\"id\": 3, \"kind\": \"final\", \"name\": \"rank\", \"input\": {\"scores\": [\"$2\"]}}]}");
    g_autoptr(AnotPlanResult) result = execute (&fixture, plan, &error);
    JsonNode *keys;

    g_assert_no_error (error);
    keys = anot_plan_result_get_atom_result (result, "1");
    g_assert_true (JSON_NODE_HOLDS_ARRAY (keys));
    g_assert_cmpstr (json_array_get_string_element (json_node_get_array (keys), 0), ==, "address");
  }
  fixture_stop (&fixture);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);

  g_test_add_func ("/plan/parse", test_parse);
  g_test_add_func ("/plan/structure-problems", test_structure_problems);
  g_test_add_func ("/plan/check", test_check);
  g_test_add_func ("/plan/run-tools", test_run_tools);
  g_test_add_func ("/plan/atoms-agree-with-validator", test_atoms_agree_with_validator);
  g_test_add_func ("/plan/run-order-and-parallelism", test_run_order_and_parallelism);
  g_test_add_func ("/plan/added-tool", test_added_tool);

  return g_test_run ();
}
