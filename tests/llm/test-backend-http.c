/* test-backend-http.c: the openai and anthropic backends over real HTTP,
 * against the fake LLM server
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <anot/anot.h>

#include "anot-fake-llm.h"
#include "anot-test-data.h"

#include <string.h>

#define TEST_KEY "sk-test-SECRET-0123456789"

typedef struct
{
  AnotFakeLlm *server;
  AnotBackend *backend;
  const char *api;            /* "openai" or "anthropic" */
} Fixture;

typedef struct
{
  guint pending;
  GPtrArray *completions;     /* AnotCompletion or NULL, in finishing order */
  GPtrArray *errors;          /* GError or NULL */
  gint64 finished_us;
} Calls;

static void
calls_init (Calls *calls)
{
  calls->pending = 0;
  calls->completions = g_ptr_array_new_with_free_func ((GDestroyNotify) g_object_unref);
  calls->errors = g_ptr_array_new_with_free_func ((GDestroyNotify) g_error_free);
}

static void
calls_clear (Calls *calls)
{
  g_ptr_array_unref (calls->completions);
  g_ptr_array_unref (calls->errors);
}

static void
on_complete (GObject      *source,
             GAsyncResult *result,
             gpointer      user_data)
{
  Calls *calls = user_data;
  GError *error = NULL;
  AnotCompletion *completion = anot_backend_complete_finish (ANOT_BACKEND (source), result, &error);

  if (completion != NULL)
    g_ptr_array_add (calls->completions, completion);
  if (error != NULL)
    g_ptr_array_add (calls->errors, error);
  calls->pending--;
  calls->finished_us = g_get_monotonic_time ();
}

static void
calls_start (Calls           *calls,
             AnotBackend     *backend,
             AnotChatRequest *request,
             GCancellable    *cancellable)
{
  calls->pending++;
  anot_backend_complete_async (backend, request, cancellable, on_complete, calls);
}

static void
calls_wait (Calls *calls)
{
  while (calls->pending > 0)
    g_main_context_iteration (NULL, TRUE);
}

/* One call, synchronously; returns the completion or sets @error. */
static AnotCompletion *
complete (AnotBackend     *backend,
          AnotChatRequest *request,
          GError         **error)
{
  Calls calls;
  AnotCompletion *completion = NULL;

  calls_init (&calls);
  calls_start (&calls, backend, request, NULL);
  calls_wait (&calls);
  if (calls.completions->len > 0)
    completion = g_object_ref (g_ptr_array_index (calls.completions, 0));
  else if (calls.errors->len > 0)
    g_propagate_error (error, g_error_copy (g_ptr_array_index (calls.errors, 0)));
  calls_clear (&calls);
  return completion;
}

static void
fixture_setup (Fixture       *fixture,
               gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *base_url = NULL;

  fixture->api = data;
  fixture->server = anot_fake_llm_new ();
  anot_fake_llm_set_api_key (fixture->server, TEST_KEY);
  g_assert_true (anot_fake_llm_start (fixture->server, 0, &error));
  g_assert_no_error (error);

  fixture->backend = anot_registry_create_backend (anot_registry_get_default (), fixture->api, &error);
  g_assert_no_error (error);
  g_assert_true (ANOT_IS_HTTP_BACKEND (fixture->backend));
  base_url = strcmp (fixture->api, "openai") == 0
             ? anot_fake_llm_get_openai_base_url (fixture->server)
             : g_strdup (anot_fake_llm_get_url (fixture->server));
  g_object_set (fixture->backend,
                "base-url", base_url,
                "api-key", TEST_KEY,
                "model", "fake-model",
                "retry-base-ms", 5,
                "retry-max-ms", 50,
                "timeout-ms", 5000,
                NULL);
}

static void
fixture_teardown (Fixture       *fixture,
                  gconstpointer  data)
{
  g_clear_object (&fixture->backend);
  g_clear_object (&fixture->server);
}

static void
set_rules (Fixture    *fixture,
           const char *json)
{
  g_autoptr(GError) error = NULL;

  g_assert_true (anot_fake_llm_set_rules_json (fixture->server, json, &error));
  g_assert_no_error (error);
}

