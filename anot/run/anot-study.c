/* anot-study.c: a paper's grid of experiments, run as one
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "anot-study-private.h"

#include "anot-comparison.h"
#include "anot-error.h"
#include "anot-experiment-private.h"
#include "anot-registry.h"
#include "anot-report-writer.h"
#include "anot-usage-private.h"

#include <glib/gstdio.h>
#include <math.h>
#include <string.h>

/**
 * AnotStudy:
 *
 * A grid of experiments described by one file and run as one: methods,
 * each on one or more models, under every attack of the study, with and
 * without defense mode, at the study's N and runs.
 *
 * The file has config.ini's syntax (see `docs/studies.md`):
 *
 * ```ini
 * [study]
 * name = robustness
 * attacks = clean, typo_10
 * limit = 20          # any run option by its long name
 * max_cost = 25       # one budget for the whole study
 * baseline = bm25
 *
 * [method cot]
 * models = gpt-4o-mini, claude-3-5-haiku-latest
 * options = cot.variant=plain
 *
 * [method bm25]
 * ```
 *
 * Each method, model and defense mode is one [class@Anot.Experiment],
 * named with the method and the model (`cot@gpt-4o-mini`), in
 * `<out>/<name>/`; its attack directories are the study's cells
 * ([class@Anot.StudyCell]).  The experiments run at once on one main
 * loop; the requests they start pass one gate, which counts the requests
 * in flight of every cell against the study's `concurrency` and their
 * cost against `max_cost`.  Running the study again continues it: every
 * experiment whose directory exists is resumed.
 */

#define ESTIMATE_COMPLETION_TOKENS 300

/* One experiment of the study: a method on a model, in a defense mode. */
typedef struct
{
  char *label;
  char *method;
  char *model;            /* NULL: no model named */
  gboolean defense;
  GStrv options;          /* method options, KEY=VALUE as -O takes them */
  char *section;          /* its [method NAME], for messages */
  guint shard;            /* the experiment's shard this process runs */
  AnotExperiment *experiment;
  GError *error;          /* how its last run ended; NULL: complete */
  gboolean running;
} Entry;

struct _AnotStudy
{
  GObject parent_instance;

  char *path;
  AnotIniReader *reader;
  char *name;
  char *data;
  char *out;
  char *baseline;
  double max_cost;
  AnotRunConfig *base;    /* the run options of [study] */
  GStrv attacks;
  GPtrArray *entries;     /* Entry */
  GPtrArray *cells;       /* AnotStudyCell */
  AnotDataset *dataset;
  guint shard_index;
  guint shard_count;      /* 0: not sharded */
  guint retry;
  gboolean built;
  gboolean ran;           /* the experiments ran: a new run makes them again */

  /* A run in progress */
  GTask *task;
  GCancellable *cancellable;
  AnotRunGate *gate;
  guint pending;
  guint round;
  double spent_before;    /* by the experiments a retry round does not run */
};

G_DEFINE_FINAL_TYPE (AnotStudy, anot_study, G_TYPE_OBJECT)

