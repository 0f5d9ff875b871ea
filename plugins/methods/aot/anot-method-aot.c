/* anot-method-aot.c: Atom of Thought
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <anot/anot.h>

#include <string.h>

#include "anot-llm-job.h"

/* The model writes a JSON plan of atoms (role "planner", a JSON-schema
 * answer); the core's AnotPlanExecutor checks it and, if it is invalid,
 * the problems go back to the model once; then the executor runs it —
 * independent atoms in parallel, llm_judge atoms through role "scorer" —
 * and the final rank atom's ranking is the answer.  See README.md. */

#define PROMPTS "/org/anot/methods/aot"
#define MAX_EXAMPLE_VALUES 3
#define TRACE_VALUE_CHARS 400

#define ANOT_TYPE_METHOD_AOT (anot_method_aot_get_type ())
G_DECLARE_FINAL_TYPE (AnotMethodAot, anot_method_aot, ANOT, METHOD_AOT, GObject)

struct _AnotMethodAot
{
  GObject parent_instance;
};

static void anot_method_aot_method_iface_init (AnotMethodInterface *iface);

G_DEFINE_DYNAMIC_TYPE_EXTENDED (AnotMethodAot, anot_method_aot, G_TYPE_OBJECT,
                                G_TYPE_FLAG_FINAL,
                                G_IMPLEMENT_INTERFACE_DYNAMIC (ANOT_TYPE_METHOD,
                                                               anot_method_aot_method_iface_init))

typedef struct {
  AnotMethodContext *context;
  GPtrArray         *candidates;
  GCancellable      *cancellable;
  guint              k;
  guint              max_repairs;
  gboolean           json_schema;
  AnotPlanExecutor  *executor;
  AnotChatRequest   *chat;          /* the conversation so far */
  guint              attempt;
  JsonArray         *attempts;      /* trace: {reply, problems} */
  gint64             started;
  double             planning_ms;
} Job;

static void
job_free (gpointer data)
{
  Job *job = data;

  g_clear_object (&job->context);
  g_clear_pointer (&job->candidates, g_ptr_array_unref);
  g_clear_object (&job->cancellable);
  g_clear_object (&job->executor);
  g_clear_object (&job->chat);
  g_clear_pointer (&job->attempts, json_array_unref);
  g_free (job);
}

/* "WiFi: free, no, paid" for every attribute of the candidates. */
static char *
describe_attributes (Job *job)
{
  JsonObject *items = json_object_get_object_member (
    json_node_get_object (anot_plan_executor_get_data (job->executor)), "items");
  g_autoptr(GHashTable) examples = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                                          (GDestroyNotify) g_ptr_array_unref);
  g_autoptr(GList) names = NULL;
  g_autoptr(GString) out = g_string_new (NULL);
  JsonObjectIter iter;
  const char *key;
  JsonNode *item;

  json_object_iter_init (&iter, items);
  while (json_object_iter_next (&iter, &key, &item))
    {
      JsonNode *attributes = json_object_get_member (json_node_get_object (item), "attributes");
      JsonObjectIter a;
      const char *name;
      JsonNode *value;

      if (attributes == NULL || !JSON_NODE_HOLDS_OBJECT (attributes))
        continue;
      json_object_iter_init (&a, json_node_get_object (attributes));
      while (json_object_iter_next (&a, &name, &value))
        {
          GPtrArray *values = g_hash_table_lookup (examples, name);
          g_autofree char *text = anot_json_value_to_text (value);
          gboolean seen = FALSE;

          if (values == NULL)
            {
              values = g_ptr_array_new_with_free_func (g_free);
              g_hash_table_insert (examples, g_strdup (name), values);
            }
          for (guint i = 0; i < values->len && !seen; i++)
            seen = strcmp (g_ptr_array_index (values, i), text) == 0;
          if (!seen && values->len < MAX_EXAMPLE_VALUES)
            g_ptr_array_add (values, g_steal_pointer (&text));
        }
    }

  names = g_list_sort (g_hash_table_get_keys (examples), (GCompareFunc) strcmp);
  for (GList *l = names; l != NULL; l = l->next)
    {
      GPtrArray *values = g_hash_table_lookup (examples, l->data);

      g_string_append_printf (out, "- %s:", (char *) l->data);
      for (guint i = 0; i < values->len; i++)
        g_string_append_printf (out, "%s %s", i ? "," : "", (char *) g_ptr_array_index (values, i));
      g_string_append_c (out, '\n');
    }
  if (out->len == 0)
    g_string_append (out, "(none)\n");
  g_string_truncate (out, out->len - 1);
  return g_string_free (g_steal_pointer (&out), FALSE);
}

