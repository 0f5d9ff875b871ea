/* anot-method-weaver.c: Weaver, SQL and LLM steps interleaved
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * See README.md in this folder.
 */
#include <anot/anot.h>

#include <string.h>

#include "anot-llm-job.h"
#include "anot-weaver-db.h"

#define PROMPTS "/org/anot/methods/weaver"
#define SQL_ROLE "weaver.sql"
/* Rows and characters of a query result shown to the model. */
#define RESULT_ROWS 50
#define RESULT_CELL_CHARS 200

#define ANOT_TYPE_METHOD_WEAVER (anot_method_weaver_get_type ())
G_DECLARE_FINAL_TYPE (AnotMethodWeaver, anot_method_weaver, ANOT, METHOD_WEAVER, GObject)

struct _AnotMethodWeaver
{
  GObject parent_instance;
};

static void anot_method_weaver_method_iface_init (AnotMethodInterface *iface);

G_DEFINE_DYNAMIC_TYPE_EXTENDED (AnotMethodWeaver, anot_method_weaver, G_TYPE_OBJECT,
                                G_TYPE_FLAG_FINAL,
                                G_IMPLEMENT_INTERFACE_DYNAMIC (ANOT_TYPE_METHOD,
                                                               anot_method_weaver_method_iface_init))

typedef struct
{
  AnotLlmJob *job;
  AnotWeaverDb *db;
  guint repairs_left;
  char *sql;            /* the last query written */
  JsonNode *result;     /* its result, or NULL */
  char *sql_error;      /* why there is no result */
  JsonArray *steps;     /* trace of the SQL steps */
  GPtrArray *shown;     /* the candidates the answer step sees */
} Weaver;

static void
weaver_free (Weaver *w)
{
  anot_llm_job_free (w->job);
  anot_weaver_db_free (w->db);
  g_free (w->sql);
  g_clear_pointer (&w->result, json_node_unref);
  g_free (w->sql_error);
  json_array_unref (w->steps);
  g_clear_pointer (&w->shown, g_ptr_array_unref);
  g_free (w);
}

/* The query of a reply: a fenced block, else the text from the first line
 * that starts with SELECT or WITH. */
static char *
extract_sql (const char *text)
{
  const char *start = NULL, *end;
  const char *fence = strstr (text, "```");
  g_autofree char *sql = NULL;

  if (fence != NULL)
    {
      const char *body = strchr (fence + 3, '\n');
      const char *close = body != NULL ? strstr (body, "```") : NULL;

      if (body != NULL && close != NULL)
        {
          sql = g_strndup (body + 1, close - body - 1);
          return g_strstrip (g_steal_pointer (&sql));
        }
    }
  for (const char *line = text; line != NULL && *line != '\0'; )
    {
      const char *p = line;

      while (*p == ' ' || *p == '\t')
        p++;
      if (g_ascii_strncasecmp (p, "select", 6) == 0 || g_ascii_strncasecmp (p, "with", 4) == 0)
        {
          start = p;
          break;
        }
      line = strchr (line, '\n');
      if (line != NULL)
        line++;
    }
  if (start == NULL)
    return NULL;
  end = start + strlen (start);
  sql = g_strndup (start, end - start);
  return g_strstrip (g_steal_pointer (&sql));
}

