/* anot-formatter.h
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

#include "anot-item.h"
#include "anot-method-context.h"

G_BEGIN_DECLS

/**
 * AnotFormatStyle:
 * @ANOT_FORMAT_STYLE_JSON: the original framework's string context:
 *   `Restaurants:` and, for every candidate, its record as Python's
 *   `json.dumps(item, indent=2)` writes it, with an `"index"` key
 * @ANOT_FORMAT_STYLE_PYTHON: the original's dict context as a Python
 *   f-string shows it: `repr()` of `{'items': {'1': {...}, ...}}` (what
 *   Weaver's model saw)
 * @ANOT_FORMAT_STYLE_TEXT: a compact plain-text listing of the same fields,
 *   one `key: value` line each, for models or budgets that cannot take the
 *   full JSON
 *
 * How [class@Anot.Formatter] writes the candidates.
 */
typedef enum {
  ANOT_FORMAT_STYLE_JSON,
  ANOT_FORMAT_STYLE_PYTHON,
  ANOT_FORMAT_STYLE_TEXT,
} AnotFormatStyle;

#define ANOT_TYPE_FORMATTER (anot_formatter_get_type ())

ANOT_AVAILABLE_IN_ALL
G_DECLARE_FINAL_TYPE (AnotFormatter, anot_formatter, ANOT, FORMATTER, GObject)

ANOT_AVAILABLE_IN_ALL
AnotFormatter      *anot_formatter_new                  (void);
ANOT_AVAILABLE_IN_ALL
void                anot_formatter_set_domain           (AnotFormatter      *self,
                                                         AnotDomain         *domain);

ANOT_AVAILABLE_IN_ALL
gboolean            anot_formatter_apply_options        (AnotFormatter      *self,
                                                         AnotMethodContext  *context,
                                                         GError            **error);

ANOT_AVAILABLE_IN_ALL
AnotFormatStyle     anot_formatter_get_style            (AnotFormatter      *self);
ANOT_AVAILABLE_IN_ALL
void                anot_formatter_set_style            (AnotFormatter      *self,
                                                         AnotFormatStyle     style);
ANOT_AVAILABLE_IN_ALL
int                 anot_formatter_get_max_reviews      (AnotFormatter      *self);
ANOT_AVAILABLE_IN_ALL
void                anot_formatter_set_max_reviews      (AnotFormatter      *self,
                                                         int                 max_reviews);
ANOT_AVAILABLE_IN_ALL
int                 anot_formatter_get_review_chars     (AnotFormatter      *self);
ANOT_AVAILABLE_IN_ALL
void                anot_formatter_set_review_chars     (AnotFormatter      *self,
                                                         int                 review_chars);
ANOT_AVAILABLE_IN_ALL
int                 anot_formatter_get_item_chars       (AnotFormatter      *self);
ANOT_AVAILABLE_IN_ALL
void                anot_formatter_set_item_chars       (AnotFormatter      *self,
                                                         int                 item_chars);
ANOT_AVAILABLE_IN_ALL
const char         *anot_formatter_get_truncation_mark  (AnotFormatter      *self);
ANOT_AVAILABLE_IN_ALL
void                anot_formatter_set_truncation_mark  (AnotFormatter      *self,
                                                         const char         *mark);
ANOT_AVAILABLE_IN_ALL
guint               anot_formatter_get_first_index      (AnotFormatter      *self);
ANOT_AVAILABLE_IN_ALL
void                anot_formatter_set_first_index      (AnotFormatter      *self,
                                                         guint               first_index);
ANOT_AVAILABLE_IN_ALL
gboolean            anot_formatter_get_ensure_ascii     (AnotFormatter      *self);
ANOT_AVAILABLE_IN_ALL
void                anot_formatter_set_ensure_ascii     (AnotFormatter      *self,
                                                         gboolean            ensure_ascii);
ANOT_AVAILABLE_IN_ALL
const char * const *anot_formatter_get_exclude          (AnotFormatter      *self);
ANOT_AVAILABLE_IN_ALL
void                anot_formatter_set_exclude          (AnotFormatter      *self,
                                                         const char * const *exclude);

ANOT_AVAILABLE_IN_ALL
char               *anot_formatter_format               (AnotFormatter      *self,
                                                         GPtrArray          *candidates,
                                                         JsonNode          **stats);
ANOT_AVAILABLE_IN_ALL
char               *anot_formatter_format_item          (AnotFormatter      *self,
                                                         AnotItem           *item,
                                                         guint               number);
ANOT_AVAILABLE_IN_ALL
JsonNode           *anot_formatter_build_item           (AnotFormatter      *self,
                                                         AnotItem           *item,
                                                         guint               number);
ANOT_AVAILABLE_IN_ALL
JsonNode           *anot_formatter_build_context        (AnotFormatter      *self,
                                                         GPtrArray          *candidates);

ANOT_AVAILABLE_IN_ALL
char               *anot_json_dumps                     (JsonNode           *node,
                                                         int                 indent,
                                                         gboolean            ensure_ascii);
ANOT_AVAILABLE_IN_ALL
char               *anot_json_to_python_repr            (JsonNode           *node);
ANOT_AVAILABLE_IN_ALL
char               *anot_json_to_validator_repr         (JsonNode           *node);

G_END_DECLS
