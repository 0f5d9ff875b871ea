/* test-comparison.c: results read back, bootstrap intervals, McNemar tests,
 * the refusal to pair different pools, and `anot-run compare`
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <anot/anot.h>

#include <glib/gstdio.h>
#include <math.h>
#include <string.h>


#define PYTHON "/usr/bin/python3"

/* The documented resampling, written again in Python: SplitMix64, index =
 * output mod n, mean of n draws, numpy's linear quantiles; and the cell
 * seed (FNV-1a of the key XOR the seed, one SplitMix64 step); and exact
 * binomial tails with integers. */
static const char reference_py[] =
  "import json, sys\n"
  "from math import comb, floor\n"
  "from fractions import Fraction\n"
  "M = (1 << 64) - 1\n"
  "def splitmix(state):\n"
  "    state = (state + 0x9E3779B97F4A7C15) & M\n"
  "    z = state\n"
  "    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & M\n"
  "    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M\n"
  "    return state, z ^ (z >> 31)\n"
  "def quantile(s, q):\n"
  "    h = (len(s) - 1) * q\n"
  "    lo = floor(h)\n"
  "    if lo + 1 >= len(s):\n"
  "        return s[-1]\n"
  "    return s[lo] + (h - lo) * (s[lo + 1] - s[lo])\n"
  "def bootstrap(values, b, seed, level):\n"
  "    n, state, stats = len(values), seed, []\n"
  "    for _ in range(b):\n"
  "        total = 0.0\n"
  "        for _ in range(n):\n"
  "            state, x = splitmix(state)\n"
  "            total += values[x % n]\n"
  "        stats.append(total / n)\n"
  "    stats.sort()\n"
  "    q = (1.0 - level) / 2.0\n"
  "    return [sum(values) / n, quantile(stats, q), quantile(stats, 1.0 - q)]\n"
  "def cell_seed(seed, key):\n"
  "    h = 0xcbf29ce484222325\n"
  "    for c in key.encode():\n"
  "        h = ((h ^ c) * 0x100000001b3) & M\n"
  "    return splitmix(seed ^ h)[1]\n"
  "def mcnemar(b, c):\n"
  "    n = b + c\n"
  "    if n == 0:\n"
  "        return 1.0\n"
  "    tail = Fraction(sum(comb(n, i) for i in range(min(b, c) + 1)), 2 ** n)\n"
  "    return float(min(Fraction(1), 2 * tail))\n"
  "job = json.load(sys.stdin)\n"
  "out = {'bootstrap': bootstrap(job['values'], job['resamples'], job['seed'], job['level']),\n"
  "       'cell_seed': str(cell_seed(job['seed'], job['key'])),\n"
  "       'mcnemar': [mcnemar(b, c) for b, c in job['pairs']]}\n"
  "print(json.dumps(out))\n";

static JsonNode *
run_reference (const char *job)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *script = NULL;
  g_autofree char *out = NULL;
  g_autofree char *err = NULL;
  g_autoptr(GSubprocess) process = NULL;
  JsonNode *node;
  int fd;

  fd = g_file_open_tmp ("anot-reference-XXXXXX.py", &script, &error);
  g_assert_no_error (error);
  close (fd);
  g_assert_true (g_file_set_contents (script, reference_py, -1, &error));
  process = g_subprocess_new (G_SUBPROCESS_FLAGS_STDIN_PIPE | G_SUBPROCESS_FLAGS_STDOUT_PIPE |
                              G_SUBPROCESS_FLAGS_STDERR_PIPE, &error, PYTHON, script, NULL);
  g_assert_no_error (error);
  g_assert_true (g_subprocess_communicate_utf8 (process, job, NULL, &out, &err, &error));
  g_assert_no_error (error);
  g_unlink (script);
  if (!g_subprocess_get_successful (process))
    g_error ("reference failed: %s", err);
  node = json_from_string (out, &error);
  g_assert_no_error (error);
  return node;
}

static void
test_bootstrap_known (void)
{
  double ones[40], zeros[17], mean, lower, upper;

  for (guint i = 0; i < G_N_ELEMENTS (ones); i++)
    ones[i] = 1.0;
  for (guint i = 0; i < G_N_ELEMENTS (zeros); i++)
    zeros[i] = 0.0;

  /* Every request a hit: every resample is all hits. */
  g_assert_true (anot_comparison_bootstrap_interval (ones, G_N_ELEMENTS (ones), 10000, 42, 0.95,
                                                     &mean, &lower, &upper));
  g_assert_cmpfloat (mean, ==, 1.0);
  g_assert_cmpfloat (lower, ==, 1.0);
  g_assert_cmpfloat (upper, ==, 1.0);
  g_assert_true (anot_comparison_bootstrap_interval (zeros, G_N_ELEMENTS (zeros), 500, 7, 0.9,
                                                     &mean, &lower, &upper));
  g_assert_cmpfloat (mean, ==, 0.0);
  g_assert_cmpfloat (lower, ==, 0.0);
  g_assert_cmpfloat (upper, ==, 0.0);

  /* A single request: nothing to resample but itself. */
  g_assert_true (anot_comparison_bootstrap_interval (ones, 1, 100, 1, 0.95, &mean, &lower, &upper));
  g_assert_cmpfloat (lower, ==, 1.0);

  g_assert_false (anot_comparison_bootstrap_interval (ones, 0, 100, 1, 0.95, &mean, &lower, &upper));
  g_assert_false (anot_comparison_bootstrap_interval (ones, 3, 0, 1, 0.95, &mean, &lower, &upper));
  g_assert_false (anot_comparison_bootstrap_interval (ones, 3, 10, 1, 1.0, &mean, &lower, &upper));
}

