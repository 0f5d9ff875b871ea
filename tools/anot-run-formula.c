/* anot-run-formula.c: `anot-run formula`, a task over every item of a benchmark
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "anot-run.h"

#include <errno.h>
#include <glib-unix.h>
#include <glib/gstdio.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#define DEFAULT_CONCURRENCY 8

typedef struct
{
  char *formula;
  char *seed_file;
  char *seed_dir;
  char *data;
  char *out;
  char *limit;
  char *concurrency;
  gboolean trace;
  gboolean allow_unresolved;
  AnotRunLlmOptions llm;
} FormulaOptions;

static void
formula_options_clear (FormulaOptions *o)
{
  g_free (o->formula);
  g_free (o->seed_file);
  g_free (o->seed_dir);
  g_free (o->data);
  g_free (o->out);
  g_free (o->limit);
  g_free (o->concurrency);
  anot_run_llm_options_clear (&o->llm);
}

typedef struct
{
  AnotFormulaSeed *seed;
  AnotDataset *dataset;
  AnotBackendRouter *router;
  GCancellable *cancellable;
  GMainLoop *loop;
  FILE *out;
  gboolean trace;

  guint n_items;
  guint next;
  guint in_flight;
  guint concurrency;

  guint n_done;
  guint n_failed;             /* items whose execution failed as a whole */
  guint n_with_errors;        /* items with some error */
  guint n_incomplete;         /* items the infrastructure failed a call of: no outputs */
  GError *incomplete_error;   /* the first such call's error */
  GError *fatal;              /* an error that stops the run (anot_error_stops_run()) */
  AnotUsage *usage;
  GError *write_error;
  guint sigint_count;
  gboolean terminated;        /* the stop was SIGTERM's */
} FormulaRun;

typedef struct
{
  FormulaRun *run;
  guint index;
  AnotMethodContext *context;
} ItemJob;

static gboolean
parse_count (const char *option,
             const char *text,
             guint       min,
             guint      *value,
             int        *status)
{
  guint64 parsed;

  if (text == NULL)
    return TRUE;
  if (!g_ascii_string_to_unsigned (text, 10, min, G_MAXUINT, &parsed, NULL))
    {
      *status = anot_run_usage_error ("formula", "invalid %s “%s”: expected an integer of at least %u", option, text, min);
      return FALSE;
    }
  *value = (guint) parsed;
  return TRUE;
}

/* One entry of a row's "errors": its stage, its message (a value of
 * @doc), and the review or step it concerns. */
static void
write_error_entry (AnotJsonWriter   *writer,
                   const char       *stage,
                   AnotJsonDocument *doc,
                   int               message,
                   const char       *message_text,
                   const char       *where,
                   AnotJsonDocument *where_doc,
                   int               where_value,
                   const char       *error_class)
{
  anot_json_writer_begin_object (writer);
  anot_json_writer_set_member_name (writer, "stage");
  anot_json_writer_add_string_value (writer, stage);
  anot_json_writer_set_member_name (writer, "message");
  if (message_text != NULL)
    anot_json_writer_add_string_value (writer, message_text);
  else if (anot_json_document_get_kind (doc, message) == ANOT_JSON_KIND_STRING)
    anot_json_writer_add_document_value (writer, doc, message);
  else
    anot_json_writer_add_string_value (writer, "");
  if (where != NULL)
    {
      anot_json_writer_set_member_name (writer, where);
      if (anot_json_document_get_kind (where_doc, where_value) != ANOT_JSON_KIND_NONE)
        anot_json_writer_add_document_value (writer, where_doc, where_value);
      else if (strcmp (where, "review") == 0)
        anot_json_writer_add_int_value (writer, -1);
      else
        anot_json_writer_add_string_value (writer, "");
    }
  if (error_class != NULL)
    {
      anot_json_writer_set_member_name (writer, "error_class");
      anot_json_writer_add_string_value (writer, error_class);
    }
  anot_json_writer_end_object (writer);
}

/* Whether the call of entry @e of @doc's `llm_errors` failed for the
 * infrastructure. */
