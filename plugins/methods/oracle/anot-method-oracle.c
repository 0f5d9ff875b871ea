/* anot-method-oracle.c: ranks by the validator's verdict
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <anot/anot.h>

/* Reads the hidden request structure, which no real method may see: an upper
 * bound and a check of the harness (metrics, pool, shuffling), never a
 * result.  It registers with ANOT_PLUGIN_NEEDS_TRUTH, so the experiment
 * hands it the full request and the validator through the context and
 * marks its rows "uses_truth". */

#define ANOT_TYPE_METHOD_ORACLE (anot_method_oracle_get_type ())
G_DECLARE_FINAL_TYPE (AnotMethodOracle, anot_method_oracle, ANOT, METHOD_ORACLE, GObject)

struct _AnotMethodOracle
{
  GObject parent_instance;
};

static void anot_method_oracle_method_iface_init (AnotMethodInterface *iface);

G_DEFINE_DYNAMIC_TYPE_EXTENDED (AnotMethodOracle, anot_method_oracle, G_TYPE_OBJECT,
                                G_TYPE_FLAG_FINAL,
                                G_IMPLEMENT_INTERFACE_DYNAMIC (ANOT_TYPE_METHOD,
                                                               anot_method_oracle_method_iface_init))

static void
anot_method_oracle_rank_async (AnotMethod          *method,
                               AnotQuery           *query,
                               GPtrArray           *candidates,
                               guint                k,
                               AnotMethodContext   *context,
                               GCancellable        *cancellable,
                               GAsyncReadyCallback  callback,
                               gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;
  g_autoptr(AnotRanking) ranking = NULL;
  g_autoptr(JsonBuilder) builder = NULL;
  g_autoptr(JsonNode) trace = NULL;
  g_autofree double *scores = NULL;
  AnotValidator *validator;
  AnotRequest *request;
  guint n = candidates->len;
  guint n_true = 0, n_unknown = 0;

  task = g_task_new (method, cancellable, callback, user_data);
  g_task_set_source_tag (task, anot_method_oracle_rank_async);
  g_task_set_name (task, "[anot] oracle rank");

  if (g_task_return_error_if_cancelled (task))
    return;

  request = anot_method_context_get_truth_request (context);
  validator = anot_method_context_get_validator (context);
  if (request == NULL || validator == NULL)
    {
      g_task_return_new_error (task, ANOT_ERROR, ANOT_ERROR_METHOD_FAILED,
                               "The oracle was not given the truth of request %s: "
                               "its context has no truth request or no validator",
                               anot_query_get_id (query));
      return;
    }

  /* AnotTruth is -1/0/1, so sorting by it puts TRUE, then UNKNOWN, then
   * FALSE first; the ranking breaks ties by the lower position. */
  scores = g_new0 (double, MAX (n, 1));
  for (guint i = 0; i < n; i++)
    {
      AnotTruth truth = anot_validator_evaluate (validator, request, g_ptr_array_index (candidates, i));

      scores[i] = (double) truth;
      n_true += truth == ANOT_TRUTH_TRUE;
      n_unknown += truth == ANOT_TRUTH_UNKNOWN;
    }
  ranking = anot_ranking_new_from_scores (scores, n);

  builder = json_builder_new ();
  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "method");
  json_builder_add_string_value (builder, "oracle");
  json_builder_set_member_name (builder, "n_true");
  json_builder_add_int_value (builder, n_true);
  json_builder_set_member_name (builder, "n_unknown");
  json_builder_add_int_value (builder, n_unknown);
  json_builder_set_member_name (builder, "n_false");
  json_builder_add_int_value (builder, n - n_true - n_unknown);
  json_builder_set_member_name (builder, "truth");
  json_builder_begin_array (builder);
  for (guint i = 0; i < n; i++)
    json_builder_add_int_value (builder, (gint64) scores[i]);
  json_builder_end_array (builder);
  json_builder_end_object (builder);
  trace = json_builder_get_root (builder);
  anot_ranking_set_trace (ranking, trace);

  g_task_return_pointer (task, g_steal_pointer (&ranking), g_object_unref);
}

static AnotRanking *
anot_method_oracle_rank_finish (AnotMethod    *method,
                                GAsyncResult  *result,
                                GError       **error)
{
  g_return_val_if_fail (g_task_is_valid (result, method), NULL);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == anot_method_oracle_rank_async, NULL);

  return g_task_propagate_pointer (G_TASK (result), error);
}

static void
anot_method_oracle_method_iface_init (AnotMethodInterface *iface)
{
  iface->rank_async = anot_method_oracle_rank_async;
  iface->rank_finish = anot_method_oracle_rank_finish;
}

static void
anot_method_oracle_class_init (AnotMethodOracleClass *klass)
{
}

static void
anot_method_oracle_class_finalize (AnotMethodOracleClass *klass)
{
}

static void
anot_method_oracle_init (AnotMethodOracle *self)
{
}

G_MODULE_EXPORT void
g_io_module_load (GIOModule *module)
{
  anot_method_oracle_register_type (G_TYPE_MODULE (module));
  anot_plugin_implement_with_flags (ANOT_METHOD_EXTENSION_POINT_NAME,
                                    ANOT_TYPE_METHOD_ORACLE, "oracle",
                                    "Sanity check and upper bound, never a method result: ranks by "
                                    "the validator's truth of the hidden request (true, unknown, false)",
                                    ANOT_PLUGIN_NEEDS_TRUTH);
  /* It reads no option: any -O oracle.KEY is refused. */
  anot_plugin_declare_method_options ("oracle", NULL);
  /* It calls no LLM: a run needs no API key. */
  anot_plugin_declare_method_roles ("oracle", NULL);
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
