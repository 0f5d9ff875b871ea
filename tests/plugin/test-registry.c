/* test-registry.c: plugin loading, lookup, and the bm25/random/oracle methods
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <anot/anot.h>

#include <math.h>
#include <string.h>

/* A method type registered at runtime, as a Python class would be. */
#define TEST_TYPE_REVERSE_METHOD (test_reverse_method_get_type ())
G_DECLARE_FINAL_TYPE (TestReverseMethod, test_reverse_method, TEST, REVERSE_METHOD, GObject)
#define TEST_TYPE_IDENTITY_METHOD (test_identity_method_get_type ())
G_DECLARE_FINAL_TYPE (TestIdentityMethod, test_identity_method, TEST, IDENTITY_METHOD, GObject)

struct _TestReverseMethod
{
  GObject parent_instance;
};

struct _TestIdentityMethod
{
  GObject parent_instance;
};

static void
order_rank_async (AnotMethod          *method,
                  AnotQuery           *request,
                  GPtrArray           *candidates,
                  guint                k,
                  AnotMethodContext   *context,
                  GCancellable        *cancellable,
                  GAsyncReadyCallback  callback,
                  gpointer             user_data)
{
  g_autoptr(GTask) task = g_task_new (method, cancellable, callback, user_data);
  AnotRanking *ranking = anot_ranking_new ();
  gboolean reverse = TEST_IS_REVERSE_METHOD (method);

  for (guint i = 0; i < candidates->len; i++)
    anot_ranking_append (ranking, reverse ? candidates->len - 1 - i : i, 0);
  g_task_return_pointer (task, ranking, g_object_unref);
}

static AnotRanking *
order_rank_finish (AnotMethod    *method,
                   GAsyncResult  *result,
                   GError       **error)
{
  return g_task_propagate_pointer (G_TASK (result), error);
}

static void
order_iface_init (AnotMethodInterface *iface)
{
  iface->rank_async = order_rank_async;
  iface->rank_finish = order_rank_finish;
}

G_DEFINE_FINAL_TYPE_WITH_CODE (TestReverseMethod, test_reverse_method, G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (ANOT_TYPE_METHOD, order_iface_init))
G_DEFINE_FINAL_TYPE_WITH_CODE (TestIdentityMethod, test_identity_method, G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (ANOT_TYPE_METHOD, order_iface_init))

static void test_reverse_method_class_init (TestReverseMethodClass *klass) { }
static void test_reverse_method_init (TestReverseMethod *self) { }
static void test_identity_method_class_init (TestIdentityMethodClass *klass) { }
static void test_identity_method_init (TestIdentityMethod *self) { }

/* ---- helpers ---------------------------------------------------------- */

/* Four cafes whose BM25 documents are counted by hand in test_bm25_score():
 *
 *   b0  bean cafes wifi free great espresso quiet tables          8 tokens
 *       ("There" and "and" are stopwords, u'free' loses its quotes)
 *   b1  loud mug coffee tea noiselevel loud hastv true
 *       loud music espresso fine espresso espresso                 14 tokens
 *   b2  tea room ambience romantic calm tea                         6 tokens
 *       (BYOB "None" is dropped, and so is the false 'divey' key)
 *   b3  corner spot bakeries                                        3 tokens
 */
static const char tiny_restaurants[] =
  "{\"business_id\": \"b0\", \"name\": \"Bean There\", \"categories\": \"Cafes\","
  " \"attributes\": {\"WiFi\": \"u'free'\"}}\n"
  "{\"business_id\": \"b1\", \"name\": \"Loud Mug\", \"categories\": \"Coffee & Tea\","
  " \"attributes\": {\"NoiseLevel\": \"u'loud'\", \"HasTV\": \"True\"}}\n"
  "{\"business_id\": \"b2\", \"name\": \"Tea Room\","
  " \"attributes\": {\"Ambience\": \"{'romantic': True, 'divey': False}\", \"BYOB\": \"None\"}}\n"
  "{\"business_id\": \"b3\", \"name\": \"Corner Spot\", \"categories\": \"Bakeries\","
  " \"attributes\": {}}\n";

static const char tiny_reviews[] =
  "{\"review_id\": \"r0\", \"business_id\": \"b0\", \"user_id\": \"u0\", \"stars\": 5,"
  " \"text\": \"Great espresso and quiet tables.\"}\n"
  "{\"review_id\": \"r1\", \"business_id\": \"b1\", \"user_id\": \"u1\", \"stars\": 3,"
  " \"text\": \"Loud music, espresso is fine.\"}\n"
  "{\"review_id\": \"r2\", \"business_id\": \"b1\", \"user_id\": \"u2\", \"stars\": 4,"
  " \"text\": \"Espresso espresso!\"}\n"
  "{\"review_id\": \"r3\", \"business_id\": \"b2\", \"user_id\": \"u3\", \"stars\": 4,"
  " \"text\": \"Calm tea.\"}\n";

