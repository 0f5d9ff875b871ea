/* test-tokenizer.c: AnotTokenizer against js-tiktoken's counts
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <anot/anot.h>

#include <string.h>

/* The counts js-tiktoken 1.0.21 (getEncoding(...).encode(text).length)
 * gives for these texts. */
static const char * const texts[] = {
  "Hello, world!",
  "A quiet cafe with free WiFi, open late on Sundays, that reviewers call cozy.",
  "  leading spaces and\n\nnewlines\r\n  ",
  "Numbers: 1234567 3.14159 and 2024-11-24",
  "Unicode: café naïve Ünïcödé 日本語のテキスト 😀🎉",
  "I'm sure they'll say we've done it; you'd agree. DON'T SHOUT",
  "{\"id\": \"F8nlFE_dTWlslZBLIU6oEr\", \"stars\": 4.5, \"attributes\": {\"WiFi\": \"free\"}}",
  "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
};
static const guint64 o200k[] = { 4, 18, 9, 19, 18, 14, 37, 10 };
static const guint64 cl100k[] = { 4, 17, 9, 19, 24, 19, 36, 10 };

static void
check_encoding (const char    *name,
                const guint64 *expected)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(AnotTokenizer) tokenizer = anot_tokenizer_new_for_encoding (name, &error);

  g_assert_no_error (error);
  g_assert_true (anot_tokenizer_is_exact (tokenizer));
  g_assert_cmpstr (anot_tokenizer_get_encoding (tokenizer), ==, name);
  for (guint i = 0; i < G_N_ELEMENTS (texts); i++)
    {
      g_test_message ("%s: %s", name, texts[i]);
      g_assert_cmpuint (anot_tokenizer_count (tokenizer, texts[i]), ==, expected[i]);
    }
}

static void
test_o200k (void)
{
  check_encoding ("o200k_base", o200k);
}

static void
test_cl100k (void)
{
  check_encoding ("cl100k_base", cl100k);
}

/* A whole file of reviews (the demo benchmark's, 131 914 bytes). */
static void
test_long_text (void)
{
  g_autofree char *path = g_build_filename (g_getenv ("ANOT_DATA_DIR"), "demo", "reviews.jsonl", NULL);
  g_autofree char *text = NULL;
  g_autoptr(AnotTokenizer) o200k_tokenizer = anot_tokenizer_new_for_model ("gpt-4o-mini");
  g_autoptr(AnotTokenizer) cl100k_tokenizer = anot_tokenizer_new_for_model ("gpt-4-turbo");

  g_assert_true (g_file_get_contents (path, &text, NULL, NULL));
  g_assert_cmpuint (strlen (text), ==, 131914);
  g_assert_cmpuint (anot_tokenizer_count (o200k_tokenizer, text), ==, 45814);
  g_assert_cmpuint (anot_tokenizer_count (cl100k_tokenizer, text), ==, 46664);
}

static void
test_models (void)
{
  g_autoptr(AnotTokenizer) claude = anot_tokenizer_new_for_model ("claude-sonnet-4-20250514");
  g_autoptr(AnotTokenizer) local = anot_tokenizer_new_for_model ("qwen2.5:7b");

  g_assert_cmpstr (anot_tokenizer_encoding_for_model ("openai/gpt-4o"), ==, "o200k_base");
  g_assert_cmpstr (anot_tokenizer_encoding_for_model ("gpt-5-nano"), ==, "o200k_base");
  g_assert_cmpstr (anot_tokenizer_encoding_for_model ("o3-mini"), ==, "o200k_base");
  g_assert_cmpstr (anot_tokenizer_encoding_for_model ("gpt-4-turbo"), ==, "cl100k_base");
  g_assert_cmpstr (anot_tokenizer_encoding_for_model ("gpt-3.5-turbo"), ==, "cl100k_base");
  g_assert_cmpstr (anot_tokenizer_encoding_for_model (NULL), ==, "approximate");
  /* The approximation: one token per 4 bytes, rounded up. */
  g_assert_false (anot_tokenizer_is_exact (claude));
  g_assert_cmpstr (anot_tokenizer_get_encoding (local), ==, "approximate");
  g_assert_cmpuint (anot_tokenizer_count (claude, "Hello, world!"), ==, 4);
  g_assert_cmpuint (anot_tokenizer_count (claude, "12345678"), ==, 2);
  g_assert_cmpuint (anot_tokenizer_count (claude, ""), ==, 0);
}

/* A chat counts as OpenAI documents: 3 per message, role and content, 3
 * to prime the answer; the approximation sums the contents. */
