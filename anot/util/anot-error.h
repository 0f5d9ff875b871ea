/* anot-error.h: the project error domain
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#if !defined(ANOT_INSIDE) && !defined(ANOT_COMPILATION)
#error "Only <anot/anot.h> can be included directly."
#endif

#include "anot-visibility.h"

#include <glib.h>

G_BEGIN_DECLS

/**
 * AnotError:
 * @ANOT_ERROR_IO: a file could not be read or written
 * @ANOT_ERROR_PARSE: a line or document is not valid JSON (or not the
 *   expected JSON type)
 * @ANOT_ERROR_MISSING_FIELD: a required field is absent
 * @ANOT_ERROR_INVALID_FIELD: a field has the wrong type or an invalid value
 *   (an unknown evidence kind or operator, a malformed hours range, ...)
 * @ANOT_ERROR_DUPLICATE_ID: an id occurs twice where it must be unique
 * @ANOT_ERROR_UNKNOWN_REFERENCE: a record refers to an id that does not exist
 *   (a review of an unknown item, a gold answer that is not an item, ...)
 * @ANOT_ERROR_PLUGIN_NOT_FOUND: no plugin of that name is registered
 * @ANOT_ERROR_INVALID_ARGUMENT: an option or argument is out of range or
 *   inconsistent with others
 * @ANOT_ERROR_METHOD_FAILED: a method could not rank a request
 * @ANOT_ERROR_VALIDATION_FAILED: the validator disagrees with the gold labels
 * @ANOT_ERROR_GOLD_NOT_IN_POOL: in `original` pool mode, the request's gold
 *   item is not among the top-N items, so the request is dropped
 * @ANOT_ERROR_RESUME: a run directory cannot be resumed (missing or
 *   inconsistent `config.json`)
 * @ANOT_ERROR_LLM_AUTH: the LLM server refused the API key (HTTP 401 or
 *   403); never retried, and it stops a run at once.  The message names the
 *   environment variable and the configuration key that supply the key.
 * @ANOT_ERROR_LLM_BAD_REQUEST: the LLM server rejected the request (HTTP
 *   400, 404, 422 and other 4xx); never retried.  The message carries the
 *   server's own error message.
 * @ANOT_ERROR_LLM_RATE_LIMITED: HTTP 429 persisted through every retry
 * @ANOT_ERROR_LLM_SERVER: HTTP 5xx persisted through every retry
 * @ANOT_ERROR_LLM_TIMEOUT: no complete answer within the per-call timeout,
 *   through every retry; or a request reached its deadline
 *   (`--request-timeout`) while one of its calls still waited on the
 *   server (sent, retrying, queued for or inside a batch)
 * @ANOT_ERROR_LLM_CONNECTION: the LLM server could not be reached or closed
 *   the connection early, through every retry
 * @ANOT_ERROR_LLM_PROTOCOL: the answer is not what the API defines
 *   (malformed JSON, missing fields), through every retry
 * @ANOT_ERROR_LLM_EMPTY: the model returned no text (for instance it ran out
 *   of tokens before answering)
 * @ANOT_ERROR_LLM_REFUSED: the model refused to answer
 * @ANOT_ERROR_CACHE_MISS: offline mode, and the response cache holds no
 *   answer for the call; the message names the request and the role
 * @ANOT_ERROR_CACHE: the response cache file cannot be opened, read or
 *   written
 * @ANOT_ERROR_CONFIG: the configuration (file, environment variable or
 *   option) of the LLM backends is invalid
 * @ANOT_ERROR_ATTACK_FAILED: an attack could not be applied, or broke its
 *   contract (it changed the gold item, the number or the order of the
 *   candidates)
 * @ANOT_ERROR_EXPR_SYNTAX: a formula is not a valid expression, or uses a
 *   construct the expression language leaves out (lambda, f-strings, ...)
 *   (Python's `SyntaxError`)
 * @ANOT_ERROR_EXPR_FORBIDDEN: a formula uses something the sandbox refuses:
 *   a name or attribute starting with two underscores, `import`
 * @ANOT_ERROR_EXPR_NAME: a formula uses an undefined name (`NameError`)
 * @ANOT_ERROR_EXPR_TYPE: an operation or function got a value of the wrong
 *   type (`TypeError`)
 * @ANOT_ERROR_EXPR_VALUE: a value is of the right type but invalid, such as
 *   `max()` of an empty sequence or `log(0)` (`ValueError`)
 * @ANOT_ERROR_EXPR_KEY: a dict has no such key (`KeyError`)
 * @ANOT_ERROR_EXPR_INDEX: a sequence index is out of range (`IndexError`)
 * @ANOT_ERROR_EXPR_ATTRIBUTE: an attribute or method that is not on the
 *   whitelist, or not defined for the value (`AttributeError`)
 * @ANOT_ERROR_EXPR_ZERO_DIVISION: division or modulo by zero
 *   (`ZeroDivisionError`)
 * @ANOT_ERROR_EXPR_OVERFLOW: an integer does not fit in 64 bits, or a float
 *   operation overflows (`OverflowError`)
 * @ANOT_ERROR_EXPR_LIMIT: an evaluation exceeded its step budget, or a
 *   value or the formula exceeded a size or nesting limit
 * @ANOT_ERROR_NOT_COMPARABLE: results that a comparison pairs were not made
 *   on the same requests and candidate pools (another dataset checksum, pool
 *   mode, seed or request set)
 * @ANOT_ERROR_SHARDS: shard directories cannot be merged: they belong to
 *   different experiments, a shard is missing or given twice, or a request
 *   is missing from every shard or present in two
 * @ANOT_ERROR_LLM_BATCH: a call sent through a provider's batch API got no
 *   answer: its line expired, was cancelled or the whole batch failed, and
 *   the retries allowed for it are spent
 * @ANOT_ERROR_BUDGET: a run stopped because the next request would pass
 *   the spending limit (`--max-cost`)
 * @ANOT_ERROR_PLUGIN_LOAD: a plugin file (a module, a Python method file)
 *   named explicitly could not be loaded; the message names the file and
 *   why (the line, for a Python file)
 * @ANOT_ERROR_METHOD_TIMEOUT: a method did not finish a request within its
 *   deadline (`--request-timeout`) and had no LLM call outstanding; the
 *   request was cancelled and recorded as a failure of the method
 * @ANOT_ERROR_LLM_NOT_FOUND: the LLM server answered a call with HTTP 404:
 *   an unknown model or a wrong base URL; never retried, and it stops a run
 *   at once (every other call would get it too)
 * @ANOT_ERROR_INCOMPLETE: a run finished, but some requests could not be
 *   scored because of an infrastructure failure (see
 *   anot_error_is_infrastructure()); their rows keep the error, and a resume
 *   runs them again
 * @ANOT_ERROR_BUSY: another process is running, resuming or merging into
 *   the same experiment directory (its PID and host are in the message)
 * @ANOT_ERROR_LLM_BATCH_NOT_FOUND: the LLM server answered a request of its
 *   batch API (a batch, its file) with HTTP 404: it does not know the
 *   object (deleted, or forgotten by the provider)
 *
 * Error codes in the %ANOT_ERROR domain.  Errors about input files carry the
 * file name, the 1-based line number and the field in their message, e.g.
 * `reviews.jsonl:12: field “stars”: expected a number`.
 */
