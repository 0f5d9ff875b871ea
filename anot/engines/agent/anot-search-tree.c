/* anot-search-tree.c: the tree of a language-agent tree search
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "anot-search-tree.h"

#include <math.h>

/**
 * AnotSearchTree:
 *
 * The search tree of LATS (Language Agent Tree Search, Zhou et al., ICML
 * 2024) and of any method that searches over agent trajectories: each node
 * is one step of a trajectory — the model's thought, the action it chose
 * and the observation the action produced — with the statistics of a
 * Monte-Carlo tree search: a value in [0, 1] and a visit count.
 *
 * The tree holds no LLM logic; it is the arithmetic of the search, kept
 * apart so that it can be tested exactly:
 *
 * - **Selection** (anot_search_tree_select()): from the root, descend to
 *   the child of highest UCT score (anot_search_tree_uct()) until a leaf
 *   that can still be expanded.  Nodes never visited score `+∞`, so they
 *   are tried first; among equal scores the older child wins.  Leaves
 *   that are terminal (a final answer) or at the depth limit, and nodes
 *   whose children are all exhausted, are marked exhausted on the way and
 *   never selected again.
 * - **Backpropagation** (anot_search_tree_backpropagate()): a value
 *   obtained for a node (an evaluation) counts as one visit of the node
 *   and of each ancestor, folded into their values as a running mean or a
 *   maximum (#AnotBackpropMode).  No model is asked.
 * - **The answer** (anot_search_tree_get_best_node(),
 *   anot_search_tree_get_best_path()): the best node by value, preferring
 *   nodes judged solutions.
 *
 * Nodes are numbered in the order they are added; the root is
 * %ANOT_SEARCH_TREE_ROOT (0).  anot_search_tree_to_json() dumps the whole
 * tree for a notebook to draw.
 */

typedef struct
{
  guint      parent;
  guint      depth;
  GArray    *children;        /* guint */
  char      *thought;
  char      *action;
  char      *observation;
  char      *reflection;
  double     value;
  guint      visits;
  gboolean   terminal;
  gboolean   solution;
  gboolean   exhausted;
  GArray    *ranking;         /* guint, 0-based positions; NULL: none */
  JsonNode  *info;
} Node;

struct _AnotSearchTree
{
  GObject    parent_instance;

  GPtrArray *nodes;           /* Node* */
  guint      height;
  gboolean   depth_limited;
};

G_DEFINE_FINAL_TYPE (AnotSearchTree, anot_search_tree, G_TYPE_OBJECT)

