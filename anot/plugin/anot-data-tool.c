/* anot-data-tool.c: count, keys, union_keys and sample
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "anot-data-tool.h"

#include <string.h>

#include "anot-data-path-private.h"
#include "anot-error.h"
#include "anot-registry.h"
#include "anot-tool.h"

/**
 * AnotDataTool:
 *
 * The base class of the data-exploration tools a model uses to discover
 * the structure of the candidates before planning (ANoT's phase 1, the
 * atoms of Atom of Thought, ReAct).  Each takes one argument, a path in
 * the language of [class@Anot.DataPath], and reads the JSON document set
 * as [property@Anot.DataTool:data] — usually the dict context built by
 * anot_data_context_new().
 *
 * The core registers four of them with the `anot-tool` extension point
 * (see anot_data_tool_register_builtin()):
 *
 * | name | result |
 * |---|---|
 * | `count` | the number of members of an object or elements of an array; with `*`, an object mapping each match's path to its count |
 * | `keys` | the sorted keys of an object; for an array, `["[0]", "... <n> items"]` |
 * | `union_keys` | the sorted union of the keys of every object the path matches; the path must contain `*` |
 * | `sample` | the value, truncated; with `*`, an object mapping the first [property@Anot.DataTool:max-samples] matches' paths to their values |
 *
 * Truncation: a string longer than [property@Anot.DataTool:max-value-length]
 * characters is cut and ends with `...`; an object or array whose compact
 * JSON text is longer becomes that text, cut, as a string.
 *
 * The arguments are `{"path": "items[1].attributes"}` or the bare string.
 * Whatever the model writes, [method@Anot.Tool.invoke] does not fail: a
 * bad path or bad arguments give an error result, `{"error": "<message>"}`
 * (see anot_tool_result_is_error()), whose message says what was wrong.
 * Only a tool without data fails, with %ANOT_ERROR_INVALID_ARGUMENT.
 */

typedef struct
{
  JsonNode *data;
  guint     max_value_length;
  guint     max_samples;
} AnotDataToolPrivate;

static void anot_data_tool_tool_iface_init (AnotToolInterface *iface);

G_DEFINE_ABSTRACT_TYPE_WITH_CODE (AnotDataTool, anot_data_tool, G_TYPE_OBJECT,
                                  G_ADD_PRIVATE (AnotDataTool)
                                  G_IMPLEMENT_INTERFACE (ANOT_TYPE_TOOL,
                                                         anot_data_tool_tool_iface_init))

