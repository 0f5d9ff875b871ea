/* test-search-tree.c: the arithmetic of AnotSearchTree on hand-built trees
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <anot/anot.h>

#include <math.h>

/* Root visited 10 times with three children: A (0.6, 4 visits),
 * B (0.8, 5 visits) and C (never visited). */
static AnotSearchTree *
three_children (guint *a,
                guint *b,
                guint *c)
{
  AnotSearchTree *tree = anot_search_tree_new ("task");

  *a = anot_search_tree_add_child (tree, ANOT_SEARCH_TREE_ROOT, "ta", "count(\"items\")", "6");
  *b = anot_search_tree_add_child (tree, ANOT_SEARCH_TREE_ROOT, "tb", "keys(\"items\")", "[...]");
  *c = anot_search_tree_add_child (tree, ANOT_SEARCH_TREE_ROOT, "tc", "sample(\"items\")", "{}");
  anot_search_tree_set_stats (tree, ANOT_SEARCH_TREE_ROOT, 0.5, 10);
  anot_search_tree_set_stats (tree, *a, 0.6, 4);
  anot_search_tree_set_stats (tree, *b, 0.8, 5);
  return tree;
}

static void
test_uct_arithmetic (void)
{
  guint a, b, c;
  g_autoptr(AnotSearchTree) tree = three_children (&a, &b, &c);

  /* V + c·sqrt(ln N(parent) / N), the values worked out by hand:
   * 0.6 + √2·sqrt(ln 10 / 4) and 0.8 + √2·sqrt(ln 10 / 5). */
  g_assert_cmpfloat_with_epsilon (anot_search_tree_uct (tree, a, G_SQRT2), 1.672983013, 1e-8);
  g_assert_cmpfloat_with_epsilon (anot_search_tree_uct (tree, b, G_SQRT2), 1.759705182, 1e-8);
  /* Without exploration the score is the value. */
  g_assert_cmpfloat (anot_search_tree_uct (tree, a, 0), ==, 0.6);
  /* The root has no parent: its value. */
  g_assert_cmpfloat (anot_search_tree_uct (tree, ANOT_SEARCH_TREE_ROOT, G_SQRT2), ==, 0.5);
  /* Never visited: +inf. */
  g_assert_true (isinf (anot_search_tree_uct (tree, c, G_SQRT2)));
  g_assert_cmpfloat (anot_search_tree_uct (tree, c, G_SQRT2), >, 0);
}

static void
test_uct_unvisited_first (void)
{
  guint a, b, c;
  g_autoptr(AnotSearchTree) tree = three_children (&a, &b, &c);
  guint d;

  /* C is last and worth nothing yet, but unvisited nodes come first. */
  g_assert_cmpuint (anot_search_tree_best_uct_child (tree, ANOT_SEARCH_TREE_ROOT, G_SQRT2), ==, c);
  g_assert_cmpuint (anot_search_tree_select (tree, G_SQRT2, 5), ==, c);

  /* Two unvisited children: the older one. */
  d = anot_search_tree_add_child (tree, ANOT_SEARCH_TREE_ROOT, NULL, "keys(\"x\")", NULL);
  g_assert_cmpuint (anot_search_tree_best_uct_child (tree, ANOT_SEARCH_TREE_ROOT, G_SQRT2), ==, c);

  /* Exhausted children are skipped. */
  anot_search_tree_set_exhausted (tree, c, TRUE);
  g_assert_cmpuint (anot_search_tree_best_uct_child (tree, ANOT_SEARCH_TREE_ROOT, G_SQRT2), ==, d);
}

static void
test_uct_exploration_term (void)
{
  guint a, b, c;
  g_autoptr(AnotSearchTree) tree = three_children (&a, &b, &c);

  anot_search_tree_set_exhausted (tree, c, TRUE);
  /* Exploitation only: B has the higher value. */
  g_assert_cmpuint (anot_search_tree_best_uct_child (tree, ANOT_SEARCH_TREE_ROOT, 0), ==, b);
  /* √2: 1.6730 for A, 1.7597 for B: still B. */
  g_assert_cmpuint (anot_search_tree_best_uct_child (tree, ANOT_SEARCH_TREE_ROOT, G_SQRT2), ==, b);
  /* A large weight favours the less visited A: 8.1871 against 7.5861. */
  g_assert_cmpfloat_with_epsilon (anot_search_tree_uct (tree, a, 10), 8.187135647, 1e-8);
  g_assert_cmpfloat_with_epsilon (anot_search_tree_uct (tree, b, 10), 7.586140424, 1e-8);
  g_assert_cmpuint (anot_search_tree_best_uct_child (tree, ANOT_SEARCH_TREE_ROOT, 10), ==, a);

  /* Equal scores: the older child. */
  anot_search_tree_set_stats (tree, b, 0.6, 4);
  g_assert_cmpuint (anot_search_tree_best_uct_child (tree, ANOT_SEARCH_TREE_ROOT, G_SQRT2), ==, a);
}

