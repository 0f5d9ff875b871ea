/* anot-validator.c: three-valued evaluation of request structures
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * This is a port of the reference validator of the benchmark (see
 * evidence.md in the project notes), quirks included: the gold labels were
 * computed with it, so any "fix" would change which item is the answer.
 * Section numbers in the comments refer to that document.
 */
#include "config.h"

#include "anot-validator.h"

#include <math.h>
#include <string.h>

#include "anot-dataset-private.h"
#include "anot-json-private.h"
#include "anot-enum-types.h"
#include "anot-pyliteral-private.h"
#include "anot-validator-private.h"
#include "anot-verdict-private.h"

/**
 * AnotValidator:
 *
 * Evaluates request structures on items with the three-valued logic of the
 * benchmark: every leaf and every group is true (1), unknown (0) or false
 * (-1), and a request's gold item is the only item on which the whole
 * structure is true.
 *
 * The validator reproduces the reference implementation exactly, including
 * its quirks (attribute strings are normalised twice, `contains` tests run
 * before the missing-value rule, the required opening hours are not moved
 * across midnight, the two social membership tests differ in direction, ...):
 * the published gold labels depend on them.
 *
 * Evaluation is fast: an item's attributes are normalised once (the result
 * is attached to the item), and each condition is compiled once per
 * validator into a plan with its expected values, patterns, hour ranges and
 * social networks already parsed.  Items are treated as immutable once they
 * have been evaluated.
 *
 * A validator may be used from several threads at once; its caches are
 * protected by a lock.  Conditions must stay alive while they are being
 * evaluated, and the validator must not be finalized while a condition it
 * has compiled is being finalized on another thread.
 */

/* ------------------------------------------------------------------------ *
 * Compiled conditions
 * ------------------------------------------------------------------------ */

typedef enum {
  LEAF_UNKNOWN_KIND,
  LEAF_ITEM_META,
  LEAF_HOURS,
  LEAF_REVIEW_TEXT,
  LEAF_REVIEW_SENTIMENT,
  LEAF_SOCIAL_RATING,
  LEAF_GROUP_RATING,
  LEAF_GROUP_RATING_NEGATIVE,
} LeafKind;

/* An expected value of a matcher (true/false/neutral/not_true), as the
 * reference's match_value() treats it. */
typedef enum {
  EXPECT_NEVER,   /* None: matches nothing */
  EXPECT_BOOL,    /* a JSON boolean: Python == only */
  EXPECT_ANY_OF,  /* a JSON array: any element matches */
  EXPECT_VALUE,   /* anything else, after pass B */
} ExpectKind;

typedef struct _Expected Expected;
struct _Expected
{
  ExpectKind kind;
  AnotPyValue *value;
  GPtrArray *any_of;   /* Expected */
};

typedef struct
{
  AnotPyValue **keys;
  guint n_keys;
  gboolean valid;      /* FALSE: the path is not a list, the value is None */
} Path;

typedef struct
{
  gboolean present;    /* the filter is truthy */
  char **anchors;      /* the anchor names (strings of `friends`) */
  double hops;
  double min_matches;
  GHashTable *network; /* NET_FWD(anchors, hops), review_sentiment only */
} Social;

typedef enum {
  CMP_GTE,
  CMP_GT,
  CMP_LT,
  CMP_LTE,
  CMP_INVALID,
} Cmp;

typedef enum {
  FIELD_DATE,
  FIELD_STARS,
  FIELD_USER_AVERAGE_STARS,
  FIELD_GENERIC,
} FieldKind;

typedef struct _Node Node;
struct _Node
{
  AnotConditionOp op;
  Node **children;
  guint n_children;
  guint leaf_index;

  LeafKind kind;
  union {
    struct {
      Path path;
      char *not_contains;   /* lowercased; NULL if absent */
      char *contains;
      Expected *not_true;
      AnotTruth missing;
      Expected *when_true;
      Expected *when_false;
      Expected *when_neutral;
    } meta;
    struct {
      Path path;
      AnotTruth missing;
      gboolean required_ok;
      double required_start;
      double required_end;
    } hours;
    struct {
      char *pattern;        /* str(pattern): the judgement aspect */
      gboolean pattern_truthy;
      Social social;
      gboolean weighted;
      Path weight_field;
      gboolean weight_field_is_elite;
      double percentile;
      double min_credible;
    } text;
    struct {
      char *topic;
      gboolean topic_truthy;
      gboolean want_positive;
      double min_positive;
      double min_negative;
      Social social;
    } sentiment;
    struct {
      Social social;
      double min_stars;
    } social_rating;
    struct {
      gboolean filter_all;
      FieldKind field_kind;
      Path field;
      Cmp filter_cmp;
      AnotPyValue *filter_value;
      gboolean metric_count;
      gboolean metric_valid;
      gboolean threshold_ok;
      double threshold;
      Cmp cmp;
    } group;
    struct {
      gboolean generous_ok;
      double generous_avg_gte;
      gboolean harsh_ok;
      double harsh_avg_lt;
    } negative;
  } u;
};

typedef struct
{
  AnotCondition *condition;  /* weak */
  Node *root;
  guint n_leaves;
} Plan;

struct _AnotValidator
{
  GObject parent_instance;

  AnotDataset *dataset;

  GMutex lock;
  GHashTable *plans;  /* AnotCondition * (weak) -> Plan */
};

G_DEFINE_FINAL_TYPE (AnotValidator, anot_validator, G_TYPE_OBJECT)

enum {
  PROP_0,
  PROP_DATASET,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

/* ------------------------------------------------------------------------ *
 * JSON helpers with Python's dict.get() semantics
 * ------------------------------------------------------------------------ */

/* evidence.get(name) is not None */
static JsonNode *
get_present (JsonObject *obj,
             const char *name)
{
  JsonNode *node;

  if (obj == NULL)
    return NULL;
  node = json_object_get_member (obj, name);
  if (node == NULL || JSON_NODE_HOLDS_NULL (node))
    return NULL;
  return node;
}

static gboolean
node_is_string (JsonNode *node)
{
  return node != NULL && JSON_NODE_HOLDS_VALUE (node) &&
         json_node_get_value_type (node) == G_TYPE_STRING;
}

/* A JSON number or boolean (bool is an int in Python). */
static gboolean
node_get_number (JsonNode *node,
                 double   *out)
{
  GType type;

  if (node == NULL || !JSON_NODE_HOLDS_VALUE (node))
    return FALSE;
  type = json_node_get_value_type (node);
  if (type == G_TYPE_INT64)
    *out = (double) json_node_get_int (node);
  else if (type == G_TYPE_DOUBLE)
    *out = json_node_get_double (node);
  else if (type == G_TYPE_BOOLEAN)
    *out = json_node_get_boolean (node) ? 1.0 : 0.0;
  else
    return FALSE;
  return TRUE;
}

static double
get_number_default (JsonObject *obj,
                    const char *name,
                    double      fallback)
{
  double value;

  if (obj != NULL && json_object_has_member (obj, name) &&
      node_get_number (json_object_get_member (obj, name), &value))
    return value;
  return fallback;
}

static gboolean
node_truthy (JsonNode *node)
{
  g_autoptr(AnotPyValue) v = NULL;

  if (node == NULL)
    return FALSE;
  v = anot_py_value_new_from_json (node);
  return anot_py_value_truthy (v);
}

static JsonObject *
node_get_object_or_null (JsonNode *node)
{
  return node != NULL && JSON_NODE_HOLDS_OBJECT (node) ? json_node_get_object (node) : NULL;
}

/* The `missing` field is returned as the leaf's value.  The reference
 * crashes on anything but -1, 0 and 1; we read those as unknown. */
static AnotTruth
get_missing (JsonObject *evidence)
{
  double value;

  if (!json_object_has_member (evidence, "missing"))
    return ANOT_TRUTH_UNKNOWN;
  if (!node_get_number (json_object_get_member (evidence, "missing"), &value))
    return ANOT_TRUTH_UNKNOWN;
  if (value == 1.0)
    return ANOT_TRUTH_TRUE;
  if (value == -1.0)
    return ANOT_TRUTH_FALSE;
  return ANOT_TRUTH_UNKNOWN;
}

static Cmp
cmp_from_node (JsonNode   *node,
               const char *fallback)
{
  const char *str;

  if (node == NULL)
    str = fallback;
  else if (node_is_string (node))
    str = json_node_get_string (node);
  else
    return CMP_INVALID;

  if (g_strcmp0 (str, "gte") == 0)
    return CMP_GTE;
  if (g_strcmp0 (str, "gt") == 0)
    return CMP_GT;
  if (g_strcmp0 (str, "lt") == 0)
    return CMP_LT;
  if (g_strcmp0 (str, "lte") == 0)
    return CMP_LTE;
  return CMP_INVALID;
}

static gboolean
cmp_apply (Cmp cmp,
           int sign)
{
  switch (cmp)
    {
    case CMP_GTE:
      return sign >= 0;
    case CMP_GT:
      return sign > 0;
    case CMP_LT:
      return sign < 0;
    case CMP_LTE:
      return sign <= 0;
    case CMP_INVALID:
    default:
      return FALSE;
    }
}

static gboolean
cmp_numbers (Cmp    cmp,
             double a,
             double b)
{
  /* Spelled out so that NaN compares false, as in Python. */
  switch (cmp)
    {
    case CMP_GTE:
      return a >= b;
    case CMP_GT:
      return a > b;
    case CMP_LT:
      return a < b;
    case CMP_LTE:
      return a <= b;
    case CMP_INVALID:
    default:
      return FALSE;
    }
}

/* ------------------------------------------------------------------------ *
 * Compilation
 * ------------------------------------------------------------------------ */

static void
expected_free (Expected *e)
{
  if (e == NULL)
    return;
  g_clear_pointer (&e->value, anot_py_value_unref);
  g_clear_pointer (&e->any_of, g_ptr_array_unref);
  g_free (e);
}

static Expected *
expected_new (JsonNode *node)
{
  Expected *e = g_new0 (Expected, 1);

  if (node == NULL || JSON_NODE_HOLDS_NULL (node))
    e->kind = EXPECT_NEVER;
  else if (JSON_NODE_HOLDS_VALUE (node) && json_node_get_value_type (node) == G_TYPE_BOOLEAN)
    {
      e->kind = EXPECT_BOOL;
      e->value = anot_py_value_new_bool (json_node_get_boolean (node));
    }
  else if (JSON_NODE_HOLDS_ARRAY (node))
    {
      JsonArray *array = json_node_get_array (node);
      guint n = json_array_get_length (array);

      e->kind = EXPECT_ANY_OF;
      e->any_of = g_ptr_array_new_with_free_func ((GDestroyNotify) expected_free);
      for (guint i = 0; i < n; i++)
        g_ptr_array_add (e->any_of, expected_new (json_array_get_element (array, i)));
    }
  else
    {
      g_autoptr(AnotPyValue) raw = anot_py_value_new_from_json (node);

      e->kind = EXPECT_VALUE;
      e->value = anot_py_normalise_pass_b (raw);
      /* Computed now so that evaluation only reads it. */
      anot_py_value_get_lower_str (e->value);
    }

  return e;
}

static void
path_clear (Path *path)
{
  for (guint i = 0; i < path->n_keys; i++)
    anot_py_value_unref (path->keys[i]);
  g_clear_pointer (&path->keys, g_free);
  path->n_keys = 0;
}

static void
path_init (Path     *path,
           JsonNode *node,
           gboolean  absent_is_empty)
{
  memset (path, 0, sizeof *path);

  if (node == NULL)
    {
      path->valid = absent_is_empty;
      return;
    }
  if (!JSON_NODE_HOLDS_ARRAY (node))
    return;

  path->valid = TRUE;
  path->n_keys = json_array_get_length (json_node_get_array (node));
  path->keys = g_new0 (AnotPyValue *, MAX (path->n_keys, 1));
  for (guint i = 0; i < path->n_keys; i++)
    path->keys[i] = anot_py_value_new_from_json (json_array_get_element (json_node_get_array (node), i));
}

static gboolean
path_is (const Path *path,
         const char *first,
         const char *second)
{
  guint n = second != NULL ? 2 : 1;

  if (!path->valid || path->n_keys != n)
    return FALSE;
  if (anot_py_value_get_kind (path->keys[0]) != ANOT_PY_STR ||
      strcmp (anot_py_value_get_string (path->keys[0]), first) != 0)
    return FALSE;
  if (second != NULL &&
      (anot_py_value_get_kind (path->keys[1]) != ANOT_PY_STR ||
       strcmp (anot_py_value_get_string (path->keys[1]), second) != 0))
    return FALSE;
  return TRUE;
}

static char *
node_lower_str (JsonNode *node)
{
  g_autoptr(AnotPyValue) v = anot_py_value_new_from_json (node);
  g_autofree char *str = anot_py_value_str (v);

  return anot_py_lower (str);
}

static char *
node_str (JsonNode *node)
{
  g_autoptr(AnotPyValue) v = anot_py_value_new_from_json (node);

  return anot_py_value_str (v);
}

static void
social_clear (Social *social)
{
  g_clear_pointer (&social->anchors, g_strfreev);
  g_clear_pointer (&social->network, g_hash_table_unref);
}

/* §6.8 NET_FWD: the anchors, their friends, and (2 hops) their friends'
 * friends, expanding outward in the friend graph. */
static GHashTable *
build_network (AnotDataset *dataset,
               const Social *social)
{
  GHashTable *network = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);

