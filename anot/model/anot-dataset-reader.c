/* anot-dataset-reader.c: the benchmark's files read, record by record
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Field access, the checksum's thread, JSON Lines read in a buffer of our
 * own and parsed by worker threads, and the two bulk kinds of record
 * (items, reviews) committed to the dataset in file order.  The loader
 * (anot-dataset-loader.c) calls these for each file of a benchmark.
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "anot-dataset-loader-private.h"
#include "anot-error.h"
#include "anot-json-private.h"
#include "anot-text-private.h"

/* ------------------------------------------------------------------------ *
 * Field access.  Errors read `field “<name>”: ...`; the caller prefixes the
 * file and line.  JSON null counts as absent for optional fields.
 * ------------------------------------------------------------------------ */

gboolean
_anot_loader_field_missing (const char  *display,
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
int
_anot_loader_member (AnotJsonDocument *doc,
                     int               obj,
                     const char       *field)
{
  return _anot_json_document_get_last_member (doc, obj, field, strlen (field));
}

/* Sets *@out to the string member's index, or -1 if it is absent (or null
 * and not @required). */
gboolean
_anot_loader_read_string (AnotJsonDocument  *doc,
                          int                value,
                          const char        *display,
                          gboolean           required,
                          int               *out,
                          GError           **error)
{
  AnotJsonKind kind = anot_json_document_get_kind (doc, value);

  *out = -1;
  if (value < 0 || (!required && kind == ANOT_JSON_KIND_NULL))
    return required ? _anot_loader_field_missing (display, error) : TRUE;

  if (kind == ANOT_JSON_KIND_STRING)
    {
      *out = value;
      return TRUE;
    }

  return field_invalid (display, "a string", error);
}

gboolean
_anot_loader_read_id (AnotJsonDocument  *doc,
                      int                value,
                      const char        *field,
                      int               *out,
                      GError           **error)
{
  if (!_anot_loader_read_string (doc, value, field, TRUE, out, error))
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
    return required ? _anot_loader_field_missing (display, error) : TRUE;

  if (kind == ANOT_JSON_KIND_INTEGER || kind == ANOT_JSON_KIND_DOUBLE)
    {
      *out = anot_json_document_get_double (doc, value, 0);
      *present = TRUE;
      return TRUE;
    }

  return field_invalid (display, "a number", error);
}

gboolean
_anot_loader_read_int (AnotJsonDocument  *doc,
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
    return required ? _anot_loader_field_missing (display, error) : TRUE;

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

void
_anot_loader_hasher_start (Hasher *hasher)
{
  hasher->blocks = g_async_queue_new ();
  hasher->credits = g_async_queue_new ();
  sha256_init (&hasher->sha);
  hasher->in_flight = 0;
  hasher->thread = g_thread_new ("anot-dataset-hash", hasher_thread, hasher);
}

/* Takes ownership of @block. */
void
_anot_loader_hasher_push (Hasher *hasher,
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
char *
_anot_loader_hasher_finish (Hasher *hasher)
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

/* The buffer *@buf is full: the partial line from *@start to *@end moves
 * to a new one, as workers and the hasher may still be reading the old
 * one.  A line that fills a whole buffer doubles it. */
static void
carry_partial_line (Loader   *loader,
                    RcChars **buf,
                    gsize    *cap,
                    gsize    *start,
                    gsize    *end)
{
  gsize new_cap = *start == 0 ? 2 * *cap : *cap;
  RcChars *new_buf = read_buffer_new (loader->spares, new_cap);

  memcpy (new_buf, *buf + *start, *end - *start);
  read_buffer_unref (*buf);
  *buf = new_buf;
  *cap = new_cap;
  *end -= *start;
  *start = 0;
}

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

gboolean
_anot_loader_read_failed (const char  *basename,
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
void
_anot_loader_set_parse_error (GError     **error,
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
      _anot_loader_set_parse_error (error, basename, line_no, FALSE, line, offset, json_error);
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
gboolean
_anot_loader_load_jsonl (Loader       *loader,
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

          if (end == cap)
            carry_partial_line (loader, &buf, &cap, &start, &end);
          scan = end;

          n = g_input_stream_read (stream, buf + end, cap - end,
                                   loader->cancellable, &local_error);
          if (n < 0)
            return _anot_loader_read_failed (basename, local_error, error);
          if (n == 0)
            eof = TRUE;
          else
            {
              _anot_loader_hasher_push (&loader->hasher,
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

      loader->line_no = line_no;
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
gboolean
_anot_loader_load_json_document (Loader      *loader,
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
      return _anot_loader_read_failed (basename, local_error, error);
    }

  _anot_loader_hasher_push (&loader->hasher, g_bytes_new (*contents, length));

  bom = anot_utf8_bom_length (*contents, length);
  if (!_anot_json_document_reparse (loader->doc, *contents + bom, length - bom, &offset, &local_error))
    {
      _anot_loader_set_parse_error (error, basename, 0, TRUE, *contents + bom, offset, local_error);
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
   * adopts when the batch is committed.  @previous is the batch's record
   * before, or NULL. */
  gboolean  (*parse)  (AnotJsonDocument  *doc,
                       const char        *line,
                       gsize              len,
                       AnotStore         *store,
                       AnotStore         *owner,
                       const Parsed      *previous,
                       Parsed            *parsed,
                       GError           **error);
  /* On the loading thread, in file order. */
  gboolean  (*commit) (Loader      *loader,
                       Parsed      *parsed,
                       GError     **error);
  /* Optional, on the loading thread: @parsed will be committed soon. */
  void      (*prefetch) (Loader    *loader,
                         Parsed    *parsed);
  /* Optional, on the loading thread, once: about @n records will come. */
  void      (*reserve)  (Loader    *loader,
                         guint64    n);
  void      (*clear)  (Parsed      *parsed);
} RecordKind;

/* The line of @basename where the record whose @field is @id first
 * occurs, before line @before; 0 if none is found.  Only a duplicate id
 * asks, so reading the file again costs nothing a good load pays. */
static guint
first_line_of (Loader     *loader,
               const char *basename,
               const char *field,
               const char *id,
               guint       before)
{
  g_autoptr(GFile) file = g_file_get_child (loader->dir, basename);
  g_autofree char *contents = NULL;
  gsize length;
  const char *line, *end;
  guint line_no = 1;

  if (!g_file_load_contents (file, loader->cancellable, &contents, &length, NULL, NULL))
    return 0;
  end = contents + length;
  line = contents + anot_utf8_bom_length (contents, length);
  for (; line < end && line_no < before; line_no++)
    {
      const char *eol = memchr (line, '\n', end - line);
      gsize len = (eol != NULL ? eol : end) - line;

      /* Parsing only the lines that hold the id. */
      if (g_strstr_len (line, len, id) != NULL)
        {
          g_autoptr(AnotJsonDocument) doc = anot_json_document_new_from_data (line, len, NULL);
          int value = doc != NULL ? _anot_loader_member (doc, 0, field) : -1;
          g_autofree char *found = NULL;

          if (value >= 0 && anot_json_document_get_kind (doc, value) == ANOT_JSON_KIND_STRING)
            found = anot_json_document_dup_string (doc, value);
          if (g_strcmp0 (found, id) == 0)
            return line_no;
        }
      if (eol == NULL)
        break;
      line = eol + 1;
    }
  return 0;
}

/* "duplicate <what> id “<id>” (first at <file>:<line>)" */
static gboolean
duplicate_id (Loader     *loader,
              const char *basename,
              const char *field,
              const char *what,
              const char *id,
              guint       line_no,
              GError    **error)
{
  guint first = first_line_of (loader, basename, field, id, line_no);

  if (first > 0)
    g_set_error (error, ANOT_ERROR, ANOT_ERROR_DUPLICATE_ID,
                 "field “%s”: duplicate %s id “%s” (first at %s:%u)",
                 field, what, id, basename, first);
  else
    g_set_error (error, ANOT_ERROR, ANOT_ERROR_DUPLICATE_ID,
                 "field “%s”: duplicate %s id “%s”", field, what, id);
  return FALSE;
}

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
            const Parsed      *previous,
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

  if (g_hash_table_contains (ds->items_by_id, anot_item_get_id (p->item)))
    return duplicate_id (loader, ds->items_file, "business_id", "item",
                         anot_item_get_id (p->item), parsed->line_no, error);

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
  "restaurants.jsonl", sizeof (ParsedItem), 64 * 1024, parse_item, commit_item, NULL, NULL, clear_item,
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

/* Whether the string @value of @doc is @str. */
static gboolean
same_string (AnotJsonDocument *doc,
             int               value,
             const char       *str)
{
  char buffer[256];
  g_autofree char *heap = NULL;
  const char *bytes;
  gsize len;

  bytes = _anot_json_document_peek_string (doc, value, buffer, sizeof buffer, &heap, &len);
  /* strncmp() stops at the end of a shorter @str. */
  return strncmp (str, bytes, len) == 0 && str[len] == '\0';
}

/* Reads one review record (the root of @doc) into a review whose strings
 * are in @store.  Touches nothing shared, so workers call it.  The checks
 * come in a fixed order: the first bad field is the one reported. */
static AnotReview *
parse_review (AnotJsonDocument  *doc,
              AnotStore         *store,
              AnotStore         *owner,
              const char        *previous_item_id,
              gboolean          *same_item,
              GError           **error)
{
  /* In the order Yelp's files list them: the lookup tries the name after
   * the last one found first. */
  enum { ID, ITEM_ID, USER_ID, STARS, TEXT, DATE, USEFUL, FUNNY, COOL, USER, N_FIELDS };
  static const AnotJsonName names[N_FIELDS] = {
    ANOT_JSON_NAME ("review_id"), ANOT_JSON_NAME ("business_id"), ANOT_JSON_NAME ("user_id"),
    ANOT_JSON_NAME ("stars"), ANOT_JSON_NAME ("text"), ANOT_JSON_NAME ("date"),
    ANOT_JSON_NAME ("useful"), ANOT_JSON_NAME ("funny"), ANOT_JSON_NAME ("cool"),
    ANOT_JSON_NAME ("user"),
  };
  enum { REVIEW_COUNT, AVERAGE_STARS, YELPING_SINCE, N_USER_FIELDS };
  static const AnotJsonName user_names[N_USER_FIELDS] = {
    ANOT_JSON_NAME ("review_count"), ANOT_JSON_NAME ("average_stars"),
    ANOT_JSON_NAME ("yelping_since"),
  };
  AnotReviewFields f = { 0 };
  int v[N_FIELDS], u[N_USER_FIELDS];
  int id, item_id, text, user_id, date, user, yelping_since = -1;
  gboolean present;

  /* All members in one pass; checked below in a fixed order. */
  _anot_json_document_find_members (doc, 0, names, N_FIELDS, v);

  if (!_anot_loader_read_id (doc, v[ID], "review_id", &id, error) ||
      !_anot_loader_read_string (doc, v[ITEM_ID], "business_id", TRUE, &item_id, error) ||
      !read_number (doc, v[STARS], "stars", TRUE, &f.stars, &present, error) ||
      !_anot_loader_read_string (doc, v[TEXT], "text", TRUE, &text, error))
    return NULL;

  /* The rules compare stars with thresholds and average them: a 9 or a 0
   * (a 10-point scale, a typo) would pass or fail conditions silently. */
  if (!(f.stars >= 1.0 && f.stars <= 5.0))
    {
      field_invalid ("stars", "a number from 1 to 5", error);
      return NULL;
    }

  if (!_anot_loader_read_string (doc, v[USER_ID], "user_id", FALSE, &user_id, error) ||
      !_anot_loader_read_string (doc, v[DATE], "date", FALSE, &date, error))
    return NULL;

  if (!_anot_loader_read_int (doc, v[USEFUL], "useful", FALSE, &f.useful, &present, error))
    return NULL;
  if (present)
    f.flags |= ANOT_REVIEW_HAS_USEFUL;
  if (!_anot_loader_read_int (doc, v[FUNNY], "funny", FALSE, &f.funny, &present, error))
    return NULL;
  if (present)
    f.flags |= ANOT_REVIEW_HAS_FUNNY;
  if (!_anot_loader_read_int (doc, v[COOL], "cool", FALSE, &f.cool, &present, error))
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

      if (!_anot_loader_read_int (doc, u[REVIEW_COUNT], "user.review_count", FALSE,
                     &f.user_review_count, &present, error))
        return NULL;
      if (present)
        f.flags |= ANOT_REVIEW_HAS_USER_REVIEW_COUNT;
      if (!read_number (doc, u[AVERAGE_STARS], "user.average_stars", FALSE,
                        &f.user_average_stars, &present, error))
        return NULL;
      if (present)
        f.flags |= ANOT_REVIEW_HAS_USER_AVERAGE_STARS;
      if (!_anot_loader_read_string (doc, u[YELPING_SINCE], "user.yelping_since", FALSE,
                        &yelping_since, error))
        return NULL;
    }

  /* Decoded once, straight into the place they will stay. */
  f.id = store_string (store, doc, id);
  /* The reviews of an item come one after the other: they share the
   * first one's copy of its id, and the loading thread looks the item up
   * once for all of them. */
  if (previous_item_id != NULL && same_string (doc, item_id, previous_item_id))
    {
      f.item_id = previous_item_id;
      *same_item = TRUE;
    }
  else
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
  gboolean    same_item;        /* as the batch's review before */
  guint32     id_hash;          /* for the dataset's table, computed here */
} ParsedReview;

static gboolean
parse_review_line (AnotJsonDocument  *doc,
                   const char        *line,
                   gsize              len,
                   AnotStore         *store,
                   AnotStore         *owner,
                   const Parsed      *previous,
                   Parsed            *parsed,
                   GError           **error)
{
  ParsedReview *p = (ParsedReview *) parsed;
  const char *previous_item_id = NULL;
  const char *id;

  if (previous != NULL)
    previous_item_id = anot_review_get_item_id (((const ParsedReview *) previous)->review);
  p->review = parse_review (doc, store, owner, previous_item_id, &p->same_item, error);
  if (p->review == NULL)
    return FALSE;
  id = anot_review_get_id (p->review);
  p->id_hash = _anot_id_table_hash (id, strlen (id));
  return TRUE;
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

  /* The batch's review before was committed just now, to this item. */
  item = loader->last_item;
  if (!p->same_item && (item == NULL || strcmp (anot_item_get_id (item), item_id) != 0))
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

  /* One probe for the check and the insertion. */
  if (!_anot_id_table_insert (ds->reviews_by_id, id, p->id_hash, p->review))
    return duplicate_id (loader, "reviews.jsonl", "review_id", "review", id,
                         parsed->line_no, error);

  loader->review_fields |= _anot_review_get_flags (p->review);
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

/* A worker built the review, so the loading thread's first look at it
 * and at its slot in the id table would each wait for memory. */
static void
prefetch_review (Loader *loader,
                 Parsed *parsed)
{
  ParsedReview *p = (ParsedReview *) parsed;

#if defined (__GNUC__)
  __builtin_prefetch (p->review, 1);
#endif
  _anot_id_table_prefetch (loader->ds->reviews_by_id, p->id_hash);
}

/* A table grown step by step to a million reviews faults in twice its
 * final size (a tenth of the load's page faults); sized once, it does not
 * move either. */
static void
reserve_reviews (Loader  *loader,
                 guint64  n)
{
  _anot_id_table_reserve (loader->ds->reviews_by_id, n);
}

static const RecordKind review_kind = {
  "reviews.jsonl", sizeof (ParsedReview), STORE_BATCH_SIZED,
  parse_review_line, commit_review, prefetch_review, reserve_reviews, clear_review,
};

/* The batch machinery */

/* Complete lines of one file, parsed by a worker.  A worker does not
 * know where in the file its lines are (counting the lines before it
 * would be one more pass over every byte on the loading thread): it
 * numbers them from 0, and the loading thread adds the lines of the
 * batches before when it commits. */
typedef struct {
  RcChars    *buf;             /* holds the lines */
  const char *data;
  gsize       len;
  gboolean    starts_file;     /* its first line is the file's line 1 */
  /* Written by the worker before it sets done */
  AnotStore  *store;
  GArray     *parsed;          /* of kind->parsed_size, line numbers from 0 */
  guint       n_newlines;      /* if it did not fail */
  gboolean    failed;          /* on the line after the last parsed record: */
  guint       failed_line_no;  /* ...its number from 0, */
  const char *failed_line;     /* ...its text */
  gsize       failed_len;
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
  guint             next_line_no;  /* of the first line of the next batch committed */
  guint64           file_size;     /* 0 if unknown */
  gboolean          reserved;      /* kind->reserve was called */
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
  g_free (batch);
}

/* Parses the line @line_no of the file, @line[0..@len) (not blank, its
 * byte order mark skipped), into @parsed.  On failure sets @error (which
 * may be NULL) as "file:line: ...". */
static gboolean
parse_record (ParallelReader    *pr,
              AnotJsonDocument  *doc,
              AnotStore         *store,
              guint              line_no,
              const char        *line,
              gsize              len,
              const Parsed      *previous,
              Parsed            *parsed,
              GError           **error)
{
  const RecordKind *kind = pr->kind;
  GError *local_error = NULL;

  if (!parse_line (doc, pr->basename, line_no, line, len, error))
    return FALSE;

  memset (parsed, 0, kind->parsed_size);
  parsed->line_no = line_no;
  if (!kind->parse (doc, line, len, store, pr->owner, previous, parsed, &local_error))
    {
      if (kind->clear != NULL)
        kind->clear (parsed);
      g_propagate_prefixed_error (error, local_error, "%s:%u: ", pr->basename, line_no);
      return FALSE;
    }

  return TRUE;
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
      guint line_no = 0;

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
          const Parsed *previous;

          p = nl != NULL ? nl + 1 : end;
          if (nl != NULL)
            batch->n_newlines++;
          if (batch->starts_file && line_no == 0)
            skip_bom (1, &line, &len);
          if (is_blank (line, len))
            continue;

          previous = batch->parsed->len > 0
                     ? (const Parsed *) (batch->parsed->data + (batch->parsed->len - 1) * kind->parsed_size)
                     : NULL;
          /* The error is worded when the batch is committed, with the
           * line's number in the file. */
          if (!parse_record (pr, doc, batch->store, line_no, line, len, previous, parsed, NULL))
            {
              batch->failed = TRUE;
              batch->failed_line_no = line_no;
              batch->failed_line = line;
              batch->failed_len = len;
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

/* The error of the line that failed in @batch, whose first line is
 * @first_line_no: the line parsed again, now that its number is known. */
static void
set_batch_error (ParallelReader  *pr,
                 Batch           *batch,
                 guint            first_line_no,
                 GError         **error)
{
  const RecordKind *kind = pr->kind;
  g_autoptr(AnotJsonDocument) doc = _anot_json_document_new_reusable ();
  g_autoptr(AnotStore) store = NULL;
  g_autofree Parsed *parsed = g_malloc0 (kind->parsed_size);
  guint line_no = first_line_no + batch->failed_line_no;

  if (kind->store_block_size != STORE_NONE)
    store = _anot_store_new (kind->store_block_size == STORE_BATCH_SIZED ? batch->failed_len + 1
                                                                         : kind->store_block_size);
  if (parse_record (pr, doc, store, line_no, batch->failed_line, batch->failed_len,
                    NULL, parsed, error))
    {
      /* Parsing is a function of the line: it cannot pass now. */
      if (kind->clear != NULL)
        kind->clear (parsed);
      g_set_error (error, ANOT_ERROR, ANOT_ERROR_PARSE,
                   "%s:%u: the line could not be read", pr->basename, line_no);
    }
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

  /* The first batch's lines tell about how many the file holds; a little
   * less is asked for, as a table one power of two too large would take
   * twice the memory for nothing. */
  if (ok && kind->reserve != NULL && !pr->reserved && pr->file_size > 0 &&
      batch->parsed != NULL && batch->parsed->len > 0)
    {
      kind->reserve (loader, pr->file_size * batch->parsed->len / batch->len * 7 / 8);
      pr->reserved = TRUE;
    }

  for (guint i = 0; ok && batch->parsed != NULL && i < batch->parsed->len; i++)
    {
      Parsed *parsed = (Parsed *) (batch->parsed->data + i * kind->parsed_size);
      GError *local_error = NULL;

      /* Far enough ahead for the memory to arrive first. */
      if (kind->prefetch != NULL && i + 8 < batch->parsed->len)
        kind->prefetch (loader, (Parsed *) (batch->parsed->data + (i + 8) * kind->parsed_size));

      parsed->line_no += pr->next_line_no;
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
  if (ok && batch->failed)
    {
      set_batch_error (pr, batch, pr->next_line_no, error);
      ok = FALSE;
    }
  pr->next_line_no += batch->n_newlines;

  batch_free (pr, batch);

  return ok;
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
  guint n_workers, max_pending;
  gboolean first_batch = TRUE;
  gboolean eof = FALSE, ok = TRUE;
  GError *local_error = NULL;

  pr.kind = kind;
  pr.basename = basename != NULL ? basename : kind->basename;
  pr.owner = loader->ds->store;
  pr.next_line_no = 1;
  stream = open_file (loader, pr.basename, FALSE, error);
  if (stream == NULL)
    return FALSE;
  if (kind->reserve != NULL)
    {
      g_autoptr(GFileInfo) info = g_file_input_stream_query_info (G_FILE_INPUT_STREAM (stream),
                                                                  G_FILE_ATTRIBUTE_STANDARD_SIZE,
                                                                  NULL, NULL);

      if (info != NULL)
        pr.file_size = (guint64) g_file_info_get_size (info);
    }

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

      if (end == cap)
        carry_partial_line (loader, &buf, &cap, &start, &end);

      n = g_input_stream_read (stream, buf + end, cap - end, loader->cancellable, &local_error);
      if (n < 0)
        {
          ok = _anot_loader_read_failed (pr.basename, local_error, error);
          break;
        }

      if (n == 0)
        {
          eof = TRUE;
          batch_end = end;      /* the last line may lack a newline */
        }
      else
        {
          _anot_loader_hasher_push (&loader->hasher,
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
          batch->starts_file = first_batch;
          first_batch = FALSE;
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

gboolean
_anot_loader_load_items (Loader      *loader,
                         const char  *basename,
                         GError     **error)
{
  return load_jsonl_parallel (loader, &item_kind, basename, error);
}

gboolean
_anot_loader_load_reviews (Loader  *loader,
                           GError **error)
{
  return load_jsonl_parallel (loader, &review_kind, NULL, error);
}
