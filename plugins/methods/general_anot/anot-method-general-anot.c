/* anot-method-general-anot.c: General ANoT as a ranking method
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The request becomes the task formula.  Phase 1 compiles it into a Formula
 * Seed (once per formula: kept in memory by the method and, with
 * general_anot.cache_dir, on disk); Phase 2 runs the seed on every
 * candidate at once; the candidates are ranked by the seed's score output,
 * ties by position.  See README.md.
 */
#include <anot/anot.h>

#include <math.h>

#define ANOT_TYPE_METHOD_GENERAL_ANOT (anot_method_general_anot_get_type ())
G_DECLARE_FINAL_TYPE (AnotMethodGeneralAnot, anot_method_general_anot, ANOT, METHOD_GENERAL_ANOT, GObject)

struct _AnotMethodGeneralAnot
{
  GObject parent_instance;

  GMutex lock;
  GHashTable *seeds;        /* task formula -> AnotFormulaSeed */
};

static void anot_method_general_anot_method_iface_init (AnotMethodInterface *iface);

G_DEFINE_DYNAMIC_TYPE_EXTENDED (AnotMethodGeneralAnot, anot_method_general_anot, G_TYPE_OBJECT,
                                G_TYPE_FLAG_FINAL,
                                G_IMPLEMENT_INTERFACE_DYNAMIC (ANOT_TYPE_METHOD,
                                                               anot_method_general_anot_method_iface_init))

/* What ranking needs from a seed, added to the request (%1$s: the items,
 * %2$s: one item). */
#define RANKING_NOTE \
  "\n\n(The Formula Seed is used to rank %1$s for this request: it must have an output field " \
  "named score, a number that is higher when the %2$s satisfies the request better.)"

typedef struct {
  AnotMethodGeneralAnot *self;
  AnotMethodContext *context;
  GPtrArray *candidates;
  char *formula;
  char *score_field;
  AnotFormulaSeed *seed;
  JsonObject **results;
  guint pending;
  GError *error;
} RankData;

static void
rank_data_free (gpointer data)
{
  RankData *d = data;

  for (guint i = 0; d->results != NULL && i < d->candidates->len; i++)
    g_clear_pointer (&d->results[i], json_object_unref);
  g_free (d->results);
  g_clear_object (&d->self);
  g_clear_object (&d->context);
  g_ptr_array_unref (d->candidates);
  g_free (d->formula);
  g_free (d->score_field);
  g_clear_pointer (&d->seed, anot_formula_seed_unref);
  g_clear_error (&d->error);
  g_free (d);
}

typedef struct {
  guint index;
  double score;
} Scored;

static int
compare_scored (gconstpointer a,
                gconstpointer b)
{
  const Scored *x = a;
  const Scored *y = b;

  if (x->score != y->score)
    return x->score > y->score ? -1 : 1;
  return x->index < y->index ? -1 : x->index > y->index;
}

/* A number, a bool as 0/1; anything else ranks last. */
static double
score_of (JsonObject *result,
          const char *field,
          gboolean   *valid)
{
  JsonObject *outputs = json_object_get_object_member (result, "outputs");
  JsonNode *node = outputs != NULL ? json_object_get_member (outputs, field) : NULL;

  *valid = TRUE;
  if (node != NULL && JSON_NODE_HOLDS_VALUE (node))
    switch (json_node_get_value_type (node))
      {
      case G_TYPE_INT64:
      case G_TYPE_DOUBLE:
        if (isfinite (json_node_get_double (node)))
          return json_node_get_double (node);
        break;
      case G_TYPE_BOOLEAN:
        return json_node_get_boolean (node) ? 1.0 : 0.0;
      default:
        break;
      }
  *valid = FALSE;
  return -G_MAXDOUBLE;
}

