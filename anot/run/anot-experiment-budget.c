/* anot-experiment-budget.c: the spending limits of an experiment
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "anot-experiment-private.h"

#include "anot-error.h"

#include <string.h>

/* A budget (`max-cost`, `max-cost-role`) is checked before each request
 * starts: what the finished requests cost (every session of the
 * experiment: a resumed run counts the rows it found) plus, for each
 * request in flight, what it spent so far or the average cost of a
 * finished request if that is more, plus the average for the request
 * about to start.  When that passes the budget no request starts any
 * more; those in flight finish (their calls are paid for already, and
 * cancelling would throw that away), everything is written, and the run
 * ends with ANOT_ERROR_BUDGET.  Before the first request finishes the
 * average is unknown (0), so at most `concurrency` requests start on an
 * empty budget. */

typedef struct
{
  char *role;                /* NULL: the whole run */
  double limit;
  double spent;              /* by finished requests */
} Budget;

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

/* The budgets of the settings, and what the rows already there cost. */
void
anot_experiment_budget_reset (AnotExperiment *self)
{
  AnotRunConfig *settings = self->settings;

  g_clear_pointer (&self->budgets, g_ptr_array_unref);
  g_clear_pointer (&self->running_usages, g_ptr_array_unref);
  g_clear_pointer (&self->budget_message, g_free);
  self->over_budget = FALSE;
  self->n_costed = 0;
  self->budgets = g_ptr_array_new_with_free_func ((GDestroyNotify) budget_free);
  self->running_usages = g_ptr_array_new_with_free_func (g_object_unref);

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

  for (guint c = 0; c < self->cells->len; c++)
    {
      Cell *cell = g_ptr_array_index (self->cells, c);
      GHashTableIter iter;
      gpointer value;

      g_hash_table_iter_init (&iter, cell->rows);
      while (g_hash_table_iter_next (&iter, NULL, &value))
        anot_experiment_budget_add_result (self, value);
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

      budget->spent += usage_cost (usage, budget->role);
    }
}

void
anot_experiment_budget_start (AnotExperiment *self,
                              AnotUsage      *usage)
{
  if (self->running_usages != NULL)
    g_ptr_array_add (self->running_usages, g_object_ref (usage));
}

void
anot_experiment_budget_finish (AnotExperiment *self,
                               AnotUsage      *usage)
{
  if (self->running_usages != NULL)
    g_ptr_array_remove (self->running_usages, usage);
}

/* Whether one more request may start; once not, never again in this run. */
gboolean
anot_experiment_budget_allows (AnotExperiment *self)
{
  if (self->over_budget)
    return FALSE;
  for (guint i = 0; self->budgets != NULL && i < self->budgets->len; i++)
    {
      Budget *budget = g_ptr_array_index (self->budgets, i);
      double average = self->n_costed > 0 ? budget->spent / self->n_costed : 0;
      double in_flight = 0;
      double projected;

      for (guint r = 0; r < self->running_usages->len; r++)
        in_flight += MAX (usage_cost (g_ptr_array_index (self->running_usages, r), budget->role),
                          average);
      projected = budget->spent + in_flight + average;
      if (projected > budget->limit)
        {
          self->over_budget = TRUE;
          self->budget_message =
            g_strdup_printf ("the budget%s%s of $%.2f would be passed: $%.4f spent by "
                             "finished requests, $%.4f expected for the %u in flight, "
                             "$%.4f for the next",
                             budget->role ? " of role " : "", budget->role ? budget->role : "",
                             budget->limit, budget->spent, in_flight,
                             self->running_usages->len, average);
          return FALSE;
        }
    }
  return TRUE;
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
                      "anot-run --resume %s --max-cost USD",
                      self->budget_message, done, self->n_planned,
                      self->n_planned > done ? self->n_planned - done : 0,
                      self->directory, self->directory);
}
