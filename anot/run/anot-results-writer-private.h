/* anot-results-writer-private.h: results on disk (internal)
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gio/gio.h>
#include <json-glib/json-glib.h>

#include "anot-metrics.h"
#include "anot-result.h"
#include "anot-usage.h"
#include "anot-validator.h"

G_BEGIN_DECLS

/* AnotResult constructors used by the experiment (not in the GIR). */
AnotResult *anot_result_new_internal      (const char  *request_id,
                                           const char  *group,
                                           guint        n_candidates,
                                           guint        run,
                                           const guint *pred_indices,
                                           guint        n_pred_indices,
                                           const guint *shuffled_preds,
                                           guint        n_shuffled_preds,
                                           guint        gold_idx,
                                           guint        shuffled_gold_pos,
                                           const char  *gold_item_id,
                                           AnotUsage   *usage,
                                           const char  *raw_response,
                                           const char  *error_message);
void        anot_result_set_cut_by        (AnotResult  *self,
                                           const char  *limit);
G_GNUC_INTERNAL
void        anot_result_set_uses_truth    (AnotResult  *self,
                                           gboolean     uses_truth);
/* top1_item, top1_conditions, gold_conditions and condition_kinds: what
 * the validator says of @top1 (NULL: nothing ranked) and @gold. */
void        anot_result_explain           (AnotResult    *self,
                                           AnotValidator *validator,
                                           AnotRequest   *request,
                                           AnotItem      *top1,
                                           AnotItem      *gold);
void        anot_result_set_error_class   (AnotResult  *self,
                                           gboolean     infrastructure);
void        anot_result_set_budget_class  (AnotResult  *self);
void        anot_result_set_context_fit   (AnotResult  *self,
                                           guint        reviews_dropped,
                                           guint        reviews,
                                           guint        calls_fitted);
void        anot_result_set_location      (AnotResult  *self,
                                           guint        run,
                                           guint        n_candidates);
int         anot_result_compare_by_id     (gconstpointer a,
                                           gconstpointer b);

/* An ISO 8601 local timestamp with microseconds, like Python's
 * datetime.now().isoformat(). */
char       *anot_results_timestamp_now    (void);

/* JSON files. */
JsonNode   *anot_results_read_json        (const char  *path,
                                           GError     **error);
gboolean    anot_results_write_json       (const char  *path,
                                           JsonNode    *node,
                                           gboolean     pretty,
                                           GError     **error);
char       *anot_results_node_to_line     (JsonNode    *node);

/* results_<N>.jsonl: rows keyed by request id.  A line that does not parse
 * (the torn last line of a killed run) is skipped; *out_n_skipped counts
 * them. */
GPtrArray  *anot_results_read_rows        (const char  *path,
                                           guint        run,
                                           guint        n_candidates,
                                           guint       *out_n_skipped,
                                           GError     **error);
gboolean    anot_results_write_rows       (const char  *path,
                                           GPtrArray   *results,
                                           GError     **error);

/* usage.jsonl for the rows of every N of one run dir. @by_n maps
 * GUINT_TO_POINTER (N) to a GPtrArray of AnotResult. */
gboolean    anot_results_write_usage      (const char  *path,
                                           GHashTable  *by_n,
                                           GError     **error);

/* The compact "9.6M, $1.57, 3299s" string of scaling_summary.json. */
char       *anot_results_format_usage     (guint64      tokens,
                                           double       cost_usd,
                                           double       latency_ms);

/* summary.json of an attack dir from every run_<R>/config.json in it. */
JsonNode   *anot_results_summarize_attack_dir (const char *attack_dir,
                                               const char *method,
                                               const char *data,
                                               const char *attack,
                                               GError    **error);

G_END_DECLS
