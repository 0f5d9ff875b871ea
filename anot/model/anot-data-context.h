/* anot-data-context.h
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#if !defined(ANOT_INSIDE) && !defined(ANOT_COMPILATION)
#error "Only <anot/anot.h> can be included directly."
#endif

#include <glib-object.h>
#include <json-glib/json-glib.h>

#include "anot-item.h"

G_BEGIN_DECLS

JsonNode *anot_data_context_new      (GPtrArray *candidates);
JsonNode *anot_data_context_new_item (AnotItem  *item,
                                      guint      index);
char     *anot_json_value_to_text    (JsonNode  *node);

G_END_DECLS
