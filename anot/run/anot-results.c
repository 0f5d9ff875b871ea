/* anot-results.c: results directories read back into rows
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "anot-results.h"
#include "anot-results-private.h"
#include "anot-usage-private.h"

#include <string.h>

#include "anot-error.h"
#include "anot-result.h"
#include "anot-results-writer-private.h"

/**
 * AnotResults:
 *
 * What one or more finished (or interrupted) experiments left on disk, read
 * back as one row per request, N and run.
 *
 * A directory given to [method@Anot.Results.add_directory] may be a results
 * root (`results/`), an experiment directory (`results/cot_demo/`), an attack
 * directory (`results/cot_demo/clean/`) or a run directory
 * (`results/cot_demo/clean/run_1/`); every `run_<R>/` found below it is read:
 * its `config.json` (method, dataset checksum, pool mode, seeds, model, cache
 * use) and its `results_<N>.jsonl`.  Traces (`trace_<N>.jsonl`) are only read
 * when asked for ([method@Anot.Results.get_trace]), since they can be far
 * larger than everything else.
 *
 * Each row ([method@Anot.Results.get_rows]) is an object with `method` (the
 * method's name, or the experiment's name when two experiments ran the same
 * method differently), `attack`, `run`, `n_candidates`, `request_id`,
 * `group`, `gold_rank` (1..k, 0 when the gold is not in the top k),
 * `hits_at_1`, `hits_at_3`, `hits_at_5` (0 or 1), `reciprocal_rank` (these
 * four null when the row is not scored), `scored` (false when the
 * infrastructure failed the request: see [method@Anot.Result.is_scored]),
 * `shrunk` (its prompts were cut to the model's context window) and
 * `reviews_dropped_share` (the share of reviews that left out),
 * `calls`, `tokens`, `cost_usd` (null when a call's model had no price),
 * `latency_ms`, `error` (null unless the
 * request failed), `error_class` (`method`, `infrastructure`, `budget` or null),
 * `top1_item`, `top1_conditions`, `top1_failed`, `gold_conditions` and
 * `condition_kinds` (what the results row says of the item ranked first
 * and of the gold; null in rows written before anot recorded them), `k`,
 * `model`, `dataset_checksum`, `pool`, `seed` and `directory` (the run
 * directory).
 *
 * Since: 0.1
 */

struct _AnotResults
{
  GObject parent_instance;

  GPtrArray *runs;        /* AnotResultsRun */
  GArray *rows;           /* AnotResultsRow */
  GHashTable *seen;       /* run directories already read */
  JsonArray *rows_json;   /* built on demand */
  JsonArray *runs_json;
};

G_DEFINE_FINAL_TYPE (AnotResults, anot_results, G_TYPE_OBJECT)

static void
results_run_free (gpointer data)
{
  AnotResultsRun *run = data;

  g_free (run->directory);
  g_free (run->experiment);
  g_free (run->label);
  g_free (run->method);
  g_free (run->run_name);
  g_free (run->attack);
  g_free (run->data_name);
  g_free (run->data_path);
  g_free (run->checksum);
  g_free (run->pool);
  g_free (run->compat);
  g_free (run->shuffle);
  g_free (run->model);
  g_free (run->provider);
  g_free (run->version);
  g_free (run->status);
  g_free (run->timestamp);
  g_free (run->cache);
  g_free (run);
}

static void
results_row_clear (gpointer data)
{
  AnotResultsRow *row = data;

  g_free (row->request_id);
  g_free (row->group);
  g_free (row->error);
  g_free (row->top1_item);
  g_clear_pointer (&row->top1_conditions, json_object_unref);
  g_clear_pointer (&row->top1_failed, json_array_unref);
  g_clear_pointer (&row->gold_conditions, json_object_unref);
  g_clear_pointer (&row->condition_kinds, json_object_unref);
  g_free (row->raw_response);
  g_free (row->preds);
}

static void
anot_results_finalize (GObject *object)
{
  AnotResults *self = ANOT_RESULTS (object);

  g_ptr_array_unref (self->runs);
  g_array_unref (self->rows);
  g_hash_table_unref (self->seen);
  g_clear_pointer (&self->rows_json, json_array_unref);
  g_clear_pointer (&self->runs_json, json_array_unref);

  G_OBJECT_CLASS (anot_results_parent_class)->finalize (object);
}

static void
anot_results_class_init (AnotResultsClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = anot_results_finalize;
}

