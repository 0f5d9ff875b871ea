/* anot-experiment.c: running a method over a benchmark
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "anot-experiment.h"

#include "anot-backend-router.h"
#include "anot-debug-log.h"
#include "anot-attack.h"
#include "anot-enum-types.h"
#include "anot-error.h"
#include "anot-item-attack.h"
#include "anot-llm-config.h"
#include "anot-method.h"
#include "anot-method-context.h"
#include "anot-registry.h"
#include "anot-response-cache.h"
#include "anot-results-writer-private.h"
#include "anot-validator.h"
#include "anot-version.h"

#include <errno.h>
#include <glib/gstdio.h>
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
 * Options are strings set with [method@Anot.Experiment.set_option] and
 * checked by [method@Anot.Experiment.prepare]:
 *
 * - `candidates`: N, or a comma-separated list of N (default `10`)
 * - `scaling`: `true` for N in 10, 20, 30, 40, 50; an N larger than the
 *   dataset is skipped
 * - `pool`: `sampled` (default) or `original` (see [enum@Anot.PoolMode])
 * - `shuffle`: `none`, `middle` or `random` (default)
 * - `k`: predictions kept per request, Hits@1..k (default 5)
 * - `seed`: the base seed (default 42); run R uses seed + R
 * - `runs`: the number of runs (default 1)
 * - `concurrency`: requests in flight at once (default 8)
 * - `limit`: keep only the first L selected requests
 * - `requests`: comma-separated request ids
 * - `groups`: groups as `G01,G04`, `1,4` or `1-3`
 * - `out`: the results root (default `results`)
 * - `name`: the experiment directory name (default `<method>_<dataset>`)
 * - `force`: `true` to overwrite an existing results directory
 * - `method.KEY`: an option passed to the method's
 *   [class@Anot.MethodContext] as `KEY`
 * - `backend`, `model`, `base-url`, `temperature`, `max-tokens`: the LLM
 *   settings of the default role, on top of the environment and the
 *   configuration file (see [class@Anot.LlmConfig])
 * - `role`: comma-separated `ROLE=BACKEND:MODEL` routes
 * - `cache`: a response cache file ([class@Anot.ResponseCache]); `offline`:
 *   `true` to answer LLM calls from it only.  Neither is recorded in
 *   `config.json`: an offline replay writes the same files.
 * - `debug`: the debug level, 0 to 3 (default: the `ANOT_DEBUG` environment
 *   variable); above 0, `debug.log` is written in each run directory
 * - `attack`: a comma-separated list of attacks (registered names,
 *   `clean` or `none` for no attack, a category such as `noise`,
 *   `injection` or `deception`, `all` for every registered attack whose
 *   parameters allow it to run, `both` for `clean,all`); default `clean`
 * - `attack.KEY`: a parameter of the attacks (see
 *   [method@Anot.Attack.set_parameter]), e.g. `attack.restaurants`; set on
 *   every selected attack that has it, an error if none has it
 * - `defense`: `true` for defense mode (see
 *   [method@Anot.MethodContext.get_defense_prompt])
 *
 * Every random choice of a request is seeded from the run seed, the
 * request id and N with [func@Anot.seed_derive], so results do not depend
 * on the concurrency, on scheduling or on resuming.
 */

#define DEFAULT_N 10
#define DEFAULT_K 5
#define DEFAULT_SEED 42
#define DEFAULT_CONCURRENCY 8
#define CLEAN_ATTACK "clean"

static const guint scaling_points[] = { 10, 20, 30, 40, 50 };

static const char * const known_options[] = {
  "candidates", "scaling", "pool", "shuffle", "k", "seed", "runs",
  "concurrency", "limit", "requests", "groups", "out", "name", "force",
  "backend", "model", "base-url", "temperature", "max-tokens", "role", "cache", "offline",
  "debug", "attack", "defense",
};

/* LLM options of the default role: experiment option -> configuration key. */
static const struct
{
  const char *option;
  const char *key;
} llm_options[] = {
  { "backend", "backend" },
  { "model", "model" },
  { "base-url", "base_url" },
  { "temperature", "temperature" },
  { "max-tokens", "max_tokens" },
};

/* One attack of the experiment ("clean": none). */
typedef struct
{
  char *name;
  AnotAttack *attack;     /* NULL for clean */
  char *dir;              /* <out>/<name>/<attack> */
} AttackEntry;

/* One (attack, run, N) combination and its rows. */
typedef struct
{
  AttackEntry *attack;
  guint run;
  guint n;
  GHashTable *rows;       /* request id -> AnotResult */
  gboolean complete;
} Cell;

typedef struct
{
  AnotExperiment *self;
  Cell *cell;
  AnotPool *pool;
  GPtrArray *attacked;    /* what the method sees under an attack */
  AnotQuery *query;       /* the request as the method sees it */
  AnotMethodContext *context;
} Job;

struct _AnotExperiment
{
  GObject parent_instance;

  AnotDataset *dataset;
  char *method_name;
  GHashTable *options;          /* key -> value, as set */

  /* Parsed by prepare() */
  gboolean prepared;
  gboolean resuming;
  GArray *ns;                   /* guint: every N asked for */
  gboolean scaling;
  AnotPoolMode pool_mode;
  AnotShuffleMode shuffle;
  guint k;
  guint64 seed;
  guint runs;
  guint concurrency;
  guint limit;
  GPtrArray *request_ids;       /* NULL or char* */
  GPtrArray *groups;            /* NULL or char* */
  char *out;
  char *name;
  gboolean force;
  GHashTable *method_options;   /* key -> value */
  char *directory;              /* <out>/<name> */
  GPtrArray *attacks;           /* AttackEntry, in run order */
  GHashTable *attack_options;   /* attack parameter -> value */
  gboolean defense;
  GPtrArray *requests;          /* AnotRequest, selected, dataset order */
  GHashTable *kept;             /* N -> GPtrArray of AnotRequest */
  GHashTable *dropped;          /* N -> count */
  GHashTable *skipped;          /* N -> TRUE (larger than the dataset) */
  GPtrArray *cells;             /* Cell, by run then N */
  guint n_planned;
  AnotMethod *method;
  gboolean uses_truth;          /* the method registered ANOT_PLUGIN_NEEDS_TRUTH */
  AnotValidator *validator;
  AnotLlmConfig *llm_config;
  AnotBackendRouter *router;
  AnotDebugLevel debug_level;
  AnotDebugLog *debug_log;      /* of the run in progress */

  /* State of a run in progress */
  GTask *task;
  GCancellable *cancellable;
  guint cell_index;
  GPtrArray *jobs;              /* AnotPool of the current cell */
  guint next_job;
  guint in_flight;
  GOutputStream *append;
  GOutputStream *trace_append; /* trace_<N>.jsonl of the current cell */
  GError *fatal;
  gboolean pumping;
  gboolean pump_again;
};

G_DEFINE_FINAL_TYPE (AnotExperiment, anot_experiment, G_TYPE_OBJECT)

