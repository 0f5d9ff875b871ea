/* anot-backend-router.c: roles to backends, prices to costs
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "anot-backend-router.h"
#include "anot-backend-router-private.h"
#include "anot-tokenizer.h"

#include "anot-cached-backend.h"
#include "anot-backend-private.h"
#include "anot-completion-private.h"
#include "anot-error.h"
#include "anot-http-backend.h"

#include <math.h>
#include <string.h>

/**
 * AnotBackendRouter:
 *
 * Maps roles ("default", "planner", "scorer", "lats.selection", ...) to
 * backends, so a method can use a cheap model for one phase and a strong
 * one for another.  A role without a route of its own uses the route of
 * %ANOT_DEFAULT_ROLE.
 *
 * A route is a backend, its registered name and the role's generation
 * defaults (model, temperature, max tokens, top-p, seed) that fill what a
 * request leaves unset.  Routes are set with
 * [method@Anot.BackendRouter.set_route] or, for a router made by
 * [method@Anot.LlmConfig.create_router], built from the configuration
 * when a role is first used.  Roles that agree on the backend and its
 * connection settings share one backend instance, and so its concurrency
 * bound.
 *
 * The router also prices calls: the cost of a completion is
 * prompt tokens / 10⁶ × input price + completion tokens / 10⁶ × output
 * price, with the prices of [method@Anot.BackendRouter.lookup_price].
 * The defaults are the original framework's table (gpt-5-nano, gpt-4o,
 * gpt-4o-mini, gpt-4-turbo, o1, o1-mini, o3-mini and four Claude models).
 * Any other model has no price unless config.ini's `[prices]` gives one
 * (or a `*` for every other model): its calls' cost is unknown
 * ([property@Anot.Completion:cost-known] %FALSE), not the original's
 * fictitious $1 and $3 per million tokens.
 *
 * With [method@Anot.BackendRouter.set_cache], every backend is put behind
 * an [class@Anot.CachedBackend].
 */

typedef struct
{
  char *backend_name;
  AnotBackend *backend;     /* as configured */
  AnotBackend *effective;   /* behind the cache, when there is one */
  AnotChatRequest *defaults;
} Route;

typedef AnotPrice Price;

struct _AnotBackendRouter
{
  GObject parent_instance;

  GHashTable *routes;       /* role -> Route */
  const AnotRouteSource *source_funcs;  /* nullable */
  GObject *source;          /* nullable, e.g. an AnotLlmConfig */
  GHashTable *instances;    /* instance key -> AnotBackend */
  GHashTable *prices;       /* model -> Price */
  char *prices_date;
  guint64 context_tokens;   /* 0: the price table's */
  GHashTable *tokenizers;   /* model -> AnotTokenizer, for fitting */
  GHashTable *counts;       /* digest of (model, messages) -> prompt tokens */
  GMutex fit_lock;          /* tokenizers and counts */
  guint64 n_not_sent;
  AnotResponseCache *cache;
  gboolean offline;
  gboolean adaptive_concurrency;
};

G_DEFINE_FINAL_TYPE (AnotBackendRouter, anot_backend_router, G_TYPE_OBJECT)

