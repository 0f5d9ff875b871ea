/* test-llm-config.c: where each role's backend and model come from
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <anot/anot.h>

#include <math.h>
#include <string.h>

static char *
write_config (const char *contents)
{
  g_autoptr(GError) error = NULL;
  char *path = g_build_filename (g_get_user_config_dir (), "test-config.ini", NULL);

  g_mkdir_with_parents (g_get_user_config_dir (), 0700);
  g_assert_true (g_file_set_contents (path, contents, -1, &error));
  g_assert_no_error (error);
  return path;
}

static AnotLlmConfig *
config_new (const char *file_contents,
            const char *first_env,
            ...)
{
  AnotLlmConfig *config = anot_llm_config_new ();
  g_autoptr(GPtrArray) env = g_ptr_array_new ();
  va_list args;

  va_start (args, first_env);
  for (const char *e = first_env; e != NULL; e = va_arg (args, const char *))
    g_ptr_array_add (env, (gpointer) e);
  va_end (args);
  g_ptr_array_add (env, NULL);
  anot_llm_config_set_environment (config, (const char * const *) env->pdata);

  if (file_contents != NULL)
    {
      g_autofree char *path = write_config (file_contents);
      g_autoptr(GError) error = NULL;

      g_assert_true (anot_llm_config_load_file (config, path, &error));
      g_assert_no_error (error);
    }
  return config;
}

static void
assert_lookup (AnotLlmConfig *config,
               const char    *role,
               const char    *key,
               const char    *expected,
               const char    *source_part)
{
  g_autofree char *source = NULL;
  g_autofree char *value = anot_llm_config_lookup (config, role, key, &source);

  g_assert_cmpstr (value, ==, expected);
  if (source_part != NULL)
    {
      g_assert_nonnull (source);
      if (strstr (source, source_part) == NULL)
        g_error ("%s/%s comes from “%s”, expected “%s”", role, key, source, source_part);
    }
}

static const char *layers_file =
  "[default]\n"
  "backend = anthropic\n"
  "model = file-default-model\n"
  "max_tokens = 500\n"
  "\n"
  "[role planner]\n"
  "model = file-planner-model\n"
  "temperature = 0.5\n"
  "\n"
  "[role judge]\n"
  "backend = openai\n"
  "model = file-judge-model\n";

static void
test_defaults (void)
{
  g_autoptr(AnotLlmConfig) config = config_new (NULL, NULL);

  assert_lookup (config, "default", "backend", "openai", "built-in default");
  assert_lookup (config, "default", "temperature", "0", "built-in default");
  assert_lookup (config, "default", "model", NULL, NULL);
  assert_lookup (config, "planner", "backend", "openai", "built-in default");
  g_assert_false (anot_llm_config_has_role (config, "planner"));
  g_assert_true (anot_llm_config_has_role (config, "default"));
}

/* CLI > environment > file > default, for the default role and for a
 * role of its own. */
static void
test_precedence (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(AnotLlmConfig) config = config_new (layers_file, NULL);

  /* File only. */
  assert_lookup (config, "default", "backend", "anthropic", "[default]");
  assert_lookup (config, "default", "model", "file-default-model", "[default]");
  assert_lookup (config, "planner", "backend", "anthropic", "[default]");
  assert_lookup (config, "planner", "model", "file-planner-model", "[role planner]");
  assert_lookup (config, "planner", "temperature", "0.5", "[role planner]");
  assert_lookup (config, "planner", "max_tokens", "500", "[default]");
  /* A role with nothing of its own is not configured. */
  g_assert_true (anot_llm_config_has_role (config, "planner"));
  g_assert_false (anot_llm_config_has_role (config, "scorer"));

  /* The environment beats the file. */
  g_clear_object (&config);
  config = config_new (layers_file, "ANOT_MODEL=env-model", "ANOT_PLANNER_TEMPERATURE=0.25",
                       "ANOT_BACKEND=anthropic", NULL);
  assert_lookup (config, "default", "model", "env-model", "ANOT_MODEL");
  assert_lookup (config, "planner", "temperature", "0.25", "ANOT_PLANNER_TEMPERATURE");
  /* The default role's variable beats the file's role section too. */
  assert_lookup (config, "planner", "model", "env-model", "ANOT_MODEL");

  /* The command line beats the environment. */
  g_assert_true (anot_llm_config_set (config, "default", "model", "cli-model", &error));
  g_assert_no_error (error);
  assert_lookup (config, "default", "model", "cli-model", "command line");
  assert_lookup (config, "planner", "model", "cli-model", "command line");
  g_assert_true (anot_llm_config_add_role_spec (config, "planner=:cli-planner-model", &error));
  assert_lookup (config, "planner", "model", "cli-planner-model", "--role");
  assert_lookup (config, "default", "model", "cli-model", "command line");
  /* ROLE=:MODEL keeps the backend. */
  assert_lookup (config, "planner", "backend", "anthropic", NULL);
}

