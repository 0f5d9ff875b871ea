/* anot-run-run.c: `anot-run [run]`, run a method over a benchmark
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "anot-run.h"

#include <glib-unix.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

typedef struct
{
  char *method;
  char *data;
  char *candidates;
  gboolean scaling;
  char *compat;
  char *pool;
  char *shuffle;
  char *k;
  char *seed;
  char *runs;
  char *concurrency;
  char *request_timeout;
  char *limit;
  char *requests;
  char *groups;
  char *shard;
  char **method_options;
  char *out;
  char *name;
  gboolean force;
  char *resume;
  AnotRunLlmOptions llm;
  char *attack;
  char **attack_options;
  char *attack_restaurants;
  char *attack_reviews;
  char *attack_target_len;
  char *attack_compat;
  gboolean defense;
  gboolean list;
  gboolean help_options;
  gboolean version;
} RunOptions;

static void
run_options_clear (RunOptions *o)
{
  g_free (o->method);
  g_free (o->data);
  g_free (o->candidates);
  g_free (o->compat);
  g_free (o->pool);
  g_free (o->shuffle);
  g_free (o->k);
  g_free (o->seed);
  g_free (o->runs);
  g_free (o->concurrency);
  g_free (o->request_timeout);
  g_free (o->limit);
  g_free (o->requests);
  g_free (o->groups);
  g_free (o->shard);
  g_strfreev (o->method_options);
  g_free (o->out);
  g_free (o->name);
  g_free (o->resume);
  anot_run_llm_options_clear (&o->llm);
  g_free (o->attack);
  g_strfreev (o->attack_options);
  g_free (o->attack_restaurants);
  g_free (o->attack_reviews);
  g_free (o->attack_target_len);
  g_free (o->attack_compat);
}

typedef struct
{
  AnotExperiment *experiment;
  GMainLoop *loop;
  GCancellable *cancellable;
  gboolean ok;
  GError *error;
  gboolean tty;
  guint sigint_count;
  int stop_signal;              /* the first SIGINT or SIGTERM, 0 before */

  /* totals */
  guint n_ran;
  guint n_already_done;

  /* progress */
  guint run;
  guint n;
  guint total;
  guint done;
  guint done_at_start;
  gint64 started_us;
  gboolean line_shown;
  /* Batch mode opens every cell at once: progress is the run's. */
  gboolean whole_run;
  guint run_planned;
  gint64 run_started_us;
} RunState;

static char *
available_methods (void)
{
  g_auto(GStrv) names = anot_registry_list (anot_registry_get_default (),
                                            ANOT_METHOD_EXTENSION_POINT_NAME);

  if (names == NULL || names[0] == NULL)
    return g_strdup ("(none found; check ANOT_PLUGIN_PATH)");
  return g_strjoinv (", ", names);
}

static void
clear_progress_line (RunState *state)
{
  if (state->tty && state->line_shown)
    {
      fputs ("\r\033[K", stderr);
      fflush (stderr);
      state->line_shown = FALSE;
    }
}

/* The pace of the HTTP backends, for the progress line: the calls in
 * flight and the most allowed now (adapted without -j), and how long the
 * next call still waits for a rate limit.  Empty without HTTP backends. */
static char *
pace_text (AnotExperiment *experiment)
{
  AnotBackendRouter *router = anot_experiment_get_router (experiment);
  g_autoptr(GPtrArray) backends = NULL;
  guint in_flight = 0, limit = 0, wait_ms = 0;
  GString *text;

  if (router == NULL)
    return g_strdup ("");
  backends = anot_backend_router_list_http_backends (router);
  if (backends->len == 0)
    return g_strdup ("");
  for (guint i = 0; i < backends->len; i++)
    {
      AnotHttpBackend *backend = g_ptr_array_index (backends, i);

      in_flight += anot_http_backend_get_n_in_flight (backend);
      limit += anot_http_backend_get_concurrency_limit (backend);
      wait_ms = MAX (wait_ms, anot_http_backend_get_rate_limit_wait_ms (backend));
    }
  text = g_string_new (NULL);
  g_string_append_printf (text, "  calls %u/%u", in_flight, limit);
  if (wait_ms > 0)
    g_string_append_printf (text, "  rate limit: next call in %us", (wait_ms + 999) / 1000);
  return g_string_free (text, FALSE);
}

static void
show_progress (RunState *state)
{
  g_autofree char *pace = NULL;
  g_autoptr(AnotMetrics) metrics = NULL;
  g_autofree char *eta = NULL;
  guint new_done = state->done - state->done_at_start;
  const char *attack;

  if (!state->tty)
    return;

  if (state->whole_run)
    {
      guint done = state->n_ran + state->n_already_done;

      if (state->n_ran > 0 && done < state->run_planned)
        {
          double elapsed = (g_get_monotonic_time () - state->run_started_us) / 1e6;
          guint seconds = (guint) (elapsed / state->n_ran * (state->run_planned - done) + 0.5);

          eta = g_strdup_printf ("%u:%02u", seconds / 60, seconds % 60);
        }
      fprintf (stderr, "\r\033[K[batch] %u/%u requests  ETA %s", done, state->run_planned,
               eta ? eta : "--:--");
      fflush (stderr);
      state->line_shown = TRUE;
      return;
    }

  attack = anot_experiment_get_current_attack (state->experiment);
  metrics = attack ? anot_experiment_get_attack_metrics (state->experiment, attack, state->n, state->run)
                   : anot_experiment_get_metrics (state->experiment, state->n, state->run);
  if (new_done > 0 && state->done < state->total)
    {
      double elapsed = (g_get_monotonic_time () - state->started_us) / 1e6;
      guint seconds = (guint) (elapsed / new_done * (state->total - state->done) + 0.5);

      eta = g_strdup_printf ("%u:%02u", seconds / 60, seconds % 60);
    }
  else
    eta = g_strdup ("--:--");

  pace = pace_text (state->experiment);
  fprintf (stderr, "\r\033[K[%s%sN=%u run %u] %u/%u requests  Hits@1 %.2f  ETA %s%s",
           attack && strcmp (attack, "clean") != 0 ? attack : "",
           attack && strcmp (attack, "clean") != 0 ? " " : "",
           state->n, state->run, state->done, state->total,
           metrics ? anot_metrics_get_hits_at (metrics, 1) : 0.0, eta, pace);
  fflush (stderr);
  state->line_shown = TRUE;
}

