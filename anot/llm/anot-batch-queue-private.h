/* anot-batch-queue-private.h: what the HTTP backend and the batch queue
 * share
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include "anot-batch-queue.h"
#include "anot-http-backend.h"

G_BEGIN_DECLS

/* Takes @task (a task of AnotHttpBackend's complete_async) and resolves
 * it with the answer of its line, as the direct call would have. */
G_GNUC_INTERNAL
void anot_batch_queue_add              (AnotBatchQueue  *self,
                                        AnotHttpBackend *backend,
                                        const char      *model,
                                        GBytes          *body,
                                        const char      *request_id,
                                        GTask           *task);

/* Sends the call of @task (which it takes) directly, whatever the batch
 * queue. */
G_GNUC_INTERNAL
void anot_http_backend_complete_direct (AnotHttpBackend *self,
                                        GTask           *task,
                                        const char      *queue_key,
                                        const char      *model,
                                        GBytes          *body);

G_END_DECLS
