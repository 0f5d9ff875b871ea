/* anot-method-react.c: ReAct, one THOUGHT/ACTION/OBSERVATION trajectory
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * See README.md in this folder.
 */
#include <anot/anot.h>

#include "anot-llm-job.h"

#define PROMPTS "/org/anot/methods/react"
#define ROLE "react"

#define DEFAULT_MAX_STEPS 5
#define DEFAULT_OBSERVATION_CHARS 3000
#define TRACE_OBSERVATION_CHARS 300

#define ANOT_TYPE_METHOD_REACT (anot_method_react_get_type ())
G_DECLARE_FINAL_TYPE (AnotMethodReact, anot_method_react, ANOT, METHOD_REACT, GObject)

struct _AnotMethodReact
{
  GObject parent_instance;
};

static void anot_method_react_method_iface_init (AnotMethodInterface *iface);

G_DEFINE_DYNAMIC_TYPE_EXTENDED (AnotMethodReact, anot_method_react, G_TYPE_OBJECT,
                                G_TYPE_FLAG_FINAL,
                                G_IMPLEMENT_INTERFACE_DYNAMIC (ANOT_TYPE_METHOD,
                                                               anot_method_react_method_iface_init))

typedef struct {
  AnotLlmJob         *llm;
  AnotMethodSettings *settings;
  AnotAgentToolbox   *toolbox;
  guint               max_steps;
  char               *system_prompt;
  char               *instruction;
  char               *tools;
  char               *n_text;
  GString            *history;
  JsonArray          *steps;
  guint               step;
  gint64              start_us;
} Job;

static void
job_free (gpointer data)
{
  Job *job = data;

  anot_llm_job_free (job->llm);
  g_clear_object (&job->settings);
  g_clear_object (&job->toolbox);
  g_free (job->system_prompt);
  g_free (job->instruction);
  g_free (job->tools);
  g_free (job->n_text);
  g_string_free (job->history, TRUE);
  json_array_unref (job->steps);
  g_free (job);
}

static const char *
request_text (Job *job)
{
  const char *text = anot_query_get_text (anot_llm_job_get_request (job->llm));

  return text != NULL ? text : "";
}

static char *
cut (const char *text,
     glong       max_chars)
{
  glong length = g_utf8_strlen (text, -1);
  g_autofree char *head = NULL;

  if (length <= max_chars)
    return g_strdup (text);
  head = g_utf8_substring (text, 0, max_chars);
  return g_strconcat (head, "...", NULL);
}

static void
return_ranking (GTask           *task,
                AnotParseResult *parse,
                const char      *raw_text,
                const char      *finished)
{
  Job *job = g_task_get_task_data (task);
  AnotMethodContext *context = anot_llm_job_get_context (job->llm);
  AnotRanking *ranking;

  anot_llm_job_set_trace_member (job->llm, "settings", anot_method_settings_to_json (job->settings));
  anot_llm_job_set_trace_member (job->llm, "steps",
                                 json_node_init_array (json_node_alloc (), job->steps));
  anot_llm_job_set_trace_member (job->llm, "n_steps",
                                 json_node_init_int (json_node_alloc (), job->step));
  anot_llm_job_set_trace_member (job->llm, "n_actions",
                                 json_node_init_int (json_node_alloc (),
                                                     anot_agent_toolbox_get_n_executed (job->toolbox)));
  anot_llm_job_set_trace_member (job->llm, "finished",
                                 json_node_init_string (json_node_alloc (), finished));
  anot_llm_job_set_trace_member (job->llm, "time_ms",
                                 json_node_init_double (json_node_alloc (),
                                                        (g_get_monotonic_time () - job->start_us) / 1000.0));

  if (parse != NULL)
    ranking = anot_llm_job_ranking_from_parse (job->llm, parse, raw_text);
  else
    {
      /* The original's answer when the forced finish is unreadable: "1". */
      g_autoptr(JsonNode) trace = NULL;

      ranking = anot_ranking_new ();
      anot_ranking_append (ranking, 0, 1);
      anot_ranking_set_raw_response (ranking, raw_text);
      trace = anot_llm_job_build_trace (job->llm);
      anot_ranking_set_trace (ranking, trace);
    }

  anot_method_context_debug (context, ANOT_DEBUG_LEVEL_SUMMARY, "react",
                             "%s: %s after %u step(s), %u in the ranking",
                             anot_method_context_get_request_id (context), finished, job->step,
                             anot_ranking_get_length (ranking));
  g_task_return_pointer (task, ranking, g_object_unref);
}

