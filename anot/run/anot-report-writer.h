/* anot-report-writer.h
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#if !defined(ANOT_INSIDE) && !defined(ANOT_COMPILATION)
#error "Only <anot/anot.h> can be included directly."
#endif

#include "anot-visibility.h"

#include <gio/gio.h>

#include "anot-comparison.h"
#include "anot-results.h"

G_BEGIN_DECLS

/**
 * ANOT_REPORT_DEFAULT_TRACE_BUDGET:
 *
 * Bytes of traces a report embeds unless told otherwise (64 MiB).
 */
#define ANOT_REPORT_DEFAULT_TRACE_BUDGET (G_GUINT64_CONSTANT (64) * 1024 * 1024)

/**
 * ANOT_REPORT_DEFAULT_MAX_TEXT:
 *
 * Characters of one text in a trace (a prompt, an output) a report keeps
 * unless told otherwise.
 */
#define ANOT_REPORT_DEFAULT_MAX_TEXT 20000

#define ANOT_TYPE_REPORT_WRITER (anot_report_writer_get_type ())
ANOT_AVAILABLE_IN_ALL
G_DECLARE_FINAL_TYPE (AnotReportWriter, anot_report_writer, ANOT, REPORT_WRITER, GObject)

ANOT_AVAILABLE_IN_ALL
AnotReportWriter *anot_report_writer_new              (AnotResults       *results,
                                                       AnotComparison    *comparison);
ANOT_AVAILABLE_IN_ALL
void              anot_report_writer_set_title        (AnotReportWriter  *self,
                                                       const char        *title);
ANOT_AVAILABLE_IN_ALL
void              anot_report_writer_set_trace_budget (AnotReportWriter  *self,
                                                       guint64            bytes);
ANOT_AVAILABLE_IN_ALL
void              anot_report_writer_set_max_text     (AnotReportWriter  *self,
                                                       guint              chars);
ANOT_AVAILABLE_IN_ALL
gboolean          anot_report_writer_write            (AnotReportWriter  *self,
                                                       const char        *path,
                                                       GError           **error);
ANOT_AVAILABLE_IN_ALL
guint             anot_report_writer_get_n_traces     (AnotReportWriter  *self);
ANOT_AVAILABLE_IN_ALL
guint             anot_report_writer_get_n_traces_omitted (AnotReportWriter *self);
ANOT_AVAILABLE_IN_ALL
guint             anot_report_writer_get_n_traces_unreadable (AnotReportWriter *self);

G_END_DECLS
