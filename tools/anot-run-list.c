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
      /* Where a method written in another language comes from: the file
       * a user edits, and the one config.json will name. */
      g_autofree char *origin = language != NULL
        ? g_strdup_printf (" [%s: %s]", language, file) : g_strdup ("");
      g_autofree char *text = g_strconcat (truth ? "[uses the truth] " : "",
                                           description != NULL ? description : "",
                                           origin, NULL);

      if (text[0] != '\0')
        g_print ("  %-*s  %s\n", (int) width, names[i], text);
      else
        g_print ("  %s\n", names[i]);
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
                                "the installed plugin directory (ANOT_PLUGIN_DIR overrides it), then\n"
                                "from each --plugin.  A plugin is a C module (lib*.so) or a Python\n"
                                "method file (*.py), listed with [Python: FILE].");
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
