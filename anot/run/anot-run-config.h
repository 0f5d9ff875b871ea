/* anot-run-config.h: the typed settings of an experiment
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#if !defined(ANOT_INSIDE) && !defined(ANOT_COMPILATION)
#error "Only <anot/anot.h> can be included directly."
#endif

#include "anot-visibility.h"

#include <json-glib/json-glib.h>

#include "anot-method-context.h"
#include "anot-pool.h"
#include "anot-review-forge.h"

G_BEGIN_DECLS

#define ANOT_TYPE_RUN_CONFIG (anot_run_config_get_type ())

/**
 * ANOT_RUN_CONFIG_DEFAULT_REQUEST_TIMEOUT:
 *
 * The default deadline of one request, in seconds (`request-timeout`):
 * an hour, generous enough for a multi-round method on a slow provider.
 */
#define ANOT_RUN_CONFIG_DEFAULT_REQUEST_TIMEOUT 3600

typedef struct _AnotRunConfig AnotRunConfig;

ANOT_AVAILABLE_IN_ALL
GType           anot_run_config_get_type        (void) G_GNUC_CONST;

ANOT_AVAILABLE_IN_ALL
AnotRunConfig  *anot_run_config_new             (void);
ANOT_AVAILABLE_IN_ALL
AnotRunConfig  *anot_run_config_new_from_json   (JsonNode             *node,
                                                 GError              **error);
ANOT_AVAILABLE_IN_ALL
AnotRunConfig  *anot_run_config_copy            (const AnotRunConfig  *self);
ANOT_AVAILABLE_IN_ALL
AnotRunConfig  *anot_run_config_ref             (AnotRunConfig        *self);
ANOT_AVAILABLE_IN_ALL
void            anot_run_config_unref           (AnotRunConfig        *self);

ANOT_AVAILABLE_IN_ALL
gboolean        anot_run_config_set             (AnotRunConfig        *self,
                                                 const char           *key,
                                                 const char           *value,
                                                 GError              **error);
ANOT_AVAILABLE_IN_ALL
char           *anot_run_config_get             (const AnotRunConfig  *self,
                                                 const char           *key);
ANOT_AVAILABLE_IN_ALL
gboolean        anot_run_config_is_set          (const AnotRunConfig  *self,
                                                 const char           *key);
ANOT_AVAILABLE_IN_ALL
char          **anot_run_config_list_keys       (void);
ANOT_AVAILABLE_IN_ALL
char          **anot_run_config_list_set_keys   (const AnotRunConfig  *self);
ANOT_AVAILABLE_IN_ALL
JsonNode       *anot_run_config_to_json         (const AnotRunConfig  *self);

ANOT_AVAILABLE_IN_ALL
const guint    *anot_run_config_get_candidates  (const AnotRunConfig  *self,
                                                 guint                *n_candidates);
ANOT_AVAILABLE_IN_ALL
gboolean        anot_run_config_get_scaling     (const AnotRunConfig  *self);
ANOT_AVAILABLE_IN_ALL
AnotPoolMode    anot_run_config_get_pool_mode   (const AnotRunConfig  *self);
ANOT_AVAILABLE_IN_ALL
AnotShuffleMode anot_run_config_get_shuffle_mode (const AnotRunConfig *self);
ANOT_AVAILABLE_IN_ALL
guint           anot_run_config_get_k           (const AnotRunConfig  *self);
ANOT_AVAILABLE_IN_ALL
guint64         anot_run_config_get_seed        (const AnotRunConfig  *self);
ANOT_AVAILABLE_IN_ALL
guint           anot_run_config_get_runs        (const AnotRunConfig  *self);
ANOT_AVAILABLE_IN_ALL
guint           anot_run_config_get_concurrency (const AnotRunConfig  *self);
ANOT_AVAILABLE_IN_ALL
guint           anot_run_config_get_limit       (const AnotRunConfig  *self);
ANOT_AVAILABLE_IN_ALL
AnotCompatMode   anot_run_config_get_compat     (const AnotRunConfig *self);
ANOT_AVAILABLE_IN_ALL
AnotAttackCompat anot_run_config_get_attack_compat (const AnotRunConfig *self);
ANOT_AVAILABLE_IN_ALL
gboolean        anot_run_config_get_defense     (const AnotRunConfig  *self);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (AnotRunConfig, anot_run_config_unref)

G_END_DECLS
