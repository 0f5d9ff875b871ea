/* anot-expr-eval.c: the evaluator, the builtins and the methods of AnotExpr
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

#include "anot-expr-private.h"

#include <math.h>
#include <string.h>

#include "anot-error.h"
#include "anot-pyliteral-private.h"

typedef struct _Eval Eval;

typedef struct {
  guint n;
  AnotExprValue *v;         /* positional arguments (owned) */
  guint n_kw;
  const char **kwnames;
  AnotExprValue *kw;        /* keyword arguments (owned) */
  AnotExprValue self;       /* methods: the object (borrowed) */
  guint offset;             /* of the callee, for errors */
  const char *name;         /* "max", "lower": for messages */
} Args;

typedef gboolean (*BuiltinFunc) (Eval          *ev,
                                 Args          *a,
                                 AnotExprValue *out);

struct _AnotExprBuiltin
{
  const char *name;
  BuiltinFunc func;         /* NULL: the math module, or a math constant */
  guint min_args;
  guint max_args;
  const char *kwnames;      /* accepted keyword arguments, space-separated */
  int type_kind;            /* the kind a type name stands for, or -1 */
  double constant;          /* math constants */
};

struct _Eval
{
  AnotExpr *expr;
  AnotExprValue *globals;
  guint8 *defined;
  AnotExprValue *slots;
  guint64 steps;
  guint64 max_steps;
  guint max_items;
  gsize max_string;
  AnotExprFailure *failure;
  gboolean failed;          /* the first failure is the one reported */
  gboolean quiet;           /* nobody reads the message: do not format it */
};

/* Receives one item of an iteration (a new reference); sets *stop to end
 * the iteration early. */
typedef gboolean (*EmitFunc) (Eval          *ev,
                              AnotExprValue  item,
                              gpointer       data,
                              gboolean      *stop);

static gboolean eval (Eval *ev, AnotExprNode *n, AnotExprValue *out);
static inline gboolean eval_ref (Eval *ev, AnotExprNode *n, AnotExprValue *out, gboolean *owned);
static inline void release (AnotExprValue v, gboolean owned);
static const AnotExprValue *subscript_const_str_borrow (Eval *ev, AnotExprNode *n, AnotExprDict *d,
                                                        AnotExprStr *key);
static gboolean iterate (Eval *ev, AnotExprValue v, guint offset, EmitFunc emit,
                         gpointer data, gboolean *stop);
static gboolean order (Eval *ev, AnotExprOp op, AnotExprValue a, AnotExprValue b,
                       guint offset, gboolean *result);

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

static gboolean G_GNUC_PRINTF (4, 5)
fail (Eval       *ev,
       AnotError   code,
       guint       offset,
       const char *format,
       ...)
{
  va_list args;
  g_autofree char *message = NULL;

  if (ev->failed)
    return FALSE;
  ev->failed = TRUE;
  ev->failure->code = code;
  ev->failure->offset = offset;
  if (ev->quiet)
    return FALSE;

  va_start (args, format);
  message = g_strdup_vprintf (format, args);
  va_end (args);

  ev->failure->message = g_strdup_printf ("%s: %s", exception_name (code), message);
  return FALSE;
}

static gboolean
step_limit (Eval  *ev,
            guint  offset)
{
  return fail (ev, ANOT_ERROR_EXPR_LIMIT, offset,
                "the evaluation exceeded its budget of %" G_GUINT64_FORMAT " steps",
                ev->max_steps);
}

#define STEP(ev, offset) (G_LIKELY (++(ev)->steps <= (ev)->max_steps) || step_limit ((ev), (offset)))

static gboolean
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

static gboolean
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

static const char *
tname (AnotExprValue v)
{
  return anot_expr_value_type_name (v);
}

static gboolean
unhashable (Eval          *ev,
            AnotExprValue  key,
            guint          offset)
{
  return fail (ev, ANOT_ERROR_EXPR_TYPE, offset, "unhashable type: '%s'", tname (key));
}

static gboolean
is_hashable (AnotExprValue v)
{
  guint32 h;

  return anot_expr_value_hash (v, &h);
}

/* ------------------------------------------------------------------------ *
 * Numbers
 * ------------------------------------------------------------------------ */

static inline gboolean
is_intlike (AnotExprValue v)
{
  return v.kind == ANOT_EXPR_INT || v.kind == ANOT_EXPR_BOOL;
}

static inline gboolean
is_num (AnotExprValue v)
{
  return is_intlike (v) || v.kind == ANOT_EXPR_FLOAT;
}

static inline gint64
to_int (AnotExprValue v)
{
  return v.kind == ANOT_EXPR_BOOL ? (gint64) v.u.b : v.u.i;
}

static inline double
to_double (AnotExprValue v)
{
  return v.kind == ANOT_EXPR_FLOAT ? v.u.f : (double) to_int (v);
}

static gboolean
int_overflow (Eval  *ev,
              guint  offset)
{
  return fail (ev, ANOT_ERROR_EXPR_OVERFLOW, offset,
                "integer result does not fit in 64 bits");
}

/* int(f) for a float: Python's errors for NaN and infinities, ours for
 * what does not fit in 64 bits. */
static gboolean
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

static gboolean
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
static const char *
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

static gboolean
py_isspace (gunichar c)
{
  if (c < 0x80)
    return c == ' ' || (c >= 0x09 && c <= 0x0d) || (c >= 0x1c && c <= 0x1f);
  return c == 0x85 || c == 0xa0 || c == 0x1680 || (c >= 0x2000 && c <= 0x200a) ||
         c == 0x2028 || c == 0x2029 || c == 0x202f || c == 0x205f || c == 0x3000;
}

static AnotExprValue
str_from_char (const char *p)
{
  return anot_expr_value_new_string (p, g_utf8_next_char (p) - p);
}

static gboolean
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

static G_GNUC_NO_INLINE gboolean
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
static G_GNUC_NO_INLINE gboolean
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

static G_GNUC_NO_INLINE gboolean
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

static G_GNUC_NO_INLINE gboolean
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
 * Iteration and comprehensions
 * ------------------------------------------------------------------------ */

/* Of a comprehension filter tested without the general machinery: false,
 * true, or not certain (the item then goes through eval()). */
typedef enum {
  FAST_FALSE,
  FAST_TRUE,
  FAST_UNSURE,
} FastResult;

/* ------------------------------------------------------------------------ *
 * Compiled comprehension filters
 * ------------------------------------------------------------------------ */

/* The filters of the counts a Formula Seed is made of,
 * sum(1 for e in extractions if e["severity"] == "mild" and
 * e["kind"] == "firsthand"), compiled once at parse time: each comparison
 * knows its variable's slot, its key and its constants, and the steps
 * eval() would count for it, so a test is a few loads and pointer
 * comparisons (the keys and enum values bound from JSON are the interned
 * strs of the constants).  No reference counting, no failure plumbing, and
 * only certain outcomes are decided: a record that is not a dict or lacks
 * the key is FAST_UNSURE and goes through eval(), which raises the same
 * error as ever.  The steps counted are those eval() would count: one per
 * node evaluated. */
