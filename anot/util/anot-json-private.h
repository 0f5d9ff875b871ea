/* anot-json-private.h: fast JSON reading and writing of json-glib trees
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <json-glib/json-glib.h>

#include "anot-json-document.h"

G_BEGIN_DECLS

/* Parses one JSON document (RFC 8259: objects, arrays, strings with every
 * escape, numbers, true, false, null; surrounding whitespace) into a
 * JsonNode tree, as json_parser_load_from_data() would, several times
 * faster: LLM answers are parsed once per call.  Integers that fit in 64
 * bits are G_TYPE_INT64 values, other numbers doubles; a repeated object
 * member keeps the last value.  Returns NULL (and sets @error, in the
 * JSON_PARSER_ERROR domain) for anything else, including nesting deeper
 * than 512 levels and invalid UTF-8. */
JsonNode *anot_json_parse  (const char  *data,
                            gsize        length,
                            GError     **error);

/* Appends the compact JSON text of @node to @out, as json_to_string (node,
 * FALSE) would (member order kept, doubles with 17 significant digits). */
void      anot_json_write  (GString     *out,
                            JsonNode    *node);

/* AnotJsonWriter's serialisation of a tree, into any GString. */
void      anot_json_writer_write_node (GString  *out,
                                       JsonNode *node);

/* For readers of many small texts (a JSON Lines file): one document
 * parsed again and again, its value array reused, the text borrowed (it
 * must outlive the document's use until the next reparse). */
AnotJsonDocument *_anot_json_document_new_reusable (void);
/* Parses @data into @self; on error, @error is set as by
 * anot_json_document_new_from_bytes() and *@error_offset is the byte the
 * parser stopped at. */
gboolean          _anot_json_document_reparse      (AnotJsonDocument  *self,
                                                    const char        *data,
                                                    gsize              length,
                                                    gsize             *error_offset,
                                                    GError           **error);
/* The member @name of @object as json-glib reads it: a repeated member
 * gives its last value. */
int               _anot_json_document_get_last_member (AnotJsonDocument *self,
                                                       int               object,
                                                       const char       *name,
                                                       gsize             length);
/* _anot_json_document_get_last_member() for each of @names (at most 32)
 * in one pass over @object's members: @out[i] is the value of @names[i],
 * or -1. */
void              _anot_json_document_find_members (AnotJsonDocument   *self,
                                                    int                 object,
                                                    const char * const *names,
                                                    guint               n_names,
                                                    int                *out);
/* The index after @value's subtree: the next element of an array, the
 * next member's name in an object. */
int               _anot_json_document_get_next     (AnotJsonDocument  *self,
                                                    int                value);
/* Strings: the bytes between the quotes; numbers: their text's length. */
gsize             _anot_json_document_get_raw_length (AnotJsonDocument *self,
                                                      int               value);
/* Decodes the string @value into @out, which has room for its raw length
 * + 1, nul-terminated; returns the decoded length. */
gsize             _anot_json_document_decode_string (AnotJsonDocument *self,
                                                     int               value,
                                                     char             *out);
/* Appends the compact JSON text of @value to @out: strings and numbers
 * as the document's text has them, no whitespace. */
void              _anot_json_document_write_value  (AnotJsonDocument  *self,
                                                    int                value,
                                                    GString           *out);

G_END_DECLS
