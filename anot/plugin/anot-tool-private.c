/* anot-tool-private.c: helpers shared by the built-in tools and the agent toolbox
 *
 * They live below both: the tools (check, search_reviews) and the
 * toolbox that offers them read the same dict context and arguments.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "anot-tool-private.h"

#include <stdlib.h>
#include <string.h>


static int
compare_items (gconstpointer a,
               gconstpointer b)
{
  const AnotToolItem *x = a;
  const AnotToolItem *y = b;

  if (x->number != y->number)
    return x->number < y->number ? -1 : 1;
  return strcmp (x->key, y->key);
}

GArray *
_anot_tool_list_items (JsonNode  *data,
                        char     **out_message)
{
  JsonNode *items_node;
  JsonObjectIter iter;
  const char *key;
  JsonNode *member;
  GArray *items;

  if (data == NULL || !JSON_NODE_HOLDS_OBJECT (data) ||
      (items_node = json_object_get_member (json_node_get_object (data), "items")) == NULL ||
      !JSON_NODE_HOLDS_OBJECT (items_node))
    {
      *out_message = g_strdup ("The data has no \"items\" object");
      return NULL;
    }

  items = g_array_new (FALSE, FALSE, sizeof (AnotToolItem));
  json_object_iter_init (&iter, json_node_get_object (items_node));
  while (json_object_iter_next (&iter, &key, &member))
    {
      AnotToolItem item = { key, 0, NULL };
      guint64 number = 0;

      if (!JSON_NODE_HOLDS_OBJECT (member))
        continue;
      g_ascii_string_to_unsigned (key, 10, 0, G_MAXUINT, &number, NULL);
      item.number = (guint) number;
      item.item = json_node_get_object (member);
      g_array_append_val (items, item);
    }
  g_array_sort (items, compare_items);
  return items;
}

static gboolean
item_number (JsonNode *node,
             guint64  *out)
{
  if (!JSON_NODE_HOLDS_VALUE (node))
    return FALSE;
  if (json_node_get_value_type (node) == G_TYPE_INT64)
    {
      gint64 v = json_node_get_int (node);

      if (v < 0)
        return FALSE;
      *out = (guint64) v;
      return TRUE;
    }
  if (json_node_get_value_type (node) == G_TYPE_STRING)
    {
      const char *text = json_node_get_string (node);

      while (*text == ' ' || *text == '#')
        text++;
      return g_ascii_string_to_unsigned (text, 10, 0, G_MAXUINT, out, NULL);
    }
  return FALSE;
}

GArray *
_anot_tool_select_items (GArray     *items,
                          JsonNode   *selection,
                          char      **out_message)
{
  g_autoptr(GArray) wanted = g_array_new (FALSE, FALSE, sizeof (guint64));
  GArray *out;

  if (selection == NULL || JSON_NODE_HOLDS_NULL (selection))
    return g_array_ref (items);

  if (JSON_NODE_HOLDS_ARRAY (selection))
    {
      JsonArray *array = json_node_get_array (selection);

      for (guint i = 0; i < json_array_get_length (array); i++)
        {
          guint64 n;

          if (!item_number (json_array_get_element (array, i), &n))
            {
              *out_message = g_strdup ("Items are given by their numbers, e.g. 3 or [1, 4]");
              return NULL;
            }
          g_array_append_val (wanted, n);
        }
    }
  else
    {
      guint64 n;

      if (!item_number (selection, &n))
        {
          *out_message = g_strdup ("Items are given by their numbers, e.g. 3 or [1, 4]");
          return NULL;
        }
      g_array_append_val (wanted, n);
    }

  out = g_array_new (FALSE, FALSE, sizeof (AnotToolItem));
  for (guint w = 0; w < wanted->len; w++)
    {
      guint64 n = g_array_index (wanted, guint64, w);
      gboolean found = FALSE;

      for (guint i = 0; i < items->len && !found; i++)
        if (g_array_index (items, AnotToolItem, i).number == n)
          {
            g_array_append_val (out, g_array_index (items, AnotToolItem, i));
            found = TRUE;
          }
      if (!found)
        {
          *out_message = g_strdup_printf ("There is no item %" G_GUINT64_FORMAT
                                          "; the items are numbered 1 to %u",
                                          n, items->len);
          g_array_unref (out);
          return NULL;
        }
    }
  return out;
}

gboolean
_anot_tool_arguments (JsonNode            *args,
                            const char * const  *names,
                            guint                n_names,
                            JsonNode           **out)
{
  for (guint i = 0; i < n_names; i++)
    out[i] = NULL;

  if (args == NULL || JSON_NODE_HOLDS_NULL (args))
    return TRUE;
  if (JSON_NODE_HOLDS_VALUE (args))
    {
      out[0] = args;
      return TRUE;
    }
  if (JSON_NODE_HOLDS_ARRAY (args))
    {
      JsonArray *array = json_node_get_array (args);

      if (json_array_get_length (array) > n_names)
        return FALSE;
      for (guint i = 0; i < json_array_get_length (array); i++)
        out[i] = json_array_get_element (array, i);
      return TRUE;
    }
  if (JSON_NODE_HOLDS_OBJECT (args))
    {
      JsonObject *object = json_node_get_object (args);

      for (guint i = 0; i < n_names; i++)
        out[i] = json_object_get_member (object, names[i]);
      return TRUE;
    }
  return FALSE;
}

char *
_anot_tool_truncate (const char *text,
                      guint       max_chars,
                      const char *mark)
{
  const char *end;

  if (text == NULL)
    return g_strdup ("");
  if (g_utf8_strlen (text, -1) <= (glong) max_chars)
    return g_strdup (text);
  end = g_utf8_offset_to_pointer (text, max_chars);
  {
    g_autofree char *head = g_strndup (text, end - text);

    return g_strconcat (head, mark, NULL);
  }
}

JsonNode *
_anot_tool_object_node (JsonObject *object)
{
  JsonNode *node = json_node_new (JSON_NODE_OBJECT);

  json_node_take_object (node, object);
  return node;
}

