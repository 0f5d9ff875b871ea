/* anot-http-pacer-private.h: when an HTTP backend may send its next call
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include "anot-chat-request.h"
#include "anot-rate-limiter-private.h"

G_BEGIN_DECLS

typedef struct _AnotHttpPacer AnotHttpPacer;

#define ANOT_HTTP_PACER_DEFAULT_WINDOW_MS 60000

G_GNUC_INTERNAL AnotHttpPacer   *anot_http_pacer_new               (void);
G_GNUC_INTERNAL void             anot_http_pacer_free              (AnotHttpPacer   *self);

G_GNUC_INTERNAL void             anot_http_pacer_set_rpm           (AnotHttpPacer   *self,
                                                                    guint            rpm);
G_GNUC_INTERNAL guint            anot_http_pacer_get_rpm           (AnotHttpPacer   *self);
G_GNUC_INTERNAL void             anot_http_pacer_set_tpm           (AnotHttpPacer   *self,
                                                                    guint            tpm);
G_GNUC_INTERNAL guint            anot_http_pacer_get_tpm           (AnotHttpPacer   *self);
G_GNUC_INTERNAL void             anot_http_pacer_set_window_ms     (AnotHttpPacer   *self,
                                                                    guint            window_ms);
G_GNUC_INTERNAL guint            anot_http_pacer_get_window_ms     (AnotHttpPacer   *self);
G_GNUC_INTERNAL void             anot_http_pacer_set_adaptive      (AnotHttpPacer   *self,
                                                                    gboolean         adaptive);
G_GNUC_INTERNAL gboolean         anot_http_pacer_get_adaptive      (AnotHttpPacer   *self);

G_GNUC_INTERNAL guint            anot_http_pacer_bound             (AnotHttpPacer   *self,
                                                                    const char      *endpoint,
                                                                    guint            max_concurrency);
G_GNUC_INTERNAL guint            anot_http_pacer_get_limit         (AnotHttpPacer   *self,
                                                                    guint            max_concurrency);
G_GNUC_INTERNAL guint            anot_http_pacer_get_peak          (AnotHttpPacer   *self);

G_GNUC_INTERNAL AnotRateLimiter *anot_http_pacer_rate_limiter      (AnotHttpPacer   *self,
                                                                    const char      *endpoint,
                                                                    const char      *model);
G_GNUC_INTERNAL void             anot_http_pacer_size_call         (AnotHttpPacer   *self,
                                                                    AnotRateLimiter *limiter,
                                                                    AnotChatRequest *request,
                                                                    const char      *model,
                                                                    guint64         *input_tokens,
                                                                    guint64         *output_tokens);
G_GNUC_INTERNAL void             anot_http_pacer_set_waiting       (AnotHttpPacer   *self,
                                                                    gint64           until_us);
G_GNUC_INTERNAL gint64           anot_http_pacer_get_waiting       (AnotHttpPacer   *self);

G_GNUC_INTERNAL void             anot_http_pacer_succeeded         (AnotHttpPacer   *self,
                                                                    const char      *endpoint,
                                                                    gint64           sent_us,
                                                                    gint64           now_us,
                                                                    guint64          completion_tokens,
                                                                    guint            in_flight_at_send);
G_GNUC_INTERNAL void             anot_http_pacer_dropped           (AnotHttpPacer   *self,
                                                                    const char      *endpoint,
                                                                    gint64           sent_us,
                                                                    gint64           now_us);

G_END_DECLS
