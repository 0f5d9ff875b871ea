/* anot-text-private.h: small facts about text
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <string.h>

#include <glib.h>

#if defined (__SSE2__)
#include <emmintrin.h>
#endif

G_BEGIN_DECLS

/* The length of a UTF-8 byte order mark at the start of @data: 3, or 0
 * when there is none.  Windows editors (Notepad, Excel's "CSV UTF-8") start
 * files with one; it is not part of the text, and a reader that takes it
 * for the first character refuses line 1 ("invalid number at column 1"). */
static inline gsize
anot_utf8_bom_length (const char *data,
                      gsize       length)
{
  return length >= 3 && memcmp (data, "\xEF\xBB\xBF", 3) == 0 ? 3 : 0;
}

/* Whether @a and @b have the same @len bytes.  Up to 16 bytes, two loads
 * of each that overlap in the middle, none past the end: a member name or
 * an id is compared without a call to memcmp(). */
static inline gboolean
anot_bytes_equal (const char *a,
                  const char *b,
                  gsize       len)
{
  if (len >= 8 && len <= 16)
    {
      guint64 a0, a1, b0, b1;

      memcpy (&a0, a, 8);
      memcpy (&b0, b, 8);
      memcpy (&a1, a + len - 8, 8);
      memcpy (&b1, b + len - 8, 8);
      return ((a0 ^ b0) | (a1 ^ b1)) == 0;
    }
  if (len >= 4 && len < 8)
    {
      guint32 a0, a1, b0, b1;

      memcpy (&a0, a, 4);
      memcpy (&b0, b, 4);
      memcpy (&a1, a + len - 4, 4);
      memcpy (&b1, b + len - 4, 4);
      return ((a0 ^ b0) | (a1 ^ b1)) == 0;
    }
  if (len < 4)
    {
      for (gsize i = 0; i < len; i++)
        if (a[i] != b[i])
          return FALSE;
      return TRUE;
    }
  return memcmp (a, b, len) == 0;
}

/* A hash of @len bytes, a word at a time, for the project's own tables
 * (not stable across versions: never stored). */
static inline guint32
anot_hash_bytes (const char *p,
                 gsize       len)
{
  guint64 h = G_GUINT64_CONSTANT (0x9e3779b97f4a7c15) ^ len;
  guint64 w;

  for (; len >= 8; p += 8, len -= 8)
    {
      memcpy (&w, p, 8);
      h = (h ^ w) * G_GUINT64_CONSTANT (0xff51afd7ed558ccd);
      h ^= h >> 32;
    }
  if (len > 0)
    {
      w = 0;
      memcpy (&w, p, len);
      h = (h ^ w) * G_GUINT64_CONSTANT (0xff51afd7ed558ccd);
    }
  h ^= h >> 29;
  h *= G_GUINT64_CONSTANT (0xc4ceb9fe1a85ec53);
  h ^= h >> 32;

  return (guint32) h;
}

/* The characters of @length bytes of valid UTF-8 (g_utf8_strlen()'s
 * count, at a fraction of its cost: a prompt of a few megabytes is
 * counted for every call's record): the bytes that do not continue a
 * character.  Sixteen bytes a step where the compiler has vectors (a
 * continuation byte, 10xxxxxx, is below -64 as a signed byte), eight
 * otherwise; each lane's count summed for up to 255 steps before the
 * lanes are added.  Of bytes that are not UTF-8, those that are not
 * 10xxxxxx are counted; nothing past @length is read. */
static inline gsize
anot_utf8_count_chars (const char *text,
                       gsize       length)
{
  const guchar *p = (const guchar *) text;
  const guchar *end = p + length;
  const guint64 ones = G_GUINT64_CONSTANT (0x0101010101010101);
  gsize continuations = 0;

#if defined (__GNUC__)
  typedef signed char Lanes __attribute__ ((vector_size (16)));
  typedef guchar Counts __attribute__ ((vector_size (16)));
  typedef guint64 Halves __attribute__ ((vector_size (16)));

  while ((gsize) (end - p) >= 16)
    {
      gsize steps = MIN ((gsize) (end - p) / 16, 255);
      Counts sums = { 0 };
      Halves halves;

      for (gsize i = 0; i < steps; i++, p += 16)
        {
          Lanes v;

          memcpy (&v, p, 16);
          /* 0xff (-1) in each lane that continues a character. */
          sums -= (Counts) (v < -64);
        }
      memcpy (&halves, &sums, 16);
      for (int h = 0; h < 2; h++)
        {
          guint64 lanes = halves[h];

          lanes = (lanes & G_GUINT64_CONSTANT (0x00ff00ff00ff00ff)) +
                  ((lanes >> 8) & G_GUINT64_CONSTANT (0x00ff00ff00ff00ff));
          continuations += (gsize) ((lanes * G_GUINT64_CONSTANT (0x0001000100010001)) >> 48);
        }
    }
#endif
  while ((gsize) (end - p) >= 8)
    {
      gsize steps = MIN ((gsize) (end - p) / 8, 255);
      guint64 lanes = 0;

      for (gsize i = 0; i < steps; i++, p += 8)
        {
          guint64 w;

          memcpy (&w, p, 8);
          /* A continuation byte is 10xxxxxx: bit 7 set and bit 6 clear. */
          lanes += ((w & ~(w << 1)) >> 7) & ones;
        }
      /* Eight lanes of at most 255: pairs in 16 bits, then the four
       * pairs summed into the top 16 bits by one multiplication. */
      lanes = (lanes & G_GUINT64_CONSTANT (0x00ff00ff00ff00ff)) +
              ((lanes >> 8) & G_GUINT64_CONSTANT (0x00ff00ff00ff00ff));
      continuations += (gsize) ((lanes * G_GUINT64_CONSTANT (0x0001000100010001)) >> 48);
    }
  for (; p < end; p++)
    continuations += (*p & 0xc0) == 0x80;
  return length - continuations;
}

