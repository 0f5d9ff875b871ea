/* anot-results.h
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#if !defined(ANOT_INSIDE) && !defined(ANOT_COMPILATION)
#error "Only <anot/anot.h> can be included directly."
#endif

#include <gio/gio.h>
#include <json-glib/json-glib.h>

G_BEGIN_DECLS

#define ANOT_TYPE_RESULTS (anot_results_get_type ())
G_DECLARE_FINAL_TYPE (AnotResults, anot_results, ANOT, RESULTS, GObject)

AnotResults *anot_results_new               (void);
AnotResults *anot_results_load              (const char   *path,
                                             GError      **error);
gboolean     anot_results_add_directory     (AnotResults  *self,
                                             const char   *path,
                                             GError      **error);
guint        anot_results_get_n_rows        (AnotResults  *self);
guint        anot_results_get_n_runs        (AnotResults  *self);
JsonArray   *anot_results_get_rows          (AnotResults  *self);
JsonArray   *anot_results_get_runs          (AnotResults  *self);
char       **anot_results_list_methods      (AnotResults  *self);
JsonNode    *anot_results_get_trace         (AnotResults  *self,
                                             guint         row,
                                             GError      **error);

G_END_DECLS
