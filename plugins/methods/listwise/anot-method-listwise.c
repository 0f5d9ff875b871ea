/* anot-method-listwise.c: listwise ranking with a RankGPT sliding window
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * See README.md in this folder.
 */
#include <anot/anot.h>

#include "anot-llm-job.h"

#define PROMPTS "/org/anot/methods/listwise"
#define DEFAULT_WINDOW 20
#define DEFAULT_STEP 10

#define ANOT_TYPE_METHOD_LISTWISE (anot_method_listwise_get_type ())
G_DECLARE_FINAL_TYPE (AnotMethodListwise, anot_method_listwise, ANOT, METHOD_LISTWISE, GObject)

struct _AnotMethodListwise
{
  GObject parent_instance;
};

static void anot_method_listwise_method_iface_init (AnotMethodInterface *iface);

G_DEFINE_DYNAMIC_TYPE_EXTENDED (AnotMethodListwise, anot_method_listwise, G_TYPE_OBJECT,
                                G_TYPE_FLAG_FINAL,
                                G_IMPLEMENT_INTERFACE_DYNAMIC (ANOT_TYPE_METHOD,
                                                               anot_method_listwise_method_iface_init))

typedef struct
{
  AnotLlmJob *job;
  guint window;         /* candidates per call; N when not windowed */
  guint step;
  guint *order;         /* current order: positions into the candidates */
  guint n_ranked;       /* how many of order[] the ranking holds */
  guint start, end;     /* the window being ranked: order[start..end) */
  JsonArray *windows;   /* trace of each window */
  GString *raw;         /* every window's answer */
  guint n_ok;
} Listwise;

static void
listwise_free (Listwise *lw)
{
  anot_llm_job_free (lw->job);
  g_free (lw->order);
  json_array_unref (lw->windows);
  g_string_free (lw->raw, TRUE);
  g_free (lw);
}

/* "[2] > [4] > [1] > [3]": an example permutation of 1..m. */
static char *
example_permutation (guint m)
{
  static const guint pattern[] = { 2, 4, 1, 3 };
  GString *out = g_string_new (NULL);
  guint shown = 0;

  for (guint i = 0; i < G_N_ELEMENTS (pattern); i++)
    {
      if (pattern[i] > m)
        continue;
      g_string_append_printf (out, "%s[%u]", shown > 0 ? " > " : "", pattern[i]);
      shown++;
    }
  if (m > G_N_ELEMENTS (pattern))
    g_string_append (out, " > ...");
  return g_string_free (out, FALSE);
}

/* Both take the caller's reference to @task. */
static void rank_window (GTask *task);
static void next_window (GTask *task);

static void
finish (GTask *task)
{
  Listwise *lw = g_task_get_task_data (task);
  AnotLlmJob *job = lw->job;
  guint n = anot_llm_job_get_candidates (job)->len;
  g_autoptr(AnotRanking) ranking = anot_ranking_new ();
  g_autoptr(JsonNode) trace = NULL;
  JsonNode *windows = json_node_new (JSON_NODE_ARRAY);

  json_node_set_array (windows, lw->windows);
  anot_llm_job_set_trace_member (job, "windows", windows);
  {
    JsonNode *result = json_node_new (JSON_NODE_OBJECT);
    JsonObject *o = json_object_new ();
    JsonArray *positions = json_array_new ();

    json_object_set_boolean_member (o, "ok", lw->n_ok > 0);
    json_object_set_int_member (o, "windows_parsed", lw->n_ok);
    json_object_set_int_member (o, "windows_failed", json_array_get_length (lw->windows) - lw->n_ok);
    if (lw->n_ok > 0)
      for (guint i = 0; i < lw->n_ranked; i++)
        json_array_add_int_element (positions, lw->order[i]);
    json_object_set_array_member (o, "positions", positions);
    json_node_take_object (result, o);
    anot_llm_job_set_trace_member (job, "result", result);
  }

  /* Not one window answered: nothing to rank by (the failures are in the
   * trace), rather than the order the candidates came in. */
  if (lw->n_ok > 0)
    for (guint i = 0; i < lw->n_ranked; i++)
      anot_ranking_append (ranking, lw->order[i], (double) (n - i));
  anot_ranking_set_raw_response (ranking, lw->raw->str);
  trace = anot_llm_job_build_trace (job);
  anot_ranking_set_trace (ranking, trace);
  g_task_return_pointer (task, g_steal_pointer (&ranking), g_object_unref);
}

