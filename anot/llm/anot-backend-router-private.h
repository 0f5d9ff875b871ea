/* anot-backend-router-private.h: AnotBackendRouter internals
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include "anot-backend-router.h"
#include "anot-ini-reader-private.h"

G_BEGIN_DECLS

/* anot_backend_router_complete_async() on a request copy owned by the
 * caller and given away (transfer full), saving a second copy. */
void anot_backend_router_complete_copy_async (AnotBackendRouter   *self,
                                              const char          *role,
                                              AnotChatRequest     *copy,
                                              GCancellable        *cancellable,
                                              GAsyncReadyCallback  callback,
                                              gpointer             user_data);

/* Where a router finds the routes of roles nobody set with
 * anot_backend_router_set_route(): the LLM configuration installs itself
 * here (anot_llm_config_create_router()), so the router needs no
 * knowledge of configuration files or of the plugin registry.
 * @resolve builds the route of @role, sharing backends through
 * @instances (keyed by backend name and connection settings). */
typedef struct
{
  gboolean (*has_role) (GObject            *source,
                        const char         *role);
  gboolean (*resolve)  (GObject            *source,
                        const char         *role,
                        GHashTable         *instances,
                        char              **out_backend_name,
                        AnotBackend       **out_backend,
                        AnotChatRequest   **out_defaults,
                        GError            **error);
} AnotRouteSource;

void anot_backend_router_set_route_source (AnotBackendRouter     *self,
                                           const AnotRouteSource *funcs,
                                           GObject               *source);

/* US dollars per million tokens; batch prices below 0 are half the list
 * prices; a context window of 0 is unknown. */
typedef struct
{
  double input;
  double output;
  double batch_input;
  double batch_output;
  guint64 context_tokens;
} AnotPrice;

/* Reads the `[prices]` section of @reader (`MODEL = INPUT, OUTPUT[;
 * batch INPUT, OUTPUT][; context TOKENS]`, and `as_of = YYYY-MM-DD`, the
 * date of the table) into @prices (model -> AnotPrice*, which @prices
 * must free), replacing entries of the same model, and the date into
 * @as_of when given: the one parser of the built-in table (resource
 * prices.ini) and of the user's config.ini.  Errors name the file, the
 * line and the model. */
gboolean anot_prices_read (AnotIniReader  *reader,
                           GHashTable     *prices,
                           char          **as_of,
                           GError        **error);

/* Sets the whole entry of @model (batch prices and context included). */
void anot_backend_router_set_price_entry (AnotBackendRouter *self,
                                          const char        *model,
                                          const AnotPrice   *price);
void anot_backend_router_set_prices_date (AnotBackendRouter *self,
                                          const char        *as_of);

/* What sending @request as @role would cost, before it is sent: the route's
 * model and max_tokens filled in as a call gets them, the prompt counted as
 * context fitting counts it (the count is shared), the answer its
 * max_tokens or else @completion_tokens, at the batch price when @batch;
 * NaN when the model has no price.  FALSE with @error when the role has
 * no route. */
gboolean anot_backend_router_estimate_call (AnotBackendRouter *self,
                                            const char        *role,
                                            AnotChatRequest   *request,
                                            guint              completion_tokens,
                                            gboolean           batch,
                                            double            *out_cost,
                                            GError           **error);

G_END_DECLS
