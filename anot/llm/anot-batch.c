/* anot-batch.c: one batch of calls sent through a provider's batch API
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "anot-batch.h"

#include "anot-error.h"
#include "anot-json-private.h"

#include <string.h>

/**
 * AnotBatch:
 *
 * One batch of LLM calls as a provider's batch API sees it: the model,
 * the lines (a `custom_id` and the JSON body a direct call would have
 * sent), the provider's id once submitted, its [enum@Anot.BatchStatus]
 * and, once it ended, the result of each line.
 *
 * [class@Anot.BatchQueue] fills a batch with the calls it collected and
 * hands it to the backend class's `batch_submit_async` and
 * `batch_poll_async` (see [struct@Anot.HttpBackendClass]); the backend
 * plugin translates it to and from its API's JSON and records each line's
 * result with [method@Anot.Batch.set_line_result].
 */

typedef struct
{
  char *custom_id;
  GBytes *body;
  AnotBatchLineState state;
  AnotCompletion *completion;
  GError *error;
} Line;

struct _AnotBatch
{
  GObject parent_instance;

  char *model;
  char *id;
  char *message;
  char *intent_id;
  gint64 intent_time;
  AnotBatchStatus status;
  GPtrArray *lines;          /* Line, in the order added */
  GHashTable *by_custom_id;  /* custom_id (owned by the line) -> Line */
};

G_DEFINE_FINAL_TYPE (AnotBatch, anot_batch, G_TYPE_OBJECT)

static void
line_free (Line *line)
{
  g_free (line->custom_id);
  g_clear_pointer (&line->body, g_bytes_unref);
  g_clear_object (&line->completion);
  g_clear_error (&line->error);
  g_free (line);
}

static void
anot_batch_finalize (GObject *object)
{
  AnotBatch *self = ANOT_BATCH (object);

  g_hash_table_unref (self->by_custom_id);
  g_ptr_array_unref (self->lines);
  g_free (self->model);
  g_free (self->id);
  g_free (self->intent_id);
  g_free (self->message);

  G_OBJECT_CLASS (anot_batch_parent_class)->finalize (object);
}

static void
anot_batch_class_init (AnotBatchClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = anot_batch_finalize;
}

static void
anot_batch_init (AnotBatch *self)
{
  self->lines = g_ptr_array_new_with_free_func ((GDestroyNotify) line_free);
  self->by_custom_id = g_hash_table_new (g_str_hash, g_str_equal);
}

/**
 * anot_batch_new:
 * @model: the model every line asks (OpenAI takes one model per batch)
 *
 * Returns: (transfer full): a new, empty batch
 */
AnotBatch *
anot_batch_new (const char *model)
{
  AnotBatch *self;

  g_return_val_if_fail (model != NULL, NULL);

  self = g_object_new (ANOT_TYPE_BATCH, NULL);
  self->model = g_strdup (model);
  return self;
}

/**
 * anot_batch_get_model:
 * @self: an #AnotBatch
 *
 * Returns: the model of the batch
 */
const char *
anot_batch_get_model (AnotBatch *self)
{
  g_return_val_if_fail (ANOT_IS_BATCH (self), NULL);
  return self->model;
}

/**
 * anot_batch_get_id:
 * @self: an #AnotBatch
 *
 * Returns: (nullable): the provider's id of the batch, %NULL before it is
 *   submitted
 */
const char *
anot_batch_get_id (AnotBatch *self)
{
  g_return_val_if_fail (ANOT_IS_BATCH (self), NULL);
  return self->id;
}

/**
 * anot_batch_set_id:
 * @self: an #AnotBatch
 * @id: the provider's id of the batch
 *
 * Set by the backend when the provider accepted the batch.
 */
void
anot_batch_set_id (AnotBatch  *self,
                   const char *id)
{
  g_return_if_fail (ANOT_IS_BATCH (self));
  g_return_if_fail (id != NULL);

  g_free (self->id);
  self->id = g_strdup (id);
}

/**
 * anot_batch_get_status:
 * @self: an #AnotBatch
 *
 * Returns: where the batch is
 */
AnotBatchStatus
anot_batch_get_status (AnotBatch *self)
{
  g_return_val_if_fail (ANOT_IS_BATCH (self), ANOT_BATCH_STATUS_PENDING);
  return self->status;
}

/**
 * anot_batch_set_status:
 * @self: an #AnotBatch
 * @status: the status the provider reported
 */
void
anot_batch_set_status (AnotBatch       *self,
                       AnotBatchStatus  status)
{
  g_return_if_fail (ANOT_IS_BATCH (self));
  self->status = status;
}

/**
 * anot_batch_is_ended:
 * @self: an #AnotBatch
 *
 * Returns: whether the batch ended (completed, failed, expired or
 *   cancelled): nothing more will change
 */
gboolean
anot_batch_is_ended (AnotBatch *self)
{
  g_return_val_if_fail (ANOT_IS_BATCH (self), FALSE);
  return self->status >= ANOT_BATCH_STATUS_COMPLETED;
}

