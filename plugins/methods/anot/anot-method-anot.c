/* anot-method-anot.c: ANoT, Adaptive Network of Thought
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <anot/anot.h>

#include <string.h>

#include "anot-head.h"
#include "anot-llm-job.h"

/* Three phases (see README.md next to this file):
 *
 *  1. ReAct exploration (role "planner"): the model explores the dict
 *     context with the core's data tools, one call per round, until it
 *     writes a PLAN (N, the relevant attributes, one branch per item).
 *  2. Expansion (role "planner"): one call per item, all at once; each
 *     writes the LWT step that will score its item, with the item's actual
 *     values in it.
 *  3. Execution (role "scorer"): the LWT script (the item steps and an
 *     aggregation step) runs on the core's executor; item scores are read
 *     with the core's score parser and rank the items, score descending,
 *     position ascending.
 *
 * This follows the original's ANoT-explore variant (methods.md §6.2) with
 * the deviations listed in README.md. */

#define PROMPTS "/org/anot/methods/anot"

#define DEFAULT_MAX_ROUNDS 10
#define DEFAULT_MAX_REVIEWS 2
#define DEFAULT_REVIEW_CHARS 200
#define DEFAULT_TOOL_VALUE_LENGTH 200
#define TRACE_RESULT_CHARS 200
#define TRACE_OUTPUT_CHARS 100
#define FALLBACK_REPLY_CHARS 500

#define ANOT_TYPE_METHOD_ANOT (anot_method_anot_get_type ())
G_DECLARE_FINAL_TYPE (AnotMethodAnot, anot_method_anot, ANOT, METHOD_ANOT, GObject)

struct _AnotMethodAnot
{
  GObject parent_instance;
};

static void anot_method_anot_method_iface_init (AnotMethodInterface *iface);

G_DEFINE_DYNAMIC_TYPE_EXTENDED (AnotMethodAnot, anot_method_anot, G_TYPE_OBJECT,
                                G_TYPE_FLAG_FINAL,
                                G_IMPLEMENT_INTERFACE_DYNAMIC (ANOT_TYPE_METHOD,
                                                               anot_method_anot_method_iface_init))

typedef struct {
  guint     max_rounds;
  guint     max_reviews;
  guint     review_chars;
  guint     tool_value_length;
  gboolean  aggregate;
  gboolean  original_scores;
  gboolean  head;               /* anot.variant=head: ANoT-HEAD (anot-head.c) */
  char     *trace_file;
} Options;

typedef struct {
  gboolean   found;
  gint64     n_items;            /* -1: not given */
  GPtrArray *relevant;           /* char* */
  GPtrArray *branches;           /* char* "(i) = ..." */
} Plan;

/* What the trace says of one expansion ({item, source, error?}), kept as
 * this until the trace is written: a JSON object each, the 50 of every
 * request in phases 2 and 3 were most of a megabyte at -j 64. */
typedef struct {
  guint       item;
  const char *source;       /* static: see instruction_from_reply() */
  char       *error;
} Expansion;

static void
expansion_clear (gpointer data)
{
  g_free (((Expansion *) data)->error);
}

typedef struct {
  AnotMethodAnot    *self;
  AnotQuery         *request;
  GPtrArray         *candidates;
  guint              k;
  AnotMethodContext *context;
  GCancellable      *cancellable;
  Options            options;
  char              *system_prompt;
  const char        *request_text;

  JsonNode          *data;           /* {"items": {"1": ..., ...}} */
  GHashTable        *tools;          /* name -> AnotTool */
  GSource           *data_idle;      /* builds data early; holds no ref on the task */

  /* Phase 1 */
  char              *explore_prompt;
  GString           *history;
  guint              round;
  Plan               plan;
  JsonArray         *rounds_trace;
  gint64             phase1_start;
  double             phase1_ms;

  /* Phase 2 */
  char             **instructions;   /* per item */
  GArray            *expansions;     /* Expansion, in the order they answered */
  guint              pending;
  guint              next_expansion; /* the first item not yet sent */
  guint              expanding;      /* expansions out */
  gboolean           returned;       /* the task has returned (cancelled) */
  gint64             phase2_start;
  double             phase2_ms;

  /* Phase 3 */
  AnotLwtScript     *script;
  AnotLwtExecutor   *executor;
  gint64             phase3_start;
} Job;

/* Only phase 1's tools read the whole dict context: an expansion reads its
 * item's attributes (anot_data_context_dup_item_member()), and phase 3
 * needs the context only for steps that refer to it.  A request spends most of its time in phases 2 and 3 (at
 * -j 64, waiting its turn at a backlogged backend), and the context's 50
 * item objects held all along were the largest part of what grew with
 * N x -j, so it goes when the exploration ends. */
static void
release_data (Job *job)
{
  if (job->data_idle != NULL)
    {
      g_source_destroy (job->data_idle);
      g_clear_pointer (&job->data_idle, g_source_unref);
    }
  g_clear_pointer (&job->tools, g_hash_table_unref);
  g_clear_pointer (&job->data, json_node_unref);
}

static void
job_free (gpointer data)
{
  Job *job = data;

  release_data (job);
  g_clear_object (&job->self);
  g_clear_object (&job->request);
  g_clear_pointer (&job->candidates, g_ptr_array_unref);
  g_clear_object (&job->context);
  g_clear_object (&job->cancellable);
  g_free (job->options.trace_file);
  g_free (job->system_prompt);
  g_free (job->explore_prompt);
  if (job->history != NULL)
    g_string_free (job->history, TRUE);
  g_clear_pointer (&job->plan.relevant, g_ptr_array_unref);
  g_clear_pointer (&job->plan.branches, g_ptr_array_unref);
  g_clear_pointer (&job->rounds_trace, json_array_unref);
  g_strfreev (job->instructions);
  g_clear_pointer (&job->expansions, g_array_unref);
  g_clear_object (&job->script);
  g_clear_object (&job->executor);
  g_free (job);
}

static double
ms_since (gint64 start_us)
{
  return (g_get_monotonic_time () - start_us) / 1000.0;
}

/* The dict context of the candidates: megabytes of JSON for 50 items with
 * their reviews, so it is built while the first exploration call is out
 * (see phase1_start) or, at the latest, when something needs it. */
