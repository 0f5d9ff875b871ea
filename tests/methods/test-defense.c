/* test-defense.c: defense mode reaches every call of every LLM method
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Every method registered with ANOT_PLUGIN_SUPPORTS_DEFENSE ranks the same
 * request twice against the fake LLM server, without and with defense
 * mode, every call for a role it declared.  Without it no request carries the defense text; with it every
 * request does (each one shows the model the request, reviews or data),
 * and the two runs' requests differ.  The methods without the flag are the
 * ones that call no LLM, and an experiment refuses to run them in defense
 * mode.
 */
#include <anot/anot.h>

#include "anot-test-data.h"

#include "anot-fake-llm.h"
#include "anot-test-backend.h"

#include <string.h>

/* Replies every method can read far enough to make more than one call
 * where it has several: a ranking line, a step, a JSON plan or seed. */
static const char *rules =
  "{\"rules\": ["
  "  {\"match\": \"Formula Seed\", \"reply\": \"{\\\"task_name\\\": \\\"t\\\", \\\"filter_keywords\\\": [], "
  "\\\"extraction_fields\\\": [{\\\"name\\\": \\\"good\\\", \\\"type\\\": \\\"bool\\\", \\\"values\\\": []}], "
  "\\\"extraction_prompt\\\": \\\"Is it good? {review_text}\\\", "
  "\\\"compute_dag\\\": [{\\\"name\\\": \\\"score\\\", \\\"formula\\\": \\\"len(extractions)\\\"}], "
  "\\\"output_fields\\\": [\\\"score\\\"]}\"},"
  "  {\"match\": \"^Write an Atom of Thought plan\","
  "   \"reply\": \"{\\\"atoms\\\": ["
  "{\\\"id\\\": 1, \\\"kind\\\": \\\"tool\\\", \\\"name\\\": \\\"llm_judge\\\", \\\"input\\\": {\\\"item\\\": \\\"*\\\", \\\"question\\\": \\\"Good?\\\"}, \\\"dependsOn\\\": []},"
  "{\\\"id\\\": 2, \\\"kind\\\": \\\"final\\\", \\\"name\\\": \\\"rank\\\", \\\"input\\\": {\\\"scores\\\": [\\\"$1\\\"]}, \\\"dependsOn\\\": [1]}"
  "]}\"},"
  "  {\"match\": \"^Question about one item\", \"reply\": \"Score: 7\"},"
  "  {\"match\": \"Your ranking:\", \"reply\": \"[2] > [1] > [3]\"},"
  "  {\"match\": \"\", \"reply\": \"Thought: enough.\\nAction: finish(\\\"2, 1, 3\\\")\\n"
  "Step 1: check.\\n{\\\"good\\\": true}\\nANSWER: 2, 1, 3\"}"
  "]}";

typedef struct
{
  GPtrArray *systems;  /* char *, "" for none */
  GPtrArray *users;    /* char * */
} Calls;

