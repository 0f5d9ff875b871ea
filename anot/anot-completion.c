/* anot-completion.c: the result of one LLM call
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "anot-completion.h"

/**
 * AnotCompletion:
 *
 * What one LLM call returned: the text, the model that produced it, the
 * token counts the provider reported, the wall time of the call and its
 * cost.
 */

struct _AnotCompletion
{
  GObject parent_instance;

  char *model;
  char *text;
  guint64 prompt_tokens;
  guint64 completion_tokens;
  double latency_ms;
  double cost_usd;
};

G_DEFINE_FINAL_TYPE (AnotCompletion, anot_completion, G_TYPE_OBJECT)

enum {
  PROP_0,
  PROP_MODEL,
  PROP_TEXT,
  PROP_PROMPT_TOKENS,
  PROP_COMPLETION_TOKENS,
  PROP_LATENCY_MS,
  PROP_COST_USD,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

static void
anot_completion_finalize (GObject *object)
{
  AnotCompletion *self = ANOT_COMPLETION (object);

  g_free (self->model);
  g_free (self->text);

  G_OBJECT_CLASS (anot_completion_parent_class)->finalize (object);
}

static void
anot_completion_get_property (GObject    *object,
                              guint       prop_id,
                              GValue     *value,
                              GParamSpec *pspec)
{
  AnotCompletion *self = ANOT_COMPLETION (object);

  switch (prop_id)
    {
    case PROP_MODEL:
      g_value_set_string (value, self->model);
      break;
    case PROP_TEXT:
      g_value_set_string (value, self->text);
      break;
    case PROP_PROMPT_TOKENS:
      g_value_set_uint64 (value, self->prompt_tokens);
      break;
    case PROP_COMPLETION_TOKENS:
      g_value_set_uint64 (value, self->completion_tokens);
      break;
    case PROP_LATENCY_MS:
      g_value_set_double (value, self->latency_ms);
      break;
    case PROP_COST_USD:
      g_value_set_double (value, self->cost_usd);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
anot_completion_set_property (GObject      *object,
                              guint         prop_id,
                              const GValue *value,
                              GParamSpec   *pspec)
{
  AnotCompletion *self = ANOT_COMPLETION (object);

  switch (prop_id)
    {
    case PROP_MODEL:
      g_free (self->model);
      self->model = g_value_dup_string (value);
      break;
    case PROP_TEXT:
      g_free (self->text);
      self->text = g_value_dup_string (value);
      break;
    case PROP_PROMPT_TOKENS:
      self->prompt_tokens = g_value_get_uint64 (value);
      break;
    case PROP_COMPLETION_TOKENS:
      self->completion_tokens = g_value_get_uint64 (value);
      break;
    case PROP_LATENCY_MS:
      self->latency_ms = g_value_get_double (value);
      break;
    case PROP_COST_USD:
      self->cost_usd = g_value_get_double (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
anot_completion_class_init (AnotCompletionClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = anot_completion_finalize;
  object_class->get_property = anot_completion_get_property;
  object_class->set_property = anot_completion_set_property;

  /**
   * AnotCompletion:model:
   *
   * The model that produced the completion, as the provider named it.
   */
  properties[PROP_MODEL] =
    g_param_spec_string ("model", NULL, NULL, NULL,
                         G_PARAM_READWRITE | G_PARAM_CONSTRUCT | G_PARAM_STATIC_STRINGS);
  /**
   * AnotCompletion:text:
   *
   * The completion text.
   */
  properties[PROP_TEXT] =
    g_param_spec_string ("text", NULL, NULL, NULL,
                         G_PARAM_READWRITE | G_PARAM_CONSTRUCT | G_PARAM_STATIC_STRINGS);
  /**
   * AnotCompletion:prompt-tokens:
   *
   * Prompt (input) tokens as reported by the provider.
   */
  properties[PROP_PROMPT_TOKENS] =
    g_param_spec_uint64 ("prompt-tokens", NULL, NULL, 0, G_MAXUINT64, 0,
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  /**
   * AnotCompletion:completion-tokens:
   *
   * Completion (output) tokens as reported by the provider, reasoning tokens
   * included where the provider counts them.
   */
  properties[PROP_COMPLETION_TOKENS] =
    g_param_spec_uint64 ("completion-tokens", NULL, NULL, 0, G_MAXUINT64, 0,
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  /**
   * AnotCompletion:latency-ms:
   *
   * Wall time of the call in milliseconds.
   */
  properties[PROP_LATENCY_MS] =
    g_param_spec_double ("latency-ms", NULL, NULL, 0, G_MAXDOUBLE, 0,
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  /**
   * AnotCompletion:cost-usd:
   *
   * Cost of the call in US dollars.
   */
  properties[PROP_COST_USD] =
    g_param_spec_double ("cost-usd", NULL, NULL, 0, G_MAXDOUBLE, 0,
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);

  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
anot_completion_init (AnotCompletion *self)
{
}

/**
 * anot_completion_new:
 * @model: (nullable): the model name
 * @text: (nullable): the completion text
 *
 * Returns: (transfer full): a new completion with zero usage
 */
AnotCompletion *
anot_completion_new (const char *model,
                     const char *text)
{
  return g_object_new (ANOT_TYPE_COMPLETION, "model", model, "text", text, NULL);
}

/**
 * anot_completion_get_model:
 * @self: an #AnotCompletion
 *
 * Returns: (nullable): the model name
 */
const char *
anot_completion_get_model (AnotCompletion *self)
{
  g_return_val_if_fail (ANOT_IS_COMPLETION (self), NULL);
  return self->model;
}

/**
 * anot_completion_get_text:
 * @self: an #AnotCompletion
 *
 * Returns: (nullable): the completion text
 */
const char *
anot_completion_get_text (AnotCompletion *self)
{
  g_return_val_if_fail (ANOT_IS_COMPLETION (self), NULL);
  return self->text;
}

/**
 * anot_completion_get_prompt_tokens:
 * @self: an #AnotCompletion
 *
 * Returns: the prompt token count
 */
guint64
anot_completion_get_prompt_tokens (AnotCompletion *self)
{
  g_return_val_if_fail (ANOT_IS_COMPLETION (self), 0);
  return self->prompt_tokens;
}

/**
 * anot_completion_set_prompt_tokens:
 * @self: an #AnotCompletion
 * @tokens: the prompt token count
 *
 * Sets [property@Anot.Completion:prompt-tokens].
 */
void
anot_completion_set_prompt_tokens (AnotCompletion *self,
                                   guint64         tokens)
{
  g_return_if_fail (ANOT_IS_COMPLETION (self));
  if (self->prompt_tokens == tokens)
    return;
  self->prompt_tokens = tokens;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_PROMPT_TOKENS]);
}

/**
 * anot_completion_get_completion_tokens:
 * @self: an #AnotCompletion
 *
 * Returns: the completion token count
 */
guint64
anot_completion_get_completion_tokens (AnotCompletion *self)
{
  g_return_val_if_fail (ANOT_IS_COMPLETION (self), 0);
  return self->completion_tokens;
}

/**
 * anot_completion_set_completion_tokens:
 * @self: an #AnotCompletion
 * @tokens: the completion token count
 *
 * Sets [property@Anot.Completion:completion-tokens].
 */
void
anot_completion_set_completion_tokens (AnotCompletion *self,
                                       guint64         tokens)
{
  g_return_if_fail (ANOT_IS_COMPLETION (self));
  if (self->completion_tokens == tokens)
    return;
  self->completion_tokens = tokens;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_COMPLETION_TOKENS]);
}

/**
 * anot_completion_get_latency_ms:
 * @self: an #AnotCompletion
 *
 * Returns: the wall time of the call in milliseconds
 */
double
anot_completion_get_latency_ms (AnotCompletion *self)
{
  g_return_val_if_fail (ANOT_IS_COMPLETION (self), 0);
  return self->latency_ms;
}

/**
 * anot_completion_set_latency_ms:
 * @self: an #AnotCompletion
 * @latency_ms: the wall time of the call in milliseconds
 *
 * Sets [property@Anot.Completion:latency-ms].
 */
void
anot_completion_set_latency_ms (AnotCompletion *self,
                                double          latency_ms)
{
  g_return_if_fail (ANOT_IS_COMPLETION (self));
  if (self->latency_ms == latency_ms)
    return;
  self->latency_ms = latency_ms;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_LATENCY_MS]);
}

/**
 * anot_completion_get_cost_usd:
 * @self: an #AnotCompletion
 *
 * Returns: the cost of the call in US dollars
 */
double
anot_completion_get_cost_usd (AnotCompletion *self)
{
  g_return_val_if_fail (ANOT_IS_COMPLETION (self), 0);
  return self->cost_usd;
}

/**
 * anot_completion_set_cost_usd:
 * @self: an #AnotCompletion
 * @cost_usd: the cost in US dollars
 *
 * Sets [property@Anot.Completion:cost-usd].
 */
void
anot_completion_set_cost_usd (AnotCompletion *self,
                              double          cost_usd)
{
  g_return_if_fail (ANOT_IS_COMPLETION (self));
  if (self->cost_usd == cost_usd)
    return;
  self->cost_usd = cost_usd;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_COST_USD]);
}
