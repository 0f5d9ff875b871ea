/* anot-backend.h
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#if !defined(ANOT_INSIDE) && !defined(ANOT_COMPILATION)
#error "Only <anot/anot.h> can be included directly."
#endif

#include "anot-visibility.h"

#include <gio/gio.h>

#include "anot-chat-request.h"
#include "anot-completion.h"

G_BEGIN_DECLS

#define ANOT_TYPE_BACKEND (anot_backend_get_type ())
ANOT_AVAILABLE_IN_ALL
G_DECLARE_INTERFACE (AnotBackend, anot_backend, ANOT, BACKEND, GObject)

/**
 * AnotBackendInterface:
 * @complete_async: start one completion of @request
 * @complete_finish: finish an operation started by @complete_async
 *
 * The interface an LLM backend implements.  A backend owns its concurrency
 * limit, retries and timeouts.
 */
struct _AnotBackendInterface
{
  GTypeInterface g_iface;

  void            (*complete_async)  (AnotBackend         *self,
                                      AnotChatRequest     *request,
                                      GCancellable        *cancellable,
                                      GAsyncReadyCallback  callback,
                                      gpointer             user_data);
  AnotCompletion *(*complete_finish) (AnotBackend         *self,
                                      GAsyncResult        *result,
                                      GError             **error);

  /*< private >*/
  gpointer padding[8];
};

ANOT_AVAILABLE_IN_ALL
void            anot_backend_complete_async  (AnotBackend         *self,
                                              AnotChatRequest     *request,
                                              GCancellable        *cancellable,
                                              GAsyncReadyCallback  callback,
                                              gpointer             user_data);
ANOT_AVAILABLE_IN_ALL
AnotCompletion *anot_backend_complete_finish (AnotBackend         *self,
                                              GAsyncResult        *result,
                                              GError             **error);

G_END_DECLS
