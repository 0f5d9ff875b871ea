/* anot-report-writer.c: a self-contained HTML report of results
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "anot-report-writer.h"

#include <math.h>
#include <string.h>

#include "anot-dataset.h"
#include "anot-enum-types.h"
#include "anot-error.h"
#include "anot-usage-private.h"
#include "anot-item.h"
#include "anot-pool.h"
#include "anot-request.h"
#include "anot-results-private.h"
#include "anot-version.h"

/**
 * AnotReportWriter:
 *
 * Writes one HTML file that shows results without any server or network:
 * the styles, the script, the data and the plots are all inside it, and its
 * Content-Security-Policy forbids the page to fetch anything, so it opens
 * the same from a `file://` URL, a mail attachment or an archive.
 *
 * The page has plots (Hits@1, Hits@5 and MRR against N per method with
 * their confidence bands; the change of Hits@1 under each attack; calls,
 * tokens and cost per request), the comparison tables of an
 * #AnotComparison, a table of every request (filtered by method, attack, N,
 * run, group and outcome, sorted by gold rank) and, for one request, the
 * methods side by side with their traces, and the provenance of every run.
 *
 * The plots are SVG written here rather than drawn by a charting library
 * in the page: the file stays small and readable without JavaScript, and a
 * test can count the points.
 *
 * Traces can be far larger than the rest (hundreds of MB for LLM methods
 * over a benchmark).  Each is embedded as an inert
 * `<script type="application/json">` element that the page only parses when
 * its request is opened, every text in it longer than
 * [method@Anot.ReportWriter.set_max_text] characters is cut (saying where
 * the full text is), and once [method@Anot.ReportWriter.set_trace_budget]
 * bytes of traces are embedded the remaining ones are left out, the page
 * naming the file that holds each.  The request table shows 100 rows a
 * page.
 *
 * Since: 0.1
 */

struct _AnotReportWriter
{
  GObject parent_instance;

  AnotResults *results;
  AnotComparison *comparison;
  char *title;
  guint64 trace_budget;
  guint max_text;

  guint n_traces;
  guint n_traces_omitted;
  guint n_traces_unreadable;
};

G_DEFINE_FINAL_TYPE (AnotReportWriter, anot_report_writer, G_TYPE_OBJECT)

extern GResource *_anot_report_get_resource (void);

static const char *const palette[] = {
  "#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#F0E442", "#000000",
};

static void
anot_report_writer_finalize (GObject *object)
{
  AnotReportWriter *self = ANOT_REPORT_WRITER (object);

  g_clear_object (&self->results);
  g_clear_object (&self->comparison);
  g_free (self->title);

  G_OBJECT_CLASS (anot_report_writer_parent_class)->finalize (object);
}

static void
anot_report_writer_class_init (AnotReportWriterClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = anot_report_writer_finalize;
}

static void
anot_report_writer_init (AnotReportWriter *self)
{
  self->trace_budget = ANOT_REPORT_DEFAULT_TRACE_BUDGET;
  self->max_text = ANOT_REPORT_DEFAULT_MAX_TEXT;
  self->title = g_strdup ("anot results");
}

/**
 * anot_report_writer_new:
 * @results: the results to show
 * @comparison: the comparison of @results, computed
 *
 * Returns: (transfer full): a new #AnotReportWriter
 */
AnotReportWriter *
anot_report_writer_new (AnotResults    *results,
                        AnotComparison *comparison)
{
  AnotReportWriter *self;

  g_return_val_if_fail (ANOT_IS_RESULTS (results), NULL);
  g_return_val_if_fail (ANOT_IS_COMPARISON (comparison), NULL);

  self = g_object_new (ANOT_TYPE_REPORT_WRITER, NULL);
  self->results = g_object_ref (results);
  self->comparison = g_object_ref (comparison);
  return self;
}

/**
 * anot_report_writer_set_title:
 * @self: an #AnotReportWriter
 * @title: the page's title
 */
void
anot_report_writer_set_title (AnotReportWriter *self,
                              const char       *title)
{
  g_return_if_fail (ANOT_IS_REPORT_WRITER (self));
  g_return_if_fail (title != NULL);
  g_free (self->title);
  self->title = g_strdup (title);
}

/**
 * anot_report_writer_set_trace_budget:
 * @self: an #AnotReportWriter
 * @bytes: most bytes of traces to embed; 0 embeds none
 */
void
anot_report_writer_set_trace_budget (AnotReportWriter *self,
                                     guint64           bytes)
{
  g_return_if_fail (ANOT_IS_REPORT_WRITER (self));
  self->trace_budget = bytes;
}

/**
 * anot_report_writer_set_max_text:
 * @self: an #AnotReportWriter
 * @chars: most characters of one text of a trace (at least 100)
 */
void
anot_report_writer_set_max_text (AnotReportWriter *self,
                                 guint             chars)
{
  g_return_if_fail (ANOT_IS_REPORT_WRITER (self));
  self->max_text = MAX (chars, 100);
}

/**
 * anot_report_writer_get_n_traces:
 * @self: an #AnotReportWriter
 *
 * Returns: the traces the last [method@Anot.ReportWriter.write] embedded
 */
guint
anot_report_writer_get_n_traces (AnotReportWriter *self)
{
  g_return_val_if_fail (ANOT_IS_REPORT_WRITER (self), 0);
  return self->n_traces;
}

/**
 * anot_report_writer_get_n_traces_omitted:
 * @self: an #AnotReportWriter
 *
 * Returns: the traces the last [method@Anot.ReportWriter.write] left out
 *   because the trace budget was spent
 */
guint
anot_report_writer_get_n_traces_omitted (AnotReportWriter *self)
{
  g_return_val_if_fail (ANOT_IS_REPORT_WRITER (self), 0);
  return self->n_traces_omitted;
}

/**
 * anot_report_writer_get_n_traces_unreadable:
 * @self: an #AnotReportWriter
 *
 * Lines of the trace files that are not JSON: the torn last line a kill
 * or a full disk left (`anot-run --resume` cuts it off and runs its
 * request again).  The report holds no trace for them.
 *
 * Returns: the unreadable trace lines the last
 *   [method@Anot.ReportWriter.write] skipped
 */
guint
anot_report_writer_get_n_traces_unreadable (AnotReportWriter *self)
{
  g_return_val_if_fail (ANOT_IS_REPORT_WRITER (self), 0);
  return self->n_traces_unreadable;
}

/* ------------------------------------------------------------------------
 * Output
 * --------------------------------------------------------------------- */

typedef struct
{
  GOutputStream *stream;
  GString *buffer;
  GError *error;
  guint64 written;
} Out;

/* Buffered: the page is written in many small pieces. */
static void
out_flush (Out *out)
{
  if (out->error == NULL && out->buffer->len > 0)
    g_output_stream_write_all (out->stream, out->buffer->str, out->buffer->len, NULL, NULL,
                               &out->error);
  out->written += out->buffer->len;
  g_string_truncate (out->buffer, 0);
}

static void
out_append (Out        *out,
            const char *text)
{
  g_string_append (out->buffer, text);
  if (out->buffer->len > 1 << 16)
    out_flush (out);
}

static void G_GNUC_PRINTF (2, 3)
out_printf (Out        *out,
            const char *format,
            ...)
{
  va_list args;

  va_start (args, format);
  g_string_append_vprintf (out->buffer, format, args);
  va_end (args);
  if (out->buffer->len > 1 << 16)
    out_flush (out);
}

/* printf with every string argument escaped for HTML. */
static void G_GNUC_PRINTF (2, 3)
out_markup_printf (Out        *out,
                   const char *format,
                   ...)
{
  g_autofree char *text = NULL;
  va_list args;

  va_start (args, format);
  text = g_markup_vprintf_escaped (format, args);
  va_end (args);
  out_append (out, text);
}

static void
out_escaped (Out        *out,
             const char *text)
{
  g_autofree char *escaped = g_markup_escape_text (text != NULL ? text : "", -1);

  out_append (out, escaped);
}

/* JSON inside <script>: a "<" only occurs in strings, where \u003c means
 * the same, so no "</script>" or "<!--" in the data can end the element. */
static void
out_json (Out      *out,
          JsonNode *node)
{
  g_autoptr(JsonGenerator) generator = json_generator_new ();
  g_autofree char *text = NULL;
  const char *p, *lt;

  json_generator_set_root (generator, node);
  text = json_generator_to_data (generator, NULL);
  for (p = text; (lt = strchr (p, '<')) != NULL; p = lt + 1)
    {
      g_string_append_len (out->buffer, p, lt - p);
      g_string_append (out->buffer, "\\u003c");
    }
  out_append (out, p);
}