static JsonObject *
last_record (Fixture *fixture)
{
  guint n = anot_fake_llm_get_n_requests (fixture->server);

  g_assert_cmpuint (n, >, 0);
  return anot_fake_llm_get_request (fixture->server, n - 1);
}

static JsonObject *
record_body (JsonObject *record)
{
  return json_object_get_object_member (record, "body");
}

static gboolean
is_openai (Fixture *fixture)
{
  return strcmp (fixture->api, "openai") == 0;
}

/* ------------------------------------------------------------------------ */

static void
test_wire_format (Fixture       *fixture,
                  gconstpointer  data)
{
  g_autoptr(AnotChatRequest) request = anot_chat_request_new ("You rank cafes.",
                                                              "Rank these: A, B, C");
  g_autoptr(AnotCompletion) completion = NULL;
  g_autoptr(GError) error = NULL;
  const char * const stop[] = { "END", NULL };
  JsonObject *record, *body, *headers;
  JsonArray *messages;

  set_rules (fixture, "{\"rules\": [{\"match\": \"Rank these: (.*)\", \"reply\": \"Order: \\\\1\"}]}");
  anot_chat_request_set_temperature (request, 0.0);
  anot_chat_request_set_max_tokens (request, 100);
  anot_chat_request_set_seed (request, 7);
  anot_chat_request_set_stop (request, stop);
  anot_chat_request_set_response_format (request, ANOT_RESPONSE_FORMAT_JSON_OBJECT);
  anot_chat_request_set_request_id (request, "R01");
  anot_chat_request_set_role (request, "planner");

  completion = complete (fixture->backend, request, &error);
  g_assert_no_error (error);
  g_assert_nonnull (completion);

  record = last_record (fixture);
  body = record_body (record);
  headers = json_object_get_object_member (record, "headers");
  g_assert_cmpstr (json_object_get_string_member (record, "method"), ==, "POST");
  g_assert_cmpstr (json_object_get_string_member (body, "model"), ==, "fake-model");
  g_assert_cmpfloat (json_object_get_double_member (body, "temperature"), ==, 0.0);
  /* Bookkeeping is not sent. */
  g_assert_false (json_object_has_member (body, "role"));
  g_assert_false (json_object_has_member (body, "request_id"));
  messages = json_object_get_array_member (body, "messages");

  if (is_openai (fixture))
    {
      JsonObject *format = json_object_get_object_member (body, "response_format");

      g_assert_cmpstr (json_object_get_string_member (record, "path"), ==, "/v1/chat/completions");
      g_assert_cmpstr (json_object_get_string_member (headers, "authorization"), ==, "[redacted]");
      g_assert_cmpuint (json_array_get_length (messages), ==, 2);
      g_assert_cmpstr (json_object_get_string_member (json_array_get_object_element (messages, 0), "role"),
                       ==, "system");
      g_assert_cmpstr (json_object_get_string_member (json_array_get_object_element (messages, 0), "content"),
                       ==, "You rank cafes.");
      g_assert_cmpint (json_object_get_int_member (body, "max_tokens"), ==, 100);
      g_assert_cmpint (json_object_get_int_member (body, "seed"), ==, 7);
      g_assert_cmpstr (json_array_get_string_element (json_object_get_array_member (body, "stop"), 0),
                       ==, "END");
      g_assert_cmpstr (json_object_get_string_member (format, "type"), ==, "json_object");
      g_assert_cmpstr (anot_completion_get_finish_reason (completion), ==, "stop");
    }
  else
    {
      const char *system = json_object_get_string_member (body, "system");

      g_assert_cmpstr (json_object_get_string_member (record, "path"), ==, "/v1/messages");
      g_assert_cmpstr (json_object_get_string_member (headers, "x-api-key"), ==, "[redacted]");
      g_assert_cmpstr (json_object_get_string_member (headers, "anthropic-version"), ==, "2023-06-01");
      /* The system prompt is top-level, with the JSON instruction. */
      g_assert_true (g_str_has_prefix (system, "You rank cafes.\n\n"));
      g_assert_nonnull (strstr (system, "JSON object"));
      g_assert_cmpuint (json_array_get_length (messages), ==, 1);
      g_assert_cmpstr (json_object_get_string_member (json_array_get_object_element (messages, 0), "role"),
                       ==, "user");
      g_assert_cmpint (json_object_get_int_member (body, "max_tokens"), ==, 100);
      g_assert_false (json_object_has_member (body, "seed"));
      g_assert_cmpstr (json_array_get_string_element (json_object_get_array_member (body, "stop_sequences"), 0),
                       ==, "END");
      g_assert_cmpstr (anot_completion_get_finish_reason (completion), ==, "end_turn");
    }

  g_assert_cmpstr (anot_completion_get_text (completion), ==, "Order: A, B, C");
  g_assert_cmpstr (anot_completion_get_model (completion), ==, "fake-model");
  /* The provider's counts, which the server computed independently. */
  g_assert_cmpuint (anot_completion_get_prompt_tokens (completion), ==,
                    json_object_get_int_member (record, "prompt_tokens"));
  g_assert_cmpuint (anot_completion_get_prompt_tokens (completion), >, 0);
  g_assert_cmpuint (anot_completion_get_completion_tokens (completion), ==,
                    anot_fake_llm_count_tokens ("Order: A, B, C"));
  g_assert_cmpuint (anot_completion_get_retries (completion), ==, 0);
  g_assert_cmpfloat (anot_completion_get_latency_ms (completion), >, 0.0);
}

