/* anot-json-writer.c: JSON text written as it is built
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "anot-json-writer.h"
#include "anot-json-private.h"
#include "anot-text-private.h"

#include <math.h>
#include <string.h>

/**
 * AnotJsonWriter:
 *
 * Compact JSON text, written as a [class@Json.Builder] would build it.
 *
 * The calls are those of [class@Json.Builder] (begin and end objects and
 * arrays, member names, values) but the text is written straight away,
 * with no tree in between: an LLM request body is written once per call
 * and a tree of json-glib nodes only to be serialised costs more than the
 * text.  The output is byte for byte what `json_to_string (node, FALSE)`
 * gives for the same tree (member order kept, doubles with 17 significant
 * digits and always a decimal point or exponent, non-ASCII text as is,
 * control characters escaped), except that infinities and NaN, which JSON
 * cannot express, are written as `null`.
 *
 * Calls out of order (a value in an object without a member name, an end
 * that does not match its begin) are programming errors: they are
 * reported with `g_critical()` and ignored.
 *
 * Since: 0.1
 */

struct _AnotJsonWriter
{
  GString *text;
  GByteArray *open;          /* '{' or '[' per open container */
  gboolean need_comma;
  gboolean have_name;        /* a member name waits for its value */
  gboolean complete;         /* the root value is written */
};

static AnotJsonWriter *
anot_json_writer_copy (AnotJsonWriter *self)
{
  AnotJsonWriter *copy = g_new0 (AnotJsonWriter, 1);

  copy->text = g_string_new_len (self->text->str, self->text->len);
  copy->open = g_byte_array_new ();
  g_byte_array_append (copy->open, self->open->data, self->open->len);
  copy->need_comma = self->need_comma;
  copy->have_name = self->have_name;
  copy->complete = self->complete;
  return copy;
}

G_DEFINE_BOXED_TYPE (AnotJsonWriter, anot_json_writer, anot_json_writer_copy, anot_json_writer_free)

/**
 * anot_json_writer_new:
 *
 * Returns: (transfer full): an empty writer
 *
 * Since: 0.1
 */
AnotJsonWriter *
anot_json_writer_new (void)
{
  AnotJsonWriter *self = g_new0 (AnotJsonWriter, 1);

  self->text = g_string_sized_new (512);
  self->open = g_byte_array_sized_new (8);
  return self;
}

/* A writer with room for @size bytes of text before it grows; its text
 * taken as a string once written. */
AnotJsonWriter *
_anot_json_writer_new_sized (gsize size)
{
  AnotJsonWriter *self = anot_json_writer_new ();

  g_string_free (self->text, TRUE);
  self->text = g_string_sized_new (size);
  return self;
}

char *
_anot_json_writer_steal_text (AnotJsonWriter *self,
                              gsize          *length)
{
  g_return_val_if_fail (self->text != NULL, NULL);

  *length = self->text->len;
  return g_string_free (g_steal_pointer (&self->text), FALSE);
}

/**
 * anot_json_writer_free:
 * @self: (transfer full): a writer
 *
 * Since: 0.1
 */
void
anot_json_writer_free (AnotJsonWriter *self)
{
  g_return_if_fail (self != NULL);

  if (self->text != NULL)
    g_string_free (self->text, TRUE);
  g_byte_array_unref (self->open);
  g_free (self);
}

static char
innermost (AnotJsonWriter *self)
{
  return self->open->len > 0 ? (char) self->open->data[self->open->len - 1] : '\0';
}

/* Where a value may go: the root of an empty writer, an array, or an
 * object after a member name. */
static gboolean
begin_value (AnotJsonWriter *self,
             const char     *caller)
{
  char in = innermost (self);

  if (self->text == NULL || self->complete ||
      (in == '{' && !self->have_name) || (in == '\0' && self->text->len > 0))
    {
      g_critical ("%s: no value can go here (an object member needs a name first, "
                  "and a document has one root value)", caller);
      return FALSE;
    }
  if (in == '[' && self->need_comma)
    g_string_append_c (self->text, ',');
  self->have_name = FALSE;
  return TRUE;
}

