/* anot-experiment-scheduler.c: running an experiment's requests
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Cells (attack, run, N) are opened and finished in plan order, up to
 * `concurrency` requests in flight on the task's main context.  A cell is
 * opened when the cells before it have no request left to start: in direct
 * mode only once they are finished (one cell at a time), in batch mode at
 * once, so that a batch gathers the requests of every cell rather than
 * one cell's, and a sweep does not wait for one batch per cell in turn.
 * Each row is written and flushed to its cell's file as its request
 * finishes; a cell's files are rewritten in order when it and every cell
 * before it are done, or the run stops.
 *
 * Every request has a deadline (`request-timeout`).  At the deadline its
 * row is written as the method's failure (the infrastructure's when one of
 * its LLM calls is still out: unscored), its own cancellable is
 * cancelled and its slot is given to the next request: the job is
 * abandoned, so a method that never finishes, even cancelled, costs its
 * request and not the run.  If it calls back after all, the call is only
 * freed.  When the run is cancelled (Ctrl-C), each request in flight gets
 * CANCEL_GRACE_MS to honour it; one that does not is abandoned without a
 * row (a resume runs it again), so the run still stops.
 */
#include "config.h"

#include "anot-experiment-private.h"

#include "anot-method-context-private.h"

#include "anot-enum-types.h"
#include "anot-error.h"
#include "anot-method-context.h"
#include "anot-results-writer-private.h"
#include "anot-trial.h"

#include <string.h>

/* How long a cancelled run waits for a method to honour the cancellation
 * of a request before it abandons it. */
#define CANCEL_GRACE_MS 5000

typedef struct
{
  AnotExperiment *self;
  Cell *cell;
  AnotTrial *trial;
  AnotMethodContext *context;
  BudgetHold *hold;          /* of the budgets, released when its row is written */
  GCancellable *cancellable;      /* this request's: the run's, or its deadline */
  GCancellable *run_cancellable;  /* the run's, which cancels it */
  gulong run_cancelled_id;
  GSource *deadline;
  guint timeout;                  /* seconds */
  gboolean abandoned;             /* its row was written at the deadline */
} Job;

/* The requests in flight at once: -j, or without it (auto) enough for
 * the adaptive concurrency of the backends to reach their cap; batch
 * mode keeps the former default. */
guint
anot_experiment_requests_in_flight (AnotExperiment *self)
{
  if (self->settings->concurrency > 0)
    return (guint) self->settings->concurrency;
  return self->batch_queue != NULL ? ANOT_EXPERIMENT_BATCH_REQUESTS_IN_FLIGHT
                                   : ANOT_EXPERIMENT_AUTO_REQUESTS_IN_FLIGHT;
}

static void experiment_pump (AnotExperiment *self);

/* How long a request's slot waits, once it is cancelled, for the calls it
 * had out to come back cancelled: those that were on the wire are
 * journaled as cancelled in flight (the provider may bill them), and the
 * run's files and summary count them only if they came back first.  They
 * do within a few turns of the main loop; this bounds a backend that does
 * not honour the cancellation. */
#define DRAIN_MS 2000
#define DRAIN_POLL_MS 10

typedef struct
{
  AnotExperiment *self;
  Cell *cell;
  AnotMethodContext *context;
  gint64 until_us;
} Drain;

static gboolean
on_drain_tick (gpointer user_data)
{
  Drain *drain = user_data;
  AnotExperiment *self = drain->self;

  if (anot_method_context_get_calls_pending (drain->context) > 0 &&
      g_get_monotonic_time () < drain->until_us)
    return G_SOURCE_CONTINUE;
  self->in_flight--;
  drain->cell->in_flight--;
  g_object_unref (drain->context);
  g_free (drain);
  experiment_pump (self);
  g_object_unref (self);
  return G_SOURCE_REMOVE;
}

/* The request of @context gives its slot back: at once, unless it was
 * cancelled with calls still out (see DRAIN_MS). */
static void
release_slot (AnotExperiment    *self,
              Cell              *cell,
              AnotMethodContext *context,
              GCancellable      *cancellable)
{
  Drain *drain;
  GSource *source;

  if (!g_cancellable_is_cancelled (cancellable) ||
      anot_method_context_get_calls_pending (context) == 0)
    {
      self->in_flight--;
      cell->in_flight--;
      return;
    }
  drain = g_new0 (Drain, 1);
  drain->self = g_object_ref (self);
  drain->cell = cell;
  drain->context = g_object_ref (context);
  drain->until_us = g_get_monotonic_time () + DRAIN_MS * G_TIME_SPAN_MILLISECOND;
  source = g_timeout_source_new (DRAIN_POLL_MS);
  g_source_set_callback (source, on_drain_tick, drain, NULL);
  g_source_set_static_name (source, "[anot] cancelled calls drain");
  g_source_attach (source, g_task_get_context (self->task));
  g_source_unref (source);
}

static void
job_free (Job *job)
{
  /* After its row (if any) counted what it spent. */
  if (job->hold != NULL)
    anot_experiment_budget_release (job->self, job->hold);
  if (job->deadline != NULL)
    g_source_destroy (job->deadline);
  g_clear_pointer (&job->deadline, g_source_unref);
  /* Not g_cancellable_disconnect(), which waits for the handler: a method
   * may finish at once when cancelled, inside that handler. */
  if (job->run_cancelled_id != 0)
    g_signal_handler_disconnect (job->run_cancellable, job->run_cancelled_id);
  g_clear_object (&job->run_cancellable);
  g_clear_object (&job->cancellable);
  g_clear_object (&job->trial);
  g_clear_object (&job->context);
  g_clear_object (&job->self);
  g_free (job);
}