typedef enum {
  FAST_AND,
  FAST_OR,
  FAST_NOT,
  FAST_CMP,
} FastKind;

struct _AnotExprFast
{
  FastKind kind;
  guint n;                  /* AND, OR, NOT: children; CMP: values */
  AnotExprFast **children;
  /* CMP: x[key] == values[0], != values[0], in values, not in values */
  AnotExprNode *sub;        /* x[key]: its position cache is shared with eval() */
  guint slot;               /* of x, a comprehension variable */
  AnotExprStr *key;
  gboolean negate;
  gboolean in_seq;
  AnotExprStr **values;
  guint64 max_steps;
};

static gboolean anot_expr_fast_enabled = TRUE;

void
anot_expr_set_fast_paths (gboolean enabled)
{
  anot_expr_fast_enabled = enabled;
}

static gboolean
is_const_str (AnotExprNode *n)
{
  return n->kind == ANOT_EXPR_NODE_CONST && n->u.constant.kind == ANOT_EXPR_STR;
}

/* x["key"] with x a comprehension variable. */
static gboolean
is_local_field (AnotExprNode *n)
{
  return n->kind == ANOT_EXPR_NODE_SUBSCRIPT && n->u.sub.object->kind == ANOT_EXPR_NODE_LOCAL &&
         is_const_str (n->u.sub.index);
}

static AnotExprFast *
fast_new (GPtrArray *allocs,
          FastKind   kind,
          guint      n)
{
  AnotExprFast *f = g_new0 (AnotExprFast, 1);

  g_ptr_array_add (allocs, f);
  f->kind = kind;
  f->n = n;
  if (kind != FAST_CMP)
    {
      f->children = g_new0 (AnotExprFast *, MAX (1, n));
      g_ptr_array_add (allocs, f->children);
    }
  else
    {
      f->values = g_new0 (AnotExprStr *, MAX (1, n));
      g_ptr_array_add (allocs, f->values);
    }
  return f;
}

static AnotExprFast *
fast_compile (AnotExprNode *n,
              GPtrArray    *allocs,
              guint         depth)
{
  AnotExprFast *f;

  if (depth > 8)
    return NULL;
  switch (n->kind)
    {
    case ANOT_EXPR_NODE_AND:
    case ANOT_EXPR_NODE_OR:
      f = fast_new (allocs, n->kind == ANOT_EXPR_NODE_AND ? FAST_AND : FAST_OR, n->u.seq.n);
      f->max_steps = 1;
      for (guint i = 0; i < n->u.seq.n; i++)
        {
          f->children[i] = fast_compile (n->u.seq.items[i], allocs, depth + 1);
          if (f->children[i] == NULL)
            return NULL;
          f->max_steps += f->children[i]->max_steps;
        }
      return f;
    case ANOT_EXPR_NODE_NOT:
      f = fast_new (allocs, FAST_NOT, 1);
      f->children[0] = fast_compile (n->u.op.a, allocs, depth + 1);
      if (f->children[0] == NULL)
        return NULL;
      f->max_steps = 1 + f->children[0]->max_steps;
      return f;
    case ANOT_EXPR_NODE_COMPARE:
      {
        AnotExprNode *a = n->u.compare.first;
        AnotExprNode *b = n->u.compare.rest[0];
        AnotExprOp op = n->u.compare.ops[0];

        if (n->u.compare.n != 1)
          return NULL;
        if (op == ANOT_EXPR_OP_EQ || op == ANOT_EXPR_OP_NE)
          {
            AnotExprNode *field = is_local_field (a) && is_const_str (b) ? a :
                                  is_local_field (b) && is_const_str (a) ? b : NULL;

            if (field == NULL)
              return NULL;
            f = fast_new (allocs, FAST_CMP, 1);
            f->sub = field;
            f->values[0] = (field == a ? b : a)->u.constant.u.s;
            /* The comparison, x, the key, x[key], the constant. */
            f->max_steps = 5;
          }
        else if ((op == ANOT_EXPR_OP_IN || op == ANOT_EXPR_OP_NOT_IN) && is_local_field (a) &&
                 (b->kind == ANOT_EXPR_NODE_TUPLE || b->kind == ANOT_EXPR_NODE_LIST))
          {
            for (guint i = 0; i < b->u.seq.n; i++)
              if (!is_const_str (b->u.seq.items[i]))
                return NULL;
            f = fast_new (allocs, FAST_CMP, b->u.seq.n);
            f->sub = a;
            f->in_seq = TRUE;
            for (guint i = 0; i < b->u.seq.n; i++)
              f->values[i] = b->u.seq.items[i]->u.constant.u.s;
            /* The comparison, x[key] (3), the tuple and its items, then
             * one step per item compared. */
            f->max_steps = 5 + 2 * (guint64) b->u.seq.n;
          }
        else
          return NULL;
        f->slot = f->sub->u.sub.object->u.name.slot;
        f->key = f->sub->u.sub.index->u.constant.u.s;
        f->negate = op == ANOT_EXPR_OP_NE || op == ANOT_EXPR_OP_NOT_IN;
        return f;
      }
    case ANOT_EXPR_NODE_CONST:
    case ANOT_EXPR_NODE_GLOBAL:
    case ANOT_EXPR_NODE_LOCAL:
    case ANOT_EXPR_NODE_UNARY:
    case ANOT_EXPR_NODE_BINARY:
    case ANOT_EXPR_NODE_IFEXP:
    case ANOT_EXPR_NODE_SUBSCRIPT:
    case ANOT_EXPR_NODE_SLICE:
    case ANOT_EXPR_NODE_ATTR:
    case ANOT_EXPR_NODE_CALL:
    case ANOT_EXPR_NODE_LIST:
    case ANOT_EXPR_NODE_TUPLE:
    case ANOT_EXPR_NODE_DICT:
    case ANOT_EXPR_NODE_GENEXP:
    case ANOT_EXPR_NODE_LISTCOMP:
    case ANOT_EXPR_NODE_DICTCOMP:
    default:
      return NULL;
    }
}

static void
compile_all (AnotExprNode **nodes,
             guint          n,
             GPtrArray     *allocs)
{
  for (guint i = 0; i < n; i++)
    anot_expr_compile_fast (nodes[i], allocs);
}

