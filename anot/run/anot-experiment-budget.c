/* anot-experiment-budget.c: the spending limits of an experiment
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "anot-experiment-private.h"

#include "anot-error.h"
#include "anot-registry.h"
#include "anot-backend-router-private.h"
#include "anot-method-context-private.h"

#include <math.h>
#include <string.h>

/* A budget (`max-cost`, `max-cost-role`) is a cap, kept at two moments.
 *
 * Before a request starts, its cost is estimated as `anot-run estimate`
 * does (the method run on the stand-in backend with a method instance of
 * its own: prompt tokens exact where the model's tokenizer is known, each
 * call's max_tokens or ESTIMATE_COMPLETION_TOKENS as its answer, at batch
 * prices in batch mode; a method that declares its most calls, ReAct and
 * LATS, is reserved for that many) and held; the request starts only if
 * what is spent plus what the requests in flight hold plus its own fit in
 * every budget.  A request that does not fit waits for those in flight
 * (they may cost less than they hold); when none is in flight and it
 * still does not fit, the run stops with ANOT_ERROR_BUDGET.
 *
 * Before each call is sent (the method context's call gate), the call's
 * cost is estimated the same way, from the prompt it really has; a call
 * within what its request holds goes, a call past it goes only if the
 * excess fits beside everything else, and otherwise it is not sent: the
 * method fails with ANOT_ERROR_BUDGET (the row is unscored, class
 * `budget`, and a resume runs it again) and the run stops starting
 * requests.  When a call ends, its estimate gives way to what it cost.
 * In batch mode a call reaches a batch only once its gate let it.
 *
 * What a request holds of a budget is the larger of its estimate and what
 * its calls cost and hold: so spent + held never passes the limit at a
 * gate, and spent <= limit except by what the answers of the calls in
 * flight cost beyond their estimates — nothing for a call that sets
 * max_tokens (its answer is priced at that length), the completion past
 * ESTIMATE_COMPLETION_TOKENS for one that does not, and the difference
 * between the approximate and the real count of a prompt for a model
 * whose tokenizer is not known.  Spent is what the rows say (every
 * session of the experiment: a resumed run counts the rows it found,
 * and the attempts of rows it replaces), plus the calls that ended after
 * their request's row was written. */

#define ESTIMATE_COMPLETION_TOKENS 300  /* anot-run estimate's default */

typedef struct
{
  char *role;                /* NULL: the whole run */
  double limit;
  double spent;              /* by finished requests, and calls after their row */
  double reserved;           /* held by the requests in flight and their calls */
  double running;            /* by the finished calls of the requests in flight */
  AnotRunGate *gate;         /* a study's budget: the limit is the gate's, and
                              * so is what counts against it (every
                              * experiment's); spent, reserved and running
                              * above stay this experiment's own */
} Budget;

static double
budget_spent (Budget *budget)
{
  return budget->gate ? budget->gate->spent : budget->spent;
}

static double
budget_reserved (Budget *budget)
{
  return budget->gate ? budget->gate->reserved : budget->reserved;
}

/* What one request holds of each budget, from before it starts until its
 * row is written, and its calls' shares until they end: a call may end
 * after its request's row (the deadline abandoned it).  Its budget is
 * held, per budget i, as commit(i): while active, the larger of held[i]
 * (the request's estimate) and done[i] + pending[i] (what its calls cost
 * and hold); after, only pending[i]. */
struct _BudgetHold
{
  grefcount ref_count;
  AnotExperiment *self;
  guint generation;          /* of the budgets it was made for */
  gboolean active;
  guint n;
  double *held;
  double *done;
  double *pending;
  gboolean has_slot;         /* of a study's gate, released with the row */
};

/* One call let through the gate: its estimate, per budget. */
typedef struct
{
  BudgetHold *hold;
  double *estimate;
} Ticket;

static void
budget_free (Budget *budget)
{
  g_free (budget->role);
  g_free (budget);
}

