/* anot-expr-value.c: the values of AnotExpr
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Python's equality, hashing, truthiness, str() and repr() for the kinds the
 * expression language has.  str() and repr() of floats and strings come from
 * the Python-literal module, which already matches CPython on them.
 */
#include "config.h"

#define ANOT_EXPR_IMPLEMENTATION

#include "anot-expr-private.h"

#include <math.h>
#include <string.h>

#include "anot-pyliteral-private.h"
#include "anot-json-private.h"
#include "anot-json-writer.h"

/* Dicts with more entries than this get a hash index. */
#define DICT_INDEX_MIN 8

/* ------------------------------------------------------------------------ *
 * Blocks
 * ------------------------------------------------------------------------ */

AnotExprValue
anot_expr_value_new_string (const char *str,
                            gssize      len)
{
  AnotExprStr *s;

  if (len < 0)
    len = strlen (str);
  s = g_malloc (sizeof (AnotExprStr) + len + 1);
  s->ref_count = 1;
  s->hash = 0;
  s->n_chars = -1;
  s->len = len;
  if (len > 0)
    memcpy (s->data, str, len);
  s->data[len] = '\0';
  return (AnotExprValue) { .kind = ANOT_EXPR_STR, .u.s = s };
}

AnotExprValue
anot_expr_value_take_string (char  *str,
                             gsize  len)
{
  AnotExprValue v = anot_expr_value_new_string (str, len);

  g_free (str);
  return v;
}

static AnotExprValue
new_seq (AnotExprKind kind,
         guint        reserve)
{
  AnotExprSeq *seq = g_new0 (AnotExprSeq, 1);

  seq->ref_count = 1;
  seq->alloc = MAX (reserve, 4);
  seq->items = g_new (AnotExprValue, seq->alloc);
  return (AnotExprValue) { .kind = kind, .u.seq = seq };
}

AnotExprValue
anot_expr_value_new_list (guint reserve)
{
  return new_seq (ANOT_EXPR_LIST, reserve);
}

AnotExprValue
anot_expr_value_new_tuple (guint reserve)
{
  return new_seq (ANOT_EXPR_TUPLE, reserve);
}

AnotExprValue
anot_expr_value_new_dict (void)
{
  AnotExprDict *d = g_new0 (AnotExprDict, 1);

  d->ref_count = 1;
  return (AnotExprValue) { .kind = ANOT_EXPR_DICT, .u.d = d };
}

/* Records read together (a list's) are carved out of shared blocks, one
 * allocation for a hundred of them: with glibc, allocating 50 records of
 * 200 bytes and freeing them together cost 400-odd instructions each, as
 * much as reading them.  A block is freed with the last of its records. */
struct _AnotExprSlab
{
  int ref_count;             /* its records, and its reader while it fills it */
  gsize used;
  gsize size;
};

#define SLAB_HEADER ((sizeof (AnotExprSlab) + 15) & ~(gsize) 15)
#define SLAB_SIZE   (16 * 1024)

static void
slab_unref (AnotExprSlab *slab)
{
  if (slab != NULL && --slab->ref_count == 0)
    g_free (slab);
}

/* The block of a dict from record_new(). */
static void
record_free (AnotExprDict *d)
{
  if (d->slab != NULL)
    slab_unref (d->slab);
  else
    g_free (d);
}

static void
shape_unref (AnotExprShape *shape)
{
  if (--shape->ref_count > 0)
    return;
  for (guint i = 0; i < shape->len; i++)
    anot_expr_value_unref (shape->keys[i]);
  g_free (shape);
}

/* Gives @d arrays of its own, with room for @alloc entries. */
static void
dict_unshare (AnotExprDict *d,
              guint         alloc)
{
  alloc = MAX (alloc, d->len);
  if (d->shape != NULL)
    {
      AnotExprValue *keys = g_new (AnotExprValue, alloc);

      for (guint i = 0; i < d->len; i++)
        keys[i] = anot_expr_value_ref (d->keys[i]);
      shape_unref (d->shape);
      d->shape = NULL;
      d->keys = keys;
    }
  else
    d->keys = g_renew (AnotExprValue, d->keys, alloc);
  if (d->values_inline)
    {
      AnotExprValue *values = g_new (AnotExprValue, alloc);

      memcpy (values, d->values, d->len * sizeof (AnotExprValue));
      d->values = values;
      d->values_inline = FALSE;
    }
  else
    d->values = g_renew (AnotExprValue, d->values, alloc);
  d->alloc = alloc;
}

void
anot_expr_value_free_block (AnotExprValue v)
{
  switch (v.kind)
    {
    case ANOT_EXPR_STR:
      g_free (v.u.s);
      break;
    case ANOT_EXPR_LIST:
    case ANOT_EXPR_TUPLE:
      for (guint i = 0; i < v.u.seq->len; i++)
        anot_expr_value_unref (v.u.seq->items[i]);
      g_free (v.u.seq->items);
      g_free (v.u.seq);
      break;
    case ANOT_EXPR_DICT:
      for (guint i = 0; i < v.u.d->len; i++)
        {
          if (v.u.d->shape == NULL)
            anot_expr_value_unref (v.u.d->keys[i]);
          anot_expr_value_unref (v.u.d->values[i]);
        }
      if (v.u.d->shape != NULL)
        shape_unref (v.u.d->shape);
      else
        g_free (v.u.d->keys);
      if (!v.u.d->values_inline)
        g_free (v.u.d->values);
      g_free (v.u.d->index);
      record_free (v.u.d);
      break;
    case ANOT_EXPR_NONE:
    case ANOT_EXPR_BOOL:
    case ANOT_EXPR_INT:
    case ANOT_EXPR_FLOAT:
    case ANOT_EXPR_FUNC:
    case ANOT_EXPR_MODULE:
    case ANOT_EXPR_GENERATOR:
    default:
      break;
    }
}

void
anot_expr_value_make_immortal (AnotExprValue v)
{
  if (!anot_expr_kind_is_refcounted (v.kind))
    return;
  if (v.kind == ANOT_EXPR_STR && anot_expr_str_is_interned (v.u.s))
    return;
  if (v.kind == ANOT_EXPR_DICT && (v.u.d->shape != NULL || v.u.d->values_inline))
    dict_unshare (v.u.d, v.u.d->len);

  *(int *) v.u.s = -1;
  if (v.kind == ANOT_EXPR_LIST || v.kind == ANOT_EXPR_TUPLE)
    for (guint i = 0; i < v.u.seq->len; i++)
      anot_expr_value_make_immortal (v.u.seq->items[i]);
  else if (v.kind == ANOT_EXPR_DICT)
    for (guint i = 0; i < v.u.d->len; i++)
      {
        anot_expr_value_make_immortal (v.u.d->keys[i]);
        anot_expr_value_make_immortal (v.u.d->values[i]);
      }
}

void
anot_expr_value_free_immortal (AnotExprValue v)
{
  if (!anot_expr_kind_is_refcounted (v.kind))
    return;
  if (v.kind == ANOT_EXPR_STR && anot_expr_str_is_interned (v.u.s))
    return;
  if (v.kind == ANOT_EXPR_LIST || v.kind == ANOT_EXPR_TUPLE)
    for (guint i = 0; i < v.u.seq->len; i++)
      anot_expr_value_free_immortal (v.u.seq->items[i]);
  else if (v.kind == ANOT_EXPR_DICT)
    for (guint i = 0; i < v.u.d->len; i++)
      {
        anot_expr_value_free_immortal (v.u.d->keys[i]);
        anot_expr_value_free_immortal (v.u.d->values[i]);
      }
  /* The children are gone: keep free_block from visiting them. */
  if (v.kind == ANOT_EXPR_LIST || v.kind == ANOT_EXPR_TUPLE)
    v.u.seq->len = 0;
  else if (v.kind == ANOT_EXPR_DICT)
    v.u.d->len = 0;
  anot_expr_value_free_block (v);
}

void
anot_expr_seq_append (AnotExprSeq   *seq,
                      AnotExprValue  item)
{
  if (seq->len == seq->alloc)
    {
      seq->alloc *= 2;
      seq->items = g_renew (AnotExprValue, seq->items, seq->alloc);
    }
  seq->items[seq->len++] = item;
}

