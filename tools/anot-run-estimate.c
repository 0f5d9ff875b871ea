/* anot-run-estimate.c: `anot-run estimate`, what a run would cost
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "anot-run.h"

#include <math.h>
#include <string.h>

#define DEFAULT_COMPLETION_TOKENS 300

int
anot_run_cmd_estimate (int    argc,
                       char **argv)
{
  AnotRunHooks hooks = {
    .parameter_string = "— estimate the calls, tokens and cost of a run without calling any LLM",
    .summary =
      "Takes the options of a run (method, candidates, attacks, runs, requests, model, roles)\n"
      "and prints, per attack and N, the LLM calls, prompt and completion tokens and their cost\n"
      "at the configured list prices and at the batch prices (--batch).  The method runs over\n"
      "every planned request against a stand-in that counts each prompt with the model's\n"
      "tokenizer (exact for OpenAI's o200k_base and cl100k_base models; one token per 4\n"
      "bytes otherwise, which the output says) and answers at once.  Prompts built before a\n"
      "method needs a real answer are exact; methods whose later rounds depend on answers\n"
      "(anot, aot, react, lats, general_anot) may stop early on the stand-in: those requests\n"
      "are counted as incomplete (lower bounds), next to the method's call formula; react\n"
      "and lats declare the most calls their settings allow (steps; iterations, beam and\n"
      "max_calls), printed as the upper bound.\n"
      "--max-tokens and --context-tokens change the figures; the options of how a run\n"
      "calls the LLM or where it writes (--concurrency, --out, --name, --force, --cache,\n"
      "--offline, the --batch options, the budgets) are accepted and do not change them.\n"
      "--resume DIR estimates what is left of that run; --shard I/N that shard's cells.",
    .estimate = TRUE,
    .exit_status =
      "Exit status:\n"
      "  0    the estimate was printed\n"
      "  1    the benchmark could not be loaded, or the estimate failed\n"
      "  2    usage error: bad option or value, unknown method, empty selection,\n"
      "       or a directory that cannot be resumed\n",
  };
  int status;

  /* Options are checked by the run command's parser: keep the command
   * in its messages and --help. */
  g_set_prgname ("anot-run estimate");
  status = anot_run_run_experiment (argc, argv, &hooks);

  g_free (hooks.directory);
  g_free (hooks.completion_tokens);
  return status;
}

/* @member of @object: "$0.1234", or "unknown price" when null. */
static void
print_money (const char *label,
             JsonObject *object,
             const char *member)
{
  g_autofree char *text = anot_run_format_cost (anot_run_json_cost (object, member), 4);

  g_print ("%s%s", label, text);
}

/* A column of the table: "0.1234", or "unknown" when null. */
char *
anot_run_estimate_money_cell (JsonObject *object,
            const char *member)
{
  double value = anot_run_json_cost (object, member);

  return isnan (value) ? g_strdup ("unknown") : g_strdup_printf ("%.4f", value);
}

/* The last line of an estimate, the same for a run and a study. */
void
anot_run_print_estimate_total (JsonObject *total)
{
  g_print ("Total: %" G_GINT64_FORMAT " requests, %" G_GINT64_FORMAT " calls (%" G_GINT64_FORMAT
           "..%" G_GINT64_FORMAT " per request), %" G_GINT64_FORMAT " prompt + %" G_GINT64_FORMAT
           " completion tokens; ",
           json_object_get_int_member (total, "requests"), json_object_get_int_member (total, "calls"),
           json_object_get_int_member (total, "calls_per_request_min"),
           json_object_get_int_member (total, "calls_per_request_max"),
           json_object_get_int_member (total, "prompt_tokens"),
           json_object_get_int_member (total, "completion_tokens"));
  print_money ("", total, "cost_usd");
  print_money (" direct, ", total, "batch_cost_usd");
  g_print (" batched\n");
  if (json_object_has_member (total, "calls_bound") &&
      !json_object_get_null_member (total, "calls_bound") &&
      json_object_get_int_member (total, "calls_bound") > json_object_get_int_member (total, "calls"))
    {
      g_print ("Upper bound: at most %" G_GINT64_FORMAT " calls per request (%" G_GINT64_FORMAT
               " in all), as the method's settings allow; ",
               json_object_get_int_member (total, "calls_per_request_bound"),
               json_object_get_int_member (total, "calls_bound"));
      print_money ("", total, "cost_at_bound_usd");
      print_money (" direct, ", total, "batch_cost_at_bound_usd");
      g_print (" batched\nat that many calls, each priced as the average call above (later rounds' prompts\n"
               "are longer, so the cost may be higher; a budget holds each call to it before it\n"
               "is sent)\n");
    }
}

