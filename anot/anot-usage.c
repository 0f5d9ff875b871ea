/* anot-usage.c: token, cost and latency accounting
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "anot-usage.h"

#include <math.h>
#include <stdlib.h>

/**
 * AnotUsage:
 *
 * Sums of what LLM calls cost: calls, prompt and completion tokens, dollars
 * and per-call latency, in total and per model.
 *
 * Each request gets its own #AnotUsage through its
 * [class@Anot.MethodContext], so usage is attributed to the request that
 * made the calls even when many requests run at once.
 */

typedef struct
{
  guint64 calls;
  guint64 prompt_tokens;
  guint64 completion_tokens;
  double cost_usd;
  double latency_ms;
} UsageTotals;

struct _AnotUsage
{
  GObject parent_instance;

  UsageTotals total;
  GHashTable *by_model; /* model name -> UsageTotals */
};

G_DEFINE_FINAL_TYPE (AnotUsage, anot_usage, G_TYPE_OBJECT)

enum {
  PROP_0,
  PROP_CALLS,
  PROP_PROMPT_TOKENS,
  PROP_COMPLETION_TOKENS,
  PROP_COST_USD,
  PROP_LATENCY_MS,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

static void
totals_add (UsageTotals       *into,
            const UsageTotals *from)
{
  into->calls += from->calls;
  into->prompt_tokens += from->prompt_tokens;
  into->completion_tokens += from->completion_tokens;
  into->cost_usd += from->cost_usd;
  into->latency_ms += from->latency_ms;
}

static void
anot_usage_add_totals (AnotUsage         *self,
                       const char        *model,
                       const UsageTotals *totals)
{
  UsageTotals *per_model;

  totals_add (&self->total, totals);

  per_model = g_hash_table_lookup (self->by_model, model ? model : "");
  if (per_model == NULL)
    {
      per_model = g_new0 (UsageTotals, 1);
      g_hash_table_insert (self->by_model, g_strdup (model ? model : ""), per_model);
    }
  totals_add (per_model, totals);

  g_object_freeze_notify (G_OBJECT (self));
  for (guint i = PROP_CALLS; i < N_PROPS; i++)
    g_object_notify_by_pspec (G_OBJECT (self), properties[i]);
  g_object_thaw_notify (G_OBJECT (self));
}

static void
anot_usage_finalize (GObject *object)
{
  AnotUsage *self = ANOT_USAGE (object);

  g_hash_table_unref (self->by_model);

  G_OBJECT_CLASS (anot_usage_parent_class)->finalize (object);
}

static void
anot_usage_get_property (GObject    *object,
                         guint       prop_id,
                         GValue     *value,
                         GParamSpec *pspec)
{
  AnotUsage *self = ANOT_USAGE (object);

  switch (prop_id)
    {
    case PROP_CALLS:
      g_value_set_uint64 (value, self->total.calls);
      break;
    case PROP_PROMPT_TOKENS:
      g_value_set_uint64 (value, self->total.prompt_tokens);
      break;
    case PROP_COMPLETION_TOKENS:
      g_value_set_uint64 (value, self->total.completion_tokens);
      break;
    case PROP_COST_USD:
      g_value_set_double (value, self->total.cost_usd);
      break;
    case PROP_LATENCY_MS:
      g_value_set_double (value, self->total.latency_ms);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
anot_usage_class_init (AnotUsageClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = anot_usage_finalize;
  object_class->get_property = anot_usage_get_property;

  /**
   * AnotUsage:calls:
   *
   * Number of successful LLM calls.
   */
  properties[PROP_CALLS] =
    g_param_spec_uint64 ("calls", NULL, NULL, 0, G_MAXUINT64, 0,
                         G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  /**
   * AnotUsage:prompt-tokens:
   *
   * Sum of prompt tokens.
   */
  properties[PROP_PROMPT_TOKENS] =
    g_param_spec_uint64 ("prompt-tokens", NULL, NULL, 0, G_MAXUINT64, 0,
                         G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  /**
   * AnotUsage:completion-tokens:
   *
   * Sum of completion tokens.
   */
  properties[PROP_COMPLETION_TOKENS] =
    g_param_spec_uint64 ("completion-tokens", NULL, NULL, 0, G_MAXUINT64, 0,
                         G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  /**
   * AnotUsage:cost-usd:
   *
   * Sum of call costs in US dollars.
   */
  properties[PROP_COST_USD] =
    g_param_spec_double ("cost-usd", NULL, NULL, 0, G_MAXDOUBLE, 0,
                         G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  /**
   * AnotUsage:latency-ms:
   *
   * Sum of per-call latencies in milliseconds (not wall time: calls overlap).
   */
  properties[PROP_LATENCY_MS] =
    g_param_spec_double ("latency-ms", NULL, NULL, 0, G_MAXDOUBLE, 0,
                         G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);

  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
anot_usage_init (AnotUsage *self)
{
  self->by_model = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
}

/**
 * anot_usage_new:
 *
 * Returns: (transfer full): an empty usage record
 */
AnotUsage *
anot_usage_new (void)
{
  return g_object_new (ANOT_TYPE_USAGE, NULL);
}

/**
 * anot_usage_add_completion:
 * @self: an #AnotUsage
 * @completion: a successful completion
 *
 * Counts one call with the completion's tokens, cost and latency.
 */
void
anot_usage_add_completion (AnotUsage      *self,
                           AnotCompletion *completion)
{
  UsageTotals totals;

  g_return_if_fail (ANOT_IS_USAGE (self));
  g_return_if_fail (ANOT_IS_COMPLETION (completion));

  totals.calls = 1;
  totals.prompt_tokens = anot_completion_get_prompt_tokens (completion);
  totals.completion_tokens = anot_completion_get_completion_tokens (completion);
  totals.cost_usd = anot_completion_get_cost_usd (completion);
  totals.latency_ms = anot_completion_get_latency_ms (completion);
  anot_usage_add_totals (self, anot_completion_get_model (completion), &totals);
}

/**
 * anot_usage_merge:
 * @self: an #AnotUsage
 * @other: usage to add to @self
 *
 * Adds every count of @other, per model, to @self.
 */
void
anot_usage_merge (AnotUsage *self,
                  AnotUsage *other)
{
  GHashTableIter iter;
  gpointer key, value;

  g_return_if_fail (ANOT_IS_USAGE (self));
  g_return_if_fail (ANOT_IS_USAGE (other));
  g_return_if_fail (self != other);

  g_hash_table_iter_init (&iter, other->by_model);
  while (g_hash_table_iter_next (&iter, &key, &value))
    anot_usage_add_totals (self, key, value);
}

/**
 * anot_usage_get_calls:
 * @self: an #AnotUsage
 *
 * Returns: the number of calls
 */
guint64
anot_usage_get_calls (AnotUsage *self)
{
  g_return_val_if_fail (ANOT_IS_USAGE (self), 0);
  return self->total.calls;
}

/**
 * anot_usage_get_prompt_tokens:
 * @self: an #AnotUsage
 *
 * Returns: the sum of prompt tokens
 */
guint64
anot_usage_get_prompt_tokens (AnotUsage *self)
{
  g_return_val_if_fail (ANOT_IS_USAGE (self), 0);
  return self->total.prompt_tokens;
}

/**
 * anot_usage_get_completion_tokens:
 * @self: an #AnotUsage
 *
 * Returns: the sum of completion tokens
 */
guint64
anot_usage_get_completion_tokens (AnotUsage *self)
{
  g_return_val_if_fail (ANOT_IS_USAGE (self), 0);
  return self->total.completion_tokens;
}

/**
 * anot_usage_get_cost_usd:
 * @self: an #AnotUsage
 *
 * Returns: the sum of costs in US dollars
 */
double
anot_usage_get_cost_usd (AnotUsage *self)
{
  g_return_val_if_fail (ANOT_IS_USAGE (self), 0);
  return self->total.cost_usd;
}

/**
 * anot_usage_get_latency_ms:
 * @self: an #AnotUsage
 *
 * Returns: the sum of per-call latencies in milliseconds
 */
double
anot_usage_get_latency_ms (AnotUsage *self)
{
  g_return_val_if_fail (ANOT_IS_USAGE (self), 0);
  return self->total.latency_ms;
}

static void
totals_to_json (JsonBuilder       *builder,
                const UsageTotals *totals,
                gboolean           with_prefix)
{
  json_builder_set_member_name (builder, with_prefix ? "total_calls" : "calls");
  json_builder_add_int_value (builder, totals->calls);
  json_builder_set_member_name (builder, with_prefix ? "total_prompt_tokens" : "prompt_tokens");
  json_builder_add_int_value (builder, totals->prompt_tokens);
  json_builder_set_member_name (builder, with_prefix ? "total_completion_tokens" : "completion_tokens");
  json_builder_add_int_value (builder, totals->completion_tokens);
  if (with_prefix)
    {
      json_builder_set_member_name (builder, "total_tokens");
      json_builder_add_int_value (builder, totals->prompt_tokens + totals->completion_tokens);
    }
  json_builder_set_member_name (builder, with_prefix ? "total_cost_usd" : "cost_usd");
  /* The original rounds costs to 6 decimals. */
  json_builder_add_double_value (builder, round (totals->cost_usd * 1e6) / 1e6);
}

static int
compare_strings (gconstpointer a,
                 gconstpointer b)
{
  return g_strcmp0 (*(const char * const *) a, *(const char * const *) b);
}

/**
 * anot_usage_to_json:
 * @self: an #AnotUsage
 *
 * Serialises the usage in the schema of the original framework's
 * `config.json` `usage` object: `total_calls`, `total_prompt_tokens`,
 * `total_completion_tokens`, `total_tokens`, `total_cost_usd`,
 * `total_latency_ms`, `avg_latency_ms` and `by_model`.
 *
 * Returns: (transfer full): a JSON object node
 */
JsonNode *
anot_usage_to_json (AnotUsage *self)
{
  g_autoptr(JsonBuilder) builder = json_builder_new ();
  g_autofree const char **models = NULL;
  guint n_models;

  g_return_val_if_fail (ANOT_IS_USAGE (self), NULL);

  json_builder_begin_object (builder);
  totals_to_json (builder, &self->total, TRUE);
  json_builder_set_member_name (builder, "total_latency_ms");
  json_builder_add_double_value (builder, round (self->total.latency_ms * 100) / 100);
  json_builder_set_member_name (builder, "avg_latency_ms");
  json_builder_add_double_value (builder,
                                 self->total.calls
                                 ? round (self->total.latency_ms / self->total.calls * 100) / 100
                                 : 0.0);

  json_builder_set_member_name (builder, "by_model");
  json_builder_begin_object (builder);
  models = (const char **) g_hash_table_get_keys_as_array (self->by_model, &n_models);
  qsort (models, n_models, sizeof (char *), compare_strings);
  for (guint i = 0; i < n_models; i++)
    {
      json_builder_set_member_name (builder, models[i]);
      json_builder_begin_object (builder);
      totals_to_json (builder, g_hash_table_lookup (self->by_model, models[i]), FALSE);
      json_builder_end_object (builder);
    }
  json_builder_end_object (builder);
  json_builder_end_object (builder);

  return json_builder_get_root (builder);
}
