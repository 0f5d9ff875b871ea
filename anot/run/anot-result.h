/* anot-result.h
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

#include "anot-usage.h"

G_BEGIN_DECLS

/**
 * ANOT_RESULT_ERROR_CLASS_METHOD:
 *
 * The [method@Anot.Result.get_error_class] of a request the method failed:
 * scored, as a miss.
 */
#define ANOT_RESULT_ERROR_CLASS_METHOD "method"

/**
 * ANOT_RESULT_ERROR_CLASS_INFRASTRUCTURE:
 *
 * The [method@Anot.Result.get_error_class] of a request the infrastructure
 * failed (see anot_error_is_infrastructure()): not scored, run again by a
 * resume.
 */
#define ANOT_RESULT_ERROR_CLASS_INFRASTRUCTURE "infrastructure"

/**
 * ANOT_RESULT_ERROR_CLASS_BUDGET:
 *
 * The [method@Anot.Result.get_error_class] of a request stopped by the
 * run's budget (`--max-cost`) before one of its calls was sent: not scored,
 * run again by a resume (with a higher budget).
 */
#define ANOT_RESULT_ERROR_CLASS_BUDGET "budget"

#define ANOT_TYPE_RESULT (anot_result_get_type ())
ANOT_AVAILABLE_IN_ALL
G_DECLARE_FINAL_TYPE (AnotResult, anot_result, ANOT, RESULT, GObject)

ANOT_AVAILABLE_IN_ALL
AnotResult  *anot_result_new_from_json          (JsonObject   *row,
                                                 GError      **error);
ANOT_AVAILABLE_IN_ALL
JsonNode    *anot_result_to_json                (AnotResult   *self);
ANOT_AVAILABLE_IN_ALL
const char  *anot_result_get_request_id         (AnotResult   *self);
ANOT_AVAILABLE_IN_ALL
const char  *anot_result_get_group              (AnotResult   *self);
ANOT_AVAILABLE_IN_ALL
guint        anot_result_get_n_candidates       (AnotResult   *self);
ANOT_AVAILABLE_IN_ALL
guint        anot_result_get_run                (AnotResult   *self);
ANOT_AVAILABLE_IN_ALL
const guint *anot_result_get_pred_indices       (AnotResult   *self,
                                                 guint        *n_indices);
ANOT_AVAILABLE_IN_ALL
const guint *anot_result_get_shuffled_preds     (AnotResult   *self,
                                                 guint        *n_indices);
ANOT_AVAILABLE_IN_ALL
guint        anot_result_get_gold_idx           (AnotResult   *self);
ANOT_AVAILABLE_IN_ALL
guint        anot_result_get_shuffled_gold_pos  (AnotResult   *self);
ANOT_AVAILABLE_IN_ALL
const char  *anot_result_get_gold_item_id       (AnotResult   *self);
ANOT_AVAILABLE_IN_ALL
guint        anot_result_get_gold_rank          (AnotResult   *self);
ANOT_AVAILABLE_IN_ALL
gboolean     anot_result_get_uses_truth         (AnotResult   *self);
ANOT_AVAILABLE_IN_ALL
AnotUsage   *anot_result_get_usage              (AnotResult   *self);
ANOT_AVAILABLE_IN_ALL
const char  *anot_result_get_raw_response       (AnotResult   *self);
ANOT_AVAILABLE_IN_ALL
const char  *anot_result_get_cut_by             (AnotResult   *self);
ANOT_AVAILABLE_IN_ALL
const char  *anot_result_get_error_message      (AnotResult   *self);
ANOT_AVAILABLE_IN_ALL
const char  *anot_result_get_top1_item          (AnotResult   *self);
ANOT_AVAILABLE_IN_ALL
JsonObject  *anot_result_get_top1_conditions    (AnotResult   *self);
ANOT_AVAILABLE_IN_ALL
JsonArray   *anot_result_get_top1_failed        (AnotResult   *self);
ANOT_AVAILABLE_IN_ALL
JsonObject  *anot_result_get_gold_conditions    (AnotResult   *self);
ANOT_AVAILABLE_IN_ALL
JsonObject  *anot_result_get_condition_kinds    (AnotResult   *self);
ANOT_AVAILABLE_IN_ALL
const char  *anot_result_get_error_class        (AnotResult   *self);
ANOT_AVAILABLE_IN_ALL
gboolean     anot_result_is_scored              (AnotResult   *self);
ANOT_AVAILABLE_IN_ALL
gboolean     anot_result_get_context_fit        (AnotResult   *self,
                                                 guint        *out_reviews_dropped,
                                                 guint        *out_reviews,
                                                 guint        *out_calls_fitted);

G_END_DECLS
