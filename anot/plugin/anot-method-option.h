/* anot-method-option.h
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

#include "anot-method-context.h"

G_BEGIN_DECLS

/**
 * AnotMethodOptionType:
 * @ANOT_METHOD_OPTION_INT: a whole number in [minimum, maximum]
 * @ANOT_METHOD_OPTION_DOUBLE: a finite number in [minimum, maximum]
 * @ANOT_METHOD_OPTION_BOOLEAN: `true`/`false`, `yes`/`no` or `1`/`0`
 * @ANOT_METHOD_OPTION_CHOICE: one of a list of words
 * @ANOT_METHOD_OPTION_STRING: any text (a path, a name)
 *
 * The kind of value a method option takes.
 */
typedef enum
{
  ANOT_METHOD_OPTION_INT,
  ANOT_METHOD_OPTION_DOUBLE,
  ANOT_METHOD_OPTION_BOOLEAN,
  ANOT_METHOD_OPTION_CHOICE,
  ANOT_METHOD_OPTION_STRING,
} AnotMethodOptionType;

#define ANOT_TYPE_METHOD_OPTION (anot_method_option_get_type ())
ANOT_AVAILABLE_IN_ALL
G_DECLARE_FINAL_TYPE (AnotMethodOption, anot_method_option, ANOT, METHOD_OPTION, GObject)

ANOT_AVAILABLE_IN_ALL
AnotMethodOption     *anot_method_option_new_int      (const char          *name,
                                                       gint64               minimum,
                                                       gint64               maximum,
                                                       gint64               default_value,
                                                       const char          *doc);
ANOT_AVAILABLE_IN_ALL
AnotMethodOption     *anot_method_option_new_double   (const char          *name,
                                                       double               minimum,
                                                       double               maximum,
                                                       double               default_value,
                                                       const char          *doc);
ANOT_AVAILABLE_IN_ALL
AnotMethodOption     *anot_method_option_new_boolean  (const char          *name,
                                                       gboolean             default_value,
                                                       const char          *doc);
ANOT_AVAILABLE_IN_ALL
AnotMethodOption     *anot_method_option_new_choice   (const char          *name,
                                                       const char * const  *choices,
                                                       guint                default_index,
                                                       const char          *doc);
ANOT_AVAILABLE_IN_ALL
AnotMethodOption     *anot_method_option_new_string  (const char          *name,
                                                       const char          *default_value,
                                                       const char          *doc);
ANOT_AVAILABLE_IN_ALL
const char           *anot_method_option_get_name     (AnotMethodOption    *self);
ANOT_AVAILABLE_IN_ALL
const char           *anot_method_option_get_doc      (AnotMethodOption    *self);
ANOT_AVAILABLE_IN_ALL
AnotMethodOptionType  anot_method_option_get_value_type (AnotMethodOption  *self);
ANOT_AVAILABLE_IN_ALL
double                anot_method_option_get_minimum  (AnotMethodOption    *self);
ANOT_AVAILABLE_IN_ALL
double                anot_method_option_get_maximum  (AnotMethodOption    *self);
ANOT_AVAILABLE_IN_ALL
const char * const   *anot_method_option_get_choices  (AnotMethodOption    *self);
ANOT_AVAILABLE_IN_ALL
const char           *anot_method_option_get_default  (AnotMethodOption    *self);
ANOT_AVAILABLE_IN_ALL
const char           *anot_method_option_get_original_default (AnotMethodOption *self);
ANOT_AVAILABLE_IN_ALL
void                  anot_method_option_set_original_default (AnotMethodOption *self,
                                                               const char       *value);
ANOT_AVAILABLE_IN_ALL
AnotMethodOption     *anot_method_option_with_original_default (AnotMethodOption *self,
                                                                const char       *value);
ANOT_AVAILABLE_IN_ALL
gboolean              anot_method_option_get_original_fixed (AnotMethodOption *self);
ANOT_AVAILABLE_IN_ALL
void                  anot_method_option_set_original_fixed (AnotMethodOption *self,
                                                             gboolean          fixed);
ANOT_AVAILABLE_IN_ALL
AnotMethodOption     *anot_method_option_with_original_fixed (AnotMethodOption *self,
                                                              const char       *value);
ANOT_AVAILABLE_IN_ALL
void                  anot_method_option_set_applies_when (AnotMethodOption *self,
                                                           const char       *key,
                                                           const char       *value);
ANOT_AVAILABLE_IN_ALL
const char           *anot_method_option_get_applies_key (AnotMethodOption *self);
ANOT_AVAILABLE_IN_ALL
const char           *anot_method_option_get_applies_value (AnotMethodOption *self);
ANOT_AVAILABLE_IN_ALL
AnotMethodOption     *anot_method_option_with_applies_when (AnotMethodOption *self,
                                                            const char       *key,
                                                            const char       *value);
ANOT_AVAILABLE_IN_ALL
gboolean              anot_method_option_check_compat (AnotMethodOption  *self,
                                                       AnotCompatMode     compat,
                                                       const char        *text,
                                                       const char        *source,
                                                       const char        *prefix,
                                                       GError           **error);
ANOT_AVAILABLE_IN_ALL
char                 *anot_method_option_describe_type (AnotMethodOption   *self);
ANOT_AVAILABLE_IN_ALL
JsonNode             *anot_method_option_parse        (AnotMethodOption    *self,
                                                       const char          *text,
                                                       GError             **error);

G_END_DECLS