enum {
  PROP_0,
  PROP_NAME,
  PROP_PATH,
  PROP_BASELINE,
  PROP_N_PLANNED,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

enum {
  STUDY_SIGNAL_RESULT,
  N_STUDY_SIGNALS
};

static guint study_signals[N_STUDY_SIGNALS];

static void
entry_free (Entry *entry)
{
  g_free (entry->label);
  g_free (entry->method);
  g_free (entry->model);
  g_strfreev (entry->options);
  g_free (entry->section);
  if (entry->experiment != NULL)
    g_signal_handlers_disconnect_matched (entry->experiment, G_SIGNAL_MATCH_DATA, 0, 0, NULL, NULL, entry);
  g_clear_object (&entry->experiment);
  g_clear_error (&entry->error);
  g_free (entry);
}

static void
anot_study_finalize (GObject *object)
{
  AnotStudy *self = ANOT_STUDY (object);

  g_free (self->path);
  g_clear_pointer (&self->reader, anot_ini_reader_unref);
  g_free (self->name);
  g_free (self->data);
  g_free (self->out);
  g_free (self->baseline);
  g_clear_pointer (&self->base, anot_run_config_unref);
  g_strfreev (self->attacks);
  g_ptr_array_unref (self->entries);
  g_ptr_array_unref (self->cells);
  g_clear_object (&self->dataset);
  g_clear_object (&self->cancellable);
  g_clear_pointer (&self->gate, anot_run_gate_unref);
  G_OBJECT_CLASS (anot_study_parent_class)->finalize (object);
}

static void
anot_study_get_property (GObject    *object,
                         guint       prop_id,
                         GValue     *value,
                         GParamSpec *pspec)
{
  AnotStudy *self = ANOT_STUDY (object);

  switch (prop_id)
    {
    case PROP_NAME: g_value_set_string (value, self->name); break;
    case PROP_PATH: g_value_set_string (value, self->path); break;
    case PROP_BASELINE: g_value_set_string (value, self->baseline); break;
    case PROP_N_PLANNED: g_value_set_uint (value, anot_study_get_n_planned (self)); break;
    default: G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
anot_study_class_init (AnotStudyClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GParamFlags flags = G_PARAM_READABLE | G_PARAM_STATIC_STRINGS;

  object_class->finalize = anot_study_finalize;
  object_class->get_property = anot_study_get_property;

  /**
   * AnotStudy:name:
   *
   * The study's name, its directory below the results root.
   */
  properties[PROP_NAME] = g_param_spec_string ("name", NULL, NULL, NULL, flags);
  /**
   * AnotStudy:path:
   *
   * The study file.
   */
  properties[PROP_PATH] = g_param_spec_string ("path", NULL, NULL, NULL, flags);
  /**
   * AnotStudy:baseline:
   *
   * The label the comparison tests every other against, or %NULL.
   */
  properties[PROP_BASELINE] = g_param_spec_string ("baseline", NULL, NULL, NULL, flags);
  /**
   * AnotStudy:n-planned:
   *
   * The requests every cell plans together (those of this process's
   * shard), done or not.
   */
  properties[PROP_N_PLANNED] = g_param_spec_uint ("n-planned", NULL, NULL, 0, G_MAXUINT, 0, flags);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  /**
   * AnotStudy::result:
   * @self: the study
   * @cell: the cell the request belongs to
   * @result: its result
   *
   * A request of a cell finished (its row is written).
   */
  study_signals[STUDY_SIGNAL_RESULT] =
    g_signal_new ("result", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 2, ANOT_TYPE_STUDY_CELL, ANOT_TYPE_RESULT);
}

static void
anot_study_init (AnotStudy *self)
{
  self->entries = g_ptr_array_new_with_free_func ((GDestroyNotify) entry_free);
  self->cells = g_ptr_array_new_with_free_func (g_object_unref);
  self->out = g_strdup ("results");
}

/* ------------------------------------------------------------------------
 * The file
 * --------------------------------------------------------------------- */

/* [study] keys that are not run options. */
static const char * const study_keys[] = {
  "name", "data", "out", "attacks", "defense", "max_cost", "baseline", NULL
};

/* Run options a study decides itself, or which mean something else in it. */
static const struct
{
  const char *key;
  const char *why;
} refused_keys[] = {
  { "attack", "give the study's attacks as “attacks”" },
  { "model", "give the models of each method in its [method NAME] section (“models”)" },
  { "role", "give the models of each method in its [method NAME] section (“models”)" },
  { "shard", "a study is split with anot-run study FILE --shard I/N" },
  { "force", "a study run again continues; remove its directory to start over" },
  { "max-cost-role", "a study has one budget, max_cost" },
};

static char *
run_option_key (const char *key)
{
  char *normal = g_strdup (key);

  /* max_cost, base_url...: config.ini's spelling of --max-cost, --base-url. */
  g_strdelimit (normal, "_", '-');
  return normal;
}

static gboolean
parse_defense (AnotStudy  *self,
               gboolean   *off,
               gboolean   *on,
               GError    **error)
{
  const char *value = anot_ini_reader_get_value (self->reader, "study", "defense");
  g_auto(GStrv) parts = NULL;

  *off = TRUE;
  *on = FALSE;
  if (value == NULL)
    return TRUE;
  *off = FALSE;
  parts = anot_run_config_split_list (value);
  for (guint i = 0; parts[i] != NULL; i++)
    {
      if (g_ascii_strcasecmp (parts[i], "off") == 0 || g_ascii_strcasecmp (parts[i], "false") == 0)
        *off = TRUE;
      else if (g_ascii_strcasecmp (parts[i], "on") == 0 || g_ascii_strcasecmp (parts[i], "true") == 0)
        *on = TRUE;
      else
        {
          anot_ini_reader_set_error (self->reader, error, "study", "defense",
                                     "“%s”: expected off, on, or both (off, on)", parts[i]);
          return FALSE;
        }
    }
  if (!*off && !*on)
    {
      anot_ini_reader_set_error (self->reader, error, "study", "defense",
                                 "expected off, on, or both (off, on)");
      return FALSE;
    }
  return TRUE;
}

static gboolean
parse_study_section (AnotStudy  *self,
                     GError    **error)
{
  g_auto(GStrv) keys = NULL;
  const char *value;

  if (!anot_ini_reader_has_section (self->reader, "study"))
    {
      g_set_error (error, ANOT_ERROR, ANOT_ERROR_CONFIG,
                   "%s: no [study] section (it names the study, its data and its attacks)",
                   anot_ini_reader_get_name (self->reader));
      return FALSE;
    }

  self->base = anot_run_config_new ();
  keys = anot_ini_reader_list_keys (self->reader, "study");
  for (guint i = 0; keys[i] != NULL; i++)
    {
      g_autofree char *key = NULL;
      g_autoptr(GError) local = NULL;

      if (g_strv_contains (study_keys, keys[i]))
        continue;
      key = run_option_key (keys[i]);
      for (guint r = 0; r < G_N_ELEMENTS (refused_keys); r++)
        if (strcmp (key, refused_keys[r].key) == 0)
          {
            anot_ini_reader_set_error (self->reader, error, "study", keys[i], "not a study key: %s",
                                       refused_keys[r].why);
            return FALSE;
          }
      if (strcmp (key, "name") == 0 || g_str_has_prefix (key, "method."))
        {
          anot_ini_reader_set_error (self->reader, error, "study", keys[i],
                                     "not a study key: give method options in [method NAME] "
                                     "(“options”)");
          return FALSE;
        }
      if (!anot_run_config_set (self->base, key,
                                anot_ini_reader_get_value (self->reader, "study", keys[i]), &local))
        {
          anot_ini_reader_set_error (self->reader, error, "study", keys[i], "%s", local->message);
          return FALSE;
        }
    }

  value = anot_ini_reader_get_value (self->reader, "study", "name");
  if (value != NULL)
    {
      g_autoptr(GError) local = NULL;
      g_autoptr(AnotRunConfig) scratch = anot_run_config_new ();

      /* The same rules as an experiment's name: one directory. */
      if (!anot_run_config_set (scratch, "name", value, &local))
        {
          anot_ini_reader_set_error (self->reader, error, "study", "name", "%s", local->message);
          return FALSE;
        }
      self->name = g_strdup (value);
    }
  else
    {
      g_autofree char *base = g_path_get_basename (self->path);
      char *dot = strrchr (base, '.');

      if (dot != NULL && dot != base)
        *dot = '\0';
      self->name = g_strdup (base);
    }

  value = anot_ini_reader_get_value (self->reader, "study", "data");
  self->data = value ? anot_ini_reader_resolve_path (self->reader, value) : NULL;
  value = anot_ini_reader_get_value (self->reader, "study", "out");
  if (value != NULL)
    {
      g_free (self->out);
      self->out = anot_ini_reader_resolve_path (self->reader, value);
    }

  value = anot_ini_reader_get_value (self->reader, "study", "attacks");
  if (value != NULL)
    {
      self->attacks = anot_run_config_split_list (value);
      if (self->attacks[0] == NULL)
        {
          anot_ini_reader_set_error (self->reader, error, "study", "attacks", "no attack given");
          return FALSE;
        }
      for (guint i = 0; self->attacks[i] != NULL; i++)
        if (strcmp (self->attacks[i], "none") == 0)
          {
            g_free (self->attacks[i]);
            self->attacks[i] = g_strdup ("clean");
          }
    }
  else
    self->attacks = g_strsplit ("clean", ",", -1);

  value = anot_ini_reader_get_value (self->reader, "study", "max_cost");
  if (value != NULL)
    {
      g_autoptr(GError) local = NULL;
      g_autoptr(AnotRunConfig) scratch = anot_run_config_new ();

      /* Read as --max-cost reads it. */
      if (!anot_run_config_set (scratch, "max-cost", value, &local))
        {
          anot_ini_reader_set_error (self->reader, error, "study", "max_cost", "%s", local->message);
          return FALSE;
        }
      self->max_cost = scratch->max_cost;
    }
  self->baseline = g_strdup (anot_ini_reader_get_value (self->reader, "study", "baseline"));
  return TRUE;
}

static char *
make_label (const char *method,
            const char *model,
            gboolean    defense)
{
  GString *label = g_string_new (method);

  if (model != NULL)
    {
      g_autofree char *safe = g_strdup (model);

      /* One directory: Qwen/Qwen2.5-7B is Qwen_Qwen2.5-7B. */
      g_strdelimit (safe, "/\\", '_');
      g_string_append_printf (label, "@%s", safe);
    }
  if (defense)
    g_string_append (label, "+defense");
  return g_string_free (label, FALSE);
}

static gboolean
parse_method_sections (AnotStudy  *self,
                       GError    **error)
{
  g_auto(GStrv) sections = anot_ini_reader_list_sections (self->reader);
  AnotRegistry *registry = anot_registry_get_default ();
  gboolean defense_off, defense_on;

  if (!parse_defense (self, &defense_off, &defense_on, error))
    return FALSE;

  for (guint s = 0; sections[s] != NULL; s++)
    {
      const char *section = sections[s];
      const char *method;
      g_auto(GStrv) keys = NULL;
      g_auto(GStrv) models = NULL;
      g_auto(GStrv) options = NULL;
      AnotPluginFlags flags;

      if (strcmp (section, "study") == 0)
        continue;
      if (!g_str_has_prefix (section, "method "))
        {
          anot_ini_reader_set_error (self->reader, error, section, NULL,
                                     "unknown section: a study has [study] and [method NAME] sections");
          return FALSE;
        }
      method = section + strlen ("method ");
      while (*method == ' ')
        method++;
      if (anot_registry_lookup_type (registry, ANOT_METHOD_EXTENSION_POINT_NAME, method) == G_TYPE_INVALID)
        {
          g_auto(GStrv) names = anot_registry_list (registry, ANOT_METHOD_EXTENSION_POINT_NAME);
          g_autofree char *list = names ? g_strjoinv (", ", names) : g_strdup ("none");

          anot_ini_reader_set_error (self->reader, error, section, NULL,
                                     "unknown method “%s” (available: %s)", method, list);
          return FALSE;
        }

      keys = anot_ini_reader_list_keys (self->reader, section);
      for (guint i = 0; keys[i] != NULL; i++)
        if (strcmp (keys[i], "models") != 0 && strcmp (keys[i], "options") != 0)
          {
            anot_ini_reader_set_error (self->reader, error, section, keys[i],
                                       "unknown key (a [method NAME] section has models and options)");
            return FALSE;
          }

      if (anot_ini_reader_get_value (self->reader, section, "models") != NULL)
        {
          models = anot_run_config_split_list (anot_ini_reader_get_value (self->reader, section, "models"));
          if (models[0] == NULL)
            {
              anot_ini_reader_set_error (self->reader, error, section, "models", "no model given");
              return FALSE;
            }
        }
      if (anot_ini_reader_get_value (self->reader, section, "options") != NULL)
        {
          options = anot_run_config_split_list (anot_ini_reader_get_value (self->reader, section, "options"));
          for (guint i = 0; options[i] != NULL; i++)
            {
              const char *eq = strchr (options[i], '=');

              if (eq == NULL || eq == options[i])
                {
                  anot_ini_reader_set_error (self->reader, error, section, "options",
                                             "“%s”: expected KEY=VALUE, as -O takes it", options[i]);
                  return FALSE;
                }
            }
        }

      flags = anot_registry_get_flags (registry, ANOT_METHOD_EXTENSION_POINT_NAME, method);
      for (guint d = 0; d < 2; d++)
        {
          gboolean defense = d == 1;

          if ((defense && !defense_on) || (!defense && !defense_off))
            continue;
          /* Defense mode is for the methods that support it; the others
           * run their undefended cells only. */
          if (defense && (flags & ANOT_PLUGIN_SUPPORTS_DEFENSE) == 0)
            continue;
          for (guint m = 0; m < (models ? g_strv_length (models) : 1); m++)
            {
              Entry *entry = g_new0 (Entry, 1);
              const char *model = models ? models[m] : NULL;

              entry->method = g_strdup (method);
              entry->model = g_strdup (model);
              entry->defense = defense;
              entry->options = g_strdupv (options);
              entry->section = g_strdup (section);
              entry->label = make_label (method, model, defense);
              for (guint e = 0; e < self->entries->len; e++)
                if (strcmp (((Entry *) g_ptr_array_index (self->entries, e))->label, entry->label) == 0)
                  {
                    anot_ini_reader_set_error (self->reader, error, section, model ? "models" : NULL,
                                               "%s is in the study twice", entry->label);
                    entry_free (entry);
                    return FALSE;
                  }
              g_ptr_array_add (self->entries, entry);
            }
        }
    }
  if (self->entries->len == 0)
    {
      g_set_error (error, ANOT_ERROR, ANOT_ERROR_CONFIG,
                   "%s: no method: add a [method NAME] section for each method of the study",
                   anot_ini_reader_get_name (self->reader));
      return FALSE;
    }
  return TRUE;
}

/* `baseline = bm25` names a label, or a method with one label. */
static gboolean
resolve_baseline (AnotStudy  *self,
                  GError    **error)
{
  const char *found = NULL;
  guint n_found = 0;

  if (self->baseline == NULL)
    return TRUE;
  for (guint e = 0; e < self->entries->len; e++)
    {
      Entry *entry = g_ptr_array_index (self->entries, e);

      if (strcmp (entry->label, self->baseline) == 0)
        return TRUE;
      if (strcmp (entry->method, self->baseline) == 0)
        {
          found = entry->label;
          n_found++;
        }
    }
  if (n_found == 1)
    {
      g_free (self->baseline);
      self->baseline = g_strdup (found);
      return TRUE;
    }
  {
    g_autoptr(GString) labels = g_string_new (NULL);

    for (guint e = 0; e < self->entries->len; e++)
      g_string_append_printf (labels, "%s%s", e ? ", " : "",
                              ((Entry *) g_ptr_array_index (self->entries, e))->label);
    anot_ini_reader_set_error (self->reader, error, "study", "baseline",
                               n_found > 1 ? "“%s” has several models: name one of %s"
                                           : "“%s” is not in the study (its methods: %s)",
                               self->baseline, labels->str);
  }
  return FALSE;
}

/* ------------------------------------------------------------------------
 * The experiments
 * --------------------------------------------------------------------- */

static char *
study_directory (AnotStudy *self)
{
  return g_build_filename (self->out, self->name, NULL);
}

/* The settings of @entry's experiment as a new one would have them. */
static AnotRunConfig *
entry_config (AnotStudy  *self,
              Entry      *entry,
              guint       shard,
              GError    **error)
{
  g_autoptr(AnotRunConfig) config = anot_run_config_copy (self->base);
  g_autofree char *attacks = g_strjoinv (",", self->attacks);
  g_autofree char *study_dir = study_directory (self);

  if (!anot_run_config_set (config, "attack", attacks, error) ||
      !anot_run_config_set (config, "out", study_dir, error) ||
      !anot_run_config_set (config, "name", entry->label, error))
    return NULL;
  if (entry->model != NULL && !anot_run_config_set (config, "model", entry->model, error))
    return NULL;
  if (entry->defense && !anot_run_config_set (config, "defense", "true", error))
    return NULL;
  if (self->shard_count > 0)
    {
      g_autofree char *text = g_strdup_printf ("%u/%u", shard, self->shard_count);

      if (!anot_run_config_set (config, "shard", text, error))
        return NULL;
    }
  for (guint i = 0; entry->options != NULL && entry->options[i] != NULL; i++)
    {
      const char *eq = strchr (entry->options[i], '=');
      g_autofree char *key = g_strdup_printf ("method.%.*s", (int) (eq - entry->options[i]),
                                              entry->options[i]);

      if (!anot_run_config_set (config, key, eq + 1, error))
        {
          g_prefix_error (error, "%s:%u: [%s] options: ", anot_ini_reader_get_name (self->reader),
                          anot_ini_reader_get_line (self->reader, entry->section, "options"),
                          entry->section);
          return NULL;
        }
    }
  return g_steal_pointer (&config);
}

/* Keys a study run again may change without changing a row: where calls
 * go, how many at once, what may be spent, where files are. */
static gboolean
key_may_change (const char *key)
{
  static const char * const keys[] = {
    "out", "force", "concurrency", "request-timeout", "cache", "offline", "debug",
    "context-tokens", NULL
  };

  return g_strv_contains (keys, key) || anot_run_config_key_is_per_shard (key);
}

/* What differs between the recorded settings and the study's, or NULL. */
static char *
describe_difference (const AnotRunConfig *recorded,
                     const AnotRunConfig *wanted)
{
  g_auto(GStrv) keys = anot_run_config_list_keys ();
  g_auto(GStrv) set_a = anot_run_config_list_set_keys (recorded);
  g_auto(GStrv) set_b = anot_run_config_list_set_keys (wanted);
  g_autoptr(GPtrArray) all = g_ptr_array_new ();

  for (guint i = 0; keys[i] != NULL; i++)
    g_ptr_array_add (all, keys[i]);
  for (guint i = 0; set_a[i] != NULL; i++)
    if (strchr (set_a[i], '.') != NULL)
      g_ptr_array_add (all, set_a[i]);
  for (guint i = 0; set_b[i] != NULL; i++)
    if (strchr (set_b[i], '.') != NULL)
      g_ptr_array_add (all, set_b[i]);

  for (guint i = 0; i < all->len; i++)
    {
      const char *key = g_ptr_array_index (all, i);
      g_autofree char *a = NULL;
      g_autofree char *b = NULL;

      if (key_may_change (key))
        continue;
      a = anot_run_config_get (recorded, key);
      b = anot_run_config_get (wanted, key);
      if (g_strcmp0 (a, b) != 0)
        return g_strdup_printf ("“%s” was %s, the study now says %s", key, a ? a : "(not set)",
                                b ? b : "(not set)");
    }
  return NULL;
}

/* The experiment of @entry: resumed when its directory holds one, new
 * otherwise; not prepared. */
static AnotExperiment *
make_experiment (AnotStudy  *self,
                 Entry      *entry,
                 guint       shard,
                 GError    **error)
{
  g_autoptr(AnotRunConfig) config = entry_config (self, entry, shard, error);
  g_autofree char *study_dir = study_directory (self);
  g_autofree char *directory = g_build_filename (study_dir, entry->label, NULL);
  g_autofree char *recorded = NULL;
  g_autofree char *found_in = NULL;
  g_autoptr(AnotExperiment) experiment = NULL;

  if (config == NULL)
    return NULL;

  recorded = anot_experiment_find_config (directory, &found_in);
  if (recorded != NULL)
    {
      g_autoptr(AnotRunConfig) resumed = NULL;
      g_autofree char *difference = NULL;

      experiment = anot_experiment_new_for_resume (directory, self->dataset, error);
      if (experiment == NULL)
        return NULL;
      resumed = anot_experiment_get_config (experiment);
      difference = describe_difference (resumed, config);
      if (difference != NULL)
        {
          g_set_error (error, ANOT_ERROR, ANOT_ERROR_RESUME,
                       "%s: %s ran with other settings: %s. A study run again continues "
                       "what it started; give the study another name, or remove %s to start over",
                       self->path, directory, difference, directory);
          return NULL;
        }
      /* What may change between sessions, as the study says now. */
      {
        g_auto(GStrv) keys = anot_run_config_list_keys ();

        for (guint i = 0; keys[i] != NULL; i++)
          if (key_may_change (keys[i]) && strcmp (keys[i], "out") != 0 &&
              strcmp (keys[i], "force") != 0 && strcmp (keys[i], "shard") != 0)
            {
              g_autofree char *value = anot_run_config_get (config, keys[i]);

              if (anot_run_config_is_set (config, keys[i]) && value != NULL &&
                  !anot_run_config_set (resumed, keys[i], value, error))
                return NULL;
            }
      }
      anot_experiment_set_config (experiment, resumed);
    }
  else
    {
      /* A directory without config.json: a session stopped before its
       * first write; nothing in it to keep. */
      if (g_file_test (directory, G_FILE_TEST_IS_DIR) &&
          !anot_run_config_set (config, "force", "true", error))
        return NULL;
      experiment = anot_experiment_new (self->dataset, entry->method);
      anot_experiment_set_config (experiment, config);
    }
  return g_steal_pointer (&experiment);
}

/* Prepares @experiment, saying where in the file a refusal comes from. */
static gboolean
prepare_entry (AnotStudy       *self,
               Entry           *entry,
               AnotExperiment  *experiment,
               GError         **error)
{
  g_autoptr(GError) local = NULL;

  if (anot_experiment_prepare (experiment, &local))
    return TRUE;
  if (g_error_matches (local, ANOT_ERROR, ANOT_ERROR_RESUME))
    {
      g_propagate_error (error, g_steal_pointer (&local));
      return FALSE;
    }
  /* The experiment names the option; the file says where it is. */
  if (strstr (local->message, "attack") != NULL && strstr (local->message, "method.") == NULL)
    anot_ini_reader_set_error (self->reader, error, "study", "attacks", "%s", local->message);
  else if (entry->options != NULL)
    anot_ini_reader_set_error (self->reader, error, entry->section, "options", "%s", local->message);
  else
    anot_ini_reader_set_error (self->reader, error, entry->section, NULL, "%s", local->message);
  return FALSE;
}

/* Which shard of each experiment this process runs: every experiment is
 * split in shard_count parts by its own plan (they differ by at most one
 * request), and experiment e's part (i + offset_e) mod N goes to
 * process i, the offsets chosen, most expensive experiment first, to
 * even out the estimated cost each process runs. */
static gboolean
assign_shards (AnotStudy  *self,
               GError    **error)
{
  guint n = self->shard_count;
  g_autofree double *load = g_new0 (double, n);
  g_autofree double *cost = g_new0 (double, self->entries->len);
  g_autofree guint *planned = g_new0 (guint, self->entries->len);
  g_autofree guint *order = g_new0 (guint, self->entries->len);
  double total_cost = 0;

  for (guint e = 0; e < self->entries->len; e++)
    {
      Entry *entry = g_ptr_array_index (self->entries, e);
      g_autoptr(AnotExperiment) whole = NULL;
      g_autoptr(AnotRunConfig) config = NULL;
      g_autoptr(JsonNode) estimate = NULL;

      /* The whole experiment, as if not sharded: nothing is written. */
      self->shard_count = 0;
      config = entry_config (self, entry, 0, error);
      self->shard_count = n;
      if (config == NULL)
        return FALSE;
      anot_run_config_set (config, "force", "true", NULL);
      whole = anot_experiment_new (self->dataset, entry->method);
      anot_experiment_set_config (whole, config);
      if (!prepare_entry (self, entry, whole, error))
        return FALSE;
      estimate = anot_experiment_estimate (whole, ESTIMATE_COMPLETION_TOKENS, error);
      if (estimate == NULL)
        return FALSE;
      cost[e] = anot_usage_read_cost (json_object_get_object_member (json_node_get_object (estimate),
                                                                     "total"), "cost_usd");
      /* A model without a price: balanced by requests alone. */
      if (isnan (cost[e]))
        cost[e] = 0;
      planned[e] = anot_experiment_get_n_planned (whole);
      total_cost += cost[e];
      order[e] = e;
    }

  /* Most expensive first (then most requests): a stable insertion sort. */
  for (guint i = 1; i < self->entries->len; i++)
    for (guint j = i; j > 0; j--)
      {
        guint a = order[j - 1], b = order[j];

        if (cost[b] > cost[a] || (cost[b] == cost[a] && planned[b] > planned[a]))
          {
            order[j - 1] = b;
            order[j] = a;
          }
        else
          break;
      }

  for (guint i = 0; i < self->entries->len; i++)
    {
      guint e = order[i];
      Entry *entry = g_ptr_array_index (self->entries, e);
      double best = G_MAXDOUBLE;
      guint best_offset = 0;

      for (guint offset = 0; offset < n; offset++)
        {
          double worst = 0;

          for (guint p = 0; p < n; p++)
            {
              guint part = (p + offset) % n;
              guint count = planned[e] / n + (part < planned[e] % n ? 1 : 0);
              /* Requests weigh when nothing costs (methods without LLM). */
              double weight = total_cost > 0 ? (planned[e] ? cost[e] * count / planned[e] : 0) : count;

              worst = MAX (worst, load[p] + weight);
            }
          if (worst < best)
            {
              best = worst;
              best_offset = offset;
            }
        }
      for (guint p = 0; p < n; p++)
        {
          guint part = (p + best_offset) % n;
          guint count = planned[e] / n + (part < planned[e] % n ? 1 : 0);

          load[p] += total_cost > 0 ? (planned[e] ? cost[e] * count / planned[e] : 0) : count;
        }
      entry->shard = (self->shard_index + best_offset) % n;
    }
  return TRUE;
}

static void
build_cells (AnotStudy *self)
{
  g_autofree char *study_dir = study_directory (self);

  g_ptr_array_set_size (self->cells, 0);
  for (guint e = 0; e < self->entries->len; e++)
    {
      Entry *entry = g_ptr_array_index (self->entries, e);
      g_auto(GStrv) attacks = entry->experiment ? anot_experiment_list_attacks (entry->experiment) : NULL;

      for (guint a = 0; attacks != NULL && attacks[a] != NULL; a++)
        {
          g_autofree char *directory = g_build_filename (study_dir, entry->label, attacks[a], NULL);

          g_ptr_array_add (self->cells, anot_study_cell_new (entry->label, entry->method, entry->model,
                                                             attacks[a], entry->defense, directory,
                                                             entry->experiment));
        }
    }
}

static gboolean
load_dataset (AnotStudy  *self,
              GError    **error)
{
  g_autofree char *data = NULL;

  if (self->dataset != NULL)
    return TRUE;
  if (self->data == NULL)
    {
      const char *env = g_getenv ("ANOT_DATA_DIR");

      /* As anot-run's: the demo benchmark. */
      data = g_build_filename (env && *env ? env : ANOT_PKGDATADIR, "demo", NULL);
    }
  else
    data = g_strdup (self->data);
  self->dataset = anot_dataset_load (data, NULL, error);
  if (self->dataset == NULL)
    {
      g_prefix_error (error, "%s: cannot load the benchmark %s: ", self->path, data);
      return FALSE;
    }
  return TRUE;
}

/* Every experiment as a new one would be, prepared and dropped: the
 * attacks and the method options checked whatever the directories hold. */
static gboolean
validate_entries (AnotStudy  *self,
                  GError    **error)
{
  for (guint e = 0; e < self->entries->len; e++)
    {
      Entry *entry = g_ptr_array_index (self->entries, e);
      g_autoptr(AnotRunConfig) config = NULL;
      g_autoptr(AnotExperiment) experiment = NULL;
      guint saved = self->shard_count;

      self->shard_count = 0;
      config = entry_config (self, entry, 0, error);
      self->shard_count = saved;
      if (config == NULL)
        return FALSE;
      /* Nothing is written: an existing directory is no obstacle. */
      anot_run_config_set (config, "force", "true", NULL);
      experiment = anot_experiment_new (self->dataset, entry->method);
      anot_experiment_set_config (experiment, config);
      if (!prepare_entry (self, entry, experiment, error))
        return FALSE;
    }
  return TRUE;
}

/* Makes and prepares every experiment (again, when a setting changed). */
static gboolean
study_build (AnotStudy  *self,
             GError    **error)
{
  if (self->built)
    return TRUE;
  if (!load_dataset (self, error))
    return FALSE;
  if (self->shard_count > 0 && !assign_shards (self, error))
    return FALSE;

  for (guint e = 0; e < self->entries->len; e++)
    {
      Entry *entry = g_ptr_array_index (self->entries, e);
      g_autoptr(AnotExperiment) experiment = make_experiment (self, entry, entry->shard, error);

      if (experiment == NULL || !prepare_entry (self, entry, experiment, error))
        return FALSE;
      g_set_object (&entry->experiment, experiment);
    }
  build_cells (self);
  self->built = TRUE;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_N_PLANNED]);
  return TRUE;
}

/**
 * anot_study_load:
 * @path: (type filename): the study file
 * @error: return location for a #GError
 *
 * Reads a study file and checks it before anything runs: an unknown key,
 * section, method, attack or method option, or a bad value, is
 * %ANOT_ERROR_CONFIG naming the file, the line and the key.  Every
 * experiment is prepared as a new one (nothing is written); whether the
 * study's directory holds a run of other settings is checked when the
 * study is run, estimated or asked for its cells, once the results root
 * ([method@Anot.Study.set_out]) is known.
 *
 * Returns: (transfer full): the study, or %NULL with @error set
 */
AnotStudy *
anot_study_load (const char  *path,
                 GError     **error)
{
  g_autoptr(AnotStudy) self = NULL;

  g_return_val_if_fail (path != NULL, NULL);

  self = g_object_new (ANOT_TYPE_STUDY, NULL);
  self->path = g_strdup (path);
  self->reader = anot_ini_reader_new_from_file (path, error);
  if (self->reader == NULL ||
      !parse_study_section (self, error) ||
      !parse_method_sections (self, error) ||
      !resolve_baseline (self, error) ||
      !load_dataset (self, error) ||
      !validate_entries (self, error))
    return NULL;
  return g_steal_pointer (&self);
}

/**
 * anot_study_get_name:
 * @self: an #AnotStudy
 *
 * Returns: (transfer none): the study's name
 */
const char *
anot_study_get_name (AnotStudy *self)
{
  g_return_val_if_fail (ANOT_IS_STUDY (self), NULL);
  return self->name;
}

/**
 * anot_study_get_path:
 * @self: an #AnotStudy
 *
 * Returns: (transfer none) (type filename): the study file
 */
const char *
anot_study_get_path (AnotStudy *self)
{
  g_return_val_if_fail (ANOT_IS_STUDY (self), NULL);
  return self->path;
}

/**
 * anot_study_get_directory:
 * @self: an #AnotStudy
 *
 * Returns: (transfer full) (type filename): `<out>/<name>`
 */
char *
anot_study_get_directory (AnotStudy *self)
{
  g_return_val_if_fail (ANOT_IS_STUDY (self), NULL);
  return study_directory (self);
}

/**
 * anot_study_get_baseline:
 * @self: an #AnotStudy
 *
 * Returns: (transfer none) (nullable): the baseline's label, or %NULL
 */
const char *
anot_study_get_baseline (AnotStudy *self)
{
  g_return_val_if_fail (ANOT_IS_STUDY (self), NULL);
  return self->baseline;
}

/**
 * anot_study_set_out:
 * @self: an #AnotStudy
 * @out: (type filename): the results root (the study writes `<out>/<name>`)
 *
 * Overrides the file's `out` (default `results`).
 */
void
anot_study_set_out (AnotStudy  *self,
                    const char *out)
{
  g_return_if_fail (ANOT_IS_STUDY (self));
  g_return_if_fail (out != NULL);
  g_free (self->out);
  self->out = g_strdup (out);
  self->built = FALSE;
}

/**
 * anot_study_set_option:
 * @self: an #AnotStudy
 * @key: a key of `[study]` that may change between sessions: `max-cost`,
 *   `concurrency`, `request-timeout`, `base-url`, `cache`, `offline`,
 *   `context-tokens` or a `batch` option
 * @value: its value
 * @error: return location for a #GError
 *
 * Overrides a setting of the file that does not change the rows (the
 * command line's `--max-cost`, `--base-url`...).
 *
 * Returns: %TRUE when the key and the value are valid
 */
gboolean
anot_study_set_option (AnotStudy   *self,
                       const char  *key,
                       const char  *value,
                       GError     **error)
{
  g_autofree char *normal = NULL;

  g_return_val_if_fail (ANOT_IS_STUDY (self), FALSE);
  g_return_val_if_fail (key != NULL && value != NULL, FALSE);

  normal = run_option_key (key);
  if (strcmp (normal, "max-cost") == 0)
    {
      g_autoptr(AnotRunConfig) scratch = anot_run_config_new ();

      if (!anot_run_config_set (scratch, "max-cost", value, error))
        return FALSE;
      self->max_cost = scratch->max_cost;
      return TRUE;
    }
  if (!key_may_change (normal) || strcmp (normal, "out") == 0 || strcmp (normal, "force") == 0 ||
      strcmp (normal, "max-cost-role") == 0 || strcmp (normal, "shard") == 0)
    {
      g_set_error (error, ANOT_ERROR, ANOT_ERROR_INVALID_ARGUMENT,
                   "“%s” changes what the study computes: set it in the study file", key);
      return FALSE;
    }
  if (!anot_run_config_set (self->base, normal, value, error))
    return FALSE;
  self->built = FALSE;
  return TRUE;
}

/**
 * anot_study_set_shard:
 * @self: an #AnotStudy
 * @index: the shard this process runs, from 0
 * @count: the number of shards (processes); 0: not sharded
 * @error: return location for a #GError
 *
 * Runs only this process's part of every experiment, chosen to balance
 * the estimated cost between the @count processes; `anot-run merge`
 * ([func@Anot.Study.merge_shards]) joins their directories.
 *
 * Returns: %TRUE when @index is below @count
 */
gboolean
anot_study_set_shard (AnotStudy  *self,
                      guint       index,
                      guint       count,
                      GError    **error)
{
  g_return_val_if_fail (ANOT_IS_STUDY (self), FALSE);

  if (count > 0 && index >= count)
    {
      g_set_error (error, ANOT_ERROR, ANOT_ERROR_INVALID_ARGUMENT,
                   "shard %u/%u: the index runs from 0 to %u", index, count, count - 1);
      return FALSE;
    }
  self->shard_index = index;
  self->shard_count = count;
  self->built = FALSE;
  return TRUE;
}

/**
 * anot_study_set_retry:
 * @self: an #AnotStudy
 * @rounds: how many times to run again the requests the infrastructure
 *   failed (unscored) before giving up (default 0)
 */
void
anot_study_set_retry (AnotStudy *self,
                      guint      rounds)
{
  g_return_if_fail (ANOT_IS_STUDY (self));
  self->retry = rounds;
}

/**
 * anot_study_get_cells:
 * @self: an #AnotStudy
 * @error: return location for a #GError
 *
 * Every cell, by experiment (in the file's order) then attack.  The
 * array holds a reference on each cell and releases it when freed (hence
 * `transfer container`: the bindings must not release them twice).
 *
 * Returns: (transfer container) (element-type AnotStudyCell): the cells,
 *   or %NULL with @error set when the study cannot be prepared
 */
GPtrArray *
anot_study_get_cells (AnotStudy  *self,
                      GError    **error)
{
  g_return_val_if_fail (ANOT_IS_STUDY (self), NULL);

  if (self->task == NULL && !study_build (self, error))
    return NULL;
  /* A copy: the bindings free the container they are given. */
  return g_ptr_array_copy (self->cells, (GCopyFunc) (void (*) (void)) g_object_ref, NULL);
}

/**
 * anot_study_get_n_planned:
 * @self: an #AnotStudy
 *
 * Returns: the requests of every cell together (this process's shard),
 *   done or not
 */
guint
anot_study_get_n_planned (AnotStudy *self)
{
  guint planned = 0;

  g_return_val_if_fail (ANOT_IS_STUDY (self), 0);
  for (guint e = 0; e < self->entries->len; e++)
    {
      Entry *entry = g_ptr_array_index (self->entries, e);

      if (entry->experiment != NULL)
        planned += anot_experiment_get_n_planned (entry->experiment);
    }
  return planned;
}

/**
 * anot_study_get_n_done:
 * @self: an #AnotStudy
 *
 * Returns: the rows every cell holds (this process's shard), scored or
 *   not: those a study run again does not run, unscored ones aside
 */
guint
anot_study_get_n_done (AnotStudy *self)
{
  guint done = 0;

  g_return_val_if_fail (ANOT_IS_STUDY (self), 0);
  for (guint c = 0; c < self->cells->len; c++)
    {
      g_autoptr(GPtrArray) rows = anot_study_cell_get_results (g_ptr_array_index (self->cells, c));

      done += rows->len;
    }
  return done;
}

/* ------------------------------------------------------------------------
 * The estimate
 * --------------------------------------------------------------------- */

static const char * const summed_members[] = {
  "requests", "calls", "prompt_tokens", "completion_tokens", "incomplete", NULL
};

/**
 * anot_study_estimate:
 * @self: an #AnotStudy
 * @completion_tokens: the answer length assumed for calls without
 *   max_tokens
 * @error: return location for a #GError
 *
 * What every cell would cost, as [method@Anot.Experiment.estimate]
 * estimates an experiment (what is left of it, for a study started
 * before), without calling any LLM: an object with `study`, `cells`
 * (each cell's `cell`, `label`, `method`, `model`, `attack`, `defense`,
 * `requests`, `calls`, `prompt_tokens`, `completion_tokens`, `cost_usd`,
 * `batch_cost_usd`, `incomplete`), `experiments` (each experiment's own
 * estimate) and `total`, the sum of the experiments' totals.
 *
 * Returns: (transfer full): the estimate, or %NULL with @error set
 */
JsonNode *
anot_study_estimate (AnotStudy  *self,
                     guint       completion_tokens,
                     GError    **error)
{
  g_autoptr(JsonBuilder) builder = json_builder_new ();
  g_autoptr(GPtrArray) estimates = g_ptr_array_new_with_free_func ((GDestroyNotify) json_node_unref);
  gint64 sums[G_N_ELEMENTS (summed_members)] = { 0 };
  double cost = 0, batch_cost = 0;
  gint64 per_min = -1, per_max = 0;

  g_return_val_if_fail (ANOT_IS_STUDY (self), NULL);

  if (!study_build (self, error))
    return NULL;
  for (guint e = 0; e < self->entries->len; e++)
    {
      Entry *entry = g_ptr_array_index (self->entries, e);
      JsonNode *estimate = anot_experiment_estimate (entry->experiment, completion_tokens, error);

      if (estimate == NULL)
        {
          g_prefix_error (error, "%s: ", entry->label);
          return NULL;
        }
      g_ptr_array_add (estimates, estimate);
    }

  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "study");
  json_builder_add_string_value (builder, self->name);
  json_builder_set_member_name (builder, "cells");
  json_builder_begin_array (builder);
  for (guint e = 0; e < self->entries->len; e++)
    {
      Entry *entry = g_ptr_array_index (self->entries, e);
      JsonObject *estimate = json_node_get_object (g_ptr_array_index (estimates, e));
      JsonArray *rows = json_object_get_array_member (estimate, "rows");

      for (guint a = 0; self->attacks[a] != NULL; a++)
        {
          gint64 cell_sums[G_N_ELEMENTS (summed_members)] = { 0 };
          double cell_cost = 0, cell_batch = 0;
          gboolean any = FALSE;
          g_autofree char *name = NULL;

          /* The experiment's rows are per attack and N: a cell is an attack. */
          for (guint r = 0; r < json_array_get_length (rows); r++)
            {
              JsonObject *row = json_array_get_object_element (rows, r);

              if (strcmp (json_object_get_string_member (row, "attack"), self->attacks[a]) != 0)
                continue;
              any = TRUE;
              for (guint m = 0; summed_members[m] != NULL; m++)
                cell_sums[m] += json_object_get_int_member_with_default (row, summed_members[m], 0);
              /* NaN (null) stays so: a model without a price. */
              cell_cost += anot_usage_read_cost (row, "cost_usd");
              cell_batch += anot_usage_read_cost (row, "batch_cost_usd");
            }
          if (!any)
            continue;
          name = g_strconcat (entry->label, "/", self->attacks[a], NULL);
          json_builder_begin_object (builder);
          json_builder_set_member_name (builder, "cell");
          json_builder_add_string_value (builder, name);
          json_builder_set_member_name (builder, "label");
          json_builder_add_string_value (builder, entry->label);
          json_builder_set_member_name (builder, "method");
          json_builder_add_string_value (builder, entry->method);
          json_builder_set_member_name (builder, "model");
          if (entry->model != NULL)
            json_builder_add_string_value (builder, entry->model);
          else
            json_builder_add_null_value (builder);
          json_builder_set_member_name (builder, "attack");
          json_builder_add_string_value (builder, self->attacks[a]);
          json_builder_set_member_name (builder, "defense");
          json_builder_add_boolean_value (builder, entry->defense);
          for (guint m = 0; summed_members[m] != NULL; m++)
            {
              json_builder_set_member_name (builder, summed_members[m]);
              json_builder_add_int_value (builder, cell_sums[m]);
            }
          json_builder_set_member_name (builder, "cost_usd");
          anot_usage_add_cost_value (builder, cell_cost);
          json_builder_set_member_name (builder, "batch_cost_usd");
          anot_usage_add_cost_value (builder, cell_batch);
          json_builder_end_object (builder);
        }

      {
        JsonObject *total = json_object_get_object_member (estimate, "total");

        for (guint m = 0; summed_members[m] != NULL; m++)
          sums[m] += json_object_get_int_member_with_default (total, summed_members[m], 0);
        cost += anot_usage_read_cost (total, "cost_usd");
        batch_cost += anot_usage_read_cost (total, "batch_cost_usd");
        if (json_object_get_int_member (total, "requests") > 0)
          {
            gint64 low = json_object_get_int_member (total, "calls_per_request_min");

            per_min = per_min < 0 ? low : MIN (per_min, low);
            per_max = MAX (per_max, json_object_get_int_member (total, "calls_per_request_max"));
          }
      }
    }
  json_builder_end_array (builder);

