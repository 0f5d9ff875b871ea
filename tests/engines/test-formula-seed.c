/* test-formula-seed.c: Formula Seeds (loading, validation, saving, the
 * FILTER, prompt and extraction helpers and the COMPUTE of Phase 2)
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The replay tests read the original framework's recorded data in
 * ../shared/data/g1a_allergy (ANOT_G1A_DATA): its four generated seeds,
 * the LLM's per-review extractions (judgments.json) and the expected values
 * per restaurant.  They skip when the folder is absent.  The v1 seed they
 * replay, data/formula-seeds/g1a-v1.json, was written by hand from
 * task_G1a.md.
 */

#include <anot/anot.h>
#include <math.h>
#include <string.h>

#include "anot-expr-private.h"

/* ------------------------------------------------------------------------ *
 * Helpers
 * ------------------------------------------------------------------------ */

/* anot_formula_seed_compute(), checked against
 * anot_formula_seed_compute_text() on the same extractions written as
 * text: the text path writes exactly the trace the tree path builds. */
static JsonObject *
compute_both (AnotFormulaSeed *seed,
              JsonArray       *extractions,
              const char      *categories,
              gboolean         original,
              guint           *n_failed)
{
  g_autoptr(AnotJsonWriter) input = anot_json_writer_new ();
  g_autoptr(AnotJsonWriter) expected = anot_json_writer_new ();
  g_autoptr(JsonNode) trace_node = json_node_new (JSON_NODE_OBJECT);
  g_autoptr(GError) error = NULL;
  g_autofree char *text = NULL;
  JsonObject *trace;
  guint failed = 0, failed_text = 0;
  gsize length;
  const char *input_text;

  trace = anot_formula_seed_compute (seed, extractions, categories, original, &failed);

  if (extractions != NULL)
    {
      g_autoptr(JsonNode) array = json_node_new (JSON_NODE_ARRAY);

      json_node_set_array (array, extractions);
      anot_json_writer_add_value (input, array);
    }
  else
    {
      anot_json_writer_begin_array (input);
      anot_json_writer_end_array (input);
    }
  input_text = anot_json_writer_get_text (input, &length);
  text = anot_formula_seed_compute_text (seed, input_text, (gssize) length, categories, original,
                                         &failed_text, &error);
  g_assert_no_error (error);
  json_node_set_object (trace_node, trace);
  anot_json_writer_add_value (expected, trace_node);
  g_assert_cmpstr (text, ==, anot_json_writer_get_text (expected, NULL));
  g_assert_cmpuint (failed_text, ==, failed);

  if (n_failed != NULL)
    *n_failed = failed;
  return trace;
}

static const char *minimal_seed =
  "{"
  "  \"task_name\": \"demo\","
  "  \"filter_keywords\": [\"Peanut\", \"allerg\"],"
  "  \"extraction_fields\": ["
  "    {\"name\": \"severity\", \"type\": \"enum\", \"values\": [\"none\", \"mild\", \"severe\"],"
  "     \"description\": \"how bad\"},"
  "    {\"name\": \"count\", \"type\": \"integer\"},"
  "    {\"name\": \"score\", \"type\": \"number\"},"
  "    {\"name\": \"staff_ok\", \"type\": \"boolean\"},"
  "    {\"name\": \"quote\", \"type\": \"text\"}"
  "  ],"
  "  \"extraction_prompt\": \"Review of {review_date} ({review_stars} stars, {review_useful} useful): {review_text}\","
  "  \"compute_dag\": ["
  "    {\"name\": \"n_severe\", \"formula\": \"sum(1 for e in extractions if e['severity'] == 'severe')\"},"
  "    {\"name\": \"n\", \"formula\": \"len(extractions)\", \"description\": \"reviews\"},"
  "    {\"name\": \"share\", \"formula\": \"n_severe / n if n > 0 else 0.0\"},"
  "    {\"name\": \"verdict\", \"formula\": \"'bad' if share > 0.5 else 'ok'\"}"
  "  ],"
  "  \"output_fields\": [\"n_severe\", \"share\", \"verdict\"]"
  "}";

static JsonNode *
parse_json (const char *text)
{
  g_autoptr(GError) error = NULL;
  JsonNode *node = json_from_string (text, &error);

  g_assert_no_error (error);
  return node;
}

static AnotFormulaSeed *
load_minimal (void)
{
  g_autoptr(GError) error = NULL;
  AnotFormulaSeed *seed = anot_formula_seed_new_from_data (minimal_seed, -1, FALSE, &error);

  g_assert_no_error (error);
  return seed;
}

/* Python's ==, with the JSON types: 0 and 0.0 differ. */
static gboolean
json_same (JsonNode *a,
           JsonNode *b)
{
  if (a == NULL || b == NULL)
    return a == b;
  if (json_node_get_node_type (a) != json_node_get_node_type (b))
    return FALSE;
  switch (json_node_get_node_type (a))
    {
    case JSON_NODE_NULL:
      return TRUE;
    case JSON_NODE_VALUE:
      if (json_node_get_value_type (a) != json_node_get_value_type (b))
        return FALSE;
      switch (json_node_get_value_type (a))
        {
        case G_TYPE_INT64: return json_node_get_int (a) == json_node_get_int (b);
        case G_TYPE_DOUBLE: return json_node_get_double (a) == json_node_get_double (b);
        case G_TYPE_BOOLEAN: return json_node_get_boolean (a) == json_node_get_boolean (b);
        case G_TYPE_STRING: return g_strcmp0 (json_node_get_string (a), json_node_get_string (b)) == 0;
        default: return FALSE;
        }
    case JSON_NODE_OBJECT:
      {
        JsonObject *oa = json_node_get_object (a);
        JsonObject *ob = json_node_get_object (b);
        g_autoptr(GList) members = json_object_get_members (oa);

        if (json_object_get_size (oa) != json_object_get_size (ob))
          return FALSE;
        for (GList *l = members; l != NULL; l = l->next)
          if (!json_same (json_object_get_member (oa, l->data), json_object_get_member (ob, l->data)))
            return FALSE;
        return TRUE;
      }
    case JSON_NODE_ARRAY:
      {
        JsonArray *xa = json_node_get_array (a);
        JsonArray *xb = json_node_get_array (b);

        if (json_array_get_length (xa) != json_array_get_length (xb))
          return FALSE;
        for (guint i = 0; i < json_array_get_length (xa); i++)
          if (!json_same (json_array_get_element (xa, i), json_array_get_element (xb, i)))
            return FALSE;
        return TRUE;
      }
    default:
      return FALSE;
    }
}

/* The node, freed at the end of the test (for asserting on a new one
 * inline). */
static GPtrArray *test_nodes;

static JsonNode *
kept_node (JsonNode *node)
{
  if (test_nodes == NULL)
    test_nodes = g_ptr_array_new_with_free_func ((GDestroyNotify) json_node_unref);
  g_assert_nonnull (node);
  g_ptr_array_add (test_nodes, node);
  return node;
}

static char *
node_text (JsonNode *node)
{
  return node != NULL ? json_to_string (node, FALSE) : g_strdup ("(absent)");
}

/* ------------------------------------------------------------------------ *
 * Loading, validation, saving
 * ------------------------------------------------------------------------ */

static void
test_load (void)
{
  g_autoptr(AnotFormulaSeed) seed = load_minimal ();
  const char * const keywords[] = { "Peanut", "allerg", NULL };
  const char * const values[] = { "none", "mild", "severe", NULL };
  const char * const outputs[] = { "n_severe", "share", "verdict", NULL };

  g_assert_cmpstr (anot_formula_seed_get_task_name (seed), ==, "demo");
  g_assert_cmpstrv (anot_formula_seed_get_filter_keywords (seed), keywords);
  g_assert_cmpuint (anot_formula_seed_get_n_extraction_fields (seed), ==, 5);
  g_assert_cmpstr (anot_formula_seed_get_extraction_field_name (seed, 0), ==, "severity");
  g_assert_cmpstr (anot_formula_seed_get_extraction_field_type (seed, 0), ==, "enum");
  g_assert_cmpstrv (anot_formula_seed_get_extraction_field_values (seed, 0), values);
  /* Type names are normalised. */
  g_assert_cmpstr (anot_formula_seed_get_extraction_field_type (seed, 1), ==, "int");
  g_assert_cmpstr (anot_formula_seed_get_extraction_field_type (seed, 2), ==, "float");
  g_assert_cmpstr (anot_formula_seed_get_extraction_field_type (seed, 3), ==, "bool");
  g_assert_cmpstr (anot_formula_seed_get_extraction_field_type (seed, 4), ==, "string");
  g_assert_null (anot_formula_seed_get_extraction_field_values (seed, 1));
  g_assert_cmpuint (anot_formula_seed_get_n_steps (seed), ==, 4);
  g_assert_cmpstr (anot_formula_seed_get_step_name (seed, 2), ==, "share");
  g_assert_cmpstr (anot_formula_seed_get_step_formula (seed, 2), ==, "n_severe / n if n > 0 else 0.0");
  g_assert_cmpstr (anot_expr_get_name (anot_formula_seed_get_step_expr (seed, 2)), ==, "share");
  g_assert_cmpstrv (anot_formula_seed_get_output_fields (seed), outputs);
  g_assert_cmpuint (g_strv_length ((char **) anot_formula_seed_get_warnings (seed)), ==, 0);
  g_assert_true (G_TYPE_IS_BOXED (ANOT_TYPE_FORMULA_SEED));
}