static void
test_backpropagate_mean (void)
{
  g_autoptr(AnotSearchTree) tree = anot_search_tree_new (NULL);
  guint a = anot_search_tree_add_child (tree, ANOT_SEARCH_TREE_ROOT, NULL, "a()", NULL);
  guint a1 = anot_search_tree_add_child (tree, a, NULL, "a1()", NULL);
  guint b = anot_search_tree_add_child (tree, ANOT_SEARCH_TREE_ROOT, NULL, "b()", NULL);
  const double values[] = { 0.6, 0.2, 0.9 };

  anot_search_tree_backpropagate (tree, a, values[0], ANOT_BACKPROP_MEAN);
  g_assert_cmpfloat (anot_search_tree_get_value (tree, a), ==, 0.6);
  g_assert_cmpuint (anot_search_tree_get_visits (tree, a), ==, 1);
  g_assert_cmpfloat (anot_search_tree_get_value (tree, ANOT_SEARCH_TREE_ROOT), ==, 0.6);

  anot_search_tree_backpropagate (tree, a1, values[1], ANOT_BACKPROP_MEAN);
  g_assert_cmpfloat_with_epsilon (anot_search_tree_get_value (tree, a1), 0.2, 1e-12);
  g_assert_cmpfloat_with_epsilon (anot_search_tree_get_value (tree, a), (0.6 + 0.2) / 2, 1e-12);
  g_assert_cmpuint (anot_search_tree_get_visits (tree, a), ==, 2);
  g_assert_cmpuint (anot_search_tree_get_visits (tree, a1), ==, 1);

  anot_search_tree_backpropagate (tree, b, values[2], ANOT_BACKPROP_MEAN);
  /* B's value does not reach A; the root's is the mean of all three. */
  g_assert_cmpfloat_with_epsilon (anot_search_tree_get_value (tree, a), 0.4, 1e-12);
  g_assert_cmpfloat_with_epsilon (anot_search_tree_get_value (tree, ANOT_SEARCH_TREE_ROOT),
                                  (values[0] + values[1] + values[2]) / 3, 1e-12);
  g_assert_cmpuint (anot_search_tree_get_visits (tree, ANOT_SEARCH_TREE_ROOT), ==, 3);

  /* The running mean equals the mean of a longer sequence. */
  {
    double sum = values[0] + values[1] + values[2];

    for (guint i = 0; i < 50; i++)
      {
        double v = (i % 7) / 6.0;

        anot_search_tree_backpropagate (tree, a1, v, ANOT_BACKPROP_MEAN);
        sum += v;
      }
    g_assert_cmpuint (anot_search_tree_get_visits (tree, ANOT_SEARCH_TREE_ROOT), ==, 53);
    g_assert_cmpfloat_with_epsilon (anot_search_tree_get_value (tree, ANOT_SEARCH_TREE_ROOT),
                                    sum / 53, 1e-12);
  }
}

static void
test_backpropagate_max (void)
{
  g_autoptr(AnotSearchTree) tree = anot_search_tree_new (NULL);
  guint a = anot_search_tree_add_child (tree, ANOT_SEARCH_TREE_ROOT, NULL, "a()", NULL);
  guint a1 = anot_search_tree_add_child (tree, a, NULL, "a1()", NULL);
  guint b = anot_search_tree_add_child (tree, ANOT_SEARCH_TREE_ROOT, NULL, "b()", NULL);

  anot_search_tree_backpropagate (tree, a, 0.6, ANOT_BACKPROP_MAX);
  anot_search_tree_backpropagate (tree, a1, 0.2, ANOT_BACKPROP_MAX);
  /* A lower value does not lower the ancestors. */
  g_assert_cmpfloat (anot_search_tree_get_value (tree, a), ==, 0.6);
  g_assert_cmpfloat (anot_search_tree_get_value (tree, a1), ==, 0.2);
  g_assert_cmpfloat (anot_search_tree_get_value (tree, ANOT_SEARCH_TREE_ROOT), ==, 0.6);
  anot_search_tree_backpropagate (tree, b, 0.9, ANOT_BACKPROP_MAX);
  g_assert_cmpfloat (anot_search_tree_get_value (tree, ANOT_SEARCH_TREE_ROOT), ==, 0.9);
  g_assert_cmpfloat (anot_search_tree_get_value (tree, a), ==, 0.6);
  g_assert_cmpuint (anot_search_tree_get_visits (tree, ANOT_SEARCH_TREE_ROOT), ==, 3);

  /* A first visit takes the value even when it is 0. */
  {
    guint c = anot_search_tree_add_child (tree, b, NULL, "c()", NULL);

    anot_search_tree_backpropagate (tree, c, 0, ANOT_BACKPROP_MAX);
    g_assert_cmpfloat (anot_search_tree_get_value (tree, c), ==, 0);
    g_assert_cmpfloat (anot_search_tree_get_value (tree, b), ==, 0.9);
  }
}

