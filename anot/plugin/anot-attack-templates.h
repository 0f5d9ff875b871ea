/* anot-attack-templates.h
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#if !defined(ANOT_INSIDE) && !defined(ANOT_COMPILATION)
#error "Only <anot/anot.h> can be included directly."
#endif

#include "anot-visibility.h"

#include <glib-object.h>

#include "anot-dataset.h"

G_BEGIN_DECLS

/**
 * ANOT_ATTACK_TEMPLATES_FILE:
 *
 * The file of a benchmark directory that gives its own attack texts.
 */
#define ANOT_ATTACK_TEMPLATES_FILE "attack_templates.json"

#define ANOT_TYPE_ATTACK_TEMPLATES (anot_attack_templates_get_type ())
ANOT_AVAILABLE_IN_ALL
G_DECLARE_FINAL_TYPE (AnotAttackTemplates, anot_attack_templates, ANOT, ATTACK_TEMPLATES, GObject)

ANOT_AVAILABLE_IN_ALL
AnotAttackTemplates *anot_attack_templates_get_for_dataset (AnotDataset          *dataset,
                                                            GError              **error);
ANOT_AVAILABLE_IN_ALL
const char          *anot_attack_templates_get_set_name    (AnotAttackTemplates  *self);
ANOT_AVAILABLE_IN_ALL
const char * const  *anot_attack_templates_lookup          (AnotAttackTemplates  *self,
                                                            const char           *key,
                                                            const char * const   *restaurant);
ANOT_AVAILABLE_IN_ALL
const char          *anot_attack_templates_get_rule_attribute (AnotAttackTemplates *self,
                                                               const char          *topic);
ANOT_AVAILABLE_IN_ALL
gboolean             anot_attack_templates_get_original_rules (AnotAttackTemplates *self);

G_END_DECLS