static JsonNode *
ensure_data (Job *job)
{
  if (job->data == NULL)
    {
      GHashTableIter iter;
      gpointer tool;

      job->data = anot_data_context_new (job->candidates);
      if (job->tools == NULL)
        return job->data;
      g_hash_table_iter_init (&iter, job->tools);
      while (g_hash_table_iter_next (&iter, NULL, &tool))
        anot_data_tool_set_data (tool, job->data);
    }
  return job->data;
}

static gboolean
build_data_idle (gpointer user_data)
{
  ensure_data (user_data);
  return G_SOURCE_REMOVE;
}

/* Whether a step of @script reads the dict context (`input`, `context` or
 * `items`): expansions are told the scorer does not see the data, and
 * almost never do. */
static gboolean
script_reads_data (AnotLwtScript *script)
{
  for (guint i = 0; i < anot_lwt_script_get_n_steps (script); i++)
    {
      g_auto(GStrv) names = anot_lwt_step_list_references (anot_lwt_script_get_step (script, i));

      for (guint n = 0; names[n] != NULL; n++)
        if (strcmp (names[n], "input") == 0 || strcmp (names[n], "context") == 0 ||
            strcmp (names[n], "items") == 0)
          return TRUE;
    }
  return FALSE;
}

/* ------------------------------------------------------------------------ *
 * Options
 * ------------------------------------------------------------------------ */

static gboolean
read_options (AnotMethodContext  *context,
              Options            *options,
              GError            **error)
{
  static const char * const scores[] = { "robust", "original", NULL };
  static const char * const variants[] = { "explore", "head", NULL };
  g_autoptr(AnotMethodSettings) s = anot_method_settings_new ("anot");
  gboolean compat = anot_method_context_get_compat (context) == ANOT_COMPAT_MODE_ORIGINAL;
  guint scores_index, variant_index;

  if (!anot_method_settings_load_for_context (s, context, error) ||
      !anot_method_settings_get_uint (s, context, "max_rounds", DEFAULT_MAX_ROUNDS, 1, G_MAXUINT,
                                      &options->max_rounds, error) ||
      !anot_method_settings_get_uint (s, context, "max_reviews", DEFAULT_MAX_REVIEWS, 0, G_MAXUINT,
                                      &options->max_reviews, error) ||
      !anot_method_settings_get_uint (s, context, "review_chars", DEFAULT_REVIEW_CHARS, 1,
                                      G_MAXUINT, &options->review_chars, error) ||
      !anot_method_settings_get_uint (s, context, "tool_value_length", DEFAULT_TOOL_VALUE_LENGTH, 1,
                                      G_MAXUINT, &options->tool_value_length, error) ||
      !anot_method_settings_get_boolean (s, context, "aggregate", TRUE, &options->aggregate, error) ||
      !anot_method_settings_get_choice (s, context, "scores", scores, 0, &scores_index, error) ||
      /* Every published ANoT figure came from ANoT-HEAD: the option is
       * declared fixed at head under --compat original. */
      !anot_method_settings_get_choice (s, context, "variant", variants, compat ? 1 : 0,
                                        &variant_index, error))
    return FALSE;
  options->head = variant_index == 1;

  options->original_scores = scores_index == 1;
  options->trace_file = anot_method_settings_get_string (s, context, "trace_file");
  return TRUE;
}

/* ------------------------------------------------------------------------ *
 * Debug and trace
 * ------------------------------------------------------------------------ */

static char *
preview (const char *text,
         glong       max_chars)
{
  glong length;
  g_autofree char *cut = NULL;

  if (text == NULL)
    return g_strdup ("");
  length = g_utf8_strlen (text, -1);
  if (length <= max_chars)
    return g_strdup (text);
  cut = g_utf8_substring (text, 0, max_chars);
  return g_strconcat (cut, "...", NULL);
}

/* Cut without an ellipsis, as the original's traces stored text. */
static char *
head (const char *text,
      glong       max_chars)
{
  glong length;

  if (text == NULL)
    return g_strdup ("");
  length = g_utf8_strlen (text, -1);
  return g_utf8_substring (text, 0, MIN (length, max_chars));
}