static void
test_openai_reasoning_model (Fixture       *fixture,
                             gconstpointer  data)
{
  g_autoptr(AnotChatRequest) request = anot_chat_request_new (NULL, "hello");
  g_autoptr(AnotCompletion) completion = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) schema = json_from_string ("{\"type\": \"object\", \"properties\": "
                                                 "{\"best\": {\"type\": \"integer\"}}}", NULL);
  JsonObject *body, *format;

  anot_chat_request_set_model (request, "gpt-5-nano");
  anot_chat_request_set_temperature (request, 0.0);
  anot_chat_request_set_top_p (request, 0.5);
  anot_chat_request_set_max_tokens (request, 300);
  anot_chat_request_set_json_schema (request, "ranking", schema);
  completion = complete (fixture->backend, request, &error);
  g_assert_no_error (error);

  body = record_body (last_record (fixture));
  g_assert_cmpstr (json_object_get_string_member (body, "model"), ==, "gpt-5-nano");
  g_assert_false (json_object_has_member (body, "temperature"));
  g_assert_false (json_object_has_member (body, "top_p"));
  g_assert_false (json_object_has_member (body, "max_tokens"));
  g_assert_cmpint (json_object_get_int_member (body, "max_completion_tokens"), ==, 300);
  format = json_object_get_object_member (body, "response_format");
  g_assert_cmpstr (json_object_get_string_member (format, "type"), ==, "json_schema");
  g_assert_cmpstr (json_object_get_string_member (json_object_get_object_member (format, "json_schema"),
                                                  "name"), ==, "ranking");
  g_assert_true (json_object_has_member (json_object_get_object_member (format, "json_schema"), "schema"));
}

/* Every fault the server injects is retried, and the retry is counted. */
static void
test_faults_are_retried (Fixture       *fixture,
                         gconstpointer  data)
{
  static const char * const faults[] = { "429", "500", "503", "malformed", "close", "slow" };

  anot_http_backend_set_timeout_ms (ANOT_HTTP_BACKEND (fixture->backend), 200);
  /* One connection at a time: an attempt that failed mid-answer (closed,
   * timed out) must give its connection slot back, or the retry waits. */
  anot_http_backend_set_max_concurrency (ANOT_HTTP_BACKEND (fixture->backend), 1);
  for (guint i = 0; i < G_N_ELEMENTS (faults); i++)
    {
      g_autofree char *rules = g_strdup_printf ("{\"retry_after\": \"0\", \"slow_ms\": 2000, "
                                                "\"rules\": [{\"match\": \"go\", \"reply\": \"fine\", "
                                                "\"fault\": \"%s\", \"times\": 2}]}", faults[i]);
      g_autoptr(AnotChatRequest) request = anot_chat_request_new (NULL, "go");
      g_autoptr(AnotCompletion) completion = NULL;
      g_autoptr(GError) error = NULL;
      guint n_before;

      g_test_message ("fault %s", faults[i]);
      set_rules (fixture, rules);
      n_before = anot_fake_llm_get_n_requests (fixture->server);
      completion = complete (fixture->backend, request, &error);
      g_assert_no_error (error);
      g_assert_cmpstr (anot_completion_get_text (completion), ==, "fine");
      g_assert_cmpuint (anot_completion_get_retries (completion), ==, 2);
      g_assert_cmpuint (anot_fake_llm_get_n_requests (fixture->server) - n_before, ==, 3);
    }
  g_assert_cmpuint (anot_http_backend_get_n_retries (ANOT_HTTP_BACKEND (fixture->backend)), ==,
                    2 * G_N_ELEMENTS (faults));
}

