/* anot-chat-request.c: one LLM call's messages and generation options
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "anot-chat-request.h"

#include "anot-enum-types.h"
#include "anot-text-private.h"

#include <math.h>
#include <string.h>

#include <nettle/sha2.h>

/**
 * AnotChatRequest:
 *
 * What one LLM call asks: the chat messages (system, user and assistant
 * turns) and the generation options, as backends send them to the server.
 *
 * Options left unset are not sent, so the server's (or the configured)
 * defaults apply: [property@Anot.ChatRequest:temperature] and
 * [property@Anot.ChatRequest:top-p] below 0,
 * [property@Anot.ChatRequest:max-tokens] 0,
 * [property@Anot.ChatRequest:seed] %ANOT_CHAT_REQUEST_SEED_UNSET,
 * [property@Anot.ChatRequest:model] %NULL.  The
 * [class@Anot.BackendRouter] fills what is unset from the configuration of
 * the role.
 *
 * [property@Anot.ChatRequest:role] and
 * [property@Anot.ChatRequest:request-id] are bookkeeping, never sent: they
 * attribute usage, order the fair queue of a backend and name the call in
 * errors and in `debug.log`.
 *
 * A request must not be changed while a backend works on it.
 */

/* A message's text is shared by the copies of a request (the router's,
 * the backend's queue, the cache's) and, when it was given away with
 * anot_chat_request_add_message_take(), is the very buffer its writer
 * wrote: a prompt of megabytes is never copied between the method and the
 * body.  Its bytes are followed by a NUL the size does not count. */
typedef struct
{
  AnotChatRole role;
  GBytes *content;
  gssize n_chars;            /* counted on first request; -1 before */
} Message;

struct _AnotChatRequest
{
  GObject parent_instance;

  GArray *messages;              /* Message */
  char *model;
  double temperature;
  guint max_tokens;
  double top_p;
  gint64 seed;
  char **stop;
  AnotResponseFormat response_format;
  JsonNode *json_schema;
  char *json_schema_name;
  char *role;
  char *request_id;
};

G_DEFINE_FINAL_TYPE (AnotChatRequest, anot_chat_request, G_TYPE_OBJECT)