enum {
  PROP_0,
  PROP_DATASET,
  PROP_METHOD,
  PROP_DIRECTORY,
  PROP_N_PLANNED,
  PROP_POOL_MODE,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

enum {
  SIGNAL_N_STARTED,
  SIGNAL_RESULT,
  SIGNAL_N_FINISHED,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

static void
attack_entry_free (gpointer data)
{
  AttackEntry *entry = data;

  g_free (entry->name);
  g_clear_object (&entry->attack);
  g_free (entry->dir);
  g_free (entry);
}

static void
cell_free (gpointer data)
{
  Cell *cell = data;

  g_hash_table_unref (cell->rows);
  g_free (cell);
}

static void
anot_experiment_reset_prepared (AnotExperiment *self)
{
  self->prepared = FALSE;
  g_clear_pointer (&self->ns, g_array_unref);
  g_clear_pointer (&self->request_ids, g_ptr_array_unref);
  g_clear_pointer (&self->groups, g_ptr_array_unref);
  g_clear_pointer (&self->out, g_free);
  g_clear_pointer (&self->name, g_free);
  g_clear_pointer (&self->method_options, g_hash_table_unref);
  g_clear_pointer (&self->directory, g_free);
  g_clear_pointer (&self->attacks, g_ptr_array_unref);
  g_clear_pointer (&self->attack_options, g_hash_table_unref);
  g_clear_pointer (&self->requests, g_ptr_array_unref);
  g_clear_pointer (&self->kept, g_hash_table_unref);
  g_clear_pointer (&self->dropped, g_hash_table_unref);
  g_clear_pointer (&self->skipped, g_hash_table_unref);
  g_clear_pointer (&self->cells, g_ptr_array_unref);
  g_clear_object (&self->method);
  g_clear_object (&self->validator);
  g_clear_object (&self->llm_config);
  g_clear_object (&self->router);
  self->n_planned = 0;
}

static void
anot_experiment_finalize (GObject *object)
{
  AnotExperiment *self = ANOT_EXPERIMENT (object);

  anot_experiment_reset_prepared (self);
  g_clear_object (&self->dataset);
  g_free (self->method_name);
  g_hash_table_unref (self->options);
  g_clear_pointer (&self->jobs, g_ptr_array_unref);
  g_clear_object (&self->append);
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
      g_value_set_enum (value, self->pool_mode);
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
  signals[SIGNAL_N_STARTED] =
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
  signals[SIGNAL_RESULT] =
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
  signals[SIGNAL_N_FINISHED] =
    g_signal_new ("n-finished", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 2,
                  G_TYPE_UINT, G_TYPE_UINT);
}

static void
anot_experiment_init (AnotExperiment *self)
{
  self->options = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
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
 * @key: an option name (see [class@Anot.Experiment]) or `method.KEY`
 * @value: (nullable): the value as text, or %NULL to restore the default
 *
 * Sets an option.  Values are checked by
 * [method@Anot.Experiment.prepare].
 */
void
anot_experiment_set_option (AnotExperiment *self,
                            const char     *key,
                            const char     *value)
{
  g_return_if_fail (ANOT_IS_EXPERIMENT (self));
  g_return_if_fail (key != NULL);
  g_return_if_fail (self->task == NULL);

  if (value == NULL)
    g_hash_table_remove (self->options, key);
  else
    g_hash_table_insert (self->options, g_strdup (key), g_strdup (value));
  anot_experiment_reset_prepared (self);
}

/* ------------------------------------------------------------------------
 * Options
 * --------------------------------------------------------------------- */

static gboolean
parse_uint (const char  *key,
            const char  *text,
            guint64      min,
            guint64      max,
            guint64     *out,
            GError     **error)
{
  g_autoptr(GError) local_error = NULL;

  if (!g_ascii_string_to_unsigned (text, 10, min, max, out, &local_error))
    {
      g_set_error (error, ANOT_ERROR, ANOT_ERROR_INVALID_ARGUMENT,
                   "Invalid value “%s” for %s: expected an integer between %"
                   G_GUINT64_FORMAT " and %" G_GUINT64_FORMAT,
                   text, key, min, max);
      return FALSE;
    }
  return TRUE;
}

static gboolean
parse_bool (const char  *key,
            const char  *text,
            gboolean    *out,
            GError     **error)
{
  if (g_ascii_strcasecmp (text, "true") == 0 || g_strcmp0 (text, "1") == 0 ||
      g_ascii_strcasecmp (text, "yes") == 0)
    *out = TRUE;
  else if (g_ascii_strcasecmp (text, "false") == 0 || g_strcmp0 (text, "0") == 0 ||
           g_ascii_strcasecmp (text, "no") == 0)
    *out = FALSE;
  else
    {
      g_set_error (error, ANOT_ERROR, ANOT_ERROR_INVALID_ARGUMENT,
                   "Invalid value “%s” for %s: expected true or false", text, key);
      return FALSE;
    }
  return TRUE;
}

static gboolean
parse_enum (const char  *key,
            const char  *text,
            GType        type,
            int         *out,
            GError     **error)
{
  g_autoptr(GEnumClass) klass = g_type_class_ref (type);
  GEnumValue *value = g_enum_get_value_by_nick (klass, text);

  if (value == NULL)
    {
      g_autoptr(GString) names = g_string_new (NULL);

      for (guint i = 0; i < klass->n_values; i++)
        g_string_append_printf (names, "%s%s", i ? ", " : "", klass->values[i].value_nick);
      g_set_error (error, ANOT_ERROR, ANOT_ERROR_INVALID_ARGUMENT,
                   "Invalid value “%s” for %s: expected one of %s", text, key, names->str);
      return FALSE;
    }
  *out = value->value;
  return TRUE;
}

static const char *
enum_nick (GType type,
           int   value)
{
  g_autoptr(GEnumClass) klass = g_type_class_ref (type);
  GEnumValue *v = g_enum_get_value (klass, value);

  return v ? v->value_nick : "?";
}

static char **
split_list (const char *text)
{
  g_auto(GStrv) parts = g_strsplit (text, ",", -1);
  GPtrArray *out = g_ptr_array_new ();

  for (guint i = 0; parts[i] != NULL; i++)
    {
      char *part = g_strstrip (parts[i]);

      if (*part != '\0')
        g_ptr_array_add (out, g_strdup (part));
    }
  g_ptr_array_add (out, NULL);
  return (char **) g_ptr_array_free (out, FALSE);
}

static gboolean
group_number (const char *token,
              guint64    *out)
{
  if (*token == 'G' || *token == 'g')
    token++;
  return g_ascii_string_to_unsigned (token, 10, 1, 999, out, NULL);
}

/* Accepts G01,G04 / 1,4 / 1-3 / G01-G03 and names of the dataset's groups. */
static GPtrArray *
parse_groups (AnotExperiment  *self,
              const char      *text,
              GError         **error)
{
  g_auto(GStrv) tokens = split_list (text);
  g_auto(GStrv) available = anot_dataset_list_groups (self->dataset);
  g_autoptr(GPtrArray) groups = g_ptr_array_new_with_free_func (g_free);

  if (tokens[0] == NULL)
    {
      g_set_error (error, ANOT_ERROR, ANOT_ERROR_INVALID_ARGUMENT,
                   "Invalid value “%s” for groups: expected e.g. G01,G04 or 1-3", text);
      return NULL;
    }

  for (guint i = 0; tokens[i] != NULL; i++)
    {
      const char *token = tokens[i];
      const char *dash = strchr (token, '-');
      guint64 first, last;

      if (g_strv_contains ((const char * const *) available, token))
        {
          g_ptr_array_add (groups, g_strdup (token));
          continue;
        }

      if (dash != NULL)
        {
          g_autofree char *lo = g_strndup (token, dash - token);

          if (!group_number (g_strstrip (lo), &first) ||
              !group_number (dash + 1, &last) || last < first)
            {
              g_set_error (error, ANOT_ERROR, ANOT_ERROR_INVALID_ARGUMENT,
                           "Invalid group range “%s”: expected e.g. 1-3 or G01-G03", token);
              return NULL;
            }
        }
      else if (group_number (token, &first))
        last = first;
      else
        {
          g_autofree char *list = g_strjoinv (", ", available);

          g_set_error (error, ANOT_ERROR, ANOT_ERROR_INVALID_ARGUMENT,
                       "Unknown group “%s” (the dataset has %s)", token, list);
          return NULL;
        }

      for (guint64 g = first; g <= last; g++)
        {
          g_autofree char *group_name = g_strdup_printf ("G%02u", (guint) g);

          if (!g_strv_contains ((const char * const *) available, group_name))
            {
              g_autofree char *list = g_strjoinv (", ", available);

              g_set_error (error, ANOT_ERROR, ANOT_ERROR_INVALID_ARGUMENT,
                           "Unknown group “%s” (the dataset has %s)", group_name, list);
              return NULL;
            }
          g_ptr_array_add (groups, g_steal_pointer (&group_name));
        }
    }

  return g_steal_pointer (&groups);
}

static gboolean
str_array_contains (GPtrArray  *array,
                    const char *text)
{
  for (guint i = 0; i < array->len; i++)
    if (g_strcmp0 (g_ptr_array_index (array, i), text) == 0)
      return TRUE;
  return FALSE;
}

static gboolean
directory_is_nonempty (const char *path)
{
  g_autoptr(GDir) dir = g_dir_open (path, 0, NULL);

  return dir != NULL && g_dir_read_name (dir) != NULL;
}

/* @attack NULL: the first attack of the experiment. */
static Cell *
find_cell (AnotExperiment *self,
           AttackEntry    *attack,
           guint           run,
           guint           n)
{
  if (self->cells == NULL || self->attacks->len == 0)
    return NULL;
  if (attack == NULL)
    attack = g_ptr_array_index (self->attacks, 0);
  for (guint i = 0; i < self->cells->len; i++)
    {
      Cell *cell = g_ptr_array_index (self->cells, i);

      if (cell->attack == attack && cell->run == run && cell->n == n)
        return cell;
    }
  return NULL;
}

static AttackEntry *
find_attack (AnotExperiment *self,
             const char     *name)
{
  if (self->attacks == NULL)
    return NULL;
  for (guint i = 0; i < self->attacks->len; i++)
    {
      AttackEntry *entry = g_ptr_array_index (self->attacks, i);

      if (strcmp (entry->name, name) == 0)
        return entry;
    }
  return NULL;
}

/* Adds the attack @name unless it is already there.  With @skip_unusable
 * (the expansion of `all`), an attack whose parameters do not let it run
 * (heterogeneity without a target length) is left out instead of failing. */
static gboolean
add_attack (AnotExperiment  *self,
            const char      *name,
            gboolean         skip_unusable,
            GHashTable      *used_options,
            GError         **error)
{
  g_autoptr(AnotAttack) attack = NULL;
  AttackEntry *entry;
  GHashTableIter iter;
  gpointer key, value;

  if (find_attack (self, name) != NULL)
    return TRUE;

  if (strcmp (name, CLEAN_ATTACK) != 0)
    {
      attack = anot_registry_create_attack (anot_registry_get_default (), name, error);
      if (attack == NULL)
        return FALSE;

      g_hash_table_iter_init (&iter, self->attack_options);
      while (g_hash_table_iter_next (&iter, &key, &value))
        {
          if (!anot_attack_has_parameter (attack, key))
            continue;
          g_hash_table_add (used_options, key);
          if (!anot_attack_set_parameter (attack, key, value, error))
            {
              g_prefix_error (error, "%s: ", name);
              return FALSE;
            }
        }

      if (ANOT_IS_ITEM_ATTACK (attack))
        {
          g_autoptr(GError) check_error = NULL;

          if (!anot_item_attack_check (ANOT_ITEM_ATTACK (attack), &check_error))
            {
              if (skip_unusable)
                return TRUE;
              g_set_error (error, ANOT_ERROR, ANOT_ERROR_INVALID_ARGUMENT,
                           "%s: %s", name, check_error->message);
              return FALSE;
            }
        }
    }

  entry = g_new0 (AttackEntry, 1);
  entry->name = g_strdup (name);
  entry->attack = g_steal_pointer (&attack);
  entry->dir = g_build_filename (self->directory, name, NULL);
  g_ptr_array_add (self->attacks, entry);
  return TRUE;
}

static char *
attack_category (const char *name)
{
  g_autoptr(AnotAttack) attack = anot_registry_create_attack (anot_registry_get_default (),
                                                              name, NULL);

  if (attack == NULL || !ANOT_IS_ITEM_ATTACK (attack) ||
      anot_item_attack_get_category (ANOT_ITEM_ATTACK (attack)) == NULL)
    return NULL;
  return g_strdup (anot_item_attack_get_category (ANOT_ITEM_ATTACK (attack)));
}

static gboolean
prepare_attacks (AnotExperiment  *self,
                 GError         **error)
{
  const char *text = g_hash_table_lookup (self->options, "attack");
  g_auto(GStrv) tokens = split_list (text != NULL ? text : CLEAN_ATTACK);
  g_auto(GStrv) registered = anot_registry_list (anot_registry_get_default (),
                                                 ANOT_ATTACK_EXTENSION_POINT_NAME);
  g_autoptr(GHashTable) used_options = g_hash_table_new (g_str_hash, g_str_equal);
  GHashTableIter iter;
  gpointer key;

  self->attacks = g_ptr_array_new_with_free_func (attack_entry_free);
  if (tokens[0] == NULL)
    {
      g_set_error (error, ANOT_ERROR, ANOT_ERROR_INVALID_ARGUMENT,
                   "Invalid value “%s” for attack: expected e.g. typo_10, noise or all", text);
      return FALSE;
    }

  for (guint t = 0; tokens[t] != NULL; t++)
    {
      const char *token = tokens[t];
      gboolean found = FALSE;

      if (strcmp (token, CLEAN_ATTACK) == 0 || strcmp (token, "none") == 0)
        {
          if (!add_attack (self, CLEAN_ATTACK, FALSE, used_options, error))
            return FALSE;
          continue;
        }
      if (strcmp (token, "all") == 0 || strcmp (token, "both") == 0)
        {
          if (strcmp (token, "both") == 0 &&
              !add_attack (self, CLEAN_ATTACK, FALSE, used_options, error))
            return FALSE;
          for (guint i = 0; registered[i] != NULL; i++)
            if (!add_attack (self, registered[i], TRUE, used_options, error))
              return FALSE;
          continue;
        }
      if (g_strv_contains ((const char * const *) registered, token))
        {
          if (!add_attack (self, token, FALSE, used_options, error))
            return FALSE;
          continue;
        }
      for (guint i = 0; registered[i] != NULL; i++)
        {
          g_autofree char *category = attack_category (registered[i]);

          if (g_strcmp0 (category, token) != 0)
            continue;
          found = TRUE;
          if (!add_attack (self, registered[i], FALSE, used_options, error))
            return FALSE;
        }
      if (!found)
        {
          g_autofree char *names = registered[0] ? g_strjoinv (", ", registered) : g_strdup ("none");

          g_set_error (error, ANOT_ERROR, ANOT_ERROR_PLUGIN_NOT_FOUND,
                       "No attack or attack category named “%s” (attacks: %s; also clean, "
                       "all, both and the categories noise, injection, deception)",
                       token, names);
          return FALSE;
        }
    }

  g_hash_table_iter_init (&iter, self->attack_options);
  while (g_hash_table_iter_next (&iter, &key, NULL))
    if (!g_hash_table_contains (used_options, key))
      {
        g_set_error (error, ANOT_ERROR, ANOT_ERROR_INVALID_ARGUMENT,
                     "No selected attack has a parameter “%s”", (const char *) key);
        return FALSE;
      }

  if (self->attacks->len == 0)
    {
      g_set_error (error, ANOT_ERROR, ANOT_ERROR_INVALID_ARGUMENT,
                   "The attack selection “%s” is empty", text);
      return FALSE;
    }
  return TRUE;
}

/* The LLM router of the run: configuration file, environment, then the
 * options; the response cache; the debug level. */
static gboolean
prepare_llm (AnotExperiment  *self,
             GError         **error)
{
  const char *text;
  gboolean offline = FALSE;

  self->llm_config = anot_llm_config_new ();
  if (!anot_llm_config_load_default_file (self->llm_config, error))
    return FALSE;
  for (guint i = 0; i < G_N_ELEMENTS (llm_options); i++)
    if ((text = g_hash_table_lookup (self->options, llm_options[i].option)) != NULL &&
        !anot_llm_config_set (self->llm_config, ANOT_DEFAULT_ROLE, llm_options[i].key, text, error))
      return FALSE;
  if ((text = g_hash_table_lookup (self->options, "role")) != NULL)
    {
      g_auto(GStrv) specs = split_list (text);

      for (guint i = 0; specs[i] != NULL; i++)
        if (!anot_llm_config_add_role_spec (self->llm_config, specs[i], error))
          return FALSE;
    }

  if ((text = g_hash_table_lookup (self->options, "offline")) != NULL &&
      !parse_bool ("offline", text, &offline, error))
    return FALSE;
  self->router = anot_llm_config_create_cached_router (self->llm_config,
                                                       g_hash_table_lookup (self->options, "cache"),
                                                       offline, error);
  if (self->router == NULL)
    return FALSE;

  text = g_hash_table_lookup (self->options, "debug");
  if (text == NULL)
    text = g_getenv ("ANOT_DEBUG");
  self->debug_level = anot_debug_level_from_string (text, error);
  if (error != NULL && *error != NULL)
    return FALSE;
  return TRUE;
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
  GHashTableIter iter;
  gpointer key, value;
  const char *text;
  guint64 number;
  guint n_items;
  int enum_value;

  g_return_val_if_fail (ANOT_IS_EXPERIMENT (self), FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if (self->prepared)
    return TRUE;
  anot_experiment_reset_prepared (self);

  n_items = anot_dataset_get_n_items (self->dataset);

  /* Unknown keys are errors, so a typo does not silently run defaults. */
  self->method_options = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  self->attack_options = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  g_hash_table_iter_init (&iter, self->options);
  while (g_hash_table_iter_next (&iter, &key, &value))
    {
      gboolean known = FALSE;

      if (g_str_has_prefix (key, "method."))
        {
          if (((const char *) key)[7] == '\0')
            {
              g_set_error (error, ANOT_ERROR, ANOT_ERROR_INVALID_ARGUMENT,
                           "Empty method option name");
              goto fail;
            }
          g_hash_table_insert (self->method_options, g_strdup ((const char *) key + 7),
                               g_strdup (value));
          continue;
        }
      if (g_str_has_prefix (key, "attack."))
        {
          if (((const char *) key)[7] == '\0')
            {
              g_set_error (error, ANOT_ERROR, ANOT_ERROR_INVALID_ARGUMENT,
                           "Empty attack parameter name");
              goto fail;
            }
          g_hash_table_insert (self->attack_options, g_strdup ((const char *) key + 7),
                               g_strdup (value));
          continue;
        }
      for (guint i = 0; i < G_N_ELEMENTS (known_options); i++)
        if (strcmp (key, known_options[i]) == 0)
          known = TRUE;
      if (!known)
        {
          g_set_error (error, ANOT_ERROR, ANOT_ERROR_INVALID_ARGUMENT,
                       "Unknown experiment option “%s”", (const char *) key);
          goto fail;
        }
    }

  self->k = DEFAULT_K;
  if ((text = g_hash_table_lookup (self->options, "k")) != NULL)
    {
      if (!parse_uint ("k", text, 1, 100, &number, error))
        goto fail;
      self->k = (guint) number;
    }

  self->seed = DEFAULT_SEED;
  if ((text = g_hash_table_lookup (self->options, "seed")) != NULL)
    {
      if (!parse_uint ("seed", text, 0, G_MAXUINT64, &number, error))
        goto fail;
      self->seed = number;
    }

  self->runs = 1;
  if ((text = g_hash_table_lookup (self->options, "runs")) != NULL)
    {
      if (!parse_uint ("runs", text, 1, 1000, &number, error))
        goto fail;
      self->runs = (guint) number;
    }

  self->concurrency = DEFAULT_CONCURRENCY;
  if ((text = g_hash_table_lookup (self->options, "concurrency")) != NULL)
    {
      if (!parse_uint ("concurrency", text, 1, 10000, &number, error))
        goto fail;
      self->concurrency = (guint) number;
    }

  self->limit = 0;
  if ((text = g_hash_table_lookup (self->options, "limit")) != NULL)
    {
      if (!parse_uint ("limit", text, 1, G_MAXUINT, &number, error))
        goto fail;
      self->limit = (guint) number;
    }

  self->pool_mode = ANOT_POOL_MODE_SAMPLED;
  if ((text = g_hash_table_lookup (self->options, "pool")) != NULL)
    {
      if (!parse_enum ("pool", text, ANOT_TYPE_POOL_MODE, &enum_value, error))
        goto fail;
      self->pool_mode = enum_value;
    }

  self->shuffle = ANOT_SHUFFLE_MODE_RANDOM;
  if ((text = g_hash_table_lookup (self->options, "shuffle")) != NULL)
    {
      if (!parse_enum ("shuffle", text, ANOT_TYPE_SHUFFLE_MODE, &enum_value, error))
        goto fail;
      self->shuffle = enum_value;
    }

  self->force = FALSE;
  if ((text = g_hash_table_lookup (self->options, "force")) != NULL &&
      !parse_bool ("force", text, &self->force, error))
    goto fail;

  self->defense = FALSE;
  if ((text = g_hash_table_lookup (self->options, "defense")) != NULL &&
      !parse_bool ("defense", text, &self->defense, error))
    goto fail;

  self->scaling = FALSE;
  if ((text = g_hash_table_lookup (self->options, "scaling")) != NULL &&
      !parse_bool ("scaling", text, &self->scaling, error))
    goto fail;

  self->ns = g_array_new (FALSE, FALSE, sizeof (guint));
  self->skipped = g_hash_table_new (NULL, NULL);
  text = g_hash_table_lookup (self->options, "candidates");
  if (self->scaling)
    {
      if (text != NULL)
        {
          g_set_error (error, ANOT_ERROR, ANOT_ERROR_INVALID_ARGUMENT,
                       "--candidates and --scaling cannot be combined");
          goto fail;
        }
      for (guint i = 0; i < G_N_ELEMENTS (scaling_points); i++)
        {
          g_array_append_val (self->ns, scaling_points[i]);
          if (scaling_points[i] > n_items)
            g_hash_table_add (self->skipped, GUINT_TO_POINTER (scaling_points[i]));
        }
    }
  else if (text != NULL)
    {
      g_auto(GStrv) parts = split_list (text);

      if (parts[0] == NULL)
        {
          g_set_error (error, ANOT_ERROR, ANOT_ERROR_INVALID_ARGUMENT,
                       "Invalid value “%s” for candidates", text);
          goto fail;
        }
      for (guint i = 0; parts[i] != NULL; i++)
        {
          guint n;

          if (!parse_uint ("candidates", parts[i], 1, G_MAXUINT, &number, error))
            goto fail;
          n = (guint) number;
          if (n > n_items)
            {
              g_set_error (error, ANOT_ERROR, ANOT_ERROR_INVALID_ARGUMENT,
                           "Cannot use %u candidates: the dataset has %u items", n, n_items);
              goto fail;
            }
          for (guint j = 0; j < self->ns->len; j++)
            if (g_array_index (self->ns, guint, j) == n)
              {
                g_set_error (error, ANOT_ERROR, ANOT_ERROR_INVALID_ARGUMENT,
                             "Candidate count %u is given twice", n);
                goto fail;
              }
          g_array_append_val (self->ns, n);
        }
    }
  else
    {
      guint n = DEFAULT_N;

      if (n > n_items)
        {
          g_set_error (error, ANOT_ERROR, ANOT_ERROR_INVALID_ARGUMENT,
                       "The dataset has only %u items; choose --candidates N with N <= %u",
                       n_items, n_items);
          goto fail;
        }
      g_array_append_val (self->ns, n);
    }

  if ((text = g_hash_table_lookup (self->options, "groups")) != NULL)
    {
      self->groups = parse_groups (self, text, error);
      if (self->groups == NULL)
        goto fail;
    }

  if ((text = g_hash_table_lookup (self->options, "requests")) != NULL)
    {
      g_auto(GStrv) ids = split_list (text);

      if (ids[0] == NULL)
        {
          g_set_error (error, ANOT_ERROR, ANOT_ERROR_INVALID_ARGUMENT,
                       "Invalid value “%s” for requests: expected e.g. R01,R05", text);
          goto fail;
        }
      self->request_ids = g_ptr_array_new_with_free_func (g_free);
      for (guint i = 0; ids[i] != NULL; i++)
        {
          if (anot_dataset_lookup_request (self->dataset, ids[i]) == NULL)
            {
              g_set_error (error, ANOT_ERROR, ANOT_ERROR_INVALID_ARGUMENT,
                           "Unknown request “%s”", ids[i]);
              goto fail;
            }
          g_ptr_array_add (self->request_ids, g_strdup (ids[i]));
        }
    }

  text = g_hash_table_lookup (self->options, "out");
  self->out = g_strdup (text && *text ? text : "results");
  text = g_hash_table_lookup (self->options, "name");
  if (text != NULL &&
      (*text == '\0' || strchr (text, '/') != NULL || strcmp (text, ".") == 0 ||
       strcmp (text, "..") == 0))
    {
      g_set_error (error, ANOT_ERROR, ANOT_ERROR_INVALID_ARGUMENT,
                   "Invalid value “%s” for name: expected a directory name without “/”", text);
      goto fail;
    }
  self->name = text ? g_strdup (text)
                    : g_strdup_printf ("%s_%s", self->method_name,
                                       anot_dataset_get_name (self->dataset));
  self->directory = g_build_filename (self->out, self->name, NULL);
  if (!prepare_attacks (self, error))
    goto fail;

  /* Requests: dataset order, then filters, then the limit. */
  self->requests = g_ptr_array_new_with_free_func (g_object_unref);
  for (guint i = 0; i < anot_dataset_get_n_requests (self->dataset); i++)
    {
      AnotRequest *request = anot_dataset_get_request (self->dataset, i);

      if (self->groups && !str_array_contains (self->groups, anot_request_get_group (request)))
        continue;
      if (self->request_ids &&
          !str_array_contains (self->request_ids, anot_request_get_id (request)))
        continue;
      if (self->limit && self->requests->len >= self->limit)
        break;
      g_ptr_array_add (self->requests, g_object_ref (request));
    }
  if (self->requests->len == 0)
    {
      g_set_error (error, ANOT_ERROR, ANOT_ERROR_INVALID_ARGUMENT,
                   "No request matches the --groups / --requests selection");
      goto fail;
    }

  /* Which requests each N keeps: in original mode the gold must be in the
   * fixed top-N pool, which does not depend on the seed. */
  self->kept = g_hash_table_new_full (NULL, NULL, NULL, (GDestroyNotify) g_ptr_array_unref);
  self->dropped = g_hash_table_new (NULL, NULL);
  self->cells = g_ptr_array_new_with_free_func (cell_free);
  self->n_planned = 0;
  for (guint i = 0; i < self->ns->len; i++)
    {
      guint n = g_array_index (self->ns, guint, i);
      GPtrArray *kept;
      guint dropped = 0;

      if (g_hash_table_contains (self->skipped, GUINT_TO_POINTER (n)))
        continue;

      kept = g_ptr_array_new_with_free_func (g_object_unref);
      for (guint r = 0; r < self->requests->len; r++)
        {
          AnotRequest *request = g_ptr_array_index (self->requests, r);
          g_autoptr(GError) pool_error = NULL;
          g_autoptr(AnotPool) pool = anot_pool_new (self->dataset, request, n,
                                                    self->pool_mode,
                                                    ANOT_SHUFFLE_MODE_NONE,
                                                    self->seed, &pool_error);

          if (pool != NULL)
            g_ptr_array_add (kept, g_object_ref (request));
          else if (g_error_matches (pool_error, ANOT_ERROR, ANOT_ERROR_GOLD_NOT_IN_POOL))
            dropped++;
          else
            {
              g_propagate_error (error, g_steal_pointer (&pool_error));
              g_ptr_array_unref (kept);
              goto fail;
            }
        }
      g_hash_table_insert (self->kept, GUINT_TO_POINTER (n), kept);
      g_hash_table_insert (self->dropped, GUINT_TO_POINTER (n), GUINT_TO_POINTER (dropped));
      self->n_planned += kept->len * self->runs;
    }

  self->n_planned *= self->attacks->len;
  for (guint a = 0; a < self->attacks->len; a++)
  for (guint run = 1; run <= self->runs; run++)
    for (guint i = 0; i < self->ns->len; i++)
      {
        guint n = g_array_index (self->ns, guint, i);
        Cell *cell;

        if (g_hash_table_contains (self->skipped, GUINT_TO_POINTER (n)))
          continue;
        cell = g_new0 (Cell, 1);
        cell->attack = g_ptr_array_index (self->attacks, a);
        cell->run = run;
        cell->n = n;
        cell->rows = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_object_unref);
        g_ptr_array_add (self->cells, cell);
      }

  /* Per attack: the attacks of one method share its directory, as in the
   * original's layout, and may be run one after the other. */
  for (guint a = 0; a < self->attacks->len && !self->resuming && !self->force; a++)
    {
      AttackEntry *entry = g_ptr_array_index (self->attacks, a);

      if (directory_is_nonempty (entry->dir))
        {
          g_set_error (error, ANOT_ERROR, ANOT_ERROR_INVALID_ARGUMENT,
                       "The results directory %s already exists and is not empty; "
                       "continue it with --resume %s, choose another --name, "
                       "or overwrite it with --force",
                       entry->dir, entry->dir);
          goto fail;
        }
    }

  self->method = anot_registry_create_method (anot_registry_get_default (),
                                              self->method_name, error);
  if (self->method == NULL)
    goto fail;
  self->uses_truth = (anot_registry_get_flags (anot_registry_get_default (),
                                               ANOT_METHOD_EXTENSION_POINT_NAME,
                                               self->method_name) & ANOT_PLUGIN_NEEDS_TRUTH) != 0;
  if (self->uses_truth)
    self->validator = anot_validator_new (self->dataset);
  if (!prepare_llm (self, error))
    goto fail;

  self->prepared = TRUE;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_DIRECTORY]);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_N_PLANNED]);
  return TRUE;