static char *
format_double (double value,
               const char *format)
{
  char buffer[G_ASCII_DTOSTR_BUF_SIZE];

  return g_strdup (g_ascii_formatd (buffer, sizeof buffer, format, value));
}

/* ------------------------------------------------------------------------
 * Plots
 * --------------------------------------------------------------------- */

#define PLOT_W 340.0
#define PLOT_H 230.0
#define PLOT_L 44.0
#define PLOT_R 12.0
#define PLOT_T 26.0
#define PLOT_B 36.0

static const char *
method_color (char      **methods,
              const char *method)
{
  for (guint i = 0; methods[i] != NULL; i++)
    if (strcmp (methods[i], method) == 0)
      return palette[i % G_N_ELEMENTS (palette)];
  return palette[G_N_ELEMENTS (palette) - 1];
}

static int
compare_ints (gconstpointer a,
              gconstpointer b)
{
  gint64 x = *(const gint64 *) a, y = *(const gint64 *) b;

  return (x > y) - (x < y);
}

/* "1.5" rather than "1.500000": coordinates in the locale-independent form. */
static void
out_coord (Out    *out,
           double  value)
{
  g_autofree char *text = format_double (value, "%.1f");

  out_append (out, text);
}

/* <line class="CLASS" .../> */
static void
svg_line (Out        *out,
          const char *cls,
          double      x1,
          double      y1,
          double      x2,
          double      y2)
{
  out_printf (out, "<line class=\"%s\" x1=\"", cls);
  out_coord (out, x1);
  out_append (out, "\" y1=\"");
  out_coord (out, y1);
  out_append (out, "\" x2=\"");
  out_coord (out, x2);
  out_append (out, "\" y2=\"");
  out_coord (out, y2);
  out_append (out, "\"/>");
}

/* <text class="CLASS" text-anchor="ANCHOR" ...>TEXT</text>, TEXT escaped */
static void
svg_text (Out        *out,
          const char *cls,
          const char *anchor,
          double      x,
          double      y,
          const char *text)
{
  out_printf (out, "<text class=\"%s\" text-anchor=\"%s\" x=\"", cls, anchor);
  out_coord (out, x);
  out_append (out, "\" y=\"");
  out_coord (out, y);
  out_append (out, "\">");
  out_escaped (out, text);
  out_append (out, "</text>");
}

static const char *
plot_attack (JsonArray *cells)
{
  /* The clean runs, or else the first attack there is. */
  for (guint i = 0; i < json_array_get_length (cells); i++)
    if (g_strcmp0 (json_object_get_string_member (json_array_get_object_element (cells, i), "attack"),
                   "clean") == 0)
      return "clean";
  if (json_array_get_length (cells) > 0)
    return json_object_get_string_member (json_array_get_object_element (cells, 0), "attack");
  return "clean";
}

static void
write_metric_plot (Out        *out,
                   JsonArray  *cells,
                   char      **methods,
                   const char *metric,
                   const char *title)
{
  g_autoptr(GArray) ns = g_array_new (FALSE, FALSE, sizeof (gint64));
  const char *attack = plot_attack (cells);
  double x0 = PLOT_L, x1 = PLOT_W - PLOT_R, y0 = PLOT_H - PLOT_B, y1 = PLOT_T;
  gint64 n_min, n_max;

  for (guint i = 0; i < json_array_get_length (cells); i++)
    {
      JsonObject *cell = json_array_get_object_element (cells, i);
      gint64 n = json_object_get_int_member (cell, "n_candidates");
      gboolean seen = FALSE;

      if (strcmp (json_object_get_string_member (cell, "attack"), attack) != 0)
        continue;
      for (guint j = 0; j < ns->len && !seen; j++)
        seen = g_array_index (ns, gint64, j) == n;
      if (!seen)
        g_array_append_val (ns, n);
    }
  g_array_sort (ns, compare_ints);
  if (ns->len == 0)
    return;
  n_min = g_array_index (ns, gint64, 0);
  n_max = g_array_index (ns, gint64, ns->len - 1);

#define X_OF(n) (n_max == n_min ? (x0 + x1) / 2 : x0 + 10 + ((double) (n) - n_min) * (x1 - x0 - 20) / (n_max - n_min))
#define Y_OF(v) (y0 + (v) * (y1 - y0))

  out_printf (out, "<figure class=\"plot\"><svg class=\"metric-plot\" data-metric=\"%s\" "
              "viewBox=\"0 0 %.0f %.0f\" width=\"%.0f\" height=\"%.0f\" role=\"img\" "
              "aria-label=\"%s against N\">", metric, PLOT_W, PLOT_H, PLOT_W, PLOT_H, title);
  out_printf (out, "<text class=\"title\" x=\"%.0f\" y=\"16\">%s against N (%s)</text>",
              PLOT_L, title, attack);
  for (guint t = 0; t <= 4; t++)
    {
      double v = t / 4.0;
      g_autofree char *label = format_double (v, "%.2f");

      svg_line (out, "grid", x0, Y_OF (v), x1, Y_OF (v));
      svg_text (out, "tick", "end", x0 - 4, Y_OF (v) + 4, label);
    }
  for (guint j = 0; j < ns->len; j++)
    {
      gint64 n = g_array_index (ns, gint64, j);
      g_autofree char *label = g_strdup_printf ("%" G_GINT64_FORMAT, n);

      svg_text (out, "tick", "middle", X_OF (n), y0 + 16, label);
    }
  svg_text (out, "axis", "middle", (x0 + x1) / 2, PLOT_H - 4, "N (candidates)");

  for (guint m = 0; methods[m] != NULL; m++)
    {
      g_autoptr(GPtrArray) points = g_ptr_array_new ();
      const char *color = method_color (methods, methods[m]);

      for (guint j = 0; j < ns->len; j++)
        for (guint i = 0; i < json_array_get_length (cells); i++)
          {
            JsonObject *cell = json_array_get_object_element (cells, i);

            if (strcmp (json_object_get_string_member (cell, "method"), methods[m]) == 0 &&
                strcmp (json_object_get_string_member (cell, "attack"), attack) == 0 &&
                json_object_get_int_member (cell, "n_candidates") == g_array_index (ns, gint64, j) &&
                !json_object_get_null_member (cell, metric))
              g_ptr_array_add (points, cell);
          }
      if (points->len == 0)
        continue;

      /* The band: upper ends left to right, lower ends back. */
      out_markup_printf (out, "<g class=\"series\" data-method=\"%s\">", methods[m]);
      out_printf (out, "<polygon class=\"band\" fill=\"%s\" points=\"", color);
      for (guint pass = 0; pass < 2; pass++)
        for (guint k = 0; k < points->len; k++)
          {
            JsonObject *cell = g_ptr_array_index (points, pass == 0 ? k : points->len - 1 - k);
            JsonObject *e = json_object_get_object_member (cell, metric);
            double x = X_OF (json_object_get_int_member (cell, "n_candidates"));
            double v = json_object_get_double_member (e, pass == 0 ? "upper" : "lower");

            /* A single N gets a band as wide as its marker. */
            if (points->len == 1)
              {
                out_coord (out, x + (pass == 0 ? -5 : 5));
                out_append (out, ",");
                out_coord (out, Y_OF (v));
                out_append (out, " ");
                out_coord (out, x + (pass == 0 ? 5 : -5));
              }
            else
              out_coord (out, x);
            out_append (out, ",");
            out_coord (out, Y_OF (v));
            out_append (out, " ");
          }
      out_printf (out, "\"/><polyline class=\"line\" stroke=\"%s\" points=\"", color);
      for (guint k = 0; k < points->len; k++)
        {
          JsonObject *cell = g_ptr_array_index (points, k);
          JsonObject *e = json_object_get_object_member (cell, metric);

          out_coord (out, X_OF (json_object_get_int_member (cell, "n_candidates")));
          out_append (out, ",");
          out_coord (out, Y_OF (json_object_get_double_member (e, "mean")));
          out_append (out, " ");
        }
      out_append (out, "\"/>");
      for (guint k = 0; k < points->len; k++)
        {
          JsonObject *cell = g_ptr_array_index (points, k);
          JsonObject *e = json_object_get_object_member (cell, metric);
          gint64 n = json_object_get_int_member (cell, "n_candidates");
          g_autofree char *mean = format_double (json_object_get_double_member (e, "mean"), "%.3f");
          g_autofree char *lower = format_double (json_object_get_double_member (e, "lower"), "%.3f");
          g_autofree char *upper = format_double (json_object_get_double_member (e, "upper"), "%.3f");

          out_markup_printf (out, "<circle class=\"pt\" r=\"3.5\" fill=\"%s\" data-method=\"%s\" "
                      "data-n=\"%" G_GINT64_FORMAT "\" data-value=\"%s\" data-lower=\"%s\" "
                      "data-upper=\"%s\" cx=\"", color, methods[m], n, mean, lower, upper);
          out_coord (out, X_OF (n));
          out_append (out, "\" cy=\"");
          out_coord (out, Y_OF (json_object_get_double_member (e, "mean")));
          out_markup_printf (out, "\"><title>%s, N=%" G_GINT64_FORMAT ": %s [%s, %s]</title></circle>",
                      methods[m], n, mean, lower, upper);
        }
      out_append (out, "</g>");
    }
  out_append (out, "</svg></figure>\n");
#undef X_OF
#undef Y_OF
}

