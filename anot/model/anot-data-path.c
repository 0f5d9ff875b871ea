/* anot-data-path.c: the path language of the data-exploration tools
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "anot-data-path.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "anot-data-path-private.h"
#include "anot-error.h"

/**
 * AnotDataPath:
 *
 * A parsed path into a JSON document, the argument of the data-exploration
 * tools (see [class@Anot.DataTool]).
 *
 * The language is small and forgiving, because models write it:
 *
 * - `items` — a key of the root object;
 * - `items.1.name`, `items[1].name`, `items["1"]["name"]`, `items[name]` —
 *   keys, dotted or in brackets, bare or quoted;
 * - `items[1].attributes["Good For Kids"]`, `items[1].'hours'` — quoted
 *   keys (single or double quotes, backslash escapes) for keys with
 *   spaces, dots or brackets;
 * - `reviews[0]`, `reviews[-1]` — array elements, counted from the end
 *   when negative;
 * - `items[*].attributes`, `items.*.name` — every member of an object or
 *   element of an array.
 *
 * A bare number selects an element of an array or the member of that name
 * of an object, so `items[1]` works whether `items` is a list or the
 * dictionary `{"1": ..., "2": ...}` of the dict context.  A quoted key is
 * always a member name.  A leading `$` (JSONPath's root) is accepted and
 * ignored; the empty path is the root itself.
 *
 * Resolving a path never modifies the document.  Below a wildcard, values
 * that lack the rest of the path are skipped; the path fails only if no
 * value matches.  Every failure is a [error@Anot.Error] whose message says
 * where the path went wrong and what was there instead, so a model can
 * correct itself.
 */

struct _AnotDataPath
{
  GObject parent_instance;

  char     *text;
  GArray   *segments;       /* AnotPathSegment */
  gboolean  has_wildcard;
};

G_DEFINE_FINAL_TYPE (AnotDataPath, anot_data_path, G_TYPE_OBJECT)

