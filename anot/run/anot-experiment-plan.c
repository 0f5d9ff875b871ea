/* anot-experiment-plan.c: from an experiment's options to its plan
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * What anot_experiment_prepare() decides without writing anything: the N,
 * the requests, the attacks, which requests each N keeps, the cells
 * (attack, run, N), the method and the LLM router.
 */
#include "config.h"

#include "anot-experiment-private.h"

#include "anot-defense-prompt-private.h"

#include "anot-error.h"
#include "anot-item-attack.h"
#include "anot-method-settings-private.h"
#include "anot-registry.h"
#include "anot-response-cache.h"

#include <string.h>

static const guint scaling_points[] = { 10, 20, 30, 40, 50 };

static void
attack_entry_free (gpointer data)
{
  AttackEntry *entry = data;

  g_free (entry->name);
  g_clear_object (&entry->attack);
  g_free (entry->dir);
  g_free (entry);
}

static void
cell_free (gpointer data)
{
  Cell *cell = data;

  g_hash_table_unref (cell->rows);
  g_clear_pointer (&cell->shard_ids, g_hash_table_unref);
  g_clear_pointer (&cell->replaced, g_hash_table_unref);
  g_clear_pointer (&cell->jobs, g_ptr_array_unref);
  g_clear_object (&cell->append);
  g_clear_object (&cell->trace_append);
  g_clear_object (&cell->debug_log);
  g_free (cell);
}

void
anot_experiment_plan_clear (AnotExperiment *self)
{
  self->prepared = FALSE;
  g_clear_pointer (&self->settings, anot_run_config_unref);
  g_clear_pointer (&self->directory, g_free);
  g_clear_pointer (&self->attacks, g_ptr_array_unref);
  g_clear_pointer (&self->requests, g_ptr_array_unref);
  g_clear_pointer (&self->kept, g_hash_table_unref);
  g_clear_pointer (&self->dropped, g_hash_table_unref);
  g_clear_pointer (&self->skipped, g_hash_table_unref);
  g_clear_pointer (&self->cells, g_ptr_array_unref);
  g_clear_object (&self->method);
  g_clear_pointer (&self->plugin_path, g_free);
  g_clear_pointer (&self->plugin_language, g_free);
  g_clear_pointer (&self->plugin_sha256, g_free);
  g_clear_pointer (&self->defense_sha256, g_free);
  g_clear_object (&self->validator);
  g_clear_object (&self->llm_config);
  g_clear_pointer (&self->config_file, anot_ini_reader_unref);
  g_clear_pointer (&self->method_file_settings, g_hash_table_unref);
  g_clear_pointer (&self->method_settings, json_node_unref);
  self->config_file_read = FALSE;
  g_clear_object (&self->router);
  g_clear_object (&self->batch_queue);
  g_clear_object (&self->journal);
  anot_experiment_budget_clear (self);
  g_clear_object (&self->replaced_usage);
  self->n_planned = 0;
}

static gboolean
group_number (const char *token,
              guint64    *out)
{
  if (*token == 'G' || *token == 'g')
    token++;
  return g_ascii_string_to_unsigned (token, 10, 1, 999, out, NULL);
}

/* Accepts G01,G04 / 1,4 / 1-3 / G01-G03 and names of the dataset's groups;
 * returns the groups by their names. */
static GStrv
resolve_groups (AnotExperiment  *self,
                GStrv            tokens,
                GError         **error)
{
  g_auto(GStrv) available = anot_dataset_list_groups (self->dataset);
  g_autoptr(GStrvBuilder) groups = g_strv_builder_new ();

  for (guint i = 0; tokens[i] != NULL; i++)
    {
      const char *token = tokens[i];
      const char *dash = strchr (token, '-');
      guint64 first, last;

      if (g_strv_contains ((const char * const *) available, token))
        {
          g_strv_builder_add (groups, token);
          continue;
        }

      if (dash != NULL)
        {
          g_autofree char *lo = g_strndup (token, dash - token);

          if (!group_number (g_strstrip (lo), &first) ||
              !group_number (dash + 1, &last) || last < first)
            {
              g_set_error (error, ANOT_ERROR, ANOT_ERROR_INVALID_ARGUMENT,
                           "Invalid group range “%s”: expected e.g. 1-3 or G01-G03", token);
              return NULL;
            }
        }
      else if (group_number (token, &first))
        last = first;
      else
        {
          g_autofree char *list = g_strjoinv (", ", available);

          g_set_error (error, ANOT_ERROR, ANOT_ERROR_INVALID_ARGUMENT,
                       "Unknown group “%s” (the dataset has %s)", token, list);
          return NULL;
        }

      for (guint64 g = first; g <= last; g++)
        {
          g_autofree char *group_name = g_strdup_printf ("G%02u", (guint) g);

          if (!g_strv_contains ((const char * const *) available, group_name))
            {
              g_autofree char *list = g_strjoinv (", ", available);

              g_set_error (error, ANOT_ERROR, ANOT_ERROR_INVALID_ARGUMENT,
                           "Unknown group “%s” (the dataset has %s)", group_name, list);
              return NULL;
            }
          g_strv_builder_add (groups, group_name);
        }
    }

  return g_strv_builder_end (groups);
}

