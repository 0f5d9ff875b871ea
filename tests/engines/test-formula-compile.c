/* test-formula-compile.c: Phase 1 of General ANoT (a task formula compiled
 * into a Formula Seed by an LLM) against the fake LLM server, and the two
 * forms of Phase 2's result (tree and text)
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include <anot/anot.h>
#include <string.h>

#include "anot-fake-llm.h"
#include "anot-test-backend.h"

#define TEST_KEY "sk-test-compile"

static const char *valid_seed =
  "{\"task_name\": \"nuts\", \"filter_keywords\": [\"nut\", \"allerg\"],"
  " \"extraction_fields\": [{\"name\": \"severity\", \"type\": \"enum\", \"values\": [\"none\", \"mild\", \"severe\"]}],"
  " \"extraction_prompt\": \"Review: {review_text}. Answer with the severity as JSON.\","
  " \"compute_dag\": [{\"name\": \"n_severe\", \"formula\": \"sum(1 for e in extractions if e['severity'] == 'severe')\"},"
  "                  {\"name\": \"score\", \"formula\": \"min(10.0, n_severe * 5.0)\"}],"
  " \"output_fields\": [\"n_severe\", \"score\"]}";

/* Reads a name nothing defines. */
static const char *invalid_seed =
  "{\"task_name\": \"nuts\", \"filter_keywords\": [\"nut\"],"
  " \"extraction_fields\": [{\"name\": \"severity\", \"type\": \"enum\", \"values\": [\"none\", \"severe\"]}],"
  " \"extraction_prompt\": \"Review: {review_text}\","
  " \"compute_dag\": [{\"name\": \"n_severe\", \"formula\": \"sum(1 for r in reviews if r['severity'] == 'severe')\"}],"
  " \"output_fields\": [\"n_severe\"]}";

typedef struct {
  AnotFakeLlm *server;
  AnotBackendRouter *router;
  AnotDataset *dataset;
  char *cache_dir;
} Fixture;

/* Rules from (match, reply) pairs, NULL-terminated.  The server expands
 * \1 ... in replies, so the replies have no backslashes. */
static char *
rules_json (const char *first,
            ...)
{
  g_autoptr(JsonBuilder) builder = json_builder_new ();
  g_autoptr(JsonNode) root = NULL;
  va_list args;

  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "rules");
  json_builder_begin_array (builder);
  va_start (args, first);
  for (const char *match = first; match != NULL; match = va_arg (args, const char *))
    {
      json_builder_begin_object (builder);
      json_builder_set_member_name (builder, "match");
      json_builder_add_string_value (builder, match);
      json_builder_set_member_name (builder, "reply");
      json_builder_add_string_value (builder, va_arg (args, const char *));
      json_builder_end_object (builder);
    }
  va_end (args);
  json_builder_end_array (builder);
  json_builder_end_object (builder);
  root = json_builder_get_root (builder);
  return json_to_string (root, FALSE);
}

static void
fixture_start (Fixture    *f,
               const char *rules)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *demo = g_build_filename (g_getenv ("ANOT_DATA_DIR"), "demo", NULL);
  g_autoptr(AnotBackend) backend = NULL;

  f->server = anot_test_fake_llm_start (rules, TEST_KEY);

  backend = anot_test_backend_new (f->server, TEST_KEY, "fake-model", 1, 10000);
  f->router = anot_backend_router_new ();
  anot_backend_router_set_route (f->router, ANOT_DEFAULT_ROLE, "openai", backend, NULL);
  f->dataset = anot_dataset_load (demo, NULL, &error);
  g_assert_no_error (error);
  f->cache_dir = g_build_filename (g_get_user_cache_dir (), "seeds", NULL);
}

static void
fixture_stop (Fixture *f)
{
  g_clear_object (&f->router);
  g_clear_object (&f->server);
  g_clear_object (&f->dataset);
  g_clear_pointer (&f->cache_dir, g_free);
}

static void
on_done (GObject      *source,
         GAsyncResult *result,
         gpointer      user_data)
{
  *(GAsyncResult **) user_data = g_object_ref (result);
}

