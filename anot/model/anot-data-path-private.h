/* anot-data-path-private.h: what the data tools and the LWT engine share
 * with the path language
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#if !defined(ANOT_COMPILATION)
#error "anot-data-path-private.h is private to libanot."
#endif

#include "anot-data-path.h"
#include "anot-pyliteral-private.h"

G_BEGIN_DECLS

typedef enum {
  ANOT_PATH_SEGMENT_KEY,
  ANOT_PATH_SEGMENT_WILDCARD,
} AnotPathSegmentKind;

typedef struct {
  AnotPathSegmentKind  kind;
  char                *key;       /* KEY: the member name as written */
  gboolean             is_index;  /* KEY: unquoted integer, also an array index */
  gint64               index;
} AnotPathSegment;

const AnotPathSegment *_anot_data_path_get_segment (AnotDataPath *self,
                                                    guint         position);

/* Matches with borrowed nodes (no reference taken: resolving a path over
 * a large document must not touch every node's reference count).  An
 * opaque GArray; read it with the accessors below. */
GArray     *_anot_data_path_resolve_borrowed   (AnotDataPath  *self,
                                                JsonNode      *root,
                                                GError       **error);
guint       _anot_data_path_matches_get_length (GArray        *matches);
JsonNode   *_anot_data_path_matches_get_node   (GArray        *matches,
                                                guint          position);
const char *_anot_data_path_matches_get_path   (GArray        *matches,
                                                guint          position);

/* Appends `.key`, `[3]` or `["a key"]` to a canonical path. */
void        _anot_data_path_append_key         (GString       *out,
                                                const char    *key);
void        _anot_data_path_append_index       (GString       *out,
                                                guint          index);

/* "an object", "a string", ... for messages. */
const char *_anot_json_type_name               (JsonNode      *node);
/* "\"a\", \"b\", … (40 keys)" */
char       *_anot_json_object_list_keys        (JsonObject    *object,
                                                guint          max_keys);

G_END_DECLS
