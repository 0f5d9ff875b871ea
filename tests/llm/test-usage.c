/* test-usage.c: AnotUsage with calls whose model has no price: the cost
 * of any sum holding one is unknown (NaN, JSON null), the tokens are
 * counted, and a results row read back keeps it unknown.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <anot/anot.h>

#include <math.h>

static AnotCompletion *
completion (const char *model,
            const char *role,
            guint64     prompt_tokens,
            double      cost_usd,
            gboolean    priced)
{
  AnotCompletion *completion = anot_completion_new (model, "answer");

  anot_completion_set_role (completion, role);
  anot_completion_set_prompt_tokens (completion, prompt_tokens);
  anot_completion_set_completion_tokens (completion, 2);
  if (priced)
    anot_completion_set_cost_usd (completion, cost_usd);
  else
    anot_completion_set_cost_known (completion, FALSE);
  return completion;
}

static JsonObject *
member_object (JsonObject *object,
               const char *a,
               const char *b)
{
  return json_object_get_object_member (json_object_get_object_member (object, a), b);
}

/* One priced call (planner, gpt-4o-mini) and one without a price
 * (scorer, local-7b). */
static void
test_mixed (void)
{
  g_autoptr(AnotUsage) usage = anot_usage_new ();
  g_autoptr(AnotUsage) merged = anot_usage_new ();
  g_autoptr(AnotUsage) planner = NULL;
  g_autoptr(AnotUsage) scorer = NULL;
  g_autoptr(AnotCompletion) priced = completion ("gpt-4o-mini", "planner", 100, 0.25, TRUE);
  g_autoptr(AnotCompletion) unpriced = completion ("local-7b", "scorer", 40, 0, FALSE);
  g_autoptr(JsonNode) node = NULL;
  JsonObject *json;
  gboolean cost_known = TRUE;
  guint64 unpriced_calls = 0;

  g_assert_true (anot_completion_get_cost_known (priced));
  g_assert_false (anot_completion_get_cost_known (unpriced));

  anot_usage_add_completion (usage, priced);
  g_assert_true (anot_usage_get_cost_known (usage));
  g_assert_cmpfloat (anot_usage_get_cost_usd (usage), ==, 0.25);
  anot_usage_add_completion (usage, unpriced);

  g_assert_cmpuint (anot_usage_get_calls (usage), ==, 2);
  g_assert_cmpuint (anot_usage_get_prompt_tokens (usage), ==, 140);
  g_assert_cmpuint (anot_usage_get_unpriced_calls (usage), ==, 1);
  g_assert_false (anot_usage_get_cost_known (usage));
  g_assert_true (isnan (anot_usage_get_cost_usd (usage)));
  g_object_get (usage, "cost-known", &cost_known, "unpriced-calls", &unpriced_calls, NULL);
  g_assert_false (cost_known);
  g_assert_cmpuint (unpriced_calls, ==, 1);

  /* Per role: the priced role keeps its cost. */
  planner = anot_usage_dup_role_usage (usage, "planner");
  scorer = anot_usage_dup_role_usage (usage, "scorer");
  g_assert_true (anot_usage_get_cost_known (planner));
  g_assert_cmpfloat (anot_usage_get_cost_usd (planner), ==, 0.25);
  g_assert_false (anot_usage_get_cost_known (scorer));
  g_assert_cmpuint (anot_usage_get_prompt_tokens (scorer), ==, 40);

  node = anot_usage_to_json (usage);
  json = json_node_get_object (node);
  g_assert_true (json_object_get_null_member (json, "total_cost_usd"));
  g_assert_cmpint (json_object_get_int_member (json, "unpriced_calls"), ==, 1);
  g_assert_cmpint (json_object_get_int_member (json, "total_prompt_tokens"), ==, 140);
  g_assert_cmpfloat (json_object_get_double_member (member_object (json, "by_model", "gpt-4o-mini"),
                                                    "cost_usd"), ==, 0.25);
  g_assert_false (json_object_has_member (member_object (json, "by_model", "gpt-4o-mini"),
                                          "unpriced_calls"));
  g_assert_true (json_object_get_null_member (member_object (json, "by_model", "local-7b"), "cost_usd"));
  g_assert_true (json_object_get_null_member (member_object (json, "by_role", "scorer"), "cost_usd"));

  /* A sum with an unknown part is unknown. */
  anot_usage_merge (merged, planner);
  g_assert_true (anot_usage_get_cost_known (merged));
  anot_usage_merge (merged, usage);
  g_assert_false (anot_usage_get_cost_known (merged));
  g_assert_cmpuint (anot_usage_get_unpriced_calls (merged), ==, 1);
  g_assert_cmpuint (anot_usage_get_calls (merged), ==, 3);
}