static void
on_forced_finish (GObject      *source,
                  GAsyncResult *result,
                  gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  Job *job = g_task_get_task_data (task);
  g_autoptr(AnotCompletion) completion = NULL;
  g_autoptr(AnotParseResult) parse = NULL;
  g_autoptr(GError) error = NULL;
  JsonObject *record = NULL;
  const char *text;
  GPtrArray *candidates = anot_llm_job_get_candidates (job->llm);

  completion = anot_llm_job_complete_finish (job->llm, result, &record, &error);
  if (completion == NULL)
    {
      g_prefix_error (&error, "react, forced finish: ");
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }

  text = anot_completion_get_text (completion);
  parse = anot_parse_ranking (text, candidates->len, candidates, anot_llm_job_parse_flags (job->llm));
  anot_llm_job_record_parse (job->llm, record, parse);
  if (anot_parse_result_get_ok (parse))
    return_ranking (task, parse, text, "forced");
  else
    return_ranking (task, NULL, text, "fallback");
}

static void
forced_finish (GTask *task)
{
  Job *job = g_task_get_task_data (task);
  g_autofree char *prompt = NULL;

  prompt = anot_llm_prompt (anot_llm_job_get_context (job->llm), PROMPTS "/finish.txt",
                            "request", request_text (job),
                            "n", job->n_text,
                            "instruction", job->instruction,
                            "history", job->history->str,
                            NULL);
  anot_llm_job_complete_take_async (job->llm, "forced_finish", ROLE, job->system_prompt,
                                    g_steal_pointer (&prompt),
                                    on_forced_finish, g_object_ref (task));
}

static void next_step (GTask *task);

static void
on_step (GObject      *source,
         GAsyncResult *result,
         gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  Job *job = g_task_get_task_data (task);
  AnotMethodContext *context = anot_llm_job_get_context (job->llm);
  g_autoptr(AnotCompletion) completion = NULL;
  g_autoptr(AnotAgentAction) action = NULL;
  g_autoptr(AnotParseResult) answer = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GError) parse_error = NULL;
  g_autofree char *thought = NULL;
  g_autofree char *action_text = NULL;
  g_autofree char *observation = NULL;
  g_autofree char *step_text = NULL;
  g_autofree char *stored = NULL;
  JsonObject *entry;
  const char *reply;

  completion = anot_llm_job_complete_finish (job->llm, result, NULL, &error);
  if (completion == NULL)
    {
      g_prefix_error (&error, "react, step %u: ", job->step);
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }
  reply = anot_completion_get_text (completion);

  entry = json_object_new ();
  json_object_set_int_member (entry, "step", job->step);
  action = anot_agent_action_parse_reply (reply, &thought, &parse_error);
  if (action == NULL)
    {
      g_autofree char *said = g_strstrip (g_strdup (reply));

      observation = g_strdup_printf ("Error: %s", parse_error->message);
      step_text = anot_agent_format_step (thought != NULL ? thought : said, NULL, observation);
      json_object_set_null_member (entry, "action");
      json_object_set_string_member (entry, "error", parse_error->message);
    }
  else
    {
      action_text = anot_agent_action_to_string (action);
      observation = anot_agent_toolbox_execute (job->toolbox, action, &answer);
      step_text = anot_agent_format_step (thought, action_text, observation);
      json_object_set_string_member (entry, "action", action_text);
    }
  if (thought != NULL)
    json_object_set_string_member (entry, "thought", thought);
  stored = cut (observation, TRACE_OBSERVATION_CHARS);
  json_object_set_string_member (entry, "observation", stored);
  json_array_add_object_element (job->steps, entry);
  g_string_append_c (job->history, '\n');
  g_string_append (job->history, step_text);

  anot_method_context_debug (context, ANOT_DEBUG_LEVEL_VERBOSE, "react", "%s: step %u: %s → %s",
                             anot_method_context_get_request_id (context), job->step,
                             action_text != NULL ? action_text : "(no action)", stored);

  /* --compat original: finish()'s argument read by the original's
   * parse_indices. */
  if (answer != NULL && anot_llm_job_parse_flags (job->llm) == ANOT_PARSE_ORIGINAL)
    {
      AnotParseResult *original = anot_parse_ranking (anot_parse_result_get_text (answer),
                                                      anot_llm_job_get_candidates (job->llm)->len,
                                                      NULL, ANOT_PARSE_ORIGINAL);

      g_object_unref (answer);
      answer = original;
    }
  if (answer != NULL && anot_parse_result_get_ok (answer))
    {
      return_ranking (task, answer, reply, "finish");
      return;
    }
  if (job->step >= job->max_steps)
    {
      forced_finish (task);
      return;
    }
  next_step (task);
}