static JsonNode *
build_trace (Job           *job,
             AnotLwtResult *result,
             const double  *scores,
             GPtrArray     *score_notes,
             AnotRanking   *ranking,
             double         phase3_ms)
{
  g_autoptr(JsonBuilder) builder = json_builder_new ();

  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "request_id");
  json_builder_add_string_value (builder, anot_method_context_get_request_id (job->context));

  /* phase1 */
  json_builder_set_member_name (builder, "phase1");
  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "exploration_rounds");
  json_builder_add_value (builder, json_node_init_array (json_node_alloc (), job->rounds_trace));
  json_builder_set_member_name (builder, "plan");
  if (job->plan.found)
    {
      json_builder_begin_object (builder);
      json_builder_set_member_name (builder, "n_items");
      if (job->plan.n_items >= 0)
        json_builder_add_int_value (builder, job->plan.n_items);
      else
        json_builder_add_null_value (builder);
      json_builder_set_member_name (builder, "relevant_attr");
      if (job->plan.relevant->len > 0)
        json_builder_add_string_value (builder, g_ptr_array_index (job->plan.relevant, 0));
      else
        json_builder_add_null_value (builder);
      json_builder_set_member_name (builder, "relevant_attrs");
      json_builder_begin_array (builder);
      for (guint i = 0; i < job->plan.relevant->len; i++)
        json_builder_add_string_value (builder, g_ptr_array_index (job->plan.relevant, i));
      json_builder_end_array (builder);
      json_builder_set_member_name (builder, "n_branches");
      json_builder_add_int_value (builder, job->plan.branches->len);
      json_builder_end_object (builder);
    }
  else
    json_builder_add_null_value (builder);
  json_builder_set_member_name (builder, "latency_ms");
  json_builder_add_double_value (builder, job->phase1_ms);
  json_builder_end_object (builder);

  /* phase2 */
  json_builder_set_member_name (builder, "phase2");
  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "expanded_lwt");
  json_builder_begin_array (builder);
  for (guint i = 0; i < anot_lwt_script_get_n_steps (job->script); i++)
    {
      g_autofree char *line = anot_lwt_step_to_string (anot_lwt_script_get_step (job->script, i));

      json_builder_add_string_value (builder, line);
    }
  json_builder_end_array (builder);
  json_builder_set_member_name (builder, "expansions");
  json_builder_begin_array (builder);
  for (guint i = 0; i < job->expansions->len; i++)
    {
      Expansion *expansion = &g_array_index (job->expansions, Expansion, i);

      json_builder_begin_object (builder);
      json_builder_set_member_name (builder, "item");
      json_builder_add_int_value (builder, expansion->item);
      json_builder_set_member_name (builder, "source");
      json_builder_add_string_value (builder, expansion->source);
      if (expansion->error != NULL)
        {
          json_builder_set_member_name (builder, "error");
          json_builder_add_string_value (builder, expansion->error);
        }
      json_builder_end_object (builder);
    }
  json_builder_end_array (builder);
  json_builder_set_member_name (builder, "latency_ms");
  json_builder_add_double_value (builder, job->phase2_ms);
  json_builder_end_object (builder);

  /* phase3 */
  json_builder_set_member_name (builder, "phase3");
  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "step_results");
  json_builder_add_value (builder, anot_lwt_result_to_json (result, TRACE_OUTPUT_CHARS));
  json_builder_set_member_name (builder, "n_layers");
  json_builder_add_int_value (builder, anot_lwt_script_get_n_layers (job->script));
  json_builder_set_member_name (builder, "max_in_flight");
  json_builder_add_int_value (builder, anot_lwt_result_get_max_in_flight (result));
  json_builder_set_member_name (builder, "final_scores");
  json_builder_begin_array (builder);
  for (guint i = 0; i < job->candidates->len; i++)
    json_builder_add_double_value (builder, scores[i]);
  json_builder_end_array (builder);
  json_builder_set_member_name (builder, "score_failures");
  json_builder_begin_object (builder);
  for (guint i = 0; i < job->candidates->len; i++)
    if (g_ptr_array_index (score_notes, i) != NULL)
      {
        char key[16];

        g_snprintf (key, sizeof key, "%u", i + 1);
        json_builder_set_member_name (builder, key);
        json_builder_add_string_value (builder, g_ptr_array_index (score_notes, i));
      }
  json_builder_end_object (builder);
  json_builder_set_member_name (builder, "top_k");
  json_builder_begin_array (builder);
  for (guint r = 0; r < anot_ranking_get_length (ranking) && r < job->k; r++)
    json_builder_add_int_value (builder, anot_ranking_get_index (ranking, r) + 1);
  json_builder_end_array (builder);
  json_builder_set_member_name (builder, "latency_ms");
  json_builder_add_double_value (builder, phase3_ms);
  json_builder_end_object (builder);

  json_builder_end_object (builder);
  return json_builder_get_root (builder);
}

/* Appends the trace row to anot.trace_file, if set.  A failure to write is
 * logged, not fatal: the ranking is still good. */
static void
write_trace_row (Job      *job,
                 JsonNode *trace)
{
  g_autofree char *line = NULL;
  g_autoptr(GFile) file = NULL;
  g_autoptr(GFileOutputStream) stream = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *row = NULL;

  if (job->options.trace_file == NULL)
    return;

  line = json_to_string (trace, FALSE);
  row = g_strconcat (line, "\n", NULL);
  file = g_file_new_for_path (job->options.trace_file);
  stream = g_file_append_to (file, G_FILE_CREATE_NONE, NULL, &error);
  if (stream == NULL ||
      !g_output_stream_write_all (G_OUTPUT_STREAM (stream), row, strlen (row), NULL, NULL, &error) ||
      !g_output_stream_close (G_OUTPUT_STREAM (stream), NULL, &error))
    anot_method_context_debug (job->context, ANOT_DEBUG_LEVEL_SUMMARY, "P3",
                               "Cannot write the trace to %s: %s", job->options.trace_file,
                               error->message);
}

/* ------------------------------------------------------------------------ *
 * Phase 3: execution and ranking
 * ------------------------------------------------------------------------ */

/* The one place item outputs become scores. */
static double
item_score (Job         *job,
            const char  *output,
            char       **out_note)
{
  g_autoptr(AnotParseResult) parsed = NULL;

  if (job->options.original_scores)
    return anot_parse_score_compat (output);

  parsed = anot_parse_score (output, 0, 10);
  if (anot_parse_result_get_ok (parsed))
    return anot_parse_result_get_score (parsed);

  *out_note = g_strdup (anot_parse_result_get_message (parsed));
  return 0;
}

static void
on_executed (GObject      *source,
             GAsyncResult *res,
             gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  Job *job = g_task_get_task_data (task);
  g_autoptr(GError) error = NULL;
  g_autoptr(AnotLwtResult) result = NULL;
  g_autoptr(AnotRanking) ranking = NULL;
  g_autoptr(JsonNode) trace = NULL;
  g_autoptr(GPtrArray) notes = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GString) summary = g_string_new (NULL);
  g_autoptr(GString) top = g_string_new (NULL);
  g_autofree double *scores = NULL;
  double phase3_ms;

  result = anot_lwt_executor_execute_finish (ANOT_LWT_EXECUTOR (source), res, &error);
  if (result == NULL)
    {
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }
  phase3_ms = ms_since (job->phase3_start);

  scores = g_new0 (double, job->candidates->len);
  for (guint i = 0; i < job->candidates->len; i++)
    {
      char id[16];
      const char *output;
      char *note = NULL;

      g_snprintf (id, sizeof id, "%u", i + 1);
      output = anot_lwt_result_get_output (result, id);
      if (anot_lwt_result_get_error (result, id) != NULL)
        note = g_strdup_printf ("the step failed: %s", anot_lwt_result_get_error (result, id));
      else
        scores[i] = item_score (job, output ? output : "", &note);
      g_ptr_array_add (notes, note);

      if (anot_method_context_get_debug_level (job->context) >= ANOT_DEBUG_LEVEL_VERBOSE)
        {
          g_autofree char *cut = head (output, 20);

          anot_method_context_debug (job->context, ANOT_DEBUG_LEVEL_VERBOSE, "P3",
                                     "Step %s: score=%s", id, cut);
        }
    }

  /* Score descending, position ascending. */
  ranking = anot_ranking_new_from_scores (scores, job->candidates->len);

  for (guint r = 0; r < anot_ranking_get_length (ranking); r++)
    {
      guint index = anot_ranking_get_index (ranking, r);

      if (r < 10)
        g_string_append_printf (summary, "%s('%s', %g)", r ? ", " : "",
                                anot_item_get_name (g_ptr_array_index (job->candidates, index)),
                                scores[index]);
      if (r < job->k)
        g_string_append_printf (top, "%s%u", r ? "," : "", index + 1);
    }
  anot_method_context_debug (job->context, ANOT_DEBUG_LEVEL_SUMMARY, "P3",
                             "Final scores: [%s%s]", summary->str,
                             anot_ranking_get_length (ranking) > 10 ? ", ..." : "");
  anot_method_context_debug (job->context, ANOT_DEBUG_LEVEL_SUMMARY, "P3",
                             "Final ranking: %s", top->str);

  trace = build_trace (job, result, scores, notes, ranking, phase3_ms);
  anot_ranking_set_trace (ranking, trace);
  write_trace_row (job, trace);

  g_task_return_pointer (task, g_steal_pointer (&ranking), g_object_unref);
}

