/* anot-comparison.c: methods compared with bootstrap intervals and paired tests
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "anot-comparison.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "anot-condition.h"
#include "anot-error.h"
#include "anot-results-private.h"

/**
 * AnotComparison:
 *
 * Methods compared on the results they left on disk: Hits@1, Hits@3, Hits@5
 * and MRR of every method × attack × N with a confidence interval, every
 * method against a baseline on the same (request, N, run) cells, and every
 * attack against the clean run of the same method.
 *
 * ## The intervals
 *
 * Percentile bootstrap over requests.  Each request contributes one value:
 * its metric averaged over the runs it was ranked in (runs are pooled that
 * way, so a request seen in three runs weighs no more than one seen once,
 * and the interval reflects the spread over requests, which is what another
 * benchmark of the same size would change).  A resample draws as many
 * requests as there are, with replacement, and takes the mean; the interval
 * is the (1 − level)/2 and (1 + level)/2 quantiles of the resampled means,
 * with linear interpolation between order statistics (numpy's default).
 *
 * Indices come from SplitMix64 seeded with the cell's seed
 * ([func@Anot.Comparison.cell_seed]: the comparison's seed mixed with the
 * cell's name, so a cell's interval does not depend on which other cells are
 * compared); a draw is the next output modulo the number of requests.  The
 * same seed gives the same intervals on every platform.
 *
 * ## Paired differences
 *
 * Requests the infrastructure failed ([method@Anot.Result.is_scored]) are
 * in no figure: a cell's estimates are over its scored requests, and two
 * methods are paired only on the cells both scored (the others are counted
 * as `excluded` and named in [method@Anot.Comparison.list_warnings]).
 *
 * Two methods are paired on the (request, N, run) cells both ranked.  Each
 * request's value is the mean over its runs of the difference, bootstrapped
 * as above.  The p-value is the exact two-sided McNemar test of Hits@1 over
 * the paired cells: of the cells where exactly one of the two ranked the
 * gold first, how unlikely a split at least this uneven is if both were
 * equally good (binomial with p = ½).  Cells of different runs of one
 * request are counted as separate pairs.
 *
 * When the two sides ran different subsets of the requests (an expensive
 * method run on 20 of 100), each side's own table is over its own
 * requests, and the pairing over the requests both ran; the cells only one
 * side ran are counted (`unpaired` in the JSON, a note under the tables).
 * Pairing is refused (%ANOT_ERROR_NOT_COMPARABLE) only when the two sides
 * of a run were not drawn from the same candidate pools: another dataset
 * checksum, pool mode or run seed.
 *
 * Since: 0.1
 */

enum {
  METRIC_HITS_1,
  METRIC_HITS_3,
  METRIC_HITS_5,
  METRIC_MRR,
  N_METRICS
};

static const char *const metric_keys[N_METRICS] = { "hits_at_1", "hits_at_3", "hits_at_5", "mrr" };
static const char *const metric_names[N_METRICS] = { "Hits@1", "Hits@3", "Hits@5", "MRR" };
static const guint metric_min_k[N_METRICS] = { 1, 3, 5, 1 };

#define CLEAN_ATTACK "clean"

typedef struct
{
  double mean, lower, upper;
} Estimate;

/* One request of a cell: the sum of each metric over its runs. */
typedef struct
{
  const char *request_id;
  double sum[N_METRICS];
  guint runs;
} RequestAcc;

/* One method × attack × N. */
typedef struct
{
  const char *label;
  const char *attack;
  guint n;
  guint label_order;
  GHashTable *requests;   /* request id → RequestAcc */
  GHashTable *by_run;     /* run → (request id → const AnotResultsRow *) */
  GHashTable *run_info;   /* run → const AnotResultsRun * */
  guint k;                /* smallest k of its runs */
  guint rows;
  guint failed;
  guint unscored;         /* rows the infrastructure failed: in no metric */
  guint shrunk;           /* scored rows whose prompts were cut to the window */
  double dropped_sum;     /* their shares of reviews left out */
  gboolean available[N_METRICS];
  Estimate estimate[N_METRICS];
} Cell;

/* A method against a baseline, or an attack against clean. */
typedef struct
{
  const Cell *method;
  const Cell *baseline;
  guint requests;
  guint pairs;
  guint runs;
  guint excluded;         /* cells of both runs left out: unscored on a side */
  guint method_only;      /* Hits@1 by the method, not by the baseline */
  guint baseline_only;
  /* (request, run) cells only one side ran: left out of the pairing. */
  guint method_unpaired;
  guint baseline_unpaired;
  const AnotResultsRun *unfinished;   /* a run of either side not complete, or NULL */
  double p_value;
  gboolean available[N_METRICS];
  Estimate method_mean[N_METRICS];
  Estimate baseline_mean[N_METRICS];
  Estimate diff[N_METRICS];
} Pair;

/* One method × attack × N × request group (NULL: every group) of
 * --by-condition.  Per request, over its ranked rows: how many, and how
 * many of them are a miss, a near miss, a miss with no failed condition,
 * and a miss failing a condition of each kind (columns FAIL_* then the
 * kinds). */
enum {
  FAIL_MISS,
  FAIL_NEAR,
  FAIL_NONE,
  N_FAIL_FIXED
};

typedef struct
{
  const char *request_id;
  guint ranked;
  guint *counts;          /* N_FAIL_FIXED + kinds */
} FailureAcc;

typedef struct
{
  const char *label;
  const char *attack;
  const char *group;
  guint n;
  guint label_order;
  GHashTable *requests;   /* request id → FailureAcc */
  GHashTable *runs;       /* run numbers */
  guint rows;
  guint ranked;
  guint *counts;          /* N_FAIL_FIXED + kinds, summed over requests */
  Estimate *shares;       /* the same as shares of the ranked rows */
} FailureCell;

static void
failure_acc_free (gpointer data)
{
  FailureAcc *acc = data;

  g_free (acc->counts);
  g_free (acc);
}

static void
failure_cell_free (gpointer data)
{
  FailureCell *cell = data;

  g_hash_table_unref (cell->requests);
  g_hash_table_unref (cell->runs);
  g_free (cell->counts);
  g_free (cell->shares);
  g_free (cell);
}

struct _AnotComparison
{
  GObject parent_instance;

  AnotResults *results;
  char *baseline;
  guint resamples;
  guint64 seed;
  double level;

  gboolean computed;
  char *used_baseline;
  GPtrArray *cells;       /* Cell, sorted */
  GArray *paired;         /* Pair */
  GArray *robustness;     /* Pair */
  gboolean several_attacks;

  gboolean by_condition;
  GPtrArray *failure_kinds;   /* char *: evidence kinds met, in canonical order */
  GPtrArray *failures;        /* FailureCell, sorted */
};

G_DEFINE_FINAL_TYPE (AnotComparison, anot_comparison, G_TYPE_OBJECT)

static void
cell_free (gpointer data)
{
  Cell *cell = data;

  g_hash_table_unref (cell->requests);
  g_hash_table_unref (cell->by_run);
  g_hash_table_unref (cell->run_info);
  g_free (cell);
}

static void
comparison_reset (AnotComparison *self)
{
  self->computed = FALSE;
  g_clear_pointer (&self->used_baseline, g_free);
  g_ptr_array_set_size (self->cells, 0);
  g_array_set_size (self->paired, 0);
  g_array_set_size (self->robustness, 0);
  g_ptr_array_set_size (self->failure_kinds, 0);
  g_ptr_array_set_size (self->failures, 0);
}

static void
anot_comparison_finalize (GObject *object)
{
  AnotComparison *self = ANOT_COMPARISON (object);

  g_clear_object (&self->results);
  g_free (self->baseline);
  g_free (self->used_baseline);
  g_ptr_array_unref (self->cells);
  g_array_unref (self->paired);
  g_array_unref (self->robustness);
  g_ptr_array_unref (self->failure_kinds);
  g_ptr_array_unref (self->failures);

  G_OBJECT_CLASS (anot_comparison_parent_class)->finalize (object);
}

static void
anot_comparison_class_init (AnotComparisonClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = anot_comparison_finalize;
}

static void
anot_comparison_init (AnotComparison *self)
{
  self->resamples = ANOT_COMPARISON_DEFAULT_RESAMPLES;
  self->seed = ANOT_COMPARISON_DEFAULT_SEED;
  self->level = 0.95;
  self->cells = g_ptr_array_new_with_free_func (cell_free);
  self->paired = g_array_new (FALSE, TRUE, sizeof (Pair));
  self->robustness = g_array_new (FALSE, TRUE, sizeof (Pair));
  self->failure_kinds = g_ptr_array_new_with_free_func (g_free);
  self->failures = g_ptr_array_new_with_free_func (failure_cell_free);
}

/**
 * anot_comparison_new:
 * @results: the results to compare
 *
 * Creates a comparison of @results with 10,000 resamples, seed 42, 95%
 * intervals and the first method read as the baseline; change them before
 * [method@Anot.Comparison.compute].
 *
 * Returns: (transfer full): a new #AnotComparison
 */
AnotComparison *
anot_comparison_new (AnotResults *results)
{
  AnotComparison *self;

  g_return_val_if_fail (ANOT_IS_RESULTS (results), NULL);

  self = g_object_new (ANOT_TYPE_COMPARISON, NULL);
  self->results = g_object_ref (results);
  return self;
}

/**
 * anot_comparison_set_baseline:
 * @self: an #AnotComparison
 * @method: (nullable): the method every other one is paired with, or %NULL
 *   for the first method read
 */
void
anot_comparison_set_baseline (AnotComparison *self,
                              const char     *method)
{
  g_return_if_fail (ANOT_IS_COMPARISON (self));
  g_free (self->baseline);
  self->baseline = g_strdup (method);
  comparison_reset (self);
}

/**
 * anot_comparison_set_resamples:
 * @self: an #AnotComparison
 * @resamples: bootstrap resamples per interval (at least 1)
 */
void
anot_comparison_set_resamples (AnotComparison *self,
                               guint           resamples)
{
  g_return_if_fail (ANOT_IS_COMPARISON (self));
  g_return_if_fail (resamples >= 1);
  self->resamples = resamples;
  comparison_reset (self);
}

/**
 * anot_comparison_set_seed:
 * @self: an #AnotComparison
 * @seed: seed of the bootstrap
 */
void
anot_comparison_set_seed (AnotComparison *self,
                          guint64         seed)
{
  g_return_if_fail (ANOT_IS_COMPARISON (self));
  self->seed = seed;
  comparison_reset (self);
}

/**
 * anot_comparison_set_confidence:
 * @self: an #AnotComparison
 * @level: confidence level of the intervals, strictly between 0 and 1
 */
void
anot_comparison_set_confidence (AnotComparison *self,
                                double          level)
{
  g_return_if_fail (ANOT_IS_COMPARISON (self));
  g_return_if_fail (level > 0.0 && level < 1.0);
  self->level = level;
  comparison_reset (self);
}

