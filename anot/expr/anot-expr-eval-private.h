/* anot-expr-eval-private.h: what the evaluator's three files share
 *
 * anot-expr-eval.c evaluates nodes, operators and calls,
 * anot-expr-comprehension.c iterates and runs comprehensions with their
 * compiled filters, anot-expr-builtins.c holds the builtins and methods.
 * Every function declared here is G_GNUC_INTERNAL: not exported.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include "anot-expr-private.h"

#include <math.h>
#include <string.h>

#include "anot-error.h"
#include "anot-pyliteral-private.h"

G_BEGIN_DECLS

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

/* The list a comprehension or list() collects into. */
typedef struct {
  AnotExprSeq *seq;
  guint offset;
} Collect;

G_GNUC_INTERNAL gboolean step_limit (Eval  *ev, guint  offset);
G_GNUC_INTERNAL gboolean check_items (Eval    *ev, guint64  n, guint    offset);
G_GNUC_INTERNAL gboolean check_string (Eval    *ev, guint64  bytes, guint    offset);
G_GNUC_INTERNAL const char * tname (AnotExprValue v);
G_GNUC_INTERNAL gboolean unhashable (Eval          *ev, AnotExprValue  key, guint          offset);
G_GNUC_INTERNAL gboolean is_hashable (AnotExprValue v);
G_GNUC_INTERNAL gboolean int_overflow (Eval  *ev, guint  offset);
G_GNUC_INTERNAL gboolean float_to_int (Eval    *ev, double   f, guint    offset, gint64  *out);
G_GNUC_INTERNAL gboolean float_pow (Eval    *ev, double   x, double   y, guint    offset, gboolean math_pow, double  *out);
G_GNUC_INTERNAL const char * find_bytes (const char *haystack, gsize       haystack_len, const char *needle, gsize       needle_len);
G_GNUC_INTERNAL gboolean py_isspace (gunichar c);
G_GNUC_INTERNAL AnotExprValue str_from_char (const char *p);
G_GNUC_INTERNAL gboolean new_string_checked (Eval          *ev, GString       *text, guint          offset, AnotExprValue *out);
G_GNUC_INTERNAL gboolean binary_op (Eval          *ev, AnotExprOp     op, AnotExprValue  a, AnotExprValue  b, guint          offset, AnotExprValue *out);
G_GNUC_INTERNAL gboolean order (Eval          *ev, AnotExprOp     op, AnotExprValue  a, AnotExprValue  b, guint          offset, gboolean      *result);
G_GNUC_INTERNAL gboolean compare (Eval          *ev, AnotExprOp     op, AnotExprValue  a, AnotExprValue  b, guint          offset, gboolean      *result);
G_GNUC_INTERNAL gboolean eval (Eval          *ev, AnotExprNode  *n, AnotExprValue *out);
G_GNUC_INTERNAL gboolean fail (Eval       *ev, AnotError   code, guint       offset, const char *format, ...) G_GNUC_PRINTF (4, 5);
G_GNUC_INTERNAL gboolean subscript (Eval          *ev, AnotExprValue  obj, AnotExprValue  index, guint          offset, AnotExprValue *out);
G_GNUC_INTERNAL const AnotExprValue * subscript_const_str_borrow (Eval          *ev, AnotExprNode  *n, AnotExprDict  *d, AnotExprStr   *key);
G_GNUC_INTERNAL gboolean iterate (Eval          *ev, AnotExprValue  v, guint          offset, EmitFunc       emit, gpointer       data, gboolean      *stop);
G_GNUC_INTERNAL gboolean emit_append (Eval          *ev, AnotExprValue  item, gpointer       data, gboolean      *stop);
G_GNUC_INTERNAL gboolean collect (Eval          *ev, AnotExprValue  v, guint          offset, AnotExprKind   kind, AnotExprValue *out);
G_GNUC_INTERNAL void count_group_run (const AnotExprProgram    *program, const AnotExprCountGroup *group, AnotExprSeq              *records, guint64                   max_steps, AnotExprValue            *results, gboolean                 *counted);
G_GNUC_INTERNAL gboolean comp_loop (Eval          *ev, AnotExprNode  *n, guint          k, EmitFunc       emit, gpointer       data, gboolean      *stop);
G_GNUC_INTERNAL const AnotExprBuiltin * table_lookup (const AnotExprBuiltin *table, gsize                  n, const char            *name);
G_GNUC_INTERNAL const AnotExprBuiltin * method_table (AnotExprKind  kind, gsize        *n);
G_GNUC_INTERNAL gboolean no_attribute (Eval          *ev, AnotExprValue  obj, const char    *name, guint          offset);
G_GNUC_INTERNAL extern gboolean anot_expr_fast_enabled;
G_GNUC_INTERNAL extern const AnotExprBuiltin builtins[];

#define STEP(ev, offset) (G_LIKELY (++(ev)->steps <= (ev)->max_steps) || step_limit ((ev), (offset)))

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

G_END_DECLS
