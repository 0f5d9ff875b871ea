/* anot-plan-result.h
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

#include "anot-plan.h"
#include "anot-ranking.h"

G_BEGIN_DECLS

#define ANOT_TYPE_PLAN_RESULT (anot_plan_result_get_type ())
ANOT_AVAILABLE_IN_ALL
G_DECLARE_FINAL_TYPE (AnotPlanResult, anot_plan_result, ANOT, PLAN_RESULT, GObject)

ANOT_AVAILABLE_IN_ALL
AnotPlan           *anot_plan_result_get_plan          (AnotPlanResult *self);
ANOT_AVAILABLE_IN_ALL
AnotRanking        *anot_plan_result_get_ranking       (AnotPlanResult *self);
ANOT_AVAILABLE_IN_ALL
JsonNode           *anot_plan_result_get_atom_result   (AnotPlanResult *self,
                                                        const char     *id);
ANOT_AVAILABLE_IN_ALL
double              anot_plan_result_get_atom_start_ms (AnotPlanResult *self,
                                                        const char     *id);
ANOT_AVAILABLE_IN_ALL
double              anot_plan_result_get_atom_latency_ms (AnotPlanResult *self,
                                                        const char     *id);
ANOT_AVAILABLE_IN_ALL
const char * const *anot_plan_result_get_order         (AnotPlanResult *self);
ANOT_AVAILABLE_IN_ALL
const char * const *anot_plan_result_get_notes         (AnotPlanResult *self);
ANOT_AVAILABLE_IN_ALL
guint               anot_plan_result_get_n_calls       (AnotPlanResult *self);
ANOT_AVAILABLE_IN_ALL
guint               anot_plan_result_get_max_in_flight (AnotPlanResult *self);
ANOT_AVAILABLE_IN_ALL
double              anot_plan_result_get_wall_ms       (AnotPlanResult *self);
ANOT_AVAILABLE_IN_ALL
JsonNode           *anot_plan_result_to_json           (AnotPlanResult *self,
                                                        guint           max_value_length);

G_END_DECLS
