/* anot-experiment-gate.c: what experiments that run together share
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "anot-experiment-private.h"

/* A study runs its experiments at once on one main loop.  Each keeps its
 * own scheduler, but the requests they start all pass this gate: the
 * requests in flight are counted together (the study's `concurrency`, so
 * that cells do not multiply what the endpoints receive) and one budget
 * (the study's `max_cost`) takes what every experiment spends and
 * reserves (anot-experiment-budget.c).  A gate is held while the study
 * starts its experiments, so that each has counted what its rows already
 * cost before any of them reserves anything.
 *
 * When a request ends, the other experiments may be waiting for its slot
 * or for its reservation: they are pumped again from an idle callback,
 * after the experiment that ended it has run its own course. */

AnotRunGate *
anot_run_gate_new (double max_cost,
                   guint  max_in_flight)
{
  AnotRunGate *self = g_new0 (AnotRunGate, 1);

  g_ref_count_init (&self->ref_count);
  self->limit = max_cost;
  self->max_in_flight = max_in_flight;
  self->experiments = g_ptr_array_new ();
  self->waiting = g_ptr_array_new ();
  return self;
}

AnotRunGate *
anot_run_gate_ref (AnotRunGate *self)
{
  g_ref_count_inc (&self->ref_count);
  return self;
}

void
anot_run_gate_unref (AnotRunGate *self)
{
  if (!g_ref_count_dec (&self->ref_count))
    return;
  if (self->wake_source != NULL)
    g_source_destroy (self->wake_source);
  g_clear_pointer (&self->wake_source, g_source_unref);
  g_ptr_array_unref (self->experiments);
  g_ptr_array_unref (self->waiting);
  g_free (self);
}

static gboolean
wake_all (gpointer user_data)
{
  AnotRunGate *self = user_data;
  g_autoptr(GPtrArray) experiments = g_ptr_array_new_with_free_func (g_object_unref);

  /* Pumping one may also end the study, which lets go of the gate: it
   * stays until this is done with it. */
  anot_run_gate_ref (self);
  g_clear_pointer (&self->wake_source, g_source_unref);
  /* Pumping one may end its run and drop the last reference to another. */
  for (guint i = 0; i < self->experiments->len; i++)
    g_ptr_array_add (experiments, g_object_ref (g_ptr_array_index (self->experiments, i)));

  /* Those that waited for a slot first, in the order they asked, one
   * slot each in turn... */
  while (self->waiting->len > 0 && !self->held &&
         (self->max_in_flight == 0 || self->in_flight < self->max_in_flight))
    {
      g_autoptr(AnotExperiment) next = g_object_ref (g_ptr_array_steal_index (self->waiting, 0));

      self->turn = next;
      anot_experiment_pump (next);
      self->turn = NULL;
    }
  /* ...then every one: a request that waited for a reservation to end
   * may fit now. */
  for (guint i = 0; i < experiments->len; i++)
    anot_experiment_pump (g_ptr_array_index (experiments, i));
  anot_run_gate_unref (self);
  return G_SOURCE_REMOVE;
}

static void
schedule_wake (AnotRunGate *self)
{
  if (self->wake_source != NULL)
    return;
  /* On the context the experiments run on (anot_study_run() pushes its own). */
  self->wake_source = g_idle_source_new ();
  g_source_set_callback (self->wake_source, wake_all, self, NULL);
  g_source_set_static_name (self->wake_source, "[anot] gate wake");
  g_source_attach (self->wake_source, g_main_context_get_thread_default ());
}

void
anot_run_gate_open (AnotRunGate *self)
{
  self->held = FALSE;
  schedule_wake (self);
}

/* Whether @experiment may start a request now.  Slots go round: while
 * others wait for one, an experiment that asks (the one whose request
 * just ended, typically) queues behind them, so that every cell's
 * requests are in flight together instead of the first cell's only. */
gboolean
anot_run_gate_has_slot (AnotRunGate    *self,
                        AnotExperiment *experiment)
{
  gboolean free_slot = !self->held && (self->max_in_flight == 0 || self->in_flight < self->max_in_flight);

  if (free_slot && (self->turn == experiment || (self->turn == NULL && self->waiting->len == 0)))
    {
      self->turn = NULL;
      return TRUE;
    }
  if (!g_ptr_array_find (self->waiting, experiment, NULL))
    g_ptr_array_add (self->waiting, experiment);
  if (free_slot)
    schedule_wake (self);
  return FALSE;
}

void
anot_run_gate_release_slot (AnotRunGate *self)
{
  g_return_if_fail (self->in_flight > 0);
  self->in_flight--;
  schedule_wake (self);
}

void
anot_experiment_set_gate (AnotExperiment *self,
                          AnotRunGate    *gate)
{
  if (self->gate == gate)
    return;
  if (self->gate != NULL)
    {
      g_ptr_array_remove (self->gate->experiments, self);
      g_ptr_array_remove (self->gate->waiting, self);
      if (self->gate->turn == self)
        self->gate->turn = NULL;
      anot_run_gate_unref (self->gate);
    }
  self->gate = gate ? anot_run_gate_ref (gate) : NULL;
  if (gate != NULL)
    g_ptr_array_add (gate->experiments, self);
}