static gboolean
entry_is_infrastructure (AnotJsonDocument *doc,
                         int               e)
{
  int member = anot_json_document_get_member (doc, e, "error_class");

  return anot_json_document_string_equal (doc, member, "infrastructure");
}

/* The row of one item: its outputs, every problem met on the way, and how
 * many extractions were usable.  @result is the item's result as JSON
 * text (anot_formula_seed_execute_finish_text()), read in place; the row
 * is written as text. */
static char *
make_row (FormulaRun *run,
          guint       index,
          const char *result,
          gsize       result_length,
          GError     *error)
{
  AnotItem *item = anot_dataset_get_item (run->dataset, index);
  g_autoptr(AnotJsonWriter) writer = anot_json_writer_new ();
  g_autoptr(AnotJsonDocument) doc = NULL;
  gint64 n_relevant = 0, n_invalid = 0, n_llm_failed = 0;
  guint n_errors = 0;
  gboolean incomplete = FALSE;
  int llm_errors;
  const char *text;
  gsize length;

  if (result != NULL)
    {
      g_autoptr(GError) parse_error = NULL;

      doc = anot_json_document_new_from_data (result, (gssize) result_length, &parse_error);
      /* The library wrote it. */
      g_assert_no_error (parse_error);
      n_relevant = anot_json_document_get_int (doc, anot_json_document_get_member (doc, 0, "n_relevant"), 0);
      n_invalid = anot_json_document_get_int (doc, anot_json_document_get_member (doc, 0, "n_invalid"), 0);
      n_llm_failed = anot_json_document_get_int (doc, anot_json_document_get_member (doc, 0, "n_llm_failed"), 0);
      llm_errors = anot_json_document_get_member (doc, 0, "llm_errors");
      for (guint i = 0; i < anot_json_document_get_size (doc, llm_errors) && !incomplete; i++)
        {
          int e = anot_json_document_get_element (doc, llm_errors, i);

          incomplete = entry_is_infrastructure (doc, e);
          if (incomplete && run->incomplete_error == NULL)
            {
              g_autofree char *message = anot_json_document_dup_string (doc, anot_json_document_get_member (doc, e, "error"));

              run->incomplete_error = g_error_new_literal (ANOT_ERROR, ANOT_ERROR_INCOMPLETE, message ? message : "");
            }
        }
    }
  else if (anot_error_is_infrastructure (error))
    {
      if (run->incomplete_error == NULL)
        run->incomplete_error = g_error_copy (error);
      incomplete = TRUE;
    }
  if (incomplete)
    run->n_incomplete++;

  anot_json_writer_begin_object (writer);
  anot_json_writer_set_member_name (writer, "item_id");
  anot_json_writer_add_string_value (writer, anot_item_get_id (item));
  anot_json_writer_set_member_name (writer, "index");
  anot_json_writer_add_int_value (writer, index);
  anot_json_writer_set_member_name (writer, "name");
  anot_json_writer_add_string_value (writer, anot_item_get_name (item));

  /* Outputs computed without a review the server never answered for are
   * not the task's: left out, like the rows of unscored requests. */
  if (incomplete)
    {
      anot_json_writer_set_member_name (writer, "incomplete");
      anot_json_writer_add_boolean_value (writer, TRUE);
    }
  anot_json_writer_set_member_name (writer, "outputs");
  if (doc == NULL || incomplete)
    {
      anot_json_writer_begin_object (writer);
      anot_json_writer_end_object (writer);
    }
  else
    anot_json_writer_add_document_value (writer, doc, anot_json_document_get_member (doc, 0, "outputs"));

  anot_json_writer_set_member_name (writer, "errors");
  anot_json_writer_begin_array (writer);
  if (doc == NULL)
    {
      write_error_entry (writer, "execute", NULL, -1, error->message, NULL, NULL, -1,
                         anot_error_is_infrastructure (error) ? "infrastructure" : "method");
      n_errors++;
    }
  else
    {
      static const char * const lists[] = { "llm_errors", "invalid_replies" };
      static const char * const messages[] = { "error", "problem" };
      int steps = anot_json_document_get_member (doc, 0, "steps");

      for (guint l = 0; l < G_N_ELEMENTS (lists); l++)
        {
          int list = anot_json_document_get_member (doc, 0, lists[l]);

          for (guint i = 0; i < anot_json_document_get_size (doc, list); i++)
            {
              int e = anot_json_document_get_element (doc, list, i);

              write_error_entry (writer, "extract", doc, anot_json_document_get_member (doc, e, messages[l]), NULL,
                                 "review", doc, anot_json_document_get_member (doc, e, "idx"),
                                 l == 0 ? (entry_is_infrastructure (doc, e) ? "infrastructure" : "method") : NULL);
              n_errors++;
            }
        }
      for (guint i = 0; i < anot_json_document_get_size (doc, steps); i++)
        {
          int s = anot_json_document_get_element (doc, steps, i);
          int message = anot_json_document_get_member (doc, s, "error");

          if (anot_json_document_get_kind (doc, message) == ANOT_JSON_KIND_NONE ||
              anot_json_document_get_kind (doc, message) == ANOT_JSON_KIND_NULL)
            continue;
          if (anot_json_document_get_kind (doc, anot_json_document_get_member (doc, s, "message")) == ANOT_JSON_KIND_STRING)
            message = anot_json_document_get_member (doc, s, "message");
          write_error_entry (writer, "compute", doc, message, NULL,
                             "step", doc, anot_json_document_get_member (doc, s, "name"), NULL);
          n_errors++;
        }
    }
  anot_json_writer_end_array (writer);
  if (n_errors > 0)
    run->n_with_errors++;

  anot_json_writer_set_member_name (writer, "extractions");
  anot_json_writer_begin_object (writer);
  anot_json_writer_set_member_name (writer, "ok");
  anot_json_writer_add_int_value (writer, MAX (n_relevant - n_invalid - n_llm_failed, 0));
  anot_json_writer_set_member_name (writer, "failed");
  anot_json_writer_add_int_value (writer, n_invalid + n_llm_failed);
  anot_json_writer_end_object (writer);
  if (run->trace && doc != NULL)
    {
      anot_json_writer_set_member_name (writer, "trace");
      anot_json_writer_add_document_value (writer, doc, 0);
    }
  anot_json_writer_end_object (writer);

  text = anot_json_writer_get_text (writer, &length);
  return g_strndup (text, length);
}