enum {
  PROP_0,
  PROP_DATA,
  PROP_MAX_VALUE_LENGTH,
  PROP_MAX_SAMPLES,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

#define DEFAULT_MAX_SAMPLES 3

/* Name, description and GType of each built-in tool, filled in by the
 * subclasses' class_init. */
typedef struct {
  const char *name;
  const char *description;
  const char *path_description;
} ToolInfo;

static const ToolInfo *
tool_info (AnotDataTool *self);

static void
anot_data_tool_finalize (GObject *object)
{
  AnotDataTool *self = ANOT_DATA_TOOL (object);
  AnotDataToolPrivate *priv = anot_data_tool_get_instance_private (self);

  g_clear_pointer (&priv->data, json_node_unref);

  G_OBJECT_CLASS (anot_data_tool_parent_class)->finalize (object);
}

static void
anot_data_tool_get_property (GObject    *object,
                             guint       prop_id,
                             GValue     *value,
                             GParamSpec *pspec)
{
  AnotDataTool *self = ANOT_DATA_TOOL (object);
  AnotDataToolPrivate *priv = anot_data_tool_get_instance_private (self);

  switch (prop_id)
    {
    case PROP_DATA:
      g_value_set_boxed (value, priv->data);
      break;
    case PROP_MAX_VALUE_LENGTH:
      g_value_set_uint (value, priv->max_value_length);
      break;
    case PROP_MAX_SAMPLES:
      g_value_set_uint (value, priv->max_samples);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
anot_data_tool_set_property (GObject      *object,
                             guint         prop_id,
                             const GValue *value,
                             GParamSpec   *pspec)
{
  AnotDataTool *self = ANOT_DATA_TOOL (object);

  switch (prop_id)
    {
    case PROP_DATA:
      anot_data_tool_set_data (self, g_value_get_boxed (value));
      break;
    case PROP_MAX_VALUE_LENGTH:
      anot_data_tool_set_max_value_length (self, g_value_get_uint (value));
      break;
    case PROP_MAX_SAMPLES:
      anot_data_tool_set_max_samples (self, g_value_get_uint (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
anot_data_tool_class_init (AnotDataToolClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = anot_data_tool_finalize;
  object_class->get_property = anot_data_tool_get_property;
  object_class->set_property = anot_data_tool_set_property;

  /**
   * AnotDataTool:data:
   *
   * The JSON document the tool reads.
   */
  properties[PROP_DATA] =
    g_param_spec_boxed ("data", NULL, NULL, JSON_TYPE_NODE,
                        G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY |
                        G_PARAM_STATIC_STRINGS);

  /**
   * AnotDataTool:max-value-length:
   *
   * Values longer than this many characters are cut (strings) or written
   * as cut JSON text (objects and arrays).
   */
  properties[PROP_MAX_VALUE_LENGTH] =
    g_param_spec_uint ("max-value-length", NULL, NULL,
                       1, G_MAXUINT, ANOT_DATA_TOOL_DEFAULT_MAX_VALUE_LENGTH,
                       G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY |
                       G_PARAM_STATIC_STRINGS);

  /**
   * AnotDataTool:max-samples:
   *
   * How many matches of a path with `*` the `sample` tool shows.
   */
  properties[PROP_MAX_SAMPLES] =
    g_param_spec_uint ("max-samples", NULL, NULL,
                       1, G_MAXUINT, DEFAULT_MAX_SAMPLES,
                       G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY |
                       G_PARAM_STATIC_STRINGS);

  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
anot_data_tool_init (AnotDataTool *self)
{
  AnotDataToolPrivate *priv = anot_data_tool_get_instance_private (self);

  priv->max_value_length = ANOT_DATA_TOOL_DEFAULT_MAX_VALUE_LENGTH;
  priv->max_samples = DEFAULT_MAX_SAMPLES;
}

/* ------------------------------------------------------------------------ *
 * AnotTool
 * ------------------------------------------------------------------------ */

static const char *
anot_data_tool_get_name (AnotTool *tool)
{
  return tool_info (ANOT_DATA_TOOL (tool))->name;
}

static const char *
anot_data_tool_get_description (AnotTool *tool)
{
  return tool_info (ANOT_DATA_TOOL (tool))->description;
}

static JsonNode *
anot_data_tool_get_schema (AnotTool *tool)
{
  const ToolInfo *info = tool_info (ANOT_DATA_TOOL (tool));
  g_autoptr(JsonBuilder) builder = json_builder_new ();

  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "type");
  json_builder_add_string_value (builder, "object");
  json_builder_set_member_name (builder, "properties");
  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "path");
  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "type");
  json_builder_add_string_value (builder, "string");
  json_builder_set_member_name (builder, "description");
  json_builder_add_string_value (builder, info->path_description);
  json_builder_end_object (builder);
  json_builder_end_object (builder);
  json_builder_set_member_name (builder, "required");
  json_builder_begin_array (builder);
  json_builder_add_string_value (builder, "path");
  json_builder_end_array (builder);
  json_builder_set_member_name (builder, "additionalProperties");
  json_builder_add_boolean_value (builder, FALSE);
  json_builder_end_object (builder);

  return json_builder_get_root (builder);
}

static JsonNode *
anot_data_tool_invoke (AnotTool  *tool,
                       JsonNode  *args,
                       GError   **error)
{
  AnotDataTool *self = ANOT_DATA_TOOL (tool);
  AnotDataToolPrivate *priv = anot_data_tool_get_instance_private (self);
  const char *path = NULL;

  if (priv->data == NULL)
    {
      g_set_error (error, ANOT_ERROR, ANOT_ERROR_INVALID_ARGUMENT,
                   "Tool “%s” has no data to read", tool_info (self)->name);
      return NULL;
    }

  if (JSON_NODE_HOLDS_VALUE (args) && json_node_get_value_type (args) == G_TYPE_STRING)
    path = json_node_get_string (args);
  else if (JSON_NODE_HOLDS_OBJECT (args))
    {
      JsonObject *object = json_node_get_object (args);
      JsonNode *member = json_object_get_member (object, "path");

      if (member != NULL && JSON_NODE_HOLDS_VALUE (member) &&
          json_node_get_value_type (member) == G_TYPE_STRING)
        path = json_node_get_string (member);
    }

  if (path == NULL)
    {
      g_autofree char *message =
        g_strdup_printf ("%s() takes one argument, a path such as \"items[1].attributes\"",
                         tool_info (self)->name);
      return anot_tool_result_new_error (message);
    }

  return anot_data_tool_invoke_path (self, path);
}

static void
anot_data_tool_tool_iface_init (AnotToolInterface *iface)
{
  iface->get_name = anot_data_tool_get_name;
  iface->get_description = anot_data_tool_get_description;
  iface->get_schema = anot_data_tool_get_schema;
  iface->invoke = anot_data_tool_invoke;
}

/* ------------------------------------------------------------------------ *
 * Public API
 * ------------------------------------------------------------------------ */

/**
 * anot_data_tool_get_data:
 * @self: an #AnotDataTool
 *
 * Returns: (transfer none) (nullable): the document the tool reads
 */
JsonNode *
anot_data_tool_get_data (AnotDataTool *self)
{
  AnotDataToolPrivate *priv = anot_data_tool_get_instance_private (self);

  g_return_val_if_fail (ANOT_IS_DATA_TOOL (self), NULL);
  return priv->data;
}

/**
 * anot_data_tool_set_data:
 * @self: an #AnotDataTool
 * @data: (nullable): the document to read, e.g. from
 *   anot_data_context_new()
 *
 * Sets the document the tool reads.  The tool keeps a reference and never
 * modifies it, so one document can be shared by every tool of a request.
 */
void
anot_data_tool_set_data (AnotDataTool *self,
                         JsonNode     *data)
{
  AnotDataToolPrivate *priv = anot_data_tool_get_instance_private (self);

  g_return_if_fail (ANOT_IS_DATA_TOOL (self));

  if (priv->data == data)
    return;
  g_clear_pointer (&priv->data, json_node_unref);
  priv->data = data != NULL ? json_node_ref (data) : NULL;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_DATA]);
}

/**
 * anot_data_tool_get_max_value_length:
 * @self: an #AnotDataTool
 *
 * Returns: the length, in characters, beyond which values are cut
 */
guint
anot_data_tool_get_max_value_length (AnotDataTool *self)
{
  AnotDataToolPrivate *priv = anot_data_tool_get_instance_private (self);

  g_return_val_if_fail (ANOT_IS_DATA_TOOL (self), 0);
  return priv->max_value_length;
}

/**
 * anot_data_tool_set_max_value_length:
 * @self: an #AnotDataTool
 * @max_value_length: a length in characters, at least 1
 *
 * Sets [property@Anot.DataTool:max-value-length].
 */
void
anot_data_tool_set_max_value_length (AnotDataTool *self,
                                     guint         max_value_length)
{
  AnotDataToolPrivate *priv = anot_data_tool_get_instance_private (self);

  g_return_if_fail (ANOT_IS_DATA_TOOL (self));
  g_return_if_fail (max_value_length > 0);

  if (priv->max_value_length == max_value_length)
    return;
  priv->max_value_length = max_value_length;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_MAX_VALUE_LENGTH]);
}

/**
 * anot_data_tool_get_max_samples:
 * @self: an #AnotDataTool
 *
 * Returns: how many matches of a wildcard path `sample` shows
 */
guint
anot_data_tool_get_max_samples (AnotDataTool *self)
{
  AnotDataToolPrivate *priv = anot_data_tool_get_instance_private (self);

  g_return_val_if_fail (ANOT_IS_DATA_TOOL (self), 0);
  return priv->max_samples;
}

/**
 * anot_data_tool_set_max_samples:
 * @self: an #AnotDataTool
 * @max_samples: at least 1
 *
 * Sets [property@Anot.DataTool:max-samples].
 */
void
anot_data_tool_set_max_samples (AnotDataTool *self,
                                guint         max_samples)
{
  AnotDataToolPrivate *priv = anot_data_tool_get_instance_private (self);

  g_return_if_fail (ANOT_IS_DATA_TOOL (self));
  g_return_if_fail (max_samples > 0);

  if (priv->max_samples == max_samples)
    return;
  priv->max_samples = max_samples;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_MAX_SAMPLES]);
}

