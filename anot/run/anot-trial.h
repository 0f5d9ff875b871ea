/* anot-trial.h: what a method sees for one request
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#if !defined(ANOT_INSIDE) && !defined(ANOT_COMPILATION)
#error "Only <anot/anot.h> can be included directly."
#endif

#include "anot-visibility.h"

#include <gio/gio.h>

#include "anot-attack.h"
#include "anot-dataset.h"
#include "anot-pool.h"
#include "anot-query.h"

G_BEGIN_DECLS

#define ANOT_TYPE_TRIAL (anot_trial_get_type ())
ANOT_AVAILABLE_IN_ALL
G_DECLARE_FINAL_TYPE (AnotTrial, anot_trial, ANOT, TRIAL, GObject)

ANOT_AVAILABLE_IN_ALL
AnotTrial   *anot_trial_new                 (AnotDataset     *dataset,
                                             AnotRequest     *request,
                                             guint            n_candidates,
                                             AnotPoolMode     pool_mode,
                                             AnotShuffleMode  shuffle,
                                             guint64          seed,
                                             guint            run,
                                             AnotAttack      *attack,
                                             const char      *attack_name,
                                             GError         **error);
ANOT_AVAILABLE_IN_ALL
AnotPool    *anot_trial_get_pool            (AnotTrial       *self);
ANOT_AVAILABLE_IN_ALL
AnotRequest *anot_trial_get_request         (AnotTrial       *self);
ANOT_AVAILABLE_IN_ALL
AnotQuery   *anot_trial_get_query           (AnotTrial       *self);
ANOT_AVAILABLE_IN_ALL
GPtrArray   *anot_trial_get_candidates      (AnotTrial       *self);
ANOT_AVAILABLE_IN_ALL
gboolean     anot_trial_is_attacked         (AnotTrial       *self);
ANOT_AVAILABLE_IN_ALL
guint64      anot_trial_get_run_seed        (AnotTrial       *self);
ANOT_AVAILABLE_IN_ALL
guint64      anot_trial_get_attack_seed     (AnotTrial       *self);
ANOT_AVAILABLE_IN_ALL
guint64      anot_trial_get_method_seed     (AnotTrial       *self);

G_END_DECLS
