/* anot-query.c: the part of a request a method may see
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "anot-query.h"

/**
 * AnotQuery:
 *
 * What a ranking method is told about a request: its id, its group and the
 * natural-language text — nothing else.  The hidden structure, the gold
 * item and the validator stay with the experiment (see [class@Anot.Request]),
 * so a method cannot rank by the answer even by accident.  A method that
 * must see the truth (the `oracle` baseline) says so when it registers
 * (%ANOT_PLUGIN_NEEDS_TRUTH) and then finds it in its
 * [class@Anot.MethodContext].
 *
 * Queries are immutable.
 */

struct _AnotQuery
{
  GObject parent_instance;

  char *id;
  char *group;
  char *text;
};

G_DEFINE_FINAL_TYPE (AnotQuery, anot_query, G_TYPE_OBJECT)

enum {
  PROP_0,
  PROP_ID,
  PROP_GROUP,
  PROP_TEXT,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

static void
anot_query_finalize (GObject *object)
{
  AnotQuery *self = ANOT_QUERY (object);

  g_free (self->id);
  g_free (self->group);
  g_free (self->text);

  G_OBJECT_CLASS (anot_query_parent_class)->finalize (object);
}

static void
anot_query_get_property (GObject    *object,
                         guint       prop_id,
                         GValue     *value,
                         GParamSpec *pspec)
{
  AnotQuery *self = ANOT_QUERY (object);

  switch (prop_id)
    {
    case PROP_ID:
      g_value_set_string (value, self->id);
      break;
    case PROP_GROUP:
      g_value_set_string (value, self->group);
      break;
    case PROP_TEXT:
      g_value_set_string (value, self->text);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
anot_query_set_property (GObject      *object,
                         guint         prop_id,
                         const GValue *value,
                         GParamSpec   *pspec)
{
  AnotQuery *self = ANOT_QUERY (object);

  switch (prop_id)
    {
    case PROP_ID:
      self->id = g_value_dup_string (value);
      break;
    case PROP_GROUP:
      self->group = g_value_dup_string (value);
      break;
    case PROP_TEXT:
      self->text = g_value_dup_string (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
anot_query_class_init (AnotQueryClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  const GParamFlags flags = G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS;

  object_class->finalize = anot_query_finalize;
  object_class->get_property = anot_query_get_property;
  object_class->set_property = anot_query_set_property;

  /**
   * AnotQuery:id:
   *
   * The request id, e.g. `"R01"`.
   */
  properties[PROP_ID] = g_param_spec_string ("id", NULL, NULL, NULL, flags);
  /**
   * AnotQuery:group:
   *
   * The request's group, e.g. `"G01"`, or %NULL.
   */
  properties[PROP_GROUP] = g_param_spec_string ("group", NULL, NULL, NULL, flags);
  /**
   * AnotQuery:text:
   *
   * The natural-language request.
   */
  properties[PROP_TEXT] = g_param_spec_string ("text", NULL, NULL, NULL, flags);

  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
anot_query_init (AnotQuery *self)
{
}

/**
 * anot_query_new:
 * @id: the request id
 * @group: (nullable): the request's group
 * @text: the natural-language request
 *
 * Returns: (transfer full): a new query
 */
AnotQuery *
anot_query_new (const char *id,
                const char *group,
                const char *text)
{
  g_return_val_if_fail (id != NULL, NULL);
  g_return_val_if_fail (text != NULL, NULL);

  return g_object_new (ANOT_TYPE_QUERY, "id", id, "group", group, "text", text, NULL);
}

/**
 * anot_query_new_for_request:
 * @request: a benchmark request
 *
 * Copies what a method may see of @request: its id, group and text.  The
 * query keeps no reference to @request.
 *
 * Returns: (transfer full): a new query
 */
AnotQuery *
anot_query_new_for_request (AnotRequest *request)
{
  g_return_val_if_fail (ANOT_IS_REQUEST (request), NULL);

  return anot_query_new (anot_request_get_id (request),
                         anot_request_get_group (request),
                         anot_request_get_text (request));
}

/**
 * anot_query_get_id:
 * @self: an #AnotQuery
 *
 * Returns: the request id
 */
const char *
anot_query_get_id (AnotQuery *self)
{
  g_return_val_if_fail (ANOT_IS_QUERY (self), NULL);
  return self->id;
}

/**
 * anot_query_get_group:
 * @self: an #AnotQuery
 *
 * Returns: (nullable): the request's group
 */
const char *
anot_query_get_group (AnotQuery *self)
{
  g_return_val_if_fail (ANOT_IS_QUERY (self), NULL);
  return self->group;
}

/**
 * anot_query_get_text:
 * @self: an #AnotQuery
 *
 * Returns: the natural-language request
 */
const char *
anot_query_get_text (AnotQuery *self)
{
  g_return_val_if_fail (ANOT_IS_QUERY (self), NULL);
  return self->text;
}
