/* anot-expr-eval.c: the evaluator of AnotExpr: nodes, operators and calls
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * A tree-walking evaluator over the values of anot-expr-value.c.  Every
 * operation follows CPython 3.11 where the language has it, down to the
 * exception kind and, where practical, its message, because the test of
 * this code is "the same value or the same error as Python's eval() on the
 * same formula".  Known differences are listed in docs/general-anot.md:
 * 64-bit integers (OverflowError where Python grows a big int), range(),
 * zip(), enumerate(), dict.keys()/values()/items() give lists, and
 * generator expressions can only be passed to a function or method.
 *
 * The evaluator is bounded three ways: every node evaluated and every item
 * iterated costs a step (scope limit), every list, tuple, dict and string
 * built is checked against the scope's size limits *before* it is
 * allocated, and the recursion depth is the height of the tree, which the
 * parser bounds (ANOT_EXPR_MAX_TREE_DEPTH).
 */
#include "config.h"

#define ANOT_EXPR_IMPLEMENTATION

#include "anot-expr-eval-private.h"

/* ------------------------------------------------------------------------ *
 * Errors and limits
 * ------------------------------------------------------------------------ */

static const char *
exception_name (AnotError code)
{
  switch ((int) code)
    {
    case ANOT_ERROR_EXPR_SYNTAX: return "SyntaxError";
    case ANOT_ERROR_EXPR_FORBIDDEN: return "Forbidden";
    case ANOT_ERROR_EXPR_NAME: return "NameError";
    case ANOT_ERROR_EXPR_TYPE: return "TypeError";
    case ANOT_ERROR_EXPR_VALUE: return "ValueError";
    case ANOT_ERROR_EXPR_KEY: return "KeyError";
    case ANOT_ERROR_EXPR_INDEX: return "IndexError";
    case ANOT_ERROR_EXPR_ATTRIBUTE: return "AttributeError";
    case ANOT_ERROR_EXPR_ZERO_DIVISION: return "ZeroDivisionError";
    case ANOT_ERROR_EXPR_OVERFLOW: return "OverflowError";
    case ANOT_ERROR_EXPR_LIMIT: return "LimitError";
    default: return "Error";
    }
}

gboolean
fail (Eval       *ev,
       AnotError   code,
       guint       offset,
       const char *format,
       ...)
{
  va_list args;
  GString *message;

  if (ev->failed)
    return FALSE;
  ev->failed = TRUE;
  ev->failure->code = code;
  ev->failure->offset = offset;
  if (ev->quiet)
    return FALSE;

  /* One formatting, not two: a trace formats a message per failed step. */
  message = g_string_sized_new (64);
  g_string_append (message, exception_name (code));
  g_string_append (message, ": ");
  va_start (args, format);
  g_string_append_vprintf (message, format, args);
  va_end (args);
  ev->failure->message = g_string_free (message, FALSE);
  return FALSE;
}

gboolean
step_limit (Eval  *ev,
            guint  offset)
{
  return fail (ev, ANOT_ERROR_EXPR_LIMIT, offset,
                "the evaluation exceeded its budget of %" G_GUINT64_FORMAT " steps",
                ev->max_steps);
}


gboolean
check_items (Eval    *ev,
             guint64  n,
             guint    offset)
{
  if (n <= ev->max_items)
    return TRUE;
  return fail (ev, ANOT_ERROR_EXPR_LIMIT, offset,
                "a value of %" G_GUINT64_FORMAT " items exceeds the limit of %u items",
                n, ev->max_items);
}

gboolean
check_string (Eval    *ev,
              guint64  bytes,
              guint    offset)
{
  if (bytes <= ev->max_string)
    return TRUE;
  return fail (ev, ANOT_ERROR_EXPR_LIMIT, offset,
                "a string of %" G_GUINT64_FORMAT " bytes exceeds the limit of %" G_GSIZE_FORMAT " bytes",
                bytes, ev->max_string);
}

const char *
tname (AnotExprValue v)
{
  return anot_expr_value_type_name (v);
}

gboolean
unhashable (Eval          *ev,
            AnotExprValue  key,
            guint          offset)
{
  return fail (ev, ANOT_ERROR_EXPR_TYPE, offset, "unhashable type: '%s'", tname (key));
}

gboolean
is_hashable (AnotExprValue v)
{
  guint32 h;

  return anot_expr_value_hash (v, &h);
}

/* ------------------------------------------------------------------------ *
 * Numbers
 * ------------------------------------------------------------------------ */

gboolean
int_overflow (Eval  *ev,
              guint  offset)
{
  return fail (ev, ANOT_ERROR_EXPR_OVERFLOW, offset,
                "integer result does not fit in 64 bits");
}

/* int(f) for a float: Python's errors for NaN and infinities, ours for
 * what does not fit in 64 bits. */
gboolean
float_to_int (Eval    *ev,
              double   f,
              guint    offset,
              gint64  *out)
{
  if (isnan (f))
    return fail (ev, ANOT_ERROR_EXPR_VALUE, offset, "cannot convert float NaN to integer");
  if (isinf (f))
    return fail (ev, ANOT_ERROR_EXPR_OVERFLOW, offset, "cannot convert float infinity to integer");
  if (f >= 9223372036854775808.0 || f < -9223372036854775808.0)
    return int_overflow (ev, offset);
  *out = (gint64) f;
  return TRUE;
}

static const char *
op_symbol (AnotExprOp op)
{
  switch (op)
    {
    case ANOT_EXPR_OP_ADD: return "+";
    case ANOT_EXPR_OP_SUB: return "-";
    case ANOT_EXPR_OP_MUL: return "*";
    case ANOT_EXPR_OP_DIV: return "/";
    case ANOT_EXPR_OP_FLOORDIV: return "//";
    case ANOT_EXPR_OP_MOD: return "%";
    case ANOT_EXPR_OP_POW: return "**";
    case ANOT_EXPR_OP_NEG: return "-";
    case ANOT_EXPR_OP_POS: return "+";
    case ANOT_EXPR_OP_EQ: return "==";
    case ANOT_EXPR_OP_NE: return "!=";
    case ANOT_EXPR_OP_LT: return "<";
    case ANOT_EXPR_OP_LE: return "<=";
    case ANOT_EXPR_OP_GT: return ">";
    case ANOT_EXPR_OP_GE: return ">=";
    case ANOT_EXPR_OP_IN: return "in";
    case ANOT_EXPR_OP_NOT_IN: return "not in";
    case ANOT_EXPR_OP_IS: return "is";
    case ANOT_EXPR_OP_IS_NOT: return "is not";
    default: return "?";
    }
}

static gboolean
int_arith (Eval          *ev,
           AnotExprOp     op,
           gint64         a,
           gint64         b,
           guint          offset,
           AnotExprValue *out)
{
  gint64 r;

  switch (op)
    {
    case ANOT_EXPR_OP_ADD:
      if (__builtin_add_overflow (a, b, &r))
        return int_overflow (ev, offset);
      break;
    case ANOT_EXPR_OP_SUB:
      if (__builtin_sub_overflow (a, b, &r))
        return int_overflow (ev, offset);
      break;
    case ANOT_EXPR_OP_MUL:
      if (__builtin_mul_overflow (a, b, &r))
        return int_overflow (ev, offset);
      break;
    case ANOT_EXPR_OP_DIV:
      if (b == 0)
        return fail (ev, ANOT_ERROR_EXPR_ZERO_DIVISION, offset, "division by zero");
      *out = anot_expr_value_float ((double) a / (double) b);
      return TRUE;
    case ANOT_EXPR_OP_FLOORDIV:
    case ANOT_EXPR_OP_MOD:
      if (b == 0)
        return fail (ev, ANOT_ERROR_EXPR_ZERO_DIVISION, offset,
                      op == ANOT_EXPR_OP_MOD ? "integer modulo by zero"
                                             : "integer division or modulo by zero");
      if (b == -1)
        {
          if (op == ANOT_EXPR_OP_MOD)
            r = 0;
          else if (a == G_MININT64)
            return int_overflow (ev, offset);
          else
            r = -a;
          break;
        }
      {
        gint64 q = a / b;
        gint64 m = a % b;

        /* C truncates; Python floors. */
        if (m != 0 && ((m < 0) != (b < 0)))
          {
            q -= 1;
            m += b;
          }
        r = op == ANOT_EXPR_OP_MOD ? m : q;
      }
      break;
    case ANOT_EXPR_OP_POW:
      if (b < 0)
        {
          if (a == 0)
            return fail (ev, ANOT_ERROR_EXPR_ZERO_DIVISION, offset,
                          "0.0 cannot be raised to a negative power");
          *out = anot_expr_value_float (pow ((double) a, (double) b));
          return TRUE;
        }
      {
        gint64 base = a;
        gint64 e = b;

        r = 1;
        while (e > 0)
          {
            if (e & 1)
              {
                if (__builtin_mul_overflow (r, base, &r))
                  return int_overflow (ev, offset);
              }
            e >>= 1;
            if (e > 0 && __builtin_mul_overflow (base, base, &base))
              return int_overflow (ev, offset);
          }
      }
      break;
    case ANOT_EXPR_OP_NEG:
    case ANOT_EXPR_OP_POS:
    case ANOT_EXPR_OP_EQ:
    case ANOT_EXPR_OP_NE:
    case ANOT_EXPR_OP_LT:
    case ANOT_EXPR_OP_LE:
    case ANOT_EXPR_OP_GT:
    case ANOT_EXPR_OP_GE:
    case ANOT_EXPR_OP_IN:
    case ANOT_EXPR_OP_NOT_IN:
    case ANOT_EXPR_OP_IS:
    case ANOT_EXPR_OP_IS_NOT:
    default:
      g_assert_not_reached ();
    }
  *out = anot_expr_value_int (r);
  return TRUE;
}

