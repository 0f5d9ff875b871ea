/* anot-json.c: fast JSON reading and writing for the HTTP client
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "anot-json-private.h"

#include <string.h>

/* json-glib's parser builds a GScanner for every document and costs tens
 * of microseconds for a 300-byte LLM answer, a third of the client's CPU
 * time per call; this one reads the bytes once.  The trees are ordinary
 * JsonNodes, so backends see no difference. */

#define MAX_DEPTH 512

typedef struct
{
  const char *start;
  const char *p;
  const char *end;
  guint depth;
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
skip_whitespace (Parser *ps)
{
  while (ps->p < ps->end &&
         (*ps->p == ' ' || *ps->p == '\n' || *ps->p == '\r' || *ps->p == '\t'))
    ps->p++;
}

static int
hex_value (char c)
{
  if (c >= '0' && c <= '9')
    return c - '0';
  if (c >= 'a' && c <= 'f')
    return c - 'a' + 10;
  if (c >= 'A' && c <= 'F')
    return c - 'A' + 10;
  return -1;
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
      int digit = hex_value (ps->p[i]);

      if (digit < 0)
        return fail (ps, "invalid \\u escape");
      value = value * 16 + (guint32) digit;
    }
  ps->p += 4;
  *out = value;
  return TRUE;
}

/* At the opening quote; returns a newly allocated string. */
static char *
parse_string (Parser *ps)
{
  GString *out = NULL;
  const char *run;

  ps->p++;
  run = ps->p;
  for (;;)
    {
      unsigned char c;

      if (ps->p >= ps->end)
        {
          fail (ps, "unterminated string");
          goto error;
        }
      c = (unsigned char) *ps->p;
      if (c == '"')
        {
          char *result;

          if (out == NULL)
            result = g_strndup (run, ps->p - run);
          else
            {
              g_string_append_len (out, run, ps->p - run);
              result = g_string_free (out, FALSE);
            }
          ps->p++;
          return result;
        }
      if (c < 0x20)
        {
          fail (ps, "control character in a string");
          goto error;
        }
      if (c != '\\')
        {
          ps->p++;
          continue;
        }

      if (out == NULL)
        out = g_string_sized_new ((ps->end - run) < 64 ? (gsize) (ps->end - run) + 8 : 64);
      g_string_append_len (out, run, ps->p - run);
      ps->p++;
      if (ps->p >= ps->end)
        {
          fail (ps, "unterminated escape");
          goto error;
        }
      switch (*ps->p++)
        {
        case '"': g_string_append_c (out, '"'); break;
        case '\\': g_string_append_c (out, '\\'); break;
        case '/': g_string_append_c (out, '/'); break;
        case 'b': g_string_append_c (out, '\b'); break;
        case 'f': g_string_append_c (out, '\f'); break;
        case 'n': g_string_append_c (out, '\n'); break;
        case 'r': g_string_append_c (out, '\r'); break;
        case 't': g_string_append_c (out, '\t'); break;
        case 'u':
          {
            guint32 unit, low;

            if (!read_hex4 (ps, &unit))
              goto error;
            if (unit >= 0xD800 && unit <= 0xDBFF)
              {
                if (ps->end - ps->p < 6 || ps->p[0] != '\\' || ps->p[1] != 'u')
                  {
                    fail (ps, "unpaired surrogate");
                    goto error;
                  }
                ps->p += 2;
                if (!read_hex4 (ps, &low))
                  goto error;
                if (low < 0xDC00 || low > 0xDFFF)
                  {
                    fail (ps, "unpaired surrogate");
                    goto error;
                  }
                unit = 0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00);
              }
            else if (unit >= 0xDC00 && unit <= 0xDFFF)
              {
                fail (ps, "unpaired surrogate");
                goto error;
              }
            else if (unit == 0)
              {
                /* C strings cannot hold it. */
                fail (ps, "\\u0000 in a string");
                goto error;
              }
            g_string_append_unichar (out, unit);
          }
          break;
        default:
          ps->p--;
          fail (ps, "invalid escape");
          goto error;
        }
      run = ps->p;
    }

error:
  if (out != NULL)
    g_string_free (out, TRUE);
  return NULL;
}

static JsonNode *parse_value (Parser *ps);

