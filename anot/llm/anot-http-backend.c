/* anot-http-backend.c: what every HTTP LLM backend shares
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "anot-http-backend.h"

#include "anot-endpoints-private.h"
#include "anot-http-pacer-private.h"
#include "anot-backend-private.h"
#include "anot-batch-queue-private.h"
#include "anot-error.h"
#include "anot-error-private.h"
#include "anot-json-private.h"

#include <libsoup/soup.h>
#include <string.h>

/**
 * AnotHttpBackend:
 *
 * The base class of LLM backends that talk to a server over HTTP with
 * libsoup: the `openai` and `anthropic` plugins derive from it and only
 * describe their wire format (see [struct@Anot.HttpBackendClass]).
 *
 * It provides, for every subclass:
 *
 * - a bound on the calls in flight
 *   ([property@Anot.HttpBackend:max-concurrency]); calls beyond it wait in
 *   a queue that is FIFO within a benchmark request and round-robin across
 *   requests ([property@Anot.ChatRequest:request-id]), so one request with
 *   many calls does not starve the others;
 * - a timeout per attempt ([property@Anot.HttpBackend:timeout-ms]),
 *   covering the whole answer, body included;
 * - retries ([property@Anot.HttpBackend:max-retries]) on HTTP 429, 408,
 *   409 and 5xx, on timeouts, on connection errors (refused, reset, closed
 *   in the middle of the body) and on malformed answers, with exponential
 *   backoff and jitter: attempt *n* waits min(`retry-max-ms`,
 *   `retry-base-ms` × 2^(n-1)) plus a uniform jitter below `retry-base-ms`,
 *   unless the server said how long to wait (`Retry-After` in seconds or
 *   as an HTTP date, or `retry-after-ms`), which is honoured exactly;
 * - cancellation through the #GCancellable of each call, wherever the call
 *   is (queued, on the wire, waiting to retry);
 * - errors a user can act on: %ANOT_ERROR_LLM_AUTH (401, 403; not retried,
 *   names the environment variable and configuration key of the API key),
 *   %ANOT_ERROR_LLM_BAD_REQUEST (other 4xx; not retried; the server's own
 *   message), %ANOT_ERROR_LLM_RATE_LIMITED, %ANOT_ERROR_LLM_SERVER,
 *   %ANOT_ERROR_LLM_TIMEOUT, %ANOT_ERROR_LLM_CONNECTION,
 *   %ANOT_ERROR_LLM_PROTOCOL (after the last retry),
 *   %ANOT_ERROR_LLM_EMPTY and %ANOT_ERROR_LLM_REFUSED;
 * - the completion's [property@Anot.Completion:latency-ms] (from the first
 *   attempt to the answer, retries included) and
 *   [property@Anot.Completion:retries].
 *
 * Costs are not computed here but by the [class@Anot.BackendRouter],
 * which knows the configured prices.
 *
 * The API key is never part of an error message, a log line or a result
 * file.  A backend must be used from one thread: it runs on the
 * thread-default main context of the caller.
 */

#define DEFAULT_TIMEOUT_MS 90000
#define DEFAULT_MAX_RETRIES 5
#define DEFAULT_RETRY_BASE_MS 1000
#define DEFAULT_RETRY_MAX_MS 30000
#define DEFAULT_MAX_CONCURRENCY 64

typedef enum {
  CALL_QUEUED,
  CALL_RUNNING,
  CALL_BACKOFF,
  CALL_DONE,
} CallState;

typedef struct
{
  AnotHttpBackend *self;
  GTask *task;
  char *queue_key;
  char *model;
  GUri *uri;
  const char *method;        /* static: "POST", "GET" */
  char *content_type;
  gboolean raw;              /* answer with the body's bytes, not a completion */
  GBytes *body;
  /* A chat call's body is written when the call leaves its queue (then
   * the request is dropped): a run with many requests in flight can
   * queue thousands of calls, and their bodies were a quarter of its
   * heap.  So are the headers, for the same reason. */
  AnotChatRequest *request;
  char **headers;
  CallState state;
  guint attempts;
  gint64 started_us;
  gboolean user_cancelled;
  gboolean body_written;       /* this attempt's request reached the wire whole */
  gboolean timed_out;
  GCancellable *attempt_cancellable;
  GSource *timeout_source;
  GSource *backoff_source;
  GSource *cancel_source;
  GError *last_error;
  SoupMessage *msg;          /* of the attempt on the wire */
  GInputStream *stream;      /* its response body, once the headers are in */
  GByteArray *answer;        /* the body read so far */
  GSource *read_source;      /* waiting for more of the body */
  /* With several endpoints (NULL otherwise): the list the call was made
   * with, the endpoint of the attempt on the wire, the one that failed
   * last (tried elsewhere next) and the base URLs of failed attempts. */
  GPtrArray *endpoints;
  AnotEndpoint *endpoint;
  AnotEndpoint *avoid;
  GPtrArray *failed_endpoints;
  /* Pacing: the call's size as rate limits count it (set once), the
   * limiter of its endpoint × model that admitted the attempt on the
   * wire, when it was sent and how many were in flight then. */
  gboolean sized;
  guint64 input_tokens;
  guint64 output_tokens;
  AnotRateLimiter *limiter;
  gint64 admitted_us;
  gint64 sent_us;
  guint in_flight_at_send;
} Call;

/* An answer larger than this is an error, not a reason to grow without
 * bound: real completions are a few kilobytes. */
#define MAX_ANSWER_BYTES (64u * 1024 * 1024)

typedef struct
{
  char *base_url;
  char *api_key;
  char *model;
  guint timeout_ms;
  guint max_retries;
  guint retry_base_ms;
  guint retry_max_ms;
  guint max_concurrency;

  SoupSession *session;
  GUri *uri;                 /* base URL + endpoint, parsed */
  GPtrArray *endpoints;      /* AnotEndpoint, when base-url lists several */
  GSource *wake_source;      /* the end of a cool-down, when all are out */
  GHashTable *queues;        /* queue key -> GQueue of Call */
  GQueue ring;               /* queue keys (owned by `queues`), round-robin */
  guint n_queued;
  guint n_in_flight;
  guint64 n_retries;

  AnotBatchQueue *batch_queue;
  AnotHttpPacer *pacer;
} AnotHttpBackendPrivate;

static void anot_http_backend_backend_iface_init (AnotBackendInterface *iface);

G_DEFINE_ABSTRACT_TYPE_WITH_CODE (AnotHttpBackend, anot_http_backend, G_TYPE_OBJECT,
                                  G_ADD_PRIVATE (AnotHttpBackend)
                                  G_IMPLEMENT_INTERFACE (ANOT_TYPE_BACKEND,
                                                         anot_http_backend_backend_iface_init))