void
anot_expr_compile_fast (AnotExprNode *n,
                        GPtrArray    *allocs)
{
  if (n == NULL)
    return;

  switch (n->kind)
    {
    case ANOT_EXPR_NODE_UNARY:
    case ANOT_EXPR_NODE_NOT:
    case ANOT_EXPR_NODE_BINARY:
      anot_expr_compile_fast (n->u.op.a, allocs);
      anot_expr_compile_fast (n->u.op.b, allocs);
      break;
    case ANOT_EXPR_NODE_AND:
    case ANOT_EXPR_NODE_OR:
    case ANOT_EXPR_NODE_LIST:
    case ANOT_EXPR_NODE_TUPLE:
      compile_all (n->u.seq.items, n->u.seq.n, allocs);
      break;
    case ANOT_EXPR_NODE_DICT:
      compile_all (n->u.seq.items, n->u.seq.n, allocs);
      compile_all (n->u.seq.values, n->u.seq.n, allocs);
      break;
    case ANOT_EXPR_NODE_COMPARE:
      anot_expr_compile_fast (n->u.compare.first, allocs);
      compile_all (n->u.compare.rest, n->u.compare.n, allocs);
      break;
    case ANOT_EXPR_NODE_IFEXP:
      anot_expr_compile_fast (n->u.ifexp.test, allocs);
      anot_expr_compile_fast (n->u.ifexp.body, allocs);
      anot_expr_compile_fast (n->u.ifexp.orelse, allocs);
      break;
    case ANOT_EXPR_NODE_SUBSCRIPT:
    case ANOT_EXPR_NODE_SLICE:
      anot_expr_compile_fast (n->u.sub.object, allocs);
      anot_expr_compile_fast (n->u.sub.index, allocs);
      anot_expr_compile_fast (n->u.sub.lower, allocs);
      anot_expr_compile_fast (n->u.sub.upper, allocs);
      anot_expr_compile_fast (n->u.sub.step, allocs);
      break;
    case ANOT_EXPR_NODE_ATTR:
      anot_expr_compile_fast (n->u.attr.object, allocs);
      break;
    case ANOT_EXPR_NODE_CALL:
      anot_expr_compile_fast (n->u.call.func, allocs);
      compile_all (n->u.call.args, n->u.call.n_args, allocs);
      compile_all (n->u.call.kwargs, n->u.call.n_kwargs, allocs);
      break;
    case ANOT_EXPR_NODE_GENEXP:
    case ANOT_EXPR_NODE_LISTCOMP:
    case ANOT_EXPR_NODE_DICTCOMP:
      for (guint i = 0; i < n->u.comp.n_clauses; i++)
        {
          AnotExprClause *c = &n->u.comp.clauses[i];
          AnotExprFast **fast;
          guint64 max_steps = 0;
          guint k;

          anot_expr_compile_fast (c->iter, allocs);
          compile_all (c->ifs, c->n_ifs, allocs);
          if (c->n_ifs == 0)
            continue;
          fast = g_new0 (AnotExprFast *, c->n_ifs);
          g_ptr_array_add (allocs, fast);
          for (k = 0; k < c->n_ifs; k++)
            {
              fast[k] = fast_compile (c->ifs[k], allocs, 0);
              if (fast[k] == NULL)
                break;
              max_steps += fast[k]->max_steps;
            }
          if (k == c->n_ifs)
            {
              c->fast_ifs = fast;
              c->fast_max_steps = max_steps;
            }
        }
      anot_expr_compile_fast (n->u.comp.elt, allocs);
      anot_expr_compile_fast (n->u.comp.value, allocs);
      break;
    case ANOT_EXPR_NODE_CONST:
    case ANOT_EXPR_NODE_GLOBAL:
    case ANOT_EXPR_NODE_LOCAL:
    default:
      break;
    }
}

/* A comparison of a compiled filter on the record @dict, its key looked
 * for at *hint first (and *hint updated): FAST_UNSURE when the key is
 * missing. */
static inline __attribute__ ((always_inline)) FastResult
field_test (const AnotExprFast *f,
            AnotExprDict       *dict,
            guint              *hint,
            guint64            *steps)
{
  const AnotExprValue *keys = dict->keys;
  gboolean equal = FALSE;
  AnotExprValue v;

  if (G_LIKELY (*hint < dict->len && keys[*hint].u.s == f->key && keys[*hint].kind == ANOT_EXPR_STR))
    v = dict->values[*hint];
  else
    {
      gssize pos = anot_expr_dict_find_str (dict, f->key);

      if (pos < 0)
        return FAST_UNSURE;
      *hint = pos;
      v = dict->values[pos];
    }
  if (G_LIKELY (!f->in_seq))
    {
      /* A str is never equal to another kind. */
      equal = v.kind == ANOT_EXPR_STR && anot_expr_str_equal (v.u.s, f->values[0]);
      *steps += 5;
    }
  else
    {
      *steps += 5 + f->n;
      for (guint j = 0; j < f->n && !equal; j++)
        {
          *steps += 1;
          equal = v.kind == ANOT_EXPR_STR && anot_expr_str_equal (v.u.s, f->values[j]);
        }
    }
  return (equal != f->negate) ? FAST_TRUE : FAST_FALSE;
}

/* A comparison of a compiled filter on the comprehension variable. */
static inline __attribute__ ((always_inline)) FastResult
fast_cmp (Eval         *ev,
          AnotExprFast *f,
          guint64      *steps)
{
  AnotExprValue d = ev->slots[f->slot];
  guint hint, found;
  FastResult r;

  if (G_UNLIKELY (d.kind != ANOT_EXPR_DICT))
    return FAST_UNSURE;
  hint = found = (guint) g_atomic_int_get ((gint *) &f->sub->cache);
  r = field_test (f, d.u.d, &found, steps);
  if (found != hint)
    g_atomic_int_set ((gint *) &f->sub->cache, (gint) found);
  return r;
}

/* Python's bool() of a compiled filter, or FAST_UNSURE; *steps gets the
 * steps eval() would have counted when the outcome is certain. */
static FastResult
fast_run (Eval         *ev,
          AnotExprFast *f,
          guint64      *steps)
{
  switch (f->kind)
    {
    case FAST_CMP:
      return fast_cmp (ev, f, steps);
    case FAST_AND:
    case FAST_OR:
      {
        FastResult stop_at = f->kind == FAST_AND ? FAST_FALSE : FAST_TRUE;
        FastResult r = FAST_UNSURE;

        *steps += 1;
        for (guint i = 0; i < f->n; i++)
          {
            AnotExprFast *child = f->children[i];

            r = child->kind == FAST_CMP ? fast_cmp (ev, child, steps) : fast_run (ev, child, steps);
            if (r == FAST_UNSURE || r == stop_at)
              return r;
          }
        return r;
      }
    case FAST_NOT:
      {
        FastResult r;

        *steps += 1;
        r = fast_run (ev, f->children[0], steps);
        return r == FAST_UNSURE ? r : (r == FAST_TRUE ? FAST_FALSE : FAST_TRUE);
      }
    default:
      return FAST_UNSURE;
    }
}

static gboolean comp_loop (Eval *ev, AnotExprNode *n, guint k, EmitFunc emit,
                           gpointer data, gboolean *stop);