static gboolean
directory_is_nonempty (const char *path)
{
  g_autoptr(GDir) dir = g_dir_open (path, 0, NULL);

  return dir != NULL && g_dir_read_name (dir) != NULL;
}

/* @attack NULL: the first attack of the experiment. */
Cell *
anot_experiment_find_cell (AnotExperiment *self,
           AttackEntry    *attack,
           guint           run,
           guint           n)
{
  if (self->cells == NULL || self->attacks->len == 0)
    return NULL;
  if (attack == NULL)
    attack = g_ptr_array_index (self->attacks, 0);
  for (guint i = 0; i < self->cells->len; i++)
    {
      Cell *cell = g_ptr_array_index (self->cells, i);

      if (cell->attack == attack && cell->run == run && cell->n == n)
        return cell;
    }
  return NULL;
}

AttackEntry *
anot_experiment_find_attack (AnotExperiment *self,
             const char     *name)
{
  if (self->attacks == NULL)
    return NULL;
  for (guint i = 0; i < self->attacks->len; i++)
    {
      AttackEntry *entry = g_ptr_array_index (self->attacks, i);

      if (strcmp (entry->name, name) == 0)
        return entry;
    }
  return NULL;
}

/* Adds the attack @name unless it is already there.  With @skip_unusable
 * (the expansion of `all`), an attack whose parameters do not let it run
 * (heterogeneity without a target length) is left out instead of failing. */
static gboolean
add_attack (AnotExperiment  *self,
            const char      *name,
            gboolean         skip_unusable,
            GHashTable      *used_options,
            GError         **error)
{
  g_autoptr(AnotAttack) attack = NULL;
  AttackEntry *entry;
  GHashTableIter iter;
  gpointer key, value;

  if (anot_experiment_find_attack (self, name) != NULL)
    return TRUE;

  if (strcmp (name, CLEAN_ATTACK) != 0)
    {
      attack = anot_registry_create_attack (anot_registry_get_default (), name, error);
      if (attack == NULL)
        return FALSE;

      g_hash_table_iter_init (&iter, self->settings->attack_options);
      while (g_hash_table_iter_next (&iter, &key, &value))
        {
          if (!anot_attack_has_parameter (attack, key))
            continue;
          g_hash_table_add (used_options, key);
          if (!anot_attack_set_parameter (attack, key, value, error))
            {
              g_prefix_error (error, "%s: ", name);
              return FALSE;
            }
        }

      /* `attack.compat` names the same parameter and wins. */
      if (ANOT_IS_ITEM_ATTACK (attack) && anot_run_config_is_set (self->settings, "attack-compat") &&
          !g_hash_table_contains (self->settings->attack_options, "compat"))
        anot_item_attack_set_compat (ANOT_ITEM_ATTACK (attack),
                                     anot_run_config_get_attack_compat (self->settings));

      if (ANOT_IS_ITEM_ATTACK (attack))
        {
          g_autoptr(GError) check_error = NULL;

          if (!anot_item_attack_check (ANOT_ITEM_ATTACK (attack), &check_error))
            {
              if (skip_unusable)
                return TRUE;
              g_set_error (error, ANOT_ERROR, ANOT_ERROR_INVALID_ARGUMENT,
                           "%s: %s", name, check_error->message);
              return FALSE;
            }
        }
    }

  entry = g_new0 (AttackEntry, 1);
  entry->name = g_strdup (name);
  entry->attack = g_steal_pointer (&attack);
  entry->dir = g_build_filename (self->directory, name, NULL);
  g_ptr_array_add (self->attacks, entry);
  return TRUE;
}

static char *
attack_category (const char *name)
{
  g_autoptr(AnotAttack) attack = anot_registry_create_attack (anot_registry_get_default (),
                                                              name, NULL);

  if (attack == NULL || !ANOT_IS_ITEM_ATTACK (attack) ||
      anot_item_attack_get_category (ANOT_ITEM_ATTACK (attack)) == NULL)
    return NULL;
  return g_strdup (anot_item_attack_get_category (ANOT_ITEM_ATTACK (attack)));
}

