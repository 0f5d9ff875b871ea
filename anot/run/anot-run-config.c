/* anot-run-config.c: the typed settings of an experiment
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "anot-run-config-private.h"

#include "anot-batch-queue.h"
#include "anot-debug-log.h"
#include "anot-enum-types.h"
#include "anot-error.h"

#include <string.h>

/**
 * AnotRunConfig:
 *
 * The settings of an [class@Anot.Experiment], typed.
 *
 * Every setting has a key, the name `anot-run` gives its option
 * (`candidates` is `--candidates`), and a text form:
 * [method@Anot.RunConfig.set] parses it (the command line, a resume and
 * the Python override all go through it) and
 * [method@Anot.RunConfig.to_json] writes it back; `config.json` keeps the
 * settings a resume needs in the same form.  An unknown key or a bad value
 * is an error that names the key (and the value).
 *
 * - `candidates`: N, or a comma-separated list of N (default `10`)
 * - `scaling`: `true` for N in 10, 20, 30, 40, 50; an N larger than the
 *   dataset is skipped
 * - `compat`: `none` (default) or `original`: like for like with the
 *   original framework's published runs (see [enum@Anot.CompatMode] and
 *   `docs/fidelity.md`); `original` implies `pool` `original` and
 *   `attack-compat` `original`, and giving either another value is an
 *   error; methods see it as [property@Anot.MethodContext:compat]
 * - `pool`: `sampled` (default) or `original` (see [enum@Anot.PoolMode])
 * - `shuffle`: `none`, `middle` or `random` (default)
 * - `k`: predictions kept per request, Hits@1..k (default 5)
 * - `seed`: the base seed (default 42); run R uses seed + R
 * - `runs`: the number of runs (default 1)
 * - `concurrency`: requests in flight at once, which also fixes the calls
 *   in flight; `auto` (the default) lets the calls in flight per server
 *   adapt (see [property@Anot.HttpBackend:adaptive-concurrency]) with up
 *   to 64 requests in flight (8 in batch mode)
 * - `limit`: keep only the first L selected requests
 * - `requests`: comma-separated request ids
 * - `groups`: groups as `G01,G04`, `1,4` or `1-3`
 * - `out`: the results root (default `results`)
 * - `name`: the experiment directory name (default `<method>_<dataset>`)
 * - `force`: `true` to overwrite an existing results directory
 * - `defense`: `true` for defense mode (see
 *   [method@Anot.MethodContext.get_defense_prompt])
 * - `attack`: a comma-separated list of attacks (registered names,
 *   `clean` or `none` for no attack, a category such as `noise`,
 *   `injection` or `deception`, `all` for every registered attack whose
 *   parameters allow it to run, `both` for `clean,all`); default `clean`
 * - `backend`, `model`, `base-url`, `temperature`, `max-tokens`: the LLM
 *   settings of the default role, on top of the environment and the
 *   configuration file (see [class@Anot.LlmConfig])
 * - `role`: comma-separated `ROLE=BACKEND:MODEL` routes
 * - `cache`: a response cache file ([class@Anot.ResponseCache]); `offline`:
 *   `true` to answer LLM calls from it only
 * - `debug`: the debug level, 0 to 3 (default: the `ANOT_DEBUG` environment
 *   variable); above 0, `debug.log` is written in each run directory
 * - `shard`: `I/N` (0 ≤ I < N) runs only shard I of N of the experiment's
 *   cells (attack × run × N × request, dealt round-robin in plan order), so
 *   N processes (Slurm array tasks) share one experiment; each writes the
 *   usual layout into its own directory, and
 *   [func@Anot.Experiment.merge_shards] makes the directory one process
 *   would have written.  Kept for a resume.
 * - `batch`: `true` to send the calls of the `openai` and `anthropic`
 *   backends through the providers' batch APIs at the batch price (see
 *   [class@Anot.BatchQueue]); default: `ANOT_BATCH`, then `batch` in the
 *   `[llm]` section of the configuration file, then `false`
 * - `batch-max-size`: the most calls in one batch (default 10000;
 *   `ANOT_BATCH_MAX_SIZE`, `[llm] batch_max_size`); the provider's limit
 *   (OpenAI 50,000, Anthropic 100,000) applies when lower
 * - `batch-max-bytes`: the most bytes in one batch, counted on the lines
 *   the provider receives; 0 (default): the provider's limit (OpenAI
 *   200 MB, Anthropic 256 MB), which also applies when lower
 *   (`ANOT_BATCH_MAX_BYTES`, `[llm] batch_max_bytes`)
 * - `batch-window`: the longest a call waits for its batch to be
 *   submitted, in seconds; 0 (default) for no limit (`ANOT_BATCH_WINDOW`,
 *   `[llm] batch_window`)
 * - `batch-retry`: `batch` (default) or `direct`: where calls a batch did
 *   not answer (expired, cancelled, a 429 or 5xx line) are retried
 *   (`ANOT_BATCH_RETRY`, `[llm] batch_retry`)
 * - `rpm`, `tpm`: your own limits of requests and tokens per minute for
 *   the default role's server, for servers that send none (see
 *   [property@Anot.HttpBackend:rpm]); the server's own, read from its
 *   answers, apply too.  Kept for a resume
 * - `context-tokens`: the context window prompts are fitted to before they
 *   are sent (see [method@Anot.BackendRouter.set_context_tokens]); 0
 *   (default): each model's from the price table
 * - `request-timeout`: the deadline of one request, in seconds (default
 *   3600: an hour, enough for a multi-round method on a slow provider,
 *   retries included); a method that has not finished a request by then
 *   is cancelled, the request's row records the failure
 *   (%ANOT_ERROR_METHOD_TIMEOUT) and the run goes on, even if the method
 *   never honours the cancellation.  0: no deadline.  In batch mode,
 *   where a request waits for provider batches (up to a day), there is no
 *   deadline unless one is given
 * - `max-cost`: a budget in US dollars, a cap: a request starts only when
 *   its estimated cost (as `anot-run estimate` reckons it) fits beside
 *   what was spent and what the requests in flight reserved; once one
 *   cannot, the run lets those in flight finish and ends with
 *   %ANOT_ERROR_BUDGET (`anot-run` exits with 3); a resume with a higher
 *   budget continues.  0 (default): no budget
 * - `max-cost-role`: budgets of single roles, `ROLE=USD,...`, e.g.
 *   `planner=5`
 * - `method.KEY`: an option passed to the method's
 *   [class@Anot.MethodContext] as `KEY`
 * - `attack.KEY`: a parameter of the attacks (see
 *   [method@Anot.Attack.set_parameter]), e.g. `attack.restaurants`; set on
 *   every selected attack that has it, an error if none has it
 *
 * Booleans are `true`/`false` (also `1`/`0`, `yes`/`no`).  Checks that need
 * the dataset or the registry (request ids, group names, N larger than the
 * dataset, attack names) are made by [method@Anot.Experiment.prepare].
 */