enum {
  PROP_0,
  PROP_BASE_URL,
  PROP_API_KEY,
  PROP_MODEL,
  PROP_TIMEOUT_MS,
  PROP_MAX_RETRIES,
  PROP_RETRY_BASE_MS,
  PROP_RETRY_MAX_MS,
  PROP_MAX_CONCURRENCY,
  PROP_N_IN_FLIGHT,
  PROP_N_QUEUED,
  PROP_N_RETRIES,
  PROP_RPM,
  PROP_TPM,
  PROP_RATE_WINDOW_MS,
  PROP_ADAPTIVE_CONCURRENCY,
  PROP_CONCURRENCY_LIMIT,
  PROP_PEAK_CONCURRENCY,
  PROP_RATE_LIMIT_WAIT_MS,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

static void http_backend_pump (AnotHttpBackend *self);
static void source_destroy_and_unref (GSource *source);

static void
queue_free (gpointer data)
{
  g_queue_free (data);
}

static void
anot_http_backend_dispose (GObject *object)
{
  AnotHttpBackend *self = ANOT_HTTP_BACKEND (object);
  AnotHttpBackendPrivate *priv = anot_http_backend_get_instance_private (self);

  /* Every queued call holds a reference on the backend, so nothing is
   * queued here. */
  g_clear_object (&priv->session);
  g_clear_pointer (&priv->wake_source, source_destroy_and_unref);
  g_clear_object (&priv->batch_queue);

  G_OBJECT_CLASS (anot_http_backend_parent_class)->dispose (object);
}

static void
anot_http_backend_finalize (GObject *object)
{
  AnotHttpBackend *self = ANOT_HTTP_BACKEND (object);
  AnotHttpBackendPrivate *priv = anot_http_backend_get_instance_private (self);

  g_free (priv->base_url);
  if (priv->api_key != NULL)
    {
      memset (priv->api_key, 0, strlen (priv->api_key));
      g_free (priv->api_key);
    }
  g_free (priv->model);
  g_clear_pointer (&priv->uri, g_uri_unref);
  g_clear_pointer (&priv->endpoints, g_ptr_array_unref);
  g_hash_table_unref (priv->queues);
  g_queue_clear (&priv->ring);
  anot_http_pacer_free (priv->pacer);

  G_OBJECT_CLASS (anot_http_backend_parent_class)->finalize (object);
}

static void
anot_http_backend_get_property (GObject    *object,
                                guint       prop_id,
                                GValue     *value,
                                GParamSpec *pspec)
{
  AnotHttpBackend *self = ANOT_HTTP_BACKEND (object);
  AnotHttpBackendPrivate *priv = anot_http_backend_get_instance_private (self);

  switch (prop_id)
    {
    case PROP_BASE_URL:
      g_value_set_string (value, anot_http_backend_get_base_url (self));
      break;
    case PROP_MODEL:
      g_value_set_string (value, anot_http_backend_get_model (self));
      break;
    case PROP_TIMEOUT_MS:
      g_value_set_uint (value, priv->timeout_ms);
      break;
    case PROP_MAX_RETRIES:
      g_value_set_uint (value, priv->max_retries);
      break;
    case PROP_RETRY_BASE_MS:
      g_value_set_uint (value, priv->retry_base_ms);
      break;
    case PROP_RETRY_MAX_MS:
      g_value_set_uint (value, priv->retry_max_ms);
      break;
    case PROP_MAX_CONCURRENCY:
      g_value_set_uint (value, priv->max_concurrency);
      break;
    case PROP_N_IN_FLIGHT:
      g_value_set_uint (value, priv->n_in_flight);
      break;
    case PROP_N_QUEUED:
      g_value_set_uint (value, priv->n_queued);
      break;
    case PROP_N_RETRIES:
      g_value_set_uint64 (value, priv->n_retries);
      break;
    case PROP_RPM:
      g_value_set_uint (value, anot_http_pacer_get_rpm (priv->pacer));
      break;
    case PROP_TPM:
      g_value_set_uint (value, anot_http_pacer_get_tpm (priv->pacer));
      break;
    case PROP_RATE_WINDOW_MS:
      g_value_set_uint (value, anot_http_pacer_get_window_ms (priv->pacer));
      break;
    case PROP_ADAPTIVE_CONCURRENCY:
      g_value_set_boolean (value, anot_http_pacer_get_adaptive (priv->pacer));
      break;
    case PROP_CONCURRENCY_LIMIT:
      g_value_set_uint (value, anot_http_backend_get_concurrency_limit (self));
      break;
    case PROP_PEAK_CONCURRENCY:
      g_value_set_uint (value, anot_http_backend_get_peak_concurrency (self));
      break;
    case PROP_RATE_LIMIT_WAIT_MS:
      g_value_set_uint (value, anot_http_backend_get_rate_limit_wait_ms (self));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
anot_http_backend_set_property (GObject      *object,
                                guint         prop_id,
                                const GValue *value,
                                GParamSpec   *pspec)
{
  AnotHttpBackend *self = ANOT_HTTP_BACKEND (object);
  AnotHttpBackendPrivate *priv = anot_http_backend_get_instance_private (self);

  switch (prop_id)
    {
    case PROP_BASE_URL:
      anot_http_backend_set_base_url (self, g_value_get_string (value));
      break;
    case PROP_API_KEY:
      anot_http_backend_set_api_key (self, g_value_get_string (value));
      break;
    case PROP_MODEL:
      anot_http_backend_set_model (self, g_value_get_string (value));
      break;
    case PROP_TIMEOUT_MS:
      anot_http_backend_set_timeout_ms (self, g_value_get_uint (value));
      break;
    case PROP_MAX_RETRIES:
      anot_http_backend_set_max_retries (self, g_value_get_uint (value));
      break;
    case PROP_RETRY_BASE_MS:
      priv->retry_base_ms = g_value_get_uint (value);
      break;
    case PROP_RETRY_MAX_MS:
      priv->retry_max_ms = g_value_get_uint (value);
      break;
    case PROP_MAX_CONCURRENCY:
      anot_http_backend_set_max_concurrency (self, g_value_get_uint (value));
      break;
    case PROP_RPM:
      anot_http_pacer_set_rpm (priv->pacer, g_value_get_uint (value));
      http_backend_pump (self);
      break;
    case PROP_TPM:
      anot_http_pacer_set_tpm (priv->pacer, g_value_get_uint (value));
      http_backend_pump (self);
      break;
    case PROP_RATE_WINDOW_MS:
      anot_http_pacer_set_window_ms (priv->pacer, g_value_get_uint (value));
      break;
    case PROP_ADAPTIVE_CONCURRENCY:
      anot_http_pacer_set_adaptive (priv->pacer, g_value_get_boolean (value));
      http_backend_pump (self);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
anot_http_backend_class_init (AnotHttpBackendClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = anot_http_backend_dispose;
  object_class->finalize = anot_http_backend_finalize;
  object_class->get_property = anot_http_backend_get_property;
  object_class->set_property = anot_http_backend_set_property;

  /**
   * AnotHttpBackend:base-url:
   *
   * The server's base URL (`https://api.openai.com/v1`,
   * `http://localhost:8000/v1`, ...); the class default when not set.
   *
   * Several servers of one model (vLLM on each GPU, say) are a
   * comma-separated list, each optionally followed by `;weight=W` (its
   * share, relative; 1 by default) and `;max_concurrency=C` (its own bound
   * on calls in flight, under [property@Anot.HttpBackend:max-concurrency]):
   * `http://gpu1:8000/v1;weight=2,http://gpu2:8000/v1`.  Each call goes to
   * the usable server with the fewest calls in flight per unit of weight.
   * A server that refuses connections or times out twice in a row is taken
   * out for a cool-down of `retry-base-ms` × 2^(cool-downs in a row), at
   * most `retry-max-ms`; then one call probes it, and it takes its share
   * again when that call succeeds.  An attempt that fails on one server is
   * retried at once on another when one is usable (otherwise after the
   * usual backoff), and the completion names the server that answered
   * ([method@Anot.Completion.get_endpoint]) and those that failed, which
   * [class@Anot.Usage] counts per endpoint.
   */
  properties[PROP_BASE_URL] =
    g_param_spec_string ("base-url", NULL, NULL, NULL,
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  /**
   * AnotHttpBackend:api-key:
   *
   * The API key.  Write-only, so it cannot be read back and end up in a
   * log or a results file; optional for local servers.
   */
  properties[PROP_API_KEY] =
    g_param_spec_string ("api-key", NULL, NULL, NULL,
                         G_PARAM_WRITABLE | G_PARAM_STATIC_STRINGS);
  /**
   * AnotHttpBackend:model:
   *
   * The model asked when the request names none; the class default when
   * not set.
   */
  properties[PROP_MODEL] =
    g_param_spec_string ("model", NULL, NULL, NULL,
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  /**
   * AnotHttpBackend:timeout-ms:
   *
   * The time one attempt may take, answer body included, in
   * milliseconds; 0 for none.  The default, 90 s, is the original
   * framework's.
   */
  properties[PROP_TIMEOUT_MS] =
    g_param_spec_uint ("timeout-ms", NULL, NULL, 0, G_MAXUINT, DEFAULT_TIMEOUT_MS,
                       G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  /**
   * AnotHttpBackend:max-retries:
   *
   * How many times a failed attempt is retried.  The default, 5, makes
   * the original framework's 6 attempts.
   */
  properties[PROP_MAX_RETRIES] =
    g_param_spec_uint ("max-retries", NULL, NULL, 0, 100, DEFAULT_MAX_RETRIES,
                       G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  /**
   * AnotHttpBackend:retry-base-ms:
   *
   * The first backoff delay and the jitter range, in milliseconds.
   */
  properties[PROP_RETRY_BASE_MS] =
    g_param_spec_uint ("retry-base-ms", NULL, NULL, 0, G_MAXUINT, DEFAULT_RETRY_BASE_MS,
                       G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS);
  /**
   * AnotHttpBackend:retry-max-ms:
   *
   * The longest backoff delay, jitter aside, in milliseconds (a
   * server's `Retry-After` is honoured even when longer).
   */
  properties[PROP_RETRY_MAX_MS] =
    g_param_spec_uint ("retry-max-ms", NULL, NULL, 0, G_MAXUINT, DEFAULT_RETRY_MAX_MS,
                       G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS);
  /**
   * AnotHttpBackend:max-concurrency:
   *
   * The most calls on the wire (or waiting to retry) at once; the others
   * queue.  Also the size of the connection pool.
   */
  properties[PROP_MAX_CONCURRENCY] =
    g_param_spec_uint ("max-concurrency", NULL, NULL, 1, 100000, DEFAULT_MAX_CONCURRENCY,
                       G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  /**
   * AnotHttpBackend:n-in-flight:
   *
   * Calls on the wire or waiting to retry.
   */
  properties[PROP_N_IN_FLIGHT] =
    g_param_spec_uint ("n-in-flight", NULL, NULL, 0, G_MAXUINT, 0,
                       G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  /**
   * AnotHttpBackend:n-queued:
   *
   * Calls waiting for a free slot.
   */
  properties[PROP_N_QUEUED] =
    g_param_spec_uint ("n-queued", NULL, NULL, 0, G_MAXUINT, 0,
                       G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  /**
   * AnotHttpBackend:n-retries:
   *
   * Retries made so far, by every call.
   */
  properties[PROP_N_RETRIES] =
    g_param_spec_uint64 ("n-retries", NULL, NULL, 0, G_MAXUINT64, 0,
                         G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);

  /**
   * AnotHttpBackend:rpm:
   *
   * Your own limit of requests per window
   * ([property@Anot.HttpBackend:rate-window-ms], a minute), per server and
   * model; 0 for none.  The server's own limits, read from its answers
   * (OpenAI's `x-ratelimit-*`, Anthropic's `anthropic-ratelimit-*`
   * headers), apply as well: the tighter one wins.  A call waits in its
   * queue until it fits instead of being sent and refused.
   */
  properties[PROP_RPM] =
    g_param_spec_uint ("rpm", NULL, NULL, 0, G_MAXUINT, 0,
                       G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS);
  /**
   * AnotHttpBackend:tpm:
   *
   * Your own limit of tokens per window, per server and model; 0 for
   * none.  A call counts as providers count it when they admit it: its
   * prompt tokens (the larger of the model's tokenizer count and the
   * characters / 4, OpenAI's rule) plus its `max_tokens`.
   */
  properties[PROP_TPM] =
    g_param_spec_uint ("tpm", NULL, NULL, 0, G_MAXUINT, 0,
                       G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS);
  /**
   * AnotHttpBackend:rate-window-ms:
   *
   * The window rate limits count over, in milliseconds: a minute, as
   * every provider's; another length only for servers that count
   * otherwise (and tests).
   */
  properties[PROP_RATE_WINDOW_MS] =
    g_param_spec_uint ("rate-window-ms", NULL, NULL, 1, G_MAXUINT,
                       ANOT_HTTP_PACER_DEFAULT_WINDOW_MS,
                       G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS);
  /**
   * AnotHttpBackend:adaptive-concurrency:
   *
   * Whether the calls in flight per server adapt instead of being fixed:
   * from 1 up to [property@Anot.HttpBackend:max-concurrency], growing
   * while latency holds and backing off on a 429, a timeout, a server
   * error or latency that doubled (AIMD with a slow start).  `anot-run`
   * sets it unless given `-j`.
   */
  properties[PROP_ADAPTIVE_CONCURRENCY] =
    g_param_spec_boolean ("adaptive-concurrency", NULL, NULL, FALSE,
                          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS);
  /**
   * AnotHttpBackend:concurrency-limit:
   *
   * The calls that may be in flight now: the adaptive limit (over every
   * server), or [property@Anot.HttpBackend:max-concurrency].
   */
  properties[PROP_CONCURRENCY_LIMIT] =
    g_param_spec_uint ("concurrency-limit", NULL, NULL, 0, G_MAXUINT, 0,
                       G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  /**
   * AnotHttpBackend:peak-concurrency:
   *
   * The highest adaptive limit reached (over every server); 0 when the
   * concurrency is fixed.
   */
  properties[PROP_PEAK_CONCURRENCY] =
    g_param_spec_uint ("peak-concurrency", NULL, NULL, 0, G_MAXUINT, 0,
                       G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  /**
   * AnotHttpBackend:rate-limit-wait-ms:
   *
   * How long the next queued call still waits for a rate limit, in
   * milliseconds; 0 when none is waiting for one.
   */
  properties[PROP_RATE_LIMIT_WAIT_MS] =
    g_param_spec_uint ("rate-limit-wait-ms", NULL, NULL, 0, G_MAXUINT, 0,
                       G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);

  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
anot_http_backend_init (AnotHttpBackend *self)
{
  AnotHttpBackendPrivate *priv = anot_http_backend_get_instance_private (self);

  priv->timeout_ms = DEFAULT_TIMEOUT_MS;
  priv->max_retries = DEFAULT_MAX_RETRIES;
  priv->retry_base_ms = DEFAULT_RETRY_BASE_MS;
  priv->retry_max_ms = DEFAULT_RETRY_MAX_MS;
  priv->max_concurrency = DEFAULT_MAX_CONCURRENCY;
  priv->queues = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, queue_free);
  g_queue_init (&priv->ring);
  priv->pacer = anot_http_pacer_new ();
}

/* ------------------------------------------------------------------------
 * Helpers
 * --------------------------------------------------------------------- */

static char *
redacted_uri (GUri *uri)
{
  return g_uri_to_string_partial (uri, G_URI_HIDE_USERINFO | G_URI_HIDE_QUERY |
                                       G_URI_HIDE_AUTH_PARAMS | G_URI_HIDE_FRAGMENT);
}

/**
 * anot_http_backend_dup_key_hint:
 * @self: an #AnotHttpBackend
 *
 * Where the API key of this backend comes from, for error messages: the
 * environment variable and the configuration key.
 *
 * Returns: (transfer full): a sentence
 */
char *
anot_http_backend_dup_key_hint (AnotHttpBackend *self)
{
  AnotHttpBackendClass *klass;
  g_autofree char *config = NULL;

  g_return_val_if_fail (ANOT_IS_HTTP_BACKEND (self), NULL);

  klass = ANOT_HTTP_BACKEND_GET_CLASS (self);
  config = g_build_filename (g_get_user_config_dir (), "anot", "config.ini", NULL);
  if (klass->api_key_variable != NULL)
    return g_strdup_printf ("Set the %s environment variable, or api_key in the "
                            "[backend %s] section of %s",
                            klass->api_key_variable, klass->name ? klass->name : "NAME",
                            config);
  return g_strdup_printf ("Set api_key in the [backend %s] section of %s",
                          klass->name ? klass->name : "NAME", config);
}

static gboolean ensure_uri (AnotHttpBackend  *self,
                            GError          **error);

/**
 * anot_http_backend_check_api_key:
 * @self: an #AnotHttpBackend
 * @error: return location for a #GError
 *
 * Whether calls can go out as far as the base URL and the key are
 * concerned: a base URL (or list of servers) that cannot be used is an
 * error, %ANOT_ERROR_CONFIG; the provider's own endpoint (the base URL unset or the class default, for
 * a class with an `api_key_variable`) refuses every call without a key,
 * so that is an error, %ANOT_ERROR_CONFIG naming the environment
 * variable, the configuration key and `--base-url`.  Another server
 * (a local one, a proxy) may need none.  Nothing is sent.
 *
 * Returns: %TRUE when a key is set or none is needed
 */
gboolean
anot_http_backend_check_api_key (AnotHttpBackend  *self,
                                 GError          **error)
{
  AnotHttpBackendPrivate *priv;
  AnotHttpBackendClass *klass;
  g_autofree char *hint = NULL;

  g_return_val_if_fail (ANOT_IS_HTTP_BACKEND (self), FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  priv = anot_http_backend_get_instance_private (self);
  klass = ANOT_HTTP_BACKEND_GET_CLASS (self);
  /* A base URL no call could use is refused now, with the call's own
   * message, rather than by the first call of a run already written. */
  if (priv->base_url != NULL && strpbrk (priv->base_url, ",;") != NULL)
    {
      g_autoptr(GPtrArray) endpoints = anot_endpoints_parse (priv->base_url, klass->endpoint_path,
                                                             klass->name, error);

      if (endpoints == NULL)
        return FALSE;
    }
  else if (!ensure_uri (self, error))
    return FALSE;
  if (klass->api_key_variable == NULL || priv->api_key != NULL ||
      g_strcmp0 (anot_http_backend_get_base_url (self), klass->default_base_url) != 0)
    return TRUE;

  hint = anot_http_backend_dup_key_hint (self);
  g_set_error (error, ANOT_ERROR, ANOT_ERROR_CONFIG,
               "No API key for the %s backend at %s. %s; or give --base-url "
               "for a server that needs none",
               klass->name ? klass->name : "HTTP", klass->default_base_url, hint);
  return FALSE;
}

/**
 * anot_http_backend_dup_error_message:
 * @body: (nullable): the JSON body of an error answer, or %NULL when it
 *   is not JSON
 *
 * The server's own error message: `error.message` (OpenAI, Anthropic,
 * vLLM), `error` when it is a string (Ollama, llama.cpp) or `message`.
 *
 * Returns: (transfer full) (nullable): the message, or %NULL
 */
char *
anot_http_backend_dup_error_message (AnotJsonDocument *body)
{
  int error;
  char *message;

  if (body == NULL)
    return NULL;
  error = anot_json_document_get_member (body, 0, "error");
  message = anot_json_document_dup_string (body, anot_json_document_get_member (body, error, "message"));
  if (message == NULL)
    message = anot_json_document_dup_string (body, error);
  if (message == NULL)
    message = anot_json_document_dup_string (body, anot_json_document_get_member (body, 0, "message"));
  return message;
}

static AnotJsonDocument *
parse_json (GBytes *bytes)
{
  if (g_bytes_get_size (bytes) == 0)
    return NULL;
  /* A model's text may hold \u0000 or a lone surrogate: valid JSON. */
  return _anot_json_document_new_lenient (bytes, NULL);
}

/* Retry-After: seconds or an HTTP date; retry-after-ms: milliseconds
 * (OpenAI).  Returns -1 when the server said nothing usable. */
static gint64
retry_after_ms (SoupMessage *msg)
{
  SoupMessageHeaders *headers = soup_message_get_response_headers (msg);
  const char *value;

  value = soup_message_headers_get_one (headers, "retry-after-ms");
  if (value != NULL)
    {
      char *end = NULL;
      double ms = g_ascii_strtod (value, &end);

      if (end != value && ms >= 0)
        return (gint64) ms;
    }

  value = soup_message_headers_get_one (headers, "Retry-After");
  if (value != NULL)
    {
      guint64 seconds;
      g_autoptr(GDateTime) date = NULL;
      g_autofree char *trimmed = g_strstrip (g_strdup (value));

      if (g_ascii_string_to_unsigned (trimmed, 10, 0, 86400, &seconds, NULL))
        return (gint64) seconds * 1000;
      date = soup_date_time_new_from_http_string (value);
      if (date != NULL)
        {
          g_autoptr(GDateTime) now = g_date_time_new_now_utc ();
          GTimeSpan span = g_date_time_difference (date, now);

          return MAX (0, span / 1000);
        }
    }
  return -1;
}

/* ------------------------------------------------------------------------
 * Calls
 * --------------------------------------------------------------------- */

static void
source_destroy_and_unref (GSource *source)
{
  g_source_destroy (source);
  g_source_unref (source);
}

/* Proxies come from the usual environment variables (https_proxy,
 * http_proxy, all_proxy, no_proxy), as with curl, rather than from the
 * desktop's settings: GIO's GNOME resolver needs GSettings schemas that
 * servers and test sandboxes often lack.  Loopback is never proxied. */
static GProxyResolver *
proxy_resolver_from_environment (void)
{
  static const char * const variables[] = {
    "https_proxy", "HTTPS_PROXY", "http_proxy", "HTTP_PROXY", "all_proxy", "ALL_PROXY",
  };
  const char *proxy = NULL;
  const char *no_proxy;
  g_autoptr(GPtrArray) ignore = g_ptr_array_new_with_free_func (g_free);

  for (guint i = 0; i < G_N_ELEMENTS (variables) && proxy == NULL; i++)
    {
      proxy = g_getenv (variables[i]);
      if (proxy != NULL && *proxy == '\0')
        proxy = NULL;
    }
  if (proxy == NULL)
    return NULL;

  g_ptr_array_add (ignore, g_strdup ("localhost"));
  g_ptr_array_add (ignore, g_strdup ("127.0.0.0/8"));
  g_ptr_array_add (ignore, g_strdup ("::1"));
  no_proxy = g_getenv ("no_proxy") ? g_getenv ("no_proxy") : g_getenv ("NO_PROXY");
  if (no_proxy != NULL)
    {
      g_auto(GStrv) hosts = g_strsplit (no_proxy, ",", -1);

      for (guint i = 0; hosts[i] != NULL; i++)
        {
          char *host = g_strstrip (hosts[i]);

          if (*host != '\0')
            g_ptr_array_add (ignore, g_strdup (host));
        }
    }
  g_ptr_array_add (ignore, NULL);
  return g_simple_proxy_resolver_new (proxy, (char **) ignore->pdata);
}

static void
ensure_session (AnotHttpBackend *self)
{
  AnotHttpBackendPrivate *priv = anot_http_backend_get_instance_private (self);
  g_autoptr(GProxyResolver) resolver = NULL;

  if (priv->session != NULL)
    return;

  /* libsoup's own I/O timeout is off: ours covers the whole answer and
   * counts in milliseconds. */
  resolver = proxy_resolver_from_environment ();
  priv->session = soup_session_new_with_options ("max-conns", priv->max_concurrency,
                                                 "max-conns-per-host", priv->max_concurrency,
                                                 "timeout", 0,
                                                 "idle-timeout", 60,
                                                 "user-agent", "anot/" PACKAGE_VERSION,
                                                 "proxy-resolver", resolver,
                                                 NULL);
}

static void
call_free (Call *call)
{
  g_clear_pointer (&call->cancel_source, source_destroy_and_unref);
  g_clear_pointer (&call->backoff_source, source_destroy_and_unref);
  g_clear_pointer (&call->timeout_source, source_destroy_and_unref);
  g_clear_pointer (&call->read_source, source_destroy_and_unref);
  g_clear_object (&call->stream);
  g_clear_pointer (&call->answer, g_byte_array_unref);
  if (call->msg != NULL)
    g_signal_handlers_disconnect_by_data (call->msg, call);
  g_clear_object (&call->msg);
  g_clear_object (&call->attempt_cancellable);
  g_clear_error (&call->last_error);
  g_clear_object (&call->task);
  g_free (call->queue_key);
  g_free (call->model);
  g_free (call->content_type);
  g_clear_pointer (&call->uri, g_uri_unref);
  g_clear_pointer (&call->body, g_bytes_unref);
  g_clear_object (&call->request);
  g_strfreev (call->headers);
  g_clear_pointer (&call->endpoints, g_ptr_array_unref);
  g_clear_pointer (&call->failed_endpoints, g_ptr_array_unref);
  g_clear_object (&call->self);
  g_free (call);
}

/* @result is the completion, or for a raw call (send_async()) the
 * answer's bytes; NULL when @error says what went wrong. */
static void
call_finish (Call     *call,
             gpointer  result,
             GError   *error)
{
  g_autoptr(AnotHttpBackend) self = g_object_ref (call->self);
  AnotHttpBackendPrivate *priv = anot_http_backend_get_instance_private (self);
  g_autoptr(GTask) task = g_object_ref (call->task);
  gboolean raw = call->raw;
  AnotCompletion *completion = raw ? NULL : result;

  if (call->state == CALL_RUNNING || call->state == CALL_BACKOFF)
    priv->n_in_flight--;
  call->state = CALL_DONE;

  if (completion != NULL)
    {
      anot_completion_set_latency_ms (completion,
                                      (g_get_monotonic_time () - call->started_us) / 1000.0);
      anot_completion_set_retries (completion, call->attempts > 0 ? call->attempts - 1 : 0);
      if (call->endpoints != NULL && call->avoid != NULL)
        {
          /* call->avoid is the endpoint of the last attempt: the answer's. */
          anot_completion_set_endpoint (completion, call->avoid->base_url);
          for (guint i = 0; call->failed_endpoints && i < call->failed_endpoints->len; i++)
            anot_completion_add_endpoint_error (completion,
                                                g_ptr_array_index (call->failed_endpoints, i));
        }
    }
  /* A failed call's retries count as a successful one's do. */
  if (error != NULL)
    anot_error_set_retries (error, call->attempts > 0 ? call->attempts - 1 : 0);
  call_free (call);

  /* The slot is free before the caller's callback runs, which may start
   * new calls. */
  http_backend_pump (self);

  if (result != NULL)
    g_task_return_pointer (task, result, raw ? (GDestroyNotify) g_bytes_unref : g_object_unref);
  else
    g_task_return_error (task, error);
}

static void call_start_attempt (Call *call);
static gboolean call_admit (AnotHttpBackend *self, Call *call, AnotEndpoint *endpoint,
                            gint64 now_us, gint64 *wait_until_us);
static GBytes *write_body (AnotHttpBackend *self, AnotChatRequest *request, const char *model,
                           GError **error);
static void http_backend_wake_at (AnotHttpBackend *self, gint64 now_us, gint64 wake_us);
static void on_attempt_sent (GObject *source, GAsyncResult *result, gpointer user_data);

/* Several endpoints: a call to try again goes back to the head of its
 * request's queue, and the pump gives it an endpoint (another one than
 * the one that failed, when another is usable). */
static void
call_requeue (Call *call)
{
  AnotHttpBackend *self = call->self;
  AnotHttpBackendPrivate *priv = anot_http_backend_get_instance_private (self);
  GQueue *queue = g_hash_table_lookup (priv->queues, call->queue_key);

  priv->n_in_flight--;
  call->state = CALL_QUEUED;
  if (queue == NULL)
    {
      char *key = g_strdup (call->queue_key);

      queue = g_queue_new ();
      g_hash_table_insert (priv->queues, key, queue);
      g_queue_push_head (&priv->ring, key);
    }
  g_queue_push_head (queue, call);
  priv->n_queued++;
  http_backend_pump (self);
}

static gboolean on_backoff_done (gpointer user_data);

static void
call_backoff_until (Call   *call,
                    guint64 delay_ms)
{
  call->state = CALL_BACKOFF;
  call->backoff_source = g_timeout_source_new ((guint) MIN (delay_ms, G_MAXUINT));
  g_source_set_callback (call->backoff_source, on_backoff_done, call, NULL);
  g_source_set_static_name (call->backoff_source, "[anot] LLM retry backoff");
  g_source_attach (call->backoff_source, g_task_get_context (call->task));
}

static gboolean
on_backoff_done (gpointer user_data)
{
  Call *call = user_data;
  gint64 now = g_get_monotonic_time ();
  gint64 wait_until = 0;

  g_clear_pointer (&call->backoff_source, g_source_unref);
  if (call->endpoints != NULL)
    {
      call_requeue (call);
      return G_SOURCE_REMOVE;
    }
  /* A retry is paced like a first attempt. */
  if (!call_admit (call->self, call, NULL, now, &wait_until))
    {
      call_backoff_until (call, (guint64) (wait_until - now + 999) / 1000);
      return G_SOURCE_REMOVE;
    }
  call->state = CALL_RUNNING;
  call_start_attempt (call);
  return G_SOURCE_REMOVE;
}

static gboolean
on_attempt_timeout (gpointer user_data)
{
  Call *call = user_data;

  g_clear_pointer (&call->timeout_source, g_source_unref);
  call->timed_out = TRUE;
  g_cancellable_cancel (call->attempt_cancellable);
  return G_SOURCE_REMOVE;
}

static void
call_retry_or_fail (Call    *call,
                    GError  *error,
                    gboolean retryable,
                    gint64   server_delay_ms)
{
  AnotHttpBackendPrivate *priv = anot_http_backend_get_instance_private (call->self);
  guint64 delay_ms;

  if (call->endpoints != NULL && call->avoid != NULL)
    {
      AnotEndpoint *failed = call->avoid;
      gint64 now = g_get_monotonic_time ();

      /* Refused connections and timeouts say the server is gone or
       * stuck; other errors are about this one call. */
      if (g_error_matches (error, ANOT_ERROR, ANOT_ERROR_LLM_CONNECTION) ||
          g_error_matches (error, ANOT_ERROR, ANOT_ERROR_LLM_TIMEOUT))
        anot_endpoint_failed (failed, now, priv->retry_base_ms, priv->retry_max_ms);
      if (retryable && call->attempts <= priv->max_retries)
        {
          AnotEndpoint *next;

          if (call->failed_endpoints == NULL)
            call->failed_endpoints = g_ptr_array_new_with_free_func (g_free);
          g_ptr_array_add (call->failed_endpoints, g_strdup (failed->base_url));
          next = anot_endpoints_pick (call->endpoints, failed, now, NULL);
          if (next != NULL && next != failed && server_delay_ms < 0)
            {
              /* Another server can take it now: no reason to wait. */
              g_debug ("LLM call: attempt %u failed on %s (%s), retrying on %s",
                       call->attempts, failed->base_url, error->message, next->base_url);
              g_clear_error (&call->last_error);
              call->last_error = error;
              priv->n_retries++;
              call_requeue (call);
              return;
            }
        }
    }

  if (!retryable || call->attempts > priv->max_retries)
    {
      if (retryable && call->attempts > 1)
        g_prefix_error (&error, "After %u attempts: ", call->attempts);
      call_finish (call, NULL, error);
      return;
    }

  if (server_delay_ms >= 0)
    delay_ms = (guint64) server_delay_ms;
  else
    {
      guint shift = MIN (call->attempts - 1, 30);

      delay_ms = MIN ((guint64) priv->retry_base_ms << shift, (guint64) priv->retry_max_ms);
      if (priv->retry_base_ms > 0)
        delay_ms += (guint64) g_random_int_range (0, (gint32) MIN (priv->retry_base_ms, G_MAXINT32));
    }

  g_debug ("LLM call: attempt %u failed (%s), retrying in %" G_GUINT64_FORMAT " ms",
           call->attempts, error->message, delay_ms);
  g_clear_error (&call->last_error);
  call->last_error = error;
  priv->n_retries++;
  call_backoff_until (call, delay_ms);
}

/* The server of the attempt that just ended (NULL: the one server). */
static const char *
call_endpoint_name (Call *call)
{
  return call->avoid != NULL ? call->avoid->base_url : NULL;
}

/* An attempt that says the server is full or gone: fewer calls in
 * flight (when they adapt). */
static void
call_congested (Call *call)
{
  AnotHttpBackendPrivate *priv = anot_http_backend_get_instance_private (call->self);

  anot_http_pacer_dropped (priv->pacer, call_endpoint_name (call), call->sent_us,
                           g_get_monotonic_time ());
}

/* A 429: the time the server asked for (Retry-After, retry-after-ms, or
 * OpenAI's "Please try again in 1.234s" in the message), for which every
 * call of the endpoint × model waits; -1 when it said none. */
static gint64
rate_limited_delay_ms (Call        *call,
                       SoupMessage *msg,
                       const char  *server_message)
{
  gint64 delay_ms = retry_after_ms (msg);

  if (delay_ms < 0)
    delay_ms = anot_rate_parse_try_again_ms (server_message);
  call_congested (call);
  if (call->limiter != NULL && delay_ms >= 0)
    anot_rate_limiter_hold (call->limiter, g_get_monotonic_time () + delay_ms * 1000);
  return delay_ms;
}

/* The end of an attempt: @bytes_in is the whole answer, or NULL and
 * @error_in says why the exchange failed.  Takes both. */
static void
attempt_done (Call   *call,
              GBytes *bytes_in,
              GError *error_in)
{
  g_autoptr(SoupMessage) msg = g_steal_pointer (&call->msg);
  AnotHttpBackendClass *klass;
  g_autoptr(GBytes) bytes = bytes_in;

  /* libsoup may keep the message a while: it no longer speaks to @call. */
  if (msg != NULL)
    g_signal_handlers_disconnect_by_data (msg, call);
  g_autoptr(GError) error = error_in;
  g_autoptr(AnotJsonDocument) body = NULL;
  g_autofree char *where = NULL;
  guint status;

  g_clear_pointer (&call->timeout_source, source_destroy_and_unref);
  g_clear_pointer (&call->read_source, source_destroy_and_unref);
  g_clear_object (&call->stream);
  g_clear_pointer (&call->answer, g_byte_array_unref);
  g_clear_object (&call->attempt_cancellable);
  klass = ANOT_HTTP_BACKEND_GET_CLASS (call->self);
  if (call->endpoint != NULL)
    {
      call->endpoint->n_in_flight--;
      call->avoid = g_steal_pointer (&call->endpoint);
    }
  /* Only errors need the URL, in its redacted form. */
#define WHERE (where != NULL ? where : (where = redacted_uri (call->uri)))

  if (call->user_cancelled)
    {
      /* It was on the wire: the provider may answer and bill it.  A call
       * cut while it still waited for a connection, or before its whole
       * request was written, cannot be, and is not counted. */
      if (!call->raw && call->body_written)
        {
          AnotCancelledCall cancelled = { call->input_tokens, call->output_tokens, 0.0 };

          anot_backend_task_set_cancelled_in_flight (call->task, &cancelled);
        }
      call_finish (call, NULL,
                   g_error_new_literal (G_IO_ERROR, G_IO_ERROR_CANCELLED,
                                        "The LLM call was cancelled"));
      return;
    }

  if (bytes == NULL)
    {
      call_congested (call);
      if (call->timed_out)
        call_retry_or_fail (call,
                            g_error_new (ANOT_ERROR, ANOT_ERROR_LLM_TIMEOUT,
                                         "No complete answer from %s within %u ms",
                                         WHERE, anot_http_backend_get_timeout_ms (call->self)),
                            TRUE, -1);
      else if (error->domain == G_TLS_ERROR && error->code == G_TLS_ERROR_UNAVAILABLE)
        call_retry_or_fail (call,
                            g_error_new (ANOT_ERROR, ANOT_ERROR_LLM_CONNECTION,
                                         "Cannot reach %s: %s (install glib-networking "
                                         "for HTTPS)", WHERE, error->message),
                            FALSE, -1);
      else
        call_retry_or_fail (call,
                            g_error_new (ANOT_ERROR, ANOT_ERROR_LLM_CONNECTION,
                                         "Cannot reach %s: %s", WHERE, error->message),
                            TRUE, -1);
      return;
    }

  status = soup_message_get_status (msg);
  if (call->limiter != NULL)
    {
      /* A call refused was not counted by the server. */
      if (status == 429)
        anot_rate_limiter_refund (call->limiter, call->admitted_us, call->input_tokens,
                                  call->output_tokens);
      anot_rate_limiter_read_headers (call->limiter, soup_message_get_response_headers (msg),
                                      call->admitted_us, g_get_monotonic_time ());
    }
  if (call->raw && status >= 200 && status < 300)
    {
      call_finish (call, g_steal_pointer (&bytes), NULL);
      return;
    }
  body = parse_json (bytes);

  if (status >= 200 && status < 300)
    {
      AnotCompletion *completion;

      if (body == NULL)
        {
          call_retry_or_fail (call,
                              g_error_new (ANOT_ERROR, ANOT_ERROR_LLM_PROTOCOL,
                                           "The answer of %s is not valid JSON", WHERE),
                              TRUE, -1);
          return;
        }
      completion = klass->read_body (call->self, body, &error);
      if (completion == NULL)
        {
          gboolean retryable = g_error_matches (error, ANOT_ERROR, ANOT_ERROR_LLM_PROTOCOL);

          g_prefix_error (&error, "%s: ", WHERE);
          call_retry_or_fail (call, g_steal_pointer (&error), retryable, -1);
          return;
        }
      if (anot_completion_get_model (completion) == NULL)
        g_object_set (completion, "model", call->model, NULL);
      anot_completion_set_replaced_characters (completion, _anot_json_document_get_n_replaced (body));
      if (call->avoid != NULL)
        anot_endpoint_succeeded (call->avoid);
      {
        AnotHttpBackendPrivate *priv = anot_http_backend_get_instance_private (call->self);

        anot_http_pacer_succeeded (priv->pacer, call_endpoint_name (call), call->sent_us,
                                   g_get_monotonic_time (),
                                   anot_completion_get_completion_tokens (completion),
                                   call->in_flight_at_send);
      }
      call_finish (call, completion, NULL);
      return;
    }

  {
    g_autofree char *server_message = anot_http_backend_dup_error_message (body);
    const char *reason = soup_message_get_reason_phrase (msg);

    if (server_message == NULL)
      server_message = g_strdup (reason && *reason ? reason : "no error message");

    if (status == 401 || status == 403)
      {
        g_autofree char *hint = anot_http_backend_dup_key_hint (call->self);

        /* The server's message is left out: some quote part of the key. */
        call_retry_or_fail (call,
                            g_error_new (ANOT_ERROR, ANOT_ERROR_LLM_AUTH,
                                         "HTTP %u from %s: the server refused the API key%s. %s",
                                         status, WHERE,
                                         anot_http_backend_has_api_key (call->self)
                                         ? "" : " (none is configured)",
                                         hint),
                            FALSE, -1);
      }
    else if (status == 429)
      {
        gint64 delay_ms = rate_limited_delay_ms (call, msg, server_message);

        call_retry_or_fail (call,
                            g_error_new (ANOT_ERROR, ANOT_ERROR_LLM_RATE_LIMITED,
                                         "HTTP 429 from %s: %s", WHERE, server_message),
                            TRUE, delay_ms);
      }
    else if (status >= 500 || status == 408 || status == 409)
      {
        call_congested (call);
        call_retry_or_fail (call,
                            g_error_new (ANOT_ERROR, ANOT_ERROR_LLM_SERVER,
                                         "HTTP %u from %s: %s", status, WHERE, server_message),
                            TRUE, retry_after_ms (msg));
      }
    else if (status == 404 && call->model == NULL)
      call_retry_or_fail (call,
                          g_error_new (ANOT_ERROR, ANOT_ERROR_LLM_BATCH_NOT_FOUND,
                                       "HTTP 404 from %s: %s", WHERE, server_message),
                          FALSE, -1);
    else if (status == 404)
      call_retry_or_fail (call,
                          g_error_new (ANOT_ERROR, ANOT_ERROR_LLM_NOT_FOUND,
                                       "HTTP 404 from %s: %s (check the base URL and the "
                                       "model “%s”)", WHERE, server_message, call->model),
                          FALSE, -1);
    else
      call_retry_or_fail (call,
                          g_error_new (ANOT_ERROR, ANOT_ERROR_LLM_BAD_REQUEST,
                                       "HTTP %u from %s: %s", status, WHERE, server_message),
                          FALSE, -1);
  }
}
#undef WHERE

static gboolean on_answer_readable (GObject *stream, gpointer user_data);

/* Adds @n bytes to the answer; FALSE when that would pass the size cap,
 * which ends the attempt. */
static gboolean
answer_append (Call         *call,
               const guint8 *data,
               gsize         n)
{
  if (call->answer->len + n > MAX_ANSWER_BYTES)
    {
      attempt_done (call, NULL,
                    g_error_new (G_IO_ERROR, G_IO_ERROR_MESSAGE_TOO_LARGE,
                                 "the answer is larger than %u bytes", MAX_ANSWER_BYTES));
      return FALSE;
    }
  g_byte_array_append (call->answer, data, (guint) n);
  return TRUE;
}

/* The whole body is in, so closing does no I/O: it only hands the
 * connection back to the session for the next call. */
static void
answer_complete (Call *call)
{
  g_input_stream_close (call->stream, NULL, NULL);
  attempt_done (call, g_byte_array_free_to_bytes (g_steal_pointer (&call->answer)), NULL);
}

/* Reads what has arrived of the answer without blocking, and waits for the
 * rest on the main context.  Answers are small and usually complete by the
 * time the headers are parsed, so most calls finish here without another
 * round through the main loop (libsoup's send_and_read() splices through
 * a memory stream with an asynchronous read and write per chunk). */
static void
attempt_read (Call *call)
{
  GPollableInputStream *stream = G_POLLABLE_INPUT_STREAM (call->stream);

  for (;;)
    {
      guint8 chunk[8192];
      GError *error = NULL;
      gssize n;

      n = g_pollable_input_stream_read_nonblocking (stream, chunk, sizeof chunk,
                                                    call->attempt_cancellable, &error);
      if (n > 0)
        {
          if (!answer_append (call, chunk, (gsize) n))
            return;
          continue;
        }
      if (n == 0)
        {
          answer_complete (call);
          return;
        }
      if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_WOULD_BLOCK))
        {
          g_error_free (error);
          call->read_source = g_pollable_input_stream_create_source (stream, call->attempt_cancellable);
          g_source_set_callback (call->read_source, (GSourceFunc) (void (*) (void)) on_answer_readable,
                                 call, NULL);
          g_source_set_static_name (call->read_source, "[anot] LLM answer");
          g_source_attach (call->read_source, g_task_get_context (call->task));
          return;
        }
      attempt_done (call, NULL, error);
      return;
    }
}

static gboolean
on_answer_readable (GObject  *stream,
                    gpointer  user_data)
{
  Call *call = user_data;

  g_clear_pointer (&call->read_source, source_destroy_and_unref);
  attempt_read (call);
  return G_SOURCE_REMOVE;
}

/* Streams that cannot be polled (none libsoup returns today) are read
 * with one asynchronous read per chunk. */
static void
on_answer_chunk (GObject      *source,
                 GAsyncResult *result,
                 gpointer      user_data)
{
  Call *call = user_data;
  GError *error = NULL;
  g_autoptr(GBytes) chunk = g_input_stream_read_bytes_finish (G_INPUT_STREAM (source), result, &error);

  if (chunk == NULL)
    {
      attempt_done (call, NULL, error);
      return;
    }
  if (g_bytes_get_size (chunk) == 0)
    {
      answer_complete (call);
      return;
    }
  if (!answer_append (call, g_bytes_get_data (chunk, NULL), g_bytes_get_size (chunk)))
    return;
  g_input_stream_read_bytes_async (call->stream, 8192, G_PRIORITY_DEFAULT,
                                   call->attempt_cancellable, on_answer_chunk, call);
}

static void
on_attempt_sent (GObject      *source,
                 GAsyncResult *result,
                 gpointer      user_data)
{
  Call *call = user_data;
  GError *error = NULL;

  call->stream = soup_session_send_finish (SOUP_SESSION (source), result, &error);
  if (call->stream == NULL)
    {
      attempt_done (call, NULL, error);
      return;
    }
  {
    goffset length = soup_message_headers_get_content_length (soup_message_get_response_headers (call->msg));

    /* Sized once when the server says how long the answer is. */
    call->answer = g_byte_array_sized_new ((guint) CLAMP (length, 0, 1024 * 1024));
  }
  if (G_IS_POLLABLE_INPUT_STREAM (call->stream) &&
      g_pollable_input_stream_can_poll (G_POLLABLE_INPUT_STREAM (call->stream)))
    attempt_read (call);
  else
    g_input_stream_read_bytes_async (call->stream, 8192, G_PRIORITY_DEFAULT,
                                     call->attempt_cancellable, on_answer_chunk, call);
}

static void
on_wrote_body (Call *call)
{
  call->body_written = TRUE;
}

static void
call_start_attempt (Call *call)
{
  AnotHttpBackendPrivate *priv = anot_http_backend_get_instance_private (call->self);
  AnotHttpBackendClass *klass = ANOT_HTTP_BACKEND_GET_CLASS (call->self);
  SoupMessage *msg;
  SoupMessageHeaders *headers;

  msg = soup_message_new_from_uri (call->method ? call->method : SOUP_METHOD_POST, call->uri);
  /* libsoup opens a new connection for every POST unless told the request
   * may be repeated.  A call may be: it is retried anyway if a reused
   * connection turns out to be closed. */
  soup_message_add_flags (msg, SOUP_MESSAGE_IDEMPOTENT);
  if (call->body != NULL)
    soup_message_set_request_body_from_bytes (msg,
                                              call->content_type ? call->content_type
                                                                 : "application/json",
                                              call->body);
  headers = soup_message_get_request_headers (msg);
  soup_message_headers_replace (headers, "Accept", "application/json");
  if (call->headers == NULL && klass->build_headers != NULL)
    call->headers = klass->build_headers (call->self, priv->api_key);
  for (guint i = 0; call->headers && call->headers[i] && call->headers[i + 1]; i += 2)
    soup_message_headers_replace (headers, call->headers[i], call->headers[i + 1]);
  call->msg = msg;
  call->body_written = FALSE;
  g_signal_connect_swapped (msg, "wrote-body", G_CALLBACK (on_wrote_body), call);

  call->attempts++;
  call->timed_out = FALSE;
  call->sent_us = g_get_monotonic_time ();
  call->in_flight_at_send = priv->n_in_flight;
  call->attempt_cancellable = g_cancellable_new ();
  if (priv->timeout_ms > 0)
    {
      call->timeout_source = g_timeout_source_new (priv->timeout_ms);
      g_source_set_callback (call->timeout_source, on_attempt_timeout, call, NULL);
      g_source_set_static_name (call->timeout_source, "[anot] LLM call timeout");
      g_source_attach (call->timeout_source, g_task_get_context (call->task));
    }

  soup_session_send_async (priv->session, msg, G_PRIORITY_DEFAULT,
                           call->attempt_cancellable, on_attempt_sent, call);
}

static void
queue_remove (AnotHttpBackend *self,
              Call            *call)
{
  AnotHttpBackendPrivate *priv = anot_http_backend_get_instance_private (self);
  GQueue *queue = g_hash_table_lookup (priv->queues, call->queue_key);

  if (queue == NULL || !g_queue_remove (queue, call))
    return;
  priv->n_queued--;
  if (g_queue_is_empty (queue))
    {
      GList *link = g_queue_find_custom (&priv->ring, call->queue_key, (GCompareFunc) strcmp);

      if (link != NULL)
        g_queue_delete_link (&priv->ring, link);
      g_hash_table_remove (priv->queues, call->queue_key);
    }
}

static gboolean
on_wake (gpointer user_data)
{
  AnotHttpBackend *self = user_data;
  AnotHttpBackendPrivate *priv = anot_http_backend_get_instance_private (self);

  g_clear_pointer (&priv->wake_source, g_source_unref);
  http_backend_pump (self);
  return G_SOURCE_REMOVE;
}

static void
http_backend_wake_at (AnotHttpBackend *self,
                      gint64           now_us,
                      gint64           wake_us)
{
  AnotHttpBackendPrivate *priv = anot_http_backend_get_instance_private (self);

  if (priv->wake_source != NULL)
    {
      if (g_source_get_ready_time (priv->wake_source) != -1 &&
          g_source_get_ready_time (priv->wake_source) <= wake_us)
        return;
      g_clear_pointer (&priv->wake_source, source_destroy_and_unref);
    }
  priv->wake_source = g_timeout_source_new ((guint) MAX (1, (wake_us - now_us + 999) / 1000));
  g_source_set_callback (priv->wake_source, on_wake, self, NULL);
  g_source_set_static_name (priv->wake_source, "[anot] LLM endpoint cool-down over");
  g_source_attach (priv->wake_source, g_main_context_get_thread_default ());
}

/* Whether @call may be sent now to @endpoint (NULL: the one server) as
 * its endpoint × model's rate limits go; it is then counted.  Otherwise
 * *@wait_until_us says when it fits. */
static gboolean
call_admit (AnotHttpBackend *self,
            Call            *call,
            AnotEndpoint    *endpoint,
            gint64           now_us,
            gint64          *wait_until_us)
{
  AnotHttpBackendPrivate *priv = anot_http_backend_get_instance_private (self);
  AnotRateLimiter *limiter;
  gint64 slot;

  /* Batch and file calls (raw) are the batch APIs': their limits are
   * others. */
  if (call->raw)
    return TRUE;
  limiter = anot_http_pacer_rate_limiter (priv->pacer, endpoint ? endpoint->base_url : NULL,
                                          call->model);
  slot = anot_rate_limiter_next_slot (limiter, now_us, call->input_tokens, call->output_tokens);
  if (slot > now_us)
    {
      *wait_until_us = slot;
      return FALSE;
    }
  anot_rate_limiter_admit (limiter, now_us, call->input_tokens, call->output_tokens);
  call->limiter = limiter;
  call->admitted_us = now_us;
  return TRUE;
}

/* The most calls in flight now: with one server, its adaptive limit;
 * with several, each has its own (the endpoints' books apply it). */
static guint
http_backend_bound (AnotHttpBackend *self)
{
  AnotHttpBackendPrivate *priv = anot_http_backend_get_instance_private (self);

  if (!anot_http_pacer_get_adaptive (priv->pacer))
    return priv->max_concurrency;
  if (priv->endpoints == NULL)
    return anot_http_pacer_bound (priv->pacer, NULL, priv->max_concurrency);
  for (guint i = 0; i < priv->endpoints->len; i++)
    {
      AnotEndpoint *endpoint = g_ptr_array_index (priv->endpoints, i);
      guint cap = endpoint->max_concurrency ? MIN (endpoint->max_concurrency, priv->max_concurrency)
                                            : priv->max_concurrency;

      endpoint->adaptive_limit = anot_http_pacer_bound (priv->pacer, endpoint->base_url, cap);
    }
  return priv->max_concurrency;
}

static void
http_backend_pump (AnotHttpBackend *self)
{
  AnotHttpBackendPrivate *priv = anot_http_backend_get_instance_private (self);

  anot_http_pacer_set_waiting (priv->pacer, 0);
  while (priv->n_in_flight < http_backend_bound (self) && !g_queue_is_empty (&priv->ring))
    {
      const char *key = g_queue_peek_head (&priv->ring);
      GQueue *queue = g_hash_table_lookup (priv->queues, key);
      Call *call = g_queue_peek_head (queue);
      AnotEndpoint *endpoint = NULL;
      gint64 now = g_get_monotonic_time ();
      gint64 wait_until = 0;

      if (!call->sized && call->request != NULL)
        {
          AnotRateLimiter *limiter =
            anot_http_pacer_rate_limiter (priv->pacer,
                                          call->endpoints ? ((AnotEndpoint *) g_ptr_array_index (call->endpoints, 0))->base_url
                                                          : NULL,
                                          call->model);

          anot_http_pacer_size_call (priv->pacer, limiter, call->request, call->model,
                                     &call->input_tokens, &call->output_tokens);
          call->sized = TRUE;
        }
      if (call->body == NULL && call->request != NULL)
        {
          GError *error = NULL;

          call->body = write_body (self, call->request, call->model, &error);
          g_clear_object (&call->request);
          if (call->body == NULL)
            {
              queue_remove (self, call);
              call_finish (call, NULL, error);
              continue;
            }
        }

      if (call->endpoints != NULL)
        {
          gint64 wake_us = 0;

          endpoint = anot_endpoints_pick (call->endpoints, call->avoid, now, &wake_us);
          if (endpoint == NULL)
            {
              /* Every endpoint is full or cooling down: a call that
               * finishes pumps again, and so does the end of the first
               * cool-down. */
              if (wake_us > 0)
                http_backend_wake_at (self, now, wake_us);
              return;
            }
        }
      /* The call at the head waits for its rate limit, and the others
       * behind it: a smaller call overtaking would starve a large one. */
      if (!call_admit (self, call, endpoint, now, &wait_until))
        {
          anot_http_pacer_set_waiting (priv->pacer, wait_until);
          http_backend_wake_at (self, now, wait_until);
          return;
        }
      if (endpoint != NULL)
        {
          endpoint->n_in_flight++;
          call->endpoint = endpoint;
          g_clear_pointer (&call->uri, g_uri_unref);
          call->uri = g_uri_ref (endpoint->uri);
        }
      g_queue_pop_head (&priv->ring);
      g_queue_pop_head (queue);

      /* Round-robin across requests, FIFO within one. */
      if (!g_queue_is_empty (queue))
        g_queue_push_tail (&priv->ring, (gpointer) key);
      else
        g_hash_table_remove (priv->queues, key);

      priv->n_queued--;
      priv->n_in_flight++;
      call->state = CALL_RUNNING;
      if (call->attempts == 0)
        call->started_us = g_get_monotonic_time ();
      call_start_attempt (call);
    }
}

static gboolean
on_call_cancelled (GCancellable *cancellable,
                   gpointer      user_data)
{
  Call *call = user_data;

  g_clear_pointer (&call->cancel_source, g_source_unref);
  switch (call->state)
    {
    case CALL_QUEUED:
      queue_remove (call->self, call);
      call_finish (call, NULL,
                   g_error_new_literal (G_IO_ERROR, G_IO_ERROR_CANCELLED,
                                        "The LLM call was cancelled"));
      break;
    case CALL_RUNNING:
      call->user_cancelled = TRUE;
      g_cancellable_cancel (call->attempt_cancellable);
      break;
    case CALL_BACKOFF:
      call_finish (call, NULL,
                   g_error_new_literal (G_IO_ERROR, G_IO_ERROR_CANCELLED,
                                        "The LLM call was cancelled"));
      break;
    case CALL_DONE:
    default:
      break;
    }
  return G_SOURCE_REMOVE;
}

/* The base URL joined with @path (which starts with '/'), or @path itself
 * when it is an absolute http(s) URL (Anthropic's results_url). */
static GUri *
resolve_uri (AnotHttpBackend  *self,
             const char       *path,
             GError          **error)
{
  AnotHttpBackendClass *klass = ANOT_HTTP_BACKEND_GET_CLASS (self);
  const char *base = anot_http_backend_get_base_url (self);
  g_autofree char *full = NULL;
  GUri *uri;

  if (g_str_has_prefix (path, "http://") || g_str_has_prefix (path, "https://"))
    full = g_strdup (path);
  else
    {
      g_autofree char *trimmed = g_strdup (base ? base : "");
      gsize len = strlen (trimmed);

      while (len > 0 && trimmed[len - 1] == '/')
        trimmed[--len] = '\0';
      full = g_strconcat (trimmed, path, NULL);
    }
  uri = g_uri_parse (full, SOUP_HTTP_URI_FLAGS, NULL);
  if (uri == NULL ||
      (g_strcmp0 (g_uri_get_scheme (uri), "http") != 0 &&
       g_strcmp0 (g_uri_get_scheme (uri), "https") != 0) ||
      g_uri_get_host (uri) == NULL || *g_uri_get_host (uri) == '\0')
    {
      g_clear_pointer (&uri, g_uri_unref);
      g_set_error (error, ANOT_ERROR, ANOT_ERROR_CONFIG,
                   "Invalid base URL “%s” for the %s backend: expected "
                   "http://HOST[:PORT]/PATH or https://…",
                   base ? base : "", klass->name ? klass->name : "HTTP");
    }
  return uri;
}

static gboolean
ensure_uri (AnotHttpBackend  *self,
            GError          **error)
{
  AnotHttpBackendPrivate *priv = anot_http_backend_get_instance_private (self);
  AnotHttpBackendClass *klass = ANOT_HTTP_BACKEND_GET_CLASS (self);

  if (priv->uri == NULL)
    priv->uri = resolve_uri (self, klass->endpoint_path ? klass->endpoint_path : "", error);
  return priv->uri != NULL;
}

/* The JSON body of a chat call, or NULL with @error set. */
static GBytes *
write_body (AnotHttpBackend  *self,
            AnotChatRequest  *request,
            const char       *model,
            GError          **error)
{
  AnotHttpBackendClass *klass = ANOT_HTTP_BACKEND_GET_CLASS (self);
  g_autoptr(AnotJsonWriter) writer = NULL;
  gsize size = 4096;

  /* Room for the messages and their escapes (an eighth more: a prompt of
   * JSON candidates escapes its quotes and line breaks), so that a body of
   * megabytes is written once rather than copied as it grows. */
  for (guint i = 0; i < anot_chat_request_get_n_messages (request); i++)
    {
      gsize length = anot_chat_request_get_message_length (request, i);

      size += length + length / 8;
    }
  writer = _anot_json_writer_new_sized (size);
  if (!klass->write_body (self, request, model, writer, error))
    return NULL;
  if (!anot_json_writer_is_complete (writer))
    {
      g_set_error (error, ANOT_ERROR, ANOT_ERROR_INVALID_ARGUMENT,
                   "The %s backend wrote an incomplete request body",
                   klass->name ? klass->name : "HTTP");
      return NULL;
    }
  return anot_json_writer_steal_bytes (writer);
}

static void http_backend_enqueue (AnotHttpBackend *self,
                                  GTask           *task,
                                  const char      *queue_key,
                                  const char      *model,
                                  GPtrArray       *endpoints,
                                  GUri            *uri,
                                  const char      *method,
                                  const char      *content_type,
                                  GBytes          *body,
                                  AnotChatRequest *request,
                                  gboolean         raw);

static void
anot_http_backend_complete_async (AnotBackend         *backend,
                                  AnotChatRequest     *request,
                                  GCancellable        *cancellable,
                                  GAsyncReadyCallback  callback,
                                  gpointer             user_data)
{
  AnotHttpBackend *self = ANOT_HTTP_BACKEND (backend);
  AnotHttpBackendPrivate *priv = anot_http_backend_get_instance_private (self);
  AnotHttpBackendClass *klass = ANOT_HTTP_BACKEND_GET_CLASS (self);
  g_autoptr(GTask) task = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) body = NULL;
  const char *model;

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, anot_http_backend_complete_async);
  g_task_set_name (task, "[anot] LLM call");
  g_task_set_check_cancellable (task, FALSE);

  if (g_task_return_error_if_cancelled (task))
    return;

  if (priv->uri == NULL && priv->endpoints == NULL &&
      priv->base_url != NULL && strpbrk (priv->base_url, ",;") != NULL)
    {
      priv->endpoints = anot_endpoints_parse (priv->base_url, klass->endpoint_path,
                                              klass->name, &error);
      if (priv->endpoints == NULL)
        {
          g_task_return_error (task, g_steal_pointer (&error));
          return;
        }
      /* Only one after all ("URL;max_concurrency=4"): the classic path
       * with that bound would be wrong, so keep the list. */
    }
  if (priv->endpoints != NULL && priv->batch_queue != NULL && anot_http_backend_can_batch (self))
    {
      /* A batch goes to one provider's API: spreading its files and
       * batch objects over servers would lose them. */
      g_task_return_new_error (task, ANOT_ERROR, ANOT_ERROR_CONFIG,
                               "Batch mode needs a single base URL for the %s backend, "
                               "not a list of servers",
                               klass->name ? klass->name : "HTTP");
      return;
    }
  if (priv->endpoints == NULL && !ensure_uri (self, &error))
    {
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }
  model = anot_chat_request_get_model (request);
  if (model == NULL)
    model = anot_http_backend_get_model (self);
  if (model == NULL)
    {
      g_task_return_new_error (task, ANOT_ERROR, ANOT_ERROR_CONFIG,
                               "No model given for the %s backend: use --model or "
                               "model in the configuration file",
                               klass->name ? klass->name : "HTTP");
      return;
    }

  /* Also checked before a run starts; a method that did not declare its
   * roles, or a caller of the backend alone, is stopped here. */
  if (priv->endpoints == NULL && !anot_http_backend_check_api_key (self, &error))
    {
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }

  if (priv->batch_queue != NULL && klass->batch_submit_async != NULL &&
      klass->batch_poll_async != NULL)
    {
      body = write_body (self, request, model, &error);
      if (body == NULL)
        {
          g_task_return_error (task, g_steal_pointer (&error));
          return;
        }
      anot_batch_queue_add (priv->batch_queue, self, model, body,
                            anot_chat_request_get_request_id (request),
                            g_steal_pointer (&task));
      return;
    }
  http_backend_enqueue (self, g_steal_pointer (&task),
                        anot_chat_request_get_request_id (request),
                        model, priv->endpoints,
                        priv->endpoints ? NULL : g_uri_ref (priv->uri), "POST", NULL, NULL, request,
                        FALSE);
}

/* Queues a call of @task (which it takes) to @uri (which it takes), or
 * when @uri is %NULL to whichever of @endpoints the pump picks.  Its body
 * is @body, or when that is %NULL the chat call of @request, written when
 * the call leaves the queue. */
static void
http_backend_enqueue (AnotHttpBackend *self,
                      GTask           *task,
                      const char      *queue_key,
                      const char      *model,
                      GPtrArray       *endpoints,
                      GUri            *uri,
                      const char      *method,
                      const char      *content_type,
                      GBytes          *body,
                      AnotChatRequest *request,
                      gboolean         raw)
{
  AnotHttpBackendPrivate *priv = anot_http_backend_get_instance_private (self);
  GCancellable *cancellable = g_task_get_cancellable (task);
  GQueue *queue;
  Call *call;

  ensure_session (self);

  call = g_new0 (Call, 1);
  call->self = g_object_ref (self);
  call->task = task;
  call->queue_key = g_strdup (queue_key ? queue_key : "");
  call->model = g_strdup (model);
  if (endpoints != NULL)
    {
      AnotEndpoint *first = g_ptr_array_index (endpoints, 0);

      g_assert (uri == NULL);
      call->endpoints = g_ptr_array_ref (endpoints);
      uri = g_uri_ref (first->uri);
    }
  call->uri = uri;
  call->method = method;
  call->content_type = g_strdup (content_type);
  call->raw = raw;
  call->body = body ? g_bytes_ref (body) : NULL;
  call->request = request ? g_object_ref (request) : NULL;
  call->state = CALL_QUEUED;

  if (cancellable != NULL)
    {
      call->cancel_source = g_cancellable_source_new (cancellable);
      g_source_set_callback (call->cancel_source, (GSourceFunc) (void (*) (void)) on_call_cancelled,
                             call, NULL);
      g_source_set_static_name (call->cancel_source, "[anot] LLM call cancelled");
      g_source_attach (call->cancel_source, g_task_get_context (call->task));
    }

  queue = g_hash_table_lookup (priv->queues, call->queue_key);
  if (queue == NULL)
    {
      char *key = g_strdup (call->queue_key);

      queue = g_queue_new ();
      g_hash_table_insert (priv->queues, key, queue);
      g_queue_push_tail (&priv->ring, key);
    }
  g_queue_push_tail (queue, call);
  priv->n_queued++;

  http_backend_pump (self);
}

static AnotCompletion *
anot_http_backend_complete_finish (AnotBackend   *backend,
                                   GAsyncResult  *result,
                                   GError       **error)
{
  g_return_val_if_fail (g_task_is_valid (result, backend), NULL);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == anot_http_backend_complete_async,
                        NULL);

  return g_task_propagate_pointer (G_TASK (result), error);
}

static void
anot_http_backend_backend_iface_init (AnotBackendInterface *iface)
{
  iface->complete_async = anot_http_backend_complete_async;
  iface->complete_finish = anot_http_backend_complete_finish;
}

/* ------------------------------------------------------------------------
 * Properties
 * --------------------------------------------------------------------- */

/**
 * anot_http_backend_get_base_url:
 * @self: an #AnotHttpBackend
 *
 * Returns: (nullable): the base URL, the class default when not set
 */
const char *
anot_http_backend_get_base_url (AnotHttpBackend *self)
{
  AnotHttpBackendPrivate *priv;

  g_return_val_if_fail (ANOT_IS_HTTP_BACKEND (self), NULL);

  priv = anot_http_backend_get_instance_private (self);
  return priv->base_url ? priv->base_url : ANOT_HTTP_BACKEND_GET_CLASS (self)->default_base_url;
}

/**
 * anot_http_backend_set_base_url:
 * @self: an #AnotHttpBackend
 * @base_url: (nullable): a base URL, or %NULL for the class default
 *
 * Sets [property@Anot.HttpBackend:base-url]; it is checked by the next
 * call.
 */
void
anot_http_backend_set_base_url (AnotHttpBackend *self,
                                const char      *base_url)
{
  AnotHttpBackendPrivate *priv;

  g_return_if_fail (ANOT_IS_HTTP_BACKEND (self));

  priv = anot_http_backend_get_instance_private (self);
  if (g_strcmp0 (priv->base_url, base_url) == 0)
    return;
  g_free (priv->base_url);
  priv->base_url = base_url && *base_url ? g_strdup (base_url) : NULL;
  g_clear_pointer (&priv->uri, g_uri_unref);
  /* Calls in flight keep the list they were made with. */
  g_clear_pointer (&priv->endpoints, g_ptr_array_unref);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_BASE_URL]);
}

/**
 * anot_http_backend_set_api_key:
 * @self: an #AnotHttpBackend
 * @api_key: (nullable): the API key, or %NULL for none
 *
 * Sets [property@Anot.HttpBackend:api-key].
 */
void
anot_http_backend_set_api_key (AnotHttpBackend *self,
                               const char      *api_key)
{
  AnotHttpBackendPrivate *priv;

  g_return_if_fail (ANOT_IS_HTTP_BACKEND (self));

  priv = anot_http_backend_get_instance_private (self);
  if (priv->api_key != NULL)
    {
      memset (priv->api_key, 0, strlen (priv->api_key));
      g_free (priv->api_key);
    }
  priv->api_key = api_key && *api_key ? g_strdup (api_key) : NULL;
}

/**
 * anot_http_backend_has_api_key:
 * @self: an #AnotHttpBackend
 *
 * Returns: whether an API key is set
 */
gboolean
anot_http_backend_has_api_key (AnotHttpBackend *self)
{
  AnotHttpBackendPrivate *priv;

  g_return_val_if_fail (ANOT_IS_HTTP_BACKEND (self), FALSE);

  priv = anot_http_backend_get_instance_private (self);
  return priv->api_key != NULL;
}

/**
 * anot_http_backend_get_model:
 * @self: an #AnotHttpBackend
 *
 * Returns: (nullable): the default model, the class default when not set
 */
const char *
anot_http_backend_get_model (AnotHttpBackend *self)
{
  AnotHttpBackendPrivate *priv;

  g_return_val_if_fail (ANOT_IS_HTTP_BACKEND (self), NULL);

  priv = anot_http_backend_get_instance_private (self);
  return priv->model ? priv->model : ANOT_HTTP_BACKEND_GET_CLASS (self)->default_model;
}

/**
 * anot_http_backend_set_model:
 * @self: an #AnotHttpBackend
 * @model: (nullable): the default model, or %NULL for the class default
 *
 * Sets [property@Anot.HttpBackend:model].
 */
void
anot_http_backend_set_model (AnotHttpBackend *self,
                             const char      *model)
{
  AnotHttpBackendPrivate *priv;

  g_return_if_fail (ANOT_IS_HTTP_BACKEND (self));

  priv = anot_http_backend_get_instance_private (self);
  if (g_strcmp0 (priv->model, model) == 0)
    return;
  g_free (priv->model);
  priv->model = model && *model ? g_strdup (model) : NULL;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_MODEL]);
}

/**
 * anot_http_backend_get_timeout_ms:
 * @self: an #AnotHttpBackend
 *
 * Returns: the timeout of one attempt in milliseconds, 0 for none
 */
guint
anot_http_backend_get_timeout_ms (AnotHttpBackend *self)
{
  AnotHttpBackendPrivate *priv;

  g_return_val_if_fail (ANOT_IS_HTTP_BACKEND (self), 0);

  priv = anot_http_backend_get_instance_private (self);
  return priv->timeout_ms;
}

/**
 * anot_http_backend_set_timeout_ms:
 * @self: an #AnotHttpBackend
 * @timeout_ms: the timeout of one attempt in milliseconds, 0 for none
 *
 * Sets [property@Anot.HttpBackend:timeout-ms].
 */
void
anot_http_backend_set_timeout_ms (AnotHttpBackend *self,
                                  guint            timeout_ms)
{
  AnotHttpBackendPrivate *priv;

  g_return_if_fail (ANOT_IS_HTTP_BACKEND (self));

  priv = anot_http_backend_get_instance_private (self);
  if (priv->timeout_ms == timeout_ms)
    return;
  priv->timeout_ms = timeout_ms;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_TIMEOUT_MS]);
}

/**
 * anot_http_backend_get_max_retries:
 * @self: an #AnotHttpBackend
 *
 * Returns: how many times a failed attempt is retried
 */
guint
anot_http_backend_get_max_retries (AnotHttpBackend *self)
{
  AnotHttpBackendPrivate *priv;

  g_return_val_if_fail (ANOT_IS_HTTP_BACKEND (self), 0);

  priv = anot_http_backend_get_instance_private (self);
  return priv->max_retries;
}

/**
 * anot_http_backend_set_max_retries:
 * @self: an #AnotHttpBackend
 * @max_retries: how many times a failed attempt is retried
 *
 * Sets [property@Anot.HttpBackend:max-retries].
 */
void
anot_http_backend_set_max_retries (AnotHttpBackend *self,
                                   guint            max_retries)
{
  AnotHttpBackendPrivate *priv;

  g_return_if_fail (ANOT_IS_HTTP_BACKEND (self));

  priv = anot_http_backend_get_instance_private (self);
  if (priv->max_retries == max_retries)
    return;
  priv->max_retries = max_retries;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_MAX_RETRIES]);
}

/**
 * anot_http_backend_get_max_concurrency:
 * @self: an #AnotHttpBackend
 *
 * Returns: the most calls in flight at once
 */
guint
anot_http_backend_get_max_concurrency (AnotHttpBackend *self)
{
  AnotHttpBackendPrivate *priv;

  g_return_val_if_fail (ANOT_IS_HTTP_BACKEND (self), 0);

  priv = anot_http_backend_get_instance_private (self);
  return priv->max_concurrency;
}

/**
 * anot_http_backend_set_max_concurrency:
 * @self: an #AnotHttpBackend
 * @max_concurrency: the most calls in flight at once, at least 1
 *
 * Sets [property@Anot.HttpBackend:max-concurrency].  Queued calls start
 * at once if the bound grew.
 */
void
anot_http_backend_set_max_concurrency (AnotHttpBackend *self,
                                       guint            max_concurrency)
{
  AnotHttpBackendPrivate *priv;

  g_return_if_fail (ANOT_IS_HTTP_BACKEND (self));
  g_return_if_fail (max_concurrency >= 1);

  priv = anot_http_backend_get_instance_private (self);
  if (priv->max_concurrency == max_concurrency)
    return;
  priv->max_concurrency = max_concurrency;
  /* The connection pool is sized by the bound: the next call opens a new
   * session (calls in flight keep the old one alive). */
  g_clear_object (&priv->session);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_MAX_CONCURRENCY]);
  if (priv->n_queued > 0)
    {
      ensure_session (self);
      http_backend_pump (self);
    }
}

