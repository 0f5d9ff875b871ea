/* anot-expr.h: a sandboxed evaluator of Python expressions
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

#include "anot-error.h"

G_BEGIN_DECLS

#define ANOT_TYPE_EXPR (anot_expr_get_type ())
#define ANOT_TYPE_EXPR_SCOPE (anot_expr_scope_get_type ())

typedef struct _AnotExpr AnotExpr;
typedef struct _AnotExprScope AnotExprScope;

ANOT_AVAILABLE_IN_ALL
GType               anot_expr_get_type                (void) G_GNUC_CONST;

ANOT_AVAILABLE_IN_ALL
AnotExpr           *anot_expr_parse                   (const char          *source,
                                                       const char          *name,
                                                       GError             **error);
ANOT_AVAILABLE_IN_ALL
AnotExpr           *anot_expr_ref                     (AnotExpr            *self);
ANOT_AVAILABLE_IN_ALL
void                anot_expr_unref                   (AnotExpr            *self);
ANOT_AVAILABLE_IN_ALL
const char         *anot_expr_get_source              (AnotExpr            *self);
ANOT_AVAILABLE_IN_ALL
const char         *anot_expr_get_name                (AnotExpr            *self);
ANOT_AVAILABLE_IN_ALL
const char * const *anot_expr_get_free_names          (AnotExpr            *self);
ANOT_AVAILABLE_IN_ALL
JsonNode           *anot_expr_evaluate                (AnotExpr            *self,
                                                       AnotExprScope       *scope,
                                                       GError             **error);
ANOT_AVAILABLE_IN_ALL
gboolean            anot_expr_evaluate_to_scope       (AnotExpr            *self,
                                                       AnotExprScope       *scope,
                                                       const char          *variable,
                                                       GError             **error);

ANOT_AVAILABLE_IN_ALL
const char * const *anot_expr_list_builtins           (void);
ANOT_AVAILABLE_IN_ALL
const char * const *anot_expr_get_original_builtins   (void);

ANOT_AVAILABLE_IN_ALL
GType               anot_expr_scope_get_type          (void) G_GNUC_CONST;

ANOT_AVAILABLE_IN_ALL
AnotExprScope      *anot_expr_scope_new               (void);
ANOT_AVAILABLE_IN_ALL
AnotExprScope      *anot_expr_scope_ref               (AnotExprScope       *self);
ANOT_AVAILABLE_IN_ALL
void                anot_expr_scope_unref             (AnotExprScope       *self);
ANOT_AVAILABLE_IN_ALL
void                anot_expr_scope_set               (AnotExprScope       *self,
                                                       const char          *name,
                                                       JsonNode            *value);
ANOT_AVAILABLE_IN_ALL
void                anot_expr_scope_set_int           (AnotExprScope       *self,
                                                       const char          *name,
                                                       gint64               value);
ANOT_AVAILABLE_IN_ALL
void                anot_expr_scope_set_double        (AnotExprScope       *self,
                                                       const char          *name,
                                                       double               value);
ANOT_AVAILABLE_IN_ALL
void                anot_expr_scope_set_string        (AnotExprScope       *self,
                                                       const char          *name,
                                                       const char          *value);
ANOT_AVAILABLE_IN_ALL
JsonNode           *anot_expr_scope_get               (AnotExprScope       *self,
                                                       const char          *name);
ANOT_AVAILABLE_IN_ALL
gboolean            anot_expr_scope_contains          (AnotExprScope       *self,
                                                       const char          *name);
ANOT_AVAILABLE_IN_ALL
gboolean            anot_expr_scope_remove            (AnotExprScope       *self,
                                                       const char          *name);
ANOT_AVAILABLE_IN_ALL
char              **anot_expr_scope_list_names        (AnotExprScope       *self);
ANOT_AVAILABLE_IN_ALL
void                anot_expr_scope_set_builtins      (AnotExprScope       *self,
                                                       const char * const  *names);
ANOT_AVAILABLE_IN_ALL
gboolean            anot_expr_scope_has_builtin       (AnotExprScope       *self,
                                                       const char          *name);
ANOT_AVAILABLE_IN_ALL
void                anot_expr_scope_set_limits        (AnotExprScope       *self,
                                                       guint64              max_steps,
                                                       guint                max_items,
                                                       gsize                max_string_bytes);
ANOT_AVAILABLE_IN_ALL
guint64             anot_expr_scope_get_last_steps    (AnotExprScope       *self);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (AnotExpr, anot_expr_unref)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (AnotExprScope, anot_expr_scope_unref)

G_END_DECLS
