/* test-parse.c: output parsers (scores, rankings, JSON, steps, compat)
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * /parse/corpus runs every parser on every line of the recorded outputs of
 * the original framework ($ANOT_LLM_OUTPUTS, ../shared/data/llm_outputs)
 * and asserts `expected` wherever this library implements the parser that
 * produced it.
 */

#include <anot/anot.h>
#include <math.h>
#include <string.h>

/* For g_test_message(): TAP wants one line per message. */
static const char *
one_line (const char *text)
{
  static char *last;

  g_free (last);
  last = g_strescape (text != NULL ? text : "", NULL);
  return last;
}

static AnotParseResult *
check_invariants (AnotParseResult *r,
                  const char      *text,
                  guint            n)
{
  guint len;
  const guint *pos = anot_parse_result_get_indices (r, &len);
  g_autoptr(JsonNode) trace = anot_parse_result_to_json (r);
  JsonObject *o = json_node_get_object (trace);

  g_assert_cmpstr (anot_parse_result_get_text (r), ==, text != NULL ? text : "");
  g_assert_cmpint (anot_parse_result_get_ok (r), ==,
                   anot_parse_result_get_failure (r) == ANOT_PARSE_FAILURE_NONE);
  g_assert_cmpint (json_object_get_boolean_member (o, "ok"), ==, anot_parse_result_get_ok (r));
  if (!anot_parse_result_get_ok (r))
    {
      g_assert_nonnull (anot_parse_result_get_message (r));
      g_assert_nonnull (json_object_get_string_member (o, "failure"));
    }
  if (anot_parse_result_get_kind (r) == ANOT_PARSE_KIND_RANKING)
    {
      g_autofree gboolean *seen = g_new0 (gboolean, n + 1);

      g_assert_cmpuint (anot_parse_result_get_n_parsed (r) + anot_parse_result_get_n_appended (r), ==, len);
      if (anot_parse_result_get_ok (r))
        g_assert_cmpuint (anot_parse_result_get_n_parsed (r), >, 0);
      else
        g_assert_cmpuint (len, ==, 0);
      for (guint i = 0; i < len; i++)
        {
          g_assert_cmpuint (pos[i], <, n);
          g_assert_false (seen[pos[i]]);
          seen[pos[i]] = TRUE;
        }
    }
  return r;
}

static void
assert_positions (AnotParseResult *r,
                  const guint     *expected,
                  guint            n_expected)
{
  guint len;
  const guint *pos = anot_parse_result_get_indices (r, &len);

  g_assert_true (anot_parse_result_get_ok (r));
  g_assert_cmpmem (pos, len * sizeof (guint), expected, n_expected * sizeof (guint));
}

/* ------------------------------------------------------------------------ */

