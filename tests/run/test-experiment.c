/* test-experiment.c: the experiment runner and the results it writes
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <anot/anot.h>

#include "anot-test-data.h"
#include <glib/gstdio.h>
#include <string.h>

/* ------------------------------------------------------------------------
 * A method defined by the test: a seeded permutation, optionally slow,
 * failing for one group, and reporting usage, so the runner's handling of
 * timing, errors and usage can be checked.
 * --------------------------------------------------------------------- */

#define TEST_TYPE_METHOD (test_method_get_type ())
G_DECLARE_FINAL_TYPE (TestMethod, test_method, TEST, METHOD, GObject)

struct _TestMethod
{
  GObject parent_instance;
};

static guint test_in_flight;
static guint test_max_in_flight;

static void test_method_iface_init (AnotMethodInterface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE (TestMethod, test_method, G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (ANOT_TYPE_METHOD, test_method_iface_init))

static void
test_method_class_init (TestMethodClass *klass)
{
}

static void
test_method_init (TestMethod *self)
{
}

static gboolean
test_method_finish_cb (gpointer user_data)
{
  GTask *task = user_data;

  test_in_flight--;
  if (!g_task_return_error_if_cancelled (task))
    {
      GError *error = g_object_get_data (G_OBJECT (task), "error");

      if (error != NULL)
        g_task_return_error (task, g_error_copy (error));
      else
        g_task_return_pointer (task, g_object_ref (g_task_get_task_data (task)), g_object_unref);
    }
  return G_SOURCE_REMOVE;
}

/* The calls of `hang-group` with `hang-mode` ignore: never returned, even
 * cancelled, as a method that forgot its task would. */
static GPtrArray *test_never_returned;

/* `hang-mode` honour: returns only once cancelled. */
static gboolean
test_method_poll_cancelled (gpointer user_data)
{
  return g_task_return_error_if_cancelled (G_TASK (user_data)) ? G_SOURCE_REMOVE
                                                               : G_SOURCE_CONTINUE;
}

static void
test_method_rank_async (AnotMethod          *method,
                        AnotQuery           *request,
                        GPtrArray           *candidates,
                        guint                k,
                        AnotMethodContext   *context,
                        GCancellable        *cancellable,
                        GAsyncReadyCallback  callback,
                        gpointer             user_data)
{
  GTask *task = g_task_new (method, cancellable, callback, user_data);
  guint64 seed = anot_method_context_get_seed (context);
  guint32 words[2] = { (guint32) seed, (guint32) (seed >> 32) };
  g_autoptr(GRand) rand = g_rand_new_with_seed_array (words, 2);
  g_autofree guint *order = g_new (guint, candidates->len);
  const char *delay_text = anot_method_context_get_option (context, "test-method.delay-ms");
  const char *fail_group = anot_method_context_get_option (context, "test-method.fail-group");
  guint delay = delay_text ? (guint) g_ascii_strtoull (delay_text, NULL, 10) : 0;
  AnotRanking *ranking = anot_ranking_new ();
  g_autoptr(AnotCompletion) completion = anot_completion_new ("test-model", "ok");
  GSource *source;

  for (guint i = 0; i < candidates->len; i++)
    order[i] = i;
  for (guint i = candidates->len - 1; i > 0; i--)
    {
      guint j = g_rand_int_range (rand, 0, i + 1);
      guint t = order[i];
      order[i] = order[j];
      order[j] = t;
    }
  /* An out-of-range and a repeated index, which the runner must drop. */
  anot_ranking_append (ranking, candidates->len + 3, 1.0);
  for (guint i = 0; i < candidates->len; i++)
    {
      anot_ranking_append (ranking, order[i], 0.5);
      if (i == 0)
        anot_ranking_append (ranking, order[0], 0.5);
    }
  g_task_set_task_data (task, ranking, g_object_unref);

  /* Usage the runner must attribute to this request alone. */
  anot_completion_set_prompt_tokens (completion, strlen (anot_query_get_text (request)));
  anot_completion_set_completion_tokens (completion, 7);
  anot_completion_set_cost_usd (completion, 0.001);
  anot_completion_set_latency_ms (completion, delay);
  anot_usage_add_completion (anot_method_context_get_usage (context), completion);

  if (fail_group != NULL &&
      (strcmp (fail_group, "all") == 0 ||
       g_strcmp0 (fail_group, anot_query_get_group (request)) == 0))
    {
      g_autoptr(GString) message = g_string_new ("scripted failure of ");
      g_string_append (message, anot_query_get_id (request));
      g_string_append_c (message, ' ');
      for (guint i = 0; i < 300; i++)
        g_string_append_c (message, 'x');
      g_object_set_data_full (G_OBJECT (task), "error",
                              g_error_new_literal (ANOT_ERROR, ANOT_ERROR_METHOD_FAILED,
                                                   message->str),
                              (GDestroyNotify) g_error_free);
    }

  if (g_strcmp0 (anot_method_context_get_option (context, "test-method.hang-group"),
                 anot_query_get_group (request)) == 0)
    {
      if (g_strcmp0 (anot_method_context_get_option (context, "test-method.hang-mode"), "honour") == 0)
        {
          source = g_timeout_source_new (20);
          g_task_attach_source (task, source, test_method_poll_cancelled);
          g_source_unref (source);
          g_object_unref (task);
          return;
        }
      if (test_never_returned == NULL)
        test_never_returned = g_ptr_array_new_with_free_func (g_object_unref);
      g_ptr_array_add (test_never_returned, task);
      return;
    }

  test_in_flight++;
  test_max_in_flight = MAX (test_max_in_flight, test_in_flight);
  source = delay ? g_timeout_source_new (delay) : g_idle_source_new ();
  g_source_set_callback (source, test_method_finish_cb, task, g_object_unref);
  g_source_attach (source, g_task_get_context (task));
  g_source_unref (source);
}

static AnotRanking *
test_method_rank_finish (AnotMethod    *method,
                         GAsyncResult  *result,
                         GError       **error)
{
  return g_task_propagate_pointer (G_TASK (result), error);
}

static void
test_method_iface_init (AnotMethodInterface *iface)
{
  iface->rank_async = test_method_rank_async;
  iface->rank_finish = test_method_rank_finish;
}

/* ------------------------------------------------------------------------
 * Helpers
 * --------------------------------------------------------------------- */

typedef struct
{
  char *root;
} Fixture;

static void
fixture_setup (Fixture       *f,
               gconstpointer  data)
{
  g_autoptr(GError) error = NULL;

  f->root = g_dir_make_tmp ("anot-test-experiment-XXXXXX", &error);
  g_assert_no_error (error);
}

static void
fixture_teardown (Fixture       *f,
                  gconstpointer  data)
{
  anot_test_remove_tree (f->root);
  g_free (f->root);
}

static AnotExperiment *
new_experiment (AnotDataset *dataset,
                const char  *method,
                const char  *out,
                const char  *name,
                ...) G_GNUC_NULL_TERMINATED;

static AnotExperiment *
new_experiment (AnotDataset *dataset,
                const char  *method,
                const char  *out,
                const char  *name,
                ...)
{
  AnotExperiment *experiment = anot_experiment_new (dataset, method);
  const char *key;
  va_list args;

  anot_experiment_set_option (experiment, "out", out);
  anot_experiment_set_option (experiment, "name", name);
  va_start (args, name);
  while ((key = va_arg (args, const char *)) != NULL)
    anot_experiment_set_option (experiment, key, va_arg (args, const char *));
  va_end (args);
  return experiment;
}

static void
run_only (AnotExperiment *experiment)
{
  g_autoptr(GError) error = NULL;

  g_assert_true (anot_experiment_run (experiment, NULL, &error));
  g_assert_no_error (error);
}

static AnotMetrics *
run_ok (AnotExperiment *experiment,
        guint           n,
        guint           run)
{
  run_only (experiment);
  return anot_experiment_get_metrics (experiment, n, run);
}

static char *
path_in (const char *first,
         ...) G_GNUC_NULL_TERMINATED;

static char *
path_in (const char *first,
         ...)
{
  va_list args;
  char *path;

  va_start (args, first);
  path = g_build_filename_valist (first, &args);
  va_end (args);
  return path;
}

static JsonObject *
read_json_object (const char *path,
                  JsonParser *parser)
{
  g_autoptr(GError) error = NULL;

  g_assert_true (json_parser_load_from_file (parser, path, &error));
  g_assert_no_error (error);
  g_assert_true (JSON_NODE_HOLDS_OBJECT (json_parser_get_root (parser)));
  return json_node_get_object (json_parser_get_root (parser));
}

/* The rows of a results file, each re-serialised without the fields that
 * legitimately differ between two identical runs (wall-clock based). */
static GPtrArray *
read_rows_for_comparison (const char *path)
{
  g_autofree char *contents = NULL;
  g_auto(GStrv) lines = NULL;
  g_autoptr(GError) error = NULL;
  GPtrArray *rows = g_ptr_array_new_with_free_func (g_free);

  g_assert_true (g_file_get_contents (path, &contents, NULL, &error));
  g_assert_no_error (error);
  lines = g_strsplit (contents, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    {
      g_autoptr(JsonParser) parser = json_parser_new ();
      g_autoptr(JsonGenerator) generator = json_generator_new ();
      JsonObject *row;

      if (*lines[i] == '\0')
        continue;
      g_assert_true (json_parser_load_from_data (parser, lines[i], -1, &error));
      g_assert_no_error (error);
      row = json_node_get_object (json_parser_get_root (parser));
      json_object_remove_member (row, "latency_ms");
      json_generator_set_root (generator, json_parser_get_root (parser));
      g_ptr_array_add (rows, json_generator_to_data (generator, NULL));
    }
  return rows;
}

static void
assert_same_rows (GPtrArray *a,
                  GPtrArray *b)
{
  g_assert_cmpuint (a->len, ==, b->len);
  for (guint i = 0; i < a->len; i++)
    g_assert_cmpstr (g_ptr_array_index (a, i), ==, g_ptr_array_index (b, i));
}

static void
register_test_method (void)
{
  AnotMethodOption *options[] = {
    anot_method_option_new_int ("delay-ms", 0, G_MAXINT, 0, "milliseconds before the answer"),
    anot_method_option_new_string ("fail-group", NULL, "fail the requests of this group (all: every one)"),
    anot_method_option_new_string ("hang-group", NULL, "the requests of this group never finish"),
    anot_method_option_new_choice ("hang-mode", (const char * const[]) { "ignore", "honour", NULL }, 0,
                                   "ignore: never return; honour: return once cancelled"),
  };

  anot_registry_register (anot_registry_get_default (), ANOT_METHOD_EXTENSION_POINT_NAME,
                          TEST_TYPE_METHOD, "test-method",
                          "seeded permutation for the runner's tests");
  anot_registry_declare_method_options (anot_registry_get_default (), "test-method",
                                        options, G_N_ELEMENTS (options));
  for (guint i = 0; i < G_N_ELEMENTS (options); i++)
    g_object_unref (options[i]);
}

/* ------------------------------------------------------------------------
 * Tests
 * --------------------------------------------------------------------- */

static void
test_demo_layout (Fixture       *f,
                  gconstpointer  data)
{
  g_autoptr(AnotDataset) dataset = anot_test_load_demo ();
  g_autoptr(AnotExperiment) experiment =
    new_experiment (dataset, "bm25", f->root, "demo-bm25", "candidates", "10", NULL);
  g_autoptr(AnotMetrics) metrics = run_ok (experiment, 10, 1);
  g_autofree char *run_dir = path_in (f->root, "demo-bm25", "clean", "run_1", NULL);
  g_autofree char *config_path = path_in (run_dir, "config.json", NULL);
  g_autofree char *results = path_in (run_dir, "results_10.jsonl", NULL);
  g_autofree char *usage = path_in (run_dir, "usage.jsonl", NULL);
  g_autofree char *summary_path = path_in (f->root, "demo-bm25", "clean", "summary.json", NULL);
  g_autofree char *scaling = path_in (run_dir, "scaling_summary.json", NULL);
  g_autoptr(JsonParser) config_parser = json_parser_new ();
  g_autoptr(JsonParser) summary_parser = json_parser_new ();
  g_autoptr(GPtrArray) rows = NULL;
  g_autoptr(GPtrArray) results_array = NULL;
  JsonObject *config, *anot, *stats, *summary;
  const char * const config_keys[] = {
    "method", "defense", "data", "k", "parallel", "llm_config", "attack_config", "stats",
    "usage", "timestamp", "benchmark_mode", "run_name", "anot",
  };
  const char * const row_keys[] = {
    "request_id", "pred_indices", "shuffled_preds", "gold_idx", "shuffled_gold_pos",
    "gold_restaurant", "prompt_tokens", "completion_tokens", "tokens", "cost_usd",
    "latency_ms", "raw_response", "group", "gold_rank",
  };
  guint n_requests = anot_dataset_get_n_requests (dataset);

  {
    g_autofree char *expected_dir = path_in (f->root, "demo-bm25", NULL);
    g_assert_cmpstr (anot_experiment_get_directory (experiment), ==, expected_dir);
  }
  g_assert_cmpuint (anot_experiment_get_n_planned (experiment), ==, n_requests);
  g_assert_cmpuint (anot_metrics_get_total (metrics), ==, n_requests);
  g_test_message ("bm25 on demo, N=10: Hits@1 %.3f, MRR %.3f",
                  anot_metrics_get_hits_at (metrics, 1), anot_metrics_get_mrr (metrics));

  g_assert_true (g_file_test (usage, G_FILE_TEST_IS_REGULAR));
  g_assert_false (g_file_test (scaling, G_FILE_TEST_EXISTS));

  config = read_json_object (config_path, config_parser);
  for (guint i = 0; i < G_N_ELEMENTS (config_keys); i++)
    g_assert_true (json_object_has_member (config, config_keys[i]));
  g_assert_cmpstr (json_object_get_string_member (config, "method"), ==, "bm25");
  g_assert_cmpstr (json_object_get_string_member (config, "data"), ==, "demo");
  g_assert_true (json_object_get_boolean_member (config, "benchmark_mode"));
  g_assert_true (JSON_NODE_HOLDS_NULL (json_object_get_member (config, "attack_config")));
  stats = json_object_get_object_member (config, "stats");
  g_assert_cmpint (json_object_get_int_member (stats, "total"), ==, n_requests);
  g_assert_cmpfloat_with_epsilon (
    json_object_get_double_member (json_object_get_object_member (
      json_object_get_object_member (stats, "hits_at"), "1"), "accuracy"),
    anot_metrics_get_hits_at (metrics, 1), 1e-12);
  anot = json_object_get_object_member (config, "anot");
  g_assert_cmpstr (json_object_get_string_member (anot, "status"), ==, "complete");
  g_assert_cmpstr (json_object_get_string_member (anot, "pool"), ==, "sampled");
  g_assert_cmpstr (json_object_get_string_member (anot, "compat"), ==, "none");
  g_assert_cmpstr (json_object_get_string_member (anot, "shuffle"), ==, "random");
  g_assert_cmpint (json_object_get_int_member (anot, "seed"), ==, 42);
  g_assert_cmpint (json_object_get_int_member (anot, "run_seed"), ==, 43);
  g_assert_cmpstr (json_object_get_string_member (anot, "dataset_checksum"), ==,
                   anot_dataset_get_checksum (dataset));

  /* One row per request, sorted by id, with every documented field. */
  rows = read_rows_for_comparison (results);
  g_assert_cmpuint (rows->len, ==, n_requests);
  results_array = anot_experiment_get_results (experiment, 10, 1);
  g_assert_cmpuint (results_array->len, ==, n_requests);
  for (guint i = 0; i < rows->len; i++)
    {
      g_autoptr(JsonParser) parser = json_parser_new ();
      JsonObject *row;
      JsonArray *preds, *shuffled;
      gint64 gold_idx, rank = 0;
      AnotResult *result = g_ptr_array_index (results_array, i);
      AnotRequest *request;

      g_assert_true (json_parser_load_from_data (parser, g_ptr_array_index (rows, i), -1, NULL));
      row = json_node_get_object (json_parser_get_root (parser));
      for (guint k = 0; k < G_N_ELEMENTS (row_keys); k++)
        if (strcmp (row_keys[k], "latency_ms") != 0)
          g_assert_true (json_object_has_member (row, row_keys[k]));
      g_assert_false (json_object_has_member (row, "error"));
      if (i > 0)
        {
          AnotResult *prev = g_ptr_array_index (results_array, i - 1);
          g_assert_cmpint (strcmp (anot_result_get_request_id (prev),
                                   anot_result_get_request_id (result)), <, 0);
        }
      g_assert_cmpstr (json_object_get_string_member (row, "request_id"), ==,
                       anot_result_get_request_id (result));

      request = anot_dataset_lookup_request (dataset, json_object_get_string_member (row, "request_id"));
      g_assert_nonnull (request);
      g_assert_cmpstr (json_object_get_string_member (row, "gold_restaurant"), ==,
                       anot_request_get_gold_item_id (request));
      g_assert_cmpstr (json_object_get_string_member (row, "group"), ==,
                       anot_request_get_group (request));

      preds = json_object_get_array_member (row, "pred_indices");
      shuffled = json_object_get_array_member (row, "shuffled_preds");
      g_assert_cmpuint (json_array_get_length (preds), ==, 5);
      g_assert_cmpuint (json_array_get_length (shuffled), ==, 5);
      gold_idx = json_object_get_int_member (row, "gold_idx");
      g_assert_cmpint (gold_idx, >=, 0);
      g_assert_cmpint (gold_idx, <, 10);
      for (guint p = 0; p < 5; p++)
        {
          gint64 v = json_array_get_int_element (preds, p);

          g_assert_cmpint (v, >=, 1);
          g_assert_cmpint (v, <=, 10);
          if (v == gold_idx + 1 && rank == 0)
            rank = p + 1;
          /* The gold's shuffled position and its pool position agree. */
          if (json_array_get_int_element (shuffled, p) ==
              json_object_get_int_member (row, "shuffled_gold_pos"))
            g_assert_cmpint (v, ==, gold_idx + 1);
        }
      g_assert_cmpint (json_object_get_int_member (row, "gold_rank"), ==, rank);
      g_assert_cmpuint (anot_result_get_gold_rank (result), ==, rank);
    }

  /* The method's trace of every request, one line each. */
  {
    g_autofree char *trace_path = path_in (run_dir, "trace_10.jsonl", NULL);
    g_autoptr(GPtrArray) traces = read_rows_for_comparison (trace_path);
    g_autoptr(GHashTable) seen = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);

    g_assert_cmpuint (traces->len, ==, n_requests);
    for (guint i = 0; i < traces->len; i++)
      {
        g_autoptr(JsonParser) parser = json_parser_new ();
        JsonObject *line, *trace;

        g_assert_true (json_parser_load_from_data (parser, g_ptr_array_index (traces, i), -1, NULL));
        line = json_node_get_object (json_parser_get_root (parser));
        g_assert_nonnull (anot_dataset_lookup_request (dataset,
                                                       json_object_get_string_member (line, "request_id")));
        g_assert_true (g_hash_table_add (seen, g_strdup (json_object_get_string_member (line, "request_id"))));
        g_assert_cmpint (json_object_get_int_member (line, "n_candidates"), ==, 10);
        g_assert_cmpint (json_object_get_int_member (line, "run"), ==, 1);
        g_assert_cmpstr (json_object_get_string_member (line, "method"), ==, "bm25");
        trace = json_object_get_object_member (line, "trace");
        g_assert_cmpstr (json_object_get_string_member (trace, "method"), ==, "bm25");
        g_assert_cmpint (json_object_get_int_member (trace, "n_candidates"), ==, 10);
      }
  }

  summary = read_json_object (summary_path, summary_parser);
  g_assert_cmpstr (json_object_get_string_member (summary, "type"), ==, "ranking");
  g_assert_cmpint (json_object_get_int_member (summary, "runs"), ==, 1);
  g_assert_cmpstr (json_object_get_string_member (summary, "attack"), ==, "clean");
  g_assert_true (json_object_has_member (summary, "per_run"));
  g_assert_true (json_object_has_member (summary, "usage"));
  g_assert_cmpfloat_with_epsilon (
    json_object_get_double_member (json_object_get_object_member (
      json_object_get_object_member (summary, "hits_at"), "1"), "mean"),
    anot_metrics_get_hits_at (metrics, 1), 1e-12);
}

static void
test_philly_bm25_beats_random (Fixture       *f,
                               gconstpointer  data)
{
  g_autoptr(AnotDataset) dataset = anot_test_load_philly ();
  g_autoptr(AnotExperiment) bm25 = NULL;
  g_autoptr(AnotExperiment) random = NULL;
  g_autoptr(AnotMetrics) m_bm25 = NULL;
  g_autoptr(AnotMetrics) m_random = NULL;

  if (dataset == NULL)
    {
      g_test_skip ("philly_cafes data not found (ANOT_PHILLY_DATA)");
      return;
    }

  bm25 = new_experiment (dataset, "bm25", f->root, "bm25", "candidates", "10",
                         "seed", "42", "pool", "sampled", NULL);
  random = new_experiment (dataset, "random", f->root, "random", "candidates", "10",
                           "seed", "42", "pool", "sampled", NULL);
  m_bm25 = run_ok (bm25, 10, 1);
  m_random = run_ok (random, 10, 1);

  g_test_message ("philly N=10 sampled seed 42: bm25 Hits@1 %.3f (MRR %.3f), "
                  "random Hits@1 %.3f (MRR %.3f)",
                  anot_metrics_get_hits_at (m_bm25, 1), anot_metrics_get_mrr (m_bm25),
                  anot_metrics_get_hits_at (m_random, 1), anot_metrics_get_mrr (m_random));
  g_assert_cmpuint (anot_metrics_get_total (m_bm25), ==, 100);
  g_assert_cmpuint (anot_metrics_get_total (m_random), ==, 100);
  g_assert_cmpfloat (anot_metrics_get_hits_at (m_bm25, 1), >, anot_metrics_get_hits_at (m_random, 1));

  /* Same pools: the gold positions of both runs agree request by request. */
  {
    g_autoptr(GPtrArray) a = anot_experiment_get_results (bm25, 10, 1);
    g_autoptr(GPtrArray) b = anot_experiment_get_results (random, 10, 1);

    for (guint i = 0; i < a->len; i++)
      {
        g_assert_cmpuint (anot_result_get_gold_idx (g_ptr_array_index (a, i)), ==,
                          anot_result_get_gold_idx (g_ptr_array_index (b, i)));
        g_assert_cmpuint (anot_result_get_shuffled_gold_pos (g_ptr_array_index (a, i)), ==,
                          anot_result_get_shuffled_gold_pos (g_ptr_array_index (b, i)));
      }
  }
}

static void
test_oracle (Fixture       *f,
             gconstpointer  data)
{
  g_autoptr(AnotDataset) demo = anot_test_load_demo ();
  g_autoptr(AnotDataset) philly = anot_test_load_philly ();
  g_autoptr(AnotExperiment) experiment =
    new_experiment (demo, "oracle", f->root, "oracle-demo", "candidates", "20", NULL);
  g_autoptr(AnotMetrics) metrics = run_ok (experiment, 20, 1);

  g_assert_cmpuint (anot_metrics_get_total (metrics), ==, anot_dataset_get_n_requests (demo));
  g_assert_cmpfloat (anot_metrics_get_hits_at (metrics, 1), ==, 1.0);
  g_assert_cmpfloat (anot_metrics_get_mrr (metrics), ==, 1.0);

  if (philly != NULL)
    {
      g_autoptr(AnotExperiment) e2 =
        new_experiment (philly, "oracle", f->root, "oracle-philly", "candidates", "50", NULL);
      g_autoptr(AnotMetrics) m2 = run_ok (e2, 50, 1);

      g_assert_cmpuint (anot_metrics_get_total (m2), ==, 100);
      g_assert_cmpfloat (anot_metrics_get_hits_at (m2, 1), ==, 1.0);
    }
}

static void
test_concurrency_invariant (Fixture       *f,
                            gconstpointer  data)
{
  g_autoptr(AnotDataset) dataset = anot_test_load_demo ();
  g_autoptr(AnotExperiment) one = new_experiment (dataset, "random", f->root, "c1",
                                                  "concurrency", "1", "scaling", "true", NULL);
  g_autoptr(AnotExperiment) many = new_experiment (dataset, "random", f->root, "c8",
                                                   "concurrency", "8", "scaling", "true", NULL);
  g_autoptr(AnotExperiment) other_seed = new_experiment (dataset, "random", f->root, "s7",
                                                         "concurrency", "8", "scaling", "true",
                                                         "seed", "7", NULL);
  g_autoptr(AnotMetrics) m1 = run_ok (one, 10, 1);
  g_autoptr(AnotMetrics) m8 = run_ok (many, 10, 1);
  g_autoptr(AnotMetrics) m7 = run_ok (other_seed, 10, 1);

  for (guint n = 10; n <= 20; n += 10)
    {
      g_autofree char *base = g_strdup_printf ("results_%u.jsonl", n);
      g_autofree char *p1 = path_in (f->root, "c1", "clean", "run_1", base, NULL);
      g_autofree char *p8 = path_in (f->root, "c8", "clean", "run_1", base, NULL);
      g_autofree char *p7 = path_in (f->root, "s7", "clean", "run_1", base, NULL);
      g_autoptr(GPtrArray) r1 = read_rows_for_comparison (p1);
      g_autoptr(GPtrArray) r8 = read_rows_for_comparison (p8);
      g_autoptr(GPtrArray) r7 = read_rows_for_comparison (p7);
      guint differ = 0;

      assert_same_rows (r1, r8);
      g_assert_cmpuint (r7->len, ==, r1->len);
      for (guint i = 0; i < r1->len; i++)
        if (strcmp (g_ptr_array_index (r1, i), g_ptr_array_index (r7, i)) != 0)
          differ++;
      /* Another seed gives other pools and permutations nearly everywhere. */
      g_assert_cmpuint (differ, >, r1->len / 2);
    }
  (void) m1; (void) m8; (void) m7;
}

/* oracle on philly at N = 10 under `@option original`, run as @name:
 * the original's top-10 pool by gold frequency keeps 66 requests.  The
 * `anot` member of its config.json, held by @parser. */
static JsonObject *
run_original_pool (Fixture         *f,
                   AnotDataset     *dataset,
                   const char      *name,
                   const char      *option,
                   JsonParser      *parser,
                   AnotExperiment **out_experiment)
{
  g_autoptr(AnotExperiment) experiment = NULL;
  g_autoptr(AnotMetrics) metrics = NULL;
  g_autofree char *config_path = NULL;

  experiment = new_experiment (dataset, "oracle", f->root, name, option, "original",
                               "candidates", "10", NULL);
  metrics = run_ok (experiment, 10, 1);
  g_assert_cmpuint (anot_metrics_get_total (metrics), ==, 66);
  g_assert_cmpuint (anot_experiment_get_n_dropped (experiment, 10), ==, 34);
  g_assert_cmpuint (anot_experiment_get_n_planned (experiment), ==, 66);

  config_path = path_in (f->root, name, "clean", "run_1", "config.json", NULL);
  *out_experiment = g_steal_pointer (&experiment);
  return json_object_get_object_member (read_json_object (config_path, parser), "anot");
}

static void
test_original_pool_philly (Fixture       *f,
                           gconstpointer  data)
{
  g_autoptr(AnotDataset) dataset = anot_test_load_philly ();
  g_autoptr(AnotExperiment) experiment = NULL;
  g_autoptr(JsonParser) parser = json_parser_new ();
  JsonObject *anot;

  if (dataset == NULL)
    {
      g_test_skip ("philly_cafes data not found (ANOT_PHILLY_DATA)");
      return;
    }

  anot = run_original_pool (f, dataset, "orig", "pool", parser, &experiment);
  g_assert_cmpint (json_object_get_int_member (json_object_get_object_member (anot, "dropped_by_n"),
                                               "10"), ==, 34);
  g_assert_cmpint (json_object_get_int_member (json_object_get_object_member (anot, "requests_by_n"),
                                               "10"), ==, 66);
}

/* --compat original is one switch: the original pools and attack
 * reviews follow from it, are recorded, and cannot be contradicted. */
static void
test_compat_original (Fixture       *f,
                      gconstpointer  data)
{
  g_autoptr(AnotDataset) dataset = anot_test_load_philly ();
  g_autoptr(AnotExperiment) experiment = NULL;
  g_autoptr(AnotExperiment) contradicted = NULL;
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(GError) error = NULL;
  JsonObject *anot, *options;
  AnotCompatMode compat;
  AnotPoolMode pool;

  if (dataset == NULL)
    {
      g_test_skip ("philly_cafes data not found (ANOT_PHILLY_DATA)");
      return;
    }

  anot = run_original_pool (f, dataset, "compat", "compat", parser, &experiment);
  g_object_get (experiment, "compat", &compat, "pool-mode", &pool, NULL);
  g_assert_cmpint (compat, ==, ANOT_COMPAT_MODE_ORIGINAL);
  g_assert_cmpint (pool, ==, ANOT_POOL_MODE_ORIGINAL);
  g_assert_cmpstr (json_object_get_string_member (anot, "compat"), ==, "original");
  g_assert_cmpstr (json_object_get_string_member (anot, "pool"), ==, "original");
  options = json_object_get_object_member (anot, "options");
  g_assert_cmpstr (json_object_get_string_member (options, "compat"), ==, "original");
  g_assert_cmpstr (json_object_get_string_member (options, "attack-compat"), ==, "original");

  /* Half like for like is refused before anything runs. */
  contradicted = new_experiment (dataset, "oracle", f->root, "contradicted", "compat", "original",
                                 "pool", "sampled", NULL);
  g_assert_false (anot_experiment_prepare (contradicted, &error));
  g_assert_error (error, ANOT_ERROR, ANOT_ERROR_INVALID_ARGUMENT);
  g_assert_nonnull (strstr (error->message, "pool sampled"));
  g_clear_object (&contradicted);
  g_clear_error (&error);
  contradicted = new_experiment (dataset, "oracle", f->root, "contradicted", "compat", "original",
                                 "attack-compat", "realistic", NULL);
  g_assert_false (anot_experiment_prepare (contradicted, &error));
  g_assert_error (error, ANOT_ERROR, ANOT_ERROR_INVALID_ARGUMENT);
  g_assert_nonnull (strstr (error->message, "attack-compat realistic"));
  g_clear_object (&contradicted);
  g_clear_error (&error);

  /* --limit counts the requests that run: the first 7 kept by the pool,
   * not the first 7 of the file (of which the pool keeps fewer). */
  {
    g_autoptr(AnotExperiment) limited = new_experiment (dataset, "oracle", f->root, "limited",
                                                        "compat", "original", "candidates", "10",
                                                        "limit", "7", NULL);
    g_autoptr(AnotMetrics) metrics = run_ok (limited, 10, 1);
    guint kept_in_first_7 = 0;

    for (guint r = 0; r < 7; r++)
      {
        AnotRequest *request = anot_dataset_get_request (dataset, r);
        g_autoptr(AnotPool) kept_pool = anot_pool_new (dataset, request, 10, ANOT_POOL_MODE_ORIGINAL,
                                                       ANOT_SHUFFLE_MODE_NONE, 42, NULL);

        kept_in_first_7 += kept_pool != NULL;
      }
    /* Otherwise the test would not tell the two orders apart. */
    g_assert_cmpuint (kept_in_first_7, <, 7);
    g_assert_cmpuint (anot_metrics_get_total (metrics), ==, 7);
    g_assert_cmpuint (anot_experiment_get_n_planned (limited), ==, 7);
  }
}

static void
test_scaling_demo (Fixture       *f,
                   gconstpointer  data)
{
  g_autoptr(AnotDataset) dataset = anot_test_load_demo ();
  g_autoptr(AnotExperiment) experiment =
    new_experiment (dataset, "oracle", f->root, "scale", "scaling", "true", "runs", "2", NULL);
  g_autoptr(AnotMetrics) metrics = run_ok (experiment, 20, 2);
  g_autofree char *scaling_path = path_in (f->root, "scale", "clean", "run_2", "scaling_summary.json", NULL);
  g_autofree char *config_path = path_in (f->root, "scale", "clean", "run_1", "config.json", NULL);
  g_autofree char *summary_path = path_in (f->root, "scale", "clean", "summary.json", NULL);
  g_autofree char *r30 = path_in (f->root, "scale", "clean", "run_1", "results_30.jsonl", NULL);
  g_autoptr(JsonParser) p1 = json_parser_new ();
  g_autoptr(JsonParser) p2 = json_parser_new ();
  g_autoptr(JsonParser) p3 = json_parser_new ();
  JsonObject *scaling, *config, *summary;
  JsonArray *rows;
  guint n_items = anot_dataset_get_n_items (dataset);

  g_assert_cmpuint (n_items, >=, 20);
  g_assert_cmpuint (n_items, <, 30);
  g_assert_cmpuint (anot_metrics_get_total (metrics), ==, anot_dataset_get_n_requests (dataset));
  g_assert_true (anot_experiment_is_skipped (experiment, 30));
  g_assert_false (anot_experiment_is_skipped (experiment, 20));
  g_assert_false (g_file_test (r30, G_FILE_TEST_EXISTS));

  scaling = read_json_object (scaling_path, p1);
  g_assert_cmpint (json_object_get_int_member (scaling, "k"), ==, 5);
  g_assert_cmpuint (json_array_get_length (json_object_get_array_member (scaling, "scale_points")), ==, 5);
  rows = json_object_get_array_member (scaling, "results");
  g_assert_cmpuint (json_array_get_length (rows), ==, 5);
  for (guint i = 0; i < 5; i++)
    {
      JsonObject *row = json_array_get_object_element (rows, i);
      guint n = 10 * (i + 1);

      g_assert_cmpint (json_object_get_int_member (row, "candidates"), ==, n);
      if (n <= n_items)
        {
          g_assert_cmpstr (json_object_get_string_member (row, "status"), ==, "ok");
          g_assert_cmpstr (json_object_get_string_member (row, "at_1"), ==, "100%");
          g_assert_cmpint (json_object_get_int_member (row, "requests"), ==,
                           anot_dataset_get_n_requests (dataset));
          g_assert_cmpstr (json_object_get_string_member (row, "usage"), ==, "--");
        }
      else
        {
          g_assert_cmpstr (json_object_get_string_member (row, "status"), ==, "skipped");
          g_assert_cmpstr (json_object_get_string_member (row, "at_1"), ==, "--");
          g_assert_cmpstr (json_object_get_string_member (row, "requests"), ==, "--");
        }
    }

  config = read_json_object (config_path, p2);
  g_assert_false (json_object_has_member (config, "stats"));
  g_assert_true (json_object_has_member (json_object_get_object_member (config, "stats_by_n"), "10"));
  g_assert_true (json_object_has_member (json_object_get_object_member (config, "stats_by_n"), "20"));

  summary = read_json_object (summary_path, p3);
  g_assert_cmpint (json_object_get_int_member (summary, "runs"), ==, 2);
  g_assert_cmpstr (json_object_get_string_member (summary, "type"), ==, "ranking");
  g_assert_cmpint (json_object_get_int_member (summary, "k"), ==, 5);
  g_assert_false (json_object_has_member (summary, "hits_at"));
  {
    JsonObject *by_n = json_object_get_object_member (summary, "by_n");
    JsonObject *h1 = json_object_get_object_member (json_object_get_object_member (
                       json_object_get_object_member (by_n, "20"), "hits_at"), "1");

    g_assert_cmpfloat (json_object_get_double_member (h1, "mean"), ==, 1.0);
    g_assert_cmpuint (json_array_get_length (json_object_get_array_member (h1, "values")), ==, 2);
  }
}

static void
test_runs_and_summary (Fixture       *f,
                       gconstpointer  data)
{
  g_autoptr(AnotDataset) dataset = anot_test_load_demo ();
  g_autoptr(AnotExperiment) experiment =
    new_experiment (dataset, "random", f->root, "runs", "runs", "3", NULL);
  g_autoptr(GPtrArray) per_run = g_ptr_array_new_with_free_func (g_object_unref);
  g_autoptr(JsonNode) expected = NULL;
  g_autofree char *summary_path = path_in (f->root, "runs", "clean", "summary.json", NULL);
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(AnotMetrics) first_metrics = NULL;
  JsonObject *summary, *h1, *exp_h1;
  JsonArray *values;

  g_clear_object (&first_metrics);
  first_metrics = run_ok (experiment, 10, 1);
  g_assert_nonnull (first_metrics);
  for (guint r = 1; r <= 3; r++)
    {
      g_autofree char *base = g_strdup_printf ("run_%u", r);
      g_autofree char *config = path_in (f->root, "runs", "clean", base, "config.json", NULL);

      g_assert_true (g_file_test (config, G_FILE_TEST_IS_REGULAR));
      g_ptr_array_add (per_run, anot_experiment_get_metrics (experiment, 10, r));
    }
  g_assert_null (anot_experiment_get_metrics (experiment, 10, 4));

  /* summary.json (from the configs on disk) agrees with the in-memory
   * aggregation of the same runs. */
  expected = anot_metrics_summarize_runs (per_run);
  summary = read_json_object (summary_path, parser);
  g_assert_cmpint (json_object_get_int_member (summary, "runs"), ==, 3);
  h1 = json_object_get_object_member (json_object_get_object_member (summary, "hits_at"), "1");
  exp_h1 = json_object_get_object_member (json_object_get_object_member (
             json_node_get_object (expected), "hits_at"), "1");
  g_assert_cmpfloat_with_epsilon (json_object_get_double_member (h1, "mean"),
                                  json_object_get_double_member (exp_h1, "mean"), 1e-12);
  g_assert_cmpfloat_with_epsilon (json_object_get_double_member (h1, "std"),
                                  json_object_get_double_member (exp_h1, "std"), 1e-12);
  values = json_object_get_array_member (h1, "values");
  g_assert_cmpuint (json_array_get_length (values), ==, 3);
  for (guint r = 0; r < 3; r++)
    g_assert_cmpfloat_with_epsilon (json_array_get_double_element (values, r),
                                    anot_metrics_get_hits_at (g_ptr_array_index (per_run, r), 1),
                                    1e-12);
  g_assert_cmpfloat_with_epsilon (
    json_object_get_double_member (json_object_get_object_member (summary, "mrr"), "mean"),
    json_object_get_double_member (json_object_get_object_member (json_node_get_object (expected),
                                                                  "mrr"), "mean"), 1e-12);
  g_assert_cmpuint (json_array_get_length (json_object_get_array_member (summary, "per_run")), ==, 3);
}

static void
test_method_errors (Fixture       *f,
                    gconstpointer  data)
{
  g_autoptr(AnotDataset) dataset = anot_test_load_demo ();
  g_autoptr(AnotExperiment) some = NULL;
  g_autoptr(AnotExperiment) all = NULL;
  g_autoptr(GPtrArray) results = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *all_results = NULL;
  guint failed = 0;

  register_test_method ();
  some = new_experiment (dataset, "test-method", f->root, "some", "method.test-method.fail-group", "G01", NULL);
  g_assert_true (anot_experiment_run (some, NULL, &error));
  g_assert_no_error (error);

  results = anot_experiment_get_results (some, 10, 1);
  g_assert_cmpuint (results->len, ==, anot_dataset_get_n_requests (dataset));
  for (guint i = 0; i < results->len; i++)
    {
      AnotResult *result = g_ptr_array_index (results, i);
      const char *message = anot_result_get_error_message (result);
      guint n_preds;

      anot_result_get_pred_indices (result, &n_preds);
      if (g_strcmp0 (anot_result_get_group (result), "G01") == 0)
        {
          g_assert_nonnull (message);
          g_assert_true (g_str_has_prefix (message, "ANOT_ERROR_METHOD_FAILED: scripted failure of "));
          /* prefix + ": " + the first 200 characters of the message */
          g_assert_cmpuint (g_utf8_strlen (message, -1), ==,
                            strlen ("ANOT_ERROR_METHOD_FAILED: ") + 200);
          g_assert_cmpuint (n_preds, ==, 0);
          g_assert_cmpuint (anot_result_get_gold_rank (result), ==, 0);
          failed++;
        }
      else
        {
          g_assert_null (message);
          g_assert_cmpuint (n_preds, ==, 5);
        }
    }
  g_assert_cmpuint (failed, >, 0);

  all = new_experiment (dataset, "test-method", f->root, "all", "method.test-method.fail-group", "all", NULL);
  g_assert_false (anot_experiment_run (all, NULL, &error));
  g_assert_error (error, ANOT_ERROR, ANOT_ERROR_METHOD_FAILED);
  /* The rows are still written. */
  all_results = path_in (f->root, "all", "clean", "run_1", "results_10.jsonl", NULL);
  {
    g_autoptr(GPtrArray) rows = read_rows_for_comparison (all_results);
    g_assert_cmpuint (rows->len, ==, anot_dataset_get_n_requests (dataset));
  }
}

static void
store_result_cb (GObject      *source,
                 GAsyncResult *result,
                 gpointer      user_data)
{
  *(GAsyncResult **) user_data = g_object_ref (result);
}

static gboolean
set_flag_cb (gpointer user_data)
{
  *(gboolean *) user_data = TRUE;
  return G_SOURCE_REMOVE;
}

static gboolean
cancel_cb (gpointer user_data)
{
  g_cancellable_cancel (user_data);
  return G_SOURCE_REMOVE;
}

/* Runs @experiment on a main context of the test's own, cancelling it
 * after @cancel_ms (0: never); then iterates the context for 200 ms more,
 * so the calls abandoned at their deadline that do come back are freed. */
static gboolean
run_and_drain (AnotExperiment  *experiment,
               guint            cancel_ms,
               GError         **error)
{
  g_autoptr(GMainContext) context = g_main_context_new ();
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  g_autoptr(GAsyncResult) result = NULL;
  gboolean drained = FALSE;
  gboolean ok;

  g_main_context_push_thread_default (context);
  if (cancel_ms > 0)
    {
      g_autoptr(GSource) source = g_timeout_source_new (cancel_ms);

      g_source_set_callback (source, cancel_cb, cancellable, NULL);
      g_source_attach (source, context);
    }
  anot_experiment_run_async (experiment, cancellable, store_result_cb, &result);
  while (result == NULL)
    g_main_context_iteration (context, TRUE);
  ok = anot_experiment_run_finish (experiment, result, error);
  {
    g_autoptr(GSource) source = g_timeout_source_new (200);

    g_source_set_callback (source, set_flag_cb, &drained, NULL);
    g_source_attach (source, context);
  }
  while (!drained)
    g_main_context_iteration (context, TRUE);
  g_main_context_pop_thread_default (context);
  return ok;
}

/* A method that does not finish a request by its deadline: the row says
 * so, the run goes on and ends, whether the method honours the
 * cancellation (its late call is freed) or never calls back. */
static void
test_request_deadline (Fixture       *f,
                       gconstpointer  data)
{
  g_autoptr(AnotDataset) dataset = anot_test_load_demo ();
  const char *modes[] = { "ignore", "honour" };

  register_test_method ();
  for (guint m = 0; m < G_N_ELEMENTS (modes); m++)
    {
      g_autoptr(AnotExperiment) experiment = NULL;
      g_autoptr(GPtrArray) results = NULL;
      g_autoptr(GError) error = NULL;
      gint64 start = g_get_monotonic_time ();
      guint timed_out = 0;

      experiment = new_experiment (dataset, "test-method", f->root, modes[m],
                                   "method.test-method.hang-group", "G01", "method.test-method.hang-mode", modes[m],
                                   "request-timeout", "1", "concurrency", "4", NULL);
      g_assert_true (run_and_drain (experiment, 0, &error));
      g_assert_no_error (error);
      /* The deadlines run side by side: about a second, not one a request. */
      g_assert_cmpint (g_get_monotonic_time () - start, <, 30 * G_USEC_PER_SEC);

      results = anot_experiment_get_results (experiment, 10, 1);
      g_assert_cmpuint (results->len, ==, anot_dataset_get_n_requests (dataset));
      for (guint i = 0; i < results->len; i++)
        {
          AnotResult *result = g_ptr_array_index (results, i);
          const char *message = anot_result_get_error_message (result);

          if (g_strcmp0 (anot_result_get_group (result), "G01") == 0)
            {
              g_assert_true (g_str_has_prefix (message, "ANOT_ERROR_METHOD_TIMEOUT: the method did "
                                               "not finish the request within its deadline of 1 s"));
              timed_out++;
            }
          else
            g_assert_null (message);
        }
      g_assert_cmpuint (timed_out, >, 0);
    }
}

/* Cancelled, a run stops even though a method never honours it: after the
 * grace period, without a row for that request. */
static void
test_cancel_abandons_hung_request (Fixture       *f,
                                   gconstpointer  data)
{
  g_autoptr(AnotDataset) dataset = anot_test_load_demo ();
  g_autoptr(AnotExperiment) experiment = NULL;
  g_autoptr(GPtrArray) results = NULL;
  g_autoptr(GError) error = NULL;

  register_test_method ();
  experiment = new_experiment (dataset, "test-method", f->root, "cancelled",
                               "method.test-method.hang-group", "G01", "request-timeout", "0",
                               "method.test-method.delay-ms", "50", "concurrency", "2", NULL);
  g_assert_false (run_and_drain (experiment, 300, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  results = anot_experiment_get_results (experiment, 10, 1);
  for (guint i = 0; i < results->len; i++)
    g_assert_cmpstr (anot_result_get_group (g_ptr_array_index (results, i)), !=, "G01");
}

static void
test_predictions_mapping (Fixture       *f,
                          gconstpointer  data)
{
  g_autoptr(AnotDataset) dataset = anot_test_load_demo ();
  g_autoptr(AnotExperiment) experiment = NULL;
  g_autoptr(GPtrArray) results = NULL;

  register_test_method ();
  experiment = new_experiment (dataset, "test-method", f->root, "map", "k", "4", NULL);
  run_only (experiment);
  results = anot_experiment_get_results (experiment, 10, 1);

  for (guint i = 0; i < results->len; i++)
    {
      AnotResult *result = g_ptr_array_index (results, i);
      AnotRequest *request = anot_dataset_lookup_request (dataset, anot_result_get_request_id (result));
      g_autoptr(AnotTrial) trial = anot_trial_new (dataset, request, 10, ANOT_POOL_MODE_SAMPLED,
                                                   ANOT_SHUFFLE_MODE_RANDOM, 42, 1, NULL, NULL,
                                                   NULL);
      AnotPool *pool = anot_trial_get_pool (trial);
      guint n_preds, n_shuffled;
      const guint *preds = anot_result_get_pred_indices (result, &n_preds);
      const guint *shuffled = anot_result_get_shuffled_preds (result, &n_shuffled);

      /* k = 4, the out-of-range and the repeated index dropped. */
      g_assert_cmpuint (n_preds, ==, 4);
      g_assert_cmpuint (n_shuffled, ==, 4);
      for (guint p = 0; p < n_preds; p++)
        {
          g_assert_cmpuint (shuffled[p], >=, 1);
          g_assert_cmpuint (shuffled[p], <=, 10);
          g_assert_cmpuint (preds[p], ==, anot_pool_shuffled_to_pool (pool, shuffled[p] - 1) + 1);
          for (guint q = 0; q < p; q++)
            g_assert_cmpuint (shuffled[q], !=, shuffled[p]);
        }
      g_assert_cmpuint (anot_result_get_gold_idx (result), ==, anot_pool_get_gold_position (pool));
      g_assert_cmpuint (anot_result_get_shuffled_gold_pos (result), ==,
                        anot_pool_get_shuffled_gold_position (pool) + 1);
      /* Without raw text from the method, the runner records "a, b, c, d". */
      {
        g_autofree char *expected = g_strdup_printf ("%u, %u, %u, %u", shuffled[0], shuffled[1],
                                                     shuffled[2], shuffled[3]);
        g_assert_cmpstr (anot_result_get_raw_response (result), ==, expected);
      }
    }
}

static void
test_usage_and_concurrency (Fixture       *f,
                            gconstpointer  data)
{
  g_autoptr(AnotDataset) dataset = anot_test_load_demo ();
  g_autoptr(AnotExperiment) experiment = NULL;
  g_autoptr(GPtrArray) results = NULL;
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autofree char *config_path = path_in (f->root, "usage", "clean", "run_1", "config.json", NULL);
  g_autofree char *usage_path = path_in (f->root, "usage", "clean", "run_1", "usage.jsonl", NULL);
  g_autofree char *usage_text = NULL;
  g_auto(GStrv) usage_lines = NULL;
  JsonObject *usage;
  guint64 prompt_total = 0;

  register_test_method ();
  test_max_in_flight = 0;
  experiment = new_experiment (dataset, "test-method", f->root, "usage",
                               "concurrency", "3", "method.test-method.delay-ms", "15", NULL);
  run_only (experiment);
  g_assert_cmpuint (test_max_in_flight, ==, 3);

  /* Each row carries its own request's usage, although three requests
   * were in flight at any time. */
  results = anot_experiment_get_results (experiment, 10, 1);
  for (guint i = 0; i < results->len; i++)
    {
      AnotResult *result = g_ptr_array_index (results, i);
      AnotRequest *request = anot_dataset_lookup_request (dataset, anot_result_get_request_id (result));
      AnotUsage *u = anot_result_get_usage (result);

      g_assert_cmpuint (anot_usage_get_calls (u), ==, 1);
      g_assert_cmpuint (anot_usage_get_prompt_tokens (u), ==, strlen (anot_request_get_text (request)));
      g_assert_cmpuint (anot_usage_get_completion_tokens (u), ==, 7);
      prompt_total += anot_usage_get_prompt_tokens (u);
    }

  usage = json_object_get_object_member (read_json_object (config_path, parser), "usage");
  g_assert_cmpint (json_object_get_int_member (usage, "total_calls"), ==, results->len);
  g_assert_cmpint (json_object_get_int_member (usage, "total_prompt_tokens"), ==, prompt_total);
  g_assert_true (json_object_has_member (json_object_get_object_member (usage, "by_model"),
                                         "test-model"));

  g_assert_true (g_file_get_contents (usage_path, &usage_text, NULL, NULL));
  usage_lines = g_strsplit (g_strstrip (usage_text), "\n", -1);
  g_assert_cmpuint (g_strv_length (usage_lines), ==, results->len);
  for (guint i = 0; usage_lines[i]; i++)
    {
      g_autoptr(JsonParser) lp = json_parser_new ();
      JsonObject *row;

      g_assert_true (json_parser_load_from_data (lp, usage_lines[i], -1, NULL));
      row = json_node_get_object (json_parser_get_root (lp));
      g_assert_cmpint (json_object_get_int_member (row, "n_candidates"), ==, 10);
      g_assert_cmpint (json_object_get_int_member (row, "completion_tokens"), ==, 7);
      g_assert_cmpint (json_object_get_int_member (row, "tokens"), ==,
                       json_object_get_int_member (row, "prompt_tokens") + 7);
      g_assert_true (json_object_has_member (row, "timestamp"));
      g_assert_true (json_object_has_member (row, "cost_usd"));
    }

  /* A results row round-trips through AnotResult with its usage. */
  {
    AnotResult *first = g_ptr_array_index (results, 0);
    g_autoptr(JsonNode) node = anot_result_to_json (first);
    g_autoptr(GError) error = NULL;
    g_autoptr(AnotResult) copy = anot_result_new_from_json (json_node_get_object (node), &error);

    g_assert_no_error (error);
    g_assert_cmpuint (anot_usage_get_calls (anot_result_get_usage (copy)), ==, 1);
    g_assert_cmpuint (anot_usage_get_prompt_tokens (anot_result_get_usage (copy)), ==,
                      anot_usage_get_prompt_tokens (anot_result_get_usage (first)));
    g_assert_cmpuint (anot_result_get_gold_rank (copy), ==, anot_result_get_gold_rank (first));
    g_assert_cmpstr (anot_result_get_raw_response (copy), ==, anot_result_get_raw_response (first));
  }
}

typedef struct
{
  GCancellable *cancellable;
  guint n_results;
  guint cancel_after;
} CancelState;

static void
on_result_cancel (AnotExperiment *experiment,
                  AnotResult     *result,
                  CancelState    *state)
{
  if (++state->n_results == state->cancel_after)
    g_cancellable_cancel (state->cancellable);
}

static void
test_cancel_and_resume (Fixture       *f,
                        gconstpointer  data)
{
  g_autoptr(AnotDataset) dataset = anot_test_load_demo ();
  g_autoptr(AnotExperiment) reference = NULL;
  g_autoptr(AnotExperiment) interrupted = NULL;
  g_autoptr(AnotExperiment) resumed = NULL;
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autofree char *dir = path_in (f->root, "cancel", NULL);
  g_autofree char *config_path = path_in (dir, "clean", "run_1", "config.json", NULL);
  g_autofree char *summary_path = path_in (dir, "clean", "summary.json", NULL);
  CancelState state = { cancellable, 0, 5 };

  register_test_method ();
  reference = new_experiment (dataset, "test-method", f->root, "reference",
                              "scaling", "true", "runs", "2", "method.test-method.delay-ms", "2", NULL);
  run_only (reference);

  interrupted = new_experiment (dataset, "test-method", f->root, "cancel",
                                "scaling", "true", "runs", "2", "method.test-method.delay-ms", "2",
                                "concurrency", "3", NULL);
  g_signal_connect (interrupted, "result", G_CALLBACK (on_result_cancel), &state);
  g_assert_false (anot_experiment_run (interrupted, cancellable, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_assert_nonnull (strstr (error->message, "--resume"));
  g_clear_error (&error);

  /* Requests in flight at the cancellation were cancelled, not recorded. */
  g_assert_cmpuint (state.n_results, ==, 5);
  {
    g_autofree char *results = path_in (dir, "clean", "run_1", "results_10.jsonl", NULL);
    g_autoptr(GPtrArray) rows = read_rows_for_comparison (results);

    g_assert_cmpuint (rows->len, ==, 5);
  }
  g_assert_cmpstr (json_object_get_string_member (
                     json_object_get_object_member (read_json_object (config_path, parser), "anot"),
                     "status"), ==, "interrupted");
  g_assert_true (g_file_test (summary_path, G_FILE_TEST_IS_REGULAR));

  /* Resume from a run directory, with another concurrency. */
  {
    g_autofree char *run_dir = path_in (dir, "clean", "run_1", NULL);

    resumed = anot_experiment_new_for_resume (run_dir, NULL, &error);
    g_assert_no_error (error);
  }
  anot_experiment_set_option (resumed, "concurrency", "5");
  run_only (resumed);
  g_assert_cmpstr (anot_experiment_get_directory (resumed), ==, dir);

  for (guint run = 1; run <= 2; run++)
    for (guint n = 10; n <= 20; n += 10)
      {
        g_autofree char *run_base = g_strdup_printf ("run_%u", run);
        g_autofree char *base = g_strdup_printf ("results_%u.jsonl", n);
        g_autofree char *a = path_in (f->root, "reference", "clean", run_base, base, NULL);
        g_autofree char *b = path_in (dir, "clean", run_base, base, NULL);
        g_autoptr(GPtrArray) ra = read_rows_for_comparison (a);
        g_autoptr(GPtrArray) rb = read_rows_for_comparison (b);

        g_assert_cmpuint (ra->len, ==, anot_dataset_get_n_requests (dataset));
        assert_same_rows (ra, rb);
      }
  g_clear_object (&parser);
  parser = json_parser_new ();
  g_assert_cmpstr (json_object_get_string_member (
                     json_object_get_object_member (read_json_object (config_path, parser), "anot"),
                     "status"), ==, "complete");
}

static void
test_resume_torn_line (Fixture       *f,
                       gconstpointer  data)
{
  g_autoptr(AnotDataset) dataset = anot_test_load_demo ();
  g_autoptr(AnotExperiment) first = NULL;
  g_autoptr(AnotExperiment) resumed = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *dir = path_in (f->root, "torn", NULL);
  g_autofree char *results = path_in (dir, "clean", "run_1", "results_10.jsonl", NULL);
  g_autoptr(GPtrArray) before = NULL;
  g_autoptr(GPtrArray) after = NULL;
  g_autofree char *contents = NULL;
  char *cut;
  gsize length;

  first = new_experiment (dataset, "random", f->root, "torn", NULL);
  run_only (first);
  before = read_rows_for_comparison (results);

  /* What a kill -9 can leave: rows missing and half a row at the end. */
  g_assert_true (g_file_get_contents (results, &contents, &length, NULL));
  cut = contents + length - 1;
  for (guint i = 0; i < 3; i++)
    {
      cut--;
      while (*cut != '\n')
        cut--;
    }
  cut[1 + 25] = '\0';
  g_assert_true (g_file_set_contents (results, contents, -1, NULL));
  {
    g_autoptr(GPtrArray) damaged = NULL;
    g_autofree char *text = NULL;

    g_assert_true (g_file_get_contents (results, &text, NULL, NULL));
    g_assert_false (g_str_has_suffix (text, "\n"));
    (void) damaged;
  }

  resumed = anot_experiment_new_for_resume (dir, dataset, &error);
  g_assert_no_error (error);
  run_only (resumed);
  after = read_rows_for_comparison (results);
  assert_same_rows (before, after);
}

static void
test_resume_errors (Fixture       *f,
                    gconstpointer  data)
{
  g_autoptr(AnotDataset) dataset = anot_test_load_demo ();
  g_autoptr(AnotDataset) philly = anot_test_load_philly ();
  g_autoptr(AnotExperiment) first = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *dir = path_in (f->root, "r", NULL);
  AnotExperiment *resumed;

  resumed = anot_experiment_new_for_resume (f->root, dataset, &error);
  g_assert_error (error, ANOT_ERROR, ANOT_ERROR_RESUME);
  g_assert_null (resumed);
  g_clear_error (&error);

  first = new_experiment (dataset, "random", f->root, "r", "limit", "3", NULL);
  run_only (first);

  if (philly != NULL)
    {
      resumed = anot_experiment_new_for_resume (dir, philly, &error);
      g_assert_error (error, ANOT_ERROR, ANOT_ERROR_RESUME);
      g_assert_nonnull (strstr (error->message, "checksum"));
      g_assert_null (resumed);
    }
}

static void
test_options (Fixture       *f,
              gconstpointer  data)
{
  g_autoptr(AnotDataset) dataset = anot_test_load_demo ();
  const char * const bad[][2] = {
    { "k", "0" }, { "k", "abc" }, { "seed", "-1" }, { "runs", "0" }, { "concurrency", "0" },
    { "limit", "0" }, { "pool", "top" }, { "shuffle", "sideways" }, { "candidates", "0" },
    { "candidates", "1000" }, { "candidates", "ten" }, { "groups", "G99" }, { "groups", "3-1" },
    { "requests", "R999" }, { "scaling", "maybe" }, { "name", "a/b" }, { "colour", "red" },
  };
  guint n_requests = anot_dataset_get_n_requests (dataset);

  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      g_autoptr(AnotExperiment) e = new_experiment (dataset, "random", f->root, "opts",
                                                    bad[i][0], bad[i][1], NULL);
      g_autoptr(GError) error = NULL;

      g_assert_false (anot_experiment_prepare (e, &error));
      g_test_message ("%s=%s: %s", bad[i][0], bad[i][1], error->message);
      g_assert_error (error, ANOT_ERROR, ANOT_ERROR_INVALID_ARGUMENT);
    }

  {
    g_autoptr(AnotExperiment) e = new_experiment (dataset, "no-such-method", f->root, "x", NULL);
    g_autoptr(GError) error = NULL;

    g_assert_false (anot_experiment_prepare (e, &error));
    g_assert_error (error, ANOT_ERROR, ANOT_ERROR_PLUGIN_NOT_FOUND);
  }
  {
    g_autoptr(AnotExperiment) both = new_experiment (dataset, "random", f->root, "x",
                                                     "candidates", "10", "scaling", "true", NULL);
    g_autoptr(GError) error = NULL;

    g_assert_false (anot_experiment_prepare (both, &error));
    g_assert_error (error, ANOT_ERROR, ANOT_ERROR_INVALID_ARGUMENT);
  }

  /* Selections: counted independently from the dataset. */
  {
    guint in_g1_to_g3 = 0, in_g2 = 0;
    const char * const forms[] = { "1-3", "G01-G03", "G01,2,G03" };

    for (guint r = 0; r < n_requests; r++)
      {
        const char *g = anot_request_get_group (anot_dataset_get_request (dataset, r));

        if (strcmp (g, "G01") == 0 || strcmp (g, "G02") == 0 || strcmp (g, "G03") == 0)
          in_g1_to_g3++;
        if (strcmp (g, "G02") == 0)
          in_g2++;
      }
    g_assert_cmpuint (in_g1_to_g3, >, 0);

    for (guint i = 0; i < G_N_ELEMENTS (forms); i++)
      {
        g_autoptr(AnotExperiment) e = new_experiment (dataset, "random", f->root, "g",
                                                      "groups", forms[i], "runs", "2", NULL);
        g_autoptr(GError) error = NULL;

        g_assert_true (anot_experiment_prepare (e, &error));
        g_assert_no_error (error);
        g_assert_cmpuint (anot_experiment_get_n_planned (e), ==, 2 * in_g1_to_g3);
      }
    {
      g_autoptr(AnotExperiment) e = new_experiment (dataset, "random", f->root, "g",
                                                    "groups", "2", "limit", "1", NULL);
      g_assert_true (anot_experiment_prepare (e, NULL));
      g_assert_cmpuint (anot_experiment_get_n_planned (e), ==, MIN (1, in_g2));
    }
  }
  {
    g_autoptr(AnotExperiment) e = new_experiment (dataset, "random", f->root, "req",
                                                  "requests", "R05,R01", NULL);
    g_autoptr(GPtrArray) results = NULL;

    run_only (e);
    results = anot_experiment_get_results (e, 10, 1);
    g_assert_cmpuint (results->len, ==, 2);
    g_assert_cmpstr (anot_result_get_request_id (g_ptr_array_index (results, 0)), ==, "R01");
    g_assert_cmpstr (anot_result_get_request_id (g_ptr_array_index (results, 1)), ==, "R05");
  }

  /* An existing results directory is refused without --force. */
  {
    g_autoptr(AnotExperiment) again = new_experiment (dataset, "random", f->root, "req", NULL);
    g_autoptr(AnotExperiment) forced = new_experiment (dataset, "random", f->root, "req",
                                                       "force", "true", "limit", "4", NULL);
    g_autoptr(GError) error = NULL;
    g_autoptr(GPtrArray) rows = NULL;
    g_autofree char *results = path_in (f->root, "req", "clean", "run_1", "results_10.jsonl", NULL);

    g_assert_false (anot_experiment_prepare (again, &error));
    g_assert_error (error, ANOT_ERROR, ANOT_ERROR_INVALID_ARGUMENT);
    g_assert_nonnull (strstr (error->message, "--resume"));
    run_only (forced);
    rows = read_rows_for_comparison (results);
    g_assert_cmpuint (rows->len, ==, 4);
  }
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);

#define ADD(path, func) \
  g_test_add (path, Fixture, NULL, fixture_setup, func, fixture_teardown)

  ADD ("/experiment/demo-layout", test_demo_layout);
  ADD ("/experiment/philly-bm25-beats-random", test_philly_bm25_beats_random);
  ADD ("/experiment/oracle", test_oracle);
  ADD ("/experiment/concurrency-invariant", test_concurrency_invariant);
  ADD ("/experiment/original-pool-philly", test_original_pool_philly);
  ADD ("/experiment/compat-original", test_compat_original);
  ADD ("/experiment/scaling-demo", test_scaling_demo);
  ADD ("/experiment/runs-and-summary", test_runs_and_summary);
  ADD ("/experiment/method-errors", test_method_errors);
  ADD ("/experiment/request-deadline", test_request_deadline);
  ADD ("/experiment/cancel-abandons-hung-request", test_cancel_abandons_hung_request);
  ADD ("/experiment/predictions-mapping", test_predictions_mapping);
  ADD ("/experiment/usage-and-concurrency", test_usage_and_concurrency);
  ADD ("/experiment/cancel-and-resume", test_cancel_and_resume);
  ADD ("/experiment/resume-torn-line", test_resume_torn_line);
  ADD ("/experiment/resume-errors", test_resume_errors);
  ADD ("/experiment/options", test_options);

#undef ADD

  return g_test_run ();
}
