/* anot-review-forge.h
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
#include "anot-item.h"
#include "anot-request.h"
#include "anot-review.h"

G_BEGIN_DECLS

/**
 * AnotAttackCompat:
 * @ANOT_ATTACK_COMPAT_REALISTIC: reviews an attack adds look like the
 *   dataset's own: an id in its format, a date in the item's range, a
 *   reviewer drawn from its users, plausible votes (the default)
 * @ANOT_ATTACK_COMPAT_ORIGINAL: the original framework's labelled reviews:
 *   ids such as `fake_001` or `sarcastic_no_wifi`, the date `2024-01-01`,
 *   no user, no votes, no `business_id`; for comparing with its published
 *   numbers
 *
 * The form of the reviews an attack adds (`--attack-compat`).
 */
typedef enum {
  ANOT_ATTACK_COMPAT_REALISTIC,
  ANOT_ATTACK_COMPAT_ORIGINAL,
} AnotAttackCompat;

/**
 * AnotReviewIdShape:
 * @ANOT_REVIEW_ID_SHAPE_DATASET: each character drawn from those the
 *   dataset's ids have at that position (most of the format's ids are free)
 * @ANOT_REVIEW_ID_SHAPE_SEQUENTIAL: the dataset's ids are one prefix and a
 *   number, zero-padded to one width (`rv000` ... `rv039`) or not padded
 *   (`rev1` ... `rev40`), that leave too few ids free: the numbering
 *   continues (`rv040`, `rv041`, ...; `rev41`, ...)
 * @ANOT_REVIEW_ID_SHAPE_YELP: too few ids of the dataset's format are free
 *   and they have no numbering: Yelp's format (22 base64url characters)
 *
 * How the reviews an attack adds get their `review_id`.
 */
typedef enum {
  ANOT_REVIEW_ID_SHAPE_DATASET,
  ANOT_REVIEW_ID_SHAPE_SEQUENTIAL,
  ANOT_REVIEW_ID_SHAPE_YELP,
} AnotReviewIdShape;

/**
 * ANOT_ORIGINAL_ADDED_REVIEW_DATE:
 *
 * The date the original framework gave every review its attacks added.
 */
#define ANOT_ORIGINAL_ADDED_REVIEW_DATE "2024-01-01"

#define ANOT_TYPE_REVIEW_FORGE (anot_review_forge_get_type ())
ANOT_AVAILABLE_IN_ALL
G_DECLARE_FINAL_TYPE (AnotReviewForge, anot_review_forge, ANOT, REVIEW_FORGE, GObject)

ANOT_AVAILABLE_IN_ALL
AnotReviewForge *anot_review_forge_new           (AnotDataset      *dataset,
                                                  GPtrArray        *candidates,
                                                  AnotRequest      *request);
ANOT_AVAILABLE_IN_ALL
AnotReview      *anot_review_forge_make          (AnotReviewForge  *self,
                                                  AnotItem         *item,
                                                  GPtrArray        *reviews,
                                                  double            stars,
                                                  const char       *text,
                                                  guint64           seed,
                                                  GError          **error);

ANOT_AVAILABLE_IN_ALL
AnotReviewIdShape anot_review_forge_get_id_shape (AnotReviewForge  *self);
ANOT_AVAILABLE_IN_ALL
const char      *anot_review_id_shape_to_string  (AnotReviewIdShape shape);

ANOT_AVAILABLE_IN_ALL
AnotReview      *anot_review_new_labelled        (AnotItem         *item,
                                                  const char       *id,
                                                  double            stars,
                                                  const char       *text);

ANOT_AVAILABLE_IN_ALL
const char      *anot_attack_compat_to_string    (AnotAttackCompat  compat);
ANOT_AVAILABLE_IN_ALL
gboolean         anot_attack_compat_from_string  (const char       *text,
                                                  AnotAttackCompat *out_compat);

G_END_DECLS
