/* anot-backend-anthropic-batch.c: Anthropic's Message Batches
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "anot-backend-anthropic-batch.h"

#include <string.h>

/* Anthropic's Message Batches, as its reference defines them:
 *
 *   POST /v1/messages/batches       {requests: [{custom_id, params}]}, params
 *                                   being a Messages API body
 *   GET  /v1/messages/batches/{id}  the message_batch: processing_status
 *                                   (in_progress, canceling, ended),
 *                                   request_counts {processing, succeeded,
 *                                   errored, canceled, expired}, results_url
 *   GET  results_url                JSONL of {custom_id, result: {type:
 *                                   succeeded, message} | {type: errored,
 *                                   error: {type: error, error: {type,
 *                                   message}}} | {type: canceled} | {type:
 *                                   expired}}
 *
 * A batch always ends as `ended`; expiry and cancellation show in its
 * lines. */

#define BATCHES_PATH "/v1/messages/batches"

/* A task whose data is the batch it works on. */
static GTask *
batch_task_new (AnotHttpBackend     *self,
                AnotBatch           *batch,
                gpointer             source_tag,
                GCancellable        *cancellable,
                GAsyncReadyCallback  callback,
                gpointer             user_data)
{
  GTask *task = g_task_new (self, cancellable, callback, user_data);

  g_task_set_source_tag (task, source_tag);
  g_task_set_task_data (task, g_object_ref (batch), g_object_unref);
  return task;
}

/* Reads a message_batch object into the batch; FALSE with the task
 * returned when it is not one. */
static gboolean
read_batch_object (GTask        *task,
                   GAsyncResult *result,
                   const char   *what,
                   char        **results_url)
{
  AnotHttpBackend *self = g_task_get_source_object (task);
  AnotBatch *batch = g_task_get_task_data (task);
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) bytes = anot_http_backend_send_finish (self, result, &error);
  g_autoptr(AnotJsonDocument) doc = NULL;
  g_autofree char *id = NULL;
  g_autofree char *status = NULL;

  if (bytes == NULL)
    {
      g_task_return_error (task, g_steal_pointer (&error));
      return FALSE;
    }
  doc = anot_json_document_new_from_bytes (bytes, NULL);
  if (doc != NULL)
    {
      id = anot_json_document_dup_string (doc, anot_json_document_get_member (doc, 0, "id"));
      status = anot_json_document_dup_string (doc, anot_json_document_get_member (doc, 0, "processing_status"));
    }
  if (id == NULL || status == NULL)
    {
      g_task_return_new_error (task, ANOT_ERROR, ANOT_ERROR_LLM_PROTOCOL,
                               "The answer to %s is not a message batch", what);
      return FALSE;
    }
  anot_batch_set_id (batch, id);
  if (strcmp (status, "in_progress") == 0)
    anot_batch_set_status (batch, ANOT_BATCH_STATUS_IN_PROGRESS);
  else if (strcmp (status, "canceling") == 0)
    anot_batch_set_status (batch, ANOT_BATCH_STATUS_CANCELLING);
  else if (strcmp (status, "ended") == 0)
    {
      /* The status is set once the results are read. */
      g_autofree char *url = anot_json_document_dup_string (doc, anot_json_document_get_member (doc, 0, "results_url"));

      if (url == NULL)
        {
          g_task_return_new_error (task, ANOT_ERROR, ANOT_ERROR_LLM_PROTOCOL,
                                   "Message batch %s ended without a results_url", id);
          return FALSE;
        }
      if (results_url != NULL)
        *results_url = g_steal_pointer (&url);
    }
  else
    {
      g_task_return_new_error (task, ANOT_ERROR, ANOT_ERROR_LLM_PROTOCOL,
                               "Message batch %s has an unknown processing_status “%s”", id, status);
      return FALSE;
    }
  return TRUE;
}

/* ------------------------------------------------------------------------
 * Submitting
 * --------------------------------------------------------------------- */

static void
on_batch_created (GObject      *source,
                  GAsyncResult *result,
                  gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;

  if (read_batch_object (task, result, "POST " BATCHES_PATH, NULL))
    g_task_return_boolean (task, TRUE);
}

void
anot_backend_anthropic_batch_submit_async (AnotHttpBackend     *self,
                                           AnotBatch           *batch,
                                           GCancellable        *cancellable,
                                           GAsyncReadyCallback  callback,
                                           gpointer             user_data)
{
  GTask *task = batch_task_new (self, batch, anot_backend_anthropic_batch_submit_async,
                             cancellable, callback, user_data);
  g_autoptr(GBytes) body = NULL;
  GString *text = g_string_new ("{\"requests\":[");
  guint n = anot_batch_get_n_lines (batch);

  /* Each line's params are the body a direct call sends, copied as it
   * is. */
  for (guint i = 0; i < n; i++)
    {
      GBytes *line_body = anot_batch_get_line_body (batch, i);
      gsize size = 0;
      const char *data = line_body ? g_bytes_get_data (line_body, &size) : NULL;

      g_string_append_printf (text, "%s{\"custom_id\":\"%s\",\"params\":", i > 0 ? "," : "",
                              anot_batch_get_line_custom_id (batch, i));
      g_string_append_len (text, data ? data : "{}", data ? (gssize) size : 2);
      g_string_append_c (text, '}');
    }
  g_string_append (text, "]}");
  body = g_string_free_to_bytes (text);

  anot_http_backend_send_async (self, "POST", BATCHES_PATH, NULL, body, cancellable,
                                on_batch_created, task);
}

