/* anot-response-cache.c: LLM answers stored in SQLite
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "anot-response-cache.h"

#include "anot-error.h"

#include <sqlite3.h>

/**
 * AnotResponseCache:
 *
 * LLM answers stored in one SQLite file, keyed by
 * anot_chat_request_hash(): a hash of the backend, the model, the messages
 * and every generation option.
 *
 * The file is in WAL mode with a busy timeout, so several processes (two
 * `anot-run` on the same cache) may read and write it at once; the first
 * answer stored for a key is kept.  Shipping the file with a results
 * folder lets anyone rerun the experiment without keys or network
 * (`anot-run --cache FILE --offline`) and get the same results.
 *
 * Each row keeps the answer text, the model the provider named, the token
 * counts, the latency and retries of the original call, its finish reason
 * and, for people reading the file, the request itself as JSON (messages
 * and options; never a key or a header).
 *
 * [class@Anot.CachedBackend] puts a cache in front of a backend.
 */

#define SCHEMA_VERSION "1"
#define BUSY_TIMEOUT_MS 10000

struct _AnotResponseCache
{
  GObject parent_instance;

  char *path;
  sqlite3 *db;
  sqlite3_stmt *select;
  sqlite3_stmt *insert;
  guint64 n_hits;
  guint64 n_misses;
};

G_DEFINE_FINAL_TYPE (AnotResponseCache, anot_response_cache, G_TYPE_OBJECT)