/**
 * anot_data_tool_invoke_path:
 * @self: an #AnotDataTool
 * @path: a path, as the model wrote it
 *
 * Runs the tool on @path, as [method@Anot.Tool.invoke] does with
 * `{"path": path}`.  Never fails: a path that is invalid or does not fit
 * the data, or a tool without data, gives an error result.
 *
 * Returns: (transfer full): the result
 */
JsonNode *
anot_data_tool_invoke_path (AnotDataTool *self,
                            const char   *path)
{
  AnotDataToolPrivate *priv = anot_data_tool_get_instance_private (self);
  g_autoptr(AnotDataPath) parsed = NULL;
  g_autoptr(GError) local_error = NULL;
  JsonNode *result;

  g_return_val_if_fail (ANOT_IS_DATA_TOOL (self), NULL);
  g_return_val_if_fail (path != NULL, NULL);

  if (priv->data == NULL)
    return anot_tool_result_new_error ("there is no data to explore");

  parsed = anot_data_path_parse (path, &local_error);
  if (parsed == NULL)
    return anot_tool_result_new_error (local_error->message);

  result = ANOT_DATA_TOOL_GET_CLASS (self)->run (self, parsed, priv->data, &local_error);
  if (result == NULL)
    return anot_tool_result_new_error (local_error != NULL ? local_error->message
                                                           : "the tool failed");
  return result;
}

