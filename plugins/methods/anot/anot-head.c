/* anot-head.c: ANoT-HEAD, the variant of the original's published runs
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Every ANoT figure the original published on philly_cafes came from its
 * methods/anot/ package at HEAD (methods.md §6.3), not from the
 * ANoT-explore variant anot-method-anot.c implements.  This is that
 * variant, selected with -O anot.variant=head or --compat original:
 *
 *  1. Planning (role "planner"): extract the request's conditions (1 call),
 *     map each to a field, its expected value and HARD or SOFT (1 call a
 *     condition), rule out the items failing a HARD one (1 call if any),
 *     and have an LWT skeleton written for the first SOFT one (1 call if
 *     there are candidates and a SOFT condition).
 *  2. Refinement (role "planner"): a ReAct loop over the skeleton with
 *     editing and data tools, until done() (1 to max_refine calls).
 *  3. Execution (role "scorer", the original's "worker"): the script runs
 *     on the LWT executor (1 call a step); the numbers of its output step
 *     are the ranking.
 *
 * Calls per request: 1 + C + [H > 0] + [SOFT and candidates] + R + S.
 */
#include "anot-head.h"

#include <string.h>

#include "anot-llm-job.h"

/* The fields ANoT-HEAD's resolve prompt offers on restaurants, as the
 * original listed them. */
#define HEAD_RESTAURANT_FIELDS \
  "NoiseLevel, GoodForKids, DogsAllowed, WiFi, HasTV, OutdoorSeating, CoatCheck, DriveThru, Alcohol, " \
  "RestaurantsTakeOut, RestaurantsReservations, RestaurantsGoodForGroups, BikeParking, Ambience.hipster, " \
  "Ambience.trendy, Ambience.casual, Ambience.romantic, RestaurantsPriceRange2"

#define PROMPTS "/org/anot/methods/anot"
#define READ_MAX_CHARS 2000
#define SNIPPET_RADIUS 100
#define TRACE_OUTPUT_CHARS 100
#define FINAL_OUTPUT_CHARS 500

typedef struct {
  char     *type;           /* ATTR, REVIEW, HOURS, SOCIAL, ... (upper case) */
  char     *sentiment;      /* the tag's subtype in lower case, or NULL */
  char     *description;
  char     *path;           /* from the resolve call, or NULL */
  char     *expected;       /* as the model wrote it, quotes stripped */
  gboolean  hard;
} Condition;

typedef struct {
  AnotMethodContext *context;
  GCancellable      *cancellable;
  GPtrArray         *candidates;
  guint              k;
  guint              max_refine;
  char              *request_text;
  char              *system_prompt;
  JsonNode          *data;         /* {"items": {"1": ..., ...}} */

  GPtrArray         *conditions;   /* Condition */
  guint              resolving;
  GArray            *kept;         /* 1-based numbers passing the hard conditions */
  gboolean           ruled_out;    /* the rule-out call was made */
  GPtrArray         *lines;        /* the script's lines while it is refined */
  guint              skeleton_steps;
  GPtrArray         *conversation; /* char*, joined with newlines */
  guint              iterations;
  JsonArray         *refine_trace;
  AnotLwtScript     *script;
  AnotLwtExecutor   *executor;
  gint64             phase_start;
  double             phase1_ms;
  double             phase2_ms;
} Head;

static void
condition_free (gpointer data)
{
  Condition *c = data;

  g_free (c->type);
  g_free (c->sentiment);
  g_free (c->description);
  g_free (c->path);
  g_free (c->expected);
  g_free (c);
}

static void
head_free (gpointer data)
{
  Head *h = data;

  g_clear_object (&h->context);
  g_clear_object (&h->cancellable);
  g_clear_pointer (&h->candidates, g_ptr_array_unref);
  g_free (h->request_text);
  g_free (h->system_prompt);
  g_clear_pointer (&h->data, json_node_unref);
  g_clear_pointer (&h->conditions, g_ptr_array_unref);
  g_clear_pointer (&h->kept, g_array_unref);
  g_clear_pointer (&h->lines, g_ptr_array_unref);
  g_clear_pointer (&h->conversation, g_ptr_array_unref);
  g_clear_pointer (&h->refine_trace, json_array_unref);
  g_clear_object (&h->script);
  g_clear_object (&h->executor);
  g_free (h);
}

static double
ms_since (gint64 start_us)
{
  return (g_get_monotonic_time () - start_us) / 1000.0;
}

static JsonObject *
items_object (Head *h)
{
  return json_object_get_object_member (json_node_get_object (h->data), "items");
}

static char *
kept_text (Head *h)
{
  g_autoptr(GString) out = g_string_new ("[");

  for (guint i = 0; i < h->kept->len; i++)
    g_string_append_printf (out, "%s%u", i ? ", " : "", g_array_index (h->kept, guint, i));
  g_string_append_c (out, ']');
  return g_string_free (g_steal_pointer (&out), FALSE);
}

static void
call_planner (GTask               *task,
              const char          *phase,
              const char          *prompt,
              GAsyncReadyCallback  callback)
{
  Head *h = g_task_get_task_data (task);

  anot_method_context_debug (h->context, ANOT_DEBUG_LEVEL_FULL, phase, "Prompt:\n%s", prompt);
  anot_method_context_complete_async (h->context, "planner", h->system_prompt, prompt,
                                      h->cancellable, callback, g_object_ref (task));
}

/* The reply's text, or NULL with the task returned (a failed planner call
 * fails the request, as it did in the original). */
static char *
finish_call (GTask        *task,
             GAsyncResult *res,
             const char   *what)
{
  Head *h = g_task_get_task_data (task);
  g_autoptr(GError) error = NULL;
  g_autoptr(AnotCompletion) completion = anot_method_context_complete_finish (h->context, res, &error);
  const char *text;

  if (completion == NULL)
    {
      g_prefix_error (&error, "ANoT-HEAD, %s: ", what);
      g_task_return_error (task, g_steal_pointer (&error));
      return NULL;
    }
  text = anot_completion_get_text (completion);
  return g_strdup (text != NULL ? text : "");
}

/* What @reply says between @marker and the next "===" (or its end), or
 * NULL when @marker is not in it.  "" for @marker: from the start. */
static char *
marked_section (const char *reply,
                const char *marker)
{
  const char *start = strstr (reply, marker);
  const char *end;

  if (start == NULL)
    return NULL;
  start += strlen (marker);
  end = strstr (start, "===");
  return end != NULL ? g_strndup (start, end - start) : g_strdup (start);
}

/* "(id)=LLM("instruction")" as the LWT writer writes it, or NULL with
 * @error for an id the engine refuses. */
static char *
step_line (const char  *id,
           const char  *instruction,
           GError     **error)
{
  g_autoptr(AnotLwtScript) script = anot_lwt_script_new ();
  AnotLwtStep *step = anot_lwt_script_add_step (script, id, instruction, error);

  return step != NULL ? anot_lwt_step_to_string (step) : NULL;
}

