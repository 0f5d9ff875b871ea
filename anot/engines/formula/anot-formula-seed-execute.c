/* anot-formula-seed-execute.c: Phase 2 of General ANoT for one item
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "anot-formula-seed.h"
#include "anot-formula-seed-private.h"

#include <string.h>

#include "anot-error.h"

typedef struct {
  AnotFormulaSeed *seed;
  AnotMethodContext *context;
  AnotItem *item;
  guint n_reviews;
  guint n_relevant;
  guint pending;
  JsonObject **replies;      /* per relevant review, NULL until answered */
  GError **errors;           /* per relevant review */
  char **texts;              /* the raw answers */
  AnotReview **reviews;      /* the relevant reviews */
  guint *positions;          /* their positions among the item's reviews */
} ExecuteData;

static void
execute_data_free (gpointer data)
{
  ExecuteData *d = data;

  for (guint i = 0; i < d->n_relevant; i++)
    {
      g_clear_pointer (&d->replies[i], json_object_unref);
      g_clear_error (&d->errors[i]);
      g_free (d->texts[i]);
      g_clear_object (&d->reviews[i]);
    }
  g_free (d->replies);
  g_free (d->errors);
  g_free (d->texts);
  g_free (d->reviews);
  g_free (d->positions);
  anot_formula_seed_unref (d->seed);
  g_clear_object (&d->context);
  g_clear_object (&d->item);
  g_free (d);
}

/* The JSON object of an answer, tolerating prose and code fences around
 * it; NULL when there is none. */
static JsonObject *
object_from_answer (const char *text)
{
  const char *start = text != NULL ? strchr (text, '{') : NULL;
  const char *end = text != NULL ? strrchr (text, '}') : NULL;
  g_autoptr(JsonParser) parser = NULL;
  JsonNode *root;

  if (start == NULL || end == NULL || end < start)
    return NULL;
  parser = json_parser_new_immutable ();
  if (!json_parser_load_from_data (parser, start, end - start + 1, NULL))
    return NULL;
  root = json_parser_get_root (parser);
  if (root == NULL || !JSON_NODE_HOLDS_OBJECT (root))
    return NULL;
  return json_object_ref (json_node_get_object (root));
}

/* What the LLM calls gave for one item; the COMPUTE runs when the caller
 * asks for the result, as a tree or as text. */
typedef struct {
  AnotMethodContext *context;
  AnotItem *item;
  guint n_reviews;
  guint n_relevant;
  guint n_llm_failed;
  guint n_invalid;
  JsonArray *extractions;
  JsonArray *invalid;
  JsonArray *llm_errors;
} Outcome;

static void
outcome_free (gpointer data)
{
  Outcome *o = data;

  g_clear_object (&o->context);
  g_clear_object (&o->item);
  json_array_unref (o->extractions);
  json_array_unref (o->invalid);
  json_array_unref (o->llm_errors);
  g_free (o);
}

static void
finish (GTask *task)
{
  ExecuteData *d = g_task_get_task_data (task);
  Outcome *o = g_new0 (Outcome, 1);

  o->context = g_object_ref (d->context);
  o->item = g_object_ref (d->item);
  o->n_reviews = d->n_reviews;
  o->n_relevant = d->n_relevant;
  o->extractions = json_array_new ();
  o->invalid = json_array_new ();
  o->llm_errors = json_array_new ();
  /* A key refused or a model unknown would fail every other call too:
   * the item has no result, and the caller stops (anot_error_stops_run()). */
  for (guint i = 0; i < d->n_relevant; i++)
    if (anot_error_stops_run (d->errors[i]))
      {
        outcome_free (o);
        g_task_return_error (task, g_error_copy (d->errors[i]));
        return;
      }
  for (guint i = 0; i < d->n_relevant; i++)
    {
      AnotReview *review = d->reviews[i];
      guint bad = 0;

      if (d->errors[i] != NULL)
        {
          /* No answer: the review is left out of the extractions. */
          JsonObject *entry = json_object_new ();

          json_object_set_int_member (entry, "idx", d->positions[i]);
          json_object_set_string_member (entry, "error", d->errors[i]->message);
          /* An outage is not an answer: the item's outputs then lack a
           * review for a reason that is not the task's. */
          json_object_set_string_member (entry, "error_class",
                                         anot_error_is_infrastructure (d->errors[i]) ? "infrastructure"
                                                                                     : "method");
          json_array_add_object_element (o->llm_errors, entry);
          o->n_llm_failed++;
          continue;
        }
      json_array_add_object_element (o->extractions,
                                     anot_formula_seed_make_extraction (d->seed, d->replies[i], d->positions[i],
                                                                        anot_review_get_date (review),
                                                                        anot_review_get_stars (review),
                                                                        anot_review_get_useful (review), &bad));
      if (d->replies[i] == NULL || bad > 0)
        {
          JsonObject *entry = json_object_new ();

          json_object_set_int_member (entry, "idx", d->positions[i]);
          json_object_set_string_member (entry, "reply", d->texts[i] != NULL ? d->texts[i] : "");
          json_object_set_string_member (entry, "problem",
                                         d->replies[i] == NULL ? "not a JSON object"
                                                               : "fields missing or not of their declared type");
          json_object_set_int_member (entry, "n_fields", d->replies[i] == NULL
                                      ? anot_formula_seed_get_n_extraction_fields (d->seed) : bad);
          json_array_add_object_element (o->invalid, entry);
          o->n_invalid++;
        }
    }
  g_task_return_pointer (task, o, outcome_free);
}