typedef struct {
  const char *patch;      /* "key": value put into the minimal seed, or a key to drop ("-key") */
  AnotError code;
  const char *message;    /* the whole message after "Formula Seed: " */
} InvalidCase;

/* The minimal seed with one member replaced, added or removed. */
static char *
patched_seed (const char *patch)
{
  g_autoptr(JsonNode) root = parse_json (minimal_seed);
  JsonObject *object = json_node_get_object (root);

  if (patch[0] == '-')
    json_object_remove_member (object, patch + 1);
  else
    {
      g_autofree char *wrapped = g_strdup_printf ("{%s}", patch);
      g_autoptr(JsonNode) extra = parse_json (wrapped);
      g_autoptr(GList) members = json_object_get_members (json_node_get_object (extra));

      for (GList *l = members; l != NULL; l = l->next)
        json_object_set_member (object, l->data,
                                json_node_copy (json_object_get_member (json_node_get_object (extra), l->data)));
    }
  return json_to_string (root, FALSE);
}

static void
test_validation (void)
{
  static const InvalidCase cases[] = {
    { "-filter_keywords", ANOT_ERROR_MISSING_FIELD, "filter_keywords: the key is missing" },
    { "\"filter_keywords\": \"peanut\"", ANOT_ERROR_INVALID_FIELD, "filter_keywords: must be an array of strings, not a string" },
    { "\"filter_keywords\": []", ANOT_ERROR_INVALID_FIELD, "filter_keywords: must not be empty" },
    { "\"filter_keywords\": [\"a\", 3]", ANOT_ERROR_INVALID_FIELD, "filter_keywords[1]: must be a non-empty string, not a number" },
    { "-extraction_fields", ANOT_ERROR_MISSING_FIELD, "extraction_fields: the key is missing" },
    { "\"extraction_fields\": [{\"name\": \"x\"}]", ANOT_ERROR_MISSING_FIELD, "extraction_fields[0].type: the key is missing" },
    { "\"extraction_fields\": [{\"name\": \"x\", \"type\": \"date\"}]", ANOT_ERROR_INVALID_FIELD,
      "extraction_fields[0].type: “date” is not one of enum, string, int, float, bool" },
    { "\"extraction_fields\": [{\"name\": \"x\", \"type\": \"enum\"}]", ANOT_ERROR_MISSING_FIELD,
      "extraction_fields[0].values: the key is missing (an enum lists its values)" },
    { "\"extraction_fields\": [{\"name\": \"x\", \"type\": \"enum\", \"values\": []}]", ANOT_ERROR_INVALID_FIELD,
      "extraction_fields[0].values: an enum needs at least one value" },
    { "\"extraction_fields\": [{\"name\": \"x\", \"type\": \"enum\", \"values\": [\"a\", \"A\"]}]", ANOT_ERROR_INVALID_FIELD,
      "extraction_fields[0].values[1]: “A” is listed twice" },
    { "\"extraction_fields\": [{\"name\": \"a b\", \"type\": \"int\"}]", ANOT_ERROR_INVALID_FIELD,
      "extraction_fields[0].name: “a b” is not an identifier (letters, digits and _, not starting with a digit)" },
    { "\"extraction_fields\": [{\"name\": \"x\", \"type\": \"int\"}, {\"name\": \"x\", \"type\": \"int\"}]", ANOT_ERROR_INVALID_FIELD,
      "extraction_fields[1].name: “x” is defined twice" },
    { "\"extraction_prompt\": \"Rate this review.\"", ANOT_ERROR_INVALID_FIELD,
      "extraction_prompt: must contain the placeholder {review_text} (also available: {review_date}, {review_stars}, {review_useful})" },
    { "\"extraction_prompt\": 5", ANOT_ERROR_INVALID_FIELD, "extraction_prompt: must be a string, not a number" },
    { "-compute_dag", ANOT_ERROR_MISSING_FIELD, "compute_dag: the key is missing" },
    { "\"compute_dag\": []", ANOT_ERROR_INVALID_FIELD, "compute_dag: must not be empty" },
    { "\"compute_dag\": {\"a\": \"1\"}", ANOT_ERROR_INVALID_FIELD, "compute_dag: must be an array of {name, formula} objects, not an object" },
    { "\"computations\": [{\"name\": \"a\", \"formula\": \"1\"}]", ANOT_ERROR_INVALID_FIELD,
      "compute_dag and computations are both present; a seed has one compute DAG" },
    { "\"compute_dag\": [{\"name\": \"a\"}]", ANOT_ERROR_MISSING_FIELD, "compute_dag[0].formula: the key is missing" },
    { "\"compute_dag\": [{\"name\": \"a\", \"formula\": \"1 +\"}]", ANOT_ERROR_EXPR_SYNTAX,
      "compute_dag[0].formula: formula “a”, column 4: SyntaxError: unexpected end of formula" },
    { "\"compute_dag\": [{\"name\": \"a\", \"formula\": \"__import__('os')\"}]", ANOT_ERROR_EXPR_FORBIDDEN,
      "compute_dag[0].formula: formula “a”, column 1: Forbidden: '__import__': names starting with two underscores are not allowed" },
    { "\"compute_dag\": [{\"name\": \"a\", \"formula\": \"1\"}, {\"name\": \"a\", \"formula\": \"2\"}]", ANOT_ERROR_INVALID_FIELD,
      "compute_dag[1].name: “a” is defined twice (also compute_dag[0])" },
    { "\"compute_dag\": [{\"name\": \"extractions\", \"formula\": \"1\"}]", ANOT_ERROR_INVALID_FIELD,
      "compute_dag[0].name: “extractions” is already an input of the compute DAG" },
    { "\"compute_dag\": [{\"name\": \"if\", \"formula\": \"1\"}]", ANOT_ERROR_INVALID_FIELD,
      "compute_dag[0].name: “if” is not an identifier (letters, digits and _, not starting with a digit)" },
    { "\"compute_dag\": [{\"name\": \"a\", \"formula\": \"1\", \"is_aggregate\": \"yes\"}]", ANOT_ERROR_INVALID_FIELD,
      "compute_dag[0].is_aggregate: must be a boolean, not a string" },
    { "\"compute_dag\": [{\"name\": \"a\", \"formula\": \"b + 1\"}, {\"name\": \"b\", \"formula\": \"2\"}],"
      "\"output_fields\": [\"a\"]", ANOT_ERROR_UNKNOWN_REFERENCE,
      "compute_dag[0].formula (“a”): reads “b” before the step that defines it (compute_dag[1]); steps must be in dependency order" },
    { "\"compute_dag\": [{\"name\": \"a\", \"formula\": \"len(reviews)\"}], \"output_fields\": [\"a\"]", ANOT_ERROR_UNKNOWN_REFERENCE,
      "compute_dag[0].formula (“a”): reads “reviews”, which is not defined (a formula can read extractions, "
      "item_category (or restaurant_category), the array and lookup names, earlier steps and the builtins)" },
    { "\"output_fields\": [\"share\", \"total\"]", ANOT_ERROR_UNKNOWN_REFERENCE,
      "output_fields[1]: “total” is not defined by any step of compute_dag" },
    { "-output_fields", ANOT_ERROR_MISSING_FIELD, "output_fields: the key is missing" },
    { "\"task_name\": 3", ANOT_ERROR_INVALID_FIELD, "task_name: must be a string, not a number" },
    { "\"lookups\": [{\"name\": \"t\"}]", ANOT_ERROR_MISSING_FIELD, "lookups[0].mapping: the key is missing" },
    { "\"array_assemblies\": [{\"array_name\": \"xs\"}]", ANOT_ERROR_MISSING_FIELD, "array_assemblies[0].source_field: the key is missing" },
  };

  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *text = patched_seed (cases[i].patch);
      g_autoptr(GError) error = NULL;
      g_autoptr(AnotFormulaSeed) seed = anot_formula_seed_new_from_data (text, -1, FALSE, &error);
      g_autofree char *expected = g_strdup_printf ("Formula Seed: %s", cases[i].message);

      if (seed != NULL)
        g_error ("%s: expected an error", cases[i].patch);
      if (!g_error_matches (error, ANOT_ERROR, cases[i].code) || strcmp (error->message, expected) != 0)
        g_error ("%s: got %d “%s”, expected %d “%s”", cases[i].patch, error->code, error->message,
                 cases[i].code, expected);
    }

  /* Not JSON, or not an object. */
  {
    g_autoptr(GError) error = NULL;

    g_assert_null (anot_formula_seed_new_from_data ("{\"a\": ", -1, FALSE, &error));
    g_assert_error (error, ANOT_ERROR, ANOT_ERROR_PARSE);
    g_assert_true (g_str_has_prefix (error->message, "Formula Seed: not valid JSON: "));
    g_clear_error (&error);
    g_assert_null (anot_formula_seed_new_from_data ("[1]", -1, FALSE, &error));
    g_assert_error (error, ANOT_ERROR, ANOT_ERROR_PARSE);
    g_assert_cmpstr (error->message, ==, "Formula Seed: the document must be a JSON object, not an array");
  }

  /* A lenient load keeps undefined names as warnings. */
  {
    g_autofree char *text = patched_seed ("\"compute_dag\": [{\"name\": \"a\", \"formula\": \"len(reviews)\"}], \"output_fields\": [\"a\"]");
    g_autoptr(GError) error = NULL;
    g_autoptr(AnotFormulaSeed) seed = anot_formula_seed_new_from_data (text, -1, TRUE, &error);
    const char * const *warnings;

    g_assert_no_error (error);
    warnings = anot_formula_seed_get_warnings (seed);
    g_assert_cmpuint (g_strv_length ((char **) warnings), ==, 1);
    g_assert_true (g_str_has_prefix (warnings[0], "compute_dag[0].formula (“a”): reads “reviews”"));
  }
}