static AnotFormulaSeed *
compile (Fixture     *f,
         const char  *formula,
         GError     **error)
{
  g_autoptr(AnotMethodContext) context = anot_method_context_new (f->dataset, "r1", 1);
  g_autoptr(GAsyncResult) result = NULL;

  anot_method_context_set_router (context, f->router);
  anot_formula_seed_compile_async (context, formula, f->cache_dir, NULL, on_done, &result);
  while (result == NULL)
    g_main_context_iteration (NULL, TRUE);
  return anot_formula_seed_compile_finish (result, error);
}

static const char *
last_user (AnotFakeLlm *server,
           guint        index)
{
  return json_object_get_string_member_with_default (anot_fake_llm_get_request (server, index), "last_user", "");
}

/* A malformed seed goes back with its validation error; the repaired one
 * is cached, so the same formula makes no new call. */
static void
test_repair_and_cache (void)
{
  g_autofree char *rules = rules_json ("^That is not a valid Formula Seed", valid_seed,
                                       "^TASK FORMULA", invalid_seed, NULL);
  Fixture f = { 0 };
  g_autoptr(GError) error = NULL;
  g_autoptr(AnotFormulaSeed) seed = NULL;
  g_autoptr(AnotFormulaSeed) again = NULL;
  g_autofree char *cache_path = NULL;
  JsonObject *body;
  JsonArray *messages;
  const char *repair;

  fixture_start (&f, rules);
  seed = compile (&f, "Count the severe nut allergy incidents; score 5 per incident, at most 10.", &error);
  g_assert_no_error (error);
  g_assert_nonnull (seed);
  g_assert_cmpuint (anot_fake_llm_get_n_requests (f.server), ==, 2);
  g_assert_cmpuint (anot_formula_seed_get_n_steps (seed), ==, 2);
  g_assert_cmpstr (anot_formula_seed_get_step_name (seed, 1), ==, "score");

  /* The first call asks for JSON following the seed's schema. */
  body = json_object_get_object_member (anot_fake_llm_get_request (f.server, 0), "body");
  g_assert_cmpstr (json_object_get_string_member (json_object_get_object_member (body, "response_format"), "type"),
                   ==, "json_schema");
  g_assert_cmpstr (json_object_get_string_member (json_object_get_object_member (json_object_get_object_member (body, "response_format"),
                                                                                 "json_schema"), "name"),
                   ==, "formula_seed");
  g_assert_true (g_str_has_prefix (last_user (f.server, 0), "TASK FORMULA:\nCount the severe nut allergy incidents"));

  /* The repair carries the model's answer and the error naming the key. */
  repair = last_user (f.server, 1);
  g_assert_true (g_str_has_prefix (repair, "That is not a valid Formula Seed: Formula Seed: compute_dag[0].formula (“n_severe”): "
                                           "reads “reviews”, which is not defined"));
  body = json_object_get_object_member (anot_fake_llm_get_request (f.server, 1), "body");
  messages = json_object_get_array_member (body, "messages");
  g_assert_cmpuint (json_array_get_length (messages), ==, 4);
  g_assert_cmpstr (json_object_get_string_member (json_array_get_object_element (messages, 2), "role"), ==, "assistant");
  g_assert_cmpstr (json_object_get_string_member (json_array_get_object_element (messages, 2), "content"), ==, invalid_seed);

  /* Written to the cache directory, and reused without a call. */
  cache_path = anot_formula_seed_compile_cache_path (f.cache_dir, "Count the severe nut allergy incidents; score 5 per incident, at most 10.");
  g_assert_true (g_file_test (cache_path, G_FILE_TEST_EXISTS));
  again = compile (&f, "Count the severe nut allergy incidents; score 5 per incident, at most 10.", &error);
  g_assert_no_error (error);
  g_assert_cmpuint (anot_fake_llm_get_n_requests (f.server), ==, 2);
  g_assert_cmpstr (anot_formula_seed_get_step_formula (again, 1), ==, "min(10.0, n_severe * 5.0)");
  g_clear_pointer (&again, anot_formula_seed_unref);

  /* Another formula is another seed. */
  again = compile (&f, "Another task", &error);
  g_assert_no_error (error);
  g_assert_cmpuint (anot_fake_llm_get_n_requests (f.server), ==, 4);
  g_clear_pointer (&again, anot_formula_seed_unref);

  /* A damaged cache file is compiled again and replaced. */
  g_assert_true (g_file_set_contents (cache_path, "{\"filter_keywords\": 3}", -1, NULL));
  again = compile (&f, "Count the severe nut allergy incidents; score 5 per incident, at most 10.", &error);
  g_assert_no_error (error);
  g_assert_cmpuint (anot_fake_llm_get_n_requests (f.server), ==, 6);
  g_clear_pointer (&again, anot_formula_seed_unref);
  again = anot_formula_seed_load (cache_path, FALSE, &error);
  g_assert_no_error (error);

  fixture_stop (&f);
}

