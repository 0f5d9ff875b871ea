/* bench-batch.c: a run through the batch APIs against the same run made
 * with direct calls
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Runs cot and anot over every request of a benchmark (philly_cafes when
 * $ANOT_PHILLY_DATA has it, else the demo) at N candidates, once with
 * direct calls (every reply after --latency ms) and once in batch mode
 * (every batch ending --delay ms after it was created), each against a
 * fresh anot-fake-llm in a process of its own.  Prints, per run: the LLM
 * calls the client made, what the server counted (HTTP requests; in batch
 * mode the batches and their lines too), the cost at gpt-4o-mini's list
 * and batch prices, the wall time and the client's CPU time.
 *
 * Usage: bench-batch PATH/TO/anot-fake-llm [--candidates N] [--delay MS]
 *                    [--latency MS] [--limit R] [--concurrency C]
 */
#include <anot/anot.h>

#include "bench-common.h"

#include <glib/gstdio.h>
#include <string.h>

typedef struct
{
  guint http;
  guint chat;
  guint batches;
  guint64 lines;
  guint polls;
} ServerCounts;

static gboolean
count_log (const char   *path,
           ServerCounts *counts)
{
  g_autofree char *contents = NULL;
  g_auto(GStrv) lines = NULL;

  memset (counts, 0, sizeof *counts);
  if (!g_file_get_contents (path, &contents, NULL, NULL))
    return FALSE;
  lines = g_strsplit (contents, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    {
      g_autoptr(JsonParser) parser = json_parser_new ();
      JsonObject *record;
      const char *method, *request_path;

      if (*lines[i] == '\0' || !json_parser_load_from_data (parser, lines[i], -1, NULL))
        continue;
      record = json_node_get_object (json_parser_get_root (parser));
      method = json_object_get_string_member (record, "method");
      request_path = json_object_get_string_member (record, "path");
      counts->http++;
      if (strcmp (request_path, "/v1/chat/completions") == 0)
        counts->chat++;
      else if (strcmp (method, "POST") == 0 && strcmp (request_path, "/v1/batches") == 0)
        {
          counts->batches++;
          counts->lines += json_object_get_int_member_with_default (record, "n_lines", 0);
        }
      else if (strcmp (method, "GET") == 0 && g_str_has_prefix (request_path, "/v1/batches/"))
        counts->polls++;
    }
  return TRUE;
}

static void
remove_tree (const char *path)
{
  g_autoptr(GDir) dir = g_dir_open (path, 0, NULL);
  const char *name;

  if (dir != NULL)
    while ((name = g_dir_read_name (dir)) != NULL)
      {
        g_autofree char *child = g_build_filename (path, name, NULL);

        if (g_file_test (child, G_FILE_TEST_IS_DIR))
          remove_tree (child);
        else
          g_unlink (child);
      }
  g_rmdir (path);
}

static gboolean
run_one (const char   *program,
         AnotDataset  *dataset,
         const char   *method,
         gboolean      batch,
         guint         n,
         guint         delay_ms,
         guint         latency_ms,
         guint         limit,
         guint         concurrency,
         GError      **error)
{
  g_autofree char *dir = g_dir_make_tmp ("bench-batch-XXXXXX", error);
  g_autofree char *log_path = NULL;
  g_autofree char *rules = NULL;
  g_autofree char *base_rules = NULL;
  g_autoptr(AnotExperiment) experiment = NULL;
  g_autoptr(AnotRunConfig) config = NULL;
  g_autoptr(AnotUsage) usage = anot_usage_new ();
  g_autoptr(GPtrArray) rows = NULL;
  g_autofree char *n_text = g_strdup_printf ("%u", n);
  g_autofree char *concurrency_text = g_strdup_printf ("%u", concurrency);
  g_autofree char *limit_text = g_strdup_printf ("%u", limit);
  BenchServer server = { 0 };
  ServerCounts counts;
  double cpu_start, cpu, wall;
  gint64 start;
  gboolean ok;

  if (dir == NULL)
    return FALSE;
  log_path = g_build_filename (dir, "server.jsonl", NULL);
  /* Direct replies after latency_ms; a batch ends delay_ms after it was
   * created, its lines answered with the same rules. */
  base_rules = strcmp (method, "anot") == 0 ? bench_anot_rules_json (latency_ms)
                                            : g_strdup_printf ("{\"latency_ms\": %u, \"default_reply\": "
                                                               "\"ANSWER: 1, 2, 3\"}", latency_ms);
  rules = g_strdup_printf ("{\"batch\": {\"delay_ms\": %u}, %s", delay_ms, base_rules + 1);
  server.log_path = log_path;
  if (!bench_server_start (program, rules, &server, error))
    return FALSE;

  config = anot_run_config_new ();
  ok = anot_run_config_set (config, "candidates", n_text, error) &&
       anot_run_config_set (config, "backend", "openai", error) &&
       anot_run_config_set (config, "base-url", server.url, error) &&
       anot_run_config_set (config, "model", "gpt-4o-mini", error) &&
       anot_run_config_set (config, "concurrency", concurrency_text, error) &&
       (limit == 0 || anot_run_config_set (config, "limit", limit_text, error)) &&
       anot_run_config_set (config, "out", dir, error) &&
       anot_run_config_set (config, "batch", batch ? "true" : "false", error);
  if (!ok)
    {
      bench_server_stop (&server);
      return FALSE;
    }
  experiment = anot_experiment_new (dataset, method);
  anot_experiment_set_config (experiment, config);

  cpu_start = bench_cpu_seconds ();
  start = g_get_monotonic_time ();
  ok = anot_experiment_run (experiment, NULL, error);
  wall = (g_get_monotonic_time () - start) / 1e6;
  cpu = bench_cpu_seconds () - cpu_start;
  bench_server_stop (&server);
  if (!ok)
    return FALSE;

  rows = anot_experiment_get_results (experiment, n, 1);
  for (guint i = 0; rows != NULL && i < rows->len; i++)
    anot_usage_merge (usage, anot_result_get_usage (g_ptr_array_index (rows, i)));
  count_log (log_path, &counts);

  g_print ("%-6s %-7s %8u %8" G_GUINT64_FORMAT " %8u %8u %8u %9" G_GUINT64_FORMAT " %9.4f %9.1f %8.2f\n",
           method, batch ? "batch" : "direct", rows ? rows->len : 0, anot_usage_get_calls (usage),
           counts.http, counts.chat, counts.batches, counts.lines, anot_usage_get_cost_usd (usage),
           wall, cpu);
  remove_tree (dir);
  return TRUE;
}

int
main (int    argc,
      char **argv)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GOptionContext) options = NULL;
  g_autoptr(AnotDataset) dataset = NULL;
  g_autofree char *data_dir = NULL;
  int n = 10, delay_ms = 2000, latency_ms = 200, limit = 0, concurrency = 100;
  const char *methods[] = { "cot", "anot" };
  const GOptionEntry entries[] = {
    { "candidates", 'n', 0, G_OPTION_ARG_INT, &n, "Candidates per request (10)", "N" },
    { "delay", 0, 0, G_OPTION_ARG_INT, &delay_ms, "Time a batch takes, ms (2000)", "MS" },
    { "latency", 0, 0, G_OPTION_ARG_INT, &latency_ms, "Latency of a direct reply, ms (200)", "MS" },
    { "limit", 0, 0, G_OPTION_ARG_INT, &limit, "Requests (default: all)", "R" },
    { "concurrency", 0, 0, G_OPTION_ARG_INT, &concurrency, "Requests in flight (100)", "C" },
    { "data", 'd', 0, G_OPTION_ARG_FILENAME, &data_dir,
      "Benchmark directory (default: $ANOT_PHILLY_DATA, else the demo data)", "DIR" },
    G_OPTION_ENTRY_NULL
  };

  options = g_option_context_new ("PATH/TO/anot-fake-llm — batch mode against direct calls");
  g_option_context_add_main_entries (options, entries, NULL);
  if (!g_option_context_parse (options, &argc, &argv, &error) || argc != 2 || n < 1 ||
      delay_ms < 0 || latency_ms < 0 || limit < 0 || concurrency < 1)
    {
      g_printerr ("bench-batch: %s\n", error ? error->message : "usage: bench-batch PATH/TO/anot-fake-llm");
      return 2;
    }
  if (data_dir == NULL)
    data_dir = bench_default_data_dir ();
  dataset = anot_dataset_load (data_dir, NULL, &error);
  if (dataset == NULL)
    {
      g_printerr ("bench-batch: %s\n", error->message);
      return 1;
    }

  g_print ("%s, N=%d, direct replies after %d ms, batches end after %d ms, %d requests in flight\n",
           anot_dataset_get_name (dataset), n, latency_ms, delay_ms, concurrency);
  g_print ("%-6s %-7s %8s %8s %8s %8s %8s %9s %9s %9s %8s\n", "method", "mode", "requests", "calls",
           "srv http", "srv chat", "batches", "lines", "cost $", "wall s", "cpu s");
  for (guint m = 0; m < G_N_ELEMENTS (methods); m++)
    for (int batch = 0; batch < 2; batch++)
      if (!run_one (argv[1], dataset, methods[m], batch, (guint) n, (guint) delay_ms,
                    (guint) latency_ms, (guint) limit, (guint) concurrency, &error))
        {
          g_printerr ("bench-batch: %s %s: %s\n", methods[m], batch ? "batch" : "direct",
                      error->message);
          return 1;
        }
  return 0;
}
