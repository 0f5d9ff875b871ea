/* bench-common.c: what the benchmarks share
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "bench-common.h"

#include <glib/gstdio.h>
#include <signal.h>
#include <sys/resource.h>

double
bench_cpu_seconds (void)
{
  struct rusage usage;

  if (getrusage (RUSAGE_SELF, &usage) != 0)
    return 0;
  return usage.ru_utime.tv_sec + usage.ru_stime.tv_sec +
         (usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / (double) G_USEC_PER_SEC;
}

gboolean
bench_server_start (const char   *program,
                    const char   *rules_json,
                    BenchServer  *server,
                    GError      **error)
{
  g_autofree char *dir = g_dir_make_tmp ("bench-XXXXXX", error);
  g_autofree char *rules = NULL;
  g_autoptr(GDataInputStream) out = NULL;
  g_autofree char *line = NULL;

  if (dir == NULL)
    return FALSE;
  rules = g_build_filename (dir, "rules.json", NULL);
  if (!g_file_set_contents (rules, rules_json, -1, error))
    return FALSE;
  if (server->log_path != NULL)
    server->process = g_subprocess_new (G_SUBPROCESS_FLAGS_STDOUT_PIPE, error,
                                        program, "--rules", rules, "--no-bodies",
                                        "--log", server->log_path, NULL);
  else
    server->process = g_subprocess_new (G_SUBPROCESS_FLAGS_STDOUT_PIPE, error,
                                        program, "--rules", rules, "--no-bodies", NULL);
  if (server->process == NULL)
    return FALSE;
  /* The server prints its URL once it listens. */
  out = g_data_input_stream_new (g_subprocess_get_stdout_pipe (server->process));
  line = g_data_input_stream_read_line_utf8 (out, NULL, NULL, error);
  if (line == NULL)
    {
      if (error != NULL && *error == NULL)
        g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED, "anot-fake-llm printed no URL");
      return FALSE;
    }
  server->url = g_strconcat (line, "/v1", NULL);
  g_unlink (rules);
  g_rmdir (dir);
  return TRUE;
}

void
bench_server_stop (BenchServer *server)
{
  if (server->process != NULL)
    {
      g_subprocess_send_signal (server->process, SIGTERM);
      g_subprocess_wait (server->process, NULL, NULL);
    }
  g_clear_object (&server->process);
  g_clear_pointer (&server->url, g_free);
}

/* Two exploration rounds with tools, a plan, a step per item, scores. */
char *
bench_anot_rules_json (guint latency_ms)
{
  return g_strdup_printf (
    "{\"latency_ms\": %u, \"rules\": ["
    "  {\"match\": \"(?s)CONVERSATION SO FAR.*RESULT: \\\\[\","
    "   \"reply\": \"PLAN:\\nN = 50\\nRELEVANT_ATTR = DriveThru\\n(final) = aggregate\"},"
    "  {\"match\": \"(?s)CONVERSATION SO FAR.*RESULT: \","
    "   \"reply\": \"ACTION: union_keys(\\\"items[*].attributes\\\")\"},"
    "  {\"match\": \"^You are preparing\", \"reply\": \"ACTION: count(\\\"items\\\")\"},"
    "  {\"match\": \"^Write one evaluation step of a ranking task, for item (\\\\d+)\","
    "   \"reply\": \"(\\\\1)=LLM(\\\"Evaluate item \\\\1 for the request. Output: <score>\\\")\"},"
    "  {\"match\": \"^Evaluate item (\\\\d)\", \"reply\": \"\\\\1\"},"
    "  {\"match\": \"^Scores:\", \"reply\": \"1, 2, 3, 4, 5\"}"
    "]}", latency_ms);
}

char *
bench_default_data_dir (void)
{
  const char *philly = g_getenv ("ANOT_PHILLY_DATA");
  g_autofree char *requests = philly ? g_build_filename (philly, "requests.jsonl", NULL) : NULL;

  if (requests != NULL && g_file_test (requests, G_FILE_TEST_EXISTS))
    return g_strdup (philly);
  return g_build_filename (g_getenv ("ANOT_DATA_DIR") ? g_getenv ("ANOT_DATA_DIR") : "data", "demo", NULL);
}
