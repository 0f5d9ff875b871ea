/* anot-method-context.c: what a method gets besides the request
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "anot-method-context.h"

#include "anot-defense-prompt-private.h"
#include "anot-method-context-private.h"

#include "anot-backend-private.h"
#include "anot-call-journal-private.h"
#include "anot-error-private.h"
#include "anot-usage-private.h"
#include "anot-backend-router-private.h"
#include "anot-enum-types.h"
#include "anot-error.h"
#include "anot-seed.h"

#include <stdlib.h>

/**
 * AnotMethodContext:
 *
 * Per-request context handed to [method@Anot.Method.rank_async]: the
 * request id, the seed of every random choice the method makes for this
 * request, string options (`--method-option key=value`), the reviewers'
 * friend graph ([method@Anot.MethodContext.get_friends]), the
 * [class@Anot.Usage] that LLM calls made for this request are counted in,
 * the [class@Anot.BackendRouter] that picks the backend of each role and the
 * run's [class@Anot.DebugLog].
 *
 * The context is blind: it holds the dataset (for the friend graph) but
 * does not hand it out, since the dataset holds every request with its
 * gold.  Only a method registered with %ANOT_PLUGIN_NEEDS_TRUTH is given
 * the full request ([method@Anot.MethodContext.get_truth_request]) and
 * the validator ([method@Anot.MethodContext.get_validator]); for any other
 * both are %NULL.
 *
 * Methods make LLM calls with [method@Anot.MethodContext.complete_async]:
 * it routes the call by role, tags it with the request id (the backends'
 * queues are fair across requests), adds the completion to this
 * request's usage under its role, and writes the call to `debug.log`
 * (one line at level 2, the prompt and the answer at level 3).
 *
 * One context is created per (request, candidate count, run), so a method
 * may keep request-scoped state in it through g_object_set_data().
 */

struct _AnotMethodContext
{
  GObject parent_instance;

  AnotDataset *dataset;
  AnotValidator *validator;
  AnotRequest *truth_request; /* only for methods that need the truth */
  char *request_id;
  guint64 seed;
  AnotUsage *usage;
  GHashTable *options;
  AnotBackendRouter *router;
  AnotDebugLog *debug_log;
  gboolean defense;
  AnotCompatMode compat;
  const char *defense_prompt;   /* interned, nullable: set by the experiment */
  gboolean has_config_file;     /* set by the experiment... */
  AnotIniReader *config_file;   /* ...nullable: the run had no config.ini */
  GError *infrastructure_error; /* the first call that failed for the infrastructure */
  guint replaced_characters;    /* \u0000 and lone surrogates of every answer, as U+FFFD */
  guint max_calls;              /* declared by the method; 0: not declared */
  AnotCallGateFunc gate;        /* set by the experiment: its budgets */
  GError *gate_error;           /* the first call the gate refused */
  AnotCallDoneFunc gate_done;
  gpointer gate_data;
  GDestroyNotify gate_destroy;
  guint calls_pending;          /* sent to the router, not yet answered */
  AnotCallJournal *journal;     /* nullable: set by the experiment */
  char *journal_scope;          /* the cell and request, in the journal's keys */
  GHashTable *occurrences;      /* role and call -> how many were made */
  AnotUsage *replayed;          /* nullable: the answers the journal gave back */
};

/* One LLM call of the method, from its start to its answer: its role,
 * its key in the journal, and the budgets' ticket. */
typedef struct
{
  char *role;
  char *journal_key;            /* nullable */
  AnotCallDoneFunc done;
  gpointer ticket;
} Call;

static void
call_free (Call *call)
{
  /* A call that ends without a completion (failed, cancelled, or its
   * task dropped) gives its ticket back all the same. */
  if (call->done != NULL)
    call->done (call->ticket, NULL);
  g_free (call->role);
  g_free (call->journal_key);
  g_free (call);
}

G_DEFINE_FINAL_TYPE (AnotMethodContext, anot_method_context, G_TYPE_OBJECT)