static void
anot_results_init (AnotResults *self)
{
  self->runs = g_ptr_array_new_with_free_func (results_run_free);
  self->rows = g_array_new (FALSE, TRUE, sizeof (AnotResultsRow));
  g_array_set_clear_func (self->rows, results_row_clear);
  self->seen = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
}

/**
 * anot_results_new:
 *
 * Creates an empty set of results; add directories with
 * [method@Anot.Results.add_directory].
 *
 * Returns: (transfer full): a new #AnotResults
 */
AnotResults *
anot_results_new (void)
{
  return g_object_new (ANOT_TYPE_RESULTS, NULL);
}

/**
 * anot_results_load:
 * @path: (type filename): a results root, experiment, attack or run directory
 * @error: return location for a #GError
 *
 * Reads every run directory below @path.
 *
 * Returns: (transfer full): the results, or %NULL with @error set
 */
AnotResults *
anot_results_load (const char  *path,
                   GError     **error)
{
  g_autoptr(AnotResults) self = anot_results_new ();

  g_return_val_if_fail (path != NULL, NULL);

  if (!anot_results_add_directory (self, path, error))
    return NULL;
  return g_steal_pointer (&self);
}

/* ------------------------------------------------------------------------
 * Reading
 * --------------------------------------------------------------------- */

static const char *
object_string (JsonObject *object,
               const char *member)
{
  JsonNode *node = object != NULL ? json_object_get_member (object, member) : NULL;

  if (node == NULL || !JSON_NODE_HOLDS_VALUE (node) ||
      json_node_get_value_type (node) != G_TYPE_STRING)
    return NULL;
  return json_node_get_string (node);
}

static JsonObject *
object_object (JsonObject *object,
               const char *member)
{
  JsonNode *node = object != NULL ? json_object_get_member (object, member) : NULL;

  if (node == NULL || !JSON_NODE_HOLDS_OBJECT (node))
    return NULL;
  return json_node_get_object (node);
}

static guint64
object_uint (JsonObject *object,
             const char *member,
             guint64     fallback)
{
  JsonNode *node = object != NULL ? json_object_get_member (object, member) : NULL;

  if (node == NULL || !JSON_NODE_HOLDS_VALUE (node))
    return fallback;
  if (json_node_get_value_type (node) == G_TYPE_INT64)
    return (guint64) json_node_get_int (node);
  if (json_node_get_value_type (node) == G_TYPE_STRING)
    {
      guint64 value;

      /* Seeds above 2^63 are written as strings. */
      if (g_ascii_string_to_unsigned (json_node_get_string (node), 10, 0, G_MAXUINT64,
                                      &value, NULL))
        return value;
    }
  return fallback;
}

static int
compare_strings (gconstpointer a,
                 gconstpointer b)
{
  return strcmp (*(const char * const *) a, *(const char * const *) b);
}

/* The entries of a directory, sorted (run_10 after run_9 is handled by the
 * caller, which sorts runs by number). */
static GPtrArray *
list_entries (const char  *directory,
              GError     **error)
{
  g_autoptr(GError) local_error = NULL;
  g_autoptr(GDir) dir = g_dir_open (directory, 0, &local_error);
  GPtrArray *names;
  const char *name;

  if (dir == NULL)
    {
      g_set_error (error, ANOT_ERROR, ANOT_ERROR_IO, "%s", local_error->message);
      return NULL;
    }
  names = g_ptr_array_new_with_free_func (g_free);
  while ((name = g_dir_read_name (dir)) != NULL)
    g_ptr_array_add (names, g_strdup (name));
  g_ptr_array_sort (names, compare_strings);
  return names;
}

static gboolean
parse_run_name (const char *name,
                guint      *run)
{
  guint64 value;

  if (!g_str_has_prefix (name, "run_") ||
      !g_ascii_string_to_unsigned (name + 4, 10, 1, G_MAXUINT, &value, NULL))
    return FALSE;
  *run = (guint) value;
  return TRUE;
}

static gboolean
parse_results_name (const char *name,
                    guint      *n)
{
  g_autofree char *digits = NULL;
  guint64 value;

  if (!g_str_has_prefix (name, "results_") || !g_str_has_suffix (name, ".jsonl"))
    return FALSE;
  digits = g_strndup (name + strlen ("results_"),
                      strlen (name) - strlen ("results_") - strlen (".jsonl"));
  if (!g_ascii_string_to_unsigned (digits, 10, 1, G_MAXUINT, &value, NULL))
    return FALSE;
  *n = (guint) value;
  return TRUE;
}

