/* anot-verdict.h
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#if !defined(ANOT_INSIDE) && !defined(ANOT_COMPILATION)
#error "Only <anot/anot.h> can be included directly."
#endif

#include <glib-object.h>
#include <json-glib/json-glib.h>

#include "anot-condition.h"

G_BEGIN_DECLS

#define ANOT_TYPE_VERDICT (anot_verdict_get_type ())
G_DECLARE_FINAL_TYPE (AnotVerdict, anot_verdict, ANOT, VERDICT, GObject)

AnotTruth      anot_verdict_get_truth       (AnotVerdict *self);
const char    *anot_verdict_get_request_id  (AnotVerdict *self);
const char    *anot_verdict_get_item_id     (AnotVerdict *self);
guint          anot_verdict_get_n_leaves    (AnotVerdict *self);
AnotCondition *anot_verdict_get_leaf        (AnotVerdict *self,
                                             guint        position);
AnotTruth      anot_verdict_get_leaf_truth  (AnotVerdict *self,
                                             guint        position);
gboolean       anot_verdict_lookup_leaf     (AnotVerdict *self,
                                             const char  *aspect,
                                             AnotTruth   *out_truth);
JsonNode      *anot_verdict_to_json         (AnotVerdict *self);

G_END_DECLS
