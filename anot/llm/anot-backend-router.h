/* anot-backend-router.h
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#if !defined(ANOT_INSIDE) && !defined(ANOT_COMPILATION)
#error "Only <anot/anot.h> can be included directly."
#endif

#include "anot-visibility.h"

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
ANOT_AVAILABLE_IN_ALL
G_DECLARE_FINAL_TYPE (AnotBackendRouter, anot_backend_router, ANOT, BACKEND_ROUTER, GObject)

ANOT_AVAILABLE_IN_ALL
AnotBackendRouter *anot_backend_router_new              (void);
ANOT_AVAILABLE_IN_ALL
void               anot_backend_router_set_route        (AnotBackendRouter    *self,
                                                         const char           *role,
                                                         const char           *backend_name,
                                                         AnotBackend          *backend,
                                                         AnotChatRequest      *defaults);
ANOT_AVAILABLE_IN_ALL
AnotBackend       *anot_backend_router_get_backend      (AnotBackendRouter    *self,
                                                         const char           *role,
                                                         GError              **error);
ANOT_AVAILABLE_IN_ALL
gboolean           anot_backend_router_check_api_key    (AnotBackendRouter    *self,
                                                         const char           *role,
                                                         GError              **error);
ANOT_AVAILABLE_IN_ALL
const char        *anot_backend_router_get_backend_name (AnotBackendRouter    *self,
                                                         const char           *role);
ANOT_AVAILABLE_IN_ALL
const char        *anot_backend_router_get_model        (AnotBackendRouter    *self,
                                                         const char           *role);
ANOT_AVAILABLE_IN_ALL
char             **anot_backend_router_list_roles       (AnotBackendRouter    *self);
ANOT_AVAILABLE_IN_ALL
void               anot_backend_router_set_cache        (AnotBackendRouter    *self,
                                                         AnotResponseCache    *cache,
                                                         gboolean              offline);
ANOT_AVAILABLE_IN_ALL
AnotResponseCache *anot_backend_router_get_cache        (AnotBackendRouter    *self);
ANOT_AVAILABLE_IN_ALL
gboolean           anot_backend_router_get_offline      (AnotBackendRouter    *self);
ANOT_AVAILABLE_IN_ALL
void               anot_backend_router_set_price        (AnotBackendRouter    *self,
                                                         const char           *model,
                                                         double                input_per_million,
                                                         double                output_per_million);
ANOT_AVAILABLE_IN_ALL
void               anot_backend_router_set_batch_price  (AnotBackendRouter    *self,
                                                         const char           *model,
                                                         double                input_per_million,
                                                         double                output_per_million);
ANOT_AVAILABLE_IN_ALL
gboolean           anot_backend_router_lookup_batch_price (AnotBackendRouter  *self,
                                                         const char           *model,
                                                         double               *input_per_million,
                                                         double               *output_per_million);
ANOT_AVAILABLE_IN_ALL
guint64            anot_backend_router_lookup_context_tokens (AnotBackendRouter *self,
                                                         const char           *model);
ANOT_AVAILABLE_IN_ALL
const char        *anot_backend_router_get_prices_date  (AnotBackendRouter    *self);
ANOT_AVAILABLE_IN_ALL
void               anot_backend_router_set_context_tokens (AnotBackendRouter  *self,
                                                         guint64               context_tokens);
ANOT_AVAILABLE_IN_ALL
void               anot_backend_router_set_adaptive_concurrency (AnotBackendRouter *self,
                                                               gboolean           adaptive);
ANOT_AVAILABLE_IN_ALL
GPtrArray         *anot_backend_router_list_http_backends (AnotBackendRouter *self);
ANOT_AVAILABLE_IN_ALL
guint64            anot_backend_router_get_n_not_sent   (AnotBackendRouter    *self);
ANOT_AVAILABLE_IN_ALL
gboolean           anot_backend_router_is_backlogged    (AnotBackendRouter    *self,
                                                         const char           *role);
ANOT_AVAILABLE_IN_ALL
guint64            anot_backend_router_count_prompt_tokens (AnotBackendRouter *self,
                                                         AnotChatRequest      *request);
ANOT_AVAILABLE_IN_ALL
gboolean           anot_backend_router_check_fit        (AnotBackendRouter    *self,
                                                         const char           *role,
                                                         AnotChatRequest      *request,
                                                         guint64              *prompt_tokens,
                                                         guint64              *max_prompt_tokens,
                                                         GError              **error);
ANOT_AVAILABLE_IN_ALL
gboolean           anot_backend_router_check_fit_counted (AnotBackendRouter   *self,
                                                         const char           *role,
                                                         AnotChatRequest      *request,
                                                         guint64              *counted_tokens,
                                                         guint64              *counted_bytes,
                                                         guint64              *max_prompt_tokens);
ANOT_AVAILABLE_IN_ALL
gboolean           anot_backend_router_lookup_price     (AnotBackendRouter    *self,
                                                         const char           *model,
                                                         double               *input_per_million,
                                                         double               *output_per_million);
ANOT_AVAILABLE_IN_ALL
gboolean           anot_backend_router_has_price        (AnotBackendRouter    *self,
                                                         const char           *model);
ANOT_AVAILABLE_IN_ALL
void               anot_backend_router_complete_async   (AnotBackendRouter    *self,
                                                         const char           *role,
                                                         AnotChatRequest      *request,
                                                         GCancellable         *cancellable,
                                                         GAsyncReadyCallback   callback,
                                                         gpointer              user_data);
ANOT_AVAILABLE_IN_ALL
AnotCompletion    *anot_backend_router_complete_finish  (AnotBackendRouter    *self,
                                                         GAsyncResult         *result,
                                                         GError              **error);

G_END_DECLS