static void
test_save (void)
{
  g_autoptr(AnotFormulaSeed) seed = load_minimal ();
  g_autoptr(AnotFormulaSeed) again = NULL;
  g_autoptr(JsonNode) first = anot_formula_seed_to_json (seed);
  g_autoptr(JsonNode) second = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *path = g_build_filename (g_get_user_cache_dir (), "seed.json", NULL);
  JsonObject *object = json_node_get_object (first);
  JsonObject *field;

  /* The fixed keys, the step members beyond name and formula, the type
   * names normalised. */
  g_assert_true (json_object_has_member (object, "compute_dag"));
  field = json_array_get_object_element (json_object_get_array_member (object, "extraction_fields"), 1);
  g_assert_cmpstr (json_object_get_string_member (field, "type"), ==, "int");
  field = json_array_get_object_element (json_object_get_array_member (object, "extraction_fields"), 0);
  g_assert_cmpstr (json_object_get_string_member (field, "description"), ==, "how bad");
  g_assert_cmpstr (json_object_get_string_member (json_array_get_object_element (json_object_get_array_member (object, "compute_dag"), 1),
                                                  "description"), ==, "reviews");

  g_assert_true (g_mkdir_with_parents (g_get_user_cache_dir (), 0700) == 0);
  g_assert_true (anot_formula_seed_save (seed, path, &error));
  g_assert_no_error (error);
  again = anot_formula_seed_load (path, FALSE, &error);
  g_assert_no_error (error);
  second = anot_formula_seed_to_json (again);
  g_assert_true (json_same (first, second));

  /* Errors name the file. */
  g_clear_pointer (&again, anot_formula_seed_unref);
  g_assert_true (g_file_set_contents (path, "{\"filter_keywords\": [\"x\"]}", -1, NULL));
  g_assert_null (anot_formula_seed_load (path, FALSE, &error));
  g_assert_error (error, ANOT_ERROR, ANOT_ERROR_MISSING_FIELD);
  g_assert_true (g_str_has_prefix (error->message, path));
  g_assert_true (g_str_has_suffix (error->message, ": Formula Seed: extraction_fields: the key is missing"));
  g_clear_error (&error);
  g_assert_null (anot_formula_seed_load ("/nonexistent/seed.json", FALSE, &error));
  g_assert_error (error, ANOT_ERROR, ANOT_ERROR_IO);
}

/* ------------------------------------------------------------------------ *
 * Phase 2 helpers
 * ------------------------------------------------------------------------ */

static void
test_filter_and_prompt (void)
{
  g_autoptr(AnotFormulaSeed) seed = load_minimal ();
  g_autofree char *prompt = NULL;

  /* Case-insensitive substrings, keyword included ("Peanut"). */
  g_assert_true (anot_formula_seed_matches_text (seed, "The PEANUT sauce"));
  g_assert_true (anot_formula_seed_matches_text (seed, "very Allergic"));
  g_assert_false (anot_formula_seed_matches_text (seed, "nuts and bolts"));
  g_assert_false (anot_formula_seed_matches_text (seed, ""));

  prompt = anot_formula_seed_format_prompt (seed, "Great food", "2020-01-02 10:00:00", 4.0, 3);
  g_assert_cmpstr (prompt, ==, "Review of 2020-01-02 10:00:00 (4.0 stars, 3 useful): Great food");
  g_clear_pointer (&prompt, g_free);
  /* Placeholders inside the review are the review's text, not ours. */
  prompt = anot_formula_seed_format_prompt (seed, "{review_stars} {review_date} {oops", NULL, 2.5, 0);
  g_assert_cmpstr (prompt, ==, "Review of  (2.5 stars, 0 useful): {review_stars} {review_date} {oops");
}

static void
test_make_extraction (void)
{
  g_autoptr(AnotFormulaSeed) seed = load_minimal ();
  g_autoptr(JsonNode) reply = parse_json ("{\"Severity\": \" Severe \", \"count\": \"3\", \"score\": 2, "
                                          "\"staff_ok\": \"yes\", \"quote\": 42, \"extra\": 1}");
  g_autoptr(JsonNode) bad = parse_json ("{\"severity\": \"deadly\", \"count\": 2.5, \"score\": \"high\", \"staff_ok\": [1]}");
  g_autoptr(JsonObject) e = NULL;
  g_autoptr(JsonNode) node = json_node_new (JSON_NODE_OBJECT);
  g_autofree char *text = NULL;
  guint invalid = 99;

  e = anot_formula_seed_make_extraction (seed, json_node_get_object (reply), 7, "2023-05-01 12:00:00", 2.0, 5, &invalid);
  g_assert_cmpuint (invalid, ==, 0);
  json_node_set_object (node, e);
  text = json_to_string (node, FALSE);
  g_assert_cmpstr (text, ==, "{\"severity\":\"severe\",\"count\":3,\"score\":2.0,\"staff_ok\":true,\"quote\":\"42\","
                             "\"_idx\":7,\"_year\":2023,\"_stars\":2.0,\"_useful\":5}");
  g_clear_pointer (&e, json_object_unref);
  g_clear_pointer (&text, g_free);

  /* Nothing coercible: every field takes its default and is counted. */
  e = anot_formula_seed_make_extraction (seed, json_node_get_object (bad), 0, "undated", 1.0, 0, &invalid);
  g_assert_cmpuint (invalid, ==, 5);
  json_node_set_object (node, e);
  text = json_to_string (node, FALSE);
  g_assert_cmpstr (text, ==, "{\"severity\":\"none\",\"count\":0,\"score\":0.0,\"staff_ok\":false,\"quote\":\"\","
                             "\"_idx\":0,\"_year\":2020,\"_stars\":1.0,\"_useful\":0}");
  g_clear_pointer (&e, json_object_unref);

  e = anot_formula_seed_make_extraction (seed, NULL, 1, NULL, 3.0, 1, &invalid);
  g_assert_cmpuint (invalid, ==, 5);
}

