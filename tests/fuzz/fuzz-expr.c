/* fuzz-expr.c: libFuzzer target for the expression language (AnotExpr):
 * the parser and the evaluator
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <anot/anot.h>

#include <stdint.h>
#include <string.h>

static AnotExprScope *scope;
/* The same records bound two ways: as anot_expr_scope_set() converts JSON
 * (plain dicts) and as a Formula Seed binds its extractions (records
 * sharing their keys, enum values interned); a formula must give the same
 * result, error and steps in both. */
static AnotExprScope *plain_scope;
static AnotExprScope *seed_scope;

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

  {
    g_autoptr(JsonNode) records = json_from_string (records_json, NULL);
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
