/* anot-method-context.h
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#if !defined(ANOT_INSIDE) && !defined(ANOT_COMPILATION)
#error "Only <anot/anot.h> can be included directly."
#endif

#include "anot-visibility.h"

#include <gio/gio.h>

#include "anot-backend-router.h"
#include "anot-dataset.h"
#include "anot-debug-log.h"
#include "anot-usage.h"
#include "anot-validator.h"

G_BEGIN_DECLS

/**
 * AnotCompatMode:
 * @ANOT_COMPAT_MODE_NONE: anot's own behaviour: the fixes of the original
 *   framework's recorded defects and the deliberate changes listed in
 *   `docs/fidelity.md`
 * @ANOT_COMPAT_MODE_ORIGINAL: like for like with the original framework's
 *   published runs (`anot-run --compat original`): its candidate pools,
 *   the labelled reviews its attacks added, its prompt wording where it is
 *   recorded, its answer parser, Listwise as one call and ANoT as
 *   ANoT-HEAD (see `docs/fidelity.md`)
 *
 * How closely a run follows the original framework.
 */
typedef enum {
  ANOT_COMPAT_MODE_NONE,
  ANOT_COMPAT_MODE_ORIGINAL,
} AnotCompatMode;

#define ANOT_TYPE_METHOD_CONTEXT (anot_method_context_get_type ())
ANOT_AVAILABLE_IN_ALL
G_DECLARE_FINAL_TYPE (AnotMethodContext, anot_method_context, ANOT, METHOD_CONTEXT, GObject)

ANOT_AVAILABLE_IN_ALL
AnotMethodContext *anot_method_context_new            (AnotDataset       *dataset,
                                                       const char        *request_id,
                                                       guint64            seed);
ANOT_AVAILABLE_IN_ALL
AnotMethodContext *anot_method_context_new_for_run    (AnotDataset       *dataset,
                                                      const char        *request_id,
                                                      guint              n_candidates,
                                                      guint64            seed,
                                                      guint              run);
ANOT_AVAILABLE_IN_ALL
guint64            anot_method_context_derive_seed    (guint64            run_seed,
                                                      const char        *request_id,
                                                      guint              n_candidates);
ANOT_AVAILABLE_IN_ALL
AnotDomain        *anot_method_context_get_domain    (AnotMethodContext *self);
ANOT_AVAILABLE_IN_ALL
const char * const *anot_method_context_get_friends   (AnotMethodContext *self,
                                                       const char        *name);
ANOT_AVAILABLE_IN_ALL
gboolean            anot_method_context_lookup_friends (AnotMethodContext   *self,
                                                        const char          *name,
                                                        const char * const **friends);
ANOT_AVAILABLE_IN_ALL
void               anot_method_context_set_truth_request (AnotMethodContext *self,
                                                       AnotRequest       *request);
ANOT_AVAILABLE_IN_ALL
AnotRequest       *anot_method_context_get_truth_request (AnotMethodContext *self);
ANOT_AVAILABLE_IN_ALL
AnotValidator     *anot_method_context_get_validator  (AnotMethodContext *self);
ANOT_AVAILABLE_IN_ALL
void               anot_method_context_set_validator  (AnotMethodContext *self,
                                                       AnotValidator     *validator);
ANOT_AVAILABLE_IN_ALL
const char        *anot_method_context_get_request_id (AnotMethodContext *self);
ANOT_AVAILABLE_IN_ALL
guint64            anot_method_context_get_seed       (AnotMethodContext *self);
ANOT_AVAILABLE_IN_ALL
AnotUsage         *anot_method_context_get_usage      (AnotMethodContext *self);
ANOT_AVAILABLE_IN_ALL
const char        *anot_method_context_get_option     (AnotMethodContext *self,
                                                       const char        *key);
ANOT_AVAILABLE_IN_ALL
void               anot_method_context_set_option     (AnotMethodContext *self,
                                                       const char        *key,
                                                       const char        *value);
