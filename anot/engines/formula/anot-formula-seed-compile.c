/* anot-formula-seed-compile.c: Phase 1 of General ANoT, a task formula
 * turned into a Formula Seed by an LLM
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "anot-formula-seed.h"

#include <errno.h>
#include <string.h>

#include "anot-error.h"

/* Part of the cache key: a new prompt must not reuse the seeds of an old
 * one. */
#define COMPILE_VERSION "formula-seed-compile 1"

#define MAX_REPAIRS 2

/* The system prompt names the items twice (%1$s) and shows their
 * categories (%2$s: the example). */
#define SYSTEM_PROMPT_FORMAT \
  "You compile an evaluation task, written as a formula in natural language, into a Formula Seed: " \
  "a JSON object that a program executes for every %1$s.\n" \
  "\n" \
  "The program works in three steps for each %1$s:\n" \
  "1. FILTER: a review is relevant when its lowercased text contains one of filter_keywords " \
  "(plain substrings, matched ignoring case).\n" \
  "2. EXTRACT: for each relevant review, an LLM reads extraction_prompt, where {review_text}, " \
  "{review_date}, {review_stars} and {review_useful} are replaced by the review's, and answers with one " \
  "JSON object holding every field of extraction_fields.\n" \
  "3. COMPUTE: the steps of compute_dag run in order; each is {\"name\", \"formula\"}, and its value is " \
  "stored under its name for the steps after it. output_fields lists the names to report.\n" \
  "\n" \
  "The keys are fixed: task_name (a short name), filter_keywords (strings), extraction_fields " \
  "(each {\"name\": identifier, \"type\": \"enum\"|\"string\"|\"int\"|\"float\"|\"bool\", \"values\": the " \
  "allowed strings of an enum, [] for other types}), extraction_prompt (a string containing {review_text}), " \
  "compute_dag, output_fields.\n" \
  "\n" \
  "A formula is ONE Python expression (no statements, no assignments, no lambda, no import). It can read:\n" \
  "- extractions: a list with one dict per relevant review: every extraction field, plus _idx (the review's " \
  "position, 0 = newest), _year (int), _stars (float) and _useful (int);\n" \
  "- %3$s: the %1$s's categories as one string%2$s;\n" \
  "- the names of earlier steps;\n" \
  "- the builtins abs, all, any, bool, dict, enumerate, exp, float, int, isinstance, len, list, log " \
  "(natural), log10, math, max, min, range, round, sorted, sqrt, str, sum, tuple, zip, and the methods " \
  "of str (lower, upper, strip, split, replace, startswith, endswith, find, count, join), dict (get, keys, " \
  "values, items) and list (count, index).\n" \
  "Counts look like sum(1 for e in extractions if e['field'] == 'value'); a maximum over possibly no " \
  "items needs a default: max((e['_year'] for e in extractions if ...), default=2020); guard divisions: " \
  "a / b if b > 0 else 0.0. Every name a formula reads must be defined by an earlier step.\n" \
  "\n" \
  "Answer with the Formula Seed as one JSON object and nothing else."


/**
 * anot_formula_seed_get_json_schema:
 *
 * The JSON schema of a Formula Seed as Phase 1 asks an LLM for it (the
 * fixed keys of `docs/general-anot.md`, in the strict form of OpenAI's
 * structured outputs: every key required, no others).  A seed that follows
 * the schema may still fail validation (an undefined name in a formula);
 * the repair rounds of anot_formula_seed_compile_async() handle that.
 *
 * Returns: (transfer full): the schema
 */
