/* test-batch-queue.c: calls sent through OpenAI's Batch API and Anthropic's
 * Message Batches, against the fake LLM server
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <anot/anot.h>

#include "anot-fake-llm.h"

#include <glib/gstdio.h>
#include <string.h>

typedef struct
{
  AnotFakeLlm *server;
  AnotBackend *backend;
  AnotBatchQueue *queue;
  const char *api;
  char *dir;
} Fixture;

typedef struct
{
  guint pending;
  GPtrArray *texts;          /* char*: the reply, or "ERROR <code>: <message>" */
  GPtrArray *completions;    /* AnotCompletion */
} Calls;

#define RULES \
  "{\"rules\": [" \
  "  {\"match\": \"^ECHO (\\\\w+)\", \"reply\": \"\\\\1\"}," \
  "  {\"match\": \"^BAD\", \"fault\": \"400\", \"error\": \"prompt is too long\"}," \
  "  {\"match\": \"^FLAKY\", \"fault\": \"500\", \"times\": 1, \"reply\": \"steady\"}" \
  "]%s}"

static void
set_rules (Fixture    *fixture,
           const char *batch_config)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *extra = batch_config ? g_strdup_printf (", \"batch\": %s", batch_config) : g_strdup ("");
  g_autofree char *json = g_strdup_printf (RULES, extra);

  g_assert_true (anot_fake_llm_set_rules_json (fixture->server, json, &error));
  g_assert_no_error (error);
}

static AnotBackend *
backend_new (Fixture *fixture)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *base_url = NULL;
  AnotBackend *backend = anot_registry_create_backend (anot_registry_get_default (), fixture->api, &error);

  g_assert_no_error (error);
  base_url = strcmp (fixture->api, "openai") == 0
             ? anot_fake_llm_get_openai_base_url (fixture->server)
             : g_strdup (anot_fake_llm_get_url (fixture->server));
  g_object_set (backend, "base-url", base_url, "model", "fake-model",
                "retry-base-ms", 1, "retry-max-ms", 5, "max-retries", 2, NULL);
  return backend;
}

static void
fixture_setup (Fixture       *fixture,
               gconstpointer  data)
{
  g_autoptr(GError) error = NULL;

  fixture->api = data;
  fixture->server = anot_fake_llm_new ();
  g_assert_true (anot_fake_llm_start (fixture->server, 0, &error));
  g_assert_no_error (error);
  set_rules (fixture, NULL);
  fixture->backend = backend_new (fixture);
  fixture->queue = anot_batch_queue_new ();
  g_object_set (fixture->queue, "settle-ms", 20, "poll-min-ms", 5, "poll-max-ms", 40, NULL);
  anot_http_backend_set_batch_queue (ANOT_HTTP_BACKEND (fixture->backend), fixture->queue);
  fixture->dir = g_dir_make_tmp ("anot-batch-XXXXXX", &error);
  g_assert_no_error (error);
}

static void
fixture_teardown (Fixture       *fixture,
                  gconstpointer  data)
{
  g_autofree char *state = g_build_filename (fixture->dir, "batches.jsonl", NULL);

  g_unlink (state);
  g_rmdir (fixture->dir);
  g_free (fixture->dir);
  g_clear_object (&fixture->backend);
  g_clear_object (&fixture->queue);
  g_clear_object (&fixture->server);
}

static void
calls_init (Calls *calls)
{
  calls->pending = 0;
  calls->texts = g_ptr_array_new_with_free_func (g_free);
  calls->completions = g_ptr_array_new_with_free_func (g_object_unref);
}

static void
calls_clear (Calls *calls)
{
  g_ptr_array_unref (calls->texts);
  g_ptr_array_unref (calls->completions);
}

typedef struct
{
  Calls *calls;
  guint index;
} Slot;

