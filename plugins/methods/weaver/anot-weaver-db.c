/* anot-weaver-db.c: the candidates as an in-memory SQLite database that
 * model-written SQL may only read
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "anot-weaver-db.h"

#include <sqlite3.h>
#include <stdio.h>
#include <string.h>

struct _AnotWeaverDb
{
  sqlite3 *db;
  char *schema;
  /* Per query: the work done, and when it started. */
  guint64 steps;
  gint64 started_us;
  gboolean out_of_budget;
  char *denied;          /* what the authorizer refused */
};

/* The examples of the attributes' comments on the restaurants. */
#define SCHEMA_NESTED_EXAMPLE "e.g. name 'Ambience.romantic'"
#define SCHEMA_VALUE_EXAMPLES "'True', 'False', 'free', 'quiet', '2', ..."

/* The tables as the model is told about them. */
#define SCHEMA_FIRST_LINE_START "-- One row per candidate "
static const char schema_sql[] =
  SCHEMA_FIRST_LINE_START "restaurant; idx is its number (1..N).\n"
  "CREATE TABLE items (idx INTEGER PRIMARY KEY, business_id TEXT, name TEXT, address TEXT,\n"
  "  city TEXT, state TEXT, postal_code TEXT, latitude REAL, longitude REAL, stars REAL,\n"
  "  review_count INTEGER, is_open INTEGER);\n"
  "-- One row per attribute; nested attributes are flattened, " SCHEMA_NESTED_EXAMPLE ".\n"
  "-- value is text: " SCHEMA_VALUE_EXAMPLES "; NULL when the data says None.\n"
  "CREATE TABLE attributes (idx INTEGER, name TEXT, value TEXT);\n"
  "CREATE TABLE categories (idx INTEGER, category TEXT);\n"
  "-- Opening hours per weekday ('Monday'..'Sunday') as 'HH:MM'; close < open runs past midnight.\n"
  "CREATE TABLE hours (idx INTEGER, day TEXT, open TEXT, close TEXT);\n"
  "CREATE TABLE reviews (idx INTEGER, review_idx INTEGER, stars REAL, date TEXT, text TEXT,\n"
  "  useful INTEGER, funny INTEGER, cool INTEGER, user_name TEXT, user_review_count INTEGER,\n"
  "  user_average_stars REAL);\n"
  "-- The friends of each reviewer named in reviews.user_name.\n"
  "CREATE TABLE friends (user_name TEXT, friend TEXT);\n";

static char *
replace_once (const char *text,
              const char *old,
              const char *replacement)
{
  const char *at = strstr (text, old);

  g_assert (at != NULL);
  return g_strdup_printf ("%.*s%s%s", (int) (at - text), text, replacement, at + strlen (old));
}

/* The first column of up to @max rows of @sql, joined as 'a', 'b'. */
static char *
quoted_values (sqlite3    *db,
               const char *sql,
               guint       max)
{
  g_autoptr(GString) out = g_string_new (NULL);
  sqlite3_stmt *stmt = NULL;

  if (sqlite3_prepare_v2 (db, sql, -1, &stmt, NULL) != SQLITE_OK)
    return g_string_free (g_steal_pointer (&out), FALSE);
  for (guint n = 0; n < max && sqlite3_step (stmt) == SQLITE_ROW; n++)
    {
      g_autofree char *escaped = NULL;
      const char *value = (const char *) sqlite3_column_text (stmt, 0);
      g_auto(GStrv) parts = g_strsplit (value != NULL ? value : "", "'", -1);

      escaped = g_strjoinv ("''", parts);
      g_string_append_printf (out, "%s'%s'", out->len > 0 ? ", " : "", escaped);
    }
  sqlite3_finalize (stmt);
  return g_string_free (g_steal_pointer (&out), FALSE);
}

/* The schema on a benchmark of another domain: its item noun, and the
 * attributes' examples taken from the candidates (a nested attribute of
 * theirs, a few of their text values) instead of the restaurants'
 * Ambience.romantic, free and quiet. */
