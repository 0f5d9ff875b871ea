/* anot-lwt-executor.c: runs LWT scripts, every ready step at once
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "anot-lwt-executor.h"

#include <string.h>

#include "anot-backend-router.h"
#include "anot-completion.h"
#include "anot-debug-log.h"
#include "anot-error.h"
#include "anot-lwt-private.h"

/**
 * AnotLwtExecutor:
 *
 * Runs [class@Anot.LwtScript]s through the LLM backends of a
 * [class@Anot.MethodContext] (so every call is routed by role, counted in
 * the request's usage and written to the debug log).
 *
 * Scheduling is by data flow: a step is issued as soon as every step it
 * refers to has answered, and every step that is ready is issued at once
 * (up to [property@Anot.LwtExecutor:max-concurrent], if set; the
 * backends keep their own limits).  So the steps of a layer are in flight
 * together, and a step of the next layer does not wait for the slowest
 * step of its predecessor's layer.  Steps caught in a cycle (lenient
 * scripts only) run together once nothing else can.
 *
 * Each step's prompt is its instruction filled in with
 * anot_lwt_step_render(): step outputs and the variables set with
 * anot_lwt_executor_set_variable() (`query`, `context`, ...), values cut
 * to [property@Anot.LwtExecutor:max-value-length], the prompt to
 * [property@Anot.LwtExecutor:max-prompt-length].  Outputs are cached by
 * role and prompt for the executor's lifetime: a step whose prompt was
 * already answered (or is being answered) makes no call.
 *
 * A failed call fails its step only: the step's output becomes the
 * failure text ([property@Anot.LwtExecutor:failure-output]), which the
 * steps that read it see, and the [class@Anot.LwtResult] records the
 * error.  The execution as a whole fails only when it is cancelled.
 */

struct _AnotLwtExecutor
{
  GObject parent_instance;

  AnotMethodContext *context;
  char              *role;
  char              *system_prompt;
  char              *failure_output;
  char              *debug_phase;
  guint              max_value_length;
  guint              max_prompt_length;
  guint              max_concurrent;
  JsonObject        *variables;
  GHashTable        *cache;         /* "role\nprompt" -> CacheEntry */
};

G_DEFINE_FINAL_TYPE (AnotLwtExecutor, anot_lwt_executor, G_TYPE_OBJECT)

