/* anot-llm-two-phase.c: methods that plan first, then rank with the plan
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "anot-llm-two-phase.h"

#include "anot-llm-job.h"

typedef struct
{
  const AnotLlmTwoPhase *spec;
  AnotLlmJob *job;
  gboolean verbatim;   /* the plan option is `verbatim` */
} TwoPhase;

static void
two_phase_free (TwoPhase *state)
{
  anot_llm_job_free (state->job);
  g_free (state);
}

static void send_second (GTask *task);

static void
on_answer (GObject      *source,
           GAsyncResult *result,
           gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  TwoPhase *state = g_task_get_task_data (task);
  AnotLlmJob *job = state->job;
  g_autoptr(AnotCompletion) completion = NULL;
  g_autoptr(GError) error = NULL;
  JsonObject *record = NULL;
  gboolean retry;

  completion = anot_llm_job_complete_finish_shrinking (job, result, NULL, &record, &retry, &error);
  if (retry)
    {
      send_second (g_steal_pointer (&task));
      return;
    }
  if (completion == NULL)
    {
      g_prefix_error (&error, "%s: %s call: ", state->spec->method, state->spec->second_call);
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }
  g_task_return_pointer (task, anot_llm_job_rank_answer (job, record, completion), g_object_unref);
}

static void
on_plan (GObject      *source,
         GAsyncResult *result,
         gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  TwoPhase *state = g_task_get_task_data (task);
  AnotLlmJob *job = state->job;
  g_autoptr(AnotCompletion) completion = NULL;
  g_autoptr(AnotParseResult) steps = NULL;
  g_autoptr(GError) error = NULL;
  JsonObject *record = NULL;
  g_autofree char *plan = NULL;

  completion = anot_llm_job_complete_finish (job, result, &record, &error);
  if (completion == NULL)
    {
      g_prefix_error (&error, "%s: plan call: ", state->spec->method);
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }

  steps = anot_parse_steps (anot_completion_get_text (completion), state->spec->plan_steps);
  anot_llm_job_record_parse (job, record, steps);
  plan = state->verbatim ? g_strdup (anot_completion_get_text (completion))
                         : state->spec->plan_text (anot_completion_get_text (completion), steps);
  anot_llm_job_set_text (job, plan);
  send_second (g_steal_pointer (&task));
}

/* Takes the caller's reference to @task. */
static void
send_second (GTask *task)
{
  TwoPhase *state = g_task_get_task_data (task);
  const AnotLlmTwoPhase *spec = state->spec;
  AnotLlmJob *job = state->job;
  g_autoptr(GError) error = NULL;
  const char *data = NULL;
  g_autofree char *task_text = NULL;
  g_autofree char *instruction = NULL;
  g_autofree char *system_path = NULL;
  g_autofree char *user_path = NULL;
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
  task_text = anot_llm_job_task (job, spec->prompts, TRUE);
  instruction = anot_llm_job_instruction (job, spec->prompts);
  system_path = g_strdup_printf ("%s/%s-system.txt", spec->prompts, spec->second_call);
  user_path = g_strdup_printf ("%s/%s-user.txt", spec->prompts, spec->second_call);
  system_base = anot_llm_prompt (anot_llm_job_get_context (job), system_path, NULL);
  system_prompt = anot_llm_job_system_prompt (job, system_base);
  prompt = anot_llm_prompt (anot_llm_job_get_context (job), user_path,
                            "plan", anot_llm_job_get_text (job),
                            "task", task_text,
                            "request", anot_query_get_text (anot_llm_job_get_request (job)),
                            "candidates", data,
                            "instruction", instruction,
                            NULL);

  anot_llm_job_complete_take_async (job, spec->second_call, spec->second_role, system_prompt,
                                    g_steal_pointer (&prompt), on_answer, task);
}

void
anot_llm_two_phase_rank_async (const AnotLlmTwoPhase *spec,
                               AnotMethod            *method,
                               gpointer               source_tag,
                               AnotQuery             *request,
                               GPtrArray             *candidates,
                               guint                  k,
                               AnotMethodContext     *context,
                               GCancellable          *cancellable,
                               GAsyncReadyCallback    callback,
                               gpointer               user_data)
{
  g_autoptr(GTask) task = g_task_new (method, cancellable, callback, user_data);
  TwoPhase *state = g_new0 (TwoPhase, 1);
  g_autofree char *task_text = NULL;
  g_autofree char *n = g_strdup_printf ("%u", candidates->len);
  g_autofree char *plan_system = g_strdup_printf ("%s/plan-system.txt", spec->prompts);
  g_autofree char *plan_user = g_strdup_printf ("%s/plan-user.txt", spec->prompts);
  g_autofree char *system_base = NULL;
  g_autofree char *system_prompt = NULL;
  g_autofree char *prompt = NULL;
  g_autoptr(GError) error = NULL;

  state->spec = spec;
  state->job = anot_llm_job_new (spec->method, request, candidates, k, context, cancellable);
  g_task_set_source_tag (task, source_tag);
  g_task_set_task_data (task, state, (GDestroyNotify) two_phase_free);

  /* Check the format options now, before any call is paid for. */
  if (anot_llm_job_get_formatter (state->job, &error) == NULL)
    {
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }
  if (spec->plan_option)
    {
      static const char * const plans[] = { "steps", "verbatim", NULL };
      g_autoptr(AnotMethodSettings) settings = anot_method_settings_new (spec->method);
      guint plan_index;

      if (!anot_method_settings_load_for_context (settings, context, &error) ||
          !anot_method_settings_get_choice (settings, context, "plan", plans,
                                            anot_method_context_get_compat (context) == ANOT_COMPAT_MODE_ORIGINAL
                                            ? 1 : 0,
                                            &plan_index, &error))
        {
          g_task_return_error (task, g_steal_pointer (&error));
          return;
        }
      state->verbatim = plan_index == 1;
    }

  task_text = anot_llm_job_task (state->job, spec->prompts, FALSE);
  system_base = anot_llm_prompt (context, plan_system, NULL);
  system_prompt = anot_llm_job_system_prompt (state->job, system_base);
  prompt = anot_llm_prompt (context, plan_user, "task", task_text, "n", n, NULL);

  anot_llm_job_complete_take_async (state->job, "plan", spec->plan_role, system_prompt,
                                    g_steal_pointer (&prompt), on_plan, g_steal_pointer (&task));
}