static void
log_outcome (Outcome *o,
             guint    n_failed)
{
  anot_method_context_debug (o->context, ANOT_DEBUG_LEVEL_SUMMARY, "execute",
                             "%s: %u of %u reviews relevant, %u invalid answers, %u failed calls, %u failed steps",
                             anot_item_get_id (o->item), o->n_relevant, o->n_reviews, o->n_invalid,
                             o->n_llm_failed, n_failed);
}

typedef struct {
  GTask *task;
  guint index;
} Call;

static void
on_extraction (GObject      *source,
               GAsyncResult *result,
               gpointer      user_data)
{
  Call *call = user_data;
  GTask *task = call->task;
  ExecuteData *d = g_task_get_task_data (task);
  g_autoptr(AnotCompletion) completion = NULL;
  guint i = call->index;

  completion = anot_method_context_complete_finish (d->context, result, &d->errors[i]);
  if (completion != NULL)
    {
      d->texts[i] = g_strdup (anot_completion_get_text (completion));
      d->replies[i] = object_from_answer (d->texts[i]);
    }
  g_free (call);

  if (--d->pending > 0)
    {
      g_object_unref (task);
      return;
    }
  if (g_task_return_error_if_cancelled (task))
    {
      g_object_unref (task);
      return;
    }
  finish (task);
  g_object_unref (task);
}

/**
 * anot_formula_seed_execute_async:
 * @self: an #AnotFormulaSeed
 * @context: the method context whose router makes the LLM calls (role
 *   %ANOT_FORMULA_SEED_EXTRACT_ROLE, which falls back to the default role)
 * @item: the item
 * @cancellable: (nullable): a #GCancellable
 * @callback: called when the item is done
 * @user_data: data for @callback
 *
 * Phase 2 of General ANoT for one item: FILTER its reviews with
 * anot_formula_seed_matches_text(), extract the fields of every relevant
 * review with one LLM call each, all in flight at once (the prompt from
 * anot_formula_seed_format_prompt(), the answer asked for as a JSON object,
 * parsed and coerced by anot_formula_seed_make_extraction()), then COMPUTE
 * the DAG with anot_formula_seed_compute().
 *
 * An answer that holds no JSON object, or whose fields cannot all be
 * coerced, still counts (its fields take their defaults) and is recorded in
 * `invalid_replies`; a call that fails (after the backend's retries) leaves
 * its review out and is recorded in `llm_errors` with its class.  Neither
 * stops the item, except a call's error that would stop a run
 * (anot_error_stops_run()): the item then fails with it.
 */