/**
 * anot_comparison_set_by_condition:
 * @self: an #AnotComparison
 * @by_condition: whether to explain the misses
 *
 * Also count, per method × attack × N and per request group, why the
 * first-ranked item was not the gold: the misses, the near misses (the
 * first item fails exactly one condition), the misses whose first item
 * fails no condition (the conditions it does not satisfy are unknown, or
 * it satisfies the request as well as the gold), and for each evidence kind the
 * misses whose first item fails a condition of that kind; each with the
 * share of the ranked rows and its bootstrap interval.  Read from the
 * rows' `top1_failed` (the conditions the first item fails, see
 * [method@Anot.Result.get_top1_failed]) and `condition_kinds`; rows
 * without `top1_conditions` (failed
 * requests, results written before anot recorded them) are not ranked
 * rows.  The default is %FALSE.
 *
 * Since: 0.1
 */
void
anot_comparison_set_by_condition (AnotComparison *self,
                                  gboolean        by_condition)
{
  g_return_if_fail (ANOT_IS_COMPARISON (self));
  self->by_condition = !!by_condition;
  comparison_reset (self);
}

/* ------------------------------------------------------------------------
 * Statistics
 * --------------------------------------------------------------------- */

static guint64
splitmix64_next (guint64 *state)
{
  guint64 z = (*state += G_GUINT64_CONSTANT (0x9E3779B97F4A7C15));

  z = (z ^ (z >> 30)) * G_GUINT64_CONSTANT (0xBF58476D1CE4E5B9);
  z = (z ^ (z >> 27)) * G_GUINT64_CONSTANT (0x94D049BB133111EB);
  return z ^ (z >> 31);
}

/**
 * anot_comparison_cell_seed:
 * @seed: the comparison's seed
 * @key: the cell's name, e.g. `cot|clean|10`
 *
 * The seed of one cell's bootstrap: the first SplitMix64 output from
 * @seed XOR the 64-bit FNV-1a hash of @key.
 *
 * Returns: the seed
 */
guint64
anot_comparison_cell_seed (guint64     seed,
                           const char *key)
{
  guint64 hash = G_GUINT64_CONSTANT (0xcbf29ce484222325);
  guint64 state;

  g_return_val_if_fail (key != NULL, seed);

  for (const guchar *p = (const guchar *) key; *p != '\0'; p++)
    {
      hash ^= *p;
      hash *= G_GUINT64_CONSTANT (0x100000001b3);
    }
  state = seed ^ hash;
  return splitmix64_next (&state);
}

static int
compare_doubles (gconstpointer a,
                 gconstpointer b)
{
  double x = *(const double *) a, y = *(const double *) b;

  return (x > y) - (x < y);
}

/* numpy's default ("linear", type 7) quantile of sorted values. */
static double
quantile_sorted (const double *sorted,
                 guint         n,
                 double        q)
{
  double h = (n - 1) * q;
  guint lo = (guint) floor (h);

  if (lo + 1 >= n)
    return sorted[n - 1];
  return sorted[lo] + (h - lo) * (sorted[lo + 1] - sorted[lo]);
}

/* The bootstrap of several columns of one set of requests with one stream
 * of indices, so every metric of a cell is resampled alike. */
static void
bootstrap_columns (const double *const *columns,
                   guint                n_columns,
                   gsize                n,
                   guint                resamples,
                   guint64              seed,
                   double               level,
                   Estimate            *out)
{
  g_autofree double *stats = g_new (double, (gsize) resamples * n_columns);
  g_autofree double *sums = g_new (double, n_columns);
  guint64 state = seed;
  double q_low = (1.0 - level) / 2.0;

  for (guint c = 0; c < n_columns; c++)
    {
      double total = 0.0;

      for (gsize i = 0; i < n; i++)
        total += columns[c][i];
      out[c].mean = total / n;
    }

  for (guint b = 0; b < resamples; b++)
    {
      for (guint c = 0; c < n_columns; c++)
        sums[c] = 0.0;
      for (gsize i = 0; i < n; i++)
        {
          gsize j = (gsize) (splitmix64_next (&state) % n);

          for (guint c = 0; c < n_columns; c++)
            sums[c] += columns[c][j];
        }
      for (guint c = 0; c < n_columns; c++)
        stats[(gsize) c * resamples + b] = sums[c] / n;
    }

  for (guint c = 0; c < n_columns; c++)
    {
      double *column = stats + (gsize) c * resamples;

      qsort (column, resamples, sizeof (double), compare_doubles);
      out[c].lower = quantile_sorted (column, resamples, q_low);
      out[c].upper = quantile_sorted (column, resamples, 1.0 - q_low);
    }
}

/**
 * anot_comparison_bootstrap_interval:
 * @values: (array length=n_values): one value per request
 * @n_values: the number of values
 * @resamples: resamples to draw (at least 1)
 * @seed: seed of the SplitMix64 stream of indices
 * @level: confidence level, strictly between 0 and 1
 * @out_mean: (out) (optional): the mean of @values
 * @out_lower: (out) (optional): the lower end of the interval
 * @out_upper: (out) (optional): the upper end of the interval
 *
 * The percentile bootstrap interval of the mean of @values, as described
 * for #AnotComparison: @resamples means of @n_values draws with
 * replacement (index = next SplitMix64 output modulo @n_values), and their
 * (1 − @level)/2 and (1 + @level)/2 quantiles with linear interpolation.
 *
 * Returns: %FALSE when there are no values or the arguments are out of range
 */
gboolean
anot_comparison_bootstrap_interval (const double *values,
                                    gsize         n_values,
                                    guint         resamples,
                                    guint64       seed,
                                    double        level,
                                    double       *out_mean,
                                    double       *out_lower,
                                    double       *out_upper)
{
  Estimate estimate;

  if (values == NULL || n_values == 0 || resamples == 0 || !(level > 0.0 && level < 1.0))
    return FALSE;

  bootstrap_columns (&values, 1, n_values, resamples, seed, level, &estimate);
  if (out_mean)
    *out_mean = estimate.mean;
  if (out_lower)
    *out_lower = estimate.lower;
  if (out_upper)
    *out_upper = estimate.upper;
  return TRUE;
}

/**
 * anot_comparison_mcnemar_p:
 * @method_only: paired cells where only the method ranked the gold first
 * @baseline_only: paired cells where only the baseline did
 *
 * The exact two-sided McNemar p-value: with n = @method_only +
 * @baseline_only discordant pairs, twice the probability that a
 * Binomial(n, ½) is at most min(@method_only, @baseline_only), capped at 1
 * (1 when there is no discordant pair).
 *
 * Returns: the p-value
 */
double
anot_comparison_mcnemar_p (guint method_only,
                           guint baseline_only)
{
  guint n = method_only + baseline_only;
  guint low = MIN (method_only, baseline_only);
  double log_half_n, total = 0.0;

  if (n == 0)
    return 1.0;

  /* In logs: 2^-n underflows for n above 1074. */
  log_half_n = -(double) n * G_LN2;
  for (guint i = 0; i <= low; i++)
    total += exp (lgamma (n + 1.0) - lgamma (i + 1.0) - lgamma (n - i + 1.0) + log_half_n);
  return MIN (1.0, 2.0 * total);
}

/* ------------------------------------------------------------------------
 * Cells
 * --------------------------------------------------------------------- */

static double
metric_value (const AnotResultsRow *row,
              guint                 metric)
{
  switch (metric)
    {
    case METRIC_HITS_1:
      return row->gold_rank == 1;
    case METRIC_HITS_3:
      return row->gold_rank >= 1 && row->gold_rank <= 3;
    case METRIC_HITS_5:
      return row->gold_rank >= 1 && row->gold_rank <= 5;
    default:
      return row->gold_rank > 0 ? 1.0 / row->gold_rank : 0.0;
    }
}

static guint
label_index (char **labels,
             const char *label)
{
  for (guint i = 0; labels[i] != NULL; i++)
    if (strcmp (labels[i], label) == 0)
      return i;
  return G_MAXUINT;
}

static int
compare_attacks (const char *a,
                 const char *b)
{
  gboolean clean_a = strcmp (a, CLEAN_ATTACK) == 0, clean_b = strcmp (b, CLEAN_ATTACK) == 0;

  if (clean_a != clean_b)
    return clean_a ? -1 : 1;
  return strcmp (a, b);
}

static int
compare_cells (gconstpointer a,
               gconstpointer b)
{
  const Cell *x = *(const Cell * const *) a, *y = *(const Cell * const *) b;
  int c;

  if (x->label_order != y->label_order)
    return x->label_order < y->label_order ? -1 : 1;
  if ((c = compare_attacks (x->attack, y->attack)) != 0)
    return c;
  return (x->n > y->n) - (x->n < y->n);
}

static Cell *
find_cell (GPtrArray  *cells,
           const char *label,
           const char *attack,
           guint       n)
{
  for (guint i = 0; i < cells->len; i++)
    {
      Cell *cell = g_ptr_array_index (cells, i);

      if (cell->n == n && strcmp (cell->label, label) == 0 && strcmp (cell->attack, attack) == 0)
        return cell;
    }
  return NULL;
}

static gboolean
collect_cells (AnotComparison  *self,
               GError         **error)
{
  g_auto(GStrv) labels = anot_results_list_methods (self->results);
  guint n_rows = anot_results_get_n_rows (self->results);

  for (guint i = 0; i < n_rows; i++)
    {
      const AnotResultsRow *row = anot_results_peek_row (self->results, i);
      const AnotResultsRun *run = anot_results_peek_run (self->results, row->run_index);
      Cell *cell = find_cell (self->cells, run->label, run->attack, row->n);
      GHashTable *run_rows;
      RequestAcc *acc;
      const AnotResultsRun *other;

      if (cell == NULL)
        {
          cell = g_new0 (Cell, 1);
          cell->label = run->label;
          cell->attack = run->attack;
          cell->n = row->n;
          cell->label_order = label_index (labels, run->label);
          cell->requests = g_hash_table_new_full (g_str_hash, g_str_equal, NULL, g_free);
          cell->by_run = g_hash_table_new_full (NULL, NULL, NULL, (GDestroyNotify) g_hash_table_unref);
          cell->run_info = g_hash_table_new (NULL, NULL);
          cell->k = run->k;
          g_ptr_array_add (self->cells, cell);
        }

      /* Runs pooled in one cell must rank the same benchmark. */
      other = g_hash_table_lookup (cell->run_info, GUINT_TO_POINTER (run->run));
      if (other == NULL)
        {
          GHashTableIter iter;
          gpointer value;

          g_hash_table_iter_init (&iter, cell->run_info);
          while (g_hash_table_iter_next (&iter, NULL, &value))
            {
              const AnotResultsRun *first = value;

              if (g_strcmp0 (first->checksum, run->checksum) != 0)
                {
                  g_set_error (error, ANOT_ERROR, ANOT_ERROR_NOT_COMPARABLE,
                               "%s (%s, N=%u) pools runs of different datasets: checksum %s in %s, %s in %s",
                               run->label, run->attack, row->n,
                               first->checksum ? first->checksum : "(none)", first->directory,
                               run->checksum ? run->checksum : "(none)", run->directory);
                  return FALSE;
                }
              break;
            }
          g_hash_table_insert (cell->run_info, GUINT_TO_POINTER (run->run), (gpointer) run);
        }
      else if (other != run)
        {
          g_set_error (error, ANOT_ERROR, ANOT_ERROR_NOT_COMPARABLE,
                       "%s (%s) has run %u twice: %s and %s; give one of them",
                       run->label, run->attack, run->run, other->directory, run->directory);
          return FALSE;
        }

      run_rows = g_hash_table_lookup (cell->by_run, GUINT_TO_POINTER (run->run));
      if (run_rows == NULL)
        {
          run_rows = g_hash_table_new (g_str_hash, g_str_equal);
          g_hash_table_insert (cell->by_run, GUINT_TO_POINTER (run->run), run_rows);
        }
      g_hash_table_insert (run_rows, row->request_id, (gpointer) row);
      cell->rows++;
      if (row->error != NULL)
        cell->failed++;
      /* Kept for pairing (both sides ran it), left out of every figure. */
      if (row->unscored)
        {
          cell->unscored++;
          continue;
        }
      if (row->shrunk)
        {
          cell->shrunk++;
          cell->dropped_sum += row->dropped_share;
        }

      acc = g_hash_table_lookup (cell->requests, row->request_id);
      if (acc == NULL)
        {
          acc = g_new0 (RequestAcc, 1);
          acc->request_id = row->request_id;
          g_hash_table_insert (cell->requests, (gpointer) acc->request_id, acc);
        }
      for (guint m = 0; m < N_METRICS; m++)
        acc->sum[m] += metric_value (row, m);
      acc->runs++;
      cell->k = MIN (cell->k, run->k);
    }

  g_ptr_array_sort (self->cells, compare_cells);
  return TRUE;
}

