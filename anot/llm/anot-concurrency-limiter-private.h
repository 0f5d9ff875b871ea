/* anot-concurrency-limiter-private.h: calls in flight that find a server's knee
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef struct _AnotConcurrencyLimiter AnotConcurrencyLimiter;

G_GNUC_INTERNAL AnotConcurrencyLimiter *anot_concurrency_limiter_new       (guint cap);
G_GNUC_INTERNAL void                    anot_concurrency_limiter_free      (AnotConcurrencyLimiter *self);
G_GNUC_INTERNAL void                    anot_concurrency_limiter_set_cap   (AnotConcurrencyLimiter *self,
                                                                            guint                   cap);
G_GNUC_INTERNAL guint                   anot_concurrency_limiter_get_limit (AnotConcurrencyLimiter *self);
G_GNUC_INTERNAL guint                   anot_concurrency_limiter_get_peak  (AnotConcurrencyLimiter *self);
G_GNUC_INTERNAL void                    anot_concurrency_limiter_succeeded (AnotConcurrencyLimiter *self,
                                                                            gint64                  sent_us,
                                                                            gint64                  now_us,
                                                                            guint64                 completion_tokens,
                                                                            guint                   in_flight_at_send);
G_GNUC_INTERNAL void                    anot_concurrency_limiter_dropped   (AnotConcurrencyLimiter *self,
                                                                            gint64                  sent_us,
                                                                            gint64                  now_us);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (AnotConcurrencyLimiter, anot_concurrency_limiter_free)

G_END_DECLS
