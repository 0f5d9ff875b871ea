/* anot-json-document.c: a parsed, read-only JSON text
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "anot-json-document.h"
#include "anot-json-private.h"
#include "anot-text-private.h"

#include <float.h>
#include <stdlib.h>
#include <string.h>

/**
 * AnotJsonDocument:
 *
 * A JSON text, checked and indexed once, read in place.
 *
 * An LLM backend reads four or five values out of every answer.  Building
 * a json-glib tree for that costs a hash table per object and a string
 * copy per member, most of the JSON time of a call; a document keeps the
 * text and one flat array of value records instead, and copies only the
 * strings asked for.
 *
 * Values are named by an index: 0 is the root, and
 * [method@Anot.JsonDocument.get_member],
 * [method@Anot.JsonDocument.get_element] and
 * [method@Anot.JsonDocument.get_path] return the index of a value inside
 * another, or -1 when there is none.  Every accessor accepts -1 and
 * answers as for a missing value (kind %ANOT_JSON_KIND_NONE, the
 * fallback, %NULL), so lookups chain without checks in between:
 *
 * ```c
 * int choice = anot_json_document_get_path (doc, 0, "choices[0]");
 * g_autofree char *text =
 *   anot_json_document_dup_string (doc, anot_json_document_get_path (doc, choice, "message.content"));
 * ```
 *
 * The parser accepts exactly RFC 8259 (objects, arrays, strings with every
 * escape, numbers, `true`, `false`, `null`, surrounding whitespace), valid
 * UTF-8 only, nesting up to 512 levels; `\u0000` and lone surrogate
 * escapes are refused (C strings cannot hold the one, UTF-8 the other)
 * except by the private lenient constructor LLM answers are read with,
 * which decodes them as U+FFFD.  An object member that appears twice is found
 * with its first value by the lookups and its last value by
 * [method@Anot.JsonDocument.dup_node], as json-glib keeps it.
 *
 * Since: 0.1
 */

#define MAX_DEPTH 512

/* A value record (anot-json-private.h, where readers that walk a whole
 * document find it). */
typedef AnotJsonToken Token;

struct _AnotJsonDocument
{
  gatomicrefcount ref_count;
  GBytes *bytes;
  const char *text;
  Token *tokens;
  guint n_tokens;
  guint n_allocated;
  guint n_replaced;          /* lenient documents: escapes read as U+FFFD */
};

G_DEFINE_BOXED_TYPE (AnotJsonDocument, anot_json_document,
                     anot_json_document_ref, anot_json_document_unref)

typedef struct
{
  const char *start;
  const char *p;
  const char *end;
  guint depth;
  Token *tokens;
  guint n_tokens;
  guint n_allocated;
  gboolean lenient;          /* \u0000 and lone surrogates allowed */
  guint n_replaced;          /* ...and how many there were */
  GError **error;
} Parser;

static gboolean
fail (Parser     *ps,
      const char *what)
{
  if (ps->error != NULL && *ps->error == NULL)
    g_set_error (ps->error, JSON_PARSER_ERROR, JSON_PARSER_ERROR_INVALID_DATA,
                 "JSON: %s at byte %" G_GSIZE_FORMAT, what, (gsize) (ps->p - ps->start));
  return FALSE;
}

static void
grow_tokens (Parser *ps)
{
  ps->n_allocated = ps->n_allocated * 2;
  ps->tokens = g_renew (Token, ps->tokens, ps->n_allocated);
}

/* Inlined: a review line has some thirty values. */
static inline guint
add_token (Parser       *ps,
           AnotJsonKind  kind,
           const char   *start)
{
  Token *token;

  if (G_UNLIKELY (ps->n_tokens == ps->n_allocated))
    grow_tokens (ps);
  token = &ps->tokens[ps->n_tokens];
  token->kind = kind;
  token->escaped = FALSE;
  token->start = (guint32) (start - ps->start);
  token->length = 0;
  token->size = 0;
  token->next = ps->n_tokens + 1;
  return ps->n_tokens++;
}

static void
skip_whitespace (Parser *ps)
{
  while (ps->p < ps->end &&
         (*ps->p == ' ' || *ps->p == '\n' || *ps->p == '\r' || *ps->p == '\t'))
    ps->p++;
}

static gboolean
read_hex4 (Parser  *ps,
           guint32 *out)
{
  guint32 value = 0;

  if (ps->end - ps->p < 4)
    return fail (ps, "truncated \\u escape");
  for (int i = 0; i < 4; i++)
    {
      int digit = g_ascii_xdigit_value (ps->p[i]);

      if (digit < 0)
        return fail (ps, "invalid \\u escape");
      value = value * 16 + (guint32) digit;
    }
  ps->p += 4;
  *out = value;
  return TRUE;
}

/* Checks the UTF-8 sequence that starts at the non-ASCII byte at ps->p
 * and steps over it: the shortest form only, no surrogates, nothing past
 * U+10FFFF (RFC 3629, as g_utf8_validate()).  Text outside strings is
 * ASCII by the grammar, so strings are the only place this is needed, and
 * checking here spares a separate pass over the whole text. */
static gboolean
skip_utf8 (Parser *ps)
{
  const unsigned char *p = (const unsigned char *) ps->p;
  gsize left = (gsize) (ps->end - ps->p);
  guint32 c = p[0];
  guint n;

  if (c >= 0xC2 && c <= 0xDF)
    n = 1;
  else if (c >= 0xE0 && c <= 0xEF)
    n = 2;
  else if (c >= 0xF0 && c <= 0xF4)
    n = 3;
  else
    return fail (ps, "invalid UTF-8");
  if (left <= n)
    return fail (ps, "invalid UTF-8");
  for (guint i = 1; i <= n; i++)
    if ((p[i] & 0xC0) != 0x80)
      return fail (ps, "invalid UTF-8");
  /* The second byte's range rules out overlong forms, surrogates and
   * code points past U+10FFFF. */
  if ((c == 0xE0 && p[1] < 0xA0) || (c == 0xED && p[1] > 0x9F) ||
      (c == 0xF0 && p[1] < 0x90) || (c == 0xF4 && p[1] > 0x8F))
    return fail (ps, "invalid UTF-8");
  ps->p += n + 1;
  return TRUE;
}