/* CPython's float_divmod(). */
static void
float_divmod (double  vx,
              double  wx,
              double *floordiv,
              double *modulo)
{
  double mod = fmod (vx, wx);
  double div = (vx - mod) / wx;

  if (mod != 0.0)
    {
      if ((wx < 0) != (mod < 0))
        {
          mod += wx;
          div -= 1.0;
        }
    }
  else
    mod = copysign (0.0, wx);

  if (div != 0.0)
    {
      double fl = floor (div);

      if (div - fl > 0.5)
        fl += 1.0;
      div = fl;
    }
  else
    div = copysign (0.0, vx / wx);

  *floordiv = div;
  *modulo = mod;
}

gboolean
float_pow (Eval    *ev,
           double   x,
           double   y,
           guint    offset,
           gboolean math_pow,
           double  *out)
{
  double r;

  if (x == 0.0 && y < 0.0 && isfinite (y))
    {
      if (math_pow)
        return fail (ev, ANOT_ERROR_EXPR_VALUE, offset, "math domain error");
      return fail (ev, ANOT_ERROR_EXPR_ZERO_DIVISION, offset,
                    "0.0 cannot be raised to a negative power");
    }
  if (x < 0.0 && isfinite (x) && isfinite (y) && y != floor (y))
    {
      if (math_pow)
        return fail (ev, ANOT_ERROR_EXPR_VALUE, offset, "math domain error");
      /* Python gives a complex number; the language has none. */
      return fail (ev, ANOT_ERROR_EXPR_VALUE, offset,
                    "a negative number raised to a fractional power is complex, "
                    "and complex numbers are not supported");
    }
  r = pow (x, y);
  if (isinf (r) && isfinite (x) && isfinite (y))
    return fail (ev, ANOT_ERROR_EXPR_OVERFLOW, offset,
                  math_pow ? "math range error" : "(34, 'Numerical result out of range')");
  *out = r;
  return TRUE;
}

static gboolean
float_arith (Eval          *ev,
             AnotExprOp     op,
             double         a,
             double         b,
             guint          offset,
             AnotExprValue *out)
{
  double r;
  double div;
  double mod;

  switch (op)
    {
    case ANOT_EXPR_OP_ADD: r = a + b; break;
    case ANOT_EXPR_OP_SUB: r = a - b; break;
    case ANOT_EXPR_OP_MUL: r = a * b; break;
    case ANOT_EXPR_OP_DIV:
      if (b == 0.0)
        return fail (ev, ANOT_ERROR_EXPR_ZERO_DIVISION, offset, "float division by zero");
      r = a / b;
      break;
    case ANOT_EXPR_OP_FLOORDIV:
      if (b == 0.0)
        return fail (ev, ANOT_ERROR_EXPR_ZERO_DIVISION, offset, "float floor division by zero");
      float_divmod (a, b, &div, &mod);
      r = div;
      break;
    case ANOT_EXPR_OP_MOD:
      if (b == 0.0)
        return fail (ev, ANOT_ERROR_EXPR_ZERO_DIVISION, offset, "float modulo");
      float_divmod (a, b, &div, &mod);
      r = mod;
      break;
    case ANOT_EXPR_OP_POW:
      if (!float_pow (ev, a, b, offset, FALSE, &r))
        return FALSE;
      break;
    case ANOT_EXPR_OP_NEG:
    case ANOT_EXPR_OP_POS:
    case ANOT_EXPR_OP_EQ:
    case ANOT_EXPR_OP_NE:
    case ANOT_EXPR_OP_LT:
    case ANOT_EXPR_OP_LE:
    case ANOT_EXPR_OP_GT:
    case ANOT_EXPR_OP_GE:
    case ANOT_EXPR_OP_IN:
    case ANOT_EXPR_OP_NOT_IN:
    case ANOT_EXPR_OP_IS:
    case ANOT_EXPR_OP_IS_NOT:
    default:
      g_assert_not_reached ();
    }
  *out = anot_expr_value_float (r);
  return TRUE;
}

/* ------------------------------------------------------------------------ *
 * Strings
 * ------------------------------------------------------------------------ */

/* memmem(), which is a GNU extension. */
const char *
find_bytes (const char *haystack,
            gsize       haystack_len,
            const char *needle,
            gsize       needle_len)
{
  const char *end;

  if (needle_len == 0)
    return haystack;
  if (needle_len > haystack_len)
    return NULL;
  end = haystack + haystack_len - needle_len;
  for (const char *p = haystack; p <= end; p++)
    {
      p = memchr (p, needle[0], end - p + 1);
      if (p == NULL)
        return NULL;
      if (memcmp (p, needle, needle_len) == 0)
        return p;
    }
  return NULL;
}

static gboolean
str_is_ascii (AnotExprStr *s)
{
  return anot_expr_str_n_chars (s) == s->len;
}

/* Byte offset of code point @index (<= n_chars). */
static gsize
str_char_offset (AnotExprStr *s,
                 gsize        index)
{
  if (str_is_ascii (s))
    return index;
  return g_utf8_offset_to_pointer (s->data, index) - s->data;
}

gboolean
py_isspace (gunichar c)
{
  if (c < 0x80)
    return c == ' ' || (c >= 0x09 && c <= 0x0d) || (c >= 0x1c && c <= 0x1f);
  return c == 0x85 || c == 0xa0 || c == 0x1680 || (c >= 0x2000 && c <= 0x200a) ||
         c == 0x2028 || c == 0x2029 || c == 0x202f || c == 0x205f || c == 0x3000;
}

AnotExprValue
str_from_char (const char *p)
{
  return anot_expr_value_new_string (p, g_utf8_next_char (p) - p);
}

gboolean
new_string_checked (Eval          *ev,
                    GString       *text,
                    guint          offset,
                    AnotExprValue *out)
{
  if (!check_string (ev, text->len, offset))
    {
      g_string_free (text, TRUE);
      return FALSE;
    }
  *out = anot_expr_value_new_string (text->str, text->len);
  g_string_free (text, TRUE);
  return TRUE;
}

/* ------------------------------------------------------------------------ *
 * Operators
 * ------------------------------------------------------------------------ */

static gboolean
seq_concat (Eval          *ev,
            AnotExprValue  a,
            AnotExprValue  b,
            guint          offset,
            AnotExprValue *out)
{
  guint64 n = (guint64) a.u.seq->len + b.u.seq->len;
  AnotExprValue r;

  if (!check_items (ev, n, offset))
    return FALSE;
  r = a.kind == ANOT_EXPR_LIST ? anot_expr_value_new_list (n) : anot_expr_value_new_tuple (n);
  for (guint i = 0; i < a.u.seq->len; i++)
    anot_expr_seq_append (r.u.seq, anot_expr_value_ref (a.u.seq->items[i]));
  for (guint i = 0; i < b.u.seq->len; i++)
    anot_expr_seq_append (r.u.seq, anot_expr_value_ref (b.u.seq->items[i]));
  *out = r;
  return TRUE;
}