fail:
  anot_experiment_reset_prepared (self);
  return FALSE;
}

/* ------------------------------------------------------------------------
 * Files
 * --------------------------------------------------------------------- */

static char *
run_dir_path (AttackEntry *attack,
              guint        run)
{
  g_autofree char *base = g_strdup_printf ("run_%u", run);

  return g_build_filename (attack->dir, base, NULL);
}

static char *
run_file_path (AttackEntry *attack,
               guint        run,
               const char  *prefix,
               guint        n)
{
  g_autofree char *dir = run_dir_path (attack, run);
  g_autofree char *base = g_strdup_printf ("%s_%u.jsonl", prefix, n);

  return g_build_filename (dir, base, NULL);
}

static char *
results_path (AttackEntry *attack,
              guint        run,
              guint        n)
{
  return run_file_path (attack, run, "results", n);
}

static GPtrArray *
cell_sorted_rows (Cell *cell)
{
  GPtrArray *rows = g_ptr_array_new_with_free_func (g_object_unref);
  GHashTableIter iter;
  gpointer value;

  g_hash_table_iter_init (&iter, cell->rows);
  while (g_hash_table_iter_next (&iter, NULL, &value))
    g_ptr_array_add (rows, g_object_ref (value));
  g_ptr_array_sort (rows, anot_result_compare_by_id);
  return rows;
}