/* The first @max characters of @text (UTF-8 aware) plus "...". */
static char *
truncate_text (const char *text,
               guint       max)
{
  const char *end;
  glong length = g_utf8_strlen (text, -1);
  GString *out;

  if (length <= (glong) max)
    return g_strdup (text);

  end = g_utf8_offset_to_pointer (text, max);
  out = g_string_new_len (text, end - text);
  g_string_append (out, "...");
  return g_string_free (out, FALSE);
}

/**
 * anot_data_tool_truncate_value:
 * @self: an #AnotDataTool
 * @value: a value
 *
 * Cuts @value to [property@Anot.DataTool:max-value-length] characters: a
 * longer string is cut and ends with `...`; an object or array whose
 * compact JSON text is longer becomes a string with that text, cut and
 * ending with `...`; anything else is returned as is.
 *
 * Returns: (transfer full): the value to show
 */
JsonNode *
anot_data_tool_truncate_value (AnotDataTool *self,
                               JsonNode     *value)
{
  AnotDataToolPrivate *priv = anot_data_tool_get_instance_private (self);

  g_return_val_if_fail (ANOT_IS_DATA_TOOL (self), NULL);
  g_return_val_if_fail (value != NULL, NULL);

  if (JSON_NODE_HOLDS_VALUE (value) && json_node_get_value_type (value) == G_TYPE_STRING)
    {
      const char *text = json_node_get_string (value);
      g_autofree char *cut = truncate_text (text, priv->max_value_length);

      return json_node_init_string (json_node_alloc (), cut);
    }

  if (JSON_NODE_HOLDS_OBJECT (value) || JSON_NODE_HOLDS_ARRAY (value))
    {
      g_autofree char *text = json_to_string (value, FALSE);

      if (g_utf8_strlen (text, -1) > (glong) priv->max_value_length)
        {
          g_autofree char *cut = truncate_text (text, priv->max_value_length);

          return json_node_init_string (json_node_alloc (), cut);
        }
    }

  return json_node_copy (value);
}

/**
 * anot_tool_result_new_error:
 * @message: what went wrong, for the model to read
 *
 * Builds the error result of a tool, `{"error": message}`.
 *
 * Returns: (transfer full): a new JSON object node
 */