enum {
  PROP_0,
  PROP_CACHE,
  PROP_OFFLINE,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

/* The built-in price table is data (prices.ini in libanot's resources),
 * read once per process. */
#define PRICES_RESOURCE "/org/anot/llm/prices.ini"

/* The entry of every model without one of its own: only ever the user's
 * (config.ini's [prices]); the built-in table has none. */
#define FALLBACK_MODEL "*"

static int
compare_base_urls (gconstpointer a,
                   gconstpointer b)
{
  /* g_ptr_array_sort() passes pointers to the elements. */
  return g_strcmp0 (anot_http_backend_get_base_url (*(AnotHttpBackend **) a),
                    anot_http_backend_get_base_url (*(AnotHttpBackend **) b));
}

static void
route_free (Route *route)
{
  g_free (route->backend_name);
  g_clear_object (&route->backend);
  g_clear_object (&route->effective);
  g_clear_object (&route->defaults);
  g_free (route);
}

static void
anot_backend_router_finalize (GObject *object)
{
  AnotBackendRouter *self = ANOT_BACKEND_ROUTER (object);

  g_hash_table_unref (self->routes);
  g_clear_object (&self->source);
  g_hash_table_unref (self->instances);
  g_hash_table_unref (self->prices);
  g_free (self->prices_date);
  g_clear_pointer (&self->tokenizers, g_hash_table_unref);
  g_clear_pointer (&self->counts, g_hash_table_unref);
  g_mutex_clear (&self->fit_lock);
  g_clear_object (&self->cache);

  G_OBJECT_CLASS (anot_backend_router_parent_class)->finalize (object);
}

static void
anot_backend_router_get_property (GObject    *object,
                                  guint       prop_id,
                                  GValue     *value,
                                  GParamSpec *pspec)
{
  AnotBackendRouter *self = ANOT_BACKEND_ROUTER (object);

  switch (prop_id)
    {
    case PROP_CACHE:
      g_value_set_object (value, self->cache);
      break;
    case PROP_OFFLINE:
      g_value_set_boolean (value, self->offline);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
anot_backend_router_class_init (AnotBackendRouterClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = anot_backend_router_finalize;
  object_class->get_property = anot_backend_router_get_property;

  /**
   * AnotBackendRouter:cache:
   *
   * The response cache in front of every backend, or %NULL.
   */
  properties[PROP_CACHE] =
    g_param_spec_object ("cache", NULL, NULL, ANOT_TYPE_RESPONSE_CACHE,
                         G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  /**
   * AnotBackendRouter:offline:
   *
   * Whether calls are answered from the cache only.
   */
  properties[PROP_OFFLINE] =
    g_param_spec_boolean ("offline", NULL, NULL, FALSE,
                          G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);

  g_object_class_install_properties (object_class, N_PROPS, properties);
}

/* "2.50, 10.00" into @numbers; FALSE unless exactly @n numbers >= 0. */
static gboolean
parse_numbers (const char *text,
               double     *numbers,
               guint       n)
{
  g_auto(GStrv) parts = g_strsplit_set (text, ", \t", -1);
  guint found = 0;

  for (guint p = 0; parts[p] != NULL; p++)
    {
      char *end = NULL;

      if (*parts[p] == '\0')
        continue;
      if (found >= n)
        return FALSE;
      numbers[found] = g_ascii_strtod (parts[p], &end);
      if (end == parts[p] || *end != '\0' || !isfinite (numbers[found]) || numbers[found] < 0)
        return FALSE;
      found++;
    }
  return found == n;
}

gboolean
anot_prices_read (AnotIniReader  *reader,
                  GHashTable     *prices,
                  char          **as_of,
                  GError        **error)
{
  g_auto(GStrv) models = anot_ini_reader_list_keys (reader, "prices");

  for (guint k = 0; models[k] != NULL; k++)
    {
      const char *value = anot_ini_reader_get_value (reader, "prices", models[k]);
      g_auto(GStrv) segments = NULL;
      double numbers[2];
      AnotPrice entry = { 0, 0, -1, -1, 0 };
      gboolean ok;

      if (strcmp (models[k], "as_of") == 0)
        {
          g_autoptr(GDateTime) date = NULL;
          g_autofree char *midnight = g_strconcat (value, "T00:00:00Z", NULL);

          date = g_date_time_new_from_iso8601 (midnight, NULL);
          if (date == NULL)
            {
              anot_ini_reader_set_error (reader, error, "prices", models[k],
                                         "“%s”: expected the date of the prices, YYYY-MM-DD", value);
              return FALSE;
            }
          if (as_of != NULL)
            {
              g_free (*as_of);
              *as_of = g_strdup (value);
            }
          continue;
        }

      segments = g_strsplit (value, ";", -1);
      ok = parse_numbers (segments[0], numbers, 2);
      entry.input = numbers[0];
      entry.output = numbers[1];
      for (guint i = 1; ok && segments[i] != NULL; i++)
        {
          char *segment = g_strstrip (segments[i]);

          if (g_str_has_prefix (segment, "batch ") && parse_numbers (segment + 6, numbers, 2))
            {
              entry.batch_input = numbers[0];
              entry.batch_output = numbers[1];
            }
          else if (g_str_has_prefix (segment, "context ") && parse_numbers (segment + 8, numbers, 1) &&
                   numbers[0] >= 1 && numbers[0] <= 1e9 && numbers[0] == floor (numbers[0]))
            entry.context_tokens = (guint64) numbers[0];
          else
            ok = FALSE;
        }
      if (!ok)
        {
          anot_ini_reader_set_error (reader, error, "prices", models[k],
                                     "“%s”: expected INPUT, OUTPUT in US dollars per million "
                                     "tokens, then optionally “; batch INPUT, OUTPUT” and "
                                     "“; context TOKENS”", value);
          return FALSE;
        }
      g_hash_table_replace (prices, g_strdup (models[k]), g_memdup2 (&entry, sizeof entry));
    }
  return TRUE;
}

static char *default_date;

/* The built-in table: the original framework's MODEL_PRICING. */
static GHashTable *
default_prices (void)
{
  static GHashTable *prices;

  if (g_once_init_enter (&prices))
    {
      g_autoptr(AnotIniReader) reader = anot_ini_reader_new_from_resource (PRICES_RESOURCE);
      g_autoptr(GError) error = NULL;
      GHashTable *table = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);

      if (!anot_prices_read (reader, table, &default_date, &error))
        g_error ("%s", error->message);
      g_once_init_leave (&prices, table);
    }
  return prices;
}

static void
anot_backend_router_init (AnotBackendRouter *self)
{
  GHashTable *defaults = default_prices ();
  GHashTableIter iter;
  gpointer model, price;

  g_mutex_init (&self->fit_lock);
  self->routes = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                        (GDestroyNotify) route_free);
  self->instances = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_object_unref);
  self->prices = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  g_hash_table_iter_init (&iter, defaults);
  while (g_hash_table_iter_next (&iter, &model, &price))
    anot_backend_router_set_price_entry (self, model, price);
  self->prices_date = g_strdup (default_date);
}

void
anot_backend_router_set_price_entry (AnotBackendRouter *self,
                                     const char        *model,
                                     const AnotPrice   *price)
{
  g_return_if_fail (ANOT_IS_BACKEND_ROUTER (self));
  g_return_if_fail (model != NULL && price != NULL);

  g_hash_table_replace (self->prices, g_strdup (model), g_memdup2 (price, sizeof *price));
}

void
anot_backend_router_set_prices_date (AnotBackendRouter *self,
                                     const char        *as_of)
{
  g_return_if_fail (ANOT_IS_BACKEND_ROUTER (self));

  g_free (self->prices_date);
  self->prices_date = g_strdup (as_of);
}

/**
 * anot_backend_router_get_prices_date:
 * @self: an #AnotBackendRouter
 *
 * Returns: (nullable): the date of the price table (`YYYY-MM-DD`, the
 *   `as_of` entry of the `[prices]` section of the built-in table or of
 *   the configuration file), or %NULL when unknown
 */
const char *
anot_backend_router_get_prices_date (AnotBackendRouter *self)
{
  g_return_val_if_fail (ANOT_IS_BACKEND_ROUTER (self), NULL);
  return self->prices_date;
}

/**
 * anot_backend_router_new:
 *
 * Creates a router without routes.
 *
 * Returns: (transfer full): a new router
 */
AnotBackendRouter *
anot_backend_router_new (void)
{
  return g_object_new (ANOT_TYPE_BACKEND_ROUTER, NULL);
}

void
anot_backend_router_set_route_source (AnotBackendRouter     *self,
                                      const AnotRouteSource *funcs,
                                      GObject               *source)
{
  g_return_if_fail (ANOT_IS_BACKEND_ROUTER (self));
  g_return_if_fail (funcs != NULL && G_IS_OBJECT (source));

  self->source_funcs = funcs;
  g_set_object (&self->source, source);
}

static gboolean
source_has_role (AnotBackendRouter *self,
                 const char        *role)
{
  return self->source != NULL && self->source_funcs->has_role (self->source, role);
}

static void
route_update_effective (AnotBackendRouter *self,
                        Route             *route)
{
  g_clear_object (&route->effective);
  if (self->cache != NULL)
    route->effective = anot_cached_backend_new (self->offline ? NULL : route->backend,
                                                route->backend_name, self->cache, self->offline);
  else
    route->effective = g_object_ref (route->backend);
}

/**
 * anot_backend_router_set_route:
 * @self: an #AnotBackendRouter
 * @role: a role name, e.g. %ANOT_DEFAULT_ROLE
 * @backend_name: (nullable): the backend's registered name, part of cache
 *   keys and of `llm_config`; the type name of @backend when %NULL
 * @backend: the backend
 * @defaults: (nullable): generation options (model, temperature, max
 *   tokens, top-p, seed) for requests of @role that leave them unset;
 *   its messages are ignored
 *
 * Routes @role to @backend.
 */
void
anot_backend_router_set_route (AnotBackendRouter *self,
                               const char        *role,
                               const char        *backend_name,
                               AnotBackend       *backend,
                               AnotChatRequest   *defaults)
{
  Route *route;

  g_return_if_fail (ANOT_IS_BACKEND_ROUTER (self));
  g_return_if_fail (role != NULL);
  g_return_if_fail (ANOT_IS_BACKEND (backend));
  g_return_if_fail (defaults == NULL || ANOT_IS_CHAT_REQUEST (defaults));

  route = g_new0 (Route, 1);
  route->backend_name = g_strdup (backend_name ? backend_name : G_OBJECT_TYPE_NAME (backend));
  route->backend = g_object_ref (backend);
  route->defaults = defaults ? anot_chat_request_copy (defaults) : anot_chat_request_new (NULL, NULL);
  if (self->adaptive_concurrency && ANOT_IS_HTTP_BACKEND (backend))
    g_object_set (backend, "adaptive-concurrency", TRUE, NULL);
  route_update_effective (self, route);
  g_hash_table_replace (self->routes, g_strdup (role), route);
}

/**
 * anot_backend_router_set_adaptive_concurrency:
 * @self: an #AnotBackendRouter
 * @adaptive: whether the calls in flight adapt
 *
 * Sets [property@Anot.HttpBackend:adaptive-concurrency] on the HTTP
 * backends of every route, those built later included.  `anot-run` does
 * so unless given `-j`.
 */
void
anot_backend_router_set_adaptive_concurrency (AnotBackendRouter *self,
                                              gboolean           adaptive)
{
  GHashTableIter iter;
  gpointer value;

  g_return_if_fail (ANOT_IS_BACKEND_ROUTER (self));

  self->adaptive_concurrency = adaptive;
  g_hash_table_iter_init (&iter, self->routes);
  while (g_hash_table_iter_next (&iter, NULL, &value))
    {
      Route *route = value;

      if (ANOT_IS_HTTP_BACKEND (route->backend))
        g_object_set (route->backend, "adaptive-concurrency", adaptive, NULL);
    }
}

/**
 * anot_backend_router_list_http_backends:
 * @self: an #AnotBackendRouter
 *
 * The HTTP backends of the routes built so far, each once (roles that
 * share a server share its backend): what a progress display reads the
 * pace from ([property@Anot.HttpBackend:concurrency-limit],
 * [property@Anot.HttpBackend:rate-limit-wait-ms]).
 *
 * Returns: (transfer container) (element-type AnotHttpBackend): the
 *   backends, sorted by base URL
 */
GPtrArray *
anot_backend_router_list_http_backends (AnotBackendRouter *self)
{
  GPtrArray *backends;
  GHashTableIter iter;
  gpointer value;

  g_return_val_if_fail (ANOT_IS_BACKEND_ROUTER (self), NULL);

  backends = g_ptr_array_new ();
  g_hash_table_iter_init (&iter, self->routes);
  while (g_hash_table_iter_next (&iter, NULL, &value))
    {
      Route *route = value;

      if (ANOT_IS_HTTP_BACKEND (route->backend) &&
          !g_ptr_array_find (backends, route->backend, NULL))
        g_ptr_array_add (backends, route->backend);
    }
  g_ptr_array_sort (backends, compare_base_urls);
  return backends;
}

static Route *
find_route (AnotBackendRouter  *self,
            const char         *role,
            GError            **error)
{
  Route *route = g_hash_table_lookup (self->routes, role);

  if (route != NULL)
    return route;

  if (source_has_role (self, role))
    {
      g_autofree char *name = NULL;
      g_autoptr(AnotBackend) backend = NULL;
      g_autoptr(AnotChatRequest) defaults = NULL;

      if (!self->source_funcs->resolve (self->source, role, self->instances,
                                        &name, &backend, &defaults, error))
        return NULL;
      anot_backend_router_set_route (self, role, name, backend, defaults);
      return g_hash_table_lookup (self->routes, role);
    }

  if (strcmp (role, ANOT_DEFAULT_ROLE) != 0)
    return find_route (self, ANOT_DEFAULT_ROLE, error);

  g_set_error (error, ANOT_ERROR, ANOT_ERROR_CONFIG,
               "No LLM backend is configured (use --backend, ANOT_BACKEND or the "
               "configuration file)");
  return NULL;
}

/**
 * anot_backend_router_get_backend:
 * @self: an #AnotBackendRouter
 * @role: a role name
 * @error: return location for a #GError
 *
 * The backend calls of @role go to (behind the cache, when there is one),
 * building its route from the configuration if needed.
 *
 * Returns: (transfer none) (nullable): the backend, or %NULL with @error
 *   set
 */
AnotBackend *
anot_backend_router_get_backend (AnotBackendRouter  *self,
                                 const char         *role,
                                 GError            **error)
{
  Route *route;

  g_return_val_if_fail (ANOT_IS_BACKEND_ROUTER (self), NULL);
  g_return_val_if_fail (role != NULL, NULL);

  route = find_route (self, role, error);
  return route ? route->effective : NULL;
}

/**
 * anot_backend_router_check_api_key:
 * @self: an #AnotBackendRouter
 * @role: a role name
 * @error: return location for a #GError
 *
 * Builds the route of @role (so a configuration error shows now) and
 * checks that its backend has the API key its endpoint needs
 * ([method@Anot.HttpBackend.check_api_key]); a router answering from its
 * cache only (offline) needs none.  Nothing is sent.
 *
 * Returns: %TRUE when calls of @role can go out
 */
gboolean
anot_backend_router_check_api_key (AnotBackendRouter  *self,
                                   const char         *role,
                                   GError            **error)
{
  Route *route;

  g_return_val_if_fail (ANOT_IS_BACKEND_ROUTER (self), FALSE);
  g_return_val_if_fail (role != NULL, FALSE);

  route = find_route (self, role, error);
  if (route == NULL)
    return FALSE;
  if (self->offline || !ANOT_IS_HTTP_BACKEND (route->backend))
    return TRUE;
  return anot_http_backend_check_api_key (ANOT_HTTP_BACKEND (route->backend), error);
}

/**
 * anot_backend_router_get_backend_name:
 * @self: an #AnotBackendRouter
 * @role: a role name
 *
 * Returns: (nullable): the registered name of the backend of @role, or
 *   %NULL when it has no route (yet)
 */
const char *
anot_backend_router_get_backend_name (AnotBackendRouter *self,
                                      const char        *role)
{
  Route *route;

  g_return_val_if_fail (ANOT_IS_BACKEND_ROUTER (self), NULL);
  g_return_val_if_fail (role != NULL, NULL);

  route = g_hash_table_lookup (self->routes, role);
  if (route == NULL && strcmp (role, ANOT_DEFAULT_ROLE) != 0 &&
      !source_has_role (self, role))
    route = g_hash_table_lookup (self->routes, ANOT_DEFAULT_ROLE);
  return route ? route->backend_name : NULL;
}

static const char *
route_model (Route *route)
{
  const char *model = anot_chat_request_get_model (route->defaults);

  if (model == NULL && ANOT_IS_HTTP_BACKEND (route->backend))
    model = anot_http_backend_get_model (ANOT_HTTP_BACKEND (route->backend));
  return model;
}

/**
 * anot_backend_router_get_model:
 * @self: an #AnotBackendRouter
 * @role: a role name
 *
 * Returns: (nullable): the model calls of @role ask for when they name
 *   none, or %NULL when unknown
 */
const char *
anot_backend_router_get_model (AnotBackendRouter *self,
                               const char        *role)
{
  Route *route;

  g_return_val_if_fail (ANOT_IS_BACKEND_ROUTER (self), NULL);
  g_return_val_if_fail (role != NULL, NULL);

  route = g_hash_table_lookup (self->routes, role);
  if (route == NULL && strcmp (role, ANOT_DEFAULT_ROLE) != 0 &&
      !source_has_role (self, role))
    route = g_hash_table_lookup (self->routes, ANOT_DEFAULT_ROLE);
  return route ? route_model (route) : NULL;
}

static int
compare_strings (gconstpointer a,
                 gconstpointer b)
{
  return g_strcmp0 (*(const char * const *) a, *(const char * const *) b);
}

/**
 * anot_backend_router_list_roles:
 * @self: an #AnotBackendRouter
 *
 * Returns: (transfer full) (array zero-terminated=1): the roles that have
 *   a route of their own so far, sorted
 */
char **
anot_backend_router_list_roles (AnotBackendRouter *self)
{
  char **roles;
  guint n;

  g_return_val_if_fail (ANOT_IS_BACKEND_ROUTER (self), NULL);

  roles = (char **) g_hash_table_get_keys_as_array (self->routes, &n);
  for (guint i = 0; i < n; i++)
    roles[i] = g_strdup (roles[i]);
  qsort (roles, n, sizeof (char *), compare_strings);
  return roles;
}

/**
 * anot_backend_router_set_cache:
 * @self: an #AnotBackendRouter
 * @cache: (nullable): a response cache, or %NULL for none
 * @offline: whether calls are answered from @cache only
 *
 * Puts @cache in front of every backend (present and future routes).
 */
void
anot_backend_router_set_cache (AnotBackendRouter *self,
                               AnotResponseCache *cache,
                               gboolean           offline)
{
  GHashTableIter iter;
  gpointer value;

  g_return_if_fail (ANOT_IS_BACKEND_ROUTER (self));
  g_return_if_fail (cache == NULL || ANOT_IS_RESPONSE_CACHE (cache));
  g_return_if_fail (cache != NULL || !offline);

  g_set_object (&self->cache, cache);
  self->offline = offline;
  g_hash_table_iter_init (&iter, self->routes);
  while (g_hash_table_iter_next (&iter, NULL, &value))
    route_update_effective (self, value);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_CACHE]);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_OFFLINE]);
}

