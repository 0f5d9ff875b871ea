/* anot-run-llm.c: the LLM options shared by the anot-run subcommands
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "anot-run.h"

#include <string.h>

/* Adds --backend, --model, --base-url, --role, --temperature, --max-tokens,
 * --cache and --offline to the main group of @context, storing into @o. */
void
anot_run_llm_options_add_entries (AnotRunLlmOptions *o,
                                  GOptionContext    *context)
{
  const GOptionEntry entries[] = {
    { "backend", 'b', 0, G_OPTION_ARG_STRING, &o->backend,
      "LLM backend of the default role: openai, anthropic, ... (see --list; default openai)",
      "NAME" },
    { "model", 0, 0, G_OPTION_ARG_STRING, &o->model,
      "Model of the default role (and of every role without its own)", "MODEL" },
    { "base-url", 0, 0, G_OPTION_ARG_STRING, &o->base_url,
      "Server of the default role, e.g. http://localhost:8000/v1 for vLLM", "URL" },
    { "role", 0, 0, G_OPTION_ARG_STRING_ARRAY, &o->roles,
      "Route one role of the method to its own backend and model (repeatable)",
      "ROLE=BACKEND:MODEL" },
    { "temperature", 0, 0, G_OPTION_ARG_STRING, &o->temperature,
      "Sampling temperature (default 0; not sent to reasoning models)", "T" },
    { "max-tokens", 0, 0, G_OPTION_ARG_STRING, &o->max_tokens,
      "Most tokens per answer (default: the server's)", "N" },
    { "cache", 0, 0, G_OPTION_ARG_FILENAME, &o->cache,
      "Response cache (SQLite): reuse answers stored there, store new ones", "FILE" },
    { "offline", 0, 0, G_OPTION_ARG_NONE, &o->offline,
      "Answer LLM calls from --cache only; a missing answer fails that call", NULL },
    { "batch", 0, 0, G_OPTION_ARG_NONE, &o->batch,
      "Send the openai and anthropic calls through the providers' batch APIs "
      "(half price, answers within 24 h; also ANOT_BATCH=1, [llm] batch = true)", NULL },
    { "batch-max-size", 0, 0, G_OPTION_ARG_STRING, &o->batch_max_size,
      "Most calls in one batch (default 10000; the provider's limit when lower: "
      "OpenAI 50000, Anthropic 100000)", "N" },
    { "batch-max-bytes", 0, 0, G_OPTION_ARG_STRING, &o->batch_max_bytes,
      "Most bytes in one batch, counted on the lines sent (default: the provider's "
      "limit, OpenAI 200 MB, Anthropic 256 MB); a call alone over it fails", "BYTES" },
    { "batch-window", 0, 0, G_OPTION_ARG_STRING, &o->batch_window,
      "Submit a batch at the latest this many seconds after its first call "
      "(default 0: when the calls in flight settle)", "SECONDS" },
    { "batch-retry", 0, 0, G_OPTION_ARG_STRING, &o->batch_retry,
      "Where calls a batch did not answer are retried: batch (default) or direct", "WHERE" },
    { "context-tokens", 0, 0, G_OPTION_ARG_STRING, &o->context_tokens,
      "Context window prompts are fitted to before sending, in tokens "
      "(default: the model's from the price table)", "N" },
    { "rpm", 0, 0, G_OPTION_ARG_STRING, &o->rpm,
      "Requests per minute the server allows, for servers that do not say (the server's "
      "own limits, read from its answers, apply too; the tighter wins)", "N" },
    { "tpm", 0, 0, G_OPTION_ARG_STRING, &o->tpm,
      "Tokens per minute the server allows (prompt + max_tokens of each call, counted "
      "when it is sent): calls wait until they fit instead of being refused", "N" },
    { "max-cost", 0, 0, G_OPTION_ARG_STRING, &o->max_cost,
      "Budget in US dollars above 0, a cap: a request starts only when its estimated "
      "cost fits, and each LLM call only when its own does (exit status 3 when the next "
      "does not); --resume with a higher one continues.  Every model the method calls "
      "needs a price (built in, or [prices] of config.ini): a budget with one that has "
      "none is a usage error", "USD" },
    { "max-cost-role", 0, 0, G_OPTION_ARG_STRING_ARRAY, &o->max_cost_roles,
      "Budget of one role, above 0 (repeatable); needs prices as --max-cost does", "ROLE=USD" },
    G_OPTION_ENTRY_NULL
  };

  /* The group copies the entries, so the array may live on the stack. */
  g_option_context_add_main_entries (context, entries, NULL);
}

