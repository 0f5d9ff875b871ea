/* anot-backend-router.h
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#if !defined(ANOT_INSIDE) && !defined(ANOT_COMPILATION)
#error "Only <anot/anot.h> can be included directly."
#endif

#include <gio/gio.h>

#include "anot-backend.h"
#include "anot-response-cache.h"

G_BEGIN_DECLS

/**
 * ANOT_DEFAULT_ROLE:
 *
 * The role every other role falls back to.
 */
#define ANOT_DEFAULT_ROLE "default"

#define ANOT_TYPE_BACKEND_ROUTER (anot_backend_router_get_type ())
G_DECLARE_FINAL_TYPE (AnotBackendRouter, anot_backend_router, ANOT, BACKEND_ROUTER, GObject)

AnotBackendRouter *anot_backend_router_new              (void);
void               anot_backend_router_set_route        (AnotBackendRouter    *self,
                                                         const char           *role,
                                                         const char           *backend_name,
                                                         AnotBackend          *backend,
                                                         AnotChatRequest      *defaults);
AnotBackend       *anot_backend_router_get_backend      (AnotBackendRouter    *self,
                                                         const char           *role,
                                                         GError              **error);
const char        *anot_backend_router_get_backend_name (AnotBackendRouter    *self,
                                                         const char           *role);
const char        *anot_backend_router_get_model        (AnotBackendRouter    *self,
                                                         const char           *role);
char             **anot_backend_router_list_roles       (AnotBackendRouter    *self);
void               anot_backend_router_set_cache        (AnotBackendRouter    *self,
                                                         AnotResponseCache    *cache,
                                                         gboolean              offline);
AnotResponseCache *anot_backend_router_get_cache        (AnotBackendRouter    *self);
gboolean           anot_backend_router_get_offline      (AnotBackendRouter    *self);
void               anot_backend_router_set_price        (AnotBackendRouter    *self,
                                                         const char           *model,
                                                         double                input_per_million,
                                                         double                output_per_million);
gboolean           anot_backend_router_lookup_price     (AnotBackendRouter    *self,
                                                         const char           *model,
                                                         double               *input_per_million,
                                                         double               *output_per_million);
void               anot_backend_router_complete_async   (AnotBackendRouter    *self,
                                                         const char           *role,
                                                         AnotChatRequest      *request,
                                                         GCancellable         *cancellable,
                                                         GAsyncReadyCallback   callback,
                                                         gpointer              user_data);
AnotCompletion    *anot_backend_router_complete_finish  (AnotBackendRouter    *self,
                                                         GAsyncResult         *result,
                                                         GError              **error);

G_END_DECLS
