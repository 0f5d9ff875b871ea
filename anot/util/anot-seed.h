/* anot-seed.h: independent seeds derived from one base seed
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#if !defined(ANOT_INSIDE) && !defined(ANOT_COMPILATION)
#error "Only <anot/anot.h> can be included directly."
#endif

#include "anot-visibility.h"

#include <glib.h>

G_BEGIN_DECLS

ANOT_AVAILABLE_IN_ALL
guint64     anot_seed_derive                     (guint64          seed,
                                                  const char      *scope);

G_END_DECLS