static char *
domain_schema (sqlite3    *db,
               const char *item)
{
  g_autofree char *nested = quoted_values (db, "SELECT DISTINCT name FROM attributes "
                                               "WHERE instr(name, '.') > 0 ORDER BY name", 1);
  g_autofree char *words = quoted_values (db, "SELECT DISTINCT value FROM attributes "
                                              "WHERE value NOT IN ('True', 'False') "
                                              "AND value GLOB '*[A-Za-z]*' AND length(value) <= 20 "
                                              "ORDER BY value", 2);
  g_autofree char *with_item = g_strdup_printf (SCHEMA_FIRST_LINE_START "%s%s", item,
                                                schema_sql + strlen (SCHEMA_FIRST_LINE_START "restaurant"));
  g_autofree char *nested_text = *nested != '\0' ? g_strdup_printf ("e.g. name %s", nested)
                                                 : g_strdup ("e.g. name 'Parent.child'");
  g_autofree char *values_text = g_strdup_printf ("'True', 'False', %s%s'2', ...", words,
                                                  *words != '\0' ? ", " : "");
  g_autofree char *with_nested = replace_once (with_item, SCHEMA_NESTED_EXAMPLE, nested_text);

  return replace_once (with_nested, SCHEMA_VALUE_EXAMPLES, values_text);
}

/* Functions a query may call: pure, cheap, no side effects, no I/O. */
static const char * const allowed_functions[] = {
  "abs", "avg", "coalesce", "count", "date", "datetime", "glob", "group_concat", "ifnull",
  "iif", "instr", "julianday", "length", "like", "lower", "ltrim", "max", "min", "nullif",
  "printf", "format", "replace", "round", "rtrim", "strftime", "substr", "substring", "sum",
  "time", "total", "trim", "typeof", "upper", "cast", "row_number", "rank", "dense_rank",
};

static gboolean
function_allowed (const char *name)
{
  g_autofree char *lower = g_ascii_strdown (name, -1);

  for (guint i = 0; i < G_N_ELEMENTS (allowed_functions); i++)
    if (g_str_equal (lower, allowed_functions[i]))
      return TRUE;
  return FALSE;
}

static const char *
action_name (int action)
{
  switch (action)
    {
    case SQLITE_INSERT: return "writing (INSERT)";
    case SQLITE_UPDATE: return "writing (UPDATE)";
    case SQLITE_DELETE: return "writing (DELETE or DROP)";
    case SQLITE_ATTACH: return "ATTACH";
    case SQLITE_DETACH: return "DETACH";
    case SQLITE_PRAGMA: return "PRAGMA";
    case SQLITE_TRANSACTION: return "a transaction";
    case SQLITE_SAVEPOINT: return "a savepoint";
    case SQLITE_ALTER_TABLE: return "changing the schema (ALTER TABLE)";
    case SQLITE_CREATE_TABLE:
    case SQLITE_CREATE_TEMP_TABLE:
    case SQLITE_CREATE_INDEX:
    case SQLITE_CREATE_TEMP_INDEX:
    case SQLITE_CREATE_VIEW:
    case SQLITE_CREATE_TEMP_VIEW:
    case SQLITE_CREATE_TRIGGER:
    case SQLITE_CREATE_TEMP_TRIGGER:
    case SQLITE_CREATE_VTABLE:
      return "changing the schema (CREATE)";
    case SQLITE_DROP_TABLE:
    case SQLITE_DROP_TEMP_TABLE:
    case SQLITE_DROP_INDEX:
    case SQLITE_DROP_TEMP_INDEX:
    case SQLITE_DROP_VIEW:
    case SQLITE_DROP_TEMP_VIEW:
    case SQLITE_DROP_TRIGGER:
    case SQLITE_DROP_TEMP_TRIGGER:
    case SQLITE_DROP_VTABLE:
      return "changing the schema (DROP)";
    default:
      return "a statement other than SELECT";
    }
}

static int
authorizer (void       *user_data,
            int         action,
            const char *arg1,
            const char *arg2,
            const char *db_name,
            const char *trigger)
{
  AnotWeaverDb *self = user_data;

  switch (action)
    {
    case SQLITE_SELECT:
    case SQLITE_READ:
      return SQLITE_OK;
    case SQLITE_FUNCTION:
      if (function_allowed (arg2))
        return SQLITE_OK;
      g_free (self->denied);
      self->denied = g_strdup_printf ("the function %s()", arg2);
      return SQLITE_DENY;
    case SQLITE_RECURSIVE:
      g_free (self->denied);
      self->denied = g_strdup ("a recursive query");
      return SQLITE_DENY;
    default:
      /* Writes, schema changes, ATTACH/DETACH, PRAGMA, transactions. */
      g_free (self->denied);
      self->denied = g_strdup (action_name (action));
      return SQLITE_DENY;
    }
}

