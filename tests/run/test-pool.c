/* test-pool.c: candidate pools, shuffling and seed derivation
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <anot/anot.h>
#include <string.h>

static AnotDataset *
load_demo (void)
{
  g_autofree char *path = g_build_filename (g_getenv ("ANOT_DATA_DIR"), "demo", NULL);
  g_autoptr(GError) error = NULL;
  AnotDataset *dataset = anot_dataset_load (path, NULL, &error);

  g_assert_no_error (error);
  g_assert_nonnull (dataset);
  return dataset;
}

static AnotDataset *
load_philly (void)
{
  const char *path = g_getenv ("ANOT_PHILLY_DATA");
  g_autofree char *requests = NULL;
  g_autoptr(GError) error = NULL;
  AnotDataset *dataset;

  if (path == NULL)
    return NULL;
  requests = g_build_filename (path, "requests.jsonl", NULL);
  if (!g_file_test (requests, G_FILE_TEST_EXISTS))
    return NULL;
  dataset = anot_dataset_load (path, NULL, &error);
  g_assert_no_error (error);
  return dataset;
}

/* Items of the pool in pool order, as a "id,id,..." string. */
static char *
pool_ids (AnotPool *pool)
{
  GString *s = g_string_new (NULL);

  for (guint i = 0; i < anot_pool_get_size (pool); i++)
    g_string_append_printf (s, "%s,", anot_item_get_id (anot_pool_get_item (pool, i)));
  return g_string_free (s, FALSE);
}

static char *
shuffled_ids (AnotPool *pool)
{
  GPtrArray *shuffled = anot_pool_get_shuffled (pool);
  GString *s = g_string_new (NULL);

  for (guint i = 0; i < shuffled->len; i++)
    g_string_append_printf (s, "%s,", anot_item_get_id (g_ptr_array_index (shuffled, i)));
  return g_string_free (s, FALSE);
}

/* Invariants every pool must satisfy, whatever the mode. */
static void
check_pool (AnotDataset *dataset,
            AnotRequest *request,
            AnotPool    *pool,
            guint        n)
{
  GPtrArray *shuffled = anot_pool_get_shuffled (pool);
  guint gold = anot_pool_get_gold_position (pool);
  guint shuffled_gold = anot_pool_get_shuffled_gold_position (pool);
  g_autofree gboolean *seen = NULL;

  g_assert_cmpuint (anot_pool_get_size (pool), ==, n);
  g_assert_cmpuint (shuffled->len, ==, n);
  g_assert_true (anot_pool_get_request (pool) == request);

  /* The gold is in the pool, where the pool says it is. */
  g_assert_cmpstr (anot_item_get_id (anot_pool_get_item (pool, gold)), ==,
                   anot_request_get_gold_item_id (request));
  g_assert_cmpstr (anot_item_get_id (g_ptr_array_index (shuffled, shuffled_gold)), ==,
                   anot_request_get_gold_item_id (request));
  g_assert_cmpuint (anot_pool_shuffled_to_pool (pool, shuffled_gold), ==, gold);

  /* Pool order is dataset order, without repeats. */
  for (guint i = 1; i < n; i++)
    g_assert_cmpuint (anot_item_get_index (anot_pool_get_item (pool, i - 1)), <,
                      anot_item_get_index (anot_pool_get_item (pool, i)));

  /* The mapping is a permutation that round-trips. */
  seen = g_new0 (gboolean, n);
  for (guint i = 0; i < n; i++)
    {
      guint p = anot_pool_shuffled_to_pool (pool, i);

      g_assert_cmpuint (p, <, n);
      g_assert_false (seen[p]);
      seen[p] = TRUE;
      g_assert_true (g_ptr_array_index (shuffled, i) == anot_pool_get_item (pool, p));
    }
  (void) dataset;
}

static void
test_seed_derive (void)
{
  /* Values computed independently (Python, FNV-1a 64 + splitmix64 as
   * documented in anot_seed_derive()). */
  g_assert_cmphex (anot_seed_derive (0, ""), ==, G_GUINT64_CONSTANT (0x5b21f68ffa77f14c));
  g_assert_cmphex (anot_seed_derive (0, NULL), ==, G_GUINT64_CONSTANT (0x5b21f68ffa77f14c));
  g_assert_cmphex (anot_seed_derive (42, "pool:R01:10"), ==,
                   G_GUINT64_CONSTANT (0x5cc726837dbe578a));
  g_assert_cmphex (anot_seed_derive (43, "shuffle:R07:10"), ==,
                   G_GUINT64_CONSTANT (0x62892ffdb268bef2));
  g_assert_cmphex (anot_seed_derive (43, "method:R100:50"), ==,
                   G_GUINT64_CONSTANT (0x4ebd046439888c59));
  g_assert_cmphex (anot_seed_derive (G_MAXUINT64, "x"), ==,
                   G_GUINT64_CONSTANT (0xab7a82a3a46f3752));
}

