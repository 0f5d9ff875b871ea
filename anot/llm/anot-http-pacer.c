/* anot-http-pacer.c: when an HTTP backend may send its next call
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "anot-http-pacer-private.h"

#include "anot-concurrency-limiter-private.h"
#include "anot-tokenizer.h"

#include <string.h>

/* The books an AnotHttpBackend keeps to pace its calls: a rate limiter
 * per endpoint × model (see anot-rate-limiter.c), and without a fixed
 * bound a concurrency limiter per endpoint (anot-concurrency-limiter.c).
 * The backend asks it how many calls an endpoint may have in flight and
 * when the next call of a model fits, and tells it how each attempt
 * ended.  Endpoint "" is the backend's one server. */

struct _AnotHttpPacer
{
  guint rpm;
  guint tpm;
  guint window_ms;
  gboolean adaptive;
  GHashTable *rate_limiters;       /* "endpoint\nmodel" -> AnotRateLimiter */
  GHashTable *concurrency;         /* endpoint -> AnotConcurrencyLimiter */
  GHashTable *tokenizers;          /* model -> AnotTokenizer */
  gint64 waiting_until_us;
};

AnotHttpPacer *
anot_http_pacer_new (void)
{
  AnotHttpPacer *self = g_new0 (AnotHttpPacer, 1);

  self->window_ms = ANOT_HTTP_PACER_DEFAULT_WINDOW_MS;
  self->rate_limiters = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                               (GDestroyNotify) anot_rate_limiter_free);
  self->concurrency = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                             (GDestroyNotify) anot_concurrency_limiter_free);
  self->tokenizers = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_object_unref);
  return self;
}

void
anot_http_pacer_free (AnotHttpPacer *self)
{
  if (self == NULL)
    return;
  g_hash_table_unref (self->rate_limiters);
  g_hash_table_unref (self->concurrency);
  g_hash_table_unref (self->tokenizers);
  g_free (self);
}

static void
apply_user_limits (AnotHttpPacer *self)
{
  GHashTableIter iter;
  gpointer value;

  g_hash_table_iter_init (&iter, self->rate_limiters);
  while (g_hash_table_iter_next (&iter, NULL, &value))
    {
      anot_rate_limiter_set_user_limit (value, ANOT_RATE_REQUESTS, self->rpm);
      anot_rate_limiter_set_user_limit (value, ANOT_RATE_TOKENS, self->tpm);
    }
}

void
anot_http_pacer_set_rpm (AnotHttpPacer *self,
                         guint          rpm)
{
  self->rpm = rpm;
  apply_user_limits (self);
}

guint
anot_http_pacer_get_rpm (AnotHttpPacer *self)
{
  return self->rpm;
}

void
anot_http_pacer_set_tpm (AnotHttpPacer *self,
                         guint          tpm)
{
  self->tpm = tpm;
  apply_user_limits (self);
}

guint
anot_http_pacer_get_tpm (AnotHttpPacer *self)
{
  return self->tpm;
}

/* The ledgers are per window: a new length starts them again. */
void
anot_http_pacer_set_window_ms (AnotHttpPacer *self,
                               guint          window_ms)
{
  window_ms = MAX (window_ms, 1);
  if (self->window_ms == window_ms)
    return;
  self->window_ms = window_ms;
  g_hash_table_remove_all (self->rate_limiters);
}

guint
anot_http_pacer_get_window_ms (AnotHttpPacer *self)
{
  return self->window_ms;
}

void
anot_http_pacer_set_adaptive (AnotHttpPacer *self,
                              gboolean       adaptive)
{
  self->adaptive = adaptive;
}

gboolean
anot_http_pacer_get_adaptive (AnotHttpPacer *self)
{
  return self->adaptive;
}

static AnotConcurrencyLimiter *
concurrency_limiter (AnotHttpPacer *self,
                     const char    *endpoint,
                     guint          cap)
{
  AnotConcurrencyLimiter *limiter = g_hash_table_lookup (self->concurrency, endpoint ? endpoint : "");

  if (limiter == NULL)
    {
      limiter = anot_concurrency_limiter_new (cap);
      g_hash_table_insert (self->concurrency, g_strdup (endpoint ? endpoint : ""), limiter);
    }
  return limiter;
}

/* The most calls @endpoint may have in flight: @max_concurrency, or what
 * its concurrency limiter found, up to it. */
guint
anot_http_pacer_bound (AnotHttpPacer *self,
                       const char    *endpoint,
                       guint          max_concurrency)
{
  AnotConcurrencyLimiter *limiter;

  if (!self->adaptive)
    return max_concurrency;
  limiter = concurrency_limiter (self, endpoint, max_concurrency);
  anot_concurrency_limiter_set_cap (limiter, max_concurrency);
  return anot_concurrency_limiter_get_limit (limiter);
}