static void
end_value (AnotJsonWriter *self)
{
  self->need_comma = TRUE;
  if (self->open->len == 0)
    self->complete = TRUE;
}

#define append_space anot_string_append_space
#define append_bytes anot_string_append_bytes

#define append_literal(out, literal) append_bytes ((out), literal, sizeof literal - 1)

/* The high bit of each byte of @w that is a quote, a backslash or a
 * control character (exact for the lowest one), as in
 * _anot_json_word_needs_look() but letting non-ASCII bytes through. */
static inline guint64
word_needs_escape (guint64 w)
{
  guint64 quote = w ^ (ANOT_JSON_ONES * '"');
  guint64 backslash = w ^ (ANOT_JSON_ONES * '\\');

  return (((quote - ANOT_JSON_ONES) & ~quote) |
          ((backslash - ANOT_JSON_ONES) & ~backslash) |
          ((w - ANOT_JSON_ONES * 0x20) & ~w)) & ANOT_JSON_HIGHS;
}

/* How each byte is written in a JSON string: 0 as it is, 'u' as \u00XX,
 * else a backslash and this letter. */
static const char escapes[256] = {
  'u', 'u', 'u', 'u', 'u', 'u', 'u', 'u', 'b', 't', 'n', 'u', 'f', 'r', 'u', 'u',
  'u', 'u', 'u', 'u', 'u', 'u', 'u', 'u', 'u', 'u', 'u', 'u', 'u', 'u', 'u', 'u',
  ['"'] = '"', ['\\'] = '\\',
};

/* Room for @n more bytes after the end of @out, not yet counted in its
 * length: the caller writes there and sets the length. */
static inline char *
reserve_space (GString *out,
               gsize    n)
{
  if (G_UNLIKELY (out->len + n >= out->allocated_len))
    {
      gsize length = out->len;

      g_string_set_size (out, length + n);
      out->len = length;
    }
  return out->str + out->len;
}

static void
write_string (GString    *out,
              const char *text)
{
  static const char hex[] = "0123456789abcdef";
  gsize length = strlen (text);
  const char *p = text;
  const char *end = text + length;

  /* Names and values mostly need no escape: then one copy with their
   * quotes, the text checked 16 and 8 bytes at a time. */
  p = anot_json_skip_plain (p, end, FALSE);
  while (end - p >= 8)
    {
      guint64 w;

      memcpy (&w, p, sizeof w);
      if (word_needs_escape (w) != 0)
        break;
      p += 8;
    }
  if (end - p < 8)
    {
      /* The last bytes, padded with a letter. */
      guint64 w = ANOT_JSON_ONES * 'a';

      memcpy (&w, p, (gsize) (end - p));
      if (word_needs_escape (w) == 0)
        p = end;
    }
  if (p == end)
    {
      char *at = append_space (out, length + 2);

      at[0] = '"';
      memcpy (at + 1, text, length);
      at[length + 1] = '"';
      return;
    }

  /* Plain runs are copied at once (found sixteen bytes at a time); the
   * sixteen bytes where one stops are written byte by byte through the
   * table into room reserved for their worst case.  A prompt of JSON
   * candidates, escaped again into a body, has a quote or a line break
   * every few bytes between its reviews' texts. */
  *append_space (out, 1) = '"';
  append_bytes (out, text, p - text);
  while (p < end)
    {
      const char *plain = anot_json_skip_plain (p, end, FALSE);
      const char *stop;
      char *dst;

      if (plain > p)
        {
          append_bytes (out, p, plain - p);
          p = plain;
        }
      stop = p + MIN ((gsize) (end - p), 16);
      dst = reserve_space (out, 6 * (gsize) (stop - p));
      for (; p < stop; p++)
        {
          unsigned char c = (unsigned char) *p;
          char e = escapes[c];

          if (e == 0)
            *dst++ = (char) c;
          else if (e != 'u')
            {
              dst[0] = '\\';
              dst[1] = e;
              dst += 2;
            }
          else
            {
              memcpy (dst, "\\u00", 4);
              dst[4] = hex[c >> 4];
              dst[5] = hex[c & 0xf];
              dst += 6;
            }
        }
      out->len = dst - out->str;
    }
  *append_space (out, 1) = '"';
}

