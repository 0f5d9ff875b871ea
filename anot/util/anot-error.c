/* anot-error.c
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "anot-error-private.h"

/* An extended error domain (GLib's G_DEFINE_EXTENDED_ERROR, written out
 * because the domain keeps its name, "anot-error-quark", which Python code
 * compares with): every error of the domain carries AnotErrorPrivate. */
typedef struct
{
  guint retries;
} AnotErrorPrivate;

static AnotErrorPrivate *
anot_error_get_private (const GError *error)
{
  /* GLib puts the private data before the GError, aligned as here. */
  const gsize sa = 2 * sizeof (gsize);
  const gsize as = (sizeof (AnotErrorPrivate) + (sa - 1)) & -sa;

  return (AnotErrorPrivate *) (((guint8 *) error) - as);
}

static void
anot_error_private_init (GError *error)
{
  anot_error_get_private (error)->retries = 0;
}

static void
anot_error_private_copy (const GError *src,
                         GError       *dest)
{
  anot_error_get_private (dest)->retries = anot_error_get_private (src)->retries;
}

static void
anot_error_private_clear (GError *error)
{
}

GQuark
anot_error_quark (void)
{
  static gsize quark;

  if (g_once_init_enter (&quark))
    g_once_init_leave (&quark, g_error_domain_register_static ("anot-error-quark",
                                                               sizeof (AnotErrorPrivate),
                                                               anot_error_private_init,
                                                               anot_error_private_copy,
                                                               anot_error_private_clear));
  return (GQuark) quark;
}

/* Registered when the library is loaded: an error of the domain made from
 * its name alone (PyGObject's GLib.Error) has the private data too. */
__attribute__ ((constructor)) static void
anot_error_register (void)
{
  anot_error_quark ();
}

void
anot_error_set_retries (GError *error,
                        guint   retries)
{
  if (error != NULL && error->domain == ANOT_ERROR)
    anot_error_get_private (error)->retries = retries;
}

guint
anot_error_get_retries (const GError *error)
{
  if (error == NULL || error->domain != ANOT_ERROR)
    return 0;
  return anot_error_get_private (error)->retries;
}

/**
 * anot_error_is_infrastructure:
 * @error: (nullable): an error a request failed with
 *
 * Whether @error is a failure of the infrastructure rather than of the
 * method: the LLM server could not be reached, timed out, answered 429 or
 * 5xx through every retry, broke the API's protocol, refused the key
 * (401/403) or did not know the model (404); a batch line expired, was
 * cancelled or its batch failed; the response cache failed or had no
 * answer offline; the LLM configuration is wrong; the batch API did not
 * know a batch (HTTP 404).  Such a request says
 * nothing about the method: a run does not score it, and a resume runs it
 * again.  Everything else — an answer the method cannot parse, an error in
 * the method's code, a refusal, an empty answer, a prompt the server
 * rejected as too long — is the method's failure, scored as a miss like the
 * original framework does.
 *
 * Returns: %TRUE for an infrastructure failure
 */
gboolean
anot_error_is_infrastructure (const GError *error)
{
  if (error == NULL || error->domain != ANOT_ERROR)
    return FALSE;
  switch ((AnotError) error->code)
    {
    case ANOT_ERROR_LLM_AUTH:
    case ANOT_ERROR_LLM_NOT_FOUND:
    case ANOT_ERROR_LLM_RATE_LIMITED:
    case ANOT_ERROR_LLM_SERVER:
    case ANOT_ERROR_LLM_TIMEOUT:
    case ANOT_ERROR_LLM_CONNECTION:
    case ANOT_ERROR_LLM_PROTOCOL:
    case ANOT_ERROR_LLM_BATCH:
    case ANOT_ERROR_LLM_BATCH_NOT_FOUND:
    case ANOT_ERROR_CACHE_MISS:
    case ANOT_ERROR_CACHE:
    case ANOT_ERROR_CONFIG:
      return TRUE;
    default:
      return FALSE;
    }
}

/**
 * anot_error_stops_run:
 * @error: (nullable): an error an LLM call failed with
 *
 * Whether @error is one that no retry can fix and that every other call of
 * the run would get as well: the LLM server refused the API key (401/403),
 * does not know the model (404), or the LLM configuration is wrong.  A run
 * (`anot-run`, `anot-run formula`) stops at the first such error with its
 * message, instead of failing every request or item with it, and keeps
 * nothing computed without that call; once it is fixed the work is run
 * again.
 *
 * Returns: %TRUE when @error stops a run
 */
gboolean
anot_error_stops_run (const GError *error)
{
  return g_error_matches (error, ANOT_ERROR, ANOT_ERROR_LLM_AUTH) ||
         g_error_matches (error, ANOT_ERROR, ANOT_ERROR_LLM_NOT_FOUND) ||
         g_error_matches (error, ANOT_ERROR, ANOT_ERROR_CONFIG);
}