static int
progress (void *user_data)
{
  AnotWeaverDb *self = user_data;

  self->steps += 1000;
  if (self->steps > ANOT_WEAVER_DB_MAX_STEPS ||
      g_get_monotonic_time () - self->started_us > (gint64) ANOT_WEAVER_DB_MAX_MS * 1000)
    {
      self->out_of_budget = TRUE;
      return 1;
    }
  return 0;
}

static gboolean
exec (sqlite3     *db,
      const char  *sql,
      GError     **error)
{
  char *message = NULL;

  if (sqlite3_exec (db, sql, NULL, NULL, &message) != SQLITE_OK)
    {
      g_set_error (error, ANOT_ERROR, ANOT_ERROR_METHOD_FAILED, "weaver: building the database: %s",
                   message != NULL ? message : "unknown error");
      sqlite3_free (message);
      return FALSE;
    }
  return TRUE;
}

static sqlite3_stmt *
prepare (sqlite3    *db,
         const char *sql)
{
  sqlite3_stmt *stmt = NULL;

  if (sqlite3_prepare_v2 (db, sql, -1, &stmt, NULL) != SQLITE_OK)
    g_error ("weaver: %s: %s", sql, sqlite3_errmsg (db));
  return stmt;
}

static void
bind_json (sqlite3_stmt *stmt,
           int           column,
           JsonObject   *o,
           const char   *member)
{
  JsonNode *node = o != NULL ? json_object_get_member (o, member) : NULL;

  if (node == NULL || !JSON_NODE_HOLDS_VALUE (node))
    sqlite3_bind_null (stmt, column);
  else if (json_node_get_value_type (node) == G_TYPE_INT64)
    sqlite3_bind_int64 (stmt, column, json_node_get_int (node));
  else if (json_node_get_value_type (node) == G_TYPE_DOUBLE)
    sqlite3_bind_double (stmt, column, json_node_get_double (node));
  else if (json_node_get_value_type (node) == G_TYPE_BOOLEAN)
    sqlite3_bind_text (stmt, column, json_node_get_boolean (node) ? "True" : "False", -1, SQLITE_STATIC);
  else
    sqlite3_bind_text (stmt, column, json_node_get_string (node), -1, SQLITE_TRANSIENT);
}

static void
step_reset (sqlite3_stmt *stmt)
{
  int rc = sqlite3_step (stmt);

  if (rc != SQLITE_DONE)
    g_error ("weaver: insert failed: %s", sqlite3_errstr (rc));
  sqlite3_reset (stmt);
  sqlite3_clear_bindings (stmt);
}

/* An attribute value as text: Python's quotes dropped ('free', u'free'),
 * booleans as True/False, None as NULL, nested values as JSON. */
static void
bind_attribute (sqlite3_stmt *stmt,
                int           column,
                JsonNode     *value)
{
  if (value == NULL || JSON_NODE_HOLDS_NULL (value))
    sqlite3_bind_null (stmt, column);
  else if (JSON_NODE_HOLDS_VALUE (value) && json_node_get_value_type (value) == G_TYPE_STRING)
    {
      const char *s = json_node_get_string (value);
      gsize len = strlen (s);
      gsize start = 0;

      if (len >= 3 && s[0] == 'u' && (s[1] == '\'' || s[1] == '"'))
        start = 2;
      else if (len >= 2 && (s[0] == '\'' || s[0] == '"'))
        start = 1;
      if (start > 0 && len > start + 1 && (s[len - 1] == '\'' || s[len - 1] == '"'))
        {
          g_autofree char *inner = g_strndup (s + start, len - start - 1);

          if (g_ascii_strcasecmp (inner, "none") == 0)
            sqlite3_bind_null (stmt, column);
          else
            sqlite3_bind_text (stmt, column, inner, -1, SQLITE_TRANSIENT);
        }
      else if (g_ascii_strcasecmp (s, "none") == 0)
        sqlite3_bind_null (stmt, column);
      else
        sqlite3_bind_text (stmt, column, s, -1, SQLITE_TRANSIENT);
    }
  else if (JSON_NODE_HOLDS_VALUE (value) && json_node_get_value_type (value) == G_TYPE_BOOLEAN)
    sqlite3_bind_text (stmt, column, json_node_get_boolean (value) ? "True" : "False", -1, SQLITE_STATIC);
  else if (JSON_NODE_HOLDS_VALUE (value))
    {
      g_autofree char *text = json_to_string (value, FALSE);

      sqlite3_bind_text (stmt, column, text, -1, SQLITE_TRANSIENT);
    }
  else
    {
      g_autofree char *text = json_to_string (value, FALSE);

      sqlite3_bind_text (stmt, column, text, -1, SQLITE_TRANSIENT);
    }
}