/* g_hash_table_get_{keys,values}_as_ptr_array() need GLib 2.76. */
static GPtrArray *
hash_table_keys (GHashTable *table)
{
  GPtrArray *keys = g_ptr_array_sized_new (g_hash_table_size (table));
  GHashTableIter iter;
  gpointer key;

  g_hash_table_iter_init (&iter, table);
  while (g_hash_table_iter_next (&iter, &key, NULL))
    g_ptr_array_add (keys, key);
  return keys;
}

static GPtrArray *
hash_table_values (GHashTable *table)
{
  GPtrArray *values = g_ptr_array_sized_new (g_hash_table_size (table));
  GHashTableIter iter;
  gpointer value;

  g_hash_table_iter_init (&iter, table);
  while (g_hash_table_iter_next (&iter, NULL, &value))
    g_ptr_array_add (values, value);
  return values;
}

static int
compare_request_accs (gconstpointer a,
                      gconstpointer b)
{
  return strcmp ((*(RequestAcc * const *) a)->request_id, (*(RequestAcc * const *) b)->request_id);
}

static char *
cell_key (const char *prefix,
          const Cell *cell,
          const Cell *other)
{
  return g_strdup_printf ("%s|%s|%s|%s|%u", prefix, cell->label, other ? other->label : "",
                          cell->attack, cell->n);
}

static void
estimate_cell (AnotComparison *self,
               Cell           *cell)
{
  g_autoptr(GPtrArray) accs = hash_table_values (cell->requests);
  g_autofree double *values = g_new (double, (gsize) accs->len * N_METRICS);
  const double *columns[N_METRICS];
  g_autofree char *key = cell_key ("cell", cell, NULL);

  if (accs->len == 0)
    {
      /* Every row unscored: no figure at all. */
      for (guint m = 0; m < N_METRICS; m++)
        cell->available[m] = FALSE;
      return;
    }
  /* Request order fixes which value an index draws: sort by id. */
  g_ptr_array_sort (accs, compare_request_accs);
  for (guint m = 0; m < N_METRICS; m++)
    {
      for (guint i = 0; i < accs->len; i++)
        {
          RequestAcc *acc = g_ptr_array_index (accs, i);

          values[(gsize) m * accs->len + i] = acc->sum[m] / acc->runs;
        }
      columns[m] = values + (gsize) m * accs->len;
      cell->available[m] = cell->k >= metric_min_k[m];
    }
  bootstrap_columns (columns, N_METRICS, accs->len, self->resamples,
                     anot_comparison_cell_seed (self->seed, key), self->level, cell->estimate);
}

static int
compare_uints (gconstpointer a,
               gconstpointer b)
{
  guint x = GPOINTER_TO_UINT (*(gconstpointer const *) a);
  guint y = GPOINTER_TO_UINT (*(gconstpointer const *) b);

  return (x > y) - (x < y);
}

/* The keys of @from that @in lacks. */
static guint
count_missing (GHashTable *from,
               GHashTable *in)
{
  GHashTableIter iter;
  gpointer key;
  guint n = 0;

  g_hash_table_iter_init (&iter, from);
  while (g_hash_table_iter_next (&iter, &key, NULL))
    n += !g_hash_table_contains (in, key);
  return n;
}

static gboolean
check_same_pools (const Cell           *method,
                  const Cell           *baseline,
                  guint                 run,
                  const AnotResultsRun *a,
                  const AnotResultsRun *b,
                  GError              **error)
{
  const char *what = NULL;
  g_autofree char *value_a = NULL;
  g_autofree char *value_b = NULL;

  if (g_strcmp0 (a->checksum, b->checksum) != 0)
    {
      what = "dataset checksum";
      value_a = g_strdup (a->checksum ? a->checksum : "(none)");
      value_b = g_strdup (b->checksum ? b->checksum : "(none)");
    }
  else if (g_strcmp0 (a->pool, b->pool) != 0)
    {
      what = "pool mode";
      value_a = g_strdup (a->pool ? a->pool : "(none)");
      value_b = g_strdup (b->pool ? b->pool : "(none)");
    }
  else if (a->run_seed != b->run_seed)
    {
      what = "seed";
      value_a = g_strdup_printf ("%" G_GUINT64_FORMAT " (--seed %" G_GUINT64_FORMAT ")",
                                 a->run_seed, a->seed);
      value_b = g_strdup_printf ("%" G_GUINT64_FORMAT " (--seed %" G_GUINT64_FORMAT ")",
                                 b->run_seed, b->seed);
    }
  if (what == NULL)
    return TRUE;

  g_set_error (error, ANOT_ERROR, ANOT_ERROR_NOT_COMPARABLE,
               "cannot pair %s (%s) with %s (%s) at N=%u, run %u: the %s differs: "
               "%s in %s, %s in %s",
               method->label, method->attack, baseline->label, baseline->attack,
               method->n, run, what, value_a, a->directory, value_b, b->directory);
  return FALSE;
}

/* Pairs two cells on their common (request, run) cells.  Returns FALSE
 * with @error set when they cannot be paired, FALSE without an error when
 * they share no run. */
static gboolean
pair_cells (AnotComparison  *self,
            const char      *prefix,
            const Cell      *method,
            const Cell      *baseline,
            Pair            *pair,
            GError         **error)
{
  g_autoptr(GPtrArray) runs = hash_table_keys (method->by_run);
  g_autoptr(GHashTable) diffs = g_hash_table_new_full (g_str_hash, g_str_equal, NULL, g_free);
  g_autoptr(GPtrArray) accs = NULL;
  g_autofree double *values = NULL;
  g_autofree char *key = NULL;
  const double *columns[N_METRICS * 3];
  Estimate estimates[N_METRICS * 3];

  memset (pair, 0, sizeof *pair);
  pair->method = method;
  pair->baseline = baseline;

  g_ptr_array_sort (runs, compare_uints);
  for (guint r = 0; r < runs->len; r++)
    {
      guint run = GPOINTER_TO_UINT (g_ptr_array_index (runs, r));
      GHashTable *rows_a = g_hash_table_lookup (method->by_run, GUINT_TO_POINTER (run));
      GHashTable *rows_b = g_hash_table_lookup (baseline->by_run, GUINT_TO_POINTER (run));
      const AnotResultsRun *info_a = g_hash_table_lookup (method->run_info, GUINT_TO_POINTER (run));
      const AnotResultsRun *info_b = g_hash_table_lookup (baseline->run_info, GUINT_TO_POINTER (run));
      GHashTableIter iter;
      gpointer k, v;
      guint missing;

      if (rows_b == NULL)
        continue;
      if (!check_same_pools (method, baseline, run, info_a, info_b, error))
        return FALSE;

      /* Different request subsets are a normal workflow (an expensive
       * method on 20 requests): the pairing is over the requests both
       * ran, and the unpaired ones are counted for the tables to say. */
      missing = count_missing (rows_a, rows_b) + count_missing (rows_b, rows_a);
      pair->baseline_unpaired += count_missing (rows_b, rows_a);
      if (missing > 0 && pair->unfinished == NULL)
        {
          /* The usual cause of a subset nobody chose: a run that did not finish. */
          for (guint side = 0; side < 2 && pair->unfinished == NULL; side++)
            {
              const AnotResultsRun *info = side == 0 ? info_a : info_b;

              if (info->status != NULL && strcmp (info->status, "complete") != 0)
                pair->unfinished = info;
            }
        }

      pair->runs++;
      g_hash_table_iter_init (&iter, rows_a);
      while (g_hash_table_iter_next (&iter, &k, &v))
        {
          const AnotResultsRow *a = v;
          const AnotResultsRow *b = g_hash_table_lookup (rows_b, k);
          RequestAcc *acc;
          gboolean hit_a, hit_b;

          if (b == NULL)
            {
              pair->method_unpaired++;
              continue;
            }
          acc = g_hash_table_lookup (diffs, k);
          hit_a = a->gold_rank == 1;
          hit_b = b->gold_rank == 1;

          /* Only what both sides scored is a comparison of methods. */
          if (a->unscored || b->unscored)
            {
              pair->excluded++;
              continue;
            }
          if (acc == NULL)
            {
              /* sum[] of the method, then of the baseline, then the differences. */
              acc = g_malloc0 (sizeof (RequestAcc) + sizeof (double) * N_METRICS * 2);
              acc->request_id = a->request_id;
              g_hash_table_insert (diffs, (gpointer) acc->request_id, acc);
            }
          for (guint m = 0; m < N_METRICS; m++)
            {
              double *extra = (double *) (acc + 1);

              acc->sum[m] += metric_value (a, m);
              extra[m] += metric_value (b, m);
              extra[N_METRICS + m] += metric_value (a, m) - metric_value (b, m);
            }
          acc->runs++;
          pair->pairs++;
          if (hit_a && !hit_b)
            pair->method_only++;
          else if (hit_b && !hit_a)
            pair->baseline_only++;
        }
    }
  if (pair->pairs == 0)
    return FALSE;

  accs = hash_table_values (diffs);
  g_ptr_array_sort (accs, compare_request_accs);
  pair->requests = accs->len;
  values = g_new (double, (gsize) accs->len * N_METRICS * 3);
  for (guint c = 0; c < N_METRICS * 3; c++)
    {
      for (guint i = 0; i < accs->len; i++)
        {
          RequestAcc *acc = g_ptr_array_index (accs, i);
          double *extra = (double *) (acc + 1);
          double sum = c < N_METRICS ? acc->sum[c] : extra[c - N_METRICS];

          values[(gsize) c * accs->len + i] = sum / acc->runs;
        }
      columns[c] = values + (gsize) c * accs->len;
    }
  key = cell_key (prefix, method, baseline);
  bootstrap_columns (columns, N_METRICS * 3, accs->len, self->resamples,
                     anot_comparison_cell_seed (self->seed, key), self->level, estimates);
  for (guint m = 0; m < N_METRICS; m++)
    {
      pair->method_mean[m] = estimates[m];
      pair->baseline_mean[m] = estimates[N_METRICS + m];
      pair->diff[m] = estimates[2 * N_METRICS + m];
      pair->available[m] = MIN (method->k, baseline->k) >= metric_min_k[m];
    }
  pair->p_value = anot_comparison_mcnemar_p (pair->method_only, pair->baseline_only);
  return TRUE;
}

