/* anot-backend-private.h: what a backend's call says beyond its answer
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include "anot-backend.h"

G_BEGIN_DECLS

/* A call cancelled while it was on the wire: the provider may answer and
 * bill it, and no usage came back.  What it would cost, estimated from its
 * prompt and its answer's limit. */
typedef struct
{
  guint64 prompt_tokens;
  guint64 completion_tokens;   /* max_tokens; 0: not set */
  double cost_usd;             /* 0 until the router prices it */
} AnotCancelledCall;

/* Set on the task of a call (before it returns G_IO_ERROR_CANCELLED) by
 * the backend that had it on the wire, and passed up by the layers that
 * wrap backends (the response cache, the router, which prices it). */
G_GNUC_INTERNAL
void     anot_backend_task_set_cancelled_in_flight (GTask                   *task,
                                                    const AnotCancelledCall *call);
G_GNUC_INTERNAL
gboolean anot_backend_result_get_cancelled_in_flight (GAsyncResult      *result,
                                                      AnotCancelledCall *out_call);

G_END_DECLS