static void
test_compute (void)
{
  g_autoptr(AnotFormulaSeed) seed = load_minimal ();
  g_autoptr(JsonNode) extractions = parse_json ("[{\"severity\": \"severe\"}, {\"severity\": \"severe\"}, {\"severity\": \"none\"}]");
  g_autoptr(JsonObject) trace = NULL;
  JsonObject *outputs;
  JsonArray *steps;
  guint failed = 99;

  trace = compute_both (seed, json_node_get_array (extractions), "Thai", FALSE, &failed);
  g_assert_cmpuint (failed, ==, 0);
  outputs = json_object_get_object_member (trace, "outputs");
  g_assert_cmpint (json_object_get_int_member (outputs, "n_severe"), ==, 2);
  g_assert_cmpfloat (json_object_get_double_member (outputs, "share"), ==, 2.0 / 3.0);
  g_assert_cmpstr (json_object_get_string_member (outputs, "verdict"), ==, "bad");
  steps = json_object_get_array_member (trace, "steps");
  g_assert_cmpuint (json_array_get_length (steps), ==, 4);
  g_assert_cmpstr (json_object_get_string_member (json_array_get_object_element (steps, 1), "name"), ==, "n");
  g_assert_cmpint (json_object_get_int_member (json_array_get_object_element (steps, 1), "value"), ==, 3);
  g_clear_pointer (&trace, json_object_unref);

  /* No extractions: the guarded division is never evaluated. */
  trace = compute_both (seed, NULL, NULL, FALSE, &failed);
  g_assert_cmpuint (failed, ==, 0);
  outputs = json_object_get_object_member (trace, "outputs");
  g_assert_cmpfloat (json_object_get_double_member (outputs, "share"), ==, 0.0);
  g_clear_pointer (&trace, json_object_unref);

  /* A failing step is recorded, the others run; in strict mode the steps
   * that read it fail too, in the original's mode they read 0. */
  {
    g_autofree char *text = patched_seed ("\"compute_dag\": ["
                                          "{\"name\": \"a\", \"formula\": \"extractions[0]['missing']\", \"is_aggregate\": true},"
                                          "{\"name\": \"b\", \"formula\": \"a + 1\"},"
                                          "{\"name\": \"c\", \"formula\": \"isinstance(1, int)\"}],"
                                          "\"output_fields\": [\"a\", \"b\", \"c\"]");
    g_autoptr(GError) error = NULL;
    g_autoptr(AnotFormulaSeed) failing = anot_formula_seed_new_from_data (text, -1, FALSE, &error);
    JsonObject *step;

    g_assert_no_error (error);
    trace = compute_both (failing, json_node_get_array (extractions), NULL, FALSE, &failed);
    g_assert_cmpuint (failed, ==, 2);
    steps = json_object_get_array_member (trace, "steps");
    step = json_array_get_object_element (steps, 0);
    g_assert_cmpstr (json_object_get_string_member (step, "error"), ==, "KeyError: 'missing'");
    g_assert_cmpstr (json_object_get_string_member (step, "message"), ==,
                     "formula “a”, column 15: KeyError: 'missing'");
    g_assert_cmpint (json_object_get_int_member (step, "column"), ==, 15);
    g_assert_true (json_object_get_null_member (step, "value"));
    step = json_array_get_object_element (steps, 1);
    g_assert_cmpstr (json_object_get_string_member (step, "error"), ==, "NameError: name 'a' is not defined");
    step = json_array_get_object_element (steps, 2);
    g_assert_true (json_object_get_null_member (step, "error"));
    g_assert_true (json_object_get_boolean_member (step, "value"));
    outputs = json_object_get_object_member (trace, "outputs");
    g_assert_true (json_object_get_null_member (outputs, "a"));
    g_clear_pointer (&trace, json_object_unref);

    trace = compute_both (failing, json_node_get_array (extractions), NULL, TRUE, &failed);
    g_assert_cmpuint (failed, ==, 2);
    outputs = json_object_get_object_member (trace, "outputs");
    g_assert_cmpint (json_object_get_int_member (outputs, "a"), ==, 0);
    g_assert_cmpint (json_object_get_int_member (outputs, "b"), ==, 1);
    /* isinstance was not in the original's namespace: 0.0. */
    g_assert_cmpfloat (json_object_get_double_member (outputs, "c"), ==, 0.0);
    step = json_array_get_object_element (json_object_get_array_member (trace, "steps"), 2);
    g_assert_cmpstr (json_object_get_string_member (step, "error"), ==, "NameError: name 'isinstance' is not defined");
    g_clear_pointer (&trace, json_object_unref);
  }

  /* A value too large to write out in the trace (one list held 4,644
   * times, 18 million items written out): its step fails there with a
   * LimitError, the steps after it had the value. */
  {
    g_autofree char *text = patched_seed ("\"compute_dag\": ["
                                          "{\"name\": \"big\", \"formula\": \"[[1] * 4000] * 4644\"},"
                                          "{\"name\": \"n\", \"formula\": \"len(big)\"}],"
                                          "\"output_fields\": [\"big\", \"n\"]");
    g_autoptr(GError) error = NULL;
    g_autoptr(AnotFormulaSeed) big = anot_formula_seed_new_from_data (text, -1, FALSE, &error);
    JsonObject *step;

    g_assert_no_error (error);
    trace = compute_both (big, NULL, NULL, FALSE, &failed);
    g_assert_cmpuint (failed, ==, 1);
    step = json_array_get_object_element (json_object_get_array_member (trace, "steps"), 0);
    g_assert_cmpstr (json_object_get_string_member (step, "error"), ==,
                     "LimitError: the value, written out, holds more than 1000000 items");
    g_assert_true (json_object_get_null_member (step, "value"));
    outputs = json_object_get_object_member (trace, "outputs");
    g_assert_true (json_object_get_null_member (outputs, "big"));
    g_assert_cmpint (json_object_get_int_member (outputs, "n"), ==, 4644);
  }
}

/* ------------------------------------------------------------------------ *
 * The count steps a seed runs in one pass (sum(1 for e in extractions if
 * ...)): the same trace as each step run on its own, on records that make
 * the pass give steps back to the general evaluator.
 * ------------------------------------------------------------------------ */

#define LONG_VALUE "a value far too long to be interned by the evaluator, so compared byte by byte ........................................"

static const char *count_steps_patch =
  "\"compute_dag\": ["
  "{\"name\": \"c_and\", \"formula\": \"sum(1 for e in extractions if e['sev'] == 'mild' and e['acct'] == 'first')\", \"is_aggregate\": true},"
  "{\"name\": \"c_ne\", \"formula\": \"sum(1 for e in extractions if e['sev'] != 'none')\", \"is_aggregate\": true},"
  "{\"name\": \"c_in\", \"formula\": \"sum(1 for e in extractions if e['sev'] in ('mild', 'severe'))\"},"
  "{\"name\": \"c_not_in\", \"formula\": \"sum(1 for e in extractions if e['inter'] not in ('pos',))\"},"
  "{\"name\": \"c_not\", \"formula\": \"sum(1 for e in extractions if not e['inter'] == 'pos')\"},"
  "{\"name\": \"c_pos\", \"formula\": \"sum(1 for e in extractions if e['inter'] == 'pos')\"},"
  "{\"name\": \"c_year\", \"formula\": \"sum(1 for e in extractions if e['year'] == '2023')\"},"
  "{\"name\": \"c_long\", \"formula\": \"sum(1 for e in extractions if e['quote'] == '" LONG_VALUE "')\"},"
  "{\"name\": \"c_reached\", \"formula\": \"sum(1 for e in extractions if e['acct'] == 'first' and e['opt'] == 'y')\"},"
  "{\"name\": \"c_before\", \"formula\": \"c_pos + 1\"},"
  "{\"name\": \"xs\", \"formula\": \"[e for e in extractions]\"},"
  "{\"name\": \"c_xs\", \"formula\": \"sum(1 for e in xs if e['sev'] == 'mild')\"},"
  "{\"name\": \"total\", \"formula\": \"c_and + c_ne + c_in + c_not_in + c_not + c_pos + c_year + c_long + c_reached + c_xs\"},"
  "{\"name\": \"c_last\", \"formula\": \"sum(1 for e in extractions if e['sev'] == 'severe')\"}],"
  "\"output_fields\": [\"total\", \"c_last\"]";

/* Each record list, and whether the pass counts some steps of it. */
static const struct {
  const char *records;
  gboolean counted;
} count_cases[] = {
  { "[]", TRUE },
  { "[{\"sev\": \"mild\", \"acct\": \"first\", \"inter\": \"pos\", \"year\": 2023, \"quote\": \"" LONG_VALUE "\", \"opt\": \"y\"},"
    " {\"sev\": \"none\", \"acct\": \"second\", \"inter\": \"neg\", \"year\": \"2023\", \"quote\": \"short\", \"opt\": \"n\"},"
    " {\"sev\": \"severe\", \"acct\": \"first\", \"inter\": \"pos\", \"year\": null, \"quote\": \"" LONG_VALUE "\", \"opt\": \"y\"}]", TRUE },
  /* "opt" missing where the filter does not reach it, then where it does. */
  { "[{\"sev\": \"mild\", \"acct\": \"second\", \"inter\": \"pos\", \"year\": 1, \"quote\": \"q\"},"
    " {\"sev\": \"mild\", \"acct\": \"first\", \"inter\": \"pos\", \"year\": 1, \"quote\": \"q\", \"opt\": \"y\"}]", TRUE },
  { "[{\"sev\": \"mild\", \"acct\": \"first\", \"inter\": \"pos\", \"year\": 1, \"quote\": \"q\", \"opt\": \"y\"},"
    " {\"sev\": \"mild\", \"acct\": \"first\", \"inter\": \"pos\", \"year\": 1, \"quote\": \"q\"}]", TRUE },
  /* Keys in another order, values of other kinds, non-ASCII. */
  { "[{\"sev\": \"mild\", \"acct\": \"first\", \"inter\": \"pos\", \"year\": 1, \"quote\": \"q\", \"opt\": \"y\"},"
    " {\"opt\": \"y\", \"quote\": \"q\", \"year\": 2, \"inter\": \"neg\", \"acct\": \"first\", \"sev\": \"mild\"},"
    " {\"sev\": 3, \"acct\": [\"first\"], \"inter\": {\"pos\": 1}, \"year\": 2.5, \"quote\": true, \"opt\": \"y\"},"
    " {\"sev\": \"mïld\", \"acct\": \"first\", \"inter\": \"pos\", \"year\": 1, \"quote\": \"q\", \"opt\": \"y\"}]", TRUE },
  /* Escapes in member names and values (the same strings as the first
   * record's once decoded), booleans, a repeated member. */
  { "[{\"sev\": \"mild\", \"acct\": \"first\", \"inter\": \"pos\", \"year\": 1, \"quote\": \"q\", \"opt\": \"y\"},"
    " {\"s\\u0065v\": \"mi\\u006cd\", \"acct\": \"fir\\u0073t\", \"inter\": \"p\\u006fs\", \"year\": true, \"quote\": \"q\\n\", \"opt\": false},"
    " {\"sev\": \"none\", \"acct\": \"first\", \"sev\": \"mild\", \"inter\": \"pos\", \"year\": 1, \"quote\": \"q\", \"opt\": \"y\"}]", TRUE },
  /* A record that is not a dict: every count step fails as on its own. */
  { "[{\"sev\": \"mild\", \"acct\": \"first\", \"inter\": \"pos\", \"year\": 1, \"quote\": \"q\", \"opt\": \"y\"}, 5]", FALSE },
  /* Every record lacks a field: the steps reading it fail. */
  { "[{\"sev\": \"mild\", \"acct\": \"first\", \"year\": 1, \"quote\": \"q\", \"opt\": \"y\"}]", TRUE },
};