static void
test_score_formats (void)
{
  /* Every format seed 000 lists, and the rule that reads it. */
  struct { const char *text; double score; const char *rule; } ok[] = {
    { "5", 5, "number" },
    { "<5>", 5, "tag" },
    { "<score>5</score>", 5, "tag" },
    { "<score>10</score>\nJustification: All requested attributes match.", 10, "tag" },
    { "4/10", 4, "fraction" },
    { "Score: 5", 5, "label" },
    { "Output: 5", 5, "label" },
    { "5 — because it has outdoor seating", 5, "leading" },
    { "7 - decent match", 7, "leading" },
    { "**8**", 8, "number" },
    { "8.5", 8.5, "number" },
    { "{\"score\": 6, \"reason\": \"ok\"}", 6, "json" },
    { "Has WiFi and seating. Score: 3. On reflection, final score: 4", 4, "label" },
    { "4/5", 8, "fraction" },
    { "<think>score 1? no</think>9", 9, "number" },
    { "I would give it 6 overall given the evidence", 6, "sole" },
  };
  struct { const char *text; AnotParseFailure failure; } bad[] = {
    { "", ANOT_PARSE_FAILURE_EMPTY },
    { "   \n", ANOT_PARSE_FAILURE_EMPTY },
    { "I don’t have current menu data for Chapterhouse, so I can’t rate it on a 0–10 scale.",
      ANOT_PARSE_FAILURE_REFUSAL },
    { "Please provide the actual numeric scores for indices 0 through 9.", ANOT_PARSE_FAILURE_REFUSAL },
    { "It has 2 patios and 3 TVs", ANOT_PARSE_FAILURE_AMBIGUOUS },
    { "Great place, very cozy", ANOT_PARSE_FAILURE_NOT_FOUND },
    { "Score: 12", ANOT_PARSE_FAILURE_OUT_OF_RANGE },
    { "-1", ANOT_PARSE_FAILURE_OUT_OF_RANGE },
  };

  for (guint i = 0; i < G_N_ELEMENTS (ok); i++)
    {
      g_autoptr(AnotParseResult) r = check_invariants (anot_parse_score (ok[i].text, 0, 10), ok[i].text, 0);

      g_test_message ("score: %s", one_line (ok[i].text));
      g_assert_true (anot_parse_result_get_ok (r));
      g_assert_cmpfloat (anot_parse_result_get_score (r), ==, ok[i].score);
      g_assert_cmpstr (anot_parse_result_get_rule (r), ==, ok[i].rule);
    }
  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      g_autoptr(AnotParseResult) r = check_invariants (anot_parse_score (bad[i].text, 0, 10), bad[i].text, 0);

      g_test_message ("score: %s", one_line (bad[i].text));
      g_assert_false (anot_parse_result_get_ok (r));
      g_assert_cmpint (anot_parse_result_get_failure (r), ==, bad[i].failure);
    }

  /* Out of range keeps the value; -1 is fine on a -1..1 scale. */
  {
    g_autoptr(AnotParseResult) r = anot_parse_score ("Score: 12", 0, 10);
    g_autoptr(AnotParseResult) t = anot_parse_score ("-1", -1, 1);

    g_assert_cmpfloat (anot_parse_result_get_score (r), ==, 12);
    g_assert_true (anot_parse_result_get_ok (t));
    g_assert_cmpfloat (anot_parse_result_get_score (t), ==, -1);
  }
  {
    g_autoptr(AnotParseResult) r = check_invariants (anot_parse_score (NULL, 0, 10), NULL, 0);

    g_assert_cmpint (anot_parse_result_get_failure (r), ==, ANOT_PARSE_FAILURE_EMPTY);
    g_assert_true (isnan (anot_parse_result_get_score (r)));
  }
}

/* ------------------------------------------------------------------------ */