static gboolean
iterate (Eval          *ev,
         AnotExprValue  v,
         guint          offset,
         EmitFunc       emit,
         gpointer       data,
         gboolean      *stop)
{
  switch (v.kind)
    {
    case ANOT_EXPR_GENERATOR:
      return comp_loop (ev, (AnotExprNode *) v.u.gen, 0, emit, data, stop);
    case ANOT_EXPR_LIST:
    case ANOT_EXPR_TUPLE:
      /* Nothing mutates a value, so the items stay put while @v is held. */
      for (guint i = 0; i < v.u.seq->len && !*stop; i++)
        {
          if (!STEP (ev, offset))
            return FALSE;
          if (!emit (ev, anot_expr_value_ref (v.u.seq->items[i]), data, stop))
            return FALSE;
        }
      return TRUE;
    case ANOT_EXPR_DICT:
      for (guint i = 0; i < v.u.d->len && !*stop; i++)
        {
          if (!STEP (ev, offset))
            return FALSE;
          if (!emit (ev, anot_expr_value_ref (v.u.d->keys[i]), data, stop))
            return FALSE;
        }
      return TRUE;
    case ANOT_EXPR_STR:
      for (const char *p = v.u.s->data; p < v.u.s->data + v.u.s->len && !*stop; p = g_utf8_next_char (p))
        {
          if (!STEP (ev, offset))
            return FALSE;
          if (!emit (ev, str_from_char (p), data, stop))
            return FALSE;
        }
      return TRUE;
    case ANOT_EXPR_NONE:
    case ANOT_EXPR_BOOL:
    case ANOT_EXPR_INT:
    case ANOT_EXPR_FLOAT:
    case ANOT_EXPR_FUNC:
    case ANOT_EXPR_MODULE:
    default:
      return fail (ev, ANOT_ERROR_EXPR_TYPE, offset, "'%s' object is not iterable", tname (v));
    }
}

typedef struct {
  AnotExprSeq *seq;
  guint offset;
} Collect;

static gboolean
emit_append (Eval          *ev,
             AnotExprValue  item,
             gpointer       data,
             gboolean      *stop)
{
  Collect *c = data;

  if (!check_items (ev, (guint64) c->seq->len + 1, c->offset))
    {
      anot_expr_value_unref (item);
      return FALSE;
    }
  anot_expr_seq_append (c->seq, item);
  return TRUE;
}

/* The items of an iterable as a new list (or tuple). */
static gboolean
collect (Eval          *ev,
         AnotExprValue  v,
         guint          offset,
         AnotExprKind   kind,
         AnotExprValue *out)
{
  AnotExprValue r;
  Collect c;
  gboolean stop = FALSE;

  if (v.kind == kind)
    {
      *out = anot_expr_value_ref (v);
      return TRUE;
    }
  r = kind == ANOT_EXPR_LIST ? anot_expr_value_new_list (0) : anot_expr_value_new_tuple (0);
  c.seq = r.u.seq;
  c.offset = offset;
  if (!iterate (ev, v, offset, emit_append, &c, &stop))
    {
      anot_expr_value_unref (r);
      return FALSE;
    }
  *out = r;
  return TRUE;
}

static gboolean
bind_target (Eval           *ev,
             AnotExprTarget *t,
             AnotExprValue   item)
{
  AnotExprValue seq;
  gboolean ok = TRUE;

  if (t->n_items == 0)
    {
      anot_expr_value_unref (ev->slots[t->slot]);
      ev->slots[t->slot] = item;
      return TRUE;
    }

  if (item.kind != ANOT_EXPR_LIST && item.kind != ANOT_EXPR_TUPLE &&
      item.kind != ANOT_EXPR_STR && item.kind != ANOT_EXPR_DICT)
    {
      anot_expr_value_unref (item);
      return fail (ev, ANOT_ERROR_EXPR_TYPE, t->offset,
                    "cannot unpack non-iterable %s object", tname (item));
    }
  if (!collect (ev, item, t->offset, ANOT_EXPR_TUPLE, &seq))
    {
      anot_expr_value_unref (item);
      return FALSE;
    }
  anot_expr_value_unref (item);
  if (seq.u.seq->len != t->n_items)
    {
      if (seq.u.seq->len > t->n_items)
        fail (ev, ANOT_ERROR_EXPR_VALUE, t->offset,
               "too many values to unpack (expected %u)", t->n_items);
      else
        fail (ev, ANOT_ERROR_EXPR_VALUE, t->offset,
               "not enough values to unpack (expected %u, got %u)", t->n_items, seq.u.seq->len);
      anot_expr_value_unref (seq);
      return FALSE;
    }
  for (guint i = 0; i < t->n_items && ok; i++)
    ok = bind_target (ev, &t->items[i], anot_expr_value_ref (seq.u.seq->items[i]));
  anot_expr_value_unref (seq);
  return ok;
}

typedef struct {
  AnotExprNode *node;
  guint clause;
  EmitFunc emit;
  gpointer data;
} CompFrame;

static gboolean
clause_item (Eval          *ev,
             AnotExprValue  item,
             gpointer       data,
             gboolean      *stop)
{
  CompFrame *f = data;
  AnotExprNode *n = f->node;
  AnotExprClause *c = &n->u.comp.clauses[f->clause];
  AnotExprValue v;

  if (!bind_target (ev, &c->target, item))
    return FALSE;
  for (guint i = 0; i < c->n_ifs; i++)
    {
      gboolean pass;

      if (!eval (ev, c->ifs[i], &v))
        return FALSE;
      pass = anot_expr_value_truthy (v);
      anot_expr_value_unref (v);
      if (!pass)
        return TRUE;
    }
  if (f->clause + 1 < n->u.comp.n_clauses)
    return comp_loop (ev, n, f->clause + 1, f->emit, f->data, stop);

  if (n->kind == ANOT_EXPR_NODE_DICTCOMP)
    {
      AnotExprValue key;
      AnotExprDict *d = f->data;

      if (!eval (ev, n->u.comp.elt, &key))
        return FALSE;
      if (!is_hashable (key))
        {
          unhashable (ev, key, n->u.comp.elt->offset);
          anot_expr_value_unref (key);
          return FALSE;
        }
      if (!eval (ev, n->u.comp.value, &v))
        {
          anot_expr_value_unref (key);
          return FALSE;
        }
      if (!check_items (ev, (guint64) d->len + 1, n->offset))
        {
          anot_expr_value_unref (key);
          anot_expr_value_unref (v);
          return FALSE;
        }
      anot_expr_dict_set (d, key, v);
      return TRUE;
    }

  if (!eval (ev, n->u.comp.elt, &v))
    return FALSE;
  return f->emit (ev, v, f->data, stop);
}

/* The loop of "elt for x in a_list if <filter>" when the one filter is a
 * comparison of a field of x, or an "and" of those (the counts of a
 * Formula Seed): each record is tested inline, with the key found by a
 * pointer comparison at the position it had in the previous record.  The
 * variable borrows each item; the caller resets it.  Any record the test
 * is not certain about goes through eval(). */
#define CONJ_MAX_TERMS 8

/* The filter of conj_loop() on @dict: its comparisons in turn, the first
 * false one deciding (an "and"), each key looked for where it was in the
 * previous record first (@hints). */
