/* anot-method-example-listwise.c: an LLM method plugin that reads everything
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * "example-listwise" shows the model the request and every candidate as a
 * method may see it (name, stars, categories, address and city, attributes,
 * hours, a seeded sample of reviews with their stars, date, reviewer, votes,
 * the reviewer's profile and friends), in the words of the benchmark's
 * domain, and reads a ranking back from its answer.  It is the
 * second example of docs/writing-a-method-plugin.md ("LLM calls" and "What
 * a method can read"): every ```c block of that guide is found, line by
 * line, in this file or in anot-method-example.c (tests/check-doc-blocks.py),
 * the build compiles both with -Wall -Werror, and tests/python/test_c_plugin.py
 * runs this one against the fake LLM server.
 */
#include <anot/anot.h>

#define METHOD_NAME "example-listwise"

#define EXAMPLE_TYPE_LISTWISE (example_listwise_get_type ())
G_DECLARE_FINAL_TYPE (ExampleListwise, example_listwise, EXAMPLE, LISTWISE, GObject)

struct _ExampleListwise
{
  GObject parent_instance;
};

static void example_listwise_iface_init (AnotMethodInterface *iface);

G_DEFINE_DYNAMIC_TYPE_EXTENDED (ExampleListwise, example_listwise, G_TYPE_OBJECT,
                                G_TYPE_FLAG_FINAL,
                                G_IMPLEMENT_INTERFACE_DYNAMIC (ANOT_TYPE_METHOD,
                                                               example_listwise_iface_init))

/* One review as the prompt shows it.  Every string the data model hands out
 * is owned by the item or review (transfer none): nothing here is freed. */
static void
describe_review (GString           *out,
                 AnotReview        *review,
                 AnotMethodContext *context)
{
  const char *reviewer = anot_review_get_reviewer_name (review);  /* "" if unknown */
  const char *date = anot_review_get_date (review);               /* nullable */
  const char *since = anot_review_get_user_yelping_since (review); /* nullable */
  const char * const *friends = anot_method_context_get_friends (context, reviewer); /* nullable */

  g_string_append_printf (out, "  - %.1f stars, %s, by %s (%u friends); votes: %" G_GINT64_FORMAT
                          " useful, %" G_GINT64_FORMAT " funny, %" G_GINT64_FORMAT " cool",
                          anot_review_get_stars (review),
                          date != NULL ? date : "undated",
                          reviewer[0] != '\0' ? reviewer : "someone",
                          friends != NULL ? g_strv_length ((char **) friends) : 0,
                          anot_review_get_useful (review), anot_review_get_funny (review),
                          anot_review_get_cool (review));
  /* The reviewer's profile, from the benchmark's user records. */
  g_string_append_printf (out, "; the reviewer: %" G_GINT64_FORMAT " reviews since %s",
                          anot_review_get_user_review_count (review), since != NULL ? since : "?");
  if (anot_review_has_user_average_stars (review))
    g_string_append_printf (out, ", %.1f stars on average", anot_review_get_user_average_stars (review));
  g_string_append_printf (out, "\n    %s\n", anot_review_get_text (review));
}

/* One candidate: what it is, when it opens, and up to @n_reviews of its
 * reviews, chosen with @rand (seeded per request) when it has more. */
static void
describe_item (GString           *out,
               guint              number,
               AnotItem          *item,
               guint              n_reviews,
               GRand             *rand,
               AnotMethodContext *context)
{
  g_autofree char *categories = g_strjoinv (", ", (char **) anot_item_get_categories (item));
  const char *wifi = anot_item_get_attribute (item, "WiFi");   /* nullable, raw text */
  const char *sunday = anot_item_get_hours (item, "Sunday");  /* nullable */
  GPtrArray *reviews = anot_item_get_reviews (item);           /* transfer none */
  JsonObject *attributes = anot_item_get_attributes (item);    /* nullable */
  JsonObject *record = anot_item_get_record (item);            /* the whole record as in the file */
  const char *city = anot_item_get_city (item);                /* nullable */
  guint start;

  /* debug.log (ANOT_DEBUG=2) tells which item each number of the prompt was. */
  anot_method_context_debug (context, ANOT_DEBUG_LEVEL_VERBOSE, "prompt", "[%u] is %s",
                             number, anot_item_get_id (item));
  g_string_append_printf (out, "[%u] %s (%.1f stars; %s) at %s, %s\n", number,
                          anot_item_get_name (item), anot_item_get_stars (item), categories,
                          json_object_get_string_member_with_default (record, "address", "?"),
                          city != NULL ? city : "?");
  g_string_append_printf (out, "  WiFi: %s; Sunday: %s; %u attributes in all; %u reviews\n",
                          wifi != NULL ? wifi : "unknown", sunday != NULL ? sunday : "closed",
                          attributes != NULL ? json_object_get_size (attributes) : 0,
                          anot_item_get_n_reviews (item));

  start = reviews->len > n_reviews ? (guint) g_rand_int_range (rand, 0, (gint32) (reviews->len - n_reviews + 1)) : 0;
  for (guint i = start; i < reviews->len && i < start + n_reviews; i++)
    describe_review (out, anot_item_get_review (item, i), context);
}

