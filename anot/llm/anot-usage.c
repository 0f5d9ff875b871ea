/* anot-usage.c: token, cost and latency accounting
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "anot-usage.h"
#include "anot-usage-private.h"

#include <math.h>
#include <stdlib.h>

/**
 * AnotUsage:
 *
 * Sums of what LLM calls cost: calls, prompt and completion tokens, dollars,
 * per-call latency and retries, in total, per model and per role.
 *
 * A call whose model has no price ([property@Anot.Completion:cost-known]
 * %FALSE) is counted in [property@Anot.Usage:unpriced-calls], its tokens
 * as any other's; a sum with such a call has no cost: its
 * [property@Anot.Usage:cost-usd] is NaN, its JSON `cost_usd` null.  The
 * per-model table says which models were priced and what they cost.
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
  /* Integers, so sums do not depend on the order in which concurrent
   * calls finish (floating-point addition is not associative) and a replay
   * writes the very same numbers. */
  gint64 cost_pusd;          /* picodollars, of the priced calls */
  guint64 unpriced_calls;    /* calls without a price: the cost is unknown */
  gint64 latency_ns;
  guint64 retries;
  guint64 errors;            /* failed attempts; per endpoint only */
} UsageTotals;

#define PUSD_PER_USD 1e12
#define NS_PER_MS 1e6

static gint64
to_pusd (double usd)
{
  return (gint64) llround (usd * PUSD_PER_USD);
}

static gint64
to_ns (double ms)
{
  return (gint64) llround (ms * NS_PER_MS);
}

struct _AnotUsage
{
  GObject parent_instance;

  UsageTotals total;
  GHashTable *by_model; /* model name -> UsageTotals */
  GHashTable *by_role;  /* role name -> UsageTotals */
  GHashTable *by_endpoint; /* base URL -> UsageTotals, with several endpoints */
  UsageTotals cancelled;   /* calls cancelled in flight: estimates, not in `total` */
};

G_DEFINE_FINAL_TYPE (AnotUsage, anot_usage, G_TYPE_OBJECT)

enum {
  PROP_0,
  PROP_CALLS,
  PROP_PROMPT_TOKENS,
  PROP_COMPLETION_TOKENS,
  PROP_COST_USD,
  PROP_UNPRICED_CALLS,
  PROP_COST_KNOWN,
  PROP_LATENCY_MS,
  PROP_RETRIES,
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
  into->cost_pusd += from->cost_pusd;
  into->unpriced_calls += from->unpriced_calls;
  into->latency_ns += from->latency_ns;
  into->retries += from->retries;
  into->errors += from->errors;
}

static void
table_add (GHashTable        *table,
           const char        *key,
           const UsageTotals *totals)
{
  UsageTotals *entry = g_hash_table_lookup (table, key);

  if (entry == NULL)
    {
      entry = g_new0 (UsageTotals, 1);
      g_hash_table_insert (table, g_strdup (key), entry);
    }
  totals_add (entry, totals);
}