  for (guint i = 0; social->anchors[i] != NULL; i++)
    g_hash_table_add (network, g_strdup (social->anchors[i]));

  if (social->hops >= 1)
    {
      for (guint i = 0; social->anchors[i] != NULL; i++)
        {
          const char * const *friends = anot_dataset_get_friends (dataset, social->anchors[i]);

          for (guint j = 0; friends != NULL && friends[j] != NULL; j++)
            if (!g_hash_table_contains (network, friends[j]))
              g_hash_table_add (network, g_strdup (friends[j]));
        }
    }

  if (social->hops >= 2)
    {
      g_autofree gpointer *first = (gpointer *) g_hash_table_get_keys_as_array (network, NULL);
      g_auto(GStrv) snapshot = NULL;
      guint n = g_hash_table_size (network);

      /* Copy the names: adding to the set may not free them, but the
       * snapshot must not change while we iterate. */
      snapshot = g_new0 (char *, n + 1);
      for (guint i = 0; i < n; i++)
        snapshot[i] = g_strdup (first[i]);

      for (guint i = 0; i < n; i++)
        {
          const char * const *friends = anot_dataset_get_friends (dataset, snapshot[i]);

          for (guint j = 0; friends != NULL && friends[j] != NULL; j++)
            if (!g_hash_table_contains (network, friends[j]))
              g_hash_table_add (network, g_strdup (friends[j]));
        }
    }

  return network;
}

static void
social_init (Social      *social,
             JsonNode    *node,
             AnotDataset *dataset,
             gboolean     with_network)
{
  JsonObject *filter = node_get_object_or_null (node);
  JsonNode *friends;
  g_autoptr(GStrvBuilder) builder = g_strv_builder_new ();

  memset (social, 0, sizeof *social);
  social->present = node_truthy (node);

  /* A truthy non-object filter would crash the reference; it gets the
   * defaults here. */
  friends = filter != NULL ? json_object_get_member (filter, "friends") : NULL;
  if (friends != NULL && JSON_NODE_HOLDS_ARRAY (friends))
    {
      JsonArray *array = json_node_get_array (friends);

      for (guint i = 0; i < json_array_get_length (array); i++)
        {
          JsonNode *element = json_array_get_element (array, i);

          /* A non-string anchor can never equal a name. */
          if (node_is_string (element))
            g_strv_builder_add (builder, json_node_get_string (element));
        }
    }
  social->anchors = g_strv_builder_end (builder);
  social->hops = get_number_default (filter, "hops", 1);
  social->min_matches = get_number_default (filter, "min_matches", 1);

  if (with_network && social->present)
    social->network = build_network (dataset, social);
}

static void
node_free (Node *node)
{
  if (node == NULL)
    return;

  for (guint i = 0; i < node->n_children; i++)
    node_free (node->children[i]);
  g_free (node->children);

  if (node->op == ANOT_CONDITION_OP_LEAF)
    {
      switch (node->kind)
        {
        case LEAF_ITEM_META:
          path_clear (&node->u.meta.path);
          g_free (node->u.meta.not_contains);
          g_free (node->u.meta.contains);
          expected_free (node->u.meta.not_true);
          expected_free (node->u.meta.when_true);
          expected_free (node->u.meta.when_false);
          expected_free (node->u.meta.when_neutral);
          break;
        case LEAF_HOURS:
          path_clear (&node->u.hours.path);
          break;
        case LEAF_REVIEW_TEXT:
          g_free (node->u.text.pattern);
          social_clear (&node->u.text.social);
          path_clear (&node->u.text.weight_field);
          break;
        case LEAF_REVIEW_SENTIMENT:
          g_free (node->u.sentiment.topic);
          social_clear (&node->u.sentiment.social);
          break;
        case LEAF_SOCIAL_RATING:
          social_clear (&node->u.social_rating.social);
          break;
        case LEAF_GROUP_RATING:
          path_clear (&node->u.group.field);
          g_clear_pointer (&node->u.group.filter_value, anot_py_value_unref);
          break;
        case LEAF_GROUP_RATING_NEGATIVE:
        case LEAF_UNKNOWN_KIND:
        default:
          break;
        }
    }

  g_free (node);
}

static gboolean parse_hours_range (const char *str, double *start, double *end);

static void
compile_item_meta (Node       *node,
                   JsonObject *evidence)
{
  JsonNode *m;
  JsonNode *not_true;

  path_init (&node->u.meta.path, json_object_get_member (evidence, "path"), TRUE);

  if ((m = get_present (evidence, "not_contains")) != NULL)
    node->u.meta.not_contains = node_lower_str (m);
  if ((m = get_present (evidence, "contains")) != NULL)
    node->u.meta.contains = node_lower_str (m);

  /* evidence.get("not_true") or evidence.get("true_not") */
  not_true = get_present (evidence, "not_true");
  if (!node_truthy (not_true))
    not_true = get_present (evidence, "true_not");
  if (not_true != NULL)
    node->u.meta.not_true = expected_new (not_true);

  node->u.meta.missing = get_missing (evidence);

  if ((m = get_present (evidence, "true")) != NULL)
    node->u.meta.when_true = expected_new (m);
  if ((m = get_present (evidence, "false")) != NULL)
    node->u.meta.when_false = expected_new (m);
  if ((m = get_present (evidence, "neutral")) != NULL)
    node->u.meta.when_neutral = expected_new (m);
}

static void
compile_hours (Node       *node,
               JsonObject *evidence)
{
  JsonNode *required = json_object_get_member (evidence, "true");

  path_init (&node->u.hours.path, json_object_get_member (evidence, "path"), TRUE);
  node->u.hours.missing = get_missing (evidence);

  /* The required range is used as written: no pass B, no midnight. */
  if (required == NULL)
    node->u.hours.required_ok = FALSE;  /* "" does not parse */
  else if (node_is_string (required))
    node->u.hours.required_ok = parse_hours_range (json_node_get_string (required),
                                                   &node->u.hours.required_start,
                                                   &node->u.hours.required_end);
  else
    node->u.hours.required_ok = FALSE;
}

static void
compile_review_text (Node        *node,
                     JsonObject  *evidence,
                     AnotDataset *dataset)
{
  JsonNode *pattern = json_object_get_member (evidence, "pattern");
  JsonNode *weight_by = get_present (evidence, "weight_by");

  if (pattern == NULL)
    {
      node->u.text.pattern = g_strdup ("");
      node->u.text.pattern_truthy = FALSE;
    }
  else
    {
      node->u.text.pattern = node_str (pattern);
      node->u.text.pattern_truthy = node_truthy (pattern);
    }

  social_init (&node->u.text.social, get_present (evidence, "social_filter"), dataset, FALSE);

  node->u.text.weighted = node_truthy (weight_by);
  if (node->u.text.weighted)
    {
      JsonObject *wb = node_get_object_or_null (weight_by);
      JsonNode *field = wb != NULL ? json_object_get_member (wb, "field") : NULL;

      path_init (&node->u.text.weight_field, field, TRUE);
      node->u.text.weight_field_is_elite = path_is (&node->u.text.weight_field, "user", "elite");
      node->u.text.percentile = get_number_default (evidence, "credibility_percentile", 50);
      node->u.text.min_credible = get_number_default (evidence, "min_credible_matches", 2);
    }
}