static inline __attribute__ ((always_inline)) FastResult
conj_test (AnotExprFast **terms,
           guint          n_terms,
           guint         *hints,
           AnotExprDict  *dict,
           guint64       *steps)
{
  FastResult r = field_test (terms[0], dict, &hints[0], steps);

  /* The commonest filters, one comparison or two, unrolled. */
  if (n_terms == 2)
    return r == FAST_TRUE ? field_test (terms[1], dict, &hints[1], steps) : r;
  for (guint t = 1; t < n_terms && r == FAST_TRUE; t++)
    r = field_test (terms[t], dict, &hints[t], steps);
  return r;
}

static gboolean
conj_loop (Eval          *ev,
           AnotExprNode  *n,
           AnotExprClause *c,
           AnotExprSeq   *seq,
           AnotExprFast  *filter,
           EmitFunc       emit,
           gpointer       data,
           gboolean      *stop)
{
  AnotExprFast **terms = filter->kind == FAST_AND ? filter->children : &filter;
  guint n_terms = filter->kind == FAST_AND ? filter->n : 1;
  guint64 and_step = filter->kind == FAST_AND ? 1 : 0;
  guint64 max_cost = filter->max_steps;
  guint slot = c->target.slot;
  guint hints[CONJ_MAX_TERMS];
  /* Nothing changes the list while it is iterated, and only eval(),
   * emit() and step_limit() touch the step count: it is kept in a local
   * and written back around them. */
  const AnotExprValue *items = seq->items;
  guint n_items = seq->len;
  guint64 steps_now = ev->steps;
  guint64 max_steps = ev->max_steps;
  guint64 safe;
  gboolean ok = TRUE;

  if (*stop)
    return TRUE;
  for (guint t = 0; t < n_terms; t++)
    hints[t] = (guint) g_atomic_int_get ((gint *) &terms[t]->sub->cache);

/* How many more records the fast test may take without a look at the step
 * budget: each costs at most 1 + max_cost steps. */
#define SAFE_RECORDS() (steps_now < max_steps ? (max_steps - steps_now) / (1 + max_cost) : 0)
  safe = SAFE_RECORDS ();

  for (guint i = 0; i < n_items; i++)
    {
      AnotExprValue item = items[i];
      FastResult r = FAST_UNSURE;
      AnotExprValue v;

      if (G_LIKELY (safe > 0 && item.kind == ANOT_EXPR_DICT))
        {
          guint64 steps = 1 + and_step;

          safe--;
          r = conj_test (terms, n_terms, hints, item.u.d, &steps);
          if (r == FAST_FALSE)
            {
              steps_now += steps;
              continue;
            }
          if (r == FAST_TRUE)
            steps_now += steps;
        }
      if (r == FAST_UNSURE)
        {
          /* The item's own step, then the filter through eval(). */
          gboolean owned;
          gboolean pass;

          if (G_UNLIKELY (++steps_now > max_steps))
            {
              ev->steps = steps_now;
              ok = step_limit (ev, c->iter->offset);
              break;
            }
          ev->slots[slot] = item;
          ev->steps = steps_now;
          if (!eval_ref (ev, c->ifs[0], &v, &owned))
            {
              ok = FALSE;
              break;
            }
          pass = anot_expr_value_truthy (v);
          release (v, owned);
          steps_now = ev->steps;
          safe = SAFE_RECORDS ();
          if (!pass)
            continue;
        }
      ev->slots[slot] = item;
      ev->steps = steps_now;
      if (!eval (ev, n->u.comp.elt, &v) || !emit (ev, v, data, stop))
        {
          ok = FALSE;
          break;
        }
      steps_now = ev->steps;
      if (*stop)
        break;
      safe = SAFE_RECORDS ();
    }
#undef SAFE_RECORDS
  if (ok)
    ev->steps = steps_now;

  /* The positions found, for the next evaluation (eval() shares them). */
  for (guint t = 0; t < n_terms; t++)
    if (hints[t] != (guint) g_atomic_int_get ((gint *) &terms[t]->sub->cache))
      g_atomic_int_set ((gint *) &terms[t]->sub->cache, (gint) hints[t]);
  return ok;
}

/* Whether conj_loop() can run @c's filter (when the fast paths are on). */
static AnotExprFast *
conj_filter_shape (AnotExprClause *c)
{
  AnotExprFast *f;

  if (c->fast_ifs == NULL || c->n_ifs != 1)
    return NULL;
  f = c->fast_ifs[0];
  if (f->kind == FAST_CMP)
    return f->slot == c->target.slot ? f : NULL;
  if (f->kind != FAST_AND || f->n > CONJ_MAX_TERMS)
    return NULL;
  for (guint i = 0; i < f->n; i++)
    if (f->children[i]->kind != FAST_CMP || f->children[i]->slot != c->target.slot)
      return NULL;
  return f;
}

static AnotExprFast *
conj_filter (AnotExprClause *c)
{
  return anot_expr_fast_enabled ? conj_filter_shape (c) : NULL;
}

AnotExprClause *
anot_expr_count_clause (AnotExpr *self)
{
  AnotExprNode *n = self->root;
  AnotExprNode *gen;
  AnotExprNode *elt;
  AnotExprClause *c;

  if (n->kind != ANOT_EXPR_NODE_CALL || n->u.call.func->kind != ANOT_EXPR_NODE_GLOBAL ||
      strcmp (n->u.call.func->u.name.name, "sum") != 0 ||
      n->u.call.n_args != 1 || n->u.call.n_kwargs != 0)
    return NULL;
  gen = n->u.call.args[0];
  if (gen->kind != ANOT_EXPR_NODE_GENEXP || gen->u.comp.n_clauses != 1)
    return NULL;
  elt = gen->u.comp.elt;
  if (elt->kind != ANOT_EXPR_NODE_CONST || elt->u.constant.kind != ANOT_EXPR_INT || elt->u.constant.u.i != 1)
    return NULL;
  c = &gen->u.comp.clauses[0];
  if (c->target.n_items != 0 || c->iter->kind != ANOT_EXPR_NODE_GLOBAL || conj_filter_shape (c) == NULL)
    return NULL;
  return c;
}

#define COUNT_MAX_TERMS (ANOT_EXPR_COUNT_MAX_MEMBERS * CONJ_MAX_TERMS)

static gint counted_steps;

guint
anot_expr_get_counted_steps (void)
{
  return (guint) g_atomic_int_get (&counted_steps);
}

/* A comparison of one of the filters count_group_run() runs. */
typedef struct {
  AnotExprFast *f;
  guint key;                /* its field, in CountPass.keys */
  guint32 bit;              /* its step's, in a mask of the steps */
  gboolean negate;
  /* One constant, interned: interned strs are equal only when they are
   * the same one (the enum values of the records against the formula's
   * constants), a comparison of pointers. */
  gboolean simple;
  AnotExprStr *value;       /* the constant */
} CountTerm;

/* The steps of a count group as count_group_run() runs them: their
 * filters' comparisons in a row, by step, each filter's in order, and the
 * fields they read.  A program keeps one per group, built with it; a run
 * works on a copy (count_pass_copy()). */
