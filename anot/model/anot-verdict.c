/* anot-verdict.c: the validator's explanation of one request on one item
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "anot-verdict.h"
#include "anot-verdict-private.h"

#include <string.h>

#include "anot-enum-types.h"

/**
 * AnotVerdict:
 *
 * The result of evaluating a request's structure on one item, with the
 * truth of every leaf.
 *
 * Leaves are in document order (the order of
 * [method@Anot.Condition.collect_leaves]); within a request aspect names are
 * labels and normally unique, so [method@Anot.Verdict.lookup_leaf] finds a
 * leaf by its aspect.  Verdicts come from [method@Anot.Validator.explain] and
 * are immutable.
 */

struct _AnotVerdict
{
  GObject parent_instance;

  char *request_id;
  char *item_id;
  AnotTruth truth;
  GPtrArray *leaves;   /* AnotCondition */
  AnotTruth *leaf_truths;
};

G_DEFINE_FINAL_TYPE (AnotVerdict, anot_verdict, G_TYPE_OBJECT)

enum {
  PROP_0,
  PROP_TRUTH,
  PROP_REQUEST_ID,
  PROP_ITEM_ID,
  PROP_N_LEAVES,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

static void
anot_verdict_finalize (GObject *object)
{
  AnotVerdict *self = ANOT_VERDICT (object);

  g_free (self->request_id);
  g_free (self->item_id);
  g_ptr_array_unref (self->leaves);
  g_free (self->leaf_truths);

  G_OBJECT_CLASS (anot_verdict_parent_class)->finalize (object);
}

static void
anot_verdict_get_property (GObject    *object,
                           guint       prop_id,
                           GValue     *value,
                           GParamSpec *pspec)
{
  AnotVerdict *self = ANOT_VERDICT (object);

  switch (prop_id)
    {
    case PROP_TRUTH:
      g_value_set_enum (value, self->truth);
      break;
    case PROP_REQUEST_ID:
      g_value_set_string (value, self->request_id);
      break;
    case PROP_ITEM_ID:
      g_value_set_string (value, self->item_id);
      break;
    case PROP_N_LEAVES:
      g_value_set_uint (value, self->leaves->len);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
anot_verdict_class_init (AnotVerdictClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  const GParamFlags flags = G_PARAM_READABLE | G_PARAM_STATIC_STRINGS;

  object_class->finalize = anot_verdict_finalize;
  object_class->get_property = anot_verdict_get_property;

  /**
   * AnotVerdict:truth:
   *
   * The truth of the whole structure.
   */
  properties[PROP_TRUTH] = g_param_spec_enum ("truth", NULL, NULL,
                                              ANOT_TYPE_TRUTH, ANOT_TRUTH_UNKNOWN,
                                              flags);
  /**
   * AnotVerdict:request-id:
   *
   * The id of the request that was evaluated.
   */
  properties[PROP_REQUEST_ID] = g_param_spec_string ("request-id", NULL, NULL, NULL, flags);
  /**
   * AnotVerdict:item-id:
   *
   * The id of the item the request was evaluated on.
   */
  properties[PROP_ITEM_ID] = g_param_spec_string ("item-id", NULL, NULL, NULL, flags);
  /**
   * AnotVerdict:n-leaves:
   *
   * The number of leaves of the structure.
   */
  properties[PROP_N_LEAVES] = g_param_spec_uint ("n-leaves", NULL, NULL,
                                                 0, G_MAXUINT, 0, flags);

  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
anot_verdict_init (AnotVerdict *self)
{
}

AnotVerdict *
_anot_verdict_new (const char      *request_id,
                   const char      *item_id,
                   AnotTruth        truth,
                   GPtrArray       *leaves,
                   const AnotTruth *leaf_truths)
{
  AnotVerdict *self;

  g_return_val_if_fail (leaves != NULL, NULL);
  g_return_val_if_fail (leaves->len == 0 || leaf_truths != NULL, NULL);

  self = g_object_new (ANOT_TYPE_VERDICT, NULL);
  self->request_id = g_strdup (request_id);
  self->item_id = g_strdup (item_id);
  self->truth = truth;
  self->leaves = g_ptr_array_new_full (leaves->len, g_object_unref);
  for (guint i = 0; i < leaves->len; i++)
    g_ptr_array_add (self->leaves, g_object_ref (g_ptr_array_index (leaves, i)));
  self->leaf_truths = g_memdup2 (leaf_truths, sizeof (AnotTruth) * leaves->len);

  return self;
}

/**
 * anot_verdict_get_truth:
 * @self: a #AnotVerdict
 *
 * Gets the truth of the whole structure: what
 * [method@Anot.Validator.evaluate] returns for the same request and item.
 *
 * Returns: the truth
 */
AnotTruth
anot_verdict_get_truth (AnotVerdict *self)
{
  g_return_val_if_fail (ANOT_IS_VERDICT (self), ANOT_TRUTH_UNKNOWN);

  return self->truth;
}

/**
 * anot_verdict_get_request_id:
 * @self: a #AnotVerdict
 *
 * Gets the id of the request that was evaluated.
 *
 * Returns: (transfer none) (nullable): the request id
 */
const char *
anot_verdict_get_request_id (AnotVerdict *self)
{
  g_return_val_if_fail (ANOT_IS_VERDICT (self), NULL);

  return self->request_id;
}

/**
 * anot_verdict_get_item_id:
 * @self: a #AnotVerdict
 *
 * Gets the id of the item the request was evaluated on.
 *
 * Returns: (transfer none) (nullable): the item id
 */
const char *
anot_verdict_get_item_id (AnotVerdict *self)
{
  g_return_val_if_fail (ANOT_IS_VERDICT (self), NULL);

  return self->item_id;
}

/**
 * anot_verdict_get_n_leaves:
 * @self: a #AnotVerdict
 *
 * Gets the number of leaves of the evaluated structure.
 *
 * Returns: the number of leaves
 */
guint
anot_verdict_get_n_leaves (AnotVerdict *self)
{
  g_return_val_if_fail (ANOT_IS_VERDICT (self), 0);

  return self->leaves->len;
}

/**
 * anot_verdict_get_leaf:
 * @self: a #AnotVerdict
 * @position: the position of a leaf, in document order
 *
 * Gets a leaf of the evaluated structure.
 *
 * Returns: (transfer none): the leaf condition
 */
AnotCondition *
anot_verdict_get_leaf (AnotVerdict *self,
                       guint        position)
{
  g_return_val_if_fail (ANOT_IS_VERDICT (self), NULL);
  g_return_val_if_fail (position < self->leaves->len, NULL);

  return g_ptr_array_index (self->leaves, position);
}

/**
 * anot_verdict_get_leaf_truth:
 * @self: a #AnotVerdict
 * @position: the position of a leaf, in document order
 *
 * Gets the truth of one leaf on the item.
 *
 * Returns: the truth of the leaf
 */
AnotTruth
anot_verdict_get_leaf_truth (AnotVerdict *self,
                             guint        position)
{
  g_return_val_if_fail (ANOT_IS_VERDICT (self), ANOT_TRUTH_UNKNOWN);
  g_return_val_if_fail (position < self->leaves->len, ANOT_TRUTH_UNKNOWN);

  return self->leaf_truths[position];
}

/**
 * anot_verdict_get_leaf_key:
 * @self: a #AnotVerdict
 * @position: the position of a leaf, in document order
 *
 * The name a leaf goes by in the truth matrix and in results rows
 * (`top1_conditions`): its aspect, or, should the request repeat an aspect,
 * `aspect#2`, `aspect#3`, ... for its later leaves (`""` for a leaf
 * without an aspect).
 *
 * Returns: (transfer full): the key of the leaf
 */
char *
anot_verdict_get_leaf_key (AnotVerdict *self,
                           guint        position)
{
  g_autoptr(GHashTable) seen = NULL;
  char *key = NULL;

  g_return_val_if_fail (ANOT_IS_VERDICT (self), NULL);
  g_return_val_if_fail (position < self->leaves->len, NULL);

  seen = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  for (guint i = 0; i <= position; i++)
    {
      const char *aspect = anot_condition_get_aspect (g_ptr_array_index (self->leaves, i));

      key = g_strdup (aspect != NULL ? aspect : "");
      for (guint k = 2; g_hash_table_contains (seen, key); k++)
        {
          g_free (key);
          key = g_strdup_printf ("%s#%u", aspect != NULL ? aspect : "", k);
        }
      g_hash_table_add (seen, key);
    }
  return g_strdup (key);
}

/**
 * anot_verdict_lookup_leaf:
 * @self: a #AnotVerdict
 * @aspect: the aspect name of a leaf
 * @out_truth: (out) (optional): return location for the leaf's truth
 *
 * Finds the first leaf, in document order, whose aspect is @aspect.
 *
 * Returns: %TRUE if there is such a leaf
 */
gboolean
anot_verdict_lookup_leaf (AnotVerdict *self,
                          const char  *aspect,
                          AnotTruth   *out_truth)
{
  g_return_val_if_fail (ANOT_IS_VERDICT (self), FALSE);
  g_return_val_if_fail (aspect != NULL, FALSE);

  for (guint i = 0; i < self->leaves->len; i++)
    {
      const char *a = anot_condition_get_aspect (g_ptr_array_index (self->leaves, i));

      if (a != NULL && strcmp (a, aspect) == 0)
        {
          if (out_truth != NULL)
            *out_truth = self->leaf_truths[i];
          return TRUE;
        }
    }

  return FALSE;
}

/**
 * anot_verdict_to_json:
 * @self: a #AnotVerdict
 *
 * Serialises the verdict:
 *
 * ```json
 * {"request_id": "R01", "item_id": "e-ZyZc24wgkKafM3pguR2w", "result": 1,
 *  "leaves": [{"aspect": "drive_thru", "kind": "item_meta", "result": 1}, ...]}
 * ```
 *
 * Truths are the integers 1, 0 and -1.  Leaves are in document order.
 *
 * Returns: (transfer full): a JSON object node
 */
JsonNode *
anot_verdict_to_json (AnotVerdict *self)
{
  g_autoptr(JsonBuilder) builder = json_builder_new ();

  g_return_val_if_fail (ANOT_IS_VERDICT (self), NULL);

  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "request_id");
  json_builder_add_string_value (builder, self->request_id);
  json_builder_set_member_name (builder, "item_id");
  json_builder_add_string_value (builder, self->item_id);
  json_builder_set_member_name (builder, "result");
  json_builder_add_int_value (builder, self->truth);
  json_builder_set_member_name (builder, "leaves");
  json_builder_begin_array (builder);
  for (guint i = 0; i < self->leaves->len; i++)
    {
      AnotCondition *leaf = g_ptr_array_index (self->leaves, i);

      json_builder_begin_object (builder);
      json_builder_set_member_name (builder, "aspect");
      json_builder_add_string_value (builder, anot_condition_get_aspect (leaf));
      json_builder_set_member_name (builder, "kind");
      json_builder_add_string_value (builder,
                                     anot_evidence_kind_to_string (anot_condition_get_evidence_kind (leaf)));
      json_builder_set_member_name (builder, "result");
      json_builder_add_int_value (builder, self->leaf_truths[i]);
      json_builder_end_object (builder);
    }
  json_builder_end_array (builder);
  json_builder_end_object (builder);

  return json_builder_get_root (builder);
}
