/* anot-concurrency-limiter.c: calls in flight that find a server's knee
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "anot-concurrency-limiter-private.h"

/* Without a fixed bound (-j), an HTTP backend lets this limiter decide how
 * many calls are in flight per server.  A self-hosted server (vLLM,
 * llama.cpp) serves up to some number of calls at full speed and slows
 * every call beyond it; a provider refuses (429) or times out.  The
 * limiter is AIMD with a slow start, as TCP's congestion control, on
 * latency as Netflix's concurrency-limits: it starts at 1, adds one call
 * per success while latency holds (doubling each round trip until the
 * first sign of congestion, then one per round trip), and multiplies the
 * limit down on a 429, a timeout, a server error or latency that has
 * risen to twice its no-load value.  One decrease per round trip: the
 * calls already on the wire when it decreased say nothing new.
 *
 * Latency is compared per unit of work: an answer of many tokens takes
 * longer on an idle server too, so the latency is divided by
 * 1 + completion tokens / 64, smoothed, and compared with the lowest the
 * smoothed value has been (which creeps up slowly, so a changed mix of
 * calls is not taken for congestion forever). */

#define RISEN_RATIO 2.0          /* smoothed / no-load: back off */
#define HOLDS_RATIO 1.5          /* at most this: latency holds, grow */
#define DECREASE_FACTOR 0.75
#define SMOOTHING 0.1
#define BASELINE_CREEP 0.0005
#define TOKENS_PER_UNIT 64.0

struct _AnotConcurrencyLimiter
{
  double limit;
  guint cap;
  guint peak;
  gboolean slow_start;
  double baseline;           /* lowest latency per unit of work, ms */
  double smoothed;           /* recent latency per unit of work, ms */
  gint64 last_decrease_us;
  guint64 n_answers;
};

AnotConcurrencyLimiter *
anot_concurrency_limiter_new (guint cap)
{
  AnotConcurrencyLimiter *self = g_new0 (AnotConcurrencyLimiter, 1);

  self->cap = MAX (cap, 1);
  self->limit = 1;
  self->peak = 1;
  self->slow_start = TRUE;
  return self;
}

void
anot_concurrency_limiter_free (AnotConcurrencyLimiter *self)
{
  g_free (self);
}

void
anot_concurrency_limiter_set_cap (AnotConcurrencyLimiter *self,
                                  guint                   cap)
{
  self->cap = MAX (cap, 1);
  self->limit = MIN (self->limit, (double) self->cap);
}

guint
anot_concurrency_limiter_get_limit (AnotConcurrencyLimiter *self)
{
  return MAX (1, (guint) self->limit);
}

/* The highest limit reached; 0 before any answer. */
guint
anot_concurrency_limiter_get_peak (AnotConcurrencyLimiter *self)
{
  return self->n_answers > 0 ? self->peak : 0;
}

static void
decrease (AnotConcurrencyLimiter *self,
          gint64                  sent_us,
          gint64                  now_us)
{
  self->slow_start = FALSE;
  if (sent_us < self->last_decrease_us)
    return;
  self->limit = MAX (1.0, self->limit * DECREASE_FACTOR);
  self->last_decrease_us = now_us;
  g_debug ("LLM concurrency: down to %u", anot_concurrency_limiter_get_limit (self));
}

void
anot_concurrency_limiter_succeeded (AnotConcurrencyLimiter *self,
                                    gint64                  sent_us,
                                    gint64                  now_us,
                                    guint64                 completion_tokens,
                                    guint                   in_flight_at_send)
{
  double latency = MAX (now_us - sent_us, 1) / 1000.0 / (1.0 + completion_tokens / TOKENS_PER_UNIT);
  double ratio;

  self->n_answers++;
  self->smoothed = self->smoothed == 0 ? latency
                                       : self->smoothed + (latency - self->smoothed) * SMOOTHING;
  /* The lowest of the smoothed latency, not of one answer: one quick
   * answer must not make every later one look slow. */
  if (self->baseline == 0 || self->smoothed < self->baseline)
    self->baseline = self->smoothed;
  else
    self->baseline += (self->smoothed - self->baseline) * BASELINE_CREEP;
  ratio = self->smoothed / self->baseline;

  if (ratio > RISEN_RATIO)
    {
      decrease (self, sent_us, now_us);
      return;
    }
  if (ratio > HOLDS_RATIO)
    {
      self->slow_start = FALSE;
      return;
    }
  /* Grow only when the limit was what held the calls back: the calls in
   * flight then were near the limit then, which is at least half the
   * limit now (it at most doubles in a round trip). */
  if ((double) in_flight_at_send + 1 < self->limit * 0.5)
    return;
  self->limit += self->slow_start ? 1.0 : 1.0 / self->limit;
  self->limit = MIN (self->limit, (double) self->cap);
  self->peak = MAX (self->peak, anot_concurrency_limiter_get_limit (self));
}

/* A 429, a timeout, a server error or a refused connection. */
void
anot_concurrency_limiter_dropped (AnotConcurrencyLimiter *self,
                                  gint64                  sent_us,
                                  gint64                  now_us)
{
  self->n_answers++;
  decrease (self, sent_us, now_us);
}