static gboolean
prepare_attacks (AnotExperiment  *self,
                 GError         **error)
{
  const char *text = self->settings->attack;
  g_auto(GStrv) tokens = anot_run_config_split_list (text != NULL ? text : CLEAN_ATTACK);
  g_auto(GStrv) registered = anot_registry_list (anot_registry_get_default (),
                                                 ANOT_ATTACK_EXTENSION_POINT_NAME);
  g_autoptr(GHashTable) used_options = g_hash_table_new (g_str_hash, g_str_equal);
  GHashTableIter iter;
  gpointer key;

  self->attacks = g_ptr_array_new_with_free_func (attack_entry_free);
  if (tokens[0] == NULL)
    {
      g_set_error (error, ANOT_ERROR, ANOT_ERROR_INVALID_ARGUMENT,
                   "Invalid value “%s” for attack: expected e.g. typo_10, noise or all", text);
      return FALSE;
    }

  for (guint t = 0; tokens[t] != NULL; t++)
    {
      const char *token = tokens[t];
      gboolean found = FALSE;

      if (strcmp (token, CLEAN_ATTACK) == 0 || strcmp (token, "none") == 0)
        {
          if (!add_attack (self, CLEAN_ATTACK, FALSE, used_options, error))
            return FALSE;
          continue;
        }
      if (strcmp (token, "all") == 0 || strcmp (token, "both") == 0)
        {
          if (strcmp (token, "both") == 0 &&
              !add_attack (self, CLEAN_ATTACK, FALSE, used_options, error))
            return FALSE;
          for (guint i = 0; registered[i] != NULL; i++)
            if (!add_attack (self, registered[i], TRUE, used_options, error))
              return FALSE;
          continue;
        }
      if (g_strv_contains ((const char * const *) registered, token))
        {
          if (!add_attack (self, token, FALSE, used_options, error))
            return FALSE;
          continue;
        }
      for (guint i = 0; registered[i] != NULL; i++)
        {
          g_autofree char *category = attack_category (registered[i]);

          if (g_strcmp0 (category, token) != 0)
            continue;
          found = TRUE;
          if (!add_attack (self, registered[i], FALSE, used_options, error))
            return FALSE;
        }
      if (!found)
        {
          g_autofree char *names = registered[0] ? g_strjoinv (", ", registered) : g_strdup ("none");

          g_set_error (error, ANOT_ERROR, ANOT_ERROR_PLUGIN_NOT_FOUND,
                       "No attack or attack category named “%s” (attacks: %s; also clean, "
                       "all, both and the categories noise, injection, deception)",
                       token, names);
          return FALSE;
        }
    }

  g_hash_table_iter_init (&iter, self->settings->attack_options);
  while (g_hash_table_iter_next (&iter, &key, NULL))
    if (!g_hash_table_contains (used_options, key))
      {
        g_set_error (error, ANOT_ERROR, ANOT_ERROR_INVALID_ARGUMENT,
                     "No selected attack has a parameter “%s”", (const char *) key);
        return FALSE;
      }

  if (self->attacks->len == 0)
    {
      g_set_error (error, ANOT_ERROR, ANOT_ERROR_INVALID_ARGUMENT,
                   "The attack selection “%s” is empty", text);
      return FALSE;
    }
  return TRUE;
}


/* Batch mode: the options, else the environment and [llm] of the
 * configuration file; the queue the backends send their calls to. */
static gboolean
plan_batch (AnotExperiment  *self,
            GError         **error)
{
  static const struct { const char *key; const char *llm_key; } keys[] = {
    { "batch", "batch" },
    { "batch-max-size", "batch_max_size" },
    { "batch-max-bytes", "batch_max_bytes" },
    { "batch-window", "batch_window" },
    { "batch-retry", "batch_retry" },
  };
  AnotRunConfig *settings = self->settings;

  for (guint i = 0; i < G_N_ELEMENTS (keys); i++)
    {
      g_autofree char *source = NULL;
      g_autofree char *value = NULL;

      if (anot_run_config_is_set (settings, keys[i].key))
        continue;
      value = anot_llm_config_get_run_setting (self->llm_config, keys[i].llm_key, &source);
      if (value != NULL && !anot_run_config_set (settings, keys[i].key, value, error))
        {
          g_prefix_error (error, "%s: ", source);
          return FALSE;
        }
    }
  if (!settings->batch)
    return TRUE;

  self->batch_queue = anot_batch_queue_new ();
  g_object_set (self->batch_queue,
                "max-size", (guint) settings->batch_max_size,
                "max-bytes", (guint64) settings->batch_max_bytes,
                "window-ms", (guint) (settings->batch_window * 1000),
                "retry-direct", settings->batch_retry == ANOT_BATCH_RETRY_DIRECT,
                NULL);
  anot_llm_config_set_batch_queue (self->llm_config, self->batch_queue);
  return TRUE;
}

/* The LLM router of the run: configuration file, environment, then the
 * options; the response cache; the debug level. */
/* The configuration file the methods read their `[method NAME]` settings
 * from, read once: every request of the run gets the same settings even if
 * config.ini changes while it runs, and a broken file fails the plan
 * rather than the requests. */