/* At the opening quote.  Checks the escapes and the UTF-8; decoding waits
 * until someone asks for the string. */
static gboolean
parse_string (Parser *ps)
{
  guint index = add_token (ps, ANOT_JSON_KIND_STRING, ps->p + 1);

  ps->p++;
  for (;;)
    {
      unsigned char c;

      /* Sixteen bytes at a time through the long runs (a review's text),
       * then a word at a time to the byte to look at. */
      ps->p = anot_json_skip_plain (ps->p, ps->end, TRUE);
      /* SSE2 stops at the byte itself; the words only for the tail. */
      while (ps->end - ps->p >= 8 && (!ANOT_JSON_SKIP_PLAIN_EXACT || ps->end - ps->p < 16))
        {
          guint64 w, look;

          memcpy (&w, ps->p, sizeof w);
          look = _anot_json_word_needs_look (w);
          if (look != 0)
            {
#if G_BYTE_ORDER == G_LITTLE_ENDIAN && defined (__GNUC__)
              /* Straight to the byte to look at: keys and enum values are
               * short, and stepping to their closing quote byte by byte,
               * each step testing a word again, cost more than the rest
               * of the scan. */
              ps->p += __builtin_ctzll (look) / 8;
#endif
              break;
            }
          ps->p += 8;
        }
      if (ps->p >= ps->end)
        return fail (ps, "unterminated string");
      c = (unsigned char) *ps->p;
      if (c == '"')
        break;
      if (c < 0x20)
        return fail (ps, "control character in a string");
      if (c >= 0x80)
        {
          if (!skip_utf8 (ps))
            return FALSE;
          continue;
        }
      if (c != '\\')
        {
          ps->p++;
          continue;
        }

      ps->tokens[index].escaped = TRUE;
      ps->p++;
      if (ps->p >= ps->end)
        return fail (ps, "unterminated escape");
      switch (*ps->p++)
        {
        case '"': case '\\': case '/': case 'b': case 'f': case 'n': case 'r': case 't':
          break;
        case 'u':
          {
            guint32 unit, low;

            if (!read_hex4 (ps, &unit))
              return FALSE;
            if (unit >= 0xD800 && unit <= 0xDBFF)
              {
                const char *after_high = ps->p;

                if (ps->end - ps->p < 6 || ps->p[0] != '\\' || ps->p[1] != 'u')
                  {
                    if (!ps->lenient)
                      return fail (ps, "unpaired surrogate");
                    ps->n_replaced++;
                    break;
                  }
                ps->p += 2;
                if (!read_hex4 (ps, &low))
                  return FALSE;
                if (low < 0xDC00 || low > 0xDFFF)
                  {
                    if (!ps->lenient)
                      return fail (ps, "unpaired surrogate");
                    /* The next escape is read again on its own. */
                    ps->n_replaced++;
                    ps->p = after_high;
                  }
              }
            else if ((unit >= 0xDC00 && unit <= 0xDFFF) || unit == 0)
              {
                if (!ps->lenient)
                  return fail (ps, unit == 0 ? "\\u0000 in a string" : "unpaired surrogate");
                ps->n_replaced++;
              }
          }
          break;
        default:
          ps->p--;
          return fail (ps, "invalid escape");
        }
    }
  ps->tokens[index].length = (guint32) (ps->p - ps->start) - ps->tokens[index].start;
  ps->p++;
  return TRUE;
}

/* The end of the number at @p (-?(0|[1-9]digits)[.digits][(e|E)[+-]digits],
 * RFC 8259), or %NULL with *@bad where it stops being one.  *@is_integer:
 * no fraction or exponent and the value fits in 64 bits. */
const char *
_anot_json_scan_number (const char  *p,
                        const char  *end,
                        gboolean    *is_integer,
                        const char **bad)
{
  const char *begin = p;

  *is_integer = TRUE;
  if (p < end && *p == '-')
    p++;
  if (p >= end || !g_ascii_isdigit (*p))
    goto invalid;
  if (*p == '0')
    p++;
  else
    while (p < end && g_ascii_isdigit (*p))
      p++;
  if (p < end && *p == '.')
    {
      *is_integer = FALSE;
      p++;
      if (p >= end || !g_ascii_isdigit (*p))
        goto invalid;
      while (p < end && g_ascii_isdigit (*p))
        p++;
    }
  if (p < end && (*p == 'e' || *p == 'E'))
    {
      *is_integer = FALSE;
      p++;
      if (p < end && (*p == '+' || *p == '-'))
        p++;
      if (p >= end || !g_ascii_isdigit (*p))
        goto invalid;
      while (p < end && g_ascii_isdigit (*p))
        p++;
    }

  /* 18 digits always fit in 64 bits; longer integers are checked. */
  if (*is_integer && p - begin - (*begin == '-') > 18)
    {
      g_autofree char *copy = g_strndup (begin, p - begin);
      gint64 value;

      if (!g_ascii_string_to_signed (copy, 10, G_MININT64, G_MAXINT64, &value, NULL))
        *is_integer = FALSE;
    }
  return p;

invalid:
  *bad = p;
  return NULL;
}

