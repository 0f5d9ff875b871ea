/* anot-pyliteral.c: Python values, literals and attribute normalisation
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The reference validator is written in Python and its results depend on
 * Python's str(), ==, str.lower(), ast.literal_eval() and int()/float().
 * This file reimplements the parts of those it relies on, with the
 * normalisation passes A and B of evidence.md §5 on top.
 */
#include "config.h"

#include "anot-pyliteral-private.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "anot-error.h"

struct _AnotPyValue
{
  gatomicrefcount ref_count;
  AnotPyType kind;
  union {
    gboolean b;
    struct {
      gint64 value;
      char *big;          /* decimal digits when the value exceeds gint64 */
    } i;
    double f;
    struct {
      char *str;
      gsize len;
    } s;
    GPtrArray *items;     /* list, tuple: AnotPyValue */
    struct {
      GPtrArray *keys;
      GPtrArray *values;
      GHashTable *index;  /* str key -> position + 1, for large dicts */
    } d;
  } u;
  /* Lazily computed, published with compare-and-exchange so that readers
   * on several threads never see a half-built value. */
  gpointer pass_b;        /* AnotPyValue, or the value itself */
  gpointer lower_str;     /* char * */
};

/* A dict with more keys than this gets a hash index for its string keys:
 * attribute dicts and item records are looked up for every evaluation. */
#define DICT_INDEX_MIN 8

/* Deeper literals are rejected (CPython would raise RecursionError). */
#define MAX_DEPTH 200

static AnotPyValue *
py_value_alloc (AnotPyType kind)
{
  AnotPyValue *v = g_new0 (AnotPyValue, 1);

  g_atomic_ref_count_init (&v->ref_count);
  v->kind = kind;
  return v;
}

AnotPyValue *
anot_py_value_ref (AnotPyValue *value)
{
  g_return_val_if_fail (value != NULL, NULL);

  g_atomic_ref_count_inc (&value->ref_count);
  return value;
}

void
anot_py_value_unref (AnotPyValue *value)
{
  gpointer pass_b;

  if (value == NULL)
    return;
  if (!g_atomic_ref_count_dec (&value->ref_count))
    return;

  switch (value->kind)
    {
    case ANOT_PY_INT:
      g_free (value->u.i.big);
      break;
    case ANOT_PY_STR:
      g_free (value->u.s.str);
      break;
    case ANOT_PY_LIST:
    case ANOT_PY_TUPLE:
      g_ptr_array_unref (value->u.items);
      break;
    case ANOT_PY_DICT:
      g_ptr_array_unref (value->u.d.keys);
      g_ptr_array_unref (value->u.d.values);
      g_clear_pointer (&value->u.d.index, g_hash_table_unref);
      break;
    case ANOT_PY_NONE:
    case ANOT_PY_BOOL:
    case ANOT_PY_FLOAT:
    default:
      break;
    }

  pass_b = g_atomic_pointer_get (&value->pass_b);
  if (pass_b != NULL && pass_b != value)
    anot_py_value_unref (pass_b);
  g_free (g_atomic_pointer_get (&value->lower_str));
  g_free (value);
}

AnotPyValue *
anot_py_value_new_none (void)
{
  return py_value_alloc (ANOT_PY_NONE);
}

AnotPyValue *
anot_py_value_new_bool (gboolean value)
{
  AnotPyValue *v = py_value_alloc (ANOT_PY_BOOL);

  v->u.b = !!value;
  return v;
}

AnotPyValue *
anot_py_value_new_int (gint64 value)
{
  AnotPyValue *v = py_value_alloc (ANOT_PY_INT);

  v->u.i.value = value;
  return v;
}

static AnotPyValue *
py_value_new_big_int (const char *digits)
{
  AnotPyValue *v = py_value_alloc (ANOT_PY_INT);

  v->u.i.big = g_strdup (digits);
  v->u.i.value = digits[0] == '-' ? G_MININT64 : G_MAXINT64;
  return v;
}

AnotPyValue *
anot_py_value_new_float (double value)
{
  AnotPyValue *v = py_value_alloc (ANOT_PY_FLOAT);

  v->u.f = value;
  return v;
}

AnotPyValue *
anot_py_value_new_string (const char *str,
                          gssize      len)
{
  AnotPyValue *v = py_value_alloc (ANOT_PY_STR);

  if (len < 0)
    len = strlen (str);
  v->u.s.str = g_strndup (str, len);
  v->u.s.len = len;
  return v;
}

static AnotPyValue *
py_value_new_string_take (GString *str)
{
  AnotPyValue *v = py_value_alloc (ANOT_PY_STR);

  v->u.s.len = str->len;
  v->u.s.str = g_string_free (str, FALSE);
  return v;
}

AnotPyValue *
anot_py_value_new_list (void)
{
  AnotPyValue *v = py_value_alloc (ANOT_PY_LIST);

  v->u.items = g_ptr_array_new_with_free_func ((GDestroyNotify) anot_py_value_unref);
  return v;
}

AnotPyValue *
anot_py_value_new_tuple (void)
{
  AnotPyValue *v = py_value_alloc (ANOT_PY_TUPLE);

  v->u.items = g_ptr_array_new_with_free_func ((GDestroyNotify) anot_py_value_unref);
  return v;
}

AnotPyValue *
anot_py_value_new_dict (void)
{
  AnotPyValue *v = py_value_alloc (ANOT_PY_DICT);

  v->u.d.keys = g_ptr_array_new_with_free_func ((GDestroyNotify) anot_py_value_unref);
  v->u.d.values = g_ptr_array_new_with_free_func ((GDestroyNotify) anot_py_value_unref);
  return v;
}

void
anot_py_value_append (AnotPyValue *seq,
                      AnotPyValue *item)
{
  g_return_if_fail (seq != NULL);
  g_return_if_fail (seq->kind == ANOT_PY_LIST || seq->kind == ANOT_PY_TUPLE);
  g_return_if_fail (item != NULL);

  g_ptr_array_add (seq->u.items, item);
}

static gint
dict_find (const AnotPyValue *dict,
           const AnotPyValue *key)
{
  if (key->kind == ANOT_PY_STR && dict->u.d.index != NULL)
    {
      gpointer pos = g_hash_table_lookup (dict->u.d.index, key->u.s.str);

      return pos != NULL ? GPOINTER_TO_INT (pos) - 1 : -1;
    }

  for (guint i = 0; i < dict->u.d.keys->len; i++)
    {
      const AnotPyValue *k = g_ptr_array_index (dict->u.d.keys, i);

      if (key->kind == ANOT_PY_STR)
        {
          /* The common case: only a str can equal a str. */
          if (k->kind == ANOT_PY_STR && k->u.s.len == key->u.s.len &&
              memcmp (k->u.s.str, key->u.s.str, k->u.s.len) == 0)
            return i;
        }
      else if (anot_py_value_equal (k, key))
        return i;
    }

  return -1;
}

void
anot_py_value_dict_set (AnotPyValue *dict,
                        AnotPyValue *key,
                        AnotPyValue *value)
{
  gint pos;

  g_return_if_fail (dict != NULL && dict->kind == ANOT_PY_DICT);
  g_return_if_fail (key != NULL && value != NULL);

  pos = dict_find (dict, key);
  if (pos >= 0)
    {
      anot_py_value_unref (key);
      anot_py_value_unref (g_ptr_array_index (dict->u.d.values, pos));
      g_ptr_array_index (dict->u.d.values, pos) = value;
      return;
    }

  g_ptr_array_add (dict->u.d.keys, key);
  g_ptr_array_add (dict->u.d.values, value);

  if (dict->u.d.index == NULL && dict->u.d.keys->len > DICT_INDEX_MIN)
    {
      dict->u.d.index = g_hash_table_new (g_str_hash, g_str_equal);
      for (guint i = 0; i < dict->u.d.keys->len; i++)
        {
          AnotPyValue *k = g_ptr_array_index (dict->u.d.keys, i);

          if (k->kind == ANOT_PY_STR)
            g_hash_table_insert (dict->u.d.index, k->u.s.str, GINT_TO_POINTER (i + 1));
        }
    }
  else if (dict->u.d.index != NULL && key->kind == ANOT_PY_STR)
    {
      g_hash_table_insert (dict->u.d.index, key->u.s.str,
                           GINT_TO_POINTER (dict->u.d.keys->len));
    }
}

