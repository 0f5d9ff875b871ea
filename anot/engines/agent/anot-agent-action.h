/* anot-agent-action.h
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#if !defined(ANOT_INSIDE) && !defined(ANOT_COMPILATION)
#error "Only <anot/anot.h> can be included directly."
#endif

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
G_DECLARE_FINAL_TYPE (AnotAgentAction, anot_agent_action, ANOT, AGENT_ACTION, GObject)

AnotAgentAction *anot_agent_action_new                 (const char       *tool,
                                                        JsonArray        *arguments);
AnotAgentAction *anot_agent_action_parse               (const char       *text,
                                                        GError          **error);
AnotAgentAction *anot_agent_action_parse_reply         (const char       *reply,
                                                        char            **out_thought,
                                                        GError          **error);
const char      *anot_agent_action_get_tool            (AnotAgentAction  *self);
gboolean         anot_agent_action_is_finish           (AnotAgentAction  *self);
guint            anot_agent_action_get_n_arguments     (AnotAgentAction  *self);
JsonNode        *anot_agent_action_get_argument        (AnotAgentAction  *self,
                                                        guint             index);
char            *anot_agent_action_dup_argument_text   (AnotAgentAction  *self,
                                                        guint             index);
JsonNode        *anot_agent_action_get_arguments       (AnotAgentAction  *self);
char            *anot_agent_action_to_string           (AnotAgentAction  *self);

char            *anot_agent_format_step                (const char       *thought,
                                                        const char       *action,
                                                        const char       *observation);

G_END_DECLS