JsonNode *
anot_formula_seed_get_json_schema (void)
{
  static const char *schema =
    "{"
    "\"type\": \"object\","
    "\"properties\": {"
    "  \"task_name\": {\"type\": \"string\"},"
    "  \"filter_keywords\": {\"type\": \"array\", \"items\": {\"type\": \"string\"}},"
    "  \"extraction_fields\": {\"type\": \"array\", \"items\": {"
    "    \"type\": \"object\","
    "    \"properties\": {"
    "      \"name\": {\"type\": \"string\"},"
    "      \"type\": {\"type\": \"string\", \"enum\": [\"enum\", \"string\", \"int\", \"float\", \"bool\"]},"
    "      \"values\": {\"type\": \"array\", \"items\": {\"type\": \"string\"}}"
    "    },"
    "    \"required\": [\"name\", \"type\", \"values\"],"
    "    \"additionalProperties\": false}},"
    "  \"extraction_prompt\": {\"type\": \"string\"},"
    "  \"compute_dag\": {\"type\": \"array\", \"items\": {"
    "    \"type\": \"object\","
    "    \"properties\": {\"name\": {\"type\": \"string\"}, \"formula\": {\"type\": \"string\"}},"
    "    \"required\": [\"name\", \"formula\"],"
    "    \"additionalProperties\": false}},"
    "  \"output_fields\": {\"type\": \"array\", \"items\": {\"type\": \"string\"}}"
    "},"
    "\"required\": [\"task_name\", \"filter_keywords\", \"extraction_fields\", \"extraction_prompt\","
    "              \"compute_dag\", \"output_fields\"],"
    "\"additionalProperties\": false"
    "}";

  return json_from_string (schema, NULL);
}

/**
 * anot_formula_seed_compile_cache_path:
 * @cache_dir: the directory of compiled seeds
 * @task_formula: the task formula
 *
 * Where anot_formula_seed_compile_async() keeps the seed of @task_formula:
 * `formula-seed-<hash>.json` in @cache_dir, the hash being the start of the
 * SHA-256 of the formula (and of the version of the compile prompt).
 *
 * Returns: (transfer full) (type filename): the path
 */
char *
anot_formula_seed_compile_cache_path (const char *cache_dir,
                                      const char *task_formula)
{
  g_autoptr(GChecksum) checksum = g_checksum_new (G_CHECKSUM_SHA256);
  g_autofree char *name = NULL;

  g_return_val_if_fail (cache_dir != NULL, NULL);
  g_return_val_if_fail (task_formula != NULL, NULL);

  g_checksum_update (checksum, (const guchar *) COMPILE_VERSION "\n", -1);
  g_checksum_update (checksum, (const guchar *) task_formula, -1);
  name = g_strdup_printf ("formula-seed-%.16s.json", g_checksum_get_string (checksum));
  return g_build_filename (cache_dir, name, NULL);
}

typedef struct {
  AnotMethodContext *context;
  char *cache_path;        /* nullable */
  AnotChatRequest *request;
  guint round;             /* 0: the first answer, then the repairs */
} CompileData;

static void
compile_data_free (gpointer data)
{
  CompileData *d = data;

  g_clear_object (&d->context);
  g_free (d->cache_path);
  g_clear_object (&d->request);
  g_free (d);
}

/* The JSON object of an answer: code fences and text around it are
 * tolerated, since models add them even when told not to. */
static AnotFormulaSeed *
seed_from_answer (const char  *text,
                  GError     **error)
{
  const char *start = strchr (text, '{');
  const char *end = strrchr (text, '}');

  if (start == NULL || end == NULL || end < start)
    {
      g_set_error (error, ANOT_ERROR, ANOT_ERROR_PARSE,
                   "Formula Seed: the answer holds no JSON object");
      return NULL;
    }
  return anot_formula_seed_new_from_data (start, end - start + 1, FALSE, error);
}

static void send_request (GTask *task);

