/* anot-data-tool.h
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

#include "anot-data-path.h"

G_BEGIN_DECLS

/**
 * ANOT_DATA_TOOL_DEFAULT_MAX_VALUE_LENGTH:
 *
 * The default of [property@Anot.DataTool:max-value-length]: values longer
 * than this many characters are cut.
 */
#define ANOT_DATA_TOOL_DEFAULT_MAX_VALUE_LENGTH 200

#define ANOT_TYPE_DATA_TOOL (anot_data_tool_get_type ())
ANOT_AVAILABLE_IN_ALL
G_DECLARE_DERIVABLE_TYPE (AnotDataTool, anot_data_tool, ANOT, DATA_TOOL, GObject)

/**
 * AnotDataToolClass:
 * @run: computes the tool's result for a parsed path; a path that does not
 *   fit the data is an error, which [method@Anot.Tool.invoke] turns into
 *   an error result
 *
 * The class of the data-exploration tools.
 */
struct _AnotDataToolClass
{
  GObjectClass parent_class;

  JsonNode *(*run) (AnotDataTool  *self,
                    AnotDataPath  *path,
                    JsonNode      *data,
                    GError       **error);

  /*< private >*/
  gpointer padding[8];
};

ANOT_AVAILABLE_IN_ALL
AnotDataTool *anot_data_tool_new                  (const char    *name,
                                                   JsonNode      *data);
ANOT_AVAILABLE_IN_ALL
JsonNode     *anot_data_tool_get_data             (AnotDataTool  *self);
ANOT_AVAILABLE_IN_ALL
void          anot_data_tool_set_data             (AnotDataTool  *self,
                                                   JsonNode      *data);
ANOT_AVAILABLE_IN_ALL
guint         anot_data_tool_get_max_value_length (AnotDataTool  *self);
ANOT_AVAILABLE_IN_ALL
void          anot_data_tool_set_max_value_length (AnotDataTool  *self,
                                                   guint          max_value_length);
ANOT_AVAILABLE_IN_ALL
guint         anot_data_tool_get_max_samples      (AnotDataTool  *self);
ANOT_AVAILABLE_IN_ALL
void          anot_data_tool_set_max_samples      (AnotDataTool  *self,
                                                   guint          max_samples);
ANOT_AVAILABLE_IN_ALL
JsonNode     *anot_data_tool_invoke_path          (AnotDataTool  *self,
                                                   const char    *path);
ANOT_AVAILABLE_IN_ALL
JsonNode     *anot_data_tool_truncate_value       (AnotDataTool  *self,
                                                   JsonNode      *value);

ANOT_AVAILABLE_IN_ALL
void          anot_data_tool_register_builtin     (void);
ANOT_AVAILABLE_IN_ALL
char        **anot_data_tool_list_builtin         (void);

ANOT_AVAILABLE_IN_ALL
JsonNode     *anot_tool_result_new_error          (const char    *message);
ANOT_AVAILABLE_IN_ALL
gboolean      anot_tool_result_is_error           (JsonNode      *result);
ANOT_AVAILABLE_IN_ALL
char         *anot_tool_result_to_text            (JsonNode      *result);

G_END_DECLS
