/* anot-item-attack.h
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#if !defined(ANOT_INSIDE) && !defined(ANOT_COMPILATION)
#error "Only <anot/anot.h> can be included directly."
#endif

#include "anot-visibility.h"

#include <glib-object.h>

#include "anot-attack.h"
#include "anot-attack-templates.h"
#include "anot-item.h"
#include "anot-request.h"
#include "anot-review-forge.h"

G_BEGIN_DECLS

#define ANOT_TYPE_ITEM_ATTACK (anot_item_attack_get_type ())
ANOT_AVAILABLE_IN_ALL
G_DECLARE_DERIVABLE_TYPE (AnotItemAttack, anot_item_attack, ANOT, ITEM_ATTACK, GObject)

/**
 * AnotItemAttackClass:
 * @parent_class: the parent class
 * @category: the family the attack belongs to (`noise`, `injection`,
 *   `deception`, ...), set in class_init; `anot-run --attack CATEGORY`
 *   selects every attack of a family
 * @attack_item: return the reviews the attacked copy of @item has, or
 *   %NULL (without an error) to leave @item as it is; see
 *   #AnotItemAttackClass::attack_item
 * @check: check the parameters before a run (e.g. a required one is set)
 *
 * The class of attacks that rewrite the reviews of some candidates.
 */
struct _AnotItemAttackClass
{
  GObjectClass parent_class;

  const char *category;

  GPtrArray *(*attack_item) (AnotItemAttack  *self,
                             AnotItem        *item,
                             AnotRequest     *request,
                             guint64          seed,
                             GError         **error);
  gboolean   (*check)       (AnotItemAttack  *self,
                             GError         **error);

  /*< private >*/
  gpointer padding[8];
};

ANOT_AVAILABLE_IN_ALL
int         anot_item_attack_get_restaurants (AnotItemAttack  *self);
ANOT_AVAILABLE_IN_ALL
void        anot_item_attack_set_restaurants (AnotItemAttack  *self,
                                              int              restaurants);
ANOT_AVAILABLE_IN_ALL
AnotAttackCompat anot_item_attack_get_compat (AnotItemAttack  *self);
ANOT_AVAILABLE_IN_ALL
void        anot_item_attack_set_compat      (AnotItemAttack  *self,
                                              AnotAttackCompat compat);
ANOT_AVAILABLE_IN_ALL
AnotReview *anot_item_attack_make_review     (AnotItemAttack  *self,
                                              AnotItem        *item,
                                              GPtrArray       *reviews,
                                              const char      *label,
                                              double           stars,
                                              const char      *text,
                                              guint64          seed,
                                              GError         **error);
ANOT_AVAILABLE_IN_ALL
const char *anot_item_attack_get_category    (AnotItemAttack  *self);
ANOT_AVAILABLE_IN_ALL
gboolean    anot_item_attack_check           (AnotItemAttack  *self,
                                              GError         **error);

ANOT_AVAILABLE_IN_ALL
GType       anot_item_attack_register_variant (GTypeModule    *module,
                                               GType           family,
                                               const char     *type_name,
                                               gsize           class_size,
                                               gsize           instance_size,
                                               GClassInitFunc  class_init,
                                               gconstpointer   class_data);

ANOT_AVAILABLE_IN_ALL
const char * const *anot_item_attack_get_texts (AnotItemAttack      *self,
                                                AnotItem            *item,
                                                const char          *key,
                                                const char * const  *restaurant,
                                                GError             **error);
ANOT_AVAILABLE_IN_ALL
AnotAttackTemplates *anot_item_attack_get_templates (AnotItemAttack  *self,
                                                     AnotItem        *item,
                                                     GError         **error);

G_END_DECLS