/* The search of the LATS end-to-end test, replayed on the tree alone:
 * mean backpropagation and √2 make it leave the branch whose children
 * disappointed. */
static void
test_select_backtracks (void)
{
  g_autoptr(AnotSearchTree) tree = anot_search_tree_new (NULL);
  guint a, b, a1, a2;

  g_assert_cmpuint (anot_search_tree_select (tree, G_SQRT2, 5), ==, ANOT_SEARCH_TREE_ROOT);
  a = anot_search_tree_add_child (tree, ANOT_SEARCH_TREE_ROOT, NULL, "a()", NULL);
  b = anot_search_tree_add_child (tree, ANOT_SEARCH_TREE_ROOT, NULL, "b()", NULL);
  anot_search_tree_backpropagate (tree, a, 0.7, ANOT_BACKPROP_MEAN);
  anot_search_tree_backpropagate (tree, b, 0.6, ANOT_BACKPROP_MEAN);

  g_assert_cmpuint (anot_search_tree_select (tree, G_SQRT2, 5), ==, a);
  a1 = anot_search_tree_add_child (tree, a, NULL, "finish(\"2\")", NULL);
  a2 = anot_search_tree_add_child (tree, a, NULL, "a2()", NULL);
  anot_search_tree_set_terminal (tree, a1, TRUE);
  anot_search_tree_backpropagate (tree, a1, 0.1, ANOT_BACKPROP_MEAN);
  anot_search_tree_backpropagate (tree, a2, 0.1, ANOT_BACKPROP_MEAN);

  /* A: 0.3 over 3 visits → 0.3 + √2·sqrt(ln 4 / 3) = 1.2614;
   * B: 0.6 over 1 visit → 0.6 + √2·sqrt(ln 4) = 2.2651. */
  g_assert_cmpfloat_with_epsilon (anot_search_tree_get_value (tree, a), 0.3, 1e-12);
  g_assert_cmpfloat_with_epsilon (anot_search_tree_uct (tree, a, G_SQRT2), 1.261351258, 1e-8);
  g_assert_cmpfloat_with_epsilon (anot_search_tree_uct (tree, b, G_SQRT2), 2.265109222, 1e-8);
  g_assert_cmpuint (anot_search_tree_select (tree, G_SQRT2, 5), ==, b);
}

static void
test_select_terminal_and_depth (void)
{
  g_autoptr(AnotSearchTree) tree = anot_search_tree_new (NULL);
  guint a, b, a1;
  g_autoptr(GArray) expandable = NULL;

  a = anot_search_tree_add_child (tree, ANOT_SEARCH_TREE_ROOT, NULL, "finish(\"1\")", NULL);
  b = anot_search_tree_add_child (tree, ANOT_SEARCH_TREE_ROOT, NULL, "b()", NULL);
  anot_search_tree_set_terminal (tree, a, TRUE);
  anot_search_tree_backpropagate (tree, a, 0.9, ANOT_BACKPROP_MEAN);
  anot_search_tree_backpropagate (tree, b, 0.1, ANOT_BACKPROP_MEAN);

  expandable = anot_search_tree_list_expandable (tree, 5);
  g_assert_cmpuint (expandable->len, ==, 1);
  g_assert_cmpuint (g_array_index (expandable, guint, 0), ==, b);

  /* A has the best score but is a final answer: marked exhausted, and
   * the descent goes to B. */
  g_assert_cmpuint (anot_search_tree_select (tree, G_SQRT2, 5), ==, b);
  g_assert_true (anot_search_tree_get_exhausted (tree, a));
  g_assert_false (anot_search_tree_get_depth_limited (tree));

  /* B's child is at depth 2, the limit: nothing is left. */
  a1 = anot_search_tree_add_child (tree, b, NULL, "c()", NULL);
  anot_search_tree_backpropagate (tree, a1, 0.5, ANOT_BACKPROP_MEAN);
  g_assert_cmpuint (anot_search_tree_select (tree, G_SQRT2, 2), ==, ANOT_SEARCH_NODE_NONE);
  g_assert_true (anot_search_tree_get_depth_limited (tree));
  g_assert_true (anot_search_tree_get_exhausted (tree, ANOT_SEARCH_TREE_ROOT));
  g_assert_true (anot_search_tree_get_exhausted (tree, b));
  g_assert_cmpuint (anot_search_tree_get_height (tree), ==, 2);
}