static void
on_complete (GObject      *source,
             GAsyncResult *result,
             gpointer      user_data)
{
  Slot *slot = user_data;
  g_autoptr(GError) error = NULL;
  AnotCompletion *completion = anot_backend_complete_finish (ANOT_BACKEND (source), result, &error);

  g_free (slot->calls->texts->pdata[slot->index]);
  if (completion != NULL)
    {
      slot->calls->texts->pdata[slot->index] = g_strdup (anot_completion_get_text (completion));
      g_ptr_array_add (slot->calls->completions, completion);
    }
  else
    slot->calls->texts->pdata[slot->index] = g_strdup_printf ("ERROR %d: %s", error->code, error->message);
  slot->calls->pending--;
  g_free (slot);
}

static void
call (Calls        *calls,
      AnotBackend  *backend,
      const char   *prompt,
      GCancellable *cancellable)
{
  g_autoptr(AnotChatRequest) request = anot_chat_request_new (NULL, prompt);
  Slot *slot = g_new0 (Slot, 1);

  anot_chat_request_set_max_tokens (request, 64);
  slot->calls = calls;
  slot->index = calls->texts->len;
  g_ptr_array_add (calls->texts, g_strdup ("PENDING"));
  calls->pending++;
  anot_backend_complete_async (backend, request, cancellable, on_complete, slot);
}

static void
calls_wait (Calls *calls)
{
  while (calls->pending > 0)
    g_main_context_iteration (NULL, TRUE);
}

static guint
count_requests (AnotFakeLlm *server,
                const char  *method,
                const char  *path_prefix)
{
  guint n = 0;

  for (guint i = 0; i < anot_fake_llm_get_n_requests (server); i++)
    {
      JsonObject *record = anot_fake_llm_get_request (server, i);

      const char *path = json_object_get_string_member (record, "path");

      /* A prefix ending in '/' matches the paths below it, any other
       * only itself. */
      if (strcmp (json_object_get_string_member (record, "method"), method) == 0 &&
          (g_str_has_suffix (path_prefix, "/") ? g_str_has_prefix (path, path_prefix)
                                               : strcmp (path, path_prefix) == 0))
        n++;
    }
  return n;
}

static const char *
chat_path (Fixture *fixture)
{
  return strcmp (fixture->api, "openai") == 0 ? "/v1/chat/completions" : "/v1/messages";
}

static const char *
create_path (Fixture *fixture)
{
  return strcmp (fixture->api, "openai") == 0 ? "/v1/batches" : "/v1/messages/batches";
}

static guint
count_creates (Fixture *fixture)
{
  guint n = 0;

  for (guint i = 0; i < anot_fake_llm_get_n_requests (fixture->server); i++)
    {
      JsonObject *record = anot_fake_llm_get_request (fixture->server, i);

      if (strcmp (json_object_get_string_member (record, "method"), "POST") == 0 &&
          strcmp (json_object_get_string_member (record, "path"), create_path (fixture)) == 0)
        n++;
    }
  return n;
}

/* Five calls in flight at once make one batch; each is answered with its
 * own line, usage and the batch's id, and nothing goes to the chat
 * endpoint. */
static void
test_one_batch (Fixture       *fixture,
                gconstpointer  data)
{
  Calls calls;
  JsonObject *batch;

  calls_init (&calls);
  for (guint i = 0; i < 5; i++)
    {
      g_autofree char *prompt = g_strdup_printf ("ECHO word%u", i);

      call (&calls, fixture->backend, prompt, NULL);
    }
  calls_wait (&calls);

  for (guint i = 0; i < 5; i++)
    {
      g_autofree char *expected = g_strdup_printf ("word%u", i);

      g_assert_cmpstr (g_ptr_array_index (calls.texts, i), ==, expected);
    }
  g_assert_cmpuint (anot_fake_llm_get_n_batches (fixture->server), ==, 1);
  batch = anot_fake_llm_get_batch (fixture->server, 0);
  g_assert_cmpint (json_object_get_int_member (batch, "n_lines"), ==, 5);
  g_assert_cmpstr (json_object_get_string_member (batch, "model"), ==, "fake-model");
  g_assert_cmpstr (json_object_get_string_member (batch, "status"), ==, "completed");
  g_assert_cmpuint (count_requests (fixture->server, "POST", chat_path (fixture)), ==, 0);
  g_assert_cmpuint (anot_fake_llm_get_n_batch_lines (fixture->server), ==, 5);
  for (guint i = 0; i < calls.completions->len; i++)
    {
      AnotCompletion *completion = g_ptr_array_index (calls.completions, i);

      g_assert_cmpstr (anot_completion_get_batch_id (completion), ==,
                       json_object_get_string_member (batch, "id"));
      /* "ECHO wordN" is 10 bytes: 3 tokens by the server's count. */
      g_assert_cmpuint (anot_completion_get_prompt_tokens (completion), ==, 3);
      g_assert_cmpuint (anot_completion_get_completion_tokens (completion), ==, 2);
    }
  g_assert_cmpuint (anot_batch_queue_get_n_submitted (fixture->queue), ==, 1);
  g_assert_cmpuint (anot_batch_queue_get_n_waiting (fixture->queue), ==, 0);
  calls_clear (&calls);
}

