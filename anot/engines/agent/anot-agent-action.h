/* anot-agent-action.h
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
 * ANOT_AGENT_FINISH:
 *
 * The name of the action that ends an agent's trajectory with its
 * answer: `finish("3, 1, 5")`.
 */
#define ANOT_AGENT_FINISH "finish"

#define ANOT_TYPE_AGENT_ACTION (anot_agent_action_get_type ())
ANOT_AVAILABLE_IN_ALL
G_DECLARE_FINAL_TYPE (AnotAgentAction, anot_agent_action, ANOT, AGENT_ACTION, GObject)

ANOT_AVAILABLE_IN_ALL
AnotAgentAction *anot_agent_action_new                 (const char       *tool,
                                                        JsonArray        *arguments);
ANOT_AVAILABLE_IN_ALL
AnotAgentAction *anot_agent_action_parse               (const char       *text,
                                                        GError          **error);
ANOT_AVAILABLE_IN_ALL
AnotAgentAction *anot_agent_action_parse_reply         (const char       *reply,
                                                        char            **out_thought,
                                                        GError          **error);
ANOT_AVAILABLE_IN_ALL
const char      *anot_agent_action_get_tool            (AnotAgentAction  *self);
ANOT_AVAILABLE_IN_ALL
gboolean         anot_agent_action_is_finish           (AnotAgentAction  *self);
ANOT_AVAILABLE_IN_ALL
guint            anot_agent_action_get_n_arguments     (AnotAgentAction  *self);
ANOT_AVAILABLE_IN_ALL
JsonNode        *anot_agent_action_get_argument        (AnotAgentAction  *self,
                                                        guint             index);
ANOT_AVAILABLE_IN_ALL
char            *anot_agent_action_dup_argument_text   (AnotAgentAction  *self,
                                                        guint             index);
ANOT_AVAILABLE_IN_ALL
JsonNode        *anot_agent_action_get_arguments       (AnotAgentAction  *self);
ANOT_AVAILABLE_IN_ALL
char            *anot_agent_action_to_string           (AnotAgentAction  *self);

ANOT_AVAILABLE_IN_ALL
char            *anot_agent_format_step                (const char       *thought,
                                                        const char       *action,
                                                        const char       *observation);

G_END_DECLS
