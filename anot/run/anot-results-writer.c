/* anot-results-writer.c: reading and writing the results layout
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "anot-results-writer-private.h"

#include "anot-error.h"
#include "anot-metrics.h"
#include "anot-usage-private.h"
#include "anot-metrics-private.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

char *
anot_results_timestamp_now (void)
{
  g_autoptr(GDateTime) now = g_date_time_new_now_local ();
  g_autofree char *seconds = g_date_time_format (now, "%Y-%m-%dT%H:%M:%S");

  return g_strdup_printf ("%s.%06d", seconds, g_date_time_get_microsecond (now));
}

JsonNode *
anot_results_read_json (const char  *path,
                        GError     **error)
{
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(GError) local_error = NULL;
  JsonNode *root;

  if (!json_parser_load_from_mapped_file (parser, path, &local_error))
    {
      if (local_error->domain == G_FILE_ERROR)
        g_set_error (error, ANOT_ERROR, ANOT_ERROR_IO, "%s: %s", path, local_error->message);
      else
        g_set_error (error, ANOT_ERROR, ANOT_ERROR_PARSE, "%s: %s", path, local_error->message);
      return NULL;
    }
  root = json_parser_get_root (parser);
  if (root == NULL)
    {
      g_set_error (error, ANOT_ERROR, ANOT_ERROR_PARSE, "%s: empty document", path);
      return NULL;
    }
  return json_node_copy (root);
}

gboolean
anot_results_write_json (const char  *path,
                         JsonNode    *node,
                         gboolean     pretty,
                         GError     **error)
{
  g_autoptr(JsonGenerator) generator = json_generator_new ();
  g_autoptr(GError) local_error = NULL;
  g_autofree char *text = NULL;
  g_autofree char *contents = NULL;
  gsize length;

  json_generator_set_root (generator, node);
  json_generator_set_pretty (generator, pretty);
  json_generator_set_indent (generator, 2);
  text = json_generator_to_data (generator, &length);
  contents = g_strconcat (text, "\n", NULL);

  /* g_file_set_contents() writes a temporary file and renames it, so a
   * reader (or a kill -9) never sees half a file. */
  if (!g_file_set_contents (path, contents, -1, &local_error))
    {
      g_set_error (error, ANOT_ERROR, ANOT_ERROR_IO, "%s", local_error->message);
      return FALSE;
    }
  return TRUE;
}

char *
anot_results_node_to_line (JsonNode *node)
{
  g_autoptr(JsonGenerator) generator = json_generator_new ();

  json_generator_set_root (generator, node);
  return json_generator_to_data (generator, NULL);
}