static JsonObject *
compute_with_fast_paths (AnotFormulaSeed *seed,
                         JsonArray       *records,
                         gboolean         original,
                         gboolean         fast,
                         guint           *counted)
{
  guint before = anot_expr_get_counted_steps ();
  JsonObject *trace;

  anot_expr_set_fast_paths (fast);
  trace = compute_both (seed, records, NULL, original, NULL);
  anot_expr_set_fast_paths (TRUE);
  *counted = anot_expr_get_counted_steps () - before;
  return trace;
}

/* anot_formula_seed_compute_text() refuses what is not a JSON array,
 * naming the byte where the text goes wrong; an array of anything is
 * evaluated, as the tree path does. */
static void
test_compute_text_errors (void)
{
  g_autoptr(AnotFormulaSeed) seed = load_minimal ();
  static const struct {
    const char *text;
    const char *message;
  } cases[] = {
    { "[{\"severity\": \"severe\",]", "extractions: JSON: * at byte 23" },
    { "[{\"severity\": \"sev", "extractions: JSON: unterminated string at byte 18" },
    { "[1, 2] 3", "extractions: JSON: * at byte 7" },
    { "", "extractions: JSON: * at byte 0" },
    { "[\"\xff\"]", "extractions: JSON: *UTF-8* at byte 2" },
    { "{\"extractions\": []}", "extractions: expected a JSON array, not an object" },
    { "3", "extractions: expected a JSON array, not a scalar" },
    { "null", "extractions: expected a JSON array, not a scalar" },
  };

  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(GError) error = NULL;
      guint failed = 99;
      g_autofree char *trace = anot_formula_seed_compute_text (seed, cases[i].text, -1, NULL, FALSE,
                                                               &failed, &error);

      g_assert_null (trace);
      g_assert_error (error, ANOT_ERROR, ANOT_ERROR_PARSE);
      if (!g_pattern_match_simple (cases[i].message, error->message))
        g_error ("%s: got “%s”, expected “%s”", cases[i].text, error->message, cases[i].message);
      /* Left alone on error. */
      g_assert_cmpuint (failed, ==, 99);
    }

  /* @length bounds the text: what follows is not read. */
  {
    static const char buffer[] = "[{\"severity\": \"severe\"}]garbage";
    g_autoptr(GError) error = NULL;
    guint failed = 0;
    g_autofree char *trace = anot_formula_seed_compute_text (seed, buffer, strlen (buffer) - 7, NULL, FALSE,
                                                             &failed, &error);

    g_assert_no_error (error);
    g_assert_nonnull (strstr (trace, "\"outputs\":{\"n_severe\":1,\"share\":1.0,\"verdict\":\"bad\"}"));
    g_assert_cmpuint (failed, ==, 0);
  }

  /* Elements of the wrong shape are data: the steps that read them fail,
   * with the same trace as from a tree. */
  {
    g_autoptr(JsonNode) extractions = parse_json ("[1, \"x\", null, {\"severity\": 3}, [\"severe\"]]");
    guint failed = 0;
    g_autoptr(JsonObject) trace = compute_both (seed, json_node_get_array (extractions), NULL, FALSE, &failed);
    JsonArray *steps = json_object_get_array_member (trace, "steps");

    g_assert_cmpuint (failed, ==, 3);
    g_assert_true (g_str_has_prefix (json_object_get_string_member (json_array_get_object_element (steps, 0), "error"),
                                     "TypeError: "));
    g_assert_cmpint (json_object_get_int_member (json_array_get_object_element (steps, 1), "value"), ==, 5);
  }
}

static void
test_counted_together (void)
{
  g_autofree char *text = patched_seed (count_steps_patch);
  g_autoptr(GError) error = NULL;
  g_autoptr(AnotFormulaSeed) seed = anot_formula_seed_new_from_data (text, -1, FALSE, &error);

  g_assert_no_error (error);
  for (guint i = 0; i < G_N_ELEMENTS (count_cases); i++)
    for (int original = 0; original <= 1; original++)
      {
        g_autoptr(JsonNode) records = parse_json (count_cases[i].records);
        g_autoptr(JsonNode) together = NULL;
        g_autoptr(JsonNode) alone = NULL;
        g_autofree char *together_text = NULL;
        g_autofree char *alone_text = NULL;
        guint counted, counted_alone;

        together = json_node_init_object (json_node_alloc (),
                                          compute_with_fast_paths (seed, json_node_get_array (records),
                                                                   original, TRUE, &counted));
        alone = json_node_init_object (json_node_alloc (),
                                       compute_with_fast_paths (seed, json_node_get_array (records),
                                                                original, FALSE, &counted_alone));
        json_object_unref (json_node_get_object (together));
        json_object_unref (json_node_get_object (alone));
        together_text = node_text (together);
        alone_text = node_text (alone);
        if (g_test_verbose ())
          g_printerr ("case %u, original %d: %u counted together\n%s\n", i, original, counted, together_text);
        g_assert_cmpstr (together_text, ==, alone_text);
        g_assert_cmpuint (counted_alone, ==, 0);
        if (count_cases[i].counted)
          g_assert_cmpuint (counted, >, 0);
        else
          g_assert_cmpuint (counted, ==, 0);
      }

  /* The step budget: too small for a pass to be sure, the steps run on
   * their own and fail (or not) as they would; the last step's count is
   * the scope's either way. */
  {
    g_autoptr(JsonNode) records = parse_json (count_cases[1].records);

    for (guint64 budget = 1; budget <= 200; budget += 7)
      {
        char *outcome[2] = { NULL, NULL };
        guint64 last_steps[2];

        for (int fast = 0; fast <= 1; fast++)
          {
            g_autoptr(AnotExprScope) scope = anot_formula_seed_new_scope (seed, json_node_get_array (records), NULL, FALSE);
            g_autoptr(GString) values = g_string_new (NULL);
            guint failed;

            anot_expr_scope_set_limits (scope, budget, 1000, 1000);
            anot_expr_set_fast_paths (fast);
            failed = anot_formula_seed_evaluate (seed, scope, FALSE);
            anot_expr_set_fast_paths (TRUE);
            last_steps[fast] = anot_expr_scope_get_last_steps (scope);
            g_string_append_printf (values, "%u failed:", failed);
            for (guint k = 0; k < anot_formula_seed_get_n_steps (seed); k++)
              {
                const char *name = anot_formula_seed_get_step_name (seed, k);
                g_autoptr(JsonNode) value = anot_expr_scope_get (scope, name);
                g_autofree char *value_text = node_text (value);

                g_string_append_printf (values, " %s=%s", name, value_text);
              }
            outcome[fast] = g_string_free (g_steal_pointer (&values), FALSE);
          }
        g_assert_cmpstr (outcome[1], ==, outcome[0]);
        g_assert_cmpuint (last_steps[1], ==, last_steps[0]);
        g_free (outcome[0]);
        g_free (outcome[1]);
      }
  }
}

/* anot_formula_seed_evaluate() on a scope used before, or changed after
 * anot_formula_seed_new_scope(): a step reading a name before its step
 * writes it reads the scope's value, and the values stored replace the
 * scope's (or remove them, for a failed step). */
