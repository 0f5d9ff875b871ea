/* anot-plugin-loader.h
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#if !defined(ANOT_INSIDE) && !defined(ANOT_COMPILATION)
#error "Only <anot/anot.h> can be included directly."
#endif

#include "anot-visibility.h"

#include <glib-object.h>

G_BEGIN_DECLS

#define ANOT_TYPE_PLUGIN_LOADER (anot_plugin_loader_get_type ())
ANOT_AVAILABLE_IN_ALL
G_DECLARE_INTERFACE (AnotPluginLoader, anot_plugin_loader, ANOT, PLUGIN_LOADER, GObject)

/**
 * AnotPluginLoaderInterface:
 * @load_file: runs one plugin file, which registers its methods (or
 *   backends, attacks, tools) with the default registry
 *
 * The interface of a plugin that loads plugins written in another
 * language (see [class@Anot.Registry]).
 */
struct _AnotPluginLoaderInterface
{
  GTypeInterface g_iface;

  gboolean (*load_file) (AnotPluginLoader  *self,
                         const char        *path,
                         GError           **error);

  /*< private >*/
  gpointer padding[8];
};

ANOT_AVAILABLE_IN_ALL
gboolean anot_plugin_loader_load_file (AnotPluginLoader  *self,
                                       const char        *path,
                                       GError           **error);

G_END_DECLS