JsonNode *
anot_tool_result_new_error (const char *message)
{
  JsonObject *object = json_object_new ();
  JsonNode *node;

  g_return_val_if_fail (message != NULL, NULL);

  json_object_set_string_member (object, "error", message);
  node = json_node_init_object (json_node_alloc (), object);
  json_object_unref (object);
  return node;
}

/**
 * anot_tool_result_is_error:
 * @result: (nullable): a tool's result
 *
 * Returns: whether @result is an error result, an object with just an
 *   `error` string member
 */
gboolean
anot_tool_result_is_error (JsonNode *result)
{
  JsonObject *object;
  JsonNode *member;

  if (result == NULL || !JSON_NODE_HOLDS_OBJECT (result))
    return FALSE;
  object = json_node_get_object (result);
  member = json_object_get_member (object, "error");
  return json_object_get_size (object) == 1 && member != NULL &&
         JSON_NODE_HOLDS_VALUE (member) && json_node_get_value_type (member) == G_TYPE_STRING;
}

/**
 * anot_tool_result_to_text:
 * @result: (nullable): a tool's result
 *
 * Writes a result for a prompt: `Error: <message>` for an error result,
 * compact JSON otherwise (a string in quotes, as the original's tools
 * answered); `null` for %NULL.
 *
 * Returns: (transfer full): the text
 */
char *
anot_tool_result_to_text (JsonNode *result)
{
  if (result == NULL)
    return g_strdup ("null");

  if (anot_tool_result_is_error (result))
    return g_strdup_printf ("Error: %s",
                            json_object_get_string_member (json_node_get_object (result), "error"));

  return json_to_string (result, FALSE);
}

/* ------------------------------------------------------------------------ *
 * The four tools
 * ------------------------------------------------------------------------ */

static JsonNode *
new_object_node (JsonObject *object)
{
  JsonNode *node = json_node_init_object (json_node_alloc (), object);

  json_object_unref (object);
  return node;
}

static JsonNode *
sorted_keys (JsonObject *object)
{
  g_autoptr(GList) members = json_object_get_members (object);
  JsonArray *array = json_array_new ();
  JsonNode *node;

  members = g_list_sort (members, (GCompareFunc) strcmp);
  for (GList *l = members; l != NULL; l = l->next)
    json_array_add_string_element (array, l->data);

  node = json_node_init_array (json_node_alloc (), array);
  json_array_unref (array);
  return node;
}

static gboolean
count_value (JsonNode    *value,
             const char  *where,
             gint64      *out,
             GError     **error)
{
  if (JSON_NODE_HOLDS_OBJECT (value))
    *out = json_object_get_size (json_node_get_object (value));
  else if (JSON_NODE_HOLDS_ARRAY (value))
    *out = json_array_get_length (json_node_get_array (value));
  else
    {
      g_set_error (error, ANOT_ERROR, ANOT_ERROR_INVALID_ARGUMENT,
                   "%s is %s; count() counts the members of an object or the "
                   "elements of an array", where[0] ? where : "the root",
                   _anot_json_type_name (value));
      return FALSE;
    }
  return TRUE;
}

/* count */

#define ANOT_TYPE_COUNT_TOOL (anot_count_tool_get_type ())
G_DECLARE_FINAL_TYPE (AnotCountTool, anot_count_tool, ANOT, COUNT_TOOL, AnotDataTool)

struct _AnotCountTool
{
  AnotDataTool parent_instance;
};

G_DEFINE_FINAL_TYPE (AnotCountTool, anot_count_tool, ANOT_TYPE_DATA_TOOL)

