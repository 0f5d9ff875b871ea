/* anot-expr-builtins.c: the builtins and the methods of AnotExpr
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#define ANOT_EXPR_IMPLEMENTATION

#include "anot-expr-eval-private.h"

/* ------------------------------------------------------------------------ *
 * Builtins
 * ------------------------------------------------------------------------ */

static AnotExprValue *
kwarg (Args       *a,
       const char *name)
{
  for (guint i = 0; i < a->n_kw; i++)
    if (strcmp (a->kwnames[i], name) == 0)
      return &a->kw[i];
  return NULL;
}

static gboolean
need_number (Eval          *ev,
             Args          *a,
             AnotExprValue  v,
             double        *out)
{
  if (!is_num (v))
    return fail (ev, ANOT_ERROR_EXPR_TYPE, a->offset, "must be real number, not %s", tname (v));
  *out = to_double (v);
  return TRUE;
}

static gboolean
need_int (Eval          *ev,
          Args          *a,
          AnotExprValue  v,
          gint64        *out)
{
  if (!is_intlike (v))
    return fail (ev, ANOT_ERROR_EXPR_TYPE, a->offset,
                  "'%s' object cannot be interpreted as an integer", tname (v));
  *out = to_int (v);
  return TRUE;
}

static gboolean
need_str (Eval          *ev,
          Args          *a,
          AnotExprValue  v,
          const char    *what)
{
  if (v.kind != ANOT_EXPR_STR)
    return fail (ev, ANOT_ERROR_EXPR_TYPE, a->offset, "%s must be str, not %s", what, tname (v));
  return TRUE;
}

static gboolean
b_abs (Eval          *ev,
       Args          *a,
       AnotExprValue *out)
{
  AnotExprValue v = a->v[0];

  if (is_intlike (v))
    {
      gint64 i = to_int (v);

      if (i == G_MININT64)
        return int_overflow (ev, a->offset);
      *out = anot_expr_value_int (i < 0 ? -i : i);
      return TRUE;
    }
  if (v.kind == ANOT_EXPR_FLOAT)
    {
      *out = anot_expr_value_float (fabs (v.u.f));
      return TRUE;
    }
  return fail (ev, ANOT_ERROR_EXPR_TYPE, a->offset, "bad operand type for abs(): '%s'", tname (v));
}

typedef struct {
  gboolean want;            /* any: TRUE, all: FALSE */
  gboolean result;
} AnyAll;

static gboolean
emit_any_all (Eval          *ev,
              AnotExprValue  item,
              gpointer       data,
              gboolean      *stop)
{
  AnyAll *s = data;

  if (anot_expr_value_truthy (item) == s->want)
    {
      s->result = s->want;
      *stop = TRUE;
    }
  anot_expr_value_unref (item);
  return TRUE;
}

static gboolean
any_all (Eval          *ev,
         Args          *a,
         gboolean       want,
         AnotExprValue *out)
{
  AnyAll s = { want, !want };
  gboolean stop = FALSE;

  if (!iterate (ev, a->v[0], a->offset, emit_any_all, &s, &stop))
    return FALSE;
  *out = anot_expr_value_bool (s.result);
  return TRUE;
}

static gboolean
b_any (Eval          *ev,
       Args          *a,
       AnotExprValue *out)
{
  return any_all (ev, a, TRUE, out);
}

static gboolean
b_all (Eval          *ev,
       Args          *a,
       AnotExprValue *out)
{
  return any_all (ev, a, FALSE, out);
}

static gboolean
b_bool (Eval          *ev,
        Args          *a,
        AnotExprValue *out)
{
  *out = anot_expr_value_bool (a->n > 0 && anot_expr_value_truthy (a->v[0]));
  return TRUE;
}

typedef struct {
  AnotExprDict *d;
  guint offset;
  guint index;
} DictFill;

static gboolean
emit_dict_pair (Eval          *ev,
                AnotExprValue  item,
                gpointer       data,
                gboolean      *stop)
{
  DictFill *f = data;
  AnotExprValue pair;
  gboolean ok;

  if (item.kind != ANOT_EXPR_LIST && item.kind != ANOT_EXPR_TUPLE &&
      item.kind != ANOT_EXPR_STR && item.kind != ANOT_EXPR_DICT)
    {
      fail (ev, ANOT_ERROR_EXPR_TYPE, f->offset,
             "cannot convert dictionary update sequence element #%u to a sequence", f->index);
      anot_expr_value_unref (item);
      return FALSE;
    }
  ok = collect (ev, item, f->offset, ANOT_EXPR_TUPLE, &pair);
  anot_expr_value_unref (item);
  if (!ok)
    return FALSE;
  if (pair.u.seq->len != 2)
    {
      fail (ev, ANOT_ERROR_EXPR_VALUE, f->offset,
             "dictionary update sequence element #%u has length %u; 2 is required",
             f->index, pair.u.seq->len);
      anot_expr_value_unref (pair);
      return FALSE;
    }
  if (!is_hashable (pair.u.seq->items[0]))
    {
      unhashable (ev, pair.u.seq->items[0], f->offset);
      anot_expr_value_unref (pair);
      return FALSE;
    }
  if (!check_items (ev, (guint64) f->d->len + 1, f->offset))
    {
      anot_expr_value_unref (pair);
      return FALSE;
    }
  anot_expr_dict_set (f->d, anot_expr_value_ref (pair.u.seq->items[0]),
                      anot_expr_value_ref (pair.u.seq->items[1]));
  anot_expr_value_unref (pair);
  f->index++;
  return TRUE;
}

static gboolean
b_dict (Eval          *ev,
        Args          *a,
        AnotExprValue *out)
{
  AnotExprValue d = anot_expr_value_new_dict ();

  if (a->n == 1)
    {
      AnotExprValue src = a->v[0];

      if (src.kind == ANOT_EXPR_DICT)
        {
          for (guint i = 0; i < src.u.d->len; i++)
            anot_expr_dict_set (d.u.d, anot_expr_value_ref (src.u.d->keys[i]),
                                anot_expr_value_ref (src.u.d->values[i]));
        }
      else
        {
          DictFill f = { d.u.d, a->offset, 0 };
          gboolean stop = FALSE;

          if (!iterate (ev, src, a->offset, emit_dict_pair, &f, &stop))
            {
              anot_expr_value_unref (d);
              return FALSE;
            }
        }
    }
  for (guint i = 0; i < a->n_kw; i++)
    anot_expr_dict_set (d.u.d, anot_expr_value_new_string (a->kwnames[i], -1),
                        anot_expr_value_ref (a->kw[i]));
  *out = d;
  return TRUE;
}

static gboolean
b_enumerate (Eval          *ev,
             Args          *a,
             AnotExprValue *out)
{
  AnotExprValue items;
  AnotExprValue r;
  AnotExprValue *startv = a->n > 1 ? &a->v[1] : kwarg (a, "start");
  gint64 start = 0;

  if (startv != NULL && !need_int (ev, a, *startv, &start))
    return FALSE;
  if (!collect (ev, a->v[0], a->offset, ANOT_EXPR_LIST, &items))
    return FALSE;
  r = anot_expr_value_new_list (items.u.seq->len);
  for (guint i = 0; i < items.u.seq->len; i++)
    {
      AnotExprValue pair = anot_expr_value_new_tuple (2);
      gint64 index;

      if (__builtin_add_overflow (start, (gint64) i, &index))
        {
          anot_expr_value_unref (pair);
          anot_expr_value_unref (r);
          anot_expr_value_unref (items);
          return int_overflow (ev, a->offset);
        }
      anot_expr_seq_append (pair.u.seq, anot_expr_value_int (index));
      anot_expr_seq_append (pair.u.seq, anot_expr_value_ref (items.u.seq->items[i]));
      anot_expr_seq_append (r.u.seq, pair);
    }
  anot_expr_value_unref (items);
  *out = r;
  return TRUE;
}