AnotPyType
anot_py_value_get_kind (const AnotPyValue *value)
{
  return value != NULL ? value->kind : ANOT_PY_NONE;
}

gboolean
anot_py_value_get_bool (const AnotPyValue *value)
{
  g_return_val_if_fail (value != NULL && value->kind == ANOT_PY_BOOL, FALSE);
  return value->u.b;
}

gint64
anot_py_value_get_int (const AnotPyValue *value)
{
  g_return_val_if_fail (value != NULL && value->kind == ANOT_PY_INT, 0);
  return value->u.i.value;
}

double
anot_py_value_get_float (const AnotPyValue *value)
{
  g_return_val_if_fail (value != NULL && value->kind == ANOT_PY_FLOAT, 0.0);
  return value->u.f;
}

const char *
anot_py_value_get_string (const AnotPyValue *value)
{
  g_return_val_if_fail (value != NULL && value->kind == ANOT_PY_STR, NULL);
  return value->u.s.str;
}

guint
anot_py_value_get_length (const AnotPyValue *value)
{
  if (value == NULL)
    return 0;
  switch (value->kind)
    {
    case ANOT_PY_LIST:
    case ANOT_PY_TUPLE:
      return value->u.items->len;
    case ANOT_PY_DICT:
      return value->u.d.keys->len;
    case ANOT_PY_STR:
      return g_utf8_strlen (value->u.s.str, value->u.s.len);
    case ANOT_PY_NONE:
    case ANOT_PY_BOOL:
    case ANOT_PY_INT:
    case ANOT_PY_FLOAT:
    default:
      return 0;
    }
}

AnotPyValue *
anot_py_value_get_item (const AnotPyValue *value,
                        guint              position)
{
  g_return_val_if_fail (value != NULL, NULL);

  switch (value->kind)
    {
    case ANOT_PY_LIST:
    case ANOT_PY_TUPLE:
      g_return_val_if_fail (position < value->u.items->len, NULL);
      return g_ptr_array_index (value->u.items, position);
    case ANOT_PY_DICT:
      g_return_val_if_fail (position < value->u.d.values->len, NULL);
      return g_ptr_array_index (value->u.d.values, position);
    case ANOT_PY_NONE:
    case ANOT_PY_BOOL:
    case ANOT_PY_INT:
    case ANOT_PY_FLOAT:
    case ANOT_PY_STR:
    default:
      g_return_val_if_reached (NULL);
    }
}

AnotPyValue *
anot_py_value_dict_get_key (const AnotPyValue *dict,
                            guint              position)
{
  g_return_val_if_fail (dict != NULL && dict->kind == ANOT_PY_DICT, NULL);
  g_return_val_if_fail (position < dict->u.d.keys->len, NULL);

  return g_ptr_array_index (dict->u.d.keys, position);
}

AnotPyValue *
anot_py_value_dict_lookup (const AnotPyValue *dict,
                           const AnotPyValue *key)
{
  gint pos;

  if (dict == NULL || dict->kind != ANOT_PY_DICT || key == NULL)
    return NULL;

  pos = dict_find (dict, key);
  return pos >= 0 ? g_ptr_array_index (dict->u.d.values, pos) : NULL;
}

AnotPyValue *
anot_py_value_dict_lookup_string (const AnotPyValue *dict,
                                  const char        *key)
{
  gsize len;

  if (dict == NULL || dict->kind != ANOT_PY_DICT || key == NULL)
    return NULL;

  if (dict->u.d.index != NULL)
    {
      gpointer pos = g_hash_table_lookup (dict->u.d.index, key);

      return pos != NULL ? g_ptr_array_index (dict->u.d.values, GPOINTER_TO_INT (pos) - 1) : NULL;
    }

  len = strlen (key);
  for (guint i = 0; i < dict->u.d.keys->len; i++)
    {
      const AnotPyValue *k = g_ptr_array_index (dict->u.d.keys, i);

      if (k->kind == ANOT_PY_STR && k->u.s.len == len && memcmp (k->u.s.str, key, len) == 0)
        return g_ptr_array_index (dict->u.d.values, i);
    }

  return NULL;
}

/* ------------------------------------------------------------------------ *
 * Numbers, truthiness, equality
 * ------------------------------------------------------------------------ */

static double
int_as_double (const AnotPyValue *v)
{
  if (v->u.i.big != NULL)
    return g_ascii_strtod (v->u.i.big, NULL);
  return (double) v->u.i.value;
}

gboolean
anot_py_value_is_number (const AnotPyValue *value,
                         double            *out)
{
  if (value == NULL)
    return FALSE;
  if (value->kind == ANOT_PY_INT)
    {
      if (out != NULL)
        *out = int_as_double (value);
      return TRUE;
    }
  if (value->kind == ANOT_PY_FLOAT)
    {
      if (out != NULL)
        *out = value->u.f;
      return TRUE;
    }
  return FALSE;
}

gboolean
anot_py_value_truthy (const AnotPyValue *value)
{
  if (value == NULL)
    return FALSE;

  switch (value->kind)
    {
    case ANOT_PY_NONE:
      return FALSE;
    case ANOT_PY_BOOL:
      return value->u.b;
    case ANOT_PY_INT:
      return value->u.i.big != NULL || value->u.i.value != 0;
    case ANOT_PY_FLOAT:
      return value->u.f != 0.0;  /* NaN is true in Python too */
    case ANOT_PY_STR:
      return value->u.s.len > 0;
    case ANOT_PY_LIST:
    case ANOT_PY_TUPLE:
      return value->u.items->len > 0;
    case ANOT_PY_DICT:
      return value->u.d.keys->len > 0;
    default:
      return FALSE;
    }
}

static gboolean
is_numeric_kind (const AnotPyValue *v)
{
  return v->kind == ANOT_PY_BOOL || v->kind == ANOT_PY_INT || v->kind == ANOT_PY_FLOAT;
}

/* Python compares int and float exactly, not through a double. */
static gboolean
numbers_equal (const AnotPyValue *a,
               const AnotPyValue *b)
{
  gboolean a_float = a->kind == ANOT_PY_FLOAT;
  gboolean b_float = b->kind == ANOT_PY_FLOAT;
  gint64 ai, bi;

  if (a_float && b_float)
    return a->u.f == b->u.f;

  if (a_float || b_float)
    {
      const AnotPyValue *fv = a_float ? a : b;
      const AnotPyValue *iv = a_float ? b : a;
      double f = fv->u.f;

      if (!isfinite (f) || f != floor (f))
        return FALSE;
      if (iv->kind == ANOT_PY_INT && iv->u.i.big != NULL)
        return g_ascii_strtod (iv->u.i.big, NULL) == f;
      if (f < -9223372036854775808.0 || f >= 9223372036854775808.0)
        return FALSE;
      ai = iv->kind == ANOT_PY_BOOL ? iv->u.b : iv->u.i.value;
      return (gint64) f == ai;
    }

  if (a->kind == ANOT_PY_INT && b->kind == ANOT_PY_INT &&
      (a->u.i.big != NULL || b->u.i.big != NULL))
    return a->u.i.big != NULL && b->u.i.big != NULL && strcmp (a->u.i.big, b->u.i.big) == 0;
  if ((a->kind == ANOT_PY_INT && a->u.i.big != NULL) ||
      (b->kind == ANOT_PY_INT && b->u.i.big != NULL))
    return FALSE;

  ai = a->kind == ANOT_PY_BOOL ? a->u.b : a->u.i.value;
  bi = b->kind == ANOT_PY_BOOL ? b->u.b : b->u.i.value;
  return ai == bi;
}

