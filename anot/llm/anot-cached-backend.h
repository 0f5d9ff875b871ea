/* anot-cached-backend.h
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#if !defined(ANOT_INSIDE) && !defined(ANOT_COMPILATION)
#error "Only <anot/anot.h> can be included directly."
#endif

#include "anot-visibility.h"

#include <gio/gio.h>

#include "anot-backend.h"
#include "anot-response-cache.h"

G_BEGIN_DECLS

#define ANOT_TYPE_CACHED_BACKEND (anot_cached_backend_get_type ())
ANOT_AVAILABLE_IN_ALL
G_DECLARE_FINAL_TYPE (AnotCachedBackend, anot_cached_backend, ANOT, CACHED_BACKEND, GObject)

ANOT_AVAILABLE_IN_ALL
AnotBackend       *anot_cached_backend_new           (AnotBackend        *inner,
                                                      const char         *backend_name,
                                                      AnotResponseCache  *cache,
                                                      gboolean            offline);
ANOT_AVAILABLE_IN_ALL
AnotBackend       *anot_cached_backend_get_inner     (AnotCachedBackend  *self);

G_END_DECLS