static void
rank_done (GTask *task)
{
  RankData *d = g_task_get_task_data (task);
  g_autoptr(AnotRanking) ranking = anot_ranking_new ();
  g_autofree Scored *scored = g_new0 (Scored, MAX (1, d->candidates->len));
  JsonObject *trace = json_object_new ();
  JsonArray *items = json_array_new ();
  g_autoptr(JsonNode) node = json_node_new (JSON_NODE_OBJECT);
  guint n_unscored = 0;

  for (guint i = 0; i < d->candidates->len; i++)
    {
      gboolean valid;

      scored[i].index = i;
      scored[i].score = score_of (d->results[i], d->score_field, &valid);
      if (!valid)
        n_unscored++;
      json_object_set_boolean_member (d->results[i], "scored", valid);
      json_array_add_object_element (items, json_object_ref (d->results[i]));
    }
  qsort (scored, d->candidates->len, sizeof (Scored), compare_scored);
  for (guint i = 0; i < d->candidates->len; i++)
    anot_ranking_append (ranking, scored[i].index, scored[i].score);

  json_object_set_string_member (trace, "method", "general_anot");
  json_object_set_string_member (trace, "task_formula", d->formula);
  json_object_set_string_member (trace, "score_field", d->score_field);
  json_object_set_int_member (trace, "n_unscored", n_unscored);
  json_object_set_member (trace, "formula_seed", anot_formula_seed_to_json (d->seed));
  json_object_set_array_member (trace, "items", items);
  json_node_take_object (node, trace);
  anot_ranking_set_trace (ranking, node);

  g_task_return_pointer (task, g_steal_pointer (&ranking), g_object_unref);
}

typedef struct {
  GTask *task;
  guint index;
} ItemCall;

static void
on_item_done (GObject      *source,
              GAsyncResult *result,
              gpointer      user_data)
{
  ItemCall *call = user_data;
  GTask *task = call->task;
  RankData *d = g_task_get_task_data (task);
  GError *error = NULL;

  d->results[call->index] = anot_formula_seed_execute_finish (d->seed, result, &error);
  if (d->results[call->index] == NULL && d->error == NULL)
    d->error = error;
  else
    g_clear_error (&error);
  g_free (call);

  if (--d->pending == 0)
    {
      if (d->error != NULL)
        g_task_return_error (task, g_steal_pointer (&d->error));
      else
        rank_done (task);
    }
  g_object_unref (task);
}

static void
execute_all (GTask *task)
{
  RankData *d = g_task_get_task_data (task);

  d->results = g_new0 (JsonObject *, MAX (1, d->candidates->len));
  if (d->candidates->len == 0)
    {
      rank_done (task);
      return;
    }
  d->pending = d->candidates->len;
  for (guint i = 0; i < d->candidates->len; i++)
    {
      ItemCall *call = g_new0 (ItemCall, 1);

      call->task = g_object_ref (task);
      call->index = i;
      anot_formula_seed_execute_async (d->seed, d->context, d->candidates->pdata[i],
                                       g_task_get_cancellable (task), on_item_done, call);
    }
}

static void
on_compiled (GObject      *source,
             GAsyncResult *result,
             gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  RankData *d = g_task_get_task_data (task);
  GError *error = NULL;

  d->seed = anot_formula_seed_compile_finish (result, &error);
  if (d->seed == NULL)
    {
      g_task_return_error (task, error);
      return;
    }
  g_mutex_lock (&d->self->lock);
  g_hash_table_replace (d->self->seeds, g_strdup (d->formula), anot_formula_seed_ref (d->seed));
  g_mutex_unlock (&d->self->lock);
  execute_all (task);
}

