/* bench-llm.c: the cost of the LLM client against the fake server
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Runs anot-fake-llm in a process of its own (so this process's CPU time
 * is the client's alone) and measures:
 *
 *  (a) latency 0: client CPU time per completed call and calls per second
 *      at concurrency 1, 16 and 64, through the backend alone and through
 *      the whole stack a method uses (method context → router → backend),
 *      and the floor: libsoup alone sending the same bytes, with the least
 *      work any libsoup client does per call;
 *  (b) latency 200 ms, concurrency 64, 1000 calls: wall time divided by the
 *      ideal 1000 / 64 × 200 ms.
 *
 * Usage: bench-llm PATH/TO/anot-fake-llm [--calls N] [--quick] [--concurrency N]
 *                  [--path backend|context|libsoup] [--no-latency-run]
 *
 * --concurrency, --path and --no-latency-run pick single rows, e.g. to run
 * one of them under callgrind.
 */
#include <anot/anot.h>

#include "bench-common.h"

#include <libsoup/soup.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct
{
  AnotBackend *backend;
  AnotBackendRouter *router;
  AnotMethodContext *context;
  guint total;
  guint started;
  guint done;
  guint in_flight;
  guint concurrency;
  guint errors;
  GMainLoop *loop;
} Bench;

static void start_calls (Bench *bench);

static void
call_done (Bench          *bench,
           AnotCompletion *completion,
           GError         *error)
{
  if (completion == NULL)
    {
      if (bench->errors++ < 3)
        g_printerr ("bench-llm: %s\n", error->message);
      g_clear_error (&error);
    }
  g_clear_object (&completion);
  bench->done++;
  bench->in_flight--;
  if (bench->done == bench->total)
    g_main_loop_quit (bench->loop);
  else
    start_calls (bench);
}

static void
on_backend_done (GObject      *source,
                 GAsyncResult *result,
                 gpointer      user_data)
{
  GError *error = NULL;
  AnotCompletion *completion = anot_backend_complete_finish (ANOT_BACKEND (source), result, &error);

  call_done (user_data, completion, error);
}

static void
on_context_done (GObject      *source,
                 GAsyncResult *result,
                 gpointer      user_data)
{
  GError *error = NULL;
  AnotCompletion *completion = anot_method_context_complete_finish (ANOT_METHOD_CONTEXT (source),
                                                                    result, &error);

  call_done (user_data, completion, error);
}

static void
start_calls (Bench *bench)
{
  while (bench->in_flight < bench->concurrency && bench->started < bench->total)
    {
      char prompt[96];

      g_snprintf (prompt, sizeof prompt, "Rate candidate %u for the request, 0 to 10.", bench->started);
      bench->started++;
      bench->in_flight++;
      if (bench->context != NULL)
        anot_method_context_complete_async (bench->context, "scorer", "You score cafes.", prompt,
                                            NULL, on_context_done, bench);
      else
        {
          g_autoptr(AnotChatRequest) request = anot_chat_request_new ("You score cafes.", prompt);

          anot_backend_complete_async (bench->backend, request, NULL, on_backend_done, bench);
        }
    }
}

typedef struct
{
  double wall;
  double cpu;
  guint errors;
} Measure;

/* Wall and CPU time from @start until @loop quits. */
static Measure
measure_loop (GMainLoop *loop,
              void     (*start) (gpointer data),
              gpointer   data)
{
  Measure m = { 0 };
  gint64 t0;
  double c0;

  c0 = bench_cpu_seconds ();
  t0 = g_get_monotonic_time ();
  start (data);
  g_main_loop_run (loop);
  m.wall = (g_get_monotonic_time () - t0) / 1e6;
  m.cpu = bench_cpu_seconds () - c0;
  return m;
}

