/* anot-llm-config.c: which backend and model each role uses
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "anot-llm-config-private.h"
#include "anot-backend-router-private.h"

#include "anot-defense-prompt-private.h"
#include "anot-error.h"
#include "anot-http-backend.h"
#include "anot-ini-reader-private.h"
#include "anot-registry.h"
#include "anot-response-cache.h"

#include <math.h>
#include <string.h>

/**
 * AnotLlmConfig:
 *
 * The LLM settings of a run, merged from four layers: command-line
 * options, environment variables, the configuration file and built-in
 * defaults.  It creates the [class@Anot.BackendRouter] that methods reach
 * through [method@Anot.MethodContext.complete_async].
 *
 * Settings are per *role* ("default", "planner", "lats.selection", ...).
 * The keys are `backend`, `model`, `base_url` (several servers of one
 * model as a comma-separated list, `base_urls` in the file; see
 * [property@Anot.HttpBackend:base-url]), `api_key` (file and
 * environment only), `temperature`, `max_tokens`, `top_p`, `seed`,
 * `timeout_ms`, `max_retries`, `retry_base_ms`, `retry_max_ms`,
 * `max_concurrency`, `rpm` and `tpm` (your own rate limits per minute,
 * for servers that send none; see [property@Anot.HttpBackend:rpm]) and
 * `rate_window_ms` (the window they count over, a minute).
 *
 * - Command line ([method@Anot.LlmConfig.set],
 *   [method@Anot.LlmConfig.add_role_spec]): `--backend`, `--model`,
 *   `--base-url` set the default role; `--role planner=anthropic:MODEL`
 *   one role.
 * - Environment: `ANOT_BACKEND`, `ANOT_MODEL`, `ANOT_BASE_URL` (and
 *   `ANOT_<KEY>` for the other keys) for the default role,
 *   `ANOT_<ROLE>_BACKEND`, `ANOT_<ROLE>_MODEL`, ... for one role (the role
 *   upper-cased, other characters than letters and digits as `_`:
 *   `lats.selection` → `ANOT_LATS_SELECTION_MODEL`).  API keys come from
 *   the backend's own variable (`OPENAI_API_KEY`, `ANTHROPIC_API_KEY`).
 * - The file, `$XDG_CONFIG_HOME/anot/config.ini` (or `$ANOT_CONFIG`), a
 *   #GKeyFile with the sections `[default]`, `[role NAME]`,
 *   `[backend NAME]` (settings of one backend whatever the role, e.g. its
 *   `api_key` or `base_url`) and `[prices]` (`MODEL = INPUT, OUTPUT`, US
 *   dollars per million tokens).
 *
 * For a role and a key the first value found wins, in this order: the
 * command line for the role, then for the default role; the environment
 * for the role, then for the default role; the file's `[role NAME]`, then
 * `[default]`; the file's `[backend NAME]` of the backend chosen; the
 * built-in default (backend `openai`, temperature 0; the backend's own
 * default model).  A role with nothing configured anywhere uses the
 * default role's route.
 *
 * One coupling rule: `model` and `base_url` belong to a choice of
 * backend.  A value set in a place that also names a backend (for the
 * same role) is used only when that backend is the one chosen, and a
 * value of the default role is used for another role only when both use
 * the same backend.  So `--role planner=anthropic` with `--model gpt-4o`
 * gives the planner Anthropic's default model, not gpt-4o; `--backend
 * openai` overrides a file's `[role planner] backend=anthropic` together
 * with the model next to it; and `ANOT_PLANNER_BASE_URL` still applies
 * to `--role planner=anthropic`.
 *
 * API keys are never written anywhere: not to `config.json`, not to a log.
 */

enum {
  POS_CLI_ROLE,
  POS_CLI_DEFAULT,
  POS_ENV_ROLE,
  POS_ENV_DEFAULT,
  POS_FILE_ROLE,
  POS_FILE_DEFAULT,
  POS_FILE_BACKEND,
  POS_BUILTIN,
  POS_NONE,
};

/* The run-wide keys of the [llm] section (and of ANOT_<KEY>). */
static const char * const run_keys[] = {
  "batch", "batch_max_size", "batch_max_bytes", "batch_window", "batch_retry",
};

static const char * const known_keys[] = {
  "backend", "model", "base_url", "api_key", "temperature", "max_tokens", "top_p", "seed",
  "timeout_ms", "max_retries", "retry_base_ms", "retry_max_ms", "max_concurrency",
  "rpm", "tpm", "rate_window_ms",
};

/* Settings of the backend instance (shared by the roles that agree on
 * them), and the GObject property each one sets. */
static const struct
{
  const char *key;
  const char *property;
} instance_keys[] = {
  { "base_url", "base-url" },
  { "timeout_ms", "timeout-ms" },
  { "max_retries", "max-retries" },
  { "retry_base_ms", "retry-base-ms" },
  { "retry_max_ms", "retry-max-ms" },
  { "max_concurrency", "max-concurrency" },
  { "rpm", "rpm" },
  { "tpm", "tpm" },
  { "rate_window_ms", "rate-window-ms" },
};

#define DEFAULT_BACKEND "openai"
#define DEFAULT_TEMPERATURE "0"

struct _AnotLlmConfig
{
  GObject parent_instance;

  GHashTable *cli;          /* "role\nkey" -> value */
  GHashTable *file;         /* "role\nkey", "backend:NAME\nkey" -> value */
  GHashTable *cli_roles;    /* role set */
  GHashTable *file_roles;   /* role set */
  GHashTable *prices;       /* model -> AnotPrice */
  char **environ;
  char *file_path;
  char *prices_date;        /* [prices] as_of of the file */
  AnotBatchQueue *batch_queue;
  AnotBackend *stand_in;
};

G_DEFINE_FINAL_TYPE (AnotLlmConfig, anot_llm_config, G_TYPE_OBJECT)

