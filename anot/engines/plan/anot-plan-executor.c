/* anot-plan-executor.c: validating and running Atom of Thought plans
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "anot-plan-executor.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "anot-backend-router.h"
#include "anot-completion.h"
#include "anot-data-context.h"
#include "anot-data-path.h"
#include "anot-data-tool.h"
#include "anot-debug-log.h"
#include "anot-error.h"
#include "anot-parse.h"
#include "anot-plan-private.h"
#include "anot-pyliteral-private.h"
#include "anot-validator-private.h"

/**
 * AnotPlanExecutor:
 *
 * Checks and runs [class@Anot.Plan]s over a pool of candidates, for any
 * method that wants a model to plan and the system to execute.
 *
 * Tools available to atoms:
 *
 * | tool | input | result |
 * |---|---|---|
 * | `count`, `keys`, `union_keys`, `sample` | `path` | the data tools' results over the dict context (see [class@Anot.DataTool]) |
 * | `check_attribute` | `item`, `attribute` (`WiFi`, `Ambience.hipster`), optional `expected` | per item: `true`/`false`, `null` when the item lacks the attribute (or it is `None`) unless `expected` is `"none"` (then `true`, as the validator's None equals none); the value compared with `expected` as the validator compares a leaf's `true` (quoted and unquoted spellings equal, `"True"`/`"False"` booleans, `"u'none'"` is `None`); without `expected`, whether the value is truthy |
 * | `has_category` | `item`, `category` | per item: whether a category contains the text, case-insensitively (`Bars` matches `Wine Bars`), as a category leaf's `contains` |
 * | `hours_open` | `item`, `day` (`Monday`...), `start` (`HH:MM`), optional `end` | per item: whether the listed hours of `day` cover `start`–`end`; `null` without hours |
 * | `reviews_matching` | `item`, `pattern` (case-insensitive regular expression, or plain text) | per item: the number of reviews that match |
 * | `llm_judge` | `item`, `question` | per item: the model's score from 0 to 10 (one call per item, role [property@Anot.PlanExecutor:role]); `null` if it gave none |
 * | `rank` (the `final` atom) | `scores` (references to per-item atoms), optional `weights` | the ranking: items by their weighted sum, highest first, ties by position |
 *
 * `item` is a 1-based candidate number, or `"*"` for every candidate; a
 * per-item result is always an object keyed by item number.  In `rank`,
 * a truth counts 1 or 0 (`null` 0), a score its tenth, a count 1 if
 * positive.  Tools added with anot_plan_executor_add_tool() take the
 * inputs of their schema and give their JSON result.
 *
 * anot_plan_executor_check() lists every problem of a plan — structural
 * ones, duplicate ids, unknown tools, missing dependencies, cycles, not
 * exactly one final `rank` atom, missing or unexpected inputs, inputs of
 * the wrong type (a per-item result where a string is expected...) —
 * each in a sentence a model can act on.
 *
 * Running is by data flow: an atom starts when the atoms it depends on
 * have finished, and every atom that can start does, so independent
 * atoms (and the per-item calls of a judge) run in parallel.  Given the
 * same plan and the same model answers, the result is the same.
 */

typedef enum {
  PARAM_STRING,
  PARAM_NUMBER,
  PARAM_BOOLEAN,
  PARAM_INTEGER,
  PARAM_OBJECT,
  PARAM_ARRAY,
  PARAM_ITEM,
  PARAM_DAY,
  PARAM_TIME,
  PARAM_ANY,
  PARAM_REFS,
  PARAM_NUMBERS,
} ParamType;

typedef enum {
  OUTPUT_VALUE,
  OUTPUT_TRUTH,
  OUTPUT_SCORE,
  OUTPUT_COUNT,
  OUTPUT_RANKING,
} OutputKind;

typedef struct {
  char      *name;
  ParamType  type;
  gboolean   required;
  char      *description;
} Param;

typedef struct {
  char       *name;
  gboolean    final;
  char       *description;
  GArray     *params;      /* Param */
  OutputKind  output;
  AnotTool   *tool;        /* data tools and added tools */
} ToolSpec;

struct _AnotPlanExecutor
{
  GObject parent_instance;

  AnotMethodContext *context;
  GPtrArray         *candidates;
  JsonNode          *data;
  char              *role;
  GPtrArray         *specs;        /* ToolSpec */
};

G_DEFINE_FINAL_TYPE (AnotPlanExecutor, anot_plan_executor, G_TYPE_OBJECT)

