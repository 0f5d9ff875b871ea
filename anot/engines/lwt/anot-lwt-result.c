/* anot-lwt-result.c: what an LWT execution produced, step by step
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "anot-lwt-result.h"

#include "anot-lwt-private.h"

/**
 * AnotLwtResult:
 *
 * The outcome of running an [class@Anot.LwtScript] with an
 * [class@Anot.LwtExecutor]: for every step its output, the prompt that
 * was sent, its latency and tokens, and the error if its call failed; for
 * the whole execution the wall time and the most calls that were in
 * flight at once.
 *
 * A step whose call failed has an error and, as output, the executor's
 * failure text (see [property@Anot.LwtExecutor:failure-output]).  Steps
 * are named by their ids; asking about an id the script does not have is
 * a programming error.
 */

struct _AnotLwtResult
{
  GObject parent_instance;

  AnotLwtScript     *script;
  AnotLwtStepRecord *records;        /* one per step, script order */
  guint              n_records;
  GHashTable        *position_of;    /* id -> position + 1 */
  double             wall_ms;
  guint              max_in_flight;
};

G_DEFINE_FINAL_TYPE (AnotLwtResult, anot_lwt_result, G_TYPE_OBJECT)

enum {
  PROP_0,
  PROP_SCRIPT,
  PROP_FINAL_OUTPUT,
  PROP_N_FAILED,
  PROP_N_CALLS,
  PROP_MAX_IN_FLIGHT,
  PROP_WALL_MS,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

static void
anot_lwt_result_finalize (GObject *object)
{
  AnotLwtResult *self = ANOT_LWT_RESULT (object);

  for (guint i = 0; i < self->n_records; i++)
    {
      g_free (self->records[i].output);
      g_free (self->records[i].error);
      g_free (self->records[i].prompt);
    }
  g_free (self->records);
  g_hash_table_unref (self->position_of);
  g_clear_object (&self->script);

  G_OBJECT_CLASS (anot_lwt_result_parent_class)->finalize (object);
}

static void
anot_lwt_result_get_property (GObject    *object,
                              guint       prop_id,
                              GValue     *value,
                              GParamSpec *pspec)
{
  AnotLwtResult *self = ANOT_LWT_RESULT (object);

  switch (prop_id)
    {
    case PROP_SCRIPT:
      g_value_set_object (value, self->script);
      break;
    case PROP_FINAL_OUTPUT:
      g_value_set_string (value, anot_lwt_result_get_final_output (self));
      break;
    case PROP_N_FAILED:
      g_value_set_uint (value, anot_lwt_result_get_n_failed (self));
      break;
    case PROP_N_CALLS:
      g_value_set_uint (value, anot_lwt_result_get_n_calls (self));
      break;
    case PROP_MAX_IN_FLIGHT:
      g_value_set_uint (value, self->max_in_flight);
      break;
    case PROP_WALL_MS:
      g_value_set_double (value, self->wall_ms);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
anot_lwt_result_class_init (AnotLwtResultClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = anot_lwt_result_finalize;
  object_class->get_property = anot_lwt_result_get_property;

  /**
   * AnotLwtResult:script:
   *
   * The script that was run.
   */
  properties[PROP_SCRIPT] =
    g_param_spec_object ("script", NULL, NULL, ANOT_TYPE_LWT_SCRIPT,
                         G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);

  /**
   * AnotLwtResult:final-output:
   *
   * The output of the script's output step.
   */
  properties[PROP_FINAL_OUTPUT] =
    g_param_spec_string ("final-output", NULL, NULL, NULL,
                         G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);

  /**
   * AnotLwtResult:n-failed:
   *
   * The number of steps whose call failed.
   */
  properties[PROP_N_FAILED] =
    g_param_spec_uint ("n-failed", NULL, NULL, 0, G_MAXUINT, 0,
                       G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);

  /**
   * AnotLwtResult:n-calls:
   *
   * The number of LLM calls made (steps answered from the executor's
   * cache made none).
   */
  properties[PROP_N_CALLS] =
    g_param_spec_uint ("n-calls", NULL, NULL, 0, G_MAXUINT, 0,
                       G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);

  /**
   * AnotLwtResult:max-in-flight:
   *
   * The most calls that were in flight at the same time.
   */
  properties[PROP_MAX_IN_FLIGHT] =
    g_param_spec_uint ("max-in-flight", NULL, NULL, 0, G_MAXUINT, 0,
                       G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);

  /**
   * AnotLwtResult:wall-ms:
   *
   * The execution's wall time in milliseconds.
   */
  properties[PROP_WALL_MS] =
    g_param_spec_double ("wall-ms", NULL, NULL, 0, G_MAXDOUBLE, 0,
                         G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);

  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
anot_lwt_result_init (AnotLwtResult *self)
{
}

AnotLwtResult *
_anot_lwt_result_new (AnotLwtScript *script)
{
  AnotLwtResult *self = g_object_new (ANOT_TYPE_LWT_RESULT, NULL);

  self->script = g_object_ref (script);
  self->n_records = anot_lwt_script_get_n_steps (script);
  self->records = g_new0 (AnotLwtStepRecord, self->n_records);
  /* Keys are the script's own strings; the result holds the script. */
  self->position_of = g_hash_table_new (g_str_hash, g_str_equal);
  for (guint i = 0; i < self->n_records; i++)
    g_hash_table_insert (self->position_of,
                         (gpointer) anot_lwt_step_get_id (anot_lwt_script_get_step (script, i)),
                         GUINT_TO_POINTER (i + 1));
  return self;
}

AnotLwtStepRecord *
_anot_lwt_result_get_record (AnotLwtResult *self,
                             guint          position)
{
  g_return_val_if_fail (position < self->n_records, NULL);
  return &self->records[position];
}

void
_anot_lwt_result_finish (AnotLwtResult *self,
                         double         wall_ms,
                         guint          max_in_flight)
{
  self->wall_ms = wall_ms;
  self->max_in_flight = max_in_flight;
}

static AnotLwtStepRecord *
lookup (AnotLwtResult *self,
        const char    *id)
{
  guint position = GPOINTER_TO_UINT (g_hash_table_lookup (self->position_of, id));

  if (position > 0)
    return &self->records[position - 1];

  g_critical ("The script has no step “%s”", id);
  return NULL;
}

/**
 * anot_lwt_result_get_script:
 * @self: an #AnotLwtResult
 *
 * Returns: (transfer none): the script that was run
 */
AnotLwtScript *
anot_lwt_result_get_script (AnotLwtResult *self)
{
  g_return_val_if_fail (ANOT_IS_LWT_RESULT (self), NULL);
  return self->script;
}

/**
 * anot_lwt_result_get_output:
 * @self: an #AnotLwtResult
 * @id: a step id
 *
 * Returns: (nullable): the step's output (the failure text if its call
 *   failed), or %NULL if it did not run
 */
const char *
anot_lwt_result_get_output (AnotLwtResult *self,
                            const char    *id)
{
  AnotLwtStepRecord *record;

  g_return_val_if_fail (ANOT_IS_LWT_RESULT (self), NULL);
  g_return_val_if_fail (id != NULL, NULL);

  record = lookup (self, id);
  return record != NULL ? record->output : NULL;
}

/**
 * anot_lwt_result_get_final_output:
 * @self: an #AnotLwtResult
 *
 * Returns: (nullable): the output of the script's output step (see
 *   anot_lwt_script_get_output_step())
 */
const char *
anot_lwt_result_get_final_output (AnotLwtResult *self)
{
  AnotLwtStep *step;

  g_return_val_if_fail (ANOT_IS_LWT_RESULT (self), NULL);

  step = anot_lwt_script_get_output_step (self->script);
  return step != NULL ? anot_lwt_result_get_output (self, anot_lwt_step_get_id (step)) : NULL;
}

/**
 * anot_lwt_result_get_error:
 * @self: an #AnotLwtResult
 * @id: a step id
 *
 * Returns: (nullable): why the step's call failed, or %NULL if it did not
 */
const char *
anot_lwt_result_get_error (AnotLwtResult *self,
                           const char    *id)
{
  AnotLwtStepRecord *record;

  g_return_val_if_fail (ANOT_IS_LWT_RESULT (self), NULL);
  g_return_val_if_fail (id != NULL, NULL);

  record = lookup (self, id);
  return record != NULL ? record->error : NULL;
}

/**
 * anot_lwt_result_get_prompt:
 * @self: an #AnotLwtResult
 * @id: a step id
 *
 * Returns: (nullable): the filled-in prompt sent for the step
 */
const char *
anot_lwt_result_get_prompt (AnotLwtResult *self,
                            const char    *id)
{
  AnotLwtStepRecord *record;

  g_return_val_if_fail (ANOT_IS_LWT_RESULT (self), NULL);
  g_return_val_if_fail (id != NULL, NULL);

  record = lookup (self, id);
  return record != NULL ? record->prompt : NULL;
}

/**
 * anot_lwt_result_get_latency_ms:
 * @self: an #AnotLwtResult
 * @id: a step id
 *
 * Returns: the time from issuing the step's call to its answer, in
 *   milliseconds
 */
double
anot_lwt_result_get_latency_ms (AnotLwtResult *self,
                                const char    *id)
{
  AnotLwtStepRecord *record;

  g_return_val_if_fail (ANOT_IS_LWT_RESULT (self), 0);
  g_return_val_if_fail (id != NULL, 0);

  record = lookup (self, id);
  return record != NULL ? record->latency_ms : 0;
}

/**
 * anot_lwt_result_get_start_ms:
 * @self: an #AnotLwtResult
 * @id: a step id
 *
 * Returns: when the step's call was issued, in milliseconds since the
 *   execution started
 */
double
anot_lwt_result_get_start_ms (AnotLwtResult *self,
                              const char    *id)
{
  AnotLwtStepRecord *record;

  g_return_val_if_fail (ANOT_IS_LWT_RESULT (self), 0);
  g_return_val_if_fail (id != NULL, 0);

  record = lookup (self, id);
  return record != NULL ? record->start_ms : 0;
}

/**
 * anot_lwt_result_get_prompt_tokens:
 * @self: an #AnotLwtResult
 * @id: a step id
 *
 * Returns: the prompt tokens of the step's call
 */
guint64
anot_lwt_result_get_prompt_tokens (AnotLwtResult *self,
                                   const char    *id)
{
  AnotLwtStepRecord *record;

  g_return_val_if_fail (ANOT_IS_LWT_RESULT (self), 0);
  g_return_val_if_fail (id != NULL, 0);

  record = lookup (self, id);
  return record != NULL ? record->prompt_tokens : 0;
}

/**
 * anot_lwt_result_get_completion_tokens:
 * @self: an #AnotLwtResult
 * @id: a step id
 *
 * Returns: the completion tokens of the step's call
 */
guint64
anot_lwt_result_get_completion_tokens (AnotLwtResult *self,
                                       const char    *id)
{
  AnotLwtStepRecord *record;

  g_return_val_if_fail (ANOT_IS_LWT_RESULT (self), 0);
  g_return_val_if_fail (id != NULL, 0);

  record = lookup (self, id);
  return record != NULL ? record->completion_tokens : 0;
}

/**
 * anot_lwt_result_get_cached:
 * @self: an #AnotLwtResult
 * @id: a step id
 *
 * Returns: whether the step was answered without a call of its own,
 *   because another step had the same prompt
 */
gboolean
anot_lwt_result_get_cached (AnotLwtResult *self,
                            const char    *id)
{
  AnotLwtStepRecord *record;

  g_return_val_if_fail (ANOT_IS_LWT_RESULT (self), FALSE);
  g_return_val_if_fail (id != NULL, FALSE);

  record = lookup (self, id);
  return record != NULL && record->cached;
}

/**
 * anot_lwt_result_get_n_failed:
 * @self: an #AnotLwtResult
 *
 * Returns: the number of steps whose call failed
 */
guint
anot_lwt_result_get_n_failed (AnotLwtResult *self)
{
  guint n = 0;

  g_return_val_if_fail (ANOT_IS_LWT_RESULT (self), 0);

  for (guint i = 0; i < self->n_records; i++)
    if (self->records[i].error != NULL)
      n++;
  return n;
}

/**
 * anot_lwt_result_get_n_calls:
 * @self: an #AnotLwtResult
 *
 * Returns: the number of LLM calls made
 */
guint
anot_lwt_result_get_n_calls (AnotLwtResult *self)
{
  guint n = 0;

  g_return_val_if_fail (ANOT_IS_LWT_RESULT (self), 0);

  for (guint i = 0; i < self->n_records; i++)
    if (self->records[i].called)
      n++;
  return n;
}

/**
 * anot_lwt_result_get_max_in_flight:
 * @self: an #AnotLwtResult
 *
 * Returns: the most calls in flight at once
 */
guint
anot_lwt_result_get_max_in_flight (AnotLwtResult *self)
{
  g_return_val_if_fail (ANOT_IS_LWT_RESULT (self), 0);
  return self->max_in_flight;
}

/**
 * anot_lwt_result_get_wall_ms:
 * @self: an #AnotLwtResult
 *
 * Returns: the execution's wall time in milliseconds
 */
double
anot_lwt_result_get_wall_ms (AnotLwtResult *self)
{
  g_return_val_if_fail (ANOT_IS_LWT_RESULT (self), 0);
  return self->wall_ms;
}

/**
 * anot_lwt_result_get_total_prompt_tokens:
 * @self: an #AnotLwtResult
 *
 * Returns: the prompt tokens of every call
 */
guint64
anot_lwt_result_get_total_prompt_tokens (AnotLwtResult *self)
{
  guint64 n = 0;

  g_return_val_if_fail (ANOT_IS_LWT_RESULT (self), 0);

  for (guint i = 0; i < self->n_records; i++)
    n += self->records[i].prompt_tokens;
  return n;
}

/**
 * anot_lwt_result_get_total_completion_tokens:
 * @self: an #AnotLwtResult
 *
 * Returns: the completion tokens of every call
 */
guint64
anot_lwt_result_get_total_completion_tokens (AnotLwtResult *self)
{
  guint64 n = 0;

  g_return_val_if_fail (ANOT_IS_LWT_RESULT (self), 0);

  for (guint i = 0; i < self->n_records; i++)
    n += self->records[i].completion_tokens;
  return n;
}

static char *
cut (const char *text,
     guint       max_length)
{
  const char *end;

  if (max_length == 0 || g_utf8_strlen (text, -1) <= (glong) max_length)
    return g_strdup (text);
  end = g_utf8_offset_to_pointer (text, max_length);
  return g_strndup (text, end - text);
}

/**
 * anot_lwt_result_to_json:
 * @self: an #AnotLwtResult
 * @max_output_length: outputs are cut to this many characters (the
 *   original's traces kept 100); 0 keeps them whole
 *
 * Writes the `step_results` object of an ANoT trace:
 * `{"<id>": {"output": "...", "latency_ms": 812.0, "prompt_tokens": 230,
 * "completion_tokens": 4}}`, plus `"error"` for a failed step and
 * `"cached": true` for a step answered without a call.  Steps that did
 * not run are left out.
 *
 * Returns: (transfer full): a JSON object node
 */
JsonNode *
anot_lwt_result_to_json (AnotLwtResult *self,
                         guint          max_output_length)
{
  g_autoptr(JsonBuilder) builder = json_builder_new ();

  g_return_val_if_fail (ANOT_IS_LWT_RESULT (self), NULL);

  json_builder_begin_object (builder);
  for (guint i = 0; i < self->n_records; i++)
    {
      AnotLwtStepRecord *record = &self->records[i];
      g_autofree char *output = NULL;

      if (!record->done)
        continue;
      output = cut (record->output ? record->output : "", max_output_length);
      json_builder_set_member_name (builder,
                                    anot_lwt_step_get_id (anot_lwt_script_get_step (self->script, i)));
      json_builder_begin_object (builder);
      json_builder_set_member_name (builder, "output");
      json_builder_add_string_value (builder, output);
      json_builder_set_member_name (builder, "latency_ms");
      json_builder_add_double_value (builder, record->latency_ms);
      json_builder_set_member_name (builder, "prompt_tokens");
      json_builder_add_int_value (builder, record->prompt_tokens);
      json_builder_set_member_name (builder, "completion_tokens");
      json_builder_add_int_value (builder, record->completion_tokens);
      if (record->error != NULL)
        {
          json_builder_set_member_name (builder, "error");
          json_builder_add_string_value (builder, record->error);
        }
      if (record->cached)
        {
          json_builder_set_member_name (builder, "cached");
          json_builder_add_boolean_value (builder, TRUE);
        }
      json_builder_end_object (builder);
    }
  json_builder_end_object (builder);

  return json_builder_get_root (builder);
}