static Measure
run_calls (AnotBackend       *backend,
           AnotMethodContext *context,
           guint              concurrency,
           guint              total)
{
  Bench bench = { 0 };
  Measure m;

  bench.backend = backend;
  bench.context = context;
  bench.total = total;
  bench.concurrency = concurrency;
  bench.loop = g_main_loop_new (NULL, FALSE);
  anot_http_backend_set_max_concurrency (ANOT_HTTP_BACKEND (backend), concurrency);

  m = measure_loop (bench.loop, (void (*) (gpointer)) start_calls, &bench);
  m.errors = bench.errors;
  g_main_loop_unref (bench.loop);
  return m;
}

/* The floor: what libsoup itself costs per call on this machine, with the
 * body the openai backend would send already written and the answer read
 * without parsing it.  The backend cannot be cheaper than this. */
typedef struct
{
  SoupSession *session;
  GUri *uri;
  GBytes *body;
  guint total;
  guint started;
  guint done;
  guint in_flight;
  guint concurrency;
  guint errors;
  GMainLoop *loop;
} RawBench;

typedef struct
{
  RawBench *bench;
  SoupMessage *msg;
  GInputStream *stream;
  GSource *source;
  gsize received;
} RawCall;

static void raw_start_calls (RawBench *bench);

static void
raw_call_done (RawCall *call,
               GError  *error)
{
  RawBench *bench = call->bench;

  if (error != NULL || !SOUP_STATUS_IS_SUCCESSFUL (soup_message_get_status (call->msg)) ||
      call->received == 0)
    {
      if (bench->errors++ < 3)
        g_printerr ("bench-llm: libsoup alone: %s\n", error ? error->message : "bad answer");
    }
  g_clear_error (&error);
  g_clear_object (&call->stream);
  g_clear_object (&call->msg);
  g_free (call);
  bench->done++;
  bench->in_flight--;
  if (bench->done == bench->total)
    g_main_loop_quit (bench->loop);
  else
    raw_start_calls (bench);
}

static gboolean raw_on_readable (GObject *stream, gpointer user_data);

static void
raw_read (RawCall *call)
{
  for (;;)
    {
      char chunk[8192];
      GError *error = NULL;
      gssize n = g_pollable_input_stream_read_nonblocking (G_POLLABLE_INPUT_STREAM (call->stream),
                                                           chunk, sizeof chunk, NULL, &error);

      if (n > 0)
        {
          call->received += (gsize) n;
          continue;
        }
      if (n == 0)
        {
          g_input_stream_close (call->stream, NULL, NULL);
          raw_call_done (call, NULL);
          return;
        }
      if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_WOULD_BLOCK))
        {
          g_error_free (error);
          call->source = g_pollable_input_stream_create_source (G_POLLABLE_INPUT_STREAM (call->stream), NULL);
          g_source_set_callback (call->source, (GSourceFunc) (void (*) (void)) raw_on_readable, call, NULL);
          g_source_attach (call->source, NULL);
          return;
        }
      raw_call_done (call, error);
      return;
    }
}

static gboolean
raw_on_readable (GObject  *stream,
                 gpointer  user_data)
{
  RawCall *call = user_data;

  g_source_destroy (call->source);
  g_clear_pointer (&call->source, g_source_unref);
  raw_read (call);
  return G_SOURCE_REMOVE;
}

static void
raw_on_sent (GObject      *source,
             GAsyncResult *result,
             gpointer      user_data)
{
  RawCall *call = user_data;
  GError *error = NULL;

  call->stream = soup_session_send_finish (SOUP_SESSION (source), result, &error);
  if (call->stream == NULL)
    raw_call_done (call, error);
  else
    raw_read (call);
}

static void
raw_start_calls (RawBench *bench)
{
  while (bench->in_flight < bench->concurrency && bench->started < bench->total)
    {
      RawCall *call = g_new0 (RawCall, 1);

      call->bench = bench;
      call->msg = soup_message_new_from_uri (SOUP_METHOD_POST, bench->uri);
      soup_message_add_flags (call->msg, SOUP_MESSAGE_IDEMPOTENT);
      soup_message_set_request_body_from_bytes (call->msg, "application/json", bench->body);
      bench->started++;
      bench->in_flight++;
      soup_session_send_async (bench->session, call->msg, G_PRIORITY_DEFAULT, NULL, raw_on_sent, call);
    }
}