static int
compare_uints (gconstpointer a,
               gconstpointer b)
{
  guint x = *(const guint *) a, y = *(const guint *) b;

  return (x > y) - (x < y);
}

static AnotResultsRun *
run_from_config (const char  *run_dir,
                 guint        run_number,
                 GError     **error)
{
  g_autofree char *config_path = g_build_filename (run_dir, "config.json", NULL);
  g_autofree char *attack_dir = g_path_get_dirname (run_dir);
  g_autoptr(JsonNode) config = anot_results_read_json (config_path, error);
  JsonObject *object, *anot, *llm, *options;
  AnotResultsRun *run;

  if (config == NULL)
    return NULL;
  if (!JSON_NODE_HOLDS_OBJECT (config))
    {
      g_set_error (error, ANOT_ERROR, ANOT_ERROR_INVALID_FIELD,
                   "%s: not a JSON object", config_path);
      return NULL;
    }
  object = json_node_get_object (config);
  anot = object_object (object, "anot");
  llm = object_object (object, "llm_config");
  options = object_object (anot, "options");
  if (object_string (object, "method") == NULL)
    {
      g_set_error (error, ANOT_ERROR, ANOT_ERROR_MISSING_FIELD,
                   "%s: no \"method\"", config_path);
      return NULL;
    }

  run = g_new0 (AnotResultsRun, 1);
  run->directory = g_strdup (run_dir);
  run->experiment = g_path_get_dirname (attack_dir);
  run->attack = g_path_get_basename (attack_dir);
  run->run = run_number;
  run->method = g_strdup (object_string (object, "method"));
  run->run_name = g_strdup (object_string (object, "run_name"));
  if (run->run_name == NULL)
    run->run_name = g_path_get_basename (run->experiment);
  run->data_name = g_strdup (object_string (object, "data"));
  run->data_path = g_strdup (object_string (anot, "data_path"));
  run->checksum = g_strdup (object_string (anot, "dataset_checksum"));
  run->pool = g_strdup (object_string (anot, "pool"));
  run->compat = g_strdup (object_string (anot, "compat"));
  run->shuffle = g_strdup (object_string (anot, "shuffle"));
  run->model = g_strdup (object_string (llm, "model"));
  run->provider = g_strdup (object_string (llm, "provider"));
  run->version = g_strdup (object_string (anot, "version"));
  run->status = g_strdup (object_string (anot, "status"));
  run->timestamp = g_strdup (object_string (object, "timestamp"));
  run->cache = g_strdup (object_string (options, "cache"));
  run->offline = g_strcmp0 (object_string (options, "offline"), "true") == 0;
  run->defense = json_object_get_boolean_member_with_default (object, "defense", FALSE);
  run->seed = object_uint (anot, "seed", 0);
  run->run_seed = object_uint (anot, "run_seed", run->seed + run_number);
  run->k = (guint) object_uint (object, "k", 5);
  run->label = g_strdup (run->method);
  {
    g_autofree char *study_dir = g_path_get_dirname (run->experiment);
    g_autofree char *record = g_build_filename (study_dir, "study.json", NULL);

    /* A study names its experiments with their models (cot@gpt-4o-mini):
     * those names label them even where one model of a method is read. */
    run->in_study = g_file_test (record, G_FILE_TEST_IS_REGULAR);
  }
  return run;
}