static AnotMetrics *
cell_metrics (AnotExperiment *self,
              Cell           *cell)
{
  g_autoptr(GPtrArray) rows = cell_sorted_rows (cell);
  AnotMetrics *metrics = anot_metrics_new (self->k);

  for (guint i = 0; i < rows->len; i++)
    {
      AnotResult *result = g_ptr_array_index (rows, i);

      anot_metrics_add (metrics, anot_result_get_group (result),
                        anot_result_get_gold_rank (result));
    }
  return metrics;
}

static guint
kept_count (AnotExperiment *self,
            guint           n)
{
  GPtrArray *kept = g_hash_table_lookup (self->kept, GUINT_TO_POINTER (n));

  return kept ? kept->len : 0;
}

static void
add_string_list (JsonBuilder *builder,
                 const char  *member,
                 GPtrArray   *list)
{
  json_builder_set_member_name (builder, member);
  if (list == NULL)
    {
      json_builder_add_null_value (builder);
      return;
    }
  json_builder_begin_array (builder);
  for (guint i = 0; i < list->len; i++)
    json_builder_add_string_value (builder, g_ptr_array_index (list, i));
  json_builder_end_array (builder);
}

static void
add_sorted_string_map (JsonBuilder *builder,
                       const char  *member,
                       GHashTable  *map)
{
  g_autoptr(GList) keys = g_list_sort (g_hash_table_get_keys (map), (GCompareFunc) strcmp);

  json_builder_set_member_name (builder, member);
  json_builder_begin_object (builder);
  for (GList *l = keys; l; l = l->next)
    {
      json_builder_set_member_name (builder, l->data);
      json_builder_add_string_value (builder, g_hash_table_lookup (map, l->data));
    }
  json_builder_end_object (builder);
}

static void
add_attack_config (JsonBuilder *builder,
                   AttackEntry *attack,
                   guint64      run_seed)
{
  g_autoptr(JsonObject) parameters = NULL;
  gint64 number;

  /* As the original: null for clean runs. */
  if (attack->attack == NULL)
    {
      json_builder_add_null_value (builder);
      return;
    }

  parameters = anot_attack_get_parameters (attack->attack);
  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "attack");
  json_builder_add_string_value (builder, attack->name);
  /* The original's keys, null when the attack has no such parameter or
   * it is at its "all"/"unset" value. */
  json_builder_set_member_name (builder, "n_restaurants");
  number = json_object_get_int_member_with_default (parameters, "restaurants", -1);
  if (number >= 0)
    json_builder_add_int_value (builder, number);
  else
    json_builder_add_null_value (builder);
  json_builder_set_member_name (builder, "n_reviews");
  number = json_object_get_int_member_with_default (parameters, "reviews", -1);
  if (number >= 0)
    json_builder_add_int_value (builder, number);
  else
    json_builder_add_null_value (builder);
  json_builder_set_member_name (builder, "target_len");
  number = json_object_get_int_member_with_default (parameters, "target-len", 0);
  if (number > 0)
    json_builder_add_int_value (builder, number);
  else
    json_builder_add_null_value (builder);
  json_builder_set_member_name (builder, "seed");
  json_builder_add_int_value (builder, (gint64) run_seed);
  json_builder_set_member_name (builder, "seed_rule");
  json_builder_add_string_value (builder,
                                 "anot_seed_derive(seed, \"attack:<attack>:<request_id>:<N>\"); "
                                 "per attacked item anot_seed_derive(that, \"item:<item_id>\")");
  json_builder_set_member_name (builder, "parameters");
  {
    g_autoptr(JsonNode) node = json_node_new (JSON_NODE_OBJECT);

    json_node_set_object (node, parameters);
    json_builder_add_value (builder, g_steal_pointer (&node));
  }
  json_builder_end_object (builder);
}