enum {
  PROP_0,
  PROP_MODEL,
  PROP_TEMPERATURE,
  PROP_MAX_TOKENS,
  PROP_TOP_P,
  PROP_SEED,
  PROP_STOP,
  PROP_RESPONSE_FORMAT,
  PROP_JSON_SCHEMA,
  PROP_JSON_SCHEMA_NAME,
  PROP_ROLE,
  PROP_REQUEST_ID,
  PROP_N_MESSAGES,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

/* g_set_str() is GLib 2.76. */
static gboolean
replace_string (char       **slot,
                const char  *value)
{
  if (g_strcmp0 (*slot, value) == 0)
    return FALSE;
  g_free (*slot);
  *slot = g_strdup (value);
  return TRUE;
}

static void
message_clear (gpointer data)
{
  Message *message = data;

  g_bytes_unref (message->content);
}

static void
anot_chat_request_finalize (GObject *object)
{
  AnotChatRequest *self = ANOT_CHAT_REQUEST (object);

  g_array_unref (self->messages);
  g_free (self->model);
  g_strfreev (self->stop);
  g_clear_pointer (&self->json_schema, json_node_unref);
  g_free (self->json_schema_name);
  g_free (self->role);
  g_free (self->request_id);

  G_OBJECT_CLASS (anot_chat_request_parent_class)->finalize (object);
}

static void
anot_chat_request_get_property (GObject    *object,
                                guint       prop_id,
                                GValue     *value,
                                GParamSpec *pspec)
{
  AnotChatRequest *self = ANOT_CHAT_REQUEST (object);

  switch (prop_id)
    {
    case PROP_MODEL:
      g_value_set_string (value, self->model);
      break;
    case PROP_TEMPERATURE:
      g_value_set_double (value, self->temperature);
      break;
    case PROP_MAX_TOKENS:
      g_value_set_uint (value, self->max_tokens);
      break;
    case PROP_TOP_P:
      g_value_set_double (value, self->top_p);
      break;
    case PROP_SEED:
      g_value_set_int64 (value, self->seed);
      break;
    case PROP_STOP:
      g_value_set_boxed (value, self->stop);
      break;
    case PROP_RESPONSE_FORMAT:
      g_value_set_enum (value, self->response_format);
      break;
    case PROP_JSON_SCHEMA:
      g_value_set_boxed (value, self->json_schema);
      break;
    case PROP_JSON_SCHEMA_NAME:
      g_value_set_string (value, self->json_schema_name);
      break;
    case PROP_ROLE:
      g_value_set_string (value, self->role);
      break;
    case PROP_REQUEST_ID:
      g_value_set_string (value, self->request_id);
      break;
    case PROP_N_MESSAGES:
      g_value_set_uint (value, self->messages->len);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
anot_chat_request_set_property (GObject      *object,
                                guint         prop_id,
                                const GValue *value,
                                GParamSpec   *pspec)
{
  AnotChatRequest *self = ANOT_CHAT_REQUEST (object);

  switch (prop_id)
    {
    case PROP_MODEL:
      anot_chat_request_set_model (self, g_value_get_string (value));
      break;
    case PROP_TEMPERATURE:
      anot_chat_request_set_temperature (self, g_value_get_double (value));
      break;
    case PROP_MAX_TOKENS:
      anot_chat_request_set_max_tokens (self, g_value_get_uint (value));
      break;
    case PROP_TOP_P:
      anot_chat_request_set_top_p (self, g_value_get_double (value));
      break;
    case PROP_SEED:
      anot_chat_request_set_seed (self, g_value_get_int64 (value));
      break;
    case PROP_STOP:
      anot_chat_request_set_stop (self, g_value_get_boxed (value));
      break;
    case PROP_RESPONSE_FORMAT:
      anot_chat_request_set_response_format (self, g_value_get_enum (value));
      break;
    case PROP_JSON_SCHEMA:
      anot_chat_request_set_json_schema (self, self->json_schema_name, g_value_get_boxed (value));
      break;
    case PROP_JSON_SCHEMA_NAME:
      g_free (self->json_schema_name);
      self->json_schema_name = g_value_dup_string (value);
      break;
    case PROP_ROLE:
      anot_chat_request_set_role (self, g_value_get_string (value));
      break;
    case PROP_REQUEST_ID:
      anot_chat_request_set_request_id (self, g_value_get_string (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
anot_chat_request_class_init (AnotChatRequestClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = anot_chat_request_finalize;
  object_class->get_property = anot_chat_request_get_property;
  object_class->set_property = anot_chat_request_set_property;

  /**
   * AnotChatRequest:model:
   *
   * The model to ask, or %NULL for the one configured for the role.
   */
  properties[PROP_MODEL] =
    g_param_spec_string ("model", NULL, NULL, NULL,
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  /**
   * AnotChatRequest:temperature:
   *
   * Sampling temperature; negative means not set.  Backends do not send it
   * to reasoning models (OpenAI's o1, o3, gpt-5), which reject it.
   */
  properties[PROP_TEMPERATURE] =
    g_param_spec_double ("temperature", NULL, NULL, -1.0, 2.0, -1.0,
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  /**
   * AnotChatRequest:max-tokens:
   *
   * The most tokens the answer may have, 0 for not set.  Sent as
   * `max_completion_tokens` to OpenAI's reasoning models, as `max_tokens`
   * otherwise.
   */
  properties[PROP_MAX_TOKENS] =
    g_param_spec_uint ("max-tokens", NULL, NULL, 0, G_MAXUINT, 0,
                       G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  /**
   * AnotChatRequest:top-p:
   *
   * Nucleus sampling mass; negative means not set.
   */
  properties[PROP_TOP_P] =
    g_param_spec_double ("top-p", NULL, NULL, -1.0, 1.0, -1.0,
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  /**
   * AnotChatRequest:seed:
   *
   * The sampling seed sent to servers that take one, or
   * %ANOT_CHAT_REQUEST_SEED_UNSET.
   */
  properties[PROP_SEED] =
    g_param_spec_int64 ("seed", NULL, NULL, -1, G_MAXINT64, ANOT_CHAT_REQUEST_SEED_UNSET,
                        G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  /**
   * AnotChatRequest:stop:
   *
   * Sequences that end the answer, or %NULL.
   */
  properties[PROP_STOP] =
    g_param_spec_boxed ("stop", NULL, NULL, G_TYPE_STRV,
                        G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  /**
   * AnotChatRequest:response-format:
   *
   * The shape the answer must have.
   */
  properties[PROP_RESPONSE_FORMAT] =
    g_param_spec_enum ("response-format", NULL, NULL, ANOT_TYPE_RESPONSE_FORMAT,
                       ANOT_RESPONSE_FORMAT_TEXT,
                       G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  /**
   * AnotChatRequest:json-schema:
   *
   * The JSON schema of the answer for %ANOT_RESPONSE_FORMAT_JSON_SCHEMA.
   */
  properties[PROP_JSON_SCHEMA] =
    g_param_spec_boxed ("json-schema", NULL, NULL, JSON_TYPE_NODE,
                        G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  /**
   * AnotChatRequest:json-schema-name:
   *
   * The name of [property@Anot.ChatRequest:json-schema] (OpenAI requires
   * one; `answer` when not set).
   */
  properties[PROP_JSON_SCHEMA_NAME] =
    g_param_spec_string ("json-schema-name", NULL, NULL, NULL,
                         G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS);
  /**
   * AnotChatRequest:role:
   *
   * The role of the method that makes the call ("default", "planner",
   * ...); bookkeeping, not sent.
   */
  properties[PROP_ROLE] =
    g_param_spec_string ("role", NULL, NULL, NULL,
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  /**
   * AnotChatRequest:request-id:
   *
   * The benchmark request the call is made for; bookkeeping, not sent.
   * Backends queue calls fairly across request ids.
   */
  properties[PROP_REQUEST_ID] =
    g_param_spec_string ("request-id", NULL, NULL, NULL,
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  /**
   * AnotChatRequest:n-messages:
   *
   * The number of messages.
   */
  properties[PROP_N_MESSAGES] =
    g_param_spec_uint ("n-messages", NULL, NULL, 0, G_MAXUINT, 0,
                       G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);

  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
anot_chat_request_init (AnotChatRequest *self)
{
  self->messages = g_array_new (FALSE, TRUE, sizeof (Message));
  g_array_set_clear_func (self->messages, message_clear);
  self->temperature = -1.0;
  self->top_p = -1.0;
  self->seed = ANOT_CHAT_REQUEST_SEED_UNSET;
}

/**
 * anot_chat_request_new:
 * @system_prompt: (nullable): the system prompt, if any
 * @prompt: (nullable): the user message, if any
 *
 * Creates a request of a system message (when @system_prompt is given)
 * followed by a user message (when @prompt is given), with every option
 * unset.
 *
 * Returns: (transfer full): a new request
 */
AnotChatRequest *
anot_chat_request_new (const char *system_prompt,
                       const char *prompt)
{
  AnotChatRequest *self = g_object_new (ANOT_TYPE_CHAT_REQUEST, NULL);

  if (system_prompt != NULL)
    anot_chat_request_add_message (self, ANOT_CHAT_ROLE_SYSTEM, system_prompt);
  if (prompt != NULL)
    anot_chat_request_add_message (self, ANOT_CHAT_ROLE_USER, prompt);
  return self;
}

/**
 * anot_chat_request_copy:
 * @self: an #AnotChatRequest
 *
 * Returns: (transfer full): a deep copy of @self
 */
AnotChatRequest *
anot_chat_request_copy (AnotChatRequest *self)
{
  AnotChatRequest *copy;

  g_return_val_if_fail (ANOT_IS_CHAT_REQUEST (self), NULL);

  copy = g_object_new (ANOT_TYPE_CHAT_REQUEST, NULL);
  for (guint i = 0; i < self->messages->len; i++)
    {
      Message *message = &g_array_index (self->messages, Message, i);

      Message shared = { .role = message->role, .content = g_bytes_ref (message->content),
                         .n_chars = message->n_chars };

      g_array_append_val (copy->messages, shared);
    }
  copy->model = g_strdup (self->model);
  copy->temperature = self->temperature;
  copy->max_tokens = self->max_tokens;
  copy->top_p = self->top_p;
  copy->seed = self->seed;
  copy->stop = g_strdupv (self->stop);
  copy->response_format = self->response_format;
  copy->json_schema = self->json_schema ? json_node_copy (self->json_schema) : NULL;
  copy->json_schema_name = g_strdup (self->json_schema_name);
  copy->role = g_strdup (self->role);
  copy->request_id = g_strdup (self->request_id);
  return copy;
}

/* g_bytes_get_data() may give NULL for an empty text. */
static const char *
message_text (Message *message)
{
  const char *text = g_bytes_get_data (message->content, NULL);

  return text != NULL ? text : "";
}

static void
append_message (AnotChatRequest *self,
                AnotChatRole     role,
                GBytes          *content)
{
  Message message = { .role = role, .content = content, .n_chars = -1 };

  g_array_append_val (self->messages, message);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_N_MESSAGES]);
}

/**
 * anot_chat_request_add_message:
 * @self: an #AnotChatRequest
 * @role: who the message is from
 * @content: the message text
 *
 * Appends a message (a copy of @content).
 */
void
anot_chat_request_add_message (AnotChatRequest *self,
                               AnotChatRole     role,
                               const char      *content)
{
  gsize length;

  g_return_if_fail (ANOT_IS_CHAT_REQUEST (self));
  g_return_if_fail (content != NULL);
  g_return_if_fail (role <= ANOT_CHAT_ROLE_ASSISTANT);

  length = strlen (content);
  append_message (self, role, g_bytes_new_take (g_memdup2 (content, length + 1), length));
}

/**
 * anot_chat_request_add_message_take:
 * @self: an #AnotChatRequest
 * @role: who the message is from
 * @content: (transfer full): the message text, allocated with g_malloc()
 * @length: the bytes of @content before its terminating NUL, or -1
 *
 * Appends a message whose text is @content itself, not a copy: the
 * request and its copies keep it until the last of them is freed.  A
 * method building a prompt of megabytes gives it away with this, so the
 * router, the cache and the backend all read the buffer it wrote.
 */
void
anot_chat_request_add_message_take (AnotChatRequest *self,
                                    AnotChatRole     role,
                                    char            *content,
                                    gssize           length)
{
  g_return_if_fail (ANOT_IS_CHAT_REQUEST (self));
  g_return_if_fail (content != NULL);
  g_return_if_fail (role <= ANOT_CHAT_ROLE_ASSISTANT);
  g_return_if_fail (length < 0 || content[length] == '\0');

  if (length < 0)
    length = strlen (content);
  append_message (self, role, g_bytes_new_take (content, length));
}

/**
 * anot_chat_request_get_n_messages:
 * @self: an #AnotChatRequest
 *
 * Returns: the number of messages
 */
guint
anot_chat_request_get_n_messages (AnotChatRequest *self)
{
  g_return_val_if_fail (ANOT_IS_CHAT_REQUEST (self), 0);
  return self->messages->len;
}

/**
 * anot_chat_request_get_message_role:
 * @self: an #AnotChatRequest
 * @index: a message index, below [property@Anot.ChatRequest:n-messages]
 *
 * Returns: who message @index is from
 */
AnotChatRole
anot_chat_request_get_message_role (AnotChatRequest *self,
                                    guint            index)
{
  g_return_val_if_fail (ANOT_IS_CHAT_REQUEST (self), ANOT_CHAT_ROLE_USER);
  g_return_val_if_fail (index < self->messages->len, ANOT_CHAT_ROLE_USER);
  return g_array_index (self->messages, Message, index).role;
}

/**
 * anot_chat_request_get_message_content:
 * @self: an #AnotChatRequest
 * @index: a message index, below [property@Anot.ChatRequest:n-messages]
 *
 * Returns: the text of message @index
 */
const char *
anot_chat_request_get_message_content (AnotChatRequest *self,
                                       guint            index)
{
  g_return_val_if_fail (ANOT_IS_CHAT_REQUEST (self), NULL);
  g_return_val_if_fail (index < self->messages->len, NULL);
  return message_text (&g_array_index (self->messages, Message, index));
}

/**
 * anot_chat_request_get_message_length:
 * @self: an #AnotChatRequest
 * @index: a message index, below [property@Anot.ChatRequest:n-messages]
 *
 * Returns: the bytes of the text of message @index (strlen() of
 *   anot_chat_request_get_message_content(), without reading it)
 */
gsize
anot_chat_request_get_message_length (AnotChatRequest *self,
                                      guint            index)
{
  g_return_val_if_fail (ANOT_IS_CHAT_REQUEST (self), 0);
  g_return_val_if_fail (index < self->messages->len, 0);
  return g_bytes_get_size (g_array_index (self->messages, Message, index).content);
}

/**
 * anot_chat_request_get_message_chars:
 * @self: an #AnotChatRequest
 * @index: a message index, below [property@Anot.ChatRequest:n-messages]
 *
 * The characters (Unicode code points, what Python's `len()` counts) of
 * the text of message @index, which must be UTF-8.  Counted once, at
 * memory speed, and kept with the message.
 *
 * Returns: the characters of message @index
 */
gsize
anot_chat_request_get_message_chars (AnotChatRequest *self,
                                     guint            index)
{
  Message *message;

  g_return_val_if_fail (ANOT_IS_CHAT_REQUEST (self), 0);
  g_return_val_if_fail (index < self->messages->len, 0);

  message = &g_array_index (self->messages, Message, index);
  if (message->n_chars < 0)
    {
      gsize length;
      const char *text = message_text (message);

      length = g_bytes_get_size (message->content);
      message->n_chars = (gssize) anot_utf8_count_chars (text, length);
    }
  return (gsize) message->n_chars;
}

/**
 * anot_chat_request_dup_system_prompt:
 * @self: an #AnotChatRequest
 *
 * The system messages joined by blank lines: what APIs with a single
 * system prompt (Anthropic) receive.
 *
 * Returns: (transfer full) (nullable): the system prompt, or %NULL when
 *   there is no system message
 */
char *
anot_chat_request_dup_system_prompt (AnotChatRequest *self)
{
  GString *text = NULL;

  g_return_val_if_fail (ANOT_IS_CHAT_REQUEST (self), NULL);

  for (guint i = 0; i < self->messages->len; i++)
    {
      Message *message = &g_array_index (self->messages, Message, i);

      if (message->role != ANOT_CHAT_ROLE_SYSTEM)
        continue;
      if (text == NULL)
        text = g_string_new (NULL);
      else
        g_string_append (text, "\n\n");
      g_string_append_len (text, message_text (message), g_bytes_get_size (message->content));
    }
  return text ? g_string_free (text, FALSE) : NULL;
}

/**
 * anot_chat_request_get_model:
 * @self: an #AnotChatRequest
 *
 * Returns: (nullable): the model, or %NULL when not set
 */
const char *
anot_chat_request_get_model (AnotChatRequest *self)
{
  g_return_val_if_fail (ANOT_IS_CHAT_REQUEST (self), NULL);
  return self->model;
}

/**
 * anot_chat_request_set_model:
 * @self: an #AnotChatRequest
 * @model: (nullable): a model name, or %NULL for the configured one
 *
 * Sets [property@Anot.ChatRequest:model].
 */
void
anot_chat_request_set_model (AnotChatRequest *self,
                             const char      *model)
{
  g_return_if_fail (ANOT_IS_CHAT_REQUEST (self));
  if (replace_string (&self->model, model))
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_MODEL]);
}

/**
 * anot_chat_request_get_temperature:
 * @self: an #AnotChatRequest
 *
 * Returns: the temperature, negative when not set
 */
double
anot_chat_request_get_temperature (AnotChatRequest *self)
{
  g_return_val_if_fail (ANOT_IS_CHAT_REQUEST (self), -1.0);
  return self->temperature;
}

/**
 * anot_chat_request_set_temperature:
 * @self: an #AnotChatRequest
 * @temperature: a temperature in [0, 2], or a negative value to unset it
 *
 * Sets [property@Anot.ChatRequest:temperature].
 */
void
anot_chat_request_set_temperature (AnotChatRequest *self,
                                   double           temperature)
{
  g_return_if_fail (ANOT_IS_CHAT_REQUEST (self));
  g_return_if_fail (!isnan (temperature) && temperature <= 2.0);

  if (temperature < 0)
    temperature = -1.0;
  if (self->temperature == temperature)
    return;
  self->temperature = temperature;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_TEMPERATURE]);
}

/**
 * anot_chat_request_get_max_tokens:
 * @self: an #AnotChatRequest
 *
 * Returns: the token limit of the answer, 0 when not set
 */
guint
anot_chat_request_get_max_tokens (AnotChatRequest *self)
{
  g_return_val_if_fail (ANOT_IS_CHAT_REQUEST (self), 0);
  return self->max_tokens;
}

/**
 * anot_chat_request_set_max_tokens:
 * @self: an #AnotChatRequest
 * @max_tokens: the token limit of the answer, 0 to unset it
 *
 * Sets [property@Anot.ChatRequest:max-tokens].
 */
void
anot_chat_request_set_max_tokens (AnotChatRequest *self,
                                  guint            max_tokens)
{
  g_return_if_fail (ANOT_IS_CHAT_REQUEST (self));
  if (self->max_tokens == max_tokens)
    return;
  self->max_tokens = max_tokens;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_MAX_TOKENS]);
}

/**
 * anot_chat_request_get_top_p:
 * @self: an #AnotChatRequest
 *
 * Returns: the nucleus sampling mass, negative when not set
 */
double
anot_chat_request_get_top_p (AnotChatRequest *self)
{
  g_return_val_if_fail (ANOT_IS_CHAT_REQUEST (self), -1.0);
  return self->top_p;
}

/**
 * anot_chat_request_set_top_p:
 * @self: an #AnotChatRequest
 * @top_p: a mass in [0, 1], or a negative value to unset it
 *
 * Sets [property@Anot.ChatRequest:top-p].
 */
void
anot_chat_request_set_top_p (AnotChatRequest *self,
                             double           top_p)
{
  g_return_if_fail (ANOT_IS_CHAT_REQUEST (self));
  g_return_if_fail (!isnan (top_p) && top_p <= 1.0);

  if (top_p < 0)
    top_p = -1.0;
  if (self->top_p == top_p)
    return;
  self->top_p = top_p;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_TOP_P]);
}

/**
 * anot_chat_request_get_seed:
 * @self: an #AnotChatRequest
 *
 * Returns: the seed, or %ANOT_CHAT_REQUEST_SEED_UNSET
 */
gint64
anot_chat_request_get_seed (AnotChatRequest *self)
{
  g_return_val_if_fail (ANOT_IS_CHAT_REQUEST (self), ANOT_CHAT_REQUEST_SEED_UNSET);
  return self->seed;
}

/**
 * anot_chat_request_set_seed:
 * @self: an #AnotChatRequest
 * @seed: a non-negative seed, or %ANOT_CHAT_REQUEST_SEED_UNSET
 *
 * Sets [property@Anot.ChatRequest:seed].
 */
void
anot_chat_request_set_seed (AnotChatRequest *self,
                            gint64           seed)
{
  g_return_if_fail (ANOT_IS_CHAT_REQUEST (self));
  g_return_if_fail (seed >= ANOT_CHAT_REQUEST_SEED_UNSET);
  if (self->seed == seed)
    return;
  self->seed = seed;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_SEED]);
}

/**
 * anot_chat_request_get_stop:
 * @self: an #AnotChatRequest
 *
 * Returns: (nullable) (transfer none) (array zero-terminated=1): the stop
 *   sequences, or %NULL
 */
const char * const *
anot_chat_request_get_stop (AnotChatRequest *self)
{
  g_return_val_if_fail (ANOT_IS_CHAT_REQUEST (self), NULL);
  return (const char * const *) self->stop;
}

/**
 * anot_chat_request_set_stop:
 * @self: an #AnotChatRequest
 * @stop: (nullable) (array zero-terminated=1): stop sequences, or %NULL
 *
 * Sets [property@Anot.ChatRequest:stop].  An empty array unsets it.
 */
void
anot_chat_request_set_stop (AnotChatRequest    *self,
                            const char * const *stop)
{
  g_return_if_fail (ANOT_IS_CHAT_REQUEST (self));

  g_strfreev (self->stop);
  self->stop = stop && stop[0] ? g_strdupv ((char **) stop) : NULL;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_STOP]);
}

/**
 * anot_chat_request_get_response_format:
 * @self: an #AnotChatRequest
 *
 * Returns: the response format
 */
AnotResponseFormat
anot_chat_request_get_response_format (AnotChatRequest *self)
{
  g_return_val_if_fail (ANOT_IS_CHAT_REQUEST (self), ANOT_RESPONSE_FORMAT_TEXT);
  return self->response_format;
}

/**
 * anot_chat_request_set_response_format:
 * @self: an #AnotChatRequest
 * @format: the response format
 *
 * Sets [property@Anot.ChatRequest:response-format].
 * %ANOT_RESPONSE_FORMAT_JSON_SCHEMA also needs a schema
 * (anot_chat_request_set_json_schema(), which sets the format itself).
 */
void
anot_chat_request_set_response_format (AnotChatRequest    *self,
                                       AnotResponseFormat  format)
{
  g_return_if_fail (ANOT_IS_CHAT_REQUEST (self));
  g_return_if_fail (format <= ANOT_RESPONSE_FORMAT_JSON_SCHEMA);
  if (self->response_format == format)
    return;
  self->response_format = format;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_RESPONSE_FORMAT]);
}

/**
 * anot_chat_request_get_json_schema:
 * @self: an #AnotChatRequest
 *
 * Returns: (nullable) (transfer none): the JSON schema of the answer
 */
JsonNode *
anot_chat_request_get_json_schema (AnotChatRequest *self)
{
  g_return_val_if_fail (ANOT_IS_CHAT_REQUEST (self), NULL);
  return self->json_schema;
}

/**
 * anot_chat_request_get_json_schema_name:
 * @self: an #AnotChatRequest
 *
 * Returns: (nullable): the name of the JSON schema
 */
const char *
anot_chat_request_get_json_schema_name (AnotChatRequest *self)
{
  g_return_val_if_fail (ANOT_IS_CHAT_REQUEST (self), NULL);
  return self->json_schema_name;
}

/**
 * anot_chat_request_set_json_schema:
 * @self: an #AnotChatRequest
 * @name: (nullable): the schema's name (`answer` when %NULL)
 * @schema: (nullable): a JSON schema object, or %NULL to go back to text
 *
 * Asks for an answer that follows @schema, setting
 * [property@Anot.ChatRequest:response-format] to
 * %ANOT_RESPONSE_FORMAT_JSON_SCHEMA (or %ANOT_RESPONSE_FORMAT_TEXT when
 * @schema is %NULL).
 */
void
anot_chat_request_set_json_schema (AnotChatRequest *self,
                                   const char      *name,
                                   JsonNode        *schema)
{
  g_autofree char *name_copy = g_strdup (name);

  g_return_if_fail (ANOT_IS_CHAT_REQUEST (self));

  g_clear_pointer (&self->json_schema, json_node_unref);
  self->json_schema = schema ? json_node_copy (schema) : NULL;
  g_free (self->json_schema_name);
  self->json_schema_name = g_steal_pointer (&name_copy);
  anot_chat_request_set_response_format (self, schema ? ANOT_RESPONSE_FORMAT_JSON_SCHEMA
                                                      : ANOT_RESPONSE_FORMAT_TEXT);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_JSON_SCHEMA]);
}

