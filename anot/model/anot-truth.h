/* anot-truth.h: three-valued truth
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#if !defined(ANOT_INSIDE) && !defined(ANOT_COMPILATION)
#error "Only <anot/anot.h> can be included directly."
#endif

#include "anot-visibility.h"

#include <glib.h>

G_BEGIN_DECLS

/**
 * AnotTruth:
 * @ANOT_TRUTH_FALSE: the condition is not satisfied (-1)
 * @ANOT_TRUTH_UNKNOWN: the data needed to decide is missing (0)
 * @ANOT_TRUTH_TRUE: the condition is satisfied (1)
 *
 * The three truth values of the validator.  The numeric values are the ones
 * the original framework and its `--json` consumers use.
 */
typedef enum {
  ANOT_TRUTH_FALSE = -1,
  ANOT_TRUTH_UNKNOWN = 0,
  ANOT_TRUTH_TRUE = 1,
} AnotTruth;

/**
 * AnotConditionOp:
 * @ANOT_CONDITION_OP_LEAF: not a group: the node is an evidence leaf
 * @ANOT_CONDITION_OP_AND: Kleene conjunction of the children
 * @ANOT_CONDITION_OP_OR: Kleene disjunction of the children
 * @ANOT_CONDITION_OP_NOT: negation of the single child
 *
 * The operator of a condition node.
 */
typedef enum {
  ANOT_CONDITION_OP_LEAF,
  ANOT_CONDITION_OP_AND,
  ANOT_CONDITION_OP_OR,
  ANOT_CONDITION_OP_NOT,
} AnotConditionOp;

/**
 * AnotEvidenceKind:
 * @ANOT_EVIDENCE_NONE: the node is a group, not a leaf
 * @ANOT_EVIDENCE_ITEM_META: an attribute or category test (`item_meta`)
 * @ANOT_EVIDENCE_ITEM_META_HOURS: an opening-hours test (`item_meta_hours`)
 * @ANOT_EVIDENCE_REVIEW_TEXT: a cached per-review judgement, optionally
 *   restricted to a reviewer's social network (`review_text`)
 * @ANOT_EVIDENCE_REVIEW_SENTIMENT: positive vs negative judgements within a
 *   social network (`review_sentiment`)
 * @ANOT_EVIDENCE_SOCIAL_RATING: a high star rating from a reviewer in a social
 *   network (`social_rating`)
 * @ANOT_EVIDENCE_REVIEW_GROUP_RATING: a metric over a filtered group of
 *   reviews (`review_group_rating`)
 * @ANOT_EVIDENCE_REVIEW_GROUP_RATING_NEGATIVE: generous vs harsh reviewer
 *   means (`review_group_rating_negative`)
 *
 * The evidence kinds of request leaves (see the dataset format guide).
 */
typedef enum {
  ANOT_EVIDENCE_NONE,
  ANOT_EVIDENCE_ITEM_META,
  ANOT_EVIDENCE_ITEM_META_HOURS,
  ANOT_EVIDENCE_REVIEW_TEXT,
  ANOT_EVIDENCE_REVIEW_SENTIMENT,
  ANOT_EVIDENCE_SOCIAL_RATING,
  ANOT_EVIDENCE_REVIEW_GROUP_RATING,
  ANOT_EVIDENCE_REVIEW_GROUP_RATING_NEGATIVE,
} AnotEvidenceKind;

/**
 * AnotJudgement:
 * @ANOT_JUDGEMENT_NOT_MENTIONED: no cached judgement, or one that says the
 *   review does not mention the aspect
 * @ANOT_JUDGEMENT_POSITIVE: the review speaks positively of the aspect
 * @ANOT_JUDGEMENT_NEGATIVE: the review speaks negatively of the aspect
 * @ANOT_JUDGEMENT_NEUTRAL: neutral or mixed
 *
 * A cached LLM judgement of one review about one aspect.
 */
typedef enum {
  ANOT_JUDGEMENT_NOT_MENTIONED,
  ANOT_JUDGEMENT_POSITIVE,
  ANOT_JUDGEMENT_NEGATIVE,
  ANOT_JUDGEMENT_NEUTRAL,
} AnotJudgement;

/**
 * AnotGoldStatus:
 * @ANOT_GOLD_STATUS_OK: exactly one item satisfies the request and it is the gold
 * @ANOT_GOLD_STATUS_NO_MATCH: no item satisfies the request
 * @ANOT_GOLD_STATUS_GOLD_NOT_MATCH: one item satisfies it, but not the gold
 * @ANOT_GOLD_STATUS_MULTI_MATCH: several items, the gold among them
 * @ANOT_GOLD_STATUS_MULTI_MATCH_NO_GOLD: several items, the gold not among them
 *
 * The outcome of checking a request's gold label against the validator, with
 * the names `groundtruth.jsonl` uses.
 */
typedef enum {
  ANOT_GOLD_STATUS_OK,
  ANOT_GOLD_STATUS_NO_MATCH,
  ANOT_GOLD_STATUS_GOLD_NOT_MATCH,
  ANOT_GOLD_STATUS_MULTI_MATCH,
  ANOT_GOLD_STATUS_MULTI_MATCH_NO_GOLD,
} AnotGoldStatus;

ANOT_AVAILABLE_IN_ALL
const char *anot_gold_status_to_string (AnotGoldStatus status);

G_END_DECLS