/* ------------------------------------------------------------------------ *
 * Hashing and equality
 * ------------------------------------------------------------------------ */

static guint32
mix64 (guint64 x)
{
  x ^= x >> 33;
  x *= G_GUINT64_CONSTANT (0xff51afd7ed558ccd);
  x ^= x >> 33;
  x *= G_GUINT64_CONSTANT (0xc4ceb9fe1a85ec53);
  x ^= x >> 33;
  return (guint32) x;
}

static guint32 hash_bytes (const char *text, gsize len);

static guint32
str_hash (AnotExprStr *s)
{
  if (s->hash == 0)
    s->hash = hash_bytes (s->data, s->len);
  return s->hash;
}

/* ------------------------------------------------------------------------ *
 * Interned strings
 * ------------------------------------------------------------------------ */

/* A fixed table of slots that only ever go from NULL to an interned str:
 * readers need no lock (an acquire load per probe), writers take one.  The
 * bounds keep a process that parses many formulas (a fuzzer) from growing
 * it without end; past them strings are simply not interned. */
#define INTERN_SLOTS 8192
#define INTERN_MAX 4096
#define INTERN_MAX_LEN 64

static AnotExprStr *intern_slots[INTERN_SLOTS];
static guint intern_count;
static GMutex intern_lock;

static guint32
hash_bytes (const char *text,
            gsize       len)
{
  guint32 h = 2166136261u;

  for (gsize i = 0; i < len; i++)
    h = (h ^ (guchar) text[i]) * 16777619u;
  return h == 0 ? 1 : h;
}

static AnotExprStr *
intern_find (const char *text,
             gsize       len,
             guint32     hash,
             guint      *free_slot)
{
  for (guint slot = hash & (INTERN_SLOTS - 1);; slot = (slot + 1) & (INTERN_SLOTS - 1))
    {
      AnotExprStr *s = g_atomic_pointer_get (&intern_slots[slot]);

      if (s == NULL)
        {
          *free_slot = slot;
          return NULL;
        }
      if (s->hash == hash && s->len == len && memcmp (s->data, text, len) == 0)
        return s;
    }
}

static AnotExprStr *
intern_get (const char *text,
            gsize       len,
            gboolean    insert,
            guint32    *hash_out)
{
  guint32 hash;
  guint slot;
  AnotExprStr *s;

  if (len > INTERN_MAX_LEN)
    return NULL;
  hash = hash_bytes (text, len);
  *hash_out = hash;
  s = intern_find (text, len, hash, &slot);
  if (s != NULL || !insert || memchr (text, '\0', len) != NULL)
    return s;

  g_mutex_lock (&intern_lock);
  s = intern_find (text, len, hash, &slot);
  if (s == NULL && intern_count < INTERN_MAX)
    {
      s = g_malloc (sizeof (AnotExprStr) + len + 1);
      s->ref_count = ANOT_EXPR_INTERNED;
      s->hash = hash;
      s->len = len;
      memcpy (s->data, text, len);
      s->data[len] = '\0';
      s->n_chars = g_utf8_strlen (s->data, len);
      intern_count++;
      g_atomic_pointer_set (&intern_slots[slot], s);
    }
  g_mutex_unlock (&intern_lock);
  return s;
}

AnotExprStr *
anot_expr_str_intern (const char *text,
                      gsize       len,
                      gboolean    insert)
{
  guint32 hash;

  return intern_get (text, len, insert, &hash);
}

gboolean
anot_expr_value_hash (AnotExprValue  v,
                      guint32       *out)
{
  guint32 h;

  switch (v.kind)
    {
    case ANOT_EXPR_NONE:
      *out = 0x9e3779b9u;
      return TRUE;
    case ANOT_EXPR_BOOL:
      *out = mix64 (v.u.b ? 1 : 0);
      return TRUE;
    case ANOT_EXPR_INT:
      *out = mix64 ((guint64) v.u.i);
      return TRUE;
    case ANOT_EXPR_FLOAT:
      /* Equal numbers hash equally: 1.0 and 1 are the same dict key. */
      if (v.u.f == floor (v.u.f) && fabs (v.u.f) < 9.2e18)
        *out = mix64 ((guint64) (gint64) v.u.f);
      else
        {
          guint64 bits;
          double f = v.u.f == 0.0 ? 0.0 : v.u.f;

          memcpy (&bits, &f, sizeof bits);
          *out = mix64 (bits);
        }
      return TRUE;
    case ANOT_EXPR_STR:
      *out = str_hash (v.u.s);
      return TRUE;
    case ANOT_EXPR_TUPLE:
      h = 0x345678u;
      for (guint i = 0; i < v.u.seq->len; i++)
        {
          guint32 item;

          if (!anot_expr_value_hash (v.u.seq->items[i], &item))
            return FALSE;
          h = (h ^ item) * 1000003u;
        }
      *out = h;
      return TRUE;
    case ANOT_EXPR_FUNC:
    case ANOT_EXPR_MODULE:
      *out = mix64 ((guint64) (guintptr) v.u.fn);
      return TRUE;
    case ANOT_EXPR_LIST:
    case ANOT_EXPR_DICT:
    default:
      return FALSE;
    }
}

static gboolean
is_number (AnotExprValue v)
{
  return v.kind == ANOT_EXPR_BOOL || v.kind == ANOT_EXPR_INT || v.kind == ANOT_EXPR_FLOAT;
}

static gint64
int_of (AnotExprValue v)
{
  return v.kind == ANOT_EXPR_BOOL ? (gint64) v.u.b : v.u.i;
}

/* Exact comparison of an int and a float, as CPython does: -1, 0, 1, or 2
 * when @f is NaN. */
int
anot_expr_compare_int_float (gint64 i,
                             double f)
{
  double fl;

  if (isnan (f))
    return 2;
  if (f >= 9223372036854775808.0)
    return -1;
  if (f < -9223372036854775808.0)
    return 1;
  fl = floor (f);
  if (i < (gint64) fl)
    return -1;
  if (i > (gint64) fl)
    return 1;
  return fl == f ? 0 : -1;
}

gboolean
anot_expr_value_equal (AnotExprValue a,
                       AnotExprValue b)
{
  if (is_number (a) && is_number (b))
    {
      if (a.kind == ANOT_EXPR_FLOAT && b.kind == ANOT_EXPR_FLOAT)
        return a.u.f == b.u.f;
      if (a.kind == ANOT_EXPR_FLOAT)
        return anot_expr_compare_int_float (int_of (b), a.u.f) == 0;
      if (b.kind == ANOT_EXPR_FLOAT)
        return anot_expr_compare_int_float (int_of (a), b.u.f) == 0;
      return int_of (a) == int_of (b);
    }

  if (a.kind != b.kind)
    return FALSE;

  switch (a.kind)
    {
    case ANOT_EXPR_NONE:
      return TRUE;
    case ANOT_EXPR_STR:
      return anot_expr_str_equal (a.u.s, b.u.s);
    case ANOT_EXPR_LIST:
    case ANOT_EXPR_TUPLE:
      if (a.u.seq == b.u.seq)
        return TRUE;
      if (a.u.seq->len != b.u.seq->len)
        return FALSE;
      for (guint i = 0; i < a.u.seq->len; i++)
        if (!anot_expr_value_equal (a.u.seq->items[i], b.u.seq->items[i]))
          return FALSE;
      return TRUE;
    case ANOT_EXPR_DICT:
      if (a.u.d == b.u.d)
        return TRUE;
      if (a.u.d->len != b.u.d->len)
        return FALSE;
      for (guint i = 0; i < a.u.d->len; i++)
        {
          AnotExprValue *other = anot_expr_dict_lookup (b.u.d, a.u.d->keys[i]);

          if (other == NULL || !anot_expr_value_equal (a.u.d->values[i], *other))
            return FALSE;
        }
      return TRUE;
    case ANOT_EXPR_FUNC:
    case ANOT_EXPR_MODULE:
      return a.u.fn == b.u.fn;
    case ANOT_EXPR_GENERATOR:
      return a.u.gen == b.u.gen;
    case ANOT_EXPR_BOOL:
    case ANOT_EXPR_INT:
    case ANOT_EXPR_FLOAT:
    default:
      return FALSE;
    }
}


