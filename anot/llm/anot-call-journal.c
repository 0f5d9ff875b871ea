/* anot-call-journal.c: the answers a run was given, kept the moment they
 * arrive
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * One JSON line per answered LLM call, appended with one write() as the
 * answer arrives, before the method sees it: a kill, a full disk, a write
 * error of the rows, an outage or a deadline loses at most the answers
 * still on their way.  A resumed run reads the file and gives each call
 * whose key it holds the answer already paid for instead of calling the
 * server again.
 *
 * The key names the call within the run: the scope (attack, run,
 * candidate count, request), the role, the call itself (its model,
 * messages and options: anot_chat_request_hash()) and how many identical
 * calls the request made before it, so that a method sampling one prompt
 * five times gets its five answers back, not the first five times.
 *
 * A last line without its newline is the write a kill or a full disk cut:
 * it is cut off when the file is opened (the call is made again), and
 * the journal says so (anot_call_journal_get_torn()).
 */
#include "config.h"

#include "anot-call-journal-private.h"

#include "anot-error.h"
#include "anot-usage-private.h"

#include <errno.h>
#include <fcntl.h>
#include <glib/gstdio.h>
#include <json-glib/json-glib.h>
#include <string.h>
#include <unistd.h>

struct _AnotCallJournal
{
  GObject parent_instance;

  char *path;
  int fd;
  GHashTable *answers;       /* key -> JsonObject, from the file */
  GError *error;             /* the first write that failed */
  guint64 n_loaded;
  guint64 n_replayed;
  guint64 n_written;
  gboolean torn;
  GArray *cancelled;         /* Cancelled: calls cancelled in flight, from the file and since */
};

/* A call cancelled while on the wire: no answer, an estimated cost. */
typedef struct
{
  char *scope;
  char *role;
  guint64 prompt_tokens;
  guint64 completion_tokens;
  double cost_usd;
} Cancelled;

static void
cancelled_clear (Cancelled *entry)
{
  g_free (entry->scope);
  g_free (entry->role);
}

G_DEFINE_FINAL_TYPE (AnotCallJournal, anot_call_journal, G_TYPE_OBJECT)

static void
anot_call_journal_finalize (GObject *object)
{
  AnotCallJournal *self = ANOT_CALL_JOURNAL (object);

  if (self->fd >= 0)
    close (self->fd);
  g_free (self->path);
  g_hash_table_unref (self->answers);
  g_array_unref (self->cancelled);
  g_clear_error (&self->error);

  G_OBJECT_CLASS (anot_call_journal_parent_class)->finalize (object);
}

static void
anot_call_journal_class_init (AnotCallJournalClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = anot_call_journal_finalize;
}

static void
anot_call_journal_init (AnotCallJournal *self)
{
  self->fd = -1;
  self->answers = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                         (GDestroyNotify) json_object_unref);
  self->cancelled = g_array_new (FALSE, TRUE, sizeof (Cancelled));
  g_array_set_clear_func (self->cancelled, (GDestroyNotify) cancelled_clear);
}

static void
cancelled_add (AnotCallJournal *self,
               const char      *scope,
               const char      *role,
               guint64          prompt_tokens,
               guint64          completion_tokens,
               double           cost_usd)
{
  Cancelled entry = { g_strdup (scope), g_strdup (role), prompt_tokens, completion_tokens, cost_usd };

  g_array_append_val (self->cancelled, entry);
}

