/* anot-experiment-estimate.c: what an experiment will cost, without
 * calling any LLM
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "anot-experiment-private.h"

#include "anot-error.h"
#include "anot-llm-config-private.h"
#include "anot-registry.h"
#include "anot-tokenizer.h"
#include "anot-trial.h"
#include "anot-usage-private.h"

#include <string.h>

/* The estimate runs the experiment's plan — every attack, run, N and
 * request, with the same pools, shuffles and attacks — through the
 * method, whose calls all go to a stand-in backend instead of an LLM.
 * The stand-in counts each call's prompt with the model's tokenizer
 * (AnotTokenizer: exact for OpenAI's encodings, the approximation
 * otherwise), so every prompt a method builds before it needs an answer
 * — a single-call method's only prompt, the formatter's output
 * included — is counted exactly.  It answers with STAND_IN_ANSWER, which
 * the fixed-call methods (cot, ps, plan_act, listwise, weaver) accept, so
 * their call counts are exact too; completion tokens are the request's
 * max_tokens when set (an upper bound), else the assumed answer length.
 * Methods whose later rounds depend on real answers (anot, aot, react,
 * lats, general_anot) may stop early on the stand-in: those requests are
 * counted as "incomplete" and their figures are lower bounds; the
 * method's own call formula (from its description) is reported beside
 * them for the upper end of the range. */

#define STAND_IN_ANSWER "ANSWER: 1, 2, 3\n[1] > [2] > [3]\nAction: finish(\"1, 2, 3\")"

#define ANOT_TYPE_STAND_IN_BACKEND (anot_stand_in_backend_get_type ())
G_DECLARE_FINAL_TYPE (AnotStandInBackend, anot_stand_in_backend, ANOT, STAND_IN_BACKEND, GObject)

struct _AnotStandInBackend
{
  GObject parent_instance;

  guint completion_tokens;
  GHashTable *tokenizers;    /* model -> AnotTokenizer */
  /* The router that calls it (not a reference: the router holds the stand-in),
   * whose counts of the prompts it fitted are reused. */
  AnotBackendRouter *router;
  /* anot_experiment_preview_prompts(): the calls of the current request,
   * in the order they were made. */
  GPtrArray *captured;
};

static void anot_stand_in_backend_iface_init (AnotBackendInterface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE (AnotStandInBackend, anot_stand_in_backend, G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (ANOT_TYPE_BACKEND,
                                                      anot_stand_in_backend_iface_init))

static void
anot_stand_in_backend_finalize (GObject *object)
{
  AnotStandInBackend *self = ANOT_STAND_IN_BACKEND (object);

  g_hash_table_unref (self->tokenizers);
  g_clear_pointer (&self->captured, g_ptr_array_unref);
  if (self->router != NULL)
    g_object_remove_weak_pointer (G_OBJECT (self->router), (gpointer *) &self->router);
  G_OBJECT_CLASS (anot_stand_in_backend_parent_class)->finalize (object);
}

static void
anot_stand_in_backend_class_init (AnotStandInBackendClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = anot_stand_in_backend_finalize;
}

static void
anot_stand_in_backend_init (AnotStandInBackend *self)
{
  self->tokenizers = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_object_unref);
}

static AnotTokenizer *
stand_in_tokenizer (AnotStandInBackend *self,
                    const char         *model)
{
  AnotTokenizer *tokenizer = g_hash_table_lookup (self->tokenizers, model);

  if (tokenizer == NULL)
    {
      tokenizer = anot_tokenizer_new_for_model (model);
      g_hash_table_insert (self->tokenizers, g_strdup (model), tokenizer);
    }
  return tokenizer;
}