/* Two repairs at most: the third invalid answer is an error. */
static void
test_repairs_exhausted (void)
{
  g_autofree char *rules = rules_json ("", "{\"filter_keywords\": [\"x\"]}", NULL);
  Fixture f = { 0 };
  g_autoptr(GError) error = NULL;
  g_autoptr(AnotFormulaSeed) seed = NULL;

  fixture_start (&f, rules);
  seed = compile (&f, "Some task", &error);
  g_assert_null (seed);
  g_assert_error (error, ANOT_ERROR, ANOT_ERROR_METHOD_FAILED);
  g_assert_cmpstr (error->message, ==,
                   "Phase 1: the LLM wrote no valid Formula Seed in 3 answers; the last one: "
                   "Formula Seed: extraction_fields: the key is missing");
  g_assert_cmpuint (anot_fake_llm_get_n_requests (f.server), ==, 3);
  fixture_stop (&f);
}

/* Models wrap JSON in prose and code fences even when told not to. */
static void
test_fenced_answer (void)
{
  g_autofree char *fenced = g_strdup_printf ("Here is the seed:\n```json\n%s\n```\nDone.", valid_seed);
  g_autofree char *rules = rules_json ("", fenced, NULL);
  Fixture f = { 0 };
  g_autoptr(GError) error = NULL;
  g_autoptr(AnotFormulaSeed) seed = NULL;

  fixture_start (&f, rules);
  seed = compile (&f, "Fenced", &error);
  g_assert_no_error (error);
  g_assert_cmpstr (anot_formula_seed_get_task_name (seed), ==, "nuts");
  g_assert_cmpuint (anot_fake_llm_get_n_requests (f.server), ==, 1);
  fixture_stop (&f);
}

static void
test_schema (void)
{
  g_autoptr(JsonNode) schema = anot_formula_seed_get_json_schema ();
  JsonObject *object;
  g_autoptr(GError) error = NULL;
  g_autoptr(AnotFormulaSeed) seed = NULL;

  g_assert_nonnull (schema);
  object = json_node_get_object (schema);
  g_assert_cmpuint (json_array_get_length (json_object_get_array_member (object, "required")), ==, 6);
  g_assert_false (json_object_get_boolean_member (object, "additionalProperties"));
  /* A seed in the schema's strict form (empty values for non-enums) loads. */
  seed = anot_formula_seed_new_from_data ("{\"task_name\": \"t\", \"filter_keywords\": [\"a\"],"
                                          " \"extraction_fields\": [{\"name\": \"n\", \"type\": \"int\", \"values\": []}],"
                                          " \"extraction_prompt\": \"{review_text}\","
                                          " \"compute_dag\": [{\"name\": \"s\", \"formula\": \"sum(e['n'] for e in extractions)\"}],"
                                          " \"output_fields\": [\"s\"]}", -1, FALSE, &error);
  g_assert_no_error (error);
  g_assert_nonnull (seed);
}

static void
on_executed (GObject      *source,
             GAsyncResult *result,
             gpointer      user_data)
{
  *(GAsyncResult **) user_data = g_object_ref (result);
}

/* anot_formula_seed_execute_finish_text() writes exactly what
 * anot_formula_seed_execute_finish() builds, for every demo item: valid,
 * invalid and no relevant answers, failing and succeeding steps. */