enum {
  PROP_0,
  PROP_DATASET,
  PROP_REQUEST_ID,
  PROP_SEED,
  PROP_USAGE,
  PROP_ROUTER,
  PROP_DEBUG_LOG,
  PROP_DEFENSE,
  PROP_COMPAT,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

static void
anot_method_context_finalize (GObject *object)
{
  AnotMethodContext *self = ANOT_METHOD_CONTEXT (object);

  g_clear_object (&self->dataset);
  g_clear_object (&self->validator);
  g_clear_object (&self->truth_request);
  g_clear_object (&self->usage);
  g_clear_object (&self->router);
  g_clear_object (&self->debug_log);
  g_free (self->request_id);
  g_hash_table_unref (self->options);
  g_clear_pointer (&self->config_file, anot_ini_reader_unref);
  g_clear_error (&self->infrastructure_error);
  g_clear_error (&self->gate_error);
  g_clear_object (&self->journal);
  g_free (self->journal_scope);
  g_clear_pointer (&self->occurrences, g_hash_table_unref);
  g_clear_object (&self->replayed);

  if (self->gate_destroy != NULL)
    self->gate_destroy (self->gate_data);
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
    case PROP_REQUEST_ID:
      g_value_set_string (value, self->request_id);
      break;
    case PROP_SEED:
      g_value_set_uint64 (value, self->seed);
      break;
    case PROP_USAGE:
      g_value_set_object (value, self->usage);
      break;
    case PROP_ROUTER:
      g_value_set_object (value, self->router);
      break;
    case PROP_DEBUG_LOG:
      g_value_set_object (value, self->debug_log);
      break;
    case PROP_DEFENSE:
      g_value_set_boolean (value, self->defense);
      break;
    case PROP_COMPAT:
      g_value_set_enum (value, self->compat);
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
    case PROP_ROUTER:
      anot_method_context_set_router (self, g_value_get_object (value));
      break;
    case PROP_DEBUG_LOG:
      anot_method_context_set_debug_log (self, g_value_get_object (value));
      break;
    case PROP_DEFENSE:
      anot_method_context_set_defense (self, g_value_get_boolean (value));
      break;
    case PROP_COMPAT:
      anot_method_context_set_compat (self, g_value_get_enum (value));
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
   * The dataset the request belongs to.  Write-only: the context answers
   * friend-graph lookups from it but never hands it to a method, since it
   * holds every request's gold.
   */
  properties[PROP_DATASET] =
    g_param_spec_object ("dataset", NULL, NULL, ANOT_TYPE_DATASET,
                         G_PARAM_WRITABLE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS);
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
   * AnotMethodContext:usage:
   *
   * LLM usage of this request; methods add every completion to it.
   */
  properties[PROP_USAGE] =
    g_param_spec_object ("usage", NULL, NULL, ANOT_TYPE_USAGE,
                         G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);

  /**
   * AnotMethodContext:router:
   *
   * The router of the run's LLM calls, or %NULL when the run has none.
   */
  properties[PROP_ROUTER] =
    g_param_spec_object ("router", NULL, NULL, ANOT_TYPE_BACKEND_ROUTER,
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  /**
   * AnotMethodContext:debug-log:
   *
   * The run's `debug.log`, or %NULL when `ANOT_DEBUG` is 0.
   */
  properties[PROP_DEBUG_LOG] =
    g_param_spec_object ("debug-log", NULL, NULL, ANOT_TYPE_DEBUG_LOG,
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  /**
   * AnotMethodContext:defense:
   *
   * Whether the run is in defense mode (`anot-run --defense`): methods that
   * prompt an LLM add [method@Anot.MethodContext.get_defense_prompt] to
   * their instructions.
   */
  properties[PROP_DEFENSE] =
    g_param_spec_boolean ("defense", NULL, NULL, FALSE,
                          G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  /**
   * AnotMethodContext:compat:
   *
   * Whether the run compares like for like with the original framework's
   * published runs (`anot-run --compat original`): a method then uses the
   * original's prompt wording where it is recorded, reads answers with
   * %ANOT_PARSE_ORIGINAL and runs the original's variant of itself (see
   * `docs/fidelity.md`).
   */
  properties[PROP_COMPAT] =
    g_param_spec_enum ("compat", NULL, NULL, ANOT_TYPE_COMPAT_MODE, ANOT_COMPAT_MODE_NONE,
                       G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);

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
 * @seed: the seed of the method's random choices for this request (not
 *   the experiment's or the run's seed: anot_method_context_new_for_run()
 *   derives it as a run does)
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
 * anot_method_context_derive_seed:
 * @run_seed: the run seed: the experiment's seed plus the run number
 *   (`--seed 42`, run 1: 43)
 * @request_id: the request's id
 * @n_candidates: the pool size N
 *
 * The seed of a method's random choices for one request, N and run, as an
 * experiment derives it (`method:<request id>:<N>` under the run seed, see
 * [func@Anot.seed_derive]).
 *
 * Returns: the method's seed
 */
guint64
anot_method_context_derive_seed (guint64     run_seed,
                                 const char *request_id,
                                 guint       n_candidates)
{
  g_autofree char *scope = NULL;

  g_return_val_if_fail (request_id != NULL, 0);

  scope = g_strdup_printf ("method:%s:%u", request_id, n_candidates);
  return anot_seed_derive (run_seed, scope);
}

/**
 * anot_method_context_new_for_run:
 * @dataset: the dataset the request belongs to
 * @request_id: the request's id
 * @n_candidates: the pool size N
 * @seed: the experiment's seed (`--seed`, 42 by default)
 * @run: the run, from 1
 *
 * A context as run @run of an experiment with @seed gives the method for
 * @request_id at N = @n_candidates: the same #AnotMethodContext:seed, so a
 * seeded method ranks as it does in that run (with the pool of
 * `anot_pool_new (dataset, request, n, mode, shuffle, seed + run)`).  What
 * an experiment adds beside it (the LLM router, options, defense mode) is
 * set with the context's setters.
 *
 * Returns: (transfer full): a new context
 */
AnotMethodContext *
anot_method_context_new_for_run (AnotDataset *dataset,
                                 const char  *request_id,
                                 guint        n_candidates,
                                 guint64      seed,
                                 guint        run)
{
  g_return_val_if_fail (ANOT_IS_DATASET (dataset), NULL);
  g_return_val_if_fail (request_id != NULL, NULL);
  g_return_val_if_fail (run >= 1, NULL);

  return anot_method_context_new (dataset, request_id,
                                  anot_method_context_derive_seed (seed + run, request_id,
                                                                   n_candidates));
}

/**
 * anot_method_context_get_domain:
 * @self: an #AnotMethodContext
 *
 * Gets what the benchmark's items are (#AnotDataset:domain): the nouns and
 * example attributes a method's prompts use.  It says nothing of any
 * request, so a blind method may read it.
 *
 * Returns: (transfer none): the domain (restaurants when the benchmark
 *   declares none)
 */
AnotDomain *
anot_method_context_get_domain (AnotMethodContext *self)
{
  static AnotDomain *fallback;

  g_return_val_if_fail (ANOT_IS_METHOD_CONTEXT (self), NULL);

  if (self->dataset != NULL)
    return anot_dataset_get_domain (self->dataset);
  if (g_once_init_enter (&fallback))
    g_once_init_leave (&fallback, anot_domain_new_default ());
  return fallback;
}

/**
 * anot_method_context_get_friends:
 * @self: an #AnotMethodContext
 * @name: a reviewer's name
 *
 * Gets the friends of @name in the dataset's friend graph (see
 * anot_dataset_get_friends()): the social data a method may use without
 * being handed the dataset.
 *
 * Returns: (nullable) (transfer none) (array zero-terminated=1): the
 *   friends, or %NULL if @name is not in the graph
 */
const char * const *
anot_method_context_get_friends (AnotMethodContext *self,
                                 const char        *name)
{
  g_return_val_if_fail (ANOT_IS_METHOD_CONTEXT (self), NULL);
  g_return_val_if_fail (name != NULL, NULL);

  return self->dataset != NULL ? anot_dataset_get_friends (self->dataset, name) : NULL;
}

/**
 * anot_method_context_lookup_friends:
 * @self: an #AnotMethodContext
 * @name: a reviewer's name
 * @friends: (out) (optional) (transfer none) (array zero-terminated=1):
 *   return location for the friends, %NULL if @name is not in the graph
 *
 * As anot_method_context_get_friends(), telling a name without friends
 * from a name not in the graph (Python's `get_friends()` returns `None`
 * for the latter through it).
 *
 * Returns: whether @name is in the friend graph
 */
gboolean
anot_method_context_lookup_friends (AnotMethodContext   *self,
                                    const char          *name,
                                    const char * const **friends)
{
  const char * const *found;

  g_return_val_if_fail (ANOT_IS_METHOD_CONTEXT (self), FALSE);
  g_return_val_if_fail (name != NULL, FALSE);

  found = anot_method_context_get_friends (self, name);
  if (friends != NULL)
    *friends = found;
  return found != NULL;
}

/**
 * anot_method_context_set_truth_request:
 * @self: an #AnotMethodContext
 * @request: (nullable): the full request, with its structure and gold
 *
 * Gives the context the truth of its request.  The experiment calls this
 * only for methods registered with %ANOT_PLUGIN_NEEDS_TRUTH.
 */
void
anot_method_context_set_truth_request (AnotMethodContext *self,
                                       AnotRequest       *request)
{
  g_return_if_fail (ANOT_IS_METHOD_CONTEXT (self));
  g_return_if_fail (request == NULL || ANOT_IS_REQUEST (request));
  g_return_if_fail (request == NULL || g_strcmp0 (anot_request_get_id (request), self->request_id) == 0);

  g_set_object (&self->truth_request, request);
}

/**
 * anot_method_context_get_truth_request:
 * @self: an #AnotMethodContext
 *
 * Gets the full request — structure, gold — for a method registered with
 * %ANOT_PLUGIN_NEEDS_TRUTH.
 *
 * Returns: (nullable) (transfer none): the request, or %NULL for a method
 *   that did not declare the need
 */
AnotRequest *
anot_method_context_get_truth_request (AnotMethodContext *self)
{
  g_return_val_if_fail (ANOT_IS_METHOD_CONTEXT (self), NULL);
  return self->truth_request;
}

/**
 * anot_method_context_get_validator:
 * @self: an #AnotMethodContext
 *
 * Returns the validator of the context's dataset, creating one if none was
 * set, for a method registered with %ANOT_PLUGIN_NEEDS_TRUTH.  Experiments
 * set one validator shared by all requests so its caches are reused.
 *
 * Returns: (nullable) (transfer none): the validator, or %NULL when the
 *   context was not given the truth
 */
AnotValidator *
anot_method_context_get_validator (AnotMethodContext *self)
{
  g_return_val_if_fail (ANOT_IS_METHOD_CONTEXT (self), NULL);

  if (self->truth_request == NULL)
    return NULL;
  if (self->validator == NULL && self->dataset != NULL)
    self->validator = anot_validator_new (self->dataset);
  return self->validator;
}

/**
 * anot_method_context_set_validator:
 * @self: an #AnotMethodContext
 * @validator: (nullable): a validator of the same dataset
 *
 * Sets the validator that [method@Anot.MethodContext.get_validator]
 * returns once the context has the truth; an experiment shares one among
 * its requests so its caches are reused.
 */
void
anot_method_context_set_validator (AnotMethodContext *self,
                                   AnotValidator     *validator)
{
  g_return_if_fail (ANOT_IS_METHOD_CONTEXT (self));
  g_return_if_fail (validator == NULL || ANOT_IS_VALIDATOR (validator));

  g_set_object (&self->validator, validator);
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

/**
 * anot_method_context_get_router:
 * @self: an #AnotMethodContext
 *
 * Returns: (transfer none) (nullable): the router of the run's LLM calls
 */
AnotBackendRouter *
anot_method_context_get_router (AnotMethodContext *self)
{
  g_return_val_if_fail (ANOT_IS_METHOD_CONTEXT (self), NULL);
  return self->router;
}

/**
 * anot_method_context_is_backlogged:
 * @self: an #AnotMethodContext
 * @role: the role that would make the call
 *
 * Whether a call of @role made now would wait behind a full round of the
 * run's calls (see anot_backend_router_is_backlogged()).  A method that
 * issues many calls at once (one per candidate) writes and sends the next
 * only while this is %FALSE or none of its own calls is out, and the rest
 * as its calls come back: the backend is kept busy either way, and the
 * prompts not yet sent are not held in memory.
 *
 * Returns: %TRUE when the backend already has a round of calls waiting;
 *   %FALSE without a router
 */
gboolean
anot_method_context_is_backlogged (AnotMethodContext *self,
                                   const char        *role)
{
  g_return_val_if_fail (ANOT_IS_METHOD_CONTEXT (self), FALSE);
  g_return_val_if_fail (role != NULL, FALSE);

  return self->router != NULL && anot_backend_router_is_backlogged (self->router, role);
}

/**
 * anot_method_context_set_router:
 * @self: an #AnotMethodContext
 * @router: (nullable): a router
 *
 * Sets [property@Anot.MethodContext:router].
 */
void
anot_method_context_set_router (AnotMethodContext *self,
                                AnotBackendRouter *router)
{
  g_return_if_fail (ANOT_IS_METHOD_CONTEXT (self));
  g_return_if_fail (router == NULL || ANOT_IS_BACKEND_ROUTER (router));

  if (g_set_object (&self->router, router))
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_ROUTER]);
}

/**
 * anot_method_context_get_debug_log:
 * @self: an #AnotMethodContext
 *
 * Returns: (transfer none) (nullable): the run's debug log
 */
AnotDebugLog *
anot_method_context_get_debug_log (AnotMethodContext *self)
{
  g_return_val_if_fail (ANOT_IS_METHOD_CONTEXT (self), NULL);
  return self->debug_log;
}

/**
 * anot_method_context_set_debug_log:
 * @self: an #AnotMethodContext
 * @log: (nullable): a debug log
 *
 * Sets [property@Anot.MethodContext:debug-log].
 */
void
anot_method_context_set_debug_log (AnotMethodContext *self,
                                   AnotDebugLog      *log)
{
  g_return_if_fail (ANOT_IS_METHOD_CONTEXT (self));
  g_return_if_fail (log == NULL || ANOT_IS_DEBUG_LOG (log));

  if (g_set_object (&self->debug_log, log))
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_DEBUG_LOG]);
}

/**
 * anot_method_context_get_debug_level:
 * @self: an #AnotMethodContext
 *
 * Methods check it before building expensive debug messages.
 *
 * Returns: the level of the debug log, %ANOT_DEBUG_LEVEL_OFF without one
 */
AnotDebugLevel
anot_method_context_get_debug_level (AnotMethodContext *self)
{
  g_return_val_if_fail (ANOT_IS_METHOD_CONTEXT (self), ANOT_DEBUG_LEVEL_OFF);
  return self->debug_log ? anot_debug_log_get_level (self->debug_log) : ANOT_DEBUG_LEVEL_OFF;
}

/**
 * anot_method_context_debug_message:
 * @self: an #AnotMethodContext
 * @level: the level of the message
 * @phase: (nullable): a short tag such as `P1`
 * @message: the text
 *
 * Writes a line for this request to the debug log, if there is one and
 * its level is at least @level.
 */
void
anot_method_context_debug_message (AnotMethodContext *self,
                                   AnotDebugLevel     level,
                                   const char        *phase,
                                   const char        *message)
{
  g_return_if_fail (ANOT_IS_METHOD_CONTEXT (self));
  g_return_if_fail (message != NULL);

  if (self->debug_log != NULL)
    anot_debug_log_write (self->debug_log, level, phase, self->request_id, message);
}

/**
 * anot_method_context_debug: (skip)
 * @self: an #AnotMethodContext
 * @level: the level of the message
 * @phase: (nullable): a short tag such as `P1`
 * @format: a printf() format
 * @...: its arguments
 *
 * Like anot_method_context_debug_message(), formatting only when the line
 * is written.
 */
void
anot_method_context_debug (AnotMethodContext *self,
                           AnotDebugLevel     level,
                           const char        *phase,
                           const char        *format,
                           ...)
{
  g_autofree char *message = NULL;
  va_list args;

  g_return_if_fail (ANOT_IS_METHOD_CONTEXT (self));
  g_return_if_fail (format != NULL);

  if (level == ANOT_DEBUG_LEVEL_OFF || anot_method_context_get_debug_level (self) < level)
    return;
  va_start (args, format);
  message = g_strdup_vprintf (format, args);
  va_end (args);
  anot_debug_log_write (self->debug_log, level, phase, self->request_id, message);
}

static const char *
chat_role_name (AnotChatRole role)
{
  switch (role)
    {
    case ANOT_CHAT_ROLE_SYSTEM:
      return "system";
    case ANOT_CHAT_ROLE_ASSISTANT:
      return "assistant";
    case ANOT_CHAT_ROLE_USER:
    default:
      return "user";
    }
}

/* An answer, called or replayed from the journal, counted and logged. */
static void
context_take_answer (AnotMethodContext *self,
                     const char        *role,
                     const char        *backend_name,
                     AnotCompletion    *completion,
                     gboolean           replayed)
{
  anot_usage_add_completion (self->usage, completion);
  self->replaced_characters += anot_completion_get_replaced_characters (completion);
  anot_method_context_debug (self, ANOT_DEBUG_LEVEL_VERBOSE, "LLM",
                             "%s %s:%s %" G_GUINT64_FORMAT "+%" G_GUINT64_FORMAT
                             " tokens, %.0f ms, %u retries%s%s%s",
                             role, backend_name ? backend_name : "?",
                             anot_completion_get_model (completion)
                             ? anot_completion_get_model (completion) : "?",
                             anot_completion_get_prompt_tokens (completion),
                             anot_completion_get_completion_tokens (completion),
                             anot_completion_get_latency_ms (completion),
                             anot_completion_get_retries (completion),
                             anot_completion_get_cached (completion) ? ", cached" : "",
                             replayed ? ", replayed from the journal (paid by an earlier attempt)" : "",
                             anot_completion_get_replaced_characters (completion) > 0
                             ? ", \\u0000 or lone surrogates read as U+FFFD" : "");
  anot_method_context_debug (self, ANOT_DEBUG_LEVEL_FULL, "LLM", "%s response:\n%s",
                             role, anot_completion_get_text (completion)
                             ? anot_completion_get_text (completion) : "");
}

static void
on_routed_complete (GObject      *source,
                    GAsyncResult *result,
                    gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  AnotMethodContext *self = g_task_get_source_object (task);
  Call *call = g_task_get_task_data (task);
  const char *role = call->role;
  g_autoptr(GError) error = NULL;
  g_autoptr(AnotCompletion) completion = NULL;

  self->calls_pending--;
  completion = anot_backend_router_complete_finish (ANOT_BACKEND_ROUTER (source), result, &error);
  if (completion != NULL && call->done != NULL)
    {
      call->done (call->ticket, completion);
      call->done = NULL;
    }
  if (completion == NULL)
    {
      AnotCancelledCall cancelled;

      if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        anot_method_context_debug (self, ANOT_DEBUG_LEVEL_SUMMARY, "LLM", "%s failed: %s",
                                   role, error->message);
      /* Cancelled on the wire (Ctrl-C, the deadline, a stop): the
       * provider may bill it.  Not in the request's row (a request cut
       * short has none, or one a resume replaces): the journal keeps its
       * estimate for every summary of the run. */
      else if (anot_backend_result_get_cancelled_in_flight (result, &cancelled))
        {
          anot_method_context_debug (self, ANOT_DEBUG_LEVEL_SUMMARY, "LLM",
                                     "%s cancelled in flight (about %" G_GUINT64_FORMAT "+%"
                                     G_GUINT64_FORMAT " tokens, $%.6f if billed)", role,
                                     cancelled.prompt_tokens, cancelled.completion_tokens,
                                     cancelled.cost_usd);
          if (self->journal != NULL)
            anot_call_journal_append_cancelled (self->journal, self->journal_scope, role, NULL,
                                                cancelled.prompt_tokens,
                                                cancelled.completion_tokens, cancelled.cost_usd,
                                                NULL);
          /* The budgets count it as spent, at its estimate: it may be
           * billed whole. */
          if (call->done != NULL)
            {
              g_autoptr(AnotCompletion) estimate = anot_completion_new (NULL, "");

              anot_completion_set_role (estimate, role);
              anot_completion_set_cost_usd (estimate, cancelled.cost_usd);
              call->done (call->ticket, estimate);
              call->done = NULL;
            }
        }
      /* Kept even when the method gets over it (a window left out, a
       * fallback ranking): what it ranked then is not its own result. */
      if (self->infrastructure_error == NULL && anot_error_is_infrastructure (error))
        self->infrastructure_error = g_error_copy (error);
      /* Retried (a 429, a 5xx) before it gave up: counted with the rest. */
      anot_usage_add_failed_retries (self->usage, role, anot_error_get_retries (error));
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }

  /* Kept before the method sees it: a resume replays it.  A journal that
   * cannot be written stops the run (the experiment reads its error);
   * this answer, paid for, is still used. */
  if (call->journal_key != NULL)
    anot_call_journal_append (self->journal, call->journal_key, completion, NULL);
  context_take_answer (self, role,
                       anot_backend_router_get_backend_name (ANOT_BACKEND_ROUTER (source), role),
                       completion, FALSE);
  g_task_return_pointer (task, g_steal_pointer (&completion), g_object_unref);
}

/**
 * anot_method_context_complete_request_async:
 * @self: an #AnotMethodContext
 * @role: the role making the call, e.g. %ANOT_DEFAULT_ROLE or "planner"
 * @request: the call; not changed
 * @cancellable: (nullable): a #GCancellable
 * @callback: (scope async): called when the completion is ready
 * @user_data: data for @callback
 *
 * Makes one LLM call for this request through
 * [property@Anot.MethodContext:router], with every option of @request
 * (JSON output, temperature, ...).  Finish with
 * anot_method_context_complete_finish().
 */
void
anot_method_context_complete_request_async (AnotMethodContext   *self,
                                            const char          *role,
                                            AnotChatRequest     *request,
                                            GCancellable        *cancellable,
                                            GAsyncReadyCallback  callback,
                                            gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;
  g_autoptr(AnotChatRequest) copy = NULL;
  g_autoptr(GError) error = NULL;
  Call *call;

  g_return_if_fail (ANOT_IS_METHOD_CONTEXT (self));
  g_return_if_fail (role != NULL);
  g_return_if_fail (ANOT_IS_CHAT_REQUEST (request));

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, anot_method_context_complete_request_async);
  g_task_set_name (task, "[anot] method LLM call");
  call = g_new0 (Call, 1);
  call->role = g_strdup (role);
  g_task_set_task_data (task, call, (GDestroyNotify) call_free);