static void
compile_review_sentiment (Node        *node,
                          JsonObject  *evidence,
                          AnotDataset *dataset)
{
  JsonNode *topic = json_object_get_member (evidence, "topic");
  JsonNode *sentiment = json_object_get_member (evidence, "sentiment");

  node->u.sentiment.topic = topic != NULL ? node_str (topic) : g_strdup ("");
  node->u.sentiment.topic_truthy = node_truthy (topic);
  /* Anything but "positive" gets the negative rule. */
  node->u.sentiment.want_positive =
    sentiment == NULL ||
    (node_is_string (sentiment) && strcmp (json_node_get_string (sentiment), "positive") == 0);
  node->u.sentiment.min_positive = get_number_default (evidence, "min_positive", 1);
  node->u.sentiment.min_negative = get_number_default (evidence, "min_negative", 1);
  social_init (&node->u.sentiment.social, get_present (evidence, "social_filter"), dataset, TRUE);
}

static void
compile_social_rating (Node        *node,
                       JsonObject  *evidence,
                       AnotDataset *dataset)
{
  social_init (&node->u.social_rating.social, get_present (evidence, "social_filter"), dataset, FALSE);
  node->u.social_rating.min_stars = get_number_default (evidence, "min_stars", 4);
}

static void
compile_group_rating (Node       *node,
                      JsonObject *evidence)
{
  JsonNode *filter_node = get_present (evidence, "group_filter");
  JsonObject *filter = node_get_object_or_null (filter_node);
  JsonNode *field = filter != NULL ? get_present (filter, "field") : NULL;
  JsonNode *value = filter != NULL ? get_present (filter, "value") : NULL;
  JsonNode *metric = json_object_get_member (evidence, "metric");
  JsonNode *threshold = json_object_get_member (evidence, "threshold");

  /* No (truthy) filter, or no field or value: every review is selected. */
  node->u.group.filter_all = filter == NULL || !node_truthy (filter_node) ||
                             field == NULL || value == NULL;
  if (!node->u.group.filter_all)
    {
      if (JSON_NODE_HOLDS_ARRAY (field))
        path_init (&node->u.group.field, field, TRUE);
      else
        {
          /* A single key: r.get(field). */
          node->u.group.field.valid = TRUE;
          node->u.group.field.n_keys = 1;
          node->u.group.field.keys = g_new0 (AnotPyValue *, 1);
          node->u.group.field.keys[0] = anot_py_value_new_from_json (field);
        }

      if (path_is (&node->u.group.field, "date", NULL))
        node->u.group.field_kind = FIELD_DATE;
      else if (path_is (&node->u.group.field, "stars", NULL))
        node->u.group.field_kind = FIELD_STARS;
      else if (path_is (&node->u.group.field, "user", "average_stars"))
        node->u.group.field_kind = FIELD_USER_AVERAGE_STARS;
      else
        node->u.group.field_kind = FIELD_GENERIC;

      node->u.group.filter_cmp = cmp_from_node (json_object_get_member (filter, "operator"), "gte");
      node->u.group.filter_value = anot_py_value_new_from_json (value);
    }

  if (metric == NULL)
    {
      node->u.group.metric_valid = TRUE;
      node->u.group.metric_count = FALSE;
    }
  else if (node_is_string (metric) && strcmp (json_node_get_string (metric), "count") == 0)
    {
      node->u.group.metric_valid = TRUE;
      node->u.group.metric_count = TRUE;
    }
  else if (node_is_string (metric) && strcmp (json_node_get_string (metric), "avg_stars") == 0)
    {
      node->u.group.metric_valid = TRUE;
      node->u.group.metric_count = FALSE;
    }
  else
    node->u.group.metric_valid = FALSE;

  /* A threshold that is not a number makes the reference raise; -1 here. */
  if (threshold == NULL)
    {
      node->u.group.threshold_ok = TRUE;
      node->u.group.threshold = 0;
    }
  else
    node->u.group.threshold_ok = node_get_number (threshold, &node->u.group.threshold);

  node->u.group.cmp = cmp_from_node (json_object_get_member (evidence, "operator"), "gte");
}

static void
compile_group_rating_negative (Node       *node,
                               JsonObject *evidence)
{
  JsonObject *condition = node_get_object_or_null (get_present (evidence, "condition"));
  JsonNode *m;

  node->u.negative.generous_ok = TRUE;
  node->u.negative.generous_avg_gte = 4.0;
  node->u.negative.harsh_ok = TRUE;
  node->u.negative.harsh_avg_lt = 2.0;

  if (condition == NULL)
    return;
  if (json_object_has_member (condition, "generous_avg_gte"))
    {
      m = json_object_get_member (condition, "generous_avg_gte");
      node->u.negative.generous_ok = node_get_number (m, &node->u.negative.generous_avg_gte);
    }
  if (json_object_has_member (condition, "harsh_avg_lt"))
    {
      m = json_object_get_member (condition, "harsh_avg_lt");
      node->u.negative.harsh_ok = node_get_number (m, &node->u.negative.harsh_avg_lt);
    }
}

static Node *
compile_node (AnotCondition *condition,
              AnotDataset   *dataset,
              guint         *leaf_counter)
{
  Node *node = g_new0 (Node, 1);

  node->op = anot_condition_get_op (condition);

  if (node->op != ANOT_CONDITION_OP_LEAF)
    {
      node->n_children = anot_condition_get_n_children (condition);
      node->children = g_new0 (Node *, MAX (node->n_children, 1));
      for (guint i = 0; i < node->n_children; i++)
        node->children[i] = compile_node (anot_condition_get_child (condition, i),
                                          dataset, leaf_counter);
      return node;
    }

  node->leaf_index = (*leaf_counter)++;

  {
    JsonObject *evidence = anot_condition_get_evidence (condition);
    g_autoptr(JsonObject) empty = NULL;

    if (evidence == NULL)
      evidence = empty = json_object_new ();

    switch (anot_condition_get_evidence_kind (condition))
      {
      case ANOT_EVIDENCE_ITEM_META:
        node->kind = LEAF_ITEM_META;
        compile_item_meta (node, evidence);
        break;
      case ANOT_EVIDENCE_ITEM_META_HOURS:
        node->kind = LEAF_HOURS;
        compile_hours (node, evidence);
        break;
      case ANOT_EVIDENCE_REVIEW_TEXT:
        node->kind = LEAF_REVIEW_TEXT;
        compile_review_text (node, evidence, dataset);
        break;
      case ANOT_EVIDENCE_REVIEW_SENTIMENT:
        node->kind = LEAF_REVIEW_SENTIMENT;
        compile_review_sentiment (node, evidence, dataset);
        break;
      case ANOT_EVIDENCE_SOCIAL_RATING:
        node->kind = LEAF_SOCIAL_RATING;
        compile_social_rating (node, evidence, dataset);
        break;
      case ANOT_EVIDENCE_REVIEW_GROUP_RATING:
        node->kind = LEAF_GROUP_RATING;
        compile_group_rating (node, evidence);
        break;
      case ANOT_EVIDENCE_REVIEW_GROUP_RATING_NEGATIVE:
        node->kind = LEAF_GROUP_RATING_NEGATIVE;
        compile_group_rating_negative (node, evidence);
        break;
      case ANOT_EVIDENCE_NONE:
      default:
        /* §3: a kind that is not recognised evaluates to unknown. */
        node->kind = LEAF_UNKNOWN_KIND;
        break;
      }
  }

  return node;
}

static void
plan_free (Plan *plan)
{
  node_free (plan->root);
  g_free (plan);
}

/* ------------------------------------------------------------------------ *
 * The evaluation view of an item (§2): the record as the reference loader
 * leaves it, with pass A applied to the attributes and the categories split.
 * It depends on the item only, so it is attached to the item and shared by
 * all validators.
 * ------------------------------------------------------------------------ */

static GQuark
item_view_quark (void)
{
  static gsize quark;

  if (g_once_init_enter (&quark))
    g_once_init_leave (&quark, g_quark_from_static_string ("anot-validator-item-view"));
  return (GQuark) quark;
}

static AnotPyValue *
build_item_view (AnotItem *item)
{
  /* Not anot_item_get_record(), which keeps the tree on the item: over a
   * large dataset the trees would outgrow the dataset several times. */
  g_autoptr(JsonObject) record = _anot_item_dup_record (item);
  AnotPyValue *view = anot_py_value_new_dict ();
  JsonObjectIter iter;
  const char *name;
  JsonNode *member;

  if (record == NULL)
    return view;

  json_object_iter_init_ordered (&iter, record);
  while (json_object_iter_next_ordered (&iter, &name, &member))
    {
      AnotPyValue *value;

      if (strcmp (name, "attributes") == 0 && JSON_NODE_HOLDS_OBJECT (member))
        {
          JsonObjectIter attr_iter;
          const char *attr_name;
          JsonNode *attr;

          value = anot_py_value_new_dict ();
          json_object_iter_init_ordered (&attr_iter, json_node_get_object (member));
          while (json_object_iter_next_ordered (&attr_iter, &attr_name, &attr))
            {
              g_autoptr(AnotPyValue) raw = anot_py_value_new_from_json (attr);

              anot_py_value_dict_set (value, anot_py_value_new_string (attr_name, -1),
                                      anot_py_normalise_pass_a (raw));
            }
        }
      else if (strcmp (name, "categories") == 0 && node_is_string (member))
        {
          g_auto(GStrv) pieces = g_strsplit (json_node_get_string (member), ",", -1);

          value = anot_py_value_new_list ();
          for (guint i = 0; pieces[i] != NULL; i++)
            {
              g_autofree char *piece = anot_py_strip (pieces[i], strlen (pieces[i]));

              if (piece[0] != '\0')
                anot_py_value_append (value, anot_py_value_new_string (piece, -1));
            }
        }
      else
        value = anot_py_value_new_from_json (member);

      anot_py_value_dict_set (view, anot_py_value_new_string (name, -1), value);
    }

  return view;
}