gboolean
anot_backend_anthropic_batch_submit_finish (AnotHttpBackend  *self,
                                            GAsyncResult     *result,
                                            GError          **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);
  return g_task_propagate_boolean (G_TASK (result), error);
}

/* ------------------------------------------------------------------------
 * Polling
 * --------------------------------------------------------------------- */

static AnotError
error_code_for_type (const char *type)
{
  if (g_strcmp0 (type, "invalid_request_error") == 0 || g_strcmp0 (type, "not_found_error") == 0 ||
      g_strcmp0 (type, "request_too_large") == 0)
    return ANOT_ERROR_LLM_BAD_REQUEST;
  if (g_strcmp0 (type, "authentication_error") == 0 || g_strcmp0 (type, "permission_error") == 0)
    return ANOT_ERROR_LLM_AUTH;
  if (g_strcmp0 (type, "rate_limit_error") == 0)
    return ANOT_ERROR_LLM_RATE_LIMITED;
  return ANOT_ERROR_LLM_SERVER;
}

static void
read_result_line (AnotHttpBackend  *self,
                  AnotBatch        *batch,
                  AnotJsonDocument *doc)
{
  g_autofree char *custom_id = anot_json_document_dup_string (doc, anot_json_document_get_member (doc, 0, "custom_id"));
  int result = anot_json_document_get_member (doc, 0, "result");
  g_autofree char *type = anot_json_document_dup_string (doc, anot_json_document_get_member (doc, result, "type"));
  g_autoptr(GError) error = NULL;

  if (custom_id == NULL || type == NULL)
    return;

  if (strcmp (type, "succeeded") == 0)
    {
      g_autoptr(AnotCompletion) completion =
        anot_http_backend_read_answer (self, doc, anot_json_document_get_member (doc, result, "message"),
                                       &error);

      if (completion != NULL)
        {
          if (anot_completion_get_model (completion) == NULL)
            g_object_set (completion, "model", anot_batch_get_model (batch), NULL);
          anot_batch_set_line_result (batch, custom_id, ANOT_BATCH_LINE_SUCCEEDED, completion, NULL);
        }
      else
        anot_batch_set_line_result (batch, custom_id, ANOT_BATCH_LINE_ERRORED, NULL, error);
    }
  else if (strcmp (type, "errored") == 0)
    {
      g_autofree char *error_type = anot_json_document_dup_string (doc, anot_json_document_get_path (doc, result, "error.error.type"));
      g_autofree char *message = anot_json_document_dup_string (doc, anot_json_document_get_path (doc, result, "error.error.message"));

      error = g_error_new (ANOT_ERROR, error_code_for_type (error_type), "%s in message batch %s: %s",
                           error_type ? error_type : "error", anot_batch_get_id (batch),
                           message ? message : "no error message");
      anot_batch_set_line_result (batch, custom_id, ANOT_BATCH_LINE_ERRORED, NULL, error);
    }
  else if (strcmp (type, "canceled") == 0)
    anot_batch_set_line_result (batch, custom_id, ANOT_BATCH_LINE_CANCELLED, NULL, NULL);
  else if (strcmp (type, "expired") == 0)
    anot_batch_set_line_result (batch, custom_id, ANOT_BATCH_LINE_EXPIRED, NULL, NULL);
}

typedef struct
{
  AnotHttpBackend *self;
  AnotBatch *batch;
} LineData;

static void
read_line (AnotJsonDocument *line,
           gpointer          user_data)
{
  LineData *data = user_data;

  read_result_line (data->self, data->batch, line);
}

static void
on_results (GObject      *source,
            GAsyncResult *result,
            gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  AnotHttpBackend *self = ANOT_HTTP_BACKEND (source);
  AnotBatch *batch = g_task_get_task_data (task);
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) bytes = anot_http_backend_send_finish (self, result, &error);
  LineData line_data = { self, batch };

  if (bytes == NULL)
    {
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }
  if (!anot_batch_read_results (batch, bytes, read_line, &line_data, &error))
    {
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }
  anot_batch_set_status (batch, ANOT_BATCH_STATUS_COMPLETED);
  g_task_return_boolean (task, TRUE);
}

