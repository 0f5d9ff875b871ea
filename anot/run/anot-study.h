/* anot-study.h: a paper's grid of experiments, run as one
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#if !defined(ANOT_INSIDE) && !defined(ANOT_COMPILATION)
#error "Only <anot/anot.h> can be included directly."
#endif

#include "anot-visibility.h"

#include "anot-results.h"
#include "anot-study-cell.h"

G_BEGIN_DECLS

#define ANOT_TYPE_STUDY (anot_study_get_type ())
ANOT_AVAILABLE_IN_ALL
G_DECLARE_FINAL_TYPE (AnotStudy, anot_study, ANOT, STUDY, GObject)

ANOT_AVAILABLE_IN_ALL
AnotStudy  *anot_study_load              (const char          *path,
                                          GError             **error);
ANOT_AVAILABLE_IN_ALL
const char *anot_study_get_name          (AnotStudy           *self);
ANOT_AVAILABLE_IN_ALL
const char *anot_study_get_path          (AnotStudy           *self);
ANOT_AVAILABLE_IN_ALL
char       *anot_study_get_directory     (AnotStudy           *self);
ANOT_AVAILABLE_IN_ALL
const char *anot_study_get_baseline      (AnotStudy           *self);
ANOT_AVAILABLE_IN_ALL
void        anot_study_set_out           (AnotStudy           *self,
                                          const char          *out);
ANOT_AVAILABLE_IN_ALL
gboolean    anot_study_set_option        (AnotStudy           *self,
                                          const char          *key,
                                          const char          *value,
                                          GError             **error);
ANOT_AVAILABLE_IN_ALL
gboolean    anot_study_set_shard         (AnotStudy           *self,
                                          guint                index,
                                          guint                count,
                                          GError             **error);
ANOT_AVAILABLE_IN_ALL
void        anot_study_set_retry         (AnotStudy           *self,
                                          guint                rounds);
ANOT_AVAILABLE_IN_ALL
GPtrArray  *anot_study_get_cells         (AnotStudy           *self,
                                          GError             **error);
ANOT_AVAILABLE_IN_ALL
guint       anot_study_get_n_planned     (AnotStudy           *self);
ANOT_AVAILABLE_IN_ALL
guint       anot_study_get_n_done        (AnotStudy           *self);
ANOT_AVAILABLE_IN_ALL
JsonNode   *anot_study_estimate          (AnotStudy           *self,
                                          guint                completion_tokens,
                                          GError             **error);
ANOT_AVAILABLE_IN_ALL
void        anot_study_run_async         (AnotStudy           *self,
                                          GCancellable        *cancellable,
                                          GAsyncReadyCallback  callback,
                                          gpointer             user_data);
ANOT_AVAILABLE_IN_ALL
gboolean    anot_study_run_finish        (AnotStudy           *self,
                                          GAsyncResult        *result,
                                          GError             **error);
ANOT_AVAILABLE_IN_ALL
gboolean    anot_study_run               (AnotStudy           *self,
                                          GCancellable        *cancellable,
                                          GError             **error);
ANOT_AVAILABLE_IN_ALL
AnotResults *anot_study_load_results     (AnotStudy           *self,
                                          GError             **error);
ANOT_AVAILABLE_IN_ALL
gboolean    anot_study_write_report      (AnotStudy           *self,
                                          GError             **error);
ANOT_AVAILABLE_IN_ALL
gboolean    anot_study_is_study_directory (const char         *directory);
ANOT_AVAILABLE_IN_ALL
gboolean    anot_study_merge_shards      (const char          *out_directory,
                                          const char * const  *shard_directories,
                                          gboolean             force,
                                          GError             **error);

G_END_DECLS
