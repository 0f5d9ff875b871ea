/* anot-tokenizer.h: counting a model's tokens
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#if !defined(ANOT_INSIDE) && !defined(ANOT_COMPILATION)
#error "Only <anot/anot.h> can be included directly."
#endif

#include "anot-visibility.h"

#include <glib-object.h>

#include "anot-chat-request.h"

G_BEGIN_DECLS

#define ANOT_TYPE_TOKENIZER (anot_tokenizer_get_type ())
ANOT_AVAILABLE_IN_ALL
G_DECLARE_FINAL_TYPE (AnotTokenizer, anot_tokenizer, ANOT, TOKENIZER, GObject)

ANOT_AVAILABLE_IN_ALL
AnotTokenizer *anot_tokenizer_new_for_model     (const char      *model);
ANOT_AVAILABLE_IN_ALL
AnotTokenizer *anot_tokenizer_new_for_encoding  (const char      *encoding,
                                                 GError         **error);
ANOT_AVAILABLE_IN_ALL
const char    *anot_tokenizer_get_encoding      (AnotTokenizer   *self);
ANOT_AVAILABLE_IN_ALL
gboolean       anot_tokenizer_is_exact          (AnotTokenizer   *self);
ANOT_AVAILABLE_IN_ALL
guint64        anot_tokenizer_count             (AnotTokenizer   *self,
                                                 const char      *text);
ANOT_AVAILABLE_IN_ALL
guint64        anot_tokenizer_count_up_to       (AnotTokenizer   *self,
                                                 const char      *text,
                                                 guint64          limit,
                                                 guint64         *counted_bytes);
ANOT_AVAILABLE_IN_ALL
guint64        anot_tokenizer_count_request     (AnotTokenizer   *self,
                                                 AnotChatRequest *request);
ANOT_AVAILABLE_IN_ALL
guint64        anot_tokenizer_count_request_up_to (AnotTokenizer   *self,
                                                   AnotChatRequest *request,
                                                   guint64          limit,
                                                   guint64         *counted_bytes);
ANOT_AVAILABLE_IN_ALL
const char    *anot_tokenizer_encoding_for_model (const char     *model);

G_END_DECLS
