/* anot-tool-private.h: helpers shared by the built-in tools and the agent toolbox
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <json-glib/json-glib.h>

#include "anot-item-check-tool.h"

G_BEGIN_DECLS

/* Replaces the example expression of `check`'s description. */
void       _anot_item_check_tool_set_example (AnotItemCheckTool *self,
                                              const char        *expression);

/* The items of a dict context ({"items": {"1": ..., "2": ...}}) in
 * numeric key order: (key, JsonObject*) pairs, borrowed.  NULL with a
 * message for the model when @data has no items object. */
typedef struct {
  const char *key;
  guint       number;
  JsonObject *item;
} AnotToolItem;

GArray    *_anot_tool_list_items      (JsonNode    *data,
                                        char       **out_message);

/* Which items an optional "item" argument selects: NULL (or JSON null)
 * selects them all; a number, a numeric string or a list of them selects
 * those.  Returns the filtered list, or NULL with a message. */
GArray    *_anot_tool_select_items    (GArray      *items,
                                        JsonNode    *selection,
                                        char       **out_message);

/* The positional or named arguments of a tool: a bare string is the
 * first one; an array gives them in order; an object by name.  Returns
 * borrowed nodes in @out (length n_names), NULL when absent; FALSE when
 * the arguments are neither. */
gboolean   _anot_tool_arguments  (JsonNode            *args,
                                        const char * const  *names,
                                        guint                n_names,
                                        JsonNode           **out);

/* Cuts @text after @max_chars characters, marking the cut. */
char      *_anot_tool_truncate        (const char  *text,
                                        guint        max_chars,
                                        const char  *mark);

JsonNode  *_anot_tool_object_node     (JsonObject  *object);

G_END_DECLS
