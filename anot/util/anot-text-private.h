/* anot-text-private.h: small facts about text
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <string.h>

#include <glib.h>

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

/* The characters of @length bytes of valid UTF-8 (g_utf8_strlen()'s
 * count, at a fraction of its cost: a prompt of a few megabytes is
 * counted for every call's record): the bytes that do not continue a
 * character.  Eight bytes a step, each byte's "is a continuation" bit
 * summed in its own lane for up to 255 steps before the lanes are added.
 * Of bytes that are not UTF-8, those that are not 10xxxxxx are counted;
 * nothing past @length is read. */
static inline gsize
anot_utf8_count_chars (const char *text,
                       gsize       length)
{
  const guchar *p = (const guchar *) text;
  const guchar *end = p + length;
  const guint64 ones = G_GUINT64_CONSTANT (0x0101010101010101);
  gsize continuations = 0;

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
