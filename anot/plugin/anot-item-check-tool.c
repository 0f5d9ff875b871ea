/* anot-item-check-tool.c: a Python expression evaluated for every item
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "anot-item-check-tool.h"

#include <string.h>

#include "anot-tool-private.h"
#include "anot-data-tool.h"
#include "anot-error.h"
#include "anot-expr.h"
#include "anot-expr-private.h"
#include "anot-shared-table-private.h"
#include "anot-tool.h"

/**
 * AnotItemCheckTool:
 *
 * The `check` tool of the agents: evaluates an expression of the Python
 * subset of [struct@Anot.Expr] against every candidate (or the ones
 * named), so a model can test a condition across the whole pool in one
 * step — `check("attributes.get('WiFi') == 'free'")`,
 * `check("any('quiet' in r['text'].lower() for r in reviews)")`,
 * `check("hours.get('Monday')", 3)`.  The first is the example its
 * description gives on restaurants; the agent toolbox gives one over the
 * candidates' own attributes on a benchmark of another domain.
 *
 * In the expression, `item` is the candidate's record of the dict context
 * (anot_data_context_new()) and each of its fields is also a variable of
 * its own (`attributes`, `categories`, `hours`, `reviews`, `name`,
 * `stars`, ...).  The expression runs in the evaluator's sandbox with its
 * step budget.  The members a dict context shares between requests
 * (anot_data_context_new() seals them), the reviews above all, are
 * converted once for all the tools that read them; an item's scope around
 * them lives for one check.
 *
 * Arguments: `["expression"]`, `["expression", item]` (an item number, or
 * a list of them), or `{"expression": ..., "item": ...}`.
 *
 * Result: when every value is a boolean, `{"true": [numbers], "false":
 * [numbers]}`; otherwise `{"values": {"1": value, ...}}` with values cut
 * to [property@Anot.ItemCheckTool:max-value-length] characters; with
 * `"errors": {"3": "KeyError: ..."}` for the items where evaluation
 * failed.  For a single item, `{"item": 3, "value": ...}` or `{"item": 3,
 * "error": ...}`.  A bad expression or argument is an error result.
 */

#define DEFAULT_MAX_VALUE_LENGTH 200

struct _AnotItemCheckTool
{
  GObject     parent_instance;

  JsonNode   *data;
  guint       max_value_length;
  char       *description;      /* NULL: the restaurants' example */
};