ANOT_AVAILABLE_IN_ALL
char             **anot_method_context_list_options   (AnotMethodContext *self);
ANOT_AVAILABLE_IN_ALL
gboolean           anot_method_context_get_defense    (AnotMethodContext *self);
ANOT_AVAILABLE_IN_ALL
void               anot_method_context_set_defense    (AnotMethodContext *self,
                                                       gboolean           defense);
ANOT_AVAILABLE_IN_ALL
const char        *anot_method_context_get_defense_prompt (AnotMethodContext *self);
ANOT_AVAILABLE_IN_ALL
AnotCompatMode     anot_method_context_get_compat     (AnotMethodContext *self);
ANOT_AVAILABLE_IN_ALL
void               anot_method_context_set_compat     (AnotMethodContext *self,
                                                       AnotCompatMode     compat);

ANOT_AVAILABLE_IN_ALL
AnotBackendRouter *anot_method_context_get_router     (AnotMethodContext *self);
ANOT_AVAILABLE_IN_ALL
void               anot_method_context_set_router     (AnotMethodContext *self,
                                                       AnotBackendRouter *router);
ANOT_AVAILABLE_IN_ALL
gboolean           anot_method_context_is_backlogged  (AnotMethodContext *self,
                                                       const char        *role);
ANOT_AVAILABLE_IN_ALL
AnotDebugLog      *anot_method_context_get_debug_log  (AnotMethodContext *self);
ANOT_AVAILABLE_IN_ALL
void               anot_method_context_set_debug_log  (AnotMethodContext *self,
                                                       AnotDebugLog      *log);
ANOT_AVAILABLE_IN_ALL
AnotDebugLevel     anot_method_context_get_debug_level (AnotMethodContext *self);
ANOT_AVAILABLE_IN_ALL
void               anot_method_context_debug_message  (AnotMethodContext *self,
                                                       AnotDebugLevel     level,
                                                       const char        *phase,
                                                       const char        *message);
ANOT_AVAILABLE_IN_ALL
void               anot_method_context_debug          (AnotMethodContext *self,
                                                       AnotDebugLevel     level,
                                                       const char        *phase,
                                                       const char        *format,
                                                       ...) G_GNUC_PRINTF (4, 5);

ANOT_AVAILABLE_IN_ALL
void               anot_method_context_complete_async (AnotMethodContext   *self,
                                                       const char          *role,
                                                       const char          *system_prompt,
                                                       const char          *prompt,
                                                       GCancellable        *cancellable,
                                                       GAsyncReadyCallback  callback,
                                                       gpointer             user_data);
ANOT_AVAILABLE_IN_ALL
void               anot_method_context_complete_request_async (AnotMethodContext   *self,
                                                       const char          *role,
                                                       AnotChatRequest     *request,
                                                       GCancellable        *cancellable,
                                                       GAsyncReadyCallback  callback,
                                                       gpointer             user_data);
ANOT_AVAILABLE_IN_ALL
AnotCompletion    *anot_method_context_complete_finish (AnotMethodContext  *self,
                                                       GAsyncResult        *result,
                                                       GError             **error);
ANOT_AVAILABLE_IN_ALL
gboolean           anot_method_context_check_fit      (AnotMethodContext   *self,
                                                       const char          *role,
                                                       const char          *system_prompt,
                                                       const char          *prompt,
                                                       guint64             *prompt_tokens,
                                                       guint64             *max_prompt_tokens,
                                                       GError             **error);
ANOT_AVAILABLE_IN_ALL
gboolean           anot_method_context_check_fit_counted (AnotMethodContext *self,
                                                       const char          *role,
                                                       const char          *system_prompt,
                                                       const char          *prompt,
                                                       guint64             *counted_tokens,
                                                       guint64             *counted_bytes,
                                                       guint64             *max_prompt_tokens);

ANOT_AVAILABLE_IN_ALL
void                anot_method_context_declare_max_calls (AnotMethodContext *self,
                                                           guint              max_calls);
ANOT_AVAILABLE_IN_ALL
guint               anot_method_context_get_max_calls (AnotMethodContext *self);

G_END_DECLS
