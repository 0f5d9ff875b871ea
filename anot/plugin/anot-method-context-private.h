/* anot-method-context-private.h: what the experiment sets on a context
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include "anot-method-context.h"

G_BEGIN_DECLS

/* The defense prompt the run read once when it was planned (an interned
 * string); without it the context reads the configuration file when asked. */
G_GNUC_INTERNAL
void anot_method_context_set_defense_prompt_text (AnotMethodContext *self,
                                                  const char        *interned_prompt);

G_END_DECLS