static void
test_evaluate_scope (void)
{
  g_autofree char *text = patched_seed ("\"compute_dag\": ["
                                        "{\"name\": \"a\", \"formula\": \"b * 2\"},"
                                        "{\"name\": \"b\", \"formula\": \"a + len(extractions)\"},"
                                        "{\"name\": \"c\", \"formula\": \"extractions[0]['missing']\"}],"
                                        "\"output_fields\": [\"a\", \"b\"]");
  g_autoptr(GError) error = NULL;
  g_autoptr(AnotFormulaSeed) seed = anot_formula_seed_new_from_data (text, -1, TRUE, &error);
  g_autoptr(JsonNode) extractions = parse_json ("[{\"severity\": \"mild\"}]");
  g_autoptr(AnotExprScope) scope = NULL;
  g_auto(GStrv) names = NULL;

  g_assert_no_error (error);

  /* Fresh: b is undefined when a reads it. */
  scope = anot_formula_seed_new_scope (seed, json_node_get_array (extractions), NULL, FALSE);
  g_assert_cmpuint (anot_formula_seed_evaluate (seed, scope, FALSE), ==, 3);
  g_assert_false (anot_expr_scope_contains (scope, "a"));
  g_assert_false (anot_expr_scope_contains (scope, "c"));
  g_clear_pointer (&scope, anot_expr_scope_unref);

  /* b and c set beforehand: a reads b, b and c are replaced, c removed. */
  scope = anot_formula_seed_new_scope (seed, json_node_get_array (extractions), NULL, FALSE);
  anot_expr_scope_set_int (scope, "b", 100);
  anot_expr_scope_set_int (scope, "c", 5);
  g_assert_cmpuint (anot_formula_seed_evaluate (seed, scope, FALSE), ==, 1);
  g_assert_cmpint (json_node_get_int (kept_node (anot_expr_scope_get (scope, "a"))), ==, 200);
  g_assert_cmpint (json_node_get_int (kept_node (anot_expr_scope_get (scope, "b"))), ==, 201);
  g_assert_false (anot_expr_scope_contains (scope, "c"));

  /* Again on the same scope: a reads the b of the first run. */
  g_assert_cmpuint (anot_formula_seed_evaluate (seed, scope, FALSE), ==, 1);
  g_assert_cmpint (json_node_get_int (kept_node (anot_expr_scope_get (scope, "a"))), ==, 402);
  g_assert_cmpint (json_node_get_int (kept_node (anot_expr_scope_get (scope, "b"))), ==, 403);
  names = anot_expr_scope_list_names (scope);
  g_assert_cmpuint (g_strv_length (names), ==, 5);  /* extractions, item_category, restaurant_category, a, b */

  /* The original's mode: the failed step is 0.0, stored. */
  g_assert_cmpuint (anot_formula_seed_evaluate (seed, scope, TRUE), ==, 1);
  g_assert_cmpfloat (json_node_get_double (kept_node (anot_expr_scope_get (scope, "c"))), ==, 0.0);
  g_assert_cmpint (json_node_get_int (kept_node (anot_expr_scope_get (scope, "b"))), ==, 403 * 2 + 1);
}

/* ------------------------------------------------------------------------ *
 * The hand-written v1 seed on synthetic extractions: the branches the real
 * data never reaches.  Expected values worked out by hand from
 * task_G1a.md §4, §6, §7 and §8.
 * ------------------------------------------------------------------------ */

static AnotFormulaSeed *
load_v1 (void)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *path = g_build_filename (g_getenv ("ANOT_DATA_DIR"), "formula-seeds", "g1a-v1.json", NULL);
  AnotFormulaSeed *seed = anot_formula_seed_load (path, FALSE, &error);

  g_assert_no_error (error);
  return seed;
}

typedef struct {
  const char *severity, *account, *interaction, *date;
  double stars;
  gint64 useful;
} Review;

static JsonArray *
synthetic (AnotFormulaSeed *seed,
           const Review    *reviews,
           guint            n)
{
  JsonArray *array = json_array_new ();

  for (guint i = 0; i < n; i++)
    {
      g_autoptr(JsonObject) reply = json_object_new ();
      guint invalid;

      json_object_set_string_member (reply, "incident_severity", reviews[i].severity);
      json_object_set_string_member (reply, "account_type", reviews[i].account);
      json_object_set_string_member (reply, "safety_interaction", reviews[i].interaction);
      json_array_add_object_element (array, anot_formula_seed_make_extraction (seed, reply, i, reviews[i].date,
                                                                               reviews[i].stars, reviews[i].useful,
                                                                               &invalid));
      g_assert_cmpuint (invalid, ==, 0);
    }
  return array;
}

static void
check_output (JsonObject *outputs,
              const char *name,
              double      expected)
{
  JsonNode *node = json_object_get_member (outputs, name);

  g_assert_nonnull (node);
  if (json_node_get_value_type (node) == G_TYPE_INT64)
    g_assert_cmpint (json_node_get_int (node), ==, (gint64) expected);
  else
    g_assert_cmpfloat_with_epsilon (json_node_get_double (node), expected, 1e-9);
}

static void
test_v1_synthetic (void)
{
  g_autoptr(AnotFormulaSeed) seed = load_v1 ();
  guint failed;

  /* A recent severe firsthand incident with a betrayal, a positive
   * interaction, and a secondhand incident that does not count; Thai. */
  {
    static const Review reviews[] = {
      { "severe", "firsthand", "betrayal", "2024-05-01 10:00:00", 1.0, 3 },
      { "none", "none", "positive", "2023-01-01 10:00:00", 5.0, 0 },
      { "mild", "secondhand", "none", "2022-01-01 10:00:00", 2.0, 1 },
    };
    g_autoptr(JsonArray) extractions = synthetic (seed, reviews, G_N_ELEMENTS (reviews));
    g_autoptr(JsonObject) trace = compute_both (seed, extractions, "Thai, Restaurants", FALSE, &failed);
    JsonObject *o = json_object_get_object_member (trace, "outputs");
    double weight = 4.0 + log (4.0);

    g_assert_cmpuint (failed, ==, 0);
    check_output (o, "n_mild", 0);
    check_output (o, "n_severe", 1);
    check_output (o, "n_total_incidents", 1);
    check_output (o, "n_positive", 1);
    check_output (o, "n_betrayal", 1);
    check_output (o, "incident_score", 15.0);
    check_output (o, "safety_credit", 1.0 - 5.0);
    check_output (o, "cuisine_modifier", 2.0);
    check_output (o, "n_allergy_reviews", 3);
    check_output (o, "review_density", 0.3);
    check_output (o, "confidence_penalty", 0.79);
    check_output (o, "most_recent_incident_year", 2024);
    check_output (o, "incident_age", 1);
    check_output (o, "recency_decay", 0.85);
    check_output (o, "total_incident_weight", 5.386);
    check_output (o, "credibility_factor", 5.386);
    check_output (o, "incident_impact", round (15.0 * 0.85 * weight * 1000) / 1000);
    check_output (o, "safety_impact", -3.16);
    check_output (o, "cuisine_impact", 1.0);
    check_output (o, "raw_risk", round ((2.5 + 15.0 * 0.85 * weight + 3.16 + 1.0 - 3.0) * 1000) / 1000);
    check_output (o, "final_risk_score", 20.0);
    g_assert_cmpstr (json_object_get_string_member (o, "verdict"), ==, "Critical Risk");
  }

  /* One moderate incident four years old; a pizzeria's modifier is never
   * below 1.0. */
  {
    static const Review reviews[] = {
      { "moderate", "firsthand", "none", "2021-07-01 10:00:00", 3.0, 0 },
    };
    g_autoptr(JsonArray) extractions = synthetic (seed, reviews, G_N_ELEMENTS (reviews));
    g_autoptr(JsonObject) trace = compute_both (seed, extractions, "Pizza, Italian", FALSE, &failed);
    JsonObject *o = json_object_get_object_member (trace, "outputs");

    g_assert_cmpuint (failed, ==, 0);
    check_output (o, "incident_score", 5.0);
    check_output (o, "cuisine_modifier", 1.0);
    check_output (o, "confidence_penalty", 0.73);
    check_output (o, "recency_decay", 0.4);
    check_output (o, "credibility_factor", 2.0);
    check_output (o, "incident_impact", 4.0);
    check_output (o, "raw_risk", 7.0);
    g_assert_cmpstr (json_object_get_string_member (o, "verdict"), ==, "High Risk");
  }

  /* Exactly 4.0 is High Risk: two negative interactions among ten. */
  {
    Review reviews[10];
    g_autoptr(JsonArray) extractions = NULL;
    g_autoptr(JsonObject) trace = NULL;
    JsonObject *o;

    for (guint i = 0; i < 10; i++)
      reviews[i] = (Review) { "none", "none", i < 2 ? "negative" : "none", "2019-01-01", 4.0, 0 };
    extractions = synthetic (seed, reviews, 10);
    trace = compute_both (seed, extractions, "Burgers", FALSE, &failed);
    o = json_object_get_object_member (trace, "outputs");
    check_output (o, "safety_impact", -1.0);
    check_output (o, "final_risk_score", 4.0);
    g_assert_cmpstr (json_object_get_string_member (o, "verdict"), ==, "High Risk");
  }

  /* No relevant review at all. */
  {
    g_autoptr(JsonObject) trace = compute_both (seed, NULL, "", FALSE, &failed);
    JsonObject *o = json_object_get_object_member (trace, "outputs");

    g_assert_cmpuint (failed, ==, 0);
    check_output (o, "n_allergy_reviews", 0);
    check_output (o, "confidence_penalty", 0.7);
    check_output (o, "most_recent_incident_year", 2020);
    check_output (o, "recency_decay", 0.3);
    check_output (o, "total_incident_weight", 0.0);
    check_output (o, "credibility_factor", 1.0);
    check_output (o, "final_risk_score", 3.0);
    g_assert_cmpstr (json_object_get_string_member (o, "verdict"), ==, "Low Risk");
  }
}

