/* anot-item.h
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#if !defined(ANOT_INSIDE) && !defined(ANOT_COMPILATION)
#error "Only <anot/anot.h> can be included directly."
#endif

#include <glib-object.h>
#include <json-glib/json-glib.h>

#include "anot-review.h"

G_BEGIN_DECLS

#define ANOT_TYPE_ITEM (anot_item_get_type ())
G_DECLARE_FINAL_TYPE (AnotItem, anot_item, ANOT, ITEM, GObject)

AnotItem           *anot_item_copy_with_reviews (AnotItem   *self,
                                                 GPtrArray  *reviews);
const char         *anot_item_get_id            (AnotItem   *self);
guint               anot_item_get_index         (AnotItem   *self);
const char         *anot_item_get_name          (AnotItem   *self);
const char         *anot_item_get_city          (AnotItem   *self);
double              anot_item_get_stars         (AnotItem   *self);
const char * const *anot_item_get_categories    (AnotItem   *self);
const char         *anot_item_get_categories_string (AnotItem *self);
JsonObject         *anot_item_get_record        (AnotItem   *self);
JsonObject         *anot_item_get_attributes    (AnotItem   *self);
const char         *anot_item_get_attribute     (AnotItem   *self,
                                                 const char *name);
const char         *anot_item_get_hours         (AnotItem   *self,
                                                 const char *day);
guint               anot_item_get_n_reviews     (AnotItem   *self);
AnotReview         *anot_item_get_review        (AnotItem   *self,
                                                 guint       position);
GPtrArray          *anot_item_get_reviews       (AnotItem   *self);

G_END_DECLS
