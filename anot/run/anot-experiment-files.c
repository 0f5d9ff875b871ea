/* anot-experiment-files.c: an experiment's files on disk, and resuming
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * <out>/<name>/<attack>/run_<R>/: config.json, results_<N>.jsonl,
 * trace_<N>.jsonl, usage.jsonl, scaling_summary.json, debug.log; and
 * <out>/<name>/<attack>/summary.json.  A resume reads config.json back.
 */
#include "config.h"

#include "anot-experiment-private.h"
#include "anot-http-backend.h"

#include "anot-error.h"
#include "anot-attack-templates.h"
#include "anot-item-attack.h"
#include "anot-review-forge.h"
#include "anot-results-writer-private.h"
#include "anot-version.h"

#include <errno.h>
#include <fcntl.h>
#include <glib/gstdio.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

char *
anot_experiment_run_dir_path (AttackEntry *attack,
              guint        run)
{
  g_autofree char *base = g_strdup_printf ("run_%u", run);

  return g_build_filename (attack->dir, base, NULL);
}

char *
anot_experiment_run_file_path (AttackEntry *attack,
               guint        run,
               const char  *prefix,
               guint        n)
{
  g_autofree char *dir = anot_experiment_run_dir_path (attack, run);
  g_autofree char *base = g_strdup_printf ("%s_%u.jsonl", prefix, n);

  return g_build_filename (dir, base, NULL);
}

static char *
results_path (AttackEntry *attack,
              guint        run,
              guint        n)
{
  return anot_experiment_run_file_path (attack, run, "results", n);
}

GPtrArray *
anot_experiment_cell_sorted_rows (Cell *cell)
{
  GPtrArray *rows = g_ptr_array_new_with_free_func (g_object_unref);
  GHashTableIter iter;
  gpointer value;

  g_hash_table_iter_init (&iter, cell->rows);
  while (g_hash_table_iter_next (&iter, NULL, &value))
    g_ptr_array_add (rows, g_object_ref (value));
  g_ptr_array_sort (rows, anot_result_compare_by_id);
  return rows;
}

AnotMetrics *
anot_experiment_cell_metrics (AnotExperiment *self,
              Cell           *cell)
{
  g_autoptr(GPtrArray) rows = anot_experiment_cell_sorted_rows (cell);
  AnotMetrics *metrics = anot_metrics_new (self->settings->k);

  for (guint i = 0; i < rows->len; i++)
    anot_metrics_add_result (metrics, g_ptr_array_index (rows, i));
  return metrics;
}

static void
add_sorted_string_map (JsonBuilder *builder,
                       const char  *member,
                       GHashTable  *map)
{
  g_autoptr(GList) keys = g_list_sort (g_hash_table_get_keys (map), (GCompareFunc) strcmp);

  json_builder_set_member_name (builder, member);
  json_builder_begin_object (builder);
  for (GList *l = keys; l; l = l->next)
    {
      json_builder_set_member_name (builder, l->data);
      json_builder_add_string_value (builder, g_hash_table_lookup (map, l->data));
    }
  json_builder_end_object (builder);
}

static void
add_attack_config (JsonBuilder *builder,
                   AnotDataset *dataset,
                   AttackEntry *attack,
                   guint64      run_seed)
{
  g_autoptr(JsonObject) parameters = NULL;
  gint64 number;

  /* As the original: null for clean runs. */
  if (attack->attack == NULL)
    {
      json_builder_add_null_value (builder);
      return;
    }

  parameters = anot_attack_get_parameters (attack->attack);
  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "attack");
  json_builder_add_string_value (builder, attack->name);
  /* The original's keys, null when the attack has no such parameter or
   * it is at its "all"/"unset" value. */
  json_builder_set_member_name (builder, "n_restaurants");
  number = json_object_get_int_member_with_default (parameters, "restaurants", -1);
  if (number >= 0)
    json_builder_add_int_value (builder, number);
  else
    json_builder_add_null_value (builder);
  json_builder_set_member_name (builder, "n_reviews");
  number = json_object_get_int_member_with_default (parameters, "reviews", -1);
  if (number >= 0)
    json_builder_add_int_value (builder, number);
  else
    json_builder_add_null_value (builder);
  json_builder_set_member_name (builder, "target_len");
  number = json_object_get_int_member_with_default (parameters, "target-len", 0);
  if (number > 0)
    json_builder_add_int_value (builder, number);
  else
    json_builder_add_null_value (builder);
  /* The form of added reviews: results of the two modes are not
   * comparable (null for an attack without the parameter). */
  json_builder_set_member_name (builder, "compat");
  if (json_object_has_member (parameters, "compat"))
    json_builder_add_string_value (builder, json_object_get_string_member (parameters, "compat"));
  else
    json_builder_add_null_value (builder);
  /* How added reviews are numbered, only when not in the dataset's own
   * drawn format (so the restaurant benchmarks' records are unchanged). */
  if (ANOT_IS_ITEM_ATTACK (attack->attack) &&
      anot_item_attack_get_compat (ANOT_ITEM_ATTACK (attack->attack)) == ANOT_ATTACK_COMPAT_REALISTIC)
    {
      g_autoptr(GPtrArray) none = g_ptr_array_new ();
      g_autoptr(AnotReviewForge) forge = anot_review_forge_new (dataset, none, NULL);
      AnotReviewIdShape shape = anot_review_forge_get_id_shape (forge);

      if (shape != ANOT_REVIEW_ID_SHAPE_DATASET)
        {
          json_builder_set_member_name (builder, "review_ids");
          json_builder_add_string_value (builder, anot_review_id_shape_to_string (shape));
        }
    }
  /* Which texts the attack adds (see AnotAttackTemplates), only when not
   * the restaurant set.  An invalid file failed the attack already. */
  if (ANOT_IS_ITEM_ATTACK (attack->attack))
    {
      AnotAttackTemplates *templates = anot_attack_templates_get_for_dataset (dataset, NULL);

      if (templates != NULL &&
          g_strcmp0 (anot_attack_templates_get_set_name (templates), "restaurant") != 0)
        {
          json_builder_set_member_name (builder, "templates");
          json_builder_add_string_value (builder, anot_attack_templates_get_set_name (templates));
        }
    }
  json_builder_set_member_name (builder, "seed");
  json_builder_add_int_value (builder, (gint64) run_seed);
  json_builder_set_member_name (builder, "seed_rule");
  json_builder_add_string_value (builder,
                                 "anot_seed_derive(seed, \"attack:<attack>:<request_id>:<N>\"); "
                                 "per attacked item anot_seed_derive(that, \"item:<item_id>\")");
  json_builder_set_member_name (builder, "parameters");
  {
    g_autoptr(JsonNode) node = json_node_new (JSON_NODE_OBJECT);

    json_node_set_object (node, parameters);
    json_builder_add_value (builder, g_steal_pointer (&node));
  }
  json_builder_end_object (builder);
}

