/* anot-dataset.c
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "anot-dataset.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <nettle/sha2.h>

#include "anot-dataset-private.h"
#include "anot-error.h"
#include "anot-json-private.h"
#include "anot-text-private.h"

/**
 * AnotDataset:
 *
 * A benchmark: candidate items with their reviews, requests with their gold
 * items, and the side data the validator needs (reviewer names, the friend
 * graph, cached per-review LLM judgements).
 *
 * anot_dataset_load() reads a benchmark directory:
 *
 * - `restaurants.jsonl`: one item a line; the index of an item is its
 *   0-based position among the records (blank lines are skipped);
 * - `reviews.jsonl`: one review a line, grouped by `business_id` in file
 *   order;
 * - `user_mapping.json` (optional): `friend_graph` and the reviewer names of
 *   `review_assignments`;
 * - `requests.jsonl`: one request a line, kept in file order;
 * - `groundtruth.jsonl` (optional): must agree with the gold items of the
 *   requests and cover every request;
 * - `judgement_cache.json` (optional): cached judgements keyed
 *   `"<review_id>:<aspect>"`.
 *
 * The #AnotDataset:checksum identifies the version of the data in results:
 * the SHA-256 of the files above concatenated in that order, skipping
 * absent optional files, i.e. `cat restaurants.jsonl reviews.jsonl
 * user_mapping.json requests.jsonl groundtruth.jsonl judgement_cache.json |
 * sha256sum`.
 *
 * Loading parses `restaurants.jsonl` and `reviews.jsonl` in worker threads
 * (one per processor) and computes the checksum in another; the result and
 * the errors are the same as for a sequential read.  Only the fields of a
 * review are kept, not its JSON; an item keeps the text of its line and
 * parses it again when anot_item_get_record() is first called, so a loaded
 * benchmark takes about as much memory as its files.
 *
 * A dataset is immutable once loaded and may be shared between threads.
 */
struct _AnotDataset
{
  GObject parent_instance;

  char       *name;
  char       *path;
  char       *checksum;

  AnotStore  *store;
  AnotDatasetLink *link;        /* shared weakly by the items */
  GPtrArray  *items;
  GHashTable *items_by_id;      /* item id -> AnotItem */
  GHashTable *reviews_by_id;    /* review id -> AnotReview */
  guint       n_reviews;
  GPtrArray  *requests;
  GHashTable *requests_by_id;   /* request id -> AnotRequest */
  GHashTable *friend_graph;     /* name -> NULL-terminated names, in the store */
  GHashTable *judgements;       /* "<review_id>:<aspect>" -> AnotJudgement */
  AnotDomain *domain;
  char       *items_file;       /* "restaurants.jsonl" or "items.jsonl" */
  GPtrArray  *warnings;         /* NULL-terminated messages */
};

G_DEFINE_FINAL_TYPE (AnotDataset, anot_dataset, G_TYPE_OBJECT)