/**
 * anot_http_backend_get_n_in_flight:
 * @self: an #AnotHttpBackend
 *
 * Returns: the calls on the wire or waiting to retry
 */
guint
anot_http_backend_get_n_in_flight (AnotHttpBackend *self)
{
  AnotHttpBackendPrivate *priv;

  g_return_val_if_fail (ANOT_IS_HTTP_BACKEND (self), 0);

  priv = anot_http_backend_get_instance_private (self);
  return priv->n_in_flight;
}

/**
 * anot_http_backend_get_n_queued:
 * @self: an #AnotHttpBackend
 *
 * Returns: the calls waiting for a free slot
 */
guint
anot_http_backend_get_n_queued (AnotHttpBackend *self)
{
  AnotHttpBackendPrivate *priv;

  g_return_val_if_fail (ANOT_IS_HTTP_BACKEND (self), 0);

  priv = anot_http_backend_get_instance_private (self);
  return priv->n_queued;
}

/**
 * anot_http_backend_get_n_retries:
 * @self: an #AnotHttpBackend
 *
 * Returns: the retries made so far, by every call
 */
guint64
anot_http_backend_get_n_retries (AnotHttpBackend *self)
{
  AnotHttpBackendPrivate *priv;

  g_return_val_if_fail (ANOT_IS_HTTP_BACKEND (self), 0);

  priv = anot_http_backend_get_instance_private (self);
  return priv->n_retries;
}

