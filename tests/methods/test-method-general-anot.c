/* test-method-general-anot.c: the general_anot method end to end against
 * the fake LLM server (Phase 1 compile, Phase 2 filter, extraction and
 * compute, ranking by the seed's score)
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include <anot/anot.h>
#include <string.h>

#include "anot-fake-llm.h"
#include "anot-test-backend.h"

#define TEST_KEY "sk-test-general-anot"
#define N_CANDIDATES 8

/* The seed the fake LLM writes: the share of coffee reviews that call the
 * place quiet.  The server expands \1 in replies, so no backslashes. */
static const char *seed_reply =
  "{\"task_name\": \"quiet\", \"filter_keywords\": [\"Coffee\"],"
  " \"extraction_fields\": [{\"name\": \"quiet\", \"type\": \"enum\", \"values\": [\"no\", \"yes\"]}],"
  " \"extraction_prompt\": \"REVIEW: {review_text}\","
  " \"compute_dag\": [{\"name\": \"n_quiet\", \"formula\": \"sum(1 for e in extractions if e['quiet'] == 'yes')\"},"
  "                  {\"name\": \"score\", \"formula\": \"n_quiet / len(extractions) if extractions else 0.0\"}],"
  " \"output_fields\": [\"n_quiet\", \"score\"]}";

static char *
make_rules (void)
{
  g_autoptr(JsonBuilder) builder = json_builder_new ();
  g_autoptr(JsonNode) root = NULL;
  const char *rules[][2] = {
    { "^TASK FORMULA", seed_reply },
    { "(?i)^REVIEW: .*quiet", "{\"quiet\": \"YES\"}" },
    /* An answer that is no JSON: counted, and its field takes "no". */
    { "(?i)^REVIEW: .*wifi", "I cannot tell." },
    { "^REVIEW: ", "```json\n{\"quiet\": \"no\"}\n```" },
  };

  json_builder_begin_object (builder);
  /* Slow enough answers that the extractions are seen in flight together. */
  json_builder_set_member_name (builder, "latency_ms");
  json_builder_add_int_value (builder, 20);
  json_builder_set_member_name (builder, "rules");
  json_builder_begin_array (builder);
  for (guint i = 0; i < G_N_ELEMENTS (rules); i++)
    {
      json_builder_begin_object (builder);
      json_builder_set_member_name (builder, "match");
      json_builder_add_string_value (builder, rules[i][0]);
      json_builder_set_member_name (builder, "reply");
      json_builder_add_string_value (builder, rules[i][1]);
      json_builder_end_object (builder);
    }
  json_builder_end_array (builder);
  json_builder_end_object (builder);
  root = json_builder_get_root (builder);
  return json_to_string (root, FALSE);
}

typedef struct {
  guint index;
  double score;
} Expected;

static int
compare_expected (gconstpointer a,
                  gconstpointer b)
{
  const Expected *x = a, *y = b;

  if (x->score != y->score)
    return x->score > y->score ? -1 : 1;
  return x->index < y->index ? -1 : 1;
}

static gboolean
contains_ci (const char *text,
             const char *word)
{
  g_autofree char *lower = g_utf8_strdown (text, -1);

  return strstr (lower, word) != NULL;
}

static guint
count_compile_calls (AnotFakeLlm *server)
{
  guint n = 0;

  for (guint i = 0; i < anot_fake_llm_get_n_requests (server); i++)
    if (g_str_has_prefix (json_object_get_string_member_with_default (anot_fake_llm_get_request (server, i),
                                                                      "last_user", ""), "TASK FORMULA"))
      n++;
  return n;
}

