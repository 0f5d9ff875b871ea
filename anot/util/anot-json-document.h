/* anot-json-document.h: a parsed, read-only JSON text
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

/**
 * AnotJsonKind:
 * @ANOT_JSON_KIND_NONE: no value: the index given was -1 (a member or
 *   element that does not exist) or out of range
 * @ANOT_JSON_KIND_NULL: `null`
 * @ANOT_JSON_KIND_BOOLEAN: `true` or `false`
 * @ANOT_JSON_KIND_INTEGER: a number without fraction or exponent that fits
 *   in 64 bits
 * @ANOT_JSON_KIND_DOUBLE: any other number
 * @ANOT_JSON_KIND_STRING: a string
 * @ANOT_JSON_KIND_ARRAY: an array
 * @ANOT_JSON_KIND_OBJECT: an object
 *
 * The kind of a value in an [struct@Anot.JsonDocument].
 */
typedef enum {
  ANOT_JSON_KIND_NONE,
  ANOT_JSON_KIND_NULL,
  ANOT_JSON_KIND_BOOLEAN,
  ANOT_JSON_KIND_INTEGER,
  ANOT_JSON_KIND_DOUBLE,
  ANOT_JSON_KIND_STRING,
  ANOT_JSON_KIND_ARRAY,
  ANOT_JSON_KIND_OBJECT,
} AnotJsonKind;

#define ANOT_TYPE_JSON_DOCUMENT (anot_json_document_get_type ())

typedef struct _AnotJsonDocument AnotJsonDocument;

ANOT_AVAILABLE_IN_ALL
GType             anot_json_document_get_type       (void) G_GNUC_CONST;

ANOT_AVAILABLE_IN_ALL
AnotJsonDocument *anot_json_document_new_from_bytes (GBytes            *bytes,
                                                     GError           **error);
ANOT_AVAILABLE_IN_ALL
AnotJsonDocument *anot_json_document_new_from_data  (const char        *data,
                                                     gssize             length,
                                                     GError           **error);
ANOT_AVAILABLE_IN_ALL
AnotJsonDocument *anot_json_document_ref            (AnotJsonDocument  *self);
ANOT_AVAILABLE_IN_ALL
void              anot_json_document_unref          (AnotJsonDocument  *self);

ANOT_AVAILABLE_IN_ALL
AnotJsonKind      anot_json_document_get_kind       (AnotJsonDocument  *self,
                                                     int                value);
ANOT_AVAILABLE_IN_ALL
guint             anot_json_document_get_size       (AnotJsonDocument  *self,
                                                     int                value);
ANOT_AVAILABLE_IN_ALL
int               anot_json_document_get_member     (AnotJsonDocument  *self,
                                                     int                object,
                                                     const char        *name);
ANOT_AVAILABLE_IN_ALL
int               anot_json_document_get_element    (AnotJsonDocument  *self,
                                                     int                array,
                                                     guint              index);
ANOT_AVAILABLE_IN_ALL
int               anot_json_document_get_path       (AnotJsonDocument  *self,
                                                     int                value,
                                                     const char        *path);

ANOT_AVAILABLE_IN_ALL
char             *anot_json_document_dup_string     (AnotJsonDocument  *self,
                                                     int                value);
ANOT_AVAILABLE_IN_ALL
gboolean          anot_json_document_string_equal   (AnotJsonDocument  *self,
                                                     int                value,
                                                     const char        *text);
ANOT_AVAILABLE_IN_ALL
gint64            anot_json_document_get_int        (AnotJsonDocument  *self,
                                                     int                value,
                                                     gint64             fallback);
ANOT_AVAILABLE_IN_ALL
guint64           anot_json_document_get_uint       (AnotJsonDocument  *self,
                                                     int                value,
                                                     guint64            fallback);
ANOT_AVAILABLE_IN_ALL
double            anot_json_document_get_double     (AnotJsonDocument  *self,
                                                     int                value,
                                                     double             fallback);
ANOT_AVAILABLE_IN_ALL
gboolean          anot_json_document_get_boolean    (AnotJsonDocument  *self,
                                                     int                value,
                                                     gboolean           fallback);
ANOT_AVAILABLE_IN_ALL
JsonNode         *anot_json_document_dup_node       (AnotJsonDocument  *self,
                                                     int                value);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (AnotJsonDocument, anot_json_document_unref)

G_END_DECLS