/* The same call made three times is one line. */
static void
test_identical_calls_share_a_line (Fixture       *fixture,
                                   gconstpointer  data)
{
  Calls calls;

  calls_init (&calls);
  call (&calls, fixture->backend, "ECHO same", NULL);
  call (&calls, fixture->backend, "ECHO same", NULL);
  call (&calls, fixture->backend, "ECHO other", NULL);
  call (&calls, fixture->backend, "ECHO same", NULL);
  calls_wait (&calls);

  g_assert_cmpstr (g_ptr_array_index (calls.texts, 0), ==, "same");
  g_assert_cmpstr (g_ptr_array_index (calls.texts, 3), ==, "same");
  g_assert_cmpstr (g_ptr_array_index (calls.texts, 2), ==, "other");
  g_assert_cmpuint (anot_fake_llm_get_n_batches (fixture->server), ==, 1);
  g_assert_cmpint (json_object_get_int_member (anot_fake_llm_get_batch (fixture->server, 0), "n_lines"), ==, 2);
  /* Each caller has its own completion object. */
  g_assert_true (g_ptr_array_index (calls.completions, 0) != g_ptr_array_index (calls.completions, 1));
  calls_clear (&calls);
}

/* max-size closes a batch at once. */
static void
test_max_size (Fixture       *fixture,
               gconstpointer  data)
{
  Calls calls;

  g_object_set (fixture->queue, "max-size", 2, NULL);
  calls_init (&calls);
  for (guint i = 0; i < 5; i++)
    {
      g_autofree char *prompt = g_strdup_printf ("ECHO w%u", i);

      call (&calls, fixture->backend, prompt, NULL);
    }
  /* Two full batches go out before the main loop runs at all. */
  g_assert_cmpuint (anot_batch_queue_get_n_submitted (fixture->queue), ==, 2);
  calls_wait (&calls);
  g_assert_cmpuint (anot_fake_llm_get_n_batches (fixture->server), ==, 3);
  g_assert_cmpstr (g_ptr_array_index (calls.texts, 4), ==, "w4");
  calls_clear (&calls);
}

/* The window closes a batch that the settle time would keep open. */
static void
test_window (Fixture       *fixture,
             gconstpointer  data)
{
  Calls calls;
  gint64 start = g_get_monotonic_time ();

  g_object_set (fixture->queue, "settle-ms", 60000, "window-ms", 30, NULL);
  calls_init (&calls);
  call (&calls, fixture->backend, "ECHO a", NULL);
  calls_wait (&calls);
  g_assert_cmpstr (g_ptr_array_index (calls.texts, 0), ==, "a");
  g_assert_cmpint (g_get_monotonic_time () - start, <, 10 * G_USEC_PER_SEC);
  calls_clear (&calls);
}

/* A batch that takes time is polled through its statuses, with growing
 * intervals, and answered once it ended. */
