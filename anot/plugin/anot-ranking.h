/* anot-ranking.h
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

G_BEGIN_DECLS

#define ANOT_TYPE_RANKING (anot_ranking_get_type ())
ANOT_AVAILABLE_IN_ALL
G_DECLARE_FINAL_TYPE (AnotRanking, anot_ranking, ANOT, RANKING, GObject)

ANOT_AVAILABLE_IN_ALL
AnotRanking  *anot_ranking_new               (void);
ANOT_AVAILABLE_IN_ALL
AnotRanking  *anot_ranking_new_from_scores   (const double *scores,
                                              guint         n_scores);
ANOT_AVAILABLE_IN_ALL
void          anot_ranking_append            (AnotRanking  *self,
                                              guint         index,
                                              double        score);
ANOT_AVAILABLE_IN_ALL
guint         anot_ranking_get_length        (AnotRanking  *self);
ANOT_AVAILABLE_IN_ALL
guint         anot_ranking_get_index         (AnotRanking  *self,
                                              guint         rank);
ANOT_AVAILABLE_IN_ALL
double        anot_ranking_get_score         (AnotRanking  *self,
                                              guint         rank);
ANOT_AVAILABLE_IN_ALL
const char   *anot_ranking_get_raw_response  (AnotRanking  *self);
ANOT_AVAILABLE_IN_ALL
void          anot_ranking_set_raw_response  (AnotRanking  *self,
                                              const char   *raw_response);
ANOT_AVAILABLE_IN_ALL
const char   *anot_ranking_get_cut_by        (AnotRanking  *self);
ANOT_AVAILABLE_IN_ALL
void          anot_ranking_set_cut_by        (AnotRanking  *self,
                                              const char   *limit);
ANOT_AVAILABLE_IN_ALL
JsonNode     *anot_ranking_get_trace         (AnotRanking  *self);
ANOT_AVAILABLE_IN_ALL
void          anot_ranking_set_trace         (AnotRanking  *self,
                                              JsonNode     *trace);

G_END_DECLS
