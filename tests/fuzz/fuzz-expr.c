/* fuzz-expr.c: libFuzzer target for the expression language (AnotExpr):
 * the parser and the evaluator
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <anot/anot.h>

#include <stdint.h>
#include <string.h>

#include "anot-expr-private.h"

static AnotExprScope *scope;
/* The same records bound two ways: as anot_expr_scope_set() converts JSON
 * (plain dicts) and as a Formula Seed binds its extractions (records
 * sharing their keys, enum values interned); a formula must give the same
 * result, error and steps in both. */
static AnotExprScope *plain_scope;
static AnotExprScope *seed_scope;
static JsonNode *records;

static const char records_json[] =
  "[{\"sev\": \"mild\", \"acct\": \"firsthand\", \"_year\": 2019, \"_stars\": 2.0, \"_useful\": 1},"
  " {\"sev\": \"none\", \"acct\": \"none\", \"_year\": 2021, \"_stars\": 5.0, \"_useful\": 0},"
  " {\"acct\": \"firsthand\", \"sev\": \"severe\", \"_year\": 2020, \"_stars\": 1.0, \"_useful\": 3},"
  " {\"sev\": null, \"acct\": 1, \"_year\": 2022, \"_stars\": 4.0, \"_useful\": 2},"
  " {\"sev\": \"mild\", \"acct\": \"secondhand\", \"_year\": 2023, \"_stars\": 3.0, \"_useful\": 0, \"x\": [1]},"
  " 7, {\"sev\": \"mild\"}]";

static const char seed_json[] =
  "{\"filter_keywords\": [\"x\"], \"extraction_fields\": [{\"name\": \"sev\", \"type\": \"string\"}],"
  " \"extraction_prompt\": \"{review_text}\","
  " \"compute_dag\": [{\"name\": \"n\", \"formula\": \"len(extractions)\"}], \"output_fields\": [\"n\"]}";

static void
setup (void)
{
  g_autoptr(JsonNode) node = NULL;
  JsonObject *object;
  g_autoptr(GList) members = NULL;

  /* A critical means an API was misused on some input: a bug. */
  g_log_set_always_fatal (G_LOG_LEVEL_CRITICAL | G_LOG_LEVEL_WARNING);
  node = json_from_string ("{\"x\": 7, \"y\": 2.5, \"s\": \"Thai, Restaurants\", \"n\": null, \"t\": true,"
                           " \"d\": {\"a\": 1, \"b\": [1, 2], \"c\": \"x\"}, \"xs\": [3, 1, 2], \"empty\": [],"
                           " \"restaurant_category\": \"Pizza, Italian\","
                           " \"extractions\": [{\"sev\": \"mild\", \"acct\": \"firsthand\", \"_year\": 2019, \"_stars\": 2.0, \"_useful\": 1},"
                           "                   {\"sev\": \"none\", \"acct\": \"none\", \"_year\": 2021, \"_stars\": 5.0, \"_useful\": 0}]}",
                           NULL);
  object = json_node_get_object (node);
  scope = anot_expr_scope_new ();
  /* Small limits: the fuzzer looks for crashes, not for slow inputs. */
  anot_expr_scope_set_limits (scope, 200000, 20000, 1 << 20);
  members = json_object_get_members (object);
  for (GList *l = members; l != NULL; l = l->next)
    anot_expr_scope_set (scope, l->data, json_object_get_member (object, l->data));

  records = json_from_string (records_json, NULL);
  {
    g_autoptr(AnotFormulaSeed) seed = anot_formula_seed_new_from_data (seed_json, -1, TRUE, NULL);

    if (records == NULL || seed == NULL)
      __builtin_trap ();
    seed_scope = anot_formula_seed_new_scope (seed, json_node_get_array (records), "Thai", FALSE);
    plain_scope = anot_expr_scope_new ();
    anot_expr_scope_set (plain_scope, "extractions", records);
    anot_expr_scope_set_string (plain_scope, "restaurant_category", "Thai");
    anot_expr_scope_set_limits (seed_scope, 200000, 20000, 1 << 20);
    anot_expr_scope_set_limits (plain_scope, 200000, 20000, 1 << 20);
  }
}

/* The values a seed computes from @records with @source as its first step
 * (of three: so that a count step there can be counted together with the
 * same formula, and is not the last one), as text: the records the
 * fuzzer's other checks read too. */
