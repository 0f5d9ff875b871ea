/* anot-method-plan_act.c: Plan-and-Act (two calls: plan, then act)
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * See README.md in this folder.
 */
#include <anot/anot.h>

#include "anot-llm-job.h"

#define PROMPTS "/org/anot/methods/plan_act"

#define ANOT_TYPE_METHOD_PLAN_ACT (anot_method_plan_act_get_type ())
G_DECLARE_FINAL_TYPE (AnotMethodPlanAct, anot_method_plan_act, ANOT, METHOD_PLAN_ACT, GObject)

struct _AnotMethodPlanAct
{
  GObject parent_instance;
};

static void anot_method_plan_act_method_iface_init (AnotMethodInterface *iface);

G_DEFINE_DYNAMIC_TYPE_EXTENDED (AnotMethodPlanAct, anot_method_plan_act, G_TYPE_OBJECT,
                                G_TYPE_FLAG_FINAL,
                                G_IMPLEMENT_INTERFACE_DYNAMIC (ANOT_TYPE_METHOD,
                                                               anot_method_plan_act_method_iface_init))

static void send_act (GTask *task);

static void
on_answer (GObject      *source,
           GAsyncResult *result,
           gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  AnotLlmJob *job = g_task_get_task_data (task);
  g_autoptr(AnotCompletion) completion = NULL;
  g_autoptr(AnotParseResult) parse = NULL;
  g_autoptr(GError) error = NULL;
  JsonObject *record = NULL;
  const char *text;

  completion = anot_llm_job_complete_finish (job, result, &record, &error);
  if (completion == NULL)
    {
      if (anot_llm_error_is_context_overflow (error) && anot_llm_job_shrink_reviews (job, NULL))
        {
          send_act (g_steal_pointer (&task));
          return;
        }
      g_prefix_error (&error, "plan_act: act call: ");
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }

  text = anot_completion_get_text (completion);
  parse = anot_parse_ranking (text, anot_llm_job_get_candidates (job)->len,
                              anot_llm_job_get_candidates (job), ANOT_PARSE_FLAGS_NONE);
  anot_llm_job_record_parse (job, record, parse);
  g_task_return_pointer (task, anot_llm_job_ranking_from_parse (job, parse, text), g_object_unref);
}

/* The executor gets the planner's steps as "Step n: ..." lines (the
 * Reasoning lines are the planner's own); a plan without recognisable
 * steps is passed on verbatim. */
static char *
plan_text (const char      *raw,
           AnotParseResult *steps)
{
  const char * const *s = anot_parse_result_get_steps (steps);
  GString *out;

  if (!anot_parse_result_get_ok (steps) || s == NULL || s[0] == NULL)
    return g_strdup (raw);
  out = g_string_new (NULL);
  for (guint i = 0; s[i] != NULL; i++)
    g_string_append_printf (out, "%sStep %u: %s", i > 0 ? "\n" : "", i + 1, s[i]);
  return g_string_free (out, FALSE);
}

static void
on_plan (GObject      *source,
         GAsyncResult *result,
         gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  AnotLlmJob *job = g_task_get_task_data (task);
  g_autoptr(AnotCompletion) completion = NULL;
  g_autoptr(AnotParseResult) steps = NULL;
  g_autoptr(GError) error = NULL;
  JsonObject *record = NULL;
  g_autofree char *plan = NULL;

  completion = anot_llm_job_complete_finish (job, result, &record, &error);
  if (completion == NULL)
    {
      g_prefix_error (&error, "plan_act: plan call: ");
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }

  steps = anot_parse_steps (anot_completion_get_text (completion), 4);
  anot_llm_job_record_parse (job, record, steps);
  plan = plan_text (anot_completion_get_text (completion), steps);
  anot_llm_job_set_text (job, plan);
  send_act (g_steal_pointer (&task));
}

