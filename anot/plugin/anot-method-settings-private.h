/* anot-method-settings-private.h: the check of a run's method options
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#if !defined(ANOT_COMPILATION)
#error "anot-method-settings-private.h is private to libanot."
#endif

#include "anot-method-settings.h"
#include "anot-ini-reader-private.h"

G_BEGIN_DECLS

/* Takes `[method NAME]` of @reader (NULL: no file) as the file layer. */
G_GNUC_INTERNAL
void      anot_method_settings_take_reader       (AnotMethodSettings  *self,
                                                  AnotIniReader       *reader);

/* Checks a run's method options (@options: `PREFIX.KEY` -> text, as `-O`
 * gives them), the file layer and the environment against what the
 * method (and the formatter, for `format.*`) declared, before anything
 * runs.  Returns every declared option's effective value with its source,
 * `{"KEY": {"value": V, "source": S}, ...}`, or NULL and
 * ANOT_ERROR_INVALID_ARGUMENT naming the key. */
G_GNUC_INTERNAL
JsonNode *anot_method_settings_check_options     (AnotMethodSettings  *self,
                                                  GHashTable          *options,
                                                  AnotCompatMode       compat,
                                                  GError             **error);

/* The nearest of @candidates to @word (NULL when none is close), for "did
 * you mean". */
G_GNUC_INTERNAL
const char *anot_method_settings_nearest         (const char          *word,
                                                  const char * const  *candidates);

G_END_DECLS
