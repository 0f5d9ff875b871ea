/* anot-shared-table.c: values shared while requests use them
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "anot-shared-table-private.h"

typedef struct
{
  gpointer key;
  gpointer value;
  GList    link;
} Entry;

/* @ref of the value of @key, built with @create the first time; the
 * value is then the most recently used, and the least recently used
 * beyond max_size is released. */
gpointer
anot_shared_table_lookup (AnotSharedTable       *table,
                          gpointer               key,
                          AnotSharedTableCreate  create,
                          AnotSharedTableRef     ref)
{
  Entry *entry;
  gpointer out;

  g_mutex_lock (&table->lock);
  if (table->by_key == NULL)
    table->by_key = g_hash_table_new (NULL, NULL);
  entry = g_hash_table_lookup (table->by_key, key);
  if (entry != NULL)
    g_queue_unlink (&table->order, &entry->link);
  else
    {
      entry = g_new0 (Entry, 1);
      entry->key = key;
      entry->value = create (key);
      entry->link.data = entry;
      g_hash_table_insert (table->by_key, key, entry);
      if (table->order.length >= table->max_size)
        {
          Entry *oldest = g_queue_peek_tail (&table->order);

          g_queue_unlink (&table->order, &oldest->link);
          g_hash_table_remove (table->by_key, oldest->key);
          table->release (oldest->value);
          g_free (oldest);
        }
    }
  g_queue_push_head_link (&table->order, &entry->link);
  out = ref (entry->value);
  g_mutex_unlock (&table->lock);
  return out;
}