static gboolean
repeat (Eval          *ev,
        AnotExprValue  seq,
        gint64         times,
        guint          offset,
        AnotExprValue *out)
{
  if (times < 0)
    times = 0;
  /* Nothing to repeat: no loop of `times` turns (found by fuzz-expr,
   * [] * 1111111111111111). */
  if ((seq.kind == ANOT_EXPR_STR && seq.u.s->len == 0) ||
      (seq.kind != ANOT_EXPR_STR && seq.u.seq->len == 0))
    times = 0;

  if (seq.kind == ANOT_EXPR_STR)
    {
      GString *text;

      if (seq.u.s->len > 0 && (guint64) times > ev->max_string / seq.u.s->len)
        return check_string (ev, G_MAXUINT64, offset);
      if (!check_string (ev, seq.u.s->len * (guint64) times, offset))
        return FALSE;
      text = g_string_sized_new (seq.u.s->len * times + 1);
      for (gint64 i = 0; i < times; i++)
        g_string_append_len (text, seq.u.s->data, seq.u.s->len);
      return new_string_checked (ev, text, offset, out);
    }
  else
    {
      guint len = seq.u.seq->len;
      AnotExprValue r;

      if (len > 0 && (guint64) times > ev->max_items / len)
        return check_items (ev, G_MAXUINT64, offset);
      r = seq.kind == ANOT_EXPR_LIST ? anot_expr_value_new_list (len * times)
                                     : anot_expr_value_new_tuple (len * times);
      for (gint64 i = 0; i < times; i++)
        for (guint k = 0; k < len; k++)
          anot_expr_seq_append (r.u.seq, anot_expr_value_ref (seq.u.seq->items[k]));
      *out = r;
      return TRUE;
    }
}

static gboolean
is_sequence (AnotExprValue v)
{
  return v.kind == ANOT_EXPR_STR || v.kind == ANOT_EXPR_LIST || v.kind == ANOT_EXPR_TUPLE;
}

/* The commonest arithmetic without a call: + - * of ints, + - * / with a
 * float, as binary_op() computes them; FALSE, leaving it to binary_op(),
 * for anything else (other kinds or operators, an int overflow, a
 * division by zero). */
static inline __attribute__ ((always_inline)) gboolean
arith_inline (AnotExprOp     op,
              AnotExprValue  a,
              AnotExprValue  b,
              AnotExprValue *out)
{
  if (a.kind == ANOT_EXPR_INT && b.kind == ANOT_EXPR_INT)
    {
      gint64 r;

      if (op == ANOT_EXPR_OP_ADD ? __builtin_add_overflow (a.u.i, b.u.i, &r) :
          op == ANOT_EXPR_OP_SUB ? __builtin_sub_overflow (a.u.i, b.u.i, &r) :
          op == ANOT_EXPR_OP_MUL ? __builtin_mul_overflow (a.u.i, b.u.i, &r) : TRUE)
        return FALSE;
      *out = anot_expr_value_int (r);
      return TRUE;
    }
  if ((a.kind == ANOT_EXPR_FLOAT || a.kind == ANOT_EXPR_INT) &&
      (b.kind == ANOT_EXPR_FLOAT || b.kind == ANOT_EXPR_INT))
    {
      double x = a.kind == ANOT_EXPR_FLOAT ? a.u.f : (double) a.u.i;
      double y = b.kind == ANOT_EXPR_FLOAT ? b.u.f : (double) b.u.i;
      double r;

      if (op == ANOT_EXPR_OP_ADD)
        r = x + y;
      else if (op == ANOT_EXPR_OP_SUB)
        r = x - y;
      else if (op == ANOT_EXPR_OP_MUL)
        r = x * y;
      else if (op == ANOT_EXPR_OP_DIV && y != 0.0)
        r = x / y;
      else
        return FALSE;
      *out = anot_expr_value_float (r);
      return TRUE;
    }
  return FALSE;
}

G_GNUC_NO_INLINE gboolean
binary_op (Eval          *ev,
           AnotExprOp     op,
           AnotExprValue  a,
           AnotExprValue  b,
           guint          offset,
           AnotExprValue *out)
{
  if (is_intlike (a) && is_intlike (b))
    return int_arith (ev, op, to_int (a), to_int (b), offset, out);
  if (is_num (a) && is_num (b))
    return float_arith (ev, op, to_double (a), to_double (b), offset, out);

  if (op == ANOT_EXPR_OP_ADD && a.kind == b.kind)
    {
      if (a.kind == ANOT_EXPR_STR)
        {
          GString *text;

          if (!check_string (ev, (guint64) a.u.s->len + b.u.s->len, offset))
            return FALSE;
          text = g_string_sized_new (a.u.s->len + b.u.s->len + 1);
          g_string_append_len (text, a.u.s->data, a.u.s->len);
          g_string_append_len (text, b.u.s->data, b.u.s->len);
          return new_string_checked (ev, text, offset, out);
        }
      if (a.kind == ANOT_EXPR_LIST || a.kind == ANOT_EXPR_TUPLE)
        return seq_concat (ev, a, b, offset, out);
    }
  if (op == ANOT_EXPR_OP_MUL)
    {
      if (is_sequence (a) && is_intlike (b))
        return repeat (ev, a, to_int (b), offset, out);
      if (is_intlike (a) && is_sequence (b))
        return repeat (ev, b, to_int (a), offset, out);
      if (is_sequence (a) || is_sequence (b))
        return fail (ev, ANOT_ERROR_EXPR_TYPE, offset,
                      "can't multiply sequence by non-int of type '%s'",
                      tname (is_sequence (a) ? b : a));
    }
  if (op == ANOT_EXPR_OP_ADD && is_sequence (a))
    return fail (ev, ANOT_ERROR_EXPR_TYPE, offset,
                  "can only concatenate %s (not \"%s\") to %s", tname (a), tname (b), tname (a));
  if (op == ANOT_EXPR_OP_MOD && a.kind == ANOT_EXPR_STR)
    return fail (ev, ANOT_ERROR_EXPR_TYPE, offset,
                  "string formatting with %% is not supported");
  if (op == ANOT_EXPR_OP_POW)
    return fail (ev, ANOT_ERROR_EXPR_TYPE, offset,
                  "unsupported operand type(s) for ** or pow(): '%s' and '%s'", tname (a), tname (b));
  return fail (ev, ANOT_ERROR_EXPR_TYPE, offset,
                "unsupported operand type(s) for %s: '%s' and '%s'", op_symbol (op), tname (a), tname (b));
}

static G_GNUC_NO_INLINE gboolean
unary_op (Eval          *ev,
          AnotExprOp     op,
          AnotExprValue  a,
          guint          offset,
          AnotExprValue *out)
{
  if (is_intlike (a))
    {
      gint64 i = to_int (a);

      if (op == ANOT_EXPR_OP_NEG)
        {
          if (i == G_MININT64)
            return int_overflow (ev, offset);
          i = -i;
        }
      *out = anot_expr_value_int (i);
      return TRUE;
    }
  if (a.kind == ANOT_EXPR_FLOAT)
    {
      *out = anot_expr_value_float (op == ANOT_EXPR_OP_NEG ? -a.u.f : a.u.f);
      return TRUE;
    }
  return fail (ev, ANOT_ERROR_EXPR_TYPE, offset, "bad operand type for unary %s: '%s'",
                op_symbol (op), tname (a));
}

static gboolean
apply_cmp (AnotExprOp op,
           int        c)
{
  switch (op)
    {
    case ANOT_EXPR_OP_LT: return c < 0;
    case ANOT_EXPR_OP_LE: return c <= 0;
    case ANOT_EXPR_OP_GT: return c > 0;
    case ANOT_EXPR_OP_GE: return c >= 0;
    case ANOT_EXPR_OP_EQ: return c == 0;
    case ANOT_EXPR_OP_NE: return c != 0;
    case ANOT_EXPR_OP_ADD:
    case ANOT_EXPR_OP_SUB:
    case ANOT_EXPR_OP_MUL:
    case ANOT_EXPR_OP_DIV:
    case ANOT_EXPR_OP_FLOORDIV:
    case ANOT_EXPR_OP_MOD:
    case ANOT_EXPR_OP_POW:
    case ANOT_EXPR_OP_NEG:
    case ANOT_EXPR_OP_POS:
    case ANOT_EXPR_OP_IN:
    case ANOT_EXPR_OP_NOT_IN:
    case ANOT_EXPR_OP_IS:
    case ANOT_EXPR_OP_IS_NOT:
    default:
      return FALSE;
    }
}

