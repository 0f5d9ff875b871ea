/* test-rate-limiter.c: the books of rate limits and the adaptive
 * concurrency limit, on made-up clocks
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "anot-concurrency-limiter-private.h"
#include "anot-rate-limiter-private.h"

#define S (G_USEC_PER_SEC)
#define WINDOW (60 * S)
/* Entries leave the window a little after it (anot-rate-limiter.c). */
#define MARGIN (150 * 1000)

static void
test_durations (void)
{
  const struct { const char *text; gint64 ms; } cases[] = {
    { "6m0s", 360000 }, { "1.5s", 1500 }, { "20ms", 20 }, { "1h2m3s", 3723000 },
    { "0s", 0 }, { "2", 2000 }, { "7.66s", 7660 }, { "1m30.5s", 90500 },
    { "", -1 }, { "soon", -1 }, { "5 parsecs", -1 }, { "3x", -1 },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_test_message ("%s", cases[i].text);
      g_assert_cmpint (anot_rate_parse_duration_ms (cases[i].text), ==, cases[i].ms);
    }
  g_assert_cmpint (anot_rate_parse_try_again_ms (
    "Rate limit reached for gpt-4o in organization org-x on tokens per min (TPM): Limit 30000, "
    "Used 29000, Requested 1200. Please try again in 1.234s. Visit https://platform.openai.com"),
    ==, 1234);
  g_assert_cmpint (anot_rate_parse_try_again_ms ("Please try again in 20ms."), ==, 20);
  g_assert_cmpint (anot_rate_parse_try_again_ms ("Please try again in 6m0s."), ==, 360000);
  g_assert_cmpint (anot_rate_parse_try_again_ms ("Rate limit reached. Please try again later."), ==, -1);
  g_assert_cmpint (anot_rate_parse_try_again_ms (NULL), ==, -1);
}

/* Your own tpm: calls go while they fit; the next one when enough of
 * the oldest have left the window. */
static void
test_user_tokens (void)
{
  g_autoptr(AnotRateLimiter) limiter = anot_rate_limiter_new (WINDOW);
  gint64 t0 = 1000 * S;

  anot_rate_limiter_set_user_limit (limiter, ANOT_RATE_TOKENS, 1000);
  g_assert_true (anot_rate_limiter_counts_tokens (limiter));
  g_assert_cmpint (anot_rate_limiter_next_slot (limiter, t0, 300, 100), ==, t0);
  anot_rate_limiter_admit (limiter, t0, 300, 100);              /* 400 */
  anot_rate_limiter_admit (limiter, t0 + 1 * S, 300, 100);      /* 800 */
  /* 200 fits, 300 does not until the first leaves. */
  g_assert_cmpint (anot_rate_limiter_next_slot (limiter, t0 + 2 * S, 100, 100), ==, t0 + 2 * S);
  g_assert_cmpint (anot_rate_limiter_next_slot (limiter, t0 + 2 * S, 200, 100), ==,
                   t0 + WINDOW + MARGIN);
  /* 700 needs both gone. */
  g_assert_cmpint (anot_rate_limiter_next_slot (limiter, t0 + 2 * S, 600, 100), ==,
                   t0 + 1 * S + WINDOW + MARGIN);
  /* Larger than the limit: once the window is empty. */
  g_assert_cmpint (anot_rate_limiter_next_slot (limiter, t0 + 2 * S, 5000, 0), ==,
                   t0 + 1 * S + WINDOW + MARGIN);
  /* A refund (the server refused the call) frees it at once. */
  anot_rate_limiter_refund (limiter, t0 + 1 * S, 300, 100);
  g_assert_cmpint (anot_rate_limiter_next_slot (limiter, t0 + 2 * S, 500, 100), ==, t0 + 2 * S);
}

static SoupMessageHeaders *
headers_new (const char *first_name,
             ...)
{
  SoupMessageHeaders *headers = soup_message_headers_new (SOUP_MESSAGE_HEADERS_RESPONSE);
  const char *name = first_name;
  va_list args;

  va_start (args, first_name);
  while (name != NULL)
    {
      soup_message_headers_append (headers, name, va_arg (args, const char *));
      name = va_arg (args, const char *);
    }
  va_end (args);
  return headers;
}

