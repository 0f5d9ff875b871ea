/* anot-agent-toolbox.c: the tools an agent acts with, over one candidate pool
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "anot-agent-toolbox.h"

#include <stdlib.h>
#include <string.h>

#include "anot-tool-private.h"
#include "anot-data-context.h"
#include "anot-dataset.h"
#include "anot-dataset-private.h"
#include "anot-domain.h"
#include "anot-data-tool.h"
#include "anot-item.h"
#include "anot-item-check-tool.h"
#include "anot-review-search-tool.h"

/**
 * AnotAgentToolbox:
 *
 * The actions of a tool-using agent (ReAct, LATS) over one request's
 * candidates, shared by every method that runs such an agent so they
 * explore the data the same way.
 *
 * A new toolbox has, in this order:
 *
 * | action | tool |
 * |---|---|
 * | `count("path")`, `keys("path")`, `union_keys("path")`, `sample("path")` | the data-exploration tools ([class@Anot.DataTool]) over the dict context |
 * | `check("expression"[, item])` | [class@Anot.ItemCheckTool], a per-item condition |
 * | `search_reviews("keyword"[, item])` | [class@Anot.ReviewSearchTool] |
 * | `finish("3, 1, 5")` | the final answer, read with [func@Anot.parse_ranking] (the items named, nothing appended) |
 *
 * Methods may add their own tools (anot_agent_toolbox_add_tool()).  The
 * dict context (anot_data_context_new()) is built the first time a tool
 * needs it; `sample` shows up to one value per candidate, cut at 300
 * characters.
 *
 * anot_agent_toolbox_execute() runs an [class@Anot.AgentAction] and
 * returns the observation the model reads next: the tool's result as
 * compact JSON, or `Error: ...` with what to do instead (an unknown
 * action lists the valid ones); observations are cut at
 * [property@Anot.AgentToolbox:max-observation-chars].  Executing never
 * fails: mistakes are observations.
 */

#define SAMPLE_VALUE_LENGTH 300

struct _AnotAgentToolbox
{
  GObject     parent_instance;

  GPtrArray  *candidates;
  JsonNode   *data;
  GPtrArray  *tools;          /* AnotTool*, in description order */
  GHashTable *signatures;     /* name -> signature */
  guint       max_observation_chars;
  guint       n_executed;
};

G_DEFINE_FINAL_TYPE (AnotAgentToolbox, anot_agent_toolbox, G_TYPE_OBJECT)

