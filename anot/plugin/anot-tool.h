/* anot-tool.h
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

#define ANOT_TYPE_TOOL (anot_tool_get_type ())
ANOT_AVAILABLE_IN_ALL
G_DECLARE_INTERFACE (AnotTool, anot_tool, ANOT, TOOL, GObject)

/**
 * AnotToolInterface:
 * @get_name: the name a model calls the tool by
 * @get_description: one line describing what the tool does
 * @get_schema: JSON schema of the tool's arguments
 * @invoke: run the tool
 *
 * The interface of a tool a method (or the model it drives) can call.
 */
struct _AnotToolInterface
{
  GTypeInterface g_iface;

  const char *(*get_name)        (AnotTool  *self);
  const char *(*get_description) (AnotTool  *self);
  JsonNode   *(*get_schema)      (AnotTool  *self);
  JsonNode   *(*invoke)          (AnotTool  *self,
                                  JsonNode  *args,
                                  GError   **error);

  /*< private >*/
  gpointer padding[8];
};

ANOT_AVAILABLE_IN_ALL
const char *anot_tool_get_name        (AnotTool  *self);
ANOT_AVAILABLE_IN_ALL
const char *anot_tool_get_description (AnotTool  *self);
ANOT_AVAILABLE_IN_ALL
JsonNode   *anot_tool_get_schema      (AnotTool  *self);
ANOT_AVAILABLE_IN_ALL
JsonNode   *anot_tool_invoke          (AnotTool  *self,
                                       JsonNode  *args,
                                       GError   **error);

G_END_DECLS
