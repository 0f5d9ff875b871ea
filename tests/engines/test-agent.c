/* test-agent.c: the agent plumbing of the core: actions parsed from model
 * text, the toolbox and its tools (check, search_reviews, finish), and
 * method settings from options, environment and file
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <anot/anot.h>

#include "anot-test-data.h"

#include <string.h>

#define N_CANDIDATES 6

static GPtrArray *
first_items (AnotDataset *dataset,
             guint        n)
{
  GPtrArray *items = g_ptr_array_new_with_free_func (g_object_unref);

  for (guint i = 0; i < n && i < anot_dataset_get_n_items (dataset); i++)
    g_ptr_array_add (items, g_object_ref (anot_dataset_get_item (dataset, i)));
  return items;
}

static JsonNode *
parse_json (const char *text)
{
  g_autoptr(GError) error = NULL;
  JsonNode *node = json_from_string (text, &error);

  g_assert_no_error (error);
  return node;
}

/* ------------------------------------------------------------------------ *
 * Actions
 * ------------------------------------------------------------------------ */

static AnotAgentAction *
parse_ok (const char *text)
{
  g_autoptr(GError) error = NULL;
  AnotAgentAction *action = anot_agent_action_parse (text, &error);

  g_assert_no_error (error);
  g_assert_nonnull (action);
  return action;
}

static void
assert_string_argument (AnotAgentAction *action,
                        guint            index,
                        const char      *expected)
{
  JsonNode *node = anot_agent_action_get_argument (action, index);

  g_assert_true (JSON_NODE_HOLDS_VALUE (node));
  g_assert_cmpint (json_node_get_value_type (node), ==, G_TYPE_STRING);
  g_assert_cmpstr (json_node_get_string (node), ==, expected);
}

static void
test_action_parse (void)
{
  g_autoptr(AnotAgentAction) count = parse_ok ("count(\"items\")");
  g_autoptr(AnotAgentAction) check = parse_ok ("check(\"attributes.get('WiFi') == 'free'\", 3)");
  g_autoptr(AnotAgentAction) numbers = parse_ok ("finish(3, 1, 5)");
  g_autoptr(AnotAgentAction) text = parse_ok ("finish(\"3, 1, 5\")");
  g_autoptr(AnotAgentAction) bare = parse_ok ("  sample(items[1].attributes)  ");
  g_autoptr(AnotAgentAction) inner = parse_ok ("sample(\"items[1].attributes[\"Good For Kids\"]\")");
  g_autoptr(AnotAgentAction) single = parse_ok ("search_reviews('it\\'s quiet')");
  g_autoptr(AnotAgentAction) empty = parse_ok ("keys()");
  g_autoptr(AnotAgentAction) list = parse_ok ("check(\"name\", [1, 2])");
  g_autoptr(AnotAgentAction) words = parse_ok ("check(\"stars >= 4\", None)");
  g_autoptr(AnotAgentAction) backticks = parse_ok ("`count(\"items\")`");

  g_assert_cmpstr (anot_agent_action_get_tool (count), ==, "count");
  g_assert_cmpuint (anot_agent_action_get_n_arguments (count), ==, 1);
  assert_string_argument (count, 0, "items");
  g_assert_false (anot_agent_action_is_finish (count));

  g_assert_cmpuint (anot_agent_action_get_n_arguments (check), ==, 2);
  assert_string_argument (check, 0, "attributes.get('WiFi') == 'free'");
  g_assert_cmpint (json_node_get_int (anot_agent_action_get_argument (check, 1)), ==, 3);

  g_assert_true (anot_agent_action_is_finish (numbers));
  g_assert_cmpuint (anot_agent_action_get_n_arguments (numbers), ==, 3);
  g_assert_cmpint (json_node_get_int (anot_agent_action_get_argument (numbers, 2)), ==, 5);
  g_assert_cmpuint (anot_agent_action_get_n_arguments (text), ==, 1);
  assert_string_argument (text, 0, "3, 1, 5");

  assert_string_argument (bare, 0, "items[1].attributes");
  assert_string_argument (inner, 0, "items[1].attributes[\"Good For Kids\"]");
  assert_string_argument (single, 0, "it's quiet");
  g_assert_cmpuint (anot_agent_action_get_n_arguments (empty), ==, 0);
  g_assert_true (JSON_NODE_HOLDS_ARRAY (anot_agent_action_get_argument (list, 1)));
  g_assert_true (JSON_NODE_HOLDS_NULL (anot_agent_action_get_argument (words, 1)));
  g_assert_cmpstr (anot_agent_action_get_tool (backticks), ==, "count");

  {
    g_autofree char *a = anot_agent_action_dup_argument_text (check, 1);
    g_autofree char *b = anot_agent_action_dup_argument_text (check, 0);

    g_assert_cmpstr (a, ==, "3");
    g_assert_cmpstr (b, ==, "attributes.get('WiFi') == 'free'");
  }
}