void
anot_run_llm_options_clear (AnotRunLlmOptions *o)
{
  g_clear_pointer (&o->backend, g_free);
  g_clear_pointer (&o->model, g_free);
  g_clear_pointer (&o->base_url, g_free);
  g_clear_pointer (&o->roles, g_strfreev);
  g_clear_pointer (&o->temperature, g_free);
  g_clear_pointer (&o->max_tokens, g_free);
  g_clear_pointer (&o->cache, g_free);
  o->offline = FALSE;
  o->batch = FALSE;
  g_clear_pointer (&o->batch_max_size, g_free);
  g_clear_pointer (&o->batch_max_bytes, g_free);
  g_clear_pointer (&o->batch_window, g_free);
  g_clear_pointer (&o->batch_retry, g_free);
  g_clear_pointer (&o->max_cost, g_free);
  g_clear_pointer (&o->context_tokens, g_free);
  g_clear_pointer (&o->rpm, g_free);
  g_clear_pointer (&o->tpm, g_free);
  g_clear_pointer (&o->max_cost_roles, g_strfreev);
}

/* Whether an option choosing a model was given (the cache and offline
 * mode do not change which model answers; nor does --base-url, which says
 * where the model is served: a resumed shard may find it elsewhere). */
gboolean
anot_run_llm_options_choose_model (const AnotRunLlmOptions *o)
{
  return o->backend || o->model || o->roles || o->temperature || o->max_tokens;
}

/* Hands the options to an experiment's settings (the options have the
 * settings' names), from which it builds its router itself; @models: also
 * those that choose a model, which a resume takes from the run. */
gboolean
anot_run_llm_options_to_config (const AnotRunLlmOptions *o,
                                AnotRunConfig           *config,
                                gboolean                 models,
                                GError                 **error)
{
  g_autofree char *roles = o->roles ? g_strjoinv (",", o->roles) : NULL;
  g_autofree char *role_costs = o->max_cost_roles ? g_strjoinv (",", o->max_cost_roles) : NULL;
  const struct { const char *key; const char *value; gboolean model; } settings[] = {
    { "backend", o->backend, TRUE },
    { "model", o->model, TRUE },
    { "base-url", o->base_url, FALSE },
    { "temperature", o->temperature, TRUE },
    { "max-tokens", o->max_tokens, TRUE },
    { "role", roles, TRUE },
    { "cache", o->cache, FALSE },
    { "offline", o->offline ? "true" : NULL, FALSE },
    { "batch", o->batch ? "true" : NULL, FALSE },
    { "batch-max-size", o->batch_max_size, FALSE },
    { "batch-max-bytes", o->batch_max_bytes, FALSE },
    { "batch-window", o->batch_window, FALSE },
    { "batch-retry", o->batch_retry, FALSE },
    { "max-cost", o->max_cost, FALSE },
    { "context-tokens", o->context_tokens, FALSE },
    { "rpm", o->rpm, FALSE },
    { "tpm", o->tpm, FALSE },
    { "max-cost-role", role_costs, FALSE },
  };

  for (guint i = 0; i < G_N_ELEMENTS (settings); i++)
    if (settings[i].value != NULL && (models || !settings[i].model) &&
        !anot_run_config_set (config, settings[i].key, settings[i].value, error))
      return FALSE;
  return TRUE;
}

/* The router the options describe, with the same precedence as an
 * experiment's: options, environment, configuration file, defaults.
 * Errors are %ANOT_ERROR_CONFIG / %ANOT_ERROR_INVALID_ARGUMENT (usage)
 * or %ANOT_ERROR_CACHE. */
AnotBackendRouter *
anot_run_llm_options_create_router (const AnotRunLlmOptions *o,
                                    GError                 **error)
{
  g_autoptr(AnotLlmConfig) config = anot_llm_config_new ();
  const struct { const char *key; const char *value; } settings[] = {
    { "backend", o->backend },
    { "model", o->model },
    { "base_url", o->base_url },
    { "temperature", o->temperature },
    { "max_tokens", o->max_tokens },
    { "rpm", o->rpm },
    { "tpm", o->tpm },
  };

  if (!anot_llm_config_load_default_file (config, error))
    return NULL;
  for (guint i = 0; i < G_N_ELEMENTS (settings); i++)
    if (settings[i].value != NULL &&
        !anot_llm_config_set (config, ANOT_DEFAULT_ROLE, settings[i].key, settings[i].value, error))
      return NULL;
  for (guint i = 0; o->roles != NULL && o->roles[i] != NULL; i++)
    {
      g_auto(GStrv) specs = g_strsplit (o->roles[i], ",", -1);

      for (guint j = 0; specs[j] != NULL; j++)
        {
          g_strstrip (specs[j]);
          if (*specs[j] != '\0' && !anot_llm_config_add_role_spec (config, specs[j], error))
            return NULL;
        }
    }

  return anot_llm_config_create_cached_router (config, o->cache, o->offline, error);
}