enum {
  PROP_0,
  PROP_N_NODES,
  PROP_HEIGHT,
  PROP_DEPTH_LIMITED,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

static void
node_free (gpointer data)
{
  Node *node = data;

  g_array_unref (node->children);
  g_free (node->thought);
  g_free (node->action);
  g_free (node->observation);
  g_free (node->reflection);
  g_clear_pointer (&node->ranking, g_array_unref);
  g_clear_pointer (&node->info, json_node_unref);
  g_free (node);
}

static Node *
node_new (guint       parent,
          guint       depth,
          const char *thought,
          const char *action,
          const char *observation)
{
  Node *node = g_new0 (Node, 1);

  node->parent = parent;
  node->depth = depth;
  node->children = g_array_new (FALSE, FALSE, sizeof (guint));
  node->thought = g_strdup (thought);
  node->action = g_strdup (action);
  node->observation = g_strdup (observation);
  return node;
}

static Node *
get_node (AnotSearchTree *self,
          guint           id)
{
  g_return_val_if_fail (ANOT_IS_SEARCH_TREE (self), NULL);
  g_return_val_if_fail (id < self->nodes->len, NULL);

  return g_ptr_array_index (self->nodes, id);
}

static void
anot_search_tree_finalize (GObject *object)
{
  AnotSearchTree *self = ANOT_SEARCH_TREE (object);

  g_ptr_array_unref (self->nodes);

  G_OBJECT_CLASS (anot_search_tree_parent_class)->finalize (object);
}

static void
anot_search_tree_get_property (GObject    *object,
                               guint       prop_id,
                               GValue     *value,
                               GParamSpec *pspec)
{
  AnotSearchTree *self = ANOT_SEARCH_TREE (object);

  switch (prop_id)
    {
    case PROP_N_NODES:
      g_value_set_uint (value, self->nodes->len);
      break;
    case PROP_HEIGHT:
      g_value_set_uint (value, self->height);
      break;
    case PROP_DEPTH_LIMITED:
      g_value_set_boolean (value, self->depth_limited);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
anot_search_tree_class_init (AnotSearchTreeClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = anot_search_tree_finalize;
  object_class->get_property = anot_search_tree_get_property;

  /**
   * AnotSearchTree:n-nodes:
   *
   * The number of nodes, the root included.
   */
  properties[PROP_N_NODES] =
    g_param_spec_uint ("n-nodes", NULL, NULL, 1, G_MAXUINT, 1,
                       G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);

  /**
   * AnotSearchTree:height:
   *
   * The depth of the deepest node (0 for a tree with only its root).
   */
  properties[PROP_HEIGHT] =
    g_param_spec_uint ("height", NULL, NULL, 0, G_MAXUINT, 0,
                       G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);

  /**
   * AnotSearchTree:depth-limited:
   *
   * Whether a selection found a leaf it could not expand because of the
   * depth limit.
   */
  properties[PROP_DEPTH_LIMITED] =
    g_param_spec_boolean ("depth-limited", NULL, NULL, FALSE,
                          G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);

  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
anot_search_tree_init (AnotSearchTree *self)
{
  self->nodes = g_ptr_array_new_with_free_func (node_free);
}

/**
 * anot_search_stop_to_string:
 * @stop: a reason
 *
 * Returns: the reason's nick (`solution`, `max_iterations`, `max_depth`,
 *   `exhausted`, `timeout`, `call_budget`, or `none`), as traces record it
 */
const char *
anot_search_stop_to_string (AnotSearchStop stop)
{
  switch (stop)
    {
    case ANOT_SEARCH_STOP_NONE:
      return "none";
    case ANOT_SEARCH_STOP_SOLUTION:
      return "solution";
    case ANOT_SEARCH_STOP_MAX_ITERATIONS:
      return "max_iterations";
    case ANOT_SEARCH_STOP_MAX_DEPTH:
      return "max_depth";
    case ANOT_SEARCH_STOP_EXHAUSTED:
      return "exhausted";
    case ANOT_SEARCH_STOP_TIMEOUT:
      return "timeout";
    case ANOT_SEARCH_STOP_CALL_BUDGET:
      return "call_budget";
    default:
      return "unknown";
    }
}

/**
 * anot_search_tree_new:
 * @root_thought: (nullable): what the root stands for (the task)
 *
 * Creates a tree with only its root: depth 0, never visited, value 0.
 *
 * Returns: (transfer full): a new tree
 */
AnotSearchTree *
anot_search_tree_new (const char *root_thought)
{
  AnotSearchTree *self = g_object_new (ANOT_TYPE_SEARCH_TREE, NULL);

  g_ptr_array_add (self->nodes, node_new (ANOT_SEARCH_NODE_NONE, 0, root_thought, NULL, NULL));
  return self;
}

/**
 * anot_search_tree_get_n_nodes:
 * @self: a tree
 *
 * Returns: the number of nodes, the root included
 */
guint
anot_search_tree_get_n_nodes (AnotSearchTree *self)
{
  g_return_val_if_fail (ANOT_IS_SEARCH_TREE (self), 0);

  return self->nodes->len;
}

/**
 * anot_search_tree_get_height:
 * @self: a tree
 *
 * Returns: the depth of the deepest node
 */
guint
anot_search_tree_get_height (AnotSearchTree *self)
{
  g_return_val_if_fail (ANOT_IS_SEARCH_TREE (self), 0);

  return self->height;
}

/**
 * anot_search_tree_add_child:
 * @self: a tree
 * @parent: the id of the parent node
 * @thought: (nullable): the model's reasoning for the step
 * @action: (nullable): the action taken, as text
 * @observation: (nullable): what the action returned
 *
 * Adds a node below @parent, never visited and of value 0.
 *
 * Returns: the new node's id
 */
guint
anot_search_tree_add_child (AnotSearchTree *self,
                            guint           parent,
                            const char     *thought,
                            const char     *action,
                            const char     *observation)
{
  Node *p = get_node (self, parent);
  guint id;

  g_return_val_if_fail (p != NULL, ANOT_SEARCH_NODE_NONE);

  id = self->nodes->len;
  g_ptr_array_add (self->nodes, node_new (parent, p->depth + 1, thought, action, observation));
  g_array_append_val (p->children, id);
  if (p->depth + 1 > self->height)
    {
      self->height = p->depth + 1;
      g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_HEIGHT]);
    }
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_N_NODES]);
  return id;
}