static void
on_n_started (AnotExperiment *experiment,
              guint           run,
              guint           n,
              guint           n_requests,
              guint           n_done,
              RunState       *state)
{
  state->run = run;
  state->n = n;
  state->total = n_requests;
  state->done = n_done;
  state->done_at_start = n_done;
  state->n_already_done += n_done;
  state->started_us = g_get_monotonic_time ();
  show_progress (state);
}

static void
on_result (AnotExperiment *experiment,
           AnotResult     *result,
           RunState       *state)
{
  state->done++;
  state->n_ran++;
  show_progress (state);
}

/* The line also moves while no request finishes: a wait for a rate
 * limit, the calls in flight. */
static gboolean
on_progress_tick (gpointer user_data)
{
  RunState *state = user_data;

  if (state->line_shown)
    show_progress (state);
  return G_SOURCE_CONTINUE;
}

static void
on_n_finished (AnotExperiment *experiment,
               guint           run,
               guint           n,
               RunState       *state)
{
  clear_progress_line (state);
}

/* SIGINT (Ctrl-C) and SIGTERM (Slurm at a job's time limit or on
 * scancel, systemd, kill) stop the run the same way: no new request, the
 * ones in flight cancelled, everything written with "status":
 * "interrupted".  That takes well under Slurm's 30 s between SIGTERM and
 * SIGKILL: cancelled HTTP calls end at once and only files are written. */
static gboolean
on_stop_signal (RunState *state,
                int       signum)
{
  state->sigint_count++;
  if (state->sigint_count > 1)
    {
      /* A second signal: the user does not want to wait for requests in
       * flight.  Rows already written stay valid for --resume. */
      clear_progress_line (state);
      g_printerr ("anot-run: interrupted again, exiting without waiting\n");
      exit (state->stop_signal == SIGTERM ? ANOT_RUN_EXIT_TERMINATED : ANOT_RUN_EXIT_INTERRUPTED);
    }

  state->stop_signal = signum;
  clear_progress_line (state);
  if (signum == SIGTERM)
    g_printerr ("anot-run: terminated (SIGTERM); cancelling the requests in flight and writing "
                "the results\n");
  else
    g_printerr ("anot-run: interrupted; cancelling the requests in flight and writing "
                "the results (Ctrl-C again to quit at once)\n");
  g_cancellable_cancel (state->cancellable);
  return G_SOURCE_CONTINUE;
}

static gboolean
on_sigint (gpointer user_data)
{
  return on_stop_signal (user_data, SIGINT);
}

static gboolean
on_sigterm (gpointer user_data)
{
  return on_stop_signal (user_data, SIGTERM);
}

static void
on_run_done (GObject      *source,
             GAsyncResult *result,
             gpointer      user_data)
{
  RunState *state = user_data;

  state->ok = anot_experiment_run_finish (ANOT_EXPERIMENT (source), result, &state->error);
  g_main_loop_quit (state->loop);
}

static void
format_metric (GString *row,
               double  *values,
               guint    n_values)
{
  double mean, std;

  if (n_values == 0)
    {
      g_string_append_printf (row, "  %-13s", "--");
      return;
    }
  anot_stats_mean_std (values, n_values, &mean, &std);
  if (n_values > 1)
    {
      g_autofree char *text = g_strdup_printf ("%.3f±%.3f", mean, std);
      /* "±" is two bytes but one column. */
      g_string_append_printf (row, "  %-14s", text);
    }
  else
    g_string_append_printf (row, "  %-13.3f", mean);
}

static void
print_table (AnotExperiment *experiment,
             const char     *attack,
             gboolean        original_pool)
{
  const guint *ns;
  guint n_ns = 0;
  guint runs = anot_experiment_get_n_runs (experiment);
  static const guint hits_levels[] = { 1, 3, 5 };

  gboolean any_unscored = FALSE, any_shrunk = FALSE;

  ns = anot_experiment_get_candidate_counts (experiment, &n_ns);
  if (ns == NULL)
    return;

  /* Columns only a run that has them shows: requests the infrastructure
   * failed (not in the metrics), prompts shrunk to the context window. */
  for (guint i = 0; i < n_ns; i++)
    for (guint r = 1; r <= runs; r++)
      {
        g_autoptr(AnotMetrics) m = anot_experiment_get_attack_metrics (experiment, attack, ns[i], r);

        any_unscored |= m != NULL && anot_metrics_get_unscored (m) > 0;
        any_shrunk |= m != NULL && anot_metrics_get_shrunk_share (m) > 0;
      }

  {
    g_autoptr(GString) header = g_string_new (NULL);

    g_string_append_printf (header, "%-4s  %-8s", "N", "requests");
    if (any_unscored)
      g_string_append_printf (header, "  %-8s", "unscored");
    if (original_pool)
      g_string_append_printf (header, "  %-7s", "dropped");
    g_string_append_printf (header, "  %-13s  %-13s  %-13s  %-13s",
                            "Hits@1", "Hits@3", "Hits@5", "MRR");
    if (any_shrunk)
      g_string_append_printf (header, "  %-7s  %s", "shrunk", "reviews dropped");
    g_print ("\n%s\n", header->str);
  }

  for (guint i = 0; i < n_ns; i++)
    {
      g_autoptr(GString) row = g_string_new (NULL);
      g_autoptr(GPtrArray) per_run = g_ptr_array_new_with_free_func (g_object_unref);
      g_autofree double *values = g_new0 (double, runs + 1);
      guint n_requests = 0, n_unscored = 0;
      double shrunk = 0.0, dropped = 0.0;

      if (anot_experiment_is_skipped (experiment, ns[i]))
        {
          g_print ("%-4u  skipped: larger than the dataset\n", ns[i]);
          continue;
        }

      for (guint r = 1; r <= runs; r++)
        {
          AnotMetrics *m = anot_experiment_get_attack_metrics (experiment, attack, ns[i], r);

          if (m != NULL)
            n_unscored += anot_metrics_get_unscored (m);
          if (m != NULL && anot_metrics_get_total (m) > 0)
            {
              n_requests = MAX (n_requests, anot_metrics_get_total (m));
              shrunk += anot_metrics_get_shrunk_share (m);
              dropped += anot_metrics_get_dropped_share (m);
              g_ptr_array_add (per_run, m);
            }
          else
            g_clear_object (&m);
        }

      g_string_append_printf (row, "%-4u  %-8u", ns[i], n_requests);
      if (any_unscored)
        g_string_append_printf (row, "  %-8u", n_unscored);
      if (original_pool)
        g_string_append_printf (row, "  %-7u", anot_experiment_get_n_dropped (experiment, ns[i]));

      for (guint h = 0; h < G_N_ELEMENTS (hits_levels); h++)
        {
          guint n_values = 0;

          for (guint r = 0; r < per_run->len; r++)
            {
              AnotMetrics *m = g_ptr_array_index (per_run, r);

              if (hits_levels[h] <= anot_metrics_get_k (m))
                values[n_values++] = anot_metrics_get_hits_at (m, hits_levels[h]);
            }
          format_metric (row, values, n_values);
        }
      for (guint r = 0; r < per_run->len; r++)
        values[r] = anot_metrics_get_mrr (g_ptr_array_index (per_run, r));
      format_metric (row, values, per_run->len);
      if (any_shrunk && per_run->len > 0)
        g_string_append_printf (row, "  %5.1f%%   %5.1f%%", 100.0 * shrunk / per_run->len,
                                100.0 * dropped / per_run->len);

      g_print ("%s\n", row->str);
    }
  if (runs > 1)
    g_print ("(mean±std over %u runs)\n", runs);
  if (any_unscored)
    g_print ("(unscored: requests the infrastructure failed, left out of the metrics; "
             "anot-run --resume runs them again)\n");
  if (any_shrunk)
    g_print ("(shrunk: requests whose prompts were cut to the model's context window; "
             "reviews dropped: the mean share of reviews they left out)\n");
}