/* Reads what an earlier attempt journaled; cuts off a torn last line. */
static gboolean
load (AnotCallJournal  *self,
      GError          **error)
{
  g_autofree char *contents = NULL;
  g_autoptr(GError) local = NULL;
  gsize length;
  gsize start = 0;
  guint line_number = 0;

  if (!g_file_get_contents (self->path, &contents, &length, &local))
    {
      if (g_error_matches (local, G_FILE_ERROR, G_FILE_ERROR_NOENT))
        return TRUE;
      g_set_error (error, ANOT_ERROR, ANOT_ERROR_IO, "Cannot read %s: %s", self->path,
                   local->message);
      return FALSE;
    }

  while (start < length)
    {
      const char *end = memchr (contents + start, '\n', length - start);
      g_autoptr(JsonParser) parser = NULL;
      JsonNode *root;
      JsonObject *object;
      const char *key;

      line_number++;
      if (end == NULL)
        {
          /* Cut by a kill or a full disk: the call is made again. */
          if (truncate (self->path, (off_t) start) != 0)
            {
              int saved_errno = errno;

              g_set_error (error, ANOT_ERROR, ANOT_ERROR_IO,
                           "Cannot cut the torn last line of %s: %s", self->path,
                           g_strerror (saved_errno));
              return FALSE;
            }
          self->torn = TRUE;
          break;
        }
      parser = json_parser_new ();
      if (end != contents + start &&
          json_parser_load_from_data (parser, contents + start, end - (contents + start), NULL) &&
          (root = json_parser_get_root (parser)) != NULL && JSON_NODE_HOLDS_OBJECT (root) &&
          json_object_get_boolean_member_with_default (json_node_get_object (root), "cancelled", FALSE))
        {
          object = json_node_get_object (root);
          cancelled_add (self, json_object_get_string_member_with_default (object, "scope", ""),
                         json_object_get_string_member_with_default (object, "role", NULL),
                         (guint64) json_object_get_int_member_with_default (object, "prompt_tokens", 0),
                         (guint64) json_object_get_int_member_with_default (object, "completion_tokens", 0),
                         anot_usage_read_cost (object, "estimated_cost_usd"));
          start = (gsize) (end - contents) + 1;
          continue;
        }
      if (end == contents + start ||
          !json_parser_load_from_data (parser, contents + start, end - (contents + start), NULL) ||
          (root = json_parser_get_root (parser)) == NULL || !JSON_NODE_HOLDS_OBJECT (root) ||
          (key = json_object_get_string_member_with_default (json_node_get_object (root), "key",
                                                             NULL)) == NULL ||
          !json_object_has_member (json_node_get_object (root), "text"))
        {
          g_set_error (error, ANOT_ERROR, ANOT_ERROR_PARSE,
                       "%s:%u: not a journaled answer (a JSON object with \"key\" and \"text\")",
                       self->path, line_number);
          return FALSE;
        }
      object = json_node_get_object (root);
      if (!g_hash_table_contains (self->answers, key))
        {
          g_hash_table_insert (self->answers, g_strdup (key), json_object_ref (object));
          self->n_loaded++;
        }
      start = (gsize) (end - contents) + 1;
    }
  return TRUE;
}

/**
 * anot_call_journal_open:
 * @path: (type filename): the journal file
 * @error: return location for a #GError
 *
 * Opens the journal at @path, reading the answers it already holds; the
 * first answer appended creates the file.
 *
 * Returns: (transfer full) (nullable): the journal, or %NULL with @error
 *   set (%ANOT_ERROR_IO, %ANOT_ERROR_PARSE naming the line)
 */