/**
 * anot_http_backend_get_concurrency_limit:
 * @self: an #AnotHttpBackend
 *
 * Returns: the value of [property@Anot.HttpBackend:concurrency-limit]:
 *   the calls that may be in flight now
 */
guint
anot_http_backend_get_concurrency_limit (AnotHttpBackend *self)
{
  AnotHttpBackendPrivate *priv;

  g_return_val_if_fail (ANOT_IS_HTTP_BACKEND (self), 0);

  priv = anot_http_backend_get_instance_private (self);
  return anot_http_pacer_get_limit (priv->pacer, priv->max_concurrency);
}

/**
 * anot_http_backend_get_peak_concurrency:
 * @self: an #AnotHttpBackend
 *
 * Returns: the value of [property@Anot.HttpBackend:peak-concurrency]: the
 *   highest adaptive limit reached, 0 when the concurrency is fixed
 */
guint
anot_http_backend_get_peak_concurrency (AnotHttpBackend *self)
{
  AnotHttpBackendPrivate *priv;

  g_return_val_if_fail (ANOT_IS_HTTP_BACKEND (self), 0);

  priv = anot_http_backend_get_instance_private (self);
  return anot_http_pacer_get_peak (priv->pacer);
}

/**
 * anot_http_backend_get_rate_limit_wait_ms:
 * @self: an #AnotHttpBackend
 *
 * Returns: the value of [property@Anot.HttpBackend:rate-limit-wait-ms]:
 *   how long the next queued call still waits for a rate limit, 0 when
 *   none does
 */