static gboolean
parse_number (Parser *ps)
{
  const char *begin = ps->p;
  const char *bad = NULL;
  gboolean is_integer;
  const char *end = _anot_json_scan_number (ps->p, ps->end, &is_integer, &bad);
  guint index;

  if (end == NULL)
    {
      ps->p = bad;
      return fail (ps, "invalid number");
    }
  ps->p = end;
  index = add_token (ps, is_integer ? ANOT_JSON_KIND_INTEGER : ANOT_JSON_KIND_DOUBLE, begin);
  ps->tokens[index].length = (guint32) (ps->p - begin);
  return TRUE;
}

static gboolean
match_word (Parser       *ps,
            const char   *word,
            gsize         length,
            AnotJsonKind  kind)
{
  guint index;

  if ((gsize) (ps->end - ps->p) < length || memcmp (ps->p, word, length) != 0)
    return fail (ps, "invalid value");
  index = add_token (ps, kind, ps->p);
  ps->tokens[index].length = (guint32) length;
  ps->p += length;
  return TRUE;
}

static gboolean parse_value (Parser *ps);

/* An object's member (name, colon, value) or an array's element. */
static gboolean
parse_item (Parser *ps,
            char    close)
{
  if (close == ']')
    return parse_value (ps);
  skip_whitespace (ps);
  if (ps->p >= ps->end || *ps->p != '"')
    return fail (ps, "expected a member name");
  if (!parse_string (ps))
    return FALSE;
  skip_whitespace (ps);
  if (ps->p >= ps->end || *ps->p != ':')
    return fail (ps, "expected “:”");
  ps->p++;
  return parse_value (ps);
}

/* At the opening bracket of an object or an array. */
static gboolean
parse_container (Parser       *ps,
                 AnotJsonKind  kind)
{
  guint index = add_token (ps, kind, ps->p);
  char close = kind == ANOT_JSON_KIND_OBJECT ? '}' : ']';
  guint size = 0;

  ps->p++;
  skip_whitespace (ps);
  if (ps->p < ps->end && *ps->p == close)
    ps->p++;
  else
    for (;;)
      {
        if (!parse_item (ps, close))
          return FALSE;
        size++;
        skip_whitespace (ps);
        if (ps->p < ps->end && *ps->p == ',')
          {
            ps->p++;
            continue;
          }
        if (ps->p < ps->end && *ps->p == close)
          {
            ps->p++;
            break;
          }
        return fail (ps, close == '}' ? "expected “,” or “}”" : "expected “,” or “]”");
      }
  ps->tokens[index].size = size;
  ps->tokens[index].next = ps->n_tokens;
  return TRUE;
}

static gboolean
parse_value (Parser *ps)
{
  gboolean ok;

  skip_whitespace (ps);
  if (ps->p >= ps->end)
    return fail (ps, "unexpected end");
  if (++ps->depth > MAX_DEPTH)
    return fail (ps, "nested too deeply");

  switch (*ps->p)
    {
    case '{':
      ok = parse_container (ps, ANOT_JSON_KIND_OBJECT);
      break;
    case '[':
      ok = parse_container (ps, ANOT_JSON_KIND_ARRAY);
      break;
    case '"':
      ok = parse_string (ps);
      break;
    case 't':
      ok = match_word (ps, "true", 4, ANOT_JSON_KIND_BOOLEAN);
      break;
    case 'f':
      ok = match_word (ps, "false", 5, ANOT_JSON_KIND_BOOLEAN);
      break;
    case 'n':
      ok = match_word (ps, "null", 4, ANOT_JSON_KIND_NULL);
      break;
    default:
      ok = parse_number (ps);
      break;
    }
  ps->depth--;
  return ok;
}

/* Parses @length bytes at @data into @tokens (reallocated as needed,
 * *@n_allocated long), the whole text one value.  On error, *@error_offset
 * is the byte the parser stopped at. */
static gboolean
parse_text (const char  *data,
            gsize        length,
            Token      **tokens,
            guint       *n_allocated,
            guint       *n_tokens,
            gsize       *error_offset,
            guint       *n_replaced,
            GError     **error)
{
  Parser ps = { 0 };
  gboolean ok;

  if (length >= G_MAXUINT32)
    {
      *error_offset = 0;
      g_set_error (error, JSON_PARSER_ERROR, JSON_PARSER_ERROR_INVALID_DATA,
                   "JSON: the text is larger than 4 GiB");
      return FALSE;
    }

  ps.start = ps.p = data;
  ps.end = data + length;
  ps.error = error;
  ps.lenient = n_replaced != NULL;
  ps.tokens = *tokens;
  ps.n_allocated = *n_allocated;
  if (ps.n_allocated == 0)
    {
      /* About one value per eight bytes in LLM answers. */
      ps.n_allocated = MAX (16, length / 8);
      ps.tokens = g_new (Token, ps.n_allocated);
    }

  ok = parse_value (&ps);
  if (ok)
    {
      skip_whitespace (&ps);
      if (ps.p != ps.end)
        ok = fail (&ps, "trailing data");
    }
  *tokens = ps.tokens;
  *n_allocated = ps.n_allocated;
  *n_tokens = ps.n_tokens;
  *error_offset = (gsize) (ps.p - ps.start);
  if (n_replaced != NULL)
    *n_replaced = ps.n_replaced;
  return ok;
}

