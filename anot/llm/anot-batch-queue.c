/* anot-batch-queue.c: LLM calls collected into provider batches
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "anot-batch-queue-private.h"

#include "anot-completion-private.h"

#include "anot-error.h"
#include "anot-json-document.h"
#include "anot-json-writer.h"

#include <errno.h>
#include <fcntl.h>
#include <glib/gstdio.h>
#include <string.h>
#include <unistd.h>

/**
 * AnotBatchQueue:
 *
 * Collects the calls of [class@Anot.HttpBackend]s that were given the
 * queue ([method@Anot.HttpBackend.set_batch_queue]) into batches and sends
 * them through the provider's batch API (OpenAI's Batch API, Anthropic's
 * Message Batches), which costs half the list price.  Every call is
 * resolved with the answer of its line as if it had been made directly:
 * the caller sees an [class@Anot.Completion] (with
 * [property@Anot.Completion:batch-id] set) or the error the direct call
 * would have had.
 *
 * **When a batch closes.** Calls are grouped by backend and model (one
 * model per batch, as OpenAI requires).  A group is submitted when it has
 * [property@Anot.BatchQueue:max-size] lines, when
 * [property@Anot.BatchQueue:window-ms] passed since its first line, or
 * when no call was added for [property@Anot.BatchQueue:settle-ms]: every
 * request in flight of an experiment runs on one main loop, so once the
 * loop has gone quiet for that long every request is waiting for an
 * answer and none can progress without the batch.  Multi-round methods
 * therefore make one batch per round.
 *
 * **Identical calls** share a line: the `custom_id` is a digest of the
 * backend, its base URL and the call's JSON body, so the same call made
 * twice (or made again by a resumed run) is answered once.  The provider
 * bills the line once, so only the first call that takes its answer is
 * charged for it (its [property@Anot.Completion:cost-usd]); the others
 * get the same answer, with its tokens, at no cost.
 *
 * **Polling** starts [property@Anot.BatchQueue:poll-min-ms] after the
 * submission and doubles after every poll that finds the batch still
 * running, up to [property@Anot.BatchQueue:poll-max-ms] (defaults 2 s and
 * 60 s).  A poll that fails (the connection, HTTP 5xx after the backend's
 * retries) is repeated at the next interval; five failures in a row fail
 * the batch's calls.
 *
 * **Lines without an answer** — errored with a retryable error (429,
 * 5xx), expired, cancelled, or in a batch that failed as a whole — are
 * retried: in the next batch, or as direct calls when
 * [property@Anot.BatchQueue:retry-direct] is set, until a line has been
 * in [property@Anot.BatchQueue:max-attempts] batches; then its calls fail
 * with %ANOT_ERROR_LLM_BATCH.  Lines the provider answered with a
 * non-retryable error (HTTP 400, for instance a context overflow) fail
 * their calls with that error, as a direct call would.
 *
 * **Interruption.** With a state file ([method@Anot.BatchQueue.open_state])
 * the queue appends one JSON line per submitted batch — its id, backend,
 * base URL, model and custom ids — before anything waits on it, and one
 * when it ended.  A queue that opens the same file later (a resumed run)
 * answers a call whose custom id is in a recorded batch by polling that
 * batch instead of submitting the call again, so no call is paid twice.
 */

#define DEFAULT_MAX_SIZE 10000
#define DEFAULT_WINDOW_MS 0
#define DEFAULT_SETTLE_MS 100
#define DEFAULT_POLL_MIN_MS 2000
#define DEFAULT_POLL_MAX_MS 60000
#define DEFAULT_MAX_ATTEMPTS 3
#define MAX_POLL_FAILURES 5

typedef struct _Line Line;
typedef struct _Group Group;
typedef struct _Sub Sub;

typedef struct
{
  AnotBatchQueue *queue;
  Line *line;
  GTask *task;
  GSource *cancel_source;
  gint64 added_us;
  char *request_id;
} Waiter;

struct _Line
{
  char *custom_id;
  AnotHttpBackend *backend;
  char *model;
  GBytes *body;
  GPtrArray *waiters;        /* Waiter */
  guint attempts;            /* batches the line was in */
  Group *group;              /* the open batch it waits in, or NULL */
  Sub *sub;                  /* the submitted batch it is in, or NULL */
};

struct _Group
{
  AnotBatchQueue *queue;
  char *key;
  AnotHttpBackend *backend;
  char *model;
  GPtrArray *lines;          /* Line (owned by the queue's `lines`) */
  guint64 bytes;             /* of its lines, as the provider counts them */
  GSource *window_source;
};

struct _Sub
{
  AnotBatchQueue *queue;
  AnotHttpBackend *backend;
  AnotBatch *batch;
  GSource *poll_source;
  guint poll_ms;
  guint poll_failures;
  guint not_found;           /* polls answered 404 in a row */
  gboolean resumed;
};

typedef struct
{
  char *batch_id;            /* NULL: an intent not known to have been created */
  char *intent_id;
  gint64 time;
  char *backend;
  char *base_url;
  char *model;
  GPtrArray *custom_ids;     /* char* */
  gboolean searching;        /* an intent the provider is being asked about */
  GPtrArray *waiting;        /* Line: new calls of an intent searched for */
} Record;

struct _AnotBatchQueue
{
  GObject parent_instance;

  guint max_size;
  guint64 max_bytes;
  guint window_ms;
  guint settle_ms;
  guint poll_min_ms;
  guint poll_max_ms;
  guint max_attempts;
  gboolean retry_direct;

  GHashTable *lines;         /* custom_id -> Line (owned) */
  GHashTable *groups;        /* key -> Group (owned) */
  GHashTable *subs;          /* batch id -> Sub (owned) */
  GHashTable *answered;      /* custom_id -> AnotBatch that answered it */
  GHashTable *paid;          /* custom_id: its answer was given to a caller, charged */
  GHashTable *records;       /* batch id -> Record, from the state file */
  GHashTable *recorded_ids;  /* custom_id -> Record */
  GHashTable *intents;       /* intent id -> Record: recorded, never known created */
  GHashTable *intent_ids;    /* custom_id -> Record of an intent */
  GSource *settle_source;
  GCancellable *cancellable;

  char *state_path;
  int state_fd;

  guint n_submitted;
  guint n_resumed;
  guint n_waiting;
  guint64 n_lines_sent;
  guint64 n_lines_retried;
  GHashTable *lost_ids;      /* custom_id: in a batch recorded as lost */
  guint64 n_lines_lost_resent;
  guint64 n_calls_shared;
};

G_DEFINE_FINAL_TYPE (AnotBatchQueue, anot_batch_queue, G_TYPE_OBJECT)

