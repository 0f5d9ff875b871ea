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
 *   GET  /v1/messages/batches       the list, newest first: message_batch
 *                                   objects (no metadata: a batch made
 *                                   without hearing back is found by the
 *                                   custom ids of its results)
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

/* The search for the batch an intent created: the candidates the list
 * gave (as many requests, created since the intent), checked by the
 * custom ids of their results. */
typedef struct
{
  AnotBatch *batch;
  GPtrArray *ended_ids;     /* char*: candidates that ended, newest first */
  GPtrArray *results_urls;  /* char*: their results */
  char *in_progress_id;     /* the newest candidate still running */
  guint next;
} FindData;

static void
find_data_free (FindData *data)
{
  g_object_unref (data->batch);
  g_ptr_array_unref (data->ended_ids);
  g_ptr_array_unref (data->results_urls);
  g_free (data->in_progress_id);
  g_free (data);
}

static void check_next_candidate (GTask *task);

static void
collect_custom_id (AnotJsonDocument *line,
                   gpointer          user_data)
{
  char *custom_id = anot_json_document_dup_string (line, anot_json_document_get_member (line, 0, "custom_id"));

  if (custom_id != NULL)
    g_hash_table_add (user_data, custom_id);
}

/* Whether the results hold exactly the intent's custom ids: they are
 * digests of the calls, so another batch of as many requests (another
 * run's, another shard's) does not. */
static gboolean
results_match (AnotBatch *batch,
               GBytes    *results)
{
  g_autoptr(GHashTable) ids = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  guint n = anot_batch_get_n_lines (batch);

  if (!anot_batch_read_results (batch, results, collect_custom_id, ids, NULL) ||
      g_hash_table_size (ids) != n)
    return FALSE;
  for (guint i = 0; i < n; i++)
    if (!g_hash_table_contains (ids, anot_batch_get_line_custom_id (batch, i)))
      return FALSE;
  return TRUE;
}

static void
on_candidate_results (GObject      *source,
                      GAsyncResult *result,
                      gpointer      user_data)
{
  GTask *task = user_data;
  FindData *data = g_task_get_task_data (task);
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) bytes = anot_http_backend_send_finish (ANOT_HTTP_BACKEND (source), result, &error);

  if (bytes == NULL && g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    {
      g_task_return_error (task, g_steal_pointer (&error));
      g_object_unref (task);
      return;
    }
  /* Results that cannot be read cannot vouch for the batch: the next
   * candidate, or the calls are sent again. */
  if (bytes != NULL && results_match (data->batch, bytes))
    {
      anot_batch_set_id (data->batch, g_ptr_array_index (data->ended_ids, data->next));
      g_task_return_boolean (task, TRUE);
      g_object_unref (task);
      return;
    }
  data->next++;
  check_next_candidate (task);
}

static void
check_next_candidate (GTask *task)
{
  FindData *data = g_task_get_task_data (task);

  if (data->next < data->ended_ids->len)
    {
      anot_http_backend_send_async (g_task_get_source_object (task), "GET",
                                    g_ptr_array_index (data->results_urls, data->next), NULL, NULL,
                                    g_task_get_cancellable (task), on_candidate_results, task);
      return;
    }
  /* None that ended holds the intent's calls.  A batch still running
   * shows no custom ids (Anthropic gives results only once a batch
   * ends): the newest one of as many requests is polled, and its results
   * are matched by custom id when it ends; a call it does not answer is
   * sent again then. */
  if (data->in_progress_id != NULL)
    anot_batch_set_id (data->batch, data->in_progress_id);
  g_task_return_boolean (task, TRUE);
  g_object_unref (task);
}

static void
on_batches_listed (GObject      *source,
                   GAsyncResult *result,
                   gpointer      user_data)
{
  GTask *task = user_data;
  AnotHttpBackend *self = ANOT_HTTP_BACKEND (source);
  FindData *find = g_task_get_task_data (task);
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

  /* Newest first, the batches of as many requests created since the
   * intent (a minute's leeway for clocks); Anthropic keeps no metadata,
   * so the custom ids of their results decide. */
  for (guint i = 0; i < anot_json_document_get_size (doc, data); i++)
    {
      int candidate = anot_json_document_get_element (doc, data, i);
      g_autofree char *created = anot_json_document_dup_string (doc, anot_json_document_get_member (doc, candidate,
                                                                                                   "created_at"));
      g_autoptr(GDateTime) when = created != NULL ? g_date_time_new_from_iso8601 (created, NULL) : NULL;
      g_autofree char *id = NULL;
      g_autofree char *status = NULL;
      g_autofree char *url = NULL;

      if (when == NULL || g_date_time_to_unix (when) < anot_batch_get_intent_time (find->batch) - 60 ||
          request_total (doc, candidate) != (gint64) anot_batch_get_n_lines (find->batch))
        continue;
      id = anot_json_document_dup_string (doc, anot_json_document_get_member (doc, candidate, "id"));
      status = anot_json_document_dup_string (doc, anot_json_document_get_member (doc, candidate,
                                                                                 "processing_status"));
      url = anot_json_document_dup_string (doc, anot_json_document_get_member (doc, candidate, "results_url"));
      if (id == NULL)
        continue;
      if (g_strcmp0 (status, "ended") == 0 && url != NULL)
        {
          g_ptr_array_add (find->ended_ids, g_steal_pointer (&id));
          g_ptr_array_add (find->results_urls, g_steal_pointer (&url));
        }
      else if (find->in_progress_id == NULL)
        find->in_progress_id = g_steal_pointer (&id);
    }
  check_next_candidate (task);
}

void
anot_backend_anthropic_batch_find_async (AnotHttpBackend     *self,
                                         AnotBatch           *batch,
                                         GCancellable        *cancellable,
                                         GAsyncReadyCallback  callback,
                                         gpointer             user_data)
{
  GTask *task = g_task_new (self, cancellable, callback, user_data);
  FindData *data = g_new0 (FindData, 1);

  g_task_set_source_tag (task, anot_backend_anthropic_batch_find_async);
  data->batch = g_object_ref (batch);
  data->ended_ids = g_ptr_array_new_with_free_func (g_free);
  data->results_urls = g_ptr_array_new_with_free_func (g_free);
  g_task_set_task_data (task, data, (GDestroyNotify) find_data_free);
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
