/* bench-load.c: how fast anot_dataset_load() reads a benchmark directory
 * and how much memory the loaded dataset occupies
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Usage: bench-load [--repeat N] DIR
 *
 * Prints the on-disk size of DIR (the sum of its regular files), the wall
 * time and CPU time of each load, the throughput, the peak resident set size of the
 * process (getrusage) and its ratio to the on-disk size.  See
 * tools/bench/README.md.
 */
#include <anot/anot.h>

#include "bench-common.h"

#include <glib/gstdio.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#define MB (1024.0 * 1024.0)

static gboolean
dir_size (const char  *path,
          guint64     *out_size,
          GError     **error)
{
  g_autoptr(GDir) dir = g_dir_open (path, 0, error);
  const char *name;
  guint64 size = 0;

  if (dir == NULL)
    return FALSE;

  while ((name = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *file = g_build_filename (path, name, NULL);
      GStatBuf st;

      if (g_stat (file, &st) == 0 && S_ISREG (st.st_mode))
        size += (guint64) st.st_size;
    }

  *out_size = size;
  return TRUE;
}

/* Peak RSS in bytes; ru_maxrss is in kilobytes on Linux. */
static guint64
peak_rss (void)
{
  struct rusage usage;

  if (getrusage (RUSAGE_SELF, &usage) != 0)
    return 0;
  return (guint64) usage.ru_maxrss * 1024;
}

/* Current RSS in bytes, or 0 where /proc is not available.  The peak
 * includes the parser's transient garbage; the current value after a load
 * is what the dataset keeps. */
static guint64
current_rss (void)
{
  g_autofree char *statm = NULL;
  unsigned long pages_total, pages_resident;

  if (!g_file_get_contents ("/proc/self/statm", &statm, NULL, NULL))
    return 0;
  if (sscanf (statm, "%lu %lu", &pages_total, &pages_resident) != 2)
    return 0;
  return (guint64) pages_resident * (guint64) sysconf (_SC_PAGESIZE);
}

int
main (int    argc,
      char **argv)
{
  g_autoptr(GOptionContext) context = NULL;
  g_autoptr(GError) error = NULL;
  g_auto(GStrv) dirs = NULL;
  int repeat = 1;
  GOptionEntry entries[] = {
    { "repeat", 'n', 0, G_OPTION_ARG_INT, &repeat, "Load the dataset N times (default 1)", "N" },
    { G_OPTION_REMAINING, 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &dirs, NULL, "DIR" },
    { NULL }
  };
  guint64 disk = 0, rss_before, rss_after = 0;
  double best = G_MAXDOUBLE, total = 0;

  context = g_option_context_new ("DIR — measure loading a benchmark directory");
  g_option_context_add_main_entries (context, entries, NULL);
  if (!g_option_context_parse (context, &argc, &argv, &error))
    {
      g_printerr ("bench-load: %s\n", error->message);
      return 2;
    }
  if (dirs == NULL || dirs[0] == NULL || dirs[1] != NULL || repeat < 1)
    {
      g_printerr ("Usage: bench-load [--repeat N] DIR\n");
      return 2;
    }

  if (!dir_size (dirs[0], &disk, &error))
    {
      g_printerr ("bench-load: %s\n", error->message);
      return 1;
    }

  rss_before = current_rss ();

  for (int i = 0; i < repeat; i++)
    {
      g_autoptr(AnotDataset) dataset = NULL;
      gint64 start = g_get_monotonic_time ();
      double cpu_start = bench_cpu_seconds ();
      double seconds, cpu;

      dataset = anot_dataset_load (dirs[0], NULL, &error);
      seconds = (g_get_monotonic_time () - start) / (double) G_USEC_PER_SEC;
      cpu = bench_cpu_seconds () - cpu_start;
      if (dataset == NULL)
        {
          g_printerr ("bench-load: %s\n", error->message);
          return 1;
        }

      if (i == 0)
        {
          rss_after = current_rss ();
          printf ("dataset:        %s\n", anot_dataset_get_path (dataset));
          printf ("items:          %u\n", anot_dataset_get_n_items (dataset));
          printf ("reviews:        %u\n", anot_dataset_get_n_reviews (dataset));
          printf ("requests:       %u\n", anot_dataset_get_n_requests (dataset));
          printf ("on disk:        %.1f MiB\n", disk / MB);
        }
      printf ("load %d:         %.3f s (%.1f MiB/s), CPU %.3f s\n", i + 1, seconds,
              seconds > 0 ? disk / MB / seconds : 0.0, cpu);
      best = MIN (best, seconds);
      total += seconds;
    }

  printf ("best load:      %.3f s (%.1f MiB/s)\n", best, best > 0 ? disk / MB / best : 0.0);
  if (repeat > 1)
    printf ("mean load:      %.3f s\n", total / repeat);
  printf ("peak RSS:       %.1f MiB (%.2f x on-disk size)\n",
          peak_rss () / MB, disk > 0 ? (double) peak_rss () / disk : 0.0);
  if (rss_after > 0)
    printf ("retained RSS:   %.1f MiB (%.2f x on-disk size; RSS after the first load minus before)\n",
            (rss_after - MIN (rss_after, rss_before)) / MB,
            disk > 0 ? (double) (rss_after - MIN (rss_after, rss_before)) / disk : 0.0);

  return 0;
}