static void
set_single_step (Head       *h,
                 const char *instruction)
{
  g_autofree char *line = step_line ("final", instruction, NULL);

  g_ptr_array_set_size (h->lines, 0);
  g_ptr_array_add (h->lines, g_steal_pointer (&line));
}

/* ------------------------------------------------------------------------ *
 * Phase 3: execution and ranking
 * ------------------------------------------------------------------------ */

static JsonNode *
build_trace (Head          *h,
             AnotLwtResult *result,
             const char    *output,
             const guint   *top,
             guint          n_top,
             double         phase3_ms)
{
  g_autoptr(JsonBuilder) b = json_builder_new ();
  g_autofree char *final_output = NULL;

  json_builder_begin_object (b);
  json_builder_set_member_name (b, "variant");
  json_builder_add_string_value (b, "head");
  json_builder_set_member_name (b, "request_id");
  json_builder_add_string_value (b, anot_method_context_get_request_id (h->context));

  json_builder_set_member_name (b, "phase1");
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "conditions");
  json_builder_begin_array (b);
  for (guint i = 0; i < h->conditions->len; i++)
    {
      Condition *c = g_ptr_array_index (h->conditions, i);

      json_builder_begin_object (b);
      json_builder_set_member_name (b, "type");
      json_builder_add_string_value (b, c->type);
      json_builder_set_member_name (b, "sentiment");
      if (c->sentiment != NULL)
        json_builder_add_string_value (b, c->sentiment);
      else
        json_builder_add_null_value (b);
      json_builder_set_member_name (b, "description");
      json_builder_add_string_value (b, c->description);
      json_builder_set_member_name (b, "path");
      if (c->path != NULL)
        json_builder_add_string_value (b, c->path);
      else
        json_builder_add_null_value (b);
      json_builder_set_member_name (b, "expected");
      if (c->expected != NULL)
        json_builder_add_string_value (b, c->expected);
      else
        json_builder_add_null_value (b);
      json_builder_set_member_name (b, "hard");
      json_builder_add_boolean_value (b, c->hard);
      json_builder_end_object (b);
    }
  json_builder_end_array (b);
  json_builder_set_member_name (b, "ruled_out");
  json_builder_add_boolean_value (b, h->ruled_out);
  json_builder_set_member_name (b, "candidates");
  json_builder_begin_array (b);
  for (guint i = 0; i < h->kept->len; i++)
    json_builder_add_int_value (b, g_array_index (h->kept, guint, i));
  json_builder_end_array (b);
  json_builder_set_member_name (b, "skeleton_steps");
  json_builder_add_int_value (b, h->skeleton_steps);
  json_builder_set_member_name (b, "latency_ms");
  json_builder_add_double_value (b, h->phase1_ms);
  json_builder_end_object (b);

  json_builder_set_member_name (b, "phase2");
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "expanded_lwt");
  json_builder_begin_array (b);
  for (guint i = 0; i < anot_lwt_script_get_n_steps (h->script); i++)
    {
      g_autofree char *line = anot_lwt_step_to_string (anot_lwt_script_get_step (h->script, i));

      json_builder_add_string_value (b, line);
    }
  json_builder_end_array (b);
  json_builder_set_member_name (b, "react_iterations");
  json_builder_add_int_value (b, h->iterations);
  json_builder_set_member_name (b, "iterations");
  json_builder_add_value (b, json_node_init_array (json_node_alloc (), h->refine_trace));
  json_builder_set_member_name (b, "latency_ms");
  json_builder_add_double_value (b, h->phase2_ms);
  json_builder_end_object (b);

  json_builder_set_member_name (b, "phase3");
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "step_results");
  json_builder_add_value (b, anot_lwt_result_to_json (result, TRACE_OUTPUT_CHARS));
  json_builder_set_member_name (b, "top_k");
  json_builder_begin_array (b);
  for (guint i = 0; i < n_top; i++)
    json_builder_add_int_value (b, top[i]);
  json_builder_end_array (b);
  json_builder_set_member_name (b, "final_output");
  final_output = g_utf8_substring (output, 0, MIN (g_utf8_strlen (output, -1), FINAL_OUTPUT_CHARS));
  json_builder_add_string_value (b, final_output);
  json_builder_set_member_name (b, "latency_ms");
  json_builder_add_double_value (b, phase3_ms);
  json_builder_end_object (b);

  json_builder_end_object (b);
  return json_builder_get_root (b);
}

static void
on_executed (GObject      *source,
             GAsyncResult *res,
             gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  Head *h = g_task_get_task_data (task);
  g_autoptr(GError) error = NULL;
  g_autoptr(AnotLwtResult) result = NULL;
  g_autoptr(JsonNode) trace = NULL;
  g_autofree guint *top = NULL;
  AnotRanking *ranking;
  AnotLwtStep *output_step;
  const char *output = NULL;
  guint n_top = 0;

  result = anot_lwt_executor_execute_finish (ANOT_LWT_EXECUTOR (source), res, &error);
  if (result == NULL)
    {
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }
  output_step = anot_lwt_script_get_output_step (h->script);
  if (output_step != NULL)
    output = anot_lwt_result_get_output (result, anot_lwt_step_get_id (output_step));
  if (output == NULL)
    output = "";

  /* The numbers of the output in 1..N, first k; none: 1..min(k, N). */
  top = anot_parse_indices_compat (output, h->candidates->len, h->k, ANOT_PARSE_FLAGS_NONE, &n_top);
  if (n_top == 0)
    {
      g_free (top);
      n_top = MIN (h->k, h->candidates->len);
      top = g_new (guint, MAX (n_top, 1));
      for (guint i = 0; i < n_top; i++)
        top[i] = i + 1;
      anot_method_context_debug (h->context, ANOT_DEBUG_LEVEL_SUMMARY, "P3",
                                 "No item number in the script's output; ranking 1..%u", n_top);
    }

  ranking = anot_ranking_new ();
  for (guint i = 0; i < n_top; i++)
    anot_ranking_append (ranking, top[i] - 1, (double) (n_top - i));
  anot_ranking_set_raw_response (ranking, output);
  trace = build_trace (h, result, output, top, n_top, ms_since (h->phase_start));
  anot_ranking_set_trace (ranking, trace);
  g_task_return_pointer (task, ranking, g_object_unref);
}

static GArray *find_mentions (Head       *h,
                              guint       n,
                              const char *friend,
                              const char *keyword,
                              guint       max);

/* [NEEDS_SEARCH:n:kw] and [NEEDS_SOCIAL_SEARCH:n:friend:kw] in a step are
 * searches the original ran in code after the refinement: the marker
 * becomes slices of up to two matching reviews,
 * {(context)}[n][reviews][r][text][p-100:p+100]; a step whose search
 * finds nothing answers "no". */
