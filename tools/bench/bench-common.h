/* bench-common.h: what the benchmarks share
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

/* User + system CPU time of the process, in seconds: the machines these
 * run on are shared, and unlike the wall time it does not grow when other
 * processes compete for the CPU. */
double bench_cpu_seconds (void);

/* anot-fake-llm in a process of its own, so that the benchmark's CPU time
 * is the client's alone. */
typedef struct
{
  GSubprocess *process;
  char *url;              /* its OpenAI base URL, ".../v1" */
  const char *log_path;   /* set before starting: the server's --log file */
} BenchServer;

/* Starts @program (anot-fake-llm) with the rules @rules_json, request
 * bodies not kept. */
gboolean bench_server_start (const char   *program,
                             const char   *rules_json,
                             BenchServer  *server,
                             GError      **error);
void     bench_server_stop  (BenchServer  *server);

/* Rules that take ANoT through two exploration rounds with tools, a plan,
 * an LWT step per item and the scores, every reply after @latency_ms. */
char    *bench_anot_rules_json (guint latency_ms);

/* $ANOT_PHILLY_DATA when it holds the benchmark, else the demo data. */
char    *bench_default_data_dir (void);

G_END_DECLS
