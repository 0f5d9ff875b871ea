/* anot-chat-request.h
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#if !defined(ANOT_INSIDE) && !defined(ANOT_COMPILATION)
#error "Only <anot/anot.h> can be included directly."
#endif

#include "anot-visibility.h"

#include <glib-object.h>
#include <json-glib/json-glib.h>

G_BEGIN_DECLS

/**
 * AnotChatRole:
 * @ANOT_CHAT_ROLE_SYSTEM: instructions for the model
 * @ANOT_CHAT_ROLE_USER: a user turn
 * @ANOT_CHAT_ROLE_ASSISTANT: an earlier answer of the model (few-shot
 *   examples, multi-turn exchanges)
 *
 * Who a message of an [class@Anot.ChatRequest] is from.
 */
typedef enum {
  ANOT_CHAT_ROLE_SYSTEM,
  ANOT_CHAT_ROLE_USER,
  ANOT_CHAT_ROLE_ASSISTANT,
} AnotChatRole;

/**
 * AnotResponseFormat:
 * @ANOT_RESPONSE_FORMAT_TEXT: free text (the default)
 * @ANOT_RESPONSE_FORMAT_JSON_OBJECT: any JSON object (OpenAI's JSON mode)
 * @ANOT_RESPONSE_FORMAT_JSON_SCHEMA: JSON following
 *   [property@Anot.ChatRequest:json-schema] (OpenAI's structured outputs)
 *
 * The shape the answer must have.  Backends whose API has no such option
 * (Anthropic) add an instruction to the system prompt instead.
 */
typedef enum {
  ANOT_RESPONSE_FORMAT_TEXT,
  ANOT_RESPONSE_FORMAT_JSON_OBJECT,
  ANOT_RESPONSE_FORMAT_JSON_SCHEMA,
} AnotResponseFormat;

/**
 * ANOT_CHAT_REQUEST_SEED_UNSET:
 *
 * The value of [property@Anot.ChatRequest:seed] when no seed is sent.
 */
#define ANOT_CHAT_REQUEST_SEED_UNSET (-1)

#define ANOT_TYPE_CHAT_REQUEST (anot_chat_request_get_type ())
ANOT_AVAILABLE_IN_ALL
G_DECLARE_FINAL_TYPE (AnotChatRequest, anot_chat_request, ANOT, CHAT_REQUEST, GObject)

ANOT_AVAILABLE_IN_ALL
AnotChatRequest    *anot_chat_request_new                  (const char         *system_prompt,
                                                            const char         *prompt);
ANOT_AVAILABLE_IN_ALL
AnotChatRequest    *anot_chat_request_copy                 (AnotChatRequest    *self);
ANOT_AVAILABLE_IN_ALL
void                anot_chat_request_add_message          (AnotChatRequest    *self,
                                                            AnotChatRole        role,
                                                            const char         *content);
ANOT_AVAILABLE_IN_ALL
void                anot_chat_request_add_message_take     (AnotChatRequest    *self,
                                                            AnotChatRole        role,
                                                            char               *content,
                                                            gssize              length);
ANOT_AVAILABLE_IN_ALL
guint               anot_chat_request_get_n_messages       (AnotChatRequest    *self);
ANOT_AVAILABLE_IN_ALL
AnotChatRole        anot_chat_request_get_message_role     (AnotChatRequest    *self,
                                                            guint               index);
ANOT_AVAILABLE_IN_ALL
const char         *anot_chat_request_get_message_content  (AnotChatRequest    *self,
                                                            guint               index);
ANOT_AVAILABLE_IN_ALL
gsize               anot_chat_request_get_message_length   (AnotChatRequest    *self,
                                                            guint               index);
ANOT_AVAILABLE_IN_ALL
gsize               anot_chat_request_get_message_chars    (AnotChatRequest    *self,
                                                            guint               index);
ANOT_AVAILABLE_IN_ALL
char               *anot_chat_request_dup_system_prompt    (AnotChatRequest    *self);

ANOT_AVAILABLE_IN_ALL
const char         *anot_chat_request_get_model            (AnotChatRequest    *self);
ANOT_AVAILABLE_IN_ALL
void                anot_chat_request_set_model            (AnotChatRequest    *self,
                                                            const char         *model);
ANOT_AVAILABLE_IN_ALL
double              anot_chat_request_get_temperature      (AnotChatRequest    *self);
ANOT_AVAILABLE_IN_ALL
void                anot_chat_request_set_temperature      (AnotChatRequest    *self,
                                                            double              temperature);
ANOT_AVAILABLE_IN_ALL
guint               anot_chat_request_get_max_tokens       (AnotChatRequest    *self);
ANOT_AVAILABLE_IN_ALL
void                anot_chat_request_set_max_tokens       (AnotChatRequest    *self,
                                                            guint               max_tokens);
ANOT_AVAILABLE_IN_ALL
double              anot_chat_request_get_top_p            (AnotChatRequest    *self);
ANOT_AVAILABLE_IN_ALL
void                anot_chat_request_set_top_p            (AnotChatRequest    *self,
                                                            double              top_p);
ANOT_AVAILABLE_IN_ALL
gint64              anot_chat_request_get_seed             (AnotChatRequest    *self);
ANOT_AVAILABLE_IN_ALL
void                anot_chat_request_set_seed             (AnotChatRequest    *self,
                                                            gint64              seed);
ANOT_AVAILABLE_IN_ALL
const char * const *anot_chat_request_get_stop             (AnotChatRequest    *self);
ANOT_AVAILABLE_IN_ALL
void                anot_chat_request_set_stop             (AnotChatRequest    *self,
                                                            const char * const *stop);
ANOT_AVAILABLE_IN_ALL
AnotResponseFormat  anot_chat_request_get_response_format  (AnotChatRequest    *self);
ANOT_AVAILABLE_IN_ALL
void                anot_chat_request_set_response_format  (AnotChatRequest    *self,
                                                            AnotResponseFormat  format);
ANOT_AVAILABLE_IN_ALL
JsonNode           *anot_chat_request_get_json_schema      (AnotChatRequest    *self);
ANOT_AVAILABLE_IN_ALL
const char         *anot_chat_request_get_json_schema_name (AnotChatRequest    *self);
ANOT_AVAILABLE_IN_ALL
void                anot_chat_request_set_json_schema      (AnotChatRequest    *self,
                                                            const char         *name,
                                                            JsonNode           *schema);

ANOT_AVAILABLE_IN_ALL
const char         *anot_chat_request_get_role             (AnotChatRequest    *self);
ANOT_AVAILABLE_IN_ALL
void                anot_chat_request_set_role             (AnotChatRequest    *self,
                                                            const char         *role);
ANOT_AVAILABLE_IN_ALL
const char         *anot_chat_request_get_request_id       (AnotChatRequest    *self);
ANOT_AVAILABLE_IN_ALL
void                anot_chat_request_set_request_id       (AnotChatRequest    *self,
                                                            const char         *request_id);

ANOT_AVAILABLE_IN_ALL
char               *anot_chat_request_hash                 (AnotChatRequest    *self,
                                                            const char         *backend);

G_END_DECLS
