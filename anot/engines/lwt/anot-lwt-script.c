/* anot-lwt-script.c: LWT scripts, their parser and their layers
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "anot-lwt-script.h"

#include <string.h>

#include "anot-error.h"
#include "anot-lwt-private.h"

/**
 * AnotLwtScript:
 *
 * An LWT ("lightweight template") script: the network of LLM calls ANoT
 * plans and executes.  A script is a list of steps, one a line:
 *
 * ```
 * (0)=LLM("Evaluate Milkcrate Cafe. DriveThru: True. Score 0-10. Output: <score>")
 * (1)=LLM('Evaluate Tria Cafe. DriveThru: not present. Score 0-10.')
 * (final)=LLM("Scores: {(0)}, {(1)}. Return the best index.")
 * ```
 *
 * Syntax: `(id)=LLM("instruction")`, spaces allowed around `=`, after
 * `LLM` and inside the parentheses.  An id is made of ASCII letters,
 * digits, `_` and `.`.  The instruction is a string literal in double or
 * single quotes, or tripled quotes (`"""…"""`); it may span lines.
 * Escapes: `\"`, `\'`, `\\`, `\n`, `\t`, `\r`; any other backslash is
 * kept.  A single-quoted string ends at the first `'` followed by `)`
 * (after optional spaces), so apostrophes inside it need no escape, as
 * in the original framework; likewise for double quotes.  Blank lines and
 * lines starting with `#` or `//` are ignored.  The instruction is a
 * template; see [class@Anot.LwtStep] for references such as `{(0)}`.
 *
 * Errors carry the 1-based line and column in their message and are
 * %ANOT_ERROR_PARSE, except a duplicate id (%ANOT_ERROR_DUPLICATE_ID), a
 * reference to nothing (%ANOT_ERROR_UNKNOWN_REFERENCE) and a cycle
 * (%ANOT_ERROR_INVALID_ARGUMENT).
 *
 * Layers: a step depends on the steps it refers to.  Layer 0 holds the
 * steps without dependencies; layer n the steps whose dependencies are
 * all in earlier layers; within a layer, steps keep script order.  Steps
 * caught in a cycle (only in lenient scripts) form one last layer, as in
 * the original.  The script's output step is the last step of the last
 * layer.
 */

struct _AnotLwtScript
{
  GObject parent_instance;

  GPtrArray  *steps;        /* AnotLwtStep, script order */
  GHashTable *by_id;        /* id -> AnotLwtStep (borrowed) */
  GPtrArray  *warnings;     /* char* */
  gboolean    analysed;
  GPtrArray  *layers;       /* GPtrArray of AnotLwtStep (borrowed) */
  GHashTable *layer_of;     /* id -> layer + 1 */
  gboolean    has_cycle;
};

G_DEFINE_FINAL_TYPE (AnotLwtScript, anot_lwt_script, G_TYPE_OBJECT)