static void
test_ranking_formats (void)
{
  struct {
    const char *text;
    guint n;
    guint expected[6];
    guint n_expected;
    const char *rule;
  } cases[] = {
    { "5, 2, 1", 5, { 4, 1, 0 }, 3, "list" },
    { "[5,2,1]", 5, { 4, 1, 0 }, 3, "json" },
    { "[3] > [1] > [2]", 3, { 2, 0, 1 }, 3, "brackets" },
    { "6 4 8", 10, { 5, 3, 7 }, 3, "list" },
    { "ANSWER: 2,10,8,6,1", 10, { 1, 9, 7, 5, 0 }, 5, "answer/list" },
    { "After comparing all of them...\n\nANSWER: 4", 10, { 3 }, 1, "answer/list" },
    /* The original reads the 5 of "top-5" as a candidate; this does not. */
    { "top-5: [1, 2, 3, 4, 5]", 10, { 0, 1, 2, 3, 4 }, 5, "answer/list" },
    { "Final ranking:\n1. [7] Cafe Seven\n2. [2] Cafe Two\n3. [9]", 10, { 6, 1, 8 }, 3, "answer/brackets" },
    { "Ranking:\n1. Restaurant 4 - best\n2. Restaurant 1\n\nNotes: 3 others lack wifi", 5, { 3, 0 }, 2,
      "answer/numbered-list" },
    { "Restaurant 3 fits every condition; restaurant 1 lacks a TV.", 5, { 2, 0 }, 2, "references" },
    { "```json\n{\"ranking\": [2, 1, 3]}\n```", 3, { 1, 0, 2 }, 3, "json" },
    { "Here it is: {\"order\": [\"3\", \"1\"]} as asked", 3, { 2, 0 }, 2, "json" },
    { "<think>maybe 1 or 2</think>ANSWER: 2, 1", 2, { 1, 0 }, 2, "answer/list" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(AnotParseResult) r = NULL;

      g_test_message ("ranking: %s", one_line (cases[i].text));
      r = check_invariants (anot_parse_ranking (cases[i].text, cases[i].n, NULL, ANOT_PARSE_FLAGS_NONE),
                            cases[i].text, cases[i].n);
      assert_positions (r, cases[i].expected, cases[i].n_expected);
      g_assert_cmpstr (anot_parse_result_get_rule (r), ==, cases[i].rule);
    }
}

static void
test_ranking_bookkeeping (void)
{
  guint len, n_dropped;
  const gint64 *dropped;

  /* Repeats are dropped and counted. */
  {
    g_autoptr(AnotParseResult) r = anot_parse_ranking ("ANSWER: 3, 3, 1, 3", 5, NULL, 0);
    const guint expected[] = { 2, 0 };

    assert_positions (r, expected, 2);
    g_assert_cmpuint (anot_parse_result_get_n_duplicates (r), ==, 2);
  }

  /* Out of range: dropped and reported, the rest kept. */
  {
    g_autoptr(AnotParseResult) r = anot_parse_ranking ("ANSWER: 12, 2, 0", 10, NULL, 0);
    const guint expected[] = { 1 };

    assert_positions (r, expected, 1);
    dropped = anot_parse_result_get_dropped (r, &n_dropped);
    g_assert_cmpuint (n_dropped, ==, 2);
    g_assert_cmpint (dropped[0], ==, 12);
    g_assert_cmpint (dropped[1], ==, 0);
    g_assert_nonnull (anot_parse_result_get_message (r));
  }
  {
    g_autoptr(AnotParseResult) r = anot_parse_ranking ("ANSWER: 11, 12", 10, NULL, 0);

    g_assert_cmpint (anot_parse_result_get_failure (r), ==, ANOT_PARSE_FAILURE_OUT_OF_RANGE);
    anot_parse_result_get_indices (r, &len);
    g_assert_cmpuint (len, ==, 0);
  }

  /* Missing candidates appended in ascending position. */
  {
    g_autoptr(AnotParseResult) r = anot_parse_ranking ("4, 2", 5, NULL, ANOT_PARSE_APPEND_MISSING);
    const guint expected[] = { 3, 1, 0, 2, 4 };
    g_autoptr(JsonNode) trace = anot_parse_result_to_json (r);
    g_autoptr(AnotRanking) ranking = anot_parse_result_to_ranking (r);

    assert_positions (r, expected, 5);
    g_assert_cmpuint (anot_parse_result_get_n_parsed (r), ==, 2);
    g_assert_cmpuint (anot_parse_result_get_n_appended (r), ==, 3);
    g_assert_cmpint (json_object_get_int_member (json_node_get_object (trace), "n_appended"), ==, 3);
    g_assert_cmpuint (anot_ranking_get_length (ranking), ==, 5);
    g_assert_cmpuint (anot_ranking_get_index (ranking, 0), ==, 3);
    g_assert_cmpstr (anot_ranking_get_raw_response (ranking), ==, "4, 2");
  }

  /* Zero-based numbering. */
  {
    g_autoptr(AnotParseResult) r = anot_parse_ranking ("0, 4, 5", 5, NULL, ANOT_PARSE_ZERO_BASED);
    const guint expected[] = { 0, 4 };

    assert_positions (r, expected, 2);
    anot_parse_result_get_dropped (r, &n_dropped);
    g_assert_cmpuint (n_dropped, ==, 1);
  }
}

static void
test_ranking_failures (void)
{
  struct { const char *text; AnotParseFailure failure; } cases[] = {
    { "", ANOT_PARSE_FAILURE_EMPTY },
    { "I don’t have the reviews for items 1–10. Please provide the reviews for each item.",
      ANOT_PARSE_FAILURE_REFUSAL },
    { "I can’t determine the best index without more details.", ANOT_PARSE_FAILURE_REFUSAL },
    { "They all look similar to me.", ANOT_PARSE_FAILURE_NOT_FOUND },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(AnotParseResult) r = check_invariants (anot_parse_ranking (cases[i].text, 10, NULL, 0),
                                                       cases[i].text, 10);

      g_test_message ("ranking: %s", one_line (cases[i].text));
      g_assert_cmpint (anot_parse_result_get_failure (r), ==, cases[i].failure);
    }
}

static void
test_ranking_names (void)
{
  g_autofree char *path = g_build_filename (g_getenv ("ANOT_DATA_DIR"), "demo", NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(AnotDataset) ds = anot_dataset_load (path, NULL, &error);
  g_autoptr(GPtrArray) c = g_ptr_array_new ();
  g_autofree char *list = NULL;
  g_autofree char *prose = NULL;
  guint n;

  g_assert_no_error (error);
  n = MIN (5, anot_dataset_get_n_items (ds));
  g_assert_cmpuint (n, >=, 3);
  for (guint i = 0; i < n; i++)
    g_ptr_array_add (c, anot_dataset_get_item (ds, i));

  /* A numbered list of names, best first: 3rd, 1st, 2nd. */
  list = g_strdup_printf ("Ranking:\n1. %s\n2. %s\n3. %s",
                          anot_item_get_name (g_ptr_array_index (c, 2)),
                          anot_item_get_name (g_ptr_array_index (c, 0)),
                          anot_item_get_name (g_ptr_array_index (c, 1)));
  {
    g_autoptr(AnotParseResult) r = check_invariants (anot_parse_ranking (list, n, c, 0), list, n);
    const guint expected[] = { 2, 0, 1 };

    assert_positions (r, expected, 3);
    g_assert_cmpstr (anot_parse_result_get_rule (r), ==, "answer/numbered-list");
  }

  /* Names in prose, by first appearance. */
  prose = g_strdup_printf ("The best choice is %s, followed by %s.",
                           anot_item_get_name (g_ptr_array_index (c, 1)),
                           anot_item_get_name (g_ptr_array_index (c, 2)));
  {
    g_autoptr(AnotParseResult) r = check_invariants (anot_parse_ranking (prose, n, c, 0), prose, n);
    const guint expected[] = { 1, 2 };

    assert_positions (r, expected, 2);
    g_assert_cmpstr (anot_parse_result_get_rule (r), ==, "names");
  }
}

/* ------------------------------------------------------------------------ */

static void
test_json (void)
{
  struct { const char *text; const char *expected; const char *rule; } ok[] = {
    { "{\"must\": [\"speed\"], \"logic\": \"speed\"}", "{\"must\":[\"speed\"],\"logic\":\"speed\"}", "json" },
    { "Sure!\n```json\n{\"a\": 1}\n```\nDone.", "{\"a\":1}", "fence/json" },
    { "The plan is {\"steps\": [1, 2]} as shown.", "{\"steps\":[1,2]}", "embedded/json" },
    { "Result: {'flag': True, 'v': None, 'x': 'it''s'}", NULL, NULL },
    { "Values: {'flag': True, 'v': None}", "{\"flag\":true,\"v\":null}", "embedded/python-literal" },
    { "[1, 2, 3]", "[1,2,3]", "json" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (ok); i++)
    {
      g_autoptr(AnotParseResult) r = check_invariants (anot_parse_json (ok[i].text), ok[i].text, 0);
      g_autofree char *got = NULL;

      g_test_message ("json: %s", one_line (ok[i].text));
      if (ok[i].expected == NULL)
        continue;
      g_assert_true (anot_parse_result_get_ok (r));
      got = json_to_string (anot_parse_result_get_json (r), FALSE);
      g_assert_cmpstr (got, ==, ok[i].expected);
      g_assert_cmpstr (anot_parse_result_get_rule (r), ==, ok[i].rule);
    }

  {
    g_autoptr(AnotParseResult) r = anot_parse_json ("{\"a\": 1,, }");

    g_assert_cmpint (anot_parse_result_get_failure (r), ==, ANOT_PARSE_FAILURE_INVALID);
  }
  {
    g_autoptr(AnotParseResult) r = anot_parse_json ("no structure here");

    g_assert_cmpint (anot_parse_result_get_failure (r), ==, ANOT_PARSE_FAILURE_NOT_FOUND);
  }
}

static void
test_steps (void)
{
  const char *sections =
    "## Step 1\nReasoning: the request needs wifi.\nStep: Check each WiFi attribute.\n\n"
    "## Step 2\nReasoning: quiet.\nStep: Keep quiet places.\n"
    "## Step 3\nCompare the rest by reviews.\n";
  const char *numbered = "Plan:\n1. Read the request.\n2) Check attributes\nStep 3: Rank them.\n";
  const char *bullets = "- first\n- second\n";

  {
    g_autoptr(AnotParseResult) r = anot_parse_steps (sections, 0);
    const char * const *steps = anot_parse_result_get_steps (r);

    g_assert_true (anot_parse_result_get_ok (r));
    g_assert_cmpstr (anot_parse_result_get_rule (r), ==, "sections");
    g_assert_cmpuint (g_strv_length ((char **) steps), ==, 3);
    g_assert_cmpstr (steps[0], ==, "Check each WiFi attribute.");
    g_assert_cmpstr (steps[1], ==, "Keep quiet places.");
    g_assert_cmpstr (steps[2], ==, "Compare the rest by reviews.");
  }
  {
    g_autoptr(AnotParseResult) r = anot_parse_steps (numbered, 2);
    const char * const *steps = anot_parse_result_get_steps (r);

    g_assert_cmpstr (anot_parse_result_get_rule (r), ==, "numbered");
    g_assert_cmpuint (g_strv_length ((char **) steps), ==, 2);
    g_assert_cmpstr (steps[1], ==, "Check attributes");
  }
  {
    g_autoptr(AnotParseResult) r = anot_parse_steps (bullets, 0);

    g_assert_cmpstr (anot_parse_result_get_rule (r), ==, "bullets");
    g_assert_cmpstr (anot_parse_result_get_steps (r)[1], ==, "second");
  }
  {
    g_autoptr(AnotParseResult) r = anot_parse_steps ("Just compare them.", 0);

    g_assert_cmpint (anot_parse_result_get_failure (r), ==, ANOT_PARSE_FAILURE_NOT_FOUND);
  }
}

/* ------------------------------------------------------------------------ */

static void
test_compat (void)
{
  guint n;
  g_autofree guint *a = NULL;
  g_autofree guint *b = NULL;
  g_autofree guint *c = NULL;
  g_autofree guint *d = NULL;
  g_autofree guint *e = NULL;
  const guint ea[] = { 5, 1, 2, 3, 4 };

  a = anot_parse_indices_compat ("top-5: [1, 2, 3, 4, 5]", 10, 5, 0, &n);
  g_assert_cmpmem (a, n * sizeof (guint), ea, sizeof ea);
  b = anot_parse_indices_compat ("ANSWER: 12, 3, 3, x4, 4", 10, 5, 0, &n);
  g_assert_cmpuint (n, ==, 2);
  g_assert_cmpuint (b[0], ==, 3);
  g_assert_cmpuint (b[1], ==, 4);
  c = anot_parse_indices_compat ("nothing", 10, 5, 0, &n);
  g_assert_cmpuint (n, ==, 0);
  d = anot_parse_indices_compat ("4", 10, 5, ANOT_PARSE_ZERO_BASED, &n);
  g_assert_cmpuint (n, ==, 1);
  g_assert_cmpuint (d[0], ==, 5);
  /* Python's \d matches Arabic-Indic digits, and int() reads them. */
  e = anot_parse_indices_compat ("\xd9\xa3, 2", 10, 5, 0, &n);
  g_assert_cmpuint (n, ==, 2);
  g_assert_cmpuint (e[0], ==, 3);

  /* parse_score quirks listed in methods.md §6.2. */
  g_assert_cmpint (anot_parse_score_compat ("-1"), ==, 1);
  g_assert_cmpint (anot_parse_score_compat ("Score: 12"), ==, 10);
  g_assert_cmpint (anot_parse_score_compat ("<score>7</score>"), ==, 7);
  g_assert_cmpint (anot_parse_score_compat ("4/10"), ==, 4);
  g_assert_cmpint (anot_parse_score_compat ("<15>"), ==, 0);
  g_assert_cmpint (anot_parse_score_compat ("0 and 5"), ==, 0);
  g_assert_cmpint (anot_parse_score_compat ("about 42 things"), ==, 0);
  g_assert_cmpint (anot_parse_score_compat ("8 — good"), ==, 8);
  g_assert_cmpint (anot_parse_score_compat ("Overall rating: 9"), ==, 9);
  g_assert_cmpint (anot_parse_score_compat ("no number"), ==, 0);

  /* parse_final_answer, methods.md §6.5. */
  g_assert_cmpint (anot_parse_tri_state_compat (" -1 "), ==, -1);
  g_assert_cmpint (anot_parse_tri_state_compat ("Final Answer: 1"), ==, 1);
  g_assert_cmpint (anot_parse_tri_state_compat ("I think 0."), ==, 0);
  g_assert_cmpint (anot_parse_tri_state_compat ("it is: -1 overall"), ==, -1);
  g_assert_cmpint (anot_parse_tri_state_compat ("Mostly negative"), ==, -1);
  g_assert_cmpint (anot_parse_tri_state_compat ("I recommend it"), ==, 1);
  g_assert_cmpint (anot_parse_tri_state_compat ("I would not recommend it"), ==, -1);
  g_assert_cmpint (anot_parse_tri_state_compat ("recommend? not sure"), ==, 0);
}

/* ANOT_PARSE_ORIGINAL: anot_parse_ranking() as the original harness read
 * answers, where the robust rules read them otherwise. */
static void
test_ranking_original (void)
{
  g_autoptr(AnotParseResult) robust = NULL;
  g_autoptr(AnotParseResult) original = NULL;
  g_autoptr(AnotParseResult) none = NULL;
  g_autoptr(AnotParseResult) zero = NULL;
  const guint *positions;
  guint n;
  const char *text = "Restaurant 4 has 3 stars.\nANSWER: 2, 7";

  robust = anot_parse_ranking (text, 10, NULL, ANOT_PARSE_FLAGS_NONE);
  positions = anot_parse_result_get_indices (robust, &n);
  g_assert_cmpuint (n, ==, 2);
  g_assert_cmpuint (positions[0], ==, 1);

  /* Every number in range, in order: 4, 3, 2, 7 (0-based 3, 2, 1, 6). */
  original = anot_parse_ranking (text, 10, NULL, ANOT_PARSE_ORIGINAL | ANOT_PARSE_APPEND_MISSING);
  g_assert_true (anot_parse_result_get_ok (original));
  g_assert_cmpstr (anot_parse_result_get_rule (original), ==, "original");
  positions = anot_parse_result_get_indices (original, &n);
  g_assert_cmpuint (n, ==, 4);
  g_assert_cmpuint (positions[0], ==, 3);
  g_assert_cmpuint (positions[1], ==, 2);
  g_assert_cmpuint (positions[2], ==, 1);
  g_assert_cmpuint (positions[3], ==, 6);
  /* Nothing appended: the original ranked only what the text named. */
  g_assert_cmpuint (anot_parse_result_get_n_appended (original), ==, 0);

  none = anot_parse_ranking ("I cannot tell.", 10, NULL, ANOT_PARSE_ORIGINAL);
  g_assert_false (anot_parse_result_get_ok (none));
  g_assert_cmpint (anot_parse_result_get_failure (none), ==, ANOT_PARSE_FAILURE_NOT_FOUND);

  zero = anot_parse_ranking ("0, 9", 10, NULL, ANOT_PARSE_ORIGINAL | ANOT_PARSE_ZERO_BASED);
  positions = anot_parse_result_get_indices (zero, &n);
  g_assert_cmpuint (n, ==, 2);
  g_assert_cmpuint (positions[0], ==, 0);
  g_assert_cmpuint (positions[1], ==, 9);
}

/* The original Listwise's own parser, rule by rule (methods.md §4). */
static void
test_listwise_compat (void)
{
  static const struct {
    const char *text;
    guint k;
    guint expected[6];
    guint n;
  } cases[] = {
    /* 1: every [n], zeros and repeats dropped. */
    { "[3] > [0] > [1] > [3] > [12]", 5, { 3, 1, 12 }, 3 },
    /* ...even where a numbered list would read otherwise. */
    { "1. [4]\n2. [2]", 5, { 4, 2 }, 2 },
    /* 2: the first number of each piece between ">". */
    { "5 > item 2 > 9", 2, { 5, 2 }, 2 },
    /* 3: between commas. */
    { "ANSWER: 6, 1, 1, 8", 5, { 6, 1, 8 }, 3 },
    /* 4: numbered-list lines. */
    { "1. 7\n2) 3\n", 5, { 7, 3 }, 2 },
    /* 5: any number from 1 to 50. */
    { "maybe 60 or 17 then 4", 5, { 17, 4 }, 2 },
    /* 7: nothing at all ranks item 1 first. */
    { "no idea", 5, { 1 }, 1 },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      guint n = 0;
      g_autofree guint *got = anot_parse_listwise_compat (cases[i].text, cases[i].k, &n);

      g_test_message ("%s", cases[i].text);
      g_assert_cmpmem (got, n * sizeof (guint), cases[i].expected, cases[i].n * sizeof (guint));
    }
}

/* ------------------------------------------------------------------------ */

static JsonNode *
load_line (const char *line)
{
  g_autoptr(JsonParser) p = json_parser_new ();
  g_autoptr(GError) error = NULL;

  json_parser_load_from_data (p, line, -1, &error);
  g_assert_no_error (error);
  return json_node_ref (json_parser_get_root (p));
}

static gboolean
int_list_equals (JsonArray   *expected,
                 const guint *got,
                 guint        n)
{
  if (json_array_get_length (expected) != n)
    return FALSE;
  for (guint i = 0; i < n; i++)
    if (json_array_get_int_element (expected, i) != got[i])
      return FALSE;
  return TRUE;
}

static const guint scale_points[] = { 10, 20, 30, 40, 50 };

/* The corpus records two tri-state lines whose value contradicts their own
 * text ("-1" recorded as 1, "1" recorded as -1, while other lines record
 * "-1" as -1): the trace paired them with another step's output.  No parser
 * of the text can produce them. */
static gboolean
known_mismatch (const char *parser,
                const char *text,
                JsonNode   *expected)
{
  return g_str_has_prefix (parser, "tri_state") &&
         ((g_str_equal (text, "-1") && json_node_get_int (expected) == 1) ||
          (g_str_equal (text, "1") && json_node_get_int (expected) == -1));
}

static void
test_corpus (void)
{
  const char *path = g_getenv ("ANOT_LLM_OUTPUTS");
  g_autofree char *contents = NULL;
  g_autoptr(GError) error = NULL;
  g_auto(GStrv) lines = NULL;
  guint n_lines = 0, n_expected = 0, n_asserted = 0, n_skipped_known = 0, n_unasserted = 0;
  guint robust_ok = 0, robust_agree = 0, robust_total = 0;
  guint refusals_flagged = 0, refusals_compat = 0;
  guint score_ok = 0, score_total = 0;

  if (path == NULL || !g_file_test (path, G_FILE_TEST_EXISTS))
    {
      g_test_skip ("the recorded LLM outputs are not available (set ANOT_LLM_OUTPUTS)");
      return;
    }
  g_file_get_contents (path, &contents, NULL, &error);
  g_assert_no_error (error);
  lines = g_strsplit (contents, "\n", -1);

  for (guint i = 0; lines[i] != NULL; i++)
    {
      g_autoptr(JsonNode) root = NULL;
      JsonObject *o;
      const char *text, *kind, *parser;
      JsonNode *expected;

      if (lines[i][0] == '\0')
        continue;
      root = load_line (lines[i]);
      o = json_node_get_object (root);
      text = json_object_get_string_member (o, "text");
      kind = json_object_get_string_member (o, "kind");
      parser = json_object_get_string_member (o, "parser");
      expected = json_object_get_member (o, "expected");
      n_lines++;

      /* Every parser, on every line: a value, never a crash. */
      {
        g_autoptr(AnotParseResult) r1 = check_invariants (anot_parse_ranking (text, 50, NULL, 0), text, 50);
        g_autoptr(AnotParseResult) r2 = check_invariants (anot_parse_ranking (text, 10, NULL,
                                                                              ANOT_PARSE_APPEND_MISSING |
                                                                              ANOT_PARSE_ZERO_BASED),
                                                          text, 10);
        g_autoptr(AnotParseResult) s = check_invariants (anot_parse_score (text, 0, 10), text, 0);
        g_autoptr(AnotParseResult) j = check_invariants (anot_parse_json (text), text, 0);
        g_autoptr(AnotParseResult) st = check_invariants (anot_parse_steps (text, 0), text, 0);
        guint n;
        g_autofree guint *c = anot_parse_indices_compat (text, 50, 5, 0, &n);

        (void) anot_parse_score_compat (text);
        (void) anot_parse_tri_state_compat (text);
        if (g_str_equal (kind, "score"))
          {
            score_total++;
            if (anot_parse_result_get_ok (s))
              score_ok++;
            else
              g_test_message ("score not read (%s): %.100s",
                              anot_parse_result_get_message (s), one_line (text));
          }
      }

      if (expected == NULL)
        continue;
      n_expected++;

      if (known_mismatch (parser, text, expected))
        {
          n_skipped_known++;
          continue;
        }

      if (g_str_has_prefix (parser, "parse_indices("))
        {
          guint n;
          g_autofree guint *got = anot_parse_indices_compat (text, 10, 5, 0, &n);
          g_autoptr(AnotParseResult) r = anot_parse_ranking (text, 10, NULL, 0);
          guint len;
          const guint *pos = anot_parse_result_get_indices (r, &len);
          gboolean agree = anot_parse_result_get_ok (r);

          g_assert_true (int_list_equals (json_node_get_array (expected), got, n));
          n_asserted++;

          /* The robust parser reads the same ranking from these CoT
           * answers (every one has an ANSWER: line). */
          robust_total++;
          if (anot_parse_result_get_ok (r))
            robust_ok++;
          for (guint k = 0; agree && k < MIN (len, 5); k++)
            agree = pos[k] + 1 == got[k];
          agree = agree && MIN (len, 5) == n;
          if (agree)
            robust_agree++;
          else
            g_test_message ("robust parse differs: %s", one_line (text));
        }
      else if (g_str_has_prefix (parser, "anot_final_parse"))
        {
          JsonArray *exp = json_node_get_array (expected);
          gboolean zero = strstr (parser, "0indexed") != NULL;
          guint max = 0, scale = 50, n;
          g_autofree guint *got = NULL;
          g_autoptr(AnotParseResult) r = NULL;

          for (guint k = 0; k < json_array_get_length (exp); k++)
            max = MAX (max, (guint) json_array_get_int_element (exp, k));
          /* The trace does not record N: the smallest scale point that
           * can hold every recorded number. */
          for (guint k = 0; k < G_N_ELEMENTS (scale_points); k++)
            if (scale_points[k] >= max)
              {
                scale = scale_points[k];
                break;
              }
          got = anot_parse_indices_compat (text, scale, 5, zero ? ANOT_PARSE_ZERO_BASED : 0, &n);
          if (n == 0)
            {
              /* ANoT's own fallback: 1..min(k, N). */
              g_free (got);
              n = MIN (5, scale);
              got = g_new (guint, n);
              for (guint k = 0; k < n; k++)
                got[k] = k + 1;
              refusals_compat++;
              r = anot_parse_ranking (text, scale, NULL, zero ? ANOT_PARSE_ZERO_BASED : 0);
              /* Where the original fell back to 1..5 silently, the robust
               * parser reports a failure. */
              g_assert_false (anot_parse_result_get_ok (r));
              refusals_flagged++;
            }
          g_assert_true (int_list_equals (exp, got, n));
          n_asserted++;
        }
      else if (g_str_has_prefix (parser, "tri_state"))
        {
          g_assert_cmpint (anot_parse_tri_state_compat (text), ==, json_node_get_int (expected));
          n_asserted++;
        }
      else if (g_str_has_prefix (parser, "knot 1.i"))
        {
          g_autoptr(AnotParseResult) r = anot_parse_json (text);

          g_assert_true (anot_parse_result_get_ok (r));
          g_assert_true (json_node_equal (anot_parse_result_get_json (r), expected));
          n_asserted++;
        }
      else if (g_str_has_prefix (parser, "knot numbered plan"))
        {
          g_autoptr(AnotParseResult) r = anot_parse_steps (text, 0);
          const char * const *steps = anot_parse_result_get_steps (r);
          JsonArray *exp = json_node_get_array (expected);

          g_assert_true (anot_parse_result_get_ok (r));
          g_assert_cmpuint (g_strv_length ((char **) steps), ==, json_array_get_length (exp));
          for (guint k = 0; k < json_array_get_length (exp); k++)
            {
              /* The original kept the "1. " prefix; the steps parser
               * removes it. */
              const char *line = json_array_get_string_element (exp, k);

              g_assert_true (g_str_has_suffix (line, steps[k]));
              g_assert_true (g_ascii_isdigit (line[0]));
            }
          n_asserted++;
        }
      else
        {
          /* LWT scripts and ANoT-explore rounds: parsed by the ANoT
           * engine, not by these parsers. */
          n_unasserted++;
        }
    }

  g_test_message ("corpus: %u lines parsed by every parser; %u carry expected: %u asserted, "
                  "%u known-inconsistent, %u for parsers outside this module",
                  n_lines, n_expected, n_asserted, n_skipped_known, n_unasserted);
  g_test_message ("robust ranking on CoT answers: %u/%u parsed, %u/%u agree with parse_indices",
                  robust_ok, robust_total, robust_agree, robust_total);
  g_test_message ("ANoT fallbacks to 1..k in the original: %u, all reported as failures: %u",
                  refusals_compat, refusals_flagged);
  g_test_message ("score lines: %u/%u parsed by anot_parse_score", score_ok, score_total);

  g_assert_cmpuint (n_lines, ==, 3135);
  g_assert_cmpuint (n_asserted + n_skipped_known + n_unasserted, ==, n_expected);
  g_assert_cmpuint (robust_agree, ==, robust_total);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);

  g_test_add_func ("/parse/score/formats", test_score_formats);
  g_test_add_func ("/parse/ranking/formats", test_ranking_formats);
  g_test_add_func ("/parse/ranking/bookkeeping", test_ranking_bookkeeping);
  g_test_add_func ("/parse/ranking/failures", test_ranking_failures);
  g_test_add_func ("/parse/ranking/names", test_ranking_names);
  g_test_add_func ("/parse/json", test_json);
  g_test_add_func ("/parse/ranking/original", test_ranking_original);
  g_test_add_func ("/parse/listwise-compat", test_listwise_compat);
  g_test_add_func ("/parse/steps", test_steps);
  g_test_add_func ("/parse/compat", test_compat);
  g_test_add_func ("/parse/corpus", test_corpus);

  return g_test_run ();
}
