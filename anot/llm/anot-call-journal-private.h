/* anot-call-journal-private.h: the answers a run was given, kept the
 * moment they arrive
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gio/gio.h>

#include "anot-chat-request.h"
#include "anot-completion.h"
#include "anot-usage.h"

G_BEGIN_DECLS

#define ANOT_TYPE_CALL_JOURNAL (anot_call_journal_get_type ())
G_GNUC_INTERNAL
G_DECLARE_FINAL_TYPE (AnotCallJournal, anot_call_journal, ANOT, CALL_JOURNAL, GObject)

G_GNUC_INTERNAL
AnotCallJournal *anot_call_journal_open           (const char       *path,
                                                   GError          **error);
G_GNUC_INTERNAL
const char      *anot_call_journal_get_path       (AnotCallJournal  *self);
G_GNUC_INTERNAL
char            *anot_call_journal_key            (const char       *scope,
                                                   const char       *role,
                                                   const char       *call_hash,
                                                   guint             occurrence);
G_GNUC_INTERNAL
AnotCompletion  *anot_call_journal_replay         (AnotCallJournal  *self,
                                                   const char       *key);
G_GNUC_INTERNAL
gboolean         anot_call_journal_append         (AnotCallJournal  *self,
                                                   const char       *key,
                                                   AnotCompletion   *completion,
                                                   GError          **error);
G_GNUC_INTERNAL
gboolean         anot_call_journal_append_cancelled (AnotCallJournal  *self,
                                                     const char       *scope,
                                                     const char       *role,
                                                     const char       *model,
                                                     guint64           prompt_tokens,
                                                     guint64           completion_tokens,
                                                     double            cost_usd,
                                                     GError          **error);
G_GNUC_INTERNAL
void             anot_call_journal_add_cancelled  (AnotCallJournal  *self,
                                                   const char       *scope_prefix,
                                                   AnotUsage        *usage);
G_GNUC_INTERNAL
double           anot_call_journal_get_cancelled_cost (AnotCallJournal *self,
                                                       const char      *role);
G_GNUC_INTERNAL
const GError    *anot_call_journal_get_error      (AnotCallJournal  *self);
G_GNUC_INTERNAL
guint64          anot_call_journal_get_n_loaded   (AnotCallJournal  *self);
G_GNUC_INTERNAL
guint64          anot_call_journal_get_n_replayed (AnotCallJournal  *self);
G_GNUC_INTERNAL
guint64          anot_call_journal_get_n_written  (AnotCallJournal  *self);
G_GNUC_INTERNAL
gboolean         anot_call_journal_get_torn       (AnotCallJournal  *self);

G_END_DECLS
