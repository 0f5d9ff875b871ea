/* anot-method-lats.c: Language Agent Tree Search over data-exploration actions
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * See README.md in this folder and docs/lats.md.
 */
#include <anot/anot.h>

#include <math.h>
#include <string.h>

#include "anot-llm-job.h"

/* No wall-clock limit by default: the calls and iterations bound a
 * search, so its result does not depend on the provider's latency (the
 * original's 300 s cut 10 iterations at its 10-14 s a call). */
#define DEFAULT_TIMEOUT 0.0

/* One iteration (README.md):
 *
 *  1. Selection: UCT descent in the AnotSearchTree (no call), or with
 *     lats.selection=llm the model of role lats.selection picks among the
 *     best expandable leaves (one call).
 *  2. Expansion: beam_width calls of role lats.expansion, all at once,
 *     each proposing one Thought/Action; the core's toolbox executes the
 *     actions; each distinct valid action becomes a child.
 *  3. Evaluation: one call of role lats.evaluation per new child, all at
 *     once: a value in [0, 1], a reflection when it failed, and its best
 *     guess of the ranking.
 *  4. Backpropagation: numeric, in the tree (mean or max), no call.
 *
 * The search stops on a final answer judged a solution, or on a limit:
 * max_iterations, max_depth (nothing left to expand), timeout (in-flight
 * calls are cancelled), max_calls (never exceeded). */

#define PROMPTS "/org/anot/methods/lats"

#define TRACE_TEXT_CHARS 300

#define ANOT_TYPE_METHOD_LATS (anot_method_lats_get_type ())
G_DECLARE_FINAL_TYPE (AnotMethodLats, anot_method_lats, ANOT, METHOD_LATS, GObject)

struct _AnotMethodLats
{
  GObject parent_instance;
};

static void anot_method_lats_method_iface_init (AnotMethodInterface *iface);

G_DEFINE_DYNAMIC_TYPE_EXTENDED (AnotMethodLats, anot_method_lats, G_TYPE_OBJECT,
                                G_TYPE_FLAG_FINAL,
                                G_IMPLEMENT_INTERFACE_DYNAMIC (ANOT_TYPE_METHOD,
                                                               anot_method_lats_method_iface_init))

typedef enum {
  PHASE_SELECTION,
  PHASE_EXPANSION,
  PHASE_EVALUATION,
  N_PHASES
} Phase;

static const char * const phase_names[N_PHASES] = { "selection", "expansion", "evaluation" };
static const char * const phase_roles[N_PHASES] = { "lats.selection", "lats.expansion", "lats.evaluation" };

typedef struct {
  guint   calls;
  guint   failed;
  guint   cancelled;
  guint64 prompt_tokens;
  guint64 completion_tokens;
  double  latency_ms;
  double  wall_ms;
  char   *model;
} PhaseStats;

typedef struct {
  guint             beam_width;
  guint             max_depth;
  guint             max_iterations;
  guint             max_calls;
  guint             max_observation_chars;
  guint             max_reflections;
  double            exploration_weight;
  double            timeout_s;
  double            solution_threshold;
  double            reflection_threshold;
  AnotBackpropMode  backprop;
  gboolean          llm_selection;
  gboolean          trace_tree;
  char             *tree_file;
} Params;

/* The answer of one call of the current phase. */
typedef struct {
  char    *reply;
  GError  *error;
} Slot;

typedef struct {
  AnotLlmJob         *llm;
  AnotMethodContext  *context;
  AnotMethodSettings *settings;
  Params              p;

  GCancellable       *user_cancellable;
  GCancellable       *cancellable;      /* ours: cancelled on timeout too */
  gulong              cancel_id;
  guint               timeout_id;
  gboolean            timed_out;

  AnotAgentToolbox   *toolbox;
  AnotSearchTree     *tree;
  char               *system_prompt;
  char               *instruction;
  char               *tools;
  char               *n_text;
  char               *k_text;

  guint               iteration;
  guint               calls_used;
  guint               pending;
  guint               nodes_expanded;
  guint               n_invalid;
  guint               n_duplicates;
  guint               n_failed_evaluations;
  guint               selected;
  GArray             *selection_candidates;   /* guint node ids */
  GArray             *slots;                  /* Slot */
  GArray             *new_children;           /* guint */
  GArray             *child_options;          /* guint, 1-based option of each child */
  AnotSearchStop      stop;
  guint               solution;
  gboolean            returned;

  gint64              start_us;
  gint64              phase_start_us;
  PhaseStats          stats[N_PHASES];
  JsonArray          *iterations;
  JsonObject         *current;
} Job;

static void
slots_clear (GArray *slots)
{
  for (guint i = 0; i < slots->len; i++)
    {
      Slot *slot = &g_array_index (slots, Slot, i);

      g_free (slot->reply);
      g_clear_error (&slot->error);
    }
  g_array_set_size (slots, 0);
}

static void
job_free (gpointer data)
{
  Job *job = data;

  if (job->cancel_id != 0)
    g_cancellable_disconnect (job->user_cancellable, job->cancel_id);
  g_clear_object (&job->user_cancellable);
  g_clear_object (&job->cancellable);
  anot_llm_job_free (job->llm);
  g_clear_object (&job->settings);
  g_free (job->p.tree_file);
  g_clear_object (&job->toolbox);
  g_clear_object (&job->tree);
  g_free (job->system_prompt);
  g_free (job->instruction);
  g_free (job->tools);
  g_free (job->n_text);
  g_free (job->k_text);
  g_array_unref (job->selection_candidates);
  slots_clear (job->slots);
  g_array_unref (job->slots);
  g_array_unref (job->new_children);
  g_array_unref (job->child_options);
  for (guint i = 0; i < N_PHASES; i++)
    g_free (job->stats[i].model);
  json_array_unref (job->iterations);
  g_clear_pointer (&job->current, json_object_unref);
  g_free (job);
}

static double
ms_since (gint64 start_us)
{
  return (g_get_monotonic_time () - start_us) / 1000.0;
}

static char *
cut (const char *text,
     glong       max_chars)
{
  glong length;
  g_autofree char *head = NULL;

  if (text == NULL)
    return g_strdup ("");
  length = g_utf8_strlen (text, -1);
  if (length <= max_chars)
    return g_strdup (text);
  head = g_utf8_substring (text, 0, max_chars);
  return g_strconcat (head, "...", NULL);
}

