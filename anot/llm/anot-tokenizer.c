/* anot-tokenizer.c: counting a model's tokens
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "anot-tokenizer.h"

#include "anot-enum-types.h"
#include "anot-error.h"
#include "anot-json-document.h"

#include <string.h>

/**
 * AnotTokenizer:
 *
 * Counts the tokens of a text as a model's tokenizer does, for cost
 * estimates and for fitting prompts into a context window.
 *
 * OpenAI's byte-pair encodings are exact: `o200k_base` (GPT-4o, GPT-4.1,
 * GPT-5, o1, o3, o4) and `cl100k_base` (GPT-4, GPT-3.5), read from the
 * rank tables in anot's data directory (`tokenizers/NAME.json`, OpenAI's
 * tiktoken tables as the js-tiktoken package ships them, MIT licence):
 * the text is split with the encoding's pattern and each piece merged by
 * rank, as tiktoken does.  A chat request counts as OpenAI documents it:
 * 3 tokens per message plus its role and content, and 3 for the answer's
 * start.
 *
 * Every other model — Anthropic's (whose tokenizer is not published),
 * local ones, or an OpenAI model when the tables are not installed — gets
 * the **approximation** of one token per 4 bytes of UTF-8, rounded up,
 * for each message (the rule of the fake LLM server), which
 * [method@Anot.Tokenizer.is_exact] reports.  For English prose it is
 * within about 10% of the real counts.
 *
 * The tables are looked for in `$ANOT_TOKENIZER_DIR`, then
 * `$ANOT_DATA_DIR/tokenizers`, then the installed
 * `$datadir/anot/tokenizers`; each is read once per process.
 */

#define APPROXIMATE "approximate"

typedef struct
{
  const guint8 *data;
  guint32 length;
  guint32 rank;
} Token;

typedef struct
{
  char *name;
  GRegex *pattern;
  GBytes *arena;             /* the decoded tokens, back to back */
  Token *tokens;
  guint n_tokens;
  GHashTable *ranks;         /* Token* -> Token* */
} Encoding;

struct _AnotTokenizer
{
  GObject parent_instance;

  Encoding *encoding;        /* NULL: the approximation (owned by the cache) */
};

G_DEFINE_FINAL_TYPE (AnotTokenizer, anot_tokenizer, G_TYPE_OBJECT)

static void
anot_tokenizer_class_init (AnotTokenizerClass *klass)
{
}

static void
anot_tokenizer_init (AnotTokenizer *self)
{
}

static guint
token_hash (gconstpointer key)
{
  const Token *token = key;
  guint32 hash = 2166136261u;

  for (guint32 i = 0; i < token->length; i++)
    hash = (hash ^ token->data[i]) * 16777619u;
  return hash;
}

static gboolean
token_equal (gconstpointer a,
             gconstpointer b)
{
  const Token *x = a, *y = b;

  return x->length == y->length && memcmp (x->data, y->data, x->length) == 0;
}

static char *
find_table (const char *name)
{
  g_autofree char *file = g_strconcat (name, ".json", NULL);
  const char *dirs[3] = { g_getenv ("ANOT_TOKENIZER_DIR"), NULL, NULL };
  g_autofree char *data_dir = NULL;

  if (g_getenv ("ANOT_DATA_DIR") != NULL)
    dirs[1] = data_dir = g_build_filename (g_getenv ("ANOT_DATA_DIR"), "tokenizers", NULL);
  for (guint i = 0; i < G_N_ELEMENTS (dirs); i++)
    {
      g_autofree char *path = NULL;

      if (dirs[i] == NULL)
        continue;
      path = g_build_filename (dirs[i], file, NULL);
      if (g_file_test (path, G_FILE_TEST_IS_REGULAR))
        return g_steal_pointer (&path);
    }
  {
    g_autofree char *path = g_build_filename (ANOT_PKGDATADIR, "tokenizers", file, NULL);

    if (g_file_test (path, G_FILE_TEST_IS_REGULAR))
      return g_steal_pointer (&path);
  }
  return NULL;
}