enum {
  PROP_0,
  PROP_CONTEXT,
  PROP_ROLE,
  PROP_SYSTEM_PROMPT,
  PROP_FAILURE_OUTPUT,
  PROP_DEBUG_PHASE,
  PROP_MAX_VALUE_LENGTH,
  PROP_MAX_PROMPT_LENGTH,
  PROP_MAX_CONCURRENT,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

/* An answered prompt, or one being answered (waiters get its answer). */
typedef struct {
  gboolean   done;
  char      *output;
  char      *error;
  GPtrArray *waiters;   /* Run* and step position pairs, see Waiter */
} CacheEntry;

typedef struct _Run Run;

typedef struct {
  Run   *run;
  guint  position;
} Waiter;

static void
cache_entry_free (gpointer data)
{
  CacheEntry *entry = data;

  g_free (entry->output);
  g_free (entry->error);
  g_clear_pointer (&entry->waiters, g_ptr_array_unref);
  g_free (entry);
}

static void
anot_lwt_executor_finalize (GObject *object)
{
  AnotLwtExecutor *self = ANOT_LWT_EXECUTOR (object);

  g_clear_object (&self->context);
  g_free (self->role);
  g_free (self->system_prompt);
  g_free (self->failure_output);
  g_free (self->debug_phase);
  json_object_unref (self->variables);
  g_hash_table_unref (self->cache);

  G_OBJECT_CLASS (anot_lwt_executor_parent_class)->finalize (object);
}

static void
anot_lwt_executor_get_property (GObject    *object,
                                guint       prop_id,
                                GValue     *value,
                                GParamSpec *pspec)
{
  AnotLwtExecutor *self = ANOT_LWT_EXECUTOR (object);

  switch (prop_id)
    {
    case PROP_CONTEXT:
      g_value_set_object (value, self->context);
      break;
    case PROP_ROLE:
      g_value_set_string (value, self->role);
      break;
    case PROP_SYSTEM_PROMPT:
      g_value_set_string (value, self->system_prompt);
      break;
    case PROP_FAILURE_OUTPUT:
      g_value_set_string (value, self->failure_output);
      break;
    case PROP_DEBUG_PHASE:
      g_value_set_string (value, self->debug_phase);
      break;
    case PROP_MAX_VALUE_LENGTH:
      g_value_set_uint (value, self->max_value_length);
      break;
    case PROP_MAX_PROMPT_LENGTH:
      g_value_set_uint (value, self->max_prompt_length);
      break;
    case PROP_MAX_CONCURRENT:
      g_value_set_uint (value, self->max_concurrent);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
anot_lwt_executor_set_property (GObject      *object,
                                guint         prop_id,
                                const GValue *value,
                                GParamSpec   *pspec)
{
  AnotLwtExecutor *self = ANOT_LWT_EXECUTOR (object);

  switch (prop_id)
    {
    case PROP_CONTEXT:
      self->context = g_value_dup_object (value);
      break;
    case PROP_ROLE:
      anot_lwt_executor_set_role (self, g_value_get_string (value));
      break;
    case PROP_SYSTEM_PROMPT:
      anot_lwt_executor_set_system_prompt (self, g_value_get_string (value));
      break;
    case PROP_FAILURE_OUTPUT:
      anot_lwt_executor_set_failure_output (self, g_value_get_string (value));
      break;
    case PROP_DEBUG_PHASE:
      anot_lwt_executor_set_debug_phase (self, g_value_get_string (value));
      break;
    case PROP_MAX_VALUE_LENGTH:
      anot_lwt_executor_set_max_value_length (self, g_value_get_uint (value));
      break;
    case PROP_MAX_PROMPT_LENGTH:
      anot_lwt_executor_set_max_prompt_length (self, g_value_get_uint (value));
      break;
    case PROP_MAX_CONCURRENT:
      anot_lwt_executor_set_max_concurrent (self, g_value_get_uint (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
anot_lwt_executor_class_init (AnotLwtExecutorClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = anot_lwt_executor_finalize;
  object_class->get_property = anot_lwt_executor_get_property;
  object_class->set_property = anot_lwt_executor_set_property;

  /**
   * AnotLwtExecutor:context:
   *
   * The method context whose router makes the calls.
   */
  properties[PROP_CONTEXT] =
    g_param_spec_object ("context", NULL, NULL, ANOT_TYPE_METHOD_CONTEXT,
                         G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY |
                         G_PARAM_STATIC_STRINGS);

  /**
   * AnotLwtExecutor:role:
   *
   * The role the calls are made for, e.g. "scorer".
   */
  properties[PROP_ROLE] =
    g_param_spec_string ("role", NULL, NULL, ANOT_DEFAULT_ROLE,
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY |
                         G_PARAM_STATIC_STRINGS);

  /**
   * AnotLwtExecutor:system-prompt:
   *
   * The system prompt of every call, if any.
   */
  properties[PROP_SYSTEM_PROMPT] =
    g_param_spec_string ("system-prompt", NULL, NULL, NULL,
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY |
                         G_PARAM_STATIC_STRINGS);

  /**
   * AnotLwtExecutor:failure-output:
   *
   * The output of a step whose call failed, as the steps reading it see
   * it.  %NULL (the default) means `[step <id> failed: <message>]`.  The
   * original framework used `0` (ANoT-explore) and `NO` (later ANoT).
   */
  properties[PROP_FAILURE_OUTPUT] =
    g_param_spec_string ("failure-output", NULL, NULL, NULL,
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY |
                         G_PARAM_STATIC_STRINGS);

  /**
   * AnotLwtExecutor:debug-phase:
   *
   * The phase the executor's debug lines are tagged with, e.g. `P3`.
   */
  properties[PROP_DEBUG_PHASE] =
    g_param_spec_string ("debug-phase", NULL, NULL, "LWT",
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY |
                         G_PARAM_STATIC_STRINGS);

  /**
   * AnotLwtExecutor:max-value-length:
   *
   * The longest value substituted whole into a prompt, in characters; 0
   * for no limit.  See anot_lwt_step_render().
   */
  properties[PROP_MAX_VALUE_LENGTH] =
    g_param_spec_uint ("max-value-length", NULL, NULL, 0, G_MAXUINT,
                       ANOT_LWT_DEFAULT_MAX_VALUE_LENGTH,
                       G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY |
                       G_PARAM_STATIC_STRINGS);

  /**
   * AnotLwtExecutor:max-prompt-length:
   *
   * The longest prompt sent whole, in characters; 0 for no limit.
   */
  properties[PROP_MAX_PROMPT_LENGTH] =
    g_param_spec_uint ("max-prompt-length", NULL, NULL, 0, G_MAXUINT,
                       ANOT_LWT_DEFAULT_MAX_PROMPT_LENGTH,
                       G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY |
                       G_PARAM_STATIC_STRINGS);

  /**
   * AnotLwtExecutor:max-concurrent:
   *
   * The most calls one execution has in flight; 0 (the default) for no
   * limit of its own.
   */
  properties[PROP_MAX_CONCURRENT] =
    g_param_spec_uint ("max-concurrent", NULL, NULL, 0, G_MAXUINT, 0,
                       G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY |
                       G_PARAM_STATIC_STRINGS);

  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
anot_lwt_executor_init (AnotLwtExecutor *self)
{
  self->role = g_strdup (ANOT_DEFAULT_ROLE);
  self->debug_phase = g_strdup ("LWT");
  self->max_value_length = ANOT_LWT_DEFAULT_MAX_VALUE_LENGTH;
  self->max_prompt_length = ANOT_LWT_DEFAULT_MAX_PROMPT_LENGTH;
  self->variables = json_object_new ();
  self->cache = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, cache_entry_free);
}

/**
 * anot_lwt_executor_new:
 * @context: the method context whose router makes the calls
 *
 * Returns: (transfer full): a new executor
 */
AnotLwtExecutor *
anot_lwt_executor_new (AnotMethodContext *context)
{
  g_return_val_if_fail (ANOT_IS_METHOD_CONTEXT (context), NULL);

  return g_object_new (ANOT_TYPE_LWT_EXECUTOR, "context", context, NULL);
}

/**
 * anot_lwt_executor_get_context:
 * @self: an #AnotLwtExecutor
 *
 * Returns: (transfer none): the method context
 */
AnotMethodContext *
anot_lwt_executor_get_context (AnotLwtExecutor *self)
{
  g_return_val_if_fail (ANOT_IS_LWT_EXECUTOR (self), NULL);
  return self->context;
}

/**
 * anot_lwt_executor_get_role:
 * @self: an #AnotLwtExecutor
 *
 * Returns: the role the calls are made for
 */
const char *
anot_lwt_executor_get_role (AnotLwtExecutor *self)
{
  g_return_val_if_fail (ANOT_IS_LWT_EXECUTOR (self), NULL);
  return self->role;
}

/**
 * anot_lwt_executor_set_role:
 * @self: an #AnotLwtExecutor
 * @role: (nullable): a role; %NULL for %ANOT_DEFAULT_ROLE
 *
 * Sets [property@Anot.LwtExecutor:role].
 */
void
anot_lwt_executor_set_role (AnotLwtExecutor *self,
                            const char      *role)
{
  g_return_if_fail (ANOT_IS_LWT_EXECUTOR (self));

  if (role == NULL)
    role = ANOT_DEFAULT_ROLE;
  if (g_strcmp0 (self->role, role) == 0)
    return;
  g_free (self->role);
  self->role = g_strdup (role);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_ROLE]);
}

/**
 * anot_lwt_executor_get_system_prompt:
 * @self: an #AnotLwtExecutor
 *
 * Returns: (nullable): the system prompt of every call
 */
const char *
anot_lwt_executor_get_system_prompt (AnotLwtExecutor *self)
{
  g_return_val_if_fail (ANOT_IS_LWT_EXECUTOR (self), NULL);
  return self->system_prompt;
}

/**
 * anot_lwt_executor_set_system_prompt:
 * @self: an #AnotLwtExecutor
 * @system_prompt: (nullable): a system prompt, or %NULL for none
 *
 * Sets [property@Anot.LwtExecutor:system-prompt].
 */
void
anot_lwt_executor_set_system_prompt (AnotLwtExecutor *self,
                                     const char      *system_prompt)
{
  g_return_if_fail (ANOT_IS_LWT_EXECUTOR (self));

  if (g_strcmp0 (self->system_prompt, system_prompt) == 0)
    return;
  g_free (self->system_prompt);
  self->system_prompt = g_strdup (system_prompt);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_SYSTEM_PROMPT]);
}

/**
 * anot_lwt_executor_get_max_value_length:
 * @self: an #AnotLwtExecutor
 *
 * Returns: the longest value substituted whole; 0 for no limit
 */
guint
anot_lwt_executor_get_max_value_length (AnotLwtExecutor *self)
{
  g_return_val_if_fail (ANOT_IS_LWT_EXECUTOR (self), 0);
  return self->max_value_length;
}

/**
 * anot_lwt_executor_set_max_value_length:
 * @self: an #AnotLwtExecutor
 * @max_value_length: characters, or 0 for no limit
 *
 * Sets [property@Anot.LwtExecutor:max-value-length].
 */
void
anot_lwt_executor_set_max_value_length (AnotLwtExecutor *self,
                                        guint            max_value_length)
{
  g_return_if_fail (ANOT_IS_LWT_EXECUTOR (self));

  if (self->max_value_length == max_value_length)
    return;
  self->max_value_length = max_value_length;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_MAX_VALUE_LENGTH]);
}

/**
 * anot_lwt_executor_get_max_prompt_length:
 * @self: an #AnotLwtExecutor
 *
 * Returns: the longest prompt sent whole; 0 for no limit
 */
guint
anot_lwt_executor_get_max_prompt_length (AnotLwtExecutor *self)
{
  g_return_val_if_fail (ANOT_IS_LWT_EXECUTOR (self), 0);
  return self->max_prompt_length;
}

/**
 * anot_lwt_executor_set_max_prompt_length:
 * @self: an #AnotLwtExecutor
 * @max_prompt_length: characters, or 0 for no limit
 *
 * Sets [property@Anot.LwtExecutor:max-prompt-length].
 */
void
anot_lwt_executor_set_max_prompt_length (AnotLwtExecutor *self,
                                         guint            max_prompt_length)
{
  g_return_if_fail (ANOT_IS_LWT_EXECUTOR (self));

  if (self->max_prompt_length == max_prompt_length)
    return;
  self->max_prompt_length = max_prompt_length;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_MAX_PROMPT_LENGTH]);
}