gboolean
anot_py_value_equal (const AnotPyValue *a,
                     const AnotPyValue *b)
{
  AnotPyType ka = anot_py_value_get_kind (a);
  AnotPyType kb = anot_py_value_get_kind (b);

  if (a == b)
    return TRUE;
  if (ka == ANOT_PY_NONE || kb == ANOT_PY_NONE)
    return ka == kb;

  if (is_numeric_kind (a) && is_numeric_kind (b))
    return numbers_equal (a, b);

  if (ka != kb)
    return FALSE;

  switch (ka)
    {
    case ANOT_PY_STR:
      return a->u.s.len == b->u.s.len && memcmp (a->u.s.str, b->u.s.str, a->u.s.len) == 0;
    case ANOT_PY_LIST:
    case ANOT_PY_TUPLE:
      if (a->u.items->len != b->u.items->len)
        return FALSE;
      for (guint i = 0; i < a->u.items->len; i++)
        if (!anot_py_value_equal (g_ptr_array_index (a->u.items, i),
                                  g_ptr_array_index (b->u.items, i)))
          return FALSE;
      return TRUE;
    case ANOT_PY_DICT:
      if (a->u.d.keys->len != b->u.d.keys->len)
        return FALSE;
      for (guint i = 0; i < a->u.d.keys->len; i++)
        {
          AnotPyValue *other = anot_py_value_dict_lookup (b, g_ptr_array_index (a->u.d.keys, i));

          if (other == NULL || !anot_py_value_equal (g_ptr_array_index (a->u.d.values, i), other))
            return FALSE;
        }
      return TRUE;
    case ANOT_PY_NONE:
    case ANOT_PY_BOOL:
    case ANOT_PY_INT:
    case ANOT_PY_FLOAT:
    default:
      return FALSE;
    }
}

/* ------------------------------------------------------------------------ *
 * str() and repr()
 * ------------------------------------------------------------------------ */

/* float.__repr__: the shortest string that reads back as the same double,
 * in positional notation when the decimal exponent is in [-4, 16). */
static void
append_float_repr (GString *out,
                   double   x)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE + 16];
  char digits[32];
  const char *p;
  gsize n_digits = 0;
  int exp10;
  int prec;

  if (isnan (x))
    {
      g_string_append (out, "nan");
      return;
    }
  if (isinf (x))
    {
      g_string_append (out, x > 0 ? "inf" : "-inf");
      return;
    }

  /* Most numbers of a dataset have at most three decimals (stars 4.0, an
   * average 3.77): the first count of decimals d whose nearest multiple
   * of 10^-d reads back as @x gives the shortest digits, as below, without
   * formatting and parsing up to 17 candidates.  Both m / 10^d and strtod()
   * of its decimal text are the correctly rounded value of the same
   * rational, so the test is exact. */
  {
    static const double scale[] = { 1.0, 10.0, 100.0, 1000.0 };
    static const gint64 iscale[] = { 1, 10, 100, 1000 };
    double ax = fabs (x);

    if (ax < 1e15)
      for (int d = 0; d < (int) G_N_ELEMENTS (scale); d++)
        {
          double m = nearbyint (ax * scale[d]);

          /* Below 2^52 the decimals are those of the only multiple of
           * 10^-d that reads back as @x (doubles are closer together
           * than 10^-d only above), so they are also the nearest. */
          if (m >= 4503599627370496.0)
            break;
          if (m / scale[d] == ax && (m != 0 || d == 0))
            {
              gint64 mi = (gint64) m;
              char text[48];
              int at = sizeof text;
              gint64 frac = mi % iscale[d];
              gint64 whole = mi / iscale[d];

              text[--at] = '\0';
              if (d == 0)
                text[--at] = '0';
              for (int i = 0; i < d; i++, frac /= 10)
                text[--at] = '0' + (char) (frac % 10);
              text[--at] = '.';
              do
                {
                  text[--at] = '0' + (char) (whole % 10);
                  whole /= 10;
                }
              while (whole > 0);
              if (signbit (x))
                text[--at] = '-';
              g_string_append (out, text + at);
              return;
            }
        }
  }

  /* The shortest digits that read back as @x: for a normal number, if
   * any of at most 15 digits do, they are the 15 correctly rounded digits
   * less their trailing zeros (a double is within 1.2e-16 of such a
   * decimal, closer than half the 15th digit, so rounding to 15 digits
   * lands on it); else 16 or 17 digits.  Subnormal numbers are less
   * precise than that: every count is tried, shortest first. */
  if (fpclassify (x) == FP_NORMAL)
    {
      static const char * const formats[] = { "%.14e", "%.15e", "%.16e" };

      for (guint i = 0; i < G_N_ELEMENTS (formats); i++)
        {
          g_ascii_formatd (buf, sizeof buf, formats[i], x);
          if (g_ascii_strtod (buf, NULL) == x)
            break;
        }
    }
  else
    for (prec = 1; prec <= 17; prec++)
      {
        char fmt[16];

        g_snprintf (fmt, sizeof fmt, "%%.%de", prec - 1);
        g_ascii_formatd (buf, sizeof buf, fmt, x);
        if (g_ascii_strtod (buf, NULL) == x)
          break;
      }

  p = buf;
  if (*p == '-')
    {
      g_string_append_c (out, '-');
      p++;
    }
  for (; *p != 'e' && *p != '\0'; p++)
    if (g_ascii_isdigit (*p) && n_digits < sizeof digits - 1)
      digits[n_digits++] = *p;
  while (n_digits > 1 && digits[n_digits - 1] == '0')
    n_digits--;
  digits[n_digits] = '\0';
  exp10 = *p == 'e' ? atoi (p + 1) : 0;

  if (exp10 >= -4 && exp10 < 16)
    {
      if (exp10 >= 0)
        {
          for (int i = 0; i <= exp10; i++)
            g_string_append_c (out, (gsize) i < n_digits ? digits[i] : '0');
          g_string_append_c (out, '.');
          if ((gsize) exp10 + 1 < n_digits)
            g_string_append (out, digits + exp10 + 1);
          else
            g_string_append_c (out, '0');
        }
      else
        {
          g_string_append (out, "0.");
          for (int i = 0; i < -exp10 - 1; i++)
            g_string_append_c (out, '0');
          g_string_append (out, digits);
        }
    }
  else
    {
      g_string_append_c (out, digits[0]);
      if (n_digits > 1)
        {
          g_string_append_c (out, '.');
          g_string_append (out, digits + 1);
        }
      g_string_append_printf (out, "e%c%02d", exp10 < 0 ? '-' : '+', ABS (exp10));
    }
}

/* str.isprintable() of one character. */
static gboolean
py_unichar_isprintable (gunichar c)
{
  if (c == ' ')
    return TRUE;

  switch (g_unichar_type (c))
    {
    case G_UNICODE_CONTROL:
    case G_UNICODE_FORMAT:
    case G_UNICODE_UNASSIGNED:
    case G_UNICODE_PRIVATE_USE:
    case G_UNICODE_SURROGATE:
    case G_UNICODE_LINE_SEPARATOR:
    case G_UNICODE_PARAGRAPH_SEPARATOR:
    case G_UNICODE_SPACE_SEPARATOR:
      return FALSE;
    default:
      return TRUE;
    }
}

static void
append_str_repr (GString    *out,
                 const char *str,
                 gsize       len)
{
  const char *end = str + len;
  char quote = '\'';

  if (memchr (str, '\'', len) != NULL && memchr (str, '"', len) == NULL)
    quote = '"';

  g_string_append_c (out, quote);
  for (const char *p = str; p < end;)
    {
      guchar c = *p;

      if (c < 0x80)
        {
          if (c == (guchar) quote || c == '\\')
            {
              g_string_append_c (out, '\\');
              g_string_append_c (out, c);
            }
          else if (c == '\t')
            g_string_append (out, "\\t");
          else if (c == '\n')
            g_string_append (out, "\\n");
          else if (c == '\r')
            g_string_append (out, "\\r");
          else if (c < ' ' || c == 0x7f)
            g_string_append_printf (out, "\\x%02x", c);
          else
            g_string_append_c (out, c);
          p++;
        }
      else
        {
          gunichar uc = g_utf8_get_char_validated (p, end - p);
          const char *next;

          if (uc == (gunichar) -1 || uc == (gunichar) -2)
            {
              /* Not UTF-8: cannot come from JSON or a literal; copy it. */
              g_string_append_c (out, c);
              p++;
              continue;
            }
          next = g_utf8_next_char (p);
          if (py_unichar_isprintable (uc))
            g_string_append_len (out, p, next - p);
          else if (uc <= 0xff)
            g_string_append_printf (out, "\\x%02x", uc);
          else if (uc <= 0xffff)
            g_string_append_printf (out, "\\u%04x", uc);
          else
            g_string_append_printf (out, "\\U%08x", uc);
          p = next;
        }
    }
  g_string_append_c (out, quote);
}

