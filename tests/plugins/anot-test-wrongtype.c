/* anot-test-wrongtype.c: a module whose registration is refused
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <anot/anot.h>

/* Offers as a method a type that does not implement AnotMethod, so its load
 * registers nothing. */

#define ANOT_TYPE_TEST_NOT_A_METHOD (anot_test_not_a_method_get_type ())
G_DECLARE_FINAL_TYPE (AnotTestNotAMethod, anot_test_not_a_method, ANOT, TEST_NOT_A_METHOD, GObject)

struct _AnotTestNotAMethod
{
  GObject parent_instance;
};

G_DEFINE_DYNAMIC_TYPE_EXTENDED (AnotTestNotAMethod, anot_test_not_a_method, G_TYPE_OBJECT,
                                G_TYPE_FLAG_FINAL, {})

static void
anot_test_not_a_method_class_init (AnotTestNotAMethodClass *klass)
{
}

static void
anot_test_not_a_method_class_finalize (AnotTestNotAMethodClass *klass)
{
}

static void
anot_test_not_a_method_init (AnotTestNotAMethod *self)
{
}

G_MODULE_EXPORT void
g_io_module_load (GIOModule *module)
{
  anot_test_not_a_method_register_type (G_TYPE_MODULE (module));
  anot_plugin_implement (ANOT_METHOD_EXTENSION_POINT_NAME,
                         ANOT_TYPE_TEST_NOT_A_METHOD, "test-wrongtype",
                         "Not a method at all");
}

G_MODULE_EXPORT void
g_io_module_unload (GIOModule *module)
{
}
