/* anot-registry.c: plugin discovery and lookup
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "anot-registry.h"

#include "anot-data-tool.h"
#include "anot-plugin-loader.h"

#include <gmodule.h>
#include <gio/gio.h>
#include <string.h>

#include "anot-error.h"
#include "anot-registry-private.h"

/**
 * AnotRegistry:
 *
 * The plugins of this process: ranking methods, LLM backends, attacks and
 * tools, each known by a short name ("bm25", "cot", "openai", "typo").
 *
 * Plugins use GIO's extension-point mechanism, the way glib-networking
 * provides TLS backends.  The registry registers four extension points,
 * [const@Anot.METHOD_EXTENSION_POINT_NAME] (implementations must implement
 * [iface@Anot.Method]), [const@Anot.BACKEND_EXTENSION_POINT_NAME],
 * [const@Anot.ATTACK_EXTENSION_POINT_NAME] and
 * [const@Anot.TOOL_EXTENSION_POINT_NAME].  A plugin is a #GIOModule: a
 * shared library named `lib*.so` that exports `g_io_module_load()` and
 * `g_io_module_unload()` (`g_io_module_query()` is allowed but not used).
 * Its load function registers its dynamic types and calls
 * anot_plugin_implement() once per plugin:
 *
 * ```c
 * G_DEFINE_DYNAMIC_TYPE_EXTENDED (MyMethod, my_method, G_TYPE_OBJECT, G_TYPE_FLAG_FINAL,
 *                                 G_IMPLEMENT_INTERFACE_DYNAMIC (ANOT_TYPE_METHOD,
 *                                                                my_method_iface_init))
 *
 * G_MODULE_EXPORT void
 * g_io_module_load (GIOModule *module)
 * {
 *   my_method_register_type (G_TYPE_MODULE (module));
 *   anot_plugin_implement (ANOT_METHOD_EXTENSION_POINT_NAME,
 *                          MY_TYPE_METHOD, "mine",
 *                          "One line saying what the method does");
 * }
 * ```
 *
 * Types must be registered through the #GTypeModule (as
 * G_DEFINE_DYNAMIC_TYPE() does): like GIO, the registry closes the library
 * again once the load function has returned, and the type system reopens it
 * when the first instance is created.
 *
 * The first call to anot_registry_get_default() loads every module found,
 * recursively, in each directory of the `ANOT_PLUGIN_PATH` environment
 * variable (separated by `G_SEARCHPATH_SEPARATOR`, `:` on Unix) and then in
 * the built-in plugin directory: the installed one
 * (`$libdir/anot-1.0/plugins`), or `ANOT_PLUGIN_DIR` if that variable is set
 * (`meson devenv` sets it to the build tree's `plugins/`; the empty string
 * loads nothing built in).  As `GST_PLUGIN_PATH` beside GStreamer's system
 * path, `ANOT_PLUGIN_PATH` adds to the built-in plugins and never replaces
 * them.  Directories are visited in that
 * order and, inside a directory, files before subdirectories, each in name
 * order.  Like a #GIOModuleScope with %G_IO_MODULE_SCOPE_BLOCK_DUPLICATES, a
 * module whose file name was already seen is skipped, so the copy in a
 * developer's `ANOT_PLUGIN_PATH` (for instance the build tree's `plugins/`
 * directory) overrides the installed one, exactly as `GIO_EXTRA_MODULES`
 * overrides GIO's own module directory.
 *
 * A module that cannot be opened, lacks the entry points, or whose load
 * function registers nothing is skipped: it is reported once, as one
 * structured log message at %G_LOG_LEVEL_MESSAGE carrying the fields
 * `ANOT_PLUGIN_MODULE` (its path) and `ANOT_PLUGIN_ERROR` (the reason), and
 * listed by anot_registry_list_failed_modules().  A broken plugin never
 * aborts the process.
 *
 * Plugins need not be written in C.  A loader plugin
 * ([iface@Anot.PluginLoader], registered with
 * %ANOT_LOADER_EXTENSION_POINT_NAME under a file suffix) loads the files
 * of its language: `libanot-python.so` runs the Python method files
 * (`*.py`) found in the same directories, once every module is loaded, in
 * the same order; a file whose name starts with `_` is a helper, not a
 * method file, and is left to the files that import it.  A file that
 * fails to load is reported like a broken module.  What a file registers
 * is recorded as coming from it ([method@Anot.Registry.get_origin]), so
 * `anot-run --list` marks it and an experiment records the file and its
 * SHA-256.  [method@Anot.Registry.load_plugin] loads a file or directory
 * named explicitly (`anot-run --plugin`), reporting failures as errors.
 *
 * When two modules or plugin files offer the same name on the same
 * extension point the first one loaded keeps it and the second is reported
 * as failed, the message naming both files: a method file's `bm25` never
 * quietly stands in for the built-in one.  anot_registry_load_plugin_full()
 * (`anot-run --plugin-override`) lets a file replace names on purpose.
 * Types registered at runtime by the process's own code with
 * anot_registry_register() — a Python class implementing
 * [iface@Anot.Method] in a notebook, for example — replace an earlier type
 * of the same name, so a notebook cell can be run again after an edit.
 *
 * The default registry is created and its modules loaded exactly once
 * (g_once()), the first time anot_registry_get_default() is called from any
 * thread; every method of the registry may then be called from any thread.
 * A module's load function must not call anot_registry_get_default() (it
 * runs while the registry is being created): it calls
 * anot_plugin_implement(), which needs no registry.
 */

/* How deep below a plugin directory modules are looked for: the build tree
 * has plugins/<kind>/<name>/lib*.so, and meson's per-target *.p directories
 * sit one level further down. */
#define MAX_SCAN_DEPTH 6

typedef struct
{
  GType type;
  const char *description; /* interned: callers may keep it forever */
  AnotPluginFlags flags;
  const char *file;        /* interned; NULL when registered outside loading */
  const char *language;    /* interned; NULL for C modules */
  gboolean builtin;        /* the library's own (the data tools) */
} PluginEntry;

/* What one module's g_io_module_load() did, collected by
 * anot_plugin_implement() while the registry loads that module. */
typedef struct
{
  GThread *thread;
  guint n_added;
  GPtrArray *rejections; /* char * */
  const char *file;      /* interned: the module or file being loaded */
  const char *language;  /* interned: the loader's language, NULL for C */
  gboolean builtin;      /* the library registering its own */
  gboolean override;     /* the file may replace names registered elsewhere */
} LoadContext;

struct _AnotRegistry
{
  GObject parent_instance;

  GPtrArray *modules;     /* GIOModule; never released, see load_module() */
  GPtrArray *failed;      /* char *, "path: reason" */
  GPtrArray *search_path; /* char *, directories in load order */
  GHashTable *seen;       /* module file name → its path, first one wins */
  GHashTable *loaded;     /* canonical paths of the files loaded */
  GPtrArray *pending;     /* char *, other files found while scanning */
  gboolean loading_override; /* in anot_registry_load_plugin_full() with override */
};

G_DEFINE_FINAL_TYPE (AnotRegistry, anot_registry, G_TYPE_OBJECT)

