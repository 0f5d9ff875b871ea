/* anot-robustness.c: clean versus attacked results of one method
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "anot-robustness.h"

#include <stdlib.h>
#include <string.h>

#include "anot-error.h"
#include "anot-metrics.h"
#include "anot-result.h"
#include "anot-results-writer-private.h"

#define CLEAN_ATTACK "clean"

/* The scored rows of one run: request id -> Scores. */
typedef struct
{
  double hit1;
  double rr;
} Scores;

typedef struct
{
  guint run;
  GHashTable *rows;
} RunScores;

static void
run_scores_free (gpointer data)
{
  RunScores *scores = data;

  g_hash_table_unref (scores->rows);
  g_free (scores);
}

/* The results of one attack dir at one N: Hits@1 and MRR of each run that
 * scored any request, and the rows the infrastructure failed (in no
 * figure, as everywhere else). */
typedef struct
{
  char *attack;
  guint n;
  guint requests;         /* scored, the most of any run */
  guint unscored;         /* rows, over every run */
  GArray *hits1;          /* double per run */
  GArray *mrr;
  GPtrArray *runs;        /* RunScores */
} Cell;

static void
cell_free (gpointer data)
{
  Cell *cell = data;

  g_free (cell->attack);
  g_array_unref (cell->hits1);
  g_array_unref (cell->mrr);
  g_ptr_array_unref (cell->runs);
  g_free (cell);
}

static Cell *
find_or_add_cell (GPtrArray  *cells,
                  const char *attack,
                  guint       n)
{
  Cell *cell;

  for (guint i = 0; i < cells->len; i++)
    {
      cell = g_ptr_array_index (cells, i);
      if (cell->n == n && strcmp (cell->attack, attack) == 0)
        return cell;
    }
  cell = g_new0 (Cell, 1);
  cell->attack = g_strdup (attack);
  cell->n = n;
  cell->hits1 = g_array_new (FALSE, FALSE, sizeof (double));
  cell->mrr = g_array_new (FALSE, FALSE, sizeof (double));
  cell->runs = g_ptr_array_new_with_free_func (run_scores_free);
  g_ptr_array_add (cells, cell);
  return cell;
}

static int
compare_names (gconstpointer a,
               gconstpointer b)
{
  const char *sa = *(const char * const *) a;
  const char *sb = *(const char * const *) b;

  /* clean first, then by name */
  if (strcmp (sa, CLEAN_ATTACK) == 0 || strcmp (sb, CLEAN_ATTACK) == 0)
    return (strcmp (sb, CLEAN_ATTACK) == 0) - (strcmp (sa, CLEAN_ATTACK) == 0);
  return strcmp (sa, sb);
}

static GPtrArray *
sorted_entries (const char  *path,
                const char  *prefix,
                GError     **error)
{
  g_autoptr(GDir) dir = g_dir_open (path, 0, error);
  GPtrArray *names;
  const char *name;

  if (dir == NULL)
    return NULL;
  names = g_ptr_array_new_with_free_func (g_free);
  while ((name = g_dir_read_name (dir)) != NULL)
    if (prefix == NULL || g_str_has_prefix (name, prefix))
      g_ptr_array_add (names, g_strdup (name));
  g_ptr_array_sort (names, compare_names);
  return names;
}

