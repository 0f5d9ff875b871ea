/* anot-experiment.h
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#if !defined(ANOT_INSIDE) && !defined(ANOT_COMPILATION)
#error "Only <anot/anot.h> can be included directly."
#endif

#include "anot-visibility.h"

#include <gio/gio.h>

#include "anot-attack.h"
#include "anot-batch-queue.h"
#include "anot-dataset.h"
#include "anot-metrics.h"
#include "anot-pool.h"
#include "anot-result.h"
#include "anot-run-config.h"

G_BEGIN_DECLS

#define ANOT_TYPE_EXPERIMENT (anot_experiment_get_type ())
ANOT_AVAILABLE_IN_ALL
G_DECLARE_FINAL_TYPE (AnotExperiment, anot_experiment, ANOT, EXPERIMENT, GObject)

ANOT_AVAILABLE_IN_ALL
AnotExperiment *anot_experiment_new             (AnotDataset          *dataset,
                                                 const char           *method);
ANOT_AVAILABLE_IN_ALL
AnotExperiment *anot_experiment_new_for_resume  (const char           *directory,
                                                 AnotDataset          *dataset,
                                                 GError              **error);
ANOT_AVAILABLE_IN_ALL
void            anot_experiment_set_option      (AnotExperiment       *self,
                                                 const char           *key,
                                                 const char           *value);
ANOT_AVAILABLE_IN_ALL
void            anot_experiment_set_config      (AnotExperiment       *self,
                                                 const AnotRunConfig  *config);
ANOT_AVAILABLE_IN_ALL
AnotRunConfig  *anot_experiment_get_config      (AnotExperiment       *self);
ANOT_AVAILABLE_IN_ALL
AnotBatchQueue *anot_experiment_get_batch_queue (AnotExperiment       *self);
ANOT_AVAILABLE_IN_ALL
AnotUsage      *anot_experiment_dup_cancelled_usage (AnotExperiment   *self);
ANOT_AVAILABLE_IN_ALL
AnotBackendRouter *anot_experiment_get_router (AnotExperiment      *self);
ANOT_AVAILABLE_IN_ALL
JsonNode       *anot_experiment_preview_prompts (AnotExperiment       *self,
                                                guint                 max_calls,
                                                GError              **error);
ANOT_AVAILABLE_IN_ALL
JsonNode       *anot_experiment_estimate        (AnotExperiment       *self,
                                                 guint                 completion_tokens,
                                                 GError              **error);
ANOT_AVAILABLE_IN_ALL
gboolean        anot_experiment_prepare         (AnotExperiment       *self,
                                                 GError              **error);
ANOT_AVAILABLE_IN_ALL
gboolean        anot_experiment_check_api_keys  (AnotExperiment       *self,
                                                 GError              **error);
ANOT_AVAILABLE_IN_ALL
char          **anot_experiment_list_unpriced_models (AnotExperiment *self);
ANOT_AVAILABLE_IN_ALL
void            anot_experiment_run_async       (AnotExperiment       *self,
                                                 GCancellable         *cancellable,
                                                 GAsyncReadyCallback   callback,
                                                 gpointer              user_data);
ANOT_AVAILABLE_IN_ALL
gboolean        anot_experiment_run_finish      (AnotExperiment       *self,
                                                 GAsyncResult         *result,
                                                 GError              **error);
ANOT_AVAILABLE_IN_ALL
gboolean        anot_experiment_run             (AnotExperiment       *self,
                                                 GCancellable         *cancellable,
                                                 GError              **error);
ANOT_AVAILABLE_IN_ALL
const char     *anot_experiment_get_directory   (AnotExperiment       *self);
ANOT_AVAILABLE_IN_ALL
guint           anot_experiment_get_n_planned   (AnotExperiment       *self);
ANOT_AVAILABLE_IN_ALL
guint           anot_experiment_get_n_dropped   (AnotExperiment       *self,
                                                 guint                 n_candidates);
ANOT_AVAILABLE_IN_ALL
AnotMetrics    *anot_experiment_get_metrics     (AnotExperiment       *self,
                                                 guint                 n_candidates,
                                                 guint                 run);
ANOT_AVAILABLE_IN_ALL
GPtrArray      *anot_experiment_get_results     (AnotExperiment       *self,
                                                 guint                 n_candidates,
                                                 guint                 run);
ANOT_AVAILABLE_IN_ALL
const guint    *anot_experiment_get_candidate_counts (AnotExperiment  *self,
                                                 guint                *n_counts);
ANOT_AVAILABLE_IN_ALL
guint           anot_experiment_get_n_runs      (AnotExperiment       *self);
ANOT_AVAILABLE_IN_ALL
gboolean        anot_experiment_is_skipped      (AnotExperiment       *self,
                                                 guint                 n_candidates);
ANOT_AVAILABLE_IN_ALL
char          **anot_experiment_list_attacks    (AnotExperiment       *self);
ANOT_AVAILABLE_IN_ALL
AnotAttack     *anot_experiment_get_attack      (AnotExperiment       *self,
                                                 const char           *attack);
ANOT_AVAILABLE_IN_ALL
const char     *anot_experiment_get_attack_directory (AnotExperiment  *self,
                                                 const char           *attack);
ANOT_AVAILABLE_IN_ALL
const char     *anot_experiment_get_current_attack (AnotExperiment    *self);
ANOT_AVAILABLE_IN_ALL
gboolean        anot_experiment_get_defense     (AnotExperiment       *self);
ANOT_AVAILABLE_IN_ALL
AnotMetrics    *anot_experiment_get_attack_metrics (AnotExperiment    *self,
                                                 const char           *attack,
                                                 guint                 n_candidates,
                                                 guint                 run);
ANOT_AVAILABLE_IN_ALL
GPtrArray      *anot_experiment_get_attack_results (AnotExperiment    *self,
                                                 const char           *attack,
                                                 guint                 n_candidates,
                                                 guint                 run);

ANOT_AVAILABLE_IN_ALL
gboolean        anot_experiment_merge_shards        (const char         *out_directory,
                                                     const char * const *shard_directories,
                                                     gboolean            force,
                                                     GError            **error);

G_END_DECLS
