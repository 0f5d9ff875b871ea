/* anot-method-settings.h
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

#include "anot-method-context.h"

G_BEGIN_DECLS

#define ANOT_TYPE_METHOD_SETTINGS (anot_method_settings_get_type ())
ANOT_AVAILABLE_IN_ALL
G_DECLARE_FINAL_TYPE (AnotMethodSettings, anot_method_settings, ANOT, METHOD_SETTINGS, GObject)

ANOT_AVAILABLE_IN_ALL
AnotMethodSettings *anot_method_settings_new               (const char          *method);
ANOT_AVAILABLE_IN_ALL
const char         *anot_method_settings_get_method        (AnotMethodSettings  *self);
ANOT_AVAILABLE_IN_ALL
void                anot_method_settings_set_environment   (AnotMethodSettings  *self,
                                                            const char * const  *envp);
ANOT_AVAILABLE_IN_ALL
gboolean            anot_method_settings_load_file         (AnotMethodSettings  *self,
                                                            const char          *path,
                                                            GError             **error);
ANOT_AVAILABLE_IN_ALL
gboolean            anot_method_settings_load_default_file (AnotMethodSettings  *self,
                                                            GError             **error);
ANOT_AVAILABLE_IN_ALL
gboolean            anot_method_settings_load_for_context  (AnotMethodSettings  *self,
                                                            AnotMethodContext   *context,
                                                            GError             **error);
ANOT_AVAILABLE_IN_ALL
char               *anot_method_settings_lookup            (AnotMethodSettings  *self,
                                                            AnotMethodContext   *context,
                                                            const char          *key,
                                                            char               **out_source);
ANOT_AVAILABLE_IN_ALL
gboolean            anot_method_settings_get_uint          (AnotMethodSettings  *self,
                                                            AnotMethodContext   *context,
                                                            const char          *key,
                                                            guint                default_value,
                                                            guint                min_value,
                                                            guint                max_value,
                                                            guint               *out_value,
                                                            GError             **error);
ANOT_AVAILABLE_IN_ALL
gboolean            anot_method_settings_get_int           (AnotMethodSettings  *self,
                                                            AnotMethodContext   *context,
                                                            const char          *key,
                                                            gint64               default_value,
                                                            gint64               min_value,
                                                            gint64               max_value,
                                                            gint64              *out_value,
                                                            GError             **error);
ANOT_AVAILABLE_IN_ALL
gboolean            anot_method_settings_get_double        (AnotMethodSettings  *self,
                                                            AnotMethodContext   *context,
                                                            const char          *key,
                                                            double               default_value,
                                                            double               min_value,
                                                            double               max_value,
                                                            double              *out_value,
                                                            GError             **error);
ANOT_AVAILABLE_IN_ALL
gboolean            anot_method_settings_get_boolean       (AnotMethodSettings  *self,
                                                            AnotMethodContext   *context,
                                                            const char          *key,
                                                            gboolean             default_value,
                                                            gboolean            *out_value,
                                                            GError             **error);
ANOT_AVAILABLE_IN_ALL
gboolean            anot_method_settings_get_choice        (AnotMethodSettings  *self,
                                                            AnotMethodContext   *context,
                                                            const char          *key,
                                                            const char * const  *choices,
                                                            guint                default_index,
                                                            guint               *out_index,
                                                            GError             **error);
ANOT_AVAILABLE_IN_ALL
char               *anot_method_settings_get_string        (AnotMethodSettings  *self,
                                                            AnotMethodContext   *context,
                                                            const char          *key);
ANOT_AVAILABLE_IN_ALL
JsonNode           *anot_method_settings_to_json           (AnotMethodSettings  *self);

G_END_DECLS