  json_builder_set_member_name (builder, "experiments");
  json_builder_begin_array (builder);
  for (guint e = 0; e < estimates->len; e++)
    {
      json_builder_begin_object (builder);
      json_builder_set_member_name (builder, "label");
      json_builder_add_string_value (builder, ((Entry *) g_ptr_array_index (self->entries, e))->label);
      json_builder_set_member_name (builder, "estimate");
      json_builder_add_value (builder, json_node_copy (g_ptr_array_index (estimates, e)));
      json_builder_end_object (builder);
    }
  json_builder_end_array (builder);

  json_builder_set_member_name (builder, "total");
  json_builder_begin_object (builder);
  for (guint m = 0; summed_members[m] != NULL; m++)
    {
      json_builder_set_member_name (builder, summed_members[m]);
      json_builder_add_int_value (builder, sums[m]);
    }
  json_builder_set_member_name (builder, "calls_per_request_min");
  json_builder_add_int_value (builder, MAX (per_min, 0));
  json_builder_set_member_name (builder, "calls_per_request_max");
  json_builder_add_int_value (builder, per_max);
  json_builder_set_member_name (builder, "cost_usd");
  anot_usage_add_cost_value (builder, cost);
  json_builder_set_member_name (builder, "batch_cost_usd");
  anot_usage_add_cost_value (builder, batch_cost);
  json_builder_end_object (builder);
  json_builder_end_object (builder);
  return json_builder_get_root (builder);
}

