/* anot-id-table-private.h: records found by their string id
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* A dataset holds a million reviews by id.  GHashTable hashes each id on
 * the thread that inserts it, the loading thread, where the string is
 * cold (a worker wrote it): that hash and the insertion were a tenth of
 * the loader's CPU.  Here the hash is computed by the worker that read
 * the id and handed over with it, and a record is looked at (for its id)
 * only when the hashes are equal.  Values belong to the caller and must
 * outlive the table. */
typedef struct _AnotIdTable AnotIdTable;

/* The id of @value. */
typedef const char *(*AnotIdTableKeyFunc) (gconstpointer value);

/* The hash of @key[0..@len), as the table computes it. */
guint32      _anot_id_table_hash   (const char  *key,
                                    gsize        len);
AnotIdTable *_anot_id_table_new    (AnotIdTableKeyFunc key_of);
void         _anot_id_table_free   (AnotIdTable *table);
/* Adds @value (not NULL), whose key is @key and its hash @hash, unless
 * the table has @key already: then returns FALSE and changes nothing. */
gboolean     _anot_id_table_insert (AnotIdTable *table,
                                    const char  *key,
                                    guint32      hash,
                                    gpointer     value);
gpointer     _anot_id_table_lookup (AnotIdTable *table,
                                    const char  *key);
/* Room for about @n keys in all, made at once. */
void         _anot_id_table_reserve (AnotIdTable *table,
                                     guint64      n);
/* Asks the processor for the slot where a key of @hash would go, ahead of
 * its insertion (a million random slots miss every cache). */
void         _anot_id_table_prefetch (AnotIdTable *table,
                                      guint32      hash);
guint        _anot_id_table_size   (AnotIdTable *table);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (AnotIdTable, _anot_id_table_free)

G_END_DECLS