/* ------------------------------------------------------------------------ *
 * Dicts
 * ------------------------------------------------------------------------ */

static void
dict_index_insert (AnotExprDict *d,
                   guint32       hash,
                   guint         position)
{
  guint mask = d->index_size - 1;
  guint slot = hash & mask;

  while (d->index[slot] != 0)
    slot = (slot + 1) & mask;
  d->index[slot] = position + 1;
}

static void
dict_rebuild_index (AnotExprDict *d)
{
  guint size = 16;

  while (size < d->len * 2 + 2)
    size *= 2;
  g_free (d->index);
  d->index = g_new0 (guint32, size);
  d->index_size = size;
  for (guint i = 0; i < d->len; i++)
    {
      guint32 h = 0;

      anot_expr_value_hash (d->keys[i], &h);
      dict_index_insert (d, h, i);
    }
}

static gssize
dict_find (AnotExprDict  *d,
           AnotExprValue  key,
           guint32        hash)
{
  if (d->index != NULL)
    {
      guint mask = d->index_size - 1;

      for (guint slot = hash & mask; d->index[slot] != 0; slot = (slot + 1) & mask)
        {
          guint pos = d->index[slot] - 1;

          if (anot_expr_value_equal (d->keys[pos], key))
            return pos;
        }
      return -1;
    }

  for (guint i = 0; i < d->len; i++)
    if (anot_expr_value_equal (d->keys[i], key))
      return i;
  return -1;
}

AnotExprValue *
anot_expr_dict_lookup (AnotExprDict  *dict,
                       AnotExprValue  key)
{
  guint32 hash = 0;
  gssize pos;

  if (!anot_expr_value_hash (key, &hash))
    return NULL;
  if (key.kind == ANOT_EXPR_STR && dict->index == NULL)
    {
      /* The common case: a short record looked up by a string constant. */
      for (guint i = 0; i < dict->len; i++)
        {
          AnotExprValue k = dict->keys[i];

          if (k.kind == ANOT_EXPR_STR && k.u.s->len == key.u.s->len &&
              str_hash (k.u.s) == hash &&
              memcmp (k.u.s->data, key.u.s->data, k.u.s->len) == 0)
            return &dict->values[i];
        }
      return NULL;
    }
  pos = dict_find (dict, key, hash);
  return pos < 0 ? NULL : &dict->values[pos];
}

AnotExprValue *
anot_expr_dict_lookup_string (AnotExprDict *dict,
                              const char   *key)
{
  gsize len = strlen (key);

  for (guint i = 0; i < dict->len; i++)
    {
      AnotExprValue k = dict->keys[i];

      if (k.kind == ANOT_EXPR_STR && k.u.s->len == len && memcmp (k.u.s->data, key, len) == 0)
        return &dict->values[i];
    }
  return NULL;
}

void
anot_expr_dict_set (AnotExprDict  *dict,
                    AnotExprValue  key,
                    AnotExprValue  value)
{
  guint32 hash = 0;
  gssize pos;

  /* Callers check hashability first; an unhashable key is a bug. */
  if (!anot_expr_value_hash (key, &hash))
    g_return_if_reached ();

  pos = dict_find (dict, key, hash);
  if (pos >= 0)
    {
      anot_expr_value_unref (key);
      anot_expr_value_unref (dict->values[pos]);
      dict->values[pos] = value;
      return;
    }

  if (dict->len == dict->alloc || dict->shape != NULL)
    dict_unshare (dict, dict->len == dict->alloc ? MAX (4, dict->alloc * 2) : dict->alloc);
  dict->keys[dict->len] = key;
  dict->values[dict->len] = value;
  dict->len++;

  if (dict->index != NULL && dict->len * 2 + 2 <= dict->index_size)
    dict_index_insert (dict, hash, dict->len - 1);
  else if (dict->len > DICT_INDEX_MIN)
    dict_rebuild_index (dict);
}

/* ------------------------------------------------------------------------ *
 * Names, str() and repr()
 * ------------------------------------------------------------------------ */

const char *
anot_expr_value_type_name (AnotExprValue v)
{
  switch (v.kind)
    {
    case ANOT_EXPR_NONE:
      return "NoneType";
    case ANOT_EXPR_BOOL:
      return "bool";
    case ANOT_EXPR_INT:
      return "int";
    case ANOT_EXPR_FLOAT:
      return "float";
    case ANOT_EXPR_STR:
      return "str";
    case ANOT_EXPR_LIST:
      return "list";
    case ANOT_EXPR_TUPLE:
      return "tuple";
    case ANOT_EXPR_DICT:
      return "dict";
    case ANOT_EXPR_FUNC:
      return "builtin_function_or_method";
    case ANOT_EXPR_MODULE:
      return "module";
    case ANOT_EXPR_GENERATOR:
      return "generator";
    default:
      return "object";
    }
}

gsize
anot_expr_str_n_chars (AnotExprStr *s)
{
  if (s->n_chars < 0)
    s->n_chars = g_utf8_strlen (s->data, s->len);
  return s->n_chars;
}

static void append_repr (GString *out, AnotExprValue v, guint depth);

static void
append_py (GString     *out,
           AnotPyValue *py)
{
  g_autofree char *text = anot_py_value_repr (py);

  g_string_append (out, text);
  anot_py_value_unref (py);
}

static void
append_repr (GString       *out,
             AnotExprValue  v,
             guint          depth)
{
  /* Values cannot contain themselves (nothing mutates them), but bound the
   * output of deeply nested ones anyway. */
  if (depth > 64)
    {
      g_string_append (out, "...");
      return;
    }

  switch (v.kind)
    {
    case ANOT_EXPR_NONE:
      g_string_append (out, "None");
      break;
    case ANOT_EXPR_BOOL:
      g_string_append (out, v.u.b ? "True" : "False");
      break;
    case ANOT_EXPR_INT:
      g_string_append_printf (out, "%" G_GINT64_FORMAT, v.u.i);
      break;
    case ANOT_EXPR_FLOAT:
      append_py (out, anot_py_value_new_float (v.u.f));
      break;
    case ANOT_EXPR_STR:
      append_py (out, anot_py_value_new_string (v.u.s->data, v.u.s->len));
      break;
    case ANOT_EXPR_LIST:
    case ANOT_EXPR_TUPLE:
      g_string_append_c (out, v.kind == ANOT_EXPR_LIST ? '[' : '(');
      for (guint i = 0; i < v.u.seq->len; i++)
        {
          if (i > 0)
            g_string_append (out, ", ");
          append_repr (out, v.u.seq->items[i], depth + 1);
        }
      if (v.kind == ANOT_EXPR_TUPLE && v.u.seq->len == 1)
        g_string_append_c (out, ',');
      g_string_append_c (out, v.kind == ANOT_EXPR_LIST ? ']' : ')');
      break;
    case ANOT_EXPR_DICT:
      g_string_append_c (out, '{');
      for (guint i = 0; i < v.u.d->len; i++)
        {
          if (i > 0)
            g_string_append (out, ", ");
          append_repr (out, v.u.d->keys[i], depth + 1);
          g_string_append (out, ": ");
          append_repr (out, v.u.d->values[i], depth + 1);
        }
      g_string_append_c (out, '}');
      break;
    case ANOT_EXPR_FUNC:
      g_string_append_printf (out, "<built-in function %s>", anot_expr_builtin_get_name (v.u.fn));
      break;
    case ANOT_EXPR_MODULE:
      g_string_append (out, "<module 'math' (built-in)>");
      break;
    case ANOT_EXPR_GENERATOR:
      g_string_append (out, "<generator object <genexpr>>");
      break;
    default:
      break;
    }
}

char *
anot_expr_value_repr (AnotExprValue v)
{
  GString *out = g_string_new (NULL);

  append_repr (out, v, 0);
  return g_string_free (out, FALSE);
}