/* ------------------------------------------------------------------------
 * The record: study.json
 * --------------------------------------------------------------------- */

static void
add_nullable_string (JsonBuilder *builder,
                     const char  *member,
                     const char  *value)
{
  json_builder_set_member_name (builder, member);
  if (value != NULL)
    json_builder_add_string_value (builder, value);
  else
    json_builder_add_null_value (builder);
}

static JsonNode *
study_record (AnotStudy *self)
{
  g_autoptr(JsonBuilder) builder = json_builder_new ();

  json_builder_begin_object (builder);
  add_nullable_string (builder, "study", self->name);
  add_nullable_string (builder, "file", self->path);
  add_nullable_string (builder, "baseline", self->baseline);
  json_builder_set_member_name (builder, "max_cost");
  json_builder_add_double_value (builder, self->max_cost);
  json_builder_set_member_name (builder, "shard_count");
  json_builder_add_int_value (builder, self->shard_count);
  json_builder_set_member_name (builder, "shard_index");
  json_builder_add_int_value (builder, self->shard_index);
  json_builder_set_member_name (builder, "experiments");
  json_builder_begin_array (builder);
  for (guint e = 0; e < self->entries->len; e++)
    {
      Entry *entry = g_ptr_array_index (self->entries, e);

      json_builder_begin_object (builder);
      add_nullable_string (builder, "label", entry->label);
      add_nullable_string (builder, "method", entry->method);
      add_nullable_string (builder, "model", entry->model);
      json_builder_set_member_name (builder, "defense");
      json_builder_add_boolean_value (builder, entry->defense);
      json_builder_end_object (builder);
    }
  json_builder_end_array (builder);
  json_builder_set_member_name (builder, "cells");
  json_builder_begin_array (builder);
  for (guint c = 0; c < self->cells->len; c++)
    {
      AnotStudyCell *cell = g_ptr_array_index (self->cells, c);

      json_builder_begin_object (builder);
      add_nullable_string (builder, "cell", anot_study_cell_get_name (cell));
      add_nullable_string (builder, "label", anot_study_cell_get_label (cell));
      add_nullable_string (builder, "method", anot_study_cell_get_method (cell));
      add_nullable_string (builder, "model", anot_study_cell_get_model (cell));
      add_nullable_string (builder, "attack", anot_study_cell_get_attack (cell));
      json_builder_set_member_name (builder, "defense");
      json_builder_add_boolean_value (builder, anot_study_cell_get_defense (cell));
      json_builder_end_object (builder);
    }
  json_builder_end_array (builder);
  json_builder_end_object (builder);
  return json_builder_get_root (builder);
}

