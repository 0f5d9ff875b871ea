/* anot-backend-anthropic.c: the Anthropic messages protocol
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <anot/anot.h>

#include <string.h>

#include "anot-backend-anthropic-batch.h"

/* Anthropic's POST /v1/messages.  Only the wire format is here: queueing,
 * timeouts, retries and errors are AnotHttpBackend's. */

#define ANTHROPIC_VERSION "2023-06-01"
/* The API requires max_tokens; this is sent when the request sets none. */
#define DEFAULT_MAX_TOKENS 4096

#define ANOT_TYPE_BACKEND_ANTHROPIC (anot_backend_anthropic_get_type ())
G_DECLARE_FINAL_TYPE (AnotBackendAnthropic, anot_backend_anthropic, ANOT, BACKEND_ANTHROPIC,
                      AnotHttpBackend)

struct _AnotBackendAnthropic
{
  AnotHttpBackend parent_instance;
};

G_DEFINE_DYNAMIC_TYPE_EXTENDED (AnotBackendAnthropic, anot_backend_anthropic,
                                ANOT_TYPE_HTTP_BACKEND, G_TYPE_FLAG_FINAL, {})

static char **
anot_backend_anthropic_build_headers (AnotHttpBackend *backend,
                                      const char      *api_key)
{
  char **headers = g_new0 (char *, 5);
  guint n = 0;

  headers[n++] = g_strdup ("anthropic-version");
  headers[n++] = g_strdup (ANTHROPIC_VERSION);
  if (api_key != NULL)
    {
      headers[n++] = g_strdup ("x-api-key");
      headers[n++] = g_strdup (api_key);
    }
  return headers;
}

/* The Messages API has no JSON mode: the system prompt asks for it. */
static char *
system_prompt (AnotChatRequest *request)
{
  g_autofree char *system = anot_chat_request_dup_system_prompt (request);
  g_autofree char *instruction = NULL;

  switch (anot_chat_request_get_response_format (request))
    {
    case ANOT_RESPONSE_FORMAT_JSON_OBJECT:
      instruction = g_strdup ("Answer with a single JSON object and nothing else.");
      break;
    case ANOT_RESPONSE_FORMAT_JSON_SCHEMA:
      {
        JsonNode *schema = anot_chat_request_get_json_schema (request);
        g_autofree char *text = schema ? json_to_string (schema, FALSE) : NULL;

        instruction = g_strdup_printf ("Answer with a single JSON object that follows this "
                                       "JSON schema, and nothing else: %s",
                                       text ? text : "{}");
      }
      break;
    case ANOT_RESPONSE_FORMAT_TEXT:
    default:
      break;
    }

  if (instruction == NULL)
    return g_steal_pointer (&system);
  if (system == NULL)
    return g_steal_pointer (&instruction);
  return g_strconcat (system, "\n\n", instruction, NULL);
}

static gboolean
anot_backend_anthropic_write_body (AnotHttpBackend  *backend,
                                   AnotChatRequest  *request,
                                   const char       *model,
                                   AnotJsonWriter   *writer,
                                   GError          **error)
{
  g_autofree char *system = system_prompt (request);
  const char * const *stop = anot_chat_request_get_stop (request);
  guint n_messages = anot_chat_request_get_n_messages (request);
  guint max_tokens = anot_chat_request_get_max_tokens (request);
  guint n_turns = 0;

  anot_json_writer_begin_object (writer);
  anot_json_writer_set_member_name (writer, "model");
  anot_json_writer_add_string_value (writer, model);
  anot_json_writer_set_member_name (writer, "max_tokens");
  anot_json_writer_add_int_value (writer, max_tokens > 0 ? max_tokens : DEFAULT_MAX_TOKENS);
  if (system != NULL)
    {
      anot_json_writer_set_member_name (writer, "system");
      anot_json_writer_add_string_value (writer, system);
    }
  anot_json_writer_set_member_name (writer, "messages");
  anot_json_writer_begin_array (writer);
  for (guint i = 0; i < n_messages; i++)
    {
      AnotChatRole role = anot_chat_request_get_message_role (request, i);

      /* System messages went to the top-level `system`. */
      if (role == ANOT_CHAT_ROLE_SYSTEM)
        continue;
      anot_json_writer_begin_object (writer);
      anot_json_writer_set_member_name (writer, "role");
      anot_json_writer_add_string_value (writer, role == ANOT_CHAT_ROLE_ASSISTANT ? "assistant" : "user");
      anot_json_writer_set_member_name (writer, "content");
      anot_json_writer_add_string_value (writer, anot_chat_request_get_message_content (request, i));
      anot_json_writer_end_object (writer);
      n_turns++;
    }
  anot_json_writer_end_array (writer);
  if (n_turns == 0)
    {
      g_set_error (error, ANOT_ERROR, ANOT_ERROR_INVALID_ARGUMENT,
                   "A chat request needs at least one user message");
      return FALSE;
    }

  if (anot_chat_request_get_temperature (request) >= 0)
    {
      /* Anthropic's range is [0, 1]. */
      anot_json_writer_set_member_name (writer, "temperature");
      anot_json_writer_add_double_value (writer, MIN (1.0, anot_chat_request_get_temperature (request)));
    }
  if (anot_chat_request_get_top_p (request) >= 0)
    {
      anot_json_writer_set_member_name (writer, "top_p");
      anot_json_writer_add_double_value (writer, anot_chat_request_get_top_p (request));
    }
  if (stop != NULL)
    {
      anot_json_writer_set_member_name (writer, "stop_sequences");
      anot_json_writer_begin_array (writer);
      for (guint i = 0; stop[i] != NULL; i++)
        anot_json_writer_add_string_value (writer, stop[i]);
      anot_json_writer_end_array (writer);
    }
  /* The Messages API takes no seed. */
  anot_json_writer_end_object (writer);
  return TRUE;
}