typedef enum {
  ANOT_ERROR_IO,
  ANOT_ERROR_PARSE,
  ANOT_ERROR_MISSING_FIELD,
  ANOT_ERROR_INVALID_FIELD,
  ANOT_ERROR_DUPLICATE_ID,
  ANOT_ERROR_UNKNOWN_REFERENCE,
  ANOT_ERROR_PLUGIN_NOT_FOUND,
  ANOT_ERROR_INVALID_ARGUMENT,
  ANOT_ERROR_METHOD_FAILED,
  ANOT_ERROR_VALIDATION_FAILED,
  ANOT_ERROR_GOLD_NOT_IN_POOL,
  ANOT_ERROR_RESUME,
  ANOT_ERROR_LLM_AUTH,
  ANOT_ERROR_LLM_BAD_REQUEST,
  ANOT_ERROR_LLM_RATE_LIMITED,
  ANOT_ERROR_LLM_SERVER,
  ANOT_ERROR_LLM_TIMEOUT,
  ANOT_ERROR_LLM_CONNECTION,
  ANOT_ERROR_LLM_PROTOCOL,
  ANOT_ERROR_LLM_EMPTY,
  ANOT_ERROR_LLM_REFUSED,
  ANOT_ERROR_CACHE_MISS,
  ANOT_ERROR_CACHE,
  ANOT_ERROR_CONFIG,
  ANOT_ERROR_ATTACK_FAILED,
  ANOT_ERROR_EXPR_SYNTAX,
  ANOT_ERROR_EXPR_FORBIDDEN,
  ANOT_ERROR_EXPR_NAME,
  ANOT_ERROR_EXPR_TYPE,
  ANOT_ERROR_EXPR_VALUE,
  ANOT_ERROR_EXPR_KEY,
  ANOT_ERROR_EXPR_INDEX,
  ANOT_ERROR_EXPR_ATTRIBUTE,
  ANOT_ERROR_EXPR_ZERO_DIVISION,
  ANOT_ERROR_EXPR_OVERFLOW,
  ANOT_ERROR_EXPR_LIMIT,
  ANOT_ERROR_NOT_COMPARABLE,
  ANOT_ERROR_SHARDS,
  ANOT_ERROR_LLM_BATCH,
  ANOT_ERROR_BUDGET,
  ANOT_ERROR_PLUGIN_LOAD,
  ANOT_ERROR_METHOD_TIMEOUT,
  ANOT_ERROR_LLM_NOT_FOUND,
  ANOT_ERROR_INCOMPLETE,
  ANOT_ERROR_BUSY,
  ANOT_ERROR_LLM_BATCH_NOT_FOUND,
} AnotError;

/**
 * ANOT_ERROR:
 *
 * The error domain of anot.
 */
#define ANOT_ERROR (anot_error_quark ())

ANOT_AVAILABLE_IN_ALL
GQuark anot_error_quark (void);

ANOT_AVAILABLE_IN_ALL
gboolean anot_error_is_infrastructure (const GError *error);

ANOT_AVAILABLE_IN_ALL
gboolean anot_error_stops_run (const GError *error);

G_END_DECLS