/* Reads every <attack>/run_<R>/results_<N>.jsonl under @directory. */
static gboolean
read_experiment (const char  *directory,
                 GPtrArray   *cells,
                 JsonObject  *info,
                 GError     **error)
{
  g_autoptr(GPtrArray) attacks = sorted_entries (directory, NULL, error);

  if (attacks == NULL)
    {
      g_prefix_error (error, "Cannot read the experiment directory: ");
      return FALSE;
    }

  for (guint a = 0; a < attacks->len; a++)
    {
      const char *attack = g_ptr_array_index (attacks, a);
      g_autofree char *attack_dir = g_build_filename (directory, attack, NULL);
      g_autoptr(GPtrArray) runs = NULL;

      if (!g_file_test (attack_dir, G_FILE_TEST_IS_DIR))
        continue;
      runs = sorted_entries (attack_dir, "run_", NULL);
      if (runs == NULL)
        continue;

      for (guint r = 0; r < runs->len; r++)
        {
          const char *run_name = g_ptr_array_index (runs, r);
          g_autofree char *run_dir = g_build_filename (attack_dir, run_name, NULL);
          g_autofree char *config_path = g_build_filename (run_dir, "config.json", NULL);
          g_autoptr(JsonNode) config = anot_results_read_json (config_path, NULL);
          g_autoptr(GPtrArray) files = sorted_entries (run_dir, "results_", NULL);
          guint64 run, k = 5;

          if (!g_ascii_string_to_unsigned (run_name + 4, 10, 1, G_MAXUINT, &run, NULL) ||
              files == NULL)
            continue;
          if (config != NULL && JSON_NODE_HOLDS_OBJECT (config))
            {
              JsonObject *object = json_node_get_object (config);

              JsonNode *attack_config = json_object_get_member (object, "attack_config");

              k = (guint64) json_object_get_int_member_with_default (object, "k", 5);
              /* The form of added reviews, per attack: the two modes are
               * different measurements. */
              if (attack_config != NULL && JSON_NODE_HOLDS_OBJECT (attack_config))
                {
                  const char *compat = json_object_get_string_member_with_default (json_node_get_object (attack_config),
                                                                                   "compat", NULL);
                  g_autofree char *member = g_strconcat ("compat:", attack, NULL);

                  if (compat != NULL)
                    json_object_set_string_member (info, member, compat);
                }
              if (!json_object_has_member (info, "method") &&
                  json_object_get_string_member_with_default (object, "method", NULL))
                {
                  json_object_set_string_member (info, "method",
                                                 json_object_get_string_member (object, "method"));
                  json_object_set_string_member (info, "data",
                                                 json_object_get_string_member_with_default (object, "data", ""));
                  json_object_set_int_member (info, "k", (gint64) k);
                }
            }

          for (guint f = 0; f < files->len; f++)
            {
              const char *file = g_ptr_array_index (files, f);
              g_autofree char *path = g_build_filename (run_dir, file, NULL);
              g_autofree char *n_text = NULL;
              g_autoptr(GPtrArray) rows = NULL;
              g_autoptr(AnotMetrics) metrics = NULL;
              guint64 n;
              guint skipped = 0;
              Cell *cell;

              if (!g_str_has_suffix (file, ".jsonl"))
                continue;
              n_text = g_strndup (file + strlen ("results_"),
                                  strlen (file) - strlen ("results_") - strlen (".jsonl"));
              if (!g_ascii_string_to_unsigned (n_text, 10, 1, G_MAXUINT, &n, NULL))
                continue;
              rows = anot_results_read_rows (path, (guint) run, (guint) n, &skipped, error);
              if (rows == NULL)
                return FALSE;
              if (rows->len == 0)
                continue;

              metrics = anot_metrics_new (MAX (k, 1));
              for (guint i = 0; i < rows->len; i++)
                anot_metrics_add_result (metrics, g_ptr_array_index (rows, i));
              cell = find_or_add_cell (cells, attack, (guint) n);
              cell->unscored += anot_metrics_get_unscored (metrics);
              /* A run the infrastructure failed entirely measured nothing. */
              if (anot_metrics_get_total (metrics) > 0)
                {
                  double h1 = anot_metrics_get_hits_at (metrics, 1);
                  double mrr = anot_metrics_get_mrr (metrics);
                  RunScores *scores = g_new0 (RunScores, 1);

                  g_array_append_val (cell->hits1, h1);
                  g_array_append_val (cell->mrr, mrr);
                  cell->requests = MAX (cell->requests, anot_metrics_get_total (metrics));
                  scores->run = (guint) run;
                  scores->rows = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
                  for (guint i = 0; i < rows->len; i++)
                    {
                      AnotResult *result = g_ptr_array_index (rows, i);
                      guint rank = anot_result_get_gold_rank (result);
                      Scores *value;

                      if (!anot_result_is_scored (result))
                        continue;
                      value = g_new (Scores, 1);
                      value->hit1 = rank == 1 ? 1.0 : 0.0;
                      value->rr = rank > 0 && rank <= k ? 1.0 / rank : 0.0;
                      g_hash_table_insert (scores->rows, g_strdup (anot_result_get_request_id (result)), value);
                    }
                  g_ptr_array_add (cell->runs, scores);
                }
            }
        }
    }
  return TRUE;
}