/* The row of the robustness plot a pair belongs to: "typo_10, N=20". */
static char *
pair_group (JsonObject *pair)
{
  return g_strdup_printf ("%s, N=%" G_GINT64_FORMAT, json_object_get_string_member (pair, "attack"),
                          json_object_get_int_member (pair, "n_candidates"));
}

/* Hits@1 attacked − clean per attack and method, with its interval. */
static void
write_drop_plot (Out       *out,
                 JsonArray *pairs,
                 char     **methods)
{
  guint n_pairs = json_array_get_length (pairs);
  double range = 0.1, bar_h = 10, row_gap = 8, height, x0 = 150, x1 = 520;
  g_autoptr(GPtrArray) groups = g_ptr_array_new_with_free_func (g_free);
  double y;

  if (n_pairs == 0)
    {
      out_append (out, "<p class=\"note\">No attacked runs: no robustness plot.</p>\n");
      return;
    }
  for (guint i = 0; i < n_pairs; i++)
    {
      JsonObject *pair = json_array_get_object_element (pairs, i);
      JsonObject *h = json_object_get_object_member (pair, "hits_at_1");
      g_autofree char *group = pair_group (pair);
      gboolean seen = FALSE;

      range = MAX (range, fabs (json_object_get_double_member (h, "lower")));
      range = MAX (range, fabs (json_object_get_double_member (h, "upper")));
      for (guint j = 0; j < groups->len && !seen; j++)
        seen = strcmp (g_ptr_array_index (groups, j), group) == 0;
      if (!seen)
        g_ptr_array_add (groups, g_steal_pointer (&group));
    }
  range = MIN (1.0, ceil (range * 10) / 10);
  height = 40 + groups->len * row_gap;
  for (guint j = 0; j < groups->len; j++)
    {
      guint in_group = 0;

      for (guint i = 0; i < n_pairs; i++)
        {
          JsonObject *pair = json_array_get_object_element (pairs, i);
          g_autofree char *group = pair_group (pair);

          in_group += strcmp (group, g_ptr_array_index (groups, j)) == 0;
        }
      height += in_group * (bar_h + 2);
    }

#define XV(v) ((x0 + x1) / 2 + (v) / range * (x1 - x0) / 2)
  out_printf (out, "<figure class=\"plot wide\"><svg class=\"drop-plot\" viewBox=\"0 0 540 %.0f\" "
              "width=\"540\" height=\"%.0f\" role=\"img\" aria-label=\"Hits@1 change per attack\">",
              height, height);
  out_append (out, "<text class=\"title\" x=\"10\" y=\"16\">Hits@1 attacked − clean, per attack "
                   "(bars: change; whiskers: its interval)</text>");
  for (int t = -2; t <= 2; t++)
    {
      double v = range * t / 2;
      g_autofree char *label = format_double (v, "%+.2f");

      svg_line (out, "grid", XV (v), 26, XV (v), height - 18);
      svg_text (out, "tick", "middle", XV (v), height - 4, label);
    }

  y = 32;
  for (guint j = 0; j < groups->len; j++)
    {
      const char *group_name = g_ptr_array_index (groups, j);

      svg_text (out, "tick", "end", x0 - 6, y + bar_h, group_name);
      for (guint i = 0; i < n_pairs; i++)
        {
          JsonObject *pair = json_array_get_object_element (pairs, i);
          JsonObject *h = json_object_get_object_member (pair, "hits_at_1");
          const char *method = json_object_get_string_member (pair, "method");
          const char *attack = json_object_get_string_member (pair, "attack");
          gint64 n = json_object_get_int_member (pair, "n_candidates");
          g_autofree char *group = pair_group (pair);
          double diff = json_object_get_double_member (h, "diff");
          g_autofree char *value = format_double (diff, "%.3f");
          g_autofree char *lower = format_double (json_object_get_double_member (h, "lower"), "%.3f");
          g_autofree char *upper = format_double (json_object_get_double_member (h, "upper"), "%.3f");

          if (strcmp (group, group_name) != 0)
            continue;
          out_markup_printf (out, "<rect class=\"bar drop\" fill=\"%s\" data-method=\"%s\" data-attack=\"%s\" "
                      "data-n=\"%" G_GINT64_FORMAT "\" data-value=\"%s\" x=\"",
                      method_color (methods, method), method, attack, n, value);
          out_coord (out, MIN (XV (0), XV (diff)));
          out_append (out, "\" y=\"");
          out_coord (out, y);
          out_append (out, "\" width=\"");
          out_coord (out, MAX (fabs (XV (diff) - XV (0)), 1.0));
          out_markup_printf (out, "\" height=\"%.0f\"><title>%s under %s, N=%" G_GINT64_FORMAT
                      ": %s [%s, %s]</title></rect>", bar_h, method, attack, n, value, lower, upper);
          svg_line (out, "whisker", XV (json_object_get_double_member (h, "lower")), y + bar_h / 2,
                    XV (json_object_get_double_member (h, "upper")), y + bar_h / 2);
          y += bar_h + 2;
        }
      y += row_gap;
    }
  out_append (out, "</svg></figure>\n");
#undef XV
}

/* Why the first item was not the gold, one panel per method (the clean
 * runs, or the first attack there is): per measure, a bar per N of its
 * share of the ranked rows with the interval as a whisker. */
