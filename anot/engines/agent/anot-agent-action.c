/* anot-agent-action.c: one tool call of an agent, parsed from model text
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "anot-agent-action.h"

#include <stdlib.h>
#include <string.h>

#include "anot-error.h"

/**
 * AnotAgentAction:
 *
 * One action of a tool-using agent (ReAct, LATS): the name of a tool and
 * its positional arguments, as a model writes it — `count("items")`,
 * `check("attributes.get('WiFi') == 'free'", 3)`, `finish("3, 1, 5")`.
 *
 * The parser is forgiving, because models write the actions:
 *
 * - arguments are JSON values (`"text"`, `3`, `[1, 2]`, `true`), strings
 *   in single quotes, Python's `True`/`False`/`None`, or bare text up to
 *   the next top-level `,` or `)` (`sample(items[1].attributes)`);
 * - a quote only closes a string when the next character that is not a
 *   space is `,`, `)` or the end, so `sample("items[1].attributes["Good
 *   For Kids"]")` keeps its inner quotes;
 * - backslash escapes `\"`, `\'`, `\\`, `\n` and `\t` are read; any other
 *   backslash is kept.
 *
 * anot_agent_action_parse_reply() finds the action in a whole reply
 * (`Thought: ...` / `Action: ...`, in any case, with markdown emphasis),
 * and the thought before it.
 */

struct _AnotAgentAction
{
  GObject    parent_instance;

  char      *tool;
  JsonArray *arguments;
};

G_DEFINE_FINAL_TYPE (AnotAgentAction, anot_agent_action, G_TYPE_OBJECT)