static void
next_step (GTask *task)
{
  Job *job = g_task_get_task_data (task);
  g_autofree char *prompt = NULL;

  job->step++;
  prompt = anot_llm_prompt (anot_llm_job_get_context (job->llm), PROMPTS "/step.txt",
                            "request", request_text (job),
                            "n", job->n_text,
                            "instruction", job->instruction,
                            "tools", job->tools,
                            "history", job->history->str,
                            NULL);
  anot_llm_job_complete_take_async (job->llm, "step", ROLE, job->system_prompt,
                                    g_steal_pointer (&prompt), on_step, g_object_ref (task));
}

static void
anot_method_react_rank_async (AnotMethod          *method,
                              AnotQuery           *request,
                              GPtrArray           *candidates,
                              guint                k,
                              AnotMethodContext   *context,
                              GCancellable        *cancellable,
                              GAsyncReadyCallback  callback,
                              gpointer             user_data)
{
  g_autoptr(GTask) task = g_task_new (method, cancellable, callback, user_data);
  g_autoptr(GError) error = NULL;
  g_autofree char *system_base = NULL;
  guint observation_chars;
  Job *job;

  g_task_set_source_tag (task, anot_method_react_rank_async);
  g_task_set_name (task, "[anot] react rank");

  job = g_new0 (Job, 1);
  g_task_set_task_data (task, job, job_free);
  job->llm = anot_llm_job_new ("react", request, candidates,
                               k > 0 ? MIN (k, candidates->len) : candidates->len,
                               context, cancellable);
  job->settings = anot_method_settings_new ("react");
  job->history = g_string_new (NULL);
  job->steps = json_array_new ();
  job->start_us = g_get_monotonic_time ();

  if (!anot_method_settings_load_for_context (job->settings, context, &error) ||
      !anot_method_settings_get_uint (job->settings, context, "max_steps", DEFAULT_MAX_STEPS,
                                      1, 100, &job->max_steps, &error) ||
      !anot_method_settings_get_uint (job->settings, context, "max_observation_chars",
                                      DEFAULT_OBSERVATION_CHARS, 1, G_MAXINT,
                                      &observation_chars, &error))
    {
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }
  /* Its steps, then the forced finish: what a budget reserves. */
  anot_method_context_declare_max_calls (context, job->max_steps + 1);
  if (candidates->len == 0)
    {
      g_task_return_pointer (task, anot_ranking_new (), g_object_unref);
      return;
    }

  job->toolbox = anot_agent_toolbox_new (candidates);
  anot_agent_toolbox_set_max_observation_chars (job->toolbox, observation_chars);
  job->n_text = g_strdup_printf ("%u", candidates->len);
  job->tools = anot_agent_toolbox_describe (job->toolbox);
  job->instruction = anot_llm_job_instruction (job->llm, PROMPTS);
  system_base = anot_llm_prompt (anot_llm_job_get_context (job->llm), PROMPTS "/system.txt", "n", job->n_text, NULL);
  job->system_prompt = anot_llm_job_system_prompt (job->llm, system_base);

  next_step (task);
}

static AnotRanking *
anot_method_react_rank_finish (AnotMethod    *method,
                               GAsyncResult  *result,
                               GError       **error)
{
  g_return_val_if_fail (g_task_is_valid (result, method), NULL);

  return g_task_propagate_pointer (G_TASK (result), error);
}

static void
anot_method_react_method_iface_init (AnotMethodInterface *iface)
{
  iface->rank_async = anot_method_react_rank_async;
  iface->rank_finish = anot_method_react_rank_finish;
}

static void
anot_method_react_class_init (AnotMethodReactClass *klass)
{
}

static void
anot_method_react_class_finalize (AnotMethodReactClass *klass)
{
}

static void
anot_method_react_init (AnotMethodReact *self)
{
}

G_MODULE_EXPORT void
g_io_module_load (GIOModule *module)
{
  anot_method_react_register_type (G_TYPE_MODULE (module));
  anot_plugin_implement_with_flags (ANOT_METHOD_EXTENSION_POINT_NAME,
                                    ANOT_TYPE_METHOD_REACT, "react",
                                    "ReAct (Yao et al., ICLR 2023): Thought/Action/Observation steps over the "
                                    "core's data tools (count, keys, union_keys, sample, check, search_reviews) "
                                    "until finish(\"i, j, k\"); calls: 1..max_steps (5), +1 forced finish",
                                    ANOT_PLUGIN_SUPPORTS_DEFENSE);
  anot_plugin_declare_method_options ("react",
                                      anot_method_option_new_int ("max_steps", 1, 100, DEFAULT_MAX_STEPS, "Thought/Action/Observation steps before the forced finish"),
                                      anot_method_option_new_int ("max_observation_chars", 1, G_MAXINT, DEFAULT_OBSERVATION_CHARS, "characters of a tool result shown to the model"),
                                      NULL);
  anot_plugin_declare_method_roles ("react", ROLE, NULL);
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