/* OpenAI's headers: the server's limit applies (the tighter of it and
 * yours), and what it counted beyond our books is a debt until its
 * reset. */
static void
test_openai_headers (void)
{
  g_autoptr(AnotRateLimiter) limiter = anot_rate_limiter_new (WINDOW);
  SoupMessageHeaders *headers;
  gint64 t0 = 1000 * S;

  anot_rate_limiter_set_user_limit (limiter, ANOT_RATE_TOKENS, 50000);
  anot_rate_limiter_admit (limiter, t0, 900, 100);
  /* The server: 10,000 a minute, 5,000 left: it counted 4,000 more than
   * our 1,000, which it forgets within 20 s. */
  headers = headers_new ("x-ratelimit-limit-tokens", "10000",
                         "x-ratelimit-remaining-tokens", "5000",
                         "x-ratelimit-reset-tokens", "20s",
                         "x-ratelimit-limit-requests", "500",
                         "x-ratelimit-remaining-requests", "499",
                         "x-ratelimit-reset-requests", "120ms", NULL);
  g_assert_true (anot_rate_limiter_read_headers (limiter, headers, t0, t0 + 1 * S));
  soup_message_headers_unref (headers);
  g_assert_cmpuint (anot_rate_limiter_get_limit (limiter, ANOT_RATE_TOKENS), ==, 10000);
  g_assert_cmpuint (anot_rate_limiter_get_limit (limiter, ANOT_RATE_REQUESTS), ==, 500);
  /* 5,000 fit (1,000 ours + 4,000 debt + 5,000), 5,001 wait for the debt. */
  g_assert_cmpint (anot_rate_limiter_next_slot (limiter, t0 + 2 * S, 5000, 0), ==, t0 + 2 * S);
  g_assert_cmpint (anot_rate_limiter_next_slot (limiter, t0 + 2 * S, 5001, 0), ==, t0 + 21 * S);

  /* A 429's time holds every call. */
  anot_rate_limiter_hold (limiter, t0 + 30 * S);
  g_assert_cmpint (anot_rate_limiter_next_slot (limiter, t0 + 2 * S, 1, 0), ==, t0 + 30 * S);
}

/* Anthropic's: input and output tokens apart, resets as RFC 3339 times. */
static void
test_anthropic_headers (void)
{
  g_autoptr(AnotRateLimiter) limiter = anot_rate_limiter_new (WINDOW);
  g_autoptr(GDateTime) now = g_date_time_new_now_utc ();
  g_autoptr(GDateTime) later = g_date_time_add_seconds (now, 60);
  g_autofree char *reset = g_date_time_format_iso8601 (later);
  SoupMessageHeaders *headers;
  gint64 t0 = 1000 * S;
  gint64 slot;

  g_assert_false (anot_rate_limiter_counts_tokens (limiter));
  anot_rate_limiter_admit (limiter, t0, 100, 400);
  headers = headers_new ("anthropic-ratelimit-input-tokens-limit", "50000",
                         "anthropic-ratelimit-input-tokens-remaining", "49900",
                         "anthropic-ratelimit-input-tokens-reset", reset,
                         "anthropic-ratelimit-output-tokens-limit", "1000",
                         "anthropic-ratelimit-output-tokens-remaining", "600",
                         "anthropic-ratelimit-output-tokens-reset", reset, NULL);
  g_assert_true (anot_rate_limiter_read_headers (limiter, headers, t0, t0 + S / 10));
  soup_message_headers_unref (headers);
  g_assert_true (anot_rate_limiter_counts_tokens (limiter));
  g_assert_cmpuint (anot_rate_limiter_get_limit (limiter, ANOT_RATE_OUTPUT_TOKENS), ==, 1000);
  g_assert_cmpuint (anot_rate_limiter_get_limit (limiter, ANOT_RATE_TOKENS), ==, 0);
  /* Input is plenty; output: 400 used, 600 fit, 601 do not. */
  g_assert_cmpint (anot_rate_limiter_next_slot (limiter, t0 + S, 40000, 600), ==, t0 + S);
  slot = anot_rate_limiter_next_slot (limiter, t0 + S, 10, 601);
  /* The server's reset, a full window from the answer, says it counted
   * the call from then, not from its sending: the entry leaves our
   * window that much later (give or take the wall clock's second). */
  g_assert_cmpint (slot, >=, t0 + WINDOW - S);
  g_assert_cmpint (slot, <=, t0 + S / 10 + WINDOW + MARGIN + S);
  g_assert_cmpint (slot, >, t0 + WINDOW + MARGIN - S / 2);

  /* No limit headers: nothing read. */
  headers = headers_new ("content-type", "application/json", NULL);
  g_assert_false (anot_rate_limiter_read_headers (limiter, headers, t0, t0 + S));
  soup_message_headers_unref (headers);
}