static void
test_status_progression (Fixture       *fixture,
                         gconstpointer  data)
{
  Calls calls;
  g_autofree char *poll_prefix = g_strdup_printf ("%s/", create_path (fixture));
  guint polls;

  /* The server shows each status to a poll before the next (a late poll
   * on a loaded machine would miss the 50 ms of finalizing): the test is
   * of the client's handling of each status, not of the poll's timing.
   * Checked 20 runs out of 20 beside two busy loops. */
  set_rules (fixture, "{\"delay_ms\": 400, \"every_status\": true}");
  g_object_set (fixture->queue, "poll-max-ms", 10, NULL);
  calls_init (&calls);
  call (&calls, fixture->backend, "ECHO slow", NULL);
  calls_wait (&calls);
  g_assert_cmpstr (g_ptr_array_index (calls.texts, 0), ==, "slow");
  polls = count_requests (fixture->server, "GET", poll_prefix);
  /* Intervals 5, 10, 10 ... ms over 400+ ms: fewer than one per 5 ms
   * (the bound counts polls, so a slow machine only makes fewer). */
  g_assert_cmpuint (polls, >=, strcmp (fixture->api, "openai") == 0 ? 4 : 2);
  g_assert_cmpuint (polls, <=, 90);
  /* The client saw each status of the API on its way. */
  {
    g_autoptr(GString) seen = g_string_new (NULL);

    for (guint i = 0; i < anot_fake_llm_get_n_requests (fixture->server); i++)
      {
        JsonObject *record = anot_fake_llm_get_request (fixture->server, i);
        const char *status = json_object_get_string_member_with_default (record, "batch_status", NULL);

        if (status != NULL && !g_str_has_suffix (seen->str, status))
          g_string_append_printf (seen, " %s", status);
      }
    g_assert_cmpstr (seen->str, ==, strcmp (fixture->api, "openai") == 0
                                    ? " validating in_progress finalizing completed"
                                    : " in_progress ended");
  }
  calls_clear (&calls);
}

/* A line answered with HTTP 400 fails its call as the direct call would;
 * a line answered with 500 goes into the next batch and succeeds there. */
static void
test_partial_failures (Fixture       *fixture,
                       gconstpointer  data)
{
  Calls calls;
  g_autofree char *bad = NULL;

  calls_init (&calls);
  call (&calls, fixture->backend, "ECHO fine", NULL);
  call (&calls, fixture->backend, "BAD request", NULL);
  call (&calls, fixture->backend, "FLAKY line", NULL);
  calls_wait (&calls);

  g_assert_cmpstr (g_ptr_array_index (calls.texts, 0), ==, "fine");
  bad = g_strdup_printf ("ERROR %d:", ANOT_ERROR_LLM_BAD_REQUEST);
  g_assert_true (g_str_has_prefix (g_ptr_array_index (calls.texts, 1), bad));
  g_assert_nonnull (strstr (g_ptr_array_index (calls.texts, 1), "prompt is too long"));
  g_assert_cmpstr (g_ptr_array_index (calls.texts, 2), ==, "steady");
  g_assert_cmpuint (anot_fake_llm_get_n_batches (fixture->server), ==, 2);
  g_assert_cmpint (json_object_get_int_member (anot_fake_llm_get_batch (fixture->server, 1), "n_lines"), ==, 1);
  g_assert_cmpuint (anot_batch_queue_get_n_lines_retried (fixture->queue), ==, 1);
  calls_clear (&calls);
}

/* Expired lines go into the next batch until they used up their
 * attempts; then their calls fail with ANOT_ERROR_LLM_BATCH. */
