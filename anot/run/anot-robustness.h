/* anot-robustness.h
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#if !defined(ANOT_INSIDE) && !defined(ANOT_COMPILATION)
#error "Only <anot/anot.h> can be included directly."
#endif

#include "anot-visibility.h"

#include <json-glib/json-glib.h>

G_BEGIN_DECLS

ANOT_AVAILABLE_IN_ALL
JsonNode *anot_robustness_report        (const char  *directory,
                                         const char  *defense_directory,
                                         GError     **error);
ANOT_AVAILABLE_IN_ALL
char     *anot_robustness_report_format (JsonNode    *report);

G_END_DECLS