enum {
  PROP_0,
  PROP_PATH,
  PROP_N_HITS,
  PROP_N_MISSES,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

static void
anot_response_cache_finalize (GObject *object)
{
  AnotResponseCache *self = ANOT_RESPONSE_CACHE (object);

  g_clear_pointer (&self->select, sqlite3_finalize);
  g_clear_pointer (&self->insert, sqlite3_finalize);
  g_clear_pointer (&self->db, sqlite3_close_v2);
  g_free (self->path);

  G_OBJECT_CLASS (anot_response_cache_parent_class)->finalize (object);
}

static void
anot_response_cache_get_property (GObject    *object,
                                  guint       prop_id,
                                  GValue     *value,
                                  GParamSpec *pspec)
{
  AnotResponseCache *self = ANOT_RESPONSE_CACHE (object);

  switch (prop_id)
    {
    case PROP_PATH:
      g_value_set_string (value, self->path);
      break;
    case PROP_N_HITS:
      g_value_set_uint64 (value, self->n_hits);
      break;
    case PROP_N_MISSES:
      g_value_set_uint64 (value, self->n_misses);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
anot_response_cache_class_init (AnotResponseCacheClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = anot_response_cache_finalize;
  object_class->get_property = anot_response_cache_get_property;

  /**
   * AnotResponseCache:path:
   *
   * The SQLite file.
   */
  properties[PROP_PATH] =
    g_param_spec_string ("path", NULL, NULL, NULL,
                         G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  /**
   * AnotResponseCache:n-hits:
   *
   * Lookups that found an answer.
   */
  properties[PROP_N_HITS] =
    g_param_spec_uint64 ("n-hits", NULL, NULL, 0, G_MAXUINT64, 0,
                         G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  /**
   * AnotResponseCache:n-misses:
   *
   * Lookups that found nothing.
   */
  properties[PROP_N_MISSES] =
    g_param_spec_uint64 ("n-misses", NULL, NULL, 0, G_MAXUINT64, 0,
                         G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);

  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
anot_response_cache_init (AnotResponseCache *self)
{
}

static gboolean
sql_error (AnotResponseCache  *self,
           const char         *what,
           GError            **error)
{
  g_set_error (error, ANOT_ERROR, ANOT_ERROR_CACHE, "Response cache %s: %s: %s",
               self->path, what, self->db ? sqlite3_errmsg (self->db) : "out of memory");
  return FALSE;
}

static gboolean
exec (AnotResponseCache  *self,
      const char         *sql,
      GError            **error)
{
  char *message = NULL;

  if (sqlite3_exec (self->db, sql, NULL, NULL, &message) != SQLITE_OK)
    {
      g_set_error (error, ANOT_ERROR, ANOT_ERROR_CACHE, "Response cache %s: %s",
                   self->path, message ? message : sqlite3_errmsg (self->db));
      sqlite3_free (message);
      return FALSE;
    }
  return TRUE;
}

/**
 * anot_response_cache_new:
 * @path: the SQLite file; created (with its directory) when missing
 * @error: return location for a #GError
 *
 * Opens a response cache.
 *
 * Errors: %ANOT_ERROR_CACHE when the file cannot be opened or is not a
 * response cache.
 *
 * Returns: (transfer full) (nullable): the cache, or %NULL with @error set
 */
AnotResponseCache *
anot_response_cache_new (const char  *path,
                         GError     **error)
{
  g_autoptr(AnotResponseCache) self = NULL;
  g_autofree char *dir = NULL;

  g_return_val_if_fail (path != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  self = g_object_new (ANOT_TYPE_RESPONSE_CACHE, NULL);
  self->path = g_strdup (path);

  dir = g_path_get_dirname (path);
  if (g_mkdir_with_parents (dir, 0755) != 0)
    {
      g_set_error (error, ANOT_ERROR, ANOT_ERROR_CACHE, "Response cache %s: cannot create %s",
                   path, dir);
      return NULL;
    }

  if (sqlite3_open_v2 (path, &self->db,
                       SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX,
                       NULL) != SQLITE_OK)
    {
      sql_error (self, "cannot open", error);
      return NULL;
    }
  sqlite3_busy_timeout (self->db, BUSY_TIMEOUT_MS);

  /* WAL: readers do not block the writer and the other way round, across
   * processes; NORMAL sync is durable enough for a cache. */
  if (!exec (self, "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;", error) ||
      !exec (self,
             "CREATE TABLE IF NOT EXISTS meta (name TEXT PRIMARY KEY, value TEXT NOT NULL);"
             "INSERT OR IGNORE INTO meta (name, value) VALUES ('schema', '" SCHEMA_VERSION "');"
             "CREATE TABLE IF NOT EXISTS completions ("
             "  key TEXT PRIMARY KEY,"
             "  backend TEXT NOT NULL,"
             "  model TEXT,"
             "  response_model TEXT,"
             "  text TEXT NOT NULL,"
             "  prompt_tokens INTEGER NOT NULL DEFAULT 0,"
             "  completion_tokens INTEGER NOT NULL DEFAULT 0,"
             "  latency_ms REAL NOT NULL DEFAULT 0,"
             "  retries INTEGER NOT NULL DEFAULT 0,"
             "  finish_reason TEXT,"
             "  request TEXT,"
             "  created TEXT NOT NULL"
             ");", error))
    return NULL;

  if (sqlite3_prepare_v2 (self->db,
                          "SELECT response_model, text, prompt_tokens, completion_tokens, "
                          "latency_ms, retries, finish_reason FROM completions WHERE key = ?1",
                          -1, &self->select, NULL) != SQLITE_OK ||
      sqlite3_prepare_v2 (self->db,
                          "INSERT OR IGNORE INTO completions (key, backend, model, response_model, "
                          "text, prompt_tokens, completion_tokens, latency_ms, retries, "
                          "finish_reason, request, created) "
                          "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)",
                          -1, &self->insert, NULL) != SQLITE_OK)
    {
      sql_error (self, "not a response cache", error);
      return NULL;
    }

  return g_steal_pointer (&self);
}

/**
 * anot_response_cache_get_path:
 * @self: an #AnotResponseCache
 *
 * Returns: the SQLite file
 */
const char *
anot_response_cache_get_path (AnotResponseCache *self)
{
  g_return_val_if_fail (ANOT_IS_RESPONSE_CACHE (self), NULL);
  return self->path;
}

/**
 * anot_response_cache_lookup:
 * @self: an #AnotResponseCache
 * @key: a key from anot_chat_request_hash()
 * @error: return location for a #GError
 *
 * Looks an answer up.  A hit is a completion with
 * [property@Anot.Completion:cached] set and the token counts, latency,
 * retries and finish reason of the original call; its cost is left at 0
 * for the [class@Anot.BackendRouter] to compute from the current prices.
 *
 * Returns: (transfer full) (nullable): the stored answer, or %NULL when
 *   there is none (@error is set only when the file cannot be read)
 */
AnotCompletion *
anot_response_cache_lookup (AnotResponseCache  *self,
                            const char         *key,
                            GError            **error)
{
  AnotCompletion *completion = NULL;
  int rc;

  g_return_val_if_fail (ANOT_IS_RESPONSE_CACHE (self), NULL);
  g_return_val_if_fail (key != NULL, NULL);

  sqlite3_reset (self->select);
  sqlite3_bind_text (self->select, 1, key, -1, SQLITE_TRANSIENT);
  rc = sqlite3_step (self->select);
  if (rc == SQLITE_ROW)
    {
      completion = anot_completion_new ((const char *) sqlite3_column_text (self->select, 0),
                                        (const char *) sqlite3_column_text (self->select, 1));
      anot_completion_set_prompt_tokens (completion, (guint64) sqlite3_column_int64 (self->select, 2));
      anot_completion_set_completion_tokens (completion,
                                             (guint64) sqlite3_column_int64 (self->select, 3));
      anot_completion_set_latency_ms (completion, sqlite3_column_double (self->select, 4));
      anot_completion_set_retries (completion, (guint) sqlite3_column_int (self->select, 5));
      anot_completion_set_finish_reason (completion,
                                         (const char *) sqlite3_column_text (self->select, 6));
      anot_completion_set_cached (completion, TRUE);
      self->n_hits++;
      g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_N_HITS]);
    }
  else if (rc == SQLITE_DONE)
    {
      self->n_misses++;
      g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_N_MISSES]);
    }
  else
    sql_error (self, "cannot read", error);
  sqlite3_reset (self->select);
  sqlite3_clear_bindings (self->select);
  return completion;
}

static char *
request_to_json (AnotChatRequest *request)
{
  g_autoptr(JsonBuilder) builder = json_builder_new ();
  g_autoptr(JsonNode) root = NULL;
  const char * const *stop = anot_chat_request_get_stop (request);
  static const char * const roles[] = { "system", "user", "assistant" };

  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "messages");
  json_builder_begin_array (builder);
  for (guint i = 0; i < anot_chat_request_get_n_messages (request); i++)
    {
      AnotChatRole role = anot_chat_request_get_message_role (request, i);

      json_builder_begin_object (builder);
      json_builder_set_member_name (builder, "role");
      json_builder_add_string_value (builder, role < G_N_ELEMENTS (roles) ? roles[role] : "user");
      json_builder_set_member_name (builder, "content");
      json_builder_add_string_value (builder, anot_chat_request_get_message_content (request, i));
      json_builder_end_object (builder);
    }
  json_builder_end_array (builder);
  if (anot_chat_request_get_temperature (request) >= 0)
    {
      json_builder_set_member_name (builder, "temperature");
      json_builder_add_double_value (builder, anot_chat_request_get_temperature (request));
    }
  if (anot_chat_request_get_top_p (request) >= 0)
    {
      json_builder_set_member_name (builder, "top_p");
      json_builder_add_double_value (builder, anot_chat_request_get_top_p (request));
    }
  if (anot_chat_request_get_max_tokens (request) > 0)
    {
      json_builder_set_member_name (builder, "max_tokens");
      json_builder_add_int_value (builder, anot_chat_request_get_max_tokens (request));
    }
  if (anot_chat_request_get_seed (request) != ANOT_CHAT_REQUEST_SEED_UNSET)
    {
      json_builder_set_member_name (builder, "seed");
      json_builder_add_int_value (builder, anot_chat_request_get_seed (request));
    }
  if (stop != NULL)
    {
      json_builder_set_member_name (builder, "stop");
      json_builder_begin_array (builder);
      for (guint i = 0; stop[i] != NULL; i++)
        json_builder_add_string_value (builder, stop[i]);
      json_builder_end_array (builder);
    }
  if (anot_chat_request_get_response_format (request) != ANOT_RESPONSE_FORMAT_TEXT)
    {
      json_builder_set_member_name (builder, "response_format");
      json_builder_add_string_value (builder,
                                     anot_chat_request_get_response_format (request) ==
                                     ANOT_RESPONSE_FORMAT_JSON_OBJECT ? "json_object" : "json_schema");
    }
  if (anot_chat_request_get_json_schema (request) != NULL)
    {
      json_builder_set_member_name (builder, "json_schema");
      json_builder_add_value (builder, json_node_copy (anot_chat_request_get_json_schema (request)));
    }
  json_builder_end_object (builder);

  root = json_builder_get_root (builder);
  return json_to_string (root, FALSE);
}

/**
 * anot_response_cache_store:
 * @self: an #AnotResponseCache
 * @key: a key from anot_chat_request_hash()
 * @backend: the registered name of the backend that answered
 * @request: the request that was answered
 * @completion: its answer
 * @error: return location for a #GError
 *
 * Stores an answer, unless one is already stored for @key (the first
 * answer is kept, also when another process stored it).
 *
 * Returns: %TRUE when the answer is in the cache
 */
gboolean
anot_response_cache_store (AnotResponseCache  *self,
                           const char         *key,
                           const char         *backend,
                           AnotChatRequest    *request,
                           AnotCompletion     *completion,
                           GError            **error)
{
  g_autofree char *request_json = NULL;
  g_autoptr(GDateTime) now = g_date_time_new_now_utc ();
  g_autofree char *created = g_date_time_format_iso8601 (now);
  gboolean ok;

  g_return_val_if_fail (ANOT_IS_RESPONSE_CACHE (self), FALSE);
  g_return_val_if_fail (key != NULL, FALSE);
  g_return_val_if_fail (backend != NULL, FALSE);
  g_return_val_if_fail (ANOT_IS_CHAT_REQUEST (request), FALSE);
  g_return_val_if_fail (ANOT_IS_COMPLETION (completion), FALSE);

  request_json = request_to_json (request);
  sqlite3_reset (self->insert);
  sqlite3_bind_text (self->insert, 1, key, -1, SQLITE_TRANSIENT);
  sqlite3_bind_text (self->insert, 2, backend, -1, SQLITE_TRANSIENT);
  sqlite3_bind_text (self->insert, 3, anot_chat_request_get_model (request), -1, SQLITE_TRANSIENT);
  sqlite3_bind_text (self->insert, 4, anot_completion_get_model (completion), -1, SQLITE_TRANSIENT);
  sqlite3_bind_text (self->insert, 5,
                     anot_completion_get_text (completion) ? anot_completion_get_text (completion) : "",
                     -1, SQLITE_TRANSIENT);
  sqlite3_bind_int64 (self->insert, 6, (sqlite3_int64) anot_completion_get_prompt_tokens (completion));
  sqlite3_bind_int64 (self->insert, 7,
                      (sqlite3_int64) anot_completion_get_completion_tokens (completion));
  sqlite3_bind_double (self->insert, 8, anot_completion_get_latency_ms (completion));
  sqlite3_bind_int (self->insert, 9, (int) anot_completion_get_retries (completion));
  sqlite3_bind_text (self->insert, 10, anot_completion_get_finish_reason (completion), -1,
                     SQLITE_TRANSIENT);
  sqlite3_bind_text (self->insert, 11, request_json, -1, SQLITE_TRANSIENT);
  sqlite3_bind_text (self->insert, 12, created, -1, SQLITE_TRANSIENT);
  ok = sqlite3_step (self->insert) == SQLITE_DONE;
  if (!ok)
    sql_error (self, "cannot write", error);
  sqlite3_reset (self->insert);
  sqlite3_clear_bindings (self->insert);
  return ok;
}

/**
 * anot_response_cache_get_n_entries:
 * @self: an #AnotResponseCache
 *
 * Returns: the number of answers in the file
 */
guint64
anot_response_cache_get_n_entries (AnotResponseCache *self)
{
  sqlite3_stmt *count = NULL;
  guint64 n = 0;

  g_return_val_if_fail (ANOT_IS_RESPONSE_CACHE (self), 0);

  if (sqlite3_prepare_v2 (self->db, "SELECT COUNT(*) FROM completions", -1, &count, NULL) == SQLITE_OK &&
      sqlite3_step (count) == SQLITE_ROW)
    n = (guint64) sqlite3_column_int64 (count, 0);
  sqlite3_finalize (count);
  return n;
}

/**
 * anot_response_cache_get_n_hits:
 * @self: an #AnotResponseCache
 *
 * Returns: the lookups that found an answer
 */
guint64
anot_response_cache_get_n_hits (AnotResponseCache *self)
{
  g_return_val_if_fail (ANOT_IS_RESPONSE_CACHE (self), 0);
  return self->n_hits;
}

/**
 * anot_response_cache_get_n_misses:
 * @self: an #AnotResponseCache
 *
 * Returns: the lookups that found nothing
 */
guint64
anot_response_cache_get_n_misses (AnotResponseCache *self)
{
  g_return_val_if_fail (ANOT_IS_RESPONSE_CACHE (self), 0);
  return self->n_misses;
}

/**
 * anot_response_cache_merge:
 * @self: an #AnotResponseCache
 * @other_path: another cache file, e.g. one shard's
 * @out_added: (out) (optional): the number of answers copied
 * @error: return location for a #GError
 *
 * Copies into @self every answer of @other_path it does not hold yet (an
 * answer is keyed by its request, so two shards that asked the same thing
 * hold the same answer and one copy is kept).  @other_path is only read.
 *
 * Errors: %ANOT_ERROR_CACHE when @other_path is missing or not a response
 * cache of this schema, or @self cannot be written.
 *
 * Returns: %TRUE on success
 */
gboolean
anot_response_cache_merge (AnotResponseCache  *self,
                           const char         *other_path,
                           guint64            *out_added,
                           GError            **error)
{
  sqlite3_stmt *stmt = NULL;
  g_autofree char *uri = NULL;
  gboolean ok = FALSE;
  int rc;

  g_return_val_if_fail (ANOT_IS_RESPONSE_CACHE (self), FALSE);
  g_return_val_if_fail (other_path != NULL, FALSE);

  if (!g_file_test (other_path, G_FILE_TEST_IS_REGULAR))
    {
      g_set_error (error, ANOT_ERROR, ANOT_ERROR_CACHE, "Response cache %s: no such file",
                   other_path);
      return FALSE;
    }
  /* Checked first: ATTACH would create a missing file.  The other file
   * is only read (it may be replayed from a write-ahead log it has). */
  uri = g_canonicalize_filename (other_path, NULL);
  if (sqlite3_prepare_v2 (self->db, "ATTACH DATABASE ?1 AS other", -1, &stmt, NULL) != SQLITE_OK)
    return sql_error (self, "cannot attach", error);
  sqlite3_bind_text (stmt, 1, uri, -1, SQLITE_TRANSIENT);
  rc = sqlite3_step (stmt);
  g_clear_pointer (&stmt, sqlite3_finalize);
  if (rc != SQLITE_DONE)
    {
      g_set_error (error, ANOT_ERROR, ANOT_ERROR_CACHE, "Response cache %s: cannot open %s: %s",
                   self->path, other_path, sqlite3_errmsg (self->db));
      return FALSE;
    }

  if (sqlite3_prepare_v2 (self->db,
                          "SELECT value FROM other.meta WHERE name = 'schema'", -1, &stmt, NULL) != SQLITE_OK ||
      sqlite3_step (stmt) != SQLITE_ROW ||
      g_strcmp0 ((const char *) sqlite3_column_text (stmt, 0), SCHEMA_VERSION) != 0)
    {
      g_set_error (error, ANOT_ERROR, ANOT_ERROR_CACHE,
                   "Response cache %s: %s is not a response cache of schema %s",
                   self->path, other_path, SCHEMA_VERSION);
      goto out;
    }
  g_clear_pointer (&stmt, sqlite3_finalize);

  if (!exec (self,
             "INSERT OR IGNORE INTO main.completions (key, backend, model, response_model, text, "
             "prompt_tokens, completion_tokens, latency_ms, retries, finish_reason, request, created) "
             "SELECT key, backend, model, response_model, text, prompt_tokens, completion_tokens, "
             "latency_ms, retries, finish_reason, request, created FROM other.completions", error))
    goto out;
  if (out_added != NULL)
    *out_added = (guint64) sqlite3_changes (self->db);
  ok = TRUE;

out:
  g_clear_pointer (&stmt, sqlite3_finalize);
  exec (self, "DETACH DATABASE other", NULL);
  return ok;
}