static void
anot_method_general_anot_rank_async (AnotMethod          *method,
                                     AnotQuery           *request,
                                     GPtrArray           *candidates,
                                     guint                k,
                                     AnotMethodContext   *context,
                                     GCancellable        *cancellable,
                                     GAsyncReadyCallback  callback,
                                     gpointer             user_data)
{
  AnotMethodGeneralAnot *self = ANOT_METHOD_GENERAL_ANOT (method);
  g_autoptr(GTask) task = g_task_new (method, cancellable, callback, user_data);
  g_autoptr(AnotMethodSettings) settings = anot_method_settings_new ("general_anot");
  g_autoptr(GError) error = NULL;
  g_autofree char *score_field = NULL;
  g_autofree char *cache_dir = NULL;
  RankData *d;

  g_task_set_source_tag (task, anot_method_general_anot_rank_async);
  g_task_set_name (task, "[anot] general_anot rank");
  if (g_task_return_error_if_cancelled (task))
    return;
  if (!anot_method_settings_load_for_context (settings, context, &error))
    {
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }
  score_field = anot_method_settings_get_string (settings, context, "score_field");
  cache_dir = anot_method_settings_get_string (settings, context, "cache_dir");

  d = g_new0 (RankData, 1);
  d->self = g_object_ref (self);
  d->context = g_object_ref (context);
  d->candidates = g_ptr_array_ref (candidates);
  {
    AnotDomain *domain = anot_method_context_get_domain (context);
    g_autofree char *note = g_strdup_printf (RANKING_NOTE, anot_domain_get_items (domain),
                                             anot_domain_get_item (domain));

    d->formula = g_strconcat (anot_query_get_text (request), note, NULL);
  }
  d->score_field = g_strdup (score_field != NULL && *score_field != '\0' ? score_field : "score");
  g_task_set_task_data (task, d, rank_data_free);

  g_mutex_lock (&self->lock);
  d->seed = g_hash_table_lookup (self->seeds, d->formula);
  if (d->seed != NULL)
    anot_formula_seed_ref (d->seed);
  g_mutex_unlock (&self->lock);

  if (d->seed != NULL)
    {
      execute_all (task);
      return;
    }
  anot_formula_seed_compile_async (context, d->formula, cache_dir,
                                   cancellable, on_compiled, g_steal_pointer (&task));
}

static AnotRanking *
anot_method_general_anot_rank_finish (AnotMethod    *method,
                                      GAsyncResult  *result,
                                      GError       **error)
{
  g_return_val_if_fail (g_task_is_valid (result, method), NULL);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == anot_method_general_anot_rank_async, NULL);

  return g_task_propagate_pointer (G_TASK (result), error);
}

static void
anot_method_general_anot_method_iface_init (AnotMethodInterface *iface)
{
  iface->rank_async = anot_method_general_anot_rank_async;
  iface->rank_finish = anot_method_general_anot_rank_finish;
}

static void
anot_method_general_anot_finalize (GObject *object)
{
  AnotMethodGeneralAnot *self = ANOT_METHOD_GENERAL_ANOT (object);

  g_hash_table_unref (self->seeds);
  g_mutex_clear (&self->lock);
  G_OBJECT_CLASS (anot_method_general_anot_parent_class)->finalize (object);
}

static void
anot_method_general_anot_class_init (AnotMethodGeneralAnotClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = anot_method_general_anot_finalize;
}

static void
anot_method_general_anot_class_finalize (AnotMethodGeneralAnotClass *klass)
{
}

static void
anot_method_general_anot_init (AnotMethodGeneralAnot *self)
{
  g_mutex_init (&self->lock);
  self->seeds = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                       (GDestroyNotify) anot_formula_seed_unref);
}

G_MODULE_EXPORT void
g_io_module_load (GIOModule *module)
{
  anot_method_general_anot_register_type (G_TYPE_MODULE (module));
  anot_plugin_implement_with_flags (ANOT_METHOD_EXTENSION_POINT_NAME,
                                    ANOT_TYPE_METHOD_GENERAL_ANOT, "general_anot",
                                    "General ANoT: the request compiled into a Formula Seed by the LLM, run on every candidate "
                                    "(keyword filter, one extraction call per relevant review, sandboxed compute DAG), "
                                    "ranked by its score output",
                                    ANOT_PLUGIN_SUPPORTS_DEFENSE);
  anot_plugin_declare_method_options ("general_anot",
                                      anot_method_option_new_string ("score_field", "score", "the Formula Seed output to rank by, highest first"),
                                      anot_method_option_new_string ("cache_dir", NULL, "a directory where compiled Formula Seeds are kept and reused"),
                                      NULL);
  anot_plugin_declare_method_roles ("general_anot", ANOT_FORMULA_SEED_COMPILE_ROLE, ANOT_FORMULA_SEED_EXTRACT_ROLE, NULL);
}

G_MODULE_EXPORT void
g_io_module_unload (GIOModule *module)
{
}

G_MODULE_EXPORT char **
g_io_module_query (void)
{
  return g_strsplit (ANOT_METHOD_EXTENSION_POINT_NAME, "!", -1);
}
