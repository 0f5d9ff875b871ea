/* anot-backend-openai-batch.c: OpenAI's Batch API
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "anot-backend-openai-batch.h"

#include <string.h>

/* OpenAI's Batch API, as its reference defines it:
 *
 *   POST /v1/files                 multipart: purpose=batch, file=JSONL of
 *                                  {custom_id, method, url, body}
 *   POST /v1/batches               {input_file_id, endpoint, completion_window}
 *   GET  /v1/batches/{id}          the batch object: status (validating,
 *                                  failed, in_progress, finalizing,
 *                                  completed, expired, cancelling,
 *                                  cancelled), output_file_id, error_file_id,
 *                                  request_counts, errors
 *   GET  /v1/files/{id}/content    JSONL of {id, custom_id, response:
 *                                  {status_code, request_id, body}, error:
 *                                  {code, message}}
 *
 * Lines that were not answered when a batch expired or was cancelled are
 * in the error file with the codes `batch_expired` and `batch_cancelled`.
 * The base URL ends in /v1, so paths here start after it; the `url` of a
 * line is the full path the API documents. */

#define BATCH_ENDPOINT "/v1/chat/completions"

typedef struct
{
  AnotBatch *batch;
  AnotBatchStatus ended;     /* the final status, set once results are in */
  char *output_file_id;
  char *error_file_id;
} Op;

static void
op_free (Op *op)
{
  g_clear_object (&op->batch);
  g_free (op->output_file_id);
  g_free (op->error_file_id);
  g_free (op);
}

static GTask *
op_task_new (AnotHttpBackend     *self,
             AnotBatch           *batch,
             gpointer             source_tag,
             GCancellable        *cancellable,
             GAsyncReadyCallback  callback,
             gpointer             user_data)
{
  GTask *task = g_task_new (self, cancellable, callback, user_data);
  Op *op = g_new0 (Op, 1);

  op->batch = g_object_ref (batch);
  g_task_set_source_tag (task, source_tag);
  g_task_set_task_data (task, op, (GDestroyNotify) op_free);
  return task;
}

/* The answer of an exchange as a JSON document; NULL with the task
 * returned when it failed. */
static AnotJsonDocument *
finish_json (GTask        *task,
             GAsyncResult *result,
             const char   *what)
{
  AnotHttpBackend *self = g_task_get_source_object (task);
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) bytes = anot_http_backend_send_finish (self, result, &error);
  AnotJsonDocument *doc;

  if (bytes == NULL)
    {
      g_task_return_error (task, g_steal_pointer (&error));
      return NULL;
    }
  doc = anot_json_document_new_from_bytes (bytes, &error);
  if (doc == NULL || anot_json_document_get_kind (doc, 0) != ANOT_JSON_KIND_OBJECT)
    {
      g_clear_pointer (&doc, anot_json_document_unref);
      g_task_return_new_error (task, ANOT_ERROR, ANOT_ERROR_LLM_PROTOCOL,
                               "The answer to %s is not a JSON object", what);
      return NULL;
    }
  return doc;
}

static gboolean
parse_status (const char      *name,
              AnotBatchStatus *status)
{
  static const struct { const char *name; AnotBatchStatus status; } map[] = {
    { "validating", ANOT_BATCH_STATUS_VALIDATING },
    { "in_progress", ANOT_BATCH_STATUS_IN_PROGRESS },
    { "finalizing", ANOT_BATCH_STATUS_FINALIZING },
    { "cancelling", ANOT_BATCH_STATUS_CANCELLING },
    { "completed", ANOT_BATCH_STATUS_COMPLETED },
    { "failed", ANOT_BATCH_STATUS_FAILED },
    { "expired", ANOT_BATCH_STATUS_EXPIRED },
    { "cancelled", ANOT_BATCH_STATUS_CANCELLED },
  };

  for (guint i = 0; name != NULL && i < G_N_ELEMENTS (map); i++)
    if (strcmp (name, map[i].name) == 0)
      {
        *status = map[i].status;
        return TRUE;
      }
  return FALSE;
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
  Op *op = g_task_get_task_data (task);
  g_autoptr(AnotJsonDocument) doc = finish_json (task, result, "POST /batches");
  g_autofree char *id = NULL;
  g_autofree char *status_name = NULL;
  AnotBatchStatus status;

  if (doc == NULL)
    return;
  id = anot_json_document_dup_string (doc, anot_json_document_get_member (doc, 0, "id"));
  status_name = anot_json_document_dup_string (doc, anot_json_document_get_member (doc, 0, "status"));
  if (id == NULL || !parse_status (status_name, &status))
    {
      g_task_return_new_error (task, ANOT_ERROR, ANOT_ERROR_LLM_PROTOCOL,
                               "The answer to POST /batches is not a batch object "
                               "(id “%s”, status “%s”)", id ? id : "", status_name ? status_name : "");
      return;
    }
  anot_batch_set_id (op->batch, id);
  anot_batch_set_status (op->batch, status);
  g_task_return_boolean (task, TRUE);
}