static void
test_bootstrap_reference (void)
{
  /* 70 hits out of 100 like the example, plus fractional values
   * (runs pooled) to exercise the interpolation. */
  double values[103];
  g_autoptr(GString) job = g_string_new ("{\"values\": [");
  g_autoptr(JsonNode) reference = NULL;
  JsonObject *object;
  JsonArray *expected;
  double mean, lower, upper;
  const guint64 seed = G_GUINT64_CONSTANT (18446744073709551557);   /* above 2^63 */
  const char *key = "cell|cot||clean|30";

  for (guint i = 0; i < 100; i++)
    values[i] = i % 10 < 7 ? 1.0 : 0.0;
  values[100] = 0.5;
  values[101] = 1.0 / 3.0;
  values[102] = 0.25;
  for (guint i = 0; i < G_N_ELEMENTS (values); i++)
    {
      char buffer[G_ASCII_DTOSTR_BUF_SIZE];

      g_string_append_printf (job, "%s%s", i ? ", " : "",
                              g_ascii_dtostr (buffer, sizeof buffer, values[i]));
    }
  g_string_append_printf (job, "], \"resamples\": 3001, \"seed\": %" G_GUINT64_FORMAT
                          ", \"level\": 0.95, \"key\": \"%s\", \"pairs\": []}", seed, key);
  reference = run_reference (job->str);
  object = json_node_get_object (reference);
  expected = json_object_get_array_member (object, "bootstrap");

  g_assert_true (anot_comparison_bootstrap_interval (values, G_N_ELEMENTS (values), 3001, seed, 0.95,
                                                     &mean, &lower, &upper));
  /* The same operations in the same order: equal to the last bit. */
  g_assert_cmpfloat (mean, ==, json_array_get_double_element (expected, 0));
  g_assert_cmpfloat (lower, ==, json_array_get_double_element (expected, 1));
  g_assert_cmpfloat (upper, ==, json_array_get_double_element (expected, 2));
  /* And near the normal approximation of ±0.09 around 0.70. */
  g_assert_cmpfloat (upper - lower, >, 0.14);
  g_assert_cmpfloat (upper - lower, <, 0.22);

  {
    g_autofree char *cell_seed = g_strdup_printf ("%" G_GUINT64_FORMAT,
                                                  anot_comparison_cell_seed (seed, key));

    g_assert_cmpstr (cell_seed, ==, json_object_get_string_member (object, "cell_seed"));
  }
}

/* The intervals mean what they say: over many benchmarks of 97 requests
 * drawn with a true Hits@1 of 0.7, the 95% interval holds 0.7 about 95%
 * of the time and the 80% interval about 80% (measured: 0.953 and 0.823).
 * 97 rather than 100 requests: 0.7 is then no mean a benchmark can have,
 * so the closed ends of intervals on the lattice k/n do not inflate the
 * count (with 100, the 80% interval covers 86%).  Fixed seeds: the counts
 * are the same on every run. */
static void
test_bootstrap_coverage (void)
{
  g_autoptr(GRand) rand = g_rand_new_with_seed (2024);
  static const double levels[] = { 0.95, 0.80 };
  const guint n_samples = 400, n = 97;
  double values[97];

  for (guint l = 0; l < G_N_ELEMENTS (levels); l++)
    {
      guint covered = 0;
      double coverage;

      for (guint s = 0; s < n_samples; s++)
        {
          double lower, upper;

          for (guint i = 0; i < n; i++)
            values[i] = g_rand_double (rand) < 0.7 ? 1.0 : 0.0;
          g_assert_true (anot_comparison_bootstrap_interval (values, n, 2000, s, levels[l],
                                                             NULL, &lower, &upper));
          covered += lower <= 0.7 && 0.7 <= upper;
        }
      coverage = (double) covered / n_samples;
      g_test_message ("level %.2f: coverage %.3f", levels[l], coverage);
      g_assert_cmpfloat (coverage, >, levels[l] - 0.05);
      g_assert_cmpfloat (coverage, <, levels[l] + 0.04);
    }
}

/* Between two equally good methods the test rejects at 5% at most 5% of
 * the time (measured: 3.9%, the exact test is conservative), and between a
 * method right 80% of the time and one right 60% it mostly does on 100
 * requests (measured: 85%). */
static void
test_mcnemar_calibration (void)
{
  g_autoptr(GRand) rand = g_rand_new_with_seed (7);
  const guint n_samples = 2000, n = 100;
  double alt_p[] = { 0.6, 0.8 };
  guint rejected[2] = { 0, 0 };

  for (guint h = 0; h < 2; h++)
    for (guint s = 0; s < n_samples; s++)
      {
        guint a_only = 0, b_only = 0;

        for (guint i = 0; i < n; i++)
          {
            gboolean a = g_rand_double (rand) < alt_p[h];
            gboolean b = g_rand_double (rand) < 0.6;

            a_only += a && !b;
            b_only += b && !a;
          }
        rejected[h] += anot_comparison_mcnemar_p (a_only, b_only) < 0.05;
      }
  g_test_message ("rejected at 5%%: %u/%u equal, %u/%u 0.8 vs 0.6",
                  rejected[0], n_samples, rejected[1], n_samples);
  g_assert_cmpuint (rejected[0], <=, n_samples * 0.05 + 20);
  g_assert_cmpuint (rejected[0], >=, n_samples * 0.01);
  g_assert_cmpuint (rejected[1], >=, n_samples * 0.8);
}