static const char tiny_requests[] =
  "{\"id\": \"R1\", \"group\": \"G01\", \"text\": \"quiet espresso\","
  " \"structure\": {\"op\": \"AND\", \"args\": [{\"aspect\": \"wifi_free\", \"evidence\":"
  " {\"kind\": \"item_meta\", \"path\": [\"attributes\", \"WiFi\"], \"true\": \"u'free'\"}}]},"
  " \"gold_restaurant\": \"b0\"}\n"
  "{\"id\": \"R2\", \"group\": \"G01\", \"text\": \"Somewhere romantic\","
  " \"structure\": {\"op\": \"AND\", \"args\": [{\"aspect\": \"romantic\", \"evidence\":"
  " {\"kind\": \"item_meta\", \"path\": [\"attributes\", \"Ambience\"], \"contains\": \"'romantic': True\"}}]},"
  " \"gold_restaurant\": \"b2\"}\n"
  "{\"id\": \"R3\", \"group\": \"G01\", \"text\": \"Loud, with a TV\","
  " \"structure\": {\"op\": \"AND\", \"args\": [{\"aspect\": \"loud\", \"evidence\":"
  " {\"kind\": \"item_meta\", \"path\": [\"attributes\", \"NoiseLevel\"], \"true\": \"u'loud'\"}}]},"
  " \"gold_restaurant\": \"b1\"}\n"
  "{\"id\": \"R4\", \"group\": \"G01\", \"text\": \"divey\","
  " \"structure\": {\"op\": \"AND\", \"args\": [{\"aspect\": \"bakery\", \"evidence\":"
  " {\"kind\": \"item_meta\", \"path\": [\"categories\"], \"contains\": \"Bakeries\"}}]},"
  " \"gold_restaurant\": \"b3\"}\n";

