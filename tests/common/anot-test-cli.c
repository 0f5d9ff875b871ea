/* anot-test-cli.c: anot-run run as a process while the fake LLM server
 * answers on the test's main loop
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "anot-test-cli.h"

#include <signal.h>
#include <string.h>
#include <sys/resource.h>

#include "anot-test-backend.h"
#include "anot-test-data.h"

/* A new directory from @tmp_template (g_dir_make_tmp()'s) and a server
 * answering by @rules_json, accepting any key.  The model the tests call
 * the fake server by, ANOT_TEST_FAKE_MODEL, has a price stated in the
 * config.ini of the test's own $XDG_CONFIG_HOME (G_TEST_OPTION_ISOLATE_DIRS),
 * as a user gives one: anot has no default price, and a run with a model
 * without one records its cost as unknown. */
void
anot_test_cli_setup (AnotTestCli *cli,
                     const char  *tmp_template,
                     const char  *rules_json)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *config_dir = g_build_filename (g_get_user_config_dir (), "anot", NULL);
  g_autofree char *config = g_build_filename (config_dir, "config.ini", NULL);
  g_autofree char *prices = g_strdup_printf ("[prices]\n%s = %.2f, %.2f\n", ANOT_TEST_FAKE_MODEL,
                                             ANOT_TEST_FAKE_PRICE_INPUT, ANOT_TEST_FAKE_PRICE_OUTPUT);

  g_assert_cmpint (g_mkdir_with_parents (config_dir, 0700), ==, 0);
  g_assert_true (g_file_set_contents (config, prices, -1, &error));
  g_assert_no_error (error);

  cli->root = g_dir_make_tmp (tmp_template, &error);
  g_assert_no_error (error);
  cli->server = anot_test_fake_llm_start (rules_json, NULL);
  cli->base_url = anot_fake_llm_get_openai_base_url (cli->server);
}

void
anot_test_cli_teardown (AnotTestCli *cli)
{
  anot_test_remove_tree (cli->root);
  g_clear_pointer (&cli->root, g_free);
  g_clear_pointer (&cli->base_url, g_free);
  g_clear_object (&cli->server);
}

/* In the child, before exec: no file may grow past the limit, and a write
 * that would fails (EFBIG) instead of killing the process, as a full
 * disk fails it (ENOSPC). */
static void
limit_file_size (gpointer data)
{
  struct rlimit limit;

  limit.rlim_cur = limit.rlim_max = (rlim_t) GPOINTER_TO_SIZE (data);
  signal (SIGXFSZ, SIG_IGN);
  setrlimit (RLIMIT_FSIZE, &limit);
}

/* $ANOT_RUN with @argv (its arguments, NULL-terminated) and @env
 * ("NAME=VALUE" to set, "NAME" to unset; NULL-terminated, or NULL). */
GSubprocess *
anot_test_cli_spawn (GSubprocessFlags    flags,
                     const char * const *argv,
                     const char * const *env)
{
  return anot_test_cli_spawn_limited (flags, argv, env, 0);
}

/* Like anot_test_cli_spawn(), with no file written larger than
 * @max_file_bytes (0: no limit): a disk that fills up. */
GSubprocess *
anot_test_cli_spawn_limited (GSubprocessFlags    flags,
                             const char * const *argv,
                             const char * const *env,
                             gsize               max_file_bytes)
{
  g_autoptr(GSubprocessLauncher) launcher = g_subprocess_launcher_new (flags);
  g_autoptr(GPtrArray) args = g_ptr_array_new ();
  g_autoptr(GError) error = NULL;
  GSubprocess *process;

  /* The test's own configuration directory (GLib points the variable at
   * /dev/null, and isolates only the test process), where
   * anot_test_cli_setup() wrote the fake model's price; @env may say
   * otherwise. */
  g_subprocess_launcher_setenv (launcher, "XDG_CONFIG_HOME", g_get_user_config_dir (), TRUE);
  for (guint i = 0; env != NULL && env[i] != NULL; i++)
    {
      const char *eq = strchr (env[i], '=');

      if (eq == NULL)
        g_subprocess_launcher_unsetenv (launcher, env[i]);
      else
        {
          g_autofree char *name = g_strndup (env[i], eq - env[i]);

          g_subprocess_launcher_setenv (launcher, name, eq + 1, TRUE);
        }
    }
  if (max_file_bytes > 0)
    g_subprocess_launcher_set_child_setup (launcher, limit_file_size,
                                           GSIZE_TO_POINTER (max_file_bytes), NULL);
  g_assert_nonnull (g_getenv ("ANOT_RUN"));
  g_ptr_array_add (args, (gpointer) g_getenv ("ANOT_RUN"));
  for (guint i = 0; argv[i] != NULL; i++)
    g_ptr_array_add (args, (gpointer) argv[i]);
  g_ptr_array_add (args, NULL);
  process = g_subprocess_launcher_spawnv (launcher, (const char * const *) args->pdata, &error);
  g_assert_no_error (error);
  return process;
}