/**
 * anot_batch_get_message:
 * @self: an #AnotBatch
 *
 * Returns: (nullable): what the provider said about the whole batch (why
 *   it failed), or %NULL
 */
const char *
anot_batch_get_message (AnotBatch *self)
{
  g_return_val_if_fail (ANOT_IS_BATCH (self), NULL);
  return self->message;
}

/**
 * anot_batch_set_message:
 * @self: an #AnotBatch
 * @message: (nullable): what the provider said about the whole batch
 */
void
anot_batch_set_message (AnotBatch  *self,
                        const char *message)
{
  g_return_if_fail (ANOT_IS_BATCH (self));
  g_free (self->message);
  self->message = g_strdup (message);
}

/**
 * anot_batch_get_intent_id:
 * @self: an #AnotBatch
 *
 * Returns: (nullable): the id the client gave the batch before creating
 *   it (recorded in the state file, and OpenAI's batch `metadata`), so a
 *   client killed before it heard of the batch can find it again
 */
const char *
anot_batch_get_intent_id (AnotBatch *self)
{
  g_return_val_if_fail (ANOT_IS_BATCH (self), NULL);
  return self->intent_id;
}

/**
 * anot_batch_get_intent_time:
 * @self: an #AnotBatch
 *
 * Returns: when the intent to create the batch was recorded, in seconds
 *   since the epoch (0: unknown)
 */
gint64
anot_batch_get_intent_time (AnotBatch *self)
{
  g_return_val_if_fail (ANOT_IS_BATCH (self), 0);
  return self->intent_time;
}

/**
 * anot_batch_set_intent:
 * @self: an #AnotBatch
 * @intent_id: (nullable): the client's id of the batch
 * @time: when the intent was recorded, seconds since the epoch
 */
void
anot_batch_set_intent (AnotBatch  *self,
                       const char *intent_id,
                       gint64      time)
{
  g_return_if_fail (ANOT_IS_BATCH (self));
  g_free (self->intent_id);
  self->intent_id = g_strdup (intent_id);
  self->intent_time = time;
}

/**
 * anot_batch_add_line:
 * @self: an #AnotBatch
 * @custom_id: the line's id, unique in the batch (1 to 64 characters of
 *   `[A-Za-z0-9_-]`, which both APIs accept)
 * @body: (nullable): the JSON body a direct call would send, or %NULL for
 *   a line of a batch submitted by an earlier process (only its result is
 *   wanted)
 *
 * Adds a line.  A @custom_id the batch already has is ignored.
 */
void
anot_batch_add_line (AnotBatch  *self,
                     const char *custom_id,
                     GBytes     *body)
{
  Line *line;

  g_return_if_fail (ANOT_IS_BATCH (self));
  g_return_if_fail (custom_id != NULL);

  if (g_hash_table_contains (self->by_custom_id, custom_id))
    return;
  line = g_new0 (Line, 1);
  line->custom_id = g_strdup (custom_id);
  line->body = body ? g_bytes_ref (body) : NULL;
  g_ptr_array_add (self->lines, line);
  g_hash_table_insert (self->by_custom_id, line->custom_id, line);
}

/**
 * anot_batch_get_n_lines:
 * @self: an #AnotBatch
 *
 * Returns: the number of lines
 */
guint
anot_batch_get_n_lines (AnotBatch *self)
{
  g_return_val_if_fail (ANOT_IS_BATCH (self), 0);
  return self->lines->len;
}

/**
 * anot_batch_get_line_custom_id:
 * @self: an #AnotBatch
 * @index: a line index, below [method@Anot.Batch.get_n_lines]
 *
 * Returns: the line's custom id
 */
const char *
anot_batch_get_line_custom_id (AnotBatch *self,
                               guint      index)
{
  g_return_val_if_fail (ANOT_IS_BATCH (self), NULL);
  g_return_val_if_fail (index < self->lines->len, NULL);
  return ((Line *) g_ptr_array_index (self->lines, index))->custom_id;
}

/**
 * anot_batch_get_line_body:
 * @self: an #AnotBatch
 * @index: a line index, below [method@Anot.Batch.get_n_lines]
 *
 * Returns: (transfer none) (nullable): the line's JSON body
 */
GBytes *
anot_batch_get_line_body (AnotBatch *self,
                          guint      index)
{
  g_return_val_if_fail (ANOT_IS_BATCH (self), NULL);
  g_return_val_if_fail (index < self->lines->len, NULL);
  return ((Line *) g_ptr_array_index (self->lines, index))->body;
}

/**
 * anot_batch_has_line:
 * @self: an #AnotBatch
 * @custom_id: a custom id
 *
 * Returns: whether the batch has a line with @custom_id
 */
gboolean
anot_batch_has_line (AnotBatch  *self,
                     const char *custom_id)
{
  g_return_val_if_fail (ANOT_IS_BATCH (self), FALSE);
  return custom_id != NULL && g_hash_table_contains (self->by_custom_id, custom_id);
}