guint
anot_http_backend_get_rate_limit_wait_ms (AnotHttpBackend *self)
{
  AnotHttpBackendPrivate *priv;
  gint64 until, now;

  g_return_val_if_fail (ANOT_IS_HTTP_BACKEND (self), 0);

  priv = anot_http_backend_get_instance_private (self);
  until = anot_http_pacer_get_waiting (priv->pacer);
  now = g_get_monotonic_time ();
  if (until <= now || priv->n_queued == 0)
    return 0;
  return (guint) MIN ((until - now + 999) / 1000, G_MAXUINT);
}

/* ------------------------------------------------------------------------
 * Batches and other exchanges
 * --------------------------------------------------------------------- */

/*
 * anot_http_backend_complete_direct:
 *
 * Sends the call of @task (a task of complete_async(), which it takes)
 * with @body directly, whatever the batch queue: for the lines a batch
 * did not answer when the queue retries them as direct calls.
 */
void
anot_http_backend_complete_direct (AnotHttpBackend *self,
                                   GTask           *task,
                                   const char      *queue_key,
                                   const char      *model,
                                   GBytes          *body)
{
  AnotHttpBackendPrivate *priv = anot_http_backend_get_instance_private (self);
  g_autoptr(GError) error = NULL;

  if (!ensure_uri (self, &error))
    {
      g_task_return_error (task, g_steal_pointer (&error));
      g_object_unref (task);
      return;
    }
  http_backend_enqueue (self, task, queue_key, model, NULL, g_uri_ref (priv->uri), "POST", NULL, body,
                        NULL, FALSE);
}

