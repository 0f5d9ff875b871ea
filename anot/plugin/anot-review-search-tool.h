/* anot-review-search-tool.h
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#if !defined(ANOT_INSIDE) && !defined(ANOT_COMPILATION)
#error "Only <anot/anot.h> can be included directly."
#endif

#include <glib-object.h>
#include <json-glib/json-glib.h>

G_BEGIN_DECLS

#define ANOT_TYPE_REVIEW_SEARCH_TOOL (anot_review_search_tool_get_type ())
G_DECLARE_FINAL_TYPE (AnotReviewSearchTool, anot_review_search_tool, ANOT, REVIEW_SEARCH_TOOL, GObject)

AnotReviewSearchTool *anot_review_search_tool_new               (JsonNode             *data);
JsonNode             *anot_review_search_tool_get_data          (AnotReviewSearchTool *self);
void                  anot_review_search_tool_set_data          (AnotReviewSearchTool *self,
                                                                 JsonNode             *data);
guint                 anot_review_search_tool_get_max_snippets  (AnotReviewSearchTool *self);
void                  anot_review_search_tool_set_max_snippets  (AnotReviewSearchTool *self,
                                                                 guint                 max_snippets);
guint                 anot_review_search_tool_get_snippet_chars (AnotReviewSearchTool *self);
void                  anot_review_search_tool_set_snippet_chars (AnotReviewSearchTool *self,
                                                                 guint                 snippet_chars);

G_END_DECLS