/**
 * anot_lwt_executor_get_max_concurrent:
 * @self: an #AnotLwtExecutor
 *
 * Returns: the most calls one execution has in flight; 0 for no limit
 */
guint
anot_lwt_executor_get_max_concurrent (AnotLwtExecutor *self)
{
  g_return_val_if_fail (ANOT_IS_LWT_EXECUTOR (self), 0);
  return self->max_concurrent;
}

/**
 * anot_lwt_executor_set_max_concurrent:
 * @self: an #AnotLwtExecutor
 * @max_concurrent: a number of calls, or 0 for no limit
 *
 * Sets [property@Anot.LwtExecutor:max-concurrent].
 */
void
anot_lwt_executor_set_max_concurrent (AnotLwtExecutor *self,
                                      guint            max_concurrent)
{
  g_return_if_fail (ANOT_IS_LWT_EXECUTOR (self));

  if (self->max_concurrent == max_concurrent)
    return;
  self->max_concurrent = max_concurrent;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_MAX_CONCURRENT]);
}

/**
 * anot_lwt_executor_get_failure_output:
 * @self: an #AnotLwtExecutor
 *
 * Returns: (nullable): the output given to failed steps, or %NULL for the
 *   default text
 */
const char *
anot_lwt_executor_get_failure_output (AnotLwtExecutor *self)
{
  g_return_val_if_fail (ANOT_IS_LWT_EXECUTOR (self), NULL);
  return self->failure_output;
}