enum {
  PROP_0,
  PROP_MAX_SIZE,
  PROP_MAX_BYTES,
  PROP_WINDOW_MS,
  PROP_SETTLE_MS,
  PROP_POLL_MIN_MS,
  PROP_POLL_MAX_MS,
  PROP_MAX_ATTEMPTS,
  PROP_RETRY_DIRECT,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

static void group_close (AnotBatchQueue *self, Group *group);
static void line_enqueue (AnotBatchQueue *self, Line *line);

static void
source_destroy_and_unref (GSource *source)
{
  g_source_destroy (source);
  g_source_unref (source);
}

static void
waiter_free (Waiter *waiter)
{
  g_clear_pointer (&waiter->cancel_source, source_destroy_and_unref);
  g_clear_object (&waiter->task);
  g_free (waiter->request_id);
  g_free (waiter);
}

static void
line_free (Line *line)
{
  g_free (line->custom_id);
  g_clear_object (&line->backend);
  g_free (line->model);
  g_clear_pointer (&line->body, g_bytes_unref);
  g_ptr_array_unref (line->waiters);
  g_free (line);
}

static void
group_free (Group *group)
{
  g_clear_pointer (&group->window_source, source_destroy_and_unref);
  g_free (group->key);
  g_clear_object (&group->backend);
  g_free (group->model);
  g_ptr_array_unref (group->lines);
  g_free (group);
}

static void
sub_free (Sub *sub)
{
  g_clear_pointer (&sub->poll_source, source_destroy_and_unref);
  g_clear_object (&sub->backend);
  g_clear_object (&sub->batch);
  g_free (sub);
}

static void
record_free (Record *record)
{
  g_free (record->batch_id);
  g_free (record->intent_id);
  g_clear_pointer (&record->waiting, g_ptr_array_unref);
  g_free (record->backend);
  g_free (record->base_url);
  g_free (record->model);
  g_ptr_array_unref (record->custom_ids);
  g_free (record);
}

static void
anot_batch_queue_dispose (GObject *object)
{
  AnotBatchQueue *self = ANOT_BATCH_QUEUE (object);

  g_cancellable_cancel (self->cancellable);
  g_clear_pointer (&self->settle_source, source_destroy_and_unref);
  g_hash_table_remove_all (self->groups);
  g_hash_table_remove_all (self->subs);

  G_OBJECT_CLASS (anot_batch_queue_parent_class)->dispose (object);
}

static void
anot_batch_queue_finalize (GObject *object)
{
  AnotBatchQueue *self = ANOT_BATCH_QUEUE (object);

  g_hash_table_unref (self->groups);
  g_hash_table_unref (self->subs);
  g_hash_table_unref (self->lines);
  g_hash_table_unref (self->answered);
  g_hash_table_unref (self->paid);
  g_hash_table_unref (self->recorded_ids);
  g_hash_table_unref (self->records);
  g_hash_table_unref (self->intent_ids);
  g_hash_table_unref (self->intents);
  g_hash_table_unref (self->lost_ids);
  g_clear_object (&self->cancellable);
  if (self->state_fd >= 0)
    close (self->state_fd);
  g_free (self->state_path);

  G_OBJECT_CLASS (anot_batch_queue_parent_class)->finalize (object);
}

static guint *
uint_field (AnotBatchQueue *self,
            guint           prop_id)
{
  switch (prop_id)
    {
    case PROP_MAX_SIZE: return &self->max_size;
    case PROP_WINDOW_MS: return &self->window_ms;
    case PROP_SETTLE_MS: return &self->settle_ms;
    case PROP_POLL_MIN_MS: return &self->poll_min_ms;
    case PROP_POLL_MAX_MS: return &self->poll_max_ms;
    case PROP_MAX_ATTEMPTS: return &self->max_attempts;
    default: return NULL;
    }
}

static void
anot_batch_queue_get_property (GObject    *object,
                               guint       prop_id,
                               GValue     *value,
                               GParamSpec *pspec)
{
  AnotBatchQueue *self = ANOT_BATCH_QUEUE (object);

  if (prop_id == PROP_RETRY_DIRECT)
    g_value_set_boolean (value, self->retry_direct);
  else if (prop_id == PROP_MAX_BYTES)
    g_value_set_uint64 (value, self->max_bytes);
  else if (uint_field (self, prop_id) != NULL)
    g_value_set_uint (value, *uint_field (self, prop_id));
  else
    G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
}

static void
anot_batch_queue_set_property (GObject      *object,
                               guint         prop_id,
                               const GValue *value,
                               GParamSpec   *pspec)
{
  AnotBatchQueue *self = ANOT_BATCH_QUEUE (object);

  if (prop_id == PROP_RETRY_DIRECT)
    self->retry_direct = g_value_get_boolean (value);
  else if (prop_id == PROP_MAX_BYTES)
    self->max_bytes = g_value_get_uint64 (value);
  else if (uint_field (self, prop_id) != NULL)
    *uint_field (self, prop_id) = g_value_get_uint (value);
  else
    G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
}

static void
anot_batch_queue_class_init (AnotBatchQueueClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = anot_batch_queue_dispose;
  object_class->finalize = anot_batch_queue_finalize;
  object_class->get_property = anot_batch_queue_get_property;
  object_class->set_property = anot_batch_queue_set_property;

  /**
   * AnotBatchQueue:max-size:
   *
   * The most lines in one batch; a group that reaches it is submitted at
   * once.  The provider's own limit (OpenAI 50 000 lines, Anthropic
   * 100 000: [struct@Anot.HttpBackendClass]'s `batch_max_lines`) applies
   * when it is lower.
   */
  properties[PROP_MAX_SIZE] =
    g_param_spec_uint ("max-size", NULL, NULL, 1, 100000, DEFAULT_MAX_SIZE,
                       G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS);
  /**
   * AnotBatchQueue:max-bytes:
   *
   * The most bytes in one batch, counted on the serialized lines the
   * provider receives; a call that would pass it goes into the next
   * batch, and a call whose line alone passes it fails with
   * %ANOT_ERROR_LLM_BAD_REQUEST.  0 (default): the provider's limit
   * (OpenAI 200 MB, Anthropic 256 MB: `batch_max_bytes`), which also
   * applies when it is lower.
   */
  properties[PROP_MAX_BYTES] =
    g_param_spec_uint64 ("max-bytes", NULL, NULL, 0, G_MAXUINT64, 0,
                         G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS);
  /**
   * AnotBatchQueue:window-ms:
   *
   * The longest a call waits for its batch to be submitted, from the
   * batch's first line, in milliseconds; 0 for no limit (the batch closes
   * when the calls settle or it is full).
   */
  properties[PROP_WINDOW_MS] =
    g_param_spec_uint ("window-ms", NULL, NULL, 0, G_MAXUINT, DEFAULT_WINDOW_MS,
                       G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS);
  /**
   * AnotBatchQueue:settle-ms:
   *
   * How long no new call must arrive before the open batches are
   * submitted, in milliseconds.
   */
  properties[PROP_SETTLE_MS] =
    g_param_spec_uint ("settle-ms", NULL, NULL, 0, G_MAXUINT, DEFAULT_SETTLE_MS,
                       G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS);
  /**
   * AnotBatchQueue:poll-min-ms:
   *
   * The first polling interval, in milliseconds.
   */
  properties[PROP_POLL_MIN_MS] =
    g_param_spec_uint ("poll-min-ms", NULL, NULL, 1, G_MAXUINT, DEFAULT_POLL_MIN_MS,
                       G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS);
  /**
   * AnotBatchQueue:poll-max-ms:
   *
   * The longest polling interval, in milliseconds.
   */
  properties[PROP_POLL_MAX_MS] =
    g_param_spec_uint ("poll-max-ms", NULL, NULL, 1, G_MAXUINT, DEFAULT_POLL_MAX_MS,
                       G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS);
  /**
   * AnotBatchQueue:max-attempts:
   *
   * In how many batches a line may be before its calls fail with
   * %ANOT_ERROR_LLM_BATCH.
   */
  properties[PROP_MAX_ATTEMPTS] =
    g_param_spec_uint ("max-attempts", NULL, NULL, 1, 100, DEFAULT_MAX_ATTEMPTS,
                       G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS);
  /**
   * AnotBatchQueue:retry-direct:
   *
   * Whether lines a batch did not answer are retried as direct calls
   * (at the list price, at once) rather than in the next batch.
   */
  properties[PROP_RETRY_DIRECT] =
    g_param_spec_boolean ("retry-direct", NULL, NULL, FALSE,
                          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS);

  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
anot_batch_queue_init (AnotBatchQueue *self)
{
  self->max_size = DEFAULT_MAX_SIZE;
  self->window_ms = DEFAULT_WINDOW_MS;
  self->settle_ms = DEFAULT_SETTLE_MS;
  self->poll_min_ms = DEFAULT_POLL_MIN_MS;
  self->poll_max_ms = DEFAULT_POLL_MAX_MS;
  self->max_attempts = DEFAULT_MAX_ATTEMPTS;
  self->lines = g_hash_table_new_full (g_str_hash, g_str_equal, NULL, (GDestroyNotify) line_free);
  self->groups = g_hash_table_new_full (g_str_hash, g_str_equal, NULL, (GDestroyNotify) group_free);
  self->subs = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, (GDestroyNotify) sub_free);
  self->answered = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_object_unref);
  self->paid = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  self->records = g_hash_table_new_full (g_str_hash, g_str_equal, NULL, (GDestroyNotify) record_free);
  self->recorded_ids = g_hash_table_new (g_str_hash, g_str_equal);
  self->intents = g_hash_table_new_full (g_str_hash, g_str_equal, NULL, (GDestroyNotify) record_free);
  self->intent_ids = g_hash_table_new (g_str_hash, g_str_equal);
  self->cancellable = g_cancellable_new ();
  self->state_fd = -1;
  self->lost_ids = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
}

/**
 * anot_batch_queue_new:
 *
 * Returns: (transfer full): a new batch queue with the default bounds
 */
AnotBatchQueue *
anot_batch_queue_new (void)
{
  return g_object_new (ANOT_TYPE_BATCH_QUEUE, NULL);
}

/* ------------------------------------------------------------------------
 * The state file
 * --------------------------------------------------------------------- */