static char *
render_result (JsonNode *result)
{
  JsonObject *o = json_node_get_object (result);
  JsonArray *columns = json_object_get_array_member (o, "columns");
  JsonArray *rows = json_object_get_array_member (o, "rows");
  guint n = json_array_get_length (rows);
  GString *out;

  if (n == 0)
    return g_strdup ("(no rows)");
  out = g_string_new (NULL);
  for (guint r = 0; r < MIN (n, RESULT_ROWS); r++)
    {
      JsonArray *row = json_array_get_array_element (rows, r);

      for (guint c = 0; c < json_array_get_length (row); c++)
        {
          JsonNode *v = json_array_get_element (row, c);
          g_autofree char *text = JSON_NODE_HOLDS_NULL (v) ? g_strdup ("NULL")
                                  : json_node_get_value_type (v) == G_TYPE_STRING
                                      ? g_strdup (json_node_get_string (v))
                                      : json_to_string (v, FALSE);

          if (g_utf8_strlen (text, -1) > RESULT_CELL_CHARS)
            {
              char *cut = g_utf8_substring (text, 0, RESULT_CELL_CHARS);

              g_free (text);
              text = g_strconcat (cut, "...", NULL);
              g_free (cut);
            }
          g_string_append_printf (out, "%s%s=%s", c > 0 ? ", " : "",
                                  json_array_get_string_element (columns, c), text);
        }
      g_string_append_c (out, '\n');
    }
  if (n > RESULT_ROWS || json_object_get_boolean_member (o, "truncated"))
    g_string_append_printf (out, "... (%u rows shown of %s%u)\n", RESULT_ROWS,
                            json_object_get_boolean_member (o, "truncated") ? "more than " : "", n);
  return g_string_free (out, FALSE);
}

/* The candidate numbers of the result's idx column, in row order. */
static GArray *
selected_numbers (JsonNode *result,
                  guint     n)
{
  GArray *out = g_array_new (FALSE, FALSE, sizeof (guint));
  g_autofree gboolean *seen = g_new0 (gboolean, n + 1);
  JsonObject *o;
  JsonArray *columns, *rows;
  int column = -1;

  if (result == NULL)
    return out;
  o = json_node_get_object (result);
  columns = json_object_get_array_member (o, "columns");
  rows = json_object_get_array_member (o, "rows");
  for (guint c = 0; c < json_array_get_length (columns); c++)
    if (g_ascii_strcasecmp (json_array_get_string_element (columns, c), "idx") == 0)
      {
        column = (int) c;
        break;
      }
  if (column < 0 && json_array_get_length (columns) == 1)
    column = 0;
  if (column < 0)
    return out;

  for (guint r = 0; r < json_array_get_length (rows); r++)
    {
      JsonNode *v = json_array_get_element (json_array_get_array_element (rows, r), column);
      gint64 number;

      if (!JSON_NODE_HOLDS_VALUE (v) || json_node_get_value_type (v) != G_TYPE_INT64)
        continue;
      number = json_node_get_int (v);
      if (number < 1 || number > (gint64) n || seen[number])
        continue;
      seen[number] = TRUE;
      {
        guint u = (guint) number;

        g_array_append_val (out, u);
      }
    }
  return out;
}

static void ask_answer (GTask *task);

static void
on_answer (GObject      *source,
           GAsyncResult *result,
           gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  Weaver *w = g_task_get_task_data (task);
  AnotLlmJob *job = w->job;
  g_autoptr(AnotCompletion) completion = NULL;
  g_autoptr(GError) error = NULL;
  JsonObject *record = NULL;
  gboolean retry;

  completion = anot_llm_job_complete_finish_shrinking (job, result, w->shown, &record, &retry, &error);
  if (retry)
    {
      ask_answer (g_steal_pointer (&task));
      return;
    }
  if (completion == NULL)
    {
      g_prefix_error (&error, "weaver: answer call: ");
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }
  g_task_return_pointer (task, anot_llm_job_rank_answer (job, record, completion), g_object_unref);
}

