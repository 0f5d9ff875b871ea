/* anot-comparison.h
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

#include "anot-results.h"

G_BEGIN_DECLS

/**
 * ANOT_COMPARISON_DEFAULT_RESAMPLES:
 *
 * Bootstrap resamples drawn for every interval unless told otherwise.
 */
#define ANOT_COMPARISON_DEFAULT_RESAMPLES 10000

/**
 * ANOT_COMPARISON_DEFAULT_SEED:
 *
 * Seed of the bootstrap unless told otherwise.
 */
#define ANOT_COMPARISON_DEFAULT_SEED 42

#define ANOT_TYPE_COMPARISON (anot_comparison_get_type ())
ANOT_AVAILABLE_IN_ALL
G_DECLARE_FINAL_TYPE (AnotComparison, anot_comparison, ANOT, COMPARISON, GObject)

ANOT_AVAILABLE_IN_ALL
AnotComparison *anot_comparison_new             (AnotResults     *results);
ANOT_AVAILABLE_IN_ALL
void            anot_comparison_set_baseline    (AnotComparison  *self,
                                                 const char      *method);
ANOT_AVAILABLE_IN_ALL
void            anot_comparison_set_resamples   (AnotComparison  *self,
                                                 guint            resamples);
ANOT_AVAILABLE_IN_ALL
void            anot_comparison_set_seed        (AnotComparison  *self,
                                                 guint64          seed);
ANOT_AVAILABLE_IN_ALL
void            anot_comparison_set_confidence  (AnotComparison  *self,
                                                 double           level);
ANOT_AVAILABLE_IN_ALL
void            anot_comparison_set_by_condition (AnotComparison *self,
                                                  gboolean        by_condition);
ANOT_AVAILABLE_IN_ALL
gboolean        anot_comparison_compute         (AnotComparison  *self,
                                                 GError         **error);
ANOT_AVAILABLE_IN_ALL
JsonNode       *anot_comparison_to_json         (AnotComparison  *self);
ANOT_AVAILABLE_IN_ALL
char           *anot_comparison_format          (AnotComparison  *self,
                                                 const char      *format,
                                                 GError         **error);

ANOT_AVAILABLE_IN_ALL
gboolean        anot_comparison_bootstrap_interval (const double *values,
                                                    gsize         n_values,
                                                    guint         resamples,
                                                    guint64       seed,
                                                    double        level,
                                                    double       *out_mean,
                                                    double       *out_lower,
                                                    double       *out_upper);
ANOT_AVAILABLE_IN_ALL
double          anot_comparison_mcnemar_p          (guint         method_only,
                                                    guint         baseline_only);
ANOT_AVAILABLE_IN_ALL
guint64         anot_comparison_cell_seed          (guint64       seed,
                                                    const char   *key);

ANOT_AVAILABLE_IN_ALL
char          **anot_comparison_list_warnings (AnotComparison  *self);

G_END_DECLS
