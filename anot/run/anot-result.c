/* anot-result.c: the outcome of ranking one request
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "anot-result.h"

#include "anot-enum-types.h"
#include "anot-error.h"
#include "anot-results-writer-private.h"
#include "anot-usage-private.h"

#include <string.h>

/**
 * AnotResult:
 *
 * What happened to one request in one run at one N: the method's
 * predictions in both orders, where the gold was, the gold's rank, the
 * LLM usage attributed to the request and the error, if the method failed.
 *
 * [method@Anot.Result.to_json] writes one row of `results_<N>.jsonl` in the
 * original framework's schema — `request_id`, `pred_indices` (1-based, pool
 * order), `shuffled_preds` (1-based, the order the method saw), `gold_idx`
 * (0-based, pool order), `shuffled_gold_pos` (1-based), `gold_restaurant`,
 * `prompt_tokens`, `completion_tokens`, `tokens`, `cost_usd`, `latency_ms`,
 * `raw_response` and `error` — plus `group`, `gold_rank`, `calls`,
 * `retries`, `by_model` and `by_role`, and `uses_truth` (only on the rows of
 * a method that ranks by the truth, see %ANOT_PLUGIN_NEEDS_TRUTH),
 * `error_class` beside `error` (see [method@Anot.Result.get_error_class]) and
 * `context_fit` when a prompt was shrunk to the model's context window (see
 * [method@Anot.Result.get_context_fit]), and `cut_by` (only on the rows a
 * wall-clock limit cut short, see anot_ranking_set_cut_by()).
 */

struct _AnotResult
{
  GObject parent_instance;

  char *request_id;
  char *group;
  guint n_candidates;
  guint run;
  GArray *pred_indices;     /* guint, 1-based, pool order */
  GArray *shuffled_preds;   /* guint, 1-based, shuffled order */
  guint gold_idx;           /* 0-based; G_MAXUINT when unknown */
  guint shuffled_gold_pos;  /* 1-based; 0 when unknown */
  char *gold_item_id;
  guint gold_rank;
  AnotUsage *usage;
  char *raw_response;
  char *cut_by;
  char *error_message;
  const char *error_class;  /* static: "method", "infrastructure", or NULL */
  gboolean uses_truth;
  char *top1_item;              /* NULL when nothing was ranked first */
  JsonObject *top1_conditions;  /* key → 1, 0, -1; NULL when not known */
  JsonObject *gold_conditions;
  JsonObject *condition_kinds;  /* key → evidence kind */
  JsonArray *top1_failed;       /* keys of the conditions the first item fails */
  gboolean has_context_fit;
  guint reviews_dropped, reviews, calls_fitted;
};

G_DEFINE_FINAL_TYPE (AnotResult, anot_result, G_TYPE_OBJECT)