/**
 * anot_backend_router_get_cache:
 * @self: an #AnotBackendRouter
 *
 * Returns: (transfer none) (nullable): the response cache
 */
AnotResponseCache *
anot_backend_router_get_cache (AnotBackendRouter *self)
{
  g_return_val_if_fail (ANOT_IS_BACKEND_ROUTER (self), NULL);
  return self->cache;
}

/**
 * anot_backend_router_get_offline:
 * @self: an #AnotBackendRouter
 *
 * Returns: whether calls are answered from the cache only
 */
gboolean
anot_backend_router_get_offline (AnotBackendRouter *self)
{
  g_return_val_if_fail (ANOT_IS_BACKEND_ROUTER (self), FALSE);
  return self->offline;
}

/**
 * anot_backend_router_set_price:
 * @self: an #AnotBackendRouter
 * @model: a model name (or the prefix of model names, see
 *   anot_backend_router_lookup_price()), or `*` for every model without
 *   an entry
 * @input_per_million: US dollars per million prompt tokens
 * @output_per_million: US dollars per million completion tokens
 *
 * Sets or replaces the price of @model.
 */
void
anot_backend_router_set_price (AnotBackendRouter *self,
                               const char        *model,
                               double             input_per_million,
                               double             output_per_million)
{
  Price *price;

  g_return_if_fail (ANOT_IS_BACKEND_ROUTER (self));
  g_return_if_fail (model != NULL);
  g_return_if_fail (input_per_million >= 0 && output_per_million >= 0);

  price = g_new0 (Price, 1);
  price->input = input_per_million;
  price->output = output_per_million;
  price->batch_input = price->batch_output = -1;
  g_hash_table_replace (self->prices, g_strdup (model), price);
}