/**
 * anot_lwt_executor_set_failure_output:
 * @self: an #AnotLwtExecutor
 * @failure_output: (nullable): the output of failed steps, or %NULL for
 *   `[step <id> failed: <message>]`
 *
 * Sets [property@Anot.LwtExecutor:failure-output].
 */
void
anot_lwt_executor_set_failure_output (AnotLwtExecutor *self,
                                      const char      *failure_output)
{
  g_return_if_fail (ANOT_IS_LWT_EXECUTOR (self));

  if (g_strcmp0 (self->failure_output, failure_output) == 0)
    return;
  g_free (self->failure_output);
  self->failure_output = g_strdup (failure_output);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_FAILURE_OUTPUT]);
}

/**
 * anot_lwt_executor_get_debug_phase:
 * @self: an #AnotLwtExecutor
 *
 * Returns: the phase tag of the executor's debug lines
 */
const char *
anot_lwt_executor_get_debug_phase (AnotLwtExecutor *self)
{
  g_return_val_if_fail (ANOT_IS_LWT_EXECUTOR (self), NULL);
  return self->debug_phase;
}

/**
 * anot_lwt_executor_set_debug_phase:
 * @self: an #AnotLwtExecutor
 * @phase: a short tag such as `P3`
 *
 * Sets [property@Anot.LwtExecutor:debug-phase].
 */
void
anot_lwt_executor_set_debug_phase (AnotLwtExecutor *self,
                                   const char      *phase)
{
  g_return_if_fail (ANOT_IS_LWT_EXECUTOR (self));
  g_return_if_fail (phase != NULL);

  if (g_strcmp0 (self->debug_phase, phase) == 0)
    return;
  g_free (self->debug_phase);
  self->debug_phase = g_strdup (phase);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_DEBUG_PHASE]);
}

/**
 * anot_lwt_executor_set_variable:
 * @self: an #AnotLwtExecutor
 * @name: a name, usually a reserved one (`query`, `context`, `items`,
 *   `input`, `c`, `candidates`)
 * @value: (nullable): its value, or %NULL to unset it
 *
 * Binds @name for the templates of the scripts this executor runs.  A
 * variable takes precedence over a step with the same name.  The value is
 * referenced, not copied; do not modify it while an execution runs.
 */
void
anot_lwt_executor_set_variable (AnotLwtExecutor *self,
                                const char      *name,
                                JsonNode        *value)
{
  g_return_if_fail (ANOT_IS_LWT_EXECUTOR (self));
  g_return_if_fail (name != NULL);

  if (value == NULL)
    json_object_remove_member (self->variables, name);
  else
    json_object_set_member (self->variables, name, json_node_ref (value));
}