/* Reads {"pat_str", "bpe_ranks": "! OFFSET B64 B64 ...\n! ..."}. */
static Encoding *
encoding_load (const char  *name,
               GError     **error)
{
  g_autofree char *path = find_table (name);
  g_autoptr(AnotJsonDocument) doc = NULL;
  g_autofree char *pattern = NULL;
  g_autofree char *ranks = NULL;
  g_autoptr(GByteArray) arena = NULL;
  g_autoptr(GArray) offsets = NULL;   /* guint32 offset, length, rank triples */
  g_auto(GStrv) lines = NULL;
  Encoding *encoding;
  const guint8 *base;

  if (path == NULL)
    {
      g_set_error (error, ANOT_ERROR, ANOT_ERROR_IO,
                   "The %s token table is not installed (tokenizers/%s.json in anot's data "
                   "directory, or $ANOT_TOKENIZER_DIR)", name, name);
      return NULL;
    }
  {
    g_autofree char *contents = NULL;
    gsize length;

    if (!g_file_get_contents (path, &contents, &length, error))
      return NULL;
    doc = anot_json_document_new_from_data (contents, (gssize) length, error);
    if (doc == NULL)
      {
        g_prefix_error (error, "%s: ", path);
        return NULL;
      }
  }
  pattern = anot_json_document_dup_string (doc, anot_json_document_get_member (doc, 0, "pat_str"));
  ranks = anot_json_document_dup_string (doc, anot_json_document_get_member (doc, 0, "bpe_ranks"));
  if (pattern == NULL || ranks == NULL)
    {
      g_set_error (error, ANOT_ERROR, ANOT_ERROR_MISSING_FIELD,
                   "%s: “pat_str” and “bpe_ranks” are required", path);
      return NULL;
    }

  arena = g_byte_array_new ();
  offsets = g_array_new (FALSE, FALSE, sizeof (guint32));
  lines = g_strsplit (ranks, "\n", -1);
  for (guint l = 0; lines[l] != NULL; l++)
    {
      guint64 offset = 0;
      char *field = lines[l];
      guint t;

      if (*lines[l] == '\0')
        continue;
      /* Fields split in place, by hand: g_strsplit() on a line of
       * thousands of tokens is quadratic under AddressSanitizer, whose
       * strstr() measures the rest of the line at every field. */
      for (t = 0; field != NULL; t++)
        {
          char *next = strchr (field, ' ');

          if (next != NULL)
            *next++ = '\0';
          if (t == 1 && !g_ascii_string_to_unsigned (field, 10, 0, G_MAXUINT32, &offset, NULL))
            break;
          if (t >= 2)
            {
              gsize size = 0;
              g_autofree guchar *bytes = g_base64_decode (field, &size);
              guint32 triple[3] = { arena->len, (guint32) size, (guint32) (offset + t - 2) };

              g_byte_array_append (arena, bytes, (guint) size);
              g_array_append_vals (offsets, triple, 3);
            }
          field = next;
        }
      if (t < 2 || field != NULL)
        {
          g_set_error (error, ANOT_ERROR, ANOT_ERROR_PARSE,
                       "%s: bpe_ranks line %u: expected “! OFFSET TOKEN…”", path, l + 1);
          return NULL;
        }
    }

  encoding = g_new0 (Encoding, 1);
  encoding->name = g_strdup (name);
  encoding->pattern = g_regex_new (pattern, G_REGEX_OPTIMIZE, 0, error);
  if (encoding->pattern == NULL)
    {
      g_prefix_error (error, "%s: pat_str: ", path);
      g_free (encoding->name);
      g_free (encoding);
      return NULL;
    }
  encoding->arena = g_byte_array_free_to_bytes (g_steal_pointer (&arena));
  base = g_bytes_get_data (encoding->arena, NULL);
  encoding->n_tokens = offsets->len / 3;
  encoding->tokens = g_new (Token, encoding->n_tokens);
  encoding->ranks = g_hash_table_new (token_hash, token_equal);
  for (guint i = 0; i < encoding->n_tokens; i++)
    {
      Token *token = &encoding->tokens[i];

      token->data = base + g_array_index (offsets, guint32, 3 * i);
      token->length = g_array_index (offsets, guint32, 3 * i + 1);
      token->rank = g_array_index (offsets, guint32, 3 * i + 2);
      g_hash_table_insert (encoding->ranks, token, token);
    }
  return encoding;
}

