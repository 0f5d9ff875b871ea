/* anot-backend.c: the LLM backend interface
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "anot-backend.h"

/**
 * AnotBackend:
 *
 * An LLM backend: turns a prompt into an [class@Anot.Completion].
 *
 * Backends are plugins registered with the `anot-backend` extension point.
 * A backend owns its concurrency limit, retries and timeouts, so a method
 * may start as many completions at once as its algorithm allows.
 */

G_DEFINE_INTERFACE (AnotBackend, anot_backend, G_TYPE_OBJECT)

static void
anot_backend_default_init (AnotBackendInterface *iface)
{
}

/**
 * anot_backend_complete_async:
 * @self: an #AnotBackend
 * @system_prompt: (nullable): the system prompt, if any
 * @prompt: the user message
 * @cancellable: (nullable): a #GCancellable
 * @callback: (scope async): called when the completion is ready
 * @user_data: data for @callback
 *
 * Starts one completion.
 */
void
anot_backend_complete_async (AnotBackend         *self,
                             const char          *system_prompt,
                             const char          *prompt,
                             GCancellable        *cancellable,
                             GAsyncReadyCallback  callback,
                             gpointer             user_data)
{
  AnotBackendInterface *iface;

  g_return_if_fail (ANOT_IS_BACKEND (self));
  g_return_if_fail (prompt != NULL);
  g_return_if_fail (!cancellable || G_IS_CANCELLABLE (cancellable));

  iface = ANOT_BACKEND_GET_IFACE (self);
  g_return_if_fail (iface->complete_async != NULL);
  iface->complete_async (self, system_prompt, prompt, cancellable, callback, user_data);
}

/**
 * anot_backend_complete_finish:
 * @self: an #AnotBackend
 * @result: the #GAsyncResult passed to the callback
 * @error: return location for a #GError
 *
 * Finishes an operation started with anot_backend_complete_async().
 *
 * Returns: (transfer full): the completion
 */
AnotCompletion *
anot_backend_complete_finish (AnotBackend   *self,
                              GAsyncResult  *result,
                              GError       **error)
{
  AnotBackendInterface *iface;

  g_return_val_if_fail (ANOT_IS_BACKEND (self), NULL);
  g_return_val_if_fail (G_IS_ASYNC_RESULT (result), NULL);

  iface = ANOT_BACKEND_GET_IFACE (self);
  g_return_val_if_fail (iface->complete_finish != NULL, NULL);
  return iface->complete_finish (self, result, error);
}
