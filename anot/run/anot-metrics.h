/* anot-metrics.h
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#if !defined(ANOT_INSIDE) && !defined(ANOT_COMPILATION)
#error "Only <anot/anot.h> can be included directly."
#endif

#include <glib-object.h>
#include <json-glib/json-glib.h>

G_BEGIN_DECLS

#define ANOT_TYPE_METRICS (anot_metrics_get_type ())
G_DECLARE_FINAL_TYPE (AnotMetrics, anot_metrics, ANOT, METRICS, GObject)

AnotMetrics *anot_metrics_new               (guint         k);
void         anot_metrics_add               (AnotMetrics  *self,
                                             const char   *group,
                                             guint         gold_rank);
guint        anot_metrics_get_k             (AnotMetrics  *self);
guint        anot_metrics_get_total         (AnotMetrics  *self);
guint        anot_metrics_get_hits          (AnotMetrics  *self,
                                             guint         at);
double       anot_metrics_get_hits_at       (AnotMetrics  *self,
                                             guint         at);
double       anot_metrics_get_mrr           (AnotMetrics  *self);
char       **anot_metrics_list_groups       (AnotMetrics  *self);
AnotMetrics *anot_metrics_get_group         (AnotMetrics  *self,
                                             const char   *group);
JsonNode    *anot_metrics_to_json           (AnotMetrics  *self);

gboolean     anot_stats_mean_std            (const double *values,
                                             gsize         n_values,
                                             double       *out_mean,
                                             double       *out_std);
JsonNode    *anot_metrics_summarize_runs    (GPtrArray    *runs);

G_END_DECLS