  if (self->router == NULL)
    {
      g_task_return_new_error (task, ANOT_ERROR, ANOT_ERROR_CONFIG,
                               "No LLM backend is available to this method (the context has "
                               "no router)");
      return;
    }

  copy = anot_chat_request_copy (request);
  anot_chat_request_set_request_id (copy, self->request_id);

  if (self->journal != NULL)
    {
      g_autofree char *call_hash = anot_chat_request_hash (copy, role);
      g_autofree char *counted = g_strconcat (role, "\n", call_hash, NULL);
      guint occurrence = GPOINTER_TO_UINT (g_hash_table_lookup (self->occurrences, counted));
      g_autoptr(AnotCompletion) replayed = NULL;

      g_hash_table_insert (self->occurrences, g_steal_pointer (&counted),
                           GUINT_TO_POINTER (occurrence + 1));
      call->journal_key = anot_call_journal_key (self->journal_scope, role, call_hash, occurrence);
      replayed = anot_call_journal_replay (self->journal, call->journal_key);
      if (replayed != NULL)
        {
          /* Paid by an earlier attempt of the run: counted again in this
           * request's row (the row of that attempt is replaced), not
           * paid again. */
          anot_completion_set_role (replayed, role);
          if (self->replayed == NULL)
            self->replayed = anot_usage_new ();
          anot_usage_add_completion (self->replayed, replayed);
          context_take_answer (self, role,
                               anot_backend_router_get_backend_name (self->router, role),
                               replayed, TRUE);
          g_task_return_pointer (task, g_steal_pointer (&replayed), g_object_unref);
          return;
        }
    }