#define METHOD_PREFIX "method."
#define ATTACK_PREFIX "attack."

typedef enum
{
  KIND_UINT,
  KIND_BOOL,
  KIND_ENUM,
  KIND_UINT_LIST,     /* candidates */
  KIND_STRING_LIST,   /* requests, groups */
  KIND_STRING,
  KIND_DEBUG_LEVEL,
  KIND_SHARD,         /* I/N: two guints, index then count */
  KIND_USD,           /* a double >= 0; 0: none */
} Kind;

typedef enum
{
  /* Written, typed, in the "anot" object of config.json. */
  FLAG_RECORD = 1 << 0,
  /* Kept as text in config.json's "anot.options": a resume restores it. */
  FLAG_RESUME = 1 << 1,
  /* ...even when not given, as its default, so a resume restores exactly
   * these values even if the defaults change later. */
  FLAG_EFFECTIVE = 1 << 2,
  /* ...only when true. */
  FLAG_TRUE_ONLY = 1 << 3,
  /* The value may not be empty. */
  FLAG_NONEMPTY = 1 << 4,
  /* Not a directory path: no "/", ".", "..". */
  FLAG_FILE_NAME = 1 << 5,
  /* Where the calls go and what they may cost, not what they answer:
   * shards of one experiment may differ in it (each Slurm task asks its
   * own vLLM server; a shard resumed with a higher budget). */
  FLAG_PER_SHARD = 1 << 6,
} Flags;

typedef struct
{
  const char *key;
  Kind kind;
  Flags flags;
  gsize offset;
  guint64 min;
  guint64 max;
  guint64 default_value;        /* KIND_UINT, KIND_BOOL, KIND_ENUM */
  const char *default_text;     /* KIND_STRING, KIND_UINT_LIST */
  GType (*enum_type) (void);
  const char *expected;         /* what an error says was expected */
  const char *llm_key;          /* an AnotLlmConfig key of the default role */
  gboolean (*check) (const char *text);  /* KIND_STRING: whether a value is valid */
} KeyInfo;

static gboolean check_role_costs (const char *text);

/* A whole number ≥ 1. */
static gboolean
check_count (const char *text)
{
  return g_ascii_string_to_unsigned (text, 10, 1, G_MAXUINT, NULL, NULL);
}

#define FIELD(f) G_STRUCT_OFFSET (AnotRunConfig, f)

/* KIND_SHARD reads the count right after the index. */
G_STATIC_ASSERT (G_STRUCT_OFFSET (AnotRunConfig, shard_count) ==
                 G_STRUCT_OFFSET (AnotRunConfig, shard_index) + sizeof (guint));

/* Every key, once.  The order of the FLAG_RECORD keys is the order of
 * config.json's "anot" object. */