enum {
  PROP_0,
  PROP_REQUEST_ID,
  PROP_GROUP,
  PROP_N_CANDIDATES,
  PROP_RUN,
  PROP_GOLD_IDX,
  PROP_SHUFFLED_GOLD_POS,
  PROP_GOLD_ITEM_ID,
  PROP_GOLD_RANK,
  PROP_USAGE,
  PROP_RAW_RESPONSE,
  PROP_ERROR_MESSAGE,
  PROP_USES_TRUTH,
  PROP_TOP1_ITEM,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

static void
anot_result_finalize (GObject *object)
{
  AnotResult *self = ANOT_RESULT (object);

  g_free (self->request_id);
  g_free (self->group);
  g_array_unref (self->pred_indices);
  g_array_unref (self->shuffled_preds);
  g_free (self->gold_item_id);
  g_clear_object (&self->usage);
  g_free (self->raw_response);
  g_free (self->cut_by);
  g_free (self->error_message);
  g_free (self->top1_item);
  g_clear_pointer (&self->top1_conditions, json_object_unref);
  g_clear_pointer (&self->gold_conditions, json_object_unref);
  g_clear_pointer (&self->condition_kinds, json_object_unref);
  g_clear_pointer (&self->top1_failed, json_array_unref);

  G_OBJECT_CLASS (anot_result_parent_class)->finalize (object);
}

static void
anot_result_get_property (GObject    *object,
                          guint       prop_id,
                          GValue     *value,
                          GParamSpec *pspec)
{
  AnotResult *self = ANOT_RESULT (object);

  switch (prop_id)
    {
    case PROP_REQUEST_ID:
      g_value_set_string (value, self->request_id);
      break;
    case PROP_GROUP:
      g_value_set_string (value, self->group);
      break;
    case PROP_N_CANDIDATES:
      g_value_set_uint (value, self->n_candidates);
      break;
    case PROP_RUN:
      g_value_set_uint (value, self->run);
      break;
    case PROP_GOLD_IDX:
      g_value_set_uint (value, self->gold_idx);
      break;
    case PROP_SHUFFLED_GOLD_POS:
      g_value_set_uint (value, self->shuffled_gold_pos);
      break;
    case PROP_GOLD_ITEM_ID:
      g_value_set_string (value, self->gold_item_id);
      break;
    case PROP_GOLD_RANK:
      g_value_set_uint (value, self->gold_rank);
      break;
    case PROP_USAGE:
      g_value_set_object (value, self->usage);
      break;
    case PROP_RAW_RESPONSE:
      g_value_set_string (value, self->raw_response);
      break;
    case PROP_ERROR_MESSAGE:
      g_value_set_string (value, self->error_message);
      break;
    case PROP_USES_TRUTH:
      g_value_set_boolean (value, self->uses_truth);
      break;
    case PROP_TOP1_ITEM:
      g_value_set_string (value, self->top1_item);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
anot_result_class_init (AnotResultClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = anot_result_finalize;
  object_class->get_property = anot_result_get_property;

  /**
   * AnotResult:request-id:
   *
   * The request id, e.g. `R07`.
   */
  properties[PROP_REQUEST_ID] =
    g_param_spec_string ("request-id", NULL, NULL, NULL,
                         G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  /**
   * AnotResult:group:
   *
   * The request's group, e.g. `G03`, or %NULL when unknown.
   */
  properties[PROP_GROUP] =
    g_param_spec_string ("group", NULL, NULL, NULL,
                         G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  /**
   * AnotResult:n-candidates:
   *
   * N, the size of the candidate pool (0 when unknown).
   */
  properties[PROP_N_CANDIDATES] =
    g_param_spec_uint ("n-candidates", NULL, NULL, 0, G_MAXUINT, 0,
                       G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  /**
   * AnotResult:run:
   *
   * The 1-based run number (0 when unknown).
   */
  properties[PROP_RUN] =
    g_param_spec_uint ("run", NULL, NULL, 0, G_MAXUINT, 0,
                       G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  /**
   * AnotResult:gold-idx:
   *
   * The 0-based position of the gold item in pool order (%G_MAXUINT when
   * the gold was not in the pool, which only old results have).
   */
  properties[PROP_GOLD_IDX] =
    g_param_spec_uint ("gold-idx", NULL, NULL, 0, G_MAXUINT, 0,
                       G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  /**
   * AnotResult:shuffled-gold-pos:
   *
   * The 1-based position of the gold item in the order the method saw
   * (0 when unknown).
   */
  properties[PROP_SHUFFLED_GOLD_POS] =
    g_param_spec_uint ("shuffled-gold-pos", NULL, NULL, 0, G_MAXUINT, 0,
                       G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  /**
   * AnotResult:gold-item-id:
   *
   * The id of the gold item.
   */
  properties[PROP_GOLD_ITEM_ID] =
    g_param_spec_string ("gold-item-id", NULL, NULL, NULL,
                         G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  /**
   * AnotResult:gold-rank:
   *
   * The 1-based rank of the gold among the predictions, 0 when absent.
   */
  properties[PROP_GOLD_RANK] =
    g_param_spec_uint ("gold-rank", NULL, NULL, 0, G_MAXUINT, 0,
                       G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  /**
   * AnotResult:usage:
   *
   * The LLM usage of the request.
   */
  properties[PROP_USAGE] =
    g_param_spec_object ("usage", NULL, NULL, ANOT_TYPE_USAGE,
                         G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  /**
   * AnotResult:raw-response:
   *
   * What the method returned as text, or %NULL.
   */
  properties[PROP_RAW_RESPONSE] =
    g_param_spec_string ("raw-response", NULL, NULL, NULL,
                         G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  /**
   * AnotResult:error-message:
   *
   * `"<domain>-<code>: <message>"` when the method failed, else %NULL.
   */
  properties[PROP_ERROR_MESSAGE] =
    g_param_spec_string ("error-message", NULL, NULL, NULL,
                         G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  /**
   * AnotResult:uses-truth:
   *
   * Whether the method that ranked was handed the request's truth (it was
   * registered with %ANOT_PLUGIN_NEEDS_TRUTH, like the `oracle`): such a
   * row is a check of the harness, never a method's result.
   */
  properties[PROP_USES_TRUTH] =
    g_param_spec_boolean ("uses-truth", NULL, NULL, FALSE,
                          G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);

  /**
   * AnotResult:top1-item:
   *
   * The id of the item the method ranked first, or %NULL when it ranked
   * nothing (it failed) or the row predates the field.
   */
  properties[PROP_TOP1_ITEM] =
    g_param_spec_string ("top1-item", NULL, NULL, NULL,
                         G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);

  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
anot_result_init (AnotResult *self)
{
  self->pred_indices = g_array_new (FALSE, FALSE, sizeof (guint));
  self->shuffled_preds = g_array_new (FALSE, FALSE, sizeof (guint));
  self->gold_idx = G_MAXUINT;
}

static void
result_update_gold_rank (AnotResult *self)
{
  self->gold_rank = 0;
  if (self->gold_idx == G_MAXUINT)
    return;
  for (guint i = 0; i < self->pred_indices->len; i++)
    if (g_array_index (self->pred_indices, guint, i) == self->gold_idx + 1)
      {
        self->gold_rank = i + 1;
        return;
      }
}

AnotResult *
anot_result_new_internal (const char  *request_id,
                          const char  *group,
                          guint        n_candidates,
                          guint        run,
                          const guint *pred_indices,
                          guint        n_pred_indices,
                          const guint *shuffled_preds,
                          guint        n_shuffled_preds,
                          guint        gold_idx,
                          guint        shuffled_gold_pos,
                          const char  *gold_item_id,
                          AnotUsage   *usage,
                          const char  *raw_response,
                          const char  *error_message)
{
  AnotResult *self = g_object_new (ANOT_TYPE_RESULT, NULL);

  self->request_id = g_strdup (request_id);
  self->group = g_strdup (group);
  self->n_candidates = n_candidates;
  self->run = run;
  if (n_pred_indices)
    g_array_append_vals (self->pred_indices, pred_indices, n_pred_indices);
  if (n_shuffled_preds)
    g_array_append_vals (self->shuffled_preds, shuffled_preds, n_shuffled_preds);
  self->gold_idx = gold_idx;
  self->shuffled_gold_pos = shuffled_gold_pos;
  self->gold_item_id = g_strdup (gold_item_id);
  self->usage = usage ? g_object_ref (usage) : anot_usage_new ();
  self->raw_response = g_strdup (raw_response);
  self->error_message = g_strdup (error_message);
  result_update_gold_rank (self);

  return self;
}

void
anot_result_set_cut_by (AnotResult *self,
                        const char *limit)
{
  g_return_if_fail (ANOT_IS_RESULT (self));
  g_free (self->cut_by);
  self->cut_by = g_strdup (limit);
}

void
anot_result_set_uses_truth (AnotResult *self,
                            gboolean    uses_truth)
{
  g_return_if_fail (ANOT_IS_RESULT (self));
  self->uses_truth = uses_truth;
}

static JsonObject *
verdict_leaves (AnotVerdict *verdict,
                gboolean     kinds)
{
  JsonObject *object = json_object_new ();

  for (guint l = 0; l < anot_verdict_get_n_leaves (verdict); l++)
    {
      g_autofree char *key = anot_verdict_get_leaf_key (verdict, l);

      if (kinds)
        {
          AnotCondition *leaf = anot_verdict_get_leaf (verdict, l);
          const char *kind = anot_evidence_kind_to_string (anot_condition_get_evidence_kind (leaf));

          json_object_set_string_member (object, key, kind != NULL ? kind : "unknown");
        }
      else
        json_object_set_int_member (object, key, anot_verdict_get_leaf_truth (verdict, l));
    }
  return object;
}

/* Collects the keys of the leaves whose verdict makes @node fail, and
 * returns @node's truth.  A leaf fails when it is -1 (+1 under an odd
 * number of NOTs), unless a satisfied alternative excuses it: the failures
 * below an OR that holds (an AND under NOT that does not) are dropped, as
 * they cost the item nothing. */
static AnotTruth
collect_failed (AnotCondition *node,
                AnotVerdict   *verdict,
                guint         *leaf,
                int            polarity,
                JsonArray     *failed)
{
  AnotConditionOp op = anot_condition_get_op (node);
  guint mark = json_array_get_length (failed);
  int truth;

  if (op == ANOT_CONDITION_OP_LEAF)
    {
      truth = anot_verdict_get_leaf_truth (verdict, *leaf);
      if (polarity * truth == -1)
        {
          g_autofree char *key = anot_verdict_get_leaf_key (verdict, *leaf);

          json_array_add_string_element (failed, key);
        }
      (*leaf)++;
      return truth;
    }
  if (op == ANOT_CONDITION_OP_NOT)
    truth = anot_condition_get_n_children (node) > 0
            ? -(int) collect_failed (anot_condition_get_child (node, 0), verdict, leaf, -polarity, failed)
            : ANOT_TRUTH_UNKNOWN;
  else
    {
      /* Kleene: AND is the minimum of -1 < 0 < 1, OR the maximum. */
      truth = op == ANOT_CONDITION_OP_AND ? ANOT_TRUTH_TRUE : ANOT_TRUTH_FALSE;
      for (guint i = 0; i < anot_condition_get_n_children (node); i++)
        {
          int child = collect_failed (anot_condition_get_child (node, i), verdict, leaf, polarity, failed);

          truth = op == ANOT_CONDITION_OP_AND ? MIN (truth, child) : MAX (truth, child);
        }
      if (polarity * truth == 1 &&
          ((op == ANOT_CONDITION_OP_OR) == (polarity > 0)))
        {
          while (json_array_get_length (failed) > mark)
            json_array_remove_element (failed, json_array_get_length (failed) - 1);
        }
    }
  return truth;
}

/* Decided on the clean items of the dataset, whatever an attack showed the
 * method: a miss is a miss against the truth, and the same item gets the
 * same verdicts under every attack (docs/reading-results.md). */
void
anot_result_explain (AnotResult    *self,
                     AnotValidator *validator,
                     AnotRequest   *request,
                     AnotItem      *top1,
                     AnotItem      *gold)
{
  g_return_if_fail (ANOT_IS_RESULT (self));
  g_return_if_fail (ANOT_IS_VALIDATOR (validator));
  g_return_if_fail (ANOT_IS_REQUEST (request));

  g_clear_pointer (&self->top1_item, g_free);
  g_clear_pointer (&self->top1_conditions, json_object_unref);
  g_clear_pointer (&self->gold_conditions, json_object_unref);
  g_clear_pointer (&self->condition_kinds, json_object_unref);
  g_clear_pointer (&self->top1_failed, json_array_unref);
  if (anot_request_get_structure (request) == NULL)
    return;
  if (top1 != NULL)
    {
      g_autoptr(AnotVerdict) verdict = anot_validator_explain (validator, request, top1);
      guint leaf = 0;

      self->top1_item = g_strdup (anot_item_get_id (top1));
      self->top1_conditions = verdict_leaves (verdict, FALSE);
      self->condition_kinds = verdict_leaves (verdict, TRUE);
      self->top1_failed = json_array_new ();
      collect_failed (anot_request_get_structure (request), verdict, &leaf, 1, self->top1_failed);
    }
  if (gold != NULL)
    {
      g_autoptr(AnotVerdict) verdict = anot_validator_explain (validator, request, gold);

      self->gold_conditions = verdict_leaves (verdict, FALSE);
      if (self->condition_kinds == NULL)
        self->condition_kinds = verdict_leaves (verdict, TRUE);
    }
}

void
anot_result_set_location (AnotResult *self,
                          guint       run,
                          guint       n_candidates)
{
  g_return_if_fail (ANOT_IS_RESULT (self));

  self->run = run;
  self->n_candidates = n_candidates;
}

/* The class of a row's error: from its code, which the row's "error"
 * starts with ("ANOT_ERROR_LLM_CONNECTION: ..."), for rows written before
 * "error_class" was. */
static const char *
error_class_of_message (const char *message)
{
  g_autoptr(GEnumClass) klass = NULL;
  g_autoptr(GError) error = NULL;
  const char *colon;
  GEnumValue *value;

  if (message == NULL)
    return NULL;
  colon = strchr (message, ':');
  if (colon != NULL)
    {
      g_autofree char *name = g_strndup (message, colon - message);

      klass = g_type_class_ref (ANOT_TYPE_ERROR);
      value = g_enum_get_value_by_name (klass, name);
      if (value != NULL)
        error = g_error_new_literal (ANOT_ERROR, value->value, "");
    }
  if (g_error_matches (error, ANOT_ERROR, ANOT_ERROR_BUDGET))
    return ANOT_RESULT_ERROR_CLASS_BUDGET;
  return anot_error_is_infrastructure (error) ? ANOT_RESULT_ERROR_CLASS_INFRASTRUCTURE
                                              : ANOT_RESULT_ERROR_CLASS_METHOD;
}

void
anot_result_set_error_class (AnotResult *self,
                             gboolean    infrastructure)
{
  g_return_if_fail (ANOT_IS_RESULT (self));
  g_return_if_fail (self->error_message != NULL);
  self->error_class = infrastructure ? ANOT_RESULT_ERROR_CLASS_INFRASTRUCTURE
                                     : ANOT_RESULT_ERROR_CLASS_METHOD;
}

/* A call of the request was not sent for the budget: whatever it ranked
 * is not the method's result. */
void
anot_result_set_budget_class (AnotResult *self)
{
  g_return_if_fail (ANOT_IS_RESULT (self));
  g_return_if_fail (self->error_message != NULL);
  self->error_class = ANOT_RESULT_ERROR_CLASS_BUDGET;
}

void
anot_result_set_context_fit (AnotResult *self,
                             guint       reviews_dropped,
                             guint       reviews,
                             guint       calls_fitted)
{
  g_return_if_fail (ANOT_IS_RESULT (self));
  self->has_context_fit = TRUE;
  self->reviews_dropped = reviews_dropped;
  self->reviews = reviews;
  self->calls_fitted = calls_fitted;
}

int
anot_result_compare_by_id (gconstpointer a,
                           gconstpointer b)
{
  const AnotResult *x = *(AnotResult * const *) a;
  const AnotResult *y = *(AnotResult * const *) b;

  /* Byte order, like Python's sorted() on the ids: R1, R10, R100, R11. */
  return strcmp (x->request_id, y->request_id);
}

static gboolean
read_uint_array (JsonObject  *row,
                 const char  *field,
                 GArray      *into,
                 GError     **error)
{
  JsonNode *node = json_object_get_member (row, field);
  JsonArray *array;

  if (node == NULL || JSON_NODE_HOLDS_NULL (node))
    return TRUE;
  if (!JSON_NODE_HOLDS_ARRAY (node))
    {
      g_set_error (error, ANOT_ERROR, ANOT_ERROR_INVALID_FIELD,
                   "field “%s”: expected an array of integers", field);
      return FALSE;
    }
  array = json_node_get_array (node);
  for (guint i = 0; i < json_array_get_length (array); i++)
    {
      JsonNode *element = json_array_get_element (array, i);
      gint64 v;

      if (!JSON_NODE_HOLDS_VALUE (element) ||
          json_node_get_value_type (element) != G_TYPE_INT64 ||
          (v = json_node_get_int (element)) < 1 || v > G_MAXUINT)
        {
          g_set_error (error, ANOT_ERROR, ANOT_ERROR_INVALID_FIELD,
                       "field “%s”: expected positive integers", field);
          return FALSE;
        }
      {
        guint u = (guint) v;
        g_array_append_val (into, u);
      }
    }
  return TRUE;
}

static gboolean
member_is_number (JsonObject *row,
                  const char *field)
{
  JsonNode *node = json_object_get_member (row, field);

  return node != NULL && JSON_NODE_HOLDS_VALUE (node) &&
         (json_node_get_value_type (node) == G_TYPE_INT64 ||
          json_node_get_value_type (node) == G_TYPE_DOUBLE);
}

static double
member_number (JsonObject *row,
               const char *field)
{
  if (!member_is_number (row, field))
    return 0.0;
  return json_node_get_double (json_object_get_member (row, field));
}

/* The calls of @m without a price: `unpriced_calls`, else all of @calls
 * (at least one) when `cost_usd` is null and nothing says how many. */
static guint64
member_unpriced (JsonObject *m,
                 guint64     calls)
{
  JsonNode *cost = json_object_get_member (m, "cost_usd");

  if (member_is_number (m, "unpriced_calls") && member_number (m, "unpriced_calls") > 0)
    return (guint64) member_number (m, "unpriced_calls");
  if (cost != NULL && JSON_NODE_HOLDS_NULL (cost))
    return MAX (calls, 1);
  return 0;
}

static const char *
member_string (JsonObject *row,
               const char *field)
{
  JsonNode *node = json_object_get_member (row, field);

  if (node == NULL || !JSON_NODE_HOLDS_VALUE (node) ||
      json_node_get_value_type (node) != G_TYPE_STRING)
    return NULL;
  return json_node_get_string (node);
}

typedef enum
{
  PARTITION_MODEL,
  PARTITION_ROLE,
  PARTITION_ENDPOINT,
} Partition;

static void
add_partition (AnotUsage  *usage,
               JsonObject *row,
               const char *member,
               Partition   partition)
{
  JsonNode *table = json_object_get_member (row, member);
  JsonObjectIter iter;
  const char *name;
  JsonNode *node;

  if (table == NULL || !JSON_NODE_HOLDS_OBJECT (table))
    return;
  json_object_iter_init (&iter, json_node_get_object (table));
  while (json_object_iter_next (&iter, &name, &node))
    {
      JsonObject *m;

      if (!JSON_NODE_HOLDS_OBJECT (node))
        continue;
      m = json_node_get_object (node);
      if (partition == PARTITION_ENDPOINT)
        anot_usage_add_endpoint_partial (usage, name,
                                         (guint64) member_number (m, "calls"),
                                         (guint64) member_number (m, "prompt_tokens"),
                                         (guint64) member_number (m, "completion_tokens"),
                                         member_number (m, "cost_usd"),
                                         member_unpriced (m, (guint64) member_number (m, "calls")),
                                         member_number (m, "latency_ms"),
                                         (guint64) member_number (m, "errors"));
      else
        anot_usage_add_partial (usage, partition == PARTITION_MODEL ? name : NULL,
                                partition == PARTITION_ROLE ? name : NULL,
                                (guint64) member_number (m, "calls"),
                                (guint64) member_number (m, "prompt_tokens"),
                                (guint64) member_number (m, "completion_tokens"),
                                member_number (m, "cost_usd"),
                                member_unpriced (m, (guint64) member_number (m, "calls")),
                                0.0,
                                (guint64) member_number (m, "retries"));
    }
}

static AnotUsage *
usage_from_row (JsonObject *row)
{
  AnotUsage *usage = anot_usage_new ();
  gint64 calls = member_is_number (row, "calls")
                 ? json_node_get_int (json_object_get_member (row, "calls")) : -1;

  if (calls > 0)
    {
      anot_usage_add_partial (usage, NULL, NULL, (guint64) calls,
                              (guint64) member_number (row, "prompt_tokens"),
                              (guint64) member_number (row, "completion_tokens"),
                              member_number (row, "cost_usd"),
                              member_unpriced (row, (guint64) calls),
                              member_number (row, "latency_ms"),
                              (guint64) member_number (row, "retries"));
      add_partition (usage, row, "by_model", PARTITION_MODEL);
      add_partition (usage, row, "by_role", PARTITION_ROLE);
      add_partition (usage, row, "by_endpoint", PARTITION_ENDPOINT);
    }
  else if (calls != 0 &&
           (member_number (row, "prompt_tokens") > 0 ||
            member_number (row, "completion_tokens") > 0 ||
            member_number (row, "cost_usd") > 0))
    {
      /* A row of the original framework: no call count, no model; one call
       * under the model "" as anot_usage_add_completion() would count it. */
      anot_usage_add_partial (usage, NULL, NULL, 1,
                              (guint64) member_number (row, "prompt_tokens"),
                              (guint64) member_number (row, "completion_tokens"),
                              member_number (row, "cost_usd"), member_unpriced (row, 1),
                              member_number (row, "latency_ms"), 0);
      anot_usage_add_partial (usage, "", NULL, 1,
                              (guint64) member_number (row, "prompt_tokens"),
                              (guint64) member_number (row, "completion_tokens"),
                              member_number (row, "cost_usd"), member_unpriced (row, 1),
                              member_number (row, "latency_ms"), 0);
    }

  return usage;
}

/* An object of condition keys to verdicts (1, 0, -1) or, with @kinds, to
 * evidence kind names; absent or null is no error (rows before anot 0.x). */
static gboolean
read_conditions (JsonObject  *row,
                 const char  *field,
                 gboolean     kinds,
                 JsonObject **out,
                 GError     **error)
{
  JsonNode *node = json_object_get_member (row, field);
  JsonObjectIter iter;
  const char *key;
  JsonNode *value;

  if (node == NULL || JSON_NODE_HOLDS_NULL (node))
    return TRUE;
  if (!JSON_NODE_HOLDS_OBJECT (node))
    {
      g_set_error (error, ANOT_ERROR, ANOT_ERROR_INVALID_FIELD,
                   "field “%s”: expected an object", field);
      return FALSE;
    }
  json_object_iter_init (&iter, json_node_get_object (node));
  while (json_object_iter_next (&iter, &key, &value))
    {
      gboolean ok = JSON_NODE_HOLDS_VALUE (value);

      if (ok && kinds)
        ok = json_node_get_value_type (value) == G_TYPE_STRING;
      else if (ok)
        ok = json_node_get_value_type (value) == G_TYPE_INT64 &&
             json_node_get_int (value) >= -1 && json_node_get_int (value) <= 1;
      if (!ok)
        {
          g_set_error (error, ANOT_ERROR, ANOT_ERROR_INVALID_FIELD,
                       kinds ? "field “%s”: “%s” is not an evidence kind name"
                             : "field “%s”: “%s” is not 1, 0 or -1",
                       field, key);
          return FALSE;
        }
    }
  *out = json_object_ref (json_node_get_object (node));
  return TRUE;
}

/**
 * anot_result_new_from_json:
 * @row: one row of a `results_<N>.jsonl` file
 * @error: return location for a #GError
 *
 * Reads a results row written by anot or by the original framework,
 * including its Yelp-era rows (`gold_index`, 1-based, 0 = gold not among
 * the candidates; `gold_item_id`).  The gold rank is recomputed from
 * `pred_indices` and `gold_idx`.  The run and N are not part of a row;
 * they read as 0.
 *
 * Returns: (transfer full): the result, or %NULL with @error set
 */
AnotResult *
anot_result_new_from_json (JsonObject  *row,
                           GError     **error)
{
  g_autoptr(AnotResult) self = NULL;
  const char *request_id;

  g_return_val_if_fail (row != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  request_id = member_string (row, "request_id");
  if (request_id == NULL)
    {
      g_set_error (error, ANOT_ERROR, ANOT_ERROR_MISSING_FIELD,
                   "field “request_id”: missing or not a string");
      return NULL;
    }

  self = g_object_new (ANOT_TYPE_RESULT, NULL);
  self->request_id = g_strdup (request_id);
  self->group = g_strdup (member_string (row, "group"));

  if (!read_uint_array (row, "pred_indices", self->pred_indices, error) ||
      !read_uint_array (row, "shuffled_preds", self->shuffled_preds, error))
    return NULL;

  if (member_is_number (row, "gold_idx"))
    {
      gint64 v = json_node_get_int (json_object_get_member (row, "gold_idx"));

      if (v < 0 || v >= G_MAXUINT)
        {
          g_set_error (error, ANOT_ERROR, ANOT_ERROR_INVALID_FIELD,
                       "field “gold_idx”: %" G_GINT64_FORMAT " is out of range", v);
          return NULL;
        }
      self->gold_idx = (guint) v;
    }
  else if (member_is_number (row, "gold_index"))
    {
      gint64 v = json_node_get_int (json_object_get_member (row, "gold_index"));

      self->gold_idx = v >= 1 && v < G_MAXUINT ? (guint) (v - 1) : G_MAXUINT;
    }
  else
    {
      g_set_error (error, ANOT_ERROR, ANOT_ERROR_MISSING_FIELD,
                   "field “gold_idx”: missing");
      return NULL;
    }

  if (member_is_number (row, "shuffled_gold_pos"))
    {
      gint64 v = json_node_get_int (json_object_get_member (row, "shuffled_gold_pos"));
      self->shuffled_gold_pos = v > 0 && v < G_MAXUINT ? (guint) v : 0;
    }
  else if (self->gold_idx != G_MAXUINT && !json_object_has_member (row, "shuffled_preds"))
    self->shuffled_gold_pos = self->gold_idx + 1;

  self->gold_item_id = g_strdup (member_string (row, "gold_restaurant"));
  if (self->gold_item_id == NULL)
    self->gold_item_id = g_strdup (member_string (row, "gold_item_id"));
  self->raw_response = g_strdup (member_string (row, "raw_response"));
  self->error_message = g_strdup (member_string (row, "error"));
  self->cut_by = g_strdup (member_string (row, "cut_by"));
  if (self->error_message != NULL)
    {
      const char *error_class = member_string (row, "error_class");

      if (g_strcmp0 (error_class, ANOT_RESULT_ERROR_CLASS_INFRASTRUCTURE) == 0)
        self->error_class = ANOT_RESULT_ERROR_CLASS_INFRASTRUCTURE;
      else if (g_strcmp0 (error_class, ANOT_RESULT_ERROR_CLASS_BUDGET) == 0)
        self->error_class = ANOT_RESULT_ERROR_CLASS_BUDGET;
      else if (g_strcmp0 (error_class, ANOT_RESULT_ERROR_CLASS_METHOD) == 0)
        self->error_class = ANOT_RESULT_ERROR_CLASS_METHOD;
      else
        self->error_class = error_class_of_message (self->error_message);
    }
  if (json_object_has_member (row, "context_fit"))
    {
      JsonNode *node = json_object_get_member (row, "context_fit");
      JsonObject *fit = JSON_NODE_HOLDS_OBJECT (node) ? json_node_get_object (node) : NULL;

      if (fit == NULL || !member_is_number (fit, "reviews_dropped") ||
          !member_is_number (fit, "reviews") || !member_is_number (fit, "calls_fitted"))
        {
          g_set_error (error, ANOT_ERROR, ANOT_ERROR_INVALID_FIELD,
                       "field “context_fit”: expected an object with the numbers "
                       "reviews_dropped, reviews and calls_fitted");
          return NULL;
        }
      anot_result_set_context_fit (self, (guint) CLAMP (member_number (fit, "reviews_dropped"), 0, G_MAXUINT),
                                   (guint) CLAMP (member_number (fit, "reviews"), 0, G_MAXUINT),
                                   (guint) CLAMP (member_number (fit, "calls_fitted"), 0, G_MAXUINT));
    }
  self->usage = usage_from_row (row);
  if (json_object_has_member (row, "uses_truth"))
    {
      JsonNode *node = json_object_get_member (row, "uses_truth");

      if (!JSON_NODE_HOLDS_VALUE (node) || json_node_get_value_type (node) != G_TYPE_BOOLEAN)
        {
          g_set_error (error, ANOT_ERROR, ANOT_ERROR_INVALID_FIELD,
                       "field “uses_truth”: not a boolean");
          return NULL;
        }
      self->uses_truth = json_node_get_boolean (node);
    }

  if (!read_conditions (row, "top1_conditions", FALSE, &self->top1_conditions, error) ||
      !read_conditions (row, "gold_conditions", FALSE, &self->gold_conditions, error) ||
      !read_conditions (row, "condition_kinds", TRUE, &self->condition_kinds, error))
    return NULL;
  if (json_object_has_member (row, "top1_item"))
    {
      JsonNode *node = json_object_get_member (row, "top1_item");

      if (!JSON_NODE_HOLDS_NULL (node) &&
          (!JSON_NODE_HOLDS_VALUE (node) || json_node_get_value_type (node) != G_TYPE_STRING))
        {
          g_set_error (error, ANOT_ERROR, ANOT_ERROR_INVALID_FIELD,
                       "field “top1_item”: not a string");
          return NULL;
        }
      self->top1_item = g_strdup (member_string (row, "top1_item"));
    }
  if (json_object_has_member (row, "top1_failed") &&
      !JSON_NODE_HOLDS_NULL (json_object_get_member (row, "top1_failed")))
    {
      JsonNode *node = json_object_get_member (row, "top1_failed");
      JsonArray *array = JSON_NODE_HOLDS_ARRAY (node) ? json_node_get_array (node) : NULL;

      for (guint i = 0; array != NULL && i < json_array_get_length (array); i++)
        {
          JsonNode *element = json_array_get_element (array, i);

          if (!JSON_NODE_HOLDS_VALUE (element) || json_node_get_value_type (element) != G_TYPE_STRING ||
              self->top1_conditions == NULL ||
              !json_object_has_member (self->top1_conditions, json_node_get_string (element)))
            array = NULL;
        }
      if (array == NULL)
        {
          g_set_error (error, ANOT_ERROR, ANOT_ERROR_INVALID_FIELD,
                       "field “top1_failed”: expected an array of keys of “top1_conditions”");
          return NULL;
        }
      self->top1_failed = json_array_ref (array);
    }

  result_update_gold_rank (self);

  return g_steal_pointer (&self);
}

static void
add_uint_array (JsonBuilder *builder,
                GArray      *array)
{
  json_builder_begin_array (builder);
  for (guint i = 0; i < array->len; i++)
    json_builder_add_int_value (builder, g_array_index (array, guint, i));
  json_builder_end_array (builder);
}

static void
add_object (JsonBuilder *builder,
            const char  *name,
            JsonObject  *object)
{
  JsonNode *node;

  if (object == NULL)
    return;
  node = json_node_new (JSON_NODE_OBJECT);
  json_node_set_object (node, object);
  json_builder_set_member_name (builder, name);
  json_builder_add_value (builder, node);
}

/**
 * anot_result_to_json:
 * @self: an #AnotResult
 *
 * Serialises the result as one row of `results_<N>.jsonl`: the original
 * framework's fields (`request_id`, `pred_indices`, `shuffled_preds`,
 * `gold_idx`, `shuffled_gold_pos`, `gold_restaurant`, `prompt_tokens`,
 * `completion_tokens`, `tokens`, `cost_usd`, `latency_ms`, `raw_response`
 * when known, `error` when the method failed) and anot's additions:
 * `unpriced_calls` when a call's model had no price (`cost_usd`, here and
 * in `by_model` and `by_role`, is then null: unknown),
 * `group`, `gold_rank`, `calls` and, when there were calls, `retries`,
 * `by_model` (per model: `calls`, `prompt_tokens`, `completion_tokens`,
 * `cost_usd`) and `by_role` (the same per role, with `retries`), and
 * `"uses_truth": true` when the method was handed the truth (the member is
 * absent otherwise, so ordinary rows are unchanged), and what the first
 * item was: `top1_item`, `top1_conditions` (condition key → `1` satisfied,
 * `0` unknown, `-1` not satisfied, as [method@Anot.Validator.explain]
 * decides it on the clean item), `top1_failed` (the keys of the conditions
 * the first item fails: those at `-1`, less those a satisfied alternative
 * of an `OR` excuses), `gold_conditions` (the same verdicts for the gold)
 * and `condition_kinds` (condition key → evidence kind); each is absent
 * when unknown.
 * Usage is the request's own, not a time window as in the original.
 *
 * Returns: (transfer full): a JSON object node
 */
JsonNode *
anot_result_to_json (AnotResult *self)
{
  g_autoptr(JsonBuilder) builder = NULL;
  guint64 prompt_tokens, completion_tokens;

  g_return_val_if_fail (ANOT_IS_RESULT (self), NULL);

  prompt_tokens = anot_usage_get_prompt_tokens (self->usage);
  completion_tokens = anot_usage_get_completion_tokens (self->usage);

  builder = json_builder_new ();
  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "request_id");
  json_builder_add_string_value (builder, self->request_id);
  if (self->group != NULL)
    {
      json_builder_set_member_name (builder, "group");
      json_builder_add_string_value (builder, self->group);
    }
  json_builder_set_member_name (builder, "pred_indices");
  add_uint_array (builder, self->pred_indices);
  json_builder_set_member_name (builder, "shuffled_preds");
  add_uint_array (builder, self->shuffled_preds);
  json_builder_set_member_name (builder, "gold_idx");
  if (self->gold_idx == G_MAXUINT)
    json_builder_add_int_value (builder, -1);
  else
    json_builder_add_int_value (builder, self->gold_idx);
  json_builder_set_member_name (builder, "shuffled_gold_pos");
  json_builder_add_int_value (builder, self->shuffled_gold_pos);
  json_builder_set_member_name (builder, "gold_restaurant");
  json_builder_add_string_value (builder, self->gold_item_id);
  json_builder_set_member_name (builder, "gold_rank");
  json_builder_add_int_value (builder, self->gold_rank);
  if (self->top1_item != NULL)
    {
      json_builder_set_member_name (builder, "top1_item");
      json_builder_add_string_value (builder, self->top1_item);
    }
  add_object (builder, "top1_conditions", self->top1_conditions);
  if (self->top1_failed != NULL)
    {
      JsonNode *node = json_node_new (JSON_NODE_ARRAY);

      json_node_set_array (node, self->top1_failed);
      json_builder_set_member_name (builder, "top1_failed");
      json_builder_add_value (builder, node);
    }
  add_object (builder, "gold_conditions", self->gold_conditions);
  add_object (builder, "condition_kinds", self->condition_kinds);
  if (self->uses_truth)
    {
      json_builder_set_member_name (builder, "uses_truth");
      json_builder_add_boolean_value (builder, TRUE);
    }
  json_builder_set_member_name (builder, "prompt_tokens");
  json_builder_add_int_value (builder, prompt_tokens);
  json_builder_set_member_name (builder, "completion_tokens");
  json_builder_add_int_value (builder, completion_tokens);
  json_builder_set_member_name (builder, "tokens");
  json_builder_add_int_value (builder, prompt_tokens + completion_tokens);
  json_builder_set_member_name (builder, "cost_usd");
  if (anot_usage_get_cost_known (self->usage))
    json_builder_add_double_value (builder, anot_usage_get_cost_usd (self->usage));
  else
    {
      /* Some call's model had no price: the cost is unknown. */
      json_builder_add_null_value (builder);
      json_builder_set_member_name (builder, "unpriced_calls");
      json_builder_add_int_value (builder, anot_usage_get_unpriced_calls (self->usage));
    }
  json_builder_set_member_name (builder, "latency_ms");
  json_builder_add_double_value (builder, anot_usage_get_latency_ms (self->usage));
  json_builder_set_member_name (builder, "calls");
  json_builder_add_int_value (builder, anot_usage_get_calls (self->usage));
  if (anot_usage_get_calls (self->usage) > 0)
    {
      g_autoptr(JsonNode) usage = anot_usage_to_json (self->usage);
      JsonObject *object = json_node_get_object (usage);
      JsonNode *by_model = json_object_get_member (object, "by_model");
      JsonNode *by_role = json_object_get_member (object, "by_role");

      json_builder_set_member_name (builder, "retries");
      json_builder_add_int_value (builder, anot_usage_get_retries (self->usage));
      if (by_model != NULL)
        {
          json_builder_set_member_name (builder, "by_model");
          json_builder_add_value (builder, json_node_copy (by_model));
        }
      if (by_role != NULL && json_object_get_size (json_node_get_object (by_role)) > 0)
        {
          json_builder_set_member_name (builder, "by_role");
          json_builder_add_value (builder, json_node_copy (by_role));
        }
      if (anot_usage_get_n_endpoints (self->usage) > 0)
        {
          json_builder_set_member_name (builder, "by_endpoint");
          json_builder_add_value (builder, anot_usage_endpoints_to_json (self->usage));
        }
    }
  if (self->has_context_fit)
    {
      json_builder_set_member_name (builder, "context_fit");
      json_builder_begin_object (builder);
      json_builder_set_member_name (builder, "reviews_dropped");
      json_builder_add_int_value (builder, self->reviews_dropped);
      json_builder_set_member_name (builder, "reviews");
      json_builder_add_int_value (builder, self->reviews);
      json_builder_set_member_name (builder, "calls_fitted");
      json_builder_add_int_value (builder, self->calls_fitted);
      json_builder_end_object (builder);
    }
  if (self->raw_response != NULL)
    {
      json_builder_set_member_name (builder, "raw_response");
      json_builder_add_string_value (builder, self->raw_response);
    }
  if (self->error_message != NULL)
    {
      json_builder_set_member_name (builder, "error");
      json_builder_add_string_value (builder, self->error_message);
      json_builder_set_member_name (builder, "error_class");
      json_builder_add_string_value (builder, anot_result_get_error_class (self));
    }
  if (self->cut_by != NULL)
    {
      json_builder_set_member_name (builder, "cut_by");
      json_builder_add_string_value (builder, self->cut_by);
    }
  json_builder_end_object (builder);

  return json_builder_get_root (builder);
}

/**
 * anot_result_get_request_id:
 * @self: an #AnotResult
 *
 * Returns: the request id
 */
const char *
anot_result_get_request_id (AnotResult *self)
{
  g_return_val_if_fail (ANOT_IS_RESULT (self), NULL);
  return self->request_id;
}

/**
 * anot_result_get_group:
 * @self: an #AnotResult
 *
 * Returns: (nullable): the request's group
 */
const char *
anot_result_get_group (AnotResult *self)
{
  g_return_val_if_fail (ANOT_IS_RESULT (self), NULL);
  return self->group;
}

/**
 * anot_result_get_n_candidates:
 * @self: an #AnotResult
 *
 * Returns: N, the pool size (0 when unknown)
 */
guint
anot_result_get_n_candidates (AnotResult *self)
{
  g_return_val_if_fail (ANOT_IS_RESULT (self), 0);
  return self->n_candidates;
}

/**
 * anot_result_get_run:
 * @self: an #AnotResult
 *
 * Returns: the 1-based run number (0 when unknown)
 */
guint
anot_result_get_run (AnotResult *self)
{
  g_return_val_if_fail (ANOT_IS_RESULT (self), 0);
  return self->run;
}

/**
 * anot_result_get_pred_indices:
 * @self: an #AnotResult
 * @n_indices: (out): the number of predictions
 *
 * Returns: (array length=n_indices) (transfer none): the predictions,
 *   1-based positions in pool order, best first
 */
const guint *
anot_result_get_pred_indices (AnotResult *self,
                              guint      *n_indices)
{
  g_return_val_if_fail (ANOT_IS_RESULT (self), NULL);
  g_return_val_if_fail (n_indices != NULL, NULL);

  *n_indices = self->pred_indices->len;
  return (const guint *) self->pred_indices->data;
}

/**
 * anot_result_get_shuffled_preds:
 * @self: an #AnotResult
 * @n_indices: (out): the number of predictions
 *
 * Returns: (array length=n_indices) (transfer none): the predictions,
 *   1-based positions in the order the method saw, best first
 */
const guint *
anot_result_get_shuffled_preds (AnotResult *self,
                                guint      *n_indices)
{
  g_return_val_if_fail (ANOT_IS_RESULT (self), NULL);
  g_return_val_if_fail (n_indices != NULL, NULL);

  *n_indices = self->shuffled_preds->len;
  return (const guint *) self->shuffled_preds->data;
}

/**
 * anot_result_get_gold_idx:
 * @self: an #AnotResult
 *
 * Returns: the 0-based position of the gold in pool order
 */
guint
anot_result_get_gold_idx (AnotResult *self)
{
  g_return_val_if_fail (ANOT_IS_RESULT (self), 0);
  return self->gold_idx;
}

/**
 * anot_result_get_shuffled_gold_pos:
 * @self: an #AnotResult
 *
 * Returns: the 1-based position of the gold in the order the method saw
 */
guint
anot_result_get_shuffled_gold_pos (AnotResult *self)
{
  g_return_val_if_fail (ANOT_IS_RESULT (self), 0);
  return self->shuffled_gold_pos;
}

/**
 * anot_result_get_gold_item_id:
 * @self: an #AnotResult
 *
 * Returns: (nullable): the gold item's id
 */
const char *
anot_result_get_gold_item_id (AnotResult *self)
{
  g_return_val_if_fail (ANOT_IS_RESULT (self), NULL);
  return self->gold_item_id;
}

/**
 * anot_result_get_gold_rank:
 * @self: an #AnotResult
 *
 * Returns: the 1-based rank of the gold among the predictions, or 0 when
 *   it is not among them
 */
guint
anot_result_get_gold_rank (AnotResult *self)
{
  g_return_val_if_fail (ANOT_IS_RESULT (self), 0);
  return self->gold_rank;
}

/**
 * anot_result_get_uses_truth:
 * @self: an #AnotResult
 *
 * Returns: whether the ranking method was handed the request's truth
 */
gboolean
anot_result_get_uses_truth (AnotResult *self)
{
  g_return_val_if_fail (ANOT_IS_RESULT (self), FALSE);
  return self->uses_truth;
}

/**
 * anot_result_get_usage:
 * @self: an #AnotResult
 *
 * Returns: (transfer none): the LLM usage of the request
 */
AnotUsage *
anot_result_get_usage (AnotResult *self)
{
  g_return_val_if_fail (ANOT_IS_RESULT (self), NULL);
  return self->usage;
}

/**
 * anot_result_get_cut_by:
 * @self: an #AnotResult
 *
 * Returns: (nullable): the limit that cut the method short on this
 *   request (`cut_by` of the row, from anot_ranking_set_cut_by()), or
 *   %NULL
 */
const char *
anot_result_get_cut_by (AnotResult *self)
{
  g_return_val_if_fail (ANOT_IS_RESULT (self), NULL);
  return self->cut_by;
}

/**
 * anot_result_get_raw_response:
 * @self: an #AnotResult
 *
 * Returns: (nullable): the method's text output
 */
const char *
anot_result_get_raw_response (AnotResult *self)
{
  g_return_val_if_fail (ANOT_IS_RESULT (self), NULL);
  return self->raw_response;
}

/**
 * anot_result_get_error_message:
 * @self: an #AnotResult
 *
 * Returns: (nullable): the error, when the method failed
 */
const char *
anot_result_get_error_message (AnotResult *self)
{
  g_return_val_if_fail (ANOT_IS_RESULT (self), NULL);
  return self->error_message;
}

/**
 * anot_result_get_top1_item:
 * @self: an #AnotResult
 *
 * Returns: (nullable): the id of the item ranked first, or %NULL when
 *   nothing was ranked or the row predates the field
 */
const char *
anot_result_get_top1_item (AnotResult *self)
{
  g_return_val_if_fail (ANOT_IS_RESULT (self), NULL);
  return self->top1_item;
}

/**
 * anot_result_get_top1_conditions:
 * @self: an #AnotResult
 *
 * The verdicts of the request's conditions on the item ranked first,
 * decided after the method answered, on the clean item: condition key
 * (see [method@Anot.Verdict.get_leaf_key]) → `1` satisfied, `0` unknown,
 * `-1` not satisfied.
 *
 * Returns: (transfer none) (nullable): the verdicts, or %NULL when unknown
 */
JsonObject *
anot_result_get_top1_conditions (AnotResult *self)
{
  g_return_val_if_fail (ANOT_IS_RESULT (self), NULL);
  return self->top1_conditions;
}

/**
 * anot_result_get_gold_conditions:
 * @self: an #AnotResult
 *
 * The verdicts of the request's conditions on the gold item, as
 * [method@Anot.Result.get_top1_conditions].
 *
 * Returns: (transfer none) (nullable): the verdicts, or %NULL when unknown
 */
JsonObject *
anot_result_get_gold_conditions (AnotResult *self)
{
  g_return_val_if_fail (ANOT_IS_RESULT (self), NULL);
  return self->gold_conditions;
}

/**
 * anot_result_get_condition_kinds:
 * @self: an #AnotResult
 *
 * The evidence kind of each condition of the request (`item_meta`,
 * `review_text`, ...), by condition key.
 *
 * Returns: (transfer none) (nullable): the kinds, or %NULL when unknown
 */
JsonObject *
anot_result_get_condition_kinds (AnotResult *self)
{
  g_return_val_if_fail (ANOT_IS_RESULT (self), NULL);
  return self->condition_kinds;
}

/**
 * anot_result_get_top1_failed:
 * @self: an #AnotResult
 *
 * The conditions the item ranked first fails, by key, in document order:
 * those the validator says are not satisfied (`-1` in
 * [method@Anot.Result.get_top1_conditions]; `1` under a `NOT`), less those
 * an `OR` the item satisfies by another alternative excuses.  One key is a
 * near miss.
 *
 * Returns: (transfer none) (nullable): the keys, or
 *   %NULL when unknown
 */
JsonArray *
anot_result_get_top1_failed (AnotResult *self)
{
  g_return_val_if_fail (ANOT_IS_RESULT (self), NULL);
  return self->top1_failed;
}

/**
 * anot_result_get_error_class:
 * @self: an #AnotResult
 *
 * Who failed, when the request failed: %ANOT_RESULT_ERROR_CLASS_METHOD
 * (an answer the method could not parse, an error of the method, a
 * refusal: a miss, as the original framework counts it) or
 * %ANOT_RESULT_ERROR_CLASS_INFRASTRUCTURE (the LLM server, the network,
 * the provider's batch, the cache: see anot_error_is_infrastructure()) or
 * %ANOT_RESULT_ERROR_CLASS_BUDGET (a call not sent for the run's budget).
 * Rows are `"error_class"`; rows written before it existed are classified
 * by the error code their `error` starts with.
 *
 * Returns: (nullable): the class, or %NULL when the request did not fail
 */
const char *
anot_result_get_error_class (AnotResult *self)
{
  g_return_val_if_fail (ANOT_IS_RESULT (self), NULL);
  if (self->error_message == NULL)
    return NULL;
  if (self->error_class == NULL)
    self->error_class = error_class_of_message (self->error_message);
  return self->error_class;
}

/**
 * anot_result_is_scored:
 * @self: an #AnotResult
 *
 * Whether the request counts in the metrics: every row except those of
 * requests that failed for the infrastructure or that the budget stopped
 * before one of their calls, which say nothing about the method (a
 * resume runs them again).
 *
 * Returns: %FALSE for an infrastructure failure or a budget stop
 */
gboolean
anot_result_is_scored (AnotResult *self)
{
  const char *error_class;

  g_return_val_if_fail (ANOT_IS_RESULT (self), FALSE);
  error_class = anot_result_get_error_class (self);
  return g_strcmp0 (error_class, ANOT_RESULT_ERROR_CLASS_INFRASTRUCTURE) != 0 &&
         g_strcmp0 (error_class, ANOT_RESULT_ERROR_CLASS_BUDGET) != 0;
}

/**
 * anot_result_get_context_fit:
 * @self: an #AnotResult
 * @out_reviews_dropped: (out) (optional): the reviews left out of the
 *   prompts to fit the model's context window
 * @out_reviews: (out) (optional): the reviews the prompts would have held
 * @out_calls_fitted: (out) (optional): the prompts (LLM calls) shrunk
 *
 * Whether the method had to shrink a prompt of this request to fit the
 * model's context window, and how much it dropped: the row's
 * `"context_fit"`.  A model that saw a fifth of the reviews ranked a
 * different task than one that saw them all.
 *
 * Returns: %TRUE when a prompt was shrunk (the out values are set), else
 *   %FALSE (and zeros)
 */
gboolean
anot_result_get_context_fit (AnotResult *self,
                             guint      *out_reviews_dropped,
                             guint      *out_reviews,
                             guint      *out_calls_fitted)
{
  g_return_val_if_fail (ANOT_IS_RESULT (self), FALSE);
  if (out_reviews_dropped)
    *out_reviews_dropped = self->has_context_fit ? self->reviews_dropped : 0;
  if (out_reviews)
    *out_reviews = self->has_context_fit ? self->reviews : 0;
  if (out_calls_fitted)
    *out_calls_fitted = self->has_context_fit ? self->calls_fitted : 0;
  return self->has_context_fit;
}