static char *
resolve_searches (Head       *h,
                  const char *instruction,
                  gboolean   *out_none)
{
  g_autoptr(GRegex) marker = g_regex_new ("\\[NEEDS_(SOCIAL_)?SEARCH:(\\d+):([^\\]]*)\\]", 0, 0, NULL);
  g_autoptr(GMatchInfo) info = NULL;
  g_autoptr(GString) out = g_string_new (NULL);
  const char *done = instruction;

  *out_none = FALSE;
  g_regex_match (marker, instruction, 0, &info);
  while (g_match_info_matches (info))
    {
      g_autofree char *social = g_match_info_fetch (info, 1);
      g_autofree char *number = g_match_info_fetch (info, 2);
      g_autofree char *rest = g_match_info_fetch (info, 3);
      g_auto(GStrv) parts = g_strsplit (rest, ":", 2);
      guint n = (guint) g_ascii_strtoull (number, NULL, 10);
      gboolean is_social = social[0] != '\0';
      const char *friend = is_social ? parts[0] : NULL;
      const char *keyword = is_social ? (parts[0] != NULL ? parts[1] : NULL) : rest;
      g_autoptr(GArray) found = NULL;
      int start_pos, end_pos;

      g_match_info_fetch_pos (info, 0, &start_pos, &end_pos);
      g_string_append_len (out, done, instruction + start_pos - done);
      done = instruction + end_pos;
      found = find_mentions (h, n, friend, keyword != NULL ? keyword : "", 2);
      if (found->len == 0)
        *out_none = TRUE;
      for (guint i = 0; i < found->len; i++)
        {
          const glong *mention = &g_array_index (found, glong, 2 * i);

          g_string_append_printf (out, "%s{(context)}[%u][reviews][%ld][text][%ld:%ld]", i ? " " : "",
                                  n, mention[0], MAX (0, mention[1] - SNIPPET_RADIUS),
                                  mention[1] + SNIPPET_RADIUS);
        }
      g_match_info_next (info, NULL);
    }
  if (done == instruction)
    return NULL;
  g_string_append (out, done);
  return g_string_free (g_steal_pointer (&out), FALSE);
}

static void
rewrite_searches (Head *h)
{
  for (guint i = 0; i < h->lines->len; i++)
    {
      g_autoptr(AnotLwtScript) one = anot_lwt_script_parse (h->lines->pdata[i],
                                                            ANOT_LWT_PARSE_FLAGS_LENIENT, NULL);
      AnotLwtStep *step;
      g_autofree char *rewritten = NULL;
      g_autofree char *line = NULL;
      gboolean none;

      if (one == NULL || anot_lwt_script_get_n_steps (one) == 0)
        continue;
      step = anot_lwt_script_get_step (one, 0);
      rewritten = resolve_searches (h, anot_lwt_step_get_instruction (step), &none);
      if (rewritten == NULL)
        continue;
      line = step_line (anot_lwt_step_get_id (step), none ? "Output exactly: no" : rewritten, NULL);
      if (line == NULL)
        continue;
      g_free (h->lines->pdata[i]);
      h->lines->pdata[i] = g_steal_pointer (&line);
    }
}

static void
phase3_start (GTask *task)
{
  Head *h = g_task_get_task_data (task);
  g_autoptr(GString) text = g_string_new (NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) query = json_node_init_string (json_node_alloc (), h->request_text);
  JsonNode *items = json_object_get_member (json_node_get_object (h->data), "items");

  h->phase2_ms = ms_since (h->phase_start);
  rewrite_searches (h);
  for (guint i = 0; i < h->lines->len; i++)
    g_string_append_printf (text, "%s\n", (char *) g_ptr_array_index (h->lines, i));
  h->script = anot_lwt_script_parse (text->str, ANOT_LWT_PARSE_FLAGS_LENIENT, &error);
  if (h->script == NULL)
    {
      /* The refinement deleted every step: the original ran nothing and
       * fell back to 1..k; an empty script does the same. */
      h->script = anot_lwt_script_new ();
      anot_method_context_debug (h->context, ANOT_DEBUG_LEVEL_SUMMARY, "P3",
                                 "No step left after refinement: %s", error->message);
    }

  h->executor = anot_lwt_executor_new (h->context);
  anot_lwt_executor_set_role (h->executor, "scorer");
  anot_lwt_executor_set_system_prompt (h->executor, h->system_prompt);
  anot_lwt_executor_set_debug_phase (h->executor, "P3");
  anot_lwt_executor_set_failure_output (h->executor, "NO");
  anot_lwt_executor_set_variable (h->executor, "query", query);
  anot_lwt_executor_set_variable (h->executor, "input", items);
  anot_lwt_executor_set_variable (h->executor, "context", items);
  anot_lwt_executor_set_variable (h->executor, "items", items);
  anot_method_context_debug (h->context, ANOT_DEBUG_LEVEL_SUMMARY, "P3",
                             "Executing %u steps in %u layers...",
                             anot_lwt_script_get_n_steps (h->script),
                             anot_lwt_script_get_n_layers (h->script));
  h->phase_start = g_get_monotonic_time ();
  anot_lwt_executor_execute_async (h->executor, h->script, h->cancellable, on_executed,
                                   g_object_ref (task));
}

/* ------------------------------------------------------------------------ *
 * Phase 2: ReAct refinement
 * ------------------------------------------------------------------------ */

typedef struct {
  GPtrArray *args;      /* char*; numbers as their digits */
} Call;

/* The arguments of a call whose "(" is at @p: quoted strings (\" and \n
 * escapes) or bare tokens, comma-separated, up to the ")" outside quotes.
 * Returns the position after ")", or NULL when the call is not closed. */
static const char *
parse_args (const char *p,
            GPtrArray  *args)
{
  g_assert (*p == '(');
  p++;
  for (;;)
    {
      while (*p == ' ' || *p == '\t' || *p == '\n')
        p++;
      if (*p == ')')
        return p + 1;
      if (*p == '"' || *p == '\'')
        {
          char quote = *p++;
          GString *value = g_string_new (NULL);

          while (*p != '\0' && *p != quote)
            {
              if (*p == '\\' && p[1] != '\0')
                {
                  p++;
                  g_string_append_c (value, *p == 'n' ? '\n' : *p);
                }
              else
                g_string_append_c (value, *p);
              p++;
            }
          if (*p == '\0')
            {
              g_string_free (value, TRUE);
              return NULL;
            }
          p++;
          g_ptr_array_add (args, g_string_free (value, FALSE));
        }
      else
        {
          const char *start = p;

          while (*p != '\0' && *p != ',' && *p != ')')
            p++;
          if (*p == '\0')
            return NULL;
          g_ptr_array_add (args, g_strstrip (g_strndup (start, p - start)));
        }
      while (*p == ' ' || *p == '\t' || *p == '\n')
        p++;
      if (*p == ',')
        p++;
      else if (*p != ')')
        return NULL;
    }
}

static gboolean
arg_uint (GPtrArray *args,
          guint      i,
          guint64   *out)
{
  return i < args->len && g_ascii_string_to_unsigned (args->pdata[i], 10, 0, G_MAXUINT, out, NULL);
}