static void
test_mcnemar (void)
{
  static const guint pairs[][2] = {
    { 0, 0 }, { 1, 0 }, { 0, 5 }, { 2, 8 }, { 8, 2 }, { 10, 10 }, { 3, 12 }, { 500, 600 }, { 0, 1100 },
  };
  g_autoptr(GString) job = g_string_new ("{\"values\": [1], \"resamples\": 1, \"seed\": 0, "
                                         "\"level\": 0.5, \"key\": \"\", \"pairs\": [");
  g_autoptr(JsonNode) reference = NULL;
  JsonArray *expected;

  /* By hand: 2·(1/32); 2·(1+10+45)/1024; 2·(1+15+105+455)/32768. */
  g_assert_cmpfloat (anot_comparison_mcnemar_p (0, 0), ==, 1.0);
  g_assert_cmpfloat (anot_comparison_mcnemar_p (1, 0), ==, 1.0);
  g_assert_cmpfloat_with_epsilon (anot_comparison_mcnemar_p (0, 5), 0.0625, 1e-15);
  g_assert_cmpfloat_with_epsilon (anot_comparison_mcnemar_p (2, 8), 0.109375, 1e-15);
  g_assert_cmpfloat_with_epsilon (anot_comparison_mcnemar_p (8, 2), 0.109375, 1e-15);
  g_assert_cmpfloat (anot_comparison_mcnemar_p (10, 10), ==, 1.0);
  g_assert_cmpfloat_with_epsilon (anot_comparison_mcnemar_p (3, 12), 0.03515625, 1e-15);

  for (guint i = 0; i < G_N_ELEMENTS (pairs); i++)
    g_string_append_printf (job, "%s[%u, %u]", i ? ", " : "", pairs[i][0], pairs[i][1]);
  g_string_append (job, "]}");
  reference = run_reference (job->str);
  expected = json_object_get_array_member (json_node_get_object (reference), "mcnemar");
  for (guint i = 0; i < G_N_ELEMENTS (pairs); i++)
    {
      double want = json_array_get_double_element (expected, i);
      double got = anot_comparison_mcnemar_p (pairs[i][0], pairs[i][1]);

      /* Relative: the tail of 0 vs 1100 is 2^-1099, a subnormal. */
      if (want == 0.0)
        g_assert_cmpfloat (got, <, 1e-300);
      else
        g_assert_cmpfloat (fabs (got - want) / want, <, 1e-9);
    }
}

/* ------------------------------------------------------------------------
 * Results directories written by hand
 * --------------------------------------------------------------------- */

typedef struct
{
  const char *method;
  const char *experiment;
  const char *attack;
  guint run;
  guint64 seed;
  const char *pool;
  const char *checksum;
  guint n;
  const char *requests;   /* "R01:1 R02:0 ...": request id and gold rank */
  const char *status;     /* config.json's anot.status, or NULL for none */
} FakeRun;

static void
write_fake_run (const char    *root,
                const FakeRun *f)
{
  g_autofree char *run_name = g_strdup_printf ("run_%u", f->run);
  g_autofree char *dir = g_build_filename (root, f->experiment, f->attack, run_name, NULL);
  g_autofree char *config = NULL;
  g_autofree char *config_path = g_build_filename (dir, "config.json", NULL);
  g_autofree char *results_name = g_strdup_printf ("results_%u.jsonl", f->n);
  g_autofree char *results_path = g_build_filename (dir, results_name, NULL);
  g_autoptr(GString) rows = g_string_new (NULL);
  g_auto(GStrv) items = g_strsplit (f->requests, " ", -1);
  g_autoptr(GError) error = NULL;

  g_assert_cmpint (g_mkdir_with_parents (dir, 0755), ==, 0);
  config = g_strdup_printf ("{\"method\": \"%s\", \"data\": \"fake\", \"k\": 5, "
                            "\"run_name\": \"%s\", \"llm_config\": {\"model\": \"m\"}, "
                            "\"anot\": {\"version\": \"0.1.0\", \"run\": %u, "
                            "\"run_seed\": %" G_GUINT64_FORMAT ", \"seed\": %" G_GUINT64_FORMAT ", "
                            "\"pool\": \"%s\", \"dataset_checksum\": \"%s\", "
                            "\"status\": \"%s\", \"options\": {}}}",
                            f->method, f->experiment, f->run, f->seed + f->run, f->seed,
                            f->pool, f->checksum, f->status != NULL ? f->status : "complete");
  g_assert_true (g_file_set_contents (config_path, config, -1, &error));
  for (guint i = 0; items[i] != NULL; i++)
    {
      g_auto(GStrv) parts = g_strsplit (items[i], ":", 2);
      guint rank = (guint) g_ascii_strtoull (parts[1], NULL, 10);
      g_autoptr(GString) preds = g_string_new (NULL);

      /* The gold is item 1 (gold_idx 0); put it at @rank. */
      for (guint p = 1, other = 2; p <= 5; p++)
        g_string_append_printf (preds, "%s%u", p > 1 ? "," : "", p == rank ? 1 : other++);
      g_string_append_printf (rows, "{\"request_id\": \"%s\", \"group\": \"G%u\", "
                              "\"pred_indices\": [%s], \"gold_idx\": 0, \"calls\": 2, "
                              "\"prompt_tokens\": 100, \"completion_tokens\": 10, "
                              "\"cost_usd\": 0.5}\n", parts[0], i % 2 + 1, preds->str);
    }
  g_assert_true (g_file_set_contents (results_path, rows->str, -1, &error));
}

static char *
make_root (void)
{
  g_autoptr(GError) error = NULL;
  char *root = g_dir_make_tmp ("anot-compare-XXXXXX", &error);

  g_assert_no_error (error);
  return root;
}

static void
remove_tree (const char *path)
{
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autoptr(GFileEnumerator) children = NULL;

  children = g_file_enumerate_children (file, G_FILE_ATTRIBUTE_STANDARD_NAME,
                                        G_FILE_QUERY_INFO_NOFOLLOW_SYMLINKS, NULL, NULL);
  if (children != NULL)
    {
      GFileInfo *info;

      while ((info = g_file_enumerator_next_file (children, NULL, NULL)) != NULL)
        {
          g_autofree char *child = g_build_filename (path, g_file_info_get_name (info), NULL);

          remove_tree (child);
          g_object_unref (info);
        }
    }
  g_file_delete (file, NULL, NULL);
}

/* Baseline "base": R01..R10, hits on R01..R05; method "m": hits on
 * R01..R03 and R06..R09, so 4 wins and 2 losses of Hits@1. */
#define BASE_RANKS "R01:1 R02:1 R03:1 R04:1 R05:1 R06:0 R07:2 R08:3 R09:0 R10:0"
#define M_RANKS    "R01:1 R02:1 R03:1 R04:2 R05:0 R06:1 R07:1 R08:1 R09:1 R10:0"