static char *
format_error (const GError *error)
{
  g_autofree char *prefix = NULL;
  g_autofree char *message = NULL;
  GType enum_type = G_TYPE_INVALID;

  if (error->domain == ANOT_ERROR)
    enum_type = ANOT_TYPE_ERROR;
  else if (error->domain == G_IO_ERROR)
    enum_type = G_TYPE_IO_ERROR_ENUM;

  if (enum_type != G_TYPE_INVALID)
    {
      g_autoptr(GEnumClass) klass = g_type_class_ref (enum_type);
      GEnumValue *value = g_enum_get_value (klass, error->code);

      if (value != NULL)
        prefix = g_strdup (value->value_name);
    }
  if (prefix == NULL)
    prefix = g_strdup_printf ("%s-%d", g_quark_to_string (error->domain), error->code);

  /* The original keeps the first 200 characters of the message. */
  if (g_utf8_validate (error->message, -1, NULL))
    message = g_utf8_substring (error->message, 0,
                                MIN (200, g_utf8_strlen (error->message, -1)));
  else
    message = g_strndup (error->message, 200);

  return g_strdup_printf ("%s: %s", prefix, message);
}

/* How much the method shrank the request's prompts to fit the model's
 * context window, as the LLM methods' traces record it (llm-common:
 * "truncation_retries", and per prompt under "formatting" the reviews it
 * would hold and those left out); nothing when no prompt was shrunk. */
static void
result_set_context_fit (AnotResult  *result,
                        AnotRanking *ranking)
{
  JsonNode *trace = ranking ? anot_ranking_get_trace (ranking) : NULL;
  JsonObject *object, *formatting;
  JsonObjectIter iter;
  const char *phase;
  JsonNode *node;
  gint64 dropped = 0, total = 0, calls = 0;

  if (trace == NULL || !JSON_NODE_HOLDS_OBJECT (trace))
    return;
  object = json_node_get_object (trace);
  if (json_object_get_int_member_with_default (object, "truncation_retries", 0) <= 0 ||
      !json_object_has_member (object, "formatting") ||
      !JSON_NODE_HOLDS_OBJECT (json_object_get_member (object, "formatting")))
    return;
  formatting = json_object_get_object_member (object, "formatting");
  json_object_iter_init (&iter, formatting);
  while (json_object_iter_next (&iter, &phase, &node))
    {
      JsonObject *stats = JSON_NODE_HOLDS_OBJECT (node) ? json_node_get_object (node) : NULL;
      gint64 phase_dropped;

      if (stats == NULL)
        continue;
      phase_dropped = json_object_get_int_member_with_default (stats, "reviews_dropped", 0);
      total += json_object_get_int_member_with_default (stats, "reviews_total", 0);
      dropped += phase_dropped;
      if (phase_dropped > 0)
        calls++;
    }
  if (calls > 0)
    anot_result_set_context_fit (result, (guint) MIN (dropped, G_MAXUINT),
                                 (guint) MIN (total, G_MAXUINT), (guint) MIN (calls, G_MAXUINT));
}

/* The row of a request: the ranking when there is one, the error when it
 * failed (@infrastructure: for a reason that is not the method's, which
 * leaves the row unscored even beside a ranking the method made without
 * some of its calls). */
static AnotResult *
result_from_ranking (AnotExperiment    *self,
                     Job               *job,
                     AnotRanking       *ranking,
                     const GError      *error,
                     gboolean           infrastructure)
{
  AnotPool *pool = anot_trial_get_pool (job->trial);
  AnotRequest *request = anot_pool_get_request (pool);
  guint n = anot_pool_get_size (pool);
  g_autoptr(GArray) shuffled = g_array_new (FALSE, FALSE, sizeof (guint));
  g_autoptr(GArray) preds = g_array_new (FALSE, FALSE, sizeof (guint));
  g_autofree gboolean *seen = g_new0 (gboolean, n);
  g_autofree char *raw_response = NULL;
  g_autofree char *error_message = NULL;
  AnotResult *result;

  if (ranking != NULL)
    {
      for (guint r = 0; r < anot_ranking_get_length (ranking) && shuffled->len < self->settings->k; r++)
        {
          guint index = anot_ranking_get_index (ranking, r);
          guint one_based, pool_one_based;

          /* Like the original's parser: out-of-range and repeated
           * positions are dropped, the first k distinct ones kept. */
          if (index >= n || seen[index])
            continue;
          seen[index] = TRUE;
          one_based = index + 1;
          pool_one_based = anot_pool_shuffled_to_pool (pool, index) + 1;
          g_array_append_val (shuffled, one_based);
          g_array_append_val (preds, pool_one_based);
        }

      if (anot_ranking_get_raw_response (ranking) != NULL)
        raw_response = g_strdup (anot_ranking_get_raw_response (ranking));
      else
        {
          GString *text = g_string_new (NULL);

          /* Methods without text output answer like the original's ANoT
           * and Listwise: "3, 1, 5". */
          for (guint i = 0; i < shuffled->len; i++)
            g_string_append_printf (text, "%s%u", i ? ", " : "",
                                    g_array_index (shuffled, guint, i));
          raw_response = g_string_free (text, FALSE);
        }
    }
  if (error != NULL)
    error_message = format_error (error);

  result = anot_result_new_internal (anot_request_get_id (request),
                                     anot_request_get_group (request),
                                     job->cell->n, job->cell->run,
                                     (const guint *) preds->data, preds->len,
                                     (const guint *) shuffled->data, shuffled->len,
                                     anot_pool_get_gold_position (pool),
                                     anot_pool_get_shuffled_gold_position (pool) + 1,
                                     anot_request_get_gold_item_id (request),
                                     anot_method_context_get_usage (job->context),
                                     raw_response, error_message);
  anot_result_set_uses_truth (result, self->uses_truth);
  if (ranking != NULL)
    anot_result_set_cut_by (result, anot_ranking_get_cut_by (ranking));
  /* After the method answered, never before: the clean pool's items. */
  anot_result_explain (result, self->validator, request,
                       preds->len > 0 ? anot_pool_get_item (pool, g_array_index (preds, guint, 0) - 1) : NULL,
                       anot_dataset_lookup_item (self->dataset, anot_request_get_gold_item_id (request)));
  if (error_message != NULL)
    anot_result_set_error_class (result, infrastructure);
  result_set_context_fit (result, ranking);
  return result;
}

