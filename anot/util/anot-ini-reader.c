/* anot-ini-reader.c: the one reader of config.ini, with file:line errors
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "anot-ini-reader-private.h"

#include <gio/gio.h>
#include <string.h>

#include "anot-error.h"
#include "anot-text-private.h"

typedef struct
{
  char *value;
  guint line;
} Entry;

typedef struct
{
  char *name;
  guint line;               /* of its first header */
  GPtrArray *keys;          /* char*, in the order of the file */
  GHashTable *entries;      /* key -> Entry */
} Section;

struct _AnotIniReader
{
  char *name;               /* the file's path, or what the data is called */
  GPtrArray *sections;      /* Section*, in the order of the file */
  GHashTable *by_name;      /* name -> Section (borrowed) */
};

static void
entry_free (Entry *entry)
{
  g_free (entry->value);
  g_free (entry);
}

static void
section_free (Section *section)
{
  g_free (section->name);
  g_ptr_array_unref (section->keys);
  g_hash_table_unref (section->entries);
  g_free (section);
}

static void
ini_reader_clear (gpointer data)
{
  AnotIniReader *self = data;

  g_free (self->name);
  g_clear_pointer (&self->sections, g_ptr_array_unref);
  g_clear_pointer (&self->by_name, g_hash_table_unref);
}

/* Shared: an experiment hands the configuration file it read once to every
 * request's method context. */
AnotIniReader *
anot_ini_reader_ref (AnotIniReader *self)
{
  return g_atomic_rc_box_acquire (self);
}

void
anot_ini_reader_unref (AnotIniReader *self)
{
  if (self != NULL)
    g_atomic_rc_box_release_full (self, ini_reader_clear);
}

/* "PATH:LINE: [SECTION] KEY: " with the parts that are known. */
static char *
location (const char *name,
          guint       line,
          const char *section,
          const char *key)
{
  GString *text = g_string_new (name);

  if (line > 0)
    g_string_append_printf (text, ":%u", line);
  g_string_append (text, ": ");
  if (section != NULL)
    g_string_append_printf (text, "[%s]%s", section, key != NULL ? " " : ": ");
  if (key != NULL)
    g_string_append_printf (text, "%s: ", key);
  return g_string_free (text, FALSE);
}

static gboolean G_GNUC_PRINTF (6, 0)
located_errorv (GError     **error,
                const char  *name,
                guint        line,
                const char  *section,
                const char  *key,
                const char  *format,
                va_list      args)
{
  g_autofree char *where = location (name, line, section, key);
  g_autofree char *message = g_strdup_vprintf (format, args);

  g_set_error (error, ANOT_ERROR, ANOT_ERROR_CONFIG, "%s%s", where, message);
  return FALSE;
}

/* Sets %ANOT_ERROR_CONFIG as `NAME:LINE: [SECTION] KEY: MESSAGE`. */
static gboolean G_GNUC_PRINTF (6, 7)
located_error (GError     **error,
               const char  *name,
               guint        line,
               const char  *section,
               const char  *key,
               const char  *format,
               ...)
{
  va_list args;

  va_start (args, format);
  located_errorv (error, name, line, section, key, format, args);
  va_end (args);
  return FALSE;
}

/* GKeyFile's escapes, so files written for it mean the same. */
static char *
unescape (const char *text,
          gsize       length,
          char       *bad)
{
  GString *out = g_string_sized_new (length);

  for (gsize i = 0; i < length; i++)
    {
      if (text[i] != '\\')
        {
          g_string_append_c (out, text[i]);
          continue;
        }
      i++;
      switch (i < length ? text[i] : '\0')
        {
        case 's': g_string_append_c (out, ' '); break;
        case 'n': g_string_append_c (out, '\n'); break;
        case 't': g_string_append_c (out, '\t'); break;
        case 'r': g_string_append_c (out, '\r'); break;
        case '\\': g_string_append_c (out, '\\'); break;
        default:
          *bad = i < length ? text[i] : '\0';
          g_string_free (out, TRUE);
          return NULL;
        }
    }
  return g_string_free (out, FALSE);
}

