/* anot-completion-private.h: AnotCompletion internals
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include "anot-completion.h"

G_BEGIN_DECLS

/* An answer another call paid for: identical calls share one line of a
 * provider batch, billed once.  The first caller is charged its cost, the
 * others' copies are marked so the router does not price them (their cost
 * stays 0; their tokens are still the method's). */
G_GNUC_INTERNAL
void     anot_completion_set_paid_by_another (AnotCompletion *self,
                                              gboolean        paid_by_another);
G_GNUC_INTERNAL
gboolean anot_completion_get_paid_by_another (AnotCompletion *self);

G_END_DECLS