static Measure
run_raw_calls (RawBench *bench,
               guint     concurrency,
               guint     total)
{
  Measure m;

  bench->total = total;
  bench->started = bench->done = bench->in_flight = bench->errors = 0;
  bench->concurrency = concurrency;
  bench->loop = g_main_loop_new (NULL, FALSE);
  m = measure_loop (bench->loop, (void (*) (gpointer)) raw_start_calls, bench);
  m.errors = bench->errors;
  g_main_loop_unref (bench->loop);
  return m;
}

static Measure
measure_libsoup_alone (const char *url,
                       guint       concurrency,
                       guint       total)
{
  static const char body[] =
    "{\"model\":\"bench-model\",\"messages\":[{\"role\":\"system\",\"content\":\"You score cafes.\"},"
    "{\"role\":\"user\",\"content\":\"Rate candidate 1000 for the request, 0 to 10.\"}]}";
  g_autofree char *endpoint = g_strconcat (url, "/chat/completions", NULL);
  RawBench bench = { 0 };
  Measure m;

  bench.session = soup_session_new_with_options ("max-conns", concurrency,
                                                 "max-conns-per-host", concurrency,
                                                 "timeout", 0, NULL);
  bench.uri = g_uri_parse (endpoint, SOUP_HTTP_URI_FLAGS, NULL);
  bench.body = g_bytes_new_static (body, sizeof body - 1);
  run_raw_calls (&bench, concurrency, MIN (total, concurrency * 4));
  m = run_raw_calls (&bench, concurrency, total);
  g_object_unref (bench.session);
  g_uri_unref (bench.uri);
  g_bytes_unref (bench.body);
  return m;
}

static AnotBackend *
make_backend (const char *url)
{
  g_autoptr(GError) error = NULL;
  AnotBackend *backend = anot_registry_create_backend (anot_registry_get_default (), "openai", &error);

  if (backend == NULL)
    {
      g_printerr ("bench-llm: %s (set ANOT_PLUGIN_PATH to the build tree's plugins)\n",
                  error->message);
      exit (1);
    }
  g_object_set (backend, "base-url", url, "model", "bench-model", NULL);
  return backend;
}