static const KeyInfo keys[] = {
  { "candidates", KIND_UINT_LIST, FLAG_RECORD | FLAG_RESUME | FLAG_EFFECTIVE, FIELD (candidates),
    1, G_MAXUINT, 0, "10", NULL, "e.g. 10 or 10,20" },
  { "scaling", KIND_BOOL, FLAG_RECORD | FLAG_RESUME | FLAG_TRUE_ONLY, FIELD (scaling) },
  { "compat", KIND_ENUM, FLAG_RECORD | FLAG_RESUME | FLAG_EFFECTIVE, FIELD (compat),
    0, 0, ANOT_COMPAT_MODE_NONE, NULL, anot_compat_mode_get_type },
  { "pool", KIND_ENUM, FLAG_RECORD | FLAG_RESUME | FLAG_EFFECTIVE, FIELD (pool),
    0, 0, ANOT_POOL_MODE_SAMPLED, NULL, anot_pool_mode_get_type },
  { "shuffle", KIND_ENUM, FLAG_RECORD | FLAG_RESUME | FLAG_EFFECTIVE, FIELD (shuffle),
    0, 0, ANOT_SHUFFLE_MODE_RANDOM, NULL, anot_shuffle_mode_get_type },
  { "seed", KIND_UINT, FLAG_RECORD | FLAG_RESUME | FLAG_EFFECTIVE, FIELD (seed),
    0, G_MAXUINT64, 42 },
  { "runs", KIND_UINT, FLAG_RECORD | FLAG_RESUME | FLAG_EFFECTIVE, FIELD (runs), 1, 1000, 1 },
  { "k", KIND_UINT, FLAG_RECORD | FLAG_RESUME | FLAG_EFFECTIVE, FIELD (k), 1, 100, 5 },
  /* 0, the default, is "auto" (recorded as null): the calls in flight
   * per server adapt. */
  { "concurrency", KIND_UINT, FLAG_RECORD | FLAG_RESUME | FLAG_EFFECTIVE, FIELD (concurrency),
    1, 10000, 0 },
  /* 0, the default, is "no limit" and recorded as null. */
  { "limit", KIND_UINT, FLAG_RECORD | FLAG_RESUME, FIELD (limit), 1, G_MAXUINT, 0 },
  { "requests", KIND_STRING_LIST, FLAG_RECORD | FLAG_RESUME, FIELD (requests),
    0, 0, 0, NULL, NULL, "e.g. R01,R05" },
  { "groups", KIND_STRING_LIST, FLAG_RECORD | FLAG_RESUME, FIELD (groups),
    0, 0, 0, NULL, NULL, "e.g. G01,G04 or 1-3" },
  /* Not restored by a resume: it takes them from where the directory is. */
  { "out", KIND_STRING, FLAG_RECORD, FIELD (out), 0, 0, 0, "results" },
  { "name", KIND_STRING, FLAG_RECORD | FLAG_NONEMPTY | FLAG_FILE_NAME, FIELD (name),
    0, 0, 0, NULL, NULL, "a directory name without “/”" },
  /* A resume must not repeat it. */
  { "force", KIND_BOOL, 0, FIELD (force) },
  { "defense", KIND_BOOL, FLAG_RESUME | FLAG_TRUE_ONLY, FIELD (defense) },
  /* As given: a resume continues every attack of it. */
  { "attack", KIND_STRING, FLAG_RESUME | FLAG_NONEMPTY, FIELD (attack),
    0, 0, 0, NULL, NULL, "e.g. typo_10, noise or all" },
  /* The form of the reviews attacks add (AnotAttackCompat); kept for a
   * resume when given. */
  { "attack-compat", KIND_ENUM, FLAG_RESUME, FIELD (attack_compat),
    0, 0, ANOT_ATTACK_COMPAT_REALISTIC, NULL, anot_attack_compat_get_type },
  /* The LLM choices, so a resume asks the same models. */
  { "backend", KIND_STRING, FLAG_RESUME, FIELD (backend), .llm_key = "backend" },
  { "model", KIND_STRING, FLAG_RESUME, FIELD (model), .llm_key = "model" },
  { "base-url", KIND_STRING, FLAG_RESUME | FLAG_PER_SHARD, FIELD (base_url), .llm_key = "base_url" },
  { "temperature", KIND_STRING, FLAG_RESUME, FIELD (temperature), .llm_key = "temperature" },
  { "max-tokens", KIND_STRING, FLAG_RESUME, FIELD (max_tokens), .llm_key = "max_tokens" },
  { "role", KIND_STRING, FLAG_RESUME, FIELD (role) },
  /* Not the cache, offline mode or debug level, which do not change
   * results: an offline replay writes the same files. */
  { "cache", KIND_STRING, 0, FIELD (cache) },
  { "offline", KIND_BOOL, 0, FIELD (offline) },
  { "debug", KIND_DEBUG_LEVEL, 0, FIELD (debug), 0, 0, ANOT_DEBUG_LEVEL_OFF },
  /* A shard resumes as the same shard; an unsharded run writes nothing. */
  { "shard", KIND_SHARD, FLAG_RESUME, FIELD (shard_index), 1, 100000, 0, NULL, NULL,
    "I/N with 0 ≤ I < N, e.g. 0/4" },
  /* Batch mode changes the price, not the results; a resume keeps it so
   * the batches it recorded are polled, not paid again. */
  { "batch", KIND_BOOL, FLAG_RESUME | FLAG_TRUE_ONLY | FLAG_PER_SHARD, FIELD (batch), .llm_key = NULL },
  { "batch-max-size", KIND_UINT, FLAG_RESUME | FLAG_PER_SHARD, FIELD (batch_max_size), 1, 100000, 10000 },
  { "batch-max-bytes", KIND_UINT, FLAG_RESUME | FLAG_PER_SHARD, FIELD (batch_max_bytes), 0, G_MAXINT64, 0 },
  { "batch-window", KIND_UINT, FLAG_RESUME | FLAG_PER_SHARD, FIELD (batch_window), 0, 86400, 0 },
  { "batch-retry", KIND_ENUM, FLAG_RESUME | FLAG_PER_SHARD, FIELD (batch_retry),
    0, 0, ANOT_BATCH_RETRY_BATCH, NULL, anot_batch_retry_get_type },
  { "context-tokens", KIND_UINT, FLAG_RESUME, FIELD (context_tokens), 0, 100000000, 0 },
  /* Limits of the account or server, like where the calls go. */
  { "rpm", KIND_STRING, FLAG_RESUME | FLAG_PER_SHARD, FIELD (rpm), 0, 0, 0, NULL, NULL,
    "requests per minute, e.g. 500", .llm_key = "rpm", .check = check_count },
  { "tpm", KIND_STRING, FLAG_RESUME | FLAG_PER_SHARD, FIELD (tpm), 0, 0, 0, NULL, NULL,
    "tokens per minute, e.g. 600000", .llm_key = "tpm", .check = check_count },
  /* Where the calls go and how long they may take, like the server: a
   * shard on a slower server may wait longer. */
  { "request-timeout", KIND_UINT, FLAG_RESUME | FLAG_PER_SHARD, FIELD (request_timeout),
    0, 30 * 86400, ANOT_RUN_CONFIG_DEFAULT_REQUEST_TIMEOUT },
  /* Budgets: a resume keeps them unless given a new one. */
  { "max-cost", KIND_USD, FLAG_RESUME | FLAG_PER_SHARD, FIELD (max_cost),
    0, 0, 0, NULL, NULL, "an amount in US dollars, e.g. 25 or 2.50" },
  { "max-cost-role", KIND_STRING, FLAG_RESUME | FLAG_PER_SHARD, FIELD (max_cost_role),
    0, 0, 0, NULL, NULL, "ROLE=USD, comma-separated, e.g. planner=5,default=20",
    .check = check_role_costs },
};

/* "planner=5,default=2.5" */
static gboolean
check_role_costs (const char *text)
{
  g_auto(GStrv) parts = anot_run_config_split_list (text);

  if (parts[0] == NULL)
    return FALSE;
  for (guint i = 0; parts[i] != NULL; i++)
    {
      const char *eq = strchr (parts[i], '=');
      char *end = NULL;
      double value;

      if (eq == NULL || eq == parts[i])
        return FALSE;
      value = g_ascii_strtod (eq + 1, &end);
      if (end == eq + 1 || *end != '\0' || !(value >= 0) || value > 1e9)
        return FALSE;
    }
  return TRUE;
}

G_STATIC_ASSERT (G_N_ELEMENTS (keys) <= 64);

G_DEFINE_BOXED_TYPE (AnotRunConfig, anot_run_config, anot_run_config_ref, anot_run_config_unref)

#define MEMBER(self, info, type) ((type *) (gpointer) ((guint8 *) (self) + (info)->offset))

static const KeyInfo *
lookup_key (const char *key,
            guint      *out_index)
{
  for (guint i = 0; i < G_N_ELEMENTS (keys); i++)
    if (strcmp (keys[i].key, key) == 0)
      {
        if (out_index != NULL)
          *out_index = i;
        return &keys[i];
      }
  return NULL;
}

gboolean
anot_run_config_key_is_per_shard (const char *key)
{
  const KeyInfo *info = lookup_key (key, NULL);

  return info != NULL && (info->flags & FLAG_PER_SHARD) != 0;
}

static GHashTable *
new_string_map (void)
{
  return g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
}

/* Puts the field of @info back to its default. */
static void
reset_field (AnotRunConfig *self,
             const KeyInfo *info)
{
  switch (info->kind)
    {
    case KIND_UINT:
      *MEMBER (self, info, guint64) = info->default_value;
      break;
    case KIND_BOOL:
      *MEMBER (self, info, gboolean) = (gboolean) info->default_value;
      break;
    case KIND_ENUM:
    case KIND_DEBUG_LEVEL:
      *MEMBER (self, info, int) = (int) info->default_value;
      break;
    case KIND_USD:
      *MEMBER (self, info, double) = 0;
      break;
    case KIND_UINT_LIST:
      {
        GArray *array = *MEMBER (self, info, GArray *);
        guint64 number;

        g_array_set_size (array, 0);
        if (info->default_text != NULL &&
            g_ascii_string_to_unsigned (info->default_text, 10, 0, G_MAXUINT, &number, NULL))
          {
            guint n = (guint) number;

            g_array_append_val (array, n);
          }
      }
      break;
    case KIND_STRING_LIST:
      g_clear_pointer (MEMBER (self, info, GStrv), g_strfreev);
      break;
    case KIND_STRING:
      g_free (*MEMBER (self, info, char *));
      *MEMBER (self, info, char *) = g_strdup (info->default_text);
      break;
    case KIND_SHARD:
      MEMBER (self, info, guint)[0] = 0;
      MEMBER (self, info, guint)[1] = 0;
      break;
    default:
      g_assert_not_reached ();
    }
}

