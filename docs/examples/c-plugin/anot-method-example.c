/* anot-method-example.c: a complete, minimal ranking method plugin
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * "example-stars" ranks the candidates by their star rating, best first.
 * Items with fewer reviews than the method option `example-stars.min-reviews`
 * (default 0) go after all the others, because an average over a handful
 * of reviews says little.  It is the plugin that docs/writing-a-method-plugin.md
 * walks through; the build compiles it and tests/python/test_c_plugin.py
 * loads and runs it.
 */
#include <anot/anot.h>

#define METHOD_NAME "example-stars"

/* 1. The type: a final GObject implementing AnotMethod, registered through
 *    the GTypeModule of the plugin (hence DYNAMIC). */

#define EXAMPLE_TYPE_METHOD (example_method_get_type ())
G_DECLARE_FINAL_TYPE (ExampleMethod, example_method, EXAMPLE, METHOD, GObject)

struct _ExampleMethod
{
  GObject parent_instance;
};

static void example_method_iface_init (AnotMethodInterface *iface);

G_DEFINE_DYNAMIC_TYPE_EXTENDED (ExampleMethod, example_method, G_TYPE_OBJECT,
                                G_TYPE_FLAG_FINAL,
                                G_IMPLEMENT_INTERFACE_DYNAMIC (ANOT_TYPE_METHOD,
                                                               example_method_iface_init))

/* The contract: the two functions of AnotMethodInterface. */

static void         example_method_rank_async  (AnotMethod          *method,
                                                AnotQuery           *query,
                                                GPtrArray           *candidates,   /* AnotItem */
                                                guint                k,
                                                AnotMethodContext   *context,
                                                GCancellable        *cancellable,
                                                GAsyncReadyCallback  callback,
                                                gpointer             user_data);
static AnotRanking *example_method_rank_finish (AnotMethod          *method,
                                                GAsyncResult        *result,
                                                GError             **error);

static void
example_method_iface_init (AnotMethodInterface *iface)
{
  iface->rank_async = example_method_rank_async;
  iface->rank_finish = example_method_rank_finish;
}

/* 2. Ranking.  The experiment may call rank_async() for many requests at
 *    once on one main context, so everything a request needs lives in its
 *    GTask, never in the instance. */

/* Options go through AnotMethodSettings, as in every method of anot: the
 * key "min-reviews" of the method "example-stars" is the option
 * example-stars.min-reviews, else the environment variable
 * ANOT_EXAMPLE_STARS_MIN_REVIEWS, else the key of [method example-stars]
 * in config.ini, else the default; a bad value is an error that says
 * where it came from. */
static gboolean
read_min_reviews (AnotMethodContext  *context,
                  guint              *out_min_reviews,
                  GError            **error)
{
  g_autoptr(AnotMethodSettings) settings = anot_method_settings_new (METHOD_NAME);

  return anot_method_settings_load_for_context (settings, context, error) &&
         anot_method_settings_get_uint (settings, context, "min-reviews", 0, 0, G_MAXUINT,
                                        out_min_reviews, error);
}

static void
example_method_rank_async (AnotMethod          *method,
                           AnotQuery           *query,
                           GPtrArray           *candidates,
                           guint                k,
                           AnotMethodContext   *context,
                           GCancellable        *cancellable,
                           GAsyncReadyCallback  callback,
                           gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;
  g_autoptr(AnotRanking) ranking = NULL;
  g_autofree double *scores = NULL;
  GError *error = NULL;
  guint min_reviews;

  task = g_task_new (method, cancellable, callback, user_data);
  g_task_set_source_tag (task, example_method_rank_async);

  if (g_task_return_error_if_cancelled (task))
    return;

  if (!read_min_reviews (context, &min_reviews, &error))
    {
      g_task_return_error (task, error);
      return;
    }

  /* Stars are 1..5; items short of reviews lose 10 so they sort last but
   * keep their order by stars among themselves. */
  scores = g_new (double, MAX (candidates->len, 1));
  for (guint i = 0; i < candidates->len; i++)
    {
      AnotItem *item = g_ptr_array_index (candidates, i);

      scores[i] = anot_item_get_stars (item);
      if (anot_item_get_n_reviews (item) < min_reviews)
        scores[i] -= 10.0;
    }

  /* Highest score first, ties by position. */
  ranking = anot_ranking_new_from_scores (scores, candidates->len);
  g_task_return_pointer (task, g_steal_pointer (&ranking), g_object_unref);
}

static AnotRanking *
example_method_rank_finish (AnotMethod    *method,
                            GAsyncResult  *result,
                            GError       **error)
{
  g_return_val_if_fail (g_task_is_valid (result, method), NULL);

  return g_task_propagate_pointer (G_TASK (result), error);
}

static void
example_method_class_init (ExampleMethodClass *klass)
{
}

static void
example_method_class_finalize (ExampleMethodClass *klass)
{
}

static void
example_method_init (ExampleMethod *self)
{
}

/* 3. The module entry points GIO looks for.  Loading registers the type
 *    and offers it under its short name. */

G_MODULE_EXPORT void
g_io_module_load (GIOModule *module)
{
  example_method_register_type (G_TYPE_MODULE (module));
  anot_plugin_implement (ANOT_METHOD_EXTENSION_POINT_NAME,
                         EXAMPLE_TYPE_METHOD, METHOD_NAME,
                         "Example plugin: ranks by star rating, items with few reviews last");
  anot_plugin_declare_method_options (METHOD_NAME,
                                      anot_method_option_new_int ("min-reviews", 0, G_MAXUINT, 0,
                                                                  "items with fewer reviews rank last"),
                                      NULL);
  anot_plugin_declare_method_roles (METHOD_NAME, NULL);     /* it calls no LLM */
}

G_MODULE_EXPORT void
g_io_module_unload (GIOModule *module)
{
}