/**
 * anot_http_backend_send_async:
 * @self: an #AnotHttpBackend
 * @method: the HTTP method, `GET` or `POST`
 * @path: a path under the base URL (`/batches`), or an absolute http(s)
 *   URL
 * @content_type: (nullable): the body's media type; `application/json`
 *   when %NULL
 * @body: (nullable): the request body, or %NULL for none
 * @cancellable: (nullable): a #GCancellable
 * @callback: (scope async): called with the answer
 * @user_data: data for @callback
 *
 * One HTTP exchange with the API other than a chat call — a batch
 * endpoint's — with everything a call has: the API key's headers, the
 * concurrency bound, the timeout per attempt and the retries with
 * backoff on 429, 5xx and connection errors.  Backend plugins use it to
 * implement the `batch_*` virtual functions.
 */
void
anot_http_backend_send_async (AnotHttpBackend     *self,
                              const char          *method,
                              const char          *path,
                              const char          *content_type,
                              GBytes              *body,
                              GCancellable        *cancellable,
                              GAsyncReadyCallback  callback,
                              gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;
  g_autoptr(GError) error = NULL;
  GUri *uri;

  g_return_if_fail (ANOT_IS_HTTP_BACKEND (self));
  g_return_if_fail (method != NULL);
  g_return_if_fail (path != NULL);

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, anot_http_backend_send_async);
  g_task_set_name (task, "[anot] LLM API exchange");
  g_task_set_check_cancellable (task, FALSE);

  if (g_task_return_error_if_cancelled (task))
    return;
  uri = resolve_uri (self, path, &error);
  if (uri == NULL)
    {
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }
  http_backend_enqueue (self, g_steal_pointer (&task), "", NULL, NULL, uri,
                        g_intern_string (method), content_type, body, NULL, TRUE);
}