/* The id of an LWT line, or NULL. */
static char *
line_id (const char *line)
{
  g_autoptr(AnotLwtScript) script = anot_lwt_script_parse (line, ANOT_LWT_PARSE_FLAGS_LENIENT, NULL);

  if (script == NULL || anot_lwt_script_get_n_steps (script) == 0)
    return NULL;
  return g_strdup (anot_lwt_step_get_id (anot_lwt_script_get_step (script, 0)));
}

static int
find_step (Head       *h,
           const char *id)
{
  for (guint i = 0; i < h->lines->len; i++)
    {
      g_autofree char *found = line_id (h->lines->pdata[i]);

      if (g_strcmp0 (found, id) == 0)
        return (int) i;
    }
  return -1;
}

static JsonObject *
item_record (Head  *h,
             guint  n)
{
  char key[16];
  JsonObject *items = items_object (h);

  g_snprintf (key, sizeof key, "%u", n);
  return json_object_has_member (items, key) ? json_object_get_object_member (items, key) : NULL;
}

static JsonArray *
item_reviews (Head  *h,
              guint  n)
{
  JsonObject *record = item_record (h, n);

  if (record == NULL || !json_object_has_member (record, "reviews"))
    return NULL;
  return json_object_get_array_member (record, "reviews");
}

static const char *
review_text (JsonArray *reviews,
             guint      r)
{
  JsonObject *review = json_array_get_object_element (reviews, r);

  return json_object_get_string_member_with_default (review, "text", "");
}

static char *
tool_read (Head       *h,
           const char *path_text)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(AnotDataPath) path = anot_data_path_parse (path_text, &error);
  g_autoptr(GPtrArray) found = NULL;
  g_autofree char *text = NULL;
  JsonNode *node;

  if (path != NULL)
    found = anot_data_path_resolve (path, h->data, NULL, &error);
  if (found == NULL || found->len == 0)
    return g_strdup_printf ("Error: path '%s' not found", path_text);
  node = g_ptr_array_index (found, 0);
  if (JSON_NODE_HOLDS_VALUE (node) && json_node_get_value_type (node) == G_TYPE_STRING)
    text = g_strdup (json_node_get_string (node));
  else
    text = json_to_string (node, FALSE);
  if (g_utf8_strlen (text, -1) > READ_MAX_CHARS)
    {
      g_autofree char *cut = g_utf8_substring (text, 0, READ_MAX_CHARS);

      return g_strconcat (cut, "... (truncated)", NULL);
    }
  return g_steal_pointer (&text);
}

static const char *
review_author (JsonArray *reviews,
               guint      r)
{
  JsonObject *review = json_array_get_object_element (reviews, r);
  JsonNode *user = json_object_get_member (review, "user");

  if (user == NULL || !JSON_NODE_HOLDS_OBJECT (user))
    return "";
  return json_object_get_string_member_with_default (json_node_get_object (user), "name", "");
}

/* The reviews of item @n that mention @keyword (case-insensitively), and
 * that @friend wrote when it is not NULL: each review's index and the
 * position of the first mention, at most @max of them. */
static GArray *
find_mentions (Head       *h,
               guint       n,
               const char *friend,
               const char *keyword,
               guint       max)
{
  JsonArray *reviews = item_reviews (h, n);
  GArray *found = g_array_new (FALSE, FALSE, sizeof (glong) * 2);
  g_autofree char *needle = g_utf8_strdown (keyword, -1);

  if (reviews == NULL || needle[0] == '\0')
    return found;
  for (guint r = 0; r < json_array_get_length (reviews) && found->len < max; r++)
    {
      const char *text = review_text (reviews, r);
      g_autofree char *lower = NULL;
      const char *hit;
      glong mention[2];

      if (friend != NULL && g_utf8_collate (review_author (reviews, r), friend) != 0 &&
          g_ascii_strcasecmp (review_author (reviews, r), friend) != 0)
        continue;
      lower = g_utf8_strdown (text, -1);
      hit = strstr (lower, needle);
      if (hit == NULL)
        continue;
      mention[0] = r;
      mention[1] = g_utf8_pointer_to_offset (lower, hit);
      g_array_append_vals (found, mention, 1);
    }
  return found;
}

static char *
tool_keyword_search (Head       *h,
                     guint       n,
                     const char *friend,
                     const char *keyword)
{
  JsonArray *reviews = item_reviews (h, n);
  g_autoptr(GArray) found = NULL;
  g_autoptr(GString) out = g_string_new (NULL);

  if (reviews == NULL)
    return g_strdup_printf ("Error: no item %u", n);
  found = find_mentions (h, n, friend, keyword, G_MAXUINT);
  for (guint i = 0; i < found->len; i++)
    {
      const glong *mention = &g_array_index (found, glong, 2 * i);
      const char *text = review_text (reviews, (guint) mention[0]);
      glong start = MAX (0, mention[1] - SNIPPET_RADIUS);
      glong end = MIN (g_utf8_strlen (text, -1), mention[1] + SNIPPET_RADIUS);
      g_autofree char *snippet = g_utf8_substring (text, start, end);

      g_string_append_printf (out, "%sreview %ld [%ld:%ld]: %s", i ? "\n" : "", mention[0], start,
                              end, snippet);
    }
  if (out->len == 0)
    return friend != NULL
           ? g_strdup_printf ("No review of item %u by %s mentions '%s'", n, friend, keyword)
           : g_strdup_printf ("No review of item %u mentions '%s'", n, keyword);
  return g_string_free (g_steal_pointer (&out), FALSE);
}

