/* anot-test-empty.c: a GIO module whose load function registers nothing
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <anot/anot.h>

G_MODULE_EXPORT void
g_io_module_load (GIOModule *module)
{
}

G_MODULE_EXPORT void
g_io_module_unload (GIOModule *module)
{
}