/* A model set next to another backend is not used with this one. */
static void
test_model_follows_backend (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(AnotLlmConfig) config = config_new (layers_file, NULL);

  /* --backend openai overrides [role judge]'s backend... and [default]
   * model belongs to anthropic. */
  g_assert_true (anot_llm_config_set (config, "default", "backend", "openai", &error));
  assert_lookup (config, "default", "backend", "openai", "command line");
  assert_lookup (config, "default", "model", NULL, NULL);
  /* judge: openai in its own section, so its model stays. */
  assert_lookup (config, "judge", "model", "file-judge-model", "[role judge]");

  /* --role planner=anthropic with --model gpt-4o: the default role's
   * model is for openai, not for the planner. */
  g_assert_true (anot_llm_config_set (config, "default", "model", "gpt-4o", &error));
  g_assert_true (anot_llm_config_add_role_spec (config, "planner=anthropic", &error));
  g_assert_no_error (error);
  assert_lookup (config, "planner", "backend", "anthropic", "--role");
  assert_lookup (config, "planner", "model", "file-planner-model", "[role planner]");

  /* A base URL without a backend of its own applies to the role's. */
  g_clear_object (&config);
  config = config_new (NULL, "ANOT_PLANNER_BASE_URL=http://127.0.0.1:9/v1", NULL);
  g_assert_true (anot_llm_config_add_role_spec (config, "planner=anthropic:claude-x", &error));
  assert_lookup (config, "planner", "base_url", "http://127.0.0.1:9/v1", "ANOT_PLANNER_BASE_URL");
  assert_lookup (config, "planner", "model", "claude-x", "--role");
  /* Models may contain colons (Ollama tags). */
  g_assert_true (anot_llm_config_add_role_spec (config, "scorer=openai:qwen2.5:0.5b", &error));
  assert_lookup (config, "scorer", "model", "qwen2.5:0.5b", NULL);
}

static void
test_environment_roles (void)
{
  g_autoptr(AnotLlmConfig) config = config_new (NULL, "ANOT_LATS_SELECTION_MODEL=small",
                                                "ANOT_LATS_SELECTION_BACKEND=anthropic",
                                                "ANOT_DEFAULT_MAX_TOKENS=77", NULL);

  g_assert_true (anot_llm_config_has_role (config, "lats.selection"));
  assert_lookup (config, "lats.selection", "backend", "anthropic", "ANOT_LATS_SELECTION_BACKEND");
  assert_lookup (config, "lats.selection", "model", "small", "ANOT_LATS_SELECTION_MODEL");
  assert_lookup (config, "default", "max_tokens", "77", "ANOT_DEFAULT_MAX_TOKENS");
  assert_lookup (config, "lats.selection", "max_tokens", "77", NULL);
}

static void
test_invalid (void)
{
  static const struct { const char *file; const char *part; } bad_files[] = {
    { "[default]\ntemperature = hot\n", "temperature" },
    { "[default]\ntemprature = 0\n", "temprature" },
    { "[roles planner]\nmodel = x\n", "[roles planner]" },
    { "[backend openai]\nbackend = anthropic\n", "backend" },
    { "[prices]\nmy-model = 2\n", "[prices]" },
    { "[default]\nmax_concurrency = 0\n", "max_concurrency" },
  };
  g_autoptr(AnotLlmConfig) config = anot_llm_config_new ();

  for (guint i = 0; i < G_N_ELEMENTS (bad_files); i++)
    {
      g_autofree char *path = write_config (bad_files[i].file);
      g_autoptr(GError) error = NULL;

      g_assert_false (anot_llm_config_load_file (config, path, &error));
      g_assert_error (error, ANOT_ERROR, ANOT_ERROR_CONFIG);
      g_assert_nonnull (strstr (error->message, path));
      if (strstr (error->message, bad_files[i].part) == NULL)
        g_error ("“%s” does not mention “%s”", error->message, bad_files[i].part);
    }

  {
    g_autoptr(GError) error = NULL;

    g_assert_false (anot_llm_config_set (config, "default", "api_key", "sk-x", &error));
    g_assert_error (error, ANOT_ERROR, ANOT_ERROR_CONFIG);
    g_assert_null (strstr (error->message, "sk-x"));
    g_clear_error (&error);
    g_assert_false (anot_llm_config_add_role_spec (config, "planner", &error));
    g_assert_error (error, ANOT_ERROR, ANOT_ERROR_CONFIG);
    g_clear_error (&error);
    g_assert_false (anot_llm_config_add_role_spec (config, "bad role=openai", &error));
    g_assert_error (error, ANOT_ERROR, ANOT_ERROR_CONFIG);
    g_clear_error (&error);
    g_assert_false (anot_llm_config_set (config, "default", "temperature", "3", &error));
    g_assert_error (error, ANOT_ERROR, ANOT_ERROR_CONFIG);
  }
}