static void
anot_usage_notify_all (AnotUsage *self)
{
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
  g_hash_table_unref (self->by_role);
  g_hash_table_unref (self->by_endpoint);

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
      g_value_set_double (value, anot_usage_get_cost_usd (self));
      break;
    case PROP_UNPRICED_CALLS:
      g_value_set_uint64 (value, self->total.unpriced_calls);
      break;
    case PROP_COST_KNOWN:
      g_value_set_boolean (value, self->total.unpriced_calls == 0);
      break;
    case PROP_LATENCY_MS:
      g_value_set_double (value, self->total.latency_ns / NS_PER_MS);
      break;
    case PROP_RETRIES:
      g_value_set_uint64 (value, self->total.retries);
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
   * Sum of call costs in US dollars; NaN (unknown) when a call had no
   * price ([property@Anot.Usage:cost-known] %FALSE).
   */
  properties[PROP_COST_USD] =
    g_param_spec_double ("cost-usd", NULL, NULL, 0, G_MAXDOUBLE, 0,
                         G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  /**
   * AnotUsage:unpriced-calls:
   *
   * Number of calls whose model has no price (neither built in nor in
   * `[prices]` of config.ini).  Their tokens are counted; their cost is
   * unknown, and so is the sum's.
   */
  properties[PROP_UNPRICED_CALLS] =
    g_param_spec_uint64 ("unpriced-calls", NULL, NULL, 0, G_MAXUINT64, 0,
                         G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  /**
   * AnotUsage:cost-known:
   *
   * %TRUE when every call was priced, so that
   * [property@Anot.Usage:cost-usd] is the cost; %FALSE when a call's
   * model had no price.
   */
  properties[PROP_COST_KNOWN] =
    g_param_spec_boolean ("cost-known", NULL, NULL, TRUE,
                          G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  /**
   * AnotUsage:latency-ms:
   *
   * Sum of per-call latencies in milliseconds (not wall time: calls overlap).
   */
  properties[PROP_LATENCY_MS] =
    g_param_spec_double ("latency-ms", NULL, NULL, 0, G_MAXDOUBLE, 0,
                         G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);

  /**
   * AnotUsage:retries:
   *
   * Sum of the retries of the calls, those that failed in the end
   * included (rate limits, server errors, timeouts, dropped connections).
   */
  properties[PROP_RETRIES] =
    g_param_spec_uint64 ("retries", NULL, NULL, 0, G_MAXUINT64, 0,
                         G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);

  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
anot_usage_init (AnotUsage *self)
{
  self->by_model = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  self->by_role = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  self->by_endpoint = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
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
 * Counts one call with the completion's tokens, cost, latency and retries,
 * under its model and, when it has one, its
 * [property@Anot.Completion:role]; a call without a price counts in
 * [property@Anot.Usage:unpriced-calls] instead of in the cost.
 */
void
anot_usage_add_completion (AnotUsage      *self,
                           AnotCompletion *completion)
{
  UsageTotals totals = { 0 };
  const char *model, *role, *endpoint;
  const char * const *endpoint_errors;

  g_return_if_fail (ANOT_IS_USAGE (self));
  g_return_if_fail (ANOT_IS_COMPLETION (completion));

  totals.calls = 1;
  totals.prompt_tokens = anot_completion_get_prompt_tokens (completion);
  totals.completion_tokens = anot_completion_get_completion_tokens (completion);
  if (anot_completion_get_cost_known (completion))
    totals.cost_pusd = to_pusd (anot_completion_get_cost_usd (completion));
  else
    totals.unpriced_calls = 1;
  totals.latency_ns = to_ns (anot_completion_get_latency_ms (completion));
  totals.retries = anot_completion_get_retries (completion);
  model = anot_completion_get_model (completion);
  role = anot_completion_get_role (completion);

  totals_add (&self->total, &totals);
  table_add (self->by_model, model ? model : "", &totals);
  if (role != NULL)
    table_add (self->by_role, role, &totals);
  endpoint = anot_completion_get_endpoint (completion);
  if (endpoint != NULL)
    table_add (self->by_endpoint, endpoint, &totals);
  endpoint_errors = anot_completion_get_endpoint_errors (completion);
  for (guint i = 0; endpoint_errors != NULL && endpoint_errors[i] != NULL; i++)
    {
      UsageTotals failed = { .errors = 1 };

      table_add (self->by_endpoint, endpoint_errors[i], &failed);
    }
  anot_usage_notify_all (self);
}

void
anot_usage_add_cancelled (AnotUsage *self,
                          guint64    calls,
                          guint64    prompt_tokens,
                          guint64    completion_tokens,
                          double     cost_usd)
{
  /* NaN: the model had no price, and the estimate none either. */
  UsageTotals totals = { .calls = calls, .prompt_tokens = prompt_tokens,
                         .completion_tokens = completion_tokens,
                         .cost_pusd = isnan (cost_usd) ? 0 : to_pusd (cost_usd),
                         .unpriced_calls = isnan (cost_usd) ? calls : 0 };

  g_return_if_fail (ANOT_IS_USAGE (self));
  totals_add (&self->cancelled, &totals);
}

/**
 * anot_usage_get_cancelled_calls:
 * @self: an #AnotUsage
 *
 * Calls cancelled while they were on the wire (Ctrl-C, a request's
 * deadline, a run that stops): the provider may have answered and billed
 * them, but no answer or usage came back.  They are not in
 * anot_usage_get_calls() or anot_usage_get_cost_usd().
 *
 * Returns: the calls cancelled in flight
 */
guint64
anot_usage_get_cancelled_calls (AnotUsage *self)
{
  g_return_val_if_fail (ANOT_IS_USAGE (self), 0);
  return self->cancelled.calls;
}

/**
 * anot_usage_get_cancelled_cost_usd:
 * @self: an #AnotUsage
 *
 * What the calls anot_usage_get_cancelled_calls() counts would cost if the
 * provider billed them whole: their prompts (counted as rate limits count
 * them) and their `max_tokens`, or the 300 tokens of answer an estimate
 * assumes, at the list price.  An upper bound of what they may add to the
 * bill, not part of anot_usage_get_cost_usd().
 *
 * Returns: the estimated cost of the calls cancelled in flight, in US
 *   dollars; NaN when one's model had no price
 */
double
anot_usage_get_cancelled_cost_usd (AnotUsage *self)
{
  g_return_val_if_fail (ANOT_IS_USAGE (self), 0.0);
  return self->cancelled.unpriced_calls ? NAN : self->cancelled.cost_pusd / PUSD_PER_USD;
}

void
anot_usage_add_failed_retries (AnotUsage  *self,
                               const char *role,
                               guint64     retries)
{
  UsageTotals totals = { 0 };

  g_return_if_fail (ANOT_IS_USAGE (self));

  if (retries == 0)
    return;
  totals.retries = retries;
  totals_add (&self->total, &totals);
  if (role != NULL)
    table_add (self->by_role, role, &totals);
  anot_usage_notify_all (self);
}

/* For results rows read back from disk, which keep the partitions but not
 * the calls: adds to the total, or to one model or one role only. */
void
anot_usage_add_partial (AnotUsage  *self,
                        const char *model,
                        const char *role,
                        guint64     calls,
                        guint64     prompt_tokens,
                        guint64     completion_tokens,
                        double      cost_usd,
                        guint64     unpriced_calls,
                        double      latency_ms,
                        guint64     retries)
{
  UsageTotals totals = { .calls = calls, .prompt_tokens = prompt_tokens,
                         .completion_tokens = completion_tokens,
                         .cost_pusd = unpriced_calls ? 0 : to_pusd (cost_usd),
                         .unpriced_calls = unpriced_calls,
                         .latency_ns = to_ns (latency_ms), .retries = retries };

  g_return_if_fail (ANOT_IS_USAGE (self));

  if (model != NULL)
    table_add (self->by_model, model, &totals);
  else if (role != NULL)
    table_add (self->by_role, role, &totals);
  else
    totals_add (&self->total, &totals);
  anot_usage_notify_all (self);
}

/**
 * anot_usage_merge:
 * @self: an #AnotUsage
 * @other: usage to add to @self
 *
 * Adds every count of @other, in total, per model and per role, to @self.
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

  totals_add (&self->total, &other->total);
  totals_add (&self->cancelled, &other->cancelled);
  g_hash_table_iter_init (&iter, other->by_model);
  while (g_hash_table_iter_next (&iter, &key, &value))
    table_add (self->by_model, key, value);
  g_hash_table_iter_init (&iter, other->by_role);
  while (g_hash_table_iter_next (&iter, &key, &value))
    table_add (self->by_role, key, value);
  g_hash_table_iter_init (&iter, other->by_endpoint);
  while (g_hash_table_iter_next (&iter, &key, &value))
    table_add (self->by_endpoint, key, value);
  anot_usage_notify_all (self);
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
 * Returns: the sum of costs in US dollars, or NaN when a call had no
 *   price (see anot_usage_get_cost_known())
 */
double
anot_usage_get_cost_usd (AnotUsage *self)
{
  g_return_val_if_fail (ANOT_IS_USAGE (self), 0);
  return self->total.unpriced_calls ? NAN : self->total.cost_pusd / PUSD_PER_USD;
}

/**
 * anot_usage_get_unpriced_calls:
 * @self: an #AnotUsage
 *
 * Returns: the number of calls whose model had no price
 */
guint64
anot_usage_get_unpriced_calls (AnotUsage *self)
{
  g_return_val_if_fail (ANOT_IS_USAGE (self), 0);
  return self->total.unpriced_calls;
}

/**
 * anot_usage_get_cost_known:
 * @self: an #AnotUsage
 *
 * Returns: %TRUE when every call had a price, so that
 *   anot_usage_get_cost_usd() is the cost
 */
gboolean
anot_usage_get_cost_known (AnotUsage *self)
{
  g_return_val_if_fail (ANOT_IS_USAGE (self), TRUE);
  return self->total.unpriced_calls == 0;
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
  return self->total.latency_ns / NS_PER_MS;
}

/**
 * anot_usage_get_retries:
 * @self: an #AnotUsage
 *
 * Returns: the sum of the retries of the calls, those that failed in the
 *   end included
 */
guint64
anot_usage_get_retries (AnotUsage *self)
{
  g_return_val_if_fail (ANOT_IS_USAGE (self), 0);
  return self->total.retries;
}

static int compare_strings (gconstpointer a,
                            gconstpointer b);

/**
 * anot_usage_list_roles:
 * @self: an #AnotUsage
 *
 * Returns: (transfer full) (array zero-terminated=1): the roles that made
 *   calls, sorted
 */
char **
anot_usage_list_roles (AnotUsage *self)
{
  char **roles;
  guint n_roles;

  g_return_val_if_fail (ANOT_IS_USAGE (self), NULL);

  roles = (char **) g_hash_table_get_keys_as_array (self->by_role, &n_roles);
  for (guint i = 0; i < n_roles; i++)
    roles[i] = g_strdup (roles[i]);
  qsort (roles, n_roles, sizeof (char *), compare_strings);
  return roles;
}

/**
 * anot_usage_dup_role_usage:
 * @self: an #AnotUsage
 * @role: a role name
 *
 * The calls of one role, as a usage record of their own (its per-model
 * table is empty).
 *
 * Returns: (transfer full): the usage of @role, empty when it made no call
 */
AnotUsage *
anot_usage_dup_role_usage (AnotUsage  *self,
                           const char *role)
{
  AnotUsage *usage;
  UsageTotals *totals;

  g_return_val_if_fail (ANOT_IS_USAGE (self), NULL);
  g_return_val_if_fail (role != NULL, NULL);

  usage = anot_usage_new ();
  totals = g_hash_table_lookup (self->by_role, role);
  if (totals != NULL)
    usage->total = *totals;
  return usage;
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
  /* Unknown when a call had no price: null, never the priced part alone
   * (which would read as the whole).  The original rounds costs to 6
   * decimals. */
  if (totals->unpriced_calls > 0)
    json_builder_add_null_value (builder);
  else
    json_builder_add_double_value (builder, round (totals->cost_pusd / PUSD_PER_USD * 1e6) / 1e6);
  /* Only with such calls, so that priced results keep their bytes. */
  if (totals->unpriced_calls > 0)
    {
      json_builder_set_member_name (builder, "unpriced_calls");
      json_builder_add_int_value (builder, totals->unpriced_calls);
    }
}

static int
compare_strings (gconstpointer a,
                 gconstpointer b)
{
  return g_strcmp0 (*(const char * const *) a, *(const char * const *) b);
}

/* by_endpoint: per base URL, calls, tokens, latency (ms, summed over
 * calls) and errors (failed attempts, answered elsewhere or not). */
JsonNode *
anot_usage_endpoints_to_json (AnotUsage *self)
{
  g_autoptr(JsonBuilder) builder = json_builder_new ();
  g_autofree const char **endpoints = NULL;
  guint n_endpoints;

  endpoints = (const char **) g_hash_table_get_keys_as_array (self->by_endpoint, &n_endpoints);
  qsort (endpoints, n_endpoints, sizeof (char *), compare_strings);
  json_builder_begin_object (builder);
  for (guint i = 0; i < n_endpoints; i++)
    {
      UsageTotals *totals = g_hash_table_lookup (self->by_endpoint, endpoints[i]);

      json_builder_set_member_name (builder, endpoints[i]);
      json_builder_begin_object (builder);
      totals_to_json (builder, totals, FALSE);
      json_builder_set_member_name (builder, "latency_ms");
      json_builder_add_double_value (builder, round (totals->latency_ns / NS_PER_MS * 100) / 100);
      json_builder_set_member_name (builder, "errors");
      json_builder_add_int_value (builder, totals->errors);
      json_builder_end_object (builder);
    }
  json_builder_end_object (builder);
  return json_builder_get_root (builder);
}

void
anot_usage_add_endpoint_partial (AnotUsage  *self,
                                 const char *endpoint,
                                 guint64     calls,
                                 guint64     prompt_tokens,
                                 guint64     completion_tokens,
                                 double      cost_usd,
                                 guint64     unpriced_calls,
                                 double      latency_ms,
                                 guint64     errors)
{
  UsageTotals totals = { .calls = calls, .prompt_tokens = prompt_tokens,
                         .completion_tokens = completion_tokens,
                         .cost_pusd = unpriced_calls ? 0 : to_pusd (cost_usd),
                         .unpriced_calls = unpriced_calls,
                         .latency_ns = to_ns (latency_ms), .errors = errors };

  g_return_if_fail (ANOT_IS_USAGE (self));
  table_add (self->by_endpoint, endpoint, &totals);
}

guint
anot_usage_get_n_endpoints (AnotUsage *self)
{
  return g_hash_table_size (self->by_endpoint);
}

/**
 * anot_usage_to_json:
 * @self: an #AnotUsage
 *
 * Serialises the usage in the schema of the original framework's
 * `config.json` `usage` object: `total_calls`, `total_prompt_tokens`,
 * `total_completion_tokens`, `total_tokens`, `total_cost_usd`,
 * `total_latency_ms`, `avg_latency_ms` and `by_model`, and anot's
 * additions `total_retries` and `by_role` (per role: `calls`,
 * `prompt_tokens`, `completion_tokens`, `cost_usd`, `retries`) and,
 * when calls went to several endpoints, `by_endpoint` (per base URL:
 * `calls`, `prompt_tokens`, `completion_tokens`, `cost_usd`,
 * `latency_ms`, `errors`), and when calls were cancelled in flight,
 * `cancelled_in_flight` (`calls`, `prompt_tokens`, `completion_tokens`
 * as estimated, `estimated_cost_usd`: see
 * anot_usage_get_cancelled_cost_usd()).  A cost with a call without a
 * price is null, with `unpriced_calls` (the number of such calls) beside
 * it; the member is absent when every call was priced.
 *
 * Returns: (transfer full): a JSON object node
 */
JsonNode *
anot_usage_to_json (AnotUsage *self)
{
  g_autoptr(JsonBuilder) builder = json_builder_new ();
  g_autofree const char **models = NULL;
  g_autofree const char **roles = NULL;
  guint n_models, n_roles;

  g_return_val_if_fail (ANOT_IS_USAGE (self), NULL);

  json_builder_begin_object (builder);
  totals_to_json (builder, &self->total, TRUE);
  json_builder_set_member_name (builder, "total_latency_ms");
  json_builder_add_double_value (builder, round (self->total.latency_ns / NS_PER_MS * 100) / 100);
  json_builder_set_member_name (builder, "avg_latency_ms");
  json_builder_add_double_value (builder,
                                 self->total.calls
                                 ? round (self->total.latency_ns / NS_PER_MS / self->total.calls * 100) / 100
                                 : 0.0);

  json_builder_set_member_name (builder, "total_retries");
  json_builder_add_int_value (builder, self->total.retries);

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

  json_builder_set_member_name (builder, "by_role");
  json_builder_begin_object (builder);
  roles = (const char **) g_hash_table_get_keys_as_array (self->by_role, &n_roles);
  qsort (roles, n_roles, sizeof (char *), compare_strings);
  for (guint i = 0; i < n_roles; i++)
    {
      UsageTotals *totals = g_hash_table_lookup (self->by_role, roles[i]);

      json_builder_set_member_name (builder, roles[i]);
      json_builder_begin_object (builder);
      totals_to_json (builder, totals, FALSE);
      json_builder_set_member_name (builder, "retries");
      json_builder_add_int_value (builder, totals->retries);
      json_builder_end_object (builder);
    }
  json_builder_end_object (builder);

  /* Only when there were some, so that other results keep their bytes. */
  if (self->cancelled.calls > 0)
    {
      json_builder_set_member_name (builder, "cancelled_in_flight");
      json_builder_begin_object (builder);
      json_builder_set_member_name (builder, "calls");
      json_builder_add_int_value (builder, self->cancelled.calls);
      json_builder_set_member_name (builder, "prompt_tokens");
      json_builder_add_int_value (builder, self->cancelled.prompt_tokens);
      json_builder_set_member_name (builder, "completion_tokens");
      json_builder_add_int_value (builder, self->cancelled.completion_tokens);
      json_builder_set_member_name (builder, "estimated_cost_usd");
      /* null when a model had no price. */
      if (self->cancelled.unpriced_calls > 0)
        json_builder_add_null_value (builder);
      else
        json_builder_add_double_value (builder, round (self->cancelled.cost_pusd / PUSD_PER_USD * 1e6) / 1e6);
      json_builder_end_object (builder);
    }

  /* Only with several endpoints, so single-endpoint results keep their
   * bytes. */
  if (g_hash_table_size (self->by_endpoint) > 0)
    {
      json_builder_set_member_name (builder, "by_endpoint");
      json_builder_add_value (builder, anot_usage_endpoints_to_json (self));
    }
  json_builder_end_object (builder);

  return json_builder_get_root (builder);
}

void
anot_usage_add_cost_value (JsonBuilder *builder,
                           double       cost_usd)
{
  if (isnan (cost_usd))
    json_builder_add_null_value (builder);
  else
    json_builder_add_double_value (builder, cost_usd);
}

void
anot_usage_set_cost_member (JsonObject *object,
                            const char *member,
                            double      cost_usd)
{
  if (isnan (cost_usd))
    json_object_set_null_member (object, member);
  else
    json_object_set_double_member (object, member, cost_usd);
}

double
anot_usage_read_cost (JsonObject *object,
                      const char *member)
{
  JsonNode *node = object != NULL ? json_object_get_member (object, member) : NULL;

  if (node == NULL)
    return 0;
  if (JSON_NODE_HOLDS_NULL (node))
    return NAN;
  if (!JSON_NODE_HOLDS_VALUE (node) ||
      (json_node_get_value_type (node) != G_TYPE_DOUBLE &&
       json_node_get_value_type (node) != G_TYPE_INT64))
    return 0;
  return json_node_get_double (node);
}