static void
phase3_start (GTask *task)
{
  Job *job = g_task_get_task_data (task);
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) query = NULL;

  job->phase2_ms = ms_since (job->phase2_start);
  anot_method_context_debug (job->context, ANOT_DEBUG_LEVEL_SUMMARY, "P2",
                             "Expanded %u items in %.0f ms", job->candidates->len, job->phase2_ms);

  job->script = anot_lwt_script_new ();
  for (guint i = 0; i < job->candidates->len; i++)
    {
      char id[16];

      g_snprintf (id, sizeof id, "%u", i + 1);
      if (anot_lwt_script_add_step (job->script, id, job->instructions[i], &error) == NULL)
        {
          g_task_return_error (task, g_steal_pointer (&error));
          return;
        }
    }
  /* The steps have their own copies. */
  g_clear_pointer (&job->instructions, g_strfreev);

  if (job->options.aggregate)
    {
      g_autoptr(GString) agg = g_string_new ("Scores:");

      for (guint i = 0; i < job->candidates->len; i++)
        g_string_append_printf (agg, "%s item %u: {(%u)}", i ? "," : "", i + 1, i + 1);
      g_string_append_printf (agg, ". Return the numbers of the top-%u items, highest score "
                              "first, comma-separated.", job->k);
      if (anot_lwt_script_add_step (job->script, "final", agg->str, &error) == NULL)
        {
          g_task_return_error (task, g_steal_pointer (&error));
          return;
        }
      anot_method_context_debug (job->context, ANOT_DEBUG_LEVEL_VERBOSE, "P2",
                                 "Aggregation: (final)=LLM(\"%s\")", agg->str);
    }

  query = json_node_init_string (json_node_alloc (), job->request_text);
  job->executor = anot_lwt_executor_new (job->context);
  anot_lwt_executor_set_role (job->executor, "scorer");
  anot_lwt_executor_set_system_prompt (job->executor, job->system_prompt);
  anot_lwt_executor_set_debug_phase (job->executor, "P3");
  anot_lwt_executor_set_variable (job->executor, "query", query);
  if (script_reads_data (job->script))
    {
      JsonObject *root = json_node_get_object (ensure_data (job));

      anot_lwt_executor_set_variable (job->executor, "input", job->data);
      anot_lwt_executor_set_variable (job->executor, "context", json_object_get_member (root, "items"));
      anot_lwt_executor_set_variable (job->executor, "items", json_object_get_member (root, "items"));
    }

  job->phase3_start = g_get_monotonic_time ();
  anot_lwt_executor_execute_async (job->executor, job->script, job->cancellable, on_executed,
                                   g_object_ref (task));
}

/* ------------------------------------------------------------------------ *
 * Phase 2: one LWT step per item
 * ------------------------------------------------------------------------ */

static char *
one_line (const char *text)
{
  g_autoptr(GString) out = g_string_new (NULL);

  for (const char *p = text; *p != '\0'; p++)
    g_string_append_c (out, (*p == '\n' || *p == '\r') ? ' ' : *p);
  return g_strstrip (g_string_free (g_steal_pointer (&out), FALSE));
}

/* What the original did with an expansion reply (methods.md §6.2): the
 * item's step if the reply has one, else any step, else the reply itself
 * when it is short and talks about a score, else a generic step. */
static char *
instruction_from_reply (Job         *job,
                        guint        index,
                        const char  *reply,
                        const char **out_source)
{
  g_autoptr(AnotLwtScript) script = NULL;
  AnotItem *item = g_ptr_array_index (job->candidates, index);
  char id[16];

  g_snprintf (id, sizeof id, "%u", index + 1);

  if (reply != NULL)
    script = anot_lwt_script_parse (reply, ANOT_LWT_PARSE_FLAGS_LENIENT, NULL);
  if (script != NULL)
    {
      AnotLwtStep *step = anot_lwt_script_lookup_step (script, id);

      *out_source = step != NULL ? "step" : "other_step";
      if (step == NULL)
        step = anot_lwt_script_get_step (script, 0);
      return one_line (anot_lwt_step_get_instruction (step));
    }

  if (reply != NULL && g_utf8_strlen (reply, -1) < FALLBACK_REPLY_CHARS &&
      strstr (reply, "score") != NULL)
    {
      g_autofree char *line = one_line (reply);

      *out_source = "reply";
      g_strdelimit (line, "\"", '\'');
      return g_strdup_printf ("%s. Output: <score>", line);
    }

  *out_source = "fallback";
  {
    glong length = g_utf8_strlen (job->request_text, -1);
    g_autofree char *request = g_utf8_substring (job->request_text, 0, MIN (length, 100));

    return g_strdup_printf ("Rate %s for: %s. Score 0-10. Output: <score>",
                            anot_item_get_name (item) ? anot_item_get_name (item) : id, request);
  }
}

typedef struct {
  GTask *task;
  guint  index;
} ExpandCall;

static char *expand_prompt (Job   *job,
                            guint  index);
static void on_expanded    (GObject      *source,
                            GAsyncResult *res,
                            gpointer      user_data);

/* Sends the next expansions, in item order.  All of them at once unless
 * the backend already has a round of calls waiting: then the prompts wait
 * unwritten until one of this request's expansions comes back (at -j 64,
 * 50 written prompts a request queued behind the backend's slots were a
 * fifth of the run's heap).  One is always out, so the request moves on
 * whatever the others do. */
