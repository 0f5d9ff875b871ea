/* anot-lwt-private.h: the instruction templates of LWT steps
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#if !defined(ANOT_COMPILATION)
#error "anot-lwt-private.h is private to libanot."
#endif

#include <json-glib/json-glib.h>

#include "anot-lwt-result.h"
#include "anot-lwt-script.h"
#include "anot-lwt-step.h"
#include "anot-data-path-private.h"
#include "anot-pyliteral-private.h"

G_BEGIN_DECLS

typedef struct {
  gboolean  is_slice;
  char     *key;           /* !is_slice */
  gboolean  has_start;
  gboolean  has_end;
  gint64    start;
  gint64    end;
} AnotLwtAccessor;

typedef enum {
  ANOT_LWT_SEGMENT_TEXT,
  ANOT_LWT_SEGMENT_REFERENCE,
} AnotLwtSegmentKind;

typedef struct {
  AnotLwtSegmentKind  kind;
  char               *text;       /* TEXT: the literal; REFERENCE: the source */
  char               *name;       /* REFERENCE */
  gboolean            paren;      /* {(name)} rather than {name} */
  gboolean            resolved;   /* a bare {name} that names a step or a reserved name */
  GArray             *accessors;  /* AnotLwtAccessor, NULL if none */
  guint               offset;     /* byte offset in the instruction */
} AnotLwtSegment;

AnotLwtStep *_anot_lwt_step_new              (const char  *id,
                                              const char  *instruction,
                                              guint        line,
                                              guint        column);
GArray      *_anot_lwt_step_get_segments     (AnotLwtStep *self);
void         _anot_lwt_step_set_dependencies (AnotLwtStep *self,
                                              GPtrArray   *dependencies);

/* Keeps the first max/2 and last max/4 characters around a marker. */
char        *_anot_lwt_truncate_middle       (const char  *text,
                                              guint        max_length);

/* What the executor records of one step; owned by the AnotLwtResult. */
typedef struct {
  char     *output;
  char     *error;            /* NULL unless the call failed */
  char     *prompt;
  double    start_ms;         /* since the execution started */
  double    latency_ms;       /* from issuing the call to its answer */
  guint64   prompt_tokens;
  guint64   completion_tokens;
  gboolean  cached;           /* answered by an identical earlier prompt */
  gboolean  done;
  gboolean  called;           /* an LLM call was made for it */
} AnotLwtStepRecord;

AnotLwtResult     *_anot_lwt_result_new        (AnotLwtScript *script);
AnotLwtStepRecord *_anot_lwt_result_get_record (AnotLwtResult *self,
                                                guint          position);
void               _anot_lwt_result_finish     (AnotLwtResult *self,
                                                double         wall_ms,
                                                guint          max_in_flight);

G_END_DECLS