/* Several servers: `base_urls` in the file, commas in ANOT_BASE_URL; the
 * list reaches the backend as its base-url. */
static void
test_base_urls (void)
{
  static const char *list = "http://127.0.0.1:9/v1;weight=2, http://127.0.0.1:10/v1";
  g_autofree char *file = g_strdup_printf ("[default]\nmodel = m\n[backend openai]\nbase_urls = %s\n", list);
  g_autoptr(GError) error = NULL;
  g_autoptr(AnotLlmConfig) config = config_new (file, NULL);
  g_autoptr(AnotLlmConfig) from_env = config_new ("[default]\nmodel = m\n",
                                                  "ANOT_BASE_URL=http://a:1/v1,http://b:2/v1", NULL);
  g_autoptr(AnotLlmConfig) both = anot_llm_config_new ();
  g_autoptr(AnotBackendRouter) router = anot_llm_config_create_router (config, &error);
  g_autoptr(AnotBackendRouter) env_router = anot_llm_config_create_router (from_env, &error);
  g_autofree char *both_path = write_config ("[default]\nbase_url = http://a/v1\nbase_urls = http://b/v1\n");
  AnotBackend *backend;

  g_assert_no_error (error);
  backend = anot_backend_router_get_backend (router, "default", &error);
  g_assert_no_error (error);
  g_assert_cmpstr (anot_http_backend_get_base_url (ANOT_HTTP_BACKEND (backend)), ==, list);
  backend = anot_backend_router_get_backend (env_router, "default", &error);
  g_assert_no_error (error);
  g_assert_cmpstr (anot_http_backend_get_base_url (ANOT_HTTP_BACKEND (backend)), ==,
                   "http://a:1/v1,http://b:2/v1");

  g_assert_false (anot_llm_config_load_file (both, both_path, &error));
  g_assert_error (error, ANOT_ERROR, ANOT_ERROR_CONFIG);
  g_assert_nonnull (strstr (error->message, "base_urls"));
}

