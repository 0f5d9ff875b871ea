/* bench-anot.c: ANoT's wall time against its critical path
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Runs the anot method on N candidates (default 50) against anot-fake-llm
 * in a process of its own, every reply taking the same latency (default
 * 200 ms), and compares the wall time of each request with the bound set
 * by its sequential LLM rounds: exploration rounds + 1 expansion round +
 * the layers of the LWT script, times the latency.  Every other call runs
 * in parallel with one of those, so the ratio shows what the method, the
 * executor and the HTTP client add.
 *
 * Usage: bench-anot PATH/TO/anot-fake-llm [--candidates N] [--latency MS]
 *                   [--requests R] [--data DIR]
 */
#include <anot/anot.h>

#include "bench-common.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
  GAsyncResult *result;
} Wait;

static void
on_done (GObject      *source,
         GAsyncResult *result,
         gpointer      user_data)
{
  ((Wait *) user_data)->result = g_object_ref (result);
}

int
main (int    argc,
      char **argv)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GOptionContext) options = NULL;
  g_autoptr(AnotDataset) dataset = NULL;
  g_autoptr(AnotBackend) backend = NULL;
  g_autoptr(AnotBackendRouter) router = NULL;
  g_autoptr(AnotMethod) method = NULL;
  g_autoptr(GPtrArray) candidates = NULL;
  g_autofree char *rules = NULL;
  g_autofree char *data_dir = NULL;
  BenchServer server = { 0 };
  int n_candidates = 50;
  int latency_ms = 200;
  int n_requests = 5;
  double sum_ratio = 0, max_ratio = 0, sum_cpu = 0;
  const GOptionEntry entries[] = {
    { "candidates", 'n', 0, G_OPTION_ARG_INT, &n_candidates, "Candidates per request (50)", "N" },
    { "latency", 'l', 0, G_OPTION_ARG_INT, &latency_ms, "Latency of every reply in ms (200)", "MS" },
    { "requests", 'r', 0, G_OPTION_ARG_INT, &n_requests, "Requests to run, one after the other (5)", "R" },
    { "data", 'd', 0, G_OPTION_ARG_FILENAME, &data_dir,
      "Benchmark directory (default: $ANOT_PHILLY_DATA, else the demo data)", "DIR" },
    G_OPTION_ENTRY_NULL
  };

  options = g_option_context_new ("PATH/TO/anot-fake-llm — ANoT's wall time against its critical path");
  g_option_context_add_main_entries (options, entries, NULL);
  if (!g_option_context_parse (options, &argc, &argv, &error) || argc != 2 ||
      n_candidates < 1 || latency_ms < 1 || n_requests < 1)
    {
      g_printerr ("bench-anot: %s\n", error ? error->message : "usage: bench-anot PATH/TO/anot-fake-llm");
      return 2;
    }

  if (data_dir == NULL)
    data_dir = bench_default_data_dir ();
  dataset = anot_dataset_load (data_dir, NULL, &error);
  if (dataset == NULL)
    {
      g_printerr ("bench-anot: %s\n", error->message);
      return 1;
    }

  /* The first N items; a small benchmark repeats its items to reach N. */
  candidates = g_ptr_array_new ();
  for (int i = 0; i < n_candidates; i++)
    g_ptr_array_add (candidates, anot_dataset_get_item (dataset, i % anot_dataset_get_n_items (dataset)));

  rules = bench_anot_rules_json (latency_ms);
  if (!bench_server_start (argv[1], rules, &server, &error))
    {
      g_printerr ("bench-anot: cannot start %s: %s\n", argv[1], error->message);
      return 1;
    }

  backend = anot_registry_create_backend (anot_registry_get_default (), "openai", &error);
  if (backend == NULL)
    {
      g_printerr ("bench-anot: %s (set ANOT_PLUGIN_PATH to the build tree's plugins)\n", error->message);
      bench_server_stop (&server);
      return 1;
    }
  g_object_set (backend, "base-url", server.url, "model", "bench-model", NULL);
  router = anot_backend_router_new ();
  anot_backend_router_set_route (router, ANOT_DEFAULT_ROLE, "openai", backend, NULL);
  method = anot_registry_create_method (anot_registry_get_default (), "anot", &error);
  if (method == NULL)
    {
      g_printerr ("bench-anot: %s\n", error->message);
      bench_server_stop (&server);
      return 1;
    }

  g_print ("ANoT, %d candidates from %s, every reply after %d ms, %d requests one after the other\n",
           n_candidates, anot_dataset_get_name (dataset), latency_ms, n_requests);
  g_print ("%-8s %6s %7s %9s %9s %7s %8s %8s %8s %8s\n", "request", "calls", "rounds", "bound ms",
           "wall ms", "ratio", "cpu ms", "P1 ms", "P2 ms", "P3 ms");

  /* One warm-up request fills the connection pool, as a run's first
   * requests do. */
  for (int r = -1; r < n_requests; r++)
    {
      AnotRequest *request = anot_dataset_get_request (dataset, (r + 1) % anot_dataset_get_n_requests (dataset));
      g_autoptr(AnotMethodContext) context = anot_method_context_new (dataset, anot_request_get_id (request), 1);
      g_autoptr(AnotQuery) query = anot_query_new_for_request (request);
      g_autoptr(AnotRanking) ranking = NULL;
      Wait wait = { NULL };
      gint64 start;
      double cpu_start, wall_ms, cpu_ms, bound_ms, ratio;
      JsonObject *trace, *phase3;
      guint rounds, n_layers, calls;

      anot_method_context_set_router (context, router);
      cpu_start = bench_cpu_seconds ();
      start = g_get_monotonic_time ();
      anot_method_rank_async (method, query, candidates, 5, context, NULL, on_done, &wait);
      while (wait.result == NULL)
        g_main_context_iteration (NULL, TRUE);
      ranking = anot_method_rank_finish (method, wait.result, &error);
      wall_ms = (g_get_monotonic_time () - start) / 1000.0;
      cpu_ms = (bench_cpu_seconds () - cpu_start) * 1000;
      g_clear_object (&wait.result);
      if (ranking == NULL)
        {
          g_printerr ("bench-anot: %s\n", error->message);
          bench_server_stop (&server);
          return 1;
        }

      trace = json_node_get_object (anot_ranking_get_trace (ranking));
      phase3 = json_object_get_object_member (trace, "phase3");
      rounds = json_array_get_length (json_object_get_array_member (
        json_object_get_object_member (trace, "phase1"), "exploration_rounds"));
      n_layers = json_object_get_int_member (phase3, "n_layers");
      /* Exploration rounds, the expansion round, the script's layers. */
      rounds = rounds + 1 + n_layers;
      calls = anot_usage_get_calls (anot_method_context_get_usage (context));
      bound_ms = rounds * (double) latency_ms;
      ratio = wall_ms / bound_ms;
      if (r < 0)
        continue;

      sum_ratio += ratio;
      max_ratio = MAX (max_ratio, ratio);
      sum_cpu += cpu_ms;
      g_print ("%-8s %6u %7u %9.0f %9.1f %7.3f %8.1f %8.1f %8.1f %8.1f\n", anot_request_get_id (request),
               calls, rounds, bound_ms, wall_ms, ratio, cpu_ms,
               json_object_get_double_member (json_object_get_object_member (trace, "phase1"), "latency_ms"),
               json_object_get_double_member (json_object_get_object_member (trace, "phase2"), "latency_ms"),
               json_object_get_double_member (phase3, "latency_ms"));
    }

  g_print ("mean ratio %.3f, max %.3f (target <= 1.15); client CPU %.1f ms per request\n",
           sum_ratio / n_requests, max_ratio, sum_cpu / n_requests);

  bench_server_stop (&server);
  return max_ratio <= 1.15 ? 0 : 1;
}