static void
on_file_uploaded (GObject      *source,
                  GAsyncResult *result,
                  gpointer      user_data)
{
  GTask *task = user_data;
  Op *op = g_task_get_task_data (task);
  g_autoptr(AnotJsonDocument) doc = finish_json (task, result, "POST /files");
  g_autoptr(AnotJsonWriter) writer = NULL;
  g_autofree char *file_id = NULL;

  if (doc == NULL)
    {
      g_object_unref (task);
      return;
    }
  file_id = anot_json_document_dup_string (doc, anot_json_document_get_member (doc, 0, "id"));
  if (file_id == NULL)
    {
      g_task_return_new_error (task, ANOT_ERROR, ANOT_ERROR_LLM_PROTOCOL,
                               "The answer to POST /files names no file id");
      g_object_unref (task);
      return;
    }

  writer = anot_json_writer_new ();
  anot_json_writer_begin_object (writer);
  anot_json_writer_set_member_name (writer, "input_file_id");
  anot_json_writer_add_string_value (writer, file_id);
  anot_json_writer_set_member_name (writer, "endpoint");
  anot_json_writer_add_string_value (writer, BATCH_ENDPOINT);
  anot_json_writer_set_member_name (writer, "completion_window");
  anot_json_writer_add_string_value (writer, "24h");
  /* What finds the batch again if the answer to this is lost. */
  if (anot_batch_get_intent_id (op->batch) != NULL)
    {
      anot_json_writer_set_member_name (writer, "metadata");
      anot_json_writer_begin_object (writer);
      anot_json_writer_set_member_name (writer, "anot_intent");
      anot_json_writer_add_string_value (writer, anot_batch_get_intent_id (op->batch));
      anot_json_writer_end_object (writer);
    }
  anot_json_writer_end_object (writer);
  {
    g_autoptr(GBytes) body = anot_json_writer_steal_bytes (writer);

    anot_http_backend_send_async (g_task_get_source_object (task), "POST", "/batches", NULL, body,
                                  g_task_get_cancellable (task), on_batch_created, task);
  }
}

void
anot_backend_openai_batch_submit_async (AnotHttpBackend     *self,
                                        AnotBatch           *batch,
                                        GCancellable        *cancellable,
                                        GAsyncReadyCallback  callback,
                                        gpointer             user_data)
{
  GTask *task = op_task_new (self, batch, anot_backend_openai_batch_submit_async,
                             cancellable, callback, user_data);
  g_autofree char *boundary = g_strdup_printf ("anot-batch-%08x%08x", g_random_int (), g_random_int ());
  g_autofree char *content_type = g_strdup_printf ("multipart/form-data; boundary=%s", boundary);
  g_autoptr(GBytes) body = NULL;
  GString *form = g_string_new (NULL);
  guint n = anot_batch_get_n_lines (batch);

  /* A multipart form: purpose=batch and the JSONL file.  Each line's body
   * is the JSON a direct call sends, copied as it is. */
  g_string_append_printf (form,
                          "--%s\r\n"
                          "Content-Disposition: form-data; name=\"purpose\"\r\n\r\n"
                          "batch\r\n"
                          "--%s\r\n"
                          "Content-Disposition: form-data; name=\"file\"; filename=\"anot-batch.jsonl\"\r\n"
                          "Content-Type: application/jsonl\r\n\r\n",
                          boundary, boundary);
  for (guint i = 0; i < n; i++)
    {
      GBytes *line_body = anot_batch_get_line_body (batch, i);
      gsize size = 0;
      const char *data = line_body ? g_bytes_get_data (line_body, &size) : NULL;

      g_string_append_printf (form,
                              "{\"custom_id\":\"%s\",\"method\":\"POST\",\"url\":\"" BATCH_ENDPOINT "\",\"body\":",
                              anot_batch_get_line_custom_id (batch, i));
      g_string_append_len (form, data ? data : "{}", data ? (gssize) size : 2);
      g_string_append (form, "}\n");
    }
  g_string_append_printf (form, "\r\n--%s--\r\n", boundary);
  body = g_string_free_to_bytes (form);

  anot_http_backend_send_async (self, "POST", "/files", content_type, body, cancellable,
                                on_file_uploaded, task);
}

