/* fuzz-expr.c: libFuzzer target for the expression language (AnotExpr):
 * the parser and the evaluator
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <anot/anot.h>

#include <stdint.h>
#include <string.h>

static AnotExprScope *scope;

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