static void append_repr (GString *out, const AnotPyValue *v);

static void
append_int (GString           *out,
            const AnotPyValue *v)
{
  if (v->u.i.big != NULL)
    g_string_append (out, v->u.i.big);
  else
    g_string_append_printf (out, "%" G_GINT64_FORMAT, v->u.i.value);
}

static void
append_repr (GString           *out,
             const AnotPyValue *v)
{
  switch (anot_py_value_get_kind (v))
    {
    case ANOT_PY_NONE:
      g_string_append (out, "None");
      break;
    case ANOT_PY_BOOL:
      g_string_append (out, v->u.b ? "True" : "False");
      break;
    case ANOT_PY_INT:
      append_int (out, v);
      break;
    case ANOT_PY_FLOAT:
      append_float_repr (out, v->u.f);
      break;
    case ANOT_PY_STR:
      append_str_repr (out, v->u.s.str, v->u.s.len);
      break;
    case ANOT_PY_LIST:
    case ANOT_PY_TUPLE:
      g_string_append_c (out, v->kind == ANOT_PY_LIST ? '[' : '(');
      for (guint i = 0; i < v->u.items->len; i++)
        {
          if (i > 0)
            g_string_append (out, ", ");
          append_repr (out, g_ptr_array_index (v->u.items, i));
        }
      if (v->kind == ANOT_PY_TUPLE && v->u.items->len == 1)
        g_string_append_c (out, ',');
      g_string_append_c (out, v->kind == ANOT_PY_LIST ? ']' : ')');
      break;
    case ANOT_PY_DICT:
      g_string_append_c (out, '{');
      for (guint i = 0; i < v->u.d.keys->len; i++)
        {
          if (i > 0)
            g_string_append (out, ", ");
          append_repr (out, g_ptr_array_index (v->u.d.keys, i));
          g_string_append (out, ": ");
          append_repr (out, g_ptr_array_index (v->u.d.values, i));
        }
      g_string_append_c (out, '}');
      break;
    default:
      g_assert_not_reached ();
    }
}

void
anot_py_append_repr (GString           *out,
                     const AnotPyValue *value)
{
  append_repr (out, value);
}

void
anot_py_append_float_repr (GString *out,
                           double   x)
{
  append_float_repr (out, x);
}

void
anot_py_append_str_repr (GString    *out,
                         const char *str,
                         gsize       len)
{
  append_str_repr (out, str, len);
}

char *
anot_py_value_repr (const AnotPyValue *value)
{
  GString *out = g_string_new (NULL);

  append_repr (out, value);
  return g_string_free (out, FALSE);
}

char *
anot_py_value_str (const AnotPyValue *value)
{
  if (value != NULL && value->kind == ANOT_PY_STR)
    return g_strndup (value->u.s.str, value->u.s.len);
  return anot_py_value_repr (value);
}

char *
anot_py_lower (const char *str)
{
  gsize len = strlen (str);
  char *out;

  for (gsize i = 0; i < len; i++)
    if ((guchar) str[i] >= 0x80)
      return g_utf8_strdown (str, len);

  out = g_malloc (len + 1);
  for (gsize i = 0; i < len; i++)
    out[i] = g_ascii_tolower (str[i]);
  out[len] = '\0';
  return out;
}

const char *
anot_py_value_get_lower_str (AnotPyValue *value)
{
  char *text;
  char *lower;

  g_return_val_if_fail (value != NULL, NULL);

  lower = g_atomic_pointer_get (&value->lower_str);
  if (lower != NULL)
    return lower;

  text = anot_py_value_str (value);
  lower = anot_py_lower (text);
  g_free (text);

  if (!g_atomic_pointer_compare_and_exchange (&value->lower_str, NULL, lower))
    {
      g_free (lower);
      lower = g_atomic_pointer_get (&value->lower_str);
    }
  return lower;
}

/* ------------------------------------------------------------------------ *
 * JSON
 * ------------------------------------------------------------------------ */

AnotPyValue *
anot_py_value_new_from_json (JsonNode *node)
{
  if (node == NULL)
    return anot_py_value_new_none ();

  switch (json_node_get_node_type (node))
    {
    case JSON_NODE_NULL:
      return anot_py_value_new_none ();

    case JSON_NODE_VALUE:
      {
        GType type = json_node_get_value_type (node);

        if (type == G_TYPE_BOOLEAN)
          return anot_py_value_new_bool (json_node_get_boolean (node));
        if (type == G_TYPE_INT64)
          return anot_py_value_new_int (json_node_get_int (node));
        if (type == G_TYPE_DOUBLE)
          return anot_py_value_new_float (json_node_get_double (node));
        if (type == G_TYPE_STRING)
          return anot_py_value_new_string (json_node_get_string (node), -1);
        return anot_py_value_new_none ();
      }

    case JSON_NODE_ARRAY:
      {
        JsonArray *array = json_node_get_array (node);
        AnotPyValue *list = anot_py_value_new_list ();
        guint n = json_array_get_length (array);

        for (guint i = 0; i < n; i++)
          anot_py_value_append (list, anot_py_value_new_from_json (json_array_get_element (array, i)));
        return list;
      }

    case JSON_NODE_OBJECT:
      {
        JsonObject *object = json_node_get_object (node);
        AnotPyValue *dict = anot_py_value_new_dict ();
        JsonObjectIter iter;
        const char *name;
        JsonNode *member;

        json_object_iter_init_ordered (&iter, object);
        while (json_object_iter_next_ordered (&iter, &name, &member))
          anot_py_value_dict_set (dict, anot_py_value_new_string (name, -1),
                                  anot_py_value_new_from_json (member));
        return dict;
      }

    default:
      return anot_py_value_new_none ();
    }
}

/* ------------------------------------------------------------------------ *
 * ast.literal_eval
 * ------------------------------------------------------------------------ */

typedef struct
{
  const char *start;
  const char *p;
  const char *end;
  guint depth;
  guint nesting;   /* open brackets: newlines only end the literal outside */
  GError **error;
} Parser;

static gboolean G_GNUC_PRINTF (2, 3)
parser_fail (Parser     *parser,
             const char *format,
             ...)
{
  if (parser->error != NULL && *parser->error == NULL)
    {
      va_list args;
      g_autofree char *msg = NULL;

      va_start (args, format);
      msg = g_strdup_vprintf (format, args);
      va_end (args);
      g_set_error (parser->error, ANOT_ERROR, ANOT_ERROR_PARSE,
                   "Python literal, offset %ld: %s",
                   (long) (parser->p - parser->start), msg);
    }
  return FALSE;
}

/* Whitespace between tokens.  Outside brackets a newline ends the logical
 * line, hence the expression, so it is not skipped there. */
static void
skip_ws (Parser *parser)
{
  while (parser->p < parser->end)
    {
      char c = *parser->p;

      if ((c == '\n' || c == '\r') && parser->nesting == 0)
        break;
      if (c == ' ' || c == '\t' || c == '\f' || c == '\n' || c == '\r')
        parser->p++;
      else if (c == '\\' && parser->p + 1 < parser->end &&
               (parser->p[1] == '\n' || parser->p[1] == '\r'))
        parser->p += 2;
      else if (c == '#')
        {
          while (parser->p < parser->end && *parser->p != '\n' && *parser->p != '\r')
            parser->p++;
        }
      else
        break;
    }
}

static gboolean
is_ident_char (char c)
{
  return g_ascii_isalnum (c) || c == '_' || (guchar) c >= 0x80;
}

/* Length of a string prefix (u, r, U, R) if a string literal starts at
 * @p; -1 if no string starts here.  Bytes and f-strings are rejected
 * later through *unsupported. */