gboolean
anot_backend_openai_batch_submit_finish (AnotHttpBackend  *self,
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
error_code_for_status (gint64 status)
{
  if (status == 401 || status == 403)
    return ANOT_ERROR_LLM_AUTH;
  if (status == 429)
    return ANOT_ERROR_LLM_RATE_LIMITED;
  if (status >= 500 || status == 408 || status == 409)
    return ANOT_ERROR_LLM_SERVER;
  return ANOT_ERROR_LLM_BAD_REQUEST;
}

/* One line of an output or error file. */
static void
read_result_line (AnotHttpBackend  *self,
                  AnotBatch        *batch,
                  AnotJsonDocument *doc)
{
  g_autofree char *custom_id = anot_json_document_dup_string (doc, anot_json_document_get_member (doc, 0, "custom_id"));
  int response = anot_json_document_get_member (doc, 0, "response");
  int error_value = anot_json_document_get_member (doc, 0, "error");
  g_autoptr(GError) error = NULL;

  if (custom_id == NULL)
    return;

  if (anot_json_document_get_kind (doc, response) == ANOT_JSON_KIND_OBJECT)
    {
      gint64 status = anot_json_document_get_int (doc, anot_json_document_get_member (doc, response, "status_code"), 0);
      int body = anot_json_document_get_member (doc, response, "body");

      if (status >= 200 && status < 300)
        {
          g_autoptr(AnotCompletion) completion = anot_http_backend_read_answer (self, doc, body, &error);

          if (completion != NULL)
            {
              if (anot_completion_get_model (completion) == NULL)
                g_object_set (completion, "model", anot_batch_get_model (batch), NULL);
              anot_batch_set_line_result (batch, custom_id, ANOT_BATCH_LINE_SUCCEEDED, completion, NULL);
            }
          else
            anot_batch_set_line_result (batch, custom_id, ANOT_BATCH_LINE_ERRORED, NULL, error);
          return;
        }
      else
        {
          g_autofree char *message = anot_json_document_dup_string (doc, anot_json_document_get_path (doc, body, "error.message"));

          error = g_error_new (ANOT_ERROR, error_code_for_status (status),
                               "HTTP %" G_GINT64_FORMAT " in batch %s: %s", status,
                               anot_batch_get_id (batch), message ? message : "no error message");
          anot_batch_set_line_result (batch, custom_id, ANOT_BATCH_LINE_ERRORED, NULL, error);
          return;
        }
    }

  if (anot_json_document_get_kind (doc, error_value) == ANOT_JSON_KIND_OBJECT)
    {
      g_autofree char *code = anot_json_document_dup_string (doc, anot_json_document_get_member (doc, error_value, "code"));
      g_autofree char *message = anot_json_document_dup_string (doc, anot_json_document_get_member (doc, error_value, "message"));

      if (g_strcmp0 (code, "batch_expired") == 0)
        anot_batch_set_line_result (batch, custom_id, ANOT_BATCH_LINE_EXPIRED, NULL, NULL);
      else if (g_strcmp0 (code, "batch_cancelled") == 0)
        anot_batch_set_line_result (batch, custom_id, ANOT_BATCH_LINE_CANCELLED, NULL, NULL);
      else
        {
          error = g_error_new (ANOT_ERROR, ANOT_ERROR_LLM_SERVER, "Error %s in batch %s: %s",
                               code ? code : "(no code)", anot_batch_get_id (batch),
                               message ? message : "no error message");
          anot_batch_set_line_result (batch, custom_id, ANOT_BATCH_LINE_ERRORED, NULL, error);
        }
    }
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

static void fetch_next_file (GTask *task);

static void
on_file_content (GObject      *source,
                 GAsyncResult *result,
                 gpointer      user_data)
{
  GTask *task = user_data;
  AnotHttpBackend *self = ANOT_HTTP_BACKEND (source);
  Op *op = g_task_get_task_data (task);
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) bytes = anot_http_backend_send_finish (self, result, &error);

  LineData line_data = { self, op->batch };

  if (bytes == NULL || !anot_batch_read_results (op->batch, bytes, read_line, &line_data, &error))
    {
      g_task_return_error (task, g_steal_pointer (&error));
      g_object_unref (task);
      return;
    }
  fetch_next_file (task);
}

/* The output file, then the error file, then the batch is ended. */
static void
fetch_next_file (GTask *task)
{
  Op *op = g_task_get_task_data (task);
  g_autofree char *file_id = NULL;
  g_autofree char *path = NULL;

  if (op->output_file_id != NULL)
    file_id = g_steal_pointer (&op->output_file_id);
  else if (op->error_file_id != NULL)
    file_id = g_steal_pointer (&op->error_file_id);
  else
    {
      anot_batch_set_status (op->batch, op->ended);
      g_task_return_boolean (task, TRUE);
      g_object_unref (task);
      return;
    }
  {
    g_autofree char *escaped = g_uri_escape_string (file_id, NULL, FALSE);

    path = g_strdup_printf ("/files/%s/content", escaped);
  }
  anot_http_backend_send_async (g_task_get_source_object (task), "GET", path, NULL, NULL,
                                g_task_get_cancellable (task), on_file_content, task);
}

static void
on_batch_got (GObject      *source,
              GAsyncResult *result,
              gpointer      user_data)
{
  GTask *task = user_data;
  Op *op = g_task_get_task_data (task);
  g_autoptr(AnotJsonDocument) doc = finish_json (task, result, "GET /batches/{id}");
  g_autofree char *status_name = NULL;
  AnotBatchStatus status;

  if (doc == NULL)
    {
      g_object_unref (task);
      return;
    }
  status_name = anot_json_document_dup_string (doc, anot_json_document_get_member (doc, 0, "status"));
  if (!parse_status (status_name, &status))
    {
      g_task_return_new_error (task, ANOT_ERROR, ANOT_ERROR_LLM_PROTOCOL,
                               "Batch %s has an unknown status “%s”",
                               anot_batch_get_id (op->batch), status_name ? status_name : "");
      g_object_unref (task);
      return;
    }
  if (status < ANOT_BATCH_STATUS_COMPLETED)
    {
      anot_batch_set_status (op->batch, status);
      g_task_return_boolean (task, TRUE);
      g_object_unref (task);
      return;
    }

  if (status == ANOT_BATCH_STATUS_FAILED)
    {
      g_autofree char *message = anot_json_document_dup_string (doc, anot_json_document_get_path (doc, 0, "errors.data[0].message"));

      anot_batch_set_message (op->batch, message);
    }
  op->ended = status;
  op->output_file_id = anot_json_document_dup_string (doc, anot_json_document_get_member (doc, 0, "output_file_id"));
  op->error_file_id = anot_json_document_dup_string (doc, anot_json_document_get_member (doc, 0, "error_file_id"));
  fetch_next_file (task);
}

void
anot_backend_openai_batch_poll_async (AnotHttpBackend     *self,
                                      AnotBatch           *batch,
                                      GCancellable        *cancellable,
                                      GAsyncReadyCallback  callback,
                                      gpointer             user_data)
{
  GTask *task = op_task_new (self, batch, anot_backend_openai_batch_poll_async,
                             cancellable, callback, user_data);
  g_autofree char *escaped = g_uri_escape_string (anot_batch_get_id (batch), NULL, FALSE);
  g_autofree char *path = g_strdup_printf ("/batches/%s", escaped);

  anot_http_backend_send_async (self, "GET", path, NULL, NULL, cancellable, on_batch_got, task);
}

gboolean
anot_backend_openai_batch_poll_finish (AnotHttpBackend  *self,
                                       GAsyncResult     *result,
                                       GError          **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);
  return g_task_propagate_boolean (G_TASK (result), error);
}