enum {
  PROP_0,
  PROP_TOOL,
  PROP_N_ARGUMENTS,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

static void
anot_agent_action_finalize (GObject *object)
{
  AnotAgentAction *self = ANOT_AGENT_ACTION (object);

  g_free (self->tool);
  json_array_unref (self->arguments);

  G_OBJECT_CLASS (anot_agent_action_parent_class)->finalize (object);
}

static void
anot_agent_action_get_property (GObject    *object,
                                guint       prop_id,
                                GValue     *value,
                                GParamSpec *pspec)
{
  AnotAgentAction *self = ANOT_AGENT_ACTION (object);

  switch (prop_id)
    {
    case PROP_TOOL:
      g_value_set_string (value, self->tool);
      break;
    case PROP_N_ARGUMENTS:
      g_value_set_uint (value, json_array_get_length (self->arguments));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
anot_agent_action_set_property (GObject      *object,
                                guint         prop_id,
                                const GValue *value,
                                GParamSpec   *pspec)
{
  AnotAgentAction *self = ANOT_AGENT_ACTION (object);

  switch (prop_id)
    {
    case PROP_TOOL:
      g_free (self->tool);
      self->tool = g_value_dup_string (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
anot_agent_action_class_init (AnotAgentActionClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = anot_agent_action_finalize;
  object_class->get_property = anot_agent_action_get_property;
  object_class->set_property = anot_agent_action_set_property;

  /**
   * AnotAgentAction:tool:
   *
   * The name of the tool called.
   */
  properties[PROP_TOOL] =
    g_param_spec_string ("tool", NULL, NULL, NULL,
                         G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS);

  /**
   * AnotAgentAction:n-arguments:
   *
   * The number of arguments.
   */
  properties[PROP_N_ARGUMENTS] =
    g_param_spec_uint ("n-arguments", NULL, NULL, 0, G_MAXUINT, 0,
                       G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);

  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
anot_agent_action_init (AnotAgentAction *self)
{
  self->arguments = json_array_new ();
}

/**
 * anot_agent_action_new:
 * @tool: the tool's name
 * @arguments: (nullable): the positional arguments
 *
 * Returns: (transfer full): a new action (@arguments is copied)
 */
AnotAgentAction *
anot_agent_action_new (const char *tool,
                       JsonArray  *arguments)
{
  AnotAgentAction *self;

  g_return_val_if_fail (tool != NULL, NULL);

  self = g_object_new (ANOT_TYPE_AGENT_ACTION, "tool", tool, NULL);
  for (guint i = 0; arguments != NULL && i < json_array_get_length (arguments); i++)
    json_array_add_element (self->arguments,
                            json_node_copy (json_array_get_element (arguments, i)));
  return self;
}

/* ------------------------------------------------------------------------ *
 * Parsing
 * ------------------------------------------------------------------------ */

static const char *
skip_space (const char *p)
{
  while (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n')
    p++;
  return p;
}

/* Whether the argument that ends at @p really ends there. */
static gboolean
at_argument_end (const char *p)
{
  while (*p == ' ' || *p == '\t')
    p++;
  return *p == ',' || *p == ')' || *p == '\0' || *p == '\n' || *p == '\r';
}

static JsonNode *
string_node (const char *text)
{
  return json_node_init_string (json_node_alloc (), text);
}

/* A quoted string starting at *pp (on the quote). */
static JsonNode *
parse_quoted (const char **pp)
{
  const char *p = *pp;
  char quote = *p++;
  g_autoptr(GString) out = g_string_new (NULL);

  for (; *p != '\0'; p++)
    {
      if (*p == '\\' && p[1] != '\0')
        {
          switch (p[1])
            {
            case '"': case '\'': case '\\':
              g_string_append_c (out, p[1]);
              break;
            case 'n':
              g_string_append_c (out, '\n');
              break;
            case 't':
              g_string_append_c (out, '\t');
              break;
            default:
              g_string_append_c (out, '\\');
              g_string_append_c (out, p[1]);
              break;
            }
          p++;
          continue;
        }
      if (*p == quote && at_argument_end (p + 1))
        {
          *pp = p + 1;
          return string_node (out->str);
        }
      g_string_append_c (out, *p);
    }
  *pp = p;
  return NULL;
}

/* The end of a balanced (), [] or {} group, or of bare text, skipping
 * quoted strings: the first top-level `,` or `)` not opened here. */
static const char *
scan_bare (const char *p)
{
  int depth = 0;

  for (; *p != '\0'; p++)
    {
      if (*p == '"' || *p == '\'')
        {
          char quote = *p;
          const char *q = p + 1;

          while (*q != '\0' && *q != quote)
            q += (*q == '\\' && q[1] != '\0') ? 2 : 1;
          if (*q == '\0')
            continue;   /* a lone apostrophe: plain text */
          p = q;
          continue;
        }
      if (*p == '(' || *p == '[' || *p == '{')
        depth++;
      else if (*p == ')' || *p == ']' || *p == '}')
        {
          if (depth == 0)
            return p;
          depth--;
        }
      else if (*p == ',' && depth == 0)
        return p;
      else if ((*p == '\n' || *p == '\r') && depth == 0)
        return p;
    }
  return p;
}

static JsonNode *
parse_word (const char *start,
            const char *end)
{
  g_autofree char *word = g_strndup (start, end - start);
  char *stop = NULL;

  g_strstrip (word);
  if (strcmp (word, "true") == 0 || strcmp (word, "True") == 0)
    return json_node_init_boolean (json_node_alloc (), TRUE);
  if (strcmp (word, "false") == 0 || strcmp (word, "False") == 0)
    return json_node_init_boolean (json_node_alloc (), FALSE);
  if (strcmp (word, "null") == 0 || strcmp (word, "None") == 0)
    return json_node_init_null (json_node_alloc ());

  if (word[0] != '\0' && (g_ascii_isdigit (word[0]) ||
                          ((word[0] == '-' || word[0] == '+') && g_ascii_isdigit (word[1]))))
    {
      gint64 i = g_ascii_strtoll (word, &stop, 10);

      if (*stop == '\0')
        return json_node_init_int (json_node_alloc (), i);
      {
        double d = g_ascii_strtod (word, &stop);

        if (*stop == '\0')
          return json_node_init_double (json_node_alloc (), d);
      }
    }

  if (word[0] == '[' || word[0] == '{')
    {
      g_autoptr(JsonParser) parser = json_parser_new_immutable ();

      if (json_parser_load_from_data (parser, word, -1, NULL))
        return json_node_copy (json_parser_get_root (parser));
    }

  return string_node (word);
}

/* Parses `name(args)` at *pp; on success *pp is after the `)`. */
static AnotAgentAction *
parse_call (const char  **pp,
            GError      **error)
{
  const char *p = skip_space (*pp);
  const char *name_start;
  g_autofree char *name = NULL;
  g_autoptr(JsonArray) arguments = json_array_new ();

  while (*p == '`')
    p++;
  name_start = p;
  if (!g_ascii_isalpha (*p) && *p != '_')
    {
      g_set_error (error, ANOT_ERROR, ANOT_ERROR_PARSE,
                   "An action is a tool name followed by its arguments in parentheses, "
                   "such as count(\"items\")");
      return NULL;
    }
  while (g_ascii_isalnum (*p) || *p == '_' || *p == '.')
    p++;
  name = g_strndup (name_start, p - name_start);
  p = skip_space (p);
  if (*p != '(')
    {
      g_set_error (error, ANOT_ERROR, ANOT_ERROR_PARSE,
                   "The action %s has no parentheses: write %s(arguments)", name, name);
      return NULL;
    }
  p = skip_space (p + 1);

  if (*p == ')')
    p++;
  else
    for (;;)
      {
        JsonNode *argument = NULL;

        p = skip_space (p);
        if (*p == '"' || *p == '\'')
          {
            const char *q = p;

            argument = parse_quoted (&q);
            if (argument != NULL)
              p = q;
          }
        if (argument == NULL)
          {
            const char *end = scan_bare (p);

            if (end == p && (*p == ',' || *p == ')'))
              {
                g_set_error (error, ANOT_ERROR, ANOT_ERROR_PARSE,
                             "The action %s has an empty argument", name);
                return NULL;
              }
            argument = parse_word (p, end);
            p = end;
          }
        json_array_add_element (arguments, argument);

        while (*p == ' ' || *p == '\t')
          p++;
        if (*p == ',')
          {
            p++;
            continue;
          }
        if (*p == ')')
          {
            p++;
            break;
          }
        g_set_error (error, ANOT_ERROR, ANOT_ERROR_PARSE,
                     "The action %s is missing its closing parenthesis", name);
        return NULL;
      }

  while (*p == '`')
    p++;
  *pp = p;
  return anot_agent_action_new (name, arguments);
}

/**
 * anot_agent_action_parse:
 * @text: an action, `tool(arguments)`
 * @error: return location for a #GError
 *
 * Parses one action; nothing but white space may follow it.
 *
 * Errors: %ANOT_ERROR_PARSE, with a message meant for the model.
 *
 * Returns: (transfer full): the action, or %NULL with @error set
 */
AnotAgentAction *
anot_agent_action_parse (const char  *text,
                         GError     **error)
{
  const char *p = text;
  g_autoptr(AnotAgentAction) action = NULL;

  g_return_val_if_fail (text != NULL, NULL);

  action = parse_call (&p, error);
  if (action == NULL)
    return NULL;
  if (*skip_space (p) != '\0')
    {
      g_set_error (error, ANOT_ERROR, ANOT_ERROR_PARSE,
                   "Unexpected text after the action %s(...): “%.40s”", action->tool, skip_space (p));
      return NULL;
    }
  return g_steal_pointer (&action);
}

static GRegex *
marker_regex (void)
{
  static gsize once;
  static GRegex *regex;

  if (g_once_init_enter (&once))
    {
      regex = g_regex_new ("^[ \\t>*_#-]*(thought|action)(?:[ \\t]*\\d+)?[ \\t*_]*:[ \\t*_]*",
                           G_REGEX_CASELESS | G_REGEX_MULTILINE | G_REGEX_OPTIMIZE, 0, NULL);
      g_once_init_leave (&once, 1);
    }
  return regex;
}

/**
 * anot_agent_action_parse_reply:
 * @reply: a model's reply
 * @out_thought: (out) (optional) (nullable) (transfer full): the thought
 *   that precedes the action, if any
 * @error: return location for a #GError
 *
 * Finds the action in a reply of the ReAct format:
 *
 * ```
 * Thought: which attributes exist?
 * Action: union_keys("items[*].attributes")
 * ```
 *
 * The markers may be in any case, numbered (`Action 2:`), in markdown
 * emphasis or a list; the first `Action:` line counts and anything after
 * its action (an observation the model imagined) is ignored.  Without an
 * `Action:` line, a reply that is only an action, or holds a
 * `finish(...)`, is accepted.  The thought is the text after `Thought:`,
 * or else the text before the action.
 *
 * Errors: %ANOT_ERROR_PARSE, with a message meant for the model.
 *
 * Returns: (transfer full): the action, or %NULL with @error set
 */
AnotAgentAction *
anot_agent_action_parse_reply (const char  *reply,
                               char       **out_thought,
                               GError     **error)
{
  g_autoptr(GMatchInfo) info = NULL;
  g_autofree char *thought = NULL;
  const char *action_start = NULL;
  const char *action_marker = NULL;
  const char *thought_start = NULL;
  const char *p;
  AnotAgentAction *action;

  g_return_val_if_fail (reply != NULL, NULL);

  if (out_thought != NULL)
    *out_thought = NULL;

  g_regex_match (marker_regex (), reply, 0, &info);
  while (g_match_info_matches (info))
    {
      g_autofree char *kind = g_match_info_fetch (info, 1);
      int start, end;

      g_match_info_fetch_pos (info, 0, &start, &end);
      if (g_ascii_tolower (kind[0]) == 'a')
        {
          action_marker = reply + start;
          action_start = reply + end;
          break;
        }
      if (thought_start == NULL)
        thought_start = reply + end;
      g_match_info_next (info, NULL);
    }

  if (action_start == NULL)
    {
      const char *finish = NULL;

      /* "finish(" as a word, anywhere */
      for (const char *f = strstr (reply, ANOT_AGENT_FINISH); f != NULL;
           f = strstr (f + 1, ANOT_AGENT_FINISH))
        if ((f == reply || (!g_ascii_isalnum (f[-1]) && f[-1] != '_')) &&
            *skip_space (f + strlen (ANOT_AGENT_FINISH)) == '(')
          {
            finish = f;
            break;
          }
      if (finish != NULL)
        action_start = action_marker = finish;
      else if (thought_start == NULL)
        {
          /* Maybe the reply is nothing but the action. */
          p = reply;
          action = parse_call (&p, NULL);
          if (action != NULL)
            {
              if (out_thought != NULL)
                *out_thought = NULL;
              return action;
            }
        }
    }

  if (action_start == NULL)
    {
      g_set_error (error, ANOT_ERROR, ANOT_ERROR_PARSE,
                   "No action found: end with one line “Action: tool(arguments)”");
      return NULL;
    }

  p = action_start;
  action = parse_call (&p, error);
  if (action == NULL)
    return NULL;

  if (out_thought != NULL)
    {
      if (thought_start != NULL && thought_start < action_marker)
        thought = g_strndup (thought_start, action_marker - thought_start);
      else if (action_marker > reply)
        thought = g_strndup (reply, action_marker - reply);
      if (thought != NULL)
        {
          g_strstrip (thought);
          if (thought[0] == '\0')
            g_clear_pointer (&thought, g_free);
        }
      *out_thought = g_steal_pointer (&thought);
    }
  return action;
}

/* ------------------------------------------------------------------------ *
 * Accessors
 * ------------------------------------------------------------------------ */

/**
 * anot_agent_action_get_tool:
 * @self: an action
 *
 * Returns: the tool's name
 */
const char *
anot_agent_action_get_tool (AnotAgentAction *self)
{
  g_return_val_if_fail (ANOT_IS_AGENT_ACTION (self), NULL);

  return self->tool;
}

/**
 * anot_agent_action_is_finish:
 * @self: an action
 *
 * Returns: whether this is the final answer, %ANOT_AGENT_FINISH
 */
gboolean
anot_agent_action_is_finish (AnotAgentAction *self)
{
  g_return_val_if_fail (ANOT_IS_AGENT_ACTION (self), FALSE);

  return g_ascii_strcasecmp (self->tool, ANOT_AGENT_FINISH) == 0;
}

/**
 * anot_agent_action_get_n_arguments:
 * @self: an action
 *
 * Returns: the number of arguments
 */
guint
anot_agent_action_get_n_arguments (AnotAgentAction *self)
{
  g_return_val_if_fail (ANOT_IS_AGENT_ACTION (self), 0);

  return json_array_get_length (self->arguments);
}

/**
 * anot_agent_action_get_argument:
 * @self: an action
 * @index: the argument's position
 *
 * Returns: (transfer none): the argument
 */
JsonNode *
anot_agent_action_get_argument (AnotAgentAction *self,
                                guint            index)
{
  g_return_val_if_fail (ANOT_IS_AGENT_ACTION (self), NULL);
  g_return_val_if_fail (index < json_array_get_length (self->arguments), NULL);

  return json_array_get_element (self->arguments, index);
}

/**
 * anot_agent_action_dup_argument_text:
 * @self: an action
 * @index: the argument's position
 *
 * Returns: (transfer full): a string argument as it is, any other as
 *   compact JSON
 */
char *
anot_agent_action_dup_argument_text (AnotAgentAction *self,
                                     guint            index)
{
  JsonNode *node = anot_agent_action_get_argument (self, index);

  g_return_val_if_fail (node != NULL, NULL);

  if (JSON_NODE_HOLDS_VALUE (node) && json_node_get_value_type (node) == G_TYPE_STRING)
    return g_strdup (json_node_get_string (node));
  return json_to_string (node, FALSE);
}

/**
 * anot_agent_action_get_arguments:
 * @self: an action
 *
 * Returns: (transfer full): the arguments as a JSON array node
 */
JsonNode *
anot_agent_action_get_arguments (AnotAgentAction *self)
{
  JsonNode *node;

  g_return_val_if_fail (ANOT_IS_AGENT_ACTION (self), NULL);

  node = json_node_new (JSON_NODE_ARRAY);
  json_node_set_array (node, self->arguments);
  return node;
}

/**
 * anot_agent_action_to_string:
 * @self: an action
 *
 * Writes the action in canonical form, `tool("text", 3)`, arguments as
 * compact JSON.  Two actions that do the same thing write the same text,
 * so it also serves to find duplicates.
 *
 * Returns: (transfer full): the text
 */
char *
anot_agent_action_to_string (AnotAgentAction *self)
{
  GString *out;

  g_return_val_if_fail (ANOT_IS_AGENT_ACTION (self), NULL);

  out = g_string_new (self->tool);
  g_string_append_c (out, '(');
  for (guint i = 0; i < json_array_get_length (self->arguments); i++)
    {
      g_autofree char *text = json_to_string (json_array_get_element (self->arguments, i), FALSE);

      if (i > 0)
        g_string_append (out, ", ");
      g_string_append (out, text);
    }
  g_string_append_c (out, ')');
  return g_string_free (out, FALSE);
}

/**
 * anot_agent_format_step:
 * @thought: (nullable): the thought
 * @action: (nullable): the action, as text
 * @observation: (nullable): what the action returned
 *
 * Writes one step of a trajectory the way agent prompts show it:
 * `Thought: ...`, `Action: ...` and `Observation: ...` lines, leaving out
 * what is %NULL.
 *
 * Returns: (transfer full): the text, ending in a newline (empty if
 *   everything is %NULL)
 */
char *
anot_agent_format_step (const char *thought,
                        const char *action,
                        const char *observation)
{
  GString *out = g_string_new (NULL);

  if (thought != NULL)
    g_string_append_printf (out, "Thought: %s\n", thought);
  if (action != NULL)
    g_string_append_printf (out, "Action: %s\n", action);
  if (observation != NULL)
    g_string_append_printf (out, "Observation: %s\n", observation);
  return g_string_free (out, FALSE);
}
