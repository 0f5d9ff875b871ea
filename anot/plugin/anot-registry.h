/* anot-registry.h
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#if !defined(ANOT_INSIDE) && !defined(ANOT_COMPILATION)
#error "Only <anot/anot.h> can be included directly."
#endif

#include "anot-visibility.h"

#include <gio/gio.h>

#include "anot-attack.h"
#include "anot-backend.h"
#include "anot-method.h"
#include "anot-method-option.h"
#include "anot-plugin-loader.h"
#include "anot-tool.h"

G_BEGIN_DECLS

/**
 * ANOT_METHOD_EXTENSION_POINT_NAME:
 *
 * The GIO extension point ranking methods implement.
 */
#define ANOT_METHOD_EXTENSION_POINT_NAME "anot-method"
/**
 * ANOT_BACKEND_EXTENSION_POINT_NAME:
 *
 * The GIO extension point LLM backends implement.
 */
#define ANOT_BACKEND_EXTENSION_POINT_NAME "anot-backend"
/**
 * ANOT_ATTACK_EXTENSION_POINT_NAME:
 *
 * The GIO extension point attacks implement.
 */
#define ANOT_ATTACK_EXTENSION_POINT_NAME "anot-attack"
/**
 * ANOT_TOOL_EXTENSION_POINT_NAME:
 *
 * The GIO extension point tools implement.
 */
#define ANOT_TOOL_EXTENSION_POINT_NAME "anot-tool"
/**
 * ANOT_LOADER_EXTENSION_POINT_NAME:
 *
 * The GIO extension point plugin loaders implement (see
 * [iface@Anot.PluginLoader]); a loader is registered under the file
 * suffix it loads, e.g. `"py"`.
 */
#define ANOT_LOADER_EXTENSION_POINT_NAME "anot-loader"

/**
 * AnotPluginFlags:
 * @ANOT_PLUGIN_FLAGS_NONE: nothing special
 * @ANOT_PLUGIN_NEEDS_TRUTH: a method that ranks by the hidden truth on
 *   purpose (the `oracle` baseline): its [class@Anot.MethodContext] gets the
 *   full request and the validator, its result rows carry
 *   `"uses_truth": true` and `anot-run --list` says so.  Ordinary methods
 *   never get the truth.
 * @ANOT_PLUGIN_SUPPORTS_DEFENSE: a method that applies defense mode: every
 *   call that shows the model reviews or data carries
 *   [method@Anot.MethodContext.get_defense_prompt].  A run in defense mode
 *   (`--defense`) of a method without this flag is refused, so that
 *   `config.json` never records a defense that was not applied.
 * @ANOT_PLUGIN_USES_FORMATTER: a method that writes the candidates for
 *   the model with [class@Anot.Formatter], reading the run's `format.*`
 *   options ([method@Anot.Formatter.apply_options]).  Only such a method
 *   takes them: for any other they would do nothing, so they are refused
 *   before the run; for it `config.json` records every `format.*`
 *   option's effective value, defaults included.
 *
 * What a plugin declares when it registers.
 */
typedef enum /*< flags >*/
{
  ANOT_PLUGIN_FLAGS_NONE       = 0,
  ANOT_PLUGIN_NEEDS_TRUTH      = 1 << 0,
  ANOT_PLUGIN_SUPPORTS_DEFENSE = 1 << 1,
  ANOT_PLUGIN_USES_FORMATTER   = 1 << 2,
} AnotPluginFlags;

#define ANOT_TYPE_REGISTRY (anot_registry_get_type ())
ANOT_AVAILABLE_IN_ALL
G_DECLARE_FINAL_TYPE (AnotRegistry, anot_registry, ANOT, REGISTRY, GObject)

ANOT_AVAILABLE_IN_ALL
void          anot_plugin_implement             (const char    *extension_point,
                                                 GType          type,
                                                 const char    *name,
                                                 const char    *description);
