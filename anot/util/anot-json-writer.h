/* anot-json-writer.h: JSON text written as it is built
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#if !defined(ANOT_INSIDE) && !defined(ANOT_COMPILATION)
#error "Only <anot/anot.h> can be included directly."
#endif

#include "anot-visibility.h"
#include "anot-json-document.h"

#include <glib-object.h>
#include <json-glib/json-glib.h>

G_BEGIN_DECLS

#define ANOT_TYPE_JSON_WRITER (anot_json_writer_get_type ())

typedef struct _AnotJsonWriter AnotJsonWriter;

ANOT_AVAILABLE_IN_ALL
GType           anot_json_writer_get_type         (void) G_GNUC_CONST;

ANOT_AVAILABLE_IN_ALL
AnotJsonWriter *anot_json_writer_new              (void);
ANOT_AVAILABLE_IN_ALL
void            anot_json_writer_free             (AnotJsonWriter *self);

ANOT_AVAILABLE_IN_ALL
void            anot_json_writer_begin_object     (AnotJsonWriter *self);
ANOT_AVAILABLE_IN_ALL
void            anot_json_writer_end_object       (AnotJsonWriter *self);
ANOT_AVAILABLE_IN_ALL
void            anot_json_writer_begin_array      (AnotJsonWriter *self);
ANOT_AVAILABLE_IN_ALL
void            anot_json_writer_end_array        (AnotJsonWriter *self);
ANOT_AVAILABLE_IN_ALL
void            anot_json_writer_set_member_name  (AnotJsonWriter *self,
                                                   const char     *name);
ANOT_AVAILABLE_IN_ALL
void            anot_json_writer_add_string_value (AnotJsonWriter *self,
                                                   const char     *value);
ANOT_AVAILABLE_IN_ALL
void            anot_json_writer_add_int_value    (AnotJsonWriter *self,
                                                   gint64          value);
ANOT_AVAILABLE_IN_ALL
void            anot_json_writer_add_double_value (AnotJsonWriter *self,
                                                   double          value);
ANOT_AVAILABLE_IN_ALL
void            anot_json_writer_add_boolean_value (AnotJsonWriter *self,
                                                    gboolean        value);
ANOT_AVAILABLE_IN_ALL
void            anot_json_writer_add_null_value   (AnotJsonWriter *self);
ANOT_AVAILABLE_IN_ALL
void            anot_json_writer_add_value        (AnotJsonWriter *self,
                                                   JsonNode       *node);
ANOT_AVAILABLE_IN_ALL
void            anot_json_writer_add_document_value (AnotJsonWriter   *self,
                                                     AnotJsonDocument *document,
                                                     int               value);

ANOT_AVAILABLE_IN_ALL
gboolean        anot_json_writer_is_complete      (AnotJsonWriter *self);
ANOT_AVAILABLE_IN_ALL
const char     *anot_json_writer_get_text         (AnotJsonWriter *self,
                                                   gsize          *length);
ANOT_AVAILABLE_IN_ALL
GBytes         *anot_json_writer_steal_bytes      (AnotJsonWriter *self);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (AnotJsonWriter, anot_json_writer_free)

G_END_DECLS