static gboolean
plan_config_file (AnotExperiment  *self,
                  GError         **error)
{
  g_autofree char *path = anot_ini_reader_get_default_path ();
  g_autofree char *section = g_strconcat ("method ", self->method_name, NULL);
  g_autoptr(GHashTable) current = NULL;
  g_autofree char *difference = NULL;

  if (g_file_test (path, G_FILE_TEST_EXISTS))
    {
      self->config_file = anot_ini_reader_new_from_file (path, error);
      if (self->config_file == NULL)
        return FALSE;
    }
  self->config_file_read = TRUE;

  if (self->config_file != NULL && anot_ini_reader_has_section (self->config_file, section))
    {
      g_auto(GStrv) keys = anot_ini_reader_list_keys (self->config_file, section);

      current = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
      for (guint i = 0; keys[i] != NULL; i++)
        g_hash_table_insert (current, g_strdup (keys[i]),
                             g_strdup (anot_ini_reader_get_value (self->config_file, section, keys[i])));
    }

  if (self->has_recorded_method_file && !self->resuming)
    {
      /* A merge: config.json records what the shards read, not what
       * this machine's config.ini says. */
      self->method_file_settings = self->recorded_method_file
                                   ? g_hash_table_ref (self->recorded_method_file) : NULL;
      return TRUE;
    }
  if (self->has_recorded_method_file &&
      (difference = anot_experiment_describe_settings_change (self->recorded_method_file, current)) != NULL)
    {
      /* The requests left would run with other settings than the rows
       * already there. */
      g_set_error (error, ANOT_ERROR, ANOT_ERROR_RESUME,
                   "Cannot resume %s: [%s] of %s changed since the run started (%s); "
                   "put it back to resume, or start the experiment again with --force",
                   self->directory ? self->directory : "the experiment", section, path, difference);
      return FALSE;
    }
  self->method_file_settings = g_steal_pointer (&current);
  return TRUE;
}

/* The method's options, from -O (or an experiment's `method.*` options),
 * the environment and config.ini, checked against what the method
 * declared before anything runs; and defense mode, which only a method
 * that applies it may be run in (config.json would claim a defense that
 * was not applied). */
static gboolean
plan_method_options (AnotExperiment  *self,
                     GError         **error)
{
  g_autoptr(AnotMethodSettings) settings = NULL;
  AnotPluginFlags flags = anot_registry_get_flags (anot_registry_get_default (),
                                                   ANOT_METHOD_EXTENSION_POINT_NAME,
                                                   self->method_name);

  if (self->settings->defense && (flags & ANOT_PLUGIN_SUPPORTS_DEFENSE) == 0 && !self->merging)
    {
      g_set_error (error, ANOT_ERROR, ANOT_ERROR_INVALID_ARGUMENT,
                   "The method %s does not support defense mode (--defense): it shows "
                   "no LLM the reviews, or does not declare that it adds the defense prompt; "
                   "run it without --defense",
                   self->method_name);
      return FALSE;
    }

  if (self->merging)
    {
      /* A merge: the shards checked their options where they ran; the
       * record is theirs, not this machine's. */
      self->method_settings = self->recorded_method_settings
                              ? json_node_copy (self->recorded_method_settings) : NULL;
      return TRUE;
    }

  settings = anot_method_settings_new (self->method_name);
  anot_method_settings_take_reader (settings, self->config_file);
  self->method_settings = anot_method_settings_check_options (settings, self->settings->method_options,
                                                              (AnotCompatMode) self->settings->compat,
                                                              error);
  return self->method_settings != NULL;
}

static gint
compare_key_pointers (gconstpointer a,
                      gconstpointer b)
{
  return strcmp (*(const char * const *) a, *(const char * const *) b);
}

/* The first key on which @before and @after (key -> value, NULL: none)
 * differ, in words, or NULL when they are the same. */
char *
anot_experiment_describe_settings_change (GHashTable *before,
                                          GHashTable *after)
{
  g_autoptr(GPtrArray) keys = g_ptr_array_new ();
  GHashTable *maps[2] = { before, after };

  for (guint m = 0; m < 2; m++)
    if (maps[m] != NULL)
      {
        GHashTableIter iter;
        gpointer key;

        g_hash_table_iter_init (&iter, maps[m]);
        while (g_hash_table_iter_next (&iter, &key, NULL))
          g_ptr_array_add (keys, key);
      }
  g_ptr_array_sort (keys, compare_key_pointers);
  for (guint i = 0; i < keys->len; i++)
    {
      const char *key = keys->pdata[i];
      const char *was = before ? g_hash_table_lookup (before, key) : NULL;
      const char *is = after ? g_hash_table_lookup (after, key) : NULL;

      if (g_strcmp0 (was, is) == 0)
        continue;
      if (was == NULL)
        return g_strdup_printf ("%s = %s was added", key, is);
      if (is == NULL)
        return g_strdup_printf ("%s = %s was removed", key, was);
      return g_strdup_printf ("%s is %s now, %s then", key, is, was);
    }
  return NULL;
}