static AnotJsonDocument *
new_from_bytes (GBytes   *bytes,
                gboolean  lenient,
                GError  **error)
{
  AnotJsonDocument *self;
  gsize length, offset;
  const char *data;
  Token *tokens = NULL;
  guint n_allocated = 0, n_tokens = 0, n_replaced = 0;

  g_return_val_if_fail (bytes != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  data = g_bytes_get_data (bytes, &length);
  if (data == NULL)
    data = "";
  if (!parse_text (data, length, &tokens, &n_allocated, &n_tokens, &offset,
                   lenient ? &n_replaced : NULL, error))
    {
      g_free (tokens);
      return NULL;
    }

  self = g_new0 (AnotJsonDocument, 1);
  g_atomic_ref_count_init (&self->ref_count);
  self->bytes = g_bytes_ref (bytes);
  self->text = data;
  self->tokens = tokens;
  self->n_tokens = n_tokens;
  self->n_allocated = n_allocated;
  self->n_replaced = n_replaced;
  return self;
}

/**
 * anot_json_document_new_from_bytes:
 * @bytes: a JSON text (UTF-8)
 * @error: return location for a #GError, or %NULL
 *
 * Parses @bytes, which the document keeps a reference to.
 *
 * Returns: (transfer full) (nullable): the document, or %NULL with @error
 *   set (in the `JSON_PARSER_ERROR` domain, naming the byte offset) when
 *   @bytes is not a JSON text
 *
 * Since: 0.1
 */
AnotJsonDocument *
anot_json_document_new_from_bytes (GBytes  *bytes,
                                   GError **error)
{
  return new_from_bytes (bytes, FALSE, error);
}

AnotJsonDocument *
_anot_json_document_new_lenient (GBytes  *bytes,
                                 GError **error)
{
  return new_from_bytes (bytes, TRUE, error);
}

guint
_anot_json_document_get_n_replaced (AnotJsonDocument *self)
{
  return self->n_replaced;
}

/**
 * anot_json_document_new_from_data:
 * @data: (array length=length) (element-type guint8): a JSON text (UTF-8)
 * @length: the length of @data in bytes, or -1 if it is nul-terminated
 * @error: return location for a #GError, or %NULL
 *
 * Parses a copy of @data.
 *
 * Returns: (transfer full) (nullable): the document, or %NULL with @error
 *   set when @data is not a JSON text
 *
 * Since: 0.1
 */
AnotJsonDocument *
anot_json_document_new_from_data (const char  *data,
                                  gssize       length,
                                  GError     **error)
{
  g_autoptr(GBytes) bytes = NULL;

  g_return_val_if_fail (data != NULL || length == 0, NULL);

  if (length < 0)
    length = (gssize) strlen (data);
  bytes = g_bytes_new (data, (gsize) length);
  return anot_json_document_new_from_bytes (bytes, error);
}

/**
 * anot_json_document_ref:
 * @self: a document
 *
 * Returns: (transfer full): @self
 *
 * Since: 0.1
 */
AnotJsonDocument *
anot_json_document_ref (AnotJsonDocument *self)
{
  g_return_val_if_fail (self != NULL, NULL);

  g_atomic_ref_count_inc (&self->ref_count);
  return self;
}

/**
 * anot_json_document_unref:
 * @self: (transfer full): a document
 *
 * Since: 0.1
 */
void
anot_json_document_unref (AnotJsonDocument *self)
{
  g_return_if_fail (self != NULL);

  if (!g_atomic_ref_count_dec (&self->ref_count))
    return;
  g_clear_pointer (&self->bytes, g_bytes_unref);
  g_free (self->tokens);
  g_free (self);
}

static const Token *
token_at (AnotJsonDocument *self,
          int               value)
{
  if (value < 0 || (guint) value >= self->n_tokens)
    return NULL;
  return &self->tokens[value];
}

/**
 * anot_json_document_get_kind:
 * @self: a document
 * @value: the index of a value, or -1
 *
 * Returns: the kind of @value; %ANOT_JSON_KIND_NONE for -1
 *
 * Since: 0.1
 */
AnotJsonKind
anot_json_document_get_kind (AnotJsonDocument *self,
                             int               value)
{
  const Token *token;

  g_return_val_if_fail (self != NULL, ANOT_JSON_KIND_NONE);

  token = token_at (self, value);
  return token ? token->kind : ANOT_JSON_KIND_NONE;
}

/**
 * anot_json_document_get_size:
 * @self: a document
 * @value: the index of a value, or -1
 *
 * Returns: the number of members of an object or elements of an array;
 *   0 for any other value
 *
 * Since: 0.1
 */
guint
anot_json_document_get_size (AnotJsonDocument *self,
                             int               value)
{
  const Token *token;

  g_return_val_if_fail (self != NULL, 0);

  token = token_at (self, value);
  if (token == NULL || (token->kind != ANOT_JSON_KIND_OBJECT && token->kind != ANOT_JSON_KIND_ARRAY))
    return 0;
  return token->size;
}

/* Compares the string token at @index with @name[0..length). */
static gboolean
key_equal (AnotJsonDocument *self,
           guint             index,
           const char       *name,
           gsize             length)
{
  const Token *key = &self->tokens[index];

  if (!key->escaped)
    return key->length == length && memcmp (self->text + key->start, name, length) == 0;
  {
    g_autofree char *decoded = anot_json_document_dup_string (self, (int) index);

    return strlen (decoded) == length && memcmp (decoded, name, length) == 0;
  }
}

static int
member_with_length (AnotJsonDocument *self,
                    int               object,
                    const char       *name,
                    gsize             length)
{
  const Token *token = token_at (self, object);
  guint index;

  if (token == NULL || token->kind != ANOT_JSON_KIND_OBJECT)
    return -1;
  index = (guint) object + 1;
  for (guint i = 0; i < token->size; i++)
    {
      if (key_equal (self, index, name, length))
        return (int) index + 1;
      index = self->tokens[index + 1].next;
    }
  return -1;
}

/**
 * anot_json_document_get_member:
 * @self: a document
 * @object: the index of an object, or -1
 * @name: a member name
 *
 * Returns: the index of the member @name of @object, or -1 when @object
 *   is not an object or has no such member
 *
 * Since: 0.1
 */
int
anot_json_document_get_member (AnotJsonDocument *self,
                               int               object,
                               const char       *name)
{
  g_return_val_if_fail (self != NULL, -1);
  g_return_val_if_fail (name != NULL, -1);

  return member_with_length (self, object, name, strlen (name));
}

/**
 * anot_json_document_get_element:
 * @self: a document
 * @array: the index of an array, or -1
 * @index: a position in @array
 *
 * Returns: the index of element @index of @array, or -1 when @array is
 *   not an array or is shorter
 *
 * Since: 0.1
 */
int
anot_json_document_get_element (AnotJsonDocument *self,
                                int               array,
                                guint             index)
{
  const Token *token;
  guint at;

  g_return_val_if_fail (self != NULL, -1);

  token = token_at (self, array);
  if (token == NULL || token->kind != ANOT_JSON_KIND_ARRAY || index >= token->size)
    return -1;
  at = (guint) array + 1;
  for (guint i = 0; i < index; i++)
    at = self->tokens[at].next;
  return (int) at;
}

/**
 * anot_json_document_get_path:
 * @self: a document
 * @value: the index of the value to start from (0 for the root), or -1
 * @path: member names separated by `.`, and array positions in brackets,
 *   such as `choices[0].message.content` or `[2]`
 *
 * Follows @path from @value.  Member names in a path cannot contain `.`
 * or `[`; use [method@Anot.JsonDocument.get_member] for those.
 *
 * Returns: the index of the value @path leads to, or -1 when a step of
 *   it does not exist
 *
 * Since: 0.1
 */
int
anot_json_document_get_path (AnotJsonDocument *self,
                             int               value,
                             const char       *path)
{
  const char *p;

  g_return_val_if_fail (self != NULL, -1);
  g_return_val_if_fail (path != NULL, -1);

  p = path;
  while (*p != '\0' && value >= 0)
    {
      if (*p == '[')
        {
          char *end = NULL;
          guint64 index = g_ascii_strtoull (p + 1, &end, 10);

          if (end == p + 1 || *end != ']' || index > G_MAXUINT)
            {
              g_critical ("%s: invalid array position in “%s”", G_STRFUNC, path);
              return -1;
            }
          value = anot_json_document_get_element (self, value, (guint) index);
          p = end + 1;
        }
      else
        {
          gsize length = strcspn (p, ".[");

          value = member_with_length (self, value, p, length);
          p += length;
        }
      if (*p == '.')
        p++;
    }
  return value;
}

/* Writes the decoded string of @token and a nul to @out, which has room
 * for its raw length + 1 (an escape is never shorter than what it stands
 * for); returns the decoded length. */
static gsize
decode_into (AnotJsonDocument *self,
             const Token      *token,
             char             *out)
{
  const char *p = self->text + token->start;
  const char *end = p + token->length;
  char *o = out;

  if (!token->escaped)
    {
      memcpy (out, p, token->length);
      out[token->length] = '\0';
      return token->length;
    }

  /* The parser checked every escape, so this only decodes. */
  while (p < end)
    {
      const char *backslash = memchr (p, '\\', (gsize) (end - p));
      gsize run = (gsize) ((backslash != NULL ? backslash : end) - p);

      memcpy (o, p, run);
      o += run;
      p += run;
      if (p == end)
        break;
      p++;
      switch (*p++)
        {
        case 'b': *o++ = '\b'; break;
        case 'f': *o++ = '\f'; break;
        case 'n': *o++ = '\n'; break;
        case 'r': *o++ = '\r'; break;
        case 't': *o++ = '\t'; break;
        case 'u':
          {
            guint32 unit = 0;

            for (int i = 0; i < 4; i++)
              unit = unit * 16 + (guint32) g_ascii_xdigit_value (*p++);
            if (unit >= 0xD800 && unit <= 0xDBFF && end - p >= 6 && p[0] == '\\' && p[1] == 'u')
              {
                guint32 low = 0;

                for (int i = 2; i < 6; i++)
                  low = low * 16 + (guint32) g_ascii_xdigit_value (p[i]);
                if (low >= 0xDC00 && low <= 0xDFFF)
                  {
                    p += 6;
                    unit = 0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00);
                  }
              }
            /* Only a lenient parse lets these through (an escape of six
             * bytes always has room for the three of U+FFFD). */
            if (unit == 0 || (unit >= 0xD800 && unit <= 0xDFFF))
              unit = 0xFFFD;
            o += g_unichar_to_utf8 (unit, o);
          }
          break;
        default:                /* '"', '\\' and '/' stand for themselves */
          *o++ = p[-1];
          break;
        }
    }
  *o = '\0';
  return (gsize) (o - out);
}

