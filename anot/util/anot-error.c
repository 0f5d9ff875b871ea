/* anot-error.c
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "anot-error.h"

G_DEFINE_QUARK (anot-error-quark, anot_error)