static AnotPyValue *
get_item_view (AnotItem *item)
{
  GQuark quark = item_view_quark ();
  AnotPyValue *view = g_object_get_qdata (G_OBJECT (item), quark);

  if (view != NULL)
    return view;

  view = build_item_view (item);
  if (!g_object_replace_qdata (G_OBJECT (item), quark, NULL, view,
                               (GDestroyNotify) anot_py_value_unref, NULL))
    {
      /* Another thread was faster. */
      anot_py_value_unref (view);
      view = g_object_get_qdata (G_OBJECT (item), quark);
    }
  return view;
}

/* get_nested_value(): every string met on the way goes through pass B. */
static AnotPyValue *
walk_path (AnotPyValue *root,
           const Path  *path)
{
  AnotPyValue *current = root;

  if (!path->valid)
    return NULL;

  for (guint i = 0; i < path->n_keys; i++)
    {
      AnotPyValue *value;

      if (current == NULL || anot_py_value_get_kind (current) != ANOT_PY_DICT)
        return NULL;
      if (anot_py_value_get_kind (path->keys[i]) == ANOT_PY_STR)
        value = anot_py_value_dict_lookup_string (current, anot_py_value_get_string (path->keys[i]));
      else
        value = anot_py_value_dict_lookup (current, path->keys[i]);
      if (value == NULL)
        return NULL;
      current = anot_py_value_get_pass_b (value);
    }

  return current;
}

/* ------------------------------------------------------------------------ *
 * Leaf evaluation
 * ------------------------------------------------------------------------ */

static gboolean
is_null (const AnotPyValue *v)
{
  return anot_py_value_get_kind (v) == ANOT_PY_NONE;
}

/* str(value).lower() where an absent value is None. */
static const char *
lower_text (AnotPyValue *value)
{
  return value != NULL ? anot_py_value_get_lower_str (value) : "none";
}

/* §6.1 EQ: the reference's match_value(actual, expected). */
static gboolean
expected_matches (const Expected *e,
                  AnotPyValue    *actual)
{
  switch (e->kind)
    {
    case EXPECT_NEVER:
      return FALSE;

    case EXPECT_BOOL:
      return anot_py_value_equal (actual, e->value);

    case EXPECT_ANY_OF:
      for (guint i = 0; i < e->any_of->len; i++)
        if (expected_matches (g_ptr_array_index (e->any_of, i), actual))
          return TRUE;
      return FALSE;

    case EXPECT_VALUE:
    default:
      break;
    }

  if (anot_py_value_get_kind (actual) == ANOT_PY_STR &&
      anot_py_value_get_kind (e->value) == ANOT_PY_STR)
    {
      /* actual.lower() == expected.lower() */
      if (strcmp (anot_py_value_get_lower_str (actual), anot_py_value_get_lower_str (e->value)) == 0)
        return TRUE;
    }
  else if (anot_py_value_equal (actual, e->value))
    return TRUE;

  /* str(expected).lower() in str(actual).lower() */
  return strstr (lower_text (actual), anot_py_value_get_lower_str (e->value)) != NULL;
}

gboolean
_anot_validator_value_matches (AnotPyValue *actual,
                               JsonNode    *expected)
{
  Expected *e = expected_new (expected);
  gboolean matches = expected_matches (e, actual);

  expected_free (e);
  return matches;
}

AnotPyValue *
_anot_validator_item_categories (AnotItem *item)
{
  AnotPyValue *categories = anot_py_value_dict_lookup_string (get_item_view (item), "categories");

  return categories != NULL ? anot_py_value_ref (categories) : NULL;
}

static AnotTruth
eval_item_meta (const Node  *node,
                AnotPyValue *view)
{
  AnotPyValue *value = walk_path (view, &node->u.meta.path);
  gboolean has_true = node->u.meta.when_true != NULL;
  gboolean has_false = node->u.meta.when_false != NULL;
  gboolean has_neutral = node->u.meta.when_neutral != NULL;

  if (node->u.meta.not_contains != NULL)
    {
      if (is_null (value))
        return ANOT_TRUTH_TRUE;
      return strstr (lower_text (value), node->u.meta.not_contains) != NULL ?
             ANOT_TRUTH_FALSE : ANOT_TRUTH_TRUE;
    }

  /* Before the missing-value rule: a missing value reads "none". */
  if (node->u.meta.contains != NULL)
    return strstr (lower_text (value), node->u.meta.contains) != NULL ?
           ANOT_TRUTH_TRUE : ANOT_TRUTH_FALSE;

  if (node->u.meta.not_true != NULL)
    {
      if (is_null (value))
        return ANOT_TRUTH_TRUE;
      return expected_matches (node->u.meta.not_true, value) ? ANOT_TRUTH_FALSE : ANOT_TRUTH_TRUE;
    }

  if (is_null (value))
    return node->u.meta.missing;

  /* A dict of booleans is true if any of them is. */
  if (anot_py_value_get_kind (value) == ANOT_PY_DICT && anot_py_value_get_length (value) > 0)
    {
      guint n = anot_py_value_get_length (value);
      gboolean all_bools = TRUE;
      gboolean any_true = FALSE;

      for (guint i = 0; i < n && all_bools; i++)
        {
          AnotPyValue *v = anot_py_value_get_item (value, i);

          if (anot_py_value_get_kind (v) != ANOT_PY_BOOL)
            all_bools = FALSE;
          else if (anot_py_value_get_bool (v))
            any_true = TRUE;
        }
      if (all_bools)
        return any_true ? ANOT_TRUTH_TRUE : ANOT_TRUTH_FALSE;
    }

  if (!has_true && !has_false && !has_neutral)
    {
      if (anot_py_value_get_kind (value) == ANOT_PY_BOOL)
        return anot_py_value_get_bool (value) ? ANOT_TRUTH_TRUE : ANOT_TRUTH_FALSE;
      return ANOT_TRUTH_UNKNOWN;
    }

  if (has_false && !has_true && !has_neutral)
    return expected_matches (node->u.meta.when_false, value) ? ANOT_TRUTH_FALSE : ANOT_TRUTH_TRUE;

  if (has_true && !has_false && !has_neutral)
    return expected_matches (node->u.meta.when_true, value) ? ANOT_TRUTH_TRUE : ANOT_TRUTH_FALSE;

  if (has_true && expected_matches (node->u.meta.when_true, value))
    return ANOT_TRUTH_TRUE;
  if (has_false && expected_matches (node->u.meta.when_false, value))
    return ANOT_TRUTH_FALSE;
  if (has_neutral && expected_matches (node->u.meta.when_neutral, value))
    return ANOT_TRUTH_UNKNOWN;
  return ANOT_TRUTH_UNKNOWN;
}

/* "H:M" with Python's int() on each side. */
static gboolean
parse_minutes (const char *str,
               gsize       len,
               double     *out)
{
  g_autofree char *copy = g_strndup (str, len);
  char *colon = strchr (copy, ':');
  double h, m;

  if (colon == NULL || strchr (colon + 1, ':') != NULL)
    return FALSE;
  *colon = '\0';
  if (!anot_py_parse_int (copy, &h) || !anot_py_parse_int (colon + 1, &m))
    return FALSE;
  *out = h * 60 + m;
  return TRUE;
}

/* §6.2 parse_hours_range: exactly one '-', exactly one ':' on each side. */
static gboolean
parse_hours_range (const char *str,
                   double     *start,
                   double     *end)
{
  const char *dash;

  if (str == NULL || str[0] == '\0')
    return FALSE;
  dash = strchr (str, '-');
  if (dash == NULL || strchr (dash + 1, '-') != NULL)
    return FALSE;
  return parse_minutes (str, dash - str, start) &&
         parse_minutes (dash + 1, strlen (dash + 1), end);
}

static AnotTruth
eval_hours (const Node  *node,
            AnotPyValue *view)
{
  AnotPyValue *value = walk_path (view, &node->u.hours.path);
  double start, end;

  if (!anot_py_value_truthy (value))
    return node->u.hours.missing;

  /* Anything but a parsable string fails (the reference returns False or
   * raises). */
  if (anot_py_value_get_kind (value) != ANOT_PY_STR ||
      !node->u.hours.required_ok ||
      !parse_hours_range (anot_py_value_get_string (value), &start, &end))
    return ANOT_TRUTH_FALSE;

  /* Only the item's range wraps past midnight (§6.2, R26). */
  if (end < start)
    end += 24 * 60;

  return start <= node->u.hours.required_start && end >= node->u.hours.required_end ?
         ANOT_TRUTH_TRUE : ANOT_TRUTH_FALSE;
}

static gboolean
strv_has (char       **strv,
          const char  *str)
{
  for (guint i = 0; strv[i] != NULL; i++)
    if (strcmp (strv[i], str) == 0)
      return TRUE;
  return FALSE;
}

static gboolean
friends_have_anchor (const char * const *friends,
                     char              **anchors)
{
  for (guint i = 0; friends != NULL && friends[i] != NULL; i++)
    if (strv_has (anchors, friends[i]))
      return TRUE;
  return FALSE;
}

/* §6.8 REV_QUALIFIES, looking from the reviewer towards the anchors. */
static gboolean
reviewer_qualifies (AnotDataset  *dataset,
                    const Social *social,
                    const char   *name)
{
  const char * const *friends;

  if (strv_has (social->anchors, name))
    return TRUE;

  friends = anot_dataset_get_friends (dataset, name);
  if (social->hops >= 1 && friends_have_anchor (friends, social->anchors))
    return TRUE;

  if (social->hops >= 2)
    for (guint i = 0; friends != NULL && friends[i] != NULL; i++)
      if (friends_have_anchor (anot_dataset_get_friends (dataset, friends[i]), social->anchors))
        return TRUE;

  return FALSE;
}

static const char *
reviewer_name (AnotReview *review)
{
  const char *name = anot_review_get_reviewer_name (review);

  return name != NULL ? name : "";
}

/* The review as the reference sees it (a dict), for generic field paths. */
static AnotPyValue *
review_to_py (AnotReview *review)
{
  g_autoptr(JsonObject) obj = anot_review_to_json (review);
  g_autoptr(JsonNode) node = json_node_new (JSON_NODE_OBJECT);

  json_node_set_object (node, obj);
  return anot_py_value_new_from_json (node);
}