char *
anot_expr_value_str (AnotExprValue v)
{
  if (v.kind == ANOT_EXPR_STR)
    return g_strndup (v.u.s->data, v.u.s->len);
  return anot_expr_value_repr (v);
}

/* ------------------------------------------------------------------------ *
 * JSON
 * ------------------------------------------------------------------------ */

/* A str of @text: the interned one if there is one, so that comparing it
 * with a formula's constant compares pointers. */
static AnotExprValue
new_string_shared (const char *text,
                   gsize       len)
{
  guint32 hash = 0;
  AnotExprStr *s = intern_get (text, len, FALSE, &hash);
  AnotExprValue v;

  if (s != NULL)
    return (AnotExprValue) { .kind = ANOT_EXPR_STR, .u.s = s };
  v = anot_expr_value_new_string (text, len);
  /* Hashed already: comparisons of unequal strs of one length stop at
   * the hash. */
  v.u.s->hash = hash;
  return v;
}

AnotExprValue
anot_expr_value_new_string_shared (const char *text)
{
  return new_string_shared (text, strlen (text));
}

static void
key_cache_free (gpointer data)
{
  AnotExprValue *v = data;

  anot_expr_value_unref (*v);
  g_free (v);
}

GHashTable *
anot_expr_key_cache_new (void)
{
  return g_hash_table_new_full (g_str_hash, g_str_equal, NULL, key_cache_free);
}

typedef struct {
  AnotExprDict *dict;       /* its values inline, room for every member */
  GHashTable *keys;
  /* The previous record of the same list, or NULL: records of a list
   * mostly have the same members in the same order, so its key (and
   * often its value) at the same position is tried before the table. */
  AnotExprDict *prev;
  /* The previous record's shape, as long as the members match it. */
  AnotExprShape *shape;
  /* Once they do not (or without a previous record): the keys so far
   * (references), room for every member. */
  AnotExprValue *own_keys;
  guint n;
} CachedMembers;

static AnotExprValue from_json_cached (JsonNode *node, GHashTable *keys, const AnotExprValue *hint);

/* A string value @text (nul-terminated, @len bytes): short ones (enum
 * values, keys) shared through @keys. */
static AnotExprValue
cached_string (GHashTable *keys,
               const char *text,
               gsize       len)
{
  AnotExprValue *v;
  AnotExprStr *interned;
  guint32 hash;

  if (len > 64)
    return anot_expr_value_new_string (text, len);
  /* A formula's constant or a seed's enum value: shared by every text,
   * no need to remember it in @keys (a lookup without a lock). */
  interned = intern_get (text, len, FALSE, &hash);
  if (interned != NULL)
    return (AnotExprValue) { .kind = ANOT_EXPR_STR, .u.s = interned };
  v = g_hash_table_lookup (keys, text);
  if (v == NULL)
    {
      v = g_new (AnotExprValue, 1);
      *v = new_string_shared (text, len);
      g_hash_table_insert (keys, v->u.s->data, v);
    }
  return anot_expr_value_ref (*v);
}

static void
add_cached_member (JsonObject  *object,
                   const char  *name,
                   JsonNode    *child,
                   gpointer     user_data)
{
  CachedMembers *data = user_data;
  guint pos = data->dict->len;
  const AnotExprValue *hint = NULL;
  AnotExprValue key;

  if (data->shape != NULL && pos < data->shape->len && strcmp (data->shape->keys[pos].u.s->data, name) == 0)
    hint = &data->prev->values[pos];
  else
    {
      if (data->own_keys == NULL)
        data->own_keys = g_new (AnotExprValue, data->n);
      if (data->shape != NULL)
        {
          for (guint i = 0; i < pos; i++)
            data->own_keys[i] = anot_expr_value_ref (data->shape->keys[i]);
          data->shape = NULL;
        }
      if (data->prev != NULL && pos < data->prev->len && data->prev->keys[pos].kind == ANOT_EXPR_STR &&
          strcmp (data->prev->keys[pos].u.s->data, name) == 0)
        {
          key = data->prev->keys[pos];
          hint = &data->prev->values[pos];
        }
      else
        {
          AnotExprValue *cached = g_hash_table_lookup (data->keys, name);

          if (cached == NULL)
            {
              cached = g_new (AnotExprValue, 1);
              *cached = new_string_shared (name, strlen (name));
              /* The table's key is the string's own bytes. */
              g_hash_table_insert (data->keys, cached->u.s->data, cached);
            }
          key = *cached;
        }
      data->own_keys[pos] = anot_expr_value_ref (key);
    }
  /* The dict is not complete yet: nothing reads it until the end. */
  data->dict->values[pos] = from_json_cached (child, data->keys, hint);
  data->dict->len++;
}

static AnotExprValue
from_json_cached (JsonNode            *node,
                  GHashTable          *keys,
                  const AnotExprValue *hint)
{
  JsonNodeType type = node != NULL ? json_node_get_node_type (node) : JSON_NODE_NULL;
  GType value_type;

  if (type == JSON_NODE_OBJECT)
    return anot_expr_value_from_json_record (node, keys, NULL);
  if (type == JSON_NODE_ARRAY)
    return anot_expr_value_from_json_array_cached (json_node_get_array (node), keys);
  if (type != JSON_NODE_VALUE)
    return ANOT_EXPR_VALUE_NONE;
  value_type = json_node_get_value_type (node);
  /* The scalars of anot_expr_value_from_json(), without asking the node
   * its type again. */
  if (value_type == G_TYPE_INT64)
    return anot_expr_value_int (json_node_get_int (node));
  if (value_type == G_TYPE_DOUBLE)
    return anot_expr_value_float (json_node_get_double (node));
  if (value_type == G_TYPE_STRING)
    {
      /* Short strings repeat too (enum values): share them as well. */
      const char *text = json_node_get_string (node);

      if (hint != NULL && hint->kind == ANOT_EXPR_STR && strcmp (hint->u.s->data, text) == 0 &&
          hint->u.s->len <= 64)
        return anot_expr_value_ref (*hint);
      return cached_string (keys, text, strlen (text));
    }
  return anot_expr_value_from_json (node);
}

/* A record of @n members, its values inline: from *@slab when @slab is
 * given (a new block is started, and the reader's reference on the last
 * one dropped, when it is full), else a block of its own.  The caller
 * sets the values, up to d->len. */
static AnotExprDict *
record_new (guint          n,
            AnotExprSlab **slab)
{
  gsize need = (sizeof (AnotExprDict) + n * sizeof (AnotExprValue) + 15) & ~(gsize) 15;
  AnotExprDict *d;

  if (slab == NULL)
    d = g_malloc (need);
  else
    {
      if (*slab == NULL || (*slab)->size - (*slab)->used < need)
        {
          gsize size = MAX (SLAB_SIZE, SLAB_HEADER + need);

          slab_unref (*slab);
          *slab = g_malloc (size);
          (*slab)->ref_count = 1;
          (*slab)->used = SLAB_HEADER;
          (*slab)->size = size;
        }
      d = (AnotExprDict *) (gpointer) ((char *) *slab + (*slab)->used);
      (*slab)->used += need;
      (*slab)->ref_count++;
    }
  memset (d, 0, sizeof *d);
  if (slab != NULL)
    d->slab = *slab;
  d->ref_count = 1;
  d->alloc = n;
  d->values = (AnotExprValue *) (d + 1);
  d->values_inline = TRUE;
  return d;
}

/* Gives @d (its d->len values set) its keys: @shape, the previous
 * record's, when they are the same (a reference is taken), else a new
 * shape of @own_keys (taken). */
static AnotExprValue
record_finish (AnotExprDict        *d,
               AnotExprShape       *shape,
               const AnotExprValue *own_keys)
{
  guint n = d->len;

  if (shape != NULL)
    shape->ref_count++;
  else
    {
      shape = g_malloc (sizeof (AnotExprShape) + n * sizeof (AnotExprValue));
      shape->ref_count = 1;
      shape->len = n;
      if (n > 0)
        memcpy (shape->keys, own_keys, n * sizeof (AnotExprValue));
      /* No JsonObject table to guess positions in (yet). */
      if (n <= 64)
        memset (shape->table_pos, 0, n);
    }
  d->shape = shape;
  d->keys = shape->keys;
  if (n > DICT_INDEX_MIN)
    dict_rebuild_index (d);
  return (AnotExprValue) { .kind = ANOT_EXPR_DICT, .u.d = d };
}

