/* anot-backend-openai-batch.h: OpenAI's Batch API
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <anot/anot.h>

G_BEGIN_DECLS

void     anot_backend_openai_batch_submit_async  (AnotHttpBackend     *self,
                                                  AnotBatch           *batch,
                                                  GCancellable        *cancellable,
                                                  GAsyncReadyCallback  callback,
                                                  gpointer             user_data);
gboolean anot_backend_openai_batch_submit_finish (AnotHttpBackend     *self,
                                                  GAsyncResult        *result,
                                                  GError             **error);
void     anot_backend_openai_batch_poll_async    (AnotHttpBackend     *self,
                                                  AnotBatch           *batch,
                                                  GCancellable        *cancellable,
                                                  GAsyncReadyCallback  callback,
                                                  gpointer             user_data);
gboolean anot_backend_openai_batch_poll_finish   (AnotHttpBackend     *self,
                                                  GAsyncResult        *result,
                                                  GError             **error);

void     anot_backend_openai_batch_find_async    (AnotHttpBackend     *self,
                                                  AnotBatch           *batch,
                                                  GCancellable        *cancellable,
                                                  GAsyncReadyCallback  callback,
                                                  gpointer             user_data);
gboolean anot_backend_openai_batch_find_finish   (AnotHttpBackend     *self,
                                                  GAsyncResult        *result,
                                                  GError             **error);

G_END_DECLS
