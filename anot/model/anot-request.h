/* anot-request.h
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#if !defined(ANOT_INSIDE) && !defined(ANOT_COMPILATION)
#error "Only <anot/anot.h> can be included directly."
#endif

#include "anot-visibility.h"

#include <glib-object.h>

#include "anot-condition.h"

G_BEGIN_DECLS

#define ANOT_TYPE_REQUEST (anot_request_get_type ())
ANOT_AVAILABLE_IN_ALL
G_DECLARE_FINAL_TYPE (AnotRequest, anot_request, ANOT, REQUEST, GObject)

ANOT_AVAILABLE_IN_ALL
const char    *anot_request_get_id           (AnotRequest *self);
ANOT_AVAILABLE_IN_ALL
const char    *anot_request_get_group        (AnotRequest *self);
ANOT_AVAILABLE_IN_ALL
const char    *anot_request_get_scenario     (AnotRequest *self);
ANOT_AVAILABLE_IN_ALL
const char    *anot_request_get_text         (AnotRequest *self);
ANOT_AVAILABLE_IN_ALL
const char    *anot_request_get_shorthand    (AnotRequest *self);
ANOT_AVAILABLE_IN_ALL
AnotCondition *anot_request_get_structure    (AnotRequest *self);
ANOT_AVAILABLE_IN_ALL
const char    *anot_request_get_gold_item_id (AnotRequest *self);
ANOT_AVAILABLE_IN_ALL
guint          anot_request_get_gold_index   (AnotRequest *self);

G_END_DECLS
