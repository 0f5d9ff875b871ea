/* anot-plan-private.h: what the plan executor reads of a plan
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#if !defined(ANOT_COMPILATION)
#error "anot-plan-private.h is private to libanot."
#endif

#include "anot-plan.h"
#include "anot-plan-result.h"

G_BEGIN_DECLS

typedef struct {
  char        *id;
  char        *kind;           /* "tool" or "final" */
  char        *name;
  JsonObject  *input;
  char       **dependencies;   /* dependsOn and references, once each */
} AnotPlanAtom;

const AnotPlanAtom *_anot_plan_get_atom   (AnotPlan *self,
                                           guint     position);
/* "3" for 3, "3", "$3"; NULL for anything else. */
char               *_anot_plan_id_from_node (JsonNode *node);
/* The atom a value refers to ("$3" or {"ref": 3}), or NULL. */
char               *_anot_plan_value_ref  (JsonNode *value);

AnotPlanResult     *_anot_plan_result_new (AnotPlan *plan);
void                _anot_plan_result_set_atom (AnotPlanResult *self,
                                                const char     *id,
                                                JsonNode       *result,
                                                double          start_ms,
                                                double          latency_ms);
void                _anot_plan_result_add_note (AnotPlanResult *self,
                                                const char     *note);
void                _anot_plan_result_finish   (AnotPlanResult *self,
                                                AnotRanking    *ranking,
                                                double          wall_ms,
                                                guint           n_calls,
                                                guint           max_in_flight);

G_END_DECLS