/**
 * anot_search_tree_get_parent:
 * @self: a tree
 * @node: a node id
 *
 * Returns: the parent's id, or %ANOT_SEARCH_NODE_NONE for the root
 */
guint
anot_search_tree_get_parent (AnotSearchTree *self,
                             guint           node)
{
  Node *n = get_node (self, node);

  return n != NULL ? n->parent : ANOT_SEARCH_NODE_NONE;
}

/**
 * anot_search_tree_get_depth:
 * @self: a tree
 * @node: a node id
 *
 * Returns: the number of steps from the root to @node
 */
guint
anot_search_tree_get_depth (AnotSearchTree *self,
                            guint           node)
{
  Node *n = get_node (self, node);

  return n != NULL ? n->depth : 0;
}

/**
 * anot_search_tree_get_n_children:
 * @self: a tree
 * @node: a node id
 *
 * Returns: the number of children of @node
 */
guint
anot_search_tree_get_n_children (AnotSearchTree *self,
                                 guint           node)
{
  Node *n = get_node (self, node);

  return n != NULL ? n->children->len : 0;
}

/**
 * anot_search_tree_get_child:
 * @self: a tree
 * @node: a node id
 * @index: the position of the child, in the order children were added
 *
 * Returns: the child's id
 */
guint
anot_search_tree_get_child (AnotSearchTree *self,
                            guint           node,
                            guint           index)
{
  Node *n = get_node (self, node);

  g_return_val_if_fail (n != NULL && index < n->children->len, ANOT_SEARCH_NODE_NONE);

  return g_array_index (n->children, guint, index);
}

/**
 * anot_search_tree_get_thought:
 * @self: a tree
 * @node: a node id
 *
 * Returns: (nullable): the node's thought
 */
const char *
anot_search_tree_get_thought (AnotSearchTree *self,
                              guint           node)
{
  Node *n = get_node (self, node);

  return n != NULL ? n->thought : NULL;
}

/**
 * anot_search_tree_get_action:
 * @self: a tree
 * @node: a node id
 *
 * Returns: (nullable): the node's action (%NULL for the root)
 */
const char *
anot_search_tree_get_action (AnotSearchTree *self,
                             guint           node)
{
  Node *n = get_node (self, node);

  return n != NULL ? n->action : NULL;
}

/**
 * anot_search_tree_get_observation:
 * @self: a tree
 * @node: a node id
 *
 * Returns: (nullable): what the node's action returned
 */
const char *
anot_search_tree_get_observation (AnotSearchTree *self,
                                  guint           node)
{
  Node *n = get_node (self, node);

  return n != NULL ? n->observation : NULL;
}

/**
 * anot_search_tree_get_value:
 * @self: a tree
 * @node: a node id
 *
 * Returns: the node's value (0 while it was never visited)
 */
double
anot_search_tree_get_value (AnotSearchTree *self,
                            guint           node)
{
  Node *n = get_node (self, node);

  return n != NULL ? n->value : 0;
}

/**
 * anot_search_tree_get_visits:
 * @self: a tree
 * @node: a node id
 *
 * Returns: how many values were propagated through @node
 */
guint
anot_search_tree_get_visits (AnotSearchTree *self,
                             guint           node)
{
  Node *n = get_node (self, node);

  return n != NULL ? n->visits : 0;
}

