/* anot-lwt-script.h
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#if !defined(ANOT_INSIDE) && !defined(ANOT_COMPILATION)
#error "Only <anot/anot.h> can be included directly."
#endif

#include "anot-visibility.h"

#include <glib-object.h>

#include "anot-lwt-step.h"

G_BEGIN_DECLS

/**
 * AnotLwtParseFlags:
 * @ANOT_LWT_PARSE_FLAGS_NONE: strict: every line must be a step, a blank
 *   line or a comment, and the script must be valid (see
 *   anot_lwt_script_validate())
 * @ANOT_LWT_PARSE_FLAGS_LENIENT: read scripts as the original framework
 *   did, for model output: find a step anywhere on a line, skip lines
 *   without one (and text after a step), let a later step replace an
 *   earlier one with the same id, run cycles as one last layer.  What is
 *   skipped is listed by anot_lwt_script_get_warnings().
 *
 * How anot_lwt_script_parse() treats what is not a valid step.
 */
typedef enum /*< flags >*/ {
  ANOT_LWT_PARSE_FLAGS_NONE    = 0,
  ANOT_LWT_PARSE_FLAGS_LENIENT = 1 << 0,
} AnotLwtParseFlags;

#define ANOT_TYPE_LWT_SCRIPT (anot_lwt_script_get_type ())
ANOT_AVAILABLE_IN_ALL
G_DECLARE_FINAL_TYPE (AnotLwtScript, anot_lwt_script, ANOT, LWT_SCRIPT, GObject)

ANOT_AVAILABLE_IN_ALL
AnotLwtScript *anot_lwt_script_new              (void);
ANOT_AVAILABLE_IN_ALL
AnotLwtScript *anot_lwt_script_parse            (const char         *text,
                                                 AnotLwtParseFlags   flags,
                                                 GError            **error);
ANOT_AVAILABLE_IN_ALL
AnotLwtStep   *anot_lwt_script_add_step         (AnotLwtScript      *self,
                                                 const char         *id,
                                                 const char         *instruction,
                                                 GError            **error);
ANOT_AVAILABLE_IN_ALL
gboolean       anot_lwt_script_validate         (AnotLwtScript      *self,
                                                 GError            **error);
ANOT_AVAILABLE_IN_ALL
guint          anot_lwt_script_get_n_steps      (AnotLwtScript      *self);
ANOT_AVAILABLE_IN_ALL
AnotLwtStep   *anot_lwt_script_get_step         (AnotLwtScript      *self,
                                                 guint               position);
ANOT_AVAILABLE_IN_ALL
AnotLwtStep   *anot_lwt_script_lookup_step      (AnotLwtScript      *self,
                                                 const char         *id);
ANOT_AVAILABLE_IN_ALL
guint          anot_lwt_script_get_n_layers     (AnotLwtScript      *self);
ANOT_AVAILABLE_IN_ALL
char         **anot_lwt_script_list_layer       (AnotLwtScript      *self,
                                                 guint               layer);
ANOT_AVAILABLE_IN_ALL
int            anot_lwt_script_get_step_layer   (AnotLwtScript      *self,
                                                 const char         *id);
ANOT_AVAILABLE_IN_ALL
gboolean       anot_lwt_script_has_cycle        (AnotLwtScript      *self);
ANOT_AVAILABLE_IN_ALL
AnotLwtStep   *anot_lwt_script_get_output_step  (AnotLwtScript      *self);
ANOT_AVAILABLE_IN_ALL
const char * const *anot_lwt_script_get_warnings (AnotLwtScript     *self);
ANOT_AVAILABLE_IN_ALL
char          *anot_lwt_script_to_string        (AnotLwtScript      *self);

ANOT_AVAILABLE_IN_ALL
gboolean       anot_lwt_is_reserved_name        (const char         *name);

G_END_DECLS