static void
on_answer (GObject      *source,
           GAsyncResult *result,
           gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  GPtrArray *candidates = g_task_get_task_data (task);
  g_autoptr(AnotCompletion) completion = NULL;
  g_autoptr(AnotParseResult) parse = NULL;
  GError *error = NULL;

  completion = anot_method_context_complete_finish (ANOT_METHOD_CONTEXT (source), result, &error);
  if (completion == NULL)
    {
      g_task_return_error (task, error);
      return;
    }

  parse = anot_parse_ranking (anot_completion_get_text (completion),
                              candidates->len, candidates, ANOT_PARSE_FLAGS_NONE);
  g_task_return_pointer (task, anot_parse_result_to_ranking (parse), g_object_unref);
}

static void
example_listwise_rank_async (AnotMethod          *method,
                             AnotQuery           *query,
                             GPtrArray           *candidates,
                             guint                k,
                             AnotMethodContext   *context,
                             GCancellable        *cancellable,
                             GAsyncReadyCallback  callback,
                             gpointer             user_data)
{
  g_autoptr(GTask) task = g_task_new (method, cancellable, callback, user_data);
  g_autoptr(AnotMethodSettings) settings = anot_method_settings_new (METHOD_NAME);
  guint64 seed = anot_method_context_get_seed (context);
  guint32 seed_words[2] = { (guint32) seed, (guint32) (seed >> 32) };
  g_autoptr(GRand) rand = NULL;
  g_autoptr(GString) prompt = g_string_new (NULL);
  g_autofree char *system = NULL;
  const char *defense;
  /* What the items are ("restaurants" unless the benchmark says otherwise). */
  AnotDomain *domain = anot_method_context_get_domain (context);
  GError *error = NULL;
  guint n_reviews;

  g_task_set_source_tag (task, example_listwise_rank_async);
  if (!anot_method_settings_load_for_context (settings, context, &error) ||
      !anot_method_settings_get_uint (settings, context, "reviews", 2, 0, 20, &n_reviews, &error))
    {
      g_task_return_error (task, error);
      return;
    }

  /* The request's seed, not the clock: the same pool gets the same prompt
   * whatever order the requests run in. */
  rand = g_rand_new_with_seed_array (seed_words, G_N_ELEMENTS (seed_words));
  g_string_append_printf (prompt, "Request %s (%s): %s\nCandidates:\n",
                          anot_query_get_id (query),
                          anot_query_get_group (query) != NULL ? anot_query_get_group (query) : "no group",
                          anot_query_get_text (query));
  for (guint i = 0; i < candidates->len; i++)
    describe_item (prompt, i + 1, g_ptr_array_index (candidates, i), n_reviews, rand, context);
  g_string_append_printf (prompt, "Answer with the %u best candidate numbers, best first.", k);

  /* Defense mode (the method registers ANOT_PLUGIN_SUPPORTS_DEFENSE): the
   * defense text follows the instructions of every call that shows data. */
  defense = anot_method_context_get_defense_prompt (context);
  system = g_strdup_printf ("You rank %s for a customer.%s%s", anot_domain_get_items (domain),
                            defense != NULL ? "\n\n" : "", defense != NULL ? defense : "");

  g_task_set_task_data (task, g_ptr_array_ref (candidates), (GDestroyNotify) g_ptr_array_unref);
  anot_method_context_complete_async (context, ANOT_DEFAULT_ROLE, system, prompt->str,
                                      cancellable, on_answer, g_steal_pointer (&task));
}

static AnotRanking *
example_listwise_rank_finish (AnotMethod    *method,
                              GAsyncResult  *result,
                              GError       **error)
{
  g_return_val_if_fail (g_task_is_valid (result, method), NULL);

  return g_task_propagate_pointer (G_TASK (result), error);
}

static void
example_listwise_iface_init (AnotMethodInterface *iface)
{
  iface->rank_async = example_listwise_rank_async;
  iface->rank_finish = example_listwise_rank_finish;
}

static void
example_listwise_class_init (ExampleListwiseClass *klass)
{
}

static void
example_listwise_class_finalize (ExampleListwiseClass *klass)
{
}

static void
example_listwise_init (ExampleListwise *self)
{
}

G_MODULE_EXPORT void
g_io_module_load (GIOModule *module)
{
  example_listwise_register_type (G_TYPE_MODULE (module));
  anot_plugin_implement_with_flags (ANOT_METHOD_EXTENSION_POINT_NAME,
                                    EXAMPLE_TYPE_LISTWISE, METHOD_NAME,
                                    "Example plugin: listwise ranking by an LLM that sees every field of the candidates",
                                    ANOT_PLUGIN_SUPPORTS_DEFENSE);
  anot_plugin_declare_method_options (METHOD_NAME,
                                      anot_method_option_new_int ("reviews", 0, 20, 2,
                                                                  "reviews shown per candidate"),
                                      NULL);
  anot_plugin_declare_method_roles (METHOD_NAME, ANOT_DEFAULT_ROLE, NULL);
}

G_MODULE_EXPORT void
g_io_module_unload (GIOModule *module)
{
}