/**
 * anot_run_config_new:
 *
 * Creates a configuration with every setting at its default.
 *
 * Returns: (transfer full): a new #AnotRunConfig
 */
AnotRunConfig *
anot_run_config_new (void)
{
  AnotRunConfig *self = g_new0 (AnotRunConfig, 1);

  g_atomic_ref_count_init (&self->ref_count);
  self->candidates = g_array_new (FALSE, FALSE, sizeof (guint));
  self->method_options = new_string_map ();
  self->attack_options = new_string_map ();
  for (guint i = 0; i < G_N_ELEMENTS (keys); i++)
    reset_field (self, &keys[i]);
  return self;
}

/**
 * anot_run_config_ref:
 * @self: an #AnotRunConfig
 *
 * Returns: (transfer full): @self
 */
AnotRunConfig *
anot_run_config_ref (AnotRunConfig *self)
{
  g_return_val_if_fail (self != NULL, NULL);

  g_atomic_ref_count_inc (&self->ref_count);
  return self;
}

/**
 * anot_run_config_unref:
 * @self: (transfer full): an #AnotRunConfig
 *
 * Drops a reference; the last one frees the configuration.
 */
void
anot_run_config_unref (AnotRunConfig *self)
{
  g_return_if_fail (self != NULL);

  if (!g_atomic_ref_count_dec (&self->ref_count))
    return;
  for (guint i = 0; i < G_N_ELEMENTS (keys); i++)
    {
      if (keys[i].kind == KIND_STRING)
        g_free (*MEMBER (self, &keys[i], char *));
      else if (keys[i].kind == KIND_STRING_LIST)
        g_strfreev (*MEMBER (self, &keys[i], GStrv));
    }
  g_array_unref (self->candidates);
  g_hash_table_unref (self->method_options);
  g_hash_table_unref (self->attack_options);
  g_free (self);
}

static void
copy_map (GHashTable *to,
          GHashTable *from)
{
  GHashTableIter iter;
  gpointer key, value;

  g_hash_table_iter_init (&iter, from);
  while (g_hash_table_iter_next (&iter, &key, &value))
    g_hash_table_insert (to, g_strdup (key), g_strdup (value));
}

/**
 * anot_run_config_copy:
 * @self: an #AnotRunConfig
 *
 * Returns: (transfer full): an independent copy of @self
 */
AnotRunConfig *
anot_run_config_copy (const AnotRunConfig *self)
{
  AnotRunConfig *copy;

  g_return_val_if_fail (self != NULL, NULL);

  copy = anot_run_config_new ();
  copy->given = self->given;
  for (guint i = 0; i < G_N_ELEMENTS (keys); i++)
    {
      const KeyInfo *info = &keys[i];

      switch (info->kind)
        {
        case KIND_UINT:
          *MEMBER (copy, info, guint64) = *MEMBER (self, info, guint64);
          break;
        case KIND_BOOL:
          *MEMBER (copy, info, gboolean) = *MEMBER (self, info, gboolean);
          break;
        case KIND_ENUM:
        case KIND_DEBUG_LEVEL:
          *MEMBER (copy, info, int) = *MEMBER (self, info, int);
          break;
        case KIND_USD:
          *MEMBER (copy, info, double) = *MEMBER (self, info, double);
          break;
        case KIND_UINT_LIST:
          g_array_set_size (*MEMBER (copy, info, GArray *), 0);
          g_array_append_vals (*MEMBER (copy, info, GArray *), (*MEMBER (self, info, GArray *))->data,
                               (*MEMBER (self, info, GArray *))->len);
          break;
        case KIND_STRING_LIST:
          *MEMBER (copy, info, GStrv) = g_strdupv (*MEMBER (self, info, GStrv));
          break;
        case KIND_STRING:
          g_free (*MEMBER (copy, info, char *));
          *MEMBER (copy, info, char *) = g_strdup (*MEMBER (self, info, char *));
          break;
        case KIND_SHARD:
          MEMBER (copy, info, guint)[0] = MEMBER (self, info, guint)[0];
          MEMBER (copy, info, guint)[1] = MEMBER (self, info, guint)[1];
          break;
        default:
          g_assert_not_reached ();
        }
    }
  copy_map (copy->method_options, self->method_options);
  copy_map (copy->attack_options, self->attack_options);
  return copy;
}

/* ------------------------------------------------------------------------
 * Parsing
 * --------------------------------------------------------------------- */

static gboolean
invalid_value (GError       **error,
               const char    *key,
               const char    *text,
               const char    *expected)
{
  g_set_error (error, ANOT_ERROR, ANOT_ERROR_INVALID_ARGUMENT,
               "Invalid value “%s” for %s: expected %s", text, key, expected);
  return FALSE;
}