/**
 * anot_backend_router_set_batch_price:
 * @self: an #AnotBackendRouter
 * @model: a model with a price (see anot_backend_router_set_price())
 * @input_per_million: US dollars per million prompt tokens of batched
 *   calls
 * @output_per_million: US dollars per million completion tokens of
 *   batched calls
 *
 * Sets the batch price of @model; without one, batched calls cost half
 * the list price (the discount of OpenAI's and Anthropic's batch APIs).
 * Does nothing when @model has no price.
 */
void
anot_backend_router_set_batch_price (AnotBackendRouter *self,
                                     const char        *model,
                                     double             input_per_million,
                                     double             output_per_million)
{
  Price *price;

  g_return_if_fail (ANOT_IS_BACKEND_ROUTER (self));
  g_return_if_fail (model != NULL);
  g_return_if_fail (input_per_million >= 0 && output_per_million >= 0);

  price = g_hash_table_lookup (self->prices, model);
  if (price == NULL)
    return;
  price->batch_input = input_per_million;
  price->batch_output = output_per_million;
}

static Price *
find_price (AnotBackendRouter *self,
            const char        *model)
{
  GHashTableIter iter;
  gpointer key, value;
  Price *best = NULL;
  gsize best_length = 0;

  if (model == NULL || strcmp (model, FALLBACK_MODEL) == 0)
    return NULL;
  if ((best = g_hash_table_lookup (self->prices, model)) != NULL)
    return best;

  /* Providers answer with dated names (gpt-4o-mini-2024-07-18): the
   * longest known prefix that ends at a "-" decides. */
  g_hash_table_iter_init (&iter, self->prices);
  while (g_hash_table_iter_next (&iter, &key, &value))
    {
      gsize length = strlen (key);

      if (length > best_length && strncmp (model, key, length) == 0 && model[length] == '-')
        {
          best = value;
          best_length = length;
        }
    }
  return best;
}

/* The entry that prices @model: its own (or by prefix), else a `*` the
 * user's [prices] gave (the built-in table has none), else NULL. */
static Price *
price_entry (AnotBackendRouter *self,
             const char        *model,
             gboolean          *own)
{
  Price *price = find_price (self, model);

  if (own != NULL)
    *own = price != NULL;
  return price != NULL ? price : g_hash_table_lookup (self->prices, FALLBACK_MODEL);
}

/* @entry's list prices, or its batch prices (half the list prices unless
 * it has its own); NaN without an entry: an unknown price is never 0. */
static void
entry_prices (Price    *entry,
              gboolean  batch,
              double   *input_per_million,
              double   *output_per_million)
{
  double input = NAN, output = NAN;

  if (entry != NULL && !batch)
    {
      input = entry->input;
      output = entry->output;
    }
  else if (entry != NULL)
    {
      input = entry->batch_input >= 0 ? entry->batch_input : entry->input / 2;
      output = entry->batch_output >= 0 ? entry->batch_output : entry->output / 2;
    }
  if (input_per_million)
    *input_per_million = input;
  if (output_per_million)
    *output_per_million = output;
}

/* TRUE when @model has an entry of its own or by prefix. */
static gboolean
lookup_prices (AnotBackendRouter *self,
               const char        *model,
               gboolean           batch,
               double            *input_per_million,
               double            *output_per_million)
{
  gboolean own;

  entry_prices (price_entry (self, model, &own), batch, input_per_million, output_per_million);
  return own;
}

/**
 * anot_backend_router_lookup_price:
 * @self: an #AnotBackendRouter
 * @model: (nullable): a model name
 * @input_per_million: (out) (optional): US dollars per million prompt
 *   tokens, NaN when @model has no price
 * @output_per_million: (out) (optional): US dollars per million
 *   completion tokens, NaN when @model has no price
 *
 * The price of @model: its own entry, else the longest entry that is a
 * prefix of it followed by `-` (`gpt-4o-mini-2024-07-18` costs what
 * `gpt-4o-mini` costs), else the entry `*` when a configuration file's
 * `[prices]` section gives one.  The built-in entries come from the
 * resource `prices.ini`, which has no `*`: a model it does not list has
 * no price (NaN) unless the user gives one, and the cost of its calls is
 * unknown ([property@Anot.Completion:cost-known]), never a default.
 * A configuration file's `[prices]` section replaces or adds entries.
 *
 * Returns: %TRUE when @model has a price of its own (or by prefix),
 *   %FALSE when `*` or nothing priced it
 */
