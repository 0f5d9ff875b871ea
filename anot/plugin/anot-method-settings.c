/* anot-method-settings.c: a method's parameters from options, environment and file
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "anot-method-settings.h"

#include <math.h>
#include <string.h>

#include "anot-error.h"
#include "anot-formatter-private.h"
#include "anot-ini-reader-private.h"
#include "anot-llm-config-private.h"
#include "anot-method-context-private.h"
#include "anot-method-settings-private.h"
#include "anot-registry-private.h"

/**
 * AnotMethodSettings:
 *
 * The parameters of one method (`beam_width` of `lats`, `max_steps` of
 * `react`, ...) resolved with the precedence the LLM settings follow
 * (see `docs/configuration.md`): for the method `lats` and the key
 * `beam_width`,
 *
 * 1. the method option `lats.beam_width` of the request's
 *    [class@Anot.MethodContext] (`anot-run -O lats.beam_width=5`, or an
 *    experiment option);
 * 2. the environment variable `ANOT_LATS_BEAM_WIDTH` (method and key
 *    upper-cased, every character other than a letter or digit written
 *    `_`);
 * 3. the key `beam_width` of the section `[method lats]` of the
 *    configuration file (`$ANOT_CONFIG`, else
 *    `$XDG_CONFIG_HOME/anot/config.ini`, the file the LLM settings come
 *    from);
 * 4. the method's default.
 *
 * The typed getters validate the value and name where it came from when
 * it is invalid; every value they return is recorded with its source in
 * anot_method_settings_to_json(), for traces.
 *
 * A method declares every key it reads ([class@Anot.MethodOption]); an
 * experiment checks the options of a run against the declaration before
 * it sends anything (an unknown key, with the nearest known one, an
 * `ANOT_<METHOD>_<KEY>` variable of no declared key, a bad value, or a
 * value `--compat original` does not admit is an
 * %ANOT_ERROR_INVALID_ARGUMENT naming the key) and records the
 * effective value of every declared key, defaults included, in
 * `config.json` (`anot.method_settings`).  A getter whose key, default or
 * range differs from the declaration is a bug of the method, reported
 * with g_critical().
 */

typedef struct
{
  char *text;
  char *where;              /* PATH:LINE [method NAME] */
} FileValue;

static void
file_value_free (FileValue *value)
{
  g_free (value->text);
  g_free (value->where);
  g_free (value);
}

struct _AnotMethodSettings
{
  GObject     parent_instance;

  char       *method;
  char      **environ;
  GHashTable *file;           /* key -> FileValue of [method NAME] */
  char       *file_path;
  JsonObject *resolved;       /* key -> {"value", "source"} */
};

G_DEFINE_FINAL_TYPE (AnotMethodSettings, anot_method_settings, G_TYPE_OBJECT)