void
anot_formula_seed_execute_async (AnotFormulaSeed     *self,
                                 AnotMethodContext   *context,
                                 AnotItem            *item,
                                 GCancellable        *cancellable,
                                 GAsyncReadyCallback  callback,
                                 gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;
  g_autoptr(GPtrArray) relevant = g_ptr_array_new ();
  g_autoptr(GArray) positions = g_array_new (FALSE, FALSE, sizeof (guint));
  ExecuteData *d;

  g_return_if_fail (self != NULL);
  g_return_if_fail (ANOT_IS_METHOD_CONTEXT (context));
  g_return_if_fail (ANOT_IS_ITEM (item));

  task = g_task_new (NULL, cancellable, callback, user_data);
  g_task_set_source_tag (task, anot_formula_seed_execute_async);

  d = g_new0 (ExecuteData, 1);
  d->seed = anot_formula_seed_ref (self);
  d->context = g_object_ref (context);
  d->item = g_object_ref (item);
  d->n_reviews = anot_item_get_n_reviews (item);
  for (guint i = 0; i < d->n_reviews; i++)
    {
      AnotReview *review = anot_item_get_review (item, i);
      const char *text = anot_review_get_text (review);

      if (text != NULL && anot_formula_seed_matches_text (self, text))
        {
          g_ptr_array_add (relevant, review);
          g_array_append_val (positions, i);
        }
    }
  d->n_relevant = relevant->len;
  d->replies = g_new0 (JsonObject *, MAX (1, d->n_relevant));
  d->errors = g_new0 (GError *, MAX (1, d->n_relevant));
  d->texts = g_new0 (char *, MAX (1, d->n_relevant));
  d->reviews = g_new0 (AnotReview *, MAX (1, d->n_relevant));
  d->positions = g_new0 (guint, MAX (1, d->n_relevant));
  for (guint i = 0; i < d->n_relevant; i++)
    {
      d->reviews[i] = g_object_ref (relevant->pdata[i]);
      d->positions[i] = g_array_index (positions, guint, i);
    }
  g_task_set_task_data (task, d, execute_data_free);

  if (d->n_relevant == 0)
    {
      finish (task);
      return;
    }

  d->pending = d->n_relevant;
  for (guint i = 0; i < d->n_relevant; i++)
    {
      AnotReview *review = d->reviews[i];
      g_autofree char *prompt = anot_formula_seed_format_prompt (self, anot_review_get_text (review),
                                                                 anot_review_get_date (review),
                                                                 anot_review_get_stars (review),
                                                                 anot_review_get_useful (review));
      /* The extraction call reads a review: in defense mode the defense
       * text is its system prompt (there is none otherwise). */
      g_autoptr(AnotChatRequest) request = anot_chat_request_new (anot_method_context_get_defense_prompt (context),
                                                                  prompt);
      Call *call = g_new0 (Call, 1);

      anot_chat_request_set_response_format (request, ANOT_RESPONSE_FORMAT_JSON_OBJECT);
      call->task = g_object_ref (task);
      call->index = i;
      anot_method_context_complete_request_async (context, ANOT_FORMULA_SEED_EXTRACT_ROLE, request,
                                                  cancellable, on_extraction, call);
    }
}

/**
 * anot_formula_seed_execute_finish:
 * @self: an #AnotFormulaSeed
 * @result: the #GAsyncResult of anot_formula_seed_execute_async()
 * @error: return location for a #GError
 *
 * The item's result: `item_id`, `n_reviews`, `n_relevant`, `n_llm_failed`,
 * `n_invalid`, `n_failed` (steps), `outputs`, `extractions`,
 * `invalid_replies` (`{idx, reply, problem, n_fields}`), `llm_errors`
 * (`{idx, error, error_class}`: `infrastructure` when the call failed for
 * the server, the network or the cache (anot_error_is_infrastructure()),
 * so the outputs lack that review for a reason that is not the task's;
 * else `method`) and `steps` (the trace of anot_formula_seed_compute()).
 * The errors are cancellation and an extraction call's error that stops a
 * run (anot_error_stops_run(): a refused key, an unknown model), which
 * every other call would get too.
 *
 * Returns: (transfer full): the result, or %NULL on error
 */
JsonObject *
anot_formula_seed_execute_finish (AnotFormulaSeed  *self,
                                  GAsyncResult     *result,
                                  GError          **error)
{
  Outcome *o;
  JsonObject *object;
  JsonObject *trace;
  guint n_failed;

  g_return_val_if_fail (self != NULL, NULL);
  g_return_val_if_fail (g_task_is_valid (result, NULL), NULL);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == anot_formula_seed_execute_async, NULL);

  o = g_task_propagate_pointer (G_TASK (result), error);
  if (o == NULL)
    return NULL;
  trace = anot_formula_seed_compute (self, o->extractions, anot_item_get_categories_string (o->item), FALSE, &n_failed);

  object = json_object_new ();
  json_object_set_string_member (object, "item_id", anot_item_get_id (o->item));
  json_object_set_int_member (object, "n_reviews", o->n_reviews);
  json_object_set_int_member (object, "n_relevant", o->n_relevant);
  json_object_set_int_member (object, "n_llm_failed", o->n_llm_failed);
  json_object_set_int_member (object, "n_invalid", o->n_invalid);
  json_object_set_int_member (object, "n_failed", n_failed);
  json_object_set_member (object, "outputs", json_node_copy (json_object_get_member (trace, "outputs")));
  json_object_set_array_member (object, "extractions", json_array_ref (o->extractions));
  json_object_set_array_member (object, "invalid_replies", json_array_ref (o->invalid));
  json_object_set_array_member (object, "llm_errors", json_array_ref (o->llm_errors));
  json_object_set_member (object, "steps", json_node_copy (json_object_get_member (trace, "steps")));
  json_object_unref (trace);

  log_outcome (o, n_failed);
  outcome_free (o);
  return object;
}