static void
test_expired (Fixture       *fixture,
              gconstpointer  data)
{
  Calls calls;
  g_autofree char *batch_error = g_strdup_printf ("ERROR %d:", ANOT_ERROR_LLM_BATCH);
  guint ok = 0, failed = 0;

  set_rules (fixture, "{\"expire\": true, \"expire_fraction\": 0.5}");
  calls_init (&calls);
  for (guint i = 0; i < 4; i++)
    {
      g_autofree char *prompt = g_strdup_printf ("ECHO e%u", i);

      call (&calls, fixture->backend, prompt, NULL);
    }
  calls_wait (&calls);

  /* 4 lines: 2 answered; 2: 1; 1: none, and the third attempt is the
   * last. */
  for (guint i = 0; i < 4; i++)
    {
      const char *text = g_ptr_array_index (calls.texts, i);

      if (g_str_has_prefix (text, batch_error))
        {
          g_assert_nonnull (strstr (text, "expired"));
          failed++;
        }
      else
        ok++;
    }
  g_assert_cmpuint (ok, ==, 3);
  g_assert_cmpuint (failed, ==, 1);
  g_assert_cmpuint (anot_fake_llm_get_n_batches (fixture->server), ==, 3);
  g_assert_cmpstr (json_object_get_string_member (anot_fake_llm_get_batch (fixture->server, 0), "status"), ==, "expired");
  calls_clear (&calls);
}

/* With retry-direct, the lines a batch did not answer become direct
 * calls at once. */
static void
test_expired_retry_direct (Fixture       *fixture,
                           gconstpointer  data)
{
  Calls calls;

  set_rules (fixture, "{\"expire\": true, \"expire_fraction\": 0.5}");
  g_object_set (fixture->queue, "retry-direct", TRUE, NULL);
  calls_init (&calls);
  for (guint i = 0; i < 4; i++)
    {
      g_autofree char *prompt = g_strdup_printf ("ECHO d%u", i);

      call (&calls, fixture->backend, prompt, NULL);
    }
  calls_wait (&calls);
  for (guint i = 0; i < 4; i++)
    {
      g_autofree char *expected = g_strdup_printf ("d%u", i);

      g_assert_cmpstr (g_ptr_array_index (calls.texts, i), ==, expected);
    }
  g_assert_cmpuint (anot_fake_llm_get_n_batches (fixture->server), ==, 1);
  g_assert_cmpuint (count_requests (fixture->server, "POST", chat_path (fixture)), ==, 2);
  /* Direct answers carry no batch id (they are paid at the list price). */
  {
    guint direct = 0;

    for (guint i = 0; i < calls.completions->len; i++)
      if (anot_completion_get_batch_id (g_ptr_array_index (calls.completions, i)) == NULL)
        direct++;
    g_assert_cmpuint (direct, ==, 2);
  }
  calls_clear (&calls);
}

/* A batch cancelled (by someone else, in the provider's console) while
 * running: the lines answered before stand, the others are cancelled and
 * go into the next batch. */
static void
test_cancelled (Fixture       *fixture,
                gconstpointer  data)
{
  Calls calls;
  JsonObject *first;
  gint64 until;

  set_rules (fixture, "{\"delay_ms\": 400}");
  calls_init (&calls);
  for (guint i = 0; i < 4; i++)
    {
      g_autofree char *prompt = g_strdup_printf ("ECHO c%u", i);

      call (&calls, fixture->backend, prompt, NULL);
    }
  while (anot_fake_llm_get_n_batches (fixture->server) == 0)
    g_main_context_iteration (NULL, TRUE);
  first = anot_fake_llm_get_batch (fixture->server, 0);
  until = g_get_monotonic_time () + 200 * 1000;
  while (g_get_monotonic_time () < until)
    g_main_context_iteration (NULL, FALSE);
  g_assert_true (anot_fake_llm_cancel_batch (fixture->server, json_object_get_string_member (first, "id")));
  calls_wait (&calls);

  for (guint i = 0; i < 4; i++)
    {
      g_autofree char *expected = g_strdup_printf ("c%u", i);

      g_assert_cmpstr (g_ptr_array_index (calls.texts, i), ==, expected);
    }
  g_assert_cmpstr (json_object_get_string_member (first, "status"), ==, "cancelled");
  g_assert_cmpint (json_object_get_int_member (first, "cancelled"), >, 0);
  g_assert_cmpuint (anot_fake_llm_get_n_batches (fixture->server), ==, 2);
  g_assert_cmpint (json_object_get_int_member (anot_fake_llm_get_batch (fixture->server, 1), "n_lines"), ==,
                   json_object_get_int_member (first, "cancelled"));
  calls_clear (&calls);
}