static void
test_action_canonical (void)
{
  g_autoptr(AnotAgentAction) a = parse_ok ("check('x == \"y\"',3)");
  g_autoptr(AnotAgentAction) b = parse_ok ("check(\"x == \\\"y\\\"\", 3)");
  g_autofree char *sa = anot_agent_action_to_string (a);
  g_autofree char *sb = anot_agent_action_to_string (b);
  g_autoptr(AnotAgentAction) again = NULL;
  g_autofree char *sc = NULL;

  /* Two spellings of the same call write the same text, so duplicate
   * proposals are recognised. */
  g_assert_cmpstr (sa, ==, "check(\"x == \\\"y\\\"\", 3)");
  g_assert_cmpstr (sa, ==, sb);
  /* The canonical text parses back to the same action. */
  again = parse_ok (sa);
  sc = anot_agent_action_to_string (again);
  g_assert_cmpstr (sc, ==, sa);
}

static void
test_action_errors (void)
{
  const char *bad[] = {
    "count",                      /* no parentheses */
    "count(\"items\"",            /* not closed */
    "3 + 4",                      /* not a call */
    "count(\"items\") and more",  /* trailing text */
    "check(, 3)",                 /* empty argument */
    "",
  };

  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(AnotAgentAction) action = anot_agent_action_parse (bad[i], &error);

      g_assert_null (action);
      g_assert_error (error, ANOT_ERROR, ANOT_ERROR_PARSE);
      g_assert_nonnull (error->message);
    }
}

