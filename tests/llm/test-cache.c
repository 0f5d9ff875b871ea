/* test-cache.c: the SQLite response cache and the cached backend
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <anot/anot.h>

#include "anot-fake-llm.h"

#include <string.h>

static char *
cache_path (const char *name)
{
  return g_build_filename (g_get_user_cache_dir (), "anot-test", name, NULL);
}

static void
test_hash (void)
{
  g_autoptr(AnotChatRequest) base = anot_chat_request_new ("sys", "hello");
  g_autofree char *h = NULL;
  const char * const stop[] = { "x", NULL };

  anot_chat_request_set_model (base, "m");
  h = anot_chat_request_hash (base, "openai");
  g_assert_cmpuint (strlen (h), ==, 64);

  /* Bookkeeping does not change the key. */
  {
    g_autoptr(AnotChatRequest) copy = anot_chat_request_copy (base);
    g_autofree char *h2 = NULL;

    /* A copy shares the messages' text (the router copies every call,
     * and the HTTP backend holds the copy until the call is sent). */
    g_assert_cmpuint (anot_chat_request_get_n_messages (copy), ==, 2);
    for (guint i = 0; i < 2; i++)
      g_assert_true (anot_chat_request_get_message_content (copy, i) ==
                     anot_chat_request_get_message_content (base, i));
    anot_chat_request_set_role (copy, "planner");
    anot_chat_request_set_request_id (copy, "R07");
    h2 = anot_chat_request_hash (copy, "openai");
    g_assert_cmpstr (h, ==, h2);
  }

  /* Everything that is sent does. */
  for (guint change = 0; change < 11; change++)
    {
      g_autoptr(AnotChatRequest) copy = anot_chat_request_copy (base);
      g_autofree char *h2 = NULL;
      const char *backend = "openai";

      switch (change)
        {
        case 0: backend = "anthropic"; break;
        case 1: anot_chat_request_set_model (copy, "m2"); break;
        case 2: anot_chat_request_add_message (copy, ANOT_CHAT_ROLE_ASSISTANT, "a"); break;
        case 3: anot_chat_request_set_temperature (copy, 0.0); break;
        case 4: anot_chat_request_set_max_tokens (copy, 10); break;
        case 5: anot_chat_request_set_top_p (copy, 0.5); break;
        case 6: anot_chat_request_set_seed (copy, 1); break;
        case 7: anot_chat_request_set_stop (copy, stop); break;
        case 8: anot_chat_request_set_response_format (copy, ANOT_RESPONSE_FORMAT_JSON_OBJECT); break;
        case 9:
          {
            g_autoptr(JsonNode) schema = json_from_string ("{\"type\": \"object\"}", NULL);
            anot_chat_request_set_json_schema (copy, "s", schema);
          }
          break;
        case 10:
          {
            /* Same text, other role. */
            g_autoptr(AnotChatRequest) other = anot_chat_request_new (NULL, "sys");
            anot_chat_request_add_message (other, ANOT_CHAT_ROLE_USER, "hello");
            anot_chat_request_set_model (other, "m");
            g_set_object (&copy, other);
          }
          break;
        default:
          g_assert_not_reached ();
        }
      h2 = anot_chat_request_hash (copy, backend);
      g_assert_cmpstr (h, !=, h2);
    }
}

static void
test_store_and_lookup (void)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *path = cache_path ("roundtrip.sqlite");
  g_autofree char *wal = g_strconcat (path, "-wal", NULL);
  g_autoptr(AnotResponseCache) cache = anot_response_cache_new (path, &error);
  g_autoptr(AnotChatRequest) request = anot_chat_request_new ("s", "q");
  g_autoptr(AnotCompletion) completion = anot_completion_new ("m-2024", "the answer");
  g_autoptr(AnotCompletion) found = NULL;
  g_autoptr(AnotCompletion) missing = NULL;
  g_autofree char *key = anot_chat_request_hash (request, "openai");

  g_assert_no_error (error);
  anot_completion_set_prompt_tokens (completion, 12);
  anot_completion_set_completion_tokens (completion, 3);
  anot_completion_set_latency_ms (completion, 250.5);
  anot_completion_set_retries (completion, 2);
  anot_completion_set_finish_reason (completion, "stop");
  anot_completion_set_cost_usd (completion, 0.5);

  missing = anot_response_cache_lookup (cache, key, &error);
  g_assert_no_error (error);
  g_assert_null (missing);
  g_assert_true (anot_response_cache_store (cache, key, "openai", request, completion, &error));
  g_assert_no_error (error);
  /* The first answer is kept. */
  {
    g_autoptr(AnotCompletion) other = anot_completion_new ("m", "another answer");
    g_assert_true (anot_response_cache_store (cache, key, "openai", request, other, &error));
  }
  g_assert_true (g_file_test (wal, G_FILE_TEST_EXISTS));
  g_clear_object (&cache);

  /* Reopened. */
  cache = anot_response_cache_new (path, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (anot_response_cache_get_n_entries (cache), ==, 1);
  found = anot_response_cache_lookup (cache, key, &error);
  g_assert_no_error (error);
  g_assert_nonnull (found);
  g_assert_true (anot_completion_get_cached (found));
  g_assert_cmpstr (anot_completion_get_text (found), ==, "the answer");
  g_assert_cmpstr (anot_completion_get_model (found), ==, "m-2024");
  g_assert_cmpuint (anot_completion_get_prompt_tokens (found), ==, 12);
  g_assert_cmpuint (anot_completion_get_completion_tokens (found), ==, 3);
  g_assert_cmpfloat (anot_completion_get_latency_ms (found), ==, 250.5);
  g_assert_cmpuint (anot_completion_get_retries (found), ==, 2);
  g_assert_cmpstr (anot_completion_get_finish_reason (found), ==, "stop");
  /* Priced by the router with the current prices, not stored. */
  g_assert_cmpfloat (anot_completion_get_cost_usd (found), ==, 0.0);
  g_assert_cmpuint (anot_response_cache_get_n_hits (cache), ==, 1);
}

