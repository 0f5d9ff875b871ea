/* anot-lwt-step.c: one step of an LWT script and its instruction template
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "anot-lwt-step.h"

#include <string.h>

#include "anot-data-context.h"
#include "anot-lwt-private.h"

/**
 * AnotLwtStep:
 *
 * One step `(id)=LLM("instruction")` of an [class@Anot.LwtScript].
 *
 * The instruction is a template.  References to the outputs of other
 * steps, and to the variables an executor binds (`query`, `context`,
 * `items`, `input`, `c`, `candidates`), are written
 *
 * - `{(name)}` — always a reference; an unknown name reads as the empty
 *   string, as in the original framework;
 * - `{name}` — a reference if `name` is the id of a step of the script or
 *   a reserved name, literal text otherwise (so `{score}` in prose stays
 *   as written);
 *
 * where a name is made of ASCII letters, digits, `_` and `.`.  Accessors
 * may follow the closing brace: `{(context)}[3][attributes][WiFi]`,
 * `{(r1)}[0]`, `{(context)}[3][reviews][0][text][0:200]`.  A key reads a
 * member of an object; an integer an element of an array or a character
 * of a string (negative counts from the end); `a:b` slices a string or an
 * array as Python does.  A step output used with accessors is first read
 * as JSON, then as a Python literal (models answer `['a', 'b']`).  What
 * cannot be followed reads as the empty string.
 *
 * `{{` and `}}` are literal braces.  Any other brace is literal text.
 */

struct _AnotLwtStep
{
  GObject parent_instance;

  char      *id;
  char      *instruction;
  guint      line;
  guint      column;
  GArray    *segments;       /* AnotLwtSegment */
  GStrv      dependencies;
};

G_DEFINE_FINAL_TYPE (AnotLwtStep, anot_lwt_step, G_TYPE_OBJECT)

