/* test-metrics.c: Hits@K, MRR, groups and run aggregation
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <anot/anot.h>
#include <math.h>

#define EPS 1e-12

static AnotMetrics *
metrics_from_ranks (guint        k,
                    const guint *ranks,
                    const char * const *groups,
                    guint        n)
{
  AnotMetrics *m = anot_metrics_new (k);

  for (guint i = 0; i < n; i++)
    anot_metrics_add (m, groups ? groups[i] : NULL, ranks[i]);
  return m;
}

static void
test_hits_and_mrr (void)
{
  /* Ranks 1, miss, 3, 2, 1 with k = 5, computed by hand:
   * Hits@1 = 2/5, Hits@2 = 3/5, Hits@3..5 = 4/5,
   * MRR = (1 + 0 + 1/3 + 1/2 + 1) / 5. */
  const guint ranks[] = { 1, 0, 3, 2, 1 };
  g_autoptr(AnotMetrics) m = metrics_from_ranks (5, ranks, NULL, G_N_ELEMENTS (ranks));

  g_assert_cmpuint (anot_metrics_get_k (m), ==, 5);
  g_assert_cmpuint (anot_metrics_get_total (m), ==, 5);
  g_assert_cmpuint (anot_metrics_get_hits (m, 1), ==, 2);
  g_assert_cmpuint (anot_metrics_get_hits (m, 2), ==, 3);
  g_assert_cmpuint (anot_metrics_get_hits (m, 3), ==, 4);
  g_assert_cmpuint (anot_metrics_get_hits (m, 5), ==, 4);
  g_assert_cmpfloat_with_epsilon (anot_metrics_get_hits_at (m, 1), 0.4, EPS);
  g_assert_cmpfloat_with_epsilon (anot_metrics_get_hits_at (m, 2), 0.6, EPS);
  g_assert_cmpfloat_with_epsilon (anot_metrics_get_hits_at (m, 3), 0.8, EPS);
  g_assert_cmpfloat_with_epsilon (anot_metrics_get_hits_at (m, 4), 0.8, EPS);
  g_assert_cmpfloat_with_epsilon (anot_metrics_get_hits_at (m, 5), 0.8, EPS);
  g_assert_cmpfloat_with_epsilon (anot_metrics_get_mrr (m),
                                  (1.0 + 0.0 + 1.0 / 3 + 0.5 + 1.0) / 5, EPS);

  {
    double mrr;
    guint total;

    g_object_get (m, "mrr", &mrr, "total", &total, NULL);
    g_assert_cmpuint (total, ==, 5);
    g_assert_cmpfloat_with_epsilon (mrr, 2.8333333333333335 / 5, 1e-9);
  }
}

static void
test_empty_and_beyond_k (void)
{
  g_autoptr(AnotMetrics) empty = anot_metrics_new (3);
  g_autoptr(AnotMetrics) m = anot_metrics_new (3);

  g_assert_cmpuint (anot_metrics_get_total (empty), ==, 0);
  g_assert_cmpfloat (anot_metrics_get_hits_at (empty, 1), ==, 0.0);
  g_assert_cmpfloat (anot_metrics_get_mrr (empty), ==, 0.0);

  /* A rank beyond k cannot come from the kept predictions: a miss. */
  anot_metrics_add (m, NULL, 4);
  anot_metrics_add (m, NULL, 3);
  g_assert_cmpuint (anot_metrics_get_hits (m, 3), ==, 1);
  g_assert_cmpfloat_with_epsilon (anot_metrics_get_mrr (m), (0.0 + 1.0 / 3) / 2, EPS);
}