static void
add_stat (JsonBuilder *builder,
          const char  *member,
          GArray      *values)
{
  double mean = 0.0, std = 0.0;

  json_builder_set_member_name (builder, member);
  if (values->len == 0)
    {
      json_builder_add_null_value (builder);
      return;
    }
  anot_stats_mean_std ((const double *) values->data, values->len, &mean, &std);
  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "mean");
  json_builder_add_double_value (builder, mean);
  json_builder_set_member_name (builder, "std");
  json_builder_add_double_value (builder, std);
  json_builder_set_member_name (builder, "values");
  json_builder_begin_array (builder);
  for (guint i = 0; i < values->len; i++)
    json_builder_add_double_value (builder, g_array_index (values, double, i));
  json_builder_end_array (builder);
  json_builder_end_object (builder);
}

static Cell *
lookup_cell (GPtrArray  *cells,
             const char *attack,
             guint       n)
{
  for (guint i = 0; i < cells->len; i++)
    {
      Cell *cell = g_ptr_array_index (cells, i);

      if (cell->n == n && strcmp (cell->attack, attack) == 0)
        return cell;
    }
  return NULL;
}

/* The change from @clean to @cell, as `compare` makes it: per run, over
 * the requests both scored (a request the infrastructure failed on one
 * side is no evidence of the attack), then the mean over the runs that
 * paired any.  FALSE when none did. */
static gboolean
paired_deltas (Cell   *cell,
               Cell   *clean,
               double *delta_hits1,
               double *delta_mrr)
{
  double sum_h1 = 0.0, sum_rr = 0.0;
  guint n_runs = 0;

  for (guint i = 0; i < cell->runs->len; i++)
    {
      RunScores *attacked = g_ptr_array_index (cell->runs, i);
      RunScores *base = NULL;
      double h1 = 0.0, rr = 0.0;
      guint pairs = 0;
      GHashTableIter iter;
      gpointer key, value;

      for (guint j = 0; j < clean->runs->len && base == NULL; j++)
        if (((RunScores *) g_ptr_array_index (clean->runs, j))->run == attacked->run)
          base = g_ptr_array_index (clean->runs, j);
      if (base == NULL)
        continue;
      g_hash_table_iter_init (&iter, attacked->rows);
      while (g_hash_table_iter_next (&iter, &key, &value))
        {
          Scores *a = value;
          Scores *c = g_hash_table_lookup (base->rows, key);

          if (c == NULL)
            continue;
          h1 += a->hit1 - c->hit1;
          rr += a->rr - c->rr;
          pairs++;
        }
      if (pairs == 0)
        continue;
      sum_h1 += h1 / pairs;
      sum_rr += rr / pairs;
      n_runs++;
    }
  if (n_runs == 0)
    return FALSE;
  *delta_hits1 = sum_h1 / n_runs;
  *delta_mrr = sum_rr / n_runs;
  return TRUE;
}

