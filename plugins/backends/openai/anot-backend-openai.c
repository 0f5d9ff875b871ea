/* anot-backend-openai.c: the OpenAI chat-completions protocol
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <anot/anot.h>

#include <string.h>

#include "anot-backend-openai-batch.h"

/* OpenAI's POST /chat/completions, which vLLM, Ollama, llama.cpp's server
 * and LM Studio also speak.  Only the wire format is here: queueing,
 * timeouts, retries and errors are AnotHttpBackend's. */

#define ANOT_TYPE_BACKEND_OPENAI (anot_backend_openai_get_type ())
G_DECLARE_FINAL_TYPE (AnotBackendOpenai, anot_backend_openai, ANOT, BACKEND_OPENAI, AnotHttpBackend)

struct _AnotBackendOpenai
{
  AnotHttpBackend parent_instance;
};

G_DEFINE_DYNAMIC_TYPE_EXTENDED (AnotBackendOpenai, anot_backend_openai, ANOT_TYPE_HTTP_BACKEND,
                                G_TYPE_FLAG_FINAL, {})

/* Reasoning models reject `temperature` and `top_p` and count their limit
 * as `max_completion_tokens` (the original framework's rule: names with
 * gpt-5, o1 or o3; o4 added). */
static gboolean
is_reasoning_model (const char *model)
{
  const char *name = strrchr (model, '/');

  name = name ? name + 1 : model;
  return strstr (name, "gpt-5") != NULL ||
         g_str_has_prefix (name, "o1") || g_str_has_prefix (name, "o3") ||
         g_str_has_prefix (name, "o4");
}

static char **
anot_backend_openai_build_headers (AnotHttpBackend *backend,
                                   const char      *api_key)
{
  char **headers = g_new0 (char *, 3);

  if (api_key != NULL)
    {
      headers[0] = g_strdup ("Authorization");
      headers[1] = g_strconcat ("Bearer ", api_key, NULL);
    }
  return headers;
}

static const char *
role_name (AnotChatRole role)
{
  switch (role)
    {
    case ANOT_CHAT_ROLE_SYSTEM:
      return "system";
    case ANOT_CHAT_ROLE_ASSISTANT:
      return "assistant";
    case ANOT_CHAT_ROLE_USER:
    default:
      return "user";
    }
}