/* ------------------------------------------------------------------------
 * Finding a batch created without hearing back
 * --------------------------------------------------------------------- */

static void
on_batches_listed (GObject      *source,
                   GAsyncResult *result,
                   gpointer      user_data)
{
  GTask *task = user_data;
  Op *op = g_task_get_task_data (task);
  g_autoptr(AnotJsonDocument) doc = finish_json (task, result, "GET /batches");
  int data;

  if (doc == NULL)
    {
      g_object_unref (task);
      return;
    }
  data = anot_json_document_get_member (doc, 0, "data");
  for (guint i = 0; i < anot_json_document_get_size (doc, data); i++)
    {
      int batch = anot_json_document_get_element (doc, data, i);
      g_autofree char *intent = anot_json_document_dup_string (doc, anot_json_document_get_path (doc, batch,
                                                                                              "metadata.anot_intent"));

      if (g_strcmp0 (intent, anot_batch_get_intent_id (op->batch)) == 0)
        {
          g_autofree char *id = anot_json_document_dup_string (doc, anot_json_document_get_member (doc, batch, "id"));

          anot_batch_set_id (op->batch, id);
          break;
        }
    }
  g_task_return_boolean (task, TRUE);
  g_object_unref (task);
}

/* The batch whose metadata carries the intent's id, among the 100 most
 * recent (a resume follows its kill within the day a batch lives). */
void
anot_backend_openai_batch_find_async (AnotHttpBackend     *self,
                                      AnotBatch           *batch,
                                      GCancellable        *cancellable,
                                      GAsyncReadyCallback  callback,
                                      gpointer             user_data)
{
  GTask *task = op_task_new (self, batch, anot_backend_openai_batch_find_async,
                             cancellable, callback, user_data);

  anot_http_backend_send_async (self, "GET", "/batches?limit=100", NULL, NULL, cancellable,
                                on_batches_listed, task);
}

gboolean
anot_backend_openai_batch_find_finish (AnotHttpBackend  *self,
                                       GAsyncResult     *result,
                                       GError          **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);
  return g_task_propagate_boolean (G_TASK (result), error);
}
