/* anot-run-merge.c: `anot-run merge OUT SHARD_DIR...` and
 * `anot-run cache merge OUT CACHE...`
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "anot-run.h"

static const char merge_summary[] =
  "Joins the shards of one experiment (each run with anot-run --shard I/N\n"
  "or, for a study, anot-run study FILE --shard I/N: give the shards' study\n"
  "directories <out>/<name>; every cell is merged, then the report written)\n"
  "into its own directory) into OUT, the experiment directory one anot-run\n"
  "with the same options would have written: the same rows, usage,\n"
  "summaries and config.json, timestamps and wall times aside.\n"
  "\n"
  "The shards must have the same method, options and dataset checksum,\n"
  "be every shard of one split once, and hold every request exactly once;\n"
  "otherwise nothing is written and the shards, options or requests at\n"
  "fault are named (finish an interrupted shard with anot-run --resume).\n"
  "\n"
  "Exit status: 0 merged; 1 failed; 2 the shards do not belong together or\n"
  "OUT is busy or exists; 4 merged, but the infrastructure failed some\n"
  "requests of the shards (unscored): anot-run --resume OUT runs them again.";

int
anot_run_cmd_merge (int    argc,
                    char **argv)
{
  g_autoptr(GOptionContext) context = NULL;
  g_autoptr(GError) error = NULL;
  g_auto(GStrv) arguments = NULL;
  gboolean force = FALSE;
  GOptionEntry entries[] = {
    { "force", 'f', 0, G_OPTION_ARG_NONE, &force,
      "Overwrite an existing OUT", NULL },
    { G_OPTION_REMAINING, 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &arguments, NULL, "OUT SHARD_DIR..." },
    G_OPTION_ENTRY_NULL
  };

  if (argc >= 2 && g_strcmp0 (argv[1], "cache") == 0)
    return anot_run_usage_error ("merge", "to merge response caches use “anot-run cache merge OUT CACHE...”");

  g_set_prgname ("anot-run merge");
  context = g_option_context_new ("OUT SHARD_DIR... — join the shards of one experiment");
  g_option_context_set_summary (context, merge_summary);
  g_option_context_add_main_entries (context, entries, NULL);
  if (!g_option_context_parse (context, &argc, &argv, &error))
    return anot_run_usage_error ("merge", "%s", error->message);
  if (arguments == NULL || arguments[0] == NULL || arguments[1] == NULL)
    return anot_run_usage_error ("merge", "give the directory to write and the shard directories");

  /* The shards of a study (anot-run study FILE --shard I/N) hold study.json. */
  if (anot_study_is_study_directory (arguments[1])
      ? !anot_study_merge_shards (arguments[0], (const char * const *) arguments + 1, force, &error)
      : !anot_experiment_merge_shards (arguments[0], (const char * const *) arguments + 1, force, &error))
    {
      if (g_error_matches (error, ANOT_ERROR, ANOT_ERROR_INCOMPLETE))
        {
          /* Merged all the same. */
          g_print ("Merged %u shards into %s\n", g_strv_length (arguments) - 1, arguments[0]);
          g_printerr ("anot-run merge: %s\n", error->message);
          return ANOT_RUN_EXIT_INCOMPLETE;
        }
      g_printerr ("anot-run merge: %s\n", error->message);
      return g_error_matches (error, ANOT_ERROR, ANOT_ERROR_SHARDS) ||
             g_error_matches (error, ANOT_ERROR, ANOT_ERROR_INVALID_ARGUMENT) ||
             g_error_matches (error, ANOT_ERROR, ANOT_ERROR_BUSY)
             ? ANOT_RUN_EXIT_USAGE : ANOT_RUN_EXIT_FAILED;
    }
  g_print ("Merged %u shards into %s\n", g_strv_length (arguments) - 1, arguments[0]);
  return ANOT_RUN_EXIT_OK;
}

static const char cache_summary[] =
  "anot-run cache merge OUT CACHE...: copies every answer of the response\n"
  "caches CACHE... (--cache files, one per shard on a cluster) into OUT,\n"
  "created if needed; an answer already in OUT is kept once.  A later run\n"
  "with --cache OUT --offline replays the whole experiment.";

int
anot_run_cmd_cache (int    argc,
                    char **argv)
{
  g_autoptr(GOptionContext) context = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(AnotResponseCache) cache = NULL;
  g_auto(GStrv) arguments = NULL;
  guint64 total = 0;
  GOptionEntry entries[] = {
    { G_OPTION_REMAINING, 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &arguments, NULL, "merge OUT CACHE..." },
    G_OPTION_ENTRY_NULL
  };

  g_set_prgname ("anot-run cache");
  context = g_option_context_new ("merge OUT CACHE... — combine response caches");
  g_option_context_set_summary (context, cache_summary);
  g_option_context_add_main_entries (context, entries, NULL);
  if (!g_option_context_parse (context, &argc, &argv, &error))
    return anot_run_usage_error ("cache", "%s", error->message);
  if (arguments == NULL || g_strcmp0 (arguments[0], "merge") != 0)
    return anot_run_usage_error ("cache", "the only command is “merge OUT CACHE...”");
  if (arguments[1] == NULL || arguments[2] == NULL)
    return anot_run_usage_error ("cache", "give the cache to write and the caches to merge into it");

  cache = anot_response_cache_new (arguments[1], &error);
  if (cache == NULL)
    {
      g_printerr ("anot-run cache: %s\n", error->message);
      return ANOT_RUN_EXIT_FAILED;
    }
  for (guint i = 2; arguments[i] != NULL; i++)
    {
      guint64 added = 0;

      if (!anot_response_cache_merge (cache, arguments[i], &added, &error))
        {
          g_printerr ("anot-run cache: %s\n", error->message);
          return ANOT_RUN_EXIT_FAILED;
        }
      total += added;
    }
  g_print ("%s: %" G_GUINT64_FORMAT " answers added, %" G_GUINT64_FORMAT " in all\n",
           arguments[1], total, anot_response_cache_get_n_entries (cache));
  return ANOT_RUN_EXIT_OK;
}
