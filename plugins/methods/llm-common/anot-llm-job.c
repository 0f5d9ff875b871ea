/* anot-llm-job.c: what every baseline LLM method does around its calls
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "anot-llm-job.h"

#include <string.h>

struct _AnotLlmJob
{
  char *method;
  AnotQuery *request;
  GPtrArray *candidates;
  guint k;
  AnotMethodContext *context;
  GCancellable *cancellable;
  AnotFormatter *formatter;

  JsonArray *calls;
  JsonObject *formatting;   /* label -> coverage */
  JsonObject *extra;
  guint n_calls;
  guint n_failed;
  guint64 prompt_tokens;
  guint64 completion_tokens;
  guint truncation_retries;
  char *text;
  /* The candidates' text last formatted (the one the caller reads) and
   * what it was formatted from: a prompt that holds it can be fitted to
   * the window by formatting the candidates again with fewer reviews. */
  char *last_data;
  GPtrArray *last_items;
};

AnotLlmJob *
anot_llm_job_new (const char        *method,
                  AnotQuery         *request,
                  GPtrArray         *candidates,
                  guint              k,
                  AnotMethodContext *context,
                  GCancellable      *cancellable)
{
  AnotLlmJob *job = g_new0 (AnotLlmJob, 1);

  job->method = g_strdup (method);
  job->request = g_object_ref (request);
  job->candidates = g_ptr_array_ref (candidates);
  job->k = k;
  job->context = g_object_ref (context);
  job->cancellable = cancellable != NULL ? g_object_ref (cancellable) : NULL;
  job->calls = json_array_new ();
  job->formatting = json_object_new ();
  job->extra = json_object_new ();
  return job;
}

void
anot_llm_job_free (AnotLlmJob *job)
{
  if (job == NULL)
    return;
  g_free (job->method);
  g_object_unref (job->request);
  g_ptr_array_unref (job->candidates);
  g_object_unref (job->context);
  g_clear_object (&job->cancellable);
  g_clear_object (&job->formatter);
  json_array_unref (job->calls);
  json_object_unref (job->formatting);
  json_object_unref (job->extra);
  g_free (job->text);
  g_free (job->last_data);
  g_clear_pointer (&job->last_items, g_ptr_array_unref);
  g_free (job);
}

AnotQuery *
anot_llm_job_get_request (AnotLlmJob *job)
{
  return job->request;
}

GPtrArray *
anot_llm_job_get_candidates (AnotLlmJob *job)
{
  return job->candidates;
}

guint
anot_llm_job_get_k (AnotLlmJob *job)
{
  return job->k;
}

AnotMethodContext *
anot_llm_job_get_context (AnotLlmJob *job)
{
  return job->context;
}

GCancellable *
anot_llm_job_get_cancellable (AnotLlmJob *job)
{
  return job->cancellable;
}

AnotFormatter *
anot_llm_job_get_formatter (AnotLlmJob  *job,
                            GError     **error)
{
  if (job->formatter == NULL)
    {
      g_autoptr(AnotFormatter) f = anot_formatter_new ();

      if (!anot_formatter_apply_options (f, job->context, error))
        return NULL;
      job->formatter = g_steal_pointer (&f);
    }
  return job->formatter;
}

const char *
anot_llm_job_format_candidates (AnotLlmJob  *job,
                                const char  *label,
                                GPtrArray   *subset,
                                GError     **error)
{
  AnotFormatter *f = anot_llm_job_get_formatter (job, error);
  g_autoptr(JsonNode) stats = NULL;

  if (f == NULL)
    return NULL;
  g_free (job->last_data);
  job->last_data = anot_formatter_format (f, subset != NULL ? subset : job->candidates, &stats);
  json_object_set_member (job->formatting, label, g_steal_pointer (&stats));
  g_clear_pointer (&job->last_items, g_ptr_array_unref);
  job->last_items = g_ptr_array_ref (subset != NULL ? subset : job->candidates);
  return job->last_data;
}

/* The attributes the tool-using methods' system prompt names on
 * restaurants. */
#define TOOL_RESTAURANT_EXAMPLES "WiFi, NoiseLevel, GoodForKids, Ambience"