/* The calls every endpoint together may have in flight now. */
guint
anot_http_pacer_get_limit (AnotHttpPacer *self,
                           guint          max_concurrency)
{
  GHashTableIter iter;
  gpointer value;
  guint sum = 0;

  if (!self->adaptive)
    return max_concurrency;
  g_hash_table_iter_init (&iter, self->concurrency);
  while (g_hash_table_iter_next (&iter, NULL, &value))
    sum += anot_concurrency_limiter_get_limit (value);
  return sum > 0 ? MIN (sum, max_concurrency) : 1;
}

/* The highest limit reached, summed over the endpoints; 0 when fixed. */
guint
anot_http_pacer_get_peak (AnotHttpPacer *self)
{
  GHashTableIter iter;
  gpointer value;
  guint sum = 0;

  if (!self->adaptive)
    return 0;
  g_hash_table_iter_init (&iter, self->concurrency);
  while (g_hash_table_iter_next (&iter, NULL, &value))
    sum += anot_concurrency_limiter_get_peak (value);
  return sum;
}

AnotRateLimiter *
anot_http_pacer_rate_limiter (AnotHttpPacer *self,
                              const char    *endpoint,
                              const char    *model)
{
  g_autofree char *key = g_strconcat (endpoint ? endpoint : "", "\n", model ? model : "", NULL);
  AnotRateLimiter *limiter = g_hash_table_lookup (self->rate_limiters, key);

  if (limiter == NULL)
    {
      limiter = anot_rate_limiter_new ((gint64) self->window_ms * 1000);
      anot_rate_limiter_set_user_limit (limiter, ANOT_RATE_REQUESTS, self->rpm);
      anot_rate_limiter_set_user_limit (limiter, ANOT_RATE_TOKENS, self->tpm);
      g_hash_table_insert (self->rate_limiters, g_steal_pointer (&key), limiter);
    }
  return limiter;
}

/* A call's size as the providers count it before answering: its prompt
 * tokens and its max_tokens.  OpenAI's limiter counts the prompt's
 * characters / 4, Anthropic its tokens: the larger of the two (the model's
 * tokenizer when a token limit is known; the bytes alone otherwise, which
 * are free). */
void
anot_http_pacer_size_call (AnotHttpPacer   *self,
                           AnotRateLimiter *limiter,
                           AnotChatRequest *request,
                           const char      *model,
                           guint64         *input_tokens,
                           guint64         *output_tokens)
{
  guint n = anot_chat_request_get_n_messages (request);
  guint64 by_bytes = 0;

  for (guint i = 0; i < n; i++)
    {
      const char *content = anot_chat_request_get_message_content (request, i);

      by_bytes += content != NULL ? (strlen (content) + 3) / 4 : 0;
    }
  *input_tokens = by_bytes;
  *output_tokens = anot_chat_request_get_max_tokens (request);
  if (anot_rate_limiter_counts_tokens (limiter))
    {
      AnotTokenizer *tokenizer = g_hash_table_lookup (self->tokenizers, model ? model : "");

      if (tokenizer == NULL)
        {
          tokenizer = anot_tokenizer_new_for_model (model);
          g_hash_table_insert (self->tokenizers, g_strdup (model ? model : ""), tokenizer);
        }
      if (anot_tokenizer_is_exact (tokenizer))
        *input_tokens = MAX (by_bytes, anot_tokenizer_count_request (tokenizer, request));
    }
}

/* The queue waits for a rate limit until @until_us (0: it does not). */
void
anot_http_pacer_set_waiting (AnotHttpPacer *self,
                             gint64         until_us)
{
  self->waiting_until_us = until_us;
}

gint64
anot_http_pacer_get_waiting (AnotHttpPacer *self)
{
  return self->waiting_until_us;
}

void
anot_http_pacer_succeeded (AnotHttpPacer *self,
                           const char    *endpoint,
                           gint64         sent_us,
                           gint64         now_us,
                           guint64        completion_tokens,
                           guint          in_flight_at_send)
{
  AnotConcurrencyLimiter *limiter;

  if (!self->adaptive)
    return;
  limiter = g_hash_table_lookup (self->concurrency, endpoint ? endpoint : "");
  if (limiter != NULL)
    anot_concurrency_limiter_succeeded (limiter, sent_us, now_us, completion_tokens,
                                        in_flight_at_send);
}

void
anot_http_pacer_dropped (AnotHttpPacer *self,
                         const char    *endpoint,
                         gint64         sent_us,
                         gint64         now_us)
{
  AnotConcurrencyLimiter *limiter;

  if (!self->adaptive)
    return;
  limiter = g_hash_table_lookup (self->concurrency, endpoint ? endpoint : "");
  if (limiter != NULL)
    anot_concurrency_limiter_dropped (limiter, sent_us, now_us);
}