ANOT_AVAILABLE_IN_ALL
void          anot_plugin_implement_with_flags  (const char    *extension_point,
                                                 GType          type,
                                                 const char    *name,
                                                 const char    *description,
                                                 AnotPluginFlags flags);

ANOT_AVAILABLE_IN_ALL
void          anot_plugin_declare_method_options (const char       *method,
                                                  AnotMethodOption *first_option,
                                                  ...);
ANOT_AVAILABLE_IN_ALL
void          anot_plugin_declare_method_roles  (const char    *method,
                                                 const char    *first_role,
                                                 ...);
ANOT_AVAILABLE_IN_ALL
AnotRegistry *anot_registry_get_default         (void);
ANOT_AVAILABLE_IN_ALL
void          anot_registry_register            (AnotRegistry  *self,
                                                 const char    *extension_point,
                                                 GType          type,
                                                 const char    *name,
                                                 const char    *description);
ANOT_AVAILABLE_IN_ALL
void          anot_registry_register_with_flags (AnotRegistry  *self,
                                                 const char    *extension_point,
                                                 GType          type,
                                                 const char    *name,
                                                 const char    *description,
                                                 AnotPluginFlags flags);
ANOT_AVAILABLE_IN_ALL
char        **anot_registry_list                (AnotRegistry  *self,
                                                 const char    *extension_point);
ANOT_AVAILABLE_IN_ALL
const char   *anot_registry_get_description     (AnotRegistry  *self,
                                                 const char    *extension_point,
                                                 const char    *name);
ANOT_AVAILABLE_IN_ALL
AnotPluginFlags anot_registry_get_flags         (AnotRegistry  *self,
                                                 const char    *extension_point,
                                                 const char    *name);
ANOT_AVAILABLE_IN_ALL
void          anot_registry_declare_method_options (AnotRegistry      *self,
                                                    const char        *method,
                                                    AnotMethodOption **options,
                                                    guint              n_options);
ANOT_AVAILABLE_IN_ALL
GPtrArray    *anot_registry_list_method_options (AnotRegistry  *self,
                                                 const char    *method);
ANOT_AVAILABLE_IN_ALL
void          anot_registry_declare_method_roles (AnotRegistry       *self,
                                                  const char         *method,
                                                  const char * const *roles);
ANOT_AVAILABLE_IN_ALL
char        **anot_registry_list_method_roles   (AnotRegistry  *self,
                                                 const char    *method);
ANOT_AVAILABLE_IN_ALL
GType         anot_registry_lookup_type         (AnotRegistry  *self,
                                                 const char    *extension_point,
                                                 const char    *name);
ANOT_AVAILABLE_IN_ALL
const char   *anot_registry_get_origin          (AnotRegistry  *self,
                                                 const char    *extension_point,
                                                 const char    *name,
                                                 const char   **language);
ANOT_AVAILABLE_IN_ALL
gboolean      anot_registry_load_plugin         (AnotRegistry  *self,
                                                 const char    *path,
                                                 GError       **error);
ANOT_AVAILABLE_IN_ALL
gboolean      anot_registry_load_plugin_full    (AnotRegistry  *self,
                                                 const char    *path,
                                                 gboolean       override,
                                                 GError       **error);
ANOT_AVAILABLE_IN_ALL
char        **anot_registry_list_failed_modules (AnotRegistry  *self);
ANOT_AVAILABLE_IN_ALL
AnotMethod   *anot_registry_create_method       (AnotRegistry  *self,
                                                 const char    *name,
                                                 GError       **error);
ANOT_AVAILABLE_IN_ALL
AnotBackend  *anot_registry_create_backend      (AnotRegistry  *self,
                                                 const char    *name,
                                                 GError       **error);
ANOT_AVAILABLE_IN_ALL
AnotAttack   *anot_registry_create_attack       (AnotRegistry  *self,
                                                 const char    *name,
                                                 GError       **error);
ANOT_AVAILABLE_IN_ALL
AnotTool     *anot_registry_create_tool         (AnotRegistry  *self,
                                                 const char    *name,
                                                 GError       **error);

G_END_DECLS
