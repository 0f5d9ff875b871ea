/* anot-batch-queue.h: LLM calls collected into provider batches
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#if !defined(ANOT_INSIDE) && !defined(ANOT_COMPILATION)
#error "Only <anot/anot.h> can be included directly."
#endif

#include "anot-visibility.h"

#include <gio/gio.h>

G_BEGIN_DECLS

/**
 * AnotBatchRetry:
 * @ANOT_BATCH_RETRY_BATCH: lines a batch did not answer go into the next
 *   batch (at the batch price, later)
 * @ANOT_BATCH_RETRY_DIRECT: they become direct calls (at the list price,
 *   at once)
 *
 * What happens to a line that errored with a retryable error, expired or
 * was cancelled (see [property@Anot.BatchQueue:retry-direct]).
 */
typedef enum {
  ANOT_BATCH_RETRY_BATCH,
  ANOT_BATCH_RETRY_DIRECT,
} AnotBatchRetry;

#define ANOT_TYPE_BATCH_QUEUE (anot_batch_queue_get_type ())
ANOT_AVAILABLE_IN_ALL
G_DECLARE_FINAL_TYPE (AnotBatchQueue, anot_batch_queue, ANOT, BATCH_QUEUE, GObject)

ANOT_AVAILABLE_IN_ALL
AnotBatchQueue *anot_batch_queue_new                 (void);
ANOT_AVAILABLE_IN_ALL
gboolean        anot_batch_queue_open_state          (AnotBatchQueue  *self,
                                                      const char      *path,
                                                      GError         **error);
ANOT_AVAILABLE_IN_ALL
void            anot_batch_queue_flush               (AnotBatchQueue  *self);

ANOT_AVAILABLE_IN_ALL
guint           anot_batch_queue_get_n_submitted     (AnotBatchQueue  *self);
ANOT_AVAILABLE_IN_ALL
guint           anot_batch_queue_get_n_resumed       (AnotBatchQueue  *self);
ANOT_AVAILABLE_IN_ALL
guint           anot_batch_queue_get_n_waiting       (AnotBatchQueue  *self);
ANOT_AVAILABLE_IN_ALL
guint64         anot_batch_queue_get_n_lines_sent    (AnotBatchQueue  *self);
ANOT_AVAILABLE_IN_ALL
guint64         anot_batch_queue_get_n_lines_retried (AnotBatchQueue  *self);
ANOT_AVAILABLE_IN_ALL
guint64         anot_batch_queue_get_n_lines_lost_resent (AnotBatchQueue *self);
ANOT_AVAILABLE_IN_ALL
guint64         anot_batch_queue_get_n_calls_shared  (AnotBatchQueue  *self);
ANOT_AVAILABLE_IN_ALL
guint           anot_batch_queue_get_n_running       (AnotBatchQueue  *self);
ANOT_AVAILABLE_IN_ALL
guint64         anot_batch_queue_get_n_lines_running (AnotBatchQueue  *self);

G_END_DECLS
