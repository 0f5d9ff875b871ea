/* anot-truth.c: names of the three-valued logic's enumerations
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "anot-truth.h"

/**
 * anot_gold_status_to_string:
 * @status: an #AnotGoldStatus
 *
 * Gets the name `groundtruth.jsonl` uses for @status: `ok`, `no_match`,
 * `gold_not_match`, `multi_match` or `multi_match_no_gold`.
 *
 * Returns: (transfer none) (nullable): the name, or %NULL if @status is
 *   not a valid status
 */
const char *
anot_gold_status_to_string (AnotGoldStatus status)
{
  switch (status)
    {
    case ANOT_GOLD_STATUS_OK:
      return "ok";
    case ANOT_GOLD_STATUS_NO_MATCH:
      return "no_match";
    case ANOT_GOLD_STATUS_GOLD_NOT_MATCH:
      return "gold_not_match";
    case ANOT_GOLD_STATUS_MULTI_MATCH:
      return "multi_match";
    case ANOT_GOLD_STATUS_MULTI_MATCH_NO_GOLD:
      return "multi_match_no_gold";
    default:
      return NULL;
    }
}