/**
 * anot_chat_request_get_role:
 * @self: an #AnotChatRequest
 *
 * Returns: (nullable): the role the call is made for
 */
const char *
anot_chat_request_get_role (AnotChatRequest *self)
{
  g_return_val_if_fail (ANOT_IS_CHAT_REQUEST (self), NULL);
  return self->role;
}

/**
 * anot_chat_request_set_role:
 * @self: an #AnotChatRequest
 * @role: (nullable): a role name
 *
 * Sets [property@Anot.ChatRequest:role].
 */
void
anot_chat_request_set_role (AnotChatRequest *self,
                            const char      *role)
{
  g_return_if_fail (ANOT_IS_CHAT_REQUEST (self));
  if (replace_string (&self->role, role))
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_ROLE]);
}

/**
 * anot_chat_request_get_request_id:
 * @self: an #AnotChatRequest
 *
 * Returns: (nullable): the benchmark request the call is made for
 */
const char *
anot_chat_request_get_request_id (AnotChatRequest *self)
{
  g_return_val_if_fail (ANOT_IS_CHAT_REQUEST (self), NULL);
  return self->request_id;
}

/**
 * anot_chat_request_set_request_id:
 * @self: an #AnotChatRequest
 * @request_id: (nullable): a request id
 *
 * Sets [property@Anot.ChatRequest:request-id].
 */