static void
on_answer (GObject      *source,
           GAsyncResult *result,
           gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  CompileData *d = g_task_get_task_data (task);
  g_autoptr(GError) error = NULL;
  g_autoptr(AnotCompletion) completion = NULL;
  g_autoptr(AnotFormulaSeed) seed = NULL;
  const char *text;

  completion = anot_method_context_complete_finish (d->context, result, &error);
  if (completion == NULL)
    {
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }
  text = anot_completion_get_text (completion);
  seed = seed_from_answer (text != NULL ? text : "", &error);

  if (seed != NULL)
    {
      anot_method_context_debug (d->context, ANOT_DEBUG_LEVEL_SUMMARY, "compile",
                                 "Formula Seed valid after %u repair%s: %u steps",
                                 d->round, d->round == 1 ? "" : "s", anot_formula_seed_get_n_steps (seed));
      if (d->cache_path != NULL)
        {
          g_autofree char *dir = g_path_get_dirname (d->cache_path);
          g_autoptr(GError) save_error = NULL;

          if (g_mkdir_with_parents (dir, 0755) != 0 ||
              !anot_formula_seed_save (seed, d->cache_path, &save_error))
            anot_method_context_debug (d->context, ANOT_DEBUG_LEVEL_SUMMARY, "compile",
                                       "the Formula Seed could not be written to %s: %s", d->cache_path,
                                       save_error != NULL ? save_error->message : g_strerror (errno));
        }
      g_task_return_pointer (task, g_steal_pointer (&seed), (GDestroyNotify) anot_formula_seed_unref);
      return;
    }

  anot_method_context_debug (d->context, ANOT_DEBUG_LEVEL_SUMMARY, "compile",
                             "answer %u is not a valid Formula Seed: %s", d->round + 1, error->message);
  if (d->round >= MAX_REPAIRS)
    {
      g_task_return_new_error (task, ANOT_ERROR, ANOT_ERROR_METHOD_FAILED,
                               "Phase 1: the LLM wrote no valid Formula Seed in %u answers; the last one: %s",
                               d->round + 1, error->message);
      return;
    }

  /* The validation error goes back to the model, with its own answer. */
  d->round++;
  anot_chat_request_add_message (d->request, ANOT_CHAT_ROLE_ASSISTANT, text != NULL ? text : "");
  {
    g_autofree char *repair = g_strdup_printf ("That is not a valid Formula Seed: %s\n"
                                               "Reply with the complete corrected Formula Seed, as one JSON object.",
                                               error->message);

    anot_chat_request_add_message (d->request, ANOT_CHAT_ROLE_USER, repair);
  }
  send_request (g_steal_pointer (&task));
}

static void
send_request (GTask *task)
{
  CompileData *d = g_task_get_task_data (task);

  anot_method_context_complete_request_async (d->context, ANOT_FORMULA_SEED_COMPILE_ROLE, d->request,
                                              g_task_get_cancellable (task), on_answer, task);
}

/**
 * anot_formula_seed_compile_async:
 * @context: the method context whose router makes the LLM calls (role
 *   %ANOT_FORMULA_SEED_COMPILE_ROLE, which falls back to the default role)
 * @task_formula: the task, in natural language
 * @cache_dir: (nullable) (type filename): where compiled seeds are kept:
 *   a seed already there for the same formula is used without any LLM call,
 *   and a new one is written there (see
 *   anot_formula_seed_compile_cache_path()); typically the run folder
 * @cancellable: (nullable): a #GCancellable
 * @callback: called when the seed is ready
 * @user_data: data for @callback
 *
 * Phase 1 of General ANoT: asks the LLM for the Formula Seed of
 * @task_formula, as JSON following anot_formula_seed_get_json_schema()
 * (schema-constrained where the backend supports it, an instruction
 * otherwise).  An answer that does not validate goes back to the LLM with
 * the validation error for up to two repairs.
 */