static void
test_results_and_pairing (void)
{
  g_autofree char *root = make_root ();
  g_autoptr(GError) error = NULL;
  g_autoptr(AnotResults) results = NULL;
  g_autoptr(AnotComparison) comparison = NULL;
  g_autoptr(JsonNode) json = NULL;
  g_autofree char *base_dir = NULL;
  g_autofree char *m_dir = NULL;
  JsonObject *pair, *cell, *hits;
  JsonArray *rows;
  FakeRun base = { "base", "base_fake", "clean", 1, 42, "sampled", "abc", 10, BASE_RANKS };
  FakeRun m = { "m", "m_fake", "clean", 1, 42, "sampled", "abc", 10, M_RANKS };
  FakeRun m2 = m;

  write_fake_run (root, &base);
  write_fake_run (root, &m);
  /* A second run of m: R01 lost, so R01 averages 0.5 over its runs. */
  m2.run = 2;
  m2.requests = "R01:0 R02:1 R03:1 R04:2 R05:0 R06:1 R07:1 R08:1 R09:1 R10:0";
  write_fake_run (root, &m2);

  base_dir = g_build_filename (root, "base_fake", NULL);
  m_dir = g_build_filename (root, "m_fake", "clean", NULL);
  results = anot_results_new ();
  g_assert_true (anot_results_add_directory (results, base_dir, &error));
  g_assert_no_error (error);
  g_assert_true (anot_results_add_directory (results, m_dir, &error));
  g_assert_cmpuint (anot_results_get_n_runs (results), ==, 3);
  g_assert_cmpuint (anot_results_get_n_rows (results), ==, 30);
  /* Reading a directory again adds nothing. */
  g_assert_true (anot_results_add_directory (results, root, &error));
  g_assert_cmpuint (anot_results_get_n_rows (results), ==, 30);

  rows = anot_results_get_rows (results);
  {
    JsonObject *row = json_array_get_object_element (rows, 6);   /* base R07 */

    g_assert_cmpstr (json_object_get_string_member (row, "method"), ==, "base");
    g_assert_cmpstr (json_object_get_string_member (row, "request_id"), ==, "R07");
    g_assert_cmpint (json_object_get_int_member (row, "gold_rank"), ==, 2);
    g_assert_cmpint (json_object_get_int_member (row, "hits_at_1"), ==, 0);
    g_assert_cmpint (json_object_get_int_member (row, "hits_at_3"), ==, 1);
    g_assert_cmpfloat (json_object_get_double_member (row, "reciprocal_rank"), ==, 0.5);
    g_assert_cmpint (json_object_get_int_member (row, "tokens"), ==, 110);
    g_assert_cmpstr (json_object_get_string_member (row, "dataset_checksum"), ==, "abc");
  }

  comparison = anot_comparison_new (results);
  anot_comparison_set_baseline (comparison, "base");
  anot_comparison_set_resamples (comparison, 2000);
  g_assert_true (anot_comparison_compute (comparison, &error));
  g_assert_no_error (error);
  json = anot_comparison_to_json (comparison);

  cell = json_array_get_object_element (json_object_get_array_member (json_node_get_object (json), "cells"), 1);
  g_assert_cmpstr (json_object_get_string_member (cell, "method"), ==, "m");
  g_assert_cmpint (json_object_get_int_member (cell, "runs"), ==, 2);
  g_assert_cmpint (json_object_get_int_member (cell, "requests"), ==, 10);
  hits = json_object_get_object_member (cell, "hits_at_1");
  /* Per request averaged over runs: (0.5 + 6) / 10. */
  g_assert_cmpfloat_with_epsilon (json_object_get_double_member (hits, "mean"), 0.65, 1e-12);

  pair = json_array_get_object_element (json_object_get_array_member (json_node_get_object (json), "paired"), 0);
  g_assert_cmpstr (json_object_get_string_member (pair, "method"), ==, "m");
  g_assert_cmpstr (json_object_get_string_member (pair, "baseline"), ==, "base");
  /* Only run 1 is in both. */
  g_assert_cmpint (json_object_get_int_member (pair, "runs"), ==, 1);
  g_assert_cmpint (json_object_get_int_member (pair, "pairs"), ==, 10);
  hits = json_object_get_object_member (pair, "hits_at_1");
  g_assert_cmpfloat_with_epsilon (json_object_get_double_member (hits, "diff"), 0.2, 1e-12);
  g_assert_cmpfloat (json_object_get_double_member (hits, "lower"), <=, 0.2);
  g_assert_cmpfloat (json_object_get_double_member (hits, "upper"), >=, 0.2);
  {
    JsonObject *mcnemar = json_object_get_object_member (pair, "mcnemar");

    g_assert_cmpint (json_object_get_int_member (mcnemar, "method_only"), ==, 4);
    g_assert_cmpint (json_object_get_int_member (mcnemar, "baseline_only"), ==, 2);
    /* 2·(1+6+15)/64 */
    g_assert_cmpfloat_with_epsilon (json_object_get_double_member (mcnemar, "p_value"), 0.6875, 1e-12);
  }

  /* The same seed gives the same numbers; another seed other intervals. */
  {
    g_autoptr(AnotComparison) again = anot_comparison_new (results);
    g_autoptr(JsonNode) json2 = NULL;
    g_autofree char *a = NULL;
    g_autofree char *b = NULL;

    anot_comparison_set_baseline (again, "base");
    anot_comparison_set_resamples (again, 2000);
    g_assert_true (anot_comparison_compute (again, &error));
    json2 = anot_comparison_to_json (again);
    a = json_to_string (json, FALSE);
    b = json_to_string (json2, FALSE);
    g_assert_cmpstr (a, ==, b);
  }

  /* An unknown baseline is named with the methods there are. */
  anot_comparison_set_baseline (comparison, "cot");
  g_assert_false (anot_comparison_compute (comparison, &error));
  g_assert_error (error, ANOT_ERROR, ANOT_ERROR_INVALID_ARGUMENT);
  g_assert_nonnull (strstr (error->message, "base, m"));

  remove_tree (root);
}

