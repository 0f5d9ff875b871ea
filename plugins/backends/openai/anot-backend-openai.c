/* anot-backend-openai.c: the OpenAI chat-completions protocol
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <anot/anot.h>

#include <string.h>

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

static JsonNode *
anot_backend_openai_build_body (AnotHttpBackend  *backend,
                                AnotChatRequest  *request,
                                const char       *model,
                                GError          **error)
{
  g_autoptr(JsonBuilder) builder = json_builder_new ();
  gboolean reasoning = is_reasoning_model (model);
  const char * const *stop = anot_chat_request_get_stop (request);
  guint n_messages = anot_chat_request_get_n_messages (request);

  if (n_messages == 0)
    {
      g_set_error (error, ANOT_ERROR, ANOT_ERROR_INVALID_ARGUMENT,
                   "A chat request needs at least one message");
      return NULL;
    }

  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "model");
  json_builder_add_string_value (builder, model);
  json_builder_set_member_name (builder, "messages");
  json_builder_begin_array (builder);
  for (guint i = 0; i < n_messages; i++)
    {
      json_builder_begin_object (builder);
      json_builder_set_member_name (builder, "role");
      json_builder_add_string_value (builder,
                                     role_name (anot_chat_request_get_message_role (request, i)));
      json_builder_set_member_name (builder, "content");
      json_builder_add_string_value (builder, anot_chat_request_get_message_content (request, i));
      json_builder_end_object (builder);
    }
  json_builder_end_array (builder);

  if (!reasoning && anot_chat_request_get_temperature (request) >= 0)
    {
      json_builder_set_member_name (builder, "temperature");
      json_builder_add_double_value (builder, anot_chat_request_get_temperature (request));
    }
  if (!reasoning && anot_chat_request_get_top_p (request) >= 0)
    {
      json_builder_set_member_name (builder, "top_p");
      json_builder_add_double_value (builder, anot_chat_request_get_top_p (request));
    }
  if (anot_chat_request_get_max_tokens (request) > 0)
    {
      json_builder_set_member_name (builder, reasoning ? "max_completion_tokens" : "max_tokens");
      json_builder_add_int_value (builder, anot_chat_request_get_max_tokens (request));
    }
  if (anot_chat_request_get_seed (request) != ANOT_CHAT_REQUEST_SEED_UNSET)
    {
      json_builder_set_member_name (builder, "seed");
      json_builder_add_int_value (builder, anot_chat_request_get_seed (request));
    }
  if (stop != NULL)
    {
      json_builder_set_member_name (builder, "stop");
      json_builder_begin_array (builder);
      for (guint i = 0; stop[i] != NULL; i++)
        json_builder_add_string_value (builder, stop[i]);
      json_builder_end_array (builder);
    }

  switch (anot_chat_request_get_response_format (request))
    {
    case ANOT_RESPONSE_FORMAT_JSON_OBJECT:
      json_builder_set_member_name (builder, "response_format");
      json_builder_begin_object (builder);
      json_builder_set_member_name (builder, "type");
      json_builder_add_string_value (builder, "json_object");
      json_builder_end_object (builder);
      break;
    case ANOT_RESPONSE_FORMAT_JSON_SCHEMA:
      {
        JsonNode *schema = anot_chat_request_get_json_schema (request);
        const char *name = anot_chat_request_get_json_schema_name (request);

        if (schema == NULL)
          {
            g_set_error (error, ANOT_ERROR, ANOT_ERROR_INVALID_ARGUMENT,
                         "The json_schema response format needs a schema");
            return NULL;
          }
        json_builder_set_member_name (builder, "response_format");
        json_builder_begin_object (builder);
        json_builder_set_member_name (builder, "type");
        json_builder_add_string_value (builder, "json_schema");
        json_builder_set_member_name (builder, "json_schema");
        json_builder_begin_object (builder);
        json_builder_set_member_name (builder, "name");
        json_builder_add_string_value (builder, name ? name : "answer");
        json_builder_set_member_name (builder, "schema");
        json_builder_add_value (builder, json_node_copy (schema));
        json_builder_set_member_name (builder, "strict");
        json_builder_add_boolean_value (builder, TRUE);
        json_builder_end_object (builder);
        json_builder_end_object (builder);
      }
      break;
    case ANOT_RESPONSE_FORMAT_TEXT:
    default:
      break;
    }
  json_builder_end_object (builder);

  return json_builder_get_root (builder);
}

static guint64
member_uint (JsonObject *object,
             const char *name)
{
  JsonNode *node = object ? json_object_get_member (object, name) : NULL;

  if (node == NULL || !JSON_NODE_HOLDS_VALUE (node))
    return 0;
  if (json_node_get_value_type (node) == G_TYPE_INT64)
    return (guint64) MAX (0, json_node_get_int (node));
  if (json_node_get_value_type (node) == G_TYPE_DOUBLE)
    return (guint64) MAX (0.0, json_node_get_double (node));
  return 0;
}

static const char *
member_string (JsonObject *object,
               const char *name)
{
  JsonNode *node = object ? json_object_get_member (object, name) : NULL;

  if (node == NULL || !JSON_NODE_HOLDS_VALUE (node) ||
      json_node_get_value_type (node) != G_TYPE_STRING)
    return NULL;
  return json_node_get_string (node);
}

static AnotCompletion *
anot_backend_openai_parse_body (AnotHttpBackend  *backend,
                                JsonNode         *body,
                                GError          **error)
{
  JsonObject *root, *choice, *message, *usage = NULL;
  JsonNode *choices, *node;
  const char *content, *refusal, *finish_reason;
  AnotCompletion *completion;

  if (!JSON_NODE_HOLDS_OBJECT (body))
    goto protocol;
  root = json_node_get_object (body);
  choices = json_object_get_member (root, "choices");
  if (choices == NULL || !JSON_NODE_HOLDS_ARRAY (choices) ||
      json_array_get_length (json_node_get_array (choices)) == 0)
    goto protocol;
  node = json_array_get_element (json_node_get_array (choices), 0);
  if (!JSON_NODE_HOLDS_OBJECT (node))
    goto protocol;
  choice = json_node_get_object (node);
  node = json_object_get_member (choice, "message");
  if (node == NULL || !JSON_NODE_HOLDS_OBJECT (node))
    goto protocol;
  message = json_node_get_object (node);
  node = json_object_get_member (root, "usage");
  if (node != NULL && JSON_NODE_HOLDS_OBJECT (node))
    usage = json_node_get_object (node);

  content = member_string (message, "content");
  refusal = member_string (message, "refusal");
  finish_reason = member_string (choice, "finish_reason");

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
                     "raise max_tokens", member_uint (usage, "completion_tokens"));
      else
        g_set_error (error, ANOT_ERROR, ANOT_ERROR_LLM_EMPTY,
                     "The model returned an empty completion (finish_reason “%s”)",
                     finish_reason ? finish_reason : "none");
      return NULL;
    }

  completion = anot_completion_new (member_string (root, "model"), content);
  anot_completion_set_prompt_tokens (completion, member_uint (usage, "prompt_tokens"));
  anot_completion_set_completion_tokens (completion, member_uint (usage, "completion_tokens"));
  anot_completion_set_finish_reason (completion, finish_reason);
  return completion;

protocol:
  g_set_error (error, ANOT_ERROR, ANOT_ERROR_LLM_PROTOCOL,
               "The answer is not an OpenAI chat completion (no choices[0].message)");
  return NULL;
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
  http_class->build_body = anot_backend_openai_build_body;
  http_class->parse_body = anot_backend_openai_parse_body;
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
