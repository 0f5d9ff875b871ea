/* anot-run.c: the anot-run tool, subcommand dispatch
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "anot-run.h"
#include "anot-run-common.h"

#include <locale.h>
#include <string.h>

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
  if (strcmp (command, "estimate") == 0)
    return anot_run_cmd_estimate (argc - 1, argv + 1);
  if (strcmp (command, "prompt") == 0)
    return anot_run_cmd_prompt (argc - 1, argv + 1);
  if (strcmp (command, "formula") == 0)
    return anot_run_cmd_formula (argc - 1, argv + 1);
  if (strcmp (command, "compare") == 0)
    return anot_run_cmd_compare (argc - 1, argv + 1);
  if (strcmp (command, "report") == 0)
    return anot_run_cmd_report (argc - 1, argv + 1);
  if (strcmp (command, "study") == 0)
    return anot_run_cmd_study (argc - 1, argv + 1);
  if (strcmp (command, "merge") == 0)
    return anot_run_cmd_merge (argc - 1, argv + 1);
  if (strcmp (command, "cache") == 0)
    return anot_run_cmd_cache (argc - 1, argv + 1);
  if (strcmp (command, "list") == 0 || strcmp (command, "--list") == 0)
    return anot_run_cmd_list (argc - 1, argv + 1);
  if (strcmp (command, "--version") == 0)
    {
      g_print ("anot-run %s\n", ANOT_VERSION_STRING);
      return ANOT_RUN_EXIT_OK;
    }
  if (command[0] != '-')
    {
      g_printerr ("anot-run: unknown command “%s” (commands: run, study, robustness, estimate, prompt, attack, formula, validate, compare, report, merge, cache, list)\n"
                  "Try “anot-run --help”.\n", command);
      return ANOT_RUN_EXIT_USAGE;
    }

  /* Options without a command: `run` is the default. */
  return anot_run_cmd_run (argc, argv);
}