/**
 * anot_http_backend_send_finish:
 * @self: an #AnotHttpBackend
 * @result: the #GAsyncResult
 * @error: return location for a #GError
 *
 * Returns: (transfer full): the body of the successful (2xx) answer, or
 *   %NULL with @error set as for a call (%ANOT_ERROR_LLM_AUTH,
 *   %ANOT_ERROR_LLM_BAD_REQUEST with the server's message, ...)
 */
GBytes *
anot_http_backend_send_finish (AnotHttpBackend  *self,
                               GAsyncResult     *result,
                               GError          **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == anot_http_backend_send_async,
                        NULL);

  return g_task_propagate_pointer (G_TASK (result), error);
}

/**
 * anot_http_backend_get_batch_queue:
 * @self: an #AnotHttpBackend
 *
 * Returns: (transfer none) (nullable): the batch queue calls go to, or
 *   %NULL when they are made directly
 */
AnotBatchQueue *
anot_http_backend_get_batch_queue (AnotHttpBackend *self)
{
  AnotHttpBackendPrivate *priv;

  g_return_val_if_fail (ANOT_IS_HTTP_BACKEND (self), NULL);

  priv = anot_http_backend_get_instance_private (self);
  return priv->batch_queue;
}

/**
 * anot_http_backend_set_batch_queue:
 * @self: an #AnotHttpBackend
 * @queue: (nullable): a batch queue, or %NULL to make calls directly
 *
 * Sends the calls made from now on through @queue, that is through the
 * API's batch endpoint, when the backend has one
 * ([method@Anot.HttpBackend.can_batch]); otherwise they stay direct.
 */