/* ------------------------------------------------------------------------
 * Failures (--by-condition)
 * --------------------------------------------------------------------- */

static guint
failure_kind_index (GPtrArray  *kinds,
                    const char *kind)
{
  for (guint i = 0; i < kinds->len; i++)
    if (strcmp (g_ptr_array_index (kinds, i), kind) == 0)
      return i;
  return G_MAXUINT;
}

static int
compare_strings (gconstpointer a,
                 gconstpointer b)
{
  return strcmp (*(const char * const *) a, *(const char * const *) b);
}

static int
compare_failure_accs (gconstpointer a,
                      gconstpointer b)
{
  return strcmp ((*(FailureAcc * const *) a)->request_id, (*(FailureAcc * const *) b)->request_id);
}

/* The kinds of every row's conditions: the validator's in its order, then
 * any other name alphabetically. */
static void
collect_failure_kinds (AnotComparison *self)
{
  g_autoptr(GPtrArray) others = g_ptr_array_new ();

  for (guint i = 0; i < anot_results_get_n_rows (self->results); i++)
    {
      const AnotResultsRow *row = anot_results_peek_row (self->results, i);
      JsonObjectIter iter;
      JsonNode *value;

      if (row->condition_kinds == NULL)
        continue;
      json_object_iter_init (&iter, row->condition_kinds);
      while (json_object_iter_next (&iter, NULL, &value))
        {
          const char *kind = json_node_get_string (value);
          gboolean known = FALSE;

          for (AnotEvidenceKind k = ANOT_EVIDENCE_ITEM_META;
               anot_evidence_kind_to_string (k) != NULL && !known; k++)
            known = strcmp (anot_evidence_kind_to_string (k), kind) == 0;
          if (!known && !g_ptr_array_find_with_equal_func (others, kind, g_str_equal, NULL))
            g_ptr_array_add (others, (gpointer) kind);
          else if (known && failure_kind_index (self->failure_kinds, kind) == G_MAXUINT)
            g_ptr_array_add (self->failure_kinds, g_strdup (kind));
        }
    }
  /* Known kinds in enum order. */
  {
    g_autoptr(GPtrArray) ordered = g_ptr_array_new_with_free_func (g_free);

    for (AnotEvidenceKind k = ANOT_EVIDENCE_ITEM_META; anot_evidence_kind_to_string (k) != NULL; k++)
      if (failure_kind_index (self->failure_kinds, anot_evidence_kind_to_string (k)) != G_MAXUINT)
        g_ptr_array_add (ordered, g_strdup (anot_evidence_kind_to_string (k)));
    g_ptr_array_set_size (self->failure_kinds, 0);
    for (guint i = 0; i < ordered->len; i++)
      g_ptr_array_add (self->failure_kinds, g_strdup (g_ptr_array_index (ordered, i)));
  }
  g_ptr_array_sort (others, compare_strings);
  for (guint i = 0; i < others->len; i++)
    g_ptr_array_add (self->failure_kinds, g_strdup (g_ptr_array_index (others, i)));
}

static gboolean
json_array_contains_string (JsonArray  *array,
                            const char *text)
{
  for (guint i = 0; i < json_array_get_length (array); i++)
    if (g_strcmp0 (json_array_get_string_element (array, i), text) == 0)
      return TRUE;
  return FALSE;
}

static FailureCell *
find_failure_cell (AnotComparison *self,
                   const char     *label,
                   const char     *attack,
                   guint           n,
                   const char     *group,
                   guint           label_order)
{
  guint n_columns = N_FAIL_FIXED + self->failure_kinds->len;
  FailureCell *cell;

  for (guint i = 0; i < self->failures->len; i++)
    {
      cell = g_ptr_array_index (self->failures, i);
      if (cell->n == n && strcmp (cell->label, label) == 0 &&
          strcmp (cell->attack, attack) == 0 && g_strcmp0 (cell->group, group) == 0)
        return cell;
    }
  cell = g_new0 (FailureCell, 1);
  cell->label = label;
  cell->attack = attack;
  cell->n = n;
  cell->group = group;
  cell->label_order = label_order;
  cell->requests = g_hash_table_new_full (g_str_hash, g_str_equal, NULL, failure_acc_free);
  cell->runs = g_hash_table_new (NULL, NULL);
  cell->counts = g_new0 (guint, n_columns);
  cell->shares = g_new0 (Estimate, n_columns);
  g_ptr_array_add (self->failures, cell);
  return cell;
}

static int
compare_failure_cells (gconstpointer a,
                       gconstpointer b)
{
  const FailureCell *x = *(const FailureCell * const *) a, *y = *(const FailureCell * const *) b;
  int c;

  if (x->label_order != y->label_order)
    return x->label_order < y->label_order ? -1 : 1;
  if ((c = compare_attacks (x->attack, y->attack)) != 0)
    return c;
  if (x->n != y->n)
    return x->n < y->n ? -1 : 1;
  if ((x->group == NULL) != (y->group == NULL))
    return x->group == NULL ? -1 : 1;
  return g_strcmp0 (x->group, y->group);
}

/* Adds one row's verdicts to a cell; @columns has one flag per column. */
static void
failure_cell_add (FailureCell        *cell,
                  const AnotResultsRow *row,
                  guint               run,
                  const gboolean     *flags,
                  guint               n_columns,
                  gboolean            ranked)
{
  FailureAcc *acc;

  cell->rows++;
  g_hash_table_add (cell->runs, GUINT_TO_POINTER (run));
  if (!ranked)
    return;
  acc = g_hash_table_lookup (cell->requests, row->request_id);
  if (acc == NULL)
    {
      acc = g_new0 (FailureAcc, 1);
      acc->request_id = row->request_id;
      acc->counts = g_new0 (guint, n_columns);
      g_hash_table_insert (cell->requests, (gpointer) acc->request_id, acc);
    }
  acc->ranked++;
  cell->ranked++;
  for (guint c = 0; c < n_columns; c++)
    if (flags[c])
      {
        acc->counts[c]++;
        cell->counts[c]++;
      }
}

static void
compute_failures (AnotComparison *self)
{
  g_auto(GStrv) labels = anot_results_list_methods (self->results);
  guint n_columns;
  g_autofree gboolean *flags = NULL;

  collect_failure_kinds (self);
  n_columns = N_FAIL_FIXED + self->failure_kinds->len;
  flags = g_new0 (gboolean, n_columns);

  for (guint i = 0; i < anot_results_get_n_rows (self->results); i++)
    {
      const AnotResultsRow *row = anot_results_peek_row (self->results, i);
      const AnotResultsRun *run = anot_results_peek_run (self->results, row->run_index);
      gboolean ranked = row->top1_conditions != NULL && row->error == NULL;
      guint label_order = label_index (labels, run->label);

      memset (flags, 0, sizeof (gboolean) * n_columns);
      if (ranked && row->gold_rank != 1)
        {
          JsonObjectIter iter;
          const char *key;
          JsonNode *value;
          guint failed = 0;

          flags[FAIL_MISS] = TRUE;
          /* The conditions it fails; rows without top1_failed: every -1. */
          json_object_iter_init (&iter, row->top1_conditions);
          while (json_object_iter_next (&iter, &key, &value))
            {
              const char *kind;
              guint k;

              if (row->top1_failed != NULL ? !json_array_contains_string (row->top1_failed, key)
                                           : json_node_get_int (value) != -1)
                continue;
              failed++;
              kind = row->condition_kinds != NULL
                     ? json_object_get_string_member_with_default (row->condition_kinds, key, NULL)
                     : NULL;
              if (kind != NULL && (k = failure_kind_index (self->failure_kinds, kind)) != G_MAXUINT)
                flags[N_FAIL_FIXED + k] = TRUE;
            }
          flags[FAIL_NEAR] = failed == 1;
          flags[FAIL_NONE] = failed == 0;
        }
      failure_cell_add (find_failure_cell (self, run->label, run->attack, row->n, NULL, label_order),
                        row, run->run, flags, n_columns, ranked);
      if (row->group != NULL)
        failure_cell_add (find_failure_cell (self, run->label, run->attack, row->n, row->group,
                                             label_order),
                          row, run->run, flags, n_columns, ranked);
    }
  g_ptr_array_sort (self->failures, compare_failure_cells);

  for (guint i = 0; i < self->failures->len; i++)
    {
      FailureCell *cell = g_ptr_array_index (self->failures, i);
      g_autoptr(GPtrArray) accs = hash_table_values (cell->requests);
      g_autofree double *values = NULL;
      g_autofree const double **columns = NULL;
      g_autofree char *key = NULL;

      if (accs->len == 0)
        continue;
      /* Each request's share of its ranked rows, runs pooled as for Hits@1. */
      g_ptr_array_sort (accs, compare_failure_accs);
      values = g_new (double, (gsize) accs->len * n_columns);
      columns = g_new (const double *, n_columns);
      for (guint c = 0; c < n_columns; c++)
        {
          for (guint r = 0; r < accs->len; r++)
            {
              FailureAcc *acc = g_ptr_array_index (accs, r);

              values[(gsize) c * accs->len + r] = (double) acc->counts[c] / acc->ranked;
            }
          columns[c] = values + (gsize) c * accs->len;
        }
      key = g_strdup_printf ("by_condition|%s|%s|%u|%s", cell->label, cell->attack, cell->n,
                             cell->group != NULL ? cell->group : "");
      bootstrap_columns (columns, n_columns, accs->len, self->resamples,
                         anot_comparison_cell_seed (self->seed, key), self->level, cell->shares);
    }
}

/**
 * anot_comparison_compute:
 * @self: an #AnotComparison
 * @error: return location for a #GError
 *
 * Computes every interval, paired difference and p-value.  Fails with
 * %ANOT_ERROR_NOT_COMPARABLE, naming what differs, when runs pooled in one
 * cell rank different datasets or when cells to be paired were not drawn
 * from the same pools (dataset, pool mode, seed), and with %ANOT_ERROR_INVALID_ARGUMENT when the
 * baseline is not among the methods.
 *
 * Returns: %TRUE on success
 */
