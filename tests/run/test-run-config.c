/* test-run-config.c: the experiment settings' one parser and one writer
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <anot/anot.h>

#include <string.h>

/* A valid value of every key, in the text form get() gives back. */
static const struct
{
  const char *key;
  const char *value;
} samples[] = {
  { "candidates", "10,20" }, { "scaling", "true" }, { "compat", "original" }, { "pool", "original" },
  { "shuffle", "middle" }, { "seed", "18446744073709551615" }, { "runs", "3" },
  { "k", "4" }, { "concurrency", "2" }, { "limit", "7" }, { "requests", "R01,R05" },
  { "groups", "G01,1-3" }, { "out", "/tmp/out" }, { "name", "exp" }, { "force", "true" },
  { "defense", "true" }, { "attack", "clean,noise" }, { "attack-compat", "original" }, { "backend", "anthropic" },
  { "model", "m" }, { "base-url", "http://localhost:1/v1" }, { "temperature", "0.5" },
  { "max-tokens", "100" }, { "role", "planner=openai:x" }, { "cache", "/tmp/c.sqlite" },
  { "offline", "true" }, { "debug", "2" }, { "shard", "2/4" }, { "batch", "true" }, { "batch-max-size", "500" }, { "batch-max-bytes", "4000000" },
  { "batch-window", "60" }, { "batch-retry", "direct" }, { "context-tokens", "8000" },
  { "request-timeout", "90" }, { "rpm", "500" }, { "tpm", "600000" },
  { "max-cost", "2.5" }, { "max-cost-role", "planner=1,default=0.5" },
};

static void
test_every_key_round_trips (void)
{
  g_auto(GStrv) keys = anot_run_config_list_keys ();
  g_autoptr(AnotRunConfig) config = anot_run_config_new ();
  g_autoptr(AnotRunConfig) back = NULL;
  g_autoptr(JsonNode) json = NULL;
  g_autoptr(GError) error = NULL;

  /* The samples cover the table, so a new key needs a sample here. */
  g_assert_cmpuint (g_strv_length (keys), ==, G_N_ELEMENTS (samples));
  for (guint i = 0; i < G_N_ELEMENTS (samples); i++)
    {
      g_autofree char *text = NULL;

      g_assert_true (g_strv_contains ((const char * const *) keys, samples[i].key));
      g_assert_false (anot_run_config_is_set (config, samples[i].key));
      g_assert_true (anot_run_config_set (config, samples[i].key, samples[i].value, &error));
      g_assert_no_error (error);
      g_assert_true (anot_run_config_is_set (config, samples[i].key));
      text = anot_run_config_get (config, samples[i].key);
      g_assert_cmpstr (text, ==, samples[i].value);
    }
  g_assert_true (anot_run_config_set (config, "method.bm25.k1", "1.2", &error));
  g_assert_true (anot_run_config_set (config, "attack.restaurants", "2", &error));

  json = anot_run_config_to_json (config);
  back = anot_run_config_new_from_json (json, &error);
  g_assert_no_error (error);
  for (guint i = 0; i < G_N_ELEMENTS (samples); i++)
    {
      g_autofree char *text = anot_run_config_get (back, samples[i].key);

      g_assert_true (anot_run_config_is_set (back, samples[i].key));
      g_assert_cmpstr (text, ==, samples[i].value);
    }
  {
    g_autofree char *k1 = anot_run_config_get (back, "method.bm25.k1");
    g_autofree char *restaurants = anot_run_config_get (back, "attack.restaurants");
    g_auto(GStrv) set_keys = anot_run_config_list_set_keys (back);

    g_assert_cmpstr (k1, ==, "1.2");
    g_assert_cmpstr (restaurants, ==, "2");
    g_assert_cmpuint (g_strv_length (set_keys), ==, G_N_ELEMENTS (samples) + 2);
  }

  /* Typed. */
  {
    guint n;
    const guint *ns = anot_run_config_get_candidates (back, &n);

    g_assert_cmpuint (n, ==, 2);
    g_assert_cmpuint (ns[0], ==, 10);
    g_assert_cmpuint (ns[1], ==, 20);
    g_assert_cmpuint (anot_run_config_get_seed (back), ==, G_MAXUINT64);
    g_assert_cmpint (anot_run_config_get_pool_mode (back), ==, ANOT_POOL_MODE_ORIGINAL);
    g_assert_cmpint (anot_run_config_get_shuffle_mode (back), ==, ANOT_SHUFFLE_MODE_MIDDLE);
    g_assert_cmpuint (anot_run_config_get_k (back), ==, 4);
    g_assert_cmpuint (anot_run_config_get_runs (back), ==, 3);
    g_assert_cmpuint (anot_run_config_get_concurrency (back), ==, 2);
    g_assert_cmpuint (anot_run_config_get_limit (back), ==, 7);
    g_assert_true (anot_run_config_get_scaling (back));
    g_assert_true (anot_run_config_get_defense (back));
  }
}