/* Takes the caller's reference to @task. */
static void
ask_answer (GTask *task)
{
  Weaver *w = g_task_get_task_data (task);
  AnotLlmJob *job = w->job;
  GPtrArray *candidates = anot_llm_job_get_candidates (job);
  guint n = candidates->len;
  g_autoptr(GArray) numbers = selected_numbers (w->result, n);
  g_autoptr(GError) error = NULL;
  AnotFormatter *formatter = anot_llm_job_get_formatter (job, &error);
  g_autoptr(GString) data = g_string_new (NULL);
  g_autofree char *n_text = g_strdup_printf ("%u", n);
  g_autofree char *m_text = g_strdup_printf ("%u", numbers->len);
  g_autofree char *note = NULL;
  g_autofree char *result_text = NULL;
  g_autofree char *task_text = NULL;
  g_autofree char *instruction = NULL;
  g_autofree char *system_base = NULL;
  g_autofree char *system_prompt = NULL;
  g_autofree char *no_item = NULL;
  g_autofree char *prompt = NULL;
  JsonArray *selected = json_array_new ();
  guint shown = 0;

  {
    /* The formatter's heading, in the benchmark's words ("Restaurants:"). */
    AnotDomain *domain = anot_method_context_get_domain (anot_llm_job_get_context (job));

    g_string_append_printf (data, "%s:\n\n", anot_domain_get_items_title (domain));
  }

  for (guint i = 0; i < numbers->len; i++)
    json_array_add_int_element (selected, g_array_index (numbers, guint, i));
  {
    JsonNode *node = json_node_new (JSON_NODE_ARRAY);

    json_node_take_array (node, selected);
    anot_llm_job_set_trace_member (job, "sql_selected", node);
  }

  /* Shown with their numbers among all N, so the answer's numbers are
   * the same whichever candidates the SQL kept. */
  g_clear_pointer (&w->shown, g_ptr_array_unref);
  w->shown = g_ptr_array_new ();
  for (guint i = 0; i < (numbers->len > 0 ? numbers->len : n); i++)
    {
      guint number = numbers->len > 0 ? g_array_index (numbers, guint, i) : i + 1;

      g_ptr_array_add (w->shown, g_ptr_array_index (candidates, number - 1));
      g_autofree char *item = anot_formatter_format_item (formatter, g_ptr_array_index (candidates, number - 1),
                                                          number);

      if (shown++ > 0)
        g_string_append (data, "\n\n");
      g_string_append (data, item);
    }
  g_string_append_c (data, '\n');

  no_item = g_strdup_printf ("the query selected no %s",
                             anot_domain_get_item (anot_method_context_get_domain (anot_llm_job_get_context (job))));
  if (numbers->len > 0)
    note = anot_llm_prompt (anot_llm_job_get_context (job), PROMPTS "/note-selected.txt", "m", m_text, "n", n_text, NULL);
  else
    note = anot_llm_prompt (anot_llm_job_get_context (job), PROMPTS "/note-all.txt", "n", n_text,
                            "reason", w->result == NULL ? "the query failed" : no_item,
                            NULL);
  result_text = w->result != NULL ? render_result (w->result)
                                  : g_strdup_printf ("(error: %s)", w->sql_error ? w->sql_error : "no query");
  task_text = anot_llm_job_task (job, PROMPTS, TRUE);
  instruction = anot_llm_job_instruction (job, PROMPTS);
  system_base = anot_llm_prompt (anot_llm_job_get_context (job), PROMPTS "/answer-system.txt", NULL);
  system_prompt = anot_llm_job_system_prompt (job, system_base);
  prompt = anot_llm_prompt (anot_llm_job_get_context (job), PROMPTS "/answer-user.txt",
                            "task", task_text,
                            "sql", w->sql != NULL ? w->sql : "(none)",
                            "result", result_text,
                            "candidates", data->str,
                            "note", note,
                            "instruction", instruction,
                            NULL);
  {
    JsonNode *node = json_node_new (JSON_NODE_OBJECT);
    JsonObject *o = json_object_new ();

    json_object_set_int_member (o, "shown", shown);
    json_object_set_int_member (o, "chars", data->len);
    json_node_take_object (node, o);
    anot_llm_job_set_trace_member (job, "answer_candidates", node);
  }
  anot_llm_job_complete_take_async (job, "answer", ANOT_DEFAULT_ROLE, system_prompt,
                                    g_steal_pointer (&prompt), on_answer, task);
}