void
anot_chat_request_set_request_id (AnotChatRequest *self,
                                  const char      *request_id)
{
  g_return_if_fail (ANOT_IS_CHAT_REQUEST (self));
  if (replace_string (&self->request_id, request_id))
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_REQUEST_ID]);
}

/* The text of anot_chat_request_hash(), hashed as it is written, through
 * a small buffer. */
typedef struct
{
  struct sha256_ctx sha;
  gsize len;
  char buf[4096];
} HashText;

static void
hash_flush (HashText *h)
{
  sha256_update (&h->sha, h->len, (const guint8 *) h->buf);
  h->len = 0;
}

static void
hash_bytes (HashText   *h,
            const char *bytes,
            gsize       n)
{
  if (n > sizeof h->buf - h->len)
    {
      hash_flush (h);
      if (n >= sizeof h->buf)
        {
          sha256_update (&h->sha, n, (const guint8 *) bytes);
          return;
        }
    }
  memcpy (h->buf + h->len, bytes, n);
  h->len += n;
}

#define hash_literal(h, text) hash_bytes ((h), (text), strlen (text))

static void G_GNUC_PRINTF (2, 3)
hash_printf (HashText   *h,
             const char *format,
             ...)
{
  g_autofree char *text = NULL;
  va_list args;

  va_start (args, format);
  text = g_strdup_vprintf (format, args);
  va_end (args);
  hash_bytes (h, text, strlen (text));
}