static char *
describe_tools (Job *job)
{
  g_autoptr(JsonNode) tools = anot_plan_executor_describe_tools (job->executor);
  JsonArray *array = json_node_get_array (tools);
  g_autoptr(GString) out = g_string_new (NULL);

  for (guint i = 0; i < json_array_get_length (array); i++)
    {
      JsonObject *tool = json_array_get_object_element (array, i);
      JsonObject *inputs = json_object_get_object_member (tool, "inputs");
      g_autoptr(GList) names = json_object_get_members (inputs);

      g_string_append_printf (out, "- %s (%s): %s. Inputs:", json_object_get_string_member (tool, "name"),
                              json_object_get_string_member (tool, "kind"),
                              json_object_get_string_member (tool, "description"));
      for (GList *l = names; l != NULL; l = l->next)
        {
          JsonObject *input = json_object_get_object_member (inputs, l->data);

          g_string_append_printf (out, "%s %s (%s%s)", l == names ? "" : ",", (char *) l->data,
                                  json_object_get_string_member (input, "type"),
                                  json_object_get_boolean_member (input, "required") ? "" : ", optional");
        }
      g_string_append_printf (out, ". Result: %s.\n", json_object_get_string_member (tool, "result"));
    }
  g_string_truncate (out, out->len - 1);
  return g_string_free (g_steal_pointer (&out), FALSE);
}

static void ask_for_plan (GTask *task);

static void
on_executed (GObject      *source,
             GAsyncResult *res,
             gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  Job *job = g_task_get_task_data (task);
  g_autoptr(GError) error = NULL;
  g_autoptr(AnotPlanResult) result = NULL;
  g_autoptr(JsonBuilder) builder = json_builder_new ();
  g_autoptr(JsonNode) trace = NULL;
  AnotRanking *ranking;
  g_autoptr(GString) top = g_string_new (NULL);

  result = anot_plan_executor_execute_finish (ANOT_PLAN_EXECUTOR (source), res, &error);
  if (result == NULL)
    {
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }

  ranking = anot_plan_result_get_ranking (result);
  for (guint r = 0; r < anot_ranking_get_length (ranking) && r < job->k; r++)
    g_string_append_printf (top, "%s%u", r ? "," : "", anot_ranking_get_index (ranking, r) + 1);
  anot_method_context_debug (job->context, ANOT_DEBUG_LEVEL_SUMMARY, "EXEC",
                             "Ran %u atoms in %.0f ms (%u calls); ranking: %s",
                             anot_plan_get_n_atoms (anot_plan_result_get_plan (result)),
                             anot_plan_result_get_wall_ms (result), anot_plan_result_get_n_calls (result),
                             top->str);

  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "request_id");
  json_builder_add_string_value (builder, anot_method_context_get_request_id (job->context));
  json_builder_set_member_name (builder, "planning");
  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "attempts");
  json_builder_add_value (builder, json_node_init_array (json_node_alloc (), job->attempts));
  json_builder_set_member_name (builder, "latency_ms");
  json_builder_add_double_value (builder, job->planning_ms);
  json_builder_end_object (builder);
  json_builder_set_member_name (builder, "plan");
  json_builder_add_value (builder, anot_plan_to_json (anot_plan_result_get_plan (result)));
  json_builder_set_member_name (builder, "execution");
  json_builder_add_value (builder, anot_plan_result_to_json (result, TRACE_VALUE_CHARS));
  json_builder_end_object (builder);
  trace = json_builder_get_root (builder);

  ranking = g_object_ref (ranking);
  anot_ranking_set_trace (ranking, trace);
  g_task_return_pointer (task, ranking, g_object_unref);
}

