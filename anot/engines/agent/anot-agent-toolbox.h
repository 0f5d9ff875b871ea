/* anot-agent-toolbox.h
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#if !defined(ANOT_INSIDE) && !defined(ANOT_COMPILATION)
#error "Only <anot/anot.h> can be included directly."
#endif

#include <glib-object.h>
#include <json-glib/json-glib.h>

#include "anot-agent-action.h"
#include "anot-parse.h"
#include "anot-tool.h"

G_BEGIN_DECLS

/**
 * ANOT_AGENT_TOOLBOX_DEFAULT_MAX_OBSERVATION_CHARS:
 *
 * The default of [property@Anot.AgentToolbox:max-observation-chars].
 */
#define ANOT_AGENT_TOOLBOX_DEFAULT_MAX_OBSERVATION_CHARS 2000

#define ANOT_TYPE_AGENT_TOOLBOX (anot_agent_toolbox_get_type ())
G_DECLARE_FINAL_TYPE (AnotAgentToolbox, anot_agent_toolbox, ANOT, AGENT_TOOLBOX, GObject)

AnotAgentToolbox *anot_agent_toolbox_new                       (GPtrArray         *candidates);
GPtrArray        *anot_agent_toolbox_get_candidates            (AnotAgentToolbox  *self);
JsonNode         *anot_agent_toolbox_get_data                  (AnotAgentToolbox  *self);
void              anot_agent_toolbox_add_tool                  (AnotAgentToolbox  *self,
                                                                AnotTool          *tool,
                                                                const char        *signature);
AnotTool         *anot_agent_toolbox_lookup_tool               (AnotAgentToolbox  *self,
                                                                const char        *name);
char            **anot_agent_toolbox_list_actions              (AnotAgentToolbox  *self);
char             *anot_agent_toolbox_describe                  (AnotAgentToolbox  *self);
guint             anot_agent_toolbox_get_max_observation_chars (AnotAgentToolbox  *self);
void              anot_agent_toolbox_set_max_observation_chars (AnotAgentToolbox  *self,
                                                                guint              max_chars);
guint             anot_agent_toolbox_get_n_executed            (AnotAgentToolbox  *self);
char             *anot_agent_toolbox_execute                   (AnotAgentToolbox  *self,
                                                                AnotAgentAction   *action,
                                                                AnotParseResult  **out_answer);

G_END_DECLS