static double
usage_cost (AnotUsage  *usage,
            const char *role)
{
  g_autoptr(AnotUsage) part = NULL;

  if (usage == NULL)
    return 0;
  if (role == NULL)
    return anot_usage_get_cost_usd (usage);
  part = anot_usage_dup_role_usage (usage, role);
  return anot_usage_get_cost_usd (part);
}

void
anot_experiment_budget_clear (AnotExperiment *self)
{
  g_clear_pointer (&self->budgets, g_ptr_array_unref);
  g_clear_pointer (&self->budget_message, g_free);
  g_clear_pointer (&self->budget_option, g_free);
  g_clear_object (&self->estimate_router);
  g_clear_object (&self->estimate_method);
  g_clear_pointer (&self->estimated_costs, g_free);
  self->estimated_cell = NULL;
  self->estimated_request = NULL;
}

/* The budgets of the settings, and what the rows already there cost. */
void
anot_experiment_budget_reset (AnotExperiment *self)
{
  AnotRunConfig *settings = self->settings;

  anot_experiment_budget_clear (self);
  self->budget_generation++;
  self->over_budget = FALSE;
  self->n_costed = 0;
  self->budgets = g_ptr_array_new_with_free_func ((GDestroyNotify) budget_free);

  if (settings->max_cost > 0)
    {
      Budget *budget = g_new0 (Budget, 1);

      budget->limit = settings->max_cost;
      g_ptr_array_add (self->budgets, budget);
    }
  if (settings->max_cost_role != NULL)
    {
      g_auto(GStrv) parts = anot_run_config_split_list (settings->max_cost_role);

      for (guint i = 0; parts[i] != NULL; i++)
        {
          const char *eq = strchr (parts[i], '=');
          Budget *budget = g_new0 (Budget, 1);

          /* The settings checked the form. */
          budget->role = g_strndup (parts[i], eq - parts[i]);
          budget->limit = g_ascii_strtod (eq + 1, NULL);
          g_ptr_array_add (self->budgets, budget);
        }
    }
  if (self->gate != NULL && self->gate->limit > 0)
    {
      Budget *budget = g_new0 (Budget, 1);

      budget->limit = self->gate->limit;
      budget->gate = self->gate;
      g_ptr_array_add (self->budgets, budget);
    }

  for (guint c = 0; c < self->cells->len; c++)
    {
      Cell *cell = g_ptr_array_index (self->cells, c);
      GHashTableIter iter;
      gpointer value;

      g_hash_table_iter_init (&iter, cell->rows);
      while (g_hash_table_iter_next (&iter, NULL, &value))
        anot_experiment_budget_add_result (self, value);
    }
  /* Spent already on the requests an outage left unscored (attempts, in
   * the average cost of one). */
  if (self->replaced_usage != NULL)
    self->n_costed += self->n_replaced;
  for (guint i = 0; self->replaced_usage != NULL && i < self->budgets->len; i++)
    {
      Budget *budget = g_ptr_array_index (self->budgets, i);
      double cost = usage_cost (self->replaced_usage, budget->role);

      budget->spent += cost;
      if (budget->gate != NULL)
        budget->gate->spent += cost;
    }
  /* Calls an earlier attempt cancelled on the wire may be billed: their
   * estimates count as spent, as they did in that attempt. */
  for (guint i = 0; self->journal != NULL && i < self->budgets->len; i++)
    {
      Budget *budget = g_ptr_array_index (self->budgets, i);
      double cost = anot_call_journal_get_cancelled_cost (self->journal, budget->role);

      budget->spent += cost;
      if (budget->gate != NULL)
        budget->gate->spent += cost;
    }
}

/* What a replaced row had cost was counted when the run started: the
 * answers of it that its request's new row holds again (replayed from the
 * journal, not paid again) are not counted twice. */
void
anot_experiment_budget_remove_usage (AnotExperiment *self,
                                     AnotUsage      *usage)
{
  if (self->budgets == NULL || usage == NULL)
    return;
  for (guint i = 0; i < self->budgets->len; i++)
    {
      Budget *budget = g_ptr_array_index (self->budgets, i);
      double cost = usage_cost (usage, budget->role);

      budget->spent = MAX (0.0, budget->spent - cost);
      if (budget->gate != NULL)
        budget->gate->spent = MAX (0.0, budget->gate->spent - cost);
    }
}