  /* Not sent when the run's budgets have no room for it. */
  if (self->gate != NULL)
    {
      if (!self->gate (self, role, copy, self->gate_data, &call->ticket, &error))
        {
          if (self->gate_error == NULL)
            self->gate_error = g_error_copy (error);
          anot_method_context_debug (self, ANOT_DEBUG_LEVEL_SUMMARY, "LLM", "%s not sent: %s",
                                     role, error->message);
          g_task_return_error (task, g_steal_pointer (&error));
          return;
        }
      call->done = self->gate_done;
    }

  if (anot_method_context_get_debug_level (self) >= ANOT_DEBUG_LEVEL_FULL)
    {
      g_autoptr(GString) text = g_string_new (NULL);

      g_string_append_printf (text, "%s prompt:", role);
      for (guint i = 0; i < anot_chat_request_get_n_messages (copy); i++)
        g_string_append_printf (text, "\n<%s>\n%s",
                                chat_role_name (anot_chat_request_get_message_role (copy, i)),
                                anot_chat_request_get_message_content (copy, i));
      anot_debug_log_write (self->debug_log, ANOT_DEBUG_LEVEL_FULL, "LLM", self->request_id,
                            text->str);
    }

  self->calls_pending++;
  anot_backend_router_complete_copy_async (self->router, role, g_steal_pointer (&copy),
                                           cancellable, on_routed_complete,
                                           g_steal_pointer (&task));
}