static void
stand_in_complete_async (AnotBackend         *backend,
                         AnotChatRequest     *request,
                         GCancellable        *cancellable,
                         GAsyncReadyCallback  callback,
                         gpointer             user_data)
{
  AnotStandInBackend *self = ANOT_STAND_IN_BACKEND (backend);
  g_autoptr(GTask) task = g_task_new (self, cancellable, callback, user_data);
  const char *model = anot_chat_request_get_model (request);
  AnotTokenizer *tokenizer;
  AnotCompletion *completion;
  guint max_tokens = (guint) anot_chat_request_get_max_tokens (request);

  if (self->captured != NULL)
    g_ptr_array_add (self->captured, g_object_ref (request));
  model = model ? model : "unknown";
  completion = anot_completion_new (model, STAND_IN_ANSWER);
  /* The tokenizer of each model is listed in the estimate even when the
   * router's count (kept from fitting) is used. */
  tokenizer = stand_in_tokenizer (self, model);
  anot_completion_set_prompt_tokens (completion,
                                     self->router != NULL && anot_chat_request_get_model (request) != NULL
                                     ? anot_backend_router_count_prompt_tokens (self->router, request)
                                     : anot_tokenizer_count_request (tokenizer, request));
  anot_completion_set_completion_tokens (completion, max_tokens > 0 ? max_tokens : self->completion_tokens);
  anot_completion_set_finish_reason (completion, "stop");
  g_task_return_pointer (task, completion, g_object_unref);
}

static AnotCompletion *
stand_in_complete_finish (AnotBackend   *backend,
                          GAsyncResult  *result,
                          GError       **error)
{
  return g_task_propagate_pointer (G_TASK (result), error);
}

static void
anot_stand_in_backend_iface_init (AnotBackendInterface *iface)
{
  iface->complete_async = stand_in_complete_async;
  iface->complete_finish = stand_in_complete_finish;
}

/* ------------------------------------------------------------------------
 * The estimate
 * --------------------------------------------------------------------- */

typedef struct
{
  const char *attack;
  guint n;
  guint requests;
  guint incomplete;
  guint64 calls;
  guint64 calls_min;
  guint64 calls_max;
  guint64 prompt_tokens;
  guint64 completion_tokens;
  double cost;
  double batch_cost;
  /* At the most calls the method's settings allow (its declared bound;
   * the calls made when it declares none); unbounded when a request
   * stopped early on the stand-in without a declared bound. */
  guint64 calls_bound;
  guint64 calls_bound_max;
  double cost_at_bound;
  double batch_cost_at_bound;
  gboolean unbounded;
} Row;

/* One method call of the estimate, shared with its callback: a call past
 * its deadline is abandoned (the estimate goes on), and its callback, if
 * it ever comes, frees what is left. */
typedef struct
{
  gatomicrefcount ref_count;
  GAsyncResult *result;
  gboolean timed_out;
  GCancellable *cancellable;
} Call;

static Call *
call_ref (Call *call)
{
  g_atomic_ref_count_inc (&call->ref_count);
  return call;
}