static void
begin_container (AnotJsonWriter *self,
                 char            bracket,
                 const char     *caller)
{
  if (!begin_value (self, caller))
    return;
  g_string_append_c (self->text, bracket);
  g_byte_array_append (self->open, (const guint8 *) &bracket, 1);
  self->need_comma = FALSE;
}

static void
end_container (AnotJsonWriter *self,
               char            bracket,
               const char     *caller)
{
  if (self->text == NULL || innermost (self) != bracket || self->have_name)
    {
      g_critical ("%s: no open %s to end here", caller, bracket == '{' ? "object" : "array");
      return;
    }
  g_string_append_c (self->text, bracket == '{' ? '}' : ']');
  g_byte_array_set_size (self->open, self->open->len - 1);
  end_value (self);
}

/**
 * anot_json_writer_begin_object:
 * @self: a writer
 *
 * Opens an object where a value may go.
 *
 * Since: 0.1
 */
void
anot_json_writer_begin_object (AnotJsonWriter *self)
{
  g_return_if_fail (self != NULL);

  begin_container (self, '{', G_STRFUNC);
}

/**
 * anot_json_writer_end_object:
 * @self: a writer
 *
 * Closes the innermost object.
 *
 * Since: 0.1
 */
void
anot_json_writer_end_object (AnotJsonWriter *self)
{
  g_return_if_fail (self != NULL);

  end_container (self, '{', G_STRFUNC);
}

/**
 * anot_json_writer_begin_array:
 * @self: a writer
 *
 * Opens an array where a value may go.
 *
 * Since: 0.1
 */
void
anot_json_writer_begin_array (AnotJsonWriter *self)
{
  g_return_if_fail (self != NULL);

  begin_container (self, '[', G_STRFUNC);
}

/**
 * anot_json_writer_end_array:
 * @self: a writer
 *
 * Closes the innermost array.
 *
 * Since: 0.1
 */
void
anot_json_writer_end_array (AnotJsonWriter *self)
{
  g_return_if_fail (self != NULL);

  end_container (self, '[', G_STRFUNC);
}

/**
 * anot_json_writer_set_member_name:
 * @self: a writer
 * @name: the name of the next member of the innermost object (UTF-8)
 *
 * Since: 0.1
 */
void
anot_json_writer_set_member_name (AnotJsonWriter *self,
                                  const char     *name)
{
  g_return_if_fail (self != NULL);
  g_return_if_fail (name != NULL);

  if (self->text == NULL || innermost (self) != '{' || self->have_name)
    {
      g_critical ("%s: a member name needs an open object and a value after it", G_STRFUNC);
      return;
    }
  if (self->need_comma)
    g_string_append_c (self->text, ',');
  write_string (self->text, name);
  g_string_append_c (self->text, ':');
  self->have_name = TRUE;
}

/* For names and strings written many times (a trace's): quoted once
 * (_anot_json_writer_quote()), then appended as they are. */
char *
_anot_json_writer_quote (const char *text,
                         gsize      *length)
{
  GString *out = g_string_sized_new (strlen (text) + 2);

  write_string (out, text);
  *length = out->len;
  return g_string_free (out, FALSE);
}

void
_anot_json_writer_set_quoted_member_name (AnotJsonWriter *self,
                                          const char     *quoted,
                                          gsize           length)
{
  char *at;

  if (self->text == NULL || innermost (self) != '{' || self->have_name)
    {
      g_critical ("%s: a member name needs an open object and a value after it", G_STRFUNC);
      return;
    }
  at = append_space (self->text, length + 1 + (self->need_comma ? 1 : 0));
  if (self->need_comma)
    *at++ = ',';
  memcpy (at, quoted, length);
  at[length] = ':';
  self->have_name = TRUE;
}

