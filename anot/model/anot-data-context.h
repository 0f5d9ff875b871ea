/* anot-data-context.h
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

#include "anot-item.h"

G_BEGIN_DECLS

ANOT_AVAILABLE_IN_ALL
JsonNode *anot_data_context_new      (GPtrArray *candidates);
ANOT_AVAILABLE_IN_ALL
JsonNode *anot_data_context_new_item (AnotItem  *item,
                                      guint      index);
ANOT_AVAILABLE_IN_ALL
JsonNode *anot_data_context_dup_item_member (AnotItem   *item,
                                             const char *name);
ANOT_AVAILABLE_IN_ALL
char     *anot_json_value_to_text    (JsonNode  *node);

G_END_DECLS