/* Whether the method called an LLM: a call is counted in the rows of this
 * run (perhaps by an earlier process, before a resume).  A failed call is
 * not counted, so a run with failed requests keeps its configured LLM: it
 * may be what failed. */
/* Without -j: the most calls in flight each server's adaptive limit
 * reached, by base URL (what to give -j next time, or
 * max_concurrency).  A fact about this process's run, outside "anot",
 * which a resume reads: a resume starts from 1 again. */
static void
add_concurrency_reached (JsonBuilder       *builder,
                         AnotBackendRouter *router)
{
  g_autoptr(GPtrArray) backends = router ? anot_backend_router_list_http_backends (router) : NULL;
  gboolean any = FALSE;

  for (guint i = 0; backends != NULL && i < backends->len; i++)
    {
      AnotHttpBackend *backend = g_ptr_array_index (backends, i);
      guint peak = anot_http_backend_get_peak_concurrency (backend);
      const char *url = anot_http_backend_get_base_url (backend);

      if (peak == 0)
        continue;
      if (!any)
        {
          json_builder_set_member_name (builder, "concurrency_reached");
          json_builder_begin_object (builder);
          any = TRUE;
        }
      {
        /* A base URL may carry credentials: never written. */
        g_autoptr(GUri) uri = url ? g_uri_parse (url, G_URI_FLAGS_NONE, NULL) : NULL;
        g_autofree char *shown = uri ? g_uri_to_string_partial (uri, G_URI_HIDE_USERINFO |
                                                                     G_URI_HIDE_QUERY |
                                                                     G_URI_HIDE_FRAGMENT)
                                     : g_strdup ("several servers");

        json_builder_set_member_name (builder, shown);
        json_builder_add_int_value (builder, peak);
      }
    }
  if (any)
    json_builder_end_object (builder);
}

static gboolean
used_an_llm (AnotUsage *usage,
             guint      n_failed)
{
  return anot_usage_get_calls (usage) > 0 || n_failed > 0;
}