static const char *
request_text (Job *job)
{
  const char *text = anot_query_get_text (anot_llm_job_get_request (job->llm));

  return text != NULL ? text : "";
}

/* ------------------------------------------------------------------------ *
 * Settings
 * ------------------------------------------------------------------------ */

static gboolean
read_params (Job     *job,
             GError **error)
{
  static const char * const backprop[] = { "mean", "max", NULL };
  static const char * const selection[] = { "uct", "llm", NULL };
  AnotMethodSettings *s = job->settings;
  AnotMethodContext *c = job->context;
  guint backprop_index, selection_index;

  if (!anot_method_settings_load_for_context (s, c, error) ||
      !anot_method_settings_get_uint (s, c, "beam_width", 3, 1, 32, &job->p.beam_width, error) ||
      !anot_method_settings_get_uint (s, c, "max_depth", 5, 1, 100, &job->p.max_depth, error) ||
      !anot_method_settings_get_double (s, c, "exploration_weight", G_SQRT2, 0, 1000,
                                        &job->p.exploration_weight, error) ||
      !anot_method_settings_get_uint (s, c, "max_iterations", 10, 1, 100000,
                                      &job->p.max_iterations, error) ||
      !anot_method_settings_get_double (s, c, "timeout", DEFAULT_TIMEOUT, 0, 7 * 24 * 3600.0,
                                        &job->p.timeout_s, error) ||
      !anot_method_settings_get_uint (s, c, "max_calls", 60, 1, 1000000, &job->p.max_calls, error) ||
      !anot_method_settings_get_choice (s, c, "backprop", backprop, 0, &backprop_index, error) ||
      !anot_method_settings_get_choice (s, c, "selection", selection, 0, &selection_index, error) ||
      !anot_method_settings_get_double (s, c, "solution_threshold", 0.9, 0, 1,
                                        &job->p.solution_threshold, error) ||
      !anot_method_settings_get_double (s, c, "reflection_threshold", 0.5, 0, 1,
                                        &job->p.reflection_threshold, error) ||
      !anot_method_settings_get_uint (s, c, "max_observation_chars",
                                      ANOT_AGENT_TOOLBOX_DEFAULT_MAX_OBSERVATION_CHARS, 1, G_MAXINT,
                                      &job->p.max_observation_chars, error) ||
      !anot_method_settings_get_uint (s, c, "max_reflections", 3, 0, 1000,
                                      &job->p.max_reflections, error) ||
      !anot_method_settings_get_boolean (s, c, "trace_tree", TRUE, &job->p.trace_tree, error))
    return FALSE;

  job->p.backprop = backprop_index == 1 ? ANOT_BACKPROP_MAX : ANOT_BACKPROP_MEAN;
  job->p.llm_selection = selection_index == 1;
  job->p.tree_file = anot_method_settings_get_string (s, c, "tree_file");
  /* An iteration makes at most one selection call, beam_width expansions
   * and an evaluation per new child; max_calls is never passed. */
  anot_method_context_declare_max_calls (c, (guint) MIN ((guint64) job->p.max_calls,
                                                         (guint64) job->p.max_iterations *
                                                         ((job->p.llm_selection ? 1 : 0) +
                                                          2 * (guint64) job->p.beam_width)));
  return TRUE;
}

/* ------------------------------------------------------------------------ *
 * Prompts
 * ------------------------------------------------------------------------ */

/* The steps from the root to @node (included), as the prompts show them. */
static char *
trajectory_text (Job   *job,
                 guint  node)
{
  g_autoptr(GArray) path = anot_search_tree_get_path (job->tree, node);
  GString *out = g_string_new (NULL);

  for (guint i = 1; i < path->len; i++)
    {
      guint id = g_array_index (path, guint, i);
      g_autofree char *step = anot_agent_format_step (anot_search_tree_get_thought (job->tree, id),
                                                      anot_search_tree_get_action (job->tree, id),
                                                      anot_search_tree_get_observation (job->tree, id));

      g_string_append_printf (out, "Step %u:\n%s", i, step);
    }
  if (out->len == 0)
    g_string_append (out, "(no steps yet)\n");
  return g_string_free (out, FALSE);
}

/* The latest reflections of the tree: what failed, for expansions to
 * avoid (LATS's memory of failed trajectories). */
static char *
reflections_text (Job *job)
{
  GString *out = g_string_new (NULL);
  guint n = 0;

  for (guint id = anot_search_tree_get_n_nodes (job->tree); id-- > 1 && n < job->p.max_reflections;)
    {
      const char *reflection = anot_search_tree_get_reflection (job->tree, id);

      if (reflection == NULL || *reflection == '\0')
        continue;
      if (n == 0)
        g_string_append (out, "\nLessons from earlier attempts that failed:\n");
      g_string_append_printf (out, "- %s (after %s)\n", reflection,
                              anot_search_tree_get_action (job->tree, id));
      n++;
    }
  return g_string_free (out, FALSE);
}

/* ------------------------------------------------------------------------ *
 * Calls
 * ------------------------------------------------------------------------ */

typedef struct {
  GTask *task;
  Phase  phase;
  guint  slot;
} CallData;

static void phase_done (GTask *task, Phase phase);

