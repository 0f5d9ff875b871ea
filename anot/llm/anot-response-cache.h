/* anot-response-cache.h
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#if !defined(ANOT_INSIDE) && !defined(ANOT_COMPILATION)
#error "Only <anot/anot.h> can be included directly."
#endif

#include <gio/gio.h>

#include "anot-backend.h"

G_BEGIN_DECLS

#define ANOT_TYPE_RESPONSE_CACHE (anot_response_cache_get_type ())
G_DECLARE_FINAL_TYPE (AnotResponseCache, anot_response_cache, ANOT, RESPONSE_CACHE, GObject)

AnotResponseCache *anot_response_cache_new           (const char         *path,
                                                      GError            **error);
const char        *anot_response_cache_get_path      (AnotResponseCache  *self);
AnotCompletion    *anot_response_cache_lookup        (AnotResponseCache  *self,
                                                      const char         *key,
                                                      GError            **error);
gboolean           anot_response_cache_store         (AnotResponseCache  *self,
                                                      const char         *key,
                                                      const char         *backend,
                                                      AnotChatRequest    *request,
                                                      AnotCompletion     *completion,
                                                      GError            **error);
guint64            anot_response_cache_get_n_entries (AnotResponseCache  *self);
guint64            anot_response_cache_get_n_hits    (AnotResponseCache  *self);
guint64            anot_response_cache_get_n_misses  (AnotResponseCache  *self);

G_END_DECLS
