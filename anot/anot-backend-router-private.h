/* anot-backend-router-private.h: AnotBackendRouter internals
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include "anot-backend-router.h"

G_BEGIN_DECLS

/* anot_backend_router_complete_async() on a request copy owned by the
 * caller and given away (transfer full), saving a second copy. */
void anot_backend_router_complete_copy_async (AnotBackendRouter   *self,
                                              const char          *role,
                                              AnotChatRequest     *copy,
                                              GCancellable        *cancellable,
                                              GAsyncReadyCallback  callback,
                                              gpointer             user_data);

G_END_DECLS
