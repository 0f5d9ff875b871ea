/* anot-run-common.c: what every anot-run subcommand shares
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "anot-run-common.h"

#include <math.h>

/**
 * anot_run_default_data_dir:
 *
 * The benchmark used when `--data` is not given: `$ANOT_DATA_DIR/demo`
 * when the variable is set (the build tree and tests set it), else the
 * installed demo benchmark.
 *
 * Returns: (transfer full): a directory path
 */
char *
anot_run_default_data_dir (void)
{
  const char *env = g_getenv ("ANOT_DATA_DIR");

  if (env != NULL && *env != '\0')
    return g_build_filename (env, "demo", NULL);
  return g_build_filename (ANOT_PKGDATADIR, "demo", NULL);
}

int
anot_run_usage_error (const char *command,
                      const char *format,
                      ...)
{
  g_autofree char *message = NULL;
  g_autofree char *prefix = command != NULL ? g_strdup_printf ("anot-run %s", command)
                                            : g_strdup ("anot-run");
  va_list args;

  va_start (args, format);
  message = g_strdup_vprintf (format, args);
  va_end (args);

  g_printerr ("%s: %s\nTry “%s --help”.\n", prefix, message, prefix);
  return ANOT_RUN_EXIT_USAGE;
}

static gboolean
on_plugin_option (const char  *option_name,
                  const char  *value,
                  gpointer     data,
                  GError     **error)
{
  return anot_registry_load_plugin_full (anot_registry_get_default (), value,
                                         g_str_equal (option_name, "--plugin-override"), error);
}

/**
 * anot_run_add_plugin_option:
 * @context: the option context of a subcommand
 *
 * Adds `--plugin PATH` and `--plugin-override PATH` (repeatable; the
 * second lets the file's names replace registered ones): each is loaded as it is parsed, after
 * the plugin path, so the options after it can name its methods.  A file
 * that cannot be loaded fails the parse with the file, line and reason.
 */
void
anot_run_add_plugin_option (GOptionContext *context)
{
  const GOptionEntry entries[] = {
    { "plugin", 'P', 0, G_OPTION_ARG_CALLBACK, (gpointer) on_plugin_option,
      "Load plugins from PATH (repeatable): a Python method file (.py), a module (.so) "
      "or a directory of them, after those of ANOT_PLUGIN_PATH; a name another plugin "
      "already gave is refused", "PATH" },
    { "plugin-override", 0, 0, G_OPTION_ARG_CALLBACK, (gpointer) on_plugin_option,
      "As --plugin, and its names replace those other plugins gave (a Python bm25 for "
      "the built-in one)", "PATH" },
    G_OPTION_ENTRY_NULL
  };

  g_option_context_add_main_entries (context, entries, NULL);
}

char *
anot_run_format_cost (double usd,
                      int    decimals)
{
  if (isnan (usd))
    return g_strdup ("unknown price");
  return g_strdup_printf ("$%.*f", decimals, usd);
}

double
anot_run_json_cost (JsonObject *object,
                    const char *member)
{
  JsonNode *node = json_object_get_member (object, member);

  if (node == NULL || JSON_NODE_HOLDS_NULL (node))
    return NAN;
  return json_node_get_double (node);
}

void
anot_run_warn_unpriced (const char         *command,
                        const char * const *models)
{
  g_autofree char *list = NULL;

  if (models == NULL || models[0] == NULL)
    return;
  list = g_strjoinv ("”, “", (char **) models);
  g_printerr ("anot-run%s%s: warning: no price for the model%s “%s”: the cost of %s calls is "
              "recorded as unknown (null), not estimated; give %s in the [prices] section of "
              "config.ini (docs/configuration.md, \"Usage and cost\")\n",
              command ? " " : "", command ? command : "", models[1] ? "s" : "", list,
              models[1] ? "their" : "its", models[1] ? "prices" : "its price");
}
