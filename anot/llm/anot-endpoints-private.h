/* anot-endpoints-private.h: the endpoints of an HTTP backend with several
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* One server of a backend's base-url list. */
typedef struct
{
  char *base_url;              /* without its options, as shown in usage */
  GUri *uri;                   /* base URL + the class's endpoint path */
  guint weight;                /* share of the calls, relative (default 1) */
  guint max_concurrency;       /* its own bound on calls in flight; 0: none */
  guint adaptive_limit;        /* what its adaptive concurrency allows; 0: none */
  guint n_in_flight;

  /* Health: a cool-down after repeated refused connections or timeouts,
   * then one probe call before it takes its share again. */
  guint consecutive_failures;
  guint n_cooldowns;           /* in a row, for the exponential back-off */
  gint64 cooldown_until_us;    /* monotonic; 0 when usable */
  gboolean probing;
} AnotEndpoint;

/* Failures in a row (refused connection, timeout) that take an endpoint
 * out. */
#define ANOT_ENDPOINT_FAILURES_BEFORE_COOLDOWN 2

G_GNUC_INTERNAL GPtrArray    *anot_endpoints_parse    (const char   *list,
                                                       const char   *endpoint_path,
                                                       const char   *backend_name,
                                                       GError      **error);
G_GNUC_INTERNAL AnotEndpoint *anot_endpoints_pick     (GPtrArray    *endpoints,
                                                       AnotEndpoint *avoid,
                                                       gint64        now_us,
                                                       gint64       *out_wake_us);
G_GNUC_INTERNAL void          anot_endpoint_succeeded (AnotEndpoint *endpoint);
G_GNUC_INTERNAL gboolean      anot_endpoint_failed    (AnotEndpoint *endpoint,
                                                       gint64        now_us,
                                                       guint         cooldown_base_ms,
                                                       guint         cooldown_max_ms);

G_END_DECLS