AnotExprValue
anot_expr_value_from_json_record (JsonNode     *node,
                                  GHashTable   *keys,
                                  AnotExprDict *prev)
{
  JsonObject *object = json_node_get_object (node);
  guint n = json_object_get_size (object);
  AnotExprDict *d = record_new (n, NULL);
  CachedMembers data = { d, keys, prev, NULL, NULL, n };
  guint8 table_pos[64];
  AnotExprValue record;

  if (prev != NULL && prev->shape != NULL && prev->shape->len == n)
    data.shape = prev->shape;

  if (n <= 64)
    {
      /* In document order.  Walking the ordered member names and looking
       * each one up would hash every name (json_object_foreach_member()
       * does); instead the hash table is walked as it lies, and each name
       * in order is matched to its node by pointer (JsonObject keys its
       * table with the very strings of its ordered list).  Should a name
       * not match, it is looked up. */
      const char *names[64];
      JsonNode *nodes[64];
      const guint8 *guess = data.shape != NULL ? data.shape->table_pos : NULL;
      JsonObjectIter iter;
      const char *name;
      JsonNode *child;
      guint k = 0;

      json_object_iter_init (&iter, object);
      while (k < n && json_object_iter_next (&iter, &name, &child))
        {
          names[k] = name;
          nodes[k] = child;
          k++;
        }
      json_object_iter_init_ordered (&iter, object);
      while (d->len < n && json_object_iter_next_ordered (&iter, &name, NULL))
        {
          guint p = d->len;
          guint at = guess != NULL && guess[p] < k ? guess[p] : 0;

          child = NULL;
          if (at >= k || names[at] != name)
            for (at = 0; at < k && names[at] != name; at++)
              ;
          if (at < k)
            child = nodes[at];
          else
            {
              child = json_object_get_member (object, name);
              at = 0;
            }
          table_pos[p] = at;
          add_cached_member (object, name, child, &data);
        }
    }
  else
    json_object_foreach_member (object, add_cached_member, &data);
  g_assert (d->len == n);

  record = record_finish (d, data.shape, data.own_keys);
  g_free (data.own_keys);
  if (n <= 64)
    memcpy (d->shape->table_pos, table_pos, n);
  return record;
}

AnotExprValue
anot_expr_value_from_json_array_cached (JsonArray  *array,
                                        GHashTable *keys)
{
  guint n = array != NULL ? json_array_get_length (array) : 0;
  AnotExprValue l = anot_expr_value_new_list (n);
  AnotExprDict *prev = NULL;

  for (guint i = 0; i < n; i++)
    {
      JsonNode *element = json_array_get_element (array, i);
      AnotExprValue v;

      if (element != NULL && JSON_NODE_HOLDS_OBJECT (element))
        {
          v = anot_expr_value_from_json_record (element, keys, prev);
          prev = v.u.d;
        }
      else
        v = from_json_cached (element, keys, NULL);
      anot_expr_seq_append (l.u.seq, v);
    }
  return l;
}

AnotExprValue
anot_expr_value_from_json_cached (JsonNode   *node,
                                  GHashTable *keys)
{
  return from_json_cached (node, keys, NULL);
}

gssize
anot_expr_dict_find_str (AnotExprDict *dict,
                         AnotExprStr  *key)
{
  guint32 hash = str_hash (key);

  if (dict->index == NULL)
    {
      for (guint i = 0; i < dict->len; i++)
        {
          AnotExprValue k = dict->keys[i];

          if (k.kind == ANOT_EXPR_STR &&
              (k.u.s == key ||
               (k.u.s->len == key->len && str_hash (k.u.s) == hash &&
                memcmp (k.u.s->data, key->data, key->len) == 0)))
            return i;
        }
      return -1;
    }
  return dict_find (dict, (AnotExprValue) { .kind = ANOT_EXPR_STR, .u.s = key }, hash);
}

AnotExprValue
anot_expr_value_from_json (JsonNode *node)
{
  if (node == NULL)
    return ANOT_EXPR_VALUE_NONE;

  switch (json_node_get_node_type (node))
    {
    case JSON_NODE_OBJECT:
      {
        JsonObject *object = json_node_get_object (node);
        AnotExprValue d = anot_expr_value_new_dict ();
        /* In document order, as json.loads() builds its dicts (the
         * iterator of JsonObject follows its hash table instead). */
        g_autoptr(GList) members = json_object_get_members (object);

        for (GList *l = members; l != NULL; l = l->next)
          anot_expr_dict_set (d.u.d, new_string_shared (l->data, strlen (l->data)),
                              anot_expr_value_from_json (json_object_get_member (object, l->data)));
        return d;
      }
    case JSON_NODE_ARRAY:
      {
        JsonArray *array = json_node_get_array (node);
        guint n = json_array_get_length (array);
        AnotExprValue l = anot_expr_value_new_list (n);

        for (guint i = 0; i < n; i++)
          anot_expr_seq_append (l.u.seq, anot_expr_value_from_json (json_array_get_element (array, i)));
        return l;
      }
    case JSON_NODE_VALUE:
      switch (json_node_get_value_type (node))
        {
        case G_TYPE_BOOLEAN:
          return anot_expr_value_bool (json_node_get_boolean (node));
        case G_TYPE_INT64:
        case G_TYPE_INT:
        case G_TYPE_UINT:
        case G_TYPE_LONG:
          return anot_expr_value_int (json_node_get_int (node));
        case G_TYPE_DOUBLE:
        case G_TYPE_FLOAT:
          return anot_expr_value_float (json_node_get_double (node));
        case G_TYPE_STRING:
          {
            const char *text = json_node_get_string (node);

            return new_string_shared (text, strlen (text));
          }
        default:
          return ANOT_EXPR_VALUE_NONE;
        }
    case JSON_NODE_NULL:
    default:
      return ANOT_EXPR_VALUE_NONE;
    }
}

JsonNode *
anot_expr_value_to_json (AnotExprValue v)
{
  JsonNode *node;

  switch (v.kind)
    {
    case ANOT_EXPR_BOOL:
      node = json_node_new (JSON_NODE_VALUE);
      json_node_set_boolean (node, v.u.b);
      return node;
    case ANOT_EXPR_INT:
      node = json_node_new (JSON_NODE_VALUE);
      json_node_set_int (node, v.u.i);
      return node;
    case ANOT_EXPR_FLOAT:
      if (!isfinite (v.u.f))
        return json_node_new (JSON_NODE_NULL);
      node = json_node_new (JSON_NODE_VALUE);
      json_node_set_double (node, v.u.f);
      return node;
    case ANOT_EXPR_STR:
      node = json_node_new (JSON_NODE_VALUE);
      json_node_set_string (node, v.u.s->data);
      return node;
    case ANOT_EXPR_LIST:
    case ANOT_EXPR_TUPLE:
      {
        JsonArray *array = json_array_sized_new (v.u.seq->len);

        for (guint i = 0; i < v.u.seq->len; i++)
          json_array_add_element (array, anot_expr_value_to_json (v.u.seq->items[i]));
        node = json_node_new (JSON_NODE_ARRAY);
        json_node_take_array (node, array);
        return node;
      }
    case ANOT_EXPR_DICT:
      {
        JsonObject *object = json_object_new ();

        for (guint i = 0; i < v.u.d->len; i++)
          {
            g_autofree char *key = anot_expr_value_str (v.u.d->keys[i]);

            json_object_set_member (object, key, anot_expr_value_to_json (v.u.d->values[i]));
          }
        node = json_node_new (JSON_NODE_OBJECT);
        json_node_take_object (node, object);
        return node;
      }
    case ANOT_EXPR_NONE:
    case ANOT_EXPR_FUNC:
    case ANOT_EXPR_MODULE:
    case ANOT_EXPR_GENERATOR:
    default:
      return json_node_new (JSON_NODE_NULL);
    }
}

