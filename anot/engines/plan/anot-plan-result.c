/* anot-plan-result.c: what running an Atom of Thought plan produced
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "anot-plan-result.h"

#include "anot-plan-private.h"

/**
 * AnotPlanResult:
 *
 * The outcome of an [class@Anot.PlanExecutor] run: every atom's result
 * (JSON), when each started and how long it took, the order in which the
 * atoms finished, notes on what went wrong inside atoms (a judge call
 * that failed, an answer without a score), and the ranking the final
 * atom produced.
 *
 * Per-item tools give an object keyed by item (`{"1": true, "2": null}`);
 * the exploration tools give their JSON result; the final `rank` atom
 * gives `{"scores": {...}, "ranking": [3, 1, 2]}` (1-based).
 */

typedef struct {
  JsonNode *result;
  double    start_ms;
  double    latency_ms;
} AtomRecord;

struct _AnotPlanResult
{
  GObject parent_instance;

  AnotPlan    *plan;
  AnotRanking *ranking;
  GHashTable  *atoms;      /* id -> AtomRecord */
  GPtrArray   *order;      /* char*, NULL-terminated */
  GPtrArray   *notes;      /* char*, NULL-terminated */
  double       wall_ms;
  guint        n_calls;
  guint        max_in_flight;
};

G_DEFINE_FINAL_TYPE (AnotPlanResult, anot_plan_result, G_TYPE_OBJECT)