static void
test_router_from_config (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(AnotLlmConfig) config = NULL;
  g_autoptr(AnotBackendRouter) router = NULL;
  g_autoptr(JsonNode) json = NULL;
  g_autofree char *json_text = NULL;
  AnotBackend *main_backend, *judge, *planner, *scorer;
  double input, output;

  config = config_new ("[default]\nmodel = gpt-4o-mini\n"
                       "[role planner]\nbackend = anthropic\nmodel = claude-x\n"
                       "[role judge]\nmodel = gpt-4o\n"
                       "[backend openai]\nbase_url = http://127.0.0.1:9/v1\ntimeout_ms = 1234\n"
                       "[backend anthropic]\napi_key = sk-ant-FROM-FILE\n"
                       "[prices]\nmy-model = 2, 8\n",
                       "OPENAI_API_KEY=sk-FROM-ENV", NULL);
  g_assert_true (anot_llm_config_add_role_spec (config, "scorer=openai:gpt-4o", &error));
  router = anot_llm_config_create_router (config, &error);
  g_assert_no_error (error);

  main_backend = anot_backend_router_get_backend (router, "default", &error);
  g_assert_no_error (error);
  g_assert_true (ANOT_IS_HTTP_BACKEND (main_backend));
  g_assert_cmpstr (anot_http_backend_get_base_url (ANOT_HTTP_BACKEND (main_backend)), ==,
                   "http://127.0.0.1:9/v1");
  g_assert_cmpuint (anot_http_backend_get_timeout_ms (ANOT_HTTP_BACKEND (main_backend)), ==, 1234);
  g_assert_true (anot_http_backend_has_api_key (ANOT_HTTP_BACKEND (main_backend)));
  g_assert_cmpstr (anot_backend_router_get_model (router, "default"), ==, "gpt-4o-mini");

  /* Same backend and connection: one instance, one concurrency bound. */
  judge = anot_backend_router_get_backend (router, "judge", &error);
  scorer = anot_backend_router_get_backend (router, "scorer", &error);
  g_assert_true (judge == main_backend);
  g_assert_true (scorer == main_backend);
  g_assert_cmpstr (anot_backend_router_get_model (router, "judge"), ==, "gpt-4o");

  planner = anot_backend_router_get_backend (router, "planner", &error);
  g_assert_no_error (error);
  g_assert_true (planner != main_backend);
  g_assert_cmpstr (anot_backend_router_get_backend_name (router, "planner"), ==, "anthropic");
  g_assert_cmpstr (anot_backend_router_get_model (router, "planner"), ==, "claude-x");
  g_assert_true (anot_http_backend_has_api_key (ANOT_HTTP_BACKEND (planner)));
  /* [backend openai]'s URL is not the anthropic backend's. */
  g_assert_cmpstr (anot_http_backend_get_base_url (ANOT_HTTP_BACKEND (planner)), ==,
                   "https://api.anthropic.com");

  /* An unconfigured role uses the default route. */
  g_assert_true (anot_backend_router_get_backend (router, "critic", &error) == main_backend);

  g_assert_true (anot_backend_router_lookup_price (router, "my-model", &input, &output));
  g_assert_cmpfloat (input, ==, 2.0);
  g_assert_cmpfloat (output, ==, 8.0);
  g_assert_true (anot_backend_router_lookup_price (router, "gpt-4o-mini-2024-07-18", &input, &output));
  g_assert_cmpfloat (input, ==, 0.15);
  g_assert_cmpfloat (output, ==, 0.60);
  /* No made-up default: a model the table does not know has no price. */
  g_assert_false (anot_backend_router_lookup_price (router, "qwen2.5:0.5b", &input, &output));
  g_assert_true (isnan (input));
  g_assert_true (isnan (output));
  g_assert_false (anot_backend_router_has_price (router, "qwen2.5:0.5b"));
  g_assert_true (anot_backend_router_has_price (router, "my-model"));

  json = anot_llm_config_to_json (config, router);
  json_text = json_to_string (json, FALSE);
  g_assert_null (strstr (json_text, "sk-"));
  g_assert_null (strstr (json_text, "127.0.0.1"));
  {
    JsonObject *object = json_node_get_object (json);
    JsonObject *roles = json_object_get_object_member (object, "roles");

    g_assert_cmpstr (json_object_get_string_member (object, "provider"), ==, "openai");
    g_assert_cmpstr (json_object_get_string_member (object, "model"), ==, "gpt-4o-mini");
    g_assert_cmpfloat (json_object_get_double_member (object, "temperature"), ==, 0.0);
    g_assert_true (json_object_get_null_member (object, "max_tokens"));
    g_assert_cmpstr (json_object_get_string_member (json_object_get_object_member (roles, "planner"),
                                                    "provider"), ==, "anthropic");
    g_assert_cmpstr (json_object_get_string_member (json_object_get_object_member (roles, "scorer"),
                                                    "model"), ==, "gpt-4o");
  }
}

static void
test_unknown_backend (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(AnotLlmConfig) config = config_new (NULL, "ANOT_BACKEND=nosuch", NULL);
  g_autoptr(AnotBackendRouter) router = anot_llm_config_create_router (config, &error);

  g_assert_null (router);
  g_assert_error (error, ANOT_ERROR, ANOT_ERROR_PLUGIN_NOT_FOUND);
  g_assert_nonnull (strstr (error->message, "nosuch"));
  g_assert_nonnull (strstr (error->message, "ANOT_BACKEND"));
  g_assert_nonnull (strstr (error->message, "openai"));
}

static void
test_default_file (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(AnotLlmConfig) config = anot_llm_config_new ();
  g_autofree char *expected = g_build_filename (g_get_user_config_dir (), "anot", "config.ini", NULL);
  g_autofree char *path = anot_llm_config_get_default_path ();
  g_autofree char *dir = g_path_get_dirname (expected);

  g_assert_cmpstr (path, ==, expected);
  /* Missing: fine. */
  g_assert_true (anot_llm_config_load_default_file (config, &error));
  g_assert_no_error (error);
  g_mkdir_with_parents (dir, 0700);
  g_assert_true (g_file_set_contents (expected, "[default]\nmodel = from-xdg\n", -1, &error));
  g_assert_true (anot_llm_config_load_default_file (config, &error));
  g_assert_no_error (error);
  assert_lookup (config, "default", "model", "from-xdg", "config.ini");
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);
  g_unsetenv ("ANOT_CONFIG");

  g_test_add_func ("/llm-config/defaults", test_defaults);
  g_test_add_func ("/llm-config/precedence", test_precedence);
  g_test_add_func ("/llm-config/model-follows-backend", test_model_follows_backend);
  g_test_add_func ("/llm-config/environment-roles", test_environment_roles);
  g_test_add_func ("/llm-config/invalid", test_invalid);
  g_test_add_func ("/llm-config/router", test_router_from_config);
  g_test_add_func ("/llm-config/base-urls", test_base_urls);
  g_test_add_func ("/llm-config/unknown-backend", test_unknown_backend);
  g_test_add_func ("/llm-config/default-file", test_default_file);

  return g_test_run ();
}