enum {
  PROP_0,
  PROP_CONTEXT,
  PROP_ROLE,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

#define JUDGE_REVIEWS 3
#define JUDGE_REVIEW_CHARS 300

static const char * const days[] = {
  "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday",
};

static void
param_clear (gpointer data)
{
  Param *param = data;

  g_free (param->name);
  g_free (param->description);
}

static void
tool_spec_free (gpointer data)
{
  ToolSpec *spec = data;

  g_free (spec->name);
  g_free (spec->description);
  g_array_unref (spec->params);
  g_clear_object (&spec->tool);
  g_free (spec);
}

static ToolSpec *
spec_new (const char *name,
          gboolean    final,
          OutputKind  output,
          const char *description)
{
  ToolSpec *spec = g_new0 (ToolSpec, 1);

  spec->name = g_strdup (name);
  spec->final = final;
  spec->output = output;
  spec->description = g_strdup (description);
  spec->params = g_array_new (FALSE, TRUE, sizeof (Param));
  g_array_set_clear_func (spec->params, param_clear);
  return spec;
}

static void
spec_add_param (ToolSpec   *spec,
                const char *name,
                ParamType   type,
                gboolean    required,
                const char *description)
{
  Param param = { g_strdup (name), type, required, g_strdup (description) };

  g_array_append_val (spec->params, param);
}

static gboolean
is_per_item (OutputKind output)
{
  return output == OUTPUT_TRUTH || output == OUTPUT_SCORE || output == OUTPUT_COUNT;
}

static void
anot_plan_executor_finalize (GObject *object)
{
  AnotPlanExecutor *self = ANOT_PLAN_EXECUTOR (object);

  g_clear_object (&self->context);
  g_clear_pointer (&self->candidates, g_ptr_array_unref);
  g_clear_pointer (&self->data, json_node_unref);
  g_free (self->role);
  g_ptr_array_unref (self->specs);

  G_OBJECT_CLASS (anot_plan_executor_parent_class)->finalize (object);
}

static void
anot_plan_executor_get_property (GObject    *object,
                                 guint       prop_id,
                                 GValue     *value,
                                 GParamSpec *pspec)
{
  AnotPlanExecutor *self = ANOT_PLAN_EXECUTOR (object);

  switch (prop_id)
    {
    case PROP_CONTEXT:
      g_value_set_object (value, self->context);
      break;
    case PROP_ROLE:
      g_value_set_string (value, self->role);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
anot_plan_executor_set_property (GObject      *object,
                                 guint         prop_id,
                                 const GValue *value,
                                 GParamSpec   *pspec)
{
  AnotPlanExecutor *self = ANOT_PLAN_EXECUTOR (object);

  switch (prop_id)
    {
    case PROP_CONTEXT:
      self->context = g_value_dup_object (value);
      break;
    case PROP_ROLE:
      anot_plan_executor_set_role (self, g_value_get_string (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
anot_plan_executor_class_init (AnotPlanExecutorClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = anot_plan_executor_finalize;
  object_class->get_property = anot_plan_executor_get_property;
  object_class->set_property = anot_plan_executor_set_property;

  /**
   * AnotPlanExecutor:context:
   *
   * The method context whose router makes the judges' calls.
   */
  properties[PROP_CONTEXT] =
    g_param_spec_object ("context", NULL, NULL, ANOT_TYPE_METHOD_CONTEXT,
                         G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS);

  /**
   * AnotPlanExecutor:role:
   *
   * The role of the `llm_judge` calls.
   */
  properties[PROP_ROLE] =
    g_param_spec_string ("role", NULL, NULL, "scorer",
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);

  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
add_builtin_specs (AnotPlanExecutor *self)
{
  g_auto(GStrv) names = anot_data_tool_list_builtin ();
  ToolSpec *spec;

  for (guint i = 0; names[i] != NULL; i++)
    {
      AnotDataTool *tool = anot_data_tool_new (names[i], NULL);

      spec = spec_new (names[i], FALSE, OUTPUT_VALUE, anot_tool_get_description (ANOT_TOOL (tool)));
      spec->tool = ANOT_TOOL (tool);
      spec_add_param (spec, "path", PARAM_STRING, TRUE, "a path, e.g. \"items[*].attributes\"");
      g_ptr_array_add (self->specs, spec);
    }

  spec = spec_new ("check_attribute", FALSE, OUTPUT_TRUTH,
                   "Per item: whether an attribute has a value (or is truthy); null if the item lacks it");
  spec_add_param (spec, "item", PARAM_ITEM, TRUE, "a candidate number, or \"*\" for all");
  spec_add_param (spec, "attribute", PARAM_STRING, TRUE, "an attribute, e.g. \"WiFi\" or \"Ambience.hipster\"");
  spec_add_param (spec, "expected", PARAM_ANY, FALSE, "the value wanted, e.g. true or \"free\"");
  g_ptr_array_add (self->specs, spec);

  spec = spec_new ("has_category", FALSE, OUTPUT_TRUTH,
                   "Per item: whether one of its categories contains a text (case-insensitive)");
  spec_add_param (spec, "item", PARAM_ITEM, TRUE, "a candidate number, or \"*\" for all");
  spec_add_param (spec, "category", PARAM_STRING, TRUE, "a category or part of one, e.g. \"Tapas Bars\"");
  g_ptr_array_add (self->specs, spec);

  spec = spec_new ("hours_open", FALSE, OUTPUT_TRUTH,
                   "Per item: whether its hours on a day cover a time span; null if it lists no hours");
  spec_add_param (spec, "item", PARAM_ITEM, TRUE, "a candidate number, or \"*\" for all");
  spec_add_param (spec, "day", PARAM_DAY, TRUE, "Monday to Sunday");
  spec_add_param (spec, "start", PARAM_TIME, TRUE, "HH:MM");
  spec_add_param (spec, "end", PARAM_TIME, FALSE, "HH:MM (default: start)");
  g_ptr_array_add (self->specs, spec);

  spec = spec_new ("reviews_matching", FALSE, OUTPUT_COUNT,
                   "Per item: how many of its reviews match a pattern (case-insensitive)");
  spec_add_param (spec, "item", PARAM_ITEM, TRUE, "a candidate number, or \"*\" for all");
  spec_add_param (spec, "pattern", PARAM_STRING, TRUE, "a regular expression or plain words");
  g_ptr_array_add (self->specs, spec);

  spec = spec_new ("llm_judge", FALSE, OUTPUT_SCORE,
                   "Per item: a model's score from 0 to 10 for one question about the item");
  spec_add_param (spec, "item", PARAM_ITEM, TRUE, "a candidate number, or \"*\" for all");
  spec_add_param (spec, "question", PARAM_STRING, TRUE, "one question about one item");
  g_ptr_array_add (self->specs, spec);

  spec = spec_new ("rank", TRUE, OUTPUT_RANKING,
                   "The final atom: ranks the items by the weighted sum of per-item results");
  spec_add_param (spec, "scores", PARAM_REFS, TRUE, "references to per-item atoms, e.g. [\"$1\", \"$2\"]");
  spec_add_param (spec, "weights", PARAM_NUMBERS, FALSE, "one weight per score (default 1)");
  g_ptr_array_add (self->specs, spec);
}

static void
anot_plan_executor_init (AnotPlanExecutor *self)
{
  self->role = g_strdup ("scorer");
  self->specs = g_ptr_array_new_with_free_func (tool_spec_free);
  add_builtin_specs (self);
}

/**
 * anot_plan_executor_new:
 * @context: the method context (its router makes the judges' calls)
 * @candidates: (element-type Anot.Item): the candidates, in the order the
 *   method sees them
 *
 * Returns: (transfer full): a new executor
 */
AnotPlanExecutor *
anot_plan_executor_new (AnotMethodContext *context,
                        GPtrArray         *candidates)
{
  AnotPlanExecutor *self;

  g_return_val_if_fail (ANOT_IS_METHOD_CONTEXT (context), NULL);
  g_return_val_if_fail (candidates != NULL, NULL);

  self = g_object_new (ANOT_TYPE_PLAN_EXECUTOR, "context", context, NULL);
  self->candidates = g_ptr_array_ref (candidates);
  self->data = anot_data_context_new (candidates);
  for (guint i = 0; i < self->specs->len; i++)
    {
      ToolSpec *spec = g_ptr_array_index (self->specs, i);

      if (spec->tool != NULL && ANOT_IS_DATA_TOOL (spec->tool))
        anot_data_tool_set_data (ANOT_DATA_TOOL (spec->tool), self->data);
    }
  return self;
}

/**
 * anot_plan_executor_get_context:
 * @self: an #AnotPlanExecutor
 *
 * Returns: (transfer none): the method context
 */
AnotMethodContext *
anot_plan_executor_get_context (AnotPlanExecutor *self)
{
  g_return_val_if_fail (ANOT_IS_PLAN_EXECUTOR (self), NULL);
  return self->context;
}

/**
 * anot_plan_executor_get_data:
 * @self: an #AnotPlanExecutor
 *
 * Returns: (transfer none): the dict context of the candidates
 */
JsonNode *
anot_plan_executor_get_data (AnotPlanExecutor *self)
{
  g_return_val_if_fail (ANOT_IS_PLAN_EXECUTOR (self), NULL);
  return self->data;
}

/**
 * anot_plan_executor_get_role:
 * @self: an #AnotPlanExecutor
 *
 * Returns: the role of the judges' calls
 */
const char *
anot_plan_executor_get_role (AnotPlanExecutor *self)
{
  g_return_val_if_fail (ANOT_IS_PLAN_EXECUTOR (self), NULL);
  return self->role;
}

/**
 * anot_plan_executor_set_role:
 * @self: an #AnotPlanExecutor
 * @role: (nullable): a role; %NULL for "scorer"
 *
 * Sets [property@Anot.PlanExecutor:role].
 */
void
anot_plan_executor_set_role (AnotPlanExecutor *self,
                             const char       *role)
{
  g_return_if_fail (ANOT_IS_PLAN_EXECUTOR (self));

  if (role == NULL)
    role = "scorer";
  if (g_strcmp0 (self->role, role) == 0)
    return;
  g_free (self->role);
  self->role = g_strdup (role);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_ROLE]);
}

static ToolSpec *
lookup_spec (AnotPlanExecutor *self,
             const char       *name)
{
  for (guint i = 0; i < self->specs->len; i++)
    {
      ToolSpec *spec = g_ptr_array_index (self->specs, i);

      if (strcmp (spec->name, name) == 0)
        return spec;
    }
  return NULL;
}

static ParamType
param_type_from_schema (JsonObject *property)
{
  const char *type = property ? json_object_get_string_member_with_default (property, "type", "") : "";

  if (strcmp (type, "string") == 0)
    return PARAM_STRING;
  if (strcmp (type, "number") == 0)
    return PARAM_NUMBER;
  if (strcmp (type, "integer") == 0)
    return PARAM_INTEGER;
  if (strcmp (type, "boolean") == 0)
    return PARAM_BOOLEAN;
  if (strcmp (type, "object") == 0)
    return PARAM_OBJECT;
  if (strcmp (type, "array") == 0)
    return PARAM_ARRAY;
  return PARAM_ANY;
}

/**
 * anot_plan_executor_add_tool:
 * @self: an #AnotPlanExecutor
 * @tool: a tool
 *
 * Makes @tool available to atoms under its name, replacing a tool of the
 * same name.  Its inputs are the properties of its JSON schema (types
 * `string`, `number`, `integer`, `boolean`, `object`, `array`; `required`
 * honoured); it is called with the atom's input, references resolved, and
 * its result is the atom's.
 */
void
anot_plan_executor_add_tool (AnotPlanExecutor *self,
                             AnotTool         *tool)
{
  g_autoptr(JsonNode) schema = NULL;
  JsonObject *object = NULL;
  JsonObject *props = NULL;
  JsonArray *required = NULL;
  ToolSpec *spec;
  const char *name;

  g_return_if_fail (ANOT_IS_PLAN_EXECUTOR (self));
  g_return_if_fail (ANOT_IS_TOOL (tool));

  name = anot_tool_get_name (tool);
  for (guint i = 0; i < self->specs->len; i++)
    if (strcmp (((ToolSpec *) g_ptr_array_index (self->specs, i))->name, name) == 0)
      {
        g_ptr_array_remove_index (self->specs, i);
        break;
      }

  spec = spec_new (name, FALSE, OUTPUT_VALUE, anot_tool_get_description (tool));
  spec->tool = g_object_ref (tool);

  schema = anot_tool_get_schema (tool);
  if (schema != NULL && JSON_NODE_HOLDS_OBJECT (schema))
    object = json_node_get_object (schema);
  if (object != NULL && json_object_has_member (object, "properties"))
    props = json_object_get_object_member (object, "properties");
  if (object != NULL && json_object_has_member (object, "required") &&
      JSON_NODE_HOLDS_ARRAY (json_object_get_member (object, "required")))
    required = json_object_get_array_member (object, "required");

  if (props != NULL)
    {
      g_autoptr(GList) members = json_object_get_members (props);

      for (GList *l = members; l != NULL; l = l->next)
        {
          JsonNode *property = json_object_get_member (props, l->data);
          JsonObject *p = JSON_NODE_HOLDS_OBJECT (property) ? json_node_get_object (property) : NULL;
          gboolean is_required = FALSE;

          for (guint r = 0; required != NULL && r < json_array_get_length (required); r++)
            if (g_strcmp0 (json_array_get_string_element (required, r), l->data) == 0)
              is_required = TRUE;
          spec_add_param (spec, l->data, param_type_from_schema (p), is_required,
                          p ? json_object_get_string_member_with_default (p, "description", "") : "");
        }
    }

  /* Before the final rank, so listings keep it last. */
  g_ptr_array_insert (self->specs, self->specs->len - 1, spec);
}

/**
 * anot_plan_executor_list_tools:
 * @self: an #AnotPlanExecutor
 *
 * Returns: (transfer full) (array zero-terminated=1): the names of the
 *   tools atoms can use, `rank` (the final atom's) last
 */
char **
anot_plan_executor_list_tools (AnotPlanExecutor *self)
{
  char **names;

  g_return_val_if_fail (ANOT_IS_PLAN_EXECUTOR (self), NULL);

  names = g_new0 (char *, self->specs->len + 1);
  for (guint i = 0; i < self->specs->len; i++)
    names[i] = g_strdup (((ToolSpec *) g_ptr_array_index (self->specs, i))->name);
  return names;
}

static const char *
param_type_name (ParamType type)
{
  switch (type)
    {
    case PARAM_STRING: return "string";
    case PARAM_NUMBER: return "number";
    case PARAM_BOOLEAN: return "boolean";
    case PARAM_INTEGER: return "integer";
    case PARAM_OBJECT: return "object";
    case PARAM_ARRAY: return "array";
    case PARAM_ITEM: return "item number or \"*\"";
    case PARAM_DAY: return "day of the week";
    case PARAM_TIME: return "time HH:MM";
    case PARAM_REFS: return "list of references to per-item atoms";
    case PARAM_NUMBERS: return "list of numbers";
    case PARAM_ANY:
    default:
      return "any value";
    }
}

static const char *
output_name (OutputKind output)
{
  switch (output)
    {
    case OUTPUT_TRUTH: return "per item: true, false or null";
    case OUTPUT_SCORE: return "per item: a score from 0 to 10";
    case OUTPUT_COUNT: return "per item: a count";
    case OUTPUT_RANKING: return "the ranking";
    case OUTPUT_VALUE:
    default:
      return "a JSON value";
    }
}

/**
 * anot_plan_executor_describe_tools:
 * @self: an #AnotPlanExecutor
 *
 * Describes the tools for a prompt: a list of `{"name", "kind" (tool or
 * final), "description", "inputs": {"<name>": {"type", "required",
 * "description"}}, "result"}`.
 *
 * Returns: (transfer full): a JSON array node
 */
JsonNode *
anot_plan_executor_describe_tools (AnotPlanExecutor *self)
{
  g_autoptr(JsonBuilder) builder = json_builder_new ();

  g_return_val_if_fail (ANOT_IS_PLAN_EXECUTOR (self), NULL);

  json_builder_begin_array (builder);
  for (guint i = 0; i < self->specs->len; i++)
    {
      ToolSpec *spec = g_ptr_array_index (self->specs, i);

      json_builder_begin_object (builder);
      json_builder_set_member_name (builder, "name");
      json_builder_add_string_value (builder, spec->name);
      json_builder_set_member_name (builder, "kind");
      json_builder_add_string_value (builder, spec->final ? "final" : "tool");
      json_builder_set_member_name (builder, "description");
      json_builder_add_string_value (builder, spec->description ? spec->description : "");
      json_builder_set_member_name (builder, "inputs");
      json_builder_begin_object (builder);
      for (guint p = 0; p < spec->params->len; p++)
        {
          Param *param = &g_array_index (spec->params, Param, p);

          json_builder_set_member_name (builder, param->name);
          json_builder_begin_object (builder);
          json_builder_set_member_name (builder, "type");
          json_builder_add_string_value (builder, param_type_name (param->type));
          json_builder_set_member_name (builder, "required");
          json_builder_add_boolean_value (builder, param->required);
          json_builder_set_member_name (builder, "description");
          json_builder_add_string_value (builder, param->description ? param->description : "");
          json_builder_end_object (builder);
        }
      json_builder_end_object (builder);
      json_builder_set_member_name (builder, "result");
      json_builder_add_string_value (builder, output_name (spec->output));
      json_builder_end_object (builder);
    }
  json_builder_end_array (builder);

  return json_builder_get_root (builder);
}

/**
 * anot_plan_executor_get_plan_schema:
 * @self: an #AnotPlanExecutor
 *
 * Returns the JSON schema of a plan, to ask a model for a structured
 * answer (see anot_chat_request_set_json_schema()).  Tool names are
 * listed as an enumeration.
 *
 * Returns: (transfer full): the schema
 */
JsonNode *
anot_plan_executor_get_plan_schema (AnotPlanExecutor *self)
{
  g_autoptr(JsonBuilder) builder = json_builder_new ();

  g_return_val_if_fail (ANOT_IS_PLAN_EXECUTOR (self), NULL);

  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "type");
  json_builder_add_string_value (builder, "object");
  json_builder_set_member_name (builder, "properties");
  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "atoms");
  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "type");
  json_builder_add_string_value (builder, "array");
  json_builder_set_member_name (builder, "items");
  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "type");
  json_builder_add_string_value (builder, "object");
  json_builder_set_member_name (builder, "properties");
  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "id");
  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "type");
  json_builder_add_string_value (builder, "integer");
  json_builder_end_object (builder);
  json_builder_set_member_name (builder, "kind");
  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "type");
  json_builder_add_string_value (builder, "string");
  json_builder_set_member_name (builder, "enum");
  json_builder_begin_array (builder);
  json_builder_add_string_value (builder, "tool");
  json_builder_add_string_value (builder, "final");
  json_builder_end_array (builder);
  json_builder_end_object (builder);
  json_builder_set_member_name (builder, "name");
  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "type");
  json_builder_add_string_value (builder, "string");
  json_builder_set_member_name (builder, "enum");
  json_builder_begin_array (builder);
  for (guint i = 0; i < self->specs->len; i++)
    json_builder_add_string_value (builder, ((ToolSpec *) g_ptr_array_index (self->specs, i))->name);
  json_builder_end_array (builder);
  json_builder_end_object (builder);
  json_builder_set_member_name (builder, "input");
  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "type");
  json_builder_add_string_value (builder, "object");
  json_builder_end_object (builder);
  json_builder_set_member_name (builder, "dependsOn");
  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "type");
  json_builder_add_string_value (builder, "array");
  json_builder_set_member_name (builder, "items");
  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "type");
  json_builder_add_string_value (builder, "integer");
  json_builder_end_object (builder);
  json_builder_end_object (builder);
  json_builder_end_object (builder);
  json_builder_set_member_name (builder, "required");
  json_builder_begin_array (builder);
  json_builder_add_string_value (builder, "id");
  json_builder_add_string_value (builder, "kind");
  json_builder_add_string_value (builder, "name");
  json_builder_add_string_value (builder, "input");
  json_builder_add_string_value (builder, "dependsOn");
  json_builder_end_array (builder);
  json_builder_end_object (builder);
  json_builder_end_object (builder);
  json_builder_end_object (builder);
  json_builder_set_member_name (builder, "required");
  json_builder_begin_array (builder);
  json_builder_add_string_value (builder, "atoms");
  json_builder_end_array (builder);
  json_builder_end_object (builder);

  return json_builder_get_root (builder);
}

