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
  "\n"
  "Cells made on different datasets, pool modes, seeds or request sets are\n"
  "not paired: the command fails (exit 1) and says what differs.\n"
  "See docs/reading-results.md for what the numbers mean.";

/* Reads the directories and computes the comparison; shared with `anot-run
 * report`, which shows the same tables. */
AnotComparison *
anot_run_compare_directories (char       **directories,
                              const char  *baseline,
                              guint        resamples,
                              guint64      seed,
                              double       confidence,
                              AnotResults **out_results,
                              GError     **error)
{
  g_autoptr(AnotResults) results = anot_results_new ();
  g_autoptr(AnotComparison) comparison = NULL;

  for (guint i = 0; directories[i] != NULL; i++)
    if (!anot_results_add_directory (results, directories[i], error))
      return NULL;

  comparison = anot_comparison_new (results);
  anot_comparison_set_baseline (comparison, baseline);
  anot_comparison_set_resamples (comparison, resamples);
  anot_comparison_set_seed (comparison, seed);
  anot_comparison_set_confidence (comparison, confidence);
  if (!anot_comparison_compute (comparison, error))
    return NULL;
  if (out_results)
    *out_results = g_steal_pointer (&results);
  return g_steal_pointer (&comparison);
}

gboolean
anot_run_parse_bootstrap_options (const char *command,
                                  const char *resamples_text,
                                  const char *seed_text,
                                  const char *confidence_text,
                                  guint      *resamples,
                                  guint64    *seed,
                                  double     *confidence)
{
  guint64 value;

  *resamples = ANOT_COMPARISON_DEFAULT_RESAMPLES;
  *seed = ANOT_COMPARISON_DEFAULT_SEED;
  *confidence = 0.95;
  if (resamples_text != NULL)
    {
      if (!g_ascii_string_to_unsigned (resamples_text, 10, 1, 10000000, &value, NULL))
        {
          anot_run_usage_error (command, "--resamples must be a number from 1 to 10000000, not “%s”",
                                resamples_text);
          return FALSE;
        }
      *resamples = (guint) value;
    }
  if (seed_text != NULL)
    {
      if (!g_ascii_string_to_unsigned (seed_text, 10, 0, G_MAXUINT64, seed, NULL))
        {
          anot_run_usage_error (command, "--bootstrap-seed must be a number from 0 to 2^64-1, not “%s”",
                                seed_text);
          return FALSE;
        }
    }
  if (confidence_text != NULL)
    {
      char *end = NULL;
      double level = g_ascii_strtod (confidence_text, &end);

      if (end == confidence_text || *end != '\0' || !(level > 0.0 && level < 1.0))
        {
          anot_run_usage_error (command, "--confidence must be a number between 0 and 1, not “%s”",
                                confidence_text);
          return FALSE;
        }
      *confidence = level;
    }
  return TRUE;
}

int
anot_run_cmd_compare (int    argc,
                      char **argv)
{
  g_autoptr(GOptionContext) context = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(AnotComparison) comparison = NULL;
  g_autofree char *baseline = NULL;
  g_autofree char *format = NULL;
  g_autofree char *resamples_text = NULL;
  g_autofree char *seed_text = NULL;
  g_autofree char *confidence_text = NULL;
  g_autofree char *output = NULL;
  g_autofree char *text = NULL;
  g_auto(GStrv) directories = NULL;
  guint resamples;
  guint64 seed;
  double confidence;
  GOptionEntry entries[] = {
    { "baseline", 'b', 0, G_OPTION_ARG_STRING, &baseline,
      "Method every other one is paired with (default: the first read)", "METHOD" },
    { "format", 'f', 0, G_OPTION_ARG_STRING, &format,
      "text (default), markdown, latex, csv or json", "FORMAT" },
    { "resamples", 0, 0, G_OPTION_ARG_STRING, &resamples_text,
      "Bootstrap resamples per interval (default 10000)", "B" },
    { "bootstrap-seed", 0, 0, G_OPTION_ARG_STRING, &seed_text,
      "Seed of the bootstrap (default 42)", "SEED" },
    { "confidence", 0, 0, G_OPTION_ARG_STRING, &confidence_text,
      "Confidence level of the intervals (default 0.95)", "LEVEL" },
    { "output", 'o', 0, G_OPTION_ARG_FILENAME, &output,
      "Write to FILE instead of standard output", "FILE" },
    { G_OPTION_REMAINING, 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &directories, NULL, "DIR..." },
    { NULL }
  };

  context = g_option_context_new ("DIR... — compare methods with confidence intervals");
  g_option_context_set_summary (context, compare_summary);
  g_option_context_add_main_entries (context, entries, NULL);
  if (!g_option_context_parse (context, &argc, &argv, &error))
    return anot_run_usage_error ("compare", "%s", error->message);
  if (directories == NULL || directories[0] == NULL)
    return anot_run_usage_error ("compare", "give at least one results directory");
  if (format == NULL)
    format = g_strdup ("text");
  if (strcmp (format, "text") != 0 && strcmp (format, "markdown") != 0 &&
      strcmp (format, "latex") != 0 && strcmp (format, "csv") != 0 &&
      strcmp (format, "json") != 0)
    return anot_run_usage_error ("compare", "unknown --format “%s” (text, markdown, latex, csv or json)",
                                 format);
  if (!anot_run_parse_bootstrap_options ("compare", resamples_text, seed_text, confidence_text,
                                         &resamples, &seed, &confidence))
    return ANOT_RUN_EXIT_USAGE;

  comparison = anot_run_compare_directories (directories, baseline, resamples, seed, confidence,
                                             NULL, &error);
  if (comparison == NULL)
    {
      g_printerr ("anot-run compare: %s\n", error->message);
      return g_error_matches (error, ANOT_ERROR, ANOT_ERROR_INVALID_ARGUMENT)
             ? ANOT_RUN_EXIT_USAGE : ANOT_RUN_EXIT_FAILED;
    }

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