static gboolean
write_json_file (const char  *path,
                 JsonNode    *node,
                 GError     **error)
{
  g_autoptr(JsonGenerator) generator = json_generator_new ();
  g_autofree char *text = NULL;
  g_autofree char *with_newline = NULL;

  json_generator_set_root (generator, node);
  json_generator_set_pretty (generator, TRUE);
  text = json_generator_to_data (generator, NULL);
  with_newline = g_strconcat (text, "\n", NULL);
  return g_file_set_contents (path, with_newline, -1, error);
}

static gboolean
write_record (AnotStudy  *self,
              GError    **error)
{
  g_autofree char *directory = study_directory (self);
  g_autofree char *path = g_build_filename (directory, "study.json", NULL);
  g_autoptr(JsonNode) record = study_record (self);

  if (g_mkdir_with_parents (directory, 0755) != 0)
    {
      int saved = errno;

      g_set_error (error, ANOT_ERROR, ANOT_ERROR_IO, "cannot create %s: %s", directory,
                   g_strerror (saved));
      return FALSE;
    }
  return write_json_file (path, record, error);
}

/* ------------------------------------------------------------------------
 * The report
 * --------------------------------------------------------------------- */

static AnotResults *
load_labelled_results (const char          *directory,
                       const char * const  *labels,
                       GError             **error)
{
  g_autoptr(AnotResults) results = anot_results_new ();
  gboolean any = FALSE;

  for (guint i = 0; labels[i] != NULL; i++)
    {
      g_autofree char *path = g_build_filename (directory, labels[i], NULL);
      g_autofree char *found_in = NULL;
      g_autofree char *config = anot_experiment_find_config (path, &found_in);

      /* An experiment that never wrote a row has nothing to show. */
      if (config == NULL)
        continue;
      if (!anot_results_add_directory (results, path, error))
        return NULL;
      any = TRUE;
    }
  if (!any)
    {
      g_set_error (error, ANOT_ERROR, ANOT_ERROR_IO, "%s: no results yet", directory);
      return NULL;
    }
  return g_steal_pointer (&results);
}