/* One tool call; NULL for a name that is not a tool. */
static char *
run_tool (Head       *h,
          const char *name,
          GPtrArray  *args)
{
  g_autoptr(GError) error = NULL;
  guint64 i, r, start, length;

  if (strcmp (name, "lwt_list") == 0)
    {
      g_autoptr(GString) out = g_string_new (NULL);

      for (guint l = 0; l < h->lines->len; l++)
        g_string_append_printf (out, "%u: %s\n", l, (char *) h->lines->pdata[l]);
      return out->len > 0 ? g_strndup (out->str, out->len - 1) : g_strdup ("(empty script)");
    }
  if (strcmp (name, "update_step") == 0 || strcmp (name, "insert_step") == 0 ||
      strcmp (name, "lwt_set_prompt") == 0 || strcmp (name, "lwt_insert_prompt") == 0)
    {
      gboolean positional = g_str_has_prefix (name, "lwt_");
      guint first = positional ? 1 : 0;
      g_autofree char *line = NULL;
      int at;

      if (args->len != first + 2 || (positional && !arg_uint (args, 0, &i)))
        return g_strdup_printf ("Error: %s takes %s\"id\", \"prompt\"", name, positional ? "i, " : "");
      line = step_line (args->pdata[first], args->pdata[first + 1], &error);
      if (line == NULL)
        return g_strdup_printf ("Error: %s", error->message);
      at = find_step (h, args->pdata[first]);
      if (strcmp (name, "update_step") == 0)
        {
          if (at < 0)
            return g_strdup_printf ("Error: no step '%s'", (char *) args->pdata[first]);
          g_free (h->lines->pdata[at]);
          h->lines->pdata[at] = g_steal_pointer (&line);
          return g_strdup_printf ("Updated step %s", (char *) args->pdata[first]);
        }
      if (strcmp (name, "insert_step") == 0)
        {
          int final = find_step (h, "final");

          if (at >= 0)
            return g_strdup_printf ("Error: step '%s' exists", (char *) args->pdata[first]);
          g_ptr_array_insert (h->lines, final >= 0 ? final : (int) h->lines->len, g_steal_pointer (&line));
          return g_strdup_printf ("Inserted step %s", (char *) args->pdata[first]);
        }
      if (i > h->lines->len || (strcmp (name, "lwt_set_prompt") == 0 && i >= h->lines->len))
        return g_strdup_printf ("Error: no line %" G_GUINT64_FORMAT, i);
      if (strcmp (name, "lwt_set_prompt") == 0)
        {
          g_free (h->lines->pdata[i]);
          h->lines->pdata[i] = g_steal_pointer (&line);
        }
      else
        g_ptr_array_insert (h->lines, (int) i, g_steal_pointer (&line));
      return g_strdup_printf ("Line %" G_GUINT64_FORMAT " set", i);
    }
  if (strcmp (name, "lwt_set") == 0 || strcmp (name, "lwt_insert") == 0)
    {
      g_autofree char *id = NULL;

      if (args->len != 2 || !arg_uint (args, 0, &i))
        return g_strdup_printf ("Error: %s takes i, \"(id)=LLM(...)\"", name);
      id = line_id (args->pdata[1]);
      if (id == NULL)
        return g_strdup_printf ("Error: not an LWT step: %s", (char *) args->pdata[1]);
      if (i > h->lines->len || (strcmp (name, "lwt_set") == 0 && i >= h->lines->len))
        return g_strdup_printf ("Error: no line %" G_GUINT64_FORMAT, i);
      if (strcmp (name, "lwt_set") == 0)
        {
          g_free (h->lines->pdata[i]);
          h->lines->pdata[i] = g_strdup (args->pdata[1]);
        }
      else
        g_ptr_array_insert (h->lines, (int) i, g_strdup (args->pdata[1]));
      return g_strdup_printf ("Line %" G_GUINT64_FORMAT " set", i);
    }
  if (strcmp (name, "lwt_delete") == 0)
    {
      if (!arg_uint (args, 0, &i) || i >= h->lines->len)
        return g_strdup ("Error: lwt_delete takes the number of an existing line");
      g_ptr_array_remove_index (h->lines, (guint) i);
      return g_strdup_printf ("Line %" G_GUINT64_FORMAT " deleted", i);
    }
  if (strcmp (name, "review_length") == 0 || strcmp (name, "get_review_lengths") == 0)
    {
      JsonArray *reviews = arg_uint (args, 0, &i) ? item_reviews (h, (guint) i) : NULL;
      g_autoptr(GString) out = g_string_new ("[");

      if (reviews == NULL)
        return g_strdup_printf ("Error: %s takes the number of an item", name);
      if (strcmp (name, "review_length") == 0)
        return g_strdup_printf ("%u", json_array_get_length (reviews));
      for (guint l = 0; l < json_array_get_length (reviews); l++)
        g_string_append_printf (out, "%s%ld", l ? ", " : "", g_utf8_strlen (review_text (reviews, l), -1));
      g_string_append_c (out, ']');
      return g_string_free (g_steal_pointer (&out), FALSE);
    }
  if (strcmp (name, "keyword_search") == 0)
    {
      if (args->len != 2 || !arg_uint (args, 0, &i))
        return g_strdup ("Error: keyword_search takes n, \"keyword\"");
      return tool_keyword_search (h, (guint) i, NULL, args->pdata[1]);
    }
  if (strcmp (name, "social_search") == 0)
    {
      if (args->len != 3 || !arg_uint (args, 0, &i))
        return g_strdup ("Error: social_search takes n, \"friend\", \"keyword\"");
      return tool_keyword_search (h, (guint) i, args->pdata[1], args->pdata[2]);
    }
  if (strcmp (name, "get_review_snippet") == 0)
    {
      JsonArray *reviews = arg_uint (args, 0, &i) ? item_reviews (h, (guint) i) : NULL;
      const char *text;

      if (reviews == NULL || !arg_uint (args, 1, &r) || !arg_uint (args, 2, &start) ||
          !arg_uint (args, 3, &length) || r >= json_array_get_length (reviews))
        return g_strdup ("Error: get_review_snippet takes n, r, start, length of an existing review");
      text = review_text (reviews, (guint) r);
      start = MIN (start, (guint64) g_utf8_strlen (text, -1));
      return g_utf8_substring (text, (glong) start,
                               (glong) MIN (start + length, (guint64) g_utf8_strlen (text, -1)));
    }
  if (strcmp (name, "read") == 0)
    {
      if (args->len != 1)
        return g_strdup ("Error: read takes one path");
      return tool_read (h, args->pdata[0]);
    }
  return NULL;
}

/* The tools, in the order the original looked for them in a reply. */
static const char * const tool_names[] = {
  "lwt_list", "lwt_set", "lwt_set_prompt", "update_step", "insert_step", "lwt_delete",
  "lwt_insert", "lwt_insert_prompt", "review_length", "get_review_lengths", "keyword_search",
  "social_search", "get_review_snippet", "read",
};

/* Runs every tool call of @reply; the observation (one result alone,
 * several as `name: result` lines), or NULL when there was none. */
static char *
run_tools (Head       *h,
           const char *reply,
           JsonArray  *calls)
{
  g_autoptr(GPtrArray) names = g_ptr_array_new ();
  g_autoptr(GPtrArray) results = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GString) out = g_string_new (NULL);

  for (guint t = 0; t < G_N_ELEMENTS (tool_names); t++)
    {
      gsize len = strlen (tool_names[t]);

      for (const char *p = strstr (reply, tool_names[t]); p != NULL; p = strstr (p + 1, tool_names[t]))
        {
          g_autoptr(GPtrArray) args = g_ptr_array_new_with_free_func (g_free);
          const char *q = p + len;
          char *result;

          /* A whole word: "read" in "thread(" or "lwt_set" in
           * "lwt_set_prompt(" is not this tool. */
          if ((p > reply && (g_ascii_isalnum (p[-1]) || p[-1] == '_')) || *q != '(')
            continue;
          if (parse_args (q, args) == NULL)
            continue;
          result = run_tool (h, tool_names[t], args);
          if (result == NULL)
            continue;
          json_array_add_string_element (calls, tool_names[t]);
          g_ptr_array_add (names, (gpointer) tool_names[t]);
          g_ptr_array_add (results, result);
        }
    }
  if (results->len == 0)
    return NULL;
  if (results->len == 1)
    return g_strdup (results->pdata[0]);
  for (guint i = 0; i < results->len; i++)
    g_string_append_printf (out, "%s%s: %s", i ? "\n" : "", (char *) names->pdata[i],
                            (char *) results->pdata[i]);
  return g_string_free (g_steal_pointer (&out), FALSE);
}