enum {
  PROP_0,
  PROP_N_STEPS,
  PROP_N_LAYERS,
  PROP_HAS_CYCLE,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

static const char * const reserved_names[] = {
  "query", "input", "items", "context", "c", "candidates",
};

static void
anot_lwt_script_finalize (GObject *object)
{
  AnotLwtScript *self = ANOT_LWT_SCRIPT (object);

  g_ptr_array_unref (self->steps);
  g_hash_table_unref (self->by_id);
  g_ptr_array_unref (self->warnings);
  g_clear_pointer (&self->layers, g_ptr_array_unref);
  g_clear_pointer (&self->layer_of, g_hash_table_unref);

  G_OBJECT_CLASS (anot_lwt_script_parent_class)->finalize (object);
}

static void
anot_lwt_script_get_property (GObject    *object,
                              guint       prop_id,
                              GValue     *value,
                              GParamSpec *pspec)
{
  AnotLwtScript *self = ANOT_LWT_SCRIPT (object);

  switch (prop_id)
    {
    case PROP_N_STEPS:
      g_value_set_uint (value, anot_lwt_script_get_n_steps (self));
      break;
    case PROP_N_LAYERS:
      g_value_set_uint (value, anot_lwt_script_get_n_layers (self));
      break;
    case PROP_HAS_CYCLE:
      g_value_set_boolean (value, anot_lwt_script_has_cycle (self));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
anot_lwt_script_class_init (AnotLwtScriptClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = anot_lwt_script_finalize;
  object_class->get_property = anot_lwt_script_get_property;

  /**
   * AnotLwtScript:n-steps:
   *
   * The number of steps.
   */
  properties[PROP_N_STEPS] =
    g_param_spec_uint ("n-steps", NULL, NULL, 0, G_MAXUINT, 0,
                       G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);

  /**
   * AnotLwtScript:n-layers:
   *
   * The number of layers: the longest chain of dependent steps (plus one
   * layer for steps caught in a cycle).
   */
  properties[PROP_N_LAYERS] =
    g_param_spec_uint ("n-layers", NULL, NULL, 0, G_MAXUINT, 0,
                       G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);

  /**
   * AnotLwtScript:has-cycle:
   *
   * Whether some steps depend on each other in a cycle.
   */
  properties[PROP_HAS_CYCLE] =
    g_param_spec_boolean ("has-cycle", NULL, NULL, FALSE,
                          G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);

  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
anot_lwt_script_init (AnotLwtScript *self)
{
  self->steps = g_ptr_array_new_with_free_func (g_object_unref);
  self->by_id = g_hash_table_new (g_str_hash, g_str_equal);
  self->warnings = g_ptr_array_new_with_free_func (g_free);
}

/**
 * anot_lwt_is_reserved_name:
 * @name: a name
 *
 * Whether @name is one of the names an executor binds to its variables
 * rather than to a step: `query`, `input`, `items`, `context`, `c` and
 * `candidates`.  References to them are never dependencies.
 *
 * Returns: %TRUE if @name is reserved
 */
gboolean
anot_lwt_is_reserved_name (const char *name)
{
  g_return_val_if_fail (name != NULL, FALSE);

  for (guint i = 0; i < G_N_ELEMENTS (reserved_names); i++)
    if (strcmp (name, reserved_names[i]) == 0)
      return TRUE;
  return FALSE;
}

/**
 * anot_lwt_script_new:
 *
 * Creates an empty script, to fill with anot_lwt_script_add_step().
 *
 * Returns: (transfer full): a new script
 */
AnotLwtScript *
anot_lwt_script_new (void)
{
  return g_object_new (ANOT_TYPE_LWT_SCRIPT, NULL);
}

static void
invalidate (AnotLwtScript *self)
{
  self->analysed = FALSE;
  g_clear_pointer (&self->layers, g_ptr_array_unref);
  g_clear_pointer (&self->layer_of, g_hash_table_unref);
  self->has_cycle = FALSE;
}

static gboolean
is_id_char (char c)
{
  return g_ascii_isalnum (c) || c == '_' || c == '.';
}

static gboolean
is_valid_id (const char *id)
{
  if (id[0] == '\0')
    return FALSE;
  for (const char *p = id; *p != '\0'; p++)
    if (!is_id_char (*p))
      return FALSE;
  return TRUE;
}

/* ------------------------------------------------------------------------ *
 * Analysis: references, dependencies, layers
 * ------------------------------------------------------------------------ */

static void
analyse (AnotLwtScript *self)
{
  g_autoptr(GHashTable) placed = NULL;
  GPtrArray *remaining;

  if (self->analysed)
    return;

  /* Which bare {name} are references, and every step's dependencies. */
  for (guint i = 0; i < self->steps->len; i++)
    {
      AnotLwtStep *step = g_ptr_array_index (self->steps, i);
      GArray *segments = _anot_lwt_step_get_segments (step);
      g_autoptr(GPtrArray) deps = g_ptr_array_new ();
      g_autoptr(GHashTable) seen = NULL;

      for (guint s = 0; s < segments->len; s++)
        {
          AnotLwtSegment *segment = &g_array_index (segments, AnotLwtSegment, s);
          gboolean reserved, is_step;

          if (segment->kind != ANOT_LWT_SEGMENT_REFERENCE)
            continue;

          reserved = anot_lwt_is_reserved_name (segment->name);
          is_step = g_hash_table_contains (self->by_id, segment->name);
          segment->resolved = reserved || is_step;

          if (reserved || !is_step || strcmp (segment->name, anot_lwt_step_get_id (step)) == 0)
            continue;
          /* An aggregation step may read thousands of steps. */
          if (seen == NULL)
            seen = g_hash_table_new (g_str_hash, g_str_equal);
          if (g_hash_table_add (seen, segment->name))
            g_ptr_array_add (deps, segment->name);
        }
      _anot_lwt_step_set_dependencies (step, deps);
    }

  self->layers = g_ptr_array_new_with_free_func ((GDestroyNotify) g_ptr_array_unref);
  self->layer_of = g_hash_table_new (g_str_hash, g_str_equal);
  placed = g_hash_table_new (g_str_hash, g_str_equal);
  remaining = g_ptr_array_new ();
  for (guint i = 0; i < self->steps->len; i++)
    g_ptr_array_add (remaining, g_ptr_array_index (self->steps, i));

  while (remaining->len > 0)
    {
      GPtrArray *layer = g_ptr_array_new ();
      GPtrArray *next = g_ptr_array_new ();

      for (guint i = 0; i < remaining->len; i++)
        {
          AnotLwtStep *step = g_ptr_array_index (remaining, i);
          const char * const *deps = anot_lwt_step_get_dependencies (step);
          gboolean ready = TRUE;

          for (guint d = 0; deps[d] != NULL && ready; d++)
            ready = g_hash_table_contains (placed, deps[d]);
          g_ptr_array_add (ready ? layer : next, step);
        }

      if (layer->len == 0)
        {
          /* A cycle: everything left runs as one last layer. */
          self->has_cycle = TRUE;
          g_ptr_array_extend_and_steal (layer, g_steal_pointer (&next));
          next = g_ptr_array_new ();
        }

      for (guint i = 0; i < layer->len; i++)
        {
          const char *id = anot_lwt_step_get_id (g_ptr_array_index (layer, i));

          g_hash_table_add (placed, (gpointer) id);
          g_hash_table_insert (self->layer_of, (gpointer) id,
                               GUINT_TO_POINTER (self->layers->len + 1));
        }
      g_ptr_array_add (self->layers, layer);
      g_ptr_array_unref (remaining);
      remaining = next;
    }
  g_ptr_array_unref (remaining);

  self->analysed = TRUE;
}

static char *
describe_position (AnotLwtStep *step)
{
  if (anot_lwt_step_get_line (step) == 0)
    return g_strdup_printf ("step “%s”", anot_lwt_step_get_id (step));
  return g_strdup_printf ("line %u, column %u: step “%s”", anot_lwt_step_get_line (step),
                          anot_lwt_step_get_column (step), anot_lwt_step_get_id (step));
}

/* One cycle among the steps of the last layer, as "a → b → a". */
static char *
find_cycle (AnotLwtScript *self)
{
  GPtrArray *last = g_ptr_array_index (self->layers, self->layers->len - 1);
  g_autoptr(GHashTable) in_last = g_hash_table_new (g_str_hash, g_str_equal);
  g_autoptr(GPtrArray) path = g_ptr_array_new ();
  AnotLwtStep *step;
  GString *out;

  for (guint i = 0; i < last->len; i++)
    g_hash_table_add (in_last, (gpointer) anot_lwt_step_get_id (g_ptr_array_index (last, i)));

  /* Every step of the last layer has a dependency in it; walking them must
   * come back to a step already on the path. */
  step = g_ptr_array_index (last, 0);
  for (;;)
    {
      const char * const *deps = anot_lwt_step_get_dependencies (step);
      const char *next_id = NULL;
      guint found = G_MAXUINT;

      for (guint i = 0; i < path->len && found == G_MAXUINT; i++)
        if (g_ptr_array_index (path, i) == step)
          found = i;
      if (found != G_MAXUINT)
        {
          out = g_string_new (NULL);
          for (guint i = found; i < path->len; i++)
            g_string_append_printf (out, "%s → ", anot_lwt_step_get_id (g_ptr_array_index (path, i)));
          g_string_append (out, anot_lwt_step_get_id (step));
          return g_string_free (out, FALSE);
        }
      g_ptr_array_add (path, step);

      for (guint d = 0; deps[d] != NULL && next_id == NULL; d++)
        if (g_hash_table_contains (in_last, deps[d]))
          next_id = deps[d];
      if (next_id == NULL)
        break;
      step = g_hash_table_lookup (self->by_id, next_id);
    }

  return g_strdup (anot_lwt_step_get_id (g_ptr_array_index (last, 0)));
}

/**
 * anot_lwt_script_validate:
 * @self: an #AnotLwtScript
 * @error: return location for a #GError
 *
 * Checks what the strict parser requires of a whole script: at least one
 * step; no step named after a reserved name; every `{(name)}` names a step
 * or a reserved name (%ANOT_ERROR_UNKNOWN_REFERENCE); no step refers to
 * itself; no cycle (%ANOT_ERROR_INVALID_ARGUMENT, naming one cycle).
 *
 * Returns: %TRUE if the script is valid
 */
gboolean
anot_lwt_script_validate (AnotLwtScript  *self,
                          GError        **error)
{
  g_return_val_if_fail (ANOT_IS_LWT_SCRIPT (self), FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if (self->steps->len == 0)
    {
      g_set_error (error, ANOT_ERROR, ANOT_ERROR_PARSE, "The script has no steps");
      return FALSE;
    }

  analyse (self);

  for (guint i = 0; i < self->steps->len; i++)
    {
      AnotLwtStep *step = g_ptr_array_index (self->steps, i);
      GArray *segments = _anot_lwt_step_get_segments (step);
      g_autofree char *where = describe_position (step);

      if (anot_lwt_is_reserved_name (anot_lwt_step_get_id (step)))
        {
          g_set_error (error, ANOT_ERROR, ANOT_ERROR_INVALID_ARGUMENT,
                       "%s: “%s” is a reserved name and cannot be a step id", where,
                       anot_lwt_step_get_id (step));
          return FALSE;
        }

      for (guint s = 0; s < segments->len; s++)
        {
          AnotLwtSegment *segment = &g_array_index (segments, AnotLwtSegment, s);

          if (segment->kind != ANOT_LWT_SEGMENT_REFERENCE)
            continue;
          if (segment->paren && !segment->resolved)
            {
              g_set_error (error, ANOT_ERROR, ANOT_ERROR_UNKNOWN_REFERENCE,
                           "%s refers to “%s”, which is neither a step nor a reserved "
                           "name (query, input, items, context, c, candidates)",
                           where, segment->name);
              return FALSE;
            }
          if (segment->resolved && strcmp (segment->name, anot_lwt_step_get_id (step)) == 0)
            {
              g_set_error (error, ANOT_ERROR, ANOT_ERROR_INVALID_ARGUMENT,
                           "%s refers to itself", where);
              return FALSE;
            }
        }
    }

  if (self->has_cycle)
    {
      g_autofree char *cycle = find_cycle (self);

      g_set_error (error, ANOT_ERROR, ANOT_ERROR_INVALID_ARGUMENT,
                   "The steps depend on each other in a cycle: %s", cycle);
      return FALSE;
    }

  return TRUE;
}

/* ------------------------------------------------------------------------ *
 * Parsing
 * ------------------------------------------------------------------------ */

typedef struct {
  const char *text;
  const char *p;
  const char *line_start;
  guint       line;
} Scanner;

typedef struct {
  guint line;
  guint column;
} Position;

static Position
position_of (Scanner    *s,
             const char *where)
{
  Position position = { s->line, 1 };
  const char *line_start = s->line_start;
  guint line = s->line;

  /* @where may be past newlines s->line_start does not know of yet. */
  for (const char *p = s->line_start; p < where; p++)
    if (*p == '\n')
      {
        line++;
        line_start = p + 1;
      }
  position.line = line;
  position.column = (guint) g_utf8_strlen (line_start, where - line_start) + 1;
  return position;
}

G_GNUC_PRINTF (5, 6)
static void
set_error_at (GError     **error,
              Scanner     *s,
              const char  *where,
              gint         code,
              const char  *format,
              ...)
{
  g_autofree char *message = NULL;
  Position position = position_of (s, where);
  va_list args;

  va_start (args, format);
  message = g_strdup_vprintf (format, args);
  va_end (args);

  g_set_error (error, ANOT_ERROR, code, "line %u, column %u: %s",
               position.line, position.column, message);
}

static void
advance_to (Scanner    *s,
            const char *where)
{
  for (; s->p < where; s->p++)
    if (*s->p == '\n')
      {
        s->line++;
        s->line_start = s->p + 1;
      }
}

static const char *
skip_blanks (const char *p)
{
  while (*p == ' ' || *p == '\t' || *p == '\r')
    p++;
  return p;
}

static const char *
skip_whitespace (const char *p)
{
  while (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n')
    p++;
  return p;
}

/* Whether a step starts at @p: `(id)` `=` `LLM` `(`. */
static gboolean
looks_like_step (const char *p)
{
  p = skip_blanks (p);
  if (*p != '(')
    return FALSE;
  p = skip_blanks (p + 1);
  if (!is_id_char (*p))
    return FALSE;
  while (is_id_char (*p))
    p++;
  p = skip_blanks (p);
  if (*p != ')')
    return FALSE;
  p = skip_blanks (p + 1);
  if (*p != '=')
    return FALSE;
  p = skip_blanks (p + 1);
  if (strncmp (p, "LLM", 3) != 0)
    return FALSE;
  p = skip_blanks (p + 3);
  return *p == '(';
}

/* The string literal at @open (on the quote).  Returns the unescaped text
 * and sets *out_end after the closing quote. */
static char *
parse_string (Scanner     *s,
              const char  *open,
              const char **out_end,
              GError     **error)
{
  char quote = *open;
  gboolean triple = open[1] == quote && open[2] == quote;
  const char *p = open + (triple ? 3 : 1);
  g_autoptr(GString) text = g_string_new (NULL);

  for (;;)
    {
      char c = *p;

      if (c == '\0')
        {
          set_error_at (error, s, open, ANOT_ERROR_PARSE,
                        "unterminated string (no closing %s%s)",
                        triple ? (quote == '"' ? "\"\"\"" : "'''") : (quote == '"' ? "\"" : "'"),
                        triple ? "" : " followed by “)”");
          return NULL;
        }

      if (c == '\\' && p[1] != '\0')
        {
          char e = p[1];

          switch (e)
            {
            case 'n': g_string_append_c (text, '\n'); break;
            case 't': g_string_append_c (text, '\t'); break;
            case 'r': g_string_append_c (text, '\r'); break;
            case '\\':
            case '"':
            case '\'':
              g_string_append_c (text, e);
              break;
            case '\n':
              /* A line continuation, as in Python. */
              break;
            default:
              g_string_append_c (text, '\\');
              g_string_append_c (text, e);
            }
          p += 2;
          continue;
        }

      if (c == quote)
        {
          if (triple)
            {
              if (p[1] == quote && p[2] == quote)
                {
                  *out_end = p + 3;
                  return g_string_free (g_steal_pointer (&text), FALSE);
                }
            }
          else if (*skip_whitespace (p + 1) == ')')
            {
              *out_end = p + 1;
              return g_string_free (g_steal_pointer (&text), FALSE);
            }
        }

      /* A string that runs into the next step was not closed. */
      if (c == '\n' && !triple && looks_like_step (p + 1))
        {
          set_error_at (error, s, open, ANOT_ERROR_PARSE,
                        "unterminated string (the next line starts a new step)");
          return NULL;
        }

      g_string_append_c (text, c);
      p++;
    }
}

/* Parses a step at @start (on the `(`).  On success *out_end is after the
 * closing `)` of LLM(...). */
static AnotLwtStep *
parse_step (Scanner     *s,
            const char  *start,
            const char **out_end,
            GError     **error)
{
  const char *p = skip_blanks (start + 1);
  const char *id_start = p;
  const char *open;
  g_autofree char *id = NULL;
  g_autofree char *instruction = NULL;
  Position position = position_of (s, start);

  while (is_id_char (*p))
    p++;
  if (p == id_start)
    {
      set_error_at (error, s, p, ANOT_ERROR_PARSE,
                    "expected a step id (letters, digits, “_” or “.”) after “(”");
      return NULL;
    }
  id = g_strndup (id_start, p - id_start);

  p = skip_blanks (p);
  if (*p != ')')
    {
      set_error_at (error, s, p, ANOT_ERROR_PARSE, "expected “)” after the step id “%s”", id);
      return NULL;
    }
  p = skip_blanks (p + 1);
  if (*p != '=')
    {
      set_error_at (error, s, p, ANOT_ERROR_PARSE, "expected “=” after “(%s)”", id);
      return NULL;
    }
  p = skip_blanks (p + 1);
  if (strncmp (p, "LLM", 3) != 0)
    {
      set_error_at (error, s, p, ANOT_ERROR_PARSE, "expected “LLM(” after “(%s)=”", id);
      return NULL;
    }
  p = skip_blanks (p + 3);
  if (*p != '(')
    {
      set_error_at (error, s, p, ANOT_ERROR_PARSE, "expected “(” after “LLM”");
      return NULL;
    }
  p = skip_whitespace (p + 1);
  if (*p != '"' && *p != '\'')
    {
      if (*p == ')')
        set_error_at (error, s, p, ANOT_ERROR_PARSE, "empty LLM(): expected a quoted instruction");
      else
        set_error_at (error, s, p, ANOT_ERROR_PARSE,
                      "expected a quoted instruction after “LLM(”");
      return NULL;
    }
  open = p;
  instruction = parse_string (s, open, &p, error);
  if (instruction == NULL)
    return NULL;

  p = skip_whitespace (p);
  if (*p != ')')
    {
      /* Only tripled quotes can get here: a plain string ends before ")". */
      set_error_at (error, s, p, ANOT_ERROR_PARSE, "expected “)” after the instruction");
      return NULL;
    }

  *out_end = p + 1;
  return _anot_lwt_step_new (id, instruction, position.line, position.column);
}

static const char *
end_of_line (const char *p)
{
  while (*p != '\0' && *p != '\n')
    p++;
  return p;
}

static gboolean
add_parsed_step (AnotLwtScript      *self,
                 Scanner            *s,
                 AnotLwtStep        *step,
                 const char         *start,
                 AnotLwtParseFlags   flags,
                 GError            **error)
{
  AnotLwtStep *existing = g_hash_table_lookup (self->by_id, anot_lwt_step_get_id (step));

  if (existing == NULL)
    {
      g_ptr_array_add (self->steps, g_object_ref (step));
      g_hash_table_insert (self->by_id, (gpointer) anot_lwt_step_get_id (step), step);
      return TRUE;
    }

  if (!(flags & ANOT_LWT_PARSE_FLAGS_LENIENT))
    {
      set_error_at (error, s, start, ANOT_ERROR_DUPLICATE_ID,
                    "duplicate step id “%s” (first defined on line %u)",
                    anot_lwt_step_get_id (step), anot_lwt_step_get_line (existing));
      return FALSE;
    }

  /* The later definition wins, in the earlier one's place. */
  for (guint i = 0; i < self->steps->len; i++)
    if (g_ptr_array_index (self->steps, i) == existing)
      {
        g_ptr_array_index (self->steps, i) = g_object_ref (step);
        /* replace, not insert: the old key belongs to the old step. */
        g_hash_table_replace (self->by_id, (gpointer) anot_lwt_step_get_id (step), step);
        g_ptr_array_add (self->warnings,
                         g_strdup_printf ("line %u: step “%s” replaces the one on line %u",
                                          anot_lwt_step_get_line (step),
                                          anot_lwt_step_get_id (step),
                                          anot_lwt_step_get_line (existing)));
        g_object_unref (existing);
        break;
      }
  return TRUE;
}

static gboolean
parse_strict (AnotLwtScript  *self,
              Scanner        *s,
              GError        **error)
{
  while (*s->p != '\0')
    {
      const char *p = skip_blanks (s->p);
      const char *end = NULL;
      g_autoptr(AnotLwtStep) step = NULL;

      if (*p == '\n')
        {
          advance_to (s, p + 1);
          continue;
        }
      if (*p == '\0')
        break;
      if (*p == '#' || (p[0] == '/' && p[1] == '/'))
        {
          advance_to (s, end_of_line (p));
          continue;
        }
      if (*p != '(')
        {
          set_error_at (error, s, p, ANOT_ERROR_PARSE,
                        "expected a step such as (0)=LLM(\"...\")");
          return FALSE;
        }

      step = parse_step (s, p, &end, error);
      if (step == NULL || !add_parsed_step (self, s, step, p, ANOT_LWT_PARSE_FLAGS_NONE, error))
        return FALSE;

      end = skip_blanks (end);
      if (*end == '#' || (end[0] == '/' && end[1] == '/'))
        end = end_of_line (end);
      if (*end != '\0' && *end != '\n')
        {
          set_error_at (error, s, end, ANOT_ERROR_PARSE,
                        "unexpected text after the step; one step per line");
          return FALSE;
        }
      advance_to (s, end);
    }

  return TRUE;
}

static void
parse_lenient (AnotLwtScript *self,
               Scanner       *s)
{
  while (*s->p != '\0')
    {
      const char *eol = end_of_line (s->p);
      const char *p = s->p;
      const char *first_error_at = NULL;
      g_autoptr(GError) first_error = NULL;
      gboolean found = FALSE;

      /* The first position on the line where a step parses. */
      for (; p < eol; p++)
        {
          const char *end = NULL;
          g_autoptr(GError) local_error = NULL;
          g_autoptr(AnotLwtStep) step = NULL;

          if (*p != '(' || !looks_like_step (p))
            continue;

          step = parse_step (s, p, &end, &local_error);
          if (step == NULL)
            {
              if (first_error == NULL)
                {
                  first_error = g_steal_pointer (&local_error);
                  first_error_at = p;
                }
              continue;
            }

          add_parsed_step (self, s, step, p, ANOT_LWT_PARSE_FLAGS_LENIENT, NULL);
          found = TRUE;
          /* Text after a step on its line is ignored, as in the original. */
          advance_to (s, end_of_line (end));
          break;
        }

      if (!found)
        {
          if (first_error != NULL)
            g_ptr_array_add (self->warnings, g_strdup_printf ("skipped %s", first_error->message));
          else if (strstr (s->p, "LLM") != NULL &&
                   (const char *) strstr (s->p, "LLM") < eol)
            {
              Position position = position_of (s, s->p);

              g_ptr_array_add (self->warnings,
                               g_strdup_printf ("skipped line %u: no step (id)=LLM(\"...\") on it",
                                                position.line));
            }
          (void) first_error_at;
          advance_to (s, eol);
        }

      if (*s->p == '\n')
        advance_to (s, s->p + 1);
    }
}

/**
 * anot_lwt_script_parse:
 * @text: the script
 * @flags: how strict to be
 * @error: return location for a #GError
 *
 * Parses a script.  Strict parsing (%ANOT_LWT_PARSE_FLAGS_NONE) rejects
 * anything but steps, blank lines and comments, then validates the
 * script (anot_lwt_script_validate()).  Lenient parsing reads model
 * output as the original framework did and fails only when it finds no
 * step at all.  Errors say where: `line 3, column 12: unterminated
 * string (...)`.
 *
 * Returns: (transfer full): the script, or %NULL with @error set
 */
AnotLwtScript *
anot_lwt_script_parse (const char         *text,
                       AnotLwtParseFlags   flags,
                       GError            **error)
{
  g_autoptr(AnotLwtScript) self = NULL;
  const char *invalid = NULL;
  Scanner s;

  g_return_val_if_fail (text != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (!g_utf8_validate (text, -1, &invalid))
    {
      s.text = text;
      s.p = text;
      s.line_start = text;
      s.line = 1;
      set_error_at (error, &s, invalid, ANOT_ERROR_PARSE, "not UTF-8 (byte %u)",
                    (guint) (invalid - text));
      return NULL;
    }

  self = anot_lwt_script_new ();
  s.text = text;
  s.p = text;
  s.line_start = text;
  s.line = 1;

  if (flags & ANOT_LWT_PARSE_FLAGS_LENIENT)
    {
      parse_lenient (self, &s);
      if (self->steps->len == 0)
        {
          g_set_error (error, ANOT_ERROR, ANOT_ERROR_PARSE,
                       "No step (id)=LLM(\"...\") found%s%s",
                       self->warnings->len > 0 ? ": " : "",
                       self->warnings->len > 0 ? (char *) g_ptr_array_index (self->warnings, 0) : "");
          return NULL;
        }
      return g_steal_pointer (&self);
    }

  if (!parse_strict (self, &s, error) || !anot_lwt_script_validate (self, error))
    return NULL;

  return g_steal_pointer (&self);
}

/**
 * anot_lwt_script_add_step:
 * @self: an #AnotLwtScript
 * @id: the step's id: ASCII letters, digits, `_` and `.`
 * @instruction: the instruction template (not a string literal: no quotes,
 *   no escapes)
 * @error: return location for a #GError
 *
 * Appends a step, as a method does when it builds a script itself.  Fails
 * if @id is not a valid id (%ANOT_ERROR_INVALID_ARGUMENT) or already used
 * (%ANOT_ERROR_DUPLICATE_ID).  References are checked by
 * anot_lwt_script_validate(), since they may name steps added later.
 *
 * Returns: (transfer none) (nullable): the new step, or %NULL with @error set
 */
AnotLwtStep *
anot_lwt_script_add_step (AnotLwtScript  *self,
                          const char     *id,
                          const char     *instruction,
                          GError        **error)
{
  AnotLwtStep *step;

  g_return_val_if_fail (ANOT_IS_LWT_SCRIPT (self), NULL);
  g_return_val_if_fail (id != NULL, NULL);
  g_return_val_if_fail (instruction != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (!is_valid_id (id))
    {
      g_set_error (error, ANOT_ERROR, ANOT_ERROR_INVALID_ARGUMENT,
                   "“%s” is not a step id: use ASCII letters, digits, “_” and “.”", id);
      return NULL;
    }
  if (g_hash_table_contains (self->by_id, id))
    {
      g_set_error (error, ANOT_ERROR, ANOT_ERROR_DUPLICATE_ID,
                   "The script already has a step “%s”", id);
      return NULL;
    }
  if (!g_utf8_validate (instruction, -1, NULL))
    {
      g_set_error (error, ANOT_ERROR, ANOT_ERROR_INVALID_ARGUMENT,
                   "The instruction of step “%s” is not UTF-8", id);
      return NULL;
    }

  step = _anot_lwt_step_new (id, instruction, 0, 0);
  g_ptr_array_add (self->steps, step);
  g_hash_table_insert (self->by_id, (gpointer) anot_lwt_step_get_id (step), step);
  invalidate (self);

  return step;
}

/**
 * anot_lwt_script_get_n_steps:
 * @self: an #AnotLwtScript
 *
 * Returns: the number of steps
 */
guint
anot_lwt_script_get_n_steps (AnotLwtScript *self)
{
  g_return_val_if_fail (ANOT_IS_LWT_SCRIPT (self), 0);
  return self->steps->len;
}

/**
 * anot_lwt_script_get_step:
 * @self: an #AnotLwtScript
 * @position: a position, less than anot_lwt_script_get_n_steps()
 *
 * Returns: (transfer none): the step at @position, in script order
 */
AnotLwtStep *
anot_lwt_script_get_step (AnotLwtScript *self,
                          guint          position)
{
  g_return_val_if_fail (ANOT_IS_LWT_SCRIPT (self), NULL);
  g_return_val_if_fail (position < self->steps->len, NULL);

  analyse (self);
  return g_ptr_array_index (self->steps, position);
}

/**
 * anot_lwt_script_lookup_step:
 * @self: an #AnotLwtScript
 * @id: a step id
 *
 * Returns: (transfer none) (nullable): the step with @id, if any
 */
AnotLwtStep *
anot_lwt_script_lookup_step (AnotLwtScript *self,
                             const char    *id)
{
  g_return_val_if_fail (ANOT_IS_LWT_SCRIPT (self), NULL);
  g_return_val_if_fail (id != NULL, NULL);

  analyse (self);
  return g_hash_table_lookup (self->by_id, id);
}

/**
 * anot_lwt_script_get_n_layers:
 * @self: an #AnotLwtScript
 *
 * Returns: the number of layers
 */
guint
anot_lwt_script_get_n_layers (AnotLwtScript *self)
{
  g_return_val_if_fail (ANOT_IS_LWT_SCRIPT (self), 0);

  analyse (self);
  return self->layers->len;
}

/**
 * anot_lwt_script_list_layer:
 * @self: an #AnotLwtScript
 * @layer: a layer, less than anot_lwt_script_get_n_layers()
 *
 * Returns: (transfer full) (array zero-terminated=1): the ids of the steps
 *   of @layer, in script order
 */
char **
anot_lwt_script_list_layer (AnotLwtScript *self,
                            guint          layer)
{
  GPtrArray *steps;
  char **ids;

  g_return_val_if_fail (ANOT_IS_LWT_SCRIPT (self), NULL);

  analyse (self);
  g_return_val_if_fail (layer < self->layers->len, NULL);

  steps = g_ptr_array_index (self->layers, layer);
  ids = g_new0 (char *, steps->len + 1);
  for (guint i = 0; i < steps->len; i++)
    ids[i] = g_strdup (anot_lwt_step_get_id (g_ptr_array_index (steps, i)));
  return ids;
}

/**
 * anot_lwt_script_get_step_layer:
 * @self: an #AnotLwtScript
 * @id: a step id
 *
 * Returns: the layer of the step @id, or -1 if there is no such step
 */
int
anot_lwt_script_get_step_layer (AnotLwtScript *self,
                                const char    *id)
{
  gpointer value;

  g_return_val_if_fail (ANOT_IS_LWT_SCRIPT (self), -1);
  g_return_val_if_fail (id != NULL, -1);

  analyse (self);
  value = g_hash_table_lookup (self->layer_of, id);
  return value != NULL ? (int) GPOINTER_TO_UINT (value) - 1 : -1;
}

/**
 * anot_lwt_script_has_cycle:
 * @self: an #AnotLwtScript
 *
 * Returns: whether some steps depend on each other in a cycle
 */
gboolean
anot_lwt_script_has_cycle (AnotLwtScript *self)
{
  g_return_val_if_fail (ANOT_IS_LWT_SCRIPT (self), FALSE);

  analyse (self);
  return self->has_cycle;
}

/**
 * anot_lwt_script_get_output_step:
 * @self: an #AnotLwtScript
 *
 * Gets the step whose output is the script's output: the last step of
 * the last layer.
 *
 * Returns: (transfer none) (nullable): the step, or %NULL for an empty
 *   script
 */
AnotLwtStep *
anot_lwt_script_get_output_step (AnotLwtScript *self)
{
  GPtrArray *last;

  g_return_val_if_fail (ANOT_IS_LWT_SCRIPT (self), NULL);

  analyse (self);
  if (self->layers->len == 0)
    return NULL;
  last = g_ptr_array_index (self->layers, self->layers->len - 1);
  return g_ptr_array_index (last, last->len - 1);
}

/**
 * anot_lwt_script_get_warnings:
 * @self: an #AnotLwtScript
 *
 * Gets what lenient parsing skipped or replaced, one message each with
 * its line.
 *
 * Returns: (transfer none) (array zero-terminated=1): the messages
 */
const char * const *
anot_lwt_script_get_warnings (AnotLwtScript *self)
{
  g_return_val_if_fail (ANOT_IS_LWT_SCRIPT (self), NULL);

  /* Keep the array NULL-terminated without exposing the terminator in len. */
  g_ptr_array_add (self->warnings, NULL);
  g_ptr_array_set_size (self->warnings, self->warnings->len - 1);
  return (const char * const *) self->warnings->pdata;
}

/**
 * anot_lwt_script_to_string:
 * @self: an #AnotLwtScript
 *
 * Writes the script, one step a line (see anot_lwt_step_to_string()).
 *
 * Returns: (transfer full): the script's text
 */
char *
anot_lwt_script_to_string (AnotLwtScript *self)
{
  GString *out;

  g_return_val_if_fail (ANOT_IS_LWT_SCRIPT (self), NULL);

  out = g_string_new (NULL);
  for (guint i = 0; i < self->steps->len; i++)
    {
      g_autofree char *line = anot_lwt_step_to_string (g_ptr_array_index (self->steps, i));

      if (i > 0)
        g_string_append_c (out, '\n');
      g_string_append (out, line);
    }
  return g_string_free (out, FALSE);
}