/* An OpenAI batch that fails validation answers nothing: its calls are
 * retried and fail, naming the provider's reason, once out of
 * attempts. */
static void
test_failed (Fixture       *fixture,
             gconstpointer  data)
{
  Calls calls;
  g_autofree char *batch_error = g_strdup_printf ("ERROR %d:", ANOT_ERROR_LLM_BATCH);

  set_rules (fixture, "{\"fail\": \"The input file is not valid.\"}");
  g_object_set (fixture->queue, "max-attempts", 2, NULL);
  calls_init (&calls);
  call (&calls, fixture->backend, "ECHO x", NULL);
  calls_wait (&calls);
  g_assert_true (g_str_has_prefix (g_ptr_array_index (calls.texts, 0), batch_error));
  g_assert_nonnull (strstr (g_ptr_array_index (calls.texts, 0), "failed: The input file is not valid."));
  g_assert_cmpuint (anot_fake_llm_get_n_batches (fixture->server), ==, 2);
  calls_clear (&calls);
}

/* A call cancelled while its batch is still open leaves the batch. */
static void
test_cancel_waiting_call (Fixture       *fixture,
                          gconstpointer  data)
{
  Calls calls;
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  g_autofree char *cancelled = g_strdup_printf ("ERROR %d:", G_IO_ERROR_CANCELLED);

  calls_init (&calls);
  call (&calls, fixture->backend, "ECHO stays", NULL);
  call (&calls, fixture->backend, "ECHO leaves", cancellable);
  g_cancellable_cancel (cancellable);
  calls_wait (&calls);
  g_assert_cmpstr (g_ptr_array_index (calls.texts, 0), ==, "stays");
  g_assert_true (g_str_has_prefix (g_ptr_array_index (calls.texts, 1), cancelled));
  g_assert_cmpint (json_object_get_int_member (anot_fake_llm_get_batch (fixture->server, 0), "n_lines"), ==, 1);
  calls_clear (&calls);
}

/* The process that submitted a batch goes away while it runs; a new
 * queue that reads the state file polls the same batch for the same
 * calls and submits nothing. */
static void
test_resume (Fixture       *fixture,
             gconstpointer  data)
{
  g_autofree char *state = g_build_filename (fixture->dir, "batches.jsonl", NULL);
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  g_autoptr(GError) error = NULL;
  g_autofree char *contents = NULL;
  Calls calls;

  set_rules (fixture, "{\"delay_ms\": 300}");
  g_assert_true (anot_batch_queue_open_state (fixture->queue, state, &error));
  g_assert_no_error (error);
  calls_init (&calls);
  for (guint i = 0; i < 3; i++)
    {
      g_autofree char *prompt = g_strdup_printf ("ECHO r%u", i);

      call (&calls, fixture->backend, prompt, cancellable);
    }
  /* Wait until the batch is recorded, then abandon everything. */
  while (!g_file_get_contents (state, &contents, NULL, NULL) || strstr (contents, "submitted") == NULL)
    {
      g_clear_pointer (&contents, g_free);
      g_main_context_iteration (NULL, TRUE);
    }
  g_cancellable_cancel (cancellable);
  calls_wait (&calls);
  calls_clear (&calls);
  anot_http_backend_set_batch_queue (ANOT_HTTP_BACKEND (fixture->backend), NULL);
  g_clear_object (&fixture->queue);
  g_clear_object (&fixture->backend);
  g_assert_cmpuint (count_creates (fixture), ==, 1);

  /* The resumed run. */
  fixture->backend = backend_new (fixture);
  fixture->queue = anot_batch_queue_new ();
  g_object_set (fixture->queue, "settle-ms", 20, "poll-min-ms", 5, "poll-max-ms", 40, NULL);
  anot_http_backend_set_batch_queue (ANOT_HTTP_BACKEND (fixture->backend), fixture->queue);
  g_assert_true (anot_batch_queue_open_state (fixture->queue, state, &error));
  g_assert_no_error (error);
  calls_init (&calls);
  for (guint i = 0; i < 3; i++)
    {
      g_autofree char *prompt = g_strdup_printf ("ECHO r%u", i);

      call (&calls, fixture->backend, prompt, NULL);
    }
  calls_wait (&calls);
  for (guint i = 0; i < 3; i++)
    {
      g_autofree char *expected = g_strdup_printf ("r%u", i);

      g_assert_cmpstr (g_ptr_array_index (calls.texts, i), ==, expected);
    }
  g_assert_cmpuint (anot_batch_queue_get_n_submitted (fixture->queue), ==, 0);
  g_assert_cmpuint (anot_batch_queue_get_n_resumed (fixture->queue), ==, 1);
  g_assert_cmpuint (count_creates (fixture), ==, 1);
  g_assert_cmpuint (anot_fake_llm_get_n_batch_lines (fixture->server), ==, 3);
  calls_clear (&calls);

  g_clear_pointer (&contents, g_free);
  g_assert_true (g_file_get_contents (state, &contents, NULL, NULL));
  g_assert_nonnull (strstr (contents, "\"event\":\"ended\""));
}

