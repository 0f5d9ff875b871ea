/* anot-item-check-tool.h
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

#define ANOT_TYPE_ITEM_CHECK_TOOL (anot_item_check_tool_get_type ())
ANOT_AVAILABLE_IN_ALL
G_DECLARE_FINAL_TYPE (AnotItemCheckTool, anot_item_check_tool, ANOT, ITEM_CHECK_TOOL, GObject)

ANOT_AVAILABLE_IN_ALL
AnotItemCheckTool *anot_item_check_tool_new                  (JsonNode          *data);
ANOT_AVAILABLE_IN_ALL
JsonNode          *anot_item_check_tool_get_data             (AnotItemCheckTool *self);
ANOT_AVAILABLE_IN_ALL
void               anot_item_check_tool_set_data             (AnotItemCheckTool *self,
                                                              JsonNode          *data);
ANOT_AVAILABLE_IN_ALL
guint              anot_item_check_tool_get_max_value_length (AnotItemCheckTool *self);
ANOT_AVAILABLE_IN_ALL
void               anot_item_check_tool_set_max_value_length (AnotItemCheckTool *self,
                                                              guint              max_value_length);

G_END_DECLS