static void
expand_more (GTask *task)
{
  Job *job = g_task_get_task_data (task);

  while (!job->returned && job->next_expansion < job->candidates->len &&
         (job->expanding == 0 || !anot_method_context_is_backlogged (job->context, "planner")))
    {
      guint i = job->next_expansion++;
      g_autofree char *prompt = expand_prompt (job, i);
      ExpandCall *call = g_new0 (ExpandCall, 1);

      call->task = g_object_ref (task);
      call->index = i;
      job->expanding++;
      anot_method_context_complete_async (job->context, "planner", job->system_prompt, prompt,
                                          job->cancellable, on_expanded, call);
    }
}

static void
on_expanded (GObject      *source,
             GAsyncResult *res,
             gpointer      user_data)
{
  ExpandCall *call = user_data;
  g_autoptr(GTask) task = call->task;
  Job *job = g_task_get_task_data (task);
  guint index = call->index;
  g_autoptr(GError) error = NULL;
  g_autoptr(AnotCompletion) completion = NULL;
  AnotItem *item = g_ptr_array_index (job->candidates, index);
  const char *source_kind = NULL;
  Expansion expansion;

  g_free (call);

  completion = anot_method_context_complete_finish (ANOT_METHOD_CONTEXT (source), res, &error);
  job->pending--;
  job->expanding--;

  if (job->returned)
    return;
  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    {
      /* The first cancelled call returns; the others only count down. */
      job->returned = TRUE;
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }

  job->instructions[index] = instruction_from_reply (job, index,
                                                     completion ? anot_completion_get_text (completion) : NULL,
                                                     &source_kind);

  expansion.item = index + 1;
  expansion.source = source_kind;
  expansion.error = error != NULL ? g_strdup (error->message) : NULL;
  g_array_append_val (job->expansions, expansion);
  if (error != NULL)
    {
      anot_method_context_debug (job->context, ANOT_DEBUG_LEVEL_SUMMARY, "P2",
                                 "Item %u (%s): expansion failed, using a generic step: %s",
                                 index + 1, anot_item_get_name (item), error->message);
    }
  else if (strcmp (source_kind, "step") != 0)
    anot_method_context_debug (job->context, ANOT_DEBUG_LEVEL_SUMMARY, "P2",
                               "Item %u (%s): no step (%u)=LLM(...) in the reply; using %s",
                               index + 1, anot_item_get_name (item), index + 1,
                               strcmp (source_kind, "other_step") == 0 ? "its other step"
                               : strcmp (source_kind, "reply") == 0 ? "the reply"
                               : "a generic step");

  if (anot_method_context_get_debug_level (job->context) >= ANOT_DEBUG_LEVEL_VERBOSE)
    {
      g_autofree char *cut = preview (job->instructions[index], 80);

      anot_method_context_debug (job->context, ANOT_DEBUG_LEVEL_VERBOSE, "P2",
                                 "Item %u (%s): (%u)=LLM(\"%s\")", index + 1,
                                 anot_item_get_name (item), index + 1, cut);
    }
  if (completion != NULL)
    anot_method_context_debug (job->context, ANOT_DEBUG_LEVEL_FULL, "P2",
                               "Expand item %u (%s) response:\n%s", index + 1,
                               anot_item_get_name (item), anot_completion_get_text (completion));

  if (job->pending == 0)
    phase3_start (task);
  else
    expand_more (task);
}

static char *
format_hours (AnotItem *item)
{
  static const char * const days[] = {
    "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday",
  };
  g_autoptr(GString) out = g_string_new (NULL);

  for (guint d = 0; d < G_N_ELEMENTS (days); d++)
    {
      const char *hours = anot_item_get_hours (item, days[d]);

      if (hours != NULL)
        g_string_append_printf (out, "%s%s %s", out->len ? ", " : "", days[d], hours);
    }
  if (out->len == 0)
    g_string_append (out, "not listed");
  return g_string_free (g_steal_pointer (&out), FALSE);
}

static char *
expand_prompt (Job   *job,
               guint  index)
{
  AnotItem *item = g_ptr_array_index (job->candidates, index);
  /* The node the dict contexts of the item share (see release_data()). */
  g_autoptr(JsonNode) attributes = anot_data_context_dup_item_member (item, "attributes");
  g_autofree char *attributes_text = NULL;
  g_autofree char *hours = format_hours (item);
  g_autofree char *relevant = NULL;
  g_autofree char *index_text = NULL;
  g_autoptr(GString) reviews = g_string_new (NULL);
  guint n_reviews = anot_item_get_n_reviews (item);

  attributes_text = attributes != NULL ? json_to_string (attributes, TRUE) : g_strdup ("{}");

  for (guint r = 0; r < n_reviews && r < job->options.max_reviews; r++)
    {
      g_autofree char *text = preview (anot_review_get_text (anot_item_get_review (item, r)),
                                       job->options.review_chars);

      g_strdelimit (text, "\n\r", ' ');
      g_string_append_printf (reviews, "- %s\n", text);
    }
  if (reviews->len == 0)
    g_string_append (reviews, "(no reviews)\n");
  g_string_truncate (reviews, reviews->len - 1);

  if (job->plan.found && job->plan.relevant->len > 0)
    {
      g_ptr_array_add (job->plan.relevant, NULL);
      relevant = g_strjoinv (", ", (char **) job->plan.relevant->pdata);
      g_ptr_array_remove_index (job->plan.relevant, job->plan.relevant->len - 1);
    }
  else
    relevant = g_strdup ("none identified; judge from the request");

  index_text = g_strdup_printf ("%u", index + 1);
  return anot_llm_prompt (job->context, PROMPTS "/expand.txt",
                          "request", job->request_text,
                          "relevant", relevant,
                          "index", index_text,
                          "name", anot_item_get_name (item) ? anot_item_get_name (item) : index_text,
                          "categories", anot_item_get_categories_string (item)
                                        ? anot_item_get_categories_string (item) : "",
                          "hours", hours,
                          "attributes", attributes_text,
                          "reviews", reviews->str,
                          NULL);
}