/* -j auto, the default: 0, "auto" as text, null in the record, and a
 * number still a number; rpm and tpm must be counts. */
static void
test_concurrency_auto (void)
{
  g_autoptr(AnotRunConfig) config = anot_run_config_new ();
  g_autoptr(AnotRunConfig) back = NULL;
  g_autoptr(JsonNode) json = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *text = anot_run_config_get (config, "concurrency");

  g_assert_cmpuint (anot_run_config_get_concurrency (config), ==, 0);
  g_assert_cmpstr (text, ==, "auto");
  g_assert_true (anot_run_config_set (config, "concurrency", "12", &error));
  g_assert_cmpuint (anot_run_config_get_concurrency (config), ==, 12);
  g_assert_true (anot_run_config_set (config, "concurrency", "AUTO", &error));
  g_assert_no_error (error);
  g_assert_cmpuint (anot_run_config_get_concurrency (config), ==, 0);
  json = anot_run_config_to_json (config);
  back = anot_run_config_new_from_json (json, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (anot_run_config_get_concurrency (back), ==, 0);
  g_assert_false (anot_run_config_set (config, "concurrency", "0", &error));
  g_assert_error (error, ANOT_ERROR, ANOT_ERROR_INVALID_ARGUMENT);
  g_clear_error (&error);
  g_assert_false (anot_run_config_set (config, "tpm", "lots", &error));
  g_assert_error (error, ANOT_ERROR, ANOT_ERROR_INVALID_ARGUMENT);
  g_assert_nonnull (strstr (error->message, "tpm"));
  g_clear_error (&error);
  g_assert_false (anot_run_config_set (config, "rpm", "0", &error));
  g_clear_error (&error);
}

static void
test_defaults (void)
{
  g_autoptr(AnotRunConfig) config = anot_run_config_new ();
  g_autoptr(JsonNode) json = anot_run_config_to_json (config);
  g_autofree char *k = anot_run_config_get (config, "k");
  g_autofree char *candidates = anot_run_config_get (config, "candidates");
  g_autofree char *requests = anot_run_config_get (config, "requests");

  /* Nothing given, nothing written; the defaults read back. */
  g_assert_cmpuint (json_object_get_size (json_node_get_object (json)), ==, 0);
  g_assert_cmpstr (k, ==, "5");
  g_assert_cmpstr (candidates, ==, "10");
  g_assert_null (requests);
  g_assert_cmpuint (anot_run_config_get_seed (config), ==, 42);

  /* NULL restores the default. */
  g_assert_true (anot_run_config_set (config, "k", "3", NULL));
  g_assert_true (anot_run_config_set (config, "k", NULL, NULL));
  g_assert_false (anot_run_config_is_set (config, "k"));
  g_assert_cmpuint (anot_run_config_get_k (config), ==, 5);
}

static void
test_errors_name_key_and_value (void)
{
  static const struct
  {
    const char *key;
    const char *value;
  } bad[] = {
    { "k", "0" }, { "k", "abc" }, { "seed", "-1" }, { "runs", "1001" },
    { "candidates", "10,10" }, { "candidates", " , " }, { "candidates", "x" },
    { "pool", "weird" }, { "shuffle", "sideways" }, { "scaling", "maybe" },
    { "requests", "," }, { "groups", "" }, { "name", "a/b" }, { "name", ".." },
    { "name", "" }, { "attack", "" }, { "debug", "loud" }, { "limit", "0" },
    { "shard", "4/4" }, { "shard", "1" }, { "shard", "0/0" }, { "shard", "-1/2" },
    { "batch", "often" }, { "batch-max-size", "0" }, { "batch-max-size", "100001" }, { "batch-max-bytes", "lots" },
    { "batch-retry", "sometimes" }, { "max-cost", "-1" }, { "max-cost", "ten" },
    { "max-cost-role", "planner" }, { "max-cost-role", "=3" }, { "max-cost-role", "planner=x" },
    { "context-tokens", "many" },
  };
  g_autoptr(AnotRunConfig) config = anot_run_config_new ();

  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      g_autoptr(GError) error = NULL;
      g_autofree char *quoted = g_strdup_printf ("“%s”", bad[i].value);

      g_assert_false (anot_run_config_set (config, bad[i].key, bad[i].value, &error));
      g_assert_error (error, ANOT_ERROR, ANOT_ERROR_INVALID_ARGUMENT);
      g_test_message ("%s=%s: %s", bad[i].key, bad[i].value, error->message);
      g_assert_nonnull (strstr (error->message, bad[i].key));
      g_assert_nonnull (strstr (error->message, quoted));
      /* A bad value leaves the setting as it was. */
      g_assert_false (anot_run_config_is_set (config, bad[i].key));
    }

  {
    g_autoptr(GError) error = NULL;

    g_assert_true (anot_run_config_set (config, "k", "3", NULL));
    g_assert_false (anot_run_config_set (config, "k", "x", &error));
    g_assert_cmpuint (anot_run_config_get_k (config), ==, 3);
  }
}