static gboolean
read_run_dir (AnotResults  *self,
              const char   *run_dir,
              guint         run_number,
              GError      **error)
{
  g_autoptr(GPtrArray) names = NULL;
  g_autoptr(GArray) ns = g_array_new (FALSE, FALSE, sizeof (guint));
  AnotResultsRun *run;
  guint run_index;

  if (g_hash_table_contains (self->seen, run_dir))
    return TRUE;
  names = list_entries (run_dir, error);
  if (names == NULL)
    return FALSE;
  run = run_from_config (run_dir, run_number, error);
  if (run == NULL)
    return FALSE;
  g_hash_table_add (self->seen, g_strdup (run_dir));
  run_index = self->runs->len;
  g_ptr_array_add (self->runs, run);

  for (guint i = 0; i < names->len; i++)
    {
      guint n;

      if (parse_results_name (g_ptr_array_index (names, i), &n))
        g_array_append_val (ns, n);
    }
  g_array_sort (ns, compare_uints);

  for (guint i = 0; i < ns->len; i++)
    {
      guint n = g_array_index (ns, guint, i);
      g_autofree char *file = g_strdup_printf ("results_%u.jsonl", n);
      g_autofree char *path = g_build_filename (run_dir, file, NULL);
      g_autoptr(GPtrArray) results = anot_results_read_rows (path, run_number, n, NULL, error);

      if (results == NULL)
        return FALSE;
      for (guint j = 0; j < results->len; j++)
        {
          AnotResult *result = g_ptr_array_index (results, j);
          AnotUsage *usage = anot_result_get_usage (result);
          AnotResultsRow row = { 0 };
          const guint *preds;

          row.run_index = run_index;
          row.n = n;
          row.request_id = g_strdup (anot_result_get_request_id (result));
          row.group = g_strdup (anot_result_get_group (result));
          row.gold_rank = anot_result_get_gold_rank (result);
          row.calls = usage != NULL ? anot_usage_get_calls (usage) : 0;
          row.tokens = usage != NULL ? anot_usage_get_prompt_tokens (usage) +
                                       anot_usage_get_completion_tokens (usage) : 0;
          row.cost_usd = usage != NULL ? anot_usage_get_cost_usd (usage) : 0.0;
          row.latency_ms = usage != NULL ? anot_usage_get_latency_ms (usage) : 0.0;
          row.error = g_strdup (anot_result_get_error_message (result));
          row.top1_item = g_strdup (anot_result_get_top1_item (result));
          if (anot_result_get_top1_conditions (result) != NULL)
            row.top1_conditions = json_object_ref (anot_result_get_top1_conditions (result));
          if (anot_result_get_top1_failed (result) != NULL)
            row.top1_failed = json_array_ref (anot_result_get_top1_failed (result));
          if (anot_result_get_gold_conditions (result) != NULL)
            row.gold_conditions = json_object_ref (anot_result_get_gold_conditions (result));
          if (anot_result_get_condition_kinds (result) != NULL)
            row.condition_kinds = json_object_ref (anot_result_get_condition_kinds (result));
          row.error_class = g_intern_string (anot_result_get_error_class (result));
          row.unscored = !anot_result_is_scored (result);
          {
            guint dropped, reviews;

            row.shrunk = anot_result_get_context_fit (result, &dropped, &reviews, NULL);
            row.dropped_share = row.shrunk && reviews > 0 ? (double) MIN (dropped, reviews) / reviews : 0.0;
          }
          row.raw_response = g_strdup (anot_result_get_raw_response (result));
          preds = anot_result_get_pred_indices (result, &row.n_preds);
          row.preds = row.n_preds > 0 ? g_memdup2 (preds, row.n_preds * sizeof (guint)) : NULL;
          g_array_append_val (self->rows, row);
        }
    }
  return TRUE;
}

typedef struct
{
  guint run;
  char *path;
} RunEntry;

static int
compare_run_entries (gconstpointer a,
                     gconstpointer b)
{
  const RunEntry *x = a, *y = b;

  return (x->run > y->run) - (x->run < y->run);
}

static void
run_entry_clear (gpointer data)
{
  g_free (((RunEntry *) data)->path);
}

/* Reads the run_<R> directories of @directory; *found tells whether there
 * were any. */
static gboolean
read_attack_dir (AnotResults  *self,
                 const char   *directory,
                 GPtrArray    *names,
                 gboolean     *found,
                 GError      **error)
{
  g_autoptr(GArray) runs = g_array_new (FALSE, FALSE, sizeof (RunEntry));

  g_array_set_clear_func (runs, run_entry_clear);
  for (guint i = 0; i < names->len; i++)
    {
      const char *name = g_ptr_array_index (names, i);
      RunEntry entry;

      if (!parse_run_name (name, &entry.run))
        continue;
      entry.path = g_build_filename (directory, name, NULL);
      if (!g_file_test (entry.path, G_FILE_TEST_IS_DIR))
        {
          g_free (entry.path);
          continue;
        }
      g_array_append_val (runs, entry);
    }
  g_array_sort (runs, compare_run_entries);
  for (guint i = 0; i < runs->len; i++)
    {
      RunEntry *entry = &g_array_index (runs, RunEntry, i);
      g_autofree char *config = g_build_filename (entry->path, "config.json", NULL);

      /* A run that never wrote its config has nothing to say yet. */
      if (!g_file_test (config, G_FILE_TEST_EXISTS))
        continue;
      if (!read_run_dir (self, entry->path, entry->run, error))
        return FALSE;
      *found = TRUE;
    }
  return TRUE;
}

