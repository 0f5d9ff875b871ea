/* anot-json-private.h: fast JSON reading and writing of json-glib trees
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <json-glib/json-glib.h>

#include "anot-json-document.h"
#include "anot-json-writer.h"

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

/* anot_json_document_new_from_bytes() for a model's answer: RFC 8259
 * allows `\u0000` and lone surrogate escapes, which models emit and C
 * strings and UTF-8 cannot hold; they decode as U+FFFD, and
 * _anot_json_document_get_n_replaced() says how many there were.
 * Dataset files keep the strict parse. */
AnotJsonDocument *_anot_json_document_new_lenient    (GBytes            *bytes,
                                                      GError           **error);
guint             _anot_json_document_get_n_replaced (AnotJsonDocument  *self);

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
/* The bytes of the string @value: in the text itself when it has no
 * escape (not NUL-terminated there), else decoded into @buffer (@size
 * bytes) or, when longer, into *@heap, which the caller frees.  Sets
 * *@length.  For a lookup of the string, not a copy to keep. */
const char       *_anot_json_document_peek_string  (AnotJsonDocument  *self,
                                                    int                value,
                                                    char              *buffer,
                                                    gsize              size,
                                                    char             **heap,
                                                    gsize             *length);

/* A member name and its length, known at compile time. */
typedef struct {
  const char *name;
  gsize       length;
} AnotJsonName;

#define ANOT_JSON_NAME(literal) { "" literal, sizeof (literal) - 1 }

/* _anot_json_document_get_last_member() for each of @names
 * in one pass over @object's members: @out[i] is the value of @names[i],
 * or -1.  Each member is compared first with the name after the last one
 * found, so list @names in the order records usually have them. */
void              _anot_json_document_find_members (AnotJsonDocument   *self,
                                                    int                 object,
                                                    const AnotJsonName *names,
                                                    guint               n_names,
                                                    int                *out);
/* The index after @value's subtree: the next element of an array, the
 * next member's name in an object. */
int               _anot_json_document_get_next     (AnotJsonDocument  *self,
                                                    int                value);
/* Strings: the bytes between the quotes; numbers: their text's length. */
gsize             _anot_json_document_get_raw_length (AnotJsonDocument *self,
                                                      int               value);
/* One value of a document, in document order: a container is followed by
 * its members (name, value, name, value...) or elements, and @next is the
 * index after its subtree.  Exposed for readers that walk a whole
 * document (binding extractions to expression values), where the checked
 * accessors' cost per value adds up; the others use the public API. */
typedef struct
{
  guint8 kind;               /* AnotJsonKind */
  guint8 escaped;            /* a string with a backslash in it */
  guint32 start;             /* strings: after the quote; others: first byte */
  guint32 length;            /* strings: raw bytes between the quotes; numbers: bytes */
  guint32 size;              /* containers: members or elements */
  guint32 next;              /* the index after this value's subtree */
} AnotJsonToken;

/* The value records of @self (*@n_tokens of them, 0 the root) and the
 * text their offsets are into; valid until it is parsed again or freed. */
const AnotJsonToken *_anot_json_document_get_tokens (AnotJsonDocument  *self,
                                                     const char       **text,
                                                     guint             *n_tokens);
/* The numbers of an %ANOT_JSON_KIND_INTEGER or %ANOT_JSON_KIND_DOUBLE
 * record, as anot_json_document_get_int() and _get_double() read them. */
gint64            _anot_json_token_get_int         (AnotJsonDocument    *self,
                                                    const AnotJsonToken *token);
double            _anot_json_token_get_double      (AnotJsonDocument    *self,
                                                    const AnotJsonToken *token);
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

#define ANOT_JSON_ONES  G_GUINT64_CONSTANT (0x0101010101010101)
#define ANOT_JSON_HIGHS G_GUINT64_CONSTANT (0x8080808080808080)

/* The high bit of each of the 8 bytes of @w that is a quote, a
 * backslash, a control character or not ASCII (the bytes a string's scan
 * must look at), and possibly of bytes after the first such one (a borrow
 * carries into the next byte): the lowest bit set is exact.  Review texts
 * are hundreds of plain bytes, so they are stepped over 8 at a time. */
static inline guint64
_anot_json_word_needs_look (guint64 w)
{
  guint64 quote = w ^ (ANOT_JSON_ONES * '"');
  guint64 backslash = w ^ (ANOT_JSON_ONES * '\\');

  return (((quote - ANOT_JSON_ONES) & ~quote) |
          ((backslash - ANOT_JSON_ONES) & ~backslash) |
          (w - ANOT_JSON_ONES * 0x20) |
          w) & ANOT_JSON_HIGHS;
}

AnotJsonWriter *_anot_json_writer_new_sized   (gsize           size);
char           *_anot_json_writer_steal_text (AnotJsonWriter *self,
                                              gsize          *length);

/* Names and strings written many times (a trace's): quoted once, as
 * the writer quotes them (@length: the bytes, quotes included), then
 * appended as they are.  Literals: "\"name\"", 6. */
char *_anot_json_writer_quote                   (const char     *text,
                                                 gsize          *length);
void  _anot_json_writer_set_quoted_member_name  (AnotJsonWriter *self,
                                                 const char     *quoted,
                                                 gsize           length);
void  _anot_json_writer_add_quoted_string_value (AnotJsonWriter *self,
                                                 const char     *quoted,
                                                 gsize           length);
#define _anot_json_writer_set_literal_member_name(self, literal) \
  _anot_json_writer_set_quoted_member_name ((self), "\"" literal "\"", sizeof literal + 1)

/* Numbers, for readers of JSON text other than AnotJsonDocument (the
 * same grammar, the same values). */
const char *_anot_json_scan_number      (const char  *p,
                                         const char  *end,
                                         gboolean    *is_integer,
                                         const char **bad);
double      _anot_json_number_to_double (const char  *p,
                                         gsize        length);
gint64      _anot_json_number_to_int    (const char  *p,
                                         gsize        length);

G_END_DECLS