gboolean
anot_comparison_compute (AnotComparison  *self,
                         GError         **error)
{
  g_auto(GStrv) labels = NULL;

  g_return_val_if_fail (ANOT_IS_COMPARISON (self), FALSE);

  comparison_reset (self);
  labels = anot_results_list_methods (self->results);
  if (labels[0] == NULL)
    {
      g_set_error (error, ANOT_ERROR, ANOT_ERROR_INVALID_ARGUMENT, "no results to compare");
      return FALSE;
    }
  if (self->baseline != NULL && !g_strv_contains ((const char * const *) labels, self->baseline))
    {
      g_autofree char *list = g_strjoinv (", ", labels);

      g_set_error (error, ANOT_ERROR, ANOT_ERROR_INVALID_ARGUMENT,
                   "baseline “%s” is not among the methods compared (%s)", self->baseline, list);
      return FALSE;
    }
  self->used_baseline = g_strdup (self->baseline != NULL ? self->baseline : labels[0]);

  if (!collect_cells (self, error))
    {
      comparison_reset (self);
      return FALSE;
    }

  for (guint i = 0; i < self->cells->len; i++)
    {
      Cell *cell = g_ptr_array_index (self->cells, i);

      estimate_cell (self, cell);
      if (strcmp (cell->attack, CLEAN_ATTACK) != 0)
        self->several_attacks = TRUE;
    }

  for (guint i = 0; i < self->cells->len; i++)
    {
      Cell *cell = g_ptr_array_index (self->cells, i);
      g_autoptr(GError) local_error = NULL;
      Cell *other;
      Pair pair;

      /* Every method against the baseline under the same attack. */
      if (strcmp (cell->label, self->used_baseline) != 0 &&
          (other = find_cell (self->cells, self->used_baseline, cell->attack, cell->n)) != NULL)
        {
          if (pair_cells (self, "paired", cell, other, &pair, &local_error))
            g_array_append_val (self->paired, pair);
          else if (local_error != NULL)
            {
              g_propagate_error (error, g_steal_pointer (&local_error));
              comparison_reset (self);
              return FALSE;
            }
        }

      /* Every attack against the same method's clean run. */
      if (strcmp (cell->attack, CLEAN_ATTACK) != 0 &&
          (other = find_cell (self->cells, cell->label, CLEAN_ATTACK, cell->n)) != NULL)
        {
          if (pair_cells (self, "robustness", cell, other, &pair, &local_error))
            g_array_append_val (self->robustness, pair);
          else if (local_error != NULL)
            {
              g_propagate_error (error, g_steal_pointer (&local_error));
              comparison_reset (self);
              return FALSE;
            }
        }
    }

  if (self->by_condition)
    compute_failures (self);

  self->computed = TRUE;
  return TRUE;
}

/* ------------------------------------------------------------------------
 * JSON
 * --------------------------------------------------------------------- */

/* Of the scored rows: the share whose prompts were cut to the context
 * window, and the mean share of reviews that left out. */
static double
cell_shrunk_share (const Cell *cell)
{
  guint scored = cell->rows - cell->unscored;

  return scored > 0 ? (double) cell->shrunk / scored : 0.0;
}

static double
cell_dropped_share (const Cell *cell)
{
  guint scored = cell->rows - cell->unscored;

  return scored > 0 ? cell->dropped_sum / scored : 0.0;
}

static gboolean
any_unscored (AnotComparison *self)
{
  for (guint i = 0; i < self->cells->len; i++)
    if (((Cell *) g_ptr_array_index (self->cells, i))->unscored > 0)
      return TRUE;
  return FALSE;
}

static gboolean
any_shrunk (AnotComparison *self)
{
  for (guint i = 0; i < self->cells->len; i++)
    if (((Cell *) g_ptr_array_index (self->cells, i))->shrunk > 0)
      return TRUE;
  return FALSE;
}

/**
 * anot_comparison_list_warnings:
 * @self: an #AnotComparison, computed
 *
 * What makes the comparison incomplete, in sentences: every cell with
 * requests the infrastructure failed (unscored: its figures are over the
 * others, see [method@Anot.Result.is_scored]), every pair that left out
 * (request, N, run) cells one side did not score (pairs are made only of
 * cells both sides scored), and every cell whose prompts were shrunk to
 * the model's context window.  `anot-run compare` prints them on stderr;
 * the JSON has them as `warnings`.
 *
 * Returns: (transfer full) (array zero-terminated=1): the warnings, empty
 *   when there is nothing to say or the comparison was not computed
 */
char **
anot_comparison_list_warnings (AnotComparison *self)
{
  GPtrArray *warnings;

  g_return_val_if_fail (ANOT_IS_COMPARISON (self), NULL);

  warnings = g_ptr_array_new ();
  for (guint i = 0; self->computed && i < self->cells->len; i++)
    {
      const Cell *cell = g_ptr_array_index (self->cells, i);

      if (cell->unscored > 0)
        g_ptr_array_add (warnings,
                         g_strdup_printf ("%s (%s, N=%u): %u of %u rows unscored (the infrastructure "
                                          "failed them), its figures are over the other %u; "
                                          "anot-run --resume runs them again",
                                          cell->label, cell->attack, cell->n, cell->unscored,
                                          cell->rows, cell->rows - cell->unscored));
      if (cell->shrunk > 0)
        g_ptr_array_add (warnings,
                         g_strdup_printf ("%s (%s, N=%u): the prompts of %.0f%% of the requests were "
                                          "shrunk to the model's context window, leaving out %.0f%% "
                                          "of the reviews on average",
                                          cell->label, cell->attack, cell->n,
                                          100.0 * cell_shrunk_share (cell),
                                          100.0 * cell_dropped_share (cell)));
    }
  for (guint t = 0; self->computed && t < 2; t++)
    {
      GArray *pairs = t == 0 ? self->paired : self->robustness;

      for (guint i = 0; i < pairs->len; i++)
        {
          const Pair *pair = &g_array_index (pairs, Pair, i);

          if (pair->excluded > 0)
            g_ptr_array_add (warnings,
                             g_strdup_printf ("%s (%s) against %s (%s), N=%u: paired on the %u "
                                              "(request, run) cells both scored; %u left out, "
                                              "unscored on one side",
                                              pair->method->label, pair->method->attack,
                                              pair->baseline->label, pair->baseline->attack,
                                              pair->method->n, pair->pairs, pair->excluded));
        }
    }
  g_ptr_array_add (warnings, NULL);
  return (char **) g_ptr_array_free (warnings, FALSE);
}

static void
add_estimate (JsonBuilder    *builder,
              const char     *name,
              const Estimate *estimate,
              gboolean        available,
              const char     *mean_name)
{
  json_builder_set_member_name (builder, name);
  if (!available)
    {
      json_builder_add_null_value (builder);
      return;
    }
  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, mean_name);
  json_builder_add_double_value (builder, estimate->mean);
  json_builder_set_member_name (builder, "lower");
  json_builder_add_double_value (builder, estimate->lower);
  json_builder_set_member_name (builder, "upper");
  json_builder_add_double_value (builder, estimate->upper);
  json_builder_end_object (builder);
}

static void
add_pairs (JsonBuilder *builder,
           const char  *name,
           GArray      *pairs,
           gboolean     robustness)
{
  json_builder_set_member_name (builder, name);
  json_builder_begin_array (builder);
  for (guint i = 0; i < pairs->len; i++)
    {
      const Pair *pair = &g_array_index (pairs, Pair, i);

      json_builder_begin_object (builder);
      json_builder_set_member_name (builder, "method");
      json_builder_add_string_value (builder, pair->method->label);
      json_builder_set_member_name (builder, robustness ? "clean" : "baseline");
      json_builder_add_string_value (builder, robustness ? pair->baseline->attack
                                                         : pair->baseline->label);
      json_builder_set_member_name (builder, "attack");
      json_builder_add_string_value (builder, pair->method->attack);
      json_builder_set_member_name (builder, "n_candidates");
      json_builder_add_int_value (builder, pair->method->n);
      json_builder_set_member_name (builder, "requests");
      json_builder_add_int_value (builder, pair->requests);
      json_builder_set_member_name (builder, "runs");
      json_builder_add_int_value (builder, pair->runs);
      json_builder_set_member_name (builder, "pairs");
      json_builder_add_int_value (builder, pair->pairs);
      json_builder_set_member_name (builder, "unpaired");
      json_builder_begin_object (builder);
      json_builder_set_member_name (builder, robustness ? "attacked" : "method");
      json_builder_add_int_value (builder, pair->method_unpaired);
      json_builder_set_member_name (builder, robustness ? "clean" : "baseline");
      json_builder_add_int_value (builder, pair->baseline_unpaired);
      json_builder_end_object (builder);
      json_builder_set_member_name (builder, "excluded");
      json_builder_add_int_value (builder, pair->excluded);
      for (guint m = 0; m < N_METRICS; m++)
        {
          json_builder_set_member_name (builder, metric_keys[m]);
          if (!pair->available[m])
            {
              json_builder_add_null_value (builder);
              continue;
            }
          json_builder_begin_object (builder);
          json_builder_set_member_name (builder, robustness ? "attacked" : "method");
          json_builder_add_double_value (builder, pair->method_mean[m].mean);
          json_builder_set_member_name (builder, robustness ? "clean" : "baseline");
          json_builder_add_double_value (builder, pair->baseline_mean[m].mean);
          json_builder_set_member_name (builder, "diff");
          json_builder_add_double_value (builder, pair->diff[m].mean);
          json_builder_set_member_name (builder, "lower");
          json_builder_add_double_value (builder, pair->diff[m].lower);
          json_builder_set_member_name (builder, "upper");
          json_builder_add_double_value (builder, pair->diff[m].upper);
          json_builder_end_object (builder);
        }
      json_builder_set_member_name (builder, "mcnemar");
      json_builder_begin_object (builder);
      json_builder_set_member_name (builder, robustness ? "attacked_only" : "method_only");
      json_builder_add_int_value (builder, pair->method_only);
      json_builder_set_member_name (builder, robustness ? "clean_only" : "baseline_only");
      json_builder_add_int_value (builder, pair->baseline_only);
      json_builder_set_member_name (builder, "p_value");
      json_builder_add_double_value (builder, pair->p_value);
      json_builder_end_object (builder);
      json_builder_end_object (builder);
    }
  json_builder_end_array (builder);
}

static const char *const failure_keys[N_FAIL_FIXED] = { "misses", "near_misses", "no_failed_condition" };

static void
add_failure_count (JsonBuilder       *builder,
                   const char        *name,
                   const FailureCell *cell,
                   guint              column)
{
  const double values[3] = { cell->shares[column].mean, cell->shares[column].lower,
                             cell->shares[column].upper };
  static const char *const names[3] = { "mean", "lower", "upper" };

  json_builder_set_member_name (builder, name);
  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "count");
  json_builder_add_int_value (builder, cell->counts[column]);
  for (guint v = 0; v < G_N_ELEMENTS (values); v++)
    {
      json_builder_set_member_name (builder, names[v]);
      if (cell->ranked > 0)
        json_builder_add_double_value (builder, values[v]);
      else
        json_builder_add_null_value (builder);
    }
  json_builder_end_object (builder);
}