/* ------------------------------------------------------------------------ *
 * JSON text (AnotJsonDocument), as the JsonNode readers above
 * ------------------------------------------------------------------------ */

/* The document's value records are walked directly (they were read
 * through the checked accessors, a dozen calls per member): a reader's
 * state for one document. */
#define RECENT_POSITIONS 16
#define RECENT_VALUES 4

typedef struct {
  AnotJsonDocument *doc;
  const AnotJsonToken *tokens;
  const char *text;
  guint n_tokens;
  GHashTable *keys;
  /* The last distinct short strings read at each of the first members of
   * a list's records (borrowed: the records hold them while the list is
   * read): an enum field takes a handful of values, and a value unlike the
   * previous record's is mostly one of them, found without the key
   * cache's hashing. */
  AnotExprValue recent[RECENT_POSITIONS][RECENT_VALUES];
  AnotExprSlab *slab;        /* the records' block being filled */
} DocumentReader;

static AnotExprValue document_value (DocumentReader *r, guint value, const AnotExprValue *hint);

/* Whether @a (@len bytes) and @b hold the same bytes: keys and enum
 * values are a dozen bytes, shorter than a call to memcmp() is worth;
 * compared a word at a time, the last word overlapping the one before. */
static inline gboolean
same_bytes (const char *a,
            const char *b,
            gsize       len)
{
  guint64 x, y;
  guint32 u, v;

  if (len >= 8)
    {
      for (gsize i = 0; i + 8 < len; i += 8)
        {
          memcpy (&x, a + i, 8);
          memcpy (&y, b + i, 8);
          if (x != y)
            return FALSE;
        }
      memcpy (&x, a + len - 8, 8);
      memcpy (&y, b + len - 8, 8);
      return x == y;
    }
  if (len >= 4)
    {
      memcpy (&u, a, 4);
      memcpy (&v, b, 4);
      if (u != v)
        return FALSE;
      memcpy (&u, a + len - 4, 4);
      memcpy (&v, b + len - 4, 4);
      return u == v;
    }
  for (gsize i = 0; i < len; i++)
    if (a[i] != b[i])
      return FALSE;
  return TRUE;
}

/* The oldest of @recent gives way to @v. */
static inline void
remember_recent (AnotExprValue *recent,
                 AnotExprValue  v)
{
  memmove (recent + 1, recent, (RECENT_VALUES - 1) * sizeof *recent);
  recent[0] = v;
}

/* The unescaped string of @len bytes at @bytes: @hint's when equal, else
 * one of @recent's when equal (most short strings equal the previous
 * record's, or one of the handful an enum field takes), else shared
 * through the key cache like the JsonNode reader's.  @recent is updated
 * (it borrows: the records hold its strings while their list is read). */
static AnotExprValue
plain_string (GHashTable          *keys,
              const char          *bytes,
              gsize                len,
              const AnotExprValue *hint,
              AnotExprValue       *recent)
{
  char stack[128];
  g_autofree char *heap = NULL;
  char *text;
  AnotExprValue v;

  if (len <= 64)
    {
      if (hint != NULL && hint->kind == ANOT_EXPR_STR && hint->u.s->len == len &&
          same_bytes (hint->u.s->data, bytes, len))
        return anot_expr_value_ref (*hint);
      if (recent != NULL)
        for (guint i = 0; i < RECENT_VALUES && recent[i].kind == ANOT_EXPR_STR; i++)
          if (recent[i].u.s->len == len && same_bytes (recent[i].u.s->data, bytes, len))
            return anot_expr_value_ref (recent[i]);
    }
  text = len < sizeof stack ? stack : (heap = g_malloc (len + 1));
  memcpy (text, bytes, len);
  text[len] = '\0';
  v = cached_string (keys, text, len);
  if (recent != NULL && len <= 64)
    remember_recent (recent, v);
  return v;
}

/* The string @value of the document: plain_string() where it lies in the
 * text when it has no escapes. */
static AnotExprValue
document_string (DocumentReader      *r,
                 guint                value,
                 const AnotExprValue *hint,
                 AnotExprValue       *recent)
{
  const AnotJsonToken *token = &r->tokens[value];
  gsize raw = token->length;
  char stack[128];
  g_autofree char *heap = NULL;
  char *text;
  gsize len;
  AnotExprValue v;

  if (!token->escaped)
    return plain_string (r->keys, r->text + token->start, raw, hint, recent);
  text = raw < sizeof stack ? stack : (heap = g_malloc (raw + 1));
  len = _anot_json_document_decode_string (r->doc, (int) value, text);
  if (hint != NULL && hint->kind == ANOT_EXPR_STR && hint->u.s->len == len &&
      memcmp (hint->u.s->data, text, len) == 0 && len <= 64)
    return anot_expr_value_ref (*hint);
  v = cached_string (r->keys, text, len);
  if (recent != NULL && len <= 64)
    remember_recent (recent, v);
  return v;
}

/* Whether the member name @key is @name. */
static inline gboolean
document_key_is (DocumentReader *r,
                 guint           key,
                 AnotExprStr    *name)
{
  const AnotJsonToken *token = &r->tokens[key];

  if (!token->escaped)
    return token->length == name->len && same_bytes (r->text + token->start, name->data, name->len);
  return anot_json_document_string_equal (r->doc, (int) key, name->data);
}

/* An object with a repeated member: a dict built member by member, which
 * keeps the first position and the last value, as json.loads() does. */
static AnotExprValue
document_dict (DocumentReader *r,
               guint           object)
{
  AnotExprValue d = anot_expr_value_new_dict ();
  guint n = r->tokens[object].size;
  guint key = object + 1;

  for (guint i = 0; i < n; i++, key = r->tokens[key + 1].next)
    anot_expr_dict_set (d.u.d, document_string (r, key, NULL, NULL), document_value (r, key + 1, NULL));
  return d;
}

static AnotExprValue
document_record (DocumentReader *r,
                 guint           object,
                 AnotExprDict   *prev)
{
  guint n = r->tokens[object].size;
  AnotExprDict *d;
  AnotExprShape *shape = NULL;
  g_autofree AnotExprValue *own_keys = NULL;
  guint key = object + 1;

  if (prev != NULL && prev->shape != NULL && prev->shape->len == n)
    shape = prev->shape;
  d = record_new (n, &r->slab);

  for (guint pos = 0; pos < n; pos++, key = r->tokens[key + 1].next)
    {
      const AnotExprValue *hint = NULL;
      AnotExprValue name;

      if (shape != NULL && document_key_is (r, key, shape->keys[pos].u.s))
        hint = &prev->values[pos];
      else
        {
          if (own_keys == NULL)
            own_keys = g_new (AnotExprValue, n);
          if (shape != NULL)
            {
              for (guint i = 0; i < pos; i++)
                own_keys[i] = anot_expr_value_ref (shape->keys[i]);
              shape = NULL;
            }
          name = document_string (r, key, NULL, NULL);
          for (guint i = 0; i < pos; i++)
            if (own_keys[i].u.s == name.u.s ||
                (own_keys[i].u.s->len == name.u.s->len &&
                 memcmp (own_keys[i].u.s->data, name.u.s->data, name.u.s->len) == 0))
              {
                /* A repeated member: not a fixed-shape row. */
                anot_expr_value_unref (name);
                for (guint j = 0; j < pos; j++)
                  {
                    anot_expr_value_unref (own_keys[j]);
                    anot_expr_value_unref (d->values[j]);
                  }
                record_free (d);
                return document_dict (r, object);
              }
          own_keys[pos] = name;
        }
      if (r->tokens[key + 1].kind == ANOT_JSON_KIND_STRING && prev != NULL && pos < RECENT_POSITIONS)
        d->values[pos] = document_string (r, key + 1, hint, r->recent[pos]);
      else
        d->values[pos] = document_value (r, key + 1, hint);
      d->len++;
    }

  return record_finish (d, shape, own_keys);
}

/* A list: records of the same members in the same order share one shape
 * (the previous record's keys and values tried first). */
