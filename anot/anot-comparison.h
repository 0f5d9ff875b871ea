/* anot-comparison.h
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#if !defined(ANOT_INSIDE) && !defined(ANOT_COMPILATION)
#error "Only <anot/anot.h> can be included directly."
#endif

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
G_DECLARE_FINAL_TYPE (AnotComparison, anot_comparison, ANOT, COMPARISON, GObject)

AnotComparison *anot_comparison_new             (AnotResults     *results);
void            anot_comparison_set_baseline    (AnotComparison  *self,
                                                 const char      *method);
void            anot_comparison_set_resamples   (AnotComparison  *self,
                                                 guint            resamples);
void            anot_comparison_set_seed        (AnotComparison  *self,
                                                 guint64          seed);
void            anot_comparison_set_confidence  (AnotComparison  *self,
                                                 double           level);
gboolean        anot_comparison_compute         (AnotComparison  *self,
                                                 GError         **error);
JsonNode       *anot_comparison_to_json         (AnotComparison  *self);
char           *anot_comparison_format          (AnotComparison  *self,
                                                 const char      *format,
                                                 GError         **error);

gboolean        anot_comparison_bootstrap_interval (const double *values,
                                                    gsize         n_values,
                                                    guint         resamples,
                                                    guint64       seed,
                                                    double        level,
                                                    double       *out_mean,
                                                    double       *out_lower,
                                                    double       *out_upper);
double          anot_comparison_mcnemar_p          (guint         method_only,
                                                    guint         baseline_only);
guint64         anot_comparison_cell_seed          (guint64       seed,
                                                    const char   *key);

G_END_DECLS
