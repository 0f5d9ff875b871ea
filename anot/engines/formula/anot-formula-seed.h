/* anot-formula-seed.h: the Formula Seed of General ANoT
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#if !defined(ANOT_INSIDE) && !defined(ANOT_COMPILATION)
#error "Only <anot/anot.h> can be included directly."
#endif

#include "anot-visibility.h"

#include <glib-object.h>
#include <json-glib/json-glib.h>

#include "anot-expr.h"
#include "anot-item.h"
#include "anot-method-context.h"

G_BEGIN_DECLS

#define ANOT_TYPE_FORMULA_SEED (anot_formula_seed_get_type ())

/**
 * ANOT_FORMULA_SEED_COMPILE_ROLE:
 *
 * The role of Phase 1's LLM calls (see anot_formula_seed_compile_async());
 * without a route of its own it uses %ANOT_DEFAULT_ROLE's.
 */
#define ANOT_FORMULA_SEED_COMPILE_ROLE "general_anot.compile"

/**
 * ANOT_FORMULA_SEED_EXTRACT_ROLE:
 *
 * The role of Phase 2's extraction calls (see
 * anot_formula_seed_execute_async()); without a route of its own it uses
 * %ANOT_DEFAULT_ROLE's.
 */
#define ANOT_FORMULA_SEED_EXTRACT_ROLE "general_anot.extract"

typedef struct _AnotFormulaSeed AnotFormulaSeed;

ANOT_AVAILABLE_IN_ALL
GType               anot_formula_seed_get_type                   (void) G_GNUC_CONST;

ANOT_AVAILABLE_IN_ALL
AnotFormulaSeed    *anot_formula_seed_new_from_json              (JsonNode         *node,
                                                                  gboolean          allow_unresolved,
                                                                  GError          **error);
ANOT_AVAILABLE_IN_ALL
AnotFormulaSeed    *anot_formula_seed_new_from_data              (const char       *data,
                                                                  gssize            length,
                                                                  gboolean          allow_unresolved,
                                                                  GError          **error);
ANOT_AVAILABLE_IN_ALL
AnotFormulaSeed    *anot_formula_seed_load                       (const char       *path,
                                                                  gboolean          allow_unresolved,
                                                                  GError          **error);
ANOT_AVAILABLE_IN_ALL
AnotFormulaSeed    *anot_formula_seed_ref                        (AnotFormulaSeed  *self);
ANOT_AVAILABLE_IN_ALL
void                anot_formula_seed_unref                      (AnotFormulaSeed  *self);

ANOT_AVAILABLE_IN_ALL
JsonNode           *anot_formula_seed_to_json                    (AnotFormulaSeed  *self);
ANOT_AVAILABLE_IN_ALL
gboolean            anot_formula_seed_save                       (AnotFormulaSeed  *self,
                                                                  const char       *path,
                                                                  GError          **error);

ANOT_AVAILABLE_IN_ALL
const char         *anot_formula_seed_get_task_name              (AnotFormulaSeed  *self);
ANOT_AVAILABLE_IN_ALL
const char * const *anot_formula_seed_get_filter_keywords        (AnotFormulaSeed  *self);
ANOT_AVAILABLE_IN_ALL
const char         *anot_formula_seed_get_extraction_prompt      (AnotFormulaSeed  *self);
ANOT_AVAILABLE_IN_ALL
guint               anot_formula_seed_get_n_extraction_fields    (AnotFormulaSeed  *self);
ANOT_AVAILABLE_IN_ALL
const char         *anot_formula_seed_get_extraction_field_name  (AnotFormulaSeed  *self,
                                                                  guint             position);
ANOT_AVAILABLE_IN_ALL
const char         *anot_formula_seed_get_extraction_field_type  (AnotFormulaSeed  *self,
                                                                  guint             position);
ANOT_AVAILABLE_IN_ALL
const char * const *anot_formula_seed_get_extraction_field_values (AnotFormulaSeed *self,
                                                                  guint             position);
ANOT_AVAILABLE_IN_ALL
guint               anot_formula_seed_get_n_steps                (AnotFormulaSeed  *self);
ANOT_AVAILABLE_IN_ALL
const char         *anot_formula_seed_get_step_name              (AnotFormulaSeed  *self,
                                                                  guint             position);