static gboolean
plan_llm (AnotExperiment  *self,
          GError         **error)
{
  AnotRunConfig *settings = self->settings;
  const char *text, *llm_key;

  self->llm_config = anot_llm_config_new ();
  if (!anot_llm_config_load_default_file (self->llm_config, error))
    return FALSE;
  /* Read once: every request of the run gets the same text, even if
   * config.ini changes while it runs. */
  self->defense_prompt = anot_run_config_get_defense (settings)
                        ? anot_defense_prompt_get (anot_dataset_get_domain (self->dataset)) : NULL;
  g_clear_pointer (&self->defense_sha256, g_free);
  if (self->defense_prompt != NULL)
    self->defense_sha256 = g_compute_checksum_for_string (G_CHECKSUM_SHA256, self->defense_prompt, -1);
  if (self->has_recorded_method_file && !self->resuming && self->recorded_defense_sha256 != NULL)
    {
      /* A merge: config.json records the text the shards sent, not what
       * this machine's config.ini says. */
      g_free (self->defense_sha256);
      self->defense_sha256 = g_strdup (self->recorded_defense_sha256);
    }
  else if (self->resuming && self->recorded_defense_sha256 != NULL &&
           g_strcmp0 (self->recorded_defense_sha256, self->defense_sha256) != 0)
    {
      /* The requests left would be defended by another text than the rows
       * already written. */
      g_set_error (error, ANOT_ERROR, ANOT_ERROR_RESUME,
                   "Cannot resume %s: the defense prompt changed since the run started "
                   "(SHA-256 %.12s… then, %.12s… now; the [defense] section of the configuration "
                   "file, or anot's built-in text); the rows already written were defended by the "
                   "old text: put it back to resume, or start the experiment again with --force",
                   self->directory ? self->directory : "the experiment",
                   self->recorded_defense_sha256,
                   self->defense_sha256 != NULL ? self->defense_sha256 : "(none)");
      return FALSE;
    }
  for (guint i = 0; (text = anot_run_config_get_llm_setting (settings, i, &llm_key)) != NULL ||
                    llm_key != NULL; i++)
    if (text != NULL &&
        !anot_llm_config_set (self->llm_config, ANOT_DEFAULT_ROLE, llm_key, text, error))
      return FALSE;
  if (settings->role != NULL)
    {
      g_auto(GStrv) specs = anot_run_config_split_list (settings->role);

      for (guint i = 0; specs[i] != NULL; i++)
        if (!anot_llm_config_add_role_spec (self->llm_config, specs[i], error))
          return FALSE;
    }

  if (!plan_batch (self, error))
    return FALSE;
  self->router = anot_llm_config_create_cached_router (self->llm_config, settings->cache,
                                                       settings->offline, error);
  if (self->router == NULL)
    return FALSE;
  anot_backend_router_set_context_tokens (self->router, settings->context_tokens);
  /* Without -j the calls in flight find each server's capacity; batch
   * mode keeps its own pace. */
  if (settings->concurrency == 0 && self->batch_queue == NULL)
    anot_backend_router_set_adaptive_concurrency (self->router, TRUE);

  if (anot_run_config_is_set (settings, "debug"))
    self->debug_level = settings->debug;
  else
    {
      self->debug_level = anot_debug_level_from_string (g_getenv ("ANOT_DEBUG"), error);
      if (error != NULL && *error != NULL)
        return FALSE;
    }
  return TRUE;
}

/* Every N asked for, in the settings: the scaling points (those larger
 * than the dataset skipped), the list given, or the default. */
static gboolean
plan_candidate_counts (AnotExperiment  *self,
                       GError         **error)
{
  AnotRunConfig *settings = self->settings;
  guint n_items = anot_dataset_get_n_items (self->dataset);

  self->skipped = g_hash_table_new (NULL, NULL);
  if (settings->scaling)
    {
      if (anot_run_config_is_set (settings, "candidates"))
        {
          g_set_error (error, ANOT_ERROR, ANOT_ERROR_INVALID_ARGUMENT,
                       "--candidates and --scaling cannot be combined");
          return FALSE;
        }
      anot_run_config_set_candidates (settings, scaling_points, G_N_ELEMENTS (scaling_points));
      for (guint i = 0; i < G_N_ELEMENTS (scaling_points); i++)
        if (scaling_points[i] > n_items)
          g_hash_table_add (self->skipped, GUINT_TO_POINTER (scaling_points[i]));
      return TRUE;
    }

  for (guint i = 0; i < settings->candidates->len; i++)
    {
      guint n = g_array_index (settings->candidates, guint, i);

      if (n <= n_items)
        continue;
      if (anot_run_config_is_set (settings, "candidates"))
        g_set_error (error, ANOT_ERROR, ANOT_ERROR_INVALID_ARGUMENT,
                     "Cannot use %u candidates: the dataset has %u items", n, n_items);
      else
        g_set_error (error, ANOT_ERROR, ANOT_ERROR_INVALID_ARGUMENT,
                     "The dataset has only %u items; choose --candidates N with N <= %u",
                     n_items, n_items);
      return FALSE;
    }
  return TRUE;
}

/* Groups and request ids checked against the dataset, the directory
 * named, then the requests: dataset order, filters, the limit. */
