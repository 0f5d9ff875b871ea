/* anot-json-private.h: fast JSON reading and writing of json-glib trees
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <json-glib/json-glib.h>

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

G_END_DECLS