static void
test_sampled (void)
{
  g_autoptr(AnotDataset) dataset = load_demo ();
  guint n_requests = anot_dataset_get_n_requests (dataset);
  guint n = 10;
  guint differ_seed = 0, differ_request = 0;
  g_autofree char *first_distractors = NULL;

  g_assert_cmpuint (anot_dataset_get_n_items (dataset), >, n);

  for (guint r = 0; r < n_requests; r++)
    {
      AnotRequest *request = anot_dataset_get_request (dataset, r);
      g_autoptr(GError) error = NULL;
      g_autoptr(AnotPool) a = anot_pool_new (dataset, request, n, ANOT_POOL_MODE_SAMPLED,
                                             ANOT_SHUFFLE_MODE_RANDOM, 43, &error);
      g_autoptr(AnotPool) b = anot_pool_new (dataset, request, n, ANOT_POOL_MODE_SAMPLED,
                                             ANOT_SHUFFLE_MODE_RANDOM, 43, &error);
      g_autoptr(AnotPool) c = anot_pool_new (dataset, request, n, ANOT_POOL_MODE_SAMPLED,
                                             ANOT_SHUFFLE_MODE_RANDOM, 44, &error);
      g_autofree char *ids_a = NULL, *ids_b = NULL, *ids_c = NULL;
      g_autofree char *sh_a = NULL, *sh_b = NULL;
      GString *distractors = g_string_new (NULL);

      g_assert_no_error (error);
      check_pool (dataset, request, a, n);
      check_pool (dataset, request, c, n);

      /* Same seed: same items, same order. */
      ids_a = pool_ids (a);
      ids_b = pool_ids (b);
      ids_c = pool_ids (c);
      sh_a = shuffled_ids (a);
      sh_b = shuffled_ids (b);
      g_assert_cmpstr (ids_a, ==, ids_b);
      g_assert_cmpstr (sh_a, ==, sh_b);
      if (strcmp (ids_a, ids_c) != 0)
        differ_seed++;

      /* The distractors (pool minus gold) depend on the request. */
      for (guint i = 0; i < n; i++)
        if (i != anot_pool_get_gold_position (a))
          g_string_append_printf (distractors, "%u,",
                                  anot_item_get_index (anot_pool_get_item (a, i)));
      if (first_distractors == NULL)
        first_distractors = g_string_free (distractors, FALSE);
      else
        {
          if (strcmp (first_distractors, distractors->str) != 0)
            differ_request++;
          g_string_free (distractors, TRUE);
        }
    }

  /* With 23 other items and 9 drawn, two equal draws are very unlikely. */
  g_assert_cmpuint (differ_seed, >=, n_requests - 2);
  g_assert_cmpuint (differ_request, >=, n_requests - 3);
}

static void
test_sampled_uniform (void)
{
  g_autoptr(AnotDataset) dataset = load_demo ();
  AnotRequest *request = anot_dataset_get_request (dataset, 0);
  guint n_items = anot_dataset_get_n_items (dataset);
  guint gold = anot_request_get_gold_index (request);
  g_autofree guint *counts = g_new0 (guint, n_items);
  const guint n = 5, trials = 3000;
  double expected = (double) trials * (n - 1) / (n_items - 1);

  for (guint s = 0; s < trials; s++)
    {
      g_autoptr(AnotPool) pool = anot_pool_new (dataset, request, n, ANOT_POOL_MODE_SAMPLED,
                                                ANOT_SHUFFLE_MODE_NONE, s, NULL);

      for (guint i = 0; i < n; i++)
        counts[anot_item_get_index (anot_pool_get_item (pool, i))]++;
    }

  g_assert_cmpuint (counts[gold], ==, trials);
  for (guint i = 0; i < n_items; i++)
    {
      if (i == gold)
        continue;
      /* Binomial std ≈ sqrt(3000 × 0.174 × 0.826) ≈ 21; allow ~5σ. */
      g_assert_cmpfloat (counts[i], >, expected - 105);
      g_assert_cmpfloat (counts[i], <, expected + 105);
    }
}

