/* anot-method.h
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#if !defined(ANOT_INSIDE) && !defined(ANOT_COMPILATION)
#error "Only <anot/anot.h> can be included directly."
#endif

#include "anot-visibility.h"

#include <gio/gio.h>

#include "anot-item.h"
#include "anot-method-context.h"
#include "anot-query.h"
#include "anot-ranking.h"

G_BEGIN_DECLS

#define ANOT_TYPE_METHOD (anot_method_get_type ())
ANOT_AVAILABLE_IN_ALL
G_DECLARE_INTERFACE (AnotMethod, anot_method, ANOT, METHOD, GObject)

/**
 * AnotMethodInterface:
 * @rank_async: start ranking @candidates for @query
 * @rank_finish: finish an operation started by @rank_async
 *
 * The interface a ranking method implements.  A method receives the
 * candidates in the order the model is to see them and returns an
 * [class@Anot.Ranking] of positions into that array; the experiment maps them
 * back to the candidate pool.
 *
 * A method is blind: the [class@Anot.Query] carries the request's id, group
 * and text only, and the [class@Anot.MethodContext] offers neither the
 * dataset, the gold nor the validator unless the method was registered with
 * %ANOT_PLUGIN_NEEDS_TRUTH.
 */
struct _AnotMethodInterface
{
  GTypeInterface g_iface;

  void          (*rank_async)  (AnotMethod          *self,
                                AnotQuery           *query,
                                GPtrArray           *candidates,
                                guint                k,
                                AnotMethodContext   *context,
                                GCancellable        *cancellable,
                                GAsyncReadyCallback  callback,
                                gpointer             user_data);
  AnotRanking  *(*rank_finish) (AnotMethod          *self,
                                GAsyncResult        *result,
                                GError             **error);

  /*< private >*/
  gpointer padding[8];
};

ANOT_AVAILABLE_IN_ALL
void          anot_method_rank_async  (AnotMethod          *self,
                                       AnotQuery           *query,
                                       GPtrArray           *candidates,
                                       guint                k,
                                       AnotMethodContext   *context,
                                       GCancellable        *cancellable,
                                       GAsyncReadyCallback  callback,
                                       gpointer             user_data);
ANOT_AVAILABLE_IN_ALL
AnotRanking  *anot_method_rank_finish (AnotMethod          *self,
                                       GAsyncResult        *result,
                                       GError             **error);

G_END_DECLS