/* The members of one (attack, N) of one mode; deltas against clean. */
static void
add_mode (JsonBuilder *builder,
          GPtrArray   *cells,
          Cell        *cell)
{
  Cell *clean = lookup_cell (cells, CLEAN_ATTACK, cell->n);
  double delta_hits1 = 0.0, delta_mrr = 0.0;
  gboolean deltas = clean != NULL && paired_deltas (cell, clean, &delta_hits1, &delta_mrr);

  json_builder_set_member_name (builder, "requests");
  json_builder_add_int_value (builder, cell->requests);
  json_builder_set_member_name (builder, "unscored");
  json_builder_add_int_value (builder, cell->unscored);
  json_builder_set_member_name (builder, "runs");
  json_builder_add_int_value (builder, cell->hits1->len);
  add_stat (builder, "hits_at_1", cell->hits1);
  add_stat (builder, "mrr", cell->mrr);
  json_builder_set_member_name (builder, "delta_hits_at_1");
  if (deltas)
    json_builder_add_double_value (builder, delta_hits1);
  else
    json_builder_add_null_value (builder);
  json_builder_set_member_name (builder, "delta_mrr");
  if (deltas)
    json_builder_add_double_value (builder, delta_mrr);
  else
    json_builder_add_null_value (builder);
}

static int
compare_cells (gconstpointer a,
               gconstpointer b)
{
  const Cell *ca = *(Cell * const *) a;
  const Cell *cb = *(Cell * const *) b;

  if (ca->n != cb->n)
    return ca->n < cb->n ? -1 : 1;
  return compare_names (&ca->attack, &cb->attack);
}

/**
 * anot_robustness_report:
 * @directory: an experiment directory `<out>/<name>` with a `clean`
 *   directory and attack directories next to it
 * @defense_directory: (nullable): the same experiment run in defense
 *   mode, or %NULL
 * @error: return location for a #GError
 *
 * Compares the attacked results of a method with its clean results, as
 * `anot-run robustness` does: for every attack directory and every N, the
 * Hits@1 and MRR (mean, sample std and values over runs) and their change
 * from `clean` (`delta_hits_at_1`, `delta_mrr`: per run, the attacked
 * minus the clean figure over the requests both scored, then the mean over
 * runs).  Requests the infrastructure failed
 * ([method@Anot.Result.is_scored]) are in no figure: `requests` counts the
 * scored ones (the most of any run), `unscored` the rows left out over all
 * runs; a cell no run scored has null figures and deltas.  With @defense_directory, each row also has a `defense` object
 * with the same members for the defended runs (deltas against the
 * defended clean run), or null when that attack was not run there.
 *
 * The report is read from the `results_<N>.jsonl` files, so it can be made
 * again at any time, for instance after resuming an interrupted run.
 * Its members: `method`, `data`, `k`, `directory`, `defense_directory`,
 * `attack_compat` (the form of the reviews the attacks added, from their
 * `config.json`: `realistic` or `original`, `mixed` when the rows differ,
 * null without such attacks), and `results`, an array of rows `{attack,
 * compat, candidates, requests, unscored, runs, hits_at_1, mrr, delta_hits_at_1,
 * delta_mrr, defense}` ordered by N, then `clean` first and the attacks
 * by name (`compat` is null for `clean`).
 *
 * Errors: %ANOT_ERROR_IO when a directory cannot be read,
 * %ANOT_ERROR_INVALID_ARGUMENT when @directory holds no results.
 *
 * Returns: (transfer full): the report, or %NULL with @error set
 */
