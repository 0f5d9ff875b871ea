/* anot-backend-anthropic.c: the Anthropic messages protocol
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <anot/anot.h>

#include <string.h>

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

static JsonNode *
anot_backend_anthropic_build_body (AnotHttpBackend  *backend,
                                   AnotChatRequest  *request,
                                   const char       *model,
                                   GError          **error)
{
  g_autoptr(JsonBuilder) builder = json_builder_new ();
  g_autofree char *system = system_prompt (request);
  const char * const *stop = anot_chat_request_get_stop (request);
  guint n_messages = anot_chat_request_get_n_messages (request);
  guint max_tokens = anot_chat_request_get_max_tokens (request);
  guint n_turns = 0;

  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "model");
  json_builder_add_string_value (builder, model);
  json_builder_set_member_name (builder, "max_tokens");
  json_builder_add_int_value (builder, max_tokens > 0 ? max_tokens : DEFAULT_MAX_TOKENS);
  if (system != NULL)
    {
      json_builder_set_member_name (builder, "system");
      json_builder_add_string_value (builder, system);
    }
  json_builder_set_member_name (builder, "messages");
  json_builder_begin_array (builder);
  for (guint i = 0; i < n_messages; i++)
    {
      AnotChatRole role = anot_chat_request_get_message_role (request, i);

      /* System messages went to the top-level `system`. */
      if (role == ANOT_CHAT_ROLE_SYSTEM)
        continue;
      json_builder_begin_object (builder);
      json_builder_set_member_name (builder, "role");
      json_builder_add_string_value (builder, role == ANOT_CHAT_ROLE_ASSISTANT ? "assistant" : "user");
      json_builder_set_member_name (builder, "content");
      json_builder_add_string_value (builder, anot_chat_request_get_message_content (request, i));
      json_builder_end_object (builder);
      n_turns++;
    }
  json_builder_end_array (builder);
  if (n_turns == 0)
    {
      g_set_error (error, ANOT_ERROR, ANOT_ERROR_INVALID_ARGUMENT,
                   "A chat request needs at least one user message");
      return NULL;
    }

  if (anot_chat_request_get_temperature (request) >= 0)
    {
      /* Anthropic's range is [0, 1]. */
      json_builder_set_member_name (builder, "temperature");
      json_builder_add_double_value (builder, MIN (1.0, anot_chat_request_get_temperature (request)));
    }
  if (anot_chat_request_get_top_p (request) >= 0)
    {
      json_builder_set_member_name (builder, "top_p");
      json_builder_add_double_value (builder, anot_chat_request_get_top_p (request));
    }
  if (stop != NULL)
    {
      json_builder_set_member_name (builder, "stop_sequences");
      json_builder_begin_array (builder);
      for (guint i = 0; stop[i] != NULL; i++)
        json_builder_add_string_value (builder, stop[i]);
      json_builder_end_array (builder);
    }
  /* The Messages API takes no seed. */
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

static AnotCompletion *
anot_backend_anthropic_parse_body (AnotHttpBackend  *backend,
                                   JsonNode         *body,
                                   GError          **error)
{
  g_autoptr(GString) text = g_string_new (NULL);
  JsonObject *root, *usage = NULL;
  JsonNode *content, *node;
  JsonArray *blocks;
  const char *stop_reason;
  AnotCompletion *completion;

  if (!JSON_NODE_HOLDS_OBJECT (body))
    goto protocol;
  root = json_node_get_object (body);
  content = json_object_get_member (root, "content");
  if (content == NULL || !JSON_NODE_HOLDS_ARRAY (content))
    goto protocol;
  node = json_object_get_member (root, "usage");
  if (node != NULL && JSON_NODE_HOLDS_OBJECT (node))
    usage = json_node_get_object (node);
  stop_reason = json_object_get_string_member_with_default (root, "stop_reason", NULL);

  blocks = json_node_get_array (content);
  for (guint i = 0; i < json_array_get_length (blocks); i++)
    {
      JsonNode *block = json_array_get_element (blocks, i);
      JsonObject *object;

      if (!JSON_NODE_HOLDS_OBJECT (block))
        continue;
      object = json_node_get_object (block);
      if (g_strcmp0 (json_object_get_string_member_with_default (object, "type", NULL), "text") == 0)
        g_string_append (text, json_object_get_string_member_with_default (object, "text", ""));
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

  completion = anot_completion_new (json_object_get_string_member_with_default (root, "model", NULL),
                                    text->str);
  /* Cached prompt tokens are billed too, at their own rates; counted as
   * prompt tokens here. */
  anot_completion_set_prompt_tokens (completion,
                                     member_uint (usage, "input_tokens") +
                                     member_uint (usage, "cache_creation_input_tokens") +
                                     member_uint (usage, "cache_read_input_tokens"));
  anot_completion_set_completion_tokens (completion, member_uint (usage, "output_tokens"));
  anot_completion_set_finish_reason (completion, stop_reason);
  return completion;

protocol:
  g_set_error (error, ANOT_ERROR, ANOT_ERROR_LLM_PROTOCOL,
               "The answer is not an Anthropic message (no content array)");
  return NULL;
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
  http_class->build_body = anot_backend_anthropic_build_body;
  http_class->parse_body = anot_backend_anthropic_parse_body;
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
