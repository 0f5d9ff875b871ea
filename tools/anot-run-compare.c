/* anot-run-compare.c: `anot-run compare`, methods compared with intervals
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "anot-run.h"

#include <string.h>

static const char compare_summary[] =
  "Compares the results in DIR... (results roots, experiment, attack or run\n"
  "directories; any mix of methods, N, attacks and runs): Hits@1/3/5 and MRR\n"
  "of every method, attack and N with a bootstrap confidence interval over\n"
  "requests (runs pooled per request), every method against --baseline on\n"
  "the same (request, N, run) cells with the difference's interval and an\n"
  "exact McNemar p-value for Hits@1, and every attack against clean.\n"
  "With --by-condition, also why the first-ranked item was not the gold: the\n"
  "misses, the near misses (it fails exactly one condition) and, per evidence\n"
  "kind, the misses whose first item fails a condition of that kind, per\n"
  "method, attack, N and request group, with intervals.\n"
  "\n"
  "Cells made on different datasets, pool modes, seeds or request sets are\n"
  "not paired: the command fails (exit 1) and says what differs.  Requests\n"
  "the infrastructure failed (unscored) are in no figure and pairs are made\n"
  "only of cells both sides scored; such cells, and cells whose prompts were\n"
  "shrunk to the model's context window, are named in warnings on stderr.\n"
  "See docs/reading-results.md for what the numbers mean.";

void
anot_run_compare_options_add_entries (AnotRunCompareOptions *o,
                                      GOptionContext        *context)
{
  GOptionEntry entries[] = {
    { "baseline", 'b', 0, G_OPTION_ARG_STRING, &o->baseline,
      "Method every other one is paired with (default: the first read)", "METHOD" },
    { "resamples", 0, 0, G_OPTION_ARG_STRING, &o->resamples,
      "Bootstrap resamples per interval (default 10000)", "B" },
    { "bootstrap-seed", 0, 0, G_OPTION_ARG_STRING, &o->seed,
      "Seed of the bootstrap (default 42)", "SEED" },
    { "confidence", 0, 0, G_OPTION_ARG_STRING, &o->confidence,
      "Confidence level of the intervals (default 0.95)", "LEVEL" },
    { NULL }
  };

  g_option_context_add_main_entries (context, entries, NULL);
}

void
anot_run_compare_options_clear (AnotRunCompareOptions *o)
{
  g_clear_pointer (&o->baseline, g_free);
  g_clear_pointer (&o->resamples, g_free);
  g_clear_pointer (&o->seed, g_free);
  g_clear_pointer (&o->confidence, g_free);
}

AnotComparison *
anot_run_compare_options_run (const AnotRunCompareOptions  *o,
                              const char                   *command,
                              char                        **directories,
                              AnotResults                 **out_results,
                              int                          *status)
{
  g_autoptr(AnotResults) results = anot_results_new ();
  g_autoptr(AnotComparison) comparison = NULL;
  g_autoptr(GError) error = NULL;
  guint64 resamples = ANOT_COMPARISON_DEFAULT_RESAMPLES;
  guint64 seed = ANOT_COMPARISON_DEFAULT_SEED;
  double confidence = 0.95;

  *status = ANOT_RUN_EXIT_USAGE;
  if (directories == NULL || directories[0] == NULL)
    {
      anot_run_usage_error (command, "give at least one results directory");
      return NULL;
    }
  if (o->resamples != NULL &&
      !g_ascii_string_to_unsigned (o->resamples, 10, 1, 10000000, &resamples, NULL))
    {
      anot_run_usage_error (command, "--resamples must be a number from 1 to 10000000, not “%s”",
                            o->resamples);
      return NULL;
    }
  if (o->seed != NULL && !g_ascii_string_to_unsigned (o->seed, 10, 0, G_MAXUINT64, &seed, NULL))
    {
      anot_run_usage_error (command, "--bootstrap-seed must be a number from 0 to 2^64-1, not “%s”",
                            o->seed);
      return NULL;
    }
  if (o->confidence != NULL)
    {
      char *end = NULL;

      confidence = g_ascii_strtod (o->confidence, &end);
      if (end == o->confidence || *end != '\0' || !(confidence > 0.0 && confidence < 1.0))
        {
          anot_run_usage_error (command, "--confidence must be a number between 0 and 1, not “%s”",
                                o->confidence);
          return NULL;
        }
    }

  for (guint i = 0; directories[i] != NULL && error == NULL; i++)
    anot_results_add_directory (results, directories[i], &error);
  if (error == NULL)
    {
      comparison = anot_comparison_new (results);
      anot_comparison_set_baseline (comparison, o->baseline);
      anot_comparison_set_resamples (comparison, (guint) resamples);
      anot_comparison_set_seed (comparison, seed);
      anot_comparison_set_confidence (comparison, confidence);
      anot_comparison_set_by_condition (comparison, o->by_condition);
      anot_comparison_compute (comparison, &error);
    }
  if (error != NULL)
    {
      g_printerr ("anot-run %s: %s\n", command, error->message);
      /* An unknown baseline is the user's to fix; unreadable or
       * incomparable results are not. */
      *status = g_error_matches (error, ANOT_ERROR, ANOT_ERROR_INVALID_ARGUMENT)
                ? ANOT_RUN_EXIT_USAGE : ANOT_RUN_EXIT_FAILED;
      return NULL;
    }

  {
    g_auto(GStrv) warnings = anot_comparison_list_warnings (comparison);

    for (guint i = 0; warnings[i] != NULL; i++)
      g_printerr ("anot-run %s: warning: %s\n", command, warnings[i]);
  }

  *status = ANOT_RUN_EXIT_OK;
  if (out_results)
    *out_results = g_steal_pointer (&results);
  return g_steal_pointer (&comparison);
}