/* report.html, comparison.md and comparison.csv of the study in
 * @directory, over the experiments @labels. */
static gboolean
write_report (const char          *directory,
              const char          *name,
              const char * const  *labels,
              const char          *baseline,
              GError             **error)
{
  g_autoptr(AnotResults) results = load_labelled_results (directory, labels, error);
  g_autoptr(AnotComparison) comparison = NULL;
  g_autoptr(AnotReportWriter) writer = NULL;
  g_autofree char *html = g_build_filename (directory, "report.html", NULL);
  g_autofree char *title = g_strdup_printf ("Study %s", name);
  static const char * const formats[][2] = { { "markdown", "comparison.md" }, { "csv", "comparison.csv" } };

  if (results == NULL)
    return FALSE;
  comparison = anot_comparison_new (results);
  /* A baseline with no rows yet cannot be tested against. */
  if (baseline != NULL)
    {
      g_auto(GStrv) methods = anot_results_list_methods (results);

      if (g_strv_contains ((const char * const *) methods, baseline))
        anot_comparison_set_baseline (comparison, baseline);
    }
  anot_comparison_set_by_condition (comparison, TRUE);
  if (!anot_comparison_compute (comparison, error))
    return FALSE;
  for (guint f = 0; f < G_N_ELEMENTS (formats); f++)
    {
      g_autofree char *text = anot_comparison_format (comparison, formats[f][0], error);
      g_autofree char *path = g_build_filename (directory, formats[f][1], NULL);

      if (text == NULL || !g_file_set_contents (path, text, -1, error))
        return FALSE;
    }
  writer = anot_report_writer_new (results, comparison);
  anot_report_writer_set_title (writer, title);
  return anot_report_writer_write (writer, html, error);
}

static GStrv
entry_labels (AnotStudy *self)
{
  g_autoptr(GStrvBuilder) builder = g_strv_builder_new ();

  for (guint e = 0; e < self->entries->len; e++)
    g_strv_builder_add (builder, ((Entry *) g_ptr_array_index (self->entries, e))->label);
  return g_strv_builder_end (builder);
}

/**
 * anot_study_load_results:
 * @self: an #AnotStudy
 * @error: return location for a #GError
 *
 * The rows every cell has written so far, each method named with its
 * model (the experiment's name: `cot@gpt-4o-mini`).
 *
 * Returns: (transfer full): the results, or %NULL with @error set (no
 *   cell has a row yet)
 */
AnotResults *
anot_study_load_results (AnotStudy  *self,
                         GError    **error)
{
  g_autofree char *directory = NULL;
  g_auto(GStrv) labels = NULL;

  g_return_val_if_fail (ANOT_IS_STUDY (self), NULL);
  directory = study_directory (self);
  labels = entry_labels (self);
  return load_labelled_results (directory, (const char * const *) labels, error);
}

/**
 * anot_study_write_report:
 * @self: an #AnotStudy
 * @error: return location for a #GError
 *
 * Writes `report.html` (the HTML report over every cell), `comparison.md`
 * and `comparison.csv` (the comparison with intervals and paired tests
 * against the baseline) into the study's directory.  A run of the whole
 * study does it when it ends; a shard leaves it to the merge.
 *
 * Returns: %TRUE when written
 */
gboolean
anot_study_write_report (AnotStudy  *self,
                         GError    **error)
{
  g_autofree char *directory = NULL;
  g_auto(GStrv) labels = NULL;

  g_return_val_if_fail (ANOT_IS_STUDY (self), FALSE);
  directory = study_directory (self);
  labels = entry_labels (self);
  return write_report (directory, self->name, (const char * const *) labels, self->baseline, error);
}

/* ------------------------------------------------------------------------
 * Running
 * --------------------------------------------------------------------- */

static void
on_experiment_result (AnotExperiment *experiment,
                      AnotResult     *result,
                      AnotStudy      *self)
{
  const char *attack = anot_experiment_get_current_attack (experiment);

  for (guint c = 0; c < self->cells->len; c++)
    {
      AnotStudyCell *cell = g_ptr_array_index (self->cells, c);

      if (anot_study_cell_get_experiment (cell) == experiment &&
          (attack == NULL || strcmp (anot_study_cell_get_attack (cell), attack) == 0))
        {
          g_signal_emit (self, study_signals[STUDY_SIGNAL_RESULT], 0, cell, result);
          return;
        }
    }
}

/* What @experiment's rows cost. */
static double
experiment_spent (AnotStudy      *self,
                  AnotExperiment *experiment)
{
  double spent = 0;

  for (guint c = 0; c < self->cells->len; c++)
    {
      AnotStudyCell *cell = g_ptr_array_index (self->cells, c);
      g_autoptr(GPtrArray) rows = NULL;

      if (anot_study_cell_get_experiment (cell) != experiment)
        continue;
      rows = anot_study_cell_get_results (cell);
      for (guint r = 0; r < rows->len; r++)
        spent += anot_usage_get_cost_usd (anot_result_get_usage (g_ptr_array_index (rows, r)));
    }
  return spent;
}

static void study_start_round (AnotStudy *self);