static const char *
status_name (AnotBatchStatus status)
{
  switch (status)
    {
    case ANOT_BATCH_STATUS_PENDING: return "pending";
    case ANOT_BATCH_STATUS_VALIDATING: return "validating";
    case ANOT_BATCH_STATUS_IN_PROGRESS: return "in_progress";
    case ANOT_BATCH_STATUS_FINALIZING: return "finalizing";
    case ANOT_BATCH_STATUS_CANCELLING: return "cancelling";
    case ANOT_BATCH_STATUS_COMPLETED: return "completed";
    case ANOT_BATCH_STATUS_FAILED: return "failed";
    case ANOT_BATCH_STATUS_EXPIRED: return "expired";
    case ANOT_BATCH_STATUS_CANCELLED: return "cancelled";
    default: return "unknown";
    }
}

/* Appends @writer's line and syncs it: the record of a submitted batch
 * must be on disk before anything waits on the batch. */
static void
state_append (AnotBatchQueue *self,
              AnotJsonWriter *writer)
{
  gsize length;
  const char *text = anot_json_writer_get_text (writer, &length);
  g_autofree char *line = g_strdup_printf ("%.*s\n", (int) length, text);
  gsize left = strlen (line);
  const char *p = line;

  if (self->state_fd < 0)
    return;
  while (left > 0)
    {
      gssize n = write (self->state_fd, p, left);

      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0)
        {
          g_warning ("Cannot write the batch state file %s: %s", self->state_path,
                     g_strerror (errno));
          return;
        }
      p += n;
      left -= (gsize) n;
    }
  fsync (self->state_fd);
}

/* A batch's line in the state file: `intent` before it is created
 * (should the answer to its creation be lost to a kill, a resume asks
 * the provider for it instead of creating it again), `submitted` once
 * it has an id. */
static void
state_record_batch (AnotBatchQueue *self,
                    Sub            *sub,
                    const char     *event)
{
  g_autoptr(AnotJsonWriter) writer = anot_json_writer_new ();
  AnotHttpBackendClass *klass = ANOT_HTTP_BACKEND_GET_CLASS (sub->backend);
  gboolean intent = strcmp (event, "intent") == 0;
  guint n = anot_batch_get_n_lines (sub->batch);

  anot_json_writer_begin_object (writer);
  anot_json_writer_set_member_name (writer, "event");
  anot_json_writer_add_string_value (writer, event);
  if (!intent)
    {
      anot_json_writer_set_member_name (writer, "batch_id");
      anot_json_writer_add_string_value (writer, anot_batch_get_id (sub->batch));
    }
  anot_json_writer_set_member_name (writer, "backend");
  anot_json_writer_add_string_value (writer, klass->name ? klass->name : "");
  anot_json_writer_set_member_name (writer, "base_url");
  anot_json_writer_add_string_value (writer, anot_http_backend_get_base_url (sub->backend));
  anot_json_writer_set_member_name (writer, "model");
  anot_json_writer_add_string_value (writer, anot_batch_get_model (sub->batch));
  if (anot_batch_get_intent_id (sub->batch) != NULL)
    {
      anot_json_writer_set_member_name (writer, "intent_id");
      anot_json_writer_add_string_value (writer, anot_batch_get_intent_id (sub->batch));
    }
  anot_json_writer_set_member_name (writer, "time");
  anot_json_writer_add_int_value (writer, intent ? anot_batch_get_intent_time (sub->batch)
                                  : g_get_real_time () / G_USEC_PER_SEC);
  anot_json_writer_set_member_name (writer, "custom_ids");
  anot_json_writer_begin_array (writer);
  for (guint i = 0; i < n; i++)
    anot_json_writer_add_string_value (writer, anot_batch_get_line_custom_id (sub->batch, i));
  anot_json_writer_end_array (writer);
  anot_json_writer_end_object (writer);
  state_append (self, writer);
}

static void
state_record_ended (AnotBatchQueue *self,
                    Sub            *sub)
{
  g_autoptr(AnotJsonWriter) writer = anot_json_writer_new ();

  anot_json_writer_begin_object (writer);
  anot_json_writer_set_member_name (writer, "event");
  anot_json_writer_add_string_value (writer, "ended");
  anot_json_writer_set_member_name (writer, "batch_id");
  anot_json_writer_add_string_value (writer, anot_batch_get_id (sub->batch));
  anot_json_writer_set_member_name (writer, "status");
  anot_json_writer_add_string_value (writer, status_name (anot_batch_get_status (sub->batch)));
  anot_json_writer_set_member_name (writer, "succeeded");
  anot_json_writer_add_int_value (writer, anot_batch_count_lines (sub->batch, ANOT_BATCH_LINE_SUCCEEDED));
  anot_json_writer_set_member_name (writer, "time");
  anot_json_writer_add_int_value (writer, g_get_real_time () / G_USEC_PER_SEC);
  anot_json_writer_end_object (writer);
  state_append (self, writer);
}

static void
state_record_lost (AnotBatchQueue *self,
                   Sub            *sub)
{
  g_autoptr(AnotJsonWriter) writer = anot_json_writer_new ();

  anot_json_writer_begin_object (writer);
  anot_json_writer_set_member_name (writer, "event");
  anot_json_writer_add_string_value (writer, "lost");
  anot_json_writer_set_member_name (writer, "batch_id");
  anot_json_writer_add_string_value (writer, anot_batch_get_id (sub->batch));
  anot_json_writer_set_member_name (writer, "time");
  anot_json_writer_add_int_value (writer, g_get_real_time () / G_USEC_PER_SEC);
  anot_json_writer_end_object (writer);
  state_append (self, writer);
}

static gboolean
state_load_line (AnotBatchQueue  *self,
                 const char      *path,
                 guint            line_number,
                 const char      *text,
                 GError         **error)
{
  g_autoptr(AnotJsonDocument) doc = anot_json_document_new_from_data (text, -1, error);
  g_autofree char *event = NULL;
  g_autofree char *batch_id = NULL;
  g_autofree char *intent_id = NULL;
  Record *record;
  int ids;

  if (doc == NULL)
    {
      g_prefix_error (error, "%s:%u: ", path, line_number);
      return FALSE;
    }
  event = anot_json_document_dup_string (doc, anot_json_document_get_member (doc, 0, "event"));
  batch_id = anot_json_document_dup_string (doc, anot_json_document_get_member (doc, 0, "batch_id"));
  intent_id = anot_json_document_dup_string (doc, anot_json_document_get_member (doc, 0, "intent_id"));
  /* An intent made a batch once a later line says so. */
  if (intent_id != NULL && g_strcmp0 (event, "intent") != 0)
    g_hash_table_remove (self->intents, intent_id);
  if (g_strcmp0 (event, "intent") == 0 && intent_id != NULL)
    batch_id = g_strdup ("");
  if (event == NULL || batch_id == NULL)
    {
      g_set_error (error, ANOT_ERROR, ANOT_ERROR_MISSING_FIELD,
                   "%s:%u: a batch record needs “event” and “batch_id”", path, line_number);
      return FALSE;
    }
  if (strcmp (event, "lost") == 0)
    {
      /* The provider forgot the batch (404): its calls are sent once
       * more. */
      record = g_hash_table_lookup (self->records, batch_id);
      if (record != NULL)
        {
          for (guint i = 0; i < record->custom_ids->len; i++)
            {
              const char *id = g_ptr_array_index (record->custom_ids, i);

              if (g_hash_table_lookup (self->recorded_ids, id) == record)
                g_hash_table_remove (self->recorded_ids, id);
              g_hash_table_add (self->lost_ids, g_strdup (id));
            }
          g_hash_table_remove (self->records, batch_id);
        }
      return TRUE;
    }
  if (strcmp (event, "submitted") != 0 && strcmp (event, "intent") != 0)
    return TRUE;

  ids = anot_json_document_get_member (doc, 0, "custom_ids");
  if (anot_json_document_get_kind (doc, ids) != ANOT_JSON_KIND_ARRAY)
    {
      g_set_error (error, ANOT_ERROR, ANOT_ERROR_MISSING_FIELD,
                   "%s:%u: field “custom_ids”: expected an array", path, line_number);
      return FALSE;
    }
  record = g_new0 (Record, 1);
  record->batch_id = g_steal_pointer (&batch_id);
  record->backend = anot_json_document_dup_string (doc, anot_json_document_get_member (doc, 0, "backend"));
  record->base_url = anot_json_document_dup_string (doc, anot_json_document_get_member (doc, 0, "base_url"));
  record->model = anot_json_document_dup_string (doc, anot_json_document_get_member (doc, 0, "model"));
  record->custom_ids = g_ptr_array_new_with_free_func (g_free);
  for (guint i = 0; i < anot_json_document_get_size (doc, ids); i++)
    {
      char *id = anot_json_document_dup_string (doc, anot_json_document_get_element (doc, ids, i));

      if (id != NULL)
        g_ptr_array_add (record->custom_ids, id);
    }
  if (record->model == NULL)
    {
      record_free (record);
      g_set_error (error, ANOT_ERROR, ANOT_ERROR_MISSING_FIELD,
                   "%s:%u: field “model” is missing", path, line_number);
      return FALSE;
    }
  if (strcmp (event, "intent") == 0)
    {
      g_clear_pointer (&record->batch_id, g_free);
      record->intent_id = g_steal_pointer (&intent_id);
      record->time = anot_json_document_get_int (doc, anot_json_document_get_member (doc, 0, "time"), 0);
      g_hash_table_replace (self->intents, record->intent_id, record);
      return TRUE;
    }
  g_hash_table_replace (self->records, record->batch_id, record);
  for (guint i = 0; i < record->custom_ids->len; i++)
    g_hash_table_replace (self->recorded_ids, g_ptr_array_index (record->custom_ids, i), record);
  return TRUE;
}

