/* anot-completion.c: the result of one LLM call
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "anot-completion-private.h"

/**
 * AnotCompletion:
 *
 * What one LLM call returned: the text, the model that produced it, the
 * token counts the provider reported, the wall time of the call and its
 * cost, why the model stopped, how many times the call was retried, the
 * role it was made for and whether it came from the response cache.
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
  gboolean cost_unknown;    /* no price for the model: cost_usd means nothing */
  char *finish_reason;
  guint retries;
  char *role;
  gboolean cached;
  char *endpoint;
  GStrvBuilder *endpoint_errors;  /* NULL until the first */
  GStrv endpoint_errors_strv;     /* built on demand */
  char *batch_id;
  guint replaced_characters;
  gboolean paid_by_another;
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
  PROP_COST_KNOWN,
  PROP_FINISH_REASON,
  PROP_RETRIES,
  PROP_ROLE,
  PROP_CACHED,
  PROP_BATCH_ID,
  PROP_REPLACED_CHARACTERS,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

static void
anot_completion_finalize (GObject *object)
{
  AnotCompletion *self = ANOT_COMPLETION (object);

  g_free (self->model);
  g_free (self->text);
  g_free (self->finish_reason);
  g_free (self->role);
  g_free (self->endpoint);
  g_clear_pointer (&self->endpoint_errors, g_strv_builder_unref);
  g_strfreev (self->endpoint_errors_strv);
  g_free (self->batch_id);

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
    case PROP_COST_KNOWN:
      g_value_set_boolean (value, !self->cost_unknown);
      break;
    case PROP_FINISH_REASON:
      g_value_set_string (value, self->finish_reason);
      break;
    case PROP_RETRIES:
      g_value_set_uint (value, self->retries);
      break;
    case PROP_ROLE:
      g_value_set_string (value, self->role);
      break;
    case PROP_CACHED:
      g_value_set_boolean (value, self->cached);
      break;
    case PROP_BATCH_ID:
      g_value_set_string (value, self->batch_id);
      break;
    case PROP_REPLACED_CHARACTERS:
      g_value_set_uint (value, self->replaced_characters);
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
    case PROP_COST_KNOWN:
      anot_completion_set_cost_known (self, g_value_get_boolean (value));
      break;
    case PROP_FINISH_REASON:
      anot_completion_set_finish_reason (self, g_value_get_string (value));
      break;
    case PROP_RETRIES:
      anot_completion_set_retries (self, g_value_get_uint (value));
      break;
    case PROP_ROLE:
      anot_completion_set_role (self, g_value_get_string (value));
      break;
    case PROP_CACHED:
      anot_completion_set_cached (self, g_value_get_boolean (value));
      break;
    case PROP_BATCH_ID:
      anot_completion_set_batch_id (self, g_value_get_string (value));
      break;
    case PROP_REPLACED_CHARACTERS:
      anot_completion_set_replaced_characters (self, g_value_get_uint (value));
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
   * Cost of the call in US dollars; meaningless (0) when
   * [property@Anot.Completion:cost-known] is %FALSE.
   */
  properties[PROP_COST_USD] =
    g_param_spec_double ("cost-usd", NULL, NULL, 0, G_MAXDOUBLE, 0,
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  /**
   * AnotCompletion:cost-known:
   *
   * %FALSE when the call's model has no price (neither in the built-in
   * table nor in `[prices]` of config.ini): its cost is unknown, never a
   * default price.  [class@Anot.Usage] counts such calls as
   * [property@Anot.Usage:unpriced-calls].
   */
  properties[PROP_COST_KNOWN] =
    g_param_spec_boolean ("cost-known", NULL, NULL, TRUE,
                          G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);

  /**
   * AnotCompletion:finish-reason:
   *
   * Why the model stopped, as the provider said it (`stop`, `length`,
   * `end_turn`, `max_tokens`, ...).
   */
  properties[PROP_FINISH_REASON] =
    g_param_spec_string ("finish-reason", NULL, NULL, NULL,
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  /**
   * AnotCompletion:retries:
   *
   * How many times the call was retried (rate limits, server errors,
   * timeouts, dropped connections) before it succeeded.
   */
  properties[PROP_RETRIES] =
    g_param_spec_uint ("retries", NULL, NULL, 0, G_MAXUINT, 0,
                       G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  /**
   * AnotCompletion:role:
   *
   * The role the call was made for ("default", "planner", ...), set by the
   * [class@Anot.BackendRouter].
   */
  properties[PROP_ROLE] =
    g_param_spec_string ("role", NULL, NULL, NULL,
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  /**
   * AnotCompletion:cached:
   *
   * Whether the answer was replayed from the response cache rather than
   * asked from the server.  Token counts, latency and cost are those of
   * the original call.
   */
  properties[PROP_CACHED] =
    g_param_spec_boolean ("cached", NULL, NULL, FALSE,
                          G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  /**
   * AnotCompletion:batch-id:
   *
   * The provider's id of the batch that answered the call, or %NULL for
   * a direct call.  Batched calls are priced at the batch price.
   */
  properties[PROP_BATCH_ID] =
    g_param_spec_string ("batch-id", NULL, NULL, NULL,
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  /**
   * AnotCompletion:replaced-characters:
   *
   * How many `\u0000` and lone surrogate escapes the answer's JSON held:
   * valid JSON that C strings and UTF-8 cannot hold, read as U+FFFD
   * (the model's text, not a broken answer).
   */
  properties[PROP_REPLACED_CHARACTERS] =
    g_param_spec_uint ("replaced-characters", NULL, NULL, 0, G_MAXUINT, 0,
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

/**
 * anot_completion_get_cost_known:
 * @self: an #AnotCompletion
 *
 * Returns: %FALSE when the call's model has no price, so that its cost
 *   is unknown
 */
gboolean
anot_completion_get_cost_known (AnotCompletion *self)
{
  g_return_val_if_fail (ANOT_IS_COMPLETION (self), TRUE);
  return !self->cost_unknown;
}

/**
 * anot_completion_set_cost_known:
 * @self: an #AnotCompletion
 * @cost_known: %FALSE when the call's model has no price
 *
 * Sets [property@Anot.Completion:cost-known].
 */
void
anot_completion_set_cost_known (AnotCompletion *self,
                                gboolean        cost_known)
{
  g_return_if_fail (ANOT_IS_COMPLETION (self));
  if (!self->cost_unknown == !!cost_known)
    return;
  self->cost_unknown = !cost_known;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_COST_KNOWN]);
}

/* g_set_str() is GLib 2.76. */
static gboolean
replace_string (char       **slot,
                const char  *value)
{
  if (g_strcmp0 (*slot, value) == 0)
    return FALSE;
  g_free (*slot);
  *slot = g_strdup (value);
  return TRUE;
}

/**
 * anot_completion_get_finish_reason:
 * @self: an #AnotCompletion
 *
 * Returns: (nullable): why the model stopped, as the provider said it
 */
const char *
anot_completion_get_finish_reason (AnotCompletion *self)
{
  g_return_val_if_fail (ANOT_IS_COMPLETION (self), NULL);
  return self->finish_reason;
}

/**
 * anot_completion_set_finish_reason:
 * @self: an #AnotCompletion
 * @finish_reason: (nullable): the provider's reason
 *
 * Sets [property@Anot.Completion:finish-reason].
 */
void
anot_completion_set_finish_reason (AnotCompletion *self,
                                   const char     *finish_reason)
{
  g_return_if_fail (ANOT_IS_COMPLETION (self));
  if (replace_string (&self->finish_reason, finish_reason))
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_FINISH_REASON]);
}

/**
 * anot_completion_get_retries:
 * @self: an #AnotCompletion
 *
 * Returns: how many times the call was retried
 */
guint
anot_completion_get_retries (AnotCompletion *self)
{
  g_return_val_if_fail (ANOT_IS_COMPLETION (self), 0);
  return self->retries;
}

/**
 * anot_completion_set_retries:
 * @self: an #AnotCompletion
 * @retries: the number of retries
 *
 * Sets [property@Anot.Completion:retries].
 */
void
anot_completion_set_retries (AnotCompletion *self,
                             guint           retries)
{
  g_return_if_fail (ANOT_IS_COMPLETION (self));
  if (self->retries == retries)
    return;
  self->retries = retries;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_RETRIES]);
}

/**
 * anot_completion_get_role:
 * @self: an #AnotCompletion
 *
 * Returns: (nullable): the role the call was made for
 */
const char *
anot_completion_get_role (AnotCompletion *self)
{
  g_return_val_if_fail (ANOT_IS_COMPLETION (self), NULL);
  return self->role;
}

/**
 * anot_completion_set_role:
 * @self: an #AnotCompletion
 * @role: (nullable): a role name
 *
 * Sets [property@Anot.Completion:role].
 */
void
anot_completion_set_role (AnotCompletion *self,
                          const char     *role)
{
  g_return_if_fail (ANOT_IS_COMPLETION (self));
  if (replace_string (&self->role, role))
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_ROLE]);
}

