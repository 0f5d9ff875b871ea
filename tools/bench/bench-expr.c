/* bench-expr.c: how fast AnotExpr evaluates a real compute DAG
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Usage: bench-expr SEED.json EXTRACTIONS.json
 *
 * Evaluates the seed's compute DAG with anot_formula_seed_compute() in the
 * original framework's mode (its builtins; a failing step takes 0 or 0.0)
 * over every item of EXTRACTIONS.json (from gen-extractions.py), and one
 * typical formula on its own.  bench-expr.py prints the same figures for
 * Python's eval() on the same files.  See tools/bench/README.md.
 */
#include <anot/anot.h>

#include "bench-common.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int
main (int    argc,
      char **argv)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(AnotFormulaSeed) seed = NULL;
  g_autoptr(JsonParser) parser = json_parser_new ();
  JsonArray *items;
  guint n_items, n_extractions;
  double best = G_MAXDOUBLE;
  guint failed_total = 0;

  if (argc != 3)
    {
      fprintf (stderr, "usage: %s SEED.json EXTRACTIONS.json\n", argv[0]);
      return 2;
    }
  seed = anot_formula_seed_load (argv[1], TRUE, &error);
  if (seed == NULL || !json_parser_load_from_file (parser, argv[2], &error))
    {
      fprintf (stderr, "%s\n", error->message);
      return 1;
    }
  items = json_object_get_array_member (json_node_get_object (json_parser_get_root (parser)), "items");
  n_items = json_array_get_length (items);
  n_extractions = json_array_get_length (json_object_get_array_member (json_array_get_object_element (items, 0),
                                                                       "extractions"));

  for (guint round = 0; round < 3; round++)
    {
      double start = bench_cpu_seconds ();
      double elapsed;

      failed_total = 0;
      for (guint i = 0; i < n_items; i++)
        {
          JsonObject *item = json_array_get_object_element (items, i);
          guint failed;
          g_autoptr(JsonObject) trace = anot_formula_seed_compute (seed,
                                                                   json_object_get_array_member (item, "extractions"),
                                                                   json_object_get_string_member (item, "categories"),
                                                                   TRUE, &failed);

          failed_total += failed;
        }
      elapsed = bench_cpu_seconds () - start;
      best = MIN (best, elapsed);
    }
  printf ("anot compute: %u steps, %u items x %u extractions, %u failed steps: %.1f us CPU per item (best of 3)\n",
          anot_formula_seed_get_n_steps (seed), n_items, n_extractions, failed_total, best * 1e6 / n_items);

  /* The whole path from text to text (anot_formula_seed_compute_text()):
   * each item's extractions written as JSON text beforehand, as they come
   * from a file or an LLM answer; the trace written as text. */
  {
    g_autoptr(GPtrArray) texts = g_ptr_array_new_with_free_func (g_free);
    g_autoptr(GArray) lengths = g_array_new (FALSE, FALSE, sizeof (gssize));
    double best_text = G_MAXDOUBLE;

    for (guint i = 0; i < n_items; i++)
      {
        JsonObject *item = json_array_get_object_element (items, i);

        char *text = json_to_string (json_object_get_member (item, "extractions"), FALSE);
        gssize length = (gssize) strlen (text);

        /* A file's or an LLM answer's text comes with its length, as a
         * Python str does. */
        g_ptr_array_add (texts, text);
        g_array_append_val (lengths, length);
      }
    for (guint round = 0; round < 3; round++)
      {
        double start = bench_cpu_seconds ();

        failed_total = 0;
        for (guint i = 0; i < n_items; i++)
          {
            JsonObject *item = json_array_get_object_element (items, i);
            guint failed;
            g_autofree char *trace = anot_formula_seed_compute_text (seed, texts->pdata[i],
                                                                     g_array_index (lengths, gssize, i),
                                                                     json_object_get_string_member (item, "categories"),
                                                                     TRUE, &failed, &error);

            if (trace == NULL)
              {
                fprintf (stderr, "%s\n", error->message);
                return 1;
              }
            failed_total += failed;
          }
        best_text = MIN (best_text, bench_cpu_seconds () - start);
      }
    printf ("anot compute_text: %u failed steps: %.1f us CPU per item (best of 3), JSON text in, JSON trace out\n",
            failed_total, best_text * 1e6 / n_items);
  }

  /* Evaluation only: the scopes bound beforehand, values stay native (as
   * Python's dicts do), no trace.  Each round evaluates scopes of its own,
   * so that no round finds anything a previous one left in them. */
  {
    double bind = G_MAXDOUBLE;

    best = G_MAXDOUBLE;
    for (guint round = 0; round < 3; round++)
      {
        g_autoptr(GPtrArray) scopes = g_ptr_array_new_with_free_func ((GDestroyNotify) anot_expr_scope_unref);
        double start = bench_cpu_seconds ();

        for (guint i = 0; i < n_items; i++)
          {
            JsonObject *item = json_array_get_object_element (items, i);

            g_ptr_array_add (scopes, anot_formula_seed_new_scope (seed, json_object_get_array_member (item, "extractions"),
                                                                  json_object_get_string_member (item, "categories"), TRUE));
          }
        bind = MIN (bind, bench_cpu_seconds () - start);
        start = bench_cpu_seconds ();
        failed_total = 0;
        for (guint i = 0; i < n_items; i++)
          failed_total += anot_formula_seed_evaluate (seed, scopes->pdata[i], TRUE);
        best = MIN (best, bench_cpu_seconds () - start);
      }
    printf ("anot evaluate: %u failed steps: %.1f us CPU per item (best of 3); binding the inputs from JSON: %.1f us per item\n",
            failed_total, best * 1e6 / n_items, bind * 1e6 / n_items);
  }

  /* One typical formula, parsed once, evaluated many times. */
  {
    g_autoptr(AnotExpr) expr = anot_expr_parse ("sum(1 for e in extractions if e['incident_severity'] == 'mild' "
                                                "and e['account_type'] == 'firsthand')", "n_mild", &error);
    g_autoptr(AnotExprScope) scope = anot_expr_scope_new ();
    JsonObject *item = json_array_get_object_element (items, 0);
    guint n = 200000;
    double start;
    double elapsed;

    anot_expr_scope_set (scope, "extractions", json_object_get_member (item, "extractions"));
    start = bench_cpu_seconds ();
    for (guint i = 0; i < n; i++)
      if (!anot_expr_evaluate_to_scope (expr, scope, "n_mild", &error))
        {
          fprintf (stderr, "%s\n", error->message);
          return 1;
        }
    elapsed = bench_cpu_seconds () - start;
    printf ("anot expr: n_mild over %u extractions: %.0f evaluations per CPU second (%" G_GUINT64_FORMAT " steps each)\n",
            n_extractions, n / elapsed, anot_expr_scope_get_last_steps (scope));
  }
  return 0;
}
