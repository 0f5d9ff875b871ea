/* anot-run-report.c: `anot-run report`, one self-contained HTML page
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "anot-run.h"

static const char report_summary[] =
  "Writes one HTML file showing the results in DIR... (results roots,\n"
  "experiment, attack or run directories): plots of Hits@1, Hits@5 and MRR\n"
  "against N with confidence bands, the change under each attack, calls,\n"
  "tokens and cost per request; the comparison of `anot-run compare`; a\n"
  "table of every request and, for one request, each method's ranking and\n"
  "trace side by side; the provenance of every run.\n"
  "\n"
  "The page needs no server and fetches nothing: open it from the disk.\n"
  "Texts in traces longer than --max-text characters are cut and, once\n"
  "--trace-budget MB of traces are in, the others are left out (the page\n"
  "names the file holding each).";

int
anot_run_cmd_report (int    argc,
                     char **argv)
{
  g_autoptr(GOptionContext) context = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(AnotComparison) comparison = NULL;
  g_autoptr(AnotResults) results = NULL;
  g_autoptr(AnotReportWriter) writer = NULL;
  g_auto(AnotRunCompareOptions) o = { 0 };
  g_autofree char *output = NULL;
  g_autofree char *title = NULL;
  g_autofree char *budget_text = NULL;
  g_autofree char *max_text_text = NULL;
  g_auto(GStrv) directories = NULL;
  guint64 budget_mb = ANOT_REPORT_DEFAULT_TRACE_BUDGET / (1024 * 1024);
  guint64 max_text = ANOT_REPORT_DEFAULT_MAX_TEXT;
  int status;
  GOptionEntry entries[] = {
    { "output", 'o', 0, G_OPTION_ARG_FILENAME, &output,
      "The HTML file to write (required)", "FILE" },
    { "title", 0, 0, G_OPTION_ARG_STRING, &title,
      "Title of the page (default: anot results)", "TITLE" },
    { "trace-budget", 0, 0, G_OPTION_ARG_STRING, &budget_text,
      "Most MB of traces to embed (default 64; 0: none)", "MB" },
    { "max-text", 0, 0, G_OPTION_ARG_STRING, &max_text_text,
      "Most characters of one prompt or output kept (default 20000)", "CHARS" },
    { G_OPTION_REMAINING, 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &directories, NULL, "DIR..." },
    { NULL }
  };

  g_set_prgname ("anot-run report");
  context = g_option_context_new ("-o report.html — a self-contained HTML report");
  g_option_context_set_summary (context, report_summary);
  g_option_context_add_main_entries (context, entries, NULL);
  anot_run_compare_options_add_entries (&o, context);
  if (!g_option_context_parse (context, &argc, &argv, &error))
    return anot_run_usage_error ("report", "%s", error->message);
  if (output == NULL)
    return anot_run_usage_error ("report", "give the file to write with -o FILE");
  if (budget_text != NULL &&
      !g_ascii_string_to_unsigned (budget_text, 10, 0, 1024 * 1024, &budget_mb, NULL))
    return anot_run_usage_error ("report", "--trace-budget must be a number of MB from 0 to 1048576, not “%s”",
                                 budget_text);
  if (max_text_text != NULL &&
      !g_ascii_string_to_unsigned (max_text_text, 10, 100, G_MAXUINT, &max_text, NULL))
    return anot_run_usage_error ("report", "--max-text must be a number from 100, not “%s”",
                                 max_text_text);

  /* The report's failure panel and request view read it. */
  o.by_condition = TRUE;
  comparison = anot_run_compare_options_run (&o, "report", directories, &results, &status);
  if (comparison == NULL)
    return status;

  writer = anot_report_writer_new (results, comparison);
  if (title != NULL)
    anot_report_writer_set_title (writer, title);
  anot_report_writer_set_trace_budget (writer, budget_mb * 1024 * 1024);
  anot_report_writer_set_max_text (writer, (guint) max_text);
  if (!anot_report_writer_write (writer, output, &error))
    {
      g_printerr ("anot-run report: %s\n", error->message);
      return ANOT_RUN_EXIT_FAILED;
    }

  g_print ("Report: %s (%u rows, %u traces", output, anot_results_get_n_rows (results),
           anot_report_writer_get_n_traces (writer));
  if (anot_report_writer_get_n_traces_omitted (writer) > 0)
    g_print (", %u left out: trace budget spent", anot_report_writer_get_n_traces_omitted (writer));
  if (anot_report_writer_get_n_traces_unreadable (writer) > 0)
    g_print (", %u trace line%s unreadable (torn by a kill or a full disk; anot-run --resume "
             "cuts them off and runs their requests again)", anot_report_writer_get_n_traces_unreadable (writer),
             anot_report_writer_get_n_traces_unreadable (writer) == 1 ? "" : "s");
  g_print (")\n");
  return ANOT_RUN_EXIT_OK;
}