static gboolean
b_float (Eval          *ev,
         Args          *a,
         AnotExprValue *out)
{
  AnotExprValue v;
  double f;

  if (a->n == 0)
    {
      *out = anot_expr_value_float (0.0);
      return TRUE;
    }
  v = a->v[0];
  if (is_num (v))
    {
      *out = anot_expr_value_float (to_double (v));
      return TRUE;
    }
  if (v.kind == ANOT_EXPR_STR)
    {
      if (!anot_py_parse_float (v.u.s->data, &f) || strlen (v.u.s->data) != v.u.s->len)
        {
          g_autofree char *repr = anot_expr_value_repr (v);

          return fail (ev, ANOT_ERROR_EXPR_VALUE, a->offset, "could not convert string to float: %s", repr);
        }
      *out = anot_expr_value_float (f);
      return TRUE;
    }
  return fail (ev, ANOT_ERROR_EXPR_TYPE, a->offset,
                "float() argument must be a string or a real number, not '%s'", tname (v));
}

/* int(str) in base 10: surrounding whitespace, a sign, ASCII digits with
 * single underscores between them. */
static gboolean
parse_int (const char *s,
           gsize       len,
           gint64     *out,
           gboolean   *overflow)
{
  const char *p = s;
  const char *end = s + len;
  gboolean neg = FALSE;
  guint64 value = 0;
  gsize n_digits = 0;

  *overflow = FALSE;
  while (p < end && py_isspace (g_utf8_get_char (p)))
    p = g_utf8_next_char (p);
  while (end > p)
    {
      const char *prev = g_utf8_find_prev_char (p, end);

      if (prev == NULL || !py_isspace (g_utf8_get_char (prev)))
        break;
      end = prev;
    }
  if (p < end && (*p == '+' || *p == '-'))
    neg = *p++ == '-';
  for (; p < end; p++)
    {
      if (*p == '_' && n_digits > 0 && p + 1 < end && g_ascii_isdigit (p[1]))
        continue;
      if (!g_ascii_isdigit (*p))
        return FALSE;
      if (value > (G_GUINT64_CONSTANT (9223372036854775808) - (*p - '0')) / 10)
        *overflow = TRUE;
      else
        value = value * 10 + (*p - '0');
      n_digits++;
    }
  if (n_digits == 0)
    return FALSE;
  if (*overflow || (!neg && value > G_MAXINT64))
    {
      *overflow = TRUE;
      return TRUE;
    }
  *out = neg ? (gint64) (0 - value) : (gint64) value;
  return TRUE;
}

static gboolean
b_int (Eval          *ev,
       Args          *a,
       AnotExprValue *out)
{
  AnotExprValue v;
  gint64 i;

  if (a->n == 0)
    {
      *out = anot_expr_value_int (0);
      return TRUE;
    }
  v = a->v[0];
  if (is_intlike (v))
    {
      *out = anot_expr_value_int (to_int (v));
      return TRUE;
    }
  if (v.kind == ANOT_EXPR_FLOAT)
    {
      if (!float_to_int (ev, v.u.f, a->offset, &i))
        return FALSE;
      *out = anot_expr_value_int (i);
      return TRUE;
    }
  if (v.kind == ANOT_EXPR_STR)
    {
      gboolean overflow;

      if (!parse_int (v.u.s->data, v.u.s->len, &i, &overflow))
        {
          g_autofree char *repr = anot_expr_value_repr (v);

          return fail (ev, ANOT_ERROR_EXPR_VALUE, a->offset,
                        "invalid literal for int() with base 10: %s", repr);
        }
      if (overflow)
        return int_overflow (ev, a->offset);
      *out = anot_expr_value_int (i);
      return TRUE;
    }
  return fail (ev, ANOT_ERROR_EXPR_TYPE, a->offset,
                "int() argument must be a string or a real number, not '%s'", tname (v));
}

static gboolean
instance_of (AnotExprValue v,
             AnotExprValue type,
             gboolean     *valid)
{
  *valid = type.kind == ANOT_EXPR_FUNC && type.u.fn->type_kind >= 0;
  if (!*valid)
    return FALSE;
  if ((AnotExprKind) type.u.fn->type_kind == v.kind)
    return TRUE;
  /* bool is a subclass of int. */
  return type.u.fn->type_kind == ANOT_EXPR_INT && v.kind == ANOT_EXPR_BOOL;
}

static gboolean
b_isinstance (Eval          *ev,
              Args          *a,
              AnotExprValue *out)
{
  AnotExprValue type = a->v[1];
  gboolean valid = TRUE;
  gboolean result = FALSE;

  if (type.kind == ANOT_EXPR_TUPLE)
    {
      for (guint i = 0; i < type.u.seq->len; i++)
        {
          if (instance_of (a->v[0], type.u.seq->items[i], &valid))
            result = TRUE;
          if (!valid)
            break;
        }
    }
  else
    result = instance_of (a->v[0], type, &valid);
  if (!valid)
    return fail (ev, ANOT_ERROR_EXPR_TYPE, a->offset,
                  "isinstance() arg 2 must be a type, a tuple of types, or a union");
  *out = anot_expr_value_bool (result);
  return TRUE;
}

static gboolean
b_len (Eval          *ev,
       Args          *a,
       AnotExprValue *out)
{
  AnotExprValue v = a->v[0];

  switch (v.kind)
    {
    case ANOT_EXPR_STR:
      *out = anot_expr_value_int (anot_expr_str_n_chars (v.u.s));
      return TRUE;
    case ANOT_EXPR_LIST:
    case ANOT_EXPR_TUPLE:
      *out = anot_expr_value_int (v.u.seq->len);
      return TRUE;
    case ANOT_EXPR_DICT:
      *out = anot_expr_value_int (v.u.d->len);
      return TRUE;
    case ANOT_EXPR_NONE:
    case ANOT_EXPR_BOOL:
    case ANOT_EXPR_INT:
    case ANOT_EXPR_FLOAT:
    case ANOT_EXPR_FUNC:
    case ANOT_EXPR_MODULE:
    case ANOT_EXPR_GENERATOR:
    default:
      return fail (ev, ANOT_ERROR_EXPR_TYPE, a->offset, "object of type '%s' has no len()", tname (v));
    }
}

static gboolean
b_list (Eval          *ev,
        Args          *a,
        AnotExprValue *out)
{
  if (a->n == 0)
    {
      *out = anot_expr_value_new_list (0);
      return TRUE;
    }
  if (a->v[0].kind == ANOT_EXPR_LIST)
    {
      /* list(x) is a copy, and values are immutable: share the items. */
      AnotExprValue r = anot_expr_value_new_list (a->v[0].u.seq->len);

      for (guint i = 0; i < a->v[0].u.seq->len; i++)
        anot_expr_seq_append (r.u.seq, anot_expr_value_ref (a->v[0].u.seq->items[i]));
      *out = r;
      return TRUE;
    }
  return collect (ev, a->v[0], a->offset, ANOT_EXPR_LIST, out);
}

static gboolean
b_tuple (Eval          *ev,
         Args          *a,
         AnotExprValue *out)
{
  if (a->n == 0)
    {
      *out = anot_expr_value_new_tuple (0);
      return TRUE;
    }
  return collect (ev, a->v[0], a->offset, ANOT_EXPR_TUPLE, out);
}

typedef struct {
  AnotExprOp op;            /* GT for max, LT for min */
  gboolean have;
  AnotExprValue best;
  guint offset;
} Extreme;