static void
on_plan (GObject      *source,
         GAsyncResult *res,
         gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  Job *job = g_task_get_task_data (task);
  g_autoptr(GError) error = NULL;
  g_autoptr(AnotCompletion) completion = NULL;
  g_autoptr(AnotPlan) plan = NULL;
  g_auto(GStrv) problems = NULL;
  const char *reply;
  JsonObject *entry;

  completion = anot_method_context_complete_finish (ANOT_METHOD_CONTEXT (source), res, &error);
  if (completion == NULL)
    {
      g_prefix_error (&error, "Atom of Thought planning, attempt %u: ", job->attempt);
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }
  reply = anot_completion_get_text (completion) ? anot_completion_get_text (completion) : "";
  anot_method_context_debug (job->context, ANOT_DEBUG_LEVEL_FULL, "PLAN",
                             "Attempt %u reply:\n%s", job->attempt, reply);

  plan = anot_plan_parse (reply, &error);
  if (plan != NULL)
    problems = anot_plan_executor_check (job->executor, plan);
  else
    {
      problems = g_new0 (char *, 2);
      problems[0] = g_strdup (error->message);
    }

  entry = json_object_new ();
  json_object_set_int_member (entry, "attempt", job->attempt);
  json_object_set_string_member (entry, "reply", reply);
  {
    JsonArray *list = json_array_new ();

    for (guint i = 0; problems[i] != NULL; i++)
      json_array_add_string_element (list, problems[i]);
    json_object_set_array_member (entry, "problems", list);
  }
  json_object_set_int_member (entry, "prompt_tokens", anot_completion_get_prompt_tokens (completion));
  json_object_set_int_member (entry, "completion_tokens", anot_completion_get_completion_tokens (completion));
  json_array_add_object_element (job->attempts, entry);

  if (problems[0] == NULL)
    {
      job->planning_ms = (g_get_monotonic_time () - job->started) / 1000.0;
      anot_method_context_debug (job->context, ANOT_DEBUG_LEVEL_SUMMARY, "PLAN",
                                 "Plan of %u atoms accepted (attempt %u)",
                                 anot_plan_get_n_atoms (plan), job->attempt);
      anot_plan_executor_execute_async (job->executor, plan, job->cancellable, on_executed,
                                        g_object_ref (task));
      return;
    }

  {
    g_autofree char *joined = g_strjoinv ("\n", problems);

    anot_method_context_debug (job->context, ANOT_DEBUG_LEVEL_SUMMARY, "PLAN",
                               "Attempt %u: invalid plan (%u problems):\n%s", job->attempt,
                               g_strv_length (problems), joined);

    if (job->attempt > job->max_repairs)
      {
        g_task_return_new_error (task, ANOT_ERROR, ANOT_ERROR_METHOD_FAILED,
                                 "The model wrote no valid plan in %u attempts; the last one:\n%s",
                                 job->attempt, joined);
        return;
      }

    /* The same conversation, with the problems as the next user turn. */
    {
      g_autoptr(GString) bullets = g_string_new (NULL);
      g_autofree char *repair = NULL;

      for (guint i = 0; problems[i] != NULL; i++)
        g_string_append_printf (bullets, "- %s\n", problems[i]);
      g_string_truncate (bullets, bullets->len - 1);
      repair = anot_llm_prompt (job->context, PROMPTS "/repair.txt", "problems", bullets->str, NULL);
      anot_chat_request_add_message (job->chat, ANOT_CHAT_ROLE_ASSISTANT, reply);
      anot_chat_request_add_message (job->chat, ANOT_CHAT_ROLE_USER, repair);
    }
  }
  ask_for_plan (task);
}

static void
ask_for_plan (GTask *task)
{
  Job *job = g_task_get_task_data (task);

  job->attempt++;
  anot_method_context_complete_request_async (job->context, "planner", job->chat, job->cancellable,
                                              on_plan, g_object_ref (task));
}

static gboolean
read_options (AnotMethodContext  *context,
              Job                *job,
              GError            **error)
{
  g_autoptr(AnotMethodSettings) settings = anot_method_settings_new ("aot");

  return anot_method_settings_load_for_context (settings, context, error) &&
         anot_method_settings_get_uint (settings, context, "max_repairs", 1, 0, 10,
                                        &job->max_repairs, error) &&
         anot_method_settings_get_boolean (settings, context, "json_schema", TRUE,
                                           &job->json_schema, error);
}

