/* anot-expr.c: parsed expressions and the scopes they are evaluated in
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#define ANOT_EXPR_IMPLEMENTATION

#include "anot-expr.h"
#include "anot-expr-private.h"

#include <string.h>

/**
 * AnotExpr:
 *
 * A formula in the Python-expression subset that LLM-written Formula Seeds
 * use, parsed once and evaluated any number of times by anot's own
 * sandboxed evaluator.
 *
 * The original framework ran such formulas with Python's `eval()`, so a
 * formula an LLM wrote (or one a prompt-injected review steered it to
 * write) ran with the framework's full privileges.  An #AnotExpr can only
 * read the variables of its [struct@Anot.ExprScope] and call the
 * whitelisted builtins and methods listed in `docs/general-anot.md`; there
 * is no attribute access beyond that whitelist, no import, no I/O, and
 * every evaluation is bounded by a step budget, a size limit on the values
 * it builds and the nesting depth the parser accepts.
 *
 * Within that subset the semantics are Python's: integer and float
 * arithmetic (`/` always gives a float, `//` and `%` floor), truthiness,
 * chained comparisons, short-circuit `and`/`or` returning an operand, lazy
 * conditional expressions, generator expressions consumed lazily (`any()`
 * stops at the first true item), and the exception kinds of Python,
 * reported as %ANOT_ERROR codes (`ANOT_ERROR_EXPR_NAME` for `NameError`,
 * ...).  Integers are 64-bit: where Python would grow a big integer,
 * evaluation fails with %ANOT_ERROR_EXPR_OVERFLOW.
 *
 * A parsed expression is immutable: it can be evaluated in several threads
 * at once, each thread with its own scope.
 */

/**
 * AnotExprScope:
 *
 * The variables an [struct@Anot.Expr] reads, the builtins it may call and
 * the limits of its evaluation.
 *
 * A scope is not thread-safe: use one per thread.  Values set with
 * anot_expr_scope_set() are copied into the evaluator's own value model;
 * anot_expr_evaluate_to_scope() stores a result without converting it, so a
 * chain of formulas (a compute DAG) passes values from step to step at no
 * cost.
 */

G_DEFINE_BOXED_TYPE (AnotExpr, anot_expr, anot_expr_ref, anot_expr_unref)
G_DEFINE_BOXED_TYPE (AnotExprScope, anot_expr_scope, anot_expr_scope_ref, anot_expr_scope_unref)

/* ------------------------------------------------------------------------ *
 * Errors
 * ------------------------------------------------------------------------ */

void
anot_expr_failure_clear (AnotExprFailure *failure)
{
  g_clear_pointer (&failure->message, g_free);
  failure->code = 0;
  failure->offset = 0;
}

void
anot_expr_offset_to_position (const char *source,
                              guint       offset,
                              guint      *line,
                              guint      *column)
{
  guint l = 1;
  guint c = 1;
  const char *end = source + offset;

  /* Byte by byte, counting the first byte of each character: stepping
   * with g_utf8_next_char() makes each step wait for the one before
   * (a trace places every failed step's column). */
  for (const char *p = source; p < end && *p != '\0'; p++)
    {
      if (*p == '\n')
        {
          l++;
          c = 1;
        }
      else if (((guchar) *p & 0xC0) != 0x80)
        c++;
    }
  *line = l;
  *column = c;
}

static void
append_uint (GString *out,
             guint    value)
{
  char digits[12];
  char *p = digits + sizeof digits;

  do
    {
      *--p = (char) ('0' + value % 10);
      value /= 10;
    }
  while (value != 0);
  g_string_append_len (out, p, digits + sizeof digits - p);
}

void
anot_expr_failure_append_message (AnotExpr              *self,
                                  const AnotExprFailure *failure,
                                  GString               *out,
                                  guint                 *column)
{
  guint line, col;

  g_string_append (out, "formula “");
  if (self->name != NULL)
    g_string_append (out, self->name);
  else if (g_utf8_strlen (self->source, -1) <= 60 && strchr (self->source, '\n') == NULL)
    g_string_append (out, self->source);
  else
    {
      gsize start = out->len;
      const char *end = self->source;

      /* The first 57 characters, or all of a shorter multi-line one. */
      for (guint i = 0; i < 57 && *end != '\0'; i++)
        end = g_utf8_next_char (end);

      g_string_append_len (out, self->source, end - self->source);
      for (gsize i = start; i < out->len; i++)
        if (out->str[i] == '\n')
          out->str[i] = ' ';
      g_string_append (out, "...");
    }
  g_string_append (out, "”");

  anot_expr_offset_to_position (self->source, failure->offset, &line, &col);
  /* No printf: a trace writes a message per failed step. */
  if (line > 1 || strchr (self->source, '\n') != NULL)
    {
      g_string_append (out, ", line ");
      append_uint (out, line);
    }
  g_string_append (out, ", column ");
  append_uint (out, col);
  g_string_append (out, ": ");
  g_string_append (out, failure->message);
  if (column != NULL)
    *column = col;
}