static int
string_prefix_len (Parser   *parser,
                   gboolean *unsupported)
{
  const char *p = parser->p;
  int n = 0;

  *unsupported = FALSE;
  while (p + n < parser->end && n < 2 && strchr ("uUrRbBfF", p[n]) != NULL && p[n] != '\0')
    n++;
  if (p + n >= parser->end || (p[n] != '\'' && p[n] != '"'))
    return -1;
  if (n == 0)
    return 0;

  if (n == 2)
    {
      char a = g_ascii_tolower (p[0]), b = g_ascii_tolower (p[1]);

      /* rb, br, rf, fr are valid Python, but not str literals. */
      if (a == b || a == 'u' || b == 'u')
        return -1;
      *unsupported = TRUE;
      return n;
    }

  if (g_ascii_tolower (p[0]) == 'b' || g_ascii_tolower (p[0]) == 'f')
    *unsupported = TRUE;
  return n;
}

static gboolean
append_code_point (Parser   *parser,
                   GString  *out,
                   gunichar  c)
{
  if (c == 0)
    return parser_fail (parser, "NUL characters are not supported");
  if (c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff))
    return parser_fail (parser, "invalid code point U+%04X", c);
  g_string_append_unichar (out, c);
  return TRUE;
}

static gboolean
parse_hex_digits (Parser   *parser,
                  int       count,
                  gunichar *out)
{
  gunichar value = 0;

  for (int i = 0; i < count; i++)
    {
      if (parser->p >= parser->end || !g_ascii_isxdigit (*parser->p))
        return parser_fail (parser, "truncated \\xXX / \\uXXXX escape");
      value = value * 16 + g_ascii_xdigit_value (*parser->p);
      parser->p++;
    }
  *out = value;
  return TRUE;
}

static gboolean
parse_one_string (Parser  *parser,
                  GString *out)
{
  gboolean unsupported;
  int prefix = string_prefix_len (parser, &unsupported);
  gboolean raw = FALSE;
  gboolean triple;
  char quote;

  if (prefix < 0)
    return parser_fail (parser, "expected a string");
  if (unsupported)
    return parser_fail (parser, "bytes and f-string literals are not supported");
  for (int i = 0; i < prefix; i++)
    if (g_ascii_tolower (parser->p[i]) == 'r')
      raw = TRUE;
  parser->p += prefix;

  quote = *parser->p;
  triple = parser->end - parser->p >= 3 && parser->p[1] == quote && parser->p[2] == quote;
  parser->p += triple ? 3 : 1;

  for (;;)
    {
      char c;

      if (parser->p >= parser->end)
        return parser_fail (parser, "unterminated string literal");

      c = *parser->p;
      if (c == quote)
        {
          if (!triple)
            {
              parser->p++;
              return TRUE;
            }
          if (parser->end - parser->p >= 3 && parser->p[1] == quote && parser->p[2] == quote)
            {
              parser->p += 3;
              return TRUE;
            }
          g_string_append_c (out, c);
          parser->p++;
          continue;
        }

      if ((c == '\n' || c == '\r') && !triple)
        return parser_fail (parser, "unterminated string literal");

      if (c == '\0')
        return parser_fail (parser, "NUL characters are not supported");

      if (c != '\\')
        {
          g_string_append_c (out, c);
          parser->p++;
          continue;
        }

      /* A backslash. */
      if (parser->p + 1 >= parser->end)
        return parser_fail (parser, "unterminated string literal");

      if (raw)
        {
          /* In a raw string the backslash stays, but still protects the
           * next character from ending the string. */
          if (parser->p[1] == '\r' && parser->p + 2 < parser->end && parser->p[2] == '\n')
            {
              g_string_append_len (out, parser->p, 3);
              parser->p += 3;
            }
          else
            {
              g_string_append_len (out, parser->p, 2);
              parser->p += 2;
            }
          continue;
        }

      parser->p++;
      c = *parser->p++;
      switch (c)
        {
        case '\n':
          break;
        case '\r':
          if (parser->p < parser->end && *parser->p == '\n')
            parser->p++;
          break;
        case '\\': g_string_append_c (out, '\\'); break;
        case '\'': g_string_append_c (out, '\''); break;
        case '"': g_string_append_c (out, '"'); break;
        case 'a': g_string_append_c (out, '\a'); break;
        case 'b': g_string_append_c (out, '\b'); break;
        case 'f': g_string_append_c (out, '\f'); break;
        case 'n': g_string_append_c (out, '\n'); break;
        case 'r': g_string_append_c (out, '\r'); break;
        case 't': g_string_append_c (out, '\t'); break;
        case 'v': g_string_append_c (out, '\v'); break;
        case '0': case '1': case '2': case '3':
        case '4': case '5': case '6': case '7':
          {
            gunichar value = c - '0';

            for (int i = 0; i < 2 && parser->p < parser->end &&
                 *parser->p >= '0' && *parser->p <= '7'; i++)
              value = value * 8 + (*parser->p++ - '0');
            if (!append_code_point (parser, out, value))
              return FALSE;
          }
          break;
        case 'x':
        case 'u':
        case 'U':
          {
            gunichar value = 0;

            if (!parse_hex_digits (parser, c == 'x' ? 2 : c == 'u' ? 4 : 8, &value) ||
                !append_code_point (parser, out, value))
              return FALSE;
          }
          break;
        case 'N':
          return parser_fail (parser, "\\N{...} escapes are not supported");
        default:
          /* Unknown escapes keep their backslash (a DeprecationWarning
           * in CPython, not an error). */
          g_string_append_c (out, '\\');
          g_string_append_c (out, c);
          break;
        }
    }
}

static AnotPyValue *
parse_string (Parser *parser)
{
  GString *out = g_string_new (NULL);

  /* Adjacent literals concatenate: 'a' 'b' is 'ab'. */
  for (;;)
    {
      gboolean unsupported;

      if (!parse_one_string (parser, out))
        {
          g_string_free (out, TRUE);
          return NULL;
        }
      skip_ws (parser);
      if (parser->p >= parser->end || string_prefix_len (parser, &unsupported) < 0)
        break;
    }

  return py_value_new_string_take (out);
}

/* Digits with single underscores between them; returns the count of
 * digits read (0 if none). */
static gsize
scan_digits (Parser   *parser,
             GString  *clean,
             gboolean (*is_digit) (gint c),
             gboolean *bad_underscore)
{
  gsize n = 0;

  while (parser->p < parser->end)
    {
      char c = *parser->p;

      if (c == '_')
        {
          if (n == 0 || parser->p + 1 >= parser->end || !is_digit (parser->p[1]))
            {
              *bad_underscore = TRUE;
              return n;
            }
          parser->p++;
          continue;
        }
      if (!is_digit (c))
        break;
      g_string_append_c (clean, c);
      parser->p++;
      n++;
    }
  return n;
}

static gboolean
is_dec_digit (gint c)
{
  return c >= '0' && c <= '9';
}

static gboolean
is_hex_digit (gint c)
{
  return g_ascii_isxdigit (c);
}

static gboolean
is_oct_digit (gint c)
{
  return c >= '0' && c <= '7';
}

static gboolean
is_bin_digit (gint c)
{
  return c == '0' || c == '1';
}