/* ------------------------------------------------------------------------ *
 * Checking
 * ------------------------------------------------------------------------ */

static gboolean
node_is_string (JsonNode *node)
{
  return node != NULL && JSON_NODE_HOLDS_VALUE (node) && json_node_get_value_type (node) == G_TYPE_STRING;
}

static gboolean
node_is_number (JsonNode *node)
{
  GType type;

  if (node == NULL || !JSON_NODE_HOLDS_VALUE (node))
    return FALSE;
  type = json_node_get_value_type (node);
  return type == G_TYPE_INT64 || type == G_TYPE_DOUBLE;
}

static gboolean
parse_time (const char *text,
            int        *out_minutes)
{
  int h = 0, m = 0;
  char extra;

  if (sscanf (text, "%d:%d%c", &h, &m, &extra) != 2)
    return FALSE;
  if (h < 0 || h > 24 || m < 0 || m > 59 || (h == 24 && m > 0))
    return FALSE;
  *out_minutes = h * 60 + m;
  return TRUE;
}

static int
day_index (const char *text)
{
  for (guint d = 0; d < G_N_ELEMENTS (days); d++)
    if (g_ascii_strcasecmp (text, days[d]) == 0)
      return (int) d;
  return -1;
}

/* The item numbers an item input selects, or FALSE if it is not one. */
static gboolean
item_selection (JsonNode *node,
                guint     n_items,
                guint    *out_first,
                guint    *out_last)
{
  gint64 value;

  if (node_is_string (node))
    {
      const char *s = json_node_get_string (node);
      guint64 parsed;

      if (strcmp (s, "*") == 0 || g_ascii_strcasecmp (s, "all") == 0)
        {
          *out_first = 1;
          *out_last = n_items;
          return n_items > 0;
        }
      if (!g_ascii_string_to_unsigned (s, 10, 1, n_items, &parsed, NULL))
        return FALSE;
      value = (gint64) parsed;
    }
  else if (node_is_number (node))
    {
      double d = json_node_get_double (node);

      if (d != floor (d))
        return FALSE;
      value = (gint64) d;
    }
  else
    return FALSE;

  if (value < 1 || value > (gint64) n_items)
    return FALSE;
  *out_first = *out_last = (guint) value;
  return TRUE;
}

