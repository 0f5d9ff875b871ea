/* anot-metrics.h
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#if !defined(ANOT_INSIDE) && !defined(ANOT_COMPILATION)
#error "Only <anot/anot.h> can be included directly."
#endif

#include "anot-visibility.h"

#include <glib-object.h>
#include <json-glib/json-glib.h>

#include "anot-result.h"

G_BEGIN_DECLS

#define ANOT_TYPE_METRICS (anot_metrics_get_type ())
ANOT_AVAILABLE_IN_ALL
G_DECLARE_FINAL_TYPE (AnotMetrics, anot_metrics, ANOT, METRICS, GObject)

ANOT_AVAILABLE_IN_ALL
AnotMetrics *anot_metrics_new               (guint         k);
ANOT_AVAILABLE_IN_ALL
void         anot_metrics_add               (AnotMetrics  *self,
                                             const char   *group,
                                             guint         gold_rank);
ANOT_AVAILABLE_IN_ALL
void         anot_metrics_add_result        (AnotMetrics  *self,
                                             AnotResult   *result);
ANOT_AVAILABLE_IN_ALL
guint        anot_metrics_get_unscored      (AnotMetrics  *self);
ANOT_AVAILABLE_IN_ALL
double       anot_metrics_get_shrunk_share  (AnotMetrics  *self);
ANOT_AVAILABLE_IN_ALL
double       anot_metrics_get_dropped_share (AnotMetrics  *self);
ANOT_AVAILABLE_IN_ALL
guint        anot_metrics_get_k             (AnotMetrics  *self);
ANOT_AVAILABLE_IN_ALL
guint        anot_metrics_get_total         (AnotMetrics  *self);
ANOT_AVAILABLE_IN_ALL
guint        anot_metrics_get_hits          (AnotMetrics  *self,
                                             guint         at);
ANOT_AVAILABLE_IN_ALL
double       anot_metrics_get_hits_at       (AnotMetrics  *self,
                                             guint         at);
ANOT_AVAILABLE_IN_ALL
double       anot_metrics_get_mrr           (AnotMetrics  *self);
ANOT_AVAILABLE_IN_ALL
char       **anot_metrics_list_groups       (AnotMetrics  *self);
ANOT_AVAILABLE_IN_ALL
AnotMetrics *anot_metrics_get_group         (AnotMetrics  *self,
                                             const char   *group);
ANOT_AVAILABLE_IN_ALL
JsonNode    *anot_metrics_to_json           (AnotMetrics  *self);

ANOT_AVAILABLE_IN_ALL
gboolean     anot_stats_mean_std            (const double *values,
                                             gsize         n_values,
                                             double       *out_mean,
                                             double       *out_std);
ANOT_AVAILABLE_IN_ALL
JsonNode    *anot_metrics_summarize_runs    (GPtrArray    *runs);

G_END_DECLS