void
anot_experiment_budget_add_result (AnotExperiment *self,
                                   AnotResult     *result)
{
  AnotUsage *usage = anot_result_get_usage (result);

  if (self->budgets == NULL)
    return;
  self->n_costed++;
  for (guint i = 0; i < self->budgets->len; i++)
    {
      Budget *budget = g_ptr_array_index (self->budgets, i);
      double cost = usage_cost (usage, budget->role);

      budget->spent += cost;
      if (budget->gate != NULL)
        budget->gate->spent += cost;
    }
}

/* @usage's cost for @budget, at the price the run pays. */
static double
estimated_cost (AnotExperiment *self,
                Budget         *budget,
                AnotUsage      *usage)
{
  g_autoptr(AnotUsage) part = NULL;

  if (budget->role != NULL)
    usage = part = anot_usage_dup_role_usage (usage, budget->role);
  if (self->batch_queue != NULL)
    return anot_experiment_batch_cost (self->estimate_router, usage);
  return anot_usage_get_cost_usd (usage);
}

/* The estimated cost of @request in @cell for each budget (kept until
 * another request is asked about: one that waits is asked again). */
static const double *
estimate (AnotExperiment *self,
          Cell           *cell,
          AnotRequest    *request)
{
  g_autoptr(AnotUsage) usage = NULL;
  gboolean incomplete = FALSE;
  guint max_calls = 0;
  guint64 calls;

  if (self->estimated_costs != NULL && self->estimated_cell == cell && self->estimated_request == request)
    return self->estimated_costs;

  g_clear_pointer (&self->estimated_costs, g_free);
  self->estimated_costs = g_new0 (double, self->budgets->len);
  self->estimated_cell = cell;
  self->estimated_request = request;

  if (self->estimate_router == NULL)
    {
      g_autoptr(GError) error = NULL;

      self->estimate_router = anot_experiment_new_estimate_router (self, ESTIMATE_COMPLETION_TOKENS, &error);
      /* The run's own router was made from the same configuration. */
      if (self->estimate_router == NULL)
        g_error ("Cannot make the estimate's router: %s", error->message);
      self->estimate_method = anot_registry_create_method (anot_registry_get_default (),
                                                           self->method_name, &error);
      if (self->estimate_method == NULL)
        g_error ("Cannot make the estimate's method: %s", error->message);
    }

  usage = anot_experiment_estimate_request (self, self->estimate_router, self->estimate_method,
                                            cell, request, &incomplete, &max_calls);
  calls = usage != NULL ? anot_usage_get_calls (usage) : 0;
  for (guint i = 0; i < self->budgets->len; i++)
    {
      Budget *budget = g_ptr_array_index (self->budgets, i);
      double cost = usage != NULL ? estimated_cost (self, budget, usage) : 0;

      /* A method whose later rounds depend on the answers declares its
       * most calls: each one it did not make on the stand-in is reserved
       * at the average of those it made. */
      if (max_calls > calls && calls > 0)
        cost = cost * max_calls / calls;
      /* Stopped early on the stand-in's answers: a lower bound. */
      if (incomplete && self->n_costed > 0)
        cost = MAX (cost, budget->spent / self->n_costed);
      self->estimated_costs[i] = cost;
    }
  return self->estimated_costs;
}

/* The limit in cents, unless that would misstate it ($0.002 is not $0.00). */
static char *
format_limit (double limit)
{
  g_autofree char *text = g_strdup_printf ("%.2f", limit);

  if (limit != g_ascii_strtod (text, NULL))
    {
      g_free (text);
      text = g_strdup_printf ("%.6g", limit);
    }
  return g_steal_pointer (&text);
}

/* Stops the run at @budget: what it spent, and what @what ("request",
 * "call") would have cost. */