static void
anot_method_aot_rank_async (AnotMethod          *method,
                            AnotQuery           *request,
                            GPtrArray           *candidates,
                            guint                k,
                            AnotMethodContext   *context,
                            GCancellable        *cancellable,
                            GAsyncReadyCallback  callback,
                            gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *system_base = NULL;
  g_autofree char *system_prompt = NULL;
  g_autofree char *prompt = NULL;
  g_autofree char *attributes = NULL;
  g_autofree char *tools = NULL;
  g_autofree char *n = NULL;
  g_autofree char *k_text = NULL;
  Job *job;

  task = g_task_new (method, cancellable, callback, user_data);
  g_task_set_source_tag (task, anot_method_aot_rank_async);
  g_task_set_name (task, "[anot] aot rank");

  job = g_new0 (Job, 1);
  g_task_set_task_data (task, job, job_free);
  job->context = g_object_ref (context);
  job->candidates = g_ptr_array_ref (candidates);
  job->cancellable = cancellable ? g_object_ref (cancellable) : NULL;
  job->k = k > 0 ? MIN (k, candidates->len) : candidates->len;
  job->attempts = json_array_new ();
  job->started = g_get_monotonic_time ();

  if (!read_options (context, job, &error))
    {
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }
  if (g_task_return_error_if_cancelled (task))
    return;
  if (candidates->len == 0)
    {
      g_task_return_pointer (task, anot_ranking_new (), g_object_unref);
      return;
    }

  job->executor = anot_plan_executor_new (context, candidates);
  anot_plan_executor_set_role (job->executor, "scorer");

  attributes = describe_attributes (job);
  tools = describe_tools (job);
  n = g_strdup_printf ("%u", candidates->len);
  k_text = g_strdup_printf ("%u", job->k);
  system_base = anot_llm_prompt (job->context, PROMPTS "/system.txt", NULL);
  g_strstrip (system_base);
  system_prompt = anot_llm_system_prompt (context, system_base);
  prompt = anot_llm_prompt (job->context, PROMPTS "/plan.txt",
                            "n", n,
                            "k", k_text,
                            "request", anot_query_get_text (request) ? anot_query_get_text (request) : "",
                            "attributes", attributes,
                            "tools", tools,
                            NULL);

  job->chat = anot_chat_request_new (system_prompt, prompt);
  if (job->json_schema)
    {
      g_autoptr(JsonNode) schema = anot_plan_executor_get_plan_schema (job->executor);

      anot_chat_request_set_response_format (job->chat, ANOT_RESPONSE_FORMAT_JSON_SCHEMA);
      anot_chat_request_set_json_schema (job->chat, "aot_plan", schema);
    }

  anot_method_context_debug (context, ANOT_DEBUG_LEVEL_SUMMARY, "PLAN",
                             "Asking for a plan over %u items", candidates->len);
  ask_for_plan (task);
}

static AnotRanking *
anot_method_aot_rank_finish (AnotMethod    *method,
                             GAsyncResult  *result,
                             GError       **error)
{
  g_return_val_if_fail (g_task_is_valid (result, method), NULL);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == anot_method_aot_rank_async, NULL);

  return g_task_propagate_pointer (G_TASK (result), error);
}

static void
anot_method_aot_method_iface_init (AnotMethodInterface *iface)
{
  iface->rank_async = anot_method_aot_rank_async;
  iface->rank_finish = anot_method_aot_rank_finish;
}

static void
anot_method_aot_class_init (AnotMethodAotClass *klass)
{
}

static void
anot_method_aot_class_finalize (AnotMethodAotClass *klass)
{
}

static void
anot_method_aot_init (AnotMethodAot *self)
{
}

G_MODULE_EXPORT void
g_io_module_load (GIOModule *module)
{
  anot_method_aot_register_type (G_TYPE_MODULE (module));
  anot_plugin_implement_with_flags (ANOT_METHOD_EXTENSION_POINT_NAME,
                                    ANOT_TYPE_METHOD_AOT, "aot",
                                    "Atom of Thought: the model writes a JSON plan of tool atoms, the core "
                                    "checks it (one repair round) and runs it, independent atoms in parallel",
                                    ANOT_PLUGIN_SUPPORTS_DEFENSE);
  anot_plugin_declare_method_options ("aot",
                                      anot_method_option_new_int ("max_repairs", 0, 10, 1, "repair rounds of a plan the core rejects"),
                                      anot_method_option_new_boolean ("json_schema", TRUE, "ask for a JSON-schema answer (false for servers without structured output)"),
                                      NULL);
  anot_plugin_declare_method_roles ("aot", "planner", "scorer", NULL);
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