static gboolean
emit_extreme (Eval          *ev,
              AnotExprValue  item,
              gpointer       data,
              gboolean      *stop)
{
  Extreme *x = data;
  gboolean better;

  if (!x->have)
    {
      x->best = item;
      x->have = TRUE;
      return TRUE;
    }
  if (!order (ev, x->op, item, x->best, x->offset, &better))
    {
      anot_expr_value_unref (item);
      return FALSE;
    }
  if (better)
    {
      anot_expr_value_unref (x->best);
      x->best = item;
    }
  else
    anot_expr_value_unref (item);
  return TRUE;
}

static gboolean
extreme (Eval          *ev,
         Args          *a,
         AnotExprOp     op,
         AnotExprValue *out)
{
  Extreme x = { op, FALSE, ANOT_EXPR_VALUE_NONE, a->offset };
  AnotExprValue *def = kwarg (a, "default");
  gboolean stop = FALSE;

  if (a->n == 1)
    {
      if (!iterate (ev, a->v[0], a->offset, emit_extreme, &x, &stop))
        {
          anot_expr_value_unref (x.best);
          return FALSE;
        }
      if (!x.have)
        {
          if (def != NULL)
            {
              *out = anot_expr_value_ref (*def);
              return TRUE;
            }
          return fail (ev, ANOT_ERROR_EXPR_VALUE, a->offset, "%s() arg is an empty sequence", a->name);
        }
      *out = x.best;
      return TRUE;
    }

  if (def != NULL)
    return fail (ev, ANOT_ERROR_EXPR_TYPE, a->offset,
                  "Cannot specify a default for %s() with multiple positional arguments", a->name);
  for (guint i = 0; i < a->n; i++)
    if (!emit_extreme (ev, anot_expr_value_ref (a->v[i]), &x, &stop))
      {
        anot_expr_value_unref (x.best);
        return FALSE;
      }
  *out = x.best;
  return TRUE;
}

static gboolean
b_max (Eval          *ev,
       Args          *a,
       AnotExprValue *out)
{
  return extreme (ev, a, ANOT_EXPR_OP_GT, out);
}

static gboolean
b_min (Eval          *ev,
       Args          *a,
       AnotExprValue *out)
{
  return extreme (ev, a, ANOT_EXPR_OP_LT, out);
}

static gboolean
b_range (Eval          *ev,
         Args          *a,
         AnotExprValue *out)
{
  gint64 start = 0, stop, step = 1;
  gint64 args[3] = { 0, 0, 0 };
  guint64 n = 0;
  AnotExprValue r;

  for (guint i = 0; i < a->n; i++)
    if (!need_int (ev, a, a->v[i], &args[i]))
      return FALSE;
  if (a->n == 1)
    stop = args[0];
  else
    {
      start = args[0];
      stop = args[1];
      if (a->n == 3)
        step = args[2];
    }
  if (step == 0)
    return fail (ev, ANOT_ERROR_EXPR_VALUE, a->offset, "range() arg 3 must not be zero");

  /* The length, in unsigned arithmetic so that no bound overflows. */
  if (step > 0 && start < stop)
    n = ((guint64) stop - (guint64) start - 1) / (guint64) step + 1;
  else if (step < 0 && start > stop)
    n = ((guint64) start - (guint64) stop - 1) / (0 - (guint64) step) + 1;
  if (!check_items (ev, n, a->offset))
    return FALSE;

  r = anot_expr_value_new_list (n);
  for (guint64 i = 0; i < n; i++)
    anot_expr_seq_append (r.u.seq, anot_expr_value_int (start + (gint64) (i * (guint64) step)));
  *out = r;
  return TRUE;
}

/* Rounds the decimal digits of @digits (no sign, no point) at @keep digits,
 * half to even on the digits after (@rest_nonzero: a non-zero digit beyond
 * them).  Returns the kept digits, one longer on carry. */
static char *
round_digits (const char *digits,
              gsize       keep,
              const char *rest)
{
  GString *q = g_string_new_len (digits, keep);
  gboolean up;

  if (rest[0] > '5')
    up = TRUE;
  else if (rest[0] < '5')
    up = FALSE;
  else
    {
      gboolean tie = strspn (rest + 1, "0.") == strlen (rest + 1);

      up = !tie || (q->len > 0 && (q->str[q->len - 1] - '0') % 2 == 1);
    }
  if (up)
    {
      gssize i = (gssize) q->len - 1;

      for (; i >= 0; i--)
        {
          if (q->str[i] == '9')
            q->str[i] = '0';
          else
            {
              q->str[i]++;
              break;
            }
        }
      if (i < 0)
        g_string_prepend_c (q, '1');
    }
  if (q->len == 0)
    g_string_append_c (q, '0');
  return g_string_free (q, FALSE);
}

/* round(x, ndigits) of a float: CPython rounds the exact binary value half
 * to even in decimal (dtoa mode 3).  glibc's printf does the same for
 * ndigits >= 0; for ndigits < 0 we round the exact expansion ourselves. */
static gboolean
round_float (Eval    *ev,
             double   x,
             gint64   ndigits,
             guint    offset,
             double  *out)
{
  if (!isfinite (x) || ndigits > 323)
    {
      *out = x;
      return TRUE;
    }
  if (ndigits < -308)
    {
      *out = 0.0 * x;
      return TRUE;
    }
  if (ndigits >= 0)
    {
      char format[16];
      char buffer[800];

      g_snprintf (format, sizeof format, "%%.%df", (int) ndigits);
      g_ascii_formatd (buffer, sizeof buffer, format, x);
      *out = g_ascii_strtod (buffer, NULL);
      return TRUE;
    }
  else
    {
      g_autofree char *buffer = g_malloc (1600);
      g_autofree char *q = NULL;
      g_autoptr(GString) result = NULL;
      const char *p = buffer;
      gboolean neg = FALSE;
      gsize int_len;
      gsize k = (gsize) -ndigits;

      g_ascii_formatd (buffer, 1600, "%.1100f", x);
      if (*p == '-')
        {
          neg = TRUE;
          p++;
        }
      int_len = strcspn (p, ".");
      if (k > int_len)
        {
          *out = neg ? -0.0 : 0.0;
          return TRUE;
        }
      q = round_digits (p, int_len - k, p + int_len - k);
      result = g_string_new (neg ? "-" : "");
      g_string_append (result, q);
      for (gsize i = 0; i < k; i++)
        g_string_append_c (result, '0');
      *out = g_ascii_strtod (result->str, NULL);
      if (isinf (*out))
        return fail (ev, ANOT_ERROR_EXPR_OVERFLOW, offset, "rounded value too large to represent");
      return TRUE;
    }
}

static gboolean
b_round (Eval          *ev,
         Args          *a,
         AnotExprValue *out)
{
  AnotExprValue v = a->v[0];
  AnotExprValue *nd = a->n > 1 ? &a->v[1] : kwarg (a, "ndigits");
  gint64 ndigits = 0;  /* need_int() sets it; GCC cannot tell once fail() is out of line */

  if (!is_num (v))
    return fail (ev, ANOT_ERROR_EXPR_TYPE, a->offset,
                  "type %s doesn't define __round__ method", tname (v));

  if (nd == NULL || nd->kind == ANOT_EXPR_NONE)
    {
      gint64 i;

      if (is_intlike (v))
        {
          *out = anot_expr_value_int (to_int (v));
          return TRUE;
        }
      /* rint() rounds half to even in the default rounding mode. */
      if (!float_to_int (ev, rint (v.u.f), a->offset, &i))
        return FALSE;
      *out = anot_expr_value_int (i);
      return TRUE;
    }

  if (!need_int (ev, a, *nd, &ndigits))
    return FALSE;

  if (v.kind == ANOT_EXPR_FLOAT)
    {
      double r;

      if (!round_float (ev, v.u.f, ndigits, a->offset, &r))
        return FALSE;
      *out = anot_expr_value_float (r);
      return TRUE;
    }

  /* An int: unchanged for ndigits >= 0, else half to even at 10**-ndigits. */
  {
    gint64 x = to_int (v);
    gint64 m = 1;
    gint64 r;
    gint64 q;

    if (ndigits >= 0)
      {
        *out = anot_expr_value_int (x);
        return TRUE;
      }
    for (gint64 i = 0; i < -ndigits; i++)
      {
        if (__builtin_mul_overflow (m, 10, &m))
          {
            *out = anot_expr_value_int (0);
            return TRUE;
          }
      }
    r = x % m;
    if (r < 0)
      r += m;
    q = x - r;
    if (r > m - r || (r == m - r && ((q / m) % 2 != 0)))
      {
        if (__builtin_add_overflow (q, m, &q))
          return int_overflow (ev, a->offset);
      }
    *out = anot_expr_value_int (q);
    return TRUE;
  }
}