static AnotDataset *
load_tiny_dataset (void)
{
  g_autofree char *dir = g_build_filename (g_get_user_data_dir (), "tiny", NULL);
  g_autoptr(GError) error = NULL;
  const struct { const char *name; const char *contents; } files[] = {
    { "restaurants.jsonl", tiny_restaurants },
    { "reviews.jsonl", tiny_reviews },
    { "requests.jsonl", tiny_requests },
  };
  AnotDataset *dataset;

  g_assert_cmpint (g_mkdir_with_parents (dir, 0700), ==, 0);
  for (guint i = 0; i < G_N_ELEMENTS (files); i++)
    {
      g_autofree char *path = g_build_filename (dir, files[i].name, NULL);

      g_file_set_contents (path, files[i].contents, -1, &error);
      g_assert_no_error (error);
    }

  dataset = anot_dataset_load (dir, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (anot_dataset_get_n_items (dataset), ==, 4);
  return dataset;
}

static GPtrArray *
all_items (AnotDataset *dataset)
{
  GPtrArray *items = g_ptr_array_new_with_free_func (g_object_unref);

  for (guint i = 0; i < anot_dataset_get_n_items (dataset); i++)
    g_ptr_array_add (items, g_object_ref (anot_dataset_get_item (dataset, i)));
  return items;
}

static void
got_result (GObject      *source,
            GAsyncResult *result,
            gpointer      user_data)
{
  GAsyncResult **out = user_data;

  *out = g_object_ref (result);
}

static AnotRanking *
rank_sync (AnotMethod         *method,
           AnotRequest        *request,
           GPtrArray          *candidates,
           AnotMethodContext  *context,
           GCancellable       *cancellable,
           GError            **error)
{
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(AnotQuery) query = anot_query_new_for_request (request);

  anot_method_rank_async (method, query, candidates, 5, context, cancellable,
                          got_result, &result);
  while (result == NULL)
    g_main_context_iteration (NULL, TRUE);
  return anot_method_rank_finish (method, result, error);
}

static AnotMethod *
create_method (const char *name)
{
  g_autoptr(GError) error = NULL;
  AnotMethod *method;

  method = anot_registry_create_method (anot_registry_get_default (), name, &error);
  g_assert_no_error (error);
  g_assert_true (ANOT_IS_METHOD (method));
  return method;
}

/* Ranks request @request_id of the tiny dataset with @method_name. */
static AnotRanking *
rank_tiny (AnotDataset *dataset,
           const char  *method_name,
           const char  *request_id,
           const char  *option_key,
           const char  *option_value,
           GError     **error)
{
  g_autoptr(AnotMethod) method = create_method (method_name);
  g_autoptr(AnotMethodContext) context = NULL;
  g_autoptr(GPtrArray) candidates = all_items (dataset);
  AnotRequest *request = anot_dataset_lookup_request (dataset, request_id);

  g_assert_nonnull (request);
  context = anot_method_context_new (dataset, request_id, 0);
  /* As the experiment does: the truth only for a method that declared it. */
  if (anot_registry_get_flags (anot_registry_get_default (), ANOT_METHOD_EXTENSION_POINT_NAME,
                               method_name) & ANOT_PLUGIN_NEEDS_TRUTH)
    anot_method_context_set_truth_request (context, request);
  if (option_key != NULL)
    anot_method_context_set_option (context, option_key, option_value);
  return rank_sync (method, request, candidates, context, NULL, error);
}

static void
assert_order (AnotRanking *ranking,
              const guint *expected,
              guint        n_expected)
{
  g_assert_cmpuint (anot_ranking_get_length (ranking), ==, n_expected);
  for (guint r = 0; r < n_expected; r++)
    g_assert_cmpuint (anot_ranking_get_index (ranking, r), ==, expected[r]);
}

static gboolean
strv_contains_prefix (char       **strv,
                      const char  *prefix,
                      const char  *substring)
{
  for (guint i = 0; strv[i] != NULL; i++)
    if (strstr (strv[i], prefix) != NULL &&
        (substring == NULL || strstr (strv[i] + strlen (prefix), substring) != NULL))
      return TRUE;
  return FALSE;
}

/* ---- registry --------------------------------------------------------- */

static void
test_registry_methods_listed (void)
{
  AnotRegistry *registry = anot_registry_get_default ();
  g_auto(GStrv) methods = anot_registry_list (registry, ANOT_METHOD_EXTENSION_POINT_NAME);
  const char * const expected[] = { "bm25", "oracle", "random" };
  g_auto(GStrv) search_path = NULL;

  g_assert_true (anot_registry_get_default () == registry);

  for (guint i = 0; i < G_N_ELEMENTS (expected); i++)
    {
      const char *description;

      g_assert_true (g_strv_contains ((const char * const *) methods, expected[i]));
      description = anot_registry_get_description (registry, ANOT_METHOD_EXTENSION_POINT_NAME, expected[i]);
      g_assert_nonnull (description);
      g_assert_cmpuint (strlen (description), >, 20);
      g_assert_null (strchr (description, '\n'));
      g_assert_true (anot_registry_lookup_type (registry, ANOT_METHOD_EXTENSION_POINT_NAME, expected[i])
                     != G_TYPE_INVALID);
    }

  for (guint i = 0; methods[i] != NULL && methods[i + 1] != NULL; i++)
    g_assert_cmpstr (methods[i], <, methods[i + 1]);

  g_assert_nonnull (strstr (anot_registry_get_description (registry, ANOT_METHOD_EXTENSION_POINT_NAME, "oracle"),
                            "upper bound"));
  g_assert_null (anot_registry_get_description (registry, ANOT_METHOD_EXTENSION_POINT_NAME, "no-such-method"));
  g_assert_cmpuint (anot_registry_lookup_type (registry, ANOT_METHOD_EXTENSION_POINT_NAME, "no-such-method"),
                    ==, G_TYPE_INVALID);
  /* A method is not an attack. */
  g_assert_null (anot_registry_get_description (registry, ANOT_ATTACK_EXTENSION_POINT_NAME, "bm25"));

  /* The build tree given by meson is the first directory searched. */
  g_object_get (registry, "search-path", &search_path, NULL);
  g_assert_nonnull (search_path[0]);
  {
    g_autofree char *expected_dir = g_canonicalize_filename (g_getenv ("ANOT_PLUGIN_PATH"), NULL);

    g_assert_cmpstr (search_path[0], ==, expected_dir);
  }
}

static void
test_registry_create (void)
{
  AnotRegistry *registry = anot_registry_get_default ();
  g_autoptr(GError) error = NULL;
  g_autoptr(AnotMethod) bm25 = NULL;
  g_autoptr(AnotMethod) again = NULL;
  AnotMethod *missing;
  AnotBackend *backend;

  bm25 = anot_registry_create_method (registry, "bm25", &error);
  g_assert_no_error (error);
  g_assert_true (ANOT_IS_METHOD (bm25));
  g_assert_cmpstr (G_OBJECT_TYPE_NAME (bm25), ==, "AnotMethodBm25");
  /* Each call makes a new instance. */
  again = anot_registry_create_method (registry, "bm25", &error);
  g_assert_no_error (error);
  g_assert_true (again != bm25);

  missing = anot_registry_create_method (registry, "no-such-method", &error);
  g_assert_null (missing);
  g_assert_error (error, ANOT_ERROR, ANOT_ERROR_PLUGIN_NOT_FOUND);
  g_assert_nonnull (strstr (error->message, "no-such-method"));
  /* The message lists what is available. */
  g_assert_nonnull (strstr (error->message, "bm25"));
  g_assert_nonnull (strstr (error->message, "oracle"));
  g_assert_nonnull (strstr (error->message, "random"));
  g_clear_error (&error);

  backend = anot_registry_create_backend (registry, "no-such-backend", &error);
  g_assert_null (backend);
  g_assert_error (error, ANOT_ERROR, ANOT_ERROR_PLUGIN_NOT_FOUND);
  g_clear_error (&error);

  /* Names are per extension point. */
  g_assert_null (anot_registry_create_attack (registry, "bm25", &error));
  g_assert_error (error, ANOT_ERROR, ANOT_ERROR_PLUGIN_NOT_FOUND);
  g_clear_error (&error);
  g_assert_null (anot_registry_create_tool (registry, "bm25", &error));
  g_assert_error (error, ANOT_ERROR, ANOT_ERROR_PLUGIN_NOT_FOUND);
}

static void
test_registry_broken_modules (void)
{
  if (g_test_subprocess ())
    {
      g_autofree char *tmp = g_build_filename (g_get_user_data_dir (), "plugins", NULL);
      g_autofree char *test_plugins = g_build_filename (g_getenv ("ANOT_TEST_BUILDDIR"), "plugins", NULL);
      g_autofree char *good_target = g_build_filename (test_plugins, "libanot-test-good.so", NULL);
      g_autofree char *good_link = g_build_filename (tmp, "libanot-test-good.so", NULL);
      g_autofree char *garbage = g_build_filename (tmp, "libanot-test-garbage.so", NULL);
      g_autofree char *not_a_module = g_build_filename (tmp, "README.txt", NULL);
      g_autofree char *path = NULL;
      g_autoptr(GFile) link = NULL;
      g_autoptr(GError) error = NULL;
      g_autoptr(AnotMethod) good = NULL;
      g_auto(GStrv) failed = NULL;
      g_auto(GStrv) failed_again = NULL;
      g_auto(GStrv) methods = NULL;
      AnotRegistry *registry;
      GTypePlugin *plugin;
      GType type;

      g_assert_cmpint (g_mkdir_with_parents (tmp, 0700), ==, 0);
      g_file_set_contents (garbage, "this is not a shared library\n", -1, &error);
      g_assert_no_error (error);
      g_file_set_contents (not_a_module, "ignored: not named lib*.so\n", -1, &error);
      g_assert_no_error (error);
      /* The same module file name in two directories of the path. */
      link = g_file_new_for_path (good_link);
      g_file_make_symbolic_link (link, good_target, NULL, &error);
      g_assert_no_error (error);

      path = g_strjoin (G_SEARCHPATH_SEPARATOR_S, tmp, test_plugins, NULL);
      g_setenv ("ANOT_PLUGIN_PATH", path, TRUE);
      g_setenv ("ANOT_PLUGIN_DIR", "", TRUE);

      registry = anot_registry_get_default ();

      failed = anot_registry_list_failed_modules (registry);
      for (guint i = 0; failed[i] != NULL; i++)
        g_test_message ("failed: %s", failed[i]);
      g_assert_cmpuint (g_strv_length (failed), ==, 4);
      g_assert_true (strv_contains_prefix (failed, "/libanot-test-garbage.so: ", NULL));
      g_assert_true (strv_contains_prefix (failed, "/libanot-test-nosym.so: ", "g_io_module_load"));
      g_assert_true (strv_contains_prefix (failed, "/libanot-test-empty.so: ", "registered no plugin"));
      g_assert_true (strv_contains_prefix (failed, "/libanot-test-wrongtype.so: ", "AnotMethod"));

      methods = anot_registry_list (registry, ANOT_METHOD_EXTENSION_POINT_NAME);
      g_assert_cmpuint (g_strv_length (methods), ==, 1);
      g_assert_cmpstr (methods[0], ==, "test-good");
      g_assert_cmpstr (anot_registry_get_description (registry, ANOT_METHOD_EXTENSION_POINT_NAME, "test-good"),
                       ==, "Keeps the given order (test module)");

      /* The copy in the first directory won; the second was never opened
       * (opening it would have registered the type twice, a critical). */
      type = anot_registry_lookup_type (registry, ANOT_METHOD_EXTENSION_POINT_NAME, "test-good");
      plugin = g_type_get_plugin (type);
      g_assert_true (G_IS_TYPE_MODULE (plugin));
      g_assert_cmpstr (G_TYPE_MODULE (plugin)->name, ==, good_link);

      /* The module was closed after loading; creating an instance opens it
       * again and runs its load function a second time. */
      good = anot_registry_create_method (registry, "test-good", &error);
      g_assert_no_error (error);
      g_assert_cmpstr (G_OBJECT_TYPE_NAME (good), ==, "AnotTestGoodMethod");

      /* Loading happened once. */
      failed_again = anot_registry_list_failed_modules (anot_registry_get_default ());
      g_assert_cmpstrv (failed_again, failed);
      return;
    }

  g_test_trap_subprocess (NULL, 0, G_TEST_SUBPROCESS_DEFAULT);
  g_test_trap_assert_passed ();
  /* Each broken module is reported once on stderr, with the reason. */
  g_test_trap_assert_stderr ("*libanot-test-nosym.so not loaded:*g_io_module_load*");
  g_test_trap_assert_stderr ("*libanot-test-empty.so not loaded:*registered no plugin*");
  g_test_trap_assert_stderr ("*libanot-test-garbage.so not loaded:*");
  g_test_trap_assert_stderr_unmatched ("*libanot-test-nosym.so not loaded*libanot-test-nosym.so not loaded*");
}

static void
test_registry_runtime_register (void)
{
  AnotRegistry *registry = anot_registry_get_default ();
  g_autoptr(AnotMethod) method = NULL;
  g_autoptr(GError) error = NULL;
  g_auto(GStrv) methods = NULL;

  g_assert_cmpuint (anot_registry_lookup_type (registry, ANOT_METHOD_EXTENSION_POINT_NAME, "runtime-test"),
                    ==, G_TYPE_INVALID);

  anot_registry_register (registry, ANOT_METHOD_EXTENSION_POINT_NAME,
                          TEST_TYPE_REVERSE_METHOD, "runtime-test", "Reverses the order");
  methods = anot_registry_list (registry, ANOT_METHOD_EXTENSION_POINT_NAME);
  g_assert_true (g_strv_contains ((const char * const *) methods, "runtime-test"));
  g_assert_true (g_strv_contains ((const char * const *) methods, "bm25"));
  g_assert_cmpstr (anot_registry_get_description (registry, ANOT_METHOD_EXTENSION_POINT_NAME, "runtime-test"),
                   ==, "Reverses the order");
  method = anot_registry_create_method (registry, "runtime-test", &error);
  g_assert_no_error (error);
  g_assert_true (TEST_IS_REVERSE_METHOD (method));
  g_clear_object (&method);

  /* Registering again (a notebook cell run twice) replaces the type. */
  anot_registry_register (registry, ANOT_METHOD_EXTENSION_POINT_NAME,
                          TEST_TYPE_IDENTITY_METHOD, "runtime-test", NULL);
  g_assert_cmpuint (anot_registry_lookup_type (registry, ANOT_METHOD_EXTENSION_POINT_NAME, "runtime-test"),
                    ==, TEST_TYPE_IDENTITY_METHOD);
  g_assert_cmpstr (anot_registry_get_description (registry, ANOT_METHOD_EXTENSION_POINT_NAME, "runtime-test"),
                   ==, "");
  method = anot_registry_create_method (registry, "runtime-test", &error);
  g_assert_no_error (error);
  g_assert_true (TEST_IS_IDENTITY_METHOD (method));
}

static void
test_registry_register_wrong_point (void)
{
  if (g_test_subprocess ())
    {
      anot_registry_register (anot_registry_get_default (), ANOT_BACKEND_EXTENSION_POINT_NAME,
                              TEST_TYPE_REVERSE_METHOD, "not-a-backend", NULL);
      return;
    }

  g_test_trap_subprocess (NULL, 0, G_TEST_SUBPROCESS_DEFAULT);
  g_test_trap_assert_failed ();
  g_test_trap_assert_stderr ("*Cannot register TestReverseMethod*AnotBackend*");
}

static void
test_registry_implement_conflict (void)
{
  if (g_test_subprocess ())
    {
      AnotRegistry *registry = anot_registry_get_default ();
      GType bm25 = anot_registry_lookup_type (registry, ANOT_METHOD_EXTENSION_POINT_NAME, "bm25");

      g_assert_cmpstr (g_type_name (bm25), ==, "AnotMethodBm25");
      /* What a second module offering "bm25" would do: refused, reported
       * once, the first registration stays. */
      anot_plugin_implement (ANOT_METHOD_EXTENSION_POINT_NAME, TEST_TYPE_REVERSE_METHOD,
                             "bm25", "an impostor");
      anot_plugin_implement (ANOT_METHOD_EXTENSION_POINT_NAME, TEST_TYPE_REVERSE_METHOD,
                             "bm25", "an impostor");
      g_assert_cmpuint (anot_registry_lookup_type (registry, ANOT_METHOD_EXTENSION_POINT_NAME, "bm25"),
                        ==, bm25);
      g_assert_cmpstr (anot_registry_get_description (registry, ANOT_METHOD_EXTENSION_POINT_NAME, "bm25"),
                       !=, "an impostor");

      /* Registering the same type again is harmless (modules do it each
       * time they are reopened). */
      anot_plugin_implement (ANOT_METHOD_EXTENSION_POINT_NAME, TEST_TYPE_IDENTITY_METHOD,
                             "identity", "Keeps the order");
      anot_plugin_implement (ANOT_METHOD_EXTENSION_POINT_NAME, TEST_TYPE_IDENTITY_METHOD,
                             "identity", "Keeps the order");
      g_assert_cmpuint (anot_registry_lookup_type (registry, ANOT_METHOD_EXTENSION_POINT_NAME, "identity"),
                        ==, TEST_TYPE_IDENTITY_METHOD);
      return;
    }

  g_test_trap_subprocess (NULL, 0, G_TEST_SUBPROCESS_DEFAULT);
  g_test_trap_assert_passed ();
  /* Both origins are named: the module that has the name, and the type
   * (outside a module load) that asked for it. */
  g_test_trap_assert_stderr ("*bm25? (anot-method) is already provided by *libanot-method-bm25.so; "
                             "Test*Method provides it again*");
  g_test_trap_assert_stderr_unmatched ("*already provided*already provided*");
  g_test_trap_assert_stderr_unmatched ("*identity*");
}

/* ---- bm25 ------------------------------------------------------------- */

/* One term's contribution, written out from the definition. */
static double
bm25_term (double idf,
           double tf,
           double length,
           double avgdl,
           double k1,
           double b)
{
  return idf * tf * (k1 + 1) / (tf + k1 * (1 - b + b * length / avgdl));
}

static void
test_bm25_score (void)
{
  g_autoptr(AnotDataset) dataset = load_tiny_dataset ();
  g_autoptr(AnotRanking) ranking = NULL;
  g_autoptr(GError) error = NULL;
  const guint expected[] = { 0, 1, 2, 3 };
  /* Counted by hand from the documents listed above tiny_restaurants. */
  const double n = 4, avgdl = (8 + 14 + 6 + 3) / 4.0;
  const double idf_quiet = log (1 + (n - 1 + 0.5) / (1 + 0.5));    /* df 1: b0 */
  const double idf_espresso = log (1 + (n - 2 + 0.5) / (2 + 0.5)); /* df 2: b0, b1 */
  double b0, b1;
  JsonObject *trace;
  JsonArray *terms;

  /* "quiet espresso": b0 has both once, b1 has espresso three times in a
   * longer document. */
  ranking = rank_tiny (dataset, "bm25", "R1", NULL, NULL, &error);
  g_assert_no_error (error);
  assert_order (ranking, expected, 4);
  b0 = bm25_term (idf_quiet, 1, 8, avgdl, 1.5, 0.75) +
       bm25_term (idf_espresso, 1, 8, avgdl, 1.5, 0.75);
  b1 = bm25_term (idf_espresso, 3, 14, avgdl, 1.5, 0.75);
  g_assert_cmpfloat_with_epsilon (anot_ranking_get_score (ranking, 0), b0, 1e-12);
  g_assert_cmpfloat_with_epsilon (anot_ranking_get_score (ranking, 1), b1, 1e-12);
  g_assert_cmpfloat (anot_ranking_get_score (ranking, 2), ==, 0);
  g_assert_cmpfloat (anot_ranking_get_score (ranking, 3), ==, 0);
  /* The numbers themselves, so a wrong formula on both sides is caught. */
  g_assert_cmpfloat_with_epsilon (b0, 1.86998, 1e-5);
  g_assert_cmpfloat_with_epsilon (b1, 0.96141, 1e-5);

  trace = json_node_get_object (anot_ranking_get_trace (ranking));
  g_assert_cmpstr (json_object_get_string_member (trace, "method"), ==, "bm25");
  g_assert_cmpint (json_object_get_int_member (trace, "n_candidates"), ==, 4);
  g_assert_cmpfloat_with_epsilon (json_object_get_double_member (trace, "avgdl"), avgdl, 1e-12);
  terms = json_object_get_array_member (trace, "query_terms");
  g_assert_cmpuint (json_array_get_length (terms), ==, 2);
  g_assert_cmpstr (json_object_get_string_member (json_array_get_object_element (terms, 0), "term"), ==, "quiet");
  g_assert_cmpint (json_object_get_int_member (json_array_get_object_element (terms, 0), "df"), ==, 1);
  g_assert_cmpint (json_object_get_int_member (json_array_get_object_element (terms, 1), "df"), ==, 2);
  g_clear_object (&ranking);

  /* The true key of a dict attribute is part of the document. */
  ranking = rank_tiny (dataset, "bm25", "R2", NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (anot_ranking_get_index (ranking, 0), ==, 2);
  g_assert_cmpfloat (anot_ranking_get_score (ranking, 0), >, 0);
  g_assert_cmpfloat (anot_ranking_get_score (ranking, 1), ==, 0);
  g_clear_object (&ranking);

  /* "loud" is in b1's name, attribute value and a review. */
  ranking = rank_tiny (dataset, "bm25", "R3", NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (anot_ranking_get_index (ranking, 0), ==, 1);
  g_clear_object (&ranking);

  /* A false key is not: nothing matches "divey", every score is 0 and the
   * ties keep the given order. */
  ranking = rank_tiny (dataset, "bm25", "R4", NULL, NULL, &error);
  g_assert_no_error (error);
  assert_order (ranking, expected, 4);
  for (guint r = 0; r < 4; r++)
    g_assert_cmpfloat (anot_ranking_get_score (ranking, r), ==, 0);
}

static void
test_bm25_options (void)
{
  g_autoptr(AnotDataset) dataset = load_tiny_dataset ();
  g_autoptr(AnotRanking) ranking = NULL;
  g_autoptr(GError) error = NULL;
  const char * const bad[][2] = {
    { "bm25.k1", "abc" },
    { "bm25.k1", "-1" },
    { "bm25.b", "1.5" },
    { "bm25.b", "0.5x" },
  };

  /* k1 = 0 turns BM25 into a sum of the idf of the matched terms. */
  ranking = rank_tiny (dataset, "bm25", "R1", "bm25.k1", "0", &error);
  g_assert_no_error (error);
  g_assert_cmpfloat_with_epsilon (anot_ranking_get_score (ranking, 0),
                                  log (1 + 3.5 / 1.5) + log (1 + 2.5 / 2.5), 1e-12);
  g_assert_cmpfloat_with_epsilon (anot_ranking_get_score (ranking, 1), log (2), 1e-12);
  g_assert_cmpfloat (json_object_get_double_member (json_node_get_object (anot_ranking_get_trace (ranking)), "k1"),
                     ==, 0);
  g_clear_object (&ranking);

  /* b = 0: no length normalisation. */
  ranking = rank_tiny (dataset, "bm25", "R1", "bm25.b", "0", &error);
  g_assert_no_error (error);
  g_assert_cmpfloat_with_epsilon (anot_ranking_get_score (ranking, 1),
                                  log (2) * 3 * 2.5 / (3 + 1.5), 1e-12);
  g_clear_object (&ranking);

  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      ranking = rank_tiny (dataset, "bm25", "R1", bad[i][0], bad[i][1], &error);
      g_assert_null (ranking);
      g_assert_error (error, ANOT_ERROR, ANOT_ERROR_INVALID_ARGUMENT);
      g_assert_nonnull (strstr (error->message, bad[i][0]));
      g_clear_error (&error);
    }
}

static void
test_methods_cancelled (void)
{
  g_autoptr(AnotDataset) dataset = load_tiny_dataset ();
  g_autoptr(GPtrArray) candidates = all_items (dataset);
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  AnotRequest *request = anot_dataset_get_request (dataset, 0);
  const char * const names[] = { "bm25", "random", "oracle" };

  g_cancellable_cancel (cancellable);
  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    {
      g_autoptr(AnotMethod) method = create_method (names[i]);
      g_autoptr(AnotMethodContext) context = anot_method_context_new (dataset, "R1", 1);
      g_autoptr(AnotRanking) ranking = NULL;
      g_autoptr(GError) error = NULL;

      ranking = rank_sync (method, request, candidates, context, cancellable, &error);
      g_assert_null (ranking);
      g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
    }
}

/* ---- random ----------------------------------------------------------- */

/* The permutation @seed gives to @n candidates (the tiny items repeated:
 * the method only permutes positions). */
static GArray *
random_permutation (AnotDataset *dataset,
                    guint        n,
                    guint64      seed)
{
  g_autoptr(AnotMethod) method = create_method ("random");
  g_autoptr(AnotMethodContext) context = anot_method_context_new (dataset, "R1", seed);
  g_autoptr(GPtrArray) candidates = g_ptr_array_new_with_free_func (g_object_unref);
  g_autoptr(AnotRanking) ranking = NULL;
  g_autoptr(GError) error = NULL;
  GArray *order = g_array_new (FALSE, FALSE, sizeof (guint));
  g_autofree gboolean *seen = g_new0 (gboolean, n);

  for (guint i = 0; i < n; i++)
    g_ptr_array_add (candidates, g_object_ref (anot_dataset_get_item (dataset, i % 4)));

  ranking = rank_sync (method, anot_dataset_get_request (dataset, 0), candidates, context, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (anot_ranking_get_length (ranking), ==, n);
  for (guint r = 0; r < n; r++)
    {
      guint index = anot_ranking_get_index (ranking, r);

      g_assert_cmpuint (index, <, n);
      g_assert_false (seen[index]);
      seen[index] = TRUE;
      g_array_append_val (order, index);
      if (r > 0)
        g_assert_cmpfloat (anot_ranking_get_score (ranking, r), <, anot_ranking_get_score (ranking, r - 1));
    }
  return order;
}

static gboolean
same_order (GArray *a,
            GArray *b)
{
  return a->len == b->len && memcmp (a->data, b->data, a->len * sizeof (guint)) == 0;
}

static void
test_random_deterministic (void)
{
  g_autoptr(AnotDataset) dataset = load_tiny_dataset ();
  g_autoptr(GArray) first = random_permutation (dataset, 8, 42);
  g_autoptr(GArray) second = random_permutation (dataset, 8, 42);
  g_autoptr(GArray) low = random_permutation (dataset, 8, 7);
  g_autoptr(GArray) high = random_permutation (dataset, 8, 7 | (G_GUINT64_CONSTANT (1) << 32));
  g_autoptr(GPtrArray) distinct = g_ptr_array_new_with_free_func ((GDestroyNotify) g_array_unref);

  g_assert_true (same_order (first, second));
  /* The upper 32 bits of the seed count too. */
  g_assert_false (same_order (low, high));

  /* Ten seeds, 8! orders: nearly all distinct. */
  for (guint64 seed = 0; seed < 10; seed++)
    {
      g_autoptr(GArray) order = random_permutation (dataset, 8, seed);
      gboolean found = FALSE;

      for (guint i = 0; i < distinct->len && !found; i++)
        found = same_order (order, g_ptr_array_index (distinct, i));
      if (!found)
        g_ptr_array_add (distinct, g_steal_pointer (&order));
    }
  g_assert_cmpuint (distinct->len, >=, 8);
}

static void
test_random_uniform (void)
{
  g_autoptr(AnotDataset) dataset = load_tiny_dataset ();
  guint counts[4][4] = { { 0 } };
  const guint n_seeds = 4000;

  /* Every candidate lands at every rank about n_seeds/4 times.  A
   * Fisher-Yates off by one (Sattolo's cycle) would never leave a candidate
   * in place, a modulo bias would skew the counts. */
  for (guint64 seed = 0; seed < n_seeds; seed++)
    {
      g_autoptr(GArray) order = random_permutation (dataset, 4, seed * 2654435761u);

      for (guint r = 0; r < 4; r++)
        counts[g_array_index (order, guint, r)][r]++;
    }

  for (guint i = 0; i < 4; i++)
    for (guint r = 0; r < 4; r++)
      {
        /* Binomial sd is about 27: this is over five of them. */
        g_assert_cmpuint (counts[i][r], >, 850);
        g_assert_cmpuint (counts[i][r], <, 1150);
      }
}

/* ---- oracle ----------------------------------------------------------- */

static void
test_oracle_tiny (void)
{
  g_autoptr(AnotDataset) dataset = load_tiny_dataset ();
  const char * const requests[] = { "R1", "R2", "R3", "R4" };

  for (guint i = 0; i < G_N_ELEMENTS (requests); i++)
    {
      g_autoptr(AnotRanking) ranking = NULL;
      g_autoptr(GError) error = NULL;
      AnotRequest *request = anot_dataset_lookup_request (dataset, requests[i]);

      ranking = rank_tiny (dataset, "oracle", requests[i], NULL, NULL, &error);
      g_assert_no_error (error);
      g_assert_cmpuint (anot_ranking_get_length (ranking), ==, 4);
      g_assert_cmpuint (anot_ranking_get_index (ranking, 0), ==, anot_request_get_gold_index (request));
      g_assert_cmpfloat (anot_ranking_get_score (ranking, 0), ==, ANOT_TRUTH_TRUE);
      g_assert_cmpfloat (anot_ranking_get_score (ranking, 1), <, ANOT_TRUTH_TRUE);
    }
}

static void
test_oracle_philly (void)
{
  const char *dir = g_getenv ("ANOT_PHILLY_DATA");
  g_autofree char *requests_file = NULL;
  g_autoptr(AnotDataset) dataset = NULL;
  g_autoptr(AnotValidator) validator = NULL;
  g_autoptr(AnotMethod) method = NULL;
  g_autoptr(GPtrArray) candidates = NULL;
  g_autoptr(GError) error = NULL;

  if (dir != NULL)
    requests_file = g_build_filename (dir, "requests.jsonl", NULL);
  if (requests_file == NULL || !g_file_test (requests_file, G_FILE_TEST_EXISTS))
    {
      g_test_skip ("the philly_cafes benchmark is not available (ANOT_PHILLY_DATA)");
      return;
    }

  dataset = anot_dataset_load (dir, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (anot_dataset_get_n_requests (dataset), ==, 100);
  /* One validator for all requests, as the experiment does. */
  validator = anot_validator_new (dataset);
  method = create_method ("oracle");
  candidates = all_items (dataset);

  for (guint i = 0; i < anot_dataset_get_n_requests (dataset); i++)
    {
      AnotRequest *request = anot_dataset_get_request (dataset, i);
      g_autoptr(AnotMethodContext) context = NULL;
      g_autoptr(AnotRanking) ranking = NULL;

      context = anot_method_context_new (dataset, anot_request_get_id (request), i);
      anot_method_context_set_truth_request (context, request);
      anot_method_context_set_validator (context, validator);
      ranking = rank_sync (method, request, candidates, context, NULL, &error);
      g_assert_no_error (error);
      g_assert_cmpuint (anot_ranking_get_length (ranking), ==, candidates->len);
      /* Every request singles out its gold cafe (groundtruth.jsonl: all "ok"). */
      g_assert_cmpuint (anot_ranking_get_index (ranking, 0), ==, anot_request_get_gold_index (request));
      g_assert_cmpfloat (anot_ranking_get_score (ranking, 0), ==, ANOT_TRUTH_TRUE);
      g_assert_cmpfloat (anot_ranking_get_score (ranking, 1), <, ANOT_TRUTH_TRUE);
    }
}

/* The oracle, blind, fails with an error naming the request rather than
 * ranking by anything; every in-tree method but the oracle is blind. */
static void
test_oracle_needs_truth (void)
{
  g_autoptr(AnotDataset) dataset = load_tiny_dataset ();
  g_autoptr(AnotMethod) method = create_method ("oracle");
  g_autoptr(AnotMethodContext) context = anot_method_context_new (dataset, "R1", 0);
  g_autoptr(GPtrArray) candidates = all_items (dataset);
  g_autoptr(AnotRanking) ranking = NULL;
  g_autoptr(GError) error = NULL;
  AnotRegistry *registry = anot_registry_get_default ();
  g_auto(GStrv) names = anot_registry_list (registry, ANOT_METHOD_EXTENSION_POINT_NAME);

  g_assert_null (anot_method_context_get_validator (context));
  g_assert_null (anot_method_context_get_truth_request (context));
  ranking = rank_sync (method, anot_dataset_lookup_request (dataset, "R1"), candidates, context,
                       NULL, &error);
  g_assert_null (ranking);
  g_assert_error (error, ANOT_ERROR, ANOT_ERROR_METHOD_FAILED);
  g_assert_nonnull (strstr (error->message, "R1"));

  for (guint i = 0; names[i] != NULL; i++)
    g_assert_cmpint (anot_registry_get_flags (registry, ANOT_METHOD_EXTENSION_POINT_NAME, names[i]) &
                     ANOT_PLUGIN_NEEDS_TRUTH,
                     ==, g_str_equal (names[i], "oracle") ? ANOT_PLUGIN_NEEDS_TRUTH
                                                          : ANOT_PLUGIN_FLAGS_NONE);
  g_assert_cmpint (anot_registry_get_flags (registry, ANOT_METHOD_EXTENSION_POINT_NAME, "no-such"),
                   ==, ANOT_PLUGIN_FLAGS_NONE);
}

/* With the truth, the context offers the full request and a validator. */
static void
test_context_truth (void)
{
  g_autoptr(AnotDataset) dataset = load_tiny_dataset ();
  g_autoptr(AnotMethodContext) context = anot_method_context_new (dataset, "R1", 0);
  AnotRequest *request = anot_dataset_lookup_request (dataset, "R1");

  anot_method_context_set_truth_request (context, request);
  g_assert_true (anot_method_context_get_truth_request (context) == request);
  g_assert_true (ANOT_IS_VALIDATOR (anot_method_context_get_validator (context)));
  anot_method_context_set_truth_request (context, NULL);
  g_assert_null (anot_method_context_get_validator (context));
}

static guint
count_occurrences (const char *haystack,
                   const char *needle)
{
  guint n = 0;

  for (const char *p = strstr (haystack, needle); p != NULL; p = strstr (p + 1, needle))
    n++;
  return n;
}

/* ---- anot-run --list -------------------------------------------------- */

static void
test_cli_list (void)
{
  const char *anot_run = g_getenv ("ANOT_RUN");
  g_autoptr(GSubprocess) process = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *out = NULL;
  g_autofree char *err = NULL;
  const char *methods, *backends;

  if (anot_run == NULL || !g_file_test (anot_run, G_FILE_TEST_IS_EXECUTABLE))
    {
      g_test_skip ("anot-run is not built");
      return;
    }

  process = g_subprocess_new (G_SUBPROCESS_FLAGS_STDOUT_PIPE | G_SUBPROCESS_FLAGS_STDERR_PIPE,
                              &error, anot_run, "--list", NULL);
  g_assert_no_error (error);
  g_subprocess_communicate_utf8 (process, NULL, NULL, &out, &err, &error);
  g_assert_no_error (error);
  g_test_message ("stdout:\n%s\nstderr:\n%s", out, err);
  g_assert_true (g_subprocess_get_if_exited (process));
  g_assert_cmpint (g_subprocess_get_exit_status (process), ==, 0);

  methods = strstr (out, "Methods:\n");
  backends = strstr (out, "Backends:\n");
  g_assert_nonnull (methods);
  g_assert_nonnull (backends);
  g_assert_nonnull (strstr (out, "Attacks:\n"));
  g_assert_nonnull (strstr (out, "Tools:\n"));
  /* Methods are listed under their heading, with their description. */
  g_assert_nonnull (strstr (methods, "\n  bm25 "));
  g_assert_true (strstr (methods, "\n  bm25 ") < backends);
  g_assert_true (strstr (methods, "\n  random ") < backends);
  g_assert_true (strstr (methods, "\n  oracle ") < backends);
  g_assert_nonnull (strstr (out, "Okapi BM25"));
  /* The oracle says it is handed the truth; no other method does. */
  {
    const char *line = strstr (methods, "\n  oracle ") + strlen ("\n  oracle ");

    line += strspn (line, " ");
    g_assert_true (g_str_has_prefix (line, "[uses the truth] Sanity check"));
  }
  g_assert_cmpuint (count_occurrences (out, "[uses the truth]"), ==, 1);
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);

  g_test_add_func ("/registry/methods-listed", test_registry_methods_listed);
  g_test_add_func ("/registry/create", test_registry_create);
  g_test_add_func ("/registry/broken-modules", test_registry_broken_modules);
  g_test_add_func ("/registry/runtime-register", test_registry_runtime_register);
  g_test_add_func ("/registry/register-wrong-point", test_registry_register_wrong_point);
  g_test_add_func ("/registry/implement-conflict", test_registry_implement_conflict);
  g_test_add_func ("/bm25/score", test_bm25_score);
  g_test_add_func ("/bm25/options", test_bm25_options);
  g_test_add_func ("/methods/cancelled", test_methods_cancelled);
  g_test_add_func ("/random/deterministic", test_random_deterministic);
  g_test_add_func ("/random/uniform", test_random_uniform);
  g_test_add_func ("/oracle/tiny", test_oracle_tiny);
  g_test_add_func ("/oracle/philly", test_oracle_philly);
  g_test_add_func ("/oracle/needs-truth", test_oracle_needs_truth);
  g_test_add_func ("/method-context/truth", test_context_truth);
  g_test_add_func ("/cli/list", test_cli_list);

  return g_test_run ();
}