static void
record_result (AnotExperiment *self,
               Cell           *cell,
               AnotResult     *result)
{
  g_autoptr(JsonNode) node = anot_result_to_json (result);
  g_autofree char *line = anot_results_node_to_line (node);
  g_autofree char *with_newline = g_strconcat (line, "\n", NULL);

  if (cell->append != NULL && self->fatal == NULL)
    {
      /* Written and flushed now, so a kill loses only requests in flight. */
      if (!g_output_stream_write_all (cell->append, with_newline, strlen (with_newline),
                                      NULL, NULL, &self->fatal) ||
          !g_output_stream_flush (cell->append, NULL, &self->fatal))
        {
          g_prefix_error (&self->fatal, "Cannot write results: ");
        }
    }
  /* Finished, but this write or an earlier one (its trace's, another
   * row's) failed: the row is kept out of the cell's files, so that the
   * resume runs the request again, from the answers the journal kept. */
  if (self->fatal != NULL && cell->append != NULL)
    {
      self->n_unwritten++;
      return;
    }

  g_hash_table_insert (cell->rows, g_strdup (anot_result_get_request_id (result)),
                       g_object_ref (result));
  anot_experiment_budget_add_result (self, result);

  g_signal_emit (self, anot_experiment_signals[SIGNAL_RESULT], 0, result);
}

/* Appends the method's trace of one request to trace_<N>.jsonl, flushed like
 * the results row; a resumed run appends the traces of the requests it runs. */
static void
record_trace (AnotExperiment *self,
              Job            *job,
              AnotRanking    *ranking)
{
  g_autoptr(JsonBuilder) builder = NULL;
  g_autoptr(JsonNode) node = NULL;
  g_autofree char *line = NULL;
  g_autofree char *with_newline = NULL;
  g_autoptr(JsonNode) trace = NULL;
  guint replaced;

  if (ranking == NULL || job->cell->trace_append == NULL || self->fatal != NULL)
    return;
  replaced = anot_method_context_get_replaced_characters (job->context);
  if (anot_ranking_get_trace (ranking) != NULL)
    trace = json_node_copy (anot_ranking_get_trace (ranking));
  else if (replaced > 0)
    {
      trace = json_node_new (JSON_NODE_OBJECT);
      json_node_take_object (trace, json_object_new ());
    }
  else
    return;
  /* Every LLM method's answers went through its context: the count is
   * the core's, whatever trace the method keeps.  A trace that is not an
   * object gets it beside it in the line. */
  if (replaced > 0 && JSON_NODE_HOLDS_OBJECT (trace))
    json_object_set_int_member (json_node_get_object (trace), "replaced_characters", replaced);

  builder = json_builder_new ();
  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "request_id");
  json_builder_add_string_value (builder, anot_method_context_get_request_id (job->context));
  json_builder_set_member_name (builder, "n_candidates");
  json_builder_add_int_value (builder, job->cell->n);
  json_builder_set_member_name (builder, "run");
  json_builder_add_int_value (builder, job->cell->run);
  json_builder_set_member_name (builder, "method");
  json_builder_add_string_value (builder, self->method_name);
  if (replaced > 0 && !JSON_NODE_HOLDS_OBJECT (trace))
    {
      json_builder_set_member_name (builder, "replaced_characters");
      json_builder_add_int_value (builder, replaced);
    }
  json_builder_set_member_name (builder, "trace");
  json_builder_add_value (builder, g_steal_pointer (&trace));
  json_builder_end_object (builder);
  node = json_builder_get_root (builder);

  line = anot_results_node_to_line (node);
  with_newline = g_strconcat (line, "\n", NULL);
  if (!g_output_stream_write_all (job->cell->trace_append, with_newline, strlen (with_newline),
                                  NULL, NULL, &self->fatal) ||
      !g_output_stream_flush (job->cell->trace_append, NULL, &self->fatal))
    g_prefix_error (&self->fatal, "Cannot write traces: ");
}