static gboolean
read_any (AnotResults  *self,
          const char   *directory,
          guint         depth,
          gboolean     *found,
          GError      **error)
{
  g_autoptr(GPtrArray) names = list_entries (directory, error);
  g_autofree char *base = g_path_get_basename (directory);
  guint run_number;

  if (names == NULL)
    return FALSE;

  /* A run directory itself. */
  if (parse_run_name (base, &run_number))
    {
      g_autofree char *config = g_build_filename (directory, "config.json", NULL);

      if (g_file_test (config, G_FILE_TEST_EXISTS))
        {
          *found = TRUE;
          return read_run_dir (self, directory, run_number, error);
        }
    }

  if (!read_attack_dir (self, directory, names, found, error))
    return FALSE;

  /* Results root (depth 0) → experiments (1) → attacks (2). */
  if (depth >= 2)
    return TRUE;
  for (guint i = 0; i < names->len; i++)
    {
      const char *name = g_ptr_array_index (names, i);
      g_autofree char *child = NULL;

      if (g_str_has_prefix (name, "run_") || name[0] == '.')
        continue;
      child = g_build_filename (directory, name, NULL);
      if (!g_file_test (child, G_FILE_TEST_IS_DIR))
        continue;
      if (!read_any (self, child, depth + 1, found, error))
        return FALSE;
    }
  return TRUE;
}

/* Two experiments of the same method (another model, defense mode, ...)
 * must not be pooled as one: they are told apart by experiment name, as
 * is every experiment of a study. */
static void
assign_labels (AnotResults *self)
{
  g_autoptr(GHashTable) names_by_method = g_hash_table_new_full (g_str_hash, g_str_equal,
                                                                 NULL, (GDestroyNotify) g_hash_table_unref);

  for (guint i = 0; i < self->runs->len; i++)
    {
      AnotResultsRun *run = g_ptr_array_index (self->runs, i);
      GHashTable *names = g_hash_table_lookup (names_by_method, run->method);

      if (names == NULL)
        {
          names = g_hash_table_new (g_str_hash, g_str_equal);
          g_hash_table_insert (names_by_method, run->method, names);
        }
      g_hash_table_add (names, run->experiment);
    }
  for (guint i = 0; i < self->runs->len; i++)
    {
      AnotResultsRun *run = g_ptr_array_index (self->runs, i);
      GHashTable *names = g_hash_table_lookup (names_by_method, run->method);

      g_free (run->label);
      run->label = g_strdup (run->in_study || g_hash_table_size (names) > 1
                             ? run->run_name : run->method);
    }
}

/**
 * anot_results_add_directory:
 * @self: an #AnotResults
 * @path: (type filename): a results root, experiment, attack or run directory
 * @error: return location for a #GError
 *
 * Reads every run directory below @path (a run directory already read is
 * not read twice).  A directory without any run is an error
 * (%ANOT_ERROR_IO), so is a `config.json` or a results file that cannot be
 * read.
 *
 * Returns: %TRUE on success
 */
gboolean
anot_results_add_directory (AnotResults  *self,
                            const char   *path,
                            GError      **error)
{
  g_autofree char *canonical = NULL;
  gboolean found = FALSE;

  g_return_val_if_fail (ANOT_IS_RESULTS (self), FALSE);
  g_return_val_if_fail (path != NULL, FALSE);

  if (!g_file_test (path, G_FILE_TEST_IS_DIR))
    {
      g_set_error (error, ANOT_ERROR, ANOT_ERROR_IO, "%s: not a directory", path);
      return FALSE;
    }
  canonical = g_canonicalize_filename (path, NULL);
  if (!read_any (self, canonical, 0, &found, error))
    return FALSE;
  if (!found)
    {
      g_set_error (error, ANOT_ERROR, ANOT_ERROR_IO,
                   "%s: no results in it (expected run_<R>/config.json and "
                   "results_<N>.jsonl below it)", path);
      return FALSE;
    }
  assign_labels (self);
  g_clear_pointer (&self->rows_json, json_array_unref);
  g_clear_pointer (&self->runs_json, json_array_unref);
  return TRUE;
}

/**
 * anot_results_get_n_rows:
 * @self: an #AnotResults
 *
 * Returns: the number of rows (requests × N × runs × experiments)
 */