static void
test_request (void)
{
  g_autoptr(AnotChatRequest) request = anot_chat_request_new ("Hello, world!", "Hello, world!");
  g_autoptr(AnotTokenizer) exact = anot_tokenizer_new_for_model ("gpt-4o");
  g_autoptr(AnotTokenizer) approximate = anot_tokenizer_new_for_model ("fake");

  /* "system" and "user" are one token each in o200k_base. */
  g_assert_cmpuint (anot_tokenizer_count_request (exact, request), ==, (3 + 1 + 4) * 2 + 3);
  g_assert_cmpuint (anot_tokenizer_count_request (approximate, request), ==, 4 + 4);
}

/* A message given away is the request's text itself, shared by its
 * copies; its length is known without reading it and its characters are
 * g_utf8_strlen()'s, counted eight bytes at a time (random UTF-8 of 0 to
 * 3,000 bytes, so every tail and lane overflow at 255 words is seen); the
 * approximation counts from the lengths what it counted from the text;
 * the cache key is the same as for a copied message. */
static void
test_request_messages (void)
{
  static const char *const chars[] = { "a", " ", "\n", "\xc3\xa9", "\xe2\x82\xac", "\xf0\x9f\x98\x80" };
  g_autoptr(GRand) rand = g_rand_new_with_seed (36);
  g_autoptr(AnotTokenizer) approximate = anot_tokenizer_new_for_model ("fake");

  for (guint n = 0; n < 300; n++)
    {
      g_autoptr(GString) text = g_string_new (NULL);
      g_autoptr(AnotChatRequest) taken = anot_chat_request_new ("system", NULL);
      g_autoptr(AnotChatRequest) copied = anot_chat_request_new ("system", NULL);
      g_autoptr(AnotChatRequest) copy = NULL;
      g_autofree char *key_taken = NULL, *key_copied = NULL;
      guint length = n < 20 ? n : (guint) g_rand_int_range (rand, 0, 3001);
      char *owned;

      while (text->len < length)
        g_string_append (text, chars[g_rand_int_range (rand, 0, G_N_ELEMENTS (chars))]);
      owned = g_strdup (text->str);
      anot_chat_request_add_message_take (taken, ANOT_CHAT_ROLE_USER, owned, n % 2 == 0 ? -1 : (gssize) text->len);
      anot_chat_request_add_message (copied, ANOT_CHAT_ROLE_USER, text->str);
      copy = anot_chat_request_copy (taken);

      g_assert_true (anot_chat_request_get_message_content (taken, 1) == owned);
      g_assert_true (anot_chat_request_get_message_content (copy, 1) == owned);
      g_assert_cmpstr (anot_chat_request_get_message_content (copied, 1), ==, text->str);
      g_assert_cmpuint (anot_chat_request_get_message_length (taken, 1), ==, text->len);
      g_assert_cmpuint (anot_chat_request_get_message_length (copied, 1), ==, text->len);
      g_assert_cmpuint (anot_chat_request_get_message_chars (taken, 1), ==, g_utf8_strlen (text->str, -1));
      g_assert_cmpuint (anot_chat_request_get_message_chars (copy, 1), ==, g_utf8_strlen (text->str, -1));
      g_assert_cmpuint (anot_chat_request_get_message_chars (copied, 0), ==, 6);
      g_assert_cmpuint (anot_tokenizer_count_request (approximate, taken), ==, 2 + (text->len + 3) / 4);
      key_taken = anot_chat_request_hash (taken, "openai");
      key_copied = anot_chat_request_hash (copied, "openai");
      g_assert_cmpstr (key_taken, ==, key_copied);
    }
}

/* Counting up to a limit: the exact count when it is within the limit;
 * past it, a count above the limit and at most the whole text's, which is
 * the count of the pieces of the bytes it says it covered, and costs about
 * as much as the limit (on the demo's reviews, 45,814 tokens in all). */