static JsonNode *
anot_count_tool_run (AnotDataTool  *self,
                     AnotDataPath  *path,
                     JsonNode      *data,
                     GError       **error)
{
  g_autoptr(GArray) matches = _anot_data_path_resolve_borrowed (path, data, error);
  JsonObject *counts;
  gint64 n;

  if (matches == NULL)
    return NULL;

  if (!anot_data_path_has_wildcard (path))
    {
      if (!count_value (_anot_data_path_matches_get_node (matches, 0),
                        anot_data_path_get_text (path), &n, error))
        return NULL;
      return json_node_init_int (json_node_alloc (), n);
    }

  counts = json_object_new ();
  for (guint i = 0; i < _anot_data_path_matches_get_length (matches); i++)
    {
      JsonNode *value = _anot_data_path_matches_get_node (matches, i);

      /* Below a wildcard, values that are not containers are skipped like
       * values that lack the path. */
      if (JSON_NODE_HOLDS_OBJECT (value) || JSON_NODE_HOLDS_ARRAY (value))
        {
          count_value (value, "", &n, NULL);
          json_object_set_int_member (counts, _anot_data_path_matches_get_path (matches, i), n);
        }
    }
  if (json_object_get_size (counts) == 0)
    {
      json_object_unref (counts);
      g_set_error (error, ANOT_ERROR, ANOT_ERROR_INVALID_ARGUMENT,
                   "%s matches no object or array; count() counts the members "
                   "of objects and the elements of arrays",
                   anot_data_path_get_text (path));
      return NULL;
    }
  return new_object_node (counts);
}

static void
anot_count_tool_class_init (AnotCountToolClass *klass)
{
  ANOT_DATA_TOOL_CLASS (klass)->run = anot_count_tool_run;
}

static void
anot_count_tool_init (AnotCountTool *self)
{
}

/* keys */

#define ANOT_TYPE_KEYS_TOOL (anot_keys_tool_get_type ())
G_DECLARE_FINAL_TYPE (AnotKeysTool, anot_keys_tool, ANOT, KEYS_TOOL, AnotDataTool)

struct _AnotKeysTool
{
  AnotDataTool parent_instance;
};

G_DEFINE_FINAL_TYPE (AnotKeysTool, anot_keys_tool, ANOT_TYPE_DATA_TOOL)

static JsonNode *
anot_keys_tool_run (AnotDataTool  *self,
                    AnotDataPath  *path,
                    JsonNode      *data,
                    GError       **error)
{
  g_autoptr(GArray) matches = NULL;
  JsonNode *value;

  if (anot_data_path_has_wildcard (path))
    {
      g_set_error (error, ANOT_ERROR, ANOT_ERROR_INVALID_ARGUMENT,
                   "keys() takes a path to one value; use union_keys(\"%s\") "
                   "for the keys of every match of *", anot_data_path_get_text (path));
      return NULL;
    }

  matches = _anot_data_path_resolve_borrowed (path, data, error);
  if (matches == NULL)
    return NULL;

  value = _anot_data_path_matches_get_node (matches, 0);
  if (JSON_NODE_HOLDS_OBJECT (value))
    return sorted_keys (json_node_get_object (value));

  if (JSON_NODE_HOLDS_ARRAY (value))
    {
      guint length = json_array_get_length (json_node_get_array (value));
      JsonArray *array = json_array_new ();
      JsonNode *node;

      /* What the original answered: an array has indices, not keys. */
      if (length > 0)
        {
          char *text = g_strdup_printf ("... %u items", length);

          json_array_add_string_element (array, "[0]");
          json_array_add_string_element (array, text);
          g_free (text);
        }
      node = json_node_init_array (json_node_alloc (), array);
      json_array_unref (array);
      return node;
    }

  g_set_error (error, ANOT_ERROR, ANOT_ERROR_INVALID_ARGUMENT,
               "%s is %s, which has no keys; use sample() to see it",
               anot_data_path_get_text (path)[0] ? anot_data_path_get_text (path) : "the root",
               _anot_json_type_name (value));
  return NULL;
}

static void
anot_keys_tool_class_init (AnotKeysToolClass *klass)
{
  ANOT_DATA_TOOL_CLASS (klass)->run = anot_keys_tool_run;
}

static void
anot_keys_tool_init (AnotKeysTool *self)
{
}

/* union_keys */

#define ANOT_TYPE_UNION_KEYS_TOOL (anot_union_keys_tool_get_type ())
G_DECLARE_FINAL_TYPE (AnotUnionKeysTool, anot_union_keys_tool, ANOT, UNION_KEYS_TOOL, AnotDataTool)

struct _AnotUnionKeysTool
{
  AnotDataTool parent_instance;
};