GError *
anot_expr_failure_to_error (AnotExpr              *self,
                            const AnotExprFailure *failure)
{
  g_autoptr(GString) message = g_string_new (NULL);

  anot_expr_failure_append_message (self, failure, message, NULL);
  return g_error_new_literal (ANOT_ERROR, failure->code, message->str);
}

/* ------------------------------------------------------------------------ *
 * AnotExpr
 * ------------------------------------------------------------------------ */

/**
 * anot_expr_parse:
 * @source: the formula, a single Python expression
 * @name: (nullable): a name for error messages, such as the compute step
 *   the formula defines
 * @error: return location for a #GError
 *
 * Parses @source.  Errors are %ANOT_ERROR_EXPR_SYNTAX for what is not a
 * valid expression or is left out of the language (lambda, f-strings,
 * assignments, ...), %ANOT_ERROR_EXPR_FORBIDDEN for names and attributes
 * starting with two underscores and for `import`, %ANOT_ERROR_EXPR_LIMIT for
 * formulas longer than 64 KiB or nested deeper than the parser accepts.  The
 * message names the formula (@name, or the start of @source) and the
 * 1-based column.
 *
 * Returns: (transfer full): the parsed expression, or %NULL on error
 */
AnotExpr *
anot_expr_parse (const char  *source,
                 const char  *name,
                 GError     **error)
{
  g_autoptr(AnotExpr) self = NULL;
  g_autoptr(GPtrArray) free_names = g_ptr_array_new ();
  AnotExprFailure failure = { 0 };

  g_return_val_if_fail (source != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  self = g_new0 (AnotExpr, 1);
  self->ref_count = 1;
  self->source = g_strdup (source);
  self->name = g_strdup (name);
  self->allocs = g_ptr_array_new_with_free_func (g_free);

  self->root = anot_expr_parse_tree (self->source, self->allocs, &self->n_slots,
                                     free_names, &failure);
  if (self->root == NULL)
    {
      if (failure.message == NULL)
        failure.message = g_strdup ("SyntaxError: invalid syntax");
      g_propagate_error (error, anot_expr_failure_to_error (self, &failure));
      anot_expr_failure_clear (&failure);
      return NULL;
    }

  anot_expr_compile_fast (self->root, self->allocs);
  self->n_free = free_names->len;
  self->free_builtins = g_new0 (const AnotExprBuiltin *, MAX (1, self->n_free));
  for (guint i = 0; i < self->n_free; i++)
    self->free_builtins[i] = anot_expr_builtin_lookup (free_names->pdata[i]);
  self->free_hashes = g_new (guint32, MAX (1, self->n_free));
  for (guint i = 0; i < self->n_free; i++)
    self->free_hashes[i] = anot_expr_name_hash (free_names->pdata[i]);
  g_ptr_array_add (free_names, NULL);
  self->free_names = g_memdup2 (free_names->pdata, free_names->len * sizeof (gpointer));
  return g_steal_pointer (&self);
}

/**
 * anot_expr_ref:
 * @self: an #AnotExpr
 *
 * Returns: (transfer full): @self
 */
AnotExpr *
anot_expr_ref (AnotExpr *self)
{
  g_return_val_if_fail (self != NULL, NULL);

  g_atomic_int_inc (&self->ref_count);
  return self;
}

/**
 * anot_expr_unref:
 * @self: (transfer full): an #AnotExpr
 *
 * Drops a reference; frees @self when it was the last one.
 */
void
anot_expr_unref (AnotExpr *self)
{
  g_return_if_fail (self != NULL);

  if (!g_atomic_int_dec_and_test (&self->ref_count))
    return;
  g_free (self->source);
  g_free (self->name);
  g_free (self->free_names);
  g_free (self->free_builtins);
  g_free (self->free_hashes);
  g_ptr_array_unref (self->allocs);
  g_free (self);
}

/**
 * anot_expr_get_source:
 * @self: an #AnotExpr
 *
 * Returns: (transfer none): the text of the formula
 */
const char *
anot_expr_get_source (AnotExpr *self)
{
  g_return_val_if_fail (self != NULL, NULL);

  return self->source;
}

/**
 * anot_expr_get_name:
 * @self: an #AnotExpr
 *
 * Returns: (transfer none) (nullable): the name given to anot_expr_parse()
 */
const char *
anot_expr_get_name (AnotExpr *self)
{
  g_return_val_if_fail (self != NULL, NULL);

  return self->name;
}

/**
 * anot_expr_get_free_names:
 * @self: an #AnotExpr
 *
 * The names the formula reads from its scope or the builtins, in order of
 * first use; names bound by a comprehension (`e` in `for e in extractions`)
 * are not free.  A compute DAG uses them to check that every step only
 * reads earlier steps.
 *
 * Returns: (transfer none) (array zero-terminated=1): the free names
 */
const char * const *
anot_expr_get_free_names (AnotExpr *self)
{
  g_return_val_if_fail (self != NULL, NULL);

  return (const char * const *) self->free_names;
}

/* The items (container members, at every level) @v holds once written out
 * as JSON, where a list held twice is written twice; counting stops past
 * @limit. */
guint64
anot_expr_value_expanded_items (AnotExprValue v,
                                guint64       limit)
{
  guint64 n = 0;

  if (v.kind == ANOT_EXPR_LIST || v.kind == ANOT_EXPR_TUPLE)
    for (guint i = 0; i < v.u.seq->len && n <= limit; i++)
      n += 1 + anot_expr_value_expanded_items (v.u.seq->items[i], limit - n);
  else if (v.kind == ANOT_EXPR_DICT)
    for (guint i = 0; i < v.u.d->len && n <= limit; i++)
      n += 1 + anot_expr_value_expanded_items (v.u.d->values[i], limit - n);
  return n;
}

/**
 * anot_expr_evaluate:
 * @self: an #AnotExpr
 * @scope: the variables, builtins and limits of this evaluation
 * @error: return location for a #GError
 *
 * Evaluates @self in @scope.  The result is converted to JSON: ints become
 * JSON integers, floats JSON reals (non-finite floats become null), lists
 * and tuples arrays, dicts objects (keys as their str()).
 *
 * On error the code is the Python exception kind (%ANOT_ERROR_EXPR_NAME,
 * %ANOT_ERROR_EXPR_TYPE, %ANOT_ERROR_EXPR_KEY, ...) or
 * %ANOT_ERROR_EXPR_LIMIT when the evaluation ran out of steps or built a
 * value larger than the scope's limits (the result too: a list that holds
 * one list many times is written out in full, and may not exceed the
 * scope's item limit then either); the message names the formula, the
 * 1-based column of the failing operation and the reason, as in
 * `formula “n_recent”, column 18: KeyError: 'review_year'`.
 *
 * Returns: (transfer full) (nullable): the value, or %NULL on error
 */
JsonNode *
anot_expr_evaluate (AnotExpr       *self,
                    AnotExprScope  *scope,
                    GError        **error)
{
  AnotExprValue value;
  AnotExprFailure failure = { 0 };
  JsonNode *node;

  g_return_val_if_fail (self != NULL, NULL);
  g_return_val_if_fail (scope != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (!anot_expr_eval_value (self, scope, &value, &failure))
    {
      g_propagate_error (error, anot_expr_failure_to_error (self, &failure));
      anot_expr_failure_clear (&failure);
      return NULL;
    }
  if (anot_expr_value_expanded_items (value, scope->max_items) > scope->max_items)
    {
      failure.code = ANOT_ERROR_EXPR_LIMIT;
      failure.offset = 0;
      failure.message = g_strdup_printf ("LimitError: the result, written out, holds more than %u items",
                                         scope->max_items);
      anot_expr_value_unref (value);
      g_propagate_error (error, anot_expr_failure_to_error (self, &failure));
      anot_expr_failure_clear (&failure);
      return NULL;
    }
  node = anot_expr_value_to_json (value);
  anot_expr_value_unref (value);
  return node;
}

/**
 * anot_expr_evaluate_to_scope:
 * @self: an #AnotExpr
 * @scope: the variables, builtins and limits of this evaluation
 * @variable: the variable of @scope that receives the result
 * @error: return location for a #GError
 *
 * Evaluates @self in @scope and stores the result in @scope as @variable,
 * without converting it to JSON: the way to run a chain of formulas where
 * each one reads the results of the ones before.  On error @variable is left
 * as it was.  Errors are those of anot_expr_evaluate().
 *
 * Returns: %TRUE on success
 */
gboolean
anot_expr_evaluate_to_scope (AnotExpr       *self,
                             AnotExprScope  *scope,
                             const char     *variable,
                             GError        **error)
{
  AnotExprValue value;
  AnotExprFailure failure = { 0 };

  g_return_val_if_fail (self != NULL, FALSE);
  g_return_val_if_fail (scope != NULL, FALSE);
  g_return_val_if_fail (variable != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if (!anot_expr_eval_value (self, scope, &value, &failure))
    {
      g_propagate_error (error, anot_expr_failure_to_error (self, &failure));
      anot_expr_failure_clear (&failure);
      return FALSE;
    }
  anot_expr_scope_take_value (scope, variable, value);
  return TRUE;
}

/**
 * anot_expr_list_builtins:
 *
 * The builtin names a formula can use when its scope does not restrict them
 * (see anot_expr_scope_set_builtins()): functions such as `sum`, `len`,
 * `min`, `max`, `round`, `any`, `all`, `float`, `int`, `str`, the natural
 * `log`, `log10`, `exp`, `sqrt`, and the module `math`.
 *
 * Returns: (transfer none) (array zero-terminated=1): the names, sorted
 */
const char * const *
anot_expr_list_builtins (void)
{
  return anot_expr_builtin_names ();
}

/**
 * anot_expr_get_original_builtins:
 *
 * The builtins the original framework's compute namespace defined: `log`
 * (natural), `log10`, `exp`, `sqrt`, `min`, `max`, `sum`, `len`, `zip`,
 * `abs`, `round` and `math`.  Passing them to
 * anot_expr_scope_set_builtins() reproduces which formulas of a recorded
 * seed failed with a `NameError` (`isinstance`, `int`, `any`, ... were not
 * defined there).
 *
 * Returns: (transfer none) (array zero-terminated=1): the names
 */
const char * const *
anot_expr_get_original_builtins (void)
{
  static const char * const names[] = {
    "abs", "exp", "len", "log", "log10", "math", "max", "min", "round",
    "sqrt", "sum", "zip", NULL
  };

  return names;
}

/* ------------------------------------------------------------------------ *
 * AnotExprScope
 * ------------------------------------------------------------------------ */

/**
 * anot_expr_scope_new:
 *
 * Creates an empty scope with every builtin enabled and the default limits:
 * 10,000,000 evaluation steps, 1,000,000 items in any list, tuple or dict
 * built, 16 MiB in any string built.
 *
 * Returns: (transfer full): a new scope
 */
AnotExprScope *
anot_expr_scope_new (void)
{
  AnotExprScope *self = g_new0 (AnotExprScope, 1);

  self->ref_count = 1;
  self->max_steps = ANOT_EXPR_DEFAULT_MAX_STEPS;
  self->max_items = ANOT_EXPR_DEFAULT_MAX_ITEMS;
  self->max_string = ANOT_EXPR_DEFAULT_MAX_STRING;
  self->builtin_mask = G_MAXUINT32;
  return self;
}

/**
 * anot_expr_scope_ref:
 * @self: an #AnotExprScope
 *
 * Returns: (transfer full): @self
 */
AnotExprScope *
anot_expr_scope_ref (AnotExprScope *self)
{
  g_return_val_if_fail (self != NULL, NULL);

  g_atomic_int_inc (&self->ref_count);
  return self;
}

/**
 * anot_expr_scope_unref:
 * @self: (transfer full): an #AnotExprScope
 *
 * Drops a reference; frees @self when it was the last one.
 */
void
anot_expr_scope_unref (AnotExprScope *self)
{
  g_return_if_fail (self != NULL);

  if (!g_atomic_int_dec_and_test (&self->ref_count))
    return;
  for (guint i = 0; i < self->n_vars; i++)
    {
      if (SCOPE_VAR (self, i)->owned)
        g_free (SCOPE_VAR (self, i)->name);
      anot_expr_value_unref (SCOPE_VAR (self, i)->value);
    }
  for (guint i = 0; i < self->alloc_vars / SCOPE_CHUNK; i++)
    g_free (self->chunks[i]);
  g_free (self->chunks);
  g_free (self->index);
  if (self->kept_free != NULL)
    self->kept_free (self->kept);
  g_clear_pointer (&self->builtins, g_hash_table_unref);
  g_free (self);
}

/* One more chunk of variables.  Chunks rather than one array: a scope is
 * made per item, and a block of a kilobyte or more makes malloc() sweep
 * its caches of small blocks (those of the previous item's trace). */
static void
scope_grow (AnotExprScope *scope)
{
  guint n_chunks = scope->alloc_vars / SCOPE_CHUNK;

  scope->chunks = g_renew (AnotExprVar *, scope->chunks, n_chunks + 1);
  scope->chunks[n_chunks] = g_new (AnotExprVar, SCOPE_CHUNK);
  scope->alloc_vars += SCOPE_CHUNK;
}

static gssize
scope_find (AnotExprScope *scope,
            const char    *name,
            guint32        hash)
{
  guint mask;

  if (scope->index == NULL)
    return -1;
  mask = scope->index_size - 1;
  for (guint slot = hash & mask; scope->index[slot] != 0; slot = (slot + 1) & mask)
    {
      AnotExprVar *var = SCOPE_VAR (scope, scope->index[slot] - 1);

      if (var->hash == hash && strcmp (var->name, name) == 0)
        return scope->index[slot] - 1;
    }
  return -1;
}

/* Never shrinks: see anot_expr_scope_reserve(). */
static void
scope_rebuild_index (AnotExprScope *scope,
                     guint          room)
{
  guint size = MAX (16, scope->index_size);
  guint mask;

  while (size < MAX (room, scope->n_vars) * 2 + 2)
    size *= 2;
  if (size != scope->index_size)
    {
      g_free (scope->index);
      scope->index = g_new (guint32, size);
      scope->index_size = size;
    }
  memset (scope->index, 0, size * sizeof (guint32));
  mask = size - 1;
  for (guint i = 0; i < scope->n_vars; i++)
    {
      guint slot = SCOPE_VAR (scope, i)->hash & mask;

      while (scope->index[slot] != 0)
        slot = (slot + 1) & mask;
      scope->index[slot] = i + 1;
    }
}

AnotExprValue *
anot_expr_scope_lookup_hashed (AnotExprScope *scope,
                               const char    *name,
                               guint32        hash)
{
  gssize pos = scope_find (scope, name, hash);

  return pos < 0 ? NULL : &SCOPE_VAR (scope, pos)->value;
}

AnotExprValue *
anot_expr_scope_lookup (AnotExprScope *scope,
                        const char    *name)
{
  return anot_expr_scope_lookup_hashed (scope, name, anot_expr_name_hash (name));
}

void
anot_expr_scope_reserve (AnotExprScope *scope,
                         guint          n)
{
  while (n > scope->alloc_vars)
    scope_grow (scope);
  if (n * 2 + 2 > scope->index_size)
    scope_rebuild_index (scope, n);
}

void
anot_expr_scope_keep (AnotExprScope  *scope,
                      gpointer        data,
                      GDestroyNotify  free_func)
{
  if (scope->kept_free != NULL)
    scope->kept_free (scope->kept);
  scope->kept = data;
  scope->kept_free = free_func;
}

/* Adds @name, which @scope does not hold. */
static inline void
scope_append (AnotExprScope *scope,
              const char    *name,
              gboolean       copy,
              guint32        hash,
              AnotExprValue  value)
{
  AnotExprVar *var;

  scope->filled_by = NULL;
  if (scope->n_vars == scope->alloc_vars)
    scope_grow (scope);
  var = SCOPE_VAR (scope, scope->n_vars);
  scope->n_vars++;
  var->name = copy ? g_strdup (name) : (char *) name;
  var->owned = copy;
  var->hash = hash;
  var->value = value;
  if (scope->n_vars * 2 + 2 > scope->index_size)
    scope_rebuild_index (scope, 0);
  else
    {
      guint mask = scope->index_size - 1;
      guint slot = hash & mask;

      while (scope->index[slot] != 0)
        slot = (slot + 1) & mask;
      scope->index[slot] = scope->n_vars;
    }
}

static void
scope_insert (AnotExprScope *scope,
              const char    *name,
              gboolean       copy,
              guint32        hash,
              AnotExprValue  value)
{
  gssize pos = scope_find (scope, name, hash);

  if (pos >= 0)
    {
      anot_expr_value_unref (SCOPE_VAR (scope, pos)->value);
      SCOPE_VAR (scope, pos)->value = value;
      return;
    }
  scope_append (scope, name, copy, hash, value);
}

void
anot_expr_scope_take_value_hashed (AnotExprScope *scope,
                                   const char    *name,
                                   guint32        hash,
                                   AnotExprValue  value)
{
  scope_insert (scope, name, TRUE, hash, value);
}

void
anot_expr_scope_take_value_static (AnotExprScope *scope,
                                   const char    *name,
                                   guint32        hash,
                                   AnotExprValue  value)
{
  scope_insert (scope, name, FALSE, hash, value);
}

void
anot_expr_scope_take_value (AnotExprScope *scope,
                            const char    *name,
                            AnotExprValue  value)
{
  anot_expr_scope_take_value_hashed (scope, name, anot_expr_name_hash (name), value);
}

/**
 * anot_expr_scope_set:
 * @self: an #AnotExprScope
 * @name: the variable
 * @value: (nullable): its value; %NULL or a JSON null is `None`
 *
 * Sets @name to a copy of @value: JSON objects become dicts, arrays lists,
 * integers ints, other numbers floats, strings strs, booleans bools.
 */
void
anot_expr_scope_set (AnotExprScope *self,
                     const char    *name,
                     JsonNode      *value)
{
  g_return_if_fail (self != NULL);
  g_return_if_fail (name != NULL);

  anot_expr_scope_take_value (self, name, anot_expr_value_from_json (value));
}

/**
 * anot_expr_scope_set_int:
 * @self: an #AnotExprScope
 * @name: the variable
 * @value: an int
 *
 * Sets @name to the int @value.
 */
void
anot_expr_scope_set_int (AnotExprScope *self,
                         const char    *name,
                         gint64         value)
{
  g_return_if_fail (self != NULL);
  g_return_if_fail (name != NULL);

  anot_expr_scope_take_value (self, name, anot_expr_value_int (value));
}

/**
 * anot_expr_scope_set_double:
 * @self: an #AnotExprScope
 * @name: the variable
 * @value: a float
 *
 * Sets @name to the float @value.
 */
void
anot_expr_scope_set_double (AnotExprScope *self,
                            const char    *name,
                            double         value)
{
  g_return_if_fail (self != NULL);
  g_return_if_fail (name != NULL);

  anot_expr_scope_take_value (self, name, anot_expr_value_float (value));
}

/**
 * anot_expr_scope_set_string:
 * @self: an #AnotExprScope
 * @name: the variable
 * @value: a UTF-8 string
 *
 * Sets @name to the str @value.
 */
void
anot_expr_scope_set_string (AnotExprScope *self,
                            const char    *name,
                            const char    *value)
{
  g_return_if_fail (self != NULL);
  g_return_if_fail (name != NULL);
  g_return_if_fail (value != NULL);

  anot_expr_scope_take_value (self, name, anot_expr_value_new_string (value, -1));
}

/**
 * anot_expr_scope_get:
 * @self: an #AnotExprScope
 * @name: the variable
 *
 * Converts the value of @name to JSON as anot_expr_evaluate() does,
 * within the same bound: a value that, written out, would hold more items
 * than the scope's item limit (a list holding one list many times, which
 * a formula can build cheaply) is not converted.
 *
 * Returns: (transfer full) (nullable): the value, or %NULL when @name is
 *   not set or its value is too large to write out
 *   (anot_expr_scope_contains() tells the two apart)
 */
JsonNode *
anot_expr_scope_get (AnotExprScope *self,
                     const char    *name)
{
  AnotExprValue *v;

  g_return_val_if_fail (self != NULL, NULL);
  g_return_val_if_fail (name != NULL, NULL);

  v = anot_expr_scope_lookup (self, name);
  if (v == NULL || anot_expr_value_expanded_items (*v, self->max_items) > self->max_items)
    return NULL;
  return anot_expr_value_to_json (*v);
}

/**
 * anot_expr_scope_contains:
 * @self: an #AnotExprScope
 * @name: the variable
 *
 * Returns: whether @name is set in @self (builtins do not count)
 */
gboolean
anot_expr_scope_contains (AnotExprScope *self,
                          const char    *name)
{
  g_return_val_if_fail (self != NULL, FALSE);
  g_return_val_if_fail (name != NULL, FALSE);

  return anot_expr_scope_lookup (self, name) != NULL;
}

/**
 * anot_expr_scope_remove:
 * @self: an #AnotExprScope
 * @name: the variable
 *
 * Unsets @name.
 *
 * Returns: whether @name was set
 */
gboolean
anot_expr_scope_remove (AnotExprScope *self,
                        const char    *name)
{
  gssize pos;

  g_return_val_if_fail (self != NULL, FALSE);
  g_return_val_if_fail (name != NULL, FALSE);

  pos = scope_find (self, name, anot_expr_name_hash (name));
  if (pos < 0)
    return FALSE;
  if (SCOPE_VAR (self, pos)->owned)
    g_free (SCOPE_VAR (self, pos)->name);
  anot_expr_value_unref (SCOPE_VAR (self, pos)->value);
  *SCOPE_VAR (self, pos) = *SCOPE_VAR (self, self->n_vars - 1);
  self->n_vars--;
  scope_rebuild_index (self, 0);
  return TRUE;
}

static int
compare_names (gconstpointer a,
               gconstpointer b)
{
  return strcmp (*(const char * const *) a, *(const char * const *) b);
}

/**
 * anot_expr_scope_list_names:
 * @self: an #AnotExprScope
 *
 * Returns: (transfer full) (array zero-terminated=1): the names set in
 *   @self, sorted
 */
char **
anot_expr_scope_list_names (AnotExprScope *self)
{
  GPtrArray *names;

  g_return_val_if_fail (self != NULL, NULL);

  names = g_ptr_array_new ();
  for (guint i = 0; i < self->n_vars; i++)
    g_ptr_array_add (names, g_strdup (SCOPE_VAR (self, i)->name));
  g_ptr_array_sort (names, compare_names);
  g_ptr_array_add (names, NULL);
  return (char **) g_ptr_array_free (names, FALSE);
}

/**
 * anot_expr_scope_set_builtins:
 * @self: an #AnotExprScope
 * @names: (nullable) (array zero-terminated=1): the builtins to enable, or
 *   %NULL for all of anot_expr_list_builtins()
 *
 * Restricts the builtins formulas evaluated in @self can call.  A formula
 * that uses a disabled builtin fails with %ANOT_ERROR_EXPR_NAME when it
 * reaches it, as Python does for an undefined name.  Names that are not
 * builtins are ignored.  Variables of the scope shadow builtins either way.
 */
void
anot_expr_scope_set_builtins (AnotExprScope      *self,
                              const char * const *names)
{
  g_return_if_fail (self != NULL);

  g_clear_pointer (&self->builtins, g_hash_table_unref);
  self->builtin_mask = G_MAXUINT32;
  if (names == NULL)
    return;
  self->builtin_mask = 0;
  for (guint i = 0; names[i] != NULL; i++)
    {
      const AnotExprBuiltin *fn = anot_expr_builtin_lookup (names[i]);

      if (fn != NULL)
        self->builtin_mask |= 1u << anot_expr_builtin_index (fn);
    }
  if (names == anot_expr_get_original_builtins ())
    {
      /* One table for every scope of the original's mode (a Formula Seed
       * makes one scope per item). */
      static GHashTable *original = NULL;

      if (g_once_init_enter (&original))
        {
          GHashTable *table = g_hash_table_new (g_str_hash, g_str_equal);

          for (guint i = 0; names[i] != NULL; i++)
            g_hash_table_add (table, (gpointer) names[i]);
          g_once_init_leave (&original, table);
        }
      self->builtins = g_hash_table_ref (original);
      return;
    }
  self->builtins = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  for (guint i = 0; names[i] != NULL; i++)
    if (anot_expr_builtin_lookup (names[i]) != NULL)
      g_hash_table_add (self->builtins, g_strdup (names[i]));
}

/**
 * anot_expr_scope_has_builtin:
 * @self: an #AnotExprScope
 * @name: a name
 *
 * Returns: whether @name is a builtin enabled in @self
 */
gboolean
anot_expr_scope_has_builtin (AnotExprScope *self,
                             const char    *name)
{
  g_return_val_if_fail (self != NULL, FALSE);
  g_return_val_if_fail (name != NULL, FALSE);

  if (anot_expr_builtin_lookup (name) == NULL)
    return FALSE;
  return self->builtins == NULL || g_hash_table_contains (self->builtins, name);
}

/**
 * anot_expr_scope_set_limits:
 * @self: an #AnotExprScope
 * @max_steps: evaluation steps (nodes evaluated plus items iterated) one
 *   evaluation may take, or 0 for the default (10,000,000)
 * @max_items: items a list, tuple or dict built by a formula may hold
 *   (`range()`, comprehensions, repetition, concatenation), or 0 for the
 *   default (1,000,000)
 * @max_string_bytes: bytes a string built by a formula may hold, or 0 for
 *   the default (16 MiB)
 *
 * Sets the bounds of evaluations in @self.  An evaluation that exceeds one
 * fails with %ANOT_ERROR_EXPR_LIMIT before allocating the oversized value.
 */
void
anot_expr_scope_set_limits (AnotExprScope *self,
                            guint64        max_steps,
                            guint          max_items,
                            gsize          max_string_bytes)
{
  g_return_if_fail (self != NULL);

  self->max_steps = max_steps > 0 ? max_steps : ANOT_EXPR_DEFAULT_MAX_STEPS;
  self->max_items = max_items > 0 ? max_items : ANOT_EXPR_DEFAULT_MAX_ITEMS;
  self->max_string = max_string_bytes > 0 ? max_string_bytes : ANOT_EXPR_DEFAULT_MAX_STRING;
}

/**
 * anot_expr_scope_get_last_steps:
 * @self: an #AnotExprScope
 *
 * Returns: the steps the last evaluation in @self took, whether it
 *   succeeded or not
 */
guint64
anot_expr_scope_get_last_steps (AnotExprScope *self)
{
  g_return_val_if_fail (self != NULL, 0);

  return self->last_steps;
}

/* ------------------------------------------------------------------------ *
 * AnotExprProgram
 * ------------------------------------------------------------------------ */

AnotExprProgram *
anot_expr_program_new (void)
{
  AnotExprProgram *program = g_new0 (AnotExprProgram, 1);

  program->names = g_ptr_array_new ();
  program->hashes = g_array_new (FALSE, FALSE, sizeof (guint32));
  program->builtins = g_array_new (FALSE, FALSE, sizeof (const AnotExprBuiltin *));
  program->from_scope = g_array_new (FALSE, FALSE, sizeof (gboolean));
  program->steps = g_array_new (FALSE, FALSE, sizeof (AnotExprProgramStep));
  program->written = g_array_new (FALSE, FALSE, sizeof (gboolean));
  program->count_groups = g_array_new (FALSE, FALSE, sizeof (AnotExprCountGroup));
  return program;
}

void
anot_expr_program_free (AnotExprProgram *program)
{
  if (program == NULL)
    return;
  for (guint i = 0; i < program->steps->len; i++)
    {
      AnotExprProgramStep *s = &g_array_index (program->steps, AnotExprProgramStep, i);

      anot_expr_unref (s->expr);
      g_free (s->free_index);
    }
  for (guint i = 0; i < program->count_groups->len; i++)
    {
      AnotExprCountGroup *group = &g_array_index (program->count_groups, AnotExprCountGroup, i);

      g_array_unref (group->members);
      anot_expr_count_pass_free (group->pass);
    }
  g_array_unref (program->count_groups);
  g_array_unref (program->steps);
  g_array_unref (program->written);
  g_ptr_array_unref (program->names);
  g_array_unref (program->hashes);
  g_array_unref (program->builtins);
  g_array_unref (program->from_scope);
  g_free (program);
}

/* The position of @name in the table, added when new; @from_scope is only
 * used then. */
static guint
program_name (AnotExprProgram *program,
              const char      *name,
              gboolean         from_scope)
{
  guint32 hash = anot_expr_name_hash (name);
  const AnotExprBuiltin *fn;
  gboolean written = FALSE;

  for (guint i = 0; i < program->names->len; i++)
    if (g_array_index (program->hashes, guint32, i) == hash &&
        strcmp (program->names->pdata[i], name) == 0)
      return i;
  fn = anot_expr_builtin_lookup (name);
  g_ptr_array_add (program->names, (gpointer) name);
  g_array_append_val (program->hashes, hash);
  g_array_append_val (program->builtins, fn);
  g_array_append_val (program->from_scope, from_scope);
  g_array_append_val (program->written, written);
  return program->names->len - 1;
}

/* Adds @step to the group counting over @iter, the last one unless full. */
static gint
program_count_group (AnotExprProgram *program,
                     guint            iter,
                     guint            sum,
                     guint            step)
{
  AnotExprCountGroup *group = NULL;
  guint n = program->count_groups->len;

  for (guint i = n; i > 0 && group == NULL; i--)
    if (g_array_index (program->count_groups, AnotExprCountGroup, i - 1).iter == iter)
      group = &g_array_index (program->count_groups, AnotExprCountGroup, i - 1);
  if (group == NULL || group->members->len == ANOT_EXPR_COUNT_MAX_MEMBERS)
    {
      AnotExprCountGroup fresh = { iter, sum, g_array_new (FALSE, FALSE, sizeof (guint)), NULL };

      g_array_append_val (program->count_groups, fresh);
      group = &g_array_index (program->count_groups, AnotExprCountGroup, n);
    }
  g_array_append_val (group->members, step);
  return group - (AnotExprCountGroup *) (gpointer) program->count_groups->data;
}

void
anot_expr_program_add_step (AnotExprProgram *program,
                            AnotExpr        *expr,
                            const char      *target,
                            gboolean         integral)
{
  AnotExprProgramStep step = { anot_expr_ref (expr), NULL, -1, integral, -1, anot_expr_count_clause (expr) };

  step.free_index = g_new (guint, MAX (1, expr->n_free));
  /* A name read before any step writes it starts from the scope, even
   * when a later step writes it: the reader sees the scope's value. */
  for (guint k = 0; k < expr->n_free; k++)
    step.free_index[k] = program_name (program, expr->free_names[k], TRUE);
  if (target != NULL)
    {
      step.target = program_name (program, target, FALSE);
      g_array_index (program->written, gboolean, step.target) = TRUE;
    }
  if (step.count != NULL)
    step.count_group = program_count_group (program, program_name (program, step.count->iter->u.name.name, TRUE),
                                            program_name (program, "sum", TRUE),
                                            program->steps->len);
  program->max_free = MAX (program->max_free, expr->n_free);
  program->max_slots = MAX (program->max_slots, expr->n_slots);
  g_array_append_val (program->steps, step);
  if (step.count_group >= 0)
    {
      AnotExprCountGroup *group = &g_array_index (program->count_groups, AnotExprCountGroup, step.count_group);

      anot_expr_count_pass_free (group->pass);
      group->pass = anot_expr_count_pass_new (program, group);
    }
}

void
anot_expr_program_store (const AnotExprProgram *program,
                         AnotExprScope         *scope,
                         gboolean               original,
                         AnotExprValue         *results,
                         const gboolean        *succeeded,
                         gboolean               borrow_names,
                         gboolean               absent)
{
  const AnotExprProgramStep *steps = (const AnotExprProgramStep *) (gpointer) program->steps->data;

  for (guint i = 0; i < program->steps->len; i++)
    {
      gint target = steps[i].target;
      const char *name = target >= 0 ? program->names->pdata[target] : NULL;
      guint32 hash = target >= 0 ? g_array_index (program->hashes, guint32, target) : 0;

      if (target < 0)
        anot_expr_value_unref (results[i]);
      else if (succeeded[i] || original)
        {
          if (absent)
            scope_append (scope, name, !borrow_names, hash, results[i]);
          else
            scope_insert (scope, name, !borrow_names, hash, results[i]);
        }
      else
        {
          anot_expr_value_unref (results[i]);
          if (!absent)
            anot_expr_scope_remove (scope, name);
        }
    }
}