static AnotExprValue
document_list (DocumentReader *r,
               guint           array)
{
  guint n = r->tokens[array].size;
  AnotExprValue l = anot_expr_value_new_list (n);
  AnotExprDict *prev = NULL;
  guint element = array + 1;

  for (guint i = 0; i < n; i++, element = r->tokens[element].next)
    {
      AnotExprValue v;

      if (r->tokens[element].kind == ANOT_JSON_KIND_OBJECT)
        {
          v = document_record (r, element, prev);
          prev = v.kind == ANOT_EXPR_DICT && v.u.d->shape != NULL ? v.u.d : NULL;
        }
      else
        v = document_value (r, element, NULL);
      anot_expr_seq_append (l.u.seq, v);
    }
  return l;
}

static AnotExprValue
document_value (DocumentReader      *r,
                guint                value,
                const AnotExprValue *hint)
{
  const AnotJsonToken *token = &r->tokens[value];

  switch (token->kind)
    {
    case ANOT_JSON_KIND_OBJECT:
      return document_record (r, value, NULL);
    case ANOT_JSON_KIND_ARRAY:
      return document_list (r, value);
    case ANOT_JSON_KIND_STRING:
      return document_string (r, value, hint, NULL);
    case ANOT_JSON_KIND_INTEGER:
      return anot_expr_value_int (_anot_json_token_get_int (r->doc, token));
    case ANOT_JSON_KIND_DOUBLE:
      return anot_expr_value_float (_anot_json_token_get_double (r->doc, token));
    case ANOT_JSON_KIND_BOOLEAN:
      return anot_expr_value_bool (r->text[token->start] == 't');
    case ANOT_JSON_KIND_NULL:
    case ANOT_JSON_KIND_NONE:
    default:
      return ANOT_EXPR_VALUE_NONE;
    }
}

AnotExprValue
anot_expr_value_from_json_document (AnotJsonDocument *doc,
                                    int               value,
                                    GHashTable       *keys)
{
  DocumentReader r = { doc, NULL, NULL, 0, keys };
  AnotExprValue v;

  r.tokens = _anot_json_document_get_tokens (doc, &r.text, &r.n_tokens);
  if (value < 0 || (guint) value >= r.n_tokens)
    return ANOT_EXPR_VALUE_NONE;
  v = document_value (&r, (guint) value, NULL);
  slab_unref (r.slab);
  return v;
}

/* ------------------------------------------------------------------------ *
 * JSON text read in one pass: a list of flat records
 * ------------------------------------------------------------------------ */

/* Extractions are a list of flat records of enum strings and numbers:
 * read in one pass from the text, with no value records in between, the
 * previous record's keys compared where they lie.  Whatever is outside
 * that (an escape or a non-ASCII byte in a string, a nested container, a
 * repeated member, more than TEXT_MAX_MEMBERS members, anything not JSON)
 * makes the reader give up, having kept nothing: the caller then reads
 * the text through AnotJsonDocument, which reads everything else and
 * reports the errors. */
#define TEXT_MAX_MEMBERS 64

typedef struct {
  const char *p;
  const char *end;
  GHashTable *keys;
  AnotExprValue recent[RECENT_POSITIONS][RECENT_VALUES];
  AnotExprSlab *slab;        /* the records' block being filled */
} TextReader;

static inline void
text_skip_whitespace (TextReader *r)
{
  /* Compact text has none: one comparison then. */
  if (G_LIKELY (r->p < r->end && (guchar) *r->p > ' '))
    return;
  while (r->p < r->end && (*r->p == ' ' || *r->p == '\n' || *r->p == '\r' || *r->p == '\t'))
    r->p++;
}

/* At an opening quote: the string's first byte and *@len bytes, r->p past
 * its closing quote, when it holds neither an escape nor a control
 * character nor a non-ASCII byte; else %NULL. */
static const char *
text_plain_string (TextReader *r,
                   gsize      *len)
{
  const char *start = r->p + 1;
  const char *p = start;

  while (r->end - p >= 8)
    {
      guint64 w, look;

      memcpy (&w, p, sizeof w);
      look = _anot_json_word_needs_look (w);
      if (look != 0)
        {
#if G_BYTE_ORDER == G_LITTLE_ENDIAN && defined (__GNUC__)
          p += __builtin_ctzll (look) / 8;
#endif
          break;
        }
      p += 8;
    }
  while (p < r->end && *p != '"' && *p != '\\' && (guchar) *p >= 0x20 && (guchar) *p < 0x80)
    p++;
  if (p >= r->end || *p != '"')
    return NULL;
  *len = (gsize) (p - start);
  r->p = p + 1;
  return start;
}

/* At a string: whether it is @name (plain ASCII, as every string this
 * reader keeps), r->p past it if so. */
static inline gboolean
text_key_is (TextReader  *r,
             AnotExprStr *name)
{
  gsize len = name->len;

  if ((gsize) (r->end - r->p) < len + 2 || r->p[len + 1] != '"' || !same_bytes (r->p + 1, name->data, len))
    return FALSE;
  r->p += len + 2;
  return TRUE;
}

/* A string, a number, true, false or null at r->p. */
static gboolean
text_scalar (TextReader          *r,
             const AnotExprValue *hint,
             AnotExprValue       *recent,
             AnotExprValue       *out)
{
  const char *p = r->p;
  gsize left = (gsize) (r->end - p);

  switch (*p)
    {
    case '"':
      {
        gsize len;
        const char *bytes;

        /* Mostly the previous record's value, or one of the last few
         * read here: compared where it lies, before any scan (they are
         * plain ASCII, so their bytes and a closing quote are the
         * string). */
        if (hint != NULL && hint->kind == ANOT_EXPR_STR && text_key_is (r, hint->u.s))
          {
            *out = anot_expr_value_ref (*hint);
            return TRUE;
          }
        if (recent != NULL)
          for (guint i = 0; i < RECENT_VALUES && recent[i].kind == ANOT_EXPR_STR; i++)
            if (text_key_is (r, recent[i].u.s))
              {
                *out = anot_expr_value_ref (recent[i]);
                return TRUE;
              }
        bytes = text_plain_string (r, &len);

        if (bytes == NULL)
          return FALSE;
        *out = plain_string (r->keys, bytes, len, hint, recent);
        return TRUE;
      }
    case 't':
      if (left < 4 || memcmp (p, "true", 4) != 0)
        return FALSE;
      r->p += 4;
      *out = anot_expr_value_bool (TRUE);
      return TRUE;
    case 'f':
      if (left < 5 || memcmp (p, "false", 5) != 0)
        return FALSE;
      r->p += 5;
      *out = anot_expr_value_bool (FALSE);
      return TRUE;
    case 'n':
      if (left < 4 || memcmp (p, "null", 4) != 0)
        return FALSE;
      r->p += 4;
      *out = ANOT_EXPR_VALUE_NONE;
      return TRUE;
    default:
      {
        gboolean is_integer;
        const char *bad;
        const char *end;
        guint64 magnitude = 0;
        const char *q = p + (*p == '-');
        const char *digits = q;

        /* A short integer (a year, a count, an index) read as it is
         * scanned; the rest as the document reads it. */
        while (q < r->end && q - digits < 18 && g_ascii_isdigit (*q))
          magnitude = magnitude * 10 + (guint64) (*q++ - '0');
        if (q > digits && q < r->end && (*digits != '0' || q - digits == 1))
          {
            if (*q != '.' && *q != 'e' && *q != 'E' && !g_ascii_isdigit (*q))
              {
                *out = anot_expr_value_int (*p == '-' ? (gint64) (0 - magnitude) : (gint64) magnitude);
                r->p = q;
                return TRUE;
              }
            if (*q == '.' && q - digits <= 15)
              {
                /* A short decimal ("4.0", "2.75"): at most 15 digits in
                 * all, so the mantissa is exact and the division by an
                 * exact power of ten is rounded once, as strtod()
                 * rounds (the document reader's fast path). */
                static const double powers[] = { 1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8,
                                                 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15 };
                const char *fraction = ++q;
                double value;

                while (q < r->end && q - digits <= 16 && g_ascii_isdigit (*q))
                  magnitude = magnitude * 10 + (guint64) (*q++ - '0');
                if (q > fraction && q - digits <= 16 && q < r->end &&
                    *q != 'e' && *q != 'E' && !g_ascii_isdigit (*q))
                  {
                    value = (double) magnitude / powers[q - fraction];
                    *out = anot_expr_value_float (*p == '-' ? -value : value);
                    r->p = q;
                    return TRUE;
                  }
              }
          }
        end = _anot_json_scan_number (p, r->end, &is_integer, &bad);

        if (end == NULL)
          return FALSE;
        *out = is_integer ? anot_expr_value_int (_anot_json_number_to_int (p, (gsize) (end - p)))
                          : anot_expr_value_float (_anot_json_number_to_double (p, (gsize) (end - p)));
        r->p = end;
        return TRUE;
      }
    }
}