/**
 * anot_batch_queue_open_state:
 * @self: an #AnotBatchQueue
 * @path: (type filename): the state file, `batches.jsonl` in a run
 *   directory
 * @error: return location for a #GError
 *
 * Reads the batches an earlier queue recorded in @path, if it exists, so
 * calls that are in one of them are answered by polling it rather than
 * by a new batch, and appends this queue's records to it from now on.  A
 * last line cut short (the process was killed while writing it) is
 * ignored.
 *
 * Returns: %TRUE, or %FALSE with @error set (%ANOT_ERROR_IO,
 *   %ANOT_ERROR_PARSE or %ANOT_ERROR_MISSING_FIELD with the file and
 *   line)
 */
gboolean
anot_batch_queue_open_state (AnotBatchQueue  *self,
                             const char      *path,
                             GError         **error)
{
  g_autofree char *contents = NULL;
  g_autoptr(GError) local_error = NULL;
  gsize length;
  int fd;

  g_return_val_if_fail (ANOT_IS_BATCH_QUEUE (self), FALSE);
  g_return_val_if_fail (path != NULL, FALSE);

  if (g_file_get_contents (path, &contents, &length, &local_error))
    {
      g_auto(GStrv) lines = g_strsplit (contents, "\n", -1);
      guint n = g_strv_length (lines);

      for (guint i = 0; i < n; i++)
        {
          g_autoptr(GError) line_error = NULL;

          if (*g_strstrip (lines[i]) == '\0')
            continue;
          if (!state_load_line (self, path, i + 1, lines[i], &line_error))
            {
              /* Only the last line may be incomplete: the kill came while
               * it was written. */
              gboolean last = (i + 1 == n) || (i + 2 == n && *lines[i + 1] == '\0');

              if (last && !g_str_has_suffix (contents, "\n"))
                break;
              g_propagate_error (error, g_steal_pointer (&line_error));
              return FALSE;
            }
        }
    }
  else if (!g_error_matches (local_error, G_FILE_ERROR, G_FILE_ERROR_NOENT))
    {
      g_set_error (error, ANOT_ERROR, ANOT_ERROR_IO, "Cannot read %s: %s", path,
                   local_error->message);
      return FALSE;
    }

  /* The calls of intents never known to have made a batch. */
  {
    GHashTableIter iter;
    gpointer value;

    g_hash_table_iter_init (&iter, self->intents);
    while (g_hash_table_iter_next (&iter, NULL, &value))
      {
        Record *record = value;

        for (guint i = 0; i < record->custom_ids->len; i++)
          g_hash_table_replace (self->intent_ids, g_ptr_array_index (record->custom_ids, i), record);
      }
  }

  fd = g_open (path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd < 0)
    {
      int saved = errno;

      g_set_error (error, ANOT_ERROR, ANOT_ERROR_IO, "Cannot open %s: %s", path,
                   g_strerror (saved));
      return FALSE;
    }
  /* A cut last line gets its own line end, so the next record parses. */
  if (contents != NULL && length > 0 && contents[length - 1] != '\n')
    {
      if (write (fd, "\n", 1) < 0)
        g_debug ("batch state: cannot end the last line of %s", path);
    }
  if (self->state_fd >= 0)
    close (self->state_fd);
  self->state_fd = fd;
  g_free (self->state_path);
  self->state_path = g_strdup (path);
  return TRUE;
}

/* ------------------------------------------------------------------------
 * Resolving calls
 * --------------------------------------------------------------------- */

static AnotCompletion *
completion_copy (AnotCompletion *completion,
                 const char     *batch_id,
                 gint64          added_us,
                 gboolean        paid_by_another)
{
  AnotCompletion *copy = anot_completion_new (anot_completion_get_model (completion),
                                              anot_completion_get_text (completion));

  anot_completion_set_prompt_tokens (copy, anot_completion_get_prompt_tokens (completion));
  anot_completion_set_completion_tokens (copy, anot_completion_get_completion_tokens (completion));
  anot_completion_set_finish_reason (copy, anot_completion_get_finish_reason (completion));
  anot_completion_set_batch_id (copy, batch_id);
  anot_completion_set_latency_ms (copy, (g_get_monotonic_time () - added_us) / 1000.0);
  anot_completion_set_paid_by_another (copy, paid_by_another);
  return copy;
}

/* Whether the answer of @custom_id was given to a caller already, who is
 * charged for the line: the provider bills it once however many identical
 * calls share it.  Marks it given. */
static gboolean
line_paid_already (AnotBatchQueue *self,
                   const char     *custom_id)
{
  if (g_hash_table_add (self->paid, g_strdup (custom_id)))
    return FALSE;
  self->n_calls_shared++;
  return TRUE;
}

/* Ends every waiter of @line with @completion (copied for each: the
 * router sets each caller's role and cost on it; only the first one that
 * takes the line's answer is charged for it) or @error, and forgets the
 * line. */
static void
line_resolve (AnotBatchQueue *self,
              Line           *line,
              AnotCompletion *completion,
              const char     *batch_id,
              const GError   *error)
{
  g_autoptr(GPtrArray) waiters = g_steal_pointer (&line->waiters);

  line->waiters = g_ptr_array_new ();
  for (guint i = 0; i < waiters->len; i++)
    {
      Waiter *waiter = g_ptr_array_index (waiters, i);
      GTask *task = g_steal_pointer (&waiter->task);

      self->n_waiting--;
      if (completion != NULL)
        g_task_return_pointer (task, completion_copy (completion, batch_id, waiter->added_us,
                                                      line_paid_already (self, line->custom_id)),
                               g_object_unref);
      else
        g_task_return_error (task, g_error_copy (error));
      g_object_unref (task);
      waiter_free (waiter);
    }
  g_hash_table_remove (self->lines, line->custom_id);
}

static gboolean
error_is_retryable (const GError *error)
{
  return error->domain == ANOT_ERROR &&
         (error->code == ANOT_ERROR_LLM_RATE_LIMITED || error->code == ANOT_ERROR_LLM_SERVER ||
          error->code == ANOT_ERROR_LLM_TIMEOUT || error->code == ANOT_ERROR_LLM_CONNECTION ||
          error->code == ANOT_ERROR_LLM_PROTOCOL);
}

/* A line the batch did not answer: into the next batch, to direct calls,
 * or failed when it used up its attempts. */
static void
line_retry (AnotBatchQueue *self,
            Line           *line,
            const char     *why)
{
  line->sub = NULL;
  if (line->waiters->len == 0)
    {
      g_hash_table_remove (self->lines, line->custom_id);
      return;
    }
  if (line->attempts >= self->max_attempts)
    {
      g_autoptr(GError) error = g_error_new (ANOT_ERROR, ANOT_ERROR_LLM_BATCH,
                                             "No answer to an LLM call after %u batches: %s",
                                             line->attempts, why);
      line_resolve (self, line, NULL, NULL, error);
      return;
    }
  self->n_lines_retried++;
  if (self->retry_direct)
    {
      g_autoptr(GPtrArray) waiters = g_steal_pointer (&line->waiters);

      line->waiters = g_ptr_array_new ();
      for (guint i = 0; i < waiters->len; i++)
        {
          Waiter *waiter = g_ptr_array_index (waiters, i);

          self->n_waiting--;
          anot_http_backend_complete_direct (line->backend, g_steal_pointer (&waiter->task),
                                             waiter->request_id, line->model, line->body);
          waiter_free (waiter);
        }
      g_hash_table_remove (self->lines, line->custom_id);
      return;
    }
  line_enqueue (self, line);
}

