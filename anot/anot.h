/* anot.h: the umbrella header of libanot
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#define ANOT_INSIDE

#include "anot-attack.h"
#include "anot-backend.h"
#include "anot-backend-router.h"
#include "anot-cached-backend.h"
#include "anot-chat-request.h"
#include "anot-completion.h"
#include "anot-condition.h"
#include "anot-data-context.h"
#include "anot-data-path.h"
#include "anot-data-tool.h"
#include "anot-dataset.h"
#include "anot-debug-log.h"
#include "anot-enum-types.h"
#include "anot-error.h"
#include "anot-experiment.h"
#include "anot-expr.h"
#include "anot-formatter.h"
#include "anot-formula-seed.h"
#include "anot-http-backend.h"
#include "anot-item.h"
#include "anot-item-attack.h"
#include "anot-llm-config.h"
#include "anot-lwt-executor.h"
#include "anot-lwt-result.h"
#include "anot-lwt-script.h"
#include "anot-lwt-step.h"
#include "anot-method-context.h"
#include "anot-method.h"
#include "anot-metrics.h"
#include "anot-parse.h"
#include "anot-pool.h"
#include "anot-ranking.h"
#include "anot-registry.h"
#include "anot-request.h"
#include "anot-response-cache.h"
#include "anot-result.h"
#include "anot-robustness.h"
#include "anot-review.h"
#include "anot-tool.h"
#include "anot-truth.h"
#include "anot-usage.h"
#include "anot-validator.h"
#include "anot-verdict.h"
#include "anot-version.h"

#undef ANOT_INSIDE
