/* anot-endpoints.c: several servers behind one HTTP backend
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The list syntax, the choice of a server for each call (least
 * outstanding calls, weighted) and the health of each server (cool-down
 * with exponential back-off, then a probe).  The HTTP backend owns the
 * calls; this file only keeps the books.
 */
#include "config.h"

#include "anot-endpoints-private.h"

#include "anot-error.h"

#include <libsoup/soup.h>
#include <string.h>

static void
endpoint_free (gpointer data)
{
  AnotEndpoint *endpoint = data;

  g_free (endpoint->base_url);
  g_clear_pointer (&endpoint->uri, g_uri_unref);
  g_free (endpoint);
}

static gboolean
parse_option (AnotEndpoint  *endpoint,
              const char    *option,
              const char    *item,
              GError       **error)
{
  const char *eq = strchr (option, '=');
  g_autofree char *name = eq ? g_strndup (option, eq - option) : g_strdup (option);
  guint64 value;

  g_strstrip (name);
  if (eq != NULL && g_ascii_string_to_unsigned (g_strstrip ((char *) eq + 1), 10, 1, 100000, &value, NULL))
    {
      if (strcmp (name, "weight") == 0)
        {
          endpoint->weight = (guint) value;
          return TRUE;
        }
      if (strcmp (name, "max_concurrency") == 0)
        {
          endpoint->max_concurrency = (guint) value;
          return TRUE;
        }
    }
  g_set_error (error, ANOT_ERROR, ANOT_ERROR_CONFIG,
               "Invalid option “%s” of the endpoint “%s”: expected weight=N or "
               "max_concurrency=N (N from 1 to 100000)", option, item);
  return FALSE;
}

/* "URL[;weight=W][;max_concurrency=C],URL..." -> AnotEndpoint array. */
GPtrArray *
anot_endpoints_parse (const char  *list,
                      const char  *endpoint_path,
                      const char  *backend_name,
                      GError     **error)
{
  g_autoptr(GPtrArray) endpoints = g_ptr_array_new_with_free_func (endpoint_free);
  g_auto(GStrv) items = g_strsplit (list ? list : "", ",", -1);

  for (guint i = 0; items[i] != NULL; i++)
    {
      char *item = g_strstrip (items[i]);
      g_auto(GStrv) parts = NULL;
      g_autofree char *full = NULL;
      AnotEndpoint *endpoint;
      gsize len;

      if (*item == '\0')
        continue;
      parts = g_strsplit (item, ";", -1);
      endpoint = g_new0 (AnotEndpoint, 1);
      endpoint->weight = 1;
      g_ptr_array_add (endpoints, endpoint);
      for (guint p = 1; parts[p] != NULL; p++)
        if (!parse_option (endpoint, parts[p], item, error))
          return NULL;

      endpoint->base_url = g_strdup (g_strstrip (parts[0]));
      len = strlen (endpoint->base_url);
      while (len > 0 && endpoint->base_url[len - 1] == '/')
        endpoint->base_url[--len] = '\0';
      full = g_strconcat (endpoint->base_url, endpoint_path ? endpoint_path : "", NULL);
      endpoint->uri = g_uri_parse (full, SOUP_HTTP_URI_FLAGS, NULL);
      if (endpoint->uri == NULL ||
          (g_strcmp0 (g_uri_get_scheme (endpoint->uri), "http") != 0 &&
           g_strcmp0 (g_uri_get_scheme (endpoint->uri), "https") != 0) ||
          g_uri_get_host (endpoint->uri) == NULL || *g_uri_get_host (endpoint->uri) == '\0')
        {
          g_set_error (error, ANOT_ERROR, ANOT_ERROR_CONFIG,
                       "Invalid base URL “%s” for the %s backend: expected "
                       "http://HOST[:PORT]/PATH or https://…", parts[0],
                       backend_name ? backend_name : "HTTP");
          return NULL;
        }
      for (guint j = 0; j + 1 < endpoints->len; j++)
        if (strcmp (((AnotEndpoint *) g_ptr_array_index (endpoints, j))->base_url,
                    endpoint->base_url) == 0)
          {
            g_set_error (error, ANOT_ERROR, ANOT_ERROR_CONFIG,
                         "The base URL “%s” is listed twice for the %s backend "
                         "(use ;weight=N to give it a larger share)",
                         endpoint->base_url, backend_name ? backend_name : "HTTP");
            return NULL;
          }
    }
  if (endpoints->len == 0)
    {
      g_set_error (error, ANOT_ERROR, ANOT_ERROR_CONFIG,
                   "Invalid base URL “%s” for the %s backend: expected "
                   "http://HOST[:PORT]/PATH or https://…", list ? list : "",
                   backend_name ? backend_name : "HTTP");
      return NULL;
    }
  return g_steal_pointer (&endpoints);
}