static void
sub_ended (AnotBatchQueue *self,
           Sub            *sub)
{
  AnotBatch *batch = sub->batch;
  const char *batch_id = anot_batch_get_id (batch);
  guint n = anot_batch_get_n_lines (batch);

  state_record_ended (self, sub);
  g_debug ("batch %s ended: %s, %u of %u lines answered", batch_id,
           status_name (anot_batch_get_status (batch)),
           anot_batch_count_lines (batch, ANOT_BATCH_LINE_SUCCEEDED), n);

  for (guint i = 0; i < n; i++)
    {
      const char *custom_id = anot_batch_get_line_custom_id (batch, i);
      Line *line = g_hash_table_lookup (self->lines, custom_id);
      g_autoptr(GError) error = NULL;
      AnotCompletion *completion = NULL;
      AnotBatchLineState state;

      state = anot_batch_get_line_result (batch, custom_id, &completion, &error);
      if (state == ANOT_BATCH_LINE_SUCCEEDED)
        g_hash_table_replace (self->answered, g_strdup (custom_id), g_object_ref (batch));
      if (line == NULL || line->sub != sub)
        continue;

      switch (state)
        {
        case ANOT_BATCH_LINE_SUCCEEDED:
          line_resolve (self, line, completion, batch_id, NULL);
          break;
        case ANOT_BATCH_LINE_ERRORED:
          if (error != NULL && !error_is_retryable (error))
            line_resolve (self, line, NULL, NULL, error);
          else
            line_retry (self, line, error ? error->message : "the line errored");
          break;
        case ANOT_BATCH_LINE_EXPIRED:
          line_retry (self, line, "the line expired");
          break;
        case ANOT_BATCH_LINE_CANCELLED:
          line_retry (self, line, "the line was cancelled");
          break;
        case ANOT_BATCH_LINE_PENDING:
        default:
          {
            g_autofree char *why = g_strdup_printf ("batch %s %s%s%s", batch_id,
                                                    status_name (anot_batch_get_status (batch)),
                                                    anot_batch_get_message (batch) ? ": " : "",
                                                    anot_batch_get_message (batch)
                                                    ? anot_batch_get_message (batch) : "");
            line_retry (self, line, why);
          }
          break;
        }
    }
  g_hash_table_remove (self->subs, batch_id);
}

/* ------------------------------------------------------------------------
 * Polling
 * --------------------------------------------------------------------- */

static void sub_schedule_poll (Sub *sub, guint delay_ms);

typedef struct
{
  AnotBatchQueue *self;
  char *batch_id;
} PollData;

static void
on_polled (GObject      *source,
           GAsyncResult *result,
           gpointer      user_data)
{
  AnotHttpBackend *backend = ANOT_HTTP_BACKEND (source);
  PollData *data = user_data;
  g_autoptr(AnotBatchQueue) self = data->self;
  g_autofree char *batch_id = data->batch_id;
  g_autoptr(GError) error = NULL;
  gboolean ok;
  Sub *sub;

  g_free (data);
  ok = ANOT_HTTP_BACKEND_GET_CLASS (backend)->batch_poll_finish (backend, result, &error);
  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    return;
  if ((sub = g_hash_table_lookup (self->subs, batch_id)) == NULL)
    return;

  if (!ok && g_error_matches (error, ANOT_ERROR, ANOT_ERROR_LLM_BATCH_NOT_FOUND))
    {
      guint n = anot_batch_get_n_lines (sub->batch);
      g_autoptr(GError) lost = NULL;

      /* Once may be a provider's hiccup; twice, the batch is gone (the
       * provider forgot it).  Recorded as lost: its calls fail now
       * (unscored), and the next resume sends them once more rather than
       * polling an id that no longer exists. */
      if (++sub->not_found < 2)
        {
          sub_schedule_poll (sub, sub->poll_ms);
          return;
        }
      state_record_lost (self, sub);
      lost = g_error_new (ANOT_ERROR, ANOT_ERROR_LLM_BATCH,
                          "Batch %s is unknown to %s (HTTP 404 on two polls): recorded as "
                          "lost in %s; a resume sends its calls once more",
                          batch_id, ANOT_HTTP_BACKEND_GET_CLASS (backend)->name,
                          self->state_path ? self->state_path : "the batch state file");
      for (guint i = 0; i < n; i++)
        {
          Line *line = g_hash_table_lookup (self->lines, anot_batch_get_line_custom_id (sub->batch, i));

          if (line != NULL && line->sub == sub)
            line_resolve (self, line, NULL, NULL, lost);
        }
      g_hash_table_remove (self->subs, batch_id);
      return;
    }
  sub->not_found = 0;
  if (!ok)
    {
      sub->poll_failures++;
      g_debug ("batch %s: poll %u failed: %s", batch_id, sub->poll_failures, error->message);
      if (sub->poll_failures >= MAX_POLL_FAILURES || !error_is_retryable (error))
        {
          guint n = anot_batch_get_n_lines (sub->batch);

          g_prefix_error (&error, "Polling batch %s: ", batch_id);
          /* Whatever the provider answered, the lines got no answer: a
           * failure of the batch API, not of the calls. */
          if (!anot_error_is_infrastructure (error))
            {
              error->domain = ANOT_ERROR;
              error->code = ANOT_ERROR_LLM_BATCH;
            }
          for (guint i = 0; i < n; i++)
            {
              Line *line = g_hash_table_lookup (self->lines,
                                                anot_batch_get_line_custom_id (sub->batch, i));

              if (line != NULL && line->sub == sub)
                line_resolve (self, line, NULL, NULL, error);
            }
          g_hash_table_remove (self->subs, batch_id);
          return;
        }
      sub_schedule_poll (sub, sub->poll_ms);
      return;
    }
  sub->poll_failures = 0;
  if (anot_batch_is_ended (sub->batch))
    {
      sub_ended (self, sub);
      return;
    }
  sub->poll_ms = MIN (MAX (sub->poll_ms, 1) * 2, self->poll_max_ms);
  sub_schedule_poll (sub, sub->poll_ms);
}

static gboolean
on_poll_due (gpointer user_data)
{
  Sub *sub = user_data;
  AnotHttpBackendClass *klass = ANOT_HTTP_BACKEND_GET_CLASS (sub->backend);
  PollData *data = g_new0 (PollData, 1);

  g_clear_pointer (&sub->poll_source, g_source_unref);
  data->self = g_object_ref (sub->queue);
  data->batch_id = g_strdup (anot_batch_get_id (sub->batch));
  klass->batch_poll_async (sub->backend, sub->batch, sub->queue->cancellable, on_polled, data);
  return G_SOURCE_REMOVE;
}

static void
sub_schedule_poll (Sub   *sub,
                   guint  delay_ms)
{
  g_clear_pointer (&sub->poll_source, source_destroy_and_unref);
  sub->poll_source = g_timeout_source_new (delay_ms);
  g_source_set_callback (sub->poll_source, on_poll_due, sub, NULL);
  g_source_set_static_name (sub->poll_source, "[anot] batch poll");
  g_source_attach (sub->poll_source, g_main_context_get_thread_default ());
}

/* ------------------------------------------------------------------------
 * Submitting
 * --------------------------------------------------------------------- */

typedef struct
{
  AnotBatchQueue *self;
  Sub *sub;
} SubmitData;

static void
on_submitted (GObject      *source,
              GAsyncResult *result,
              gpointer      user_data)
{
  AnotHttpBackend *backend = ANOT_HTTP_BACKEND (source);
  SubmitData *data = user_data;
  g_autoptr(AnotBatchQueue) self = data->self;
  Sub *sub = data->sub;
  g_autoptr(GError) error = NULL;
  guint n = anot_batch_get_n_lines (sub->batch);

  g_free (data);
  if (!ANOT_HTTP_BACKEND_GET_CLASS (backend)->batch_submit_finish (backend, result, &error) ||
      anot_batch_get_id (sub->batch) == NULL)
    {
      if (error == NULL)
        error = g_error_new (ANOT_ERROR, ANOT_ERROR_LLM_PROTOCOL,
                             "The provider did not name the batch it created");
      if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        {
          g_prefix_error (&error, "Submitting a batch of %u calls: ", n);
          if (!anot_error_is_infrastructure (error))
            {
              error->domain = ANOT_ERROR;
              error->code = ANOT_ERROR_LLM_BATCH;
            }
        }
      for (guint i = 0; i < n; i++)
        {
          Line *line = g_hash_table_lookup (self->lines, anot_batch_get_line_custom_id (sub->batch, i));

          if (line != NULL && line->sub == sub)
            line_resolve (self, line, NULL, NULL, error);
        }
      sub_free (sub);
      return;
    }

  state_record_batch (self, sub, "submitted");
  g_debug ("batch %s submitted: %u lines of %s", anot_batch_get_id (sub->batch), n,
           anot_batch_get_model (sub->batch));
  g_hash_table_replace (self->subs, g_strdup (anot_batch_get_id (sub->batch)), sub);
  sub->poll_ms = self->poll_min_ms;
  sub_schedule_poll (sub, sub->poll_ms);
}