static void
phase2_start (GTask *task)
{
  Job *job = g_task_get_task_data (task);

  job->phase1_ms = ms_since (job->phase1_start);
  job->phase2_start = g_get_monotonic_time ();
  release_data (job);
  /* Nor are the exploration's prompt and conversation read again. */
  g_clear_pointer (&job->explore_prompt, g_free);
  if (job->history != NULL)
    g_string_free (g_steal_pointer (&job->history), TRUE);
  job->instructions = g_new0 (char *, job->candidates->len + 1);
  job->expansions = g_array_new (FALSE, FALSE, sizeof (Expansion));
  g_array_set_clear_func (job->expansions, expansion_clear);
  job->pending = job->candidates->len;

  anot_method_context_debug (job->context, ANOT_DEBUG_LEVEL_SUMMARY, "P2",
                             "Expanding %u items (parallel)...", job->candidates->len);

  job->next_expansion = 0;
  job->expanding = 0;
  expand_more (task);
}

/* ------------------------------------------------------------------------ *
 * Phase 1: ReAct exploration
 * ------------------------------------------------------------------------ */

static void
parse_plan (Job        *job,
            const char *reply)
{
  const char *text = strstr (reply, "PLAN:");
  g_autoptr(GRegex) n_re = g_regex_new ("N\\s*=\\s*(\\d+)", 0, 0, NULL);
  g_autoptr(GRegex) attr_re = g_regex_new ("RELEVANT_ATTR[A-Z]*\\s*=\\s*([^\\n]*)", 0, 0, NULL);
  g_autoptr(GRegex) branch_re = g_regex_new ("^\\s*\\((\\w+)\\)\\s*=\\s*(.+?)\\s*$",
                                             G_REGEX_MULTILINE, 0, NULL);
  g_autoptr(GMatchInfo) info = NULL;

  job->plan.found = TRUE;
  job->plan.n_items = -1;
  text += strlen ("PLAN:");

  if (g_regex_match (n_re, text, 0, &info))
    {
      g_autofree char *n = g_match_info_fetch (info, 1);

      job->plan.n_items = g_ascii_strtoll (n, NULL, 10);
    }
  g_clear_pointer (&info, g_match_info_free);

  if (g_regex_match (attr_re, text, 0, &info))
    {
      g_autofree char *list = g_match_info_fetch (info, 1);
      g_auto(GStrv) names = g_strsplit_set (list, ",;", -1);

      for (guint i = 0; names[i] != NULL; i++)
        {
          char *name = g_strstrip (names[i]);

          g_strdelimit (name, "`'\"[]", ' ');
          name = g_strstrip (name);
          if (name[0] != '\0' && g_ascii_strcasecmp (name, "NONE") != 0)
            g_ptr_array_add (job->plan.relevant, g_strdup (name));
        }
    }
  g_clear_pointer (&info, g_match_info_free);

  g_regex_match (branch_re, text, 0, &info);
  while (g_match_info_matches (info))
    {
      g_autofree char *line = g_match_info_fetch (info, 0);

      g_ptr_array_add (job->plan.branches, g_strstrip (g_steal_pointer (&line)));
      g_match_info_next (info, NULL);
    }
}

/* ACTION: tool("path"), tool('path') or tool(path).  The path runs to the
 * quote that closes it before ")", so quoted keys inside it survive. */
static gboolean
parse_action (const char  *reply,
              char       **out_tool,
              char       **out_path)
{
  const char *p = strstr (reply, "ACTION:");
  const char *name_start;
  const char *close;
  char quote;

  if (p == NULL)
    return FALSE;
  p += strlen ("ACTION:");
  while (*p == ' ' || *p == '\t')
    p++;
  name_start = p;
  while (g_ascii_isalnum (*p) || *p == '_')
    p++;
  if (p == name_start)
    return FALSE;
  *out_tool = g_strndup (name_start, p - name_start);
  while (*p == ' ' || *p == '\t')
    p++;
  if (*p != '(')
    {
      g_clear_pointer (out_tool, g_free);
      return FALSE;
    }
  p++;
  while (*p == ' ' || *p == '\t')
    p++;

  quote = (*p == '"' || *p == '\'') ? *p : '\0';
  if (quote != '\0')
    {
      const char *start = ++p;

      for (close = NULL; *p != '\0' && *p != '\n'; p++)
        {
          const char *after = p + 1;

          if (*p == '\\' && p[1] != '\0')
            {
              p++;
              continue;
            }
          while (*after == ' ' || *after == '\t')
            after++;
          if (*p == quote && *after == ')')
            {
              close = p;
              break;
            }
        }
      if (close == NULL)
        close = p;
      *out_path = g_strndup (start, close - start);
      /* The path language reads the escapes; unescape only \" and \'. */
      {
        g_autoptr(GString) path = g_string_new (NULL);

        for (const char *c = *out_path; *c != '\0'; c++)
          {
            if (c[0] == '\\' && (c[1] == quote))
              c++;
            g_string_append_c (path, *c);
          }
        g_free (*out_path);
        *out_path = g_string_free (g_steal_pointer (&path), FALSE);
      }
      return TRUE;
    }

  close = strchr (p, ')');
  if (close == NULL)
    close = p + strcspn (p, "\n");
  *out_path = g_strstrip (g_strndup (p, close - p));
  return TRUE;
}

static char *
run_tool (Job        *job,
          const char *tool_name,
          const char *path)
{
  AnotTool *tool = g_hash_table_lookup (job->tools, tool_name);
  g_autoptr(JsonNode) args = NULL;

  ensure_data (job);
  g_autoptr(JsonNode) result = NULL;
  g_autoptr(GError) error = NULL;

  if (tool == NULL)
    {
      g_autoptr(GList) names = g_hash_table_get_keys (job->tools);
      g_autoptr(GString) list = g_string_new (NULL);

      names = g_list_sort (names, (GCompareFunc) strcmp);
      for (GList *l = names; l != NULL; l = l->next)
        g_string_append_printf (list, "%s%s", list->len ? ", " : "", (char *) l->data);
      return g_strdup_printf ("Error: unknown tool '%s'; the tools are %s", tool_name, list->str);
    }

  args = json_node_init_string (json_node_alloc (), path);
  result = anot_tool_invoke (tool, args, &error);
  if (result == NULL)
    return g_strdup_printf ("Error: %s", error->message);
  return anot_tool_result_to_text (result);
}

static void explore_next_round (GTask *task);