/**
 * anot_method_context_complete_async:
 * @self: an #AnotMethodContext
 * @role: the role making the call, e.g. %ANOT_DEFAULT_ROLE or "planner"
 * @system_prompt: (nullable): the system prompt
 * @prompt: the user message
 * @cancellable: (nullable): a #GCancellable
 * @callback: (scope async): called when the completion is ready
 * @user_data: data for @callback
 *
 * Makes one LLM call for this request: `[system?, user]` messages sent to
 * the backend of @role with the role's configured options, counted in
 * [property@Anot.MethodContext:usage] under @role and written to the
 * debug log.  Finish with anot_method_context_complete_finish().
 */
void
anot_method_context_complete_async (AnotMethodContext   *self,
                                    const char          *role,
                                    const char          *system_prompt,
                                    const char          *prompt,
                                    GCancellable        *cancellable,
                                    GAsyncReadyCallback  callback,
                                    gpointer             user_data)
{
  g_autoptr(AnotChatRequest) request = NULL;

  g_return_if_fail (ANOT_IS_METHOD_CONTEXT (self));
  g_return_if_fail (prompt != NULL);

  request = anot_chat_request_new (system_prompt, prompt);
  anot_method_context_complete_request_async (self, role, request, cancellable, callback, user_data);
}

/**
 * anot_method_context_check_fit:
 * @self: an #AnotMethodContext
 * @role: the role that would make the call
 * @system_prompt: (nullable): the system prompt
 * @prompt: the user message
 * @prompt_tokens: (out) (optional): return location for the prompt's
 *   tokens as the router counts them (0 when no window is known)
 * @max_prompt_tokens: (out) (optional): return location for the most
 *   prompt tokens the call may have (%G_MAXUINT64 when no window is known)
 * @error: return location for a #GError
 *
 * Whether anot_method_context_complete_async() with these arguments would
 * be sent as far as the model's context window goes, without sending it:
 * see anot_backend_router_check_fit().  A method fits a prompt that is too
 * long with a few of these checks instead of one refused call per review
 * it drops; sending the prompt it settles on does not count it again.
 *
 * Returns: %TRUE if the call fits (or the context has no router); %FALSE
 *   with the error the call would fail with
 */
