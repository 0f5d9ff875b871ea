/* anot-method.c: the ranking method interface
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "anot-method.h"

/**
 * AnotMethod:
 *
 * A ranking method: given a request and its candidates, it returns an
 * [class@Anot.Ranking].
 *
 * It sees the request as an [class@Anot.Query] — id, group and text — and
 * the candidates as [class@Anot.Item]s; the request's hidden structure, its
 * gold item and the validator are not handed to it.  The `oracle` baseline,
 * which ranks by the truth on purpose, is registered with
 * %ANOT_PLUGIN_NEEDS_TRUTH and finds the truth in its context
 * ([method@Anot.MethodContext.get_truth_request]); the experiment marks its
 * result rows with `"uses_truth": true`.
 *
 * Methods are plugins registered with the `anot-method` extension point (see
 * [class@Anot.Registry]); a Python class implementing this interface can be
 * registered at runtime with [method@Anot.Registry.register].  The
 * experiment calls [method@Anot.Method.rank_async] once per request, possibly
 * for several requests at the same time on one main context, so a method
 * must keep per-request state in its task, not in the instance.
 */

G_DEFINE_INTERFACE (AnotMethod, anot_method, G_TYPE_OBJECT)

static void
anot_method_default_init (AnotMethodInterface *iface)
{
}

/**
 * anot_method_rank_async:
 * @self: an #AnotMethod
 * @query: the request to rank candidates for, as a method may see it
 * @candidates: (element-type Anot.Item): the candidates, in the order the
 *   method is to consider them
 * @k: how many top positions are scored (methods may return more)
 * @context: per-request context: seed, options, LLM calls, usage accounting
 * @cancellable: (nullable): a #GCancellable
 * @callback: (scope async): called when the ranking is ready
 * @user_data: data for @callback
 *
 * Starts ranking @candidates for @query.
 */
void
anot_method_rank_async (AnotMethod          *self,
                        AnotQuery           *query,
                        GPtrArray           *candidates,
                        guint                k,
                        AnotMethodContext   *context,
                        GCancellable        *cancellable,
                        GAsyncReadyCallback  callback,
                        gpointer             user_data)
{
  AnotMethodInterface *iface;

  g_return_if_fail (ANOT_IS_METHOD (self));
  g_return_if_fail (ANOT_IS_QUERY (query));
  g_return_if_fail (candidates != NULL);
  g_return_if_fail (ANOT_IS_METHOD_CONTEXT (context));
  g_return_if_fail (!cancellable || G_IS_CANCELLABLE (cancellable));

  iface = ANOT_METHOD_GET_IFACE (self);
  g_return_if_fail (iface->rank_async != NULL);
  iface->rank_async (self, query, candidates, k, context, cancellable, callback, user_data);
}

/**
 * anot_method_rank_finish:
 * @self: an #AnotMethod
 * @result: the #GAsyncResult passed to the callback
 * @error: return location for a #GError
 *
 * Finishes an operation started with anot_method_rank_async().
 *
 * Returns: (transfer full): the ranking, positions being indices into the
 *   candidates array the method was given
 */
AnotRanking *
anot_method_rank_finish (AnotMethod    *self,
                         GAsyncResult  *result,
                         GError       **error)
{
  AnotMethodInterface *iface;

  g_return_val_if_fail (ANOT_IS_METHOD (self), NULL);
  g_return_val_if_fail (G_IS_ASYNC_RESULT (result), NULL);

  iface = ANOT_METHOD_GET_IFACE (self);
  g_return_val_if_fail (iface->rank_finish != NULL, NULL);
  return iface->rank_finish (self, result, error);
}
