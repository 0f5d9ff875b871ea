/* anot-method-context.h
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#if !defined(ANOT_INSIDE) && !defined(ANOT_COMPILATION)
#error "Only <anot/anot.h> can be included directly."
#endif

#include <gio/gio.h>

#include "anot-backend-router.h"
#include "anot-dataset.h"
#include "anot-debug-log.h"
#include "anot-usage.h"
#include "anot-validator.h"

G_BEGIN_DECLS

#define ANOT_TYPE_METHOD_CONTEXT (anot_method_context_get_type ())
G_DECLARE_FINAL_TYPE (AnotMethodContext, anot_method_context, ANOT, METHOD_CONTEXT, GObject)

AnotMethodContext *anot_method_context_new            (AnotDataset       *dataset,
                                                       const char        *request_id,
                                                       guint64            seed);
const char * const *anot_method_context_get_friends   (AnotMethodContext *self,
                                                       const char        *name);
void               anot_method_context_set_truth_request (AnotMethodContext *self,
                                                       AnotRequest       *request);
AnotRequest       *anot_method_context_get_truth_request (AnotMethodContext *self);
AnotValidator     *anot_method_context_get_validator  (AnotMethodContext *self);
void               anot_method_context_set_validator  (AnotMethodContext *self,
                                                       AnotValidator     *validator);
const char        *anot_method_context_get_request_id (AnotMethodContext *self);
guint64            anot_method_context_get_seed       (AnotMethodContext *self);
AnotUsage         *anot_method_context_get_usage      (AnotMethodContext *self);
const char        *anot_method_context_get_option     (AnotMethodContext *self,
                                                       const char        *key);
void               anot_method_context_set_option     (AnotMethodContext *self,
                                                       const char        *key,
                                                       const char        *value);
char             **anot_method_context_list_options   (AnotMethodContext *self);
gboolean           anot_method_context_get_defense    (AnotMethodContext *self);
void               anot_method_context_set_defense    (AnotMethodContext *self,
                                                       gboolean           defense);
const char        *anot_method_context_get_defense_prompt (AnotMethodContext *self);

AnotBackendRouter *anot_method_context_get_router     (AnotMethodContext *self);
void               anot_method_context_set_router     (AnotMethodContext *self,
                                                       AnotBackendRouter *router);
AnotDebugLog      *anot_method_context_get_debug_log  (AnotMethodContext *self);
void               anot_method_context_set_debug_log  (AnotMethodContext *self,
                                                       AnotDebugLog      *log);
AnotDebugLevel     anot_method_context_get_debug_level (AnotMethodContext *self);
void               anot_method_context_debug_message  (AnotMethodContext *self,
                                                       AnotDebugLevel     level,
                                                       const char        *phase,
                                                       const char        *message);
void               anot_method_context_debug          (AnotMethodContext *self,
                                                       AnotDebugLevel     level,
                                                       const char        *phase,
                                                       const char        *format,
                                                       ...) G_GNUC_PRINTF (4, 5);

void               anot_method_context_complete_async (AnotMethodContext   *self,
                                                       const char          *role,
                                                       const char          *system_prompt,
                                                       const char          *prompt,
                                                       GCancellable        *cancellable,
                                                       GAsyncReadyCallback  callback,
                                                       gpointer             user_data);
void               anot_method_context_complete_request_async (AnotMethodContext   *self,
                                                       const char          *role,
                                                       AnotChatRequest     *request,
                                                       GCancellable        *cancellable,
                                                       GAsyncReadyCallback  callback,
                                                       gpointer             user_data);
AnotCompletion    *anot_method_context_complete_finish (AnotMethodContext  *self,
                                                       GAsyncResult        *result,
                                                       GError             **error);

G_END_DECLS
