/* anot-head.h: ANoT-HEAD, the variant of the original's published runs
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <anot/anot.h>

G_BEGIN_DECLS

/* Ranks @candidates as the original's methods/anot/ package (HEAD
 * e8f9219, methods.md §6.3) did, returning an AnotRanking through @task
 * (g_task_return_pointer); @task becomes its task data's owner, and the
 * calls in flight hold references to it. */
void anot_head_rank (GTask             *task,
                     AnotQuery         *request,
                     GPtrArray         *candidates,
                     guint              k,
                     guint              max_refine,
                     const char        *system_prompt,
                     AnotMethodContext *context,
                     GCancellable      *cancellable);

G_END_DECLS
