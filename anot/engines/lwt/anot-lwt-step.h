/* anot-lwt-step.h
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

G_BEGIN_DECLS

/**
 * ANOT_LWT_DEFAULT_MAX_VALUE_LENGTH:
 *
 * The default limit, in characters, of one value substituted into an LWT
 * instruction (the original's 8000): longer values keep their first 4000
 * and last 2000 characters around a `...[TRUNCATED]...` marker.
 */
#define ANOT_LWT_DEFAULT_MAX_VALUE_LENGTH 8000

#define ANOT_TYPE_LWT_STEP (anot_lwt_step_get_type ())
ANOT_AVAILABLE_IN_ALL
G_DECLARE_FINAL_TYPE (AnotLwtStep, anot_lwt_step, ANOT, LWT_STEP, GObject)

ANOT_AVAILABLE_IN_ALL
const char  *anot_lwt_step_get_id           (AnotLwtStep  *self);
ANOT_AVAILABLE_IN_ALL
const char  *anot_lwt_step_get_instruction  (AnotLwtStep  *self);
ANOT_AVAILABLE_IN_ALL
guint        anot_lwt_step_get_line         (AnotLwtStep  *self);
ANOT_AVAILABLE_IN_ALL
guint        anot_lwt_step_get_column       (AnotLwtStep  *self);
ANOT_AVAILABLE_IN_ALL
const char * const *anot_lwt_step_get_dependencies (AnotLwtStep *self);
ANOT_AVAILABLE_IN_ALL
char       **anot_lwt_step_list_references  (AnotLwtStep  *self);
ANOT_AVAILABLE_IN_ALL
char        *anot_lwt_step_render           (AnotLwtStep  *self,
                                             JsonObject   *values,
                                             guint         max_value_length);
ANOT_AVAILABLE_IN_ALL
char        *anot_lwt_step_to_string        (AnotLwtStep  *self);

G_END_DECLS