/**
 * anot_search_tree_set_stats:
 * @self: a tree
 * @node: a node id
 * @value: the value
 * @visits: the visit count
 *
 * Sets a node's statistics directly, without propagating anything: for
 * building trees by hand (tests, replaying a dumped search).
 */
void
anot_search_tree_set_stats (AnotSearchTree *self,
                            guint           node,
                            double          value,
                            guint           visits)
{
  Node *n = get_node (self, node);

  g_return_if_fail (n != NULL);

  n->value = value;
  n->visits = visits;
}

/**
 * anot_search_tree_get_reflection:
 * @self: a tree
 * @node: a node id
 *
 * Returns: (nullable): what the evaluator said went wrong at @node
 */
const char *
anot_search_tree_get_reflection (AnotSearchTree *self,
                                 guint           node)
{
  Node *n = get_node (self, node);

  return n != NULL ? n->reflection : NULL;
}

/**
 * anot_search_tree_set_reflection:
 * @self: a tree
 * @node: a node id
 * @reflection: (nullable): the reflection
 *
 * Records what went wrong at @node, for later expansions to learn from.
 */
void
anot_search_tree_set_reflection (AnotSearchTree *self,
                                 guint           node,
                                 const char     *reflection)
{
  Node *n = get_node (self, node);

  g_return_if_fail (n != NULL);

  g_free (n->reflection);
  n->reflection = g_strdup (reflection);
}

/**
 * anot_search_tree_get_terminal:
 * @self: a tree
 * @node: a node id
 *
 * Returns: whether @node ends its trajectory (a final answer)
 */
gboolean
anot_search_tree_get_terminal (AnotSearchTree *self,
                               guint           node)
{
  Node *n = get_node (self, node);

  return n != NULL && n->terminal;
}

/**
 * anot_search_tree_set_terminal:
 * @self: a tree
 * @node: a node id
 * @terminal: whether @node ends its trajectory
 *
 * Marks @node as a final answer: it is never expanded.
 */
void
anot_search_tree_set_terminal (AnotSearchTree *self,
                               guint           node,
                               gboolean        terminal)
{
  Node *n = get_node (self, node);

  g_return_if_fail (n != NULL);

  n->terminal = !!terminal;
}

/**
 * anot_search_tree_get_solution:
 * @self: a tree
 * @node: a node id
 *
 * Returns: whether @node was judged a solution
 */
gboolean
anot_search_tree_get_solution (AnotSearchTree *self,
                               guint           node)
{
  Node *n = get_node (self, node);

  return n != NULL && n->solution;
}

/**
 * anot_search_tree_set_solution:
 * @self: a tree
 * @node: a node id
 * @solution: whether @node is a solution
 *
 * Records the evaluator's verdict on a final answer.
 */
void
anot_search_tree_set_solution (AnotSearchTree *self,
                               guint           node,
                               gboolean        solution)
{
  Node *n = get_node (self, node);

  g_return_if_fail (n != NULL);

  n->solution = !!solution;
}

/**
 * anot_search_tree_get_exhausted:
 * @self: a tree
 * @node: a node id
 *
 * Returns: whether selection skips @node (nothing below it can be expanded)
 */
gboolean
anot_search_tree_get_exhausted (AnotSearchTree *self,
                                guint           node)
{
  Node *n = get_node (self, node);

  return n != NULL && n->exhausted;
}

/**
 * anot_search_tree_set_exhausted:
 * @self: a tree
 * @node: a node id
 * @exhausted: whether selection skips @node
 *
 * Marks @node as exhausted, for instance when its expansion produced no
 * usable action.
 */
void
anot_search_tree_set_exhausted (AnotSearchTree *self,
                                guint           node,
                                gboolean        exhausted)
{
  Node *n = get_node (self, node);

  g_return_if_fail (n != NULL);

  n->exhausted = !!exhausted;
}

/**
 * anot_search_tree_get_ranking:
 * @self: a tree
 * @node: a node id
 * @n_positions: (out): the length of the ranking
 *
 * Returns: (array length=n_positions) (nullable): the ranking @node
 *   proposes (0-based candidate positions, best first), or %NULL
 */