/* The original prompts' attributes in their examples of a plan (AoT) and
 * of data paths (ANoT), on restaurants. */
#define PLAN_RESTAURANT_ATTRIBUTE "DriveThru"
#define PATH_RESTAURANT_ATTRIBUTE "WiFi"
#define PATH_RESTAURANT_QUOTED "\"Good For Kids\""

/* "WiFi (wireless internet in the rooms), NoiseLevel": the example
 * attributes with the glossary's meaning of each that has one. */
static char *
describe_examples (AnotDomain         *domain,
                   const char * const *names)
{
  GString *out = g_string_new (NULL);

  for (guint i = 0; names[i] != NULL; i++)
    {
      const char *meaning = anot_domain_get_attribute_description (domain, names[i]);

      g_string_append_printf (out, "%s%s", i > 0 ? ", " : "", names[i]);
      if (meaning != NULL && meaning[0] != '\0')
        g_string_append_printf (out, " (%s)", meaning);
    }
  return g_string_free (out, FALSE);
}

/* @name as a JSON string, quotes included. */
static char *
json_quote (const char *name)
{
  g_autoptr(JsonNode) node = json_node_init_string (json_node_alloc (), name);

  return json_to_string (node, FALSE);
}

char *
anot_llm_template_fill_table (const char *template_text,
                              GHashTable *values)
{
  GHashTableIter iter;
  gpointer filled;
  gsize size;
  GString *out;

  /* Sized for the template and every value once: a value of megabytes
   * (the candidates) is copied once, not again as the string grows. */
  size = strlen (template_text) + 1;
  g_hash_table_iter_init (&iter, values);
  while (g_hash_table_iter_next (&iter, NULL, &filled))
    size += strlen (filled);
  out = g_string_sized_new (size);

  /* One pass over the template: a value is copied as it is, never read
   * again for placeholders (a review or a listing that holds `{items}`
   * stays as written). */
  for (const char *p = template_text; *p != '\0'; p++)
    {
      if (p[0] == '{' && p[1] == '{')
        {
          g_string_append_c (out, '{');
          p++;
          continue;
        }
      if (p[0] == '}' && p[1] == '}')
        {
          g_string_append_c (out, '}');
          p++;
          continue;
        }
      if (p[0] == '{')
        {
          const char *end = strchr (p, '}');

          if (end != NULL)
            {
              g_autofree char *key = g_strndup (p + 1, end - p - 1);
              const char *value = g_hash_table_lookup (values, key);

              if (value != NULL)
                {
                  g_string_append (out, value);
                  p = end;
                  continue;
                }
              /* A placeholder nobody filled is a bug of the plugin. */
              g_critical ("prompt template: no value for {%s}", key);
            }
        }
      g_string_append_c (out, *p);
    }
  return g_string_free (out, FALSE);
}