JsonNode *
anot_robustness_report (const char  *directory,
                        const char  *defense_directory,
                        GError     **error)
{
  g_autoptr(GPtrArray) cells = g_ptr_array_new_with_free_func (cell_free);
  g_autoptr(GPtrArray) defended = g_ptr_array_new_with_free_func (cell_free);
  g_autoptr(JsonObject) info = json_object_new ();
  g_autoptr(JsonBuilder) builder = json_builder_new ();
  GError *local_error = NULL;

  g_return_val_if_fail (directory != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (!read_experiment (directory, cells, info, &local_error) ||
      (defense_directory != NULL &&
       !read_experiment (defense_directory, defended, info, &local_error)))
    {
      if (local_error->domain != ANOT_ERROR)
        {
          GError *wrapped = g_error_new_literal (ANOT_ERROR, ANOT_ERROR_IO, local_error->message);

          g_error_free (local_error);
          local_error = wrapped;
        }
      g_propagate_error (error, local_error);
      return NULL;
    }
  if (cells->len == 0)
    {
      g_set_error (error, ANOT_ERROR, ANOT_ERROR_INVALID_ARGUMENT,
                   "%s has no results (expected <attack>/run_<R>/results_<N>.jsonl)", directory);
      return NULL;
    }
  g_ptr_array_sort (cells, compare_cells);

  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "method");
  json_builder_add_string_value (builder, json_object_get_string_member_with_default (info, "method", ""));
  json_builder_set_member_name (builder, "data");
  json_builder_add_string_value (builder, json_object_get_string_member_with_default (info, "data", ""));
  json_builder_set_member_name (builder, "k");
  json_builder_add_int_value (builder, json_object_get_int_member_with_default (info, "k", 5));
  json_builder_set_member_name (builder, "directory");
  json_builder_add_string_value (builder, directory);
  json_builder_set_member_name (builder, "defense_directory");
  if (defense_directory != NULL)
    json_builder_add_string_value (builder, defense_directory);
  else
    json_builder_add_null_value (builder);

  {
    const char *overall = NULL;

    for (guint i = 0; i < cells->len; i++)
      {
        Cell *cell = g_ptr_array_index (cells, i);
        g_autofree char *member = g_strconcat ("compat:", cell->attack, NULL);
        const char *compat = json_object_get_string_member_with_default (info, member, NULL);

        if (compat == NULL)
          continue;
        overall = overall == NULL || strcmp (overall, compat) == 0 ? compat : "mixed";
      }
    json_builder_set_member_name (builder, "attack_compat");
    if (overall != NULL)
      json_builder_add_string_value (builder, overall);
    else
      json_builder_add_null_value (builder);
  }

  json_builder_set_member_name (builder, "results");
  json_builder_begin_array (builder);
  for (guint i = 0; i < cells->len; i++)
    {
      Cell *cell = g_ptr_array_index (cells, i);
      Cell *with_defense = lookup_cell (defended, cell->attack, cell->n);
      g_autofree char *member = g_strconcat ("compat:", cell->attack, NULL);
      const char *compat = json_object_get_string_member_with_default (info, member, NULL);

      json_builder_begin_object (builder);
      json_builder_set_member_name (builder, "attack");
      json_builder_add_string_value (builder, cell->attack);
      json_builder_set_member_name (builder, "compat");
      if (compat != NULL)
        json_builder_add_string_value (builder, compat);
      else
        json_builder_add_null_value (builder);
      json_builder_set_member_name (builder, "candidates");
      json_builder_add_int_value (builder, cell->n);
      add_mode (builder, cells, cell);
      json_builder_set_member_name (builder, "defense");
      if (with_defense != NULL)
        {
          json_builder_begin_object (builder);
          add_mode (builder, defended, with_defense);
          json_builder_end_object (builder);
        }
      else
        json_builder_add_null_value (builder);
      json_builder_end_object (builder);
    }
  json_builder_end_array (builder);
  json_builder_end_object (builder);

  return json_builder_get_root (builder);
}

static void
append_mode (GString    *line,
             JsonObject *mode)
{
  JsonNode *h1_node = json_object_get_member (mode, "hits_at_1");
  JsonObject *h1 = h1_node != NULL && JSON_NODE_HOLDS_OBJECT (h1_node) ? json_node_get_object (h1_node) : NULL;
  JsonNode *delta = json_object_get_member (mode, "delta_hits_at_1");

  if (h1 == NULL)
    g_string_append_printf (line, "%-13s", "--");
  else if (json_object_get_int_member (mode, "runs") > 1)
    {
      g_autofree char *text = g_strdup_printf ("%.3f±%.3f",
                                               json_object_get_double_member (h1, "mean"),
                                               json_object_get_double_member (h1, "std"));
      /* "±" is two bytes but one column. */
      g_string_append_printf (line, "%-14s", text);
    }
  else
    g_string_append_printf (line, "%-13.3f", json_object_get_double_member (h1, "mean"));
  if (delta == NULL || JSON_NODE_HOLDS_NULL (delta))
    g_string_append_printf (line, "  %-8s", "--");
  else
    g_string_append_printf (line, "  %+-8.3f", json_node_get_double (delta));
}