static void
test_retries_exhausted (Fixture       *fixture,
                        gconstpointer  data)
{
  g_autoptr(AnotChatRequest) request = anot_chat_request_new (NULL, "go");
  g_autoptr(AnotCompletion) completion = NULL;
  g_autoptr(GError) error = NULL;

  set_rules (fixture, "{\"rules\": [{\"match\": \"go\", \"fault\": \"503\", "
                      "\"error\": \"Overloaded right now\"}]}");
  anot_http_backend_set_max_retries (ANOT_HTTP_BACKEND (fixture->backend), 2);
  completion = complete (fixture->backend, request, &error);
  g_assert_null (completion);
  g_assert_error (error, ANOT_ERROR, ANOT_ERROR_LLM_SERVER);
  g_assert_nonnull (strstr (error->message, "After 3 attempts"));
  g_assert_nonnull (strstr (error->message, "Overloaded right now"));
  g_assert_cmpuint (anot_fake_llm_get_n_requests (fixture->server), ==, 3);
}

static void
test_auth_not_retried (Fixture       *fixture,
                       gconstpointer  data)
{
  g_autoptr(AnotChatRequest) request = anot_chat_request_new (NULL, "go");
  g_autoptr(AnotCompletion) completion = NULL;
  g_autoptr(GError) error = NULL;

  anot_http_backend_set_api_key (ANOT_HTTP_BACKEND (fixture->backend), "sk-wrong-key-XYZ");
  completion = complete (fixture->backend, request, &error);
  g_assert_null (completion);
  g_assert_error (error, ANOT_ERROR, ANOT_ERROR_LLM_AUTH);
  g_assert_cmpuint (anot_fake_llm_get_n_requests (fixture->server), ==, 1);
  g_assert_nonnull (strstr (error->message, "401"));
  g_assert_nonnull (strstr (error->message, is_openai (fixture) ? "OPENAI_API_KEY"
                                                                : "ANTHROPIC_API_KEY"));
  g_assert_nonnull (strstr (error->message, is_openai (fixture) ? "[backend openai]"
                                                                : "[backend anthropic]"));
  g_assert_null (strstr (error->message, "sk-wrong"));

  /* Without any key, the message says so. */
  g_clear_error (&error);
  anot_http_backend_set_api_key (ANOT_HTTP_BACKEND (fixture->backend), NULL);
  g_clear_object (&completion);
  completion = complete (fixture->backend, request, &error);
  g_assert_error (error, ANOT_ERROR, ANOT_ERROR_LLM_AUTH);
  g_assert_nonnull (strstr (error->message, "none is configured"));
  g_assert_cmpuint (anot_fake_llm_get_n_requests (fixture->server), ==, 2);
}

static void
test_bad_request_message (Fixture       *fixture,
                          gconstpointer  data)
{
  g_autoptr(AnotChatRequest) request = anot_chat_request_new (NULL, "go");
  g_autoptr(AnotCompletion) completion = NULL;
  g_autoptr(GError) error = NULL;

  set_rules (fixture, "{\"rules\": [{\"match\": \"go\", \"fault\": \"400\", "
                      "\"error\": \"This model's maximum context length is 8192 tokens\"}]}");
  completion = complete (fixture->backend, request, &error);
  g_assert_error (error, ANOT_ERROR, ANOT_ERROR_LLM_BAD_REQUEST);
  g_assert_nonnull (strstr (error->message, "maximum context length is 8192 tokens"));
  g_assert_cmpuint (anot_fake_llm_get_n_requests (fixture->server), ==, 1);
}

