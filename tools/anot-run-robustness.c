/* anot-run-robustness.c: `anot-run robustness`, clean and attacked runs compared
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "anot-run.h"

#include <glib/gstdio.h>
#include <string.h>

static const char robustness_summary[] =
  "Runs a method clean and under attacks on the same pools and seeds (one\n"
  "experiment, one directory per attack: <out>/<name>/<attack>/), then writes\n"
  "<out>/<name>/robustness.json and prints Hits@1 clean, attacked and the change.\n"
  "\n"
  "  --attack ATTACKS     the attacks besides clean (default: all)\n"
  "  --defense-too        run everything again in defense mode, in\n"
  "                       <out>/<name>_defense, and report both\n"
  "  --report DIR         only write the report of existing results in DIR\n"
  "                       (with --defense-report DIR2 for the defended runs)\n"
  "\n"
  "Every option of `anot-run run` below applies to the runs.";

static int
write_report (const char *directory,
              const char *defense_directory)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) report = NULL;
  g_autoptr(JsonGenerator) generator = NULL;
  g_autofree char *table = NULL;
  g_autofree char *path = NULL;

  report = anot_robustness_report (directory, defense_directory, &error);
  if (report == NULL)
    {
      g_printerr ("anot-run robustness: %s\n", error->message);
      return ANOT_RUN_EXIT_FAILED;
    }

  path = g_build_filename (directory, "robustness.json", NULL);
  generator = json_generator_new ();
  json_generator_set_root (generator, report);
  json_generator_set_pretty (generator, TRUE);
  if (!json_generator_to_file (generator, path, &error))
    {
      g_printerr ("anot-run robustness: cannot write %s: %s\n", path, error->message);
      return ANOT_RUN_EXIT_FAILED;
    }

  table = anot_robustness_report_format (report);
  g_print ("\nRobustness of %s on %s (Hits@1; delta = attacked - clean)\n\n%s\nReport: %s\n",
           json_object_get_string_member (json_node_get_object (report), "method"),
           json_object_get_string_member (json_node_get_object (report), "data"),
           table, path);
  return ANOT_RUN_EXIT_OK;
}

/* A run that stopped (budget, interrupted, failed) changed the results a
 * robustness.json of an earlier run summarised (all of them with
 * --force): it must not stay beside them.  A refused run (status 2: the
 * directory exists, another process writes it) changed nothing. */
static void
forget_report (const char *directory,
               int         status)
{
  g_autofree char *path = NULL;

  if (directory == NULL || status == ANOT_RUN_EXIT_USAGE)
    return;
  path = g_build_filename (directory, "robustness.json", NULL);
  if (g_remove (path) == 0)
    g_printerr ("anot-run robustness: removed %s, the report of earlier results; once the "
                "experiment is finished, anot-run robustness --report %s makes it again\n",
                path, directory);
}

/* GOption reorders the argv it parses: each run gets a copy. */
static int
run_with (GPtrArray    *args,
          AnotRunHooks *hooks)
{
  g_autoptr(GPtrArray) copy = g_ptr_array_copy (args, NULL, NULL);

  return anot_run_run_experiment (copy->len - 1, (char **) copy->pdata, hooks);
}

int
anot_run_cmd_robustness (int    argc,
                         char **argv)
{
  g_autoptr(GPtrArray) run_argv = g_ptr_array_new ();
  const char *report_dir = NULL;
  const char *defense_report_dir = NULL;
  gboolean defense_too = FALSE;
  AnotRunHooks plain = { 0 };
  AnotRunHooks defended = { 0 };
  gboolean incomplete = FALSE;
  int status;

  /* Our own options; everything else is the run command's. */
  for (int i = 0; i < argc; i++)
    {
      if (i > 0 && strcmp (argv[i], "--defense-too") == 0)
        defense_too = TRUE;
      else if (i > 0 && (strcmp (argv[i], "--report") == 0 ||
                         strcmp (argv[i], "--defense-report") == 0))
        {
          if (i + 1 >= argc)
            {
              g_printerr ("anot-run robustness: %s needs a directory\n", argv[i]);
              return ANOT_RUN_EXIT_USAGE;
            }
          if (strcmp (argv[i], "--report") == 0)
            report_dir = argv[++i];
          else
            defense_report_dir = argv[++i];
        }
      else
        g_ptr_array_add (run_argv, argv[i]);
    }
  g_ptr_array_add (run_argv, NULL);

  if (report_dir != NULL || defense_report_dir != NULL)
    {
      if (report_dir == NULL || run_argv->len > 2 || defense_too)
        {
          g_printerr ("anot-run robustness: --report DIR [--defense-report DIR] takes no "
                      "other option\n");
          return ANOT_RUN_EXIT_USAGE;
        }
      return write_report (report_dir, defense_report_dir);
    }

  plain.parameter_string = "— run clean and attacked, and compare";
  plain.summary = robustness_summary;
  plain.robustness = TRUE;
  plain.defense_later = defense_too;
  status = run_with (run_argv, &plain);
  /* Incomplete: every request ran; the report shows what is unscored. */
  incomplete = status == ANOT_RUN_EXIT_INCOMPLETE;
  if (status != ANOT_RUN_EXIT_OK && !incomplete)
    {
      forget_report (plain.directory, status);
      goto out;
    }

  if (defense_too)
    {
      g_print ("\nThe same in defense mode:\n");
      defended = plain;
      defended.directory = NULL;
      defended.defense = TRUE;
      defended.name_suffix = "_defense";
      status = run_with (run_argv, &defended);
      incomplete |= status == ANOT_RUN_EXIT_INCOMPLETE;
      if (status != ANOT_RUN_EXIT_OK && status != ANOT_RUN_EXIT_INCOMPLETE)
        {
          forget_report (plain.directory, status);
          goto out;
        }
    }

  status = write_report (plain.directory, defended.directory);
  if (status == ANOT_RUN_EXIT_OK && incomplete)
    status = ANOT_RUN_EXIT_INCOMPLETE;

out:
  g_free (plain.directory);
  g_free (defended.directory);
  return status;
}