static void
on_call_done (GObject      *source,
              GAsyncResult *result,
              gpointer      user_data)
{
  CallData *call = user_data;
  g_autoptr(GTask) task = call->task;
  Job *job = g_task_get_task_data (task);
  PhaseStats *stats = &job->stats[call->phase];
  Slot *slot = &g_array_index (job->slots, Slot, call->slot);
  g_autoptr(AnotCompletion) completion = NULL;

  completion = anot_llm_job_complete_finish (job->llm, result, NULL, &slot->error);
  if (completion != NULL)
    {
      slot->reply = g_strdup (anot_completion_get_text (completion));
      stats->prompt_tokens += anot_completion_get_prompt_tokens (completion);
      stats->completion_tokens += anot_completion_get_completion_tokens (completion);
      stats->latency_ms += anot_completion_get_latency_ms (completion);
      if (stats->model == NULL && anot_completion_get_model (completion) != NULL)
        stats->model = g_strdup (anot_completion_get_model (completion));
    }
  else if (g_error_matches (slot->error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    stats->cancelled++;
  else
    stats->failed++;

  {
    Phase phase = call->phase;

    g_free (call);
    if (--job->pending == 0)
      phase_done (task, phase);
  }
}

static void
start_call (GTask      *task,
            Phase       phase,
            const char *prompt)
{
  Job *job = g_task_get_task_data (task);
  CallData *call = g_new0 (CallData, 1);
  Slot empty = { NULL, NULL };

  call->task = g_object_ref (task);
  call->phase = phase;
  call->slot = job->slots->len;
  g_array_append_val (job->slots, empty);
  job->pending++;
  job->calls_used++;
  job->stats[phase].calls++;
  anot_llm_job_complete_async (job->llm, phase_names[phase], phase_roles[phase],
                               job->system_prompt, prompt, on_call_done, call);
}

/* ------------------------------------------------------------------------ *
 * The end
 * ------------------------------------------------------------------------ */

static JsonNode *
phase_json (Job         *job,
            PhaseStats  *stats,
            const char  *role)
{
  AnotBackendRouter *router = anot_method_context_get_router (job->context);
  JsonObject *o = json_object_new ();
  const char *model = stats->model;
  JsonNode *node;

  if (model == NULL && router != NULL)
    model = anot_backend_router_get_model (router, role);
  json_object_set_string_member (o, "role", role);
  if (model != NULL)
    json_object_set_string_member (o, "model", model);
  else
    json_object_set_null_member (o, "model");
  json_object_set_int_member (o, "calls", stats->calls);
  json_object_set_int_member (o, "failed", stats->failed);
  json_object_set_int_member (o, "cancelled", stats->cancelled);
  json_object_set_int_member (o, "prompt_tokens", stats->prompt_tokens);
  json_object_set_int_member (o, "completion_tokens", stats->completion_tokens);
  json_object_set_double_member (o, "latency_ms", stats->latency_ms);
  json_object_set_double_member (o, "wall_ms", stats->wall_ms);
  node = json_node_new (JSON_NODE_OBJECT);
  json_node_take_object (node, o);
  return node;
}

static JsonNode *
best_path_json (Job *job)
{
  g_autoptr(GArray) path = anot_search_tree_get_best_path (job->tree);
  JsonArray *array = json_array_new ();

  for (guint i = 0; i < path->len; i++)
    {
      guint id = g_array_index (path, guint, i);
      JsonObject *step = json_object_new ();
      const char *action = anot_search_tree_get_action (job->tree, id);

      json_object_set_int_member (step, "node", id);
      json_object_set_int_member (step, "depth", anot_search_tree_get_depth (job->tree, id));
      if (action != NULL)
        json_object_set_string_member (step, "action", action);
      else
        json_object_set_null_member (step, "action");
      json_object_set_double_member (step, "value", anot_search_tree_get_value (job->tree, id));
      json_object_set_int_member (step, "visits", anot_search_tree_get_visits (job->tree, id));
      json_array_add_object_element (array, step);
    }
  {
    JsonNode *node = json_node_new (JSON_NODE_ARRAY);

    json_node_take_array (node, array);
    return node;
  }
}

static void
set_member (Job        *job,
            const char *name,
            JsonNode   *value)
{
  anot_llm_job_set_trace_member (job->llm, name, value);
}

static void
set_int (Job        *job,
         const char *name,
         gint64      value)
{
  set_member (job, name, json_node_init_int (json_node_alloc (), value));
}

/* Appends the tree to lats.tree_file, for notebooks.  A failure to write
 * is logged: the ranking is still good. */
static void
write_tree_file (Job      *job,
                 JsonNode *tree)
{
  g_autoptr(JsonBuilder) builder = json_builder_new ();
  g_autoptr(JsonNode) root = NULL;
  g_autoptr(GFile) file = NULL;
  g_autoptr(GFileOutputStream) stream = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *line = NULL;
  g_autofree char *row = NULL;

  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "request_id");
  json_builder_add_string_value (builder, anot_method_context_get_request_id (job->context));
  json_builder_set_member_name (builder, "stop_reason");
  json_builder_add_string_value (builder, anot_search_stop_to_string (job->stop));
  json_builder_set_member_name (builder, "tree");
  json_builder_add_value (builder, json_node_copy (tree));
  json_builder_end_object (builder);
  root = json_builder_get_root (builder);

  line = json_to_string (root, FALSE);
  row = g_strconcat (line, "\n", NULL);
  file = g_file_new_for_path (job->p.tree_file);
  stream = g_file_append_to (file, G_FILE_CREATE_NONE, NULL, &error);
  if (stream == NULL ||
      !g_output_stream_write_all (G_OUTPUT_STREAM (stream), row, strlen (row), NULL, NULL, &error) ||
      !g_output_stream_close (G_OUTPUT_STREAM (stream), NULL, &error))
    anot_method_context_debug (job->context, ANOT_DEBUG_LEVEL_SUMMARY, "lats",
                               "Cannot write the tree to %s: %s", job->p.tree_file, error->message);
}

static void
stop_timer (Job *job)
{
  if (job->timeout_id != 0)
    {
      g_source_remove (job->timeout_id);
      job->timeout_id = 0;
    }
  if (job->cancel_id != 0)
    {
      g_cancellable_disconnect (job->user_cancellable, job->cancel_id);
      job->cancel_id = 0;
    }
}

static void
return_error (GTask  *task,
              GError *error)
{
  Job *job = g_task_get_task_data (task);

  stop_timer (job);
  job->returned = TRUE;
  g_task_return_error (task, error);
}

static void
finish_search (GTask *task)
{
  Job *job = g_task_get_task_data (task);
  g_autoptr(AnotRanking) ranking = anot_ranking_new ();
  g_autoptr(JsonNode) trace = NULL;
  g_autoptr(JsonNode) tree = NULL;
  JsonObject *roles;
  JsonObject *phases;
  const char *source;
  guint answer = ANOT_SEARCH_NODE_NONE;
  guint64 prompt_tokens = 0, completion_tokens = 0;

  stop_timer (job);

  if (job->solution != ANOT_SEARCH_NODE_NONE)
    {
      answer = job->solution;
      source = "solution";
    }
  else
    {
      answer = anot_search_tree_get_best_node (job->tree, TRUE);
      source = answer == ANOT_SEARCH_NODE_NONE ? "none"
               : anot_search_tree_get_terminal (job->tree, answer) ? "best_final_answer"
               : "best_partial";
    }
  if (answer != ANOT_SEARCH_NODE_NONE)
    {
      guint n;
      const guint *positions = anot_search_tree_get_ranking (job->tree, answer, &n);
      g_autofree char *raw = NULL;

      for (guint i = 0; i < n; i++)
        anot_ranking_append (ranking, positions[i], (double) (n - i));
      if (anot_search_tree_get_terminal (job->tree, answer))
        raw = g_strdup (anot_search_tree_get_action (job->tree, answer));
      else
        raw = g_strdup_printf ("the evaluation's best guess at node %u after %s", answer,
                               anot_search_tree_get_action (job->tree, answer));
      anot_ranking_set_raw_response (ranking, raw);
    }
  /* The wall clock's reach depends on the provider's latency: the row says
   * that it cut this search. */
  if (job->stop == ANOT_SEARCH_STOP_TIMEOUT)
    {
      g_autofree char *limit = g_strdup_printf ("lats.timeout=%g s", job->p.timeout_s);

      anot_ranking_set_cut_by (ranking, limit);
    }

  tree = anot_search_tree_to_json (job->tree);
  phases = json_object_new ();
  roles = json_object_new ();
  for (guint i = 0; i < N_PHASES; i++)
    {
      json_object_set_member (phases, phase_names[i], phase_json (job, &job->stats[i], phase_roles[i]));
      json_object_set_member (roles, phase_roles[i], phase_json (job, &job->stats[i], phase_roles[i]));
      prompt_tokens += job->stats[i].prompt_tokens;
      completion_tokens += job->stats[i].completion_tokens;
    }

  set_member (job, "settings", anot_method_settings_to_json (job->settings));
  set_member (job, "stop_reason",
              json_node_init_string (json_node_alloc (), anot_search_stop_to_string (job->stop)));
  set_member (job, "solution_found",
              json_node_init_boolean (json_node_alloc (), job->solution != ANOT_SEARCH_NODE_NONE));
  set_member (job, "answer_source", json_node_init_string (json_node_alloc (), source));
  if (answer != ANOT_SEARCH_NODE_NONE)
    {
      set_int (job, "answer_node", answer);
      set_member (job, "answer_value",
                  json_node_init_double (json_node_alloc (),
                                         anot_search_tree_get_value (job->tree, answer)));
    }
  else
    {
      set_member (job, "answer_node", json_node_init_null (json_node_alloc ()));
      set_member (job, "answer_value", json_node_init_null (json_node_alloc ()));
    }
  set_int (job, "iterations", job->iteration);
  set_int (job, "nodes", anot_search_tree_get_n_nodes (job->tree));
  set_int (job, "nodes_expanded", job->nodes_expanded);
  set_int (job, "tree_depth", anot_search_tree_get_height (job->tree));
  set_int (job, "calls_used", job->calls_used);
  set_int (job, "invalid_actions", job->n_invalid);
  set_int (job, "duplicate_actions", job->n_duplicates);
  set_int (job, "failed_evaluations", job->n_failed_evaluations);
  set_int (job, "tokens", prompt_tokens + completion_tokens);
  {
    JsonNode *node = json_node_new (JSON_NODE_OBJECT);

    json_node_take_object (node, phases);
    set_member (job, "phases", node);
    node = json_node_new (JSON_NODE_OBJECT);
    json_node_take_object (node, roles);
    set_member (job, "roles", node);
  }
  set_member (job, "time_ms", json_node_init_double (json_node_alloc (), ms_since (job->start_us)));
  set_member (job, "best_path", best_path_json (job));
  set_member (job, "iteration_log", json_node_init_array (json_node_alloc (), job->iterations));
  if (job->p.trace_tree)
    set_member (job, "tree", json_node_ref (tree));

  trace = anot_llm_job_build_trace (job->llm);
  anot_ranking_set_trace (ranking, trace);
  if (job->p.tree_file != NULL)
    write_tree_file (job, tree);

  anot_method_context_debug (job->context, ANOT_DEBUG_LEVEL_SUMMARY, "lats",
                             "%s: stopped (%s) after %u iteration(s), %u node(s), depth %u, "
                             "%u call(s); answer: %s%s",
                             anot_method_context_get_request_id (job->context),
                             anot_search_stop_to_string (job->stop), job->iteration,
                             anot_search_tree_get_n_nodes (job->tree),
                             anot_search_tree_get_height (job->tree), job->calls_used, source,
                             job->solution == ANOT_SEARCH_NODE_NONE ? " (no solution)" : "");

  job->returned = TRUE;
  g_task_return_pointer (task, g_steal_pointer (&ranking), g_object_unref);
}

/* ------------------------------------------------------------------------ *
 * The loop
 * ------------------------------------------------------------------------ */

static void expand (GTask *task, guint node);

static gboolean
timed_out (Job *job)
{
  if (!job->timed_out && job->p.timeout_s > 0 && ms_since (job->start_us) >= job->p.timeout_s * 1000)
    job->timed_out = TRUE;
  return job->timed_out;
}

/* Sets job->stop when a limit is reached; TRUE if the search must end. */
static gboolean
check_limits (Job *job)
{
  if (job->stop != ANOT_SEARCH_STOP_NONE)
    return TRUE;
  if (timed_out (job))
    job->stop = ANOT_SEARCH_STOP_TIMEOUT;
  else if (job->calls_used >= job->p.max_calls)
    job->stop = ANOT_SEARCH_STOP_CALL_BUDGET;
  else if (job->iteration >= job->p.max_iterations)
    job->stop = ANOT_SEARCH_STOP_MAX_ITERATIONS;
  return job->stop != ANOT_SEARCH_STOP_NONE;
}

static void
begin_iteration_log (Job   *job,
                     guint  node)
{
  double uct = anot_search_tree_uct (job->tree, node, job->p.exploration_weight);

  g_clear_pointer (&job->current, json_object_unref);
  job->current = json_object_new ();
  json_object_set_int_member (job->current, "iteration", job->iteration);
  json_object_set_int_member (job->current, "selected", node);
  json_object_set_int_member (job->current, "depth", anot_search_tree_get_depth (job->tree, node));
  /* JSON has no infinity: an unvisited node's score is null. */
  if (isfinite (uct))
    json_object_set_double_member (job->current, "uct", uct);
  else
    json_object_set_null_member (job->current, "uct");
  json_object_set_string_member (job->current, "selection", "uct");
  json_object_set_array_member (job->current, "options", json_array_new ());
}

static void
end_iteration_log (Job *job)
{
  if (job->current == NULL)
    return;
  json_object_set_double_member (job->current, "time_ms", ms_since (job->start_us));
  json_array_add_object_element (job->iterations, g_steal_pointer (&job->current));
}

static gint
compare_uct (gconstpointer a,
             gconstpointer b,
             gpointer      user_data)
{
  Job *job = user_data;
  guint x = *(const guint *) a;
  guint y = *(const guint *) b;
  double ux = anot_search_tree_uct (job->tree, x, job->p.exploration_weight);
  double uy = anot_search_tree_uct (job->tree, y, job->p.exploration_weight);

  if (ux != uy)
    return ux > uy ? -1 : 1;
  return x < y ? -1 : x > y;
}

static void
iterate (GTask *task)
{
  Job *job = g_task_get_task_data (task);
  guint node;

  end_iteration_log (job);
  if (check_limits (job))
    {
      finish_search (task);
      return;
    }

  node = anot_search_tree_select (job->tree, job->p.exploration_weight, job->p.max_depth);
  if (node == ANOT_SEARCH_NODE_NONE)
    {
      job->stop = anot_search_tree_get_depth_limited (job->tree) ? ANOT_SEARCH_STOP_MAX_DEPTH
                                                                 : ANOT_SEARCH_STOP_EXHAUSTED;
      finish_search (task);
      return;
    }

  job->iteration++;
  begin_iteration_log (job, node);

  if (job->p.llm_selection && job->p.max_calls - job->calls_used >= 2)
    {
      g_autoptr(GArray) leaves = anot_search_tree_list_expandable (job->tree, job->p.max_depth);

      if (leaves->len >= 2)
        {
          g_autoptr(GString) candidates = g_string_new (NULL);
          g_autofree char *prompt = NULL;

          g_array_sort_with_data (leaves, compare_uct, job);
          g_array_set_size (job->selection_candidates, 0);
          g_array_append_val (job->selection_candidates, node);
          for (guint i = 0; i < leaves->len && job->selection_candidates->len < job->p.beam_width; i++)
            if (g_array_index (leaves, guint, i) != node)
              g_array_append_val (job->selection_candidates, g_array_index (leaves, guint, i));

          for (guint i = 0; i < job->selection_candidates->len; i++)
            {
              guint id = g_array_index (job->selection_candidates, guint, i);
              g_autofree char *trajectory = trajectory_text (job, id);

              g_string_append_printf (candidates, "Search [%u] (value %.2f after %u visit(s)):\n%s\n",
                                      i + 1, anot_search_tree_get_value (job->tree, id),
                                      anot_search_tree_get_visits (job->tree, id), trajectory);
            }
          prompt = anot_llm_prompt (job->context, PROMPTS "/select.txt",
                                    "request", request_text (job),
                                    "candidates", candidates->str,
                                    NULL);
          slots_clear (job->slots);
          job->selected = node;
          job->phase_start_us = g_get_monotonic_time ();
          start_call (task, PHASE_SELECTION, prompt);
          return;
        }
    }

  expand (task, node);
}

static void
after_selection (GTask *task)
{
  Job *job = g_task_get_task_data (task);
  Slot *slot = &g_array_index (job->slots, Slot, 0);
  guint node = job->selected;
  guint m = job->selection_candidates->len;

  if (slot->reply != NULL)
    {
      g_autoptr(GRegex) regex = g_regex_new ("SELECT\\s*:\\s*\\[?\\s*(\\d+)", G_REGEX_CASELESS, 0, NULL);
      g_autoptr(GMatchInfo) info = NULL;
      guint64 choice = 0;

      if (g_regex_match (regex, slot->reply, 0, &info))
        {
          g_autofree char *digits = g_match_info_fetch (info, 1);

          g_ascii_string_to_unsigned (digits, 10, 1, m, &choice, NULL);
        }
      else
        {
          g_autoptr(AnotParseResult) parse = anot_parse_ranking (slot->reply, m, NULL,
                                                                 ANOT_PARSE_FLAGS_NONE);
          guint n;
          const guint *indices = anot_parse_result_get_indices (parse, &n);

          if (anot_parse_result_get_ok (parse) && n > 0)
            choice = indices[0] + 1;
        }
      if (choice >= 1 && choice <= m)
        {
          node = g_array_index (job->selection_candidates, guint, choice - 1);
          json_object_set_string_member (job->current, "selection", "llm");
          json_object_set_int_member (job->current, "selected", node);
          json_object_set_int_member (job->current, "depth", anot_search_tree_get_depth (job->tree, node));
        }
      else
        json_object_set_string_member (job->current, "selection", "uct (unreadable choice)");
    }
  else
    json_object_set_string_member (job->current, "selection", "uct (selection call failed)");

  expand (task, node);
}

static void
expand (GTask *task,
        guint  node)
{
  Job *job = g_task_get_task_data (task);
  g_autofree char *trajectory = trajectory_text (job, node);
  g_autofree char *reflections = reflections_text (job);
  g_autofree char *options_text = NULL;
  guint n = MIN (job->p.beam_width, job->p.max_calls - job->calls_used);

  job->selected = node;
  slots_clear (job->slots);
  options_text = g_strdup_printf ("%u", n);
  job->phase_start_us = g_get_monotonic_time ();
  for (guint j = 1; j <= n; j++)
    {
      g_autofree char *option = g_strdup_printf ("%u", j);
      g_autofree char *previous = g_strdup_printf ("%u", j - 1);
      g_autofree char *hint = j == 1 ? anot_llm_prompt (job->context, PROMPTS "/hint-first.txt", NULL)
                                     : anot_llm_prompt (job->context, PROMPTS "/hint-other.txt",
                                                        "previous", previous, NULL);
      g_autofree char *prompt = anot_llm_prompt (job->context, PROMPTS "/expand.txt",
                                                 "request", request_text (job),
                                                 "n", job->n_text,
                                                 "instruction", job->instruction,
                                                 "tools", job->tools,
                                                 "reflections", reflections,
                                                 "trajectory", trajectory,
                                                 "option", option,
                                                 "options", options_text,
                                                 "hint", hint,
                                                 NULL);

      start_call (task, PHASE_EXPANSION, prompt);
    }
}

static gboolean
has_child_action (Job        *job,
                  guint       node,
                  const char *action)
{
  for (guint i = 0; i < anot_search_tree_get_n_children (job->tree, node); i++)
    if (g_strcmp0 (anot_search_tree_get_action (job->tree, anot_search_tree_get_child (job->tree, node, i)),
                   action) == 0)
      return TRUE;
  return FALSE;
}

static void
evaluate_children (GTask *task);

static void
after_expansion (GTask *task)
{
  Job *job = g_task_get_task_data (task);
  JsonArray *options = json_object_get_array_member (job->current, "options");
  guint node = job->selected;

  g_array_set_size (job->new_children, 0);
  g_array_set_size (job->child_options, 0);

  for (guint j = 0; j < job->slots->len; j++)
    {
      Slot *slot = &g_array_index (job->slots, Slot, j);
      JsonObject *entry = json_object_new ();
      g_autoptr(AnotAgentAction) action = NULL;
      g_autoptr(AnotParseResult) answer = NULL;
      g_autoptr(GError) error = NULL;
      g_autofree char *thought = NULL;
      g_autofree char *canonical = NULL;
      g_autofree char *observation = NULL;
      guint child, option = j + 1;

      json_object_set_int_member (entry, "option", option);
      json_array_add_object_element (options, entry);
      if (slot->error != NULL)
        {
          json_object_set_string_member (entry, "error", slot->error->message);
          continue;
        }
      action = anot_agent_action_parse_reply (slot->reply, &thought, &error);
      if (action == NULL)
        {
          g_autofree char *reply = cut (slot->reply, TRACE_TEXT_CHARS);

          job->n_invalid++;
          json_object_set_string_member (entry, "invalid", error->message);
          json_object_set_string_member (entry, "reply", reply);
          continue;
        }
      canonical = anot_agent_action_to_string (action);
      json_object_set_string_member (entry, "action", canonical);
      if (has_child_action (job, node, canonical))
        {
          job->n_duplicates++;
          json_object_set_boolean_member (entry, "duplicate", TRUE);
          continue;
        }

      observation = anot_agent_toolbox_execute (job->toolbox, action, &answer);
      child = anot_search_tree_add_child (job->tree, node, thought, canonical, observation);
      if (anot_agent_action_is_finish (action))
        {
          anot_search_tree_set_terminal (job->tree, child, TRUE);
          if (answer != NULL && anot_parse_result_get_ok (answer))
            {
              guint n;
              const guint *indices = anot_parse_result_get_indices (answer, &n);

              anot_search_tree_set_ranking (job->tree, child, indices, n);
            }
        }
      json_object_set_int_member (entry, "node", child);
      g_array_append_val (job->new_children, child);
      g_array_append_val (job->child_options, option);
    }

  job->nodes_expanded++;
  if (job->new_children->len == 0)
    {
      /* Nothing usable came out: do not select this node again. */
      anot_search_tree_set_exhausted (job->tree, node, TRUE);
      anot_method_context_debug (job->context, ANOT_DEBUG_LEVEL_SUMMARY, "lats",
                                 "%s: iteration %u: node %u gave no usable action",
                                 anot_method_context_get_request_id (job->context), job->iteration, node);
      iterate (task);
      return;
    }
  evaluate_children (task);
}

static void
evaluate_children (GTask *task)
{
  Job *job = g_task_get_task_data (task);
  guint n = MIN (job->new_children->len, job->p.max_calls - job->calls_used);

  if (n == 0)
    {
      iterate (task);
      return;
    }

  slots_clear (job->slots);
  job->phase_start_us = g_get_monotonic_time ();
  for (guint i = 0; i < n; i++)
    {
      guint child = g_array_index (job->new_children, guint, i);
      guint parent = anot_search_tree_get_parent (job->tree, child);
      g_autofree char *trajectory = trajectory_text (job, parent);
      g_autofree char *latest = anot_agent_format_step (anot_search_tree_get_thought (job->tree, child),
                                                        anot_search_tree_get_action (job->tree, child),
                                                        anot_search_tree_get_observation (job->tree, child));
      g_autofree char *judge = anot_llm_prompt (job->context, anot_search_tree_get_terminal (job->tree, child)
                                                ? PROMPTS "/judge-final.txt" : PROMPTS "/judge-step.txt",
                                                NULL);
      g_autofree char *prompt = anot_llm_prompt (job->context, PROMPTS "/evaluate.txt",
                                                 "request", request_text (job),
                                                 "n", job->n_text,
                                                 "k", job->k_text,
                                                 "instruction", job->instruction,
                                                 "trajectory", trajectory,
                                                 "latest", latest,
                                                 "judge", judge,
                                                 NULL);

      start_call (task, PHASE_EVALUATION, prompt);
    }
}

/* Reads {"value", "reflection", "ranking"}; falls back to a bare score. */
static gboolean
parse_evaluation (Job              *job,
                  const char       *text,
                  double           *out_value,
                  char            **out_reflection,
                  AnotParseResult **out_ranking,
                  char            **out_message)
{
  g_autoptr(AnotParseResult) json = anot_parse_json (text);
  GPtrArray *candidates = anot_agent_toolbox_get_candidates (job->toolbox);
  gboolean have_value = FALSE;
  double value = 0;

  *out_reflection = NULL;
  *out_ranking = NULL;

  if (anot_parse_result_get_ok (json) && JSON_NODE_HOLDS_OBJECT (anot_parse_result_get_json (json)))
    {
      JsonObject *o = json_node_get_object (anot_parse_result_get_json (json));
      JsonNode *v = json_object_get_member (o, "value");
      JsonNode *r = json_object_get_member (o, "reflection");
      JsonNode *ranking = json_object_get_member (o, "ranking");

      if (v == NULL)
        v = json_object_get_member (o, "score");
      if (v != NULL && JSON_NODE_HOLDS_VALUE (v))
        {
          GType type = json_node_get_value_type (v);

          if (type == G_TYPE_INT64 || type == G_TYPE_DOUBLE)
            {
              value = json_node_get_double (v);
              have_value = TRUE;
            }
          else if (type == G_TYPE_STRING)
            {
              char *end = NULL;

              value = g_ascii_strtod (json_node_get_string (v), &end);
              have_value = end != json_node_get_string (v) && *end == '\0';
            }
        }
      if (r != NULL && JSON_NODE_HOLDS_VALUE (r) && json_node_get_value_type (r) == G_TYPE_STRING &&
          *json_node_get_string (r) != '\0')
        *out_reflection = g_strdup (json_node_get_string (r));
      if (ranking != NULL && !JSON_NODE_HOLDS_NULL (ranking))
        {
          g_autofree char *ranking_text =
            JSON_NODE_HOLDS_VALUE (ranking) && json_node_get_value_type (ranking) == G_TYPE_STRING
            ? g_strdup (json_node_get_string (ranking)) : json_to_string (ranking, FALSE);
          AnotParseResult *parse = anot_parse_ranking (ranking_text, candidates->len, candidates,
                                                       ANOT_PARSE_FLAGS_NONE);

          if (anot_parse_result_get_ok (parse))
            *out_ranking = parse;
          else
            g_object_unref (parse);
        }
    }

  if (!have_value)
    {
      g_autoptr(AnotParseResult) score = anot_parse_score (text, 0, 1);

      if (!anot_parse_result_get_ok (score))
        {
          *out_message = g_strdup_printf ("no value in the evaluation: %s",
                                          anot_parse_result_get_message (score));
          g_clear_pointer (out_reflection, g_free);
          g_clear_object (out_ranking);
          return FALSE;
        }
      value = anot_parse_result_get_score (score);
    }
  if (!(value >= 0 && value <= 1))
    {
      *out_message = g_strdup_printf ("the value %g is outside [0, 1]", value);
      g_clear_pointer (out_reflection, g_free);
      g_clear_object (out_ranking);
      return FALSE;
    }
  *out_value = value;
  return TRUE;
}

static void
after_evaluation (GTask *task)
{
  Job *job = g_task_get_task_data (task);
  JsonArray *options = json_object_get_array_member (job->current, "options");
  g_autoptr(GString) summary = g_string_new (NULL);

  for (guint i = 0; i < job->slots->len; i++)
    {
      Slot *slot = &g_array_index (job->slots, Slot, i);
      guint child = g_array_index (job->new_children, guint, i);
      guint option = g_array_index (job->child_options, guint, i);
      JsonObject *entry = json_array_get_object_element (options, option - 1);
      gboolean terminal = anot_search_tree_get_terminal (job->tree, child);
      g_autoptr(AnotParseResult) ranking = NULL;
      g_autofree char *reflection = NULL;
      g_autofree char *message = NULL;
      JsonObject *info = json_object_new ();
      JsonNode *info_node;
      double value = 0;

      json_object_set_int_member (info, "option", option);
      if (slot->error != NULL)
        {
          job->n_failed_evaluations++;
          json_object_set_string_member (info, "evaluation_error", slot->error->message);
          json_object_set_string_member (entry, "evaluation_error", slot->error->message);
        }
      else if (!parse_evaluation (job, slot->reply, &value, &reflection, &ranking, &message))
        {
          g_autofree char *reply = cut (slot->reply, TRACE_TEXT_CHARS);

          job->n_failed_evaluations++;
          json_object_set_string_member (info, "evaluation_error", message);
          json_object_set_string_member (info, "evaluation", reply);
          json_object_set_string_member (entry, "evaluation_error", message);
        }
      else
        {
          guint n;

          anot_search_tree_backpropagate (job->tree, child, value, job->p.backprop);
          json_object_set_double_member (info, "evaluation_value", value);
          json_object_set_double_member (entry, "value", value);
          if (reflection != NULL && (value < job->p.reflection_threshold ||
                                     (terminal && value < job->p.solution_threshold)))
            anot_search_tree_set_reflection (job->tree, child, reflection);
          if (!terminal && ranking != NULL)
            {
              const guint *indices = anot_parse_result_get_indices (ranking, &n);

              anot_search_tree_set_ranking (job->tree, child, indices, n);
            }
          if (terminal && anot_search_tree_get_ranking (job->tree, child, &n) != NULL &&
              value >= job->p.solution_threshold)
            {
              anot_search_tree_set_solution (job->tree, child, TRUE);
              if (job->solution == ANOT_SEARCH_NODE_NONE ||
                  value > anot_search_tree_get_value (job->tree, job->solution))
                job->solution = child;
            }
          g_string_append_printf (summary, "%s%u=%.2f%s", summary->len ? ", " : "", child, value,
                                  terminal ? (anot_search_tree_get_solution (job->tree, child)
                                              ? " (solution)" : " (final)") : "");
        }
      info_node = json_node_new (JSON_NODE_OBJECT);
      json_node_take_object (info_node, info);
      anot_search_tree_set_info (job->tree, child, info_node);
      json_node_unref (info_node);
    }

  anot_method_context_debug (job->context, ANOT_DEBUG_LEVEL_SUMMARY, "lats",
                             "%s: iteration %u: expanded node %u (depth %u): %s",
                             anot_method_context_get_request_id (job->context), job->iteration,
                             job->selected, anot_search_tree_get_depth (job->tree, job->selected),
                             summary->len ? summary->str : "no value");
  if (job->solution != ANOT_SEARCH_NODE_NONE)
    job->stop = ANOT_SEARCH_STOP_SOLUTION;
  iterate (task);
}

static void
phase_done (GTask *task,
            Phase  phase)
{
  Job *job = g_task_get_task_data (task);

  job->stats[phase].wall_ms += ms_since (job->phase_start_us);
  if (job->returned)
    return;

  if (job->user_cancellable != NULL && g_cancellable_is_cancelled (job->user_cancellable))
    {
      return_error (task, g_error_new_literal (G_IO_ERROR, G_IO_ERROR_CANCELLED,
                                               "The operation was cancelled"));
      return;
    }
  if (timed_out (job))
    {
      /* Children added this step stay unevaluated (never visited). */
      job->stop = ANOT_SEARCH_STOP_TIMEOUT;
      end_iteration_log (job);
      finish_search (task);
      return;
    }

  switch (phase)
    {
    case PHASE_SELECTION:
      after_selection (task);
      break;
    case PHASE_EXPANSION:
      after_expansion (task);
      break;
    case PHASE_EVALUATION:
      after_evaluation (task);
      break;
    case N_PHASES:
    default:
      g_assert_not_reached ();
    }
}

static gboolean
on_timeout (gpointer user_data)
{
  GTask *task = user_data;
  Job *job = g_task_get_task_data (task);

  job->timeout_id = 0;
  job->timed_out = TRUE;
  anot_method_context_debug (job->context, ANOT_DEBUG_LEVEL_SUMMARY, "lats",
                             "%s: timeout after %.0f ms; cancelling %u call(s) in flight",
                             anot_method_context_get_request_id (job->context),
                             ms_since (job->start_us), job->pending);
  /* Every call in flight comes back cancelled; the last one ends the
   * search with what the tree holds. */
  g_cancellable_cancel (job->cancellable);
  return G_SOURCE_REMOVE;
}

static void
on_user_cancelled (GCancellable *cancellable,
                   gpointer      user_data)
{
  g_cancellable_cancel (G_CANCELLABLE (user_data));
}

/* ------------------------------------------------------------------------ *
 * AnotMethod
 * ------------------------------------------------------------------------ */

static void
anot_method_lats_rank_async (AnotMethod          *method,
                             AnotQuery           *request,
                             GPtrArray           *candidates,
                             guint                k,
                             AnotMethodContext   *context,
                             GCancellable        *cancellable,
                             GAsyncReadyCallback  callback,
                             gpointer             user_data)
{
  g_autoptr(GTask) task = g_task_new (method, cancellable, callback, user_data);
  g_autoptr(GError) error = NULL;
  g_autofree char *system_base = NULL;
  Job *job;

  g_task_set_source_tag (task, anot_method_lats_rank_async);
  g_task_set_name (task, "[anot] lats rank");

  job = g_new0 (Job, 1);
  g_task_set_task_data (task, job, job_free);
  job->start_us = g_get_monotonic_time ();
  job->cancellable = g_cancellable_new ();
  job->user_cancellable = cancellable != NULL ? g_object_ref (cancellable) : NULL;
  job->context = context;
  job->llm = anot_llm_job_new ("lats", request, candidates,
                               k > 0 ? MIN (k, candidates->len) : candidates->len,
                               context, job->cancellable);
  job->settings = anot_method_settings_new ("lats");
  job->selection_candidates = g_array_new (FALSE, FALSE, sizeof (guint));
  job->slots = g_array_new (FALSE, TRUE, sizeof (Slot));
  job->new_children = g_array_new (FALSE, FALSE, sizeof (guint));
  job->child_options = g_array_new (FALSE, FALSE, sizeof (guint));
  job->iterations = json_array_new ();
  job->stop = ANOT_SEARCH_STOP_NONE;
  job->solution = ANOT_SEARCH_NODE_NONE;

  if (!read_params (job, &error))
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

  job->toolbox = anot_agent_toolbox_new (candidates);
  anot_agent_toolbox_set_max_observation_chars (job->toolbox, job->p.max_observation_chars);
  job->tree = anot_search_tree_new (request_text (job));
  job->n_text = g_strdup_printf ("%u", candidates->len);
  job->k_text = g_strdup_printf ("%u", anot_llm_job_get_k (job->llm));
  job->tools = anot_agent_toolbox_describe (job->toolbox);
  job->instruction = anot_llm_job_instruction (job->llm, PROMPTS);
  system_base = anot_llm_prompt (job->context, PROMPTS "/system.txt", "n", job->n_text, NULL);
  job->system_prompt = anot_llm_job_system_prompt (job->llm, system_base);

  if (job->user_cancellable != NULL)
    job->cancel_id = g_cancellable_connect (job->user_cancellable, G_CALLBACK (on_user_cancelled),
                                            g_object_ref (job->cancellable), g_object_unref);
  if (job->p.timeout_s > 0)
    job->timeout_id = g_timeout_add_full (G_PRIORITY_DEFAULT,
                                          (guint) MIN (job->p.timeout_s * 1000, G_MAXUINT),
                                          on_timeout, g_object_ref (task), g_object_unref);

  iterate (task);
}

static AnotRanking *
anot_method_lats_rank_finish (AnotMethod    *method,
                              GAsyncResult  *result,
                              GError       **error)
{
  g_return_val_if_fail (g_task_is_valid (result, method), NULL);

  return g_task_propagate_pointer (G_TASK (result), error);
}

static void
anot_method_lats_method_iface_init (AnotMethodInterface *iface)
{
  iface->rank_async = anot_method_lats_rank_async;
  iface->rank_finish = anot_method_lats_rank_finish;
}

static void
anot_method_lats_class_init (AnotMethodLatsClass *klass)
{
}

static void
anot_method_lats_class_finalize (AnotMethodLatsClass *klass)
{
}

static void
anot_method_lats_init (AnotMethodLats *self)
{
}

G_MODULE_EXPORT void
g_io_module_load (GIOModule *module)
{
  anot_method_lats_register_type (G_TYPE_MODULE (module));
  anot_plugin_implement_with_flags (ANOT_METHOD_EXTENSION_POINT_NAME,
                                    ANOT_TYPE_METHOD_LATS, "lats",
                                    "LATS, Language Agent Tree Search (Zhou et al., ICML 2024): UCT search over "
                                    "Thought/Action/Observation steps with the core's data tools; roles "
                                    "lats.selection, lats.expansion, lats.evaluation; calls: at most "
                                    "lats.max_calls (60)",
                                    ANOT_PLUGIN_SUPPORTS_DEFENSE);
  anot_plugin_declare_method_options ("lats",
                                      anot_method_option_new_int ("beam_width", 1, 32, 3, "actions proposed per expansion"),
                                      anot_method_option_new_int ("max_depth", 1, 100, 5, "steps of one trajectory"),
                                      anot_method_option_new_double ("exploration_weight", 0, 1000, G_SQRT2, "the UCT exploration constant"),
                                      anot_method_option_new_int ("max_iterations", 1, 100000, 10, "select-expand-evaluate iterations"),
                                      anot_method_option_new_double ("timeout", 0, 7 * 24 * 3600.0, DEFAULT_TIMEOUT, "seconds of wall clock per request (0: none); a row it cut says so"),
                                      anot_method_option_new_int ("max_calls", 1, 1000000, 60, "LLM calls per request"),
                                      anot_method_option_new_choice ("backprop", (const char * const[]) { "mean", "max", NULL }, 0, "how a value is propagated to the ancestors"),
                                      anot_method_option_new_choice ("selection", (const char * const[]) { "uct", "llm", NULL }, 0, "uct, or the model picks the node to expand"),
                                      anot_method_option_new_double ("solution_threshold", 0, 1, 0.9, "a finished trajectory at least this good ends the search"),
                                      anot_method_option_new_double ("reflection_threshold", 0, 1, 0.5, "below this value the evaluator writes a reflection"),
                                      anot_method_option_new_int ("max_observation_chars", 1, G_MAXINT, ANOT_AGENT_TOOLBOX_DEFAULT_MAX_OBSERVATION_CHARS, "characters of a tool result shown to the model"),
                                      anot_method_option_new_int ("max_reflections", 0, 1000, 3, "reflections kept in the prompts"),
                                      anot_method_option_new_boolean ("trace_tree", TRUE, "write the search tree into the trace"),
                                      anot_method_option_new_string ("tree_file", NULL, "append every request's search tree to this file"),
                                      NULL);
  anot_plugin_declare_method_roles ("lats", phase_roles[0], phase_roles[1], phase_roles[2], NULL);
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