static char *
domain_fillv (AnotDomain *domain,
              const char *path,
              const char *template_text,
              va_list     args)
{
  g_autoptr(GHashTable) values = g_hash_table_new (g_str_hash, g_str_equal);
  g_autofree char *items_upper = NULL, *examples = NULL;
  g_autofree char *a_item = NULL, *a_item_title = NULL, *candidates = NULL;
  g_autofree char *plan_attribute = NULL, *path_attribute = NULL, *path_quoted = NULL;
  const char *name;
  gboolean an;

  /* What every template may say of the items, from the benchmark's
   * domain. */
  if (domain != NULL)
    {
      examples = describe_examples (domain, anot_domain_get_example_attributes (domain));
      g_hash_table_insert (values, "item", (gpointer) anot_domain_get_item (domain));
      g_hash_table_insert (values, "items", (gpointer) anot_domain_get_items (domain));
      g_hash_table_insert (values, "Item", (gpointer) anot_domain_get_item_title (domain));
      g_hash_table_insert (values, "Items", (gpointer) anot_domain_get_items_title (domain));
      items_upper = g_utf8_strup (anot_domain_get_items (domain), -1);
      /* English articles: "an" before a written vowel ("an item", "an
       * apartment"); nouns where the sound decides ("a university") are
       * rare enough among item nouns to accept. */
      an = strchr ("aeiouAEIOU", anot_domain_get_item (domain)[0]) != NULL;
      a_item = g_strconcat (an ? "an " : "a ", anot_domain_get_item (domain), NULL);
      a_item_title = g_strconcat (an ? "An " : "A ", anot_domain_get_item (domain), NULL);
      g_hash_table_insert (values, "ITEMS", items_upper);
      g_hash_table_insert (values, "a_item", a_item);
      g_hash_table_insert (values, "A_item", a_item_title);
      g_hash_table_insert (values, "attribute_examples", examples);
      /* ReAct's and LATS's prompts give their own four examples of a
       * restaurant's attributes (the original's wording); on another
       * domain they are the benchmark's, as everywhere. */
      g_hash_table_insert (values, "tool_attribute_examples",
                           anot_domain_is_default (domain) ? (gpointer) TOOL_RESTAURANT_EXAMPLES
                                                           : (gpointer) examples);
      /* The attributes inside the prompts' examples (AoT's plan, ANoT's
       * data paths): the original's on restaurants, else the benchmark's
       * own, so no example names an attribute its items lack. */
      if (anot_domain_is_default (domain))
        {
          g_hash_table_insert (values, "plan_attribute", PLAN_RESTAURANT_ATTRIBUTE);
          g_hash_table_insert (values, "path_attribute", PATH_RESTAURANT_ATTRIBUTE);
          g_hash_table_insert (values, "path_attribute_quoted", PATH_RESTAURANT_QUOTED);
        }
      else
        {
          const char * const *names = anot_domain_get_example_attributes (domain);
          const char *dotted = NULL, *quoted = NULL;

          for (guint i = 0; names[i] != NULL; i++)
            {
              if (dotted == NULL && anot_data_path_key_is_bare (names[i]))
                dotted = names[i];
              /* Brackets are for names a dot cannot take; else another
               * name than the dotted one. */
              if (quoted == NULL && !anot_data_path_key_is_bare (names[i]))
                quoted = names[i];
            }
          if (quoted == NULL)
            quoted = names[0] != NULL && names[1] != NULL ? names[1] : names[0];
          if (dotted == NULL)
            dotted = quoted;
          plan_attribute = g_strdup (names[0] != NULL ? names[0] : "NAME");
          path_attribute = g_strdup (dotted != NULL ? dotted : "NAME");
          path_quoted = quoted != NULL ? json_quote (quoted) : g_strdup ("\"NAME\"");
          g_hash_table_insert (values, "plan_attribute", plan_attribute);
          g_hash_table_insert (values, "path_attribute", path_attribute);
          g_hash_table_insert (values, "path_attribute_quoted", path_quoted);
        }
      /* ANoT's and AoT's prompts were written for any domain ("candidate
       * items"); a declared domain names its items there too. */
      candidates = anot_domain_is_default (domain) ? g_strdup ("candidate items")
                   : g_strconcat ("candidate ", anot_domain_get_items (domain), NULL);
      g_hash_table_insert (values, "candidate_items", candidates);
    }

  while ((name = va_arg (args, const char *)) != NULL)
    {
      const char *value = va_arg (args, const char *);

      /* A method's value under one of the domain's words would fill every
       * place the template names the items (ANoT-HEAD's rule-out prompt
       * once read "Rule out the Item 1: WiFi='free' ... that fail"): the
       * value needs a placeholder of its own. */
      if (g_hash_table_contains (values, name))
        {
          g_critical ("prompt %s: {%s} is the benchmark's word for its items, "
                      "not a value the method may set", path, name);
          continue;
        }
      g_hash_table_insert (values, (gpointer) name, (gpointer) (value != NULL ? value : ""));
    }

  return anot_llm_template_fill_table (template_text, values);
}


static char *
load_resource (const char *path)
{
  g_autoptr(GBytes) bytes = NULL;
  g_autoptr(GError) error = NULL;
  gsize len;
  const char *data;

  bytes = g_resources_lookup_data (path, G_RESOURCE_LOOKUP_FLAGS_NONE, &error);
  if (bytes == NULL)
    g_error ("prompt %s is not in the plugin's resources: %s", path, error->message);
  data = g_bytes_get_data (bytes, &len);
  /* Files end with a newline the prompt does not want. */
  while (len > 0 && (data[len - 1] == '\n' || data[len - 1] == '\r'))
    len--;
  return g_strndup (data, len);
}

