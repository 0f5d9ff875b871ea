/* anot-test-backend.c: an LLM backend aimed at the fake server, and a
 * method run to its end, for the tests that talk to the fake server
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "anot-test-backend.h"

/* A fake LLM server answering by @rules_json (its rules format), started
 * on a free port of this main context; @api_key: the one key it accepts
 * (NULL: any).  It records the requests with their bodies. */
AnotFakeLlm *
anot_test_fake_llm_start (const char *rules_json,
                          const char *api_key)
{
  g_autoptr(GError) error = NULL;
  AnotFakeLlm *server = anot_fake_llm_new ();

  g_assert_true (anot_fake_llm_set_rules_json (server, rules_json, &error));
  g_assert_no_error (error);
  if (api_key != NULL)
    anot_fake_llm_set_api_key (server, api_key);
  g_assert_true (anot_fake_llm_start (server, 0, &error));
  g_assert_no_error (error);
  return server;
}

/* The requests @server received whose last user message starts with
 * @prefix and, if @model is not NULL, that were sent for @model. */
guint
anot_test_count_requests (AnotFakeLlm *server,
                          const char  *prefix,
                          const char  *model)
{
  guint n = 0;

  for (guint i = 0; i < anot_fake_llm_get_n_requests (server); i++)
    {
      JsonObject *record = anot_fake_llm_get_request (server, i);
      const char *last_user = json_object_get_string_member_with_default (record, "last_user", "");

      if (g_str_has_prefix (last_user, prefix) &&
          (model == NULL || g_strcmp0 (json_object_get_string_member (record, "model"), model) == 0))
        n++;
    }
  return n;
}

/* The `openai` plugin at @server's OpenAI endpoint, with retries a few
 * milliseconds apart so tests of faults stay fast.  @api_key may be NULL;
 * @timeout_ms 0 keeps the backend's default. */
AnotBackend *
anot_test_backend_new (AnotFakeLlm *server,
                       const char  *api_key,
                       const char  *model,
                       guint        max_retries,
                       guint        timeout_ms)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *base_url = anot_fake_llm_get_openai_base_url (server);
  AnotBackend *backend = anot_registry_create_backend (anot_registry_get_default (), "openai", &error);

  g_assert_no_error (error);
  g_object_set (backend,
                "base-url", base_url,
                "api-key", api_key,
                "model", model,
                "retry-base-ms", 1,
                "retry-max-ms", 5,
                "max-retries", max_retries,
                NULL);
  if (timeout_ms > 0)
    anot_http_backend_set_timeout_ms (ANOT_HTTP_BACKEND (backend), timeout_ms);
  return backend;
}

static void
on_ranked (GObject      *source,
           GAsyncResult *result,
           gpointer      user_data)
{
  *(GAsyncResult **) user_data = g_object_ref (result);
}

/* anot_method_rank_async() run to its end in the thread-default main
 * context (where the fake server answers too).  The method is handed the
 * blind query of @request, as the experiment hands it. */
AnotRanking *
anot_test_rank (AnotMethod         *method,
                AnotRequest        *request,
                GPtrArray          *candidates,
                guint               k,
                AnotMethodContext  *context,
                GCancellable       *cancellable,
                GError            **error)
{
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(AnotQuery) query = anot_query_new_for_request (request);

  anot_method_rank_async (method, query, candidates, k, context, cancellable, on_ranked, &result);
  while (result == NULL)
    g_main_context_iteration (NULL, TRUE);
  return anot_method_rank_finish (method, result, error);
}