static gboolean
plan_requests (AnotExperiment  *self,
               GError         **error)
{
  AnotRunConfig *settings = self->settings;

  if (settings->groups != NULL)
    {
      GStrv groups = resolve_groups (self, settings->groups, error);

      if (groups == NULL)
        return FALSE;
      anot_run_config_take_groups (settings, groups);
    }
  for (guint i = 0; settings->requests != NULL && settings->requests[i] != NULL; i++)
    if (anot_dataset_lookup_request (self->dataset, settings->requests[i]) == NULL)
      {
        g_set_error (error, ANOT_ERROR, ANOT_ERROR_INVALID_ARGUMENT,
                     "Unknown request “%s”", settings->requests[i]);
        return FALSE;
      }

  if (settings->name == NULL)
    settings->name = g_strdup_printf ("%s_%s", self->method_name,
                                      anot_dataset_get_name (self->dataset));
  self->directory = g_build_filename (settings->out, settings->name, NULL);

  self->requests = g_ptr_array_new_with_free_func (g_object_unref);
  for (guint i = 0; i < anot_dataset_get_n_requests (self->dataset); i++)
    {
      AnotRequest *request = anot_dataset_get_request (self->dataset, i);

      if (settings->groups &&
          !g_strv_contains ((const char * const *) settings->groups, anot_request_get_group (request)))
        continue;
      if (settings->requests &&
          !g_strv_contains ((const char * const *) settings->requests, anot_request_get_id (request)))
        continue;
      g_ptr_array_add (self->requests, g_object_ref (request));
    }
  return TRUE;
}

/* Which requests each N keeps: in original mode the gold must be in the
 * fixed top-N pool, which does not depend on the seed.  Then one cell per
 * (attack, run, N). */
static gboolean
plan_cells (AnotExperiment  *self,
            GError         **error)
{
  AnotRunConfig *settings = self->settings;
  GArray *ns = settings->candidates;

  if (self->requests->len == 0)
    {
      g_set_error (error, ANOT_ERROR, ANOT_ERROR_INVALID_ARGUMENT,
                   "No request matches the --groups / --requests selection");
      return FALSE;
    }

  self->kept = g_hash_table_new_full (NULL, NULL, NULL, (GDestroyNotify) g_ptr_array_unref);
  self->dropped = g_hash_table_new (NULL, NULL);
  self->cells = g_ptr_array_new_with_free_func (cell_free);
  self->n_planned = 0;
  for (guint i = 0; i < ns->len; i++)
    {
      guint n = g_array_index (ns, guint, i);
      g_autoptr(GPtrArray) kept = NULL;
      guint dropped = 0;

      if (g_hash_table_contains (self->skipped, GUINT_TO_POINTER (n)))
        continue;

      kept = g_ptr_array_new_with_free_func (g_object_unref);
      /* --limit counts the requests that run, after the original pools
       * dropped those whose gold is outside (`--limit 7` at N = 10 runs
       * 7, not the 5 of the first 7 whose gold is in the pool). */
      for (guint r = 0; r < self->requests->len && !(settings->limit && kept->len >= settings->limit); r++)
        {
          AnotRequest *request = g_ptr_array_index (self->requests, r);
          g_autoptr(GError) pool_error = NULL;
          g_autoptr(AnotPool) pool = anot_pool_new (self->dataset, request, n, settings->pool,
                                                    ANOT_SHUFFLE_MODE_NONE, settings->seed,
                                                    &pool_error);

          if (pool != NULL)
            g_ptr_array_add (kept, g_object_ref (request));
          else if (g_error_matches (pool_error, ANOT_ERROR, ANOT_ERROR_GOLD_NOT_IN_POOL))
            dropped++;
          else
            {
              g_propagate_error (error, g_steal_pointer (&pool_error));
              return FALSE;
            }
        }
      self->n_planned += kept->len * settings->runs;
      g_hash_table_insert (self->kept, GUINT_TO_POINTER (n), g_steal_pointer (&kept));
      g_hash_table_insert (self->dropped, GUINT_TO_POINTER (n), GUINT_TO_POINTER (dropped));
    }

  self->n_planned *= self->attacks->len;
  for (guint a = 0; a < self->attacks->len; a++)
    for (guint run = 1; run <= settings->runs; run++)
      for (guint i = 0; i < ns->len; i++)
        {
          guint n = g_array_index (ns, guint, i);
          Cell *cell;

          if (g_hash_table_contains (self->skipped, GUINT_TO_POINTER (n)))
            continue;
          cell = g_new0 (Cell, 1);
          cell->attack = g_ptr_array_index (self->attacks, a);
          cell->run = run;
          cell->n = n;
          cell->rows = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_object_unref);
          g_ptr_array_add (self->cells, cell);
        }

  /* A shard: every (attack, run, N, request) of the plan, in plan order,
   * dealt round-robin, so shards differ by at most one request and the
   * deal depends on the options only.  Seeds are per request, so a row
   * does not depend on which shard computed it. */
  if (settings->shard_count > 0)
    {
      guint64 position = 0;

      self->n_planned = 0;
      for (guint c = 0; c < self->cells->len; c++)
        {
          Cell *cell = g_ptr_array_index (self->cells, c);
          GPtrArray *kept = g_hash_table_lookup (self->kept, GUINT_TO_POINTER (cell->n));

          cell->shard_ids = g_hash_table_new (g_str_hash, g_str_equal);
          for (guint r = 0; r < kept->len; r++, position++)
            if (position % settings->shard_count == settings->shard_index)
              {
                g_hash_table_add (cell->shard_ids,
                                  (gpointer) anot_request_get_id (g_ptr_array_index (kept, r)));
                self->n_planned++;
              }
        }
    }
  return TRUE;
}

