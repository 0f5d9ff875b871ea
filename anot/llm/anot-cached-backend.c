/* anot-cached-backend.c: a response cache in front of a backend
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "anot-cached-backend.h"

#include "anot-backend-private.h"

#include "anot-error.h"

/**
 * AnotCachedBackend:
 *
 * A backend decorator: answers from an [class@Anot.ResponseCache] when it
 * has the answer, else asks the backend it wraps and stores the answer.
 * Offline, it never asks: a miss fails with %ANOT_ERROR_CACHE_MISS naming
 * the request and the role of the call.
 *
 * `anot-run --cache FILE` puts one in front of every backend; `--offline`
 * makes them cache-only.
 */

struct _AnotCachedBackend
{
  GObject parent_instance;

  AnotBackend *inner;
  char *backend_name;
  AnotResponseCache *cache;
  gboolean offline;
};

static void anot_cached_backend_backend_iface_init (AnotBackendInterface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE (AnotCachedBackend, anot_cached_backend, G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (ANOT_TYPE_BACKEND,
                                                      anot_cached_backend_backend_iface_init))

enum {
  PROP_0,
  PROP_INNER,
  PROP_BACKEND_NAME,
  PROP_CACHE,
  PROP_OFFLINE,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

typedef struct
{
  char *key;
  AnotChatRequest *request;
} StoreData;

static void
store_data_free (StoreData *data)
{
  g_free (data->key);
  g_clear_object (&data->request);
  g_free (data);
}

static void
anot_cached_backend_finalize (GObject *object)
{
  AnotCachedBackend *self = ANOT_CACHED_BACKEND (object);

  g_clear_object (&self->inner);
  g_free (self->backend_name);
  g_clear_object (&self->cache);

  G_OBJECT_CLASS (anot_cached_backend_parent_class)->finalize (object);
}

static void
anot_cached_backend_get_property (GObject    *object,
                                  guint       prop_id,
                                  GValue     *value,
                                  GParamSpec *pspec)
{
  AnotCachedBackend *self = ANOT_CACHED_BACKEND (object);

  switch (prop_id)
    {
    case PROP_INNER:
      g_value_set_object (value, self->inner);
      break;
    case PROP_BACKEND_NAME:
      g_value_set_string (value, self->backend_name);
      break;
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
anot_cached_backend_set_property (GObject      *object,
                                  guint         prop_id,
                                  const GValue *value,
                                  GParamSpec   *pspec)
{
  AnotCachedBackend *self = ANOT_CACHED_BACKEND (object);

  switch (prop_id)
    {
    case PROP_INNER:
      self->inner = g_value_dup_object (value);
      break;
    case PROP_BACKEND_NAME:
      self->backend_name = g_value_dup_string (value);
      break;
    case PROP_CACHE:
      self->cache = g_value_dup_object (value);
      break;
    case PROP_OFFLINE:
      self->offline = g_value_get_boolean (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
anot_cached_backend_class_init (AnotCachedBackendClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = anot_cached_backend_finalize;
  object_class->get_property = anot_cached_backend_get_property;
  object_class->set_property = anot_cached_backend_set_property;

  /**
   * AnotCachedBackend:inner:
   *
   * The backend asked on a miss; %NULL offline.
   */
  properties[PROP_INNER] =
    g_param_spec_object ("inner", NULL, NULL, ANOT_TYPE_BACKEND,
                         G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS);
  /**
   * AnotCachedBackend:backend-name:
   *
   * The registered name of the inner backend, part of the cache key.
   */
  properties[PROP_BACKEND_NAME] =
    g_param_spec_string ("backend-name", NULL, NULL, NULL,
                         G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS);
  /**
   * AnotCachedBackend:cache:
   *
   * Where answers are stored.
   */
  properties[PROP_CACHE] =
    g_param_spec_object ("cache", NULL, NULL, ANOT_TYPE_RESPONSE_CACHE,
                         G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS);
  /**
   * AnotCachedBackend:offline:
   *
   * Whether a miss is an error rather than a call to the inner backend.
   */
  properties[PROP_OFFLINE] =
    g_param_spec_boolean ("offline", NULL, NULL, FALSE,
                          G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS);

  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
anot_cached_backend_init (AnotCachedBackend *self)
{
}

/**
 * anot_cached_backend_new:
 * @inner: (nullable): the backend asked on a miss; may be %NULL when
 *   @offline
 * @backend_name: the registered name of @inner ("openai"), part of the key
 * @cache: where answers are stored
 * @offline: whether a miss is an error rather than a call to @inner
 *
 * Returns: (transfer full): a new backend
 */
AnotBackend *
anot_cached_backend_new (AnotBackend       *inner,
                         const char        *backend_name,
                         AnotResponseCache *cache,
                         gboolean           offline)
{
  g_return_val_if_fail (inner == NULL || ANOT_IS_BACKEND (inner), NULL);
  g_return_val_if_fail (inner != NULL || offline, NULL);
  g_return_val_if_fail (backend_name != NULL, NULL);
  g_return_val_if_fail (ANOT_IS_RESPONSE_CACHE (cache), NULL);

  return g_object_new (ANOT_TYPE_CACHED_BACKEND,
                       "inner", inner,
                       "backend-name", backend_name,
                       "cache", cache,
                       "offline", offline,
                       NULL);
}

/**
 * anot_cached_backend_get_inner:
 * @self: an #AnotCachedBackend
 *
 * Returns: (transfer none) (nullable): the wrapped backend
 */
AnotBackend *
anot_cached_backend_get_inner (AnotCachedBackend *self)
{
  g_return_val_if_fail (ANOT_IS_CACHED_BACKEND (self), NULL);
  return self->inner;
}

static void
on_inner_done (GObject      *source,
               GAsyncResult *result,
               gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  AnotCachedBackend *self = g_task_get_source_object (task);
  StoreData *data = g_task_get_task_data (task);
  g_autoptr(GError) error = NULL;
  g_autoptr(AnotCompletion) completion = NULL;

  completion = anot_backend_complete_finish (ANOT_BACKEND (source), result, &error);
  if (completion == NULL)
    {
      AnotCancelledCall cancelled;

      if (anot_backend_result_get_cancelled_in_flight (result, &cancelled))
        anot_backend_task_set_cancelled_in_flight (task, &cancelled);
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }
  /* A cache that cannot be written should not lose the answer. */
  if (!anot_response_cache_store (self->cache, data->key, self->backend_name, data->request,
                                  completion, &error))
    g_warning ("%s", error->message);
  g_task_return_pointer (task, g_steal_pointer (&completion), g_object_unref);
}

static void
anot_cached_backend_complete_async (AnotBackend         *backend,
                                    AnotChatRequest     *request,
                                    GCancellable        *cancellable,
                                    GAsyncReadyCallback  callback,
                                    gpointer             user_data)
{
  AnotCachedBackend *self = ANOT_CACHED_BACKEND (backend);
  g_autoptr(GTask) task = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(AnotCompletion) completion = NULL;
  g_autofree char *key = NULL;
  StoreData *data;

  task = g_task_new (self, cancellable, callback, user_data);
  /* An answer that arrived as the call was cancelled is kept, as the
   * backend it wraps keeps it. */
  g_task_set_check_cancellable (task, FALSE);
  g_task_set_source_tag (task, anot_cached_backend_complete_async);
  g_task_set_name (task, "[anot] cached LLM call");

  key = anot_chat_request_hash (request, self->backend_name);
  completion = anot_response_cache_lookup (self->cache, key, &error);
  if (error != NULL)
    {
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }
  if (completion != NULL)
    {
      g_task_return_pointer (task, g_steal_pointer (&completion), g_object_unref);
      return;
    }

  if (self->offline || self->inner == NULL)
    {
      const char *request_id = anot_chat_request_get_request_id (request);
      const char *role = anot_chat_request_get_role (request);
      const char *model = anot_chat_request_get_model (request);

      g_task_return_new_error (task, ANOT_ERROR, ANOT_ERROR_CACHE_MISS,
                               "Offline: no answer for request %s, role %s in the response "
                               "cache %s (%s:%s, key %.12s)",
                               request_id ? request_id : "(none)", role ? role : "(none)",
                               anot_response_cache_get_path (self->cache),
                               self->backend_name, model ? model : "(default model)", key);
      return;
    }

  data = g_new0 (StoreData, 1);
  data->key = g_steal_pointer (&key);
  data->request = g_object_ref (request);
  g_task_set_task_data (task, data, (GDestroyNotify) store_data_free);
  anot_backend_complete_async (self->inner, request, cancellable, on_inner_done,
                               g_steal_pointer (&task));
}

static AnotCompletion *
anot_cached_backend_complete_finish (AnotBackend   *backend,
                                     GAsyncResult  *result,
                                     GError       **error)
{
  g_return_val_if_fail (g_task_is_valid (result, backend), NULL);

  return g_task_propagate_pointer (G_TASK (result), error);
}

static void
anot_cached_backend_backend_iface_init (AnotBackendInterface *iface)
{
  iface->complete_async = anot_cached_backend_complete_async;
  iface->complete_finish = anot_cached_backend_complete_finish;
}