/* Python's <, <=, >, >= for the orderable kinds. */
G_GNUC_NO_INLINE gboolean
order (Eval          *ev,
       AnotExprOp     op,
       AnotExprValue  a,
       AnotExprValue  b,
       guint          offset,
       gboolean      *result)
{
  if (is_num (a) && is_num (b))
    {
      if (is_intlike (a) && is_intlike (b))
        {
          gint64 x = to_int (a);
          gint64 y = to_int (b);

          *result = apply_cmp (op, x < y ? -1 : x > y ? 1 : 0);
        }
      else if (a.kind == ANOT_EXPR_FLOAT && b.kind == ANOT_EXPR_FLOAT)
        {
          double x = a.u.f;
          double y = b.u.f;

          switch (op)
            {
            case ANOT_EXPR_OP_LT: *result = x < y; break;
            case ANOT_EXPR_OP_LE: *result = x <= y; break;
            case ANOT_EXPR_OP_GT: *result = x > y; break;
            case ANOT_EXPR_OP_GE: *result = x >= y; break;
            case ANOT_EXPR_OP_ADD:
            case ANOT_EXPR_OP_SUB:
            case ANOT_EXPR_OP_MUL:
            case ANOT_EXPR_OP_DIV:
            case ANOT_EXPR_OP_FLOORDIV:
            case ANOT_EXPR_OP_MOD:
            case ANOT_EXPR_OP_POW:
            case ANOT_EXPR_OP_NEG:
            case ANOT_EXPR_OP_POS:
            case ANOT_EXPR_OP_EQ:
            case ANOT_EXPR_OP_NE:
            case ANOT_EXPR_OP_IN:
            case ANOT_EXPR_OP_NOT_IN:
            case ANOT_EXPR_OP_IS:
            case ANOT_EXPR_OP_IS_NOT:
            default: *result = FALSE; break;
            }
        }
      else
        {
          int c = a.kind == ANOT_EXPR_FLOAT ? -anot_expr_compare_int_float (to_int (b), a.u.f)
                                            : anot_expr_compare_int_float (to_int (a), b.u.f);

          /* NaN compares false either way. */
          *result = (c == 2 || c == -2) ? FALSE : apply_cmp (op, c);
        }
      return TRUE;
    }

  if (a.kind == ANOT_EXPR_STR && b.kind == ANOT_EXPR_STR)
    {
      /* UTF-8 byte order is code point order. */
      gsize n = MIN (a.u.s->len, b.u.s->len);
      int c = n > 0 ? memcmp (a.u.s->data, b.u.s->data, n) : 0;

      if (c == 0)
        c = a.u.s->len < b.u.s->len ? -1 : a.u.s->len > b.u.s->len ? 1 : 0;
      *result = apply_cmp (op, c < 0 ? -1 : c > 0 ? 1 : 0);
      return TRUE;
    }

  if (a.kind == b.kind && (a.kind == ANOT_EXPR_LIST || a.kind == ANOT_EXPR_TUPLE))
    {
      guint n = MIN (a.u.seq->len, b.u.seq->len);

      for (guint i = 0; i < n; i++)
        if (!anot_expr_value_equal (a.u.seq->items[i], b.u.seq->items[i]))
          return order (ev, op, a.u.seq->items[i], b.u.seq->items[i], offset, result);
      *result = apply_cmp (op, a.u.seq->len < b.u.seq->len ? -1 : a.u.seq->len > b.u.seq->len ? 1 : 0);
      return TRUE;
    }

  return fail (ev, ANOT_ERROR_EXPR_TYPE, offset,
                "'%s' not supported between instances of '%s' and '%s'",
                op_symbol (op), tname (a), tname (b));
}

static G_GNUC_NO_INLINE gboolean
contains (Eval          *ev,
          AnotExprValue  container,
          AnotExprValue  item,
          guint          offset,
          gboolean      *result)
{
  switch (container.kind)
    {
    case ANOT_EXPR_STR:
      if (item.kind != ANOT_EXPR_STR)
        return fail (ev, ANOT_ERROR_EXPR_TYPE, offset,
                      "'in <string>' requires string as left operand, not %s", tname (item));
      *result = item.u.s->len == 0 ||
                find_bytes (container.u.s->data, container.u.s->len, item.u.s->data, item.u.s->len) != NULL;
      return TRUE;
    case ANOT_EXPR_LIST:
    case ANOT_EXPR_TUPLE:
      *result = FALSE;
      for (guint i = 0; i < container.u.seq->len; i++)
        {
          if (!STEP (ev, offset))
            return FALSE;
          if (anot_expr_value_equal (container.u.seq->items[i], item))
            {
              *result = TRUE;
              break;
            }
        }
      return TRUE;
    case ANOT_EXPR_DICT:
      if (!is_hashable (item))
        return unhashable (ev, item, offset);
      *result = anot_expr_dict_lookup (container.u.d, item) != NULL;
      return TRUE;
    case ANOT_EXPR_NONE:
    case ANOT_EXPR_BOOL:
    case ANOT_EXPR_INT:
    case ANOT_EXPR_FLOAT:
    case ANOT_EXPR_FUNC:
    case ANOT_EXPR_MODULE:
    case ANOT_EXPR_GENERATOR:
    default:
      return fail (ev, ANOT_ERROR_EXPR_TYPE, offset,
                    "argument of type '%s' is not iterable", tname (container));
    }
}

static gboolean
identical (AnotExprValue a,
           AnotExprValue b)
{
  if (a.kind != b.kind)
    return FALSE;
  switch (a.kind)
    {
    case ANOT_EXPR_NONE: return TRUE;
    case ANOT_EXPR_BOOL: return a.u.b == b.u.b;
    case ANOT_EXPR_INT: return a.u.i == b.u.i;
    case ANOT_EXPR_FLOAT: return memcmp (&a.u.f, &b.u.f, sizeof (double)) == 0;
    case ANOT_EXPR_STR:
    case ANOT_EXPR_LIST:
    case ANOT_EXPR_TUPLE:
    case ANOT_EXPR_DICT:
    case ANOT_EXPR_FUNC:
    case ANOT_EXPR_MODULE:
    case ANOT_EXPR_GENERATOR:
    default:
      return a.u.s == b.u.s;
    }
}

G_GNUC_NO_INLINE gboolean
compare (Eval          *ev,
         AnotExprOp     op,
         AnotExprValue  a,
         AnotExprValue  b,
         guint          offset,
         gboolean      *result)
{
  switch (op)
    {
    case ANOT_EXPR_OP_EQ:
      *result = anot_expr_value_equal (a, b);
      return TRUE;
    case ANOT_EXPR_OP_NE:
      *result = !anot_expr_value_equal (a, b);
      return TRUE;
    case ANOT_EXPR_OP_IN:
      return contains (ev, b, a, offset, result);
    case ANOT_EXPR_OP_NOT_IN:
      if (!contains (ev, b, a, offset, result))
        return FALSE;
      *result = !*result;
      return TRUE;
    case ANOT_EXPR_OP_IS:
      *result = identical (a, b);
      return TRUE;
    case ANOT_EXPR_OP_IS_NOT:
      *result = !identical (a, b);
      return TRUE;
    case ANOT_EXPR_OP_LT:
    case ANOT_EXPR_OP_LE:
    case ANOT_EXPR_OP_GT:
    case ANOT_EXPR_OP_GE:
      return order (ev, op, a, b, offset, result);
    case ANOT_EXPR_OP_ADD:
    case ANOT_EXPR_OP_SUB:
    case ANOT_EXPR_OP_MUL:
    case ANOT_EXPR_OP_DIV:
    case ANOT_EXPR_OP_FLOORDIV:
    case ANOT_EXPR_OP_MOD:
    case ANOT_EXPR_OP_POW:
    case ANOT_EXPR_OP_NEG:
    case ANOT_EXPR_OP_POS:
    default:
      g_assert_not_reached ();
    }
}

/* ------------------------------------------------------------------------ *
 * Subscripts and slices
 * ------------------------------------------------------------------------ */