gboolean
anot_experiment_write_config (AnotExperiment  *self,
              AttackEntry     *attack,
              guint            run,
              const char      *status,
              GError         **error)
{
  g_autoptr(JsonBuilder) builder = json_builder_new ();
  g_autoptr(JsonNode) root = NULL;
  g_autoptr(AnotUsage) usage = anot_usage_new ();
  g_autofree char *dir = anot_experiment_run_dir_path (attack, run);
  g_autofree char *path = g_build_filename (dir, "config.json", NULL);
  g_autofree char *timestamp = anot_results_timestamp_now ();
  guint n_cells_with_rows = 0, n_failed = 0, n_unscored = 0;

  for (guint i = 0; i < self->cells->len; i++)
    {
      Cell *cell = g_ptr_array_index (self->cells, i);
      GHashTableIter iter;
      gpointer value;

      if (cell->run != run || cell->attack != attack)
        continue;
      if (g_hash_table_size (cell->rows) > 0)
        n_cells_with_rows++;
      g_hash_table_iter_init (&iter, cell->rows);
      while (g_hash_table_iter_next (&iter, NULL, &value))
        {
          anot_usage_merge (usage, anot_result_get_usage (value));
          if (anot_result_get_error_message (value) != NULL)
            n_failed++;
          if (!anot_result_is_scored (value))
            n_unscored++;
        }
    }
  /* Calls cancelled in flight are in no row: the journal has them. */
  if (self->journal != NULL)
    {
      g_autofree char *prefix = g_strdup_printf ("%s/%u/", attack->name, run);

      anot_call_journal_add_cancelled (self->journal, prefix, usage);
    }
  /* Every request has a row, but not every row a score: the
   * infrastructure failed some, which a resume runs again. */
  if (n_unscored > 0 && g_strcmp0 (status, "complete") == 0)
    status = "incomplete";

  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "method");
  json_builder_add_string_value (builder, self->method_name);
  json_builder_set_member_name (builder, "defense");
  json_builder_add_boolean_value (builder, self->settings->defense);
  json_builder_set_member_name (builder, "data");
  json_builder_add_string_value (builder, anot_dataset_get_name (self->dataset));
  json_builder_set_member_name (builder, "k");
  json_builder_add_int_value (builder, self->settings->k);
  json_builder_set_member_name (builder, "parallel");
  json_builder_add_boolean_value (builder, anot_experiment_requests_in_flight (self) > 1);
  json_builder_set_member_name (builder, "llm_config");
  if (used_an_llm (usage, n_failed))
    json_builder_add_value (builder, anot_llm_config_to_json (self->llm_config, self->router));
  else
    {
      /* The configuration's default model is not a fact about a run that
       * called none (bm25, random, ...): readers would report it. */
      json_builder_begin_object (builder);
      json_builder_set_member_name (builder, "provider");
      json_builder_add_null_value (builder);
      json_builder_set_member_name (builder, "model");
      json_builder_add_null_value (builder);
      json_builder_end_object (builder);
    }
  json_builder_set_member_name (builder, "attack_config");
  add_attack_config (builder, self->dataset, attack, self->settings->seed + run);

  if (self->settings->candidates->len == 1)
    {
      Cell *cell = anot_experiment_find_cell (self, attack, run, g_array_index (self->settings->candidates, guint, 0));

      if (cell != NULL && g_hash_table_size (cell->rows) > 0)
        {
          g_autoptr(AnotMetrics) metrics = anot_experiment_cell_metrics (self, cell);

          json_builder_set_member_name (builder, "stats");
          json_builder_add_value (builder, anot_metrics_to_json (metrics));
        }
    }
  else if (n_cells_with_rows > 0)
    {
      json_builder_set_member_name (builder, "stats_by_n");
      json_builder_begin_object (builder);
      for (guint i = 0; i < self->settings->candidates->len; i++)
        {
          guint n = g_array_index (self->settings->candidates, guint, i);
          Cell *cell = anot_experiment_find_cell (self, attack, run, n);
          g_autoptr(AnotMetrics) metrics = NULL;
          char key[16];

          if (cell == NULL || g_hash_table_size (cell->rows) == 0)
            continue;
          metrics = anot_experiment_cell_metrics (self, cell);
          g_snprintf (key, sizeof key, "%u", n);
          json_builder_set_member_name (builder, key);
          json_builder_add_value (builder, anot_metrics_to_json (metrics));
        }
      json_builder_end_object (builder);
    }

  json_builder_set_member_name (builder, "usage");
  json_builder_add_value (builder, anot_usage_to_json (usage));
  add_concurrency_reached (builder, self->router);
  json_builder_set_member_name (builder, "timestamp");
  json_builder_add_string_value (builder, timestamp);
  json_builder_set_member_name (builder, "benchmark_mode");
  json_builder_add_boolean_value (builder, TRUE);
  json_builder_set_member_name (builder, "run_name");
  json_builder_add_string_value (builder, self->settings->name);

  /* Everything needed to resume, and to know what was run. */
  json_builder_set_member_name (builder, "anot");
  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "version");
  json_builder_add_string_value (builder, ANOT_VERSION_STRING);
  json_builder_set_member_name (builder, "status");
  json_builder_add_string_value (builder, status);
  json_builder_set_member_name (builder, "run");
  json_builder_add_int_value (builder, run);
  json_builder_set_member_name (builder, "run_seed");
  json_builder_add_int_value (builder, (gint64) (self->settings->seed + run));
  json_builder_set_member_name (builder, "method");
  json_builder_add_string_value (builder, self->method_name);
  /* The file the method came from (a C module, a Python file): which
   * file, and which version of it. */
  if (self->plugin_path != NULL)
    {
      json_builder_set_member_name (builder, "method_plugin");
      json_builder_begin_object (builder);
      json_builder_set_member_name (builder, "file");
      json_builder_add_string_value (builder, self->plugin_path);
      json_builder_set_member_name (builder, "language");
      json_builder_add_string_value (builder, self->plugin_language);
      json_builder_set_member_name (builder, "sha256");
      json_builder_add_string_value (builder, self->plugin_sha256);
      json_builder_end_object (builder);
    }
  /* Which defense text the run sent: config.ini may replace the built-in
   * one, and a resume must not send another. */
  if (self->defense_sha256 != NULL)
    {
      json_builder_set_member_name (builder, "defense_prompt_sha256");
      json_builder_add_string_value (builder, self->defense_sha256);
    }
  add_sorted_string_map (builder, "method_options", self->settings->method_options);
  /* What the method read from config.ini, so that a resume can tell when
   * it changed (only when there is something: older files stay as they
   * were). */
  if (self->method_file_settings != NULL && g_hash_table_size (self->method_file_settings) > 0)
    add_sorted_string_map (builder, "method_settings_file", self->method_file_settings);
  /* Every option the method declared, with the value it runs with and
   * where that came from (`default` included). */
  if (self->method_settings != NULL)
    {
      json_builder_set_member_name (builder, "method_settings");
      json_builder_add_value (builder, json_node_copy (self->method_settings));
    }
  json_builder_set_member_name (builder, "data_path");
  {
    g_autofree char *data_path = g_canonicalize_filename (anot_dataset_get_path (self->dataset), NULL);
    json_builder_add_string_value (builder, data_path);
  }
  json_builder_set_member_name (builder, "data_name");
  json_builder_add_string_value (builder, anot_dataset_get_name (self->dataset));
  json_builder_set_member_name (builder, "dataset_checksum");
  json_builder_add_string_value (builder, anot_dataset_get_checksum (self->dataset));
  anot_run_config_write_record (self->settings, builder);

  json_builder_set_member_name (builder, "requests_by_n");
  json_builder_begin_object (builder);
  for (guint i = 0; i < self->settings->candidates->len; i++)
    {
      guint n = g_array_index (self->settings->candidates, guint, i);
      char key[16];

      if (g_hash_table_contains (self->skipped, GUINT_TO_POINTER (n)))
        continue;
      g_snprintf (key, sizeof key, "%u", n);
      json_builder_set_member_name (builder, key);
      json_builder_add_int_value (builder, anot_experiment_kept_count (self, n));
    }
  json_builder_end_object (builder);
  json_builder_set_member_name (builder, "dropped_by_n");
  json_builder_begin_object (builder);
  for (guint i = 0; i < self->settings->candidates->len; i++)
    {
      guint n = g_array_index (self->settings->candidates, guint, i);
      char key[16];

      if (g_hash_table_contains (self->skipped, GUINT_TO_POINTER (n)))
        continue;
      g_snprintf (key, sizeof key, "%u", n);
      json_builder_set_member_name (builder, key);
      json_builder_add_int_value (builder,
                                  GPOINTER_TO_UINT (g_hash_table_lookup (self->dropped,
                                                                         GUINT_TO_POINTER (n))));
    }
  json_builder_end_object (builder);
  json_builder_set_member_name (builder, "skipped_n");
  json_builder_begin_array (builder);
  for (guint i = 0; i < self->settings->candidates->len; i++)
    {
      guint n = g_array_index (self->settings->candidates, guint, i);

      if (g_hash_table_contains (self->skipped, GUINT_TO_POINTER (n)))
        json_builder_add_int_value (builder, n);
    }
  json_builder_end_array (builder);

  /* The effective options as text, in the form set_option() takes, so a
   * resume restores exactly these even if defaults change later. */
  anot_run_config_write_resume_options (self->settings, builder);
  json_builder_end_object (builder);

  json_builder_end_object (builder);

  root = json_builder_get_root (builder);
  return anot_results_write_json (path, root, TRUE, error);
}