void
anot_http_backend_set_batch_queue (AnotHttpBackend *self,
                                   AnotBatchQueue  *queue)
{
  AnotHttpBackendPrivate *priv;

  g_return_if_fail (ANOT_IS_HTTP_BACKEND (self));
  g_return_if_fail (queue == NULL || ANOT_IS_BATCH_QUEUE (queue));

  priv = anot_http_backend_get_instance_private (self);
  g_set_object (&priv->batch_queue, queue);
}

/**
 * anot_http_backend_can_batch:
 * @self: an #AnotHttpBackend
 *
 * Returns: whether the backend's API has a batch endpoint anot speaks
 */
gboolean
anot_http_backend_can_batch (AnotHttpBackend *self)
{
  AnotHttpBackendClass *klass;

  g_return_val_if_fail (ANOT_IS_HTTP_BACKEND (self), FALSE);

  klass = ANOT_HTTP_BACKEND_GET_CLASS (self);
  return klass->batch_submit_async != NULL && klass->batch_poll_async != NULL;
}

/**
 * anot_http_backend_read_answer:
 * @self: an #AnotHttpBackend
 * @document: a JSON document that holds an answer of the API somewhere
 *   inside (a line of a batch's results)
 * @value: the index of the answer's object in @document
 * @error: return location for a #GError
 *
 * Reads the answer at @value as the backend reads the body of a direct
 * call's answer (the class's `read_body`): batch results wrap the same
 * JSON a direct call gets.
 *
 * Returns: (transfer full) (nullable): the completion, or %NULL with
 *   @error set as `read_body` sets it
 */
AnotCompletion *
anot_http_backend_read_answer (AnotHttpBackend   *self,
                               AnotJsonDocument  *document,
                               int                value,
                               GError           **error)
{
  g_autoptr(JsonNode) node = NULL;
  g_autoptr(AnotJsonDocument) answer = NULL;
  g_autofree char *text = NULL;
  AnotCompletion *completion;

  g_return_val_if_fail (ANOT_IS_HTTP_BACKEND (self), NULL);
  g_return_val_if_fail (document != NULL, NULL);

  if (anot_json_document_get_kind (document, value) != ANOT_JSON_KIND_OBJECT)
    {
      g_set_error (error, ANOT_ERROR, ANOT_ERROR_LLM_PROTOCOL,
                   "A batch result holds no answer object");
      return NULL;
    }
  /* The answer is parsed again on its own, so read_body sees a document
   * whose root is the answer, as for a direct call. */
  node = anot_json_document_dup_node (document, value);
  text = json_to_string (node, FALSE);
  answer = anot_json_document_new_from_data (text, -1, error);
  if (answer == NULL)
    return NULL;
  completion = ANOT_HTTP_BACKEND_GET_CLASS (self)->read_body (self, answer, error);
  /* The line's escapes read as U+FFFD were the answer's: the rest of a
   * line is ids the provider wrote. */
  if (completion != NULL)
    anot_completion_set_replaced_characters (completion, _anot_json_document_get_n_replaced (document));
  return completion;
}
