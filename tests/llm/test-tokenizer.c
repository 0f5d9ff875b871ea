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
  g_test_add_func ("/tokenizer/missing-table", test_missing_table);
  return g_test_run ();
}
