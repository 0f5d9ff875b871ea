/* anot-experiment-merge.c: the shards of one experiment made into the
 * directory one process would have written
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Each shard (`shard = I/N`) ran a disjoint part of the experiment's
 * cells into its own directory.  The merge checks that the shards belong
 * together, gathers their rows into an unsharded plan of the same
 * experiment and writes every file through the same writers a run uses,
 * so the result is the single run's, timestamps and wall times aside.
 */
#include "config.h"

#include "anot-experiment-private.h"

#include "anot-error.h"
#include "anot-results-writer-private.h"

#include <string.h>

typedef struct
{
  char *dir;                  /* as given */
  char *experiment_dir;       /* <out>/<name> of the shard */
  char *config_path;
  JsonNode *config;
  JsonObject *anot;           /* config.json's "anot" object */
  JsonObject *options;        /* ...and its "options" */
  guint index;
  guint count;
} Shard;

static void
shard_free (gpointer data)
{
  Shard *shard = data;

  g_free (shard->dir);
  g_free (shard->experiment_dir);
  g_free (shard->config_path);
  g_clear_pointer (&shard->config, json_node_unref);
  g_free (shard);
}

static JsonObject *
object_member (JsonObject *object,
               const char *member)
{
  JsonNode *node = object ? json_object_get_member (object, member) : NULL;

  return node != NULL && JSON_NODE_HOLDS_OBJECT (node) ? json_node_get_object (node) : NULL;
}

static Shard *
shard_read (const char  *dir,
            GError     **error)
{
  g_autoptr(GError) local_error = NULL;
  Shard *shard = g_new0 (Shard, 1);
  const char *text;
  g_auto(GStrv) parts = NULL;
  guint64 index, count;

  shard->dir = g_strdup (dir);
  shard->config_path = anot_experiment_find_config (dir, &shard->experiment_dir);
  if (shard->config_path == NULL)
    {
      g_set_error (error, ANOT_ERROR, ANOT_ERROR_SHARDS,
                   "%s is not a shard: no run_*/config.json found", dir);
      goto fail;
    }
  shard->config = anot_results_read_json (shard->config_path, &local_error);
  if (shard->config == NULL || !JSON_NODE_HOLDS_OBJECT (shard->config))
    {
      g_set_error (error, ANOT_ERROR, ANOT_ERROR_SHARDS, "Cannot read %s: %s",
                   shard->config_path, local_error ? local_error->message : "not a JSON object");
      goto fail;
    }
  shard->anot = object_member (json_node_get_object (shard->config), "anot");
  shard->options = object_member (shard->anot, "options");
  if (shard->options == NULL)
    {
      g_set_error (error, ANOT_ERROR, ANOT_ERROR_SHARDS,
                   "%s: the “anot” object lacks the options; it was not written by anot",
                   shard->config_path);
      goto fail;
    }
  text = json_object_get_string_member_with_default (shard->options, "shard", NULL);
  if (text != NULL)
    parts = g_strsplit (text, "/", 2);
  if (text == NULL || g_strv_length (parts) != 2 ||
      !g_ascii_string_to_unsigned (parts[1], 10, 1, G_MAXUINT, &count, NULL) ||
      !g_ascii_string_to_unsigned (parts[0], 10, 0, count - 1, &index, NULL))
    {
      g_set_error (error, ANOT_ERROR, ANOT_ERROR_SHARDS,
                   "%s was not run as a shard (no shard I/N in %s)", dir, shard->config_path);
      goto fail;
    }
  shard->index = (guint) index;
  shard->count = (guint) count;
  return shard;

fail:
  shard_free (shard);
  return NULL;
}

/* The first option on which @a and @b differ, the shard and the options
 * each shard may have of its own aside (its server, batch mode, budget);
 * NULL when none does. */