void
anot_formula_seed_compile_async (AnotMethodContext   *context,
                                 const char          *task_formula,
                                 const char          *cache_dir,
                                 GCancellable        *cancellable,
                                 GAsyncReadyCallback  callback,
                                 gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;
  g_autoptr(JsonNode) schema = NULL;
  g_autofree char *prompt = NULL;
  g_autofree char *system = NULL;
  const char *defense;
  CompileData *d;

  g_return_if_fail (ANOT_IS_METHOD_CONTEXT (context));
  g_return_if_fail (task_formula != NULL);

  task = g_task_new (NULL, cancellable, callback, user_data);
  g_task_set_source_tag (task, anot_formula_seed_compile_async);
  d = g_new0 (CompileData, 1);
  d->context = g_object_ref (context);
  defense = anot_method_context_get_defense_prompt (context);
  if (cache_dir != NULL)
    {
      AnotDomain *domain = anot_method_context_get_domain (context);
      /* The system prompt names the domain's items: a seed compiled for
       * hotels does not answer for restaurants.  Restaurants keep the key
       * they always had.  A seed compiled in defense mode is another seed
       * too: it does not answer for one compiled without, nor the other
       * way round. */
      g_autofree char *domain_key = anot_domain_is_default (domain)
                                    ? g_strdup (task_formula)
                                    : g_strdup_printf ("%s\n\nDOMAIN: %s", task_formula, anot_domain_get_item (domain));
      g_autofree char *key = defense != NULL ? g_strconcat (domain_key, "\n\nDEFENSE:\n", defense, NULL)
                                             : g_strdup (domain_key);

      d->cache_path = anot_formula_seed_compile_cache_path (cache_dir, key);
    }
  g_task_set_task_data (task, d, compile_data_free);

  if (d->cache_path != NULL && g_file_test (d->cache_path, G_FILE_TEST_EXISTS))
    {
      g_autoptr(GError) error = NULL;
      AnotFormulaSeed *seed = anot_formula_seed_load (d->cache_path, FALSE, &error);

      if (seed != NULL)
        {
          anot_method_context_debug (context, ANOT_DEBUG_LEVEL_SUMMARY, "compile",
                                     "Formula Seed from %s", d->cache_path);
          g_task_return_pointer (task, seed, (GDestroyNotify) anot_formula_seed_unref);
          return;
        }
      /* A damaged file is compiled again and replaced. */
      anot_method_context_debug (context, ANOT_DEBUG_LEVEL_SUMMARY, "compile",
                                 "ignoring %s: %s", d->cache_path, error->message);
    }

  prompt = g_strdup_printf ("TASK FORMULA:\n%s\n\nWrite the Formula Seed of this task.", task_formula);
  {
    AnotDomain *domain = anot_method_context_get_domain (context);
    /* The example category is a restaurant's; other domains get none
     * rather than a misleading one.  The categories' name is the
     * original's for restaurants (their prompt is unchanged), the
     * domain-neutral one elsewhere; seeds may read either. */
    gboolean restaurants = anot_domain_is_default (domain);
    g_autofree char *base = g_strdup_printf (SYSTEM_PROMPT_FORMAT, anot_domain_get_item (domain),
                                             restaurants ? ", e.g. \"Thai, Restaurants\"" : "",
                                             restaurants ? "restaurant_category" : "item_category");

    /* Defense mode: the defense text after the instructions, as every
     * method adds it (docs/attacks.md). */
    system = defense != NULL ? g_strconcat (base, "\n\n", defense, NULL) : g_strdup (base);
    d->request = anot_chat_request_new (system, prompt);
  }
  schema = anot_formula_seed_get_json_schema ();
  anot_chat_request_set_json_schema (d->request, "formula_seed", schema);
  anot_chat_request_set_response_format (d->request, ANOT_RESPONSE_FORMAT_JSON_SCHEMA);
  send_request (g_steal_pointer (&task));
}

/**
 * anot_formula_seed_compile_finish:
 * @result: the #GAsyncResult of anot_formula_seed_compile_async()
 * @error: return location for a #GError
 *
 * Errors: the LLM call's (`ANOT_ERROR_LLM_*`, cancellation), or
 * %ANOT_ERROR_METHOD_FAILED when no answer was a valid Formula Seed after
 * two repairs (the message carries the last validation error).
 *
 * Returns: (transfer full): the seed, or %NULL on error
 */
AnotFormulaSeed *
anot_formula_seed_compile_finish (GAsyncResult  *result,
                                  GError       **error)
{
  g_return_val_if_fail (g_task_is_valid (result, NULL), NULL);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == anot_formula_seed_compile_async, NULL);

  return g_task_propagate_pointer (G_TASK (result), error);
}