int
main (int    argc,
      char **argv)
{
  static const guint levels[] = { 1, 16, 64 };
  g_autoptr(GError) error = NULL;
  g_autoptr(GOptionContext) options = NULL;
  BenchServer server = { 0 };
  int calls = 4000;
  int only_concurrency = 0;
  g_autofree char *only_path = NULL;
  gboolean no_latency_run = FALSE;
  gboolean quick = FALSE;
  const GOptionEntry entries[] = {
    { "calls", 'n', 0, G_OPTION_ARG_INT, &calls, "Calls per measurement of (a) (default 4000)", "N" },
    { "quick", 0, 0, G_OPTION_ARG_NONE, &quick, "Fewer calls, for a smoke test", NULL },
    { "concurrency", 0, 0, G_OPTION_ARG_INT, &only_concurrency, "Only rows of (a) at this concurrency", "N" },
    { "path", 0, 0, G_OPTION_ARG_STRING, &only_path, "Only rows of (a) through this path", "backend|context|libsoup" },
    { "no-latency-run", 0, 0, G_OPTION_ARG_NONE, &no_latency_run, "Skip (b)", NULL },
    G_OPTION_ENTRY_NULL
  };

  options = g_option_context_new ("ANOT-FAKE-LLM — benchmark the LLM client");
  g_option_context_add_main_entries (options, entries, NULL);
  if (!g_option_context_parse (options, &argc, &argv, &error) || argc != 2)
    {
      g_printerr ("bench-llm: %s\nUsage: bench-llm PATH/TO/anot-fake-llm [--calls N]\n",
                  error ? error->message : "the fake server's path is required");
      return 2;
    }
  if (quick)
    calls = 400;
  if (only_path != NULL && g_strcmp0 (only_path, "backend") != 0 &&
      g_strcmp0 (only_path, "context") != 0 && g_strcmp0 (only_path, "libsoup") != 0)
    {
      g_printerr ("bench-llm: --path is backend, context or libsoup, not “%s”\n", only_path);
      return 2;
    }

  /* (a) */
  if (!bench_server_start (argv[1], "{\"latency_ms\": 0, \"default_reply\": \"7\"}", &server, &error))
    {
      g_printerr ("bench-llm: cannot start %s: %s\n", argv[1], error->message);
      return 1;
    }
  g_print ("(a) latency 0, %d calls per row; client CPU = user + system time of this process\n\n",
           calls);
  g_print ("%-22s %11s %14s %12s %8s\n", "path", "concurrency", "CPU us/call", "calls/s", "errors");
  for (guint stack = 0; stack < 2; stack++)
    for (guint i = 0; i < G_N_ELEMENTS (levels); i++)
      {
        if ((only_concurrency > 0 && levels[i] != (guint) only_concurrency) ||
            (only_path != NULL && g_strcmp0 (only_path, stack ? "context" : "backend") != 0))
          continue;
        {
        g_autoptr(AnotBackend) backend = make_backend (server.url);
        g_autoptr(AnotMethodContext) context = NULL;
        g_autoptr(AnotBackendRouter) router = NULL;
        Measure m;

        if (stack == 1)
          {
            /* What a method's call goes through: context, router (request
             * copy, defaults, pricing), usage accounting. */
            router = anot_backend_router_new ();
            anot_backend_router_set_route (router, ANOT_DEFAULT_ROLE, "openai", backend, NULL);
            context = g_object_new (ANOT_TYPE_METHOD_CONTEXT, "request-id", "R01", NULL);
            anot_method_context_set_router (context, router);
          }
        /* A warm-up, so connections are open. */
        run_calls (backend, context, levels[i], MIN ((guint) calls, levels[i] * 4));
        m = run_calls (backend, context, levels[i], (guint) calls);
        g_print ("%-22s %11u %14.1f %12.0f %8u\n",
                 stack ? "context+router+backend" : "backend", levels[i],
                 m.cpu / calls * 1e6, calls / m.wall, m.errors);
        }
      }
  for (guint i = 0; i < G_N_ELEMENTS (levels); i++)
    {
      Measure m;

      if ((only_concurrency > 0 && levels[i] != (guint) only_concurrency) ||
          (only_path != NULL && g_strcmp0 (only_path, "libsoup") != 0))
        continue;
      m = measure_libsoup_alone (server.url, levels[i], (guint) calls);

      g_print ("%-22s %11u %14.1f %12.0f %8u\n", "libsoup alone (floor)", levels[i],
               m.cpu / calls * 1e6, calls / m.wall, m.errors);
    }
  bench_server_stop (&server);

  if (no_latency_run)
    return 0;

  /* (b) */
  if (!bench_server_start (argv[1], "{\"latency_ms\": 200, \"default_reply\": \"7\"}", &server, &error))
    {
      g_printerr ("bench-llm: cannot start %s: %s\n", argv[1], error->message);
      return 1;
    }
  {
    g_autoptr(AnotBackend) backend = make_backend (server.url);
    guint total = quick ? 320 : 1000;
    double ideal = total / 64.0 * 0.2;
    Measure m;

    run_calls (backend, NULL, 64, 64);
    m = run_calls (backend, NULL, 64, total);
    g_print ("\n(b) latency 200 ms, concurrency 64, %u calls: wall %.3f s, ideal %.3f s "
             "(%u/64 x 200 ms), ratio %.3f, client CPU %.1f us/call, errors %u\n",
             total, m.wall, ideal, total, m.wall / ideal, m.cpu / total * 1e6, m.errors);
  }
  bench_server_stop (&server);
  return 0;
}