static void
test_action_reply (void)
{
  struct {
    const char *reply;
    const char *tool;
    const char *thought;
  } cases[] = {
    { "Thought: how many?\nAction: count(\"items\")\nObservation: 6", "count", "how many?" },
    { "**Thought:** the keys\n**Action:** `keys(\"items\")`", "keys", "the keys" },
    { "I am done.\nfinish(\"2, 1\")", "finish", "I am done." },
    { "Thought 2: look at one\nAction 2: sample(\"items.1\")", "sample", "look at one" },
    { "count(\"items\")", "count", NULL },
    { "thought: lower case\naction: union_keys(\"items[*].attributes\")", "union_keys", "lower case" },
    { "Thought: several lines\nof reasoning\nAction: check(\"stars > 4\")", "check",
      "several lines\nof reasoning" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(GError) error = NULL;
      g_autofree char *thought = NULL;
      g_autoptr(AnotAgentAction) action = anot_agent_action_parse_reply (cases[i].reply, &thought, &error);

      g_assert_no_error (error);
      g_assert_cmpstr (anot_agent_action_get_tool (action), ==, cases[i].tool);
      g_assert_cmpstr (thought, ==, cases[i].thought);
    }

  {
    const char *no_action[] = { "Thought: I would need more information.", "I am thinking about it." };

    for (guint i = 0; i < G_N_ELEMENTS (no_action); i++)
      {
        g_autoptr(GError) error = NULL;
        g_autofree char *thought = NULL;
        g_autoptr(AnotAgentAction) action = anot_agent_action_parse_reply (no_action[i], &thought, &error);

        g_assert_null (action);
        g_assert_error (error, ANOT_ERROR, ANOT_ERROR_PARSE);
        g_assert_true (g_str_has_prefix (error->message, "No action found"));
      }
  }
}

static void
test_format_step (void)
{
  g_autofree char *full = anot_agent_format_step ("t", "count(\"items\")", "6");
  g_autofree char *partial = anot_agent_format_step ("t", NULL, "Error: x");
  g_autofree char *nothing = anot_agent_format_step (NULL, NULL, NULL);

  g_assert_cmpstr (full, ==, "Thought: t\nAction: count(\"items\")\nObservation: 6\n");
  g_assert_cmpstr (partial, ==, "Thought: t\nObservation: Error: x\n");
  g_assert_cmpstr (nothing, ==, "");
}

/* ------------------------------------------------------------------------ *
 * The toolbox
 * ------------------------------------------------------------------------ */

typedef struct {
  AnotDataset      *dataset;
  GPtrArray        *candidates;
  AnotAgentToolbox *toolbox;
} Fixture;

static void
fixture_setup (Fixture       *fixture,
               gconstpointer  data)
{
  fixture->dataset = anot_test_load_demo ();
  fixture->candidates = first_items (fixture->dataset, N_CANDIDATES);
  fixture->toolbox = anot_agent_toolbox_new (fixture->candidates);
}

static void
fixture_teardown (Fixture       *fixture,
                  gconstpointer  data)
{
  g_clear_object (&fixture->toolbox);
  g_clear_pointer (&fixture->candidates, g_ptr_array_unref);
  g_clear_object (&fixture->dataset);
}

static char *
run (Fixture     *fixture,
     const char  *text)
{
  g_autoptr(AnotAgentAction) action = parse_ok (text);

  return anot_agent_toolbox_execute (fixture->toolbox, action, NULL);
}

static JsonObject *
run_object (Fixture    *fixture,
            const char *text,
            JsonNode  **out_node)
{
  g_autofree char *observation = run (fixture, text);

  g_assert_false (g_str_has_prefix (observation, "Error:"));
  *out_node = parse_json (observation);
  g_assert_true (JSON_NODE_HOLDS_OBJECT (*out_node));
  return json_node_get_object (*out_node);
}

static gboolean
array_contains (JsonArray *array,
                gint64     value)
{
  for (guint i = 0; i < json_array_get_length (array); i++)
    if (json_array_get_int_element (array, i) == value)
      return TRUE;
  return FALSE;
}

static void
test_toolbox_describe (Fixture       *fixture,
                       gconstpointer  data)
{
  g_auto(GStrv) actions = anot_agent_toolbox_list_actions (fixture->toolbox);
  g_autofree char *joined = g_strjoinv (",", actions);
  g_autofree char *description = anot_agent_toolbox_describe (fixture->toolbox);

  g_assert_cmpstr (joined, ==, "count,keys,union_keys,sample,check,search_reviews,finish");
  for (guint i = 0; actions[i] != NULL; i++)
    {
      g_autofree char *line = g_strdup_printf ("- %s(", actions[i]);

      g_assert_nonnull (strstr (description, line));
    }
  g_assert_true (g_str_has_suffix (description, "it ends the task"));
}

static void
test_toolbox_data_tools (Fixture       *fixture,
                         gconstpointer  data)
{
  g_autofree char *count = run (fixture, "count(\"items\")");
  g_autofree char *name = run (fixture, "sample(\"items[2].name\")");
  g_autofree char *expected_name = g_strdup_printf ("\"%s\"",
    anot_item_get_name (g_ptr_array_index (fixture->candidates, 1)));
  g_autofree char *bad_path = run (fixture, "keys(\"items[99]\")");
  g_autofree char *no_argument = run (fixture, "keys()");
  g_autofree char *unknown = run (fixture, "lookup(\"x\")");

  g_assert_cmpstr (count, ==, "6");
  g_assert_cmpstr (name, ==, expected_name);
  g_assert_true (g_str_has_prefix (bad_path, "Error: "));
  g_assert_true (g_str_has_prefix (no_argument, "Error: "));
  g_assert_cmpstr (unknown, ==, "Error: unknown action “lookup”; the actions are count, keys, "
                                "union_keys, sample, check, search_reviews, finish");
  g_assert_cmpuint (anot_agent_toolbox_get_n_executed (fixture->toolbox), ==, 5);
}

static void
test_toolbox_check (Fixture       *fixture,
                    gconstpointer  data)
{
  g_autoptr(JsonNode) node = NULL;
  JsonObject *result = run_object (fixture, "check(\"attributes.get('DriveThru') == True\")", &node);
  JsonArray *yes = json_object_get_array_member (result, "true");
  JsonArray *no = json_object_get_array_member (result, "false");
  guint n_yes = 0;

  /* What the file says, read without the tool. */
  for (guint i = 0; i < fixture->candidates->len; i++)
    {
      const char *raw = anot_item_get_attribute (g_ptr_array_index (fixture->candidates, i), "DriveThru");
      gboolean drive_thru = g_strcmp0 (raw, "True") == 0;

      g_assert_cmpint (array_contains (yes, i + 1), ==, drive_thru);
      g_assert_cmpint (array_contains (no, i + 1), ==, !drive_thru);
      n_yes += drive_thru;
    }
  g_assert_cmpuint (json_array_get_length (yes), ==, n_yes);
  g_assert_cmpuint (n_yes, >, 0);
  g_assert_cmpuint (n_yes, <, N_CANDIDATES);
  g_assert_false (json_object_has_member (result, "errors"));
}

/* Checks of several requests over the same items share the evaluator's
 * values of those items (react and lats at N = 50, -j 32 held 32 copies
 * of the same reviews), see the same values as a check of an unshared
 * copy of the document, and keep no per-item scope once done (at -j 64
 * those of every request in flight were a quarter of react's heap). */
static void
test_toolbox_check_shared (Fixture       *fixture,
                           gconstpointer  data)
{
  const char *action = "check(\"[r['stars'] for r in reviews] + [len(item), index]\")";
  g_autofree char *first = run (fixture, action);
  g_autoptr(GPtrArray) toolboxes = g_ptr_array_new_with_free_func (g_object_unref);
  g_autoptr(GPtrArray) copies = g_ptr_array_new_with_free_func (g_object_unref);

  g_assert_false (g_str_has_prefix (first, "Error:"));

  /* The same document, unsealed: nothing shared, the same answer, and
   * nothing kept by the tool but its document once the check is done. */
  {
    g_autofree char *text = json_to_string (anot_agent_toolbox_get_data (fixture->toolbox), FALSE);
    g_autoptr(JsonNode) copy = parse_json (text);
    g_autoptr(JsonNode) args = parse_json ("[\"[r['stars'] for r in reviews] + [len(item), index]\"]");
    g_autoptr(GError) error = NULL;
    g_autoptr(AnotItemCheckTool) unshared = anot_item_check_tool_new (copy);
    g_autoptr(JsonNode) result = NULL;
    g_autofree char *result_text = NULL;
    g_autoptr(JsonNode) first_node = parse_json (first);
#ifndef __SANITIZE_ADDRESS__
    size_t start = anot_test_heap_in_use ();
    size_t kept;
#endif

    result = anot_tool_invoke (ANOT_TOOL (unshared), args, &error);
    g_assert_no_error (error);
#ifndef __SANITIZE_ADDRESS__
    g_clear_pointer (&result, json_node_unref);
    kept = anot_test_heap_in_use () - MIN (start, anot_test_heap_in_use ());
    g_test_message ("heap: %zu bytes kept after a check of an unshared copy", kept);
    /* Kept, the items' scopes were 217 kB (their converted reviews);
     * what stays is the evaluator's and GLib's own (~10 kB). */
    g_assert_cmpuint (kept, <, 48 * 1024);
    result = anot_tool_invoke (ANOT_TOOL (unshared), args, &error);
    g_assert_no_error (error);
#endif
    g_assert_true (json_node_equal (result, first_node));
    result_text = json_to_string (result, FALSE);
    g_assert_nonnull (strstr (result_text, "\"1\":"));
  }

  /* Items no check has read yet (the shared values are keyed by the
   * dict-context members, which are the items'). */
  for (guint i = 0; i < fixture->candidates->len; i++)
    {
      AnotItem *item = g_ptr_array_index (fixture->candidates, i);

      g_ptr_array_add (copies, anot_item_copy_with_reviews (item, anot_item_get_reviews (item)));
    }

#ifdef __SANITIZE_ADDRESS__
  g_test_message ("mallinfo2() does not see AddressSanitizer's heap: memory not measured");
#else
  if (anot_test_heap_in_use () == 0)
    g_test_message ("mallinfo2() sees no heap (valgrind?): memory not measured");
  else
    {
      size_t start = anot_test_heap_in_use ();
      size_t first_cost = 0, before = 0, each;

      for (guint i = 0; i < 17; i++)
        {
          AnotAgentToolbox *toolbox = anot_agent_toolbox_new (copies);
          g_autoptr(AnotAgentAction) parsed = parse_ok (action);
          g_autofree char *observation = anot_agent_toolbox_execute (toolbox, parsed, NULL);

          g_assert_cmpstr (observation, ==, first);
          g_ptr_array_add (toolboxes, toolbox);
          if (i == 0)
            {
              /* Its dict context, and the items' shared members and values,
               * made once. */
              first_cost = anot_test_heap_in_use () - start;
              before = anot_test_heap_in_use ();
            }
        }
      each = (anot_test_heap_in_use () - before) / 16;
      g_test_message ("heap: %zu bytes for the first toolbox to check the items, %zu a toolbox "
                      "(its dict context) for 16 more", first_cost, each);
      /* Without sharing, each toolbox converted the items again. */
      g_assert_cmpuint (each, <, first_cost / 3);
    }
#endif
}

static void
test_toolbox_check_values (Fixture       *fixture,
                           gconstpointer  data)
{
  g_autoptr(JsonNode) values_node = NULL;
  g_autoptr(JsonNode) one_node = NULL;
  g_autoptr(JsonNode) errors_node = NULL;
  JsonObject *values = run_object (fixture, "check(\"name\")", &values_node);
  JsonObject *one = run_object (fixture, "check(\"item['name'].upper()\", 2)", &one_node);
  JsonObject *errors = run_object (fixture, "check(\"attributes['NoSuchAttribute']\")", &errors_node);
  g_autofree char *upper = g_ascii_strup (anot_item_get_name (g_ptr_array_index (fixture->candidates, 1)), -1);
  g_autofree char *syntax = run (fixture, "check(\"name ==\")");
  g_autofree char *no_item = run (fixture, "check(\"name\", 99)");
  g_autofree char *no_expression = run (fixture, "check()");

  values = json_object_get_object_member (values, "values");
  for (guint i = 0; i < fixture->candidates->len; i++)
    {
      char key[8];

      g_snprintf (key, sizeof key, "%u", i + 1);
      g_assert_cmpstr (json_object_get_string_member (values, key), ==,
                       anot_item_get_name (g_ptr_array_index (fixture->candidates, i)));
    }

  g_assert_cmpint (json_object_get_int_member (one, "item"), ==, 2);
  g_assert_cmpstr (json_object_get_string_member (one, "value"), ==, upper);

  errors = json_object_get_object_member (errors, "errors");
  g_assert_cmpuint (json_object_get_size (errors), ==, N_CANDIDATES);
  g_assert_nonnull (strstr (json_object_get_string_member (errors, "1"), "NoSuchAttribute"));

  g_assert_true (g_str_has_prefix (syntax, "Error: "));
  g_assert_cmpstr (no_item, ==, "Error: There is no item 99; the items are numbered 1 to 6");
  g_assert_true (g_str_has_prefix (no_expression, "Error: check() takes an expression"));
}

static void
test_toolbox_search_reviews (Fixture       *fixture,
                             gconstpointer  data)
{
  AnotItem *third = g_ptr_array_index (fixture->candidates, 2);
  const char *text = anot_review_get_text (anot_item_get_review (third, 0));
  g_auto(GStrv) words = g_strsplit_set (text, " .,;:!?\"'()\n", -1);
  const char *keyword = NULL;
  g_autofree char *action = NULL;
  g_autofree char *lower_keyword = NULL;
  g_autoptr(JsonNode) node = NULL;
  JsonObject *result, *matches;
  JsonArray *matching, *no_match;

  /* A word of the third item's first review: at least that item matches. */
  for (guint i = 0; words[i] != NULL && keyword == NULL; i++)
    if (strlen (words[i]) >= 7)
      keyword = words[i];
  g_assert_nonnull (keyword);
  lower_keyword = g_ascii_strdown (keyword, -1);
  action = g_strdup_printf ("search_reviews(\"%s\")", keyword);
  result = run_object (fixture, action, &node);
  matching = json_object_get_array_member (result, "items_matching");
  no_match = json_object_get_array_member (result, "no_match");
  matches = json_object_get_object_member (result, "matches");

  for (guint i = 0; i < fixture->candidates->len; i++)
    {
      AnotItem *item = g_ptr_array_index (fixture->candidates, i);
      guint n_matching = 0;
      char key[8];

      for (guint r = 0; r < anot_item_get_n_reviews (item); r++)
        {
          g_autofree char *lower = g_ascii_strdown (anot_review_get_text (anot_item_get_review (item, r)), -1);

          n_matching += strstr (lower, lower_keyword) != NULL;
        }
      g_snprintf (key, sizeof key, "%u", i + 1);
      g_assert_cmpint (array_contains (matching, i + 1), ==, n_matching > 0);
      g_assert_cmpint (array_contains (no_match, i + 1), ==, n_matching == 0);
      if (n_matching > 0)
        {
          JsonObject *entry = json_object_get_object_member (matches, key);
          JsonArray *snippets = json_object_get_array_member (entry, "snippets");

          g_assert_cmpint (json_object_get_int_member (entry, "n_matching_reviews"), ==, n_matching);
          g_assert_cmpint (json_object_get_int_member (entry, "n_reviews"), ==, anot_item_get_n_reviews (item));
          g_assert_cmpuint (json_array_get_length (snippets), ==, MIN (n_matching, 2));
          {
            g_autofree char *snippet = g_ascii_strdown (json_array_get_string_element (snippets, 0), -1);

            g_assert_nonnull (strstr (snippet, lower_keyword));
          }
        }
    }
  g_assert_true (array_contains (matching, 3));

  /* Alternatives, one item, a missing keyword. */
  {
    g_autoptr(JsonNode) one_node = NULL;
    g_autofree char *alternatives = g_strdup_printf ("search_reviews(\"zzzqqq|%s\", 3)", keyword);
    JsonObject *one = run_object (fixture, alternatives, &one_node);
    g_autofree char *none = run (fixture, "search_reviews(\"\")");

    g_assert_cmpuint (json_array_get_length (json_object_get_array_member (one, "items_matching")), ==, 1);
    g_assert_cmpuint (json_array_get_length (json_object_get_array_member (one, "no_match")), ==, 0);
    g_assert_true (g_str_has_prefix (none, "Error: "));
  }
}

static void
test_toolbox_finish (Fixture       *fixture,
                     gconstpointer  data)
{
  g_autoptr(AnotAgentAction) good = parse_ok ("finish(\"3, 1\")");
  g_autoptr(AnotAgentAction) numbers = parse_ok ("finish(4, 2)");
  g_autoptr(AnotAgentAction) bad = parse_ok ("finish(\"I cannot tell\")");
  g_autoptr(AnotParseResult) answer = NULL;
  g_autofree char *observation = NULL;
  const guint *indices;
  guint n;

  observation = anot_agent_toolbox_execute (fixture->toolbox, good, &answer);
  g_assert_cmpstr (observation, ==, "Final answer: 3, 1");
  g_assert_true (anot_parse_result_get_ok (answer));
  indices = anot_parse_result_get_indices (answer, &n);
  g_assert_cmpuint (n, ==, 2);
  g_assert_cmpuint (indices[0], ==, 2);
  g_assert_cmpuint (indices[1], ==, 0);
  g_clear_object (&answer);
  g_clear_pointer (&observation, g_free);

  observation = anot_agent_toolbox_execute (fixture->toolbox, numbers, &answer);
  g_assert_cmpstr (observation, ==, "Final answer: 4, 2");
  g_clear_object (&answer);
  g_clear_pointer (&observation, g_free);

  observation = anot_agent_toolbox_execute (fixture->toolbox, bad, &answer);
  g_assert_true (g_str_has_prefix (observation, "Error: no ranking could be read"));
  g_assert_false (anot_parse_result_get_ok (answer));
}

static void
test_toolbox_truncation (Fixture       *fixture,
                         gconstpointer  data)
{
  g_autofree char *observation = NULL;

  anot_agent_toolbox_set_max_observation_chars (fixture->toolbox, 50);
  g_assert_cmpuint (anot_agent_toolbox_get_max_observation_chars (fixture->toolbox), ==, 50);
  observation = run (fixture, "sample(\"items[1]\")");
  g_assert_true (g_str_has_suffix (observation, "... (truncated)"));
  g_assert_cmpint (g_utf8_strlen (observation, -1), ==, 50 + strlen ("... (truncated)"));
}

/* ------------------------------------------------------------------------ *
 * Settings
 * ------------------------------------------------------------------------ */

static char *
write_config (const char *name,
              const char *contents)
{
  g_autofree char *path = g_build_filename (g_get_user_config_dir (), name, NULL);
  g_autoptr(GError) error = NULL;

  g_mkdir_with_parents (g_get_user_config_dir (), 0700);
  g_file_set_contents (path, contents, -1, &error);
  g_assert_no_error (error);
  return g_steal_pointer (&path);
}

static const char *
source_of (JsonNode   *json,
           const char *key)
{
  JsonObject *entry = json_object_get_object_member (json_node_get_object (json), key);

  return json_object_get_string_member (entry, "source");
}

static void
test_settings_precedence (void)
{
  g_autoptr(AnotDataset) dataset = anot_test_load_demo ();
  g_autoptr(AnotMethodContext) context = anot_method_context_new (dataset, "R01", 1);
  g_autoptr(AnotMethodSettings) settings = anot_method_settings_new ("lats");
  g_autofree char *path = write_config ("anot.ini", "[default]\nmodel = m\n\n"
                                        "[method lats]\nbeam_width = 5\nmax_depth = 7\ntimeout = 0.5\n\n"
                                        "[method react]\nmax_steps = 9\n");
  const char *envp[] = { "ANOT_LATS_BEAM_WIDTH=4", "ANOT_LATS_MAX_DEPTH=8", "ANOT_REACT_MAX_STEPS=2", NULL };
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) json = NULL;
  guint beam_width, max_depth, max_calls;
  double timeout, weight;
  g_autofree char *expected_file_source = NULL;

  anot_method_settings_set_environment (settings, envp);
  g_assert_true (anot_method_settings_load_file (settings, path, &error));
  g_assert_no_error (error);
  anot_method_context_set_option (context, "lats.max_depth", "2");
  anot_method_context_set_option (context, "react.max_steps", "1");

  /* option > environment > file > default */
  g_assert_true (anot_method_settings_get_uint (settings, context, "beam_width", 3, 1, 32, &beam_width, &error));
  g_assert_true (anot_method_settings_get_uint (settings, context, "max_depth", 5, 1, 100, &max_depth, &error));
  g_assert_true (anot_method_settings_get_double (settings, context, "timeout", 300, 0, 1000, &timeout, &error));
  g_assert_true (anot_method_settings_get_double (settings, context, "exploration_weight", G_SQRT2, 0, 10,
                                                  &weight, &error));
  g_assert_true (anot_method_settings_get_uint (settings, NULL, "max_calls", 60, 1, 100, &max_calls, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (beam_width, ==, 4);
  g_assert_cmpuint (max_depth, ==, 2);
  g_assert_cmpfloat (timeout, ==, 0.5);
  g_assert_cmpfloat (weight, ==, G_SQRT2);
  g_assert_cmpuint (max_calls, ==, 60);

  json = anot_method_settings_to_json (settings);
  expected_file_source = g_strdup_printf ("%s:7 [method lats]", path);
  g_assert_cmpstr (source_of (json, "beam_width"), ==, "environment ANOT_LATS_BEAM_WIDTH");
  g_assert_cmpstr (source_of (json, "max_depth"), ==, "method option lats.max_depth");
  g_assert_cmpstr (source_of (json, "timeout"), ==, expected_file_source);
  g_assert_cmpstr (source_of (json, "exploration_weight"), ==, "default");

  /* Another method reads its own section and variables only. */
  {
    g_autoptr(AnotMethodSettings) react = anot_method_settings_new ("react");
    guint steps;

    anot_method_settings_set_environment (react, NULL);
    g_assert_true (anot_method_settings_load_file (react, path, &error));
    g_assert_true (anot_method_settings_get_uint (react, NULL, "max_steps", 5, 1, 100, &steps, &error));
    g_assert_cmpuint (steps, ==, 9);
    g_assert_true (anot_method_settings_get_uint (react, NULL, "beam_width", 3, 1, 32, &beam_width, &error));
    g_assert_cmpuint (beam_width, ==, 3);
  }

  /* The LLM configuration reads the same file and leaves [method ...] alone. */
  {
    g_autoptr(AnotLlmConfig) config = anot_llm_config_new ();
    g_autofree char *bogus = write_config ("bogus.ini", "[method lats]\nbeam_width = 2\n[bogus]\nx = 1\n");

    g_assert_true (anot_llm_config_load_file (config, path, &error));
    g_assert_no_error (error);
    g_assert_false (anot_llm_config_load_file (config, bogus, &error));
    g_assert_error (error, ANOT_ERROR, ANOT_ERROR_CONFIG);
    g_assert_nonnull (strstr (error->message, "[bogus]"));
  }
}

static void
test_settings_errors (void)
{
  g_autoptr(AnotMethodSettings) settings = anot_method_settings_new ("lats");
  const char *envp[] = { "ANOT_LATS_MAX_ITERATIONS=zero", "ANOT_LATS_BACKPROP=median",
                         "ANOT_LATS_EXPLORATION_WEIGHT=inf", "ANOT_LATS_TRACE_TREE=maybe",
                         "ANOT_LATS_BEAM_WIDTH=0", NULL };
  const char *backprop[] = { "mean", "max", NULL };
  g_autoptr(GError) error = NULL;
  guint u;
  double d;
  gboolean b;

  anot_method_settings_set_environment (settings, envp);
  g_assert_false (anot_method_settings_get_uint (settings, NULL, "max_iterations", 10, 1, 100, &u, &error));
  g_assert_error (error, ANOT_ERROR, ANOT_ERROR_INVALID_ARGUMENT);
  g_assert_nonnull (strstr (error->message, "ANOT_LATS_MAX_ITERATIONS"));
  g_assert_nonnull (strstr (error->message, "zero"));
  g_clear_error (&error);

  g_assert_false (anot_method_settings_get_uint (settings, NULL, "beam_width", 3, 1, 32, &u, &error));
  g_assert_error (error, ANOT_ERROR, ANOT_ERROR_INVALID_ARGUMENT);
  g_clear_error (&error);

  g_assert_false (anot_method_settings_get_choice (settings, NULL, "backprop", backprop, 0, &u, &error));
  g_assert_error (error, ANOT_ERROR, ANOT_ERROR_INVALID_ARGUMENT);
  g_assert_nonnull (strstr (error->message, "mean, max"));
  g_clear_error (&error);

  g_assert_false (anot_method_settings_get_double (settings, NULL, "exploration_weight", 1, 0, 10, &d, &error));
  g_assert_error (error, ANOT_ERROR, ANOT_ERROR_INVALID_ARGUMENT);
  g_clear_error (&error);

  g_assert_false (anot_method_settings_get_boolean (settings, NULL, "trace_tree", TRUE, &b, &error));
  g_assert_error (error, ANOT_ERROR, ANOT_ERROR_INVALID_ARGUMENT);
  g_clear_error (&error);

  g_assert_false (anot_method_settings_load_file (settings, "/nonexistent/anot.ini", &error));
  g_assert_error (error, ANOT_ERROR, ANOT_ERROR_CONFIG);
  g_clear_error (&error);

  /* No file is fine for the default path. */
  g_assert_true (anot_method_settings_load_default_file (settings, &error));
  g_assert_no_error (error);
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);

  g_test_add_func ("/agent/action/parse", test_action_parse);
  g_test_add_func ("/agent/action/canonical", test_action_canonical);
  g_test_add_func ("/agent/action/errors", test_action_errors);
  g_test_add_func ("/agent/action/reply", test_action_reply);
  g_test_add_func ("/agent/action/format-step", test_format_step);
  g_test_add ("/agent/toolbox/describe", Fixture, NULL, fixture_setup, test_toolbox_describe, fixture_teardown);
  g_test_add ("/agent/toolbox/data-tools", Fixture, NULL, fixture_setup, test_toolbox_data_tools,
              fixture_teardown);
  g_test_add ("/agent/toolbox/check", Fixture, NULL, fixture_setup, test_toolbox_check, fixture_teardown);
  g_test_add ("/agent/toolbox/check-shared", Fixture, NULL, fixture_setup, test_toolbox_check_shared,
              fixture_teardown);
  g_test_add ("/agent/toolbox/check-values", Fixture, NULL, fixture_setup, test_toolbox_check_values,
              fixture_teardown);
  g_test_add ("/agent/toolbox/search-reviews", Fixture, NULL, fixture_setup, test_toolbox_search_reviews,
              fixture_teardown);
  g_test_add ("/agent/toolbox/finish", Fixture, NULL, fixture_setup, test_toolbox_finish, fixture_teardown);
  g_test_add ("/agent/toolbox/truncation", Fixture, NULL, fixture_setup, test_toolbox_truncation,
              fixture_teardown);
  g_test_add_func ("/agent/settings/precedence", test_settings_precedence);
  g_test_add_func ("/agent/settings/errors", test_settings_errors);

  return g_test_run ();
}