const guint *
anot_search_tree_get_ranking (AnotSearchTree *self,
                              guint           node,
                              guint          *n_positions)
{
  Node *n = get_node (self, node);

  *n_positions = 0;
  if (n == NULL || n->ranking == NULL)
    return NULL;
  *n_positions = n->ranking->len;
  return (const guint *) n->ranking->data;
}

/**
 * anot_search_tree_set_ranking:
 * @self: a tree
 * @node: a node id
 * @positions: (array length=n_positions) (nullable): 0-based candidate
 *   positions, best first
 * @n_positions: the length of @positions
 *
 * Records the ranking @node proposes: its final answer, or the
 * evaluator's best guess so far.  %NULL removes it.
 */
void
anot_search_tree_set_ranking (AnotSearchTree *self,
                              guint           node,
                              const guint    *positions,
                              guint           n_positions)
{
  Node *n = get_node (self, node);

  g_return_if_fail (n != NULL);

  g_clear_pointer (&n->ranking, g_array_unref);
  if (positions == NULL)
    return;
  n->ranking = g_array_sized_new (FALSE, FALSE, sizeof (guint), n_positions);
  g_array_append_vals (n->ranking, positions, n_positions);
}

/**
 * anot_search_tree_get_info:
 * @self: a tree
 * @node: a node id
 *
 * Returns: (transfer none) (nullable): what the method attached to @node
 */
JsonNode *
anot_search_tree_get_info (AnotSearchTree *self,
                           guint           node)
{
  Node *n = get_node (self, node);

  return n != NULL ? n->info : NULL;
}

/**
 * anot_search_tree_set_info:
 * @self: a tree
 * @node: a node id
 * @info: (nullable): any JSON value
 *
 * Attaches method-specific data to @node (the evaluation's details, an
 * error), dumped with the tree.
 */
void
anot_search_tree_set_info (AnotSearchTree *self,
                           guint           node,
                           JsonNode       *info)
{
  Node *n = get_node (self, node);

  g_return_if_fail (n != NULL);

  g_clear_pointer (&n->info, json_node_unref);
  if (info != NULL)
    n->info = json_node_copy (info);
}

/**
 * anot_search_tree_uct:
 * @self: a tree
 * @node: a node id
 * @exploration_weight: the weight *c* of the exploration term
 *
 * The UCT score (Kocsis and Szepesvári, 2006) of @node:
 * *V(n) + c·√(ln N(parent) / N(n))*, where *V* is the node's value and
 * *N* a visit count.  A node never visited scores `+∞`; the root, which
 * has no parent, scores its value.
 *
 * Returns: the score
 */
double
anot_search_tree_uct (AnotSearchTree *self,
                      guint           node,
                      double          exploration_weight)
{
  Node *n = get_node (self, node);
  Node *parent;

  g_return_val_if_fail (n != NULL, 0);

  if (n->visits == 0)
    return INFINITY;
  if (n->parent == ANOT_SEARCH_NODE_NONE)
    return n->value;
  parent = get_node (self, n->parent);
  /* A parent is visited whenever a child is, so N(parent) >= 1 here; the
   * guard keeps a hand-built tree from taking the log of 0. */
  if (parent->visits == 0)
    return n->value;
  return n->value + exploration_weight * sqrt (log ((double) parent->visits) / n->visits);
}

/**
 * anot_search_tree_best_uct_child:
 * @self: a tree
 * @node: a node id
 * @exploration_weight: the weight of the exploration term
 *
 * The child of @node that selection descends to: the highest UCT score
 * among the children not exhausted, the first added among equals.
 *
 * Returns: the child's id, or %ANOT_SEARCH_NODE_NONE when every child is
 *   exhausted (or there is none)
 */
guint
anot_search_tree_best_uct_child (AnotSearchTree *self,
                                 guint           node,
                                 double          exploration_weight)
{
  Node *n = get_node (self, node);
  guint best = ANOT_SEARCH_NODE_NONE;
  double best_score = -INFINITY;

  g_return_val_if_fail (n != NULL, ANOT_SEARCH_NODE_NONE);

  for (guint i = 0; i < n->children->len; i++)
    {
      guint child = g_array_index (n->children, guint, i);
      double score;

      if (get_node (self, child)->exhausted)
        continue;
      score = anot_search_tree_uct (self, child, exploration_weight);
      if (best == ANOT_SEARCH_NODE_NONE || score > best_score)
        {
          best = child;
          best_score = score;
        }
    }
  return best;
}

