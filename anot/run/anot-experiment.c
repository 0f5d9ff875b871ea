/* anot-experiment.c: running a method over a benchmark
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "anot-experiment-private.h"

#include <glib/gstdio.h>

#include "anot-enum-types.h"
#include "anot-error.h"
#include "anot-registry.h"

#include <string.h>

/**
 * AnotExperiment:
 *
 * Runs one ranking method over the requests of a dataset and writes the
 * results in the original framework's layout.
 *
 * For every run (1..`runs`), every N and every selected request, the
 * experiment builds an [class@Anot.Pool], hands the shuffled candidates to
 * the method, maps the method's ranking back to pool order and records an
 * [class@Anot.Result].  Up to `concurrency` requests are in flight at once
 * on the thread-default main context.  Results go to
 * `<out>/<name>/<attack>/run_<R>/`: `config.json`, `results_<N>.jsonl` (a
 * row appended and flushed as each request finishes, rewritten sorted by
 * request id when N is done), `trace_<N>.jsonl` (the method's trace of
 * each request, when it gives one), `usage.jsonl`, `scaling_summary.json`
 * (more than one N) and `summary.json` one level up.  `<attack>` is `clean`
 * without an attack.
 *
 * With attacks, the experiment runs once per attack (in the order given,
 * `clean` included if asked for) on the same pools, shuffles and method
 * seeds; the attack is applied to the shuffled candidates of each request
 * just before the method sees them, with the seed
 * anot_attack_derive_seed() gives for the run seed, the attack, the
 * request and N.
 *
 * Options are the settings of an [struct@Anot.RunConfig] (its
 * documentation lists every key), given one by one as text with
 * [method@Anot.Experiment.set_option] or all at once with
 * [method@Anot.Experiment.set_config], and checked against the dataset by
 * [method@Anot.Experiment.prepare].
 *
 * Every random choice of a request is seeded from the run seed, the
 * request id and N with [func@Anot.seed_derive], so results do not depend
 * on the concurrency, on scheduling or on resuming.
 */

G_DEFINE_FINAL_TYPE (AnotExperiment, anot_experiment, G_TYPE_OBJECT)

