/* anot-experiment-budget.c: the spending limits of an experiment
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "anot-experiment-private.h"

#include "anot-error.h"
#include "anot-registry.h"

#include <string.h>

/* A budget (`max-cost`, `max-cost-role`) is a cap.  Before a request
 * starts, its cost is estimated as `anot-run estimate` does (the method
 * run on the stand-in backend with a method instance of its own: prompt
 * tokens exact where the model's tokenizer is known, each call's
 * max_tokens or ESTIMATE_COMPLETION_TOKENS as its answer, at batch prices
 * in batch mode) and reserved; the request starts only if what finished
 * requests spent (every session of the experiment: a resumed run counts
 * the rows it found) plus the reservations in flight plus its own fit in
 * every budget.  When it finishes, its reservation gives way to what it
 * actually cost.  A request that does not fit waits for those in flight
 * (their reservations may turn out larger than their cost); when none is
 * in flight and it still does not fit, the run stops with
 * ANOT_ERROR_BUDGET, everything written.  In batch mode a request's
 * calls reach a batch only once it started, so a batch holds only lines
 * that fit.
 *
 * The bound: spent <= limit, except by what a request's answers cost
 * beyond the estimate — completion tokens past the assumed length when a
 * call sets no max_tokens (none when it does), and the calls of a
 * multi-round method past what it made on the stand-in's answers; for
 * those (the estimate calls them incomplete) the reservation is at least
 * the average cost of the finished requests. */

#define ESTIMATE_COMPLETION_TOKENS 300  /* anot-run estimate's default */

typedef struct
{
  char *role;                /* NULL: the whole run */
  double limit;
  double spent;              /* by finished requests */
  double reserved;           /* by the requests in flight */
  AnotRunGate *gate;         /* a study's budget: the limit is the gate's, and
                              * so is what counts against it (every
                              * experiment's); spent and reserved above
                              * stay this experiment's own */
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
                                            cell, request, &incomplete);
  for (guint i = 0; i < self->budgets->len; i++)
    {
      Budget *budget = g_ptr_array_index (self->budgets, i);
      double cost = usage != NULL ? estimated_cost (self, budget, usage) : 0;

      /* Stopped early on the stand-in's answers: a lower bound. */
      if (incomplete && self->n_costed > 0)
        cost = MAX (cost, budget->spent / self->n_costed);
      self->estimated_costs[i] = cost;
    }
  return self->estimated_costs;
}

/* Whether @request of @cell may start now; if so *@out_reservation is
 * what it holds of each budget (NULL without budgets), for
 * anot_experiment_budget_release() when it ends. */
gboolean
anot_experiment_budget_reserve (AnotExperiment  *self,
                                Cell            *cell,
                                AnotRequest     *request,
                                double         **out_reservation)
{
  const double *costs;

  *out_reservation = NULL;
  if (self->over_budget)
    return FALSE;
  /* The slots of the gate come first: a budget's verdict may change
   * while a request waits for one. */
  if (self->gate != NULL && !anot_run_gate_has_slot (self->gate, self))
    return FALSE;
  if (self->budgets == NULL || self->budgets->len == 0)
    {
      /* A reservation of nothing, released with the gate's slot. */
      if (self->gate != NULL)
        {
          self->gate->in_flight++;
          *out_reservation = g_new0 (double, 1);
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
      self->over_budget = TRUE;
      {
        /* Cents, unless that would misstate the budget ($0.002 is not $0.00). */
        g_autofree char *limit = g_strdup_printf ("%.2f", budget->limit);

        if (budget->limit != g_ascii_strtod (limit, NULL))
          {
            g_free (limit);
            limit = g_strdup_printf ("%.6g", budget->limit);
          }
        if (budget->gate != NULL)
          self->budget_message =
            g_strdup_printf ("the study's budget of $%s would be passed: $%.4f spent by its "
                             "cells, the next request is estimated at $%.4f",
                             limit, budget_spent (budget), costs[i]);
        else
          self->budget_message =
            g_strdup_printf ("the budget%s%s of $%s would be passed: $%.4f spent, "
                             "the next request is estimated at $%.4f",
                             budget->role ? " of role " : "", budget->role ? budget->role : "",
                             limit, budget->spent, costs[i]);
        self->budget_option = budget->gate ? g_strdup ("--max-cost USD (or max_cost in the study file)")
                              : budget->role ? g_strdup_printf ("--max-cost-role %s=USD", budget->role)
                                             : g_strdup ("--max-cost USD");
      }
      return FALSE;
    }

  *out_reservation = g_memdup2 (costs, sizeof (double) * self->budgets->len);
  for (guint i = 0; i < self->budgets->len; i++)
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
  return TRUE;
}

void
anot_experiment_budget_release (AnotExperiment *self,
                                double         *reservation)
{
  for (guint i = 0; self->budgets != NULL && i < self->budgets->len; i++)
    {
      Budget *budget = g_ptr_array_index (self->budgets, i);

      budget->reserved = MAX (0, budget->reserved - reservation[i]);
      if (budget->gate != NULL)
        budget->gate->reserved = MAX (0, budget->gate->reserved - reservation[i]);
    }
  g_free (reservation);
  if (self->gate != NULL)
    anot_run_gate_release_slot (self->gate);
}

/* The error a run stopped by its budget ends with. */
GError *
anot_experiment_budget_error (AnotExperiment *self)
{
  guint done = 0;

  for (guint c = 0; c < self->cells->len; c++)
    done += g_hash_table_size (((Cell *) g_ptr_array_index (self->cells, c))->rows);
  return g_error_new (ANOT_ERROR, ANOT_ERROR_BUDGET,
                      "Stopped: %s. %u of %u requests are done, %u were not started; "
                      "the results so far are in %s. Continue with a higher budget: "
                      "anot-run --resume %s %s",
                      self->budget_message, done, self->n_planned,
                      self->n_planned > done ? self->n_planned - done : 0,
                      self->directory, self->directory,
                      self->budget_option != NULL ? self->budget_option : "--max-cost USD");
}