static JsonNode *
parse_number (Parser *ps)
{
  const char *begin = ps->p;
  gboolean is_integer = TRUE;
  char buffer[64];
  gsize length;
  JsonNode *node;

  if (ps->p < ps->end && *ps->p == '-')
    ps->p++;
  if (ps->p >= ps->end || !g_ascii_isdigit (*ps->p))
    return fail (ps, "invalid number"), NULL;
  if (*ps->p == '0')
    ps->p++;
  else
    while (ps->p < ps->end && g_ascii_isdigit (*ps->p))
      ps->p++;
  if (ps->p < ps->end && *ps->p == '.')
    {
      is_integer = FALSE;
      ps->p++;
      if (ps->p >= ps->end || !g_ascii_isdigit (*ps->p))
        return fail (ps, "invalid number"), NULL;
      while (ps->p < ps->end && g_ascii_isdigit (*ps->p))
        ps->p++;
    }
  if (ps->p < ps->end && (*ps->p == 'e' || *ps->p == 'E'))
    {
      is_integer = FALSE;
      ps->p++;
      if (ps->p < ps->end && (*ps->p == '+' || *ps->p == '-'))
        ps->p++;
      if (ps->p >= ps->end || !g_ascii_isdigit (*ps->p))
        return fail (ps, "invalid number"), NULL;
      while (ps->p < ps->end && g_ascii_isdigit (*ps->p))
        ps->p++;
    }

  length = (gsize) (ps->p - begin);
  if (length >= sizeof buffer)
    {
      /* Long numbers: only doubles are that long. */
      g_autofree char *copy = g_strndup (begin, length);

      node = json_node_new (JSON_NODE_VALUE);
      json_node_set_double (node, g_ascii_strtod (copy, NULL));
      return node;
    }
  memcpy (buffer, begin, length);
  buffer[length] = '\0';

  node = json_node_new (JSON_NODE_VALUE);
  if (is_integer)
    {
      gint64 value;

      if (g_ascii_string_to_signed (buffer, 10, G_MININT64, G_MAXINT64, &value, NULL))
        {
          json_node_set_int (node, value);
          return node;
        }
    }
  json_node_set_double (node, g_ascii_strtod (buffer, NULL));
  return node;
}

static gboolean
match_word (Parser     *ps,
            const char *word,
            gsize       length)
{
  if ((gsize) (ps->end - ps->p) < length || memcmp (ps->p, word, length) != 0)
    return fail (ps, "invalid value");
  ps->p += length;
  return TRUE;
}

static JsonNode *
parse_object (Parser *ps)
{
  JsonObject *object = json_object_new ();
  JsonNode *node;

  ps->p++;
  skip_whitespace (ps);
  if (ps->p < ps->end && *ps->p == '}')
    {
      ps->p++;
      goto done;
    }
  for (;;)
    {
      char *name;
      JsonNode *value;

      skip_whitespace (ps);
      if (ps->p >= ps->end || *ps->p != '"')
        {
          fail (ps, "expected a member name");
          goto error;
        }
      name = parse_string (ps);
      if (name == NULL)
        goto error;
      skip_whitespace (ps);
      if (ps->p >= ps->end || *ps->p != ':')
        {
          g_free (name);
          fail (ps, "expected “:”");
          goto error;
        }
      ps->p++;
      value = parse_value (ps);
      if (value == NULL)
        {
          g_free (name);
          goto error;
        }
      json_object_set_member (object, name, value);
      g_free (name);
      skip_whitespace (ps);
      if (ps->p < ps->end && *ps->p == ',')
        {
          ps->p++;
          continue;
        }
      if (ps->p < ps->end && *ps->p == '}')
        {
          ps->p++;
          break;
        }
      fail (ps, "expected “,” or “}”");
      goto error;
    }

done:
  node = json_node_new (JSON_NODE_OBJECT);
  json_node_take_object (node, object);
  return node;

error:
  json_object_unref (object);
  return NULL;
}

static JsonNode *
parse_array (Parser *ps)
{
  JsonArray *array = json_array_new ();
  JsonNode *node;

  ps->p++;
  skip_whitespace (ps);
  if (ps->p < ps->end && *ps->p == ']')
    {
      ps->p++;
      goto done;
    }
  for (;;)
    {
      JsonNode *value = parse_value (ps);

      if (value == NULL)
        goto error;
      json_array_add_element (array, value);
      skip_whitespace (ps);
      if (ps->p < ps->end && *ps->p == ',')
        {
          ps->p++;
          continue;
        }
      if (ps->p < ps->end && *ps->p == ']')
        {
          ps->p++;
          break;
        }
      fail (ps, "expected “,” or “]”");
      goto error;
    }

done:
  node = json_node_new (JSON_NODE_ARRAY);
  json_node_take_array (node, array);
  return node;

error:
  json_array_unref (array);
  return NULL;
}