static void
test_empty_and_refused (Fixture       *fixture,
                        gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(AnotCompletion) completion = NULL;
  g_autoptr(AnotChatRequest) empty = anot_chat_request_new (NULL, "empty please");
  g_autoptr(AnotChatRequest) refuse = anot_chat_request_new (NULL, "refuse please");
  g_autoptr(AnotChatRequest) cut = anot_chat_request_new (NULL, "long please");

  set_rules (fixture, "{\"rules\": [{\"match\": \"empty\", \"fault\": \"empty\"},"
                      " {\"match\": \"refuse\", \"fault\": \"refusal\", \"reply\": \"I cannot help.\"},"
                      " {\"match\": \"long\", \"fault\": \"empty\", \"finish_reason\": \"length\"}]}");
  completion = complete (fixture->backend, empty, &error);
  g_assert_error (error, ANOT_ERROR, ANOT_ERROR_LLM_EMPTY);
  g_assert_cmpuint (anot_fake_llm_get_n_requests (fixture->server), ==, 1);
  g_clear_error (&error);

  completion = complete (fixture->backend, refuse, &error);
  g_assert_error (error, ANOT_ERROR, ANOT_ERROR_LLM_REFUSED);
  if (is_openai (fixture))
    g_assert_nonnull (strstr (error->message, "I cannot help."));
  g_assert_cmpuint (anot_fake_llm_get_n_requests (fixture->server), ==, 2);
  g_clear_error (&error);

  completion = complete (fixture->backend, cut, &error);
  g_assert_error (error, ANOT_ERROR, ANOT_ERROR_LLM_EMPTY);
  g_assert_nonnull (strstr (error->message, "raise max_tokens"));
}

/* \u0000 and lone surrogate escapes are valid JSON (RFC 8259) a model may
 * emit: the answer is accepted at once, each read as U+FFFD and counted,
 * instead of "not valid JSON" and six retries. */
static void
test_odd_escapes_accepted (Fixture       *fixture,
                           gconstpointer  data)
{
  static const struct { const char *reply; const char *text; guint replaced; } cases[] = {
    /* Written \\u in a reply, which expands references like \1. */
    { "[3, 1]\\\\\\\\u0000", "[3, 1]\xef\xbf\xbd", 1 },
    { "a\\\\\\\\ud800b", "a\xef\xbf\xbd" "b", 1 },
    { "a\\\\\\\\udc00\\\\\\\\ud83d\\\\\\\\ude00\\\\\\\\ud800\\\\\\\\u0041",
      "a\xef\xbf\xbd\xf0\x9f\x98\x80\xef\xbf\xbd" "A", 2 },
    { "plain", "plain", 0 },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(AnotCompletion) completion = NULL;
      g_autoptr(AnotChatRequest) request = anot_chat_request_new (NULL, "odd");
      g_autofree char *rules = g_strdup_printf ("{\"rules\": [{\"match\": \"odd\", \"fault\": \"escapes\","
                                                " \"reply\": \"%s\"}]}", cases[i].reply);

      set_rules (fixture, rules);
      completion = complete (fixture->backend, request, &error);
      g_assert_no_error (error);
      g_assert_cmpstr (anot_completion_get_text (completion), ==, cases[i].text);
      g_assert_cmpuint (anot_completion_get_replaced_characters (completion), ==, cases[i].replaced);
      g_assert_cmpuint (anot_completion_get_retries (completion), ==, 0);
      g_assert_cmpuint (anot_fake_llm_get_n_requests (fixture->server), ==, i + 1);
    }

  /* A dataset file keeps refusing them. */
  {
    g_autoptr(GError) error = NULL;
    g_autoptr(AnotJsonDocument) doc = anot_json_document_new_from_data ("\"a\\u0000\"", -1, &error);

    g_assert_null (doc);
    g_assert_nonnull (strstr (error->message, "\\u0000"));
    g_clear_error (&error);
    doc = anot_json_document_new_from_data ("\"a\\ud800\"", -1, &error);
    g_assert_null (doc);
    g_assert_nonnull (strstr (error->message, "unpaired surrogate"));
  }
}