static ToolSpec *
atom_spec (AnotPlanExecutor   *self,
           const AnotPlanAtom *atom)
{
  return atom->name[0] != '\0' ? lookup_spec (self, atom->name) : NULL;
}

/* What is wrong with @value as @param of @atom, or NULL. */
static char *
check_value (AnotPlanExecutor   *self,
             AnotPlan           *plan,
             const AnotPlanAtom *atom,
             const Param        *param,
             JsonNode           *value)
{
  g_autofree char *ref = _anot_plan_value_ref (value);
  guint n_items = self->candidates->len;
  guint first, last;

  if (ref != NULL)
    {
      int position = anot_plan_lookup_atom (plan, ref);
      const AnotPlanAtom *target;
      ToolSpec *spec;

      if (position < 0)
        return NULL;    /* reported as a missing dependency */
      target = _anot_plan_get_atom (plan, position);
      spec = atom_spec (self, target);
      if (spec == NULL)
        return NULL;    /* reported as an unknown tool */
      if (spec->final)
        return g_strdup_printf ("Atom %s: input “%s” refers to the final atom %s, whose result "
                                "is the ranking", atom->id, param->name, ref);
      if (param->type == PARAM_ANY)
        return NULL;
      if (is_per_item (spec->output))
        return g_strdup_printf ("Atom %s: input “%s” refers to atom %s (%s), which gives a "
                                "result per item; expected a %s. Per-item results go into the "
                                "final rank atom's scores", atom->id, param->name, ref, spec->name,
                                param_type_name (param->type));
      return NULL;      /* a JSON value: checked when the atom runs */
    }

  switch (param->type)
    {
    case PARAM_STRING:
      if (!node_is_string (value))
        return g_strdup_printf ("Atom %s: input “%s” must be a string", atom->id, param->name);
      return NULL;
    case PARAM_NUMBER:
      if (!node_is_number (value))
        return g_strdup_printf ("Atom %s: input “%s” must be a number", atom->id, param->name);
      return NULL;
    case PARAM_INTEGER:
      if (!node_is_number (value) || json_node_get_double (value) != floor (json_node_get_double (value)))
        return g_strdup_printf ("Atom %s: input “%s” must be an integer", atom->id, param->name);
      return NULL;
    case PARAM_BOOLEAN:
      if (value == NULL || !JSON_NODE_HOLDS_VALUE (value) || json_node_get_value_type (value) != G_TYPE_BOOLEAN)
        return g_strdup_printf ("Atom %s: input “%s” must be true or false", atom->id, param->name);
      return NULL;
    case PARAM_OBJECT:
      if (value == NULL || !JSON_NODE_HOLDS_OBJECT (value))
        return g_strdup_printf ("Atom %s: input “%s” must be an object", atom->id, param->name);
      return NULL;
    case PARAM_ARRAY:
      if (value == NULL || !JSON_NODE_HOLDS_ARRAY (value))
        return g_strdup_printf ("Atom %s: input “%s” must be a list", atom->id, param->name);
      return NULL;
    case PARAM_ITEM:
      if (!item_selection (value, n_items, &first, &last))
        return g_strdup_printf ("Atom %s: input “%s” must be an item number from 1 to %u, or \"*\" "
                                "for every item", atom->id, param->name, n_items);
      return NULL;
    case PARAM_DAY:
      if (!node_is_string (value) || day_index (json_node_get_string (value)) < 0)
        return g_strdup_printf ("Atom %s: input “%s” must be a day of the week (Monday to Sunday)",
                                atom->id, param->name);
      return NULL;
    case PARAM_TIME:
      {
        int minutes;

        if (!node_is_string (value) || !parse_time (json_node_get_string (value), &minutes))
          return g_strdup_printf ("Atom %s: input “%s” must be a time such as \"18:30\"",
                                  atom->id, param->name);
        return NULL;
      }
    case PARAM_REFS:
      {
        JsonArray *array;

        if (value == NULL || !JSON_NODE_HOLDS_ARRAY (value) ||
            json_array_get_length (json_node_get_array (value)) == 0)
          return g_strdup_printf ("Atom %s: input “%s” must be a non-empty list of references "
                                  "such as [\"$1\", \"$2\"]", atom->id, param->name);
        array = json_node_get_array (value);
        for (guint i = 0; i < json_array_get_length (array); i++)
          {
            g_autofree char *element_ref = _anot_plan_value_ref (json_array_get_element (array, i));
            int position;
            ToolSpec *spec;

            if (element_ref == NULL)
              return g_strdup_printf ("Atom %s: %s[%u] must be a reference to an atom, such as \"$1\"",
                                      atom->id, param->name, i);
            position = anot_plan_lookup_atom (plan, element_ref);
            if (position < 0)
              continue;
            spec = atom_spec (self, _anot_plan_get_atom (plan, position));
            if (spec != NULL && !is_per_item (spec->output))
              return g_strdup_printf ("Atom %s: %s[%u] refers to atom %s (%s), which does not give "
                                      "a result per item; use check_attribute, hours_open, "
                                      "reviews_matching or llm_judge with \"item\": \"*\"",
                                      atom->id, param->name, i, element_ref, spec->name);
          }
        return NULL;
      }
    case PARAM_NUMBERS:
      {
        JsonArray *array;

        if (value == NULL || !JSON_NODE_HOLDS_ARRAY (value))
          return g_strdup_printf ("Atom %s: input “%s” must be a list of numbers", atom->id, param->name);
        array = json_node_get_array (value);
        for (guint i = 0; i < json_array_get_length (array); i++)
          if (!node_is_number (json_array_get_element (array, i)))
            return g_strdup_printf ("Atom %s: %s[%u] must be a number", atom->id, param->name, i);
        return NULL;
      }
    case PARAM_ANY:
    default:
      return NULL;
    }
}

static void
check_inputs (AnotPlanExecutor   *self,
              AnotPlan           *plan,
              const AnotPlanAtom *atom,
              ToolSpec           *spec,
              GPtrArray          *problems)
{
  g_autoptr(GList) members = json_object_get_members (atom->input);

  for (guint p = 0; p < spec->params->len; p++)
    {
      const Param *param = &g_array_index (spec->params, Param, p);
      JsonNode *value = json_object_get_member (atom->input, param->name);
      char *problem;

      if (value == NULL)
        {
          if (param->required)
            g_ptr_array_add (problems, g_strdup_printf ("Atom %s (%s) lacks the input “%s” (%s)",
                                                        atom->id, spec->name, param->name,
                                                        param_type_name (param->type)));
          continue;
        }
      problem = check_value (self, plan, atom, param, value);
      if (problem != NULL)
        g_ptr_array_add (problems, problem);
    }

  for (GList *l = members; l != NULL; l = l->next)
    {
      gboolean known = FALSE;

      for (guint p = 0; p < spec->params->len && !known; p++)
        known = strcmp (g_array_index (spec->params, Param, p).name, l->data) == 0;
      if (!known)
        {
          g_autoptr(GString) names = g_string_new (NULL);

          for (guint p = 0; p < spec->params->len; p++)
            g_string_append_printf (names, "%s%s", p ? ", " : "", g_array_index (spec->params, Param, p).name);
          g_ptr_array_add (problems, g_strdup_printf ("Atom %s (%s) has an unexpected input “%s” "
                                                      "(inputs: %s)", atom->id, spec->name,
                                                      (char *) l->data, names->str));
        }
    }

  if (spec->final)
    {
      JsonNode *scores = json_object_get_member (atom->input, "scores");
      JsonNode *weights = json_object_get_member (atom->input, "weights");

      if (scores != NULL && weights != NULL && JSON_NODE_HOLDS_ARRAY (scores) &&
          JSON_NODE_HOLDS_ARRAY (weights) &&
          json_array_get_length (json_node_get_array (scores)) !=
          json_array_get_length (json_node_get_array (weights)))
        g_ptr_array_add (problems, g_strdup_printf ("Atom %s: weights must have one number per score "
                                                    "(%u scores, %u weights)", atom->id,
                                                    json_array_get_length (json_node_get_array (scores)),
                                                    json_array_get_length (json_node_get_array (weights))));
    }
}