/* Walks a review dict without pass B (reviews are not normalised). */
static AnotPyValue *
walk_plain (AnotPyValue *root,
            const Path  *path)
{
  AnotPyValue *current = root;

  for (guint i = 0; i < path->n_keys; i++)
    {
      if (anot_py_value_get_kind (current) != ANOT_PY_DICT)
        return NULL;
      current = anot_py_value_dict_lookup (current, path->keys[i]);
      if (current == NULL)
        return NULL;
    }
  return current;
}

/* get_review_metadata_value() of the credibility rule. */
static double
review_weight_value (const Node *node,
                     AnotReview *review)
{
  g_autoptr(AnotPyValue) r = review_to_py (review);
  AnotPyValue *current = r;
  double value;

  for (guint i = 0; i < node->u.text.weight_field.n_keys; i++)
    {
      if (anot_py_value_get_kind (current) != ANOT_PY_DICT)
        return 0.0;
      /* dict.get(): a missing key gives None, and then the walk stops. */
      current = anot_py_value_dict_lookup (current, node->u.text.weight_field.keys[i]);
    }

  if (node->u.text.weight_field_is_elite && anot_py_value_get_kind (current) == ANOT_PY_LIST)
    {
      guint count = 0;

      for (guint i = 0; i < anot_py_value_get_length (current); i++)
        {
          AnotPyValue *e = anot_py_value_get_item (current, i);

          if (anot_py_value_truthy (e) &&
              !(anot_py_value_get_kind (e) == ANOT_PY_STR && strcmp (anot_py_value_get_string (e), "None") == 0))
            count++;
        }
      return count;
    }

  if (is_null (current))
    return 0.0;
  /* float() failures raise in the reference; they count as 0 here. */
  return anot_py_value_to_float (current, &value) ? value : 0.0;
}

static int
compare_doubles (gconstpointer a,
                 gconstpointer b)
{
  double x = *(const double *) a, y = *(const double *) b;

  return x < y ? -1 : x > y ? 1 : 0;
}

/* The credibility-percentile variant of review_text (weight_by; unused in
 * the benchmark data). */
static AnotTruth
eval_review_text_weighted (const Node  *node,
                           AnotDataset *dataset,
                           AnotItem    *item)
{
  guint n = anot_item_get_n_reviews (item);
  g_autofree double *values = NULL;
  g_autoptr(GArray) nonzero = NULL;
  double threshold;
  double idx;
  gint64 position;
  guint matches = 0;

  if (n == 0 || !node->u.text.pattern_truthy)
    return ANOT_TRUTH_FALSE;

  values = g_new (double, n);
  nonzero = g_array_new (FALSE, FALSE, sizeof (double));
  for (guint i = 0; i < n; i++)
    {
      values[i] = review_weight_value (node, anot_item_get_review (item, i));
      if (values[i] > 0)
        g_array_append_val (nonzero, values[i]);
    }
  g_array_sort (nonzero, compare_doubles);

  if ((double) nonzero->len < node->u.text.min_credible)
    return ANOT_TRUTH_FALSE;

  /* nonzero[min(int(len * p / 100), len - 1)], negative indices wrapping. */
  idx = trunc ((double) nonzero->len * node->u.text.percentile / 100.0);
  position = (gint64) MIN (idx, (double) nonzero->len - 1);
  if (position < 0)
    position += nonzero->len;
  if (position < 0 || nonzero->len == 0)
    return ANOT_TRUTH_FALSE;
  threshold = g_array_index (nonzero, double, position);

  for (guint i = 0; i < n; i++)
    {
      AnotReview *review = anot_item_get_review (item, i);

      if (values[i] >= threshold &&
          anot_dataset_get_judgement (dataset, anot_review_get_id (review),
                                      node->u.text.pattern) == ANOT_JUDGEMENT_POSITIVE)
        matches++;
    }

  return (double) matches >= node->u.text.min_credible ? ANOT_TRUTH_TRUE : ANOT_TRUTH_FALSE;
}

/* §6.4 */
static AnotTruth
eval_review_text (const Node  *node,
                  AnotDataset *dataset,
                  AnotItem    *item)
{
  guint n = anot_item_get_n_reviews (item);

  if (node->u.text.social.present)
    {
      const Social *social = &node->u.text.social;
      guint matches = 0;

      if (n == 0)
        return ANOT_TRUTH_FALSE;

      for (guint i = 0; i < n; i++)
        {
          AnotReview *review = anot_item_get_review (item, i);

          if (anot_dataset_get_judgement (dataset, anot_review_get_id (review),
                                          node->u.text.pattern) != ANOT_JUDGEMENT_POSITIVE)
            continue;
          if (reviewer_qualifies (dataset, social, reviewer_name (review)))
            matches++;
        }
      return (double) matches >= social->min_matches ? ANOT_TRUTH_TRUE : ANOT_TRUTH_FALSE;
    }

  /* The one review-based rule where no reviews means unknown. */
  if (n == 0)
    return ANOT_TRUTH_UNKNOWN;

  if (node->u.text.weighted)
    return eval_review_text_weighted (node, dataset, item);

  if (!node->u.text.pattern_truthy)
    return ANOT_TRUTH_FALSE;

  for (guint i = 0; i < n; i++)
    if (anot_dataset_get_judgement (dataset, anot_review_get_id (anot_item_get_review (item, i)),
                                    node->u.text.pattern) == ANOT_JUDGEMENT_POSITIVE)
      return ANOT_TRUTH_TRUE;

  return ANOT_TRUTH_FALSE;
}

/* §6.5 */
static AnotTruth
eval_review_sentiment (const Node  *node,
                       AnotDataset *dataset,
                       AnotItem    *item)
{
  guint n = anot_item_get_n_reviews (item);
  GHashTable *network = node->u.sentiment.social.network;
  guint pos = 0, neg = 0;

  if (n == 0 || !node->u.sentiment.topic_truthy)
    return ANOT_TRUTH_FALSE;

  for (guint i = 0; i < n; i++)
    {
      AnotReview *review = anot_item_get_review (item, i);

      if (network != NULL && !g_hash_table_contains (network, reviewer_name (review)))
        continue;

      switch (anot_dataset_get_judgement (dataset, anot_review_get_id (review),
                                          node->u.sentiment.topic))
        {
        case ANOT_JUDGEMENT_POSITIVE:
          pos++;
          break;
        case ANOT_JUDGEMENT_NEGATIVE:
          neg++;
          break;
        case ANOT_JUDGEMENT_NEUTRAL:
        case ANOT_JUDGEMENT_NOT_MENTIONED:
        default:
          break;
        }
    }

  if (node->u.sentiment.want_positive)
    return (double) pos >= node->u.sentiment.min_positive && pos > neg ?
           ANOT_TRUTH_TRUE : ANOT_TRUTH_FALSE;
  return (double) neg >= node->u.sentiment.min_negative ? ANOT_TRUTH_TRUE : ANOT_TRUTH_FALSE;
}

/* §6.6 */
static AnotTruth
eval_social_rating (const Node  *node,
                    AnotDataset *dataset,
                    AnotItem    *item)
{
  const Social *social = &node->u.social_rating.social;
  guint n = anot_item_get_n_reviews (item);
  guint matches = 0;

  if (n == 0 || !social->present)
    return ANOT_TRUTH_FALSE;

  for (guint i = 0; i < n; i++)
    {
      AnotReview *review = anot_item_get_review (item, i);

      if (anot_review_get_stars (review) < node->u.social_rating.min_stars)
        continue;
      if (reviewer_qualifies (dataset, social, reviewer_name (review)))
        matches++;
    }

  return (double) matches >= social->min_matches ? ANOT_TRUTH_TRUE : ANOT_TRUTH_FALSE;
}

/* Whether a review passes the group filter of §6.7. */
static gboolean
review_in_group (const Node *node,
                 AnotReview *review)
{
  const AnotPyValue *target = node->u.group.filter_value;
  Cmp cmp = node->u.group.filter_cmp;
  g_autoptr(AnotPyValue) owned = NULL;
  AnotPyValue *v = NULL;
  const char *v_str = NULL;
  double v_num = 0, target_num;
  gboolean v_is_num = FALSE;

  switch (node->u.group.field_kind)
    {
    case FIELD_DATE:
      v_str = anot_review_get_date (review);
      if (v_str == NULL)
        return FALSE;
      break;
    case FIELD_STARS:
      v_num = anot_review_get_stars (review);
      v_is_num = TRUE;
      break;
    case FIELD_USER_AVERAGE_STARS:
      if (!anot_review_has_user_average_stars (review))
        return FALSE;
      v_num = anot_review_get_user_average_stars (review);
      v_is_num = TRUE;
      break;
    case FIELD_GENERIC:
    default:
      owned = review_to_py (review);
      v = walk_plain (owned, &node->u.group.field);
      if (is_null (v))
        return FALSE;
      if (anot_py_value_get_kind (v) == ANOT_PY_STR)
        v_str = anot_py_value_get_string (v);
      break;
    }

  /* Date-like strings compare as strings: "2016-01-18 04:03:23" >=
   * "2020-01-01" is false, and any 2020+ timestamp passes. */
  if (v_str != NULL && anot_py_value_get_kind (target) == ANOT_PY_STR && strchr (v_str, '-') != NULL)
    {
      int sign = strcmp (v_str, anot_py_value_get_string (target));

      return cmp_apply (cmp, sign < 0 ? -1 : sign > 0 ? 1 : 0);
    }

  /* float() of both; a failure skips the review. */
  if (!v_is_num)
    {
      if (v_str != NULL)
        {
          if (!anot_py_parse_float (v_str, &v_num))
            return FALSE;
        }
      else if (!anot_py_value_to_float (v, &v_num))
        return FALSE;
    }
  if (!anot_py_value_to_float (target, &target_num))
    return FALSE;

  return cmp_numbers (cmp, v_num, target_num);
}