gboolean
anot_backend_router_lookup_price (AnotBackendRouter *self,
                                  const char        *model,
                                  double            *input_per_million,
                                  double            *output_per_million)
{
  g_return_val_if_fail (ANOT_IS_BACKEND_ROUTER (self), FALSE);

  return lookup_prices (self, model, FALSE, input_per_million, output_per_million);
}

/**
 * anot_backend_router_has_price:
 * @self: an #AnotBackendRouter
 * @model: (nullable): a model name
 *
 * Whether calls to @model can be costed: it has an entry of its own or
 * by prefix (see anot_backend_router_lookup_price()), or the user's
 * `[prices]` gives a `*`.  Calls to a model without a price have an
 * unknown cost; a run with a budget refuses such a model.
 *
 * Returns: %TRUE when @model has a price
 */
gboolean
anot_backend_router_has_price (AnotBackendRouter *self,
                               const char        *model)
{
  g_return_val_if_fail (ANOT_IS_BACKEND_ROUTER (self), FALSE);

  return price_entry (self, model, NULL) != NULL;
}

/**
 * anot_backend_router_lookup_batch_price:
 * @self: an #AnotBackendRouter
 * @model: (nullable): a model name
 * @input_per_million: (out) (optional): US dollars per million prompt
 *   tokens of a batched call, NaN without a price
 * @output_per_million: (out) (optional): US dollars per million
 *   completion tokens of a batched call, NaN without a price
 *
 * The batch price of @model, found as anot_backend_router_lookup_price()
 * finds the list price: the entry's `batch` prices, else half its list
 * prices; NaN when @model has no price.
 *
 * Returns: %TRUE when @model has a price of its own (or by prefix)
 */
gboolean
anot_backend_router_lookup_batch_price (AnotBackendRouter *self,
                                        const char        *model,
                                        double            *input_per_million,
                                        double            *output_per_million)
{
  g_return_val_if_fail (ANOT_IS_BACKEND_ROUTER (self), FALSE);

  return lookup_prices (self, model, TRUE, input_per_million, output_per_million);
}

/**
 * anot_backend_router_lookup_context_tokens:
 * @self: an #AnotBackendRouter
 * @model: (nullable): a model name
 *
 * The context window of @model (prompt and answer together, in tokens),
 * from the `context` of its entry in the price table, found as
 * anot_backend_router_lookup_price() finds prices.
 *
 * Returns: the context window in tokens, or 0 when the table does not
 *   know it
 */
guint64
anot_backend_router_lookup_context_tokens (AnotBackendRouter *self,
                                           const char        *model)
{
  Price *price;

  g_return_val_if_fail (ANOT_IS_BACKEND_ROUTER (self), 0);

  price = find_price (self, model);
  return price != NULL ? price->context_tokens : 0;
}

/* ------------------------------------------------------------------------
 * Calls
 * --------------------------------------------------------------------- */

typedef struct
{
  char *role;
  char *backend_name;
  char *model;              /* requested */
} CallData;

static void
call_data_free (CallData *data)
{
  g_free (data->role);
  g_free (data->backend_name);
  g_free (data->model);
  g_free (data);
}

/* The answer assumed for a call cancelled in flight that set no
 * max_tokens: what `anot-run estimate` and budgets assume. */
#define CANCELLED_COMPLETION_TOKENS 300

static void
on_backend_done (GObject      *source,
                 GAsyncResult *result,
                 gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  AnotBackendRouter *self = g_task_get_source_object (task);
  CallData *data = g_task_get_task_data (task);
  g_autoptr(GError) error = NULL;
  g_autoptr(AnotCompletion) completion = NULL;

  completion = anot_backend_complete_finish (ANOT_BACKEND (source), result, &error);
  if (completion == NULL)
    {
      AnotCancelledCall cancelled;

      /* Priced as a budget prices a call before it is sent: its prompt
       * and its max_tokens, or the answer an estimate assumes. */
      if (anot_backend_result_get_cancelled_in_flight (result, &cancelled))
        {
          double input = 0, output = 0;

          if (cancelled.completion_tokens == 0)
            cancelled.completion_tokens = CANCELLED_COMPLETION_TOKENS;
          anot_backend_router_lookup_price (self, data->model, &input, &output);
          cancelled.cost_usd = cancelled.prompt_tokens / 1e6 * input +
                               cancelled.completion_tokens / 1e6 * output;
          anot_backend_task_set_cancelled_in_flight (task, &cancelled);
        }
      if (error == NULL)
        g_set_error (&error, ANOT_ERROR, ANOT_ERROR_LLM_PROTOCOL,
                     "The backend returned no completion and no error");
      if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        g_prefix_error (&error, "%s:%s (role %s): ", data->backend_name,
                        data->model ? data->model : "default model", data->role);
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }

  anot_completion_set_role (completion, data->role);
  if (anot_completion_get_model (completion) == NULL && data->model != NULL)
    g_object_set (completion, "model", data->model, NULL);
  /* A batch line shared by identical calls is billed once: to the first. */
  if (anot_completion_get_cost_usd (completion) == 0.0 &&
      !anot_completion_get_paid_by_another (completion))
    {
      /* The provider's name for the model first (it may be dated), else
       * the name asked for, else the user's `*`. */
      Price *entry = find_price (self, anot_completion_get_model (completion));
      double input, output;

      if (entry == NULL)
        entry = price_entry (self, data->model, NULL);
      /* Batched calls cost the batch price. */
      entry_prices (entry, anot_completion_get_batch_id (completion) != NULL, &input, &output);
      if (entry == NULL)
        anot_completion_set_cost_known (completion, FALSE);
      else
        anot_completion_set_cost_usd (completion,
                                      anot_completion_get_prompt_tokens (completion) / 1e6 * input +
                                      anot_completion_get_completion_tokens (completion) / 1e6 * output);
    }
  g_task_return_pointer (task, g_steal_pointer (&completion), g_object_unref);
}

/**
 * anot_backend_router_complete_async:
 * @self: an #AnotBackendRouter
 * @role: the role making the call
 * @request: the call; not changed (the router sends a copy with the role
 *   and the route's defaults filled in)
 * @cancellable: (nullable): a #GCancellable
 * @callback: (scope async): called when the completion is ready
 * @user_data: data for @callback
 *
 * Sends @request to the backend of @role.
 */
void
anot_backend_router_complete_async (AnotBackendRouter   *self,
                                    const char          *role,
                                    AnotChatRequest     *request,
                                    GCancellable        *cancellable,
                                    GAsyncReadyCallback  callback,
                                    gpointer             user_data)
{
  g_return_if_fail (ANOT_IS_BACKEND_ROUTER (self));
  g_return_if_fail (role != NULL);
  g_return_if_fail (ANOT_IS_CHAT_REQUEST (request));

  anot_backend_router_complete_copy_async (self, role, anot_chat_request_copy (request),
                                           cancellable, callback, user_data);
}

/* Prompts counted lately, so that the count a method's fitting made is not
 * made again when the fitted prompt is sent: a bounded table, emptied when
 * full. */
#define MAX_COUNTS 256

/* A 64-bit digest of @len bytes, eight at a time (a multiply-xorshift
 * mix: enough to tell prompts apart, at memory speed). */
