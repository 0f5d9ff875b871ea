/* anot-completion.h
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#if !defined(ANOT_INSIDE) && !defined(ANOT_COMPILATION)
#error "Only <anot/anot.h> can be included directly."
#endif

#include <glib-object.h>

G_BEGIN_DECLS

#define ANOT_TYPE_COMPLETION (anot_completion_get_type ())
G_DECLARE_FINAL_TYPE (AnotCompletion, anot_completion, ANOT, COMPLETION, GObject)

AnotCompletion *anot_completion_new                   (const char     *model,
                                                       const char     *text);
const char     *anot_completion_get_model             (AnotCompletion *self);
const char     *anot_completion_get_text              (AnotCompletion *self);
guint64         anot_completion_get_prompt_tokens     (AnotCompletion *self);
void            anot_completion_set_prompt_tokens     (AnotCompletion *self,
                                                       guint64         tokens);
guint64         anot_completion_get_completion_tokens (AnotCompletion *self);
void            anot_completion_set_completion_tokens (AnotCompletion *self,
                                                       guint64         tokens);
double          anot_completion_get_latency_ms        (AnotCompletion *self);
void            anot_completion_set_latency_ms        (AnotCompletion *self,
                                                       double          latency_ms);
double          anot_completion_get_cost_usd          (AnotCompletion *self);
void            anot_completion_set_cost_usd          (AnotCompletion *self,
                                                       double          cost_usd);
const char     *anot_completion_get_finish_reason     (AnotCompletion *self);
void            anot_completion_set_finish_reason     (AnotCompletion *self,
                                                       const char     *finish_reason);
guint           anot_completion_get_retries           (AnotCompletion *self);
void            anot_completion_set_retries           (AnotCompletion *self,
                                                       guint           retries);
const char     *anot_completion_get_role              (AnotCompletion *self);
void            anot_completion_set_role              (AnotCompletion *self,
                                                       const char     *role);
gboolean        anot_completion_get_cached            (AnotCompletion *self);
void            anot_completion_set_cached            (AnotCompletion *self,
                                                       gboolean        cached);

G_END_DECLS
