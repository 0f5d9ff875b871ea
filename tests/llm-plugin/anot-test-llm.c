/* anot-test-llm.c: a method that ranks with LLM calls, for tests
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <anot/anot.h>

#include <stdlib.h>
#include <string.h>

/* "test-llm": one call of role "planner" ("PLAN <request id>: <request
 * text>"), then, all at once, one call of role "scorer" per candidate
 * ("SCORE <request id> item <i>: <name>") whose answer is read as a
 * number; candidates are ranked by that number, highest first, and the
 * planner's answer is the raw response.  The option test-llm.tag adds a
 * word to every prompt, so a test can ask questions no cache has seen.
 * A plan that says "MORE <n>" is followed, after the scores, by n more
 * planner calls one after the other ("AGAIN <request id> <i>: ..."): a
 * method whose later rounds follow the answers, which an estimate on a
 * stand-in cannot count. */

#define ANOT_TYPE_METHOD_TEST_LLM (anot_method_test_llm_get_type ())
G_DECLARE_FINAL_TYPE (AnotMethodTestLlm, anot_method_test_llm, ANOT, METHOD_TEST_LLM, GObject)

struct _AnotMethodTestLlm
{
  GObject parent_instance;
};

static void anot_method_test_llm_method_iface_init (AnotMethodInterface *iface);

G_DEFINE_DYNAMIC_TYPE_EXTENDED (AnotMethodTestLlm, anot_method_test_llm, G_TYPE_OBJECT,
                                G_TYPE_FLAG_FINAL,
                                G_IMPLEMENT_INTERFACE_DYNAMIC (ANOT_TYPE_METHOD,
                                                               anot_method_test_llm_method_iface_init))

typedef struct
{
  AnotQuery *request;
  GPtrArray *candidates;
  AnotMethodContext *context;
  GCancellable *cancellable;
  double *scores;
  guint pending;
  char *plan;
  guint more;
  GError *error;
} RankData;

typedef struct
{
  GTask *task;
  guint index;
} ScoreCall;

static void
rank_data_free (RankData *data)
{
  g_clear_object (&data->request);
  g_ptr_array_unref (data->candidates);
  g_clear_object (&data->context);
  g_clear_object (&data->cancellable);
  g_free (data->scores);
  g_free (data->plan);
  g_clear_error (&data->error);
  g_free (data);
}

static const char *
prompt_tag (AnotMethodContext *context)
{
  const char *value = anot_method_context_get_option (context, "test-llm.tag");

  return value ? value : "";
}

static void finish (GTask *task);

static void
on_again (GObject      *source,
          GAsyncResult *result,
          gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  RankData *data = g_task_get_task_data (task);
  g_autoptr(AnotCompletion) completion = NULL;

  completion = anot_method_context_complete_finish (ANOT_METHOD_CONTEXT (source), result, &data->error);
  finish (task);
}

static void
finish (GTask *task)
{
  RankData *data = g_task_get_task_data (task);
  g_autoptr(AnotRanking) ranking = NULL;
  guint n = data->candidates->len;
  g_autofree guint *order = g_new (guint, MAX (n, 1));

  if (data->error != NULL)
    {
      g_task_return_error (task, g_steal_pointer (&data->error));
      return;
    }
  if (data->more > 0)
    {
      g_autofree char *prompt = g_strdup_printf ("AGAIN %s %u: %s", anot_query_get_id (data->request),
                                                 data->more, anot_query_get_text (data->request));

      data->more--;
      anot_method_context_complete_async (data->context, "planner", "You plan the ranking.", prompt,
                                          data->cancellable, on_again, g_object_ref (task));
      return;
    }
  for (guint i = 0; i < n; i++)
    order[i] = i;
  /* Highest score first, then lowest index. */
  for (guint i = 1; i < n; i++)
    for (guint j = i; j > 0 && data->scores[order[j]] > data->scores[order[j - 1]]; j--)
      {
        guint t = order[j];

        order[j] = order[j - 1];
        order[j - 1] = t;
      }
  ranking = anot_ranking_new ();
  for (guint i = 0; i < n; i++)
    anot_ranking_append (ranking, order[i], data->scores[order[i]]);
  anot_ranking_set_raw_response (ranking, data->plan);
  g_task_return_pointer (task, g_steal_pointer (&ranking), g_object_unref);
}

static void
on_score (GObject      *source,
          GAsyncResult *result,
          gpointer      user_data)
{
  ScoreCall *call = user_data;
  g_autoptr(GTask) task = call->task;
  RankData *data = g_task_get_task_data (task);
  g_autoptr(GError) error = NULL;
  g_autoptr(AnotCompletion) completion = NULL;

  completion = anot_method_context_complete_finish (ANOT_METHOD_CONTEXT (source), result, &error);
  if (completion == NULL)
    {
      if (data->error == NULL)
        data->error = g_steal_pointer (&error);
    }
  else
    {
      const char *text = anot_completion_get_text (completion);

      while (*text && !g_ascii_isdigit (*text))
        text++;
      data->scores[call->index] = g_ascii_strtod (text, NULL);
    }
  g_free (call);
  if (--data->pending == 0)
    finish (task);
}