G_DEFINE_FINAL_TYPE (AnotUnionKeysTool, anot_union_keys_tool, ANOT_TYPE_DATA_TOOL)

static JsonNode *
anot_union_keys_tool_run (AnotDataTool  *self,
                          AnotDataPath  *path,
                          JsonNode      *data,
                          GError       **error)
{
  g_autoptr(GArray) matches = NULL;
  g_autoptr(GHashTable) seen = NULL;
  g_autoptr(GList) keys = NULL;
  JsonArray *array;
  JsonNode *node;
  guint n_objects = 0;

  if (!anot_data_path_has_wildcard (path))
    {
      g_set_error (error, ANOT_ERROR, ANOT_ERROR_INVALID_ARGUMENT,
                   "union_keys requires [*] in the path, e.g. "
                   "\"items[*].attributes\"; use keys(\"%s\") for one value",
                   anot_data_path_get_text (path));
      return NULL;
    }

  matches = _anot_data_path_resolve_borrowed (path, data, error);
  if (matches == NULL)
    return NULL;

  seen = g_hash_table_new (g_str_hash, g_str_equal);
  for (guint i = 0; i < _anot_data_path_matches_get_length (matches); i++)
    {
      JsonNode *value = _anot_data_path_matches_get_node (matches, i);
      g_autoptr(GList) members = NULL;

      if (!JSON_NODE_HOLDS_OBJECT (value))
        continue;
      n_objects++;
      members = json_object_get_members (json_node_get_object (value));
      for (GList *l = members; l != NULL; l = l->next)
        g_hash_table_add (seen, l->data);
    }

  if (n_objects == 0)
    {
      g_set_error (error, ANOT_ERROR, ANOT_ERROR_INVALID_ARGUMENT,
                   "%s matches %s, not objects; union_keys needs objects",
                   anot_data_path_get_text (path),
                   _anot_json_type_name (_anot_data_path_matches_get_node (matches, 0)));
      return NULL;
    }

  keys = g_hash_table_get_keys (seen);
  keys = g_list_sort (keys, (GCompareFunc) strcmp);
  array = json_array_new ();
  for (GList *l = keys; l != NULL; l = l->next)
    json_array_add_string_element (array, l->data);
  node = json_node_init_array (json_node_alloc (), array);
  json_array_unref (array);
  return node;
}

static void
anot_union_keys_tool_class_init (AnotUnionKeysToolClass *klass)
{
  ANOT_DATA_TOOL_CLASS (klass)->run = anot_union_keys_tool_run;
}

static void
anot_union_keys_tool_init (AnotUnionKeysTool *self)
{
}

/* sample */

#define ANOT_TYPE_SAMPLE_TOOL (anot_sample_tool_get_type ())
G_DECLARE_FINAL_TYPE (AnotSampleTool, anot_sample_tool, ANOT, SAMPLE_TOOL, AnotDataTool)

struct _AnotSampleTool
{
  AnotDataTool parent_instance;
};

G_DEFINE_FINAL_TYPE (AnotSampleTool, anot_sample_tool, ANOT_TYPE_DATA_TOOL)

static JsonNode *
anot_sample_tool_run (AnotDataTool  *self,
                      AnotDataPath  *path,
                      JsonNode      *data,
                      GError       **error)
{
  AnotDataToolPrivate *priv = anot_data_tool_get_instance_private (self);
  g_autoptr(GArray) matches = _anot_data_path_resolve_borrowed (path, data, error);
  JsonObject *samples;
  guint n;

  if (matches == NULL)
    return NULL;

  if (!anot_data_path_has_wildcard (path))
    return anot_data_tool_truncate_value (self, _anot_data_path_matches_get_node (matches, 0));

  samples = json_object_new ();
  n = _anot_data_path_matches_get_length (matches);
  for (guint i = 0; i < n && i < priv->max_samples; i++)
    json_object_set_member (samples, _anot_data_path_matches_get_path (matches, i),
                            anot_data_tool_truncate_value (self,
                                                           _anot_data_path_matches_get_node (matches, i)));
  if (n > priv->max_samples)
    {
      g_autofree char *more = g_strdup_printf ("%u more matches", n - priv->max_samples);

      json_object_set_string_member (samples, "...", more);
    }
  return new_object_node (samples);
}