static void refine_next (GTask *task);

static char *
script_text (Head *h)
{
  g_ptr_array_add (h->lines, NULL);
  {
    char *text = g_strjoinv ("\n", (char **) h->lines->pdata);

    g_ptr_array_remove_index (h->lines, h->lines->len - 1);
    return text;
  }
}

static void
on_refined (GObject      *source,
            GAsyncResult *res,
            gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  Head *h = g_task_get_task_data (task);
  g_autofree char *reply = finish_call (task, res, "refinement");
  g_autofree char *observation = NULL;
  g_autofree char *lower = NULL;
  JsonObject *entry;
  JsonArray *calls;

  if (reply == NULL)
    return;
  anot_method_context_debug (h->context, ANOT_DEBUG_LEVEL_FULL, "P2", "Response:\n%s", reply);

  entry = json_object_new ();
  calls = json_array_new ();
  json_object_set_int_member (entry, "iteration", h->iterations);
  json_object_set_array_member (entry, "tools", calls);
  json_array_add_object_element (h->refine_trace, entry);

  if (reply[strspn (reply, " \t\r\n")] == '\0')
    {
      json_object_set_string_member (entry, "end", "empty reply");
      phase3_start (task);
      return;
    }
  observation = run_tools (h, reply, calls);
  lower = g_ascii_strdown (reply, -1);
  if (strstr (lower, "done()") != NULL)
    {
      json_object_set_string_member (entry, "end", "done");
      phase3_start (task);
      return;
    }
  if (observation != NULL)
    g_ptr_array_add (h->conversation, g_strdup_printf ("\n%s\nObservation: %s\n", reply, observation));
  else
    g_ptr_array_add (h->conversation,
                     g_strdup_printf ("\n%s\nObservation: no tool call found; call a tool such as "
                                      "update_step(\"id\", \"prompt\"), or done() when the script "
                                      "is ready.\n", reply));
  if (h->iterations >= h->max_refine)
    {
      json_object_set_string_member (entry, "end", "max_iterations");
      phase3_start (task);
      return;
    }
  refine_next (task);
}

static void
refine_next (GTask *task)
{
  Head *h = g_task_get_task_data (task);
  g_autofree char *script = script_text (h);
  g_autofree char *candidates = kept_text (h);
  /* --compat original: the original's prompt offers only update_step and
   * done() (methods.md §6.3), though every tool of a reply still runs. */
  g_autofree char *base = anot_llm_prompt (h->context,
                                           anot_method_context_get_compat (h->context) == ANOT_COMPAT_MODE_ORIGINAL
                                           ? PROMPTS "/head-refine-original.txt" : PROMPTS "/head-refine.txt",
                                           "request", h->request_text,
                                           "candidates", candidates,
                                           "script", script,
                                           NULL);
  g_autofree char *history = NULL;
  g_autofree char *prompt = NULL;

  h->iterations++;
  g_ptr_array_add (h->conversation, NULL);
  history = g_strjoinv ("\n", (char **) h->conversation->pdata);
  g_ptr_array_remove_index (h->conversation, h->conversation->len - 1);
  prompt = history[0] != '\0' ? g_strconcat (base, "\n", history, NULL) : g_strdup (base);
  call_planner (task, "P2", prompt, on_refined);
}

static void
phase2_start (GTask *task)
{
  Head *h = g_task_get_task_data (task);

  h->phase1_ms = ms_since (h->phase_start);
  h->phase_start = g_get_monotonic_time ();
  anot_method_context_debug (h->context, ANOT_DEBUG_LEVEL_SUMMARY, "P2",
                             "Refining %u steps (candidates %u of %u)", h->lines->len, h->kept->len,
                             h->candidates->len);
  refine_next (task);
}

/* ------------------------------------------------------------------------ *
 * Phase 1: extract, resolve, rule out, skeleton
 * ------------------------------------------------------------------------ */

static void
on_skeleton (GObject      *source,
             GAsyncResult *res,
             gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  Head *h = g_task_get_task_data (task);
  g_autofree char *reply = finish_call (task, res, "skeleton");
  g_autoptr(GRegex) step_re = NULL;
  g_autoptr(GMatchInfo) info = NULL;
  g_autofree char *section = NULL;

  if (reply == NULL)
    return;
  section = marked_section (reply, "===LWT_SKELETON===");
  if (section == NULL)
    section = marked_section (reply, "");

  step_re = g_regex_new ("\\((\\w+)\\)\\s*=\\s*LLM\\s*\\(\\s*['\"](.+?)['\"]\\s*\\)", G_REGEX_DOTALL, 0, NULL);
  g_ptr_array_set_size (h->lines, 0);
  g_regex_match (step_re, section, 0, &info);
  while (g_match_info_matches (info))
    {
      g_autofree char *id = g_match_info_fetch (info, 1);
      g_autofree char *instruction = g_match_info_fetch (info, 2);
      g_autofree char *line = step_line (id, instruction, NULL);

      if (line != NULL)
        g_ptr_array_add (h->lines, g_steal_pointer (&line));
      g_match_info_next (info, NULL);
    }
  h->skeleton_steps = h->lines->len;
  if (h->lines->len == 0)
    {
      g_autofree char *candidates = kept_text (h);
      g_autofree char *instruction = g_strdup_printf ("Rank the candidates %s for the request: "
                                                      "{(query)}. Output their numbers, best first, "
                                                      "comma-separated.", candidates);

      anot_method_context_debug (h->context, ANOT_DEBUG_LEVEL_SUMMARY, "P1",
                                 "No step in the skeleton; one fallback step");
      set_single_step (h, instruction);
    }
  phase2_start (task);
}

static Condition *
first_soft (Head *h)
{
  for (guint i = 0; i < h->conditions->len; i++)
    {
      Condition *c = g_ptr_array_index (h->conditions, i);

      if (!c->hard)
        return c;
    }
  return NULL;
}

static void
skeleton_start (GTask *task)
{
  Head *h = g_task_get_task_data (task);
  Condition *soft = first_soft (h);
  g_autofree char *candidates = kept_text (h);

  if (h->kept->len == 0)
    {
      set_single_step (h, "Output exactly: []");
      phase2_start (task);
      return;
    }
  if (soft == NULL)
    {
      g_autoptr(GString) top = g_string_new (NULL);
      g_autofree char *instruction = NULL;

      for (guint i = 0; i < h->kept->len && i < h->k; i++)
        g_string_append_printf (top, "%s%u", i ? ", " : "", g_array_index (h->kept, guint, i));
      instruction = g_strdup_printf ("All of %s passed the hard conditions. Output: %s",
                                     candidates, top->str);
      set_single_step (h, instruction);
      phase2_start (task);
      return;
    }
  {
    g_autofree char *prompt = anot_llm_prompt (h->context, PROMPTS "/head-skeleton.txt",
                                               "request", h->request_text,
                                               "candidates", candidates,
                                               "condition", soft->description,
                                               NULL);

    call_planner (task, "P1", prompt, on_skeleton);
  }
}