static void
refused (const FakeRun *other,
         const char    *what)
{
  g_autofree char *root = make_root ();
  g_autoptr(GError) error = NULL;
  g_autoptr(AnotResults) results = NULL;
  g_autoptr(AnotComparison) comparison = NULL;
  FakeRun base = { "base", "base_fake", "clean", 1, 42, "sampled", "abc", 10, BASE_RANKS };

  write_fake_run (root, &base);
  write_fake_run (root, other);
  results = anot_results_load (root, &error);
  g_assert_no_error (error);
  comparison = anot_comparison_new (results);
  anot_comparison_set_resamples (comparison, 10);
  g_assert_false (anot_comparison_compute (comparison, &error));
  g_assert_error (error, ANOT_ERROR, ANOT_ERROR_NOT_COMPARABLE);
  g_test_message ("%s", error->message);
  g_assert_nonnull (strstr (error->message, what));
  g_assert_nonnull (strstr (error->message, "run 1"));
  g_assert_null (anot_comparison_to_json (comparison));
  remove_tree (root);
}

static void
test_refusals (void)
{
  FakeRun m = { "m", "m_fake", "clean", 1, 42, "sampled", "abc", 10, M_RANKS };
  FakeRun other;

  other = m;
  other.seed = 7;
  refused (&other, "the seed differs: 8 (--seed 7)");
  other = m;
  other.pool = "original";
  refused (&other, "the pool mode differs: original");
  other = m;
  other.checksum = "def";
  refused (&other, "the dataset checksum differs: def");
}

/* Different request subsets are no refusal: each side's table is over its
 * own requests, the pairing over the requests both ran, and the tables
 * say how many were left out of it. */
static void
paired_on_subset (const FakeRun *other,
                  guint          pairs,
                  guint          method_unpaired,
                  guint          baseline_unpaired,
                  const char    *note)
{
  g_autofree char *root = make_root ();
  g_autoptr(GError) error = NULL;
  g_autoptr(AnotResults) results = NULL;
  g_autoptr(AnotComparison) comparison = NULL;
  g_autoptr(JsonNode) json = NULL;
  g_autofree char *text = NULL;
  g_autofree char *latex = NULL;
  g_auto(GStrv) lines = NULL;
  FakeRun base = { "base", "base_fake", "clean", 1, 42, "sampled", "abc", 10, BASE_RANKS };
  JsonObject *pair, *unpaired;
  JsonArray *cells;

  write_fake_run (root, &base);
  write_fake_run (root, other);
  results = anot_results_load (root, &error);
  g_assert_no_error (error);
  comparison = anot_comparison_new (results);
  anot_comparison_set_baseline (comparison, "base");
  anot_comparison_set_resamples (comparison, 10);
  g_assert_true (anot_comparison_compute (comparison, &error));
  g_assert_no_error (error);

  json = anot_comparison_to_json (comparison);
  cells = json_object_get_array_member (json_node_get_object (json), "cells");
  g_assert_cmpuint (json_array_get_length (cells), ==, 2);
  for (guint i = 0; i < 2; i++)
    {
      JsonObject *cell = json_array_get_object_element (cells, i);
      gboolean is_base = strcmp (json_object_get_string_member (cell, "method"), "base") == 0;

      g_assert_cmpint (json_object_get_int_member (cell, "requests"), ==,
                       is_base ? 10 : pairs + method_unpaired);
    }
  pair = json_array_get_object_element (json_object_get_array_member (json_node_get_object (json),
                                                                      "paired"), 0);
  g_assert_cmpint (json_object_get_int_member (pair, "pairs"), ==, pairs);
  g_assert_cmpint (json_object_get_int_member (pair, "requests"), ==, pairs);
  unpaired = json_object_get_object_member (pair, "unpaired");
  g_assert_cmpint (json_object_get_int_member (unpaired, "method"), ==, method_unpaired);
  g_assert_cmpint (json_object_get_int_member (unpaired, "baseline"), ==, baseline_unpaired);

  text = anot_comparison_format (comparison, "text", &error);
  g_assert_no_error (error);
  g_test_message ("%s", text);
  g_assert_nonnull (strstr (text, note));
  latex = anot_comparison_format (comparison, "latex", &error);
  g_assert_no_error (error);
  lines = g_strsplit (latex, "\n", -1);
  g_assert_nonnull (strstr (latex, "\n% m against base at N=10: paired on the "));
  for (guint i = 0; lines[i] != NULL; i++)
    g_assert_false (g_str_has_prefix (lines[i], "m against"));   /* the note's lines stay LaTeX comments */
  remove_tree (root);
}

static void
test_subsets (void)
{
  FakeRun m = { "m", "m_fake", "clean", 1, 42, "sampled", "abc", 10, M_RANKS };
  FakeRun other;

  other = m;
  other.requests = "R01:1 R02:1 R03:1 R04:2 R05:0 R06:1 R07:1 R08:1 R09:1 R11:0";
  paired_on_subset (&other, 9, 1, 1,
                    "m against base at N=10: paired on the 9 (request, run) cells both ran; "
                    "1 only m ran, 1 only base");
  /* An expensive method on 3 requests. */
  other = m;
  other.requests = "R01:1 R02:1 R03:1";
  paired_on_subset (&other, 3, 0, 7, "paired on the 3 (request, run) cells both ran; 0 only m ran, 7 only base");
  /* A run killed before its end: the note says how to finish it. */
  other.status = "running";
  paired_on_subset (&other, 3, 0, 7, "clean/run_1 is “running”: finish it with anot-run --resume ");
}

