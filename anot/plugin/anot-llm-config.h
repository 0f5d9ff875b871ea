/* anot-llm-config.h
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#if !defined(ANOT_INSIDE) && !defined(ANOT_COMPILATION)
#error "Only <anot/anot.h> can be included directly."
#endif

#include "anot-visibility.h"

#include <gio/gio.h>
#include <json-glib/json-glib.h>

#include "anot-backend-router.h"
#include "anot-batch-queue.h"

G_BEGIN_DECLS

#define ANOT_TYPE_LLM_CONFIG (anot_llm_config_get_type ())
ANOT_AVAILABLE_IN_ALL
G_DECLARE_FINAL_TYPE (AnotLlmConfig, anot_llm_config, ANOT, LLM_CONFIG, GObject)

ANOT_AVAILABLE_IN_ALL
AnotLlmConfig     *anot_llm_config_new                (void);
ANOT_AVAILABLE_IN_ALL
gboolean           anot_llm_config_load_file          (AnotLlmConfig       *self,
                                                       const char          *path,
                                                       GError             **error);
ANOT_AVAILABLE_IN_ALL
gboolean           anot_llm_config_load_default_file  (AnotLlmConfig       *self,
                                                       GError             **error);
ANOT_AVAILABLE_IN_ALL
char              *anot_llm_config_get_default_path   (void);
ANOT_AVAILABLE_IN_ALL
void               anot_llm_config_set_environment    (AnotLlmConfig       *self,
                                                       const char * const  *envp);
ANOT_AVAILABLE_IN_ALL
gboolean           anot_llm_config_set                (AnotLlmConfig       *self,
                                                       const char          *role,
                                                       const char          *key,
                                                       const char          *value,
                                                       GError             **error);
ANOT_AVAILABLE_IN_ALL
gboolean           anot_llm_config_add_role_spec      (AnotLlmConfig       *self,
                                                       const char          *spec,
                                                       GError             **error);
ANOT_AVAILABLE_IN_ALL
char              *anot_llm_config_lookup             (AnotLlmConfig       *self,
                                                       const char          *role,
                                                       const char          *key,
                                                       char               **source);
ANOT_AVAILABLE_IN_ALL
gboolean           anot_llm_config_has_role           (AnotLlmConfig       *self,
                                                       const char          *role);
ANOT_AVAILABLE_IN_ALL
char             **anot_llm_config_list_roles         (AnotLlmConfig       *self);
ANOT_AVAILABLE_IN_ALL
AnotBackendRouter *anot_llm_config_create_router      (AnotLlmConfig       *self,
                                                       GError             **error);
ANOT_AVAILABLE_IN_ALL
AnotBackendRouter *anot_llm_config_create_cached_router (AnotLlmConfig     *self,
                                                       const char          *cache_path,
                                                       gboolean             offline,
                                                       GError             **error);
ANOT_AVAILABLE_IN_ALL
char              *anot_llm_config_get_run_setting    (AnotLlmConfig       *self,
                                                       const char          *key,
                                                       char               **source);
ANOT_AVAILABLE_IN_ALL
void               anot_llm_config_set_batch_queue    (AnotLlmConfig       *self,
                                                       AnotBatchQueue      *queue);
ANOT_AVAILABLE_IN_ALL
JsonNode          *anot_llm_config_to_json            (AnotLlmConfig       *self,
                                                       AnotBackendRouter   *router);

G_END_DECLS