static void
debug_result (AnotExperiment *self,
              Job            *job,
              AnotResult     *result)
{
  AnotUsage *usage = anot_result_get_usage (result);

  if (job->cell->debug_log == NULL)
    return;
  if (anot_result_get_error_message (result) != NULL)
    anot_method_context_debug (job->context, ANOT_DEBUG_LEVEL_SUMMARY, "RUN",
                               "N=%u failed: %s", job->cell->n,
                               anot_result_get_error_message (result));
  else
    {
      /* Unknown when a call's model had no price. */
      g_autofree char *cost = anot_usage_get_cost_known (usage)
                              ? g_strdup_printf ("$%.6f", anot_usage_get_cost_usd (usage))
                              : g_strdup ("unknown price");

      anot_method_context_debug (job->context, ANOT_DEBUG_LEVEL_SUMMARY, "RUN",
                                 "N=%u gold rank %u; %" G_GUINT64_FORMAT " LLM calls, %"
                                 G_GUINT64_FORMAT " tokens, %s, %" G_GUINT64_FORMAT " retries",
                                 job->cell->n, anot_result_get_gold_rank (result),
                                 anot_usage_get_calls (usage),
                                 anot_usage_get_prompt_tokens (usage) +
                                 anot_usage_get_completion_tokens (usage),
                                 cost, anot_usage_get_retries (usage));
    }
}

static void
stop_run (AnotExperiment *self,
          const GError   *error)
{
  if (self->fatal != NULL)
    return;
  self->fatal = g_error_new (error->domain, error->code,
                             "%s\nThe run stopped at the first such error; once it is fixed, "
                             "continue with: anot-run --resume %s",
                             error->message, self->directory);
  g_cancellable_cancel (self->jobs_cancellable);
}

static void
on_rank_done (GObject      *source,
              GAsyncResult *res,
              gpointer      user_data)
{
  Job *job = user_data;
  AnotExperiment *self = job->self;
  g_autoptr(GError) error = NULL;
  g_autoptr(AnotRanking) ranking = NULL;

  const GError *infrastructure;

  ranking = anot_method_rank_finish (ANOT_METHOD (source), res, &error);

  if (job->abandoned)
    {
      /* Finished after its deadline: its row says it did not. */
      job_free (job);
      return;
    }

  /* The method's own error may wrap a call the infrastructure failed
   * ("plan failed"), and a method may rank without a call that failed:
   * the context saw every call. */
  infrastructure = ranking == NULL && anot_error_is_infrastructure (error)
                   ? error : anot_method_context_get_infrastructure_error (job->context);

  /* An answer that could not be journaled would be paid again by a
   * resume: nothing more is sent. */
  if (self->journal != NULL && anot_call_journal_get_error (self->journal) != NULL &&
      self->fatal == NULL)
    {
      self->fatal = g_error_copy (anot_call_journal_get_error (self->journal));
      g_cancellable_cancel (self->jobs_cancellable);
    }

  if (infrastructure != NULL && anot_error_stops_run (infrastructure))
    stop_run (self, infrastructure);
  else if (ranking == NULL &&
           (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED) ||
            g_cancellable_is_cancelled (self->jobs_cancellable)))
    {
      /* Not finished: no row, so a resume runs it again. */
    }
  else
    {
      g_autoptr(AnotResult) result = NULL;

      const GError *refused = anot_method_context_get_gate_error (job->context);

      /* A call not sent for the budget: whatever the method made of the
       * others is not its result. */
      if (refused != NULL && infrastructure == NULL)
        {
          g_clear_error (&error);
          error = g_error_copy (refused);
        }
      if (ranking == NULL && error == NULL)
        g_set_error (&error, ANOT_ERROR, ANOT_ERROR_METHOD_FAILED,
                     "The method returned no ranking and no error");
      if (infrastructure != NULL && error == NULL)
        error = g_error_copy (infrastructure);
      result = result_from_ranking (self, job, ranking, error, infrastructure != NULL);
      if (refused != NULL && infrastructure == NULL)
        anot_result_set_budget_class (result);
      record_trace (self, job, ranking);
      record_result (self, job->cell, result);
      if (job->cell->replaced != NULL &&
          g_hash_table_contains (job->cell->replaced, anot_result_get_request_id (result)))
        anot_experiment_budget_remove_usage (self, anot_method_context_get_replayed_usage (job->context));
      debug_result (self, job, result);
    }

  release_slot (self, job->cell, job->context, job->cancellable);
  g_object_ref (self);
  job_free (job);
  experiment_pump (self);
  g_object_unref (self);
}

/* The request's deadline passed: its row is the method's failure (or the
 * infrastructure's, when one of its calls is still out), the method is
 * asked to stop, and the run goes on without waiting for it. */
