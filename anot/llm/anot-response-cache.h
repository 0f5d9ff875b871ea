/* anot-response-cache.h
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

G_BEGIN_DECLS

#define ANOT_TYPE_RESPONSE_CACHE (anot_response_cache_get_type ())
ANOT_AVAILABLE_IN_ALL
G_DECLARE_FINAL_TYPE (AnotResponseCache, anot_response_cache, ANOT, RESPONSE_CACHE, GObject)

ANOT_AVAILABLE_IN_ALL
AnotResponseCache *anot_response_cache_new           (const char         *path,
                                                      GError            **error);
ANOT_AVAILABLE_IN_ALL
const char        *anot_response_cache_get_path      (AnotResponseCache  *self);
ANOT_AVAILABLE_IN_ALL
AnotCompletion    *anot_response_cache_lookup        (AnotResponseCache  *self,
                                                      const char         *key,
                                                      GError            **error);
ANOT_AVAILABLE_IN_ALL
gboolean           anot_response_cache_store         (AnotResponseCache  *self,
                                                      const char         *key,
                                                      const char         *backend,
                                                      AnotChatRequest    *request,
                                                      AnotCompletion     *completion,
                                                      GError            **error);
ANOT_AVAILABLE_IN_ALL
guint64            anot_response_cache_get_n_entries (AnotResponseCache  *self);
ANOT_AVAILABLE_IN_ALL
guint64            anot_response_cache_get_n_hits    (AnotResponseCache  *self);
ANOT_AVAILABLE_IN_ALL
guint64            anot_response_cache_get_n_misses  (AnotResponseCache  *self);
ANOT_AVAILABLE_IN_ALL
gboolean           anot_response_cache_merge         (AnotResponseCache  *self,
                                                      const char         *other_path,
                                                      guint64            *out_added,
                                                      GError            **error);

G_END_DECLS