/* A state file whose last line was cut by a kill is read; a broken line
 * before the last is an error naming the file and line. */
static void
test_state_file_errors (Fixture       *fixture,
                        gconstpointer  data)
{
  g_autofree char *state = g_build_filename (fixture->dir, "batches.jsonl", NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(AnotBatchQueue) queue = anot_batch_queue_new ();
  g_autoptr(AnotBatchQueue) queue2 = anot_batch_queue_new ();
  const char *good = "{\"event\":\"submitted\",\"batch_id\":\"b1\",\"backend\":\"openai\","
                     "\"base_url\":\"http://x/v1\",\"model\":\"m\",\"custom_ids\":[\"anot-1\"]}\n";
  g_autofree char *cut = g_strconcat (good, "{\"event\":\"subm", NULL);
  g_autofree char *broken = g_strconcat ("{\"event\": 1}\n", good, NULL);

  g_assert_true (g_file_set_contents (state, cut, -1, NULL));
  g_assert_true (anot_batch_queue_open_state (queue, state, &error));
  g_assert_no_error (error);

  g_assert_true (g_file_set_contents (state, broken, -1, NULL));
  g_assert_false (anot_batch_queue_open_state (queue2, state, &error));
  g_assert_error (error, ANOT_ERROR, ANOT_ERROR_MISSING_FIELD);
  g_assert_nonnull (strstr (error->message, "batches.jsonl:1:"));
}

int
main (int    argc,
      char **argv)
{
  static const char *apis[] = { "openai", "anthropic" };

  g_test_init (&argc, &argv, NULL);

  for (guint i = 0; i < G_N_ELEMENTS (apis); i++)
    {
#define ADD(name, func) \
      { \
        g_autofree char *path = g_strdup_printf ("/batch-queue/%s/" name, apis[i]); \
        g_test_add (path, Fixture, apis[i], fixture_setup, func, fixture_teardown); \
      }
      ADD ("one-batch", test_one_batch);
      ADD ("identical-calls-share-a-line", test_identical_calls_share_a_line);
      ADD ("max-size", test_max_size);
      ADD ("window", test_window);
      ADD ("status-progression", test_status_progression);
      ADD ("partial-failures", test_partial_failures);
      ADD ("expired", test_expired);
      ADD ("expired-retry-direct", test_expired_retry_direct);
      ADD ("cancelled", test_cancelled);
      ADD ("cancel-waiting-call", test_cancel_waiting_call);
      ADD ("resume", test_resume);
#undef ADD
    }
  g_test_add ("/batch-queue/openai/failed", Fixture, "openai", fixture_setup, test_failed,
              fixture_teardown);
  g_test_add ("/batch-queue/state-file-errors", Fixture, "openai", fixture_setup,
              test_state_file_errors, fixture_teardown);
  return g_test_run ();
}