static void
next_window (GTask *task)
{
  Listwise *lw = g_task_get_task_data (task);

  if (lw->start == 0)
    {
      finish (task);
      g_object_unref (task);
      return;
    }
  lw->end -= lw->step;
  lw->start = lw->end > lw->window ? lw->end - lw->window : 0;
  rank_window (task);
}

static gboolean
is_compat_original (AnotLlmJob *job)
{
  return anot_method_context_get_compat (anot_llm_job_get_context (job)) == ANOT_COMPAT_MODE_ORIGINAL;
}

/* --compat original: the original's one call over all N, read with its
 * own parser and then its harness's (numbers above N dropped, the first k
 * kept); the ranking holds only what that left, as the original's did. */
static void
finish_original (GTask      *task,
                 JsonObject *record,
                 const char *text)
{
  Listwise *lw = g_task_get_task_data (task);
  AnotLlmJob *job = lw->job;
  guint n = anot_llm_job_get_candidates (job)->len;
  guint n_numbers = 0;
  g_autofree guint *numbers = anot_parse_listwise_compat (text, anot_llm_job_get_k (job), &n_numbers);
  g_autoptr(GString) answer = g_string_new (NULL);
  g_autoptr(AnotParseResult) parse = NULL;
  AnotRanking *ranking;

  /* What the original method returned to its harness: "3, 1, 5". */
  for (guint i = 0; i < n_numbers; i++)
    g_string_append_printf (answer, "%s%u", i ? ", " : "", numbers[i]);
  parse = anot_parse_ranking (answer->str, n, NULL, ANOT_PARSE_ORIGINAL);
  anot_llm_job_record_parse (job, record, parse);
  anot_llm_job_set_trace_member (job, "windows",
                                 json_node_init_array (json_node_alloc (), lw->windows));
  ranking = anot_llm_job_ranking_from_parse (job, parse, text);
  g_task_return_pointer (task, ranking, g_object_unref);
  g_object_unref (task);
}

static void
on_window (GObject      *source,
           GAsyncResult *result,
           gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  Listwise *lw = g_task_get_task_data (task);
  AnotLlmJob *job = lw->job;
  g_autoptr(AnotCompletion) completion = NULL;
  g_autoptr(AnotParseResult) parse = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) items = g_ptr_array_new ();
  JsonObject *record = NULL;
  JsonObject *w = json_object_new ();
  guint m = lw->end - lw->start;
  gboolean retry;
  const char *text;

  for (guint i = lw->start; i < lw->end; i++)
    g_ptr_array_add (items, g_ptr_array_index (anot_llm_job_get_candidates (job), lw->order[i]));

  completion = anot_llm_job_complete_finish_shrinking (job, result, items, &record, &retry, &error);
  if (retry)
    {
      json_object_unref (w);
      rank_window (g_steal_pointer (&task));
      return;
    }
  if (completion == NULL)
    {
      json_object_unref (w);
      g_prefix_error (&error, "listwise: window %u..%u: ", lw->start + 1, lw->end);
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }

  text = anot_completion_get_text (completion);
  if (lw->raw->len > 0)
    g_string_append (lw->raw, "\n\n---\n\n");
  g_string_append (lw->raw, text);
  if (is_compat_original (job))
    {
      json_object_set_int_member (w, "start", lw->start);
      json_object_set_int_member (w, "end", lw->end);
      json_array_add_object_element (lw->windows, w);
      finish_original (g_steal_pointer (&task), record, text);
      return;
    }
  /* Across sliding windows RankGPT completes a partial permutation with
   * the missing candidates in their current order (a window must stay a
   * permutation for the next one to slide over it).  One window holding
   * every candidate — N ≤ window, or window 0 — ranks only what the model
   * named, as the original did: padding it would credit the model with
   * candidates it never chose (Hits@K, MRR). */
  parse = anot_parse_ranking (text, m, items,
                              m == anot_llm_job_get_candidates (job)->len ? ANOT_PARSE_FLAGS_NONE
                                                                          : ANOT_PARSE_APPEND_MISSING);
  anot_llm_job_record_parse (job, record, parse);

  json_object_set_int_member (w, "start", lw->start);
  json_object_set_int_member (w, "end", lw->end);
  json_object_set_boolean_member (w, "ok", anot_parse_result_get_ok (parse));
  if (anot_parse_result_get_ok (parse))
    {
      guint len;
      const guint *pos = anot_parse_result_get_indices (parse, &len);
      g_autofree guint *window_order = g_memdup2 (lw->order + lw->start, m * sizeof (guint));

      /* A failed window keeps its order; a parsed one is a permutation of
       * the window (the parser appends what the answer left out), or for
       * the one window of all N, what the answer named. */
      g_assert (len == m || m == anot_llm_job_get_candidates (job)->len);
      for (guint i = 0; i < len; i++)
        lw->order[lw->start + i] = window_order[pos[i]];
      if (m == anot_llm_job_get_candidates (job)->len)
        lw->n_ranked = len;
      lw->n_ok++;
    }
  json_array_add_object_element (lw->windows, w);
  next_window (g_steal_pointer (&task));
}

