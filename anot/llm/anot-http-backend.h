/* anot-http-backend.h
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#if !defined(ANOT_INSIDE) && !defined(ANOT_COMPILATION)
#error "Only <anot/anot.h> can be included directly."
#endif

#include "anot-visibility.h"

#include <gio/gio.h>
#include <json-glib/json-glib.h>

#include "anot-backend.h"
#include "anot-batch.h"
#include "anot-batch-queue.h"
#include "anot-json-document.h"
#include "anot-json-writer.h"

G_BEGIN_DECLS

#define ANOT_TYPE_HTTP_BACKEND (anot_http_backend_get_type ())
ANOT_AVAILABLE_IN_ALL
G_DECLARE_DERIVABLE_TYPE (AnotHttpBackend, anot_http_backend, ANOT, HTTP_BACKEND, GObject)

/**
 * AnotHttpBackendClass:
 * @parent_class: the parent class
 * @name: the backend's registered name ("openai"), used in messages and
 *   to name the configuration section `[backend NAME]`
 * @default_base_url: the base URL when [property@Anot.HttpBackend:base-url]
 *   is not set
 * @endpoint_path: appended to the base URL, e.g. `/chat/completions`
 * @default_model: the model when neither the request nor
 *   [property@Anot.HttpBackend:model] names one
 * @api_key_variable: the environment variable that holds the API key,
 *   e.g. `OPENAI_API_KEY`; named in authentication errors
 * @build_headers: returns the headers of a call as a %NULL-terminated
 *   array of alternating names and values, given the API key (%NULL when
 *   none is configured); `Content-Type` and `Accept` are added by the base
 *   class
 * @write_body: writes the JSON body of a call for @request and @model
 *   into @writer (an empty [struct@Anot.JsonWriter]); returns %FALSE with
 *   @error set when the request cannot be expressed in the API
 * @read_body: turns the JSON body of a successful answer into a
 *   completion (text, model, token counts, finish reason), or fails with
 *   %ANOT_ERROR_LLM_PROTOCOL, %ANOT_ERROR_LLM_EMPTY or
 *   %ANOT_ERROR_LLM_REFUSED
 * @batch_max_bytes: the provider's limit on the size of one batch, in
 *   bytes (0: none); [class@Anot.BatchQueue] splits batches to stay under
 *   it
 * @batch_max_lines: the provider's limit on the calls of one batch (0: none)
 * @batch_line_overhead: the bytes a batch adds to a call's JSON body to make
 *   its line (custom id and wrapping), so a line's size is the body's plus
 *   this
 * @batch_find_async: looks among the provider's batches for the one a
 *   client created for @batch's intent ([method@Anot.Batch.get_intent_id],
 *   its custom ids and time) without hearing back (it was killed in
 *   between); sets its id on @batch when found
 * @batch_find_finish: %TRUE when the search ran (whether or not it found
 *   the batch), %FALSE with @error when the provider could not be asked
 *
 * The class of an HTTP LLM API.  A subclass describes the wire format
 * only; [class@Anot.HttpBackend] does everything else.
 */
struct _AnotHttpBackendClass
{
  GObjectClass parent_class;

  const char *name;
  const char *default_base_url;
  const char *endpoint_path;
  const char *default_model;
  const char *api_key_variable;

  char          **(*build_headers) (AnotHttpBackend  *self,
                                    const char       *api_key);
  gboolean        (*write_body)    (AnotHttpBackend  *self,
                                    AnotChatRequest  *request,
                                    const char       *model,
                                    AnotJsonWriter   *writer,
                                    GError          **error);
  AnotCompletion *(*read_body)     (AnotHttpBackend  *self,
                                    AnotJsonDocument *body,
                                    GError          **error);

  void            (*batch_submit_async)  (AnotHttpBackend     *self,
                                          AnotBatch           *batch,
                                          GCancellable        *cancellable,
                                          GAsyncReadyCallback  callback,
                                          gpointer             user_data);
  gboolean        (*batch_submit_finish) (AnotHttpBackend     *self,
                                          GAsyncResult        *result,
                                          GError             **error);
  void            (*batch_poll_async)    (AnotHttpBackend     *self,
                                          AnotBatch           *batch,
                                          GCancellable        *cancellable,
                                          GAsyncReadyCallback  callback,
                                          gpointer             user_data);
  gboolean        (*batch_poll_finish)   (AnotHttpBackend     *self,
                                          GAsyncResult        *result,
                                          GError             **error);

  guint64         batch_max_bytes;
  guint           batch_max_lines;
  guint           batch_line_overhead;

