/* anot-defense-prompt-private.h: the text of defense mode, as data
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#if !defined(ANOT_COMPILATION)
#error "anot-defense-prompt-private.h is private to libanot."
#endif

#include <glib.h>

#include "anot-ini-reader-private.h"
#include "anot-domain.h"

G_BEGIN_DECLS

/* The section of config.ini that replaces the built-in prompt. */
#define ANOT_DEFENSE_SECTION "defense"

gboolean    anot_defense_prompt_check_file (AnotIniReader  *reader,
                                            GError        **error);
char       *anot_defense_prompt_read       (AnotIniReader  *reader,
                                            GError        **error);
const char *anot_defense_prompt_get        (AnotDomain     *domain);

G_END_DECLS
