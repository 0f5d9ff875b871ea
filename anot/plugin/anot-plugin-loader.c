/* anot-plugin-loader.c: plugins that load plugins of another language
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "anot-plugin-loader.h"

/**
 * AnotPluginLoader:
 *
 * A plugin that loads plugin files written in another language, the way
 * GStreamer's `libgstpython` loads Python elements and libpeas loads
 * Python plugins: the C core never needs the language's runtime, only
 * the loader does, and only once a file of its kind is found.
 *
 * A loader is a #GIOModule that registers its type with
 * %ANOT_LOADER_EXTENSION_POINT_NAME under the file suffix it loads
 * (`"py"`), with the language's name (`"Python"`) as its description.
 * The registry hands it every file of that suffix it finds on the plugin
 * path, and those `anot-run --plugin` names; what the file registers is
 * recorded as coming from that file in that language (see
 * [method@Anot.Registry.get_origin]).
 */

G_DEFINE_INTERFACE (AnotPluginLoader, anot_plugin_loader, G_TYPE_OBJECT)

static void
anot_plugin_loader_default_init (AnotPluginLoaderInterface *iface)
{
}

/**
 * anot_plugin_loader_load_file:
 * @self: an #AnotPluginLoader
 * @path: the plugin file
 * @error: return location for a #GError
 *
 * Runs the plugin file @path, which registers what it provides with the
 * default [class@Anot.Registry].
 *
 * Returns: %TRUE on success; %FALSE with @error set (the message says
 *   where in the file and why) otherwise
 */
gboolean
anot_plugin_loader_load_file (AnotPluginLoader  *self,
                              const char        *path,
                              GError           **error)
{
  g_return_val_if_fail (ANOT_IS_PLUGIN_LOADER (self), FALSE);
  g_return_val_if_fail (path != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  return ANOT_PLUGIN_LOADER_GET_IFACE (self)->load_file (self, path, error);
}