static void
call_unref (Call *call)
{
  if (g_atomic_ref_count_dec (&call->ref_count))
    {
      g_clear_object (&call->result);
      g_clear_object (&call->cancellable);
      g_free (call);
    }
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (Call, call_unref)

static void
on_ranked (GObject      *source,
           GAsyncResult *result,
           gpointer      user_data)
{
  Call *call = user_data;

  call->result = g_object_ref (result);
  call_unref (call);
}

static gboolean
on_call_deadline (gpointer user_data)
{
  Call *call = user_data;

  call->timed_out = TRUE;
  g_cancellable_cancel (call->cancellable);
  return G_SOURCE_REMOVE;
}

/* The batch price of what @usage used, model by model. */
static double
batch_cost (AnotBackendRouter *router,
            AnotUsage         *usage);

double
anot_experiment_batch_cost (AnotBackendRouter *router,
                            AnotUsage         *usage)
{
  return batch_cost (router, usage);
}

static double
batch_cost (AnotBackendRouter *router,
            AnotUsage         *usage)
{
  g_autoptr(JsonNode) node = anot_usage_to_json (usage);
  JsonObject *by_model = json_object_get_object_member (json_node_get_object (node), "by_model");
  double cost = 0;
  GList *models;

  if (by_model == NULL)
    return 0;
  models = json_object_get_members (by_model);
  for (GList *l = models; l != NULL; l = l->next)
    {
      JsonObject *entry = json_object_get_object_member (by_model, l->data);
      double input, output;

      anot_backend_router_lookup_batch_price (router, l->data, &input, &output);
      cost += json_object_get_int_member_with_default (entry, "prompt_tokens", 0) / 1e6 * input +
              json_object_get_int_member_with_default (entry, "completion_tokens", 0) / 1e6 * output;
    }
  g_list_free (models);
  return cost;
}

/* One request of @cell as the estimate counts it: @method ranks it with
 * every call going to @router (the stand-in's), on a main context of its
 * own so that a run in progress is not re-entered.  Returns its usage
 * (NULL when no trial can be built); *@incomplete when the method stopped
 * early on the stand-in's answers (a multi-round method: a lower
 * bound). */
AnotUsage *
anot_experiment_estimate_request (AnotExperiment    *self,
                                  AnotBackendRouter *router,
                                  AnotMethod        *method,
                                  Cell              *cell,
                                  AnotRequest       *request,
                                  gboolean          *incomplete,
                                  guint             *max_calls)
{
  g_autoptr(GMainContext) main_context = g_main_context_new ();
  g_autoptr(AnotTrial) trial = NULL;
  g_autoptr(AnotMethodContext) context = NULL;
  g_autoptr(Call) call = NULL;
  g_autoptr(GSource) deadline = NULL;
  g_autoptr(AnotRanking) ranking = NULL;
  g_autoptr(GError) local_error = NULL;

  trial = anot_trial_new (self->dataset, request, cell->n, self->settings->pool,
                          self->settings->shuffle, self->settings->seed, cell->run,
                          cell->attack->attack, cell->attack->name, NULL);
  if (trial == NULL)
    return NULL;
  context = anot_experiment_new_method_context (self, trial);
  anot_method_context_set_router (context, router);
  anot_method_context_set_debug_log (context, NULL);

  g_main_context_push_thread_default (main_context);
  call = g_new0 (Call, 1);
  g_atomic_ref_count_init (&call->ref_count);
  call->cancellable = g_cancellable_new ();
  /* The run's deadline: a method that never finishes a request must not
   * hang the estimate either. */
  if (self->settings->request_timeout > 0)
    {
      deadline = g_timeout_source_new_seconds ((guint) MIN (self->settings->request_timeout, G_MAXUINT));
      g_source_set_callback (deadline, on_call_deadline, call_ref (call), (GDestroyNotify) call_unref);
      g_source_attach (deadline, main_context);
    }
  anot_method_rank_async (method, anot_trial_get_query (trial), anot_trial_get_candidates (trial),
                          (guint) self->settings->k, context, call->cancellable, on_ranked, call_ref (call));
  while (call->result == NULL && !call->timed_out)
    g_main_context_iteration (main_context, TRUE);
  if (deadline != NULL)
    g_source_destroy (deadline);
  if (call->result != NULL)
    ranking = anot_method_rank_finish (method, call->result, &local_error);
  g_main_context_pop_thread_default (main_context);

  *incomplete = ranking == NULL;
  if (max_calls != NULL)
    *max_calls = anot_method_context_get_max_calls (context);
  return g_object_ref (anot_method_context_get_usage (context));
}

/* A router of the configured roles and models whose calls all go to
 * @stand_in, fitted to the experiment's windows as in a run; the
 * stand-in counts as the router does (its counts kept from fitting). */
static AnotBackendRouter *
create_stand_in_router (AnotExperiment     *self,
                        AnotStandInBackend *stand_in,
                        GError            **error)
{
  AnotBackendRouter *router;

  anot_llm_config_set_stand_in (self->llm_config, ANOT_BACKEND (stand_in));
  router = anot_llm_config_create_router (self->llm_config, error);
  anot_llm_config_set_stand_in (self->llm_config, NULL);
  if (router == NULL)
    return NULL;
  stand_in->router = router;
  g_object_add_weak_pointer (G_OBJECT (router), (gpointer *) &stand_in->router);
  anot_backend_router_set_context_tokens (router, self->settings->context_tokens);
  return router;
}

/* The stand-in router the estimate and the budgets count with;
 * @completion_tokens is assumed for a call that sets no max_tokens. */
AnotBackendRouter *
anot_experiment_new_estimate_router (AnotExperiment  *self,
                                     guint            completion_tokens,
                                     GError         **error)
{
  g_autoptr(AnotStandInBackend) stand_in = g_object_new (ANOT_TYPE_STAND_IN_BACKEND, NULL);

  stand_in->completion_tokens = completion_tokens;
  return create_stand_in_router (self, stand_in, error);
}

static void
add_row_json (JsonBuilder *builder,
              const Row   *row)
{
  json_builder_begin_object (builder);
  if (row->attack != NULL)
    {
      json_builder_set_member_name (builder, "attack");
      json_builder_add_string_value (builder, row->attack);
      json_builder_set_member_name (builder, "n");
      json_builder_add_int_value (builder, row->n);
    }
  json_builder_set_member_name (builder, "requests");
  json_builder_add_int_value (builder, row->requests);
  json_builder_set_member_name (builder, "calls");
  json_builder_add_int_value (builder, (gint64) row->calls);
  json_builder_set_member_name (builder, "calls_per_request_min");
  json_builder_add_int_value (builder, (gint64) row->calls_min);
  json_builder_set_member_name (builder, "calls_per_request_max");
  json_builder_add_int_value (builder, (gint64) row->calls_max);
  json_builder_set_member_name (builder, "prompt_tokens");
  json_builder_add_int_value (builder, (gint64) row->prompt_tokens);
  json_builder_set_member_name (builder, "completion_tokens");
  json_builder_add_int_value (builder, (gint64) row->completion_tokens);
  /* NaN (null) when a model has no price. */
  json_builder_set_member_name (builder, "cost_usd");
  anot_usage_add_cost_value (builder, row->cost);
  json_builder_set_member_name (builder, "batch_cost_usd");
  anot_usage_add_cost_value (builder, row->batch_cost);
  json_builder_set_member_name (builder, "incomplete");
  json_builder_add_int_value (builder, row->incomplete);
  json_builder_set_member_name (builder, "calls_bound");
  if (row->unbounded)
    json_builder_add_null_value (builder);
  else
    json_builder_add_int_value (builder, (gint64) row->calls_bound);
  json_builder_set_member_name (builder, "calls_per_request_bound");
  if (row->unbounded)
    json_builder_add_null_value (builder);
  else
    json_builder_add_int_value (builder, (gint64) row->calls_bound_max);
  json_builder_set_member_name (builder, "cost_at_bound_usd");
  if (row->unbounded)
    json_builder_add_null_value (builder);
  else
    anot_usage_add_cost_value (builder, row->cost_at_bound);
  json_builder_set_member_name (builder, "batch_cost_at_bound_usd");
  if (row->unbounded)
    json_builder_add_null_value (builder);
  else
    anot_usage_add_cost_value (builder, row->batch_cost_at_bound);
  json_builder_end_object (builder);
}

static void
row_add (Row       *row,
         AnotUsage *usage,
         double     cost_batch,
         gboolean   incomplete,
         guint      max_calls)
{
  guint64 calls = anot_usage_get_calls (usage);
  guint64 bound = MAX (calls, max_calls);
  /* Each call the stand-in's answers did not lead to, at the average of
   * those they did: later rounds' prompts are longer, so this is the
   * bound's low end in money, not in calls. */
  double scale = calls > 0 ? (double) bound / calls : 1;

  row->calls_min = row->requests == 0 ? calls : MIN (row->calls_min, calls);
  row->calls_max = MAX (row->calls_max, calls);
  row->requests++;
  row->incomplete += incomplete ? 1 : 0;
  row->calls += calls;
  row->prompt_tokens += anot_usage_get_prompt_tokens (usage);
  row->completion_tokens += anot_usage_get_completion_tokens (usage);
  row->cost += anot_usage_get_cost_usd (usage);
  row->batch_cost += cost_batch;
  row->calls_bound += bound;
  row->calls_bound_max = MAX (row->calls_bound_max, bound);
  row->cost_at_bound += anot_usage_get_cost_usd (usage) * scale;
  row->batch_cost_at_bound += cost_batch * scale;
  if (incomplete && max_calls == 0)
    row->unbounded = TRUE;
}

/* "...; calls: 1 if N <= w, else ..." -> "1 if N <= w, else ..." */
static char *
call_formula (const char *method)
{
  const char *description = anot_registry_get_description (anot_registry_get_default (),
                                                          ANOT_METHOD_EXTENSION_POINT_NAME, method);
  const char *calls = description ? strstr (description, "calls: ") : NULL;

  return calls ? g_strdup (calls + 7) : NULL;
}

/* Routes the experiment's calls to @stand_in (the configured roles and
 * models, fitted to their windows as in a run); the router it replaces
 * goes to *@saved_router, for the caller to put back. */
static AnotBackendRouter *
install_stand_in (AnotExperiment     *self,
                  AnotStandInBackend *stand_in,
                  AnotBackendRouter **saved_router,
                  GError            **error)
{
  AnotBackendRouter *router = create_stand_in_router (self, stand_in, error);

  if (router == NULL)
    return NULL;
  *saved_router = g_steal_pointer (&self->router);
  self->router = g_object_ref (router);
  return router;
}

/**
 * anot_experiment_preview_prompts:
 * @self: an #AnotExperiment
 * @max_calls: how many of each request's calls to give (0: every call the
 *   method makes against the stand-in)
 * @error: return location for a #GError
 *
 * Gives the exact prompts the experiment's method sends, without calling
 * any LLM: each planned request (usually one, chosen with the
 * `requests` option) is ranked as anot_experiment_estimate() does,
 * against a stand-in that answers at once, and the chat requests of its
 * first @max_calls calls are returned — the same pools, shuffles, attacks,
 * defense, domain and context fitting as a run.  Calls after the first
 * may depend on the stand-in's answer rather than a model's.
 *
 * The JSON array has one object per request and cell: `request_id`,
 * `attack`, `n`, `run` and `calls`, each call `{model, role, messages}`
 * (the router role, and the chat messages `{role, content}` as sent).
 *
 * Returns: (transfer full) (nullable): the prompts, or %NULL with @error
 *   set when the experiment cannot be prepared
 */
JsonNode *
anot_experiment_preview_prompts (AnotExperiment  *self,
                                 guint            max_calls,
                                 GError         **error)
{
  g_autoptr(AnotStandInBackend) stand_in = NULL;
  g_autoptr(AnotBackendRouter) router = NULL;
  g_autoptr(AnotBackendRouter) saved_router = NULL;
  g_autoptr(JsonBuilder) builder = json_builder_new ();

  g_return_val_if_fail (ANOT_IS_EXPERIMENT (self), NULL);
  g_return_val_if_fail (self->task == NULL, NULL);

  if (!anot_experiment_prepare (self, error))
    return NULL;

  stand_in = g_object_new (ANOT_TYPE_STAND_IN_BACKEND, NULL);
  stand_in->completion_tokens = 1;
  router = install_stand_in (self, stand_in, &saved_router, error);
  if (router == NULL)
    return NULL;

  json_builder_begin_array (builder);
  for (guint c = 0; c < self->cells->len; c++)
    {
      Cell *cell = g_ptr_array_index (self->cells, c);
      GPtrArray *kept = g_hash_table_lookup (self->kept, GUINT_TO_POINTER (cell->n));

      for (guint i = 0; kept != NULL && i < kept->len; i++)
        {
          AnotRequest *request = g_ptr_array_index (kept, i);
          g_autoptr(AnotUsage) usage = NULL;
          gboolean incomplete = FALSE;

          if (!anot_experiment_cell_plans (cell, anot_request_get_id (request)))
            continue;
          g_clear_pointer (&stand_in->captured, g_ptr_array_unref);
          stand_in->captured = g_ptr_array_new_with_free_func (g_object_unref);
          usage = anot_experiment_estimate_request (self, router, self->method, cell, request, &incomplete, NULL);
          if (usage == NULL)
            continue;

          json_builder_begin_object (builder);
          json_builder_set_member_name (builder, "request_id");
          json_builder_add_string_value (builder, anot_request_get_id (request));
          json_builder_set_member_name (builder, "attack");
          json_builder_add_string_value (builder, cell->attack->name);
          json_builder_set_member_name (builder, "n");
          json_builder_add_int_value (builder, cell->n);
          json_builder_set_member_name (builder, "run");
          json_builder_add_int_value (builder, cell->run);
          json_builder_set_member_name (builder, "calls");
          json_builder_begin_array (builder);
          for (guint k = 0; k < stand_in->captured->len && (max_calls == 0 || k < max_calls); k++)
            {
              AnotChatRequest *chat = stand_in->captured->pdata[k];

              json_builder_begin_object (builder);
              json_builder_set_member_name (builder, "model");
              if (anot_chat_request_get_model (chat) != NULL)
                json_builder_add_string_value (builder, anot_chat_request_get_model (chat));
              else
                json_builder_add_null_value (builder);
              json_builder_set_member_name (builder, "role");
              if (anot_chat_request_get_role (chat) != NULL)
                json_builder_add_string_value (builder, anot_chat_request_get_role (chat));
              else
                json_builder_add_null_value (builder);
              json_builder_set_member_name (builder, "messages");
              json_builder_begin_array (builder);
              for (guint m = 0; m < anot_chat_request_get_n_messages (chat); m++)
                {
                  AnotChatRole role = anot_chat_request_get_message_role (chat, m);

                  json_builder_begin_object (builder);
                  json_builder_set_member_name (builder, "role");
                  json_builder_add_string_value (builder, role == ANOT_CHAT_ROLE_SYSTEM ? "system"
                                                 : role == ANOT_CHAT_ROLE_ASSISTANT ? "assistant" : "user");
                  json_builder_set_member_name (builder, "content");
                  json_builder_add_string_value (builder, anot_chat_request_get_message_content (chat, m));
                  json_builder_end_object (builder);
                }
              json_builder_end_array (builder);
              json_builder_end_object (builder);
            }
          json_builder_end_array (builder);
          json_builder_end_object (builder);
        }
    }
  json_builder_end_array (builder);
  g_clear_pointer (&stand_in->captured, g_ptr_array_unref);

  g_clear_object (&self->router);
  self->router = g_steal_pointer (&saved_router);
  return json_builder_get_root (builder);
}

/**
 * anot_experiment_estimate:
 * @self: an #AnotExperiment
 * @completion_tokens: the answer length assumed for a call that sets no
 *   `max_tokens`
 * @error: return location for a #GError
 *
 * Estimates what running the experiment costs, without calling any LLM:
 * the method runs over every attack, run, N and request of the plan with
 * a stand-in backend that counts each prompt with the model's tokenizer
 * (see [class@Anot.Tokenizer]) and answers at once.  Prompts built before
 * a method needs a real answer are counted exactly; methods whose later
 * rounds depend on answers may stop early, and their requests are
 * reported as `incomplete` (lower bounds) beside the method's call
 * formula.  Costs use the router's list and batch prices.  Requests that
 * already have a result (a resumed experiment) are left out.
 *
 * The JSON object has `method`, `dataset`, `prices_as_of`,
 * `unpriced_models` (the models the method's roles call that have no
 * price: every cost below is then null, unknown), `tokenizers`
 * (model → encoding, `approximate` when not exact), `call_formula`,
 * `completion_tokens_assumed`, `rows` (one per attack and N, summed over
 * runs: `attack`, `n`, `requests`, `calls`, `calls_per_request_min`,
 * `calls_per_request_max`, `prompt_tokens`, `completion_tokens`,
 * `cost_usd`, `batch_cost_usd`, `incomplete`, and the upper bound:
 * `calls_bound` and `calls_per_request_bound`, the most calls the
 * method's settings allow — ReAct and LATS declare it with
 * anot_method_context_declare_max_calls(), a fixed-call method makes
 * what it made — with `cost_at_bound_usd` and `batch_cost_at_bound_usd`,
 * each call beyond those made priced at the average of those made; all
 * four null when a request stopped early without a declared bound),
 * `total` (the same sums)
 * and `pace`: the default role's `rpm` and `tpm` (yours, from the options,
 * environment or configuration file; null when unset) and the `minutes`
 * the run needs at their sustained rate — tokens (prompt + completion) ÷
 * `tpm` or calls ÷ `rpm`, the larger (`bound_by`) — null without either.
 *
 * Returns: (transfer full) (nullable): the estimate, or %NULL with @error
 *   set when the experiment cannot be prepared
 */
/* The default role's rpm or tpm (yours: the server's are read during the
 * run); 0 when none is set. */
static guint64
known_limit (AnotExperiment *self,
             const char     *key)
{
  g_autofree char *text = anot_llm_config_lookup (self->llm_config, ANOT_DEFAULT_ROLE, key, NULL);
  guint64 value = 0;

  if (text == NULL || !g_ascii_string_to_unsigned (text, 10, 1, G_MAXUINT, &value, NULL))
    return 0;
  return value;
}

/* "pace": the time the run needs at the limits known, at their sustained
 * rate: tokens (prompt + completion, as a call's size is counted) ÷ tpm,
 * calls ÷ rpm, the larger; null without limits. */
static void
add_pace_json (AnotExperiment *self,
               JsonBuilder    *builder,
               const Row      *total)
{
  guint64 rpm = known_limit (self, "rpm"), tpm = known_limit (self, "tpm");
  double by_tokens = tpm ? (double) (total->prompt_tokens + total->completion_tokens) / tpm : 0;
  double by_requests = rpm ? (double) total->calls / rpm : 0;

  json_builder_set_member_name (builder, "pace");
  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "rpm");
  if (rpm)
    json_builder_add_int_value (builder, (gint64) rpm);
  else
    json_builder_add_null_value (builder);
  json_builder_set_member_name (builder, "tpm");
  if (tpm)
    json_builder_add_int_value (builder, (gint64) tpm);
  else
    json_builder_add_null_value (builder);
  json_builder_set_member_name (builder, "minutes");
  if (rpm || tpm)
    json_builder_add_double_value (builder, MAX (by_tokens, by_requests));
  else
    json_builder_add_null_value (builder);
  json_builder_set_member_name (builder, "bound_by");
  if (rpm || tpm)
    json_builder_add_string_value (builder, by_tokens >= by_requests ? "tokens" : "requests");
  else
    json_builder_add_null_value (builder);
  json_builder_end_object (builder);
}

