/* anot-attack.h
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#if !defined(ANOT_INSIDE) && !defined(ANOT_COMPILATION)
#error "Only <anot/anot.h> can be included directly."
#endif

#include "anot-visibility.h"

#include <glib-object.h>
#include <json-glib/json-glib.h>

#include "anot-item.h"
#include "anot-request.h"

G_BEGIN_DECLS

#define ANOT_TYPE_ATTACK (anot_attack_get_type ())
ANOT_AVAILABLE_IN_ALL
G_DECLARE_INTERFACE (AnotAttack, anot_attack, ANOT, ATTACK, GObject)

/**
 * AnotAttackInterface:
 * @apply: return an attacked copy of @candidates; must be a pure function of
 *   its arguments and must not modify them
 *
 * The interface an adversarial attack implements.
 */
struct _AnotAttackInterface
{
  GTypeInterface g_iface;

  GPtrArray *(*apply) (AnotAttack   *self,
                       GPtrArray    *candidates,
                       AnotRequest  *request,
                       guint64       seed,
                       GError      **error);

  /*< private >*/
  gpointer padding[8];
};

ANOT_AVAILABLE_IN_ALL
GPtrArray  *anot_attack_apply               (AnotAttack   *self,
                                             GPtrArray    *candidates,
                                             AnotRequest  *request,
                                             guint64       seed,
                                             GError      **error);

ANOT_AVAILABLE_IN_ALL
gboolean    anot_attack_has_parameter       (AnotAttack   *self,
                                             const char   *name);
ANOT_AVAILABLE_IN_ALL
gboolean    anot_attack_set_parameter       (AnotAttack   *self,
                                             const char   *name,
                                             const char   *value,
                                             GError      **error);
ANOT_AVAILABLE_IN_ALL
JsonObject *anot_attack_get_parameters      (AnotAttack   *self);

ANOT_AVAILABLE_IN_ALL
guint64     anot_attack_derive_seed         (guint64       run_seed,
                                             const char   *attack,
                                             const char   *request_id,
                                             guint         n_candidates);
ANOT_AVAILABLE_IN_ALL
GRand      *anot_attack_rand_new            (guint64       seed);
ANOT_AVAILABLE_IN_ALL
GArray     *anot_attack_sample              (GRand        *rand,
                                             guint         n,
                                             guint         k);
ANOT_AVAILABLE_IN_ALL
JsonNode   *anot_attack_describe            (GPtrArray    *clean,
                                             GPtrArray    *attacked,
                                             AnotRequest  *request);

G_END_DECLS