/* The members naming a cell: `method`, `attack`, `n_candidates`. */
static void
add_cell_names (JsonBuilder *builder,
                const char  *label,
                const char  *attack,
                guint        n)
{
  json_builder_set_member_name (builder, "method");
  json_builder_add_string_value (builder, label);
  json_builder_set_member_name (builder, "attack");
  json_builder_add_string_value (builder, attack);
  json_builder_set_member_name (builder, "n_candidates");
  json_builder_add_int_value (builder, n);
}

static void
add_failures (AnotComparison *self,
              JsonBuilder    *builder)
{
  json_builder_set_member_name (builder, "by_condition");
  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "kinds");
  json_builder_begin_array (builder);
  for (guint k = 0; k < self->failure_kinds->len; k++)
    json_builder_add_string_value (builder, g_ptr_array_index (self->failure_kinds, k));
  json_builder_end_array (builder);
  json_builder_set_member_name (builder, "cells");
  json_builder_begin_array (builder);
  for (guint i = 0; i < self->failures->len; i++)
    {
      const FailureCell *cell = g_ptr_array_index (self->failures, i);

      json_builder_begin_object (builder);
      add_cell_names (builder, cell->label, cell->attack, cell->n);
      json_builder_set_member_name (builder, "group");
      if (cell->group != NULL)
        json_builder_add_string_value (builder, cell->group);
      else
        json_builder_add_null_value (builder);
      json_builder_set_member_name (builder, "requests");
      json_builder_add_int_value (builder, g_hash_table_size (cell->requests));
      json_builder_set_member_name (builder, "runs");
      json_builder_add_int_value (builder, g_hash_table_size (cell->runs));
      json_builder_set_member_name (builder, "rows");
      json_builder_add_int_value (builder, cell->rows);
      json_builder_set_member_name (builder, "ranked");
      json_builder_add_int_value (builder, cell->ranked);
      for (guint c = 0; c < N_FAIL_FIXED; c++)
        add_failure_count (builder, failure_keys[c], cell, c);
      json_builder_set_member_name (builder, "kinds");
      json_builder_begin_object (builder);
      for (guint k = 0; k < self->failure_kinds->len; k++)
        add_failure_count (builder, g_ptr_array_index (self->failure_kinds, k), cell, N_FAIL_FIXED + k);
      json_builder_end_object (builder);
      json_builder_end_object (builder);
    }
  json_builder_end_array (builder);
  json_builder_end_object (builder);
}

/* The labels of the methods whose runs compare like for like with the
 * original framework (`--compat original`), each once, in run order. */
static GPtrArray *
compat_original_labels (AnotComparison *self)
{
  JsonArray *runs = anot_results_get_runs (self->results);
  GPtrArray *labels = g_ptr_array_new ();

  for (guint i = 0; i < json_array_get_length (runs); i++)
    {
      JsonObject *run = json_array_get_object_element (runs, i);
      const char *label = json_object_get_string_member (run, "method");

      if (g_strcmp0 (json_object_get_string_member_with_default (run, "compat", NULL),
                     "original") != 0)
        continue;
      if (!g_ptr_array_find_with_equal_func (labels, label, g_str_equal, NULL))
        g_ptr_array_add (labels, (gpointer) label);
    }
  return labels;
}

/**
 * anot_comparison_to_json:
 * @self: an #AnotComparison, computed
 *
 * The comparison as one object: `confidence`, `resamples`, `seed`,
 * `baseline`, `compat_original` (the methods whose runs were made with
 * `--compat original`), `cells` (one per method × attack × N: `method`,
 * `attack`, `n_candidates`, `requests` (scored), `runs`, `rows`, `failed`,
 * `unscored` (rows the infrastructure failed, in no figure), `shrunk` and
 * `reviews_dropped` (the share of scored rows whose prompts were cut to the
 * context window, and the mean share of reviews left out), and
 * `hits_at_1`, `hits_at_3`, `hits_at_5`, `mrr` as `{mean, lower, upper}` or
 * null when k is too small or nothing was scored), `paired` (every method
 * against the baseline on the cells both ran and scored: `pairs`,
 * `unpaired` (cells only one side ran), `excluded` (left out, unscored on
 * a side), the means, `diff`, `lower`, `upper` per metric and `mcnemar`
 * `{method_only, baseline_only, p_value}`), `robustness` (every attack
 * against clean, the same with `attacked`/`clean`) and `warnings`
 * ([method@Anot.Comparison.list_warnings]), and with
 * [method@Anot.Comparison.set_by_condition], `by_condition`: `kinds` (the
 * evidence kinds met) and `cells` (one per method × attack × N × group,
 * `group` null for all groups: `requests`, `runs`, `rows`, `ranked` (rows
 * with a first item to explain), then `misses`, `near_misses`,
 * `no_failed_condition` and per kind in `kinds`, each `{count, mean, lower,
 * upper}`: the number of ranked rows and their share with its interval).
 *
 * Returns: (transfer full) (nullable): the comparison, or %NULL when it was
 *   not computed
 */
JsonNode *
anot_comparison_to_json (AnotComparison *self)
{
  g_autoptr(JsonBuilder) builder = json_builder_new ();
  g_autofree char *seed = NULL;

  g_return_val_if_fail (ANOT_IS_COMPARISON (self), NULL);
  if (!self->computed)
    return NULL;

  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "confidence");
  json_builder_add_double_value (builder, self->level);
  json_builder_set_member_name (builder, "resamples");
  json_builder_add_int_value (builder, self->resamples);
  json_builder_set_member_name (builder, "seed");
  seed = g_strdup_printf ("%" G_GUINT64_FORMAT, self->seed);
  json_builder_add_string_value (builder, seed);
  json_builder_set_member_name (builder, "baseline");
  json_builder_add_string_value (builder, self->used_baseline);
  json_builder_set_member_name (builder, "compat_original");
  json_builder_begin_array (builder);
  {
    g_autoptr(GPtrArray) labels = compat_original_labels (self);

    for (guint i = 0; i < labels->len; i++)
      json_builder_add_string_value (builder, labels->pdata[i]);
  }
  json_builder_end_array (builder);

  json_builder_set_member_name (builder, "cells");
  json_builder_begin_array (builder);
  for (guint i = 0; i < self->cells->len; i++)
    {
      const Cell *cell = g_ptr_array_index (self->cells, i);

      json_builder_begin_object (builder);
      add_cell_names (builder, cell->label, cell->attack, cell->n);
      json_builder_set_member_name (builder, "requests");
      json_builder_add_int_value (builder, g_hash_table_size (cell->requests));
      json_builder_set_member_name (builder, "runs");
      json_builder_add_int_value (builder, g_hash_table_size (cell->by_run));
      json_builder_set_member_name (builder, "rows");
      json_builder_add_int_value (builder, cell->rows);
      json_builder_set_member_name (builder, "failed");
      json_builder_add_int_value (builder, cell->failed);
      json_builder_set_member_name (builder, "unscored");
      json_builder_add_int_value (builder, cell->unscored);
      json_builder_set_member_name (builder, "shrunk");
      json_builder_add_double_value (builder, cell_shrunk_share (cell));
      json_builder_set_member_name (builder, "reviews_dropped");
      json_builder_add_double_value (builder, cell_dropped_share (cell));
      for (guint m = 0; m < N_METRICS; m++)
        add_estimate (builder, metric_keys[m], &cell->estimate[m], cell->available[m], "mean");
      json_builder_end_object (builder);
    }
  json_builder_end_array (builder);

  add_pairs (builder, "paired", self->paired, FALSE);
  add_pairs (builder, "robustness", self->robustness, TRUE);
  {
    g_auto(GStrv) warnings = anot_comparison_list_warnings (self);

    json_builder_set_member_name (builder, "warnings");
    json_builder_begin_array (builder);
    for (guint i = 0; warnings[i] != NULL; i++)
      json_builder_add_string_value (builder, warnings[i]);
    json_builder_end_array (builder);
  }
  if (self->by_condition)
    add_failures (self, builder);
  json_builder_end_object (builder);
  return json_builder_get_root (builder);
}

/* ------------------------------------------------------------------------
 * Tables
 * --------------------------------------------------------------------- */

typedef struct
{
  char *title;
  GPtrArray *header;      /* char * */
  GPtrArray *rows;        /* GPtrArray of char * */
  guint n_left;           /* leading columns aligned left */
} Table;

static Table *
table_new (const char *title,
           guint       n_left)
{
  Table *table = g_new0 (Table, 1);

  table->title = g_strdup (title);
  table->header = g_ptr_array_new_with_free_func (g_free);
  table->rows = g_ptr_array_new_with_free_func ((GDestroyNotify) g_ptr_array_unref);
  table->n_left = n_left;
  return table;
}