JsonNode *
anot_experiment_estimate (AnotExperiment  *self,
                          guint            completion_tokens,
                          GError         **error)
{
  g_autoptr(AnotStandInBackend) stand_in = NULL;
  g_autoptr(AnotBackendRouter) router = NULL;
  g_autoptr(AnotBackendRouter) saved_router = NULL;
  g_autoptr(GArray) rows = NULL;
  g_autoptr(JsonBuilder) builder = NULL;
  g_autofree char *formula = NULL;
  g_auto(GStrv) unpriced = NULL;
  g_autofree char *method = NULL;
  Row total = { 0 };

  g_return_val_if_fail (ANOT_IS_EXPERIMENT (self), NULL);
  g_return_val_if_fail (self->task == NULL, NULL);

  if (!anot_experiment_prepare (self, error))
    return NULL;
  /* A resume estimates what is left. */
  if (self->resuming && !anot_experiment_load_existing_rows (self, error))
    return NULL;

  stand_in = g_object_new (ANOT_TYPE_STAND_IN_BACKEND, NULL);
  stand_in->completion_tokens = completion_tokens;
  router = install_stand_in (self, stand_in, &saved_router, error);
  if (router == NULL)
    return NULL;

  rows = g_array_new (FALSE, TRUE, sizeof (Row));
  for (guint c = 0; c < self->cells->len; c++)
    {
      Cell *cell = g_ptr_array_index (self->cells, c);
      GPtrArray *kept = g_hash_table_lookup (self->kept, GUINT_TO_POINTER (cell->n));
      Row *row = NULL;

      for (guint r = 0; r < rows->len && row == NULL; r++)
        if (g_array_index (rows, Row, r).n == cell->n &&
            strcmp (g_array_index (rows, Row, r).attack, cell->attack->name) == 0)
          row = &g_array_index (rows, Row, r);
      if (row == NULL)
        {
          Row fresh = { .attack = cell->attack->name, .n = cell->n };

          g_array_append_val (rows, fresh);
          row = &g_array_index (rows, Row, rows->len - 1);
        }

      for (guint i = 0; kept != NULL && i < kept->len; i++)
        {
          AnotRequest *request = g_ptr_array_index (kept, i);
          g_autoptr(AnotUsage) usage = NULL;
          gboolean incomplete = FALSE;
          guint max_calls = 0;

          if (g_hash_table_contains (cell->rows, anot_request_get_id (request)) ||
              !anot_experiment_cell_plans (cell, anot_request_get_id (request)))
            continue;
          usage = anot_experiment_estimate_request (self, router, self->method, cell, request,
                                                    &incomplete, &max_calls);
          if (usage != NULL)
            row_add (row, usage, batch_cost (router, usage), incomplete, max_calls);
        }
    }

  g_clear_object (&self->router);
  self->router = g_steal_pointer (&saved_router);

  g_object_get (self, "method", &method, NULL);
  formula = call_formula (method);
  unpriced = anot_experiment_list_unpriced_models (self);
  builder = json_builder_new ();
  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "method");
  json_builder_add_string_value (builder, method);
  json_builder_set_member_name (builder, "dataset");
  json_builder_add_string_value (builder, anot_dataset_get_name (self->dataset));
  json_builder_set_member_name (builder, "prices_as_of");
  if (anot_backend_router_get_prices_date (router) != NULL)
    json_builder_add_string_value (builder, anot_backend_router_get_prices_date (router));
  else
    json_builder_add_null_value (builder);
  json_builder_set_member_name (builder, "unpriced_models");
  json_builder_begin_array (builder);
  for (guint i = 0; unpriced[i] != NULL; i++)
    json_builder_add_string_value (builder, unpriced[i]);
  json_builder_end_array (builder);
  json_builder_set_member_name (builder, "call_formula");
  if (formula != NULL)
    json_builder_add_string_value (builder, formula);
  else
    json_builder_add_null_value (builder);
  json_builder_set_member_name (builder, "completion_tokens_assumed");
  json_builder_add_int_value (builder, completion_tokens);
  json_builder_set_member_name (builder, "tokenizers");
  json_builder_begin_object (builder);
  {
    GHashTableIter iter;
    gpointer model, tokenizer;

    g_hash_table_iter_init (&iter, stand_in->tokenizers);
    while (g_hash_table_iter_next (&iter, &model, &tokenizer))
      {
        json_builder_set_member_name (builder, model);
        json_builder_add_string_value (builder, anot_tokenizer_get_encoding (tokenizer));
      }
  }
  json_builder_end_object (builder);
  json_builder_set_member_name (builder, "rows");
  json_builder_begin_array (builder);
  for (guint r = 0; r < rows->len; r++)
    {
      Row *row = &g_array_index (rows, Row, r);

      add_row_json (builder, row);
      total.calls_min = total.requests == 0 ? row->calls_min : MIN (total.calls_min, row->calls_min);
      total.calls_max = MAX (total.calls_max, row->calls_max);
      total.requests += row->requests;
      total.incomplete += row->incomplete;
      total.calls += row->calls;
      total.prompt_tokens += row->prompt_tokens;
      total.completion_tokens += row->completion_tokens;
      total.cost += row->cost;
      total.batch_cost += row->batch_cost;
      total.calls_bound += row->calls_bound;
      total.calls_bound_max = MAX (total.calls_bound_max, row->calls_bound_max);
      total.cost_at_bound += row->cost_at_bound;
      total.batch_cost_at_bound += row->batch_cost_at_bound;
      total.unbounded |= row->unbounded;
    }
  json_builder_end_array (builder);
  json_builder_set_member_name (builder, "total");
  add_row_json (builder, &total);
  add_pace_json (self, builder, &total);
  json_builder_end_object (builder);
  return json_builder_get_root (builder);
}