static gboolean
parse_uint (const char  *key,
            const char  *text,
            guint64      min,
            guint64      max,
            guint64     *out,
            GError     **error)
{
  if (!g_ascii_string_to_unsigned (text, 10, min, max, out, NULL))
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
    return invalid_value (error, key, text, "true or false");
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
      g_autoptr(GString) names = g_string_new ("one of ");

      for (guint i = 0; i < klass->n_values; i++)
        g_string_append_printf (names, "%s%s", i ? ", " : "", klass->values[i].value_nick);
      return invalid_value (error, key, text, names->str);
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

/* The non-empty, stripped parts of a comma-separated list. */
char **
anot_run_config_split_list (const char *text)
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
parse_uint_list (const KeyInfo  *info,
                 const char     *text,
                 GArray         *out,
                 GError        **error)
{
  g_auto(GStrv) parts = anot_run_config_split_list (text);
  g_autoptr(GArray) ns = g_array_new (FALSE, FALSE, sizeof (guint));

  if (parts[0] == NULL)
    return invalid_value (error, info->key, text, info->expected);
  for (guint i = 0; parts[i] != NULL; i++)
    {
      guint64 number;
      guint n;

      if (!parse_uint (info->key, parts[i], info->min, info->max, &number, error))
        return FALSE;
      n = (guint) number;
      for (guint j = 0; j < ns->len; j++)
        if (g_array_index (ns, guint, j) == n)
          {
            g_set_error (error, ANOT_ERROR, ANOT_ERROR_INVALID_ARGUMENT,
                         "Invalid value “%s” for %s: %u is given twice", text, info->key, n);
            return FALSE;
          }
      g_array_append_val (ns, n);
    }
  g_array_set_size (out, 0);
  g_array_append_vals (out, ns->data, ns->len);
  return TRUE;
}

/* method.KEY and attack.KEY: the map and the name of what KEY is. */
static GHashTable *
prefixed_map (const AnotRunConfig  *self,
              const char           *key,
              const char          **out_name,
              const char          **out_what)
{
  if (g_str_has_prefix (key, METHOD_PREFIX))
    {
      *out_name = key + strlen (METHOD_PREFIX);
      *out_what = "method option";
      return self->method_options;
    }
  if (g_str_has_prefix (key, ATTACK_PREFIX))
    {
      *out_name = key + strlen (ATTACK_PREFIX);
      *out_what = "attack parameter";
      return self->attack_options;
    }
  return NULL;
}

static gboolean
parse_value (AnotRunConfig  *self,
             const KeyInfo  *info,
             const char     *text,
             GError        **error)
{
  if ((info->flags & FLAG_NONEMPTY) && *text == '\0')
    return invalid_value (error, info->key, text, info->expected);
  if ((info->flags & FLAG_FILE_NAME) &&
      (strchr (text, '/') != NULL || strcmp (text, ".") == 0 || strcmp (text, "..") == 0))
    return invalid_value (error, info->key, text, info->expected);

  switch (info->kind)
    {
    case KIND_UINT:
      if (strcmp (info->key, "concurrency") == 0 && g_ascii_strcasecmp (text, "auto") == 0)
        {
          *MEMBER (self, info, guint64) = 0;
          return TRUE;
        }
      return parse_uint (info->key, text, info->min, info->max, MEMBER (self, info, guint64), error);
    case KIND_BOOL:
      return parse_bool (info->key, text, MEMBER (self, info, gboolean), error);
    case KIND_ENUM:
      return parse_enum (info->key, text, info->enum_type (), MEMBER (self, info, int), error);
    case KIND_DEBUG_LEVEL:
      {
        g_autoptr(GError) local_error = NULL;
        AnotDebugLevel level = anot_debug_level_from_string (text, &local_error);

        if (local_error != NULL)
          return invalid_value (error, info->key, text,
                                "0 (off), 1 (summary), 2 (verbose) or 3 (full)");
        *MEMBER (self, info, int) = level;
        return TRUE;
      }
    case KIND_UINT_LIST:
      return parse_uint_list (info, text, *MEMBER (self, info, GArray *), error);
    case KIND_STRING_LIST:
      {
        g_auto(GStrv) parts = anot_run_config_split_list (text);

        if (parts[0] == NULL)
          return invalid_value (error, info->key, text, info->expected);
        g_strfreev (*MEMBER (self, info, GStrv));
        *MEMBER (self, info, GStrv) = g_steal_pointer (&parts);
        return TRUE;
      }
    case KIND_SHARD:
      {
        g_auto(GStrv) parts = g_strsplit (text, "/", -1);
        guint64 index, count;

        if (g_strv_length (parts) != 2 ||
            !g_ascii_string_to_unsigned (g_strstrip (parts[1]), 10, info->min, info->max,
                                         &count, NULL) ||
            !g_ascii_string_to_unsigned (g_strstrip (parts[0]), 10, 0, count - 1, &index, NULL))
          return invalid_value (error, info->key, text, info->expected);
        MEMBER (self, info, guint)[0] = (guint) index;
        MEMBER (self, info, guint)[1] = (guint) count;
        return TRUE;
      }
    case KIND_USD:
      {
        char *end = NULL;
        double value = g_ascii_strtod (text, &end);

        if (end == text || *end != '\0' || !(value >= 0) || value > 1e9)
          return invalid_value (error, info->key, text, info->expected);
        *MEMBER (self, info, double) = value;
        return TRUE;
      }
    case KIND_STRING:
      if (info->check != NULL && *text != '\0' && !info->check (text))
        return invalid_value (error, info->key, text, info->expected);
      /* An empty path is the default one. */
      g_free (*MEMBER (self, info, char *));
      *MEMBER (self, info, char *) = g_strdup (*text != '\0' ? text : info->default_text);
      return TRUE;
    default:
      g_assert_not_reached ();
    }
  return FALSE;
}

/**
 * anot_run_config_set:
 * @self: an #AnotRunConfig
 * @key: a setting (see [struct@Anot.RunConfig]), `method.KEY` or
 *   `attack.KEY`
 * @value: (nullable): its value as text, or %NULL to restore the default
 * @error: return location for a #GError
 *
 * Parses and sets one setting.  On error @self is unchanged.
 *
 * Errors: %ANOT_ERROR_INVALID_ARGUMENT for an unknown key or a bad value;
 * the message names both.
 *
 * Returns: %TRUE when @value was valid for @key
 */
gboolean
anot_run_config_set (AnotRunConfig  *self,
                     const char     *key,
                     const char     *value,
                     GError        **error)
{
  const KeyInfo *info;
  GHashTable *map;
  const char *name, *what;
  guint index;

  g_return_val_if_fail (self != NULL, FALSE);
  g_return_val_if_fail (key != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if ((map = prefixed_map (self, key, &name, &what)) != NULL)
    {
      if (*name == '\0')
        {
          g_set_error (error, ANOT_ERROR, ANOT_ERROR_INVALID_ARGUMENT,
                       "Empty %s name in “%s”", what, key);
          return FALSE;
        }
      if (value == NULL)
        g_hash_table_remove (map, name);
      else
        g_hash_table_insert (map, g_strdup (name), g_strdup (value));
      return TRUE;
    }

  info = lookup_key (key, &index);
  if (info == NULL)
    {
      g_set_error (error, ANOT_ERROR, ANOT_ERROR_INVALID_ARGUMENT,
                   "Unknown experiment option “%s”", key);
      return FALSE;
    }
  if (value == NULL)
    {
      reset_field (self, info);
      self->given &= ~(G_GUINT64_CONSTANT (1) << index);
      return TRUE;
    }

  /* Parsed into a copy that then trades places with @self, so a bad
   * value leaves everything as it was. */
  {
    g_autoptr(AnotRunConfig) scratch = anot_run_config_copy (self);
    AnotRunConfig swap;

    if (!parse_value (scratch, info, value, error))
      return FALSE;
    swap = *self;
    *self = *scratch;
    *scratch = swap;
    /* The reference counts stay with their owners. */
    scratch->ref_count = self->ref_count;
    self->ref_count = swap.ref_count;
  }
  self->given |= G_GUINT64_CONSTANT (1) << index;
  return TRUE;
}

/**
 * anot_run_config_is_set:
 * @self: an #AnotRunConfig
 * @key: a setting, `method.KEY` or `attack.KEY`
 *
 * Returns: whether @key was given a value (rather than left at its
 *   default)
 */
gboolean
anot_run_config_is_set (const AnotRunConfig *self,
                        const char          *key)
{
  GHashTable *map;
  const char *name, *what;
  guint index;

  g_return_val_if_fail (self != NULL, FALSE);
  g_return_val_if_fail (key != NULL, FALSE);

  if ((map = prefixed_map (self, key, &name, &what)) != NULL)
    return g_hash_table_contains (map, name);
  return lookup_key (key, &index) != NULL && (self->given & (G_GUINT64_CONSTANT (1) << index));
}

static char *
join_uints (GArray *array)
{
  GString *text = g_string_new (NULL);

  for (guint i = 0; i < array->len; i++)
    g_string_append_printf (text, "%s%u", i ? "," : "", g_array_index (array, guint, i));
  return g_string_free (text, FALSE);
}

/* The text form of a table key's current value, as set() takes it; NULL
 * for a list or string that is not set and has no default. */
static char *
value_text (const AnotRunConfig *self,
            const KeyInfo       *info)
{
  switch (info->kind)
    {
    case KIND_UINT:
      if (strcmp (info->key, "concurrency") == 0 && *MEMBER (self, info, guint64) == 0)
        return g_strdup ("auto");
      return g_strdup_printf ("%" G_GUINT64_FORMAT, *MEMBER (self, info, guint64));
    case KIND_BOOL:
      return g_strdup (*MEMBER (self, info, gboolean) ? "true" : "false");
    case KIND_ENUM:
      return g_strdup (enum_nick (info->enum_type (), *MEMBER (self, info, int)));
    case KIND_DEBUG_LEVEL:
      return g_strdup_printf ("%d", *MEMBER (self, info, int));
    case KIND_USD:
      {
        char buffer[G_ASCII_DTOSTR_BUF_SIZE];

        return g_strdup (g_ascii_dtostr (buffer, sizeof buffer, *MEMBER (self, info, double)));
      }
    case KIND_UINT_LIST:
      return join_uints (*MEMBER (self, info, GArray *));
    case KIND_STRING_LIST:
      return *MEMBER (self, info, GStrv) ? g_strjoinv (",", *MEMBER (self, info, GStrv)) : NULL;
    case KIND_STRING:
      return g_strdup (*MEMBER (self, info, char *));
    case KIND_SHARD:
      if (MEMBER (self, info, guint)[1] == 0)
        return NULL;
      return g_strdup_printf ("%u/%u", MEMBER (self, info, guint)[0], MEMBER (self, info, guint)[1]);
    default:
      g_assert_not_reached ();
    }
  return NULL;
}

/**
 * anot_run_config_get:
 * @self: an #AnotRunConfig
 * @key: a setting, `method.KEY` or `attack.KEY`
 *
 * The value of a setting as text, in the form
 * [method@Anot.RunConfig.set] takes: the default when it was not given
 * (lists joined with `,`).
 *
 * Returns: (transfer full) (nullable): the value, or %NULL for an unknown
 *   key or a setting without a value
 */
char *
anot_run_config_get (const AnotRunConfig *self,
                     const char          *key)
{
  GHashTable *map;
  const char *name, *what;
  const KeyInfo *info;

  g_return_val_if_fail (self != NULL, NULL);
  g_return_val_if_fail (key != NULL, NULL);

  if ((map = prefixed_map (self, key, &name, &what)) != NULL)
    return g_strdup (g_hash_table_lookup (map, name));
  info = lookup_key (key, NULL);
  return info != NULL ? value_text (self, info) : NULL;
}

/**
 * anot_run_config_list_keys:
 *
 * Every setting's key (besides `method.KEY` and `attack.KEY`).
 *
 * Returns: (transfer full): the keys
 */
char **
anot_run_config_list_keys (void)
{
  g_autoptr(GStrvBuilder) builder = g_strv_builder_new ();

  for (guint i = 0; i < G_N_ELEMENTS (keys); i++)
    g_strv_builder_add (builder, keys[i].key);
  return g_strv_builder_end (builder);
}

static GList *
sorted_keys (GHashTable *map)
{
  return g_list_sort (g_hash_table_get_keys (map), (GCompareFunc) strcmp);
}

/**
 * anot_run_config_list_set_keys:
 * @self: an #AnotRunConfig
 *
 * Returns: (transfer full): the keys that were given a value, in the
 *   table's order, then the `method.KEY` and `attack.KEY` ones sorted
 */
char **
anot_run_config_list_set_keys (const AnotRunConfig *self)
{
  g_autoptr(GStrvBuilder) builder = NULL;
  g_autoptr(GList) method_keys = NULL;
  g_autoptr(GList) attack_keys = NULL;

  g_return_val_if_fail (self != NULL, NULL);

  builder = g_strv_builder_new ();
  for (guint i = 0; i < G_N_ELEMENTS (keys); i++)
    if (self->given & (G_GUINT64_CONSTANT (1) << i))
      g_strv_builder_add (builder, keys[i].key);
  method_keys = sorted_keys (self->method_options);
  for (GList *l = method_keys; l; l = l->next)
    {
      g_autofree char *key = g_strconcat (METHOD_PREFIX, l->data, NULL);

      g_strv_builder_add (builder, key);
    }
  attack_keys = sorted_keys (self->attack_options);
  for (GList *l = attack_keys; l; l = l->next)
    {
      g_autofree char *key = g_strconcat (ATTACK_PREFIX, l->data, NULL);

      g_strv_builder_add (builder, key);
    }
  return g_strv_builder_end (builder);
}

/* ------------------------------------------------------------------------
 * JSON
 * --------------------------------------------------------------------- */

static void
add_prefixed (GHashTable *out,
              const char *prefix,
              GHashTable *map)
{
  GHashTableIter iter;
  gpointer key, value;

  g_hash_table_iter_init (&iter, map);
  while (g_hash_table_iter_next (&iter, &key, &value))
    g_hash_table_insert (out, g_strconcat (prefix, key, NULL), g_strdup (value));
}

/* The one writer of the settings as text.  @resume: what config.json keeps
 * for a resume (the FLAG_RESUME keys, with their defaults when
 * FLAG_EFFECTIVE; `candidates` not under `scaling`, which implies them);
 * otherwise every key that was given.  Keys sorted, so the file does not
 * depend on hash order. */
static void
write_options (const AnotRunConfig *self,
               JsonBuilder         *builder,
               gboolean             resume)
{
  g_autoptr(GHashTable) map = new_string_map ();
  g_autoptr(GList) sorted = NULL;

  for (guint i = 0; i < G_N_ELEMENTS (keys); i++)
    {
      const KeyInfo *info = &keys[i];
      gboolean given = (self->given & (G_GUINT64_CONSTANT (1) << i)) != 0;
      char *text;

      if (resume)
        {
          if (!(info->flags & FLAG_RESUME))
            continue;
          if ((info->flags & FLAG_TRUE_ONLY) && !*MEMBER (self, info, gboolean))
            continue;
          if (!given && !(info->flags & (FLAG_EFFECTIVE | FLAG_TRUE_ONLY)))
            continue;
          if (info->kind == KIND_UINT_LIST && self->scaling)
            continue;
        }
      else if (!given)
        continue;
      text = value_text (self, info);
      if (text != NULL)
        g_hash_table_insert (map, g_strdup (info->key), text);
    }
  add_prefixed (map, METHOD_PREFIX, self->method_options);
  add_prefixed (map, ATTACK_PREFIX, self->attack_options);

  sorted = sorted_keys (map);
  json_builder_begin_object (builder);
  for (GList *l = sorted; l; l = l->next)
    {
      json_builder_set_member_name (builder, l->data);
      json_builder_add_string_value (builder, g_hash_table_lookup (map, l->data));
    }
  json_builder_end_object (builder);
}

/**
 * anot_run_config_to_json:
 * @self: an #AnotRunConfig
 *
 * Every setting that was given, as text in a JSON object (sorted by key),
 * which [ctor@Anot.RunConfig.new_from_json] reads back.
 *
 * Returns: (transfer full): a JSON object node
 */
JsonNode *
anot_run_config_to_json (const AnotRunConfig *self)
{
  g_autoptr(JsonBuilder) builder = NULL;

  g_return_val_if_fail (self != NULL, NULL);

  builder = json_builder_new ();
  write_options (self, builder, FALSE);
  return json_builder_get_root (builder);
}

void
anot_run_config_write_resume_options (const AnotRunConfig *self,
                                      JsonBuilder         *builder)
{
  json_builder_set_member_name (builder, "options");
  write_options (self, builder, TRUE);
}

static void
add_string_list (JsonBuilder *builder,
                 GStrv        list)
{
  if (list == NULL)
    {
      json_builder_add_null_value (builder);
      return;
    }
  json_builder_begin_array (builder);
  for (guint i = 0; list[i] != NULL; i++)
    json_builder_add_string_value (builder, list[i]);
  json_builder_end_array (builder);
}

void
anot_run_config_write_record (const AnotRunConfig *self,
                              JsonBuilder         *builder)
{
  for (guint i = 0; i < G_N_ELEMENTS (keys); i++)
    {
      const KeyInfo *info = &keys[i];

      if (!(info->flags & FLAG_RECORD))
        continue;
      json_builder_set_member_name (builder, info->key);
      switch (info->kind)
        {
        case KIND_UINT:
          /* A setting whose default is "none" (limit) is null then. */
          if (info->default_value < info->min && *MEMBER (self, info, guint64) == info->default_value)
            json_builder_add_null_value (builder);
          else
            json_builder_add_int_value (builder, (gint64) *MEMBER (self, info, guint64));
          break;
        case KIND_BOOL:
          json_builder_add_boolean_value (builder, *MEMBER (self, info, gboolean));
          break;
        case KIND_ENUM:
          json_builder_add_string_value (builder,
                                         enum_nick (info->enum_type (), *MEMBER (self, info, int)));
          break;
        case KIND_UINT_LIST:
          {
            GArray *array = *MEMBER (self, info, GArray *);

            json_builder_begin_array (builder);
            for (guint j = 0; j < array->len; j++)
              json_builder_add_int_value (builder, g_array_index (array, guint, j));
            json_builder_end_array (builder);
          }
          break;
        case KIND_STRING_LIST:
          add_string_list (builder, *MEMBER (self, info, GStrv));
          break;
        case KIND_STRING:
          if (*MEMBER (self, info, char *) != NULL)
            json_builder_add_string_value (builder, *MEMBER (self, info, char *));
          else
            json_builder_add_null_value (builder);
          break;
        default:
          g_assert_not_reached ();
        }
    }
}

/* @resume: config.json's options, where a key a resume does not restore is
 * skipped, and so is a value that is not a string (written by a later
 * version, perhaps); otherwise both are errors. */
static gboolean
merge_json (AnotRunConfig  *self,
            JsonObject     *object,
            gboolean        resume,
            GError        **error)
{
  JsonObjectIter iter;
  const char *key;
  JsonNode *value;

  json_object_iter_init (&iter, object);
  while (json_object_iter_next (&iter, &key, &value))
    {
      const KeyInfo *info = lookup_key (key, NULL);

      if (!JSON_NODE_HOLDS_VALUE (value) || json_node_get_value_type (value) != G_TYPE_STRING)
        {
          if (resume)
            continue;
          g_set_error (error, ANOT_ERROR, ANOT_ERROR_INVALID_ARGUMENT,
                       "Invalid value for %s: expected a string", key);
          return FALSE;
        }
      if (resume && info != NULL && !(info->flags & FLAG_RESUME))
        continue;
      if (!anot_run_config_set (self, key, json_node_get_string (value), error))
        return FALSE;
    }
  return TRUE;
}

gboolean
anot_run_config_merge_resume_options (AnotRunConfig  *self,
                                      JsonObject     *options,
                                      GError        **error)
{
  return merge_json (self, options, TRUE, error);
}

/**
 * anot_run_config_new_from_json:
 * @node: a JSON object of settings as text, as
 *   [method@Anot.RunConfig.to_json] writes it
 * @error: return location for a #GError
 *
 * Errors: %ANOT_ERROR_INVALID_ARGUMENT when @node is not an object of
 * strings, or for an unknown key or a bad value.
 *
 * Returns: (transfer full): the configuration, or %NULL with @error set
 */
AnotRunConfig *
anot_run_config_new_from_json (JsonNode  *node,
                               GError   **error)
{
  g_autoptr(AnotRunConfig) self = NULL;

  g_return_val_if_fail (node != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (!JSON_NODE_HOLDS_OBJECT (node))
    {
      g_set_error (error, ANOT_ERROR, ANOT_ERROR_INVALID_ARGUMENT,
                   "Experiment settings must be a JSON object");
      return NULL;
    }
  self = anot_run_config_new ();
  if (!merge_json (self, json_node_get_object (node), FALSE, error))
    return NULL;
  return g_steal_pointer (&self);
}

/* ------------------------------------------------------------------------
 * For the experiment
 * --------------------------------------------------------------------- */

const char *
anot_run_config_get_llm_setting (const AnotRunConfig *self,
                                 guint                index,
                                 const char         **out_llm_key)
{
  guint seen = 0;

  for (guint i = 0; i < G_N_ELEMENTS (keys); i++)
    {
      if (keys[i].llm_key == NULL)
        continue;
      if (seen++ == index)
        {
          *out_llm_key = keys[i].llm_key;
          return *MEMBER (self, &keys[i], char *);
        }
    }
  *out_llm_key = NULL;
  return NULL;
}

/* The groups as the dataset names them, once the experiment expanded
 * ranges such as 1-3. */
void
anot_run_config_take_groups (AnotRunConfig *self,
                             GStrv          groups)
{
  g_strfreev (self->groups);
  self->groups = groups;
}

/* The N the experiment runs, once `scaling` or the default decided them. */
void
anot_run_config_set_candidates (AnotRunConfig *self,
                                const guint   *ns,
                                guint          n_ns)
{
  g_array_set_size (self->candidates, 0);
  g_array_append_vals (self->candidates, ns, n_ns);
}

/* ------------------------------------------------------------------------
 * Typed accessors
 * --------------------------------------------------------------------- */

/**
 * anot_run_config_get_candidates:
 * @self: an #AnotRunConfig
 * @n_candidates: (out): the number of values
 *
 * Returns: (array length=n_candidates) (transfer none): the N given, or
 *   the default (10); empty is not possible
 */
const guint *
anot_run_config_get_candidates (const AnotRunConfig *self,
                                guint               *n_candidates)
{
  g_return_val_if_fail (self != NULL, NULL);
  g_return_val_if_fail (n_candidates != NULL, NULL);

  *n_candidates = self->candidates->len;
  return (const guint *) (gpointer) self->candidates->data;
}

/**
 * anot_run_config_get_scaling:
 * @self: an #AnotRunConfig
 *
 * Returns: whether N sweeps 10..50
 */
gboolean
anot_run_config_get_scaling (const AnotRunConfig *self)
{
  g_return_val_if_fail (self != NULL, FALSE);
  return self->scaling;
}

/**
 * anot_run_config_get_pool_mode:
 * @self: an #AnotRunConfig
 *
 * Returns: how candidate pools are chosen
 */
AnotPoolMode
anot_run_config_get_pool_mode (const AnotRunConfig *self)
{
  g_return_val_if_fail (self != NULL, ANOT_POOL_MODE_SAMPLED);
  return self->pool;
}

/**
 * anot_run_config_get_shuffle_mode:
 * @self: an #AnotRunConfig
 *
 * Returns: how the candidates are ordered for the method
 */
AnotShuffleMode
anot_run_config_get_shuffle_mode (const AnotRunConfig *self)
{
  g_return_val_if_fail (self != NULL, ANOT_SHUFFLE_MODE_RANDOM);
  return self->shuffle;
}

/**
 * anot_run_config_get_k:
 * @self: an #AnotRunConfig
 *
 * Returns: the predictions kept per request
 */
guint
anot_run_config_get_k (const AnotRunConfig *self)
{
  g_return_val_if_fail (self != NULL, 0);
  return (guint) self->k;
}

/**
 * anot_run_config_get_seed:
 * @self: an #AnotRunConfig
 *
 * Returns: the base seed; run R uses seed + R
 */
guint64
anot_run_config_get_seed (const AnotRunConfig *self)
{
  g_return_val_if_fail (self != NULL, 0);
  return self->seed;
}

/**
 * anot_run_config_get_runs:
 * @self: an #AnotRunConfig
 *
 * Returns: the number of runs
 */
guint
anot_run_config_get_runs (const AnotRunConfig *self)
{
  g_return_val_if_fail (self != NULL, 0);
  return (guint) self->runs;
}

/**
 * anot_run_config_get_concurrency:
 * @self: an #AnotRunConfig
 *
 * Returns: the requests in flight at once; 0 for `auto` (the calls in
 *   flight adapt per server)
 */
guint
anot_run_config_get_concurrency (const AnotRunConfig *self)
{
  g_return_val_if_fail (self != NULL, 0);
  return (guint) self->concurrency;
}

/**
 * anot_run_config_get_limit:
 * @self: an #AnotRunConfig
 *
 * Returns: the most requests kept, 0 for all
 */
guint
anot_run_config_get_limit (const AnotRunConfig *self)
{
  g_return_val_if_fail (self != NULL, 0);
  return (guint) self->limit;
}

/**
 * anot_run_config_get_attack_compat:
 * @self: an #AnotRunConfig
 *
 * Returns: the form of the reviews attacks add (`attack-compat`)
 */
AnotAttackCompat
anot_run_config_get_attack_compat (const AnotRunConfig *self)
{
  g_return_val_if_fail (self != NULL, ANOT_ATTACK_COMPAT_REALISTIC);
  return (AnotAttackCompat) self->attack_compat;
}

/**
 * anot_run_config_get_compat:
 * @self: an #AnotRunConfig
 *
 * Returns: how closely the run follows the original framework (`compat`)
 */
AnotCompatMode
anot_run_config_get_compat (const AnotRunConfig *self)
{
  g_return_val_if_fail (self != NULL, ANOT_COMPAT_MODE_NONE);
  return (AnotCompatMode) self->compat;
}

/* `compat original` stands for the settings it implies; one given
 * against it is an error rather than a run that is half like for like. */
gboolean
anot_run_config_apply_compat (AnotRunConfig  *self,
                              GError        **error)
{
  static const struct {
    const char *key;
    gsize offset;
    int value;
  } implied[] = {
    { "pool", FIELD (pool), ANOT_POOL_MODE_ORIGINAL },
    { "attack-compat", FIELD (attack_compat), ANOT_ATTACK_COMPAT_ORIGINAL },
  };

  if (self->compat != ANOT_COMPAT_MODE_ORIGINAL)
    return TRUE;
  for (guint i = 0; i < G_N_ELEMENTS (implied); i++)
    {
      guint index;
      const KeyInfo *info = lookup_key (implied[i].key, &index);
      int *field = MEMBER (self, info, int);

      if ((self->given & (G_GUINT64_CONSTANT (1) << index)) && *field != implied[i].value)
        {
          g_set_error (error, ANOT_ERROR, ANOT_ERROR_INVALID_ARGUMENT,
                       "compat original uses %s %s; %s %s contradicts it",
                       implied[i].key, enum_nick (info->enum_type (), implied[i].value),
                       implied[i].key, enum_nick (info->enum_type (), *field));
          return FALSE;
        }
      *field = implied[i].value;
      self->given |= G_GUINT64_CONSTANT (1) << index;
    }
  return TRUE;
}

/**
 * anot_run_config_get_defense:
 * @self: an #AnotRunConfig
 *
 * Returns: whether methods run in defense mode
 */
gboolean
anot_run_config_get_defense (const AnotRunConfig *self)
{
  g_return_val_if_fail (self != NULL, FALSE);
  return self->defense;
}