static void
table_free (Table *table)
{
  g_free (table->title);
  g_ptr_array_unref (table->header);
  g_ptr_array_unref (table->rows);
  g_free (table);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (Table, table_free)

static GPtrArray *
table_add_row (Table *table)
{
  GPtrArray *row = g_ptr_array_new_with_free_func (g_free);

  g_ptr_array_add (table->rows, row);
  return row;
}

static char *
format_interval (const Estimate *estimate,
                 gboolean        available,
                 gboolean        signed_value)
{
  if (!available)
    return g_strdup ("–");
  if (signed_value)
    return g_strdup_printf ("%+.3f [%+.3f, %+.3f]", estimate->mean, estimate->lower, estimate->upper);
  return g_strdup_printf ("%.3f [%.3f, %.3f]", estimate->mean, estimate->lower, estimate->upper);
}

static char *
format_p (double p)
{
  if (p < 0.001)
    return g_strdup ("<0.001");
  return g_strdup_printf ("%.3f", p);
}


/* Pairs over a subset say so under their table: how many (request, run)
 * cells each side ran that the other did not, and a run that did not
 * finish, the usual cause of a subset nobody chose. */
static void
unpaired_note (Table    *table,
               GArray   *pairs,
               gboolean  robustness)
{
  g_autoptr(GString) note = g_string_new (NULL);

  for (guint i = 0; i < pairs->len; i++)
    {
      const Pair *pair = &g_array_index (pairs, Pair, i);
      const char *a = robustness ? pair->method->attack : pair->method->label;
      const char *b = robustness ? pair->baseline->attack : pair->baseline->label;

      if (pair->method_unpaired == 0 && pair->baseline_unpaired == 0)
        continue;
      g_string_append_printf (note, "\n%s%s%s against %s at N=%u: paired on the %u (request, run) cells "
                              "both ran; %u only %s ran, %u only %s",
                              pair->method->label, robustness ? " " : "", robustness ? a : "",
                              b, pair->method->n, pair->pairs, pair->method_unpaired, a,
                              pair->baseline_unpaired, b);
      if (pair->unfinished != NULL)
        {
          g_autofree char *attack_dir = g_path_get_dirname (pair->unfinished->directory);

          g_string_append_printf (note, " (%s is “%s”: finish it with anot-run --resume %s)",
                                  pair->unfinished->directory, pair->unfinished->status, attack_dir);
        }
    }
  if (note->len > 0)
    {
      char *title = g_strconcat (table->title, note->str, NULL);

      g_free (table->title);
      table->title = title;
    }
}

static GPtrArray *
build_tables (AnotComparison *self)
{
  GPtrArray *tables = g_ptr_array_new_with_free_func ((GDestroyNotify) table_free);
  guint level = (guint) round (self->level * 100);
  gboolean unscored = any_unscored (self), shrunk = any_shrunk (self);
  g_autofree char *title = NULL;
  Table *table;

  title = g_strdup_printf ("Hits@K and MRR with %u%% bootstrap intervals "
                           "(%u resamples over requests, seed %" G_GUINT64_FORMAT ")",
                           level, self->resamples, self->seed);
  table = table_new (title, self->several_attacks ? 2 : 1);
  g_ptr_array_add (table->header, g_strdup ("method"));
  if (self->several_attacks)
    g_ptr_array_add (table->header, g_strdup ("attack"));
  g_ptr_array_add (table->header, g_strdup ("N"));
  g_ptr_array_add (table->header, g_strdup ("requests"));
  /* Columns only when some cell has them. */
  if (unscored)
    g_ptr_array_add (table->header, g_strdup ("unscored"));
  g_ptr_array_add (table->header, g_strdup ("runs"));
  for (guint m = 0; m < N_METRICS; m++)
    g_ptr_array_add (table->header, g_strdup (metric_names[m]));
  if (shrunk)
    {
      g_ptr_array_add (table->header, g_strdup ("shrunk"));
      g_ptr_array_add (table->header, g_strdup ("reviews dropped"));
    }
  for (guint i = 0; i < self->cells->len; i++)
    {
      const Cell *cell = g_ptr_array_index (self->cells, i);
      GPtrArray *row = table_add_row (table);

      g_ptr_array_add (row, g_strdup (cell->label));
      if (self->several_attacks)
        g_ptr_array_add (row, g_strdup (cell->attack));
      g_ptr_array_add (row, g_strdup_printf ("%u", cell->n));
      g_ptr_array_add (row, g_strdup_printf ("%u", g_hash_table_size (cell->requests)));
      if (unscored)
        g_ptr_array_add (row, g_strdup_printf ("%u", cell->unscored));
      g_ptr_array_add (row, g_strdup_printf ("%u", g_hash_table_size (cell->by_run)));
      for (guint m = 0; m < N_METRICS; m++)
        g_ptr_array_add (row, format_interval (&cell->estimate[m], cell->available[m], FALSE));
      if (shrunk)
        {
          g_ptr_array_add (row, g_strdup_printf ("%.0f%%", 100.0 * cell_shrunk_share (cell)));
          g_ptr_array_add (row, g_strdup_printf ("%.0f%%", 100.0 * cell_dropped_share (cell)));
        }
    }
  g_ptr_array_add (tables, table);

  for (guint t = 0; t < 2; t++)
    {
      GArray *pairs = t == 0 ? self->paired : self->robustness;
      g_autofree char *pair_title = NULL;

      if (pairs->len == 0)
        continue;
      if (t == 0)
        pair_title = g_strdup_printf ("Against %s on the same (request, N, run) cells%s: difference "
                                      "with its %u%% interval; p: exact McNemar test of Hits@1",
                                      self->used_baseline, unscored ? ", both scored" : "", level);
      else
        pair_title = g_strdup_printf ("Attacked against clean on the same (request, N, run) cells%s: "
                                      "difference with its %u%% interval; p: exact McNemar test of Hits@1",
                                      unscored ? ", both scored" : "", level);
      table = table_new (pair_title, 2);
      g_ptr_array_add (table->header, g_strdup ("method"));
      g_ptr_array_add (table->header, g_strdup (t == 0 ? "baseline" : "attack"));
      if (t == 0 && self->several_attacks)
        {
          g_ptr_array_add (table->header, g_strdup ("attack"));
          table->n_left = 3;
        }
      g_ptr_array_add (table->header, g_strdup ("N"));
      g_ptr_array_add (table->header, g_strdup ("pairs"));
      if (unscored)
        g_ptr_array_add (table->header, g_strdup ("left out"));
      g_ptr_array_add (table->header, g_strdup ("Hits@1"));
      g_ptr_array_add (table->header, g_strdup ("ΔHits@1"));
      g_ptr_array_add (table->header, g_strdup ("ΔMRR"));
      g_ptr_array_add (table->header, g_strdup (t == 0 ? "wins/losses" : "gained/lost"));
      g_ptr_array_add (table->header, g_strdup ("p"));
      for (guint i = 0; i < pairs->len; i++)
        {
          const Pair *pair = &g_array_index (pairs, Pair, i);
          GPtrArray *row = table_add_row (table);

          g_ptr_array_add (row, g_strdup (pair->method->label));
          g_ptr_array_add (row, g_strdup (t == 0 ? pair->baseline->label : pair->method->attack));
          if (t == 0 && self->several_attacks)
            g_ptr_array_add (row, g_strdup (pair->method->attack));
          g_ptr_array_add (row, g_strdup_printf ("%u", pair->method->n));
          g_ptr_array_add (row, g_strdup_printf ("%u", pair->pairs));
          if (unscored)
            g_ptr_array_add (row, g_strdup_printf ("%u", pair->excluded));
          g_ptr_array_add (row, g_strdup_printf ("%.3f → %.3f", pair->baseline_mean[METRIC_HITS_1].mean,
                                                 pair->method_mean[METRIC_HITS_1].mean));
          g_ptr_array_add (row, format_interval (&pair->diff[METRIC_HITS_1], TRUE, TRUE));
          g_ptr_array_add (row, format_interval (&pair->diff[METRIC_MRR], TRUE, TRUE));
          g_ptr_array_add (row, g_strdup_printf ("%u/%u", pair->method_only, pair->baseline_only));
          g_ptr_array_add (row, format_p (pair->p_value));
        }
      unpaired_note (table, pairs, t == 1);
      g_ptr_array_add (tables, table);
    }

  if (self->by_condition && self->failures->len > 0)
    {
      g_autofree char *failure_title = NULL;

      failure_title = g_strdup_printf ("Why the first item was not the gold: misses (first item not "
                                       "the gold), near misses (it fails exactly one condition), "
                                       "none failed (it fails no condition: unknowns, or another match), and per "
                                       "evidence kind the misses failing a condition of that kind; "
                                       "count, then share of the ranked rows with its %u%% interval",
                                       level);
      table = table_new (failure_title, self->several_attacks ? 3 : 2);
      g_ptr_array_add (table->header, g_strdup ("method"));
      if (self->several_attacks)
        g_ptr_array_add (table->header, g_strdup ("attack"));
      g_ptr_array_add (table->header, g_strdup ("group"));
      g_ptr_array_add (table->header, g_strdup ("N"));
      g_ptr_array_add (table->header, g_strdup ("ranked"));
      g_ptr_array_add (table->header, g_strdup ("misses"));
      g_ptr_array_add (table->header, g_strdup ("near misses"));
      g_ptr_array_add (table->header, g_strdup ("none failed"));
      for (guint k = 0; k < self->failure_kinds->len; k++)
        g_ptr_array_add (table->header, g_strdup (g_ptr_array_index (self->failure_kinds, k)));
      for (guint i = 0; i < self->failures->len; i++)
        {
          const FailureCell *cell = g_ptr_array_index (self->failures, i);
          GPtrArray *row = table_add_row (table);

          g_ptr_array_add (row, g_strdup (cell->label));
          if (self->several_attacks)
            g_ptr_array_add (row, g_strdup (cell->attack));
          g_ptr_array_add (row, g_strdup (cell->group != NULL ? cell->group : "all"));
          g_ptr_array_add (row, g_strdup_printf ("%u", cell->n));
          g_ptr_array_add (row, g_strdup_printf ("%u", cell->ranked));
          for (guint c = 0; c < N_FAIL_FIXED + self->failure_kinds->len; c++)
            {
              if (cell->ranked == 0)
                g_ptr_array_add (row, g_strdup ("–"));
              else
                g_ptr_array_add (row, g_strdup_printf ("%u %.2f [%.2f, %.2f]", cell->counts[c],
                                                       cell->shares[c].mean, cell->shares[c].lower,
                                                       cell->shares[c].upper));
            }
        }
      g_ptr_array_add (tables, table);
    }
  return tables;
}

static void
append_padded (GString    *out,
               const char *text,
               guint       width,
               gboolean    left)
{
  glong length = g_utf8_strlen (text, -1);
  guint pad = width > length ? width - (guint) length : 0;

  if (!left)
    for (guint i = 0; i < pad; i++)
      g_string_append_c (out, ' ');
  g_string_append (out, text);
  if (left)
    for (guint i = 0; i < pad; i++)
      g_string_append_c (out, ' ');
}

static void
format_text (GString *out,
             Table   *table)
{
  g_autofree guint *widths = g_new0 (guint, table->header->len);

  for (guint c = 0; c < table->header->len; c++)
    widths[c] = g_utf8_strlen (g_ptr_array_index (table->header, c), -1);
  for (guint r = 0; r < table->rows->len; r++)
    {
      GPtrArray *row = g_ptr_array_index (table->rows, r);

      for (guint c = 0; c < row->len; c++)
        widths[c] = MAX (widths[c], (guint) g_utf8_strlen (g_ptr_array_index (row, c), -1));
    }

  g_string_append_printf (out, "%s\n\n", table->title);
  for (guint r = 0; r <= table->rows->len; r++)
    {
      GPtrArray *row = r == 0 ? table->header : g_ptr_array_index (table->rows, r - 1);
      gsize start = out->len;

      for (guint c = 0; c < row->len; c++)
        {
          if (c > 0)
            g_string_append (out, "  ");
          append_padded (out, g_ptr_array_index (row, c), widths[c], c < table->n_left);
        }
      /* No trailing blanks. */
      while (out->len > start && out->str[out->len - 1] == ' ')
        g_string_truncate (out, out->len - 1);
      g_string_append_c (out, '\n');
    }
}

static void
format_markdown (GString *out,
                 Table   *table)
{
  g_string_append_printf (out, "%s\n\n", table->title);
  for (guint r = 0; r <= table->rows->len; r++)
    {
      GPtrArray *row = r == 0 ? table->header : g_ptr_array_index (table->rows, r - 1);

      g_string_append (out, "|");
      for (guint c = 0; c < row->len; c++)
        {
          g_autofree char *escaped = NULL;
          g_auto(GStrv) parts = g_strsplit (g_ptr_array_index (row, c), "|", -1);

          escaped = g_strjoinv ("\\|", parts);
          g_string_append_printf (out, " %s |", escaped);
        }
      g_string_append_c (out, '\n');
      if (r == 0)
        {
          g_string_append (out, "|");
          for (guint c = 0; c < row->len; c++)
            g_string_append (out, c < table->n_left ? " --- |" : " ---: |");
          g_string_append_c (out, '\n');
        }
    }
}

static char *
latex_escape (const char *text)
{
  GString *out = g_string_new (NULL);

  for (const char *p = text; *p != '\0'; p = g_utf8_next_char (p))
    {
      gunichar ch = g_utf8_get_char (p);

      switch (ch)
        {
        case '\\': g_string_append (out, "\\textbackslash{}"); break;
        case '&': case '%': case '$': case '#': case '_': case '{': case '}':
          g_string_append_c (out, '\\');
          g_string_append_c (out, (char) ch);
          break;
        case '~': g_string_append (out, "\\textasciitilde{}"); break;
        case '^': g_string_append (out, "\\textasciicircum{}"); break;
        case '<': g_string_append (out, "$<$"); break;
        case '>': g_string_append (out, "$>$"); break;
        case 0x0394: g_string_append (out, "$\\Delta$"); break;   /* Δ */
        case 0x2192: g_string_append (out, "$\\rightarrow$"); break; /* → */
        case 0x2013: g_string_append (out, "--"); break;          /* – */
        default: g_string_append_unichar (out, ch); break;
        }
    }
  return g_string_free (out, FALSE);
}

static void
format_latex (GString *out,
              Table   *table)
{
  g_autofree char *escaped = latex_escape (table->title);
  g_auto(GStrv) lines = g_strsplit (escaped, "\n", -1);
  g_autofree char *title = g_strjoinv ("\n% ", lines);   /* a note's lines stay comments */

  g_string_append_printf (out, "%% %s\n\\begin{tabular}{", title);
  for (guint c = 0; c < table->header->len; c++)
    g_string_append_c (out, c < table->n_left ? 'l' : 'r');
  g_string_append (out, "}\n\\toprule\n");
  for (guint r = 0; r <= table->rows->len; r++)
    {
      GPtrArray *row = r == 0 ? table->header : g_ptr_array_index (table->rows, r - 1);

      for (guint c = 0; c < row->len; c++)
        {
          g_autofree char *cell = latex_escape (g_ptr_array_index (row, c));

          g_string_append_printf (out, "%s%s", c > 0 ? " & " : "", cell);
        }
      g_string_append (out, " \\\\\n");
      if (r == 0)
        g_string_append (out, "\\midrule\n");
    }
  g_string_append (out, "\\bottomrule\n\\end{tabular}\n");
}

static void
csv_field (GString    *out,
           const char *text)
{
  if (strpbrk (text, ",\"\n") == NULL)
    {
      g_string_append (out, text);
      return;
    }
  g_string_append_c (out, '"');
  for (const char *p = text; *p != '\0'; p++)
    {
      if (*p == '"')
        g_string_append_c (out, '"');
      g_string_append_c (out, *p);
    }
  g_string_append_c (out, '"');
}

static void
csv_number (GString *out,
            double   value)
{
  char buffer[G_ASCII_DTOSTR_BUF_SIZE];

  g_string_append (out, g_ascii_formatd (buffer, sizeof buffer, "%.6g", value));
}

static void
csv_line (GString        *out,
          const char     *table,
          const char     *method,
          const char     *baseline,
          const char     *attack,
          guint           n,
          guint           requests,
          guint           runs,
          guint           metric,
          const Estimate *estimate,
          const Pair     *pair,
          const Cell     *cell)
{
  const char *fields[] = { table, method, baseline, attack };

  for (guint i = 0; i < G_N_ELEMENTS (fields); i++)
    {
      csv_field (out, fields[i]);
      g_string_append_c (out, ',');
    }
  g_string_append_printf (out, "%u,%u,%u,%s,", n, requests, runs, metric_keys[metric]);
  csv_number (out, estimate->mean);
  g_string_append_c (out, ',');
  csv_number (out, estimate->lower);
  g_string_append_c (out, ',');
  csv_number (out, estimate->upper);
  g_string_append_c (out, ',');
  if (pair != NULL && metric == METRIC_HITS_1)
    {
      csv_number (out, pair->p_value);
      g_string_append_printf (out, ",%u,%u", pair->method_only, pair->baseline_only);
    }
  else
    g_string_append (out, ",,");
  if (cell != NULL)
    {
      g_string_append_printf (out, ",%u,", cell->unscored);
      csv_number (out, cell_shrunk_share (cell));
      g_string_append_c (out, ',');
      csv_number (out, cell_dropped_share (cell));
      g_string_append_c (out, ',');
    }
  else
    g_string_append_printf (out, ",,,,%u", pair->excluded);
}

/* CSV is one long table with a header, for data frames rather than papers. */
static void
format_csv (AnotComparison *self,
            GString        *out)
{
  /* --by-condition adds two columns at the end, empty on the other lines. */
  const char *tail = self->by_condition ? ",,\n" : "\n";

  g_string_append (out, "table,method,baseline,attack,n_candidates,requests,runs,metric,"
                        "estimate,lower,upper,p_value,method_only,baseline_only,"
                        "unscored,shrunk,reviews_dropped,excluded");
  g_string_append (out, self->by_condition ? ",group,count\n" : "\n");
  for (guint i = 0; i < self->cells->len; i++)
    {
      const Cell *cell = g_ptr_array_index (self->cells, i);

      for (guint m = 0; m < N_METRICS; m++)
        if (cell->available[m])
          {
            csv_line (out, "cells", cell->label, "", cell->attack, cell->n,
                      g_hash_table_size (cell->requests), g_hash_table_size (cell->by_run),
                      m, &cell->estimate[m], NULL, cell);
            g_string_append (out, tail);
          }
    }
  for (guint t = 0; t < 2; t++)
    {
      GArray *pairs = t == 0 ? self->paired : self->robustness;

      for (guint i = 0; i < pairs->len; i++)
        {
          const Pair *pair = &g_array_index (pairs, Pair, i);

          for (guint m = 0; m < N_METRICS; m++)
            if (pair->available[m])
              {
                csv_line (out, t == 0 ? "paired" : "robustness", pair->method->label,
                          t == 0 ? pair->baseline->label : CLEAN_ATTACK, pair->method->attack,
                          pair->method->n, pair->requests, pair->runs, m, &pair->diff[m], pair, NULL);
                g_string_append (out, tail);
              }
        }
    }
  for (guint i = 0; self->by_condition && i < self->failures->len; i++)
    {
      const FailureCell *cell = g_ptr_array_index (self->failures, i);

      /* "ranked" first (a count, no estimate), then one line per measure. */
      for (guint c = 0; c <= N_FAIL_FIXED + self->failure_kinds->len; c++)
        {
          const char *metric = c == 0 ? "ranked"
                               : c <= N_FAIL_FIXED ? failure_keys[c - 1]
                               : g_ptr_array_index (self->failure_kinds, c - 1 - N_FAIL_FIXED);

          g_string_append (out, "by_condition,");
          csv_field (out, cell->label);
          g_string_append (out, ",,");
          csv_field (out, cell->attack);
          g_string_append_printf (out, ",%u,%u,%u,", cell->n, g_hash_table_size (cell->requests),
                                  g_hash_table_size (cell->runs));
          csv_field (out, metric);
          g_string_append_c (out, ',');
          if (c > 0 && cell->ranked > 0)
            {
              csv_number (out, cell->shares[c - 1].mean);
              g_string_append_c (out, ',');
              csv_number (out, cell->shares[c - 1].lower);
              g_string_append_c (out, ',');
              csv_number (out, cell->shares[c - 1].upper);
            }
          else
            g_string_append (out, ",,");
          /* p_value … excluded are empty. */
          g_string_append (out, ",,,,,,,,");
          csv_field (out, cell->group != NULL ? cell->group : "all");
          g_string_append_printf (out, ",%u\n", c == 0 ? cell->ranked : cell->counts[c - 1]);
        }
    }
}

/**
 * anot_comparison_format:
 * @self: an #AnotComparison, computed
 * @format: `text` (aligned columns), `markdown`, `latex` (booktabs) or `csv`
 * @error: return location for a #GError
 *
 * Writes the comparison as tables: the intervals of every method × attack ×
 * N, then the paired differences against the baseline, then attacked
 * against clean, and a last line naming the methods whose runs were made
 * with `--compat original`, if any.  `csv` is one long table (a row per cell and metric) with
 * the columns `table`, `method`, `baseline`, `attack`, `n_candidates`,
 * `requests`, `runs`, `metric`, `estimate`, `lower`, `upper`, `p_value`,
 * `method_only`, `baseline_only`, `unscored`, `shrunk`, `reviews_dropped`
 * (cells) and `excluded` (pairs).  Cells with unscored requests (the
 * infrastructure failed them) get an `unscored` column in the other
 * formats, and the pairs a `left out` column; cells whose prompts were
 * shrunk to the context window get `shrunk` and `reviews dropped`. With
 * [method@Anot.Comparison.set_by_condition] a table of the misses explained
 * follows (`csv`: two more columns, `group` and `count`, and lines of table
 * `by_condition` whose `metric` is `ranked`, `misses`, `near_misses`,
 * `no_failed_condition` or an evidence kind).
 *
 * Returns: (transfer full): the text, or %NULL with @error set for an
 *   unknown format or a comparison not computed
 */
char *
anot_comparison_format (AnotComparison  *self,
                        const char      *format,
                        GError         **error)
{
  g_autoptr(GPtrArray) tables = NULL;
  GString *out;

  g_return_val_if_fail (ANOT_IS_COMPARISON (self), NULL);
  g_return_val_if_fail (format != NULL, NULL);

  if (!self->computed)
    {
      g_set_error (error, ANOT_ERROR, ANOT_ERROR_INVALID_ARGUMENT,
                   "the comparison has not been computed");
      return NULL;
    }
  if (strcmp (format, "text") != 0 && strcmp (format, "markdown") != 0 &&
      strcmp (format, "latex") != 0 && strcmp (format, "csv") != 0)
    {
      g_set_error (error, ANOT_ERROR, ANOT_ERROR_INVALID_ARGUMENT,
                   "unknown format “%s” (text, markdown, latex or csv)", format);
      return NULL;
    }

  out = g_string_new (NULL);
  if (strcmp (format, "csv") == 0)
    {
      format_csv (self, out);
      return g_string_free (out, FALSE);
    }

  tables = build_tables (self);
  for (guint i = 0; i < tables->len; i++)
    {
      Table *table = g_ptr_array_index (tables, i);

      if (i > 0)
        g_string_append_c (out, '\n');
      if (strcmp (format, "text") == 0)
        format_text (out, table);
      else if (strcmp (format, "markdown") == 0)
        format_markdown (out, table);
      else
        format_latex (out, table);
    }
  {
    g_autoptr(GPtrArray) labels = compat_original_labels (self);

    /* Not anot's own behaviour: the reader of a table must know. */
    if (labels->len > 0)
      {
        g_string_append_printf (out, "\n%sLike for like with the original framework "
                                "(--compat original, see docs/fidelity.md): ",
                                strcmp (format, "latex") == 0 ? "% " : "");
        for (guint i = 0; i < labels->len; i++)
          g_string_append_printf (out, "%s%s", i ? ", " : "", (char *) labels->pdata[i]);
        g_string_append_c (out, '\n');
      }
  }
  return g_string_free (out, FALSE);
}
