/* anot-debug-log.h
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#if !defined(ANOT_INSIDE) && !defined(ANOT_COMPILATION)
#error "Only <anot/anot.h> can be included directly."
#endif

#include "anot-visibility.h"

#include <gio/gio.h>

G_BEGIN_DECLS

/**
 * AnotDebugLevel:
 * @ANOT_DEBUG_LEVEL_OFF: nothing extra
 * @ANOT_DEBUG_LEVEL_SUMMARY: phase transitions and per-request summaries
 * @ANOT_DEBUG_LEVEL_VERBOSE: per-item progress and one line per LLM call
 * @ANOT_DEBUG_LEVEL_FULL: complete prompts and responses
 *
 * The levels of `ANOT_DEBUG`.
 */
typedef enum {
  ANOT_DEBUG_LEVEL_OFF,
  ANOT_DEBUG_LEVEL_SUMMARY,
  ANOT_DEBUG_LEVEL_VERBOSE,
  ANOT_DEBUG_LEVEL_FULL,
} AnotDebugLevel;

#define ANOT_TYPE_DEBUG_LOG (anot_debug_log_get_type ())
ANOT_AVAILABLE_IN_ALL
G_DECLARE_FINAL_TYPE (AnotDebugLog, anot_debug_log, ANOT, DEBUG_LOG, GObject)

ANOT_AVAILABLE_IN_ALL
AnotDebugLog   *anot_debug_log_new            (const char     *path,
                                               AnotDebugLevel  level,
                                               GError        **error);
ANOT_AVAILABLE_IN_ALL
AnotDebugLog   *anot_debug_log_new_for_stream (GOutputStream  *stream,
                                               AnotDebugLevel  level);
ANOT_AVAILABLE_IN_ALL
AnotDebugLevel  anot_debug_log_get_level      (AnotDebugLog   *self);
ANOT_AVAILABLE_IN_ALL
void            anot_debug_log_write          (AnotDebugLog   *self,
                                               AnotDebugLevel  level,
                                               const char     *phase,
                                               const char     *request_id,
                                               const char     *message);
ANOT_AVAILABLE_IN_ALL
AnotDebugLevel  anot_debug_level_from_string  (const char     *text,
                                               GError        **error);

G_END_DECLS
