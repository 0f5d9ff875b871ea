/* anot-run-config.h: the typed settings of an experiment
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#if !defined(ANOT_INSIDE) && !defined(ANOT_COMPILATION)
#error "Only <anot/anot.h> can be included directly."
#endif

#include <json-glib/json-glib.h>

#include "anot-pool.h"

G_BEGIN_DECLS

#define ANOT_TYPE_RUN_CONFIG (anot_run_config_get_type ())

typedef struct _AnotRunConfig AnotRunConfig;

GType           anot_run_config_get_type        (void) G_GNUC_CONST;

AnotRunConfig  *anot_run_config_new             (void);
AnotRunConfig  *anot_run_config_new_from_json   (JsonNode             *node,
                                                 GError              **error);
AnotRunConfig  *anot_run_config_copy            (const AnotRunConfig  *self);
AnotRunConfig  *anot_run_config_ref             (AnotRunConfig        *self);
void            anot_run_config_unref           (AnotRunConfig        *self);

gboolean        anot_run_config_set             (AnotRunConfig        *self,
                                                 const char           *key,
                                                 const char           *value,
                                                 GError              **error);
char           *anot_run_config_get             (const AnotRunConfig  *self,
                                                 const char           *key);
gboolean        anot_run_config_is_set          (const AnotRunConfig  *self,
                                                 const char           *key);
char          **anot_run_config_list_keys       (void);
char          **anot_run_config_list_set_keys   (const AnotRunConfig  *self);
JsonNode       *anot_run_config_to_json         (const AnotRunConfig  *self);

const guint    *anot_run_config_get_candidates  (const AnotRunConfig  *self,
                                                 guint                *n_candidates);
gboolean        anot_run_config_get_scaling     (const AnotRunConfig  *self);
AnotPoolMode    anot_run_config_get_pool_mode   (const AnotRunConfig  *self);
AnotShuffleMode anot_run_config_get_shuffle_mode (const AnotRunConfig *self);
guint           anot_run_config_get_k           (const AnotRunConfig  *self);
guint64         anot_run_config_get_seed        (const AnotRunConfig  *self);
guint           anot_run_config_get_runs        (const AnotRunConfig  *self);
guint           anot_run_config_get_concurrency (const AnotRunConfig  *self);
guint           anot_run_config_get_limit       (const AnotRunConfig  *self);
gboolean        anot_run_config_get_defense     (const AnotRunConfig  *self);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (AnotRunConfig, anot_run_config_unref)

G_END_DECLS
