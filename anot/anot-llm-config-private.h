/* anot-llm-config-private.h: between AnotLlmConfig and AnotBackendRouter
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include "anot-backend-router.h"
#include "anot-llm-config.h"

G_BEGIN_DECLS

/* Builds the route of @role from the configuration: the backend (shared
 * through @instances, keyed by the backend name and every connection
 * setting, so roles on the same server share its concurrency bound) and
 * the role's generation defaults (model, temperature, ...). */
gboolean           anot_llm_config_resolve_route      (AnotLlmConfig      *self,
                                                       const char         *role,
                                                       GHashTable         *instances,
                                                       char              **out_backend_name,
                                                       AnotBackend       **out_backend,
                                                       AnotChatRequest   **out_defaults,
                                                       GError            **error);

/* A router that asks @config for the roles it has no route for. */
AnotBackendRouter *anot_backend_router_new_for_config (AnotLlmConfig      *config);

G_END_DECLS