static void
write_failure_panels (Out        *out,
                      JsonObject *by_condition,
                      char      **methods)
{
  JsonArray *cells = json_object_get_array_member (by_condition, "cells");
  JsonArray *kinds = json_object_get_array_member (by_condition, "kinds");
  g_autoptr(GPtrArray) measures = g_ptr_array_new ();
  const char *attack = plot_attack (cells);
  double x0 = 200, x1 = 470, bar_h = 9;

  g_ptr_array_add (measures, (gpointer) "misses");
  g_ptr_array_add (measures, (gpointer) "near_misses");
  g_ptr_array_add (measures, (gpointer) "no_failed_condition");
  for (guint k = 0; k < json_array_get_length (kinds); k++)
    g_ptr_array_add (measures, (gpointer) json_array_get_string_element (kinds, k));

  for (guint m = 0; methods[m] != NULL; m++)
    {
      g_autoptr(GPtrArray) mine = g_ptr_array_new ();
      const char *color = method_color (methods, methods[m]);
      double height, y;

      for (guint i = 0; i < json_array_get_length (cells); i++)
        {
          JsonObject *cell = json_array_get_object_element (cells, i);

          if (strcmp (json_object_get_string_member (cell, "method"), methods[m]) == 0 &&
              strcmp (json_object_get_string_member (cell, "attack"), attack) == 0 &&
              json_object_get_null_member (cell, "group") &&
              json_object_get_int_member (cell, "ranked") > 0)
            g_ptr_array_add (mine, cell);
        }
      if (mine->len == 0)
        continue;
      height = 44 + measures->len * (mine->len * (bar_h + 1) + 8);

#define XV(v) (x0 + (v) * (x1 - x0))
      out_markup_printf (out, "<figure class=\"plot wide\"><svg class=\"failure-plot\" data-method=\"%s\" "
                         "data-attack=\"%s\" viewBox=\"0 0 540 %.0f\" width=\"540\" height=\"%.0f\" "
                         "role=\"img\" aria-label=\"Why %s missed\">", methods[m], attack, height, height,
                         methods[m]);
      out_markup_printf (out, "<text class=\"title\" x=\"10\" y=\"16\">%s (%s): share of ranked rows whose "
                         "first item is …, per N</text>", methods[m], attack);
      for (guint t = 0; t <= 4; t++)
        {
          g_autofree char *label = format_double (t / 4.0, "%.2f");

          svg_line (out, "grid", XV (t / 4.0), 24, XV (t / 4.0), height - 18);
          svg_text (out, "tick", "middle", XV (t / 4.0), height - 4, label);
        }
      y = 28;
      for (guint q = 0; q < measures->len; q++)
        {
          const char *measure = g_ptr_array_index (measures, q);
          const char *label = q == 0 ? "a miss" : q == 1 ? "a near miss (fails 1)"
                              : q == 2 ? "a miss failing none" : measure;

          svg_text (out, "tick", "end", x0 - 6, y + bar_h + 2, label);
          for (guint i = 0; i < mine->len; i++)
            {
              JsonObject *cell = g_ptr_array_index (mine, i);
              JsonObject *e = q < 3 ? json_object_get_object_member (cell, measure)
                                    : json_object_get_object_member (json_object_get_object_member (cell, "kinds"),
                                                                     measure);
              gint64 n = json_object_get_int_member (cell, "n_candidates");
              gint64 count = json_object_get_int_member (e, "count");
              double mean = json_object_get_double_member (e, "mean");
              g_autofree char *value = format_double (mean, "%.3f");
              g_autofree char *lower = format_double (json_object_get_double_member (e, "lower"), "%.3f");
              g_autofree char *upper = format_double (json_object_get_double_member (e, "upper"), "%.3f");
              g_autofree char *shown = g_strdup_printf ("%" G_GINT64_FORMAT " (N=%" G_GINT64_FORMAT ")",
                                                        count, n);
              /* Later N fainter: the bars of one measure stay told apart. */
              g_autofree char *opacity = format_double (1.0 - 0.5 * i / MAX (mine->len, 1), "%.2f");

              out_markup_printf (out, "<rect class=\"bar failure\" fill=\"%s\" data-method=\"%s\" "
                                 "data-attack=\"%s\" data-n=\"%" G_GINT64_FORMAT "\" data-measure=\"%s\" "
                                 "data-count=\"%" G_GINT64_FORMAT "\" data-value=\"%s\" data-lower=\"%s\" "
                                 "data-upper=\"%s\" x=\"%.0f\" y=\"",
                                 color, methods[m], attack, n, measure, count, value, lower, upper, x0);
              out_coord (out, y);
              out_append (out, "\" width=\"");
              out_coord (out, MAX (XV (mean) - x0, 0.5));
              out_markup_printf (out, "\" height=\"%.0f\" opacity=\"%s\"><title>%s, N=%" G_GINT64_FORMAT
                                 ": %" G_GINT64_FORMAT " of %" G_GINT64_FORMAT " ranked rows, %s [%s, %s]"
                                 "</title></rect>", bar_h, opacity,
                                 methods[m], n, count, json_object_get_int_member (cell, "ranked"),
                                 value, lower, upper);
              svg_line (out, "whisker", XV (json_object_get_double_member (e, "lower")), y + bar_h / 2,
                        XV (json_object_get_double_member (e, "upper")), y + bar_h / 2);
              svg_text (out, "tick", "start", x1 + 6, y + bar_h, shown);
              y += bar_h + 1;
            }
          y += 8;
        }
      out_append (out, "</svg></figure>\n");
#undef XV
    }
}

/* Mean calls, tokens and cost per request of each method. */
static void
write_usage_plots (AnotReportWriter *self,
                   Out              *out,
                   char            **methods)
{
  guint n_methods = g_strv_length (methods);
  g_autofree double *sums = g_new0 (double, (gsize) n_methods * 3);
  g_autofree guint *counts = g_new0 (guint, n_methods);
  static const char *const what[3] = { "calls", "tokens", "cost" };
  static const char *const titles[3] = { "LLM calls per request", "tokens per request",
                                         "cost per request (USD)" };
  double name_width = 0;

  for (guint i = 0; i < anot_results_get_n_rows (self->results); i++)
    {
      const AnotResultsRow *row = anot_results_peek_row (self->results, i);
      const AnotResultsRun *run = anot_results_peek_run (self->results, row->run_index);
      guint m = 0;

      if (strcmp (run->attack, "clean") != 0)
        continue;
      while (methods[m] != NULL && strcmp (methods[m], run->label) != 0)
        m++;
      if (methods[m] == NULL)
        continue;
      sums[m * 3] += row->calls;
      sums[m * 3 + 1] += row->tokens;
      sums[m * 3 + 2] += row->cost_usd;
      counts[m]++;
    }

  /* The names sit left of the bars, right-aligned: the bars start after
   * the longest (11px text, 7px a character at most for the names people
   * give methods), so a long name is never cut at the left edge. */
  for (guint m = 0; m < n_methods; m++)
    name_width = MAX (name_width, 7.0 * g_utf8_strlen (methods[m], -1));

  for (guint w = 0; w < 3; w++)
    {
      double top = 0, height = 40 + n_methods * 20.0, x0 = MAX (90, 16 + name_width), x1 = x0 + 180;
      double width = x1 + 70;

      /* A cost is NaN when a call had no price: no bar, "unknown price". */
      for (guint m = 0; m < n_methods; m++)
        if (counts[m] > 0 && !isnan (sums[m * 3 + w]))
          top = MAX (top, sums[m * 3 + w] / counts[m]);
      if (top <= 0)
        top = 1;
      out_printf (out, "<figure class=\"plot\"><svg class=\"usage-plot\" data-what=\"%s\" "
                  "viewBox=\"0 0 %.0f %.0f\" width=\"%.0f\" height=\"%.0f\" role=\"img\" "
                  "aria-label=\"%s\"><text class=\"title\" x=\"10\" y=\"16\">%s (clean runs)</text>",
                  what[w], width, height, width, height, titles[w], titles[w]);
      for (guint m = 0; m < n_methods; m++)
        {
          double mean = counts[m] > 0 ? sums[m * 3 + w] / counts[m] : 0.0;
          gboolean unknown = isnan (mean);
          g_autofree char *value = unknown ? g_strdup ("null")
                                           : format_double (mean, w == 2 ? "%.6f" : "%.1f");
          g_autofree char *shown = unknown ? g_strdup ("unknown price")
                                           : format_double (mean, w == 2 ? "%.4f" : w == 1 ? "%.0f" : "%.1f");
          double y = 28 + m * 20.0;

          if (unknown)
            mean = 0;

          svg_text (out, "tick", "end", x0 - 6, y + 11, methods[m]);
          out_markup_printf (out, "<rect class=\"bar usage\" fill=\"%s\" data-method=\"%s\" "
                      "data-what=\"%s\" data-value=\"%s\" x=\"%.0f\" y=\"",
                      method_color (methods, methods[m]), methods[m], what[w], value, x0);
          out_coord (out, y);
          out_append (out, "\" width=\"");
          out_coord (out, (x1 - x0) * mean / top);
          out_append (out, "\" height=\"14\"/>");
          svg_text (out, "tick", "start", x0 + (x1 - x0) * mean / top + 4, y + 11, shown);
        }
      out_append (out, "</svg></figure>\n");
    }
}

/* ------------------------------------------------------------------------
 * Data
 * --------------------------------------------------------------------- */

static char *
dataset_key (const AnotResultsRun *run)
{
  return g_strconcat (run->data_path, "\n", run->checksum, NULL);
}

/* Request texts, from the benchmark each run names when it is still the
 * same (same checksum); otherwise the page says the text is unknown.
 * The benchmarks found are kept in @datasets (dataset_key() → AnotDataset)
 * for the answers of trace-less rows. */
static JsonNode *
build_requests (AnotReportWriter *self,
                GHashTable       *datasets)
{
  g_autoptr(JsonObject) requests = json_object_new ();
  g_autoptr(GHashTable) loaded = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  JsonNode *node;

  for (guint r = 0; r < anot_results_get_n_runs (self->results); r++)
    {
      const AnotResultsRun *run = anot_results_peek_run (self->results, r);
      g_autoptr(AnotDataset) dataset = NULL;
      g_autofree char *key = NULL;

      if (run->data_path == NULL || run->checksum == NULL)
        continue;
      key = dataset_key (run);
      if (g_hash_table_contains (loaded, key))
        continue;
      g_hash_table_add (loaded, g_strdup (key));
      dataset = anot_dataset_load (run->data_path, NULL, NULL);
      if (dataset == NULL || g_strcmp0 (anot_dataset_get_checksum (dataset), run->checksum) != 0)
        continue;
      g_hash_table_insert (datasets, g_steal_pointer (&key), g_object_ref (dataset));
      for (guint i = 0; i < anot_dataset_get_n_requests (dataset); i++)
        {
          AnotRequest *request = anot_dataset_get_request (dataset, i);
          AnotItem *gold = anot_dataset_lookup_item (dataset, anot_request_get_gold_item_id (request));
          JsonObject *object;

          if (json_object_has_member (requests, anot_request_get_id (request)))
            continue;
          object = json_object_new ();
          json_object_set_string_member (object, "text", anot_request_get_text (request));
          json_object_set_string_member (object, "group", anot_request_get_group (request));
          json_object_set_string_member (object, "gold_item", anot_request_get_gold_item_id (request));
          if (gold != NULL)
            json_object_set_string_member (object, "gold_name", anot_item_get_name (gold));
          json_object_set_object_member (requests, anot_request_get_id (request), object);
        }
    }
  node = json_node_new (JSON_NODE_OBJECT);
  json_node_set_object (node, requests);
  return node;
}