/* The measured wait between the 429 and the retry is what the server
 * asked for, not the (much shorter) backoff. */
static void
test_retry_after_honoured (Fixture       *fixture,
                           gconstpointer  data)
{
  static const struct { const char *rule; double at_least_ms; } cases[] = {
    { "\"retry_after\": \"1\"", 1000 },
    { "\"retry_after_ms\": \"300\"", 300 },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *rules = g_strdup_printf ("{\"rules\": [{\"match\": \"go\", \"fault\": \"429\", "
                                                "\"times\": 1, %s}]}", cases[i].rule);
      g_autoptr(AnotChatRequest) request = anot_chat_request_new (NULL, "go");
      g_autoptr(AnotCompletion) completion = NULL;
      g_autoptr(GError) error = NULL;
      guint n;
      double gap;

      set_rules (fixture, rules);
      anot_fake_llm_clear_requests (fixture->server);
      completion = complete (fixture->backend, request, &error);
      g_assert_no_error (error);
      g_assert_cmpuint (anot_completion_get_retries (completion), ==, 1);
      n = anot_fake_llm_get_n_requests (fixture->server);
      g_assert_cmpuint (n, ==, 2);
      gap = json_object_get_double_member (anot_fake_llm_get_request (fixture->server, 1), "time_ms") -
            json_object_get_double_member (anot_fake_llm_get_request (fixture->server, 0), "time_ms");
      g_test_message ("%s: retried after %.1f ms", cases[i].rule, gap);
      g_assert_cmpfloat (gap, >=, cases[i].at_least_ms - 1);
      g_assert_cmpfloat (gap, <, cases[i].at_least_ms + 500);
    }
}

static void
test_concurrency_bound (Fixture       *fixture,
                        gconstpointer  data)
{
  Calls calls;

  /* Long enough for all four to reach the server, even under ASan. */
  set_rules (fixture, "{\"latency_ms\": 150}");
  anot_http_backend_set_max_concurrency (ANOT_HTTP_BACKEND (fixture->backend), 4);
  calls_init (&calls);
  for (guint i = 0; i < 20; i++)
    {
      g_autofree char *prompt = g_strdup_printf ("call %u", i);
      g_autoptr(AnotChatRequest) request = anot_chat_request_new (NULL, prompt);

      calls_start (&calls, fixture->backend, request, NULL);
    }
  g_assert_cmpuint (anot_http_backend_get_n_in_flight (ANOT_HTTP_BACKEND (fixture->backend)), ==, 4);
  g_assert_cmpuint (anot_http_backend_get_n_queued (ANOT_HTTP_BACKEND (fixture->backend)), ==, 16);
  calls_wait (&calls);
  g_assert_cmpuint (calls.completions->len, ==, 20);
  g_assert_cmpuint (anot_fake_llm_get_n_requests (fixture->server), ==, 20);
  /* Observed at the server. */
  g_assert_cmpuint (anot_fake_llm_get_peak_in_flight (fixture->server), ==, 4);
  calls_clear (&calls);
}

/* A queued call keeps its request, not a body written from it: with
 * thousands of calls queued (anot at N = 50, -j 32) the bodies were a
 * quarter of the heap.  Forty calls of one 1 MB request, one slot: the
 * heap grows by far less than forty bodies. */
