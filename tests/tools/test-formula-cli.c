/* test-formula-cli.c: `anot-run formula` as a user runs it, against the
 * fake LLM server: a hand-written seed over the demo benchmark, Phase 1
 * from a task formula, and the errors
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <anot/anot.h>

#include "anot-fake-llm.h"
#include "anot-test-backend.h"
#include "anot-test-cli.h"

#include <string.h>

/* Extraction answers follow the review's stars: 2-star reviews get an
 * answer with no JSON object (an invalid extraction, rating 0 by the
 * int default); the others {"rating": <stars>}.  The compile prompt,
 * recognised by the task formula's marker, gets SEED_JSON. */
#define SEED_JSON \
  "{\"task_name\": \"wifi\", \"filter_keywords\": [\"wifi\"]," \
  " \"extraction_fields\": [{\"name\": \"rating\", \"type\": \"int\"}]," \
  " \"extraction_prompt\": \"STARS {review_stars} TEXT {review_text}\"," \
  " \"compute_dag\": [" \
  "   {\"name\": \"n\", \"formula\": \"len(extractions)\"}," \
  "   {\"name\": \"total\", \"formula\": \"sum(e['rating'] for e in extractions)\"}," \
  "   {\"name\": \"high\", \"formula\": \"sum(1 for e in extractions if e['rating'] >= 4)\"}]," \
  " \"output_fields\": [\"n\", \"total\", \"high\"]}"

#define FORMULA_MARKER "TASK-FORMULA-7f3e"

typedef struct
{
  guint n;
  gint64 total;
  gint64 high;
  gint64 failed;
  gboolean five_stars;     /* a relevant review has 5 stars */
} Expected;

typedef struct
{
  AnotFakeLlm *server;
  char *url;
  char *dir;
  char *seed_path;
  GPtrArray *item_ids;     /* restaurants.jsonl order */
  GHashTable *expected;    /* item id -> Expected */
  guint n_relevant;
} Fixture;

static JsonObject *
parse_object (const char *text)
{
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(GError) error = NULL;

  json_parser_load_from_data (parser, text, -1, &error);
  g_assert_no_error (error);
  g_assert_true (JSON_NODE_HOLDS_OBJECT (json_parser_get_root (parser)));
  return json_object_ref (json_node_get_object (json_parser_get_root (parser)));
}