static gboolean
on_deadline (gpointer user_data)
{
  Job *job = user_data;
  g_autoptr(AnotExperiment) self = g_object_ref (job->self);
  g_autoptr(GCancellable) cancellable = g_object_ref (job->cancellable);

  if (g_cancellable_is_cancelled (self->jobs_cancellable))
    {
      /* The run was cancelled and the method ignored it: no row, a
       * resume runs the request again. */
      anot_method_context_debug (job->context, ANOT_DEBUG_LEVEL_SUMMARY, "RUN",
                                 "N=%u: the method did not stop %u ms after the run was "
                                 "cancelled; abandoned", job->cell->n, CANCEL_GRACE_MS);
    }
  else
    {
      g_autoptr(AnotResult) result = NULL;
      g_autoptr(GError) error = NULL;
      guint pending = anot_method_context_get_calls_pending (job->context);

      /* Late because a call still waits on the server (in flight,
       * retrying, queued for or inside a batch): the infrastructure's
       * failure, unscored, and a resume runs the request again (a batch
       * the call waits in is recorded and polled then, not paid again). */
      if (pending > 0)
        g_set_error (&error, ANOT_ERROR, ANOT_ERROR_LLM_TIMEOUT,
                     "the request's deadline of %u s (--request-timeout) passed while %u of "
                     "its LLM calls still waited on the server (sent, retrying or in a "
                     "batch); it was cancelled, and a resume runs it again", job->timeout,
                     pending);
      else
        g_set_error (&error, ANOT_ERROR, ANOT_ERROR_METHOD_TIMEOUT,
                     "the method did not finish the request within its deadline of %u s "
                     "(--request-timeout); it was cancelled", job->timeout);
      result = result_from_ranking (self, job, NULL, error, pending > 0);
      record_result (self, job->cell, result);
      debug_result (self, job, result);
    }

  job->abandoned = TRUE;
  g_clear_pointer (&job->deadline, g_source_unref);
  /* Nothing more to cancel: the run may be cancelled, or end, while the
   * method still holds the call. */
  if (job->run_cancelled_id != 0)
    g_signal_handler_disconnect (job->run_cancellable, job->run_cancelled_id);
  job->run_cancelled_id = 0;
  /* Its row counted what it spent. */
  if (job->hold != NULL)
    anot_experiment_budget_release (self, g_steal_pointer (&job->hold));

  /* Last: a method that honours it may call back at once, freeing @job. */
  {
    g_autoptr(AnotMethodContext) context = g_object_ref (job->context);
    Cell *cell = job->cell;

    g_cancellable_cancel (cancellable);
    release_slot (self, cell, context, cancellable);
  }
  experiment_pump (self);
  return G_SOURCE_REMOVE;
}

static void
set_deadline (Job  *job,
              guint ms)
{
  if (job->deadline != NULL)
    g_source_destroy (job->deadline);
  g_clear_pointer (&job->deadline, g_source_unref);
  job->deadline = g_timeout_source_new (ms);
  g_source_set_callback (job->deadline, on_deadline, job, NULL);
  g_source_set_static_name (job->deadline, "[anot] request deadline");
  g_source_attach (job->deadline, g_task_get_context (job->self->task));
}

/* The run was cancelled (on the thread that runs it: anot-run's SIGINT
 * source, Python's interrupt handler): so is each request, with a grace
 * period for the method to honour it. */
static void
forward_cancel (GCancellable *run_cancellable,
                Job          *job)
{
  g_autoptr(GCancellable) cancellable = g_object_ref (job->cancellable);

  set_deadline (job, CANCEL_GRACE_MS);
  /* Last: a method that honours it may call back at once, freeing @job. */
  g_cancellable_cancel (cancellable);
}

/* Seconds; 0 for none.  Batch mode waits for provider batches, which may
 * take a day: no deadline unless one was given. */
static guint
request_timeout (AnotExperiment *self)
{
  if (self->batch_queue != NULL && !anot_run_config_is_set (self->settings, "request-timeout"))
    return 0;
  return (guint) self->settings->request_timeout;
}

AnotMethodContext *
anot_experiment_new_method_context (AnotExperiment *self,
                                    AnotTrial      *trial)
{
  AnotMethodContext *context = anot_method_context_new (self->dataset,
                                                        anot_request_get_id (anot_trial_get_request (trial)),
                                                        anot_trial_get_method_seed (trial));
  GHashTableIter iter;
  gpointer key, value;

  /* Blind unless the method declared that it ranks by the truth. */
  if (self->uses_truth)
    {
      anot_method_context_set_truth_request (context, anot_trial_get_request (trial));
      anot_method_context_set_validator (context, self->validator);
    }
  anot_method_context_set_router (context, self->router);
  anot_method_context_set_debug_log (context, self->debug_log);
  g_hash_table_iter_init (&iter, self->settings->method_options);
  while (g_hash_table_iter_next (&iter, &key, &value))
    anot_method_context_set_option (context, key, value);
  anot_method_context_set_defense (context, self->settings->defense);
  anot_method_context_set_compat (context, (AnotCompatMode) self->settings->compat);
  if (self->defense_prompt != NULL)
    anot_method_context_set_defense_prompt_text (context, self->defense_prompt);
  if (self->config_file_read)
    anot_method_context_set_config_file (context, self->config_file);
  return context;
}