enum {
  PROP_0,
  PROP_FAILED_MODULES,
  PROP_SEARCH_PATH,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

static const char * const extension_point_names[] = {
  ANOT_METHOD_EXTENSION_POINT_NAME,
  ANOT_BACKEND_EXTENSION_POINT_NAME,
  ANOT_ATTACK_EXTENSION_POINT_NAME,
  ANOT_TOOL_EXTENSION_POINT_NAME,
  ANOT_LOADER_EXTENSION_POINT_NAME,
};

static void keep_class (GType type);
static gboolean load_plugin (AnotRegistry  *self,
                             const char    *path,
                             GError       **error);

/* Everything below is guarded by plugins_lock.  It lives outside the
 * registry instance because modules register while the instance is still
 * being created. */
static GMutex plugins_lock;
static GHashTable *plugins;        /* point name → (name → PluginEntry) */
static GHashTable *seen_rejections; /* "point\nname\ntype" already reported */
static GHashTable *kept_classes;   /* GType → GTypeClass, see keep_class() */
static GHashTable *method_options; /* method name → GPtrArray of AnotMethodOption */
static GHashTable *method_roles;   /* method name → GStrv of the LLM roles it calls */
static LoadContext *current_load;

static gpointer
register_extension_points (gpointer data)
{
  const GType required[] = {
    ANOT_TYPE_METHOD,
    ANOT_TYPE_BACKEND,
    ANOT_TYPE_ATTACK,
    ANOT_TYPE_TOOL,
    ANOT_TYPE_PLUGIN_LOADER,
  };

  G_STATIC_ASSERT (G_N_ELEMENTS (required) == G_N_ELEMENTS (extension_point_names));

  plugins = g_hash_table_new_full (g_str_hash, g_str_equal, NULL,
                                   (GDestroyNotify) g_hash_table_unref);
  seen_rejections = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  kept_classes = g_hash_table_new (NULL, NULL);

  for (guint i = 0; i < G_N_ELEMENTS (extension_point_names); i++)
    {
      GIOExtensionPoint *point;

      point = g_io_extension_point_register (extension_point_names[i]);
      g_io_extension_point_set_required_type (point, required[i]);
      g_hash_table_insert (plugins, (gpointer) extension_point_names[i],
                           g_hash_table_new_full (g_str_hash, g_str_equal,
                                                  g_free, g_free));
    }

  return NULL;
}

static void
ensure_extension_points (void)
{
  static GOnce once = G_ONCE_INIT;

  g_once (&once, register_extension_points, NULL);
}

/* Must be called with plugins_lock held. */
static guint
count_extensions (void)
{
  guint n = 0;

  for (guint i = 0; i < G_N_ELEMENTS (extension_point_names); i++)
    {
      GIOExtensionPoint *point = g_io_extension_point_lookup (extension_point_names[i]);

      n += g_list_length (g_io_extension_point_get_extensions (point));
    }

  return n;
}

/* Returns NULL on success, else why @type cannot be used as @name. */
static char *
check_implementation (const char *extension_point,
                      GType       type,
                      const char *name)
{
  GIOExtensionPoint *point;
  GType required;

  if (name == NULL || name[0] == '\0')
    return g_strdup_printf ("type %s is registered without a name", g_type_name (type));

  point = g_io_extension_point_lookup (extension_point);
  if (point == NULL || !g_hash_table_contains (plugins, extension_point))
    return g_strdup_printf ("“%s”: unknown extension point “%s”", name, extension_point);

  required = g_io_extension_point_get_required_type (point);
  if (!G_TYPE_IS_OBJECT (type) || G_TYPE_IS_ABSTRACT (type) ||
      !g_type_is_a (type, required))
    return g_strdup_printf ("“%s”: type %s is not an instantiable object implementing %s",
                            name, g_type_name (type) ? g_type_name (type) : "(invalid)",
                            g_type_name (required));

  return NULL;
}

/* Records @type under @name.  Returns NULL on success, else the reason.
 * Must be called with plugins_lock held. */
static char *
add_plugin_locked (const char *extension_point,
                   GType       type,
                   const char *name,
                   const char *description,
                   AnotPluginFlags flags,
                   gboolean    replace)
{
  GHashTable *table;
  PluginEntry *entry;
  char *reason;

  reason = check_implementation (extension_point, type, name);
  if (reason != NULL)
    return reason;

  table = g_hash_table_lookup (plugins, extension_point);
  entry = g_hash_table_lookup (table, name);
  if (entry != NULL && entry->type != type)
    {
      gboolean loading = current_load != NULL && current_load->thread == g_thread_self ();
      /* A name a module, a plugin file or the library gave is another
       * file's to replace only when the user asks (--plugin-override): a
       * method file's bm25 must not quietly stand in for the built-in
       * one.  Code of the process (a notebook cell run again) replaces
       * what it registered before. */
      gboolean has_origin = entry->file != NULL || entry->builtin;
      gboolean same_origin = loading && entry->file == current_load->file;

      if (!replace || (loading && has_origin && !same_origin && !current_load->override))
        {
          g_autofree char *old_origin = entry->file != NULL ? g_strdup (entry->file)
            : entry->builtin ? g_strdup ("the anot library itself")
            : g_strdup_printf ("%s, registered at runtime", g_type_name (entry->type));
          const char *new_origin = loading && current_load->file != NULL ? current_load->file
                                                                         : g_type_name (type);

          return g_strdup_printf ("“%s” (%s) is already provided by %s; %s provides it again "
                                  "and is not used for it (load it with --plugin-override, or "
                                  "Anot.Registry.load_plugin_full(path, True), to replace it)",
                                  name, extension_point, old_origin, new_origin);
        }
    }

  if (entry == NULL || entry->type != type)
    {
      entry = g_new0 (PluginEntry, 1);
      entry->type = type;
      g_hash_table_replace (table, g_strdup (name), entry);
      if (current_load != NULL && current_load->thread == g_thread_self ())
        current_load->n_added++;
    }
  entry->description = g_intern_string (description != NULL ? description : "");
  entry->flags = flags;
  /* A type registered again by code of the process (a notebook cell run
   * again) no longer comes from the file that first registered it. */
  if (current_load != NULL && current_load->thread == g_thread_self ())
    {
      entry->file = current_load->file;
      entry->language = current_load->language;
      entry->builtin = current_load->builtin;
    }
  else if (replace)
    {
      entry->file = NULL;
      entry->language = NULL;
      entry->builtin = FALSE;
    }

  /* GIO keeps the first extension of a type; re-registering one (a module
   * reloaded when its class is needed again) is a no-op. */
  g_io_extension_point_implement (extension_point, type, name, 0);

  return NULL;
}

/* A copy of the entry of @name on @extension_point, taken under
 * plugins_lock: TRUE when there is one.  Without one, *@gio_type is the type
 * GIO holds under @name on a known point (registered around
 * anot_plugin_implement()), G_TYPE_INVALID otherwise. */
static gboolean
get_entry (const char  *extension_point,
           const char  *name,
           PluginEntry *out_entry,
           GType       *gio_type)
{
  GHashTable *table;
  PluginEntry *entry = NULL;

  *gio_type = G_TYPE_INVALID;
  g_mutex_lock (&plugins_lock);
  table = g_hash_table_lookup (plugins, extension_point);
  if (table != NULL)
    entry = g_hash_table_lookup (table, name);
  if (entry != NULL)
    *out_entry = *entry;
  else if (table != NULL)
    {
      GIOExtension *extension;

      extension = g_io_extension_point_get_extension_by_name (g_io_extension_point_lookup (extension_point), name);
      if (extension != NULL)
        *gio_type = g_io_extension_get_type (extension);
    }
  g_mutex_unlock (&plugins_lock);

  return entry != NULL;
}

/**
 * anot_plugin_implement:
 * @extension_point: the extension point, e.g.
 *   %ANOT_METHOD_EXTENSION_POINT_NAME
 * @type: the type implementing it (a #GObject type implementing the
 *   point's interface)
 * @name: the short name users select it by, e.g. "bm25"
 * @description: (nullable): one line saying what it does, shown by
 *   `anot-run --list`
 *
 * Registers @type with @extension_point under @name.  This is what a
 * plugin's `g_io_module_load()` calls for every type it provides; it does
 * not need the registry, and calling it again for the same type (GIO loads
 * a module again when one of its classes is needed after it was unloaded)
 * changes nothing.
 *
 * A registration that cannot be honoured — @type does not implement the
 * point's interface, or @name is already taken by another type — is
 * reported against the module being loaded (see
 * anot_registry_list_failed_modules()) or, outside module loading, by one
 * log message.
 */
void
anot_plugin_implement (const char *extension_point,
                       GType       type,
                       const char *name,
                       const char *description)
{
  anot_plugin_implement_with_flags (extension_point, type, name, description,
                                    ANOT_PLUGIN_FLAGS_NONE);
}

/**
 * anot_plugin_implement_with_flags:
 * @extension_point: the extension point, e.g.
 *   %ANOT_METHOD_EXTENSION_POINT_NAME
 * @type: the type implementing it
 * @name: the short name users select it by
 * @description: (nullable): one line saying what it does
 * @flags: what the plugin declares, e.g. %ANOT_PLUGIN_NEEDS_TRUTH
 *
 * Like anot_plugin_implement(), with @flags.  A method is handed the
 * request's truth only when it declares %ANOT_PLUGIN_NEEDS_TRUTH here.
 */
void
anot_plugin_implement_with_flags (const char      *extension_point,
                                  GType            type,
                                  const char      *name,
                                  const char      *description,
                                  AnotPluginFlags  flags)
{
  g_autofree char *reason = NULL;
  g_autofree char *key = NULL;
  gboolean report = FALSE;

  g_return_if_fail (extension_point != NULL);

  ensure_extension_points ();

  g_mutex_lock (&plugins_lock);
  reason = add_plugin_locked (extension_point, type, name, description, flags, FALSE);
  if (reason != NULL)
    {
      if (current_load != NULL && current_load->thread == g_thread_self ())
        {
          g_ptr_array_add (current_load->rejections, g_strdup (reason));
        }
      else
        {
          key = g_strdup_printf ("%s\n%s\n%s", extension_point,
                                 name ? name : "", g_type_name (type));
          report = g_hash_table_add (seen_rejections, g_steal_pointer (&key));
        }
    }
  g_mutex_unlock (&plugins_lock);

  if (report)
    g_log_structured (G_LOG_DOMAIN, G_LOG_LEVEL_MESSAGE,
                      "ANOT_PLUGIN_ERROR", reason,
                      "MESSAGE", "Plugin not registered with %s: %s",
                      extension_point, reason);
}

/* Whether @method belongs to another file than the one being loaded in
 * this thread: a file whose registration of @method was refused must not
 * change its options or roles either.  With plugins_lock held. */
static gboolean
owned_elsewhere_locked (const char *method)
{
  GHashTable *table = plugins != NULL ? g_hash_table_lookup (plugins, ANOT_METHOD_EXTENSION_POINT_NAME) : NULL;
  PluginEntry *entry = table != NULL ? g_hash_table_lookup (table, method) : NULL;

  return entry != NULL && current_load != NULL && current_load->thread == g_thread_self () &&
         (entry->file != NULL || entry->builtin) && entry->file != current_load->file;
}

/* Replaces what @method declared before (a module loaded again declares
 * the same options again; a notebook cell run again may change them). */
static void
set_method_options (const char *method,
                    GPtrArray  *options)
{
  g_mutex_lock (&plugins_lock);
  if (owned_elsewhere_locked (method))
    {
      g_mutex_unlock (&plugins_lock);
      g_ptr_array_unref (options);
      return;
    }
  if (method_options == NULL)
    method_options = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                            (GDestroyNotify) g_ptr_array_unref);
  g_hash_table_replace (method_options, g_strdup (method), options);
  g_mutex_unlock (&plugins_lock);
}