/* One table per attack; the heading only when there is an attack. */
static void
print_tables (AnotExperiment *experiment,
              gboolean        original_pool)
{
  g_auto(GStrv) attacks = anot_experiment_list_attacks (experiment);

  for (guint a = 0; attacks != NULL && attacks[a] != NULL; a++)
    {
      if (attacks[1] != NULL || strcmp (attacks[a], "clean") != 0)
        g_print ("\nAttack: %s%s", attacks[a],
                 anot_experiment_get_defense (experiment) ? " (defense mode)" : "");
      print_table (experiment, attacks[a], original_pool);
    }
}

/* One line with the LLM usage of every row so far, of every attack (what
 * the run paid, as the budget counts it), when there was any. */
static void
print_llm_usage (AnotExperiment *experiment)
{
  g_autoptr(AnotUsage) usage = anot_usage_new ();
  g_autoptr(AnotUsage) cancelled = anot_experiment_dup_cancelled_usage (experiment);
  g_auto(GStrv) attacks = anot_experiment_list_attacks (experiment);
  const guint *ns;
  guint n_ns = 0;

  ns = anot_experiment_get_candidate_counts (experiment, &n_ns);
  for (guint a = 0; attacks != NULL && attacks[a] != NULL; a++)
    for (guint i = 0; ns != NULL && i < n_ns; i++)
      for (guint run = 1; run <= anot_experiment_get_n_runs (experiment); run++)
        {
          g_autoptr(GPtrArray) rows = anot_experiment_get_attack_results (experiment, attacks[a], ns[i], run);

          for (guint r = 0; rows != NULL && r < rows->len; r++)
            anot_usage_merge (usage, anot_result_get_usage (g_ptr_array_index (rows, r)));
        }
  if (anot_usage_get_calls (usage) > 0 || anot_usage_get_cancelled_calls (cancelled) > 0)
    {
      g_autofree char *cost = anot_run_format_cost (anot_usage_get_cost_usd (usage), 4);
      g_autofree char *unpriced = NULL;

      if (!anot_usage_get_cost_known (usage))
        unpriced = g_strdup_printf (" (%" G_GUINT64_FORMAT " call%s without a price)",
                                    anot_usage_get_unpriced_calls (usage),
                                    anot_usage_get_unpriced_calls (usage) == 1 ? "" : "s");
      g_print ("LLM: %" G_GUINT64_FORMAT " calls, %" G_GUINT64_FORMAT " prompt + %" G_GUINT64_FORMAT
               " completion tokens, %s%s, %" G_GUINT64_FORMAT " retries",
               anot_usage_get_calls (usage), anot_usage_get_prompt_tokens (usage),
               anot_usage_get_completion_tokens (usage), cost, unpriced ? unpriced : "",
               anot_usage_get_retries (usage));
      /* Not in the cost: the provider may bill them, or not. */
      if (anot_usage_get_cancelled_calls (cancelled) > 0)
        {
          g_autofree char *cancelled_cost = anot_run_format_cost (anot_usage_get_cancelled_cost_usd (cancelled), 4);

          g_print (", %" G_GUINT64_FORMAT " cancelled in flight (up to %s more if billed)",
                   anot_usage_get_cancelled_calls (cancelled), cancelled_cost);
        }
      g_print ("\n");
    }
  if (anot_usage_get_calls (usage) > 0)
  {
    AnotBackendRouter *router = anot_experiment_get_router (experiment);
    g_autoptr(GPtrArray) backends = router ? anot_backend_router_list_http_backends (router) : NULL;

    /* What -j found: the figure to give it next time, if any. */
    for (guint i = 0; backends != NULL && i < backends->len; i++)
      {
        AnotHttpBackend *backend = g_ptr_array_index (backends, i);

        if (anot_http_backend_get_peak_concurrency (backend) > 0)
          g_print ("Calls in flight adapted to at most %u on %s (config.json: "
                   "concurrency_reached)\n",
                   anot_http_backend_get_peak_concurrency (backend),
                   anot_http_backend_get_base_url (backend));
      }
  }
  if (anot_experiment_get_batch_queue (experiment) != NULL &&
      (anot_usage_get_calls (usage) > 0 ||
       anot_batch_queue_get_n_submitted (anot_experiment_get_batch_queue (experiment)) > 0 ||
       anot_batch_queue_get_n_resumed (anot_experiment_get_batch_queue (experiment)) > 0))
    {
      AnotBatchQueue *queue = anot_experiment_get_batch_queue (experiment);

      g_print ("Batches: %u submitted (%" G_GUINT64_FORMAT " lines, %" G_GUINT64_FORMAT
               " retried), %u recorded by an interrupted run polled again\n",
               anot_batch_queue_get_n_submitted (queue), anot_batch_queue_get_n_lines_sent (queue),
               anot_batch_queue_get_n_lines_retried (queue), anot_batch_queue_get_n_resumed (queue));
      /* Left by requests whose deadline passed, or by Ctrl-C: the
       * provider finishes and bills them; a resume takes the answers. */
      if (anot_batch_queue_get_n_running (queue) > 0)
        g_print ("Batches: %u still running at the provider (%" G_GUINT64_FORMAT " lines, billed "
                 "when they end), recorded in %s/batches.jsonl: anot-run --resume %s takes their "
                 "answers without sending those calls again\n",
                 anot_batch_queue_get_n_running (queue), anot_batch_queue_get_n_lines_running (queue),
                 anot_experiment_get_directory (experiment),
                 anot_experiment_get_directory (experiment));
      if (anot_batch_queue_get_n_calls_shared (queue) > 0)
        g_print ("Batches: %" G_GUINT64_FORMAT " calls answered by the line of an identical "
                 "call, billed once and counted once (at no cost for them)\n",
                 anot_batch_queue_get_n_calls_shared (queue));
      if (anot_batch_queue_get_n_lines_lost_resent (queue) > 0)
        g_print ("Batches lost by the provider (HTTP 404): %" G_GUINT64_FORMAT " of their lines "
                 "sent once more (paid twice if the provider had answered them)\n",
                 anot_batch_queue_get_n_lines_lost_resent (queue));
    }
}

