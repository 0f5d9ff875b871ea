/* anot-experiment.h
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#if !defined(ANOT_INSIDE) && !defined(ANOT_COMPILATION)
#error "Only <anot/anot.h> can be included directly."
#endif

#include <gio/gio.h>

#include "anot-attack.h"
#include "anot-dataset.h"
#include "anot-metrics.h"
#include "anot-pool.h"
#include "anot-result.h"
#include "anot-run-config.h"

G_BEGIN_DECLS

#define ANOT_TYPE_EXPERIMENT (anot_experiment_get_type ())
G_DECLARE_FINAL_TYPE (AnotExperiment, anot_experiment, ANOT, EXPERIMENT, GObject)

AnotExperiment *anot_experiment_new             (AnotDataset          *dataset,
                                                 const char           *method);
AnotExperiment *anot_experiment_new_for_resume  (const char           *directory,
                                                 AnotDataset          *dataset,
                                                 GError              **error);
void            anot_experiment_set_option      (AnotExperiment       *self,
                                                 const char           *key,
                                                 const char           *value);
void            anot_experiment_set_config      (AnotExperiment       *self,
                                                 const AnotRunConfig  *config);
AnotRunConfig  *anot_experiment_get_config      (AnotExperiment       *self);
gboolean        anot_experiment_prepare         (AnotExperiment       *self,
                                                 GError              **error);
void            anot_experiment_run_async       (AnotExperiment       *self,
                                                 GCancellable         *cancellable,
                                                 GAsyncReadyCallback   callback,
                                                 gpointer              user_data);
gboolean        anot_experiment_run_finish      (AnotExperiment       *self,
                                                 GAsyncResult         *result,
                                                 GError              **error);
gboolean        anot_experiment_run             (AnotExperiment       *self,
                                                 GCancellable         *cancellable,
                                                 GError              **error);
const char     *anot_experiment_get_directory   (AnotExperiment       *self);
guint           anot_experiment_get_n_planned   (AnotExperiment       *self);
guint           anot_experiment_get_n_dropped   (AnotExperiment       *self,
                                                 guint                 n_candidates);
AnotMetrics    *anot_experiment_get_metrics     (AnotExperiment       *self,
                                                 guint                 n_candidates,
                                                 guint                 run);
GPtrArray      *anot_experiment_get_results     (AnotExperiment       *self,
                                                 guint                 n_candidates,
                                                 guint                 run);
const guint    *anot_experiment_get_candidate_counts (AnotExperiment  *self,
                                                 guint                *n_counts);
guint           anot_experiment_get_n_runs      (AnotExperiment       *self);
gboolean        anot_experiment_is_skipped      (AnotExperiment       *self,
                                                 guint                 n_candidates);
char          **anot_experiment_list_attacks    (AnotExperiment       *self);
AnotAttack     *anot_experiment_get_attack      (AnotExperiment       *self,
                                                 const char           *attack);
const char     *anot_experiment_get_attack_directory (AnotExperiment  *self,
                                                 const char           *attack);
const char     *anot_experiment_get_current_attack (AnotExperiment    *self);
gboolean        anot_experiment_get_defense     (AnotExperiment       *self);
AnotMetrics    *anot_experiment_get_attack_metrics (AnotExperiment    *self,
                                                 const char           *attack,
                                                 guint                 n_candidates,
                                                 guint                 run);
GPtrArray      *anot_experiment_get_attack_results (AnotExperiment    *self,
                                                 const char           *attack,
                                                 guint                 n_candidates,
                                                 guint                 run);

G_END_DECLS