/* Loaded encodings live as long as the process: the tables are large and
 * read once.  NULL in the cache: not installed. */
static Encoding *
encoding_get (const char  *name,
              GError     **error)
{
  static GHashTable *cache;
  G_LOCK_DEFINE_STATIC (cache);
  Encoding *encoding;
  gboolean known;

  G_LOCK (cache);
  if (cache == NULL)
    cache = g_hash_table_new (g_str_hash, g_str_equal);
  known = g_hash_table_lookup_extended (cache, name, NULL, (gpointer *) &encoding);
  if (!known)
    {
      encoding = encoding_load (name, error);
      g_hash_table_insert (cache, g_strdup (name), encoding);
    }
  else if (encoding == NULL)
    g_set_error (error, ANOT_ERROR, ANOT_ERROR_IO, "The %s token table is not installed", name);
  G_UNLOCK (cache);
  return encoding;
}

/**
 * anot_tokenizer_encoding_for_model:
 * @model: (nullable): a model name, e.g. `gpt-4o-mini` or
 *   `openai/gpt-4o`
 *
 * Returns: the encoding of @model's tokenizer (`o200k_base`,
 *   `cl100k_base`), or `approximate` for a model whose tokenizer anot
 *   does not have
 */
const char *
anot_tokenizer_encoding_for_model (const char *model)
{
  const char *name;

  if (model == NULL)
    return APPROXIMATE;
  name = strrchr (model, '/');
  name = name ? name + 1 : model;
  if (g_str_has_prefix (name, "gpt-4o") || g_str_has_prefix (name, "chatgpt-4o") ||
      g_str_has_prefix (name, "gpt-4.1") || g_str_has_prefix (name, "gpt-4.5") ||
      g_str_has_prefix (name, "gpt-5") || g_str_has_prefix (name, "o1") ||
      g_str_has_prefix (name, "o3") || g_str_has_prefix (name, "o4") ||
      g_str_has_prefix (name, "gpt-oss"))
    return "o200k_base";
  if (g_str_has_prefix (name, "gpt-4") || g_str_has_prefix (name, "gpt-3.5") ||
      g_str_has_prefix (name, "text-embedding-3") || g_str_has_prefix (name, "text-embedding-ada"))
    return "cl100k_base";
  return APPROXIMATE;
}

/**
 * anot_tokenizer_new_for_encoding:
 * @encoding: `o200k_base`, `cl100k_base` or `approximate`
 * @error: return location for a #GError
 *
 * Returns: (transfer full) (nullable): a tokenizer, or %NULL with @error
 *   set when the encoding's table is not installed or cannot be read
 */
AnotTokenizer *
anot_tokenizer_new_for_encoding (const char  *encoding,
                                 GError     **error)
{
  AnotTokenizer *self;
  Encoding *loaded = NULL;

  g_return_val_if_fail (encoding != NULL, NULL);

  if (strcmp (encoding, APPROXIMATE) != 0)
    {
      loaded = encoding_get (encoding, error);
      if (loaded == NULL)
        return NULL;
    }
  self = g_object_new (ANOT_TYPE_TOKENIZER, NULL);
  self->encoding = loaded;
  return self;
}

/**
 * anot_tokenizer_new_for_model:
 * @model: (nullable): a model name
 *
 * The tokenizer of @model: its real one when anot has its table, else
 * the approximation.
 *
 * Returns: (transfer full): a tokenizer
 */
AnotTokenizer *
anot_tokenizer_new_for_model (const char *model)
{
  AnotTokenizer *self = anot_tokenizer_new_for_encoding (anot_tokenizer_encoding_for_model (model), NULL);

  return self != NULL ? self : anot_tokenizer_new_for_encoding (APPROXIMATE, NULL);
}

/**
 * anot_tokenizer_get_encoding:
 * @self: an #AnotTokenizer
 *
 * Returns: the encoding's name, `approximate` for the approximation
 */
const char *
anot_tokenizer_get_encoding (AnotTokenizer *self)
{
  g_return_val_if_fail (ANOT_IS_TOKENIZER (self), NULL);
  return self->encoding ? self->encoding->name : APPROXIMATE;
}