static gboolean
write_config (AnotExperiment  *self,
              AttackEntry     *attack,
              guint            run,
              const char      *status,
              GError         **error)
{
  g_autoptr(JsonBuilder) builder = json_builder_new ();
  g_autoptr(JsonNode) root = NULL;
  g_autoptr(AnotUsage) usage = anot_usage_new ();
  g_autofree char *dir = run_dir_path (attack, run);
  g_autofree char *path = g_build_filename (dir, "config.json", NULL);
  g_autofree char *timestamp = anot_results_timestamp_now ();
  g_autoptr(GHashTable) stored_options = NULL;
  guint n_cells_with_rows = 0;

  for (guint i = 0; i < self->cells->len; i++)
    {
      Cell *cell = g_ptr_array_index (self->cells, i);
      GHashTableIter iter;
      gpointer value;

      if (cell->run != run || cell->attack != attack)
        continue;
      if (g_hash_table_size (cell->rows) > 0)
        n_cells_with_rows++;
      g_hash_table_iter_init (&iter, cell->rows);
      while (g_hash_table_iter_next (&iter, NULL, &value))
        anot_usage_merge (usage, anot_result_get_usage (value));
    }

  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "method");
  json_builder_add_string_value (builder, self->method_name);
  json_builder_set_member_name (builder, "defense");
  json_builder_add_boolean_value (builder, self->defense);
  json_builder_set_member_name (builder, "data");
  json_builder_add_string_value (builder, anot_dataset_get_name (self->dataset));
  json_builder_set_member_name (builder, "k");
  json_builder_add_int_value (builder, self->k);
  json_builder_set_member_name (builder, "parallel");
  json_builder_add_boolean_value (builder, self->concurrency > 1);
  json_builder_set_member_name (builder, "llm_config");
  json_builder_add_value (builder, anot_llm_config_to_json (self->llm_config, self->router));
  json_builder_set_member_name (builder, "attack_config");
  add_attack_config (builder, attack, self->seed + run);

  if (self->ns->len == 1)
    {
      Cell *cell = find_cell (self, attack, run, g_array_index (self->ns, guint, 0));

      if (cell != NULL && g_hash_table_size (cell->rows) > 0)
        {
          g_autoptr(AnotMetrics) metrics = cell_metrics (self, cell);

          json_builder_set_member_name (builder, "stats");
          json_builder_add_value (builder, anot_metrics_to_json (metrics));
        }
    }
  else if (n_cells_with_rows > 0)
    {
      json_builder_set_member_name (builder, "stats_by_n");
      json_builder_begin_object (builder);
      for (guint i = 0; i < self->ns->len; i++)
        {
          guint n = g_array_index (self->ns, guint, i);
          Cell *cell = find_cell (self, attack, run, n);
          g_autoptr(AnotMetrics) metrics = NULL;
          char key[16];

          if (cell == NULL || g_hash_table_size (cell->rows) == 0)
            continue;
          metrics = cell_metrics (self, cell);
          g_snprintf (key, sizeof key, "%u", n);
          json_builder_set_member_name (builder, key);
          json_builder_add_value (builder, anot_metrics_to_json (metrics));
        }
      json_builder_end_object (builder);
    }

  json_builder_set_member_name (builder, "usage");
  json_builder_add_value (builder, anot_usage_to_json (usage));
  json_builder_set_member_name (builder, "timestamp");
  json_builder_add_string_value (builder, timestamp);
  json_builder_set_member_name (builder, "benchmark_mode");
  json_builder_add_boolean_value (builder, TRUE);
  json_builder_set_member_name (builder, "run_name");
  json_builder_add_string_value (builder, self->name);

  /* Everything needed to resume, and to know what was run. */
  json_builder_set_member_name (builder, "anot");
  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "version");
  json_builder_add_string_value (builder, ANOT_VERSION_STRING);
  json_builder_set_member_name (builder, "status");
  json_builder_add_string_value (builder, status);
  json_builder_set_member_name (builder, "run");
  json_builder_add_int_value (builder, run);
  json_builder_set_member_name (builder, "run_seed");
  json_builder_add_int_value (builder, (gint64) (self->seed + run));
  json_builder_set_member_name (builder, "method");
  json_builder_add_string_value (builder, self->method_name);
  add_sorted_string_map (builder, "method_options", self->method_options);
  json_builder_set_member_name (builder, "data_path");
  {
    g_autofree char *data_path = g_canonicalize_filename (anot_dataset_get_path (self->dataset), NULL);
    json_builder_add_string_value (builder, data_path);
  }
  json_builder_set_member_name (builder, "data_name");
  json_builder_add_string_value (builder, anot_dataset_get_name (self->dataset));
  json_builder_set_member_name (builder, "dataset_checksum");
  json_builder_add_string_value (builder, anot_dataset_get_checksum (self->dataset));
  json_builder_set_member_name (builder, "candidates");
  json_builder_begin_array (builder);
  for (guint i = 0; i < self->ns->len; i++)
    json_builder_add_int_value (builder, g_array_index (self->ns, guint, i));
  json_builder_end_array (builder);
  json_builder_set_member_name (builder, "scaling");
  json_builder_add_boolean_value (builder, self->scaling);
  json_builder_set_member_name (builder, "pool");
  json_builder_add_string_value (builder, enum_nick (ANOT_TYPE_POOL_MODE, self->pool_mode));
  json_builder_set_member_name (builder, "shuffle");
  json_builder_add_string_value (builder, enum_nick (ANOT_TYPE_SHUFFLE_MODE, self->shuffle));
  json_builder_set_member_name (builder, "seed");
  json_builder_add_int_value (builder, (gint64) self->seed);
  json_builder_set_member_name (builder, "runs");
  json_builder_add_int_value (builder, self->runs);
  json_builder_set_member_name (builder, "k");
  json_builder_add_int_value (builder, self->k);
  json_builder_set_member_name (builder, "concurrency");
  json_builder_add_int_value (builder, self->concurrency);
  json_builder_set_member_name (builder, "limit");
  if (self->limit)
    json_builder_add_int_value (builder, self->limit);
  else
    json_builder_add_null_value (builder);
  add_string_list (builder, "requests", self->request_ids);
  add_string_list (builder, "groups", self->groups);
  json_builder_set_member_name (builder, "out");
  json_builder_add_string_value (builder, self->out);
  json_builder_set_member_name (builder, "name");
  json_builder_add_string_value (builder, self->name);

  json_builder_set_member_name (builder, "requests_by_n");
  json_builder_begin_object (builder);
  for (guint i = 0; i < self->ns->len; i++)
    {
      guint n = g_array_index (self->ns, guint, i);
      char key[16];

      if (g_hash_table_contains (self->skipped, GUINT_TO_POINTER (n)))
        continue;
      g_snprintf (key, sizeof key, "%u", n);
      json_builder_set_member_name (builder, key);
      json_builder_add_int_value (builder, kept_count (self, n));
    }
  json_builder_end_object (builder);
  json_builder_set_member_name (builder, "dropped_by_n");
  json_builder_begin_object (builder);
  for (guint i = 0; i < self->ns->len; i++)
    {
      guint n = g_array_index (self->ns, guint, i);
      char key[16];

      if (g_hash_table_contains (self->skipped, GUINT_TO_POINTER (n)))
        continue;
      g_snprintf (key, sizeof key, "%u", n);
      json_builder_set_member_name (builder, key);
      json_builder_add_int_value (builder,
                                  GPOINTER_TO_UINT (g_hash_table_lookup (self->dropped,
                                                                         GUINT_TO_POINTER (n))));
    }
  json_builder_end_object (builder);
  json_builder_set_member_name (builder, "skipped_n");
  json_builder_begin_array (builder);
  for (guint i = 0; i < self->ns->len; i++)
    {
      guint n = g_array_index (self->ns, guint, i);

      if (g_hash_table_contains (self->skipped, GUINT_TO_POINTER (n)))
        json_builder_add_int_value (builder, n);
    }
  json_builder_end_array (builder);

  /* The effective options as text, in the form set_option() takes, so a
   * resume restores exactly these even if defaults change later.  `force`,
   * `out` and `name` are left out: a resume must not repeat the first and
   * takes the others from where the directory is. */
  stored_options = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  {
    GHashTableIter iter;
    gpointer key, value;
    g_autoptr(GString) ns_text = g_string_new (NULL);

    for (guint i = 0; i < self->ns->len; i++)
      g_string_append_printf (ns_text, "%s%u", i ? "," : "", g_array_index (self->ns, guint, i));
    if (self->scaling)
      g_hash_table_insert (stored_options, g_strdup ("scaling"), g_strdup ("true"));
    else
      g_hash_table_insert (stored_options, g_strdup ("candidates"), g_strdup (ns_text->str));
    g_hash_table_insert (stored_options, g_strdup ("pool"),
                         g_strdup (enum_nick (ANOT_TYPE_POOL_MODE, self->pool_mode)));
    g_hash_table_insert (stored_options, g_strdup ("shuffle"),
                         g_strdup (enum_nick (ANOT_TYPE_SHUFFLE_MODE, self->shuffle)));
    g_hash_table_insert (stored_options, g_strdup ("k"), g_strdup_printf ("%u", self->k));
    g_hash_table_insert (stored_options, g_strdup ("seed"),
                         g_strdup_printf ("%" G_GUINT64_FORMAT, self->seed));
    g_hash_table_insert (stored_options, g_strdup ("runs"), g_strdup_printf ("%u", self->runs));
    g_hash_table_insert (stored_options, g_strdup ("concurrency"),
                         g_strdup_printf ("%u", self->concurrency));
    if (self->limit)
      g_hash_table_insert (stored_options, g_strdup ("limit"), g_strdup_printf ("%u", self->limit));
    if (self->request_ids)
      {
        g_ptr_array_add (self->request_ids, NULL);
        g_hash_table_insert (stored_options, g_strdup ("requests"),
                             g_strjoinv (",", (char **) self->request_ids->pdata));
        g_ptr_array_remove_index (self->request_ids, self->request_ids->len - 1);
      }
    if (self->groups)
      {
        g_ptr_array_add (self->groups, NULL);
        g_hash_table_insert (stored_options, g_strdup ("groups"),
                             g_strjoinv (",", (char **) self->groups->pdata));
        g_ptr_array_remove_index (self->groups, self->groups->len - 1);
      }
    g_hash_table_iter_init (&iter, self->method_options);
    while (g_hash_table_iter_next (&iter, &key, &value))
      g_hash_table_insert (stored_options, g_strconcat ("method.", key, NULL), g_strdup (value));
    /* The attack list as given: a resume continues every attack of it. */
    if (g_hash_table_lookup (self->options, "attack") != NULL)
      g_hash_table_insert (stored_options, g_strdup ("attack"),
                           g_strdup (g_hash_table_lookup (self->options, "attack")));
    g_hash_table_iter_init (&iter, self->attack_options);
    while (g_hash_table_iter_next (&iter, &key, &value))
      g_hash_table_insert (stored_options, g_strconcat ("attack.", key, NULL), g_strdup (value));
    if (self->defense)
      g_hash_table_insert (stored_options, g_strdup ("defense"), g_strdup ("true"));
    /* The LLM choices, so a resume asks the same models; not the cache,
     * offline mode or debug level, which do not change results. */
    for (guint i = 0; i < G_N_ELEMENTS (llm_options); i++)
      {
        const char *text = g_hash_table_lookup (self->options, llm_options[i].option);

        if (text != NULL)
          g_hash_table_insert (stored_options, g_strdup (llm_options[i].option), g_strdup (text));
      }
    if (g_hash_table_lookup (self->options, "role") != NULL)
      g_hash_table_insert (stored_options, g_strdup ("role"),
                           g_strdup (g_hash_table_lookup (self->options, "role")));
  }
  add_sorted_string_map (builder, "options", stored_options);
  json_builder_end_object (builder);

  json_builder_end_object (builder);

  root = json_builder_get_root (builder);
  return anot_results_write_json (path, root, TRUE, error);
}

static gboolean
write_usage_file (AnotExperiment  *self,
                  AttackEntry     *attack,
                  guint            run,
                  GError         **error)
{
  g_autofree char *dir = run_dir_path (attack, run);
  g_autofree char *path = g_build_filename (dir, "usage.jsonl", NULL);
  g_autoptr(GHashTable) by_n = g_hash_table_new_full (NULL, NULL, NULL,
                                                      (GDestroyNotify) g_ptr_array_unref);

  for (guint i = 0; i < self->cells->len; i++)
    {
      Cell *cell = g_ptr_array_index (self->cells, i);

      if (cell->run == run && cell->attack == attack)
        g_hash_table_insert (by_n, GUINT_TO_POINTER (cell->n), cell_sorted_rows (cell));
    }
  return anot_results_write_usage (path, by_n, error);
}

static gboolean
write_scaling_summary (AnotExperiment  *self,
                       AttackEntry     *attack,
                       guint            run,
                       GError         **error)
{
  g_autoptr(JsonBuilder) builder = json_builder_new ();
  g_autoptr(JsonNode) root = NULL;
  g_autofree char *dir = run_dir_path (attack, run);
  g_autofree char *path = g_build_filename (dir, "scaling_summary.json", NULL);

  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "scale_points");
  json_builder_begin_array (builder);
  for (guint i = 0; i < self->ns->len; i++)
    json_builder_add_int_value (builder, g_array_index (self->ns, guint, i));
  json_builder_end_array (builder);
  json_builder_set_member_name (builder, "k");
  json_builder_add_int_value (builder, self->k);
  json_builder_set_member_name (builder, "results");
  json_builder_begin_array (builder);
  for (guint i = 0; i < self->ns->len; i++)
    {
      guint n = g_array_index (self->ns, guint, i);
      Cell *cell = find_cell (self, attack, run, n);
      guint n_rows = cell ? g_hash_table_size (cell->rows) : 0;
      const char *status;

      if (cell == NULL)
        status = "skipped";
      else if (kept_count (self, n) == 0)
        status = "no_requests";
      else if (n_rows < kept_count (self, n))
        status = "partial";
      else
        status = "ok";

      json_builder_begin_object (builder);
      json_builder_set_member_name (builder, "candidates");
      json_builder_add_int_value (builder, n);
      json_builder_set_member_name (builder, "requests");
      if (cell == NULL)
        json_builder_add_string_value (builder, "--");
      else
        json_builder_add_int_value (builder, n_rows);

      if (cell != NULL && n_rows > 0)
        {
          g_autoptr(AnotMetrics) metrics = cell_metrics (self, cell);
          g_autoptr(AnotUsage) usage = anot_usage_new ();
          g_autofree char *usage_text = NULL;
          GHashTableIter iter;
          gpointer value;

          for (guint j = 1; j <= self->k; j++)
            {
              char key[16], text[32];

              g_snprintf (key, sizeof key, "at_%u", j);
              g_snprintf (text, sizeof text, "%.0f%%", anot_metrics_get_hits_at (metrics, j) * 100);
              json_builder_set_member_name (builder, key);
              json_builder_add_string_value (builder, text);
            }
          g_hash_table_iter_init (&iter, cell->rows);
          while (g_hash_table_iter_next (&iter, NULL, &value))
            anot_usage_merge (usage, anot_result_get_usage (value));
          usage_text = anot_results_format_usage (anot_usage_get_prompt_tokens (usage) +
                                                  anot_usage_get_completion_tokens (usage),
                                                  anot_usage_get_cost_usd (usage),
                                                  anot_usage_get_latency_ms (usage));
          json_builder_set_member_name (builder, "usage");
          json_builder_add_string_value (builder, usage_text);
          json_builder_set_member_name (builder, "mrr");
          json_builder_add_double_value (builder, anot_metrics_get_mrr (metrics));
        }
      else
        {
          for (guint j = 1; j <= self->k; j++)
            {
              char key[16];

              g_snprintf (key, sizeof key, "at_%u", j);
              json_builder_set_member_name (builder, key);
              json_builder_add_string_value (builder, "--");
            }
          json_builder_set_member_name (builder, "usage");
          json_builder_add_string_value (builder, "--");
        }
      if (self->pool_mode == ANOT_POOL_MODE_ORIGINAL && cell != NULL)
        {
          json_builder_set_member_name (builder, "dropped");
          json_builder_add_int_value (builder,
                                      GPOINTER_TO_UINT (g_hash_table_lookup (self->dropped,
                                                                             GUINT_TO_POINTER (n))));
        }
      json_builder_set_member_name (builder, "status");
      json_builder_add_string_value (builder, status);
      json_builder_end_object (builder);
    }
  json_builder_end_array (builder);
  json_builder_end_object (builder);

  root = json_builder_get_root (builder);
  return anot_results_write_json (path, root, TRUE, error);
}