static gboolean
can_expand (AnotSearchTree *self,
            Node           *n,
            guint           max_depth,
            gboolean        record)
{
  if (n->exhausted || n->terminal)
    return FALSE;
  if (max_depth > 0 && n->depth >= max_depth)
    {
      if (record && !self->depth_limited)
        {
          self->depth_limited = TRUE;
          g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_DEPTH_LIMITED]);
        }
      return FALSE;
    }
  return TRUE;
}

/**
 * anot_search_tree_select:
 * @self: a tree
 * @exploration_weight: the weight of UCT's exploration term
 * @max_depth: leaves at this depth are not expanded (0: no limit)
 *
 * Selects the node to expand next: from the root, descends to the child
 * of highest UCT score (anot_search_tree_best_uct_child()) until it
 * reaches a leaf.  A leaf that cannot be expanded (terminal, or at
 * @max_depth) is marked exhausted, and so is a node whose children are
 * all exhausted; the descent then starts again from the root.
 *
 * Returns: the leaf to expand, or %ANOT_SEARCH_NODE_NONE when the whole
 *   tree is exhausted (see anot_search_tree_get_depth_limited() for why)
 */
guint
anot_search_tree_select (AnotSearchTree *self,
                         double          exploration_weight,
                         guint           max_depth)
{
  g_return_val_if_fail (ANOT_IS_SEARCH_TREE (self), ANOT_SEARCH_NODE_NONE);

  /* Each restart marks one more node exhausted, so this ends. */
  while (!get_node (self, ANOT_SEARCH_TREE_ROOT)->exhausted)
    {
      guint id = ANOT_SEARCH_TREE_ROOT;

      for (;;)
        {
          Node *n = get_node (self, id);
          guint next;

          if (n->children->len == 0)
            {
              if (can_expand (self, n, max_depth, TRUE))
                return id;
              n->exhausted = TRUE;
              break;
            }
          next = anot_search_tree_best_uct_child (self, id, exploration_weight);
          if (next == ANOT_SEARCH_NODE_NONE)
            {
              n->exhausted = TRUE;
              break;
            }
          id = next;
        }
    }
  return ANOT_SEARCH_NODE_NONE;
}

/**
 * anot_search_tree_get_depth_limited:
 * @self: a tree
 *
 * Returns: whether a selection met a leaf it could not expand because of
 *   the depth limit
 */
gboolean
anot_search_tree_get_depth_limited (AnotSearchTree *self)
{
  g_return_val_if_fail (ANOT_IS_SEARCH_TREE (self), FALSE);

  return self->depth_limited;
}

/**
 * anot_search_tree_list_expandable:
 * @self: a tree
 * @max_depth: leaves at this depth are not expandable (0: no limit)
 *
 * Lists the leaves that could be expanded: not terminal, not exhausted,
 * above @max_depth.  Nothing is marked.
 *
 * Returns: (transfer full) (element-type guint): their ids, in id order
 */
GArray *
anot_search_tree_list_expandable (AnotSearchTree *self,
                                  guint           max_depth)
{
  GArray *ids;

  g_return_val_if_fail (ANOT_IS_SEARCH_TREE (self), NULL);

  ids = g_array_new (FALSE, FALSE, sizeof (guint));
  for (guint i = 0; i < self->nodes->len; i++)
    {
      Node *n = get_node (self, i);

      if (n->children->len == 0 && can_expand (self, n, max_depth, FALSE))
        g_array_append_val (ids, i);
    }
  return ids;
}

