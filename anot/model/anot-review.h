/* anot-review.h
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

G_BEGIN_DECLS

#define ANOT_TYPE_REVIEW (anot_review_get_type ())
ANOT_AVAILABLE_IN_ALL
G_DECLARE_FINAL_TYPE (AnotReview, anot_review, ANOT, REVIEW, GObject)

ANOT_AVAILABLE_IN_ALL
AnotReview  *anot_review_new                    (const char *id,
                                                 const char *item_id,
                                                 double      stars,
                                                 const char *text,
                                                 const char *date);
ANOT_AVAILABLE_IN_ALL
AnotReview  *anot_review_copy_with_text         (AnotReview *self,
                                                 const char *text);
ANOT_AVAILABLE_IN_ALL
const char  *anot_review_get_id                 (AnotReview *self);
ANOT_AVAILABLE_IN_ALL
const char  *anot_review_get_item_id            (AnotReview *self);
ANOT_AVAILABLE_IN_ALL
const char  *anot_review_get_user_id            (AnotReview *self);
ANOT_AVAILABLE_IN_ALL
double       anot_review_get_stars              (AnotReview *self);
ANOT_AVAILABLE_IN_ALL
const char  *anot_review_get_text               (AnotReview *self);
ANOT_AVAILABLE_IN_ALL
const char  *anot_review_get_date               (AnotReview *self);
ANOT_AVAILABLE_IN_ALL
gint64       anot_review_get_useful             (AnotReview *self);
ANOT_AVAILABLE_IN_ALL
gint64       anot_review_get_funny              (AnotReview *self);
ANOT_AVAILABLE_IN_ALL
gint64       anot_review_get_cool               (AnotReview *self);
ANOT_AVAILABLE_IN_ALL
guint        anot_review_get_position           (AnotReview *self);
ANOT_AVAILABLE_IN_ALL
const char  *anot_review_get_reviewer_name      (AnotReview *self);
ANOT_AVAILABLE_IN_ALL
gboolean     anot_review_has_user_average_stars (AnotReview *self);
ANOT_AVAILABLE_IN_ALL
double       anot_review_get_user_average_stars (AnotReview *self);
ANOT_AVAILABLE_IN_ALL
gint64       anot_review_get_user_review_count  (AnotReview *self);
ANOT_AVAILABLE_IN_ALL
const char  *anot_review_get_user_yelping_since (AnotReview *self);
ANOT_AVAILABLE_IN_ALL
JsonObject  *anot_review_to_json                (AnotReview *self);

G_END_DECLS