AnotCallJournal *
anot_call_journal_open (const char  *path,
                        GError     **error)
{
  g_autoptr(AnotCallJournal) self = NULL;

  g_return_val_if_fail (path != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  self = g_object_new (ANOT_TYPE_CALL_JOURNAL, NULL);
  self->path = g_strdup (path);
  if (!load (self, error))
    return NULL;
  /* The file is made by the first answer: a run without LLM calls has
   * none. */
  return g_steal_pointer (&self);
}

const char *
anot_call_journal_get_path (AnotCallJournal *self)
{
  g_return_val_if_fail (ANOT_IS_CALL_JOURNAL (self), NULL);
  return self->path;
}

/* The key of the @occurrence-th (from 0) call of @role within @scope (one
 * request of one cell) whose request has @call_hash
 * (anot_chat_request_hash() of it and @role: the caller has it already,
 * and a prompt of megabytes is hashed once). */
char *
anot_call_journal_key (const char *scope,
                       const char *role,
                       const char *call_hash,
                       guint       occurrence)
{
  g_autofree char *text = g_strdup_printf ("%s\n%s\n%s\n%u", scope, role, call_hash, occurrence);

  return g_compute_checksum_for_string (G_CHECKSUM_SHA256, text, -1);
}

/* The answer journaled under @key, once: NULL when there is none, or it
 * was replayed already. */
AnotCompletion *
anot_call_journal_replay (AnotCallJournal *self,
                          const char      *key)
{
  g_autoptr(JsonObject) object = NULL;
  AnotCompletion *completion;
  const char *batch_id;
  gpointer stolen_key;

  g_return_val_if_fail (ANOT_IS_CALL_JOURNAL (self), NULL);
  g_return_val_if_fail (key != NULL, NULL);

  if (!g_hash_table_steal_extended (self->answers, key, &stolen_key, (gpointer *) &object))
    return NULL;
  g_free (stolen_key);

  completion = anot_completion_new (json_object_get_string_member_with_default (object, "model", NULL),
                                    json_object_get_string_member_with_default (object, "text", ""));
  anot_completion_set_prompt_tokens (completion,
                                     (guint64) json_object_get_int_member_with_default (object, "prompt_tokens", 0));
  anot_completion_set_completion_tokens (completion,
                                         (guint64) json_object_get_int_member_with_default (object, "completion_tokens", 0));
  /* null: the model had no price when the answer came. */
  if (json_object_has_member (object, "cost_usd") &&
      JSON_NODE_HOLDS_NULL (json_object_get_member (object, "cost_usd")))
    anot_completion_set_cost_known (completion, FALSE);
  else
    anot_completion_set_cost_usd (completion,
                                  json_object_get_double_member_with_default (object, "cost_usd", 0.0));
  anot_completion_set_latency_ms (completion,
                                  json_object_get_double_member_with_default (object, "latency_ms", 0.0));
  anot_completion_set_retries (completion,
                               (guint) json_object_get_int_member_with_default (object, "retries", 0));
  anot_completion_set_finish_reason (completion,
                                     json_object_get_string_member_with_default (object, "finish_reason", NULL));
  anot_completion_set_replaced_characters (completion,
                                           (guint) json_object_get_int_member_with_default (object, "replaced_characters", 0));
  anot_completion_set_cached (completion,
                              json_object_get_boolean_member_with_default (object, "cached", FALSE));
  batch_id = json_object_get_string_member_with_default (object, "batch_id", NULL);
  if (batch_id != NULL)
    anot_completion_set_batch_id (completion, batch_id);
  self->n_replayed++;
  return completion;
}

static gboolean write_line (AnotCallJournal *self, JsonNode *root, GError **error);

static void
add_string (JsonBuilder *builder,
            const char  *name,
            const char  *value)
{
  if (value == NULL)
    return;
  json_builder_set_member_name (builder, name);
  json_builder_add_string_value (builder, value);
}

/* Appends @completion under @key with one write(), so that a line is
 * whole or torn, never mixed with another.  The first failure is kept
 * (anot_call_journal_get_error()) and every later append fails with it:
 * a run stops at it rather than paying for answers it cannot keep. */
gboolean
anot_call_journal_append (AnotCallJournal  *self,
                          const char       *key,
                          AnotCompletion   *completion,
                          GError          **error)
{
  g_autoptr(JsonBuilder) builder = json_builder_new ();
  g_autoptr(JsonNode) root = NULL;

  g_return_val_if_fail (ANOT_IS_CALL_JOURNAL (self), FALSE);
  g_return_val_if_fail (key != NULL, FALSE);
  g_return_val_if_fail (ANOT_IS_COMPLETION (completion), FALSE);

  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "key");
  json_builder_add_string_value (builder, key);
  add_string (builder, "role", anot_completion_get_role (completion));
  add_string (builder, "model", anot_completion_get_model (completion));
  json_builder_set_member_name (builder, "text");
  json_builder_add_string_value (builder, anot_completion_get_text (completion)
                                          ? anot_completion_get_text (completion) : "");
  json_builder_set_member_name (builder, "prompt_tokens");
  json_builder_add_int_value (builder, (gint64) anot_completion_get_prompt_tokens (completion));
  json_builder_set_member_name (builder, "completion_tokens");
  json_builder_add_int_value (builder, (gint64) anot_completion_get_completion_tokens (completion));
  json_builder_set_member_name (builder, "cost_usd");
  if (anot_completion_get_cost_known (completion))
    json_builder_add_double_value (builder, anot_completion_get_cost_usd (completion));
  else
    json_builder_add_null_value (builder);
  json_builder_set_member_name (builder, "latency_ms");
  json_builder_add_double_value (builder, anot_completion_get_latency_ms (completion));
  json_builder_set_member_name (builder, "retries");
  json_builder_add_int_value (builder, anot_completion_get_retries (completion));
  if (anot_completion_get_finish_reason (completion) != NULL)
    {
      json_builder_set_member_name (builder, "finish_reason");
      json_builder_add_string_value (builder, anot_completion_get_finish_reason (completion));
    }
  if (anot_completion_get_replaced_characters (completion) > 0)
    {
      json_builder_set_member_name (builder, "replaced_characters");
      json_builder_add_int_value (builder, anot_completion_get_replaced_characters (completion));
    }
  if (anot_completion_get_cached (completion))
    {
      json_builder_set_member_name (builder, "cached");
      json_builder_add_boolean_value (builder, TRUE);
    }
  if (anot_completion_get_batch_id (completion) != NULL)
    {
      json_builder_set_member_name (builder, "batch_id");
      json_builder_add_string_value (builder, anot_completion_get_batch_id (completion));
    }
  json_builder_end_object (builder);
  root = json_builder_get_root (builder);
  if (!write_line (self, root, error))
    return FALSE;
  self->n_written++;
  return TRUE;
}