enum {
  PROP_0,
  PROP_NAME,
  PROP_PATH,
  PROP_CHECKSUM,
  PROP_N_ITEMS,
  PROP_N_REVIEWS,
  PROP_N_REQUESTS,
  PROP_DOMAIN,
  PROP_ITEMS_FILE,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

static const char * const empty_strv[] = { NULL };

static void
anot_dataset_finalize (GObject *object)
{
  AnotDataset *self = ANOT_DATASET (object);

  g_clear_pointer (&self->name, g_free);
  g_clear_pointer (&self->path, g_free);
  g_clear_pointer (&self->checksum, g_free);
  /* The tables only borrow from the objects and the store. */
  g_clear_pointer (&self->items_by_id, g_hash_table_unref);
  g_clear_pointer (&self->reviews_by_id, g_hash_table_unref);
  g_clear_pointer (&self->requests_by_id, g_hash_table_unref);
  g_clear_pointer (&self->friend_graph, g_hash_table_unref);
  g_clear_pointer (&self->judgements, g_hash_table_unref);
  g_clear_pointer (&self->items, g_ptr_array_unref);
  g_clear_pointer (&self->requests, g_ptr_array_unref);
  g_clear_pointer (&self->store, _anot_store_unref);
  g_clear_pointer (&self->link, _anot_dataset_link_unref);
  g_clear_object (&self->domain);
  g_clear_pointer (&self->items_file, g_free);
  g_clear_pointer (&self->warnings, g_ptr_array_unref);

  G_OBJECT_CLASS (anot_dataset_parent_class)->finalize (object);
}

static void
anot_dataset_get_property (GObject    *object,
                           guint       prop_id,
                           GValue     *value,
                           GParamSpec *pspec)
{
  AnotDataset *self = ANOT_DATASET (object);

  switch (prop_id)
    {
    case PROP_NAME:
      g_value_set_string (value, self->name);
      break;
    case PROP_PATH:
      g_value_set_string (value, self->path);
      break;
    case PROP_CHECKSUM:
      g_value_set_string (value, self->checksum);
      break;
    case PROP_N_ITEMS:
      g_value_set_uint (value, self->items->len);
      break;
    case PROP_N_REVIEWS:
      g_value_set_uint (value, self->n_reviews);
      break;
    case PROP_N_REQUESTS:
      g_value_set_uint (value, self->requests->len);
      break;
    case PROP_DOMAIN:
      g_value_set_object (value, self->domain);
      break;
    case PROP_ITEMS_FILE:
      g_value_set_string (value, self->items_file);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
anot_dataset_class_init (AnotDatasetClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  const GParamFlags flags = G_PARAM_READABLE | G_PARAM_STATIC_STRINGS;

  object_class->finalize = anot_dataset_finalize;
  object_class->get_property = anot_dataset_get_property;

  /**
   * AnotDataset:name:
   *
   * The name of the dataset: the base name of its directory.
   */
  properties[PROP_NAME] = g_param_spec_string ("name", NULL, NULL, NULL, flags);
  /**
   * AnotDataset:path:
   *
   * The absolute path of the dataset directory.
   */
  properties[PROP_PATH] = g_param_spec_string ("path", NULL, NULL, NULL, flags);
  /**
   * AnotDataset:checksum:
   *
   * The SHA-256 (lowercase hex) of the files read, in a fixed order; see
   * #AnotDataset.
   */
  properties[PROP_CHECKSUM] = g_param_spec_string ("checksum", NULL, NULL, NULL, flags);
  /**
   * AnotDataset:n-items:
   *
   * The number of items.
   */
  properties[PROP_N_ITEMS] = g_param_spec_uint ("n-items", NULL, NULL,
                                                0, G_MAXUINT, 0, flags);
  /**
   * AnotDataset:n-reviews:
   *
   * The number of reviews, over all items.
   */
  properties[PROP_N_REVIEWS] = g_param_spec_uint ("n-reviews", NULL, NULL,
                                                  0, G_MAXUINT, 0, flags);
  /**
   * AnotDataset:n-requests:
   *
   * The number of requests.
   */
  properties[PROP_N_REQUESTS] = g_param_spec_uint ("n-requests", NULL, NULL,
                                                   0, G_MAXUINT, 0, flags);
  /**
   * AnotDataset:domain:
   *
   * What the items are (`meta.json`'s `domain`); a benchmark that declares
   * none is about restaurants (#AnotDomain:is-default).
   */
  properties[PROP_DOMAIN] = g_param_spec_object ("domain", NULL, NULL,
                                                 ANOT_TYPE_DOMAIN, flags);
  /**
   * AnotDataset:items-file:
   *
   * The file the items were read from: `restaurants.jsonl` (the original
   * name) or `items.jsonl`.
   */
  properties[PROP_ITEMS_FILE] = g_param_spec_string ("items-file", NULL, NULL, NULL, flags);

  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
anot_dataset_init (AnotDataset *self)
{
  /* Review strings are the bulk of a dataset: big blocks keep the
   * per-block waste and the number of allocations low. */
  self->store = _anot_store_new (1 << 20);
  self->link = _anot_dataset_link_new (self);
  self->items = g_ptr_array_new_with_free_func (g_object_unref);
  self->items_by_id = g_hash_table_new (g_str_hash, g_str_equal);
  self->reviews_by_id = g_hash_table_new (g_str_hash, g_str_equal);
  self->requests = g_ptr_array_new_with_free_func (g_object_unref);
  self->requests_by_id = g_hash_table_new (g_str_hash, g_str_equal);
  self->friend_graph = g_hash_table_new (g_str_hash, g_str_equal);
  self->judgements = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  self->domain = anot_domain_new_default ();
  self->items_file = g_strdup ("restaurants.jsonl");
  self->warnings = g_ptr_array_new_with_free_func (g_free);
  g_ptr_array_add (self->warnings, NULL);
}

G_GNUC_PRINTF (2, 3)
static void
add_warning (AnotDataset *self,
             const char  *format,
             ...)
{
  va_list args;

  va_start (args, format);
  g_ptr_array_index (self->warnings, self->warnings->len - 1) = g_strdup_vprintf (format, args);
  va_end (args);
  g_ptr_array_add (self->warnings, NULL);
}

/* ------------------------------------------------------------------------ *
 * Field access.  Errors read `field “<name>”: ...`; the caller prefixes the
 * file and line.  JSON null counts as absent for optional fields.
 * ------------------------------------------------------------------------ */

static gboolean
field_missing (const char  *display,
               GError     **error)
{
  g_set_error (error, ANOT_ERROR, ANOT_ERROR_MISSING_FIELD,
               "field “%s”: missing", display);
  return FALSE;
}

static gboolean
field_invalid (const char  *display,
               const char  *expected,
               GError     **error)
{
  g_set_error (error, ANOT_ERROR, ANOT_ERROR_INVALID_FIELD,
               "field “%s”: expected %s", display, expected);
  return FALSE;
}

/* The member @field of @obj, its last value if repeated (as json-glib,
 * which the loader used to build trees with, reads it). */
static int
member (AnotJsonDocument *doc,
        int               obj,
        const char       *field)
{
  return _anot_json_document_get_last_member (doc, obj, field, strlen (field));
}

/* Sets *@out to the string member's index, or -1 if it is absent (or null
 * and not @required). */
static gboolean
read_string (AnotJsonDocument  *doc,
             int                value,
             const char        *display,
             gboolean           required,
             int               *out,
             GError           **error)
{
  AnotJsonKind kind = anot_json_document_get_kind (doc, value);

  *out = -1;
  if (value < 0 || (!required && kind == ANOT_JSON_KIND_NULL))
    return required ? field_missing (display, error) : TRUE;

  if (kind == ANOT_JSON_KIND_STRING)
    {
      *out = value;
      return TRUE;
    }

  return field_invalid (display, "a string", error);
}

static gboolean
read_id (AnotJsonDocument  *doc,
         int                value,
         const char        *field,
         int               *out,
         GError           **error)
{
  if (!read_string (doc, value, field, TRUE, out, error))
    return FALSE;

  /* No escape stands for nothing: an empty text is an empty string. */
  if (_anot_json_document_get_raw_length (doc, *out) == 0)
    {
      g_set_error (error, ANOT_ERROR, ANOT_ERROR_INVALID_FIELD,
                   "field “%s”: empty id", field);
      return FALSE;
    }

  return TRUE;
}

static gboolean
read_number (AnotJsonDocument  *doc,
             int                value,
             const char        *display,
             gboolean           required,
             double            *out,
             gboolean          *present,
             GError           **error)
{
  AnotJsonKind kind = anot_json_document_get_kind (doc, value);

  *present = FALSE;
  if (value < 0 || (!required && kind == ANOT_JSON_KIND_NULL))
    return required ? field_missing (display, error) : TRUE;

  if (kind == ANOT_JSON_KIND_INTEGER || kind == ANOT_JSON_KIND_DOUBLE)
    {
      *out = anot_json_document_get_double (doc, value, 0);
      *present = TRUE;
      return TRUE;
    }

  return field_invalid (display, "a number", error);
}

static gboolean
read_int (AnotJsonDocument  *doc,
          int                value,
          const char        *display,
          gboolean           required,
          gint64            *out,
          gboolean          *present,
          GError           **error)
{
  AnotJsonKind kind = anot_json_document_get_kind (doc, value);

  *present = FALSE;
  if (value < 0 || (!required && kind == ANOT_JSON_KIND_NULL))
    return required ? field_missing (display, error) : TRUE;

  if (kind == ANOT_JSON_KIND_INTEGER)
    {
      *out = anot_json_document_get_int (doc, value, 0);
      *present = TRUE;
      return TRUE;
    }

  /* A writer that only has doubles (3.0) still means an integer. */
  if (kind == ANOT_JSON_KIND_DOUBLE)
    {
      double d = anot_json_document_get_double (doc, value, 0);

      if (d == (double) (gint64) d)
        {
          *out = (gint64) d;
          *present = TRUE;
          return TRUE;
        }
    }

  return field_invalid (display, "an integer", error);
}

/* ------------------------------------------------------------------------ *
 * Reading files
 * ------------------------------------------------------------------------ */

/* SHA-256 costs about as much as a third of the JSON parsing, so a second
 * thread hashes the bytes while the loader parses them, with Nettle's
 * SHA-256, which uses the processor's SHA instructions where there are
 * some (three times GChecksum's speed on the benchmark machine).  The reader hands
 * over each block it reads (a slice of a reference-counted buffer) and
 * never writes to it again; the number of blocks in flight is bounded so a
 * slow hasher cannot make the loader hold a whole file in memory. */
typedef struct {
  GThread     *thread;
  GAsyncQueue *blocks;      /* GBytes, then hasher_end */
  GAsyncQueue *credits;     /* a token for each block hashed */
  guint        in_flight;
  struct sha256_ctx sha;    /* the thread's until it is joined */
} Hasher;

#define HASHER_MAX_IN_FLIGHT 8

static char hasher_end;

static gpointer
hasher_thread (gpointer data)
{
  Hasher *hasher = data;

  for (;;)
    {
      gpointer block = g_async_queue_pop (hasher->blocks);
      gconstpointer bytes;
      gsize len;

      if (block == &hasher_end)
        return NULL;

      bytes = g_bytes_get_data (block, &len);
      sha256_update (&hasher->sha, len, bytes);
      g_bytes_unref (block);
      g_async_queue_push (hasher->credits, GINT_TO_POINTER (1));
    }
}

static void
hasher_start (Hasher *hasher)
{
  hasher->blocks = g_async_queue_new ();
  hasher->credits = g_async_queue_new ();
  sha256_init (&hasher->sha);
  hasher->in_flight = 0;
  hasher->thread = g_thread_new ("anot-dataset-hash", hasher_thread, hasher);
}

/* Takes ownership of @block. */
static void
hasher_push (Hasher *hasher,
             GBytes *block)
{
  while (g_async_queue_try_pop (hasher->credits) != NULL)
    hasher->in_flight--;
  if (hasher->in_flight >= HASHER_MAX_IN_FLIGHT)
    {
      g_async_queue_pop (hasher->credits);
      hasher->in_flight--;
    }

  g_async_queue_push (hasher->blocks, block);
  hasher->in_flight++;
}

/* Joins the thread; returns the hex digest (transfer full). */
static char *
hasher_finish (Hasher *hasher)
{
  guint8 digest[SHA256_DIGEST_SIZE];
  char *hex = g_malloc (2 * SHA256_DIGEST_SIZE + 1);

  g_async_queue_push (hasher->blocks, &hasher_end);
  g_thread_join (g_steal_pointer (&hasher->thread));
  sha256_digest (&hasher->sha, sizeof digest, digest);
  for (guint i = 0; i < sizeof digest; i++)
    {
      hex[2 * i] = "0123456789abcdef"[digest[i] >> 4];
      hex[2 * i + 1] = "0123456789abcdef"[digest[i] & 0xf];
    }
  hex[2 * SHA256_DIGEST_SIZE] = '\0';

  g_clear_pointer (&hasher->blocks, g_async_queue_unref);
  g_clear_pointer (&hasher->credits, g_async_queue_unref);

  return hex;
}

typedef struct {
  AnotDataset  *ds;
  GFile        *dir;
  GCancellable *cancellable;
  Hasher        hasher;
  AnotJsonDocument *doc;       /* the small files', one at a time */
  AnotItem     *last_item;      /* reviews of one item are usually contiguous */
  GHashTable   *gt_seen;        /* requests with a groundtruth.jsonl line */
  GHashTable   *graph_names;    /* everyone in the friend graph, borrowed */
  GAsyncQueue  *spares;         /* read buffers to read into again */
} Loader;

/* A line's object is the root of @doc. */
typedef gboolean (*LineHandler) (Loader            *loader,
                                 AnotJsonDocument  *doc,
                                 GError           **error);

#define READ_CHUNK_SIZE (1 << 20)

/* A read buffer: the reader, the workers parsing the batches in it and
 * the hasher hold references on it.  Released, a buffer of the usual size
 * waits among the loader's spares for the next read rather than being
 * freed: reading into a fresh megabyte faults its pages in again, and
 * those were a sixth of the loader's page faults on a 1 GB set.  A buffer
 * out holds a reference on the spares, so one released after the loader
 * is done (by the hasher, say) still has somewhere to go. */
typedef char RcChars;

typedef struct {
  gatomicrefcount ref;
  GAsyncQueue *spares;         /* a reference while the buffer is out */
  gsize cap;
} ReadBufferHeader;

#define READ_BUFFER_HEADER ((sizeof (ReadBufferHeader) + 15) & ~(gsize) 15)
/* More than are ever out at once: batches pending and the hasher's. */
#define READ_BUFFER_MAX_SPARES 32

static inline ReadBufferHeader *
read_buffer_header (RcChars *buf)
{
  return (ReadBufferHeader *) (gpointer) (buf - READ_BUFFER_HEADER);
}

static RcChars *
read_buffer_new (GAsyncQueue *spares,
                 gsize        cap)
{
  ReadBufferHeader *header = cap == READ_CHUNK_SIZE ? g_async_queue_try_pop (spares) : NULL;

  if (header == NULL)
    {
      header = g_malloc (READ_BUFFER_HEADER + cap);
      header->cap = cap;
    }
  g_atomic_ref_count_init (&header->ref);
  header->spares = g_async_queue_ref (spares);
  return (RcChars *) header + READ_BUFFER_HEADER;
}

static RcChars *
read_buffer_ref (RcChars *buf)
{
  g_atomic_ref_count_inc (&read_buffer_header (buf)->ref);
  return buf;
}

static void
read_buffer_unref (gpointer data)
{
  ReadBufferHeader *header = read_buffer_header (data);
  GAsyncQueue *spares;

  if (!g_atomic_ref_count_dec (&header->ref))
    return;
  spares = g_steal_pointer (&header->spares);
  if (header->cap == READ_CHUNK_SIZE && g_async_queue_length (spares) < READ_BUFFER_MAX_SPARES)
    g_async_queue_push (spares, header);
  else
    g_free (header);
  g_async_queue_unref (spares);
}

static void
rc_chars_release (RcChars *chars)
{
  read_buffer_unref (chars);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (RcChars, rc_chars_release)

/* Opens @basename in the dataset directory.  Returns NULL without an error
 * if the file is @optional and does not exist. */
static GInputStream *
open_file (Loader      *loader,
           const char  *basename,
           gboolean     optional,
           GError     **error)
{
  g_autoptr(GFile) file = g_file_get_child (loader->dir, basename);
  g_autoptr(GError) local_error = NULL;
  GFileInputStream *stream;

  stream = g_file_read (file, loader->cancellable, &local_error);
  if (stream != NULL)
    return G_INPUT_STREAM (stream);

  if (optional && g_error_matches (local_error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND))
    return NULL;

  if (g_error_matches (local_error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    g_propagate_error (error, g_steal_pointer (&local_error));
  else
    g_set_error (error, ANOT_ERROR, ANOT_ERROR_IO,
                 "%s: %s", basename, local_error->message);

  return NULL;
}

static gboolean
read_failed (const char  *basename,
             GError      *local_error,
             GError     **error)
{
  if (g_error_matches (local_error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    g_propagate_error (error, local_error);
  else
    {
      g_set_error (error, ANOT_ERROR, ANOT_ERROR_IO,
                   "%s: %s", basename, local_error->message);
      g_error_free (local_error);
    }

  return FALSE;
}

/* The reader says "JSON: what at byte N"; report the position as line
 * and column (1-based, in bytes) under our own file name.  @data is the
 * text that was parsed: a line, or the whole document. */
static void
set_parse_error (GError     **error,
                 const char  *basename,
                 guint        line_no,
                 gboolean     whole_document,
                 const char  *data,
                 gsize        offset,
                 GError      *json_error)
{
  const char *msg = json_error->message;
  const char *at = g_strrstr (msg, " at byte ");
  g_autofree char *what = NULL;
  gsize column = offset + 1;

  if (g_str_has_prefix (msg, "JSON: "))
    msg += strlen ("JSON: ");
  what = at != NULL && at > msg ? g_strndup (msg, at - msg) : g_strdup (msg);

  if (whole_document)
    {
      line_no = 1;
      for (gsize i = 0; i < offset; i++)
        {
          if (data[i] == '\n')
            {
              line_no++;
              column = offset - i;
            }
        }
    }
  g_set_error (error, ANOT_ERROR, ANOT_ERROR_PARSE,
               "%s:%u: invalid JSON at column %" G_GSIZE_FORMAT ": %s",
               basename, line_no, column, what);
}

/* Parses @line into @doc; on failure sets @error (file:line: ...). */
static gboolean
parse_line (AnotJsonDocument  *doc,
            const char        *basename,
            guint              line_no,
            const char        *line,
            gsize              len,
            GError           **error)
{
  GError *json_error = NULL;
  gsize offset = 0;

  if (!_anot_json_document_reparse (doc, line, len, &offset, &json_error))
    {
      set_parse_error (error, basename, line_no, FALSE, line, offset, json_error);
      g_error_free (json_error);
      return FALSE;
    }

  if (anot_json_document_get_kind (doc, 0) != ANOT_JSON_KIND_OBJECT)
    {
      g_set_error (error, ANOT_ERROR, ANOT_ERROR_PARSE,
                   "%s:%u: expected a JSON object", basename, line_no);
      return FALSE;
    }

  return TRUE;
}

/* A byte order mark starts the file, not its first record. */
static void
skip_bom (guint         line_no,
          const char  **line,
          gsize        *len)
{
  gsize bom = line_no == 1 ? anot_utf8_bom_length (*line, *len) : 0;

  *line += bom;
  *len -= bom;
}

static gboolean
is_blank (const char *line,
          gsize       len)
{
  for (gsize i = 0; i < len; i++)
    {
      if (line[i] != ' ' && line[i] != '\t' && line[i] != '\r')
        return FALSE;
    }

  return TRUE;
}

/* Streams a JSON Lines file through @handler, one parsed object a line.
 * Lines are split in a large buffer of our own rather than with
 * GDataInputStream, which copies every line. */
static gboolean
load_jsonl (Loader       *loader,
            const char   *basename,
            gboolean      optional,
            gboolean     *out_found,
            LineHandler   handler,
            GError      **error)
{
  g_autoptr(GInputStream) stream = NULL;
  g_autoptr(RcChars) buf = NULL;
  gsize cap = READ_CHUNK_SIZE, start = 0, end = 0, scan = 0;
  guint line_no = 0;
  gboolean eof = FALSE;
  GError *local_error = NULL;

  if (out_found != NULL)
    *out_found = FALSE;

  stream = open_file (loader, basename, optional, &local_error);
  if (stream == NULL)
    {
      if (local_error != NULL)
        {
          g_propagate_error (error, local_error);
          return FALSE;
        }
      return TRUE;
    }
  if (out_found != NULL)
    *out_found = TRUE;

  buf = read_buffer_new (loader->spares, cap);

  for (;;)
    {
      const char *line;
      gsize len;
      char *nl = memchr (buf + scan, '\n', end - scan);

      if (nl != NULL)
        {
          line = buf + start;
          len = nl - line;
          start = scan = nl - buf + 1;
        }
      else if (eof)
        {
          if (start == end)
            break;
          /* The last line has no newline. */
          line = buf + start;
          len = end - start;
          start = scan = end;
        }
      else
        {
          gssize n;

          /* When the buffer is full, the partial line moves to a new
           * one: the hasher may still be reading the old one.  A line
           * that fills a whole buffer doubles it. */
          if (end == cap)
            {
              gsize new_cap = start == 0 ? 2 * cap : cap;
              char *new_buf = read_buffer_new (loader->spares, new_cap);

              memcpy (new_buf, buf + start, end - start);
              read_buffer_unref (buf);
              buf = new_buf;
              cap = new_cap;
              end -= start;
              start = 0;
            }
          scan = end;

          n = g_input_stream_read (stream, buf + end, cap - end,
                                   loader->cancellable, &local_error);
          if (n < 0)
            return read_failed (basename, local_error, error);
          if (n == 0)
            eof = TRUE;
          else
            {
              hasher_push (&loader->hasher,
                           g_bytes_new_with_free_func (buf + end, n,
                                                       read_buffer_unref,
                                                       read_buffer_ref (buf)));
              end += n;
            }
          continue;
        }

      line_no++;
      skip_bom (line_no, &line, &len);
      if (is_blank (line, len))
        continue;

      if ((line_no & 0xff) == 0 &&
          g_cancellable_set_error_if_cancelled (loader->cancellable, error))
        return FALSE;

      if (!parse_line (loader->doc, basename, line_no, line, len, error))
        return FALSE;

      if (!handler (loader, loader->doc, &local_error))
        {
          g_propagate_prefixed_error (error, local_error, "%s:%u: ", basename, line_no);
          return FALSE;
        }
    }

  return TRUE;
}

/* Reads a whole JSON document into loader->doc.  Returns FALSE without an
 * error if the file is absent; *@contents holds the text the document
 * reads. */
static gboolean
load_json_document (Loader      *loader,
                    const char  *basename,
                    char       **contents,
                    GError     **error)
{
  g_autoptr(GFile) file = g_file_get_child (loader->dir, basename);
  GError *local_error = NULL;
  gsize length, offset = 0, bom;

  if (!g_file_load_contents (file, loader->cancellable, contents, &length, NULL, &local_error))
    {
      if (g_error_matches (local_error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND))
        {
          g_error_free (local_error);
          return FALSE;
        }
      return read_failed (basename, local_error, error);
    }

  hasher_push (&loader->hasher, g_bytes_new (*contents, length));

  bom = anot_utf8_bom_length (*contents, length);
  if (!_anot_json_document_reparse (loader->doc, *contents + bom, length - bom, &offset, &local_error))
    {
      set_parse_error (error, basename, 0, TRUE, *contents + bom, offset, local_error);
      g_error_free (local_error);
      return FALSE;
    }

  if (anot_json_document_get_kind (loader->doc, 0) != ANOT_JSON_KIND_OBJECT)
    {
      g_set_error (error, ANOT_ERROR, ANOT_ERROR_PARSE,
                   "%s: expected a JSON object", basename);
      return FALSE;
    }

  return TRUE;
}

/* ------------------------------------------------------------------------ *
 * Parallel JSON Lines
 *
 * Restaurants and reviews are the bulk of a benchmark and JSON parsing is
 * most of the cost of loading them, so worker threads parse batches of
 * lines while the loading thread reads ahead and commits the parsed
 * batches in file order.  Everything that depends on earlier lines (item
 * indices, review positions, duplicate ids) is decided when committing,
 * and the error reported is always the one on the first bad line.
 * ------------------------------------------------------------------------ */

/* Every parsed record starts with its line number. */
typedef struct {
  guint line_no;
} Parsed;

/* A batch's store, if the kind asks for one, lives as long as the batch
 * or the objects built from it. */
#define STORE_NONE 0
#define STORE_BATCH_SIZED G_MAXSIZE

typedef struct {
  const char *basename;
  gsize       parsed_size;
  gsize       store_block_size;   /* or STORE_NONE, STORE_BATCH_SIZED */
  /* In a worker: fill @parsed from the object at the root of @doc (parsed
   * from @line).  Strings go to @store, which the dataset's store @owner
   * adopts when the batch is committed. */
  gboolean  (*parse)  (AnotJsonDocument  *doc,
                       const char        *line,
                       gsize              len,
                       AnotStore         *store,
                       AnotStore         *owner,
                       Parsed            *parsed,
                       GError           **error);
  /* On the loading thread, in file order. */
  gboolean  (*commit) (Loader      *loader,
                       Parsed      *parsed,
                       GError     **error);
  void      (*clear)  (Parsed      *parsed);
} RecordKind;

/* restaurants.jsonl */

typedef struct {
  Parsed    header;
  AnotItem *item;
} ParsedItem;

static gboolean
parse_item (AnotJsonDocument  *doc,
            const char        *line,
            gsize              len,
            AnotStore         *store,
            AnotStore         *owner,
            Parsed            *parsed,
            GError           **error)
{
  ParsedItem *p = (ParsedItem *) parsed;

  /* The index is known when the batch is committed. */
  p->item = _anot_item_new_from_document (store, doc, 0, line, len, error);

  return p->item != NULL;
}

static gboolean
commit_item (Loader  *loader,
             Parsed  *parsed,
             GError **error)
{
  ParsedItem *p = (ParsedItem *) parsed;
  AnotDataset *ds = loader->ds;
  AnotItem *other;

  other = g_hash_table_lookup (ds->items_by_id, anot_item_get_id (p->item));
  if (other != NULL)
    {
      g_set_error (error, ANOT_ERROR, ANOT_ERROR_DUPLICATE_ID,
                   "field “business_id”: duplicate item id “%s” (also item %u)",
                   anot_item_get_id (p->item), anot_item_get_index (other));
      return FALSE;
    }

  _anot_item_set_index (p->item, ds->items->len);
  _anot_item_set_dataset_link (p->item, ds->link);
  g_hash_table_insert (ds->items_by_id, (gpointer) anot_item_get_id (p->item), p->item);
  g_ptr_array_add (ds->items, g_steal_pointer (&p->item));

  return TRUE;
}

static void
clear_item (Parsed *parsed)
{
  g_clear_object (&((ParsedItem *) parsed)->item);
}

static const RecordKind item_kind = {
  /* Items keep their text and interned attributes in the batch's store:
   * small blocks, as the batch's size is not known in advance. */
  "restaurants.jsonl", sizeof (ParsedItem), 64 * 1024, parse_item, commit_item, clear_item,
};

/* reviews.jsonl */

/* The string @value decoded into @store, or NULL for -1. */
static const char *
store_string (AnotStore        *store,
              AnotJsonDocument *doc,
              int               value)
{
  return value >= 0 ? _anot_store_add_json_string (store, doc, value) : NULL;
}

/* Reads one review record (the root of @doc) into a review whose strings
 * are in @store.  Touches nothing shared, so workers call it.  The checks
 * come in a fixed order: the first bad field is the one reported. */
static AnotReview *
parse_review (AnotJsonDocument  *doc,
              AnotStore         *store,
              AnotStore         *owner,
              GError           **error)
{
  enum { ID, ITEM_ID, STARS, TEXT, USER_ID, DATE, USEFUL, FUNNY, COOL, USER, N_FIELDS };
  static const char * const names[N_FIELDS] = {
    "review_id", "business_id", "stars", "text", "user_id", "date", "useful", "funny", "cool",
    "user",
  };
  enum { REVIEW_COUNT, AVERAGE_STARS, YELPING_SINCE, N_USER_FIELDS };
  static const char * const user_names[N_USER_FIELDS] = {
    "review_count", "average_stars", "yelping_since",
  };
  AnotReviewFields f = { 0 };
  int v[N_FIELDS], u[N_USER_FIELDS];
  int id, item_id, text, user_id, date, user, yelping_since = -1;
  gboolean present;

  /* All members in one pass; checked below in a fixed order. */
  _anot_json_document_find_members (doc, 0, names, N_FIELDS, v);

  if (!read_id (doc, v[ID], "review_id", &id, error) ||
      !read_string (doc, v[ITEM_ID], "business_id", TRUE, &item_id, error) ||
      !read_number (doc, v[STARS], "stars", TRUE, &f.stars, &present, error) ||
      !read_string (doc, v[TEXT], "text", TRUE, &text, error))
    return NULL;

  /* The rules compare stars with thresholds and average them: a 9 or a 0
   * (a 10-point scale, a typo) would pass or fail conditions silently. */
  if (!(f.stars >= 1.0 && f.stars <= 5.0))
    {
      field_invalid ("stars", "a number from 1 to 5", error);
      return NULL;
    }

  if (!read_string (doc, v[USER_ID], "user_id", FALSE, &user_id, error) ||
      !read_string (doc, v[DATE], "date", FALSE, &date, error))
    return NULL;

  if (!read_int (doc, v[USEFUL], "useful", FALSE, &f.useful, &present, error))
    return NULL;
  if (present)
    f.flags |= ANOT_REVIEW_HAS_USEFUL;
  if (!read_int (doc, v[FUNNY], "funny", FALSE, &f.funny, &present, error))
    return NULL;
  if (present)
    f.flags |= ANOT_REVIEW_HAS_FUNNY;
  if (!read_int (doc, v[COOL], "cool", FALSE, &f.cool, &present, error))
    return NULL;
  if (present)
    f.flags |= ANOT_REVIEW_HAS_COOL;

  user = v[USER];
  if (user >= 0 && anot_json_document_get_kind (doc, user) != ANOT_JSON_KIND_NULL)
    {
      if (anot_json_document_get_kind (doc, user) != ANOT_JSON_KIND_OBJECT)
        {
          field_invalid ("user", "an object", error);
          return NULL;
        }
      f.flags |= ANOT_REVIEW_HAS_USER;
      _anot_json_document_find_members (doc, user, user_names, N_USER_FIELDS, u);

      if (!read_int (doc, u[REVIEW_COUNT], "user.review_count", FALSE,
                     &f.user_review_count, &present, error))
        return NULL;
      if (present)
        f.flags |= ANOT_REVIEW_HAS_USER_REVIEW_COUNT;
      if (!read_number (doc, u[AVERAGE_STARS], "user.average_stars", FALSE,
                        &f.user_average_stars, &present, error))
        return NULL;
      if (present)
        f.flags |= ANOT_REVIEW_HAS_USER_AVERAGE_STARS;
      if (!read_string (doc, u[YELPING_SINCE], "user.yelping_since", FALSE,
                        &yelping_since, error))
        return NULL;
    }

  /* Decoded once, straight into the place they will stay. */
  f.id = store_string (store, doc, id);
  f.item_id = store_string (store, doc, item_id);
  f.text = store_string (store, doc, text);
  f.user_id = store_string (store, doc, user_id);
  f.date = store_string (store, doc, date);
  f.user_yelping_since = store_string (store, doc, yelping_since);

  return _anot_review_new_borrowing (owner, &f);
}

typedef struct {
  Parsed      header;
  AnotReview *review;
} ParsedReview;

static gboolean
parse_review_line (AnotJsonDocument  *doc,
                   const char        *line,
                   gsize              len,
                   AnotStore         *store,
                   AnotStore         *owner,
                   Parsed            *parsed,
                   GError           **error)
{
  ParsedReview *p = (ParsedReview *) parsed;

  p->review = parse_review (doc, store, owner, error);
  return p->review != NULL;
}

/* Adds a parsed review to the dataset.  File order, loading thread only. */
static gboolean
commit_review (Loader  *loader,
               Parsed  *parsed,
               GError **error)
{
  ParsedReview *p = (ParsedReview *) parsed;
  AnotDataset *ds = loader->ds;
  const char *item_id = anot_review_get_item_id (p->review);
  const char *id = anot_review_get_id (p->review);
  AnotItem *item;

  item = loader->last_item;
  if (item == NULL || strcmp (anot_item_get_id (item), item_id) != 0)
    {
      item = g_hash_table_lookup (ds->items_by_id, item_id);
      if (item == NULL)
        {
          g_set_error (error, ANOT_ERROR, ANOT_ERROR_UNKNOWN_REFERENCE,
                       "field “business_id”: unknown item “%s”", item_id);
          return FALSE;
        }
      loader->last_item = item;
    }

  /* One hash for the check and the insertion; on a duplicate the dataset
   * is dropped, so the replaced value does not matter. */
  if (!g_hash_table_insert (ds->reviews_by_id, (gpointer) id, p->review))
    {
      g_set_error (error, ANOT_ERROR, ANOT_ERROR_DUPLICATE_ID,
                   "field “review_id”: duplicate review id “%s”", id);
      return FALSE;
    }

  _anot_review_place (p->review, anot_item_get_n_reviews (item), anot_item_get_id (item));
  /* The position was just placed: the review goes in as it is. */
  _anot_item_take_review (item, g_steal_pointer (&p->review));
  ds->n_reviews++;

  return TRUE;
}

static void
clear_review (Parsed *parsed)
{
  g_clear_object (&((ParsedReview *) parsed)->review);
}

static const RecordKind review_kind = {
  "reviews.jsonl", sizeof (ParsedReview), STORE_BATCH_SIZED,
  parse_review_line, commit_review, clear_review,
};

/* The batch machinery */

/* Complete lines of one file, parsed by a worker. */
typedef struct {
  RcChars    *buf;             /* holds the lines */
  const char *data;
  gsize       len;
  guint       first_line_no;
  /* Written by the worker before it sets done */
  AnotStore  *store;
  GArray     *parsed;          /* of kind->parsed_size */
  GError     *error;           /* on the line after the last parsed record */
  gboolean    done;            /* under ParallelReader.lock */
} Batch;

typedef struct {
  const RecordKind *kind;
  const char       *basename;  /* the file read: kind->basename or another name of it */
  AnotStore        *owner;     /* the dataset's store */
  GThreadPool      *pool;
  GMutex            lock;
  GCond             cond;
  gint              abort;     /* atomic: workers skip their batches */
  GQueue            pending;   /* Batch, file order */
} ParallelReader;

static void
batch_free (ParallelReader *pr,
            Batch          *batch)
{
  if (batch->parsed != NULL && pr->kind->clear != NULL)
    {
      for (guint i = 0; i < batch->parsed->len; i++)
        pr->kind->clear ((Parsed *) (batch->parsed->data + i * pr->kind->parsed_size));
    }

  g_clear_pointer (&batch->buf, rc_chars_release);
  g_clear_pointer (&batch->store, _anot_store_unref);
  g_clear_pointer (&batch->parsed, g_array_unref);
  g_clear_error (&batch->error);
  g_free (batch);
}

static void
parse_batch (gpointer data,
             gpointer user_data)
{
  Batch *batch = data;
  ParallelReader *pr = user_data;
  const RecordKind *kind = pr->kind;

  if (!g_atomic_int_get (&pr->abort))
    {
      g_autoptr(AnotJsonDocument) doc = _anot_json_document_new_reusable ();
      const char *p = batch->data, *end = batch->data + batch->len;
      g_autofree Parsed *parsed = g_malloc0 (kind->parsed_size);
      guint line_no = batch->first_line_no;

      /* The strings of a line are shorter than the line: one block. */
      if (kind->store_block_size == STORE_BATCH_SIZED)
        batch->store = _anot_store_new (batch->len + 1);
      else if (kind->store_block_size != STORE_NONE)
        batch->store = _anot_store_new (kind->store_block_size);
      batch->parsed = g_array_new (FALSE, FALSE, kind->parsed_size);

      for (; p < end; line_no++)
        {
          const char *nl = memchr (p, '\n', end - p);
          gsize len = (nl != NULL ? nl : end) - p;
          const char *line = p;
          GError *local_error = NULL;

          p = nl != NULL ? nl + 1 : end;
          skip_bom (line_no, &line, &len);
          if (is_blank (line, len))
            continue;

          if (!parse_line (doc, pr->basename, line_no, line, len, &batch->error))
            break;

          memset (parsed, 0, kind->parsed_size);
          parsed->line_no = line_no;
          if (!kind->parse (doc, line, len, batch->store, pr->owner, parsed, &local_error))
            {
              if (kind->clear != NULL)
                kind->clear (parsed);
              g_propagate_prefixed_error (&batch->error, local_error, "%s:%u: ",
                                          pr->basename, line_no);
              break;
            }

          g_array_append_vals (batch->parsed, parsed, 1);
        }

      if (batch->store != NULL)
        _anot_store_seal (batch->store);
    }

  g_mutex_lock (&pr->lock);
  batch->done = TRUE;
  g_cond_broadcast (&pr->cond);
  g_mutex_unlock (&pr->lock);
}

static void
wait_batch (ParallelReader *pr,
            Batch          *batch)
{
  g_mutex_lock (&pr->lock);
  while (!batch->done)
    g_cond_wait (&pr->cond, &pr->lock);
  g_mutex_unlock (&pr->lock);
}

static gboolean
batch_is_done (ParallelReader *pr,
               Batch          *batch)
{
  gboolean done;

  g_mutex_lock (&pr->lock);
  done = batch->done;
  g_mutex_unlock (&pr->lock);

  return done;
}

/* Commits the oldest pending batch, waiting for it if needed. */
static gboolean
commit_next_batch (Loader          *loader,
                   ParallelReader  *pr,
                   GError         **error)
{
  const RecordKind *kind = pr->kind;
  Batch *batch = g_queue_pop_head (&pr->pending);
  gboolean ok = TRUE;

  wait_batch (pr, batch);

  if (g_cancellable_set_error_if_cancelled (loader->cancellable, error))
    ok = FALSE;

  for (guint i = 0; ok && batch->parsed != NULL && i < batch->parsed->len; i++)
    {
      Parsed *parsed = (Parsed *) (batch->parsed->data + i * kind->parsed_size);
      GError *local_error = NULL;

      if (!kind->commit (loader, parsed, &local_error))
        {
          g_propagate_prefixed_error (error, local_error, "%s:%u: ",
                                      pr->basename, parsed->line_no);
          ok = FALSE;
        }
    }

  /* What was committed may point into the batch's strings. */
  if (batch->store != NULL)
    _anot_store_adopt (loader->ds->store, batch->store);

  /* A worker's error comes after every record it parsed. */
  if (ok && batch->error != NULL)
    {
      g_propagate_error (error, g_steal_pointer (&batch->error));
      ok = FALSE;
    }

  batch_free (pr, batch);

  return ok;
}

static guint
count_lines (const char *data,
             gsize       len)
{
  const char *end = data + len;
  guint n = 0;

  while ((data = memchr (data, '\n', end - data)) != NULL)
    {
      n++;
      data++;
    }

  return n;
}

/* memrchr() is a GNU extension; the tail after the last newline is one
 * partial line, so a plain loop is enough. */
static const char *
find_last_newline (const char *data,
                   gsize       len)
{
  while (len > 0)
    {
      if (data[--len] == '\n')
        return data + len;
    }

  return NULL;
}

/* Reads @basename (NULL: the kind's own file name) record by record. */
static gboolean
load_jsonl_parallel (Loader            *loader,
                     const RecordKind  *kind,
                     const char        *basename,
                     GError           **error)
{
  ParallelReader pr = { 0, };
  g_autoptr(GInputStream) stream = NULL;
  g_autoptr(RcChars) buf = NULL;
  gsize cap = READ_CHUNK_SIZE, start = 0, end = 0;
  guint line_no = 1, n_workers, max_pending;
  gboolean eof = FALSE, ok = TRUE;
  GError *local_error = NULL;

  pr.kind = kind;
  pr.basename = basename != NULL ? basename : kind->basename;
  pr.owner = loader->ds->store;
  stream = open_file (loader, pr.basename, FALSE, error);
  if (stream == NULL)
    return FALSE;

  n_workers = CLAMP (g_get_num_processors (), 1, 8);
  max_pending = 2 * n_workers + 2;
  g_mutex_init (&pr.lock);
  g_cond_init (&pr.cond);
  g_queue_init (&pr.pending);
  pr.pool = g_thread_pool_new (parse_batch, &pr, n_workers, FALSE, NULL);

  buf = read_buffer_new (loader->spares, cap);

  while (ok && !eof)
    {
      const char *last_nl;
      gsize batch_end;
      gssize n;

      /* When the buffer is full, the partial line moves to a new one:
       * workers and the hasher may still be reading the old one.  A line
       * that fills a whole buffer doubles it. */
      if (end == cap)
        {
          gsize new_cap = start == 0 ? 2 * cap : cap;
          char *new_buf = read_buffer_new (loader->spares, new_cap);

          memcpy (new_buf, buf + start, end - start);
          read_buffer_unref (buf);
          buf = new_buf;
          cap = new_cap;
          end -= start;
          start = 0;
        }

      n = g_input_stream_read (stream, buf + end, cap - end, loader->cancellable, &local_error);
      if (n < 0)
        {
          ok = read_failed (pr.basename, local_error, error);
          break;
        }

      if (n == 0)
        {
          eof = TRUE;
          batch_end = end;      /* the last line may lack a newline */
        }
      else
        {
          hasher_push (&loader->hasher,
                       g_bytes_new_with_free_func (buf + end, n,
                                                   read_buffer_unref,
                                                   read_buffer_ref (buf)));
          end += n;
          last_nl = find_last_newline (buf + start, end - start);
          if (last_nl == NULL)
            continue;
          batch_end = last_nl - buf + 1;
        }

      if (batch_end > start)
        {
          Batch *batch = g_new0 (Batch, 1);

          batch->buf = read_buffer_ref (buf);
          batch->data = buf + start;
          batch->len = batch_end - start;
          batch->first_line_no = line_no;
          line_no += count_lines (batch->data, batch->len);
          start = batch_end;

          g_queue_push_tail (&pr.pending, batch);
          g_thread_pool_push (pr.pool, batch, NULL);
        }

      /* Commit what is ready; wait once too much is in flight. */
      while (ok && pr.pending.length > 0 &&
             (pr.pending.length > max_pending ||
              batch_is_done (&pr, g_queue_peek_head (&pr.pending))))
        ok = commit_next_batch (loader, &pr, error);
    }

  while (ok && pr.pending.length > 0)
    ok = commit_next_batch (loader, &pr, error);

  /* On error, let the workers skip what is left, then wait for them. */
  g_atomic_int_set (&pr.abort, 1);
  g_thread_pool_free (pr.pool, FALSE, TRUE);
  while (pr.pending.length > 0)
    batch_free (&pr, g_queue_pop_head (&pr.pending));
  g_cond_clear (&pr.cond);
  g_mutex_clear (&pr.lock);

  return ok;
}

/* ------------------------------------------------------------------------ *
 * user_mapping.json
 * ------------------------------------------------------------------------ */

/* Copies an array of names into the store.  @display names the array in
 * errors. */
static const char * const *
store_name_list (AnotStore         *store,
                 AnotJsonDocument  *doc,
                 int                array,
                 const char        *display,
                 GError           **error)
{
  const char **names;
  guint len;
  int element = array + 1;

  if (anot_json_document_get_kind (doc, array) != ANOT_JSON_KIND_ARRAY)
    {
      g_set_error (error, ANOT_ERROR, ANOT_ERROR_INVALID_FIELD,
                   "field “%s”: expected an array of names", display);
      return NULL;
    }

  len = anot_json_document_get_size (doc, array);
  if (len == 0)
    return empty_strv;

  names = _anot_store_alloc (store, (len + 1) * sizeof (char *));
  for (guint i = 0; i < len; i++, element = _anot_json_document_get_next (doc, element))
    {
      if (anot_json_document_get_kind (doc, element) != ANOT_JSON_KIND_STRING)
        {
          g_set_error (error, ANOT_ERROR, ANOT_ERROR_INVALID_FIELD,
                       "field “%s[%u]”: expected a string", display, i);
          return NULL;
        }
      names[i] = _anot_store_intern_json_string (store, doc, element);
    }
  names[len] = NULL;

  return names;
}

static gboolean
load_friend_graph (AnotDataset       *ds,
                   AnotJsonDocument  *doc,
                   int                graph,
                   GError           **error)
{
  guint size = anot_json_document_get_size (doc, graph);
  int key = graph + 1;

  /* A repeated name: its last list stays in the table. */
  for (guint i = 0; i < size; i++, key = _anot_json_document_get_next (doc, key + 1))
    {
      g_autofree char *name = anot_json_document_dup_string (doc, key);
      g_autofree char *display = g_strdup_printf ("friend_graph.%s", name);
      const char * const *friends;

      friends = store_name_list (ds->store, doc, key + 1, display, error);
      if (friends == NULL)
        return FALSE;
      g_hash_table_insert (ds->friend_graph,
                           (gpointer) _anot_store_intern (ds->store, name),
                           (gpointer) friends);
    }

  return TRUE;
}

static gboolean
parse_item_index (const char *key,
                  guint64    *out)
{
  char *end = NULL;

  if (!g_ascii_isdigit (key[0]))
    return FALSE;

  errno = 0;
  *out = g_ascii_strtoull (key, &end, 10);

  return errno == 0 && *end == '\0';
}

static gboolean
load_review_assignments (AnotDataset       *ds,
                         AnotJsonDocument  *doc,
                         int                assignments,
                         GError           **error)
{
  guint size = anot_json_document_get_size (doc, assignments);
  int key_value = assignments + 1;

  for (guint k = 0; k < size; k++, key_value = _anot_json_document_get_next (doc, key_value + 1))
    {
      g_autofree char *key = anot_json_document_dup_string (doc, key_value);
      int records = key_value + 1, record;
      AnotItem *item;
      guint64 index;
      guint n_records;

      if (!parse_item_index (key, &index))
        {
          g_set_error (error, ANOT_ERROR, ANOT_ERROR_INVALID_FIELD,
                       "field “review_assignments.%s”: expected an item index as key", key);
          return FALSE;
        }
      if (index >= ds->items->len)
        {
          g_set_error (error, ANOT_ERROR, ANOT_ERROR_UNKNOWN_REFERENCE,
                       "field “review_assignments.%s”: no item with index %s", key, key);
          return FALSE;
        }
      if (anot_json_document_get_kind (doc, records) != ANOT_JSON_KIND_ARRAY)
        {
          g_set_error (error, ANOT_ERROR, ANOT_ERROR_INVALID_FIELD,
                       "field “review_assignments.%s”: expected an array", key);
          return FALSE;
        }

      item = g_ptr_array_index (ds->items, index);
      n_records = anot_json_document_get_size (doc, records);
      record = records + 1;

      for (guint i = 0; i < n_records; i++, record = _anot_json_document_get_next (doc, record))
        {
          g_autofree char *display = g_strdup_printf ("review_assignments.%s[%u]", key, i);
          g_autofree char *field = NULL;
          g_autofree char *name = NULL;
          const char * const *friends;
          int friends_value, name_value;
          gint64 review_idx;
          gboolean present;
          GError *local_error = NULL;

          if (anot_json_document_get_kind (doc, record) != ANOT_JSON_KIND_OBJECT)
            {
              g_set_error (error, ANOT_ERROR, ANOT_ERROR_INVALID_FIELD,
                           "field “%s”: expected an object", display);
              return FALSE;
            }

          field = g_strconcat (display, ".review_idx", NULL);
          if (!read_int (doc, member (doc, record, "review_idx"), field, TRUE, &review_idx, &present, error))
            return FALSE;
          g_free (field);
          field = g_strconcat (display, ".name", NULL);
          if (!read_string (doc, member (doc, record, "name"), field, TRUE, &name_value, error))
            return FALSE;
          name = anot_json_document_dup_string (doc, name_value);

          /* Records past the item's reviews are ignored, as the original
           * did (philly_cafes' 19-review items have a record for review
           * 19), but said: in a new benchmark it is a mistake. */
          if (review_idx < 0 || review_idx >= anot_item_get_n_reviews (item))
            {
              add_warning (ds, "user_mapping.json: field “%s.review_idx”: item %s has %u reviews, "
                           "so there is no review %" G_GINT64_FORMAT "; the record is ignored",
                           display, anot_item_get_id (item), anot_item_get_n_reviews (item),
                           review_idx);
              continue;
            }

          friends_value = member (doc, record, "friends");
          if (friends_value >= 0 && anot_json_document_get_kind (doc, friends_value) != ANOT_JSON_KIND_NULL)
            {
              g_free (field);
              field = g_strconcat (display, ".friends", NULL);
              friends = store_name_list (ds->store, doc, friends_value, field, &local_error);
              if (friends == NULL)
                {
                  g_propagate_error (error, local_error);
                  return FALSE;
                }
            }
          else
            {
              /* As the original loader: without its own list, a record
               * shows the reviewer's friend_graph entry. */
              friends = g_hash_table_lookup (ds->friend_graph, name);
              if (friends == NULL)
                friends = empty_strv;
            }

          /* Several records for one review: the last wins, as in the
           * reference's dict comprehension. */
          _anot_review_set_assignment (anot_item_get_review (item, review_idx),
                                       _anot_store_intern (ds->store, name),
                                       friends);
        }
    }

  return TRUE;
}

static gboolean
load_user_mapping (Loader  *loader,
                   GError **error)
{
  AnotDataset *ds = loader->ds;
  AnotJsonDocument *doc = loader->doc;
  g_autofree char *contents = NULL;
  GError *local_error = NULL;
  int node;

  if (!load_json_document (loader, "user_mapping.json", &contents, &local_error))
    {
      if (local_error == NULL)
        return TRUE;
      g_propagate_error (error, local_error);
      return FALSE;
    }

  /* The graph first: assignments without a friends list fall back to it. */
  node = member (doc, 0, "friend_graph");
  if (node >= 0 && anot_json_document_get_kind (doc, node) != ANOT_JSON_KIND_NULL)
    {
      if (anot_json_document_get_kind (doc, node) != ANOT_JSON_KIND_OBJECT)
        {
          g_set_error (error, ANOT_ERROR, ANOT_ERROR_INVALID_FIELD,
                       "user_mapping.json: field “friend_graph”: expected an object");
          return FALSE;
        }
      if (!load_friend_graph (ds, doc, node, &local_error))
        {
          g_propagate_prefixed_error (error, local_error, "user_mapping.json: ");
          return FALSE;
        }
    }

  node = member (doc, 0, "review_assignments");
  if (node >= 0 && anot_json_document_get_kind (doc, node) != ANOT_JSON_KIND_NULL)
    {
      if (anot_json_document_get_kind (doc, node) != ANOT_JSON_KIND_OBJECT)
        {
          g_set_error (error, ANOT_ERROR, ANOT_ERROR_INVALID_FIELD,
                       "user_mapping.json: field “review_assignments”: expected an object");
          return FALSE;
        }
      if (!load_review_assignments (ds, doc, node, &local_error))
        {
          g_propagate_prefixed_error (error, local_error, "user_mapping.json: ");
          return FALSE;
        }
    }

  return TRUE;
}

/* The gold item's id: `gold_item`, or `gold_restaurant` as the original
 * framework names it.  Both may be given (a file kept readable by the
 * original's tools) when they agree.  *@display is the name used. */
static gboolean
read_gold (AnotJsonDocument  *doc,
           int               *out,
           const char       **display,
           GError           **error)
{
  int item_value, restaurant_value;

  if (!read_string (doc, member (doc, 0, "gold_item"), "gold_item", FALSE, &item_value, error) ||
      !read_string (doc, member (doc, 0, "gold_restaurant"), "gold_restaurant", FALSE, &restaurant_value, error))
    return FALSE;

  if (item_value >= 0 && restaurant_value >= 0)
    {
      g_autofree char *a = anot_json_document_dup_string (doc, item_value);
      g_autofree char *b = anot_json_document_dup_string (doc, restaurant_value);

      if (strcmp (a, b) != 0)
        {
          g_set_error (error, ANOT_ERROR, ANOT_ERROR_INVALID_FIELD,
                       "field “gold_item”: “%s” disagrees with “gold_restaurant” (“%s”); give one of them",
                       a, b);
          return FALSE;
        }
    }
  if (item_value < 0 && restaurant_value < 0)
    {
      g_set_error (error, ANOT_ERROR, ANOT_ERROR_MISSING_FIELD,
                   "field “gold_item”: missing (or “gold_restaurant”, its original name)");
      return FALSE;
    }

  *out = item_value >= 0 ? item_value : restaurant_value;
  *display = item_value >= 0 ? "gold_item" : "gold_restaurant";
  return TRUE;
}

/* Whether @name is a person of the friend graph: a key, or a friend of
 * someone.  Built on the first social leaf. */
static gboolean
graph_has_name (Loader     *loader,
                const char *name)
{
  AnotDataset *ds = loader->ds;

  if (loader->graph_names == NULL)
    {
      GHashTableIter iter;
      gpointer key, value;

      loader->graph_names = g_hash_table_new (g_str_hash, g_str_equal);
      g_hash_table_iter_init (&iter, ds->friend_graph);
      while (g_hash_table_iter_next (&iter, &key, &value))
        {
          const char * const *friends = value;

          g_hash_table_add (loader->graph_names, key);
          for (guint i = 0; friends[i] != NULL; i++)
            g_hash_table_add (loader->graph_names, (gpointer) friends[i]);
        }
    }
  return g_hash_table_contains (loader->graph_names, name);
}

/* What the grammar allows but the format forbids: an aspect label used
 * twice in one request (results and traces identify leaves by it), and a
 * social anchor nobody in the friend graph has heard of (every social
 * test of it is false, so the gold can only come out as no_match). */
static gboolean
check_structure (Loader         *loader,
                 AnotCondition  *condition,
                 GString        *path,
                 GHashTable     *aspects,
                 GError        **error)
{
  JsonObject *evidence;
  JsonNode *filter, *friends;
  const char *aspect, *other;

  if (anot_condition_get_op (condition) != ANOT_CONDITION_OP_LEAF)
    {
      gsize len = path->len;

      for (guint i = 0; i < anot_condition_get_n_children (condition); i++)
        {
          g_string_append_printf (path, ".args[%u]", i);
          if (!check_structure (loader, anot_condition_get_child (condition, i), path, aspects, error))
            return FALSE;
          g_string_truncate (path, len);
        }
      return TRUE;
    }

  aspect = anot_condition_get_aspect (condition);
  other = g_hash_table_lookup (aspects, aspect);
  if (other != NULL)
    {
      g_set_error (error, ANOT_ERROR, ANOT_ERROR_DUPLICATE_ID,
                   "field “%s.aspect”: duplicate aspect “%s” (also at %s); "
                   "aspects must be unique within a request",
                   path->str, aspect, other);
      return FALSE;
    }
  g_hash_table_insert (aspects, (gpointer) aspect, g_strdup (path->str));

  evidence = anot_condition_get_evidence (condition);
  filter = evidence != NULL ? json_object_get_member (evidence, "social_filter") : NULL;
  if (filter == NULL || !JSON_NODE_HOLDS_OBJECT (filter))
    return TRUE;
  friends = json_object_get_member (json_node_get_object (filter), "friends");
  if (friends == NULL || !JSON_NODE_HOLDS_ARRAY (friends))
    return TRUE;
  for (guint i = 0; i < json_array_get_length (json_node_get_array (friends)); i++)
    {
      const char *name = json_array_get_string_element (json_node_get_array (friends), i);

      if (!graph_has_name (loader, name))
        {
          g_set_error (error, ANOT_ERROR, ANOT_ERROR_UNKNOWN_REFERENCE,
                       "field “%s.evidence.social_filter.friends[%u]”: “%s” is not in the friend "
                       "graph (user_mapping.json “friend_graph”)",
                       path->str, i, name);
          return FALSE;
        }
    }
  return TRUE;
}

/* ------------------------------------------------------------------------ *
 * requests.jsonl
 * ------------------------------------------------------------------------ */

static gboolean
handle_request (Loader            *loader,
                AnotJsonDocument  *doc,
                GError           **error)
{
  AnotDataset *ds = loader->ds;
  g_autoptr(AnotCondition) structure = NULL;
  g_autoptr(JsonNode) node = NULL;
  g_autofree char *id = NULL, *group = NULL, *scenario = NULL, *text = NULL;
  g_autofree char *shorthand = NULL, *gold_id = NULL;
  AnotRequest *request;
  AnotItem *gold;
  int id_value, group_value, scenario_value, text_value, shorthand_value, gold_value, structure_value;
  const char *gold_display;

  if (!read_id (doc, member (doc, 0, "id"), "id", &id_value, error) ||
      !read_string (doc, member (doc, 0, "group"), "group", TRUE, &group_value, error) ||
      !read_string (doc, member (doc, 0, "text"), "text", TRUE, &text_value, error))
    return FALSE;

  structure_value = member (doc, 0, "structure");
  if (structure_value < 0)
    return field_missing ("structure", error);

  if (!read_gold (doc, &gold_value, &gold_display, error) ||
      !read_string (doc, member (doc, 0, "scenario"), "scenario", FALSE, &scenario_value, error) ||
      !read_string (doc, member (doc, 0, "shorthand"), "shorthand", FALSE, &shorthand_value, error))
    return FALSE;

  id = anot_json_document_dup_string (doc, id_value);
  group = anot_json_document_dup_string (doc, group_value);
  text = anot_json_document_dup_string (doc, text_value);
  gold_id = anot_json_document_dup_string (doc, gold_value);
  scenario = anot_json_document_dup_string (doc, scenario_value);
  shorthand = anot_json_document_dup_string (doc, shorthand_value);

  /* The condition keeps the structure as a tree (a small one): sealed, it
   * is shared instead of copied. */
  node = anot_json_document_dup_node (doc, structure_value);
  json_node_seal (node);
  structure = _anot_condition_new_from_json_at (node, "structure", error);
  if (structure == NULL)
    return FALSE;
  {
    g_autoptr(GString) path = g_string_new ("structure");
    g_autoptr(GHashTable) aspects = g_hash_table_new_full (g_str_hash, g_str_equal, NULL, g_free);

    if (!check_structure (loader, structure, path, aspects, error))
      return FALSE;
  }

  gold = g_hash_table_lookup (ds->items_by_id, gold_id);
  if (gold == NULL)
    {
      g_set_error (error, ANOT_ERROR, ANOT_ERROR_UNKNOWN_REFERENCE,
                   "field “%s”: unknown item “%s”", gold_display, gold_id);
      return FALSE;
    }

  if (g_hash_table_contains (ds->requests_by_id, id))
    {
      g_set_error (error, ANOT_ERROR, ANOT_ERROR_DUPLICATE_ID,
                   "field “id”: duplicate request id “%s”", id);
      return FALSE;
    }

  request = anot_request_new_internal (id, group, scenario, text, shorthand, structure,
                                       anot_item_get_id (gold), anot_item_get_index (gold));
  g_ptr_array_add (ds->requests, request);
  g_hash_table_insert (ds->requests_by_id, (gpointer) anot_request_get_id (request), request);

  return TRUE;
}

/* ------------------------------------------------------------------------ *
 * groundtruth.jsonl
 * ------------------------------------------------------------------------ */

static gboolean
handle_groundtruth (Loader            *loader,
                    AnotJsonDocument  *doc,
                    GError           **error)
{
  AnotDataset *ds = loader->ds;
  GHashTable *seen = loader->gt_seen;
  g_autofree char *request_id = NULL, *gold_id = NULL, *status_str = NULL;
  AnotRequest *request;
  AnotItem *gold;
  AnotGoldStatus status;
  gint64 gold_idx;
  gboolean present;
  int request_value, gold_value, status_value;
  const char *gold_display;

  if (!read_string (doc, member (doc, 0, "request_id"), "request_id", TRUE, &request_value, error) ||
      !read_gold (doc, &gold_value, &gold_display, error) ||
      !read_int (doc, member (doc, 0, "gold_idx"), "gold_idx", TRUE, &gold_idx, &present, error) ||
      !read_string (doc, member (doc, 0, "status"), "status", FALSE, &status_value, error))
    return FALSE;
  request_id = anot_json_document_dup_string (doc, request_value);
  gold_id = anot_json_document_dup_string (doc, gold_value);
  status_str = anot_json_document_dup_string (doc, status_value);

  request = g_hash_table_lookup (ds->requests_by_id, request_id);
  if (request == NULL)
    {
      g_set_error (error, ANOT_ERROR, ANOT_ERROR_UNKNOWN_REFERENCE,
                   "field “request_id”: unknown request “%s”", request_id);
      return FALSE;
    }

  if (g_hash_table_contains (seen, request))
    {
      g_set_error (error, ANOT_ERROR, ANOT_ERROR_DUPLICATE_ID,
                   "field “request_id”: duplicate line for request “%s”", request_id);
      return FALSE;
    }
  g_hash_table_add (seen, request);

  gold = g_hash_table_lookup (ds->items_by_id, gold_id);
  if (gold == NULL)
    {
      g_set_error (error, ANOT_ERROR, ANOT_ERROR_UNKNOWN_REFERENCE,
                   "field “%s”: unknown item “%s”", gold_display, gold_id);
      return FALSE;
    }

  if (strcmp (gold_id, anot_request_get_gold_item_id (request)) != 0)
    {
      g_set_error (error, ANOT_ERROR, ANOT_ERROR_INVALID_FIELD,
                   "field “%s”: “%s” disagrees with requests.jsonl, "
                   "which has “%s” for request “%s”",
                   gold_display, gold_id, anot_request_get_gold_item_id (request), request_id);
      return FALSE;
    }

  if (gold_idx != anot_item_get_index (gold))
    {
      g_set_error (error, ANOT_ERROR, ANOT_ERROR_INVALID_FIELD,
                   "field “gold_idx”: %" G_GINT64_FORMAT " is not the index of item “%s” (%u)",
                   gold_idx, gold_id, anot_item_get_index (gold));
      return FALSE;
    }

  if (status_str != NULL)
    {
      if (!_anot_gold_status_from_string (status_str, &status))
        {
          g_set_error (error, ANOT_ERROR, ANOT_ERROR_INVALID_FIELD,
                       "field “status”: unknown status “%s”", status_str);
          return FALSE;
        }
      _anot_request_set_gold_status (request, status);
    }

  return TRUE;
}

static gboolean
load_groundtruth (Loader  *loader,
                  GError **error)
{
  AnotDataset *ds = loader->ds;
  g_autoptr(GHashTable) seen = g_hash_table_new (NULL, NULL);
  gboolean found, ok;

  loader->gt_seen = seen;
  ok = load_jsonl (loader, "groundtruth.jsonl", TRUE, &found, handle_groundtruth, error);
  loader->gt_seen = NULL;

  if (!ok || !found)
    return ok;

  for (guint i = 0; i < ds->requests->len; i++)
    {
      AnotRequest *request = g_ptr_array_index (ds->requests, i);

      if (!g_hash_table_contains (seen, request))
        {
          g_set_error (error, ANOT_ERROR, ANOT_ERROR_MISSING_FIELD,
                       "groundtruth.jsonl: no line for request “%s”",
                       anot_request_get_id (request));
          return FALSE;
        }
    }

  return TRUE;
}

/* ------------------------------------------------------------------------ *
 * judgement_cache.json
 * ------------------------------------------------------------------------ */

static AnotJudgement
parse_judgement (AnotJsonDocument *doc,
                 int               value)
{
  static const struct {
    const char    *word;
    AnotJudgement  judgement;
  } words[] = {
    { "positive", ANOT_JUDGEMENT_POSITIVE },
    { "pos", ANOT_JUDGEMENT_POSITIVE },
    { "true", ANOT_JUDGEMENT_POSITIVE },
    { "yes", ANOT_JUDGEMENT_POSITIVE },
    { "negative", ANOT_JUDGEMENT_NEGATIVE },
    { "neg", ANOT_JUDGEMENT_NEGATIVE },
    { "false", ANOT_JUDGEMENT_NEGATIVE },
    { "no", ANOT_JUDGEMENT_NEGATIVE },
    { "neutral", ANOT_JUDGEMENT_NEUTRAL },
    { "mixed", ANOT_JUDGEMENT_NEUTRAL },
  };

  switch (anot_json_document_get_kind (doc, value))
    {
    case ANOT_JSON_KIND_BOOLEAN:
      return anot_json_document_get_boolean (doc, value, FALSE) ? ANOT_JUDGEMENT_POSITIVE
                                                                 : ANOT_JUDGEMENT_NOT_MENTIONED;
    case ANOT_JSON_KIND_STRING:
      {
        /* Python's str.lower(): Unicode-aware, so "NÉGATIVE" stays unknown
         * either way, but ASCII case never matters. */
        g_autofree char *text = anot_json_document_dup_string (doc, value);
        g_autofree char *lower = g_utf8_strdown (text, -1);

        for (guint i = 0; i < G_N_ELEMENTS (words); i++)
          {
            if (strcmp (lower, words[i].word) == 0)
              return words[i].judgement;
          }
      }
      return ANOT_JUDGEMENT_NOT_MENTIONED;
    default:
      return ANOT_JUDGEMENT_NOT_MENTIONED;
    }
}

static gboolean
load_judgements (Loader  *loader,
                 GError **error)
{
  AnotDataset *ds = loader->ds;
  AnotJsonDocument *doc = loader->doc;
  g_autofree char *contents = NULL;
  GError *local_error = NULL;
  guint size;
  int key;

  if (!load_json_document (loader, "judgement_cache.json", &contents, &local_error))
    {
      if (local_error == NULL)
        return TRUE;
      g_propagate_error (error, local_error);
      return FALSE;
    }

  size = anot_json_document_get_size (doc, 0);
  key = 1;
  for (guint i = 0; i < size; i++, key = _anot_json_document_get_next (doc, key + 1))
    {
      g_autofree char *name = anot_json_document_dup_string (doc, key);
      AnotJudgement judgement;

      if (anot_json_document_get_kind (doc, key + 1) != ANOT_JSON_KIND_OBJECT)
        {
          g_set_error (error, ANOT_ERROR, ANOT_ERROR_INVALID_FIELD,
                       "judgement_cache.json: field “%s”: expected an object", name);
          return FALSE;
        }

      /* Not-mentioned is also the answer for an absent key: keep only the
       * entries that say something; a repeated key's last entry decides. */
      judgement = parse_judgement (doc, member (doc, key + 1, "judgement"));
      if (judgement != ANOT_JUDGEMENT_NOT_MENTIONED)
        g_hash_table_insert (ds->judgements, g_steal_pointer (&name), GINT_TO_POINTER (judgement));
      else
        g_hash_table_remove (ds->judgements, name);
    }

  return TRUE;
}

/* ------------------------------------------------------------------------ *
 * meta.json and the items' file name
 * ------------------------------------------------------------------------ */

/* The items are in `restaurants.jsonl` (the original framework's name) or
 * in `items.jsonl`; both at once would leave it to chance which one a
 * reader of the directory takes for the benchmark. */
static gboolean
choose_items_file (Loader  *loader,
                   GError **error)
{
  g_autoptr(GFile) restaurants = g_file_get_child (loader->dir, "restaurants.jsonl");
  g_autoptr(GFile) items = g_file_get_child (loader->dir, "items.jsonl");
  gboolean has_restaurants = g_file_query_exists (restaurants, loader->cancellable);
  gboolean has_items = g_file_query_exists (items, loader->cancellable);

  if (has_restaurants && has_items)
    {
      g_set_error (error, ANOT_ERROR, ANOT_ERROR_INVALID_FIELD,
                   "both items.jsonl and restaurants.jsonl are present: "
                   "keep the items in one of them");
      return FALSE;
    }
  if (has_items)
    {
      g_free (loader->ds->items_file);
      loader->ds->items_file = g_strdup ("items.jsonl");
    }
  /* Otherwise restaurants.jsonl, whose absence the reader reports. */
  return TRUE;
}

/* meta.json is free-form but for its `domain`.  It counts towards the
 * checksum only when it declares one, since only then does it change what
 * a method is shown: the original's meta.json (a description of how the
 * data was built) leaves philly_cafes' checksum as it always was. */
static gboolean
load_meta (Loader  *loader,
           GError **error)
{
  g_autoptr(GFile) file = g_file_get_child (loader->dir, "meta.json");
  g_autofree char *contents = NULL;
  g_autoptr(JsonNode) node = NULL;
  g_autoptr(AnotDomain) domain = NULL;
  GError *local_error = NULL;
  gsize length, offset = 0, bom;
  int value;

  if (!g_file_load_contents (file, loader->cancellable, &contents, &length, NULL, &local_error))
    {
      if (g_error_matches (local_error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND))
        {
          g_error_free (local_error);
          return TRUE;
        }
      return read_failed ("meta.json", local_error, error);
    }

  bom = anot_utf8_bom_length (contents, length);
  if (!_anot_json_document_reparse (loader->doc, contents + bom, length - bom, &offset, &local_error))
    {
      set_parse_error (error, "meta.json", 0, TRUE, contents + bom, offset, local_error);
      g_error_free (local_error);
      return FALSE;
    }
  if (anot_json_document_get_kind (loader->doc, 0) != ANOT_JSON_KIND_OBJECT)
    {
      g_set_error (error, ANOT_ERROR, ANOT_ERROR_PARSE, "meta.json: expected a JSON object");
      return FALSE;
    }

  value = member (loader->doc, 0, "domain");
  if (value < 0 || anot_json_document_get_kind (loader->doc, value) == ANOT_JSON_KIND_NULL)
    return TRUE;

  node = anot_json_document_dup_node (loader->doc, value);
  domain = _anot_domain_new_from_node (node, &local_error);
  if (domain == NULL)
    {
      g_propagate_prefixed_error (error, local_error, "meta.json: ");
      return FALSE;
    }

  hasher_push (&loader->hasher, g_bytes_new_take (g_steal_pointer (&contents), length));
  g_set_object (&loader->ds->domain, domain);
  return TRUE;
}

/* A domain without a glossary names the benchmark's own attributes in
 * prompts: the six most items have (ties: by name). */
static int
compare_counts (gconstpointer a,
                gconstpointer b,
                gpointer      user_data)
{
  GHashTable *counts = user_data;
  const char *x = *(const char * const *) a, *y = *(const char * const *) b;
  guint cx = GPOINTER_TO_UINT (g_hash_table_lookup (counts, x));
  guint cy = GPOINTER_TO_UINT (g_hash_table_lookup (counts, y));

  return cx != cy ? (cx > cy ? -1 : 1) : strcmp (x, y);
}

static void
find_common_attributes (AnotDataset *ds)
{
  g_autoptr(GHashTable) counts = g_hash_table_new (g_str_hash, g_str_equal);
  g_autoptr(GPtrArray) names = g_ptr_array_new ();
  GHashTableIter iter;
  gpointer key;

  if (anot_domain_is_default (ds->domain) || anot_domain_get_attribute_names (ds->domain)[0] != NULL)
    return;

  for (guint i = 0; i < ds->items->len; i++)
    {
      AnotItem *item = ds->items->pdata[i];

      for (guint a = 0; a < _anot_item_get_n_attribute_names (item); a++)
        {
          const char *name = _anot_item_get_attribute_name (item, a);

          g_hash_table_insert (counts, (gpointer) name,
                               GUINT_TO_POINTER (GPOINTER_TO_UINT (g_hash_table_lookup (counts, name)) + 1));
        }
    }
  g_hash_table_iter_init (&iter, counts);
  while (g_hash_table_iter_next (&iter, &key, NULL))
    g_ptr_array_add (names, key);
  g_ptr_array_sort_with_data (names, compare_counts, counts);
  g_ptr_array_set_size (names, MIN (names->len, 6));
  g_ptr_array_add (names, NULL);
  _anot_domain_set_common_attributes (ds->domain, (const char * const *) names->pdata);
}

/* ------------------------------------------------------------------------ *
 * Loading
 * ------------------------------------------------------------------------ */

/**
 * anot_dataset_load:
 * @path: (type filename): a benchmark directory
 * @cancellable: (nullable): a #GCancellable
 * @error: return location for a #GError
 *
 * Loads a benchmark directory (see #AnotDataset for the files).
 *
 * Bad input fails with an error in the %ANOT_ERROR domain whose message
 * names the file, the line and the field, e.g.
 * `reviews.jsonl:12: field “stars”: expected a number` (for the whole-file
 * documents `user_mapping.json` and `judgement_cache.json`, the key path
 * instead of the line).  The codes are %ANOT_ERROR_IO (missing directory or
 * required file, read error), %ANOT_ERROR_PARSE (invalid JSON, a line that
 * is not an object), %ANOT_ERROR_MISSING_FIELD, %ANOT_ERROR_INVALID_FIELD
 * (wrong type, unknown evidence kind or op, a groundtruth line that
 * disagrees with the requests), %ANOT_ERROR_DUPLICATE_ID and
 * %ANOT_ERROR_UNKNOWN_REFERENCE (a review of an unknown item, a gold that is
 * not an item).  Cancellation gives %G_IO_ERROR_CANCELLED.
 *
 * Returns: (transfer full): the dataset, or %NULL on error
 */
AnotDataset *
anot_dataset_load (const char    *path,
                   GCancellable  *cancellable,
                   GError       **error)
{
  g_autoptr(AnotDataset) self = NULL;
  g_autoptr(GFile) dir = NULL;
  g_autoptr(AnotJsonDocument) doc = NULL;
  g_autofree char *digest = NULL;
  Loader loader = { 0, };
  gint64 t0, t1, t2, t3;
  gboolean ok;

  g_return_val_if_fail (path != NULL, NULL);
  g_return_val_if_fail (cancellable == NULL || G_IS_CANCELLABLE (cancellable), NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  dir = g_file_new_for_path (path);
  switch (g_file_query_file_type (dir, G_FILE_QUERY_INFO_NONE, cancellable))
    {
    case G_FILE_TYPE_DIRECTORY:
      break;
    case G_FILE_TYPE_UNKNOWN:
      if (g_cancellable_set_error_if_cancelled (cancellable, error))
        return NULL;
      g_set_error (error, ANOT_ERROR, ANOT_ERROR_IO,
                   "%s: no such dataset directory", path);
      return NULL;
    default:
      g_set_error (error, ANOT_ERROR, ANOT_ERROR_IO,
                   "%s: not a directory", path);
      return NULL;
    }

  self = g_object_new (ANOT_TYPE_DATASET, NULL);
  self->path = g_file_get_path (dir);
  self->name = g_path_get_basename (self->path);

  doc = _anot_json_document_new_reusable ();

  loader.ds = self;
  loader.dir = dir;
  loader.cancellable = cancellable;
  loader.doc = doc;
  loader.spares = g_async_queue_new_full (g_free);
  hasher_start (&loader.hasher);

  /* The order is part of the checksum's definition. */
  t0 = g_get_monotonic_time ();
  ok = choose_items_file (&loader, error) &&
       load_jsonl_parallel (&loader, &item_kind, self->items_file, error);
  t1 = g_get_monotonic_time ();
  ok = ok && load_jsonl_parallel (&loader, &review_kind, NULL, error);
  t2 = g_get_monotonic_time ();
  ok = (ok &&
        load_user_mapping (&loader, error) &&
        load_jsonl (&loader, "requests.jsonl", FALSE, NULL, handle_request, error) &&
        load_groundtruth (&loader, error) &&
        load_judgements (&loader, error) &&
        load_meta (&loader, error));
  t3 = g_get_monotonic_time ();

  digest = hasher_finish (&loader.hasher);
  g_clear_pointer (&loader.graph_names, g_hash_table_unref);
  /* Buffers still out (none once the hasher is done) free themselves. */
  g_async_queue_unref (loader.spares);
  if (!ok)
    return NULL;

  g_debug ("dataset %s: %u items in %.3f s, %u reviews in %.3f s, the rest in %.3f s, "
           "checksum after %.3f s more",
           self->name, self->items->len, (t1 - t0) / 1e6, self->n_reviews, (t2 - t1) / 1e6,
           (t3 - t2) / 1e6, (g_get_monotonic_time () - t3) / 1e6);

  self->checksum = g_steal_pointer (&digest);
  find_common_attributes (self);
  _anot_store_seal (self->store);

  return g_steal_pointer (&self);
}

static void
load_thread (GTask        *task,
             gpointer      source_object,
             gpointer      task_data,
             GCancellable *cancellable)
{
  GError *error = NULL;
  AnotDataset *self;

  self = anot_dataset_load (task_data, cancellable, &error);
  if (self == NULL)
    g_task_return_error (task, error);
  else
    g_task_return_pointer (task, self, g_object_unref);
}

/**
 * anot_dataset_load_async:
 * @path: (type filename): a benchmark directory
 * @cancellable: (nullable): a #GCancellable
 * @callback: (scope async): a callback to call when the dataset is loaded
 * @user_data: data for @callback
 *
 * Loads a benchmark directory in a worker thread; see anot_dataset_load().
 */
void
anot_dataset_load_async (const char          *path,
                         GCancellable        *cancellable,
                         GAsyncReadyCallback  callback,
                         gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;

  g_return_if_fail (path != NULL);
  g_return_if_fail (cancellable == NULL || G_IS_CANCELLABLE (cancellable));

  task = g_task_new (NULL, cancellable, callback, user_data);
  g_task_set_source_tag (task, anot_dataset_load_async);
  g_task_set_task_data (task, g_strdup (path), g_free);
  g_task_run_in_thread (task, load_thread);
}

/**
 * anot_dataset_load_finish:
 * @result: the #GAsyncResult given to the callback
 * @error: return location for a #GError
 *
 * Finishes anot_dataset_load_async().
 *
 * Returns: (transfer full): the dataset, or %NULL on error
 */
AnotDataset *
anot_dataset_load_finish (GAsyncResult  *result,
                          GError       **error)
{
  g_return_val_if_fail (g_task_is_valid (result, NULL), NULL);
  g_return_val_if_fail (g_async_result_is_tagged (result, anot_dataset_load_async), NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  return g_task_propagate_pointer (G_TASK (result), error);
}

/* ------------------------------------------------------------------------ *
 * Accessors
 * ------------------------------------------------------------------------ */

AnotStore *
_anot_dataset_get_store (AnotDataset *self)
{
  g_return_val_if_fail (ANOT_IS_DATASET (self), NULL);

  return self->store;
}

/**
 * anot_dataset_get_name:
 * @self: a #AnotDataset
 *
 * Gets the name of the dataset, the base name of its directory (e.g.
 * `"philly_cafes"`).
 *
 * Returns: (transfer none): the name
 */
const char *
anot_dataset_get_name (AnotDataset *self)
{
  g_return_val_if_fail (ANOT_IS_DATASET (self), NULL);

  return self->name;
}

/**
 * anot_dataset_get_path:
 * @self: a #AnotDataset
 *
 * Gets the absolute path of the dataset directory.
 *
 * Returns: (transfer none) (type filename): the path
 */
const char *
anot_dataset_get_path (AnotDataset *self)
{
  g_return_val_if_fail (ANOT_IS_DATASET (self), NULL);

  return self->path;
}

/**
 * anot_dataset_get_checksum:
 * @self: a #AnotDataset
 *
 * Gets the SHA-256 of the dataset's files (lowercase hex), which identifies
 * the version of the data in results.  See #AnotDataset for the definition.
 *
 * Returns: (transfer none): the checksum
 */
const char *
anot_dataset_get_checksum (AnotDataset *self)
{
  g_return_val_if_fail (ANOT_IS_DATASET (self), NULL);

  return self->checksum;
}

/**
 * anot_dataset_get_domain:
 * @self: an #AnotDataset
 *
 * Gets what the benchmark's items are (see #AnotDomain).
 *
 * Returns: (transfer none): the domain; the restaurant domain when
 *   `meta.json` declares none
 */
AnotDomain *
anot_dataset_get_domain (AnotDataset *self)
{
  g_return_val_if_fail (ANOT_IS_DATASET (self), NULL);
  return self->domain;
}

/**
 * anot_dataset_get_warnings:
 * @self: an #AnotDataset
 *
 * Gets what the loader accepted but a benchmark author would want to
 * know: records it ignored, each message naming the file and the field
 * (e.g. a `review_assignments` record for a review the item does not
 * have).  `anot-run validate` prints them.
 *
 * Returns: (transfer none) (array zero-terminated=1): the messages, empty
 *   when there are none
 */
const char * const *
anot_dataset_get_warnings (AnotDataset *self)
{
  g_return_val_if_fail (ANOT_IS_DATASET (self), NULL);
  return (const char * const *) self->warnings->pdata;
}

/**
 * anot_dataset_get_items_file:
 * @self: an #AnotDataset
 *
 * Returns: the name of the file the items were read from:
 *   `restaurants.jsonl` or `items.jsonl`
 */
const char *
anot_dataset_get_items_file (AnotDataset *self)
{
  g_return_val_if_fail (ANOT_IS_DATASET (self), NULL);
  return self->items_file;
}

/**
 * anot_dataset_get_n_items:
 * @self: a #AnotDataset
 *
 * Gets the number of items.
 *
 * Returns: the number of items
 */
guint
anot_dataset_get_n_items (AnotDataset *self)
{
  g_return_val_if_fail (ANOT_IS_DATASET (self), 0);

  return self->items->len;
}

/**
 * anot_dataset_get_item:
 * @self: a #AnotDataset
 * @index: an item index, less than anot_dataset_get_n_items()
 *
 * Gets the item at @index (its 0-based line in `restaurants.jsonl`).
 *
 * Returns: (transfer none): the item
 */
AnotItem *
anot_dataset_get_item (AnotDataset *self,
                       guint        index)
{
  g_return_val_if_fail (ANOT_IS_DATASET (self), NULL);
  g_return_val_if_fail (index < self->items->len, NULL);

  return g_ptr_array_index (self->items, index);
}

/**
 * anot_dataset_lookup_item:
 * @self: a #AnotDataset
 * @item_id: a `business_id`
 *
 * Finds an item by id.
 *
 * Returns: (transfer none) (nullable): the item, or %NULL if there is none
 */
AnotItem *
anot_dataset_lookup_item (AnotDataset *self,
                          const char  *item_id)
{
  g_return_val_if_fail (ANOT_IS_DATASET (self), NULL);
  g_return_val_if_fail (item_id != NULL, NULL);

  return g_hash_table_lookup (self->items_by_id, item_id);
}

/**
 * anot_dataset_get_n_reviews:
 * @self: a #AnotDataset
 *
 * Gets the number of reviews, over all items.
 *
 * Returns: the number of reviews
 */
guint
anot_dataset_get_n_reviews (AnotDataset *self)
{
  g_return_val_if_fail (ANOT_IS_DATASET (self), 0);

  return self->n_reviews;
}

/**
 * anot_dataset_lookup_review:
 * @self: a #AnotDataset
 * @review_id: a `review_id`
 *
 * Finds a review by id.
 *
 * Returns: (transfer none) (nullable): the review, or %NULL if there is none
 */
AnotReview *
anot_dataset_lookup_review (AnotDataset *self,
                            const char  *review_id)
{
  g_return_val_if_fail (ANOT_IS_DATASET (self), NULL);
  g_return_val_if_fail (review_id != NULL, NULL);

  return g_hash_table_lookup (self->reviews_by_id, review_id);
}

/**
 * anot_dataset_get_n_requests:
 * @self: a #AnotDataset
 *
 * Gets the number of requests.
 *
 * Returns: the number of requests
 */
guint
anot_dataset_get_n_requests (AnotDataset *self)
{
  g_return_val_if_fail (ANOT_IS_DATASET (self), 0);

  return self->requests->len;
}

/**
 * anot_dataset_get_request:
 * @self: a #AnotDataset
 * @index: a request index, less than anot_dataset_get_n_requests()
 *
 * Gets a request, in the order of `requests.jsonl`.
 *
 * Returns: (transfer none): the request
 */
AnotRequest *
anot_dataset_get_request (AnotDataset *self,
                          guint        index)
{
  g_return_val_if_fail (ANOT_IS_DATASET (self), NULL);
  g_return_val_if_fail (index < self->requests->len, NULL);

  return g_ptr_array_index (self->requests, index);
}

/**
 * anot_dataset_lookup_request:
 * @self: a #AnotDataset
 * @request_id: a request id, e.g. `"R01"`
 *
 * Finds a request by id.
 *
 * Returns: (transfer none) (nullable): the request, or %NULL if there is
 *   none
 */
AnotRequest *
anot_dataset_lookup_request (AnotDataset *self,
                             const char  *request_id)
{
  g_return_val_if_fail (ANOT_IS_DATASET (self), NULL);
  g_return_val_if_fail (request_id != NULL, NULL);

  return g_hash_table_lookup (self->requests_by_id, request_id);
}

static int
compare_strings (gconstpointer a,
                 gconstpointer b)
{
  return strcmp (*(const char * const *) a, *(const char * const *) b);
}

/**
 * anot_dataset_list_groups:
 * @self: a #AnotDataset
 *
 * Lists the distinct request groups, sorted (byte order).
 *
 * Returns: (transfer full) (array zero-terminated=1): the groups
 */
char **
anot_dataset_list_groups (AnotDataset *self)
{
  g_autoptr(GPtrArray) groups = NULL;
  g_autoptr(GHashTable) seen = NULL;

  g_return_val_if_fail (ANOT_IS_DATASET (self), NULL);

  groups = g_ptr_array_new ();
  seen = g_hash_table_new (g_str_hash, g_str_equal);
  for (guint i = 0; i < self->requests->len; i++)
    {
      const char *group = anot_request_get_group (g_ptr_array_index (self->requests, i));

      if (g_hash_table_add (seen, (gpointer) group))
        g_ptr_array_add (groups, g_strdup (group));
    }

  g_ptr_array_sort (groups, compare_strings);
  g_ptr_array_add (groups, NULL);

  return (char **) g_ptr_array_free (g_steal_pointer (&groups), FALSE);
}

/**
 * anot_dataset_get_friends:
 * @self: a #AnotDataset
 * @name: a reviewer name
 *
 * Gets the friends of @name in the friend graph of `user_mapping.json`, in
 * file order.  The graph need not be symmetric (in philly_cafes, `Rose`
 * lists `Alice` but not the other way round).
 *
 * Returns: (transfer none) (array zero-terminated=1) (nullable): the
 *   friends, or %NULL if @name is not a key of the graph
 */
const char * const *
anot_dataset_get_friends (AnotDataset *self,
                          const char  *name)
{
  g_return_val_if_fail (ANOT_IS_DATASET (self), NULL);
  g_return_val_if_fail (name != NULL, NULL);

  return g_hash_table_lookup (self->friend_graph, name);
}

/**
 * anot_dataset_get_judgement:
 * @self: a #AnotDataset
 * @review_id: a `review_id`
 * @aspect: an aspect, used exactly as written (case and spaces kept)
 *
 * Looks up the cached LLM judgement of a review about an aspect, by the key
 * `"<review_id>:<aspect>"` of `judgement_cache.json`.  The entry's
 * `judgement` is mapped after lowercasing: `positive`, `pos`, `true`, `yes`
 * to positive; `negative`, `neg`, `false`, `no` to negative; `neutral`,
 * `mixed` to neutral; JSON `true` to positive; anything else, and an absent
 * key, to not-mentioned.
 *
 * Returns: the judgement
 */
AnotJudgement
anot_dataset_get_judgement (AnotDataset *self,
                            const char  *review_id,
                            const char  *aspect)
{
  char stack_key[256];
  g_autofree char *heap_key = NULL;
  const char *key;
  gsize id_len, aspect_len;

  g_return_val_if_fail (ANOT_IS_DATASET (self), ANOT_JUDGEMENT_NOT_MENTIONED);
  g_return_val_if_fail (review_id != NULL, ANOT_JUDGEMENT_NOT_MENTIONED);
  g_return_val_if_fail (aspect != NULL, ANOT_JUDGEMENT_NOT_MENTIONED);

  if (g_hash_table_size (self->judgements) == 0)
    return ANOT_JUDGEMENT_NOT_MENTIONED;

  /* The validator asks for every review of every item: avoid a malloc. */
  id_len = strlen (review_id);
  aspect_len = strlen (aspect);
  if (id_len + aspect_len + 2 <= sizeof stack_key)
    {
      memcpy (stack_key, review_id, id_len);
      stack_key[id_len] = ':';
      memcpy (stack_key + id_len + 1, aspect, aspect_len + 1);
      key = stack_key;
    }
  else
    key = heap_key = g_strconcat (review_id, ":", aspect, NULL);

  return GPOINTER_TO_INT (g_hash_table_lookup (self->judgements, key));
}