/* A stable merge sort with Python's "<" (which may fail). */
static gboolean
merge_sort (Eval          *ev,
            AnotExprValue *items,
            AnotExprValue *tmp,
            guint          n,
            guint          offset)
{
  guint mid = n / 2;
  guint i = 0, j = mid, k = 0;

  if (n < 2)
    return TRUE;
  if (!merge_sort (ev, items, tmp, mid, offset) ||
      !merge_sort (ev, items + mid, tmp, n - mid, offset))
    return FALSE;
  while (i < mid && j < n)
    {
      gboolean less;

      if (!STEP (ev, offset) || !order (ev, ANOT_EXPR_OP_LT, items[j], items[i], offset, &less))
        return FALSE;
      tmp[k++] = less ? items[j++] : items[i++];
    }
  while (i < mid)
    tmp[k++] = items[i++];
  while (j < n)
    tmp[k++] = items[j++];
  memcpy (items, tmp, n * sizeof (AnotExprValue));
  return TRUE;
}

static void
reverse_values (AnotExprValue *items,
                guint          n)
{
  for (guint i = 0; i < n / 2; i++)
    {
      AnotExprValue t = items[i];

      items[i] = items[n - 1 - i];
      items[n - 1 - i] = t;
    }
}

static gboolean
b_sorted (Eval          *ev,
          Args          *a,
          AnotExprValue *out)
{
  AnotExprValue *rev = kwarg (a, "reverse");
  gboolean reverse = rev != NULL && anot_expr_value_truthy (*rev);
  AnotExprValue r = anot_expr_value_new_list (0);
  Collect c = { r.u.seq, a->offset };
  g_autofree AnotExprValue *tmp = NULL;
  gboolean stop = FALSE;

  if (!iterate (ev, a->v[0], a->offset, emit_append, &c, &stop))
    {
      anot_expr_value_unref (r);
      return FALSE;
    }
  tmp = g_new (AnotExprValue, MAX (1, r.u.seq->len));
  /* Python reverses, sorts and reverses, so equal items keep their order. */
  if (reverse)
    reverse_values (r.u.seq->items, r.u.seq->len);
  if (!merge_sort (ev, r.u.seq->items, tmp, r.u.seq->len, a->offset))
    {
      anot_expr_value_unref (r);
      return FALSE;
    }
  if (reverse)
    reverse_values (r.u.seq->items, r.u.seq->len);
  *out = r;
  return TRUE;
}

static gboolean
b_str (Eval          *ev,
       Args          *a,
       AnotExprValue *out)
{
  char *text;
  gsize len;

  if (a->n == 0)
    {
      *out = anot_expr_value_new_string ("", 0);
      return TRUE;
    }
  if (a->v[0].kind == ANOT_EXPR_STR)
    {
      *out = anot_expr_value_ref (a->v[0]);
      return TRUE;
    }
  text = anot_expr_value_str (a->v[0]);
  len = strlen (text);
  if (!check_string (ev, len, a->offset))
    {
      g_free (text);
      return FALSE;
    }
  *out = anot_expr_value_take_string (text, len);
  return TRUE;
}

typedef struct {
  AnotExprValue acc;
  guint offset;
} Sum;

static gboolean
emit_sum (Eval          *ev,
          AnotExprValue  item,
          gpointer       data,
          gboolean      *stop)
{
  Sum *s = data;
  AnotExprValue r;
  gboolean ok;
  gint64 sum;

  /* Python 3.11's sum(): left to right, int + int stays int, the first
   * float turns the sum into a float, other kinds go through "+". */
  if (s->acc.kind == ANOT_EXPR_INT && item.kind == ANOT_EXPR_INT &&
      !__builtin_add_overflow (s->acc.u.i, item.u.i, &sum))
    {
      s->acc.u.i = sum;
      return TRUE;
    }
  ok = binary_op (ev, ANOT_EXPR_OP_ADD, s->acc, item, s->offset, &r);
  anot_expr_value_unref (item);
  if (!ok)
    return FALSE;
  anot_expr_value_unref (s->acc);
  s->acc = r;
  return TRUE;
}

static gboolean
b_sum (Eval          *ev,
       Args          *a,
       AnotExprValue *out)
{
  AnotExprValue *start = a->n > 1 ? &a->v[1] : kwarg (a, "start");
  Sum s = { anot_expr_value_int (0), a->offset };
  gboolean stop = FALSE;

  if (start != NULL)
    {
      if (start->kind == ANOT_EXPR_STR)
        return fail (ev, ANOT_ERROR_EXPR_TYPE, a->offset,
                      "sum() can't sum strings [use ''.join(seq) instead]");
      s.acc = anot_expr_value_ref (*start);
    }
  if (!iterate (ev, a->v[0], a->offset, emit_sum, &s, &stop))
    {
      anot_expr_value_unref (s.acc);
      return FALSE;
    }
  *out = s.acc;
  return TRUE;
}

static gboolean
b_zip (Eval          *ev,
       Args          *a,
       AnotExprValue *out)
{
  g_autofree AnotExprValue *lists = g_new0 (AnotExprValue, MAX (1, a->n));
  guint n = G_MAXUINT;
  AnotExprValue r;
  gboolean ok = TRUE;

  for (guint i = 0; i < a->n && ok; i++)
    {
      ok = collect (ev, a->v[i], a->offset, ANOT_EXPR_LIST, &lists[i]);
      if (ok)
        n = MIN (n, lists[i].u.seq->len);
    }
  if (!ok)
    {
      for (guint i = 0; i < a->n; i++)
        anot_expr_value_unref (lists[i]);
      return FALSE;
    }
  if (a->n == 0)
    n = 0;
  r = anot_expr_value_new_list (n);
  for (guint k = 0; k < n; k++)
    {
      AnotExprValue t = anot_expr_value_new_tuple (a->n);

      for (guint i = 0; i < a->n; i++)
        anot_expr_seq_append (t.u.seq, anot_expr_value_ref (lists[i].u.seq->items[k]));
      anot_expr_seq_append (r.u.seq, t);
    }
  for (guint i = 0; i < a->n; i++)
    anot_expr_value_unref (lists[i]);
  *out = r;
  return TRUE;
}

/* math */

static gboolean
math_result (Eval          *ev,
             Args          *a,
             double         r,
             double         x,
             AnotExprValue *out)
{
  if (isnan (r) && !isnan (x))
    return fail (ev, ANOT_ERROR_EXPR_VALUE, a->offset, "math domain error");
  if (isinf (r) && isfinite (x))
    return fail (ev, ANOT_ERROR_EXPR_OVERFLOW, a->offset, "math range error");
  *out = anot_expr_value_float (r);
  return TRUE;
}

static gboolean
log_of (Eval   *ev,
        Args   *a,
        double  x,
        double  (*fn) (double),
        double *out)
{
  if (x <= 0.0 || isnan (x))
    {
      if (isnan (x))
        {
          *out = x;
          return TRUE;
        }
      return fail (ev, ANOT_ERROR_EXPR_VALUE, a->offset, "math domain error");
    }
  *out = fn (x);
  return TRUE;
}