/**
 * anot_lwt_executor_get_variable:
 * @self: an #AnotLwtExecutor
 * @name: a name
 *
 * Returns: (transfer none) (nullable): the value of the variable @name
 */
JsonNode *
anot_lwt_executor_get_variable (AnotLwtExecutor *self,
                                const char      *name)
{
  g_return_val_if_fail (ANOT_IS_LWT_EXECUTOR (self), NULL);
  g_return_val_if_fail (name != NULL, NULL);

  return json_object_get_member (self->variables, name);
}

/**
 * anot_lwt_executor_clear_cache:
 * @self: an #AnotLwtExecutor
 *
 * Forgets the outputs of earlier prompts (answers being awaited are
 * kept), so the next execution calls the model again.
 */
void
anot_lwt_executor_clear_cache (AnotLwtExecutor *self)
{
  GHashTableIter iter;
  gpointer value;

  g_return_if_fail (ANOT_IS_LWT_EXECUTOR (self));

  g_hash_table_iter_init (&iter, self->cache);
  while (g_hash_table_iter_next (&iter, NULL, &value))
    if (((CacheEntry *) value)->done)
      g_hash_table_iter_remove (&iter);
}

/* ------------------------------------------------------------------------ *
 * Execution
 * ------------------------------------------------------------------------ */

struct _Run
{
  gint            ref_count;
  AnotLwtExecutor *self;
  GTask          *task;
  AnotLwtScript  *script;
  AnotLwtResult  *result;
  JsonObject     *values;          /* variables + step outputs */
  guint           n_steps;
  guint          *n_waiting;       /* per step: dependencies not yet answered */
  GPtrArray     **dependants;      /* per step: positions of the steps reading it */
  gboolean       *started;
  GQueue          ready;           /* positions */
  guint           n_done;
  guint           in_flight;       /* steps started, not answered: sent or held */
  guint           max_in_flight;
  GQueue          held;            /* Call, started but not sent */
  guint           n_sent;          /* calls out at the backend */
  gint64          started_us;
  gboolean        pumping;
  gboolean        completed;
};

typedef struct {
  Run   *run;
  guint  position;
  /* The cache's own key (system prompt and prompt): the entry, awaited,
   * stays until this call is done, and one copy a step fewer is held. */
  const char *key;
  gint64 issued_us;
} Call;

static Run *
run_ref (Run *run)
{
  run->ref_count++;
  return run;
}

static void
run_unref (Run *run)
{
  if (--run->ref_count > 0)
    return;

  for (guint i = 0; i < run->n_steps; i++)
    g_clear_pointer (&run->dependants[i], g_ptr_array_unref);
  g_free (run->dependants);
  g_free (run->n_waiting);
  g_free (run->started);
  g_queue_clear (&run->ready);
  json_object_unref (run->values);
  g_clear_object (&run->result);
  g_clear_object (&run->script);
  g_clear_object (&run->task);
  g_object_unref (run->self);
  g_free (run);
}

static double
ms_since (Run    *run,
          gint64  us)
{
  return (us - run->started_us) / 1000.0;
}

static void pump (Run *run);

static void
run_complete (Run *run)
{
  AnotLwtExecutor *self = run->self;
  GCancellable *cancellable = g_task_get_cancellable (run->task);

  if (run->completed)
    return;
  run->completed = TRUE;

  _anot_lwt_result_finish (run->result, ms_since (run, g_get_monotonic_time ()),
                           run->max_in_flight);

  if (g_cancellable_is_cancelled (cancellable))
    {
      g_task_return_new_error (run->task, G_IO_ERROR, G_IO_ERROR_CANCELLED,
                               "The LWT execution was cancelled");
      return;
    }

  anot_method_context_debug (self->context, ANOT_DEBUG_LEVEL_VERBOSE, self->debug_phase,
                             "Executed %u steps in %u layers: %u calls, %u failed, "
                             "%u at most in flight, %.0f ms",
                             run->n_steps, anot_lwt_script_get_n_layers (run->script),
                             anot_lwt_result_get_n_calls (run->result),
                             anot_lwt_result_get_n_failed (run->result),
                             run->max_in_flight, anot_lwt_result_get_wall_ms (run->result));
  g_task_return_pointer (run->task, g_object_ref (run->result), g_object_unref);
}