/**
 * anot_json_document_dup_string:
 * @self: a document
 * @value: the index of a value, or -1
 *
 * Returns: (transfer full) (nullable): the decoded string @value, or
 *   %NULL when @value is not a string
 *
 * Since: 0.1
 */
char *
anot_json_document_dup_string (AnotJsonDocument *self,
                               int               value)
{
  const Token *token;
  char *out;

  g_return_val_if_fail (self != NULL, NULL);

  token = token_at (self, value);
  if (token == NULL || token->kind != ANOT_JSON_KIND_STRING)
    return NULL;
  out = g_malloc ((gsize) token->length + 1);
  decode_into (self, token, out);
  return out;
}

/**
 * anot_json_document_string_equal:
 * @self: a document
 * @value: the index of a value, or -1
 * @text: a string
 *
 * Compares without copying the string when it has no escapes.
 *
 * Returns: whether @value is a string equal to @text
 *
 * Since: 0.1
 */
gboolean
anot_json_document_string_equal (AnotJsonDocument *self,
                                 int               value,
                                 const char       *text)
{
  const Token *token;

  g_return_val_if_fail (self != NULL, FALSE);
  g_return_val_if_fail (text != NULL, FALSE);

  token = token_at (self, value);
  if (token == NULL || token->kind != ANOT_JSON_KIND_STRING)
    return FALSE;
  return key_equal (self, (guint) value, text, strlen (text));
}