typedef struct _AnotExprCountPass CountPass;

struct _AnotExprCountPass
{
  guint n_members;
  guint step[ANOT_EXPR_COUNT_MAX_MEMBERS];
  gint64 count[ANOT_EXPR_COUNT_MAX_MEMBERS];
  guint n_terms;
  CountTerm terms[COUNT_MAX_TERMS];
  gboolean all_simple;
  /* The comparisons once each, with the steps that make them: what a
   * record whose fields are all there goes through. */
  guint n_unique;
  struct {
    guint key;
    gboolean negate;
    AnotExprStr *value;
    guint32 bits;
  } unique[COUNT_MAX_TERMS];
  guint n_keys;
  AnotExprStr *keys[COUNT_MAX_TERMS];
  guint hints[COUNT_MAX_TERMS];      /* where each was in the last record */
  AnotExprNode *subs[COUNT_MAX_TERMS];  /* a x["key"] node that reads it */
  guint64 max_cost[ANOT_EXPR_COUNT_MAX_MEMBERS];  /* of each step's filter, per record */
};

static guint
count_pass_key (CountPass    *pass,
                AnotExprStr  *key,
                guint         hint,
                AnotExprNode *sub)
{
  guint k = 0;

  while (k < pass->n_keys && pass->keys[k] != key)
    k++;
  if (k == pass->n_keys)
    {
      pass->keys[k] = key;
      pass->hints[k] = hint;
      pass->subs[k] = sub;
      pass->n_keys++;
    }
  return k;
}

static void
count_pass_add (CountPass    *pass,
                guint         step,
                AnotExprFast *f)
{
  guint m = pass->n_members++;
  guint n = f->kind == FAST_AND ? f->n : 1;

  pass->step[m] = step;
  pass->count[m] = 0;
  pass->max_cost[m] = f->max_steps;
  for (guint t = 0; t < n; t++)
    {
      AnotExprFast *term = f->kind == FAST_AND ? f->children[t] : f;
      gboolean simple = !term->in_seq && anot_expr_str_is_interned (term->values[0]);

      pass->terms[pass->n_terms++] = (CountTerm) {
        term,
        count_pass_key (pass, term->key, (guint) g_atomic_int_get ((gint *) &term->sub->cache), term->sub),
        1u << m, term->negate, simple, term->values[0]
      };
      pass->all_simple &= simple;
    }
}

static void
count_pass_index (CountPass *pass)
{
  pass->n_unique = 0;
  for (guint t = 0; t < pass->n_terms; t++)
    {
      const CountTerm *term = &pass->terms[t];
      guint u = 0;

      while (u < pass->n_unique &&
             !(pass->unique[u].key == term->key && pass->unique[u].value == term->value &&
               pass->unique[u].negate == term->negate))
        u++;
      if (u == pass->n_unique)
        {
          pass->unique[u].key = term->key;
          pass->unique[u].value = term->value;
          pass->unique[u].negate = term->negate;
          pass->unique[u].bits = 0;
          pass->n_unique++;
        }
      pass->unique[u].bits |= term->bit;
    }
}

/* Leaves the members of the mask @members out of @pass: their
 * comparisons, their counts and the fields only they read. */
static void
count_pass_drop (CountPass *pass,
                 guint32    members)
{
  guint n_keys = pass->n_keys;
  AnotExprStr *keys[COUNT_MAX_TERMS];
  guint hints[COUNT_MAX_TERMS];
  AnotExprNode *subs[COUNT_MAX_TERMS];
  guint n = 0;

  memcpy (keys, pass->keys, n_keys * sizeof keys[0]);
  memcpy (hints, pass->hints, n_keys * sizeof hints[0]);
  memcpy (subs, pass->subs, n_keys * sizeof subs[0]);
  pass->n_keys = 0;
  pass->all_simple = TRUE;
  for (guint t = 0; t < pass->n_terms; t++)
    {
      CountTerm term = pass->terms[t];
      guint m = g_bit_nth_lsf (term.bit, -1);

      if (term.bit & members)
        continue;
      term.key = count_pass_key (pass, keys[term.key], hints[term.key], subs[term.key]);
      /* The steps after a dropped one move down. */
      term.bit = 1u << (m - __builtin_popcount (members & (term.bit - 1)));
      pass->terms[n++] = term;
      pass->all_simple &= term.simple;
    }
  pass->n_terms = n;
  n = 0;
  for (guint m = 0; m < pass->n_members; m++)
    if (!(members & (1u << m)))
      {
        pass->step[n] = pass->step[m];
        pass->count[n] = pass->count[m];
        pass->max_cost[n] = pass->max_cost[m];
        n++;
      }
  pass->n_members = n;
  count_pass_index (pass);
}

/* Whether the field value @v equals a constant of @f (before negation). */
static gboolean
count_equal (const AnotExprFast  *f,
             const AnotExprValue *v)
{
  gboolean equal = FALSE;

  for (guint j = 0; j < (f->in_seq ? f->n : 1) && !equal; j++)
    equal = v->kind == ANOT_EXPR_STR && anot_expr_str_equal (v->u.s, f->values[j]);
  return equal;
}

/* One record through the comparisons of @pass, each field looked for:
 * the mask of the steps it passes.  A step that reaches a field the
 * record lacks (its comparisons before that one all true: `and` stops at
 * the first false one) goes to *@missing: it must be left out.  Sets
 * *@same_keys when every field was found. */
static guint32
count_record_checked (CountPass    *pass,
                      AnotExprDict *dict,
                      guint32      *missing,
                      gboolean     *same_keys)
{
  const AnotExprValue *values[COUNT_MAX_TERMS];
  guint32 alive = G_MAXUINT32;

  *missing = 0;
  *same_keys = TRUE;
  for (guint k = 0; k < pass->n_keys; k++)
    {
      gssize pos;

      if (pass->hints[k] < dict->len && dict->keys[pass->hints[k]].kind == ANOT_EXPR_STR &&
          dict->keys[pass->hints[k]].u.s == pass->keys[k])
        {
          values[k] = &dict->values[pass->hints[k]];
          continue;
        }
      pos = anot_expr_dict_find_str (dict, pass->keys[k]);
      values[k] = pos >= 0 ? &dict->values[pos] : NULL;
      if (pos >= 0)
        pass->hints[k] = pos;
      else
        *same_keys = FALSE;
    }
  for (guint t = 0; t < pass->n_terms; t++)
    {
      const CountTerm *term = &pass->terms[t];
      const AnotExprValue *v = values[term->key];
      gboolean equal;

      if (v == NULL)
        {
          *missing |= alive & term->bit;
          alive &= ~term->bit;
          continue;
        }
      if (term->simple && v->kind == ANOT_EXPR_STR && anot_expr_str_is_interned (v->u.s))
        equal = v->u.s == term->value;
      else
        equal = count_equal (term->f, v);
      if (equal == term->negate)
        alive &= ~term->bit;
    }
  return alive;
}