GPtrArray *
anot_results_read_rows (const char  *path,
                        guint        run,
                        guint        n_candidates,
                        guint       *out_n_skipped,
                        GError     **error)
{
  g_autoptr(GError) local_error = NULL;
  g_autofree char *contents = NULL;
  g_autoptr(GHashTable) by_id = NULL;
  g_auto(GStrv) lines = NULL;
  GPtrArray *results;
  guint n_skipped = 0;

  if (out_n_skipped)
    *out_n_skipped = 0;

  results = g_ptr_array_new_with_free_func (g_object_unref);
  if (!g_file_get_contents (path, &contents, NULL, &local_error))
    {
      if (g_error_matches (local_error, G_FILE_ERROR, G_FILE_ERROR_NOENT))
        return results;
      g_set_error (error, ANOT_ERROR, ANOT_ERROR_IO, "%s", local_error->message);
      g_ptr_array_unref (results);
      return NULL;
    }

  by_id = g_hash_table_new (g_str_hash, g_str_equal);
  lines = g_strsplit (contents, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    {
      g_autoptr(JsonParser) parser = NULL;
      g_autoptr(AnotResult) result = NULL;
      JsonNode *root;
      AnotResult *previous;

      if (*g_strstrip (lines[i]) == '\0')
        continue;

      parser = json_parser_new ();
      if (!json_parser_load_from_data (parser, lines[i], -1, NULL) ||
          (root = json_parser_get_root (parser)) == NULL ||
          !JSON_NODE_HOLDS_OBJECT (root) ||
          (result = anot_result_new_from_json (json_node_get_object (root), NULL)) == NULL)
        {
          /* A killed run can leave half a line at the end; whatever does
           * not parse is redone rather than trusted. */
          n_skipped++;
          continue;
        }

      anot_result_set_location (result, run, n_candidates);
      previous = g_hash_table_lookup (by_id, anot_result_get_request_id (result));
      if (previous != NULL)
        {
          /* Later rows win, as in the original's merge by request_id. */
          g_ptr_array_remove (results, previous);
        }
      g_hash_table_insert (by_id, (gpointer) anot_result_get_request_id (result), result);
      g_ptr_array_add (results, g_steal_pointer (&result));
    }

  g_ptr_array_sort (results, anot_result_compare_by_id);
  if (out_n_skipped)
    *out_n_skipped = n_skipped;
  return results;
}

gboolean
anot_results_write_rows (const char  *path,
                         GPtrArray   *results,
                         GError     **error)
{
  g_autoptr(GPtrArray) sorted = g_ptr_array_sized_new (results->len);
  g_autoptr(GString) contents = g_string_new (NULL);
  g_autoptr(GError) local_error = NULL;

  /* Not g_ptr_array_copy(): that would inherit the free function. */
  for (guint i = 0; i < results->len; i++)
    g_ptr_array_add (sorted, g_ptr_array_index (results, i));
  g_ptr_array_sort (sorted, anot_result_compare_by_id);
  for (guint i = 0; i < sorted->len; i++)
    {
      g_autoptr(JsonNode) node = anot_result_to_json (g_ptr_array_index (sorted, i));
      g_autofree char *line = anot_results_node_to_line (node);

      g_string_append (contents, line);
      g_string_append_c (contents, '\n');
    }

  if (!g_file_set_contents (path, contents->str, contents->len, &local_error))
    {
      g_set_error (error, ANOT_ERROR, ANOT_ERROR_IO, "%s", local_error->message);
      return FALSE;
    }
  return TRUE;
}

static int
compare_result_n_then_id (gconstpointer a,
                          gconstpointer b)
{
  AnotResult *x = *(AnotResult * const *) a;
  AnotResult *y = *(AnotResult * const *) b;
  guint nx = anot_result_get_n_candidates (x), ny = anot_result_get_n_candidates (y);

  if (nx != ny)
    return nx < ny ? -1 : 1;
  return strcmp (anot_result_get_request_id (x), anot_result_get_request_id (y));
}

gboolean
anot_results_write_usage (const char  *path,
                          GHashTable  *by_n,
                          GError     **error)
{
  g_autoptr(GPtrArray) all = g_ptr_array_new ();
  g_autoptr(GString) contents = g_string_new (NULL);
  g_autoptr(GError) local_error = NULL;
  g_autofree char *timestamp = anot_results_timestamp_now ();
  GHashTableIter iter;
  gpointer value;

  g_hash_table_iter_init (&iter, by_n);
  while (g_hash_table_iter_next (&iter, NULL, &value))
    {
      GPtrArray *rows = value;

      for (guint i = 0; i < rows->len; i++)
        g_ptr_array_add (all, g_ptr_array_index (rows, i));
    }
  g_ptr_array_sort (all, compare_result_n_then_id);

  for (guint i = 0; i < all->len; i++)
    {
      AnotResult *result = g_ptr_array_index (all, i);
      AnotUsage *usage = anot_result_get_usage (result);
      g_autoptr(JsonBuilder) builder = json_builder_new ();
      g_autoptr(JsonNode) node = NULL;
      g_autofree char *line = NULL;

      json_builder_begin_object (builder);
      json_builder_set_member_name (builder, "request_id");
      json_builder_add_string_value (builder, anot_result_get_request_id (result));
      json_builder_set_member_name (builder, "n_candidates");
      json_builder_add_int_value (builder, anot_result_get_n_candidates (result));
      json_builder_set_member_name (builder, "prompt_tokens");
      json_builder_add_int_value (builder, anot_usage_get_prompt_tokens (usage));
      json_builder_set_member_name (builder, "completion_tokens");
      json_builder_add_int_value (builder, anot_usage_get_completion_tokens (usage));
      json_builder_set_member_name (builder, "tokens");
      json_builder_add_int_value (builder, anot_usage_get_prompt_tokens (usage) +
                                           anot_usage_get_completion_tokens (usage));
      json_builder_set_member_name (builder, "cost_usd");
      anot_usage_add_cost_value (builder, anot_usage_get_cost_usd (usage));
      if (!anot_usage_get_cost_known (usage))
        {
          json_builder_set_member_name (builder, "unpriced_calls");
          json_builder_add_int_value (builder, anot_usage_get_unpriced_calls (usage));
        }
      json_builder_set_member_name (builder, "latency_ms");
      json_builder_add_double_value (builder, anot_usage_get_latency_ms (usage));
      if (anot_usage_get_n_endpoints (usage) > 0)
        {
          json_builder_set_member_name (builder, "by_endpoint");
          json_builder_add_value (builder, anot_usage_endpoints_to_json (usage));
        }
      json_builder_set_member_name (builder, "timestamp");
      json_builder_add_string_value (builder, timestamp);
      json_builder_end_object (builder);

      node = json_builder_get_root (builder);
      line = anot_results_node_to_line (node);
      g_string_append (contents, line);
      g_string_append_c (contents, '\n');
    }

  if (!g_file_set_contents (path, contents->str, contents->len, &local_error))
    {
      g_set_error (error, ANOT_ERROR, ANOT_ERROR_IO, "%s", local_error->message);
      return FALSE;
    }
  return TRUE;
}

char *
anot_results_format_usage (guint64 tokens,
                           double  cost_usd,
                           double  latency_ms)
{
  g_autofree char *tokens_text = NULL;

  /* The original's _format_compact(): "608k, $0.20, 45s". */
  if (tokens == 0 && cost_usd == 0.0)
    return g_strdup ("--");

  if (tokens >= 1000000)
    tokens_text = g_strdup_printf ("%.1fM", tokens / 1e6);
  else if (tokens >= 1000)
    tokens_text = g_strdup_printf ("%" G_GUINT64_FORMAT "k", tokens / 1000);
  else
    tokens_text = g_strdup_printf ("%" G_GUINT64_FORMAT, tokens);

  /* NaN: a call had no price. */
  if (isnan (cost_usd))
    return g_strdup_printf ("%s, unknown price, %.0fs", tokens_text, latency_ms / 1000.0);
  return g_strdup_printf ("%s, $%.2f, %.0fs", tokens_text, cost_usd, latency_ms / 1000.0);
}

/* ------------------------------------------------------------------------
 * summary.json
 * --------------------------------------------------------------------- */

typedef struct
{
  guint run;
  char *path;
} RunDir;

static void
run_dir_free (gpointer data)
{
  RunDir *rd = data;

  g_free (rd->path);
  g_free (rd);
}

static int
compare_run_dirs (gconstpointer a,
                  gconstpointer b)
{
  const RunDir *x = *(RunDir * const *) a, *y = *(RunDir * const *) b;

  return (x->run > y->run) - (x->run < y->run);
}

static GPtrArray *
list_run_dirs (const char  *attack_dir,
               GError     **error)
{
  g_autoptr(GDir) dir = NULL;
  g_autoptr(GError) local_error = NULL;
  GPtrArray *runs = g_ptr_array_new_with_free_func (run_dir_free);
  const char *name;

  dir = g_dir_open (attack_dir, 0, &local_error);
  if (dir == NULL)
    {
      g_set_error (error, ANOT_ERROR, ANOT_ERROR_IO, "%s", local_error->message);
      g_ptr_array_unref (runs);
      return NULL;
    }
  while ((name = g_dir_read_name (dir)) != NULL)
    {
      guint64 run;
      RunDir *rd;

      if (!g_str_has_prefix (name, "run_") ||
          !g_ascii_string_to_unsigned (name + 4, 10, 1, G_MAXUINT, &run, NULL))
        continue;
      rd = g_new0 (RunDir, 1);
      rd->run = (guint) run;
      rd->path = g_build_filename (attack_dir, name, NULL);
      g_ptr_array_add (runs, rd);
    }
  g_ptr_array_sort (runs, compare_run_dirs);
  return runs;
}

static double
object_double (JsonObject *object,
               const char *member)
{
  JsonNode *node = object ? json_object_get_member (object, member) : NULL;

  if (node == NULL || !JSON_NODE_HOLDS_VALUE (node))
    return 0.0;
  if (json_node_get_value_type (node) != G_TYPE_INT64 &&
      json_node_get_value_type (node) != G_TYPE_DOUBLE)
    return 0.0;
  return json_node_get_double (node);
}

static JsonObject *
object_object (JsonObject *object,
               const char *member)
{
  JsonNode *node = object ? json_object_get_member (object, member) : NULL;

  if (node == NULL || !JSON_NODE_HOLDS_OBJECT (node))
    return NULL;
  return json_node_get_object (node);
}

/* Adds "hits_at" and "mrr" aggregated over a list of stats objects (the
 * original's _aggregate_ranking_stats(), plus MRR). */
static void
add_hits_summary (JsonBuilder *builder,
                  GPtrArray   *stats,
                  guint        k)
{
  g_autoptr(GArray) values = g_array_new (FALSE, FALSE, sizeof (double));

  json_builder_set_member_name (builder, "hits_at");
  json_builder_begin_object (builder);
  for (guint j = 1; j <= k; j++)
    {
      char key[16];

      g_snprintf (key, sizeof key, "%u", j);
      g_array_set_size (values, 0);
      for (guint i = 0; i < stats->len; i++)
        {
          JsonObject *level = object_object (object_object (g_ptr_array_index (stats, i), "hits_at"), key);

          if (level != NULL)
            {
              double v = object_double (level, "accuracy");
              g_array_append_val (values, v);
            }
        }
      if (values->len == 0)
        continue;
      json_builder_set_member_name (builder, key);
      _anot_json_add_mean_std (builder, values);
    }
  json_builder_end_object (builder);

  g_array_set_size (values, 0);
  for (guint i = 0; i < stats->len; i++)
    {
      JsonObject *s = g_ptr_array_index (stats, i);

      if (json_object_has_member (s, "mrr"))
        {
          double v = object_double (s, "mrr");
          g_array_append_val (values, v);
        }
    }
  if (values->len > 0)
    {
      json_builder_set_member_name (builder, "mrr");
      _anot_json_add_mean_std (builder, values);
    }
}

static int
compare_strings (gconstpointer a,
                 gconstpointer b)
{
  return strcmp (*(const char * const *) a, *(const char * const *) b);
}

static void
add_ranking_summary (JsonBuilder *builder,
                     GPtrArray   *stats)
{
  g_autoptr(GHashTable) group_names = g_hash_table_new (g_str_hash, g_str_equal);
  g_autofree const char **names = NULL;
  guint n_names = 0;
  guint k = (guint) object_double (g_ptr_array_index (stats, 0), "k");

  if (k == 0)
    k = 5;

  json_builder_set_member_name (builder, "type");
  json_builder_add_string_value (builder, "ranking");
  json_builder_set_member_name (builder, "k");
  json_builder_add_int_value (builder, k);
  add_hits_summary (builder, stats, k);
  {
    /* Beside the figures, not only in per_run: a mean over runs the
     * infrastructure left incomplete must say so where it is read. */
    gint64 unscored = 0;

    for (guint i = 0; i < stats->len; i++)
      unscored += (gint64) object_double (g_ptr_array_index (stats, i), "unscored");
    if (unscored > 0)
      {
        json_builder_set_member_name (builder, "unscored");
        json_builder_add_int_value (builder, unscored);
      }
  }

  for (guint i = 0; i < stats->len; i++)
    {
      JsonObject *groups = object_object (g_ptr_array_index (stats, i), "groups");
      GList *members = groups ? json_object_get_members (groups) : NULL;

      for (GList *l = members; l; l = l->next)
        g_hash_table_add (group_names, l->data);
      g_list_free (members);
    }
  names = (const char **) g_hash_table_get_keys_as_array (group_names, &n_names);
  qsort (names, n_names, sizeof (char *), compare_strings);
  json_builder_set_member_name (builder, "groups");
  json_builder_begin_object (builder);
  for (guint g = 0; g < n_names; g++)
    {
      g_autoptr(GPtrArray) group_stats = g_ptr_array_new ();

      for (guint i = 0; i < stats->len; i++)
        {
          JsonObject *level = object_object (object_object (g_ptr_array_index (stats, i), "groups"),
                                             names[g]);
          if (level != NULL)
            g_ptr_array_add (group_stats, level);
        }
      json_builder_set_member_name (builder, names[g]);
      json_builder_begin_object (builder);
      add_hits_summary (builder, group_stats, k);
      json_builder_end_object (builder);
    }
  json_builder_end_object (builder);

  json_builder_set_member_name (builder, "per_run");
  json_builder_begin_array (builder);
  for (guint i = 0; i < stats->len; i++)
    {
      JsonNode *node = json_node_alloc ();

      json_node_init_object (node, g_ptr_array_index (stats, i));
      json_builder_add_value (builder, node);
    }
  json_builder_end_array (builder);
}

static int
compare_n_keys (gconstpointer a,
                gconstpointer b)
{
  guint64 x = g_ascii_strtoull (*(const char * const *) a, NULL, 10);
  guint64 y = g_ascii_strtoull (*(const char * const *) b, NULL, 10);

  return (x > y) - (x < y);
}

JsonNode *
anot_results_summarize_attack_dir (const char  *attack_dir,
                                   const char  *method,
                                   const char  *data,
                                   const char  *attack,
                                   GError     **error)
{
  g_autoptr(GPtrArray) run_dirs = NULL;
  g_autoptr(GPtrArray) configs = g_ptr_array_new_with_free_func ((GDestroyNotify) json_node_unref);
  g_autoptr(GPtrArray) stats = g_ptr_array_new ();
  g_autoptr(GPtrArray) usages = g_ptr_array_new ();
  g_autoptr(GHashTable) stats_by_n = NULL;
  g_autoptr(JsonBuilder) builder = NULL;
  const char *model = NULL;
  guint n_runs = 0;
  static const char * const usage_keys[] = {
    "total_calls", "total_prompt_tokens", "total_completion_tokens",
    "total_tokens", "total_cost_usd", "total_latency_ms",
    "total_retries",  /* anot's */
  };
  double sums[G_N_ELEMENTS (usage_keys)] = { 0 };
  guint64 unpriced_calls = 0;
  /* anot's: the calls cancelled in flight, estimates (not in the cost). */
  static const char * const cancelled_keys[] = {
    "calls", "prompt_tokens", "completion_tokens", "estimated_cost_usd",
  };
  double cancelled_sums[G_N_ELEMENTS (cancelled_keys)] = { 0 };

  run_dirs = list_run_dirs (attack_dir, error);
  if (run_dirs == NULL)
    return NULL;

  stats_by_n = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                      (GDestroyNotify) g_ptr_array_unref);

  for (guint i = 0; i < run_dirs->len; i++)
    {
      RunDir *rd = g_ptr_array_index (run_dirs, i);
      g_autofree char *path = g_build_filename (rd->path, "config.json", NULL);
      g_autoptr(GError) local_error = NULL;
      JsonNode *config = anot_results_read_json (path, &local_error);
      JsonObject *object, *by_n, *usage, *anot;
      gboolean counted = FALSE;

      if (config == NULL || !JSON_NODE_HOLDS_OBJECT (config))
        {
          /* Like the original: runs without a readable config.json are
           * left out of the summary. */
          g_debug ("summary: skipping %s: %s", rd->path,
                   local_error ? local_error->message : "not an object");
          g_clear_pointer (&config, json_node_unref);
          continue;
        }
      g_ptr_array_add (configs, config);
      object = json_node_get_object (config);

      if (object_object (object, "stats") != NULL)
        {
          g_ptr_array_add (stats, object_object (object, "stats"));
          counted = TRUE;
        }
      by_n = object_object (object, "stats_by_n");
      if (by_n != NULL)
        {
          GList *members = json_object_get_members (by_n);

          for (GList *l = members; l; l = l->next)
            {
              GPtrArray *list = g_hash_table_lookup (stats_by_n, l->data);
              JsonObject *s = object_object (by_n, l->data);

              if (s == NULL)
                continue;
              if (list == NULL)
                {
                  list = g_ptr_array_new ();
                  g_hash_table_insert (stats_by_n, g_strdup (l->data), list);
                }
              g_ptr_array_add (list, s);
              counted = TRUE;
            }
          g_list_free (members);
        }
      if (!counted)
        continue;

      n_runs++;
      usage = object_object (object, "usage");
      if (usage != NULL)
        {
          JsonObject *cancelled = object_object (usage, "cancelled_in_flight");

          g_ptr_array_add (usages, usage);
          for (guint u = 0; u < G_N_ELEMENTS (usage_keys); u++)
            sums[u] += u == 4 ? anot_usage_read_cost (usage, usage_keys[u])
                              : object_double (usage, usage_keys[u]);
          unpriced_calls += (guint64) object_double (usage, "unpriced_calls");
          for (guint u = 0; cancelled != NULL && u < G_N_ELEMENTS (cancelled_keys); u++)
            cancelled_sums[u] += u == 3 ? anot_usage_read_cost (cancelled, cancelled_keys[u])
                                        : object_double (cancelled, cancelled_keys[u]);
        }
      /* The model of the default role; else, for runs without an LLM, a
       * method option named "model". */
      if (model == NULL && object_object (object, "llm_config") != NULL)
        model = json_object_get_string_member_with_default (object_object (object, "llm_config"),
                                                            "model", NULL);
      anot = object_object (object, "anot");
      if (model == NULL && anot != NULL && object_object (anot, "method_options") != NULL)
        {
          JsonObject *opts = object_object (anot, "method_options");

          if (json_object_has_member (opts, "model"))
            model = json_object_get_string_member_with_default (opts, "model", NULL);
        }
    }

  builder = json_builder_new ();
  json_builder_begin_object (builder);

  if (stats->len > 0)
    add_ranking_summary (builder, stats);

  if (g_hash_table_size (stats_by_n) > 0)
    {
      g_autofree const char **keys = NULL;
      guint n_keys;

      keys = (const char **) g_hash_table_get_keys_as_array (stats_by_n, &n_keys);
      qsort (keys, n_keys, sizeof (char *), compare_n_keys);
      if (stats->len == 0)
        {
          /* A sweep: the per-N aggregates are under by_n, but readers of
           * the original's summaries still find its type and k here. */
          GPtrArray *first = g_hash_table_lookup (stats_by_n, keys[0]);

          json_builder_set_member_name (builder, "type");
          json_builder_add_string_value (builder, "ranking");
          json_builder_set_member_name (builder, "k");
          json_builder_add_int_value (builder,
                                      (gint64) object_double (g_ptr_array_index (first, 0), "k"));
        }
      json_builder_set_member_name (builder, "by_n");
      json_builder_begin_object (builder);
      for (guint i = 0; i < n_keys; i++)
        {
          GPtrArray *list = g_hash_table_lookup (stats_by_n, keys[i]);

          json_builder_set_member_name (builder, keys[i]);
          json_builder_begin_object (builder);
          add_ranking_summary (builder, list);
          json_builder_set_member_name (builder, "runs");
          json_builder_add_int_value (builder, list->len);
          json_builder_end_object (builder);
        }
      json_builder_end_object (builder);
    }

  json_builder_set_member_name (builder, "runs");
  json_builder_add_int_value (builder, n_runs);
  json_builder_set_member_name (builder, "method");
  json_builder_add_string_value (builder, method);
  json_builder_set_member_name (builder, "data");
  json_builder_add_string_value (builder, data);
  json_builder_set_member_name (builder, "model");
  if (model)
    json_builder_add_string_value (builder, model);
  else
    json_builder_add_null_value (builder);
  json_builder_set_member_name (builder, "attack");
  json_builder_add_string_value (builder, attack);

  json_builder_set_member_name (builder, "usage");
  json_builder_begin_object (builder);
  for (guint u = 0; u < G_N_ELEMENTS (usage_keys); u++)
    {
      json_builder_set_member_name (builder, usage_keys[u]);
      /* total_cost_usd is NaN (null) when a run's is unknown. */
      if (u == 4)
        anot_usage_add_cost_value (builder, sums[u]);
      else if (u == 5)
        json_builder_add_double_value (builder, sums[u]);
      else
        json_builder_add_int_value (builder, (gint64) sums[u]);
    }
  if (unpriced_calls > 0)
    {
      json_builder_set_member_name (builder, "unpriced_calls");
      json_builder_add_int_value (builder, (gint64) unpriced_calls);
    }
  if (cancelled_sums[0] > 0)
    {
      json_builder_set_member_name (builder, "cancelled_in_flight");
      json_builder_begin_object (builder);
      for (guint u = 0; u < G_N_ELEMENTS (cancelled_keys); u++)
        {
          json_builder_set_member_name (builder, cancelled_keys[u]);
          /* NaN (null) when a model had no price. */
          if (u == 3)
            anot_usage_add_cost_value (builder, round (cancelled_sums[u] * 1e6) / 1e6);
          else
            json_builder_add_int_value (builder, (gint64) cancelled_sums[u]);
        }
      json_builder_end_object (builder);
    }
  json_builder_set_member_name (builder, "mean_latency_per_run_ms");
  json_builder_add_double_value (builder, n_runs ? sums[5] / n_runs : 0.0);
  json_builder_set_member_name (builder, "mean_cost_per_run");
  anot_usage_add_cost_value (builder, n_runs ? sums[4] / n_runs : 0.0);
  json_builder_set_member_name (builder, "per_run");
  json_builder_begin_array (builder);
  for (guint i = 0; i < usages->len; i++)
    {
      JsonNode *node = json_node_alloc ();

      json_node_init_object (node, g_ptr_array_index (usages, i));
      json_builder_add_value (builder, node);
    }
  json_builder_end_array (builder);
  json_builder_end_object (builder);

  json_builder_end_object (builder);

  return json_builder_get_root (builder);
}