char *
anot_llm_prompt (AnotMethodContext *context,
                 const char        *path,
                 ...)
{
  g_autofree char *text = load_resource (path);
  static AnotDomain *restaurants;
  AnotDomain *domain;
  va_list args;
  char *filled;

  if (context != NULL)
    domain = anot_method_context_get_domain (context);
  else
    {
      if (g_once_init_enter (&restaurants))
        g_once_init_leave (&restaurants, anot_domain_new_default ());
      domain = restaurants;
    }

  va_start (args, path);
  filled = domain_fillv (domain, path, text, args);
  va_end (args);
  return filled;
}

char *
anot_llm_system_prompt (AnotMethodContext *context,
                        const char        *base)
{
  const char *defense = anot_method_context_get_defense_prompt (context);

  if (defense == NULL)
    return g_strdup (base);
  return g_strconcat (base, "\n\n", defense, NULL);
}

char *
anot_llm_job_system_prompt (AnotLlmJob *job,
                            const char *base)
{
  return anot_llm_system_prompt (job->context, base);
}

char *
anot_llm_job_instruction (AnotLlmJob *job,
                          const char *prefix)
{
  g_autofree char *path = g_strconcat (prefix, job->k <= 1 ? "/instruction-top1.txt"
                                                            : "/instruction-topk.txt", NULL);
  g_autofree char *k = g_strdup_printf ("%u", job->k);
  g_autofree char *n = g_strdup_printf ("%u", job->candidates->len);

  return anot_llm_prompt (job->context, path, "k", k, "n", n, NULL);
}

char *
anot_llm_job_task (AnotLlmJob *job,
                   const char *prefix,
                   gboolean    listed)
{
  g_autofree char *path = g_strconcat (prefix, "/task.txt", NULL);
  g_autofree char *k = g_strdup_printf ("%u", job->k);
  g_autofree char *n = g_strdup_printf ("%u", job->candidates->len);

  /* A plan call sees no item: its task may not say they are "below". */
  return anot_llm_prompt (job->context, path, "k", k, "n", n, "below", listed ? " below" : "",
                          "request", anot_query_get_text (job->request), NULL);
}

typedef struct
{
  AnotLlmJob *job;
  JsonObject *record;
  /* The call, to fit it to the window if it does not fit: the request
   * holds the prompt the method gave away (not a copy). */
  char *role;
  char *system_prompt;
  AnotChatRequest *request;
  const char *prompt;
} CallData;

static void
call_data_free (CallData *data)
{
  json_object_unref (data->record);
  g_free (data->role);
  g_free (data->system_prompt);
  g_object_unref (data->request);
  g_free (data);
}

static const char *
error_code_name (const GError *error)
{
  g_autoptr(GEnumClass) klass = NULL;
  GEnumValue *value;

  if (error->domain != ANOT_ERROR)
    return g_quark_to_string (error->domain);
  klass = g_type_class_ref (ANOT_TYPE_ERROR);
  value = g_enum_get_value (klass, error->code);
  return value != NULL ? value->value_nick : "unknown";
}

