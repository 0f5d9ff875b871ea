/* anot-usage.h
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

#include "anot-completion.h"

G_BEGIN_DECLS

#define ANOT_TYPE_USAGE (anot_usage_get_type ())
ANOT_AVAILABLE_IN_ALL
G_DECLARE_FINAL_TYPE (AnotUsage, anot_usage, ANOT, USAGE, GObject)

ANOT_AVAILABLE_IN_ALL
AnotUsage *anot_usage_new                      (void);
ANOT_AVAILABLE_IN_ALL
void       anot_usage_add_completion           (AnotUsage      *self,
                                                AnotCompletion *completion);
ANOT_AVAILABLE_IN_ALL
void       anot_usage_merge                    (AnotUsage      *self,
                                                AnotUsage      *other);
ANOT_AVAILABLE_IN_ALL
guint64    anot_usage_get_calls                (AnotUsage      *self);
ANOT_AVAILABLE_IN_ALL
guint64    anot_usage_get_prompt_tokens        (AnotUsage      *self);
ANOT_AVAILABLE_IN_ALL
guint64    anot_usage_get_completion_tokens    (AnotUsage      *self);
ANOT_AVAILABLE_IN_ALL
double     anot_usage_get_cost_usd             (AnotUsage      *self);
ANOT_AVAILABLE_IN_ALL
guint64    anot_usage_get_unpriced_calls       (AnotUsage      *self);
ANOT_AVAILABLE_IN_ALL
gboolean   anot_usage_get_cost_known           (AnotUsage      *self);
ANOT_AVAILABLE_IN_ALL
double     anot_usage_get_latency_ms           (AnotUsage      *self);
ANOT_AVAILABLE_IN_ALL
guint64    anot_usage_get_retries              (AnotUsage      *self);
ANOT_AVAILABLE_IN_ALL
guint64    anot_usage_get_cancelled_calls      (AnotUsage      *self);
ANOT_AVAILABLE_IN_ALL
double     anot_usage_get_cancelled_cost_usd   (AnotUsage      *self);
ANOT_AVAILABLE_IN_ALL
char     **anot_usage_list_roles               (AnotUsage      *self);
ANOT_AVAILABLE_IN_ALL
AnotUsage *anot_usage_dup_role_usage           (AnotUsage      *self,
                                                const char     *role);
ANOT_AVAILABLE_IN_ALL
JsonNode  *anot_usage_to_json                  (AnotUsage      *self);

G_END_DECLS