/* The end of the bytes from @p on, sixteen at a time, that a JSON string
 * holds as they are: no quote, backslash or control byte, nor (with
 * @ascii_only) DEL or a byte above 127, nor (with @no_del) DEL.  With SSE2
 * it stops at the first byte that is one; with other vectors at the first
 * sixteen that hold one; at fewer than sixteen left either way: the caller
 * looks at the rest.  Without vectors from the compiler, @p. */
#if defined (__SSE2__)
#define ANOT_JSON_SKIP_PLAIN_EXACT 1
#else
#define ANOT_JSON_SKIP_PLAIN_EXACT 0
#endif

/* GCC and Clang on x86-64 build an AVX2 loop beside the SSE2 one, taken
 * when the processor has AVX2 (anot-text.c). */
#if defined (__SSE2__) && defined (__x86_64__) && defined (__GNUC__)
#define ANOT_JSON_SKIP_PLAIN_AVX2 1
G_GNUC_INTERNAL
const char *_anot_json_skip_plain_avx2 (const char *p,
                                        const char *end,
                                        gboolean    ascii_only,
                                        gboolean    no_del);
#else
#define ANOT_JSON_SKIP_PLAIN_AVX2 0
#endif

static inline const char *
anot_json_skip_plain_full (const char *p,
                           const char *end,
                           gboolean    ascii_only,
                           gboolean    no_del)
{
#if defined (__SSE2__)
  while (end - p >= 16)
    {
      __m128i v = _mm_loadu_si128 ((const __m128i *) (gconstpointer) p);
      __m128i stop;
      int mask;

      /* Signed, v + 1 is below 0x21 for 0x00-0x1f, DEL and every byte
       * above 127; unsigned, min (v, 0x1f) is v for 0x00-0x1f only. */
      if (ascii_only)
        stop = _mm_cmplt_epi8 (_mm_add_epi8 (v, _mm_set1_epi8 (1)), _mm_set1_epi8 (0x21));
      else
        stop = _mm_cmpeq_epi8 (_mm_min_epu8 (v, _mm_set1_epi8 (0x1f)), v);
      stop = _mm_or_si128 (stop, _mm_or_si128 (_mm_cmpeq_epi8 (v, _mm_set1_epi8 ('"')),
                                               _mm_cmpeq_epi8 (v, _mm_set1_epi8 ('\\'))));
      if (no_del)
        stop = _mm_or_si128 (stop, _mm_cmpeq_epi8 (v, _mm_set1_epi8 (0x7f)));
      mask = _mm_movemask_epi8 (stop);
      if (mask != 0)
        return p + __builtin_ctz ((unsigned int) mask);
      p += 16;
#if ANOT_JSON_SKIP_PLAIN_AVX2
      /* A long run: the rest 32 bytes at a time.  It stops at the byte to
       * look at or with fewer than 32 left, which this loop finishes. */
      if (end - p >= 64 && __builtin_cpu_supports ("avx2"))
        p = _anot_json_skip_plain_avx2 (p, end, ascii_only, no_del);
#endif
    }
#elif defined (__GNUC__)
  typedef signed char Lanes __attribute__ ((vector_size (16)));
  typedef guchar Bytes __attribute__ ((vector_size (16)));
  typedef guint64 Halves __attribute__ ((vector_size (16)));

  while (end - p >= 16)
    {
      Lanes v, stop;
      Halves h;

      memcpy (&v, p, 16);
      /* Signed, every byte above 127 is below 0x20 too. */
      stop = ascii_only ? (Lanes) ((v < 0x20) | (v == 0x7f))
                        : (Lanes) ((Bytes) v < 0x20);
      stop |= (Lanes) ((v == '"') | (v == '\\'));
      if (no_del)
        stop |= (Lanes) (v == 0x7f);
      memcpy (&h, &stop, 16);
      if ((h[0] | h[1]) != 0)
        break;
      p += 16;
    }
#endif
  return p;
}

#define anot_json_skip_plain(p, end, ascii_only) \
  anot_json_skip_plain_full ((p), (end), (ascii_only), FALSE)

/* Room for @n more bytes at the end of @out, which they fill: a pointer
 * to them.  GString's own appends are calls, and the JSON writers append
 * a run between escapes every few dozen bytes of a prompt. */
static inline char *
anot_string_append_space (GString *out,
                          gsize    n)
{
  gsize at = out->len;

  if (G_UNLIKELY (at + n >= out->allocated_len))
    g_string_set_size (out, at + n);
  else
    {
      out->len = at + n;
      out->str[at + n] = '\0';
    }
  return out->str + at;
}

static inline void
anot_string_append_bytes (GString    *out,
                          const char *bytes,
                          gsize       n)
{
  memcpy (anot_string_append_space (out, n), bytes, n);
}

G_END_DECLS
