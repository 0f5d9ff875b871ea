/* test-budget-cli.c: anot-run --max-cost is a cap for every method, with
 * the fake LLM server's own counts of what it answered as the bill
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Every test here asserts counts (what the server billed, the rows, the
 * exit status), never an order of events: they were run 20 times out of
 * 20 beside two busy loops.
 */
#include "config.h"

#include <anot/anot.h>

#include <glib/gstdio.h>
#include <math.h>
#include <string.h>

#include "anot-fake-llm.h"
#include "anot-test-cli.h"

typedef AnotTestCli Fixture;

/* The model's price, in the config.ini every run reads: the fake server
 * counts a token per 4 bytes, as anot-run's approximation of a model
 * whose tokenizer it does not know, so the estimates count what the
 * server bills. */
#define PRICE_INPUT 1.0
#define PRICE_OUTPUT 3.0

/* ReAct that never finishes before its forced finish: max_steps + 1 calls
 * a request, where the stand-in's estimate makes one. */
static const char *react_rules =
  "{\"latency_ms\": 5, \"rules\": ["
  "  {\"match\": \"You have used every step\", \"reply\": \"4, 2\\\")\"},"
  "  {\"match\": \"\", \"reply\": \"Thought: count them.\\nAction: count(\\\"items\\\")\"}"
  "]}";

/* LATS whose search finds no solution: it runs to its limits. */
static const char *lats_rules =
  "{\"latency_ms\": 5, \"rules\": ["
  "  {\"match\": \"^Evaluate\", \"reply\": \"{\\\"value\\\": 0.3, \\\"reflection\\\": \\\"not yet\\\"}\"},"
  "  {\"match\": \"^Propose.*option 1 of\", \"reply\": \"Thought: count.\\nAction: count(\\\"items\\\")\"},"
  "  {\"match\": \"^Propose.*option 2 of\", \"reply\": \"Thought: keys.\\nAction: keys(\\\"items[1].attributes\\\")\"},"
  "  {\"match\": \"\", \"reply\": \"Thought: sample.\\nAction: sample(\\\"items[*].attributes.HasTV\\\")\"}"
  "]}";

/* test-llm whose plan asks for six more calls (tests/llm-plugin): calls
 * no estimate on a stand-in can see, and no bound declared. */
static const char *more_rules =
  "{\"latency_ms\": 5, \"rules\": ["
  "  {\"match\": \"^PLAN\", \"reply\": \"MORE 6\"},"
  "  {\"match\": \"^SCORE \\\\S+ item (\\\\d+)\", \"reply\": \"\\\\1\"},"
  "  {\"match\": \"^AGAIN\", \"reply\": \"ok\"}"
  "]}";

static void
fixture_setup (Fixture       *f,
               gconstpointer  data)
{
  g_autofree char *config = NULL;
  g_autofree char *text = g_strdup_printf ("[prices]\nfake = %.2f, %.2f\n", PRICE_INPUT, PRICE_OUTPUT);
  g_autoptr(GError) error = NULL;

  anot_test_cli_setup (f, "anot-test-budget-cli-XXXXXX", react_rules);
  config = g_build_filename (f->root, "config.ini", NULL);
  g_assert_true (g_file_set_contents (config, text, -1, &error));
  g_assert_no_error (error);
}

static void
fixture_teardown (Fixture       *f,
                  gconstpointer  data)
{
  anot_test_cli_teardown (f);
}

static int
run (Fixture     *f,
     const char **argv,
     char       **out_stderr)
{
  g_autofree char *config = g_build_filename (f->root, "config.ini", NULL);
  g_autofree char *config_env = g_strconcat ("ANOT_CONFIG=", config, NULL);
  g_autofree char *plugins = g_build_filename (g_getenv ("ANOT_TEST_BUILDDIR"), "llm-plugin", NULL);
  g_autofree char *path_env = g_strdup_printf ("ANOT_PLUGIN_PATH=%s%s%s", g_getenv ("ANOT_PLUGIN_PATH"),
                                               G_SEARCHPATH_SEPARATOR_S, plugins);
  const char *env[] = {
    config_env, path_env, "OPENAI_API_KEY=sk-anot-test-budget", "ANOT_BASE_URL",
    "ANOT_MAX_RETRIES=1", "ANOT_RETRY_BASE_MS=20", "ANOT_RETRY_MAX_MS=40", NULL,
  };
  g_autoptr(GSubprocess) process = anot_test_cli_spawn (G_SUBPROCESS_FLAGS_STDOUT_SILENCE |
                                                        G_SUBPROCESS_FLAGS_STDERR_PIPE,
                                                        argv, env);

  return anot_test_cli_wait (process, NULL, NULL, NULL, out_stderr);
}

/* What the server billed: every call it answered, and every batch line,
 * at the price of config.ini (batch lines at half of it). */
