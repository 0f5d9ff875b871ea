/* anot-attack.c: the adversarial attack interface
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "anot-attack.h"

/**
 * AnotAttack:
 *
 * An adversarial attack on the candidates a method sees.
 *
 * Attacks are plugins registered with the `anot-attack` extension point.  An
 * attack is a pure function of (candidates, request, seed): the same seed
 * gives the same bytes, and the input items are never modified.
 */

G_DEFINE_INTERFACE (AnotAttack, anot_attack, G_TYPE_OBJECT)

static void
anot_attack_default_init (AnotAttackInterface *iface)
{
}

/**
 * anot_attack_apply:
 * @self: an #AnotAttack
 * @candidates: (element-type Anot.Item): the clean candidates
 * @request: the request the candidates are ranked for
 * @seed: the seed of every random choice the attack makes
 * @error: return location for a #GError
 *
 * Returns an attacked copy of @candidates, in the same order.
 *
 * Returns: (transfer container) (element-type Anot.Item): the attacked
 *   candidates, or %NULL on error
 */
GPtrArray *
anot_attack_apply (AnotAttack   *self,
                   GPtrArray    *candidates,
                   AnotRequest  *request,
                   guint64       seed,
                   GError      **error)
{
  AnotAttackInterface *iface;

  g_return_val_if_fail (ANOT_IS_ATTACK (self), NULL);
  g_return_val_if_fail (candidates != NULL, NULL);
  g_return_val_if_fail (ANOT_IS_REQUEST (request), NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  iface = ANOT_ATTACK_GET_IFACE (self);
  g_return_val_if_fail (iface->apply != NULL, NULL);
  return iface->apply (self, candidates, request, seed, error);
}