/* Appends @root as one line with one write(), so that a line is whole or
 * torn at the end, never interleaved. */
static gboolean
write_line (AnotCallJournal  *self,
            JsonNode         *root,
            GError          **error)
{
  g_autofree char *text = NULL;
  g_autofree char *line = NULL;
  const char *p;
  gsize left;

  if (self->error == NULL && self->fd < 0)
    {
      self->fd = g_open (self->path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
      if (self->fd < 0)
        {
          int saved_errno = errno;

          g_set_error (&self->error, ANOT_ERROR, ANOT_ERROR_IO,
                       "Cannot open the journal of answers %s: %s", self->path,
                       g_strerror (saved_errno));
        }
    }
  if (self->error != NULL)
    {
      g_propagate_error (error, g_error_copy (self->error));
      return FALSE;
    }

  text = json_to_string (root, FALSE);
  line = g_strconcat (text, "\n", NULL);

  p = line;
  left = strlen (line);
  while (left > 0)
    {
      gssize n = write (self->fd, p, left);

      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        {
          int saved_errno = n < 0 ? errno : ENOSPC;

          g_set_error (&self->error, ANOT_ERROR, ANOT_ERROR_IO,
                       "Cannot write the journal of answers %s: %s", self->path,
                       g_strerror (saved_errno));
          g_propagate_error (error, g_error_copy (self->error));
          return FALSE;
        }
      p += n;
      left -= (gsize) n;
    }
  return TRUE;
}

/* Appends a call of @scope (the cell and request) cancelled while it was
 * on the wire: no answer to replay, but the provider may bill it, so its
 * estimate is kept for every later summary of the run. */
gboolean
anot_call_journal_append_cancelled (AnotCallJournal  *self,
                                    const char       *scope,
                                    const char       *role,
                                    const char       *model,
                                    guint64           prompt_tokens,
                                    guint64           completion_tokens,
                                    double            cost_usd,
                                    GError          **error)
{
  g_autoptr(JsonBuilder) builder = json_builder_new ();
  g_autoptr(JsonNode) root = NULL;

  g_return_val_if_fail (ANOT_IS_CALL_JOURNAL (self), FALSE);
  g_return_val_if_fail (scope != NULL, FALSE);

  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "cancelled");
  json_builder_add_boolean_value (builder, TRUE);
  add_string (builder, "scope", scope);
  add_string (builder, "role", role);
  add_string (builder, "model", model);
  json_builder_set_member_name (builder, "prompt_tokens");
  json_builder_add_int_value (builder, (gint64) prompt_tokens);
  json_builder_set_member_name (builder, "completion_tokens");
  json_builder_add_int_value (builder, (gint64) completion_tokens);
  json_builder_set_member_name (builder, "estimated_cost_usd");
  anot_usage_add_cost_value (builder, cost_usd);
  json_builder_end_object (builder);
  root = json_builder_get_root (builder);
  cancelled_add (self, scope, role, prompt_tokens, completion_tokens, cost_usd);
  return write_line (self, root, error);
}