static void
test_not_a_cache (void)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *path = cache_path ("garbage.sqlite");
  g_autofree char *dir = g_path_get_dirname (path);
  g_autoptr(AnotResponseCache) cache = NULL;

  g_mkdir_with_parents (dir, 0700);
  g_assert_true (g_file_set_contents (path, "this is not a database, just some text that is long "
                                      "enough to have a header of sorts................", -1, NULL));
  cache = anot_response_cache_new (path, &error);
  g_assert_null (cache);
  g_assert_error (error, ANOT_ERROR, ANOT_ERROR_CACHE);
  g_assert_nonnull (strstr (error->message, path));
}

typedef struct
{
  const char *path;
  guint first;
  guint count;
  guint failures;
} WriterData;

/* The key as it was made before it was streamed: json-glib's text of the
 * request's members, hashed by GChecksum.  Keys already in caches and
 * journals were made so; anot_chat_request_hash() must give the same. */
static char *
reference_hash (AnotChatRequest *request,
                const char      *backend)
{
  g_autoptr(JsonBuilder) builder = json_builder_new ();
  g_autoptr(JsonNode) root = NULL;
  g_autofree char *text = NULL;
  char number[G_ASCII_DTOSTR_BUF_SIZE];
  const char * const *stop = anot_chat_request_get_stop (request);

  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "v");
  json_builder_add_int_value (builder, 1);
  json_builder_set_member_name (builder, "backend");
  json_builder_add_string_value (builder, backend);
  json_builder_set_member_name (builder, "model");
  json_builder_add_string_value (builder, anot_chat_request_get_model (request) ? anot_chat_request_get_model (request) : "");
  json_builder_set_member_name (builder, "messages");
  json_builder_begin_array (builder);
  for (guint i = 0; i < anot_chat_request_get_n_messages (request); i++)
    {
      json_builder_begin_array (builder);
      json_builder_add_int_value (builder, anot_chat_request_get_message_role (request, i));
      json_builder_add_string_value (builder, anot_chat_request_get_message_content (request, i));
      json_builder_end_array (builder);
    }
  json_builder_end_array (builder);
  json_builder_set_member_name (builder, "temperature");
  json_builder_add_string_value (builder, g_ascii_dtostr (number, sizeof number, anot_chat_request_get_temperature (request)));
  json_builder_set_member_name (builder, "top_p");
  json_builder_add_string_value (builder, g_ascii_dtostr (number, sizeof number, anot_chat_request_get_top_p (request)));
  json_builder_set_member_name (builder, "max_tokens");
  json_builder_add_int_value (builder, anot_chat_request_get_max_tokens (request));
  json_builder_set_member_name (builder, "seed");
  json_builder_add_int_value (builder, anot_chat_request_get_seed (request));
  json_builder_set_member_name (builder, "stop");
  json_builder_begin_array (builder);
  for (guint i = 0; stop && stop[i]; i++)
    json_builder_add_string_value (builder, stop[i]);
  json_builder_end_array (builder);
  json_builder_set_member_name (builder, "response_format");
  json_builder_add_int_value (builder, anot_chat_request_get_response_format (request));
  json_builder_set_member_name (builder, "schema_name");
  json_builder_add_string_value (builder, anot_chat_request_get_json_schema_name (request) ? anot_chat_request_get_json_schema_name (request) : "");
  json_builder_set_member_name (builder, "schema");
  if (anot_chat_request_get_json_schema (request) != NULL)
    json_builder_add_value (builder, json_node_copy (anot_chat_request_get_json_schema (request)));
  else
    json_builder_add_null_value (builder);
  json_builder_end_object (builder);
  root = json_builder_get_root (builder);
  text = json_to_string (root, FALSE);
  return g_compute_checksum_for_string (G_CHECKSUM_SHA256, text, -1);
}

