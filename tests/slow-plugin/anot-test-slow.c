/* anot-test-slow.c: a method that takes its time, for interruption tests
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <anot/anot.h>

/* Waits `test-slow.delay-ms` milliseconds (default 60) on the main context,
 * then returns a permutation drawn from the request's seed.  The wait makes
 * killing or interrupting `anot-run` mid-run deterministic enough for tests
 * on any machine; the seeded order makes rows differ between requests, so a
 * resumed run that re-used a wrong seed would be caught.  The requests of
 * `test-slow.hang` never finish. */

#define ANOT_TYPE_TEST_SLOW_METHOD (anot_test_slow_method_get_type ())
G_DECLARE_FINAL_TYPE (AnotTestSlowMethod, anot_test_slow_method, ANOT, TEST_SLOW_METHOD, GObject)

struct _AnotTestSlowMethod
{
  GObject parent_instance;
};

static void method_iface_init (AnotMethodInterface *iface);

G_DEFINE_DYNAMIC_TYPE_EXTENDED (AnotTestSlowMethod, anot_test_slow_method, G_TYPE_OBJECT,
                                G_TYPE_FLAG_FINAL,
                                G_IMPLEMENT_INTERFACE_DYNAMIC (ANOT_TYPE_METHOD, method_iface_init))

typedef struct
{
  guint n_candidates;
  guint64 seed;
} SlowRank;

static gboolean
slow_rank_done (gpointer user_data)
{
  GTask *task = user_data;
  SlowRank *state = g_task_get_task_data (task);
  g_autoptr(GArray) order = g_array_sized_new (FALSE, FALSE, sizeof (guint), state->n_candidates);
  guint32 seed_words[2] = { (guint32) state->seed, (guint32) (state->seed >> 32) };
  g_autoptr(GRand) rand = g_rand_new_with_seed_array (seed_words, 2);
  AnotRanking *ranking;

  if (g_task_return_error_if_cancelled (task))
    return G_SOURCE_REMOVE;

  for (guint i = 0; i < state->n_candidates; i++)
    g_array_append_val (order, i);
  for (guint i = state->n_candidates; i > 1; i--)
    {
      guint j = (guint) g_rand_int_range (rand, 0, (gint32) i);
      guint tmp = g_array_index (order, guint, i - 1);

      g_array_index (order, guint, i - 1) = g_array_index (order, guint, j);
      g_array_index (order, guint, j) = tmp;
    }

  ranking = anot_ranking_new ();
  for (guint i = 0; i < order->len; i++)
    anot_ranking_append (ranking, g_array_index (order, guint, i), order->len - i);
  g_task_return_pointer (task, ranking, g_object_unref);
  return G_SOURCE_REMOVE;
}

/* `test-slow.hang`: comma-separated request ids the method never
 * finishes, for the request deadline's tests. */
static gboolean
hangs (AnotMethodContext *context,
       const char        *request_id)
{
  const char *hang = anot_method_context_get_option (context, "test-slow.hang");
  g_auto(GStrv) ids = hang ? g_strsplit (hang, ",", -1) : NULL;

  return ids != NULL && g_strv_contains ((const char * const *) ids, request_id);
}

static void
rank_async (AnotMethod          *method,
            AnotQuery           *request,
            GPtrArray           *candidates,
            guint                k,
            AnotMethodContext   *context,
            GCancellable        *cancellable,
            GAsyncReadyCallback  callback,
            gpointer             user_data)
{
  GTask *task = g_task_new (method, cancellable, callback, user_data);
  const char *delay = anot_method_context_get_option (context, "test-slow.delay-ms");
  SlowRank *state = g_new0 (SlowRank, 1);
  g_autoptr(GSource) source = NULL;

  state->n_candidates = candidates->len;
  state->seed = anot_method_context_get_seed (context);
  g_task_set_task_data (task, state, g_free);

  if (hangs (context, anot_query_get_id (request)))
    {
      static GPtrArray *never_finished;

      /* Never returned, cancelled or not: a method that does not honour
       * cancellation.  Kept, as such a method's state would be. */
      if (never_finished == NULL)
        never_finished = g_ptr_array_new ();
      g_ptr_array_add (never_finished, task);
      return;
    }

  source = g_timeout_source_new (delay ? (guint) g_ascii_strtoull (delay, NULL, 10) : 60);
  g_task_attach_source (task, source, slow_rank_done);
  /* The source holds the task until it fires. */
  g_object_unref (task);
}

static AnotRanking *
rank_finish (AnotMethod    *method,
             GAsyncResult  *result,
             GError       **error)
{
  return g_task_propagate_pointer (G_TASK (result), error);
}

static void
method_iface_init (AnotMethodInterface *iface)
{
  iface->rank_async = rank_async;
  iface->rank_finish = rank_finish;
}

static void
anot_test_slow_method_class_init (AnotTestSlowMethodClass *klass)
{
}

static void
anot_test_slow_method_class_finalize (AnotTestSlowMethodClass *klass)
{
}

static void
anot_test_slow_method_init (AnotTestSlowMethod *self)
{
}

G_MODULE_EXPORT void
g_io_module_load (GIOModule *module)
{
  anot_test_slow_method_register_type (G_TYPE_MODULE (module));
  anot_plugin_implement (ANOT_METHOD_EXTENSION_POINT_NAME,
                         ANOT_TYPE_TEST_SLOW_METHOD, "test-slow",
                         "Waits, then returns a seeded permutation (test module)");
}

G_MODULE_EXPORT void
g_io_module_unload (GIOModule *module)
{
}
