/* anot-verdict.h
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

#include "anot-condition.h"

G_BEGIN_DECLS

#define ANOT_TYPE_VERDICT (anot_verdict_get_type ())
ANOT_AVAILABLE_IN_ALL
G_DECLARE_FINAL_TYPE (AnotVerdict, anot_verdict, ANOT, VERDICT, GObject)

ANOT_AVAILABLE_IN_ALL
AnotTruth      anot_verdict_get_truth       (AnotVerdict *self);
ANOT_AVAILABLE_IN_ALL
const char    *anot_verdict_get_request_id  (AnotVerdict *self);
ANOT_AVAILABLE_IN_ALL
const char    *anot_verdict_get_item_id     (AnotVerdict *self);
ANOT_AVAILABLE_IN_ALL
guint          anot_verdict_get_n_leaves    (AnotVerdict *self);
ANOT_AVAILABLE_IN_ALL
AnotCondition *anot_verdict_get_leaf        (AnotVerdict *self,
                                             guint        position);
ANOT_AVAILABLE_IN_ALL
AnotTruth      anot_verdict_get_leaf_truth  (AnotVerdict *self,
                                             guint        position);
ANOT_AVAILABLE_IN_ALL
char          *anot_verdict_get_leaf_key    (AnotVerdict *self,
                                             guint        position);
ANOT_AVAILABLE_IN_ALL
gboolean       anot_verdict_lookup_leaf     (AnotVerdict *self,
                                             const char  *aspect,
                                             AnotTruth   *out_truth);
ANOT_AVAILABLE_IN_ALL
JsonNode      *anot_verdict_to_json         (AnotVerdict *self);

G_END_DECLS