/* Whether @cell runs @request_id: every kept request, or with `shard`
 * those of this shard. */
gboolean
anot_experiment_cell_plans (Cell       *cell,
                            const char *request_id)
{
  return cell->shard_ids == NULL || g_hash_table_contains (cell->shard_ids, request_id);
}

/* How many requests @cell runs. */
guint
anot_experiment_cell_planned_count (AnotExperiment *self,
                                    Cell           *cell)
{
  if (cell->shard_ids != NULL)
    return g_hash_table_size (cell->shard_ids);
  return anot_experiment_kept_count (self, cell->n);
}

/* Per attack: the attacks of one method share its directory, as in the
 * original's layout, and may be run one after the other. */
static gboolean
check_directories (AnotExperiment  *self,
                   GError         **error)
{
  for (guint a = 0; a < self->attacks->len && !self->resuming && !self->settings->force; a++)
    {
      AttackEntry *entry = g_ptr_array_index (self->attacks, a);

      if (directory_is_nonempty (entry->dir) && self->merging)
        {
          /* anot-run merge has neither --resume nor --name. */
          g_set_error (error, ANOT_ERROR, ANOT_ERROR_INVALID_ARGUMENT,
                       "The results directory %s already exists and is not empty (another "
                       "merge may have written it); merge into another OUT directory, "
                       "or overwrite it with --force",
                       entry->dir);
          return FALSE;
        }
      if (directory_is_nonempty (entry->dir))
        {
          g_set_error (error, ANOT_ERROR, ANOT_ERROR_INVALID_ARGUMENT,
                       "The results directory %s already exists and is not empty; "
                       "continue it with --resume %s, choose another --name, "
                       "or overwrite it with --force",
                       entry->dir, entry->dir);
          return FALSE;
        }
    }
  return TRUE;
}

/* SHA-256 of @path's contents (transfer full), or NULL with @error. */
static char *
file_sha256 (const char  *path,
             GError     **error)
{
  g_autofree char *contents = NULL;
  gsize length;

  if (!g_file_get_contents (path, &contents, &length, error))
    return NULL;
  return g_compute_checksum_for_data (G_CHECKSUM_SHA256, (const guchar *) contents, length);
}

/* A merge ranks nothing: it needs no method, only that the method file
 * the shards ran has not changed where it is now (the merged directory is
 * resumed with it).  A file that is not there any more is said, once
 * something is left to run (anot_experiment_merge_shards()). */
static gboolean
plan_merged_method_plugin (AnotExperiment  *self,
                           GError         **error)
{
  g_autoptr(GError) local_error = NULL;
  g_autofree char *now = NULL;
  const char *language = NULL;

  if (self->recorded_plugin_path == NULL)
    return TRUE;
  self->plugin_path = g_strdup (self->recorded_plugin_path);
  self->plugin_sha256 = g_strdup (self->recorded_plugin_sha256);
  anot_registry_get_origin (anot_registry_get_default (), ANOT_METHOD_EXTENSION_POINT_NAME,
                            self->method_name, &language);
  self->plugin_language = g_strdup (self->recorded_plugin_language ? self->recorded_plugin_language
                                    : language ? language : "Python");
  if (!g_file_test (self->recorded_plugin_path, G_FILE_TEST_EXISTS))
    return TRUE;
  now = file_sha256 (self->recorded_plugin_path, &local_error);
  if (now == NULL)
    {
      g_set_error (error, ANOT_ERROR, ANOT_ERROR_SHARDS,
                   "Cannot merge the shards of %s: cannot read its method file %s: %s",
                   self->method_name, self->recorded_plugin_path, local_error->message);
      return FALSE;
    }
  if (g_strcmp0 (now, self->recorded_plugin_sha256) != 0)
    {
      g_set_error (error, ANOT_ERROR, ANOT_ERROR_SHARDS,
                   "Cannot merge the shards of %s: its method file %s changed since the shards "
                   "ran (SHA-256 %.12s… then, %.12s… now); a resume of the merged results would "
                   "run the new file beside rows of the old one: put the old file back to merge",
                   self->method_name, self->recorded_plugin_path,
                   self->recorded_plugin_sha256 ? self->recorded_plugin_sha256 : "(none)", now);
      return FALSE;
    }
  return TRUE;
}