/* One cycle as "a → b → a", found from @start by following dependencies
 * that lead back into @on_cycle. */
static char *
describe_cycle (AnotPlan   *plan,
                GHashTable *on_cycle,
                const char *start)
{
  g_autoptr(GPtrArray) path = g_ptr_array_new ();
  const char *current = start;

  for (;;)
    {
      int position = anot_plan_lookup_atom (plan, current);
      const char * const *deps;
      const char *next = NULL;

      for (guint i = 0; i < path->len; i++)
        if (strcmp (g_ptr_array_index (path, i), current) == 0)
          {
            GString *out = g_string_new (NULL);

            for (guint j = i; j < path->len; j++)
              g_string_append_printf (out, "%s → ", (char *) g_ptr_array_index (path, j));
            g_string_append (out, current);
            return g_string_free (out, FALSE);
          }
      g_ptr_array_add (path, (gpointer) current);
      deps = anot_plan_get_atom_dependencies (plan, position);
      for (guint d = 0; deps[d] != NULL && next == NULL; d++)
        if (g_hash_table_contains (on_cycle, deps[d]))
          next = deps[d];
      if (next == NULL)
        return g_strdup (start);
      current = next;
    }
}

/**
 * anot_plan_executor_check:
 * @self: an #AnotPlanExecutor
 * @plan: a plan
 *
 * Lists every problem of @plan, in sentences a model can act on: the
 * structural ones (anot_plan_get_problems()), duplicate ids, unknown
 * tools, dependencies on atoms that do not exist, cycles, not exactly one
 * final atom or a final atom that is not `rank`, and inputs that are
 * missing, unexpected or of the wrong type.
 *
 * Returns: (transfer full) (array zero-terminated=1): the problems; empty
 *   if the plan can run
 */
char **
anot_plan_executor_check (AnotPlanExecutor *self,
                          AnotPlan         *plan)
{
  g_autoptr(GPtrArray) problems = g_ptr_array_new_null_terminated (0, g_free, TRUE);
  g_autoptr(GHashTable) seen = g_hash_table_new (g_str_hash, g_str_equal);
  g_autoptr(GHashTable) placed = g_hash_table_new (g_str_hash, g_str_equal);
  guint n = anot_plan_get_n_atoms (plan);
  guint n_final = 0;
  const char * const *structural;

  g_return_val_if_fail (ANOT_IS_PLAN_EXECUTOR (self), NULL);
  g_return_val_if_fail (ANOT_IS_PLAN (plan), NULL);

  structural = anot_plan_get_problems (plan);
  for (guint i = 0; structural[i] != NULL; i++)
    g_ptr_array_add (problems, g_strdup (structural[i]));

  for (guint i = 0; i < n; i++)
    {
      const AnotPlanAtom *atom = _anot_plan_get_atom (plan, i);
      ToolSpec *spec;

      if (!g_hash_table_add (seen, atom->id))
        g_ptr_array_add (problems, g_strdup_printf ("Duplicate atom id %s: every atom needs an id "
                                                    "of its own", atom->id));

      for (guint d = 0; atom->dependencies[d] != NULL; d++)
        {
          if (anot_plan_lookup_atom (plan, atom->dependencies[d]) < 0)
            g_ptr_array_add (problems, g_strdup_printf ("Atom %s depends on atom %s, which does "
                                                        "not exist", atom->id, atom->dependencies[d]));
          else if (strcmp (atom->dependencies[d], atom->id) == 0)
            g_ptr_array_add (problems, g_strdup_printf ("Atom %s depends on itself", atom->id));
        }

      if (strcmp (atom->kind, "final") == 0)
        n_final++;

      if (atom->name[0] == '\0')
        continue;
      spec = lookup_spec (self, atom->name);
      if (spec == NULL)
        {
          g_auto(GStrv) names = anot_plan_executor_list_tools (self);
          g_autofree char *list = g_strjoinv (", ", names);

          g_ptr_array_add (problems, g_strdup_printf ("Atom %s uses an unknown tool “%s” (tools: %s)",
                                                      atom->id, atom->name, list));
          continue;
        }
      if (spec->final && strcmp (atom->kind, "final") != 0)
        g_ptr_array_add (problems, g_strdup_printf ("Atom %s: %s is the final atom's tool; give the "
                                                    "atom \"kind\": \"final\"", atom->id, spec->name));
      else if (!spec->final && strcmp (atom->kind, "final") == 0)
        g_ptr_array_add (problems, g_strdup_printf ("Atom %s is final but uses %s; the final atom "
                                                    "uses rank", atom->id, spec->name));
      check_inputs (self, plan, atom, spec, problems);
    }

  if (n > 0 && n_final == 0)
    g_ptr_array_add (problems, g_strdup ("The plan has no final atom: end with {\"kind\": \"final\", "
                                         "\"name\": \"rank\", ...}"));
  else if (n_final > 1)
    g_ptr_array_add (problems, g_strdup_printf ("The plan has %u final atoms; it needs exactly one",
                                                n_final));

  /* Cycles: place atoms whose dependencies are placed until none is left
   * (dependencies on missing atoms are reported above and ignored here). */
  for (gboolean progress = TRUE; progress;)
    {
      progress = FALSE;
      for (guint i = 0; i < n; i++)
        {
          const AnotPlanAtom *atom = _anot_plan_get_atom (plan, i);
          gboolean ready = TRUE;

          if (g_hash_table_contains (placed, atom->id))
            continue;
          for (guint d = 0; atom->dependencies[d] != NULL && ready; d++)
            ready = g_hash_table_contains (placed, atom->dependencies[d]) ||
                    anot_plan_lookup_atom (plan, atom->dependencies[d]) < 0 ||
                    strcmp (atom->dependencies[d], atom->id) == 0;
          if (ready)
            {
              g_hash_table_add (placed, atom->id);
              progress = TRUE;
            }
        }
    }
  if (g_hash_table_size (placed) < g_hash_table_size (seen))
    {
      g_autoptr(GHashTable) on_cycle = g_hash_table_new (g_str_hash, g_str_equal);
      const char *start = NULL;
      g_autofree char *cycle = NULL;

      for (guint i = 0; i < n; i++)
        {
          const AnotPlanAtom *atom = _anot_plan_get_atom (plan, i);

          if (!g_hash_table_contains (placed, atom->id))
            {
              g_hash_table_add (on_cycle, atom->id);
              if (start == NULL)
                start = atom->id;
            }
        }
      cycle = describe_cycle (plan, on_cycle, start);
      g_ptr_array_add (problems, g_strdup_printf ("The atoms depend on each other in a cycle: %s",
                                                  cycle));
    }

  /* An empty array may have no storage yet. */
  if (problems->len == 0)
    return g_new0 (char *, 1);
  return (char **) g_ptr_array_steal (problems, NULL);
}

/**
 * anot_plan_executor_validate:
 * @self: an #AnotPlanExecutor
 * @plan: a plan
 * @error: return location for a #GError
 *
 * Fails with %ANOT_ERROR_INVALID_FIELD, every problem of
 * anot_plan_executor_check() on a line of the message, unless @plan can
 * run.
 *
 * Returns: %TRUE if the plan can run
 */