static Section *
add_section (AnotIniReader *self,
             const char    *name,
             gsize          length,
             guint          line)
{
  g_autofree char *key = g_strndup (name, length);
  Section *section = g_hash_table_lookup (self->by_name, key);

  if (section != NULL)
    return section;
  section = g_new0 (Section, 1);
  section->name = g_steal_pointer (&key);
  section->line = line;
  section->keys = g_ptr_array_new ();
  section->entries = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                            (GDestroyNotify) entry_free);
  g_ptr_array_add (self->sections, section);
  g_hash_table_insert (self->by_name, section->name, section);
  return section;
}

static gboolean
parse_line (AnotIniReader  *self,
            const char     *start,
            gsize           length,
            guint           line,
            Section       **current,
            GError        **error)
{
  const char *end = start + length;
  const char *equals;
  g_autofree char *key = NULL;
  g_autofree char *value = NULL;
  Entry *entry;
  char bad = 0;

  if (!g_utf8_validate (start, length, NULL))
    return located_error (error, self->name, line, NULL, NULL, "not valid UTF-8");
  while (start < end && g_ascii_isspace (*start))
    start++;
  while (end > start && g_ascii_isspace (end[-1]))
    end--;
  if (start == end || *start == '#')
    return TRUE;

  if (*start == '[')
    {
      const char *close = memchr (start, ']', end - start);

      if (close == NULL || close != end - 1 || close == start + 1 ||
          memchr (start + 1, '[', close - start - 1) != NULL)
        return located_error (error, self->name, line, NULL, NULL,
                              "expected a section header [NAME], got “%.*s”",
                              (int) (end - start), start);
      *current = add_section (self, start + 1, close - start - 1, line);
      return TRUE;
    }

  equals = memchr (start, '=', end - start);
  if (equals == NULL)
    return located_error (error, self->name, line, *current ? (*current)->name : NULL, NULL,
                          "expected KEY = VALUE or [SECTION], got “%.*s”",
                          (int) (end - start), start);
  key = g_strndup (start, equals - start);
  g_strchomp (key);
  if (*key == '\0')
    return located_error (error, self->name, line, *current ? (*current)->name : NULL, NULL,
                          "a value without a key");
  if (*current == NULL)
    return located_error (error, self->name, line, NULL, NULL,
                          "key “%s” before the first [SECTION]", key);

  value = unescape (equals + 1, end - equals - 1, &bad);
  if (value == NULL)
    return located_error (error, self->name, line, (*current)->name, key,
                          "invalid escape “\\%c” (known: \\s \\n \\t \\r \\\\)", bad ? bad : ' ');
  g_strstrip (value);

  entry = g_hash_table_lookup ((*current)->entries, key);
  if (entry != NULL)
    return located_error (error, self->name, line, (*current)->name, key,
                          "given twice (first on line %u)", entry->line);
  entry = g_new0 (Entry, 1);
  entry->value = g_steal_pointer (&value);
  entry->line = line;
  g_ptr_array_add ((*current)->keys, key);
  g_hash_table_insert ((*current)->entries, g_steal_pointer (&key), entry);
  return TRUE;
}

/**
 * anot_ini_reader_new_from_data:
 * @name: what the data is called in errors (its path)
 * @data: (array length=length): the text
 * @length: its length in bytes
 * @error: return location for a #GError
 *
 * Errors: %ANOT_ERROR_CONFIG for a line that is not a comment, a
 * `[SECTION]` header or a `KEY = VALUE` line, a key before any section, an
 * invalid escape, a key given twice in a section, text that is not UTF-8;
 * the message starts `NAME:LINE: `.
 *
 * Returns: (transfer full): the reader, or %NULL with @error set
 */