static void
group_close (AnotBatchQueue *self,
             Group          *group)
{
  AnotHttpBackendClass *klass = ANOT_HTTP_BACKEND_GET_CLASS (group->backend);
  SubmitData *data;
  Sub *sub;

  g_hash_table_steal (self->groups, group->key);
  if (group->lines->len == 0)
    {
      group_free (group);
      return;
    }

  sub = g_new0 (Sub, 1);
  sub->queue = self;
  sub->backend = g_object_ref (group->backend);
  sub->batch = anot_batch_new (group->model);
  for (guint i = 0; i < group->lines->len; i++)
    {
      Line *line = g_ptr_array_index (group->lines, i);

      line->group = NULL;
      line->sub = sub;
      line->attempts++;
      anot_batch_add_line (sub->batch, line->custom_id, line->body);
      if (g_hash_table_remove (self->lost_ids, line->custom_id))
        self->n_lines_lost_resent++;
    }
  self->n_submitted++;
  self->n_lines_sent += group->lines->len;
  group_free (group);

  /* Recorded before the batch is created. */
  {
    g_autofree char *intent_id = g_uuid_string_random ();

    anot_batch_set_intent (sub->batch, intent_id, g_get_real_time () / G_USEC_PER_SEC);
    state_record_batch (self, sub, "intent");
  }

  data = g_new0 (SubmitData, 1);
  data->self = g_object_ref (self);
  data->sub = sub;
  klass->batch_submit_async (sub->backend, sub->batch, self->cancellable, on_submitted, data);
}

static gboolean
on_window_due (gpointer user_data)
{
  Group *group = user_data;

  g_clear_pointer (&group->window_source, g_source_unref);
  group_close (group->queue, group);
  return G_SOURCE_REMOVE;
}

static gboolean
on_settled (gpointer user_data)
{
  AnotBatchQueue *self = user_data;

  g_clear_pointer (&self->settle_source, g_source_unref);
  anot_batch_queue_flush (self);
  return G_SOURCE_REMOVE;
}

/**
 * anot_batch_queue_flush:
 * @self: an #AnotBatchQueue
 *
 * Submits every open batch now.
 */
void
anot_batch_queue_flush (AnotBatchQueue *self)
{
  GList *groups;

  g_return_if_fail (ANOT_IS_BATCH_QUEUE (self));

  g_clear_pointer (&self->settle_source, source_destroy_and_unref);
  groups = g_hash_table_get_values (self->groups);
  for (GList *l = groups; l != NULL; l = l->next)
    group_close (self, l->data);
  g_list_free (groups);
}

/* What one batch of @backend may hold: the provider's limits and this
 * queue's, the lower; bytes leave room for the request around the lines
 * (the multipart form, `{"requests":[...]}`). */
#define BATCH_WRAPPER_BYTES 4096

static void
batch_limits (AnotBatchQueue  *self,
              AnotHttpBackend *backend,
              guint64         *max_bytes,
              guint           *max_lines)
{
  AnotHttpBackendClass *klass = ANOT_HTTP_BACKEND_GET_CLASS (backend);
  guint64 bytes = klass->batch_max_bytes;

  if (self->max_bytes > 0 && (bytes == 0 || self->max_bytes < bytes))
    bytes = self->max_bytes;
  *max_bytes = bytes == 0 ? G_MAXUINT64 : bytes > BATCH_WRAPPER_BYTES ? bytes - BATCH_WRAPPER_BYTES : 1;
  *max_lines = self->max_size;
  if (klass->batch_max_lines > 0 && klass->batch_max_lines < *max_lines)
    *max_lines = klass->batch_max_lines;
}

/* The size of @body's line in a batch of @backend. */
static guint64
line_bytes (AnotHttpBackend *backend,
            GBytes          *body)
{
  return g_bytes_get_size (body) + ANOT_HTTP_BACKEND_GET_CLASS (backend)->batch_line_overhead;
}

/* Puts @line into the open batch of its backend and model. */
static void
line_enqueue (AnotBatchQueue *self,
              Line           *line)
{
  g_autofree char *key = g_strdup_printf ("%p\n%s", (void *) line->backend, line->model);
  Group *group = g_hash_table_lookup (self->groups, key);
  guint64 size = line_bytes (line->backend, line->body);
  guint64 max_bytes;
  guint max_lines;

  /* Within the provider's limits: a line that does not fit closes the
   * batch it would have joined. */
  batch_limits (self, line->backend, &max_bytes, &max_lines);
  if (group != NULL && group->lines->len > 0 && group->bytes + size > max_bytes)
    {
      group_close (self, group);
      group = NULL;
    }

  if (group == NULL)
    {
      group = g_new0 (Group, 1);
      group->queue = self;
      group->key = g_steal_pointer (&key);
      group->backend = g_object_ref (line->backend);
      group->model = g_strdup (line->model);
      group->lines = g_ptr_array_new ();
      g_hash_table_insert (self->groups, group->key, group);
      if (self->window_ms > 0)
        {
          group->window_source = g_timeout_source_new (self->window_ms);
          g_source_set_callback (group->window_source, on_window_due, group, NULL);
          g_source_set_static_name (group->window_source, "[anot] batch window");
          g_source_attach (group->window_source, g_main_context_get_thread_default ());
        }
    }
  line->group = group;
  g_ptr_array_add (group->lines, line);
  group->bytes += size;

  if (group->lines->len >= max_lines || group->bytes >= max_bytes)
    {
      group_close (self, group);
      return;
    }

  g_clear_pointer (&self->settle_source, source_destroy_and_unref);
  self->settle_source = g_timeout_source_new (self->settle_ms);
  g_source_set_callback (self->settle_source, on_settled, self, NULL);
  g_source_set_static_name (self->settle_source, "[anot] batch settle");
  g_source_attach (self->settle_source, g_main_context_get_thread_default ());
}

/* ------------------------------------------------------------------------
 * Adding calls
 * --------------------------------------------------------------------- */

static gboolean
on_waiter_cancelled (GCancellable *cancellable,
                     gpointer      user_data)
{
  Waiter *waiter = user_data;
  AnotBatchQueue *self = waiter->queue;
  Line *line = waiter->line;
  GTask *task = g_steal_pointer (&waiter->task);

  g_clear_pointer (&waiter->cancel_source, g_source_unref);
  g_ptr_array_remove (line->waiters, waiter);
  self->n_waiting--;
  waiter_free (waiter);
  g_task_return_new_error (task, G_IO_ERROR, G_IO_ERROR_CANCELLED, "The LLM call was cancelled");
  g_object_unref (task);

  /* A line no one waits for leaves its open batch; once submitted it is
   * paid anyway and its answer is kept for a later identical call. */
  if (line->waiters->len == 0 && line->group != NULL)
    {
      line->group->bytes -= MIN (line->group->bytes, line_bytes (line->backend, line->body));
      g_ptr_array_remove (line->group->lines, line);
      g_hash_table_remove (self->lines, line->custom_id);
    }
  return G_SOURCE_REMOVE;
}

static char *make_custom_id_at (AnotHttpBackend *backend, const char *base_url, GBytes *body);

static char *
make_custom_id (AnotHttpBackend *backend,
                GBytes          *body)
{
  return make_custom_id_at (backend, anot_http_backend_get_base_url (backend), body);
}

/* The custom id the call would have had sent through @base_url. */
static char *
make_custom_id_at (AnotHttpBackend *backend,
                   const char      *base_url,
                   GBytes          *body)
{
  AnotHttpBackendClass *klass = ANOT_HTTP_BACKEND_GET_CLASS (backend);
  g_autoptr(GChecksum) checksum = g_checksum_new (G_CHECKSUM_SHA256);
  gsize size;
  const guint8 *data = g_bytes_get_data (body, &size);

  g_checksum_update (checksum, (const guchar *) (klass->name ? klass->name : ""), -1);
  g_checksum_update (checksum, (const guchar *) "\n", 1);
  g_checksum_update (checksum, (const guchar *) (base_url ? base_url : ""), -1);
  g_checksum_update (checksum, (const guchar *) "\n", 1);
  g_checksum_update (checksum, data, size);
  /* 160 bits of the digest: `anot-` + 40 hex digits fit both APIs'
   * 64-character limit. */
  return g_strdup_printf ("anot-%.40s", g_checksum_get_string (checksum));
}