guint
anot_results_get_n_rows (AnotResults *self)
{
  g_return_val_if_fail (ANOT_IS_RESULTS (self), 0);
  return self->rows->len;
}

/**
 * anot_results_get_n_runs:
 * @self: an #AnotResults
 *
 * Returns: the number of run directories read
 */
guint
anot_results_get_n_runs (AnotResults *self)
{
  g_return_val_if_fail (ANOT_IS_RESULTS (self), 0);
  return self->runs->len;
}

const AnotResultsRun *
anot_results_peek_run (AnotResults *self,
                       guint        index)
{
  g_return_val_if_fail (index < self->runs->len, NULL);
  return g_ptr_array_index (self->runs, index);
}

const AnotResultsRow *
anot_results_peek_row (AnotResults *self,
                       guint        index)
{
  g_return_val_if_fail (index < self->rows->len, NULL);
  return &g_array_index (self->rows, AnotResultsRow, index);
}

static void
set_nullable_string (JsonObject *object,
                     const char *member,
                     const char *value)
{
  if (value != NULL)
    json_object_set_string_member (object, member, value);
  else
    json_object_set_null_member (object, member);
}

static void
set_nullable_object (JsonObject *object,
                     const char *member,
                     JsonObject *value)
{
  if (value != NULL)
    json_object_set_object_member (object, member, json_object_ref (value));
  else
    json_object_set_null_member (object, member);
}

/**
 * anot_results_get_rows:
 * @self: an #AnotResults
 *
 * The rows, one object per request, N, run and experiment, in the order the
 * directories were read (experiment, attack, run, N, request id); the
 * members are listed in the description of #AnotResults.
 *
 * Returns: (transfer none): an array of objects
 */
JsonArray *
anot_results_get_rows (AnotResults *self)
{
  g_return_val_if_fail (ANOT_IS_RESULTS (self), NULL);

  if (self->rows_json != NULL)
    return self->rows_json;

  self->rows_json = json_array_sized_new (self->rows->len);
  for (guint i = 0; i < self->rows->len; i++)
    {
      const AnotResultsRow *row = &g_array_index (self->rows, AnotResultsRow, i);
      const AnotResultsRun *run = g_ptr_array_index (self->runs, row->run_index);
      JsonObject *object = json_object_new ();

      json_object_set_string_member (object, "method", run->label);
      json_object_set_string_member (object, "attack", run->attack);
      json_object_set_int_member (object, "run", run->run);
      json_object_set_int_member (object, "n_candidates", row->n);
      json_object_set_string_member (object, "request_id", row->request_id);
      set_nullable_string (object, "group", row->group);
      json_object_set_int_member (object, "gold_rank", row->gold_rank);
      /* An unscored row has no metric values (null): a mean over the rows
       * (pandas skips them) is the metric over the scored requests. */
      if (row->unscored)
        {
          json_object_set_null_member (object, "hits_at_1");
          json_object_set_null_member (object, "hits_at_3");
          json_object_set_null_member (object, "hits_at_5");
          json_object_set_null_member (object, "reciprocal_rank");
        }
      else
        {
          json_object_set_int_member (object, "hits_at_1", row->gold_rank == 1);
          json_object_set_int_member (object, "hits_at_3", row->gold_rank >= 1 && row->gold_rank <= 3);
          json_object_set_int_member (object, "hits_at_5", row->gold_rank >= 1 && row->gold_rank <= 5);
          json_object_set_double_member (object, "reciprocal_rank",
                                         row->gold_rank > 0 ? 1.0 / row->gold_rank : 0.0);
        }
      json_object_set_boolean_member (object, "scored", !row->unscored);
      json_object_set_boolean_member (object, "shrunk", row->shrunk);
      json_object_set_double_member (object, "reviews_dropped_share", row->dropped_share);
      json_object_set_int_member (object, "calls", (gint64) row->calls);
      json_object_set_int_member (object, "tokens", (gint64) row->tokens);
      anot_usage_set_cost_member (object, "cost_usd", row->cost_usd);
      json_object_set_double_member (object, "latency_ms", row->latency_ms);
      set_nullable_string (object, "error", row->error);
      set_nullable_string (object, "top1_item", row->top1_item);
      set_nullable_object (object, "top1_conditions", row->top1_conditions);
      if (row->top1_failed != NULL)
        json_object_set_array_member (object, "top1_failed", json_array_ref (row->top1_failed));
      else
        json_object_set_null_member (object, "top1_failed");
      set_nullable_object (object, "gold_conditions", row->gold_conditions);
      set_nullable_object (object, "condition_kinds", row->condition_kinds);
      set_nullable_string (object, "error_class", row->error_class);
      json_object_set_int_member (object, "k", run->k);
      set_nullable_string (object, "model", run->model);
      set_nullable_string (object, "dataset_checksum", run->checksum);
      set_nullable_string (object, "pool", run->pool);
      /* Seeds span 0..2^64-1: written as strings above 2^63, as config.json does. */
      if (run->seed <= G_MAXINT64)
        json_object_set_int_member (object, "seed", (gint64) run->seed);
      else
        {
          g_autofree char *text = g_strdup_printf ("%" G_GUINT64_FORMAT, run->seed);
          json_object_set_string_member (object, "seed", text);
        }
      json_object_set_string_member (object, "directory", run->directory);
      json_array_add_object_element (self->rows_json, object);
    }
  return self->rows_json;
}