static void
start_job (AnotExperiment *self,
           Cell           *cell,
           AnotRequest    *request,
           BudgetHold     *hold)
{
  AnotRunConfig *settings = self->settings;
  g_autoptr(GError) error = NULL;
  Job *job = g_new0 (Job, 1);

  job->self = g_object_ref (self);
  job->cell = cell;
  job->hold = hold;
  job->trial = anot_trial_new (self->dataset, request, cell->n, settings->pool, settings->shuffle,
                               settings->seed, cell->run, cell->attack->attack, cell->attack->name,
                               &error);
  if (job->trial == NULL && cell->attack->attack != NULL)
    {
      g_autoptr(GError) clean_error = NULL;

      /* The attack failed.  It is deterministic, so that is a failed row
       * rather than a retry; the row has the clean trial's positions. */
      job->trial = anot_trial_new (self->dataset, request, cell->n, settings->pool,
                                   settings->shuffle, settings->seed, cell->run, NULL, NULL,
                                   &clean_error);
      if (job->trial != NULL)
        {
          g_autoptr(AnotResult) result = NULL;

          job->context = anot_experiment_new_method_context (self, job->trial);
          anot_method_context_set_debug_log (job->context, cell->debug_log);
          result = result_from_ranking (self, job, NULL, error, FALSE);
          record_result (self, cell, result);
          job_free (job);
          return;
        }
    }
  if (job->trial == NULL)
    {
      /* The plan already built this pool once: only a bug gets here. */
      if (self->fatal == NULL)
        self->fatal = g_steal_pointer (&error);
      job_free (job);
      return;
    }

  job->context = anot_experiment_new_method_context (self, job->trial);
  anot_method_context_set_debug_log (job->context, cell->debug_log);
  anot_experiment_budget_attach (self, job->hold, job->context);
  if (self->journal != NULL)
    {
      g_autofree char *scope = g_strdup_printf ("%s/%u/%u/%s", cell->attack->name, cell->run,
                                                cell->n, anot_request_get_id (request));

      anot_method_context_set_journal (job->context, self->journal, scope);
    }
  self->in_flight++;
  cell->in_flight++;
  job->cancellable = g_cancellable_new ();
  /* The run's jobs cancellable: cancelled by the run's, and by an error
   * that stops the run. */
  job->run_cancellable = g_object_ref (self->jobs_cancellable);
  job->timeout = request_timeout (self);
  if (job->timeout > 0)
    set_deadline (job, (guint) MIN ((guint64) job->timeout * 1000, G_MAXUINT));
  if (g_cancellable_is_cancelled (self->jobs_cancellable))
    g_cancellable_cancel (job->cancellable);
  else
    job->run_cancelled_id = g_signal_connect (self->jobs_cancellable, "cancelled",
                                              G_CALLBACK (forward_cancel), job);
  anot_method_rank_async (self->method, anot_trial_get_query (job->trial),
                          anot_trial_get_candidates (job->trial),
                          (guint) settings->k, job->context, job->cancellable, on_rank_done, job);
}

static gboolean
cell_is_last_of_run (AnotExperiment *self,
                     guint           index)
{
  Cell *cell = g_ptr_array_index (self->cells, index);

  return index + 1 >= self->cells->len ||
         ((Cell *) g_ptr_array_index (self->cells, index + 1))->run != cell->run ||
         ((Cell *) g_ptr_array_index (self->cells, index + 1))->attack != cell->attack;
}

static gboolean
experiment_stopping (AnotExperiment *self)
{
  return self->fatal != NULL || g_cancellable_is_cancelled (self->cancellable) ||
         self->over_budget;
}

static guint
count_failed_rows (AnotExperiment *self,
                   guint          *out_total,
                   guint          *out_unscored,
                   const char    **out_first_error,
                   const char    **out_first_unscored)
{
  guint failed = 0, total = 0;

  *out_first_error = NULL;
  *out_first_unscored = NULL;
  *out_unscored = 0;
  for (guint i = 0; i < self->cells->len; i++)
    {
      Cell *cell = g_ptr_array_index (self->cells, i);
      GHashTableIter iter;
      gpointer value;

      g_hash_table_iter_init (&iter, cell->rows);
      while (g_hash_table_iter_next (&iter, NULL, &value))
        {
          total++;
          if (anot_result_get_error_message (value) != NULL)
            {
              failed++;
              if (*out_first_error == NULL)
                *out_first_error = anot_result_get_error_message (value);
            }
          if (!anot_result_is_scored (value))
            {
              (*out_unscored)++;
              if (*out_first_unscored == NULL)
                *out_first_unscored = anot_result_get_error_message (value);
            }
        }
    }
  *out_total = total;
  return failed;
}

/* What a cell holds only while it is open. */
static void
cell_close (Cell *cell)
{
  if (cell->append != NULL)
    g_output_stream_close (cell->append, NULL, NULL);
  if (cell->trace_append != NULL)
    g_output_stream_close (cell->trace_append, NULL, NULL);
  g_clear_object (&cell->append);
  g_clear_object (&cell->trace_append);
  g_clear_pointer (&cell->jobs, g_ptr_array_unref);
  g_clear_object (&cell->debug_log);
  cell->next_job = 0;
}

static void
experiment_complete (AnotExperiment *self,
                     GError         *error)
{
  g_autoptr(GTask) task = g_steal_pointer (&self->task);

  for (guint i = self->cell_index; i < self->next_open && i < self->cells->len; i++)
    cell_close (g_ptr_array_index (self->cells, i));
  g_cancellable_disconnect (self->cancellable, self->cancelled_handler);
  self->cancelled_handler = 0;
  g_clear_object (&self->jobs_cancellable);
  g_clear_object (&self->cancellable);
  g_clear_object (&self->debug_log);
  /* Everything is written: a resume may follow in this process. */
  anot_experiment_unlock_directory (self);

  if (error != NULL)
    g_task_return_error (task, error);
  else
    g_task_return_boolean (task, TRUE);
}