/* At '{': a record as document_record() builds it, the keys of @prev's
 * shape tried first. */
static gboolean
text_record (TextReader    *r,
             AnotExprDict  *prev,
             AnotExprValue *out)
{
  AnotExprShape *shape = prev != NULL ? prev->shape : NULL;
  AnotExprValue values[TEXT_MAX_MEMBERS];
  AnotExprValue own_keys[TEXT_MAX_MEMBERS];
  guint n = 0;
  AnotExprDict *d;

  r->p++;
  text_skip_whitespace (r);
  if (r->p < r->end && *r->p == '}')
    r->p++;
  else
    for (;;)
      {
        const AnotExprValue *hint = NULL;

        if (n == TEXT_MAX_MEMBERS || r->p >= r->end || *r->p != '"')
          goto fail;
        if (shape != NULL && n < shape->len && text_key_is (r, shape->keys[n].u.s))
          hint = &prev->values[n];
        else
          {
            const char *bytes;
            gsize len;

            if (shape != NULL)
              {
                for (guint i = 0; i < n; i++)
                  own_keys[i] = anot_expr_value_ref (shape->keys[i]);
                shape = NULL;
              }
            bytes = text_plain_string (r, &len);
            if (bytes == NULL)
              goto fail;
            own_keys[n] = plain_string (r->keys, bytes, len, NULL, NULL);
            for (guint i = 0; i < n; i++)
              if (own_keys[i].u.s == own_keys[n].u.s ||
                  (own_keys[i].u.s->len == len && memcmp (own_keys[i].u.s->data, bytes, len) == 0))
                {
                  /* A repeated member: a dict, which the document reader
                   * builds. */
                  anot_expr_value_unref (own_keys[n]);
                  goto fail;
                }
          }
        text_skip_whitespace (r);
        if (r->p >= r->end || *r->p != ':')
          goto fail_member;
        r->p++;
        text_skip_whitespace (r);
        if (r->p >= r->end ||
            !text_scalar (r, hint, prev != NULL && n < RECENT_POSITIONS ? r->recent[n] : NULL, &values[n]))
          goto fail_member;
        n++;
        text_skip_whitespace (r);
        if (r->p < r->end && *r->p == ',')
          {
            r->p++;
            text_skip_whitespace (r);
            continue;
          }
        if (r->p < r->end && *r->p == '}')
          {
            r->p++;
            break;
          }
        goto fail;
      }

  if (shape != NULL && n != shape->len)
    {
      /* The first members of the previous record's, not all of them. */
      for (guint i = 0; i < n; i++)
        own_keys[i] = anot_expr_value_ref (shape->keys[i]);
      shape = NULL;
    }
  d = record_new (n, &r->slab);
  memcpy (d->values, values, n * sizeof (AnotExprValue));
  d->len = n;
  *out = record_finish (d, shape, own_keys);
  return TRUE;

fail_member:
  /* The key of the member being read is kept, its value is not. */
  if (shape == NULL)
    anot_expr_value_unref (own_keys[n]);
fail:
  for (guint i = 0; i < n; i++)
    {
      anot_expr_value_unref (values[i]);
      if (shape == NULL)
        anot_expr_value_unref (own_keys[i]);
    }
  return FALSE;
}

gboolean
anot_expr_value_from_json_text (const char    *text,
                                gsize          length,
                                GHashTable    *keys,
                                AnotExprValue *out)
{
  TextReader r = { text, text + length, keys };
  AnotExprValue l;
  AnotExprDict *prev = NULL;

  text_skip_whitespace (&r);
  if (r.p >= r.end || *r.p != '[')
    return FALSE;
  /* Records of a dozen members take a hundred-odd bytes. */
  l = anot_expr_value_new_list ((guint) MIN (length / 128, 4096));
  r.p++;
  text_skip_whitespace (&r);
  if (r.p < r.end && *r.p == ']')
    r.p++;
  else
    for (;;)
      {
        AnotExprValue v;

        if (r.p >= r.end || *r.p == '[')
          goto fail;
        if (*r.p == '{')
          {
            if (!text_record (&r, prev, &v))
              goto fail;
            prev = v.u.d->shape != NULL ? v.u.d : NULL;
          }
        else if (!text_scalar (&r, NULL, NULL, &v))
          goto fail;
        anot_expr_seq_append (l.u.seq, v);
        text_skip_whitespace (&r);
        if (r.p < r.end && *r.p == ',')
          {
            r.p++;
            text_skip_whitespace (&r);
            continue;
          }
        if (r.p < r.end && *r.p == ']')
          {
            r.p++;
            break;
          }
        goto fail;
      }
  text_skip_whitespace (&r);
  if (r.p != r.end)
    goto fail;
  *out = l;
  slab_unref (r.slab);
  return TRUE;

fail:
  anot_expr_value_unref (l);
  slab_unref (r.slab);
  return FALSE;
}

void
anot_expr_value_write_json (AnotJsonWriter *writer,
                            AnotExprValue   v)
{
  switch (v.kind)
    {
    case ANOT_EXPR_BOOL:
      anot_json_writer_add_boolean_value (writer, v.u.b);
      return;
    case ANOT_EXPR_INT:
      anot_json_writer_add_int_value (writer, v.u.i);
      return;
    case ANOT_EXPR_FLOAT:
      if (!isfinite (v.u.f))
        anot_json_writer_add_null_value (writer);
      else
        anot_json_writer_add_double_value (writer, v.u.f);
      return;
    case ANOT_EXPR_STR:
      anot_json_writer_add_string_value (writer, v.u.s->data);
      return;
    case ANOT_EXPR_LIST:
    case ANOT_EXPR_TUPLE:
      anot_json_writer_begin_array (writer);
      for (guint i = 0; i < v.u.seq->len; i++)
        anot_expr_value_write_json (writer, v.u.seq->items[i]);
      anot_json_writer_end_array (writer);
      return;
    case ANOT_EXPR_DICT:
      {
        g_autoptr(JsonNode) node = NULL;
        gboolean string_keys = TRUE;

        for (guint i = 0; i < v.u.d->len && string_keys; i++)
          string_keys = v.u.d->keys[i].kind == ANOT_EXPR_STR;
        /* String keys are distinct: written as they are, in order. */
        if (string_keys)
          {
            anot_json_writer_begin_object (writer);
            for (guint i = 0; i < v.u.d->len; i++)
              {
                anot_json_writer_set_member_name (writer, v.u.d->keys[i].u.s->data);
                anot_expr_value_write_json (writer, v.u.d->values[i]);
              }
            anot_json_writer_end_object (writer);
            return;
          }
        /* As anot_expr_value_to_json(): a key written twice (1 and "1")
         * keeps its first place and its last value, as a JsonObject does. */
        node = anot_expr_value_to_json (v);
        anot_json_writer_add_value (writer, node);
      }
      return;
    case ANOT_EXPR_NONE:
    case ANOT_EXPR_FUNC:
    case ANOT_EXPR_MODULE:
    case ANOT_EXPR_GENERATOR:
    default:
      anot_json_writer_add_null_value (writer);
      return;
    }
}

AnotExprValue
anot_expr_value_make_lookup (AnotExprValue dict)
{
  if (dict.kind == ANOT_EXPR_DICT)
    dict.u.d->substring_get = TRUE;
  return dict;
}
