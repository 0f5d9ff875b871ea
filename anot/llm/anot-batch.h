/* anot-batch.h: one batch of calls sent through a provider's batch API
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#if !defined(ANOT_INSIDE) && !defined(ANOT_COMPILATION)
#error "Only <anot/anot.h> can be included directly."
#endif

#include "anot-visibility.h"

#include <gio/gio.h>

#include "anot-completion.h"
#include "anot-json-document.h"

G_BEGIN_DECLS

/**
 * AnotBatchStatus:
 * @ANOT_BATCH_STATUS_PENDING: not submitted yet
 * @ANOT_BATCH_STATUS_VALIDATING: the provider is checking the input
 *   (OpenAI `validating`)
 * @ANOT_BATCH_STATUS_IN_PROGRESS: the provider is answering the lines
 *   (OpenAI and Anthropic `in_progress`)
 * @ANOT_BATCH_STATUS_FINALIZING: the answers are being written out
 *   (OpenAI `finalizing`)
 * @ANOT_BATCH_STATUS_CANCELLING: a cancellation is under way (OpenAI
 *   `cancelling`, Anthropic `canceling`)
 * @ANOT_BATCH_STATUS_COMPLETED: processing ended and the results are in
 *   (OpenAI `completed`, Anthropic `ended`); single lines may still have
 *   failed, expired or been cancelled
 * @ANOT_BATCH_STATUS_FAILED: the provider rejected the whole batch (OpenAI
 *   `failed`); no line was answered
 * @ANOT_BATCH_STATUS_EXPIRED: the completion window passed (OpenAI
 *   `expired`); the lines answered so far are in, the others expired
 * @ANOT_BATCH_STATUS_CANCELLED: the batch was cancelled (OpenAI
 *   `cancelled`); the lines answered before are in
 *
 * Where a batch is.  The last four end it.
 */
typedef enum {
  ANOT_BATCH_STATUS_PENDING,
  ANOT_BATCH_STATUS_VALIDATING,
  ANOT_BATCH_STATUS_IN_PROGRESS,
  ANOT_BATCH_STATUS_FINALIZING,
  ANOT_BATCH_STATUS_CANCELLING,
  ANOT_BATCH_STATUS_COMPLETED,
  ANOT_BATCH_STATUS_FAILED,
  ANOT_BATCH_STATUS_EXPIRED,
  ANOT_BATCH_STATUS_CANCELLED,
} AnotBatchStatus;

/**
 * AnotBatchLineState:
 * @ANOT_BATCH_LINE_PENDING: no result yet
 * @ANOT_BATCH_LINE_SUCCEEDED: answered: the line has a completion
 * @ANOT_BATCH_LINE_ERRORED: the provider answered the line with an error
 *   (the line has a #GError)
 * @ANOT_BATCH_LINE_EXPIRED: the line was not answered within the window
 * @ANOT_BATCH_LINE_CANCELLED: the line was cancelled before it was answered
 *
 * The result of one line of a batch.
 */
typedef enum {
  ANOT_BATCH_LINE_PENDING,
  ANOT_BATCH_LINE_SUCCEEDED,
  ANOT_BATCH_LINE_ERRORED,
  ANOT_BATCH_LINE_EXPIRED,
  ANOT_BATCH_LINE_CANCELLED,
} AnotBatchLineState;

#define ANOT_TYPE_BATCH (anot_batch_get_type ())
ANOT_AVAILABLE_IN_ALL
G_DECLARE_FINAL_TYPE (AnotBatch, anot_batch, ANOT, BATCH, GObject)

ANOT_AVAILABLE_IN_ALL
AnotBatch          *anot_batch_new                  (const char         *model);
ANOT_AVAILABLE_IN_ALL
const char         *anot_batch_get_model            (AnotBatch          *self);
ANOT_AVAILABLE_IN_ALL
const char         *anot_batch_get_id               (AnotBatch          *self);
ANOT_AVAILABLE_IN_ALL
void                anot_batch_set_id               (AnotBatch          *self,
                                                     const char         *id);
ANOT_AVAILABLE_IN_ALL
AnotBatchStatus     anot_batch_get_status           (AnotBatch          *self);
ANOT_AVAILABLE_IN_ALL
void                anot_batch_set_status           (AnotBatch          *self,
                                                     AnotBatchStatus     status);
ANOT_AVAILABLE_IN_ALL
gboolean            anot_batch_is_ended             (AnotBatch          *self);
ANOT_AVAILABLE_IN_ALL
const char         *anot_batch_get_message          (AnotBatch          *self);
ANOT_AVAILABLE_IN_ALL
void                anot_batch_set_message          (AnotBatch          *self,
                                                     const char         *message);
ANOT_AVAILABLE_IN_ALL
const char         *anot_batch_get_intent_id        (AnotBatch          *self);
ANOT_AVAILABLE_IN_ALL
gint64              anot_batch_get_intent_time      (AnotBatch          *self);
ANOT_AVAILABLE_IN_ALL
void                anot_batch_set_intent           (AnotBatch          *self,
                                                     const char         *intent_id,
                                                     gint64              time);

ANOT_AVAILABLE_IN_ALL
void                anot_batch_add_line             (AnotBatch          *self,
                                                     const char         *custom_id,
                                                     GBytes             *body);
ANOT_AVAILABLE_IN_ALL
guint               anot_batch_get_n_lines          (AnotBatch          *self);
ANOT_AVAILABLE_IN_ALL
const char         *anot_batch_get_line_custom_id   (AnotBatch          *self,
                                                     guint               index);
ANOT_AVAILABLE_IN_ALL
GBytes             *anot_batch_get_line_body        (AnotBatch          *self,
                                                     guint               index);
ANOT_AVAILABLE_IN_ALL
gboolean            anot_batch_has_line             (AnotBatch          *self,
                                                     const char         *custom_id);

ANOT_AVAILABLE_IN_ALL
void                anot_batch_set_line_result      (AnotBatch          *self,
                                                     const char         *custom_id,
                                                     AnotBatchLineState  state,
                                                     AnotCompletion     *completion,
                                                     const GError       *error);
ANOT_AVAILABLE_IN_ALL
AnotBatchLineState  anot_batch_get_line_result      (AnotBatch          *self,
                                                     const char         *custom_id,
                                                     AnotCompletion    **completion,
                                                     GError            **error);
ANOT_AVAILABLE_IN_ALL
guint               anot_batch_count_lines          (AnotBatch          *self,
                                                     AnotBatchLineState  state);

/**
 * AnotBatchResultFunc:
 * @line: one line of a results file, parsed
 * @user_data: the data given to anot_batch_read_results()
 *
 * Reads one result line into the batch.
 */
typedef void (*AnotBatchResultFunc) (AnotJsonDocument *line,
                                     gpointer          user_data);

ANOT_AVAILABLE_IN_ALL
gboolean            anot_batch_read_results         (AnotBatch          *self,
                                                     GBytes             *jsonl,
                                                     AnotBatchResultFunc func,
                                                     gpointer            user_data,
                                                     GError            **error);

G_END_DECLS