static void
on_ruled_out (GObject      *source,
              GAsyncResult *res,
              gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  Head *h = g_task_get_task_data (task);
  g_autofree char *reply = finish_call (task, res, "rule-out");
  g_autoptr(GRegex) digits = g_regex_new ("\\d+", 0, 0, NULL);
  g_autoptr(GRegex) list = g_regex_new ("\\[\\s*\\d+(?:\\s*,\\s*\\d+)*\\s*\\]", 0, 0, NULL);
  g_autoptr(GMatchInfo) info = NULL;
  g_autofree char *region = NULL;

  if (reply == NULL)
    return;
  region = marked_section (reply, "===CANDIDATES===");
  if (region == NULL && g_regex_match (list, reply, 0, &info))
    region = g_match_info_fetch (info, 0);
  g_clear_pointer (&info, g_match_info_free);

  g_array_set_size (h->kept, 0);
  if (region != NULL)
    {
      g_regex_match (digits, region, 0, &info);
      while (g_match_info_matches (info))
        {
          g_autofree char *d = g_match_info_fetch (info, 0);
          guint n = (guint) g_ascii_strtoull (d, NULL, 10);

          g_array_append_val (h->kept, n);
          g_match_info_next (info, NULL);
        }
    }
  if (h->kept->len == 0)
    for (guint i = 1; i <= h->candidates->len; i++)
      g_array_append_val (h->kept, i);
  anot_method_context_debug (h->context, ANOT_DEBUG_LEVEL_SUMMARY, "P1",
                             "%u of %u candidates pass the hard conditions", h->kept->len,
                             h->candidates->len);
  skeleton_start (task);
}

/* `Field=value` of one hard path for one item (`Ambience={hipster=True}`
 * for a nested field), each value as the validator reads it and Python
 * prints it: the original printed the raw repr, so one listing showed
 * `WiFi='free'` for Yelp's `u'free'` and `WiFi="'free'"` for its
 * `'free'`, two spellings of one value (docs/fidelity.md). */
static void
append_field (GString    *out,
              JsonObject *record,
              const char *path)
{
  g_auto(GStrv) parts = g_strsplit (path, ".", 2);
  JsonObject *attributes = json_object_has_member (record, "attributes") &&
                           JSON_NODE_HOLDS_OBJECT (json_object_get_member (record, "attributes"))
                           ? json_object_get_object_member (record, "attributes") : NULL;
  JsonNode *node = NULL;
  g_autofree char *repr = NULL;

  if (parts[0] == NULL)
    return;
  if (attributes != NULL && json_object_has_member (attributes, parts[0]))
    node = json_object_get_member (attributes, parts[0]);
  else if (json_object_has_member (record, parts[0]))
    node = json_object_get_member (record, parts[0]);

  if (parts[1] != NULL)
    {
      JsonNode *inner = node != NULL && JSON_NODE_HOLDS_OBJECT (node) &&
                        json_object_has_member (json_node_get_object (node), parts[1])
                        ? json_object_get_member (json_node_get_object (node), parts[1]) : NULL;

      repr = inner != NULL ? anot_json_to_validator_repr (inner) : g_strdup ("None");
      g_string_append_printf (out, "%s={%s=%s}", parts[0], parts[1], repr);
      return;
    }
  repr = node != NULL ? anot_json_to_validator_repr (node) : g_strdup ("None");
  g_string_append_printf (out, "%s=%s", parts[0], repr);
}

static void
ruleout_start (GTask *task)
{
  Head *h = g_task_get_task_data (task);
  g_autoptr(GString) conditions = g_string_new (NULL);
  g_autoptr(GString) listing = g_string_new (NULL);
  g_autoptr(GPtrArray) paths = g_ptr_array_new ();
  g_autofree char *prompt = NULL;
  guint n_hard = 0;

  for (guint i = 0; i < h->conditions->len; i++)
    {
      Condition *c = g_ptr_array_index (h->conditions, i);

      if (!c->hard)
        continue;
      g_string_append_printf (conditions, "%u. %s = %s\n", ++n_hard,
                              c->path ? c->path : c->description, c->expected ? c->expected : "");
      if (c->path != NULL)
        g_ptr_array_add (paths, c->path);
    }
  for (guint n = 1; n <= h->candidates->len; n++)
    {
      JsonObject *record = item_record (h, n);

      g_string_append_printf (listing, "Item %u: ", n);
      for (guint p = 0; p < paths->len; p++)
        {
          if (p > 0)
            g_string_append (listing, ", ");
          append_field (listing, record, paths->pdata[p]);
        }
      g_string_append_c (listing, '\n');
    }
  g_strchomp (conditions->str);
  g_strchomp (listing->str);
  h->ruled_out = TRUE;
  prompt = anot_llm_prompt (h->context, PROMPTS "/head-ruleout.txt",
                            "conditions", conditions->str,
                            "listing", listing->str,
                            NULL);
  call_planner (task, "P1", prompt, on_ruled_out);
}

static void resolve_next (GTask *task);

/* `true`/`false` as Python's booleans, other values without quotes. */
static char *
expected_value (const char *text)
{
  g_autofree char *v = g_strstrip (g_strdup (text));
  gsize len = strlen (v);

  if (g_ascii_strcasecmp (v, "true") == 0)
    return g_strdup ("True");
  if (g_ascii_strcasecmp (v, "false") == 0)
    return g_strdup ("False");
  if (len >= 2 && (v[0] == '\'' || v[0] == '"') && v[len - 1] == v[0])
    return g_strndup (v + 1, len - 2);
  return g_steal_pointer (&v);
}