static gboolean
anot_backend_openai_write_body (AnotHttpBackend  *backend,
                                AnotChatRequest  *request,
                                const char       *model,
                                AnotJsonWriter   *writer,
                                GError          **error)
{
  gboolean reasoning = is_reasoning_model (model);
  const char * const *stop = anot_chat_request_get_stop (request);
  guint n_messages = anot_chat_request_get_n_messages (request);

  if (n_messages == 0)
    {
      g_set_error (error, ANOT_ERROR, ANOT_ERROR_INVALID_ARGUMENT,
                   "A chat request needs at least one message");
      return FALSE;
    }

  anot_json_writer_begin_object (writer);
  anot_json_writer_set_member_name (writer, "model");
  anot_json_writer_add_string_value (writer, model);
  anot_json_writer_set_member_name (writer, "messages");
  anot_json_writer_begin_array (writer);
  for (guint i = 0; i < n_messages; i++)
    {
      anot_json_writer_begin_object (writer);
      anot_json_writer_set_member_name (writer, "role");
      anot_json_writer_add_string_value (writer,
                                         role_name (anot_chat_request_get_message_role (request, i)));
      anot_json_writer_set_member_name (writer, "content");
      anot_json_writer_add_string_value (writer, anot_chat_request_get_message_content (request, i));
      anot_json_writer_end_object (writer);
    }
  anot_json_writer_end_array (writer);

  if (!reasoning && anot_chat_request_get_temperature (request) >= 0)
    {
      anot_json_writer_set_member_name (writer, "temperature");
      anot_json_writer_add_double_value (writer, anot_chat_request_get_temperature (request));
    }
  if (!reasoning && anot_chat_request_get_top_p (request) >= 0)
    {
      anot_json_writer_set_member_name (writer, "top_p");
      anot_json_writer_add_double_value (writer, anot_chat_request_get_top_p (request));
    }
  if (anot_chat_request_get_max_tokens (request) > 0)
    {
      anot_json_writer_set_member_name (writer, reasoning ? "max_completion_tokens" : "max_tokens");
      anot_json_writer_add_int_value (writer, anot_chat_request_get_max_tokens (request));
    }
  if (anot_chat_request_get_seed (request) != ANOT_CHAT_REQUEST_SEED_UNSET)
    {
      anot_json_writer_set_member_name (writer, "seed");
      anot_json_writer_add_int_value (writer, anot_chat_request_get_seed (request));
    }
  if (stop != NULL)
    {
      anot_json_writer_set_member_name (writer, "stop");
      anot_json_writer_begin_array (writer);
      for (guint i = 0; stop[i] != NULL; i++)
        anot_json_writer_add_string_value (writer, stop[i]);
      anot_json_writer_end_array (writer);
    }

  switch (anot_chat_request_get_response_format (request))
    {
    case ANOT_RESPONSE_FORMAT_JSON_OBJECT:
      anot_json_writer_set_member_name (writer, "response_format");
      anot_json_writer_begin_object (writer);
      anot_json_writer_set_member_name (writer, "type");
      anot_json_writer_add_string_value (writer, "json_object");
      anot_json_writer_end_object (writer);
      break;
    case ANOT_RESPONSE_FORMAT_JSON_SCHEMA:
      {
        JsonNode *schema = anot_chat_request_get_json_schema (request);
        const char *name = anot_chat_request_get_json_schema_name (request);

        if (schema == NULL)
          {
            g_set_error (error, ANOT_ERROR, ANOT_ERROR_INVALID_ARGUMENT,
                         "The json_schema response format needs a schema");
            return FALSE;
          }
        anot_json_writer_set_member_name (writer, "response_format");
        anot_json_writer_begin_object (writer);
        anot_json_writer_set_member_name (writer, "type");
        anot_json_writer_add_string_value (writer, "json_schema");
        anot_json_writer_set_member_name (writer, "json_schema");
        anot_json_writer_begin_object (writer);
        anot_json_writer_set_member_name (writer, "name");
        anot_json_writer_add_string_value (writer, name ? name : "answer");
        anot_json_writer_set_member_name (writer, "schema");
        anot_json_writer_add_value (writer, schema);
        anot_json_writer_set_member_name (writer, "strict");
        anot_json_writer_add_boolean_value (writer, TRUE);
        anot_json_writer_end_object (writer);
        anot_json_writer_end_object (writer);
      }
      break;
    case ANOT_RESPONSE_FORMAT_TEXT:
    default:
      break;
    }
  anot_json_writer_end_object (writer);
  return TRUE;
}

static AnotCompletion *
anot_backend_openai_read_body (AnotHttpBackend   *backend,
                               AnotJsonDocument  *body,
                               GError           **error)
{
  int usage = anot_json_document_get_member (body, 0, "usage");
  int choice = anot_json_document_get_path (body, 0, "choices[0]");
  int message = anot_json_document_get_member (body, choice, "message");
  g_autofree char *content = NULL;
  g_autofree char *refusal = NULL;
  g_autofree char *finish_reason = NULL;
  g_autofree char *model = NULL;
  AnotCompletion *completion;

  if (anot_json_document_get_kind (body, choice) != ANOT_JSON_KIND_OBJECT ||
      anot_json_document_get_kind (body, message) != ANOT_JSON_KIND_OBJECT)
    {
      g_set_error (error, ANOT_ERROR, ANOT_ERROR_LLM_PROTOCOL,
                   "The answer is not an OpenAI chat completion (no choices[0].message)");
      return NULL;
    }

  content = anot_json_document_dup_string (body, anot_json_document_get_member (body, message, "content"));
  refusal = anot_json_document_dup_string (body, anot_json_document_get_member (body, message, "refusal"));
  finish_reason = anot_json_document_dup_string (body, anot_json_document_get_member (body, choice, "finish_reason"));

  if (refusal != NULL && *refusal != '\0')
    {
      g_set_error (error, ANOT_ERROR, ANOT_ERROR_LLM_REFUSED,
                   "The model refused to answer: %s", refusal);
      return NULL;
    }
  if (content == NULL || *content == '\0')
    {
      if (g_strcmp0 (finish_reason, "content_filter") == 0)
        g_set_error (error, ANOT_ERROR, ANOT_ERROR_LLM_REFUSED,
                     "The answer was withheld by the provider's content filter");
      else if (g_strcmp0 (finish_reason, "length") == 0)
        g_set_error (error, ANOT_ERROR, ANOT_ERROR_LLM_EMPTY,
                     "The model returned an empty completion: it ran out of tokens "
                     "(finish_reason “length”, %" G_GUINT64_FORMAT " completion tokens); "
                     "raise max_tokens", anot_json_document_get_uint (body, anot_json_document_get_member (body, usage, "completion_tokens"), 0));
      else
        g_set_error (error, ANOT_ERROR, ANOT_ERROR_LLM_EMPTY,
                     "The model returned an empty completion (finish_reason “%s”)",
                     finish_reason ? finish_reason : "none");
      return NULL;
    }

  model = anot_json_document_dup_string (body, anot_json_document_get_member (body, 0, "model"));
  completion = anot_completion_new (model, content);
  anot_completion_set_prompt_tokens (completion, anot_json_document_get_uint (body, anot_json_document_get_member (body, usage, "prompt_tokens"), 0));
  anot_completion_set_completion_tokens (completion, anot_json_document_get_uint (body, anot_json_document_get_member (body, usage, "completion_tokens"), 0));
  anot_completion_set_finish_reason (completion, finish_reason);
  return completion;
}

