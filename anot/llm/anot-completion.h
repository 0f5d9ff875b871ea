/* anot-completion.h
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#if !defined(ANOT_INSIDE) && !defined(ANOT_COMPILATION)
#error "Only <anot/anot.h> can be included directly."
#endif

#include "anot-visibility.h"

#include <glib-object.h>

G_BEGIN_DECLS

#define ANOT_TYPE_COMPLETION (anot_completion_get_type ())
ANOT_AVAILABLE_IN_ALL
G_DECLARE_FINAL_TYPE (AnotCompletion, anot_completion, ANOT, COMPLETION, GObject)

ANOT_AVAILABLE_IN_ALL
AnotCompletion *anot_completion_new                   (const char     *model,
                                                       const char     *text);
ANOT_AVAILABLE_IN_ALL
const char     *anot_completion_get_model             (AnotCompletion *self);
ANOT_AVAILABLE_IN_ALL
const char     *anot_completion_get_text              (AnotCompletion *self);
ANOT_AVAILABLE_IN_ALL
guint64         anot_completion_get_prompt_tokens     (AnotCompletion *self);
ANOT_AVAILABLE_IN_ALL
void            anot_completion_set_prompt_tokens     (AnotCompletion *self,
                                                       guint64         tokens);
ANOT_AVAILABLE_IN_ALL
guint64         anot_completion_get_completion_tokens (AnotCompletion *self);
ANOT_AVAILABLE_IN_ALL
void            anot_completion_set_completion_tokens (AnotCompletion *self,
                                                       guint64         tokens);
ANOT_AVAILABLE_IN_ALL
double          anot_completion_get_latency_ms        (AnotCompletion *self);
ANOT_AVAILABLE_IN_ALL
void            anot_completion_set_latency_ms        (AnotCompletion *self,
                                                       double          latency_ms);
ANOT_AVAILABLE_IN_ALL
double          anot_completion_get_cost_usd          (AnotCompletion *self);
ANOT_AVAILABLE_IN_ALL
void            anot_completion_set_cost_usd          (AnotCompletion *self,
                                                       double          cost_usd);
ANOT_AVAILABLE_IN_ALL
gboolean        anot_completion_get_cost_known        (AnotCompletion *self);
ANOT_AVAILABLE_IN_ALL
void            anot_completion_set_cost_known        (AnotCompletion *self,
                                                       gboolean        cost_known);
ANOT_AVAILABLE_IN_ALL
const char     *anot_completion_get_finish_reason     (AnotCompletion *self);
ANOT_AVAILABLE_IN_ALL
void            anot_completion_set_finish_reason     (AnotCompletion *self,
                                                       const char     *finish_reason);
ANOT_AVAILABLE_IN_ALL
guint           anot_completion_get_retries           (AnotCompletion *self);
ANOT_AVAILABLE_IN_ALL
void            anot_completion_set_retries           (AnotCompletion *self,
                                                       guint           retries);
ANOT_AVAILABLE_IN_ALL
const char     *anot_completion_get_role              (AnotCompletion *self);
ANOT_AVAILABLE_IN_ALL
void            anot_completion_set_role              (AnotCompletion *self,
                                                       const char     *role);
ANOT_AVAILABLE_IN_ALL
gboolean        anot_completion_get_cached            (AnotCompletion *self);
ANOT_AVAILABLE_IN_ALL
void            anot_completion_set_cached            (AnotCompletion *self,
                                                       gboolean        cached);
ANOT_AVAILABLE_IN_ALL
const char     *anot_completion_get_endpoint          (AnotCompletion *self);
ANOT_AVAILABLE_IN_ALL
void            anot_completion_set_endpoint          (AnotCompletion *self,
                                                       const char     *endpoint);
ANOT_AVAILABLE_IN_ALL
void            anot_completion_add_endpoint_error    (AnotCompletion *self,
                                                       const char     *endpoint);
ANOT_AVAILABLE_IN_ALL
const char * const *anot_completion_get_endpoint_errors (AnotCompletion *self);
ANOT_AVAILABLE_IN_ALL
const char     *anot_completion_get_batch_id          (AnotCompletion *self);
ANOT_AVAILABLE_IN_ALL
void            anot_completion_set_batch_id          (AnotCompletion *self,
                                                       const char     *batch_id);
ANOT_AVAILABLE_IN_ALL
guint           anot_completion_get_replaced_characters (AnotCompletion *self);
ANOT_AVAILABLE_IN_ALL
void            anot_completion_set_replaced_characters (AnotCompletion *self,
                                                         guint           n);

G_END_DECLS