static gboolean
write_summary (AnotExperiment  *self,
               AttackEntry     *attack,
               GError         **error)
{
  g_autoptr(JsonNode) summary = NULL;
  g_autofree char *path = g_build_filename (attack->dir, "summary.json", NULL);

  summary = anot_results_summarize_attack_dir (attack->dir, self->method_name,
                                               anot_dataset_get_name (self->dataset),
                                               attack->name, error);
  if (summary == NULL)
    return FALSE;
  return anot_results_write_json (path, summary, TRUE, error);
}

static gboolean
make_directory (const char  *path,
                GError     **error)
{
  if (g_mkdir_with_parents (path, 0755) != 0)
    {
      int saved_errno = errno;

      g_set_error (error, ANOT_ERROR, ANOT_ERROR_IO, "Cannot create %s: %s",
                   path, g_strerror (saved_errno));
      return FALSE;
    }
  return TRUE;
}

/* --force: remove what an earlier experiment of the same name wrote, and
 * nothing else. */
static gboolean
remove_previous_results (AttackEntry  *attack,
                         GError      **error)
{
  g_autoptr(GDir) dir = g_dir_open (attack->dir, 0, NULL);
  g_autofree char *summary = g_build_filename (attack->dir, "summary.json", NULL);
  const char *name;

  if (dir == NULL)
    return TRUE;

  while ((name = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *run_dir = NULL;
      g_autoptr(GDir) inner = NULL;
      const char *file;

      if (!g_str_has_prefix (name, "run_"))
        continue;
      run_dir = g_build_filename (attack->dir, name, NULL);
      inner = g_dir_open (run_dir, 0, NULL);
      if (inner == NULL)
        continue;
      while ((file = g_dir_read_name (inner)) != NULL)
        {
          if (strcmp (file, "config.json") == 0 || strcmp (file, "usage.jsonl") == 0 ||
              strcmp (file, "debug.log") == 0 ||
              strcmp (file, "scaling_summary.json") == 0 ||
              ((g_str_has_prefix (file, "results_") || g_str_has_prefix (file, "trace_")) &&
               g_str_has_suffix (file, ".jsonl")))
            {
              g_autofree char *path = g_build_filename (run_dir, file, NULL);

              if (g_unlink (path) != 0)
                {
                  int saved_errno = errno;

                  g_set_error (error, ANOT_ERROR, ANOT_ERROR_IO, "Cannot remove %s: %s",
                               path, g_strerror (saved_errno));
                  return FALSE;
                }
            }
        }
      g_rmdir (run_dir); /* only succeeds when nothing else is in it */
    }
  g_unlink (summary);
  return TRUE;
}

static gboolean
load_existing_rows (AnotExperiment  *self,
                    GError         **error)
{
  for (guint i = 0; i < self->cells->len; i++)
    {
      Cell *cell = g_ptr_array_index (self->cells, i);
      g_autofree char *path = results_path (cell->attack, cell->run, cell->n);
      GPtrArray *kept = g_hash_table_lookup (self->kept, GUINT_TO_POINTER (cell->n));
      g_autoptr(GPtrArray) rows = NULL;
      guint n_skipped = 0;

      rows = anot_results_read_rows (path, cell->run, cell->n, &n_skipped, error);
      if (rows == NULL)
        return FALSE;
      if (n_skipped > 0)
        g_info ("%s: ignoring %u unreadable line(s); those requests run again",
                path, n_skipped);

      for (guint r = 0; r < rows->len; r++)
        {
          AnotResult *result = g_ptr_array_index (rows, r);
          const char *id = anot_result_get_request_id (result);
          gboolean planned = FALSE;

          for (guint j = 0; j < kept->len && !planned; j++)
            planned = strcmp (anot_request_get_id (g_ptr_array_index (kept, j)), id) == 0;
          if (planned)
            g_hash_table_insert (cell->rows, g_strdup (id), g_object_ref (result));
        }
    }
  return TRUE;
}

/* ------------------------------------------------------------------------
 * Running
 * --------------------------------------------------------------------- */

static void experiment_pump (AnotExperiment *self);
static void experiment_advance (AnotExperiment *self);

static gboolean
advance_idle_cb (gpointer user_data)
{
  AnotExperiment *self = user_data;

  experiment_advance (self);
  return G_SOURCE_REMOVE;
}

/* Through the main loop rather than a direct call, so a resume over many
 * finished cells does not nest one stack frame per cell. */
static void
experiment_schedule_advance (AnotExperiment *self)
{
  g_autoptr(GSource) source = g_idle_source_new ();

  g_source_set_callback (source, advance_idle_cb, g_object_ref (self), g_object_unref);
  g_source_set_static_name (source, "[anot] experiment advance");
  g_source_attach (source, g_task_get_context (self->task));
}

static void
job_free (Job *job)
{
  g_clear_object (&job->pool);
  g_clear_pointer (&job->attacked, g_ptr_array_unref);
  g_clear_object (&job->query);
  g_clear_object (&job->context);
  g_clear_object (&job->self);
  g_free (job);
}

static char *
format_error (const GError *error)
{
  g_autofree char *prefix = NULL;
  g_autofree char *message = NULL;
  GType enum_type = G_TYPE_INVALID;

  if (error->domain == ANOT_ERROR)
    enum_type = ANOT_TYPE_ERROR;
  else if (error->domain == G_IO_ERROR)
    enum_type = G_TYPE_IO_ERROR_ENUM;

  if (enum_type != G_TYPE_INVALID)
    {
      g_autoptr(GEnumClass) klass = g_type_class_ref (enum_type);
      GEnumValue *value = g_enum_get_value (klass, error->code);

      if (value != NULL)
        prefix = g_strdup (value->value_name);
    }
  if (prefix == NULL)
    prefix = g_strdup_printf ("%s-%d", g_quark_to_string (error->domain), error->code);

  /* The original keeps the first 200 characters of the message. */
  if (g_utf8_validate (error->message, -1, NULL))
    message = g_utf8_substring (error->message, 0,
                                MIN (200, g_utf8_strlen (error->message, -1)));
  else
    message = g_strndup (error->message, 200);

  return g_strdup_printf ("%s: %s", prefix, message);
}

static AnotResult *
result_from_ranking (AnotExperiment    *self,
                     Job               *job,
                     AnotRanking       *ranking,
                     const GError      *error)
{
  AnotPool *pool = job->pool;
  AnotRequest *request = anot_pool_get_request (pool);
  guint n = anot_pool_get_size (pool);
  g_autoptr(GArray) shuffled = g_array_new (FALSE, FALSE, sizeof (guint));
  g_autoptr(GArray) preds = g_array_new (FALSE, FALSE, sizeof (guint));
  g_autofree gboolean *seen = g_new0 (gboolean, n);
  g_autofree char *raw_response = NULL;
  g_autofree char *error_message = NULL;
  AnotResult *result;

  if (ranking != NULL)
    {
      for (guint r = 0; r < anot_ranking_get_length (ranking) && shuffled->len < self->k; r++)
        {
          guint index = anot_ranking_get_index (ranking, r);
          guint one_based, pool_one_based;

          /* Like the original's parser: out-of-range and repeated
           * positions are dropped, the first k distinct ones kept. */
          if (index >= n || seen[index])
            continue;
          seen[index] = TRUE;
          one_based = index + 1;
          pool_one_based = anot_pool_shuffled_to_pool (pool, index) + 1;
          g_array_append_val (shuffled, one_based);
          g_array_append_val (preds, pool_one_based);
        }

      if (anot_ranking_get_raw_response (ranking) != NULL)
        raw_response = g_strdup (anot_ranking_get_raw_response (ranking));
      else
        {
          GString *text = g_string_new (NULL);

          /* Methods without text output answer like the original's ANoT
           * and Listwise: "3, 1, 5". */
          for (guint i = 0; i < shuffled->len; i++)
            g_string_append_printf (text, "%s%u", i ? ", " : "",
                                    g_array_index (shuffled, guint, i));
          raw_response = g_string_free (text, FALSE);
        }
    }
  else
    error_message = format_error (error);

  result = anot_result_new_internal (anot_request_get_id (request),
                                     anot_request_get_group (request),
                                     job->cell->n, job->cell->run,
                                     (const guint *) preds->data, preds->len,
                                     (const guint *) shuffled->data, shuffled->len,
                                     anot_pool_get_gold_position (pool),
                                     anot_pool_get_shuffled_gold_position (pool) + 1,
                                     anot_request_get_gold_item_id (request),
                                     anot_method_context_get_usage (job->context),
                                     raw_response, error_message);
  anot_result_set_uses_truth (result, self->uses_truth);
  return result;
}

static void
record_result (AnotExperiment *self,
               Cell           *cell,
               AnotResult     *result)
{
  g_autoptr(JsonNode) node = anot_result_to_json (result);
  g_autofree char *line = anot_results_node_to_line (node);
  g_autofree char *with_newline = g_strconcat (line, "\n", NULL);

  g_hash_table_insert (cell->rows, g_strdup (anot_result_get_request_id (result)),
                       g_object_ref (result));

  if (self->append != NULL && self->fatal == NULL)
    {
      /* Written and flushed now, so a kill loses only requests in flight. */
      if (!g_output_stream_write_all (self->append, with_newline, strlen (with_newline),
                                      NULL, NULL, &self->fatal) ||
          !g_output_stream_flush (self->append, NULL, &self->fatal))
        {
          g_prefix_error (&self->fatal, "Cannot write results: ");
        }
    }

  g_signal_emit (self, signals[SIGNAL_RESULT], 0, result);
}

/* Appends the method's trace of one request to trace_<N>.jsonl, flushed like
 * the results row; a resumed run appends the traces of the requests it runs. */
static void
record_trace (AnotExperiment *self,
              Job            *job,
              AnotRanking    *ranking)
{
  g_autoptr(JsonBuilder) builder = NULL;
  g_autoptr(JsonNode) node = NULL;
  g_autofree char *line = NULL;
  g_autofree char *with_newline = NULL;
  JsonNode *trace;

  if (ranking == NULL || self->trace_append == NULL || self->fatal != NULL)
    return;
  trace = anot_ranking_get_trace (ranking);
  if (trace == NULL)
    return;

  builder = json_builder_new ();
  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "request_id");
  json_builder_add_string_value (builder, anot_method_context_get_request_id (job->context));
  json_builder_set_member_name (builder, "n_candidates");
  json_builder_add_int_value (builder, job->cell->n);
  json_builder_set_member_name (builder, "run");
  json_builder_add_int_value (builder, job->cell->run);
  json_builder_set_member_name (builder, "method");
  json_builder_add_string_value (builder, self->method_name);
  json_builder_set_member_name (builder, "trace");
  json_builder_add_value (builder, json_node_copy (trace));
  json_builder_end_object (builder);
  node = json_builder_get_root (builder);

  line = anot_results_node_to_line (node);
  with_newline = g_strconcat (line, "\n", NULL);
  if (!g_output_stream_write_all (self->trace_append, with_newline, strlen (with_newline),
                                  NULL, NULL, &self->fatal) ||
      !g_output_stream_flush (self->trace_append, NULL, &self->fatal))
    g_prefix_error (&self->fatal, "Cannot write traces: ");
}

static void
debug_result (AnotExperiment *self,
              Job            *job,
              AnotResult     *result)
{
  AnotUsage *usage = anot_result_get_usage (result);

  if (self->debug_log == NULL)
    return;
  if (anot_result_get_error_message (result) != NULL)
    anot_method_context_debug (job->context, ANOT_DEBUG_LEVEL_SUMMARY, "RUN",
                               "N=%u failed: %s", job->cell->n,
                               anot_result_get_error_message (result));
  else
    anot_method_context_debug (job->context, ANOT_DEBUG_LEVEL_SUMMARY, "RUN",
                               "N=%u gold rank %u; %" G_GUINT64_FORMAT " LLM calls, %"
                               G_GUINT64_FORMAT " tokens, $%.6f, %" G_GUINT64_FORMAT " retries",
                               job->cell->n, anot_result_get_gold_rank (result),
                               anot_usage_get_calls (usage),
                               anot_usage_get_prompt_tokens (usage) +
                               anot_usage_get_completion_tokens (usage),
                               anot_usage_get_cost_usd (usage), anot_usage_get_retries (usage));
}

