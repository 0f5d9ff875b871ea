/* anot-test-good.c: a minimal valid method plugin for test-registry
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <anot/anot.h>

/* Ranks candidates in the order given. */

#define ANOT_TYPE_TEST_GOOD_METHOD (anot_test_good_method_get_type ())
G_DECLARE_FINAL_TYPE (AnotTestGoodMethod, anot_test_good_method, ANOT, TEST_GOOD_METHOD, GObject)

struct _AnotTestGoodMethod
{
  GObject parent_instance;
};

static void method_iface_init (AnotMethodInterface *iface);

G_DEFINE_DYNAMIC_TYPE_EXTENDED (AnotTestGoodMethod, anot_test_good_method, G_TYPE_OBJECT,
                                G_TYPE_FLAG_FINAL,
                                G_IMPLEMENT_INTERFACE_DYNAMIC (ANOT_TYPE_METHOD, method_iface_init))

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
  g_autoptr(GTask) task = g_task_new (method, cancellable, callback, user_data);
  AnotRanking *ranking = anot_ranking_new ();

  for (guint i = 0; i < candidates->len; i++)
    anot_ranking_append (ranking, i, 0);
  g_task_return_pointer (task, ranking, g_object_unref);
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
anot_test_good_method_class_init (AnotTestGoodMethodClass *klass)
{
}

static void
anot_test_good_method_class_finalize (AnotTestGoodMethodClass *klass)
{
}

static void
anot_test_good_method_init (AnotTestGoodMethod *self)
{
}

G_MODULE_EXPORT void
g_io_module_load (GIOModule *module)
{
  anot_test_good_method_register_type (G_TYPE_MODULE (module));
  anot_plugin_implement (ANOT_METHOD_EXTENSION_POINT_NAME,
                         ANOT_TYPE_TEST_GOOD_METHOD, "test-good",
                         "Keeps the given order (test module)");
}

G_MODULE_EXPORT void
g_io_module_unload (GIOModule *module)
{
}