/* A results row with an unknown cost, read back (a resume, a merge,
 * anot-run report) and written again, stays unknown; so does a row that
 * says null without saying how many calls. */
static void
test_row_round_trip (void)
{
  static const char *rows[] = {
    "{\"request_id\": \"R01\", \"pred_indices\": [1], \"shuffled_preds\": [1], \"gold_idx\": 0,"
    " \"shuffled_gold_pos\": 1, \"gold_restaurant\": \"i1\", \"gold_rank\": 1,"
    " \"prompt_tokens\": 140, \"completion_tokens\": 4, \"tokens\": 144, \"cost_usd\": null,"
    " \"unpriced_calls\": 1, \"latency_ms\": 3, \"calls\": 2, \"retries\": 0,"
    " \"by_model\": {\"gpt-4o-mini\": {\"calls\": 1, \"prompt_tokens\": 100, \"completion_tokens\": 2,"
    "                                 \"cost_usd\": 0.25},"
    "              \"local-7b\": {\"calls\": 1, \"prompt_tokens\": 40, \"completion_tokens\": 2,"
    "                              \"cost_usd\": null, \"unpriced_calls\": 1}}}",
    "{\"request_id\": \"R02\", \"pred_indices\": [1], \"shuffled_preds\": [1], \"gold_idx\": 0,"
    " \"shuffled_gold_pos\": 1, \"gold_restaurant\": \"i1\", \"gold_rank\": 1,"
    " \"prompt_tokens\": 40, \"completion_tokens\": 2, \"tokens\": 42, \"cost_usd\": null,"
    " \"latency_ms\": 3, \"calls\": 3}",
  };
  static const guint64 expected_unpriced[] = { 1, 3 };

  for (guint r = 0; r < G_N_ELEMENTS (rows); r++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(JsonNode) parsed = json_from_string (rows[r], &error);
      g_autoptr(AnotResult) result = NULL;
      g_autoptr(JsonNode) written = NULL;
      AnotUsage *usage;
      JsonObject *row;

      g_assert_no_error (error);
      result = anot_result_new_from_json (json_node_get_object (parsed), &error);
      g_assert_no_error (error);
      usage = anot_result_get_usage (result);
      g_assert_false (anot_usage_get_cost_known (usage));
      g_assert_true (isnan (anot_usage_get_cost_usd (usage)));
      g_assert_cmpuint (anot_usage_get_unpriced_calls (usage), ==, expected_unpriced[r]);

      written = anot_result_to_json (result);
      row = json_node_get_object (written);
      g_assert_true (json_object_get_null_member (row, "cost_usd"));
      g_assert_cmpint (json_object_get_int_member (row, "unpriced_calls"), ==, expected_unpriced[r]);
      if (r == 0)
        {
          g_assert_cmpfloat (json_object_get_double_member (member_object (row, "by_model", "gpt-4o-mini"),
                                                            "cost_usd"), ==, 0.25);
          g_assert_true (json_object_get_null_member (member_object (row, "by_model", "local-7b"),
                                                      "cost_usd"));
        }
    }
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/usage/unpriced/mixed", test_mixed);
  g_test_add_func ("/usage/unpriced/row-round-trip", test_row_round_trip);

  return g_test_run ();
}