/* The key streamed into the hash is the key json-glib's text gave, for
 * random requests: every byte from 1 to 127 and UTF-8 in the messages,
 * texts of up to 5,000 bytes, every option set and unset, stop sequences
 * and a schema. */
static void
test_hash_unchanged (void)
{
  g_autoptr(GRand) rand = g_rand_new_with_seed (36);
  g_autoptr(JsonParser) parser = json_parser_new ();

  g_assert_true (json_parser_load_from_data (parser, "{\"type\": \"object\", \"properties\": {\"a\": {\"type\": \"string\", \"enum\": [\"x\\n\\u007f\"]}}}", -1, NULL));
  for (guint n = 0; n < 400; n++)
    {
      g_autoptr(AnotChatRequest) request = anot_chat_request_new (NULL, NULL);
      g_autofree char *key = NULL, *expected = NULL;
      guint n_messages = g_rand_int_range (rand, 0, 4);

      for (guint m = 0; m < n_messages; m++)
        {
          g_autoptr(GString) text = g_string_new (NULL);
          guint length = g_rand_int_range (rand, 0, m == 1 ? 5001 : 60);

          while (text->len < length)
            {
              guint pick = g_rand_int_range (rand, 0, 8);

              if (pick == 0)
                g_string_append_c (text, (char) g_rand_int_range (rand, 1, 128));
              else if (pick == 1)
                g_string_append (text, "\xc3\xa9\xe2\x80\x99\xf0\x9f\x98\x80");
              else
                g_string_append_c (text, "ab \"{}\n:"[g_rand_int_range (rand, 0, 8)]);
            }
          anot_chat_request_add_message (request, (AnotChatRole) g_rand_int_range (rand, 0, 3), text->str);
        }
      if (g_rand_boolean (rand))
        anot_chat_request_set_model (request, "gpt-4o-mini");
      if (g_rand_boolean (rand))
        anot_chat_request_set_temperature (request, g_rand_double_range (rand, 0, 2));
      if (g_rand_boolean (rand))
        anot_chat_request_set_top_p (request, 0.25);
      if (g_rand_boolean (rand))
        anot_chat_request_set_max_tokens (request, g_rand_int (rand));
      if (g_rand_boolean (rand))
        anot_chat_request_set_seed (request, (gint64) g_rand_int (rand) << 20);
      if (g_rand_boolean (rand))
        {
          const char *stop[] = { "\n\n", "END\t\"", NULL };

          anot_chat_request_set_stop (request, stop);
        }
      if (g_rand_int_range (rand, 0, 4) == 0)
        {
          anot_chat_request_set_response_format (request, ANOT_RESPONSE_FORMAT_JSON_SCHEMA);
          anot_chat_request_set_json_schema (request, "answer\x01", json_parser_get_root (parser));
        }

      key = anot_chat_request_hash (request, n % 2 == 0 ? "openai" : "back\\end");
      expected = reference_hash (request, n % 2 == 0 ? "openai" : "back\\end");
      g_assert_cmpstr (key, ==, expected);
    }
}

static gpointer
writer_thread (gpointer user_data)
{
  WriterData *data = user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(AnotResponseCache) cache = anot_response_cache_new (data->path, &error);

  if (cache == NULL)
    {
      data->failures++;
      return NULL;
    }
  for (guint i = data->first; i < data->first + data->count; i++)
    {
      g_autofree char *prompt = g_strdup_printf ("question %u", i);
      g_autoptr(AnotChatRequest) request = anot_chat_request_new (NULL, prompt);
      g_autofree char *key = anot_chat_request_hash (request, "openai");
      g_autoptr(AnotCompletion) completion = anot_completion_new ("m", prompt);
      g_autoptr(AnotCompletion) back = NULL;
      g_autoptr(GError) local_error = NULL;

      if (!anot_response_cache_store (cache, key, "openai", request, completion, &local_error))
        data->failures++;
      back = anot_response_cache_lookup (cache, key, &local_error);
      if (back == NULL || g_strcmp0 (anot_completion_get_text (back), prompt) != 0)
        data->failures++;
    }
  return NULL;
}

/* Two connections (as two processes would have) writing at once, with
 * overlapping keys: nothing fails, nothing is lost. */