static gboolean
b_log (Eval          *ev,
       Args          *a,
       AnotExprValue *out)
{
  double x = 0, base = 0, lx = 0, lb = 0;

  if (!need_number (ev, a, a->v[0], &x) || !log_of (ev, a, x, log, &lx))
    return FALSE;
  if (a->n == 1)
    {
      *out = anot_expr_value_float (lx);
      return TRUE;
    }
  if (!need_number (ev, a, a->v[1], &base) || !log_of (ev, a, base, log, &lb))
    return FALSE;
  if (lb == 0.0)
    return fail (ev, ANOT_ERROR_EXPR_ZERO_DIVISION, a->offset, "float division by zero");
  *out = anot_expr_value_float (lx / lb);
  return TRUE;
}

static gboolean
b_log10 (Eval          *ev,
         Args          *a,
         AnotExprValue *out)
{
  double x = 0, r = 0;

  if (!need_number (ev, a, a->v[0], &x) || !log_of (ev, a, x, log10, &r))
    return FALSE;
  *out = anot_expr_value_float (r);
  return TRUE;
}

static gboolean
b_log2 (Eval          *ev,
        Args          *a,
        AnotExprValue *out)
{
  double x = 0, r = 0;

  if (!need_number (ev, a, a->v[0], &x) || !log_of (ev, a, x, log2, &r))
    return FALSE;
  *out = anot_expr_value_float (r);
  return TRUE;
}

static gboolean
b_exp (Eval          *ev,
       Args          *a,
       AnotExprValue *out)
{
  double x = 0;

  if (!need_number (ev, a, a->v[0], &x))
    return FALSE;
  return math_result (ev, a, exp (x), x, out);
}

static gboolean
b_sqrt (Eval          *ev,
        Args          *a,
        AnotExprValue *out)
{
  double x = 0;

  if (!need_number (ev, a, a->v[0], &x))
    return FALSE;
  if (x < 0.0)
    return fail (ev, ANOT_ERROR_EXPR_VALUE, a->offset, "math domain error");
  *out = anot_expr_value_float (sqrt (x));
  return TRUE;
}

static gboolean
b_fabs (Eval          *ev,
        Args          *a,
        AnotExprValue *out)
{
  double x = 0;

  if (!need_number (ev, a, a->v[0], &x))
    return FALSE;
  *out = anot_expr_value_float (fabs (x));
  return TRUE;
}

static gboolean
floor_ceil (Eval          *ev,
            Args          *a,
            double         (*fn) (double),
            AnotExprValue *out)
{
  double x = 0;
  gint64 i;

  if (is_intlike (a->v[0]))
    {
      *out = anot_expr_value_int (to_int (a->v[0]));
      return TRUE;
    }
  if (!need_number (ev, a, a->v[0], &x) || !float_to_int (ev, fn (x), a->offset, &i))
    return FALSE;
  *out = anot_expr_value_int (i);
  return TRUE;
}

static gboolean
b_floor (Eval          *ev,
         Args          *a,
         AnotExprValue *out)
{
  return floor_ceil (ev, a, floor, out);
}

static gboolean
b_ceil (Eval          *ev,
        Args          *a,
        AnotExprValue *out)
{
  return floor_ceil (ev, a, ceil, out);
}

static gboolean
b_trunc (Eval          *ev,
         Args          *a,
         AnotExprValue *out)
{
  return floor_ceil (ev, a, trunc, out);
}

static gboolean
b_math_pow (Eval          *ev,
            Args          *a,
            AnotExprValue *out)
{
  double x = 0, y = 0, r = 0;

  if (!need_number (ev, a, a->v[0], &x) || !need_number (ev, a, a->v[1], &y) ||
      !float_pow (ev, x, y, a->offset, TRUE, &r))
    return FALSE;
  *out = anot_expr_value_float (r);
  return TRUE;
}

static gboolean
b_isnan (Eval          *ev,
         Args          *a,
         AnotExprValue *out)
{
  double x = 0;

  if (!need_number (ev, a, a->v[0], &x))
    return FALSE;
  *out = anot_expr_value_bool (isnan (x));
  return TRUE;
}

static gboolean
b_isinf (Eval          *ev,
         Args          *a,
         AnotExprValue *out)
{
  double x = 0;

  if (!need_number (ev, a, a->v[0], &x))
    return FALSE;
  *out = anot_expr_value_bool (isinf (x));
  return TRUE;
}

static gboolean
b_isfinite (Eval          *ev,
            Args          *a,
            AnotExprValue *out)
{
  double x = 0;

  if (!need_number (ev, a, a->v[0], &x))
    return FALSE;
  *out = anot_expr_value_bool (isfinite (x));
  return TRUE;
}

#define NO_TYPE (-1)
#define ANY (G_MAXUINT)

/* Sorted by name: anot_expr_list_builtins() returns them in this order. */
const AnotExprBuiltin builtins[] = {
  { "abs", b_abs, 1, 1, NULL, NO_TYPE, 0 },
  { "all", b_all, 1, 1, NULL, NO_TYPE, 0 },
  { "any", b_any, 1, 1, NULL, NO_TYPE, 0 },
  { "bool", b_bool, 0, 1, NULL, ANOT_EXPR_BOOL, 0 },
  { "dict", b_dict, 0, 1, "*", ANOT_EXPR_DICT, 0 },
  { "enumerate", b_enumerate, 1, 2, "start", NO_TYPE, 0 },
  { "exp", b_exp, 1, 1, NULL, NO_TYPE, 0 },
  { "float", b_float, 0, 1, NULL, ANOT_EXPR_FLOAT, 0 },
  { "int", b_int, 0, 1, NULL, ANOT_EXPR_INT, 0 },
  { "isinstance", b_isinstance, 2, 2, NULL, NO_TYPE, 0 },
  { "len", b_len, 1, 1, NULL, NO_TYPE, 0 },
  { "list", b_list, 0, 1, NULL, ANOT_EXPR_LIST, 0 },
  { "log", b_log, 1, 2, NULL, NO_TYPE, 0 },
  { "log10", b_log10, 1, 1, NULL, NO_TYPE, 0 },
  { "math", NULL, 0, 0, NULL, NO_TYPE, 0 },
  { "max", b_max, 1, ANY, "default", NO_TYPE, 0 },
  { "min", b_min, 1, ANY, "default", NO_TYPE, 0 },
  { "range", b_range, 1, 3, NULL, NO_TYPE, 0 },
  { "round", b_round, 1, 2, "ndigits", NO_TYPE, 0 },
  { "sorted", b_sorted, 1, 1, "reverse", NO_TYPE, 0 },
  { "sqrt", b_sqrt, 1, 1, NULL, NO_TYPE, 0 },
  { "str", b_str, 0, 1, NULL, ANOT_EXPR_STR, 0 },
  { "sum", b_sum, 1, 2, "start", NO_TYPE, 0 },
  { "tuple", b_tuple, 0, 1, NULL, ANOT_EXPR_TUPLE, 0 },
  { "zip", b_zip, 0, ANY, NULL, NO_TYPE, 0 },
};