static void
stop_at (AnotExperiment *self,
         Budget         *budget,
         const char     *what,
         double          cost)
{
  g_autofree char *limit = format_limit (budget->limit);
  g_autofree char *held_text = NULL;
  /* A study's budget: what its cells spent and hold, every experiment's. */
  double spent = budget->gate ? budget->gate->spent : budget->spent + budget->running;
  /* Beyond what is spent: the estimates of the calls in flight, and what
   * the requests in flight hold for their calls to come. */
  double held = budget->gate ? budget->gate->reserved : MAX (0, budget->reserved - budget->running);

  self->over_budget = TRUE;
  if (self->budget_message != NULL)
    return;
  if (held >= 0.00005)
    held_text = g_strdup_printf (" and $%.4f held by the requests in flight", held);
  /* NaN: a model without a price, which the checks before the run
   * refuse; here only when a method asks for a model of its own. */
  if (isnan (cost) || isnan (spent))
    self->budget_message =
      g_strdup_printf ("the %sbudget%s%s of $%s cannot count the next %s: %s has no price "
                       "(give one in [prices] of config.ini)",
                       budget->gate ? "study's " : "",
                       budget->role ? " of role " : "", budget->role ? budget->role : "",
                       limit, what, isnan (cost) ? "its model" : "a call the results already hold");
  else
    self->budget_message =
    g_strdup_printf ("the %sbudget%s%s of $%s has no room for the next %s: $%.4f spent%s%s, "
                     "the next %s is estimated at $%.4f",
                     budget->gate ? "study's " : "",
                     budget->role ? " of role " : "", budget->role ? budget->role : "",
                     limit, what, spent, budget->gate ? " by its cells" : "",
                     held_text ? held_text : "", what, cost);
  self->budget_option = budget->gate ? g_strdup ("--max-cost USD (or max_cost in the study file)")
                        : budget->role ? g_strdup_printf ("--max-cost-role %s=USD", budget->role)
                                       : g_strdup ("--max-cost USD");
}

/* What @hold holds of budget @i now. */
static double
hold_commit (BudgetHold *hold,
             guint       i)
{
  return hold->active ? MAX (hold->held[i], hold->done[i] + hold->pending[i]) : hold->pending[i];
}

static gboolean
hold_is_current (BudgetHold *hold)
{
  AnotExperiment *self = hold->self;

  return self->budgets != NULL && hold->n > 0 && hold->generation == self->budget_generation &&
         hold->n == self->budgets->len;
}

/* Changes budget @i of @hold by what its calls cost (@d_done) and hold
 * (@d_pending), and whether it is active, keeping the budget's sums. */
static void
hold_change (BudgetHold *hold,
             guint       i,
             double      d_done,
             double      d_pending,
             gboolean    active)
{
  Budget *budget = g_ptr_array_index (hold->self->budgets, i);
  double before = hold_commit (hold, i);

  if (hold->active)
    budget->running -= hold->done[i];
  hold->done[i] += d_done;
  hold->pending[i] = MAX (0, hold->pending[i] + d_pending);
  hold->active = active;
  if (hold->active)
    budget->running += hold->done[i];
  budget->reserved = MAX (0, budget->reserved + hold_commit (hold, i) - before);
  if (budget->gate != NULL)
    budget->gate->reserved = MAX (0, budget->gate->reserved + hold_commit (hold, i) - before);
}

static BudgetHold *
hold_ref (BudgetHold *hold)
{
  g_ref_count_inc (&hold->ref_count);
  return hold;
}

static void
hold_unref (BudgetHold *hold)
{
  if (!g_ref_count_dec (&hold->ref_count))
    return;
  g_object_unref (hold->self);
  g_free (hold->held);
  g_free (hold->done);
  g_free (hold->pending);
  g_free (hold);
}

