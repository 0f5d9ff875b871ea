/* anot-dataset-loader-private.h: what the loader's two halves share
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * anot-dataset.c is the type and its lookups, anot-dataset-reader.c reads
 * files (field access, the checksum, JSON Lines in worker threads, items
 * and reviews), anot-dataset-loader.c puts a benchmark together from them
 * (the friend graph, assignments, requests, ground truth, judgements,
 * meta.json).  Private to those three files.
 */
#pragma once

#if !defined(ANOT_COMPILATION)
#error "anot-dataset-loader-private.h is private to libanot."
#endif

#include <nettle/sha2.h>

#include "anot-dataset-private.h"
#include "anot-domain.h"
#include "anot-id-table-private.h"

G_BEGIN_DECLS

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
  AnotIdTable *reviews_by_id;   /* review id -> AnotReview */
  guint       n_reviews;
  GPtrArray  *requests;
  GHashTable *requests_by_id;   /* request id -> AnotRequest */
  GHashTable *friend_graph;     /* name -> NULL-terminated names, in the store */
  GHashTable *judgements;       /* "<review_id>:<aspect>" -> AnotJudgement */
  AnotDomain *domain;
  char       *items_file;       /* "restaurants.jsonl" or "items.jsonl" */
  GPtrArray  *warnings;         /* NULL-terminated messages */
};

G_GNUC_INTERNAL
extern const char * const _anot_dataset_empty_strv[];

G_GNUC_INTERNAL G_GNUC_PRINTF (2, 3)
void _anot_dataset_add_warning (AnotDataset *self,
                                const char  *format,
                                ...);

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


typedef struct {
  AnotDataset  *ds;
  GFile        *dir;
  GCancellable *cancellable;
  Hasher        hasher;
  AnotJsonDocument *doc;       /* the small files', one at a time */
  AnotItem     *last_item;      /* reviews of one item are usually contiguous */
  GHashTable   *gt_seen;        /* requests with a groundtruth.jsonl line */
  GHashTable   *graph_names;    /* everyone in the friend graph, borrowed */
  GHashTable   *known_paths;    /* request paths looked up: "path" -> found? */
  /* AnotReviewFlags some review has, gathered as reviews are committed
   * and assigned: a look at a million reviews afterwards, for a request's
   * warning, missed the cache on every one. */
  guint         review_fields;
  guint         line_no;        /* of the line the LineHandler is given */
  GAsyncQueue  *spares;         /* read buffers to read into again */
} Loader;

/* A line's object is the root of @doc. */
typedef gboolean (*LineHandler) (Loader            *loader,
                                 AnotJsonDocument  *doc,
                                 GError           **error);

/* Field access.  Errors read `field “<name>”: ...`; the caller prefixes
 * the file and line.  JSON null counts as absent for optional fields. */
G_GNUC_INTERNAL
gboolean _anot_loader_field_missing (const char  *display,
                                     GError     **error);

G_GNUC_INTERNAL
int _anot_loader_member (AnotJsonDocument *doc,
                         int               obj,
                         const char       *field);

G_GNUC_INTERNAL
gboolean _anot_loader_read_string (AnotJsonDocument  *doc,
                                   int                value,
                                   const char        *display,
                                   gboolean           required,
                                   int               *out,
                                   GError           **error);

G_GNUC_INTERNAL
gboolean _anot_loader_read_id (AnotJsonDocument  *doc,
                               int                value,
                               const char        *field,
                               int               *out,
                               GError           **error);

G_GNUC_INTERNAL
gboolean _anot_loader_read_int (AnotJsonDocument  *doc,
                                int                value,
                                const char        *display,
                                gboolean           required,
                                gint64            *out,
                                gboolean          *present,
                                GError           **error);

G_GNUC_INTERNAL
void _anot_loader_hasher_start (Hasher *hasher);

G_GNUC_INTERNAL
void _anot_loader_hasher_push (Hasher *hasher,
                               GBytes *block);

G_GNUC_INTERNAL
char * _anot_loader_hasher_finish (Hasher *hasher);

G_GNUC_INTERNAL
gboolean _anot_loader_read_failed (const char  *basename,
                                   GError      *local_error,
                                   GError     **error);

G_GNUC_INTERNAL
void _anot_loader_set_parse_error (GError     **error,
                                   const char  *basename,
                                   guint        line_no,
                                   gboolean     whole_document,
                                   const char  *data,
                                   gsize        offset,
                                   GError      *json_error);

G_GNUC_INTERNAL
gboolean _anot_loader_load_jsonl (Loader       *loader,
                                  const char   *basename,
                                  gboolean      optional,
                                  gboolean     *out_found,
                                  LineHandler   handler,
                                  GError      **error);

G_GNUC_INTERNAL
gboolean _anot_loader_load_json_document (Loader      *loader,
                                          const char  *basename,
                                          char       **contents,
                                          GError     **error);

G_GNUC_INTERNAL
gboolean _anot_loader_load_items (Loader      *loader,
                                  const char  *basename,
                                  GError     **error);

G_GNUC_INTERNAL
gboolean _anot_loader_load_reviews (Loader  *loader,
                                    GError **error);

G_END_DECLS
