/* anot-validator-private.h: the evidence semantics, for the tools that
 * check one value the way the validator does
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#if !defined(ANOT_COMPILATION)
#error "anot-validator-private.h is private to libanot."
#endif

#include <json-glib/json-glib.h>

#include "anot-item.h"
#include "anot-pyliteral-private.h"

G_BEGIN_DECLS

/* EQ(actual, E) of evidence.md §6.1, as a leaf's `true: E` applies it:
 * @expected read as a leaf's expected value is (a string through pass B,
 * so "'free'", "u'free'" and "free" are one value and "u'none'" is None;
 * a boolean as itself; a list: any of them; null never matches); @actual
 * is the effective value (both passes done). */
gboolean     _anot_validator_value_matches   (AnotPyValue *actual,
                                              JsonNode    *expected);

/* @item's categories as the validator sees them (a list of trimmed
 * strings), or NULL when it has none: a `contains` on them reads the
 * lower-cased text of the list, "none" for NULL. */
AnotPyValue *_anot_validator_item_categories (AnotItem    *item);

G_END_DECLS