/* Called for the first open cell once it has nothing in flight and
 * nothing more to start, either because it is done or because the run is
 * stopping. */
static void
finish_cell (AnotExperiment *self,
             Cell           *cell)
{
  g_autoptr(GError) error = NULL;
  gboolean stopping = experiment_stopping (self);
  gboolean last_of_run = cell_is_last_of_run (self, self->cell_index);
  const char *status;

  cell_close (cell);
  cell->complete = !stopping;
  status = stopping ? (self->fatal ? "failed" : "interrupted")
                    : (last_of_run ? "complete" : "running");

  if (!anot_experiment_write_cell_files (self, cell, status, last_of_run || stopping, &error))
    {
      if (self->fatal == NULL)
        self->fatal = g_steal_pointer (&error);
    }

  g_signal_emit (self, anot_experiment_signals[SIGNAL_N_FINISHED], 0, cell->run, cell->n);
}

/* When every open cell is finished: the end of the run, or its stop. */
static void
experiment_end (AnotExperiment *self)
{
  const char *first_error, *first_unscored;
  guint total, failed, unscored;

  if (self->fatal != NULL)
    {
      GError *fatal = g_steal_pointer (&self->fatal);

      /* A write that failed (a full disk): what it kept out, and how to
       * get it back without paying again. */
      if (fatal->domain == G_IO_ERROR || g_error_matches (fatal, ANOT_ERROR, ANOT_ERROR_IO))
        {
          GError *error = g_error_new (fatal->domain, fatal->code,
                                       "%s\n%u finished request%s could not be written; "
                                       "their answers are kept in %s/answers.jsonl%s. Once "
                                       "the disk has room, continue with: anot-run --resume %s "
                                       "(it pays for no answer again)",
                                       fatal->message, self->n_unwritten,
                                       self->n_unwritten == 1 ? "" : "s", self->directory,
                                       self->journal != NULL &&
                                       anot_call_journal_get_error (self->journal) != NULL
                                       ? " (up to the answer that could not be journaled)" : "",
                                       self->directory);

          g_error_free (fatal);
          fatal = error;
        }
      experiment_complete (self, fatal);
      return;
    }
  if (self->over_budget && !g_cancellable_is_cancelled (self->cancellable))
    {
      experiment_complete (self, anot_experiment_budget_error (self));
      return;
    }
  if (g_cancellable_is_cancelled (self->cancellable))
    {
      experiment_complete (self,
                           g_error_new (G_IO_ERROR, G_IO_ERROR_CANCELLED,
                                        "Interrupted; the results so far are in %s. "
                                        "Continue with: anot-run --resume %s",
                                        self->directory, self->directory));
      return;
    }

  failed = count_failed_rows (self, &total, &unscored, &first_error, &first_unscored);
  if (unscored > 0)
    experiment_complete (self,
                         g_error_new (ANOT_ERROR, ANOT_ERROR_INCOMPLETE,
                                      "%u of %u requests could not be scored: the infrastructure "
                                      "failed them (the first: %s). The metrics are over the "
                                      "%u scored; run the others again with: "
                                      "anot-run --resume %s",
                                      unscored, total, first_unscored, total - unscored,
                                      self->directory));
  else if (total > 0 && failed == total)
    experiment_complete (self,
                         g_error_new (ANOT_ERROR, ANOT_ERROR_METHOD_FAILED,
                                      "Every request failed (%u); the first error was: %s",
                                      total, first_error));
  else
    experiment_complete (self, NULL);
}

/* Opens the cell at self->next_open: its debug log, its config.json when
 * it is the first of its run, its rows file (rewritten: a torn last line
 * is dropped) and trace file for appending, and the requests it still has
 * to run.  FALSE with self->fatal set when a file cannot be written. */