static void
test_count_up_to (void)
{
  g_autofree char *path = g_build_filename (g_getenv ("ANOT_DATA_DIR"), "demo", "reviews.jsonl", NULL);
  g_autofree char *text = NULL;
  g_autoptr(AnotTokenizer) exact = anot_tokenizer_new_for_model ("gpt-4o-mini");
  g_autoptr(AnotTokenizer) approximate = anot_tokenizer_new_for_model ("fake");
  const guint64 whole = 45814;
  const guint64 limits[] = { 0, 1, 100, 12345, 45813 };
  guint64 bytes = 0;

  g_assert_true (g_file_get_contents (path, &text, NULL, NULL));

  /* Within the limit: the count, every byte covered. */
  g_assert_cmpuint (anot_tokenizer_count_up_to (exact, text, whole, &bytes), ==, whole);
  g_assert_cmpuint (bytes, ==, strlen (text));
  g_assert_cmpuint (anot_tokenizer_count_up_to (exact, text, G_MAXUINT64, NULL), ==, whole);

  for (guint i = 0; i < G_N_ELEMENTS (limits); i++)
    {
      guint64 n = anot_tokenizer_count_up_to (exact, text, limits[i], &bytes);

      g_test_message ("limit %" G_GUINT64_FORMAT ": %" G_GUINT64_FORMAT " tokens over %" G_GUINT64_FORMAT " bytes",
                      limits[i], n, bytes);
      g_assert_cmpuint (n, >, limits[i]);
      g_assert_cmpuint (n, <=, whole);
      g_assert_cmpuint (bytes, <=, strlen (text));
      if (limits[i] < whole / 2)
        g_assert_cmpuint (bytes, <, strlen (text) / 2);
      /* Stopped at the first piece that passed the limit: the pieces
       * before it were within it (no piece of this text has 200 tokens). */
      g_assert_cmpuint (n, <=, limits[i] + 200);
      /* The bytes covered are whole pieces: the text cut there starts the
       * same (its last piece may merge with what follows, so the count
       * of the cut text is compared, not the pieces). */
      {
        g_autofree char *prefix = g_strndup (text, bytes);
        guint64 counted = anot_tokenizer_count (exact, prefix);

        g_assert_cmpuint (counted, >=, n - 1);
        g_assert_cmpuint (counted, <=, n + 1);
      }
    }

  /* The approximation counts every byte anyway. */
  g_assert_cmpuint (anot_tokenizer_count_up_to (approximate, text, 10, &bytes), ==, (strlen (text) + 3) / 4);
  g_assert_cmpuint (bytes, ==, strlen (text));
  g_assert_cmpuint (anot_tokenizer_count_up_to (exact, NULL, 0, &bytes), ==, 0);
  g_assert_cmpuint (bytes, ==, 0);

  /* A request: messages in order, the limit over the whole count. */
  {
    g_autoptr(AnotChatRequest) request = anot_chat_request_new ("Hello, world!", text);
    guint64 full = anot_tokenizer_count_request (exact, request);

    g_assert_cmpuint (full, ==, (3 + 1 + 4) + (3 + 1 + whole) + 3);
    g_assert_cmpuint (anot_tokenizer_count_request_up_to (exact, request, full, &bytes), ==, full);
    g_assert_cmpuint (bytes, ==, strlen ("Hello, world!") + strlen (text));
    /* Past the limit only with the last tokens: every byte counted, so
     * the count is whole. */
    g_assert_cmpuint (anot_tokenizer_count_request_up_to (exact, request, full - 1, &bytes), ==, full);
    g_assert_cmpuint (bytes, ==, strlen ("Hello, world!") + strlen (text));
    /* The approximation counts every message whole. */
    g_assert_cmpuint (anot_tokenizer_count_request_up_to (approximate, request, 5, &bytes), ==,
                      anot_tokenizer_count_request (approximate, request));
    g_assert_cmpuint (bytes, ==, strlen ("Hello, world!") + strlen (text));
    /* Past 1000 tokens in the second message. */
    {
      guint64 n = anot_tokenizer_count_request_up_to (exact, request, 1000, &bytes);

      g_assert_cmpuint (n, >, 1000);
      g_assert_cmpuint (n, <, 1200);
      g_assert_cmpuint (bytes, >, strlen ("Hello, world!"));
      g_assert_cmpuint (bytes, <, strlen ("Hello, world!") + strlen (text) / 10);
    }
    /* Past the limit in the first message: the second is not counted. */
    g_assert_cmpuint (anot_tokenizer_count_request_up_to (exact, request, 3, &bytes), >, 3);
    g_assert_cmpuint (bytes, <=, strlen ("Hello, world!"));
  }
}

static void
test_missing_table (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(AnotTokenizer) tokenizer = anot_tokenizer_new_for_encoding ("p50k_base", &error);

  g_assert_null (tokenizer);
  g_assert_error (error, ANOT_ERROR, ANOT_ERROR_IO);
  g_assert_nonnull (strstr (error->message, "p50k_base"));
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/tokenizer/o200k", test_o200k);
  g_test_add_func ("/tokenizer/cl100k", test_cl100k);
  g_test_add_func ("/tokenizer/long-text", test_long_text);
  g_test_add_func ("/tokenizer/models", test_models);
  g_test_add_func ("/tokenizer/request", test_request);
  g_test_add_func ("/tokenizer/request-messages", test_request_messages);
  g_test_add_func ("/tokenizer/count-up-to", test_count_up_to);
  g_test_add_func ("/tokenizer/missing-table", test_missing_table);
  return g_test_run ();
}