static void
on_resolved (GObject      *source,
             GAsyncResult *res,
             gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  Head *h = g_task_get_task_data (task);
  g_autofree char *reply = finish_call (task, res, "resolve");
  Condition *c = g_ptr_array_index (h->conditions, h->resolving);
  g_auto(GStrv) lines = NULL;

  if (reply == NULL)
    return;
  c->hard = TRUE;
  lines = g_strsplit (reply, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    {
      char *line = g_strstrip (lines[i]);

      if (g_ascii_strncasecmp (line, "PATH:", 5) == 0)
        {
          g_free (c->path);
          c->path = g_strstrip (g_strdup (line + 5));
        }
      else if (g_ascii_strncasecmp (line, "EXPECTED:", 9) == 0)
        {
          g_free (c->expected);
          c->expected = expected_value (line + 9);
        }
      else if (g_ascii_strncasecmp (line, "TYPE:", 5) == 0)
        {
          g_autofree char *type = g_ascii_strup (g_strstrip (line + 5), -1);

          c->hard = !(strcmp (type, "SOFT") == 0 || strcmp (type, "REVIEW_SEARCH") == 0 ||
                      strcmp (type, "REVIEW") == 0);
        }
    }
  anot_method_context_debug (h->context, ANOT_DEBUG_LEVEL_VERBOSE, "P1",
                             "Condition %u: %s → %s = %s (%s)", h->resolving + 1, c->description,
                             c->path ? c->path : "?", c->expected ? c->expected : "?",
                             c->hard ? "HARD" : "SOFT");
  h->resolving++;
  resolve_next (task);
}

static void
resolve_next (GTask *task)
{
  Head *h = g_task_get_task_data (task);
  Condition *c;
  g_autofree char *prompt = NULL;
  g_autofree char *type = NULL;

  if (h->resolving == h->conditions->len)
    {
      gboolean any_hard = FALSE;

      for (guint i = 0; i < h->conditions->len; i++)
        any_hard |= ((Condition *) g_ptr_array_index (h->conditions, i))->hard;
      if (any_hard)
        ruleout_start (task);
      else
        {
          for (guint i = 1; i <= h->candidates->len; i++)
            g_array_append_val (h->kept, i);
          skeleton_start (task);
        }
      return;
    }
  c = g_ptr_array_index (h->conditions, h->resolving);
  type = c->sentiment != NULL ? g_strdup_printf ("%s:%s", c->type, c->sentiment) : g_strdup (c->type);
  {
    AnotDomain *domain = anot_method_context_get_domain (h->context);
    /* The original's list of philly's attributes; another benchmark's
     * own attributes (its glossary, or its most common ones). */
    g_autofree char *fields = anot_domain_is_default (domain)
      ? g_strdup (HEAD_RESTAURANT_FIELDS)
      : g_strjoinv (", ", (char **) anot_domain_get_example_attributes (domain));

    prompt = anot_llm_prompt (h->context, PROMPTS "/head-resolve.txt",
                              "type", type,
                              "description", c->description,
                              "fields", fields,
                              NULL);
  }
  call_planner (task, "P1", prompt, on_resolved);
}

static void
on_extracted (GObject      *source,
              GAsyncResult *res,
              gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  Head *h = g_task_get_task_data (task);
  g_autofree char *reply = finish_call (task, res, "extract");
  g_autoptr(GRegex) tag = g_regex_new ("\\[(\\w+)(?::(\\w+))?\\]\\s*(.+)", 0, 0, NULL);
  g_auto(GStrv) lines = NULL;

  if (reply == NULL)
    return;
  lines = g_strsplit (reply, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    {
      g_autoptr(GMatchInfo) info = NULL;

      if (g_regex_match (tag, lines[i], 0, &info))
        {
          Condition *c = g_new0 (Condition, 1);
          g_autofree char *type = g_match_info_fetch (info, 1);
          g_autofree char *sentiment = g_match_info_fetch (info, 2);

          c->type = g_ascii_strup (type, -1);
          c->sentiment = sentiment[0] != '\0' ? g_ascii_strdown (sentiment, -1) : NULL;
          c->description = g_strstrip (g_match_info_fetch (info, 3));
          g_ptr_array_add (h->conditions, c);
        }
    }
  anot_method_context_debug (h->context, ANOT_DEBUG_LEVEL_SUMMARY, "P1", "%u conditions",
                             h->conditions->len);

  if (h->conditions->len == 0)
    {
      g_autoptr(GString) instruction = g_string_new (NULL);

      /* The step ranks items 1..N (methods.md §6.3) from their names and
       * attributes: a step that held only the request gave the model
       * nothing to rank by. */
      g_string_append_printf (instruction, "Rank the items 1 to %u for the request: {(query)}. ",
                              h->candidates->len);
      for (guint i = 1; i <= h->candidates->len; i++)
        {
          g_string_append_printf (instruction, "%sCandidate %u is {(context)}[%u][name], attributes "
                                  "{(context)}[%u][attributes]", i > 1 ? "; " : "", i, i, i);
          g_array_append_val (h->kept, i);
        }
      g_string_append_printf (instruction, ". Output the numbers of the top %u, best first, comma-separated.",
                              h->k);
      set_single_step (h, instruction->str);
      phase2_start (task);
      return;
    }
  resolve_next (task);
}


/* The extraction prompt.  Its examples are the original's on restaurants
 * (cafes, coffee, pastries: the prompt stays byte-identical); another
 * domain gets examples over two of its own attributes (the glossary's,
 * described by it, else its most common ones). */
static char *
extract_prompt (AnotMethodContext *context,
                const char        *request_text)
{
  AnotDomain *domain = anot_method_context_get_domain (context);
  const char * const *names;
  g_autofree char *examples = NULL;
  g_autofree char *hint = NULL;
  const char *attr1, *attr2, *text1, *text2;

  if (anot_domain_is_default (domain))
    {
      examples = anot_llm_prompt (context, PROMPTS "/head-extract-examples.txt", NULL);
      return anot_llm_prompt (context, PROMPTS "/head-extract.txt",
                              "request", request_text,
                              "attribute_hint", "noise, wifi, price, outdoor seating",
                              "examples", examples,
                              NULL);
    }
  names = anot_domain_get_example_attributes (domain);
  attr1 = names[0] != NULL ? names[0] : "attribute";
  attr2 = names[0] != NULL && names[1] != NULL ? names[1] : attr1;
  text1 = anot_domain_get_attribute_description (domain, attr1);
  text2 = anot_domain_get_attribute_description (domain, attr2);
  examples = anot_llm_prompt (context, PROMPTS "/head-extract-examples-generic.txt",
                              "attr1", attr1, "attr1_text", text1 != NULL ? text1 : attr1,
                              "attr2", attr2, "attr2_text", text2 != NULL ? text2 : attr2,
                              NULL);
  hint = names[0] != NULL ? g_strjoinv (", ", (char **) names) : g_strdup ("attributes");
  return anot_llm_prompt (context, PROMPTS "/head-extract.txt",
                          "request", request_text,
                          "attribute_hint", hint,
                          "examples", examples,
                          NULL);
}

void
anot_head_rank (GTask             *task,
                AnotQuery         *request,
                GPtrArray         *candidates,
                guint              k,
                guint              max_refine,
                const char        *system_prompt,
                AnotMethodContext *context,
                GCancellable      *cancellable)
{
  Head *h = g_new0 (Head, 1);
  g_autofree char *prompt = NULL;

  h->context = g_object_ref (context);
  h->cancellable = cancellable != NULL ? g_object_ref (cancellable) : NULL;
  h->candidates = g_ptr_array_ref (candidates);
  h->k = k > 0 ? MIN (k, candidates->len) : candidates->len;
  h->max_refine = max_refine;
  h->request_text = g_strdup (anot_query_get_text (request) ? anot_query_get_text (request) : "");
  h->system_prompt = g_strdup (system_prompt);
  h->data = anot_data_context_new (candidates);
  h->conditions = g_ptr_array_new_with_free_func (condition_free);
  h->kept = g_array_new (FALSE, FALSE, sizeof (guint));
  h->lines = g_ptr_array_new_with_free_func (g_free);
  h->conversation = g_ptr_array_new_with_free_func (g_free);
  h->refine_trace = json_array_new ();
  h->phase_start = g_get_monotonic_time ();
  g_task_set_task_data (task, h, head_free);

  prompt = extract_prompt (h->context, h->request_text);
  call_planner (task, "P1", prompt, on_extracted);
}