static void
add_nullable_string (JsonBuilder *builder,
                     const char  *value)
{
  if (value != NULL)
    json_builder_add_string_value (builder, value);
  else
    json_builder_add_null_value (builder);
}

static void
add_nullable_object (JsonBuilder *builder,
                     JsonObject  *value)
{
  JsonNode *node;

  if (value == NULL)
    {
      json_builder_add_null_value (builder);
      return;
    }
  node = json_node_new (JSON_NODE_OBJECT);
  json_node_set_object (node, value);
  json_builder_add_value (builder, node);
}

/* What a row without a trace ranked: the names of its kept items, best
 * first, from the run's pool rebuilt on its benchmark (when the report
 * found it unchanged), else their pool positions. */
static void
add_top_items (JsonBuilder          *builder,
               GHashTable           *datasets,
               const AnotResultsRun *run,
               const AnotResultsRow *row)
{
  g_autoptr(AnotPool) pool = NULL;
  AnotDataset *dataset = NULL;

  if (run->data_path != NULL && run->checksum != NULL)
    {
      g_autofree char *key = dataset_key (run);

      dataset = g_hash_table_lookup (datasets, key);
    }
  if (dataset != NULL)
    {
      AnotRequest *request = anot_dataset_lookup_request (dataset, row->request_id);
      g_autoptr(GEnumClass) modes = g_type_class_ref (ANOT_TYPE_POOL_MODE);
      GEnumValue *mode = g_enum_get_value_by_nick (modes, run->pool != NULL ? run->pool : "sampled");

      if (request != NULL && mode != NULL)
        pool = anot_pool_new (dataset, request, row->n, mode->value, ANOT_SHUFFLE_MODE_NONE,
                              run->run_seed, NULL);
    }

  json_builder_begin_array (builder);
  for (guint i = 0; i < row->n_preds; i++)
    {
      guint position = row->preds[i];

      if (pool != NULL && position >= 1 && position <= anot_pool_get_size (pool))
        json_builder_add_string_value (builder, anot_item_get_name (anot_pool_get_item (pool, position - 1)));
      else
        {
          g_autofree char *text = g_strdup_printf ("#%u in the pool", position);

          json_builder_add_string_value (builder, text);
        }
    }
  json_builder_end_array (builder);
}

static JsonNode *
build_data (AnotReportWriter *self,
            char            **methods,
            JsonNode         *comparison,
            GArray           *trace_state)
{
  g_autoptr(JsonBuilder) builder = json_builder_new ();
  JsonArray *runs = anot_results_get_runs (self->results);
  g_autoptr(GHashTable) datasets = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_object_unref);
  g_autoptr(JsonNode) requests = build_requests (self, datasets);

  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "title");
  json_builder_add_string_value (builder, self->title);
  json_builder_set_member_name (builder, "methods");
  json_builder_begin_array (builder);
  for (guint m = 0; methods[m] != NULL; m++)
    json_builder_add_string_value (builder, methods[m]);
  json_builder_end_array (builder);
  json_builder_set_member_name (builder, "colors");
  json_builder_begin_array (builder);
  for (guint m = 0; methods[m] != NULL; m++)
    json_builder_add_string_value (builder, method_color (methods, methods[m]));
  json_builder_end_array (builder);

  json_builder_set_member_name (builder, "runs");
  {
    JsonNode *node = json_node_new (JSON_NODE_ARRAY);

    json_node_set_array (node, runs);
    json_builder_add_value (builder, node);
  }
  json_builder_set_member_name (builder, "comparison");
  json_builder_add_value (builder, json_node_copy (comparison));
  json_builder_set_member_name (builder, "requests");
  json_builder_add_value (builder, json_node_ref (requests));

  /* Rows as arrays: a benchmark of 100 requests × 5 N × 3 runs × 10 methods
   * is 15,000 rows, and member names would double the page. */
  json_builder_set_member_name (builder, "columns");
  json_builder_begin_array (builder);
  {
    static const char *const columns[] = {
      "run_index", "n", "request_id", "group", "gold_rank", "calls", "tokens", "cost_usd",
      "latency_ms", "error", "trace", "answer", "top1_item", "top1_conditions", "top1_failed",
      "gold_conditions", "condition_kinds",
    };

    for (guint c = 0; c < G_N_ELEMENTS (columns); c++)
      json_builder_add_string_value (builder, columns[c]);
  }
  json_builder_end_array (builder);
  json_builder_set_member_name (builder, "rows");
  json_builder_begin_array (builder);
  for (guint i = 0; i < anot_results_get_n_rows (self->results); i++)
    {
      const AnotResultsRow *row = anot_results_peek_row (self->results, i);

      json_builder_begin_array (builder);
      json_builder_add_int_value (builder, row->run_index);
      json_builder_add_int_value (builder, row->n);
      json_builder_add_string_value (builder, row->request_id);
      if (row->group != NULL)
        json_builder_add_string_value (builder, row->group);
      else
        json_builder_add_null_value (builder);
      json_builder_add_int_value (builder, row->gold_rank);
      json_builder_add_int_value (builder, (gint64) row->calls);
      json_builder_add_int_value (builder, (gint64) row->tokens);
      anot_usage_add_cost_value (builder, row->cost_usd);
      json_builder_add_double_value (builder, row->latency_ms);
      if (row->error != NULL)
        json_builder_add_string_value (builder, row->error);
      else
        json_builder_add_null_value (builder);
      /* 1: embedded as #tr-<row>, 0: no trace, -1: left out (budget). */
      json_builder_add_int_value (builder, g_array_index (trace_state, gint, i));
      /* Without a trace, what the method answered and ranked is all the
       * report can show of it: [raw answer, [top item names]]. */
      if (g_array_index (trace_state, gint, i) == 0)
        {
          json_builder_begin_array (builder);
          if (row->raw_response != NULL)
            json_builder_add_string_value (builder, row->raw_response);
          else
            json_builder_add_null_value (builder);
          add_top_items (builder, datasets, anot_results_peek_run (self->results, row->run_index), row);
          json_builder_end_array (builder);
        }
      else
        json_builder_add_null_value (builder);
      add_nullable_string (builder, row->top1_item);
      add_nullable_object (builder, row->top1_conditions);
      if (row->top1_failed != NULL)
        {
          JsonNode *node = json_node_new (JSON_NODE_ARRAY);

          json_node_set_array (node, row->top1_failed);
          json_builder_add_value (builder, node);
        }
      else
        json_builder_add_null_value (builder);
      add_nullable_object (builder, row->gold_conditions);
      add_nullable_object (builder, row->condition_kinds);
      json_builder_end_array (builder);
    }
  json_builder_end_array (builder);
  json_builder_end_object (builder);
  return json_builder_get_root (builder);
}

/* ------------------------------------------------------------------------
 * Traces
 * --------------------------------------------------------------------- */

typedef struct
{
  AnotReportWriter *self;
  GHashTable *row_of;     /* request id → row index + 1, for one run and N */
  GArray *trace_state;
  GPtrArray *texts;       /* row index → serialized trace, NULL */
  const char *file;
  guint64 spent;
  guint n;                /* the N being written */
  guint run_index;        /* the run being written */
  guint64 *trace_calls;   /* per run: LLM calls in its traces */
  guint64 *cached_calls;  /* per run: those answered by the response cache */
  GHashTable *prompts;    /* "N\nrequest" → GArray of PromptSpan, or NULL */
  GFileInputStream *debug_log;
  const char *debug_log_path;
} TraceWalk;

static void cut_texts (JsonNode *node, guint max_text, const char *file);

static void
cut_member (JsonObject  *object,
            const char  *member,
            JsonNode    *node,
            gpointer     user_data)
{
  gpointer *args = user_data;

  cut_texts (node, GPOINTER_TO_UINT (args[0]), args[1]);
}

