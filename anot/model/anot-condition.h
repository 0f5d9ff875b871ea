/* anot-condition.h
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

#include "anot-truth.h"

G_BEGIN_DECLS

#define ANOT_TYPE_CONDITION (anot_condition_get_type ())
ANOT_AVAILABLE_IN_ALL
G_DECLARE_FINAL_TYPE (AnotCondition, anot_condition, ANOT, CONDITION, GObject)

ANOT_AVAILABLE_IN_ALL
AnotCondition    *anot_condition_new_from_json      (JsonNode       *node,
                                                     GError        **error);
ANOT_AVAILABLE_IN_ALL
AnotConditionOp   anot_condition_get_op             (AnotCondition  *self);
ANOT_AVAILABLE_IN_ALL
guint             anot_condition_get_n_children     (AnotCondition  *self);
ANOT_AVAILABLE_IN_ALL
AnotCondition    *anot_condition_get_child          (AnotCondition  *self,
                                                     guint           position);
ANOT_AVAILABLE_IN_ALL
const char       *anot_condition_get_aspect         (AnotCondition  *self);
ANOT_AVAILABLE_IN_ALL
AnotEvidenceKind  anot_condition_get_evidence_kind  (AnotCondition  *self);
ANOT_AVAILABLE_IN_ALL
JsonObject       *anot_condition_get_evidence       (AnotCondition  *self);
ANOT_AVAILABLE_IN_ALL
GPtrArray        *anot_condition_collect_leaves     (AnotCondition  *self);
ANOT_AVAILABLE_IN_ALL
JsonNode         *anot_condition_to_json            (AnotCondition  *self);

ANOT_AVAILABLE_IN_ALL
const char       *anot_evidence_kind_to_string      (AnotEvidenceKind kind);

G_END_DECLS
