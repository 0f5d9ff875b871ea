/* anot-parse.h
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

#include "anot-ranking.h"

G_BEGIN_DECLS

/**
 * AnotParseKind:
 * @ANOT_PARSE_KIND_SCORE: a number on a scale ([func@Anot.parse_score])
 * @ANOT_PARSE_KIND_RANKING: an ordered list of candidates
 *   ([func@Anot.parse_ranking])
 * @ANOT_PARSE_KIND_JSON: a JSON value ([func@Anot.parse_json])
 * @ANOT_PARSE_KIND_STEPS: the steps of a plan ([func@Anot.parse_steps])
 *
 * What a parser looked for.
 */
typedef enum {
  ANOT_PARSE_KIND_SCORE,
  ANOT_PARSE_KIND_RANKING,
  ANOT_PARSE_KIND_JSON,
  ANOT_PARSE_KIND_STEPS,
} AnotParseKind;

/**
 * AnotParseFailure:
 * @ANOT_PARSE_FAILURE_NONE: the parse succeeded
 * @ANOT_PARSE_FAILURE_EMPTY: the text is empty or only white space
 * @ANOT_PARSE_FAILURE_REFUSAL: the model declined or asked for more
 *   information instead of answering
 * @ANOT_PARSE_FAILURE_NOT_FOUND: nothing of the kind looked for is in the
 *   text
 * @ANOT_PARSE_FAILURE_OUT_OF_RANGE: a value was found but lies outside the
 *   allowed range (a score above the scale, only candidate numbers that do
 *   not exist)
 * @ANOT_PARSE_FAILURE_AMBIGUOUS: the text holds several candidate values
 *   and none is marked as the answer
 * @ANOT_PARSE_FAILURE_INVALID: something that looks like the answer is
 *   malformed (JSON that does not parse)
 *
 * Why a parse failed.
 */
typedef enum {
  ANOT_PARSE_FAILURE_NONE,
  ANOT_PARSE_FAILURE_EMPTY,
  ANOT_PARSE_FAILURE_REFUSAL,
  ANOT_PARSE_FAILURE_NOT_FOUND,
  ANOT_PARSE_FAILURE_OUT_OF_RANGE,
  ANOT_PARSE_FAILURE_AMBIGUOUS,
  ANOT_PARSE_FAILURE_INVALID,
} AnotParseFailure;

/**
 * AnotParseFlags:
 * @ANOT_PARSE_FLAGS_NONE: no flag
 * @ANOT_PARSE_ZERO_BASED: the model numbers the candidates from 0
 * @ANOT_PARSE_APPEND_MISSING: after the candidates the answer names, append
 *   every other candidate in ascending position, so the ranking is complete
 *   (the number appended is recorded)
 * @ANOT_PARSE_ORIGINAL: read the answer as the original framework's
 *   harness did ([func@Anot.parse_indices_compat]: every number of the
 *   text in range, in order, whatever surrounds it) instead of with the
 *   rules above; for `--compat original` (see
 *   [property@Anot.MethodContext:compat])
 *
 * Options of [func@Anot.parse_ranking].
 */
typedef enum /*< flags >*/ {
  ANOT_PARSE_FLAGS_NONE = 0,
  ANOT_PARSE_ZERO_BASED = 1 << 0,
  ANOT_PARSE_APPEND_MISSING = 1 << 1,
  ANOT_PARSE_ORIGINAL = 1 << 2,
} AnotParseFlags;

#define ANOT_TYPE_PARSE_RESULT (anot_parse_result_get_type ())

ANOT_AVAILABLE_IN_ALL
G_DECLARE_FINAL_TYPE (AnotParseResult, anot_parse_result, ANOT, PARSE_RESULT, GObject)

ANOT_AVAILABLE_IN_ALL
AnotParseKind       anot_parse_result_get_kind         (AnotParseResult *self);
ANOT_AVAILABLE_IN_ALL
gboolean            anot_parse_result_get_ok           (AnotParseResult *self);
ANOT_AVAILABLE_IN_ALL
AnotParseFailure    anot_parse_result_get_failure      (AnotParseResult *self);
ANOT_AVAILABLE_IN_ALL
const char         *anot_parse_result_get_message      (AnotParseResult *self);
ANOT_AVAILABLE_IN_ALL
const char         *anot_parse_result_get_text         (AnotParseResult *self);
ANOT_AVAILABLE_IN_ALL
const char         *anot_parse_result_get_rule         (AnotParseResult *self);
ANOT_AVAILABLE_IN_ALL
double              anot_parse_result_get_score        (AnotParseResult *self);
ANOT_AVAILABLE_IN_ALL
const guint        *anot_parse_result_get_indices      (AnotParseResult *self,
                                                        guint           *n_indices);
ANOT_AVAILABLE_IN_ALL
guint               anot_parse_result_get_n_parsed     (AnotParseResult *self);
ANOT_AVAILABLE_IN_ALL
guint               anot_parse_result_get_n_appended   (AnotParseResult *self);
ANOT_AVAILABLE_IN_ALL
guint               anot_parse_result_get_n_duplicates (AnotParseResult *self);
ANOT_AVAILABLE_IN_ALL
const gint64       *anot_parse_result_get_dropped      (AnotParseResult *self,
                                                        guint           *n_dropped);
ANOT_AVAILABLE_IN_ALL
JsonNode           *anot_parse_result_get_json         (AnotParseResult *self);
ANOT_AVAILABLE_IN_ALL
const char * const *anot_parse_result_get_steps        (AnotParseResult *self);
ANOT_AVAILABLE_IN_ALL
JsonNode           *anot_parse_result_to_json          (AnotParseResult *self);
ANOT_AVAILABLE_IN_ALL
AnotRanking        *anot_parse_result_to_ranking       (AnotParseResult *self);

ANOT_AVAILABLE_IN_ALL
AnotParseResult    *anot_parse_score                   (const char      *text,
                                                        double           min_score,
                                                        double           max_score);
ANOT_AVAILABLE_IN_ALL
AnotParseResult    *anot_parse_ranking                 (const char      *text,
                                                        guint            n_candidates,
                                                        GPtrArray       *candidates,
                                                        AnotParseFlags   flags);
ANOT_AVAILABLE_IN_ALL
AnotParseResult    *anot_parse_json                    (const char      *text);
ANOT_AVAILABLE_IN_ALL
AnotParseResult    *anot_parse_steps                   (const char      *text,
                                                        guint            max_steps);

ANOT_AVAILABLE_IN_ALL
guint              *anot_parse_indices_compat          (const char      *text,
                                                        guint            max_index,
                                                        guint            k,
                                                        AnotParseFlags   flags,
                                                        guint           *n_indices);
ANOT_AVAILABLE_IN_ALL
guint              *anot_parse_listwise_compat         (const char      *text,
                                                        guint            k,
                                                        guint           *n_indices);
ANOT_AVAILABLE_IN_ALL
int                 anot_parse_score_compat            (const char      *text);
ANOT_AVAILABLE_IN_ALL
int                 anot_parse_tri_state_compat        (const char      *text);

G_END_DECLS