static void
on_round_done (GObject      *source,
               GAsyncResult *res,
               gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  Job *job = g_task_get_task_data (task);
  g_autoptr(GError) error = NULL;
  g_autoptr(AnotCompletion) completion = NULL;
  g_autofree char *tool = NULL;
  g_autofree char *path = NULL;
  const char *reply;
  JsonObject *entry;

  completion = anot_method_context_complete_finish (ANOT_METHOD_CONTEXT (source), res, &error);
  if (completion == NULL)
    {
      g_prefix_error (&error, "ANoT exploration, round %u: ", job->round);
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }
  reply = anot_completion_get_text (completion) ? anot_completion_get_text (completion) : "";
  anot_method_context_debug (job->context, ANOT_DEBUG_LEVEL_FULL, "P1",
                             "Round %u response:\n%s", job->round, reply);

  entry = json_object_new ();
  json_object_set_int_member (entry, "round", job->round);
  json_object_set_double_member (entry, "latency_ms", anot_completion_get_latency_ms (completion));
  json_object_set_int_member (entry, "prompt_tokens", anot_completion_get_prompt_tokens (completion));
  json_object_set_int_member (entry, "completion_tokens",
                              anot_completion_get_completion_tokens (completion));
  json_array_add_object_element (job->rounds_trace, entry);

  if (strstr (reply, "PLAN:") != NULL)
    {
      parse_plan (job, reply);
      json_object_set_string_member (entry, "action", "PLAN");
      {
        g_autofree char *attrs = NULL;

        g_ptr_array_add (job->plan.relevant, NULL);
        attrs = g_strjoinv (",", (char **) job->plan.relevant->pdata);
        g_ptr_array_remove_index (job->plan.relevant, job->plan.relevant->len - 1);
        anot_method_context_debug (job->context, ANOT_DEBUG_LEVEL_SUMMARY, "P1",
                                   "Plan: attr=%s, branches=%u", attrs[0] ? attrs : "NONE",
                                   job->plan.branches->len);
      }
      phase2_start (task);
      return;
    }

  g_string_append_printf (job->history, "ASSISTANT: %s\n", reply);
  if (parse_action (reply, &tool, &path))
    {
      g_autofree char *result = run_tool (job, tool, path);
      g_autofree char *action = g_strdup_printf ("%s(\"%s\")", tool, path);
      g_autofree char *stored = head (result, TRACE_RESULT_CHARS);

      json_object_set_string_member (entry, "action", action);
      json_object_set_string_member (entry, "result", stored);
      g_string_append_printf (job->history, "RESULT: %s\n", result);
      if (anot_method_context_get_debug_level (job->context) >= ANOT_DEBUG_LEVEL_VERBOSE)
        {
          g_autofree char *cut = preview (result, 100);

          anot_method_context_debug (job->context, ANOT_DEBUG_LEVEL_VERBOSE, "P1",
                                     "Round %u: %s → %s", job->round, action, cut);
        }
    }
  else
    {
      json_object_set_null_member (entry, "action");
      g_string_append (job->history, "USER: Please output your PLAN now.\n");
      anot_method_context_debug (job->context, ANOT_DEBUG_LEVEL_VERBOSE, "P1",
                                 "Round %u: no ACTION and no PLAN; asking for the plan", job->round);
    }

  if (job->round >= job->options.max_rounds)
    {
      anot_method_context_debug (job->context, ANOT_DEBUG_LEVEL_SUMMARY, "P1",
                                 "No plan after %u rounds; expanding every item without one",
                                 job->round);
      phase2_start (task);
      return;
    }
  explore_next_round (task);
}

static void
explore_next_round (GTask *task)
{
  Job *job = g_task_get_task_data (task);
  g_autofree char *prompt = NULL;

  job->round++;
  if (job->history->len > 0)
    prompt = g_strconcat (job->explore_prompt, "\n\n[CONVERSATION SO FAR]\n", job->history->str, NULL);
  else
    prompt = g_strdup (job->explore_prompt);

  anot_method_context_debug (job->context, ANOT_DEBUG_LEVEL_FULL, "P1",
                             "Round %u prompt:\n%s", job->round, prompt);
  anot_method_context_complete_async (job->context, "planner", job->system_prompt, prompt,
                                      job->cancellable, on_round_done, g_object_ref (task));
}

static void
phase1_start (GTask *task)
{
  Job *job = g_task_get_task_data (task);
  g_autoptr(GString) tools = g_string_new (NULL);
  g_auto(GStrv) names = anot_data_tool_list_builtin ();
  g_autofree char *structure = NULL;
  g_autofree char *n = g_strdup_printf ("%u", job->candidates->len);
  g_autofree char *k = g_strdup_printf ("%u", job->k);
  g_autofree char *request = NULL;

  job->phase1_start = g_get_monotonic_time ();
  job->tools = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_object_unref);
  for (guint i = 0; names[i] != NULL; i++)
    {
      AnotDataTool *tool = anot_data_tool_new (names[i], NULL);

      anot_data_tool_set_max_value_length (tool, job->options.tool_value_length);
      g_string_append_printf (tools, "  %s(\"path\") — %s\n", names[i],
                              anot_tool_get_description (ANOT_TOOL (tool)));
      g_hash_table_insert (job->tools, g_strdup (names[i]), tool);
    }
  g_string_truncate (tools, tools->len - 1);

  structure = g_strdup_printf ("{\"items\": \"{%u items, keys \\\"1\\\" to \\\"%u\\\"}\"}",
                               job->candidates->len, job->candidates->len);
  job->explore_prompt = anot_llm_prompt (job->context, PROMPTS "/explore.txt",
                                         "n", n,
                                         "k", k,
                                         "request", job->request_text,
                                         "structure", structure,
                                         "tools", tools->str,
                                         NULL);

  request = preview (job->request_text, 50);
  anot_method_context_debug (job->context, ANOT_DEBUG_LEVEL_SUMMARY, "P1",
                             "Starting exploration: %s", request);
  anot_method_context_debug (job->context, ANOT_DEBUG_LEVEL_VERBOSE, "P1",
                             "Initial structure: %s", structure);
  explore_next_round (task);

  /* A low-priority idle on a busy loop may not run before the request is
   * done (with many requests in flight it often never ran before the end of
   * the run).  Had it held the task, every finished request would have kept
   * its job, megabytes of dict context and tools, until then; the job owns
   * the idle instead and removes it when it is freed. */
  job->data_idle = g_idle_source_new ();
  g_source_set_priority (job->data_idle, G_PRIORITY_LOW);
  g_source_set_callback (job->data_idle, build_data_idle, job, NULL);
  g_source_set_static_name (job->data_idle, "[anot] anot dict context");
  g_source_attach (job->data_idle, g_task_get_context (task));
}