static void
on_completed (GObject      *source,
              GAsyncResult *result,
              gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  CallData *data = g_task_get_task_data (task);
  g_autoptr(GError) error = NULL;
  AnotCompletion *completion;

  completion = anot_method_context_complete_finish (ANOT_METHOD_CONTEXT (source), result, &error);
  if (completion == NULL)
    {
      json_object_set_null_member (data->record, "output");
      json_object_set_string_member (data->record, "error", error->message);
      json_object_set_string_member (data->record, "error_code", error_code_name (error));
      data->job->n_failed++;
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }

  json_object_set_string_member (data->record, "output", anot_completion_get_text (completion));
  json_object_set_int_member (data->record, "output_chars",
                              g_utf8_strlen (anot_completion_get_text (completion), -1));
  json_object_set_int_member (data->record, "prompt_tokens", anot_completion_get_prompt_tokens (completion));
  json_object_set_int_member (data->record, "completion_tokens",
                              anot_completion_get_completion_tokens (completion));
  json_object_set_double_member (data->record, "latency_ms", anot_completion_get_latency_ms (completion));
  if (anot_completion_get_model (completion) != NULL)
    json_object_set_string_member (data->record, "model", anot_completion_get_model (completion));
  json_object_set_boolean_member (data->record, "cached", anot_completion_get_cached (completion));
  /* \u0000 and lone surrogates of the answer, read as U+FFFD. */
  if (anot_completion_get_replaced_characters (completion) > 0)
    json_object_set_int_member (data->record, "replaced_characters",
                                anot_completion_get_replaced_characters (completion));
  json_object_set_null_member (data->record, "error");
  data->job->prompt_tokens += anot_completion_get_prompt_tokens (completion);
  data->job->completion_tokens += anot_completion_get_completion_tokens (completion);
  g_task_return_pointer (task, completion, g_object_unref);
}

void
anot_llm_job_complete_take_async (AnotLlmJob          *job,
                                  const char          *phase,
                                  const char          *role,
                                  const char          *system_prompt,
                                  char                *prompt,
                                  GAsyncReadyCallback  callback,
                                  gpointer             user_data)
{
  GTask *task = g_task_new (job->context, job->cancellable, callback, user_data);
  CallData *data = g_new0 (CallData, 1);
  guint last;
  gsize prompt_chars;

  data->job = job;
  data->role = g_strdup (role);
  data->system_prompt = g_strdup (system_prompt);
  data->request = anot_chat_request_new (system_prompt, NULL);
  anot_chat_request_add_message_take (data->request, ANOT_CHAT_ROLE_USER, prompt, -1);
  last = anot_chat_request_get_n_messages (data->request) - 1;
  data->prompt = anot_chat_request_get_message_content (data->request, last);
  /* Counted once, at memory speed, on the text that is sent. */
  prompt_chars = anot_chat_request_get_message_chars (data->request, last);
  data->record = json_object_new ();
  json_object_set_int_member (data->record, "call", job->n_calls);
  json_object_set_string_member (data->record, "phase", phase);
  json_object_set_string_member (data->record, "role", role);
  json_object_set_int_member (data->record, "system_chars",
                              system_prompt != NULL ? anot_chat_request_get_message_chars (data->request, 0) : 0);
  json_object_set_int_member (data->record, "prompt_chars", prompt_chars);
  json_array_add_object_element (job->calls, json_object_ref (data->record));
  job->n_calls++;
  g_task_set_task_data (task, data, (GDestroyNotify) call_data_free);
  g_task_set_source_tag (task, anot_llm_job_complete_async);

  anot_method_context_debug (job->context, ANOT_DEBUG_LEVEL_SUMMARY, job->method,
                             "%s: %s call (%" G_GSIZE_FORMAT " prompt chars)",
                             anot_method_context_get_request_id (job->context), phase, prompt_chars);
  anot_method_context_complete_request_async (job->context, role, data->request, job->cancellable,
                                              on_completed, task);
}

void
anot_llm_job_complete_async (AnotLlmJob          *job,
                             const char          *phase,
                             const char          *role,
                             const char          *system_prompt,
                             const char          *prompt,
                             GAsyncReadyCallback  callback,
                             gpointer             user_data)
{
  anot_llm_job_complete_take_async (job, phase, role, system_prompt, g_strdup (prompt),
                                    callback, user_data);
}

AnotCompletion *
anot_llm_job_complete_finish (AnotLlmJob    *job,
                              GAsyncResult  *result,
                              JsonObject   **record,
                              GError       **error)
{
  CallData *data = g_task_get_task_data (G_TASK (result));

  if (record != NULL)
    *record = data->record;
  return g_task_propagate_pointer (G_TASK (result), error);
}

/* The candidates' text at each number of reviews per item looked at while
 * fitting, formatted once: the guess's search and the exact checks look
 * at the same few. */
typedef struct
{
  AnotFormatter *f;
  GPtrArray *items;
  char **texts;              /* [m]: the text with at most m reviews each */
  /* The prompt with the candidates' text at data_at..data_at + data_len. */
  CallData *data;
  gsize data_at;
  gsize data_len;
} Fit;

