/* anot-results.h
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#if !defined(ANOT_INSIDE) && !defined(ANOT_COMPILATION)
#error "Only <anot/anot.h> can be included directly."
#endif

#include "anot-visibility.h"

#include <gio/gio.h>
#include <json-glib/json-glib.h>

G_BEGIN_DECLS

#define ANOT_TYPE_RESULTS (anot_results_get_type ())
ANOT_AVAILABLE_IN_ALL
G_DECLARE_FINAL_TYPE (AnotResults, anot_results, ANOT, RESULTS, GObject)

ANOT_AVAILABLE_IN_ALL
AnotResults *anot_results_new               (void);
ANOT_AVAILABLE_IN_ALL
AnotResults *anot_results_load              (const char   *path,
                                             GError      **error);
ANOT_AVAILABLE_IN_ALL
gboolean     anot_results_add_directory     (AnotResults  *self,
                                             const char   *path,
                                             GError      **error);
ANOT_AVAILABLE_IN_ALL
guint        anot_results_get_n_rows        (AnotResults  *self);
ANOT_AVAILABLE_IN_ALL
guint        anot_results_get_n_runs        (AnotResults  *self);
ANOT_AVAILABLE_IN_ALL
JsonArray   *anot_results_get_rows          (AnotResults  *self);
ANOT_AVAILABLE_IN_ALL
JsonArray   *anot_results_get_runs          (AnotResults  *self);
ANOT_AVAILABLE_IN_ALL
char       **anot_results_list_methods      (AnotResults  *self);
ANOT_AVAILABLE_IN_ALL
JsonNode    *anot_results_get_trace         (AnotResults  *self,
                                             guint         row,
                                             GError      **error);

G_END_DECLS