static void
on_rank_done (GObject      *source,
              GAsyncResult *res,
              gpointer      user_data)
{
  Job *job = user_data;
  AnotExperiment *self = job->self;
  g_autoptr(GError) error = NULL;
  g_autoptr(AnotRanking) ranking = NULL;

  ranking = anot_method_rank_finish (ANOT_METHOD (source), res, &error);

  if (ranking == NULL &&
      (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED) ||
       g_cancellable_is_cancelled (self->cancellable)))
    {
      /* Not finished: no row, so a resume runs it again. */
    }
  else
    {
      g_autoptr(AnotResult) result = NULL;

      if (ranking == NULL && error == NULL)
        g_set_error (&error, ANOT_ERROR, ANOT_ERROR_METHOD_FAILED,
                     "The method returned no ranking and no error");
      result = result_from_ranking (self, job, ranking, error);
      record_trace (self, job, ranking);
      record_result (self, job->cell, result);
      debug_result (self, job, result);
    }

  self->in_flight--;
  g_object_ref (self);
  job_free (job);
  experiment_pump (self);
  g_object_unref (self);
}

static void
start_job (AnotExperiment *self,
           AnotPool       *pool)
{
  AnotRequest *request = anot_pool_get_request (pool);
  Cell *cell = g_ptr_array_index (self->cells, self->cell_index);
  g_autofree char *scope = g_strdup_printf ("method:%s:%u", anot_request_get_id (request),
                                            cell->n);
  Job *job = g_new0 (Job, 1);
  GHashTableIter iter;
  gpointer key, value;

  job->self = g_object_ref (self);
  job->cell = cell;
  job->pool = g_object_ref (pool);
  job->context = anot_method_context_new (self->dataset, anot_request_get_id (request),
                                          anot_seed_derive (self->seed + cell->run, scope));
  /* Blind unless the method declared it ranks by the truth. */
  job->query = anot_query_new_for_request (request);
  if (self->uses_truth)
    {
      anot_method_context_set_truth_request (job->context, request);
      anot_method_context_set_validator (job->context, self->validator);
    }
  anot_method_context_set_router (job->context, self->router);
  anot_method_context_set_debug_log (job->context, self->debug_log);
  g_hash_table_iter_init (&iter, self->method_options);
  while (g_hash_table_iter_next (&iter, &key, &value))
    anot_method_context_set_option (job->context, key, value);

  anot_method_context_set_defense (job->context, self->defense);

  if (cell->attack->attack != NULL)
    {
      g_autoptr(GError) attack_error = NULL;
      guint64 attack_seed = anot_attack_derive_seed (self->seed + cell->run, cell->attack->name,
                                                     anot_request_get_id (request), cell->n);

      job->attacked = anot_attack_apply (cell->attack->attack, anot_pool_get_shuffled (pool),
                                         request, attack_seed, &attack_error);
      if (job->attacked == NULL)
        {
          /* Deterministic, so a failed row rather than a retry. */
          g_autoptr(AnotResult) result = result_from_ranking (self, job, NULL, attack_error);

          record_result (self, cell, result);
          job_free (job);
          return;
        }
    }

  self->in_flight++;
  anot_method_rank_async (self->method, job->query,
                          job->attacked ? job->attacked : anot_pool_get_shuffled (pool), self->k,
                          job->context, self->cancellable, on_rank_done, job);
}

static gboolean
cell_is_last_of_run (AnotExperiment *self,
                     guint           index)
{
  Cell *cell = g_ptr_array_index (self->cells, index);

  return index + 1 >= self->cells->len ||
         ((Cell *) g_ptr_array_index (self->cells, index + 1))->run != cell->run ||
         ((Cell *) g_ptr_array_index (self->cells, index + 1))->attack != cell->attack;
}

static gboolean
experiment_stopping (AnotExperiment *self)
{
  return self->fatal != NULL || g_cancellable_is_cancelled (self->cancellable);
}

static guint
count_failed_rows (AnotExperiment *self,
                   guint          *out_total,
                   const char    **out_first_error)
{
  guint failed = 0, total = 0;

  *out_first_error = NULL;
  for (guint i = 0; i < self->cells->len; i++)
    {
      Cell *cell = g_ptr_array_index (self->cells, i);
      GHashTableIter iter;
      gpointer value;

      g_hash_table_iter_init (&iter, cell->rows);
      while (g_hash_table_iter_next (&iter, NULL, &value))
        {
          total++;
          if (anot_result_get_error_message (value) != NULL)
            {
              failed++;
              if (*out_first_error == NULL)
                *out_first_error = anot_result_get_error_message (value);
            }
        }
    }
  *out_total = total;
  return failed;
}

static void
experiment_complete (AnotExperiment *self,
                     GError         *error)
{
  g_autoptr(GTask) task = g_steal_pointer (&self->task);

  g_clear_object (&self->cancellable);
  g_clear_pointer (&self->jobs, g_ptr_array_unref);
  g_clear_object (&self->append);
  g_clear_object (&self->trace_append);
  g_clear_object (&self->debug_log);

  if (error != NULL)
    g_task_return_error (task, error);
  else
    g_task_return_boolean (task, TRUE);
}

/* Called when the current cell has nothing in flight and nothing more to
 * start, either because it is done or because the run is stopping. */
static void
finish_cell (AnotExperiment *self)
{
  Cell *cell = g_ptr_array_index (self->cells, self->cell_index);
  g_autofree char *path = results_path (cell->attack, cell->run, cell->n);
  g_autoptr(GPtrArray) rows = cell_sorted_rows (cell);
  g_autoptr(GError) error = NULL;
  gboolean stopping = experiment_stopping (self);
  gboolean last_of_run = cell_is_last_of_run (self, self->cell_index);
  const char *status;

  if (self->append != NULL)
    {
      g_output_stream_close (self->append, NULL, NULL);
      g_clear_object (&self->append);
    }
  if (self->trace_append != NULL)
    {
      g_output_stream_close (self->trace_append, NULL, NULL);
      g_clear_object (&self->trace_append);
    }
  g_clear_pointer (&self->jobs, g_ptr_array_unref);

  cell->complete = !stopping;
  status = stopping ? (self->fatal ? "failed" : "interrupted")
                    : (last_of_run ? "complete" : "running");

  if (!anot_results_write_rows (path, rows, &error) ||
      !write_usage_file (self, cell->attack, cell->run, &error) ||
      !write_config (self, cell->attack, cell->run, status, &error) ||
      ((self->ns->len > 1 && (last_of_run || stopping)) &&
       !write_scaling_summary (self, cell->attack, cell->run, &error)) ||
      ((last_of_run || stopping) && !write_summary (self, cell->attack, &error)))
    {
      if (self->fatal == NULL)
        self->fatal = g_steal_pointer (&error);
      stopping = TRUE;
    }

  g_signal_emit (self, signals[SIGNAL_N_FINISHED], 0, cell->run, cell->n);

  if (stopping)
    {
      if (self->fatal != NULL)
        experiment_complete (self, g_steal_pointer (&self->fatal));
      else
        experiment_complete (self,
                             g_error_new (G_IO_ERROR, G_IO_ERROR_CANCELLED,
                                          "Interrupted; the results so far are in %s. "
                                          "Continue with: anot-run --resume %s",
                                          self->directory, self->directory));
      return;
    }

  self->cell_index++;
  experiment_schedule_advance (self);
}

static void
experiment_pump (AnotExperiment *self)
{
  if (self->pumping)
    {
      self->pump_again = TRUE;
      return;
    }

  self->pumping = TRUE;
  do
    {
      self->pump_again = FALSE;

      if (self->task == NULL || self->jobs == NULL)
        break;

      while (!experiment_stopping (self) && self->in_flight < self->concurrency &&
             self->next_job < self->jobs->len)
        start_job (self, g_ptr_array_index (self->jobs, self->next_job++));

      if (self->in_flight == 0 &&
          (experiment_stopping (self) || self->next_job >= self->jobs->len))
        {
          self->pumping = FALSE;
          finish_cell (self);
          return;
        }
    }
  while (self->pump_again);
  self->pumping = FALSE;
}

static void
experiment_advance (AnotExperiment *self)
{
  g_autoptr(GError) error = NULL;

  if (self->cell_index >= self->cells->len)
    {
      const char *first_error;
      guint total;
      guint failed = count_failed_rows (self, &total, &first_error);

      if (total > 0 && failed == total)
        experiment_complete (self,
                             g_error_new (ANOT_ERROR, ANOT_ERROR_METHOD_FAILED,
                                          "Every request failed (%u); the first error was: %s",
                                          total, first_error));
      else
        experiment_complete (self, NULL);
      return;
    }

  {
    Cell *cell = g_ptr_array_index (self->cells, self->cell_index);
    GPtrArray *kept = g_hash_table_lookup (self->kept, GUINT_TO_POINTER (cell->n));
    g_autofree char *dir = run_dir_path (cell->attack, cell->run);
    g_autofree char *path = results_path (cell->attack, cell->run, cell->n);
    g_autoptr(GPtrArray) rows = cell_sorted_rows (cell);
    g_autoptr(GFile) file = NULL;
    gboolean first_of_run = self->cell_index == 0 ||
      ((Cell *) g_ptr_array_index (self->cells, self->cell_index - 1))->run != cell->run ||
      ((Cell *) g_ptr_array_index (self->cells, self->cell_index - 1))->attack != cell->attack;

    if (first_of_run && self->debug_level > ANOT_DEBUG_LEVEL_OFF)
      {
        g_autofree char *log_path = g_build_filename (dir, "debug.log", NULL);

        g_clear_object (&self->debug_log);
        if (!make_directory (dir, &error) ||
            (self->debug_log = anot_debug_log_new (log_path, self->debug_level, &error)) == NULL)
          {
            experiment_complete (self, g_steal_pointer (&error));
            return;
          }
      }

    if (!make_directory (dir, &error) ||
        (first_of_run && !write_config (self, cell->attack, cell->run, "running", &error)) ||
        /* Rewriting what was read drops a torn last line before appending. */
        !anot_results_write_rows (path, rows, &error))
      {
        experiment_complete (self, g_steal_pointer (&error));
        return;
      }

    self->jobs = g_ptr_array_new_with_free_func (g_object_unref);
    self->next_job = 0;
    for (guint i = 0; i < kept->len; i++)
      {
        AnotRequest *request = g_ptr_array_index (kept, i);
        AnotPool *pool;

        if (g_hash_table_contains (cell->rows, anot_request_get_id (request)))
          continue;
        pool = anot_pool_new (self->dataset, request, cell->n, self->pool_mode,
                              self->shuffle, self->seed + cell->run, &error);
        if (pool == NULL)
          {
            experiment_complete (self, g_steal_pointer (&error));
            return;
          }
        g_ptr_array_add (self->jobs, pool);
      }

    file = g_file_new_for_path (path);
    self->append = G_OUTPUT_STREAM (g_file_append_to (file, G_FILE_CREATE_NONE, NULL, &error));
    if (self->append == NULL)
      {
        g_prefix_error (&error, "Cannot open %s: ", path);
        experiment_complete (self, g_steal_pointer (&error));
        return;
      }

    {
      g_autofree char *trace_path = run_file_path (cell->attack, cell->run, "trace", cell->n);
      g_autoptr(GFile) trace_file = g_file_new_for_path (trace_path);

      self->trace_append = G_OUTPUT_STREAM (g_file_append_to (trace_file, G_FILE_CREATE_NONE,
                                                              NULL, &error));
      if (self->trace_append == NULL)
        {
          g_prefix_error (&error, "Cannot open %s: ", trace_path);
          experiment_complete (self, g_steal_pointer (&error));
          return;
        }
    }

    if (self->debug_log != NULL)
      {
        g_autofree char *line = g_strdup_printf ("attack %s, run %u, N=%u: %u requests, %u already done",
                                                 cell->attack->name, cell->run, cell->n, kept->len,
                                                 g_hash_table_size (cell->rows));

        anot_debug_log_write (self->debug_log, ANOT_DEBUG_LEVEL_SUMMARY, "RUN", NULL, line);
      }
    g_signal_emit (self, signals[SIGNAL_N_STARTED], 0, cell->run, cell->n, kept->len,
                   g_hash_table_size (cell->rows));
  }

  experiment_pump (self);
}