static void
rank_window (GTask *task)
{
  Listwise *lw = g_task_get_task_data (task);
  AnotLlmJob *job = lw->job;
  g_autoptr(GPtrArray) items = g_ptr_array_new ();
  g_autoptr(GError) error = NULL;
  guint m = lw->end - lw->start;
  g_autofree char *label = g_strdup_printf ("window %u..%u", lw->start + 1, lw->end);
  const char *data = NULL;
  g_autofree char *n = g_strdup_printf ("%u", m);
  g_autofree char *k = g_strdup_printf ("%u", anot_llm_job_get_k (job));
  g_autofree char *example = example_permutation (m);
  g_autofree char *task_text = NULL;
  g_autofree char *system_base = NULL;
  g_autofree char *system_prompt = NULL;
  g_autofree char *prompt = NULL;

  for (guint i = lw->start; i < lw->end; i++)
    g_ptr_array_add (items, g_ptr_array_index (anot_llm_job_get_candidates (job), lw->order[i]));
  data = anot_llm_job_format_candidates (job, label, items, &error);
  if (data == NULL)
    {
      g_task_return_error (task, g_steal_pointer (&error));
      g_object_unref (task);
      return;
    }
  task_text = anot_llm_prompt (anot_llm_job_get_context (job), PROMPTS "/task.txt", "n", n, "k", k,
                               "request", anot_query_get_text (anot_llm_job_get_request (job)), NULL);
  system_base = anot_llm_prompt (anot_llm_job_get_context (job), PROMPTS "/system.txt", NULL);
  system_prompt = anot_llm_job_system_prompt (job, system_base);
  prompt = anot_llm_prompt (anot_llm_job_get_context (job), PROMPTS "/user.txt", "task", task_text, "candidates", data,
                            "n", n, "example", example, NULL);
  /* --compat original --defense: the original's listwise put the
   * data-quality instructions into the user prompt too (methods.md §4,
   * attacks.md §5); anot's own defense is the system prompt's alone, as
   * for every method. */
  if (anot_method_context_get_compat (anot_llm_job_get_context (job)) == ANOT_COMPAT_MODE_ORIGINAL &&
      anot_method_context_get_defense_prompt (anot_llm_job_get_context (job)) != NULL)
    {
      char *defended = g_strconcat (anot_method_context_get_defense_prompt (anot_llm_job_get_context (job)),
                                    "\n\n", prompt, NULL);

      g_free (prompt);
      prompt = defended;
    }
  anot_llm_job_complete_take_async (job, label, ANOT_DEFAULT_ROLE, system_prompt,
                                    g_steal_pointer (&prompt), on_window, task);
}