/* §6.7 review_group_rating */
static AnotTruth
eval_group_rating (const Node *node,
                   AnotItem   *item)
{
  guint n = anot_item_get_n_reviews (item);
  guint selected = 0;
  double sum = 0;
  double computed;

  if (n == 0)
    return ANOT_TRUTH_FALSE;

  for (guint i = 0; i < n; i++)
    {
      AnotReview *review = anot_item_get_review (item, i);

      if (node->u.group.filter_all || review_in_group (node, review))
        {
          selected++;
          sum += anot_review_get_stars (review);
        }
    }

  if (!node->u.group.metric_valid)
    return ANOT_TRUTH_FALSE;

  if (node->u.group.metric_count)
    computed = selected;
  else
    {
      if (selected == 0)
        return ANOT_TRUTH_FALSE;
      computed = sum / selected;
    }

  if (!node->u.group.threshold_ok)
    return ANOT_TRUTH_FALSE;
  return cmp_numbers (node->u.group.cmp, computed, node->u.group.threshold) ?
         ANOT_TRUTH_TRUE : ANOT_TRUTH_FALSE;
}

/* §6.7 review_group_rating_negative: the bad pattern is "generous
 * reviewers love it and harsh reviewers hate it".  The 4.0 / 3.5 cut-offs
 * that define the two groups are fixed in the reference. */
static AnotTruth
eval_group_rating_negative (const Node *node,
                            AnotItem   *item)
{
  guint n = anot_item_get_n_reviews (item);
  guint n_generous = 0, n_harsh = 0;
  double generous_sum = 0, harsh_sum = 0;
  gboolean bad;

  if (n == 0)
    return ANOT_TRUTH_TRUE;

  for (guint i = 0; i < n; i++)
    {
      AnotReview *review = anot_item_get_review (item, i);
      double avg;

      if (!anot_review_has_user_average_stars (review))
        continue;
      avg = anot_review_get_user_average_stars (review);
      if (avg >= 4.0)
        {
          n_generous++;
          generous_sum += anot_review_get_stars (review);
        }
      else if (avg < 3.5)
        {
          n_harsh++;
          harsh_sum += anot_review_get_stars (review);
        }
    }

  bad = n_generous > 0 && node->u.negative.generous_ok &&
        generous_sum / n_generous >= node->u.negative.generous_avg_gte &&
        n_harsh > 0 && node->u.negative.harsh_ok &&
        harsh_sum / n_harsh < node->u.negative.harsh_avg_lt;

  return bad ? ANOT_TRUTH_FALSE : ANOT_TRUTH_TRUE;
}

typedef struct
{
  AnotDataset *dataset;
  AnotItem *item;
  AnotPyValue *view;      /* built on first use */
  AnotTruth *leaf_truths; /* non-NULL when explaining: no short cuts */
  gboolean transient_view; /* build the view for the caller, not kept on the item */
} EvalContext;

static AnotTruth
eval_leaf (const Node  *node,
           EvalContext *ctx)
{
  switch (node->kind)
    {
    case LEAF_ITEM_META:
      if (ctx->view == NULL)
        ctx->view = ctx->transient_view ? build_item_view (ctx->item) : get_item_view (ctx->item);
      return eval_item_meta (node, ctx->view);
    case LEAF_HOURS:
      if (ctx->view == NULL)
        ctx->view = ctx->transient_view ? build_item_view (ctx->item) : get_item_view (ctx->item);
      return eval_hours (node, ctx->view);
    case LEAF_REVIEW_TEXT:
      return eval_review_text (node, ctx->dataset, ctx->item);
    case LEAF_REVIEW_SENTIMENT:
      return eval_review_sentiment (node, ctx->dataset, ctx->item);
    case LEAF_SOCIAL_RATING:
      return eval_social_rating (node, ctx->dataset, ctx->item);
    case LEAF_GROUP_RATING:
      return eval_group_rating (node, ctx->item);
    case LEAF_GROUP_RATING_NEGATIVE:
      return eval_group_rating_negative (node, ctx->item);
    case LEAF_UNKNOWN_KIND:
    default:
      return ANOT_TRUTH_UNKNOWN;
    }
}

/* §4 Kleene logic.  Without leaf_truths to fill, AND stops at the first
 * false child and OR at the first true one: the result is the same. */
static AnotTruth
eval_node (const Node  *node,
           EvalContext *ctx)
{
  gboolean explaining = ctx->leaf_truths != NULL;
  gboolean any_false = FALSE, any_unknown = FALSE, any_true = FALSE;

  if (node->op == ANOT_CONDITION_OP_LEAF)
    {
      AnotTruth truth = eval_leaf (node, ctx);

      if (explaining)
        ctx->leaf_truths[node->leaf_index] = truth;
      return truth;
    }

  if (node->op == ANOT_CONDITION_OP_NOT)
    {
      AnotTruth child = ANOT_TRUTH_UNKNOWN;

      for (guint i = 0; i < node->n_children; i++)
        child = eval_node (node->children[i], ctx);
      if (node->n_children != 1)
        return ANOT_TRUTH_UNKNOWN;
      return -child;
    }

  if (node->n_children == 0)
    return ANOT_TRUTH_UNKNOWN;

  for (guint i = 0; i < node->n_children; i++)
    {
      AnotTruth child = eval_node (node->children[i], ctx);

      if (child == ANOT_TRUTH_FALSE)
        any_false = TRUE;
      else if (child == ANOT_TRUTH_TRUE)
        any_true = TRUE;
      else
        any_unknown = TRUE;

      if (!explaining)
        {
          if (node->op == ANOT_CONDITION_OP_AND && any_false)
            return ANOT_TRUTH_FALSE;
          if (node->op != ANOT_CONDITION_OP_AND && any_true)
            return ANOT_TRUTH_TRUE;
        }
    }

  /* Any op other than AND (and NOT) is an OR. */
  if (node->op == ANOT_CONDITION_OP_AND)
    return any_false ? ANOT_TRUTH_FALSE : any_unknown ? ANOT_TRUTH_UNKNOWN : ANOT_TRUTH_TRUE;
  return any_true ? ANOT_TRUTH_TRUE : any_unknown ? ANOT_TRUTH_UNKNOWN : ANOT_TRUTH_FALSE;
}

/* ------------------------------------------------------------------------ *
 * The plan cache
 * ------------------------------------------------------------------------ */

static void
condition_finalized_cb (gpointer  data,
                        GObject  *where_the_object_was)
{
  AnotValidator *self = data;
  Plan *plan;

  g_mutex_lock (&self->lock);
  plan = g_hash_table_lookup (self->plans, where_the_object_was);
  if (plan != NULL)
    g_hash_table_steal (self->plans, where_the_object_was);
  g_mutex_unlock (&self->lock);

  if (plan != NULL)
    plan_free (plan);
}

static const Plan *
get_plan (AnotValidator *self,
          AnotCondition *condition)
{
  Plan *plan;

  g_mutex_lock (&self->lock);
  plan = g_hash_table_lookup (self->plans, condition);
  if (plan == NULL)
    {
      plan = g_new0 (Plan, 1);
      plan->condition = condition;
      plan->root = compile_node (condition, self->dataset, &plan->n_leaves);
      g_hash_table_insert (self->plans, condition, plan);
      g_object_weak_ref (G_OBJECT (condition), condition_finalized_cb, self);
    }
  g_mutex_unlock (&self->lock);

  return plan;
}

/* ------------------------------------------------------------------------ *
 * GObject
 * ------------------------------------------------------------------------ */

static void
anot_validator_dispose (GObject *object)
{
  AnotValidator *self = ANOT_VALIDATOR (object);
  GHashTableIter iter;
  gpointer key, value;

  g_mutex_lock (&self->lock);
  g_hash_table_iter_init (&iter, self->plans);
  while (g_hash_table_iter_next (&iter, &key, &value))
    {
      g_object_weak_unref (G_OBJECT (key), condition_finalized_cb, self);
      plan_free (value);
      g_hash_table_iter_remove (&iter);
    }
  g_mutex_unlock (&self->lock);

  g_clear_object (&self->dataset);

  G_OBJECT_CLASS (anot_validator_parent_class)->dispose (object);
}

static void
anot_validator_finalize (GObject *object)
{
  AnotValidator *self = ANOT_VALIDATOR (object);

  g_hash_table_unref (self->plans);
  g_mutex_clear (&self->lock);

  G_OBJECT_CLASS (anot_validator_parent_class)->finalize (object);
}