static void
test_execute_tree_and_text (void)
{
  static const char *seed_json =
    "{\"task_name\": \"t\", \"filter_keywords\": [\"the\"],"
    " \"extraction_fields\": [{\"name\": \"severity\", \"type\": \"enum\", \"values\": [\"none\", \"mild\", \"severe\"]},"
    "                         {\"name\": \"count\", \"type\": \"int\"}, {\"name\": \"quote\", \"type\": \"string\"}],"
    " \"extraction_prompt\": \"Review: {review_text}\","
    " \"compute_dag\": [{\"name\": \"n\", \"formula\": \"len(extractions)\"},"
    "                  {\"name\": \"total\", \"formula\": \"sum(e['count'] for e in extractions)\"},"
    "                  {\"name\": \"mean\", \"formula\": \"total / n\"},"
    "                  {\"name\": \"third\", \"formula\": \"mean / 3 + 0.1\"},"
    "                  {\"name\": \"quotes\", \"formula\": \"[e['quote'] for e in extractions if e['severity'] == 'mild']\"}],"
    " \"output_fields\": [\"n\", \"mean\", \"third\", \"quotes\"]}";
  Fixture f = { 0 };
  g_autoptr(GError) error = NULL;
  g_autofree char *rules = rules_json ("(?i)^Review: [^\\n]*wifi", "I would rather not say.",
                                       "^Review: (\\S+) (\\S+)",
                                       "{\"severity\": \"mild\", \"count\": 3, \"quote\": \"\\1 \\u00e9 \\\\ \\2\"}",
                                       NULL);
  g_autoptr(AnotFormulaSeed) seed = anot_formula_seed_new_from_data (seed_json, -1, FALSE, &error);
  guint n_invalid = 0, n_failed = 0;

  g_assert_no_error (error);
  fixture_start (&f, rules);
  for (guint i = 0; i < anot_dataset_get_n_items (f.dataset); i++)
    {
      AnotItem *item = anot_dataset_get_item (f.dataset, i);
      g_autoptr(AnotMethodContext) context = anot_method_context_new (f.dataset, anot_item_get_id (item), 0);
      g_autoptr(GAsyncResult) tree_result = NULL;
      g_autoptr(GAsyncResult) text_result = NULL;
      g_autoptr(JsonObject) tree = NULL;
      g_autoptr(JsonNode) node = json_node_new (JSON_NODE_OBJECT);
      g_autoptr(AnotJsonWriter) expected = anot_json_writer_new ();
      g_autofree char *text = NULL;
      gsize length = 0;

      anot_method_context_set_router (context, f.router);
      anot_formula_seed_execute_async (seed, context, item, NULL, on_executed, &tree_result);
      anot_formula_seed_execute_async (seed, context, item, NULL, on_executed, &text_result);
      while (tree_result == NULL || text_result == NULL)
        g_main_context_iteration (NULL, TRUE);
      tree = anot_formula_seed_execute_finish (seed, tree_result, &error);
      g_assert_no_error (error);
      text = anot_formula_seed_execute_finish_text (seed, text_result, &length, &error);
      g_assert_no_error (error);

      json_node_set_object (node, tree);
      anot_json_writer_add_value (expected, node);
      g_assert_cmpstr (text, ==, anot_json_writer_get_text (expected, NULL));
      g_assert_cmpuint (length, ==, strlen (text));
      n_invalid += json_object_get_int_member (tree, "n_invalid");
      n_failed += json_object_get_int_member (tree, "n_failed");
    }
  /* Otherwise the comparison would not cover them. */
  g_assert_cmpuint (n_invalid, >, 0);
  g_assert_cmpuint (n_failed, >, 0);
  fixture_stop (&f);
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);

  g_test_add_func ("/formula-compile/schema", test_schema);
  g_test_add_func ("/formula-compile/repair-and-cache", test_repair_and_cache);
  g_test_add_func ("/formula-compile/repairs-exhausted", test_repairs_exhausted);
  g_test_add_func ("/formula-compile/fenced-answer", test_fenced_answer);
  g_test_add_func ("/formula-compile/execute-tree-and-text", test_execute_tree_and_text);

  return g_test_run ();
}