/**
 * anot_tokenizer_is_exact:
 * @self: an #AnotTokenizer
 *
 * Returns: whether the counts are the model's own (a real encoding), not
 *   the approximation
 */
gboolean
anot_tokenizer_is_exact (AnotTokenizer *self)
{
  g_return_val_if_fail (ANOT_IS_TOKENIZER (self), FALSE);
  return self->encoding != NULL;
}

static const Token *
lookup (Encoding     *encoding,
        const guint8 *data,
        gsize         length)
{
  Token key = { data, (guint32) length, 0 };

  return g_hash_table_lookup (encoding->ranks, &key);
}

/* The tokens of one piece of the pre-tokenized text: tiktoken's byte-pair
 * merge, lowest rank first. */
static guint64
count_piece (Encoding     *encoding,
             const guint8 *piece,
             gsize         length)
{
  g_autofree gsize *starts = NULL;
  gsize n;

  if (length <= 1 || lookup (encoding, piece, length) != NULL)
    return length == 0 ? 0 : 1;

  /* starts[i]: where part i begins; starts[n] = length. */
  n = length;
  starts = g_new (gsize, n + 1);
  for (gsize i = 0; i <= n; i++)
    starts[i] = i;
  while (n > 1)
    {
      guint32 best_rank = G_MAXUINT32;
      gsize best = 0;

      for (gsize i = 0; i + 1 < n; i++)
        {
          const Token *token = lookup (encoding, piece + starts[i], starts[i + 2] - starts[i]);

          if (token != NULL && token->rank < best_rank)
            {
              best_rank = token->rank;
              best = i;
            }
        }
      if (best_rank == G_MAXUINT32)
        break;
      memmove (&starts[best + 1], &starts[best + 2], (n - best - 1) * sizeof *starts);
      n--;
    }
  return n;
}

static guint64
approximate (const char *text)
{
  return text == NULL ? 0 : (strlen (text) + 3) / 4;
}

/* The tokens of @text, counted piece by piece until they pass @limit;
 * *@counted: the bytes of the pieces counted (all of @text unless the
 * count passed @limit first).  Stopping at a piece's end keeps the count
 * a sum of whole pieces' tokens, so it never exceeds the whole text's. */
static guint64
count_text (AnotTokenizer *self,
            const char    *text,
            guint64        limit,
            guint64       *counted)
{
  g_autoptr(GMatchInfo) info = NULL;
  guint64 n = 0;
  int end = 0;

  *counted = 0;
  if (text == NULL || *text == '\0')
    return 0;
  if (self->encoding == NULL || !g_utf8_validate (text, -1, NULL))
    {
      *counted = strlen (text);
      return approximate (text);
    }

  g_regex_match (self->encoding->pattern, text, 0, &info);
  while (g_match_info_matches (info))
    {
      int start;

      if (g_match_info_fetch_pos (info, 0, &start, &end) && end > start)
        {
          n += count_piece (self->encoding, (const guint8 *) text + start, (gsize) (end - start));
          if (n > limit)
            {
              *counted = (guint64) end;
              return n;
            }
        }
      g_match_info_next (info, NULL);
    }
  *counted = strlen (text);
  return n;
}

/**
 * anot_tokenizer_count:
 * @self: an #AnotTokenizer
 * @text: (nullable): a UTF-8 text
 *
 * Returns: the number of tokens of @text
 */
guint64
anot_tokenizer_count (AnotTokenizer *self,
                      const char    *text)
{
  guint64 counted;

  g_return_val_if_fail (ANOT_IS_TOKENIZER (self), 0);

  return count_text (self, text, G_MAXUINT64, &counted);
}

/**
 * anot_tokenizer_count_up_to:
 * @self: an #AnotTokenizer
 * @text: (nullable): a UTF-8 text
 * @limit: the count that is enough to know
 * @counted_bytes: (out) (optional): return location for the bytes of
 *   @text whose tokens were counted (all of them unless the count passed
 *   @limit)
 *
 * Counts the tokens of @text as anot_tokenizer_count() does, but stops
 * once the count passes @limit: enough to know that a text does not fit a
 * budget, for a fraction of the cost of counting a text far beyond it.
 * The pieces @text is split into are counted whole, in order, so a count
 * above @limit is the exact count of the first @counted_bytes bytes'
 * pieces: at most the tokens of @text, never more.  It is not the count
 * of @text and must not be reported as such.
 *
 * Returns: the number of tokens of @text when it is at most @limit;
 *   otherwise a number above @limit and at most the tokens of @text
 */