/* A string as json-glib 1.6 escapes it (json_strescape()): quotes and
 * backslashes; \b \f \n \r \t; \u00XX for the other bytes 1 to 0x1e
 * and for DEL; 0x1f and every byte above 127 as they are.  The cache's
 * and the journal's keys were made with it and must not change. */
static void
hash_string (HashText   *h,
             const char *text,
             gsize       length)
{
  static const char hex[] = "0123456789abcdef";
  const char *p = text;
  const char *end = text + length;

  hash_bytes (h, "\"", 1);
  while (p < end)
    {
      const char *plain = anot_json_skip_plain_full (p, end, FALSE, TRUE);
      const char *stop;

      if (plain > p)
        {
          hash_bytes (h, p, plain - p);
          p = plain;
        }
      for (stop = p + MIN ((gsize) (end - p), 16); p < stop; p++)
        {
          guchar c = (guchar) *p;
          char escape[6];

          if (c == '"' || c == '\\')
            {
              escape[0] = '\\';
              escape[1] = (char) c;
              hash_bytes (h, escape, 2);
            }
          else if ((c > 0 && c < 0x1f) || c == 0x7f)
            {
              const char *letter = strchr ("\bb\ff\nn\rr\tt", c);

              escape[0] = '\\';
              if (letter != NULL && c != 0)
                {
                  escape[1] = letter[1];
                  hash_bytes (h, escape, 2);
                }
              else
                {
                  memcpy (escape, "\\u00", 4);
                  escape[4] = hex[c >> 4];
                  escape[5] = hex[c & 0xf];
                  hash_bytes (h, escape, 6);
                }
            }
          else
            hash_bytes (h, p, 1);
        }
    }
  hash_bytes (h, "\"", 1);
}