static double
server_bill (AnotFakeLlm *server,
             guint       *out_calls)
{
  guint64 prompt = 0, completion = 0, batch_prompt, batch_completion;
  guint calls = 0;

  for (guint i = 0; i < anot_fake_llm_get_n_requests (server); i++)
    {
      JsonObject *record = anot_fake_llm_get_request (server, i);
      const char *path = json_object_get_string_member (record, "path");

      if (strcmp (path, "/v1/chat/completions") != 0 ||
          json_object_get_int_member_with_default (record, "status", 200) != 200)
        continue;
      calls++;
      prompt += json_object_get_int_member_with_default (record, "prompt_tokens", 0);
      completion += json_object_get_int_member_with_default (record, "completion_tokens", 0);
    }
  anot_fake_llm_get_batch_tokens (server, &batch_prompt, &batch_completion);
  if (out_calls != NULL)
    *out_calls = calls + (guint) anot_fake_llm_get_n_batch_lines (server);
  return prompt / 1e6 * PRICE_INPUT + completion / 1e6 * PRICE_OUTPUT +
         batch_prompt / 1e6 * PRICE_INPUT / 2 + batch_completion / 1e6 * PRICE_OUTPUT / 2;
}

/* The rows of every run of @experiment: their count, what they cost, and
 * how many the budget stopped. */
static double
rows_cost (const char *experiment,
           guint       runs,
           guint      *out_rows,
           guint      *out_budget_rows)
{
  double cost = 0;

  *out_rows = 0;
  *out_budget_rows = 0;
  for (guint r = 1; r <= runs; r++)
    {
      g_autofree char *run_dir = g_strdup_printf ("run_%u", r);
      g_autofree char *path = g_build_filename (experiment, "clean", run_dir, "results_10.jsonl", NULL);
      g_autofree char *contents = NULL;
      g_auto(GStrv) lines = NULL;

      if (!g_file_get_contents (path, &contents, NULL, NULL))
        continue;
      lines = g_strsplit (contents, "\n", -1);
      for (guint i = 0; lines[i] != NULL; i++)
        {
          g_autoptr(JsonNode) node = NULL;
          JsonObject *row;

          if (*lines[i] == '\0')
            continue;
          node = json_from_string (lines[i], NULL);
          g_assert_nonnull (node);
          row = json_node_get_object (node);
          (*out_rows)++;
          cost += json_object_get_double_member_with_default (row, "cost_usd", 0);
          if (g_strcmp0 (json_object_get_string_member_with_default (row, "error_class", NULL),
                         "budget") == 0)
            (*out_budget_rows)++;
        }
    }
  return cost;
}

typedef struct
{
  const char *method;
  const char *rules;
  gboolean batch;
  const char *budget;
  const char *option;   /* a -O KEY=VALUE, or NULL */
} CapCase;

/* A multi-round method at -j 64 stops within its budget: the server's
 * bill is at most the cap (the calls here set no max_tokens, but their
 * answers are far shorter than the 300 tokens a call's estimate assumes:
 * no overshoot), and so is what the rows say they cost. */
static void
test_cap (Fixture       *f,
          gconstpointer  data)
{
  const CapCase *c = data;
  g_autofree char *dir = g_build_filename (f->root, "capped", NULL);
  g_autofree char *err = NULL;
  g_autoptr(GPtrArray) argv = g_ptr_array_new ();
  const char *fixed[] = {
    "--method", c->method, "--backend", "openai", "--base-url", f->base_url, "--model", "fake",
    "--candidates", "10", "--runs", "4", "-j", "64", "--max-cost", c->budget,
    "--out", f->root, "--name", "capped",
  };
  double budget = g_ascii_strtod (c->budget, NULL);
  double bill, recorded;
  guint calls, rows, budget_rows;

  for (guint i = 0; i < G_N_ELEMENTS (fixed); i++)
    g_ptr_array_add (argv, (gpointer) fixed[i]);
  if (c->option != NULL)
    {
      g_ptr_array_add (argv, "-O");
      g_ptr_array_add (argv, (gpointer) c->option);
    }
  if (c->batch)
    g_ptr_array_add (argv, "--batch");
  g_ptr_array_add (argv, NULL);

  g_assert_true (anot_fake_llm_set_rules_json (f->server, c->rules, NULL));
  g_assert_cmpint (run (f, (const char **) argv->pdata, &err), ==, 3);
  bill = server_bill (f->server, &calls);
  recorded = rows_cost (dir, 4, &rows, &budget_rows);
  g_test_message ("%s%s: %u calls billed $%.5f of $%s; %u rows ($%.5f), %u stopped by the budget",
                  c->method, c->batch ? " (batch)" : "", calls, bill, c->budget, rows, recorded,
                  budget_rows);
  g_assert_nonnull (strstr (err, "Stopped: the budget of $"));
  g_assert_nonnull (strstr (err, " spent"));
  g_assert_null (strstr (err, "would be passed"));
  g_assert_cmpuint (calls, >, 0);
  g_assert_cmpuint (rows, >, 0);
  g_assert_cmpuint (rows, <, 120);
  g_assert_cmpfloat (bill, <=, budget);
  g_assert_cmpfloat (recorded, <=, budget + 1e-9);
  /* What the rows record is what the server billed; in batch mode too,
   * where identical calls share a line the server bills once (LATS makes
   * some): the first call that takes its answer is charged for it. */
  g_assert_cmpfloat (fabs (recorded - bill), <, 1e-6);
}