gboolean
anot_method_context_check_fit (AnotMethodContext  *self,
                               const char         *role,
                               const char         *system_prompt,
                               const char         *prompt,
                               guint64            *prompt_tokens,
                               guint64            *max_prompt_tokens,
                               GError            **error)
{
  g_autoptr(AnotChatRequest) request = NULL;

  g_return_val_if_fail (ANOT_IS_METHOD_CONTEXT (self), FALSE);
  g_return_val_if_fail (role != NULL, FALSE);
  g_return_val_if_fail (prompt != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if (self->router == NULL)
    {
      if (prompt_tokens != NULL)
        *prompt_tokens = 0;
      if (max_prompt_tokens != NULL)
        *max_prompt_tokens = G_MAXUINT64;
      return TRUE;
    }
  request = anot_chat_request_new (system_prompt, prompt);
  return anot_backend_router_check_fit (self->router, role, request, prompt_tokens,
                                        max_prompt_tokens, error);
}

/**
 * anot_method_context_check_fit_counted:
 * @self: an #AnotMethodContext
 * @role: the role that would make the call
 * @system_prompt: (nullable): the system prompt
 * @prompt: the user message
 * @counted_tokens: (out) (optional): return location for the tokens
 *   counted: the prompt's when the call fits; otherwise a number above
 *   @max_prompt_tokens, at most the prompt's (0 when no window is known)
 * @counted_bytes: (out) (optional): return location for the bytes of the
 *   system prompt then @prompt whose tokens were counted
 * @max_prompt_tokens: (out) (optional): return location for the most
 *   prompt tokens the call may have (%G_MAXUINT64 when no window is known)
 *
 * Like anot_method_context_check_fit(), counting a prompt that does not
 * fit only until the count passes the room: see
 * anot_backend_router_check_fit_counted().  The tokens per byte of what
 * was counted let a method guess how much of a prompt far beyond the
 * window to drop.
 *
 * Returns: %TRUE if the call fits (or the context has no router)
 */
gboolean
anot_method_context_check_fit_counted (AnotMethodContext  *self,
                                       const char         *role,
                                       const char         *system_prompt,
                                       const char         *prompt,
                                       guint64            *counted_tokens,
                                       guint64            *counted_bytes,
                                       guint64            *max_prompt_tokens)
{
  g_autoptr(AnotChatRequest) request = NULL;

  g_return_val_if_fail (ANOT_IS_METHOD_CONTEXT (self), FALSE);
  g_return_val_if_fail (role != NULL, FALSE);
  g_return_val_if_fail (prompt != NULL, FALSE);

  if (self->router == NULL)
    {
      if (counted_tokens != NULL)
        *counted_tokens = 0;
      if (counted_bytes != NULL)
        *counted_bytes = 0;
      if (max_prompt_tokens != NULL)
        *max_prompt_tokens = G_MAXUINT64;
      return TRUE;
    }
  request = anot_chat_request_new (system_prompt, prompt);
  return anot_backend_router_check_fit_counted (self->router, role, request, counted_tokens,
                                                counted_bytes, max_prompt_tokens);
}

/**
 * anot_method_context_complete_finish:
 * @self: an #AnotMethodContext
 * @result: the #GAsyncResult passed to the callback
 * @error: return location for a #GError
 *
 * Finishes anot_method_context_complete_async() or
 * anot_method_context_complete_request_async().
 *
 * Returns: (transfer full): the completion, already counted in the
 *   request's usage
 */
AnotCompletion *
anot_method_context_complete_finish (AnotMethodContext  *self,
                                     GAsyncResult       *result,
                                     GError            **error)
{
  g_return_val_if_fail (ANOT_IS_METHOD_CONTEXT (self), NULL);
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);

  return g_task_propagate_pointer (G_TASK (result), error);
}

