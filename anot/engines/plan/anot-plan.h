/* anot-plan.h
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

#define ANOT_TYPE_PLAN (anot_plan_get_type ())
ANOT_AVAILABLE_IN_ALL
G_DECLARE_FINAL_TYPE (AnotPlan, anot_plan, ANOT, PLAN, GObject)

ANOT_AVAILABLE_IN_ALL
AnotPlan           *anot_plan_parse               (const char  *text,
                                                   GError     **error);
ANOT_AVAILABLE_IN_ALL
AnotPlan           *anot_plan_new_from_json       (JsonNode    *root);
ANOT_AVAILABLE_IN_ALL
guint               anot_plan_get_n_atoms         (AnotPlan    *self);
ANOT_AVAILABLE_IN_ALL
const char         *anot_plan_get_atom_id         (AnotPlan    *self,
                                                   guint        position);
ANOT_AVAILABLE_IN_ALL
const char         *anot_plan_get_atom_kind       (AnotPlan    *self,
                                                   guint        position);
ANOT_AVAILABLE_IN_ALL
const char         *anot_plan_get_atom_name       (AnotPlan    *self,
                                                   guint        position);
ANOT_AVAILABLE_IN_ALL
JsonObject         *anot_plan_get_atom_input      (AnotPlan    *self,
                                                   guint        position);
ANOT_AVAILABLE_IN_ALL
const char * const *anot_plan_get_atom_dependencies (AnotPlan  *self,
                                                   guint        position);
ANOT_AVAILABLE_IN_ALL
int                 anot_plan_lookup_atom         (AnotPlan    *self,
                                                   const char  *id);
ANOT_AVAILABLE_IN_ALL
const char * const *anot_plan_get_problems        (AnotPlan    *self);
ANOT_AVAILABLE_IN_ALL
JsonNode           *anot_plan_to_json             (AnotPlan    *self);

G_END_DECLS