/* "7:30" → "07:30". */
static char *
pad_time (const char *t)
{
  int h = 0, m = 0;

  if (sscanf (t, "%d:%d", &h, &m) < 1)
    return g_strdup (t);
  return g_strdup_printf ("%02d:%02d", h, m);
}

static void
load_item (AnotWeaverDb  *self,
           sqlite3_stmt **stmts,
           AnotFormatter *formatter,
           AnotItem      *item,
           guint          number,
           GHashTable    *reviewers)
{
  g_autoptr(JsonNode) node = anot_formatter_build_item (formatter, item, number);
  JsonObject *o = json_node_get_object (node);
  JsonObject *attrs = json_object_has_member (o, "attributes") && JSON_NODE_HOLDS_OBJECT (json_object_get_member (o, "attributes"))
                      ? json_object_get_object_member (o, "attributes") : NULL;
  JsonObject *hours = json_object_has_member (o, "hours") && JSON_NODE_HOLDS_OBJECT (json_object_get_member (o, "hours"))
                      ? json_object_get_object_member (o, "hours") : NULL;
  static const char * const columns[] = {
    "business_id", "name", "address", "city", "state", "postal_code", "latitude", "longitude",
    "stars", "review_count", "is_open",
  };
  sqlite3_stmt *s;

  s = stmts[0];
  sqlite3_bind_int (s, 1, number);
  for (guint i = 0; i < G_N_ELEMENTS (columns); i++)
    bind_json (s, i + 2, o, columns[i]);
  step_reset (s);

  if (attrs != NULL)
    {
      JsonObjectIter iter;
      const char *name;
      JsonNode *value;

      s = stmts[1];
      json_object_iter_init_ordered (&iter, attrs);
      while (json_object_iter_next_ordered (&iter, &name, &value))
        {
          if (JSON_NODE_HOLDS_OBJECT (value))
            {
              JsonObjectIter sub;
              const char *key;
              JsonNode *v;

              json_object_iter_init_ordered (&sub, json_node_get_object (value));
              while (json_object_iter_next_ordered (&sub, &key, &v))
                {
                  g_autofree char *full = g_strconcat (name, ".", key, NULL);

                  sqlite3_bind_int (s, 1, number);
                  sqlite3_bind_text (s, 2, full, -1, SQLITE_TRANSIENT);
                  bind_attribute (s, 3, v);
                  step_reset (s);
                }
              continue;
            }
          sqlite3_bind_int (s, 1, number);
          sqlite3_bind_text (s, 2, name, -1, SQLITE_TRANSIENT);
          bind_attribute (s, 3, value);
          step_reset (s);
        }
    }

  s = stmts[2];
  for (const char * const *c = anot_item_get_categories (item); c != NULL && *c != NULL; c++)
    {
      sqlite3_bind_int (s, 1, number);
      sqlite3_bind_text (s, 2, *c, -1, SQLITE_TRANSIENT);
      step_reset (s);
    }

  if (hours != NULL)
    {
      JsonObjectIter iter;
      const char *day;
      JsonNode *value;

      s = stmts[3];
      json_object_iter_init_ordered (&iter, hours);
      while (json_object_iter_next_ordered (&iter, &day, &value))
        {
          g_auto(GStrv) range = NULL;

          if (!JSON_NODE_HOLDS_VALUE (value) || json_node_get_value_type (value) != G_TYPE_STRING)
            continue;
          range = g_strsplit (json_node_get_string (value), "-", 2);
          sqlite3_bind_int (s, 1, number);
          sqlite3_bind_text (s, 2, day, -1, SQLITE_TRANSIENT);
          if (range[0] != NULL && range[1] != NULL)
            {
              g_autofree char *open = pad_time (range[0]);
              g_autofree char *close = pad_time (range[1]);

              sqlite3_bind_text (s, 3, open, -1, SQLITE_TRANSIENT);
              sqlite3_bind_text (s, 4, close, -1, SQLITE_TRANSIENT);
            }
          step_reset (s);
        }
    }

  s = stmts[4];
  for (guint r = 0; r < anot_item_get_n_reviews (item); r++)
    {
      AnotReview *review = anot_item_get_review (item, r);
      const char *name = anot_review_get_reviewer_name (review);

      sqlite3_bind_int (s, 1, number);
      sqlite3_bind_int (s, 2, r);
      sqlite3_bind_double (s, 3, anot_review_get_stars (review));
      sqlite3_bind_text (s, 4, anot_review_get_date (review), -1, SQLITE_TRANSIENT);
      sqlite3_bind_text (s, 5, anot_review_get_text (review), -1, SQLITE_TRANSIENT);
      sqlite3_bind_int64 (s, 6, anot_review_get_useful (review));
      sqlite3_bind_int64 (s, 7, anot_review_get_funny (review));
      sqlite3_bind_int64 (s, 8, anot_review_get_cool (review));
      if (name != NULL && name[0] != '\0')
        {
          sqlite3_bind_text (s, 9, name, -1, SQLITE_TRANSIENT);
          g_hash_table_add (reviewers, g_strdup (name));
        }
      sqlite3_bind_int64 (s, 10, anot_review_get_user_review_count (review));
      if (anot_review_has_user_average_stars (review))
        sqlite3_bind_double (s, 11, anot_review_get_user_average_stars (review));
      step_reset (s);
    }
}