enum {
  PROP_0,
  PROP_METHOD,
  PROP_FILE_PATH,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

static void
anot_method_settings_finalize (GObject *object)
{
  AnotMethodSettings *self = ANOT_METHOD_SETTINGS (object);

  g_free (self->method);
  g_strfreev (self->environ);
  g_hash_table_unref (self->file);
  g_free (self->file_path);
  json_object_unref (self->resolved);

  G_OBJECT_CLASS (anot_method_settings_parent_class)->finalize (object);
}

static void
anot_method_settings_get_property (GObject    *object,
                                   guint       prop_id,
                                   GValue     *value,
                                   GParamSpec *pspec)
{
  AnotMethodSettings *self = ANOT_METHOD_SETTINGS (object);

  switch (prop_id)
    {
    case PROP_METHOD:
      g_value_set_string (value, self->method);
      break;
    case PROP_FILE_PATH:
      g_value_set_string (value, self->file_path);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
anot_method_settings_set_property (GObject      *object,
                                   guint         prop_id,
                                   const GValue *value,
                                   GParamSpec   *pspec)
{
  AnotMethodSettings *self = ANOT_METHOD_SETTINGS (object);

  switch (prop_id)
    {
    case PROP_METHOD:
      g_free (self->method);
      self->method = g_value_dup_string (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
anot_method_settings_class_init (AnotMethodSettingsClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = anot_method_settings_finalize;
  object_class->get_property = anot_method_settings_get_property;
  object_class->set_property = anot_method_settings_set_property;

  /**
   * AnotMethodSettings:method:
   *
   * The method's name: the prefix of its options, environment variables
   * and configuration section.
   */
  properties[PROP_METHOD] =
    g_param_spec_string ("method", NULL, NULL, NULL,
                         G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS);

  /**
   * AnotMethodSettings:file-path:
   *
   * The configuration file read last, or %NULL.
   */
  properties[PROP_FILE_PATH] =
    g_param_spec_string ("file-path", NULL, NULL, NULL,
                         G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);

  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
anot_method_settings_init (AnotMethodSettings *self)
{
  self->environ = g_get_environ ();
  self->file = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                      (GDestroyNotify) file_value_free);
  self->resolved = json_object_new ();
}

/**
 * anot_method_settings_new:
 * @method: the method's name, e.g. `lats`
 *
 * Creates the settings of @method with the process environment and no
 * file.
 *
 * Returns: (transfer full): new settings
 */
AnotMethodSettings *
anot_method_settings_new (const char *method)
{
  g_return_val_if_fail (method != NULL && *method != '\0', NULL);

  return g_object_new (ANOT_TYPE_METHOD_SETTINGS, "method", method, NULL);
}

/**
 * anot_method_settings_get_method:
 * @self: settings
 *
 * Returns: the method's name
 */
const char *
anot_method_settings_get_method (AnotMethodSettings *self)
{
  g_return_val_if_fail (ANOT_IS_METHOD_SETTINGS (self), NULL);

  return self->method;
}

/**
 * anot_method_settings_set_environment:
 * @self: settings
 * @envp: (array zero-terminated=1) (nullable): `NAME=VALUE` strings as
 *   g_get_environ() returns, or %NULL for an empty environment
 *
 * Replaces the environment layer (by default, the process environment
 * when the settings were created).
 */
void
anot_method_settings_set_environment (AnotMethodSettings *self,
                                      const char * const *envp)
{
  g_return_if_fail (ANOT_IS_METHOD_SETTINGS (self));

  g_strfreev (self->environ);
  self->environ = envp != NULL ? g_strdupv ((char **) envp) : g_new0 (char *, 1);
}

/* Takes `[method NAME]` of @reader (the file at @path) as the file layer. */
static void
take_file_section (AnotMethodSettings *self,
                   AnotIniReader      *reader,
                   const char         *path)
{
  g_autofree char *group = g_strconcat ("method ", self->method, NULL);
  g_auto(GStrv) keys = anot_ini_reader_list_keys (reader, group);

  g_hash_table_remove_all (self->file);
  for (guint i = 0; keys[i] != NULL; i++)
    {
      FileValue *value = g_new (FileValue, 1);

      value->text = g_strdup (anot_ini_reader_get_value (reader, group, keys[i]));
      value->where = anot_ini_reader_where (reader, group, keys[i]);
      g_hash_table_insert (self->file, g_strdup (keys[i]), value);
    }

  g_free (self->file_path);
  self->file_path = g_strdup (path);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_FILE_PATH]);
}

void
anot_method_settings_take_reader (AnotMethodSettings *self,
                                  AnotIniReader      *reader)
{
  g_return_if_fail (ANOT_IS_METHOD_SETTINGS (self));

  if (reader != NULL)
    take_file_section (self, reader, anot_ini_reader_get_name (reader));
  else
    g_hash_table_remove_all (self->file);
}

/**
 * anot_method_settings_load_file:
 * @self: settings
 * @path: a configuration file (GKeyFile syntax)
 * @error: return location for a #GError
 *
 * Reads the section `[method NAME]` of @path, replacing what an earlier
 * file gave.  A file without the section is fine.
 *
 * Errors: %ANOT_ERROR_CONFIG when the file cannot be read or parsed; the
 * message starts `PATH:LINE: `.
 *
 * Returns: %TRUE on success
 */
gboolean
anot_method_settings_load_file (AnotMethodSettings  *self,
                                const char          *path,
                                GError             **error)
{
  g_autoptr(AnotIniReader) reader = NULL;

  g_return_val_if_fail (ANOT_IS_METHOD_SETTINGS (self), FALSE);
  g_return_val_if_fail (path != NULL, FALSE);

  reader = anot_ini_reader_new_from_file (path, error);
  if (reader == NULL)
    return FALSE;
  take_file_section (self, reader, path);
  return TRUE;
}

/**
 * anot_method_settings_load_default_file:
 * @self: settings
 * @error: return location for a #GError
 *
 * Reads the configuration file (`$ANOT_CONFIG`, else
 * `$XDG_CONFIG_HOME/anot/config.ini`) when it exists; a missing file
 * is not an error.
 *
 * A method run by an experiment calls
 * [method@Anot.MethodSettings.load_for_context] instead, so that every
 * request of a run reads the file as it was when the run was planned.
 *
 * Returns: %TRUE on success
 */
gboolean
anot_method_settings_load_default_file (AnotMethodSettings  *self,
                                        GError             **error)
{
  g_autofree char *path = anot_ini_reader_get_default_path ();

  g_return_val_if_fail (ANOT_IS_METHOD_SETTINGS (self), FALSE);

  if (!g_file_test (path, G_FILE_TEST_EXISTS))
    return TRUE;
  return anot_method_settings_load_file (self, path, error);
}

/**
 * anot_method_settings_load_for_context:
 * @self: settings
 * @context: the request's context
 * @error: return location for a #GError
 *
 * Takes the file layer from the configuration file the experiment read
 * once when it planned the run, so that a `config.ini` edited while a
 * run goes on does not change the settings of its later requests (nor
 * break them with a half-saved file).  A context no experiment made (a
 * method called directly) has no such copy: then this is
 * [method@Anot.MethodSettings.load_default_file].
 *
 * Returns: %TRUE on success
 */
gboolean
anot_method_settings_load_for_context (AnotMethodSettings  *self,
                                       AnotMethodContext   *context,
                                       GError             **error)
{
  AnotIniReader *reader = NULL;

  g_return_val_if_fail (ANOT_IS_METHOD_SETTINGS (self), FALSE);
  g_return_val_if_fail (ANOT_IS_METHOD_CONTEXT (context), FALSE);

  if (!anot_method_context_get_config_file (context, &reader))
    return anot_method_settings_load_default_file (self, error);
  if (reader != NULL)
    take_file_section (self, reader, anot_ini_reader_get_name (reader));
  return TRUE;
}

static char *
env_name (const char *method,
          const char *key)
{
  g_autofree char *raw = g_strdup_printf ("ANOT_%s_%s", method, key);

  for (char *p = raw; *p != '\0'; p++)
    *p = g_ascii_isalnum (*p) ? g_ascii_toupper (*p) : '_';
  return g_steal_pointer (&raw);
}

static char *lookup_layers (AnotMethodSettings  *self,
                            AnotMethodContext   *context,
                            GHashTable          *options,
                            const char          *key,
                            char               **out_source);

/**
 * anot_method_settings_lookup:
 * @self: settings
 * @context: (nullable): the request's context, whose options come first
 * @key: the key, e.g. `beam_width`
 * @out_source: (out) (optional) (nullable) (transfer full): where the
 *   value came from (`method option lats.beam_width`, `environment
 *   ANOT_LATS_BEAM_WIDTH`, `PATH:LINE [method lats]`, or %NULL for none)
 *
 * Returns: (transfer full) (nullable): the raw value, or %NULL when
 *   nothing sets it
 */
char *
anot_method_settings_lookup (AnotMethodSettings  *self,
                             AnotMethodContext   *context,
                             const char          *key,
                             char               **out_source)
{
  g_return_val_if_fail (ANOT_IS_METHOD_SETTINGS (self), NULL);
  g_return_val_if_fail (context == NULL || ANOT_IS_METHOD_CONTEXT (context), NULL);
  g_return_val_if_fail (key != NULL, NULL);

  return lookup_layers (self, context, NULL, key, out_source);
}

/* The layers in order; the options of @context, else those of @options
 * (`METHOD.KEY` -> text). */
static char *
lookup_layers (AnotMethodSettings  *self,
               AnotMethodContext   *context,
               GHashTable          *options,
               const char          *key,
               char               **out_source)
{
  g_autofree char *option = NULL;
  g_autofree char *variable = NULL;
  FileValue *file_value;
  const char *value = NULL;

  if (out_source != NULL)
    *out_source = NULL;

  option = g_strconcat (self->method, ".", key, NULL);
  if (context != NULL)
    value = anot_method_context_get_option (context, option);
  else if (options != NULL)
    value = g_hash_table_lookup (options, option);
  if (value != NULL)
    {
      if (out_source != NULL)
        *out_source = g_strdup_printf ("method option %s", option);
      return g_strdup (value);
    }

  variable = env_name (self->method, key);
  if ((value = g_environ_getenv (self->environ, variable)) != NULL)
    {
      if (out_source != NULL)
        *out_source = g_strdup_printf ("environment %s", variable);
      return g_strdup (value);
    }

  if ((file_value = g_hash_table_lookup (self->file, key)) != NULL)
    {
      if (out_source != NULL)
        *out_source = g_strdup (file_value->where);
      return g_strdup (file_value->text);
    }
  return NULL;
}

static AnotMethodOption *
find_option (GPtrArray  *options,
             const char *key)
{
  for (guint i = 0; options != NULL && i < options->len; i++)
    if (strcmp (anot_method_option_get_name (options->pdata[i]), key) == 0)
      return options->pdata[i];
  return NULL;
}

/* The declared default under @compat. */
static const char *
default_for (AnotMethodOption *option,
             AnotCompatMode    compat)
{
  if (compat == ANOT_COMPAT_MODE_ORIGINAL && anot_method_option_get_original_default (option) != NULL)
    return anot_method_option_get_original_default (option);
  return anot_method_option_get_default (option);
}

/* A getter must read what its method declared, with the same default and
 * range: the check before the run and config.json's record of defaults go
 * by the declaration.  A method that declared nothing is not checked (a
 * settings object made for a test).  Returns the declared option (a new
 * reference) or NULL. */
static AnotMethodOption *
check_declared (AnotMethodSettings   *self,
                AnotMethodContext    *context,
                const char           *key,
                AnotMethodOptionType  type,
                const char           *default_text,
                double                min_value,
                double                max_value)
{
  g_autoptr(GPtrArray) declared = anot_plugin_list_method_options (self->method);
  AnotMethodOption *option;

  const char *declared_default;

  if (declared == NULL)
    return NULL;
  option = find_option (declared, key);
  if (option == NULL)
    {
      g_critical ("Method %s reads the option %s, which it did not declare", self->method, key);
      return NULL;
    }
  declared_default = default_for (option, context != NULL ? anot_method_context_get_compat (context)
                                                          : ANOT_COMPAT_MODE_NONE);
  if (anot_method_option_get_value_type (option) != type ||
      (default_text != NULL && type != ANOT_METHOD_OPTION_DOUBLE &&
       g_strcmp0 (declared_default, default_text) != 0) ||
      (type == ANOT_METHOD_OPTION_DOUBLE &&
       g_ascii_strtod (declared_default, NULL) != g_ascii_strtod (default_text, NULL)) ||
      ((type == ANOT_METHOD_OPTION_INT || type == ANOT_METHOD_OPTION_DOUBLE) &&
       (anot_method_option_get_minimum (option) != min_value ||
        anot_method_option_get_maximum (option) != max_value)))
    g_critical ("Method %s reads the option %s with another type, default or range than it declared",
                self->method, key);
  return g_object_ref (option);
}

static char *
double_text (double value)
{
  char buffer[G_ASCII_DTOSTR_BUF_SIZE];

  return g_strdup (g_ascii_dtostr (buffer, sizeof buffer, value));
}

static void
record (AnotMethodSettings *self,
        const char         *key,
        JsonNode           *value,
        const char         *source)
{
  JsonObject *entry = json_object_new ();

  json_object_set_member (entry, "value", value);
  json_object_set_string_member (entry, "source", source != NULL ? source : "default");
  json_object_set_object_member (self->resolved, key, entry);
}

static void
invalid (AnotMethodSettings  *self,
         const char          *key,
         const char          *source,
         const char          *value,
         const char          *expected,
         GError             **error)
{
  g_set_error (error, ANOT_ERROR, ANOT_ERROR_INVALID_ARGUMENT,
               "%s.%s (from %s): expected %s, got “%s”", self->method, key, source, expected, value);
}

/* A value --compat original does not admit (the option's declaration
 * fixes it): the check before the run refuses it too, this catches a
 * context made without an experiment. */
static gboolean
compat_admits (AnotMethodSettings  *self,
               AnotMethodContext   *context,
               AnotMethodOption    *declared,
               const char          *text,
               const char          *source,
               GError             **error)
{
  if (declared == NULL || context == NULL)
    return TRUE;
  return anot_method_option_check_compat (declared, anot_method_context_get_compat (context), text,
                                          source, self->method, error);
}

/**
 * anot_method_settings_get_uint:
 * @self: settings
 * @context: (nullable): the request's context
 * @key: the key
 * @default_value: the value when nothing sets it
 * @min_value: the smallest valid value
 * @max_value: the largest valid value
 * @out_value: (out): the value
 * @error: return location for a #GError
 *
 * Errors: %ANOT_ERROR_INVALID_ARGUMENT for a value that is not an
 * integer in [@min_value, @max_value]; the message names its source.
 *
 * Returns: %TRUE on success
 */
gboolean
anot_method_settings_get_uint (AnotMethodSettings  *self,
                               AnotMethodContext   *context,
                               const char          *key,
                               guint                default_value,
                               guint                min_value,
                               guint                max_value,
                               guint               *out_value,
                               GError             **error)
{
  gint64 value;

  if (!anot_method_settings_get_int (self, context, key, default_value, min_value, max_value,
                                     &value, error))
    return FALSE;
  *out_value = (guint) value;
  return TRUE;
}

/**
 * anot_method_settings_get_int:
 * @self: settings
 * @context: (nullable): the request's context
 * @key: the key
 * @default_value: the value when nothing sets it
 * @min_value: the smallest valid value
 * @max_value: the largest valid value
 * @out_value: (out): the value
 * @error: return location for a #GError
 *
 * Reads an integer option of any sign and up to 64 bits, as
 * [ctor@Anot.MethodOption.new_int] declares them;
 * [method@Anot.MethodSettings.get_uint] reads those of a range within
 * `guint`.
 *
 * Errors: %ANOT_ERROR_INVALID_ARGUMENT for a value that is not an
 * integer in [@min_value, @max_value]; the message names its source.
 *
 * Returns: %TRUE on success
 */
gboolean
anot_method_settings_get_int (AnotMethodSettings  *self,
                              AnotMethodContext   *context,
                              const char          *key,
                              gint64               default_value,
                              gint64               min_value,
                              gint64               max_value,
                              gint64              *out_value,
                              GError             **error)
{
  g_autofree char *source = NULL;
  g_autofree char *text = anot_method_settings_lookup (self, context, key, &source);
  gint64 value = default_value;
  g_autofree char *default_text = g_strdup_printf ("%" G_GINT64_FORMAT, default_value);
  g_autoptr(AnotMethodOption) declared = check_declared (self, context, key, ANOT_METHOD_OPTION_INT, default_text,
                                                         (double) min_value, (double) max_value);

  if (text != NULL && !g_ascii_string_to_signed (text, 10, min_value, max_value, &value, NULL))
    {
      g_autofree char *expected = g_strdup_printf ("an integer from %" G_GINT64_FORMAT " to %" G_GINT64_FORMAT,
                                                   min_value, max_value);

      invalid (self, key, source, text, expected, error);
      return FALSE;
    }
  if (!compat_admits (self, context, declared, text, source, error))
    return FALSE;
  *out_value = value;
  record (self, key, json_node_init_int (json_node_alloc (), value), source);
  return TRUE;
}

/**
 * anot_method_settings_get_double:
 * @self: settings
 * @context: (nullable): the request's context
 * @key: the key
 * @default_value: the value when nothing sets it
 * @min_value: the smallest valid value
 * @max_value: the largest valid value
 * @out_value: (out): the value
 * @error: return location for a #GError
 *
 * Errors: %ANOT_ERROR_INVALID_ARGUMENT for a value that is not a finite
 * number in [@min_value, @max_value]; the message names its source.
 *
 * Returns: %TRUE on success
 */
gboolean
anot_method_settings_get_double (AnotMethodSettings  *self,
                                 AnotMethodContext   *context,
                                 const char          *key,
                                 double               default_value,
                                 double               min_value,
                                 double               max_value,
                                 double              *out_value,
                                 GError             **error)
{
  g_autofree char *source = NULL;
  g_autofree char *text = anot_method_settings_lookup (self, context, key, &source);
  double value = default_value;
  g_autofree char *default_text = double_text (default_value);
  g_autoptr(AnotMethodOption) declared = check_declared (self, context, key, ANOT_METHOD_OPTION_DOUBLE, default_text,
                                                         min_value, max_value);

  if (text != NULL)
    {
      char *end = NULL;

      value = g_ascii_strtod (text, &end);
      if (end == text || *end != '\0' || !isfinite (value) || value < min_value || value > max_value)
        {
          g_autofree char *expected = g_strdup_printf ("a number from %g to %g", min_value, max_value);

          invalid (self, key, source, text, expected, error);
          return FALSE;
        }
    }
  if (!compat_admits (self, context, declared, text, source, error))
    return FALSE;
  *out_value = value;
  record (self, key, json_node_init_double (json_node_alloc (), value), source);
  return TRUE;
}

/**
 * anot_method_settings_get_boolean:
 * @self: settings
 * @context: (nullable): the request's context
 * @key: the key
 * @default_value: the value when nothing sets it
 * @out_value: (out): the value
 * @error: return location for a #GError
 *
 * Reads `true`/`false`, `yes`/`no` or `1`/`0`.
 *
 * Errors: %ANOT_ERROR_INVALID_ARGUMENT for anything else.
 *
 * Returns: %TRUE on success
 */
gboolean
anot_method_settings_get_boolean (AnotMethodSettings  *self,
                                  AnotMethodContext   *context,
                                  const char          *key,
                                  gboolean             default_value,
                                  gboolean            *out_value,
                                  GError             **error)
{
  g_autofree char *source = NULL;
  g_autofree char *text = anot_method_settings_lookup (self, context, key, &source);
  gboolean value = default_value;
  g_autoptr(AnotMethodOption) declared = check_declared (self, context, key, ANOT_METHOD_OPTION_BOOLEAN,
                                                         default_value ? "true" : "false", 0, 0);

  if (text != NULL)
    {
      if (g_ascii_strcasecmp (text, "true") == 0 || g_ascii_strcasecmp (text, "yes") == 0 ||
          strcmp (text, "1") == 0)
        value = TRUE;
      else if (g_ascii_strcasecmp (text, "false") == 0 || g_ascii_strcasecmp (text, "no") == 0 ||
               strcmp (text, "0") == 0)
        value = FALSE;
      else
        {
          invalid (self, key, source, text, "true or false", error);
          return FALSE;
        }
      if (!compat_admits (self, context, declared, text, source, error))
        return FALSE;
    }
  *out_value = value;
  record (self, key, json_node_init_boolean (json_node_alloc (), value), source);
  return TRUE;
}

/**
 * anot_method_settings_get_choice:
 * @self: settings
 * @context: (nullable): the request's context
 * @key: the key
 * @choices: (array zero-terminated=1): the valid values
 * @default_index: the index in @choices of the default
 * @out_index: (out): the index of the value in @choices
 * @error: return location for a #GError
 *
 * Errors: %ANOT_ERROR_INVALID_ARGUMENT for a value not in @choices.
 *
 * Returns: %TRUE on success
 */
gboolean
anot_method_settings_get_choice (AnotMethodSettings  *self,
                                 AnotMethodContext   *context,
                                 const char          *key,
                                 const char * const  *choices,
                                 guint                default_index,
                                 guint               *out_index,
                                 GError             **error)
{
  g_autofree char *source = NULL;
  g_autofree char *text = anot_method_settings_lookup (self, context, key, &source);
  guint index = default_index;
  g_autoptr(AnotMethodOption) declared = NULL;

  g_return_val_if_fail (choices != NULL && default_index < g_strv_length ((char **) choices), FALSE);

  declared = check_declared (self, context, key, ANOT_METHOD_OPTION_CHOICE, choices[default_index], 0, 0);
  if (declared != NULL &&
      !g_strv_equal ((const char * const *) anot_method_option_get_choices (declared), choices))
    g_critical ("Method %s reads the option %s with other choices than it declared", self->method, key);

  if (text != NULL)
    {
      guint i;

      for (i = 0; choices[i] != NULL; i++)
        if (g_ascii_strcasecmp (text, choices[i]) == 0)
          break;
      if (choices[i] == NULL)
        {
          g_autofree char *list = g_strjoinv (", ", (char **) choices);
          g_autofree char *expected = g_strdup_printf ("one of %s", list);

          invalid (self, key, source, text, expected, error);
          return FALSE;
        }
      index = i;
      if (!compat_admits (self, context, declared, text, source, error))
        return FALSE;
    }
  *out_index = index;
  record (self, key, json_node_init_string (json_node_alloc (), choices[index]), source);
  return TRUE;
}

/**
 * anot_method_settings_get_string:
 * @self: settings
 * @context: (nullable): the request's context
 * @key: the key
 *
 * Returns: (transfer full) (nullable): the value, or the declared
 *   default (%NULL when there is none) when nothing sets it
 */
char *
anot_method_settings_get_string (AnotMethodSettings *self,
                                 AnotMethodContext  *context,
                                 const char         *key)
{
  g_autofree char *source = NULL;
  char *text = anot_method_settings_lookup (self, context, key, &source);
  g_autoptr(AnotMethodOption) declared = check_declared (self, context, key, ANOT_METHOD_OPTION_STRING, NULL, 0, 0);

  if (text == NULL && declared != NULL &&
      default_for (declared, context ? anot_method_context_get_compat (context) : ANOT_COMPAT_MODE_NONE) != NULL)
    text = g_strdup (default_for (declared, context ? anot_method_context_get_compat (context)
                                                    : ANOT_COMPAT_MODE_NONE));
  record (self, key,
          text != NULL ? json_node_init_string (json_node_alloc (), text)
                       : json_node_init_null (json_node_alloc ()),
          source);
  return text;
}

/**
 * anot_method_settings_to_json:
 * @self: settings
 *
 * Every value a typed getter returned, with its source:
 * `{"beam_width": {"value": 3, "source": "environment ANOT_LATS_BEAM_WIDTH"}, ...}`
 * (`default` when nothing set it).
 *
 * Returns: (transfer full): a JSON object node
 */
JsonNode *
anot_method_settings_to_json (AnotMethodSettings *self)
{
  JsonNode *node;
  JsonObject *copy;
  JsonObjectIter iter;
  const char *name;
  JsonNode *member;

  g_return_val_if_fail (ANOT_IS_METHOD_SETTINGS (self), NULL);

  /* Entries are replaced, never modified, so sharing them is safe. */
  copy = json_object_new ();
  json_object_iter_init_ordered (&iter, self->resolved);
  while (json_object_iter_next_ordered (&iter, &name, &member))
    json_object_set_member (copy, name, json_node_copy (member));
  node = json_node_new (JSON_NODE_OBJECT);
  json_node_take_object (node, copy);
  return node;
}

static guint
edit_distance (const char *a,
               const char *b)
{
  gsize la = strlen (a), lb = strlen (b);
  g_autofree guint *row = g_new (guint, lb + 1);

  for (gsize j = 0; j <= lb; j++)
    row[j] = j;
  for (gsize i = 1; i <= la; i++)
    {
      guint diagonal = row[0];

      row[0] = i;
      for (gsize j = 1; j <= lb; j++)
        {
          guint above = row[j];
          guint cost = g_ascii_tolower (a[i - 1]) == g_ascii_tolower (b[j - 1]) ? 0 : 1;

          row[j] = MIN (MIN (row[j] + 1, row[j - 1] + 1), diagonal + cost);
          diagonal = above;
        }
    }
  return row[lb];
}

const char *
anot_method_settings_nearest (const char         *word,
                              const char * const *candidates)
{
  const char *best = NULL;
  guint best_distance = G_MAXUINT;

  for (guint i = 0; candidates != NULL && candidates[i] != NULL; i++)
    {
      guint distance = edit_distance (word, candidates[i]);

      if (distance < best_distance)
        {
          best = candidates[i];
          best_distance = distance;
        }
    }
  /* A suggestion further than a third of the word away misleads more
   * than it helps; the list of known keys follows anyway. */
  if (best == NULL || best_distance > MAX (2, strlen (word) / 3))
    return NULL;
  return best;
}

static GStrv
option_names (GPtrArray  *options,
              const char *prefix)
{
  GStrvBuilder *builder = g_strv_builder_new ();
  GStrv names;

  for (guint i = 0; options != NULL && i < options->len; i++)
    {
      g_autofree char *name = g_strconcat (prefix ? prefix : "", prefix ? "." : "",
                                           anot_method_option_get_name (options->pdata[i]), NULL);

      g_strv_builder_add (builder, name);
    }
  names = g_strv_builder_end (builder);
  g_strv_builder_unref (builder);
  return names;
}

static void
unknown_key (const char          *what,
             const char          *key,
             const char * const  *known,
             const char          *method,
             GError             **error)
{
  /* A key without its method's prefix is compared as if it had it. */
  g_autofree char *prefixed = strchr (key, '.') == NULL && known[0] != NULL && strchr (known[0], '.') != NULL
                              ? g_strconcat (method, ".", key, NULL) : NULL;
  const char *nearest = anot_method_settings_nearest (prefixed ? prefixed : key, known);
  g_autofree char *list = known[0] != NULL ? g_strjoinv (", ", (char **) known) : NULL;
  g_autofree char *suggestion = nearest ? g_strdup_printf (" (did you mean %s?)", nearest) : g_strdup ("");
  g_autofree char *known_text = list ? g_strdup_printf ("; known: %s", list)
                                     : g_strdup_printf ("; method %s declares no options", method);

  g_set_error (error, ANOT_ERROR, ANOT_ERROR_INVALID_ARGUMENT,
               "%s %s%s%s (anot-run --method %s --help-options lists them)",
               what, key, suggestion, known_text, method);
}

/* `format.*` and the method's own keys, as `-O` writes them. */
static GStrv
all_known_options (GPtrArray  *declared,
                   GPtrArray  *format_options,
                   const char *method)
{
  g_auto(GStrv) own = option_names (declared, method);
  g_auto(GStrv) format = option_names (format_options, "format");
  GStrvBuilder *builder = g_strv_builder_new ();
  GStrv all;

  g_strv_builder_addv (builder, (const char **) own);
  g_strv_builder_addv (builder, (const char **) format);
  all = g_strv_builder_end (builder);
  g_strv_builder_unref (builder);
  return all;
}

static gint
compare_strings (gconstpointer a,
                 gconstpointer b)
{
  return strcmp (*(const char * const *) a, *(const char * const *) b);
}

/* Whether the run's method writes its candidates with AnotFormatter,
 * the one reader of `format.*`. */
static gboolean
uses_formatter (AnotMethodSettings *self)
{
  return (anot_registry_get_flags (anot_registry_get_default (), ANOT_METHOD_EXTENSION_POINT_NAME,
                                   self->method) & ANOT_PLUGIN_USES_FORMATTER) != 0;
}

/* "cot, listwise, ..." : the registered methods that read `format.*`. */
static char *
formatter_methods (void)
{
  AnotRegistry *registry = anot_registry_get_default ();
  g_auto(GStrv) methods = anot_registry_list (registry, ANOT_METHOD_EXTENSION_POINT_NAME);
  GString *list = g_string_new (NULL);

  for (guint i = 0; methods[i] != NULL; i++)
    if ((anot_registry_get_flags (registry, ANOT_METHOD_EXTENSION_POINT_NAME, methods[i]) &
         ANOT_PLUGIN_USES_FORMATTER) != 0)
      g_string_append_printf (list, "%s%s", list->len ? ", " : "", methods[i]);
  return g_string_free (list, FALSE);
}

static gboolean
check_given_option (AnotMethodSettings  *self,
                    const char          *key,
                    const char          *text,
                    GPtrArray           *declared,
                    GPtrArray           *format_options,
                    GError             **error)
{
  const char *dot = strchr (key, '.');
  g_autofree char *prefix = dot ? g_strndup (key, dot - key) : NULL;
  g_auto(GStrv) known = all_known_options (declared, uses_formatter (self) ? format_options : NULL,
                                           self->method);
  AnotMethodOption *option = NULL;
  g_autoptr(JsonNode) value = NULL;
  g_autoptr(GError) local_error = NULL;

  if (prefix != NULL && strcmp (prefix, "format") == 0 && !uses_formatter (self))
    {
      g_autofree char *methods = formatter_methods ();

      g_set_error (error, ANOT_ERROR, ANOT_ERROR_INVALID_ARGUMENT,
                   "Method option %s: the method %s does not write its candidates with the "
                   "formatter, so format.* options would do nothing (methods that read them: %s)",
                   key, self->method, methods[0] ? methods : "none");
      return FALSE;
    }
  if (prefix != NULL && strcmp (prefix, "format") == 0)
    option = find_option (format_options, dot + 1);
  else if (prefix != NULL && strcmp (prefix, self->method) == 0)
    option = find_option (declared, dot + 1);
  else if (prefix != NULL && anot_registry_lookup_type (anot_registry_get_default (),
                                                        ANOT_METHOD_EXTENSION_POINT_NAME,
                                                        prefix) != G_TYPE_INVALID)
    {
      /* Another method's option would be ignored: say so rather than run
       * without it. */
      g_set_error (error, ANOT_ERROR, ANOT_ERROR_INVALID_ARGUMENT,
                   "Method option %s is an option of the method %s, but this run's method is %s",
                   key, prefix, self->method);
      return FALSE;
    }

  if (option == NULL)
    {
      unknown_key ("Unknown method option", key, (const char * const *) known, self->method, error);
      return FALSE;
    }
  value = anot_method_option_parse (option, text, &local_error);
  if (value == NULL)
    {
      g_set_error (error, ANOT_ERROR, ANOT_ERROR_INVALID_ARGUMENT,
                   "%s (from method option %s): %s", key, key, local_error->message);
      return FALSE;
    }
  return TRUE;
}

/* The project's own ANOT_ variables, which set no method option
 * (docs/configuration.md, docs/running-on-a-cluster.md, the test suite's
 * environment): a method whose name one of them starts with must not
 * take it for a mistyped option of its own. */
static const char * const project_variables[] = {
  "ANOT_CONFIG", "ANOT_DEBUG", "ANOT_DATA_DIR", "ANOT_PLUGIN_PATH", "ANOT_PLUGIN_DIR",
  "ANOT_TOKENIZER_DIR", "ANOT_RUN", "ANOT_GIR", "ANOT_FAKE_LLM", "ANOT_PHILLY_DATA",
  "ANOT_G1A_DATA", "ANOT_LLM_OUTPUTS", "ANOT_EXAMPLE_PLUGIN_DIR", "ANOT_CHROMEDRIVER",
  "ANOT_CHROMIUM", "ANOT_REPORT_SCREENSHOT", "ANOT_NOTEBOOK_OUT", "ANOT_ARGS", "ANOT_OUT",
  "ANOT_NAME", "ANOT_SHARDS", "ANOT_BATCH",
};
static const char * const project_prefixes[] = {
  "ANOT_TEST_", "ANOT_BATCH_", "ANOT_VLLM_", "ANOT_DEFAULT_",
};

/* Whether the variable @name, which starts with @prefix (`ANOT_LATS_`),
 * is something else than an option of that method: a project variable,
 * an LLM role's setting (`ANOT_<ROLE>_<KEY>`: `ANOT_LATS_SELECTION_MODEL`
 * sets the model of the role lats.selection), or the variable of a
 * method whose longer name starts with this one's (`ANOT_PLAN_ACT_X` is
 * plan_act's, not a method plan's). */
static gboolean
variable_is_elsewhere (const char *name,
                       const char *prefix,
                       const char *method)
{
  const char *rest = name + strlen (prefix);
  g_auto(GStrv) methods = NULL;

  for (guint i = 0; i < G_N_ELEMENTS (project_variables); i++)
    if (strcmp (name, project_variables[i]) == 0)
      return TRUE;
  /* ANOT_TEST_TIME_SCALE is no option of a method "test", but
   * ANOT_TEST_SLOW_X is one of "test-slow". */
  for (guint i = 0; i < G_N_ELEMENTS (project_prefixes); i++)
    if (g_str_has_prefix (name, project_prefixes[i]) && strlen (prefix) <= strlen (project_prefixes[i]))
      return TRUE;
  if (anot_llm_config_is_role_env_key (rest))
    return TRUE;
  /* MAX_TOKENS, BASE_URL: a key may hold a '_' itself. */
  for (const char *p = rest; p != NULL && (p = strchr (p, '_')) != NULL; p++)
    if (anot_llm_config_is_role_env_key (p + 1))
      return TRUE;

  methods = anot_registry_list (anot_registry_get_default (), ANOT_METHOD_EXTENSION_POINT_NAME);
  for (guint i = 0; methods[i] != NULL; i++)
    {
      g_autofree char *other = env_name (methods[i], "");

      if (strcmp (methods[i], method) != 0 && strlen (other) > strlen (prefix) &&
          g_str_has_prefix (name, other))
        return TRUE;
    }
  return FALSE;
}

/* Every ANOT_<METHOD>_<KEY> variable of the environment that sets no
 * declared key of the run's method is a mistake the run would silently
 * ignore (`ANOT_BM25_KK` for `ANOT_BM25_K1`). */
static gboolean
check_environment (AnotMethodSettings  *self,
                   GPtrArray           *declared,
                   GError             **error)
{
  g_autofree char *prefix = env_name (self->method, "");
  g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GPtrArray) known = g_ptr_array_new_with_free_func (g_free);

  for (guint i = 0; declared != NULL && i < declared->len; i++)
    g_ptr_array_add (known, env_name (self->method, anot_method_option_get_name (declared->pdata[i])));
  g_ptr_array_add (known, NULL);

  for (guint i = 0; self->environ != NULL && self->environ[i] != NULL; i++)
    {
      const char *equals = strchr (self->environ[i], '=');
      g_autofree char *name = g_strndup (self->environ[i], equals ? (gsize) (equals - self->environ[i])
                                                                  : strlen (self->environ[i]));

      if (!g_str_has_prefix (name, prefix) || name[strlen (prefix)] == '\0' ||
          g_strv_contains ((const char * const *) known->pdata, name) ||
          variable_is_elsewhere (name, prefix, self->method))
        continue;
      g_ptr_array_add (names, g_steal_pointer (&name));
    }
  if (names->len == 0)
    return TRUE;

  /* Sorted, so that the error names the same variable every time. */
  g_ptr_array_sort (names, compare_strings);
  {
    const char *name = names->pdata[0];
    const char *nearest = anot_method_settings_nearest (name, (const char * const *) known->pdata);
    g_autofree char *list = known->len > 1 ? g_strjoinv (", ", (char **) known->pdata) : NULL;

    g_set_error (error, ANOT_ERROR, ANOT_ERROR_INVALID_ARGUMENT,
                 "Environment variable %s sets no option of the method %s%s%s%s; %s%s "
                 "(anot-run --method %s --help-options lists them)",
                 name, self->method,
                 nearest ? " (did you mean " : "", nearest ? nearest : "", nearest ? "?)" : "",
                 list ? "its variables: " : "it declares no options",
                 list ? list : "", self->method);
  }
  return FALSE;
}

JsonNode *
anot_method_settings_check_options (AnotMethodSettings  *self,
                                    GHashTable          *options,
                                    AnotCompatMode       compat,
                                    GError             **error)
{
  g_autoptr(GPtrArray) declared = anot_plugin_list_method_options (self->method);
  g_autoptr(GPtrArray) format_options = anot_formatter_list_options ();
  g_autoptr(GPtrArray) keys = g_ptr_array_new ();
  g_autoptr(JsonObject) effective = json_object_new ();
  JsonNode *node;
  GHashTableIter iter;
  gpointer key, text;

  g_return_val_if_fail (ANOT_IS_METHOD_SETTINGS (self), NULL);

  /* Sorted, so that the error names the same key every time. */
  if (options != NULL)
    {
      g_hash_table_iter_init (&iter, options);
      while (g_hash_table_iter_next (&iter, &key, NULL))
        g_ptr_array_add (keys, key);
    }
  g_ptr_array_sort (keys, compare_strings);
  for (guint i = 0; i < keys->len; i++)
    if (!check_given_option (self, keys->pdata[i], g_hash_table_lookup (options, keys->pdata[i]),
                             declared, format_options, error))
      return NULL;

  g_ptr_array_set_size (keys, 0);
  g_hash_table_iter_init (&iter, self->file);
  while (g_hash_table_iter_next (&iter, &key, &text))
    g_ptr_array_add (keys, key);
  g_ptr_array_sort (keys, compare_strings);
  for (guint i = 0; i < keys->len; i++)
    if (find_option (declared, keys->pdata[i]) == NULL)
      {
        FileValue *where = g_hash_table_lookup (self->file, keys->pdata[i]);
        g_auto(GStrv) known = option_names (declared, NULL);
        g_autofree char *what = g_strdup_printf ("%s: unknown key", where->where);

        unknown_key (what, keys->pdata[i], (const char * const *) known, self->method, error);
        return NULL;
      }

  if (!check_environment (self, declared, error))
    return NULL;

  for (guint i = 0; declared != NULL && i < declared->len; i++)
    {
      AnotMethodOption *option = declared->pdata[i];
      const char *name = anot_method_option_get_name (option);
      g_autofree char *source = NULL;
      g_autofree char *value_text = lookup_layers (self, NULL, options, name, &source);
      g_autoptr(GError) local_error = NULL;
      JsonNode *value;
      JsonObject *entry;

      if (value_text == NULL && default_for (option, compat) != anot_method_option_get_default (option))
        {
          value_text = g_strdup (default_for (option, compat));
          source = g_strdup ("default (--compat original)");
        }
      /* config.json would record a value the compat mode did not use. */
      if (!anot_method_option_check_compat (option, compat, value_text, source, self->method, error))
        return NULL;
      value = anot_method_option_parse (option, value_text, &local_error);

      if (value == NULL)
        {
          g_set_error (error, ANOT_ERROR, ANOT_ERROR_INVALID_ARGUMENT, "%s.%s (from %s): %s",
                       self->method, name, source ? source : "its default", local_error->message);
          return NULL;
        }
      entry = json_object_new ();
      json_object_set_member (entry, "value", value);
      json_object_set_string_member (entry, "source", source != NULL ? source : "default");
      json_object_set_object_member (effective, name, entry);
    }

  /* An option the method does not read with the value another one took
   * (anot.aggregate under anot.variant=head): refused when set, since it
   * would do nothing, and recorded as not read rather than with a value
   * the run did not use. */
  for (guint i = 0; declared != NULL && i < declared->len; i++)
    {
      AnotMethodOption *option = declared->pdata[i];
      const char *dep_key = anot_method_option_get_applies_key (option);
      AnotMethodOption *on = dep_key != NULL ? find_option (declared, dep_key) : NULL;
      JsonObject *entry, *on_entry;
      g_autoptr(JsonNode) wanted = NULL;
      const char *source;
      g_autofree char *on_text = NULL;

      if (on == NULL)
        continue;
      on_entry = json_object_get_object_member (effective, dep_key);
      wanted = anot_method_option_parse (on, anot_method_option_get_applies_value (option), NULL);
      if (wanted == NULL || json_node_equal (json_object_get_member (on_entry, "value"), wanted))
        continue;
      entry = json_object_get_object_member (effective, anot_method_option_get_name (option));
      source = json_object_get_string_member (entry, "source");
      on_text = json_node_get_value_type (json_object_get_member (on_entry, "value")) == G_TYPE_STRING
                ? g_strdup (json_object_get_string_member (on_entry, "value"))
                : json_to_string (json_object_get_member (on_entry, "value"), FALSE);
      if (!g_str_has_prefix (source, "default"))
        {
          g_set_error (error, ANOT_ERROR, ANOT_ERROR_INVALID_ARGUMENT,
                       "%s.%s (from %s) is read only with %s.%s=%s; this run has %s.%s=%s (from %s), "
                       "where it would do nothing",
                       self->method, anot_method_option_get_name (option), source,
                       self->method, dep_key, anot_method_option_get_applies_value (option),
                       self->method, dep_key, on_text, json_object_get_string_member (on_entry, "source"));
          return NULL;
        }
      {
        g_autofree char *why = g_strdup_printf ("not read with %s.%s=%s", self->method, dep_key, on_text);

        json_object_set_null_member (entry, "value");
        json_object_set_string_member (entry, "source", why);
      }
    }

  /* The formatter's options, for a method that reads them: recorded as
   * `format.KEY` (a method's own keys have no dot). */
  for (guint i = 0; uses_formatter (self) && i < format_options->len; i++)
    {
      AnotMethodOption *option = format_options->pdata[i];
      g_autofree char *format_key = g_strconcat ("format.", anot_method_option_get_name (option), NULL);
      const char *given = options != NULL ? g_hash_table_lookup (options, format_key) : NULL;
      g_autofree char *source = given != NULL ? g_strdup_printf ("method option %s", format_key) : NULL;
      JsonNode *value = anot_method_option_parse (option, given, NULL);
      JsonObject *entry = json_object_new ();

      /* Checked above. */
      g_assert (value != NULL);
      json_object_set_member (entry, "value", value);
      json_object_set_string_member (entry, "source", source != NULL ? source : "default");
      json_object_set_object_member (effective, format_key, entry);
    }

  node = json_node_new (JSON_NODE_OBJECT);
  json_node_set_object (node, effective);
  return node;
}
