/* anot-run-list.c: `anot-run --list`
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "anot-run.h"

#include <string.h>

static const struct
{
  const char *extension_point;
  const char *heading;
} kinds[] = {
  { ANOT_METHOD_EXTENSION_POINT_NAME, "Methods" },
  { ANOT_BACKEND_EXTENSION_POINT_NAME, "Backends" },
  { ANOT_ATTACK_EXTENSION_POINT_NAME, "Attacks" },
  { ANOT_TOOL_EXTENSION_POINT_NAME, "Tools" },
};

/* One line per option the method declared: `KEY  TYPE (default D)  doc`. */
void
anot_run_print_method_options (AnotRegistry *registry,
                               const char   *method,
                               const char   *indent,
                               const char   *key_prefix)
{
  g_autoptr(GPtrArray) options = anot_registry_list_method_options (registry, method);
  gsize width = 0;

  if (options == NULL || options->len == 0)
    {
      g_print ("%s(no options)\n", indent);
      return;
    }
  for (guint i = 0; i < options->len; i++)
    width = MAX (width, strlen (anot_method_option_get_name (options->pdata[i])) + strlen (method) + 1);
  for (guint i = 0; i < options->len; i++)
    {
      AnotMethodOption *option = options->pdata[i];
      g_autofree char *key = g_strconcat (method, ".", anot_method_option_get_name (option), NULL);
      g_autofree char *type = anot_method_option_describe_type (option);
      const char *value = anot_method_option_get_default (option);
      const char *original = anot_method_option_get_original_default (option);
      gboolean fixed = anot_method_option_get_original_fixed (option);
      g_autofree char *compat_text = fixed ? g_strdup_printf (" (always %s with --compat original)",
                                                              original ? original : value)
                                     : original ? g_strdup_printf (" (%s with --compat original)", original)
                                     : g_strdup ("");
      const char *applies_key = anot_method_option_get_applies_key (option);
      g_autofree char *applies_text = applies_key != NULL
                                      ? g_strdup_printf (" (read only with %s.%s=%s)", method, applies_key,
                                                         anot_method_option_get_applies_value (option))
                                      : g_strdup ("");
      g_autofree char *default_text = value != NULL ? g_strdup_printf ("default %s%s%s", value, compat_text,
                                                                       applies_text)
                                                    : g_strdup_printf ("no default%s", applies_text);

      g_print ("%s%s%-*s  %s; %s. %s\n", indent, key_prefix, (int) width, key, type, default_text,
               anot_method_option_get_doc (option));
    }
}

static void
print_kind (AnotRegistry *registry,
            const char   *extension_point,
            const char   *heading)
{
  g_auto(GStrv) names = anot_registry_list (registry, extension_point);
  gsize width = 0;

  g_print ("%s:\n", heading);
  if (names[0] == NULL)
    {
      g_print ("  (none)\n");
      return;
    }

  for (guint i = 0; names[i] != NULL; i++)
    width = MAX (width, strlen (names[i]));

  for (guint i = 0; names[i] != NULL; i++)
    {
      const char *description = anot_registry_get_description (registry, extension_point, names[i]);
      gboolean truth = (anot_registry_get_flags (registry, extension_point, names[i]) &
                        ANOT_PLUGIN_NEEDS_TRUTH) != 0;
      /* A method that is handed the truth says so first: its figures are a
       * check of the harness, not a result. */
      const char *language = NULL;
      const char *file = anot_registry_get_origin (registry, extension_point, names[i], &language);
      /* Where each comes from: the module or file config.json will name
       * (a plugin may replace a name only with --plugin-override). */
      g_autofree char *origin = file != NULL
        ? g_strdup_printf (" [%s: %s]", language != NULL ? language : "C", file)
        : g_strdup (" [built in]");
      g_autofree char *text = g_strconcat (truth ? "[uses the truth] " : "",
                                           description != NULL ? description : "",
                                           origin, NULL);

      if (text[0] != '\0')
        g_print ("  %-*s  %s\n", (int) width, names[i], text);
      else
        g_print ("  %s\n", names[i]);
      if (strcmp (extension_point, ANOT_METHOD_EXTENSION_POINT_NAME) == 0)
        {
          AnotPluginFlags flags = anot_registry_get_flags (registry, extension_point, names[i]);

          anot_run_print_method_options (registry, names[i], "      ", "-O ");
          g_print ("      %s\n", (flags & ANOT_PLUGIN_SUPPORTS_DEFENSE) != 0 ? "--defense: supported"
                                                                           : "--defense: not supported");
        }
    }
}

/* Prints every plugin, grouped by kind, with its one-line description; the
 * modules that could not be loaded go to stderr.  Listing succeeds even when
 * some modules are broken: that is what it is for. */
int
anot_run_cmd_list (int    argc,
                   char **argv)
{
  g_autoptr(GOptionContext) context = NULL;
  g_autoptr(GError) error = NULL;
  g_auto(GStrv) failed = NULL;
  AnotRegistry *registry;

  context = g_option_context_new (NULL);
  anot_run_add_plugin_option (context);
  g_option_context_set_summary (context,
                                "List the methods, backends, attacks and tools that can be used,\n"
                                "and the plugin modules that failed to load.\n\n"
                                "Plugins are loaded from each directory of ANOT_PLUGIN_PATH, then from\n"
                                "the built-in plugin directory (installed, or ANOT_PLUGIN_DIR, which\n"
                                "meson devenv sets to the build tree's), then\n"
                                "from each --plugin and --plugin-override.  A plugin is a C module\n"
                                "(lib*.so), listed with [C: FILE], or a Python method file (*.py),\n"
                                "listed with [Python: FILE]; the library's own are [built in].  A name\n"
                                "one plugin gave is refused to another unless it comes with\n"
                                "--plugin-override.");
  if (!g_option_context_parse (context, &argc, &argv, &error))
    {
      g_printerr ("anot-run --list: %s\n", error->message);
      return ANOT_RUN_EXIT_USAGE;
    }
  if (argc > 1)
    {
      g_printerr ("anot-run --list: unexpected argument “%s”\n", argv[1]);
      return ANOT_RUN_EXIT_USAGE;
    }

  registry = anot_registry_get_default ();

  for (guint i = 0; i < G_N_ELEMENTS (kinds); i++)
    {
      if (i > 0)
        g_print ("\n");
      print_kind (registry, kinds[i].extension_point, kinds[i].heading);
    }

  failed = anot_registry_list_failed_modules (registry);
  if (failed[0] != NULL)
    {
      g_printerr ("\nPlugin modules that failed to load:\n");
      for (guint i = 0; failed[i] != NULL; i++)
        g_printerr ("  %s\n", failed[i]);
    }

  return ANOT_RUN_EXIT_OK;
}