static JsonNode *
parse_value (Parser *ps)
{
  JsonNode *node = NULL;

  skip_whitespace (ps);
  if (ps->p >= ps->end)
    return fail (ps, "unexpected end"), NULL;
  if (++ps->depth > MAX_DEPTH)
    return fail (ps, "nested too deeply"), NULL;

  switch (*ps->p)
    {
    case '{':
      node = parse_object (ps);
      break;
    case '[':
      node = parse_array (ps);
      break;
    case '"':
      {
        char *text = parse_string (ps);

        if (text != NULL)
          {
            node = json_node_new (JSON_NODE_VALUE);
            json_node_set_string (node, text);
            g_free (text);
          }
      }
      break;
    case 't':
      if (match_word (ps, "true", 4))
        {
          node = json_node_new (JSON_NODE_VALUE);
          json_node_set_boolean (node, TRUE);
        }
      break;
    case 'f':
      if (match_word (ps, "false", 5))
        {
          node = json_node_new (JSON_NODE_VALUE);
          json_node_set_boolean (node, FALSE);
        }
      break;
    case 'n':
      if (match_word (ps, "null", 4))
        node = json_node_new (JSON_NODE_NULL);
      break;
    default:
      node = parse_number (ps);
      break;
    }
  ps->depth--;
  return node;
}

JsonNode *
anot_json_parse (const char  *data,
                 gsize        length,
                 GError     **error)
{
  Parser ps = { data, data, data + length, 0, error };
  JsonNode *node;

  g_return_val_if_fail (data != NULL || length == 0, NULL);

  if (!g_utf8_validate_len (data, length, NULL))
    {
      g_set_error (error, JSON_PARSER_ERROR, JSON_PARSER_ERROR_INVALID_DATA,
                   "JSON: invalid UTF-8");
      return NULL;
    }
  node = parse_value (&ps);
  if (node == NULL)
    return NULL;
  skip_whitespace (&ps);
  if (ps.p != ps.end)
    {
      fail (&ps, "trailing data");
      json_node_unref (node);
      return NULL;
    }
  return node;
}

/* ------------------------------------------------------------------------
 * Writing
 * --------------------------------------------------------------------- */

static void
write_string (GString    *out,
              const char *text)
{
  static const char hex[] = "0123456789abcdef";
  const char *run = text;

  g_string_append_c (out, '"');
  for (const char *p = text; *p; p++)
    {
      unsigned char c = (unsigned char) *p;
      const char *escape = NULL;

      if (c >= 0x20 && c != '"' && c != '\\')
        continue;
      g_string_append_len (out, run, p - run);
      run = p + 1;
      switch (c)
        {
        case '"': escape = "\\\""; break;
        case '\\': escape = "\\\\"; break;
        case '\b': escape = "\\b"; break;
        case '\f': escape = "\\f"; break;
        case '\n': escape = "\\n"; break;
        case '\r': escape = "\\r"; break;
        case '\t': escape = "\\t"; break;
        default:
          g_string_append (out, "\\u00");
          g_string_append_c (out, hex[c >> 4]);
          g_string_append_c (out, hex[c & 0xf]);
          continue;
        }
      g_string_append (out, escape);
    }
  g_string_append (out, run);
  g_string_append_c (out, '"');
}

void
anot_json_write (GString  *out,
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
            anot_json_write (out, member);
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
            anot_json_write (out, json_array_get_element (array, i));
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
          g_string_append_printf (out, "%" G_GINT64_FORMAT, json_node_get_int (node));
          break;
        case G_TYPE_DOUBLE:
          {
            char buffer[G_ASCII_DTOSTR_BUF_SIZE];

            g_ascii_formatd (buffer, sizeof buffer, "%.17g", json_node_get_double (node));
            g_string_append (out, buffer);
            /* As json-glib: a double stays a double when read back. */
            if (strpbrk (buffer, ".eEn") == NULL)
              g_string_append (out, ".0");
          }
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