static void
test_rank (void)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *rules = make_rules ();
  g_autofree char *demo = g_build_filename (g_getenv ("ANOT_DATA_DIR"), "demo", NULL);
  g_autoptr(AnotFakeLlm) server = anot_fake_llm_new ();
  g_autoptr(AnotBackend) backend = NULL;
  g_autoptr(AnotBackendRouter) router = anot_backend_router_new ();
  g_autoptr(AnotDataset) dataset = NULL;
  g_autoptr(GPtrArray) candidates = g_ptr_array_new_with_free_func (g_object_unref);
  g_autoptr(AnotMethod) method = NULL;
  Expected expected[N_CANDIDATES];
  guint expected_relevant[N_CANDIDATES];
  guint expected_invalid[N_CANDIDATES];
  guint n_relevant_total = 0;

  g_assert_true (anot_fake_llm_set_rules_json (server, rules, &error));
  g_assert_no_error (error);
  anot_fake_llm_set_api_key (server, TEST_KEY);
  g_assert_true (anot_fake_llm_start (server, 0, &error));
  g_assert_no_error (error);
  backend = anot_test_backend_new (server, TEST_KEY, "fake-model", 1, 10000);
  anot_backend_router_set_route (router, ANOT_DEFAULT_ROLE, "openai", backend, NULL);

  dataset = anot_dataset_load (demo, NULL, &error);
  g_assert_no_error (error);
  for (guint i = 0; i < N_CANDIDATES; i++)
    g_ptr_array_add (candidates, g_object_ref (anot_dataset_get_item (dataset, i)));

  /* What the ranking must be, from the data itself. */
  for (guint i = 0; i < N_CANDIDATES; i++)
    {
      AnotItem *item = candidates->pdata[i];
      guint relevant = 0, quiet = 0, invalid = 0;

      for (guint r = 0; r < anot_item_get_n_reviews (item); r++)
        {
          const char *text = anot_review_get_text (anot_item_get_review (item, r));

          if (!contains_ci (text, "coffee"))
            continue;
          relevant++;
          if (contains_ci (text, "quiet"))
            quiet++;
          else if (contains_ci (text, "wifi"))
            invalid++;
        }
      expected[i].index = i;
      expected[i].score = relevant > 0 ? (double) quiet / relevant : 0.0;
      expected_relevant[i] = relevant;
      expected_invalid[i] = invalid;
      n_relevant_total += relevant;
    }
  qsort (expected, N_CANDIDATES, sizeof (Expected), compare_expected);
  g_assert_cmpuint (n_relevant_total, >, 0);

  method = anot_registry_create_method (anot_registry_get_default (), "general_anot", &error);
  g_assert_no_error (error);

  for (guint round = 0; round < 2; round++)
    {
      g_autoptr(AnotMethodContext) context = anot_method_context_new (dataset, "R01", 3);
      g_autoptr(AnotRanking) ranking = NULL;
      JsonObject *trace;
      JsonArray *items;

      anot_method_context_set_router (context, router);
      ranking = anot_test_rank (method, anot_dataset_get_request (dataset, 0), candidates, 5, context,
                                NULL, &error);
      g_assert_no_error (error);

      g_assert_cmpuint (anot_ranking_get_length (ranking), ==, N_CANDIDATES);
      for (guint r = 0; r < N_CANDIDATES; r++)
        {
          g_assert_cmpuint (anot_ranking_get_index (ranking, r), ==, expected[r].index);
          g_assert_cmpfloat_with_epsilon (anot_ranking_get_score (ranking, r), expected[r].score, 1e-12);
        }

      trace = json_node_get_object (anot_ranking_get_trace (ranking));
      g_assert_cmpstr (json_object_get_string_member (trace, "method"), ==, "general_anot");
      g_assert_cmpint (json_object_get_int_member (trace, "n_unscored"), ==, 0);
      g_assert_true (g_str_has_prefix (json_object_get_string_member (trace, "task_formula"),
                                       anot_request_get_text (anot_dataset_get_request (dataset, 0))));
      items = json_object_get_array_member (trace, "items");
      for (guint i = 0; i < N_CANDIDATES; i++)
        {
          JsonObject *item = json_array_get_object_element (items, i);

          g_assert_cmpstr (json_object_get_string_member (item, "item_id"), ==,
                           anot_item_get_id (candidates->pdata[i]));
          g_assert_cmpint (json_object_get_int_member (item, "n_relevant"), ==, expected_relevant[i]);
          g_assert_cmpint (json_object_get_int_member (item, "n_invalid"), ==, expected_invalid[i]);
          g_assert_cmpint (json_object_get_int_member (item, "n_llm_failed"), ==, 0);
          g_assert_cmpint (json_object_get_int_member (item, "n_failed"), ==, 0);
          g_assert_cmpuint (json_array_get_length (json_object_get_array_member (item, "extractions")), ==,
                            expected_relevant[i]);
        }

      /* One compile call for the formula, the first time only; one
       * extraction call per relevant review each time. */
      g_assert_cmpuint (count_compile_calls (server), ==, 1);
      g_assert_cmpuint (anot_fake_llm_get_n_requests (server), ==, 1 + (round + 1) * n_relevant_total);
    }
  g_test_message ("%u candidates, %u relevant reviews, best score %.3f", N_CANDIDATES, n_relevant_total,
                  expected[0].score);
  /* The extractions were in flight together. */
  g_assert_cmpuint (anot_fake_llm_get_peak_in_flight (server), >, 1);
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);

  g_test_add_func ("/method-general-anot/rank", test_rank);

  return g_test_run ();
}