static const char *
fit_text (Fit *fit,
          int  m)
{
  if (fit->texts[m] == NULL)
    {
      anot_formatter_set_max_reviews (fit->f, m);
      fit->texts[m] = anot_formatter_format (fit->f, fit->items, NULL);
    }
  return fit->texts[m];
}

/* Whether the prompt with at most @m reviews per item fits: counted
 * only until it is past the room when it does not. */
static gboolean
fit_check (AnotLlmJob *job,
           Fit        *fit,
           int         m)
{
  const char *text = fit_text (fit, m);
  const char *prompt = fit->data->prompt;
  g_autoptr(GString) out = g_string_sized_new (strlen (prompt) + strlen (text));

  g_string_append_len (out, prompt, fit->data_at);
  g_string_append (out, text);
  g_string_append (out, prompt + fit->data_at + fit->data_len);
  return anot_method_context_check_fit (job->context, fit->data->role, fit->data->system_prompt, out->str,
                                        NULL, NULL, NULL);
}

/* The rule of anot_llm_job_shrink_reviews() (one review fewer per item
 * until the prompt fits) without a refused call per step: the most
 * reviews per item M whose prompt fits while M + 1 does not, found with
 * the router's counts.  A first guess scales the text's length at each M
 * by the tokens per byte of the refused prompt's beginning (the router
 * stops counting a prompt once it is past the room: a prompt five times
 * the window costs one window's worth of counting, not five); the guess is
 * then checked exactly and moved one step at a time until the boundary is
 * seen, so the prompt sent is the one the one-at-a-time rule sends
 * whenever dropping reviews never adds tokens.  Checking M + 1 stops
 * counting past the room too; M, which fits, is counted whole, and that
 * count is the one the router keeps for the call.  FALSE when the prompt
 * does not hold the candidates' last text as it is formatted now (the
 * caller falls back to the one-at-a-time rule). */
static gboolean
fit_reviews (AnotLlmJob *job,
             CallData   *data,
             GPtrArray  *shown)
{
  AnotFormatter *f = anot_llm_job_get_formatter (job, NULL);
  GPtrArray *items = shown != NULL ? shown : job->candidates;
  const char *at;
  guint64 tokens = 0, bytes = 0, room = 0;
  gsize data_len, prompt_len;
  Fit fit;
  g_autofree char **texts = NULL;
  int limit, lo, hi, m;
  guint most = 0, n_checks = 0;

  if (f == NULL || data == NULL || data->prompt == NULL || job->last_data == NULL ||
      job->last_items == NULL || job->last_items->len != items->len)
    return FALSE;
  for (guint i = 0; i < items->len; i++)
    {
      if (g_ptr_array_index (items, i) != g_ptr_array_index (job->last_items, i))
        return FALSE;
      most = MAX (most, anot_item_get_n_reviews (g_ptr_array_index (items, i)));
    }
  limit = anot_formatter_get_max_reviews (f);
  if (limit >= 0 && (guint) limit < most)
    most = (guint) limit;
  if (most == 0)
    return FALSE;

  at = strstr (data->prompt, job->last_data);
  if (at == NULL)
    return FALSE;
  data_len = strlen (job->last_data);
  prompt_len = 0;
  for (guint i = 0; i < anot_chat_request_get_n_messages (data->request); i++)
    prompt_len += anot_chat_request_get_message_length (data->request, i);

  /* The candidates' text in the refused prompt was formatted from these
   * items with the formatter as it is (only fitting changes it), so the
   * prompt at any M is the refused one with that text formatted again.
   * The refused prompt's count is the router's, kept from the refusal. */
  if (anot_method_context_check_fit_counted (job->context, data->role, data->system_prompt, data->prompt,
                                             &tokens, &bytes, &room) ||
      tokens == 0 || bytes == 0 || room == G_MAXUINT64)
    return FALSE;

  fit.f = f;
  fit.items = items;
  fit.texts = texts = g_new0 (char *, most + 1);
  fit.data = data;
  fit.data_at = at - data->prompt;
  fit.data_len = data_len;

  /* The guess: the most reviews whose prompt, at the tokens per byte
   * counted, fits; lengths grow with M, so a bisection. */
  lo = 0;
  hi = (int) most - 1;
  while (lo < hi)
    {
      int mid = (lo + hi + 1) / 2;

      if ((double) (prompt_len - data_len + strlen (fit_text (&fit, mid))) * tokens / bytes <= (double) room)
        lo = mid;
      else
        hi = mid - 1;
      /* Only texts next to the range are checked exactly later. */
      for (int i = 0; i <= (int) most; i++)
        if (i < lo - 1 || i > hi + 1)
          g_clear_pointer (&texts[i], g_free);
    }

  /* Then exact counts, one step at a time to the boundary. */
  m = lo;
  n_checks++;
  if (fit_check (job, &fit, m))
    {
      while (m + 1 < (int) most && (n_checks++, fit_check (job, &fit, m + 1)))
        m++;
    }
  else
    {
      while (m > 0 && (n_checks++, !fit_check (job, &fit, m - 1)))
        m--;
      m = MAX (m - 1, 0);
    }
  for (guint i = 0; i <= most; i++)
    g_free (texts[i]);

  anot_formatter_set_max_reviews (f, m);
  job->truncation_retries++;
  anot_method_context_debug (job->context, ANOT_DEBUG_LEVEL_SUMMARY, job->method,
                             "%s: prompt too long for the model (more than %" G_GUINT64_FORMAT
                             " tokens of room), retrying with at most %d reviews per item (%u counts)",
                             anot_method_context_get_request_id (job->context), room, m, n_checks);
  return TRUE;
}