static guint64
digest_bytes (guint64     h,
              const char *data,
              gsize       len)
{
  const guint64 k = G_GUINT64_CONSTANT (0x9e3779b97f4a7c15);
  gsize i = 0;

  for (; i + 8 <= len; i += 8)
    {
      guint64 w;

      memcpy (&w, data + i, 8);
      h = (h ^ w) * k;
      h ^= h >> 29;
    }
  for (; i < len; i++)
    {
      h = (h ^ (guint8) data[i]) * k;
      h ^= h >> 29;
    }
  return (h ^ len) * k;
}

static guint64
digest_request (AnotChatRequest *request)
{
  const char *model = anot_chat_request_get_model (request);
  guint n = anot_chat_request_get_n_messages (request);
  guint64 h = G_GUINT64_CONSTANT (0xcbf29ce484222325);

  h = digest_bytes (h, model != NULL ? model : "", model != NULL ? strlen (model) : 0);
  for (guint i = 0; i < n; i++)
    {
      h = digest_bytes (h ^ ((guint64) anot_chat_request_get_message_role (request, i) + 1), "", 0);
      h = digest_bytes (h, anot_chat_request_get_message_content (request, i),
                        anot_chat_request_get_message_length (request, i));
    }
  return h;
}

/* A count kept for a while: the prompt's tokens when @whole; otherwise a
 * count that stopped once it passed a room (more than @tokens' worth of
 * room is known not to be enough), over the first @bytes bytes of the
 * messages' contents.  A stopped count is never given out as a prompt's
 * tokens, only as "does not fit" and as a sample of tokens per byte. */
typedef struct
{
  guint64 tokens;
  guint64 bytes;
  gboolean whole;
} Count;

static guint64
content_bytes (AnotChatRequest *request)
{
  guint n = anot_chat_request_get_n_messages (request);
  guint64 bytes = 0;

  for (guint i = 0; i < n; i++)
    bytes += anot_chat_request_get_message_length (request, i);
  return bytes;
}

/* The prompt tokens of @request (whose model is set) with the model's
 * tokenizer, counted once for a while; counting stops once it passes
 * @limit (G_MAXUINT64: never), and if it did before the end, *@whole is
 * FALSE and the count is above @limit. */
static guint64
count_prompt (AnotBackendRouter  *self,
              AnotChatRequest    *request,
              guint64             limit,
              gboolean           *whole,
              guint64            *counted_bytes,
              AnotTokenizer     **tokenizer_out)
{
  const char *model = anot_chat_request_get_model (request);
  g_autoptr(AnotTokenizer) tokenizer = NULL;
  guint64 digest = 0;
  Count count = { 0, 0, FALSE };
  Count *cached = NULL;
  gboolean exact;

  g_mutex_lock (&self->fit_lock);
  if (self->tokenizers == NULL)
    self->tokenizers = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_object_unref);
  if (self->counts == NULL)
    self->counts = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, g_free);
  tokenizer = g_hash_table_lookup (self->tokenizers, model ? model : "");
  if (tokenizer == NULL)
    {
      tokenizer = anot_tokenizer_new_for_model (model);
      g_hash_table_insert (self->tokenizers, g_strdup (model ? model : ""), tokenizer);
    }
  g_object_ref (tokenizer);
  g_mutex_unlock (&self->fit_lock);

  /* The approximation is the messages' lengths: cheaper than the digest
   * that would find it in the table. */
  exact = anot_tokenizer_is_exact (tokenizer);
  if (exact)
    {
      digest = digest_request (request);
      g_mutex_lock (&self->fit_lock);
      cached = g_hash_table_lookup (self->counts, &digest);
      /* A stopped count answers only a question it passed. */
      if (cached != NULL && (cached->whole || cached->tokens > limit))
        count = *cached;
      else
        cached = NULL;
      g_mutex_unlock (&self->fit_lock);
    }

  if (cached == NULL)
    {
      count.tokens = anot_tokenizer_count_request_up_to (tokenizer, request, limit, &count.bytes);
      count.whole = count.tokens <= limit || count.bytes == content_bytes (request);
    }
  if (cached == NULL && exact)
    {
      g_mutex_lock (&self->fit_lock);
      if (g_hash_table_size (self->counts) >= MAX_COUNTS)
        g_hash_table_remove_all (self->counts);
      g_hash_table_insert (self->counts, g_memdup2 (&digest, sizeof digest),
                           g_memdup2 (&count, sizeof count));
      g_mutex_unlock (&self->fit_lock);
    }

  *whole = count.whole;
  if (counted_bytes != NULL)
    *counted_bytes = count.bytes;
  if (tokenizer_out != NULL)
    *tokenizer_out = g_steal_pointer (&tokenizer);
  return count.tokens;
}

/* The tokens the model can take for @request (whose model is set): the
 * window less the answer's max_tokens; G_MAXUINT64 when no window is
 * known. */
static guint64
request_room (AnotBackendRouter *self,
              AnotChatRequest   *request,
              guint64           *window_out)
{
  const char *model = anot_chat_request_get_model (request);
  guint64 window = self->context_tokens > 0 ? self->context_tokens
                                            : anot_backend_router_lookup_context_tokens (self, model);
  guint64 reserve = anot_chat_request_get_max_tokens (request) > 0
                    ? (guint64) anot_chat_request_get_max_tokens (request) : 0;

  if (window_out != NULL)
    *window_out = window;
  return window == 0 ? G_MAXUINT64 : (window > reserve ? window - reserve : 0);
}

/**
 * anot_backend_router_count_prompt_tokens:
 * @self: an #AnotBackendRouter
 * @request: a call whose model is set
 *
 * Counts the prompt tokens of @request with its model's tokenizer (see
 * anot_tokenizer_count_request()), as context fitting counts them, and
 * shares those counts: a prompt fitted to the window is not counted again.
 *
 * Returns: the prompt tokens
 */
guint64
anot_backend_router_count_prompt_tokens (AnotBackendRouter *self,
                                         AnotChatRequest   *request)
{
  gboolean whole;

  g_return_val_if_fail (ANOT_IS_BACKEND_ROUTER (self), 0);
  g_return_val_if_fail (ANOT_IS_CHAT_REQUEST (request), 0);

  return count_prompt (self, request, G_MAXUINT64, &whole, NULL, NULL);
}

/* A prompt that would not fit the model's context window is refused here,
 * before it is sent and paid for, with the error a server gives (which
 * names the maximum context length, so the methods' rule of dropping
 * reviews and trying again applies).  The window is --context-tokens, else
 * the price table's `context` of the model; the prompt is counted with the
 * model's tokenizer (AnotTokenizer: exact for OpenAI's encodings,
 * approximate otherwise), the answer's max_tokens reserved.  Counting
 * stops once the count passes the room, unless @whole_count (the caller
 * wants the prompt's tokens either way): a prompt of 640k tokens is known
 * not to fit a 128k window after 128k.  @refusal: count a refusal in
 * n_not_sent (a call, not a method's check).  *@counted_tokens and
 * *@counted_bytes: the count (the prompt's tokens when *@whole) and the
 * bytes of the messages' contents it covers. */