  void            (*batch_find_async)    (AnotHttpBackend     *self,
                                          AnotBatch           *batch,
                                          GCancellable        *cancellable,
                                          GAsyncReadyCallback  callback,
                                          gpointer             user_data);
  gboolean        (*batch_find_finish)   (AnotHttpBackend     *self,
                                          GAsyncResult        *result,
                                          GError             **error);
};

ANOT_AVAILABLE_IN_ALL
const char *anot_http_backend_get_base_url        (AnotHttpBackend *self);
ANOT_AVAILABLE_IN_ALL
void        anot_http_backend_set_base_url        (AnotHttpBackend *self,
                                                   const char      *base_url);
ANOT_AVAILABLE_IN_ALL
void        anot_http_backend_set_api_key         (AnotHttpBackend *self,
                                                   const char      *api_key);
ANOT_AVAILABLE_IN_ALL
gboolean    anot_http_backend_has_api_key         (AnotHttpBackend *self);
ANOT_AVAILABLE_IN_ALL
const char *anot_http_backend_get_model           (AnotHttpBackend *self);
ANOT_AVAILABLE_IN_ALL
void        anot_http_backend_set_model           (AnotHttpBackend *self,
                                                   const char      *model);
ANOT_AVAILABLE_IN_ALL
guint       anot_http_backend_get_timeout_ms      (AnotHttpBackend *self);
ANOT_AVAILABLE_IN_ALL
void        anot_http_backend_set_timeout_ms      (AnotHttpBackend *self,
                                                   guint            timeout_ms);
ANOT_AVAILABLE_IN_ALL
guint       anot_http_backend_get_max_retries     (AnotHttpBackend *self);
ANOT_AVAILABLE_IN_ALL
void        anot_http_backend_set_max_retries     (AnotHttpBackend *self,
                                                   guint            max_retries);
ANOT_AVAILABLE_IN_ALL
guint       anot_http_backend_get_max_concurrency (AnotHttpBackend *self);
ANOT_AVAILABLE_IN_ALL
void        anot_http_backend_set_max_concurrency (AnotHttpBackend *self,
                                                   guint            max_concurrency);
ANOT_AVAILABLE_IN_ALL
guint       anot_http_backend_get_n_in_flight     (AnotHttpBackend *self);
ANOT_AVAILABLE_IN_ALL
guint       anot_http_backend_get_n_queued        (AnotHttpBackend *self);
ANOT_AVAILABLE_IN_ALL
guint64     anot_http_backend_get_n_retries       (AnotHttpBackend *self);
ANOT_AVAILABLE_IN_ALL
guint       anot_http_backend_get_concurrency_limit (AnotHttpBackend *self);
ANOT_AVAILABLE_IN_ALL
guint       anot_http_backend_get_peak_concurrency (AnotHttpBackend *self);
ANOT_AVAILABLE_IN_ALL
guint       anot_http_backend_get_rate_limit_wait_ms (AnotHttpBackend *self);

ANOT_AVAILABLE_IN_ALL
AnotBatchQueue *anot_http_backend_get_batch_queue (AnotHttpBackend *self);
ANOT_AVAILABLE_IN_ALL
void        anot_http_backend_set_batch_queue     (AnotHttpBackend *self,
                                                   AnotBatchQueue  *queue);
ANOT_AVAILABLE_IN_ALL
gboolean    anot_http_backend_can_batch           (AnotHttpBackend *self);

ANOT_AVAILABLE_IN_ALL
void        anot_http_backend_send_async          (AnotHttpBackend     *self,
                                                   const char          *method,
                                                   const char          *path,
                                                   const char          *content_type,
                                                   GBytes              *body,
                                                   GCancellable        *cancellable,
                                                   GAsyncReadyCallback  callback,
                                                   gpointer             user_data);
ANOT_AVAILABLE_IN_ALL
GBytes     *anot_http_backend_send_finish         (AnotHttpBackend     *self,
                                                   GAsyncResult        *result,
                                                   GError             **error);

ANOT_AVAILABLE_IN_ALL
AnotCompletion *anot_http_backend_read_answer     (AnotHttpBackend     *self,
                                                   AnotJsonDocument    *document,
                                                   int                  value,
                                                   GError             **error);

ANOT_AVAILABLE_IN_ALL
char       *anot_http_backend_dup_key_hint        (AnotHttpBackend *self);
ANOT_AVAILABLE_IN_ALL
gboolean    anot_http_backend_check_api_key       (AnotHttpBackend *self,
                                                   GError         **error);
ANOT_AVAILABLE_IN_ALL
char       *anot_http_backend_dup_error_message   (AnotJsonDocument *body);

G_END_DECLS