AnotIniReader *
anot_ini_reader_new_from_data (const char  *name,
                               const char  *data,
                               gsize        length,
                               GError     **error)
{
  g_autoptr(AnotIniReader) self = g_atomic_rc_box_new0 (AnotIniReader);
  const char *p = data, *end = data + length;
  Section *current = NULL;
  guint line = 0;

  g_return_val_if_fail (name != NULL, NULL);
  g_return_val_if_fail (data != NULL || length == 0, NULL);

  self->name = g_strdup (name);
  self->sections = g_ptr_array_new_with_free_func ((GDestroyNotify) section_free);
  self->by_name = g_hash_table_new (g_str_hash, g_str_equal);

  while (p < end)
    {
      const char *newline = memchr (p, '\n', end - p);
      const char *stop = newline ? newline : end;

      line++;
      if (memchr (p, '\0', stop - p) != NULL)
        {
          located_error (error, self->name, line, NULL, NULL, "a NUL byte");
          return NULL;
        }
      if (!parse_line (self, p, stop - p, line, &current, error))
        return NULL;
      p = newline ? newline + 1 : end;
    }
  return g_steal_pointer (&self);
}

/**
 * anot_ini_reader_new_from_file:
 * @path: (type filename): a file
 * @error: return location for a #GError
 *
 * Errors: %ANOT_ERROR_CONFIG when the file cannot be read, and those of
 * anot_ini_reader_new_from_data().
 *
 * Returns: (transfer full): the reader, or %NULL with @error set
 */
AnotIniReader *
anot_ini_reader_new_from_file (const char  *path,
                               GError     **error)
{
  g_autoptr(GError) local_error = NULL;
  g_autofree char *contents = NULL;
  gsize length = 0, bom;

  g_return_val_if_fail (path != NULL, NULL);

  if (!g_file_get_contents (path, &contents, &length, &local_error))
    {
      g_set_error (error, ANOT_ERROR, ANOT_ERROR_CONFIG, "Cannot read the configuration %s: %s",
                   path, local_error->message);
      return NULL;
    }
  bom = anot_utf8_bom_length (contents, length);
  return anot_ini_reader_new_from_data (path, contents + bom, length - bom, error);
}

/**
 * anot_ini_reader_new_from_resource:
 * @resource_path: a file of libanot's resources
 *
 * Reads data built into the library.  Its absence or an error in it is a
 * bug of the build, not of the user's configuration: the program aborts.
 *
 * Returns: (transfer full): the reader
 */
AnotIniReader *
anot_ini_reader_new_from_resource (const char *resource_path)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) bytes = NULL;
  g_autofree char *name = NULL;
  AnotIniReader *self;
  gsize length;
  const char *data;

  bytes = g_resources_lookup_data (resource_path, G_RESOURCE_LOOKUP_FLAGS_NONE, &error);
  if (bytes == NULL)
    g_error ("%s is not in libanot's resources: %s", resource_path, error->message);
  data = g_bytes_get_data (bytes, &length);
  name = g_strconcat ("resource://", resource_path, NULL);
  self = anot_ini_reader_new_from_data (name, data, length, &error);
  if (self == NULL)
    g_error ("%s", error->message);
  return self;
}

/* Returns: the path or name the reader was made from */
const char *
anot_ini_reader_get_name (AnotIniReader *self)
{
  return self->name;
}

/**
 * anot_ini_reader_resolve_path:
 * @self: a reader
 * @path: (type filename): a path written in the file
 *
 * A relative path in a configuration file is relative to the file's
 * folder, so the file can be moved together with what it names.
 *
 * Returns: (transfer full) (type filename): the path to open
 */
char *
anot_ini_reader_resolve_path (AnotIniReader *self,
                              const char    *path)
{
  g_autofree char *folder = NULL;

  if (g_path_is_absolute (path))
    return g_strdup (path);
  folder = g_path_get_dirname (self->name);
  return g_build_filename (folder, path, NULL);
}

/**
 * anot_ini_reader_list_sections:
 * @self: a reader
 *
 * Returns: (transfer full): the sections in the order they first appear
 */
char **
anot_ini_reader_list_sections (AnotIniReader *self)
{
  GStrvBuilder *builder = g_strv_builder_new ();
  char **names;

  for (guint i = 0; i < self->sections->len; i++)
    g_strv_builder_add (builder, ((Section *) g_ptr_array_index (self->sections, i))->name);
  names = g_strv_builder_end (builder);
  g_strv_builder_unref (builder);
  return names;
}