ANOT_AVAILABLE_IN_ALL
const char         *anot_formula_seed_get_step_formula           (AnotFormulaSeed  *self,
                                                                  guint             position);
ANOT_AVAILABLE_IN_ALL
AnotExpr           *anot_formula_seed_get_step_expr              (AnotFormulaSeed  *self,
                                                                  guint             position);
ANOT_AVAILABLE_IN_ALL
const char * const *anot_formula_seed_get_output_fields          (AnotFormulaSeed  *self);
ANOT_AVAILABLE_IN_ALL
const char * const *anot_formula_seed_get_warnings               (AnotFormulaSeed  *self);

ANOT_AVAILABLE_IN_ALL
gboolean            anot_formula_seed_matches_text               (AnotFormulaSeed  *self,
                                                                  const char       *text);
ANOT_AVAILABLE_IN_ALL
char               *anot_formula_seed_format_prompt              (AnotFormulaSeed  *self,
                                                                  const char       *review_text,
                                                                  const char       *review_date,
                                                                  double            review_stars,
                                                                  gint64            review_useful);
ANOT_AVAILABLE_IN_ALL
JsonObject         *anot_formula_seed_make_extraction            (AnotFormulaSeed  *self,
                                                                  JsonObject       *reply,
                                                                  gint64            review_idx,
                                                                  const char       *review_date,
                                                                  double            review_stars,
                                                                  gint64            review_useful,
                                                                  guint            *n_invalid);
ANOT_AVAILABLE_IN_ALL
AnotExprScope      *anot_formula_seed_new_scope                  (AnotFormulaSeed  *self,
                                                                  JsonArray        *extractions,
                                                                  const char       *categories,
                                                                  gboolean          original);
ANOT_AVAILABLE_IN_ALL
guint               anot_formula_seed_evaluate                   (AnotFormulaSeed  *self,
                                                                  AnotExprScope    *scope,
                                                                  gboolean          original);
ANOT_AVAILABLE_IN_ALL
JsonObject         *anot_formula_seed_compute                    (AnotFormulaSeed  *self,
                                                                  JsonArray        *extractions,
                                                                  const char       *categories,
                                                                  gboolean          original,
                                                                  guint            *n_failed);

ANOT_AVAILABLE_IN_ALL
JsonNode           *anot_formula_seed_get_json_schema            (void);
ANOT_AVAILABLE_IN_ALL
char               *anot_formula_seed_compile_cache_path         (const char       *cache_dir,
                                                                  const char       *task_formula);
ANOT_AVAILABLE_IN_ALL
char               *anot_formula_seed_compute_text               (AnotFormulaSeed  *self,
                                                                  const char       *extractions,
                                                                  gssize            length,
                                                                  const char       *categories,
                                                                  gboolean          original,
                                                                  guint            *n_failed,
                                                                  GError          **error);
ANOT_AVAILABLE_IN_ALL
void                anot_formula_seed_compile_async              (AnotMethodContext *context,
                                                                  const char       *task_formula,
                                                                  const char       *cache_dir,
                                                                  GCancellable     *cancellable,
                                                                  GAsyncReadyCallback callback,
                                                                  gpointer          user_data);
ANOT_AVAILABLE_IN_ALL
AnotFormulaSeed    *anot_formula_seed_compile_finish             (GAsyncResult     *result,
                                                                  GError          **error);
ANOT_AVAILABLE_IN_ALL
void                anot_formula_seed_execute_async              (AnotFormulaSeed  *self,
                                                                  AnotMethodContext *context,
                                                                  AnotItem         *item,
                                                                  GCancellable     *cancellable,
                                                                  GAsyncReadyCallback callback,
                                                                  gpointer          user_data);
ANOT_AVAILABLE_IN_ALL
JsonObject         *anot_formula_seed_execute_finish             (AnotFormulaSeed  *self,
                                                                  GAsyncResult     *result,
                                                                  GError          **error);
ANOT_AVAILABLE_IN_ALL
char               *anot_formula_seed_execute_finish_text        (AnotFormulaSeed  *self,
                                                                  GAsyncResult     *result,
                                                                  gsize            *length,
                                                                  GError          **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (AnotFormulaSeed, anot_formula_seed_unref)

G_END_DECLS
