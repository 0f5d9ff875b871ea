/* anot-method-cot.c: Chain-of-Thought ranking (one call)
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * See README.md in this folder.
 */
#include <anot/anot.h>

#include "anot-llm-job.h"

#define PROMPTS "/org/anot/methods/cot"

#define ANOT_TYPE_METHOD_COT (anot_method_cot_get_type ())
G_DECLARE_FINAL_TYPE (AnotMethodCot, anot_method_cot, ANOT, METHOD_COT, GObject)

struct _AnotMethodCot
{
  GObject parent_instance;
};

static void anot_method_cot_method_iface_init (AnotMethodInterface *iface);

G_DEFINE_DYNAMIC_TYPE_EXTENDED (AnotMethodCot, anot_method_cot, G_TYPE_OBJECT,
                                G_TYPE_FLAG_FINAL,
                                G_IMPLEMENT_INTERFACE_DYNAMIC (ANOT_TYPE_METHOD,
                                                               anot_method_cot_method_iface_init))

static void send_answer (GTask *task);

static void
on_answer (GObject      *source,
           GAsyncResult *result,
           gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  AnotLlmJob *job = g_task_get_task_data (task);
  g_autoptr(AnotCompletion) completion = NULL;
  g_autoptr(GError) error = NULL;
  JsonObject *record = NULL;
  gboolean retry;

  completion = anot_llm_job_complete_finish_shrinking (job, result, NULL, &record, &retry, &error);
  if (retry)
    {
      send_answer (g_steal_pointer (&task));
      return;
    }
  if (completion == NULL)
    {
      g_prefix_error (&error, "cot: ");
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }
  g_task_return_pointer (task, anot_llm_job_rank_answer (job, record, completion), g_object_unref);
}

/* Takes the caller's reference to @task. */
static void
send_answer (GTask *task)
{
  AnotLlmJob *job = g_task_get_task_data (task);
  g_autoptr(GError) error = NULL;
  const char *data = NULL;
  g_autofree char *task_text = NULL;
  g_autofree char *instruction = NULL;
  g_autofree char *n = g_strdup_printf ("%u", anot_llm_job_get_candidates (job)->len);
  AnotMethodContext *context = anot_llm_job_get_context (job);
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
  task_text = anot_llm_job_task (job, PROMPTS, TRUE);
  instruction = anot_llm_job_instruction (job, PROMPTS);
  /* --compat original: the original's wording (reply with only the
   * answer), which asks for one number whatever k the user prompt asks
   * for, as it did. */
  if (anot_method_context_get_compat (context) == ANOT_COMPAT_MODE_ORIGINAL)
    {
      system_base = anot_llm_prompt (context, PROMPTS "/system-original.txt", "n", n, NULL);
      /* In defense mode the original put its own, shorter data-quality
       * preamble before that wording (attacks.md §5), not anot's text. */
      if (anot_method_context_get_defense_prompt (context) != NULL)
        {
          g_autofree char *preamble = anot_llm_prompt (context, PROMPTS "/defense-original.txt", NULL);

          system_prompt = g_strconcat (preamble, "\n\n", system_base, NULL);
        }
      else
        system_prompt = g_strdup (system_base);
    }
  else
    {
      system_base = anot_llm_prompt (context, PROMPTS "/system.txt", "n", n, NULL);
      system_prompt = anot_llm_job_system_prompt (job, system_base);
    }
  prompt = anot_llm_prompt (anot_llm_job_get_context (job), PROMPTS "/user.txt",
                            "task", task_text,
                            "candidates", data,
                            "instruction", instruction,
                            NULL);

  anot_llm_job_complete_take_async (job, "answer", ANOT_DEFAULT_ROLE, system_prompt,
                                    g_steal_pointer (&prompt), on_answer, task);
}

static void
anot_method_cot_rank_async (AnotMethod          *method,
                            AnotQuery           *request,
                            GPtrArray           *candidates,
                            guint                k,
                            AnotMethodContext   *context,
                            GCancellable        *cancellable,
                            GAsyncReadyCallback  callback,
                            gpointer             user_data)
{
  GTask *task = g_task_new (method, cancellable, callback, user_data);
  AnotLlmJob *job = anot_llm_job_new ("cot", request, candidates, k, context, cancellable);

  g_task_set_source_tag (task, anot_method_cot_rank_async);
  g_task_set_task_data (task, job, (GDestroyNotify) anot_llm_job_free);
  send_answer (task);
}

static AnotRanking *
anot_method_cot_rank_finish (AnotMethod    *method,
                             GAsyncResult  *result,
                             GError       **error)
{
  return g_task_propagate_pointer (G_TASK (result), error);
}

static void
anot_method_cot_method_iface_init (AnotMethodInterface *iface)
{
  iface->rank_async = anot_method_cot_rank_async;
  iface->rank_finish = anot_method_cot_rank_finish;
}

static void
anot_method_cot_class_init (AnotMethodCotClass *klass)
{
}

static void
anot_method_cot_class_finalize (AnotMethodCotClass *klass)
{
}

static void
anot_method_cot_init (AnotMethodCot *self)
{
}

G_MODULE_EXPORT void
g_io_module_load (GIOModule *module)
{
  anot_method_cot_register_type (G_TYPE_MODULE (module));
  anot_plugin_implement_with_flags (ANOT_METHOD_EXTENSION_POINT_NAME,
                                    ANOT_TYPE_METHOD_COT, "cot",
                                    "Chain-of-Thought (Wei et al., NeurIPS 2022): all N candidates as JSON, "
                                    "reason then ANSWER: n1, n2, ...; calls: 1",
                                    ANOT_PLUGIN_SUPPORTS_DEFENSE | ANOT_PLUGIN_USES_FORMATTER);
  /* It reads no option: any -O cot.KEY is refused. */
  anot_plugin_declare_method_options ("cot", NULL);
  anot_plugin_declare_method_roles ("cot", ANOT_DEFAULT_ROLE, NULL);
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