void
_anot_json_writer_add_quoted_string_value (AnotJsonWriter *self,
                                           const char     *quoted,
                                           gsize           length)
{
  if (!begin_value (self, G_STRFUNC))
    return;
  append_bytes (self->text, quoted, length);
  end_value (self);
}

/**
 * anot_json_writer_add_string_value:
 * @self: a writer
 * @value: (nullable): a string (UTF-8); %NULL writes `null`
 *
 * Since: 0.1
 */
void
anot_json_writer_add_string_value (AnotJsonWriter *self,
                                   const char     *value)
{
  g_return_if_fail (self != NULL);

  if (!begin_value (self, G_STRFUNC))
    return;
  if (value == NULL)
    append_literal (self->text, "null");
  else
    write_string (self->text, value);
  end_value (self);
}

/* Decimal digits of @value, as printf's "%" G_GINT64_FORMAT writes them,
 * without printf: a trace writes thousands of numbers. */
static void
append_int64 (GString *out,
              gint64   value)
{
  char digits[24];
  char *p = digits + sizeof digits;
  /* Through the unsigned magnitude, so G_MININT64 negates. */
  guint64 magnitude = value < 0 ? (guint64) 0 - (guint64) value : (guint64) value;

  do
    {
      *--p = (char) ('0' + magnitude % 10);
      magnitude /= 10;
    }
  while (magnitude != 0);
  if (value < 0)
    *--p = '-';
  append_bytes (out, p, (gsize) (digits + sizeof digits - p));
}

/**
 * anot_json_writer_add_int_value:
 * @self: a writer
 * @value: an integer
 *
 * Since: 0.1
 */
void
anot_json_writer_add_int_value (AnotJsonWriter *self,
                                gint64          value)
{
  g_return_if_fail (self != NULL);

  if (!begin_value (self, G_STRFUNC))
    return;
  append_int64 (self->text, value);
  end_value (self);
}

#ifdef __SIZEOF_INT128__
/* "%.17g" of a finite, nonzero @value without printf (2,800 instructions
 * a number through g_ascii_formatd(); a trace writes dozens per item): the
 * 17 significant digits are round(|value| × 10^p) for p = 16 − ⌊log₁₀|value|⌋,
 * which for 1e-11 ≤ |value| < 2^127 is computed exactly in 128 bits
 * (value = m × 2^e, so value × 10^p is m × 5^p × 2^(p+e) or
 * m × 2^e / 10^−p), rounded half to even as glibc's printf does, and laid
 * out as "%g" does (fixed for exponents −4 to 16, else d.ddde±XX, trailing
 * zeros dropped).  Returns FALSE, writing nothing, outside that range: the
 * caller asks printf then. */