/* The records of an item are bound well before its steps run, and are
 * seldom in the cache any more: a pass asks for the memory of the record
 * COUNT_PREFETCH ahead of the one it reads (a dict and its values inline,
 * three cache lines for a record of the benchmark's seven fields). */
#define COUNT_PREFETCH 8

static inline void
count_prefetch (AnotExprSeq *records,
                guint        r)
{
  if (r < records->len && records->items[r].kind == ANOT_EXPR_DICT)
    {
      const char *block = (const char *) records->items[r].u.d;

      __builtin_prefetch (block);
      __builtin_prefetch (block + 64);
      __builtin_prefetch (block + 128);
    }
}

/* The part of @src in use, into @dest; the fields' positions as the
 * general path last found them. */
static void
count_pass_copy (CountPass       *dest,
                 const CountPass *src)
{
  dest->n_members = src->n_members;
  memcpy (dest->step, src->step, src->n_members * sizeof src->step[0]);
  memcpy (dest->count, src->count, src->n_members * sizeof src->count[0]);
  memcpy (dest->max_cost, src->max_cost, src->n_members * sizeof src->max_cost[0]);
  dest->n_terms = src->n_terms;
  memcpy (dest->terms, src->terms, src->n_terms * sizeof src->terms[0]);
  dest->all_simple = src->all_simple;
  dest->n_unique = src->n_unique;
  memcpy (dest->unique, src->unique, src->n_unique * sizeof src->unique[0]);
  dest->n_keys = src->n_keys;
  memcpy (dest->keys, src->keys, src->n_keys * sizeof src->keys[0]);
  memcpy (dest->subs, src->subs, src->n_keys * sizeof src->subs[0]);
  for (guint k = 0; k < src->n_keys; k++)
    dest->hints[k] = (guint) g_atomic_int_get ((gint *) &src->subs[k]->cache);
}

AnotExprCountPass *
anot_expr_count_pass_new (const AnotExprProgram    *program,
                          const AnotExprCountGroup *group)
{
  const AnotExprProgramStep *steps = (const AnotExprProgramStep *) (gpointer) program->steps->data;
  CountPass *pass = g_new (CountPass, 1);

  G_STATIC_ASSERT (ANOT_EXPR_COUNT_MAX_MEMBERS <= 32);

  pass->n_members = pass->n_terms = pass->n_keys = 0;
  pass->all_simple = TRUE;
  for (guint m = 0; m < group->members->len; m++)
    {
      guint i = g_array_index (group->members, guint, m);

      count_pass_add (pass, i, conj_filter_shape (steps[i].count));
    }
  count_pass_index (pass);
  return pass;
}

void
anot_expr_count_pass_free (AnotExprCountPass *pass)
{
  g_free (pass);
}

/* Counts, in one pass over @records, the records each step of @group
 * passes: the value each would have, sum(1 for x in records if FILTER),
 * without a pass per step.  A step whose value might differ or which
 * might fail is left out (counted[] FALSE; the general path then runs it
 * and reports what it finds): one that could run out of its step budget,
 * or that reaches a field a record lacks.  A record that is not a dict
 * leaves them all out.
 *
 * Which records pass is anybody's guess, and a mispredicted branch costs
 * as much as a dozen comparisons: while the records have the keys of the
 * one before where it had them (the records bound from JSON share their
 * keys), each field is read once per record and the comparisons, of
 * pointers, are all made (they only read) and folded into a mask without
 * a branch on the data. */
static void
count_group_run (const AnotExprProgram    *program,
                 const AnotExprCountGroup *group,
                 AnotExprSeq              *records,
                 guint64                   max_steps,
                 AnotExprValue            *results,
                 gboolean                 *counted)
{
  CountPass pass;
  const AnotExprValue *shape = NULL;
  guint shape_len = 0;
  guint32 over_budget = 0;

  count_pass_copy (&pass, group->pass);
  for (guint m = 0; m < pass.n_members; m++)
    {
      /* The general path's steps: the call and its arguments, then per
       * record its own step, the filter's and the emitted 1's. */
      if ((guint64) records->len * (2 + pass.max_cost[m]) + 16 > max_steps)
        over_budget |= 1u << m;
    }
  if (over_budget != 0)
    count_pass_drop (&pass, over_budget);
  for (guint r = 0; r < COUNT_PREFETCH; r++)
    count_prefetch (records, r);

  for (guint r = 0; r < records->len && pass.n_members > 0; r++)
    {
      AnotExprValue item = records->items[r];
      AnotExprDict *dict = item.u.d;
      guint32 alive;
      guint32 missing = 0;

      if (item.kind != ANOT_EXPR_DICT)
        return;
      count_prefetch (records, r + COUNT_PREFETCH);
      if (dict->keys == shape && dict->len == shape_len)
        {
          AnotExprStr *field[COUNT_MAX_TERMS];
          guint32 dead = 0;
          gboolean interned = TRUE;

          /* A str field compares by pointer when interned; any other
           * kind is never equal to a str constant. */
          for (guint k = 0; k < pass.n_keys; k++)
            {
              const AnotExprValue *v = &dict->values[pass.hints[k]];

              field[k] = v->kind == ANOT_EXPR_STR ? v->u.s : NULL;
              interned &= field[k] == NULL || anot_expr_str_is_interned (field[k]);
            }
          if (G_LIKELY (interned))
            {
              for (guint u = 0; u < pass.n_unique; u++)
                dead |= pass.unique[u].bits &
                        -(guint32) ((field[pass.unique[u].key] == pass.unique[u].value) == pass.unique[u].negate);
              alive = ~dead;
            }
          else
            alive = count_record_checked (&pass, dict, &missing, &interned);
        }
      else
        {
          gboolean same_keys;

          alive = count_record_checked (&pass, dict, &missing, &same_keys);
          shape = same_keys && pass.all_simple ? dict->keys : NULL;
          shape_len = dict->len;
        }
      for (guint m = 0; m < pass.n_members; m++)
        pass.count[m] += (alive >> m) & 1;
      if (G_UNLIKELY (missing != 0))
        count_pass_drop (&pass, missing);
    }

  for (guint m = 0; m < pass.n_members; m++)
    {
      results[pass.step[m]] = anot_expr_value_int (pass.count[m]);
      counted[pass.step[m]] = TRUE;
    }
  g_atomic_int_add (&counted_steps, pass.n_members);
  /* Where the fields were, for the next evaluation (eval() shares it). */
  for (guint k = 0; k < pass.n_keys; k++)
    if (pass.hints[k] != (guint) g_atomic_int_get ((gint *) &pass.subs[k]->cache))
      g_atomic_int_set ((gint *) &pass.subs[k]->cache, (gint) pass.hints[k]);
}

