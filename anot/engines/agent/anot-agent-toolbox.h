/* anot-agent-toolbox.h
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
ANOT_AVAILABLE_IN_ALL
G_DECLARE_FINAL_TYPE (AnotAgentToolbox, anot_agent_toolbox, ANOT, AGENT_TOOLBOX, GObject)

ANOT_AVAILABLE_IN_ALL
AnotAgentToolbox *anot_agent_toolbox_new                       (GPtrArray         *candidates);
ANOT_AVAILABLE_IN_ALL
GPtrArray        *anot_agent_toolbox_get_candidates            (AnotAgentToolbox  *self);
ANOT_AVAILABLE_IN_ALL
JsonNode         *anot_agent_toolbox_get_data                  (AnotAgentToolbox  *self);
ANOT_AVAILABLE_IN_ALL
void              anot_agent_toolbox_add_tool                  (AnotAgentToolbox  *self,
                                                                AnotTool          *tool,
                                                                const char        *signature);
ANOT_AVAILABLE_IN_ALL
AnotTool         *anot_agent_toolbox_lookup_tool               (AnotAgentToolbox  *self,
                                                                const char        *name);
ANOT_AVAILABLE_IN_ALL
char            **anot_agent_toolbox_list_actions              (AnotAgentToolbox  *self);
ANOT_AVAILABLE_IN_ALL
char             *anot_agent_toolbox_describe                  (AnotAgentToolbox  *self);
ANOT_AVAILABLE_IN_ALL
guint             anot_agent_toolbox_get_max_observation_chars (AnotAgentToolbox  *self);
ANOT_AVAILABLE_IN_ALL
void              anot_agent_toolbox_set_max_observation_chars (AnotAgentToolbox  *self,
                                                                guint              max_chars);
ANOT_AVAILABLE_IN_ALL
guint             anot_agent_toolbox_get_n_executed            (AnotAgentToolbox  *self);
ANOT_AVAILABLE_IN_ALL
char             *anot_agent_toolbox_execute                   (AnotAgentToolbox  *self,
                                                                AnotAgentAction   *action,
                                                                AnotParseResult  **out_answer);

G_END_DECLS