static char *
differing_option (Shard *a,
                  Shard *b)
{
  Shard *pairs[2][2] = { { a, b }, { b, a } };

  for (guint p = 0; p < 2; p++)
    {
      g_autoptr(GList) keys = json_object_get_members (pairs[p][0]->options);

      for (GList *l = keys; l != NULL; l = l->next)
        {
          const char *key = l->data;
          const char *x = json_object_get_string_member_with_default (pairs[p][0]->options, key, NULL);
          const char *y = json_object_get_string_member_with_default (pairs[p][1]->options, key, NULL);

          if (strcmp (key, "shard") != 0 && !anot_run_config_key_is_per_shard (key) &&
              g_strcmp0 (x, y) != 0)
            return g_strdup_printf ("“%s” (%s in %s, %s in %s)", key,
                                    p == 0 ? (x ? x : "unset") : (y ? y : "unset"), a->dir,
                                    p == 0 ? (y ? y : "unset") : (x ? x : "unset"), b->dir);
        }
    }
  return NULL;
}

/* A member of config.json's "method_plugin" (a Python method's file), or
 * NULL. */
static const char *
method_plugin_member (Shard      *shard,
                      const char *member)
{
  JsonNode *node = json_object_get_member (shard->anot, "method_plugin");

  if (node == NULL || !JSON_NODE_HOLDS_OBJECT (node))
    return NULL;
  return json_object_get_string_member_with_default (json_node_get_object (node), member, NULL);
}

static gboolean
check_shards (GPtrArray  *shards,
              GError    **error)
{
  Shard *first = g_ptr_array_index (shards, 0);
  g_autofree Shard **by_index = g_new0 (Shard *, first->count);
  g_autoptr(GString) missing = g_string_new (NULL);

  for (guint i = 0; i < shards->len; i++)
    {
      Shard *shard = g_ptr_array_index (shards, i);
      const char *method = json_object_get_string_member_with_default (shard->anot, "method", NULL);
      const char *checksum = json_object_get_string_member_with_default (shard->anot, "dataset_checksum", NULL);
      g_autofree char *difference = NULL;

      if (g_strcmp0 (method, json_object_get_string_member_with_default (first->anot, "method", NULL)) != 0)
        {
          g_set_error (error, ANOT_ERROR, ANOT_ERROR_SHARDS,
                       "%s and %s are not shards of one experiment: methods %s and %s",
                       first->dir, shard->dir,
                       json_object_get_string_member_with_default (first->anot, "method", "?"),
                       method ? method : "?");
          return FALSE;
        }
      if (g_strcmp0 (checksum, json_object_get_string_member_with_default (first->anot, "dataset_checksum", NULL)) != 0)
        {
          g_set_error (error, ANOT_ERROR, ANOT_ERROR_SHARDS,
                       "%s and %s are not shards of one experiment: they ran on different "
                       "datasets (checksums %s and %s)", first->dir, shard->dir,
                       json_object_get_string_member_with_default (first->anot, "dataset_checksum", "?"),
                       checksum ? checksum : "?");
          return FALSE;
        }
      {
        const char *first_sha = method_plugin_member (first, "sha256");
        const char *sha = method_plugin_member (shard, "sha256");

        if (g_strcmp0 (first_sha, sha) != 0)
          {
            const char *file = method_plugin_member (sha ? shard : first, "file");

            g_set_error (error, ANOT_ERROR, ANOT_ERROR_SHARDS,
                         "%s and %s are not shards of one experiment: they ran different "
                         "versions of the method file %s (SHA-256 %.12s… and %.12s…)",
                         first->dir, shard->dir, file ? file : "?",
                         first_sha ? first_sha : "(none)", sha ? sha : "(none)");
            return FALSE;
          }
      }
      {
        const char *first_sha = json_object_get_string_member_with_default (first->anot,
                                                                            "defense_prompt_sha256", NULL);
        const char *sha = json_object_get_string_member_with_default (shard->anot, "defense_prompt_sha256", NULL);

        /* Both defended (the option "defense" is compared below), by
         * different texts: config.ini's [defense] differed between them. */
        if (first_sha != NULL && sha != NULL && strcmp (first_sha, sha) != 0)
          {
            g_set_error (error, ANOT_ERROR, ANOT_ERROR_SHARDS,
                         "%s and %s are not shards of one experiment: they sent different "
                         "defense prompts (SHA-256 %.12s… and %.12s…; the [defense] section of "
                         "their configuration files)", first->dir, shard->dir, first_sha, sha);
            return FALSE;
          }
      }
      difference = differing_option (first, shard);
      if (difference != NULL)
        {
          g_set_error (error, ANOT_ERROR, ANOT_ERROR_SHARDS,
                       "%s and %s are not shards of one experiment: they differ in the option %s",
                       first->dir, shard->dir, difference);
          return FALSE;
        }
      {
        g_autoptr(GHashTable) first_settings = anot_experiment_read_method_settings_record (first->anot);
        g_autoptr(GHashTable) shard_settings = anot_experiment_read_method_settings_record (shard->anot);
        g_autofree char *change = anot_experiment_describe_settings_change (first_settings,
                                                                            shard_settings);

        if (change != NULL)
          {
            g_set_error (error, ANOT_ERROR, ANOT_ERROR_SHARDS,
                         "%s and %s are not shards of one experiment: they read different "
                         "method settings from config.ini (in the second, %s)",
                         first->dir, shard->dir, change);
            return FALSE;
          }
      }
      if (shard->count != first->count)
        {
          g_set_error (error, ANOT_ERROR, ANOT_ERROR_SHARDS,
                       "%s is shard %u/%u but %s is shard %u/%u: not one split",
                       first->dir, first->index, first->count, shard->dir, shard->index, shard->count);
          return FALSE;
        }
      if (by_index[shard->index] != NULL)
        {
          g_set_error (error, ANOT_ERROR, ANOT_ERROR_SHARDS,
                       "Shard %u/%u is given twice: %s and %s",
                       shard->index, shard->count, by_index[shard->index]->dir, shard->dir);
          return FALSE;
        }
      by_index[shard->index] = shard;
    }
  for (guint i = 0; i < first->count; i++)
    if (by_index[i] == NULL)
      g_string_append_printf (missing, "%s%u/%u", missing->len ? ", " : "", i, first->count);
  if (missing->len > 0)
    {
      g_set_error (error, ANOT_ERROR, ANOT_ERROR_SHARDS, "Shard%s %s missing",
                   strchr (missing->str, ',') ? "s" : "", missing->str);
      return FALSE;
    }
  return TRUE;
}

