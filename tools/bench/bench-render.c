/* bench-render.c: how fast the formatter writes candidates into a prompt
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Usage: bench-render [--items N] [--repeat R] [--write FILE] DIR
 *
 * Loads the benchmark in DIR, formats its first N items (default 200) as
 * candidates of a prompt, 50 at a time as cot does (the default JSON
 * style: each item with all its reviews, as json.dumps(indent=2) writes
 * it), R times (default 5), and prints the CPU time per item and the
 * characters written.  --write FILE writes each item's text, one JSON
 * string a line, for the Python peer (bench-render.py), which times
 * json.dumps() of the same items and checks it writes the same bytes.
 */
#include <anot/anot.h>

#include "bench-common.h"

#include <stdio.h>
#include <stdlib.h>

#define BATCH 50

int
main (int    argc,
      char **argv)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(AnotDataset) dataset = NULL;
  g_autoptr(AnotFormatter) formatter = anot_formatter_new ();
  g_autoptr(GPtrArray) items = g_ptr_array_new ();
  g_autoptr(GOptionContext) options = NULL;
  int n_items = 200, repeat = 5;
  g_autofree char *write_path = NULL;
  GOptionEntry entries[] = {
    { "items", 0, 0, G_OPTION_ARG_INT, &n_items, "Items formatted (default 200)", "N" },
    { "repeat", 0, 0, G_OPTION_ARG_INT, &repeat, "Times each item is formatted (default 5)", "R" },
    { "write", 0, 0, G_OPTION_ARG_FILENAME, &write_path, "Write each item's text to FILE", "FILE" },
    { NULL }
  };
  double best = G_MAXDOUBLE;
  guint64 chars = 0;

  options = g_option_context_new ("DIR");
  g_option_context_add_main_entries (options, entries, NULL);
  if (!g_option_context_parse (options, &argc, &argv, &error) || argc != 2 || n_items <= 0 || repeat <= 0)
    {
      g_printerr ("bench-render: %s\n", error ? error->message : "usage: bench-render [OPTION…] DIR");
      return 2;
    }

  dataset = anot_dataset_load (argv[1], NULL, &error);
  if (dataset == NULL)
    {
      g_printerr ("bench-render: %s\n", error->message);
      return 1;
    }
  for (guint i = 0; i < anot_dataset_get_n_items (dataset) && items->len < (guint) n_items; i++)
    g_ptr_array_add (items, anot_dataset_get_item (dataset, i));

  /* Items are parsed from their text the first time they are read: once
   * here, as in a run where every pool draws from the same items. */
  for (guint i = 0; i < items->len; i++)
    g_free (anot_formatter_format_item (formatter, g_ptr_array_index (items, i), i + 1));

  for (int r = 0; r < repeat; r++)
    {
      double start = bench_cpu_seconds ();

      chars = 0;
      for (guint i = 0; i < items->len; i += BATCH)
        {
          g_autoptr(GPtrArray) batch = g_ptr_array_new ();
          g_autofree char *text = NULL;

          for (guint j = i; j < items->len && j < i + BATCH; j++)
            g_ptr_array_add (batch, g_ptr_array_index (items, j));
          text = anot_formatter_format (formatter, batch, NULL);
          chars += strlen (text);
        }
      best = MIN (best, bench_cpu_seconds () - start);
    }

  if (write_path != NULL)
    {
      g_autoptr(GString) out = g_string_new (NULL);

      for (guint i = 0; i < items->len; i++)
        {
          g_autofree char *text = anot_formatter_format_item (formatter, g_ptr_array_index (items, i),
                                                              i % BATCH + 1);
          g_autoptr(JsonNode) node = json_node_new (JSON_NODE_VALUE);
          g_autofree char *line = NULL;

          json_node_set_string (node, text);
          line = json_to_string (node, FALSE);
          g_string_append (out, line);
          g_string_append_c (out, '\n');
        }
      if (!g_file_set_contents (write_path, out->str, out->len, &error))
        {
          g_printerr ("bench-render: %s\n", error->message);
          return 1;
        }
    }

  printf ("items %u, bytes per item %.0f, C formatter %.1f us per item (best of %d, CPU time)\n",
          items->len, (double) chars / items->len, best * 1e6 / items->len, repeat);
  return 0;
}