AnotCompletion *
anot_llm_job_complete_finish_shrinking (AnotLlmJob    *job,
                                        GAsyncResult  *result,
                                        GPtrArray     *shown,
                                        JsonObject   **record,
                                        gboolean      *retry,
                                        GError       **error)
{
  g_autoptr(GError) local = NULL;
  AnotCompletion *completion = anot_llm_job_complete_finish (job, result, record, &local);

  *retry = FALSE;
  if (completion != NULL)
    return completion;
  if (anot_llm_error_is_context_overflow (local) &&
      (fit_reviews (job, g_task_get_task_data (G_TASK (result)), shown) ||
       anot_llm_job_shrink_reviews (job, shown)))
    *retry = TRUE;
  else
    g_propagate_error (error, g_steal_pointer (&local));
  return NULL;
}

void
anot_llm_job_record_parse (AnotLlmJob      *job,
                           JsonObject      *record,
                           AnotParseResult *parse)
{
  json_object_set_member (record, "parse", anot_parse_result_to_json (parse));
  if (!anot_parse_result_get_ok (parse))
    anot_method_context_debug (job->context, ANOT_DEBUG_LEVEL_SUMMARY, job->method,
                               "%s: parse failed (%s)", anot_method_context_get_request_id (job->context),
                               anot_parse_result_get_message (parse));
}

guint
anot_llm_job_get_n_calls (AnotLlmJob *job)
{
  return job->n_calls;
}

void
anot_llm_job_set_trace_member (AnotLlmJob *job,
                               const char *name,
                               JsonNode   *value)
{
  json_object_set_member (job->extra, name, value);
}

JsonNode *
anot_llm_job_build_trace (AnotLlmJob *job)
{
  JsonObject *o = json_object_new ();
  JsonNode *node = json_node_new (JSON_NODE_OBJECT);
  JsonObjectIter iter;
  const char *name;
  JsonNode *member;

  json_object_set_string_member (o, "method", job->method);
  json_object_set_string_member (o, "request", anot_query_get_id (job->request));
  json_object_set_int_member (o, "n_candidates", job->candidates->len);
  json_object_set_int_member (o, "k", job->k);
  json_object_set_boolean_member (o, "defense", anot_method_context_get_defense (job->context));
  json_object_set_object_member (o, "formatting", json_object_ref (job->formatting));
  json_object_set_array_member (o, "calls", json_array_ref (job->calls));
  json_object_set_int_member (o, "n_calls", job->n_calls);
  json_object_set_int_member (o, "n_failed_calls", job->n_failed);
  json_object_set_int_member (o, "prompt_tokens", job->prompt_tokens);
  json_object_set_int_member (o, "completion_tokens", job->completion_tokens);
  json_object_set_int_member (o, "truncation_retries", job->truncation_retries);
  if (job->formatter != NULL && anot_formatter_get_max_reviews (job->formatter) >= 0)
    json_object_set_int_member (o, "final_max_reviews", anot_formatter_get_max_reviews (job->formatter));
  else
    json_object_set_null_member (o, "final_max_reviews");

  json_object_iter_init_ordered (&iter, job->extra);
  while (json_object_iter_next_ordered (&iter, &name, &member))
    json_object_set_member (o, name, json_node_copy (member));

  json_node_take_object (node, o);
  return node;
}

