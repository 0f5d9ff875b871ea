/* anot-run.c: the anot-run tool, subcommand dispatch
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "anot-run.h"

#include <locale.h>
#include <string.h>

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

int
main (int    argc,
      char **argv)
{
  const char *command;

  setlocale (LC_ALL, "");
  /* Subcommands parse from argv + 1; keep "anot-run" in their --help. */
  g_set_prgname ("anot-run");

  if (argc < 2)
    return anot_run_cmd_run (argc, argv);

  command = argv[1];
  if (strcmp (command, "run") == 0)
    return anot_run_cmd_run (argc - 1, argv + 1);
  if (strcmp (command, "validate") == 0)
    return anot_run_cmd_validate (argc - 1, argv + 1);
  if (strcmp (command, "attack") == 0)
    return anot_run_cmd_attack (argc - 1, argv + 1);
  if (strcmp (command, "robustness") == 0)
    return anot_run_cmd_robustness (argc - 1, argv + 1);
  if (strcmp (command, "formula") == 0)
    return anot_run_cmd_formula (argc - 1, argv + 1);
  if (strcmp (command, "compare") == 0)
    return anot_run_cmd_compare (argc - 1, argv + 1);
  if (strcmp (command, "report") == 0)
    return anot_run_cmd_report (argc - 1, argv + 1);
  if (strcmp (command, "list") == 0 || strcmp (command, "--list") == 0)
    return anot_run_cmd_list (argc - 1, argv + 1);
  if (strcmp (command, "--version") == 0)
    {
      g_print ("anot-run %s\n", ANOT_VERSION_STRING);
      return ANOT_RUN_EXIT_OK;
    }
  if (command[0] != '-')
    {
      g_printerr ("anot-run: unknown command “%s” (commands: run, robustness, attack, formula, validate, compare, report, list)\n"
                  "Try “anot-run --help”.\n", command);
      return ANOT_RUN_EXIT_USAGE;
    }

  /* Options without a command: `run` is the default. */
  return anot_run_cmd_run (argc, argv);
}