/**
 * anot_results_get_runs:
 * @self: an #AnotResults
 *
 * One object per run directory read: `directory`, `experiment`, `method`
 * (the label rows use), `method_name`, `run_name`, `attack`, `run`, `data`,
 * `data_path`, `dataset_checksum`, `pool`, `compat` (null for runs made
 * before the option existed), `shuffle`, `seed`, `run_seed`,
 * `k`, `model`, `provider`, `anot_version`, `status`, `timestamp`, `cache`,
 * `offline`, `defense`: the provenance of the rows.
 *
 * Returns: (transfer none): an array of objects
 */
JsonArray *
anot_results_get_runs (AnotResults *self)
{
  g_return_val_if_fail (ANOT_IS_RESULTS (self), NULL);

  if (self->runs_json != NULL)
    return self->runs_json;

  self->runs_json = json_array_sized_new (self->runs->len);
  for (guint i = 0; i < self->runs->len; i++)
    {
      const AnotResultsRun *run = g_ptr_array_index (self->runs, i);
      JsonObject *object = json_object_new ();
      g_autofree char *seed = g_strdup_printf ("%" G_GUINT64_FORMAT, run->seed);
      g_autofree char *run_seed = g_strdup_printf ("%" G_GUINT64_FORMAT, run->run_seed);

      json_object_set_string_member (object, "directory", run->directory);
      json_object_set_string_member (object, "experiment", run->experiment);
      json_object_set_string_member (object, "method", run->label);
      json_object_set_string_member (object, "method_name", run->method);
      json_object_set_string_member (object, "run_name", run->run_name);
      json_object_set_string_member (object, "attack", run->attack);
      json_object_set_int_member (object, "run", run->run);
      set_nullable_string (object, "data", run->data_name);
      set_nullable_string (object, "data_path", run->data_path);
      set_nullable_string (object, "dataset_checksum", run->checksum);
      set_nullable_string (object, "pool", run->pool);
      set_nullable_string (object, "compat", run->compat);
      set_nullable_string (object, "shuffle", run->shuffle);
      /* As strings: a JSON number loses seeds above 2^53 in JavaScript. */
      json_object_set_string_member (object, "seed", seed);
      json_object_set_string_member (object, "run_seed", run_seed);
      json_object_set_int_member (object, "k", run->k);
      set_nullable_string (object, "model", run->model);
      set_nullable_string (object, "provider", run->provider);
      set_nullable_string (object, "anot_version", run->version);
      set_nullable_string (object, "status", run->status);
      set_nullable_string (object, "timestamp", run->timestamp);
      set_nullable_string (object, "cache", run->cache);
      json_object_set_boolean_member (object, "offline", run->offline);
      json_object_set_boolean_member (object, "defense", run->defense);
      json_array_add_object_element (self->runs_json, object);
    }
  return self->runs_json;
}

/**
 * anot_results_list_methods:
 * @self: an #AnotResults
 *
 * Returns: (transfer full) (array zero-terminated=1): the method labels of
 *   the rows, in the order first read
 */
