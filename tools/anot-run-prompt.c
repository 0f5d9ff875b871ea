/* anot-run-prompt.c: `anot-run prompt`, the exact prompts a method sends
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "anot-run.h"

int
anot_run_cmd_prompt (int    argc,
                     char **argv)
{
  AnotRunHooks hooks = {
    .parameter_string = "— print the exact prompt(s) a method sends for a request, without calling any LLM",
    .summary =
      "Takes the options of a run (method, benchmark, candidates, attack, defense, model,\n"
      "roles, method options) and one request, builds the request's pool as the run does\n"
      "(same seed, shuffle and attack), and runs the method against a stand-in that answers\n"
      "at once, printing the messages of its first call (--calls K: its first K, 0: all)\n"
      "exactly as they would be sent, after context fitting for the model's window.  Calls\n"
      "after the first may depend on the stand-in's answer rather than a model's.\n"
      "With --scaling or several attacks, every cell's prompts are printed.",
    .prompt = TRUE,
    .calls = 1,
    .exit_status =
      "Exit status:\n"
      "  0    the prompts were printed\n"
      "  1    the benchmark could not be loaded, or the method failed before its first call\n"
      "  2    usage error: bad option or value, unknown method or request\n",
  };
  int status;

  g_set_prgname ("anot-run prompt");
  status = anot_run_run_experiment (argc, argv, &hooks);

  g_free (hooks.directory);
  g_free (hooks.completion_tokens);
  g_free (hooks.request);
  return status;
}

int
anot_run_prompt_experiment (AnotExperiment *experiment,
                            AnotRunHooks   *hooks)
{
  g_autoptr(AnotRunConfig) config = anot_experiment_get_config (experiment);
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) prompts = NULL;
  JsonArray *cells;

  /* Nothing is written: an existing results directory is no obstacle. */
  if (!anot_run_config_set (config, "force", "true", &error))
    return anot_run_usage_error ("prompt", "%s", error->message);
  anot_experiment_set_config (experiment, config);

  prompts = anot_experiment_preview_prompts (experiment, (guint) hooks->calls, &error);
  if (prompts == NULL)
    {
      g_printerr ("anot-run prompt: %s\n", error->message);
      return g_error_matches (error, ANOT_ERROR, ANOT_ERROR_INVALID_ARGUMENT) ||
             g_error_matches (error, ANOT_ERROR, ANOT_ERROR_PLUGIN_NOT_FOUND)
             ? ANOT_RUN_EXIT_USAGE : ANOT_RUN_EXIT_FAILED;
    }

  if (hooks->json)
    {
      g_autofree char *text = json_to_string (prompts, TRUE);

      g_print ("%s\n", text);
      return ANOT_RUN_EXIT_OK;
    }

  cells = json_node_get_array (prompts);
  if (json_array_get_length (cells) == 0)
    {
      g_printerr ("anot-run prompt: the selection plans no request (is the request in the "
                  "benchmark, and its gold in the pool?)\n");
      return ANOT_RUN_EXIT_FAILED;
    }
  for (guint c = 0; c < json_array_get_length (cells); c++)
    {
      JsonObject *cell = json_array_get_object_element (cells, c);
      JsonArray *calls = json_object_get_array_member (cell, "calls");

      if (json_array_get_length (calls) == 0)
        g_print ("=== %s (%s, N=%" G_GINT64_FORMAT ", run %" G_GINT64_FORMAT "): the method made no LLM call\n",
                 json_object_get_string_member (cell, "request_id"),
                 json_object_get_string_member (cell, "attack"),
                 json_object_get_int_member (cell, "n"), json_object_get_int_member (cell, "run"));
      for (guint k = 0; k < json_array_get_length (calls); k++)
        {
          JsonObject *call = json_array_get_object_element (calls, k);
          JsonArray *messages = json_object_get_array_member (call, "messages");

          g_print ("=== %s (%s, N=%" G_GINT64_FORMAT ", run %" G_GINT64_FORMAT "), call %u, role %s, model %s\n",
                   json_object_get_string_member (cell, "request_id"),
                   json_object_get_string_member (cell, "attack"),
                   json_object_get_int_member (cell, "n"), json_object_get_int_member (cell, "run"),
                   k + 1,
                   json_object_get_string_member_with_default (call, "role", "default"),
                   json_object_get_string_member_with_default (call, "model", "(none)"));
          for (guint m = 0; m < json_array_get_length (messages); m++)
            {
              JsonObject *message = json_array_get_object_element (messages, m);

              g_print ("--- %s\n%s\n", json_object_get_string_member (message, "role"),
                       json_object_get_string_member (message, "content"));
            }
        }
    }
  return ANOT_RUN_EXIT_OK;
}