static gboolean
write_usage_file (AnotExperiment  *self,
                  AttackEntry     *attack,
                  guint            run,
                  GError         **error)
{
  g_autofree char *dir = anot_experiment_run_dir_path (attack, run);
  g_autofree char *path = g_build_filename (dir, "usage.jsonl", NULL);
  g_autoptr(GHashTable) by_n = g_hash_table_new_full (NULL, NULL, NULL,
                                                      (GDestroyNotify) g_ptr_array_unref);

  for (guint i = 0; i < self->cells->len; i++)
    {
      Cell *cell = g_ptr_array_index (self->cells, i);

      if (cell->run == run && cell->attack == attack)
        g_hash_table_insert (by_n, GUINT_TO_POINTER (cell->n), anot_experiment_cell_sorted_rows (cell));
    }
  return anot_results_write_usage (path, by_n, error);
}

static gboolean
write_scaling_summary (AnotExperiment  *self,
                       AttackEntry     *attack,
                       guint            run,
                       GError         **error)
{
  g_autoptr(JsonBuilder) builder = json_builder_new ();
  g_autoptr(JsonNode) root = NULL;
  g_autofree char *dir = anot_experiment_run_dir_path (attack, run);
  g_autofree char *path = g_build_filename (dir, "scaling_summary.json", NULL);

  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "scale_points");
  json_builder_begin_array (builder);
  for (guint i = 0; i < self->settings->candidates->len; i++)
    json_builder_add_int_value (builder, g_array_index (self->settings->candidates, guint, i));
  json_builder_end_array (builder);
  json_builder_set_member_name (builder, "k");
  json_builder_add_int_value (builder, self->settings->k);
  json_builder_set_member_name (builder, "results");
  json_builder_begin_array (builder);
  for (guint i = 0; i < self->settings->candidates->len; i++)
    {
      guint n = g_array_index (self->settings->candidates, guint, i);
      Cell *cell = anot_experiment_find_cell (self, attack, run, n);
      guint n_rows = cell ? g_hash_table_size (cell->rows) : 0;
      const char *status;

      if (cell == NULL)
        status = "skipped";
      else if (anot_experiment_kept_count (self, n) == 0)
        status = "no_requests";
      else if (n_rows < anot_experiment_cell_planned_count (self, cell))
        status = "partial";
      else
        status = "ok";

      json_builder_begin_object (builder);
      json_builder_set_member_name (builder, "candidates");
      json_builder_add_int_value (builder, n);
      json_builder_set_member_name (builder, "requests");
      if (cell == NULL)
        json_builder_add_string_value (builder, "--");
      else
        json_builder_add_int_value (builder, n_rows);

      if (cell != NULL && n_rows > 0)
        {
          g_autoptr(AnotMetrics) metrics = anot_experiment_cell_metrics (self, cell);
          g_autoptr(AnotUsage) usage = anot_usage_new ();
          g_autofree char *usage_text = NULL;
          GHashTableIter iter;
          gpointer value;

          for (guint j = 1; j <= self->settings->k; j++)
            {
              char key[16], text[32];

              g_snprintf (key, sizeof key, "at_%u", j);
              g_snprintf (text, sizeof text, "%.0f%%", anot_metrics_get_hits_at (metrics, j) * 100);
              json_builder_set_member_name (builder, key);
              json_builder_add_string_value (builder, text);
            }
          g_hash_table_iter_init (&iter, cell->rows);
          while (g_hash_table_iter_next (&iter, NULL, &value))
            anot_usage_merge (usage, anot_result_get_usage (value));
          usage_text = anot_results_format_usage (anot_usage_get_prompt_tokens (usage) +
                                                  anot_usage_get_completion_tokens (usage),
                                                  anot_usage_get_cost_usd (usage),
                                                  anot_usage_get_latency_ms (usage));
          json_builder_set_member_name (builder, "usage");
          json_builder_add_string_value (builder, usage_text);
          json_builder_set_member_name (builder, "mrr");
          json_builder_add_double_value (builder, anot_metrics_get_mrr (metrics));
        }
      else
        {
          for (guint j = 1; j <= self->settings->k; j++)
            {
              char key[16];

              g_snprintf (key, sizeof key, "at_%u", j);
              json_builder_set_member_name (builder, key);
              json_builder_add_string_value (builder, "--");
            }
          json_builder_set_member_name (builder, "usage");
          json_builder_add_string_value (builder, "--");
        }
      if (self->settings->pool == ANOT_POOL_MODE_ORIGINAL && cell != NULL)
        {
          json_builder_set_member_name (builder, "dropped");
          json_builder_add_int_value (builder,
                                      GPOINTER_TO_UINT (g_hash_table_lookup (self->dropped,
                                                                             GUINT_TO_POINTER (n))));
        }
      json_builder_set_member_name (builder, "status");
      json_builder_add_string_value (builder, status);
      json_builder_end_object (builder);
    }
  json_builder_end_array (builder);
  json_builder_end_object (builder);

  root = json_builder_get_root (builder);
  return anot_results_write_json (path, root, TRUE, error);
}

