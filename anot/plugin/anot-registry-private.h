/* anot-registry-private.h: what the library reads of the registry without one
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#if !defined(ANOT_COMPILATION)
#error "anot-registry-private.h is private to libanot."
#endif

#include "anot-registry.h"

G_BEGIN_DECLS

/* The options @method declared (a new array, refs), or NULL when it
 * declared none. */
G_GNUC_INTERNAL
GPtrArray *anot_plugin_list_method_options (const char *method);

G_END_DECLS