static const AnotExprBuiltin math_members[] = {
  { "ceil", b_ceil, 1, 1, NULL, NO_TYPE, 0 },
  { "e", NULL, 0, 0, NULL, NO_TYPE, G_E },
  { "exp", b_exp, 1, 1, NULL, NO_TYPE, 0 },
  { "fabs", b_fabs, 1, 1, NULL, NO_TYPE, 0 },
  { "floor", b_floor, 1, 1, NULL, NO_TYPE, 0 },
  { "inf", NULL, 0, 0, NULL, NO_TYPE, INFINITY },
  { "isfinite", b_isfinite, 1, 1, NULL, NO_TYPE, 0 },
  { "isinf", b_isinf, 1, 1, NULL, NO_TYPE, 0 },
  { "isnan", b_isnan, 1, 1, NULL, NO_TYPE, 0 },
  { "log", b_log, 1, 2, NULL, NO_TYPE, 0 },
  { "log10", b_log10, 1, 1, NULL, NO_TYPE, 0 },
  { "log2", b_log2, 1, 1, NULL, NO_TYPE, 0 },
  { "nan", NULL, 0, 0, NULL, NO_TYPE, NAN },
  { "pi", NULL, 0, 0, NULL, NO_TYPE, G_PI },
  { "pow", b_math_pow, 2, 2, NULL, NO_TYPE, 0 },
  { "sqrt", b_sqrt, 1, 1, NULL, NO_TYPE, 0 },
  { "tau", NULL, 0, 0, NULL, NO_TYPE, 2 * G_PI },
  { "trunc", b_trunc, 1, 1, NULL, NO_TYPE, 0 },
};

const AnotExprBuiltin *
table_lookup (const AnotExprBuiltin *table,
              gsize                  n,
              const char            *name)
{
  gsize lo = 0, hi = n;

  while (lo < hi)
    {
      gsize mid = (lo + hi) / 2;
      int c = strcmp (name, table[mid].name);

      if (c == 0)
        return &table[mid];
      if (c < 0)
        hi = mid;
      else
        lo = mid + 1;
    }
  return NULL;
}

const AnotExprBuiltin *
anot_expr_builtin_lookup (const char *name)
{
  return table_lookup (builtins, G_N_ELEMENTS (builtins), name);
}

const char * const *
anot_expr_builtin_names (void)
{
  static const char *names[G_N_ELEMENTS (builtins) + 1];
  static gsize initialized = 0;

  if (g_once_init_enter (&initialized))
    {
      for (gsize i = 0; i < G_N_ELEMENTS (builtins); i++)
        names[i] = builtins[i].name;
      names[G_N_ELEMENTS (builtins)] = NULL;
      g_once_init_leave (&initialized, 1);
    }
  return names;
}

guint
anot_expr_builtin_index (const AnotExprBuiltin *fn)
{
  G_STATIC_ASSERT (G_N_ELEMENTS (builtins) <= 32);

  return fn - builtins;
}

const char *
anot_expr_builtin_get_name (const AnotExprBuiltin *fn)
{
  return fn->name;
}

/* ------------------------------------------------------------------------ *
 * Methods
 * ------------------------------------------------------------------------ */

static gboolean
m_lower (Eval          *ev,
         Args          *a,
         AnotExprValue *out)
{
  char *lower = anot_py_lower (a->self.u.s->data);

  if (!check_string (ev, strlen (lower), a->offset))
    {
      g_free (lower);
      return FALSE;
    }
  *out = anot_expr_value_take_string (lower, strlen (lower));
  return TRUE;
}

static gboolean
m_upper (Eval          *ev,
         Args          *a,
         AnotExprValue *out)
{
  char *upper = g_utf8_strup (a->self.u.s->data, a->self.u.s->len);

  if (!check_string (ev, strlen (upper), a->offset))
    {
      g_free (upper);
      return FALSE;
    }
  *out = anot_expr_value_take_string (upper, strlen (upper));
  return TRUE;
}

/* Whether @c is stripped: whitespace when @chars is NULL, else one of the
 * code points of @chars. */
static gboolean
strip_char (gunichar     c,
            AnotExprStr *chars)
{
  if (chars == NULL)
    return py_isspace (c);
  for (const char *p = chars->data; p < chars->data + chars->len; p = g_utf8_next_char (p))
    if (g_utf8_get_char (p) == c)
      return TRUE;
  return FALSE;
}

static gboolean
strip (Eval          *ev,
       Args          *a,
       gboolean       left,
       gboolean       right,
       AnotExprValue *out)
{
  AnotExprStr *s = a->self.u.s;
  AnotExprStr *chars = NULL;
  const char *start = s->data;
  const char *end = s->data + s->len;

  if (a->n > 0 && a->v[0].kind != ANOT_EXPR_NONE)
    {
      if (a->v[0].kind != ANOT_EXPR_STR)
        return fail (ev, ANOT_ERROR_EXPR_TYPE, a->offset,
                      "%s arg must be None or str", a->name);
      chars = a->v[0].u.s;
    }
  if (left)
    while (start < end && strip_char (g_utf8_get_char (start), chars))
      start = g_utf8_next_char (start);
  if (right)
    while (end > start)
      {
        const char *prev = g_utf8_find_prev_char (start, end);

        if (prev == NULL)
          prev = start;
        if (!strip_char (g_utf8_get_char (prev), chars))
          break;
        end = prev;
      }
  *out = anot_expr_value_new_string (start, end - start);
  return TRUE;
}

static gboolean
m_strip (Eval          *ev,
         Args          *a,
         AnotExprValue *out)
{
  return strip (ev, a, TRUE, TRUE, out);
}

static gboolean
m_lstrip (Eval          *ev,
          Args          *a,
          AnotExprValue *out)
{
  return strip (ev, a, TRUE, FALSE, out);
}

static gboolean
m_rstrip (Eval          *ev,
          Args          *a,
          AnotExprValue *out)
{
  return strip (ev, a, FALSE, TRUE, out);
}

static gboolean
starts_ends (Eval          *ev,
             Args          *a,
             gboolean       ends,
             AnotExprValue *out)
{
  AnotExprStr *s = a->self.u.s;
  AnotExprValue arg = a->v[0];
  guint n = arg.kind == ANOT_EXPR_TUPLE ? arg.u.seq->len : 1;

  for (guint i = 0; i < n; i++)
    {
      AnotExprValue affix = arg.kind == ANOT_EXPR_TUPLE ? arg.u.seq->items[i] : arg;
      AnotExprStr *x;

      if (affix.kind != ANOT_EXPR_STR)
        {
          if (arg.kind == ANOT_EXPR_TUPLE)
            return fail (ev, ANOT_ERROR_EXPR_TYPE, a->offset,
                          "tuple for %s must only contain str, not %s", a->name, tname (affix));
          return fail (ev, ANOT_ERROR_EXPR_TYPE, a->offset,
                        "%s first arg must be str or a tuple of str, not %s", a->name, tname (affix));
        }
      x = affix.u.s;
      if (x->len <= s->len &&
          memcmp (s->data + (ends ? s->len - x->len : 0), x->data, x->len) == 0)
        {
          *out = anot_expr_value_bool (TRUE);
          return TRUE;
        }
    }
  *out = anot_expr_value_bool (FALSE);
  return TRUE;
}

static gboolean
m_startswith (Eval          *ev,
              Args          *a,
              AnotExprValue *out)
{
  return starts_ends (ev, a, FALSE, out);
}

static gboolean
m_endswith (Eval          *ev,
            Args          *a,
            AnotExprValue *out)
{
  return starts_ends (ev, a, TRUE, out);
}

static gboolean
append_checked (Eval          *ev,
                AnotExprValue  list,
                AnotExprValue  item,
                guint          offset)
{
  if (!check_items (ev, (guint64) list.u.seq->len + 1, offset))
    {
      anot_expr_value_unref (item);
      return FALSE;
    }
  anot_expr_seq_append (list.u.seq, item);
  return TRUE;
}