/**
 * anot_plugin_declare_method_options:
 * @method: the name the method is registered under, e.g. "bm25"
 * @first_option: (nullable) (transfer full): the first option, or %NULL
 *   for a method that takes none
 * @...: more options (transfer full), then %NULL
 *
 * Declares every option @method reads (see [class@Anot.MethodOption]),
 * from a plugin's `g_io_module_load()`, beside its
 * anot_plugin_implement():
 *
 * ```c
 * anot_plugin_declare_method_options ("bm25",
 *   anot_method_option_new_double ("k1", 0, G_MAXDOUBLE, 1.5, "term-frequency saturation"),
 *   anot_method_option_new_double ("b", 0, 1, 0.75, "document-length normalisation"),
 *   NULL);
 * ```
 *
 * Before a run starts, its method options are checked against the
 * declaration; a method that declared nothing takes no option.  The
 * bindings use [method@Anot.Registry.declare_method_options].
 */
void
anot_plugin_declare_method_options (const char       *method,
                                    AnotMethodOption *first_option,
                                    ...)
{
  GPtrArray *options;
  AnotMethodOption *option;
  va_list args;

  g_return_if_fail (method != NULL && method[0] != '\0');

  options = g_ptr_array_new_with_free_func (g_object_unref);
  va_start (args, first_option);
  for (option = first_option; option != NULL; option = va_arg (args, AnotMethodOption *))
    g_ptr_array_add (options, option);
  va_end (args);
  set_method_options (method, options);
}

/**
 * anot_registry_declare_method_options:
 * @self: an #AnotRegistry
 * @method: the name the method is registered under
 * @options: (array length=n_options) (nullable): its options
 * @n_options: the length of @options
 *
 * Declares every option @method reads, replacing an earlier declaration:
 * anot_plugin_declare_method_options() for the bindings (a Python method
 * passes `options=` to `Anot.register_method`).
 */
void
anot_registry_declare_method_options (AnotRegistry      *self,
                                      const char        *method,
                                      AnotMethodOption **options,
                                      guint              n_options)
{
  GPtrArray *array;

  g_return_if_fail (ANOT_IS_REGISTRY (self));
  g_return_if_fail (method != NULL && method[0] != '\0');
  g_return_if_fail (options != NULL || n_options == 0);

  array = g_ptr_array_new_full (n_options, g_object_unref);
  for (guint i = 0; i < n_options; i++)
    {
      g_return_if_fail (ANOT_IS_METHOD_OPTION (options[i]));
      g_ptr_array_add (array, g_object_ref (options[i]));
    }
  set_method_options (method, array);
}

/* The private form: no registry needed (method settings are read by
 * methods, which may run without the default registry). */
GPtrArray *
anot_plugin_list_method_options (const char *method)
{
  GPtrArray *found = NULL;
  GPtrArray *copy = NULL;

  g_mutex_lock (&plugins_lock);
  if (method_options != NULL)
    found = g_hash_table_lookup (method_options, method);
  if (found != NULL)
    {
      copy = g_ptr_array_new_full (found->len, g_object_unref);
      for (guint i = 0; i < found->len; i++)
        g_ptr_array_add (copy, g_object_ref (found->pdata[i]));
    }
  g_mutex_unlock (&plugins_lock);
  return copy;
}

/**
 * anot_registry_list_method_options:
 * @self: an #AnotRegistry
 * @method: a method's name
 *
 * Returns: (transfer container) (element-type AnotMethodOption) (nullable):
 *   the options @method declared, in the order it declared them, or %NULL
 *   when it declared none (then it takes no option)
 */
GPtrArray *
anot_registry_list_method_options (AnotRegistry *self,
                                   const char   *method)
{
  g_return_val_if_fail (ANOT_IS_REGISTRY (self), NULL);
  g_return_val_if_fail (method != NULL, NULL);

  return anot_plugin_list_method_options (method);
}

/* Replaces what @method declared before, like set_method_options(). */
static void
set_method_roles (const char *method,
                  GStrv       roles)
{
  g_mutex_lock (&plugins_lock);
  if (owned_elsewhere_locked (method))
    {
      g_mutex_unlock (&plugins_lock);
      g_strfreev (roles);
      return;
    }
  if (method_roles == NULL)
    method_roles = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                          (GDestroyNotify) g_strfreev);
  g_hash_table_replace (method_roles, g_strdup (method), roles);
  g_mutex_unlock (&plugins_lock);
}

