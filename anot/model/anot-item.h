/* anot-item.h
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

#include "anot-review.h"

G_BEGIN_DECLS

#define ANOT_TYPE_ITEM (anot_item_get_type ())
ANOT_AVAILABLE_IN_ALL
G_DECLARE_FINAL_TYPE (AnotItem, anot_item, ANOT, ITEM, GObject)

ANOT_AVAILABLE_IN_ALL
AnotItem           *anot_item_copy_with_reviews (AnotItem   *self,
                                                 GPtrArray  *reviews);
ANOT_AVAILABLE_IN_ALL
const char         *anot_item_get_id            (AnotItem   *self);
ANOT_AVAILABLE_IN_ALL
guint               anot_item_get_index         (AnotItem   *self);
ANOT_AVAILABLE_IN_ALL
const char         *anot_item_get_name          (AnotItem   *self);
ANOT_AVAILABLE_IN_ALL
const char         *anot_item_get_city          (AnotItem   *self);
ANOT_AVAILABLE_IN_ALL
double              anot_item_get_stars         (AnotItem   *self);
ANOT_AVAILABLE_IN_ALL
const char * const *anot_item_get_categories    (AnotItem   *self);
ANOT_AVAILABLE_IN_ALL
const char         *anot_item_get_categories_string (AnotItem *self);
ANOT_AVAILABLE_IN_ALL
JsonObject         *anot_item_get_record        (AnotItem   *self);
ANOT_AVAILABLE_IN_ALL
JsonObject         *anot_item_dup_file_record   (AnotItem   *self);
ANOT_AVAILABLE_IN_ALL
JsonObject         *anot_item_get_attributes    (AnotItem   *self);
ANOT_AVAILABLE_IN_ALL
const char         *anot_item_get_attribute     (AnotItem   *self,
                                                 const char *name);
ANOT_AVAILABLE_IN_ALL
const char         *anot_item_get_hours         (AnotItem   *self,
                                                 const char *day);
ANOT_AVAILABLE_IN_ALL
guint               anot_item_get_n_reviews     (AnotItem   *self);
ANOT_AVAILABLE_IN_ALL
AnotReview         *anot_item_get_review        (AnotItem   *self,
                                                 guint       position);
ANOT_AVAILABLE_IN_ALL
GPtrArray          *anot_item_get_reviews       (AnotItem   *self);

G_END_DECLS
