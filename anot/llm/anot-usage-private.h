/* anot-usage-private.h: AnotUsage internals
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include "anot-usage.h"

G_BEGIN_DECLS

/* Adds counts to one part of @self: the per-model table when @model is
 * set, else the per-role table when @role is set, else the totals.  For
 * usage read back from results rows, which keep the totals and both
 * partitions but not the individual calls.  @cost_usd is ignored when
 * @unpriced_calls is not 0: rows keep no priced part of an unknown
 * cost. */
void anot_usage_add_partial (AnotUsage  *self,
                             const char *model,
                             const char *role,
                             guint64     calls,
                             guint64     prompt_tokens,
                             guint64     completion_tokens,
                             double      cost_usd,
                             guint64     unpriced_calls,
                             double      latency_ms,
                             guint64     retries);

/* Calls cancelled in flight (anot_usage_get_cancelled_calls()): estimates,
 * kept apart from the calls that were answered. */
void anot_usage_add_cancelled (AnotUsage *self,
                               guint64    calls,
                               guint64    prompt_tokens,
                               guint64    completion_tokens,
                               double     cost_usd);

/* The retries of a call that failed in the end: counted in the totals and
 * under @role (nullable), beside no call. */
void anot_usage_add_failed_retries (AnotUsage  *self,
                                    const char *role,
                                    guint64     retries);

/* The per-endpoint table (several endpoints only): read back from rows,
 * written into rows, usage.jsonl and config.json. */
void      anot_usage_add_endpoint_partial (AnotUsage  *self,
                                           const char *endpoint,
                                           guint64     calls,
                                           guint64     prompt_tokens,
                                           guint64     completion_tokens,
                                           double      cost_usd,
                                           guint64     unpriced_calls,
                                           double      latency_ms,
                                           guint64     errors);
guint     anot_usage_get_n_endpoints      (AnotUsage  *self);
JsonNode *anot_usage_endpoints_to_json    (AnotUsage  *self);

/* A cost that may be unknown (NaN: a call had no price) as a JSON value:
 * null, never a number. */
void   anot_usage_add_cost_value (JsonBuilder *builder,
                                  double       cost_usd);
void   anot_usage_set_cost_member (JsonObject *object,
                                   const char *member,
                                   double      cost_usd);
/* @member of @object read as a cost: NaN when null (unknown), 0 when
 * absent or not a number. */
double anot_usage_read_cost       (JsonObject *object,
                                   const char *member);

G_END_DECLS