/**
 * anot_plugin_declare_method_roles:
 * @method: the name the method is registered under, e.g. "plan_act"
 * @first_role: (nullable): the first LLM role it calls, or %NULL for a
 *   method that calls no LLM
 * @...: more roles, then %NULL
 *
 * Declares every role @method makes LLM calls for (the @role of
 * anot_method_context_complete_async(), e.g. %ANOT_DEFAULT_ROLE or
 * "planner"), from a plugin's `g_io_module_load()`, beside its
 * anot_plugin_implement():
 *
 * ```c
 * anot_plugin_declare_method_roles ("plan_act", "planner", "executor", NULL);
 * anot_plugin_declare_method_roles ("bm25", NULL);
 * ```
 *
 * Before a run starts, the backend of each declared role is checked
 * ([method@Anot.Experiment.check_api_keys]): a provider's own endpoint
 * without an API key refuses the run before anything is written.  A
 * method that declared nothing is not checked then; its first call is.
 */
void
anot_plugin_declare_method_roles (const char *method,
                                  const char *first_role,
                                  ...)
{
  g_autoptr(GStrvBuilder) builder = g_strv_builder_new ();
  const char *role;
  va_list args;

  g_return_if_fail (method != NULL && method[0] != '\0');

  va_start (args, first_role);
  for (role = first_role; role != NULL; role = va_arg (args, const char *))
    g_strv_builder_add (builder, role);
  va_end (args);
  set_method_roles (method, g_strv_builder_end (builder));
}

/**
 * anot_registry_declare_method_roles:
 * @self: an #AnotRegistry
 * @method: the name the method is registered under
 * @roles: (array zero-terminated=1): the LLM roles it calls; empty for a
 *   method that calls no LLM
 *
 * Declares every role @method makes LLM calls for, replacing an earlier
 * declaration: anot_plugin_declare_method_roles() for the bindings (a
 * Python method passes `roles=` to `Anot.register_method`).
 */
void
anot_registry_declare_method_roles (AnotRegistry       *self,
                                    const char         *method,
                                    const char * const *roles)
{
  g_return_if_fail (ANOT_IS_REGISTRY (self));
  g_return_if_fail (method != NULL && method[0] != '\0');
  g_return_if_fail (roles != NULL);

  set_method_roles (method, g_strdupv ((char **) roles));
}

/**
 * anot_registry_list_method_roles:
 * @self: an #AnotRegistry
 * @method: a method's name
 *
 * Returns: (transfer full) (nullable): the LLM roles @method declared
 *   (empty when it calls no LLM), or %NULL when it declared none: then
 *   which roles it calls is not known
 */
char **
anot_registry_list_method_roles (AnotRegistry *self,
                                 const char   *method)
{
  char **copy = NULL;
  GStrv found = NULL;

  g_return_val_if_fail (ANOT_IS_REGISTRY (self), NULL);
  g_return_val_if_fail (method != NULL, NULL);

  g_mutex_lock (&plugins_lock);
  if (method_roles != NULL)
    found = g_hash_table_lookup (method_roles, method);
  if (found != NULL)
    copy = g_strdupv (found);
  g_mutex_unlock (&plugins_lock);
  return copy;
}

static void
anot_registry_finalize (GObject *object)
{
  AnotRegistry *self = ANOT_REGISTRY (object);

  /* GIOModules that registered types must outlive the type system; only the
   * default registry loads modules and it is never finalized. */
  g_ptr_array_unref (self->failed);
  g_ptr_array_unref (self->search_path);
  g_ptr_array_unref (self->modules);
  g_hash_table_unref (self->seen);
  g_hash_table_unref (self->loaded);
  g_ptr_array_unref (self->pending);

  G_OBJECT_CLASS (anot_registry_parent_class)->finalize (object);
}

static GStrv
strv_from_array (GPtrArray *array)
{
  GStrv strv = g_new0 (char *, array->len + 1);

  for (guint i = 0; i < array->len; i++)
    strv[i] = g_strdup (g_ptr_array_index (array, i));

  return strv;
}