/* Records a step's answer and releases the steps waiting for it. */
static void
step_done (Run        *run,
           guint       position,
           const char *output,
           const char *error)
{
  AnotLwtExecutor *self = run->self;
  AnotLwtStepRecord *record = _anot_lwt_result_get_record (run->result, position);
  AnotLwtStep *step = anot_lwt_script_get_step (run->script, position);
  const char *id = anot_lwt_step_get_id (step);
  GPtrArray *dependants = run->dependants[position];

  g_assert (!record->done);
  record->done = TRUE;
  run->n_done++;

  if (error != NULL)
    {
      record->error = g_strdup (error);
      if (self->failure_output != NULL)
        record->output = g_strdup (self->failure_output);
      else
        record->output = g_strdup_printf ("[step %s failed: %s]", id, error);
      anot_method_context_debug (self->context, ANOT_DEBUG_LEVEL_SUMMARY, self->debug_phase,
                                 "Step %s failed: %s", id, error);
    }
  else
    {
      record->output = g_strdup (output != NULL ? output : "");
      if (anot_method_context_get_debug_level (self->context) >= ANOT_DEBUG_LEVEL_VERBOSE)
        {
          glong length = g_utf8_strlen (record->output, -1);
          g_autofree char *preview = g_utf8_substring (record->output, 0, MIN (length, 80));

          anot_method_context_debug (self->context, ANOT_DEBUG_LEVEL_VERBOSE, self->debug_phase,
                                     "Step %s: %s%s (%.0f ms)", id, preview,
                                     length > 80 ? "..." : "", record->latency_ms);
        }
    }

  /* A variable of the same name keeps precedence. */
  if (!json_object_has_member (self->variables, id))
    json_object_set_string_member (run->values, id, record->output);

  for (guint i = 0; dependants != NULL && i < dependants->len; i++)
    {
      guint dependant = GPOINTER_TO_UINT (g_ptr_array_index (dependants, i));

      g_assert (run->n_waiting[dependant] > 0);
      if (--run->n_waiting[dependant] == 0 && !run->started[dependant])
        g_queue_push_tail (&run->ready, GUINT_TO_POINTER (dependant));
    }
}

static void on_call_done (GObject      *source,
                          GAsyncResult *res,
                          gpointer      user_data);

/* Sends the calls a run holds, in the order their steps started.  Past a
 * full round of calls waiting at the backend they stay here until one of
 * this run's calls comes back: a call sent then would only wait in the
 * backend's queue with its request, task and body state, and at -j 64
 * those of every request in flight added up.  The step counts as in
 * flight all along (as a coroutine waiting on the original's semaphore
 * did), so the trace's max_in_flight is what it was.  One call is always
 * out, so no run stalls; a cancelled run sends the rest to be cancelled. */
static void
send_held (Run *run)
{
  AnotLwtExecutor *self = run->self;
  GCancellable *cancellable = g_task_get_cancellable (run->task);

  while (!g_queue_is_empty (&run->held) &&
         (run->n_sent == 0 || g_cancellable_is_cancelled (cancellable) ||
          !anot_method_context_is_backlogged (self->context, self->role)))
    {
      Call *call = g_queue_pop_head (&run->held);
      AnotLwtStepRecord *record = _anot_lwt_result_get_record (run->result, call->position);

      run->n_sent++;
      anot_method_context_complete_async (self->context, self->role, self->system_prompt,
                                          record->prompt, cancellable, on_call_done, call);
    }
}

static void
on_call_done (GObject      *source,
              GAsyncResult *res,
              gpointer      user_data)
{
  Call *call = user_data;
  Run *run = call->run;
  AnotLwtExecutor *self = run->self;
  g_autoptr(GError) error = NULL;
  g_autoptr(AnotCompletion) completion = NULL;
  AnotLwtStepRecord *record = _anot_lwt_result_get_record (run->result, call->position);
  CacheEntry *entry;
  const char *output = NULL;
  g_autofree char *message = NULL;
  g_autoptr(GPtrArray) waiters = NULL;

  completion = anot_method_context_complete_finish (ANOT_METHOD_CONTEXT (source), res, &error);
  run->in_flight--;
  run->n_sent--;
  send_held (run);
  record->latency_ms = (g_get_monotonic_time () - call->issued_us) / 1000.0;

  if (completion != NULL)
    {
      output = anot_completion_get_text (completion);
      record->prompt_tokens = anot_completion_get_prompt_tokens (completion);
      record->completion_tokens = anot_completion_get_completion_tokens (completion);
    }
  else
    message = g_strdup (error->message);

  /* Share the answer with the steps that asked the same thing. */
  entry = g_hash_table_lookup (self->cache, call->key);
  if (entry != NULL && !entry->done)
    {
      waiters = g_steal_pointer (&entry->waiters);
      if (completion != NULL)
        {
          entry->done = TRUE;
          entry->output = g_strdup (output != NULL ? output : "");
        }
      else
        {
          /* A failure is not remembered: a later execution may try again. */
          g_hash_table_remove (self->cache, call->key);
        }
    }

  step_done (run, call->position, output, message);

  for (guint i = 0; waiters != NULL && i < waiters->len; i++)
    {
      Waiter *waiter = g_ptr_array_index (waiters, i);
      AnotLwtStepRecord *other = _anot_lwt_result_get_record (waiter->run->result, waiter->position);

      other->cached = TRUE;
      other->latency_ms = ms_since (waiter->run, g_get_monotonic_time ()) - other->start_ms;
      step_done (waiter->run, waiter->position, output, message);
      if (waiter->run != run)
        pump (waiter->run);
    }

  pump (run);

  g_free (call);
  run_unref (run);
}