static void
test_sampled_sizes (void)
{
  g_autoptr(AnotDataset) dataset = load_demo ();
  AnotRequest *request = anot_dataset_get_request (dataset, 3);
  guint n_items = anot_dataset_get_n_items (dataset);
  g_autoptr(GError) error = NULL;
  g_autoptr(AnotPool) all = NULL;
  g_autoptr(AnotPool) one = NULL;
  AnotPool *too_many;

  all = anot_pool_new (dataset, request, n_items, ANOT_POOL_MODE_SAMPLED,
                       ANOT_SHUFFLE_MODE_RANDOM, 1, &error);
  g_assert_no_error (error);
  check_pool (dataset, request, all, n_items);
  for (guint i = 0; i < n_items; i++)
    g_assert_cmpuint (anot_item_get_index (anot_pool_get_item (all, i)), ==, i);

  one = anot_pool_new (dataset, request, 1, ANOT_POOL_MODE_SAMPLED,
                       ANOT_SHUFFLE_MODE_MIDDLE, 1, &error);
  g_assert_no_error (error);
  check_pool (dataset, request, one, 1);

  too_many = anot_pool_new (dataset, request, n_items + 1, ANOT_POOL_MODE_SAMPLED,
                            ANOT_SHUFFLE_MODE_RANDOM, 1, &error);
  g_assert_error (error, ANOT_ERROR, ANOT_ERROR_INVALID_ARGUMENT);
  g_assert_null (too_many);
  g_clear_error (&error);

  too_many = anot_pool_new (dataset, request, 0, ANOT_POOL_MODE_SAMPLED,
                            ANOT_SHUFFLE_MODE_RANDOM, 1, &error);
  g_assert_error (error, ANOT_ERROR, ANOT_ERROR_INVALID_ARGUMENT);
  g_assert_null (too_many);
}

static void
test_shuffle_none (void)
{
  g_autoptr(AnotDataset) dataset = load_demo ();

  for (guint r = 0; r < anot_dataset_get_n_requests (dataset); r++)
    {
      AnotRequest *request = anot_dataset_get_request (dataset, r);
      g_autoptr(AnotPool) pool = anot_pool_new (dataset, request, 10, ANOT_POOL_MODE_SAMPLED,
                                                ANOT_SHUFFLE_MODE_NONE, 7, NULL);

      check_pool (dataset, request, pool, 10);
      for (guint i = 0; i < 10; i++)
        g_assert_cmpuint (anot_pool_shuffled_to_pool (pool, i), ==, i);
      g_assert_cmpuint (anot_pool_get_shuffled_gold_position (pool), ==,
                        anot_pool_get_gold_position (pool));
    }
}

static void
test_shuffle_middle (void)
{
  g_autoptr(AnotDataset) dataset = load_demo ();
  const guint sizes[] = { 1, 2, 5, 10, 11, 24 };

  for (guint s = 0; s < G_N_ELEMENTS (sizes); s++)
    for (guint r = 0; r < anot_dataset_get_n_requests (dataset); r++)
      {
        AnotRequest *request = anot_dataset_get_request (dataset, r);
        guint n = sizes[s];
        g_autoptr(AnotPool) pool = anot_pool_new (dataset, request, n, ANOT_POOL_MODE_SAMPLED,
                                                  ANOT_SHUFFLE_MODE_MIDDLE, 9, NULL);
        guint gold = anot_pool_get_gold_position (pool);
        guint expected_pool = 0;

        check_pool (dataset, request, pool, n);
        g_assert_cmpuint (anot_pool_get_shuffled_gold_position (pool), ==, n / 2);

        /* The others keep their relative (pool) order. */
        for (guint i = 0; i < n; i++)
          {
            if (i == n / 2)
              continue;
            if (expected_pool == gold)
              expected_pool++;
            g_assert_cmpuint (anot_pool_shuffled_to_pool (pool, i), ==, expected_pool);
            expected_pool++;
          }
      }
}

static void
test_shuffle_random (void)
{
  g_autoptr(AnotDataset) dataset = load_demo ();
  AnotRequest *request = anot_dataset_get_request (dataset, 5);
  guint position_counts[10] = { 0 };
  g_autoptr(GHashTable) orders = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  const guint trials = 2000;

  for (guint s = 0; s < trials; s++)
    {
      g_autoptr(AnotPool) pool = anot_pool_new (dataset, request, 10, ANOT_POOL_MODE_SAMPLED,
                                                ANOT_SHUFFLE_MODE_RANDOM, s, NULL);
      GString *order = g_string_new (NULL);

      check_pool (dataset, request, pool, 10);
      position_counts[anot_pool_get_shuffled_gold_position (pool)]++;
      for (guint i = 0; i < 10; i++)
        g_string_append_printf (order, "%u,", anot_pool_shuffled_to_pool (pool, i));
      g_hash_table_add (orders, g_string_free (order, FALSE));
    }

  /* The gold lands everywhere about equally often (expected 200, σ ≈ 13). */
  for (guint i = 0; i < 10; i++)
    {
      g_assert_cmpuint (position_counts[i], >, 140);
      g_assert_cmpuint (position_counts[i], <, 260);
    }
  /* 10! orders: repeats among 2000 draws are rare. */
  g_assert_cmpuint (g_hash_table_size (orders), >, trials - 5);
}

