/* anot-method-context-private.h: what the experiment sets on a context
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include "anot-method-context.h"
#include "anot-ini-reader-private.h"
#include "anot-call-journal-private.h"

G_BEGIN_DECLS

/* The defense prompt the run read once when it was planned (an interned
 * string); without it the context reads the configuration file when asked. */
G_GNUC_INTERNAL
void anot_method_context_set_defense_prompt_text (AnotMethodContext *self,
                                                  const char        *interned_prompt);

/* The configuration file the run read once when it was planned (NULL:
 * there was none), so that every request reads the same `[method NAME]`
 * settings however the file changes during the run.  Without it the
 * settings read the file when asked (a method run outside an experiment). */
G_GNUC_INTERNAL
void     anot_method_context_set_config_file (AnotMethodContext *self,
                                              AnotIniReader     *reader);
G_GNUC_INTERNAL
gboolean anot_method_context_get_config_file (AnotMethodContext *self,
                                              AnotIniReader    **out_reader);

G_GNUC_INTERNAL
const GError *anot_method_context_get_infrastructure_error (AnotMethodContext *self);
G_GNUC_INTERNAL
void          anot_method_context_set_journal (AnotMethodContext *self,
                                               AnotCallJournal   *journal,
                                               const char        *scope);
G_GNUC_INTERNAL
AnotUsage    *anot_method_context_get_replayed_usage (AnotMethodContext *self);
G_GNUC_INTERNAL
guint         anot_method_context_get_calls_pending (AnotMethodContext *self);
G_GNUC_INTERNAL
guint         anot_method_context_get_replaced_characters (AnotMethodContext *self);

G_END_DECLS
