/* anot-pool.h
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#if !defined(ANOT_INSIDE) && !defined(ANOT_COMPILATION)
#error "Only <anot/anot.h> can be included directly."
#endif

#include "anot-visibility.h"

#include <glib-object.h>

#include "anot-dataset.h"
#include "anot-seed.h"

G_BEGIN_DECLS

/**
 * AnotPoolMode:
 * @ANOT_POOL_MODE_SAMPLED: the gold item plus N−1 distractors drawn at random
 *   (seeded per request); every request is kept
 * @ANOT_POOL_MODE_ORIGINAL: the original framework's rule: the N items that
 *   are most often a gold answer (ties by file order), the same pool for every
 *   request; requests whose gold falls outside are dropped
 *
 * How the candidate pool of a request is chosen.
 */
typedef enum {
  ANOT_POOL_MODE_SAMPLED,
  ANOT_POOL_MODE_ORIGINAL,
} AnotPoolMode;

/**
 * AnotShuffleMode:
 * @ANOT_SHUFFLE_MODE_NONE: candidates are shown in pool order
 * @ANOT_SHUFFLE_MODE_MIDDLE: the gold item is moved to position N / 2
 * @ANOT_SHUFFLE_MODE_RANDOM: a seeded random permutation per request
 *
 * How the pool is ordered before a method sees it.
 */
typedef enum {
  ANOT_SHUFFLE_MODE_NONE,
  ANOT_SHUFFLE_MODE_MIDDLE,
  ANOT_SHUFFLE_MODE_RANDOM,
} AnotShuffleMode;

#define ANOT_TYPE_POOL (anot_pool_get_type ())
ANOT_AVAILABLE_IN_ALL
G_DECLARE_FINAL_TYPE (AnotPool, anot_pool, ANOT, POOL, GObject)

ANOT_AVAILABLE_IN_ALL
AnotPool   *anot_pool_new                        (AnotDataset     *dataset,
                                                  AnotRequest     *request,
                                                  guint            n_candidates,
                                                  AnotPoolMode     mode,
                                                  AnotShuffleMode  shuffle,
                                                  guint64          seed,
                                                  GError         **error);
ANOT_AVAILABLE_IN_ALL
AnotRequest *anot_pool_get_request               (AnotPool        *self);
ANOT_AVAILABLE_IN_ALL
guint       anot_pool_get_size                   (AnotPool        *self);
ANOT_AVAILABLE_IN_ALL
AnotItem   *anot_pool_get_item                   (AnotPool        *self,
                                                  guint            position);
ANOT_AVAILABLE_IN_ALL
guint       anot_pool_get_gold_position          (AnotPool        *self);
ANOT_AVAILABLE_IN_ALL
GPtrArray  *anot_pool_get_shuffled               (AnotPool        *self);
ANOT_AVAILABLE_IN_ALL
guint       anot_pool_get_shuffled_gold_position (AnotPool        *self);
ANOT_AVAILABLE_IN_ALL
guint       anot_pool_shuffled_to_pool           (AnotPool        *self,
                                                  guint            shuffled_position);

G_END_DECLS