static char *
shard_run_file (Shard       *shard,
                AttackEntry *attack,
                guint        run,
                const char  *prefix,
                guint        n)
{
  g_autofree char *run_dir = g_strdup_printf ("run_%u", run);
  g_autofree char *file = g_strdup_printf ("%s_%u.jsonl", prefix, n);

  return g_build_filename (shard->experiment_dir, attack->name, run_dir, file, NULL);
}

static Shard *
shard_with_index (GPtrArray *shards,
                  guint      index)
{
  for (guint i = 0; i < shards->len; i++)
    if (((Shard *) g_ptr_array_index (shards, i))->index == index)
      return g_ptr_array_index (shards, i);
  return NULL;
}

/* Every cell's rows from the shards: each planned request exactly once. */
static gboolean
gather_rows (AnotExperiment  *self,
             GPtrArray       *shards,
             GError         **error)
{
  g_autoptr(GString) missing = g_string_new (NULL);
  guint n_missing = 0;
  guint64 position = 0;
  guint count = ((Shard *) g_ptr_array_index (shards, 0))->count;

  for (guint c = 0; c < self->cells->len; c++)
    {
      Cell *cell = g_ptr_array_index (self->cells, c);
      GPtrArray *kept = g_hash_table_lookup (self->kept, GUINT_TO_POINTER (cell->n));
      g_autoptr(GHashTable) from = g_hash_table_new (g_str_hash, g_str_equal);

      for (guint s = 0; s < shards->len; s++)
        {
          Shard *shard = g_ptr_array_index (shards, s);
          g_autofree char *path = shard_run_file (shard, cell->attack, cell->run, "results", cell->n);
          g_autoptr(GPtrArray) rows = NULL;
          guint n_skipped = 0;

          rows = anot_results_read_rows (path, cell->run, cell->n, &n_skipped, error);
          if (rows == NULL)
            return FALSE;
          for (guint r = 0; r < rows->len; r++)
            {
              AnotResult *result = g_ptr_array_index (rows, r);
              const char *id = anot_result_get_request_id (result);
              Shard *other = g_hash_table_lookup (from, id);
              gboolean planned = FALSE;

              for (guint k = 0; k < kept->len && !planned; k++)
                planned = strcmp (anot_request_get_id (g_ptr_array_index (kept, k)), id) == 0;
              if (!planned)
                {
                  g_set_error (error, ANOT_ERROR, ANOT_ERROR_SHARDS,
                               "%s: request %s is not in the experiment's plan for "
                               "attack %s, run %u, N=%u", path, id, cell->attack->name,
                               cell->run, cell->n);
                  return FALSE;
                }
              if (other != NULL)
                {
                  g_set_error (error, ANOT_ERROR, ANOT_ERROR_SHARDS,
                               "Request %s (attack %s, run %u, N=%u) is in two shards: %s and %s",
                               id, cell->attack->name, cell->run, cell->n, other->dir, shard->dir);
                  return FALSE;
                }
              g_hash_table_insert (from, (gpointer) anot_result_get_request_id (result), shard);
              g_hash_table_insert (cell->rows, g_strdup (id), g_object_ref (result));
            }
        }

      for (guint k = 0; k < kept->len; k++, position++)
        {
          const char *id = anot_request_get_id (g_ptr_array_index (kept, k));

          if (g_hash_table_contains (cell->rows, id))
            continue;
          if (n_missing++ < 10)
            {
              Shard *owner = shard_with_index (shards, (guint) (position % count));

              g_string_append_printf (missing, "\n  %s (attack %s, run %u, N=%u): shard %u/%u, %s",
                                      id, cell->attack->name, cell->run, cell->n,
                                      owner->index, owner->count, owner->dir);
            }
        }
    }

  if (n_missing > 0)
    {
      g_set_error (error, ANOT_ERROR, ANOT_ERROR_SHARDS,
                   "%u request%s missing from the shards (finish a shard with "
                   "anot-run --resume DIR):%s%s", n_missing, n_missing == 1 ? " is" : "s are",
                   missing->str, n_missing > 10 ? "\n  …" : "");
      return FALSE;
    }
  return TRUE;
}