int
anot_run_estimate_experiment (AnotExperiment *experiment,
                              AnotRunHooks   *hooks)
{
  g_autoptr(AnotRunConfig) config = anot_experiment_get_config (experiment);
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) estimate = NULL;
  guint64 completion_tokens = DEFAULT_COMPLETION_TOKENS;
  JsonObject *root, *total;
  JsonArray *rows;

  if (hooks->completion_tokens != NULL &&
      !g_ascii_string_to_unsigned (hooks->completion_tokens, 10, 0, 1000000, &completion_tokens, NULL))
    return anot_run_usage_error ("estimate", "invalid value “%s” for --completion-tokens: "
                                 "expected an integer between 0 and 1000000",
                                 hooks->completion_tokens);

  /* Nothing is written: an existing results directory is no obstacle. */
  if (!anot_run_config_set (config, "force", "true", &error))
    return anot_run_usage_error ("estimate", "%s", error->message);
  anot_experiment_set_config (experiment, config);

  estimate = anot_experiment_estimate (experiment, (guint) completion_tokens, &error);
  if (estimate == NULL)
    {
      if (g_error_matches (error, ANOT_ERROR, ANOT_ERROR_INVALID_ARGUMENT) ||
          g_error_matches (error, ANOT_ERROR, ANOT_ERROR_CONFIG) ||
          g_error_matches (error, ANOT_ERROR, ANOT_ERROR_PLUGIN_NOT_FOUND))
        return anot_run_usage_error ("estimate", "%s", error->message);
      g_printerr ("anot-run estimate: %s\n", error->message);
      return ANOT_RUN_EXIT_FAILED;
    }

  if (hooks->json)
    {
      g_autofree char *text = json_to_string (estimate, TRUE);

      g_print ("%s\n", text);
      return ANOT_RUN_EXIT_OK;
    }

  root = json_node_get_object (estimate);
  rows = json_object_get_array_member (root, "rows");
  total = json_object_get_object_member (root, "total");
  g_print ("Estimate for %s on %s (no LLM called)\n",
           json_object_get_string_member (root, "method"),
           json_object_get_string_member (root, "dataset"));
  g_print ("\n%-22s %5s %9s %9s %13s %12s %11s %11s\n", "attack", "N", "requests", "calls",
           "prompt tok", "compl tok", "cost", "batch cost");
  for (guint i = 0; i < json_array_get_length (rows); i++)
    {
      JsonObject *row = json_array_get_object_element (rows, i);
      g_autofree char *calls = NULL;
      g_autofree char *cost = anot_run_estimate_money_cell (row, "cost_usd");
      g_autofree char *batch_cost = anot_run_estimate_money_cell (row, "batch_cost_usd");

      if (json_object_get_int_member (row, "incomplete") > 0)
        calls = g_strdup_printf (">=%" G_GINT64_FORMAT, json_object_get_int_member (row, "calls"));
      else
        calls = g_strdup_printf ("%" G_GINT64_FORMAT, json_object_get_int_member (row, "calls"));
      g_print ("%-22s %5" G_GINT64_FORMAT " %9" G_GINT64_FORMAT " %9s %13" G_GINT64_FORMAT
               " %12" G_GINT64_FORMAT " %11s %11s\n",
               json_object_get_string_member (row, "attack"), json_object_get_int_member (row, "n"),
               json_object_get_int_member (row, "requests"), calls,
               json_object_get_int_member (row, "prompt_tokens"),
               json_object_get_int_member (row, "completion_tokens"),
               cost, batch_cost);
    }
  g_print ("\n");
  anot_run_print_estimate_total (total);
  {
    JsonArray *unpriced = json_object_get_array_member (root, "unpriced_models");

    /* Never a made-up figure: say which model left the cost unknown. */
    for (guint i = 0; unpriced != NULL && i < json_array_get_length (unpriced); i++)
      g_print ("Unknown price: the model “%s” has no price; give one in the [prices] section "
               "of config.ini (docs/configuration.md, \"Usage and cost\")\n",
               json_array_get_string_element (unpriced, i));
  }
  {
    JsonObject *pace = json_object_get_object_member (root, "pace");

    if (pace != NULL && !json_object_get_null_member (pace, "minutes"))
      {
        double minutes = json_object_get_double_member (pace, "minutes");
        gboolean by_tokens = g_strcmp0 (json_object_get_string_member (pace, "bound_by"), "tokens") == 0;

        g_print ("Time at the rate limits: at least %.1f min (%s ÷ %" G_GINT64_FORMAT
                 " per minute; the server's own limits, read during the run, may be tighter)\n",
                 minutes, by_tokens ? "tokens" : "calls",
                 json_object_get_int_member (pace, by_tokens ? "tpm" : "rpm"));
      }
    else
      g_print ("Time at the rate limits: none known (--rpm, --tpm; the server's are read "
               "during the run)\n");
  }

  {
    JsonObject *tokenizers = json_object_get_object_member (root, "tokenizers");
    g_autoptr(GList) models = json_object_get_members (tokenizers);

    for (GList *l = models; l != NULL; l = l->next)
      {
        const char *encoding = json_object_get_string_member (tokenizers, l->data);

        if (strcmp (encoding, "approximate") == 0)
          g_print ("Tokens of %s: approximated (one per 4 bytes; its tokenizer is not available)\n",
                   (const char *) l->data);
        else
          g_print ("Tokens of %s: exact (%s)\n", (const char *) l->data, encoding);
      }
  }
  g_print ("Completion tokens: max_tokens when set (an upper bound), else %" G_GUINT64_FORMAT
           " per call (--completion-tokens)\n", completion_tokens);
  if (json_object_get_int_member (total, "incomplete") > 0)
    g_print ("Incomplete: %" G_GINT64_FORMAT " requests stopped on the stand-in answer; their "
             "figures are lower bounds.  Calls per request: %s\n",
             json_object_get_int_member (total, "incomplete"),
             json_object_get_string_member_with_default (root, "call_formula", "no formula given"));
  else if (json_object_get_string_member_with_default (root, "call_formula", NULL) != NULL)
    g_print ("Calls per request: %s\n", json_object_get_string_member (root, "call_formula"));
  else
    g_print ("Calls per request: not fixed for this method (they follow the model's answers); "
             "the figures are those of the path the stand-in answer takes\n");
  if (json_object_get_string_member_with_default (root, "prices_as_of", NULL) != NULL)
    g_print ("Prices as of %s (config.ini's [prices] overrides them)\n",
             json_object_get_string_member (root, "prices_as_of"));
  return ANOT_RUN_EXIT_OK;
}