/**
 * anot_search_tree_backpropagate:
 * @self: a tree
 * @node: the node that obtained @value
 * @value: a value in [0, 1], usually an evaluation of @node
 * @mode: how values are folded
 *
 * Counts one visit of @node and of each of its ancestors and folds @value
 * into their values: with %ANOT_BACKPROP_MEAN, *V ← V + (value − V) / N*
 * after *N* is incremented (so a node's value is the mean of everything
 * propagated through it); with %ANOT_BACKPROP_MAX, *V ← max(V, value)*
 * (a node's first visit takes @value as it is).
 */
void
anot_search_tree_backpropagate (AnotSearchTree   *self,
                                guint             node,
                                double            value,
                                AnotBackpropMode  mode)
{
  g_return_if_fail (ANOT_IS_SEARCH_TREE (self));
  g_return_if_fail (node < self->nodes->len);

  for (guint id = node; id != ANOT_SEARCH_NODE_NONE; id = get_node (self, id)->parent)
    {
      Node *n = get_node (self, id);

      n->visits++;
      if (mode == ANOT_BACKPROP_MAX)
        n->value = n->visits == 1 ? value : MAX (n->value, value);
      else
        n->value += (value - n->value) / n->visits;
    }
}

/* Is @a a better answer than @b? */
static gboolean
better_answer (Node  *a,
               guint  a_id,
               Node  *b,
               guint  b_id)
{
  if (a->solution != b->solution)
    return a->solution;
  if (a->value != b->value)
    return a->value > b->value;
  if (a->terminal != b->terminal)
    return a->terminal;
  if (a->depth != b->depth)
    return a->depth > b->depth;
  return a_id < b_id;
}

/**
 * anot_search_tree_get_best_node:
 * @self: a tree
 * @with_ranking: only consider nodes that propose a ranking
 *
 * The best answer the tree holds, among the nodes visited (evaluated)
 * other than the root: a solution if there is one, else the highest
 * value; among equals a terminal node, then a deeper one, then the older.
 *
 * Returns: the node's id, or %ANOT_SEARCH_NODE_NONE
 */
guint
anot_search_tree_get_best_node (AnotSearchTree *self,
                                gboolean        with_ranking)
{
  guint best = ANOT_SEARCH_NODE_NONE;

  g_return_val_if_fail (ANOT_IS_SEARCH_TREE (self), ANOT_SEARCH_NODE_NONE);

  for (guint i = 1; i < self->nodes->len; i++)
    {
      Node *n = get_node (self, i);

      if (n->visits == 0 || (with_ranking && n->ranking == NULL))
        continue;
      if (best == ANOT_SEARCH_NODE_NONE || better_answer (n, i, get_node (self, best), best))
        best = i;
    }
  return best;
}

/**
 * anot_search_tree_get_path:
 * @self: a tree
 * @node: a node id
 *
 * Returns: (transfer full) (element-type guint): the ids from the root to
 *   @node, both included
 */
GArray *
anot_search_tree_get_path (AnotSearchTree *self,
                           guint           node)
{
  GArray *path;

  g_return_val_if_fail (ANOT_IS_SEARCH_TREE (self), NULL);
  g_return_val_if_fail (node < self->nodes->len, NULL);

  path = g_array_new (FALSE, FALSE, sizeof (guint));
  for (guint id = node; id != ANOT_SEARCH_NODE_NONE; id = get_node (self, id)->parent)
    g_array_prepend_val (path, id);
  return path;
}

/**
 * anot_search_tree_get_best_path:
 * @self: a tree
 *
 * The greedy path by value: from the root, the visited child of highest
 * value (the older among equals), down to a node without visited
 * children.
 *
 * Returns: (transfer full) (element-type guint): the ids, root first
 */
GArray *
anot_search_tree_get_best_path (AnotSearchTree *self)
{
  GArray *path;
  guint id = ANOT_SEARCH_TREE_ROOT;

  g_return_val_if_fail (ANOT_IS_SEARCH_TREE (self), NULL);

  path = g_array_new (FALSE, FALSE, sizeof (guint));
  for (;;)
    {
      Node *n = get_node (self, id);
      guint best = ANOT_SEARCH_NODE_NONE;

      g_array_append_val (path, id);
      for (guint i = 0; i < n->children->len; i++)
        {
          guint child = g_array_index (n->children, guint, i);
          Node *c = get_node (self, child);

          if (c->visits == 0)
            continue;
          if (best == ANOT_SEARCH_NODE_NONE || c->value > get_node (self, best)->value)
            best = child;
        }
      if (best == ANOT_SEARCH_NODE_NONE)
        return path;
      id = best;
    }
}