enum {
  PROP_0,
  PROP_DATASET,
  PROP_METHOD,
  PROP_DIRECTORY,
  PROP_N_PLANNED,
  PROP_POOL_MODE,
  PROP_COMPAT,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

guint anot_experiment_signals[N_SIGNALS];

/* A bad option given to set_option(), which cannot fail: prepare()
 * reports it, unless the key was set again to a good value. */
typedef struct
{
  char *key;
  GError *error;
} OptionError;

static void
option_error_free (gpointer data)
{
  OptionError *entry = data;

  g_free (entry->key);
  g_error_free (entry->error);
  g_free (entry);
}

static void
anot_experiment_finalize (GObject *object)
{
  AnotExperiment *self = ANOT_EXPERIMENT (object);

  anot_experiment_plan_clear (self);
  anot_experiment_unlock_directory (self);
  anot_experiment_set_gate (self, NULL);
  g_clear_object (&self->dataset);
  g_free (self->method_name);
  anot_run_config_unref (self->config);
  g_ptr_array_unref (self->option_errors);
  g_clear_pointer (&self->recorded_method_file, g_hash_table_unref);
  g_clear_pointer (&self->recorded_method_settings, json_node_unref);
  g_clear_pointer (&self->recorded_plugin_path, g_free);
  g_clear_pointer (&self->recorded_plugin_sha256, g_free);
  g_clear_pointer (&self->recorded_plugin_language, g_free);
  g_clear_pointer (&self->recorded_defense_sha256, g_free);
  g_clear_object (&self->debug_log);
  g_clear_error (&self->fatal);

  G_OBJECT_CLASS (anot_experiment_parent_class)->finalize (object);
}

static void
anot_experiment_get_property (GObject    *object,
                              guint       prop_id,
                              GValue     *value,
                              GParamSpec *pspec)
{
  AnotExperiment *self = ANOT_EXPERIMENT (object);

  switch (prop_id)
    {
    case PROP_DATASET:
      g_value_set_object (value, self->dataset);
      break;
    case PROP_METHOD:
      g_value_set_string (value, self->method_name);
      break;
    case PROP_DIRECTORY:
      g_value_set_string (value, self->directory);
      break;
    case PROP_N_PLANNED:
      g_value_set_uint (value, self->n_planned);
      break;
    case PROP_POOL_MODE:
      g_value_set_enum (value, (self->settings ? self->settings : self->config)->pool);
      break;
    case PROP_COMPAT:
      g_value_set_enum (value, (self->settings ? self->settings : self->config)->compat);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
anot_experiment_set_property (GObject      *object,
                              guint         prop_id,
                              const GValue *value,
                              GParamSpec   *pspec)
{
  AnotExperiment *self = ANOT_EXPERIMENT (object);

  switch (prop_id)
    {
    case PROP_DATASET:
      self->dataset = g_value_dup_object (value);
      break;
    case PROP_METHOD:
      self->method_name = g_value_dup_string (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
anot_experiment_class_init (AnotExperimentClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = anot_experiment_finalize;
  object_class->get_property = anot_experiment_get_property;
  object_class->set_property = anot_experiment_set_property;

  /**
   * AnotExperiment:dataset:
   *
   * The benchmark the method runs on.
   */
  properties[PROP_DATASET] =
    g_param_spec_object ("dataset", NULL, NULL, ANOT_TYPE_DATASET,
                         G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS);
  /**
   * AnotExperiment:method:
   *
   * The registered name of the ranking method.
   */
  properties[PROP_METHOD] =
    g_param_spec_string ("method", NULL, NULL, NULL,
                         G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS);
  /**
   * AnotExperiment:directory:
   *
   * The experiment directory `<out>/<name>`, known once the options were
   * checked ([method@Anot.Experiment.prepare]).
   */
  properties[PROP_DIRECTORY] =
    g_param_spec_string ("directory", NULL, NULL, NULL,
                         G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  /**
   * AnotExperiment:n-planned:
   *
   * The number of (run, N, request) combinations the experiment covers,
   * including those already done when resuming.
   */
  properties[PROP_N_PLANNED] =
    g_param_spec_uint ("n-planned", NULL, NULL, 0, G_MAXUINT, 0,
                       G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);

  /**
   * AnotExperiment:pool-mode:
   *
   * How candidate pools are chosen (the `pool` option), known once the
   * options were checked.
   */
  properties[PROP_POOL_MODE] =
    g_param_spec_enum ("pool-mode", NULL, NULL, ANOT_TYPE_POOL_MODE, ANOT_POOL_MODE_SAMPLED,
                       G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  /**
   * AnotExperiment:compat:
   *
   * Whether the experiment compares like for like with the original
   * framework's published runs (the `compat` option, recorded in
   * `config.json`).
   */
  properties[PROP_COMPAT] =
    g_param_spec_enum ("compat", NULL, NULL, ANOT_TYPE_COMPAT_MODE, ANOT_COMPAT_MODE_NONE,
                       G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);

  g_object_class_install_properties (object_class, N_PROPS, properties);

  /**
   * AnotExperiment::n-started:
   * @self: the experiment
   * @run: the 1-based run
   * @n_candidates: N
   * @n_requests: the number of requests of this run and N
   * @n_done: how many of them already have a result (when resuming)
   *
   * Emitted when the experiment starts on one run and N.
   */
  anot_experiment_signals[SIGNAL_N_STARTED] =
    g_signal_new ("n-started", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 4,
                  G_TYPE_UINT, G_TYPE_UINT, G_TYPE_UINT, G_TYPE_UINT);
  /**
   * AnotExperiment::result:
   * @self: the experiment
   * @result: the result of one request
   *
   * Emitted when a request is done and its row was written.
   */
  anot_experiment_signals[SIGNAL_RESULT] =
    g_signal_new ("result", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 1, ANOT_TYPE_RESULT);
  /**
   * AnotExperiment::n-finished:
   * @self: the experiment
   * @run: the 1-based run
   * @n_candidates: N
   *
   * Emitted when the experiment leaves one run and N, finished or
   * interrupted, after its results file was rewritten in order.
   */
  anot_experiment_signals[SIGNAL_N_FINISHED] =
    g_signal_new ("n-finished", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 2,
                  G_TYPE_UINT, G_TYPE_UINT);
}

static void
anot_experiment_init (AnotExperiment *self)
{
  self->config = anot_run_config_new ();
  self->option_errors = g_ptr_array_new_with_free_func (option_error_free);
  self->lock_fd = -1;
}

/**
 * anot_experiment_new:
 * @dataset: the benchmark
 * @method: the registered name of a ranking method
 *
 * Creates an experiment with default options.
 *
 * Returns: (transfer full): a new #AnotExperiment
 */
AnotExperiment *
anot_experiment_new (AnotDataset *dataset,
                     const char  *method)
{
  g_return_val_if_fail (ANOT_IS_DATASET (dataset), NULL);
  g_return_val_if_fail (method != NULL, NULL);

  return g_object_new (ANOT_TYPE_EXPERIMENT, "dataset", dataset, "method", method, NULL);
}

/**
 * anot_experiment_set_option:
 * @self: an #AnotExperiment
 * @key: a key of [struct@Anot.RunConfig], `method.KEY` or `attack.KEY`
 * @value: (nullable): the value as text, or %NULL to restore the default
 *
 * Sets an option.  An unknown key or a bad value is reported by
 * [method@Anot.Experiment.prepare] (and so by a run); to have it at once,
 * use [method@Anot.RunConfig.set] and [method@Anot.Experiment.set_config].
 */
void
anot_experiment_set_option (AnotExperiment *self,
                            const char     *key,
                            const char     *value)
{
  g_autoptr(GError) error = NULL;

  g_return_if_fail (ANOT_IS_EXPERIMENT (self));
  g_return_if_fail (key != NULL);
  g_return_if_fail (self->task == NULL);

  for (guint i = self->option_errors->len; i > 0; i--)
    if (strcmp (((OptionError *) g_ptr_array_index (self->option_errors, i - 1))->key, key) == 0)
      g_ptr_array_remove_index (self->option_errors, i - 1);
  if (!anot_run_config_set (self->config, key, value, &error))
    {
      OptionError *entry = g_new0 (OptionError, 1);

      entry->key = g_strdup (key);
      entry->error = g_steal_pointer (&error);
      g_ptr_array_add (self->option_errors, entry);
    }
  anot_experiment_plan_clear (self);
}

/**
 * anot_experiment_set_config:
 * @self: an #AnotExperiment
 * @config: the settings
 *
 * Replaces every option with those of @config (copied: changing @config
 * later does not change the experiment).
 */
void
anot_experiment_set_config (AnotExperiment      *self,
                            const AnotRunConfig *config)
{
  g_return_if_fail (ANOT_IS_EXPERIMENT (self));
  g_return_if_fail (config != NULL);
  g_return_if_fail (self->task == NULL);

  anot_run_config_unref (self->config);
  self->config = anot_run_config_copy (config);
  g_ptr_array_set_size (self->option_errors, 0);
  anot_experiment_plan_clear (self);
}

/**
 * anot_experiment_get_config:
 * @self: an #AnotExperiment
 *
 * The options as they were set (defaults not resolved: see
 * [method@Anot.Experiment.get_directory] and the other accessors for what
 * runs).
 *
 * Returns: (transfer full): a copy of the options
 */
AnotRunConfig *
anot_experiment_get_config (AnotExperiment *self)
{
  g_return_val_if_fail (ANOT_IS_EXPERIMENT (self), NULL);

  return anot_run_config_copy (self->config);
}

/**
 * anot_experiment_prepare:
 * @self: an #AnotExperiment
 * @error: return location for a #GError
 *
 * Checks the options, creates the method, selects the requests and the
 * candidate pools' membership (and so the requests dropped in `original`
 * pool mode) and computes the results directory, without writing anything.
 *
 * Errors: %ANOT_ERROR_INVALID_ARGUMENT for a bad option, an empty
 * selection, or an existing non-empty results directory (unless `force`
 * is set or the experiment resumes); %ANOT_ERROR_PLUGIN_NOT_FOUND for an
 * unknown method.  [method@Anot.Experiment.run_async] calls it when it was
 * not called.
 *
 * Returns: %TRUE when the experiment can run
 */
gboolean
anot_experiment_prepare (AnotExperiment  *self,
                         GError         **error)
{
  g_return_val_if_fail (ANOT_IS_EXPERIMENT (self), FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if (self->prepared)
    return TRUE;
  anot_experiment_plan_clear (self);

  /* Unknown keys and bad values are errors, so a typo does not silently
   * run defaults. */
  if (self->option_errors->len > 0)
    {
      OptionError *first = g_ptr_array_index (self->option_errors, 0);

      g_propagate_error (error, g_error_copy (first->error));
      return FALSE;
    }
  if (!anot_experiment_plan (self, error))
    {
      anot_experiment_plan_clear (self);
      return FALSE;
    }

  self->prepared = TRUE;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_DIRECTORY]);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_N_PLANNED]);
  return TRUE;
}

static gboolean check_budget_prices (AnotExperiment  *self,
                                     GError         **error);

/**
 * anot_experiment_check_api_keys:
 * @self: an #AnotExperiment
 * @error: return location for a #GError
 *
 * Prepares the experiment if needed, then checks the backend of every
 * LLM role its method declared
 * ([func@Anot.plugin_declare_method_roles]): a provider's own endpoint
 * without an API key is %ANOT_ERROR_CONFIG naming the environment
 * variable, the configuration key and `--base-url`.  A method that calls
 * no LLM needs no key; one that declared no roles is checked at its
 * first call instead.  A run answered from the cache only (`offline`)
 * needs none.  With a budget (`max-cost`, `max-cost-role`, a study's
 * `max_cost`), a role whose model has no price
 * ([method@Anot.Experiment.list_unpriced_models]) is %ANOT_ERROR_CONFIG
 * too: a budget cannot count calls it cannot price.  Nothing is written
 * and nothing is sent;
 * [method@Anot.Experiment.run_async] calls it before it writes anything,
 * and the cost estimate does not (it sends nothing).
 *
 * Returns: %TRUE when every role the method calls can reach its model
 */
gboolean
anot_experiment_check_api_keys (AnotExperiment  *self,
                                GError         **error)
{
  g_auto(GStrv) roles = NULL;

  g_return_val_if_fail (ANOT_IS_EXPERIMENT (self), FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if (!anot_experiment_prepare (self, error))
    return FALSE;
  roles = anot_registry_list_method_roles (anot_registry_get_default (), self->method_name);
  for (guint i = 0; roles != NULL && roles[i] != NULL; i++)
    {
      g_autoptr(GError) local = NULL;

      if (!anot_backend_router_check_api_key (self->router, roles[i], &local))
        {
          g_propagate_prefixed_error (error, g_steal_pointer (&local),
                                      "%s calls an LLM (role %s): ", self->method_name, roles[i]);
          return FALSE;
        }
    }
  return check_budget_prices (self, error);
}

/* The roles the method declared whose model has no price, with their
 * models ("gpt 4o mini (role default)"), or only the models. */
static GStrv
unpriced_models (AnotExperiment *self,
                 gboolean        with_roles)
{
  g_autoptr(GStrvBuilder) builder = g_strv_builder_new ();
  g_autoptr(GHashTable) seen = g_hash_table_new (g_str_hash, g_str_equal);
  g_auto(GStrv) roles = anot_registry_list_method_roles (anot_registry_get_default (),
                                                         self->method_name);

  for (guint i = 0; roles != NULL && roles[i] != NULL; i++)
    {
      const char *model;

      /* Makes the route of a role the configuration names. */
      if (anot_backend_router_get_backend (self->router, roles[i], NULL) == NULL)
        continue;
      model = anot_backend_router_get_model (self->router, roles[i]);
      /* A backend that names no model prices its own calls, or not. */
      if (model == NULL || anot_backend_router_has_price (self->router, model))
        continue;
      if (with_roles)
        {
          g_autofree char *text = g_strdup_printf ("“%s” (role %s)", model, roles[i]);

          g_strv_builder_add (builder, text);
        }
      else if (g_hash_table_add (seen, (gpointer) model))
        g_strv_builder_add (builder, model);
    }
  return g_strv_builder_end (builder);
}

/**
 * anot_experiment_list_unpriced_models:
 * @self: an #AnotExperiment
 *
 * The models the experiment's method calls (through the roles it
 * declared, see [func@Anot.plugin_declare_method_roles]) that have no
 * price: neither in the built-in table nor in `[prices]` of config.ini.
 * The cost of their calls is unknown: null in results rows, usage and
 * summaries, never a default price; and a budget refuses to run with
 * them ([method@Anot.Experiment.check_api_keys]).  Prepares the
 * experiment if needed.
 *
 * Returns: (transfer full) (array zero-terminated=1): the models without
 *   a price, each once in the order of the roles; empty when every model
 *   has one, or the experiment cannot be prepared
 */
char **
anot_experiment_list_unpriced_models (AnotExperiment *self)
{
  g_return_val_if_fail (ANOT_IS_EXPERIMENT (self), NULL);

  if (!anot_experiment_prepare (self, NULL))
    return g_new0 (char *, 1);
  return unpriced_models (self, FALSE);
}

/* A budget counts what calls cost: a model without a price would make
 * it count nothing. */
static gboolean
check_budget_prices (AnotExperiment  *self,
                     GError         **error)
{
  g_auto(GStrv) unpriced = NULL;
  g_autofree char *list = NULL;
  const char *option;

  if (self->settings->max_cost > 0)
    option = "--max-cost";
  else if (self->settings->max_cost_role != NULL)
    option = "--max-cost-role";
  else if (self->gate != NULL && self->gate->limit > 0)
    option = "The study's max_cost";
  else
    return TRUE;
  unpriced = unpriced_models (self, TRUE);
  if (unpriced[0] == NULL)
    return TRUE;
  list = g_strjoinv (", ", unpriced);
  g_set_error (error, ANOT_ERROR, ANOT_ERROR_CONFIG,
               "%s needs the price of every model the run calls, and %s %s none: give %s "
               "in the [prices] section of config.ini (MODEL = INPUT, OUTPUT in US dollars per "
               "million tokens; docs/configuration.md, \"Usage and cost\"), or run without a budget",
               option, list, unpriced[1] == NULL ? "has" : "have",
               unpriced[1] == NULL ? "its price" : "their prices");
  return FALSE;
}

/* In batch mode, the record of the submitted batches in the experiment
 * directory: a resumed run polls the batches an interrupted one
 * submitted instead of paying for their calls again. */
static gboolean
open_batch_state (AnotExperiment  *self,
                  GError         **error)
{
  g_autofree char *path = NULL;

  if (self->batch_queue == NULL)
    return TRUE;
  path = g_build_filename (self->directory, "batches.jsonl", NULL);
  /* --force starts over: the old batches answer another run's calls. */
  if (self->settings->force && !self->resuming)
    g_unlink (path);
  return anot_batch_queue_open_state (self->batch_queue, path, error);
}

/* The journal of the run's answered calls, answers.jsonl in the
 * experiment directory: every answer is appended as it arrives, and a
 * resume replays those of the requests it runs again instead of paying
 * for them twice. */
static gboolean
open_journal (AnotExperiment  *self,
              GError         **error)
{
  g_autofree char *path = g_build_filename (self->directory, "answers.jsonl", NULL);

  /* --force starts over: the old answers are another run's. */
  if (self->settings->force && !self->resuming)
    g_unlink (path);
  g_clear_object (&self->journal);
  self->journal = anot_call_journal_open (path, error);
  return self->journal != NULL;
}

/**
 * anot_experiment_dup_cancelled_usage:
 * @self: an #AnotExperiment
 *
 * The LLM calls of the experiment, this run and the interrupted ones it
 * resumes, that were cancelled while on the wire (Ctrl-C, a request's
 * deadline, a run that stopped): the provider may have answered and
 * billed them, but no answer or usage came back.  They are in no row;
 * `answers.jsonl` keeps them, and `config.json` and `summary.json` count
 * them under `usage.cancelled_in_flight` with their estimated cost (see
 * anot_usage_get_cancelled_cost_usd()).
 *
 * Returns: (transfer full): a usage record whose only counts are
 *   anot_usage_get_cancelled_calls() and
 *   anot_usage_get_cancelled_cost_usd(); empty before the run starts
 */
AnotUsage *
anot_experiment_dup_cancelled_usage (AnotExperiment *self)
{
  AnotUsage *usage;

  g_return_val_if_fail (ANOT_IS_EXPERIMENT (self), NULL);

  usage = anot_usage_new ();
  if (self->journal != NULL)
    anot_call_journal_add_cancelled (self->journal, NULL, usage);
  return usage;
}

/**
 * anot_experiment_get_batch_queue:
 * @self: an #AnotExperiment
 *
 * Returns: (transfer none) (nullable): the queue that sends the run's LLM
 *   calls through the providers' batch APIs, in batch mode once prepared;
 *   %NULL otherwise
 */
AnotBatchQueue *
anot_experiment_get_batch_queue (AnotExperiment *self)
{
  g_return_val_if_fail (ANOT_IS_EXPERIMENT (self), NULL);
  return self->batch_queue;
}

/**
 * anot_experiment_get_router:
 * @self: an #AnotExperiment
 *
 * The router the run's LLM calls go through, once prepared: where a
 * progress display reads the backends' pace (see
 * [method@Anot.BackendRouter.list_http_backends]).
 *
 * Returns: (transfer none) (nullable): the router, or %NULL before the
 *   run is prepared
 */
AnotBackendRouter *
anot_experiment_get_router (AnotExperiment *self)
{
  g_return_val_if_fail (ANOT_IS_EXPERIMENT (self), NULL);
  return self->router;
}

static void
on_run_cancelled (GCancellable *cancellable,
                  GCancellable *jobs_cancellable)
{
  g_cancellable_cancel (jobs_cancellable);
}

/**
 * anot_experiment_run_async:
 * @self: an #AnotExperiment
 * @cancellable: (nullable): cancels the run: no new request starts, the
 *   ones in flight get the cancellation, and the results so far are
 *   written with status `interrupted`
 * @callback: called when the run is over
 * @user_data: data for @callback
 *
 * Runs the experiment on the thread-default main context.
 */
void
anot_experiment_run_async (AnotExperiment      *self,
                           GCancellable        *cancellable,
                           GAsyncReadyCallback  callback,
                           gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;
  g_autoptr(GError) error = NULL;

  g_return_if_fail (ANOT_IS_EXPERIMENT (self));
  g_return_if_fail (cancellable == NULL || G_IS_CANCELLABLE (cancellable));

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, anot_experiment_run_async);
  /* The run reports cancellation itself, after writing what it has. */
  g_task_set_check_cancellable (task, FALSE);

  if (self->task != NULL)
    {
      g_task_return_new_error (task, ANOT_ERROR, ANOT_ERROR_INVALID_ARGUMENT,
                               "The experiment is already running");
      return;
    }

  if (!anot_experiment_check_api_keys (self, &error) ||
      !anot_experiment_open_directories (self, &error) ||
      !open_batch_state (self, &error) ||
      !open_journal (self, &error))
    {
      anot_experiment_unlock_directory (self);
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }

  self->task = g_steal_pointer (&task);
  self->cancellable = cancellable ? g_object_ref (cancellable) : g_cancellable_new ();
  self->jobs_cancellable = g_cancellable_new ();
  self->cancelled_handler = g_cancellable_connect (self->cancellable,
                                                   G_CALLBACK (on_run_cancelled),
                                                   self->jobs_cancellable, NULL);
  self->cell_index = 0;
  self->in_flight = 0;
  self->n_unwritten = 0;
  g_clear_error (&self->fatal);
  anot_experiment_budget_reset (self);

  anot_experiment_start (self);
}

/**
 * anot_experiment_run_finish:
 * @self: an #AnotExperiment
 * @result: the result passed to the callback
 * @error: return location for a #GError
 *
 * Finishes a run.  A cancelled run fails with %G_IO_ERROR_CANCELLED after
 * writing its results; a run in which every request failed fails with
 * %ANOT_ERROR_METHOD_FAILED (its rows are written); a run that finished
 * with requests the infrastructure failed (unscored, see
 * [method@Anot.Result.is_scored]) fails with %ANOT_ERROR_INCOMPLETE after
 * writing everything, and a resume runs those requests again; an error no
 * retry fixes and every request would get (a refused API key, an unknown
 * model, a missing key or another LLM configuration error) stops the run at
 * its first occurrence with that error, leaving the requests it stopped
 * without a row for a resume.
 *
 * Returns: %TRUE when the run completed
 */
gboolean
anot_experiment_run_finish (AnotExperiment  *self,
                            GAsyncResult    *result,
                            GError         **error)
{
  g_return_val_if_fail (ANOT_IS_EXPERIMENT (self), FALSE);
  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);

  return g_task_propagate_boolean (G_TASK (result), error);
}

static void
on_sync_run_done (GObject      *source,
                  GAsyncResult *result,
                  gpointer      user_data)
{
  GAsyncResult **out = user_data;

  *out = g_object_ref (result);
}

/**
 * anot_experiment_run:
 * @self: an #AnotExperiment
 * @cancellable: (nullable): a #GCancellable
 * @error: return location for a #GError
 *
 * Runs the experiment and waits for it, iterating a main context of its
 * own (pushed as the thread-default one meanwhile).
 *
 * Returns: %TRUE when the run completed
 */
gboolean
anot_experiment_run (AnotExperiment  *self,
                     GCancellable    *cancellable,
                     GError         **error)
{
  g_autoptr(GMainContext) context = g_main_context_new ();
  g_autoptr(GAsyncResult) result = NULL;
  gboolean ok;

  g_return_val_if_fail (ANOT_IS_EXPERIMENT (self), FALSE);

  g_main_context_push_thread_default (context);
  anot_experiment_run_async (self, cancellable, on_sync_run_done, &result);
  while (result == NULL)
    g_main_context_iteration (context, TRUE);
  ok = anot_experiment_run_finish (self, result, error);
  g_main_context_pop_thread_default (context);

  return ok;
}

/* ------------------------------------------------------------------------
 * Accessors
 * --------------------------------------------------------------------- */

/**
 * anot_experiment_get_directory:
 * @self: an #AnotExperiment
 *
 * Returns: (nullable): the experiment directory `<out>/<name>`, or %NULL
 *   before the options were checked
 */
const char *
anot_experiment_get_directory (AnotExperiment *self)
{
  g_return_val_if_fail (ANOT_IS_EXPERIMENT (self), NULL);
  return self->directory;
}

/**
 * anot_experiment_get_n_planned:
 * @self: an #AnotExperiment
 *
 * Returns: the number of (run, N, request) combinations, 0 before the
 *   options were checked
 */
guint
anot_experiment_get_n_planned (AnotExperiment *self)
{
  g_return_val_if_fail (ANOT_IS_EXPERIMENT (self), 0);
  return self->n_planned;
}

/**
 * anot_experiment_get_n_dropped:
 * @self: an #AnotExperiment
 * @n_candidates: N
 *
 * In `original` pool mode, the number of selected requests whose gold is
 * not in the top-N pool and which are therefore not run at that N.
 *
 * Returns: the number of dropped requests (0 in `sampled` mode)
 */
guint
anot_experiment_get_n_dropped (AnotExperiment *self,
                               guint           n_candidates)
{
  g_return_val_if_fail (ANOT_IS_EXPERIMENT (self), 0);

  if (self->dropped == NULL)
    return 0;
  return GPOINTER_TO_UINT (g_hash_table_lookup (self->dropped, GUINT_TO_POINTER (n_candidates)));
}

/**
 * anot_experiment_get_metrics:
 * @self: an #AnotExperiment
 * @n_candidates: N
 * @run: the 1-based run
 *
 * Computes the metrics of the results so far of one run and N, for the
 * first attack of the experiment (`clean` without attacks); see
 * [method@Anot.Experiment.get_attack_metrics] for the others.
 *
 * Returns: (transfer full) (nullable): the metrics, or %NULL when that
 *   run and N are not part of the experiment
 */
AnotMetrics *
anot_experiment_get_metrics (AnotExperiment *self,
                             guint           n_candidates,
                             guint           run)
{
  Cell *cell;

  g_return_val_if_fail (ANOT_IS_EXPERIMENT (self), NULL);

  cell = anot_experiment_find_cell (self, NULL, run, n_candidates);
  if (cell == NULL)
    return NULL;
  return anot_experiment_cell_metrics (self, cell);
}

/**
 * anot_experiment_get_results:
 * @self: an #AnotExperiment
 * @n_candidates: N
 * @run: the 1-based run
 *
 * The array holds a reference on each result and releases it when freed
 * (hence `transfer container`: the bindings must not release them twice).
 *
 * Returns: (transfer container) (element-type Anot.Result) (nullable): the
 *   results so far of one run and N, sorted by request id, or %NULL when
 *   that run and N are not part of the experiment
 */
GPtrArray *
anot_experiment_get_results (AnotExperiment *self,
                             guint           n_candidates,
                             guint           run)
{
  Cell *cell;

  g_return_val_if_fail (ANOT_IS_EXPERIMENT (self), NULL);

  cell = anot_experiment_find_cell (self, NULL, run, n_candidates);
  if (cell == NULL)
    return NULL;
  return anot_experiment_cell_sorted_rows (cell);
}

/**
 * anot_experiment_get_candidate_counts:
 * @self: an #AnotExperiment
 * @n_counts: (out): the number of counts
 *
 * Returns: (array length=n_counts) (transfer none) (nullable): every N the
 *   experiment covers, including skipped ones, or %NULL before the options
 *   were checked
 */
const guint *
anot_experiment_get_candidate_counts (AnotExperiment *self,
                                      guint          *n_counts)
{
  g_return_val_if_fail (ANOT_IS_EXPERIMENT (self), NULL);
  g_return_val_if_fail (n_counts != NULL, NULL);

  if (self->settings->candidates == NULL)
    {
      *n_counts = 0;
      return NULL;
    }
  *n_counts = self->settings->candidates->len;
  return (const guint *) self->settings->candidates->data;
}

/**
 * anot_experiment_get_n_runs:
 * @self: an #AnotExperiment
 *
 * Returns: the number of runs, 0 before the options were checked
 */
guint
anot_experiment_get_n_runs (AnotExperiment *self)
{
  g_return_val_if_fail (ANOT_IS_EXPERIMENT (self), 0);
  return self->prepared ? self->settings->runs : 0;
}

/**
 * anot_experiment_is_skipped:
 * @self: an #AnotExperiment
 * @n_candidates: N
 *
 * Returns: %TRUE when @n_candidates is larger than the dataset and is
 *   therefore skipped
 */
gboolean
anot_experiment_is_skipped (AnotExperiment *self,
                               guint           n_candidates)
{
  g_return_val_if_fail (ANOT_IS_EXPERIMENT (self), FALSE);

  return self->skipped != NULL &&
         g_hash_table_contains (self->skipped, GUINT_TO_POINTER (n_candidates));
}

/**
 * anot_experiment_list_attacks:
 * @self: an #AnotExperiment
 *
 * Lists the attacks the experiment runs, in order, once the options were
 * checked: `clean` for no attack, and the registered names the `attack`
 * option selected (categories and `all` expanded).
 *
 * Returns: (transfer full) (array zero-terminated=1) (nullable): the
 *   attack names, or %NULL before the options were checked
 */
char **
anot_experiment_list_attacks (AnotExperiment *self)
{
  GPtrArray *names;

  g_return_val_if_fail (ANOT_IS_EXPERIMENT (self), NULL);

  if (!self->prepared || self->attacks == NULL)
    return NULL;
  names = g_ptr_array_new ();
  for (guint i = 0; i < self->attacks->len; i++)
    g_ptr_array_add (names, g_strdup (((AttackEntry *) g_ptr_array_index (self->attacks, i))->name));
  g_ptr_array_add (names, NULL);
  return (char **) g_ptr_array_free (names, FALSE);
}

/**
 * anot_experiment_get_attack:
 * @self: an #AnotExperiment
 * @attack: an attack name from [method@Anot.Experiment.list_attacks]
 *
 * Returns: (transfer none) (nullable): the attack object with its
 *   parameters, or %NULL for `clean` or an attack the experiment does not
 *   run
 */
AnotAttack *
anot_experiment_get_attack (AnotExperiment *self,
                            const char     *attack)
{
  AttackEntry *entry;

  g_return_val_if_fail (ANOT_IS_EXPERIMENT (self), NULL);
  g_return_val_if_fail (attack != NULL, NULL);

  entry = anot_experiment_find_attack (self, attack);
  return entry ? entry->attack : NULL;
}

/**
 * anot_experiment_get_attack_directory:
 * @self: an #AnotExperiment
 * @attack: an attack name from [method@Anot.Experiment.list_attacks]
 *
 * Returns: (nullable): the attack's results directory
 *   `<out>/<name>/<attack>`, or %NULL when the experiment does not run
 *   @attack
 */
const char *
anot_experiment_get_attack_directory (AnotExperiment *self,
                                      const char     *attack)
{
  AttackEntry *entry;

  g_return_val_if_fail (ANOT_IS_EXPERIMENT (self), NULL);
  g_return_val_if_fail (attack != NULL, NULL);

  entry = anot_experiment_find_attack (self, attack);
  return entry ? entry->dir : NULL;
}

/**
 * anot_experiment_get_current_attack:
 * @self: an #AnotExperiment
 *
 * Returns: (nullable): the attack being run, or %NULL when no run is in
 *   progress
 */
const char *
anot_experiment_get_current_attack (AnotExperiment *self)
{
  g_return_val_if_fail (ANOT_IS_EXPERIMENT (self), NULL);

  if (self->task == NULL || self->cells == NULL || self->cell_index >= self->cells->len)
    return NULL;
  return ((Cell *) g_ptr_array_index (self->cells, self->cell_index))->attack->name;
}

/**
 * anot_experiment_get_defense:
 * @self: an #AnotExperiment
 *
 * Returns: whether the experiment runs in defense mode (the `defense`
 *   option), once the options were checked
 */
gboolean
anot_experiment_get_defense (AnotExperiment *self)
{
  g_return_val_if_fail (ANOT_IS_EXPERIMENT (self), FALSE);
  return self->prepared && self->settings->defense;
}

/**
 * anot_experiment_get_attack_metrics:
 * @self: an #AnotExperiment
 * @attack: an attack name from [method@Anot.Experiment.list_attacks]
 * @n_candidates: N
 * @run: the 1-based run
 *
 * Computes the metrics of the results so far of one attack, run and N.
 *
 * Returns: (transfer full) (nullable): the metrics, or %NULL when that
 *   attack, run and N are not part of the experiment
 */
AnotMetrics *
anot_experiment_get_attack_metrics (AnotExperiment *self,
                                    const char     *attack,
                                    guint           n_candidates,
                                    guint           run)
{
  AttackEntry *entry;
  Cell *cell;

  g_return_val_if_fail (ANOT_IS_EXPERIMENT (self), NULL);
  g_return_val_if_fail (attack != NULL, NULL);

  entry = anot_experiment_find_attack (self, attack);
  if (entry == NULL)
    return NULL;
  cell = anot_experiment_find_cell (self, entry, run, n_candidates);
  if (cell == NULL)
    return NULL;
  return anot_experiment_cell_metrics (self, cell);
}

/**
 * anot_experiment_get_attack_results:
 * @self: an #AnotExperiment
 * @attack: an attack name from [method@Anot.Experiment.list_attacks]
 * @n_candidates: N
 * @run: the 1-based run
 *
 * Returns: (transfer container) (element-type Anot.Result) (nullable): the
 *   results so far of one attack, run and N, sorted by request id, or
 *   %NULL when they are not part of the experiment
 */
GPtrArray *
anot_experiment_get_attack_results (AnotExperiment *self,
                                    const char     *attack,
                                    guint           n_candidates,
                                    guint           run)
{
  AttackEntry *entry;
  Cell *cell;

  g_return_val_if_fail (ANOT_IS_EXPERIMENT (self), NULL);
  g_return_val_if_fail (attack != NULL, NULL);

  entry = anot_experiment_find_attack (self, attack);
  if (entry == NULL)
    return NULL;
  cell = anot_experiment_find_cell (self, entry, run, n_candidates);
  if (cell == NULL)
    return NULL;
  return anot_experiment_cell_sorted_rows (cell);
}