static gboolean
fits_context (AnotBackendRouter  *self,
              Route              *route,
              AnotChatRequest    *request,
              gboolean            refusal,
              gboolean            whole_count,
              guint64            *counted_tokens,
              guint64            *counted_bytes,
              guint64            *max_prompt_tokens,
              GError            **error)
{
  const char *model = anot_chat_request_get_model (request);
  g_autoptr(AnotTokenizer) tokenizer = NULL;
  guint64 prompt = 0, room, window, bytes = 0;
  gboolean complete = TRUE;

  room = request_room (self, request, &window);
  if (window > 0)
    prompt = count_prompt (self, request, whole_count ? G_MAXUINT64 : room, &complete, &bytes, &tokenizer);
  if (counted_tokens != NULL)
    *counted_tokens = prompt;
  if (counted_bytes != NULL)
    *counted_bytes = bytes;
  if (max_prompt_tokens != NULL)
    *max_prompt_tokens = room;
  if (prompt <= room)
    return TRUE;
  if (refusal)
    self->n_not_sent++;
  g_set_error (error, ANOT_ERROR, ANOT_ERROR_LLM_BAD_REQUEST,
               "%s:%s (role %s): not sent: the prompt has %s%" G_GUINT64_FORMAT " tokens (%s) "
               "and %" G_GUINT64_FORMAT " are reserved for the answer, more than the model's "
               "maximum context length of %" G_GUINT64_FORMAT " tokens",
               route->backend_name, model ? model : "default model", anot_chat_request_get_role (request),
               /* A count that stopped past the room is a lower bound. */
               complete ? "" : "at least ", prompt,
               /* The approximation's encoding is named "approximate". */
               anot_tokenizer_is_exact (tokenizer) ? anot_tokenizer_get_encoding (tokenizer)
                                                   : "approximated: one per 4 bytes",
               anot_chat_request_get_max_tokens (request) > 0
               ? (guint64) anot_chat_request_get_max_tokens (request) : 0,
               window);
  return FALSE;
}

/* @request as the route of @role would send it, or NULL when @role has no
 * route (the call itself reports that). */
static AnotChatRequest *
routed_copy (AnotBackendRouter  *self,
             const char         *role,
             AnotChatRequest    *request,
             Route             **route_out)
{
  AnotChatRequest *copy;
  Route *route = find_route (self, role, NULL);

  *route_out = route;
  if (route == NULL)
    return NULL;
  copy = anot_chat_request_copy (request);
  anot_chat_request_set_role (copy, role);
  if (anot_chat_request_get_model (copy) == NULL)
    anot_chat_request_set_model (copy, route_model (route));
  return copy;
}

/**
 * anot_backend_router_check_fit:
 * @self: an #AnotBackendRouter
 * @role: the role that would make the call
 * @request: the call; not changed
 * @prompt_tokens: (out) (optional): return location for its prompt tokens
 *   as the router counts them (0 when the model has no known window)
 * @max_prompt_tokens: (out) (optional): return location for the most
 *   prompt tokens the call may have: the window less the answer's
 *   `max_tokens` (%G_MAXUINT64 when no window is known)
 * @error: return location for a #GError
 *
 * Checks, without sending anything, whether
 * anot_backend_router_complete_async() would send @request as far as the
 * context window goes, so a method can fit its prompt by counting
 * candidate prompts instead of sending them.  The count is kept for a
 * while: sending the same request afterwards does not count it again.
 * Without @prompt_tokens, a prompt that does not fit is counted only
 * until its count passes the room (see anot_backend_router_check_fit_counted()).
 * Not counted in [method@Anot.BackendRouter.get_n_not_sent].
 *
 * Returns: %TRUE if the request fits (or the role has no route, which
 *   the call itself reports); %FALSE with the %ANOT_ERROR_LLM_BAD_REQUEST
 *   the call would fail with
 */
