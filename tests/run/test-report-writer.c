/* test-report-writer.c: the HTML report's size limits and escaping
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <anot/anot.h>

#include <glib/gstdio.h>
#include <string.h>

#define N_REQUESTS 12
#define OUTPUT_CHARS (256 * 1024)

/* A run of a method whose every trace carries one LLM call with a large
 * output holding the strings that would end a <script> element. */
static char *
write_run (void)
{
  g_autoptr(GError) error = NULL;
  char *root = g_dir_make_tmp ("anot-report-XXXXXX", &error);
  g_autofree char *dir = g_build_filename (root, "big_fake", "clean", "run_1", NULL);
  g_autofree char *path = NULL;
  g_autoptr(GString) rows = g_string_new (NULL);
  g_autoptr(GString) traces = g_string_new (NULL);
  g_autofree char *filler = g_strnfill (OUTPUT_CHARS, 'x');

  g_assert_no_error (error);
  g_assert_cmpint (g_mkdir_with_parents (dir, 0755), ==, 0);
  path = g_build_filename (dir, "config.json", NULL);
  g_assert_true (g_file_set_contents (path, "{\"method\": \"big\", \"k\": 5, \"anot\": {\"seed\": 1, "
                                      "\"pool\": \"sampled\", \"dataset_checksum\": \"c\"}}", -1, &error));
  for (guint i = 0; i < N_REQUESTS; i++)
    {
      g_string_append_printf (rows, "{\"request_id\": \"R%02u\", \"pred_indices\": [1, 2], "
                              "\"gold_idx\": %u}\n", i + 1, i % 2);
      g_string_append_printf (traces, "{\"request_id\": \"R%02u\", \"n_candidates\": 10, \"run\": 1, "
                              "\"trace\": {\"calls\": [{\"call\": 0, \"cached\": %s, \"output\": "
                              "\"</script><!-- R%02u %s\"}]}}\n", i + 1, i % 2 ? "false" : "true",
                              i + 1, filler);
    }
  g_clear_pointer (&path, g_free);
  path = g_build_filename (dir, "results_10.jsonl", NULL);
  g_assert_true (g_file_set_contents (path, rows->str, -1, &error));
  g_clear_pointer (&path, g_free);
  path = g_build_filename (dir, "trace_10.jsonl", NULL);
  g_assert_true (g_file_set_contents (path, traces->str, -1, &error));
  return root;
}

static void
remove_run (const char *root)
{
  static const char *const files[] = { "config.json", "results_10.jsonl", "trace_10.jsonl" };
  g_autofree char *run = g_build_filename (root, "big_fake", "clean", "run_1", NULL);
  g_autofree char *attack = g_path_get_dirname (run);
  g_autofree char *experiment = g_path_get_dirname (attack);

  for (guint i = 0; i < G_N_ELEMENTS (files); i++)
    {
      g_autofree char *path = g_build_filename (run, files[i], NULL);
      g_unlink (path);
    }
  g_rmdir (run);
  g_rmdir (attack);
  g_rmdir (experiment);
  g_rmdir (root);
}

static guint
count (const char *haystack,
       const char *needle)
{
  guint n = 0;

  for (const char *p = haystack; (p = strstr (p, needle)) != NULL; p += strlen (needle))
    n++;
  return n;
}

static AnotReportWriter *
writer_for (const char *root)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(AnotResults) results = anot_results_load (root, &error);
  g_autoptr(AnotComparison) comparison = NULL;

  g_assert_no_error (error);
  comparison = anot_comparison_new (results);
  anot_comparison_set_resamples (comparison, 50);
  g_assert_true (anot_comparison_compute (comparison, &error));
  return anot_report_writer_new (results, comparison);
}

static void
test_budget (void)
{
  g_autofree char *root = write_run ();
  g_autofree char *page = g_build_filename (root, "report.html", NULL);
  g_autoptr(AnotReportWriter) writer = writer_for (root);
  g_autoptr(GError) error = NULL;
  g_autofree char *html = NULL;
  gsize length;
  guint embedded, omitted;

  /* 12 traces of 256 KB each; texts cut to 1000 characters make each
   * about 1.2 KB, and 6 KB of budget holds four of them. */
  anot_report_writer_set_max_text (writer, 1000);
  anot_report_writer_set_trace_budget (writer, 6000);
  g_assert_true (anot_report_writer_write (writer, page, &error));
  g_assert_no_error (error);
  embedded = anot_report_writer_get_n_traces (writer);
  omitted = anot_report_writer_get_n_traces_omitted (writer);
  g_assert_cmpuint (embedded + omitted, ==, N_REQUESTS);
  g_assert_cmpuint (embedded, >=, 3);
  g_assert_cmpuint (omitted, >=, 1);

  g_assert_true (g_file_get_contents (page, &html, &length, &error));
  g_assert_cmpuint (length, <, 100 * 1024);
  /* Cut texts say how much is missing and where it is. */
  g_assert_cmpuint (count (html, "more characters cut from the report; the full text is in "), ==, embedded);
  /* The data never closes an element: the only </script> are the page's
   * own (the traces, the data, the script). */
  g_assert_cmpuint (count (html, "</script>"), ==, embedded + 2);
  g_assert_cmpuint (count (html, "<!--"), ==, 0);
  g_assert_nonnull (strstr (html, "\\u003c/script>\\u003c!-- R01 xxx"));
  /* The provenance counts the calls the response cache answered, in every
   * trace, embedded or not. */
  g_assert_nonnull (strstr (html, "<td>6 of 12</td>"));
  /* Rows say which traces were left out (-1) for the page to name the file. */
  g_assert_nonnull (strstr (html, ",-1,null,"));   /* trace -1, no answer, then the first item */
  g_clear_pointer (&html, g_free);

  /* No budget, no trace; the page is the same size whatever the traces. */
  anot_report_writer_set_trace_budget (writer, 0);
  g_assert_true (anot_report_writer_write (writer, page, &error));
  g_assert_cmpuint (anot_report_writer_get_n_traces (writer), ==, 0);
  g_assert_cmpuint (anot_report_writer_get_n_traces_omitted (writer), ==, N_REQUESTS);
  g_assert_true (g_file_get_contents (page, &html, &length, &error));
  g_assert_cmpuint (count (html, "</script>"), ==, 2);

  g_unlink (page);
  remove_run (root);
}