/* The submitted batch an earlier process recorded for @custom_id, polled
 * again; NULL when there is none for this backend. */
static Sub *
sub_from_record (AnotBatchQueue  *self,
                 AnotHttpBackend *backend,
                 const char      *custom_id)
{
  AnotHttpBackendClass *klass = ANOT_HTTP_BACKEND_GET_CLASS (backend);
  Record *record = g_hash_table_lookup (self->recorded_ids, custom_id);
  Sub *sub;

  if (record == NULL)
    return NULL;
  if ((sub = g_hash_table_lookup (self->subs, record->batch_id)) != NULL)
    return sub;
  if (g_strcmp0 (record->backend, klass->name) != 0 ||
      g_strcmp0 (record->base_url, anot_http_backend_get_base_url (backend)) != 0)
    return NULL;

  sub = g_new0 (Sub, 1);
  sub->queue = self;
  sub->backend = g_object_ref (backend);
  sub->batch = anot_batch_new (record->model);
  sub->resumed = TRUE;
  anot_batch_set_id (sub->batch, record->batch_id);
  anot_batch_set_status (sub->batch, ANOT_BATCH_STATUS_IN_PROGRESS);
  for (guint i = 0; i < record->custom_ids->len; i++)
    anot_batch_add_line (sub->batch, g_ptr_array_index (record->custom_ids, i), NULL);
  g_hash_table_replace (self->subs, g_strdup (record->batch_id), sub);
  self->n_resumed++;
  g_debug ("batch %s: recorded by an earlier run, polled again", record->batch_id);
  /* The first poll at once: the batch may have ended long ago. */
  sub->poll_ms = self->poll_min_ms;
  sub_schedule_poll (sub, 0);
  return sub;
}

typedef struct
{
  AnotBatchQueue *self;
  Record *record;
  AnotBatch *batch;
} FindData;

static void
on_intent_searched (GObject      *source,
                    GAsyncResult *result,
                    gpointer      user_data)
{
  AnotHttpBackend *backend = ANOT_HTTP_BACKEND (source);
  FindData *data = user_data;
  g_autoptr(AnotBatchQueue) self = data->self;
  g_autoptr(AnotBatch) batch = data->batch;
  Record *record = data->record;
  g_autoptr(GPtrArray) waiting = g_steal_pointer (&record->waiting);
  g_autoptr(GError) error = NULL;
  const char *found = NULL;

  g_free (data);
  if (ANOT_HTTP_BACKEND_GET_CLASS (backend)->batch_find_finish (backend, result, &error))
    found = anot_batch_get_id (batch);
  else if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    return;
  else
    {
      g_autoptr(GError) unknown = NULL;

      /* The batch may exist and be paid for: its calls are not sent
       * again.  They fail (unscored), the intent stays recorded, and the
       * next resume asks again. */
      record->searching = FALSE;
      unknown = g_error_new (ANOT_ERROR, ANOT_ERROR_LLM_BATCH,
                             "Cannot ask %s whether an interrupted run created batch %s: %s; "
                             "its calls are not sent again (they may be paid already): a resume "
                             "asks again", ANOT_HTTP_BACKEND_GET_CLASS (backend)->name,
                             record->intent_id, error->message);
      for (guint i = 0; waiting != NULL && i < waiting->len; i++)
        {
          Line *line = g_ptr_array_index (waiting, i);

          if (line->waiters->len == 0)
            g_hash_table_remove (self->lines, line->custom_id);
          else
            line_resolve (self, line, NULL, NULL, unknown);
        }
      return;
    }

  for (guint i = 0; i < record->custom_ids->len; i++)
    g_hash_table_remove (self->intent_ids, g_ptr_array_index (record->custom_ids, i));
  g_hash_table_steal (self->intents, record->intent_id);

  if (found != NULL)
    {
      Sub *sub;

      /* A batch like any recorded one: polled, not paid again. */
      g_debug ("batch %s: created before the interruption (intent %s), polled", found, record->intent_id);
      record->batch_id = g_strdup (found);
      g_hash_table_replace (self->records, record->batch_id, record);
      for (guint i = 0; i < record->custom_ids->len; i++)
        g_hash_table_replace (self->recorded_ids, g_ptr_array_index (record->custom_ids, i), record);
      sub = sub_from_record (self, backend, g_ptr_array_index (record->custom_ids, 0));
      if (sub != NULL)
        {
          anot_batch_set_intent (sub->batch, record->intent_id, record->time);
          state_record_batch (self, sub, "submitted");
        }
    }

  for (guint i = 0; waiting != NULL && i < waiting->len; i++)
    {
      Line *line = g_ptr_array_index (waiting, i);

      if (line->waiters->len == 0)
        g_hash_table_remove (self->lines, line->custom_id);
      else if (found != NULL && (line->sub = sub_from_record (self, backend, line->custom_id)) != NULL)
        line->attempts = 1;
      else
        line_enqueue (self, line);
    }
  if (found == NULL)
    record_free (record);
}

/* Whether @line is a call of an intent recorded by an earlier process
 * that never learnt whether its batch was created: then it waits while
 * the provider is asked (once per intent), and TRUE. */
static gboolean
line_waits_for_intent (AnotBatchQueue  *self,
                       AnotHttpBackend *backend,
                       Line            *line)
{
  AnotHttpBackendClass *klass = ANOT_HTTP_BACKEND_GET_CLASS (backend);
  Record *record = g_hash_table_lookup (self->intent_ids, line->custom_id);
  FindData *data;

  if (record == NULL || klass->batch_find_async == NULL ||
      g_strcmp0 (record->backend, klass->name) != 0 ||
      g_strcmp0 (record->base_url, anot_http_backend_get_base_url (backend)) != 0)
    return FALSE;
  if (record->waiting == NULL)
    record->waiting = g_ptr_array_new ();
  g_ptr_array_add (record->waiting, line);
  if (record->searching)
    return TRUE;

  record->searching = TRUE;
  data = g_new0 (FindData, 1);
  data->self = g_object_ref (self);
  data->record = record;
  data->batch = anot_batch_new (record->model);
  anot_batch_set_intent (data->batch, record->intent_id, record->time);
  for (guint i = 0; i < record->custom_ids->len; i++)
    anot_batch_add_line (data->batch, g_ptr_array_index (record->custom_ids, i), NULL);
  klass->batch_find_async (backend, data->batch, self->cancellable, on_intent_searched, data);
  return TRUE;
}

/* Whether an earlier process recorded a batch with @custom_id for
 * @backend (its line was within the limits then). */
static gboolean
sub_from_record_exists (AnotBatchQueue  *self,
                        AnotHttpBackend *backend,
                        const char      *custom_id)
{
  Record *record = g_hash_table_lookup (self->recorded_ids, custom_id);

  return record != NULL && g_strcmp0 (record->backend, ANOT_HTTP_BACKEND_GET_CLASS (backend)->name) == 0;
}

/* An error naming the base URL through which an earlier run recorded a
 * batch (or the intent of one) holding this call for @backend's provider,
 * when it is not @backend's base URL; NULL when there is none. */
static GError *
recorded_elsewhere (AnotBatchQueue  *self,
                    AnotHttpBackend *backend,
                    GBytes          *body)
{
  AnotHttpBackendClass *klass = ANOT_HTTP_BACKEND_GET_CLASS (backend);
  const char *base_url = anot_http_backend_get_base_url (backend);
  GHashTable *tables[] = { self->records, self->intents };
  g_autoptr(GHashTable) tried = g_hash_table_new (g_str_hash, g_str_equal);

  for (guint t = 0; t < G_N_ELEMENTS (tables); t++)
    {
      GHashTableIter iter;
      gpointer value;

      g_hash_table_iter_init (&iter, tables[t]);
      while (g_hash_table_iter_next (&iter, NULL, &value))
        {
          Record *record = value;
          g_autofree char *id = NULL;
          Record *holder;

          if (g_strcmp0 (record->backend, klass->name) != 0 || record->base_url == NULL ||
              g_strcmp0 (record->base_url, base_url) == 0 ||
              !g_hash_table_add (tried, record->base_url))
            continue;
          id = make_custom_id_at (backend, record->base_url, body);
          holder = g_hash_table_lookup (self->recorded_ids, id);
          if (holder == NULL)
            holder = g_hash_table_lookup (self->intent_ids, id);
          if (holder != NULL)
            return g_error_new (ANOT_ERROR, ANOT_ERROR_CONFIG,
                                "An interrupted run sent this call to %s in batch %s through %s; "
                                "it is not sent again through %s, where it would be paid twice. "
                                "Resume with --base-url %s (batches are the provider's: the "
                                "run polls it there)",
                                klass->name, holder->batch_id ? holder->batch_id : holder->intent_id,
                                holder->base_url, base_url ? base_url : "(none)", holder->base_url);
        }
    }
  return NULL;
}

