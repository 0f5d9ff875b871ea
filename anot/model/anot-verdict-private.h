/* anot-verdict-private.h: construction of verdicts by the validator
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#if !defined(ANOT_COMPILATION)
#error "anot-verdict-private.h is private to libanot."
#endif

#include "anot-verdict.h"

G_BEGIN_DECLS

/* @leaves holds the leaf conditions in document order (references are
 * taken); @leaf_truths has one truth per leaf. */
AnotVerdict *_anot_verdict_new (const char      *request_id,
                                const char      *item_id,
                                AnotTruth        truth,
                                GPtrArray       *leaves,
                                const AnotTruth *leaf_truths);

G_END_DECLS