static void
calls_clear (Calls *calls)
{
  g_clear_pointer (&calls->systems, g_ptr_array_unref);
  g_clear_pointer (&calls->users, g_ptr_array_unref);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (Calls, calls_clear)

/* What @method sent ranking the first request of the demo, with or
 * without defense mode. */
static void
record_calls (const char *method_name,
              gboolean    defense,
              gboolean    compat,
              Calls      *calls)
{
  g_autoptr(AnotFakeLlm) server = anot_fake_llm_new ();
  g_autoptr(AnotBackend) backend = NULL;
  g_autoptr(AnotBackendRouter) router = anot_backend_router_new ();
  g_autoptr(AnotMethod) method = NULL;
  g_autoptr(AnotMethodContext) context = NULL;
  g_autoptr(AnotRanking) ranking = NULL;
  g_autoptr(GPtrArray) candidates = g_ptr_array_new ();
  g_autoptr(GError) error = NULL;
  AnotDataset *demo = anot_test_get_demo ();
  AnotRequest *request = anot_dataset_get_request (demo, 0);
  g_auto(GStrv) roles = NULL;

  anot_fake_llm_set_record_bodies (server, TRUE);
  g_assert_true (anot_fake_llm_set_rules_json (server, rules, &error));
  g_assert_true (anot_fake_llm_start (server, 0, &error));
  g_assert_no_error (error);
  /* Each role the method declared has its own model; the default role
   * is "undeclared" unless declared, so a call of a role the method did
   * not declare (which the key check before a run would miss) shows. */
  backend = anot_test_backend_new (server, NULL, "undeclared", 1, 0);
  g_object_set (backend, "retry-max-ms", 2, NULL);
  anot_backend_router_set_route (router, ANOT_DEFAULT_ROLE, "openai", backend, NULL);
  roles = anot_registry_list_method_roles (anot_registry_get_default (),
                                           strcmp (method_name, "anot-head") == 0 ? "anot" : method_name);
  g_assert_nonnull (roles);
  g_assert_nonnull (roles[0]);
  for (guint i = 0; roles[i] != NULL; i++)
    {
      g_autoptr(AnotBackend) role_backend = anot_test_backend_new (server, NULL, roles[i], 1, 0);

      g_object_set (role_backend, "retry-max-ms", 2, NULL);
      anot_backend_router_set_route (router, roles[i], "openai", role_backend, NULL);
    }

  for (guint i = 0; i < 5; i++)
    g_ptr_array_add (candidates, anot_dataset_get_item (demo, i));
  /* anot-head: the anot method with anot.variant=head (ANoT-HEAD). */
  method = anot_registry_create_method (anot_registry_get_default (),
                                        strcmp (method_name, "anot-head") == 0 ? "anot" : method_name,
                                        &error);
  g_assert_no_error (error);
  context = anot_method_context_new (demo, anot_request_get_id (request), 1);
  anot_method_context_set_router (context, router);
  anot_method_context_set_defense (context, defense);
  if (compat)
    anot_method_context_set_compat (context, ANOT_COMPAT_MODE_ORIGINAL);
  /* Bounded, so that a method the generic replies do not satisfy stops
   * soon; what matters is what each call carries. */
  if (strcmp (method_name, "lats") == 0)
    {
      anot_method_context_set_option (context, "lats.max_iterations", "1");
      anot_method_context_set_option (context, "lats.beam_width", "1");
    }
  if (g_str_has_prefix (method_name, "anot"))
    anot_method_context_set_option (context, "anot.max_rounds", "1");
  if (strcmp (method_name, "anot-head") == 0)
    anot_method_context_set_option (context, "anot.variant", "head");

  /* A method may fail on the generic replies: the calls it made count. */
  ranking = anot_test_rank (method, request, candidates, 3, context, NULL, NULL);

  calls->systems = g_ptr_array_new_with_free_func (g_free);
  calls->users = g_ptr_array_new_with_free_func (g_free);
  for (guint i = 0; i < anot_fake_llm_get_n_requests (server); i++)
    {
      JsonObject *record = anot_fake_llm_get_request (server, i);
      JsonObject *body = json_object_get_object_member (record, "body");
      JsonArray *messages = json_object_get_array_member (body, "messages");
      JsonObject *first = json_array_get_object_element (messages, 0);
      gboolean has_system = g_strcmp0 (json_object_get_string_member (first, "role"), "system") == 0;

      if (!g_strv_contains ((const char * const *) roles, json_object_get_string_member (body, "model")))
        g_error ("%s: call %u is for a role it did not declare (anot_plugin_declare_method_roles)",
                 method_name, i + 1);

      g_ptr_array_add (calls->systems,
                       g_strdup (has_system ? json_object_get_string_member (first, "content") : ""));
      g_ptr_array_add (calls->users, g_strdup (json_object_get_string_member (record, "last_user")));
    }
}

static guint
count (const char *haystack,
       const char *needle)
{
  guint n = 0;

  for (const char *p = strstr (haystack, needle); p != NULL; p = strstr (p + 1, needle))
    n++;
  return n;
}

static void
test_method (gconstpointer data)
{
  const char *method_name = data;
  g_autoptr(AnotMethodContext) probe = anot_method_context_new (anot_test_get_demo (), "probe", 1);
  g_auto(Calls) plain = { 0 };
  g_auto(Calls) defended = { 0 };
  g_autofree char *defense = NULL;
  gboolean differ = FALSE;

  anot_method_context_set_defense (probe, TRUE);
  defense = g_strdup (anot_method_context_get_defense_prompt (probe));
  g_assert_nonnull (defense);

  record_calls (method_name, FALSE, FALSE, &plain);
  record_calls (method_name, TRUE, FALSE, &defended);
  g_test_message ("%s: %u calls without defense, %u with", method_name, plain.users->len,
                  defended.users->len);
  g_assert_cmpuint (plain.users->len, >, 0);
  g_assert_cmpuint (defended.users->len, >, 0);

  for (guint i = 0; i < plain.users->len; i++)
    {
      g_assert_null (strstr (plain.systems->pdata[i], defense));
      g_assert_null (strstr (plain.users->pdata[i], defense));
    }
  for (guint i = 0; i < defended.users->len; i++)
    {
      guint n = count (defended.systems->pdata[i], defense) + count (defended.users->pdata[i], defense);

      /* Once: added by two layers it would be twice. */
      if (n != 1)
        g_error ("%s: call %u of %u in defense mode has the defense text %u times:\n%s\n---\n%.300s",
                 method_name, i + 1, defended.users->len, n, (char *) defended.systems->pdata[i],
                 (char *) defended.users->pdata[i]);
    }
  for (guint i = 0; i < MIN (plain.users->len, defended.users->len) && !differ; i++)
    differ = strcmp (plain.systems->pdata[i], defended.systems->pdata[i]) != 0 ||
             strcmp (plain.users->pdata[i], defended.users->pdata[i]) != 0;
  g_assert_true (differ || plain.users->len != defended.users->len);
}

/* The methods without the flag call no LLM; every LLM method has it. */
static void
test_flags (void)
{
  AnotRegistry *registry = anot_registry_get_default ();
  g_auto(GStrv) names = anot_registry_list (registry, ANOT_METHOD_EXTENSION_POINT_NAME);
  static const char * const llm_methods[] = {
    "anot", "aot", "cot", "general_anot", "lats", "listwise", "plan_act", "ps", "react", "weaver", NULL
  };
  static const char * const plain_methods[] = { "bm25", "oracle", "random", NULL };

  for (guint i = 0; llm_methods[i] != NULL; i++)
    g_assert_true ((anot_registry_get_flags (registry, ANOT_METHOD_EXTENSION_POINT_NAME, llm_methods[i]) &
                    ANOT_PLUGIN_SUPPORTS_DEFENSE) != 0);
  for (guint i = 0; plain_methods[i] != NULL; i++)
    {
      g_auto(GStrv) roles = anot_registry_list_method_roles (registry, plain_methods[i]);

      g_assert_true ((anot_registry_get_flags (registry, ANOT_METHOD_EXTENSION_POINT_NAME, plain_methods[i]) &
                      ANOT_PLUGIN_SUPPORTS_DEFENSE) == 0);
      /* Declared as calling no LLM: a run needs no key. */
      g_assert_nonnull (roles);
      g_assert_null (roles[0]);
    }
  for (guint i = 0; llm_methods[i] != NULL; i++)
    g_assert_true (g_strv_contains ((const char * const *) names, llm_methods[i]));
}

/* An experiment refuses defense mode for a method without the flag,
 * before it writes anything. */
static void
test_refused (void)
{
  g_autoptr(AnotExperiment) experiment = anot_experiment_new (anot_test_get_demo (), "bm25");
  g_autofree char *root = g_dir_make_tmp ("anot-defense-XXXXXX", NULL);
  g_autofree char *directory = g_build_filename (root, "refused", NULL);
  g_autoptr(GError) error = NULL;

  anot_experiment_set_option (experiment, "defense", "true");
  anot_experiment_set_option (experiment, "out", root);
  anot_experiment_set_option (experiment, "name", "refused");
  g_assert_false (anot_experiment_prepare (experiment, &error));
  g_assert_error (error, ANOT_ERROR, ANOT_ERROR_INVALID_ARGUMENT);
  g_assert_nonnull (strstr (error->message, "bm25"));
  g_assert_nonnull (strstr (error->message, "defense"));
  g_assert_false (g_file_test (directory, G_FILE_TEST_EXISTS));
  anot_test_remove_tree (root);
}

/* --compat original --defense: cot sends the original's own defense
 * preamble before the original's wording, not anot's text; listwise adds
 * the defense text to the user prompt too (methods.md §4, attacks.md §5). */
static void
test_compat_original (void)
{
  g_autoptr(AnotMethodContext) probe = anot_method_context_new (anot_test_get_demo (), "probe", 1);
  g_auto(Calls) cot = { 0 };
  g_auto(Calls) listwise = { 0 };
  const char *defense;

  anot_method_context_set_defense (probe, TRUE);
  defense = anot_method_context_get_defense_prompt (probe);

  record_calls ("cot", TRUE, TRUE, &cot);
  g_assert_cmpuint (cot.systems->len, ==, 1);
  g_assert_true (g_str_has_prefix (cot.systems->pdata[0], "DATA QUALITY: before judging, check the reviews"));
  g_assert_nonnull (strstr (cot.systems->pdata[0], "\n\nYou select the restaurant that best matches"));
  g_assert_nonnull (strstr (cot.systems->pdata[0], "Reply with only ANSWER: <number>."));
  g_assert_null (strstr (cot.systems->pdata[0], defense));
  g_assert_null (strstr (cot.users->pdata[0], defense));

  record_calls ("listwise", TRUE, TRUE, &listwise);
  g_assert_cmpuint (listwise.systems->len, ==, 1);
  g_assert_cmpuint (count (listwise.systems->pdata[0], defense), ==, 1);
  g_assert_cmpuint (count (listwise.users->pdata[0], defense), ==, 1);
}

int
main (int    argc,
      char **argv)
{
  static const char * const methods[] = {
    "anot", "anot-head", "aot", "cot", "general_anot", "lats", "listwise", "plan_act", "ps", "react", "weaver",
  };

  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/defense/flags", test_flags);
  g_test_add_func ("/defense/refused", test_refused);
  g_test_add_func ("/defense/compat-original", test_compat_original);
  for (guint i = 0; i < G_N_ELEMENTS (methods); i++)
    {
      g_autofree char *path = g_strdup_printf ("/defense/every-call/%s", methods[i]);

      g_test_add_data_func (path, methods[i], test_method);
    }
  return g_test_run ();
}
