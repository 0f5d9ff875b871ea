/* anot-test-data.c: the benchmarks the tests run on
 *
 * The bundled demo ($ANOT_DATA_DIR/demo) is always there; the real
 * philly_cafes benchmark ($ANOT_PHILLY_DATA, read from ../shared and never
 * copied into the project) usually is not on CI, and the tests that need
 * it skip.  Each is loaded once per test program and shared: datasets are
 * immutable once loaded.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "anot-test-data.h"

#include <malloc.h>

#include <glib/gstdio.h>

/**
 * anot_test_get_demo:
 *
 * Returns: (transfer none): the demo benchmark (asserts it loads)
 */
AnotDataset *
anot_test_get_demo (void)
{
  static AnotDataset *demo;

  if (demo == NULL)
    {
      g_autofree char *path = g_build_filename (g_getenv ("ANOT_DATA_DIR"), "demo", NULL);
      g_autoptr(GError) error = NULL;

      demo = anot_dataset_load (path, NULL, &error);
      g_assert_no_error (error);
      g_assert_nonnull (demo);
    }
  return demo;
}

/**
 * anot_test_philly_dir:
 *
 * Returns: (nullable): the philly_cafes directory, or %NULL when it is not
 *   available here
 */
const char *
anot_test_philly_dir (void)
{
  const char *dir = g_getenv ("ANOT_PHILLY_DATA");
  g_autofree char *probe = NULL;

  if (dir == NULL || *dir == '\0')
    return NULL;
  probe = g_build_filename (dir, "restaurants.jsonl", NULL);
  return g_file_test (probe, G_FILE_TEST_IS_REGULAR) ? dir : NULL;
}

/**
 * anot_test_get_philly:
 *
 * The philly_cafes benchmark; when it is absent, marks the running test
 * skipped (the caller returns).
 *
 * Returns: (transfer none) (nullable): the benchmark, or %NULL
 */
AnotDataset *
anot_test_get_philly (void)
{
  static AnotDataset *philly;
  static gboolean tried;

  if (!tried)
    {
      const char *dir = anot_test_philly_dir ();

      tried = TRUE;
      if (dir != NULL)
        {
          g_autoptr(GError) error = NULL;

          philly = anot_dataset_load (dir, NULL, &error);
          g_assert_no_error (error);
          g_assert_nonnull (philly);
        }
    }
  if (philly == NULL)
    g_test_skip ("the philly_cafes benchmark is not available (set ANOT_PHILLY_DATA)");
  return philly;
}

/**
 * anot_test_load_demo:
 *
 * Returns: (transfer full): a reference to the shared demo benchmark
 */
AnotDataset *
anot_test_load_demo (void)
{
  return g_object_ref (anot_test_get_demo ());
}

/**
 * anot_test_load_philly:
 *
 * Returns: (transfer full) (nullable): a reference to the shared
 *   philly_cafes benchmark, or %NULL (the running test marked skipped)
 */
AnotDataset *
anot_test_load_philly (void)
{
  AnotDataset *philly = anot_test_get_philly ();

  return philly ? g_object_ref (philly) : NULL;
}

void
anot_test_remove_tree (const char *path)
{
  g_autoptr(GDir) dir = g_dir_open (path, 0, NULL);
  const char *name;

  if (dir != NULL)
    while ((name = g_dir_read_name (dir)) != NULL)
      {
        g_autofree char *child = g_build_filename (path, name, NULL);

        if (g_file_test (child, G_FILE_TEST_IS_DIR) && !g_file_test (child, G_FILE_TEST_IS_SYMLINK))
          anot_test_remove_tree (child);
        else
          g_unlink (child);
      }
  g_rmdir (path);
}

guint
anot_test_time_scale (void)
{
  const char *scale = g_getenv ("ANOT_TEST_TIME_SCALE");

  return scale != NULL ? MAX (1, (guint) g_ascii_strtoull (scale, NULL, 10)) : 1;
}

/* Rewrites the rows of @ids in @path as an outage leaves them: no
 * prediction, the connection error, class infrastructure; what they
 * cost stays (calls made before the failure were paid). */
void
anot_test_fail_rows (const char         *path,
                     const char * const *ids)
{
  g_autofree char *text = NULL;
  g_auto(GStrv) lines = NULL;
  g_autoptr(GString) out = g_string_new (NULL);
  g_autoptr(GError) error = NULL;
  guint n_failed = 0;

  g_assert_true (g_file_get_contents (path, &text, NULL, NULL));
  lines = g_strsplit (text, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    {
      g_autoptr(JsonParser) parser = json_parser_new ();
      g_autoptr(JsonGenerator) generator = json_generator_new ();
      g_autofree char *line = NULL;
      JsonObject *row;

      if (*lines[i] == '\0')
        continue;
      g_assert_true (json_parser_load_from_data (parser, lines[i], -1, NULL));
      row = json_node_get_object (json_parser_get_root (parser));
      if (g_strv_contains (ids, json_object_get_string_member (row, "request_id")))
        {
          json_object_set_array_member (row, "pred_indices", json_array_new ());
          json_object_set_int_member (row, "gold_rank", 0);
          json_object_set_string_member (row, "error", "ANOT_ERROR_LLM_CONNECTION: Cannot reach the server");
          json_object_set_string_member (row, "error_class", "infrastructure");
          n_failed++;
        }
      json_generator_set_root (generator, json_parser_get_root (parser));
      line = json_generator_to_data (generator, NULL);
      g_string_append_printf (out, "%s\n", line);
    }
  g_assert_cmpuint (n_failed, ==, g_strv_length ((char **) ids));
  g_file_set_contents (path, out->str, -1, &error);
  g_assert_no_error (error);
}

gsize
anot_test_heap_in_use (void)
{
  struct mallinfo2 info = mallinfo2 ();

  /* Large blocks are mmap()ed, outside the arena. */
  return info.uordblks + info.hblkhd;
}
