/* anot-debug-log.c: the run's debug.log
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "anot-debug-log.h"

#include "anot-error.h"

#include <string.h>

/**
 * AnotDebugLog:
 *
 * The `debug.log` of a run, written at the level of the `ANOT_DEBUG`
 * environment variable (see [enum@Anot.DebugLevel]), one line per event
 * in the format of the original framework:
 *
 * ```
 * [14:03:07.215] [P1:R01] Starting exploration: I need a cafe...
 * [14:03:07.981] [LLM:R01] default openai:gpt-5-nano 1203+88 tokens 766 ms
 * ```
 *
 * Messages of level 3 (prompts, responses) span several lines.  Nothing
 * from HTTP headers, and no API key, is ever written.  Writing is
 * serialised, so any thread may log.
 */

struct _AnotDebugLog
{
  GObject parent_instance;

  GMutex lock;
  GOutputStream *stream;
  AnotDebugLevel level;
};

G_DEFINE_FINAL_TYPE (AnotDebugLog, anot_debug_log, G_TYPE_OBJECT)

static void
anot_debug_log_finalize (GObject *object)
{
  AnotDebugLog *self = ANOT_DEBUG_LOG (object);

  if (self->stream != NULL)
    g_output_stream_close (self->stream, NULL, NULL);
  g_clear_object (&self->stream);
  g_mutex_clear (&self->lock);

  G_OBJECT_CLASS (anot_debug_log_parent_class)->finalize (object);
}

static void
anot_debug_log_class_init (AnotDebugLogClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = anot_debug_log_finalize;
}

static void
anot_debug_log_init (AnotDebugLog *self)
{
  g_mutex_init (&self->lock);
}

/**
 * anot_debug_log_new:
 * @path: the log file, appended to (created when missing)
 * @level: the most detailed level written
 * @error: return location for a #GError
 *
 * Returns: (transfer full) (nullable): a log, or %NULL with @error set
 *   (%ANOT_ERROR_IO)
 */
AnotDebugLog *
anot_debug_log_new (const char      *path,
                    AnotDebugLevel   level,
                    GError         **error)
{
  g_autoptr(GFile) file = NULL;
  g_autoptr(GFileOutputStream) stream = NULL;
  g_autoptr(GError) local_error = NULL;

  g_return_val_if_fail (path != NULL, NULL);

  file = g_file_new_for_path (path);
  stream = g_file_append_to (file, G_FILE_CREATE_NONE, NULL, &local_error);
  if (stream == NULL)
    {
      g_set_error (error, ANOT_ERROR, ANOT_ERROR_IO, "Cannot open %s: %s", path,
                   local_error->message);
      return NULL;
    }
  return anot_debug_log_new_for_stream (G_OUTPUT_STREAM (stream), level);
}

/**
 * anot_debug_log_new_for_stream:
 * @stream: where lines go
 * @level: the most detailed level written
 *
 * Returns: (transfer full): a log
 */
AnotDebugLog *
anot_debug_log_new_for_stream (GOutputStream  *stream,
                               AnotDebugLevel  level)
{
  AnotDebugLog *self;

  g_return_val_if_fail (G_IS_OUTPUT_STREAM (stream), NULL);

  self = g_object_new (ANOT_TYPE_DEBUG_LOG, NULL);
  self->stream = g_object_ref (stream);
  self->level = MIN (level, ANOT_DEBUG_LEVEL_FULL);
  return self;
}

/**
 * anot_debug_log_get_level:
 * @self: an #AnotDebugLog
 *
 * Returns: the most detailed level written
 */
AnotDebugLevel
anot_debug_log_get_level (AnotDebugLog *self)
{
  g_return_val_if_fail (ANOT_IS_DEBUG_LOG (self), ANOT_DEBUG_LEVEL_OFF);
  return self->level;
}

/**
 * anot_debug_log_write:
 * @self: an #AnotDebugLog
 * @level: the level of the message; nothing is written above the log's
 * @phase: (nullable): a short tag, e.g. `P1`, `LLM`, `RUN`
 * @request_id: (nullable): the request, or %NULL (written `?`)
 * @message: the text
 *
 * Appends `[HH:MM:SS.mmm] [PHASE:REQUEST] message` and flushes, so
 * `tail -f debug.log` follows a run.
 */
void
anot_debug_log_write (AnotDebugLog   *self,
                      AnotDebugLevel  level,
                      const char     *phase,
                      const char     *request_id,
                      const char     *message)
{
  g_autoptr(GDateTime) now = NULL;
  g_autofree char *time = NULL;
  g_autofree char *line = NULL;

  g_return_if_fail (ANOT_IS_DEBUG_LOG (self));
  g_return_if_fail (message != NULL);

  if (level == ANOT_DEBUG_LEVEL_OFF || level > self->level)
    return;

  now = g_date_time_new_now_local ();
  time = g_date_time_format (now, "%H:%M:%S");
  line = g_strdup_printf ("[%s.%03d] [%s:%s] %s\n", time,
                          g_date_time_get_microsecond (now) / 1000,
                          phase ? phase : "-", request_id ? request_id : "?", message);

  g_mutex_lock (&self->lock);
  g_output_stream_write_all (self->stream, line, strlen (line), NULL, NULL, NULL);
  g_output_stream_flush (self->stream, NULL, NULL);
  g_mutex_unlock (&self->lock);
}

/**
 * anot_debug_level_from_string:
 * @text: (nullable): the value of `ANOT_DEBUG`, or %NULL
 * @error: return location for a #GError
 *
 * Parses a debug level: `0` to `3`, or `off`, `summary`, `verbose`,
 * `full`.  %NULL and the empty string are level 0.
 *
 * Returns: the level; %ANOT_DEBUG_LEVEL_OFF with @error set
 *   (%ANOT_ERROR_INVALID_ARGUMENT) for anything else
 */
AnotDebugLevel
anot_debug_level_from_string (const char  *text,
                              GError     **error)
{
  static const char * const names[] = { "off", "summary", "verbose", "full" };
  guint64 number;

  if (text == NULL || *text == '\0')
    return ANOT_DEBUG_LEVEL_OFF;
  if (g_ascii_string_to_unsigned (text, 10, 0, 3, &number, NULL))
    return (AnotDebugLevel) number;
  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    if (g_ascii_strcasecmp (text, names[i]) == 0)
      return (AnotDebugLevel) i;
  g_set_error (error, ANOT_ERROR, ANOT_ERROR_INVALID_ARGUMENT,
               "Invalid debug level “%s”: expected 0 (off), 1 (summary), 2 (verbose) or 3 (full)",
               text);
  return ANOT_DEBUG_LEVEL_OFF;
}