/* Adds to @usage the calls cancelled in flight (from the file and since)
 * whose scope starts with @scope_prefix (NULL: all). */
void
anot_call_journal_add_cancelled (AnotCallJournal *self,
                                 const char      *scope_prefix,
                                 AnotUsage       *usage)
{
  g_return_if_fail (ANOT_IS_CALL_JOURNAL (self));
  g_return_if_fail (ANOT_IS_USAGE (usage));

  for (guint i = 0; i < self->cancelled->len; i++)
    {
      Cancelled *entry = &g_array_index (self->cancelled, Cancelled, i);

      if (scope_prefix == NULL || g_str_has_prefix (entry->scope, scope_prefix))
        anot_usage_add_cancelled (usage, 1, entry->prompt_tokens, entry->completion_tokens,
                                  entry->cost_usd);
    }
}

/* The first append that failed, or NULL. */
const GError *
anot_call_journal_get_error (AnotCallJournal *self)
{
  g_return_val_if_fail (ANOT_IS_CALL_JOURNAL (self), NULL);
  return self->error;
}

/* Answers read from the file when it was opened. */
guint64
anot_call_journal_get_n_loaded (AnotCallJournal *self)
{
  g_return_val_if_fail (ANOT_IS_CALL_JOURNAL (self), 0);
  return self->n_loaded;
}

/* Answers given back instead of calling the server. */
guint64
anot_call_journal_get_n_replayed (AnotCallJournal *self)
{
  g_return_val_if_fail (ANOT_IS_CALL_JOURNAL (self), 0);
  return self->n_replayed;
}

guint64
anot_call_journal_get_n_written (AnotCallJournal *self)
{
  g_return_val_if_fail (ANOT_IS_CALL_JOURNAL (self), 0);
  return self->n_written;
}

/* Whether the file ended in a torn line when it was opened (cut off). */
gboolean
anot_call_journal_get_torn (AnotCallJournal *self)
{
  g_return_val_if_fail (ANOT_IS_CALL_JOURNAL (self), FALSE);
  return self->torn;
}

/* The estimated cost of the calls cancelled in flight (from the file and
 * since) of @role (NULL: every role): a budget counts them as spent, since
 * the provider may bill them. */
double
anot_call_journal_get_cancelled_cost (AnotCallJournal *self,
                                      const char      *role)
{
  double cost = 0;

  g_return_val_if_fail (ANOT_IS_CALL_JOURNAL (self), 0.0);

  for (guint i = 0; i < self->cancelled->len; i++)
    {
      Cancelled *entry = &g_array_index (self->cancelled, Cancelled, i);

      if (role == NULL || g_strcmp0 (entry->role, role) == 0)
        cost += entry->cost_usd;
    }
  return cost;
}