static void
test_robustness_pairs (void)
{
  g_autofree char *root = make_root ();
  g_autoptr(GError) error = NULL;
  g_autoptr(AnotResults) results = NULL;
  g_autoptr(AnotComparison) comparison = NULL;
  g_autoptr(JsonNode) json = NULL;
  JsonArray *robustness;
  JsonObject *pair, *mcnemar;
  FakeRun clean = { "m", "m_fake", "clean", 1, 42, "sampled", "abc", 10, BASE_RANKS };
  FakeRun typo = { "m", "m_fake", "typo_10", 1, 42, "sampled", "abc", 10,
                   "R01:0 R02:0 R03:0 R04:1 R05:1 R06:0 R07:2 R08:3 R09:0 R10:0" };

  write_fake_run (root, &clean);
  write_fake_run (root, &typo);
  results = anot_results_load (root, &error);
  g_assert_no_error (error);
  comparison = anot_comparison_new (results);
  anot_comparison_set_resamples (comparison, 500);
  g_assert_true (anot_comparison_compute (comparison, &error));
  json = anot_comparison_to_json (comparison);
  robustness = json_object_get_array_member (json_node_get_object (json), "robustness");
  g_assert_cmpuint (json_array_get_length (robustness), ==, 1);
  pair = json_array_get_object_element (robustness, 0);
  g_assert_cmpstr (json_object_get_string_member (pair, "attack"), ==, "typo_10");
  g_assert_cmpfloat_with_epsilon (json_object_get_double_member (
    json_object_get_object_member (pair, "hits_at_1"), "diff"), -0.3, 1e-12);
  mcnemar = json_object_get_object_member (pair, "mcnemar");
  g_assert_cmpint (json_object_get_int_member (mcnemar, "attacked_only"), ==, 0);
  g_assert_cmpint (json_object_get_int_member (mcnemar, "clean_only"), ==, 3);
  g_assert_cmpfloat_with_epsilon (json_object_get_double_member (mcnemar, "p_value"), 0.25, 1e-12);
  remove_tree (root);
}

/* ------------------------------------------------------------------------
 * anot-run compare
 * --------------------------------------------------------------------- */

static int
run_cli (char **out,
         char **err,
         ...)
{
  g_autoptr(GPtrArray) argv = g_ptr_array_new ();
  g_autoptr(GError) error = NULL;
  g_autoptr(GSubprocess) process = NULL;
  const char *arg;
  va_list args;

  g_ptr_array_add (argv, (gpointer) g_getenv ("ANOT_RUN"));
  va_start (args, err);
  while ((arg = va_arg (args, const char *)) != NULL)
    g_ptr_array_add (argv, (gpointer) arg);
  va_end (args);
  g_ptr_array_add (argv, NULL);

  process = g_subprocess_newv ((const char * const *) argv->pdata,
                               G_SUBPROCESS_FLAGS_STDOUT_PIPE | G_SUBPROCESS_FLAGS_STDERR_PIPE, &error);
  g_assert_no_error (error);
  g_assert_true (g_subprocess_communicate_utf8 (process, NULL, NULL, out, err, &error));
  g_assert_no_error (error);
  return g_subprocess_get_exit_status (process);
}

static void
test_cli (void)
{
  g_autofree char *root = make_root ();
  g_autofree char *out = NULL;
  g_autofree char *err = NULL;
  g_autofree char *base_dir = NULL;
  g_autofree char *m_dir = NULL;
  g_auto(GStrv) lines = NULL;
  FakeRun base = { "base", "base_fake", "clean", 1, 42, "sampled", "abc", 10, BASE_RANKS };
  FakeRun m = { "m", "m_fake", "clean", 1, 42, "sampled", "abc", 10, M_RANKS };

  if (g_getenv ("ANOT_RUN") == NULL)
    {
      g_test_skip ("ANOT_RUN is not set");
      return;
    }
  write_fake_run (root, &base);
  write_fake_run (root, &m);
  base_dir = g_build_filename (root, "base_fake", NULL);
  m_dir = g_build_filename (root, "m_fake", NULL);

  g_assert_cmpint (run_cli (&out, &err, "compare", base_dir, m_dir, "--resamples", "1000", NULL), ==, 0);
  g_assert_nonnull (strstr (out, "Hits@K and MRR with 95% bootstrap intervals (1000 resamples"));
  g_assert_nonnull (strstr (out, "Against base on the same (request, N, run) cells"));
  /* The aligned row of m against base: Hits@1 0.500 → 0.700, 4 wins, 2 losses, p 0.688. */
  g_assert_nonnull (strstr (out, "0.500 → 0.700"));
  g_assert_nonnull (strstr (out, "4/2  0.688\n"));
  g_clear_pointer (&out, g_free);
  g_clear_pointer (&err, g_free);

  g_assert_cmpint (run_cli (&out, &err, "compare", root, "--format", "markdown", "--baseline", "m",
                            "--resamples", "100", NULL), ==, 0);
  g_assert_nonnull (strstr (out, "| method | N | requests | runs | Hits@1 | Hits@3 | Hits@5 | MRR |\n"
                                 "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n"));
  g_assert_nonnull (strstr (out, "| base | m | 10 | 10 | 0.700 → 0.500 |"));
  g_clear_pointer (&out, g_free);
  g_clear_pointer (&err, g_free);

  g_assert_cmpint (run_cli (&out, &err, "compare", root, "--format", "latex", "--resamples", "100", NULL), ==, 0);
  g_assert_nonnull (strstr (out, "\\begin{tabular}{lrrrrrrr}\n\\toprule\n"));
  g_assert_nonnull (strstr (out, "$\\Delta$Hits@1"));
  g_assert_nonnull (strstr (out, "\\bottomrule\n\\end{tabular}\n"));
  g_clear_pointer (&out, g_free);
  g_clear_pointer (&err, g_free);

  g_assert_cmpint (run_cli (&out, &err, "compare", root, "--format", "csv", "--resamples", "100", NULL), ==, 0);
  lines = g_strsplit (out, "\n", -1);
  g_assert_cmpstr (lines[0], ==, "table,method,baseline,attack,n_candidates,requests,runs,metric,"
                                 "estimate,lower,upper,p_value,method_only,baseline_only,"
                                 "unscored,shrunk,reviews_dropped,excluded");
  g_assert_true (g_str_has_prefix (lines[1], "cells,base,,clean,10,10,1,hits_at_1,0.5,"));
  g_assert_true (g_str_has_prefix (lines[9], "paired,m,base,clean,10,10,1,hits_at_1,0.2,"));
  g_assert_true (g_str_has_suffix (lines[9], ",0.6875,4,2,,,,0"));
  g_clear_pointer (&out, g_free);
  g_clear_pointer (&err, g_free);

  g_assert_cmpint (run_cli (&out, &err, "compare", root, "--format", "json", "--resamples", "10", NULL), ==, 0);
  g_assert_nonnull (strstr (out, "\"p_value\" : 0.6875"));
  g_clear_pointer (&out, g_free);
  g_clear_pointer (&err, g_free);

  /* Usage errors (2) and a refusal (1). */
  g_assert_cmpint (run_cli (&out, &err, "compare", root, "--format", "html", NULL), ==, 2);
  g_assert_nonnull (strstr (err, "unknown --format “html”"));
  g_clear_pointer (&out, g_free);
  g_clear_pointer (&err, g_free);
  g_assert_cmpint (run_cli (&out, &err, "compare", NULL), ==, 2);
  g_clear_pointer (&out, g_free);
  g_clear_pointer (&err, g_free);
  g_assert_cmpint (run_cli (&out, &err, "compare", root, "--baseline", "cot", NULL), ==, 2);
  g_clear_pointer (&out, g_free);
  g_clear_pointer (&err, g_free);

  m.experiment = "m_other_seed";
  m.seed = 9;
  write_fake_run (root, &m);
  g_free (m_dir);
  m_dir = g_build_filename (root, "m_other_seed", NULL);
  g_assert_cmpint (run_cli (&out, &err, "compare", base_dir, m_dir, NULL), ==, 1);
  g_assert_nonnull (strstr (err, "the seed differs"));
  g_clear_pointer (&out, g_free);
  g_clear_pointer (&err, g_free);

  remove_tree (root);
}