typedef struct
{
  const char *request_id;
  guint order;
  char *line;
} TraceLine;

static int
compare_trace_lines (gconstpointer a,
                     gconstpointer b)
{
  const TraceLine *x = a, *y = b;
  int by_id = strcmp (x->request_id, y->request_id);

  if (by_id != 0)
    return by_id;
  return x->order < y->order ? -1 : x->order > y->order;
}

/* trace_<N>.jsonl: the shards' lines, by request id.  One process writes
 * them as requests finish, an order no two runs share. */
static gboolean
merge_traces (AnotExperiment  *self,
              GPtrArray       *shards,
              Cell            *cell,
              GError         **error)
{
  g_autoptr(GArray) lines = g_array_new (FALSE, FALSE, sizeof (TraceLine));
  g_autoptr(GPtrArray) documents = g_ptr_array_new_with_free_func ((GDestroyNotify) json_node_unref);
  g_autoptr(GString) contents = g_string_new (NULL);
  g_autofree char *out = anot_experiment_run_file_path (cell->attack, cell->run, "trace", cell->n);
  gboolean any = FALSE;

  for (guint s = 0; s < shards->len; s++)
    {
      g_autofree char *path = shard_run_file (g_ptr_array_index (shards, s), cell->attack,
                                              cell->run, "trace", cell->n);
      g_autofree char *text = NULL;
      g_auto(GStrv) split = NULL;

      if (!g_file_test (path, G_FILE_TEST_EXISTS))
        continue;
      any = TRUE;
      if (!g_file_get_contents (path, &text, NULL, error))
        return FALSE;
      split = g_strsplit (text, "\n", -1);
      for (guint i = 0; split[i] != NULL; i++)
        {
          JsonNode *node;
          TraceLine line = { NULL, lines->len, NULL };

          if (*split[i] == '\0')
            continue;
          node = json_from_string (split[i], NULL);
          /* A torn last line of a killed shard: its request was run again. */
          if (node == NULL || !JSON_NODE_HOLDS_OBJECT (node))
            {
              g_clear_pointer (&node, json_node_unref);
              continue;
            }
          g_ptr_array_add (documents, node);
          line.request_id = json_object_get_string_member_with_default (json_node_get_object (node),
                                                                         "request_id", "");
          line.line = split[i];
          split[i] = g_strdup ("");
          g_array_append_val (lines, line);
        }
    }
  if (!any)
    return TRUE;

  g_array_sort (lines, compare_trace_lines);
  for (guint i = 0; i < lines->len; i++)
    {
      TraceLine *line = &g_array_index (lines, TraceLine, i);

      /* A request run again after a kill (its row was lost) has two
       * lines: the last one goes with the row. */
      if (i + 1 == lines->len ||
          strcmp (line->request_id, g_array_index (lines, TraceLine, i + 1).request_id) != 0)
        {
          g_string_append (contents, line->line);
          g_string_append_c (contents, '\n');
        }
      g_free (line->line);
    }
  if (!g_file_set_contents (out, contents->str, contents->len, error))
    {
      g_prefix_error (error, "Cannot write %s: ", out);
      return FALSE;
    }
  return TRUE;
}

