/* anot-data-path.h
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

#define ANOT_TYPE_DATA_PATH (anot_data_path_get_type ())
ANOT_AVAILABLE_IN_ALL
G_DECLARE_FINAL_TYPE (AnotDataPath, anot_data_path, ANOT, DATA_PATH, GObject)

ANOT_AVAILABLE_IN_ALL
AnotDataPath *anot_data_path_parse          (const char    *text,
                                             GError       **error);
ANOT_AVAILABLE_IN_ALL
const char   *anot_data_path_get_text       (AnotDataPath  *self);
ANOT_AVAILABLE_IN_ALL
guint         anot_data_path_get_n_segments (AnotDataPath  *self);
ANOT_AVAILABLE_IN_ALL
gboolean      anot_data_path_has_wildcard   (AnotDataPath  *self);
ANOT_AVAILABLE_IN_ALL
char         *anot_data_path_to_string      (AnotDataPath  *self);
ANOT_AVAILABLE_IN_ALL
gboolean      anot_data_path_key_is_bare    (const char    *key);
ANOT_AVAILABLE_IN_ALL
GPtrArray    *anot_data_path_resolve        (AnotDataPath  *self,
                                             JsonNode      *root,
                                             GStrv         *out_paths,
                                             GError       **error);

G_END_DECLS