const GError *
anot_method_context_get_gate_error (AnotMethodContext *self)
{
  g_return_val_if_fail (ANOT_IS_METHOD_CONTEXT (self), NULL);
  return self->gate_error;
}

void
anot_method_context_set_call_gate (AnotMethodContext *self,
                                   AnotCallGateFunc   gate,
                                   AnotCallDoneFunc   done,
                                   gpointer           user_data,
                                   GDestroyNotify     destroy)
{
  g_return_if_fail (ANOT_IS_METHOD_CONTEXT (self));

  if (self->gate_destroy != NULL)
    self->gate_destroy (self->gate_data);
  self->gate = gate;
  self->gate_done = done;
  self->gate_data = user_data;
  self->gate_destroy = destroy;
}

/**
 * anot_method_context_declare_max_calls:
 * @self: an #AnotMethodContext
 * @max_calls: the most LLM calls the method makes for this request
 *
 * Declares, when the method starts a request, the most calls its settings
 * allow it (ReAct: its steps and the forced finish; LATS: its iterations,
 * beam and `max_calls`).  `anot-run estimate` reports the bound, and a
 * budget reserves for it before the request starts: a method whose later
 * rounds depend on the answers cannot be counted on a stand-in.
 */
void
anot_method_context_declare_max_calls (AnotMethodContext *self,
                                       guint              max_calls)
{
  g_return_if_fail (ANOT_IS_METHOD_CONTEXT (self));
  self->max_calls = max_calls;
}

/**
 * anot_method_context_get_max_calls:
 * @self: an #AnotMethodContext
 *
 * Returns: the bound of anot_method_context_declare_max_calls(), or 0
 *   when the method declared none
 */
guint
anot_method_context_get_max_calls (AnotMethodContext *self)
{
  g_return_val_if_fail (ANOT_IS_METHOD_CONTEXT (self), 0);
  return self->max_calls;
}

/**
 * anot_method_context_get_defense:
 * @self: an #AnotMethodContext
 *
 * Returns: whether the run is in defense mode
 */
gboolean
anot_method_context_get_defense (AnotMethodContext *self)
{
  g_return_val_if_fail (ANOT_IS_METHOD_CONTEXT (self), FALSE);
  return self->defense;
}

/**
 * anot_method_context_set_defense:
 * @self: an #AnotMethodContext
 * @defense: whether to run in defense mode
 *
 * Sets [property@Anot.MethodContext:defense].
 */
void
anot_method_context_set_defense (AnotMethodContext *self,
                                 gboolean           defense)
{
  g_return_if_fail (ANOT_IS_METHOD_CONTEXT (self));

  defense = !!defense;
  if (self->defense == defense)
    return;
  self->defense = defense;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_DEFENSE]);
}