enum {
  PROP_0,
  PROP_MAX_OBSERVATION_CHARS,
  PROP_N_EXECUTED,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

/* ------------------------------------------------------------------------ *
 * AnotAgentToolbox
 * ------------------------------------------------------------------------ */

static void
anot_agent_toolbox_finalize (GObject *object)
{
  AnotAgentToolbox *self = ANOT_AGENT_TOOLBOX (object);

  g_clear_pointer (&self->candidates, g_ptr_array_unref);
  g_clear_pointer (&self->data, json_node_unref);
  g_ptr_array_unref (self->tools);
  g_hash_table_unref (self->signatures);

  G_OBJECT_CLASS (anot_agent_toolbox_parent_class)->finalize (object);
}

static void
anot_agent_toolbox_get_property (GObject    *object,
                                 guint       prop_id,
                                 GValue     *value,
                                 GParamSpec *pspec)
{
  AnotAgentToolbox *self = ANOT_AGENT_TOOLBOX (object);

  switch (prop_id)
    {
    case PROP_MAX_OBSERVATION_CHARS:
      g_value_set_uint (value, self->max_observation_chars);
      break;
    case PROP_N_EXECUTED:
      g_value_set_uint (value, self->n_executed);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
anot_agent_toolbox_set_property (GObject      *object,
                                 guint         prop_id,
                                 const GValue *value,
                                 GParamSpec   *pspec)
{
  AnotAgentToolbox *self = ANOT_AGENT_TOOLBOX (object);

  switch (prop_id)
    {
    case PROP_MAX_OBSERVATION_CHARS:
      anot_agent_toolbox_set_max_observation_chars (self, g_value_get_uint (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
anot_agent_toolbox_class_init (AnotAgentToolboxClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = anot_agent_toolbox_finalize;
  object_class->get_property = anot_agent_toolbox_get_property;
  object_class->set_property = anot_agent_toolbox_set_property;

  /**
   * AnotAgentToolbox:max-observation-chars:
   *
   * Observations longer than this many characters are cut and end with
   * `... (truncated)`.
   */
  properties[PROP_MAX_OBSERVATION_CHARS] =
    g_param_spec_uint ("max-observation-chars", NULL, NULL, 1, G_MAXUINT,
                       ANOT_AGENT_TOOLBOX_DEFAULT_MAX_OBSERVATION_CHARS,
                       G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);

  /**
   * AnotAgentToolbox:n-executed:
   *
   * How many actions anot_agent_toolbox_execute() ran.
   */
  properties[PROP_N_EXECUTED] =
    g_param_spec_uint ("n-executed", NULL, NULL, 0, G_MAXUINT, 0,
                       G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);

  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
anot_agent_toolbox_init (AnotAgentToolbox *self)
{
  self->tools = g_ptr_array_new_with_free_func (g_object_unref);
  self->signatures = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  self->max_observation_chars = ANOT_AGENT_TOOLBOX_DEFAULT_MAX_OBSERVATION_CHARS;
}

/* A value that reads the same in the raw data and in the expression:
 * letters, digits, spaces, '_' and '-', at most 20 characters. */
static gboolean
plain_value (const char *value)
{
  gsize length = strlen (value);

  if (length == 0 || length > 20)
    return FALSE;
  for (const char *p = value; *p != '\0'; p++)
    if (!g_ascii_isalnum (*p) && *p != ' ' && *p != '_' && *p != '-')
      return FALSE;
  return TRUE;
}

/* `check`'s example over the candidates' own attributes when they come
 * from a benchmark of another domain than restaurants: the first of the
 * domain's example attributes that a candidate has with a boolean or a
 * plain value, compared with that value as the check sees it ("True" is
 * True).  NULL on restaurants (the original example) or when no
 * attribute fits. */
static char *
check_example (GPtrArray *candidates)
{
  g_autoptr(AnotDataset) dataset = NULL;
  AnotDomain *domain;
  const char * const *names;

  if (candidates->len == 0)
    return NULL;
  dataset = _anot_item_get_dataset (g_ptr_array_index (candidates, 0));
  domain = dataset != NULL ? anot_dataset_get_domain (dataset) : NULL;
  if (domain == NULL || anot_domain_is_default (domain))
    return NULL;
  names = anot_domain_get_example_attributes (domain);
  for (guint n = 0; names[n] != NULL; n++)
    {
      if (!plain_value (names[n]))
        continue;
      for (guint i = 0; i < candidates->len; i++)
        {
          const char *value = anot_item_get_attribute (g_ptr_array_index (candidates, i), names[n]);

          if (value == NULL)
            continue;
          if (g_str_equal (value, "True") || g_str_equal (value, "False"))
            return g_strdup_printf ("attributes.get('%s') == %s", names[n], value);
          if (plain_value (value) && !g_str_equal (value, "None"))
            return g_strdup_printf ("attributes.get('%s') == '%s'", names[n], value);
        }
    }
  return NULL;
}

/**
 * anot_agent_toolbox_new:
 * @candidates: (element-type Anot.Item): the candidates, in the order the
 *   model sees them (item 1 first)
 *
 * Creates a toolbox with the core's tools over @candidates.
 *
 * Returns: (transfer full): a new toolbox
 */
AnotAgentToolbox *
anot_agent_toolbox_new (GPtrArray *candidates)
{
  AnotAgentToolbox *self;
  g_auto(GStrv) names = anot_data_tool_list_builtin ();

  g_return_val_if_fail (candidates != NULL, NULL);

  self = g_object_new (ANOT_TYPE_AGENT_TOOLBOX, NULL);
  self->candidates = g_ptr_array_ref (candidates);

  for (guint i = 0; names[i] != NULL; i++)
    {
      g_autoptr(AnotDataTool) tool = anot_data_tool_new (names[i], NULL);
      g_autofree char *signature = g_strdup_printf ("%s(\"path\")", names[i]);

      if (strcmp (names[i], "sample") == 0)
        {
          anot_data_tool_set_max_samples (tool, MAX (candidates->len, 1));
          anot_data_tool_set_max_value_length (tool, SAMPLE_VALUE_LENGTH);
        }
      anot_agent_toolbox_add_tool (self, ANOT_TOOL (tool), signature);
    }
  {
    g_autoptr(AnotItemCheckTool) check = anot_item_check_tool_new (NULL);
    g_autoptr(AnotReviewSearchTool) search = anot_review_search_tool_new (NULL);

    g_autofree char *example = check_example (candidates);

    if (example != NULL)
      _anot_item_check_tool_set_example (check, example);
    anot_agent_toolbox_add_tool (self, ANOT_TOOL (check), "check(\"expression\"[, item])");
    anot_agent_toolbox_add_tool (self, ANOT_TOOL (search), "search_reviews(\"keyword\"[, item])");
  }
  return self;
}

/**
 * anot_agent_toolbox_get_candidates:
 * @self: a toolbox
 *
 * Returns: (transfer none) (element-type Anot.Item): the candidates
 */
GPtrArray *
anot_agent_toolbox_get_candidates (AnotAgentToolbox *self)
{
  g_return_val_if_fail (ANOT_IS_AGENT_TOOLBOX (self), NULL);

  return self->candidates;
}

static void
give_data (AnotTool *tool,
           JsonNode *data)
{
  GParamSpec *pspec = g_object_class_find_property (G_OBJECT_GET_CLASS (tool), "data");

  if (pspec != NULL && G_PARAM_SPEC_VALUE_TYPE (pspec) == JSON_TYPE_NODE &&
      (pspec->flags & G_PARAM_WRITABLE) != 0)
    g_object_set (tool, "data", data, NULL);
}

/**
 * anot_agent_toolbox_get_data:
 * @self: a toolbox
 *
 * The dict context of the candidates, `{"items": {"1": ..., ...}}`,
 * built on first use and given to every tool that has a `data` property.
 *
 * Returns: (transfer none): the document the tools read
 */
JsonNode *
anot_agent_toolbox_get_data (AnotAgentToolbox *self)
{
  g_return_val_if_fail (ANOT_IS_AGENT_TOOLBOX (self), NULL);

  if (self->data == NULL)
    {
      self->data = anot_data_context_new (self->candidates);
      for (guint i = 0; i < self->tools->len; i++)
        give_data (g_ptr_array_index (self->tools, i), self->data);
    }
  return self->data;
}

/**
 * anot_agent_toolbox_add_tool:
 * @self: a toolbox
 * @tool: a tool; one of the same name is replaced
 * @signature: (nullable): how the prompt shows its call, e.g.
 *   `lookup("name")`; `NAME(arguments)` when %NULL
 *
 * Adds a tool the model may call.  Its arguments reach
 * [method@Anot.Tool.invoke] as the action's only argument when there is
 * one, as an array when there are several, and as JSON null when there
 * is none.  A tool with a writable `data` property of type #JsonNode gets
 * the dict context.
 */
void
anot_agent_toolbox_add_tool (AnotAgentToolbox *self,
                             AnotTool         *tool,
                             const char       *signature)
{
  const char *name;

  g_return_if_fail (ANOT_IS_AGENT_TOOLBOX (self));
  g_return_if_fail (ANOT_IS_TOOL (tool));

  name = anot_tool_get_name (tool);
  g_return_if_fail (name != NULL && g_ascii_strcasecmp (name, ANOT_AGENT_FINISH) != 0);

  for (guint i = 0; i < self->tools->len; i++)
    if (g_strcmp0 (anot_tool_get_name (g_ptr_array_index (self->tools, i)), name) == 0)
      {
        g_ptr_array_remove_index (self->tools, i);
        break;
      }
  g_ptr_array_add (self->tools, g_object_ref (tool));
  g_hash_table_insert (self->signatures, g_strdup (name),
                       signature != NULL ? g_strdup (signature)
                                         : g_strdup_printf ("%s(arguments)", name));
  if (self->data != NULL)
    give_data (tool, self->data);
}

/**
 * anot_agent_toolbox_lookup_tool:
 * @self: a toolbox
 * @name: a tool's name
 *
 * Returns: (transfer none) (nullable): the tool, or %NULL
 */
AnotTool *
anot_agent_toolbox_lookup_tool (AnotAgentToolbox *self,
                                const char       *name)
{
  g_return_val_if_fail (ANOT_IS_AGENT_TOOLBOX (self), NULL);
  g_return_val_if_fail (name != NULL, NULL);

  for (guint i = 0; i < self->tools->len; i++)
    if (g_strcmp0 (anot_tool_get_name (g_ptr_array_index (self->tools, i)), name) == 0)
      return g_ptr_array_index (self->tools, i);
  return NULL;
}

/**
 * anot_agent_toolbox_list_actions:
 * @self: a toolbox
 *
 * Returns: (transfer full) (array zero-terminated=1): the names of the
 *   actions, tools first and %ANOT_AGENT_FINISH last
 */
char **
anot_agent_toolbox_list_actions (AnotAgentToolbox *self)
{
  GPtrArray *names;

  g_return_val_if_fail (ANOT_IS_AGENT_TOOLBOX (self), NULL);

  names = g_ptr_array_new ();
  for (guint i = 0; i < self->tools->len; i++)
    g_ptr_array_add (names, g_strdup (anot_tool_get_name (g_ptr_array_index (self->tools, i))));
  g_ptr_array_add (names, g_strdup (ANOT_AGENT_FINISH));
  g_ptr_array_add (names, NULL);
  return (char **) g_ptr_array_free (names, FALSE);
}

/**
 * anot_agent_toolbox_describe:
 * @self: a toolbox
 *
 * The actions for a prompt, one per line: `- signature: description`,
 * `finish` last.
 *
 * Returns: (transfer full): the text, without a final newline
 */
char *
anot_agent_toolbox_describe (AnotAgentToolbox *self)
{
  GString *out;

  g_return_val_if_fail (ANOT_IS_AGENT_TOOLBOX (self), NULL);

  out = g_string_new (NULL);
  for (guint i = 0; i < self->tools->len; i++)
    {
      AnotTool *tool = g_ptr_array_index (self->tools, i);
      const char *name = anot_tool_get_name (tool);
      const char *description = anot_tool_get_description (tool);

      g_string_append_printf (out, "- %s: %s\n",
                              (const char *) g_hash_table_lookup (self->signatures, name),
                              description != NULL ? description : "");
    }
  g_string_append (out, "- " ANOT_AGENT_FINISH "(\"i, j, k\"): your final answer, the item numbers "
                   "best first; it ends the task");
  return g_string_free (out, FALSE);
}

/**
 * anot_agent_toolbox_get_max_observation_chars:
 * @self: a toolbox
 *
 * Returns: the length beyond which observations are cut
 */
guint
anot_agent_toolbox_get_max_observation_chars (AnotAgentToolbox *self)
{
  g_return_val_if_fail (ANOT_IS_AGENT_TOOLBOX (self), 0);

  return self->max_observation_chars;
}

/**
 * anot_agent_toolbox_set_max_observation_chars:
 * @self: a toolbox
 * @max_chars: a length in characters, at least 1
 *
 * Sets the length beyond which observations are cut.
 */
void
anot_agent_toolbox_set_max_observation_chars (AnotAgentToolbox *self,
                                              guint             max_chars)
{
  g_return_if_fail (ANOT_IS_AGENT_TOOLBOX (self));
  g_return_if_fail (max_chars > 0);

  if (self->max_observation_chars == max_chars)
    return;
  self->max_observation_chars = max_chars;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_MAX_OBSERVATION_CHARS]);
}

/**
 * anot_agent_toolbox_get_n_executed:
 * @self: a toolbox
 *
 * Returns: how many actions were executed
 */
guint
anot_agent_toolbox_get_n_executed (AnotAgentToolbox *self)
{
  g_return_val_if_fail (ANOT_IS_AGENT_TOOLBOX (self), 0);

  return self->n_executed;
}

static char *
execute_finish (AnotAgentToolbox  *self,
                AnotAgentAction   *action,
                AnotParseResult  **out_answer)
{
  g_autoptr(GString) text = g_string_new (NULL);
  g_autoptr(AnotParseResult) parse = NULL;
  g_autoptr(GString) shown = g_string_new (NULL);
  const guint *indices;
  guint n_indices;
  guint n_parsed;

  for (guint i = 0; i < anot_agent_action_get_n_arguments (action); i++)
    {
      g_autofree char *argument = anot_agent_action_dup_argument_text (action, i);

      g_string_append_printf (text, "%s%s", i > 0 ? ", " : "", argument);
    }

  /* Only what the model named, as every baseline reads its answers. */
  parse = anot_parse_ranking (text->str, self->candidates->len, self->candidates,
                              ANOT_PARSE_FLAGS_NONE);
  if (out_answer != NULL)
    *out_answer = g_object_ref (parse);
  if (!anot_parse_result_get_ok (parse))
    return g_strdup_printf ("Error: no ranking could be read from finish(): %s. Write the item "
                            "numbers best first, e.g. finish(\"3, 1, 5\")",
                            anot_parse_result_get_message (parse));

  indices = anot_parse_result_get_indices (parse, &n_indices);
  n_parsed = anot_parse_result_get_n_parsed (parse);
  for (guint i = 0; i < n_parsed && i < n_indices; i++)
    g_string_append_printf (shown, "%s%u", i > 0 ? ", " : "", indices[i] + 1);
  return g_strdup_printf ("Final answer: %s", shown->str);
}

/**
 * anot_agent_toolbox_execute:
 * @self: a toolbox
 * @action: the action to run
 * @out_answer: (out) (optional) (nullable) (transfer full): for
 *   %ANOT_AGENT_FINISH, the parsed ranking (which may have failed); else
 *   %NULL
 *
 * Runs @action and writes what the model observes.  Mistakes (an unknown
 * action, bad arguments, a path that does not exist, a finish without a
 * readable ranking) are `Error: ...` observations, never failures.
 *
 * Returns: (transfer full): the observation
 */
char *
anot_agent_toolbox_execute (AnotAgentToolbox  *self,
                            AnotAgentAction   *action,
                            AnotParseResult  **out_answer)
{
  AnotTool *tool;
  g_autoptr(JsonNode) args = NULL;
  g_autoptr(JsonNode) result = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *text = NULL;
  guint n_arguments;

  g_return_val_if_fail (ANOT_IS_AGENT_TOOLBOX (self), NULL);
  g_return_val_if_fail (ANOT_IS_AGENT_ACTION (action), NULL);

  if (out_answer != NULL)
    *out_answer = NULL;
  self->n_executed++;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_N_EXECUTED]);

  if (anot_agent_action_is_finish (action))
    return execute_finish (self, action, out_answer);

  tool = anot_agent_toolbox_lookup_tool (self, anot_agent_action_get_tool (action));
  if (tool == NULL)
    {
      g_auto(GStrv) names = anot_agent_toolbox_list_actions (self);
      g_autofree char *list = g_strjoinv (", ", names);

      return g_strdup_printf ("Error: unknown action “%s”; the actions are %s",
                              anot_agent_action_get_tool (action), list);
    }

  anot_agent_toolbox_get_data (self);
  n_arguments = anot_agent_action_get_n_arguments (action);
  if (n_arguments == 0)
    args = json_node_init_null (json_node_alloc ());
  else if (n_arguments == 1)
    args = json_node_copy (anot_agent_action_get_argument (action, 0));
  else
    args = anot_agent_action_get_arguments (action);

  result = anot_tool_invoke (tool, args, &error);
  if (result == NULL)
    text = g_strdup_printf ("Error: %s", error->message);
  else
    text = anot_tool_result_to_text (result);
  return _anot_tool_truncate (text, self->max_observation_chars, "... (truncated)");
}