static void
waiter_free (gpointer data)
{
  Waiter *waiter = data;

  run_unref (waiter->run);
  g_free (waiter);
}

static void
start_step (Run   *run,
            guint  position)
{
  AnotLwtExecutor *self = run->self;
  AnotLwtStep *step = anot_lwt_script_get_step (run->script, position);
  AnotLwtStepRecord *record = _anot_lwt_result_get_record (run->result, position);
  g_autofree char *rendered = NULL;
  g_autofree char *key = NULL;
  CacheEntry *entry;
  Call *call;

  run->started[position] = TRUE;
  rendered = anot_lwt_step_render (step, run->values, self->max_value_length);
  record->prompt = _anot_lwt_truncate_middle (rendered, self->max_prompt_length);
  record->start_ms = ms_since (run, g_get_monotonic_time ());

  anot_method_context_debug (self->context, ANOT_DEBUG_LEVEL_FULL, self->debug_phase,
                             "Step %s filled prompt:\n%s", anot_lwt_step_get_id (step),
                             record->prompt);

  key = g_strdup_printf ("%s\n%s\n%s", self->role,
                         self->system_prompt ? self->system_prompt : "", record->prompt);
  entry = g_hash_table_lookup (self->cache, key);
  if (entry != NULL && entry->done)
    {
      record->cached = TRUE;
      step_done (run, position, entry->output, NULL);
      return;
    }
  if (entry != NULL)
    {
      Waiter *waiter = g_new0 (Waiter, 1);

      waiter->run = run_ref (run);
      waiter->position = position;
      g_ptr_array_add (entry->waiters, waiter);
      return;
    }

  entry = g_new0 (CacheEntry, 1);
  entry->waiters = g_ptr_array_new_with_free_func (waiter_free);
  call = g_new0 (Call, 1);
  call->run = run_ref (run);
  call->position = position;
  call->key = key;
  g_hash_table_insert (self->cache, g_steal_pointer (&key), entry);
  call->issued_us = g_get_monotonic_time ();
  record->called = TRUE;

  run->in_flight++;
  run->max_in_flight = MAX (run->max_in_flight, run->in_flight);
  g_queue_push_tail (&run->held, call);
  send_held (run);
}

/* Issues every ready step; when nothing is ready or in flight, runs what a
 * cycle held back, or completes. */
static void
pump (Run *run)
{
  AnotLwtExecutor *self = run->self;
  GCancellable *cancellable;

  if (run->pumping || run->completed)
    return;
  run->pumping = TRUE;
  run_ref (run);

  cancellable = g_task_get_cancellable (run->task);

  for (;;)
    {
      while (!g_queue_is_empty (&run->ready) &&
             !g_cancellable_is_cancelled (cancellable) &&
             (self->max_concurrent == 0 || run->in_flight < self->max_concurrent))
        start_step (run, GPOINTER_TO_UINT (g_queue_pop_head (&run->ready)));

      if (run->in_flight > 0 || run->n_done == run->n_steps)
        break;
      if (g_cancellable_is_cancelled (cancellable))
        break;
      if (!g_queue_is_empty (&run->ready))
        continue;

      /* Nothing ready, nothing in flight, steps left: a cycle, or steps
       * waiting on other executions' identical prompts. */
      {
        gboolean waiting_elsewhere = FALSE;
        gboolean queued = FALSE;

        for (guint i = 0; i < run->n_steps; i++)
          if (run->started[i] && !_anot_lwt_result_get_record (run->result, i)->done)
            waiting_elsewhere = TRUE;
        if (waiting_elsewhere)
          break;

        for (guint i = 0; i < run->n_steps; i++)
          if (!run->started[i])
            {
              g_queue_push_tail (&run->ready, GUINT_TO_POINTER (i));
              queued = TRUE;
            }
        if (queued)
          anot_method_context_debug (self->context, ANOT_DEBUG_LEVEL_SUMMARY, self->debug_phase,
                                     "Running %u steps caught in a cycle together",
                                     g_queue_get_length (&run->ready));
        else
          break;
      }
    }

  run->pumping = FALSE;

  if (run->in_flight == 0 &&
      (run->n_done == run->n_steps || g_cancellable_is_cancelled (cancellable)))
    {
      gboolean waiting_elsewhere = FALSE;

      for (guint i = 0; i < run->n_steps; i++)
        if (run->started[i] && !_anot_lwt_result_get_record (run->result, i)->done)
          waiting_elsewhere = TRUE;
      if (!waiting_elsewhere || run->n_done == run->n_steps)
        run_complete (run);
    }

  run_unref (run);
}