static void
test_groups (void)
{
  const guint ranks[] = { 1, 0, 3, 2, 1 };
  const char * const groups[] = { "G01", "G01", "G02", "G02", "G02" };
  g_autoptr(AnotMetrics) m = metrics_from_ranks (5, ranks, groups, G_N_ELEMENTS (ranks));
  g_auto(GStrv) names = anot_metrics_list_groups (m);
  AnotMetrics *g1, *g2;

  g_assert_cmpuint (g_strv_length (names), ==, 2);
  g_assert_cmpstr (names[0], ==, "G01");
  g_assert_cmpstr (names[1], ==, "G02");
  g_assert_null (anot_metrics_get_group (m, "G03"));

  g1 = anot_metrics_get_group (m, "G01");
  g2 = anot_metrics_get_group (m, "G02");
  g_assert_cmpuint (anot_metrics_get_total (g1), ==, 2);
  g_assert_cmpfloat_with_epsilon (anot_metrics_get_hits_at (g1, 1), 0.5, EPS);
  g_assert_cmpfloat_with_epsilon (anot_metrics_get_mrr (g1), 0.5, EPS);
  g_assert_cmpuint (anot_metrics_get_total (g2), ==, 3);
  g_assert_cmpfloat_with_epsilon (anot_metrics_get_hits_at (g2, 1), 1.0 / 3, EPS);
  g_assert_cmpfloat_with_epsilon (anot_metrics_get_hits_at (g2, 2), 2.0 / 3, EPS);
  g_assert_cmpfloat_with_epsilon (anot_metrics_get_hits_at (g2, 3), 1.0, EPS);
  g_assert_cmpfloat_with_epsilon (anot_metrics_get_mrr (g2), (1.0 / 3 + 0.5 + 1.0) / 3, EPS);
}

static void
test_to_json (void)
{
  const guint ranks[] = { 1, 0, 3, 2, 1 };
  const char * const groups[] = { "G01", "G01", "G02", "G02", "G02" };
  g_autoptr(AnotMetrics) m = metrics_from_ranks (5, ranks, groups, G_N_ELEMENTS (ranks));
  g_autoptr(JsonNode) node = anot_metrics_to_json (m);
  JsonObject *root, *hits_at, *level, *g2;

  g_assert_true (JSON_NODE_HOLDS_OBJECT (node));
  root = json_node_get_object (node);
  g_assert_cmpint (json_object_get_int_member (root, "total"), ==, 5);
  g_assert_cmpint (json_object_get_int_member (root, "k"), ==, 5);
  hits_at = json_object_get_object_member (root, "hits_at");
  g_assert_cmpuint (json_object_get_size (hits_at), ==, 5);
  for (guint j = 1; j <= 5; j++)
    {
      char key[8];

      g_snprintf (key, sizeof key, "%u", j);
      level = json_object_get_object_member (hits_at, key);
      g_assert_nonnull (level);
      g_assert_true (json_object_has_member (level, "hits"));
      g_assert_true (json_object_has_member (level, "accuracy"));
    }
  level = json_object_get_object_member (hits_at, "3");
  g_assert_cmpint (json_object_get_int_member (level, "hits"), ==, 4);
  g_assert_cmpfloat_with_epsilon (json_object_get_double_member (level, "accuracy"), 0.8, EPS);
  g_assert_cmpfloat_with_epsilon (json_object_get_double_member (root, "mrr"),
                                  (1.0 + 1.0 / 3 + 0.5 + 1.0) / 5, EPS);

  g2 = json_object_get_object_member (json_object_get_object_member (root, "groups"), "G02");
  g_assert_nonnull (g2);
  g_assert_cmpint (json_object_get_int_member (g2, "total"), ==, 3);
  g_assert_false (json_object_has_member (g2, "groups"));
  g_assert_cmpint (json_object_get_int_member (json_object_get_object_member (
                     json_object_get_object_member (g2, "hits_at"), "1"), "hits"), ==, 1);
}

static void
test_mean_std (void)
{
  const double values[] = { 0.4, 0.6, 0.8 };
  const double one[] = { 0.5 };
  double mean = -1, std = -1;

  g_assert_true (anot_stats_mean_std (values, 3, &mean, &std));
  g_assert_cmpfloat_with_epsilon (mean, 0.6, EPS);
  /* sample std: sqrt(((-.2)^2 + 0 + .2^2) / 2) = 0.2 */
  g_assert_cmpfloat_with_epsilon (std, 0.2, EPS);

  g_assert_true (anot_stats_mean_std (one, 1, &mean, &std));
  g_assert_cmpfloat (mean, ==, 0.5);
  g_assert_cmpfloat (std, ==, 0.0);

  g_assert_false (anot_stats_mean_std (NULL, 0, &mean, &std));
  g_assert_cmpfloat (mean, ==, 0.0);
  g_assert_cmpfloat (std, ==, 0.0);
}