static gboolean
prepare_attack_dirs (AnotExperiment  *self,
                     GError         **error)
{
  for (guint i = 0; i < self->attacks->len; i++)
    {
      AttackEntry *entry = g_ptr_array_index (self->attacks, i);

      if ((self->force && !self->resuming && !remove_previous_results (entry, error)) ||
          !make_directory (entry->dir, error))
        return FALSE;
    }
  return TRUE;
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

  if (!anot_experiment_prepare (self, &error) ||
      !prepare_attack_dirs (self, &error) ||
      !load_existing_rows (self, &error))
    {
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }

  self->task = g_steal_pointer (&task);
  self->cancellable = cancellable ? g_object_ref (cancellable) : g_cancellable_new ();
  self->cell_index = 0;
  self->in_flight = 0;
  g_clear_error (&self->fatal);

  experiment_advance (self);
}

/**
 * anot_experiment_run_finish:
 * @self: an #AnotExperiment
 * @result: the result passed to the callback
 * @error: return location for a #GError
 *
 * Finishes a run.  A cancelled run fails with %G_IO_ERROR_CANCELLED after
 * writing its results; a run in which every request failed fails with
 * %ANOT_ERROR_METHOD_FAILED (its rows are written).
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
 * Resume
 * --------------------------------------------------------------------- */

static int
compare_paths (gconstpointer a,
               gconstpointer b)
{
  return strcmp (*(const char * const *) a, *(const char * const *) b);
}

static char *
find_config (const char *directory,
             char      **out_experiment_dir)
{
  g_autofree char *direct = g_build_filename (directory, "config.json", NULL);
  g_autoptr(GPtrArray) candidates = g_ptr_array_new_with_free_func (g_free);

  *out_experiment_dir = NULL;

  /* A run dir: <out>/<name>/<attack>/run_<R> */
  if (g_file_test (direct, G_FILE_TEST_IS_REGULAR))
    {
      g_autofree char *attack = g_path_get_dirname (directory);

      *out_experiment_dir = g_path_get_dirname (attack);
      return g_steal_pointer (&direct);
    }

  /* An attack dir, then an experiment dir. */
  for (guint depth = 0; depth < 2; depth++)
    {
      g_autoptr(GDir) dir = g_dir_open (directory, 0, NULL);
      const char *name;

      if (dir == NULL)
        return NULL;
      while ((name = g_dir_read_name (dir)) != NULL)
        {
          g_autofree char *child = g_build_filename (directory, name, NULL);

          if (depth == 0 && g_str_has_prefix (name, "run_"))
            {
              g_autofree char *path = g_build_filename (child, "config.json", NULL);

              if (g_file_test (path, G_FILE_TEST_IS_REGULAR))
                g_ptr_array_add (candidates, g_steal_pointer (&path));
            }
          else if (depth == 1 && g_file_test (child, G_FILE_TEST_IS_DIR))
            {
              g_autoptr(GDir) inner = g_dir_open (child, 0, NULL);
              const char *run;

              while (inner && (run = g_dir_read_name (inner)) != NULL)
                {
                  g_autofree char *path = NULL;

                  if (!g_str_has_prefix (run, "run_"))
                    continue;
                  path = g_build_filename (child, run, "config.json", NULL);
                  if (g_file_test (path, G_FILE_TEST_IS_REGULAR))
                    g_ptr_array_add (candidates, g_steal_pointer (&path));
                }
            }
        }
      if (candidates->len > 0)
        {
          const char *chosen = NULL;

          g_ptr_array_sort (candidates, compare_paths);
          /* Attacks run one after the other may share the directory: the
           * one to continue is the one that did not complete. */
          for (guint i = 0; i < candidates->len && chosen == NULL; i++)
            {
              g_autoptr(JsonNode) node = anot_results_read_json (g_ptr_array_index (candidates, i), NULL);
              JsonObject *anot = NULL;

              if (node != NULL && JSON_NODE_HOLDS_OBJECT (node) &&
                  json_object_has_member (json_node_get_object (node), "anot") &&
                  JSON_NODE_HOLDS_OBJECT (json_object_get_member (json_node_get_object (node), "anot")))
                anot = json_object_get_object_member (json_node_get_object (node), "anot");
              if (anot != NULL &&
                  g_strcmp0 (json_object_get_string_member_with_default (anot, "status", NULL),
                             "complete") != 0)
                chosen = g_ptr_array_index (candidates, i);
            }
          if (chosen == NULL)
            chosen = g_ptr_array_index (candidates, 0);
          *out_experiment_dir = depth == 0 ? g_path_get_dirname (directory)
                                           : g_strdup (directory);
          return g_strdup (chosen);
        }
    }
  return NULL;
}

/**
 * anot_experiment_new_for_resume:
 * @directory: the experiment directory `<out>/<name>` a run printed, or
 *   one of its run directories
 * @dataset: (nullable): the benchmark, or %NULL to load the one recorded
 *   in `config.json`
 * @error: return location for a #GError
 *
 * Recreates an interrupted experiment from its `config.json`, with the
 * same options.  Running it computes only the (run, N, request)
 * combinations that have no row yet; the finished files have the same
 * rows as an uninterrupted run.  Only `concurrency` may be changed with
 * [method@Anot.Experiment.set_option] afterwards without changing the
 * results.
 *
 * Errors: %ANOT_ERROR_RESUME when no `config.json` with anot's options is
 * found or when the dataset's checksum differs from the recorded one.
 *
 * Returns: (transfer full): the experiment, or %NULL with @error set
 */
AnotExperiment *
anot_experiment_new_for_resume (const char   *directory,
                                AnotDataset  *dataset,
                                GError      **error)
{
  g_autofree char *experiment_dir = NULL;
  g_autofree char *config_path = NULL;
  g_autoptr(JsonNode) config = NULL;
  g_autoptr(AnotDataset) loaded = NULL;
  g_autoptr(AnotExperiment) self = NULL;
  g_autoptr(GError) local_error = NULL;
  g_autofree char *out = NULL;
  g_autofree char *name = NULL;
  JsonObject *anot, *options;
  const char *method, *checksum, *data_path;

  g_return_val_if_fail (directory != NULL, NULL);
  g_return_val_if_fail (dataset == NULL || ANOT_IS_DATASET (dataset), NULL);

  config_path = find_config (directory, &experiment_dir);
  if (config_path == NULL)
    {
      g_set_error (error, ANOT_ERROR, ANOT_ERROR_RESUME,
                   "Cannot resume %s: no run_*/config.json found", directory);
      return NULL;
    }
  config = anot_results_read_json (config_path, &local_error);
  if (config == NULL || !JSON_NODE_HOLDS_OBJECT (config) ||
      !json_object_has_member (json_node_get_object (config), "anot") ||
      !JSON_NODE_HOLDS_OBJECT (json_object_get_member (json_node_get_object (config), "anot")))
    {
      g_set_error (error, ANOT_ERROR, ANOT_ERROR_RESUME,
                   "Cannot resume from %s: %s", config_path,
                   local_error ? local_error->message : "it was not written by anot");
      return NULL;
    }
  anot = json_object_get_object_member (json_node_get_object (config), "anot");
  method = json_object_get_string_member_with_default (anot, "method", NULL);
  checksum = json_object_get_string_member_with_default (anot, "dataset_checksum", NULL);
  data_path = json_object_get_string_member_with_default (anot, "data_path", NULL);
  options = json_object_has_member (anot, "options") &&
            JSON_NODE_HOLDS_OBJECT (json_object_get_member (anot, "options"))
            ? json_object_get_object_member (anot, "options") : NULL;
  if (method == NULL || options == NULL)
    {
      g_set_error (error, ANOT_ERROR, ANOT_ERROR_RESUME,
                   "Cannot resume from %s: the “anot” object lacks the method or options",
                   config_path);
      return NULL;
    }

  if (dataset == NULL)
    {
      if (data_path == NULL)
        {
          g_set_error (error, ANOT_ERROR, ANOT_ERROR_RESUME,
                       "Cannot resume from %s: no data path recorded", config_path);
          return NULL;
        }
      loaded = anot_dataset_load (data_path, NULL, &local_error);
      if (loaded == NULL)
        {
          g_set_error (error, ANOT_ERROR, ANOT_ERROR_RESUME,
                       "Cannot resume: loading the recorded dataset %s failed: %s",
                       data_path, local_error->message);
          return NULL;
        }
      dataset = loaded;
    }

  if (g_strcmp0 (checksum, anot_dataset_get_checksum (dataset)) != 0)
    {
      g_set_error (error, ANOT_ERROR, ANOT_ERROR_RESUME,
                   "Cannot resume %s: the dataset %s has checksum %s but the run used %s",
                   experiment_dir, anot_dataset_get_path (dataset),
                   anot_dataset_get_checksum (dataset), checksum ? checksum : "(none)");
      return NULL;
    }

  self = anot_experiment_new (dataset, method);
  {
    JsonObjectIter iter;
    const char *key;
    JsonNode *value;

    json_object_iter_init (&iter, options);
    while (json_object_iter_next (&iter, &key, &value))
      {
        if (!JSON_NODE_HOLDS_VALUE (value) || json_node_get_value_type (value) != G_TYPE_STRING)
          continue;
        if (strcmp (key, "force") == 0 || strcmp (key, "out") == 0 || strcmp (key, "name") == 0)
          continue;
        g_hash_table_insert (self->options, g_strdup (key), g_strdup (json_node_get_string (value)));
      }
  }

  /* The directory may have been moved since: trust where it is now. */
  out = g_path_get_dirname (experiment_dir);
  name = g_path_get_basename (experiment_dir);
  g_hash_table_insert (self->options, g_strdup ("out"), g_strdup (out));
  g_hash_table_insert (self->options, g_strdup ("name"), g_strdup (name));
  self->resuming = TRUE;

  return g_steal_pointer (&self);
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

  cell = find_cell (self, NULL, run, n_candidates);
  if (cell == NULL)
    return NULL;
  return cell_metrics (self, cell);
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

  cell = find_cell (self, NULL, run, n_candidates);
  if (cell == NULL)
    return NULL;
  return cell_sorted_rows (cell);
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

  if (self->ns == NULL)
    {
      *n_counts = 0;
      return NULL;
    }
  *n_counts = self->ns->len;
  return (const guint *) self->ns->data;
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
  return self->prepared ? self->runs : 0;
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

  entry = find_attack (self, attack);
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

  entry = find_attack (self, attack);
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
  return self->prepared && self->defense;
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

  entry = find_attack (self, attack);
  if (entry == NULL)
    return NULL;
  cell = find_cell (self, entry, run, n_candidates);
  if (cell == NULL)
    return NULL;
  return cell_metrics (self, cell);
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

  entry = find_attack (self, attack);
  if (entry == NULL)
    return NULL;
  cell = find_cell (self, entry, run, n_candidates);
  if (cell == NULL)
    return NULL;
  return cell_sorted_rows (cell);
}
