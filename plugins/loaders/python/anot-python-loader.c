/* anot-python-loader.c: the loader of Python method files
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * This module registers the loader of `.py` files and nothing else; it
 * does not link Python, so a process that has no Python method file never
 * loads the interpreter.  The first file opens anot-python-embed.so, next
 * to this module, which embeds Debian's interpreter (or uses the one of
 * the process, in a Python program) and runs the file.
 */
#include <anot/anot.h>
#include <gmodule.h>

typedef gboolean (*LoadFileFunc) (const char *path, GError **error);

#define ANOT_TYPE_PYTHON_LOADER (anot_python_loader_get_type ())
G_DECLARE_FINAL_TYPE (AnotPythonLoader, anot_python_loader, ANOT, PYTHON_LOADER, GObject)

struct _AnotPythonLoader
{
  GObject parent_instance;
};

static void anot_python_loader_iface_init (AnotPluginLoaderInterface *iface);

G_DEFINE_DYNAMIC_TYPE_EXTENDED (AnotPythonLoader, anot_python_loader, G_TYPE_OBJECT,
                                G_TYPE_FLAG_FINAL,
                                G_IMPLEMENT_INTERFACE_DYNAMIC (ANOT_TYPE_PLUGIN_LOADER,
                                                               anot_python_loader_iface_init))

/* The embedding library, opened once and never closed: the interpreter
 * and the types Python registered live as long as the process. */
static LoadFileFunc
open_embed (GError **error)
{
  static GMutex lock;
  static LoadFileFunc load_file;
  static char *failure;
  LoadFileFunc result;

  g_mutex_lock (&lock);
  if (load_file == NULL && failure == NULL)
    {
      GTypePlugin *plugin = g_type_get_plugin (ANOT_TYPE_PYTHON_LOADER);
      /* The registry names each module after its path. */
      const char *module_path = G_IS_TYPE_MODULE (plugin) ? G_TYPE_MODULE (plugin)->name : NULL;
      g_autofree char *dir = module_path ? g_path_get_dirname (module_path) : g_strdup (".");
      g_autofree char *path = g_build_filename (dir, "anot-python-embed.so", NULL);
      g_autoptr(GError) local_error = NULL;
      GModule *embed;
      gpointer symbol = NULL;

      /* Global, unlike plugin modules: Python's extension modules (gi's
       * _gi.so) find the interpreter's symbols in the global scope. */
      embed = g_module_open_full (path, G_MODULE_BIND_LAZY, &local_error);
      if (embed == NULL)
        failure = g_strdup_printf ("cannot load Python support (%s): %s; the Python library "
                                   "anot was built with must be installed (Debian: libpython3-dev "
                                   "or python3-dev)", path, local_error->message);
      else if (!g_module_symbol (embed, "anot_python_embed_load_file", &symbol) || symbol == NULL)
        failure = g_strdup_printf ("%s does not export anot_python_embed_load_file()", path);
      else
        {
          g_module_make_resident (embed);
          load_file = (LoadFileFunc) symbol;
        }
    }
  result = load_file;
  if (result == NULL)
    g_set_error_literal (error, ANOT_ERROR, ANOT_ERROR_PLUGIN_LOAD, failure);
  g_mutex_unlock (&lock);

  return result;
}

static gboolean
anot_python_loader_load_file (AnotPluginLoader  *loader,
                              const char        *path,
                              GError           **error)
{
  LoadFileFunc load_file = open_embed (error);

  return load_file != NULL && load_file (path, error);
}

static void
anot_python_loader_iface_init (AnotPluginLoaderInterface *iface)
{
  iface->load_file = anot_python_loader_load_file;
}

static void
anot_python_loader_class_init (AnotPythonLoaderClass *klass)
{
}

static void
anot_python_loader_class_finalize (AnotPythonLoaderClass *klass)
{
}

static void
anot_python_loader_init (AnotPythonLoader *self)
{
}

G_MODULE_EXPORT void
g_io_module_load (GIOModule *module)
{
  anot_python_loader_register_type (G_TYPE_MODULE (module));
  anot_plugin_implement (ANOT_LOADER_EXTENSION_POINT_NAME,
                         ANOT_TYPE_PYTHON_LOADER, "py", "Python");
}

G_MODULE_EXPORT void
g_io_module_unload (GIOModule *module)
{
}