gboolean
anot_plan_executor_validate (AnotPlanExecutor  *self,
                             AnotPlan          *plan,
                             GError           **error)
{
  g_auto(GStrv) problems = NULL;
  g_autofree char *joined = NULL;

  g_return_val_if_fail (ANOT_IS_PLAN_EXECUTOR (self), FALSE);
  g_return_val_if_fail (ANOT_IS_PLAN (plan), FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  problems = anot_plan_executor_check (self, plan);
  if (problems[0] == NULL)
    return TRUE;

  joined = g_strjoinv ("\n", problems);
  g_set_error (error, ANOT_ERROR, ANOT_ERROR_INVALID_FIELD, "Invalid plan:\n%s", joined);
  return FALSE;
}

/* ------------------------------------------------------------------------ *
 * The per-item tools
 * ------------------------------------------------------------------------ */

static JsonObject *
item_record (AnotPlanExecutor *self,
             guint             number)
{
  JsonObject *items = json_object_get_object_member (json_node_get_object (self->data), "items");
  char key[16];

  g_snprintf (key, sizeof key, "%u", number);
  return json_object_get_object_member (items, key);
}

static gboolean
truthy (JsonNode *value)
{
  if (value == NULL || JSON_NODE_HOLDS_NULL (value))
    return FALSE;
  if (JSON_NODE_HOLDS_OBJECT (value))
    return json_object_get_size (json_node_get_object (value)) > 0;
  if (JSON_NODE_HOLDS_ARRAY (value))
    return json_array_get_length (json_node_get_array (value)) > 0;
  switch (json_node_get_value_type (value))
    {
    case G_TYPE_BOOLEAN:
      return json_node_get_boolean (value);
    case G_TYPE_INT64:
    case G_TYPE_DOUBLE:
      return json_node_get_double (value) != 0;
    case G_TYPE_STRING:
      {
        const char *s = json_node_get_string (value);

        return s[0] != '\0' && g_ascii_strcasecmp (s, "no") != 0 && g_ascii_strcasecmp (s, "none") != 0 &&
               g_ascii_strcasecmp (s, "false") != 0;
      }
    default:
      return FALSE;
    }
}

/* check_attribute of a value that is None or absent: unknown, unless
 * the plan asks for None itself.  The validator reads an absent value
 * and Yelp's u'none' as None and None equals an expected "none" (its
 * `contains: "none"` leaves hold for both: R31 and R33 on philly ask for
 * a cafe without alcohol), so `expected: "none"` is true there; any
 * other expected value stays unknown, as a leaf's missing value is. */
static JsonNode *
none_value (JsonNode *expected)
{
  g_autoptr(AnotPyValue) wanted = NULL;
  g_autoptr(AnotPyValue) read = NULL;

  if (expected == NULL)
    return json_node_init_null (json_node_alloc ());
  wanted = anot_py_value_new_from_json (expected);
  read = anot_py_normalise_pass_b (wanted);
  if (anot_py_value_get_kind (read) == ANOT_PY_NONE)
    return json_node_init_boolean (json_node_alloc (), TRUE);
  return json_node_init_null (json_node_alloc ());
}

static JsonNode *
check_attribute (AnotPlanExecutor *self,
                 guint             number,
                 JsonObject       *input)
{
  JsonObject *record = item_record (self, number);
  JsonNode *attributes = json_object_get_member (record, "attributes");
  const char *name = json_object_get_string_member (input, "attribute");
  JsonNode *expected = json_object_get_member (input, "expected");
  g_autoptr(AnotDataPath) path = NULL;
  g_autoptr(GPtrArray) matches = NULL;
  g_autoptr(AnotPyValue) raw = NULL;
  g_autoptr(AnotPyValue) effective = NULL;
  JsonNode *value;

  if (attributes == NULL || name == NULL)
    return json_node_init_null (json_node_alloc ());

  /* "Ambience.hipster", "Ambience[hipster]", or a key with spaces. */
  path = anot_data_path_parse (name, NULL);
  if (path == NULL)
    {
      value = JSON_NODE_HOLDS_OBJECT (attributes)
              ? json_object_get_member (json_node_get_object (attributes), name) : NULL;
    }
  else
    {
      matches = anot_data_path_resolve (path, attributes, NULL, NULL);
      value = matches != NULL && matches->len == 1 ? g_ptr_array_index (matches, 0) : NULL;
      if (value == NULL && JSON_NODE_HOLDS_OBJECT (attributes))
        value = json_object_get_member (json_node_get_object (attributes), name);
    }

  if (value == NULL || JSON_NODE_HOLDS_NULL (value))
    return none_value (expected);

  /* The value the validator sees (evidence.md §5): the context has pass
   * A done, pass B turns "'free'" into free and "u'none'" (here "none")
   * into None, as a lookup does in the validator. */
  raw = anot_py_value_new_from_json (value);
  effective = anot_py_normalise_pass_b (raw);
  if (anot_py_value_get_kind (effective) == ANOT_PY_NONE)
    return none_value (expected);
  if (expected == NULL)
    {
      g_autoptr(JsonNode) json = anot_py_value_to_json (effective);

      return json_node_init_boolean (json_node_alloc (), truthy (json));
    }
  return json_node_init_boolean (json_node_alloc (), _anot_validator_value_matches (effective, expected));
}

/* A category leaf's `contains` (evidence.md §5.1): a case-insensitive
 * substring of the categories' text, so "Bars" matches "Wine Bars". */
static JsonNode *
has_category (AnotPlanExecutor *self,
              guint             number,
              JsonObject       *input)
{
  AnotItem *item = g_ptr_array_index (self->candidates, number - 1);
  g_autoptr(AnotPyValue) categories = _anot_validator_item_categories (item);
  g_autofree char *pattern = g_ascii_strdown (json_object_get_string_member_with_default (input, "category", ""), -1);
  const char *text = categories != NULL ? anot_py_value_get_lower_str (categories) : "none";

  return json_node_init_boolean (json_node_alloc (), strstr (text, pattern) != NULL);
}

static JsonNode *
hours_open (AnotPlanExecutor *self,
            guint             number,
            JsonObject       *input)
{
  AnotItem *item = g_ptr_array_index (self->candidates, number - 1);
  int day = day_index (json_object_get_string_member (input, "day"));
  const char *hours;
  int need_start = 0, need_end = 0, open = 0, close = 0;
  int oh, om, ch, cm;

  parse_time (json_object_get_string_member (input, "start"), &need_start);
  if (json_object_has_member (input, "end"))
    parse_time (json_object_get_string_member (input, "end"), &need_end);
  else
    need_end = need_start;

  hours = day >= 0 ? anot_item_get_hours (item, days[day]) : NULL;
  if (hours == NULL || sscanf (hours, "%d:%d-%d:%d", &oh, &om, &ch, &cm) != 4)
    return json_node_init_null (json_node_alloc ());

  open = oh * 60 + om;
  close = ch * 60 + cm;
  /* "8:0-0:0" closes at midnight; "18:0-2:0" past it. */
  if (close <= open)
    close += 24 * 60;
  if (need_end < need_start)
    need_end += 24 * 60;
  return json_node_init_boolean (json_node_alloc (), open <= need_start && need_end <= close);
}

static JsonNode *
reviews_matching (AnotPlanExecutor *self,
                  guint             number,
                  GRegex           *regex)
{
  AnotItem *item = g_ptr_array_index (self->candidates, number - 1);
  gint64 n = 0;

  for (guint r = 0; r < anot_item_get_n_reviews (item); r++)
    if (g_regex_match (regex, anot_review_get_text (anot_item_get_review (item, r)), 0, NULL))
      n++;
  return json_node_init_int (json_node_alloc (), n);
}

/* ------------------------------------------------------------------------ *
 * Running
 * ------------------------------------------------------------------------ */

typedef struct {
  AnotPlanExecutor *self;
  GTask            *task;
  AnotPlan         *plan;
  AnotPlanResult   *result;
  guint             n_atoms;
  guint            *n_waiting;       /* per atom */
  GPtrArray       **dependants;      /* per atom: positions */
  gboolean         *started;
  JsonNode        **results;         /* per atom */
  double           *start_ms;
  guint             n_done;
  guint             in_flight;       /* LLM calls */
  guint             max_in_flight;
  guint             n_calls;
  gint64            started_us;
  GQueue            ready;
  gboolean          pumping;
  gboolean          completed;
  AnotRanking      *ranking;
} Run;

typedef struct {
  Run        *run;
  guint       position;     /* atom */
  JsonObject *scores;       /* per item, filled as calls answer */
  guint       pending;
} JudgeAtom;

typedef struct {
  JudgeAtom *judge;
  guint      number;
} JudgeCall;

static void run_pump (Run *run);

static void
run_free (Run *run)
{
  for (guint i = 0; i < run->n_atoms; i++)
    {
      g_clear_pointer (&run->dependants[i], g_ptr_array_unref);
      g_clear_pointer (&run->results[i], json_node_unref);
    }
  g_free (run->dependants);
  g_free (run->n_waiting);
  g_free (run->started);
  g_free (run->results);
  g_free (run->start_ms);
  g_queue_clear (&run->ready);
  g_clear_object (&run->ranking);
  g_clear_object (&run->result);
  g_clear_object (&run->plan);
  g_object_unref (run->self);
  g_free (run);
}

static double
run_ms (Run *run)
{
  return (g_get_monotonic_time () - run->started_us) / 1000.0;
}

static void
atom_done (Run      *run,
           guint     position,
           JsonNode *result)
{
  const AnotPlanAtom *atom = _anot_plan_get_atom (run->plan, position);
  GPtrArray *dependants = run->dependants[position];

  run->results[position] = result;
  run->n_done++;
  _anot_plan_result_set_atom (run->result, atom->id, result, run->start_ms[position],
                              run_ms (run) - run->start_ms[position]);
  anot_method_context_debug (run->self->context, ANOT_DEBUG_LEVEL_VERBOSE, "PLAN",
                             "Atom %s (%s) done in %.0f ms", atom->id, atom->name,
                             run_ms (run) - run->start_ms[position]);

  for (guint i = 0; dependants != NULL && i < dependants->len; i++)
    {
      guint dependant = GPOINTER_TO_UINT (g_ptr_array_index (dependants, i));

      if (--run->n_waiting[dependant] == 0)
        g_queue_push_tail (&run->ready, GUINT_TO_POINTER (dependant));
    }
}

/* The value of an input, references resolved. */
static JsonNode *
resolve (Run      *run,
         JsonNode *value)
{
  g_autofree char *ref = _anot_plan_value_ref (value);

  if (ref != NULL)
    {
      int position = anot_plan_lookup_atom (run->plan, ref);

      if (position >= 0 && run->results[position] != NULL)
        return json_node_copy (run->results[position]);
      return json_node_init_null (json_node_alloc ());
    }
  if (JSON_NODE_HOLDS_OBJECT (value))
    {
      JsonObject *out = json_object_new ();
      JsonObjectIter iter;
      const char *name;
      JsonNode *member;
      JsonNode *node;

      json_object_iter_init (&iter, json_node_get_object (value));
      while (json_object_iter_next (&iter, &name, &member))
        json_object_set_member (out, name, resolve (run, member));
      node = json_node_init_object (json_node_alloc (), out);
      json_object_unref (out);
      return node;
    }
  if (JSON_NODE_HOLDS_ARRAY (value))
    {
      JsonArray *out = json_array_new ();
      JsonArray *in = json_node_get_array (value);
      JsonNode *node;

      for (guint i = 0; i < json_array_get_length (in); i++)
        json_array_add_element (out, resolve (run, json_array_get_element (in, i)));
      node = json_node_init_array (json_node_alloc (), out);
      json_array_unref (out);
      return node;
    }
  return json_node_copy (value);
}

static double
normalised (ToolSpec *spec,
            JsonNode *value)
{
  if (value == NULL || JSON_NODE_HOLDS_NULL (value) || !JSON_NODE_HOLDS_VALUE (value))
    return 0;
  switch (spec->output)
    {
    case OUTPUT_TRUTH:
      return json_node_get_value_type (value) == G_TYPE_BOOLEAN && json_node_get_boolean (value) ? 1 : 0;
    case OUTPUT_SCORE:
      return node_is_number (value) ? CLAMP (json_node_get_double (value) / 10.0, 0, 1) : 0;
    case OUTPUT_COUNT:
      return node_is_number (value) && json_node_get_double (value) > 0 ? 1 : 0;
    case OUTPUT_VALUE:
    case OUTPUT_RANKING:
    default:
      return 0;
    }
}

static JsonNode *
run_rank (Run               *run,
          const AnotPlanAtom *atom)
{
  JsonArray *scores = json_object_get_array_member (atom->input, "scores");
  JsonArray *weights = json_object_has_member (atom->input, "weights")
                       ? json_object_get_array_member (atom->input, "weights") : NULL;
  guint n_items = run->self->candidates->len;
  g_autofree double *totals = g_new0 (double, n_items);
  g_autoptr(JsonBuilder) builder = json_builder_new ();

  for (guint s = 0; s < json_array_get_length (scores); s++)
    {
      g_autofree char *ref = _anot_plan_value_ref (json_array_get_element (scores, s));
      int position = anot_plan_lookup_atom (run->plan, ref);
      ToolSpec *spec = atom_spec (run->self, _anot_plan_get_atom (run->plan, position));
      JsonNode *result = run->results[position];
      double weight = weights != NULL ? json_array_get_double_element (weights, s) : 1.0;

      if (result == NULL || !JSON_NODE_HOLDS_OBJECT (result))
        continue;
      for (guint i = 0; i < n_items; i++)
        {
          char key[16];

          g_snprintf (key, sizeof key, "%u", i + 1);
          totals[i] += weight * normalised (spec, json_object_get_member (json_node_get_object (result), key));
        }
    }

  g_clear_object (&run->ranking);
  run->ranking = anot_ranking_new_from_scores (totals, n_items);

  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "scores");
  json_builder_begin_object (builder);
  for (guint i = 0; i < n_items; i++)
    {
      char key[16];

      g_snprintf (key, sizeof key, "%u", i + 1);
      json_builder_set_member_name (builder, key);
      json_builder_add_double_value (builder, totals[i]);
    }
  json_builder_end_object (builder);
  json_builder_set_member_name (builder, "ranking");
  json_builder_begin_array (builder);
  for (guint r = 0; r < anot_ranking_get_length (run->ranking); r++)
    json_builder_add_int_value (builder, anot_ranking_get_index (run->ranking, r) + 1);
  json_builder_end_array (builder);
  json_builder_end_object (builder);
  return json_builder_get_root (builder);
}