enum {
  PROP_0,
  PROP_ID,
  PROP_INSTRUCTION,
  PROP_LINE,
  PROP_COLUMN,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

static void
accessor_clear (gpointer data)
{
  AnotLwtAccessor *accessor = data;

  g_free (accessor->key);
}

static void
segment_clear (gpointer data)
{
  AnotLwtSegment *segment = data;

  g_free (segment->text);
  g_free (segment->name);
  g_clear_pointer (&segment->accessors, g_array_unref);
}

static void
anot_lwt_step_finalize (GObject *object)
{
  AnotLwtStep *self = ANOT_LWT_STEP (object);

  g_free (self->id);
  g_free (self->instruction);
  g_array_unref (self->segments);
  g_strfreev (self->dependencies);

  G_OBJECT_CLASS (anot_lwt_step_parent_class)->finalize (object);
}

static void
anot_lwt_step_get_property (GObject    *object,
                            guint       prop_id,
                            GValue     *value,
                            GParamSpec *pspec)
{
  AnotLwtStep *self = ANOT_LWT_STEP (object);

  switch (prop_id)
    {
    case PROP_ID:
      g_value_set_string (value, self->id);
      break;
    case PROP_INSTRUCTION:
      g_value_set_string (value, self->instruction);
      break;
    case PROP_LINE:
      g_value_set_uint (value, self->line);
      break;
    case PROP_COLUMN:
      g_value_set_uint (value, self->column);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
anot_lwt_step_class_init (AnotLwtStepClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = anot_lwt_step_finalize;
  object_class->get_property = anot_lwt_step_get_property;

  /**
   * AnotLwtStep:id:
   *
   * The step's id, e.g. `3`, `c1` or `final`.
   */
  properties[PROP_ID] =
    g_param_spec_string ("id", NULL, NULL, NULL,
                         G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);

  /**
   * AnotLwtStep:instruction:
   *
   * The instruction template, escapes of the string literal resolved,
   * references as written.
   */
  properties[PROP_INSTRUCTION] =
    g_param_spec_string ("instruction", NULL, NULL, NULL,
                         G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);

  /**
   * AnotLwtStep:line:
   *
   * The 1-based line of the step in its script; 0 for a step added with
   * anot_lwt_script_add_step().
   */
  properties[PROP_LINE] =
    g_param_spec_uint ("line", NULL, NULL, 0, G_MAXUINT, 0,
                       G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);

  /**
   * AnotLwtStep:column:
   *
   * The 1-based column (in characters) of the step's opening parenthesis;
   * 0 for a step added with anot_lwt_script_add_step().
   */
  properties[PROP_COLUMN] =
    g_param_spec_uint ("column", NULL, NULL, 0, G_MAXUINT, 0,
                       G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);

  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
anot_lwt_step_init (AnotLwtStep *self)
{
  self->segments = g_array_new (FALSE, TRUE, sizeof (AnotLwtSegment));
  g_array_set_clear_func (self->segments, segment_clear);
  self->dependencies = g_new0 (char *, 1);
}

/* ------------------------------------------------------------------------ *
 * Template parsing
 * ------------------------------------------------------------------------ */

static gboolean
is_name_char (char c)
{
  return g_ascii_isalnum (c) || c == '_' || c == '.';
}

static void
append_text (AnotLwtStep *self,
             GString     *pending,
             guint        offset)
{
  AnotLwtSegment segment = { 0 };

  if (pending->len == 0)
    return;
  segment.kind = ANOT_LWT_SEGMENT_TEXT;
  segment.text = g_strndup (pending->str, pending->len);
  segment.offset = offset;
  g_array_append_val (self->segments, segment);
  g_string_truncate (pending, 0);
}

static gboolean
parse_int (const char *start,
           const char *end,
           gint64     *out)
{
  g_autofree char *text = g_strndup (start, end - start);
  char *stop = NULL;

  if (text[0] == '\0')
    return FALSE;
  *out = g_ascii_strtoll (text, &stop, 10);
  return stop != NULL && *stop == '\0';
}

/* An accessor's text between the brackets: `a:b` is a slice (either side
 * optional, integers), anything else a key, quotes removed. */
static gboolean
parse_accessor (const char      *start,
                const char      *end,
                AnotLwtAccessor *out)
{
  const char *colon;

  while (start < end && g_ascii_isspace (*start))
    start++;
  while (end > start && g_ascii_isspace (end[-1]))
    end--;
  if (start == end)
    return FALSE;

  colon = memchr (start, ':', end - start);
  if (colon != NULL)
    {
      gboolean numeric = TRUE;

      for (const char *p = start; p < end; p++)
        if (p != colon && !g_ascii_isdigit (*p) && *p != '-' && *p != ' ')
          numeric = FALSE;
      if (numeric)
        {
          out->is_slice = TRUE;
          out->has_start = parse_int (start, colon, &out->start);
          out->has_end = parse_int (colon + 1, end, &out->end);
          /* "1:2:3" and "-:" are not slices. */
          if ((colon > start && !out->has_start) || (colon + 1 < end && !out->has_end))
            return FALSE;
          return TRUE;
        }
    }

  if (end - start >= 2 && (*start == '\'' || *start == '"') && end[-1] == *start)
    {
      start++;
      end--;
    }
  out->is_slice = FALSE;
  out->key = g_strndup (start, end - start);
  return TRUE;
}

/* Accessors right after a reference's closing brace. */
static GArray *
parse_accessors (const char **pp)
{
  const char *p = *pp;
  GArray *accessors = NULL;

  while (*p == '[')
    {
      const char *close = p + 1;
      AnotLwtAccessor accessor = { 0 };

      while (*close != '\0' && *close != ']' && *close != '[' && *close != '\n')
        close++;
      if (*close != ']' || !parse_accessor (p + 1, close, &accessor))
        break;

      if (accessors == NULL)
        {
          accessors = g_array_new (FALSE, TRUE, sizeof (AnotLwtAccessor));
          g_array_set_clear_func (accessors, accessor_clear);
        }
      g_array_append_val (accessors, accessor);
      p = close + 1;
    }

  *pp = p;
  return accessors;
}

static void
parse_template (AnotLwtStep *self)
{
  const char *text = self->instruction;
  const char *p = text;
  g_autoptr(GString) pending = g_string_new (NULL);
  guint pending_offset = 0;

  while (*p != '\0')
    {
      if (p[0] == '{' && p[1] == '{')
        {
          if (pending->len == 0)
            pending_offset = p - text;
          g_string_append_c (pending, '{');
          p += 2;
          continue;
        }
      if (p[0] == '}' && p[1] == '}')
        {
          if (pending->len == 0)
            pending_offset = p - text;
          g_string_append_c (pending, '}');
          p += 2;
          continue;
        }

      if (p[0] == '{')
        {
          gboolean paren = p[1] == '(';
          const char *name = p + (paren ? 2 : 1);
          const char *q = name;

          while (is_name_char (*q))
            q++;
          if (q > name &&
              ((paren && q[0] == ')' && q[1] == '}') || (!paren && q[0] == '}')))
            {
              AnotLwtSegment segment = { 0 };
              const char *after = q + (paren ? 2 : 1);

              append_text (self, pending, pending_offset);
              segment.kind = ANOT_LWT_SEGMENT_REFERENCE;
              segment.name = g_strndup (name, q - name);
              segment.paren = paren;
              segment.offset = p - text;
              segment.accessors = parse_accessors (&after);
              segment.text = g_strndup (p, after - p);
              g_array_append_val (self->segments, segment);
              p = after;
              continue;
            }
        }

      if (pending->len == 0)
        pending_offset = p - text;
      g_string_append_c (pending, *p);
      p++;
    }

  append_text (self, pending, pending_offset);
}

AnotLwtStep *
_anot_lwt_step_new (const char *id,
                    const char *instruction,
                    guint       line,
                    guint       column)
{
  AnotLwtStep *self = g_object_new (ANOT_TYPE_LWT_STEP, NULL);

  self->id = g_strdup (id);
  self->instruction = g_strdup (instruction);
  self->line = line;
  self->column = column;
  parse_template (self);

  return self;
}

GArray *
_anot_lwt_step_get_segments (AnotLwtStep *self)
{
  return self->segments;
}

void
_anot_lwt_step_set_dependencies (AnotLwtStep *self,
                                 GPtrArray   *dependencies)
{
  g_strfreev (self->dependencies);
  self->dependencies = g_new0 (char *, dependencies->len + 1);
  for (guint i = 0; i < dependencies->len; i++)
    self->dependencies[i] = g_strdup (g_ptr_array_index (dependencies, i));
}

/* ------------------------------------------------------------------------ *
 * Public API
 * ------------------------------------------------------------------------ */

/**
 * anot_lwt_step_get_id:
 * @self: an #AnotLwtStep
 *
 * Returns: the step's id
 */
const char *
anot_lwt_step_get_id (AnotLwtStep *self)
{
  g_return_val_if_fail (ANOT_IS_LWT_STEP (self), NULL);
  return self->id;
}

/**
 * anot_lwt_step_get_instruction:
 * @self: an #AnotLwtStep
 *
 * Returns: the instruction template
 */
const char *
anot_lwt_step_get_instruction (AnotLwtStep *self)
{
  g_return_val_if_fail (ANOT_IS_LWT_STEP (self), NULL);
  return self->instruction;
}

/**
 * anot_lwt_step_get_line:
 * @self: an #AnotLwtStep
 *
 * Returns: the 1-based line of the step in its script, or 0
 */
guint
anot_lwt_step_get_line (AnotLwtStep *self)
{
  g_return_val_if_fail (ANOT_IS_LWT_STEP (self), 0);
  return self->line;
}

/**
 * anot_lwt_step_get_column:
 * @self: an #AnotLwtStep
 *
 * Returns: the 1-based column of the step in its script, or 0
 */
guint
anot_lwt_step_get_column (AnotLwtStep *self)
{
  g_return_val_if_fail (ANOT_IS_LWT_STEP (self), 0);
  return self->column;
}

/**
 * anot_lwt_step_get_dependencies:
 * @self: an #AnotLwtStep
 *
 * Gets the ids of the steps of the script this step reads, in the order
 * of their first reference: references to step ids other than its own,
 * not to reserved names.  Empty until the step belongs to a script.
 *
 * Returns: (transfer none) (array zero-terminated=1): the step ids
 */
const char * const *
anot_lwt_step_get_dependencies (AnotLwtStep *self)
{
  g_return_val_if_fail (ANOT_IS_LWT_STEP (self), NULL);
  return (const char * const *) self->dependencies;
}

/**
 * anot_lwt_step_list_references:
 * @self: an #AnotLwtStep
 *
 * Lists every name the instruction refers to — `{(name)}` always, `{name}`
 * when it names a step of the script or a reserved name — once each, in
 * order of first appearance.
 *
 * Returns: (transfer full) (array zero-terminated=1): the names
 */
char **
anot_lwt_step_list_references (AnotLwtStep *self)
{
  g_autoptr(GPtrArray) names = g_ptr_array_new ();
  g_autoptr(GHashTable) seen = g_hash_table_new (g_str_hash, g_str_equal);

  g_return_val_if_fail (ANOT_IS_LWT_STEP (self), NULL);

  for (guint i = 0; i < self->segments->len; i++)
    {
      AnotLwtSegment *segment = &g_array_index (self->segments, AnotLwtSegment, i);

      if (segment->kind != ANOT_LWT_SEGMENT_REFERENCE || (!segment->paren && !segment->resolved))
        continue;
      if (g_hash_table_add (seen, segment->name))
        g_ptr_array_add (names, g_strdup (segment->name));
    }
  g_ptr_array_add (names, NULL);

  return (char **) g_ptr_array_free (g_steal_pointer (&names), FALSE);
}

char *
_anot_lwt_truncate_middle (const char *text,
                           guint       max_length)
{
  glong length;
  const char *head_end, *tail_start;
  GString *out;

  if (max_length == 0)
    return g_strdup (text);
  length = g_utf8_strlen (text, -1);
  if (length <= (glong) max_length)
    return g_strdup (text);

  head_end = g_utf8_offset_to_pointer (text, max_length / 2);
  tail_start = g_utf8_offset_to_pointer (text, length - max_length / 4);
  out = g_string_new_len (text, head_end - text);
  g_string_append (out, "\n...[TRUNCATED]...\n");
  g_string_append (out, tail_start);
  return g_string_free (out, FALSE);
}

/* A step output read through accessors: JSON first, then a Python literal. */
static JsonNode *
structured_value (const char *text)
{
  g_autoptr(JsonNode) node = NULL;
  g_autoptr(AnotPyValue) py = NULL;
  g_autofree char *stripped = g_strstrip (g_strdup (text));

  if (stripped[0] != '{' && stripped[0] != '[')
    return NULL;

  node = json_from_string (stripped, NULL);
  if (node != NULL)
    return g_steal_pointer (&node);

  py = anot_py_literal_parse (stripped, -1, NULL);
  if (py != NULL)
    return anot_py_value_to_json (py);
  return NULL;
}

/* Python's slice bounds for a sequence of @length. */
static void
slice_bounds (const AnotLwtAccessor *accessor,
              gint64                 length,
              gint64                *out_start,
              gint64                *out_end)
{
  gint64 start = accessor->has_start ? accessor->start : 0;
  gint64 end = accessor->has_end ? accessor->end : length;

  if (start < 0)
    start = MAX (0, length + start);
  if (end < 0)
    end = MAX (0, length + end);
  start = MIN (start, length);
  end = MIN (end, length);
  if (end < start)
    end = start;
  *out_start = start;
  *out_end = end;
}

static gboolean
accessor_index (const AnotLwtAccessor *accessor,
                gint64                 length,
                gint64                *out)
{
  char *end = NULL;
  gint64 index;

  if (accessor->is_slice || accessor->key[0] == '\0')
    return FALSE;
  index = g_ascii_strtoll (accessor->key, &end, 10);
  if (end == NULL || *end != '\0')
    return FALSE;
  if (index < 0)
    index += length;
  if (index < 0 || index >= length)
    return FALSE;
  *out = index;
  return TRUE;
}

/* Follows the accessors; NULL when the path cannot be followed. */
static JsonNode *
apply_accessors (JsonNode *value,
                 GArray   *accessors)
{
  g_autoptr(JsonNode) current = json_node_ref (value);

  for (guint i = 0; i < accessors->len; i++)
    {
      const AnotLwtAccessor *accessor = &g_array_index (accessors, AnotLwtAccessor, i);
      JsonNode *next = NULL;
      gint64 index;

      if (JSON_NODE_HOLDS_VALUE (current) && json_node_get_value_type (current) == G_TYPE_STRING)
        {
          const char *text = json_node_get_string (current);
          g_autoptr(JsonNode) parsed = structured_value (text);

          if (parsed != NULL)
            {
              json_node_unref (current);
              current = g_steal_pointer (&parsed);
            }
        }

      if (JSON_NODE_HOLDS_OBJECT (current))
        {
          if (!accessor->is_slice)
            {
              next = json_object_get_member (json_node_get_object (current), accessor->key);
              if (next != NULL)
                next = json_node_ref (next);
            }
        }
      else if (JSON_NODE_HOLDS_ARRAY (current))
        {
          JsonArray *array = json_node_get_array (current);
          gint64 length = json_array_get_length (array);

          if (accessor->is_slice)
            {
              gint64 start, end;
              JsonArray *slice = json_array_new ();

              slice_bounds (accessor, length, &start, &end);
              for (gint64 e = start; e < end; e++)
                json_array_add_element (slice, json_node_copy (json_array_get_element (array, e)));
              next = json_node_init_array (json_node_alloc (), slice);
              json_array_unref (slice);
            }
          else if (accessor_index (accessor, length, &index))
            next = json_node_ref (json_array_get_element (array, index));
        }
      else if (JSON_NODE_HOLDS_VALUE (current) && json_node_get_value_type (current) == G_TYPE_STRING)
        {
          const char *text = json_node_get_string (current);
          gint64 length = g_utf8_strlen (text, -1);

          if (accessor->is_slice)
            {
              gint64 start, end;
              const char *a, *b;
              g_autofree char *slice = NULL;

              slice_bounds (accessor, length, &start, &end);
              a = g_utf8_offset_to_pointer (text, start);
              b = g_utf8_offset_to_pointer (text, end);
              slice = g_strndup (a, b - a);
              next = json_node_init_string (json_node_alloc (), slice);
            }
          else if (accessor_index (accessor, length, &index))
            {
              const char *a = g_utf8_offset_to_pointer (text, index);
              const char *b = g_utf8_next_char (a);
              g_autofree char *character = g_strndup (a, b - a);

              next = json_node_init_string (json_node_alloc (), character);
            }
        }

      if (next == NULL)
        return NULL;
      json_node_unref (current);
      current = next;
    }

  return g_steal_pointer (&current);
}

/**
 * anot_lwt_step_render:
 * @self: an #AnotLwtStep
 * @values: (nullable): the values of names: step outputs (strings) and
 *   variables (any JSON)
 * @max_value_length: the longest value, in characters, substituted whole
 *   (longer ones keep their first half and last quarter around a
 *   `...[TRUNCATED]...` line); 0 for no limit
 *
 * Fills the instruction in: every reference is replaced by the value of
 * its name in @values, followed through its accessors.  A string is
 * substituted as is, another scalar as Python would print it (`True`,
 * `None`), an object or array as compact JSON.  A `{(name)}` without a
 * value, or whose accessors cannot be followed, reads as the empty
 * string; a bare `{name}` without a value and that names no step is kept
 * as written.
 *
 * Returns: (transfer full): the prompt
 */
char *
anot_lwt_step_render (AnotLwtStep *self,
                      JsonObject  *values,
                      guint        max_value_length)
{
  GString *out;

  g_return_val_if_fail (ANOT_IS_LWT_STEP (self), NULL);

  out = g_string_new (NULL);
  for (guint i = 0; i < self->segments->len; i++)
    {
      AnotLwtSegment *segment = &g_array_index (self->segments, AnotLwtSegment, i);
      JsonNode *value;
      g_autoptr(JsonNode) followed = NULL;
      g_autofree char *text = NULL;
      g_autofree char *cut = NULL;

      if (segment->kind == ANOT_LWT_SEGMENT_TEXT)
        {
          g_string_append (out, segment->text);
          continue;
        }

      value = values != NULL ? json_object_get_member (values, segment->name) : NULL;
      if (value == NULL)
        {
          if (!segment->paren && !segment->resolved)
            g_string_append (out, segment->text);
          continue;
        }

      if (segment->accessors != NULL)
        {
          followed = apply_accessors (value, segment->accessors);
          if (followed == NULL)
            continue;
          value = followed;
        }

      text = anot_json_value_to_text (value);
      cut = _anot_lwt_truncate_middle (text, max_value_length);
      g_string_append (out, cut);
    }

  return g_string_free (out, FALSE);
}

/**
 * anot_lwt_step_to_string:
 * @self: an #AnotLwtStep
 *
 * Writes the step as one script line, `(id)=LLM("instruction")`, with
 * `\"`, `\\` and `\n` escapes, so anot_lwt_script_parse() reads it back.
 *
 * Returns: (transfer full): the line
 */
char *
anot_lwt_step_to_string (AnotLwtStep *self)
{
  GString *out;

  g_return_val_if_fail (ANOT_IS_LWT_STEP (self), NULL);

  out = g_string_new (NULL);
  g_string_append_printf (out, "(%s)=LLM(\"", self->id);
  for (const char *p = self->instruction; *p != '\0'; p++)
    {
      switch (*p)
        {
        case '"': g_string_append (out, "\\\""); break;
        case '\\': g_string_append (out, "\\\\"); break;
        case '\n': g_string_append (out, "\\n"); break;
        case '\r': g_string_append (out, "\\r"); break;
        case '\t': g_string_append (out, "\\t"); break;
        default: g_string_append_c (out, *p);
        }
    }
  g_string_append (out, "\")");
  return g_string_free (out, FALSE);
}
