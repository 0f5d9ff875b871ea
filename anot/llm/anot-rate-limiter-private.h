/* anot-rate-limiter-private.h: the pace of one endpoint × model
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <libsoup/soup.h>

G_BEGIN_DECLS

/* What a limit counts: requests, prompt + max_tokens (OpenAI's "tokens",
 * Anthropic's older combined one), prompt tokens (Anthropic's input
 * tokens), max_tokens (Anthropic's output tokens). */
typedef enum
{
  ANOT_RATE_REQUESTS,
  ANOT_RATE_TOKENS,
  ANOT_RATE_INPUT_TOKENS,
  ANOT_RATE_OUTPUT_TOKENS,
  ANOT_RATE_N_METERS,
} AnotRateMeter;

typedef struct _AnotRateLimiter AnotRateLimiter;

G_GNUC_INTERNAL AnotRateLimiter *anot_rate_limiter_new            (gint64           window_us);
G_GNUC_INTERNAL void             anot_rate_limiter_free           (AnotRateLimiter *self);
G_GNUC_INTERNAL void             anot_rate_limiter_set_user_limit (AnotRateLimiter *self,
                                                                   AnotRateMeter    meter,
                                                                   guint64          per_window);
G_GNUC_INTERNAL guint64          anot_rate_limiter_get_limit      (AnotRateLimiter *self,
                                                                   AnotRateMeter    meter);
G_GNUC_INTERNAL gboolean         anot_rate_limiter_counts_tokens  (AnotRateLimiter *self);
G_GNUC_INTERNAL gint64           anot_rate_limiter_next_slot      (AnotRateLimiter *self,
                                                                   gint64           now_us,
                                                                   guint64          input_tokens,
                                                                   guint64          output_tokens);
G_GNUC_INTERNAL void             anot_rate_limiter_admit          (AnotRateLimiter *self,
                                                                   gint64           now_us,
                                                                   guint64          input_tokens,
                                                                   guint64          output_tokens);
G_GNUC_INTERNAL void             anot_rate_limiter_refund         (AnotRateLimiter *self,
                                                                   gint64           sent_us,
                                                                   guint64          input_tokens,
                                                                   guint64          output_tokens);
G_GNUC_INTERNAL gboolean         anot_rate_limiter_read_headers   (AnotRateLimiter    *self,
                                                                   SoupMessageHeaders *headers,
                                                                   gint64              sent_us,
                                                                   gint64              now_us);
G_GNUC_INTERNAL void             anot_rate_limiter_hold           (AnotRateLimiter *self,
                                                                   gint64           until_us);

G_GNUC_INTERNAL gint64           anot_rate_parse_duration_ms      (const char      *text);
G_GNUC_INTERNAL gint64           anot_rate_parse_try_again_ms     (const char      *message);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (AnotRateLimiter, anot_rate_limiter_free)

G_END_DECLS
