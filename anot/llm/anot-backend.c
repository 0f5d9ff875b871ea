/* anot-backend.c: the LLM backend interface
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "anot-backend-private.h"

/**
 * AnotBackend:
 *
 * An LLM backend: turns an [class@Anot.ChatRequest] into an
 * [class@Anot.Completion].
 *
 * Backends are plugins registered with the `anot-backend` extension point
 * (`openai` and `anthropic` ship with anot; both derive from
 * [class@Anot.HttpBackend]).  A backend owns its concurrency limit, retries
 * and timeouts, so a method may start as many completions at once as its
 * algorithm allows.  Methods do not call backends directly: they call
 * [method@Anot.MethodContext.complete_async], which picks the backend of a
 * role through the [class@Anot.BackendRouter] and counts the usage.
 *
 * A backend implemented in Python:
 *
 * ```python
 * class Echo(GObject.Object, Anot.Backend):
 *     def do_complete_async(self, request, cancellable, callback, user_data):
 *         task = Gio.Task.new(self, cancellable, callback, user_data)
 *         last = request.get_message_content(request.get_n_messages() - 1)
 *         completion = Anot.Completion.new("echo", last)
 *         task.return_value(completion)
 *
 *     def do_complete_finish(self, result):
 *         return result.propagate_value().value
 *
 * Anot.Registry.get_default().register(Anot.BACKEND_EXTENSION_POINT_NAME,
 *                                      Echo.__gtype__, "echo", "Echoes the prompt")
 * ```
 */

G_DEFINE_INTERFACE (AnotBackend, anot_backend, G_TYPE_OBJECT)

static void
anot_backend_default_init (AnotBackendInterface *iface)
{
}

/**
 * anot_backend_complete_async:
 * @self: an #AnotBackend
 * @request: the messages and options of the call; not changed, and not to
 *   be changed until the call is over
 * @cancellable: (nullable): a #GCancellable
 * @callback: (scope async): called when the completion is ready
 * @user_data: data for @callback
 *
 * Starts one completion.
 */
void
anot_backend_complete_async (AnotBackend         *self,
                             AnotChatRequest     *request,
                             GCancellable        *cancellable,
                             GAsyncReadyCallback  callback,
                             gpointer             user_data)
{
  AnotBackendInterface *iface;

  g_return_if_fail (ANOT_IS_BACKEND (self));
  g_return_if_fail (ANOT_IS_CHAT_REQUEST (request));
  g_return_if_fail (!cancellable || G_IS_CANCELLABLE (cancellable));

  iface = ANOT_BACKEND_GET_IFACE (self);
  g_return_if_fail (iface->complete_async != NULL);
  iface->complete_async (self, request, cancellable, callback, user_data);
}

/**
 * anot_backend_complete_finish:
 * @self: an #AnotBackend
 * @result: the #GAsyncResult passed to the callback
 * @error: return location for a #GError
 *
 * Finishes an operation started with anot_backend_complete_async().
 * Errors are in the %ANOT_ERROR domain (%ANOT_ERROR_LLM_AUTH,
 * %ANOT_ERROR_LLM_RATE_LIMITED, ...) or %G_IO_ERROR_CANCELLED.
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

static GQuark
cancelled_in_flight_quark (void)
{
  static GQuark quark;

  if (quark == 0)
    quark = g_quark_from_static_string ("anot-cancelled-in-flight");
  return quark;
}

void
anot_backend_task_set_cancelled_in_flight (GTask                   *task,
                                           const AnotCancelledCall *call)
{
  g_return_if_fail (G_IS_TASK (task));
  g_object_set_qdata_full (G_OBJECT (task), cancelled_in_flight_quark (),
                           g_memdup2 (call, sizeof *call), g_free);
}

gboolean
anot_backend_result_get_cancelled_in_flight (GAsyncResult      *result,
                                             AnotCancelledCall *out_call)
{
  AnotCancelledCall *call;

  if (!G_IS_TASK (result))
    return FALSE;
  call = g_object_get_qdata (G_OBJECT (result), cancelled_in_flight_quark ());
  if (call == NULL)
    return FALSE;
  *out_call = *call;
  return TRUE;
}