/* The shards' journals, one after the other, as the merged experiment's
 * answers.jsonl: a resume of the merged directory replays their answers,
 * and its summaries count the calls they cancelled in flight.  Their keys
 * name the request, which one shard ran. */
static gboolean
merge_journals (AnotExperiment  *experiment,
                GPtrArray       *shards,
                GError         **error)
{
  g_autofree char *path = g_build_filename (experiment->directory, "answers.jsonl", NULL);
  g_autoptr(GString) all = g_string_new (NULL);
  g_autoptr(GError) local = NULL;

  for (guint s = 0; s < shards->len; s++)
    {
      Shard *shard = g_ptr_array_index (shards, s);
      g_autofree char *shard_path = g_build_filename (shard->experiment_dir, "answers.jsonl", NULL);
      g_autofree char *contents = NULL;
      gsize length;

      if (!g_file_get_contents (shard_path, &contents, &length, &local))
        {
          if (!g_error_matches (local, G_FILE_ERROR, G_FILE_ERROR_NOENT))
            {
              g_set_error (error, ANOT_ERROR, ANOT_ERROR_IO, "Cannot read %s: %s", shard_path,
                           local->message);
              return FALSE;
            }
          g_clear_error (&local);
          continue;
        }
      /* A line torn by a kill is left out, as a resume of the shard would. */
      while (length > 0 && contents[length - 1] != '\n')
        length--;
      g_string_append_len (all, contents, length);
    }
  if (all->len > 0 && !g_file_set_contents (path, all->str, all->len, &local))
    {
      g_set_error (error, ANOT_ERROR, ANOT_ERROR_IO, "Cannot write %s: %s", path, local->message);
      return FALSE;
    }
  g_clear_object (&experiment->journal);
  experiment->journal = anot_call_journal_open (path, error);
  return experiment->journal != NULL;
}

/**
 * anot_experiment_merge_shards:
 * @out_directory: the experiment directory to write, `<out>/<name>`; it
 *   must not exist or be empty unless @force
 * @shard_directories: (array zero-terminated=1): the experiment
 *   directories of every shard (`anot-run --shard I/N` wrote each)
 * @force: remove an earlier experiment's files from @out_directory first
 * @error: return location for a #GError
 *
 * Merges the shards of one experiment into the directory one process
 * with the same options would have written: the same rows, usage,
 * summaries and `config.json` (timestamps and wall times aside; the
 * lines of `trace_<N>.jsonl` are ordered by request id).
 *
 * The shards must have the same method, dataset checksum and options,
 * be every shard 0..N-1 of one split, once each, and together hold every
 * planned request exactly once.  Options a shard may have of its own are
 * not compared: the shard, `base-url` (each Slurm task may ask its own
 * server), the batch options and the budgets (`max-cost`,
 * `max-cost-role`); the merged `config.json` records those of the first
 * shard given.
 *
 * Errors: %ANOT_ERROR_SHARDS naming the shard, option or requests at
 * fault; %ANOT_ERROR_RESUME when the recorded dataset cannot be loaded;
 * %ANOT_ERROR_INVALID_ARGUMENT when @out_directory is not empty;
 * %ANOT_ERROR_INCOMPLETE after the merged directory was written, when the
 * infrastructure failed some requests in the shards (unscored, as a run
 * ends): `anot-run --resume` of @out_directory runs them again.
 *
 * Returns: %TRUE when the merged directory was written and every request
 *   in it scored
 */
