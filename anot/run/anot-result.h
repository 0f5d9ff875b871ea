/* anot-result.h
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#if !defined(ANOT_INSIDE) && !defined(ANOT_COMPILATION)
#error "Only <anot/anot.h> can be included directly."
#endif

#include <glib-object.h>
#include <json-glib/json-glib.h>

#include "anot-usage.h"

G_BEGIN_DECLS

#define ANOT_TYPE_RESULT (anot_result_get_type ())
G_DECLARE_FINAL_TYPE (AnotResult, anot_result, ANOT, RESULT, GObject)

AnotResult  *anot_result_new_from_json          (JsonObject   *row,
                                                 GError      **error);
JsonNode    *anot_result_to_json                (AnotResult   *self);
const char  *anot_result_get_request_id         (AnotResult   *self);
const char  *anot_result_get_group              (AnotResult   *self);
guint        anot_result_get_n_candidates       (AnotResult   *self);
guint        anot_result_get_run                (AnotResult   *self);
const guint *anot_result_get_pred_indices       (AnotResult   *self,
                                                 guint        *n_indices);
const guint *anot_result_get_shuffled_preds     (AnotResult   *self,
                                                 guint        *n_indices);
guint        anot_result_get_gold_idx           (AnotResult   *self);
guint        anot_result_get_shuffled_gold_pos  (AnotResult   *self);
const char  *anot_result_get_gold_item_id       (AnotResult   *self);
guint        anot_result_get_gold_rank          (AnotResult   *self);
gboolean     anot_result_get_uses_truth         (AnotResult   *self);
AnotUsage   *anot_result_get_usage              (AnotResult   *self);
const char  *anot_result_get_raw_response       (AnotResult   *self);
const char  *anot_result_get_error_message      (AnotResult   *self);

G_END_DECLS