static void
test_original_demo (void)
{
  g_autoptr(AnotDataset) dataset = load_demo ();
  guint n_items = anot_dataset_get_n_items (dataset);
  guint n_requests = anot_dataset_get_n_requests (dataset);
  g_autofree guint *gold_counts = g_new0 (guint, n_items);
  g_autofree char *first = NULL;
  guint kept = 0, expected_kept = 0;
  const guint n = 5;
  guint threshold;

  /* Independent reference: an item is in the top-n when fewer than n items
   * beat it on (gold count desc, index asc). */
  for (guint r = 0; r < n_requests; r++)
    gold_counts[anot_request_get_gold_index (anot_dataset_get_request (dataset, r))]++;
  for (guint r = 0; r < n_requests; r++)
    {
      guint g = anot_request_get_gold_index (anot_dataset_get_request (dataset, r));
      guint better = 0;

      for (guint i = 0; i < n_items; i++)
        if (gold_counts[i] > gold_counts[g] || (gold_counts[i] == gold_counts[g] && i < g))
          better++;
      if (better < n)
        expected_kept++;
    }
  threshold = expected_kept;

  for (guint r = 0; r < n_requests; r++)
    {
      AnotRequest *request = anot_dataset_get_request (dataset, r);
      g_autoptr(GError) error = NULL;
      g_autoptr(AnotPool) pool = anot_pool_new (dataset, request, n, ANOT_POOL_MODE_ORIGINAL,
                                                ANOT_SHUFFLE_MODE_RANDOM, 43, &error);

      if (pool == NULL)
        {
          g_assert_error (error, ANOT_ERROR, ANOT_ERROR_GOLD_NOT_IN_POOL);
          continue;
        }
      g_assert_no_error (error);
      check_pool (dataset, request, pool, n);
      kept++;

      /* Every kept request sees the same n items. */
      if (first == NULL)
        first = pool_ids (pool);
      else
        {
          g_autofree char *ids = pool_ids (pool);
          g_assert_cmpstr (ids, ==, first);
        }
    }
  g_assert_cmpuint (kept, ==, threshold);
  g_assert_cmpuint (kept, <, n_requests);

  /* N at least the number of items: the whole dataset, nothing dropped. */
  for (guint r = 0; r < n_requests; r++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(AnotPool) pool = anot_pool_new (dataset, anot_dataset_get_request (dataset, r),
                                                n_items + 10, ANOT_POOL_MODE_ORIGINAL,
                                                ANOT_SHUFFLE_MODE_NONE, 43, &error);
      g_assert_no_error (error);
      g_assert_cmpuint (anot_pool_get_size (pool), ==, n_items);
    }
}

static void
test_original_philly (void)
{
  g_autoptr(AnotDataset) dataset = load_philly ();
  const guint ns[] = { 10, 20, 30, 40, 50 };
  /* Published by the original framework (methods.md §0.2). */
  const guint expected[] = { 66, 100, 100, 100, 100 };

  if (dataset == NULL)
    {
      g_test_skip ("philly_cafes data not found (ANOT_PHILLY_DATA)");
      return;
    }

  for (guint i = 0; i < G_N_ELEMENTS (ns); i++)
    {
      guint kept = 0;

      for (guint r = 0; r < anot_dataset_get_n_requests (dataset); r++)
        {
          AnotRequest *request = anot_dataset_get_request (dataset, r);
          g_autoptr(GError) error = NULL;
          g_autoptr(AnotPool) pool = anot_pool_new (dataset, request, ns[i],
                                                    ANOT_POOL_MODE_ORIGINAL,
                                                    ANOT_SHUFFLE_MODE_RANDOM, 43, &error);

          if (pool != NULL)
            {
              check_pool (dataset, request, pool, ns[i]);
              kept++;
            }
          else
            g_assert_error (error, ANOT_ERROR, ANOT_ERROR_GOLD_NOT_IN_POOL);
        }
      g_test_message ("original pool, N=%u: %u requests kept", ns[i], kept);
      g_assert_cmpuint (kept, ==, expected[i]);
    }
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);

  g_test_add_func ("/pool/seed-derive", test_seed_derive);
  g_test_add_func ("/pool/sampled", test_sampled);
  g_test_add_func ("/pool/sampled-uniform", test_sampled_uniform);
  g_test_add_func ("/pool/sampled-sizes", test_sampled_sizes);
  g_test_add_func ("/pool/shuffle-none", test_shuffle_none);
  g_test_add_func ("/pool/shuffle-middle", test_shuffle_middle);
  g_test_add_func ("/pool/shuffle-random", test_shuffle_random);
  g_test_add_func ("/pool/original-demo", test_original_demo);
  g_test_add_func ("/pool/original-philly", test_original_philly);

  return g_test_run ();
}