AnotWeaverDb *
anot_weaver_db_new (GPtrArray         *candidates,
                    AnotFormatter     *formatter,
                    AnotMethodContext *context,
                    GError           **error)
{
  g_autoptr(AnotWeaverDb) self = g_new0 (AnotWeaverDb, 1);
  g_autoptr(GHashTable) reviewers = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  sqlite3_stmt *stmts[6] = { NULL };
  static const char * const inserts[] = {
    "INSERT INTO items VALUES (?,?,?,?,?,?,?,?,?,?,?,?)",
    "INSERT INTO attributes VALUES (?,?,?)",
    "INSERT INTO categories VALUES (?,?)",
    "INSERT INTO hours VALUES (?,?,?,?)",
    "INSERT INTO reviews VALUES (?,?,?,?,?,?,?,?,?,?,?)",
    "INSERT INTO friends VALUES (?,?)",
  };

  if (sqlite3_open_v2 (":memory:", &self->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE |
                       SQLITE_OPEN_MEMORY | SQLITE_OPEN_NOMUTEX, NULL) != SQLITE_OK)
    {
      g_set_error (error, ANOT_ERROR, ANOT_ERROR_METHOD_FAILED, "weaver: cannot open an in-memory database");
      return NULL;
    }
  /* No loading of extensions, no trusted schema tricks, small limits. */
  sqlite3_db_config (self->db, SQLITE_DBCONFIG_ENABLE_LOAD_EXTENSION, 0, NULL);
  sqlite3_db_config (self->db, SQLITE_DBCONFIG_DEFENSIVE, 1, NULL);
  sqlite3_limit (self->db, SQLITE_LIMIT_LENGTH, 10 * 1000 * 1000);
  sqlite3_limit (self->db, SQLITE_LIMIT_SQL_LENGTH, 100 * 1000);
  sqlite3_limit (self->db, SQLITE_LIMIT_ATTACHED, 0);

  if (!exec (self->db, schema_sql, error) || !exec (self->db, "BEGIN", error))
    return NULL;
  for (guint i = 0; i < G_N_ELEMENTS (inserts); i++)
    stmts[i] = prepare (self->db, inserts[i]);

  for (guint i = 0; i < candidates->len; i++)
    load_item (self, stmts, formatter, g_ptr_array_index (candidates, i), i + 1, reviewers);

  if (context != NULL)
    {
      GHashTableIter iter;
      const char *name;

      g_hash_table_iter_init (&iter, reviewers);
      while (g_hash_table_iter_next (&iter, (gpointer *) &name, NULL))
        {
          const char * const *friends = anot_method_context_get_friends (context, name);

          for (guint f = 0; friends != NULL && friends[f] != NULL; f++)
            {
              sqlite3_bind_text (stmts[5], 1, name, -1, SQLITE_TRANSIENT);
              sqlite3_bind_text (stmts[5], 2, friends[f], -1, SQLITE_TRANSIENT);
              step_reset (stmts[5]);
            }
        }
    }

  for (guint i = 0; i < G_N_ELEMENTS (stmts); i++)
    sqlite3_finalize (stmts[i]);
  if (!exec (self->db, "COMMIT", error) || !exec (self->db, "PRAGMA query_only = 1", error))
    return NULL;

  {
    AnotDomain *domain = anot_method_context_get_domain (context);

    /* The model reads the schema's comments: they name the benchmark's
     * items (the restaurants' text is the original's). */
    if (anot_domain_is_default (domain))
      self->schema = g_strdup (schema_sql);
    else
      self->schema = domain_schema (self->db, anot_domain_get_item (domain));
  }
  sqlite3_set_authorizer (self->db, authorizer, self);
  sqlite3_progress_handler (self->db, 1000, progress, self);
  return g_steal_pointer (&self);
}