static void anot_item_check_tool_tool_iface_init (AnotToolInterface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE (AnotItemCheckTool, anot_item_check_tool, G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (ANOT_TYPE_TOOL,
                                                      anot_item_check_tool_tool_iface_init))

enum {
  PROP_0,
  PROP_DATA,
  PROP_MAX_VALUE_LENGTH,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

static void
anot_item_check_tool_finalize (GObject *object)
{
  AnotItemCheckTool *self = ANOT_ITEM_CHECK_TOOL (object);

  g_clear_pointer (&self->data, json_node_unref);
  g_free (self->description);

  G_OBJECT_CLASS (anot_item_check_tool_parent_class)->finalize (object);
}

static void
anot_item_check_tool_get_property (GObject    *object,
                                   guint       prop_id,
                                   GValue     *value,
                                   GParamSpec *pspec)
{
  AnotItemCheckTool *self = ANOT_ITEM_CHECK_TOOL (object);

  switch (prop_id)
    {
    case PROP_DATA:
      g_value_set_boxed (value, self->data);
      break;
    case PROP_MAX_VALUE_LENGTH:
      g_value_set_uint (value, self->max_value_length);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
anot_item_check_tool_set_property (GObject      *object,
                                   guint         prop_id,
                                   const GValue *value,
                                   GParamSpec   *pspec)
{
  AnotItemCheckTool *self = ANOT_ITEM_CHECK_TOOL (object);

  switch (prop_id)
    {
    case PROP_DATA:
      anot_item_check_tool_set_data (self, g_value_get_boxed (value));
      break;
    case PROP_MAX_VALUE_LENGTH:
      anot_item_check_tool_set_max_value_length (self, g_value_get_uint (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
anot_item_check_tool_class_init (AnotItemCheckToolClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = anot_item_check_tool_finalize;
  object_class->get_property = anot_item_check_tool_get_property;
  object_class->set_property = anot_item_check_tool_set_property;

  /**
   * AnotItemCheckTool:data:
   *
   * The dict context the tool reads, `{"items": {"1": ..., ...}}`.
   */
  properties[PROP_DATA] =
    g_param_spec_boxed ("data", NULL, NULL, JSON_TYPE_NODE,
                        G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);

  /**
   * AnotItemCheckTool:max-value-length:
   *
   * Values whose text is longer than this many characters are cut.
   */
  properties[PROP_MAX_VALUE_LENGTH] =
    g_param_spec_uint ("max-value-length", NULL, NULL, 1, G_MAXUINT, DEFAULT_MAX_VALUE_LENGTH,
                       G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);

  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
anot_item_check_tool_init (AnotItemCheckTool *self)
{
  self->max_value_length = DEFAULT_MAX_VALUE_LENGTH;
}

static const char *
anot_item_check_tool_get_name (AnotTool *tool)
{
  return "check";
}

#define DESCRIPTION_START \
  "evaluates a Python expression for every item (or the item numbers given) and lists " \
  "the items where it is true and false, or each item's value; `item` is the item's " \
  "record and its fields are variables too (attributes, categories, hours, reviews, " \
  "name, stars), e.g. check(\""

static const char *
anot_item_check_tool_get_description (AnotTool *tool)
{
  AnotItemCheckTool *self = ANOT_ITEM_CHECK_TOOL (tool);

  if (self->description != NULL)
    return self->description;
  return DESCRIPTION_START "attributes.get('WiFi') == 'free'\")";
}

/* The example expression of the description: the restaurants' WiFi check
 * reads as nonsense on a benchmark of jobs, so the agent toolbox gives one
 * over the candidates' own attributes there. */
void
_anot_item_check_tool_set_example (AnotItemCheckTool *self,
                                   const char        *expression)
{
  g_return_if_fail (ANOT_IS_ITEM_CHECK_TOOL (self));
  g_return_if_fail (expression != NULL);

  g_free (self->description);
  self->description = g_strconcat (DESCRIPTION_START, expression, "\")", NULL);
}

static JsonNode *
anot_item_check_tool_get_schema (AnotTool *tool)
{
  g_autoptr(JsonParser) parser = json_parser_new_immutable ();

  json_parser_load_from_data (parser,
    "{\"type\": \"object\", \"properties\": {"
    "  \"expression\": {\"type\": \"string\", \"description\": "
    "     \"A Python expression over item and its fields\"},"
    "  \"item\": {\"description\": \"An item number or a list of them; all items when absent\","
    "     \"oneOf\": [{\"type\": \"integer\"}, {\"type\": \"array\", \"items\": {\"type\": \"integer\"}}]}"
    "}, \"required\": [\"expression\"], \"additionalProperties\": false}", -1, NULL);
  return json_node_copy (json_parser_get_root (parser));
}

static gboolean
is_identifier (const char *name)
{
  if (!g_ascii_isalpha (name[0]) && name[0] != '_')
    return FALSE;
  for (const char *p = name; *p != '\0'; p++)
    if (!g_ascii_isalnum (*p) && *p != '_')
      return FALSE;
  return TRUE;
}

/* The evaluator's value of a sealed JSON node, shared by every check of
 * every request that reads that node.  The dict contexts of the requests
 * in flight share their items' member nodes (anot_data_context_new()),
 * so with react or lats at N = 50 and -j 32, 32 conversions of the same
 * 50 items' reviews were 150 MB of a 160 MB heap; shared, there is one.
 * The values are immortal (their reference counts are not touched, so
 * checks in several threads can read them) and freed with the last scope
 * that uses them once the table (of the 4,096 most recently used nodes,
 * anot-shared-table-private.h) has let them go. */
typedef struct
{
  gatomicrefcount ref_count;   /* the table's, and one per scope */
  JsonNode *node;              /* a reference: the key cannot be reused */
  AnotExprValue value;         /* immortal */
} SharedValue;

static void
shared_value_unref (gpointer data)
{
  SharedValue *shared = data;

  if (!g_atomic_ref_count_dec (&shared->ref_count))
    return;
  anot_expr_value_free_immortal (shared->value);
  json_node_unref (shared->node);
  g_free (shared);
}

static AnotSharedTable shared_values = ANOT_SHARED_TABLE_INIT (4096, shared_value_unref);

static gpointer
shared_value_new (gpointer node)
{
  SharedValue *shared = g_new0 (SharedValue, 1);

  g_atomic_ref_count_init (&shared->ref_count);
  shared->node = json_node_ref (node);
  shared->value = anot_expr_value_from_json (node);
  anot_expr_value_make_immortal (shared->value);
  return shared;
}

static gpointer
shared_value_ref (gpointer data)
{
  SharedValue *shared = data;

  g_atomic_ref_count_inc (&shared->ref_count);
  return shared;
}

/* `item` as the evaluator's dict, in document order as json.loads()
 * builds it: the values of sealed members shared (@kept holds them), the
 * others (`index`) converted. */
static AnotExprValue
item_value (JsonObject *item,
            GPtrArray  *kept)
{
  AnotExprValue whole = anot_expr_value_new_dict ();
  JsonObjectIter iter;
  const char *name;
  JsonNode *member;

  json_object_iter_init_ordered (&iter, item);
  while (json_object_iter_next_ordered (&iter, &name, &member))
    {
      AnotExprValue value;

      if (json_node_is_immutable (member))
        {
          SharedValue *shared = anot_shared_table_lookup (&shared_values, member, shared_value_new,
                                                          shared_value_ref);

          g_ptr_array_add (kept, shared);
          value = shared->value;
        }
      else
        value = anot_expr_value_from_json (member);
      anot_expr_dict_set (whole.u.d, anot_expr_value_new_string_shared (name), value);
    }
  return whole;
}

/* An item's variables, for one check: kept between checks, the scopes
 * of every request in flight (a dict and its names per item, around the
 * shared values) were a quarter of react's heap at N = 50 and -j 64,
 * for a saving only a second check of the same pool would see. */
static AnotExprScope *
item_scope (AnotToolItem *item)
{
  AnotExprScope *scope;
  GPtrArray *kept;
  JsonObjectIter iter;
  const char *name;
  JsonNode *member;
  AnotExprValue whole;

  scope = anot_expr_scope_new ();
  kept = g_ptr_array_new_with_free_func (shared_value_unref);
  anot_expr_scope_keep (scope, kept, (GDestroyNotify) g_ptr_array_unref);
  /* The fields are the values of `item`, not copies: converting the item
   * once halves what a check holds (its reviews are most of it, megabytes
   * a request at N = 50). */
  whole = item_value (item->item, kept);
  json_object_iter_init (&iter, item->item);
  while (json_object_iter_next (&iter, &name, &member))
    if (is_identifier (name) && strcmp (name, "item") != 0)
      {
        AnotExprValue *field = anot_expr_dict_lookup_string (whole.u.d, name);

        if (field != NULL)
          anot_expr_scope_take_value (scope, name, anot_expr_value_ref (*field));
        else
          anot_expr_scope_set (scope, name, member);
      }
  anot_expr_scope_take_value (scope, "item", whole);
  return scope;
}

static JsonNode *
cut_value (AnotItemCheckTool *self,
           JsonNode          *value)
{
  g_autofree char *text = NULL;

  if (JSON_NODE_HOLDS_VALUE (value) && json_node_get_value_type (value) == G_TYPE_STRING)
    {
      if (g_utf8_strlen (json_node_get_string (value), -1) <= (glong) self->max_value_length)
        return json_node_copy (value);
      text = _anot_tool_truncate (json_node_get_string (value), self->max_value_length, "...");
      return json_node_init_string (json_node_alloc (), text);
    }
  if (JSON_NODE_HOLDS_OBJECT (value) || JSON_NODE_HOLDS_ARRAY (value))
    {
      g_autofree char *json = json_to_string (value, FALSE);

      if (g_utf8_strlen (json, -1) > (glong) self->max_value_length)
        {
          text = _anot_tool_truncate (json, self->max_value_length, "...");
          return json_node_init_string (json_node_alloc (), text);
        }
    }
  return json_node_copy (value);
}

static JsonNode *
anot_item_check_tool_invoke (AnotTool  *tool,
                             JsonNode  *args,
                             GError   **error)
{
  AnotItemCheckTool *self = ANOT_ITEM_CHECK_TOOL (tool);
  static const char * const names[] = { "expression", "item" };
  JsonNode *arguments[2];
  g_autofree char *message = NULL;
  g_autoptr(GArray) all = NULL;
  g_autoptr(GArray) items = NULL;
  g_autoptr(AnotExpr) expr = NULL;
  g_autoptr(GError) local_error = NULL;
  JsonObject *result;
  JsonArray *true_items, *false_items;
  JsonObject *values, *errors;
  gboolean all_boolean = TRUE;
  gboolean single;

  if (self->data == NULL)
    {
      g_set_error (error, ANOT_ERROR, ANOT_ERROR_INVALID_ARGUMENT, "Tool “check” has no data to read");
      return NULL;
    }

  if (!_anot_tool_arguments (args, names, G_N_ELEMENTS (names), arguments) ||
      arguments[0] == NULL || !JSON_NODE_HOLDS_VALUE (arguments[0]) ||
      json_node_get_value_type (arguments[0]) != G_TYPE_STRING)
    return anot_tool_result_new_error ("check() takes an expression in quotes, and optionally an "
                                       "item number: check(\"attributes.get('WiFi') == 'free'\")");

  all = _anot_tool_list_items (self->data, &message);
  if (all == NULL)
    return anot_tool_result_new_error (message);
  items = _anot_tool_select_items (all, arguments[1], &message);
  if (items == NULL)
    return anot_tool_result_new_error (message);

  expr = anot_expr_parse (json_node_get_string (arguments[0]), "check", &local_error);
  if (expr == NULL)
    return anot_tool_result_new_error (local_error->message);

  single = arguments[1] != NULL && JSON_NODE_HOLDS_VALUE (arguments[1]) && items->len == 1;
  result = json_object_new ();
  true_items = json_array_new ();
  false_items = json_array_new ();
  values = json_object_new ();
  errors = json_object_new ();

  for (guint i = 0; i < items->len; i++)
    {
      AnotToolItem *item = &g_array_index (items, AnotToolItem, i);
      g_autoptr(AnotExprScope) scope = item_scope (item);
      g_autoptr(JsonNode) value = NULL;
      g_autoptr(GError) item_error = NULL;

      value = anot_expr_evaluate (expr, scope, &item_error);
      if (value == NULL)
        {
          json_object_set_string_member (errors, item->key, item_error->message);
          continue;
        }
      if (JSON_NODE_HOLDS_VALUE (value) && json_node_get_value_type (value) == G_TYPE_BOOLEAN)
        json_array_add_int_element (json_node_get_boolean (value) ? true_items : false_items,
                                    item->number);
      else
        all_boolean = FALSE;
      json_object_set_member (values, item->key, cut_value (self, value));
    }

  if (single)
    {
      AnotToolItem *item = &g_array_index (items, AnotToolItem, 0);

      json_object_set_int_member (result, "item", item->number);
      if (json_object_has_member (errors, item->key))
        json_object_set_string_member (result, "error",
                                       json_object_get_string_member (errors, item->key));
      else
        json_object_set_member (result, "value",
                                json_node_copy (json_object_get_member (values, item->key)));
      json_array_unref (true_items);
      json_array_unref (false_items);
      json_object_unref (values);
      json_object_unref (errors);
      return _anot_tool_object_node (result);
    }

  if (all_boolean)
    {
      json_object_set_array_member (result, "true", true_items);
      json_object_set_array_member (result, "false", false_items);
      json_object_unref (values);
    }
  else
    {
      json_object_set_object_member (result, "values", values);
      json_array_unref (true_items);
      json_array_unref (false_items);
    }
  if (json_object_get_size (errors) > 0)
    json_object_set_object_member (result, "errors", errors);
  else
    json_object_unref (errors);
  return _anot_tool_object_node (result);
}

static void
anot_item_check_tool_tool_iface_init (AnotToolInterface *iface)
{
  iface->get_name = anot_item_check_tool_get_name;
  iface->get_description = anot_item_check_tool_get_description;
  iface->get_schema = anot_item_check_tool_get_schema;
  iface->invoke = anot_item_check_tool_invoke;
}

/**
 * anot_item_check_tool_new:
 * @data: (nullable): the dict context to read
 *
 * Returns: (transfer full): a new `check` tool
 */
AnotItemCheckTool *
anot_item_check_tool_new (JsonNode *data)
{
  return g_object_new (ANOT_TYPE_ITEM_CHECK_TOOL, "data", data, NULL);
}

/**
 * anot_item_check_tool_get_data:
 * @self: a tool
 *
 * Returns: (transfer none) (nullable): the dict context the tool reads
 */
JsonNode *
anot_item_check_tool_get_data (AnotItemCheckTool *self)
{
  g_return_val_if_fail (ANOT_IS_ITEM_CHECK_TOOL (self), NULL);

  return self->data;
}

/**
 * anot_item_check_tool_set_data:
 * @self: a tool
 * @data: (nullable): the dict context to read; a reference is kept and
 *   it is never modified
 *
 * Sets the document the tool reads.
 */
void
anot_item_check_tool_set_data (AnotItemCheckTool *self,
                               JsonNode          *data)
{
  g_return_if_fail (ANOT_IS_ITEM_CHECK_TOOL (self));

  if (self->data == data)
    return;
  g_clear_pointer (&self->data, json_node_unref);
  self->data = data != NULL ? json_node_ref (data) : NULL;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_DATA]);
}

/**
 * anot_item_check_tool_get_max_value_length:
 * @self: a tool
 *
 * Returns: the length, in characters, beyond which values are cut
 */
guint
anot_item_check_tool_get_max_value_length (AnotItemCheckTool *self)
{
  g_return_val_if_fail (ANOT_IS_ITEM_CHECK_TOOL (self), 0);

  return self->max_value_length;
}

/**
 * anot_item_check_tool_set_max_value_length:
 * @self: a tool
 * @max_value_length: a length in characters, at least 1
 *
 * Sets the length beyond which values are cut.
 */
void
anot_item_check_tool_set_max_value_length (AnotItemCheckTool *self,
                                           guint              max_value_length)
{
  g_return_if_fail (ANOT_IS_ITEM_CHECK_TOOL (self));
  g_return_if_fail (max_value_length > 0);

  if (self->max_value_length == max_value_length)
    return;
  self->max_value_length = max_value_length;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_MAX_VALUE_LENGTH]);
}