/* --by-condition on rows written by hand: two runs of four requests.
 * R01: a hit in both runs.  R02: a near miss (one item_meta failed) in run
 * 1, a miss failing a review_text and an item_meta condition in run 2.
 * R03: a miss failing nothing (an unknown) in run 1, failed in run 2 (no
 * first item).  R04: a row written before the fields (not ranked). */
static const char *const failure_rows[2] = {
  "{\"request_id\":\"R01\",\"group\":\"G1\",\"pred_indices\":[1,2],\"gold_idx\":0,"
  "\"top1_item\":\"a\",\"top1_conditions\":{\"x\":1,\"y\":1},\"top1_failed\":[],"
  "\"condition_kinds\":{\"x\":\"item_meta\",\"y\":\"review_text\"}}\n"
  "{\"request_id\":\"R02\",\"group\":\"G1\",\"pred_indices\":[2,1],\"gold_idx\":0,"
  "\"top1_item\":\"b\",\"top1_conditions\":{\"x\":-1,\"y\":1},\"top1_failed\":[\"x\"],"
  "\"condition_kinds\":{\"x\":\"item_meta\",\"y\":\"review_text\"}}\n"
  "{\"request_id\":\"R03\",\"group\":\"G2\",\"pred_indices\":[2,1],\"gold_idx\":0,"
  "\"top1_item\":\"b\",\"top1_conditions\":{\"x\":0,\"y\":-1},\"top1_failed\":[],"
  "\"condition_kinds\":{\"x\":\"item_meta\",\"y\":\"review_text\"}}\n"
  "{\"request_id\":\"R04\",\"group\":\"G2\",\"pred_indices\":[2,1],\"gold_idx\":0}\n",
  "{\"request_id\":\"R01\",\"group\":\"G1\",\"pred_indices\":[1,2],\"gold_idx\":0,"
  "\"top1_item\":\"a\",\"top1_conditions\":{\"x\":1,\"y\":1},\"top1_failed\":[],"
  "\"condition_kinds\":{\"x\":\"item_meta\",\"y\":\"review_text\"}}\n"
  "{\"request_id\":\"R02\",\"group\":\"G1\",\"pred_indices\":[2,1],\"gold_idx\":0,"
  "\"top1_item\":\"c\",\"top1_conditions\":{\"x\":-1,\"y\":-1},\"top1_failed\":[\"x\",\"y\"],"
  "\"condition_kinds\":{\"x\":\"item_meta\",\"y\":\"review_text\"}}\n"
  "{\"request_id\":\"R03\",\"group\":\"G2\",\"pred_indices\":[],\"gold_idx\":0,"
  "\"error\":\"ANOT_ERROR_LLM: down\"}\n"
  "{\"request_id\":\"R04\",\"group\":\"G2\",\"pred_indices\":[2,1],\"gold_idx\":0}\n",
};

static JsonObject *
failure_cell (JsonArray  *cells,
              const char *group)
{
  for (guint i = 0; i < json_array_get_length (cells); i++)
    {
      JsonObject *cell = json_array_get_object_element (cells, i);

      if (g_strcmp0 (json_object_get_string_member_with_default (cell, "group", NULL), group) == 0)
        return cell;
    }
  g_assert_not_reached ();
}

static gint64
failure_count (JsonObject *cell,
               const char *measure)
{
  JsonObject *kinds = json_object_get_object_member (cell, "kinds");
  JsonObject *e = json_object_has_member (kinds, measure) ? json_object_get_object_member (kinds, measure)
                                                          : json_object_get_object_member (cell, measure);

  return json_object_get_int_member (e, "count");
}