/* A hold of @costs (per budget; NULL: of no budget, only the gate's slot). */
static BudgetHold *
hold_new (AnotExperiment *self,
          const double   *costs)
{
  BudgetHold *hold = g_new0 (BudgetHold, 1);

  g_ref_count_init (&hold->ref_count);
  hold->self = g_object_ref (self);
  hold->generation = self->budget_generation;
  hold->n = costs != NULL ? self->budgets->len : 0;
  hold->held = costs != NULL ? g_memdup2 (costs, sizeof (double) * hold->n) : NULL;
  hold->done = g_new0 (double, hold->n);
  hold->pending = g_new0 (double, hold->n);
  hold->active = TRUE;
  hold->has_slot = self->gate != NULL;
  return hold;
}

/* The call gate (see the top of the file). */
static gboolean
gate_call (AnotMethodContext  *context,
           const char         *role,
           AnotChatRequest    *request,
           gpointer            user_data,
           gpointer           *out_ticket,
           GError            **error)
{
  BudgetHold *hold = user_data;
  AnotExperiment *self = hold->self;
  g_autofree double *estimate = NULL;
  double cost = 0;
  Ticket *ticket;

  *out_ticket = NULL;
  if (!hold_is_current (hold))
    return TRUE;
  /* A role without a route fails in the router, unsent. */
  if (!anot_backend_router_estimate_call (self->router, role, request, ESTIMATE_COMPLETION_TOKENS,
                                          self->batch_queue != NULL, &cost, NULL))
    return TRUE;

  estimate = g_new0 (double, hold->n);
  for (guint i = 0; i < hold->n; i++)
    {
      Budget *budget = g_ptr_array_index (self->budgets, i);
      double after;

      if (budget->role != NULL && g_strcmp0 (budget->role, role) != 0)
        continue;
      estimate[i] = cost;
      after = hold->active ? MAX (hold->held[i], hold->done[i] + hold->pending[i] + cost)
                           : hold->pending[i] + cost;
      if (budget_spent (budget) + budget_reserved (budget) + (after - hold_commit (hold, i)) <= budget->limit)
        continue;
      stop_at (self, budget, "call", cost);
      g_set_error (error, ANOT_ERROR, ANOT_ERROR_BUDGET,
                   "The call was not sent: %s (--max-cost)", self->budget_message);
      return FALSE;
    }

  for (guint i = 0; i < hold->n; i++)
    hold_change (hold, i, 0, estimate[i], hold->active);
  ticket = g_new0 (Ticket, 1);
  ticket->hold = hold_ref (hold);
  ticket->estimate = g_steal_pointer (&estimate);
  *out_ticket = ticket;
  return TRUE;
}

/* A call the gate let through ended: its estimate gives way to its cost,
 * counted as its request's while the request runs, else as spent. */
static void
gate_call_done (gpointer        user_data,
                AnotCompletion *completion)
{
  Ticket *ticket = user_data;
  BudgetHold *hold;

  if (ticket == NULL)
    return;
  hold = ticket->hold;
  if (hold_is_current (hold))
    {
      const char *role = completion != NULL ? anot_completion_get_role (completion) : NULL;

      for (guint i = 0; i < hold->n; i++)
        {
          Budget *budget = g_ptr_array_index (hold->self->budgets, i);
          double cost = 0;

          if (completion != NULL && (budget->role == NULL || g_strcmp0 (budget->role, role) == 0))
            cost = anot_completion_get_cost_usd (completion);
          if (!hold->active)
            {
              budget->spent += cost;
              if (budget->gate != NULL)
                budget->gate->spent += cost;
            }
          hold_change (hold, i, hold->active ? cost : 0, -ticket->estimate[i], hold->active);
        }
    }
  hold_unref (hold);
  g_free (ticket->estimate);
  g_free (ticket);
}

/* Whether @request of @cell may start now; if so *@out_hold is what it
 * holds of the budgets (NULL without budgets), for
 * anot_experiment_budget_attach() and anot_experiment_budget_release(). */
