/* anot-error-private.h: what an AnotError carries beside its code
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include "anot-error.h"

G_BEGIN_DECLS

/* How many times the call that failed with @error was retried before it
 * gave up (0 for any error of another domain): the retries a failed call
 * made count in its request's usage, as a successful call's do. */
G_GNUC_INTERNAL
void  anot_error_set_retries (GError       *error,
                              guint         retries);
G_GNUC_INTERNAL
guint anot_error_get_retries (const GError *error);

G_END_DECLS