static void
on_plan (GObject      *source,
         GAsyncResult *result,
         gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  RankData *data = g_task_get_task_data (task);
  g_autoptr(GError) error = NULL;
  g_autoptr(AnotCompletion) completion = NULL;

  completion = anot_method_context_complete_finish (ANOT_METHOD_CONTEXT (source), result, &error);
  if (completion == NULL)
    {
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }
  data->plan = g_strdup (anot_completion_get_text (completion));
  if (strstr (data->plan, "MORE ") != NULL)
    data->more = (guint) strtoul (strstr (data->plan, "MORE ") + 5, NULL, 10);
  anot_method_context_debug (data->context, ANOT_DEBUG_LEVEL_SUMMARY, "P1", "Plan: %s",
                             data->plan);

  if (data->candidates->len == 0)
    {
      finish (task);
      return;
    }
  data->pending = data->candidates->len;
  for (guint i = 0; i < data->candidates->len; i++)
    {
      AnotItem *item = g_ptr_array_index (data->candidates, i);
      g_autofree char *prompt = g_strdup_printf ("SCORE %s item %u%s%s: %s",
                                                 anot_query_get_id (data->request), i,
                                                 *prompt_tag (data->context) ? " " : "",
                                                 prompt_tag (data->context),
                                                 anot_item_get_name (item));
      ScoreCall *call = g_new0 (ScoreCall, 1);

      call->task = g_object_ref (task);
      call->index = i;
      anot_method_context_debug (data->context, ANOT_DEBUG_LEVEL_VERBOSE, "P2", "Item %u (%s)",
                                 i, anot_item_get_name (item));
      anot_method_context_complete_async (data->context, "scorer", "Answer with a number.",
                                          prompt, data->cancellable, on_score, call);
    }
}

static void
anot_method_test_llm_rank_async (AnotMethod          *method,
                                 AnotQuery           *request,
                                 GPtrArray           *candidates,
                                 guint                k,
                                 AnotMethodContext   *context,
                                 GCancellable        *cancellable,
                                 GAsyncReadyCallback  callback,
                                 gpointer             user_data)
{
  g_autoptr(GTask) task = g_task_new (method, cancellable, callback, user_data);
  g_autofree char *prompt = NULL;
  g_autofree char *system = NULL;
  RankData *data;

  g_task_set_source_tag (task, anot_method_test_llm_rank_async);
  data = g_new0 (RankData, 1);
  data->request = g_object_ref (request);
  data->candidates = g_ptr_array_ref (candidates);
  data->context = g_object_ref (context);
  data->cancellable = cancellable ? g_object_ref (cancellable) : NULL;
  data->scores = g_new0 (double, MAX (candidates->len, 1));
  g_task_set_task_data (task, data, (GDestroyNotify) rank_data_free);

  prompt = g_strdup_printf ("PLAN %s%s%s: %s", anot_query_get_id (request),
                            *prompt_tag (context) ? " " : "", prompt_tag (context),
                            anot_query_get_text (request));
  /* In defense mode the planner's system prompt carries the defense text,
   * as an LLM method's would. */
  system = anot_method_context_get_defense_prompt (context)
           ? g_strconcat ("You plan the ranking.\n\n", anot_method_context_get_defense_prompt (context), NULL)
           : g_strdup ("You plan the ranking.");
  anot_method_context_complete_async (context, "planner", system, prompt,
                                      cancellable, on_plan, g_steal_pointer (&task));
}

static AnotRanking *
anot_method_test_llm_rank_finish (AnotMethod    *method,
                                  GAsyncResult  *result,
                                  GError       **error)
{
  return g_task_propagate_pointer (G_TASK (result), error);
}

static void
anot_method_test_llm_method_iface_init (AnotMethodInterface *iface)
{
  iface->rank_async = anot_method_test_llm_rank_async;
  iface->rank_finish = anot_method_test_llm_rank_finish;
}

static void
anot_method_test_llm_class_init (AnotMethodTestLlmClass *klass)
{
}

static void
anot_method_test_llm_class_finalize (AnotMethodTestLlmClass *klass)
{
}

static void
anot_method_test_llm_init (AnotMethodTestLlm *self)
{
}

G_MODULE_EXPORT void
g_io_module_load (GIOModule *module)
{
  anot_method_test_llm_register_type (G_TYPE_MODULE (module));
  anot_plugin_implement_with_flags (ANOT_METHOD_EXTENSION_POINT_NAME, ANOT_TYPE_METHOD_TEST_LLM,
                                    "test-llm", "Test method: a planner call, then a scorer call per candidate",
                                    ANOT_PLUGIN_SUPPORTS_DEFENSE);
  anot_plugin_declare_method_options ("test-llm",
                                      anot_method_option_new_string ("tag", NULL,
                                                                     "a word put into every prompt"),
                                      NULL);
}

G_MODULE_EXPORT void
g_io_module_unload (GIOModule *module)
{
}