void
anot_batch_queue_add (AnotBatchQueue  *self,
                      AnotHttpBackend *backend,
                      const char      *model,
                      GBytes          *body,
                      const char      *request_id,
                      GTask           *task)
{
  g_autofree char *custom_id = make_custom_id (backend, body);
  GCancellable *cancellable = g_task_get_cancellable (task);
  AnotBatch *answered;
  Waiter *waiter;
  Line *line;

  /* Answered already, by this run's batches or a recorded one. */
  answered = g_hash_table_lookup (self->answered, custom_id);
  if (answered != NULL)
    {
      AnotCompletion *completion = NULL;

      anot_batch_get_line_result (answered, custom_id, &completion, NULL);
      g_task_return_pointer (task, completion_copy (completion, anot_batch_get_id (answered),
                                                    g_get_monotonic_time (),
                                                    line_paid_already (self, custom_id)),
                             g_object_unref);
      g_object_unref (task);
      return;
    }

  line = g_hash_table_lookup (self->lines, custom_id);
  if (line == NULL && !sub_from_record_exists (self, backend, custom_id) &&
      !g_hash_table_contains (self->intent_ids, custom_id))
    {
      g_autoptr(GError) moved = recorded_elsewhere (self, backend, body);

      /* An earlier run sent this call through another base URL (a resume
       * with --base-url): the provider may hold and bill it there, so it
       * is not sent again through this one. */
      if (moved != NULL)
        {
          g_task_return_error (task, g_steal_pointer (&moved));
          g_object_unref (task);
          return;
        }
    }
  if (line == NULL && sub_from_record_exists (self, backend, custom_id) == FALSE)
    {
      guint64 max_bytes;
      guint max_lines;

      batch_limits (self, backend, &max_bytes, &max_lines);
      if (line_bytes (backend, body) > max_bytes)
        {
          g_autofree char *size = g_format_size_full (line_bytes (backend, body), G_FORMAT_SIZE_LONG_FORMAT);
          g_autofree char *limit = g_format_size_full (max_bytes + BATCH_WRAPPER_BYTES, G_FORMAT_SIZE_LONG_FORMAT);

          g_task_return_new_error (task, ANOT_ERROR, ANOT_ERROR_LLM_BAD_REQUEST,
                                   "The call is %s as a line of a %s batch, more than one "
                                   "batch may hold (%s; --batch-max-bytes): it cannot be "
                                   "sent in batch mode", size,
                                   ANOT_HTTP_BACKEND_GET_CLASS (backend)->name
                                   ? ANOT_HTTP_BACKEND_GET_CLASS (backend)->name : "provider", limit);
          g_object_unref (task);
          return;
        }
    }
  if (line == NULL)
    {
      line = g_new0 (Line, 1);
      line->custom_id = g_steal_pointer (&custom_id);
      line->backend = g_object_ref (backend);
      line->model = g_strdup (model);
      line->body = g_bytes_ref (body);
      line->waiters = g_ptr_array_new ();
      g_hash_table_insert (self->lines, line->custom_id, line);
      line->sub = sub_from_record (self, backend, line->custom_id);
      if (line->sub != NULL)
        line->attempts = 1;
      else if (!line_waits_for_intent (self, backend, line))
        line_enqueue (self, line);
    }

  waiter = g_new0 (Waiter, 1);
  waiter->queue = self;
  waiter->line = line;
  waiter->task = task;
  waiter->added_us = g_get_monotonic_time ();
  waiter->request_id = g_strdup (request_id);
  g_ptr_array_add (line->waiters, waiter);
  self->n_waiting++;

  if (cancellable != NULL)
    {
      waiter->cancel_source = g_cancellable_source_new (cancellable);
      g_source_set_callback (waiter->cancel_source,
                             (GSourceFunc) (void (*) (void)) on_waiter_cancelled, waiter, NULL);
      g_source_set_static_name (waiter->cancel_source, "[anot] batched call cancelled");
      g_source_attach (waiter->cancel_source, g_task_get_context (task));
    }
}

/**
 * anot_batch_queue_get_n_submitted:
 * @self: an #AnotBatchQueue
 *
 * Returns: the batches this queue submitted
 */
guint
anot_batch_queue_get_n_submitted (AnotBatchQueue *self)
{
  g_return_val_if_fail (ANOT_IS_BATCH_QUEUE (self), 0);
  return self->n_submitted;
}

/**
 * anot_batch_queue_get_n_resumed:
 * @self: an #AnotBatchQueue
 *
 * Returns: the batches recorded by an earlier queue that this one polled
 *   again instead of submitting their calls
 */
guint
anot_batch_queue_get_n_resumed (AnotBatchQueue *self)
{
  g_return_val_if_fail (ANOT_IS_BATCH_QUEUE (self), 0);
  return self->n_resumed;
}

/**
 * anot_batch_queue_get_n_waiting:
 * @self: an #AnotBatchQueue
 *
 * Returns: the calls waiting for an answer
 */
guint
anot_batch_queue_get_n_waiting (AnotBatchQueue *self)
{
  g_return_val_if_fail (ANOT_IS_BATCH_QUEUE (self), 0);
  return self->n_waiting;
}

/**
 * anot_batch_queue_get_n_lines_sent:
 * @self: an #AnotBatchQueue
 *
 * Returns: the lines of every batch this queue submitted, retries
 *   included
 */
guint64
anot_batch_queue_get_n_lines_sent (AnotBatchQueue *self)
{
  g_return_val_if_fail (ANOT_IS_BATCH_QUEUE (self), 0);
  return self->n_lines_sent;
}

/**
 * anot_batch_queue_get_n_lines_lost_resent:
 * @self: an #AnotBatchQueue
 *
 * Returns: the lines sent again because the batch an earlier run sent
 *   them in was lost (the provider answered 404 on two polls of it): paid
 *   twice if the provider had answered them before it forgot the batch
 */
guint64
anot_batch_queue_get_n_lines_lost_resent (AnotBatchQueue *self)
{
  g_return_val_if_fail (ANOT_IS_BATCH_QUEUE (self), 0);
  return self->n_lines_lost_resent;
}

/**
 * anot_batch_queue_get_n_lines_retried:
 * @self: an #AnotBatchQueue
 *
 * Returns: the lines a batch did not answer that were tried again
 */
guint64
anot_batch_queue_get_n_lines_retried (AnotBatchQueue *self)
{
  g_return_val_if_fail (ANOT_IS_BATCH_QUEUE (self), 0);
  return self->n_lines_retried;
}

/**
 * anot_batch_queue_get_n_calls_shared:
 * @self: an #AnotBatchQueue
 *
 * Identical calls share one line (its `custom_id` is a digest of the
 * call), which the provider bills once: the first call that takes the
 * line's answer is charged for it, these others got it at no cost.
 *
 * Returns: the calls answered by a line another call was charged for
 */
guint64
anot_batch_queue_get_n_calls_shared (AnotBatchQueue *self)
{
  g_return_val_if_fail (ANOT_IS_BATCH_QUEUE (self), 0);
  return self->n_calls_shared;
}

/**
 * anot_batch_queue_get_n_running:
 * @self: an #AnotBatchQueue
 *
 * The batches submitted (or recorded by an interrupted run and polled)
 * that have not ended: when a run stops with some (requests that passed
 * their deadline, Ctrl-C), the provider still answers and bills their
 * lines, and a resume that opens the same state file polls them and takes
 * the answers.
 *
 * Returns: the batches being polled
 */
guint
anot_batch_queue_get_n_running (AnotBatchQueue *self)
{
  g_return_val_if_fail (ANOT_IS_BATCH_QUEUE (self), 0);
  return g_hash_table_size (self->subs);
}

/**
 * anot_batch_queue_get_n_lines_running:
 * @self: an #AnotBatchQueue
 *
 * Returns: the lines of the batches anot_batch_queue_get_n_running()
 *   counts
 */
guint64
anot_batch_queue_get_n_lines_running (AnotBatchQueue *self)
{
  GHashTableIter iter;
  gpointer value;
  guint64 n = 0;

  g_return_val_if_fail (ANOT_IS_BATCH_QUEUE (self), 0);
  g_hash_table_iter_init (&iter, self->subs);
  while (g_hash_table_iter_next (&iter, NULL, &value))
    n += anot_batch_get_n_lines (((Sub *) value)->batch);
  return n;
}