enum {
  PROP_0,
  PROP_FILE_PATH,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

static void
anot_llm_config_finalize (GObject *object)
{
  AnotLlmConfig *self = ANOT_LLM_CONFIG (object);

  g_hash_table_unref (self->cli);
  g_hash_table_unref (self->file);
  g_hash_table_unref (self->cli_roles);
  g_hash_table_unref (self->file_roles);
  g_hash_table_unref (self->prices);
  g_strfreev (self->environ);
  g_free (self->file_path);
  g_clear_object (&self->batch_queue);
  g_clear_object (&self->stand_in);
  g_free (self->prices_date);

  G_OBJECT_CLASS (anot_llm_config_parent_class)->finalize (object);
}

static void
anot_llm_config_get_property (GObject    *object,
                              guint       prop_id,
                              GValue     *value,
                              GParamSpec *pspec)
{
  AnotLlmConfig *self = ANOT_LLM_CONFIG (object);

  switch (prop_id)
    {
    case PROP_FILE_PATH:
      g_value_set_string (value, self->file_path);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
anot_llm_config_class_init (AnotLlmConfigClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = anot_llm_config_finalize;
  object_class->get_property = anot_llm_config_get_property;

  /**
   * AnotLlmConfig:file-path:
   *
   * The configuration file that was read, or %NULL.
   */
  properties[PROP_FILE_PATH] =
    g_param_spec_string ("file-path", NULL, NULL, NULL,
                         G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);

  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
anot_llm_config_init (AnotLlmConfig *self)
{
  self->cli = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  self->file = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  self->cli_roles = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  self->file_roles = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  self->prices = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  self->environ = g_get_environ ();
}

/**
 * anot_llm_config_new:
 *
 * Creates a configuration with the process environment and no file or
 * command-line settings.
 *
 * Returns: (transfer full): a new configuration
 */
AnotLlmConfig *
anot_llm_config_new (void)
{
  return g_object_new (ANOT_TYPE_LLM_CONFIG, NULL);
}

/* ------------------------------------------------------------------------
 * Values
 * --------------------------------------------------------------------- */

static gboolean
is_known_key (const char *key)
{
  for (guint i = 0; i < G_N_ELEMENTS (known_keys); i++)
    if (strcmp (key, known_keys[i]) == 0)
      return TRUE;
  return FALSE;
}

static gboolean
is_valid_name (const char *name)
{
  if (name == NULL || *name == '\0')
    return FALSE;
  for (const char *p = name; *p; p++)
    if (!g_ascii_isalnum (*p) && *p != '_' && *p != '-' && *p != '.')
      return FALSE;
  return TRUE;
}

static gboolean
validate_value (const char  *key,
                const char  *value,
                const char  *where,
                GError     **error)
{
  guint64 number;
  double real;
  char *end = NULL;

  if (strcmp (key, "backend") == 0)
    {
      if (!is_valid_name (value))
        goto invalid;
      return TRUE;
    }
  if (strcmp (key, "model") == 0 || strcmp (key, "base_url") == 0 || strcmp (key, "api_key") == 0)
    {
      if (*value == '\0')
        goto invalid;
      return TRUE;
    }
  if (strcmp (key, "temperature") == 0 || strcmp (key, "top_p") == 0)
    {
      real = g_ascii_strtod (value, &end);
      if (end == value || *end != '\0' || isnan (real) || real < 0 ||
          real > (strcmp (key, "top_p") == 0 ? 1.0 : 2.0))
        goto invalid;
      return TRUE;
    }
  if (strcmp (key, "seed") == 0)
    {
      if (!g_ascii_string_to_unsigned (value, 10, 0, G_MAXINT64, &number, NULL))
        goto invalid;
      return TRUE;
    }
  if (strcmp (key, "rate_window_ms") == 0)
    {
      if (!g_ascii_string_to_unsigned (value, 10, 1, G_MAXUINT, &number, NULL))
        goto invalid;
      return TRUE;
    }
  if (strcmp (key, "max_concurrency") == 0)
    {
      if (!g_ascii_string_to_unsigned (value, 10, 1, 100000, &number, NULL))
        goto invalid;
      return TRUE;
    }
  if (strcmp (key, "max_retries") == 0)
    {
      if (!g_ascii_string_to_unsigned (value, 10, 0, 100, &number, NULL))
        goto invalid;
      return TRUE;
    }
  /* max_tokens, timeout_ms, retry_base_ms, retry_max_ms, rpm, tpm */
  if (!g_ascii_string_to_unsigned (value, 10, 0, G_MAXUINT, &number, NULL))
    goto invalid;
  return TRUE;

invalid:
  /* The value of an API key is never repeated. */
  g_set_error (error, ANOT_ERROR, ANOT_ERROR_CONFIG, "Invalid value%s%s%s for %s (%s)",
               strcmp (key, "api_key") == 0 ? "" : " “",
               strcmp (key, "api_key") == 0 ? "" : value,
               strcmp (key, "api_key") == 0 ? "" : "”", key, where);
  return FALSE;
}

static char *
layer_key (const char *role,
           const char *key)
{
  return g_strconcat (role, "\n", key, NULL);
}

/* ANOT_<ROLE>_<KEY>, or ANOT_<KEY> for role NULL. */
static char *
env_name (const char *role,
          const char *key)
{
  GString *name = g_string_new ("ANOT_");

  if (role != NULL)
    {
      for (const char *p = role; *p; p++)
        g_string_append_c (name, g_ascii_isalnum (*p) ? g_ascii_toupper (*p) : '_');
      g_string_append_c (name, '_');
    }
  for (const char *p = key; *p; p++)
    g_string_append_c (name, g_ascii_toupper (*p));
  return g_string_free (name, FALSE);
}

gboolean
anot_llm_config_is_role_env_key (const char *name)
{
  for (guint i = 0; i < G_N_ELEMENTS (known_keys); i++)
    if (g_ascii_strcasecmp (name, known_keys[i]) == 0)
      return TRUE;
  return FALSE;
}

static const char *
env_lookup (AnotLlmConfig *self,
            const char    *name)
{
  const char *value = g_environ_getenv (self->environ, name);

  return value && *value ? value : NULL;
}

/* The value of @key for @role at one position of the precedence order, or
 * NULL.  @backend_name is only used at POS_FILE_BACKEND. */
static const char *
value_at (AnotLlmConfig  *self,
          const char     *role,
          const char     *key,
          guint           pos,
          const char     *backend_name,
          char          **source)
{
  gboolean is_default = strcmp (role, ANOT_DEFAULT_ROLE) == 0;
  g_autofree char *k = NULL;
  const char *value = NULL;

  switch (pos)
    {
    case POS_CLI_ROLE:
    case POS_CLI_DEFAULT:
      if (pos == POS_CLI_DEFAULT && is_default)
        return NULL;
      k = layer_key (pos == POS_CLI_ROLE ? role : ANOT_DEFAULT_ROLE, key);
      value = g_hash_table_lookup (self->cli, k);
      if (value && source)
        *source = g_strdup_printf ("command line (%s)",
                                   pos == POS_CLI_ROLE && !is_default ? "--role" : "default role");
      return value;

    case POS_ENV_ROLE:
    case POS_ENV_DEFAULT:
      {
        /* ANOT_<ROLE>_<KEY> (ANOT_DEFAULT_<KEY> for the default role), then
         * for the default role ANOT_<KEY> or ANOT_DEFAULT_<KEY>. */
        g_autofree char *name = env_name (pos == POS_ENV_ROLE ? role : NULL, key);

        if (strcmp (key, "api_key") == 0)
          return NULL;
        value = env_lookup (self, name);
        if (value == NULL && pos == POS_ENV_DEFAULT && !is_default)
          {
            g_free (name);
            name = env_name (ANOT_DEFAULT_ROLE, key);
            value = env_lookup (self, name);
          }
        if (value && source)
          *source = g_strdup_printf ("environment (%s)", name);
        return value;
      }

    case POS_FILE_ROLE:
    case POS_FILE_DEFAULT:
      if (pos == POS_FILE_DEFAULT && is_default)
        return NULL;
      k = layer_key (pos == POS_FILE_ROLE ? role : ANOT_DEFAULT_ROLE, key);
      value = g_hash_table_lookup (self->file, k);
      if (value && source)
        *source = g_strdup_printf ("%s [%s%s]", self->file_path ? self->file_path : "file",
                                   pos == POS_FILE_ROLE && !is_default ? "role " : "",
                                   pos == POS_FILE_ROLE ? role : ANOT_DEFAULT_ROLE);
      return value;

    case POS_FILE_BACKEND:
      {
        g_autofree char *section = NULL;

        if (backend_name == NULL)
          return NULL;
        section = g_strconcat ("backend:", backend_name, NULL);
        k = layer_key (section, key);
        value = g_hash_table_lookup (self->file, k);
        if (value && source)
          *source = g_strdup_printf ("%s [backend %s]",
                                     self->file_path ? self->file_path : "file", backend_name);
        return value;
      }

    case POS_BUILTIN:
      if (strcmp (key, "backend") == 0)
        value = DEFAULT_BACKEND;
      else if (strcmp (key, "temperature") == 0)
        value = DEFAULT_TEMPERATURE;
      if (value && source)
        *source = g_strdup ("built-in default");
      return value;

    default:
      return NULL;
    }
}

static gboolean
is_coupled_key (const char *key)
{
  return strcmp (key, "model") == 0 || strcmp (key, "base_url") == 0;
}

static const char *resolve_backend (AnotLlmConfig *self,
                                    const char    *role,
                                    guint         *out_pos,
                                    char         **source);

/* Whether a model or base URL found at @pos goes with @backend_name (see
 * the coupling rule in the class documentation). */
static gboolean
coupled_value_applies (AnotLlmConfig *self,
                       const char    *role,
                       guint          pos,
                       const char    *backend_name)
{
  const char *other;

  switch (pos)
    {
    case POS_FILE_BACKEND:
    case POS_BUILTIN:
      return TRUE;
    case POS_CLI_DEFAULT:
    case POS_ENV_DEFAULT:
    case POS_FILE_DEFAULT:
      if (strcmp (role, ANOT_DEFAULT_ROLE) != 0)
        return g_strcmp0 (resolve_backend (self, ANOT_DEFAULT_ROLE, NULL, NULL), backend_name) == 0;
      G_GNUC_FALLTHROUGH;
    default:
      other = value_at (self, role, "backend", pos, NULL, NULL);
      return other == NULL || g_strcmp0 (other, backend_name) == 0;
    }
}

/* Resolves @key for @role; model and base_url must go with @backend_name. */
static const char *
resolve (AnotLlmConfig  *self,
         const char     *role,
         const char     *key,
         const char     *backend_name,
         guint          *out_pos,
         char          **source)
{
  for (guint pos = POS_CLI_ROLE; pos <= POS_BUILTIN; pos++)
    {
      const char *value;

      value = value_at (self, role, key, pos, backend_name, NULL);
      if (value == NULL ||
          (is_coupled_key (key) && !coupled_value_applies (self, role, pos, backend_name)))
        continue;
      value = value_at (self, role, key, pos, backend_name, source);
      if (value != NULL)
        {
          if (out_pos)
            *out_pos = pos;
          return value;
        }
    }
  if (out_pos)
    *out_pos = POS_NONE;
  return NULL;
}

static const char *
resolve_backend (AnotLlmConfig *self,
                 const char    *role,
                 guint         *out_pos,
                 char         **source)
{
  return resolve (self, role, "backend", NULL, out_pos, source);
}

/* ------------------------------------------------------------------------
 * Layers
 * --------------------------------------------------------------------- */

/**
 * anot_llm_config_get_default_path:
 *
 * The configuration file read by anot_llm_config_load_default_file():
 * `$ANOT_CONFIG` when set, else `$XDG_CONFIG_HOME/anot/config.ini`.
 *
 * Returns: (transfer full): a path
 */
char *
anot_llm_config_get_default_path (void)
{
  return anot_ini_reader_get_default_path ();
}

/**
 * anot_llm_config_load_file:
 * @self: an #AnotLlmConfig
 * @path: a configuration file
 * @error: return location for a #GError
 *
 * Reads the file layer (replacing an earlier one).
 *
 * Errors: %ANOT_ERROR_CONFIG for a file that cannot be read or parsed,
 * an unknown section or key, or an invalid value; the message names the
 * file and the section.
 *
 * Returns: %TRUE on success
 */
gboolean
anot_llm_config_load_file (AnotLlmConfig  *self,
                           const char     *path,
                           GError        **error)
{
  g_autoptr(AnotIniReader) reader = NULL;
  g_auto(GStrv) groups = NULL;
  g_autoptr(GHashTable) file = NULL;
  g_autoptr(GHashTable) roles = NULL;
  g_autoptr(GHashTable) prices = NULL;

  g_return_val_if_fail (ANOT_IS_LLM_CONFIG (self), FALSE);
  g_return_val_if_fail (path != NULL, FALSE);

  reader = anot_ini_reader_new_from_file (path, error);
  if (reader == NULL)
    return FALSE;

  file = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  roles = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  prices = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  g_clear_pointer (&self->prices_date, g_free);
  if (!anot_prices_read (reader, prices, &self->prices_date, error) ||
      !anot_defense_prompt_check_file (reader, error))
    return FALSE;

  groups = anot_ini_reader_list_sections (reader);
  for (guint g = 0; groups[g] != NULL; g++)
    {
      const char *group = groups[g];
      g_auto(GStrv) keys = anot_ini_reader_list_keys (reader, group);
      g_autofree char *prefix = NULL;
      gboolean is_backend = FALSE;

      /* Read above, and a method's own parameters, read by
       * AnotMethodSettings. */
      if (strcmp (group, "prices") == 0 || strcmp (group, ANOT_DEFENSE_SECTION) == 0 ||
          (g_str_has_prefix (group, "method ") && is_valid_name (group + 7)))
        continue;

      if (strcmp (group, "llm") == 0)
        {
          for (guint k = 0; keys[k] != NULL; k++)
            {
              gboolean known = FALSE;

              for (guint r = 0; r < G_N_ELEMENTS (run_keys); r++)
                known = known || strcmp (keys[k], run_keys[r]) == 0;
              if (!known)
                {
                  anot_ini_reader_set_error (reader, error, group, keys[k], "unknown key");
                  return FALSE;
                }
              g_hash_table_insert (file, layer_key ("llm", keys[k]),
                                   g_strdup (anot_ini_reader_get_value (reader, group, keys[k])));
            }
          continue;
        }
      if (strcmp (group, "default") == 0 || strcmp (group, "role default") == 0)
        prefix = g_strdup (ANOT_DEFAULT_ROLE);
      else if (g_str_has_prefix (group, "role ") && is_valid_name (group + 5))
        {
          prefix = g_strdup (group + 5);
          g_hash_table_add (roles, g_strdup (prefix));
        }
      else if (g_str_has_prefix (group, "backend ") && is_valid_name (group + 8))
        {
          prefix = g_strconcat ("backend:", group + 8, NULL);
          is_backend = TRUE;
        }
      else
        {
          anot_ini_reader_set_error (reader, error, group, NULL,
                                     "unknown section (expected [default], [role NAME], "
                                     "[backend NAME], [method NAME], [llm], [prices] or "
                                     "[defense])");
          return FALSE;
        }

      for (guint k = 0; keys[k] != NULL; k++)
        {
          const char *value = anot_ini_reader_get_value (reader, group, keys[k]);
          g_autofree char *where = anot_ini_reader_where (reader, group, keys[k]);
          const char *key = keys[k];

          /* `base_urls = A, B` reads better for a list; it is base_url. */
          if (strcmp (key, "base_urls") == 0)
            {
              if (g_strv_contains ((const char * const *) keys, "base_url"))
                {
                  anot_ini_reader_set_error (reader, error, group, keys[k],
                                             "base_url and base_urls are the same setting: "
                                             "give one");
                  return FALSE;
                }
              key = "base_url";
            }
          if (!is_known_key (key) || (is_backend && strcmp (key, "backend") == 0))
            {
              anot_ini_reader_set_error (reader, error, group, keys[k], "unknown key");
              return FALSE;
            }
          if (!validate_value (key, value, where, error))
            return FALSE;
          g_hash_table_insert (file, layer_key (prefix, key), g_strdup (value));
        }
    }

  g_hash_table_unref (self->file);
  self->file = g_steal_pointer (&file);
  g_hash_table_unref (self->file_roles);
  self->file_roles = g_steal_pointer (&roles);
  g_hash_table_unref (self->prices);
  self->prices = g_steal_pointer (&prices);
  g_free (self->file_path);
  self->file_path = g_strdup (path);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_FILE_PATH]);
  return TRUE;
}

/**
 * anot_llm_config_load_default_file:
 * @self: an #AnotLlmConfig
 * @error: return location for a #GError
 *
 * Reads anot_llm_config_get_default_path() when it exists.  A missing
 * file is not an error; an unreadable or invalid one is.
 *
 * Returns: %TRUE on success
 */
gboolean
anot_llm_config_load_default_file (AnotLlmConfig  *self,
                                   GError        **error)
{
  g_autofree char *path = anot_llm_config_get_default_path ();

  g_return_val_if_fail (ANOT_IS_LLM_CONFIG (self), FALSE);

  if (!g_file_test (path, G_FILE_TEST_EXISTS))
    return TRUE;
  return anot_llm_config_load_file (self, path, error);
}

/**
 * anot_llm_config_set_environment:
 * @self: an #AnotLlmConfig
 * @envp: (nullable) (array zero-terminated=1): `NAME=VALUE` strings, as
 *   g_get_environ() returns, or %NULL for an empty environment
 *
 * Replaces the environment layer (by default, the process environment at
 * creation).
 */
void
anot_llm_config_set_environment (AnotLlmConfig      *self,
                                 const char * const *envp)
{
  g_return_if_fail (ANOT_IS_LLM_CONFIG (self));

  g_strfreev (self->environ);
  self->environ = envp ? g_strdupv ((char **) envp) : g_new0 (char *, 1);
}

/**
 * anot_llm_config_set:
 * @self: an #AnotLlmConfig
 * @role: a role name, or %ANOT_DEFAULT_ROLE
 * @key: a setting (see [class@Anot.LlmConfig]); not `api_key`
 * @value: (nullable): its value, or %NULL to unset it
 * @error: return location for a #GError
 *
 * Sets a value of the command-line layer.
 *
 * Errors: %ANOT_ERROR_CONFIG for an unknown key, an invalid role name or
 * value, or `api_key` (keys on a command line end up in shell histories
 * and process lists).
 *
 * Returns: %TRUE on success
 */
gboolean
anot_llm_config_set (AnotLlmConfig  *self,
                     const char     *role,
                     const char     *key,
                     const char     *value,
                     GError        **error)
{
  g_autofree char *where = NULL;

  g_return_val_if_fail (ANOT_IS_LLM_CONFIG (self), FALSE);
  g_return_val_if_fail (role != NULL, FALSE);
  g_return_val_if_fail (key != NULL, FALSE);

  if (!is_valid_name (role))
    {
      g_set_error (error, ANOT_ERROR, ANOT_ERROR_CONFIG,
                   "Invalid role name “%s”: use letters, digits, “.”, “-” and “_”", role);
      return FALSE;
    }
  if (strcmp (key, "api_key") == 0)
    {
      g_set_error (error, ANOT_ERROR, ANOT_ERROR_CONFIG,
                   "API keys are not taken from the command line; use the backend's "
                   "environment variable or the configuration file");
      return FALSE;
    }
  if (!is_known_key (key))
    {
      g_set_error (error, ANOT_ERROR, ANOT_ERROR_CONFIG, "Unknown LLM setting “%s”", key);
      return FALSE;
    }
  if (value == NULL)
    {
      g_autofree char *k = layer_key (role, key);

      g_hash_table_remove (self->cli, k);
      return TRUE;
    }
  where = g_strdup_printf ("command line, role %s", role);
  if (!validate_value (key, value, where, error))
    return FALSE;
  g_hash_table_insert (self->cli, layer_key (role, key), g_strdup (value));
  if (strcmp (role, ANOT_DEFAULT_ROLE) != 0)
    g_hash_table_add (self->cli_roles, g_strdup (role));
  return TRUE;
}

/**
 * anot_llm_config_add_role_spec:
 * @self: an #AnotLlmConfig
 * @spec: `ROLE=BACKEND:MODEL`, `ROLE=BACKEND` or `ROLE=:MODEL`
 * @error: return location for a #GError
 *
 * Parses one `--role` option into the command-line layer.  The model is
 * everything after the first `:`, so `planner=openai:qwen2.5:7b` works.
 *
 * Returns: %TRUE on success
 */
gboolean
anot_llm_config_add_role_spec (AnotLlmConfig  *self,
                               const char     *spec,
                               GError        **error)
{
  const char *eq, *colon;
  g_autofree char *role = NULL;
  g_autofree char *backend = NULL;
  const char *model = NULL;

  g_return_val_if_fail (ANOT_IS_LLM_CONFIG (self), FALSE);
  g_return_val_if_fail (spec != NULL, FALSE);

  eq = strchr (spec, '=');
  if (eq == NULL || eq == spec || eq[1] == '\0')
    {
      g_set_error (error, ANOT_ERROR, ANOT_ERROR_CONFIG,
                   "Invalid role “%s”: expected ROLE=BACKEND:MODEL, ROLE=BACKEND or ROLE=:MODEL",
                   spec);
      return FALSE;
    }
  role = g_strndup (spec, eq - spec);
  colon = strchr (eq + 1, ':');
  if (colon != NULL)
    {
      backend = g_strndup (eq + 1, colon - eq - 1);
      model = colon + 1;
    }
  else
    backend = g_strdup (eq + 1);

  if ((*backend == '\0' && (model == NULL || *model == '\0')) ||
      (colon != NULL && *model == '\0'))
    {
      g_set_error (error, ANOT_ERROR, ANOT_ERROR_CONFIG,
                   "Invalid role “%s”: expected ROLE=BACKEND:MODEL, ROLE=BACKEND or ROLE=:MODEL",
                   spec);
      return FALSE;
    }
  if (*backend != '\0' && !anot_llm_config_set (self, role, "backend", backend, error))
    return FALSE;
  if (model != NULL && !anot_llm_config_set (self, role, "model", model, error))
    return FALSE;
  return TRUE;
}

/**
 * anot_llm_config_lookup:
 * @self: an #AnotLlmConfig
 * @role: a role name
 * @key: a setting; `api_key` is never returned
 * @source: (out) (optional) (transfer full) (nullable): where the value
 *   comes from ("command line (--role)", "environment (ANOT_MODEL)", a
 *   file section, "built-in default")
 *
 * Resolves one setting of one role with the precedence and the coupling
 * rule of [class@Anot.LlmConfig].
 *
 * Returns: (transfer full) (nullable): the value, or %NULL when nothing
 *   sets it
 */
char *
anot_llm_config_lookup (AnotLlmConfig  *self,
                        const char     *role,
                        const char     *key,
                        char          **source)
{
  const char *backend;

  g_return_val_if_fail (ANOT_IS_LLM_CONFIG (self), NULL);
  g_return_val_if_fail (role != NULL, NULL);
  g_return_val_if_fail (key != NULL, NULL);

  if (source)
    *source = NULL;
  if (strcmp (key, "api_key") == 0 || !is_known_key (key))
    return NULL;
  if (strcmp (key, "backend") == 0)
    return g_strdup (resolve_backend (self, role, NULL, source));
  backend = resolve_backend (self, role, NULL, NULL);
  return g_strdup (resolve (self, role, key, backend, NULL, source));
}

/**
 * anot_llm_config_has_role:
 * @self: an #AnotLlmConfig
 * @role: a role name
 *
 * Returns: whether anything is configured for @role itself (not through
 *   the default role): a `--role`, an `ANOT_<ROLE>_*` variable or a
 *   `[role NAME]` section.  The default role always counts as configured.
 */
gboolean
anot_llm_config_has_role (AnotLlmConfig *self,
                          const char    *role)
{
  g_return_val_if_fail (ANOT_IS_LLM_CONFIG (self), FALSE);
  g_return_val_if_fail (role != NULL, FALSE);

  if (strcmp (role, ANOT_DEFAULT_ROLE) == 0)
    return TRUE;
  if (g_hash_table_contains (self->cli_roles, role) ||
      g_hash_table_contains (self->file_roles, role))
    return TRUE;
  for (guint i = 0; i < G_N_ELEMENTS (known_keys); i++)
    {
      g_autofree char *name = env_name (role, known_keys[i]);

      if (env_lookup (self, name) != NULL)
        return TRUE;
    }
  return FALSE;
}

static int
compare_strings (gconstpointer a,
                 gconstpointer b)
{
  return g_strcmp0 (*(const char * const *) a, *(const char * const *) b);
}

/**
 * anot_llm_config_list_roles:
 * @self: an #AnotLlmConfig
 *
 * Returns: (transfer full) (array zero-terminated=1): the roles other
 *   than the default one that the command line or the file configure,
 *   sorted (roles configured only by environment variables are found
 *   when asked for)
 */
char **
anot_llm_config_list_roles (AnotLlmConfig *self)
{
  g_autoptr(GHashTable) set = g_hash_table_new (g_str_hash, g_str_equal);
  GHashTableIter iter;
  gpointer key;
  GPtrArray *roles;

  g_return_val_if_fail (ANOT_IS_LLM_CONFIG (self), NULL);

  g_hash_table_iter_init (&iter, self->cli_roles);
  while (g_hash_table_iter_next (&iter, &key, NULL))
    g_hash_table_add (set, key);
  g_hash_table_iter_init (&iter, self->file_roles);
  while (g_hash_table_iter_next (&iter, &key, NULL))
    g_hash_table_add (set, key);

  roles = g_ptr_array_new ();
  g_hash_table_iter_init (&iter, set);
  while (g_hash_table_iter_next (&iter, &key, NULL))
    g_ptr_array_add (roles, g_strdup (key));
  g_ptr_array_sort (roles, compare_strings);
  g_ptr_array_add (roles, NULL);
  return (char **) g_ptr_array_free (roles, FALSE);
}

/* ------------------------------------------------------------------------
 * Routes
 * --------------------------------------------------------------------- */

static gboolean
set_property_from_string (GObject     *object,
                          const char  *property,
                          const char  *value,
                          const char  *what,
                          GError     **error)
{
  GParamSpec *pspec = g_object_class_find_property (G_OBJECT_GET_CLASS (object), property);
  g_auto(GValue) gvalue = G_VALUE_INIT;
  GType type;
  guint64 number;
  gint64 inumber;

  /* A backend without that setting (one written in Python, say) ignores
   * it. */
  if (pspec == NULL || !(pspec->flags & G_PARAM_WRITABLE))
    return TRUE;

  type = G_PARAM_SPEC_VALUE_TYPE (pspec);
  g_value_init (&gvalue, type);
  if (type == G_TYPE_STRING)
    g_value_set_string (&gvalue, value);
  else if (type == G_TYPE_UINT && g_ascii_string_to_unsigned (value, 10, 0, G_MAXUINT, &number, NULL))
    g_value_set_uint (&gvalue, (guint) number);
  else if (type == G_TYPE_UINT64 && g_ascii_string_to_unsigned (value, 10, 0, G_MAXUINT64, &number, NULL))
    g_value_set_uint64 (&gvalue, number);
  else if (type == G_TYPE_INT && g_ascii_string_to_signed (value, 10, G_MININT, G_MAXINT, &inumber, NULL))
    g_value_set_int (&gvalue, (int) inumber);
  else if (type == G_TYPE_INT64 && g_ascii_string_to_signed (value, 10, G_MININT64, G_MAXINT64, &inumber, NULL))
    g_value_set_int64 (&gvalue, inumber);
  else if (type == G_TYPE_DOUBLE)
    g_value_set_double (&gvalue, g_ascii_strtod (value, NULL));
  else
    {
      g_set_error (error, ANOT_ERROR, ANOT_ERROR_CONFIG, "Invalid value “%s” for %s", value, what);
      return FALSE;
    }
  if (g_param_value_validate (pspec, &gvalue))
    {
      g_set_error (error, ANOT_ERROR, ANOT_ERROR_CONFIG, "Value “%s” out of range for %s",
                   value, what);
      return FALSE;
    }
  g_object_set_property (object, property, &gvalue);
  return TRUE;
}

/* The API key: the backend's own environment variable, else the file. */
static const char *
resolve_api_key (AnotLlmConfig *self,
                 const char    *role,
                 const char    *backend_name,
                 GType          type)
{
  const char *value = NULL;

  if (g_type_is_a (type, ANOT_TYPE_HTTP_BACKEND))
    {
      g_autoptr(GTypeClass) klass = g_type_class_ref (type);
      const char *variable = ANOT_HTTP_BACKEND_CLASS (klass)->api_key_variable;

      if (variable != NULL)
        value = env_lookup (self, variable);
    }
  for (guint pos = POS_FILE_ROLE; value == NULL && pos <= POS_FILE_BACKEND; pos++)
    value = value_at (self, role, "api_key", pos, backend_name, NULL);
  return value;
}

/* Builds the route of @role from the configuration: the backend (shared
 * through @instances, keyed by the backend name and every connection
 * setting, so roles on the same server share its concurrency bound) and
 * the role's generation defaults (model, temperature, ...). */
static gboolean
resolve_route (GObject           *route_source,
               const char        *role,
               GHashTable        *instances,
               char             **out_backend_name,
               AnotBackend      **out_backend,
               AnotChatRequest  **out_defaults,
               GError           **error)
{
  AnotLlmConfig *self = ANOT_LLM_CONFIG (route_source);
  AnotRegistry *registry = anot_registry_get_default ();
  g_autoptr(AnotBackend) backend = NULL;
  g_autoptr(AnotChatRequest) defaults = NULL;
  g_autoptr(GString) instance_key = g_string_new (NULL);
  g_autofree char *backend_source = NULL;
  const char *backend_name, *value, *api_key;
  GType type;

  backend_name = resolve_backend (self, role, NULL, &backend_source);
  type = anot_registry_lookup_type (registry, ANOT_BACKEND_EXTENSION_POINT_NAME, backend_name);
  if (type == G_TYPE_INVALID)
    {
      g_auto(GStrv) names = anot_registry_list (registry, ANOT_BACKEND_EXTENSION_POINT_NAME);
      g_autofree char *available = names[0] ? g_strjoinv (", ", names) : g_strdup ("none");

      g_set_error (error, ANOT_ERROR, ANOT_ERROR_PLUGIN_NOT_FOUND,
                   "No backend named “%s” for role %s, set by %s (available: %s)",
                   backend_name, role, backend_source ? backend_source : "?", available);
      return FALSE;
    }

  /* The instance: every connection setting and the key decide whether an
   * existing one can be shared. */
  g_string_append (instance_key, backend_name);
  for (guint i = 0; i < G_N_ELEMENTS (instance_keys); i++)
    {
      g_autofree char *source = NULL;
      g_autofree char *where = NULL;

      value = resolve (self, role, instance_keys[i].key, backend_name, NULL, &source);
      where = g_strdup_printf ("%s of role %s, from %s", instance_keys[i].key, role,
                               source ? source : "?");
      if (value != NULL && !validate_value (instance_keys[i].key, value, where, error))
        return FALSE;
      g_string_append_printf (instance_key, "\n%s", value ? value : "");
    }
  api_key = resolve_api_key (self, role, backend_name, type);
  if (api_key != NULL)
    {
      g_autofree char *digest = g_compute_checksum_for_string (G_CHECKSUM_SHA256, api_key, -1);

      g_string_append_printf (instance_key, "\n%s", digest);
    }

  backend = instances ? g_hash_table_lookup (instances, instance_key->str) : NULL;
  if (self->stand_in != NULL)
    backend = g_object_ref (self->stand_in);
  else if (backend != NULL)
    g_object_ref (backend);
  else
    {
      backend = anot_registry_create_backend (registry, backend_name, error);
      if (backend == NULL)
        return FALSE;
      for (guint i = 0; i < G_N_ELEMENTS (instance_keys); i++)
        {
          g_autofree char *what = g_strdup_printf ("%s of backend %s", instance_keys[i].key,
                                                   backend_name);

          value = resolve (self, role, instance_keys[i].key, backend_name, NULL, NULL);
          if (value != NULL &&
              !set_property_from_string (G_OBJECT (backend), instance_keys[i].property, value,
                                         what, error))
            return FALSE;
        }
      if (api_key != NULL &&
          g_object_class_find_property (G_OBJECT_GET_CLASS (backend), "api-key") != NULL)
        g_object_set (backend, "api-key", api_key, NULL);
      if (self->batch_queue != NULL && ANOT_IS_HTTP_BACKEND (backend) &&
          anot_http_backend_can_batch (ANOT_HTTP_BACKEND (backend)))
        anot_http_backend_set_batch_queue (ANOT_HTTP_BACKEND (backend), self->batch_queue);
      if (instances != NULL)
        g_hash_table_insert (instances, g_strdup (instance_key->str), g_object_ref (backend));
    }

  /* The role's generation defaults, filled into requests that leave them
   * unset. */
  defaults = anot_chat_request_new (NULL, NULL);
  {
    static const char * const generation_keys[] = {
      "model", "temperature", "max_tokens", "top_p", "seed",
    };

    for (guint i = 0; i < G_N_ELEMENTS (generation_keys); i++)
      {
        g_autofree char *source = NULL;
        g_autofree char *where = NULL;
        const char *key = generation_keys[i];

        value = resolve (self, role, key, backend_name, NULL, &source);
        if (value == NULL)
          continue;
        where = g_strdup_printf ("%s of role %s, from %s", key, role, source ? source : "?");
        if (!validate_value (key, value, where, error))
          return FALSE;
        if (strcmp (key, "model") == 0)
          anot_chat_request_set_model (defaults, value);
        else if (strcmp (key, "temperature") == 0)
          anot_chat_request_set_temperature (defaults, g_ascii_strtod (value, NULL));
        else if (strcmp (key, "top_p") == 0)
          anot_chat_request_set_top_p (defaults, g_ascii_strtod (value, NULL));
        else if (strcmp (key, "max_tokens") == 0)
          anot_chat_request_set_max_tokens (defaults, (guint) g_ascii_strtoull (value, NULL, 10));
        else if (strcmp (key, "seed") == 0)
          anot_chat_request_set_seed (defaults, (gint64) g_ascii_strtoull (value, NULL, 10));
      }
  }

  *out_backend_name = g_strdup (backend_name);
  *out_backend = g_steal_pointer (&backend);
  *out_defaults = g_steal_pointer (&defaults);
  return TRUE;
}

static gboolean
source_has_role (GObject    *source,
                 const char *role)
{
  return anot_llm_config_has_role (ANOT_LLM_CONFIG (source), role);
}

static const AnotRouteSource route_source = {
  .has_role = source_has_role,
  .resolve = resolve_route,
};

/**
 * anot_llm_config_create_router:
 * @self: an #AnotLlmConfig
 * @error: return location for a #GError
 *
 * Creates a router that builds the route of each role from this
 * configuration when the role is first used, with the prices of the
 * file's `[prices]` section.  The default role and every role configured
 * on the command line are checked now.
 *
 * Errors: %ANOT_ERROR_PLUGIN_NOT_FOUND for an unknown backend,
 * %ANOT_ERROR_CONFIG for an invalid setting.
 *
 * Returns: (transfer full): a new router, or %NULL with @error set
 */
AnotBackendRouter *
anot_llm_config_create_router (AnotLlmConfig  *self,
                               GError        **error)
{
  g_autoptr(AnotBackendRouter) router = NULL;
  g_auto(GStrv) roles = NULL;
  GHashTableIter iter;
  gpointer key, value;

  g_return_val_if_fail (ANOT_IS_LLM_CONFIG (self), NULL);

  router = anot_backend_router_new ();
  anot_backend_router_set_route_source (router, &route_source, G_OBJECT (self));
  g_hash_table_iter_init (&iter, self->prices);
  while (g_hash_table_iter_next (&iter, &key, &value))
    anot_backend_router_set_price_entry (router, key, value);
  if (self->prices_date != NULL)
    anot_backend_router_set_prices_date (router, self->prices_date);

  if (anot_backend_router_get_backend (router, ANOT_DEFAULT_ROLE, error) == NULL)
    return NULL;
  roles = anot_llm_config_list_roles (self);
  for (guint i = 0; roles[i] != NULL; i++)
    if (anot_backend_router_get_backend (router, roles[i], error) == NULL)
      return NULL;
  return g_steal_pointer (&router);
}

/**
 * anot_llm_config_create_cached_router:
 * @self: an #AnotLlmConfig
 * @cache_path: (nullable) (type filename): a response cache file, or %NULL
 *   (or an empty string) for none
 * @offline: answer every call from the cache; a miss is an error
 * @error: return location for a #GError
 *
 * Like anot_llm_config_create_router(), with every route behind the
 * response cache at @cache_path when one is given: what `--cache FILE` and
 * `--offline` mean for every `anot-run` command.
 *
 * Errors: those of anot_llm_config_create_router() and
 * anot_response_cache_new(); %ANOT_ERROR_INVALID_ARGUMENT for @offline
 * without a cache.
 *
 * Returns: (transfer full): a new router, or %NULL with @error set
 */
AnotBackendRouter *
anot_llm_config_create_cached_router (AnotLlmConfig  *self,
                                      const char     *cache_path,
                                      gboolean        offline,
                                      GError        **error)
{
  g_autoptr(AnotResponseCache) cache = NULL;
  AnotBackendRouter *router;

  g_return_val_if_fail (ANOT_IS_LLM_CONFIG (self), NULL);

  if (cache_path != NULL && *cache_path != '\0')
    {
      cache = anot_response_cache_new (cache_path, error);
      if (cache == NULL)
        return NULL;
    }
  else if (offline)
    {
      g_set_error (error, ANOT_ERROR, ANOT_ERROR_INVALID_ARGUMENT,
                   "--offline answers LLM calls from a response cache: give it with --cache FILE");
      return NULL;
    }

  router = anot_llm_config_create_router (self, error);
  if (router != NULL && cache != NULL)
    anot_backend_router_set_cache (router, cache, offline);
  return router;
}

static void
add_route_json (AnotLlmConfig     *self,
                AnotBackendRouter *router,
                JsonBuilder       *builder,
                const char        *role,
                gboolean           generation)
{
  g_autofree char *backend = anot_llm_config_lookup (self, role, "backend", NULL);
  g_autofree char *model = anot_llm_config_lookup (self, role, "model", NULL);

  if (router != NULL && anot_backend_router_get_backend_name (router, role) != NULL)
    {
      g_free (backend);
      backend = g_strdup (anot_backend_router_get_backend_name (router, role));
      g_free (model);
      model = g_strdup (anot_backend_router_get_model (router, role));
    }
  if (model == NULL && backend != NULL)
    {
      GType type = anot_registry_lookup_type (anot_registry_get_default (),
                                              ANOT_BACKEND_EXTENSION_POINT_NAME, backend);

      if (type != G_TYPE_INVALID && g_type_is_a (type, ANOT_TYPE_HTTP_BACKEND))
        {
          g_autoptr(GTypeClass) klass = g_type_class_ref (type);

          model = g_strdup (ANOT_HTTP_BACKEND_CLASS (klass)->default_model);
        }
    }

  json_builder_set_member_name (builder, "provider");
  json_builder_add_string_value (builder, backend);
  json_builder_set_member_name (builder, "model");
  if (model)
    json_builder_add_string_value (builder, model);
  else
    json_builder_add_null_value (builder);

  if (generation)
    {
      static const char * const keys[] = { "temperature", "max_tokens", "top_p", "seed" };

      for (guint i = 0; i < G_N_ELEMENTS (keys); i++)
        {
          g_autofree char *text = anot_llm_config_lookup (self, role, keys[i], NULL);

          if (text == NULL && i >= 2)
            continue;
          json_builder_set_member_name (builder, keys[i]);
          if (text == NULL)
            json_builder_add_null_value (builder);
          else if (i == 0 || i == 2)
            json_builder_add_double_value (builder, g_ascii_strtod (text, NULL));
          else
            json_builder_add_int_value (builder, (gint64) g_ascii_strtoull (text, NULL, 10));
        }
    }
}

/**
 * anot_llm_config_to_json:
 * @self: an #AnotLlmConfig
 * @router: (nullable): the router made from @self, whose routes tell the
 *   roles used so far
 *
 * The `llm_config` object of `config.json`: `provider`, `model`,
 * `temperature` and `max_tokens` of the default role (the original
 * framework's fields; `top_p` and `seed` when set) and, under `roles`,
 * `provider` and `model` of every other role configured or used.  No API
 * key, and no base URL (which may carry credentials and differs between
 * a live run and its offline replay).
 *
 * Returns: (transfer full): a JSON object node
 */
JsonNode *
anot_llm_config_to_json (AnotLlmConfig     *self,
                         AnotBackendRouter *router)
{
  g_autoptr(JsonBuilder) builder = json_builder_new ();
  g_autoptr(GPtrArray) roles = g_ptr_array_new_with_free_func (g_free);
  g_auto(GStrv) configured = NULL;
  g_auto(GStrv) used = NULL;

  g_return_val_if_fail (ANOT_IS_LLM_CONFIG (self), NULL);
  g_return_val_if_fail (router == NULL || ANOT_IS_BACKEND_ROUTER (router), NULL);

  configured = anot_llm_config_list_roles (self);
  for (guint i = 0; configured[i] != NULL; i++)
    g_ptr_array_add (roles, g_strdup (configured[i]));
  if (router != NULL)
    {
      used = anot_backend_router_list_roles (router);
      for (guint i = 0; used[i] != NULL; i++)
        if (strcmp (used[i], ANOT_DEFAULT_ROLE) != 0 &&
            !g_strv_contains ((const char * const *) configured, used[i]))
          g_ptr_array_add (roles, g_strdup (used[i]));
    }
  g_ptr_array_sort (roles, compare_strings);

  json_builder_begin_object (builder);
  add_route_json (self, router, builder, ANOT_DEFAULT_ROLE, TRUE);
  if (roles->len > 0)
    {
      json_builder_set_member_name (builder, "roles");
      json_builder_begin_object (builder);
      for (guint i = 0; i < roles->len; i++)
        {
          json_builder_set_member_name (builder, g_ptr_array_index (roles, i));
          json_builder_begin_object (builder);
          add_route_json (self, router, builder, g_ptr_array_index (roles, i), FALSE);
          json_builder_end_object (builder);
        }
      json_builder_end_object (builder);
    }
  json_builder_end_object (builder);
  return json_builder_get_root (builder);
}

/**
 * anot_llm_config_get_run_setting:
 * @self: an #AnotLlmConfig
 * @key: a run-wide key: `batch`, `batch_max_size`, `batch_max_bytes`, `batch_window` or
 *   `batch_retry`
 * @source: (out) (optional) (nullable) (transfer full): where the value
 *   came from, for messages
 *
 * A run-wide LLM setting from the environment (`ANOT_BATCH`, ...) or,
 * failing that, the `[llm]` section of the configuration file.  The
 * command line's value, when given, is the caller's: it comes first.
 *
 * Returns: (transfer full) (nullable): the value, or %NULL when neither
 *   sets it
 */
char *
anot_llm_config_get_run_setting (AnotLlmConfig  *self,
                                 const char     *key,
                                 char          **source)
{
  g_autofree char *name = NULL;
  g_autofree char *file_key = NULL;
  const char *value;

  g_return_val_if_fail (ANOT_IS_LLM_CONFIG (self), NULL);
  g_return_val_if_fail (key != NULL, NULL);

  if (source != NULL)
    *source = NULL;
  name = env_name (NULL, key);
  value = env_lookup (self, name);
  if (value != NULL)
    {
      if (source != NULL)
        *source = g_strdup_printf ("the environment variable %s", name);
      return g_strdup (value);
    }
  file_key = layer_key ("llm", key);
  value = g_hash_table_lookup (self->file, file_key);
  if (value != NULL)
    {
      if (source != NULL)
        *source = g_strdup_printf ("%s in the [llm] section of %s", key,
                                   self->file_path ? self->file_path : "the configuration file");
      return g_strdup (value);
    }
  return NULL;
}

/**
 * anot_llm_config_set_batch_queue:
 * @self: an #AnotLlmConfig
 * @queue: (nullable): a batch queue, or %NULL for direct calls
 *
 * Sends the calls of the backends the routers created from now on make
 * through @queue, where the backend has a batch API (`openai`,
 * `anthropic`).
 */
void
anot_llm_config_set_batch_queue (AnotLlmConfig  *self,
                                 AnotBatchQueue *queue)
{
  g_return_if_fail (ANOT_IS_LLM_CONFIG (self));
  g_return_if_fail (queue == NULL || ANOT_IS_BATCH_QUEUE (queue));

  g_set_object (&self->batch_queue, queue);
}

void
anot_llm_config_set_stand_in (AnotLlmConfig *self,
                              AnotBackend   *stand_in)
{
  g_return_if_fail (ANOT_IS_LLM_CONFIG (self));
  g_set_object (&self->stand_in, stand_in);
}