static char *
judge_prompt (AnotPlanExecutor *self,
              guint             number,
              const char        *question)
{
  AnotItem *item = g_ptr_array_index (self->candidates, number - 1);
  JsonObject *record = item_record (self, number);
  JsonNode *attributes = json_object_get_member (record, "attributes");
  g_autofree char *attributes_text = attributes ? json_to_string (attributes, FALSE) : g_strdup ("{}");
  g_autoptr(GString) out = g_string_new (NULL);

  g_string_append_printf (out, "Question about one item: %s\n\n", question);
  g_string_append_printf (out, "ITEM %u: %s\n", number, anot_item_get_name (item) ? anot_item_get_name (item) : "");
  g_string_append_printf (out, "Categories: %s\n",
                          anot_item_get_categories_string (item) ? anot_item_get_categories_string (item) : "");
  g_string_append (out, "Hours:");
  for (guint d = 0; d < G_N_ELEMENTS (days); d++)
    if (anot_item_get_hours (item, days[d]) != NULL)
      g_string_append_printf (out, " %s %s;", days[d], anot_item_get_hours (item, days[d]));
  g_string_append_printf (out, "\nAttributes: %s\nReviews:\n", attributes_text);
  for (guint r = 0; r < anot_item_get_n_reviews (item) && r < JUDGE_REVIEWS; r++)
    {
      const char *text = anot_review_get_text (anot_item_get_review (item, r));
      glong length = g_utf8_strlen (text, -1);
      g_autofree char *cut = g_utf8_substring (text, 0, MIN (length, JUDGE_REVIEW_CHARS));

      g_strdelimit (cut, "\n\r", ' ');
      g_string_append_printf (out, "- %s%s\n", cut, length > JUDGE_REVIEW_CHARS ? "..." : "");
    }
  g_string_append (out, "\nAnswer with a score from 0 (no) to 10 (certainly yes). Output: <score>");
  return g_string_free (g_steal_pointer (&out), FALSE);
}

static void
on_judged (GObject      *source,
           GAsyncResult *res,
           gpointer      user_data)
{
  JudgeCall *call = user_data;
  JudgeAtom *judge = call->judge;
  Run *run = judge->run;
  g_autoptr(GError) error = NULL;
  g_autoptr(AnotCompletion) completion = NULL;
  char key[16];

  completion = anot_method_context_complete_finish (ANOT_METHOD_CONTEXT (source), res, &error);
  run->in_flight--;
  g_snprintf (key, sizeof key, "%u", call->number);

  if (completion == NULL)
    {
      g_autofree char *note = g_strdup_printf ("Atom %s, item %u: the judge's call failed: %s",
                                               _anot_plan_get_atom (run->plan, judge->position)->id,
                                               call->number, error->message);

      _anot_plan_result_add_note (run->result, note);
      json_object_set_null_member (judge->scores, key);
    }
  else
    {
      g_autoptr(AnotParseResult) parsed = anot_parse_score (anot_completion_get_text (completion), 0, 10);

      if (anot_parse_result_get_ok (parsed))
        json_object_set_double_member (judge->scores, key, anot_parse_result_get_score (parsed));
      else
        {
          g_autofree char *note = g_strdup_printf ("Atom %s, item %u: no score in the judge's answer: %s",
                                                   _anot_plan_get_atom (run->plan, judge->position)->id,
                                                   call->number, anot_parse_result_get_message (parsed));

          _anot_plan_result_add_note (run->result, note);
          json_object_set_null_member (judge->scores, key);
        }
    }
  g_free (call);

  if (--judge->pending == 0)
    {
      JsonNode *node = json_node_init_object (json_node_alloc (), judge->scores);

      json_object_unref (judge->scores);
      atom_done (run, judge->position, node);
      g_free (judge);
      run_pump (run);
    }
  g_object_unref (run->task);
}

