/* anot-metrics.c: Hits@K and MRR over a set of ranked requests
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "anot-metrics.h"
#include "anot-metrics-private.h"
#include "anot-result.h"

#include <math.h>
#include <string.h>

/**
 * AnotMetrics:
 *
 * Ranking metrics over a set of requests: Hits@1..K and the mean reciprocal
 * rank (MRR), overall and per request group.
 *
 * Each request contributes the 1-based rank of its gold item among the
 * (at most K) predictions that were kept, or 0 when the gold is not among
 * them.  Hits@j is the fraction of requests whose rank is between 1 and j;
 * MRR is the mean of 1/rank, counting 0 for a missing gold, so it is
 * effectively MRR@K, as in the original framework's published tables.
 *
 * [method@Anot.Metrics.to_json] writes the original framework's `stats`
 * object (`total`, `k`, `hits_at`) with `mrr` and `groups` added, and
 * `unscored` (requests the infrastructure failed, left out of every
 * metric) and `context_fit` (`shrunk`: the share of requests whose prompts
 * were shrunk to the model's context window; `reviews_dropped`: the mean
 * share of reviews left out) when there are any.
 */

struct _AnotMetrics
{
  GObject parent_instance;

  guint k;
  guint total;
  guint *hits;            /* hits[j - 1] = requests with 1 <= rank <= j */
  double reciprocal_sum;
  GHashTable *groups;     /* group name -> AnotMetrics */
  guint unscored;         /* requests the infrastructure failed, not in total */
  guint shrunk;           /* scored requests whose prompts were shrunk */
  double dropped_share_sum; /* of reviews_dropped / reviews over those */
};

G_DEFINE_FINAL_TYPE (AnotMetrics, anot_metrics, G_TYPE_OBJECT)