/**
 * anot_ini_reader_list_keys:
 * @self: a reader
 * @section: a section
 *
 * Returns: (transfer full): the keys of @section in the order of the
 *   file; empty when there is no such section
 */
char **
anot_ini_reader_list_keys (AnotIniReader *self,
                           const char    *section)
{
  Section *s = g_hash_table_lookup (self->by_name, section);
  GStrvBuilder *builder = g_strv_builder_new ();
  char **keys;

  for (guint i = 0; s != NULL && i < s->keys->len; i++)
    g_strv_builder_add (builder, g_ptr_array_index (s->keys, i));
  keys = g_strv_builder_end (builder);
  g_strv_builder_unref (builder);
  return keys;
}

gboolean
anot_ini_reader_has_section (AnotIniReader *self,
                             const char    *section)
{
  return g_hash_table_contains (self->by_name, section);
}

static Entry *
lookup (AnotIniReader *self,
        const char    *section,
        const char    *key)
{
  Section *s = g_hash_table_lookup (self->by_name, section);

  return s != NULL && key != NULL ? g_hash_table_lookup (s->entries, key) : NULL;
}

/**
 * anot_ini_reader_get_value:
 * @self: a reader
 * @section: a section
 * @key: a key
 *
 * Returns: (nullable): the value, unescaped and without surrounding
 *   whitespace, or %NULL
 */
const char *
anot_ini_reader_get_value (AnotIniReader *self,
                           const char    *section,
                           const char    *key)
{
  Entry *entry = lookup (self, section, key);

  return entry != NULL ? entry->value : NULL;
}

/**
 * anot_ini_reader_get_line:
 * @self: a reader
 * @section: a section
 * @key: (nullable): a key of @section, or %NULL for the section header
 *
 * Returns: the line (from 1) of @key, or of the first header of @section;
 *   0 when there is none
 */
guint
anot_ini_reader_get_line (AnotIniReader *self,
                          const char    *section,
                          const char    *key)
{
  Section *s = g_hash_table_lookup (self->by_name, section);
  Entry *entry;

  if (s == NULL)
    return 0;
  if (key == NULL)
    return s->line;
  entry = g_hash_table_lookup (s->entries, key);
  return entry != NULL ? entry->line : 0;
}

/**
 * anot_ini_reader_where:
 * @self: a reader
 * @section: a section
 * @key: (nullable): a key, or %NULL for the section
 *
 * Where a value comes from, for provenance records and messages:
 * `PATH:LINE [SECTION]`.
 *
 * Returns: (transfer full): the text
 */
char *
anot_ini_reader_where (AnotIniReader *self,
                       const char    *section,
                       const char    *key)
{
  return g_strdup_printf ("%s:%u [%s]", self->name, anot_ini_reader_get_line (self, section, key),
                          section);
}

/**
 * anot_ini_reader_set_error:
 * @self: a reader
 * @error: return location for a #GError
 * @section: the section at fault
 * @key: (nullable): the key at fault, or %NULL for the whole section
 * @format: printf()-style message
 * @...: its arguments
 *
 * Sets %ANOT_ERROR_CONFIG with `PATH:LINE: [SECTION] KEY: ` before the
 * message, the line being the key's (or the section header's).
 */
void
anot_ini_reader_set_error (AnotIniReader  *self,
                           GError        **error,
                           const char     *section,
                           const char     *key,
                           const char     *format,
                           ...)
{
  va_list args;

  va_start (args, format);
  located_errorv (error, self->name, anot_ini_reader_get_line (self, section, key), section, key,
                  format, args);
  va_end (args);
}

/**
 * anot_ini_reader_get_default_path:
 *
 * The configuration file of the user: `$ANOT_CONFIG` when set, else
 * `$XDG_CONFIG_HOME/anot/config.ini`.
 *
 * Returns: (transfer full) (type filename): a path
 */
char *
anot_ini_reader_get_default_path (void)
{
  const char *path = g_getenv ("ANOT_CONFIG");

  if (path != NULL && *path != '\0')
    return g_strdup (path);
  return g_build_filename (g_get_user_config_dir (), "anot", "config.ini", NULL);
}