/**
 * anot_completion_get_cached:
 * @self: an #AnotCompletion
 *
 * Returns: whether the answer came from the response cache
 */
gboolean
anot_completion_get_cached (AnotCompletion *self)
{
  g_return_val_if_fail (ANOT_IS_COMPLETION (self), FALSE);
  return self->cached;
}

/**
 * anot_completion_set_cached:
 * @self: an #AnotCompletion
 * @cached: whether the answer came from the response cache
 *
 * Sets [property@Anot.Completion:cached].
 */
void
anot_completion_set_cached (AnotCompletion *self,
                            gboolean        cached)
{
  g_return_if_fail (ANOT_IS_COMPLETION (self));
  cached = !!cached;
  if (self->cached == cached)
    return;
  self->cached = cached;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_CACHED]);
}

/**
 * anot_completion_get_endpoint:
 * @self: an #AnotCompletion
 *
 * The endpoint that answered, when the backend spreads calls over several
 * (see [property@Anot.HttpBackend:base-url]); %NULL otherwise, so results
 * of a single-endpoint run do not change.
 *
 * Returns: (nullable): the base URL of the endpoint, or %NULL
 */
const char *
anot_completion_get_endpoint (AnotCompletion *self)
{
  g_return_val_if_fail (ANOT_IS_COMPLETION (self), NULL);
  return self->endpoint;
}