static gboolean
usable (AnotEndpoint *endpoint,
        gint64        now_us,
        gint64       *wake_us)
{
  if (endpoint->cooldown_until_us > now_us)
    {
      if (*wake_us == 0 || endpoint->cooldown_until_us < *wake_us)
        *wake_us = endpoint->cooldown_until_us;
      return FALSE;
    }
  if (endpoint->cooldown_until_us != 0)
    {
      /* The cool-down is over: one probe call decides. */
      endpoint->cooldown_until_us = 0;
      endpoint->probing = TRUE;
    }
  if (endpoint->probing && endpoint->n_in_flight > 0)
    return FALSE;
  if (endpoint->adaptive_limit > 0 && endpoint->n_in_flight >= endpoint->adaptive_limit)
    return FALSE;
  return endpoint->max_concurrency == 0 || endpoint->n_in_flight < endpoint->max_concurrency;
}

/* The usable endpoint with the fewest calls in flight per unit of weight
 * (ties: the first listed), other than @avoid unless it is the only one.
 * NULL when none is usable; then *@out_wake_us is when the first
 * cool-down ends (0: none is cooling down, a call finishing frees one). */
AnotEndpoint *
anot_endpoints_pick (GPtrArray    *endpoints,
                     AnotEndpoint *avoid,
                     gint64        now_us,
                     gint64       *out_wake_us)
{
  AnotEndpoint *best = NULL;
  gboolean avoid_usable = FALSE;
  gint64 wake_us = 0;

  for (guint i = 0; i < endpoints->len; i++)
    {
      AnotEndpoint *endpoint = g_ptr_array_index (endpoints, i);

      if (!usable (endpoint, now_us, &wake_us))
        continue;
      if (endpoint == avoid)
        {
          avoid_usable = TRUE;
          continue;
        }
      /* (a + 1) / wa < (b + 1) / wb, in integers */
      if (best == NULL ||
          (guint64) (endpoint->n_in_flight + 1) * best->weight <
          (guint64) (best->n_in_flight + 1) * endpoint->weight)
        best = endpoint;
    }
  if (best == NULL && avoid_usable)
    best = avoid;
  if (out_wake_us != NULL)
    *out_wake_us = wake_us;
  return best;
}

void
anot_endpoint_succeeded (AnotEndpoint *endpoint)
{
  endpoint->consecutive_failures = 0;
  endpoint->n_cooldowns = 0;
  endpoint->probing = FALSE;
}

/* A refused connection or a timeout.  Returns TRUE when it took the
 * endpoint out: after ANOT_ENDPOINT_FAILURES_BEFORE_COOLDOWN in a row, or
 * at once when its probe failed; for base × 2^(cool-downs in a row),
 * at most max. */
gboolean
anot_endpoint_failed (AnotEndpoint *endpoint,
                      gint64        now_us,
                      guint         cooldown_base_ms,
                      guint         cooldown_max_ms)
{
  guint64 ms;

  endpoint->consecutive_failures++;
  if (!endpoint->probing &&
      endpoint->consecutive_failures < ANOT_ENDPOINT_FAILURES_BEFORE_COOLDOWN)
    return FALSE;

  ms = MIN ((guint64) MAX (cooldown_base_ms, 1) << MIN (endpoint->n_cooldowns, 20),
            (guint64) MAX (cooldown_max_ms, 1));
  endpoint->n_cooldowns++;
  endpoint->probing = FALSE;
  endpoint->consecutive_failures = 0;
  endpoint->cooldown_until_us = now_us + (gint64) ms * 1000;
  g_debug ("LLM endpoint %s: taken out for %" G_GUINT64_FORMAT " ms", endpoint->base_url, ms);
  return TRUE;
}