static AnotCompletion *
anot_backend_anthropic_read_body (AnotHttpBackend   *backend,
                                  AnotJsonDocument  *body,
                                  GError           **error)
{
  int usage = anot_json_document_get_member (body, 0, "usage");
  g_autoptr(GString) text = g_string_new (NULL);
  int content = anot_json_document_get_member (body, 0, "content");
  g_autofree char *stop_reason = NULL;
  g_autofree char *model = NULL;
  AnotCompletion *completion;
  guint n_blocks;

  if (anot_json_document_get_kind (body, content) != ANOT_JSON_KIND_ARRAY)
    {
      g_set_error (error, ANOT_ERROR, ANOT_ERROR_LLM_PROTOCOL,
                   "The answer is not an Anthropic message (no content array)");
      return NULL;
    }
  stop_reason = anot_json_document_dup_string (body, anot_json_document_get_member (body, 0, "stop_reason"));

  n_blocks = anot_json_document_get_size (body, content);
  for (guint i = 0; i < n_blocks; i++)
    {
      int block = anot_json_document_get_element (body, content, i);

      if (anot_json_document_string_equal (body, anot_json_document_get_member (body, block, "type"), "text"))
        {
          g_autofree char *part = anot_json_document_dup_string (body,
                                                                 anot_json_document_get_member (body, block, "text"));

          if (part != NULL)
            g_string_append (text, part);
        }
    }

  if (g_strcmp0 (stop_reason, "refusal") == 0)
    {
      g_set_error (error, ANOT_ERROR, ANOT_ERROR_LLM_REFUSED,
                   "The model refused to answer%s%s", text->len ? ": " : "", text->str);
      return NULL;
    }
  if (text->len == 0)
    {
      if (g_strcmp0 (stop_reason, "max_tokens") == 0)
        g_set_error (error, ANOT_ERROR, ANOT_ERROR_LLM_EMPTY,
                     "The model returned an empty completion: it ran out of tokens "
                     "(stop_reason “max_tokens”); raise max_tokens");
      else
        g_set_error (error, ANOT_ERROR, ANOT_ERROR_LLM_EMPTY,
                     "The model returned an empty completion (stop_reason “%s”)",
                     stop_reason ? stop_reason : "none");
      return NULL;
    }

  model = anot_json_document_dup_string (body, anot_json_document_get_member (body, 0, "model"));
  completion = anot_completion_new (model, text->str);
  /* Cached prompt tokens are billed too, at their own rates; counted as
   * prompt tokens here. */
  anot_completion_set_prompt_tokens (completion,
                                     anot_json_document_get_uint (body, anot_json_document_get_member (body, usage, "input_tokens"), 0) +
                                     anot_json_document_get_uint (body, anot_json_document_get_member (body, usage, "cache_creation_input_tokens"), 0) +
                                     anot_json_document_get_uint (body, anot_json_document_get_member (body, usage, "cache_read_input_tokens"), 0));
  anot_completion_set_completion_tokens (completion, anot_json_document_get_uint (body, anot_json_document_get_member (body, usage, "output_tokens"), 0));
  anot_completion_set_finish_reason (completion, stop_reason);
  return completion;
}

static void
anot_backend_anthropic_class_init (AnotBackendAnthropicClass *klass)
{
  AnotHttpBackendClass *http_class = ANOT_HTTP_BACKEND_CLASS (klass);

  http_class->name = "anthropic";
  http_class->default_base_url = "https://api.anthropic.com";
  http_class->endpoint_path = "/v1/messages";
  http_class->default_model = "claude-sonnet-4-20250514";
  http_class->api_key_variable = "ANTHROPIC_API_KEY";
  http_class->build_headers = anot_backend_anthropic_build_headers;
  http_class->write_body = anot_backend_anthropic_write_body;
  http_class->read_body = anot_backend_anthropic_read_body;
  http_class->batch_submit_async = anot_backend_anthropic_batch_submit_async;
  http_class->batch_submit_finish = anot_backend_anthropic_batch_submit_finish;
  http_class->batch_poll_async = anot_backend_anthropic_batch_poll_async;
  /* https://docs.anthropic.com/en/docs/build-with-claude/batch-processing:
   * up to 100,000 requests and 256 MB a batch.  A request is
   * {"custom_id":"anot-<40>","params":BODY}, and a comma. */
  http_class->batch_max_bytes = 256 * 1000 * 1000;
  http_class->batch_max_lines = 100000;
  http_class->batch_line_overhead = sizeof "{\"custom_id\":\"anot-0123456789012345678901234567890123456789\","
                                    "\"params\":}," - 1;
  http_class->batch_poll_finish = anot_backend_anthropic_batch_poll_finish;
  http_class->batch_find_async = anot_backend_anthropic_batch_find_async;
  http_class->batch_find_finish = anot_backend_anthropic_batch_find_finish;
}

static void
anot_backend_anthropic_class_finalize (AnotBackendAnthropicClass *klass)
{
}

static void
anot_backend_anthropic_init (AnotBackendAnthropic *self)
{
}

G_MODULE_EXPORT void
g_io_module_load (GIOModule *module)
{
  anot_backend_anthropic_register_type (G_TYPE_MODULE (module));
  anot_plugin_implement (ANOT_BACKEND_EXTENSION_POINT_NAME,
                         ANOT_TYPE_BACKEND_ANTHROPIC, "anthropic",
                         "Anthropic messages API over HTTP; key from ANTHROPIC_API_KEY");
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
