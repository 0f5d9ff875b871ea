/* anot-lwt-executor.h
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

#include "anot-lwt-result.h"
#include "anot-lwt-script.h"
#include "anot-method-context.h"

G_BEGIN_DECLS

/**
 * ANOT_LWT_DEFAULT_MAX_PROMPT_LENGTH:
 *
 * The default limit, in characters, of a filled-in prompt (the original's
 * 20000): longer prompts keep their first half and last quarter around a
 * `...[TRUNCATED]...` line.
 */
#define ANOT_LWT_DEFAULT_MAX_PROMPT_LENGTH 20000

#define ANOT_TYPE_LWT_EXECUTOR (anot_lwt_executor_get_type ())
ANOT_AVAILABLE_IN_ALL
G_DECLARE_FINAL_TYPE (AnotLwtExecutor, anot_lwt_executor, ANOT, LWT_EXECUTOR, GObject)

ANOT_AVAILABLE_IN_ALL
AnotLwtExecutor   *anot_lwt_executor_new                   (AnotMethodContext    *context);
ANOT_AVAILABLE_IN_ALL
AnotMethodContext *anot_lwt_executor_get_context           (AnotLwtExecutor      *self);
ANOT_AVAILABLE_IN_ALL
const char        *anot_lwt_executor_get_role              (AnotLwtExecutor      *self);
ANOT_AVAILABLE_IN_ALL
void               anot_lwt_executor_set_role              (AnotLwtExecutor      *self,
                                                            const char           *role);
ANOT_AVAILABLE_IN_ALL
const char        *anot_lwt_executor_get_system_prompt     (AnotLwtExecutor      *self);
ANOT_AVAILABLE_IN_ALL
void               anot_lwt_executor_set_system_prompt     (AnotLwtExecutor      *self,
                                                            const char           *system_prompt);
ANOT_AVAILABLE_IN_ALL
guint              anot_lwt_executor_get_max_value_length  (AnotLwtExecutor      *self);
ANOT_AVAILABLE_IN_ALL
void               anot_lwt_executor_set_max_value_length  (AnotLwtExecutor      *self,
                                                            guint                 max_value_length);
ANOT_AVAILABLE_IN_ALL
guint              anot_lwt_executor_get_max_prompt_length (AnotLwtExecutor      *self);
ANOT_AVAILABLE_IN_ALL
void               anot_lwt_executor_set_max_prompt_length (AnotLwtExecutor      *self,
                                                            guint                 max_prompt_length);
ANOT_AVAILABLE_IN_ALL
guint              anot_lwt_executor_get_max_concurrent    (AnotLwtExecutor      *self);
ANOT_AVAILABLE_IN_ALL
void               anot_lwt_executor_set_max_concurrent    (AnotLwtExecutor      *self,
                                                            guint                 max_concurrent);
ANOT_AVAILABLE_IN_ALL
const char        *anot_lwt_executor_get_failure_output    (AnotLwtExecutor      *self);
ANOT_AVAILABLE_IN_ALL
void               anot_lwt_executor_set_failure_output    (AnotLwtExecutor      *self,
                                                            const char           *failure_output);
ANOT_AVAILABLE_IN_ALL
const char        *anot_lwt_executor_get_debug_phase       (AnotLwtExecutor      *self);
ANOT_AVAILABLE_IN_ALL
void               anot_lwt_executor_set_debug_phase       (AnotLwtExecutor      *self,
                                                            const char           *phase);
ANOT_AVAILABLE_IN_ALL
void               anot_lwt_executor_set_variable          (AnotLwtExecutor      *self,
                                                            const char           *name,
                                                            JsonNode             *value);
ANOT_AVAILABLE_IN_ALL
JsonNode          *anot_lwt_executor_get_variable          (AnotLwtExecutor      *self,
                                                            const char           *name);
ANOT_AVAILABLE_IN_ALL
void               anot_lwt_executor_clear_cache           (AnotLwtExecutor      *self);
ANOT_AVAILABLE_IN_ALL
void               anot_lwt_executor_execute_async         (AnotLwtExecutor      *self,
                                                            AnotLwtScript        *script,
                                                            GCancellable         *cancellable,
                                                            GAsyncReadyCallback   callback,
                                                            gpointer              user_data);
ANOT_AVAILABLE_IN_ALL
AnotLwtResult     *anot_lwt_executor_execute_finish        (AnotLwtExecutor      *self,
                                                            GAsyncResult         *result,
                                                            GError              **error);

G_END_DECLS