static void
add_array (AnotJsonWriter *writer,
           const char     *name,
           JsonArray      *array)
{
  g_autoptr(JsonNode) node = json_node_new (JSON_NODE_ARRAY);

  json_node_set_array (node, array);
  anot_json_writer_set_member_name (writer, name);
  anot_json_writer_add_value (writer, node);
}

/**
 * anot_formula_seed_execute_finish_text:
 * @self: an #AnotFormulaSeed
 * @result: the #GAsyncResult of anot_formula_seed_execute_async()
 * @length: (out) (optional): the length of the text returned
 * @error: return location for a #GError
 *
 * The item's result of anot_formula_seed_execute_finish() as compact JSON
 * text, the same members in the same order, its COMPUTE made by
 * anot_formula_seed_compute_text(): the extractions are read from text
 * and the trace is written as text, with no json-glib tree in between.
 * Call either this or anot_formula_seed_execute_finish(), once.
 *
 * Returns: (transfer full) (nullable): the result, or %NULL on error
 */
char *
anot_formula_seed_execute_finish_text (AnotFormulaSeed  *self,
                                       GAsyncResult     *result,
                                       gsize            *length,
                                       GError          **error)
{
  g_autoptr(AnotJsonWriter) input = NULL;
  g_autoptr(AnotJsonWriter) writer = NULL;
  g_autoptr(JsonNode) array = NULL;
  AnotFormulaSeedRun run;
  const char *input_text;
  gsize input_length;
  const char *text;
  gsize text_length;
  Outcome *o;
  gboolean ok;

  g_return_val_if_fail (self != NULL, NULL);
  g_return_val_if_fail (g_task_is_valid (result, NULL), NULL);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == anot_formula_seed_execute_async, NULL);

  o = g_task_propagate_pointer (G_TASK (result), error);
  if (o == NULL)
    return NULL;

  input = anot_json_writer_new ();
  array = json_node_new (JSON_NODE_ARRAY);
  json_node_set_array (array, o->extractions);
  anot_json_writer_add_value (input, array);
  input_text = anot_json_writer_get_text (input, &input_length);
  /* The text was just written as an array: it cannot fail to read. */
  ok = _anot_formula_seed_run_text (self, input_text, (gssize) input_length,
                                    anot_item_get_categories_string (o->item), FALSE, &run, NULL);
  g_assert (ok);

  writer = anot_json_writer_new ();
  anot_json_writer_begin_object (writer);
  anot_json_writer_set_member_name (writer, "item_id");
  anot_json_writer_add_string_value (writer, anot_item_get_id (o->item));
  anot_json_writer_set_member_name (writer, "n_reviews");
  anot_json_writer_add_int_value (writer, o->n_reviews);
  anot_json_writer_set_member_name (writer, "n_relevant");
  anot_json_writer_add_int_value (writer, o->n_relevant);
  anot_json_writer_set_member_name (writer, "n_llm_failed");
  anot_json_writer_add_int_value (writer, o->n_llm_failed);
  anot_json_writer_set_member_name (writer, "n_invalid");
  anot_json_writer_add_int_value (writer, o->n_invalid);
  anot_json_writer_set_member_name (writer, "n_failed");
  anot_json_writer_add_int_value (writer, run.n_failed);
  anot_json_writer_set_member_name (writer, "outputs");
  _anot_formula_seed_run_write_outputs (&run, writer);
  add_array (writer, "extractions", o->extractions);
  add_array (writer, "invalid_replies", o->invalid);
  add_array (writer, "llm_errors", o->llm_errors);
  anot_json_writer_set_member_name (writer, "steps");
  _anot_formula_seed_run_write_steps (&run, writer);
  anot_json_writer_end_object (writer);

  log_outcome (o, run.n_failed);
  _anot_formula_seed_run_clear (&run);
  outcome_free (o);

  text = anot_json_writer_get_text (writer, &text_length);
  if (length != NULL)
    *length = text_length;
  return g_strndup (text, text_length);
}