/* Requests the infrastructure failed and prompts shrunk to the context
 * window are said at the top of the page, without JavaScript, and the
 * comparison the page's tables are drawn from counts them. */
static void
test_unscored_and_shrunk (void)
{
  g_autofree char *root = write_run ();
  g_autofree char *rows_path = g_build_filename (root, "big_fake", "clean", "run_1",
                                                 "results_10.jsonl", NULL);
  g_autofree char *page = g_build_filename (root, "report.html", NULL);
  g_autoptr(AnotReportWriter) writer = NULL;
  g_autoptr(GString) rows = g_string_new (NULL);
  g_autoptr(GError) error = NULL;
  g_autofree char *html = NULL;

  for (guint i = 0; i < N_REQUESTS; i++)
    {
      g_string_append_printf (rows, "{\"request_id\": \"R%02u\", \"pred_indices\": [1, 2], "
                              "\"gold_idx\": %u", i + 1, i % 2);
      if (i < 3)
        g_string_append (rows, ", \"error\": \"ANOT_ERROR_LLM_TIMEOUT: no answer\", "
                               "\"error_class\": \"infrastructure\"");
      else if (i < 5)
        g_string_append (rows, ", \"context_fit\": {\"reviews_dropped\": 3, \"reviews\": 4, "
                               "\"calls_fitted\": 1}");
      g_string_append (rows, "}\n");
    }
  g_assert_true (g_file_set_contents (rows_path, rows->str, -1, &error));
  writer = writer_for (root);
  anot_report_writer_set_trace_budget (writer, 0);
  g_assert_true (anot_report_writer_write (writer, page, &error));
  g_assert_no_error (error);
  g_assert_true (g_file_get_contents (page, &html, NULL, &error));
  g_assert_nonnull (strstr (html, "<section id=\"warnings\""));
  g_assert_nonnull (strstr (html, "big (clean, N=10): 3 of 12 rows unscored"));
  g_assert_nonnull (strstr (html, "the prompts of 22% of the requests were shrunk"));
  g_assert_nonnull (strstr (html, "\"unscored\":3"));
  g_assert_nonnull (strstr (html, "\"requests\":9"));
  g_unlink (page);
  remove_run (root);
}

static void
test_write_errors (void)
{
  g_autofree char *root = write_run ();
  g_autofree char *page = g_build_filename (root, "no-such-dir", "report.html", NULL);
  g_autoptr(AnotReportWriter) writer = writer_for (root);
  g_autoptr(GError) error = NULL;

  g_assert_false (anot_report_writer_write (writer, page, &error));
  g_assert_error (error, ANOT_ERROR, ANOT_ERROR_IO);
  g_assert_nonnull (strstr (error->message, page));
  remove_run (root);
}

static void
test_trace_lookup (void)
{
  g_autofree char *root = write_run ();
  g_autoptr(GError) error = NULL;
  g_autoptr(AnotResults) results = anot_results_load (root, &error);
  g_autoptr(JsonNode) trace = NULL;
  JsonObject *call;

  g_assert_no_error (error);
  trace = anot_results_get_trace (results, 4, &error);
  g_assert_no_error (error);
  g_assert_nonnull (trace);
  call = json_array_get_object_element (json_object_get_array_member (json_node_get_object (trace), "calls"), 0);
  g_assert_true (g_str_has_prefix (json_object_get_string_member (call, "output"), "</script><!-- R05 x"));
  g_assert_cmpuint (strlen (json_object_get_string_member (call, "output")), ==, OUTPUT_CHARS + strlen ("</script><!-- R05 "));
  remove_run (root);
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/report-writer/budget", test_budget);
  g_test_add_func ("/report-writer/unscored-and-shrunk", test_unscored_and_shrunk);
  g_test_add_func ("/report-writer/write-errors", test_write_errors);
  g_test_add_func ("/report-writer/trace-lookup", test_trace_lookup);

  return g_test_run ();
}
