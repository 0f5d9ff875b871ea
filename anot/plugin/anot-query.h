/* anot-query.h
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#if !defined(ANOT_INSIDE) && !defined(ANOT_COMPILATION)
#error "Only <anot/anot.h> can be included directly."
#endif

#include "anot-visibility.h"

#include <glib-object.h>

#include "anot-request.h"

G_BEGIN_DECLS

#define ANOT_TYPE_QUERY (anot_query_get_type ())
ANOT_AVAILABLE_IN_ALL
G_DECLARE_FINAL_TYPE (AnotQuery, anot_query, ANOT, QUERY, GObject)

ANOT_AVAILABLE_IN_ALL
AnotQuery  *anot_query_new             (const char  *id,
                                        const char  *group,
                                        const char  *text);
ANOT_AVAILABLE_IN_ALL
AnotQuery  *anot_query_new_for_request (AnotRequest *request);
ANOT_AVAILABLE_IN_ALL
const char *anot_query_get_id          (AnotQuery   *self);
ANOT_AVAILABLE_IN_ALL
const char *anot_query_get_group       (AnotQuery   *self);
ANOT_AVAILABLE_IN_ALL
const char *anot_query_get_text        (AnotQuery   *self);

G_END_DECLS