static char *
seed_outcome (const char *source,
              gboolean    fast)
{
  g_autoptr(JsonBuilder) builder = json_builder_new ();
  g_autoptr(JsonNode) root = NULL;
  g_autoptr(AnotFormulaSeed) seed = NULL;
  g_autoptr(AnotExprScope) s = NULL;
  GString *text;
  guint failed;

  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "filter_keywords");
  json_builder_begin_array (builder);
  json_builder_add_string_value (builder, "x");
  json_builder_end_array (builder);
  json_builder_set_member_name (builder, "extraction_fields");
  json_builder_begin_array (builder);
  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "name");
  json_builder_add_string_value (builder, "sev");
  json_builder_set_member_name (builder, "type");
  json_builder_add_string_value (builder, "string");
  json_builder_end_object (builder);
  json_builder_end_array (builder);
  json_builder_set_member_name (builder, "extraction_prompt");
  json_builder_add_string_value (builder, "{review_text}");
  json_builder_set_member_name (builder, "compute_dag");
  json_builder_begin_array (builder);
  for (guint i = 0; i < 3; i++)
    {
      static const char * const names[] = { "a", "b", "c" };

      json_builder_begin_object (builder);
      json_builder_set_member_name (builder, "name");
      json_builder_add_string_value (builder, names[i]);
      json_builder_set_member_name (builder, "formula");
      json_builder_add_string_value (builder, i < 2 ? source : "0");
      json_builder_end_object (builder);
    }
  json_builder_end_array (builder);
  json_builder_set_member_name (builder, "output_fields");
  json_builder_begin_array (builder);
  json_builder_add_string_value (builder, "a");
  json_builder_end_array (builder);
  json_builder_end_object (builder);
  root = json_builder_get_root (builder);

  seed = anot_formula_seed_new_from_json (root, TRUE, NULL);
  if (seed == NULL)
    return g_strdup ("invalid");
  s = anot_formula_seed_new_scope (seed, json_node_get_array (records), "Thai", FALSE);
  anot_expr_scope_set_limits (s, 200000, 20000, 1 << 20);
  anot_expr_set_fast_paths (fast);
  failed = anot_formula_seed_evaluate (seed, s, FALSE);
  anot_expr_set_fast_paths (TRUE);
  text = g_string_new (NULL);
  g_string_append_printf (text, "%u failed, %" G_GUINT64_FORMAT " steps:", failed,
                          anot_expr_scope_get_last_steps (s));
  for (guint i = 0; i < 2; i++)
    {
      const char *name = i == 0 ? "a" : "b";
      AnotExprValue *v = anot_expr_scope_lookup (s, name);
      g_autoptr(JsonNode) value = NULL;
      g_autofree char *value_text = NULL;

      /* Written out, an aliased list can be enormous. */
      if (v != NULL && anot_expr_value_expanded_items (*v, 20000) > 20000)
        {
          g_string_append (text, " (too large)");
          continue;
        }
      value = anot_expr_scope_get (s, name);
      value_text = value != NULL ? json_to_string (value, FALSE) : g_strdup ("unset");
      g_string_append_printf (text, " %s", value_text);
    }
  return g_string_free (text, FALSE);
}

/* The result of @expr in @s as text: its JSON or its error message. */
static char *
outcome (AnotExpr      *expr,
         AnotExprScope *s)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) result = anot_expr_evaluate (expr, s, &error);

  if (result == NULL)
    return g_strdup_printf ("error %d %s", error->code, error->message);
  return json_to_string (result, FALSE);
}

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput (const uint8_t *data,
                        size_t         size)
{
  g_autofree char *source = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(AnotExpr) expr = NULL;
  g_autoptr(JsonNode) result = NULL;

  if (scope == NULL)
    setup ();
  if (memchr (data, '\0', size) != NULL)
    return 0;
  source = g_strndup ((const char *) data, size);

  expr = anot_expr_parse (source, "fuzz", &error);
  if (expr == NULL)
    {
      if (error == NULL || error->domain != ANOT_ERROR || !g_utf8_validate (error->message, -1, NULL))
        __builtin_trap ();
      return 0;
    }
  (void) anot_expr_get_free_names (expr);

  {
    g_autofree char *plain = outcome (expr, plain_scope);
    guint64 plain_steps = anot_expr_scope_get_last_steps (plain_scope);
    g_autofree char *seeded = outcome (expr, seed_scope);

    if (strcmp (plain, seeded) != 0 || plain_steps != anot_expr_scope_get_last_steps (seed_scope))
      __builtin_trap ();
  }

  /* A seed's steps, the count steps among them counted in one pass, and
   * each run on its own by the general evaluator: the same values. */
  {
    g_autofree char *together = seed_outcome (source, TRUE);
    g_autofree char *alone = seed_outcome (source, FALSE);

    if (strcmp (together, alone) != 0)
      __builtin_trap ();
  }

  result = anot_expr_evaluate (expr, scope, &error);
  if (result == NULL)
    {
      if (error == NULL || error->domain != ANOT_ERROR ||
          error->code < ANOT_ERROR_EXPR_SYNTAX || error->code > ANOT_ERROR_EXPR_LIMIT ||
          !g_utf8_validate (error->message, -1, NULL))
        __builtin_trap ();
      return 0;
    }
  {
    g_autofree char *text = json_to_string (result, FALSE);

    if (!g_utf8_validate (text, -1, NULL))
      __builtin_trap ();
  }
  /* The same result into the scope, read back. */
  g_clear_error (&error);
  if (!anot_expr_evaluate_to_scope (expr, scope, "fuzz_result", &error))
    __builtin_trap ();
  anot_expr_scope_remove (scope, "fuzz_result");
  return 0;
}