/* The file the method came from (a C module, a Python file), with its
 * SHA-256: config.json records them, and a resume refuses a file that
 * changed since (the rows already written came from the old one; a C
 * module rebuilt since is a changed file). */
static gboolean
plan_method_plugin (AnotExperiment  *self,
                    GError         **error)
{
  AnotRegistry *registry = anot_registry_get_default ();
  g_autoptr(GError) local_error = NULL;
  const char *language = NULL;
  const char *file;

  if (self->merging)
    return plan_merged_method_plugin (self, error);

  /* A resume in a new process: the method's file is loaded from where
   * the run had it, as --plugin would. */
  if (self->recorded_plugin_path != NULL &&
      anot_registry_lookup_type (registry, ANOT_METHOD_EXTENSION_POINT_NAME,
                                 self->method_name) == G_TYPE_INVALID &&
      !anot_registry_load_plugin (registry, self->recorded_plugin_path, &local_error))
    {
      g_set_error (error, ANOT_ERROR, ANOT_ERROR_RESUME,
                   "Cannot resume %s: the method %s came from %s, which does not load now: %s",
                   self->directory ? self->directory : "the experiment", self->method_name,
                   self->recorded_plugin_path, local_error->message);
      return FALSE;
    }

  file = anot_registry_get_origin (registry, ANOT_METHOD_EXTENSION_POINT_NAME,
                                   self->method_name, &language);
  if (file != NULL)
    {
      self->plugin_sha256 = file_sha256 (file, &local_error);
      if (self->plugin_sha256 == NULL)
        {
          g_set_error (error, ANOT_ERROR, ANOT_ERROR_IO,
                       "Cannot read the method file %s: %s", file, local_error->message);
          return FALSE;
        }
      self->plugin_path = g_strdup (file);
      self->plugin_language = g_strdup (language != NULL ? language : "C");
    }

  if (self->resuming && self->recorded_plugin_sha256 != NULL &&
      g_strcmp0 (self->recorded_plugin_sha256, self->plugin_sha256) != 0)
    {
      gboolean module = g_strcmp0 (self->plugin_language, "C") == 0;

      g_set_error (error, ANOT_ERROR, ANOT_ERROR_RESUME,
                   "Cannot resume %s: the method %s %s %s since the run started "
                   "(SHA-256 %.12s… then, %.12s… now%s%s); the rows already written came from "
                   "the old %s: put it back to resume, or start the experiment again with --force",
                   self->directory ? self->directory : "the experiment",
                   module ? "module" : "file",
                   self->recorded_plugin_path, module ? "was rebuilt" : "changed",
                   self->recorded_plugin_sha256,
                   self->plugin_sha256 ? self->plugin_sha256 : "(none)",
                   self->plugin_path && g_strcmp0 (self->plugin_path, self->recorded_plugin_path) != 0
                     ? ", loaded from " : "",
                   self->plugin_path && g_strcmp0 (self->plugin_path, self->recorded_plugin_path) != 0
                     ? self->plugin_path : "",
                   module ? "build" : "file");
      return FALSE;
    }
  return TRUE;
}

static gboolean
plan_method (AnotExperiment  *self,
             GError         **error)
{
  if (!plan_method_plugin (self, error))
    return FALSE;
  /* A merge ranks nothing: the method need not be there. */
  if (!self->merging || anot_registry_lookup_type (anot_registry_get_default (),
                                                   ANOT_METHOD_EXTENSION_POINT_NAME,
                                                   self->method_name) != G_TYPE_INVALID)
    {
      self->method = anot_registry_create_method (anot_registry_get_default (),
                                                  self->method_name, error);
      if (self->method == NULL)
        return FALSE;
    }
  self->uses_truth = (anot_registry_get_flags (anot_registry_get_default (),
                                               ANOT_METHOD_EXTENSION_POINT_NAME,
                                               self->method_name) & ANOT_PLUGIN_NEEDS_TRUTH) != 0;
  /* Every run has one: the rows say how the first item fares once the
   * method has answered.  Only a truth method is handed it. */
  self->validator = anot_validator_new (self->dataset);
  return TRUE;
}

/* The steps of anot_experiment_prepare(), in the order their errors are
 * reported; on failure the caller clears what was made. */
gboolean
anot_experiment_plan (AnotExperiment  *self,
                      GError         **error)
{
  self->settings = anot_run_config_copy (self->config);
  return anot_run_config_apply_compat (self->settings, error) &&
         plan_candidate_counts (self, error) &&
         plan_requests (self, error) &&
         prepare_attacks (self, error) &&
         plan_cells (self, error) &&
         check_directories (self, error) &&
         plan_method (self, error) &&
         plan_config_file (self, error) &&
         plan_method_options (self, error) &&
         plan_llm (self, error);
}

/* The number of requests N keeps. */
guint
anot_experiment_kept_count (AnotExperiment *self,
                            guint           n)
{
  GPtrArray *kept = g_hash_table_lookup (self->kept, GUINT_TO_POINTER (n));

  return kept ? kept->len : 0;
}
