/* anot-json-writer.h: JSON text written as it is built
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

#define ANOT_TYPE_JSON_WRITER (anot_json_writer_get_type ())

typedef struct _AnotJsonWriter AnotJsonWriter;

GType           anot_json_writer_get_type         (void) G_GNUC_CONST;

AnotJsonWriter *anot_json_writer_new              (void);
void            anot_json_writer_free             (AnotJsonWriter *self);

void            anot_json_writer_begin_object     (AnotJsonWriter *self);
void            anot_json_writer_end_object       (AnotJsonWriter *self);
void            anot_json_writer_begin_array      (AnotJsonWriter *self);
void            anot_json_writer_end_array        (AnotJsonWriter *self);
void            anot_json_writer_set_member_name  (AnotJsonWriter *self,
                                                   const char     *name);
void            anot_json_writer_add_string_value (AnotJsonWriter *self,
                                                   const char     *value);
void            anot_json_writer_add_int_value    (AnotJsonWriter *self,
                                                   gint64          value);
void            anot_json_writer_add_double_value (AnotJsonWriter *self,
                                                   double          value);
void            anot_json_writer_add_boolean_value (AnotJsonWriter *self,
                                                    gboolean        value);
void            anot_json_writer_add_null_value   (AnotJsonWriter *self);
void            anot_json_writer_add_value        (AnotJsonWriter *self,
                                                   JsonNode       *node);

gboolean        anot_json_writer_is_complete      (AnotJsonWriter *self);
const char     *anot_json_writer_get_text         (AnotJsonWriter *self,
                                                   gsize          *length);
GBytes         *anot_json_writer_steal_bytes      (AnotJsonWriter *self);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (AnotJsonWriter, anot_json_writer_free)

G_END_DECLS