static void
test_queued_calls_hold_no_body (Fixture       *fixture,
                                gconstpointer  data)
{
#ifdef __SANITIZE_ADDRESS__
  g_test_skip ("mallinfo2() does not see AddressSanitizer's heap");
#else
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  g_autofree char *prompt = g_strnfill (1024 * 1024, 'a');
  g_autoptr(AnotChatRequest) request = anot_chat_request_new (NULL, prompt);
  Calls calls;
  size_t before, after;

  set_rules (fixture, "{\"latency_ms\": 3000}");
  anot_http_backend_set_max_concurrency (ANOT_HTTP_BACKEND (fixture->backend), 1);
  calls_init (&calls);
  before = anot_test_heap_in_use ();
  for (guint i = 0; i < 40; i++)
    calls_start (&calls, fixture->backend, request, cancellable);
  after = anot_test_heap_in_use ();
  g_test_message ("heap: %zu bytes more with 40 calls queued", after - before);
  g_assert_cmpuint (anot_http_backend_get_n_queued (ANOT_HTTP_BACKEND (fixture->backend)), ==, 39);
  g_assert_cmpuint (after - before, <, 4 * 1024 * 1024);
  g_cancellable_cancel (cancellable);
  calls_wait (&calls);
  g_assert_cmpuint (calls.errors->len, ==, 40);
  calls_clear (&calls);
#endif
}

/* One slot: calls of two requests alternate instead of all of the first
 * request going first. */
static void
test_fair_queue (Fixture       *fixture,
                 gconstpointer  data)
{
  Calls calls;
  g_autoptr(GString) order = g_string_new (NULL);

  anot_http_backend_set_max_concurrency (ANOT_HTTP_BACKEND (fixture->backend), 1);
  calls_init (&calls);
  for (guint r = 0; r < 2; r++)
    for (guint i = 0; i < 4; i++)
      {
        g_autofree char *prompt = g_strdup_printf ("%c%u", 'A' + r, i);
        g_autoptr(AnotChatRequest) request = anot_chat_request_new (NULL, prompt);

        anot_chat_request_set_request_id (request, r == 0 ? "R01" : "R02");
        calls_start (&calls, fixture->backend, request, NULL);
      }
  calls_wait (&calls);
  for (guint i = 0; i < anot_fake_llm_get_n_requests (fixture->server); i++)
    g_string_append_printf (order, "%s ", json_object_get_string_member (anot_fake_llm_get_request (fixture->server, i),
                                                                         "last_user"));
  /* A0 starts at once; then the two requests take turns (R01 queued
   * first), rather than A1..A3 all going before B0. */
  g_assert_cmpstr (order->str, ==, "A0 A1 B0 A2 B1 A3 B2 B3 ");
  calls_clear (&calls);
}

static gboolean
cancel_cb (gpointer user_data)
{
  g_cancellable_cancel (user_data);
  return G_SOURCE_REMOVE;
}