static void
anot_validator_get_property (GObject    *object,
                             guint       prop_id,
                             GValue     *value,
                             GParamSpec *pspec)
{
  AnotValidator *self = ANOT_VALIDATOR (object);

  switch (prop_id)
    {
    case PROP_DATASET:
      g_value_set_object (value, self->dataset);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
anot_validator_set_property (GObject      *object,
                             guint         prop_id,
                             const GValue *value,
                             GParamSpec   *pspec)
{
  AnotValidator *self = ANOT_VALIDATOR (object);

  switch (prop_id)
    {
    case PROP_DATASET:
      self->dataset = g_value_dup_object (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
anot_validator_class_init (AnotValidatorClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = anot_validator_dispose;
  object_class->finalize = anot_validator_finalize;
  object_class->get_property = anot_validator_get_property;
  object_class->set_property = anot_validator_set_property;

  /**
   * AnotValidator:dataset:
   *
   * The dataset whose friend graph and judgement cache the review-based
   * conditions use, and whose items and requests
   * [method@Anot.Validator.check_request] and
   * [method@Anot.Validator.truth_matrix] go through.
   */
  properties[PROP_DATASET] = g_param_spec_object ("dataset", NULL, NULL,
                                                  ANOT_TYPE_DATASET,
                                                  G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY |
                                                  G_PARAM_STATIC_STRINGS);

  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
anot_validator_init (AnotValidator *self)
{
  g_mutex_init (&self->lock);
  self->plans = g_hash_table_new (g_direct_hash, g_direct_equal);
}

/* ------------------------------------------------------------------------ *
 * Public API
 * ------------------------------------------------------------------------ */

/**
 * anot_validator_new:
 * @dataset: the dataset to validate against
 *
 * Creates a validator for the requests and items of @dataset.  Items and
 * conditions that are not part of @dataset (attacked copies, hand-written
 * conditions) can be evaluated too; the review-based conditions then still
 * use the friend graph and judgement cache of @dataset.
 *
 * Returns: (transfer full): a new #AnotValidator
 */
AnotValidator *
anot_validator_new (AnotDataset *dataset)
{
  g_return_val_if_fail (ANOT_IS_DATASET (dataset), NULL);

  return g_object_new (ANOT_TYPE_VALIDATOR, "dataset", dataset, NULL);
}

/**
 * anot_validator_get_dataset:
 * @self: a #AnotValidator
 *
 * Gets the dataset the validator was created for.
 *
 * Returns: (transfer none): the dataset
 */
AnotDataset *
anot_validator_get_dataset (AnotValidator *self)
{
  g_return_val_if_fail (ANOT_IS_VALIDATOR (self), NULL);

  return self->dataset;
}

/* @view: the item's view when the caller holds one, else NULL: built (and
 * kept on the item) on first use. */
static AnotTruth
evaluate_plan_with_view (AnotValidator *self,
                         const Plan    *plan,
                         AnotItem      *item,
                         AnotPyValue   *view,
                         AnotTruth     *leaf_truths)
{
  EvalContext ctx = { self->dataset, item, view, leaf_truths };

  return eval_node (plan->root, &ctx);
}

static AnotTruth
evaluate_plan (AnotValidator *self,
               const Plan    *plan,
               AnotItem      *item,
               AnotTruth     *leaf_truths)
{
  return evaluate_plan_with_view (self, plan, item, NULL, leaf_truths);
}

/**
 * anot_validator_evaluate_condition:
 * @self: a #AnotValidator
 * @condition: a condition: a group or a single leaf
 * @item: the item to evaluate it on
 *
 * Evaluates @condition on @item.  A leaf gives its own truth; a group
 * combines its children with Kleene logic (an empty group is unknown).
 *
 * Returns: the truth of @condition on @item
 */
AnotTruth
anot_validator_evaluate_condition (AnotValidator *self,
                                   AnotCondition *condition,
                                   AnotItem      *item)
{
  const Plan *plan;

  g_return_val_if_fail (ANOT_IS_VALIDATOR (self), ANOT_TRUTH_UNKNOWN);
  g_return_val_if_fail (ANOT_IS_CONDITION (condition), ANOT_TRUTH_UNKNOWN);
  g_return_val_if_fail (ANOT_IS_ITEM (item), ANOT_TRUTH_UNKNOWN);

  plan = get_plan (self, condition);
  return evaluate_plan (self, plan, item, NULL);
}

/**
 * anot_validator_evaluate:
 * @self: a #AnotValidator
 * @request: a request
 * @item: the item to evaluate it on
 *
 * Evaluates the structure of @request on @item.
 *
 * As in the reference validator, a structure whose root is a single leaf
 * (no `op` and no `args`) is an AND of no arguments, hence unknown; use
 * anot_validator_evaluate_condition() to evaluate a leaf on its own.
 *
 * Returns: %ANOT_TRUTH_TRUE if @item satisfies the request,
 *   %ANOT_TRUTH_FALSE if it does not, %ANOT_TRUTH_UNKNOWN if that cannot be
 *   decided from the data
 */
AnotTruth
anot_validator_evaluate (AnotValidator *self,
                         AnotRequest   *request,
                         AnotItem      *item)
{
  AnotCondition *structure;
  const Plan *plan;

  g_return_val_if_fail (ANOT_IS_VALIDATOR (self), ANOT_TRUTH_UNKNOWN);
  g_return_val_if_fail (ANOT_IS_REQUEST (request), ANOT_TRUTH_UNKNOWN);
  g_return_val_if_fail (ANOT_IS_ITEM (item), ANOT_TRUTH_UNKNOWN);

  structure = anot_request_get_structure (request);
  if (structure == NULL)
    return ANOT_TRUTH_UNKNOWN;

  plan = get_plan (self, structure);
  if (plan->root->op == ANOT_CONDITION_OP_LEAF)
    return ANOT_TRUTH_UNKNOWN;
  return evaluate_plan (self, plan, item, NULL);
}

/**
 * anot_validator_explain:
 * @self: a #AnotValidator
 * @request: a request
 * @item: the item to evaluate it on
 *
 * Evaluates the structure of @request on @item and records the truth of
 * every leaf, in document order.  The verdict's truth is what
 * anot_validator_evaluate() returns.
 *
 * Returns: (transfer full): the verdict
 */
AnotVerdict *
anot_validator_explain (AnotValidator *self,
                        AnotRequest   *request,
                        AnotItem      *item)
{
  g_autoptr(GPtrArray) leaves = NULL;
  g_autofree AnotTruth *leaf_truths = NULL;
  AnotCondition *structure;
  const Plan *plan;
  AnotTruth truth;

  g_return_val_if_fail (ANOT_IS_VALIDATOR (self), NULL);
  g_return_val_if_fail (ANOT_IS_REQUEST (request), NULL);
  g_return_val_if_fail (ANOT_IS_ITEM (item), NULL);

  structure = anot_request_get_structure (request);
  if (structure == NULL)
    {
      leaves = g_ptr_array_new ();
      return _anot_verdict_new (anot_request_get_id (request), anot_item_get_id (item),
                                ANOT_TRUTH_UNKNOWN, leaves, NULL);
    }

  plan = get_plan (self, structure);
  leaves = anot_condition_collect_leaves (structure);
  g_assert (leaves->len == plan->n_leaves);

  leaf_truths = g_new0 (AnotTruth, MAX (plan->n_leaves, 1));
  truth = evaluate_plan (self, plan, item, leaf_truths);
  if (plan->root->op == ANOT_CONDITION_OP_LEAF)
    truth = ANOT_TRUTH_UNKNOWN;

  return _anot_verdict_new (anot_request_get_id (request), anot_item_get_id (item),
                            truth, leaves, leaf_truths);
}

/**
 * anot_validator_find_matches:
 * @self: a #AnotValidator
 * @request: a request
 *
 * Finds the items of the dataset on which @request evaluates to true, in
 * dataset order.  Items at unknown are not matches.
 *
 * Returns: (transfer container) (element-type Anot.Item): the matching
 *   items, owned by the dataset
 */
GPtrArray *
anot_validator_find_matches (AnotValidator *self,
                             AnotRequest   *request)
{
  GPtrArray *matches;
  guint n;

  g_return_val_if_fail (ANOT_IS_VALIDATOR (self), NULL);
  g_return_val_if_fail (ANOT_IS_REQUEST (request), NULL);

  /* No element references: bindings free a (transfer full) array with its
   * own free function and would drop the items twice. */
  matches = g_ptr_array_new ();
  n = anot_dataset_get_n_items (self->dataset);
  for (guint i = 0; i < n; i++)
    {
      AnotItem *item = anot_dataset_get_item (self->dataset, i);

      if (anot_validator_evaluate (self, request, item) == ANOT_TRUTH_TRUE)
        g_ptr_array_add (matches, item);
    }

  return matches;
}

static AnotGoldStatus
status_of_matches (guint    n_matches,
                   gboolean gold_matches)
{
  if (n_matches == 0)
    return ANOT_GOLD_STATUS_NO_MATCH;
  if (n_matches == 1)
    return gold_matches ? ANOT_GOLD_STATUS_OK : ANOT_GOLD_STATUS_GOLD_NOT_MATCH;
  return gold_matches ? ANOT_GOLD_STATUS_MULTI_MATCH : ANOT_GOLD_STATUS_MULTI_MATCH_NO_GOLD;
}

static AnotGoldStatus
gold_status (GPtrArray  *matches,
             const char *gold_id)
{
  gboolean gold_matches = FALSE;

  for (guint i = 0; i < matches->len; i++)
    if (g_strcmp0 (anot_item_get_id (g_ptr_array_index (matches, i)), gold_id) == 0)
      gold_matches = TRUE;
  return status_of_matches (matches->len, gold_matches);
}

/**
 * anot_validator_check_request:
 * @self: a #AnotValidator
 * @request: a request of the validator's dataset
 * @out_n_matches: (out) (optional): return location for the number of
 *   items on which @request is true
 *
 * Checks the gold label of @request: it is valid when exactly one item of
 * the dataset satisfies the request and that item is the gold one.
 *
 * Returns: %ANOT_GOLD_STATUS_OK if the gold label is valid, otherwise the
 *   way in which it is not
 */
AnotGoldStatus
anot_validator_check_request (AnotValidator *self,
                              AnotRequest   *request,
                              guint         *out_n_matches)
{
  g_autoptr(GPtrArray) matches = NULL;

  g_return_val_if_fail (ANOT_IS_VALIDATOR (self), ANOT_GOLD_STATUS_NO_MATCH);
  g_return_val_if_fail (ANOT_IS_REQUEST (request), ANOT_GOLD_STATUS_NO_MATCH);

  matches = anot_validator_find_matches (self, request);
  if (out_n_matches != NULL)
    *out_n_matches = matches->len;

  return gold_status (matches, anot_request_get_gold_item_id (request));
}

/**
 * anot_validator_check_requests:
 * @self: a #AnotValidator
 * @requests: (element-type Anot.Request): requests of the validator's dataset
 * @out_n_matches: (out) (optional) (element-type guint) (transfer full):
 *   return location for the number of items on which each request is true
 *
 * Checks the gold labels of @requests, as
 * [method@Anot.Validator.check_request] does for each, item by item: each
 * item's evaluation view is built once for all the requests and dropped
 * afterwards, so the memory stays that of the dataset however large it is
 * (checking the requests one by one keeps a view on every item, several
 * times the dataset's size on a large set).
 *
 * Returns: (transfer full) (element-type Anot.GoldStatus): the status of
 *   each request, in the order of @requests
 */
GArray *
anot_validator_check_requests (AnotValidator  *self,
                               GPtrArray      *requests,
                               GArray        **out_n_matches)
{
  g_autofree const Plan **plans = NULL;
  g_autoptr(GArray) n_matches = NULL;
  g_autofree gboolean *gold_matches = NULL;
  GArray *statuses;
  guint n_items, n_requests;

  g_return_val_if_fail (ANOT_IS_VALIDATOR (self), NULL);
  g_return_val_if_fail (requests != NULL, NULL);

  n_requests = requests->len;
  plans = g_new0 (const Plan *, MAX (n_requests, 1));
  n_matches = g_array_sized_new (FALSE, TRUE, sizeof (guint), n_requests);
  g_array_set_size (n_matches, n_requests);
  gold_matches = g_new0 (gboolean, MAX (n_requests, 1));
  for (guint r = 0; r < n_requests; r++)
    {
      AnotCondition *structure;

      g_return_val_if_fail (ANOT_IS_REQUEST (requests->pdata[r]), NULL);
      structure = anot_request_get_structure (requests->pdata[r]);
      /* As anot_validator_evaluate(): no structure, or a lone leaf, is
       * unknown on every item. */
      if (structure != NULL)
        {
          plans[r] = get_plan (self, structure);
          if (plans[r]->root->op == ANOT_CONDITION_OP_LEAF)
            plans[r] = NULL;
        }
    }

  n_items = anot_dataset_get_n_items (self->dataset);
  for (guint i = 0; i < n_items; i++)
    {
      AnotItem *item = anot_dataset_get_item (self->dataset, i);
      AnotPyValue *kept = g_object_get_qdata (G_OBJECT (item), item_view_quark ());
      AnotPyValue *view = NULL;

      for (guint r = 0; r < n_requests; r++)
        {
          EvalContext ctx = { self->dataset, item, kept != NULL ? kept : view, NULL, kept == NULL };

          if (plans[r] == NULL)
            continue;
          if (eval_node (plans[r]->root, &ctx) == ANOT_TRUTH_TRUE)
            {
              g_array_index (n_matches, guint, r)++;
              if (g_strcmp0 (anot_item_get_id (item),
                             anot_request_get_gold_item_id (requests->pdata[r])) == 0)
                gold_matches[r] = TRUE;
            }
          /* The view a leaf built, for the next requests on this item. */
          if (kept == NULL && view == NULL && ctx.view != NULL)
            view = ctx.view;
        }
      g_clear_pointer (&view, anot_py_value_unref);
    }

  statuses = g_array_sized_new (FALSE, FALSE, sizeof (AnotGoldStatus), n_requests);
  for (guint r = 0; r < n_requests; r++)
    {
      AnotGoldStatus status = status_of_matches (g_array_index (n_matches, guint, r), gold_matches[r]);

      g_array_append_val (statuses, status);
    }
  if (out_n_matches != NULL)
    *out_n_matches = g_steal_pointer (&n_matches);
  return statuses;
}

/**
 * anot_validator_truth_matrix:
 * @self: a #AnotValidator
 *
 * Evaluates every request of the dataset on every item, leaf by leaf:
 *
 * ```json
 * {
 *   "dataset": "philly_cafes",
 *   "requests": {
 *     "R01": {
 *       "gold": "e-ZyZc24wgkKafM3pguR2w",
 *       "gold_idx": 0,
 *       "status": "ok",
 *       "n_matches": 1,
 *       "matches": ["e-ZyZc24wgkKafM3pguR2w"],
 *       "items": {
 *         "e-ZyZc24wgkKafM3pguR2w": {
 *           "result": 1,
 *           "leaves": {"drive_thru": 1, "good_for_kids": 1, "no_tv": 1}
 *         },
 *         ...
 *       }
 *     },
 *     ...
 *   }
 * }
 * ```
 *
 * Requests and items are in dataset order, leaves in document order.
 * Truths are the integers 1, 0 and -1.  `gold_idx` is the gold item's
 * index, or -1 if it is not an item of the dataset; `status` is the name
 * of the #AnotGoldStatus (see anot_gold_status_to_string()).  Leaves are
 * keyed by aspect; should a request repeat an aspect, the later leaves are
 * keyed `aspect#2`, `aspect#3`, ...
 *
 * Returns: (transfer full): the matrix, a JSON object node
 */
JsonNode *
anot_validator_truth_matrix (AnotValidator *self)
{
  g_autoptr(JsonBuilder) builder = json_builder_new ();
  guint n_requests, n_items;

  g_return_val_if_fail (ANOT_IS_VALIDATOR (self), NULL);

  n_requests = anot_dataset_get_n_requests (self->dataset);
  n_items = anot_dataset_get_n_items (self->dataset);

  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "dataset");
  json_builder_add_string_value (builder, anot_dataset_get_name (self->dataset));
  json_builder_set_member_name (builder, "requests");
  json_builder_begin_object (builder);

  for (guint r = 0; r < n_requests; r++)
    {
      AnotRequest *request = anot_dataset_get_request (self->dataset, r);
      const char *gold = anot_request_get_gold_item_id (request);
      AnotItem *gold_item = gold != NULL ? anot_dataset_lookup_item (self->dataset, gold) : NULL;
      g_autoptr(GPtrArray) matches = g_ptr_array_new ();
      g_autoptr(GPtrArray) verdicts = g_ptr_array_new_with_free_func (g_object_unref);
      g_autoptr(GPtrArray) keys = g_ptr_array_new_with_free_func (g_free);

      for (guint i = 0; i < n_items; i++)
        {
          AnotItem *item = anot_dataset_get_item (self->dataset, i);
          AnotVerdict *verdict = anot_validator_explain (self, request, item);

          g_ptr_array_add (verdicts, verdict);
          if (anot_verdict_get_truth (verdict) == ANOT_TRUTH_TRUE)
            g_ptr_array_add (matches, item);
        }

      /* Leaf keys, made unique. */
      if (verdicts->len > 0)
        {
          AnotVerdict *first = g_ptr_array_index (verdicts, 0);

          for (guint l = 0; l < anot_verdict_get_n_leaves (first); l++)
            g_ptr_array_add (keys, anot_verdict_get_leaf_key (first, l));
        }

      json_builder_set_member_name (builder, anot_request_get_id (request));
      json_builder_begin_object (builder);
      json_builder_set_member_name (builder, "gold");
      json_builder_add_string_value (builder, gold);
      json_builder_set_member_name (builder, "gold_idx");
      json_builder_add_int_value (builder, gold_item != NULL ? (gint64) anot_item_get_index (gold_item) : -1);
      json_builder_set_member_name (builder, "status");
      json_builder_add_string_value (builder, anot_gold_status_to_string (gold_status (matches, gold)));
      json_builder_set_member_name (builder, "n_matches");
      json_builder_add_int_value (builder, matches->len);
      json_builder_set_member_name (builder, "matches");
      json_builder_begin_array (builder);
      for (guint i = 0; i < matches->len; i++)
        json_builder_add_string_value (builder, anot_item_get_id (g_ptr_array_index (matches, i)));
      json_builder_end_array (builder);

      json_builder_set_member_name (builder, "items");
      json_builder_begin_object (builder);
      for (guint i = 0; i < verdicts->len; i++)
        {
          AnotVerdict *verdict = g_ptr_array_index (verdicts, i);

          json_builder_set_member_name (builder, anot_verdict_get_item_id (verdict));
          json_builder_begin_object (builder);
          json_builder_set_member_name (builder, "result");
          json_builder_add_int_value (builder, anot_verdict_get_truth (verdict));
          json_builder_set_member_name (builder, "leaves");
          json_builder_begin_object (builder);
          for (guint l = 0; l < keys->len; l++)
            {
              json_builder_set_member_name (builder, g_ptr_array_index (keys, l));
              json_builder_add_int_value (builder, anot_verdict_get_leaf_truth (verdict, l));
            }
          json_builder_end_object (builder);
          json_builder_end_object (builder);
        }
      json_builder_end_object (builder);

      json_builder_end_object (builder);
    }

  json_builder_end_object (builder);
  json_builder_end_object (builder);

  return json_builder_get_root (builder);
}

/**
 * anot_validator_write_groundtruth:
 * @self: a #AnotValidator
 * @path: (type filename): the file to write, usually `groundtruth.jsonl` in
 *   the benchmark directory
 * @out_n_ok: (out) (optional): return location for the number of requests
 *   whose gold the validator confirms
 * @error: return location for a #GError
 *
 * Writes the `groundtruth.jsonl` of the validator's dataset: one line per
 * request, in the order of `requests.jsonl`, with the gold item's id and
 * index and the status the validator finds (see the dataset format guide,
 * §7).  The gold is named `gold_restaurant` when the items are in
 * `restaurants.jsonl`, as the original framework's files, and `gold_item`
 * otherwise; the lines are spelled as the original's, so that
 * re-writing a benchmark whose labels hold gives back its file byte for
 * byte.  The file is replaced atomically.
 *
 * A status other than `ok` is written as found: the file records what the
 * validator says, and @out_n_ok tells whether every label held.
 *
 * Returns: %TRUE if the file was written
 */
gboolean
anot_validator_write_groundtruth (AnotValidator  *self,
                                  const char     *path,
                                  guint          *out_n_ok,
                                  GError        **error)
{
  g_autoptr(GPtrArray) requests = g_ptr_array_new ();
  g_autoptr(GArray) statuses = NULL;
  g_autoptr(GString) out = g_string_new (NULL);
  const char *gold_name;
  guint n_ok = 0;

  g_return_val_if_fail (ANOT_IS_VALIDATOR (self), FALSE);
  g_return_val_if_fail (path != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  for (guint r = 0; r < anot_dataset_get_n_requests (self->dataset); r++)
    g_ptr_array_add (requests, anot_dataset_get_request (self->dataset, r));
  statuses = anot_validator_check_requests (self, requests, NULL);

  gold_name = strcmp (anot_dataset_get_items_file (self->dataset), "restaurants.jsonl") == 0 ?
              "gold_restaurant" : "gold_item";
  for (guint r = 0; r < requests->len; r++)
    {
      AnotRequest *request = requests->pdata[r];
      AnotGoldStatus status = g_array_index (statuses, AnotGoldStatus, r);
      gsize len;
      g_autofree char *id = _anot_json_writer_quote (anot_request_get_id (request), &len);
      g_autofree char *gold = _anot_json_writer_quote (anot_request_get_gold_item_id (request), &len);

      /* Python's json.dumps spelling, as the original wrote these files. */
      g_string_append_printf (out, "{\"request_id\": %s, \"%s\": %s, \"gold_idx\": %u, \"status\": \"%s\"}\n",
                              id, gold_name, gold, anot_request_get_gold_index (request),
                              anot_gold_status_to_string (status));
      if (status == ANOT_GOLD_STATUS_OK)
        n_ok++;
    }

  if (!g_file_set_contents (path, out->str, out->len, error))
    return FALSE;
  if (out_n_ok != NULL)
    *out_n_ok = n_ok;
  return TRUE;
}