G_GNUC_NO_INLINE gboolean
subscript (Eval          *ev,
           AnotExprValue  obj,
           AnotExprValue  index,
           guint          offset,
           AnotExprValue *out)
{
  switch (obj.kind)
    {
    case ANOT_EXPR_LIST:
    case ANOT_EXPR_TUPLE:
    case ANOT_EXPR_STR:
      {
        gint64 i;
        gint64 len = obj.kind == ANOT_EXPR_STR ? (gint64) anot_expr_str_n_chars (obj.u.s)
                                               : (gint64) obj.u.seq->len;

        if (!is_intlike (index))
          {
            if (obj.kind == ANOT_EXPR_STR)
              return fail (ev, ANOT_ERROR_EXPR_TYPE, offset,
                            "string indices must be integers, not '%s'", tname (index));
            return fail (ev, ANOT_ERROR_EXPR_TYPE, offset,
                          "%s indices must be integers or slices, not %s", tname (obj), tname (index));
          }
        i = to_int (index);
        if (i < 0)
          i += len;
        if (i < 0 || i >= len)
          return fail (ev, ANOT_ERROR_EXPR_INDEX, offset, "%s index out of range",
                        obj.kind == ANOT_EXPR_STR ? "string" : tname (obj));
        if (obj.kind == ANOT_EXPR_STR)
          *out = str_from_char (obj.u.s->data + str_char_offset (obj.u.s, i));
        else
          *out = anot_expr_value_ref (obj.u.seq->items[i]);
        return TRUE;
      }
    case ANOT_EXPR_DICT:
      {
        AnotExprValue *v;

        if (!is_hashable (index))
          return unhashable (ev, index, offset);
        v = anot_expr_dict_lookup (obj.u.d, index);
        if (v == NULL)
          {
            g_autofree char *repr = anot_expr_value_repr (index);

            return fail (ev, ANOT_ERROR_EXPR_KEY, offset, "%s", repr);
          }
        *out = anot_expr_value_ref (*v);
        return TRUE;
      }
    case ANOT_EXPR_NONE:
    case ANOT_EXPR_BOOL:
    case ANOT_EXPR_INT:
    case ANOT_EXPR_FLOAT:
    case ANOT_EXPR_FUNC:
    case ANOT_EXPR_MODULE:
    case ANOT_EXPR_GENERATOR:
    default:
      return fail (ev, ANOT_ERROR_EXPR_TYPE, offset, "'%s' object is not subscriptable", tname (obj));
    }
}

static gboolean
slice_index (Eval          *ev,
             AnotExprValue  v,
             guint          offset,
             gboolean      *given,
             gint64        *out)
{
  if (v.kind == ANOT_EXPR_NONE)
    {
      *given = FALSE;
      return TRUE;
    }
  if (!is_intlike (v))
    return fail (ev, ANOT_ERROR_EXPR_TYPE, offset,
                  "slice indices must be integers or None or have an __index__ method");
  *given = TRUE;
  *out = to_int (v);
  return TRUE;
}

/* CPython's PySlice_AdjustIndices(), after the defaults of slice_indices. */
static gint64
slice_adjust (gint64  len,
              gint64 *start,
              gint64 *stop,
              gint64  step)
{
  if (*start < 0)
    {
      *start += len;
      if (*start < 0)
        *start = step < 0 ? -1 : 0;
    }
  else if (*start >= len)
    *start = step < 0 ? len - 1 : len;

  if (*stop < 0)
    {
      *stop += len;
      if (*stop < 0)
        *stop = step < 0 ? -1 : 0;
    }
  else if (*stop >= len)
    *stop = step < 0 ? len - 1 : len;

  if (step < 0)
    {
      if (*stop < *start)
        return (*start - *stop - 1) / (-step) + 1;
    }
  else if (*start < *stop)
    return (*stop - *start - 1) / step + 1;
  return 0;
}

static G_GNUC_NO_INLINE gboolean
slice (Eval          *ev,
       AnotExprValue  obj,
       AnotExprValue  lower,
       AnotExprValue  upper,
       AnotExprValue  stepv,
       guint          offset,
       AnotExprValue *out)
{
  gboolean has_lower = FALSE, has_upper = FALSE, has_step = FALSE;
  gint64 start = 0, stop = 0, step = 1;
  gint64 len;
  gint64 n;

  if (obj.kind != ANOT_EXPR_LIST && obj.kind != ANOT_EXPR_TUPLE && obj.kind != ANOT_EXPR_STR)
    {
      if (obj.kind == ANOT_EXPR_DICT)
        return fail (ev, ANOT_ERROR_EXPR_TYPE, offset, "unhashable type: 'slice'");
      return fail (ev, ANOT_ERROR_EXPR_TYPE, offset, "'%s' object is not subscriptable", tname (obj));
    }
  if (!slice_index (ev, lower, offset, &has_lower, &start) ||
      !slice_index (ev, upper, offset, &has_upper, &stop) ||
      !slice_index (ev, stepv, offset, &has_step, &step))
    return FALSE;
  if (!has_step)
    step = 1;
  if (step == 0)
    return fail (ev, ANOT_ERROR_EXPR_VALUE, offset, "slice step cannot be zero");
  if (step == G_MININT64)
    step = -G_MAXINT64;

  len = obj.kind == ANOT_EXPR_STR ? (gint64) anot_expr_str_n_chars (obj.u.s) : (gint64) obj.u.seq->len;
  if (!has_lower)
    start = step < 0 ? G_MAXINT64 : 0;
  if (!has_upper)
    stop = step < 0 ? G_MININT64 : G_MAXINT64;
  n = slice_adjust (len, &start, &stop, step);

  if (obj.kind == ANOT_EXPR_STR)
    {
      GString *text = g_string_new (NULL);

      if (str_is_ascii (obj.u.s))
        {
          for (gint64 k = 0, i = start; k < n; k++, i += step)
            g_string_append_c (text, obj.u.s->data[i]);
        }
      else
        {
          g_autofree gsize *offsets = g_new (gsize, len + 1);
          const char *p = obj.u.s->data;

          for (gint64 i = 0; i <= len; i++)
            {
              offsets[i] = p - obj.u.s->data;
              if (i < len)
                p = g_utf8_next_char (p);
            }
          for (gint64 k = 0, i = start; k < n; k++, i += step)
            g_string_append_len (text, obj.u.s->data + offsets[i], offsets[i + 1] - offsets[i]);
        }
      return new_string_checked (ev, text, offset, out);
    }
  else
    {
      AnotExprValue r = obj.kind == ANOT_EXPR_LIST ? anot_expr_value_new_list (n) : anot_expr_value_new_tuple (n);

      for (gint64 k = 0, i = start; k < n; k++, i += step)
        anot_expr_seq_append (r.u.seq, anot_expr_value_ref (obj.u.seq->items[i]));
      *out = r;
      return TRUE;
    }
}

/* ------------------------------------------------------------------------ *
 * Calls
 * ------------------------------------------------------------------------ */

static gboolean
check_arity (Eval                  *ev,
             const AnotExprBuiltin *fn,
             Args                  *a)
{
  if (a->n < fn->min_args || a->n > fn->max_args)
    {
      if (fn->min_args == fn->max_args)
        return fail (ev, ANOT_ERROR_EXPR_TYPE, a->offset,
                      "%s() takes exactly %u argument%s (%u given)",
                      fn->name, fn->min_args, fn->min_args == 1 ? "" : "s", a->n);
      if (a->n < fn->min_args)
        return fail (ev, ANOT_ERROR_EXPR_TYPE, a->offset,
                      "%s() takes at least %u argument%s (%u given)",
                      fn->name, fn->min_args, fn->min_args == 1 ? "" : "s", a->n);
      return fail (ev, ANOT_ERROR_EXPR_TYPE, a->offset,
                    "%s() takes at most %u argument%s (%u given)",
                    fn->name, fn->max_args, fn->max_args == 1 ? "" : "s", a->n);
    }
  for (guint i = 0; i < a->n_kw; i++)
    {
      gboolean ok = FALSE;

      if (fn->kwnames != NULL)
        {
          g_auto(GStrv) names = g_strsplit (fn->kwnames, " ", -1);

          ok = g_strv_contains ((const char * const *) names, a->kwnames[i]) ||
               g_strv_contains ((const char * const *) names, "*");
        }
      if (!ok)
        return fail (ev, ANOT_ERROR_EXPR_TYPE, a->offset,
                      "%s() got an unexpected keyword argument '%s'", fn->name, a->kwnames[i]);
    }
  return TRUE;
}