/**
 * anot_lwt_executor_execute_async:
 * @self: an #AnotLwtExecutor
 * @script: the script to run; do not add steps to it while it runs
 * @cancellable: (nullable): a #GCancellable
 * @callback: (scope async): called when every step has answered
 * @user_data: data for @callback
 *
 * Runs @script: every step whose dependencies have answered is issued at
 * once.  Finish with anot_lwt_executor_execute_finish().
 */
void
anot_lwt_executor_execute_async (AnotLwtExecutor     *self,
                                 AnotLwtScript       *script,
                                 GCancellable        *cancellable,
                                 GAsyncReadyCallback  callback,
                                 gpointer             user_data)
{
  Run *run;
  JsonObjectIter iter;
  const char *name;
  JsonNode *value;
  g_autoptr(GHashTable) position_of = NULL;

  g_return_if_fail (ANOT_IS_LWT_EXECUTOR (self));
  g_return_if_fail (ANOT_IS_LWT_SCRIPT (script));
  g_return_if_fail (cancellable == NULL || G_IS_CANCELLABLE (cancellable));

  run = g_new0 (Run, 1);
  run->ref_count = 1;
  run->self = g_object_ref (self);
  run->task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (run->task, anot_lwt_executor_execute_async);
  g_task_set_name (run->task, "[anot] LWT execution");
  run->script = g_object_ref (script);
  run->result = _anot_lwt_result_new (script);
  run->n_steps = anot_lwt_script_get_n_steps (script);
  run->n_waiting = g_new0 (guint, run->n_steps);
  run->dependants = g_new0 (GPtrArray *, run->n_steps);
  run->started = g_new0 (gboolean, run->n_steps);
  g_queue_init (&run->ready);
  g_queue_init (&run->held);
  run->started_us = g_get_monotonic_time ();

  run->values = json_object_new ();
  json_object_iter_init (&iter, self->variables);
  while (json_object_iter_next (&iter, &name, &value))
    json_object_set_member (run->values, name, json_node_ref (value));

  if (run->n_steps == 0)
    {
      g_task_return_new_error (run->task, ANOT_ERROR, ANOT_ERROR_INVALID_ARGUMENT,
                               "The LWT script has no steps");
      run_unref (run);
      return;
    }

  /* Dependencies on steps; a variable of the same name is no dependency. */
  position_of = g_hash_table_new (g_str_hash, g_str_equal);
  for (guint i = 0; i < run->n_steps; i++)
    g_hash_table_insert (position_of, (gpointer) anot_lwt_step_get_id (anot_lwt_script_get_step (script, i)),
                         GUINT_TO_POINTER (i));
  for (guint i = 0; i < run->n_steps; i++)
    {
      AnotLwtStep *step = anot_lwt_script_get_step (script, i);
      const char * const *deps = anot_lwt_step_get_dependencies (step);

      for (guint d = 0; deps[d] != NULL; d++)
        {
          guint position;

          if (json_object_has_member (self->variables, deps[d]))
            continue;
          position = GPOINTER_TO_UINT (g_hash_table_lookup (position_of, deps[d]));
          if (run->dependants[position] == NULL)
            run->dependants[position] = g_ptr_array_new ();
          g_ptr_array_add (run->dependants[position], GUINT_TO_POINTER (i));
          run->n_waiting[i]++;
        }
    }

  for (guint i = 0; i < run->n_steps; i++)
    if (run->n_waiting[i] == 0)
      g_queue_push_tail (&run->ready, GUINT_TO_POINTER (i));

  anot_method_context_debug (self->context, ANOT_DEBUG_LEVEL_SUMMARY, self->debug_phase,
                             "Executing %u steps in %u layers...", run->n_steps,
                             anot_lwt_script_get_n_layers (script));

  pump (run);
  run_unref (run);
}

/**
 * anot_lwt_executor_execute_finish:
 * @self: an #AnotLwtExecutor
 * @result: the #GAsyncResult passed to the callback
 * @error: return location for a #GError
 *
 * Finishes anot_lwt_executor_execute_async().  Fails only if the
 * execution was cancelled (%G_IO_ERROR_CANCELLED) or the script is empty;
 * failed steps are recorded in the result.
 *
 * Returns: (transfer full): the result of every step
 */
AnotLwtResult *
anot_lwt_executor_execute_finish (AnotLwtExecutor  *self,
                                  GAsyncResult     *result,
                                  GError          **error)
{
  g_return_val_if_fail (ANOT_IS_LWT_EXECUTOR (self), NULL);
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == anot_lwt_executor_execute_async, NULL);

  return g_task_propagate_pointer (G_TASK (result), error);
}