int
anot_run_cmd_compare (int    argc,
                      char **argv)
{
  g_autoptr(GOptionContext) context = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(AnotComparison) comparison = NULL;
  g_auto(AnotRunCompareOptions) o = { 0 };
  g_autofree char *format = NULL;
  g_autofree char *output = NULL;
  g_autofree char *text = NULL;
  g_auto(GStrv) directories = NULL;
  int status;
  GOptionEntry entries[] = {
    { "format", 'f', 0, G_OPTION_ARG_STRING, &format,
      "text (default), markdown, latex, csv or json", "FORMAT" },
    { "output", 'o', 0, G_OPTION_ARG_FILENAME, &output,
      "Write to FILE instead of standard output", "FILE" },
    { "by-condition", 0, 0, G_OPTION_ARG_NONE, &o.by_condition,
      "Also explain the misses: near misses and the kinds of conditions the first item fails, "
      "per method, attack, N and request group", NULL },
    { G_OPTION_REMAINING, 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &directories, NULL, "DIR..." },
    { NULL }
  };

  g_set_prgname ("anot-run compare");
  context = g_option_context_new ("— compare methods with confidence intervals");
  g_option_context_set_summary (context, compare_summary);
  g_option_context_add_main_entries (context, entries, NULL);
  anot_run_compare_options_add_entries (&o, context);
  if (!g_option_context_parse (context, &argc, &argv, &error))
    return anot_run_usage_error ("compare", "%s", error->message);
  if (format == NULL)
    format = g_strdup ("text");
  if (strcmp (format, "text") != 0 && strcmp (format, "markdown") != 0 &&
      strcmp (format, "latex") != 0 && strcmp (format, "csv") != 0 &&
      strcmp (format, "json") != 0)
    return anot_run_usage_error ("compare", "unknown --format “%s” (text, markdown, latex, csv or json)",
                                 format);

  comparison = anot_run_compare_options_run (&o, "compare", directories, NULL, &status);
  if (comparison == NULL)
    return status;

  if (strcmp (format, "json") == 0)
    {
      g_autoptr(JsonNode) node = anot_comparison_to_json (comparison);
      g_autoptr(JsonGenerator) generator = json_generator_new ();
      g_autofree char *json = NULL;

      json_generator_set_root (generator, node);
      json_generator_set_pretty (generator, TRUE);
      json = json_generator_to_data (generator, NULL);
      text = g_strconcat (json, "\n", NULL);
    }
  else
    text = anot_comparison_format (comparison, format, &error);
  if (text == NULL)
    {
      g_printerr ("anot-run compare: %s\n", error->message);
      return ANOT_RUN_EXIT_FAILED;
    }

  if (output != NULL)
    {
      if (!g_file_set_contents (output, text, -1, &error))
        {
          g_printerr ("anot-run compare: %s\n", error->message);
          return ANOT_RUN_EXIT_FAILED;
        }
    }
  else
    g_print ("%s", text);
  return ANOT_RUN_EXIT_OK;
}