static void
write_row (FormulaRun *run,
           const char *line)
{
  if (run->write_error != NULL)
    return;
  /* Flushed per item so a reader (or an interrupted run) sees whole lines. */
  if (fputs (line, run->out) == EOF || fputc ('\n', run->out) == EOF || fflush (run->out) != 0)
    g_set_error (&run->write_error, ANOT_ERROR, ANOT_ERROR_IO,
                 "cannot write the output: %s", g_strerror (errno));
}

static void start_items (FormulaRun *run);

static void
on_item_done (GObject      *source,
              GAsyncResult *result,
              gpointer      user_data)
{
  ItemJob *job = user_data;
  FormulaRun *run = job->run;
  g_autoptr(GError) error = NULL;
  g_autofree char *outcome = NULL;
  g_autofree char *row = NULL;
  gsize length = 0;

  outcome = anot_formula_seed_execute_finish_text (run->seed, result, &length, &error);
  if (outcome == NULL && g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    ;  /* not a result: the item was not finished */
  else if (outcome == NULL && anot_error_stops_run (error))
    {
      /* Every other item would get it too: stop at the first, no row. */
      if (run->fatal == NULL)
        run->fatal = g_steal_pointer (&error);
      g_cancellable_cancel (run->cancellable);
    }
  else
    {
      if (outcome == NULL)
        run->n_failed++;
      row = make_row (run, job->index, outcome, length, error);
      write_row (run, row);
      run->n_done++;
    }
  anot_usage_merge (run->usage, anot_method_context_get_usage (job->context));

  g_object_unref (job->context);
  g_free (job);
  run->in_flight--;
  start_items (run);
}

static void
start_items (FormulaRun *run)
{
  while (run->in_flight < run->concurrency && run->next < run->n_items &&
         run->write_error == NULL && !g_cancellable_is_cancelled (run->cancellable))
    {
      AnotItem *item = anot_dataset_get_item (run->dataset, run->next);
      ItemJob *job = g_new0 (ItemJob, 1);

      job->run = run;
      job->index = run->next++;
      job->context = anot_method_context_new (run->dataset, anot_item_get_id (item), 0);
      anot_method_context_set_router (job->context, run->router);
      run->in_flight++;
      anot_formula_seed_execute_async (run->seed, job->context, item, run->cancellable,
                                       on_item_done, job);
    }
  if (run->in_flight == 0)
    g_main_loop_quit (run->loop);
}

static gboolean
on_sigint (gpointer user_data)
{
  FormulaRun *run = user_data;

  if (++run->sigint_count > 1)
    {
      g_printerr ("anot-run formula: interrupted again, exiting without waiting\n");
      exit (run->terminated ? ANOT_RUN_EXIT_TERMINATED : ANOT_RUN_EXIT_INTERRUPTED);
    }
  g_printerr ("anot-run formula: interrupted; stopping (Ctrl-C again to quit at once)\n");
  g_cancellable_cancel (run->cancellable);
  return G_SOURCE_CONTINUE;
}

/* SIGTERM (Slurm at a job's time limit, kill): the same stop as Ctrl-C. */
static gboolean
on_sigterm (gpointer user_data)
{
  FormulaRun *run = user_data;

  if (run->sigint_count == 0)
    run->terminated = TRUE;
  return on_sigint (user_data);
}

typedef struct
{
  GMainLoop *loop;
  AnotFormulaSeed *seed;
  GError *error;
} CompileState;

static void
on_compiled (GObject      *source,
             GAsyncResult *result,
             gpointer      user_data)
{
  CompileState *state = user_data;

  state->seed = anot_formula_seed_compile_finish (result, &state->error);
  g_main_loop_quit (state->loop);
}

/* Phase 1: the task formula of @path compiled by the LLM, cached in
 * @seed_dir when there is one. */
static AnotFormulaSeed *
compile_formula (const char        *path,
                 const char        *seed_dir,
                 AnotDataset       *dataset,
                 AnotBackendRouter *router,
                 AnotUsage         *usage,
                 GError           **error)
{
  g_autofree char *text = NULL;
  g_autoptr(AnotMethodContext) context = NULL;
  g_autoptr(GMainLoop) loop = g_main_loop_new (NULL, FALSE);
  CompileState state = { loop, NULL, NULL };
  GError *local = NULL;

  if (!g_file_get_contents (path, &text, NULL, &local))
    {
      g_set_error (error, ANOT_ERROR, ANOT_ERROR_IO, "cannot read the task formula: %s", local->message);
      g_error_free (local);
      return NULL;
    }
  g_strstrip (text);
  if (*text == '\0')
    {
      g_set_error (error, ANOT_ERROR, ANOT_ERROR_INVALID_ARGUMENT, "the task formula %s is empty", path);
      return NULL;
    }
  if (seed_dir != NULL && g_mkdir_with_parents (seed_dir, 0755) != 0)
    {
      int saved = errno;

      g_set_error (error, ANOT_ERROR, ANOT_ERROR_IO, "cannot create %s: %s", seed_dir, g_strerror (saved));
      return NULL;
    }

  context = anot_method_context_new (dataset, "formula", 0);
  anot_method_context_set_router (context, router);
  anot_formula_seed_compile_async (context, text, seed_dir, NULL, on_compiled, &state);
  g_main_loop_run (loop);
  anot_usage_merge (usage, anot_method_context_get_usage (context));
  if (state.seed == NULL)
    {
      g_propagate_error (error, state.error);
      return NULL;
    }
  if (seed_dir != NULL)
    {
      g_autofree char *seed_path = anot_formula_seed_compile_cache_path (seed_dir, text);

      g_printerr ("Formula Seed: %s\n", seed_path);
    }
  return state.seed;
}

int
anot_run_cmd_formula (int    argc,
                      char **argv)
{
  FormulaOptions o = { 0 };
  FormulaRun run = { 0 };
  g_autoptr(GOptionContext) context = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(AnotDataset) dataset = NULL;
  g_autoptr(AnotBackendRouter) router = NULL;
  g_autoptr(AnotFormulaSeed) seed = NULL;
  g_autoptr(AnotUsage) usage = anot_usage_new ();
  g_autofree char *default_data = anot_run_default_data_dir ();
  g_autofree char *description = NULL;
  g_autofree char *seed_dir = NULL;
  const char *data;
  guint limit = G_MAXUINT, concurrency = DEFAULT_CONCURRENCY;
  guint sigint_source, sigterm_source;
  int status = ANOT_RUN_EXIT_OK;
  const GOptionEntry entries[] = {
    { "formula", 'F', 0, G_OPTION_ARG_FILENAME, &o.formula,
      "Task formula in natural language (a text or Markdown file), compiled into a "
      "Formula Seed by the LLM (Phase 1)", "FILE" },
    { "seed-file", 's', 0, G_OPTION_ARG_FILENAME, &o.seed_file,
      "Formula Seed JSON to run as is (no Phase 1)", "FILE" },
    { "allow-unresolved", 0, 0, G_OPTION_ARG_NONE, &o.allow_unresolved,
      "Load a seed whose formulas read undefined names (as the original's generated "
      "seeds do); the problems become warnings", NULL },
    { "seed-dir", 0, 0, G_OPTION_ARG_FILENAME, &o.seed_dir,
      "Where the compiled seed is written and reused (default: the folder of --out; "
      "none when writing to stdout)", "DIR" },
    { "data", 'd', 0, G_OPTION_ARG_FILENAME, &o.data,
      "Benchmark directory (default: the demo benchmark)", "DIR" },
    { "out", 'o', 0, G_OPTION_ARG_FILENAME, &o.out,
      "JSONL output, one line per item (default: stdout)", "FILE" },
    { "limit", 0, 0, G_OPTION_ARG_STRING, &o.limit,
      "Run only the first L items", "L" },
    { "concurrency", 'j', 0, G_OPTION_ARG_STRING, &o.concurrency,
      "Items in flight at once (default 8); does not change results", "C" },
    { "trace", 0, 0, G_OPTION_ARG_NONE, &o.trace,
      "Add each item's Phase-2 trace (extractions, step values, invalid answers)", NULL },
    G_OPTION_ENTRY_NULL
  };

  context = g_option_context_new ("— run a task formula over every item of a benchmark");
  g_option_context_add_main_entries (context, entries, NULL);
  anot_run_llm_options_add_entries (&o.llm, context);
  g_option_context_set_summary (context,
    "Runs a General ANoT Formula Seed on every item of a benchmark:\n"
    "keyword filter, one LLM extraction per relevant review, then the compute DAG.\n"
    "Give the task either as --formula FILE (natural language; the LLM compiles it\n"
    "into a seed first) or as --seed-file FILE (a seed written by hand or saved\n"
    "before), not both.\n"
    "\n"
    "Each finished item writes one JSON line, flushed at once:\n"
    "  {\"item_id\", \"index\", \"name\", \"outputs\": {...}, \"errors\": [...],\n"
    "   \"extractions\": {\"ok\": n, \"failed\": n}}\n"
    "errors holds {\"stage\": \"extract\"|\"compute\"|\"execute\", \"message\", \"review\"|\"step\"}.\n"
    "Lines come in the order items finish; \"index\" is the item's position.");
  description = g_strdup_printf (
    "Without --data the demo benchmark is used (%s).\n"
    "LLM settings: as for anot-run run (options, environment, config file); the\n"
    "roles are general_anot.compile and general_anot.extract, falling back to default.\n"
    "See docs/general-anot.md.\n"
    "\n"
    "Exit status:\n"
    "  0    every item was run (items may still list errors)\n"
    "  1    failed: the seed does not load (the message names the key), Phase 1\n"
    "       failed, the benchmark or the output failed, every item failed, or the\n"
    "       LLM server refused the key (401/403) or the model (404): the run stops\n"
    "       at the first such answer\n"
    "  2    usage error: bad option or value\n"
    "  4    incomplete: the infrastructure (connection, timeout, 429/5xx after the\n"
    "       retries, batch, cache) failed extraction calls of some items; their\n"
    "       lines say \"incomplete\": true and have no outputs\n"
    "  130  interrupted (Ctrl-C): the lines written so far are complete\n"
    "  143  terminated (SIGTERM): the same stop",
    default_data);
  g_option_context_set_description (context, description);

  if (!g_option_context_parse (context, &argc, &argv, &error))
    {
      formula_options_clear (&o);
      return anot_run_usage_error ("formula", "%s", error->message);
    }
  if (argc > 1)
    status = anot_run_usage_error ("formula", "unexpected argument “%s”", argv[1]);
  else if ((o.formula == NULL) == (o.seed_file == NULL))
    status = anot_run_usage_error ("formula", "give the task as --formula FILE or as --seed-file FILE (exactly one)");
  else if (o.seed_dir != NULL && o.formula == NULL)
    status = anot_run_usage_error ("formula", "--seed-dir is where Phase 1 writes its seed: it goes with --formula");
  else if (parse_count ("--limit", o.limit, 0, &limit, &status) &&
           parse_count ("--concurrency", o.concurrency, 1, &concurrency, &status))
    status = ANOT_RUN_EXIT_OK;
  if (status != ANOT_RUN_EXIT_OK)
    {
      formula_options_clear (&o);
      return status;
    }

  /* The seed first: a bad seed file is the commonest mistake, and needs no
   * benchmark or LLM to report. */
  if (o.seed_file != NULL)
    {
      seed = anot_formula_seed_load (o.seed_file, o.allow_unresolved, &error);
      if (seed == NULL)
        {
          g_printerr ("anot-run formula: %s\n", error->message);
          formula_options_clear (&o);
          return ANOT_RUN_EXIT_FAILED;
        }
    }

  router = anot_run_llm_options_create_router (&o.llm, &error);
  if (router == NULL)
    {
      if (g_error_matches (error, ANOT_ERROR, ANOT_ERROR_CONFIG) ||
          g_error_matches (error, ANOT_ERROR, ANOT_ERROR_INVALID_ARGUMENT) ||
          g_error_matches (error, ANOT_ERROR, ANOT_ERROR_PLUGIN_NOT_FOUND))
        status = anot_run_usage_error ("formula", "%s", error->message);
      else
        {
          g_printerr ("anot-run formula: %s\n", error->message);
          status = ANOT_RUN_EXIT_FAILED;
        }
      formula_options_clear (&o);
      return status;
    }

  data = o.data ? o.data : default_data;
  dataset = anot_dataset_load (data, NULL, &error);
  if (dataset == NULL)
    {
      g_printerr ("anot-run formula: cannot load the benchmark %s: %s\n", data, error->message);
      formula_options_clear (&o);
      return ANOT_RUN_EXIT_FAILED;
    }

  if (o.formula != NULL)
    {
      if (o.seed_dir != NULL)
        seed_dir = g_strdup (o.seed_dir);
      else if (o.out != NULL && strcmp (o.out, "-") != 0)
        seed_dir = g_path_get_dirname (o.out);
      seed = compile_formula (o.formula, seed_dir, dataset, router, usage, &error);
      if (seed == NULL)
        {
          g_printerr ("anot-run formula: Phase 1 failed: %s\n", error->message);
          formula_options_clear (&o);
          return ANOT_RUN_EXIT_FAILED;
        }
    }
  for (const char * const *w = anot_formula_seed_get_warnings (seed); w != NULL && *w != NULL; w++)
    g_printerr ("anot-run formula: warning: %s\n", *w);

  if (o.out != NULL && strcmp (o.out, "-") != 0)
    {
      run.out = g_fopen (o.out, "w");
      if (run.out == NULL)
        {
          int saved = errno;

          g_printerr ("anot-run formula: cannot write %s: %s\n", o.out, g_strerror (saved));
          formula_options_clear (&o);
          return ANOT_RUN_EXIT_FAILED;
        }
    }
  else
    run.out = stdout;

  run.seed = seed;
  run.dataset = dataset;
  run.router = router;
  run.cancellable = g_cancellable_new ();
  run.loop = g_main_loop_new (NULL, FALSE);
  run.trace = o.trace;
  run.n_items = MIN (limit, anot_dataset_get_n_items (dataset));
  run.concurrency = concurrency;
  run.usage = usage;

  sigint_source = g_unix_signal_add (SIGINT, on_sigint, &run);
  sigterm_source = g_unix_signal_add (SIGTERM, on_sigterm, &run);
  start_items (&run);
  if (run.in_flight > 0)
    g_main_loop_run (run.loop);
  g_source_remove (sigint_source);
  g_source_remove (sigterm_source);

  if (run.out != stdout && fclose (run.out) != 0 && run.write_error == NULL)
    g_set_error (&run.write_error, ANOT_ERROR, ANOT_ERROR_IO,
                 "cannot write the output: %s", g_strerror (errno));

  g_printerr ("Ran %u of %u item%s: %u with errors, %u failed, %u incomplete\n", run.n_done, run.n_items,
              run.n_items == 1 ? "" : "s", run.n_with_errors, run.n_failed, run.n_incomplete);
  if (anot_usage_get_calls (usage) > 0)
    {
      g_autofree char *cost = anot_run_format_cost (anot_usage_get_cost_usd (usage), 4);

      g_printerr ("LLM: %" G_GUINT64_FORMAT " calls, %" G_GUINT64_FORMAT " prompt + %" G_GUINT64_FORMAT
                  " completion tokens, %s\n",
                  anot_usage_get_calls (usage), anot_usage_get_prompt_tokens (usage),
                  anot_usage_get_completion_tokens (usage), cost);
    }

  if (run.write_error != NULL)
    {
      g_printerr ("anot-run formula: %s\n", run.write_error->message);
      status = ANOT_RUN_EXIT_FAILED;
    }
  else if (run.fatal != NULL)
    {
      g_printerr ("anot-run formula: %s\nThe run stopped at the first such error; the items it stopped have no line. "
                  "Run it again once it is fixed.\n", run.fatal->message);
      status = ANOT_RUN_EXIT_FAILED;
    }
  else if (g_cancellable_is_cancelled (run.cancellable))
    status = run.terminated ? ANOT_RUN_EXIT_TERMINATED : ANOT_RUN_EXIT_INTERRUPTED;
  else if (run.n_items > 0 && run.n_failed == run.n_items)
    {
      g_printerr ("anot-run formula: every item failed\n");
      status = ANOT_RUN_EXIT_FAILED;
    }
  else if (run.n_incomplete > 0)
    {
      /* An outage is not a result: the user must not read those lines'
       * outputs as the task's. */
      g_printerr ("anot-run formula: %u of %u item%s incomplete: the infrastructure failed some of their "
                  "extraction calls (the first: %s); their lines say \"incomplete\": true and have no outputs. "
                  "Run again to complete them (with --cache FILE the answers received are not paid twice)\n",
                  run.n_incomplete, run.n_done, run.n_done == 1 ? " is" : "s are", run.incomplete_error->message);
      status = ANOT_RUN_EXIT_INCOMPLETE;
    }

  g_clear_error (&run.incomplete_error);
  g_clear_error (&run.fatal);

  g_clear_error (&run.write_error);
  g_main_loop_unref (run.loop);
  g_object_unref (run.cancellable);
  formula_options_clear (&o);
  return status;
}