enum {
  PROP_0,
  PROP_K,
  PROP_TOTAL,
  PROP_MRR,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

static void
anot_metrics_finalize (GObject *object)
{
  AnotMetrics *self = ANOT_METRICS (object);

  g_free (self->hits);
  g_clear_pointer (&self->groups, g_hash_table_unref);

  G_OBJECT_CLASS (anot_metrics_parent_class)->finalize (object);
}

static void
anot_metrics_constructed (GObject *object)
{
  AnotMetrics *self = ANOT_METRICS (object);

  G_OBJECT_CLASS (anot_metrics_parent_class)->constructed (object);

  self->hits = g_new0 (guint, self->k);
}

static void
anot_metrics_get_property (GObject    *object,
                           guint       prop_id,
                           GValue     *value,
                           GParamSpec *pspec)
{
  AnotMetrics *self = ANOT_METRICS (object);

  switch (prop_id)
    {
    case PROP_K:
      g_value_set_uint (value, self->k);
      break;
    case PROP_TOTAL:
      g_value_set_uint (value, self->total);
      break;
    case PROP_MRR:
      g_value_set_double (value, anot_metrics_get_mrr (self));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
anot_metrics_set_property (GObject      *object,
                           guint         prop_id,
                           const GValue *value,
                           GParamSpec   *pspec)
{
  AnotMetrics *self = ANOT_METRICS (object);

  switch (prop_id)
    {
    case PROP_K:
      self->k = g_value_get_uint (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
anot_metrics_class_init (AnotMetricsClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = anot_metrics_finalize;
  object_class->constructed = anot_metrics_constructed;
  object_class->get_property = anot_metrics_get_property;
  object_class->set_property = anot_metrics_set_property;

  /**
   * AnotMetrics:k:
   *
   * The number of predictions kept per request, i.e. the largest j of
   * Hits@j.
   */
  properties[PROP_K] =
    g_param_spec_uint ("k", NULL, NULL, 1, 1000, 5,
                       G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS);
  /**
   * AnotMetrics:total:
   *
   * The number of requests added.
   */
  properties[PROP_TOTAL] =
    g_param_spec_uint ("total", NULL, NULL, 0, G_MAXUINT, 0,
                       G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  /**
   * AnotMetrics:mrr:
   *
   * The mean reciprocal rank of the gold item (0 for a request whose gold
   * is not among the kept predictions).
   */
  properties[PROP_MRR] =
    g_param_spec_double ("mrr", NULL, NULL, 0.0, 1.0, 0.0,
                         G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);

  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
anot_metrics_init (AnotMetrics *self)
{
  self->k = 5;
  self->groups = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_object_unref);
}

/**
 * anot_metrics_new:
 * @k: the number of predictions kept per request (at least 1)
 *
 * Creates an empty set of metrics for Hits@1..@k.
 *
 * Returns: (transfer full): a new #AnotMetrics
 */
AnotMetrics *
anot_metrics_new (guint k)
{
  g_return_val_if_fail (k >= 1, NULL);

  return g_object_new (ANOT_TYPE_METRICS, "k", k, NULL);
}

static void
metrics_add_rank (AnotMetrics *self,
                  guint        gold_rank)
{
  self->total++;
  /* A rank beyond k cannot come from the kept predictions; it counts as a
   * miss like an absent gold so that Hits@k and MRR agree. */
  if (gold_rank >= 1 && gold_rank <= self->k)
    {
      for (guint j = gold_rank; j <= self->k; j++)
        self->hits[j - 1]++;
      self->reciprocal_sum += 1.0 / gold_rank;
    }
}

/**
 * anot_metrics_add:
 * @self: an #AnotMetrics
 * @group: (nullable): the request's group (e.g. `G01`), or %NULL
 * @gold_rank: the 1-based rank of the gold item among the kept
 *   predictions, or 0 when it is not among them
 *
 * Adds one request.
 */
void
anot_metrics_add (AnotMetrics *self,
                  const char  *group,
                  guint        gold_rank)
{
  g_return_if_fail (ANOT_IS_METRICS (self));

  metrics_add_rank (self, gold_rank);

  if (group != NULL && *group != '\0')
    {
      AnotMetrics *sub = g_hash_table_lookup (self->groups, group);

      if (sub == NULL)
        {
          sub = anot_metrics_new (self->k);
          g_hash_table_insert (self->groups, g_strdup (group), sub);
        }
      metrics_add_rank (sub, gold_rank);
    }

  g_object_freeze_notify (G_OBJECT (self));
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_TOTAL]);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_MRR]);
  g_object_thaw_notify (G_OBJECT (self));
}

static AnotMetrics *
metrics_group (AnotMetrics *self,
               const char  *group)
{
  AnotMetrics *sub;

  if (group == NULL || *group == '\0')
    return NULL;
  sub = g_hash_table_lookup (self->groups, group);
  if (sub == NULL)
    {
      sub = anot_metrics_new (self->k);
      g_hash_table_insert (self->groups, g_strdup (group), sub);
    }
  return sub;
}

static void
metrics_add_fit (AnotMetrics *self,
                 AnotResult  *result)
{
  guint dropped, reviews;

  if (self != NULL && anot_result_get_context_fit (result, &dropped, &reviews, NULL))
    {
      self->shrunk++;
      self->dropped_share_sum += reviews > 0 ? (double) MIN (dropped, reviews) / reviews : 0.0;
    }
}

/**
 * anot_metrics_add_result:
 * @self: an #AnotMetrics
 * @result: a request's row
 *
 * Adds one request from its row: its gold rank and whether its prompts
 * were shrunk to fit the model's context window when it is scored, or one
 * more unscored request when the infrastructure failed it
 * ([method@Anot.Result.is_scored]): those are left out of every metric and
 * counted by [method@Anot.Metrics.get_unscored].
 */
void
anot_metrics_add_result (AnotMetrics *self,
                         AnotResult  *result)
{
  const char *group;

  g_return_if_fail (ANOT_IS_METRICS (self));
  g_return_if_fail (ANOT_IS_RESULT (result));

  group = anot_result_get_group (result);
  if (!anot_result_is_scored (result))
    {
      AnotMetrics *sub = metrics_group (self, group);

      self->unscored++;
      if (sub != NULL)
        sub->unscored++;
      return;
    }
  metrics_add_fit (self, result);
  metrics_add_fit (metrics_group (self, group), result);
  anot_metrics_add (self, group, anot_result_get_gold_rank (result));
}

/**
 * anot_metrics_get_unscored:
 * @self: an #AnotMetrics
 *
 * Returns: the requests left out of the metrics because the infrastructure
 *   failed them (added with anot_metrics_add_result()); not in
 *   [property@Anot.Metrics:total].  Metrics with any are incomplete.
 */
guint
anot_metrics_get_unscored (AnotMetrics *self)
{
  g_return_val_if_fail (ANOT_IS_METRICS (self), 0);
  return self->unscored;
}

/**
 * anot_metrics_get_shrunk_share:
 * @self: an #AnotMetrics
 *
 * Returns: the fraction of the scored requests whose prompts the method
 *   shrank to fit the model's context window (0.0 when none were added)
 */
double
anot_metrics_get_shrunk_share (AnotMetrics *self)
{
  g_return_val_if_fail (ANOT_IS_METRICS (self), 0.0);
  return self->total > 0 ? (double) self->shrunk / self->total : 0.0;
}

/**
 * anot_metrics_get_dropped_share:
 * @self: an #AnotMetrics
 *
 * Returns: the mean over the scored requests of the share of reviews left
 *   out of their prompts to fit the context window (0 for a request whose
 *   prompts were not shrunk; 0.0 when none were added)
 */
double
anot_metrics_get_dropped_share (AnotMetrics *self)
{
  g_return_val_if_fail (ANOT_IS_METRICS (self), 0.0);
  return self->total > 0 ? self->dropped_share_sum / self->total : 0.0;
}

/**
 * anot_metrics_get_k:
 * @self: an #AnotMetrics
 *
 * Returns: the number of predictions kept per request
 */
guint
anot_metrics_get_k (AnotMetrics *self)
{
  g_return_val_if_fail (ANOT_IS_METRICS (self), 0);
  return self->k;
}

/**
 * anot_metrics_get_total:
 * @self: an #AnotMetrics
 *
 * Returns: the number of requests added
 */
guint
anot_metrics_get_total (AnotMetrics *self)
{
  g_return_val_if_fail (ANOT_IS_METRICS (self), 0);
  return self->total;
}

/**
 * anot_metrics_get_hits:
 * @self: an #AnotMetrics
 * @at: j of Hits@j, between 1 and [property@Anot.Metrics:k]
 *
 * Returns: the number of requests whose gold is among the first @at
 *   predictions
 */
guint
anot_metrics_get_hits (AnotMetrics *self,
                       guint        at)
{
  g_return_val_if_fail (ANOT_IS_METRICS (self), 0);
  g_return_val_if_fail (at >= 1 && at <= self->k, 0);
  return self->hits[at - 1];
}

/**
 * anot_metrics_get_hits_at:
 * @self: an #AnotMetrics
 * @at: j of Hits@j, between 1 and [property@Anot.Metrics:k]
 *
 * Returns: Hits@@at as a fraction of the requests added (0.0 when none
 *   were added)
 */
double
anot_metrics_get_hits_at (AnotMetrics *self,
                          guint        at)
{
  g_return_val_if_fail (ANOT_IS_METRICS (self), 0.0);
  g_return_val_if_fail (at >= 1 && at <= self->k, 0.0);

  if (self->total == 0)
    return 0.0;
  return (double) self->hits[at - 1] / self->total;
}

/**
 * anot_metrics_get_mrr:
 * @self: an #AnotMetrics
 *
 * Returns: the mean reciprocal rank (0.0 when no request was added)
 */
double
anot_metrics_get_mrr (AnotMetrics *self)
{
  g_return_val_if_fail (ANOT_IS_METRICS (self), 0.0);

  if (self->total == 0)
    return 0.0;
  return self->reciprocal_sum / self->total;
}

static int
compare_strv_entries (gconstpointer a,
                      gconstpointer b)
{
  return strcmp (*(const char * const *) a, *(const char * const *) b);
}

/**
 * anot_metrics_list_groups:
 * @self: an #AnotMetrics
 *
 * Returns: (transfer full) (array zero-terminated=1): the names of the
 *   groups that have at least one request, sorted
 */
char **
anot_metrics_list_groups (AnotMetrics *self)
{
  GPtrArray *names;
  GHashTableIter iter;
  gpointer key;

  g_return_val_if_fail (ANOT_IS_METRICS (self), NULL);

  names = g_ptr_array_new ();
  g_hash_table_iter_init (&iter, self->groups);
  while (g_hash_table_iter_next (&iter, &key, NULL))
    g_ptr_array_add (names, g_strdup (key));
  g_ptr_array_sort (names, compare_strv_entries);
  g_ptr_array_add (names, NULL);

  return (char **) g_ptr_array_free (names, FALSE);
}

/**
 * anot_metrics_get_group:
 * @self: an #AnotMetrics
 * @group: a group name
 *
 * Returns: (transfer none) (nullable): the metrics of the requests of
 *   @group, or %NULL when no request of that group was added
 */
AnotMetrics *
anot_metrics_get_group (AnotMetrics *self,
                        const char  *group)
{
  g_return_val_if_fail (ANOT_IS_METRICS (self), NULL);
  g_return_val_if_fail (group != NULL, NULL);

  return g_hash_table_lookup (self->groups, group);
}

static void
metrics_build_json (AnotMetrics *self,
                    JsonBuilder *builder,
                    gboolean     with_groups)
{
  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "total");
  json_builder_add_int_value (builder, self->total);
  json_builder_set_member_name (builder, "k");
  json_builder_add_int_value (builder, self->k);
  json_builder_set_member_name (builder, "hits_at");
  json_builder_begin_object (builder);
  for (guint j = 1; j <= self->k; j++)
    {
      char key[16];

      g_snprintf (key, sizeof key, "%u", j);
      json_builder_set_member_name (builder, key);
      json_builder_begin_object (builder);
      json_builder_set_member_name (builder, "hits");
      json_builder_add_int_value (builder, self->hits[j - 1]);
      json_builder_set_member_name (builder, "accuracy");
      json_builder_add_double_value (builder, anot_metrics_get_hits_at (self, j));
      json_builder_end_object (builder);
    }
  json_builder_end_object (builder);
  json_builder_set_member_name (builder, "mrr");
  json_builder_add_double_value (builder, anot_metrics_get_mrr (self));
  /* Only when there is something to say, so complete runs' files keep
   * the original's schema. */
  if (self->unscored > 0)
    {
      json_builder_set_member_name (builder, "unscored");
      json_builder_add_int_value (builder, self->unscored);
    }
  if (self->shrunk > 0)
    {
      json_builder_set_member_name (builder, "context_fit");
      json_builder_begin_object (builder);
      json_builder_set_member_name (builder, "shrunk");
      json_builder_add_double_value (builder, anot_metrics_get_shrunk_share (self));
      json_builder_set_member_name (builder, "reviews_dropped");
      json_builder_add_double_value (builder, anot_metrics_get_dropped_share (self));
      json_builder_end_object (builder);
    }

  if (with_groups)
    {
      g_auto(GStrv) names = anot_metrics_list_groups (self);

      json_builder_set_member_name (builder, "groups");
      json_builder_begin_object (builder);
      for (guint i = 0; names[i] != NULL; i++)
        {
          json_builder_set_member_name (builder, names[i]);
          metrics_build_json (g_hash_table_lookup (self->groups, names[i]), builder, FALSE);
        }
      json_builder_end_object (builder);
    }

  json_builder_end_object (builder);
}

/**
 * anot_metrics_to_json:
 * @self: an #AnotMetrics
 *
 * Serialises the metrics in the schema of the `stats` object of the
 * original framework's `config.json`,
 * `{"total", "k", "hits_at": {"1": {"hits", "accuracy"}, ...}}`, with two
 * additions: `"mrr"` and `"groups"`, which maps each group name to an
 * object of the same schema (without `groups`).
 *
 * Returns: (transfer full): a JSON object node
 */
JsonNode *
anot_metrics_to_json (AnotMetrics *self)
{
  g_autoptr(JsonBuilder) builder = NULL;

  g_return_val_if_fail (ANOT_IS_METRICS (self), NULL);

  builder = json_builder_new ();
  metrics_build_json (self, builder, TRUE);

  return json_builder_get_root (builder);
}

/**
 * anot_stats_mean_std:
 * @values: (array length=n_values) (nullable): the values
 * @n_values: the number of values
 * @out_mean: (out) (optional): the arithmetic mean
 * @out_std: (out) (optional): the sample standard deviation (divisor
 *   n − 1); 0.0 for a single value
 *
 * Computes the mean and the sample standard deviation, the way the
 * original framework aggregates repeated runs (Python's
 * `statistics.mean` / `statistics.stdev`).
 *
 * Returns: %FALSE (and zeros) when @n_values is 0
 */
gboolean
anot_stats_mean_std (const double *values,
                     gsize         n_values,
                     double       *out_mean,
                     double       *out_std)
{
  double mean = 0.0, std = 0.0;

  g_return_val_if_fail (values != NULL || n_values == 0, FALSE);

  if (n_values > 0)
    {
      double sum = 0.0;

      for (gsize i = 0; i < n_values; i++)
        sum += values[i];
      mean = sum / n_values;

      if (n_values > 1)
        {
          double squares = 0.0;

          /* Two passes: the single-pass formula loses precision when the
           * values are close to each other, which is the usual case. */
          for (gsize i = 0; i < n_values; i++)
            squares += (values[i] - mean) * (values[i] - mean);
          std = sqrt (squares / (n_values - 1));
        }
    }

  if (out_mean)
    *out_mean = mean;
  if (out_std)
    *out_std = std;

  return n_values > 0;
}

void
_anot_json_add_mean_std (JsonBuilder *builder,
                         GArray      *values)
{
  double mean, std;

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

/* Adds the "hits_at" and "mrr" members of one level (overall or one group),
 * over the runs that have it, to the object being built. */
static void
summarize_level (JsonBuilder *builder,
                 GPtrArray   *runs,
                 const char  *group,
                 guint        k)
{
  g_autoptr(GArray) values = g_array_new (FALSE, FALSE, sizeof (double));

  json_builder_set_member_name (builder, "hits_at");
  json_builder_begin_object (builder);
  for (guint j = 1; j <= k; j++)
    {
      char key[16];

      g_array_set_size (values, 0);
      for (guint r = 0; r < runs->len; r++)
        {
          AnotMetrics *m = g_ptr_array_index (runs, r);

          if (group != NULL)
            m = g_hash_table_lookup (m->groups, group);
          if (m != NULL)
            {
              double v = anot_metrics_get_hits_at (m, j);
              g_array_append_val (values, v);
            }
        }
      g_snprintf (key, sizeof key, "%u", j);
      json_builder_set_member_name (builder, key);
      _anot_json_add_mean_std (builder, values);
    }
  json_builder_end_object (builder);

  g_array_set_size (values, 0);
  for (guint r = 0; r < runs->len; r++)
    {
      AnotMetrics *m = g_ptr_array_index (runs, r);

      if (group != NULL)
        m = g_hash_table_lookup (m->groups, group);
      if (m != NULL)
        {
          double v = anot_metrics_get_mrr (m);
          g_array_append_val (values, v);
        }
    }
  json_builder_set_member_name (builder, "mrr");
  _anot_json_add_mean_std (builder, values);

  {
    guint unscored = 0, shrunk = 0;
    double shrunk_sum = 0.0, dropped_sum = 0.0;
    guint n_runs = 0;

    for (guint r = 0; r < runs->len; r++)
      {
        AnotMetrics *m = g_ptr_array_index (runs, r);

        if (group != NULL)
          m = g_hash_table_lookup (m->groups, group);
        if (m == NULL)
          continue;
        unscored += m->unscored;
        shrunk += m->shrunk;
        shrunk_sum += anot_metrics_get_shrunk_share (m);
        dropped_sum += anot_metrics_get_dropped_share (m);
        n_runs++;
      }
    if (unscored > 0)
      {
        json_builder_set_member_name (builder, "unscored");
        json_builder_add_int_value (builder, unscored);
      }
    if (shrunk > 0)
      {
        json_builder_set_member_name (builder, "context_fit");
        json_builder_begin_object (builder);
        json_builder_set_member_name (builder, "shrunk");
        json_builder_add_double_value (builder, shrunk_sum / n_runs);
        json_builder_set_member_name (builder, "reviews_dropped");
        json_builder_add_double_value (builder, dropped_sum / n_runs);
        json_builder_end_object (builder);
      }
  }
}

/**
 * anot_metrics_summarize_runs:
 * @runs: (element-type Anot.Metrics): the metrics of repeated runs
 *
 * Aggregates repeated runs: for every Hits@j and for MRR, the mean, the
 * sample standard deviation and the per-run values, overall and per group:
 *
 * |[
 * {"runs": 3, "k": 5,
 *  "hits_at": {"1": {"mean": 0.4, "std": 0.1, "values": [0.3, 0.4, 0.5]}, ...},
 *  "mrr": {"mean": ..., "std": ..., "values": [...]},
 *  "groups": {"G01": {"hits_at": {...}, "mrr": {...}}, ...}}
 * ]|
 *
 * `k` is the smallest k of the runs.  A group missing from a run is left out
 * of that group's values.
 *
 * Returns: (transfer full): a JSON object node
 */
JsonNode *
anot_metrics_summarize_runs (GPtrArray *runs)
{
  g_autoptr(JsonBuilder) builder = NULL;
  g_autoptr(GHashTable) all_groups = NULL;
  g_autofree const char **group_names = NULL;
  guint n_groups = 0;
  guint k = 0;

  g_return_val_if_fail (runs != NULL, NULL);

  all_groups = g_hash_table_new (g_str_hash, g_str_equal);
  for (guint r = 0; r < runs->len; r++)
    {
      AnotMetrics *m = g_ptr_array_index (runs, r);
      GHashTableIter iter;
      gpointer key;

      g_return_val_if_fail (ANOT_IS_METRICS (m), NULL);

      if (k == 0 || m->k < k)
        k = m->k;
      g_hash_table_iter_init (&iter, m->groups);
      while (g_hash_table_iter_next (&iter, &key, NULL))
        g_hash_table_add (all_groups, key);
    }

  builder = json_builder_new ();
  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "runs");
  json_builder_add_int_value (builder, runs->len);
  json_builder_set_member_name (builder, "k");
  json_builder_add_int_value (builder, k);

  summarize_level (builder, runs, NULL, k);

  json_builder_set_member_name (builder, "groups");
  json_builder_begin_object (builder);
  group_names = (const char **) g_hash_table_get_keys_as_array (all_groups, &n_groups);
  qsort (group_names, n_groups, sizeof (char *), compare_strv_entries);
  for (guint i = 0; i < n_groups; i++)
    {
      json_builder_set_member_name (builder, group_names[i]);
      json_builder_begin_object (builder);
      summarize_level (builder, runs, group_names[i], k);
      json_builder_end_object (builder);
    }
  json_builder_end_object (builder);

  json_builder_end_object (builder);

  return json_builder_get_root (builder);
}