#define N_INLINE_ARGS 8

static G_GNUC_NO_INLINE gboolean
eval_call (Eval          *ev,
           AnotExprNode  *n,
           AnotExprValue *out)
{
  AnotExprNode *fnode = n->u.call.func;
  const AnotExprBuiltin *fn = NULL;
  AnotExprValue self = ANOT_EXPR_VALUE_NONE;
  AnotExprValue inline_args[N_INLINE_ARGS];
  AnotExprValue inline_kw[N_INLINE_ARGS];
  Args a = { 0 };
  guint n_done = 0, n_kw_done = 0;
  gboolean ok = FALSE;

  a.offset = fnode->offset;
  if (fnode->kind == ANOT_EXPR_NODE_ATTR)
    {
      gsize n_methods;
      const AnotExprBuiltin *table;

      if (!eval (ev, fnode->u.attr.object, &self))
        return FALSE;
      table = method_table (self.kind, &n_methods);
      if (table != NULL)
        fn = table_lookup (table, n_methods, fnode->u.attr.name);
      if (fn == NULL)
        {
          no_attribute (ev, self, fnode->u.attr.name, fnode->offset);
          goto out;
        }
      if (fn->func == NULL)
        {
          fail (ev, ANOT_ERROR_EXPR_TYPE, a.offset, "'float' object is not callable");
          goto out;
        }
      if (self.kind != ANOT_EXPR_MODULE)
        a.self = self;
    }
  else
    {
      AnotExprValue callee;

      if (!eval (ev, fnode, &callee))
        return FALSE;
      if (callee.kind != ANOT_EXPR_FUNC || callee.u.fn->func == NULL)
        {
          fail (ev, ANOT_ERROR_EXPR_TYPE, a.offset, "'%s' object is not callable", tname (callee));
          anot_expr_value_unref (callee);
          return FALSE;
        }
      fn = callee.u.fn;
    }
  a.name = fn->name;

  a.n = n->u.call.n_args;
  a.v = a.n <= N_INLINE_ARGS ? inline_args : g_new (AnotExprValue, a.n);
  for (; n_done < a.n; n_done++)
    {
      AnotExprNode *arg = n->u.call.args[n_done];

      /* Handed over unevaluated: the callee iterates it lazily. */
      if (arg->kind == ANOT_EXPR_NODE_GENEXP)
        a.v[n_done] = (AnotExprValue) { .kind = ANOT_EXPR_GENERATOR, .u.gen = arg };
      else if (!eval (ev, arg, &a.v[n_done]))
        goto out;
    }
  a.n_kw = n->u.call.n_kwargs;
  a.kwnames = n->u.call.kwnames;
  a.kw = a.n_kw <= N_INLINE_ARGS ? inline_kw : g_new (AnotExprValue, a.n_kw);
  for (; n_kw_done < a.n_kw; n_kw_done++)
    if (!eval (ev, n->u.call.kwargs[n_kw_done], &a.kw[n_kw_done]))
      goto out;

  if (!check_arity (ev, fn, &a))
    goto out;
  ok = fn->func (ev, &a, out);
  if (ok && out->kind == ANOT_EXPR_GENERATOR)
    {
      /* A generator may only be consumed by its callee, never escape. */
      ok = fail (ev, ANOT_ERROR_EXPR_TYPE, a.offset,
                  "a generator expression cannot be the result of %s()", fn->name);
    }

out:
  for (guint i = 0; i < n_done; i++)
    anot_expr_value_unref (a.v[i]);
  for (guint i = 0; i < n_kw_done; i++)
    anot_expr_value_unref (a.kw[i]);
  if (a.v != inline_args)
    g_free (a.v);
  if (a.kw != inline_kw)
    g_free (a.kw);
  anot_expr_value_unref (self);
  return ok;
}

static G_GNUC_NO_INLINE gboolean
eval_attr (Eval          *ev,
           AnotExprNode  *n,
           AnotExprValue *out)
{
  AnotExprValue obj;
  const AnotExprBuiltin *member = NULL;
  gsize n_members;
  const AnotExprBuiltin *table;
  gboolean ok;

  if (!eval (ev, n->u.attr.object, &obj))
    return FALSE;
  table = method_table (obj.kind, &n_members);
  if (table != NULL)
    member = table_lookup (table, n_members, n->u.attr.name);

  if (member == NULL)
    ok = no_attribute (ev, obj, n->u.attr.name, n->offset);
  else if (obj.kind == ANOT_EXPR_MODULE)
    {
      if (member->func == NULL)
        *out = anot_expr_value_float (member->constant);
      else
        *out = (AnotExprValue) { .kind = ANOT_EXPR_FUNC, .u.fn = member };
      ok = TRUE;
    }
  else
    ok = fail (ev, ANOT_ERROR_EXPR_ATTRIBUTE, n->offset,
                "the method '%s' of %s can only be called, as in x.%s(...)",
                n->u.attr.name, tname (obj), n->u.attr.name);
  anot_expr_value_unref (obj);
  return ok;
}

/* ------------------------------------------------------------------------ *
 * Nodes
 * ------------------------------------------------------------------------ */

/* d[k] for a constant string k, the commonest subscript of a formula
 * (e["incident_severity"]): the key's position in the last dict is tried
 * first, so a list of records of the same layout costs one comparison. */
static G_GNUC_NO_INLINE gboolean
subscript_const_str (Eval          *ev,
                     AnotExprNode  *n,
                     AnotExprDict  *d,
                     AnotExprStr   *key,
                     AnotExprValue *out)
{
  const AnotExprValue *v = subscript_const_str_borrow (ev, n, d, key);

  if (v == NULL)
    return FALSE;
  *out = anot_expr_value_ref (*v);
  return TRUE;
}

const AnotExprValue *
subscript_const_str_borrow (Eval          *ev,
                            AnotExprNode  *n,
                            AnotExprDict  *d,
                            AnotExprStr   *key)
{
  guint hint = (guint) g_atomic_int_get ((gint *) &n->cache);
  gssize pos = -1;

  if (hint < d->len && d->keys[hint].kind == ANOT_EXPR_STR)
    {
      AnotExprStr *k = d->keys[hint].u.s;

      if (anot_expr_str_equal (k, key))
        pos = hint;
    }
  if (pos < 0)
    {
      pos = anot_expr_dict_find_str (d, key);
      if (pos < 0)
        {
          g_autofree char *repr = NULL;

          if (!ev->quiet)
            repr = anot_expr_value_repr ((AnotExprValue) { .kind = ANOT_EXPR_STR, .u.s = key });
          fail (ev, ANOT_ERROR_EXPR_KEY, n->offset, "%s", repr);
          return NULL;
        }
      g_atomic_int_set ((gint *) &n->cache, (gint) pos);
    }
  return &d->values[pos];
}