/* A number the parser has checked (-?digits[.digits][(e|E)[+-]digits]) as
 * strtod() reads it, when that is one correctly rounded operation: a
 * decimal mantissa of at most 2^53 times or divided by an exact power of
 * ten up to 10^22 (Clinger's fast path; both operands are exact doubles, so
 * IEEE arithmetic rounds the product or quotient as strtod() rounds the
 * decimal).  "4.0", "3.25", "-12.5e-3" are; strtod() costs 300-odd
 * instructions each, this a few dozen.  FALSE for anything else. */
static gboolean
token_double_exact (const char *p,
                    gsize       length,
                    double     *out)
{
#if defined (FLT_EVAL_METHOD) && FLT_EVAL_METHOD == 0
  static const double powers[] = {
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
    1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
  };
  const char *end = p + length;
  gboolean negative = FALSE;
  guint64 mantissa = 0;
  int digits = 0, scale = 0, exponent = 0;
  double value;

  if (p < end && *p == '-')
    {
      negative = TRUE;
      p++;
    }
  for (; p < end && g_ascii_isdigit (*p); p++)
    if (mantissa != 0 || *p != '0')
      {
        mantissa = mantissa * 10 + (guint64) (*p - '0');
        if (++digits > 16)
          return FALSE;
      }
  if (p < end && *p == '.')
    for (p++; p < end && g_ascii_isdigit (*p); p++)
      {
        scale--;
        if (mantissa != 0 || *p != '0')
          {
            mantissa = mantissa * 10 + (guint64) (*p - '0');
            if (++digits > 16)
              return FALSE;
          }
      }
  if (p < end && (*p == 'e' || *p == 'E'))
    {
      gboolean exponent_negative = FALSE;

      p++;
      if (p < end && (*p == '+' || *p == '-'))
        exponent_negative = *p++ == '-';
      for (; p < end; p++)
        {
          exponent = exponent * 10 + (*p - '0');
          if (exponent > 1000)
            return FALSE;
        }
      if (exponent_negative)
        exponent = -exponent;
    }
  if (p != end || mantissa > (G_GUINT64_CONSTANT (1) << 53))
    return FALSE;
  exponent += scale;
  if (mantissa == 0)
    value = 0.0;
  else if (exponent >= 0 && exponent <= 22)
    value = (double) mantissa * powers[exponent];
  else if (exponent < 0 && exponent >= -22)
    value = (double) mantissa / powers[-exponent];
  else
    return FALSE;
  *out = negative ? -value : value;
  return TRUE;
#else
  return FALSE;
#endif
}

/* The double of a number _anot_json_scan_number() accepted, as
 * g_ascii_strtod() reads it. */
double
_anot_json_number_to_double (const char *p,
                             gsize       length)
{
  char buffer[64];
  double fast;

  if (token_double_exact (p, length, &fast))
    return fast;
  if (length < sizeof buffer)
    {
      memcpy (buffer, p, length);
      buffer[length] = '\0';
      return g_ascii_strtod (buffer, NULL);
    }
  {
    g_autofree char *copy = g_strndup (p, length);

    return g_ascii_strtod (copy, NULL);
  }
}

/* The value of an integer _anot_json_scan_number() accepted as one. */
gint64
_anot_json_number_to_int (const char *p,
                          gsize       length)
{
  const char *end = p + length;
  gboolean negative = FALSE;
  guint64 magnitude = 0;

  if (*p == '-')
    {
      negative = TRUE;
      p++;
    }
  for (; p < end; p++)
    magnitude = magnitude * 10 + (guint64) (*p - '0');
  return negative ? (gint64) (0 - magnitude) : (gint64) magnitude;
}

static inline double
token_double (AnotJsonDocument *self,
              const Token      *token)
{
  return _anot_json_number_to_double (self->text + token->start, token->length);
}

static inline gint64
token_int (AnotJsonDocument *self,
           const Token      *token)
{
  return _anot_json_number_to_int (self->text + token->start, token->length);
}

/**
 * anot_json_document_get_int:
 * @self: a document
 * @value: the index of a value, or -1
 * @fallback: what to return when @value is not a number
 *
 * Returns: the integer @value; a double is truncated toward zero (and
 *   clamped to the 64-bit range); @fallback for anything else
 *
 * Since: 0.1
 */
gint64
anot_json_document_get_int (AnotJsonDocument *self,
                            int               value,
                            gint64            fallback)
{
  const Token *token;

  g_return_val_if_fail (self != NULL, fallback);

  token = token_at (self, value);
  if (token == NULL)
    return fallback;
  if (token->kind == ANOT_JSON_KIND_INTEGER)
    return token_int (self, token);
  if (token->kind == ANOT_JSON_KIND_DOUBLE)
    {
      double d = token_double (self, token);

      if (d != d)
        return fallback;
      if (d >= 9223372036854775807.0)
        return G_MAXINT64;
      if (d <= -9223372036854775808.0)
        return G_MININT64;
      return (gint64) d;
    }
  return fallback;
}

/**
 * anot_json_document_get_uint:
 * @self: a document
 * @value: the index of a value, or -1
 * @fallback: what to return when @value is not a number of at least 0
 *
 * For counts such as token usage, where a negative number or anything
 * else is as good as none.
 *
 * Returns: the number @value, a double truncated toward zero (and clamped
 *   to the 64-bit range); @fallback for a negative number or anything else
 *
 * Since: 0.1
 */