static gboolean
format_g17 (char   *buffer,
            double  value)
{
  static const guint64 pow5[28] = {
    1, 5, 25, 125, 625, 3125, 15625, 78125, 390625, 1953125, 9765625,
    48828125, 244140625, 1220703125, 6103515625, 30517578125, 152587890625,
    762939453125, 3814697265625, 19073486328125, 95367431640625,
    476837158203125, 2384185791015625, 11920928955078125, 59604644775390625,
    298023223876953125, 1490116119384765625, G_GUINT64_CONSTANT (7450580596923828125),
  };
  const guint64 lo17 = G_GUINT64_CONSTANT (100000000000000000);  /* 10^17 */
  unsigned __int128 q = 0;
  gboolean round_up = FALSE;
  guint64 bits, m, digits_value;
  int e2, exponent;
  char digits[17];
  char *p = buffer;
  int n_digits;

  memcpy (&bits, &value, sizeof bits);
  m = bits & G_GUINT64_CONSTANT (0xFFFFFFFFFFFFF);
  e2 = (int) ((bits >> 52) & 0x7FF);
  if (e2 == 0 || e2 == 0x7FF)
    return FALSE;                     /* subnormals, zero, inf, NaN */
  m |= G_GUINT64_CONSTANT (1) << 52;
  e2 -= 1075;
  /* ⌊log₁₀ 2^(e2+52)⌋: the exponent, or one less (the loop corrects it). */
  exponent = ((e2 + 52) * 78913) >> 18;
  for (;;)
    {
      int p10 = 16 - exponent;

      round_up = FALSE;
      if (p10 >= 0)
        {
          int shift;
          unsigned __int128 num;

          if (p10 > 27)
            return FALSE;
          num = (unsigned __int128) m * pow5[p10];
          shift = p10 + e2;
          if (shift >= 0)
            {
              if (shift > 60)
                return FALSE;
              q = num << shift;
            }
          else if (-shift >= 120)
            return FALSE;
          else
            {
              unsigned __int128 rest = num & ((((unsigned __int128) 1) << -shift) - 1);
              unsigned __int128 half = ((unsigned __int128) 1) << (-shift - 1);

              q = num >> -shift;
              round_up = rest > half || (rest == half && (q & 1) != 0);
            }
        }
      else
        {
          unsigned __int128 num, divisor = 1, rest;

          if (-p10 > 22 || e2 > 74)
            return FALSE;
          for (int i = 0; i < -p10; i++)
            divisor *= 10;
          num = ((unsigned __int128) m) << e2;
          q = num / divisor;
          rest = num - q * divisor;
          round_up = 2 * rest > divisor || (2 * rest == divisor && (q & 1) != 0);
        }
      if (q >= lo17)
        exponent++;
      else if (q < lo17 / 10)
        exponent--;
      else
        break;
    }
  digits_value = (guint64) q + (round_up ? 1 : 0);
  if (digits_value == lo17)
    {
      digits_value /= 10;
      exponent++;
    }
  {
    /* Two digits a division, in 32 bits: 9 digits, then 8. */
    static const char pairs[] =
      "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
      "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
      "8081828384858687888990919293949596979899";
    guint32 high = (guint32) (digits_value / 100000000);
    guint32 low = (guint32) (digits_value % 100000000);

    for (int i = 16; i >= 9; i -= 2)
      {
        guint32 pair = low % 100;

        low /= 100;
        digits[i - 1] = pairs[2 * pair];
        digits[i] = pairs[2 * pair + 1];
      }
    for (int i = 8; i >= 1; i -= 2)
      {
        guint32 pair = high % 100;

        high /= 100;
        digits[i - 1] = pairs[2 * pair];
        digits[i] = pairs[2 * pair + 1];
      }
    digits[0] = (char) ('0' + high);
  }
  n_digits = 17;
  while (n_digits > 1 && digits[n_digits - 1] == '0')
    n_digits--;

  if (value < 0)
    *p++ = '-';
  if (exponent < -4 || exponent >= 17)
    {
      int x = exponent < 0 ? -exponent : exponent;

      *p++ = digits[0];
      if (n_digits > 1)
        {
          *p++ = '.';
          memcpy (p, digits + 1, n_digits - 1);
          p += n_digits - 1;
        }
      *p++ = 'e';
      *p++ = exponent < 0 ? '-' : '+';
      if (x >= 100)
        *p++ = (char) ('0' + x / 100);
      *p++ = (char) ('0' + x / 10 % 10);
      *p++ = (char) ('0' + x % 10);
    }
  else if (exponent >= 0)
    {
      memcpy (p, digits, exponent + 1);
      p += exponent + 1;
      if (n_digits > exponent + 1)
        {
          *p++ = '.';
          memcpy (p, digits + exponent + 1, n_digits - exponent - 1);
          p += n_digits - exponent - 1;
        }
    }
  else
    {
      *p++ = '0';
      *p++ = '.';
      for (int i = -1; i > exponent; i--)
        *p++ = '0';
      memcpy (p, digits, n_digits);
      p += n_digits;
    }
  *p = '\0';
  return TRUE;
}
#else
static gboolean
format_g17 (char   *buffer,
            double  value)
{
  return FALSE;
}
#endif