static AnotPyValue *
parse_number (Parser   *parser,
              gboolean  negative)
{
  g_autoptr(GString) clean = g_string_new (negative ? "-" : "");
  gboolean bad_underscore = FALSE;
  gboolean is_float = FALSE;
  gsize int_digits;

  if (*parser->p == '0' && parser->p + 1 < parser->end &&
      strchr ("xXoObB", parser->p[1]) != NULL && parser->p[1] != '\0')
    {
      char base_char = g_ascii_tolower (parser->p[1]);
      int base = base_char == 'x' ? 16 : base_char == 'o' ? 8 : 2;
      g_autoptr(GString) digits = g_string_new (NULL);
      guint64 value;
      char *endptr;

      parser->p += 2;
      /* 0x_1f is valid: an underscore may follow the base prefix. */
      if (parser->p < parser->end && *parser->p == '_')
        parser->p++;
      if (scan_digits (parser, digits, base == 16 ? is_hex_digit : base == 8 ? is_oct_digit : is_bin_digit,
                       &bad_underscore) == 0 || bad_underscore)
        {
          parser_fail (parser, "invalid number literal");
          return NULL;
        }
      if (parser->p < parser->end && is_ident_char (*parser->p))
        {
          parser_fail (parser, "invalid number literal");
          return NULL;
        }
      errno = 0;
      value = g_ascii_strtoull (digits->str, &endptr, base);
      if (errno != 0 || value > (guint64) G_MAXINT64 + (negative ? 1 : 0))
        {
          parser_fail (parser, "integer literal too large");
          return NULL;
        }
      return anot_py_value_new_int (negative ? (gint64) (0 - value) : (gint64) value);
    }

  int_digits = scan_digits (parser, clean, is_dec_digit, &bad_underscore);
  if (bad_underscore)
    {
      parser_fail (parser, "invalid decimal literal");
      return NULL;
    }

  if (parser->p < parser->end && *parser->p == '.')
    {
      gsize frac_digits;

      is_float = TRUE;
      g_string_append_c (clean, '.');
      parser->p++;
      if (parser->p < parser->end && *parser->p == '_')
        {
          parser_fail (parser, "invalid decimal literal");
          return NULL;
        }
      frac_digits = scan_digits (parser, clean, is_dec_digit, &bad_underscore);
      if (bad_underscore || (int_digits == 0 && frac_digits == 0))
        {
          parser_fail (parser, "invalid decimal literal");
          return NULL;
        }
    }
  else if (int_digits == 0)
    {
      parser_fail (parser, "invalid syntax");
      return NULL;
    }

  if (parser->p < parser->end && (*parser->p == 'e' || *parser->p == 'E'))
    {
      const char *save = parser->p;

      g_string_append_c (clean, 'e');
      parser->p++;
      if (parser->p < parser->end && (*parser->p == '+' || *parser->p == '-'))
        g_string_append_c (clean, *parser->p++);
      if (scan_digits (parser, clean, is_dec_digit, &bad_underscore) == 0 || bad_underscore)
        {
          parser->p = save;
          parser_fail (parser, "invalid decimal literal");
          return NULL;
        }
      is_float = TRUE;
    }

  if (parser->p < parser->end && (*parser->p == 'j' || *parser->p == 'J'))
    {
      parser_fail (parser, "complex literals are not supported");
      return NULL;
    }
  if (parser->p < parser->end && is_ident_char (*parser->p))
    {
      parser_fail (parser, "invalid decimal literal");
      return NULL;
    }

  if (is_float)
    return anot_py_value_new_float (g_ascii_strtod (clean->str, NULL));

  {
    const char *digits = clean->str + (negative ? 1 : 0);
    gint64 value;
    char *endptr;

    /* "0" may repeat ("00"), but other literals may not have leading zeros. */
    if (digits[0] == '0')
      {
        for (const char *d = digits; *d; d++)
          if (*d != '0')
            {
              parser_fail (parser, "leading zeros in decimal integer literals are not permitted");
              return NULL;
            }
        return anot_py_value_new_int (0);
      }

    errno = 0;
    value = g_ascii_strtoll (clean->str, &endptr, 10);
    if (errno == ERANGE)
      return py_value_new_big_int (clean->str);
    return anot_py_value_new_int (value);
  }
}

static AnotPyValue *parse_value (Parser *parser);

static gboolean
expect_char (Parser *parser,
             char    c)
{
  skip_ws (parser);
  if (parser->p < parser->end && *parser->p == c)
    {
      parser->p++;
      return TRUE;
    }
  return parser_fail (parser, "expected '%c'", c);
}

/* Only immutable values can be dict keys (TypeError: unhashable type). */
static gboolean
is_hashable (const AnotPyValue *v)
{
  if (v->kind == ANOT_PY_LIST || v->kind == ANOT_PY_DICT)
    return FALSE;
  if (v->kind == ANOT_PY_TUPLE)
    for (guint i = 0; i < v->u.items->len; i++)
      if (!is_hashable (g_ptr_array_index (v->u.items, i)))
        return FALSE;
  return TRUE;
}

static AnotPyValue *parse_dict_items (Parser *parser, AnotPyValue *dict);

static AnotPyValue *
parse_dict (Parser *parser)
{
  g_autoptr(AnotPyValue) dict = anot_py_value_new_dict ();
  AnotPyValue *result;

  parser->p++;  /* { */
  parser->nesting++;
  result = parse_dict_items (parser, dict);
  parser->nesting--;
  return result;
}

static AnotPyValue *
parse_dict_items (Parser      *parser,
                  AnotPyValue *dict_in)
{
  g_autoptr(AnotPyValue) dict = anot_py_value_ref (dict_in);

  for (;;)
    {
      AnotPyValue *key;
      AnotPyValue *value;

      skip_ws (parser);
      if (parser->p < parser->end && *parser->p == '}')
        {
          parser->p++;
          return g_steal_pointer (&dict);
        }
      if (parser->p < parser->end && *parser->p == '*')
        {
          parser_fail (parser, "dict unpacking is not a literal");
          return NULL;
        }

      key = parse_value (parser);
      if (key == NULL)
        return NULL;
      skip_ws (parser);
      if (parser->p < parser->end && (*parser->p == ',' || *parser->p == '}') &&
          anot_py_value_get_length (dict) == 0)
        {
          anot_py_value_unref (key);
          parser_fail (parser, "set literals are not supported");
          return NULL;
        }
      if (!expect_char (parser, ':'))
        {
          anot_py_value_unref (key);
          return NULL;
        }
      if (!is_hashable (key))
        {
          anot_py_value_unref (key);
          parser_fail (parser, "unhashable dict key");
          return NULL;
        }
      value = parse_value (parser);
      if (value == NULL)
        {
          anot_py_value_unref (key);
          return NULL;
        }
      anot_py_value_dict_set (dict, key, value);

      skip_ws (parser);
      if (parser->p < parser->end && *parser->p == ',')
        {
          parser->p++;
          continue;
        }
      if (!expect_char (parser, '}'))
        return NULL;
      return g_steal_pointer (&dict);
    }
}

/* A list, a tuple, or a parenthesised value. */
static AnotPyValue *
parse_sequence (Parser *parser)
{
  gboolean is_list = *parser->p == '[';
  char close = is_list ? ']' : ')';
  g_autoptr(AnotPyValue) seq = is_list ? anot_py_value_new_list () : anot_py_value_new_tuple ();
  gboolean saw_comma = FALSE;

  parser->p++;
  parser->nesting++;
  for (;;)
    {
      AnotPyValue *item;

      skip_ws (parser);
      if (parser->p < parser->end && *parser->p == close)
        {
          parser->p++;
          break;
        }

      item = parse_value (parser);
      if (item == NULL)
        {
          parser->nesting--;
          return NULL;
        }
      anot_py_value_append (seq, item);

      skip_ws (parser);
      if (parser->p < parser->end && *parser->p == ',')
        {
          parser->p++;
          saw_comma = TRUE;
          continue;
        }
      if (!expect_char (parser, close))
        {
          parser->nesting--;
          return NULL;
        }
      break;
    }
  parser->nesting--;

  /* (x) is x itself, not a 1-tuple. */
  if (!is_list && !saw_comma && seq->u.items->len == 1)
    return anot_py_value_ref (g_ptr_array_index (seq->u.items, 0));

  return g_steal_pointer (&seq);
}