/**
 * anot_chat_request_hash:
 * @self: an #AnotChatRequest
 * @backend: the registered name of the backend that answers
 *
 * A SHA-256 over @backend, the model and everything that is sent: the
 * messages and every generation option.  The role and request id are not
 * part of it, so two requests asking the same question share the answer.
 * This is the key of the [class@Anot.ResponseCache].
 *
 * Returns: (transfer full): the hash as 64 hexadecimal digits
 */
char *
anot_chat_request_hash (AnotChatRequest *self,
                        const char      *backend)
{
  static const char hex[] = "0123456789abcdef";
  HashText h;
  char number[G_ASCII_DTOSTR_BUF_SIZE];
  guint8 digest[SHA256_DIGEST_SIZE];
  char *out;

  g_return_val_if_fail (ANOT_IS_CHAT_REQUEST (self), NULL);
  g_return_val_if_fail (backend != NULL, NULL);

  /* The text json-glib wrote of the object built member by member (a
   * fixed order, so it is canonical), streamed into the hash: keys made
   * before are kept.  A message of megabytes is neither copied into a
   * tree nor escaped into a string first. */
  sha256_init (&h.sha);
  h.len = 0;
  hash_literal (&h, "{\"v\":1,\"backend\":");
  hash_string (&h, backend, strlen (backend));
  hash_literal (&h, ",\"model\":");
  hash_string (&h, self->model ? self->model : "", self->model ? strlen (self->model) : 0);
  hash_literal (&h, ",\"messages\":[");
  for (guint i = 0; i < self->messages->len; i++)
    {
      Message *message = &g_array_index (self->messages, Message, i);

      hash_printf (&h, "%s[%d,", i > 0 ? "," : "", (int) message->role);
      hash_string (&h, message_text (message), g_bytes_get_size (message->content));
      hash_literal (&h, "]");
    }
  hash_literal (&h, "],\"temperature\":");
  g_ascii_dtostr (number, sizeof number, self->temperature);
  hash_string (&h, number, strlen (number));
  hash_literal (&h, ",\"top_p\":");
  g_ascii_dtostr (number, sizeof number, self->top_p);
  hash_string (&h, number, strlen (number));
  hash_printf (&h, ",\"max_tokens\":%u,\"seed\":%" G_GINT64_FORMAT ",\"stop\":[",
               self->max_tokens, self->seed);
  for (guint i = 0; self->stop && self->stop[i]; i++)
    {
      if (i > 0)
        hash_literal (&h, ",");
      hash_string (&h, self->stop[i], strlen (self->stop[i]));
    }
  hash_printf (&h, "],\"response_format\":%d,\"schema_name\":", (int) self->response_format);
  hash_string (&h, self->json_schema_name ? self->json_schema_name : "",
               self->json_schema_name ? strlen (self->json_schema_name) : 0);
  hash_literal (&h, ",\"schema\":");
  if (self->json_schema != NULL)
    {
      g_autofree char *schema = json_to_string (self->json_schema, FALSE);

      hash_bytes (&h, schema, strlen (schema));
    }
  else
    hash_literal (&h, "null");
  hash_literal (&h, "}");
  hash_flush (&h);

  sha256_digest (&h.sha, sizeof digest, digest);
  out = g_malloc (2 * sizeof digest + 1);
  for (gsize i = 0; i < sizeof digest; i++)
    {
      out[2 * i] = hex[digest[i] >> 4];
      out[2 * i + 1] = hex[digest[i] & 0xf];
    }
  out[2 * sizeof digest] = '\0';
  return out;
}