static gboolean
comp_loop (Eval          *ev,
           AnotExprNode  *n,
           guint          k,
           EmitFunc       emit,
           gpointer       data,
           gboolean      *stop)
{
  AnotExprClause *c = &n->u.comp.clauses[k];
  CompFrame frame = { n, k, emit, data };
  AnotExprValue seq;
  gboolean ok;

  if (c->iter->kind == ANOT_EXPR_NODE_GENEXP)
    seq = (AnotExprValue) { .kind = ANOT_EXPR_GENERATOR, .u.gen = c->iter };
  else if (!eval (ev, c->iter, &seq))
    return FALSE;

  if ((seq.kind == ANOT_EXPR_LIST || seq.kind == ANOT_EXPR_TUPLE) && c->target.n_items == 0 &&
      k + 1 == n->u.comp.n_clauses && n->kind != ANOT_EXPR_NODE_DICTCOMP)
    {
      /* The common shape, "elt for x in a_list if cond": the variable
       * borrows each item from the list, which @seq keeps alive, instead
       * of taking a reference per item. */
      guint slot = c->target.slot;
      AnotExprFast *conj = conj_filter (c);

      AnotExprFast **compiled = anot_expr_fast_enabled ? c->fast_ifs : NULL;
      anot_expr_value_unref (ev->slots[slot]);
      ev->slots[slot] = ANOT_EXPR_VALUE_NONE;
      ok = TRUE;
      if (conj != NULL)
        {
          ok = conj_loop (ev, n, c, seq.u.seq, conj, emit, data, stop);
          ev->slots[slot] = ANOT_EXPR_VALUE_NONE;
          anot_expr_value_unref (seq);
          return ok;
        }
      for (guint i = 0; i < seq.u.seq->len && !*stop && ok; i++)
        {
          gboolean pass = TRUE;
          guint f = 0;
          AnotExprValue v;

          if (!STEP (ev, c->iter->offset))
            {
              ok = FALSE;
              break;
            }
          ev->slots[slot] = seq.u.seq->items[i];
          /* Within the step budget whatever happens, the filters can be
           * decided fast; the first one that cannot be goes on below. */
          if (compiled != NULL && ev->steps + c->fast_max_steps <= ev->max_steps)
            for (; f < c->n_ifs && pass; f++)
              {
                guint64 steps = 0;
                FastResult r = compiled[f]->kind == FAST_CMP ? fast_cmp (ev, compiled[f], &steps)
                                                             : fast_run (ev, compiled[f], &steps);

                if (r == FAST_UNSURE)
                  break;
                ev->steps += steps;
                pass = r == FAST_TRUE;
              }
          for (; f < c->n_ifs && pass; f++)
            {
              gboolean owned;

              if (!eval_ref (ev, c->ifs[f], &v, &owned))
                {
                  ok = FALSE;
                  break;
                }
              pass = anot_expr_value_truthy (v);
              release (v, owned);
            }
          if (!ok || !pass)
            continue;
          if (!eval (ev, n->u.comp.elt, &v))
            ok = FALSE;
          else
            ok = emit (ev, v, data, stop);
        }
      ev->slots[slot] = ANOT_EXPR_VALUE_NONE;
      anot_expr_value_unref (seq);
      return ok;
    }

  ok = iterate (ev, seq, c->iter->offset, clause_item, &frame, stop);
  anot_expr_value_unref (seq);
  return ok;
}

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
  gint64 ndigits;

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
static const AnotExprBuiltin builtins[] = {
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

static const AnotExprBuiltin *
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

static const AnotExprBuiltin *
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

static gboolean
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

/* Evaluates @n for reading only: constants, variables and comprehension
 * variables are borrowed (*owned = FALSE: they outlive the caller's use,
 * since nothing rebinds them meanwhile), other nodes give a new reference
 * the caller drops with release(). */
static inline gboolean
eval_ref (Eval          *ev,
          AnotExprNode  *n,
          AnotExprValue *out,
          gboolean      *owned)
{
  switch (n->kind)
    {
    case ANOT_EXPR_NODE_CONST:
      if (!STEP (ev, n->offset))
        return FALSE;
      *out = n->u.constant;
      *owned = FALSE;
      return TRUE;
    case ANOT_EXPR_NODE_LOCAL:
      if (!STEP (ev, n->offset))
        return FALSE;
      *out = ev->slots[n->u.name.slot];
      *owned = FALSE;
      return TRUE;
    case ANOT_EXPR_NODE_GLOBAL:
      if (!STEP (ev, n->offset))
        return FALSE;
      if (!ev->defined[n->u.name.slot])
        return fail (ev, ANOT_ERROR_EXPR_NAME, n->offset, "name '%s' is not defined", n->u.name.name);
      *out = ev->globals[n->u.name.slot];
      *owned = FALSE;
      return TRUE;
    case ANOT_EXPR_NODE_SUBSCRIPT:
      /* e["field"] of a variable: the dict outlives the use, so its value
       * can be borrowed too. */
      {
        AnotExprNode *object = n->u.sub.object;
        AnotExprNode *index = n->u.sub.index;
        AnotExprValue d;

        if ((object->kind == ANOT_EXPR_NODE_LOCAL || object->kind == ANOT_EXPR_NODE_GLOBAL) &&
            index->kind == ANOT_EXPR_NODE_CONST && index->u.constant.kind == ANOT_EXPR_STR)
          {
            const AnotExprValue *v;
            gboolean borrowed;

            if (!STEP (ev, n->offset) || !eval_ref (ev, object, &d, &borrowed) || !STEP (ev, index->offset))
              return FALSE;
            if (d.kind == ANOT_EXPR_DICT)
              {
                v = subscript_const_str_borrow (ev, n, d.u.d, index->u.constant.u.s);
                if (v == NULL)
                  return FALSE;
                *out = *v;
                *owned = FALSE;
                return TRUE;
              }
            *owned = TRUE;
            return subscript (ev, d, index->u.constant, n->offset, out);
          }
      }
      *owned = TRUE;
      return eval (ev, n, out);
    case ANOT_EXPR_NODE_UNARY:
    case ANOT_EXPR_NODE_BINARY:
    case ANOT_EXPR_NODE_AND:
    case ANOT_EXPR_NODE_OR:
    case ANOT_EXPR_NODE_NOT:
    case ANOT_EXPR_NODE_COMPARE:
    case ANOT_EXPR_NODE_IFEXP:
    case ANOT_EXPR_NODE_SLICE:
    case ANOT_EXPR_NODE_ATTR:
    case ANOT_EXPR_NODE_CALL:
    case ANOT_EXPR_NODE_LIST:
    case ANOT_EXPR_NODE_TUPLE:
    case ANOT_EXPR_NODE_DICT:
    case ANOT_EXPR_NODE_GENEXP:
    case ANOT_EXPR_NODE_LISTCOMP:
    case ANOT_EXPR_NODE_DICTCOMP:
    default:
      *owned = TRUE;
      return eval (ev, n, out);
    }
}

static inline void
release (AnotExprValue v,
         gboolean      owned)
{
  if (owned)
    anot_expr_value_unref (v);
}

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

static const AnotExprValue *
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

static gboolean
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