static void
test_concurrent_writers (void)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *path = cache_path ("concurrent.sqlite");
  WriterData a = { path, 0, 300, 0 };
  WriterData b = { path, 150, 300, 0 };
  g_autoptr(AnotResponseCache) cache = NULL;
  GThread *ta, *tb;

  /* Create the file first, so both threads open an existing database. */
  cache = anot_response_cache_new (path, &error);
  g_assert_no_error (error);
  ta = g_thread_new ("writer-a", writer_thread, &a);
  tb = g_thread_new ("writer-b", writer_thread, &b);
  g_thread_join (ta);
  g_thread_join (tb);
  g_assert_cmpuint (a.failures, ==, 0);
  g_assert_cmpuint (b.failures, ==, 0);
  g_assert_cmpuint (anot_response_cache_get_n_entries (cache), ==, 450);
}

typedef struct
{
  AnotCompletion *completion;
  GError *error;
  gboolean done;
} Result;

static void
on_done (GObject      *source,
         GAsyncResult *result,
         gpointer      user_data)
{
  Result *r = user_data;

  r->completion = anot_backend_complete_finish (ANOT_BACKEND (source), result, &r->error);
  r->done = TRUE;
}

static AnotCompletion *
complete (AnotBackend     *backend,
          AnotChatRequest *request,
          GError         **error)
{
  Result r = { 0 };

  anot_backend_complete_async (backend, request, NULL, on_done, &r);
  while (!r.done)
    g_main_context_iteration (NULL, TRUE);
  if (r.error)
    g_propagate_error (error, r.error);
  return r.completion;
}

static void
test_cached_backend (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(AnotFakeLlm) server = anot_fake_llm_new ();
  g_autofree char *url = NULL;
  g_autofree char *path = cache_path ("backend.sqlite");
  g_autoptr(AnotResponseCache) cache = NULL;
  g_autoptr(AnotBackend) inner = NULL;
  g_autoptr(AnotBackend) cached = NULL;
  g_autoptr(AnotBackend) offline = NULL;
  g_autoptr(AnotChatRequest) request = anot_chat_request_new (NULL, "what is 2+2");
  g_autoptr(AnotChatRequest) other = anot_chat_request_new (NULL, "something new");
  g_autoptr(AnotCompletion) first = NULL;
  g_autoptr(AnotCompletion) second = NULL;
  g_autoptr(AnotCompletion) third = NULL;
  g_autoptr(AnotCompletion) miss = NULL;

  g_assert_true (anot_fake_llm_set_rules_json (server, "{\"rules\": [{\"match\": \"2\\\\+2\", "
                                               "\"reply\": \"4\"}]}", &error));
  g_assert_true (anot_fake_llm_start (server, 0, &error));
  g_assert_no_error (error);
  url = anot_fake_llm_get_openai_base_url (server);
  inner = anot_registry_create_backend (anot_registry_get_default (), "openai", &error);
  g_assert_no_error (error);
  g_object_set (inner, "base-url", url, "model", "m", NULL);
  cache = anot_response_cache_new (path, &error);
  g_assert_no_error (error);
  cached = anot_cached_backend_new (inner, "openai", cache, FALSE);

  first = complete (cached, request, &error);
  g_assert_no_error (error);
  g_assert_false (anot_completion_get_cached (first));
  g_assert_cmpuint (anot_fake_llm_get_n_requests (server), ==, 1);
  second = complete (cached, request, &error);
  g_assert_no_error (error);
  g_assert_true (anot_completion_get_cached (second));
  g_assert_cmpstr (anot_completion_get_text (second), ==, "4");
  g_assert_cmpuint (anot_completion_get_prompt_tokens (second), ==,
                    anot_completion_get_prompt_tokens (first));
  g_assert_cmpuint (anot_fake_llm_get_n_requests (server), ==, 1);

  /* Offline: hits still answer, a miss names the request and the role. */
  offline = anot_cached_backend_new (NULL, "openai", cache, TRUE);
  third = complete (offline, request, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (anot_completion_get_text (third), ==, "4");
  anot_chat_request_set_request_id (other, "R42");
  anot_chat_request_set_role (other, "planner");
  miss = complete (offline, other, &error);
  g_assert_null (miss);
  g_assert_error (error, ANOT_ERROR, ANOT_ERROR_CACHE_MISS);
  g_assert_nonnull (strstr (error->message, "request R42"));
  g_assert_nonnull (strstr (error->message, "role planner"));
  g_assert_cmpuint (anot_fake_llm_get_n_requests (server), ==, 1);
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);

  g_test_add_func ("/cache/hash", test_hash);
  g_test_add_func ("/cache/hash-unchanged", test_hash_unchanged);
  g_test_add_func ("/cache/store-and-lookup", test_store_and_lookup);
  g_test_add_func ("/cache/not-a-cache", test_not_a_cache);
  g_test_add_func ("/cache/concurrent-writers", test_concurrent_writers);
  g_test_add_func ("/cache/cached-backend", test_cached_backend);

  return g_test_run ();
}
