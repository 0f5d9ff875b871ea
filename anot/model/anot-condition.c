/* anot-condition.c
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "anot-condition.h"

#include <string.h>

#include "anot-dataset-private.h"
#include "anot-enum-types.h"
#include "anot-error.h"

/**
 * AnotCondition:
 *
 * A node of a request's `structure`: either a group (`AND`, `OR`, `NOT`
 * over child conditions) or a leaf (an `aspect` name and an `evidence`
 * object whose `kind` says how the validator decides it).
 *
 * The grammar, as in the benchmark's `requests.jsonl`:
 *
 * ```
 * node     := group | leaf
 * group    := { "op": "AND" | "OR" | "NOT", "args": [ node, ... ] }
 * leaf     := { "aspect": STRING, "evidence": { "kind": KIND, ... } }
 * ```
 *
 * An object is a group if and only if it has an `"op"` member.  A leaf's
 * evidence without `"kind"` is `item_meta`.  The evidence object is kept as
 * given; the validator interprets its kind-specific fields.  Conditions are
 * immutable.
 */
struct _AnotCondition
{
  GObject parent_instance;

  JsonObject       *object;     /* the node as given, sealed */
  AnotConditionOp   op;
  GPtrArray        *children;   /* groups only */
  char             *aspect;     /* leaves only */
  AnotEvidenceKind  kind;
  JsonObject       *evidence;   /* leaves only; owned by @object */
};

G_DEFINE_FINAL_TYPE (AnotCondition, anot_condition, G_TYPE_OBJECT)