gboolean
anot_backend_router_check_fit (AnotBackendRouter  *self,
                               const char         *role,
                               AnotChatRequest    *request,
                               guint64            *prompt_tokens,
                               guint64            *max_prompt_tokens,
                               GError            **error)
{
  g_autoptr(AnotChatRequest) copy = NULL;
  Route *route;

  g_return_val_if_fail (ANOT_IS_BACKEND_ROUTER (self), FALSE);
  g_return_val_if_fail (role != NULL, FALSE);
  g_return_val_if_fail (ANOT_IS_CHAT_REQUEST (request), FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if (prompt_tokens != NULL)
    *prompt_tokens = 0;
  if (max_prompt_tokens != NULL)
    *max_prompt_tokens = G_MAXUINT64;
  copy = routed_copy (self, role, request, &route);
  if (copy == NULL)
    return TRUE;
  return fits_context (self, route, copy, FALSE, prompt_tokens != NULL, prompt_tokens, NULL,
                       max_prompt_tokens, error);
}

/**
 * anot_backend_router_check_fit_counted:
 * @self: an #AnotBackendRouter
 * @role: the role that would make the call
 * @request: the call; not changed
 * @counted_tokens: (out) (optional): return location for the tokens
 *   counted: the prompt's tokens when the call fits; when it does not,
 *   counting stopped once it passed the room, and this is a number above
 *   @max_prompt_tokens and at most the prompt's tokens (0 when the model
 *   has no known window)
 * @counted_bytes: (out) (optional): return location for the bytes of the
 *   messages' contents whose tokens were counted (all of them when the
 *   call fits)
 * @max_prompt_tokens: (out) (optional): return location for the most
 *   prompt tokens the call may have (%G_MAXUINT64 when no window is known)
 *
 * Like anot_backend_router_check_fit(), for a call that may be far too
 * long: a prompt beyond the window is counted only until the count passes
 * the room, which is all a refusal needs (a prompt of 640k tokens is known
 * not to fit a 128k window after 128k).  What was counted still tells the
 * tokens per byte of the prompt's beginning, from which a method can guess
 * how much to drop.  The count of a prompt that does not fit is not its
 * token count and must not be reported as one.  Counts are kept for a
 * while as with anot_backend_router_check_fit().  No error is set: the
 * counts are what a caller of this function wants (and a binding that
 * raises errors would lose them); anot_backend_router_check_fit() says
 * why a call would be refused.
 *
 * Returns: %TRUE if the request fits (or the role has no route)
 */
gboolean
anot_backend_router_check_fit_counted (AnotBackendRouter  *self,
                                       const char         *role,
                                       AnotChatRequest    *request,
                                       guint64            *counted_tokens,
                                       guint64            *counted_bytes,
                                       guint64            *max_prompt_tokens)
{
  g_autoptr(AnotChatRequest) copy = NULL;
  Route *route;

  g_return_val_if_fail (ANOT_IS_BACKEND_ROUTER (self), FALSE);
  g_return_val_if_fail (role != NULL, FALSE);
  g_return_val_if_fail (ANOT_IS_CHAT_REQUEST (request), FALSE);

  if (counted_tokens != NULL)
    *counted_tokens = 0;
  if (counted_bytes != NULL)
    *counted_bytes = 0;
  if (max_prompt_tokens != NULL)
    *max_prompt_tokens = G_MAXUINT64;
  copy = routed_copy (self, role, request, &route);
  if (copy == NULL)
    return TRUE;
  return fits_context (self, route, copy, FALSE, FALSE, counted_tokens, counted_bytes,
                       max_prompt_tokens, NULL);
}

/**
 * anot_backend_router_set_context_tokens:
 * @self: an #AnotBackendRouter
 * @context_tokens: the context window of every model in tokens, or 0 for
 *   each model's from the price table (`context`; none when unknown)
 *
 * Sets the context window prompts are fitted to before they are sent: a
 * call whose prompt and `max_tokens` would not fit fails at once with
 * %ANOT_ERROR_LLM_BAD_REQUEST naming the maximum context length, without
 * reaching the server.
 */
void
anot_backend_router_set_context_tokens (AnotBackendRouter *self,
                                        guint64            context_tokens)
{
  g_return_if_fail (ANOT_IS_BACKEND_ROUTER (self));
  self->context_tokens = context_tokens;
}

/**
 * anot_backend_router_get_n_not_sent:
 * @self: an #AnotBackendRouter
 *
 * Returns: the calls refused before sending because their prompt did not
 *   fit the model's context window
 */
guint64
anot_backend_router_get_n_not_sent (AnotBackendRouter *self)
{
  g_return_val_if_fail (ANOT_IS_BACKEND_ROUTER (self), 0);
  return self->n_not_sent;
}

/**
 * anot_backend_router_is_backlogged:
 * @self: an #AnotBackendRouter
 * @role: a role name
 *
 * Whether a call of @role sent now would wait behind a full round of
 * calls: its HTTP backend already has as many calls waiting for a slot as
 * it runs at once ([property@Anot.HttpBackend:concurrency-limit]).  A
 * method that has many calls to make (one per candidate) keeps the rest
 * unwritten while this holds and one of its calls is out: the backend has
 * work for a whole round anyway, and a written prompt waiting in the
 * queue is memory held for nothing (at `-j 64`, thousands of them).  A
 * run with few calls out never sees it, so holding back never slows it.
 *
 * Nothing is resolved: a role whose route is not built yet, or whose
 * backend is not an HTTP backend (a batch queue collects calls on
 * purpose), is not backlogged.
 *
 * Returns: %TRUE when @role's backend already has a round of calls waiting
 */
gboolean
anot_backend_router_is_backlogged (AnotBackendRouter *self,
                                   const char        *role)
{
  Route *route;
  AnotHttpBackend *http;
  guint limit;

  g_return_val_if_fail (ANOT_IS_BACKEND_ROUTER (self), FALSE);
  g_return_val_if_fail (role != NULL, FALSE);

  route = g_hash_table_lookup (self->routes, role);
  if (route == NULL)
    route = g_hash_table_lookup (self->routes, ANOT_DEFAULT_ROLE);
  if (route == NULL || !ANOT_IS_HTTP_BACKEND (route->backend))
    return FALSE;

  http = ANOT_HTTP_BACKEND (route->backend);
  limit = anot_http_backend_get_max_concurrency (http);
  return limit > 0 && anot_http_backend_get_n_queued (http) >= limit;
}

/* Like anot_backend_router_complete_async(), on a copy the caller gives
 * away (the method context makes one anyway). */
void
anot_backend_router_complete_copy_async (AnotBackendRouter   *self,
                                         const char          *role,
                                         AnotChatRequest     *copy,
                                         GCancellable        *cancellable,
                                         GAsyncReadyCallback  callback,
                                         gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;
  g_autoptr(GError) error = NULL;
  CallData *data;
  Route *route;

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, anot_backend_router_complete_async);
  g_task_set_name (task, "[anot] routed LLM call");
  /* An answer that arrived as the call was cancelled was paid for: it is
   * handed on (the method context journals and counts it), not turned
   * into G_IO_ERROR_CANCELLED.  The backend returns that error itself
   * when the call ended cancelled. */
  g_task_set_check_cancellable (task, FALSE);

  route = find_route (self, role, &error);
  if (route == NULL)
    {
      g_object_unref (copy);
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }

  anot_chat_request_set_role (copy, role);
  if (anot_chat_request_get_model (copy) == NULL)
    anot_chat_request_set_model (copy, route_model (route));
  if (!fits_context (self, route, copy, TRUE, FALSE, NULL, NULL, NULL, &error))
    {
      g_object_unref (copy);
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }
  if (anot_chat_request_get_temperature (copy) < 0)
    anot_chat_request_set_temperature (copy, anot_chat_request_get_temperature (route->defaults));
  if (anot_chat_request_get_max_tokens (copy) == 0)
    anot_chat_request_set_max_tokens (copy, anot_chat_request_get_max_tokens (route->defaults));
  if (anot_chat_request_get_top_p (copy) < 0)
    anot_chat_request_set_top_p (copy, anot_chat_request_get_top_p (route->defaults));
  if (anot_chat_request_get_seed (copy) == ANOT_CHAT_REQUEST_SEED_UNSET)
    anot_chat_request_set_seed (copy, anot_chat_request_get_seed (route->defaults));

  data = g_new0 (CallData, 1);
  data->role = g_strdup (role);
  data->backend_name = g_strdup (route->backend_name);
  data->model = g_strdup (anot_chat_request_get_model (copy));
  g_task_set_task_data (task, data, (GDestroyNotify) call_data_free);

  anot_backend_complete_async (route->effective, copy, cancellable, on_backend_done,
                               g_steal_pointer (&task));
  g_object_unref (copy);
}

gboolean
anot_backend_router_estimate_call (AnotBackendRouter *self,
                                   const char        *role,
                                   AnotChatRequest   *request,
                                   guint              completion_tokens,
                                   gboolean           batch,
                                   double            *out_cost,
                                   GError           **error)
{
  g_autoptr(AnotChatRequest) routed = NULL;
  guint64 prompt, answer;
  gboolean whole;
  double input, output;
  Route *route;

  g_return_val_if_fail (ANOT_IS_BACKEND_ROUTER (self), FALSE);

  *out_cost = 0;
  route = find_route (self, role, error);
  if (route == NULL)
    return FALSE;
  /* Counted under the model it is sent to, so that the count is the one
   * context fitting keeps. */
  routed = anot_chat_request_copy (request);
  if (anot_chat_request_get_model (routed) == NULL)
    anot_chat_request_set_model (routed, route_model (route));
  if (anot_chat_request_get_max_tokens (routed) == 0)
    anot_chat_request_set_max_tokens (routed, anot_chat_request_get_max_tokens (route->defaults));
  prompt = count_prompt (self, routed, G_MAXUINT64, &whole, NULL, NULL);
  /* Past the window it is refused unsent: it costs nothing. */
  if (prompt > request_room (self, routed, NULL))
    return TRUE;
  answer = anot_chat_request_get_max_tokens (routed) > 0
           ? (guint64) anot_chat_request_get_max_tokens (routed) : completion_tokens;
  lookup_prices (self, anot_chat_request_get_model (routed), batch, &input, &output);
  *out_cost = prompt / 1e6 * input + answer / 1e6 * output;
  return TRUE;
}

/**
 * anot_backend_router_complete_finish:
 * @self: an #AnotBackendRouter
 * @result: the #GAsyncResult passed to the callback
 * @error: return location for a #GError
 *
 * Finishes a call.  The completion has its
 * [property@Anot.Completion:role] and, unless the backend priced it, its
 * [property@Anot.Completion:cost-usd] set.  Error messages start with
 * `BACKEND:MODEL (role ROLE): `.
 *
 * Returns: (transfer full): the completion
 */
AnotCompletion *
anot_backend_router_complete_finish (AnotBackendRouter  *self,
                                     GAsyncResult       *result,
                                     GError            **error)
{
  g_return_val_if_fail (ANOT_IS_BACKEND_ROUTER (self), NULL);
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);

  return g_task_propagate_pointer (G_TASK (result), error);
}
