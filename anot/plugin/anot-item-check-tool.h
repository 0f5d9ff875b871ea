/* anot-item-check-tool.h
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

#define ANOT_TYPE_ITEM_CHECK_TOOL (anot_item_check_tool_get_type ())
G_DECLARE_FINAL_TYPE (AnotItemCheckTool, anot_item_check_tool, ANOT, ITEM_CHECK_TOOL, GObject)

AnotItemCheckTool *anot_item_check_tool_new                  (JsonNode          *data);
JsonNode          *anot_item_check_tool_get_data             (AnotItemCheckTool *self);
void               anot_item_check_tool_set_data             (AnotItemCheckTool *self,
                                                              JsonNode          *data);
guint              anot_item_check_tool_get_max_value_length (AnotItemCheckTool *self);
void               anot_item_check_tool_set_max_value_length (AnotItemCheckTool *self,
                                                              guint              max_value_length);

G_END_DECLS
