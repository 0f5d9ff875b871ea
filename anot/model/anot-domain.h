/* anot-domain.h: what a benchmark's items are
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#if !defined(ANOT_INSIDE) && !defined(ANOT_COMPILATION)
#error "Only <anot/anot.h> can be included directly."
#endif

#include "anot-visibility.h"

#include <glib-object.h>

G_BEGIN_DECLS

#define ANOT_TYPE_DOMAIN (anot_domain_get_type ())

ANOT_AVAILABLE_IN_ALL
G_DECLARE_FINAL_TYPE (AnotDomain, anot_domain, ANOT, DOMAIN, GObject)

ANOT_AVAILABLE_IN_ALL
AnotDomain          *anot_domain_new                      (const char          *item,
                                                           const char          *items);
ANOT_AVAILABLE_IN_ALL
AnotDomain          *anot_domain_new_default              (void);
ANOT_AVAILABLE_IN_ALL
AnotDomain          *anot_domain_new_from_json            (const char          *json,
                                                           gssize               length,
                                                           GError             **error);

ANOT_AVAILABLE_IN_ALL
const char          *anot_domain_get_item                 (AnotDomain          *self);
ANOT_AVAILABLE_IN_ALL
const char          *anot_domain_get_items                (AnotDomain          *self);
ANOT_AVAILABLE_IN_ALL
const char          *anot_domain_get_item_title           (AnotDomain          *self);
ANOT_AVAILABLE_IN_ALL
const char          *anot_domain_get_items_title          (AnotDomain          *self);
ANOT_AVAILABLE_IN_ALL
gboolean             anot_domain_is_default               (AnotDomain          *self);

ANOT_AVAILABLE_IN_ALL
void                 anot_domain_add_attribute            (AnotDomain          *self,
                                                           const char          *name,
                                                           const char          *description);
ANOT_AVAILABLE_IN_ALL
const char * const  *anot_domain_get_attribute_names      (AnotDomain          *self);
ANOT_AVAILABLE_IN_ALL
const char          *anot_domain_get_attribute_description (AnotDomain         *self,
                                                            const char         *name);

ANOT_AVAILABLE_IN_ALL
const char * const  *anot_domain_get_example_attributes   (AnotDomain          *self);

G_END_DECLS
