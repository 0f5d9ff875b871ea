/* anot-ranking.c: what a method returns
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "anot-ranking.h"

#include <math.h>
#include <stdlib.h>

/**
 * AnotRanking:
 *
 * An ordered list of candidate positions, best first, each with a score,
 * plus the method's raw response and a JSON trace of what it did.
 *
 * Positions are indices into the candidates array the method was given (the
 * order the method saw), not into the dataset.  A ranking may hold fewer
 * entries than there were candidates: a method that could only parse three
 * indices out of a model's answer returns three.
 */

typedef struct
{
  guint index;
  double score;
} RankEntry;

struct _AnotRanking
{
  GObject parent_instance;

  GArray *entries; /* RankEntry, best first */
  char *raw_response;
  char *cut_by;
  JsonNode *trace;
};

G_DEFINE_FINAL_TYPE (AnotRanking, anot_ranking, G_TYPE_OBJECT)

enum {
  PROP_0,
  PROP_LENGTH,
  PROP_RAW_RESPONSE,
  PROP_TRACE,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

static void
anot_ranking_finalize (GObject *object)
{
  AnotRanking *self = ANOT_RANKING (object);

  g_array_unref (self->entries);
  g_free (self->raw_response);
  g_free (self->cut_by);
  g_clear_pointer (&self->trace, json_node_unref);

  G_OBJECT_CLASS (anot_ranking_parent_class)->finalize (object);
}

static void
anot_ranking_get_property (GObject    *object,
                           guint       prop_id,
                           GValue     *value,
                           GParamSpec *pspec)
{
  AnotRanking *self = ANOT_RANKING (object);

  switch (prop_id)
    {
    case PROP_LENGTH:
      g_value_set_uint (value, self->entries->len);
      break;
    case PROP_RAW_RESPONSE:
      g_value_set_string (value, self->raw_response);
      break;
    case PROP_TRACE:
      g_value_set_boxed (value, self->trace);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
anot_ranking_set_property (GObject      *object,
                           guint         prop_id,
                           const GValue *value,
                           GParamSpec   *pspec)
{
  AnotRanking *self = ANOT_RANKING (object);

  switch (prop_id)
    {
    case PROP_RAW_RESPONSE:
      anot_ranking_set_raw_response (self, g_value_get_string (value));
      break;
    case PROP_TRACE:
      anot_ranking_set_trace (self, g_value_get_boxed (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
anot_ranking_class_init (AnotRankingClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = anot_ranking_finalize;
  object_class->get_property = anot_ranking_get_property;
  object_class->set_property = anot_ranking_set_property;

  /**
   * AnotRanking:length:
   *
   * Number of ranked positions.
   */
  properties[PROP_LENGTH] =
    g_param_spec_uint ("length", NULL, NULL, 0, G_MAXUINT, 0,
                       G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  /**
   * AnotRanking:raw-response:
   *
   * The method's raw output (for LLM methods, the model's text), kept for
   * the results file.
   */
  properties[PROP_RAW_RESPONSE] =
    g_param_spec_string ("raw-response", NULL, NULL, NULL,
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  /**
   * AnotRanking:trace:
   *
   * A JSON document describing what the method did for this request.
   */
  properties[PROP_TRACE] =
    g_param_spec_boxed ("trace", NULL, NULL, JSON_TYPE_NODE,
                        G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);

  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
anot_ranking_init (AnotRanking *self)
{
  self->entries = g_array_new (FALSE, FALSE, sizeof (RankEntry));
}

/**
 * anot_ranking_new:
 *
 * Returns: (transfer full): an empty ranking
 */
AnotRanking *
anot_ranking_new (void)
{
  return g_object_new (ANOT_TYPE_RANKING, NULL);
}

static int
compare_entries (gconstpointer a,
                 gconstpointer b)
{
  const RankEntry *ea = a;
  const RankEntry *eb = b;

  if (ea->score > eb->score)
    return -1;
  if (ea->score < eb->score)
    return 1;
  return (ea->index > eb->index) - (ea->index < eb->index);
}

/**
 * anot_ranking_new_from_scores:
 * @scores: (array length=n_scores): one score per candidate position
 * @n_scores: the number of candidates
 *
 * Ranks every position by score, highest first; ties (and NaN scores, which
 * sort last) are broken by the lower position.
 *
 * Returns: (transfer full): a ranking of all @n_scores positions
 */
AnotRanking *
anot_ranking_new_from_scores (const double *scores,
                              guint         n_scores)
{
  AnotRanking *self;

  g_return_val_if_fail (scores != NULL || n_scores == 0, NULL);

  self = anot_ranking_new ();
  for (guint i = 0; i < n_scores; i++)
    {
      RankEntry entry = { i, isnan (scores[i]) ? -INFINITY : scores[i] };
      g_array_append_val (self->entries, entry);
    }
  g_array_sort (self->entries, compare_entries);
  return self;
}

/**
 * anot_ranking_append:
 * @self: an #AnotRanking
 * @index: a candidate position
 * @score: its score
 *
 * Appends @index as the next-best position.  A position already in the
 * ranking is ignored, so methods can append parsed indices as they come.
 */
void
anot_ranking_append (AnotRanking *self,
                     guint        index,
                     double       score)
{
  RankEntry entry = { index, score };

  g_return_if_fail (ANOT_IS_RANKING (self));

  for (guint i = 0; i < self->entries->len; i++)
    if (g_array_index (self->entries, RankEntry, i).index == index)
      return;

  g_array_append_val (self->entries, entry);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_LENGTH]);
}

/**
 * anot_ranking_get_length:
 * @self: an #AnotRanking
 *
 * Returns: the number of ranked positions
 */
guint
anot_ranking_get_length (AnotRanking *self)
{
  g_return_val_if_fail (ANOT_IS_RANKING (self), 0);
  return self->entries->len;
}

/**
 * anot_ranking_get_index:
 * @self: an #AnotRanking
 * @rank: 0-based rank (0 is the best)
 *
 * Returns: the candidate position at @rank
 */
guint
anot_ranking_get_index (AnotRanking *self,
                        guint        rank)
{
  g_return_val_if_fail (ANOT_IS_RANKING (self), 0);
  g_return_val_if_fail (rank < self->entries->len, 0);
  return g_array_index (self->entries, RankEntry, rank).index;
}

/**
 * anot_ranking_get_score:
 * @self: an #AnotRanking
 * @rank: 0-based rank (0 is the best)
 *
 * Returns: the score of the candidate at @rank
 */
double
anot_ranking_get_score (AnotRanking *self,
                        guint        rank)
{
  g_return_val_if_fail (ANOT_IS_RANKING (self), 0);
  g_return_val_if_fail (rank < self->entries->len, 0);
  return g_array_index (self->entries, RankEntry, rank).score;
}

/**
 * anot_ranking_get_raw_response:
 * @self: an #AnotRanking
 *
 * Returns: (nullable): the method's raw output
 */
const char *
anot_ranking_get_raw_response (AnotRanking *self)
{
  g_return_val_if_fail (ANOT_IS_RANKING (self), NULL);
  return self->raw_response;
}

/**
 * anot_ranking_set_raw_response:
 * @self: an #AnotRanking
 * @raw_response: (nullable): the method's raw output
 *
 * Sets [property@Anot.Ranking:raw-response].
 */
void
anot_ranking_set_raw_response (AnotRanking *self,
                               const char  *raw_response)
{
  g_return_if_fail (ANOT_IS_RANKING (self));

  if (g_strcmp0 (self->raw_response, raw_response) == 0)
    return;
  g_free (self->raw_response);
  self->raw_response = g_strdup (raw_response);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_RAW_RESPONSE]);
}

/**
 * anot_ranking_get_cut_by:
 * @self: an #AnotRanking
 *
 * Returns: (nullable): the limit that cut the method short, as
 *   anot_ranking_set_cut_by() gave it, or %NULL
 */
const char *
anot_ranking_get_cut_by (AnotRanking *self)
{
  g_return_val_if_fail (ANOT_IS_RANKING (self), NULL);
  return self->cut_by;
}

/**
 * anot_ranking_set_cut_by:
 * @self: an #AnotRanking
 * @limit: (nullable): the limit, e.g. `lats.timeout=300 s`
 *
 * Says that a limit which depends on something else than the request
 * (a wall clock, whose reach depends on the provider's latency) stopped
 * the method before it finished.  The experiment writes it as `cut_by` in
 * the request's row of `results_<N>.jsonl`, so that such rows can be told
 * from the others.
 */
void
anot_ranking_set_cut_by (AnotRanking *self,
                         const char  *limit)
{
  g_return_if_fail (ANOT_IS_RANKING (self));

  g_free (self->cut_by);
  self->cut_by = g_strdup (limit);
}

/**
 * anot_ranking_get_trace:
 * @self: an #AnotRanking
 *
 * Returns: (nullable) (transfer none): the method's trace
 */
JsonNode *
anot_ranking_get_trace (AnotRanking *self)
{
  g_return_val_if_fail (ANOT_IS_RANKING (self), NULL);
  return self->trace;
}

/**
 * anot_ranking_set_trace:
 * @self: an #AnotRanking
 * @trace: (nullable) (transfer none): a JSON trace
 *
 * Sets [property@Anot.Ranking:trace]; the ranking keeps a reference.
 */
void
anot_ranking_set_trace (AnotRanking *self,
                        JsonNode    *trace)
{
  g_return_if_fail (ANOT_IS_RANKING (self));

  if (self->trace == trace)
    return;
  g_clear_pointer (&self->trace, json_node_unref);
  if (trace != NULL)
    self->trace = json_node_ref (trace);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_TRACE]);
}
