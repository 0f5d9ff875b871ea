/* anot-study-cell.c: one cell of a study
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "anot-study-private.h"

/**
 * AnotStudyCell:
 *
 * One cell of an [class@Anot.Study]: a method on a model, under one attack
 * (`clean`: none), with or without defense mode.  Its rows are those of
 * the attack directory ([property@Anot.StudyCell:directory]) of the
 * study's experiment for the method, model and defense mode
 * ([property@Anot.StudyCell:experiment]), in the usual layout:
 * `<directory>/run_<R>/results_<N>.jsonl`, `config.json`, summaries.
 */

struct _AnotStudyCell
{
  GObject parent_instance;

  char *label;            /* the experiment's name: `cot@gpt-4o-mini` */
  char *name;             /* `<label>/<attack>` */
  char *method;
  char *model;            /* NULL: the method's default (or no LLM) */
  char *attack;
  gboolean defense;
  char *directory;
  AnotExperiment *experiment;
};

G_DEFINE_FINAL_TYPE (AnotStudyCell, anot_study_cell, G_TYPE_OBJECT)

enum {
  PROP_0,
  PROP_NAME,
  PROP_LABEL,
  PROP_METHOD,
  PROP_MODEL,
  PROP_ATTACK,
  PROP_DEFENSE,
  PROP_DIRECTORY,
  PROP_EXPERIMENT,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

static void
anot_study_cell_finalize (GObject *object)
{
  AnotStudyCell *self = ANOT_STUDY_CELL (object);

  g_free (self->label);
  g_free (self->name);
  g_free (self->method);
  g_free (self->model);
  g_free (self->attack);
  g_free (self->directory);
  g_clear_object (&self->experiment);
  G_OBJECT_CLASS (anot_study_cell_parent_class)->finalize (object);
}

static void
anot_study_cell_get_property (GObject    *object,
                              guint       prop_id,
                              GValue     *value,
                              GParamSpec *pspec)
{
  AnotStudyCell *self = ANOT_STUDY_CELL (object);

  switch (prop_id)
    {
    case PROP_NAME: g_value_set_string (value, self->name); break;
    case PROP_LABEL: g_value_set_string (value, self->label); break;
    case PROP_METHOD: g_value_set_string (value, self->method); break;
    case PROP_MODEL: g_value_set_string (value, self->model); break;
    case PROP_ATTACK: g_value_set_string (value, self->attack); break;
    case PROP_DEFENSE: g_value_set_boolean (value, self->defense); break;
    case PROP_DIRECTORY: g_value_set_string (value, self->directory); break;
    case PROP_EXPERIMENT: g_value_set_object (value, self->experiment); break;
    default: G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
anot_study_cell_class_init (AnotStudyCellClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GParamFlags flags = G_PARAM_READABLE | G_PARAM_STATIC_STRINGS;

  object_class->finalize = anot_study_cell_finalize;
  object_class->get_property = anot_study_cell_get_property;

  /**
   * AnotStudyCell:name:
   *
   * `<label>/<attack>`, the cell's directory below the study's.
   */
  properties[PROP_NAME] = g_param_spec_string ("name", NULL, NULL, NULL, flags);
  /**
   * AnotStudyCell:label:
   *
   * The method with its model (`cot@gpt-4o-mini`, `bm25`), `+defense` in
   * defense mode: the experiment's name, and the method's name in the
   * study's report and comparison.
   */
  properties[PROP_LABEL] = g_param_spec_string ("label", NULL, NULL, NULL, flags);
  /**
   * AnotStudyCell:method:
   *
   * The method's registered name.
   */
  properties[PROP_METHOD] = g_param_spec_string ("method", NULL, NULL, NULL, flags);
  /**
   * AnotStudyCell:model:
   *
   * The model the study file names for the method, or %NULL (a method
   * without LLM calls, or the configured default model).
   */
  properties[PROP_MODEL] = g_param_spec_string ("model", NULL, NULL, NULL, flags);
  /**
   * AnotStudyCell:attack:
   *
   * The attack (`clean`: none).
   */
  properties[PROP_ATTACK] = g_param_spec_string ("attack", NULL, NULL, NULL, flags);
  /**
   * AnotStudyCell:defense:
   *
   * Whether the cell runs in defense mode.
   */
  properties[PROP_DEFENSE] = g_param_spec_boolean ("defense", NULL, NULL, FALSE, flags);
  /**
   * AnotStudyCell:directory:
   *
   * The cell's attack directory, `<out>/<study>/<label>/<attack>`.
   */
  properties[PROP_DIRECTORY] = g_param_spec_string ("directory", NULL, NULL, NULL, flags);
  /**
   * AnotStudyCell:experiment:
   *
   * The experiment that runs the cell (one per method, model and defense
   * mode, over every attack of the study).
   */
  properties[PROP_EXPERIMENT] = g_param_spec_object ("experiment", NULL, NULL, ANOT_TYPE_EXPERIMENT, flags);
  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
anot_study_cell_init (AnotStudyCell *self)
{
}

AnotStudyCell *
anot_study_cell_new (const char     *label,
                     const char     *method,
                     const char     *model,
                     const char     *attack,
                     gboolean        defense,
                     const char     *directory,
                     AnotExperiment *experiment)
{
  AnotStudyCell *self = g_object_new (ANOT_TYPE_STUDY_CELL, NULL);

  self->label = g_strdup (label);
  self->name = g_strconcat (label, "/", attack, NULL);
  self->method = g_strdup (method);
  self->model = g_strdup (model);
  self->attack = g_strdup (attack);
  self->defense = defense;
  self->directory = g_strdup (directory);
  self->experiment = experiment ? g_object_ref (experiment) : NULL;
  return self;
}

void
anot_study_cell_set_experiment (AnotStudyCell  *self,
                                AnotExperiment *experiment)
{
  g_set_object (&self->experiment, experiment);
}

/**
 * anot_study_cell_get_name:
 * @self: an #AnotStudyCell
 *
 * Returns: (transfer none): `<label>/<attack>`
 */
const char *
anot_study_cell_get_name (AnotStudyCell *self)
{
  g_return_val_if_fail (ANOT_IS_STUDY_CELL (self), NULL);
  return self->name;
}

/**
 * anot_study_cell_get_label:
 * @self: an #AnotStudyCell
 *
 * Returns: (transfer none): the method named with its model
 */
const char *
anot_study_cell_get_label (AnotStudyCell *self)
{
  g_return_val_if_fail (ANOT_IS_STUDY_CELL (self), NULL);
  return self->label;
}

/**
 * anot_study_cell_get_method:
 * @self: an #AnotStudyCell
 *
 * Returns: (transfer none): the method's name
 */
const char *
anot_study_cell_get_method (AnotStudyCell *self)
{
  g_return_val_if_fail (ANOT_IS_STUDY_CELL (self), NULL);
  return self->method;
}

/**
 * anot_study_cell_get_model:
 * @self: an #AnotStudyCell
 *
 * Returns: (transfer none) (nullable): the model the study names, or %NULL
 */
const char *
anot_study_cell_get_model (AnotStudyCell *self)
{
  g_return_val_if_fail (ANOT_IS_STUDY_CELL (self), NULL);
  return self->model;
}

/**
 * anot_study_cell_get_attack:
 * @self: an #AnotStudyCell
 *
 * Returns: (transfer none): the attack (`clean`: none)
 */
const char *
anot_study_cell_get_attack (AnotStudyCell *self)
{
  g_return_val_if_fail (ANOT_IS_STUDY_CELL (self), NULL);
  return self->attack;
}

/**
 * anot_study_cell_get_defense:
 * @self: an #AnotStudyCell
 *
 * Returns: whether the cell runs in defense mode
 */
gboolean
anot_study_cell_get_defense (AnotStudyCell *self)
{
  g_return_val_if_fail (ANOT_IS_STUDY_CELL (self), FALSE);
  return self->defense;
}

/**
 * anot_study_cell_get_directory:
 * @self: an #AnotStudyCell
 *
 * Returns: (transfer none) (type filename): the cell's attack directory
 */
const char *
anot_study_cell_get_directory (AnotStudyCell *self)
{
  g_return_val_if_fail (ANOT_IS_STUDY_CELL (self), NULL);
  return self->directory;
}

/**
 * anot_study_cell_get_experiment:
 * @self: an #AnotStudyCell
 *
 * Returns: (transfer none) (nullable): the experiment that runs the cell,
 *   once the study made it
 */
AnotExperiment *
anot_study_cell_get_experiment (AnotStudyCell *self)
{
  g_return_val_if_fail (ANOT_IS_STUDY_CELL (self), NULL);
  return self->experiment;
}

/**
 * anot_study_cell_get_results:
 * @self: an #AnotStudyCell
 *
 * The rows the cell holds so far, by N, then run, then request.  The
 * array holds a reference on each row and releases it when freed.
 *
 * Returns: (transfer container) (element-type AnotResult): the rows
 */
GPtrArray *
anot_study_cell_get_results (AnotStudyCell *self)
{
  GPtrArray *all = g_ptr_array_new_with_free_func (g_object_unref);
  const guint *ns;
  guint n_ns = 0;

  g_return_val_if_fail (ANOT_IS_STUDY_CELL (self), NULL);
  if (self->experiment == NULL)
    return all;
  ns = anot_experiment_get_candidate_counts (self->experiment, &n_ns);
  for (guint i = 0; ns != NULL && i < n_ns; i++)
    for (guint run = 1; run <= anot_experiment_get_n_runs (self->experiment); run++)
      {
        g_autoptr(GPtrArray) rows = anot_experiment_get_attack_results (self->experiment, self->attack, ns[i], run);

        for (guint r = 0; rows != NULL && r < rows->len; r++)
          g_ptr_array_add (all, g_object_ref (g_ptr_array_index (rows, r)));
      }
  return all;
}
