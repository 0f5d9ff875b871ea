/* anot-metrics-private.h: helpers shared by the metrics and the results writer
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <json-glib/json-glib.h>

G_BEGIN_DECLS

/* Adds {"mean", "std", "values"} of @values (doubles) as the next value of
 * the object or array being built: the shape of every aggregate over runs in
 * summary.json. */
void _anot_json_add_mean_std (JsonBuilder *builder,
                              GArray      *values);

G_END_DECLS
