/* anot-tool.c: the tool interface
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "anot-tool.h"

/**
 * AnotTool:
 *
 * A tool a method, or the model it drives, can call: a name, a description,
 * a JSON schema of its arguments and an invocation from JSON to JSON.
 *
 * Tools are registered with the `anot-tool` extension point.  A tool must
 * treat its arguments as untrusted: a bad argument is an error result the
 * model can read, never a crash.
 */

G_DEFINE_INTERFACE (AnotTool, anot_tool, G_TYPE_OBJECT)

static void
anot_tool_default_init (AnotToolInterface *iface)
{
}

/**
 * anot_tool_get_name:
 * @self: an #AnotTool
 *
 * Returns: the name the tool is called by
 */
const char *
anot_tool_get_name (AnotTool *self)
{
  g_return_val_if_fail (ANOT_IS_TOOL (self), NULL);
  g_return_val_if_fail (ANOT_TOOL_GET_IFACE (self)->get_name != NULL, NULL);
  return ANOT_TOOL_GET_IFACE (self)->get_name (self);
}

/**
 * anot_tool_get_description:
 * @self: an #AnotTool
 *
 * Returns: one line describing what the tool does
 */
const char *
anot_tool_get_description (AnotTool *self)
{
  g_return_val_if_fail (ANOT_IS_TOOL (self), NULL);
  g_return_val_if_fail (ANOT_TOOL_GET_IFACE (self)->get_description != NULL, NULL);
  return ANOT_TOOL_GET_IFACE (self)->get_description (self);
}

/**
 * anot_tool_get_schema:
 * @self: an #AnotTool
 *
 * Returns: (transfer full): the JSON schema of the tool's arguments
 */
JsonNode *
anot_tool_get_schema (AnotTool *self)
{
  g_return_val_if_fail (ANOT_IS_TOOL (self), NULL);
  g_return_val_if_fail (ANOT_TOOL_GET_IFACE (self)->get_schema != NULL, NULL);
  return ANOT_TOOL_GET_IFACE (self)->get_schema (self);
}

/**
 * anot_tool_invoke:
 * @self: an #AnotTool
 * @args: the arguments, matching the tool's schema
 * @error: return location for a #GError
 *
 * Runs the tool.
 *
 * Returns: (transfer full): the result, or %NULL on error
 */
JsonNode *
anot_tool_invoke (AnotTool  *self,
                  JsonNode  *args,
                  GError   **error)
{
  g_return_val_if_fail (ANOT_IS_TOOL (self), NULL);
  g_return_val_if_fail (args != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);
  g_return_val_if_fail (ANOT_TOOL_GET_IFACE (self)->invoke != NULL, NULL);
  return ANOT_TOOL_GET_IFACE (self)->invoke (self, args, error);
}