/**
 * anot_completion_set_endpoint:
 * @self: an #AnotCompletion
 * @endpoint: (nullable): the base URL of the endpoint that answered
 *
 * Records which of several endpoints answered.
 */
void
anot_completion_set_endpoint (AnotCompletion *self,
                              const char     *endpoint)
{
  g_return_if_fail (ANOT_IS_COMPLETION (self));
  g_free (self->endpoint);
  self->endpoint = g_strdup (endpoint);
}

/**
 * anot_completion_add_endpoint_error:
 * @self: an #AnotCompletion
 * @endpoint: the base URL of an endpoint where an attempt of this call failed
 *
 * Records a failed attempt on one of several endpoints before the answer;
 * [class@Anot.Usage] counts them as that endpoint's errors.
 */
void
anot_completion_add_endpoint_error (AnotCompletion *self,
                                    const char     *endpoint)
{
  g_return_if_fail (ANOT_IS_COMPLETION (self));
  g_return_if_fail (endpoint != NULL);
  if (self->endpoint_errors == NULL)
    self->endpoint_errors = g_strv_builder_new ();
  g_strv_builder_add (self->endpoint_errors, endpoint);
  g_clear_pointer (&self->endpoint_errors_strv, g_strfreev);
}

/**
 * anot_completion_get_endpoint_errors:
 * @self: an #AnotCompletion
 *
 * Returns: (transfer none) (nullable) (array zero-terminated=1): the
 *   endpoints of the failed attempts, in order, or %NULL when none failed
 */
const char * const *
anot_completion_get_endpoint_errors (AnotCompletion *self)
{
  g_return_val_if_fail (ANOT_IS_COMPLETION (self), NULL);
  if (self->endpoint_errors == NULL)
    return NULL;
  if (self->endpoint_errors_strv == NULL)
    {
      /* g_strv_builder_end() empties the builder: refill it. */
      self->endpoint_errors_strv = g_strv_builder_end (self->endpoint_errors);
      g_strv_builder_addv (self->endpoint_errors, (const char **) self->endpoint_errors_strv);
    }
  return (const char * const *) self->endpoint_errors_strv;
}

/**
 * anot_completion_get_batch_id:
 * @self: an #AnotCompletion
 *
 * Returns: (nullable): the id of the provider batch that answered the
 *   call, %NULL for a direct call
 */
const char *
anot_completion_get_batch_id (AnotCompletion *self)
{
  g_return_val_if_fail (ANOT_IS_COMPLETION (self), NULL);
  return self->batch_id;
}

/**
 * anot_completion_set_batch_id:
 * @self: an #AnotCompletion
 * @batch_id: (nullable): the id of the provider batch that answered the
 *   call
 *
 * Sets [property@Anot.Completion:batch-id].
 */
void
anot_completion_set_batch_id (AnotCompletion *self,
                              const char     *batch_id)
{
  g_return_if_fail (ANOT_IS_COMPLETION (self));
  if (g_strcmp0 (self->batch_id, batch_id) == 0)
    return;
  g_free (self->batch_id);
  self->batch_id = g_strdup (batch_id);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_BATCH_ID]);
}

/**
 * anot_completion_get_replaced_characters:
 * @self: an #AnotCompletion
 *
 * Returns: the number of escapes of the answer read as U+FFFD
 */
guint
anot_completion_get_replaced_characters (AnotCompletion *self)
{
  g_return_val_if_fail (ANOT_IS_COMPLETION (self), 0);
  return self->replaced_characters;
}

/**
 * anot_completion_set_replaced_characters:
 * @self: an #AnotCompletion
 * @n: the number of escapes of the answer read as U+FFFD
 */
void
anot_completion_set_replaced_characters (AnotCompletion *self,
                                         guint           n)
{
  g_return_if_fail (ANOT_IS_COMPLETION (self));
  if (self->replaced_characters == n)
    return;
  self->replaced_characters = n;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_REPLACED_CHARACTERS]);
}

void
anot_completion_set_paid_by_another (AnotCompletion *self,
                                     gboolean        paid_by_another)
{
  g_return_if_fail (ANOT_IS_COMPLETION (self));
  self->paid_by_another = !!paid_by_another;
}

gboolean
anot_completion_get_paid_by_another (AnotCompletion *self)
{
  g_return_val_if_fail (ANOT_IS_COMPLETION (self), FALSE);
  return self->paid_by_another;
}