gboolean
eval (Eval          *ev,
      AnotExprNode  *n,
      AnotExprValue *out)
{
  AnotExprValue a, b;
  gboolean owned_a, owned_b;
  gboolean ok;

  if (!STEP (ev, n->offset))
    return FALSE;

  switch (n->kind)
    {
    case ANOT_EXPR_NODE_CONST:
      *out = n->u.constant;
      return TRUE;

    case ANOT_EXPR_NODE_GLOBAL:
      if (!ev->defined[n->u.name.slot])
        return fail (ev, ANOT_ERROR_EXPR_NAME, n->offset, "name '%s' is not defined", n->u.name.name);
      *out = anot_expr_value_ref (ev->globals[n->u.name.slot]);
      return TRUE;

    case ANOT_EXPR_NODE_LOCAL:
      *out = anot_expr_value_ref (ev->slots[n->u.name.slot]);
      return TRUE;

    case ANOT_EXPR_NODE_UNARY:
      if (!eval (ev, n->u.op.a, &a))
        return FALSE;
      ok = unary_op (ev, n->u.op.op, a, n->offset, out);
      anot_expr_value_unref (a);
      return ok;

    case ANOT_EXPR_NODE_BINARY:
      if (!eval_ref (ev, n->u.op.a, &a, &owned_a))
        return FALSE;
      if (!eval_ref (ev, n->u.op.b, &b, &owned_b))
        {
          release (a, owned_a);
          return FALSE;
        }
      ok = (anot_expr_fast_enabled && arith_inline (n->u.op.op, a, b, out)) ||
           binary_op (ev, n->u.op.op, a, b, n->offset, out);
      release (a, owned_a);
      release (b, owned_b);
      return ok;

    case ANOT_EXPR_NODE_AND:
    case ANOT_EXPR_NODE_OR:
      for (guint i = 0; i < n->u.seq.n; i++)
        {
          gboolean truth;

          if (!eval_ref (ev, n->u.seq.items[i], &a, &owned_a))
            return FALSE;
          truth = i + 1 == n->u.seq.n || anot_expr_value_truthy (a) == (n->kind == ANOT_EXPR_NODE_OR);
          if (truth)
            {
              *out = owned_a ? a : anot_expr_value_ref (a);
              return TRUE;
            }
          release (a, owned_a);
        }
      g_assert_not_reached ();
      return FALSE;

    case ANOT_EXPR_NODE_NOT:
      if (!eval (ev, n->u.op.a, &a))
        return FALSE;
      *out = anot_expr_value_bool (!anot_expr_value_truthy (a));
      anot_expr_value_unref (a);
      return TRUE;

    case ANOT_EXPR_NODE_COMPARE:
      if (!eval_ref (ev, n->u.compare.first, &a, &owned_a))
        return FALSE;
      for (guint i = 0; i < n->u.compare.n; i++)
        {
          AnotExprOp op = n->u.compare.ops[i];
          gboolean result;

          if (!eval_ref (ev, n->u.compare.rest[i], &b, &owned_b))
            {
              release (a, owned_a);
              return FALSE;
            }
          if ((op == ANOT_EXPR_OP_EQ || op == ANOT_EXPR_OP_NE) &&
              a.kind == ANOT_EXPR_STR && b.kind == ANOT_EXPR_STR)
            {
              /* The commonest test of a formula: e["field"] == "value". */
              result = anot_expr_str_equal (a.u.s, b.u.s);
              if (op == ANOT_EXPR_OP_NE)
                result = !result;
              ok = TRUE;
            }
          else
            ok = compare (ev, op, a, b, n->u.compare.rest[i]->offset, &result);
          release (a, owned_a);
          a = b;
          owned_a = owned_b;
          if (!ok)
            {
              release (a, owned_a);
              return FALSE;
            }
          if (!result)
            {
              release (a, owned_a);
              *out = anot_expr_value_bool (FALSE);
              return TRUE;
            }
        }
      release (a, owned_a);
      *out = anot_expr_value_bool (TRUE);
      return TRUE;

    case ANOT_EXPR_NODE_IFEXP:
      {
        gboolean truth;

        if (!eval (ev, n->u.ifexp.test, &a))
          return FALSE;
        truth = anot_expr_value_truthy (a);
        anot_expr_value_unref (a);
        return eval (ev, truth ? n->u.ifexp.body : n->u.ifexp.orelse, out);
      }

    case ANOT_EXPR_NODE_SUBSCRIPT:
      if (!eval_ref (ev, n->u.sub.object, &a, &owned_a))
        return FALSE;
      if (a.kind == ANOT_EXPR_DICT && n->u.sub.index->kind == ANOT_EXPR_NODE_CONST &&
          n->u.sub.index->u.constant.kind == ANOT_EXPR_STR)
        {
          if (!STEP (ev, n->u.sub.index->offset))
            ok = FALSE;
          else
            ok = subscript_const_str (ev, n, a.u.d, n->u.sub.index->u.constant.u.s, out);
          release (a, owned_a);
          return ok;
        }
      if (!eval_ref (ev, n->u.sub.index, &b, &owned_b))
        {
          release (a, owned_a);
          return FALSE;
        }
      ok = subscript (ev, a, b, n->offset, out);
      release (a, owned_a);
      release (b, owned_b);
      return ok;

    case ANOT_EXPR_NODE_SLICE:
      {
        AnotExprValue bounds[3] = { ANOT_EXPR_VALUE_NONE, ANOT_EXPR_VALUE_NONE, ANOT_EXPR_VALUE_NONE };
        AnotExprNode *nodes[3] = { n->u.sub.lower, n->u.sub.upper, n->u.sub.step };

        if (!eval (ev, n->u.sub.object, &a))
          return FALSE;
        ok = TRUE;
        for (guint i = 0; i < 3 && ok; i++)
          if (nodes[i] != NULL)
            ok = eval (ev, nodes[i], &bounds[i]);
        if (ok)
          ok = slice (ev, a, bounds[0], bounds[1], bounds[2], n->offset, out);
        for (guint i = 0; i < 3; i++)
          anot_expr_value_unref (bounds[i]);
        anot_expr_value_unref (a);
        return ok;
      }

    case ANOT_EXPR_NODE_ATTR:
      return eval_attr (ev, n, out);

    case ANOT_EXPR_NODE_CALL:
      return eval_call (ev, n, out);

    case ANOT_EXPR_NODE_LIST:
    case ANOT_EXPR_NODE_TUPLE:
      {
        AnotExprValue r = n->kind == ANOT_EXPR_NODE_LIST ? anot_expr_value_new_list (n->u.seq.n)
                                                         : anot_expr_value_new_tuple (n->u.seq.n);

        for (guint i = 0; i < n->u.seq.n; i++)
          {
            if (n->u.seq.items[i]->kind == ANOT_EXPR_NODE_GENEXP)
              {
                fail (ev, ANOT_ERROR_EXPR_TYPE, n->u.seq.items[i]->offset,
                       "a generator expression can only be passed to a function, "
                       "as in sum(x for x in xs); use a list comprehension [...] instead");
                anot_expr_value_unref (r);
                return FALSE;
              }
            if (!eval (ev, n->u.seq.items[i], &a))
              {
                anot_expr_value_unref (r);
                return FALSE;
              }
            anot_expr_seq_append (r.u.seq, a);
          }
        *out = r;
        return TRUE;
      }

    case ANOT_EXPR_NODE_DICT:
      {
        AnotExprValue r = anot_expr_value_new_dict ();

        for (guint i = 0; i < n->u.seq.n; i++)
          {
            if (!eval (ev, n->u.seq.items[i], &a))
              {
                anot_expr_value_unref (r);
                return FALSE;
              }
            if (!is_hashable (a))
              {
                unhashable (ev, a, n->u.seq.items[i]->offset);
                anot_expr_value_unref (a);
                anot_expr_value_unref (r);
                return FALSE;
              }
            if (!eval (ev, n->u.seq.values[i], &b))
              {
                anot_expr_value_unref (a);
                anot_expr_value_unref (r);
                return FALSE;
              }
            anot_expr_dict_set (r.u.d, a, b);
          }
        *out = r;
        return TRUE;
      }

    case ANOT_EXPR_NODE_GENEXP:
      return fail (ev, ANOT_ERROR_EXPR_TYPE, n->offset,
                    "a generator expression can only be passed to a function, "
                    "as in sum(x for x in xs); use a list comprehension [...] instead");

    case ANOT_EXPR_NODE_LISTCOMP:
      {
        AnotExprValue r = anot_expr_value_new_list (0);
        Collect c = { r.u.seq, n->offset };
        gboolean stop = FALSE;

        if (!comp_loop (ev, n, 0, emit_append, &c, &stop))
          {
            anot_expr_value_unref (r);
            return FALSE;
          }
        *out = r;
        return TRUE;
      }

    case ANOT_EXPR_NODE_DICTCOMP:
      {
        AnotExprValue r = anot_expr_value_new_dict ();
        gboolean stop = FALSE;

        if (!comp_loop (ev, n, 0, NULL, r.u.d, &stop))
          {
            anot_expr_value_unref (r);
            return FALSE;
          }
        *out = r;
        return TRUE;
      }

    default:
      return fail (ev, ANOT_ERROR_EXPR_SYNTAX, n->offset, "unsupported expression");
    }
}

/* ------------------------------------------------------------------------ *
 * Entry point
 * ------------------------------------------------------------------------ */

#define N_INLINE 32

/* The value a free name starts with: a variable of the scope, else an
 * enabled builtin; FALSE when it is undefined (a NameError if reached). */
