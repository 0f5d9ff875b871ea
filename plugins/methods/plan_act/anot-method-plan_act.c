/* anot-method-plan_act.c: Plan-and-Act (two calls: plan, then act)
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * See README.md in this folder.
 */
#include <anot/anot.h>

#include "anot-llm-two-phase.h"

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

static const AnotLlmTwoPhase plan_act_spec = {
  .method = "plan_act",
  .prompts = PROMPTS,
  .plan_steps = 4,
  .plan_role = "planner",
  .second_call = "act",
  .second_role = "executor",
  .plan_text = plan_text,
  .plan_option = TRUE,
};

static void
anot_method_plan_act_rank_async (AnotMethod          *method,
                            AnotQuery           *request,
                            GPtrArray           *candidates,
                            guint                k,
                            AnotMethodContext   *context,
                            GCancellable        *cancellable,
                            GAsyncReadyCallback  callback,
                            gpointer             user_data)
{
  anot_llm_two_phase_rank_async (&plan_act_spec, method, anot_method_plan_act_rank_async,
                                 request, candidates, k, context, cancellable,
                                 callback, user_data);
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
  anot_plugin_implement_with_flags (ANOT_METHOD_EXTENSION_POINT_NAME,
                                    ANOT_TYPE_METHOD_PLAN_ACT, "plan_act",
                                    "Plan-and-Act (Erdogan et al., ICML 2025): a planner (role planner) writes 2-4 steps for the request, an executor (role executor) runs them on all N candidates; calls: 2",
                                    ANOT_PLUGIN_SUPPORTS_DEFENSE | ANOT_PLUGIN_USES_FORMATTER);
  anot_plugin_declare_method_options ("plan_act",
                                      anot_method_option_with_original_default (
                                        anot_method_option_new_choice ("plan", (const char * const[]) { "steps", "verbatim", NULL }, 0,
                                                                       "what the executor gets: the Step lines of at most 4 sections, or the plan verbatim (the original)"),
                                        "verbatim"),
                                      NULL);
  anot_plugin_declare_method_roles ("plan_act", "planner", "executor", NULL);
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
