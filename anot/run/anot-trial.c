/* anot-trial.c: what a method sees for one request
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "anot-trial.h"

#include "anot-method-context.h"

/**
 * AnotTrial:
 *
 * The candidates one method call gets for a (request, N, run, attack):
 * the pool, its shuffle and the attack, with the seeds that made them.
 *
 * The experiment, `anot-run attack` and the tests all build them here, so
 * what `anot-run attack --dump` shows is what the method saw.  Run R of an
 * experiment with base seed S uses the run seed S + R; the pool and the
 * shuffle derive theirs from it (see [ctor@Anot.Pool.new]), the attack
 * gets [func@Anot.Attack.derive_seed] of it, and the method's context
 * `anot_seed_derive (run seed, "method:<request id>:<N>")`.  The method is
 * handed the trial's [class@Anot.Query] (the request's id, group and text)
 * with the candidates, never the request itself.
 */

struct _AnotTrial
{
  GObject parent_instance;

  AnotPool *pool;
  GPtrArray *attacked;          /* NULL without an attack */
  AnotQuery *query;             /* the request as the method sees it */
  guint64 run_seed;
  guint64 attack_seed;
  guint64 method_seed;
};

G_DEFINE_FINAL_TYPE (AnotTrial, anot_trial, G_TYPE_OBJECT)

static void
anot_trial_finalize (GObject *object)
{
  AnotTrial *self = ANOT_TRIAL (object);

  g_clear_object (&self->pool);
  g_clear_pointer (&self->attacked, g_ptr_array_unref);
  g_clear_object (&self->query);

  G_OBJECT_CLASS (anot_trial_parent_class)->finalize (object);
}

static void
anot_trial_class_init (AnotTrialClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = anot_trial_finalize;
}

static void
anot_trial_init (AnotTrial *self)
{
}

/**
 * anot_trial_new:
 * @dataset: the benchmark
 * @request: a request of @dataset
 * @n_candidates: N
 * @pool_mode: how the pool is chosen
 * @shuffle: how the candidates are ordered
 * @seed: the experiment's base seed
 * @run: the 1-based run; its seed is @seed + @run
 * @attack: (nullable): the attack applied to the shuffled candidates, or
 *   %NULL for a clean trial
 * @attack_name: (nullable): the name @attack was selected by (its
 *   registered name), part of the attack seed; required with @attack
 * @error: return location for a #GError
 *
 * Builds the pool of @request, shuffles it, and applies @attack.
 *
 * Errors: those of [ctor@Anot.Pool.new] and of
 * [method@Anot.Attack.apply].
 *
 * Returns: (transfer full): the trial, or %NULL with @error set
 */
AnotTrial *
anot_trial_new (AnotDataset      *dataset,
                AnotRequest      *request,
                guint             n_candidates,
                AnotPoolMode      pool_mode,
                AnotShuffleMode   shuffle,
                guint64           seed,
                guint             run,
                AnotAttack       *attack,
                const char       *attack_name,
                GError          **error)
{
  g_autoptr(AnotTrial) self = NULL;
  const char *request_id;

  g_return_val_if_fail (ANOT_IS_DATASET (dataset), NULL);
  g_return_val_if_fail (ANOT_IS_REQUEST (request), NULL);
  g_return_val_if_fail (attack == NULL || ANOT_IS_ATTACK (attack), NULL);
  g_return_val_if_fail (attack == NULL || attack_name != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  request_id = anot_request_get_id (request);
  self = g_object_new (ANOT_TYPE_TRIAL, NULL);
  self->run_seed = seed + run;
  self->method_seed = anot_method_context_derive_seed (self->run_seed, request_id, n_candidates);

  self->pool = anot_pool_new (dataset, request, n_candidates, pool_mode, shuffle,
                              self->run_seed, error);
  if (self->pool == NULL)
    return NULL;
  self->query = anot_query_new_for_request (request);

  if (attack != NULL)
    {
      self->attack_seed = anot_attack_derive_seed (self->run_seed, attack_name, request_id,
                                                   n_candidates);
      self->attacked = anot_attack_apply (attack, anot_pool_get_shuffled (self->pool), request,
                                          self->attack_seed, error);
      if (self->attacked == NULL)
        return NULL;
    }
  return g_steal_pointer (&self);
}

/**
 * anot_trial_get_pool:
 * @self: an #AnotTrial
 *
 * Returns: (transfer none): the clean pool, with its shuffle
 */
AnotPool *
anot_trial_get_pool (AnotTrial *self)
{
  g_return_val_if_fail (ANOT_IS_TRIAL (self), NULL);
  return self->pool;
}

/**
 * anot_trial_get_request:
 * @self: an #AnotTrial
 *
 * Returns: (transfer none): the request
 */
AnotRequest *
anot_trial_get_request (AnotTrial *self)
{
  g_return_val_if_fail (ANOT_IS_TRIAL (self), NULL);
  return anot_pool_get_request (self->pool);
}

/**
 * anot_trial_get_query:
 * @self: an #AnotTrial
 *
 * Returns: (transfer none): what the method is told about the request:
 *   its id, group and text
 */
AnotQuery *
anot_trial_get_query (AnotTrial *self)
{
  g_return_val_if_fail (ANOT_IS_TRIAL (self), NULL);
  return self->query;
}

/**
 * anot_trial_get_candidates:
 * @self: an #AnotTrial
 *
 * Returns: (transfer none) (element-type Anot.Item): what the method
 *   sees: the shuffled candidates, attacked when there is an attack
 */
GPtrArray *
anot_trial_get_candidates (AnotTrial *self)
{
  g_return_val_if_fail (ANOT_IS_TRIAL (self), NULL);
  return self->attacked != NULL ? self->attacked : anot_pool_get_shuffled (self->pool);
}

/**
 * anot_trial_is_attacked:
 * @self: an #AnotTrial
 *
 * Returns: whether an attack was applied
 */
gboolean
anot_trial_is_attacked (AnotTrial *self)
{
  g_return_val_if_fail (ANOT_IS_TRIAL (self), FALSE);
  return self->attacked != NULL;
}

/**
 * anot_trial_get_run_seed:
 * @self: an #AnotTrial
 *
 * Returns: the seed of the run: the base seed plus the run
 */
guint64
anot_trial_get_run_seed (AnotTrial *self)
{
  g_return_val_if_fail (ANOT_IS_TRIAL (self), 0);
  return self->run_seed;
}

/**
 * anot_trial_get_attack_seed:
 * @self: an #AnotTrial
 *
 * Returns: the seed the attack was applied with, 0 without an attack
 */
guint64
anot_trial_get_attack_seed (AnotTrial *self)
{
  g_return_val_if_fail (ANOT_IS_TRIAL (self), 0);
  return self->attack_seed;
}

/**
 * anot_trial_get_method_seed:
 * @self: an #AnotTrial
 *
 * Returns: the seed of the method's context for this request
 */
guint64
anot_trial_get_method_seed (AnotTrial *self)
{
  g_return_val_if_fail (ANOT_IS_TRIAL (self), 0);
  return self->method_seed;
}