static gboolean
m_split (Eval          *ev,
         Args          *a,
         AnotExprValue *out)
{
  AnotExprStr *s = a->self.u.s;
  AnotExprValue *sepv = a->n > 0 ? &a->v[0] : kwarg (a, "sep");
  AnotExprValue *maxv = a->n > 1 ? &a->v[1] : kwarg (a, "maxsplit");
  gint64 maxsplit = -1;
  AnotExprValue r = anot_expr_value_new_list (0);
  const char *p = s->data;
  const char *end = s->data + s->len;

  if (maxv != NULL && !need_int (ev, a, *maxv, &maxsplit))
    goto fail;

  if (sepv == NULL || sepv->kind == ANOT_EXPR_NONE)
    {
      /* Runs of whitespace; no empty strings. */
      for (;;)
        {
          const char *word;

          while (p < end && py_isspace (g_utf8_get_char (p)))
            p = g_utf8_next_char (p);
          if (p >= end)
            break;
          if (maxsplit >= 0 && (gint64) r.u.seq->len >= maxsplit)
            {
              const char *e = end;

              while (e > p)
                {
                  const char *prev = g_utf8_find_prev_char (p, e);

                  if (prev == NULL || !py_isspace (g_utf8_get_char (prev)))
                    break;
                  e = prev;
                }
              if (!append_checked (ev, r, anot_expr_value_new_string (p, e - p), a->offset))
                goto fail;
              break;
            }
          word = p;
          while (p < end && !py_isspace (g_utf8_get_char (p)))
            p = g_utf8_next_char (p);
          if (!STEP (ev, a->offset) ||
              !append_checked (ev, r, anot_expr_value_new_string (word, p - word), a->offset))
            goto fail;
        }
    }
  else
    {
      AnotExprStr *sep;

      if (sepv->kind != ANOT_EXPR_STR)
        {
          fail (ev, ANOT_ERROR_EXPR_TYPE, a->offset, "must be str or None, not %s", tname (*sepv));
          goto fail;
        }
      sep = sepv->u.s;
      if (sep->len == 0)
        {
          fail (ev, ANOT_ERROR_EXPR_VALUE, a->offset, "empty separator");
          goto fail;
        }
      for (;;)
        {
          const char *hit = (maxsplit < 0 || (gint64) r.u.seq->len < maxsplit)
                            ? find_bytes (p, end - p, sep->data, sep->len) : NULL;

          if (!STEP (ev, a->offset))
            goto fail;
          if (hit == NULL)
            {
              if (!append_checked (ev, r, anot_expr_value_new_string (p, end - p), a->offset))
                goto fail;
              break;
            }
          if (!append_checked (ev, r, anot_expr_value_new_string (p, hit - p), a->offset))
            goto fail;
          p = hit + sep->len;
        }
    }
  *out = r;
  return TRUE;

fail:
  anot_expr_value_unref (r);
  return FALSE;
}

static gboolean
m_replace (Eval          *ev,
           Args          *a,
           AnotExprValue *out)
{
  AnotExprStr *s = a->self.u.s;
  AnotExprStr *old, *new;
  gint64 count = -1;
  GString *text;
  const char *p = s->data;
  const char *end = s->data + s->len;
  gint64 done = 0;

  if (!need_str (ev, a, a->v[0], "replace() argument 1") ||
      !need_str (ev, a, a->v[1], "replace() argument 2") ||
      (a->n > 2 && !need_int (ev, a, a->v[2], &count)))
    return FALSE;
  old = a->v[0].u.s;
  new = a->v[1].u.s;
  text = g_string_new (NULL);

  if (old->len == 0)
    {
      /* "ab".replace("", "-") == "-a-b-" */
      for (;;)
        {
          if (count < 0 || done < count)
            {
              g_string_append_len (text, new->data, new->len);
              done++;
            }
          if (p >= end)
            break;
          g_string_append_len (text, p, g_utf8_next_char (p) - p);
          p = g_utf8_next_char (p);
          if (!STEP (ev, a->offset) || !check_string (ev, text->len, a->offset))
            {
              g_string_free (text, TRUE);
              return FALSE;
            }
        }
      return new_string_checked (ev, text, a->offset, out);
    }

  for (;;)
    {
      const char *hit = (count < 0 || done < count) ? find_bytes (p, end - p, old->data, old->len) : NULL;

      if (hit == NULL)
        {
          g_string_append_len (text, p, end - p);
          break;
        }
      g_string_append_len (text, p, hit - p);
      g_string_append_len (text, new->data, new->len);
      p = hit + old->len;
      done++;
      if (!STEP (ev, a->offset) || !check_string (ev, text->len, a->offset))
        {
          g_string_free (text, TRUE);
          return FALSE;
        }
    }
  return new_string_checked (ev, text, a->offset, out);
}

static gboolean
m_str_count (Eval          *ev,
             Args          *a,
             AnotExprValue *out)
{
  AnotExprStr *s = a->self.u.s;
  AnotExprStr *sub;
  const char *p = s->data;
  const char *end = s->data + s->len;
  gint64 n = 0;

  if (!need_str (ev, a, a->v[0], "count() argument"))
    return FALSE;
  sub = a->v[0].u.s;
  if (sub->len == 0)
    {
      *out = anot_expr_value_int (anot_expr_str_n_chars (s) + 1);
      return TRUE;
    }
  while ((p = find_bytes (p, end - p, sub->data, sub->len)) != NULL)
    {
      n++;
      p += sub->len;
    }
  *out = anot_expr_value_int (n);
  return TRUE;
}

static gboolean
m_find (Eval          *ev,
        Args          *a,
        AnotExprValue *out)
{
  AnotExprStr *s = a->self.u.s;
  const char *hit;

  if (!need_str (ev, a, a->v[0], "find() argument"))
    return FALSE;
  hit = find_bytes (s->data, s->len, a->v[0].u.s->data, a->v[0].u.s->len);
  if (a->v[0].u.s->len == 0)
    hit = s->data;
  *out = anot_expr_value_int (hit == NULL ? -1 : g_utf8_pointer_to_offset (s->data, hit));
  return TRUE;
}

typedef struct {
  GString *text;
  AnotExprStr *sep;
  guint index;
  guint offset;
} Join;

static gboolean
emit_join (Eval          *ev,
           AnotExprValue  item,
           gpointer       data,
           gboolean      *stop)
{
  Join *j = data;

  if (item.kind != ANOT_EXPR_STR)
    {
      fail (ev, ANOT_ERROR_EXPR_TYPE, j->offset,
             "sequence item %u: expected str instance, %s found", j->index, tname (item));
      anot_expr_value_unref (item);
      return FALSE;
    }
  if (j->index > 0)
    g_string_append_len (j->text, j->sep->data, j->sep->len);
  g_string_append_len (j->text, item.u.s->data, item.u.s->len);
  anot_expr_value_unref (item);
  j->index++;
  return check_string (ev, j->text->len, j->offset);
}

static gboolean
m_join (Eval          *ev,
        Args          *a,
        AnotExprValue *out)
{
  Join j = { g_string_new (NULL), a->self.u.s, 0, a->offset };
  gboolean stop = FALSE;

  if (!iterate (ev, a->v[0], a->offset, emit_join, &j, &stop))
    {
      g_string_free (j.text, TRUE);
      return FALSE;
    }
  return new_string_checked (ev, j.text, a->offset, out);
}

static gboolean
str_all (Eval          *ev,
         Args          *a,
         gboolean       (*pred) (gunichar),
         AnotExprValue *out)
{
  AnotExprStr *s = a->self.u.s;
  gboolean result = s->len > 0;

  for (const char *p = s->data; p < s->data + s->len && result; p = g_utf8_next_char (p))
    result = pred (g_utf8_get_char (p));
  *out = anot_expr_value_bool (result);
  return TRUE;
}

static gboolean
m_isdigit (Eval          *ev,
           Args          *a,
           AnotExprValue *out)
{
  return str_all (ev, a, g_unichar_isdigit, out);
}

static gboolean
m_isalpha (Eval          *ev,
           Args          *a,
           AnotExprValue *out)
{
  return str_all (ev, a, g_unichar_isalpha, out);
}