typedef struct
{
  GString *text;
  GInputStream *stream;
  gboolean done;
  char buffer[4096];
} Reader;

static void
on_read (GObject      *source,
         GAsyncResult *result,
         gpointer      user_data)
{
  Reader *reader = user_data;
  gssize n = g_input_stream_read_finish (G_INPUT_STREAM (source), result, NULL);

  if (n <= 0)
    {
      reader->done = TRUE;
      return;
    }
  g_string_append_len (reader->text, reader->buffer, n);
  g_input_stream_read_async (reader->stream, reader->buffer, sizeof reader->buffer,
                             G_PRIORITY_DEFAULT, NULL, on_read, reader);
}

static void
reader_start (Reader       *reader,
              GInputStream *stream)
{
  reader->text = g_string_new (NULL);
  reader->stream = stream;
  reader->done = stream == NULL;
  if (stream != NULL)
    g_input_stream_read_async (stream, reader->buffer, sizeof reader->buffer, G_PRIORITY_DEFAULT,
                               NULL, on_read, reader);
}

static void
on_exited (GObject      *source,
           GAsyncResult *result,
           gpointer      user_data)
{
  g_subprocess_wait_finish (G_SUBPROCESS (source), result, NULL);
  *(gboolean *) user_data = TRUE;
}

/* Waits for @process while the server answers, calling @tick between
 * iterations (when not NULL); returns its exit status (-1 when a signal
 * ended it).  What it wrote to a pipe it was spawned with goes to
 * @out_stdout and @out_stderr when they are not NULL, replacing (and
 * freeing) what they held, so a test can reuse one variable. */
int
anot_test_cli_wait (GSubprocess  *process,
                    void        (*tick) (gpointer),
                    gpointer      tick_data,
                    char        **out_stdout,
                    char        **out_stderr)
{
  Reader out, err;
  gboolean exited = FALSE;

  reader_start (&out, g_subprocess_get_stdout_pipe (process));
  reader_start (&err, g_subprocess_get_stderr_pipe (process));
  g_subprocess_wait_async (process, NULL, on_exited, &exited);
  while (!exited || !out.done || !err.done)
    {
      if (tick != NULL)
        tick (tick_data);
      g_main_context_iteration (NULL, tick == NULL);
      if (tick != NULL && !g_main_context_pending (NULL))
        g_usleep (1000);
    }
  if (out.stream != NULL || err.stream != NULL)
    g_test_message ("stdout:\n%s\nstderr:\n%s", out.text->str, err.text->str);
  if (out_stdout != NULL)
    {
      g_free (*out_stdout);
      *out_stdout = g_string_free (out.text, FALSE);
    }
  else
    g_string_free (out.text, TRUE);
  if (out_stderr != NULL)
    {
      g_free (*out_stderr);
      *out_stderr = g_string_free (err.text, FALSE);
    }
  else
    g_string_free (err.text, TRUE);
  return g_subprocess_get_if_exited (process) ? g_subprocess_get_exit_status (process) : -1;
}

void
anot_test_assert_same_rows (GHashTable *a,
                            GHashTable *b)
{
  GHashTableIter iter;
  gpointer key, value;

  g_assert_cmpuint (g_hash_table_size (a), ==, g_hash_table_size (b));
  g_hash_table_iter_init (&iter, a);
  while (g_hash_table_iter_next (&iter, &key, &value))
    g_assert_cmpstr (value, ==, g_hash_table_lookup (b, key));
}

guint
anot_test_cli_count_requests (AnotFakeLlm *server,
                              const char  *method,
                              const char  *path)
{
  guint n = 0;

  for (guint i = 0; i < anot_fake_llm_get_n_requests (server); i++)
    {
      JsonObject *record = anot_fake_llm_get_request (server, i);

      if (strcmp (json_object_get_string_member (record, "method"), method) == 0 &&
          strcmp (json_object_get_string_member (record, "path"), path) == 0)
        n++;
    }
  return n;
}