static void
cut_texts (JsonNode   *node,
           guint       max_text,
           const char *file)
{
  if (JSON_NODE_HOLDS_OBJECT (node))
    {
      gpointer args[2] = { GUINT_TO_POINTER (max_text), (gpointer) file };

      json_object_foreach_member (json_node_get_object (node), cut_member, args);
    }
  else if (JSON_NODE_HOLDS_ARRAY (node))
    {
      JsonArray *array = json_node_get_array (node);

      for (guint i = 0; i < json_array_get_length (array); i++)
        cut_texts (json_array_get_element (array, i), max_text, file);
    }
  else if (JSON_NODE_HOLDS_VALUE (node) && json_node_get_value_type (node) == G_TYPE_STRING)
    {
      const char *text = json_node_get_string (node);
      glong length = g_utf8_strlen (text, -1);

      if (length > max_text)
        {
          const char *end = g_utf8_offset_to_pointer (text, max_text);
          g_autofree char *kept = g_strndup (text, end - text);
          g_autofree char *cut = g_strdup_printf ("%s\n… [%ld more characters cut from the "
                                                  "report; the full text is in %s]",
                                                  kept, length - max_text, file);

          json_node_set_string (node, cut);
        }
    }
}

/* ------------------------------------------------------------------------
 * Prompts from debug.log
 *
 * Traces keep what a model answered but not the prompts, which are large
 * and mostly the candidates again.  ANOT_DEBUG=3 writes every prompt to the
 * run's debug.log; when it is there, each call of a trace is shown with the
 * prompt logged for it.  The log is indexed (offsets only) in one pass and
 * each prompt read when its trace is written, so a log of gigabytes costs
 * no more memory than the prompts of one N.
 * --------------------------------------------------------------------- */

typedef struct
{
  goffset offset;
  gsize length;
} PromptSpan;

/* "[HH:MM:SS.mmm] [" starts every entry; other lines continue the last. */
static gboolean
is_log_entry (const char *line,
              gsize       length)
{
  return length > 16 && line[0] == '[' && line[3] == ':' && line[6] == ':' && line[9] == '.' &&
         line[13] == ']' && line[14] == ' ' && line[15] == '[';
}

static GHashTable *
index_debug_prompts (GFileInputStream *input)
{
  g_autoptr(GDataInputStream) data = g_data_input_stream_new (G_INPUT_STREAM (input));
  GHashTable *prompts = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                               (GDestroyNotify) g_array_unref);
  goffset offset = 0, block_start = -1;
  GArray *block_list = NULL;
  guint n = 0;

  /* The data stream must not close the file: it is read again. */
  g_filter_input_stream_set_close_base_stream (G_FILTER_INPUT_STREAM (data), FALSE);
  for (;;)
    {
      gsize length;
      g_autofree char *line = g_data_input_stream_read_line (data, &length, NULL, NULL);
      goffset line_start = offset;

      if (line == NULL)
        break;
      offset += length + 1;
      if (!is_log_entry (line, length))
        continue;

      if (block_start >= 0 && line_start > block_start)
        {
          PromptSpan span = { block_start, (gsize) (line_start - block_start - 1) };

          g_array_append_val (block_list, span);
        }
      block_start = -1;

      {
        const char *tag = line + 16;
        const char *end = strstr (tag, "] ");
        const char *message = end != NULL ? end + 2 : NULL;
        const char *n_text;

        if (message == NULL)
          continue;
        if (g_str_has_prefix (tag, "RUN:") && (n_text = strstr (message, ", N=")) != NULL)
          n = (guint) g_ascii_strtoull (n_text + 4, NULL, 10);
        else if (g_str_has_prefix (tag, "LLM:") && g_str_has_suffix (message, " prompt:"))
          {
            g_autofree char *request = g_strndup (tag + 4, end - (tag + 4));
            g_autofree char *key = g_strdup_printf ("%u\n%s", n, request);

            block_list = g_hash_table_lookup (prompts, key);
            if (block_list == NULL)
              {
                block_list = g_array_new (FALSE, FALSE, sizeof (PromptSpan));
                g_hash_table_insert (prompts, g_steal_pointer (&key), block_list);
              }
            block_start = offset;
          }
      }
    }
  if (block_start >= 0 && offset > block_start)
    {
      PromptSpan span = { block_start, (gsize) (offset - block_start - 1) };

      g_array_append_val (block_list, span);
    }
  return prompts;
}

static char *
read_prompt (TraceWalk        *walk,
             const PromptSpan *span)
{
  guint max_text = walk->self->max_text;
  /* At most 4 bytes a character: enough for max_text characters. */
  gsize want = MIN (span->length, (gsize) max_text * 4);
  g_autofree char *buffer = g_malloc (want + 1);
  gsize got = 0;
  const char *valid_end;
  glong chars;

  if (!g_seekable_seek (G_SEEKABLE (walk->debug_log), span->offset, G_SEEK_SET, NULL, NULL) ||
      !g_input_stream_read_all (G_INPUT_STREAM (walk->debug_log), buffer, want, &got, NULL, NULL))
    return NULL;
  buffer[got] = '\0';
  /* A cut can fall inside a character. */
  g_utf8_validate (buffer, got, &valid_end);
  *(char *) valid_end = '\0';
  chars = g_utf8_strlen (buffer, -1);
  if (chars > max_text || got < span->length)
    {
      *g_utf8_offset_to_pointer (buffer, MIN (chars, (glong) max_text)) = '\0';
      return g_strdup_printf ("%s\n… [cut from the report; the full prompt (%" G_GSIZE_FORMAT
                              " bytes) is in %s]", buffer, span->length, walk->debug_log_path);
    }
  return g_steal_pointer (&buffer);
}

static void
attach_prompts (TraceWalk  *walk,
                const char *request_id,
                JsonNode   *trace)
{
  g_autofree char *key = g_strdup_printf ("%u\n%s", walk->n, request_id);
  GArray *spans = walk->prompts != NULL ? g_hash_table_lookup (walk->prompts, key) : NULL;
  JsonObject *object;
  JsonArray *calls;
  guint n_calls;

  if (spans == NULL || !JSON_NODE_HOLDS_OBJECT (trace))
    return;
  object = json_node_get_object (trace);
  if (!json_object_has_member (object, "calls") ||
      !JSON_NODE_HOLDS_ARRAY (json_object_get_member (object, "calls")))
    return;
  calls = json_object_get_array_member (object, "calls");
  n_calls = json_array_get_length (calls);
  /* The log has the prompts in the order the calls were made. */
  for (guint i = 0; i < n_calls && i < spans->len; i++)
    {
      JsonNode *call = json_array_get_element (calls, i);
      g_autofree char *prompt = NULL;

      if (!JSON_NODE_HOLDS_OBJECT (call) || json_object_has_member (json_node_get_object (call), "prompt"))
        continue;
      prompt = read_prompt (walk, &g_array_index (spans, PromptSpan, i));
      if (prompt == NULL)
        return;
      json_object_set_string_member (json_node_get_object (call), "prompt", prompt);
      if (spans->len == n_calls)
        json_object_set_string_member (json_node_get_object (call), "prompt_source", "debug.log");
      else
        {
          g_autofree char *note = g_strdup_printf ("debug.log, matched in order (%u prompts logged "
                                                   "for %u calls)", spans->len, n_calls);

          json_object_set_string_member (json_node_get_object (call), "prompt_source", note);
        }
    }
}

/* Whether the response cache answered: the "cached" of every call. */
static void
count_cached_calls (TraceWalk *walk,
                    JsonNode  *trace)
{
  JsonArray *calls;

  if (!JSON_NODE_HOLDS_OBJECT (trace) ||
      !json_object_has_member (json_node_get_object (trace), "calls") ||
      !JSON_NODE_HOLDS_ARRAY (json_object_get_member (json_node_get_object (trace), "calls")))
    return;
  calls = json_object_get_array_member (json_node_get_object (trace), "calls");
  for (guint i = 0; i < json_array_get_length (calls); i++)
    {
      JsonNode *call = json_array_get_element (calls, i);

      if (!JSON_NODE_HOLDS_OBJECT (call))
        continue;
      walk->trace_calls[walk->run_index]++;
      if (json_object_get_boolean_member_with_default (json_node_get_object (call), "cached", FALSE))
        walk->cached_calls[walk->run_index]++;
    }
}

