/* anot-rate-limiter.c: the pace of one endpoint × model
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "anot-rate-limiter-private.h"

#include <string.h>

/* An HTTP backend keeps one limiter per endpoint × model: the limits the
 * user set (rpm, tpm) and those the server sends in its answers
 * (OpenAI's x-ratelimit-*, Anthropic's anthropic-ratelimit-*), the
 * tighter one winning, and a ledger of the calls it sent.  A call is sent
 * when its size fits what the window has left: its requests and tokens
 * (prompt + max_tokens, known before sending) are counted when it is
 * admitted, over a sliding window, as OpenAI counts them.  A sliding
 * window is at least as strict as the token buckets the providers
 * refill continuously, so pacing by it is never refused for our own
 * traffic.
 *
 * The server's `remaining` says what it has counted, which may be more
 * than we sent (another program on the same key): the part we cannot
 * explain is kept as a debt until the server's reset says it is gone.
 * A 429 holds every call of the limiter until the server's retry time. */

#define SEND_ORDER_SLACK_US (100 * 1000)

/* A server counts a call from when it has read it, a little after we
 * sent it: our entries leave our window that much later.  The first
 * answer's reset corrects the entry of its call by the server's own
 * clock (see move_entry()); this covers the calls still in flight. */
#define EXPIRY_MARGIN_US (150 * 1000)

/* One call in the ledger.  Every meter is read from its two token counts
 * (a call is one request; its tokens are input + output), so an entry is
 * 16 bytes, not one 8-byte amount per meter: the ledger keeps two windows
 * of calls, which at a local server's pace are tens of thousands (2 MB of
 * a run's heap with 40-byte entries, growing with the run). */
typedef struct
{
  gint64 t;
  guint32 input_tokens;
  guint32 output_tokens;
} Entry;

struct _AnotRateLimiter
{
  gint64 window_us;
  gint64 span_us;            /* window_us + EXPIRY_MARGIN_US */
  guint64 user_limit[ANOT_RATE_N_METERS];
  guint64 server_limit[ANOT_RATE_N_METERS];
  guint64 debt[ANOT_RATE_N_METERS];
  gint64 debt_until_us[ANOT_RATE_N_METERS];
  gint64 hold_until_us;
  GArray *entries;           /* Entry, oldest first */
};

AnotRateLimiter *
anot_rate_limiter_new (gint64 window_us)
{
  AnotRateLimiter *self = g_new0 (AnotRateLimiter, 1);

  self->window_us = MAX (window_us, 1000);
  self->span_us = self->window_us + EXPIRY_MARGIN_US;
  self->entries = g_array_new (FALSE, FALSE, sizeof (Entry));
  return self;
}

void
anot_rate_limiter_free (AnotRateLimiter *self)
{
  if (self == NULL)
    return;
  g_array_unref (self->entries);
  g_free (self);
}

void
anot_rate_limiter_set_user_limit (AnotRateLimiter *self,
                                  AnotRateMeter    meter,
                                  guint64          per_window)
{
  self->user_limit[meter] = per_window;
}

/* The tighter of the user's limit and the server's; 0: none. */
guint64
anot_rate_limiter_get_limit (AnotRateLimiter *self,
                             AnotRateMeter    meter)
{
  guint64 user = self->user_limit[meter], server = self->server_limit[meter];

  if (user == 0)
    return server;
  if (server == 0)
    return user;
  return MIN (user, server);
}

/* Whether a call's tokens matter: only then are they counted exactly. */
gboolean
anot_rate_limiter_counts_tokens (AnotRateLimiter *self)
{
  return anot_rate_limiter_get_limit (self, ANOT_RATE_TOKENS) > 0 ||
         anot_rate_limiter_get_limit (self, ANOT_RATE_INPUT_TOKENS) > 0 ||
         anot_rate_limiter_get_limit (self, ANOT_RATE_OUTPUT_TOKENS) > 0;
}

/* A call's size on each meter; counts beyond 2^32 tokens (no model reads
 * or writes that many) are taken as 2^32 - 1, as the ledger keeps them. */
static guint64
meter_amount (guint64       input_tokens,
              guint64       output_tokens,
              AnotRateMeter meter)
{
  input_tokens = MIN (input_tokens, G_MAXUINT32);
  output_tokens = MIN (output_tokens, G_MAXUINT32);
  switch (meter)
    {
    case ANOT_RATE_REQUESTS:
      return 1;
    case ANOT_RATE_TOKENS:
      return input_tokens + output_tokens;
    case ANOT_RATE_INPUT_TOKENS:
      return input_tokens;
    case ANOT_RATE_OUTPUT_TOKENS:
      return output_tokens;
    case ANOT_RATE_N_METERS:
    default:
      g_assert_not_reached ();
    }
}

