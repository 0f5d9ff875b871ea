/* anot-usage.h
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#if !defined(ANOT_INSIDE) && !defined(ANOT_COMPILATION)
#error "Only <anot/anot.h> can be included directly."
#endif

#include <glib-object.h>
#include <json-glib/json-glib.h>

#include "anot-completion.h"

G_BEGIN_DECLS

#define ANOT_TYPE_USAGE (anot_usage_get_type ())
G_DECLARE_FINAL_TYPE (AnotUsage, anot_usage, ANOT, USAGE, GObject)

AnotUsage *anot_usage_new                      (void);
void       anot_usage_add_completion           (AnotUsage      *self,
                                                AnotCompletion *completion);
void       anot_usage_merge                    (AnotUsage      *self,
                                                AnotUsage      *other);
guint64    anot_usage_get_calls                (AnotUsage      *self);
guint64    anot_usage_get_prompt_tokens        (AnotUsage      *self);
guint64    anot_usage_get_completion_tokens    (AnotUsage      *self);
double     anot_usage_get_cost_usd             (AnotUsage      *self);
double     anot_usage_get_latency_ms           (AnotUsage      *self);
guint64    anot_usage_get_retries              (AnotUsage      *self);
char     **anot_usage_list_roles               (AnotUsage      *self);
AnotUsage *anot_usage_dup_role_usage           (AnotUsage      *self,
                                                const char     *role);
JsonNode  *anot_usage_to_json                  (AnotUsage      *self);

G_END_DECLS