static void
test_select_exhausted (void)
{
  g_autoptr(AnotSearchTree) tree = anot_search_tree_new (NULL);
  guint a = anot_search_tree_add_child (tree, ANOT_SEARCH_TREE_ROOT, NULL, "finish(\"1\")", NULL);
  guint b = anot_search_tree_add_child (tree, ANOT_SEARCH_TREE_ROOT, NULL, "b()", NULL);

  anot_search_tree_set_terminal (tree, a, TRUE);
  /* An expansion of B that produced nothing. */
  anot_search_tree_set_exhausted (tree, b, TRUE);
  g_assert_cmpuint (anot_search_tree_select (tree, G_SQRT2, 0), ==, ANOT_SEARCH_NODE_NONE);
  g_assert_false (anot_search_tree_get_depth_limited (tree));
}

static void
test_best_node_and_path (void)
{
  g_autoptr(AnotSearchTree) tree = anot_search_tree_new (NULL);
  guint a = anot_search_tree_add_child (tree, ANOT_SEARCH_TREE_ROOT, NULL, "a()", NULL);
  guint b = anot_search_tree_add_child (tree, ANOT_SEARCH_TREE_ROOT, NULL, "b()", NULL);
  guint b1 = anot_search_tree_add_child (tree, b, NULL, "finish(\"3, 1\")", "Final answer: 3, 1");
  guint b2 = anot_search_tree_add_child (tree, b, NULL, "b2()", NULL);
  const guint guess[] = { 1, 0 };
  const guint final[] = { 2, 0 };
  g_autoptr(GArray) path = NULL;
  guint n;

  g_assert_cmpuint (anot_search_tree_get_best_node (tree, FALSE), ==, ANOT_SEARCH_NODE_NONE);
  anot_search_tree_backpropagate (tree, a, 0.8, ANOT_BACKPROP_MEAN);
  anot_search_tree_backpropagate (tree, b, 0.5, ANOT_BACKPROP_MEAN);
  anot_search_tree_backpropagate (tree, b1, 0.6, ANOT_BACKPROP_MEAN);
  anot_search_tree_backpropagate (tree, b2, 0.7, ANOT_BACKPROP_MEAN);

  /* Highest value, with or without a ranking. */
  g_assert_cmpuint (anot_search_tree_get_best_node (tree, FALSE), ==, a);
  g_assert_cmpuint (anot_search_tree_get_best_node (tree, TRUE), ==, ANOT_SEARCH_NODE_NONE);
  anot_search_tree_set_ranking (tree, b2, guess, G_N_ELEMENTS (guess));
  anot_search_tree_set_ranking (tree, b1, final, G_N_ELEMENTS (final));
  anot_search_tree_set_terminal (tree, b1, TRUE);
  g_assert_cmpuint (anot_search_tree_get_best_node (tree, TRUE), ==, b2);
  /* A solution beats any value. */
  anot_search_tree_set_solution (tree, b1, TRUE);
  g_assert_cmpuint (anot_search_tree_get_best_node (tree, TRUE), ==, b1);
  g_assert_cmpuint (anot_search_tree_get_ranking (tree, b1, &n)[0], ==, 2);
  g_assert_cmpuint (n, ==, 2);

  /* Greedy by value: A (0.8) over B (0.6 = mean of 0.5, 0.6, 0.7). */
  path = anot_search_tree_get_best_path (tree);
  g_assert_cmpuint (path->len, ==, 2);
  g_assert_cmpuint (g_array_index (path, guint, 1), ==, a);
  g_clear_pointer (&path, g_array_unref);

  path = anot_search_tree_get_path (tree, b2);
  g_assert_cmpuint (path->len, ==, 3);
  g_assert_cmpuint (g_array_index (path, guint, 0), ==, ANOT_SEARCH_TREE_ROOT);
  g_assert_cmpuint (g_array_index (path, guint, 1), ==, b);
  g_assert_cmpuint (g_array_index (path, guint, 2), ==, b2);
}