static gboolean
collect_trace (const char *request_id,
               JsonNode   *trace,
               gpointer    user_data)
{
  TraceWalk *walk = user_data;
  guint index = GPOINTER_TO_UINT (g_hash_table_lookup (walk->row_of, request_id));
  g_autoptr(JsonGenerator) generator = NULL;
  char *text;
  gsize length;

  if (index == 0)
    return TRUE;
  index--;
  count_cached_calls (walk, trace);
  cut_texts (trace, walk->self->max_text, walk->file);
  /* After the cut: a prompt is cut as it is read. */
  attach_prompts (walk, request_id, trace);
  generator = json_generator_new ();
  json_generator_set_root (generator, trace);
  text = json_generator_to_data (generator, &length);
  /* A resumed request can have two lines: the later one wins. */
  g_free (g_ptr_array_index (walk->texts, index));
  g_ptr_array_index (walk->texts, index) = text;
  return TRUE;
}

/* Writes the traces of one run and N; returns FALSE on a read error. */
static gboolean
write_traces_of (AnotReportWriter *self,
                 Out              *out,
                 guint             run_index,
                 guint             n,
                 TraceWalk        *walk,
                 GError          **error)
{
  const AnotResultsRun *run = anot_results_peek_run (self->results, run_index);
  g_autoptr(GHashTable) row_of = g_hash_table_new (g_str_hash, g_str_equal);
  g_autoptr(GPtrArray) texts = g_ptr_array_new_with_free_func (g_free);
  g_autofree char *name = g_strdup_printf ("trace_%u.jsonl", n);
  g_autofree char *file = g_build_filename (run->directory, name, NULL);
  guint first = G_MAXUINT, last = 0;

  for (guint i = 0; i < anot_results_get_n_rows (self->results); i++)
    {
      const AnotResultsRow *row = anot_results_peek_row (self->results, i);

      if (row->run_index == run_index && row->n == n)
        {
          g_hash_table_insert (row_of, row->request_id, GUINT_TO_POINTER (i + 1));
          first = MIN (first, i);
          last = MAX (last, i);
        }
    }
  if (first == G_MAXUINT)
    return TRUE;
  g_ptr_array_set_size (texts, anot_results_get_n_rows (self->results));

  walk->row_of = row_of;
  walk->texts = texts;
  walk->file = file;
  walk->n = n;
  walk->run_index = run_index;
  if (!anot_results_foreach_trace (run->directory, n, collect_trace, walk,
                                   &self->n_traces_unreadable, error))
    return FALSE;

  for (guint i = first; i <= last; i++)
    {
      const char *text = g_ptr_array_index (texts, i);
      const char *p, *lt;
      gsize length;

      if (text == NULL)
        continue;
      length = strlen (text);
      if (walk->spent + length > self->trace_budget)
        {
          g_array_index (walk->trace_state, gint, i) = -1;
          self->n_traces_omitted++;
          continue;
        }
      walk->spent += length;
      g_array_index (walk->trace_state, gint, i) = 1;
      self->n_traces++;
      out_printf (out, "<script type=\"application/json\" id=\"tr-%u\">", i);
      for (p = text; (lt = strchr (p, '<')) != NULL; p = lt + 1)
        {
          g_string_append_len (out->buffer, p, lt - p);
          g_string_append (out->buffer, "\\u003c");
        }
      out_append (out, p);
      out_append (out, "</script>\n");
    }
  return TRUE;
}

/* ------------------------------------------------------------------------
 * The page
 * --------------------------------------------------------------------- */

/* Closes without replacing the old file: closing a cancelled replace
 * stream drops what was written. */
static void
abort_stream (GFileOutputStream *stream)
{
  g_autoptr(GCancellable) cancel = g_cancellable_new ();

  g_cancellable_cancel (cancel);
  g_output_stream_close (G_OUTPUT_STREAM (stream), cancel, NULL);
}

static char *
resource_text (const char  *name,
               GError     **error)
{
  g_autofree char *path = g_strconcat ("/org/anot/report/", name, NULL);
  g_autoptr(GBytes) bytes = g_resource_lookup_data (_anot_report_get_resource (), path,
                                                    G_RESOURCE_LOOKUP_FLAGS_NONE, error);

  if (bytes == NULL)
    return NULL;
  return g_strndup (g_bytes_get_data (bytes, NULL), g_bytes_get_size (bytes));
}

static void
write_provenance (AnotReportWriter *self,
                  Out              *out,
                  TraceWalk        *walk)
{
  static const char *const columns[][2] = {
    { "method", "method" }, { "attack", "attack" }, { "run", "run" }, { "data", "data" },
    { "dataset_checksum", "dataset checksum" }, { "pool", "pool" }, { "compat", "compat" }, { "shuffle", "shuffle" },
    { "seed", "seed" }, { "run_seed", "run seed" }, { "k", "k" }, { "provider", "backend" },
    { "model", "model" }, { "cache", "cache" }, { "offline", "offline" },
    { "defense", "defense" }, { "anot_version", "anot" }, { "status", "status" },
    { "timestamp", "finished" }, { "cached_calls", "cached calls" }, { "directory", "directory" },
  };
  JsonArray *runs = anot_results_get_runs (self->results);
  g_autofree guint64 *calls = g_new0 (guint64, json_array_get_length (runs));

  /* config.json names the default backend and model even for a method
   * that calls no LLM: shown only for runs that made calls. */
  for (guint i = 0; i < anot_results_get_n_rows (self->results); i++)
    {
      const AnotResultsRow *row = anot_results_peek_row (self->results, i);

      calls[row->run_index] += row->calls;
    }

  out_append (out, "<table class=\"provenance\"><thead><tr>");
  for (guint c = 0; c < G_N_ELEMENTS (columns); c++)
    out_printf (out, "<th>%s</th>", columns[c][1]);
  out_append (out, "</tr></thead><tbody>\n");
  for (guint r = 0; r < json_array_get_length (runs); r++)
    {
      JsonObject *run = json_array_get_object_element (runs, r);

      out_append (out, "<tr>");
      for (guint c = 0; c < G_N_ELEMENTS (columns); c++)
        {
          JsonNode *value = json_object_get_member (run, columns[c][0]);
          g_autofree char *text = NULL;

          if (strcmp (columns[c][0], "cached_calls") == 0)
            text = walk->trace_calls[r] > 0
                   ? g_strdup_printf ("%" G_GUINT64_FORMAT " of %" G_GUINT64_FORMAT,
                                      walk->cached_calls[r], walk->trace_calls[r])
                   : g_strdup ("—");
          else if (value == NULL || JSON_NODE_HOLDS_NULL (value) ||
                   (calls[r] == 0 && (strcmp (columns[c][0], "provider") == 0 ||
                                      strcmp (columns[c][0], "model") == 0)))
            text = g_strdup ("—");
          else if (json_node_get_value_type (value) == G_TYPE_STRING)
            text = g_strdup (json_node_get_string (value));
          else if (json_node_get_value_type (value) == G_TYPE_BOOLEAN)
            text = g_strdup (json_node_get_boolean (value) ? "yes" : "no");
          else
            text = g_strdup_printf ("%" G_GINT64_FORMAT, json_node_get_int (value));

          if (strcmp (columns[c][0], "dataset_checksum") == 0 && strlen (text) > 12)
            {
              out_append (out, "<td class=\"mono\" title=\"");
              out_escaped (out, text);
              out_append (out, "\">");
              text[12] = '\0';
              out_escaped (out, text);
              out_append (out, "…</td>");
            }
          else
            {
              out_append (out, "<td>");
              out_escaped (out, text);
              out_append (out, "</td>");
            }
        }
      out_append (out, "</tr>\n");
    }
  out_append (out, "</tbody></table>\n");
}

/**
 * anot_report_writer_write:
 * @self: an #AnotReportWriter
 * @path: (type filename): the HTML file to write
 * @error: return location for a #GError
 *
 * Writes the report.  The file is replaced only once it is complete.
 *
 * Returns: %TRUE on success
 */