guint64
anot_json_document_get_uint (AnotJsonDocument *self,
                             int               value,
                             guint64           fallback)
{
  gint64 number;

  g_return_val_if_fail (self != NULL, fallback);

  if (anot_json_document_get_kind (self, value) == ANOT_JSON_KIND_DOUBLE)
    {
      double d = anot_json_document_get_double (self, value, -1);

      if (!(d >= 0))
        return fallback;
      return d >= 18446744073709551615.0 ? G_MAXUINT64 : (guint64) d;
    }
  number = anot_json_document_get_int (self, value, -1);
  return number < 0 ? fallback : (guint64) number;
}

/**
 * anot_json_document_get_double:
 * @self: a document
 * @value: the index of a value, or -1
 * @fallback: what to return when @value is not a number
 *
 * Returns: the number @value as a double; @fallback for anything else
 *
 * Since: 0.1
 */
double
anot_json_document_get_double (AnotJsonDocument *self,
                               int               value,
                               double            fallback)
{
  const Token *token;

  g_return_val_if_fail (self != NULL, fallback);

  token = token_at (self, value);
  if (token == NULL || (token->kind != ANOT_JSON_KIND_INTEGER && token->kind != ANOT_JSON_KIND_DOUBLE))
    return fallback;
  return token->kind == ANOT_JSON_KIND_INTEGER ? (double) token_int (self, token)
                                               : token_double (self, token);
}

/**
 * anot_json_document_get_boolean:
 * @self: a document
 * @value: the index of a value, or -1
 * @fallback: what to return when @value is not `true` or `false`
 *
 * Returns: the boolean @value, or @fallback
 *
 * Since: 0.1
 */
gboolean
anot_json_document_get_boolean (AnotJsonDocument *self,
                                int               value,
                                gboolean          fallback)
{
  const Token *token;

  g_return_val_if_fail (self != NULL, fallback);

  token = token_at (self, value);
  if (token == NULL || token->kind != ANOT_JSON_KIND_BOOLEAN)
    return fallback;
  return self->text[token->start] == 't';
}

static JsonNode *
build_node (AnotJsonDocument *self,
            guint             index)
{
  const Token *token = &self->tokens[index];
  JsonNode *node;

  switch ((AnotJsonKind) token->kind)
    {
    case ANOT_JSON_KIND_OBJECT:
      {
        JsonObject *object = json_object_new ();
        guint at = index + 1;

        for (guint i = 0; i < token->size; i++)
          {
            g_autofree char *name = anot_json_document_dup_string (self, (int) at);

            json_object_set_member (object, name, build_node (self, at + 1));
            at = self->tokens[at + 1].next;
          }
        node = json_node_new (JSON_NODE_OBJECT);
        json_node_take_object (node, object);
      }
      return node;
    case ANOT_JSON_KIND_ARRAY:
      {
        JsonArray *array = json_array_sized_new (token->size);
        guint at = index + 1;

        for (guint i = 0; i < token->size; i++)
          {
            json_array_add_element (array, build_node (self, at));
            at = self->tokens[at].next;
          }
        node = json_node_new (JSON_NODE_ARRAY);
        json_node_take_array (node, array);
      }
      return node;
    case ANOT_JSON_KIND_STRING:
      {
        g_autofree char *text = anot_json_document_dup_string (self, (int) index);

        node = json_node_new (JSON_NODE_VALUE);
        json_node_set_string (node, text);
      }
      return node;
    case ANOT_JSON_KIND_INTEGER:
      node = json_node_new (JSON_NODE_VALUE);
      json_node_set_int (node, token_int (self, token));
      return node;
    case ANOT_JSON_KIND_DOUBLE:
      node = json_node_new (JSON_NODE_VALUE);
      json_node_set_double (node, token_double (self, token));
      return node;
    case ANOT_JSON_KIND_BOOLEAN:
      node = json_node_new (JSON_NODE_VALUE);
      json_node_set_boolean (node, self->text[token->start] == 't');
      return node;
    case ANOT_JSON_KIND_NULL:
    case ANOT_JSON_KIND_NONE:
    default:
      return json_node_new (JSON_NODE_NULL);
    }
}

/**
 * anot_json_document_dup_node:
 * @self: a document
 * @value: the index of a value, or -1
 *
 * Builds a json-glib tree of @value, for code that works with
 * [struct@Json.Node]: integers that fit in 64 bits are `G_TYPE_INT64`
 * values, other numbers doubles; a repeated member keeps its last value.
 *
 * Returns: (transfer full) (nullable): the tree, or %NULL for -1
 *
 * Since: 0.1
 */
JsonNode *
anot_json_document_dup_node (AnotJsonDocument *self,
                             int               value)
{
  g_return_val_if_fail (self != NULL, NULL);

  if (token_at (self, value) == NULL)
    return NULL;
  return build_node (self, (guint) value);
}

/* ------------------------------------------------------------------------ *
 * For the library's bulk readers (anot-json-private.h)
 * ------------------------------------------------------------------------ */

AnotJsonDocument *
_anot_json_document_new_reusable (void)
{
  AnotJsonDocument *self = g_new0 (AnotJsonDocument, 1);

  g_atomic_ref_count_init (&self->ref_count);
  self->text = "";
  return self;
}

gboolean
_anot_json_document_reparse (AnotJsonDocument  *self,
                             const char        *data,
                             gsize              length,
                             gsize             *error_offset,
                             GError           **error)
{
  gsize offset;

  g_clear_pointer (&self->bytes, g_bytes_unref);
  self->text = data;
  if (!parse_text (data, length, &self->tokens, &self->n_allocated, &self->n_tokens,
                   &offset, NULL, error))
    {
      /* No value is readable after a failure. */
      self->n_tokens = 0;
      if (error_offset != NULL)
        *error_offset = offset;
      return FALSE;
    }
  return TRUE;
}