/**
 * anot_robustness_report_format:
 * @report: what anot_robustness_report() returned
 *
 * Formats a robustness report as a text table, one line per attack and N:
 * requests, Hits@1 and its change from clean, and the same with defense
 * when the report has defended runs.
 *
 * Returns: (transfer full): the table
 */
char *
anot_robustness_report_format (JsonNode *report)
{
  GString *out;
  JsonObject *root;
  JsonArray *results;
  gboolean with_defense;
  gboolean with_unscored = FALSE;
  gsize width = strlen ("attack");

  g_return_val_if_fail (report != NULL && JSON_NODE_HOLDS_OBJECT (report), NULL);

  root = json_node_get_object (report);
  results = json_object_get_array_member (root, "results");
  with_defense = !JSON_NODE_HOLDS_NULL (json_object_get_member (root, "defense_directory"));
  for (guint i = 0; i < json_array_get_length (results); i++)
    {
      JsonObject *row = json_array_get_object_element (results, i);
      JsonNode *defense = json_object_get_member (row, "defense");

      width = MAX (width, strlen (json_object_get_string_member (row, "attack")));
      with_unscored |= json_object_get_int_member_with_default (row, "unscored", 0) > 0;
      if (defense != NULL && JSON_NODE_HOLDS_OBJECT (defense))
        with_unscored |= json_object_get_int_member_with_default (json_node_get_object (defense), "unscored", 0) > 0;
    }

  out = g_string_new (NULL);
  {
    const char *compat = json_object_get_string_member_with_default (root, "attack_compat", NULL);

    if (compat != NULL)
      g_string_append_printf (out, "Added reviews: %s%s\n", compat,
                              strcmp (compat, "original") == 0
                              ? " (the original's labelled reviews)"
                              : strcmp (compat, "realistic") == 0
                              ? " (in the dataset's own form)" : "");
  }
  g_string_append_printf (out, "%-4s  %-*s  %-8s  ", "N", (int) width, "attack", "requests");
  if (with_unscored)
    g_string_append_printf (out, "%-8s  ", "unscored");
  g_string_append_printf (out, "%-13s  %-8s", "Hits@1", "delta");
  if (with_defense)
    g_string_append_printf (out, "  %-13s  %-8s", "Hits@1 (def)", "delta");
  g_string_append_c (out, '\n');

  for (guint i = 0; i < json_array_get_length (results); i++)
    {
      JsonObject *row = json_array_get_object_element (results, i);
      JsonNode *defense = json_object_get_member (row, "defense");

      g_string_append_printf (out, "%-4u  %-*s  %-8u  ",
                              (guint) json_object_get_int_member (row, "candidates"), (int) width,
                              json_object_get_string_member (row, "attack"),
                              (guint) json_object_get_int_member (row, "requests"));
      if (with_unscored)
        g_string_append_printf (out, "%-8u  ", (guint) json_object_get_int_member_with_default (row, "unscored", 0));
      append_mode (out, row);
      if (with_defense)
        {
          g_string_append (out, "  ");
          if (defense != NULL && JSON_NODE_HOLDS_OBJECT (defense))
            append_mode (out, json_node_get_object (defense));
          else
            g_string_append_printf (out, "%-13s  %-8s", "--", "--");
        }
      /* No trailing blanks. */
      while (out->len > 0 && out->str[out->len - 1] == ' ')
        g_string_truncate (out, out->len - 1);
      g_string_append_c (out, '\n');
    }

  if (with_unscored)
    g_string_append (out, "(unscored: rows the infrastructure failed, in no figure; deltas are over the "
                          "requests both the attacked and the clean run scored; anot-run --resume runs them again)\n");
  return g_string_free (out, FALSE);
}