static void
start_judge (Run               *run,
             guint              position,
             const AnotPlanAtom *atom,
             JsonObject        *input,
             guint              first,
             guint              last)
{
  AnotPlanExecutor *self = run->self;
  JudgeAtom *judge = g_new0 (JudgeAtom, 1);
  const char *question = json_object_get_string_member_with_default (input, "question", "");
  GCancellable *cancellable = g_task_get_cancellable (run->task);

  judge->run = run;
  judge->position = position;
  judge->scores = json_object_new ();
  judge->pending = last - first + 1;

  for (guint number = first; number <= last; number++)
    {
      JudgeCall *call = g_new0 (JudgeCall, 1);
      g_autofree char *prompt = judge_prompt (self, number, question);
      char key[16];

      /* Keys in item order, whatever order the answers come in. */
      g_snprintf (key, sizeof key, "%u", number);
      json_object_set_null_member (judge->scores, key);

      call->judge = judge;
      call->number = number;
      run->in_flight++;
      run->n_calls++;
      run->max_in_flight = MAX (run->max_in_flight, run->in_flight);
      g_object_ref (run->task);
      /* The judge reads the item's data: in defense mode the defense
       * text is its system prompt (it has none otherwise). */
      anot_method_context_complete_async (self->context, self->role,
                                          anot_method_context_get_defense_prompt (self->context),
                                          prompt, cancellable, on_judged, call);
    }
  (void) atom;
}

static void
start_atom (Run   *run,
            guint  position)
{
  AnotPlanExecutor *self = run->self;
  const AnotPlanAtom *atom = _anot_plan_get_atom (run->plan, position);
  ToolSpec *spec = lookup_spec (self, atom->name);
  g_autoptr(JsonNode) input_node = NULL;
  JsonObject *input;
  guint first = 0, last = 0;
  JsonObject *per_item;
  JsonNode *result;

  run->started[position] = TRUE;
  run->start_ms[position] = run_ms (run);
  {
    JsonNode *raw = json_node_init_object (json_node_alloc (), atom->input);

    input_node = resolve (run, raw);
    json_node_unref (raw);
  }
  input = json_node_get_object (input_node);

  if (spec->final)
    {
      atom_done (run, position, run_rank (run, atom));
      return;
    }

  if (spec->tool != NULL)
    {
      g_autoptr(GError) error = NULL;

      result = anot_tool_invoke (spec->tool, input_node, &error);
      if (result == NULL)
        result = anot_tool_result_new_error (error->message);
      atom_done (run, position, result);
      return;
    }

  if (!item_selection (json_object_get_member (input, "item"), self->candidates->len, &first, &last))
    {
      /* Only a reference resolved to something else gets here. */
      atom_done (run, position, anot_tool_result_new_error ("the item does not name a candidate"));
      return;
    }

  if (strcmp (spec->name, "llm_judge") == 0)
    {
      start_judge (run, position, atom, input, first, last);
      return;
    }

  per_item = json_object_new ();
  if (strcmp (spec->name, "reviews_matching") == 0)
    {
      const char *pattern = json_object_get_string_member_with_default (input, "pattern", "");
      g_autoptr(GRegex) regex = g_regex_new (pattern, G_REGEX_CASELESS | G_REGEX_OPTIMIZE, 0, NULL);

      if (regex == NULL)
        {
          g_autofree char *escaped = g_regex_escape_string (pattern, -1);

          regex = g_regex_new (escaped, G_REGEX_CASELESS, 0, NULL);
        }
      for (guint number = first; number <= last; number++)
        {
          char key[16];

          g_snprintf (key, sizeof key, "%u", number);
          json_object_set_member (per_item, key, reviews_matching (self, number, regex));
        }
    }
  else
    {
      for (guint number = first; number <= last; number++)
        {
          char key[16];

          g_snprintf (key, sizeof key, "%u", number);
          json_object_set_member (per_item, key,
                                  strcmp (spec->name, "check_attribute") == 0
                                  ? check_attribute (self, number, input)
                                  : strcmp (spec->name, "has_category") == 0
                                  ? has_category (self, number, input)
                                  : hours_open (self, number, input));
        }
    }
  result = json_node_init_object (json_node_alloc (), per_item);
  json_object_unref (per_item);
  atom_done (run, position, result);
}

static void
run_complete (Run *run)
{
  GTask *task = run->task;

  if (run->completed)
    return;
  run->completed = TRUE;

  _anot_plan_result_finish (run->result, run->ranking, run_ms (run), run->n_calls, run->max_in_flight);
  if (g_task_return_error_if_cancelled (task))
    return;
  if (run->ranking == NULL)
    {
      g_task_return_new_error (task, ANOT_ERROR, ANOT_ERROR_METHOD_FAILED,
                               "The plan ran without producing a ranking");
      return;
    }
  g_task_return_pointer (task, g_object_ref (run->result), g_object_unref);
}

static void
run_pump (Run *run)
{
  GCancellable *cancellable = g_task_get_cancellable (run->task);

  if (run->pumping || run->completed)
    return;
  run->pumping = TRUE;
  while (!g_queue_is_empty (&run->ready) && !g_cancellable_is_cancelled (cancellable))
    start_atom (run, GPOINTER_TO_UINT (g_queue_pop_head (&run->ready)));
  run->pumping = FALSE;

  if (run->in_flight == 0 &&
      (run->n_done == run->n_atoms || g_cancellable_is_cancelled (cancellable)))
    run_complete (run);
}

/**
 * anot_plan_executor_execute_async:
 * @self: an #AnotPlanExecutor
 * @plan: a plan
 * @cancellable: (nullable): a #GCancellable
 * @callback: (scope async): called when the final atom has run
 * @user_data: data for @callback
 *
 * Checks @plan (failing with %ANOT_ERROR_INVALID_FIELD as
 * anot_plan_executor_validate() does) and runs it.  Finish with
 * anot_plan_executor_execute_finish().
 */
void
anot_plan_executor_execute_async (AnotPlanExecutor    *self,
                                  AnotPlan            *plan,
                                  GCancellable        *cancellable,
                                  GAsyncReadyCallback  callback,
                                  gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;
  g_autoptr(GError) error = NULL;
  Run *run;

  g_return_if_fail (ANOT_IS_PLAN_EXECUTOR (self));
  g_return_if_fail (ANOT_IS_PLAN (plan));

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, anot_plan_executor_execute_async);
  g_task_set_name (task, "[anot] plan execution");

  if (!anot_plan_executor_validate (self, plan, &error))
    {
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }

  run = g_new0 (Run, 1);
  run->self = g_object_ref (self);
  run->task = task;   /* owned by the task data's lifetime, see below */
  run->plan = g_object_ref (plan);
  run->result = _anot_plan_result_new (plan);
  run->n_atoms = anot_plan_get_n_atoms (plan);
  run->n_waiting = g_new0 (guint, run->n_atoms);
  run->dependants = g_new0 (GPtrArray *, run->n_atoms);
  run->started = g_new0 (gboolean, run->n_atoms);
  run->results = g_new0 (JsonNode *, run->n_atoms);
  run->start_ms = g_new0 (double, run->n_atoms);
  run->started_us = g_get_monotonic_time ();
  g_queue_init (&run->ready);
  g_task_set_task_data (task, run, (GDestroyNotify) run_free);

  for (guint i = 0; i < run->n_atoms; i++)
    {
      const AnotPlanAtom *atom = _anot_plan_get_atom (plan, i);

      for (guint d = 0; atom->dependencies[d] != NULL; d++)
        {
          guint position = (guint) anot_plan_lookup_atom (plan, atom->dependencies[d]);

          if (run->dependants[position] == NULL)
            run->dependants[position] = g_ptr_array_new ();
          g_ptr_array_add (run->dependants[position], GUINT_TO_POINTER (i));
          run->n_waiting[i]++;
        }
    }
  for (guint i = 0; i < run->n_atoms; i++)
    if (run->n_waiting[i] == 0)
      g_queue_push_tail (&run->ready, GUINT_TO_POINTER (i));

  anot_method_context_debug (self->context, ANOT_DEBUG_LEVEL_SUMMARY, "PLAN",
                             "Executing %u atoms", run->n_atoms);
  run_pump (run);
}

/**
 * anot_plan_executor_execute_finish:
 * @self: an #AnotPlanExecutor
 * @result: the #GAsyncResult passed to the callback
 * @error: return location for a #GError
 *
 * Finishes anot_plan_executor_execute_async().
 *
 * Returns: (transfer full): the run's result
 */
AnotPlanResult *
anot_plan_executor_execute_finish (AnotPlanExecutor  *self,
                                   GAsyncResult      *result,
                                   GError           **error)
{
  g_return_val_if_fail (ANOT_IS_PLAN_EXECUTOR (self), NULL);
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == anot_plan_executor_execute_async, NULL);

  return g_task_propagate_pointer (G_TASK (result), error);
}