static void
test_cancellation (Fixture       *fixture,
                   gconstpointer  data)
{
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  Calls calls;
  gint64 start;

  /* Answers in 30 s, a retry in 60 s: ending well before says every call
   * was cancelled, with margins no load reaches (checked 20/20 beside two
   * busy loops). */
  set_rules (fixture, "{\"rules\": [{\"match\": \"slow\", \"latency_ms\": 30000},"
                      " {\"match\": \"busy\", \"fault\": \"429\", \"retry_after\": \"60\"}]}");
  anot_http_backend_set_max_concurrency (ANOT_HTTP_BACKEND (fixture->backend), 2);
  calls_init (&calls);
  start = g_get_monotonic_time ();
  /* One waiting to retry, one on the wire, two queued. */
  {
    g_autoptr(AnotChatRequest) busy = anot_chat_request_new (NULL, "busy");
    calls_start (&calls, fixture->backend, busy, cancellable);
  }
  for (guint i = 0; i < 3; i++)
    {
      g_autoptr(AnotChatRequest) request = anot_chat_request_new (NULL, "slow");

      calls_start (&calls, fixture->backend, request, cancellable);
    }
  g_timeout_add (100, cancel_cb, cancellable);
  calls_wait (&calls);

  g_assert_cmpint (g_get_monotonic_time () - start, <, 15 * G_USEC_PER_SEC);
  g_assert_cmpuint (calls.completions->len, ==, 0);
  g_assert_cmpuint (calls.errors->len, ==, 4);
  for (guint i = 0; i < calls.errors->len; i++)
    g_assert_error ((GError *) g_ptr_array_index (calls.errors, i), G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_assert_cmpuint (anot_http_backend_get_n_in_flight (ANOT_HTTP_BACKEND (fixture->backend)), ==, 0);
  g_assert_cmpuint (anot_http_backend_get_n_queued (ANOT_HTTP_BACKEND (fixture->backend)), ==, 0);
  /* The queued calls never reached the server. */
  g_assert_cmpuint (anot_fake_llm_get_n_requests (fixture->server), ==, 2);
  calls_clear (&calls);

  /* An already cancelled call fails at once. */
  {
    g_autoptr(AnotChatRequest) request = anot_chat_request_new (NULL, "x");
    g_autoptr(GError) error = NULL;
    Calls again;

    calls_init (&again);
    calls_start (&again, fixture->backend, request, cancellable);
    calls_wait (&again);
    g_assert_error ((GError *) g_ptr_array_index (again.errors, 0), G_IO_ERROR, G_IO_ERROR_CANCELLED);
    calls_clear (&again);
  }
  g_assert_cmpuint (anot_fake_llm_get_n_requests (fixture->server), ==, 2);
}

static void
test_connection_refused (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(AnotBackend) backend = anot_registry_create_backend (anot_registry_get_default (),
                                                                 "openai", &error);
  g_autoptr(GSocketListener) listener = g_socket_listener_new ();
  g_autoptr(AnotChatRequest) request = anot_chat_request_new (NULL, "hi");
  g_autoptr(AnotCompletion) completion = NULL;
  g_autofree char *url = NULL;
  guint16 port;

  /* A port that was free a moment ago. */
  port = g_socket_listener_add_any_inet_port (listener, NULL, &error);
  g_assert_no_error (error);
  g_socket_listener_close (listener);
  url = g_strdup_printf ("http://127.0.0.1:%u/v1", port);
  g_object_set (backend, "base-url", url, "max-retries", 1, "retry-base-ms", 5, NULL);

  completion = complete (backend, request, &error);
  g_assert_error (error, ANOT_ERROR, ANOT_ERROR_LLM_CONNECTION);
  g_assert_nonnull (strstr (error->message, "After 2 attempts"));
  g_assert_nonnull (strstr (error->message, url));
}

static void
test_invalid_base_url (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(AnotBackend) backend = anot_registry_create_backend (anot_registry_get_default (),
                                                                 "anthropic", &error);
  g_autoptr(AnotChatRequest) request = anot_chat_request_new (NULL, "hi");
  g_autoptr(AnotCompletion) completion = NULL;

  g_object_set (backend, "base-url", "localhost:8000", NULL);
  completion = complete (backend, request, &error);
  g_assert_error (error, ANOT_ERROR, ANOT_ERROR_CONFIG);
  g_assert_nonnull (strstr (error->message, "localhost:8000"));
}

int
main (int    argc,
      char **argv)
{
  static const char * const apis[] = { "openai", "anthropic" };

  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);

  for (guint i = 0; i < G_N_ELEMENTS (apis); i++)
    {
#define ADD(name, func) \
      { \
        g_autofree char *path = g_strdup_printf ("/backend-http/%s/" name, apis[i]); \
        g_test_add (path, Fixture, apis[i], fixture_setup, func, fixture_teardown); \
      }
      ADD ("wire-format", test_wire_format);
      ADD ("faults-are-retried", test_faults_are_retried);
      ADD ("retries-exhausted", test_retries_exhausted);
      ADD ("auth-not-retried", test_auth_not_retried);
      ADD ("bad-request-message", test_bad_request_message);
      ADD ("empty-and-refused", test_empty_and_refused);
      ADD ("odd-escapes-accepted", test_odd_escapes_accepted);
      ADD ("retry-after-honoured", test_retry_after_honoured);
      ADD ("concurrency-bound", test_concurrency_bound);
      ADD ("fair-queue", test_fair_queue);
      ADD ("queued-calls-hold-no-body", test_queued_calls_hold_no_body);
      ADD ("cancellation", test_cancellation);
#undef ADD
    }
  g_test_add ("/backend-http/openai/reasoning-model", Fixture, "openai",
              fixture_setup, test_openai_reasoning_model, fixture_teardown);
  g_test_add_func ("/backend-http/connection-refused", test_connection_refused);
  g_test_add_func ("/backend-http/invalid-base-url", test_invalid_base_url);

  return g_test_run ();
}