void
anot_weaver_db_free (AnotWeaverDb *db)
{
  if (db == NULL)
    return;
  if (db->db != NULL)
    sqlite3_close (db->db);
  g_free (db->schema);
  g_free (db->denied);
  g_free (db);
}

const char *
anot_weaver_db_schema (AnotWeaverDb *db)
{
  return db->schema;
}

static JsonNode *
cell (sqlite3_stmt *stmt,
      int           column)
{
  JsonNode *node;

  switch (sqlite3_column_type (stmt, column))
    {
    case SQLITE_INTEGER:
      node = json_node_new (JSON_NODE_VALUE);
      json_node_set_int (node, sqlite3_column_int64 (stmt, column));
      return node;
    case SQLITE_FLOAT:
      node = json_node_new (JSON_NODE_VALUE);
      json_node_set_double (node, sqlite3_column_double (stmt, column));
      return node;
    case SQLITE_NULL:
      return json_node_new (JSON_NODE_NULL);
    default:
      {
        const char *text = (const char *) sqlite3_column_text (stmt, column);

        node = json_node_new (JSON_NODE_VALUE);
        json_node_set_string (node, text != NULL && g_utf8_validate (text, -1, NULL) ? text : "");
        return node;
      }
    }
}

JsonNode *
anot_weaver_db_query (AnotWeaverDb  *db,
                      const char    *sql,
                      GError       **error)
{
  sqlite3_stmt *stmt = NULL;
  const char *tail = NULL;
  JsonObject *o;
  JsonArray *columns, *rows;
  JsonNode *node;
  int rc, n_columns;
  guint n_rows = 0;
  gboolean truncated = FALSE;

  g_clear_pointer (&db->denied, g_free);
  db->steps = 0;
  db->out_of_budget = FALSE;
  db->started_us = g_get_monotonic_time ();

  rc = sqlite3_prepare_v2 (db->db, sql, -1, &stmt, &tail);
  if (rc != SQLITE_OK || stmt == NULL)
    {
      if (db->denied != NULL)
        g_set_error (error, ANOT_ERROR, ANOT_ERROR_INVALID_ARGUMENT,
                     "refused: %s is not allowed (write one read-only SELECT)", db->denied);
      else
        g_set_error (error, ANOT_ERROR, ANOT_ERROR_INVALID_ARGUMENT, "%s",
                     stmt == NULL && rc == SQLITE_OK ? "empty query" : sqlite3_errmsg (db->db));
      sqlite3_finalize (stmt);
      return NULL;
    }
  while (tail != NULL && g_ascii_isspace (*tail))
    tail++;
  if ((tail != NULL && *tail != '\0' && *tail != ';') || !sqlite3_stmt_readonly (stmt))
    {
      g_set_error (error, ANOT_ERROR, ANOT_ERROR_INVALID_ARGUMENT,
                   "refused: only one read-only SELECT statement is allowed");
      sqlite3_finalize (stmt);
      return NULL;
    }

  n_columns = sqlite3_column_count (stmt);
  columns = json_array_new ();
  for (int c = 0; c < n_columns; c++)
    json_array_add_string_element (columns, sqlite3_column_name (stmt, c));
  rows = json_array_new ();

  while ((rc = sqlite3_step (stmt)) == SQLITE_ROW)
    {
      JsonArray *row;

      if (n_rows == ANOT_WEAVER_DB_MAX_ROWS)
        {
          truncated = TRUE;
          break;
        }
      row = json_array_new ();
      for (int c = 0; c < n_columns; c++)
        json_array_add_element (row, cell (stmt, c));
      json_array_add_array_element (rows, row);
      n_rows++;
    }
  if (rc != SQLITE_ROW && rc != SQLITE_DONE)
    {
      if (db->out_of_budget)
        g_set_error (error, ANOT_ERROR, ANOT_ERROR_INVALID_ARGUMENT,
                     "stopped: the query exceeded its work budget (%d million steps or %d ms)",
                     ANOT_WEAVER_DB_MAX_STEPS / 1000000, ANOT_WEAVER_DB_MAX_MS);
      else
        g_set_error (error, ANOT_ERROR, ANOT_ERROR_INVALID_ARGUMENT, "%s", sqlite3_errmsg (db->db));
      sqlite3_finalize (stmt);
      json_array_unref (columns);
      json_array_unref (rows);
      return NULL;
    }
  sqlite3_finalize (stmt);

  o = json_object_new ();
  json_object_set_array_member (o, "columns", columns);
  json_object_set_array_member (o, "rows", rows);
  json_object_set_int_member (o, "n_rows", n_rows);
  json_object_set_boolean_member (o, "truncated", truncated);
  json_object_set_int_member (o, "steps", db->steps);
  node = json_node_new (JSON_NODE_OBJECT);
  json_node_take_object (node, o);
  return node;
}