int
_anot_json_document_get_last_member (AnotJsonDocument *self,
                                     int               object,
                                     const char       *name,
                                     gsize             length)
{
  const Token *token = token_at (self, object);
  guint index;
  int found = -1;

  if (token == NULL || token->kind != ANOT_JSON_KIND_OBJECT)
    return -1;
  index = (guint) object + 1;
  for (guint i = 0; i < token->size; i++)
    {
      if (key_equal (self, index, name, length))
        found = (int) index + 1;
      index = self->tokens[index + 1].next;
    }
  return found;
}

int
_anot_json_document_get_next (AnotJsonDocument *self,
                              int               value)
{
  const Token *token = token_at (self, value);

  return token != NULL ? (int) token->next : -1;
}

gsize
_anot_json_document_get_raw_length (AnotJsonDocument *self,
                                    int               value)
{
  const Token *token = token_at (self, value);

  return token != NULL ? token->length : 0;
}

const AnotJsonToken *
_anot_json_document_get_tokens (AnotJsonDocument  *self,
                                const char       **text,
                                guint             *n_tokens)
{
  *text = self->text;
  *n_tokens = self->n_tokens;
  return self->tokens;
}

gint64
_anot_json_token_get_int (AnotJsonDocument    *self,
                          const AnotJsonToken *token)
{
  return token_int (self, token);
}

double
_anot_json_token_get_double (AnotJsonDocument    *self,
                             const AnotJsonToken *token)
{
  return token_double (self, token);
}

gsize
_anot_json_document_decode_string (AnotJsonDocument *self,
                                   int               value,
                                   char             *out)
{
  const Token *token = token_at (self, value);

  g_return_val_if_fail (token != NULL && token->kind == ANOT_JSON_KIND_STRING, 0);

  return decode_into (self, token, out);
}

const char *
_anot_json_document_peek_string (AnotJsonDocument  *self,
                                 int                value,
                                 char              *buffer,
                                 gsize              size,
                                 char             **heap,
                                 gsize             *length)
{
  const Token *token = token_at (self, value);

  g_return_val_if_fail (token != NULL && token->kind == ANOT_JSON_KIND_STRING, NULL);

  if (!token->escaped)
    {
      *length = token->length;
      return self->text + token->start;
    }
  /* Decoding only ever shortens. */
  if (token->length >= size)
    buffer = *heap = g_malloc ((gsize) token->length + 1);
  *length = decode_into (self, token, buffer);
  return buffer;
}

void
_anot_json_document_find_members (AnotJsonDocument   *self,
                                  int                 object,
                                  const AnotJsonName *names,
                                  guint               n_names,
                                  int                *out)
{
  const Token *token = token_at (self, object);
  guint index;

  for (guint j = 0; j < n_names; j++)
    out[j] = -1;
  if (token == NULL || token->kind != ANOT_JSON_KIND_OBJECT)
    return;
  index = (guint) object + 1;
  for (guint i = 0, next = 0; i < token->size; i++)
    {
      const Token *key = &self->tokens[index];

      /* The names are distinct, so at most one matches: tried from the
       * one after the last match (lines of a file list their members in
       * the same order, so that is mostly the first try), the length
       * compared before the bytes. */
      for (guint k = 0; k < n_names; k++)
        {
          guint j = next + k < n_names ? next + k : next + k - n_names;
          gsize length = names[j].length;
          gboolean equal;

          if (G_LIKELY (!key->escaped))
            equal = key->length == length && anot_bytes_equal (self->text + key->start, names[j].name, length);
          else
            equal = key_equal (self, index, names[j].name, length);
          if (equal)
            {
              out[j] = (int) index + 1;
              next = j + 1 < n_names ? j + 1 : 0;
              break;
            }
        }
      index = self->tokens[index + 1].next;
    }
}

void
_anot_json_document_write_value (AnotJsonDocument *self,
                                 int               value,
                                 GString          *out)
{
  const Token *token = token_at (self, value);
  guint at;

  g_return_if_fail (token != NULL);

  /* The text was checked when it was parsed: strings (escapes and all)
   * and numbers are copied as they were written. */
  switch ((AnotJsonKind) token->kind)
    {
    case ANOT_JSON_KIND_NULL:
      g_string_append_len (out, "null", 4);
      break;
    case ANOT_JSON_KIND_BOOLEAN:
      if (self->text[token->start] == 't')
        g_string_append_len (out, "true", 4);
      else
        g_string_append_len (out, "false", 5);
      break;
    case ANOT_JSON_KIND_INTEGER:
    case ANOT_JSON_KIND_DOUBLE:
      g_string_append_len (out, self->text + token->start, token->length);
      break;
    case ANOT_JSON_KIND_STRING:
      g_string_append_c (out, '"');
      g_string_append_len (out, self->text + token->start, token->length);
      g_string_append_c (out, '"');
      break;
    case ANOT_JSON_KIND_ARRAY:
      g_string_append_c (out, '[');
      at = (guint) value + 1;
      for (guint i = 0; i < token->size; i++)
        {
          if (i > 0)
            g_string_append_c (out, ',');
          _anot_json_document_write_value (self, (int) at, out);
          at = self->tokens[at].next;
        }
      g_string_append_c (out, ']');
      break;
    case ANOT_JSON_KIND_OBJECT:
      /* Members are a name's token and its value's. */
      g_string_append_c (out, '{');
      at = (guint) value + 1;
      for (guint i = 0; i < token->size; i++)
        {
          if (i > 0)
            g_string_append_c (out, ',');
          _anot_json_document_write_value (self, (int) at, out);
          g_string_append_c (out, ':');
          _anot_json_document_write_value (self, (int) at + 1, out);
          at = self->tokens[at + 1].next;
        }
      g_string_append_c (out, '}');
      break;
    case ANOT_JSON_KIND_NONE:
    default:
      g_return_if_reached ();
    }
}