static void
anot_backend_openai_class_init (AnotBackendOpenaiClass *klass)
{
  AnotHttpBackendClass *http_class = ANOT_HTTP_BACKEND_CLASS (klass);

  http_class->name = "openai";
  http_class->default_base_url = "https://api.openai.com/v1";
  http_class->endpoint_path = "/chat/completions";
  http_class->default_model = "gpt-5-nano";
  http_class->api_key_variable = "OPENAI_API_KEY";
  http_class->build_headers = anot_backend_openai_build_headers;
  http_class->write_body = anot_backend_openai_write_body;
  http_class->read_body = anot_backend_openai_read_body;
  http_class->batch_submit_async = anot_backend_openai_batch_submit_async;
  http_class->batch_submit_finish = anot_backend_openai_batch_submit_finish;
  http_class->batch_poll_async = anot_backend_openai_batch_poll_async;
  /* https://platform.openai.com/docs/guides/batch: an input file of up
   * to 50,000 requests and 200 MB.  A line is
   * {"custom_id":"anot-<40>","method":"POST","url":"/v1/chat/completions","body":BODY}\n */
  http_class->batch_max_bytes = 200 * 1000 * 1000;
  http_class->batch_max_lines = 50000;
  http_class->batch_line_overhead = sizeof "{\"custom_id\":\"anot-0123456789012345678901234567890123456789\","
                                    "\"method\":\"POST\",\"url\":\"/v1/chat/completions\",\"body\":}\n" - 1;
  http_class->batch_poll_finish = anot_backend_openai_batch_poll_finish;
  http_class->batch_find_async = anot_backend_openai_batch_find_async;
  http_class->batch_find_finish = anot_backend_openai_batch_find_finish;
}

static void
anot_backend_openai_class_finalize (AnotBackendOpenaiClass *klass)
{
}

static void
anot_backend_openai_init (AnotBackendOpenai *self)
{
}

G_MODULE_EXPORT void
g_io_module_load (GIOModule *module)
{
  anot_backend_openai_register_type (G_TYPE_MODULE (module));
  anot_plugin_implement (ANOT_BACKEND_EXTENSION_POINT_NAME,
                         ANOT_TYPE_BACKEND_OPENAI, "openai",
                         "OpenAI chat completions over HTTP (also vLLM, Ollama, llama.cpp, "
                         "LM Studio with --base-url); key from OPENAI_API_KEY");
}

G_MODULE_EXPORT void
g_io_module_unload (GIOModule *module)
{
}

G_MODULE_EXPORT char **
g_io_module_query (void)
{
  return g_strsplit (ANOT_BACKEND_EXTENSION_POINT_NAME, "!", -1);
}