static void on_sql (GObject *source, GAsyncResult *result, gpointer user_data);

static void
ask_repair (GTask *task)
{
  Weaver *w = g_task_get_task_data (task);
  AnotLlmJob *job = w->job;
  g_autofree char *system_base = anot_llm_prompt (anot_llm_job_get_context (job), PROMPTS "/sql-system.txt", NULL);
  g_autofree char *system_prompt = anot_llm_job_system_prompt (job, system_base);
  g_autofree char *prompt = anot_llm_prompt (anot_llm_job_get_context (job), PROMPTS "/repair-user.txt",
                                             "schema", anot_weaver_db_schema (w->db),
                                             "request", anot_query_get_text (anot_llm_job_get_request (job)),
                                             "sql", w->sql != NULL ? w->sql : "(no query found in the reply)",
                                             "error", w->sql_error,
                                             NULL);

  w->repairs_left--;
  anot_llm_job_complete_take_async (job, "repair", SQL_ROLE, system_prompt,
                                    g_steal_pointer (&prompt), on_sql, task);
}

static void
on_sql (GObject      *source,
        GAsyncResult *result,
        gpointer      user_data)
{
  GTask *task = user_data;
  Weaver *w = g_task_get_task_data (task);
  AnotLlmJob *job = w->job;
  g_autoptr(AnotCompletion) completion = NULL;
  g_autoptr(GError) error = NULL;
  JsonObject *record = NULL;
  JsonObject *step = json_object_new ();

  completion = anot_llm_job_complete_finish (job, result, &record, &error);
  if (completion == NULL)
    {
      json_object_unref (step);
      g_prefix_error (&error, "weaver: SQL call: ");
      g_task_return_error (task, g_steal_pointer (&error));
      g_object_unref (task);
      return;
    }

  g_free (w->sql);
  w->sql = extract_sql (anot_completion_get_text (completion));
  g_clear_pointer (&w->result, json_node_unref);
  g_clear_pointer (&w->sql_error, g_free);
  json_object_set_string_member (step, "phase", json_object_get_string_member (record, "phase"));
  if (w->sql == NULL)
    w->sql_error = g_strdup ("the reply holds no SELECT statement");
  else
    {
      json_object_set_string_member (step, "sql", w->sql);
      w->result = anot_weaver_db_query (w->db, w->sql, &error);
      if (w->result == NULL)
        w->sql_error = g_strdup (error->message);
    }

  json_object_set_boolean_member (step, "ok", w->result != NULL);
  if (w->result != NULL)
    {
      JsonObject *r = json_node_get_object (w->result);

      json_object_set_int_member (step, "n_rows", json_object_get_int_member (r, "n_rows"));
      json_object_set_boolean_member (step, "truncated", json_object_get_boolean_member (r, "truncated"));
      json_object_set_int_member (step, "steps", json_object_get_int_member (r, "steps"));
      json_object_set_member (step, "columns", json_node_copy (json_object_get_member (r, "columns")));
      json_object_set_null_member (step, "error");
    }
  else
    json_object_set_string_member (step, "error", w->sql_error);
  json_array_add_object_element (w->steps, step);

  if (w->result == NULL && w->repairs_left > 0)
    {
      ask_repair (task);
      return;
    }
  ask_answer (task);
}