/* ------------------------------------------------------------------------ *
 * The recorded data of the original framework
 * ------------------------------------------------------------------------ */

typedef struct {
  JsonNode *judgments;       /* judgments.json */
  GHashTable *categories;    /* restaurant name -> categories */
  GHashTable *n_text;        /* restaurant name -> reviews with text */
} G1a;

static G1a *g1a;

static char *
g1a_path (const char *name)
{
  return g_build_filename (g_getenv ("ANOT_G1A_DATA"), name, NULL);
}

static JsonNode *
load_json_file (const char *path)
{
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(GError) error = NULL;

  json_parser_load_from_file (parser, path, &error);
  g_assert_no_error (error);
  return json_node_copy (json_parser_get_root (parser));
}

static G1a *
get_g1a (void)
{
  const char *dir = g_getenv ("ANOT_G1A_DATA");
  g_autofree char *probe = NULL;

  if (g1a != NULL)
    return g1a;
  if (dir != NULL)
    probe = g_build_filename (dir, "judgments.json", NULL);
  if (probe == NULL || !g_file_test (probe, G_FILE_TEST_EXISTS))
    {
      g_test_skip ("the g1a_allergy data is not available (set ANOT_G1A_DATA)");
      return NULL;
    }

  g1a = g_new0 (G1a, 1);
  g1a->judgments = load_json_file (probe);
  g1a->categories = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  g1a->n_text = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  {
    g_autofree char *path = g1a_path ("restaurants.jsonl");
    g_autofree char *contents = NULL;
    g_auto(GStrv) lines = NULL;

    g_assert_true (g_file_get_contents (path, &contents, NULL, NULL));
    lines = g_strsplit (contents, "\n", -1);
    for (guint i = 0; lines[i] != NULL; i++)
      {
        g_autoptr(JsonNode) line = NULL;
        JsonObject *r;

        if (*lines[i] == '\0')
          continue;
        line = parse_json (lines[i]);
        r = json_node_get_object (line);
        g_hash_table_insert (g1a->categories, g_strdup (json_object_get_string_member (r, "name")),
                             g_strdup (json_object_get_string_member (r, "categories")));
        g_hash_table_insert (g1a->n_text, g_strdup (json_object_get_string_member (r, "name")),
                             GINT_TO_POINTER (json_object_get_int_member (r, "n_reviews_with_text")));
      }
  }
  return g1a;
}

/* The restaurant's judgments with idx < @k (all when @k < 0), as
 * extractions of @seed. */
static JsonArray *
judged_extractions (AnotFormulaSeed *seed,
                    const char      *restaurant,
                    gint64           k)
{
  JsonObject *all = json_object_get_object_member (json_node_get_object (g1a->judgments), "judgments");
  JsonArray *out = json_array_new ();
  JsonArray *reviews;

  if (!json_object_has_member (all, restaurant))
    return out;
  reviews = json_object_get_array_member (json_object_get_object_member (all, restaurant), "reviews");
  for (guint i = 0; i < json_array_get_length (reviews); i++)
    {
      JsonObject *r = json_array_get_object_element (reviews, i);
      gint64 idx = json_object_get_int_member (r, "idx");
      guint invalid;

      if (k >= 0 && idx >= k)
        continue;
      json_array_add_object_element (out, anot_formula_seed_make_extraction (seed, r, idx,
                                                                             json_object_get_string_member (r, "date"),
                                                                             json_object_get_double_member (r, "stars"),
                                                                             json_object_get_int_member (r, "useful"),
                                                                             &invalid));
      g_assert_cmpuint (invalid, ==, 0);
    }
  return out;
}

/* Every step of the four real seeds, over every restaurant of
 * expected/seed_traces_kall.json, evaluated as the original's executor did:
 * the same value, or a failure of the same kind with the same message. */
static void
test_real_seed_traces (void)
{
  g_autofree char *path = NULL;
  g_autoptr(JsonNode) traces = NULL;
  JsonObject *seeds;
  g_autoptr(GList) names = NULL;
  guint total_steps = 0, total_match = 0, total_errors = 0, total_outputs = 0, total_outputs_match = 0;

  if (get_g1a () == NULL)
    return;
  path = g1a_path ("expected/seed_traces_kall.json");
  traces = load_json_file (path);
  seeds = json_object_get_object_member (json_node_get_object (traces), "seeds");
  names = json_object_get_members (seeds);
  g_assert_cmpuint (g_list_length (names), ==, 4);

  for (GList *l = names; l != NULL; l = l->next)
    {
      g_autofree char *file = g_strdup_printf ("seeds/%s.json", (char *) l->data);
      g_autofree char *seed_path = g1a_path (file);
      g_autoptr(GError) error = NULL;
      g_autoptr(AnotFormulaSeed) seed = anot_formula_seed_load (seed_path, TRUE, &error);
      JsonObject *per_restaurant = json_object_get_object_member (seeds, l->data);
      g_autoptr(GList) restaurants = json_object_get_members (per_restaurant);
      guint n_steps = 0, n_match = 0, n_errors = 0;

      g_assert_no_error (error);
      for (GList *r = restaurants; r != NULL; r = r->next)
        {
          JsonObject *expected = json_object_get_object_member (per_restaurant, r->data);
          JsonArray *expected_steps = json_object_get_array_member (expected, "steps");
          g_autoptr(JsonArray) extractions = judged_extractions (seed, r->data, -1);
          g_autoptr(JsonObject) trace = compute_both (seed, extractions,
                                                                   g_hash_table_lookup (g1a->categories, r->data),
                                                                   TRUE, NULL);
          JsonArray *steps = json_object_get_array_member (trace, "steps");
          JsonObject *outputs = json_object_get_object_member (trace, "outputs");
          JsonObject *expected_outputs = json_object_get_object_member (expected, "outputs");
          g_autoptr(GList) output_names = json_object_get_members (expected_outputs);

          g_assert_cmpuint (json_array_get_length (steps), ==, json_array_get_length (expected_steps));
          for (guint i = 0; i < json_array_get_length (steps); i++)
            {
              JsonObject *got = json_array_get_object_element (steps, i);
              JsonObject *want = json_array_get_object_element (expected_steps, i);
              JsonNode *want_error = json_object_get_member (want, "error");
              JsonNode *got_error = json_object_get_member (got, "error");

              n_steps++;
              g_assert_cmpstr (json_object_get_string_member (got, "name"), ==, json_object_get_string_member (want, "name"));
              if (!JSON_NODE_HOLDS_NULL (want_error))
                n_errors++;
              if (json_same (json_object_get_member (got, "value"), json_object_get_member (want, "value")) &&
                  json_same (got_error, want_error))
                n_match++;
              else
                {
                  g_autofree char *gv = node_text (json_object_get_member (got, "value"));
                  g_autofree char *wv = node_text (json_object_get_member (want, "value"));
                  g_autofree char *ge = node_text (got_error);
                  g_autofree char *we = node_text (want_error);

                  g_test_message ("%s / %s / %s: got %s (%s), expected %s (%s)", (char *) l->data, (char *) r->data,
                                  json_object_get_string_member (want, "name"), gv, ge, wv, we);
                }
            }
          for (GList *o = output_names; o != NULL; o = o->next)
            {
              total_outputs++;
              if (json_same (json_object_get_member (outputs, o->data), json_object_get_member (expected_outputs, o->data)))
                total_outputs_match++;
            }
        }
      g_test_message ("%s: %u restaurants, %u step values, %u match (%u of them recorded failures)",
                      (char *) l->data, g_list_length (restaurants), n_steps, n_match, n_errors);
      total_steps += n_steps;
      total_match += n_match;
      total_errors += n_errors;
    }
  g_test_message ("real seeds: %u/%u step values and errors match the recorded Python eval (%u failures), "
                  "%u/%u outputs", total_match, total_steps, total_errors, total_outputs_match, total_outputs);
  g_assert_cmpuint (total_steps, >, 0);
  g_assert_cmpuint (total_match, ==, total_steps);
  g_assert_cmpuint (total_outputs_match, ==, total_outputs);
}