/* Most options of the command line are the experiment settings of the
 * same name (see AnotRunConfig); NULL is an option not given. */
static gboolean
config_set (AnotRunConfig  *config,
            const char     *key,
            const char     *value,
            GError        **error)
{
  return value == NULL || anot_run_config_set (config, key, value, error);
}

/* KEY=VALUE options: `PREFIX.KEY` settings. */
static gboolean
config_set_pairs (AnotRunConfig  *config,
                  const char     *option,
                  const char     *prefix,
                  char          **pairs,
                  GError        **error)
{
  for (guint i = 0; pairs != NULL && pairs[i] != NULL; i++)
    {
      const char *eq = strchr (pairs[i], '=');
      g_autofree char *key = NULL;

      if (eq == NULL || eq == pairs[i])
        {
          g_set_error (error, ANOT_ERROR, ANOT_ERROR_INVALID_ARGUMENT,
                       "invalid %s “%s”: expected KEY=VALUE", option, pairs[i]);
          return FALSE;
        }
      key = g_strdup_printf ("%s.%.*s", prefix, (int) (eq - pairs[i]), pairs[i]);
      if (!anot_run_config_set (config, key, eq + 1, error))
        return FALSE;
    }
  return TRUE;
}

/* The settings of a new experiment from the command line; @name and
 * @attack as the caller decided them (robustness changes both). */
static gboolean
config_from_options (AnotRunConfig  *config,
                     RunOptions     *o,
                     const char     *name,
                     const char     *attack,
                     gboolean        defense,
                     GError        **error)
{
  return config_set (config, "candidates", o->candidates, error) &&
         config_set (config, "scaling", o->scaling ? "true" : NULL, error) &&
         config_set (config, "compat", o->compat, error) &&
         config_set (config, "pool", o->pool, error) &&
         config_set (config, "shuffle", o->shuffle, error) &&
         config_set (config, "k", o->k, error) &&
         config_set (config, "seed", o->seed, error) &&
         config_set (config, "runs", o->runs, error) &&
         config_set (config, "concurrency", o->concurrency, error) &&
         config_set (config, "request-timeout", o->request_timeout, error) &&
         config_set (config, "limit", o->limit, error) &&
         config_set (config, "requests", o->requests, error) &&
         config_set (config, "groups", o->groups, error) &&
         config_set (config, "shard", o->shard, error) &&
         config_set (config, "out", o->out, error) &&
         config_set (config, "name", name, error) &&
         config_set (config, "force", o->force ? "true" : NULL, error) &&
         config_set (config, "attack", attack, error) &&
         config_set (config, "attack.restaurants", o->attack_restaurants, error) &&
         config_set (config, "attack.reviews", o->attack_reviews, error) &&
         config_set (config, "attack.target-len", o->attack_target_len, error) &&
         config_set (config, "attack-compat", o->attack_compat, error) &&
         config_set (config, "defense", defense ? "true" : NULL, error) &&
         config_set_pairs (config, "--attack-option", "attack", o->attack_options, error) &&
         anot_run_llm_options_to_config (&o->llm, config, TRUE, error) &&
         config_set_pairs (config, "--method-option", "method", o->method_options, error);
}

static gboolean
is_usage_error (const GError *error)
{
  return g_error_matches (error, ANOT_ERROR, ANOT_ERROR_INVALID_ARGUMENT) ||
         g_error_matches (error, ANOT_ERROR, ANOT_ERROR_CONFIG) ||
         g_error_matches (error, ANOT_ERROR, ANOT_ERROR_PLUGIN_NOT_FOUND) ||
         g_error_matches (error, ANOT_ERROR, ANOT_ERROR_RESUME);
}

int
anot_run_cmd_run (int    argc,
                  char **argv)
{
  return anot_run_run_experiment (argc, argv, NULL);
}

