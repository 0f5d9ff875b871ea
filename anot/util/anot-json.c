/* anot-json.c: JSON text to json-glib trees and back, fast
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "anot-json-private.h"
#include "anot-json-document.h"

/* json-glib's parser builds a GScanner for every document; the library
 * reads through AnotJsonDocument and writes like AnotJsonWriter instead,
 * and these two keep the trees for the code that wants json-glib nodes. */

JsonNode *
anot_json_parse (const char  *data,
                 gsize        length,
                 GError     **error)
{
  g_autoptr(AnotJsonDocument) document = NULL;

  g_return_val_if_fail (data != NULL || length == 0, NULL);

  document = anot_json_document_new_from_data (data ? data : "", (gssize) length, error);
  if (document == NULL)
    return NULL;
  return anot_json_document_dup_node (document, 0);
}

void
anot_json_write (GString  *out,
                 JsonNode *node)
{
  anot_json_writer_write_node (out, node);
}