guint64
anot_tokenizer_count_up_to (AnotTokenizer *self,
                            const char    *text,
                            guint64        limit,
                            guint64       *counted_bytes)
{
  guint64 counted, n;

  g_return_val_if_fail (ANOT_IS_TOKENIZER (self), 0);

  n = count_text (self, text, limit, &counted);
  if (counted_bytes != NULL)
    *counted_bytes = counted;
  return n;
}

/* "system", "user", "assistant": the roles' names in the API. */
static const char *
role_name (AnotChatRole role)
{
  GEnumClass *klass = g_type_class_ref (ANOT_TYPE_CHAT_ROLE);
  GEnumValue *value = g_enum_get_value (klass, role);
  const char *name = value ? value->value_nick : "user";

  g_type_class_unref (klass);
  return name;
}

/**
 * anot_tokenizer_count_request:
 * @self: an #AnotTokenizer
 * @request: a chat request
 *
 * The prompt tokens of @request: with a real encoding, OpenAI's count of
 * a chat (3 per message, its role and content, 3 to prime the answer);
 * with the approximation, the sum over the messages' contents.
 *
 * Returns: the prompt tokens of @request
 */
guint64
anot_tokenizer_count_request (AnotTokenizer   *self,
                              AnotChatRequest *request)
{
  g_return_val_if_fail (ANOT_IS_TOKENIZER (self), 0);
  g_return_val_if_fail (ANOT_IS_CHAT_REQUEST (request), 0);

  return anot_tokenizer_count_request_up_to (self, request, G_MAXUINT64, NULL);
}

/**
 * anot_tokenizer_count_request_up_to:
 * @self: an #AnotTokenizer
 * @request: a chat request
 * @limit: the count that is enough to know
 * @counted_bytes: (out) (optional): return location for the bytes of the
 *   messages' contents whose tokens were counted (all of them unless the
 *   count passed @limit)
 *
 * Counts the prompt tokens of @request as anot_tokenizer_count_request()
 * does, but stops once the count passes @limit (see
 * anot_tokenizer_count_up_to()): the messages are counted in order, the
 * one where the count passes @limit only up to there.  When
 * @counted_bytes is all of the messages' bytes, nothing was left out
 * (the approximation, for one, counts every message whole).
 *
 * Returns: the prompt tokens of @request when they are at most @limit or
 *   every byte was counted; otherwise a number above @limit and below the
 *   prompt tokens
 */
guint64
anot_tokenizer_count_request_up_to (AnotTokenizer   *self,
                                    AnotChatRequest *request,
                                    guint64          limit,
                                    guint64         *counted_bytes)
{
  guint n_messages;
  guint64 n = 0, bytes = 0;
  gboolean stopped = FALSE;

  g_return_val_if_fail (ANOT_IS_TOKENIZER (self), 0);
  g_return_val_if_fail (ANOT_IS_CHAT_REQUEST (request), 0);

  n_messages = anot_chat_request_get_n_messages (request);
  for (guint i = 0; i < n_messages; i++)
    {
      const char *content = anot_chat_request_get_message_content (request, i);
      guint64 counted;

      if (n > limit)
        {
          stopped = TRUE;
          break;
        }
      if (self->encoding == NULL)
        {
          /* The approximation needs the length alone, which the request
           * knows without reading a prompt of megabytes. */
          gsize length = anot_chat_request_get_message_length (request, i);

          n += (length + 3) / 4;
          bytes += length;
          continue;
        }
      if (self->encoding != NULL)
        n += 3 + anot_tokenizer_count (self, role_name (anot_chat_request_get_message_role (request, i)));
      n += count_text (self, content, n <= limit ? limit - n : 0, &counted);
      bytes += counted;
      if (content != NULL && content[counted] != '\0')
        {
          stopped = TRUE;
          break;
        }
    }
  if (self->encoding != NULL && n_messages > 0 && !stopped)
    n += 3;
  if (counted_bytes != NULL)
    *counted_bytes = bytes;
  return n;
}
