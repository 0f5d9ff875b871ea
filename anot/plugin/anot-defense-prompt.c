/* anot-defense-prompt.c: the text of defense mode, as data
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The instructions of defense mode are a prompt like the methods' own, so
 * they live where prompts live: a text file in the library's resources
 * (defense-prompt.txt), which the user's config.ini may replace:
 *
 *   [defense]
 *   prompt_file = my-defense.txt     (relative to config.ini's folder)
 *
 * or, for one line, `prompt = TEXT` (`\n` for a line break).
 */
#include "config.h"

#include "anot-defense-prompt-private.h"

#include <gio/gio.h>
#include <string.h>

#include "anot-error.h"

#define DEFENSE_RESOURCE "/org/anot/plugin/defense-prompt.txt"

/* Files end with a newline the prompt does not want (as the methods'
 * prompts, see anot-llm-job.c). */
static char *
strip_final_newlines (const char *data,
                      gsize       length)
{
  while (length > 0 && (data[length - 1] == '\n' || data[length - 1] == '\r'))
    length--;
  return g_strndup (data, length);
}

static const char *
builtin_template (void)
{
  static const char *prompt;

  if (g_once_init_enter (&prompt))
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(GBytes) bytes = g_resources_lookup_data (DEFENSE_RESOURCE,
                                                         G_RESOURCE_LOOKUP_FLAGS_NONE, &error);
      g_autofree char *text = NULL;
      gsize length;
      const char *data;

      if (bytes == NULL)
        g_error ("%s is not in libanot's resources: %s", DEFENSE_RESOURCE, error->message);
      data = g_bytes_get_data (bytes, &length);
      text = strip_final_newlines (data, length);
      g_once_init_leave (&prompt, g_intern_string (text));
    }
  return prompt;
}

/* The built-in text names the items, `{item}` and `{items}`: the
 * domain's nouns (restaurants, the original wording, when @domain is
 * %NULL or the default), so the text speaks of what the method ranks.
 * Interned, as the user's text is. */
static const char *
builtin_prompt (AnotDomain *domain)
{
  const char *item = domain != NULL ? anot_domain_get_item (domain) : "restaurant";
  const char *items = domain != NULL ? anot_domain_get_items (domain) : "restaurants";
  g_autoptr(GString) text = g_string_new (builtin_template ());

  g_string_replace (text, "{items}", items, 0);
  g_string_replace (text, "{item}", item, 0);
  return g_intern_string (text->str);
}

/* The prompt @reader's [defense] section sets, or NULL (without error)
 * when it sets none. */
char *
anot_defense_prompt_read (AnotIniReader  *reader,
                          GError        **error)
{
  g_auto(GStrv) keys = anot_ini_reader_list_keys (reader, ANOT_DEFENSE_SECTION);
  const char *prompt = anot_ini_reader_get_value (reader, ANOT_DEFENSE_SECTION, "prompt");
  const char *file = anot_ini_reader_get_value (reader, ANOT_DEFENSE_SECTION, "prompt_file");

  for (guint k = 0; keys[k] != NULL; k++)
    if (strcmp (keys[k], "prompt") != 0 && strcmp (keys[k], "prompt_file") != 0)
      {
        anot_ini_reader_set_error (reader, error, ANOT_DEFENSE_SECTION, keys[k],
                                   "unknown key (expected prompt or prompt_file)");
        return NULL;
      }
  if (prompt != NULL && file != NULL)
    {
      anot_ini_reader_set_error (reader, error, ANOT_DEFENSE_SECTION, "prompt_file",
                                 "give prompt or prompt_file, not both");
      return NULL;
    }
  if (file != NULL)
    {
      g_autofree char *path = anot_ini_reader_resolve_path (reader, file);
      g_autoptr(GError) local_error = NULL;
      g_autofree char *contents = NULL;
      g_autofree char *text = NULL;
      gsize length;

      if (!g_file_get_contents (path, &contents, &length, &local_error))
        {
          anot_ini_reader_set_error (reader, error, ANOT_DEFENSE_SECTION, "prompt_file", "%s",
                                     local_error->message);
          return NULL;
        }
      if (!g_utf8_validate (contents, length, NULL) || memchr (contents, '\0', length) != NULL)
        {
          anot_ini_reader_set_error (reader, error, ANOT_DEFENSE_SECTION, "prompt_file",
                                     "%s is not UTF-8 text", path);
          return NULL;
        }
      text = strip_final_newlines (contents, length);
      if (text[strspn (text, " \t\r\n")] == '\0')
        {
          anot_ini_reader_set_error (reader, error, ANOT_DEFENSE_SECTION, "prompt_file",
                                     "%s is empty", path);
          return NULL;
        }
      return g_steal_pointer (&text);
    }
  if (prompt != NULL && *prompt == '\0')
    {
      anot_ini_reader_set_error (reader, error, ANOT_DEFENSE_SECTION, "prompt", "empty");
      return NULL;
    }
  return g_strdup (prompt);
}

/* Checks @reader's [defense] section, its file included: the LLM
 * configuration calls this when it reads config.ini, so a bad section
 * stops a run before its first request. */
gboolean
anot_defense_prompt_check_file (AnotIniReader  *reader,
                                GError        **error)
{
  g_autoptr(GError) local_error = NULL;

  /* Only whether it reads matters here. */
  g_free (anot_defense_prompt_read (reader, &local_error));
  if (local_error != NULL)
    {
      g_propagate_error (error, g_steal_pointer (&local_error));
      return FALSE;
    }
  return TRUE;
}

/* The prompt of defense mode: the [defense] section of the user's
 * config.ini (anot_ini_reader_get_default_path()) when it has one, used
 * as written, else the built-in text naming @domain's items.  Read at each call; an experiment calls it once when
 * it plans the run and hands that text to every request's context, so a
 * file changed during a run changes nothing.  The text is interned, so
 * the pointer stays valid for the process. */
const char *
anot_defense_prompt_get (AnotDomain *domain)
{
  g_autofree char *path = anot_ini_reader_get_default_path ();
  g_autoptr(AnotIniReader) reader = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *prompt = NULL;

  if (!g_file_test (path, G_FILE_TEST_EXISTS))
    return builtin_prompt (domain);
  reader = anot_ini_reader_new_from_file (path, &error);
  if (reader != NULL)
    prompt = anot_defense_prompt_read (reader, &error);
  if (error != NULL)
    {
      /* The LLM configuration read the same file when the run began and
       * stopped it for this error, so the file changed during the run. */
      g_critical ("%s; defense mode uses the built-in prompt", error->message);
      return builtin_prompt (domain);
    }
  return prompt != NULL ? g_intern_string (prompt) : builtin_prompt (domain);
}