static void
test_by_condition (void)
{
  g_autofree char *root = make_root ();
  g_autoptr(GError) error = NULL;
  g_autoptr(AnotResults) results = anot_results_new ();
  g_autoptr(AnotComparison) comparison = NULL;
  g_autoptr(JsonNode) json = NULL;
  g_autofree char *text = NULL;
  g_autofree char *csv = NULL;
  g_autofree char *latex = NULL;
  JsonObject *by, *all, *g1, *g2, *near;
  JsonArray *kinds;
  FakeRun f = { "m", "m_fake", "clean", 1, 42, "sampled", "abc", 10, "R01:1" };

  for (guint r = 1; r <= 2; r++)
    {
      g_autofree char *dir = NULL;
      g_autofree char *path = NULL;

      f.run = r;
      write_fake_run (root, &f);
      dir = g_strdup_printf ("%s/m_fake/clean/run_%u", root, r);
      path = g_build_filename (dir, "results_10.jsonl", NULL);
      g_assert_true (g_file_set_contents (path, failure_rows[r - 1], -1, &error));
    }
  g_assert_true (anot_results_add_directory (results, root, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (anot_results_get_n_rows (results), ==, 8);

  comparison = anot_comparison_new (results);
  anot_comparison_set_resamples (comparison, 200);
  g_assert_true (anot_comparison_compute (comparison, &error));
  json = anot_comparison_to_json (comparison);
  g_assert_false (json_object_has_member (json_node_get_object (json), "by_condition"));
  g_clear_pointer (&json, json_node_unref);

  anot_comparison_set_by_condition (comparison, TRUE);
  g_assert_true (anot_comparison_compute (comparison, &error));
  json = anot_comparison_to_json (comparison);
  by = json_object_get_object_member (json_node_get_object (json), "by_condition");
  kinds = json_object_get_array_member (by, "kinds");
  g_assert_cmpuint (json_array_get_length (kinds), ==, 2);
  g_assert_cmpstr (json_array_get_string_element (kinds, 0), ==, "item_meta");
  g_assert_cmpstr (json_array_get_string_element (kinds, 1), ==, "review_text");

  all = failure_cell (json_object_get_array_member (by, "cells"), NULL);
  g_assert_cmpint (json_object_get_int_member (all, "rows"), ==, 8);
  g_assert_cmpint (json_object_get_int_member (all, "runs"), ==, 2);
  /* R01 ×2, R02 ×2, R03 run 1: R03's failed run and R04 are not ranked. */
  g_assert_cmpint (json_object_get_int_member (all, "ranked"), ==, 5);
  g_assert_cmpint (json_object_get_int_member (all, "requests"), ==, 3);
  g_assert_cmpint (failure_count (all, "misses"), ==, 3);
  g_assert_cmpint (failure_count (all, "near_misses"), ==, 1);
  g_assert_cmpint (failure_count (all, "no_failed_condition"), ==, 1);
  g_assert_cmpint (failure_count (all, "item_meta"), ==, 2);
  /* R03 run 1 is -1 on y, but top1_failed (an OR made up for it) rules. */
  g_assert_cmpint (failure_count (all, "review_text"), ==, 1);
  /* Shares pooled per request: misses R01 0, R02 1, R03 1 → 2/3; near
   * misses R02 ½ → 1/6. */
  g_assert_cmpfloat_with_epsilon (json_object_get_double_member (json_object_get_object_member (all, "misses"), "mean"),
                                  2.0 / 3, 1e-12);
  near = json_object_get_object_member (all, "near_misses");
  g_assert_cmpfloat_with_epsilon (json_object_get_double_member (near, "mean"), 1.0 / 6, 1e-12);
  g_assert_cmpfloat (json_object_get_double_member (near, "lower"), <=, 1.0 / 6);
  g_assert_cmpfloat (json_object_get_double_member (near, "upper"), >=, 1.0 / 6);

  g1 = failure_cell (json_object_get_array_member (by, "cells"), "G1");
  g2 = failure_cell (json_object_get_array_member (by, "cells"), "G2");
  g_assert_cmpint (json_object_get_int_member (g1, "ranked"), ==, 4);
  g_assert_cmpint (failure_count (g1, "misses"), ==, 2);
  g_assert_cmpint (json_object_get_int_member (g2, "ranked"), ==, 1);
  g_assert_cmpint (failure_count (g2, "no_failed_condition"), ==, 1);

  text = anot_comparison_format (comparison, "text", &error);
  g_assert_nonnull (strstr (text, "Why the first item was not the gold"));
  g_assert_nonnull (strstr (text, "3 0.67 [")); /* misses, all groups */
  latex = anot_comparison_format (comparison, "latex", &error);
  g_assert_nonnull (strstr (latex, "review\\_text"));
  csv = anot_comparison_format (comparison, "csv", &error);
  g_assert_true (g_str_has_prefix (csv, "table,method,baseline,attack,n_candidates,requests,runs,metric,"
                                        "estimate,lower,upper,p_value,method_only,baseline_only,unscored,shrunk,"
                                        "reviews_dropped,excluded,group,count\n"));
  g_assert_nonnull (strstr (csv, "\nby_condition,m,,clean,10,3,2,ranked,,,,,,,,,,,all,5\n"));
  g_assert_nonnull (strstr (csv, "\nby_condition,m,,clean,10,3,2,near_misses,0.166667,"));
  g_assert_nonnull (strstr (csv, ",,,,,,,,all,1\n"));

  remove_tree (root);
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/comparison/bootstrap/known", test_bootstrap_known);
  g_test_add_func ("/comparison/bootstrap/reference", test_bootstrap_reference);
  g_test_add_func ("/comparison/bootstrap/coverage", test_bootstrap_coverage);
  g_test_add_func ("/comparison/mcnemar", test_mcnemar);
  g_test_add_func ("/comparison/mcnemar/calibration", test_mcnemar_calibration);
  g_test_add_func ("/comparison/results-and-pairing", test_results_and_pairing);
  g_test_add_func ("/comparison/refusals", test_refusals);
  g_test_add_func ("/comparison/subsets", test_subsets);
  g_test_add_func ("/comparison/robustness", test_robustness_pairs);
  g_test_add_func ("/comparison/cli", test_cli);
  g_test_add_func ("/comparison/by-condition", test_by_condition);

  return g_test_run ();
}
