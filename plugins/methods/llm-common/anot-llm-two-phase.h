/* anot-llm-two-phase.h: methods that plan first, then rank with the plan
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <anot/anot.h>

G_BEGIN_DECLS

/* What tells Plan-and-Solve and Plan-and-Act apart: the plan call sees the
 * request alone (prompts `plan-system.txt`, `plan-user.txt`); the second
 * call (`<second_call>-system.txt`, `<second_call>-user.txt`) sees the plan,
 * the request and every candidate, and its answer is parsed as a ranking. */
typedef struct
{
  const char *method;        /* name in traces and error prefixes */
  const char *prompts;       /* resource prefix of the prompt files */
  guint plan_steps;          /* steps anot_parse_steps() looks for */
  const char *plan_role;
  const char *second_call;   /* "solve", "act": call name and prompt stem */
  const char *second_role;
  /* The plan text the second call gets, from the planner's raw answer and
   * its parsed steps. */
  char *(*plan_text) (const char      *raw,
                      AnotParseResult *steps);
  /* The method declares the choice option `plan` (`steps`, the default:
   * plan_text(); `verbatim`: the planner's answer as it came). */
  gboolean plan_option;
} AnotLlmTwoPhase;

void anot_llm_two_phase_rank_async (const AnotLlmTwoPhase *spec,
                                    AnotMethod            *method,
                                    gpointer               source_tag,
                                    AnotQuery             *request,
                                    GPtrArray             *candidates,
                                    guint                  k,
                                    AnotMethodContext     *context,
                                    GCancellable          *cancellable,
                                    GAsyncReadyCallback    callback,
                                    gpointer               user_data);

G_END_DECLS