enum {
  PROP_0,
  PROP_OP,
  PROP_ASPECT,
  PROP_EVIDENCE_KIND,
  PROP_EVIDENCE,
  PROP_N_CHILDREN,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

static const struct {
  const char       *name;
  AnotEvidenceKind  kind;
} evidence_kinds[] = {
  { "item_meta", ANOT_EVIDENCE_ITEM_META },
  { "item_meta_hours", ANOT_EVIDENCE_ITEM_META_HOURS },
  { "review_text", ANOT_EVIDENCE_REVIEW_TEXT },
  { "review_sentiment", ANOT_EVIDENCE_REVIEW_SENTIMENT },
  { "social_rating", ANOT_EVIDENCE_SOCIAL_RATING },
  { "review_group_rating", ANOT_EVIDENCE_REVIEW_GROUP_RATING },
  { "review_group_rating_negative", ANOT_EVIDENCE_REVIEW_GROUP_RATING_NEGATIVE },
};

static void
anot_condition_finalize (GObject *object)
{
  AnotCondition *self = ANOT_CONDITION (object);

  g_clear_pointer (&self->object, json_object_unref);
  g_clear_pointer (&self->children, g_ptr_array_unref);
  g_clear_pointer (&self->aspect, g_free);
  g_clear_pointer (&self->evidence, json_object_unref);

  G_OBJECT_CLASS (anot_condition_parent_class)->finalize (object);
}

static void
anot_condition_get_property (GObject    *object,
                             guint       prop_id,
                             GValue     *value,
                             GParamSpec *pspec)
{
  AnotCondition *self = ANOT_CONDITION (object);

  switch (prop_id)
    {
    case PROP_OP:
      g_value_set_enum (value, self->op);
      break;
    case PROP_ASPECT:
      g_value_set_string (value, self->aspect);
      break;
    case PROP_EVIDENCE_KIND:
      g_value_set_enum (value, self->kind);
      break;
    case PROP_EVIDENCE:
      g_value_set_boxed (value, self->evidence);
      break;
    case PROP_N_CHILDREN:
      g_value_set_uint (value, anot_condition_get_n_children (self));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
anot_condition_class_init (AnotConditionClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  const GParamFlags flags = G_PARAM_READABLE | G_PARAM_STATIC_STRINGS;

  object_class->finalize = anot_condition_finalize;
  object_class->get_property = anot_condition_get_property;

  /**
   * AnotCondition:op:
   *
   * The operator of a group, or %ANOT_CONDITION_OP_LEAF for a leaf.
   */
  properties[PROP_OP] = g_param_spec_enum ("op", NULL, NULL,
                                           ANOT_TYPE_CONDITION_OP,
                                           ANOT_CONDITION_OP_LEAF, flags);
  /**
   * AnotCondition:aspect:
   *
   * The aspect name of a leaf (a label, unique within a request), or %NULL
   * for a group.
   */
  properties[PROP_ASPECT] = g_param_spec_string ("aspect", NULL, NULL, NULL, flags);
  /**
   * AnotCondition:evidence-kind:
   *
   * The evidence kind of a leaf, or %ANOT_EVIDENCE_NONE for a group.
   */
  properties[PROP_EVIDENCE_KIND] = g_param_spec_enum ("evidence-kind", NULL, NULL,
                                                      ANOT_TYPE_EVIDENCE_KIND,
                                                      ANOT_EVIDENCE_NONE, flags);
  /**
   * AnotCondition:evidence:
   *
   * The evidence object of a leaf, or %NULL for a group.
   */
  properties[PROP_EVIDENCE] = g_param_spec_boxed ("evidence", NULL, NULL,
                                                  JSON_TYPE_OBJECT, flags);
  /**
   * AnotCondition:n-children:
   *
   * The number of children of a group (0 for a leaf).
   */
  properties[PROP_N_CHILDREN] = g_param_spec_uint ("n-children", NULL, NULL,
                                                   0, G_MAXUINT, 0, flags);

  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
anot_condition_init (AnotCondition *self)
{
}

gboolean
_anot_evidence_kind_from_string (const char       *str,
                                 AnotEvidenceKind *out_kind)
{
  g_return_val_if_fail (str != NULL, FALSE);

  for (guint i = 0; i < G_N_ELEMENTS (evidence_kinds); i++)
    {
      if (strcmp (str, evidence_kinds[i].name) == 0)
        {
          if (out_kind != NULL)
            *out_kind = evidence_kinds[i].kind;
          return TRUE;
        }
    }

  return FALSE;
}

/**
 * anot_evidence_kind_to_string:
 * @kind: an evidence kind
 *
 * Gets the name of an evidence kind as written in `requests.jsonl`, e.g.
 * `"review_text"` for %ANOT_EVIDENCE_REVIEW_TEXT.
 *
 * Returns: (transfer none) (nullable): the name, or %NULL for
 *   %ANOT_EVIDENCE_NONE and unknown values
 */
const char *
anot_evidence_kind_to_string (AnotEvidenceKind kind)
{
  for (guint i = 0; i < G_N_ELEMENTS (evidence_kinds); i++)
    {
      if (evidence_kinds[i].kind == kind)
        return evidence_kinds[i].name;
    }

  return NULL;
}

/* Sets `field “<path>.<member>”: <message>`; without any field name the
 * message stands alone. */
G_GNUC_PRINTF (5, 6)
static void
set_field_error (GError     **error,
                 AnotError    code,
                 GString     *path,
                 const char  *member,
                 const char  *format,
                 ...)
{
  g_autofree char *message = NULL;
  va_list args;

  va_start (args, format);
  message = g_strdup_vprintf (format, args);
  va_end (args);

  if (path->len == 0 && member == NULL)
    g_set_error_literal (error, ANOT_ERROR, code, message);
  else
    g_set_error (error, ANOT_ERROR, code, "field “%s%s%s”: %s",
                 path->str,
                 path->len > 0 && member != NULL ? "." : "",
                 member != NULL ? member : "",
                 message);
}

static const char *
get_string_member (JsonObject  *obj,
                   const char  *member,
                   gboolean     required,
                   GString     *path,
                   GError     **error)
{
  JsonNode *node = json_object_get_member (obj, member);

  if (node == NULL)
    {
      if (required)
        set_field_error (error, ANOT_ERROR_MISSING_FIELD, path, member, "missing");
      return NULL;
    }

  if (!JSON_NODE_HOLDS_VALUE (node) || json_node_get_value_type (node) != G_TYPE_STRING)
    {
      set_field_error (error, ANOT_ERROR_INVALID_FIELD, path, member, "expected a string");
      return NULL;
    }

  return json_node_get_string (node);
}

/* @member of @obj, when present and not null, is a number (the rules
 * read a string such as "2" as absent and use the default: a `hops` of
 * "2" would silently be one hop; the reference raised). */
static gboolean
check_number_member (JsonObject  *obj,
                     const char  *member,
                     const char  *shown,
                     GString     *path,
                     GError     **error)
{
  JsonNode *node = obj != NULL ? json_object_get_member (obj, member) : NULL;
  GType type;

  if (node == NULL || JSON_NODE_HOLDS_NULL (node))
    return TRUE;
  type = JSON_NODE_HOLDS_VALUE (node) ? json_node_get_value_type (node) : G_TYPE_INVALID;
  if (type == G_TYPE_INT64 || type == G_TYPE_DOUBLE || type == G_TYPE_BOOLEAN)
    return TRUE;
  set_field_error (error, ANOT_ERROR_INVALID_FIELD, path, shown, "expected a number");
  return FALSE;
}

/* @member of @obj, when present and not null, is one of @choices: the
 * rules give any other value a meaning of their own (a `sentiment` of
 * "postive" gets the negative rule, a `metric` of "avg" makes the leaf
 * false everywhere), so a typo would change the gold silently. */
static gboolean
check_choice_member (JsonObject         *obj,
                     const char         *member,
                     const char         *shown,
                     const char * const *choices,
                     GString            *path,
                     GError            **error)
{
  JsonNode *node = obj != NULL ? json_object_get_member (obj, member) : NULL;
  g_autofree char *expected = NULL;

  if (node == NULL || JSON_NODE_HOLDS_NULL (node))
    return TRUE;
  if (JSON_NODE_HOLDS_VALUE (node) && json_node_get_value_type (node) == G_TYPE_STRING &&
      g_strv_contains (choices, json_node_get_string (node)))
    return TRUE;
  expected = g_strjoinv ("”, “", (char **) choices);
  if (JSON_NODE_HOLDS_VALUE (node) && json_node_get_value_type (node) == G_TYPE_STRING)
    set_field_error (error, ANOT_ERROR_INVALID_FIELD, path, shown,
                     "unknown value “%s” (expected “%s”)", json_node_get_string (node), expected);
  else
    set_field_error (error, ANOT_ERROR_INVALID_FIELD, path, shown, "expected one of “%s”", expected);
  return FALSE;
}

static JsonObject *
object_member_or_null (JsonObject *obj,
                       const char *member)
{
  JsonNode *node = obj != NULL ? json_object_get_member (obj, member) : NULL;

  return node != NULL && JSON_NODE_HOLDS_OBJECT (node) ? json_node_get_object (node) : NULL;
}

/* The parameters of the review kinds the rules read as numbers or as one
 * of a few words. */
static gboolean
check_parameters (JsonObject        *evidence,
                  AnotEvidenceKind   kind,
                  GString           *path,
                  GError           **error)
{
  static const char * const sentiments[] = { "positive", "negative", NULL };
  static const char * const metrics[] = { "count", "avg_stars", NULL };
  static const char * const operators[] = { "gte", "gt", "lt", "lte", NULL };
  JsonObject *social = object_member_or_null (evidence, "social_filter");
  JsonObject *filter = object_member_or_null (evidence, "group_filter");
  JsonObject *condition = object_member_or_null (evidence, "condition");

  if (!check_number_member (social, "hops", "social_filter.hops", path, error) ||
      !check_number_member (social, "min_matches", "social_filter.min_matches", path, error))
    return FALSE;
  switch (kind)
    {
    case ANOT_EVIDENCE_REVIEW_SENTIMENT:
      return check_choice_member (evidence, "sentiment", "sentiment", sentiments, path, error) &&
             check_number_member (evidence, "min_positive", "min_positive", path, error) &&
             check_number_member (evidence, "min_negative", "min_negative", path, error);
    case ANOT_EVIDENCE_SOCIAL_RATING:
      return check_number_member (evidence, "min_stars", "min_stars", path, error);
    case ANOT_EVIDENCE_REVIEW_GROUP_RATING:
      return check_choice_member (evidence, "metric", "metric", metrics, path, error) &&
             check_choice_member (evidence, "operator", "operator", operators, path, error) &&
             check_number_member (evidence, "threshold", "threshold", path, error) &&
             check_choice_member (filter, "operator", "group_filter.operator", operators, path, error);
    case ANOT_EVIDENCE_REVIEW_GROUP_RATING_NEGATIVE:
      return check_number_member (condition, "generous_avg_gte", "condition.generous_avg_gte",
                                  path, error) &&
             check_number_member (condition, "harsh_avg_lt", "condition.harsh_avg_lt", path, error);
    default:
      return TRUE;
    }
}

/* The checks the validator relies on without re-checking: the path of the
 * attribute kinds and the required range of an hours test.  Other kinds are
 * interpreted leniently by the validator (missing parameters have
 * defaults), so only their kind is checked here. */
static gboolean
check_evidence (JsonObject        *evidence,
                AnotEvidenceKind   kind,
                GString           *path,
                GError           **error)
{
  JsonNode *node;
  JsonArray *array;
  guint len;

  /* The parameter a review leaf cannot do without: without it the leaf
   * is false for every item, which looks like a gold that matches nothing. */
  if (kind == ANOT_EVIDENCE_REVIEW_TEXT || kind == ANOT_EVIDENCE_REVIEW_SENTIMENT)
    {
      const char *name = kind == ANOT_EVIDENCE_REVIEW_TEXT ? "pattern" : "topic";

      /* An empty one is allowed: the rules define it (false everywhere). */
      if (get_string_member (evidence, name, TRUE, path, error) == NULL)
        return FALSE;
    }

  node = json_object_get_member (evidence, "social_filter");
  if (node != NULL && !JSON_NODE_HOLDS_NULL (node))
    {
      JsonNode *friends;

      if (!JSON_NODE_HOLDS_OBJECT (node))
        {
          set_field_error (error, ANOT_ERROR_INVALID_FIELD, path, "social_filter",
                           "expected an object");
          return FALSE;
        }
      friends = json_object_get_member (json_node_get_object (node), "friends");
      if (friends != NULL && !JSON_NODE_HOLDS_NULL (friends))
        {
          gboolean ok = JSON_NODE_HOLDS_ARRAY (friends);

          for (guint i = 0; ok && i < json_array_get_length (json_node_get_array (friends)); i++)
            {
              JsonNode *e = json_array_get_element (json_node_get_array (friends), i);

              ok = JSON_NODE_HOLDS_VALUE (e) && json_node_get_value_type (e) == G_TYPE_STRING;
            }
          if (!ok)
            {
              set_field_error (error, ANOT_ERROR_INVALID_FIELD, path, "social_filter.friends",
                               "expected an array of names");
              return FALSE;
            }
        }
    }

  if (!check_parameters (evidence, kind, path, error))
    return FALSE;

  if (kind != ANOT_EVIDENCE_ITEM_META && kind != ANOT_EVIDENCE_ITEM_META_HOURS)
    return TRUE;

  node = json_object_get_member (evidence, "path");
  if (node == NULL)
    {
      set_field_error (error, ANOT_ERROR_MISSING_FIELD, path, "path", "missing");
      return FALSE;
    }
  if (!JSON_NODE_HOLDS_ARRAY (node))
    {
      set_field_error (error, ANOT_ERROR_INVALID_FIELD, path, "path",
                       "expected an array of strings");
      return FALSE;
    }

  array = json_node_get_array (node);
  len = json_array_get_length (array);
  for (guint i = 0; i < len; i++)
    {
      JsonNode *element = json_array_get_element (array, i);

      if (!JSON_NODE_HOLDS_VALUE (element) ||
          json_node_get_value_type (element) != G_TYPE_STRING)
        {
          g_autofree char *member = g_strdup_printf ("path[%u]", i);

          set_field_error (error, ANOT_ERROR_INVALID_FIELD, path, member,
                           "expected a string");
          return FALSE;
        }
    }

  if (kind == ANOT_EVIDENCE_ITEM_META_HOURS)
    {
      if (len != 2 || strcmp (json_array_get_string_element (array, 0), "hours") != 0)
        {
          set_field_error (error, ANOT_ERROR_INVALID_FIELD, path, "path",
                           "expected [\"hours\", day] for kind “item_meta_hours”");
          return FALSE;
        }

      {
        const char *day = json_array_get_string_element (array, 1);
        const char *range = get_string_member (evidence, "true", TRUE, path, error);

        if (range == NULL)
          return FALSE;
        if (!_anot_day_name_is_valid (day))
          {
            set_field_error (error, ANOT_ERROR_INVALID_FIELD, path, "path[1]",
                             "unknown day “%s” (expected Monday, Tuesday, …, Sunday)", day);
            return FALSE;
          }
        if (!_anot_hours_range_is_valid (range))
          {
            set_field_error (error, ANOT_ERROR_INVALID_FIELD, path, "true",
                             "“%s” is not a range \"H:M-H:M\" in 24-hour time", range);
            return FALSE;
          }
      }
    }

  return TRUE;
}

static AnotCondition *
condition_new_from_node (JsonNode  *node,
                         GString   *path,
                         gboolean   is_root,
                         GError   **error)
{
  g_autoptr(AnotCondition) self = NULL;
  JsonObject *obj;
  JsonNode *member;
  const char *str;

  if (!JSON_NODE_HOLDS_OBJECT (node))
    {
      set_field_error (error, ANOT_ERROR_INVALID_FIELD, path, NULL, "expected an object");
      return NULL;
    }

  obj = json_node_get_object (node);
  self = g_object_new (ANOT_TYPE_CONDITION, NULL);
  self->object = json_object_ref (obj);

  /* The reference evaluates a root without "op" as an AND of its "args". */
  if (json_object_has_member (obj, "op") ||
      (is_root && json_object_has_member (obj, "args")))
    {
      gsize path_len = path->len;
      JsonArray *args;
      guint n_args;

      self->kind = ANOT_EVIDENCE_NONE;
      self->children = g_ptr_array_new_with_free_func (g_object_unref);

      if (json_object_has_member (obj, "op"))
        {
          str = get_string_member (obj, "op", TRUE, path, error);
          if (str == NULL)
            return NULL;
          if (strcmp (str, "AND") == 0)
            self->op = ANOT_CONDITION_OP_AND;
          else if (strcmp (str, "OR") == 0)
            self->op = ANOT_CONDITION_OP_OR;
          else if (strcmp (str, "NOT") == 0)
            self->op = ANOT_CONDITION_OP_NOT;
          else
            {
              set_field_error (error, ANOT_ERROR_INVALID_FIELD, path, "op",
                               "unknown op “%s”", str);
              return NULL;
            }
        }
      else
        self->op = ANOT_CONDITION_OP_AND;

      /* Absent args is an empty group, which evaluates to unknown. */
      member = json_object_get_member (obj, "args");
      if (member == NULL)
        return g_steal_pointer (&self);
      if (!JSON_NODE_HOLDS_ARRAY (member))
        {
          set_field_error (error, ANOT_ERROR_INVALID_FIELD, path, "args",
                           "expected an array");
          return NULL;
        }

      args = json_node_get_array (member);
      n_args = json_array_get_length (args);
      for (guint i = 0; i < n_args; i++)
        {
          AnotCondition *child;

          g_string_append_printf (path, "%sargs[%u]", path_len > 0 ? "." : "", i);
          child = condition_new_from_node (json_array_get_element (args, i),
                                           path, FALSE, error);
          g_string_truncate (path, path_len);
          if (child == NULL)
            return NULL;
          g_ptr_array_add (self->children, child);
        }

      return g_steal_pointer (&self);
    }

  self->op = ANOT_CONDITION_OP_LEAF;

  str = get_string_member (obj, "aspect", TRUE, path, error);
  if (str == NULL)
    return NULL;
  self->aspect = g_strdup (str);

  member = json_object_get_member (obj, "evidence");
  if (member == NULL)
    {
      set_field_error (error, ANOT_ERROR_MISSING_FIELD, path, "evidence", "missing");
      return NULL;
    }
  if (!JSON_NODE_HOLDS_OBJECT (member))
    {
      set_field_error (error, ANOT_ERROR_INVALID_FIELD, path, "evidence",
                       "expected an object");
      return NULL;
    }
  self->evidence = json_object_ref (json_node_get_object (member));

  {
    gsize path_len = path->len;
    gboolean ok;

    g_string_append (path, path_len > 0 ? ".evidence" : "evidence");

    if (json_object_has_member (self->evidence, "kind"))
      {
        str = get_string_member (self->evidence, "kind", TRUE, path, error);
        if (str == NULL)
          ok = FALSE;
        else if (!_anot_evidence_kind_from_string (str, &self->kind))
          {
            set_field_error (error, ANOT_ERROR_INVALID_FIELD, path, "kind",
                             "unknown evidence kind “%s”", str);
            ok = FALSE;
          }
        else
          ok = TRUE;
      }
    else
      {
        self->kind = ANOT_EVIDENCE_ITEM_META;
        ok = TRUE;
      }

    if (ok)
      ok = check_evidence (self->evidence, self->kind, path, error);

    g_string_truncate (path, path_len);
    if (!ok)
      return NULL;
  }

  return g_steal_pointer (&self);
}

AnotCondition *
_anot_condition_new_from_json_at (JsonNode    *node,
                                  const char  *field_prefix,
                                  GError     **error)
{
  g_autoptr(GString) path = g_string_new (field_prefix);
  g_autoptr(JsonNode) sealed = NULL;

  g_return_val_if_fail (node != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  /* Conditions are immutable and share the JSON they were built from, so
   * a caller's mutable tree is copied first. */
  if (!json_node_is_immutable (node))
    {
      g_autofree char *text = json_to_string (node, FALSE);

      sealed = json_from_string (text, NULL);
      g_assert (sealed != NULL);
      json_node_seal (sealed);
      node = sealed;
    }

  return condition_new_from_node (node, path, TRUE, error);
}

/**
 * anot_condition_new_from_json:
 * @node: a JSON object node in the structure grammar
 * @error: return location for a #GError
 *
 * Builds a condition tree from its JSON form, as found in the `structure`
 * field of `requests.jsonl`.
 *
 * Fails with %ANOT_ERROR_MISSING_FIELD or %ANOT_ERROR_INVALID_FIELD when
 * the tree does not follow the grammar: an unknown `op` (only `AND`, `OR`
 * and `NOT` exist), an unknown evidence `kind`, a leaf without `aspect` or
 * `evidence`, an `item_meta` leaf without a `path` of strings, an
 * `item_meta_hours` leaf without `path` `["hours", day]` and a `true`
 * range.  The message names the offending field, e.g.
 * `field “args[1].evidence.kind”: unknown evidence kind “foo”`.
 *
 * A root object that has `args` but no `op` is an `AND` group, as in the
 * reference validator.  A mutable @node is copied, so later changes to it
 * do not affect the condition.
 *
 * Returns: (transfer full): a new #AnotCondition, or %NULL on error
 */
AnotCondition *
anot_condition_new_from_json (JsonNode  *node,
                              GError   **error)
{
  g_return_val_if_fail (node != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  return _anot_condition_new_from_json_at (node, NULL, error);
}

/**
 * anot_condition_get_op:
 * @self: a #AnotCondition
 *
 * Gets the operator of a group, or %ANOT_CONDITION_OP_LEAF for a leaf.
 *
 * Returns: the operator
 */
AnotConditionOp
anot_condition_get_op (AnotCondition *self)
{
  g_return_val_if_fail (ANOT_IS_CONDITION (self), ANOT_CONDITION_OP_LEAF);

  return self->op;
}

/**
 * anot_condition_get_n_children:
 * @self: a #AnotCondition
 *
 * Gets the number of children of a group.
 *
 * Returns: the number of children, 0 for a leaf
 */
guint
anot_condition_get_n_children (AnotCondition *self)
{
  g_return_val_if_fail (ANOT_IS_CONDITION (self), 0);

  return self->children != NULL ? self->children->len : 0;
}

/**
 * anot_condition_get_child:
 * @self: a #AnotCondition
 * @position: a position, less than anot_condition_get_n_children()
 *
 * Gets one child of a group.
 *
 * Returns: (transfer none): the child
 */
AnotCondition *
anot_condition_get_child (AnotCondition *self,
                          guint          position)
{
  g_return_val_if_fail (ANOT_IS_CONDITION (self), NULL);
  g_return_val_if_fail (position < anot_condition_get_n_children (self), NULL);

  return g_ptr_array_index (self->children, position);
}

/**
 * anot_condition_get_aspect:
 * @self: a #AnotCondition
 *
 * Gets the aspect name of a leaf.  Aspect names are labels only, unique
 * within a request; they carry no meaning for evaluation.
 *
 * Returns: (transfer none) (nullable): the aspect, or %NULL for a group
 */
const char *
anot_condition_get_aspect (AnotCondition *self)
{
  g_return_val_if_fail (ANOT_IS_CONDITION (self), NULL);

  return self->aspect;
}

/**
 * anot_condition_get_evidence_kind:
 * @self: a #AnotCondition
 *
 * Gets the evidence kind of a leaf.
 *
 * Returns: the kind, %ANOT_EVIDENCE_NONE for a group
 */
AnotEvidenceKind
anot_condition_get_evidence_kind (AnotCondition *self)
{
  g_return_val_if_fail (ANOT_IS_CONDITION (self), ANOT_EVIDENCE_NONE);

  return self->kind;
}

/**
 * anot_condition_get_evidence:
 * @self: a #AnotCondition
 *
 * Gets the evidence object of a leaf as given (with its `kind` and the
 * kind-specific fields, e.g. `path` and `true` for `item_meta`).  The
 * object is immutable.
 *
 * Returns: (transfer none) (nullable): the evidence, or %NULL for a group
 */
JsonObject *
anot_condition_get_evidence (AnotCondition *self)
{
  g_return_val_if_fail (ANOT_IS_CONDITION (self), NULL);

  return self->evidence;
}

static void
collect_leaves (AnotCondition *self,
                GPtrArray     *leaves)
{
  if (self->op == ANOT_CONDITION_OP_LEAF)
    {
      g_ptr_array_add (leaves, self);
      return;
    }

  for (guint i = 0; i < self->children->len; i++)
    collect_leaves (g_ptr_array_index (self->children, i), leaves);
}

/**
 * anot_condition_collect_leaves:
 * @self: a #AnotCondition
 *
 * Collects the leaves of the tree in depth-first, left-to-right order
 * (@self itself if it is a leaf).
 *
 * Returns: (transfer container) (element-type Anot.Condition): the leaves
 */
GPtrArray *
anot_condition_collect_leaves (AnotCondition *self)
{
  GPtrArray *leaves;

  g_return_val_if_fail (ANOT_IS_CONDITION (self), NULL);

  leaves = g_ptr_array_new ();
  collect_leaves (self, leaves);

  return leaves;
}

/**
 * anot_condition_to_json:
 * @self: a #AnotCondition
 *
 * Gets the JSON form of the condition: the object it was built from,
 * unchanged (members the grammar does not use are kept).
 *
 * Returns: (transfer full): a new node holding the (immutable) object
 */
JsonNode *
anot_condition_to_json (AnotCondition *self)
{
  JsonNode *node;

  g_return_val_if_fail (ANOT_IS_CONDITION (self), NULL);

  node = json_node_new (JSON_NODE_OBJECT);
  json_node_set_object (node, self->object);

  return node;
}
