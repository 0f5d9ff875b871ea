/* anot-search-tree.h
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

/**
 * ANOT_SEARCH_NODE_NONE:
 *
 * The node id that means "no node": the parent of the root, the result
 * of a selection that found nothing to expand.
 */
#define ANOT_SEARCH_NODE_NONE G_MAXUINT

/**
 * ANOT_SEARCH_TREE_ROOT:
 *
 * The id of the root of every [class@Anot.SearchTree].
 */
#define ANOT_SEARCH_TREE_ROOT 0

/**
 * AnotBackpropMode:
 * @ANOT_BACKPROP_MEAN: a node's value is the mean of every value
 *   propagated through it (its own evaluation included)
 * @ANOT_BACKPROP_MAX: a node's value is the largest value propagated
 *   through it
 *
 * How [method@Anot.SearchTree.backpropagate] folds a new value into the
 * nodes on its way to the root.
 */
typedef enum {
  ANOT_BACKPROP_MEAN,
  ANOT_BACKPROP_MAX,
} AnotBackpropMode;

/**
 * AnotSearchStop:
 * @ANOT_SEARCH_STOP_NONE: the search has not stopped
 * @ANOT_SEARCH_STOP_SOLUTION: a node was judged a solution
 * @ANOT_SEARCH_STOP_MAX_ITERATIONS: the iteration limit was reached
 * @ANOT_SEARCH_STOP_MAX_DEPTH: no node is left to expand, and at least one
 *   branch was cut by the depth limit
 * @ANOT_SEARCH_STOP_EXHAUSTED: no node is left to expand (every branch
 *   ended in a final answer or produced nothing)
 * @ANOT_SEARCH_STOP_TIMEOUT: the wall-clock limit was reached
 * @ANOT_SEARCH_STOP_CALL_BUDGET: the LLM call budget is spent
 *
 * Why a tree search ended.
 */
typedef enum {
  ANOT_SEARCH_STOP_NONE,
  ANOT_SEARCH_STOP_SOLUTION,
  ANOT_SEARCH_STOP_MAX_ITERATIONS,
  ANOT_SEARCH_STOP_MAX_DEPTH,
  ANOT_SEARCH_STOP_EXHAUSTED,
  ANOT_SEARCH_STOP_TIMEOUT,
  ANOT_SEARCH_STOP_CALL_BUDGET,
} AnotSearchStop;

ANOT_AVAILABLE_IN_ALL
const char *anot_search_stop_to_string (AnotSearchStop stop);

#define ANOT_TYPE_SEARCH_TREE (anot_search_tree_get_type ())
ANOT_AVAILABLE_IN_ALL
G_DECLARE_FINAL_TYPE (AnotSearchTree, anot_search_tree, ANOT, SEARCH_TREE, GObject)

ANOT_AVAILABLE_IN_ALL
AnotSearchTree   *anot_search_tree_new                (const char       *root_thought);

ANOT_AVAILABLE_IN_ALL
guint             anot_search_tree_get_n_nodes        (AnotSearchTree   *self);
ANOT_AVAILABLE_IN_ALL
guint             anot_search_tree_get_height         (AnotSearchTree   *self);
ANOT_AVAILABLE_IN_ALL
guint             anot_search_tree_add_child          (AnotSearchTree   *self,
                                                       guint             parent,
                                                       const char       *thought,
                                                       const char       *action,
                                                       const char       *observation);

ANOT_AVAILABLE_IN_ALL
guint             anot_search_tree_get_parent         (AnotSearchTree   *self,
                                                       guint             node);
ANOT_AVAILABLE_IN_ALL
guint             anot_search_tree_get_depth          (AnotSearchTree   *self,
                                                       guint             node);
ANOT_AVAILABLE_IN_ALL
guint             anot_search_tree_get_n_children     (AnotSearchTree   *self,
                                                       guint             node);
ANOT_AVAILABLE_IN_ALL
guint             anot_search_tree_get_child          (AnotSearchTree   *self,
                                                       guint             node,
                                                       guint             index);
ANOT_AVAILABLE_IN_ALL
const char       *anot_search_tree_get_thought        (AnotSearchTree   *self,
                                                       guint             node);
ANOT_AVAILABLE_IN_ALL
const char       *anot_search_tree_get_action         (AnotSearchTree   *self,
                                                       guint             node);
ANOT_AVAILABLE_IN_ALL
const char       *anot_search_tree_get_observation    (AnotSearchTree   *self,
                                                       guint             node);
