/* anot-lwt-result.h
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

#include "anot-lwt-script.h"

G_BEGIN_DECLS

#define ANOT_TYPE_LWT_RESULT (anot_lwt_result_get_type ())
ANOT_AVAILABLE_IN_ALL
G_DECLARE_FINAL_TYPE (AnotLwtResult, anot_lwt_result, ANOT, LWT_RESULT, GObject)

ANOT_AVAILABLE_IN_ALL
AnotLwtScript *anot_lwt_result_get_script            (AnotLwtResult *self);
ANOT_AVAILABLE_IN_ALL
const char    *anot_lwt_result_get_output            (AnotLwtResult *self,
                                                      const char    *id);
ANOT_AVAILABLE_IN_ALL
const char    *anot_lwt_result_get_final_output      (AnotLwtResult *self);
ANOT_AVAILABLE_IN_ALL
const char    *anot_lwt_result_get_error             (AnotLwtResult *self,
                                                      const char    *id);
ANOT_AVAILABLE_IN_ALL
const char    *anot_lwt_result_get_prompt            (AnotLwtResult *self,
                                                      const char    *id);
ANOT_AVAILABLE_IN_ALL
double         anot_lwt_result_get_latency_ms        (AnotLwtResult *self,
                                                      const char    *id);
ANOT_AVAILABLE_IN_ALL
double         anot_lwt_result_get_start_ms          (AnotLwtResult *self,
                                                      const char    *id);
ANOT_AVAILABLE_IN_ALL
guint64        anot_lwt_result_get_prompt_tokens     (AnotLwtResult *self,
                                                      const char    *id);
ANOT_AVAILABLE_IN_ALL
guint64        anot_lwt_result_get_completion_tokens (AnotLwtResult *self,
                                                      const char    *id);
ANOT_AVAILABLE_IN_ALL
gboolean       anot_lwt_result_get_cached            (AnotLwtResult *self,
                                                      const char    *id);
ANOT_AVAILABLE_IN_ALL
guint          anot_lwt_result_get_n_failed          (AnotLwtResult *self);
ANOT_AVAILABLE_IN_ALL
guint          anot_lwt_result_get_n_calls           (AnotLwtResult *self);
ANOT_AVAILABLE_IN_ALL
guint          anot_lwt_result_get_max_in_flight     (AnotLwtResult *self);
ANOT_AVAILABLE_IN_ALL
double         anot_lwt_result_get_wall_ms           (AnotLwtResult *self);
ANOT_AVAILABLE_IN_ALL
guint64        anot_lwt_result_get_total_prompt_tokens     (AnotLwtResult *self);
ANOT_AVAILABLE_IN_ALL
guint64        anot_lwt_result_get_total_completion_tokens (AnotLwtResult *self);
ANOT_AVAILABLE_IN_ALL
JsonNode      *anot_lwt_result_to_json               (AnotLwtResult *self,
                                                      guint          max_output_length);

G_END_DECLS