/* How the study ended: the first reason to stop, in this order. */
static GError *
study_outcome (AnotStudy *self)
{
  GError *other = NULL, *budget = NULL, *incomplete = NULL;
  guint done = 0, planned = 0;
  g_autofree char *directory = study_directory (self);

  for (guint e = 0; e < self->entries->len; e++)
    {
      Entry *entry = g_ptr_array_index (self->entries, e);

      if (entry->error == NULL)
        continue;
      if (g_error_matches (entry->error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        return g_error_new (G_IO_ERROR, G_IO_ERROR_CANCELLED,
                              "Interrupted; the results so far are in %s. Run the same command "
                              "again to continue", directory);
      if (g_error_matches (entry->error, ANOT_ERROR, ANOT_ERROR_BUDGET))
        budget = budget ? budget : entry->error;
      else if (g_error_matches (entry->error, ANOT_ERROR, ANOT_ERROR_INCOMPLETE))
        incomplete = incomplete ? incomplete : entry->error;
      else
        other = other ? other : entry->error;
    }
  for (guint e = 0; e < self->entries->len; e++)
    {
      Entry *entry = g_ptr_array_index (self->entries, e);

      planned += anot_experiment_get_n_planned (entry->experiment);
    }
  if (other != NULL)
    {
      for (guint e = 0; e < self->entries->len; e++)
        {
          Entry *entry = g_ptr_array_index (self->entries, e);

          if (entry->error == other)
            return g_error_new (other->domain, other->code, "%s: %s", entry->label, other->message);
        }
    }
  if (budget != NULL)
    {
      done = anot_study_get_n_done (self);
      return g_error_new (ANOT_ERROR, ANOT_ERROR_BUDGET,
                          "Stopped by the study's budget: max_cost $%.2f would be passed ($%.4f "
                          "spent by its cells). %u of %u requests are done; the results so far "
                          "are in %s. Run the same command with a higher budget (--max-cost USD, "
                          "or max_cost in %s) to continue",
                          self->max_cost, self->gate ? self->gate->spent : 0.0, done, planned,
                          directory, self->path);
    }
  if (incomplete != NULL)
    return g_error_new (ANOT_ERROR, ANOT_ERROR_INCOMPLETE,
                        "Some requests were failed by the infrastructure (unscored) and are left "
                        "out of the metrics; run the same command again (or with --retry R) to "
                        "run them again");
  return NULL;
}

static void
study_end (AnotStudy *self)
{
  g_autoptr(GTask) task = g_steal_pointer (&self->task);
  GError *error = study_outcome (self);

  for (guint e = 0; e < self->entries->len; e++)
    anot_experiment_set_gate (((Entry *) g_ptr_array_index (self->entries, e))->experiment, NULL);
  g_clear_pointer (&self->gate, anot_run_gate_unref);
  g_clear_object (&self->cancellable);

  /* Whenever the whole study ends, however: what it has so far. */
  if (self->shard_count == 0)
    {
      g_autoptr(GError) local = NULL;

      if (!anot_study_write_report (self, &local) &&
          !g_error_matches (local, ANOT_ERROR, ANOT_ERROR_IO))
        g_warning ("Cannot write the study's report: %s", local->message);
      else if (local != NULL && error == NULL && anot_study_get_n_planned (self) > 0)
        error = g_error_copy (local);
    }
  if (error != NULL)
    g_task_return_error (task, error);
  else
    g_task_return_boolean (task, TRUE);
}

typedef struct
{
  AnotStudy *self;
  Entry *entry;
} RunData;

static void
on_run_done (GObject      *source,
             GAsyncResult *result,
             gpointer      user_data)
{
  RunData *data = user_data;
  AnotStudy *self = data->self;
  Entry *entry = data->entry;

  g_clear_error (&entry->error);
  anot_experiment_run_finish (ANOT_EXPERIMENT (source), result, &entry->error);
  entry->running = FALSE;
  g_signal_handlers_disconnect_by_func (source, on_experiment_result, self);
  g_free (data);

  if (--self->pending > 0)
    return;

  /* A retry round: the experiments the infrastructure failed, resumed. */
  if (self->round < self->retry && !g_cancellable_is_cancelled (self->cancellable))
    {
      gboolean any_other = FALSE, any_incomplete = FALSE;

      for (guint e = 0; e < self->entries->len; e++)
        {
          GError *error = ((Entry *) g_ptr_array_index (self->entries, e))->error;

          any_incomplete |= g_error_matches (error, ANOT_ERROR, ANOT_ERROR_INCOMPLETE);
          any_other |= error != NULL && !g_error_matches (error, ANOT_ERROR, ANOT_ERROR_INCOMPLETE);
        }
      if (any_incomplete && !any_other)
        {
          self->round++;
          study_start_round (self);
          g_object_unref (self);
          return;
        }
    }
  study_end (self);
  g_object_unref (self);
}

static void
study_start_round (AnotStudy *self)
{
  g_autoptr(GPtrArray) to_run = g_ptr_array_new ();
  g_autoptr(GError) error = NULL;
  guint concurrency = anot_run_config_get_concurrency (self->base);

  /* auto: the cells together as many requests as one experiment. */
  if (concurrency == 0)
    concurrency = self->base->batch ? ANOT_EXPERIMENT_BATCH_REQUESTS_IN_FLIGHT
                                    : ANOT_EXPERIMENT_AUTO_REQUESTS_IN_FLIGHT;
  g_clear_pointer (&self->gate, anot_run_gate_unref);
  self->gate = anot_run_gate_new (self->max_cost, concurrency);
  self->gate->held = TRUE;

  for (guint e = 0; e < self->entries->len; e++)
    {
      Entry *entry = g_ptr_array_index (self->entries, e);

      if (self->round > 0)
        {
          g_autoptr(AnotExperiment) again = NULL;

          if (!g_error_matches (entry->error, ANOT_ERROR, ANOT_ERROR_INCOMPLETE))
            {
              /* Not run again: what it spent still counts. */
              self->gate->spent += experiment_spent (self, entry->experiment);
              continue;
            }
          again = make_experiment (self, entry, entry->shard, &error);
          if (again == NULL || !prepare_entry (self, entry, again, &error))
            {
              g_clear_error (&entry->error);
              entry->error = g_steal_pointer (&error);
              continue;
            }
          g_set_object (&entry->experiment, again);
          build_cells (self);
        }
      g_ptr_array_add (to_run, entry);
    }

  self->pending = to_run->len;
  if (to_run->len == 0)
    {
      study_end (self);
      return;
    }
  for (guint i = 0; i < to_run->len; i++)
    {
      Entry *entry = g_ptr_array_index (to_run, i);
      RunData *data = g_new0 (RunData, 1);

      data->self = g_object_ref (self);
      data->entry = entry;
      entry->running = TRUE;
      anot_experiment_set_gate (entry->experiment, self->gate);
      g_signal_connect (entry->experiment, "result", G_CALLBACK (on_experiment_result), self);
      anot_experiment_run_async (entry->experiment, self->cancellable, on_run_done, data);
    }
  /* Every experiment has counted what its rows cost: requests may start. */
  if (self->gate != NULL)
    anot_run_gate_open (self->gate);
}

/* max_cost counts what calls cost: a model without a price would make
 * it count nothing.  Before anything is written. */
static gboolean
check_budget_prices (AnotStudy  *self,
                     GError    **error)
{
  if (self->max_cost <= 0)
    return TRUE;
  for (guint e = 0; e < self->entries->len; e++)
    {
      Entry *entry = g_ptr_array_index (self->entries, e);
      g_auto(GStrv) unpriced = anot_experiment_list_unpriced_models (entry->experiment);
      g_autofree char *list = NULL;

      if (unpriced[0] == NULL)
        continue;
      list = g_strjoinv ("”, “", unpriced);
      g_set_error (error, ANOT_ERROR, ANOT_ERROR_CONFIG,
                   "The study's budget (max_cost) needs the price of every model it calls, and "
                   "“%s” (experiment [%s]) %s none: give %s in the [prices] section of "
                   "config.ini (docs/configuration.md, \"Usage and cost\"), or run without a budget",
                   list, entry->section, unpriced[1] ? "have" : "has",
                   unpriced[1] ? "their prices" : "its price");
      return FALSE;
    }
  return TRUE;
}

/**
 * anot_study_run_async:
 * @self: an #AnotStudy
 * @cancellable: (nullable): cancels every cell: no new request starts,
 *   the ones in flight get the cancellation, and every cell's results so
 *   far are written
 * @callback: called when the study is over
 * @user_data: data for @callback
 *
 * Runs every cell at once on the thread-default main context: the
 * experiments share one gate, which holds the requests in flight of
 * every cell to the study's `concurrency` and their cost to `max_cost`.
 * A study started before is continued (each experiment resumed).  When
 * it ends, completed or not, `study.json`, `report.html`,
 * `comparison.md` and `comparison.csv` are written (the report and the
 * comparison not by a shard).
 */
void
anot_study_run_async (AnotStudy           *self,
                      GCancellable        *cancellable,
                      GAsyncReadyCallback  callback,
                      gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;
  g_autoptr(GError) error = NULL;

  g_return_if_fail (ANOT_IS_STUDY (self));

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, anot_study_run_async);
  g_task_set_check_cancellable (task, FALSE);
  if (self->task != NULL)
    {
      g_task_return_new_error (task, ANOT_ERROR, ANOT_ERROR_INVALID_ARGUMENT, "The study is already running");
      return;
    }
  /* Experiments that ran are made again: resumed from what they wrote. */
  if (self->ran)
    self->built = FALSE;
  if (!study_build (self, &error) || !check_budget_prices (self, &error) ||
      !write_record (self, &error))
    {
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }
  self->ran = TRUE;
  for (guint e = 0; e < self->entries->len; e++)
    {
      Entry *entry = g_ptr_array_index (self->entries, e);

      g_clear_error (&entry->error);
    }
  self->task = g_steal_pointer (&task);
  self->cancellable = cancellable ? g_object_ref (cancellable) : g_cancellable_new ();
  self->round = 0;
  study_start_round (self);
}

/**
 * anot_study_run_finish:
 * @self: an #AnotStudy
 * @result: the result passed to the callback
 * @error: return location for a #GError
 *
 * Finishes a study.  It fails, after writing everything, with
 * %G_IO_ERROR_CANCELLED when cancelled, with the first experiment's
 * error (named) when one stopped on an error no retry fixes, with
 * %ANOT_ERROR_BUDGET when `max_cost` stopped it (run it again with a
 * higher budget to continue) and with %ANOT_ERROR_INCOMPLETE when
 * requests are left unscored after the retry rounds.
 *
 * Returns: %TRUE when every cell is complete
 */
gboolean
anot_study_run_finish (AnotStudy     *self,
                       GAsyncResult  *result,
                       GError       **error)
{
  g_return_val_if_fail (ANOT_IS_STUDY (self), FALSE);
  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);
  return g_task_propagate_boolean (G_TASK (result), error);
}

