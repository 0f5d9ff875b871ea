/* anot-formatter-private.h: the formatter's options, declared
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#if !defined(ANOT_COMPILATION)
#error "anot-formatter-private.h is private to libanot."
#endif

#include "anot-formatter.h"

G_BEGIN_DECLS

/* The `format.*` method options anot_formatter_apply_options() reads (a
 * new array of AnotMethodOption), for the check before a run. */
G_GNUC_INTERNAL
GPtrArray *anot_formatter_list_options (void);

G_END_DECLS
