/* anot-expr-comprehension.c: iteration, comprehensions and their compiled filters
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#define ANOT_EXPR_IMPLEMENTATION

#include "anot-expr-eval-private.h"

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

gboolean anot_expr_fast_enabled = TRUE;

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

gboolean
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

gboolean
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
gboolean
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
void
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

gboolean
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