static void
write_double (GString *out,
              double   value)
{
  char buffer[G_ASCII_DTOSTR_BUF_SIZE];

  /* JSON has no infinities or NaN: null, as JavaScript's JSON.stringify()
   * writes them (json-glib writes "inf", which nothing reads back). */
  if (!isfinite (value))
    {
      append_literal (out, "null");
      return;
    }
  /* Counts and scores are mostly whole numbers: what "%.17g" writes for
   * them (every digit, no exponent below 10^17) without printf's cost. */
  if (value == trunc (value) && fabs (value) < 1e15)
    {
      if (value == 0 && signbit (value))
        append_literal (out, "-0.0");
      else
        {
          append_int64 (out, (gint64) value);
          append_literal (out, ".0");
        }
      return;
    }
  if (!format_g17 (buffer, value))
    g_ascii_formatd (buffer, sizeof buffer, "%.17g", value);
  append_bytes (out, buffer, strlen (buffer));
  /* As json-glib: a double stays a double when read back. */
  if (strpbrk (buffer, ".eEn") == NULL)
    append_literal (out, ".0");
}

/**
 * anot_json_writer_add_double_value:
 * @self: a writer
 * @value: a number
 *
 * Writes @value with 17 significant digits, as json-glib does, so that it
 * reads back as the same double.  JSON cannot express infinities and NaN:
 * they are written as `null`, as JavaScript's `JSON.stringify()` does.
 *
 * Since: 0.1
 */
void
anot_json_writer_add_double_value (AnotJsonWriter *self,
                                   double          value)
{
  g_return_if_fail (self != NULL);

  if (!begin_value (self, G_STRFUNC))
    return;
  write_double (self->text, value);
  end_value (self);
}

/**
 * anot_json_writer_add_boolean_value:
 * @self: a writer
 * @value: a boolean
 *
 * Since: 0.1
 */
void
anot_json_writer_add_boolean_value (AnotJsonWriter *self,
                                    gboolean        value)
{
  g_return_if_fail (self != NULL);

  if (!begin_value (self, G_STRFUNC))
    return;
  if (value)
    append_literal (self->text, "true");
  else
    append_literal (self->text, "false");
  end_value (self);
}

/**
 * anot_json_writer_add_null_value:
 * @self: a writer
 *
 * Since: 0.1
 */
void
anot_json_writer_add_null_value (AnotJsonWriter *self)
{
  g_return_if_fail (self != NULL);

  if (!begin_value (self, G_STRFUNC))
    return;
  append_literal (self->text, "null");
  end_value (self);
}

static void
write_node (GString  *out,
            JsonNode *node)
{
  switch (JSON_NODE_TYPE (node))
    {
    case JSON_NODE_OBJECT:
      {
        JsonObjectIter iter;
        const char *name;
        JsonNode *member;
        gboolean first = TRUE;

        g_string_append_c (out, '{');
        json_object_iter_init_ordered (&iter, json_node_get_object (node));
        while (json_object_iter_next_ordered (&iter, &name, &member))
          {
            if (!first)
              g_string_append_c (out, ',');
            first = FALSE;
            write_string (out, name);
            g_string_append_c (out, ':');
            write_node (out, member);
          }
        g_string_append_c (out, '}');
      }
      break;
    case JSON_NODE_ARRAY:
      {
        JsonArray *array = json_node_get_array (node);
        guint n = json_array_get_length (array);

        g_string_append_c (out, '[');
        for (guint i = 0; i < n; i++)
          {
            if (i > 0)
              g_string_append_c (out, ',');
            write_node (out, json_array_get_element (array, i));
          }
        g_string_append_c (out, ']');
      }
      break;
    case JSON_NODE_NULL:
      g_string_append (out, "null");
      break;
    case JSON_NODE_VALUE:
    default:
      switch (json_node_get_value_type (node))
        {
        case G_TYPE_INT64:
          append_int64 (out, json_node_get_int (node));
          break;
        case G_TYPE_DOUBLE:
          write_double (out, json_node_get_double (node));
          break;
        case G_TYPE_BOOLEAN:
          g_string_append (out, json_node_get_boolean (node) ? "true" : "false");
          break;
        case G_TYPE_STRING:
          write_string (out, json_node_get_string (node));
          break;
        default:
          g_string_append (out, "null");
          break;
        }
      break;
    }
}

