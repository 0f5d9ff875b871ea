/* anot-review-search-tool.h
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#if !defined(ANOT_INSIDE) && !defined(ANOT_COMPILATION)
#error "Only <anot/anot.h> can be included directly."
#endif

#include "anot-visibility.h"

#include <glib-object.h>
#include <json-glib/json-glib.h>

G_BEGIN_DECLS

#define ANOT_TYPE_REVIEW_SEARCH_TOOL (anot_review_search_tool_get_type ())
ANOT_AVAILABLE_IN_ALL
G_DECLARE_FINAL_TYPE (AnotReviewSearchTool, anot_review_search_tool, ANOT, REVIEW_SEARCH_TOOL, GObject)

ANOT_AVAILABLE_IN_ALL
AnotReviewSearchTool *anot_review_search_tool_new               (JsonNode             *data);
ANOT_AVAILABLE_IN_ALL
JsonNode             *anot_review_search_tool_get_data          (AnotReviewSearchTool *self);
ANOT_AVAILABLE_IN_ALL
void                  anot_review_search_tool_set_data          (AnotReviewSearchTool *self,
                                                                 JsonNode             *data);
ANOT_AVAILABLE_IN_ALL
guint                 anot_review_search_tool_get_max_snippets  (AnotReviewSearchTool *self);
ANOT_AVAILABLE_IN_ALL
void                  anot_review_search_tool_set_max_snippets  (AnotReviewSearchTool *self,
                                                                 guint                 max_snippets);
ANOT_AVAILABLE_IN_ALL
guint                 anot_review_search_tool_get_snippet_chars (AnotReviewSearchTool *self);
ANOT_AVAILABLE_IN_ALL
void                  anot_review_search_tool_set_snippet_chars (AnotReviewSearchTool *self,
                                                                 guint                 snippet_chars);

G_END_DECLS