/**
 * anot_batch_set_line_result:
 * @self: an #AnotBatch
 * @custom_id: the line's custom id
 * @state: the line's result
 * @completion: (nullable): the answer, for %ANOT_BATCH_LINE_SUCCEEDED
 * @error: (nullable): what went wrong, for %ANOT_BATCH_LINE_ERRORED
 *
 * Records the result of a line.  A @custom_id the batch does not have is
 * ignored (a provider must not answer lines it was not sent), and so is
 * a second result for a line.
 */
void
anot_batch_set_line_result (AnotBatch          *self,
                            const char         *custom_id,
                            AnotBatchLineState  state,
                            AnotCompletion     *completion,
                            const GError       *error)
{
  Line *line;

  g_return_if_fail (ANOT_IS_BATCH (self));
  g_return_if_fail (custom_id != NULL);
  g_return_if_fail (state != ANOT_BATCH_LINE_SUCCEEDED || ANOT_IS_COMPLETION (completion));

  line = g_hash_table_lookup (self->by_custom_id, custom_id);
  if (line == NULL || line->state != ANOT_BATCH_LINE_PENDING)
    return;
  line->state = state;
  if (state == ANOT_BATCH_LINE_SUCCEEDED)
    line->completion = g_object_ref (completion);
  if (error != NULL)
    line->error = g_error_copy (error);
}

/**
 * anot_batch_get_line_result:
 * @self: an #AnotBatch
 * @custom_id: the line's custom id
 * @completion: (out) (optional) (nullable) (transfer none): the answer of
 *   a line that succeeded
 * @error: the error of a line that errored
 *
 * Returns: the line's result; %ANOT_BATCH_LINE_PENDING for a line the
 *   batch does not have
 */
AnotBatchLineState
anot_batch_get_line_result (AnotBatch       *self,
                            const char      *custom_id,
                            AnotCompletion **completion,
                            GError         **error)
{
  Line *line;

  g_return_val_if_fail (ANOT_IS_BATCH (self), ANOT_BATCH_LINE_PENDING);
  g_return_val_if_fail (custom_id != NULL, ANOT_BATCH_LINE_PENDING);

  if (completion != NULL)
    *completion = NULL;
  line = g_hash_table_lookup (self->by_custom_id, custom_id);
  if (line == NULL)
    return ANOT_BATCH_LINE_PENDING;
  if (completion != NULL)
    *completion = line->completion;
  if (line->error != NULL && error != NULL)
    g_propagate_error (error, g_error_copy (line->error));
  return line->state;
}

/**
 * anot_batch_count_lines:
 * @self: an #AnotBatch
 * @state: a line state
 *
 * Returns: how many lines have @state
 */
guint
anot_batch_count_lines (AnotBatch          *self,
                        AnotBatchLineState  state)
{
  guint n = 0;

  g_return_val_if_fail (ANOT_IS_BATCH (self), 0);

  for (guint i = 0; i < self->lines->len; i++)
    if (((Line *) g_ptr_array_index (self->lines, i))->state == state)
      n++;
  return n;
}

/**
 * anot_batch_read_results:
 * @self: an #AnotBatch
 * @jsonl: a results file: one JSON object per line (OpenAI's output and
 *   error files, Anthropic's results)
 * @func: (scope call): called with each line
 * @user_data: data for @func
 * @error: return location for a #GError
 *
 * Parses @jsonl line by line (empty lines skipped) and hands each line to
 * @func, which records its result in @self.
 *
 * Returns: %TRUE, or %FALSE with @error set (%ANOT_ERROR_PARSE with the
 *   line number) at the first line that is not JSON
 */
gboolean
anot_batch_read_results (AnotBatch            *self,
                         GBytes               *jsonl,
                         AnotBatchResultFunc   func,
                         gpointer              user_data,
                         GError              **error)
{
  gsize size;
  const char *data, *end, *base;
  guint line_number = 0;

  g_return_val_if_fail (ANOT_IS_BATCH (self), FALSE);
  g_return_val_if_fail (jsonl != NULL && func != NULL, FALSE);

  base = data = g_bytes_get_data (jsonl, &size);
  end = data + size;
  while (data != NULL && data < end)
    {
      const char *nl = memchr (data, '\n', (gsize) (end - data));
      const char *stop = nl ? nl : end;

      line_number++;
      if (stop > data)
        {
          g_autoptr(GBytes) line = g_bytes_new_from_bytes (jsonl, (gsize) (data - base), (gsize) (stop - data));
          /* Lenient, as a direct call's answer is read. */
          g_autoptr(AnotJsonDocument) doc = _anot_json_document_new_lenient (line, error);

          if (doc == NULL)
            {
              g_prefix_error (error, "Line %u of the results of batch %s: ", line_number,
                              self->id ? self->id : "(unsubmitted)");
              return FALSE;
            }
          func (doc, user_data);
        }
      data = nl ? nl + 1 : end;
    }
  return TRUE;
}
