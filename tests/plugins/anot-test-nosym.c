/* anot-test-nosym.c: a shared library that is not a GIO module
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <gio/gio.h>

/* Has the unload entry point but not g_io_module_load(): the registry must
 * report it and go on. */

G_MODULE_EXPORT void
g_io_module_unload (GIOModule *module)
{
}