/* A method whose calls follow its answers, with no bound declared: each
 * call is held to the budget before it is sent.  The calls that would
 * pass it are not sent, their requests are unscored (error class
 * `budget`), the run exits 3 within the cap, and a resume with a higher
 * budget runs them again. */
static void
test_cap_each_call (Fixture       *f,
                    gconstpointer  data)
{
  g_autofree char *dir = g_build_filename (f->root, "each-call", NULL);
  g_autofree char *err = NULL;
  g_autofree char *resume_err = NULL;
  const char *argv[] = {
    "--method", "test-llm", "--backend", "openai", "--base-url", f->base_url, "--model", "fake",
    "--candidates", "10", "--runs", "4", "-j", "64", "--max-tokens", "4", "--max-cost", "0.01",
    "--out", f->root, "--name", "each-call", NULL,
  };
  const char *resume_argv[] = { "--resume", dir, "--max-cost", "1", NULL };
  double bill;
  guint calls, rows, budget_rows;

  g_assert_true (anot_fake_llm_set_rules_json (f->server, more_rules, NULL));
  g_assert_cmpint (run (f, argv, &err), ==, 3);
  bill = server_bill (f->server, &calls);
  rows_cost (dir, 4, &rows, &budget_rows);
  g_test_message ("%u calls billed $%.5f of $0.01; %u rows, %u stopped by the budget",
                  calls, bill, rows, budget_rows);
  g_assert_cmpfloat (bill, <=, 0.01);
  g_assert_cmpuint (budget_rows, >, 0);
  g_assert_nonnull (strstr (err, "has no room for the next call"));
  g_assert_nonnull (strstr (err, "the next call is estimated at $"));
  g_assert_nonnull (strstr (err, "stopped before a call that did not fit"));

  g_assert_cmpint (run (f, resume_argv, &resume_err), ==, 0);
  rows_cost (dir, 4, &rows, &budget_rows);
  g_assert_cmpuint (rows, ==, 120);
  g_assert_cmpuint (budget_rows, ==, 0);
}

/* A budget of 0 or below is a usage error, before anything is written or
 * called. */
static void
test_refused_budgets (Fixture       *f,
                      gconstpointer  data)
{
  static const char * const options[][2] = {
    { "--max-cost", "0" },
    { "--max-cost", "-1" },
    { "--max-cost", "0.0" },
    { "--max-cost-role", "default=0" },
    { "--max-cost-role", "default=-2" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (options); i++)
    {
      g_autofree char *dir = g_build_filename (f->root, "zero", NULL);
      g_autofree char *err = NULL;
      const char *argv[] = {
        "--method", "react", "--backend", "openai", "--base-url", f->base_url, "--model", "fake",
        "--candidates", "10", options[i][0], options[i][1], "--out", f->root, "--name", "zero", NULL,
      };

      g_assert_cmpint (run (f, argv, &err), ==, 2);
      g_test_message ("%s %s: %s", options[i][0], options[i][1], err);
      g_assert_nonnull (strstr (err, options[i][0] + 2));
      g_assert_false (g_file_test (dir, G_FILE_TEST_EXISTS));
      g_assert_cmpuint (anot_fake_llm_get_n_requests (f->server), ==, 0);
    }
}

int
main (int    argc,
      char **argv)
{
  static CapCase cases[] = {
    { "react", NULL, FALSE, "0.05", NULL },
    { "react", NULL, TRUE, "0.03", "react.max_steps=3" },
    { "lats", NULL, FALSE, "0.3", NULL },
    /* Each round of a search waits for a batch, polled every 2 s at
     * first: fewer rounds. */
    { "lats", NULL, TRUE, "0.05", "lats.max_iterations=1" },
  };

  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *path = g_strdup_printf ("/budget-cli/cap/%s/%s", cases[i].method,
                                               cases[i].batch ? "batch" : "direct");

      cases[i].rules = strcmp (cases[i].method, "react") == 0 ? react_rules : lats_rules;
      g_test_add (path, Fixture, &cases[i], fixture_setup, test_cap, fixture_teardown);
    }
  g_test_add ("/budget-cli/cap/each-call", Fixture, NULL, fixture_setup, test_cap_each_call,
              fixture_teardown);
  g_test_add ("/budget-cli/refused-budgets", Fixture, NULL, fixture_setup, test_refused_budgets,
              fixture_teardown);
  return g_test_run ();
}