/* `anot-run run`, and the runs of `anot-run robustness` (@hooks). */
int
anot_run_run_experiment (int           argc,
                         char        **argv,
                         AnotRunHooks *hooks)
{
  RunOptions o = { 0 };
  RunState state = { 0 };
  g_autoptr(GOptionContext) context = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(AnotDataset) dataset = NULL;
  g_autoptr(AnotExperiment) experiment = NULL;
  g_autoptr(AnotRunConfig) config = NULL;
  g_autofree char *default_data = anot_run_default_data_dir ();
  g_autofree char *description = NULL;
  gboolean original_pool = FALSE;
  guint sigint_source = 0;
  guint progress_source = 0;
  guint sigterm_source = 0;
  int status = ANOT_RUN_EXIT_OK;
  const GOptionEntry entries[] = {
    { "method", 'm', 0, G_OPTION_ARG_STRING, &o.method,
      "Ranking method to run (see --list); required unless --resume", "NAME" },
    { "data", 'd', 0, G_OPTION_ARG_FILENAME, &o.data,
      "Benchmark directory (default: the demo benchmark)", "DIR" },
    { "candidates", 'n', 0, G_OPTION_ARG_STRING, &o.candidates,
      "Candidate pool size N (default 10)", "N" },
    { "scaling", 0, 0, G_OPTION_ARG_NONE, &o.scaling,
      "Sweep N over 10,20,30,40,50 (an N larger than the dataset is skipped)", NULL },
    { "compat", 0, 0, G_OPTION_ARG_STRING, &o.compat,
      "Like for like with the original framework's published runs: none (default) or original "
      "(its pools and attack reviews, its prompt wording where recorded, its answer parser, "
      "listwise in one call, anot as ANoT-HEAD; see docs/fidelity.md)", "MODE" },
    { "pool", 0, 0, G_OPTION_ARG_STRING, &o.pool,
      "Pool selection: sampled (gold + N-1 seeded random items, default) or original "
      "(the original framework's top-N by gold frequency; drops requests whose gold is outside)",
      "MODE" },
    { "shuffle", 0, 0, G_OPTION_ARG_STRING, &o.shuffle,
      "Candidate order shown to the method: none, middle or random (default)", "MODE" },
    { "k", 'k', 0, G_OPTION_ARG_STRING, &o.k,
      "Predictions kept per request; Hits@1..K are reported (default 5)", "K" },
    { "seed", 0, 0, G_OPTION_ARG_STRING, &o.seed,
      "Base seed (default 42); run R uses seed+R", "SEED" },
    { "runs", 0, 0, G_OPTION_ARG_STRING, &o.runs,
      "Number of runs, each in its own run_<R> directory (default 1)", "R" },
    { "concurrency", 'j', 0, G_OPTION_ARG_STRING, &o.concurrency,
      "Requests in flight at once, which fixes the calls in flight (default auto: up to 64 "
      "requests, the calls in flight per server adapt to its capacity, 8 in batch mode); "
      "does not change results", "C|auto" },
    { "request-timeout", 0, 0, G_OPTION_ARG_STRING, &o.request_timeout,
      "Deadline of one request in seconds (default 3600; 0: none; in batch mode none unless "
      "given): a method not done by then is cancelled and the run goes on; its request "
      "is the method's failure, or unscored (resume runs it) when one of its LLM calls "
      "still waited on the server", "SECONDS" },
    { "limit", 0, 0, G_OPTION_ARG_STRING, &o.limit,
      "Run only the first L requests (after --groups/--requests and, with --pool original, "
      "the requests its pools drop)", "L" },
    { "requests", 0, 0, G_OPTION_ARG_STRING, &o.requests,
      "Run only these requests, e.g. R01,R05", "IDS" },
    { "shard", 0, 0, G_OPTION_ARG_STRING, &o.shard,
      "Run only shard I of N of the requests × N × runs × attacks, into the usual layout; "
      "anot-run merge joins the N shard directories (one Slurm array task each)", "I/N" },
    { "groups", 0, 0, G_OPTION_ARG_STRING, &o.groups,
      "Run only these groups, e.g. G01,G04 or 1,4 or 1-3", "GROUPS" },
    { "method-option", 'O', 0, G_OPTION_ARG_STRING_ARRAY, &o.method_options,
      "Option passed to the method, METHOD.KEY=VALUE or format.KEY=VALUE (repeatable); "
      "an unknown key or a bad value stops the run before it starts", "KEY=VALUE" },
    { "help-options", 0, 0, G_OPTION_ARG_NONE, &o.help_options,
      "Show the options of --method (KEY, values, default, what it does) and exit", NULL },
    { "out", 'o', 0, G_OPTION_ARG_FILENAME, &o.out,
      "Results root directory (default: results)", "DIR" },
    { "name", 0, 0, G_OPTION_ARG_STRING, &o.name,
      "Experiment directory name (default: <method>_<dataset>)", "NAME" },
    { "force", 'f', 0, G_OPTION_ARG_NONE, &o.force,
      "Overwrite the results of an earlier experiment with the same name", NULL },
    { "resume", 'r', 0, G_OPTION_ARG_FILENAME, &o.resume,
      "Finish an interrupted experiment (the directory printed at its start); "
      "only --concurrency, --request-timeout, --data, --base-url, --cache, --offline, "
      "--context-tokens, --rpm, --tpm, the --batch options and the budgets may be given with "
      "it; answers already paid for are replayed from DIR/answers.jsonl", "DIR" },
    { "attack", 'a', 0, G_OPTION_ARG_STRING, &o.attack,
      "Attacks to run, comma-separated: names (see --list), clean, noise, injection, "
      "deception, all, both (default: clean; robustness: all)", "ATTACKS" },
    { "attack-option", 'A', 0, G_OPTION_ARG_STRING_ARRAY, &o.attack_options,
      "Attack parameter, set on every selected attack that has it (repeatable)", "KEY=VALUE" },
    { "attack-items", 0, 0, G_OPTION_ARG_STRING, &o.attack_restaurants,
      "Non-gold candidates each attack touches per request (default: all)", "R" },
    { "attack-restaurants", 0, 0, G_OPTION_ARG_STRING, &o.attack_restaurants,
      "--attack-items under its original name", "R" },
    { "attack-reviews", 0, 0, G_OPTION_ARG_STRING, &o.attack_reviews,
      "Reviews per attacked item for injection and heterogeneity (default 1)", "M" },
    { "attack-target-len", 0, 0, G_OPTION_ARG_STRING, &o.attack_target_len,
      "Target review length of heterogeneity (required for it)", "L" },
    { "attack-compat", 0, 0, G_OPTION_ARG_STRING, &o.attack_compat,
      "Form of the reviews attacks add: realistic (default: id, date, reviewer and votes "
      "like the dataset's own) or original (the original's labelled fake_001/sarcastic_* "
      "reviews dated 2024-01-01, to compare with its published numbers)", "MODE" },
    { "defense", 0, 0, G_OPTION_ARG_NONE, &o.defense,
      "Defense mode: LLM methods add defensive instructions to every call that shows the model "
      "data; a method that does not support it (--list says) is refused", NULL },
    { "list", 0, 0, G_OPTION_ARG_NONE, &o.list,
      "List the available methods and other plugins, then exit", NULL },
    { "version", 0, 0, G_OPTION_ARG_NONE, &o.version,
      "Print the version, then exit", NULL },
    G_OPTION_ENTRY_NULL
  };

  context = g_option_context_new (hooks && hooks->parameter_string ? hooks->parameter_string
                                  : "[run] — evaluate a ranking method on a benchmark");
  g_option_context_add_main_entries (context, entries, NULL);
  anot_run_add_plugin_option (context);
  anot_run_llm_options_add_entries (&o.llm, context);
  if (hooks != NULL && hooks->estimate)
    {
      const GOptionEntry estimate_entries[] = {
        { "json", 0, 0, G_OPTION_ARG_NONE, &hooks->json,
          "Print the estimate as JSON, for tools", NULL },
        { "completion-tokens", 0, 0, G_OPTION_ARG_STRING, &hooks->completion_tokens,
          "Answer length assumed for calls without max_tokens (default 300)", "N" },
        G_OPTION_ENTRY_NULL
      };

      g_option_context_add_main_entries (context, estimate_entries, NULL);
    }
  if (hooks != NULL && hooks->prompt)
    {
      const GOptionEntry prompt_entries[] = {
        { "request", 0, 0, G_OPTION_ARG_STRING, &hooks->request,
          "The request whose prompts to print (same as --requests ID)", "ID" },
        { "calls", 0, 0, G_OPTION_ARG_INT, &hooks->calls,
          "How many of the method's calls to print (default 1: the first; 0: all)", "K" },
        { "json", 0, 0, G_OPTION_ARG_NONE, &hooks->json,
          "Print the prompts as JSON, for tools", NULL },
        G_OPTION_ENTRY_NULL
      };

      g_option_context_add_main_entries (context, prompt_entries, NULL);
    }
  g_option_context_set_summary (context, hooks && hooks->summary ? hooks->summary :
    "Commands:\n"
    "  anot-run [run] --method NAME [OPTION…]   run a method over a benchmark (default)\n"
    "  anot-run study FILE [--estimate|--shard I/N]  a grid of methods × models × attacks\n"
    "  anot-run robustness --method NAME [OPTION…]  clean and attacked runs, compared\n"
    "  anot-run estimate --method NAME [OPTION…]    calls, tokens and cost, no LLM called\n"
    "  anot-run prompt --method NAME --request ID   the exact prompt(s) a method sends\n"
    "  anot-run attack --attack NAME --request ID   show what an attack does\n"
    "  anot-run formula --seed-file FILE|--formula FILE  a task over every item\n"
    "  anot-run validate [OPTION…]              check a benchmark's gold labels\n"
    "  anot-run compare DIR... [--baseline M]   methods compared with intervals\n"
    "  anot-run report DIR... -o report.html    a self-contained HTML report\n"
    "  anot-run merge OUT SHARD_DIR...          join the shards of one experiment\n"
    "  anot-run cache merge OUT CACHE...        combine response caches\n"
    "  anot-run list, anot-run --list           list methods and other plugins\n"
    "\n"
    "Results go to <out>/<name>/<attack>/run_<R>/ (config.json, results_<N>.jsonl,\n"
    "usage.jsonl, scaling_summary.json) and <out>/<name>/<attack>/summary.json;\n"
    "<attack> is clean without --attack; in batch mode <out>/<name>/batches.jsonl\n"
    "records the submitted batches, for --resume.");
  description = g_strdup_printf (
    "Without --data the demo benchmark is used (%s).\n"
    "\n"
    "LLM settings come from, in this order: the options above, the environment\n"
    "(ANOT_BACKEND, ANOT_MODEL, ANOT_BASE_URL, ANOT_<ROLE>_MODEL, ...), the file\n"
    "$XDG_CONFIG_HOME/anot/config.ini, defaults.  API keys come from OPENAI_API_KEY,\n"
    "ANTHROPIC_API_KEY or the file, never from the command line.  ANOT_DEBUG=1..3\n"
    "writes debug.log next to the results.  See docs/configuration.md.\n"
    "\n"
    "A model without a price (neither in the built-in table nor in [prices] of\n"
    "config.ini) is never given a default one: its calls' cost is recorded as\n"
    "unknown (null; \"unknown price\" on the LLM: line and in estimate), a warning\n"
    "names it at the start, and a budget with it is a usage error.\n"
    "\n"
    "%s"
    "\n"
    "See docs/running-experiments.md for the file formats.",
    default_data, hooks && hooks->exit_status ? hooks->exit_status :
    "Exit status:\n"
    "  0    the run completed\n"
    "  1    the run failed: the dataset could not be loaded, results could not be\n"
    "       written, every request failed, or the LLM server refused the key\n"
    "       (401/403) or the model (404): the run stops at the first, resumable\n"
    "  2    usage error: bad option or value, unknown method, empty selection,\n"
    "       an existing results directory without --resume or --force, one\n"
    "       another process is writing (it is named), or an LLM configuration\n"
    "       error such as no API key for a provider's own endpoint for a role\n"
    "       the method calls, or a budget with a model without a price (refused\n"
    "       before anything is written)\n"
    "  3    stopped by the budget (--max-cost, --max-cost-role): the requests in\n"
    "       flight finished, the results so far are written; continue with\n"
    "       anot-run --resume DIR --max-cost HIGHER\n"
    "  4    incomplete: every request ran, but the infrastructure (network, LLM\n"
    "       server, provider batch, cache) failed some; their rows keep the error,\n"
    "       the metrics leave them out (\"unscored\"); anot-run --resume DIR runs\n"
    "       them again\n"
    "  130  interrupted (Ctrl-C, SIGINT): the requests in flight are cancelled, the\n"
    "       results so far are written; continue with anot-run --resume DIR\n"
    "  143  terminated (SIGTERM, as Slurm sends at a job's time limit): the same\n"
    "       graceful stop as Ctrl-C; continue with anot-run --resume DIR\n");
  g_option_context_set_description (context, description);

  if (!g_option_context_parse (context, &argc, &argv, &error))
    {
      run_options_clear (&o);
      return anot_run_usage_error (NULL, "%s", error->message);
    }

  if (hooks != NULL && hooks->prompt)
    {
      if (hooks->request != NULL && o.requests != NULL)
        {
          run_options_clear (&o);
          return anot_run_usage_error (NULL, "--request and --requests select the same thing: give one");
        }
      if (hooks->request == NULL && o.requests == NULL)
        {
          run_options_clear (&o);
          return anot_run_usage_error (NULL, "which request? give --request ID");
        }
      if (hooks->calls < 0)
        {
          run_options_clear (&o);
          return anot_run_usage_error (NULL, "--calls: expected 0 (all) or more");
        }
      if (hooks->request != NULL)
        o.requests = g_strdup (hooks->request);
    }

  if (o.version)
    {
      g_print ("anot-run %s\n", ANOT_VERSION_STRING);
      run_options_clear (&o);
      return ANOT_RUN_EXIT_OK;
    }
  if (o.list)
    {
      char *list_argv[] = { (char *) "list", NULL };

      run_options_clear (&o);
      return anot_run_cmd_list (1, list_argv);
    }
  if (argc > 1)
    {
      status = anot_run_usage_error (NULL, "unexpected argument “%s”", argv[1]);
      run_options_clear (&o);
      return status;
    }
  if (o.help_options)
    {
      AnotRegistry *registry = anot_registry_get_default ();
      if (o.method == NULL ||
          anot_registry_lookup_type (registry, ANOT_METHOD_EXTENSION_POINT_NAME, o.method) == G_TYPE_INVALID)
        {
          g_autofree char *names = available_methods ();

          status = anot_run_usage_error (NULL, "--help-options needs a known --method (available: %s)",
                                         names);
          run_options_clear (&o);
          return status;
        }
      g_print ("Options of %s (-O %s.KEY=VALUE, the environment variable ANOT_<METHOD>_<KEY>,\n"
               "or KEY in [method %s] of config.ini):\n",
               o.method, o.method, o.method);
      anot_run_print_method_options (registry, o.method, "  ", "");
      {
        AnotPluginFlags flags = anot_registry_get_flags (registry, ANOT_METHOD_EXTENSION_POINT_NAME,
                                                         o.method);

        g_print ("\n%s %s the formatter's options (-O format.KEY=VALUE, see docs/methods.md);\n"
                 "--defense is %s for %s.\n",
                 o.method,
                 (flags & ANOT_PLUGIN_USES_FORMATTER) != 0 ? "writes its candidates with the formatter, so it also takes"
                                                           : "does not write its candidates with the formatter: it refuses",
                 (flags & ANOT_PLUGIN_SUPPORTS_DEFENSE) != 0 ? "supported" : "not supported", o.method);
      }
      run_options_clear (&o);
      return ANOT_RUN_EXIT_OK;
    }

  if (o.resume != NULL && hooks != NULL && hooks->robustness)
    {
      run_options_clear (&o);
      return anot_run_usage_error (NULL, "robustness does not resume: finish each experiment with "
                          "anot-run --resume DIR, then write the report with "
                          "anot-run robustness --report DIR");
    }
  if (o.resume != NULL)
    {
      if (o.method || o.candidates || o.scaling || o.pool || o.shuffle || o.k || o.seed ||
          o.runs || o.limit || o.requests || o.groups || o.shard || o.method_options || o.out ||
          o.name || o.force || anot_run_llm_options_choose_model (&o.llm) || o.attack || o.attack_options ||
          o.attack_restaurants || o.attack_reviews || o.attack_target_len || o.attack_compat ||
          o.defense)
        {
          run_options_clear (&o);
          return anot_run_usage_error (NULL, "--resume takes its options from the interrupted run; "
                              "only --concurrency, --request-timeout, --data, --base-url, --cache, --offline, "
                              "--context-tokens, --rpm, --tpm, the --batch options and the "
                              "budgets may be given with it");
        }
      if (o.data != NULL)
        {
          dataset = anot_dataset_load (o.data, NULL, &error);
          if (dataset == NULL)
            {
              g_printerr ("anot-run: cannot load the benchmark %s: %s\n", o.data, error->message);
              run_options_clear (&o);
              return ANOT_RUN_EXIT_FAILED;
            }
        }
      experiment = anot_experiment_new_for_resume (o.resume, dataset, &error);
      if (experiment == NULL)
        {
          g_printerr ("anot-run: %s\n", error->message);
          run_options_clear (&o);
          return g_error_matches (error, ANOT_ERROR, ANOT_ERROR_RESUME)
                 ? ANOT_RUN_EXIT_USAGE : ANOT_RUN_EXIT_FAILED;
        }
      g_clear_object (&dataset);
      g_object_get (experiment, "dataset", &dataset, NULL);

      /* What may change without changing the results. */
      config = anot_experiment_get_config (experiment);
      if (!config_set (config, "concurrency", o.concurrency, &error) ||
          !config_set (config, "request-timeout", o.request_timeout, &error) ||
          !anot_run_llm_options_to_config (&o.llm, config, FALSE, &error))
        {
          status = anot_run_usage_error (NULL, "%s", error->message);
          run_options_clear (&o);
          return status;
        }
      anot_experiment_set_config (experiment, config);
    }
  else
    {
      const char *data = o.data ? o.data : default_data;

      if (o.method == NULL)
        {
          g_autofree char *names = available_methods ();

          run_options_clear (&o);
          return anot_run_usage_error (NULL, "--method is required (available: %s)", names);
        }
      if (anot_registry_lookup_type (anot_registry_get_default (),
                                     ANOT_METHOD_EXTENSION_POINT_NAME,
                                     o.method) == G_TYPE_INVALID)
        {
          g_autofree char *names = available_methods ();

          status = anot_run_usage_error (NULL, "unknown method “%s” (available: %s)", o.method, names);
          run_options_clear (&o);
          return status;
        }
      if (hooks != NULL && hooks->defense_later &&
          (anot_registry_get_flags (anot_registry_get_default (), ANOT_METHOD_EXTENSION_POINT_NAME,
                                    o.method) & ANOT_PLUGIN_SUPPORTS_DEFENSE) == 0)
        {
          status = anot_run_usage_error (NULL, "--defense-too: the method %s does not support defense "
                                         "mode (anot-run --list says which do)", o.method);
          run_options_clear (&o);
          return status;
        }
      dataset = anot_dataset_load (data, NULL, &error);
      if (dataset == NULL)
        {
          g_printerr ("anot-run: cannot load the benchmark %s: %s\n", data, error->message);
          run_options_clear (&o);
          return ANOT_RUN_EXIT_FAILED;
        }

      {
        g_autofree char *name = NULL;
        g_autofree char *attacks = NULL;

        if (hooks != NULL && hooks->name_suffix != NULL)
          name = g_strconcat (o.name ? o.name : o.method, o.name ? "" : "_",
                              o.name ? "" : anot_dataset_get_name (dataset),
                              hooks->name_suffix, NULL);
        else
          name = g_strdup (o.name);
        if (hooks != NULL && hooks->robustness)
          attacks = g_strconcat ("clean,", o.attack ? o.attack : "all", NULL);
        else
          attacks = g_strdup (o.attack);

        config = anot_run_config_new ();
        if (!config_from_options (config, &o, name, attacks,
                                  o.defense || (hooks && hooks->defense), &error))
          {
            status = anot_run_usage_error (NULL, "%s", error->message);
            run_options_clear (&o);
            return status;
          }
      }
      experiment = anot_experiment_new (dataset, o.method);
      anot_experiment_set_config (experiment, config);
    }

  if (hooks != NULL && hooks->estimate)
    {
      status = anot_run_estimate_experiment (experiment, hooks);
      run_options_clear (&o);
      return status;
    }
  if (hooks != NULL && hooks->prompt)
    {
      status = anot_run_prompt_experiment (experiment, hooks);
      run_options_clear (&o);
      return status;
    }

  /* A missing API key is a usage error before anything is written. */
  if (!anot_experiment_check_api_keys (experiment, &error))
    {
      /* Unknown plugins: the message lists the available ones. */
      if (is_usage_error (error))
        status = anot_run_usage_error (NULL, "%s", error->message);
      else
        {
          g_printerr ("anot-run: %s\n", error->message);
          status = ANOT_RUN_EXIT_FAILED;
        }
      run_options_clear (&o);
      return status;
    }
  /* Before anything runs: a cost that will be unknown is said now. */
  {
    g_auto(GStrv) unpriced = anot_experiment_list_unpriced_models (experiment);

    anot_run_warn_unpriced (NULL, (const char * const *) unpriced);
  }

  {
    g_autofree char *method = NULL;
    const guint *ns;
    guint n_ns;
    g_autoptr(GString) ns_text = g_string_new (NULL);

    g_object_get (experiment, "method", &method, NULL);
    ns = anot_experiment_get_candidate_counts (experiment, &n_ns);
    for (guint i = 0; i < n_ns; i++)
      g_string_append_printf (ns_text, "%s%u", i ? "," : "", ns[i]);
    g_print ("%s %s on %s (N=%s, %u run%s): %u requests planned\n",
             o.resume ? "Resuming" : "Running", method, anot_dataset_get_name (dataset),
             ns_text->str, anot_experiment_get_n_runs (experiment),
             anot_experiment_get_n_runs (experiment) == 1 ? "" : "s",
             anot_experiment_get_n_planned (experiment));
    g_print ("Results directory: %s\n", anot_experiment_get_directory (experiment));
    {
      AnotCompatMode compat;

      g_object_get (experiment, "compat", &compat, NULL);
      if (compat == ANOT_COMPAT_MODE_ORIGINAL)
        g_print ("Compat: original (the original framework's pools, attack reviews, prompts "
                 "where recorded and parser; see docs/fidelity.md)\n");
    }
    {
      g_auto(GStrv) attacks = anot_experiment_list_attacks (experiment);

      if (attacks != NULL && (attacks[1] != NULL || strcmp (attacks[0], "clean") != 0))
        {
          g_autofree char *list = g_strjoinv (", ", attacks);

          g_print ("Attacks: %s%s\n", list,
                   anot_experiment_get_defense (experiment) ? " (defense mode)" : "");
        }
    }
    if (anot_experiment_get_batch_queue (experiment) != NULL)
      {
        g_autoptr(AnotRunConfig) effective = anot_experiment_get_config (experiment);
        /* auto (0) is 8 requests in batch mode. */
        guint concurrency = anot_run_config_get_concurrency (effective)
                            ? anot_run_config_get_concurrency (effective) : 8;
        guint planned = anot_experiment_get_n_planned (experiment);

        /* At most --concurrency requests are in flight, whatever their
         * cells: that bounds what one batch can gather. */
        if (concurrency < planned)
          g_print ("Batch mode: at most %u requests in flight, so a batch holds the calls of at "
                   "most %u of the %u requests; -j %u puts them all in each batch\n",
                   concurrency, concurrency, planned, planned);
      }
    if (hooks != NULL)
      hooks->directory = g_strdup (anot_experiment_get_directory (experiment));
    fflush (stdout);
  }

  state.experiment = experiment;
  state.whole_run = anot_experiment_get_batch_queue (experiment) != NULL;
  state.run_planned = anot_experiment_get_n_planned (experiment);
  state.run_started_us = g_get_monotonic_time ();
  state.loop = g_main_loop_new (NULL, FALSE);
  state.cancellable = g_cancellable_new ();
  state.tty = isatty (fileno (stderr));

  g_signal_connect (experiment, "n-started", G_CALLBACK (on_n_started), &state);
  g_signal_connect (experiment, "result", G_CALLBACK (on_result), &state);
  g_signal_connect (experiment, "n-finished", G_CALLBACK (on_n_finished), &state);
  sigint_source = g_unix_signal_add (SIGINT, on_sigint, &state);
  sigterm_source = g_unix_signal_add (SIGTERM, on_sigterm, &state);

  if (state.tty)
    progress_source = g_timeout_add_seconds (1, on_progress_tick, &state);
  anot_experiment_run_async (experiment, state.cancellable, on_run_done, &state);
  g_main_loop_run (state.loop);
  if (progress_source != 0)
    g_source_remove (progress_source);

  g_source_remove (sigint_source);
  g_source_remove (sigterm_source);
  g_signal_handlers_disconnect_by_data (experiment, &state);
  clear_progress_line (&state);

  {
    AnotPoolMode mode;

    g_object_get (experiment, "pool-mode", &mode, NULL);
    original_pool = mode == ANOT_POOL_MODE_ORIGINAL;
  }

  if (g_error_matches (state.error, ANOT_ERROR, ANOT_ERROR_BUSY))
    {
      /* Refused before anything ran: nothing to report but the holder. */
      g_printerr ("anot-run: %s\n", state.error->message);
      g_clear_error (&state.error);
      g_main_loop_unref (state.loop);
      g_object_unref (state.cancellable);
      run_options_clear (&o);
      return ANOT_RUN_EXIT_USAGE;
    }

  g_print ("Ran %u request%s", state.n_ran, state.n_ran == 1 ? "" : "s");
  if (state.n_already_done > 0)
    g_print (" (%u already done)", state.n_already_done);
  g_print ("\n");
  print_llm_usage (experiment);

  if (state.ok)
    {
      print_tables (experiment, original_pool);
      g_print ("\nResults: %s\n", anot_experiment_get_directory (experiment));
      status = ANOT_RUN_EXIT_OK;
    }
  else if (g_error_matches (state.error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    {
      print_tables (experiment, original_pool);
      g_printerr ("\nanot-run: %s\n", state.error->message);
      status = state.stop_signal == SIGTERM ? ANOT_RUN_EXIT_TERMINATED : ANOT_RUN_EXIT_INTERRUPTED;
    }
  else if (g_error_matches (state.error, ANOT_ERROR, ANOT_ERROR_INCOMPLETE))
    {
      print_tables (experiment, original_pool);
      g_printerr ("\nanot-run: %s\n", state.error->message);
      status = ANOT_RUN_EXIT_INCOMPLETE;
    }
  else if (g_error_matches (state.error, ANOT_ERROR, ANOT_ERROR_BUDGET))
    {
      print_tables (experiment, original_pool);
      g_printerr ("\nanot-run: %s\n", state.error->message);
      status = ANOT_RUN_EXIT_BUDGET;
    }
  else if (is_usage_error (state.error))
    {
      status = anot_run_usage_error (NULL, "%s", state.error->message);
    }
  else
    {
      if (g_error_matches (state.error, ANOT_ERROR, ANOT_ERROR_METHOD_FAILED))
        print_tables (experiment, original_pool);
      g_printerr ("anot-run: %s\n", state.error->message);
      g_printerr ("Results: %s\n", anot_experiment_get_directory (experiment));
      status = ANOT_RUN_EXIT_FAILED;
    }

  g_clear_error (&state.error);
  g_main_loop_unref (state.loop);
  g_object_unref (state.cancellable);
  run_options_clear (&o);
  return status;
}