static guint64
entry_amount (const Entry   *e,
              AnotRateMeter  meter)
{
  return meter_amount (e->input_tokens, e->output_tokens, meter);
}

/* Entries older than two windows can answer no question: a server's
 * remaining is compared with the window before a call's sending, and a
 * call is not in flight that long. */
static void
forget_old (AnotRateLimiter *self,
            gint64           now_us)
{
  guint n = 0;

  while (n < self->entries->len &&
         g_array_index (self->entries, Entry, n).t <= now_us - 2 * self->window_us)
    n++;
  if (n > 0)
    g_array_remove_range (self->entries, 0, n);
}

/* What @meter counted in the window ending at @at_us, entries at @at_us
 * included, and those up to @late_us later; without the debt. */
static guint64
window_sum_late (AnotRateLimiter *self,
                 AnotRateMeter    meter,
                 gint64           at_us,
                 gint64           late_us)
{
  guint64 sum = 0;

  for (guint i = self->entries->len; i > 0; i--)
    {
      Entry *e = &g_array_index (self->entries, Entry, i - 1);

      if (e->t > at_us + late_us)
        continue;
      if (e->t <= at_us - self->span_us)
        break;
      sum += entry_amount (e, meter);
    }
  return sum;
}

static guint64
window_sum (AnotRateLimiter *self,
            AnotRateMeter    meter,
            gint64           at_us)
{
  return window_sum_late (self, meter, at_us, 0);
}

/* The earliest time from @from_us on when @cost fits @meter's limit. */
static gint64
meter_slot (AnotRateLimiter *self,
            AnotRateMeter    meter,
            gint64           from_us,
            guint64          cost)
{
  guint64 limit = anot_rate_limiter_get_limit (self, meter);
  guint64 used, freed = 0;
  gboolean debt_due;
  gint64 last = from_us;
  guint first;

  if (limit == 0)
    return from_us;
  debt_due = self->debt[meter] > 0 && self->debt_until_us[meter] > from_us;
  used = window_sum (self, meter, from_us) + (debt_due ? self->debt[meter] : 0);
  if (used + cost <= limit)
    return from_us;

  /* Walk the expiries in order: each entry leaves the window one window
   * after it came in; the debt leaves when the server said.  A call
   * larger than the whole limit goes once everything has left (the
   * server then says what it thinks of it). */
  for (first = 0; first < self->entries->len; first++)
    if (g_array_index (self->entries, Entry, first).t > from_us - self->span_us)
      break;
  for (guint i = first; i < self->entries->len || debt_due; )
    {
      gint64 expiry;
      guint64 amount;

      if (i < self->entries->len)
        {
          Entry *e = &g_array_index (self->entries, Entry, i);

          if (e->t > from_us)
            {
              i = self->entries->len;
              continue;
            }
          expiry = e->t + self->span_us;
          if (debt_due && self->debt_until_us[meter] <= expiry)
            {
              expiry = self->debt_until_us[meter];
              amount = self->debt[meter];
              debt_due = FALSE;
            }
          else
            {
              amount = entry_amount (e, meter);
              i++;
            }
        }
      else
        {
          expiry = self->debt_until_us[meter];
          amount = self->debt[meter];
          debt_due = FALSE;
        }
      freed += amount;
      last = expiry;
      if (used - freed + cost <= limit)
        return expiry;
    }
  return last;
}

/* When a call of this size may be sent: @now_us when it fits now. */
gint64
anot_rate_limiter_next_slot (AnotRateLimiter *self,
                             gint64           now_us,
                             guint64          input_tokens,
                             guint64          output_tokens)
{
  gint64 slot = MAX (now_us, self->hold_until_us);

  forget_old (self, now_us);
  for (guint m = 0; m < ANOT_RATE_N_METERS; m++)
    slot = MAX (slot, meter_slot (self, m, MAX (now_us, self->hold_until_us),
                                  meter_amount (input_tokens, output_tokens, m)));
  return slot;
}

