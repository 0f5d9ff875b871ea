/* anot-id-table.c: records found by their string id
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "anot-id-table-private.h"

#include <string.h>

#include "anot-text-private.h"

/* Sixteen bytes: a million reviews take 32 MB of slots, less than a
 * GHashTable's hashes, keys and values. */
typedef struct {
  gpointer    value;           /* NULL: the slot is free */
  guint32     hash;
} Slot;

struct _AnotIdTable {
  AnotIdTableKeyFunc key_of;
  Slot  *slots;
  guint  mask;                 /* the number of slots - 1 */
  guint  n;
};

guint32
_anot_id_table_hash (const char *key,
                     gsize       len)
{
  return anot_hash_bytes (key, len);
}

AnotIdTable *
_anot_id_table_new (AnotIdTableKeyFunc key_of)
{
  AnotIdTable *table = g_new0 (AnotIdTable, 1);

  table->key_of = key_of;
  table->mask = 63;
  table->slots = g_new0 (Slot, table->mask + 1);
  return table;
}

void
_anot_id_table_free (AnotIdTable *table)
{
  if (table == NULL)
    return;
  g_free (table->slots);
  g_free (table);
}

/* Linear probing: the slot of @key, or the free slot where it goes. */
static Slot *
find_slot (AnotIdTable *table,
           const char  *key,
           guint32      hash)
{
  for (guint i = hash & table->mask;; i = (i + 1) & table->mask)
    {
      Slot *slot = &table->slots[i];

      if (slot->value == NULL || (slot->hash == hash && strcmp (table->key_of (slot->value), key) == 0))
        return slot;
    }
}

/* Moves the slots to a table of @size (a power of two, larger). */
static void
resize (AnotIdTable *table,
        guint        size)
{
  Slot *old = table->slots;
  guint old_size = table->mask + 1;

  table->mask = size - 1;
  /* Written now, not calloc()ed: a probe's read of a fresh page would map
   * the zero page and the insertion's write fault again, two faults a
   * page of a table that fills at random. */
  table->slots = g_new (Slot, size);
  memset (table->slots, 0, size * sizeof (Slot));
  for (guint i = 0; i < old_size; i++)
    {
      if (old[i].value != NULL)
        {
          /* Keys are distinct: the first free slot. */
          guint j = old[i].hash & table->mask;

          while (table->slots[j].value != NULL)
            j = (j + 1) & table->mask;
          table->slots[j] = old[i];
        }
    }
  g_free (old);
}

gboolean
_anot_id_table_insert (AnotIdTable *table,
                       const char  *key,
                       guint32      hash,
                       gpointer     value)
{
  Slot *slot;

  g_return_val_if_fail (key != NULL, FALSE);
  g_return_val_if_fail (value != NULL, FALSE);

  /* At most half full, so that probes stay short. */
  if (2 * (table->n + 1) > table->mask + 1)
    resize (table, 2 * (table->mask + 1));

  slot = find_slot (table, key, hash);
  if (slot->value != NULL)
    return FALSE;
  slot->value = value;
  slot->hash = hash;
  table->n++;

  return TRUE;
}

gpointer
_anot_id_table_lookup (AnotIdTable *table,
                       const char  *key)
{
  g_return_val_if_fail (key != NULL, NULL);

  return find_slot (table, key, _anot_id_table_hash (key, strlen (key)))->value;
}

void
_anot_id_table_reserve (AnotIdTable *table,
                        guint64      n)
{
  guint64 size = table->mask + 1;

  /* Half full at most, as insertions keep it; a wild guess changes
   * nothing. */
  if (n > G_MAXUINT / 4)
    return;
  while (size < 2 * n)
    size *= 2;
  if (size > table->mask + 1)
    resize (table, (guint) size);
}

void
_anot_id_table_prefetch (AnotIdTable *table,
                         guint32      hash)
{
#if defined (__GNUC__)
  __builtin_prefetch (&table->slots[hash & table->mask], 1);
#endif
}

guint
_anot_id_table_size (AnotIdTable *table)
{
  return table->n;
}