char **
anot_results_list_methods (AnotResults *self)
{
  g_autoptr(GPtrArray) labels = g_ptr_array_new ();

  g_return_val_if_fail (ANOT_IS_RESULTS (self), NULL);

  for (guint i = 0; i < self->runs->len; i++)
    {
      const AnotResultsRun *run = g_ptr_array_index (self->runs, i);
      gboolean seen = FALSE;

      for (guint j = 0; j < labels->len && !seen; j++)
        seen = strcmp (g_ptr_array_index (labels, j), run->label) == 0;
      if (!seen)
        g_ptr_array_add (labels, g_strdup (run->label));
    }
  g_ptr_array_add (labels, NULL);
  return (char **) g_ptr_array_free (g_steal_pointer (&labels), FALSE);
}

/* ------------------------------------------------------------------------
 * Traces
 * --------------------------------------------------------------------- */

gboolean
anot_results_foreach_trace (const char            *run_directory,
                            guint                  n,
                            AnotResultsTraceFunc   func,
                            gpointer               user_data,
                            guint                 *out_n_unreadable,
                            GError               **error)
{
  g_autofree char *name = g_strdup_printf ("trace_%u.jsonl", n);
  g_autofree char *path = g_build_filename (run_directory, name, NULL);
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autoptr(GError) local_error = NULL;
  g_autoptr(GFileInputStream) input = g_file_read (file, NULL, &local_error);
  g_autoptr(GDataInputStream) data = NULL;
  g_autoptr(JsonParser) parser = json_parser_new ();

  if (input == NULL)
    {
      if (g_error_matches (local_error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND))
        return TRUE;
      g_set_error (error, ANOT_ERROR, ANOT_ERROR_IO, "%s: %s", path, local_error->message);
      return FALSE;
    }

  /* Line by line: a trace file may be far larger than memory allows to
   * hold twice. */
  data = g_data_input_stream_new (G_INPUT_STREAM (input));
  for (;;)
    {
      g_autofree char *line = g_data_input_stream_read_line_utf8 (data, NULL, NULL, &local_error);
      JsonNode *root;
      JsonObject *object;
      const char *request_id;

      if (line == NULL)
        {
          if (local_error != NULL)
            {
              g_set_error (error, ANOT_ERROR, ANOT_ERROR_IO, "%s: %s", path, local_error->message);
              return FALSE;
            }
          return TRUE;
        }
      /* A torn last line of a killed run is skipped, as results rows are,
       * and counted: the caller says so. */
      if (*line == '\0')
        continue;
      if (!json_parser_load_from_data (parser, line, -1, NULL))
        {
          if (out_n_unreadable != NULL)
            (*out_n_unreadable)++;
          continue;
        }
      root = json_parser_get_root (parser);
      if (root == NULL || !JSON_NODE_HOLDS_OBJECT (root))
        continue;
      object = json_node_get_object (root);
      request_id = object_string (object, "request_id");
      if (request_id == NULL || !json_object_has_member (object, "trace"))
        continue;
      if (!func (request_id, json_object_get_member (object, "trace"), user_data))
        return TRUE;
    }
}

typedef struct
{
  const char *request_id;
  JsonNode *found;
} FindTrace;

static gboolean
find_trace (const char *request_id,
            JsonNode   *trace,
            gpointer    user_data)
{
  FindTrace *find = user_data;

  if (strcmp (request_id, find->request_id) != 0)
    return TRUE;
  /* Later lines win (a resumed request), as for results rows: keep going. */
  g_clear_pointer (&find->found, json_node_unref);
  find->found = json_node_copy (trace);
  return TRUE;
}

/**
 * anot_results_get_trace:
 * @self: an #AnotResults
 * @row: a row index
 * @error: return location for a #GError
 *
 * Reads the trace of one row from its run's `trace_<N>.jsonl`: what the
 * method did for that request (its LLM calls with their outputs, parses,
 * tokens and latency, and the method's own structures).
 *
 * Returns: (transfer full) (nullable): the trace, or %NULL when there is
 *   none (no error set) or on error
 */
JsonNode *
anot_results_get_trace (AnotResults  *self,
                        guint         row,
                        GError      **error)
{
  const AnotResultsRow *r;
  const AnotResultsRun *run;
  FindTrace find = { 0 };

  g_return_val_if_fail (ANOT_IS_RESULTS (self), NULL);
  g_return_val_if_fail (row < self->rows->len, NULL);

  r = &g_array_index (self->rows, AnotResultsRow, row);
  run = g_ptr_array_index (self->runs, r->run_index);
  find.request_id = r->request_id;
  if (!anot_results_foreach_trace (run->directory, r->n, find_trace, &find, NULL, error))
    {
      g_clear_pointer (&find.found, json_node_unref);
      return NULL;
    }
  return find.found;
}