static gboolean
write_summary (AnotExperiment  *self,
               AttackEntry     *attack,
               GError         **error)
{
  g_autoptr(JsonNode) summary = NULL;
  g_autofree char *path = g_build_filename (attack->dir, "summary.json", NULL);

  summary = anot_results_summarize_attack_dir (attack->dir, self->method_name,
                                               anot_dataset_get_name (self->dataset),
                                               attack->name, error);
  if (summary == NULL)
    return FALSE;
  return anot_results_write_json (path, summary, TRUE, error);
}

gboolean
anot_experiment_make_directory (const char  *path,
                GError     **error)
{
  if (g_mkdir_with_parents (path, 0755) != 0)
    {
      int saved_errno = errno;

      g_set_error (error, ANOT_ERROR, ANOT_ERROR_IO, "Cannot create %s: %s",
                   path, g_strerror (saved_errno));
      return FALSE;
    }
  return TRUE;
}

/* --force: remove what an earlier experiment of the same name wrote, and
 * nothing else. */
static gboolean
remove_previous_results (AttackEntry  *attack,
                         GError      **error)
{
  g_autoptr(GDir) dir = g_dir_open (attack->dir, 0, NULL);
  g_autofree char *summary = g_build_filename (attack->dir, "summary.json", NULL);
  const char *name;

  if (dir == NULL)
    return TRUE;

  while ((name = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *run_dir = NULL;
      g_autoptr(GDir) inner = NULL;
      const char *file;

      if (!g_str_has_prefix (name, "run_"))
        continue;
      run_dir = g_build_filename (attack->dir, name, NULL);
      inner = g_dir_open (run_dir, 0, NULL);
      if (inner == NULL)
        continue;
      while ((file = g_dir_read_name (inner)) != NULL)
        {
          if (strcmp (file, "config.json") == 0 || strcmp (file, "usage.jsonl") == 0 ||
              strcmp (file, "debug.log") == 0 ||
              strcmp (file, "scaling_summary.json") == 0 ||
              ((g_str_has_prefix (file, "results_") || g_str_has_prefix (file, "trace_")) &&
               g_str_has_suffix (file, ".jsonl")))
            {
              g_autofree char *path = g_build_filename (run_dir, file, NULL);

              if (g_unlink (path) != 0)
                {
                  int saved_errno = errno;

                  g_set_error (error, ANOT_ERROR, ANOT_ERROR_IO, "Cannot remove %s: %s",
                               path, g_strerror (saved_errno));
                  return FALSE;
                }
            }
        }
      g_rmdir (run_dir); /* only succeeds when nothing else is in it */
    }
  g_unlink (summary);
  return TRUE;
}

/* The rows already in the experiment's directory (a resume's), into
 * their cells. */
gboolean
anot_experiment_load_existing_rows (AnotExperiment  *self,
                                    GError         **error)
{
  g_clear_object (&self->replaced_usage);
  self->replaced_usage = anot_usage_new ();
  self->n_replaced = 0;
  for (guint i = 0; i < self->cells->len; i++)
    {
      Cell *cell = g_ptr_array_index (self->cells, i);

      g_clear_pointer (&cell->replaced, g_hash_table_unref);
    }
  for (guint i = 0; i < self->cells->len; i++)
    {
      Cell *cell = g_ptr_array_index (self->cells, i);
      g_autofree char *path = results_path (cell->attack, cell->run, cell->n);
      GPtrArray *kept = g_hash_table_lookup (self->kept, GUINT_TO_POINTER (cell->n));
      g_autoptr(GPtrArray) rows = NULL;
      guint n_skipped = 0;

      rows = anot_results_read_rows (path, cell->run, cell->n, &n_skipped, error);
      if (rows == NULL)
        return FALSE;
      if (n_skipped > 0)
        g_info ("%s: ignoring %u unreadable line(s); those requests run again",
                path, n_skipped);

      for (guint r = 0; r < rows->len; r++)
        {
          AnotResult *result = g_ptr_array_index (rows, r);
          const char *id = anot_result_get_request_id (result);
          gboolean planned = FALSE;

          for (guint j = 0; j < kept->len && !planned; j++)
            planned = strcmp (anot_request_get_id (g_ptr_array_index (kept, j)), id) == 0;
          /* A request the infrastructure failed runs again: its row is
           * replaced by the new one, but the calls it made before the
           * failure were paid (the budget counts them). */
          if (planned && anot_experiment_cell_plans (cell, id) && anot_result_is_scored (result))
            g_hash_table_insert (cell->rows, g_strdup (id), g_object_ref (result));
          else if (planned && anot_experiment_cell_plans (cell, id))
            {
              anot_usage_merge (self->replaced_usage, anot_result_get_usage (result));
              self->n_replaced++;
              if (cell->replaced == NULL)
                cell->replaced = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
              g_hash_table_add (cell->replaced, g_strdup (id));
            }
        }
    }
  return TRUE;
}

static gboolean
prepare_attack_dirs (AnotExperiment  *self,
                     GError         **error)
{
  for (guint i = 0; i < self->attacks->len; i++)
    {
      AttackEntry *entry = g_ptr_array_index (self->attacks, i);

      if ((self->settings->force && !self->resuming && !remove_previous_results (entry, error)) ||
          !anot_experiment_make_directory (entry->dir, error))
        return FALSE;
    }
  return TRUE;
}


/* Everything a finished or interrupted cell leaves on disk: its rows in
 * order, the run's usage and config.json, and, when the run is over (done
 * or stopping), the scaling summary (more than one N) and summary.json. */
gboolean
anot_experiment_write_cell_files (AnotExperiment  *self,
                                  Cell            *cell,
                                  const char      *status,
                                  gboolean         run_over,
                                  GError         **error)
{
  g_autofree char *path = results_path (cell->attack, cell->run, cell->n);
  g_autoptr(GPtrArray) rows = anot_experiment_cell_sorted_rows (cell);

  return anot_results_write_rows (path, rows, error) &&
         write_usage_file (self, cell->attack, cell->run, error) &&
         anot_experiment_write_config (self, cell->attack, cell->run, status, error) &&
         (!run_over || self->settings->candidates->len <= 1 ||
          write_scaling_summary (self, cell->attack, cell->run, error)) &&
         (!run_over || write_summary (self, cell->attack, error));
}

/* Before a resumed cell appends traces: the trace file keeps a line only
 * for a request with a row (@rows: request id -> row), so that a torn
 * last line (a kill, a full disk) and the trace of a request that runs
 * again (its row was not written, or was unscored) are gone and every
 * request has one trace.  The file is rewritten only when a line goes. */
gboolean
anot_experiment_repair_trace_file (const char  *path,
                                   GHashTable  *rows,
                                   GError     **error)
{
  g_autofree char *contents = NULL;
  g_autoptr(GString) kept = NULL;
  g_autoptr(GError) local = NULL;
  gsize length, start = 0;
  gboolean dropped = FALSE;

  if (!g_file_get_contents (path, &contents, &length, &local))
    {
      if (g_error_matches (local, G_FILE_ERROR, G_FILE_ERROR_NOENT))
        return TRUE;
      g_set_error (error, ANOT_ERROR, ANOT_ERROR_IO, "Cannot read %s: %s", path, local->message);
      return FALSE;
    }
  kept = g_string_sized_new (length);
  while (start < length)
    {
      const char *line = contents + start;
      const char *end = memchr (line, '\n', length - start);
      g_autoptr(JsonParser) parser = json_parser_new ();
      JsonNode *root;
      const char *id = NULL;

      if (end == NULL)
        {
          dropped = TRUE;
          break;
        }
      if (json_parser_load_from_data (parser, line, end - line, NULL) &&
          (root = json_parser_get_root (parser)) != NULL && JSON_NODE_HOLDS_OBJECT (root))
        id = json_object_get_string_member_with_default (json_node_get_object (root),
                                                         "request_id", NULL);
      if (id != NULL && g_hash_table_contains (rows, id))
        g_string_append_len (kept, line, end - line + 1);
      else
        dropped = TRUE;
      start = (gsize) (end - contents) + 1;
    }
  if (!dropped)
    return TRUE;
  if (!g_file_set_contents (path, kept->str, (gssize) kept->len, &local))
    {
      g_set_error (error, ANOT_ERROR, ANOT_ERROR_IO, "Cannot write %s: %s", path, local->message);
      return FALSE;
    }
  return TRUE;
}

/* One writer per experiment directory: an exclusive flock() on
 * <directory>/.anot-lock from the start of a run or a merge to its end
 * (anot_experiment_unlock_directory(), or the object's finalize), released
 * by the kernel however the process ends (no stale lock after a kill -9;
 * on NFS Linux maps it to a POSIX lock the server keeps).  The holder
 * writes its PID and host into the file for the one it turns away. */
gboolean
anot_experiment_lock_directory (AnotExperiment  *self,
                                GError         **error)
{
  g_autofree char *path = NULL;
  g_autofree char *holder = NULL;
  g_autofree char *mine = NULL;
  int fd;

  if (self->lock_fd >= 0)
    return TRUE;
  if (!anot_experiment_make_directory (self->directory, error))
    return FALSE;
  path = g_build_filename (self->directory, ".anot-lock", NULL);
  fd = g_open (path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0)
    {
      int saved_errno = errno;

      g_set_error (error, ANOT_ERROR, ANOT_ERROR_IO, "Cannot open %s: %s", path, g_strerror (saved_errno));
      return FALSE;
    }
  if (flock (fd, LOCK_EX | LOCK_NB) != 0)
    {
      int saved_errno = errno;

      close (fd);
      if (saved_errno != EWOULDBLOCK)
        {
          g_set_error (error, ANOT_ERROR, ANOT_ERROR_IO, "Cannot lock %s: %s", path, g_strerror (saved_errno));
          return FALSE;
        }
      if (g_file_get_contents (path, &holder, NULL, NULL))
        g_strstrip (holder);
      g_set_error (error, ANOT_ERROR, ANOT_ERROR_BUSY,
                   "%s is being written by another process (%s); one process at a time runs, "
                   "resumes or merges into a results directory: wait for it to end, or stop it",
                   self->directory,
                   holder != NULL && *holder != '\0' ? holder : "which did not say who it is");
      return FALSE;
    }

  mine = g_strdup_printf ("PID %d on host %s\n", (int) getpid (), g_get_host_name ());
  if (ftruncate (fd, 0) != 0 || write (fd, mine, strlen (mine)) != (gssize) strlen (mine))
    {
      int saved_errno = errno;

      close (fd);
      g_set_error (error, ANOT_ERROR, ANOT_ERROR_IO, "Cannot write %s: %s", path, g_strerror (saved_errno));
      return FALSE;
    }
  self->lock_fd = fd;
  return TRUE;
}

/* At the end of a run (a Python user may resume in the same process). */
void
anot_experiment_unlock_directory (AnotExperiment *self)
{
  if (self->lock_fd < 0)
    return;
  close (self->lock_fd);
  self->lock_fd = -1;
}

/* Before a run or a merge: the experiment directory locked, every
 * attack's directory made (emptied of an earlier experiment's files with
 * `force`), and the rows already there read. */
gboolean
anot_experiment_open_directories (AnotExperiment  *self,
                                  GError         **error)
{
  return anot_experiment_lock_directory (self, error) &&
         prepare_attack_dirs (self, error) && anot_experiment_load_existing_rows (self, error);
}

/* config.json's record of config.ini's [method NAME] ("anot" object's
 * "method_settings_file"): key -> value, or NULL when there is none. */
GHashTable *
anot_experiment_read_method_settings_record (JsonObject *anot)
{
  JsonObject *recorded;
  GHashTable *map;
  g_autoptr(GList) keys = NULL;

  if (!json_object_has_member (anot, "method_settings_file") ||
      !JSON_NODE_HOLDS_OBJECT (json_object_get_member (anot, "method_settings_file")))
    return NULL;
  recorded = json_object_get_object_member (anot, "method_settings_file");
  keys = json_object_get_members (recorded);
  map = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  for (GList *l = keys; l != NULL; l = l->next)
    g_hash_table_insert (map, g_strdup (l->data),
                         g_strdup (json_object_get_string_member_with_default (recorded, l->data, "")));
  return map;
}

/* ------------------------------------------------------------------------
 * Resume
 * --------------------------------------------------------------------- */

static int
compare_paths (gconstpointer a,
               gconstpointer b)
{
  return strcmp (*(const char * const *) a, *(const char * const *) b);
}

char *
anot_experiment_find_config (const char *directory,
                             char      **out_experiment_dir)
{
  g_autofree char *direct = g_build_filename (directory, "config.json", NULL);
  g_autoptr(GPtrArray) candidates = g_ptr_array_new_with_free_func (g_free);

  *out_experiment_dir = NULL;

  /* A run dir: <out>/<name>/<attack>/run_<R> */
  if (g_file_test (direct, G_FILE_TEST_IS_REGULAR))
    {
      g_autofree char *attack = g_path_get_dirname (directory);

      *out_experiment_dir = g_path_get_dirname (attack);
      return g_steal_pointer (&direct);
    }

  /* An attack dir, then an experiment dir. */
  for (guint depth = 0; depth < 2; depth++)
    {
      g_autoptr(GDir) dir = g_dir_open (directory, 0, NULL);
      const char *name;

      if (dir == NULL)
        return NULL;
      while ((name = g_dir_read_name (dir)) != NULL)
        {
          g_autofree char *child = g_build_filename (directory, name, NULL);

          if (depth == 0 && g_str_has_prefix (name, "run_"))
            {
              g_autofree char *path = g_build_filename (child, "config.json", NULL);

              if (g_file_test (path, G_FILE_TEST_IS_REGULAR))
                g_ptr_array_add (candidates, g_steal_pointer (&path));
            }
          else if (depth == 1 && g_file_test (child, G_FILE_TEST_IS_DIR))
            {
              g_autoptr(GDir) inner = g_dir_open (child, 0, NULL);
              const char *run;

              while (inner && (run = g_dir_read_name (inner)) != NULL)
                {
                  g_autofree char *path = NULL;

                  if (!g_str_has_prefix (run, "run_"))
                    continue;
                  path = g_build_filename (child, run, "config.json", NULL);
                  if (g_file_test (path, G_FILE_TEST_IS_REGULAR))
                    g_ptr_array_add (candidates, g_steal_pointer (&path));
                }
            }
        }
      if (candidates->len > 0)
        {
          const char *chosen = NULL;

          g_ptr_array_sort (candidates, compare_paths);
          /* Attacks run one after the other may share the directory: the
           * one to continue is the one that did not complete. */
          for (guint i = 0; i < candidates->len && chosen == NULL; i++)
            {
              g_autoptr(JsonNode) node = anot_results_read_json (g_ptr_array_index (candidates, i), NULL);
              JsonObject *anot = NULL;

              if (node != NULL && JSON_NODE_HOLDS_OBJECT (node) &&
                  json_object_has_member (json_node_get_object (node), "anot") &&
                  JSON_NODE_HOLDS_OBJECT (json_object_get_member (json_node_get_object (node), "anot")))
                anot = json_object_get_object_member (json_node_get_object (node), "anot");
              if (anot != NULL &&
                  g_strcmp0 (json_object_get_string_member_with_default (anot, "status", NULL),
                             "complete") != 0)
                chosen = g_ptr_array_index (candidates, i);
            }
          if (chosen == NULL)
            chosen = g_ptr_array_index (candidates, 0);
          *out_experiment_dir = depth == 0 ? g_path_get_dirname (directory)
                                           : g_strdup (directory);
          return g_strdup (chosen);
        }
    }
  return NULL;
}

/* Runs started before attacks added realistic reviews recorded no
 * `compat` in their attack_config and added labelled reviews in a form
 * neither mode reproduces: resuming them would mix two forms of attack in
 * one result.  Returns the config.json of such a run, or NULL. */
static char *
find_pre_compat_attack_run (const char *experiment_dir)
{
  g_autoptr(GDir) attacks = g_dir_open (experiment_dir, 0, NULL);
  const char *attack;

  while (attacks != NULL && (attack = g_dir_read_name (attacks)) != NULL)
    {
      g_autofree char *attack_dir = g_build_filename (experiment_dir, attack, NULL);
      g_autoptr(GDir) runs = g_dir_open (attack_dir, 0, NULL);
      const char *run;

      while (runs != NULL && (run = g_dir_read_name (runs)) != NULL)
        {
          g_autofree char *path = g_build_filename (attack_dir, run, "config.json", NULL);
          g_autoptr(JsonNode) config = NULL;
          JsonNode *attack_config;

          if (!g_str_has_prefix (run, "run_") ||
              (config = anot_results_read_json (path, NULL)) == NULL ||
              !JSON_NODE_HOLDS_OBJECT (config))
            continue;
          attack_config = json_object_get_member (json_node_get_object (config), "attack_config");
          if (attack_config != NULL && JSON_NODE_HOLDS_OBJECT (attack_config) &&
              !json_object_has_member (json_node_get_object (attack_config), "compat"))
            return g_steal_pointer (&path);
        }
    }
  return NULL;
}

/**
 * anot_experiment_new_for_resume:
 * @directory: the experiment directory `<out>/<name>` a run printed, or
 *   one of its run directories
 * @dataset: (nullable): the benchmark, or %NULL to load the one recorded
 *   in `config.json`
 * @error: return location for a #GError
 *
 * Recreates an interrupted experiment from its `config.json`, with the
 * same options.  Running it computes only the (run, N, request)
 * combinations that have no row yet; the finished files have the same
 * rows as an uninterrupted run.  Only `concurrency` may be changed with
 * [method@Anot.Experiment.set_option] afterwards without changing the
 * results.
 *
 * Errors: %ANOT_ERROR_RESUME when no `config.json` with anot's options is
 * found or when the dataset's checksum differs from the recorded one.
 *
 * Returns: (transfer full): the experiment, or %NULL with @error set
 */
AnotExperiment *
anot_experiment_new_for_resume (const char   *directory,
                                AnotDataset  *dataset,
                                GError      **error)
{
  g_autofree char *experiment_dir = NULL;
  g_autofree char *config_path = NULL;
  g_autoptr(JsonNode) config = NULL;
  g_autoptr(AnotDataset) loaded = NULL;
  g_autoptr(AnotExperiment) self = NULL;
  g_autoptr(GError) local_error = NULL;
  g_autofree char *out = NULL;
  g_autofree char *name = NULL;
  JsonObject *anot, *options;
  const char *method, *checksum, *data_path;

  g_return_val_if_fail (directory != NULL, NULL);
  g_return_val_if_fail (dataset == NULL || ANOT_IS_DATASET (dataset), NULL);

  config_path = anot_experiment_find_config (directory, &experiment_dir);
  if (config_path == NULL)
    {
      g_set_error (error, ANOT_ERROR, ANOT_ERROR_RESUME,
                   "Cannot resume %s: no run_*/config.json found", directory);
      return NULL;
    }
  config = anot_results_read_json (config_path, &local_error);
  if (config == NULL || !JSON_NODE_HOLDS_OBJECT (config) ||
      !json_object_has_member (json_node_get_object (config), "anot") ||
      !JSON_NODE_HOLDS_OBJECT (json_object_get_member (json_node_get_object (config), "anot")))
    {
      g_set_error (error, ANOT_ERROR, ANOT_ERROR_RESUME,
                   "Cannot resume from %s: %s", config_path,
                   local_error ? local_error->message : "it was not written by anot");
      return NULL;
    }
  anot = json_object_get_object_member (json_node_get_object (config), "anot");
  method = json_object_get_string_member_with_default (anot, "method", NULL);
  checksum = json_object_get_string_member_with_default (anot, "dataset_checksum", NULL);
  data_path = json_object_get_string_member_with_default (anot, "data_path", NULL);
  options = json_object_has_member (anot, "options") &&
            JSON_NODE_HOLDS_OBJECT (json_object_get_member (anot, "options"))
            ? json_object_get_object_member (anot, "options") : NULL;
  if (method == NULL || options == NULL)
    {
      g_set_error (error, ANOT_ERROR, ANOT_ERROR_RESUME,
                   "Cannot resume from %s: the “anot” object lacks the method or options",
                   config_path);
      return NULL;
    }

  if (dataset == NULL)
    {
      if (data_path == NULL)
        {
          g_set_error (error, ANOT_ERROR, ANOT_ERROR_RESUME,
                       "Cannot resume from %s: no data path recorded", config_path);
          return NULL;
        }
      loaded = anot_dataset_load (data_path, NULL, &local_error);
      if (loaded == NULL)
        {
          g_set_error (error, ANOT_ERROR, ANOT_ERROR_RESUME,
                       "Cannot resume: loading the recorded dataset %s failed: %s",
                       data_path, local_error->message);
          return NULL;
        }
      dataset = loaded;
    }

  if (g_strcmp0 (checksum, anot_dataset_get_checksum (dataset)) != 0)
    {
      g_set_error (error, ANOT_ERROR, ANOT_ERROR_RESUME,
                   "Cannot resume %s: the dataset %s has checksum %s but the run used %s",
                   experiment_dir, anot_dataset_get_path (dataset),
                   anot_dataset_get_checksum (dataset), checksum ? checksum : "(none)");
      return NULL;
    }

  {
    g_autofree char *old_run = find_pre_compat_attack_run (experiment_dir);

    if (old_run != NULL)
      {
        g_set_error (error, ANOT_ERROR, ANOT_ERROR_RESUME,
                     "Cannot resume from %s: it was attacked by an anot whose added reviews "
                     "were labelled (no attack_config.compat); its remaining requests would "
                     "be attacked differently. Start the experiment again (--force), with "
                     "--attack-compat original to compare with the original framework",
                     old_run);
        return NULL;
      }
  }

  self = anot_experiment_new (dataset, method);
  self->has_recorded_method_file = TRUE;
  self->recorded_method_file = anot_experiment_read_method_settings_record (anot);
  if (json_object_has_member (anot, "method_settings") &&
      JSON_NODE_HOLDS_OBJECT (json_object_get_member (anot, "method_settings")))
    self->recorded_method_settings = json_node_copy (json_object_get_member (anot, "method_settings"));
  if (json_object_has_member (anot, "method_plugin") &&
      JSON_NODE_HOLDS_OBJECT (json_object_get_member (anot, "method_plugin")))
    {
      JsonObject *plugin = json_object_get_object_member (anot, "method_plugin");

      self->recorded_plugin_path = g_strdup (json_object_get_string_member_with_default (plugin, "file", NULL));
      self->recorded_plugin_sha256 = g_strdup (json_object_get_string_member_with_default (plugin, "sha256", NULL));
      self->recorded_plugin_language = g_strdup (json_object_get_string_member_with_default (plugin, "language", NULL));
    }
  self->recorded_defense_sha256 = g_strdup (json_object_get_string_member_with_default (anot, "defense_prompt_sha256",
                                                                                       NULL));
  if (!anot_run_config_merge_resume_options (self->config, options, &local_error))
    {
      g_set_error (error, ANOT_ERROR, ANOT_ERROR_RESUME,
                   "Cannot resume from %s: %s", config_path, local_error->message);
      return NULL;
    }

  /* The directory may have been moved since: trust where it is now. */
  out = g_path_get_dirname (experiment_dir);
  name = g_path_get_basename (experiment_dir);
  if (!anot_run_config_set (self->config, "out", out, error) ||
      !anot_run_config_set (self->config, "name", name, error))
    return NULL;
  self->resuming = TRUE;

  return g_steal_pointer (&self);
}