static void
test_unknown_key (void)
{
  g_autoptr(AnotRunConfig) config = anot_run_config_new ();
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonParser) parser = json_parser_new ();

  g_assert_false (anot_run_config_set (config, "candidats", "10", &error));
  g_assert_error (error, ANOT_ERROR, ANOT_ERROR_INVALID_ARGUMENT);
  g_assert_nonnull (strstr (error->message, "“candidats”"));
  g_clear_error (&error);

  g_assert_false (anot_run_config_set (config, "method.", "1", &error));
  g_assert_error (error, ANOT_ERROR, ANOT_ERROR_INVALID_ARGUMENT);
  g_clear_error (&error);

  /* Through JSON too. */
  g_assert_true (json_parser_load_from_data (parser, "{\"k\": \"3\", \"bogus\": \"1\"}", -1, NULL));
  g_assert_null (anot_run_config_new_from_json (json_parser_get_root (parser), &error));
  g_assert_error (error, ANOT_ERROR, ANOT_ERROR_INVALID_ARGUMENT);
  g_assert_nonnull (strstr (error->message, "“bogus”"));
}

static void
test_copy_is_independent (void)
{
  g_autoptr(AnotRunConfig) config = anot_run_config_new ();
  g_autoptr(AnotRunConfig) copy = NULL;
  g_autofree char *requests = NULL;

  g_assert_true (anot_run_config_set (config, "requests", "R01", NULL));
  g_assert_true (anot_run_config_set (config, "method.x", "1", NULL));
  copy = anot_run_config_copy (config);
  g_assert_true (anot_run_config_set (config, "requests", "R02", NULL));
  g_assert_true (anot_run_config_set (config, "method.x", NULL, NULL));
  requests = anot_run_config_get (copy, "requests");
  g_assert_cmpstr (requests, ==, "R01");
  g_assert_true (anot_run_config_is_set (copy, "method.x"));
  g_assert_false (anot_run_config_is_set (config, "method.x"));
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/run-config/round-trip", test_every_key_round_trips);
  g_test_add_func ("/run-config/defaults", test_defaults);
  g_test_add_func ("/run-config/concurrency-auto", test_concurrency_auto);
  g_test_add_func ("/run-config/errors", test_errors_name_key_and_value);
  g_test_add_func ("/run-config/unknown-key", test_unknown_key);
  g_test_add_func ("/run-config/copy", test_copy_is_independent);

  return g_test_run ();
}