/* ------------------------------------------------------------------------ *
 * AnotMethod
 * ------------------------------------------------------------------------ */

static void
anot_method_anot_rank_async (AnotMethod          *method,
                             AnotQuery           *request,
                             GPtrArray           *candidates,
                             guint                k,
                             AnotMethodContext   *context,
                             GCancellable        *cancellable,
                             GAsyncReadyCallback  callback,
                             gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;
  g_autoptr(GError) error = NULL;
  Job *job;

  task = g_task_new (method, cancellable, callback, user_data);
  g_task_set_source_tag (task, anot_method_anot_rank_async);
  g_task_set_name (task, "[anot] anot rank");

  job = g_new0 (Job, 1);
  g_task_set_task_data (task, job, job_free);
  job->self = g_object_ref (ANOT_METHOD_ANOT (method));
  job->request = g_object_ref (request);
  job->candidates = g_ptr_array_ref (candidates);
  job->context = g_object_ref (context);
  job->cancellable = cancellable ? g_object_ref (cancellable) : NULL;
  job->request_text = anot_query_get_text (request) ? anot_query_get_text (request) : "";
  job->k = k > 0 ? MIN (k, candidates->len) : candidates->len;
  job->history = g_string_new (NULL);
  job->plan.relevant = g_ptr_array_new_with_free_func (g_free);
  job->plan.branches = g_ptr_array_new_with_free_func (g_free);
  job->rounds_trace = json_array_new ();

  if (!read_options (context, &job->options, &error))
    {
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }
  if (g_task_return_error_if_cancelled (task))
    return;
  if (candidates->len == 0)
    {
      g_task_return_pointer (task, anot_ranking_new (), g_object_unref);
      return;
    }

  {
    g_autofree char *system_base = anot_llm_prompt (job->context, PROMPTS "/system.txt", NULL);

    /* Explore, expand and the scorer's LWT steps all send this one. */
    job->system_prompt = anot_llm_system_prompt (job->context, g_strstrip (system_base));
  }

  /* Every call of ANoT-HEAD shows the model the request or the data:
   * the system prompt carries the defense text in defense mode too. */
  if (job->options.head)
    {
      anot_head_rank (task, request, candidates, k, job->options.max_rounds,
                      job->system_prompt, context, cancellable);
      return;
    }

  phase1_start (task);
}

static AnotRanking *
anot_method_anot_rank_finish (AnotMethod    *method,
                              GAsyncResult  *result,
                              GError       **error)
{
  g_return_val_if_fail (g_task_is_valid (result, method), NULL);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == anot_method_anot_rank_async, NULL);

  return g_task_propagate_pointer (G_TASK (result), error);
}

static void
anot_method_anot_method_iface_init (AnotMethodInterface *iface)
{
  iface->rank_async = anot_method_anot_rank_async;
  iface->rank_finish = anot_method_anot_rank_finish;
}

static void
anot_method_anot_class_init (AnotMethodAnotClass *klass)
{
}

static void
anot_method_anot_class_finalize (AnotMethodAnotClass *klass)
{
}

static void
anot_method_anot_init (AnotMethodAnot *self)
{
}

G_MODULE_EXPORT void
g_io_module_load (GIOModule *module)
{
  anot_method_anot_register_type (G_TYPE_MODULE (module));
  anot_plugin_implement_with_flags (ANOT_METHOD_EXTENSION_POINT_NAME,
                                    ANOT_TYPE_METHOD_ANOT, "anot",
                                    "Adaptive Network of Thought: ReAct exploration of the data with tools, "
                                    "one LWT scoring step per item written by the planner, all run in "
                                    "parallel by the scorer (ANoT-explore); anot.variant=head or --compat "
                                    "original: the original's published ANoT-HEAD (conditions, rule-out, "
                                    "skeleton, ReAct refinement, script); calls: explore E + 2N + 1 "
                                    "(E exploration rounds, 1..anot.max_rounds; one fewer without "
                                    "anot.aggregate); head 1 + C + [H > 0] + [SOFT and candidates] + R + S "
                                    "(C conditions, H of them hard, R refinement rounds 1..anot.max_rounds, "
                                    "S script steps)",
                                    ANOT_PLUGIN_SUPPORTS_DEFENSE);
  anot_plugin_declare_method_options ("anot",
                                      anot_method_option_new_int ("max_rounds", 1, G_MAXUINT, DEFAULT_MAX_ROUNDS, "exploration rounds (explore: after the last, every item is expanded without a plan) or refinement rounds (head)"),
                                      anot_method_option_with_applies_when (anot_method_option_new_int ("max_reviews", 0, G_MAXUINT, DEFAULT_MAX_REVIEWS, "sample reviews per item in phase 2"), "variant", "explore"),
                                      anot_method_option_with_applies_when (anot_method_option_new_int ("review_chars", 1, G_MAXUINT, DEFAULT_REVIEW_CHARS, "characters per sample review"), "variant", "explore"),
                                      anot_method_option_with_applies_when (anot_method_option_new_int ("tool_value_length", 1, G_MAXUINT, DEFAULT_TOOL_VALUE_LENGTH, "truncation of tool results"), "variant", "explore"),
                                      anot_method_option_with_applies_when (anot_method_option_new_boolean ("aggregate", TRUE, "add the (final) aggregation step (one more call and round)"), "variant", "explore"),
                                      anot_method_option_with_applies_when (anot_method_option_new_choice ("scores", (const char * const[]) { "robust", "original", NULL }, 0, "original reads scores with the original's parse_score"), "variant", "explore"),
                                      anot_method_option_with_applies_when (anot_method_option_new_string ("trace_file", NULL, "append the trace row of every request to this file"), "variant", "explore"),
                                      anot_method_option_with_original_fixed (
                                        anot_method_option_new_choice ("variant", (const char * const[]) { "explore", "head", NULL }, 0,
                                                                       "explore (ANoT-explore) or head (the original's published ANoT-HEAD)"),
                                        "head"),
                                      NULL);
  anot_plugin_declare_method_roles ("anot", "planner", "scorer", NULL);
}

G_MODULE_EXPORT void
g_io_module_unload (GIOModule *module)
{
}

G_MODULE_EXPORT char **
g_io_module_query (void)
{
  return g_strsplit (ANOT_METHOD_EXTENSION_POINT_NAME, "!", -1);
}