void
anot_rate_limiter_admit (AnotRateLimiter *self,
                         gint64           now_us,
                         guint64          input_tokens,
                         guint64          output_tokens)
{
  Entry entry = { now_us, MIN (input_tokens, G_MAXUINT32), MIN (output_tokens, G_MAXUINT32) };
  guint i = self->entries->len;

  /* Times come in order, but keep the ledger sorted whatever. */
  while (i > 0 && g_array_index (self->entries, Entry, i - 1).t > now_us)
    i--;
  g_array_insert_val (self->entries, i, entry);
}

/* A call the server refused (429) was not counted there. */
void
anot_rate_limiter_refund (AnotRateLimiter *self,
                          gint64           sent_us,
                          guint64          input_tokens,
                          guint64          output_tokens)
{
  guint32 input = MIN (input_tokens, G_MAXUINT32), output = MIN (output_tokens, G_MAXUINT32);

  for (guint i = self->entries->len; i > 0; i--)
    {
      Entry *e = &g_array_index (self->entries, Entry, i - 1);

      if (e->t == sent_us && e->input_tokens == input && e->output_tokens == output)
        {
          g_array_remove_index (self->entries, i - 1);
          return;
        }
      if (e->t < sent_us)
        return;
    }
}

void
anot_rate_limiter_hold (AnotRateLimiter *self,
                        gint64           until_us)
{
  self->hold_until_us = MAX (self->hold_until_us, until_us);
}

/* "6m0s", "1.5s", "20ms", "1h2m3s" (OpenAI's resets and "try again in"),
 * or a plain number of seconds; *@end after it.  -1 when unreadable. */
static gint64
parse_duration (const char  *text,
                const char **end)
{
  const char *p = text;
  double total_ms = 0;
  gboolean any = FALSE;

  while (*p == ' ')
    p++;
  while (g_ascii_isdigit (*p) || *p == '.')
    {
      char *after = NULL;
      double value = g_ascii_strtod (p, &after);

      if (after == p || value < 0)
        break;
      p = after;
      if (g_str_has_prefix (p, "ms"))
        total_ms += value, p += 2;
      else if (g_str_has_prefix (p, "us") || g_str_has_prefix (p, "µs"))
        total_ms += value / 1000, p += *p == 'u' ? 2 : strlen ("µs");
      else if (*p == 'h')
        total_ms += value * 3600e3, p++;
      else if (*p == 'm')
        total_ms += value * 60e3, p++;
      else if (*p == 's')
        total_ms += value * 1e3, p++;
      else if (!any)
        {
          /* A bare number: seconds, and nothing may follow. */
          total_ms = value * 1e3;
          any = TRUE;
          break;
        }
      else
        return -1;
      any = TRUE;
    }
  if (end != NULL)
    *end = p;
  return any ? (gint64) (total_ms + 0.999) : -1;
}

gint64
anot_rate_parse_duration_ms (const char *text)
{
  const char *end = NULL;
  gint64 ms;

  if (text == NULL)
    return -1;
  ms = parse_duration (text, &end);
  while (ms >= 0 && *end == ' ')
    end++;
  return ms >= 0 && *end == '\0' ? ms : -1;
}

/* OpenAI's 429 message: "... Please try again in 1.234s. Visit ...";
 * -1 when it says no time. */
gint64
anot_rate_parse_try_again_ms (const char *message)
{
  const char *at;

  if (message == NULL || (at = strstr (message, "try again in ")) == NULL)
    return -1;
  return parse_duration (at + strlen ("try again in "), NULL);
}

/* A reset: OpenAI's duration from now, or Anthropic's RFC 3339 time. */
static gint64
reset_ms (const char *value)
{
  g_autoptr(GDateTime) when = NULL;
  g_autoptr(GDateTime) now = NULL;
  gint64 ms;

  if (value == NULL)
    return -1;
  if ((ms = anot_rate_parse_duration_ms (value)) >= 0)
    return ms;
  when = g_date_time_new_from_iso8601 (value, NULL);
  if (when == NULL)
    return -1;
  now = g_date_time_new_now_utc ();
  return MAX (0, g_date_time_difference (when, now) / 1000);
}

static gboolean
header_uint (SoupMessageHeaders *headers,
             const char         *name,
             guint64            *value)
{
  const char *text = soup_message_headers_get_one (headers, name);
  g_autofree char *trimmed = NULL;

  if (text == NULL)
    return FALSE;
  trimmed = g_strstrip (g_strdup (text));
  return g_ascii_string_to_unsigned (trimmed, 10, 0, G_MAXUINT64, value, NULL);
}