static void
test_to_json (void)
{
  g_autoptr(AnotSearchTree) tree = anot_search_tree_new ("the request");
  guint a = anot_search_tree_add_child (tree, ANOT_SEARCH_TREE_ROOT, "why", "finish(\"2, 1\")",
                                        "Final answer: 2, 1");
  const guint ranking[] = { 1, 0 };
  g_autoptr(JsonNode) json = NULL;
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autofree char *text = NULL;
  JsonArray *nodes;
  JsonObject *root, *child;

  anot_search_tree_set_terminal (tree, a, TRUE);
  anot_search_tree_set_ranking (tree, a, ranking, 2);
  anot_search_tree_set_reflection (tree, a, "item 2 has a TV");
  anot_search_tree_backpropagate (tree, a, 0.25, ANOT_BACKPROP_MEAN);

  json = anot_search_tree_to_json (tree);
  text = json_to_string (json, FALSE);
  g_assert_true (json_parser_load_from_data (parser, text, -1, NULL));
  g_assert_cmpint (json_object_get_int_member (json_node_get_object (json), "n_nodes"), ==, 2);
  nodes = json_object_get_array_member (json_node_get_object (json), "nodes");
  root = json_array_get_object_element (nodes, 0);
  child = json_array_get_object_element (nodes, 1);
  g_assert_true (json_object_get_null_member (root, "parent"));
  g_assert_cmpstr (json_object_get_string_member (root, "thought"), ==, "the request");
  g_assert_cmpint (json_array_get_int_element (json_object_get_array_member (root, "children"), 0), ==, a);
  g_assert_cmpint (json_object_get_int_member (child, "parent"), ==, 0);
  g_assert_cmpint (json_object_get_int_member (child, "depth"), ==, 1);
  g_assert_cmpstr (json_object_get_string_member (child, "action"), ==, "finish(\"2, 1\")");
  g_assert_cmpfloat (json_object_get_double_member (child, "value"), ==, 0.25);
  g_assert_cmpint (json_object_get_int_member (child, "visits"), ==, 1);
  g_assert_true (json_object_get_boolean_member (child, "terminal"));
  g_assert_cmpstr (json_object_get_string_member (child, "reflection"), ==, "item 2 has a TV");
  /* Rankings are written 1-based, as the model numbers the items. */
  g_assert_cmpint (json_array_get_int_element (json_object_get_array_member (child, "ranking"), 0), ==, 2);
  g_assert_cmpint (json_array_get_int_element (json_object_get_array_member (child, "ranking"), 1), ==, 1);
}

static void
test_stop_names (void)
{
  g_assert_cmpstr (anot_search_stop_to_string (ANOT_SEARCH_STOP_SOLUTION), ==, "solution");
  g_assert_cmpstr (anot_search_stop_to_string (ANOT_SEARCH_STOP_CALL_BUDGET), ==, "call_budget");
  g_assert_cmpstr (anot_search_stop_to_string (ANOT_SEARCH_STOP_MAX_DEPTH), ==, "max_depth");
  g_assert_cmpstr (anot_search_stop_to_string (ANOT_SEARCH_STOP_TIMEOUT), ==, "timeout");
  /* The enum type is registered, with the same nicks. */
  {
    g_autoptr(GEnumClass) klass = g_type_class_ref (ANOT_TYPE_SEARCH_STOP);
    GEnumValue *value = g_enum_get_value (klass, ANOT_SEARCH_STOP_MAX_ITERATIONS);

    g_assert_cmpstr (value->value_nick, ==, "max-iterations");
  }
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);

  g_test_add_func ("/search-tree/uct/arithmetic", test_uct_arithmetic);
  g_test_add_func ("/search-tree/uct/unvisited-first", test_uct_unvisited_first);
  g_test_add_func ("/search-tree/uct/exploration-term", test_uct_exploration_term);
  g_test_add_func ("/search-tree/backpropagate/mean", test_backpropagate_mean);
  g_test_add_func ("/search-tree/backpropagate/max", test_backpropagate_max);
  g_test_add_func ("/search-tree/select/backtracks", test_select_backtracks);
  g_test_add_func ("/search-tree/select/terminal-and-depth", test_select_terminal_and_depth);
  g_test_add_func ("/search-tree/select/exhausted", test_select_exhausted);
  g_test_add_func ("/search-tree/best-node-and-path", test_best_node_and_path);
  g_test_add_func ("/search-tree/to-json", test_to_json);
  g_test_add_func ("/search-tree/stop-names", test_stop_names);

  return g_test_run ();
}