static void
on_sync_done (GObject      *source,
              GAsyncResult *result,
              gpointer      user_data)
{
  GAsyncResult **out = user_data;

  *out = g_object_ref (result);
}

/**
 * anot_study_run:
 * @self: an #AnotStudy
 * @cancellable: (nullable): a #GCancellable
 * @error: return location for a #GError
 *
 * Runs the study and waits for it, iterating a main context of its own.
 *
 * Returns: %TRUE when every cell is complete
 */
gboolean
anot_study_run (AnotStudy     *self,
                GCancellable  *cancellable,
                GError       **error)
{
  g_autoptr(GMainContext) context = g_main_context_new ();
  g_autoptr(GAsyncResult) result = NULL;
  gboolean ok;

  g_return_val_if_fail (ANOT_IS_STUDY (self), FALSE);

  g_main_context_push_thread_default (context);
  anot_study_run_async (self, cancellable, on_sync_done, &result);
  while (result == NULL)
    g_main_context_iteration (context, TRUE);
  ok = anot_study_run_finish (self, result, error);
  g_main_context_pop_thread_default (context);
  return ok;
}

/* ------------------------------------------------------------------------
 * Shards
 * --------------------------------------------------------------------- */

/**
 * anot_study_is_study_directory:
 * @directory: (type filename): a directory
 *
 * Returns: whether @directory is a study's (it holds `study.json`)
 */
gboolean
anot_study_is_study_directory (const char *directory)
{
  g_autofree char *path = NULL;

  g_return_val_if_fail (directory != NULL, FALSE);
  path = g_build_filename (directory, "study.json", NULL);
  return g_file_test (path, G_FILE_TEST_IS_REGULAR);
}

static JsonNode *
read_record (const char  *directory,
             GError     **error)
{
  g_autofree char *path = g_build_filename (directory, "study.json", NULL);
  g_autoptr(JsonParser) parser = json_parser_new ();

  if (!json_parser_load_from_file (parser, path, error))
    {
      g_prefix_error (error, "%s: ", path);
      return NULL;
    }
  if (!JSON_NODE_HOLDS_OBJECT (json_parser_get_root (parser)))
    {
      g_set_error (error, ANOT_ERROR, ANOT_ERROR_PARSE, "%s: not a study record", path);
      return NULL;
    }
  return json_node_copy (json_parser_get_root (parser));
}

static char *
record_labels_text (JsonObject *record)
{
  JsonArray *experiments = json_object_get_array_member (record, "experiments");
  g_autoptr(GString) text = g_string_new (NULL);

  for (guint e = 0; experiments && e < json_array_get_length (experiments); e++)
    g_string_append_printf (text, "%s%s", e ? "," : "",
                            json_object_get_string_member (json_array_get_object_element (experiments, e), "label"));
  return g_string_free (g_steal_pointer (&text), FALSE);
}

/**
 * anot_study_merge_shards:
 * @out_directory: (type filename): the study directory to write
 * @shard_directories: (array zero-terminated=1) (element-type filename):
 *   the study directories the shards wrote (`<out>/<name>` of each
 *   `anot-run study FILE --shard I/N`)
 * @force: overwrite an existing @out_directory
 * @error: return location for a #GError
 *
 * Joins the shards of a study into what one process writes: every
 * experiment with [func@Anot.Experiment.merge_shards], then `study.json`,
 * `report.html` and the comparison.  The shards must be those of one
 * study, every shard 0..N-1 once.
 *
 * Returns: %TRUE when the merged study is complete; %ANOT_ERROR_INCOMPLETE
 *   (after writing) when shards hold unscored rows
 */
gboolean
anot_study_merge_shards (const char          *out_directory,
                         const char * const  *shard_directories,
                         gboolean             force,
                         GError             **error)
{
  g_autoptr(GPtrArray) records = g_ptr_array_new_with_free_func ((GDestroyNotify) json_node_unref);
  g_autoptr(GError) incomplete = NULL;
  g_autofree char *labels = NULL;
  g_autofree gboolean *seen = NULL;
  JsonObject *first;
  JsonArray *experiments;
  gint64 count;
  g_autoptr(GStrvBuilder) label_builder = g_strv_builder_new ();
  g_auto(GStrv) label_list = NULL;

  g_return_val_if_fail (out_directory != NULL, FALSE);
  g_return_val_if_fail (shard_directories != NULL && shard_directories[0] != NULL, FALSE);

  for (guint i = 0; shard_directories[i] != NULL; i++)
    {
      JsonNode *record = read_record (shard_directories[i], error);

      if (record == NULL)
        return FALSE;
      g_ptr_array_add (records, record);
    }
  first = json_node_get_object (g_ptr_array_index (records, 0));
  count = json_object_get_int_member_with_default (first, "shard_count", 0);
  labels = record_labels_text (first);
  if (count <= 0)
    {
      g_set_error (error, ANOT_ERROR, ANOT_ERROR_INVALID_ARGUMENT,
                   "%s is not a shard of a study (run with --shard I/N)", shard_directories[0]);
      return FALSE;
    }
  seen = g_new0 (gboolean, count);
  for (guint i = 0; i < records->len; i++)
    {
      JsonObject *record = json_node_get_object (g_ptr_array_index (records, i));
      g_autofree char *other = record_labels_text (record);
      gint64 index = json_object_get_int_member_with_default (record, "shard_index", -1);

      if (g_strcmp0 (json_object_get_string_member (record, "study"),
                     json_object_get_string_member (first, "study")) != 0 ||
          json_object_get_int_member_with_default (record, "shard_count", 0) != count ||
          strcmp (other, labels) != 0)
        {
          g_set_error (error, ANOT_ERROR, ANOT_ERROR_INVALID_ARGUMENT,
                       "%s and %s are not shards of one study (name, shard count or experiments differ)",
                       shard_directories[0], shard_directories[i]);
          return FALSE;
        }
      if (index < 0 || index >= count || seen[index])
        {
          g_set_error (error, ANOT_ERROR, ANOT_ERROR_INVALID_ARGUMENT,
                       "%s: shard %" G_GINT64_FORMAT "/%" G_GINT64_FORMAT " given twice or out of range",
                       shard_directories[i], index, count);
          return FALSE;
        }
      seen[index] = TRUE;
    }
  for (gint64 s = 0; s < count; s++)
    if (!seen[s])
      {
        g_set_error (error, ANOT_ERROR, ANOT_ERROR_INVALID_ARGUMENT,
                     "Shard %" G_GINT64_FORMAT "/%" G_GINT64_FORMAT " of the study is missing",
                     s, count);
        return FALSE;
      }

  experiments = json_object_get_array_member (first, "experiments");
  for (guint e = 0; e < json_array_get_length (experiments); e++)
    {
      const char *label = json_object_get_string_member (json_array_get_object_element (experiments, e), "label");
      g_autofree char *target = g_build_filename (out_directory, label, NULL);
      g_autoptr(GPtrArray) parts = g_ptr_array_new_with_free_func (g_free);
      g_autoptr(GError) local = NULL;

      g_strv_builder_add (label_builder, label);
      for (guint i = 0; shard_directories[i] != NULL; i++)
        g_ptr_array_add (parts, g_build_filename (shard_directories[i], label, NULL));
      g_ptr_array_add (parts, NULL);
      if (!anot_experiment_merge_shards (target, (const char * const *) parts->pdata, force, &local))
        {
          if (g_error_matches (local, ANOT_ERROR, ANOT_ERROR_INCOMPLETE))
            {
              if (incomplete == NULL)
                incomplete = g_steal_pointer (&local);
              continue;
            }
          g_propagate_prefixed_error (error, g_steal_pointer (&local), "%s: ", label);
          return FALSE;
        }
    }

  {
    g_autoptr(JsonNode) merged = json_node_copy (g_ptr_array_index (records, 0));
    JsonObject *object = json_node_get_object (merged);
    g_autofree char *path = g_build_filename (out_directory, "study.json", NULL);

    json_object_set_int_member (object, "shard_count", 0);
    json_object_set_int_member (object, "shard_index", 0);
    if (!write_json_file (path, merged, error))
      return FALSE;
  }
  label_list = g_strv_builder_end (label_builder);
  if (!write_report (out_directory, json_object_get_string_member (first, "study"),
                     (const char * const *) label_list,
                     json_object_get_string_member_with_default (first, "baseline", NULL), error))
    return FALSE;
  if (incomplete != NULL)
    {
      g_propagate_error (error, g_steal_pointer (&incomplete));
      return FALSE;
    }
  return TRUE;
}