gboolean
anot_report_writer_write (AnotReportWriter  *self,
                          const char        *path,
                          GError           **error)
{
  g_autoptr(GFile) file = NULL;
  g_autoptr(GFileOutputStream) stream = NULL;
  g_autoptr(GError) local_error = NULL;
  g_autoptr(JsonNode) comparison = NULL;
  g_autoptr(JsonNode) data = NULL;
  g_autoptr(GArray) trace_state = NULL;
  g_auto(GStrv) methods = NULL;
  g_autofree char *css = NULL;
  g_autofree char *js = NULL;
  g_autoptr(GDateTime) now = g_date_time_new_now_local ();
  g_autofree char *generated = g_date_time_format (now, "%Y-%m-%d %H:%M");
  JsonObject *comparison_object;
  TraceWalk walk = { 0 };
  g_autofree guint64 *trace_calls = NULL;
  g_autofree guint64 *cached_calls = NULL;
  guint n_rows;
  Out out = { 0 };

  g_return_val_if_fail (ANOT_IS_REPORT_WRITER (self), FALSE);
  g_return_val_if_fail (path != NULL, FALSE);

  comparison = anot_comparison_to_json (self->comparison);
  if (comparison == NULL)
    {
      g_set_error (error, ANOT_ERROR, ANOT_ERROR_INVALID_ARGUMENT,
                   "the comparison has not been computed");
      return FALSE;
    }
  comparison_object = json_node_get_object (comparison);
  css = resource_text ("report.css", error);
  js = css != NULL ? resource_text ("report.js", error) : NULL;
  if (js == NULL)
    return FALSE;

  file = g_file_new_for_path (path);
  stream = g_file_replace (file, NULL, FALSE, G_FILE_CREATE_REPLACE_DESTINATION, NULL, &local_error);
  if (stream == NULL)
    {
      g_set_error (error, ANOT_ERROR, ANOT_ERROR_IO, "%s: %s", path, local_error->message);
      return FALSE;
    }

  self->n_traces = 0;
  self->n_traces_omitted = 0;
  self->n_traces_unreadable = 0;
  methods = anot_results_list_methods (self->results);
  n_rows = anot_results_get_n_rows (self->results);
  trace_state = g_array_sized_new (FALSE, TRUE, sizeof (gint), n_rows);
  g_array_set_size (trace_state, n_rows);

  out.stream = G_OUTPUT_STREAM (stream);
  out.buffer = g_string_sized_new (1 << 17);

  /* Nothing may be fetched: the data is inline and the policy says so. */
  out_append (&out, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
                    "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
                    "style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:\">\n"
                    "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
                    "<meta name=\"generator\" content=\"anot " ANOT_VERSION_STRING "\">\n<title>");
  out_escaped (&out, self->title);
  out_append (&out, "</title>\n<style>\n");
  out_append (&out, css);
  out_append (&out, "</style>\n</head>\n<body>\n<header><h1>");
  out_escaped (&out, self->title);
  out_printf (&out, "</h1><p class=\"meta\">Written by anot %s on %s: %u methods, %u run directories, "
              "%u rows. Intervals: %.0f%% percentile bootstrap over requests, %" G_GINT64_FORMAT
              " resamples, seed %s.</p></header>\n",
              ANOT_VERSION_STRING, generated, g_strv_length (methods),
              anot_results_get_n_runs (self->results), n_rows,
              json_object_get_double_member (comparison_object, "confidence") * 100,
              json_object_get_int_member (comparison_object, "resamples"),
              json_object_get_string_member (comparison_object, "seed"));

  out_append (&out, "<nav><a href=\"#plots\">Plots</a><a href=\"#comparison\">Comparison</a>"
                    "<a href=\"#requests\">Requests</a><a href=\"#provenance\">Provenance</a></nav>\n");
  {
    /* Unscored requests and shrunk prompts, where nobody misses them (and
     * without JavaScript). */
    g_auto(GStrv) warnings = anot_comparison_list_warnings (self->comparison);

    if (warnings[0] != NULL)
      {
        out_append (&out, "<section id=\"warnings\" class=\"warnings\"><h2>Warnings</h2><ul>\n");
        for (guint i = 0; warnings[i] != NULL; i++)
          {
            out_append (&out, "<li>");
            out_escaped (&out, warnings[i]);
            out_append (&out, "</li>\n");
          }
        out_append (&out, "</ul></section>\n");
      }
  }

  out_append (&out, "<section id=\"plots\"><h2>Plots</h2><div class=\"legend\">");
  for (guint m = 0; methods[m] != NULL; m++)
    {
      out_printf (&out, "<span><i style=\"background:%s\"></i>", method_color (methods, methods[m]));
      out_escaped (&out, methods[m]);
      out_append (&out, "</span>");
    }
  out_append (&out, "</div>\n<div class=\"plots\">\n");
  {
    JsonArray *cells = json_object_get_array_member (comparison_object, "cells");

    write_metric_plot (&out, cells, methods, "hits_at_1", "Hits@1");
    write_metric_plot (&out, cells, methods, "hits_at_5", "Hits@5");
    write_metric_plot (&out, cells, methods, "mrr", "MRR");
  }
  out_append (&out, "</div>\n<h3>Robustness</h3><div class=\"plots\">\n");
  write_drop_plot (&out, json_object_get_array_member (comparison_object, "robustness"), methods);
  if (json_object_has_member (comparison_object, "by_condition"))
    {
      out_append (&out, "</div>\n<h3>Why the first item was not the gold</h3>"
                        "<p class=\"note\">Misses: the first item is not the gold. Near misses: it "
                        "fails exactly one of the request's conditions (a condition an alternative of an "
                        "OR makes up for is not failed); failing none: the conditions it does not "
                        "satisfy are unknown. Per evidence kind: misses whose first item "
                        "fails a condition of that kind. Decided by the validator on the clean items. "
                        "Shares of the ranked rows, whiskers: their interval.</p><div class=\"plots\">\n");
      write_failure_panels (&out, json_object_get_object_member (comparison_object, "by_condition"),
                            methods);
    }
  out_append (&out, "</div>\n<h3>Cost</h3><div class=\"plots\">\n");
  write_usage_plots (self, &out, methods);
  out_append (&out, "</div></section>\n");

  out_append (&out, "<section id=\"comparison\"><h2>Comparison</h2>"
                    "<div id=\"comparison-tables\"><noscript>The tables need JavaScript; "
                    "<code>anot-run compare</code> prints them.</noscript></div></section>\n");
  out_append (&out, "<section id=\"requests\"><h2>Requests</h2><div id=\"filters\"></div>"
                    "<div id=\"request-table\"></div><div id=\"detail\" hidden></div></section>\n");
  /* Traces next, inert: the data says which were embedded, and the
   * provenance after them how many calls the cache answered. */
  walk.self = self;
  walk.trace_state = trace_state;
  walk.trace_calls = trace_calls = g_new0 (guint64, anot_results_get_n_runs (self->results));
  walk.cached_calls = cached_calls = g_new0 (guint64, anot_results_get_n_runs (self->results));
  for (guint r = 0; r < anot_results_get_n_runs (self->results) && out.error == NULL; r++)
    {
      g_autoptr(GArray) ns = g_array_new (FALSE, FALSE, sizeof (guint));
      g_autofree char *log_path = g_build_filename (anot_results_peek_run (self->results, r)->directory,
                                                    "debug.log", NULL);
      g_autoptr(GFile) log_file = g_file_new_for_path (log_path);
      g_autoptr(GFileInputStream) log_input = g_file_read (log_file, NULL, NULL);
      g_autoptr(GHashTable) prompts = log_input != NULL ? index_debug_prompts (log_input) : NULL;

      walk.prompts = prompts;
      walk.debug_log = log_input;
      walk.debug_log_path = log_path;

      for (guint i = 0; i < n_rows; i++)
        {
          const AnotResultsRow *row = anot_results_peek_row (self->results, i);
          gboolean seen = FALSE;

          if (row->run_index != r)
            continue;
          for (guint j = 0; j < ns->len && !seen; j++)
            seen = g_array_index (ns, guint, j) == row->n;
          if (!seen)
            g_array_append_val (ns, row->n);
        }
      for (guint j = 0; j < ns->len; j++)
        if (!write_traces_of (self, &out, r, g_array_index (ns, guint, j), &walk, error))
          {
            g_string_free (out.buffer, TRUE);
            abort_stream (stream);
            return FALSE;
          }
    }

  out_append (&out, "<section id=\"provenance\"><h2>Provenance</h2>");
  write_provenance (self, &out, &walk);
  out_append (&out, "</section>\n");

  data = build_data (self, methods, comparison, trace_state);
  out_append (&out, "<script type=\"application/json\" id=\"anot-data\">");
  out_json (&out, data);
  out_append (&out, "</script>\n<script>\n");
  out_append (&out, js);
  out_append (&out, "</script>\n</body>\n</html>\n");
  out_flush (&out);
  g_string_free (out.buffer, TRUE);

  if (out.error != NULL)
    {
      g_set_error (error, ANOT_ERROR, ANOT_ERROR_IO, "%s: %s", path, out.error->message);
      g_error_free (out.error);
      abort_stream (stream);
      return FALSE;
    }
  if (!g_output_stream_close (G_OUTPUT_STREAM (stream), NULL, &local_error))
    {
      g_set_error (error, ANOT_ERROR, ANOT_ERROR_IO, "%s: %s", path, local_error->message);
      return FALSE;
    }
  return TRUE;
}