/* The hand-written v1 seed over the recorded extractions reproduces every
 * primitive and verdict of expected/v1_k*.json. */
static void
test_v1_replay (void)
{
  static const struct { const char *file; gint64 k; } files[] = {
    { "expected/v1_k25.json", 25 },
    { "expected/v1_k50.json", 50 },
    { "expected/v1_k100.json", 100 },
    { "expected/v1_kall.json", -1 },
  };
  g_autoptr(AnotFormulaSeed) seed = NULL;

  if (get_g1a () == NULL)
    return;
  seed = load_v1 ();

  for (guint f = 0; f < G_N_ELEMENTS (files); f++)
    {
      g_autofree char *path = g1a_path (files[f].file);
      g_autoptr(JsonNode) expected = load_json_file (path);
      JsonObject *restaurants = json_object_get_object_member (json_node_get_object (expected), "restaurants");
      g_autoptr(GList) names = json_object_get_members (restaurants);
      guint n_values = 0, n_match = 0, n_restaurants = 0, n_all = 0;

      for (GList *l = names; l != NULL; l = l->next)
        {
          JsonObject *want = json_object_get_object_member (restaurants, l->data);
          g_autoptr(JsonArray) extractions = judged_extractions (seed, l->data, files[f].k);
          guint failed;
          g_autoptr(JsonObject) trace = compute_both (seed, extractions,
                                                                   g_hash_table_lookup (g1a->categories, l->data),
                                                                   FALSE, &failed);
          JsonObject *got = json_object_get_object_member (trace, "outputs");
          g_autoptr(GList) fields = json_object_get_members (want);
          gboolean all = TRUE;

          g_assert_cmpuint (failed, ==, 0);
          n_restaurants++;
          for (GList *m = fields; m != NULL; m = m->next)
            {
              n_values++;
              if (json_same (json_object_get_member (got, m->data), json_object_get_member (want, m->data)))
                n_match++;
              else
                {
                  g_autofree char *gv = node_text (json_object_get_member (got, m->data));
                  g_autofree char *wv = node_text (json_object_get_member (want, m->data));

                  all = FALSE;
                  g_test_message ("%s / %s / %s: got %s, expected %s", files[f].file, (char *) l->data,
                                  (char *) m->data, gv, wv);
                }
            }
          if (all)
            n_all++;
        }
      g_test_message ("%s: %u/%u restaurants match in every value, %u/%u values",
                      files[f].file, n_all, n_restaurants, n_match, n_values);
      g_assert_cmpuint (n_restaurants, ==, 80);
      g_assert_cmpuint (n_match, ==, n_values);
    }
}

/* Phase 2 end to end without an LLM (recipe B of the data's README): the
 * reviews with text, filtered by the seed's keywords, are exactly the
 * judged ones, and their judgments reproduce v1_k25 and v1_k50. */
static void
test_v1_filter_replay (void)
{
  g_autoptr(AnotFormulaSeed) seed = NULL;
  g_autofree char *path = NULL;
  g_autofree char *contents = NULL;
  g_auto(GStrv) lines = NULL;
  g_autoptr(GHashTable) selected = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  JsonObject *all;
  guint n_selected = 0;

  if (get_g1a () == NULL)
    return;
  seed = load_v1 ();
  all = json_object_get_object_member (json_node_get_object (g1a->judgments), "judgments");

  /* FILTER every review with text. */
  path = g1a_path ("reviews.jsonl");
  g_assert_true (g_file_get_contents (path, &contents, NULL, NULL));
  lines = g_strsplit (contents, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    {
      g_autoptr(JsonNode) line = NULL;
      JsonObject *review;

      if (*lines[i] == '\0')
        continue;
      line = parse_json (lines[i]);
      review = json_node_get_object (line);
      if (anot_formula_seed_matches_text (seed, json_object_get_string_member (review, "text")))
        {
          g_hash_table_add (selected, g_strdup_printf ("%s\t%" G_GINT64_FORMAT,
                                                       json_object_get_string_member (review, "restaurant"),
                                                       json_object_get_int_member (review, "idx")));
          n_selected++;
        }
    }

  for (guint f = 0; f < 2; f++)
    {
      gint64 k = f == 0 ? 25 : 50;
      g_autofree char *expected_path = g1a_path (f == 0 ? "expected/v1_k25.json" : "expected/v1_k50.json");
      g_autoptr(JsonNode) expected = load_json_file (expected_path);
      JsonObject *restaurants = json_object_get_object_member (json_node_get_object (expected), "restaurants");
      g_autoptr(GList) names = json_object_get_members (restaurants);
      guint n_restaurants = 0, n_match = 0;

      for (GList *l = names; l != NULL; l = l->next)
        {
          JsonArray *reviews;
          g_autoptr(JsonArray) extractions = json_array_new ();
          g_autoptr(JsonObject) trace = NULL;
          guint n_judged = 0, n_filtered = 0;

          /* K = 50 only where the texts go that far. */
          if (GPOINTER_TO_INT (g_hash_table_lookup (g1a->n_text, l->data)) < k)
            continue;
          n_restaurants++;
          for (gint64 idx = 0; idx < k; idx++)
            {
              g_autofree char *key = g_strdup_printf ("%s\t%" G_GINT64_FORMAT, (char *) l->data, idx);

              if (g_hash_table_contains (selected, key))
                n_filtered++;
            }
          reviews = json_object_has_member (all, l->data)
                    ? json_object_get_array_member (json_object_get_object_member (all, l->data), "reviews") : NULL;
          for (guint i = 0; reviews != NULL && i < json_array_get_length (reviews); i++)
            {
              JsonObject *r = json_array_get_object_element (reviews, i);
              gint64 idx = json_object_get_int_member (r, "idx");
              g_autofree char *key = g_strdup_printf ("%s\t%" G_GINT64_FORMAT, (char *) l->data, idx);

              if (idx >= k)
                continue;
              n_judged++;
              /* Each selected review has its recorded answer. */
              g_assert_true (g_hash_table_contains (selected, key));
              json_array_add_object_element (extractions,
                                             anot_formula_seed_make_extraction (seed, r, idx,
                                                                                json_object_get_string_member (r, "date"),
                                                                                json_object_get_double_member (r, "stars"),
                                                                                json_object_get_int_member (r, "useful"),
                                                                                NULL));
            }
          g_assert_cmpuint (n_filtered, ==, n_judged);
          trace = compute_both (seed, extractions, g_hash_table_lookup (g1a->categories, l->data), FALSE, NULL);
          if (json_same (json_object_get_member (trace, "outputs"), json_object_get_member (restaurants, l->data)))
            n_match++;
        }
      g_test_message ("filter + replay, K=%" G_GINT64_FORMAT ": %u/%u restaurants match in every value",
                      k, n_match, n_restaurants);
      g_assert_cmpuint (n_restaurants, >, 0);
      g_assert_cmpuint (n_match, ==, n_restaurants);
    }
  g_test_message ("%u reviews with text pass the filter", n_selected);
}

int
main (int    argc,
      char **argv)
{
  int status;

  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);

  g_test_add_func ("/formula-seed/load", test_load);
  g_test_add_func ("/formula-seed/validation", test_validation);
  g_test_add_func ("/formula-seed/save", test_save);
  g_test_add_func ("/formula-seed/filter-and-prompt", test_filter_and_prompt);
  g_test_add_func ("/formula-seed/make-extraction", test_make_extraction);
  g_test_add_func ("/formula-seed/compute", test_compute);
  g_test_add_func ("/formula-seed/compute-text-errors", test_compute_text_errors);
  g_test_add_func ("/formula-seed/counted-together", test_counted_together);
  g_test_add_func ("/formula-seed/evaluate-scope", test_evaluate_scope);
  g_test_add_func ("/formula-seed/v1-synthetic", test_v1_synthetic);
  g_test_add_func ("/formula-seed/real-seed-traces", test_real_seed_traces);
  g_test_add_func ("/formula-seed/v1-replay", test_v1_replay);
  g_test_add_func ("/formula-seed/v1-filter-replay", test_v1_filter_replay);

  status = g_test_run ();
  if (g1a != NULL)
    {
      json_node_unref (g1a->judgments);
      g_hash_table_unref (g1a->categories);
      g_hash_table_unref (g1a->n_text);
      g_free (g1a);
    }
  g_clear_pointer (&test_nodes, g_ptr_array_unref);
  return status;
}