static void
anot_method_listwise_rank_async (AnotMethod          *method,
                                 AnotQuery           *request,
                                 GPtrArray           *candidates,
                                 guint                k,
                                 AnotMethodContext   *context,
                                 GCancellable        *cancellable,
                                 GAsyncReadyCallback  callback,
                                 gpointer             user_data)
{
  GTask *task = g_task_new (method, cancellable, callback, user_data);
  Listwise *lw = g_new0 (Listwise, 1);
  g_autoptr(GError) error = NULL;
  g_autoptr(AnotMethodSettings) settings = anot_method_settings_new ("listwise");
  guint n = candidates->len;
  guint window, step;

  g_task_set_source_tag (task, anot_method_listwise_rank_async);
  lw->job = anot_llm_job_new ("listwise", request, candidates, k, context, cancellable);
  lw->windows = json_array_new ();
  lw->raw = g_string_new (NULL);
  lw->order = g_new (guint, MAX (n, 1));
  for (guint i = 0; i < n; i++)
    lw->order[i] = i;
  g_task_set_task_data (task, lw, (GDestroyNotify) listwise_free);

  if (!anot_method_settings_load_for_context (settings, context, &error) ||
      !anot_method_settings_get_uint (settings, context, "window",
                                      anot_method_context_get_compat (context) == ANOT_COMPAT_MODE_ORIGINAL
                                      ? 0 : DEFAULT_WINDOW, 0, G_MAXUINT,
                                      &window, &error) ||
      !anot_method_settings_get_uint (settings, context, "step", DEFAULT_STEP, 1, G_MAXUINT, &step,
                                      &error) ||
      anot_llm_job_get_formatter (lw->job, &error) == NULL)
    {
      g_task_return_error (task, g_steal_pointer (&error));
      g_object_unref (task);
      return;
    }
  if (window != 0 && window < 2)
    {
      g_task_return_new_error (task, ANOT_ERROR, ANOT_ERROR_INVALID_ARGUMENT,
                               "Option listwise.window: expected 0 (no window) or at least 2, got %u",
                               window);
      g_object_unref (task);
      return;
    }
  if (window != 0 && step > window)
    {
      g_task_return_new_error (task, ANOT_ERROR, ANOT_ERROR_INVALID_ARGUMENT,
                               "Option listwise.step (%u) must not exceed listwise.window (%u)",
                               step, window);
      g_object_unref (task);
      return;
    }
  if (n == 0)
    {
      finish (task);
      g_object_unref (task);
      return;
    }

  lw->window = window == 0 || window > n ? n : window;
  lw->step = step;
  lw->n_ranked = n;
  {
    JsonNode *node = json_node_new (JSON_NODE_OBJECT);
    JsonObject *o = json_object_new ();

    json_object_set_int_member (o, "window", lw->window);
    json_object_set_int_member (o, "step", lw->step);
    json_node_take_object (node, o);
    anot_llm_job_set_trace_member (lw->job, "sliding_window", node);
  }

  /* From the back of the list to the front, so good candidates rise
   * through the overlapping windows to the top (RankGPT). */
  lw->end = n;
  lw->start = n - lw->window;
  rank_window (task);
}

static AnotRanking *
anot_method_listwise_rank_finish (AnotMethod    *method,
                                  GAsyncResult  *result,
                                  GError       **error)
{
  return g_task_propagate_pointer (G_TASK (result), error);
}

static void
anot_method_listwise_method_iface_init (AnotMethodInterface *iface)
{
  iface->rank_async = anot_method_listwise_rank_async;
  iface->rank_finish = anot_method_listwise_rank_finish;
}

static void
anot_method_listwise_class_init (AnotMethodListwiseClass *klass)
{
}

static void
anot_method_listwise_class_finalize (AnotMethodListwiseClass *klass)
{
}

static void
anot_method_listwise_init (AnotMethodListwise *self)
{
}

G_MODULE_EXPORT void
g_io_module_load (GIOModule *module)
{
  anot_method_listwise_register_type (G_TYPE_MODULE (module));
  anot_plugin_implement_with_flags (ANOT_METHOD_EXTENSION_POINT_NAME,
                                    ANOT_TYPE_METHOD_LISTWISE, "listwise",
                                    "Listwise permutation ranking [a] > [b] > ... (Zhang et al., ECIR 2025) with "
                                    "RankGPT's sliding window (window w=20, step s=10); "
                                    "calls: 1 if N <= w, else 1 + ceil((N - w) / s)",
                                    ANOT_PLUGIN_SUPPORTS_DEFENSE | ANOT_PLUGIN_USES_FORMATTER);
  anot_plugin_declare_method_options ("listwise",
                                      /* The original ranked all N in one call. */
                                      anot_method_option_with_original_fixed (
                                        anot_method_option_new_int ("window", 0, G_MAXUINT, DEFAULT_WINDOW,
                                                                    "candidates per call (0: one call with all N, as the original)"),
                                        "0"),
                                      anot_method_option_new_int ("step", 1, G_MAXUINT, DEFAULT_STEP, "how far the window slides (1 to window)"),
                                      NULL);
  anot_plugin_declare_method_roles ("listwise", ANOT_DEFAULT_ROLE, NULL);
}

G_MODULE_EXPORT void
g_io_module_unload (GIOModule *module)
{
}

G_MODULE_EXPORT char **
g_io_module_query (void)
{
  return g_strsplit (ANOT_METHOD_EXTENSION_POINT_NAME, "!", -1);
}
