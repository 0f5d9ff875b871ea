/* anot-run-study.c: `anot-run study FILE`, a paper's grid in one command
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "anot-run.h"

#include <math.h>

#include <glib-unix.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static const char study_summary[] =
  "Runs every cell of a study file: each method on each of its models, under\n"
  "every attack, with and without defense mode, at the study's N and runs,\n"
  "into <out>/<name>/<method>@<model>/<attack>/run_<R>/ (the usual layout).\n"
  "The cells run at once, their requests in flight together up to the study's\n"
  "concurrency, under one budget (max_cost). The same command again continues\n"
  "the study without redoing anything. When it ends, <out>/<name>/report.html,\n"
  "comparison.md and comparison.csv are written (the comparison against the\n"
  "file's baseline).  See docs/studies.md for the file.";

static const char study_description[] =
  "Exit status:\n"
  "  0    every cell completed (or the estimate was printed)\n"
  "  1    a cell failed (the LLM server refused the key or the model, results\n"
  "       could not be written...): the others stopped, everything is written\n"
  "  2    usage error: the study file is refused (file, line and key named),\n"
  "       a bad option, or a cell's directory holds a run with other settings\n"
  "  3    stopped by the budget (max_cost): run the same command with a higher\n"
  "       --max-cost (or max_cost in the file) to continue\n"
  "  4    incomplete: the infrastructure failed some requests (unscored); run\n"
  "       the same command again, or with --retry R\n"
  "  130  interrupted (Ctrl-C); 143 terminated (SIGTERM): run the same command\n"
  "       again to continue\n";

typedef struct
{
  AnotStudy *study;
  GMainLoop *loop;
  GCancellable *cancellable;
  gboolean ok;
  GError *error;
  gboolean tty;
  int stop_signal;
  guint sigint_count;
  guint n_ran;
  guint done_at_start;
  guint planned;
  gint64 started_us;
  gboolean line_shown;
} StudyState;

static void
clear_line (StudyState *state)
{
  if (state->tty && state->line_shown)
    {
      fputs ("\r\033[K", stderr);
      fflush (stderr);
      state->line_shown = FALSE;
    }
}

static void
on_result (AnotStudy     *study,
           AnotStudyCell *cell,
           AnotResult    *result,
           StudyState    *state)
{
  g_autofree char *eta = NULL;

  state->n_ran++;
  if (!state->tty)
    return;
  if (state->done_at_start + state->n_ran < state->planned)
    {
      double elapsed = (g_get_monotonic_time () - state->started_us) / 1e6;
      guint left = state->planned - state->done_at_start - state->n_ran;
      guint seconds = (guint) (elapsed / state->n_ran * left + 0.5);

      eta = g_strdup_printf ("%u:%02u", seconds / 60, seconds % 60);
    }
  /* Rows a retry round replaces count again: never past the plan. */
  fprintf (stderr, "\r\033[K[study %s] %u/%u requests  ETA %s", anot_study_cell_get_name (cell),
           MIN (state->done_at_start + state->n_ran, state->planned), state->planned, eta ? eta : "--:--");
  fflush (stderr);
  state->line_shown = TRUE;
}

static gboolean
on_stop (StudyState *state,
         int         signum)
{
  if (++state->sigint_count > 1)
    {
      clear_line (state);
      g_printerr ("anot-run study: interrupted again, exiting without waiting\n");
      exit (state->stop_signal == SIGTERM ? ANOT_RUN_EXIT_TERMINATED : ANOT_RUN_EXIT_INTERRUPTED);
    }
  state->stop_signal = signum;
  clear_line (state);
  g_printerr ("anot-run study: %s; cancelling the requests in flight and writing every cell's "
              "results\n", signum == SIGTERM ? "terminated (SIGTERM)" : "interrupted");
  g_cancellable_cancel (state->cancellable);
  return G_SOURCE_CONTINUE;
}

static gboolean
on_sigint (gpointer user_data)
{
  return on_stop (user_data, SIGINT);
}

static gboolean
on_sigterm (gpointer user_data)
{
  return on_stop (user_data, SIGTERM);
}

static void
on_done (GObject      *source,
         GAsyncResult *result,
         gpointer      user_data)
{
  StudyState *state = user_data;

  state->ok = anot_study_run_finish (ANOT_STUDY (source), result, &state->error);
  g_main_loop_quit (state->loop);
}

