/* anot-pyliteral-private.h: Python values, literals and the two attribute
 * normalisation passes of the reference validator
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The gold labels of the benchmark were computed by a Python validator that
 * turns Yelp's Python-flavoured attribute strings ("u'free'", "{'romantic':
 * False}", "None") into Python objects and then compares their str() forms.
 * To reproduce every label, the validator works on a small model of those
 * Python objects: AnotPyValue.  See §5 of evidence.md (the benchmark spec).
 *
 * Deviations from CPython, none of which occur in any dataset we know of:
 * set, bytes, complex and Ellipsis literals are parse errors; a string
 * containing U+0000 or a lone surrogate is a parse error; hexadecimal, octal
 * and binary integers must fit in 64 bits; set/dict ordering follows
 * insertion order (as CPython dicts do).
 */
#pragma once

#if !defined(ANOT_COMPILATION)
#error "anot-pyliteral-private.h is private to libanot."
#endif

#include <glib.h>
#include <json-glib/json-glib.h>

G_BEGIN_DECLS

typedef enum {
  ANOT_PY_NONE,
  ANOT_PY_BOOL,
  ANOT_PY_INT,
  ANOT_PY_FLOAT,
  ANOT_PY_STR,
  ANOT_PY_LIST,
  ANOT_PY_TUPLE,
  ANOT_PY_DICT,
} AnotPyType;

/* An immutable (once built), atomically reference-counted Python value.
 * A dict keeps its keys in insertion order, like a CPython dict. */
typedef struct _AnotPyValue AnotPyValue;

AnotPyValue *anot_py_value_ref          (AnotPyValue *value);
void         anot_py_value_unref        (AnotPyValue *value);

AnotPyValue *anot_py_value_new_none     (void);
AnotPyValue *anot_py_value_new_bool     (gboolean     value);
AnotPyValue *anot_py_value_new_int      (gint64       value);
AnotPyValue *anot_py_value_new_float    (double       value);
AnotPyValue *anot_py_value_new_string   (const char  *str,
                                         gssize       len);
AnotPyValue *anot_py_value_new_list     (void);
AnotPyValue *anot_py_value_new_tuple    (void);
AnotPyValue *anot_py_value_new_dict     (void);

/* Builders, only while the value is private to its creator.  Both take
 * the references passed in.  dict_set replaces the value of an equal key,
 * keeping the key's first position (CPython semantics). */
void         anot_py_value_append       (AnotPyValue *seq,
                                         AnotPyValue *item);
void         anot_py_value_dict_set     (AnotPyValue *dict,
                                         AnotPyValue *key,
                                         AnotPyValue *value);

AnotPyType   anot_py_value_get_kind     (const AnotPyValue *value);
gboolean     anot_py_value_get_bool     (const AnotPyValue *value);
gint64       anot_py_value_get_int      (const AnotPyValue *value);
double       anot_py_value_get_float    (const AnotPyValue *value);
const char  *anot_py_value_get_string   (const AnotPyValue *value);
/* Number of items of a list, tuple or dict; 0 otherwise. */
guint        anot_py_value_get_length   (const AnotPyValue *value);
/* Items of a list or tuple, keys and values of a dict (borrowed). */
AnotPyValue *anot_py_value_get_item     (const AnotPyValue *value,
                                         guint              position);
AnotPyValue *anot_py_value_dict_get_key (const AnotPyValue *dict,
                                         guint              position);
/* Borrowed; NULL if absent or @dict is not a dict. */
AnotPyValue *anot_py_value_dict_lookup  (const AnotPyValue *dict,
                                         const AnotPyValue *key);
AnotPyValue *anot_py_value_dict_lookup_string (const AnotPyValue *dict,
                                               const char        *key);

/* isinstance(value, (int, float)) and not a bool; *out gets float(value). */
gboolean     anot_py_value_is_number    (const AnotPyValue *value,
                                         double            *out);
/* Python truthiness (bool(value)); NULL counts as None. */
gboolean     anot_py_value_truthy       (const AnotPyValue *value);
/* Python ==; NULL counts as None. */
gboolean     anot_py_value_equal        (const AnotPyValue *a,
                                         const AnotPyValue *b);

/* str(value) and repr(value); NULL counts as None. */
char        *anot_py_value_str          (const AnotPyValue *value);
JsonNode    *anot_py_value_to_json      (const AnotPyValue *value);
char        *anot_py_value_repr         (const AnotPyValue *value);
/* repr() of a value, of a float and of a string, appended to @out: the
 * pieces a writer of Python text needs without building values. */
void         anot_py_append_repr        (GString           *out,
                                         const AnotPyValue *value);
void         anot_py_append_float_repr  (GString           *out,
                                         double             x);
void         anot_py_append_str_repr    (GString           *out,
                                         const char        *str,
                                         gsize              len);
/* str(value).lower(), computed once and cached in @value (thread-safe).
 * Borrowed: valid as long as @value is. */
const char  *anot_py_value_get_lower_str (AnotPyValue *value);

/* json.loads() semantics: objects become dicts, arrays lists, integers ints,
 * other numbers floats.  A NULL node gives None. */
AnotPyValue *anot_py_value_new_from_json (JsonNode *node);

/* ast.literal_eval(text) for the subset described above. */
AnotPyValue *anot_py_literal_parse      (const char  *text,
                                         gssize       len,
                                         GError     **error);

/* Pass A: what the reference loader does to each attribute value. */
AnotPyValue *anot_py_normalise_pass_a   (AnotPyValue *value);
/* Pass B: what the reference validator does to a value when it reads it
 * (and to the expected values of leaves). */
AnotPyValue *anot_py_normalise_pass_b   (AnotPyValue *value);
/* Pass B of a value, computed once and cached in @value (thread-safe).
 * Borrowed: valid as long as @value is; may be @value itself. */
AnotPyValue *anot_py_value_get_pass_b   (AnotPyValue *value);

/* Python string helpers. */
char        *anot_py_lower              (const char  *str);
char        *anot_py_strip              (const char  *str,
                                         gsize        len);
/* int(str) and float(str) of a Python str: surrounding whitespace,
 * underscores between digits, Unicode decimal digits (int only). */
gboolean     anot_py_parse_int          (const char  *str,
                                         double      *out);
gboolean     anot_py_parse_float        (const char  *str,
                                         double      *out);
/* float(value) for any value: numbers, bools and numeric strings. */
gboolean     anot_py_value_to_float     (const AnotPyValue *value,
                                         double            *out);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (AnotPyValue, anot_py_value_unref)

G_END_DECLS
