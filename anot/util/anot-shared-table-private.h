/* anot-shared-table-private.h: values shared while requests use them
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Several requests in flight read the same items; what libanot derives
 * from an item (its dict-context record, the evaluator's values of it) is
 * built once and shared through such a table instead of once per request.
 * The table keeps the most recently used max_size values, so what it
 * holds beyond the requests alive is bounded whatever the number of
 * requests done; a caller keeps its own reference, so eviction never
 * changes what a request holds.  Thread-safe.
 */
#pragma once

#if !defined(ANOT_COMPILATION)
#error "anot-shared-table-private.h is private to libanot."
#endif

#include <glib.h>

G_BEGIN_DECLS

/* The value of @key; it must keep @key alive (the table is keyed by the
 * pointer). */
typedef gpointer (*AnotSharedTableCreate) (gpointer key);
/* The caller's own reference to @value (called with the table locked). */
typedef gpointer (*AnotSharedTableRef)    (gpointer value);

typedef struct
{
  GMutex          lock;
  GHashTable     *by_key;       /* key -> entry, made on first use */
  GQueue          order;        /* entries, most recently used first */
  guint           max_size;
  GDestroyNotify  release;      /* drops the table's hold of a value */
} AnotSharedTable;

/* A static table: `static AnotSharedTable t = ANOT_SHARED_TABLE_INIT (256, free_func);` */
#define ANOT_SHARED_TABLE_INIT(max, release_func) \
  { .order = G_QUEUE_INIT, .max_size = (max), .release = (GDestroyNotify) (release_func) }

gpointer anot_shared_table_lookup (AnotSharedTable       *table,
                                   gpointer               key,
                                   AnotSharedTableCreate  create,
                                   AnotSharedTableRef     ref);

G_END_DECLS