ANOT_AVAILABLE_IN_ALL
double            anot_search_tree_get_value          (AnotSearchTree   *self,
                                                       guint             node);
ANOT_AVAILABLE_IN_ALL
guint             anot_search_tree_get_visits         (AnotSearchTree   *self,
                                                       guint             node);
ANOT_AVAILABLE_IN_ALL
void              anot_search_tree_set_stats          (AnotSearchTree   *self,
                                                       guint             node,
                                                       double            value,
                                                       guint             visits);

ANOT_AVAILABLE_IN_ALL
const char       *anot_search_tree_get_reflection     (AnotSearchTree   *self,
                                                       guint             node);
ANOT_AVAILABLE_IN_ALL
void              anot_search_tree_set_reflection     (AnotSearchTree   *self,
                                                       guint             node,
                                                       const char       *reflection);
ANOT_AVAILABLE_IN_ALL
gboolean          anot_search_tree_get_terminal       (AnotSearchTree   *self,
                                                       guint             node);
ANOT_AVAILABLE_IN_ALL
void              anot_search_tree_set_terminal       (AnotSearchTree   *self,
                                                       guint             node,
                                                       gboolean          terminal);
ANOT_AVAILABLE_IN_ALL
gboolean          anot_search_tree_get_solution       (AnotSearchTree   *self,
                                                       guint             node);
ANOT_AVAILABLE_IN_ALL
void              anot_search_tree_set_solution       (AnotSearchTree   *self,
                                                       guint             node,
                                                       gboolean          solution);
ANOT_AVAILABLE_IN_ALL
gboolean          anot_search_tree_get_exhausted      (AnotSearchTree   *self,
                                                       guint             node);
ANOT_AVAILABLE_IN_ALL
void              anot_search_tree_set_exhausted      (AnotSearchTree   *self,
                                                       guint             node,
                                                       gboolean          exhausted);
ANOT_AVAILABLE_IN_ALL
const guint      *anot_search_tree_get_ranking        (AnotSearchTree   *self,
                                                       guint             node,
                                                       guint            *n_positions);
ANOT_AVAILABLE_IN_ALL
void              anot_search_tree_set_ranking        (AnotSearchTree   *self,
                                                       guint             node,
                                                       const guint      *positions,
                                                       guint             n_positions);
ANOT_AVAILABLE_IN_ALL
JsonNode         *anot_search_tree_get_info           (AnotSearchTree   *self,
                                                       guint             node);
ANOT_AVAILABLE_IN_ALL
void              anot_search_tree_set_info           (AnotSearchTree   *self,
                                                       guint             node,
                                                       JsonNode         *info);

ANOT_AVAILABLE_IN_ALL
double            anot_search_tree_uct                (AnotSearchTree   *self,
                                                       guint             node,
                                                       double            exploration_weight);
ANOT_AVAILABLE_IN_ALL
guint             anot_search_tree_best_uct_child     (AnotSearchTree   *self,
                                                       guint             node,
                                                       double            exploration_weight);
ANOT_AVAILABLE_IN_ALL
guint             anot_search_tree_select             (AnotSearchTree   *self,
                                                       double            exploration_weight,
                                                       guint             max_depth);
ANOT_AVAILABLE_IN_ALL
gboolean          anot_search_tree_get_depth_limited  (AnotSearchTree   *self);
ANOT_AVAILABLE_IN_ALL
GArray           *anot_search_tree_list_expandable    (AnotSearchTree   *self,
                                                       guint             max_depth);
ANOT_AVAILABLE_IN_ALL
void              anot_search_tree_backpropagate      (AnotSearchTree   *self,
                                                       guint             node,
                                                       double            value,
                                                       AnotBackpropMode  mode);

ANOT_AVAILABLE_IN_ALL
guint             anot_search_tree_get_best_node      (AnotSearchTree   *self,
                                                       gboolean          with_ranking);
ANOT_AVAILABLE_IN_ALL
GArray           *anot_search_tree_get_path           (AnotSearchTree   *self,
                                                       guint             node);
ANOT_AVAILABLE_IN_ALL
GArray           *anot_search_tree_get_best_path      (AnotSearchTree   *self);
ANOT_AVAILABLE_IN_ALL
JsonNode         *anot_search_tree_node_to_json       (AnotSearchTree   *self,
                                                       guint             node);
ANOT_AVAILABLE_IN_ALL
JsonNode         *anot_search_tree_to_json            (AnotSearchTree   *self);

G_END_DECLS