static GPtrArray *
read_lines (const char *path)
{
  g_autofree char *text = NULL;
  g_autoptr(GError) error = NULL;
  g_auto(GStrv) lines = NULL;
  GPtrArray *objects = g_ptr_array_new_with_free_func ((GDestroyNotify) json_object_unref);

  g_file_get_contents (path, &text, NULL, &error);
  g_assert_no_error (error);
  lines = g_strsplit (text, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    if (*lines[i] != '\0')
      g_ptr_array_add (objects, parse_object (lines[i]));
  return objects;
}

/* The expected outputs, computed from the benchmark's files directly
 * (not through AnotDataset or the seed code). */
static void
compute_expected (Fixture *f)
{
  g_autofree char *restaurants = g_build_filename (g_getenv ("ANOT_DATA_DIR"), "demo", "restaurants.jsonl", NULL);
  g_autofree char *reviews = g_build_filename (g_getenv ("ANOT_DATA_DIR"), "demo", "reviews.jsonl", NULL);
  g_autoptr(GPtrArray) rows = read_lines (restaurants);

  f->item_ids = g_ptr_array_new_with_free_func (g_free);
  f->expected = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  for (guint i = 0; i < rows->len; i++)
    {
      const char *id = json_object_get_string_member (rows->pdata[i], "business_id");

      g_ptr_array_add (f->item_ids, g_strdup (id));
      g_hash_table_insert (f->expected, g_strdup (id), g_new0 (Expected, 1));
    }

  g_clear_pointer (&rows, g_ptr_array_unref);
  rows = read_lines (reviews);
  for (guint i = 0; i < rows->len; i++)
    {
      JsonObject *review = rows->pdata[i];
      g_autofree char *lower = g_utf8_strdown (json_object_get_string_member (review, "text"), -1);
      Expected *e = g_hash_table_lookup (f->expected, json_object_get_string_member (review, "business_id"));
      gint64 stars = (gint64) json_object_get_double_member (review, "stars");

      if (e == NULL || strstr (lower, "wifi") == NULL)
        continue;
      f->n_relevant++;
      e->n++;
      e->five_stars |= stars == 5;
      if (stars == 2)
        {
          e->failed++;
          continue;
        }
      e->total += stars;
      e->high += stars >= 4;
    }
  /* Otherwise the test would not exercise the filter, or the invalid answers. */
  g_assert_cmpuint (f->n_relevant, >, 0);
}

static void
fixture_setup (Fixture       *f,
               gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *escaped = g_strescape (SEED_JSON, NULL);
  /* @data: rules tried before the others (ending with a comma), or NULL. */
  g_autofree char *rules = g_strdup_printf (
    "{\"latency_ms\": [1, 5], \"rules\": [%s"
    "  {\"match\": \"" FORMULA_MARKER "\", \"reply\": \"%s\"},"
    "  {\"match\": \"STARS 2\\\\.0 TEXT\", \"reply\": \"I cannot tell.\"},"
    "  {\"match\": \"STARS (\\\\d)\\\\.0 TEXT\", \"reply\": \"{\\\"rating\\\": \\\\1}\"}"
    "]}", data != NULL ? (const char *) data : "", escaped);

  f->server = anot_test_fake_llm_start (rules, NULL);
  f->url = anot_fake_llm_get_openai_base_url (f->server);
  f->dir = g_build_filename (g_get_user_data_dir (), "formula", NULL);
  g_mkdir_with_parents (f->dir, 0755);
  f->seed_path = g_build_filename (f->dir, "seed.json", NULL);
  g_file_set_contents (f->seed_path, SEED_JSON, -1, &error);
  g_assert_no_error (error);
  compute_expected (f);
}

static void
fixture_teardown (Fixture       *f,
                  gconstpointer  data)
{
  g_clear_object (&f->server);
  g_free (f->url);
  g_free (f->dir);
  g_free (f->seed_path);
  g_ptr_array_unref (f->item_ids);
  g_hash_table_unref (f->expected);
}

/* Runs `anot-run formula ARGS...` (NULL-terminated), serving the fake
 * server meanwhile. */
static int
run_formula (char      **out,
             char      **err,
             const char *first,
             ...)
{
  /* Quick retries: an outage fails a call in well under a second. */
  static const char * const env[] = {
    "OPENAI_API_KEY=sk-test", "ANOT_MAX_RETRIES=1", "ANOT_RETRY_BASE_MS=20", "ANOT_RETRY_MAX_MS=40", NULL
  };
  g_autoptr(GPtrArray) argv = g_ptr_array_new ();
  g_autoptr(GSubprocess) process = NULL;
  va_list args;
  int status;

  g_ptr_array_add (argv, (gpointer) "formula");
  va_start (args, first);
  for (const char *arg = first; arg != NULL; arg = va_arg (args, const char *))
    g_ptr_array_add (argv, (gpointer) arg);
  va_end (args);
  g_ptr_array_add (argv, NULL);

  process = anot_test_cli_spawn (G_SUBPROCESS_FLAGS_STDOUT_PIPE | G_SUBPROCESS_FLAGS_STDERR_PIPE,
                                 (const char * const *) argv->pdata, env);
  status = anot_test_cli_wait (process, NULL, NULL, out, err);
  g_assert_true (g_subprocess_get_if_exited (process));
  return status;
}

/* Every row matches the independent computation; each item exactly once. */
static void
check_rows (Fixture   *f,
            GPtrArray *rows,
            guint      n_items)
{
  g_autofree gboolean *seen = g_new0 (gboolean, n_items);

  g_assert_cmpuint (rows->len, ==, n_items);
  for (guint i = 0; i < rows->len; i++)
    {
      JsonObject *row = rows->pdata[i];
      gint64 index = json_object_get_int_member (row, "index");
      const char *id = json_object_get_string_member (row, "item_id");
      Expected *e = g_hash_table_lookup (f->expected, id);
      JsonObject *outputs = json_object_get_object_member (row, "outputs");
      JsonObject *extractions = json_object_get_object_member (row, "extractions");
      JsonArray *errors = json_object_get_array_member (row, "errors");

      g_assert_cmpint (index, >=, 0);
      g_assert_cmpint (index, <, n_items);
      g_assert_false (seen[index]);
      seen[index] = TRUE;
      g_assert_cmpstr (id, ==, f->item_ids->pdata[index]);
      g_assert_nonnull (e);
      g_assert_nonnull (json_object_get_string_member (row, "name"));

      g_assert_cmpint (json_object_get_int_member (outputs, "n"), ==, e->n);
      g_assert_cmpint (json_object_get_int_member (outputs, "total"), ==, e->total);
      g_assert_cmpint (json_object_get_int_member (outputs, "high"), ==, e->high);
      g_assert_cmpint (json_object_get_int_member (extractions, "ok"), ==, e->n - e->failed);
      g_assert_cmpint (json_object_get_int_member (extractions, "failed"), ==, e->failed);
      /* One "extract" error per invalid answer, nothing else. */
      g_assert_cmpint (json_array_get_length (errors), ==, e->failed);
      for (guint j = 0; j < json_array_get_length (errors); j++)
        g_assert_cmpstr (json_object_get_string_member (json_array_get_object_element (errors, j), "stage"),
                         ==, "extract");
    }
}

static void
test_seed_file (Fixture       *f,
                gconstpointer  data)
{
  g_autofree char *out = g_build_filename (f->dir, "out.jsonl", NULL);
  g_autoptr(GPtrArray) rows = NULL;
  gint64 failed = 0;
  GHashTableIter iter;
  gpointer value;

  g_assert_cmpint (run_formula (NULL, NULL, "--seed-file", f->seed_path, "--out", out,
                                "--concurrency", "3", "--base-url", f->url, "--model", "fake", NULL),
                   ==, 0);
  rows = read_lines (out);
  check_rows (f, rows, f->item_ids->len);
  /* One extraction call per relevant review, none for the others. */
  g_assert_cmpuint (anot_fake_llm_get_n_requests (f->server), ==, f->n_relevant);

  g_hash_table_iter_init (&iter, f->expected);
  while (g_hash_table_iter_next (&iter, NULL, &value))
    failed += ((Expected *) value)->failed;
  /* Else the invalid answers would go untested. */
  g_assert_cmpint (failed, >, 0);
}

static void
test_limit_stdout_trace (Fixture       *f,
                         gconstpointer  data)
{
  g_autofree char *out = NULL;
  g_auto(GStrv) lines = NULL;
  g_autoptr(GPtrArray) rows = g_ptr_array_new_with_free_func ((GDestroyNotify) json_object_unref);

  g_assert_cmpint (run_formula (&out, NULL, "--seed-file", f->seed_path, "--limit", "3",
                                "--concurrency", "1", "--trace", "--base-url", f->url, "--model", "fake", NULL),
                   ==, 0);
  lines = g_strsplit (out, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    if (*lines[i] != '\0')
      g_ptr_array_add (rows, parse_object (lines[i]));
  check_rows (f, rows, 3);
  for (guint i = 0; i < rows->len; i++)
    {
      JsonObject *trace = json_object_get_object_member (rows->pdata[i], "trace");

      /* One at a time: in order. */
      g_assert_cmpint (json_object_get_int_member (rows->pdata[i], "index"), ==, i);
      g_assert_nonnull (trace);
      g_assert_cmpint (json_array_get_length (json_object_get_array_member (trace, "extractions")), ==,
                       json_object_get_int_member (json_object_get_object_member (rows->pdata[i], "outputs"), "n"));
    }
}

static void
test_compile (Fixture       *f,
              gconstpointer  data)
{
  g_autofree char *formula = g_build_filename (f->dir, "task.md", NULL);
  g_autofree char *outdir = g_build_filename (f->dir, "compiled", NULL);
  g_autofree char *out = g_build_filename (outdir, "out.jsonl", NULL);
  g_autoptr(GPtrArray) rows = NULL;
  g_autoptr(GDir) dir = NULL;
  g_autoptr(GError) error = NULL;
  const char *name;
  guint n_seeds = 0, n_calls;

  g_file_set_contents (formula, "Count the reviews about wifi. " FORMULA_MARKER "\n", -1, &error);
  g_assert_no_error (error);
  g_mkdir_with_parents (outdir, 0755);

  g_assert_cmpint (run_formula (NULL, NULL, "--formula", formula, "--out", out,
                                "--base-url", f->url, "--model", "fake", NULL), ==, 0);
  rows = read_lines (out);
  check_rows (f, rows, f->item_ids->len);
  /* Phase 1 once, then the extractions. */
  g_assert_cmpuint (anot_fake_llm_get_n_requests (f->server), ==, f->n_relevant + 1);

  dir = g_dir_open (outdir, 0, &error);
  g_assert_no_error (error);
  while ((name = g_dir_read_name (dir)) != NULL)
    if (g_str_has_prefix (name, "formula-seed-") && g_str_has_suffix (name, ".json"))
      {
        g_autofree char *path = g_build_filename (outdir, name, NULL);
        g_autoptr(AnotFormulaSeed) seed = anot_formula_seed_load (path, FALSE, &error);

        g_assert_no_error (error);
        g_assert_cmpuint (anot_formula_seed_get_n_steps (seed), ==, 3);
        n_seeds++;
      }
  g_assert_cmpuint (n_seeds, ==, 1);

  /* Again: the cached seed, no Phase-1 call. */
  n_calls = anot_fake_llm_get_n_requests (f->server);
  g_assert_cmpint (run_formula (NULL, NULL, "--formula", formula, "--out", out,
                                "--base-url", f->url, "--model", "fake", NULL), ==, 0);
  g_assert_cmpuint (anot_fake_llm_get_n_requests (f->server) - n_calls, ==, f->n_relevant);
}

static void
test_bad_seed (Fixture       *f,
               gconstpointer  data)
{
  g_autofree char *bad = g_build_filename (f->dir, "bad.json", NULL);
  g_autofree char *err = NULL;
  g_autofree char *out = NULL;
  g_autoptr(GError) error = NULL;
  /* output_fields names a step that does not exist. */
  g_autofree char *text = g_strdup (SEED_JSON);
  char *at = strstr (text, "\"high\"]}");

  g_assert_nonnull (at);
  memcpy (at, "\"hugh\"", 6);
  g_file_set_contents (bad, text, -1, &error);
  g_assert_no_error (error);

  g_assert_cmpint (run_formula (&out, &err, "--seed-file", bad, "--base-url", f->url, NULL), ==, 1);
  g_assert_nonnull (strstr (err, "output_fields"));
  g_assert_nonnull (strstr (err, "hugh"));
  g_assert_cmpstr (out, ==, "");
  g_assert_cmpuint (anot_fake_llm_get_n_requests (f->server), ==, 0);
}

static void
test_usage_errors (Fixture       *f,
                   gconstpointer  data)
{
  g_autofree char *err = NULL;

  g_assert_cmpint (run_formula (NULL, &err, "--seed-file", f->seed_path, "--bogus", NULL), ==, 2);
  g_assert_nonnull (strstr (err, "--bogus"));
  g_clear_pointer (&err, g_free);
  g_assert_cmpint (run_formula (NULL, &err, "--seed-file", f->seed_path, "--concurrency", "0", NULL), ==, 2);
  g_assert_nonnull (strstr (err, "--concurrency"));
  g_clear_pointer (&err, g_free);
  g_assert_cmpint (run_formula (NULL, &err, NULL), ==, 2);
  g_assert_nonnull (strstr (err, "--seed-file"));
  g_clear_pointer (&err, g_free);
  g_assert_cmpint (run_formula (NULL, &err, "--seed-file", f->seed_path, "--formula", f->seed_path, NULL), ==, 2);
  g_assert_cmpuint (anot_fake_llm_get_n_requests (f->server), ==, 0);
}

/* The server is down for the whole run: an item with a relevant review
 * cannot be computed, so its line says it is incomplete and has no outputs
 * (outputs over no extraction would read as "no wifi reviews"), and the
 * run ends with status 4.  The server back, a run gives every output. */
static void
test_outage (Fixture       *f,
             gconstpointer  data)
{
  g_autofree char *out = g_build_filename (f->dir, "out.jsonl", NULL);
  g_autofree char *err = NULL;
  g_autoptr(GPtrArray) rows = NULL;
  guint n_incomplete = 0, n_complete = 0;

  anot_fake_llm_set_down (f->server, TRUE);
  g_assert_cmpint (run_formula (NULL, &err, "--seed-file", f->seed_path, "--out", out,
                                "--concurrency", "2", "--base-url", f->url, "--model", "fake", NULL),
                   ==, 4);
  g_assert_nonnull (strstr (err, "incomplete"));
  g_assert_nonnull (strstr (err, "Cannot reach"));
  rows = read_lines (out);
  g_assert_cmpuint (rows->len, ==, f->item_ids->len);
  for (guint i = 0; i < rows->len; i++)
    {
      JsonObject *row = rows->pdata[i];
      Expected *e = g_hash_table_lookup (f->expected, json_object_get_string_member (row, "item_id"));
      JsonObject *outputs = json_object_get_object_member (row, "outputs");
      JsonArray *errors = json_object_get_array_member (row, "errors");

      if (e->n == 0)
        {
          /* No call to make: complete, as with the server up. */
          g_assert_false (json_object_has_member (row, "incomplete"));
          g_assert_cmpint (json_object_get_int_member (outputs, "n"), ==, 0);
          n_complete++;
          continue;
        }
      g_assert_true (json_object_get_boolean_member (row, "incomplete"));
      g_assert_cmpuint (json_object_get_size (outputs), ==, 0);
      g_assert_cmpint (json_object_get_int_member (json_object_get_object_member (row, "extractions"), "failed"),
                       ==, e->n);
      g_assert_cmpuint (json_array_get_length (errors), ==, e->n);
      for (guint j = 0; j < json_array_get_length (errors); j++)
        g_assert_cmpstr (json_object_get_string_member (json_array_get_object_element (errors, j), "error_class"),
                         ==, "infrastructure");
      n_incomplete++;
    }
  /* Else one of the two cases would go untested. */
  g_assert_cmpuint (n_incomplete, >, 0);
  g_assert_cmpuint (n_complete, >, 0);

  anot_fake_llm_set_down (f->server, FALSE);
  g_clear_pointer (&rows, g_ptr_array_unref);
  g_assert_cmpint (run_formula (NULL, NULL, "--seed-file", f->seed_path, "--out", out,
                                "--concurrency", "2", "--base-url", f->url, "--model", "fake", NULL),
                   ==, 0);
  rows = read_lines (out);
  check_rows (f, rows, f->item_ids->len);
}

/* The server refuses the key (for the calls of 5-star reviews): every
 * other call would get the same, so the run stops at the first, exits 1
 * with the message, and writes no line for the item (nor for any later
 * one: one item at a time). */
static void
test_key_refused (Fixture       *f,
                  gconstpointer  data)
{
  g_autofree char *out = g_build_filename (f->dir, "out.jsonl", NULL);
  g_autofree char *err = NULL;
  g_autoptr(GPtrArray) rows = NULL;
  guint first = 0;

  while (first < f->item_ids->len &&
         !((Expected *) g_hash_table_lookup (f->expected, f->item_ids->pdata[first]))->five_stars)
    first++;
  /* Else the refusal would never be met. */
  g_assert_cmpuint (first, <, f->item_ids->len);

  g_assert_cmpint (run_formula (NULL, &err, "--seed-file", f->seed_path, "--out", out,
                                "--concurrency", "1", "--base-url", f->url, "--model", "fake", NULL),
                   ==, 1);
  g_assert_nonnull (strstr (err, "refused the API key"));
  g_assert_nonnull (strstr (err, "stopped at the first"));
  rows = read_lines (out);
  check_rows (f, rows, first);
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);

  g_test_add ("/formula-cli/seed-file", Fixture, NULL, fixture_setup, test_seed_file, fixture_teardown);
  g_test_add ("/formula-cli/limit-stdout-trace", Fixture, NULL, fixture_setup, test_limit_stdout_trace, fixture_teardown);
  g_test_add ("/formula-cli/compile", Fixture, NULL, fixture_setup, test_compile, fixture_teardown);
  g_test_add ("/formula-cli/bad-seed", Fixture, NULL, fixture_setup, test_bad_seed, fixture_teardown);
  g_test_add ("/formula-cli/usage-errors", Fixture, NULL, fixture_setup, test_usage_errors, fixture_teardown);
  g_test_add ("/formula-cli/outage", Fixture, NULL, fixture_setup, test_outage, fixture_teardown);
  g_test_add ("/formula-cli/key-refused", Fixture,
              "  {\"match\": \"STARS 5\\\\.0 TEXT\", \"fault\": \"401\"},",
              fixture_setup, test_key_refused, fixture_teardown);
  return g_test_run ();
}