/* The lookup tables of a Formula Seed: the value of the first key that
 * occurs in @text, case-insensitively, as the original's wrapper did. */
static AnotExprValue *
substring_get (AnotExprDict *d,
               AnotExprStr  *text)
{
  g_autofree char *haystack = anot_py_lower (text->data);

  for (guint i = 0; i < d->len; i++)
    {
      g_autofree char *needle = NULL;

      if (d->keys[i].kind != ANOT_EXPR_STR)
        continue;
      needle = anot_py_lower (d->keys[i].u.s->data);
      if (strstr (haystack, needle) != NULL)
        return &d->values[i];
    }
  return NULL;
}

static gboolean
m_get (Eval          *ev,
       Args          *a,
       AnotExprValue *out)
{
  AnotExprDict *d = a->self.u.d;
  AnotExprValue *v;

  if (!is_hashable (a->v[0]))
    return unhashable (ev, a->v[0], a->offset);
  if (d->substring_get && a->v[0].kind == ANOT_EXPR_STR)
    v = substring_get (d, a->v[0].u.s);
  else
    v = anot_expr_dict_lookup (d, a->v[0]);
  if (v != NULL)
    *out = anot_expr_value_ref (*v);
  else
    *out = a->n > 1 ? anot_expr_value_ref (a->v[1]) : ANOT_EXPR_VALUE_NONE;
  return TRUE;
}

static gboolean
dict_view (Eval          *ev,
           Args          *a,
           int            what,
           AnotExprValue *out)
{
  AnotExprDict *d = a->self.u.d;
  AnotExprValue r = anot_expr_value_new_list (d->len);

  for (guint i = 0; i < d->len; i++)
    {
      AnotExprValue item;

      if (what == 0)
        item = anot_expr_value_ref (d->keys[i]);
      else if (what == 1)
        item = anot_expr_value_ref (d->values[i]);
      else
        {
          item = anot_expr_value_new_tuple (2);
          anot_expr_seq_append (item.u.seq, anot_expr_value_ref (d->keys[i]));
          anot_expr_seq_append (item.u.seq, anot_expr_value_ref (d->values[i]));
        }
      anot_expr_seq_append (r.u.seq, item);
    }
  *out = r;
  return TRUE;
}

static gboolean
m_keys (Eval          *ev,
        Args          *a,
        AnotExprValue *out)
{
  return dict_view (ev, a, 0, out);
}

static gboolean
m_values (Eval          *ev,
          Args          *a,
          AnotExprValue *out)
{
  return dict_view (ev, a, 1, out);
}

static gboolean
m_items (Eval          *ev,
         Args          *a,
         AnotExprValue *out)
{
  return dict_view (ev, a, 2, out);
}

static gboolean
m_seq_count (Eval          *ev,
             Args          *a,
             AnotExprValue *out)
{
  AnotExprSeq *seq = a->self.u.seq;
  gint64 n = 0;

  for (guint i = 0; i < seq->len; i++)
    if (anot_expr_value_equal (seq->items[i], a->v[0]))
      n++;
  ev->steps += seq->len;
  *out = anot_expr_value_int (n);
  return TRUE;
}

static gboolean
m_seq_index (Eval          *ev,
             Args          *a,
             AnotExprValue *out)
{
  AnotExprSeq *seq = a->self.u.seq;

  for (guint i = 0; i < seq->len; i++)
    if (anot_expr_value_equal (seq->items[i], a->v[0]))
      {
        *out = anot_expr_value_int (i);
        return TRUE;
      }
  if (a->self.kind == ANOT_EXPR_TUPLE)
    return fail (ev, ANOT_ERROR_EXPR_VALUE, a->offset, "tuple.index(x): x not in tuple");
  {
    g_autofree char *repr = anot_expr_value_repr (a->v[0]);

    return fail (ev, ANOT_ERROR_EXPR_VALUE, a->offset, "%s is not in list", repr);
  }
}

static const AnotExprBuiltin str_methods[] = {
  { "count", m_str_count, 1, 1, NULL, NO_TYPE, 0 },
  { "endswith", m_endswith, 1, 1, NULL, NO_TYPE, 0 },
  { "find", m_find, 1, 1, NULL, NO_TYPE, 0 },
  { "isalpha", m_isalpha, 0, 0, NULL, NO_TYPE, 0 },
  { "isdigit", m_isdigit, 0, 0, NULL, NO_TYPE, 0 },
  { "join", m_join, 1, 1, NULL, NO_TYPE, 0 },
  { "lower", m_lower, 0, 0, NULL, NO_TYPE, 0 },
  { "lstrip", m_lstrip, 0, 1, NULL, NO_TYPE, 0 },
  { "replace", m_replace, 2, 3, NULL, NO_TYPE, 0 },
  { "rstrip", m_rstrip, 0, 1, NULL, NO_TYPE, 0 },
  { "split", m_split, 0, 2, "sep maxsplit", NO_TYPE, 0 },
  { "startswith", m_startswith, 1, 1, NULL, NO_TYPE, 0 },
  { "strip", m_strip, 0, 1, NULL, NO_TYPE, 0 },
  { "upper", m_upper, 0, 0, NULL, NO_TYPE, 0 },
};

static const AnotExprBuiltin dict_methods[] = {
  { "get", m_get, 1, 2, NULL, NO_TYPE, 0 },
  { "items", m_items, 0, 0, NULL, NO_TYPE, 0 },
  { "keys", m_keys, 0, 0, NULL, NO_TYPE, 0 },
  { "values", m_values, 0, 0, NULL, NO_TYPE, 0 },
};

static const AnotExprBuiltin seq_methods[] = {
  { "count", m_seq_count, 1, 1, NULL, NO_TYPE, 0 },
  { "index", m_seq_index, 1, 1, NULL, NO_TYPE, 0 },
};

const AnotExprBuiltin *
method_table (AnotExprKind  kind,
              gsize        *n)
{
  switch (kind)
    {
    case ANOT_EXPR_STR:
      *n = G_N_ELEMENTS (str_methods);
      return str_methods;
    case ANOT_EXPR_DICT:
      *n = G_N_ELEMENTS (dict_methods);
      return dict_methods;
    case ANOT_EXPR_LIST:
    case ANOT_EXPR_TUPLE:
      *n = G_N_ELEMENTS (seq_methods);
      return seq_methods;
    case ANOT_EXPR_MODULE:
      *n = G_N_ELEMENTS (math_members);
      return math_members;
    case ANOT_EXPR_NONE:
    case ANOT_EXPR_BOOL:
    case ANOT_EXPR_INT:
    case ANOT_EXPR_FLOAT:
    case ANOT_EXPR_FUNC:
    case ANOT_EXPR_GENERATOR:
    default:
      *n = 0;
      return NULL;
    }
}

gboolean
no_attribute (Eval          *ev,
              AnotExprValue  obj,
              const char    *name,
              guint          offset)
{
  gsize n;
  const AnotExprBuiltin *table = method_table (obj.kind, &n);
  g_autoptr(GString) available = g_string_new (NULL);

  for (gsize i = 0; i < n; i++)
    g_string_append_printf (available, "%s%s", i > 0 ? ", " : "", table[i].name);
  if (obj.kind == ANOT_EXPR_MODULE)
    return fail (ev, ANOT_ERROR_EXPR_ATTRIBUTE, offset,
                  "module 'math' has no attribute '%s' (available: %s)", name, available->str);
  if (n == 0)
    return fail (ev, ANOT_ERROR_EXPR_ATTRIBUTE, offset,
                  "'%s' object has no attribute '%s' (no attribute of %s is available)",
                  tname (obj), name, tname (obj));
  return fail (ev, ANOT_ERROR_EXPR_ATTRIBUTE, offset,
                "'%s' object has no attribute '%s' (the methods of %s available are: %s)",
                tname (obj), name, tname (obj), available->str);
}
