/* anot-request.c
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "anot-request.h"

#include <string.h>

#include "anot-dataset-private.h"

/**
 * AnotRequest:
 *
 * One benchmark request: the natural-language text shown to a method, the
 * hidden logic it stands for (#AnotRequest:structure) and the gold item that
 * alone satisfies it.
 *
 * Requests are immutable.
 */
struct _AnotRequest
{
  GObject parent_instance;

  char           *id;
  char           *group;
  char           *scenario;
  char           *text;
  char           *shorthand;
  char           *gold_item_id;
  AnotCondition  *structure;
  guint           gold_index;
  AnotGoldStatus  gold_status;
  gboolean        has_gold_status;
};

G_DEFINE_FINAL_TYPE (AnotRequest, anot_request, G_TYPE_OBJECT)

enum {
  PROP_0,
  PROP_ID,
  PROP_GROUP,
  PROP_SCENARIO,
  PROP_TEXT,
  PROP_SHORTHAND,
  PROP_STRUCTURE,
  PROP_GOLD_ITEM_ID,
  PROP_GOLD_INDEX,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

static const char * const gold_status_names[] = {
  [ANOT_GOLD_STATUS_OK] = "ok",
  [ANOT_GOLD_STATUS_NO_MATCH] = "no_match",
  [ANOT_GOLD_STATUS_GOLD_NOT_MATCH] = "gold_not_match",
  [ANOT_GOLD_STATUS_MULTI_MATCH] = "multi_match",
  [ANOT_GOLD_STATUS_MULTI_MATCH_NO_GOLD] = "multi_match_no_gold",
};

static void
anot_request_finalize (GObject *object)
{
  AnotRequest *self = ANOT_REQUEST (object);

  g_clear_pointer (&self->id, g_free);
  g_clear_pointer (&self->group, g_free);
  g_clear_pointer (&self->scenario, g_free);
  g_clear_pointer (&self->text, g_free);
  g_clear_pointer (&self->shorthand, g_free);
  g_clear_pointer (&self->gold_item_id, g_free);
  g_clear_object (&self->structure);

  G_OBJECT_CLASS (anot_request_parent_class)->finalize (object);
}

static void
anot_request_get_property (GObject    *object,
                           guint       prop_id,
                           GValue     *value,
                           GParamSpec *pspec)
{
  AnotRequest *self = ANOT_REQUEST (object);

  switch (prop_id)
    {
    case PROP_ID:
      g_value_set_string (value, self->id);
      break;
    case PROP_GROUP:
      g_value_set_string (value, self->group);
      break;
    case PROP_SCENARIO:
      g_value_set_string (value, self->scenario);
      break;
    case PROP_TEXT:
      g_value_set_string (value, self->text);
      break;
    case PROP_SHORTHAND:
      g_value_set_string (value, self->shorthand);
      break;
    case PROP_STRUCTURE:
      g_value_set_object (value, self->structure);
      break;
    case PROP_GOLD_ITEM_ID:
      g_value_set_string (value, self->gold_item_id);
      break;
    case PROP_GOLD_INDEX:
      g_value_set_uint (value, self->gold_index);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
anot_request_class_init (AnotRequestClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  const GParamFlags flags = G_PARAM_READABLE | G_PARAM_STATIC_STRINGS;

  object_class->finalize = anot_request_finalize;
  object_class->get_property = anot_request_get_property;

  /**
   * AnotRequest:id:
   *
   * The request id, e.g. `"R01"`.
   */
  properties[PROP_ID] = g_param_spec_string ("id", NULL, NULL, NULL, flags);
  /**
   * AnotRequest:group:
   *
   * The request group, e.g. `"G01"`.
   */
  properties[PROP_GROUP] = g_param_spec_string ("group", NULL, NULL, NULL, flags);
  /**
   * AnotRequest:scenario:
   *
   * A short persona label, e.g. `"Busy Parent"`, or %NULL.
   */
  properties[PROP_SCENARIO] = g_param_spec_string ("scenario", NULL, NULL, NULL, flags);
  /**
   * AnotRequest:text:
   *
   * The natural-language request shown to a method.
   */
  properties[PROP_TEXT] = g_param_spec_string ("text", NULL, NULL, NULL, flags);
  /**
   * AnotRequest:shorthand:
   *
   * A compact human-readable form of the logic, e.g.
   * `AND(drive_thru, good_for_kids, no_tv)`, or %NULL.
   */
  properties[PROP_SHORTHAND] = g_param_spec_string ("shorthand", NULL, NULL, NULL, flags);
  /**
   * AnotRequest:structure:
   *
   * The machine-checkable logic of the request.
   */
  properties[PROP_STRUCTURE] = g_param_spec_object ("structure", NULL, NULL,
                                                    ANOT_TYPE_CONDITION, flags);
  /**
   * AnotRequest:gold-item-id:
   *
   * The `business_id` of the gold item.
   */
  properties[PROP_GOLD_ITEM_ID] = g_param_spec_string ("gold-item-id", NULL, NULL, NULL, flags);
  /**
   * AnotRequest:gold-index:
   *
   * The index of the gold item in the dataset.
   */
  properties[PROP_GOLD_INDEX] = g_param_spec_uint ("gold-index", NULL, NULL,
                                                   0, G_MAXUINT, 0, flags);

  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
anot_request_init (AnotRequest *self)
{
}

AnotRequest *
anot_request_new_internal (const char    *id,
                           const char    *group,
                           const char    *scenario,
                           const char    *text,
                           const char    *shorthand,
                           AnotCondition *structure,
                           const char    *gold_item_id,
                           guint          gold_index)
{
  AnotRequest *self;

  g_return_val_if_fail (id != NULL, NULL);
  g_return_val_if_fail (group != NULL, NULL);
  g_return_val_if_fail (text != NULL, NULL);
  g_return_val_if_fail (ANOT_IS_CONDITION (structure), NULL);
  g_return_val_if_fail (gold_item_id != NULL, NULL);

  self = g_object_new (ANOT_TYPE_REQUEST, NULL);
  self->id = g_strdup (id);
  self->group = g_strdup (group);
  self->scenario = g_strdup (scenario);
  self->text = g_strdup (text);
  self->shorthand = g_strdup (shorthand);
  self->structure = g_object_ref (structure);
  self->gold_item_id = g_strdup (gold_item_id);
  self->gold_index = gold_index;

  return self;
}

void
_anot_request_set_gold_index (AnotRequest *self,
                              guint        gold_index)
{
  g_return_if_fail (ANOT_IS_REQUEST (self));

  self->gold_index = gold_index;
}

void
_anot_request_set_gold_status (AnotRequest    *self,
                               AnotGoldStatus  status)
{
  g_return_if_fail (ANOT_IS_REQUEST (self));

  self->gold_status = status;
  self->has_gold_status = TRUE;
}

gboolean
_anot_request_get_gold_status (AnotRequest    *self,
                               AnotGoldStatus *out_status)
{
  g_return_val_if_fail (ANOT_IS_REQUEST (self), FALSE);

  if (self->has_gold_status && out_status != NULL)
    *out_status = self->gold_status;

  return self->has_gold_status;
}

gboolean
_anot_gold_status_from_string (const char     *str,
                               AnotGoldStatus *out_status)
{
  g_return_val_if_fail (str != NULL, FALSE);

  for (guint i = 0; i < G_N_ELEMENTS (gold_status_names); i++)
    {
      if (strcmp (str, gold_status_names[i]) == 0)
        {
          if (out_status != NULL)
            *out_status = (AnotGoldStatus) i;
          return TRUE;
        }
    }

  return FALSE;
}

/**
 * anot_request_get_id:
 * @self: a #AnotRequest
 *
 * Gets the request id, unique within its dataset.
 *
 * Returns: (transfer none): the id
 */
const char *
anot_request_get_id (AnotRequest *self)
{
  g_return_val_if_fail (ANOT_IS_REQUEST (self), NULL);

  return self->id;
}

/**
 * anot_request_get_group:
 * @self: a #AnotRequest
 *
 * Gets the group of the request (requests of a group share a structure
 * shape).
 *
 * Returns: (transfer none): the group
 */
const char *
anot_request_get_group (AnotRequest *self)
{
  g_return_val_if_fail (ANOT_IS_REQUEST (self), NULL);

  return self->group;
}

/**
 * anot_request_get_scenario:
 * @self: a #AnotRequest
 *
 * Gets the persona label of the request.
 *
 * Returns: (transfer none) (nullable): the scenario, or %NULL if the record
 *   has none
 */
const char *
anot_request_get_scenario (AnotRequest *self)
{
  g_return_val_if_fail (ANOT_IS_REQUEST (self), NULL);

  return self->scenario;
}

/**
 * anot_request_get_text:
 * @self: a #AnotRequest
 *
 * Gets the natural-language text of the request, the only part a method
 * sees.
 *
 * Returns: (transfer none): the text
 */
const char *
anot_request_get_text (AnotRequest *self)
{
  g_return_val_if_fail (ANOT_IS_REQUEST (self), NULL);

  return self->text;
}

/**
 * anot_request_get_shorthand:
 * @self: a #AnotRequest
 *
 * Gets the compact human-readable form of the request's logic.  It is a
 * label only: the validator reads #AnotRequest:structure.
 *
 * Returns: (transfer none) (nullable): the shorthand, or %NULL if the record
 *   has none
 */
const char *
anot_request_get_shorthand (AnotRequest *self)
{
  g_return_val_if_fail (ANOT_IS_REQUEST (self), NULL);

  return self->shorthand;
}

/**
 * anot_request_get_structure:
 * @self: a #AnotRequest
 *
 * Gets the logic tree of the request.
 *
 * Returns: (transfer none): the root condition
 */
AnotCondition *
anot_request_get_structure (AnotRequest *self)
{
  g_return_val_if_fail (ANOT_IS_REQUEST (self), NULL);

  return self->structure;
}

/**
 * anot_request_get_gold_item_id:
 * @self: a #AnotRequest
 *
 * Gets the `business_id` of the gold item (`gold_restaurant`).
 *
 * Returns: (transfer none): the item id
 */
const char *
anot_request_get_gold_item_id (AnotRequest *self)
{
  g_return_val_if_fail (ANOT_IS_REQUEST (self), NULL);

  return self->gold_item_id;
}

/**
 * anot_request_get_gold_index:
 * @self: a #AnotRequest
 *
 * Gets the index of the gold item in its dataset (`gold_idx`).
 *
 * Returns: the index
 */
guint
anot_request_get_gold_index (AnotRequest *self)
{
  g_return_val_if_fail (ANOT_IS_REQUEST (self), 0);

  return self->gold_index;
}