static int
print_estimate (AnotStudy  *study,
                guint       completion_tokens,
                gboolean    json)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) estimate = anot_study_estimate (study, completion_tokens, &error);
  JsonArray *cells;

  if (estimate == NULL)
    {
      g_printerr ("anot-run study: %s\n", error->message);
      return ANOT_RUN_EXIT_FAILED;
    }
  if (json)
    {
      g_autofree char *text = json_to_string (estimate, TRUE);

      g_print ("%s\n", text);
      return ANOT_RUN_EXIT_OK;
    }

  cells = json_object_get_array_member (json_node_get_object (estimate), "cells");
  g_print ("Estimate for the study %s (no LLM called)\n", anot_study_get_name (study));
  g_print ("\n%-36s %9s %9s %13s %12s %11s %11s\n", "cell", "requests", "calls",
           "prompt tok", "compl tok", "cost", "batch cost");
  for (guint i = 0; i < json_array_get_length (cells); i++)
    {
      JsonObject *cell = json_array_get_object_element (cells, i);
      g_autofree char *calls = g_strdup_printf ("%s%" G_GINT64_FORMAT,
                                                json_object_get_int_member (cell, "incomplete") > 0 ? ">=" : "",
                                                json_object_get_int_member (cell, "calls"));
      g_autofree char *cost = anot_run_estimate_money_cell (cell, "cost_usd");
      g_autofree char *batch_cost = anot_run_estimate_money_cell (cell, "batch_cost_usd");

      g_print ("%-36s %9" G_GINT64_FORMAT " %9s %13" G_GINT64_FORMAT " %12" G_GINT64_FORMAT
               " %11s %11s\n",
               json_object_get_string_member (cell, "cell"), json_object_get_int_member (cell, "requests"),
               calls, json_object_get_int_member (cell, "prompt_tokens"),
               json_object_get_int_member (cell, "completion_tokens"), cost, batch_cost);
    }
  g_print ("(>=: requests that stopped on the stand-in answer; lower bounds, see anot-run estimate)\n\n");
  anot_run_print_estimate_total (json_object_get_object_member (json_node_get_object (estimate), "total"));
  return ANOT_RUN_EXIT_OK;
}

/* One line per cell: requests, unscored, Hits@1, MRR, cost. */
static void
print_cells (AnotStudy *study)
{
  g_autoptr(GPtrArray) cells = anot_study_get_cells (study, NULL);

  if (cells == NULL)
    return;
  g_print ("\n%-36s %5s %9s %9s %7s %7s %10s\n", "cell", "N", "requests", "unscored", "Hits@1", "MRR", "cost");
  for (guint c = 0; c < cells->len; c++)
    {
      AnotStudyCell *cell = g_ptr_array_index (cells, c);
      AnotExperiment *experiment = anot_study_cell_get_experiment (cell);
      const guint *ns;
      guint n_ns = 0;

      ns = anot_experiment_get_candidate_counts (experiment, &n_ns);
      for (guint i = 0; i < n_ns; i++)
        {
          double hits = 0, mrr = 0, cost = 0;
          guint requests = 0, unscored = 0, runs = 0;

          for (guint run = 1; run <= anot_experiment_get_n_runs (experiment); run++)
            {
              g_autoptr(AnotMetrics) metrics =
                anot_experiment_get_attack_metrics (experiment, anot_study_cell_get_attack (cell), ns[i], run);
              g_autoptr(GPtrArray) rows =
                anot_experiment_get_attack_results (experiment, anot_study_cell_get_attack (cell), ns[i], run);

              for (guint r = 0; rows != NULL && r < rows->len; r++)
                cost += anot_usage_get_cost_usd (anot_result_get_usage (g_ptr_array_index (rows, r)));
              requests += rows ? rows->len : 0;
              if (metrics == NULL)
                continue;
              unscored += anot_metrics_get_unscored (metrics);
              if (anot_metrics_get_total (metrics) > 0)
                {
                  hits += anot_metrics_get_hits_at (metrics, 1);
                  mrr += anot_metrics_get_mrr (metrics);
                  runs++;
                }
            }
          {
            /* NaN: a call without a price. */
            g_autofree char *cost_text = isnan (cost) ? g_strdup ("unknown")
                                                      : g_strdup_printf ("%.4f", cost);

            g_print ("%-36s %5u %9u %9u %7.3f %7.3f %10s\n", anot_study_cell_get_name (cell), ns[i],
                     requests, unscored, runs ? hits / runs : 0.0, runs ? mrr / runs : 0.0, cost_text);
          }
        }
    }
}