gboolean
anot_experiment_merge_shards (const char         *out_directory,
                              const char * const *shard_directories,
                              gboolean            force,
                              GError            **error)
{
  g_autoptr(GPtrArray) shards = g_ptr_array_new_with_free_func (shard_free);
  g_autoptr(AnotExperiment) experiment = NULL;
  g_autofree char *out = NULL;
  g_autofree char *name = NULL;
  g_autofree char *trimmed = NULL;
  guint n_rows = 0, n_unscored = 0;

  g_return_val_if_fail (out_directory != NULL, FALSE);
  g_return_val_if_fail (shard_directories != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if (shard_directories[0] == NULL)
    {
      g_set_error (error, ANOT_ERROR, ANOT_ERROR_SHARDS, "No shard directory given");
      return FALSE;
    }
  for (guint i = 0; shard_directories[i] != NULL; i++)
    {
      Shard *shard = shard_read (shard_directories[i], error);

      if (shard == NULL)
        return FALSE;
      g_ptr_array_add (shards, shard);
    }
  if (!check_shards (shards, error))
    return FALSE;

  /* The experiment as one process would run it: the shards' options,
   * without the shard, into @out_directory. */
  experiment = anot_experiment_new_for_resume (((Shard *) g_ptr_array_index (shards, 0))->dir,
                                               NULL, error);
  if (experiment == NULL)
    return FALSE;
  /* As given, like --out: a single run into the same place records the
   * same "out". */
  trimmed = g_strdup (out_directory);
  for (gsize len = strlen (trimmed); len > 1 && trimmed[len - 1] == '/'; len--)
    trimmed[len - 1] = '\0';
  out = g_path_get_dirname (trimmed);
  name = g_path_get_basename (trimmed);
  experiment->resuming = FALSE;
  experiment->merging = TRUE;
  if (!anot_run_config_set (experiment->config, "shard", NULL, error) ||
      !anot_run_config_set (experiment->config, "out", out, error) ||
      !anot_run_config_set (experiment->config, "name", name, error) ||
      !anot_run_config_set (experiment->config, "force", force ? "true" : "false", error) ||
      !anot_experiment_prepare (experiment, error))
    return FALSE;

  /* Everything is checked before anything is written; then the
   * directory is locked (another process may be writing it) and the
   * directories are made (emptied first with @force, so nothing of an
   * earlier merge is read back). */
  if (!gather_rows (experiment, shards, error) ||
      !anot_experiment_open_directories (experiment, error) ||
      !merge_journals (experiment, shards, error))
    return FALSE;

  for (guint c = 0; c < experiment->cells->len; c++)
    {
      Cell *cell = g_ptr_array_index (experiment->cells, c);
      g_autofree char *dir = anot_experiment_run_dir_path (cell->attack, cell->run);
      GHashTableIter iter;
      gpointer row;

      cell->complete = TRUE;
      if (!anot_experiment_make_directory (dir, error) ||
          !merge_traces (experiment, shards, cell, error) ||
          !anot_experiment_write_cell_files (experiment, cell, "complete", TRUE, error))
        return FALSE;
      g_hash_table_iter_init (&iter, cell->rows);
      while (g_hash_table_iter_next (&iter, NULL, &row))
        {
          n_rows++;
          if (!anot_result_is_scored (row))
            n_unscored++;
        }
    }
  /* As a run ends: a job that merges whatever the shards left must not
   * read an incomplete experiment as done. */
  if (n_unscored > 0)
    {
      /* The merge itself needed no method; running what is left does. */
      g_autofree char *missing = experiment->plugin_path != NULL &&
                                 !g_file_test (experiment->plugin_path, G_FILE_TEST_EXISTS)
        ? g_strdup_printf (" (it needs the method file %s, which the shards ran and which is not "
                           "there now)", experiment->plugin_path)
        : g_strdup ("");

      g_set_error (error, ANOT_ERROR, ANOT_ERROR_INCOMPLETE,
                   "%u of %u requests of the experiment could not be scored: the infrastructure "
                   "failed them in the shards. The merged summaries are over the %u scored; run "
                   "the others again with: anot-run --resume %s%s",
                   n_unscored, n_rows, n_rows - n_unscored, out_directory, missing);
      return FALSE;
    }
  return TRUE;
}