/**
 * anot_json_writer_add_value:
 * @self: a writer
 * @node: (transfer none): a JSON tree
 *
 * Writes @node, whatever its kind, where a value may go.
 *
 * Since: 0.1
 */
void
anot_json_writer_add_value (AnotJsonWriter *self,
                            JsonNode       *node)
{
  g_return_if_fail (self != NULL);
  g_return_if_fail (node != NULL);

  if (!begin_value (self, G_STRFUNC))
    return;
  write_node (self->text, node);
  end_value (self);
}

/**
 * anot_json_writer_add_document_value:
 * @self: a writer
 * @document: a parsed JSON text
 * @value: the index of a value of @document (0 for its root)
 *
 * Writes @value of @document where a value may go, without building a
 * tree: its strings and numbers as @document's text has them (escapes
 * and all), its containers without whitespace.  A member repeated in an
 * object is written as many times as it occurs.
 *
 * Since: 0.1
 */
void
anot_json_writer_add_document_value (AnotJsonWriter   *self,
                                     AnotJsonDocument *document,
                                     int               value)
{
  g_return_if_fail (self != NULL);
  g_return_if_fail (document != NULL);
  g_return_if_fail (anot_json_document_get_kind (document, value) != ANOT_JSON_KIND_NONE);

  if (!begin_value (self, G_STRFUNC))
    return;
  _anot_json_document_write_value (document, value, self->text);
  end_value (self);
}

/**
 * anot_json_writer_is_complete:
 * @self: a writer
 *
 * Returns: whether the root value is written and every container closed
 *
 * Since: 0.1
 */
gboolean
anot_json_writer_is_complete (AnotJsonWriter *self)
{
  g_return_val_if_fail (self != NULL, FALSE);

  return self->complete;
}

/**
 * anot_json_writer_get_text:
 * @self: a writer
 * @length: (out) (optional): the length of the text in bytes
 *
 * Returns: (transfer none): the text written so far, or %NULL once
 *   [method@Anot.JsonWriter.steal_bytes] took it
 *
 * Since: 0.1
 */
const char *
anot_json_writer_get_text (AnotJsonWriter *self,
                           gsize          *length)
{
  g_return_val_if_fail (self != NULL, NULL);

  if (length != NULL)
    *length = self->text ? self->text->len : 0;
  return self->text ? self->text->str : NULL;
}

/**
 * anot_json_writer_steal_bytes:
 * @self: a writer
 *
 * Takes the text without copying it.  Nothing more can be written.
 *
 * Returns: (transfer full): the text (without a trailing nul)
 *
 * Since: 0.1
 */
GBytes *
anot_json_writer_steal_bytes (AnotJsonWriter *self)
{
  GString *text;
  gsize length;
  gboolean oversized;
  char *data;

  g_return_val_if_fail (self != NULL, NULL);
  g_return_val_if_fail (self->text != NULL, NULL);

  /* A GString grows by doubling, so a body can hold up to twice its
   * length, for as long as its call is in flight (and retried): with many
   * large prompts in flight that was a fifth of the heap.  Give the spare
   * capacity back when it is worth a reallocation. */
  text = g_steal_pointer (&self->text);
  length = text->len;
  oversized = text->allocated_len - length > MAX (length / 8, 4096);
  data = g_string_free (text, FALSE);
  if (oversized)
    data = g_realloc (data, length + 1);
  return g_bytes_new_take (data, length);
}

void
anot_json_writer_write_node (GString  *out,
                              JsonNode *node)
{
  write_node (out, node);
}