static AnotPyValue *
parse_value (Parser *parser)
{
  AnotPyValue *result = NULL;
  gboolean unsupported;
  char c;

  skip_ws (parser);
  if (parser->p >= parser->end)
    {
      parser_fail (parser, "unexpected end of literal");
      return NULL;
    }
  if (parser->depth >= MAX_DEPTH)
    {
      parser_fail (parser, "literal nested too deeply");
      return NULL;
    }

  parser->depth++;
  c = *parser->p;

  if (c == '{')
    result = parse_dict (parser);
  else if (c == '[' || c == '(')
    result = parse_sequence (parser);
  else if (string_prefix_len (parser, &unsupported) >= 0)
    result = parse_string (parser);
  else if (g_ascii_isdigit (c) ||
           (c == '.' && parser->p + 1 < parser->end && g_ascii_isdigit (parser->p[1])))
    result = parse_number (parser, FALSE);
  else if (c == '+' || c == '-')
    {
      /* A sign is allowed directly on a number literal only (-1, not
       * -True or --1). */
      parser->p++;
      skip_ws (parser);
      if (parser->p < parser->end &&
          (g_ascii_isdigit (*parser->p) ||
           (*parser->p == '.' && parser->p + 1 < parser->end && g_ascii_isdigit (parser->p[1]))))
        result = parse_number (parser, c == '-');
      else
        parser_fail (parser, "malformed node or string");
    }
  else if (g_ascii_isalpha (c) || c == '_' || (guchar) c >= 0x80)
    {
      const char *start = parser->p;
      gsize len;

      while (parser->p < parser->end && is_ident_char (*parser->p))
        parser->p++;
      len = parser->p - start;

      if (len == 4 && memcmp (start, "True", 4) == 0)
        result = anot_py_value_new_bool (TRUE);
      else if (len == 5 && memcmp (start, "False", 5) == 0)
        result = anot_py_value_new_bool (FALSE);
      else if (len == 4 && memcmp (start, "None", 4) == 0)
        result = anot_py_value_new_none ();
      else
        {
          parser->p = start;
          parser_fail (parser, "malformed node or string: name '%.*s'", (int) len, start);
        }
    }
  else
    parser_fail (parser, "invalid syntax");

  parser->depth--;
  return result;
}