static gboolean
open_cell (AnotExperiment *self)
{
  guint index = self->next_open;
  Cell *cell = g_ptr_array_index (self->cells, index);
  GPtrArray *kept = g_hash_table_lookup (self->kept, GUINT_TO_POINTER (cell->n));
  g_autofree char *dir = anot_experiment_run_dir_path (cell->attack, cell->run);
  g_autofree char *path = anot_experiment_run_file_path (cell->attack, cell->run, "results", cell->n);
  g_autofree char *trace_path = anot_experiment_run_file_path (cell->attack, cell->run, "trace", cell->n);
  g_autoptr(GPtrArray) rows = anot_experiment_cell_sorted_rows (cell);
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autoptr(GFile) trace_file = g_file_new_for_path (trace_path);
  g_autoptr(GError) error = NULL;
  gboolean first_of_run = index == 0 ||
    ((Cell *) g_ptr_array_index (self->cells, index - 1))->run != cell->run ||
    ((Cell *) g_ptr_array_index (self->cells, index - 1))->attack != cell->attack;

  self->next_open++;
  if (first_of_run && self->debug_level > ANOT_DEBUG_LEVEL_OFF)
    {
      g_autofree char *log_path = g_build_filename (dir, "debug.log", NULL);

      g_clear_object (&self->debug_log);
      if (!anot_experiment_make_directory (dir, &error) ||
          (self->debug_log = anot_debug_log_new (log_path, self->debug_level, &error)) == NULL)
        goto fail;
    }
  g_set_object (&cell->debug_log, self->debug_log);

  if (!anot_experiment_make_directory (dir, &error) ||
      (first_of_run && !anot_experiment_write_config (self, cell->attack, cell->run, "running", &error)) ||
      /* Rewriting what was read drops a torn last line before appending. */
      !anot_results_write_rows (path, rows, &error) ||
      !anot_experiment_repair_trace_file (trace_path, cell->rows, &error))
    goto fail;

  cell->jobs = g_ptr_array_new_with_free_func (g_object_unref);
  cell->next_job = 0;
  for (guint i = 0; i < kept->len; i++)
    {
      AnotRequest *request = g_ptr_array_index (kept, i);

      if (!g_hash_table_contains (cell->rows, anot_request_get_id (request)) &&
          anot_experiment_cell_plans (cell, anot_request_get_id (request)))
        g_ptr_array_add (cell->jobs, g_object_ref (request));
    }

  cell->append = G_OUTPUT_STREAM (g_file_append_to (file, G_FILE_CREATE_NONE, NULL, &error));
  if (cell->append == NULL)
    {
      g_prefix_error (&error, "Cannot open %s: ", path);
      goto fail;
    }
  cell->trace_append = G_OUTPUT_STREAM (g_file_append_to (trace_file, G_FILE_CREATE_NONE,
                                                          NULL, &error));
  if (cell->trace_append == NULL)
    {
      g_prefix_error (&error, "Cannot open %s: ", trace_path);
      goto fail;
    }

  if (cell->debug_log != NULL)
    {
      g_autofree char *line = g_strdup_printf ("attack %s, run %u, N=%u: %u requests, %u already done",
                                               cell->attack->name, cell->run, cell->n,
                                               anot_experiment_cell_planned_count (self, cell),
                                               g_hash_table_size (cell->rows));

      anot_debug_log_write (cell->debug_log, ANOT_DEBUG_LEVEL_SUMMARY, "RUN", NULL, line);
    }
  g_signal_emit (self, anot_experiment_signals[SIGNAL_N_STARTED], 0, cell->run, cell->n,
                 anot_experiment_cell_planned_count (self, cell),
                 g_hash_table_size (cell->rows));
  return TRUE;

fail:
  if (self->fatal == NULL)
    self->fatal = g_steal_pointer (&error);
  return FALSE;
}

/* The first open cell with a request still to start, or NULL. */
static Cell *
cell_with_work (AnotExperiment *self)
{
  for (guint i = self->cell_index; i < self->next_open; i++)
    {
      Cell *cell = g_ptr_array_index (self->cells, i);

      if (cell->jobs != NULL && cell->next_job < cell->jobs->len)
        return cell;
    }
  return NULL;
}

static void
experiment_pump (AnotExperiment *self)
{
  if (self->pumping)
    {
      self->pump_again = TRUE;
      return;
    }

  self->pumping = TRUE;
  do
    {
      self->pump_again = FALSE;

      if (self->task == NULL)
        break;

      /* Start what may start, opening cells as the ones before them run
       * out of requests to start. */
      while (!experiment_stopping (self) && self->in_flight < anot_experiment_requests_in_flight (self))
        {
          Cell *cell = cell_with_work (self);
          gboolean can_open = self->next_open < self->cells->len &&
                              (self->next_open == self->cell_index || self->batch_queue != NULL);

          if (cell == NULL && !can_open)
            break;
          if (cell != NULL)
            {
              AnotRequest *request = g_ptr_array_index (cell->jobs, cell->next_job);
              BudgetHold *hold = NULL;

              /* A request starts only when its estimated cost fits in
               * every budget beside what is spent and held; if not, it
               * waits for the requests in flight, or the run stops.  Its
               * calls are held to the budgets again one by one. */
              if (!anot_experiment_budget_reserve (self, cell, request, &hold))
                break;
              cell->next_job++;
              start_job (self, cell, request, hold);
            }
          else
            open_cell (self);
        }

      /* Finish the cells in plan order: a run's summary and status are
       * written by its last cell, after every cell before it. */
      while (self->cell_index < self->next_open)
        {
          Cell *cell = g_ptr_array_index (self->cells, self->cell_index);

          if (cell->in_flight > 0 ||
              (!experiment_stopping (self) && cell->jobs != NULL && cell->next_job < cell->jobs->len))
            break;
          finish_cell (self, cell);
          self->cell_index++;
        }

      if (self->cell_index == self->next_open &&
          (experiment_stopping (self) || self->next_open >= self->cells->len))
        {
          self->pumping = FALSE;
          experiment_end (self);
          return;
        }
      /* A cell finished with nothing open after it: open the next. */
      if (self->cell_index == self->next_open)
        self->pump_again = TRUE;
    }
  while (self->pump_again);
  self->pumping = FALSE;
}

/* Another experiment of its gate ended a request: this one may start. */
void
anot_experiment_pump (AnotExperiment *self)
{
  experiment_pump (self);
}

void
anot_experiment_start (AnotExperiment *self)
{
  self->cell_index = 0;
  self->next_open = 0;
  experiment_pump (self);
}