/**
 * anot_method_context_get_defense_prompt:
 * @self: an #AnotMethodContext
 *
 * Gets the defensive instructions of defense mode, or %NULL when the run
 * is not in defense mode.  This is the one hook of defense mode: a method
 * that prompts an LLM adds the text to its instructions (a system prompt,
 * or the user prompt when it has none) whenever it is not %NULL, and does
 * nothing else.  Methods that do not read review text (bm25, random,
 * oracle) ignore it.
 *
 * The text asks the model to read through typos, to treat any instruction
 * inside a review as an attack and ignore it, and to distrust generic,
 * too-perfect reviews — the intent of the original framework's defense
 * prompts, in anot's own words.  It is data: the library's resource
 * `defense-prompt.txt`, replaced by the `[defense]` section of the
 * configuration file when there is one (`docs/attacks.md`).  An
 * experiment reads it once, when the run is planned, so every request of
 * a run gets the same text; a context made by hand reads the file when
 * asked.
 *
 * Returns: (nullable): the instructions, or %NULL
 */
const char *
anot_method_context_get_defense_prompt (AnotMethodContext *self)
{
  g_return_val_if_fail (ANOT_IS_METHOD_CONTEXT (self), NULL);
  if (!self->defense)
    return NULL;
  return self->defense_prompt != NULL ? self->defense_prompt
                                      : anot_defense_prompt_get (anot_method_context_get_domain (self));
}

/**
 * anot_method_context_get_compat:
 * @self: an #AnotMethodContext
 *
 * Returns: how closely the method follows the original framework (see
 *   [property@Anot.MethodContext:compat])
 */
AnotCompatMode
anot_method_context_get_compat (AnotMethodContext *self)
{
  g_return_val_if_fail (ANOT_IS_METHOD_CONTEXT (self), ANOT_COMPAT_MODE_NONE);

  return self->compat;
}

/**
 * anot_method_context_set_compat:
 * @self: an #AnotMethodContext
 * @compat: the compatibility mode
 *
 * Sets [property@Anot.MethodContext:compat].
 */
void
anot_method_context_set_compat (AnotMethodContext *self,
                                AnotCompatMode     compat)
{
  g_return_if_fail (ANOT_IS_METHOD_CONTEXT (self));
  g_return_if_fail (compat == ANOT_COMPAT_MODE_NONE || compat == ANOT_COMPAT_MODE_ORIGINAL);

  if (self->compat == compat)
    return;
  self->compat = compat;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_COMPAT]);
}

void
anot_method_context_set_defense_prompt_text (AnotMethodContext *self,
                                             const char        *interned_prompt)
{
  g_return_if_fail (ANOT_IS_METHOD_CONTEXT (self));
  self->defense_prompt = interned_prompt;
}

void
anot_method_context_set_config_file (AnotMethodContext *self,
                                     AnotIniReader     *reader)
{
  g_return_if_fail (ANOT_IS_METHOD_CONTEXT (self));

  g_clear_pointer (&self->config_file, anot_ini_reader_unref);
  self->config_file = reader != NULL ? anot_ini_reader_ref (reader) : NULL;
  self->has_config_file = TRUE;
}

gboolean
anot_method_context_get_config_file (AnotMethodContext *self,
                                     AnotIniReader    **out_reader)
{
  g_return_val_if_fail (ANOT_IS_METHOD_CONTEXT (self), FALSE);

  *out_reader = self->config_file;
  return self->has_config_file;
}

/* The characters of this request's answers read as U+FFFD (`\u0000`
 * and lone surrogate escapes, which UTF-8 cannot hold), over every call
 * the method made through this context. */
guint
anot_method_context_get_replaced_characters (AnotMethodContext *self)
{
  g_return_val_if_fail (ANOT_IS_METHOD_CONTEXT (self), 0);
  return self->replaced_characters;
}

/* Every answer the method gets is appended to @journal under a key in
 * @scope (the cell and request) as it arrives, and a call whose key the
 * journal already holds (an earlier attempt of the run made it) is
 * answered from it. */
void
anot_method_context_set_journal (AnotMethodContext *self,
                                 AnotCallJournal   *journal,
                                 const char        *scope)
{
  g_return_if_fail (ANOT_IS_METHOD_CONTEXT (self));
  g_return_if_fail (journal == NULL || ANOT_IS_CALL_JOURNAL (journal));

  g_set_object (&self->journal, journal);
  g_free (self->journal_scope);
  self->journal_scope = g_strdup (scope ? scope : "");
  if (self->occurrences == NULL)
    self->occurrences = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
}

/* The part of the usage that the journal gave back (paid by an earlier
 * attempt of the run), or NULL when there is none. */
AnotUsage *
anot_method_context_get_replayed_usage (AnotMethodContext *self)
{
  g_return_val_if_fail (ANOT_IS_METHOD_CONTEXT (self), NULL);
  return self->replayed;
}

/* How many of the request's LLM calls wait on the infrastructure: sent,
 * retrying, queued for or inside a batch.  At the request's deadline they
 * make the lateness the infrastructure's, not the method's. */
guint
anot_method_context_get_calls_pending (AnotMethodContext *self)
{
  g_return_val_if_fail (ANOT_IS_METHOD_CONTEXT (self), 0);
  return self->calls_pending;
}

/* The first of this request's LLM calls that failed for the
 * infrastructure (anot_error_is_infrastructure()), or NULL. */
const GError *
anot_method_context_get_infrastructure_error (AnotMethodContext *self)
{
  g_return_val_if_fail (ANOT_IS_METHOD_CONTEXT (self), NULL);
  return self->infrastructure_error;
}
