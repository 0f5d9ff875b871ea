/* anot-method-random.c: a seeded uniform permutation of the candidates
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <anot/anot.h>

/* The chance baseline: Hits@k of a uniform permutation is k/N. */

#define ANOT_TYPE_METHOD_RANDOM (anot_method_random_get_type ())
G_DECLARE_FINAL_TYPE (AnotMethodRandom, anot_method_random, ANOT, METHOD_RANDOM, GObject)

struct _AnotMethodRandom
{
  GObject parent_instance;
};

static void anot_method_random_method_iface_init (AnotMethodInterface *iface);

G_DEFINE_DYNAMIC_TYPE_EXTENDED (AnotMethodRandom, anot_method_random, G_TYPE_OBJECT,
                                G_TYPE_FLAG_FINAL,
                                G_IMPLEMENT_INTERFACE_DYNAMIC (ANOT_TYPE_METHOD,
                                                               anot_method_random_method_iface_init))

static void
anot_method_random_rank_async (AnotMethod          *method,
                               AnotQuery           *request,
                               GPtrArray           *candidates,
                               guint                k,
                               AnotMethodContext   *context,
                               GCancellable        *cancellable,
                               GAsyncReadyCallback  callback,
                               gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;
  g_autoptr(AnotRanking) ranking = NULL;
  g_autoptr(JsonBuilder) builder = NULL;
  g_autoptr(JsonNode) trace = NULL;
  g_autofree guint *positions = NULL;
  g_autofree char *seed_text = NULL;
  guint64 seed;
  guint32 seed_words[2];
  GRand *rand;
  guint n = candidates->len;

  task = g_task_new (method, cancellable, callback, user_data);
  g_task_set_source_tag (task, anot_method_random_rank_async);
  g_task_set_name (task, "[anot] random rank");

  if (g_task_return_error_if_cancelled (task))
    return;

  /* All 64 bits of the seed matter: GRand's array seeding takes them as two
   * 32-bit words. */
  seed = anot_method_context_get_seed (context);
  seed_words[0] = (guint32) (seed & 0xffffffffu);
  seed_words[1] = (guint32) (seed >> 32);
  rand = g_rand_new_with_seed_array (seed_words, G_N_ELEMENTS (seed_words));

  /* Fisher–Yates. */
  positions = g_new (guint, MAX (n, 1));
  for (guint i = 0; i < n; i++)
    positions[i] = i;
  for (guint i = n; i > 1; i--)
    {
      guint j = (guint) g_rand_int_range (rand, 0, (gint32) i);
      guint tmp = positions[i - 1];

      positions[i - 1] = positions[j];
      positions[j] = tmp;
    }
  g_rand_free (rand);

  /* Higher is better, as for every method: the first position scores N. */
  ranking = anot_ranking_new ();
  for (guint r = 0; r < n; r++)
    anot_ranking_append (ranking, positions[r], (double) (n - r));

  seed_text = g_strdup_printf ("%" G_GUINT64_FORMAT, seed);
  builder = json_builder_new ();
  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "method");
  json_builder_add_string_value (builder, "random");
  /* A string: JSON integers are signed 64-bit, seeds are not. */
  json_builder_set_member_name (builder, "seed");
  json_builder_add_string_value (builder, seed_text);
  json_builder_set_member_name (builder, "n_candidates");
  json_builder_add_int_value (builder, n);
  json_builder_end_object (builder);
  trace = json_builder_get_root (builder);
  anot_ranking_set_trace (ranking, trace);

  g_task_return_pointer (task, g_steal_pointer (&ranking), g_object_unref);
}

static AnotRanking *
anot_method_random_rank_finish (AnotMethod    *method,
                                GAsyncResult  *result,
                                GError       **error)
{
  g_return_val_if_fail (g_task_is_valid (result, method), NULL);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == anot_method_random_rank_async, NULL);

  return g_task_propagate_pointer (G_TASK (result), error);
}

static void
anot_method_random_method_iface_init (AnotMethodInterface *iface)
{
  iface->rank_async = anot_method_random_rank_async;
  iface->rank_finish = anot_method_random_rank_finish;
}

static void
anot_method_random_class_init (AnotMethodRandomClass *klass)
{
}

static void
anot_method_random_class_finalize (AnotMethodRandomClass *klass)
{
}

static void
anot_method_random_init (AnotMethodRandom *self)
{
}

G_MODULE_EXPORT void
g_io_module_load (GIOModule *module)
{
  anot_method_random_register_type (G_TYPE_MODULE (module));
  anot_plugin_implement (ANOT_METHOD_EXTENSION_POINT_NAME,
                         ANOT_TYPE_METHOD_RANDOM, "random",
                         "Uniform random permutation seeded per request (the chance baseline, Hits@k = k/N)");
  /* It reads no option: any -O random.KEY is refused. */
  anot_plugin_declare_method_options ("random", NULL);
  /* It calls no LLM: a run needs no API key. */
  anot_plugin_declare_method_roles ("random", NULL);
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