AnotPyValue *
anot_py_literal_parse (const char  *text,
                       gssize       len,
                       GError     **error)
{
  Parser parser;
  AnotPyValue *value;

  g_return_val_if_fail (text != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (len < 0)
    len = strlen (text);

  parser.start = text;
  parser.p = text;
  parser.end = text + len;
  parser.depth = 0;
  parser.error = error;

  /* literal_eval strips leading spaces and tabs. */
  while (parser.p < parser.end && (*parser.p == ' ' || *parser.p == '\t'))
    parser.p++;

  parser.nesting = 0;

  value = parse_value (&parser);
  if (value == NULL)
    return NULL;

  /* A bare comma at the top makes a tuple: "{}, 1" is ({}, 1). */
  skip_ws (&parser);
  if (parser.p < parser.end && *parser.p == ',')
    {
      AnotPyValue *tuple = anot_py_value_new_tuple ();

      anot_py_value_append (tuple, value);
      value = tuple;
      while (parser.p < parser.end && *parser.p == ',')
        {
          AnotPyValue *next;

          parser.p++;
          skip_ws (&parser);
          if (parser.p >= parser.end || *parser.p == '\n' || *parser.p == '\r')
            break;
          next = parse_value (&parser);
          if (next == NULL)
            {
              anot_py_value_unref (value);
              return NULL;
            }
          anot_py_value_append (value, next);
          skip_ws (&parser);
        }
    }

  /* Then only blank lines and comments. */
  parser.nesting = 1;
  skip_ws (&parser);
  if (parser.p != parser.end)
    {
      parser_fail (&parser, "unexpected text after the literal");
      anot_py_value_unref (value);
      return NULL;
    }

  return value;
}

/* ------------------------------------------------------------------------ *
 * Python str methods
 * ------------------------------------------------------------------------ */

/* str.isspace() */
static gboolean
py_unichar_isspace (gunichar c)
{
  if (c < 0x80)
    return c == ' ' || (c >= 0x09 && c <= 0x0d) || (c >= 0x1c && c <= 0x1f);
  if (c == 0x85)
    return TRUE;
  switch (g_unichar_type (c))
    {
    case G_UNICODE_SPACE_SEPARATOR:
    case G_UNICODE_LINE_SEPARATOR:
    case G_UNICODE_PARAGRAPH_SEPARATOR:
      return TRUE;
    default:
      return FALSE;
    }
}

char *
anot_py_strip (const char *str,
               gsize       len)
{
  const char *start = str;
  const char *end = str + len;

  while (start < end)
    {
      gunichar c = (guchar) *start < 0x80 ? (gunichar) *start : g_utf8_get_char_validated (start, end - start);

      if (c == (gunichar) -1 || c == (gunichar) -2 || !py_unichar_isspace (c))
        break;
      start = (guchar) *start < 0x80 ? start + 1 : g_utf8_next_char (start);
    }

  while (end > start)
    {
      const char *prev = end - 1;
      gunichar c;

      if ((guchar) *prev >= 0x80)
        {
          prev = g_utf8_find_prev_char (start, end);
          if (prev == NULL)
            break;
        }
      c = (guchar) *prev < 0x80 ? (gunichar) *prev : g_utf8_get_char_validated (prev, end - prev);
      if (c == (gunichar) -1 || c == (gunichar) -2 || !py_unichar_isspace (c))
        break;
      end = prev;
    }

  return g_strndup (start, end - start);
}

gboolean
anot_py_parse_int (const char *str,
                   double     *out)
{
  g_autofree char *t = anot_py_strip (str, strlen (str));
  const char *p = t;
  gboolean negative = FALSE;
  gboolean prev_digit = FALSE;
  gsize n_digits = 0;
  double value = 0;

  if (*p == '+' || *p == '-')
    negative = *p++ == '-';

  while (*p != '\0')
    {
      gunichar c = g_utf8_get_char_validated (p, -1);
      int digit;

      if (c == (gunichar) -1 || c == (gunichar) -2)
        return FALSE;
      if (c == '_')
        {
          /* One underscore, between two digits. */
          if (!prev_digit)
            return FALSE;
          prev_digit = FALSE;
          p++;
          continue;
        }
      digit = g_unichar_digit_value (c);
      if (digit < 0)
        return FALSE;
      value = value * 10 + digit;
      n_digits++;
      prev_digit = TRUE;
      p = g_utf8_next_char (p);
    }

  if (n_digits == 0 || !prev_digit)
    return FALSE;

  if (out != NULL)
    *out = negative ? -value : value;
  return TRUE;
}

gboolean
anot_py_parse_float (const char *str,
                     double     *out)
{
  g_autofree char *t = anot_py_strip (str, strlen (str));
  g_autoptr(GString) clean = g_string_new (NULL);
  const char *p = t;
  const char *word;
  gboolean negative = FALSE;
  gsize int_digits = 0, frac_digits = 0;
  char prev = '\0';

  if (*p == '+' || *p == '-')
    negative = *p++ == '-';

  word = p;
  if (g_ascii_strcasecmp (word, "inf") == 0 || g_ascii_strcasecmp (word, "infinity") == 0)
    {
      if (out != NULL)
        *out = negative ? -INFINITY : INFINITY;
      return TRUE;
    }
  if (g_ascii_strcasecmp (word, "nan") == 0)
    {
      if (out != NULL)
        *out = NAN;
      return TRUE;
    }

  if (negative)
    g_string_append_c (clean, '-');

  /* [digits][.digits][(e|E)[sign]digits], underscores between digits. */
  for (; g_ascii_isdigit (*p) || (*p == '_' && g_ascii_isdigit (prev) && g_ascii_isdigit (p[1])); p++)
    {
      prev = *p;
      if (*p != '_')
        {
          g_string_append_c (clean, *p);
          int_digits++;
        }
    }
  if (*p == '.')
    {
      g_string_append_c (clean, '.');
      prev = *p++;
      for (; g_ascii_isdigit (*p) || (*p == '_' && g_ascii_isdigit (prev) && g_ascii_isdigit (p[1])); p++)
        {
          prev = *p;
          if (*p != '_')
            {
              g_string_append_c (clean, *p);
              frac_digits++;
            }
        }
    }
  if (int_digits == 0 && frac_digits == 0)
    return FALSE;
  if (*p == 'e' || *p == 'E')
    {
      gsize exp_digits = 0;

      g_string_append_c (clean, 'e');
      prev = *p++;
      if (*p == '+' || *p == '-')
        g_string_append_c (clean, *p++);
      for (; g_ascii_isdigit (*p) || (*p == '_' && g_ascii_isdigit (prev) && g_ascii_isdigit (p[1])); p++)
        {
          prev = *p;
          if (*p != '_')
            {
              g_string_append_c (clean, *p);
              exp_digits++;
            }
        }
      if (exp_digits == 0)
        return FALSE;
    }
  if (*p != '\0')
    return FALSE;

  if (out != NULL)
    *out = g_ascii_strtod (clean->str, NULL);
  return TRUE;
}

gboolean
anot_py_value_to_float (const AnotPyValue *value,
                        double            *out)
{
  switch (anot_py_value_get_kind (value))
    {
    case ANOT_PY_BOOL:
      if (out != NULL)
        *out = value->u.b ? 1.0 : 0.0;
      return TRUE;
    case ANOT_PY_INT:
    case ANOT_PY_FLOAT:
      return anot_py_value_is_number (value, out);
    case ANOT_PY_STR:
      return anot_py_parse_float (value->u.s.str, out);
    case ANOT_PY_NONE:
    case ANOT_PY_LIST:
    case ANOT_PY_TUPLE:
    case ANOT_PY_DICT:
    default:
      return FALSE;
    }
}

/* ------------------------------------------------------------------------ *
 * The two normalisation passes (evidence.md §5)
 * ------------------------------------------------------------------------ */

static gboolean
str_has_prefix_len (const char *s,
                    gsize       len,
                    const char *prefix)
{
  gsize plen = strlen (prefix);

  return len >= plen && memcmp (s, prefix, plen) == 0;
}

AnotPyValue *
anot_py_normalise_pass_a (AnotPyValue *value)
{
  g_autofree char *t = NULL;
  gsize len;

  g_return_val_if_fail (value != NULL, NULL);

  if (value->kind != ANOT_PY_STR)
    return anot_py_value_ref (value);

  t = anot_py_strip (value->u.s.str, value->u.s.len);
  len = strlen (t);

  if (strcmp (t, "None") == 0)
    return anot_py_value_new_none ();
  if (strcmp (t, "True") == 0)
    return anot_py_value_new_bool (TRUE);
  if (strcmp (t, "False") == 0)
    return anot_py_value_new_bool (FALSE);

  if ((str_has_prefix_len (t, len, "u'") && t[len - 1] == '\'') ||
      (str_has_prefix_len (t, len, "u\"") && t[len - 1] == '"'))
    {
      /* t[2:-1]; empty when t is just u' or u" (Python slicing). */
      return anot_py_value_new_string (t + 2, len > 3 ? len - 3 : 0);
    }

  if (len >= 2 &&
      ((t[0] == '{' && t[len - 1] == '}') || (t[0] == '[' && t[len - 1] == ']')))
    {
      g_autoptr(AnotPyValue) parsed = anot_py_literal_parse (t, len, NULL);

      if (parsed != NULL && (parsed->kind == ANOT_PY_DICT || parsed->kind == ANOT_PY_LIST))
        return g_steal_pointer (&parsed);
    }

  /* The original, untrimmed string. */
  return anot_py_value_ref (value);
}

/* re.match(r"^u?['\"](.+)['\"]$", s): `.` stops at newlines, `$` also
 * matches before a final newline, and the quotes need not match. */
static gboolean
match_quoted (const char *s,
              gsize       len,
              gsize      *inner_start,
              gsize      *inner_len)
{
  gsize start;
  gsize close;

  if (len >= 2 && s[0] == 'u' && (s[1] == '\'' || s[1] == '"'))
    start = 2;
  else if (len >= 1 && (s[0] == '\'' || s[0] == '"'))
    start = 1;
  else
    return FALSE;

  if (len >= 1 && (s[len - 1] == '\'' || s[len - 1] == '"'))
    close = len - 1;
  else if (len >= 2 && s[len - 1] == '\n' && (s[len - 2] == '\'' || s[len - 2] == '"'))
    close = len - 2;
  else
    return FALSE;

  if (close < start + 1)
    return FALSE;
  if (memchr (s + start, '\n', close - start) != NULL)
    return FALSE;

  *inner_start = start;
  *inner_len = close - start;
  return TRUE;
}

AnotPyValue *
anot_py_normalise_pass_b (AnotPyValue *value)
{
  const char *s;
  gsize len;
  gsize inner_start, inner_len;

  g_return_val_if_fail (value != NULL, NULL);

  if (value->kind != ANOT_PY_STR)
    return anot_py_value_ref (value);

  s = value->u.s.str;
  len = value->u.s.len;

  if (strcmp (s, "True") == 0)
    return anot_py_value_new_bool (TRUE);
  if (strcmp (s, "False") == 0)
    return anot_py_value_new_bool (FALSE);

  /* s.lower() == "none": no non-ASCII character lowercases to n, o or e. */
  if (len == 4 && g_ascii_strcasecmp (s, "none") == 0)
    return anot_py_value_new_none ();

  if (match_quoted (s, len, &inner_start, &inner_len))
    return anot_py_value_new_string (s + inner_start, inner_len);

  if (len > 0 && (s[0] == '{' || s[0] == '['))
    {
      AnotPyValue *parsed = anot_py_literal_parse (s, len, NULL);

      if (parsed != NULL)
        return parsed;
    }

  return anot_py_value_ref (value);
}

AnotPyValue *
anot_py_value_get_pass_b (AnotPyValue *value)
{
  AnotPyValue *result;

  g_return_val_if_fail (value != NULL, NULL);

  if (value->kind != ANOT_PY_STR)
    return value;

  result = g_atomic_pointer_get (&value->pass_b);
  if (result != NULL)
    return result;

  result = anot_py_normalise_pass_b (value);
  if (result == value)
    {
      /* Identity: cache the value itself, without a reference (a
       * reference to oneself would never be dropped). */
      anot_py_value_unref (result);
    }

  if (!g_atomic_pointer_compare_and_exchange (&value->pass_b, NULL, result))
    {
      if (result != value)
        anot_py_value_unref (result);
      result = g_atomic_pointer_get (&value->pass_b);
    }
  return result;
}

/* json.loads (json.dumps (value)): non-finite floats, which JSON cannot
 * hold, become null. */
JsonNode *
anot_py_value_to_json (const AnotPyValue *value)
{
  JsonNode *node;

  switch (anot_py_value_get_kind (value))
    {
    case ANOT_PY_BOOL:
      return json_node_init_boolean (json_node_alloc (), anot_py_value_get_bool (value));
    case ANOT_PY_INT:
      return json_node_init_int (json_node_alloc (), anot_py_value_get_int (value));
    case ANOT_PY_FLOAT:
      {
        double d = anot_py_value_get_float (value);

        /* JSON has no NaN or infinity; Python's json.dumps writes them as
         * bare words, which are not JSON either. */
        if (!isfinite (d))
          return json_node_init_null (json_node_alloc ());
        return json_node_init_double (json_node_alloc (), d);
      }
    case ANOT_PY_STR:
      return json_node_init_string (json_node_alloc (), anot_py_value_get_string (value));
    case ANOT_PY_LIST:
    case ANOT_PY_TUPLE:
      {
        JsonArray *array = json_array_new ();

        for (guint i = 0; i < anot_py_value_get_length (value); i++)
          json_array_add_element (array, anot_py_value_to_json (anot_py_value_get_item (value, i)));
        node = json_node_init_array (json_node_alloc (), array);
        json_array_unref (array);
        return node;
      }
    case ANOT_PY_DICT:
      {
        JsonObject *object = json_object_new ();

        for (guint i = 0; i < anot_py_value_get_length (value); i++)
          {
            AnotPyValue *key = anot_py_value_dict_get_key (value, i);
            g_autofree char *name = NULL;

            /* Keys as json.dumps() writes them. */
            switch (anot_py_value_get_kind (key))
              {
              case ANOT_PY_BOOL:
                name = g_strdup (anot_py_value_get_bool (key) ? "true" : "false");
                break;
              case ANOT_PY_NONE:
                name = g_strdup ("null");
                break;
              default:
                name = anot_py_value_str (key);
              }

            json_object_set_member (object, name,
                                    anot_py_value_to_json (anot_py_value_get_item (value, i)));
          }
        node = json_node_init_object (json_node_alloc (), object);
        json_object_unref (object);
        return node;
      }
    case ANOT_PY_NONE:
    default:
      return json_node_init_null (json_node_alloc ());
    }
}
