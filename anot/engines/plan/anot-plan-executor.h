/* anot-plan-executor.h
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#if !defined(ANOT_INSIDE) && !defined(ANOT_COMPILATION)
#error "Only <anot/anot.h> can be included directly."
#endif

#include "anot-visibility.h"

#include <gio/gio.h>
#include <json-glib/json-glib.h>

#include "anot-method-context.h"
#include "anot-plan.h"
#include "anot-plan-result.h"
#include "anot-tool.h"

G_BEGIN_DECLS

#define ANOT_TYPE_PLAN_EXECUTOR (anot_plan_executor_get_type ())
ANOT_AVAILABLE_IN_ALL
G_DECLARE_FINAL_TYPE (AnotPlanExecutor, anot_plan_executor, ANOT, PLAN_EXECUTOR, GObject)

ANOT_AVAILABLE_IN_ALL
AnotPlanExecutor *anot_plan_executor_new            (AnotMethodContext    *context,
                                                     GPtrArray            *candidates);
ANOT_AVAILABLE_IN_ALL
AnotMethodContext *anot_plan_executor_get_context   (AnotPlanExecutor     *self);
ANOT_AVAILABLE_IN_ALL
JsonNode         *anot_plan_executor_get_data       (AnotPlanExecutor     *self);
ANOT_AVAILABLE_IN_ALL
const char       *anot_plan_executor_get_role       (AnotPlanExecutor     *self);
ANOT_AVAILABLE_IN_ALL
void              anot_plan_executor_set_role       (AnotPlanExecutor     *self,
                                                     const char           *role);
ANOT_AVAILABLE_IN_ALL
void              anot_plan_executor_add_tool       (AnotPlanExecutor     *self,
                                                     AnotTool             *tool);
ANOT_AVAILABLE_IN_ALL
char            **anot_plan_executor_list_tools     (AnotPlanExecutor     *self);
ANOT_AVAILABLE_IN_ALL
JsonNode         *anot_plan_executor_describe_tools (AnotPlanExecutor     *self);
ANOT_AVAILABLE_IN_ALL
JsonNode         *anot_plan_executor_get_plan_schema (AnotPlanExecutor    *self);
ANOT_AVAILABLE_IN_ALL
char            **anot_plan_executor_check          (AnotPlanExecutor     *self,
                                                     AnotPlan             *plan);
ANOT_AVAILABLE_IN_ALL
gboolean          anot_plan_executor_validate       (AnotPlanExecutor     *self,
                                                     AnotPlan             *plan,
                                                     GError              **error);
ANOT_AVAILABLE_IN_ALL
void              anot_plan_executor_execute_async  (AnotPlanExecutor     *self,
                                                     AnotPlan             *plan,
                                                     GCancellable         *cancellable,
                                                     GAsyncReadyCallback   callback,
                                                     gpointer              user_data);
ANOT_AVAILABLE_IN_ALL
AnotPlanResult   *anot_plan_executor_execute_finish (AnotPlanExecutor     *self,
                                                     GAsyncResult         *result,
                                                     GError              **error);

G_END_DECLS