char *
anot_weaver_db_samples (AnotWeaverDb *db,
                        guint         n_rows)
{
  static const char * const tables[] = { "items", "attributes", "categories", "hours", "reviews", "friends" };
  GString *out = g_string_new (NULL);

  for (guint t = 0; t < G_N_ELEMENTS (tables); t++)
    {
      g_autofree char *sql = g_strdup_printf ("SELECT * FROM %s LIMIT %u", tables[t], n_rows);
      g_autoptr(JsonNode) result = anot_weaver_db_query (db, sql, NULL);
      JsonObject *o;
      JsonArray *columns, *rows;

      if (result == NULL)
        continue;
      o = json_node_get_object (result);
      columns = json_object_get_array_member (o, "columns");
      rows = json_object_get_array_member (o, "rows");
      g_string_append_printf (out, "%s%s:\n", t > 0 ? "\n" : "", tables[t]);
      for (guint r = 0; r < json_array_get_length (rows); r++)
        {
          JsonArray *row = json_array_get_array_element (rows, r);

          g_string_append (out, "  ");
          for (guint c = 0; c < json_array_get_length (row); c++)
            {
              JsonNode *v = json_array_get_element (row, c);
              g_autofree char *text = JSON_NODE_HOLDS_NULL (v) ? g_strdup ("NULL")
                                      : json_node_get_value_type (v) == G_TYPE_STRING
                                          ? g_strdup (json_node_get_string (v))
                                          : json_to_string (v, FALSE);

              /* Long review texts: their start shows the shape. */
              if (g_utf8_strlen (text, -1) > 80)
                {
                  char *cut = g_utf8_substring (text, 0, 80);

                  g_free (text);
                  text = g_strconcat (cut, "...", NULL);
                  g_free (cut);
                }
              g_string_append_printf (out, "%s%s=%s", c > 0 ? ", " : "",
                                      json_array_get_string_element (columns, c), text);
            }
          g_string_append_c (out, '\n');
        }
    }
  return g_string_free (out, FALSE);
}

gint64
anot_weaver_db_count (AnotWeaverDb *db,
                      const char   *table)
{
  g_autofree char *sql = g_strdup_printf ("SELECT count(*) FROM %s", table);
  g_autoptr(JsonNode) result = anot_weaver_db_query (db, sql, NULL);
  JsonArray *rows;

  if (result == NULL)
    return -1;
  rows = json_object_get_array_member (json_node_get_object (result), "rows");
  return json_array_get_int_element (json_array_get_array_element (rows, 0), 0);
}