static void
anot_sample_tool_class_init (AnotSampleToolClass *klass)
{
  ANOT_DATA_TOOL_CLASS (klass)->run = anot_sample_tool_run;
}

static void
anot_sample_tool_init (AnotSampleTool *self)
{
}

/* ------------------------------------------------------------------------ *
 * Registration
 * ------------------------------------------------------------------------ */

static const ToolInfo builtin_tools[] = {
  { "count",
    "Number of members of an object or elements of an array at a path, e.g. count(\"items\")",
    "Path to an object or array, e.g. \"items\" or \"items[1].reviews\"" },
  { "keys",
    "Sorted keys of the object at a path, e.g. keys(\"items[1]\")",
    "Path to one object, e.g. \"items[1]\" or \"items[1].attributes\"" },
  { "union_keys",
    "Sorted union of the keys of every object a path with [*] matches, "
    "e.g. union_keys(\"items[*].attributes\")",
    "Path with [*], e.g. \"items[*].attributes\"" },
  { "sample",
    "The value at a path, truncated, e.g. sample(\"items[1].name\")",
    "Path to a value, e.g. \"items[1].attributes.WiFi\" or \"items[*].name\"" },
};

static GType
builtin_type (guint position)
{
  switch (position)
    {
    case 0: return ANOT_TYPE_COUNT_TOOL;
    case 1: return ANOT_TYPE_KEYS_TOOL;
    case 2: return ANOT_TYPE_UNION_KEYS_TOOL;
    case 3: return ANOT_TYPE_SAMPLE_TOOL;
    default: g_assert_not_reached ();
    }
}

static const ToolInfo *
tool_info (AnotDataTool *self)
{
  GType type = G_OBJECT_TYPE (self);

  for (guint i = 0; i < G_N_ELEMENTS (builtin_tools); i++)
    if (type == builtin_type (i))
      return &builtin_tools[i];

  /* A subclass from elsewhere: its type name is the best name we have. */
  {
    static const ToolInfo unknown = { "data_tool", "A data-exploration tool", "A path" };

    return &unknown;
  }
}

/**
 * anot_data_tool_new:
 * @name: a built-in tool's name: `count`, `keys`, `union_keys` or `sample`
 * @data: (nullable): the document the tool reads
 *
 * Creates one of the built-in data-exploration tools without going
 * through the registry.
 *
 * Returns: (transfer full) (nullable): the tool, or %NULL if @name is not
 *   a built-in tool
 */
AnotDataTool *
anot_data_tool_new (const char *name,
                    JsonNode   *data)
{
  g_return_val_if_fail (name != NULL, NULL);

  for (guint i = 0; i < G_N_ELEMENTS (builtin_tools); i++)
    if (strcmp (name, builtin_tools[i].name) == 0)
      return g_object_new (builtin_type (i), "data", data, NULL);

  return NULL;
}

/**
 * anot_data_tool_list_builtin:
 *
 * Returns: (transfer full) (array zero-terminated=1): the names of the
 *   built-in data-exploration tools, in the order a model is told about
 *   them
 */
char **
anot_data_tool_list_builtin (void)
{
  char **names = g_new0 (char *, G_N_ELEMENTS (builtin_tools) + 1);

  for (guint i = 0; i < G_N_ELEMENTS (builtin_tools); i++)
    names[i] = g_strdup (builtin_tools[i].name);
  return names;
}

/**
 * anot_data_tool_register_builtin:
 *
 * Registers the built-in data-exploration tools with the `anot-tool`
 * extension point, so [method@Anot.Registry.create_tool] and
 * `anot-run --list` know them.  The default registry does this when it is
 * created; calling it again changes nothing.
 */
void
anot_data_tool_register_builtin (void)
{
  for (guint i = 0; i < G_N_ELEMENTS (builtin_tools); i++)
    anot_plugin_implement (ANOT_TOOL_EXTENSION_POINT_NAME, builtin_type (i),
                           builtin_tools[i].name, builtin_tools[i].description);
}