static void
add_nullable_string (JsonObject *object,
                     const char *name,
                     const char *value)
{
  if (value != NULL)
    json_object_set_string_member (object, name, value);
  else
    json_object_set_null_member (object, name);
}

/**
 * anot_search_tree_node_to_json:
 * @self: a tree
 * @node: a node id
 *
 * One node as JSON: `id`, `parent` (null for the root), `depth`,
 * `children` (ids), `thought`, `action`, `observation`, `value`,
 * `visits`, `reflection`, `terminal`, `solution`, `exhausted`, `ranking`
 * (1-based candidate numbers, or null) and `info`.
 *
 * Returns: (transfer full): a JSON object node
 */
JsonNode *
anot_search_tree_node_to_json (AnotSearchTree *self,
                               guint           node)
{
  Node *n = get_node (self, node);
  JsonObject *o;
  JsonArray *children;

  g_return_val_if_fail (n != NULL, NULL);

  o = json_object_new ();
  json_object_set_int_member (o, "id", node);
  if (n->parent == ANOT_SEARCH_NODE_NONE)
    json_object_set_null_member (o, "parent");
  else
    json_object_set_int_member (o, "parent", n->parent);
  json_object_set_int_member (o, "depth", n->depth);
  children = json_array_new ();
  for (guint i = 0; i < n->children->len; i++)
    json_array_add_int_element (children, g_array_index (n->children, guint, i));
  json_object_set_array_member (o, "children", children);
  add_nullable_string (o, "thought", n->thought);
  add_nullable_string (o, "action", n->action);
  add_nullable_string (o, "observation", n->observation);
  json_object_set_double_member (o, "value", n->value);
  json_object_set_int_member (o, "visits", n->visits);
  add_nullable_string (o, "reflection", n->reflection);
  json_object_set_boolean_member (o, "terminal", n->terminal);
  json_object_set_boolean_member (o, "solution", n->solution);
  json_object_set_boolean_member (o, "exhausted", n->exhausted);
  if (n->ranking != NULL)
    {
      JsonArray *ranking = json_array_new ();

      for (guint i = 0; i < n->ranking->len; i++)
        json_array_add_int_element (ranking, g_array_index (n->ranking, guint, i) + 1);
      json_object_set_array_member (o, "ranking", ranking);
    }
  else
    json_object_set_null_member (o, "ranking");
  if (n->info != NULL)
    json_object_set_member (o, "info", json_node_copy (n->info));
  else
    json_object_set_null_member (o, "info");
  {
    JsonNode *result = json_node_new (JSON_NODE_OBJECT);

    json_node_take_object (result, o);
    return result;
  }
}

/**
 * anot_search_tree_to_json:
 * @self: a tree
 *
 * The whole tree as JSON, for a notebook to draw:
 * `{"n_nodes", "height", "depth_limited", "nodes": [...]}` with the nodes
 * in id order as anot_search_tree_node_to_json() writes them.
 *
 * Returns: (transfer full): a JSON object node
 */
JsonNode *
anot_search_tree_to_json (AnotSearchTree *self)
{
  JsonObject *o;
  JsonArray *nodes;

  g_return_val_if_fail (ANOT_IS_SEARCH_TREE (self), NULL);

  o = json_object_new ();
  json_object_set_int_member (o, "n_nodes", self->nodes->len);
  json_object_set_int_member (o, "height", self->height);
  json_object_set_boolean_member (o, "depth_limited", self->depth_limited);
  nodes = json_array_new ();
  for (guint i = 0; i < self->nodes->len; i++)
    json_array_add_element (nodes, anot_search_tree_node_to_json (self, i));
  json_object_set_array_member (o, "nodes", nodes);
  {
    JsonNode *result = json_node_new (JSON_NODE_OBJECT);

    json_node_take_object (result, o);
    return result;
  }
}