gboolean
anot_experiment_budget_reserve (AnotExperiment  *self,
                                Cell            *cell,
                                AnotRequest     *request,
                                BudgetHold     **out_hold)
{
  const double *costs;
  BudgetHold *hold;

  *out_hold = NULL;
  if (self->over_budget)
    return FALSE;
  /* The slots of the gate come first: a budget's verdict may change
   * while a request waits for one. */
  if (self->gate != NULL && !anot_run_gate_has_slot (self->gate, self))
    return FALSE;
  if (self->budgets == NULL || self->budgets->len == 0)
    {
      /* A hold of nothing, released with the gate's slot. */
      if (self->gate != NULL)
        {
          self->gate->in_flight++;
          *out_hold = hold_new (self, NULL);
        }
      return TRUE;
    }

  costs = estimate (self, cell, request);
  for (guint i = 0; i < self->budgets->len; i++)
    {
      Budget *budget = g_ptr_array_index (self->budgets, i);

      if (budget_spent (budget) + budget_reserved (budget) + costs[i] <= budget->limit)
        continue;
      /* Those in flight may cost less than they hold: wait for them
       * (with a study's budget, those of every experiment). */
      if (self->in_flight > 0 || (budget->gate != NULL && budget->gate->in_flight > 0))
        return FALSE;
      stop_at (self, budget, "request", costs[i]);
      return FALSE;
    }

  hold = hold_new (self, costs);
  for (guint i = 0; i < hold->n; i++)
    {
      Budget *budget = g_ptr_array_index (self->budgets, i);

      budget->reserved += costs[i];
      if (budget->gate != NULL)
        budget->gate->reserved += costs[i];
    }
  if (self->gate != NULL)
    self->gate->in_flight++;
  g_clear_pointer (&self->estimated_costs, g_free);
  self->estimated_cell = NULL;
  self->estimated_request = NULL;
  *out_hold = hold;
  return TRUE;
}

/* Every call @context makes goes through @hold's gate. */
void
anot_experiment_budget_attach (AnotExperiment    *self,
                               BudgetHold        *hold,
                               AnotMethodContext *context)
{
  if (hold == NULL)
    return;
  anot_method_context_set_call_gate (context, gate_call, gate_call_done, hold_ref (hold),
                                     (GDestroyNotify) hold_unref);
}

/* The request's row is written (what it spent counted): it holds only its
 * calls still in flight. */
void
anot_experiment_budget_release (AnotExperiment *self,
                                BudgetHold     *hold)
{
  if (hold_is_current (hold) && hold->active)
    for (guint i = 0; i < hold->n; i++)
      hold_change (hold, i, 0, 0, FALSE);
  hold->active = FALSE;
  if (self->gate != NULL && hold->has_slot)
    anot_run_gate_release_slot (self->gate);
  hold->has_slot = FALSE;
  hold_unref (hold);
}

/* The error a run stopped by its budget ends with. */
GError *
anot_experiment_budget_error (AnotExperiment *self)
{
  g_autofree char *stopped_text = NULL;
  guint done = 0, stopped = 0;

  for (guint c = 0; c < self->cells->len; c++)
    {
      GHashTableIter iter;
      gpointer value;

      g_hash_table_iter_init (&iter, ((Cell *) g_ptr_array_index (self->cells, c))->rows);
      while (g_hash_table_iter_next (&iter, NULL, &value))
        {
          done++;
          if (g_strcmp0 (anot_result_get_error_class (value), ANOT_RESULT_ERROR_CLASS_BUDGET) == 0)
            stopped++;
        }
    }
  if (stopped > 0)
    stopped_text = g_strdup_printf (" (%u of them stopped before a call that did not fit: unscored, "
                                    "run again by the resume)", stopped);
  return g_error_new (ANOT_ERROR, ANOT_ERROR_BUDGET,
                      "Stopped: %s. %u of %u requests are done%s, %u were not started; "
                      "the results so far are in %s. Continue with a higher budget: "
                      "anot-run --resume %s %s",
                      self->budget_message, done, self->n_planned, stopped_text ? stopped_text : "",
                      self->n_planned > done ? self->n_planned - done : 0,
                      self->directory, self->directory,
                      self->budget_option != NULL ? self->budget_option : "--max-cost USD");
}
