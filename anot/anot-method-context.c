/* anot-method-context.c: what a method gets besides the request
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "anot-method-context.h"

#include <stdlib.h>

/**
 * AnotMethodContext:
 *
 * Per-request context handed to [method@Anot.Method.rank_async]: the
 * dataset, the request id, the seed of every random choice the method makes
 * for this request, string options (`--method-option key=value`), the
 * validator (for the oracle and analysis) and the [class@Anot.Usage] that
 * LLM calls made for this request are counted in.
 *
 * One context is created per (request, candidate count, run), so a method
 * may keep request-scoped state in it through g_object_set_data().
 */

struct _AnotMethodContext
{
  GObject parent_instance;

  AnotDataset *dataset;
  AnotValidator *validator;
  char *request_id;
  guint64 seed;
  AnotUsage *usage;
  GHashTable *options;
};

G_DEFINE_FINAL_TYPE (AnotMethodContext, anot_method_context, G_TYPE_OBJECT)

enum {
  PROP_0,
  PROP_DATASET,
  PROP_REQUEST_ID,
  PROP_SEED,
  PROP_VALIDATOR,
  PROP_USAGE,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

static void
anot_method_context_finalize (GObject *object)
{
  AnotMethodContext *self = ANOT_METHOD_CONTEXT (object);

  g_clear_object (&self->dataset);
  g_clear_object (&self->validator);
  g_clear_object (&self->usage);
  g_free (self->request_id);
  g_hash_table_unref (self->options);

  G_OBJECT_CLASS (anot_method_context_parent_class)->finalize (object);
}

static void
anot_method_context_get_property (GObject    *object,
                                  guint       prop_id,
                                  GValue     *value,
                                  GParamSpec *pspec)
{
  AnotMethodContext *self = ANOT_METHOD_CONTEXT (object);

  switch (prop_id)
    {
    case PROP_DATASET:
      g_value_set_object (value, self->dataset);
      break;
    case PROP_REQUEST_ID:
      g_value_set_string (value, self->request_id);
      break;
    case PROP_SEED:
      g_value_set_uint64 (value, self->seed);
      break;
    case PROP_VALIDATOR:
      g_value_set_object (value, anot_method_context_get_validator (self));
      break;
    case PROP_USAGE:
      g_value_set_object (value, self->usage);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
anot_method_context_set_property (GObject      *object,
                                  guint         prop_id,
                                  const GValue *value,
                                  GParamSpec   *pspec)
{
  AnotMethodContext *self = ANOT_METHOD_CONTEXT (object);

  switch (prop_id)
    {
    case PROP_DATASET:
      self->dataset = g_value_dup_object (value);
      break;
    case PROP_REQUEST_ID:
      self->request_id = g_value_dup_string (value);
      break;
    case PROP_SEED:
      self->seed = g_value_get_uint64 (value);
      break;
    case PROP_VALIDATOR:
      anot_method_context_set_validator (self, g_value_get_object (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
anot_method_context_class_init (AnotMethodContextClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = anot_method_context_finalize;
  object_class->get_property = anot_method_context_get_property;
  object_class->set_property = anot_method_context_set_property;

  /**
   * AnotMethodContext:dataset:
   *
   * The dataset the request belongs to.
   */
  properties[PROP_DATASET] =
    g_param_spec_object ("dataset", NULL, NULL, ANOT_TYPE_DATASET,
                         G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS);
  /**
   * AnotMethodContext:request-id:
   *
   * The id of the request being ranked.
   */
  properties[PROP_REQUEST_ID] =
    g_param_spec_string ("request-id", NULL, NULL, NULL,
                         G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS);
  /**
   * AnotMethodContext:seed:
   *
   * The seed of the method's random choices for this request.  The
   * experiment derives it from the run seed and the request, so it does not
   * depend on the order in which requests run.
   */
  properties[PROP_SEED] =
    g_param_spec_uint64 ("seed", NULL, NULL, 0, G_MAXUINT64, 0,
                         G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS);
  /**
   * AnotMethodContext:validator:
   *
   * The validator of the dataset; created on first use when not set.
   */
  properties[PROP_VALIDATOR] =
    g_param_spec_object ("validator", NULL, NULL, ANOT_TYPE_VALIDATOR,
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  /**
   * AnotMethodContext:usage:
   *
   * LLM usage of this request; methods add every completion to it.
   */
  properties[PROP_USAGE] =
    g_param_spec_object ("usage", NULL, NULL, ANOT_TYPE_USAGE,
                         G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);

  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
anot_method_context_init (AnotMethodContext *self)
{
  self->usage = anot_usage_new ();
  self->options = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
}

/**
 * anot_method_context_new:
 * @dataset: the dataset the request belongs to
 * @request_id: the request's id
 * @seed: the seed of the method's random choices for this request
 *
 * Returns: (transfer full): a new context
 */
AnotMethodContext *
anot_method_context_new (AnotDataset *dataset,
                         const char  *request_id,
                         guint64      seed)
{
  g_return_val_if_fail (ANOT_IS_DATASET (dataset), NULL);
  g_return_val_if_fail (request_id != NULL, NULL);

  return g_object_new (ANOT_TYPE_METHOD_CONTEXT,
                       "dataset", dataset,
                       "request-id", request_id,
                       "seed", seed,
                       NULL);
}

/**
 * anot_method_context_get_dataset:
 * @self: an #AnotMethodContext
 *
 * Returns: (transfer none): the dataset
 */
AnotDataset *
anot_method_context_get_dataset (AnotMethodContext *self)
{
  g_return_val_if_fail (ANOT_IS_METHOD_CONTEXT (self), NULL);
  return self->dataset;
}

/**
 * anot_method_context_get_validator:
 * @self: an #AnotMethodContext
 *
 * Returns the validator of the context's dataset, creating one if none was
 * set.  Experiments set one validator shared by all requests so its caches
 * are reused.
 *
 * Returns: (transfer none): the validator
 */
AnotValidator *
anot_method_context_get_validator (AnotMethodContext *self)
{
  g_return_val_if_fail (ANOT_IS_METHOD_CONTEXT (self), NULL);

  if (self->validator == NULL)
    self->validator = anot_validator_new (self->dataset);
  return self->validator;
}

/**
 * anot_method_context_set_validator:
 * @self: an #AnotMethodContext
 * @validator: (nullable): a validator of the same dataset
 *
 * Sets [property@Anot.MethodContext:validator].
 */
void
anot_method_context_set_validator (AnotMethodContext *self,
                                   AnotValidator     *validator)
{
  g_return_if_fail (ANOT_IS_METHOD_CONTEXT (self));
  g_return_if_fail (validator == NULL || ANOT_IS_VALIDATOR (validator));

  if (g_set_object (&self->validator, validator))
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_VALIDATOR]);
}

/**
 * anot_method_context_get_request_id:
 * @self: an #AnotMethodContext
 *
 * Returns: the request id
 */
const char *
anot_method_context_get_request_id (AnotMethodContext *self)
{
  g_return_val_if_fail (ANOT_IS_METHOD_CONTEXT (self), NULL);
  return self->request_id;
}

/**
 * anot_method_context_get_seed:
 * @self: an #AnotMethodContext
 *
 * Returns: the seed of the method's random choices for this request
 */
guint64
anot_method_context_get_seed (AnotMethodContext *self)
{
  g_return_val_if_fail (ANOT_IS_METHOD_CONTEXT (self), 0);
  return self->seed;
}

/**
 * anot_method_context_get_usage:
 * @self: an #AnotMethodContext
 *
 * Returns: (transfer none): the usage record of this request
 */
AnotUsage *
anot_method_context_get_usage (AnotMethodContext *self)
{
  g_return_val_if_fail (ANOT_IS_METHOD_CONTEXT (self), NULL);
  return self->usage;
}

/**
 * anot_method_context_get_option:
 * @self: an #AnotMethodContext
 * @key: an option name, conventionally `<method>.<name>`
 *
 * Returns: (nullable): the option's value, or %NULL when not set
 */
const char *
anot_method_context_get_option (AnotMethodContext *self,
                                const char        *key)
{
  g_return_val_if_fail (ANOT_IS_METHOD_CONTEXT (self), NULL);
  g_return_val_if_fail (key != NULL, NULL);
  return g_hash_table_lookup (self->options, key);
}

/**
 * anot_method_context_set_option:
 * @self: an #AnotMethodContext
 * @key: an option name
 * @value: (nullable): its value, or %NULL to unset it
 *
 * Sets a string option for the method.
 */
void
anot_method_context_set_option (AnotMethodContext *self,
                                const char        *key,
                                const char        *value)
{
  g_return_if_fail (ANOT_IS_METHOD_CONTEXT (self));
  g_return_if_fail (key != NULL);

  if (value == NULL)
    g_hash_table_remove (self->options, key);
  else
    g_hash_table_insert (self->options, g_strdup (key), g_strdup (value));
}

static int
compare_strings (gconstpointer a,
                 gconstpointer b)
{
  return g_strcmp0 (*(const char * const *) a, *(const char * const *) b);
}

/**
 * anot_method_context_list_options:
 * @self: an #AnotMethodContext
 *
 * Returns: (transfer full) (array zero-terminated=1): the names of the
 *   options that are set, sorted
 */
char **
anot_method_context_list_options (AnotMethodContext *self)
{
  char **keys;
  guint n_keys;

  g_return_val_if_fail (ANOT_IS_METHOD_CONTEXT (self), NULL);

  keys = (char **) g_hash_table_get_keys_as_array (self->options, &n_keys);
  for (guint i = 0; i < n_keys; i++)
    keys[i] = g_strdup (keys[i]);
  qsort (keys, n_keys, sizeof (char *), compare_strings);
  return keys;
}