enum {
  PROP_0,
  PROP_TEXT,
  PROP_N_SEGMENTS,
  PROP_HAS_WILDCARD,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

/* How many keys an error message lists before "…". */
#define MAX_KEYS_IN_MESSAGE 24

static void
segment_clear (gpointer data)
{
  AnotPathSegment *segment = data;

  g_free (segment->key);
}

static void
anot_data_path_finalize (GObject *object)
{
  AnotDataPath *self = ANOT_DATA_PATH (object);

  g_free (self->text);
  g_array_unref (self->segments);

  G_OBJECT_CLASS (anot_data_path_parent_class)->finalize (object);
}

static void
anot_data_path_get_property (GObject    *object,
                             guint       prop_id,
                             GValue     *value,
                             GParamSpec *pspec)
{
  AnotDataPath *self = ANOT_DATA_PATH (object);

  switch (prop_id)
    {
    case PROP_TEXT:
      g_value_set_string (value, self->text);
      break;
    case PROP_N_SEGMENTS:
      g_value_set_uint (value, self->segments->len);
      break;
    case PROP_HAS_WILDCARD:
      g_value_set_boolean (value, self->has_wildcard);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
anot_data_path_class_init (AnotDataPathClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = anot_data_path_finalize;
  object_class->get_property = anot_data_path_get_property;

  /**
   * AnotDataPath:text:
   *
   * The path as it was written.
   */
  properties[PROP_TEXT] =
    g_param_spec_string ("text", NULL, NULL, NULL,
                         G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);

  /**
   * AnotDataPath:n-segments:
   *
   * The number of keys, indices and wildcards in the path.
   */
  properties[PROP_N_SEGMENTS] =
    g_param_spec_uint ("n-segments", NULL, NULL, 0, G_MAXUINT, 0,
                       G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);

  /**
   * AnotDataPath:has-wildcard:
   *
   * Whether the path contains `*`, so it may match several values.
   */
  properties[PROP_HAS_WILDCARD] =
    g_param_spec_boolean ("has-wildcard", NULL, NULL, FALSE,
                          G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);

  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
anot_data_path_init (AnotDataPath *self)
{
  self->segments = g_array_new (FALSE, TRUE, sizeof (AnotPathSegment));
  g_array_set_clear_func (self->segments, segment_clear);
}

/* ------------------------------------------------------------------------ *
 * Parsing
 * ------------------------------------------------------------------------ */

typedef struct {
  const char *text;
  const char *p;
} Scanner;

static guint
column_of (Scanner    *s,
           const char *where)
{
  return (guint) g_utf8_strlen (s->text, where - s->text) + 1;
}

G_GNUC_PRINTF (4, 5)
static void
set_syntax_error (GError     **error,
                  Scanner     *s,
                  const char  *where,
                  const char  *format,
                  ...)
{
  g_autofree char *message = NULL;
  va_list args;

  va_start (args, format);
  message = g_strdup_vprintf (format, args);
  va_end (args);

  g_set_error (error, ANOT_ERROR, ANOT_ERROR_PARSE,
               "Invalid path “%s” at column %u: %s",
               s->text, column_of (s, where), message);
}

/* The whole UTF-8 character at @p, for messages (the text is valid
 * UTF-8: a single byte of a multi-byte character would not be). */
static const char *
character_at (const char *p,
              char        buf[8])
{
  const char *next = g_utf8_next_char (p);

  memset (buf, 0, 8);
  memcpy (buf, p, MIN (next - p, 7));
  return buf;
}

static void
skip_spaces (Scanner *s)
{
  while (*s->p == ' ' || *s->p == '\t' || *s->p == '\n' || *s->p == '\r')
    s->p++;
}

/* A character that ends a bare key. */
static gboolean
is_bare_stop (char c)
{
  return c == '\0' || c == '.' || c == '[' || c == ']' || c == '"' || c == '\'' ||
         c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/* Parses a quoted key at s->p (on the quote). */
static char *
parse_quoted (Scanner  *s,
              GError  **error)
{
  const char *start = s->p;
  char quote = *s->p++;
  g_autoptr(GString) key = g_string_new (NULL);

  for (;;)
    {
      char c = *s->p;

      if (c == '\0')
        {
          set_syntax_error (error, s, start, "unterminated quoted key (missing %c)", quote);
          return NULL;
        }
      if (c == quote)
        {
          s->p++;
          return g_string_free (g_steal_pointer (&key), FALSE);
        }
      if (c == '\\' && s->p[1] != '\0')
        {
          char e = s->p[1];

          switch (e)
            {
            case 'n': g_string_append_c (key, '\n'); break;
            case 't': g_string_append_c (key, '\t'); break;
            case '\\':
            case '"':
            case '\'':
              g_string_append_c (key, e);
              break;
            default:
              /* Kept as written, as Python does with unknown escapes. */
              g_string_append_c (key, '\\');
              g_string_append_c (key, e);
            }
          s->p += 2;
          continue;
        }
      g_string_append_c (key, c);
      s->p++;
    }
}

/* An integer if @key is one ("0", "12", "-1"). */
static gboolean
key_to_index (const char *key,
              gint64     *out)
{
  const char *p = key;
  char *end = NULL;
  gint64 value;

  if (*p == '-')
    p++;
  if (*p < '0' || *p > '9')
    return FALSE;
  for (const char *q = p; *q != '\0'; q++)
    if (*q < '0' || *q > '9')
      return FALSE;

  errno = 0;
  value = g_ascii_strtoll (key, &end, 10);
  if (errno != 0 || *end != '\0')
    return FALSE;
  *out = value;
  return TRUE;
}

static void
add_key (AnotDataPath *self,
         char         *key,
         gboolean      quoted)
{
  AnotPathSegment segment = { 0 };

  segment.kind = ANOT_PATH_SEGMENT_KEY;
  segment.key = key;
  segment.is_index = !quoted && key_to_index (key, &segment.index);
  g_array_append_val (self->segments, segment);
}

static void
add_wildcard (AnotDataPath *self)
{
  AnotPathSegment segment = { 0 };

  segment.kind = ANOT_PATH_SEGMENT_WILDCARD;
  g_array_append_val (self->segments, segment);
  self->has_wildcard = TRUE;
}

/* A bare key at s->p; empty if there is none. */
static char *
scan_bare (Scanner *s)
{
  const char *start = s->p;

  while (!is_bare_stop (*s->p))
    s->p++;
  return g_strndup (start, s->p - start);
}

/* After `.` (or at the start): a bare key, a quoted key or `*`. */
static gboolean
parse_dotted (AnotDataPath  *self,
              Scanner       *s,
              GError       **error)
{
  g_autofree char *key = NULL;

  skip_spaces (s);
  if (*s->p == '"' || *s->p == '\'')
    {
      key = parse_quoted (s, error);
      if (key == NULL)
        return FALSE;
      add_key (self, g_steal_pointer (&key), TRUE);
      return TRUE;
    }

  key = scan_bare (s);
  if (key[0] == '\0')
    {
      if (*s->p == '\0')
        set_syntax_error (error, s, s->p, "expected a key after “.”");
      else
        {
          char buf[8];

          set_syntax_error (error, s, s->p, "expected a key, found “%s”", character_at (s->p, buf));
        }
      return FALSE;
    }
  if (strcmp (key, "*") == 0)
    add_wildcard (self);
  else
    add_key (self, g_steal_pointer (&key), FALSE);
  return TRUE;
}

/* After `[`: an index, `*`, a quoted key or a bare key, then `]`. */
static gboolean
parse_bracket (AnotDataPath  *self,
               Scanner       *s,
               const char    *open,
               GError       **error)
{
  g_autofree char *key = NULL;
  gboolean quoted = FALSE;

  skip_spaces (s);
  if (*s->p == '"' || *s->p == '\'')
    {
      key = parse_quoted (s, error);
      if (key == NULL)
        return FALSE;
      quoted = TRUE;
    }
  else
    {
      const char *start = s->p;

      /* Bare keys inside brackets may contain spaces ([Good For Kids]),
       * as in the LWT accessors models write. */
      while (*s->p != '\0' && *s->p != ']' && *s->p != '[')
        s->p++;
      while (s->p > start && (s->p[-1] == ' ' || s->p[-1] == '\t'))
        s->p--;
      key = g_strndup (start, s->p - start);
    }

  skip_spaces (s);
  if (*s->p != ']')
    {
      if (*s->p == '\0')
        set_syntax_error (error, s, open, "unclosed “[”");
      else
        {
          char buf[8];

          set_syntax_error (error, s, s->p, "expected “]”, found “%s”", character_at (s->p, buf));
        }
      return FALSE;
    }
  s->p++;

  if (!quoted && key[0] == '\0')
    {
      set_syntax_error (error, s, open, "empty brackets; write an index, a key or *");
      return FALSE;
    }
  if (!quoted && strcmp (key, "*") == 0)
    add_wildcard (self);
  else
    add_key (self, g_steal_pointer (&key), quoted);
  return TRUE;
}

/**
 * anot_data_path_parse:
 * @text: the path, e.g. `items[*].attributes`
 * @error: return location for a #GError
 *
 * Parses a path.  A syntax error is %ANOT_ERROR_PARSE with the 1-based
 * column in the message.
 *
 * Returns: (transfer full): the path, or %NULL with @error set
 */
AnotDataPath *
anot_data_path_parse (const char  *text,
                      GError     **error)
{
  g_autoptr(AnotDataPath) self = NULL;
  const char *invalid = NULL;
  Scanner s;

  g_return_val_if_fail (text != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (!g_utf8_validate (text, -1, &invalid))
    {
      g_set_error (error, ANOT_ERROR, ANOT_ERROR_PARSE,
                   "Invalid path: not UTF-8 at byte %u", (guint) (invalid - text));
      return NULL;
    }

  self = g_object_new (ANOT_TYPE_DATA_PATH, NULL);
  self->text = g_strdup (text);
  s.text = self->text;
  s.p = self->text;

  skip_spaces (&s);
  if (*s.p == '$')
    {
      s.p++;
      skip_spaces (&s);
      if (*s.p == '.')
        {
          s.p++;
          skip_spaces (&s);
          /* "$." alone is the root too. */
          if (*s.p == '\0')
            return g_steal_pointer (&self);
        }
    }
  else if (*s.p == '.')
    {
      /* ".items" and "." are the root's members and the root. */
      s.p++;
      skip_spaces (&s);
      if (*s.p == '\0')
        return g_steal_pointer (&self);
    }

  if (*s.p == '\0')
    return g_steal_pointer (&self);

  if (*s.p == '[')
    {
      const char *open = s.p++;

      if (!parse_bracket (self, &s, open, error))
        return NULL;
    }
  else if (!parse_dotted (self, &s, error))
    return NULL;

  for (;;)
    {
      skip_spaces (&s);
      if (*s.p == '\0')
        break;
      if (*s.p == '.')
        {
          s.p++;
          if (!parse_dotted (self, &s, error))
            return NULL;
        }
      else if (*s.p == '[')
        {
          const char *open = s.p++;

          if (!parse_bracket (self, &s, open, error))
            return NULL;
        }
      else if (*s.p == ']')
        {
          set_syntax_error (error, &s, s.p, "“]” without “[”");
          return NULL;
        }
      else
        {
          g_autofree char *word = scan_bare (&s);

          if (word[0] != '\0')
            set_syntax_error (error, &s, s.p - strlen (word),
                              "unexpected “%s”; quote keys that contain spaces, "
                              "e.g. [\"Good For Kids\"]", word);
          else
            {
              char buf[8];

              set_syntax_error (error, &s, s.p, "unexpected “%s”", character_at (s.p, buf));
            }
          return NULL;
        }
    }

  return g_steal_pointer (&self);
}

/**
 * anot_data_path_get_text:
 * @self: an #AnotDataPath
 *
 * Returns: the path as it was written
 */
const char *
anot_data_path_get_text (AnotDataPath *self)
{
  g_return_val_if_fail (ANOT_IS_DATA_PATH (self), NULL);
  return self->text;
}

/**
 * anot_data_path_get_n_segments:
 * @self: an #AnotDataPath
 *
 * Returns: the number of keys, indices and wildcards; 0 for the root
 */
guint
anot_data_path_get_n_segments (AnotDataPath *self)
{
  g_return_val_if_fail (ANOT_IS_DATA_PATH (self), 0);
  return self->segments->len;
}

/**
 * anot_data_path_has_wildcard:
 * @self: an #AnotDataPath
 *
 * Returns: whether the path contains `*`
 */
gboolean
anot_data_path_has_wildcard (AnotDataPath *self)
{
  g_return_val_if_fail (ANOT_IS_DATA_PATH (self), FALSE);
  return self->has_wildcard;
}

const AnotPathSegment *
_anot_data_path_get_segment (AnotDataPath *self,
                             guint         position)
{
  g_return_val_if_fail (position < self->segments->len, NULL);
  return &g_array_index (self->segments, AnotPathSegment, position);
}

/* ------------------------------------------------------------------------ *
 * Printing
 * ------------------------------------------------------------------------ */

/* Keys written bare in canonical paths: they must read back as the same
 * key, so nothing an unquoted key would read as an index ("-1"). */
static gboolean
is_identifier (const char *key)
{
  if (key[0] == '\0' || g_ascii_isdigit (key[0]) || key[0] == '-')
    return FALSE;
  for (const char *p = key; *p != '\0'; p++)
    if (!g_ascii_isalnum (*p) && *p != '_' && *p != '-' && !((guchar) *p & 0x80))
      return FALSE;
  return TRUE;
}

/**
 * anot_data_path_key_is_bare:
 * @key: a key of an object, e.g. an attribute name
 *
 * Whether @key can be written after a dot in a data path
 * (`items[1].attributes.WiFi`) and read back as the same key; other keys
 * are written quoted in brackets (`items[1].attributes["Good For Kids"]`),
 * as anot_data_path_to_string() writes them.
 *
 * Returns: %TRUE if @key can be written bare
 */
gboolean
anot_data_path_key_is_bare (const char *key)
{
  g_return_val_if_fail (key != NULL, FALSE);

  return is_identifier (key);
}

static void
append_quoted (GString    *out,
               const char *key)
{
  g_string_append_c (out, '"');
  for (const char *p = key; *p != '\0'; p++)
    {
      if (*p == '"' || *p == '\\')
        g_string_append_c (out, '\\');
      if (*p == '\n')
        g_string_append (out, "\\n");
      else if (*p == '\t')
        g_string_append (out, "\\t");
      else
        g_string_append_c (out, *p);
    }
  g_string_append_c (out, '"');
}

void
_anot_data_path_append_key (GString    *out,
                            const char *key)
{
  gint64 index;

  if (key_to_index (key, &index) && index >= 0)
    g_string_append_printf (out, "[%s]", key);
  else if (is_identifier (key))
    {
      if (out->len > 0)
        g_string_append_c (out, '.');
      g_string_append (out, key);
    }
  else
    {
      g_string_append_c (out, '[');
      append_quoted (out, key);
      g_string_append_c (out, ']');
    }
}

void
_anot_data_path_append_index (GString *out,
                              guint    index)
{
  g_string_append_printf (out, "[%u]", index);
}

/**
 * anot_data_path_to_string:
 * @self: an #AnotDataPath
 *
 * Writes the path in its canonical form: dotted identifiers, numbers and
 * `*` in brackets, other keys quoted (`items[*].attributes["Good For
 * Kids"]`).  Parsing the result gives the same path.
 *
 * Returns: (transfer full): the canonical text; empty for the root
 */
char *
anot_data_path_to_string (AnotDataPath *self)
{
  GString *out;

  g_return_val_if_fail (ANOT_IS_DATA_PATH (self), NULL);

  out = g_string_new (NULL);
  for (guint i = 0; i < self->segments->len; i++)
    {
      const AnotPathSegment *segment = &g_array_index (self->segments, AnotPathSegment, i);

      if (segment->kind == ANOT_PATH_SEGMENT_WILDCARD)
        g_string_append (out, "[*]");
      else if (segment->is_index)
        g_string_append_printf (out, "[%s]", segment->key);
      else if (is_identifier (segment->key) && strcmp (segment->key, "*") != 0)
        {
          if (out->len > 0)
            g_string_append_c (out, '.');
          g_string_append (out, segment->key);
        }
      else
        {
          g_string_append_c (out, '[');
          append_quoted (out, segment->key);
          g_string_append_c (out, ']');
        }
    }

  return g_string_free (out, FALSE);
}

/* ------------------------------------------------------------------------ *
 * Resolving
 * ------------------------------------------------------------------------ */

const char *
_anot_json_type_name (JsonNode *node)
{
  if (node == NULL)
    return "nothing";

  switch (json_node_get_node_type (node))
    {
    case JSON_NODE_OBJECT:
      return "an object";
    case JSON_NODE_ARRAY:
      return "an array";
    case JSON_NODE_NULL:
      return "null";
    case JSON_NODE_VALUE:
    default:
      switch (json_node_get_value_type (node))
        {
        case G_TYPE_BOOLEAN:
          return "a boolean";
        case G_TYPE_STRING:
          return "a string";
        case G_TYPE_INT64:
        case G_TYPE_DOUBLE:
        default:
          return "a number";
        }
    }
}

char *
_anot_json_object_list_keys (JsonObject *object,
                             guint       max_keys)
{
  g_autoptr(GList) members = json_object_get_members (object);
  GString *out = g_string_new (NULL);
  guint n = 0;

  for (GList *l = members; l != NULL; l = l->next, n++)
    {
      if (n == max_keys)
        {
          g_string_append_printf (out, ", … (%u keys)", json_object_get_size (object));
          break;
        }
      if (n > 0)
        g_string_append (out, ", ");
      g_string_append_printf (out, "\"%s\"", (const char *) l->data);
    }
  if (n == 0)
    g_string_append (out, "none");

  return g_string_free (out, FALSE);
}

typedef struct {
  JsonNode *node;
  char     *path;
} Match;

static void
match_clear (gpointer data)
{
  Match *match = data;

  g_free (match->path);
}

static const char *
where_name (const char *path)
{
  return path[0] != '\0' ? path : "the root";
}

/* Steps one value along a key; on failure sets @reason (if not set yet). */
static JsonNode *
step_key (JsonNode              *node,
          const char            *path,
          const AnotPathSegment *segment,
          GString               *child_path,
          char                 **reason,
          gint                  *code)
{
  if (JSON_NODE_HOLDS_OBJECT (node))
    {
      JsonObject *object = json_node_get_object (node);
      JsonNode *child = json_object_get_member (object, segment->key);

      if (child == NULL)
        {
          if (*reason == NULL)
            {
              g_autofree char *keys = _anot_json_object_list_keys (object, MAX_KEYS_IN_MESSAGE);

              *reason = g_strdup_printf ("%s has no key “%s” (keys: %s)",
                                         where_name (path), segment->key, keys);
              *code = ANOT_ERROR_UNKNOWN_REFERENCE;
            }
          return NULL;
        }
      g_string_append (child_path, path);
      _anot_data_path_append_key (child_path, segment->key);
      return child;
    }

  if (JSON_NODE_HOLDS_ARRAY (node))
    {
      JsonArray *array = json_node_get_array (node);
      guint length = json_array_get_length (array);
      gint64 index;

      if (!segment->is_index)
        {
          if (*reason == NULL)
            {
              *reason = g_strdup_printf ("%s is an array of %u, not an object: "
                                         "use an index [0]..[%d] or [*] instead of “%s”",
                                         where_name (path), length, (int) length - 1,
                                         segment->key);
              *code = ANOT_ERROR_INVALID_ARGUMENT;
            }
          return NULL;
        }

      index = segment->index < 0 ? (gint64) length + segment->index : segment->index;
      if (index < 0 || index >= (gint64) length)
        {
          if (*reason == NULL)
            {
              if (length == 0)
                *reason = g_strdup_printf ("index %s is out of range: %s is an empty array",
                                           segment->key, where_name (path));
              else
                *reason = g_strdup_printf ("index %s is out of range: %s has %u elements "
                                           "([0]..[%u])", segment->key, where_name (path),
                                           length, length - 1);
              *code = ANOT_ERROR_UNKNOWN_REFERENCE;
            }
          return NULL;
        }
      g_string_append (child_path, path);
      _anot_data_path_append_index (child_path, (guint) index);
      return json_array_get_element (array, (guint) index);
    }

  if (*reason == NULL)
    {
      *reason = g_strdup_printf ("%s is %s, which has no key “%s”",
                                 where_name (path), _anot_json_type_name (node), segment->key);
      *code = ANOT_ERROR_INVALID_ARGUMENT;
    }
  return NULL;
}

static void
add_match (GArray     *matches,
           JsonNode   *node,
           char       *path)
{
  Match match = { node, path };

  g_array_append_val (matches, match);
}

GArray *
_anot_data_path_resolve_borrowed (AnotDataPath  *self,
                                  JsonNode      *root,
                                  GError       **error)
{
  g_autoptr(GArray) current = NULL;
  gboolean below_wildcard = FALSE;
  g_autofree char *reason = NULL;
  gint code = ANOT_ERROR_UNKNOWN_REFERENCE;

  current = g_array_new (FALSE, FALSE, sizeof (Match));
  g_array_set_clear_func (current, match_clear);
  add_match (current, root, g_strdup (""));

  for (guint i = 0; i < self->segments->len; i++)
    {
      const AnotPathSegment *segment = &g_array_index (self->segments, AnotPathSegment, i);
      g_autoptr(GArray) next = g_array_new (FALSE, FALSE, sizeof (Match));

      g_array_set_clear_func (next, match_clear);

      for (guint m = 0; m < current->len; m++)
        {
          Match *match = &g_array_index (current, Match, m);

          if (segment->kind == ANOT_PATH_SEGMENT_WILDCARD)
            {
              if (JSON_NODE_HOLDS_OBJECT (match->node))
                {
                  JsonObject *object = json_node_get_object (match->node);
                  g_autoptr(GList) members = json_object_get_members (object);

                  for (GList *l = members; l != NULL; l = l->next)
                    {
                      GString *child_path = g_string_new (match->path);

                      _anot_data_path_append_key (child_path, l->data);
                      add_match (next, json_object_get_member (object, l->data),
                                 g_string_free (child_path, FALSE));
                    }
                }
              else if (JSON_NODE_HOLDS_ARRAY (match->node))
                {
                  JsonArray *array = json_node_get_array (match->node);

                  for (guint e = 0; e < json_array_get_length (array); e++)
                    {
                      GString *child_path = g_string_new (match->path);

                      _anot_data_path_append_index (child_path, e);
                      add_match (next, json_array_get_element (array, e),
                                 g_string_free (child_path, FALSE));
                    }
                }
              else if (reason == NULL)
                {
                  reason = g_strdup_printf ("%s is %s; * needs an object or an array",
                                            where_name (match->path),
                                            _anot_json_type_name (match->node));
                  code = ANOT_ERROR_INVALID_ARGUMENT;
                }
            }
          else
            {
              GString *child_path = g_string_new (NULL);
              JsonNode *child = step_key (match->node, match->path, segment,
                                          child_path, &reason, &code);

              if (child != NULL)
                add_match (next, child, g_string_free (child_path, FALSE));
              else
                g_string_free (child_path, TRUE);
            }
        }

      if (next->len == 0 || (!below_wildcard && reason != NULL))
        {
          if (reason == NULL)
            {
              /* A wildcard over an empty object or array. */
              reason = g_strdup ("nothing matches: the wildcard ranges over an empty "
                                 "object or array");
              code = ANOT_ERROR_UNKNOWN_REFERENCE;
            }
          if (below_wildcard || segment->kind == ANOT_PATH_SEGMENT_WILDCARD)
            g_set_error (error, ANOT_ERROR, code, "Path “%s”: no value matches (%s)",
                         self->text, reason);
          else
            g_set_error (error, ANOT_ERROR, code, "Path “%s”: %s", self->text, reason);
          return NULL;
        }

      if (segment->kind == ANOT_PATH_SEGMENT_WILDCARD)
        below_wildcard = TRUE;

      g_clear_pointer (&current, g_array_unref);
      current = g_steal_pointer (&next);
    }

  return g_steal_pointer (&current);
}

guint
_anot_data_path_matches_get_length (GArray *matches)
{
  return matches->len;
}

JsonNode *
_anot_data_path_matches_get_node (GArray *matches,
                                  guint   position)
{
  return g_array_index (matches, Match, position).node;
}

const char *
_anot_data_path_matches_get_path (GArray *matches,
                                  guint   position)
{
  return g_array_index (matches, Match, position).path;
}

/**
 * anot_data_path_resolve:
 * @self: an #AnotDataPath
 * @root: the document
 * @out_paths: (out) (optional) (array zero-terminated=1) (transfer full):
 *   return location for the canonical path of every match, in the same
 *   order (`items[1].attributes` for `items[*].attributes`)
 * @error: return location for a #GError
 *
 * Finds the values @self selects in @root: one value for a path without
 * wildcards, every matching value, in document order, otherwise.  The
 * nodes are those of @root (not copies), with a reference added.
 *
 * A path that does not fit the document fails with
 * %ANOT_ERROR_UNKNOWN_REFERENCE (a missing key, an index out of range) or
 * %ANOT_ERROR_INVALID_ARGUMENT (a key into an array, a key into a string).
 *
 * Returns: (transfer full) (element-type Json.Node): the matches, or %NULL
 *   with @error set
 */
GPtrArray *
anot_data_path_resolve (AnotDataPath  *self,
                        JsonNode      *root,
                        GStrv         *out_paths,
                        GError       **error)
{
  g_autoptr(GArray) matches = NULL;
  GPtrArray *nodes;

  g_return_val_if_fail (ANOT_IS_DATA_PATH (self), NULL);
  g_return_val_if_fail (root != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  matches = _anot_data_path_resolve_borrowed (self, root, error);
  if (matches == NULL)
    return NULL;

  nodes = g_ptr_array_new_full (matches->len, (GDestroyNotify) json_node_unref);
  for (guint i = 0; i < matches->len; i++)
    g_ptr_array_add (nodes, json_node_ref (g_array_index (matches, Match, i).node));

  if (out_paths != NULL)
    {
      GStrv paths = g_new0 (char *, matches->len + 1);

      for (guint i = 0; i < matches->len; i++)
        paths[i] = g_strdup (g_array_index (matches, Match, i).path);
      *out_paths = paths;
    }

  return nodes;
}