int
anot_run_cmd_study (int    argc,
                    char **argv)
{
  g_autoptr(GOptionContext) context = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(AnotStudy) study = NULL;
  g_auto(GStrv) files = NULL;
  g_autofree char *out = NULL;
  g_autofree char *shard = NULL;
  g_autofree char *retry = NULL;
  g_autofree char *max_cost = NULL;
  g_autofree char *concurrency = NULL;
  g_autofree char *base_url = NULL;
  g_autofree char *cache = NULL;
  g_autofree char *completion_tokens = NULL;
  gboolean estimate = FALSE, json = FALSE;
  guint64 retry_rounds = 0, tokens = 300;
  StudyState state = { 0 };
  guint sigint_source, sigterm_source;
  int status;
  GOptionEntry entries[] = {
    { "estimate", 0, 0, G_OPTION_ARG_NONE, &estimate,
      "Print each cell's calls, tokens and cost and the study's total; call no LLM", NULL },
    { "json", 0, 0, G_OPTION_ARG_NONE, &json, "With --estimate: print it as JSON", NULL },
    { "completion-tokens", 0, 0, G_OPTION_ARG_STRING, &completion_tokens,
      "With --estimate: answer length assumed for calls without max_tokens (default 300)", "N" },
    { "out", 'o', 0, G_OPTION_ARG_FILENAME, &out,
      "Results root (default: the file's out, else results); the study writes <out>/<name>", "DIR" },
    { "shard", 0, 0, G_OPTION_ARG_STRING, &shard,
      "Run only this process's part I of N of the whole study, balanced by estimated cost; "
      "anot-run merge OUT SHARD_DIR... joins the N study directories", "I/N" },
    { "retry", 0, 0, G_OPTION_ARG_STRING, &retry,
      "Run the requests the infrastructure failed (unscored) again, up to R rounds (default 0)", "R" },
    { "max-cost", 0, 0, G_OPTION_ARG_STRING, &max_cost,
      "The study's budget in US dollars, instead of the file's max_cost", "USD" },
    { "concurrency", 'j', 0, G_OPTION_ARG_STRING, &concurrency,
      "Requests in flight at once, over every cell (instead of the file's)", "C" },
    { "base-url", 0, 0, G_OPTION_ARG_STRING, &base_url,
      "The LLM server(s) of every cell, instead of the file's (a Slurm task's own)", "URL" },
    { "cache", 0, 0, G_OPTION_ARG_FILENAME, &cache,
      "The response cache of every cell, instead of the file's (a Slurm task's own)", "FILE" },
    { G_OPTION_REMAINING, 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &files, NULL, "FILE" },
    G_OPTION_ENTRY_NULL
  };

  g_set_prgname ("anot-run study");
  context = g_option_context_new ("FILE — run a study: methods × models × attacks × defense");
  g_option_context_set_summary (context, study_summary);
  g_option_context_set_description (context, study_description);
  g_option_context_add_main_entries (context, entries, NULL);
  anot_run_add_plugin_option (context);
  if (!g_option_context_parse (context, &argc, &argv, &error))
    return anot_run_usage_error ("study", "%s", error->message);
  if (files == NULL || files[0] == NULL || files[1] != NULL)
    return anot_run_usage_error ("study", "give one study file");
  if (retry != NULL && !g_ascii_string_to_unsigned (retry, 10, 0, 100, &retry_rounds, NULL))
    return anot_run_usage_error ("study", "--retry: expected a number of rounds from 0 to 100, not “%s”", retry);
  if (completion_tokens != NULL &&
      !g_ascii_string_to_unsigned (completion_tokens, 10, 0, 1000000, &tokens, NULL))
    return anot_run_usage_error ("study", "--completion-tokens: expected 0 to 1000000, not “%s”",
                                 completion_tokens);

  study = anot_study_load (files[0], &error);
  if (study == NULL)
    {
      g_printerr ("anot-run study: %s\n", error->message);
      return g_error_matches (error, ANOT_ERROR, ANOT_ERROR_CONFIG) ||
             g_error_matches (error, ANOT_ERROR, ANOT_ERROR_INVALID_ARGUMENT) ||
             g_error_matches (error, ANOT_ERROR, ANOT_ERROR_PLUGIN_NOT_FOUND) ||
             g_error_matches (error, ANOT_ERROR, ANOT_ERROR_RESUME) ||
             g_error_matches (error, G_FILE_ERROR, G_FILE_ERROR_NOENT)
             ? ANOT_RUN_EXIT_USAGE : ANOT_RUN_EXIT_FAILED;
    }
  if (out != NULL)
    anot_study_set_out (study, out);
  if (shard != NULL)
    {
      guint64 index = 0, count = 0;
      g_auto(GStrv) parts = g_strsplit (shard, "/", 2);

      if (parts[0] == NULL || parts[1] == NULL ||
          !g_ascii_string_to_unsigned (parts[0], 10, 0, 99999, &index, NULL) ||
          !g_ascii_string_to_unsigned (parts[1], 10, 1, 100000, &count, NULL) ||
          !anot_study_set_shard (study, (guint) index, (guint) count, &error))
        return anot_run_usage_error ("study", "--shard: expected I/N with 0 <= I < N, not “%s”%s%s", shard,
                                     error ? ": " : "", error ? error->message : "");
    }
  anot_study_set_retry (study, (guint) retry_rounds);
  if ((max_cost != NULL && !anot_study_set_option (study, "max-cost", max_cost, &error)) ||
      (concurrency != NULL && !anot_study_set_option (study, "concurrency", concurrency, &error)) ||
      (base_url != NULL && !anot_study_set_option (study, "base-url", base_url, &error)) ||
      (cache != NULL && !anot_study_set_option (study, "cache", cache, &error)))
    return anot_run_usage_error ("study", "%s", error->message);

  if (estimate)
    return print_estimate (study, (guint) tokens, json);

  {
    g_autoptr(GPtrArray) cells = anot_study_get_cells (study, &error);
    g_autofree char *directory = anot_study_get_directory (study);

    if (cells == NULL)
      {
        g_printerr ("anot-run study: %s\n", error->message);
        return g_error_matches (error, ANOT_ERROR, ANOT_ERROR_RESUME) ||
               g_error_matches (error, ANOT_ERROR, ANOT_ERROR_CONFIG)
               ? ANOT_RUN_EXIT_USAGE : ANOT_RUN_EXIT_FAILED;
      }
    {
      g_autoptr(GPtrArray) unpriced = g_ptr_array_new_with_free_func (g_free);

      /* Each model once, whichever cells call it. */
      for (guint c = 0; c < cells->len; c++)
        {
          g_auto(GStrv) models =
            anot_experiment_list_unpriced_models (anot_study_cell_get_experiment (g_ptr_array_index (cells, c)));

          for (guint m = 0; models[m] != NULL; m++)
            if (!g_ptr_array_find_with_equal_func (unpriced, models[m], g_str_equal, NULL))
              g_ptr_array_add (unpriced, g_strdup (models[m]));
        }
      g_ptr_array_add (unpriced, NULL);
      anot_run_warn_unpriced ("study", (const char * const *) unpriced->pdata);
    }
    state.planned = anot_study_get_n_planned (study);
    state.done_at_start = anot_study_get_n_done (study);
    g_print ("Study %s: %u cells, %u requests planned%s%s\n", anot_study_get_name (study), cells->len,
             state.planned, shard ? " in shard " : "", shard ? shard : "");
    g_print ("Results directory: %s\n", directory);
    fflush (stdout);
  }

  state.study = study;
  state.loop = g_main_loop_new (NULL, FALSE);
  state.cancellable = g_cancellable_new ();
  state.tty = isatty (fileno (stderr));
  state.started_us = g_get_monotonic_time ();
  g_signal_connect (study, "result", G_CALLBACK (on_result), &state);
  sigint_source = g_unix_signal_add (SIGINT, on_sigint, &state);
  sigterm_source = g_unix_signal_add (SIGTERM, on_sigterm, &state);

  anot_study_run_async (study, state.cancellable, on_done, &state);
  g_main_loop_run (state.loop);

  g_source_remove (sigint_source);
  g_source_remove (sigterm_source);
  g_signal_handlers_disconnect_by_data (study, &state);
  clear_line (&state);

  g_print ("Ran %u request%s", state.n_ran, state.n_ran == 1 ? "" : "s");
  if (state.done_at_start > 0)
    g_print (" (%u already done)", state.done_at_start);
  g_print ("\n");
  print_cells (study);
  if (state.ok)
    {
      g_autofree char *directory = anot_study_get_directory (study);

      if (shard == NULL)
        g_print ("\nReport: %s/report.html (comparison.md, comparison.csv)\n", directory);
      else
        g_print ("\nShard %s done: anot-run merge OUT SHARD_DIR... joins the shards' %s directories\n",
                 shard, anot_study_get_name (study));
      status = ANOT_RUN_EXIT_OK;
    }
  else
    {
      g_printerr ("\nanot-run study: %s\n", state.error->message);
      if (g_error_matches (state.error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        status = state.stop_signal == SIGTERM ? ANOT_RUN_EXIT_TERMINATED : ANOT_RUN_EXIT_INTERRUPTED;
      else if (g_error_matches (state.error, ANOT_ERROR, ANOT_ERROR_BUDGET))
        status = ANOT_RUN_EXIT_BUDGET;
      else if (g_error_matches (state.error, ANOT_ERROR, ANOT_ERROR_INCOMPLETE))
        status = ANOT_RUN_EXIT_INCOMPLETE;
      else if (g_error_matches (state.error, ANOT_ERROR, ANOT_ERROR_BUSY) ||
               g_error_matches (state.error, ANOT_ERROR, ANOT_ERROR_CONFIG) ||
               g_error_matches (state.error, ANOT_ERROR, ANOT_ERROR_RESUME))
        status = ANOT_RUN_EXIT_USAGE;
      else
        status = ANOT_RUN_EXIT_FAILED;
    }
  g_clear_error (&state.error);
  g_main_loop_unref (state.loop);
  g_object_unref (state.cancellable);
  return status;
}