static void
anot_registry_get_property (GObject    *object,
                            guint       prop_id,
                            GValue     *value,
                            GParamSpec *pspec)
{
  AnotRegistry *self = ANOT_REGISTRY (object);

  switch (prop_id)
    {
    case PROP_FAILED_MODULES:
      g_value_take_boxed (value, strv_from_array (self->failed));
      break;
    case PROP_SEARCH_PATH:
      g_value_take_boxed (value, strv_from_array (self->search_path));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
anot_registry_class_init (AnotRegistryClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = anot_registry_finalize;
  object_class->get_property = anot_registry_get_property;

  /**
   * AnotRegistry:failed-modules:
   *
   * The modules that could not be loaded, as "path: reason"; the same list
   * as anot_registry_list_failed_modules().
   */
  properties[PROP_FAILED_MODULES] =
    g_param_spec_boxed ("failed-modules", NULL, NULL, G_TYPE_STRV,
                        G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  /**
   * AnotRegistry:search-path:
   *
   * The directories modules were looked for in, in the order they were
   * scanned (each recursively): `ANOT_PLUGIN_PATH`, then the installed
   * plugin directory.
   */
  properties[PROP_SEARCH_PATH] =
    g_param_spec_boxed ("search-path", NULL, NULL, G_TYPE_STRV,
                        G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);

  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
anot_registry_init (AnotRegistry *self)
{
  self->modules = g_ptr_array_new_with_free_func (g_object_unref);
  self->failed = g_ptr_array_new_with_free_func (g_free);
  self->search_path = g_ptr_array_new_with_free_func (g_free);
  self->seen = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  self->loaded = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  self->pending = g_ptr_array_new_with_free_func (g_free);
}

static void
report_failed_module (AnotRegistry *self,
                      const char   *path,
                      const char   *reason)
{
  g_ptr_array_add (self->failed, g_strdup_printf ("%s: %s", path, reason));
  g_log_structured (G_LOG_DOMAIN, G_LOG_LEVEL_MESSAGE,
                    "ANOT_PLUGIN_MODULE", path,
                    "ANOT_PLUGIN_ERROR", reason,
                    "MESSAGE", "Plugin module %s not loaded: %s", path, reason);
}

static gboolean
is_module_file_name (const char *basename)
{
  /* The names GIO's own module loader accepts. */
#if defined(G_OS_WIN32) || defined(G_WITH_CYGWIN)
  return g_str_has_suffix (basename, ".dll");
#else
  return g_str_has_prefix (basename, "lib") && g_str_has_suffix (basename, ".so");
#endif
}

/* Loads the GIO module at @path.  Returns NULL when it registered
 * something (and nothing was refused), else why not. */
static char *
load_module (AnotRegistry *self,
             const char   *path,
             const char   *basename)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) rejections = NULL;
  g_autofree char *reason = NULL;
  LoadContext context = { 0 };
  GModule *library;
  GIOModule *module;
  gpointer symbol;
  guint n_before, n_after;
  gboolean used;

  /* GIO's loader only prints why a module failed; open it here first so the
   * reason can be recorded.  The handle stays open until GIO has run the
   * module, so GIO reuses it instead of opening the file a second time. */
  library = g_module_open_full (path, G_MODULE_BIND_LAZY | G_MODULE_BIND_LOCAL, &error);
  if (library == NULL)
    {
      const char *message = error->message;

      /* dlerror() usually starts with the path already. */
      if (g_str_has_prefix (message, path) && g_str_has_prefix (message + strlen (path), ": "))
        message += strlen (path) + 2;
      return g_strdup (message);
    }

  if (!g_module_symbol (library, "g_io_module_load", &symbol) || symbol == NULL)
    {
      g_module_close (library);
      return g_strdup ("not a GIO module: it does not export g_io_module_load()");
    }
  if (!g_module_symbol (library, "g_io_module_unload", &symbol) || symbol == NULL)
    {
      g_module_close (library);
      return g_strdup ("not a GIO module: it does not export g_io_module_unload()");
    }

  module = g_io_module_new (path);
  g_type_module_set_name (G_TYPE_MODULE (module), path);
  /* Kept even when it fails: it may have registered types, and a
   * GTypeModule with types must never be finalized. */
  g_ptr_array_add (self->modules, module);

  rejections = g_ptr_array_new_with_free_func (g_free);
  context.thread = g_thread_self ();
  context.rejections = rejections;
  context.file = g_intern_string (path);
  context.override = self->loading_override;

  g_mutex_lock (&plugins_lock);
  n_before = count_extensions ();
  current_load = &context;
  g_mutex_unlock (&plugins_lock);

  used = g_type_module_use (G_TYPE_MODULE (module));

  g_mutex_lock (&plugins_lock);
  current_load = NULL;
  n_after = count_extensions ();
  g_mutex_unlock (&plugins_lock);

  if (rejections->len > 0)
    {
      g_ptr_array_add (rejections, NULL);
      reason = g_strjoinv ("; ", (char **) rejections->pdata);
    }

  if (!used)
    {
      g_clear_pointer (&reason, g_free);
      reason = g_strdup ("its types could not be registered");
    }
  else
    {
      if (context.n_added == 0 && n_after == n_before)
        {
          char *message = g_strdup_printf ("g_io_module_load() registered no plugin%s%s",
                                           reason ? ": " : "", reason ? reason : "");

          g_free (reason);
          reason = message;
        }

      /* As GIO does after loading: the library is closed again until one of
       * its classes is needed. */
      g_type_module_unuse (G_TYPE_MODULE (module));
    }

  g_module_close (library);
  return g_steal_pointer (&reason);
}

/* The suffix a loader would be registered under: "py" for "x.py". */
static const char *
file_suffix (const char *basename)
{
  const char *dot = strrchr (basename, '.');

  return dot != NULL && dot != basename ? dot + 1 : NULL;
}

/* Runs the plugin file @path through the loader of its suffix.  Returns
 * NULL on success, else why not; *@no_loader is set when no loader takes
 * files of that suffix. */
static char *
load_plugin_file (AnotRegistry *self,
                  const char   *path,
                  gboolean     *no_loader)
{
  g_autoptr(GObject) loader = NULL;
  g_autoptr(GError) error = NULL;
  const char *suffix = file_suffix (path);
  LoadContext context = { 0 };
  GType type = G_TYPE_INVALID;
  gboolean ok;

  *no_loader = FALSE;
  if (suffix != NULL)
    type = anot_registry_lookup_type (self, ANOT_LOADER_EXTENSION_POINT_NAME, suffix);
  if (type == G_TYPE_INVALID)
    {
      *no_loader = TRUE;
      if (g_strcmp0 (suffix, "py") == 0)
        {
          g_autofree char *dirs = NULL;

          g_ptr_array_add (self->search_path, NULL);
          dirs = g_strjoinv (", ", (char **) self->search_path->pdata);
          g_ptr_array_set_size (self->search_path, self->search_path->len - 1);
          /* Name the directories: a plugin path that left out the
           * built-in one is a likelier cause than the build. */
          return g_strdup_printf ("Python method files need the Python loader plugin "
                                  "(libanot-python.so), which is in none of the plugin "
                                  "directories searched (%s): the built-in directory is "
                                  "ANOT_PLUGIN_DIR or the installed one; or anot was built "
                                  "without python3-embed (Debian: apt install python3-dev)",
                                  dirs[0] != '\0' ? dirs : "none");
        }
      return g_strdup_printf ("no loader plugin takes .%s files", suffix ? suffix : "(no suffix)");
    }

  keep_class (type);
  loader = g_object_new (type, NULL);

  context.thread = g_thread_self ();
  context.rejections = g_ptr_array_new_with_free_func (g_free);
  context.file = g_intern_string (path);
  context.language = g_intern_string (anot_registry_get_description (self, ANOT_LOADER_EXTENSION_POINT_NAME,
                                                                     suffix));
  context.override = self->loading_override;

  /* Not under plugins_lock: the file registers through the registry. */
  g_mutex_lock (&plugins_lock);
  current_load = &context;
  g_mutex_unlock (&plugins_lock);

  ok = anot_plugin_loader_load_file (ANOT_PLUGIN_LOADER (loader), path, &error);

  g_mutex_lock (&plugins_lock);
  current_load = NULL;
  g_mutex_unlock (&plugins_lock);

  if (!ok)
    {
      g_ptr_array_unref (context.rejections);
      return g_strdup (error->message);
    }
  if (context.rejections->len > 0)
    {
      g_ptr_array_add (context.rejections, NULL);
      return g_strjoinv ("; ", (char **) g_ptr_array_free (context.rejections, FALSE));
    }
  g_ptr_array_unref (context.rejections);
  if (context.n_added == 0)
    return g_strdup_printf ("it registered no method, backend, attack or tool "
                            "(decorate a class with @Anot.register_method(\"name\"))");
  return NULL;
}

static int
compare_strings (gconstpointer a,
                 gconstpointer b)
{
  return strcmp (*(const char * const *) a, *(const char * const *) b);
}

/* Loads the modules under @dirname and adds its other files to
 * self->pending, for the loaders once every module is loaded.  Failures
 * go to @failures ("path: reason") when given, else are reported. */
static void
scan_directory (AnotRegistry *self,
                const char   *dirname,
                guint         depth,
                GPtrArray    *failures)
{
  g_autoptr(GPtrArray) names = NULL;
  g_autoptr(GPtrArray) subdirs = NULL;
  const char *name;
  GDir *dir;

  dir = g_dir_open (dirname, 0, NULL);
  if (dir == NULL)
    return;

  names = g_ptr_array_new_with_free_func (g_free);
  while ((name = g_dir_read_name (dir)) != NULL)
    if (name[0] != '.')
      g_ptr_array_add (names, g_strdup (name));
  g_dir_close (dir);
  g_ptr_array_sort (names, compare_strings);

  subdirs = g_ptr_array_new_with_free_func (g_free);
  for (guint i = 0; i < names->len; i++)
    {
      const char *basename = g_ptr_array_index (names, i);
      g_autofree char *path = g_build_filename (dirname, basename, NULL);

      if (g_file_test (path, G_FILE_TEST_IS_DIR))
        {
          /* Python's byte-code caches hold no method files. */
          if (strcmp (basename, "__pycache__") != 0)
            g_ptr_array_add (subdirs, g_steal_pointer (&path));
        }
      else if (is_module_file_name (basename))
        {
          g_autofree char *canonical = g_canonicalize_filename (path, NULL);
          g_autofree char *reason = NULL;

          /* GIOModuleScope's G_IO_MODULE_SCOPE_BLOCK_DUPLICATES rule: the
           * first file of a name wins, even when it turns out to be broken,
           * so a broken development copy is reported rather than silently
           * replaced. */
          if (g_hash_table_contains (self->loaded, canonical) ||
              !g_hash_table_insert (self->seen, g_strdup (basename), g_strdup (path)))
            {
              g_debug ("Skipping %s: a module named %s was already seen", path, basename);
              continue;
            }
          g_hash_table_add (self->loaded, g_steal_pointer (&canonical));
          reason = load_module (self, path, basename);
          if (reason != NULL && failures != NULL)
            g_ptr_array_add (failures, g_strdup_printf ("%s: %s", path, reason));
          else if (reason != NULL)
            report_failed_module (self, path, reason);
        }
      else if (basename[0] != '_' && file_suffix (basename) != NULL)
        g_ptr_array_add (self->pending, g_steal_pointer (&path));
    }

  if (depth < MAX_SCAN_DEPTH)
    for (guint i = 0; i < subdirs->len; i++)
      scan_directory (self, g_ptr_array_index (subdirs, i), depth + 1, failures);
}

/* Hands the files scanning found to their loaders, in the order found.
 * Files no loader takes are not plugins (READMEs, object files), except
 * Python files, which are reported: they are surely meant as methods. */
static guint
load_pending_files (AnotRegistry *self,
                    GPtrArray    *failures)
{
  g_autoptr(GPtrArray) pending = g_steal_pointer (&self->pending);
  guint n_loaded = 0;

  self->pending = g_ptr_array_new_with_free_func (g_free);
  for (guint i = 0; i < pending->len; i++)
    {
      const char *path = g_ptr_array_index (pending, i);
      g_autofree char *canonical = g_canonicalize_filename (path, NULL);
      g_autofree char *reason = NULL;
      gboolean no_loader;

      if (g_hash_table_contains (self->loaded, canonical))
        continue;
      reason = load_plugin_file (self, path, &no_loader);
      if (no_loader && !g_str_has_suffix (path, ".py"))
        continue;
      g_hash_table_add (self->loaded, g_steal_pointer (&canonical));
      if (reason == NULL)
        n_loaded++;
      else if (failures != NULL)
        g_ptr_array_add (failures, g_strdup_printf ("%s: %s", path, reason));
      else
        report_failed_module (self, path, reason);
    }
  return n_loaded;
}

static void
add_search_directory (AnotRegistry *self,
                      const char   *dirname)
{
  g_autofree char *canonical = NULL;

  if (dirname == NULL || dirname[0] == '\0')
    return;

  canonical = g_canonicalize_filename (dirname, NULL);
  for (guint i = 0; i < self->search_path->len; i++)
    if (g_str_equal (g_ptr_array_index (self->search_path, i), canonical))
      return;

  g_ptr_array_add (self->search_path, g_steal_pointer (&canonical));
}

static void
anot_registry_load_modules (AnotRegistry *self)
{
  const char *plugin_path;
  const char *plugin_dir;

  plugin_path = g_getenv ("ANOT_PLUGIN_PATH");
  if (plugin_path != NULL)
    {
      g_auto(GStrv) dirs = g_strsplit (plugin_path, G_SEARCHPATH_SEPARATOR_S, -1);

      for (guint i = 0; dirs[i] != NULL; i++)
        add_search_directory (self, dirs[i]);
    }

  plugin_dir = g_getenv ("ANOT_PLUGIN_DIR");
  add_search_directory (self, plugin_dir != NULL ? plugin_dir : ANOT_PLUGINDIR);

  if (!g_module_supported ())
    return;

  for (guint i = 0; i < self->search_path->len; i++)
    scan_directory (self, g_ptr_array_index (self->search_path, i), 0, NULL);
}

static gpointer
create_default_registry (gpointer data)
{
  LoadContext builtin_context = { 0 };
  AnotRegistry *self;

  ensure_extension_points ();
  self = g_object_new (ANOT_TYPE_REGISTRY, NULL);
  /* The core's own tools, before the modules so a plugin cannot take
   * their names. */
  builtin_context.thread = g_thread_self ();
  builtin_context.rejections = g_ptr_array_new_with_free_func (g_free);
  builtin_context.builtin = TRUE;
  g_mutex_lock (&plugins_lock);
  current_load = &builtin_context;
  g_mutex_unlock (&plugins_lock);
  anot_data_tool_register_builtin ();
  g_mutex_lock (&plugins_lock);
  current_load = NULL;
  g_mutex_unlock (&plugins_lock);
  g_assert (builtin_context.rejections->len == 0);
  g_ptr_array_unref (builtin_context.rejections);
  anot_registry_load_modules (self);

  return self;
}

/**
 * anot_registry_get_default:
 *
 * Returns the registry of this process, creating it and loading every
 * plugin module on the first call (once, whichever thread calls first).
 *
 * Returns: (transfer none): the default registry
 */
AnotRegistry *
anot_registry_get_default (void)
{
  static GOnce once = G_ONCE_INIT;
  static GRecMutex files_lock;
  static gboolean files_loading;
  AnotRegistry *self;

  g_once (&once, create_default_registry, NULL);
  self = once.retval;

  /* Plugin files are run after the g_once(): a Python file registers its
   * methods through this function, which must then return the registry
   * (the thread loading them gets it, files still loading; other threads
   * wait for them). */
  g_rec_mutex_lock (&files_lock);
  if (!files_loading)
    {
      files_loading = TRUE;
      load_pending_files (self, NULL);
    }
  g_rec_mutex_unlock (&files_lock);

  return self;
}

/**
 * anot_registry_load_plugin:
 * @self: an #AnotRegistry
 * @path: a plugin module (`.so`), a plugin file of a loader (a Python
 *   method file, `.py`), or a directory of them (searched recursively)
 * @error: return location for a #GError
 *
 * Loads the plugins at @path, as `anot-run --plugin` does, after the
 * plugin path.  A file already loaded is not loaded again.  Unlike the
 * plugin path, whose broken modules are only reported, any file that
 * cannot be loaded is an error here, and so is a file that registers a
 * name another module, file or the library already gave (the error names
 * both); anot_registry_load_plugin_full() lets it replace them.
 *
 * Errors: %ANOT_ERROR_PLUGIN_LOAD naming each file that failed and why
 * (for a Python file, the line and exception), or when @path holds no
 * plugin.
 *
 * Returns: %TRUE when everything at @path loaded
 */
gboolean
anot_registry_load_plugin (AnotRegistry  *self,
                           const char    *path,
                           GError       **error)
{
  return anot_registry_load_plugin_full (self, path, FALSE, error);
}

/**
 * anot_registry_load_plugin_full:
 * @self: an #AnotRegistry
 * @path: as for anot_registry_load_plugin()
 * @override: whether the plugins at @path may replace names already
 *   registered (`anot-run --plugin-override`)
 * @error: return location for a #GError
 *
 * Like anot_registry_load_plugin(); with @override, a name the plugins at
 * @path register replaces the one a module, another file or the library
 * gave, and anot_registry_get_origin() names @path's file for it.
 *
 * Returns: %TRUE when everything at @path loaded
 */
gboolean
anot_registry_load_plugin_full (AnotRegistry  *self,
                                const char    *path,
                                gboolean       override,
                                GError       **error)
{
  gboolean was = self->loading_override;
  gboolean ok;

  g_return_val_if_fail (ANOT_IS_REGISTRY (self), FALSE);

  self->loading_override = override;
  ok = load_plugin (self, path, error);
  self->loading_override = was;
  return ok;
}

static gboolean
load_plugin (AnotRegistry  *self,
             const char    *path,
             GError       **error)
{
  g_autoptr(GPtrArray) failures = NULL;
  g_autofree char *canonical = NULL;
  g_autofree char *basename = NULL;
  guint n_modules = self->modules->len;
  guint n_loaded = 0;

  g_return_val_if_fail (ANOT_IS_REGISTRY (self), FALSE);
  g_return_val_if_fail (path != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  canonical = g_canonicalize_filename (path, NULL);
  basename = g_path_get_basename (canonical);
  failures = g_ptr_array_new_with_free_func (g_free);

  if (g_file_test (canonical, G_FILE_TEST_IS_DIR))
    {
      guint n_failed;

      scan_directory (self, canonical, 0, failures);
      n_failed = failures->len;
      n_loaded = load_pending_files (self, failures) + self->modules->len - n_modules;
      if (n_loaded == 0 && failures->len == 0 && n_failed == 0)
        {
          g_set_error (error, ANOT_ERROR, ANOT_ERROR_PLUGIN_LOAD,
                       "%s: no plugin (lib*.so module or Python method file) in this directory",
                       path);
          return FALSE;
        }
    }
  else if (!g_file_test (canonical, G_FILE_TEST_EXISTS))
    {
      g_set_error (error, ANOT_ERROR, ANOT_ERROR_PLUGIN_LOAD,
                   "%s: no such file or directory", path);
      return FALSE;
    }
  else if (g_hash_table_contains (self->loaded, canonical))
    {
      return TRUE;
    }
  else if (g_str_has_suffix (basename, ".so"))
    {
      const char *other = g_hash_table_lookup (self->seen, basename);
      g_autofree char *reason = NULL;

      if (other != NULL)
        {
          g_set_error (error, ANOT_ERROR, ANOT_ERROR_PLUGIN_LOAD,
                       "%s: a module of the same file name was already loaded from %s",
                       path, other);
          return FALSE;
        }
      g_hash_table_insert (self->seen, g_strdup (basename), g_strdup (canonical));
      g_hash_table_add (self->loaded, g_strdup (canonical));
      reason = load_module (self, canonical, basename);
      if (reason != NULL)
        g_ptr_array_add (failures, g_strdup_printf ("%s: %s", path, reason));
    }
  else
    {
      g_autofree char *reason = NULL;
      gboolean no_loader;

      g_hash_table_add (self->loaded, g_strdup (canonical));
      reason = load_plugin_file (self, canonical, &no_loader);
      if (reason != NULL)
        {
          g_hash_table_remove (self->loaded, canonical);
          if (no_loader && !g_str_has_suffix (basename, ".py"))
            g_ptr_array_add (failures, g_strdup_printf ("%s: not a plugin: expected a module "
                                                        "(.so) or a Python method file (.py)",
                                                        path));
          else
            g_ptr_array_add (failures, g_strdup_printf ("%s: %s", path, reason));
        }
    }

  if (failures->len > 0)
    {
      for (guint i = 0; i < failures->len; i++)
        g_ptr_array_add (self->failed, g_strdup (g_ptr_array_index (failures, i)));
      g_ptr_array_add (failures, NULL);
      g_set_error (error, ANOT_ERROR, ANOT_ERROR_PLUGIN_LOAD,
                   "cannot load the plugin %s",
                   (char *) g_ptr_array_index (failures, 0));
      if (failures->len > 2)
        {
          g_autofree char *all = g_strjoinv ("; ", (char **) failures->pdata);

          g_clear_error (error);
          g_set_error (error, ANOT_ERROR, ANOT_ERROR_PLUGIN_LOAD,
                       "cannot load the plugins %s", all);
        }
      return FALSE;
    }
  return TRUE;
}

/**
 * anot_registry_get_origin:
 * @self: an #AnotRegistry
 * @extension_point: the extension point
 * @name: a registered name
 * @language: (out) (optional) (nullable) (transfer none): the language of
 *   the file, as its loader names it (`"Python"`), or %NULL for a C module
 *
 * Where @name came from: the module or plugin file whose loading
 * registered it.
 *
 * Returns: (nullable) (transfer none): the file's path, or %NULL for a
 *   type registered at runtime (anot_registry_register() outside a plugin
 *   file) or an unknown name.  The string stays valid for the life of the
 *   process.
 */
const char *
anot_registry_get_origin (AnotRegistry  *self,
                          const char    *extension_point,
                          const char    *name,
                          const char   **language)
{
  PluginEntry entry = { 0 };
  GType gio_type;

  g_return_val_if_fail (ANOT_IS_REGISTRY (self), NULL);
  g_return_val_if_fail (extension_point != NULL, NULL);
  g_return_val_if_fail (name != NULL, NULL);

  get_entry (extension_point, name, &entry, &gio_type);
  if (language != NULL)
    *language = entry.language;
  return entry.file;
}

/**
 * anot_registry_register:
 * @self: an #AnotRegistry
 * @extension_point: the extension point, e.g.
 *   %ANOT_METHOD_EXTENSION_POINT_NAME
 * @type: the type implementing it
 * @name: the short name to register it under
 * @description: (nullable): one line saying what it does
 *
 * Registers a type created at runtime — a Python class implementing
 * [iface@Anot.Method], say — so it can be created by name like a plugin.
 * Unlike anot_plugin_implement(), a type already registered under @name is
 * replaced.
 */
void
anot_registry_register (AnotRegistry *self,
                        const char   *extension_point,
                        GType         type,
                        const char   *name,
                        const char   *description)
{
  anot_registry_register_with_flags (self, extension_point, type, name, description,
                                     ANOT_PLUGIN_FLAGS_NONE);
}

/**
 * anot_registry_register_with_flags:
 * @self: an #AnotRegistry
 * @extension_point: the extension point, e.g.
 *   %ANOT_METHOD_EXTENSION_POINT_NAME
 * @type: the type implementing it
 * @name: the short name to register it under
 * @description: (nullable): one line saying what it does
 * @flags: what the plugin declares, e.g. %ANOT_PLUGIN_NEEDS_TRUTH
 *
 * Like anot_registry_register(), with @flags.
 */
void
anot_registry_register_with_flags (AnotRegistry    *self,
                                   const char      *extension_point,
                                   GType            type,
                                   const char      *name,
                                   const char      *description,
                                   AnotPluginFlags  flags)
{
  g_autofree char *reason = NULL;

  g_return_if_fail (ANOT_IS_REGISTRY (self));
  g_return_if_fail (extension_point != NULL);
  g_return_if_fail (name != NULL && name[0] != '\0');

  g_mutex_lock (&plugins_lock);
  reason = add_plugin_locked (extension_point, type, name, description, flags, TRUE);
  /* A plugin file being loaded fails with the reason. */
  if (reason != NULL && current_load != NULL && current_load->thread == g_thread_self ())
    g_ptr_array_add (current_load->rejections, g_steal_pointer (&reason));
  g_mutex_unlock (&plugins_lock);

  if (reason != NULL)
    g_critical ("Cannot register %s with %s: %s", g_type_name (type),
                extension_point, reason);
}

/**
 * anot_registry_list:
 * @self: an #AnotRegistry
 * @extension_point: the extension point, e.g.
 *   %ANOT_METHOD_EXTENSION_POINT_NAME
 *
 * Lists the names registered with @extension_point, including
 * implementations that called g_io_extension_point_implement() directly.
 *
 * Returns: (transfer full) (array zero-terminated=1): the names, sorted;
 *   empty for an unknown extension point
 */
char **
anot_registry_list (AnotRegistry *self,
                    const char   *extension_point)
{
  g_autoptr(GHashTable) names = NULL;
  g_autoptr(GPtrArray) sorted = NULL;
  GIOExtensionPoint *point;
  GHashTable *table;
  GHashTableIter iter;
  gpointer key;

  g_return_val_if_fail (ANOT_IS_REGISTRY (self), NULL);
  g_return_val_if_fail (extension_point != NULL, NULL);

  names = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);

  /* GIO's extension lists are read under our lock too: the registry is what
   * adds to them, and GIO does not lock readers. */
  g_mutex_lock (&plugins_lock);
  table = g_hash_table_lookup (plugins, extension_point);
  if (table != NULL)
    {
      g_hash_table_iter_init (&iter, table);
      while (g_hash_table_iter_next (&iter, &key, NULL))
        g_hash_table_add (names, g_strdup (key));

      point = g_io_extension_point_lookup (extension_point);
      for (GList *l = g_io_extension_point_get_extensions (point); l != NULL; l = l->next)
        g_hash_table_add (names, g_strdup (g_io_extension_get_name (l->data)));
    }
  g_mutex_unlock (&plugins_lock);

  sorted = g_ptr_array_new_full (g_hash_table_size (names) + 1, g_free);
  g_hash_table_iter_init (&iter, names);
  while (g_hash_table_iter_next (&iter, &key, NULL))
    {
      g_hash_table_iter_steal (&iter);
      g_ptr_array_add (sorted, key);
    }
  g_ptr_array_sort (sorted, compare_strings);
  g_ptr_array_add (sorted, NULL);

  return (char **) g_ptr_array_free (g_steal_pointer (&sorted), FALSE);
}

/**
 * anot_registry_get_description:
 * @self: an #AnotRegistry
 * @extension_point: the extension point
 * @name: a registered name
 *
 * Returns: (nullable) (transfer none): the one-line description @name was
 *   registered with (empty if it has none), or %NULL if nothing of that
 *   name is registered.  The string stays valid for the life of the process.
 */
const char *
anot_registry_get_description (AnotRegistry *self,
                               const char   *extension_point,
                               const char   *name)
{
  PluginEntry entry;
  GType gio_type;

  g_return_val_if_fail (ANOT_IS_REGISTRY (self), NULL);
  g_return_val_if_fail (extension_point != NULL, NULL);
  g_return_val_if_fail (name != NULL, NULL);

  if (get_entry (extension_point, name, &entry, &gio_type))
    return entry.description;
  return gio_type != G_TYPE_INVALID ? "" : NULL;
}

/**
 * anot_registry_get_flags:
 * @self: an #AnotRegistry
 * @extension_point: the extension point
 * @name: a registered name
 *
 * Returns: the flags @name was registered with; %ANOT_PLUGIN_FLAGS_NONE
 *   when it declared none or nothing of that name is registered
 */
AnotPluginFlags
anot_registry_get_flags (AnotRegistry *self,
                         const char   *extension_point,
                         const char   *name)
{
  PluginEntry entry = { 0 };
  GType gio_type;

  g_return_val_if_fail (ANOT_IS_REGISTRY (self), ANOT_PLUGIN_FLAGS_NONE);
  g_return_val_if_fail (extension_point != NULL, ANOT_PLUGIN_FLAGS_NONE);
  g_return_val_if_fail (name != NULL, ANOT_PLUGIN_FLAGS_NONE);

  get_entry (extension_point, name, &entry, &gio_type);
  return entry.flags;
}

/**
 * anot_registry_lookup_type:
 * @self: an #AnotRegistry
 * @extension_point: the extension point
 * @name: a registered name
 *
 * Returns: the type registered under @name, or %G_TYPE_INVALID
 */
GType
anot_registry_lookup_type (AnotRegistry *self,
                           const char   *extension_point,
                           const char   *name)
{
  PluginEntry entry;
  GType gio_type;

  g_return_val_if_fail (ANOT_IS_REGISTRY (self), G_TYPE_INVALID);
  g_return_val_if_fail (extension_point != NULL, G_TYPE_INVALID);
  g_return_val_if_fail (name != NULL, G_TYPE_INVALID);

  if (get_entry (extension_point, name, &entry, &gio_type))
    return entry.type;
  return gio_type;
}

/**
 * anot_registry_list_failed_modules:
 * @self: an #AnotRegistry
 *
 * Lists the plugin modules that were skipped, each as "path: reason", in
 * the order they were found.  A module that loaded but had one of its
 * registrations refused is listed too.
 *
 * Returns: (transfer full) (array zero-terminated=1): the failed modules
 */
char **
anot_registry_list_failed_modules (AnotRegistry *self)
{
  g_return_val_if_fail (ANOT_IS_REGISTRY (self), NULL);

  return strv_from_array (self->failed);
}

/* A module is unloaded whenever the last instance of its last class goes
 * away and loaded again for the next one.  Methods are created once per run
 * or per request; keeping their class alive avoids reopening the library
 * each time (and resetting the module's static state). */
static void
keep_class (GType type)
{
  gpointer klass;
  gboolean kept;

  g_mutex_lock (&plugins_lock);
  kept = g_hash_table_contains (kept_classes, GSIZE_TO_POINTER (type));
  g_mutex_unlock (&plugins_lock);
  if (kept)
    return;

  /* Outside the lock: referencing the class may load the module, whose
   * load function calls anot_plugin_implement(). */
  klass = g_type_class_ref (type);

  g_mutex_lock (&plugins_lock);
  kept = !g_hash_table_insert (kept_classes, GSIZE_TO_POINTER (type), klass);
  g_mutex_unlock (&plugins_lock);

  /* Another thread won the race and holds its own reference. */
  if (kept)
    g_type_class_unref (klass);
}

static gpointer
create_plugin (AnotRegistry  *self,
               const char    *extension_point,
               const char    *kind,
               const char    *name,
               GError       **error)
{
  GType type;

  type = anot_registry_lookup_type (self, extension_point, name);
  if (type == G_TYPE_INVALID)
    {
      g_auto(GStrv) names = anot_registry_list (self, extension_point);
      g_autofree char *available = NULL;

      available = names[0] != NULL ? g_strjoinv (", ", names) : g_strdup ("none");
      g_set_error (error, ANOT_ERROR, ANOT_ERROR_PLUGIN_NOT_FOUND,
                   "No %s named “%s” (available: %s)", kind, name, available);
      return NULL;
    }

  keep_class (type);
  return g_object_new (type, NULL);
}

/**
 * anot_registry_create_method:
 * @self: an #AnotRegistry
 * @name: the method's name, e.g. "bm25"
 * @error: return location for a #GError
 *
 * Creates an instance of the method registered under @name.  If there is
 * none, fails with %ANOT_ERROR_PLUGIN_NOT_FOUND and a message listing the
 * methods available.
 *
 * Returns: (transfer full) (nullable): a new method, or %NULL with @error set
 */
AnotMethod *
anot_registry_create_method (AnotRegistry  *self,
                             const char    *name,
                             GError       **error)
{
  g_return_val_if_fail (ANOT_IS_REGISTRY (self), NULL);
  g_return_val_if_fail (name != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  return create_plugin (self, ANOT_METHOD_EXTENSION_POINT_NAME, "method", name, error);
}

/**
 * anot_registry_create_backend:
 * @self: an #AnotRegistry
 * @name: the backend's name, e.g. "openai"
 * @error: return location for a #GError
 *
 * Creates an instance of the backend registered under @name.  If there is
 * none, fails with %ANOT_ERROR_PLUGIN_NOT_FOUND and a message listing the
 * backends available.
 *
 * Returns: (transfer full) (nullable): a new backend, or %NULL with @error set
 */
AnotBackend *
anot_registry_create_backend (AnotRegistry  *self,
                              const char    *name,
                              GError       **error)
{
  g_return_val_if_fail (ANOT_IS_REGISTRY (self), NULL);
  g_return_val_if_fail (name != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  return create_plugin (self, ANOT_BACKEND_EXTENSION_POINT_NAME, "backend", name, error);
}

/**
 * anot_registry_create_attack:
 * @self: an #AnotRegistry
 * @name: the attack's name, e.g. "typo"
 * @error: return location for a #GError
 *
 * Creates an instance of the attack registered under @name.  If there is
 * none, fails with %ANOT_ERROR_PLUGIN_NOT_FOUND and a message listing the
 * attacks available.
 *
 * Returns: (transfer full) (nullable): a new attack, or %NULL with @error set
 */
AnotAttack *
anot_registry_create_attack (AnotRegistry  *self,
                             const char    *name,
                             GError       **error)
{
  g_return_val_if_fail (ANOT_IS_REGISTRY (self), NULL);
  g_return_val_if_fail (name != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  return create_plugin (self, ANOT_ATTACK_EXTENSION_POINT_NAME, "attack", name, error);
}

/**
 * anot_registry_create_tool:
 * @self: an #AnotRegistry
 * @name: the tool's registered name
 * @error: return location for a #GError
 *
 * Creates an instance of the tool registered under @name.  If there is
 * none, fails with %ANOT_ERROR_PLUGIN_NOT_FOUND and a message listing the
 * tools available.
 *
 * Returns: (transfer full) (nullable): a new tool, or %NULL with @error set
 */
AnotTool *
anot_registry_create_tool (AnotRegistry  *self,
                           const char    *name,
                           GError       **error)
{
  g_return_val_if_fail (ANOT_IS_REGISTRY (self), NULL);
  g_return_val_if_fail (name != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  return create_plugin (self, ANOT_TOOL_EXTENSION_POINT_NAME, "tool", name, error);
}