static void
anot_method_weaver_rank_async (AnotMethod          *method,
                               AnotQuery           *request,
                               GPtrArray           *candidates,
                               guint                k,
                               AnotMethodContext   *context,
                               GCancellable        *cancellable,
                               GAsyncReadyCallback  callback,
                               gpointer             user_data)
{
  GTask *task = g_task_new (method, cancellable, callback, user_data);
  Weaver *w = g_new0 (Weaver, 1);
  g_autoptr(GError) error = NULL;
  g_autoptr(AnotMethodSettings) settings = anot_method_settings_new ("weaver");
  AnotFormatter *formatter;
  g_autofree char *samples = NULL;
  g_autofree char *n = g_strdup_printf ("%u", candidates->len);
  g_autofree char *system_base = NULL;
  g_autofree char *system_prompt = NULL;
  g_autofree char *prompt = NULL;

  g_task_set_source_tag (task, anot_method_weaver_rank_async);
  w->job = anot_llm_job_new ("weaver", request, candidates, k, context, cancellable);
  w->steps = json_array_new ();
  g_task_set_task_data (task, w, (GDestroyNotify) weaver_free);
  {
    JsonNode *node = json_node_new (JSON_NODE_ARRAY);

    json_node_set_array (node, w->steps);
    anot_llm_job_set_trace_member (w->job, "sql_steps", node);
  }

  if (!anot_method_settings_load_for_context (settings, context, &error) ||
      !anot_method_settings_get_uint (settings, context, "repairs", 1, 0, G_MAXUINT,
                                      &w->repairs_left, &error) ||
      (formatter = anot_llm_job_get_formatter (w->job, &error)) == NULL ||
      (w->db = anot_weaver_db_new (candidates, formatter, context,
                                   &error)) == NULL)
    {
      g_task_return_error (task, g_steal_pointer (&error));
      g_object_unref (task);
      return;
    }

  samples = anot_weaver_db_samples (w->db, 3);
  system_base = anot_llm_prompt (anot_llm_job_get_context (w->job), PROMPTS "/sql-system.txt", NULL);
  system_prompt = anot_llm_job_system_prompt (w->job, system_base);
  prompt = anot_llm_prompt (anot_llm_job_get_context (w->job), PROMPTS "/sql-user.txt",
                            "schema", anot_weaver_db_schema (w->db),
                            "samples", samples,
                            "request", anot_query_get_text (request),
                            "n", n,
                            NULL);
  anot_llm_job_complete_take_async (w->job, "sql", SQL_ROLE, system_prompt,
                                    g_steal_pointer (&prompt), on_sql, task);
}

static AnotRanking *
anot_method_weaver_rank_finish (AnotMethod    *method,
                                GAsyncResult  *result,
                                GError       **error)
{
  return g_task_propagate_pointer (G_TASK (result), error);
}

static void
anot_method_weaver_method_iface_init (AnotMethodInterface *iface)
{
  iface->rank_async = anot_method_weaver_rank_async;
  iface->rank_finish = anot_method_weaver_rank_finish;
}

static void
anot_method_weaver_class_init (AnotMethodWeaverClass *klass)
{
}

static void
anot_method_weaver_class_finalize (AnotMethodWeaverClass *klass)
{
}

static void
anot_method_weaver_init (AnotMethodWeaver *self)
{
}

G_MODULE_EXPORT void
g_io_module_load (GIOModule *module)
{
  anot_method_weaver_register_type (G_TYPE_MODULE (module));
  anot_plugin_implement_with_flags (ANOT_METHOD_EXTENSION_POINT_NAME,
                                    ANOT_TYPE_METHOD_WEAVER, "weaver",
                                    "Weaver (Khoja et al., EMNLP 2025): the LLM writes SQL over the candidates in "
                                    "an in-memory read-only SQLite database, then judges the selected records; "
                                    "calls: 2, plus 1 per SQL repair (at most weaver.repairs = 1)",
                                    ANOT_PLUGIN_SUPPORTS_DEFENSE | ANOT_PLUGIN_USES_FORMATTER);
  anot_plugin_declare_method_options ("weaver",
                                      anot_method_option_new_int ("repairs", 0, G_MAXUINT, 1, "SQL repair rounds after a failing query"),
                                      NULL);
  anot_plugin_declare_method_roles ("weaver", ANOT_DEFAULT_ROLE, SQL_ROLE, NULL);
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