/* Takes the caller's reference to @task. */
static void
send_act (GTask *task)
{
  AnotLlmJob *job = g_task_get_task_data (task);
  g_autoptr(GError) error = NULL;
  const char *plan = anot_llm_job_get_text (job);
  g_autofree char *data = NULL;
  g_autofree char *task_text = NULL;
  g_autofree char *instruction = NULL;
  g_autofree char *system_base = NULL;
  g_autofree char *system_prompt = NULL;
  g_autofree char *prompt = NULL;

  data = anot_llm_job_format_candidates (job, "candidates", NULL, &error);
  if (data == NULL)
    {
      g_task_return_error (task, g_steal_pointer (&error));
      g_object_unref (task);
      return;
    }
  task_text = anot_llm_job_task (job, PROMPTS);
  instruction = anot_llm_job_instruction (job, PROMPTS);
  system_base = anot_llm_prompt (PROMPTS "/act-system.txt", NULL);
  system_prompt = anot_llm_job_system_prompt (job, system_base);
  prompt = anot_llm_prompt (PROMPTS "/act-user.txt",
                            "plan", plan,
                            "task", task_text,
                            "request", anot_request_get_text (anot_llm_job_get_request (job)),
                            "candidates", data,
                            "instruction", instruction,
                            NULL);

  anot_llm_job_complete_async (job, "act", "executor", system_prompt, prompt,
                               on_answer, task);
}

static void
anot_method_plan_act_rank_async (AnotMethod          *method,
                            AnotRequest         *request,
                            GPtrArray           *candidates,
                            guint                k,
                            AnotMethodContext   *context,
                            GCancellable        *cancellable,
                            GAsyncReadyCallback  callback,
                            gpointer             user_data)
{
  g_autoptr(GTask) task = g_task_new (method, cancellable, callback, user_data);
  AnotLlmJob *job = anot_llm_job_new ("plan_act", request, candidates, k, context, cancellable);
  g_autofree char *task_text = NULL;
  g_autofree char *n = g_strdup_printf ("%u", candidates->len);
  g_autofree char *system_base = NULL;
  g_autofree char *system_prompt = NULL;
  g_autofree char *prompt = NULL;
  g_autoptr(GError) error = NULL;

  g_task_set_source_tag (task, anot_method_plan_act_rank_async);
  g_task_set_task_data (task, job, (GDestroyNotify) anot_llm_job_free);

  /* Check the format options now, before any call is paid for. */
  if (anot_llm_job_get_formatter (job, &error) == NULL)
    {
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }

  task_text = anot_llm_job_task (job, PROMPTS);
  system_base = anot_llm_prompt (PROMPTS "/plan-system.txt", NULL);
  system_prompt = anot_llm_job_system_prompt (job, system_base);
  prompt = anot_llm_prompt (PROMPTS "/plan-user.txt", "task", task_text, "n", n, NULL);

  anot_llm_job_complete_async (job, "plan", "planner", system_prompt, prompt,
                               on_plan, g_steal_pointer (&task));
}

static AnotRanking *
anot_method_plan_act_rank_finish (AnotMethod    *method,
                             GAsyncResult  *result,
                             GError       **error)
{
  return g_task_propagate_pointer (G_TASK (result), error);
}

static void
anot_method_plan_act_method_iface_init (AnotMethodInterface *iface)
{
  iface->rank_async = anot_method_plan_act_rank_async;
  iface->rank_finish = anot_method_plan_act_rank_finish;
}

static void
anot_method_plan_act_class_init (AnotMethodPlanActClass *klass)
{
}

static void
anot_method_plan_act_class_finalize (AnotMethodPlanActClass *klass)
{
}

static void
anot_method_plan_act_init (AnotMethodPlanAct *self)
{
}

G_MODULE_EXPORT void
g_io_module_load (GIOModule *module)
{
  anot_method_plan_act_register_type (G_TYPE_MODULE (module));
  anot_plugin_implement (ANOT_METHOD_EXTENSION_POINT_NAME,
                         ANOT_TYPE_METHOD_PLAN_ACT, "plan_act",
                         "Plan-and-Act (Erdogan et al., ICML 2025): a planner (role planner) writes 2-4 steps for the request, an executor (role executor) runs them on all N candidates; calls: 2");
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