/* Slow start, then AIMD: doubles while latency holds, a quarter off on a
 * drop (once per round trip), one per round trip after. */
static void
test_concurrency_limiter (void)
{
  g_autoptr(AnotConcurrencyLimiter) limiter = anot_concurrency_limiter_new (64);
  gint64 t = 0;
  guint before;

  g_assert_cmpuint (anot_concurrency_limiter_get_limit (limiter), ==, 1);
  g_assert_cmpuint (anot_concurrency_limiter_get_peak (limiter), ==, 0);
  /* Round trips of 100 ms with the limit full: 1, 2, 4, 8, 16. */
  for (guint round = 0; round < 4; round++)
    {
      guint limit = anot_concurrency_limiter_get_limit (limiter);

      for (guint i = 0; i < limit; i++)
        anot_concurrency_limiter_succeeded (limiter, t, t + 100 * 1000, 10, limit);
      t += 100 * 1000;
    }
  g_assert_cmpuint (anot_concurrency_limiter_get_limit (limiter), ==, 16);
  /* Not growing when the limit was not what held calls back. */
  anot_concurrency_limiter_succeeded (limiter, t, t + 100 * 1000, 10, 2);
  g_assert_cmpuint (anot_concurrency_limiter_get_limit (limiter), ==, 16);

  /* A 429: down by a quarter; the others of that round trip do not count. */
  anot_concurrency_limiter_dropped (limiter, t, t + 50 * 1000);
  g_assert_cmpuint (anot_concurrency_limiter_get_limit (limiter), ==, 12);
  anot_concurrency_limiter_dropped (limiter, t + 10 * 1000, t + 60 * 1000);
  g_assert_cmpuint (anot_concurrency_limiter_get_limit (limiter), ==, 12);
  t += 100 * 1000;
  /* Additive now: a round trip's answers (a few more, as each adds
   * 1 / the limit, which grows) add one. */
  before = anot_concurrency_limiter_get_limit (limiter);
  for (guint i = 0; i < 13; i++)
    anot_concurrency_limiter_succeeded (limiter, t, t + 100 * 1000, 10, 12);
  g_assert_cmpuint (anot_concurrency_limiter_get_limit (limiter), ==, before + 1);

  /* Latency that rose to 3×: down. */
  t += 200 * 1000;
  before = anot_concurrency_limiter_get_limit (limiter);
  for (guint i = 0; i < 20; i++)
    anot_concurrency_limiter_succeeded (limiter, t, t + 300 * 1000, 10, before);
  g_assert_cmpuint (anot_concurrency_limiter_get_limit (limiter), <, before);
  /* Long answers are not congestion: 10× the tokens, 5× the time. */
  {
    g_autoptr(AnotConcurrencyLimiter) other = anot_concurrency_limiter_new (64);

    anot_concurrency_limiter_succeeded (other, 0, 100 * 1000, 10, 1);
    for (guint i = 0; i < 10; i++)
      anot_concurrency_limiter_succeeded (other, 0, 500 * 1000, 1000, 1);
    g_assert_cmpuint (anot_concurrency_limiter_get_limit (other), >, 1);
  }
  g_assert_cmpuint (anot_concurrency_limiter_get_peak (limiter), >=, 16);

  /* The cap. */
  anot_concurrency_limiter_set_cap (limiter, 4);
  g_assert_cmpuint (anot_concurrency_limiter_get_limit (limiter), <=, 4);
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/rate-limiter/durations", test_durations);
  g_test_add_func ("/rate-limiter/user-tokens", test_user_tokens);
  g_test_add_func ("/rate-limiter/openai-headers", test_openai_headers);
  g_test_add_func ("/rate-limiter/anthropic-headers", test_anthropic_headers);
  g_test_add_func ("/rate-limiter/concurrency", test_concurrency_limiter);
  return g_test_run ();
}
