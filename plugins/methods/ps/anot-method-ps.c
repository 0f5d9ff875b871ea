/* anot-method-ps.c: Plan-and-Solve (two calls: plan, then solve)
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * See README.md in this folder.
 */
#include <anot/anot.h>

#include "anot-llm-two-phase.h"

#define PROMPTS "/org/anot/methods/ps"

#define ANOT_TYPE_METHOD_PS (anot_method_ps_get_type ())
G_DECLARE_FINAL_TYPE (AnotMethodPs, anot_method_ps, ANOT, METHOD_PS, GObject)

struct _AnotMethodPs
{
  GObject parent_instance;
};

static void anot_method_ps_method_iface_init (AnotMethodInterface *iface);

G_DEFINE_DYNAMIC_TYPE_EXTENDED (AnotMethodPs, anot_method_ps, G_TYPE_OBJECT,
                                G_TYPE_FLAG_FINAL,
                                G_IMPLEMENT_INTERFACE_DYNAMIC (ANOT_TYPE_METHOD,
                                                               anot_method_ps_method_iface_init))

/* The plan goes to the solver verbatim, as the paper and the original
 * do; its parsed steps are only traced. */
static char *
plan_text (const char      *raw,
           AnotParseResult *steps)
{
  return g_strdup (raw);
}

static const AnotLlmTwoPhase ps_spec = {
  .method = "ps",
  .prompts = PROMPTS,
  .plan_steps = 3,
  .plan_role = ANOT_DEFAULT_ROLE,
  .second_call = "solve",
  .second_role = ANOT_DEFAULT_ROLE,
  .plan_text = plan_text,
};

static void
anot_method_ps_rank_async (AnotMethod          *method,
                            AnotQuery           *request,
                            GPtrArray           *candidates,
                            guint                k,
                            AnotMethodContext   *context,
                            GCancellable        *cancellable,
                            GAsyncReadyCallback  callback,
                            gpointer             user_data)
{
  anot_llm_two_phase_rank_async (&ps_spec, method, anot_method_ps_rank_async,
                                 request, candidates, k, context, cancellable,
                                 callback, user_data);
}

static AnotRanking *
anot_method_ps_rank_finish (AnotMethod    *method,
                             GAsyncResult  *result,
                             GError       **error)
{
  return g_task_propagate_pointer (G_TASK (result), error);
}

static void
anot_method_ps_method_iface_init (AnotMethodInterface *iface)
{
  iface->rank_async = anot_method_ps_rank_async;
  iface->rank_finish = anot_method_ps_rank_finish;
}

static void
anot_method_ps_class_init (AnotMethodPsClass *klass)
{
}

static void
anot_method_ps_class_finalize (AnotMethodPsClass *klass)
{
}

static void
anot_method_ps_init (AnotMethodPs *self)
{
}

G_MODULE_EXPORT void
g_io_module_load (GIOModule *module)
{
  anot_method_ps_register_type (G_TYPE_MODULE (module));
  anot_plugin_implement_with_flags (ANOT_METHOD_EXTENSION_POINT_NAME,
                                    ANOT_TYPE_METHOD_PS, "ps",
                                    "Plan-and-Solve (Wang et al., ACL 2023): a 3-step plan from the request alone, then the plan executed on all N candidates; calls: 2",
                                    ANOT_PLUGIN_SUPPORTS_DEFENSE | ANOT_PLUGIN_USES_FORMATTER);
  /* It reads no option: any -O ps.KEY is refused. */
  anot_plugin_declare_method_options ("ps", NULL);
  anot_plugin_declare_method_roles ("ps", ANOT_DEFAULT_ROLE, NULL);
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