static void
test_summarize_runs (void)
{
  const guint ranks_a[] = { 1, 0 };
  const guint ranks_b[] = { 1, 2 };
  const char * const groups_a[] = { "G01", "G02" };
  const char * const groups_b[] = { "G01", "G01" };
  g_autoptr(GPtrArray) runs = g_ptr_array_new_with_free_func (g_object_unref);
  g_autoptr(JsonNode) node = NULL;
  JsonObject *root, *h1, *h2, *mrr, *groups, *g2;
  JsonArray *values;

  g_ptr_array_add (runs, metrics_from_ranks (3, ranks_a, groups_a, 2));
  g_ptr_array_add (runs, metrics_from_ranks (3, ranks_b, groups_b, 2));
  node = anot_metrics_summarize_runs (runs);
  root = json_node_get_object (node);

  g_assert_cmpint (json_object_get_int_member (root, "runs"), ==, 2);
  g_assert_cmpint (json_object_get_int_member (root, "k"), ==, 3);

  /* Hits@1: run a 0.5, run b 0.5 → mean 0.5, std 0.
   * Hits@2: 0.5 and 1.0 → mean 0.75, std sqrt(2 × 0.25²) = 0.353553… */
  h1 = json_object_get_object_member (json_object_get_object_member (root, "hits_at"), "1");
  h2 = json_object_get_object_member (json_object_get_object_member (root, "hits_at"), "2");
  g_assert_cmpfloat_with_epsilon (json_object_get_double_member (h1, "mean"), 0.5, EPS);
  g_assert_cmpfloat_with_epsilon (json_object_get_double_member (h1, "std"), 0.0, EPS);
  g_assert_cmpfloat_with_epsilon (json_object_get_double_member (h2, "mean"), 0.75, EPS);
  g_assert_cmpfloat_with_epsilon (json_object_get_double_member (h2, "std"),
                                  0.3535533905932738, 1e-12);
  values = json_object_get_array_member (h2, "values");
  g_assert_cmpuint (json_array_get_length (values), ==, 2);
  g_assert_cmpfloat_with_epsilon (json_array_get_double_element (values, 0), 0.5, EPS);
  g_assert_cmpfloat_with_epsilon (json_array_get_double_element (values, 1), 1.0, EPS);

  /* MRR: run a (1 + 0)/2 = 0.5, run b (1 + 1/2)/2 = 0.75 */
  mrr = json_object_get_object_member (root, "mrr");
  g_assert_cmpfloat_with_epsilon (json_object_get_double_member (mrr, "mean"), 0.625, EPS);

  /* G02 only exists in run a: one value. */
  groups = json_object_get_object_member (root, "groups");
  g2 = json_object_get_object_member (groups, "G02");
  values = json_object_get_array_member (json_object_get_object_member (
             json_object_get_object_member (g2, "hits_at"), "1"), "values");
  g_assert_cmpuint (json_array_get_length (values), ==, 1);
  g_assert_cmpfloat (json_array_get_double_element (values, 0), ==, 0.0);
  g_assert_true (json_object_has_member (json_object_get_object_member (groups, "G01"), "mrr"));
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);

  g_test_add_func ("/metrics/hits-and-mrr", test_hits_and_mrr);
  g_test_add_func ("/metrics/empty-and-beyond-k", test_empty_and_beyond_k);
  g_test_add_func ("/metrics/groups", test_groups);
  g_test_add_func ("/metrics/to-json", test_to_json);
  g_test_add_func ("/metrics/mean-std", test_mean_std);
  g_test_add_func ("/metrics/summarize-runs", test_summarize_runs);

  return g_test_run ();
}