/* Reads one limit (PREFIX + "limit", "remaining", "reset"): the server's
 * limit, and the debt of what it counted beyond our ledger up to the
 * call's sending. */
static gboolean
read_meter (AnotRateLimiter    *self,
            SoupMessageHeaders *headers,
            AnotRateMeter       meter,
            const char         *limit_name,
            const char         *remaining_name,
            const char         *reset_name,
            gint64              sent_us,
            gint64              now_us,
            gint64             *counted_from_us)
{
  guint64 limit, remaining;
  gint64 reset;

  if (!header_uint (headers, limit_name, &limit) || limit == 0)
    return FALSE;
  self->server_limit[meter] = limit;
  if (!header_uint (headers, remaining_name, &remaining))
    return TRUE;
  reset = reset_ms (soup_message_headers_get_one (headers, reset_name));
  /* Everything is back one window after the newest call came in: this
   * one, most likely, as the server's clock has it. */
  if (reset >= 0)
    *counted_from_us = MAX (*counted_from_us, now_us + reset * 1000 - self->window_us);
  /* The ledger still holds the window before the call's sending. */
  if (sent_us > now_us - self->window_us)
    {
      guint64 counted = limit > remaining ? limit - remaining : 0;
      /* Calls sent a moment later may reach the server first. */
      guint64 ours = window_sum_late (self, meter, sent_us, SEND_ORDER_SLACK_US);

      if (counted > ours)
        {
          gint64 span = reset >= 0 ? MIN (reset * 1000, self->window_us) : self->window_us;

          self->debt[meter] = counted - ours;
          self->debt_until_us[meter] = now_us + span;
        }
      else
        self->debt[meter] = 0;
    }
  return TRUE;
}

/* The entry of the call admitted at @sent_us, counted by the server
 * from @counted_from_us (at most now): it leaves our window then. */
static void
move_entry (AnotRateLimiter *self,
            gint64           sent_us,
            gint64           counted_from_us)
{
  for (guint i = self->entries->len; i > 0; i--)
    {
      Entry e = g_array_index (self->entries, Entry, i - 1);
      guint j;

      if (e.t < sent_us)
        return;
      if (e.t != sent_us)
        continue;
      if (counted_from_us <= e.t)
        return;
      g_array_remove_index (self->entries, i - 1);
      e.t = counted_from_us;
      for (j = self->entries->len; j > 0 && g_array_index (self->entries, Entry, j - 1).t > e.t; j--)
        ;
      g_array_insert_val (self->entries, j, e);
      return;
    }
}

/* Reads the limits an answer carries (of a call admitted at @sent_us);
 * returns whether it carried any. */
gboolean
anot_rate_limiter_read_headers (AnotRateLimiter    *self,
                                SoupMessageHeaders *headers,
                                gint64              sent_us,
                                gint64              now_us)
{
  static const struct
  {
    AnotRateMeter meter;
    const char *head;        /* HEAD + limit, remaining or reset + TAIL */
    const char *tail;
  } meters[] = {
    { ANOT_RATE_REQUESTS, "x-ratelimit-", "-requests" },
    { ANOT_RATE_TOKENS, "x-ratelimit-", "-tokens" },
    { ANOT_RATE_REQUESTS, "anthropic-ratelimit-requests-", "" },
    { ANOT_RATE_TOKENS, "anthropic-ratelimit-tokens-", "" },
    { ANOT_RATE_INPUT_TOKENS, "anthropic-ratelimit-input-tokens-", "" },
    { ANOT_RATE_OUTPUT_TOKENS, "anthropic-ratelimit-output-tokens-", "" },
  };
  gboolean any = FALSE;
  gint64 counted_from = G_MININT64;

  if (headers == NULL)
    return FALSE;
  for (guint i = 0; i < G_N_ELEMENTS (meters); i++)
    {
      g_autofree char *limit = g_strconcat (meters[i].head, "limit", meters[i].tail, NULL);
      g_autofree char *remaining = g_strconcat (meters[i].head, "remaining", meters[i].tail, NULL);
      g_autofree char *reset = g_strconcat (meters[i].head, "reset", meters[i].tail, NULL);

      if (read_meter (self, headers, meters[i].meter, limit, remaining, reset, sent_us, now_us,
                      &counted_from))
        any = TRUE;
    }
  if (counted_from > sent_us)
    move_entry (self, sent_us, MIN (counted_from, now_us));
  return any;
}