static inline gboolean
resolve_global (AnotExprScope         *scope,
                const char            *name,
                guint32                hash,
                const AnotExprBuiltin *fn,
                AnotExprValue         *out)
{
  const AnotExprValue *v = anot_expr_scope_lookup_hashed (scope, name, hash);

  if (v != NULL)
    *out = *v;
  else if (fn != NULL && (scope->builtin_mask & (1u << anot_expr_builtin_index (fn))) != 0)
    *out = (AnotExprValue) {
      .kind = fn->func == NULL ? ANOT_EXPR_MODULE : ANOT_EXPR_FUNC,
      .u.fn = fn
    };
  else
    return FALSE;
  return TRUE;
}


/* Room for an evaluation's variables on the stack, when they fit. */
typedef struct {
  AnotExprValue globals[N_INLINE];
  guint8 defined[N_INLINE];
  AnotExprValue slots[N_INLINE];
} EvalRoom;

/* @ev with @scope's limits, room for @n_free free names and @n_slots
 * comprehension variables (in @room when they fit); eval_clear() frees it. */
static void
eval_init (Eval          *ev,
           AnotExprScope *scope,
           EvalRoom      *room,
           guint          n_free,
           guint          n_slots)
{
  ev->max_steps = scope->max_steps;
  ev->max_items = scope->max_items;
  ev->max_string = scope->max_string;
  ev->globals = n_free <= N_INLINE ? room->globals : g_new (AnotExprValue, n_free);
  ev->defined = n_free <= N_INLINE ? room->defined : g_new (guint8, n_free);
  ev->slots = n_slots <= N_INLINE ? room->slots : g_new (AnotExprValue, n_slots);
}

static void
eval_clear (Eval     *ev,
            EvalRoom *room)
{
  if (ev->globals != room->globals)
    g_free (ev->globals);
  if (ev->defined != room->defined)
    g_free (ev->defined);
  if (ev->slots != room->slots)
    g_free (ev->slots);
}

/* Evaluates ev->expr with ev->globals and ev->defined filled in, into
 * ev->failure; ev->slots has room for its comprehension variables. */
static gboolean
eval_root (Eval          *ev,
           AnotExprValue *result)
{
  AnotExpr *self = ev->expr;
  gboolean ok;

  ev->steps = 0;
  ev->failed = FALSE;
  for (guint i = 0; i < self->n_slots; i++)
    ev->slots[i] = ANOT_EXPR_VALUE_NONE;
  ok = eval (ev, self->root, result);
  for (guint i = 0; i < self->n_slots; i++)
    anot_expr_value_unref (ev->slots[i]);
  if (!ok && !ev->failed)
    {
      ev->failure->code = ANOT_ERROR_EXPR_TYPE;
      ev->failure->message = g_strdup ("Error: evaluation failed");
    }
  return ok;
}

gboolean
anot_expr_eval_value (AnotExpr        *self,
                      AnotExprScope   *scope,
                      AnotExprValue   *result,
                      AnotExprFailure *failure)
{
  AnotExprFailure local = { 0 };
  EvalRoom room;
  Eval ev = { 0 };
  gboolean ok;

  eval_init (&ev, scope, &room, self->n_free, self->n_slots);
  ev.expr = self;
  ev.failure = failure != NULL ? failure : &local;
  ev.quiet = failure == NULL;

  /* Each free name is looked up once. */
  for (guint i = 0; i < self->n_free; i++)
    ev.defined[i] = resolve_global (scope, self->free_names[i], self->free_hashes[i],
                                    self->free_builtins[i], &ev.globals[i]);

  ok = eval_root (&ev, result);

  eval_clear (&ev, &room);
  scope->last_steps = MIN (ev.steps, ev.max_steps);
  anot_expr_failure_clear (&local);
  return ok;
}

#define N_PROGRAM_INLINE 64

/* Counts the steps of @group in one pass (count_group_run()) when NAME
 * and sum are what they are for every step (see AnotExprCountGroup). */
static void
count_group_try (const AnotExprProgram    *program,
                 const AnotExprCountGroup *group,
                 const AnotExprValue      *table,
                 const guint8             *table_defined,
                 guint64                   max_steps,
                 AnotExprValue            *results,
                 gboolean                 *counted)
{
  AnotExprValue records = table[group->iter];

  if (g_array_index (program->written, gboolean, group->iter) ||
      g_array_index (program->written, gboolean, group->sum) ||
      !table_defined[group->iter] || !table_defined[group->sum] ||
      table[group->sum].kind != ANOT_EXPR_FUNC ||
      table[group->sum].u.fn != g_array_index (program->builtins, const AnotExprBuiltin *, group->sum) ||
      (records.kind != ANOT_EXPR_LIST && records.kind != ANOT_EXPR_TUPLE))
    return;
  count_group_run (program, group, records.u.seq, max_steps, results, counted);
}

guint
anot_expr_program_run (const AnotExprProgram *program,
                       AnotExprScope         *scope,
                       gboolean               original,
                       AnotExprValue         *results,
                       gboolean              *succeeded,
                       AnotExprFailure       *failures)
{
  guint n_names = program->names->len;
  const AnotExprProgramStep *steps = (const AnotExprProgramStep *) (gpointer) program->steps->data;
  AnotExprValue table_inline[N_PROGRAM_INLINE];
  guint8 table_defined_inline[N_PROGRAM_INLINE];
  EvalRoom room;
  guint8 tried_inline[N_PROGRAM_INLINE];
  gboolean counted_inline[N_PROGRAM_INLINE];
  AnotExprValue *table = n_names <= N_PROGRAM_INLINE ? table_inline : g_new (AnotExprValue, n_names);
  guint8 *table_defined = n_names <= N_PROGRAM_INLINE ? table_defined_inline : g_new (guint8, n_names);
  guint n_groups = program->count_groups->len;
  guint n_steps = program->steps->len;
  guint8 *tried = n_groups <= N_PROGRAM_INLINE ? tried_inline : g_new (guint8, n_groups);
  gboolean *counted = n_steps <= N_PROGRAM_INLINE ? counted_inline : g_new (gboolean, n_steps);
  AnotExprFailure local = { 0 };
  Eval ev = { 0 };
  guint failed = 0;

  eval_init (&ev, scope, &room, program->max_free, program->max_slots);
  ev.quiet = failures == NULL;

  for (guint j = 0; j < n_names; j++)
    table_defined[j] = g_array_index (program->from_scope, gboolean, j) &&
                       resolve_global (scope, program->names->pdata[j],
                                       g_array_index (program->hashes, guint32, j),
                                       g_array_index (program->builtins, const AnotExprBuiltin *, j),
                                       &table[j]);
  memset (tried, FALSE, n_groups);
  memset (counted, FALSE, n_steps * sizeof (gboolean));

  for (guint i = 0; i < n_steps; i++)
    {
      const AnotExprProgramStep *s = &steps[i];
      AnotExpr *expr = s->expr;

      /* The last step always runs, as its step count is the scope's. */
      if (s->count_group >= 0 && anot_expr_fast_enabled && i + 1 < n_steps)
        {
          if (!tried[s->count_group])
            count_group_try (program, &g_array_index (program->count_groups, AnotExprCountGroup, s->count_group),
                             table, table_defined, ev.max_steps, results, counted);
          tried[s->count_group] = TRUE;
          if (counted[i])
            {
              succeeded[i] = TRUE;
              goto store;
            }
        }

      ev.expr = expr;
      ev.failure = failures != NULL ? &failures[i] : &local;
      for (guint k = 0; k < expr->n_free; k++)
        {
          ev.globals[k] = table[s->free_index[k]];
          ev.defined[k] = table_defined[s->free_index[k]];
        }
      succeeded[i] = eval_root (&ev, &results[i]);
      if (!succeeded[i])
        {
          failed++;
          results[i] = !original ? ANOT_EXPR_VALUE_NONE :
                       s->integral ? anot_expr_value_int (0) : anot_expr_value_float (0.0);
          anot_expr_failure_clear (&local);
        }
    store:
      if (s->target >= 0)
        {
          /* Borrowed from @results, which outlives the run. */
          table[s->target] = results[i];
          table_defined[s->target] = succeeded[i] || original;
        }
    }
  scope->last_steps = MIN (ev.steps, ev.max_steps);

  if (table != table_inline)
    g_free (table);
  if (table_defined != table_defined_inline)
    g_free (table_defined);
  if (tried != tried_inline)
    g_free (tried);
  if (counted != counted_inline)
    g_free (counted);
  eval_clear (&ev, &room);
  return failed;
}