static void
on_batch_got (GObject      *source,
              GAsyncResult *result,
              gpointer      user_data)
{
  GTask *task = user_data;
  g_autofree char *results_url = NULL;

  if (!read_batch_object (task, result, "GET " BATCHES_PATH "/{id}", &results_url))
    {
      g_object_unref (task);
      return;
    }
  if (results_url == NULL)
    {
      /* Still running. */
      g_task_return_boolean (task, TRUE);
      g_object_unref (task);
      return;
    }
  anot_http_backend_send_async (g_task_get_source_object (task), "GET", results_url, NULL, NULL,
                                g_task_get_cancellable (task), on_results, task);
}

void
anot_backend_anthropic_batch_poll_async (AnotHttpBackend     *self,
                                         AnotBatch           *batch,
                                         GCancellable        *cancellable,
                                         GAsyncReadyCallback  callback,
                                         gpointer             user_data)
{
  GTask *task = batch_task_new (self, batch, anot_backend_anthropic_batch_poll_async,
                             cancellable, callback, user_data);
  g_autofree char *escaped = g_uri_escape_string (anot_batch_get_id (batch), NULL, FALSE);
  g_autofree char *path = g_strdup_printf (BATCHES_PATH "/%s", escaped);

  anot_http_backend_send_async (self, "GET", path, NULL, NULL, cancellable, on_batch_got, task);
}

gboolean
anot_backend_anthropic_batch_poll_finish (AnotHttpBackend  *self,
                                          GAsyncResult     *result,
                                          GError          **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);
  return g_task_propagate_boolean (G_TASK (result), error);
}

/* ------------------------------------------------------------------------
 * Finding a batch created without hearing back
 * --------------------------------------------------------------------- */

static gint64
request_total (AnotJsonDocument *doc,
               int               batch)
{
  static const char * const counts[] = { "processing", "succeeded", "errored", "canceled", "expired" };
  int request_counts = anot_json_document_get_member (doc, batch, "request_counts");
  gint64 total = 0;

  for (guint i = 0; i < G_N_ELEMENTS (counts); i++)
    total += anot_json_document_get_int (doc, anot_json_document_get_member (doc, request_counts, counts[i]), 0);
  return total;
}

static void
on_batches_listed (GObject      *source,
                   GAsyncResult *result,
                   gpointer      user_data)
{
  GTask *task = user_data;
  AnotHttpBackend *self = ANOT_HTTP_BACKEND (source);
  AnotBatch *batch = g_task_get_task_data (task);
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) bytes = anot_http_backend_send_finish (self, result, &error);
  g_autoptr(AnotJsonDocument) doc = NULL;
  int data;

  if (bytes == NULL)
    {
      g_task_return_error (task, g_steal_pointer (&error));
      g_object_unref (task);
      return;
    }
  doc = anot_json_document_new_from_bytes (bytes, NULL);
  data = doc != NULL ? anot_json_document_get_member (doc, 0, "data") : -1;
  if (doc == NULL || anot_json_document_get_kind (doc, data) != ANOT_JSON_KIND_ARRAY)
    {
      g_task_return_new_error (task, ANOT_ERROR, ANOT_ERROR_LLM_PROTOCOL,
                               "The answer to GET " BATCHES_PATH " is not a list of batches");
      g_object_unref (task);
      return;
    }

  /* Newest first: the first batch of as many requests created since the
   * intent (a minute's leeway for clocks).  Anthropic keeps no metadata;
   * a batch taken for another one only delays its lines, which are
   * matched by custom id when its results are read, and retried. */
  for (guint i = 0; i < anot_json_document_get_size (doc, data); i++)
    {
      int candidate = anot_json_document_get_element (doc, data, i);
      g_autofree char *created = anot_json_document_dup_string (doc, anot_json_document_get_member (doc, candidate,
                                                                                                   "created_at"));
      g_autoptr(GDateTime) when = created != NULL ? g_date_time_new_from_iso8601 (created, NULL) : NULL;

      if (when == NULL || g_date_time_to_unix (when) < anot_batch_get_intent_time (batch) - 60 ||
          request_total (doc, candidate) != (gint64) anot_batch_get_n_lines (batch))
        continue;
      {
        g_autofree char *id = anot_json_document_dup_string (doc, anot_json_document_get_member (doc, candidate, "id"));

        anot_batch_set_id (batch, id);
      }
      break;
    }
  g_task_return_boolean (task, TRUE);
  g_object_unref (task);
}

void
anot_backend_anthropic_batch_find_async (AnotHttpBackend     *self,
                                         AnotBatch           *batch,
                                         GCancellable        *cancellable,
                                         GAsyncReadyCallback  callback,
                                         gpointer             user_data)
{
  GTask *task = batch_task_new (self, batch, anot_backend_anthropic_batch_find_async,
                                cancellable, callback, user_data);

  anot_http_backend_send_async (self, "GET", BATCHES_PATH "?limit=100", NULL, NULL, cancellable,
                                on_batches_listed, task);
}

gboolean
anot_backend_anthropic_batch_find_finish (AnotHttpBackend  *self,
                                          GAsyncResult     *result,
                                          GError          **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);
  return g_task_propagate_boolean (G_TASK (result), error);
}