AnotRanking *
anot_llm_job_ranking_from_parse (AnotLlmJob      *job,
                                 AnotParseResult *parse,
                                 const char      *raw_text)
{
  AnotRanking *ranking = anot_parse_result_to_ranking (parse);

  anot_llm_job_set_trace_member (job, "result", anot_parse_result_to_json (parse));
  anot_ranking_set_raw_response (ranking, raw_text);
  {
    g_autoptr(JsonNode) trace = anot_llm_job_build_trace (job);

    anot_ranking_set_trace (ranking, trace);
  }
  return ranking;
}

AnotParseFlags
anot_llm_job_parse_flags (AnotLlmJob *job)
{
  return anot_method_context_get_compat (job->context) == ANOT_COMPAT_MODE_ORIGINAL
         ? ANOT_PARSE_ORIGINAL : ANOT_PARSE_FLAGS_NONE;
}

AnotRanking *
anot_llm_job_rank_answer (AnotLlmJob     *job,
                          JsonObject     *record,
                          AnotCompletion *completion)
{
  const char *text = anot_completion_get_text (completion);
  g_autoptr(AnotParseResult) parse = anot_parse_ranking (text, job->candidates->len, job->candidates,
                                                         anot_llm_job_parse_flags (job));

  anot_llm_job_record_parse (job, record, parse);
  return anot_llm_job_ranking_from_parse (job, parse, text);
}

/* The phrases of the original harness (methods.md §0.3). */
static const char * const overflow_markers[] = {
  "context_length_exceeded", "too many tokens", "maximum context length", "context window",
  "token limit", "max_tokens", "input too long",
};

gboolean
anot_llm_error_is_context_overflow (const GError *error)
{
  g_autofree char *lower = NULL;

  if (error == NULL || !g_error_matches (error, ANOT_ERROR, ANOT_ERROR_LLM_BAD_REQUEST))
    return FALSE;
  lower = g_ascii_strdown (error->message, -1);
  for (guint i = 0; i < G_N_ELEMENTS (overflow_markers); i++)
    if (strstr (lower, overflow_markers[i]) != NULL)
      return TRUE;
  return FALSE;
}

gboolean
anot_llm_job_shrink_reviews (AnotLlmJob *job,
                             GPtrArray  *shown)
{
  AnotFormatter *f = anot_llm_job_get_formatter (job, NULL);
  GPtrArray *items = shown != NULL ? shown : job->candidates;
  int limit;
  guint most = 0;

  if (f == NULL)
    return FALSE;
  for (guint i = 0; i < items->len; i++)
    most = MAX (most, anot_item_get_n_reviews (g_ptr_array_index (items, i)));
  limit = anot_formatter_get_max_reviews (f);
  if (limit >= 0 && (guint) limit < most)
    most = (guint) limit;
  if (most == 0)
    return FALSE;
  anot_formatter_set_max_reviews (f, (int) most - 1);
  job->truncation_retries++;
  anot_method_context_debug (job->context, ANOT_DEBUG_LEVEL_SUMMARY, job->method,
                             "%s: prompt too long for the model, retrying with at most %u reviews per item",
                             anot_method_context_get_request_id (job->context), most - 1);
  return TRUE;
}

void
anot_llm_job_set_text (AnotLlmJob *job,
                       const char *text)
{
  g_free (job->text);
  job->text = g_strdup (text);
}

const char *
anot_llm_job_get_text (AnotLlmJob *job)
{
  return job->text;
}