enum {
  PROP_0,
  PROP_PLAN,
  PROP_RANKING,
  PROP_N_CALLS,
  PROP_MAX_IN_FLIGHT,
  PROP_WALL_MS,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

static void
atom_record_free (gpointer data)
{
  AtomRecord *record = data;

  g_clear_pointer (&record->result, json_node_unref);
  g_free (record);
}

static void
anot_plan_result_finalize (GObject *object)
{
  AnotPlanResult *self = ANOT_PLAN_RESULT (object);

  g_clear_object (&self->plan);
  g_clear_object (&self->ranking);
  g_hash_table_unref (self->atoms);
  g_ptr_array_unref (self->order);
  g_ptr_array_unref (self->notes);

  G_OBJECT_CLASS (anot_plan_result_parent_class)->finalize (object);
}

static void
anot_plan_result_get_property (GObject    *object,
                               guint       prop_id,
                               GValue     *value,
                               GParamSpec *pspec)
{
  AnotPlanResult *self = ANOT_PLAN_RESULT (object);

  switch (prop_id)
    {
    case PROP_PLAN:
      g_value_set_object (value, self->plan);
      break;
    case PROP_RANKING:
      g_value_set_object (value, self->ranking);
      break;
    case PROP_N_CALLS:
      g_value_set_uint (value, self->n_calls);
      break;
    case PROP_MAX_IN_FLIGHT:
      g_value_set_uint (value, self->max_in_flight);
      break;
    case PROP_WALL_MS:
      g_value_set_double (value, self->wall_ms);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
anot_plan_result_class_init (AnotPlanResultClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = anot_plan_result_finalize;
  object_class->get_property = anot_plan_result_get_property;

  /**
   * AnotPlanResult:plan:
   *
   * The plan that was run.
   */
  properties[PROP_PLAN] =
    g_param_spec_object ("plan", NULL, NULL, ANOT_TYPE_PLAN,
                         G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);

  /**
   * AnotPlanResult:ranking:
   *
   * The ranking of the final atom.
   */
  properties[PROP_RANKING] =
    g_param_spec_object ("ranking", NULL, NULL, ANOT_TYPE_RANKING,
                         G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);

  /**
   * AnotPlanResult:n-calls:
   *
   * The LLM calls the atoms made.
   */
  properties[PROP_N_CALLS] =
    g_param_spec_uint ("n-calls", NULL, NULL, 0, G_MAXUINT, 0,
                       G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);

  /**
   * AnotPlanResult:max-in-flight:
   *
   * The most LLM calls in flight at once.
   */
  properties[PROP_MAX_IN_FLIGHT] =
    g_param_spec_uint ("max-in-flight", NULL, NULL, 0, G_MAXUINT, 0,
                       G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);

  /**
   * AnotPlanResult:wall-ms:
   *
   * The run's wall time in milliseconds.
   */
  properties[PROP_WALL_MS] =
    g_param_spec_double ("wall-ms", NULL, NULL, 0, G_MAXDOUBLE, 0,
                         G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);

  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
anot_plan_result_init (AnotPlanResult *self)
{
  self->atoms = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, atom_record_free);
  self->order = g_ptr_array_new_null_terminated (0, g_free, TRUE);
  self->notes = g_ptr_array_new_null_terminated (0, g_free, TRUE);
}

AnotPlanResult *
_anot_plan_result_new (AnotPlan *plan)
{
  AnotPlanResult *self = g_object_new (ANOT_TYPE_PLAN_RESULT, NULL);

  self->plan = g_object_ref (plan);
  return self;
}

void
_anot_plan_result_set_atom (AnotPlanResult *self,
                            const char     *id,
                            JsonNode       *result,
                            double          start_ms,
                            double          latency_ms)
{
  AtomRecord *record = g_new0 (AtomRecord, 1);

  record->result = result != NULL ? json_node_ref (result) : NULL;
  record->start_ms = start_ms;
  record->latency_ms = latency_ms;
  g_hash_table_replace (self->atoms, g_strdup (id), record);
  g_ptr_array_add (self->order, g_strdup (id));
}

void
_anot_plan_result_add_note (AnotPlanResult *self,
                            const char     *note)
{
  g_ptr_array_add (self->notes, g_strdup (note));
}

void
_anot_plan_result_finish (AnotPlanResult *self,
                          AnotRanking    *ranking,
                          double          wall_ms,
                          guint           n_calls,
                          guint           max_in_flight)
{
  g_set_object (&self->ranking, ranking);
  self->wall_ms = wall_ms;
  self->n_calls = n_calls;
  self->max_in_flight = max_in_flight;
}

/**
 * anot_plan_result_get_plan:
 * @self: an #AnotPlanResult
 *
 * Returns: (transfer none): the plan that was run
 */
AnotPlan *
anot_plan_result_get_plan (AnotPlanResult *self)
{
  g_return_val_if_fail (ANOT_IS_PLAN_RESULT (self), NULL);
  return self->plan;
}

/**
 * anot_plan_result_get_ranking:
 * @self: an #AnotPlanResult
 *
 * Returns: (transfer none): the ranking of the final atom
 */
AnotRanking *
anot_plan_result_get_ranking (AnotPlanResult *self)
{
  g_return_val_if_fail (ANOT_IS_PLAN_RESULT (self), NULL);
  return self->ranking;
}

/**
 * anot_plan_result_get_atom_result:
 * @self: an #AnotPlanResult
 * @id: an atom id
 *
 * Returns: (transfer none) (nullable): the atom's result, or %NULL if it
 *   did not run
 */
JsonNode *
anot_plan_result_get_atom_result (AnotPlanResult *self,
                                  const char     *id)
{
  AtomRecord *record;

  g_return_val_if_fail (ANOT_IS_PLAN_RESULT (self), NULL);
  g_return_val_if_fail (id != NULL, NULL);

  record = g_hash_table_lookup (self->atoms, id);
  return record != NULL ? record->result : NULL;
}

/**
 * anot_plan_result_get_atom_start_ms:
 * @self: an #AnotPlanResult
 * @id: an atom id
 *
 * Returns: when the atom started, in milliseconds since the run started;
 *   -1 if it did not run
 */
double
anot_plan_result_get_atom_start_ms (AnotPlanResult *self,
                                    const char     *id)
{
  AtomRecord *record;

  g_return_val_if_fail (ANOT_IS_PLAN_RESULT (self), -1);
  g_return_val_if_fail (id != NULL, -1);

  record = g_hash_table_lookup (self->atoms, id);
  return record != NULL ? record->start_ms : -1;
}

/**
 * anot_plan_result_get_atom_latency_ms:
 * @self: an #AnotPlanResult
 * @id: an atom id
 *
 * Returns: how long the atom took, in milliseconds; -1 if it did not run
 */
double
anot_plan_result_get_atom_latency_ms (AnotPlanResult *self,
                                      const char     *id)
{
  AtomRecord *record;

  g_return_val_if_fail (ANOT_IS_PLAN_RESULT (self), -1);
  g_return_val_if_fail (id != NULL, -1);

  record = g_hash_table_lookup (self->atoms, id);
  return record != NULL ? record->latency_ms : -1;
}

/**
 * anot_plan_result_get_order:
 * @self: an #AnotPlanResult
 *
 * Returns: (transfer none) (array zero-terminated=1): the atom ids in the
 *   order the atoms finished
 */
const char * const *
anot_plan_result_get_order (AnotPlanResult *self)
{
  static const char * const none[] = { NULL };

  g_return_val_if_fail (ANOT_IS_PLAN_RESULT (self), NULL);
  return self->order->len > 0 ? (const char * const *) self->order->pdata : none;
}

/**
 * anot_plan_result_get_notes:
 * @self: an #AnotPlanResult
 *
 * Returns: (transfer none) (array zero-terminated=1): what went wrong
 *   inside atoms, one message each
 */
const char * const *
anot_plan_result_get_notes (AnotPlanResult *self)
{
  static const char * const none[] = { NULL };

  g_return_val_if_fail (ANOT_IS_PLAN_RESULT (self), NULL);
  return self->notes->len > 0 ? (const char * const *) self->notes->pdata : none;
}

/**
 * anot_plan_result_get_n_calls:
 * @self: an #AnotPlanResult
 *
 * Returns: the LLM calls the atoms made
 */
guint
anot_plan_result_get_n_calls (AnotPlanResult *self)
{
  g_return_val_if_fail (ANOT_IS_PLAN_RESULT (self), 0);
  return self->n_calls;
}

/**
 * anot_plan_result_get_max_in_flight:
 * @self: an #AnotPlanResult
 *
 * Returns: the most LLM calls in flight at once
 */
guint
anot_plan_result_get_max_in_flight (AnotPlanResult *self)
{
  g_return_val_if_fail (ANOT_IS_PLAN_RESULT (self), 0);
  return self->max_in_flight;
}

/**
 * anot_plan_result_get_wall_ms:
 * @self: an #AnotPlanResult
 *
 * Returns: the run's wall time in milliseconds
 */
double
anot_plan_result_get_wall_ms (AnotPlanResult *self)
{
  g_return_val_if_fail (ANOT_IS_PLAN_RESULT (self), 0);
  return self->wall_ms;
}

/**
 * anot_plan_result_to_json:
 * @self: an #AnotPlanResult
 * @max_value_length: atom results longer than this many characters of
 *   JSON are written as cut text; 0 keeps them whole
 *
 * Writes the run for a trace: `{"atoms": {"<id>": {"result": ...,
 * "start_ms": ..., "latency_ms": ...}}, "order": [...], "notes": [...],
 * "n_calls": ..., "max_in_flight": ..., "wall_ms": ...}`.
 *
 * Returns: (transfer full): a JSON object node
 */
JsonNode *
anot_plan_result_to_json (AnotPlanResult *self,
                          guint           max_value_length)
{
  g_autoptr(JsonBuilder) builder = json_builder_new ();

  g_return_val_if_fail (ANOT_IS_PLAN_RESULT (self), NULL);

  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "atoms");
  json_builder_begin_object (builder);
  for (guint i = 0; i < self->order->len; i++)
    {
      const char *id = g_ptr_array_index (self->order, i);
      AtomRecord *record = g_hash_table_lookup (self->atoms, id);

      json_builder_set_member_name (builder, id);
      json_builder_begin_object (builder);
      json_builder_set_member_name (builder, "result");
      if (record->result == NULL)
        json_builder_add_null_value (builder);
      else
        {
          g_autofree char *text = json_to_string (record->result, FALSE);

          if (max_value_length > 0 && g_utf8_strlen (text, -1) > (glong) max_value_length)
            {
              g_autofree char *cut = g_utf8_substring (text, 0, max_value_length);
              g_autofree char *shown = g_strconcat (cut, "...", NULL);

              json_builder_add_string_value (builder, shown);
            }
          else
            json_builder_add_value (builder, json_node_copy (record->result));
        }
      json_builder_set_member_name (builder, "start_ms");
      json_builder_add_double_value (builder, record->start_ms);
      json_builder_set_member_name (builder, "latency_ms");
      json_builder_add_double_value (builder, record->latency_ms);
      json_builder_end_object (builder);
    }
  json_builder_end_object (builder);

  json_builder_set_member_name (builder, "order");
  json_builder_begin_array (builder);
  for (guint i = 0; i < self->order->len; i++)
    json_builder_add_string_value (builder, g_ptr_array_index (self->order, i));
  json_builder_end_array (builder);

  json_builder_set_member_name (builder, "notes");
  json_builder_begin_array (builder);
  for (guint i = 0; i < self->notes->len; i++)
    json_builder_add_string_value (builder, g_ptr_array_index (self->notes, i));
  json_builder_end_array (builder);

  json_builder_set_member_name (builder, "n_calls");
  json_builder_add_int_value (builder, self->n_calls);
  json_builder_set_member_name (builder, "max_in_flight");
  json_builder_add_int_value (builder, self->max_in_flight);
  json_builder_set_member_name (builder, "wall_ms");
  json_builder_add_double_value (builder, self->wall_ms);
  json_builder_end_object (builder);

  return json_builder_get_root (builder);
}
