/* fuzz-json.c: libFuzzer target for AnotJsonDocument (what reads every LLM
 * answer) and AnotJsonWriter
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <anot/anot.h>

#include "anot-expr-private.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

static void
walk (AnotJsonDocument *doc,
      int               value,
      guint             depth)
{
  AnotJsonKind kind = anot_json_document_get_kind (doc, value);
  guint size = anot_json_document_get_size (doc, value);

  g_assert_cmpint (kind, !=, ANOT_JSON_KIND_NONE);
  if (kind == ANOT_JSON_KIND_STRING)
    {
      g_autofree char *text = anot_json_document_dup_string (doc, value);

      g_assert_nonnull (text);
      g_assert_true (g_utf8_validate (text, -1, NULL));
      g_assert_true (anot_json_document_string_equal (doc, value, text));
    }
  (void) anot_json_document_get_int (doc, value, 0);
  (void) anot_json_document_get_double (doc, value, 0);
  if (kind == ANOT_JSON_KIND_ARRAY)
    {
      for (guint i = 0; i < size; i++)
        walk (doc, anot_json_document_get_element (doc, value, i), depth + 1);
      g_assert_cmpint (anot_json_document_get_element (doc, value, size), ==, -1);
    }
  else if (kind == ANOT_JSON_KIND_OBJECT)
    {
      g_autoptr(JsonNode) node = anot_json_document_dup_node (doc, value);
      JsonObject *object = json_node_get_object (node);
      g_autoptr(GList) names = json_object_get_members (object);

      /* Every member name the tree has is found by a lookup. */
      for (GList *l = names; l != NULL; l = l->next)
        {
          int member = anot_json_document_get_member (doc, value, l->data);

          g_assert_cmpint (member, >, value);
          walk (doc, member, depth + 1);
        }
    }
}

/* Numbers beyond the double range read as infinities, which the writer
 * writes as null. */
static gboolean
has_infinity (JsonNode *node)
{
  if (JSON_NODE_HOLDS_OBJECT (node))
    {
      g_autoptr(GList) values = json_object_get_values (json_node_get_object (node));

      for (GList *l = values; l != NULL; l = l->next)
        if (has_infinity (l->data))
          return TRUE;
      return FALSE;
    }
  if (JSON_NODE_HOLDS_ARRAY (node))
    {
      JsonArray *array = json_node_get_array (node);

      for (guint i = 0; i < json_array_get_length (array); i++)
        if (has_infinity (json_array_get_element (array, i)))
          return TRUE;
      return FALSE;
    }
  return JSON_NODE_HOLDS_VALUE (node) && json_node_get_value_type (node) == G_TYPE_DOUBLE &&
         !isfinite (json_node_get_double (node));
}

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput (const uint8_t *data,
                        size_t         size)
{
  g_autoptr(GBytes) bytes = g_bytes_new (data, size);
  g_autoptr(GError) error = NULL;
  g_autoptr(AnotJsonDocument) doc = NULL;

  g_log_set_always_fatal (G_LOG_LEVEL_CRITICAL | G_LOG_LEVEL_WARNING);

  doc = anot_json_document_new_from_bytes (bytes, &error);

  /* The expression values' one-pass reader (a Formula Seed's extractions)
   * reads nothing the document refuses, and what it reads, it reads as the
   * document's reader does. */
  {
    g_autoptr(GHashTable) keys = anot_expr_key_cache_new ();
    AnotExprValue read;

    if (anot_expr_value_from_json_text ((const char *) data, size, keys, &read))
      {
        g_autoptr(GHashTable) doc_keys = anot_expr_key_cache_new ();
        AnotExprValue expected;
        g_autofree char *repr_read = NULL;
        g_autofree char *repr_expected = NULL;

        g_assert_nonnull (doc);
        g_assert_cmpint (anot_json_document_get_kind (doc, 0), ==, ANOT_JSON_KIND_ARRAY);
        expected = anot_expr_value_from_json_document (doc, 0, doc_keys);
        repr_read = anot_expr_value_repr (read);
        repr_expected = anot_expr_value_repr (expected);
        g_assert_cmpstr (repr_read, ==, repr_expected);
        g_assert_true (anot_expr_value_equal (read, expected));
        anot_expr_value_unref (expected);
        anot_expr_value_unref (read);
      }
  }

  if (doc == NULL)
    {
      g_assert_error (error, JSON_PARSER_ERROR, JSON_PARSER_ERROR_INVALID_DATA);
      g_assert_true (g_utf8_validate (error->message, -1, NULL));
      return 0;
    }

  walk (doc, 0, 0);

  /* What the writer writes of the tree is JSON, and reads back as the same
   * tree. */
  {
    g_autoptr(JsonNode) tree = anot_json_document_dup_node (doc, 0);
    g_autoptr(AnotJsonWriter) writer = anot_json_writer_new ();
    g_autoptr(AnotJsonDocument) again = NULL;
    g_autoptr(JsonNode) tree_again = NULL;
    gsize length;
    const char *text;

    anot_json_writer_add_value (writer, tree);
    g_assert_true (anot_json_writer_is_complete (writer));
    text = anot_json_writer_get_text (writer, &length);
    again = anot_json_document_new_from_data (text, (gssize) length, &error);
    g_assert_no_error (error);
    tree_again = anot_json_document_dup_node (again, 0);
    g_assert_true (json_node_equal (tree, tree_again) || has_infinity (tree));
  }
  return 0;
}
