/* anot-ini-reader-private.h: the one reader of config.ini
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * config.ini is read by several parts of libanot (the LLM settings, the
 * settings of each method, the price table, the defense prompt); they all
 * read it through this reader, so the syntax is the same everywhere and
 * every error names the file and the line: `PATH:LINE: [SECTION] KEY: ...`.
 *
 * The syntax is GKeyFile's, which the file had before this reader: `#`
 * comments, `[SECTION]` headers, `KEY = VALUE` lines, values with the
 * escapes `\s`, `\n`, `\t`, `\r` and `\\`, surrounding whitespace ignored.
 * Stricter than GKeyFile: a key given twice in one section is an error
 * (GKeyFile silently kept the last), because one of the two lines is
 * always a mistake.  A section may appear twice; its keys are merged.
 */
#pragma once

#if !defined(ANOT_COMPILATION)
#error "anot-ini-reader-private.h is private to libanot."
#endif

#include <glib.h>

G_BEGIN_DECLS

typedef struct _AnotIniReader AnotIniReader;

AnotIniReader *anot_ini_reader_new_from_file    (const char     *path,
                                                 GError        **error);
AnotIniReader *anot_ini_reader_new_from_data    (const char     *name,
                                                 const char     *data,
                                                 gsize           length,
                                                 GError        **error);
AnotIniReader *anot_ini_reader_new_from_resource (const char    *resource_path);
AnotIniReader *anot_ini_reader_ref              (AnotIniReader  *self);
void           anot_ini_reader_unref            (AnotIniReader  *self);

const char    *anot_ini_reader_get_name         (AnotIniReader  *self);
char          *anot_ini_reader_resolve_path     (AnotIniReader  *self,
                                                 const char     *path);
char         **anot_ini_reader_list_sections    (AnotIniReader  *self);
char         **anot_ini_reader_list_keys        (AnotIniReader  *self,
                                                 const char     *section);
gboolean       anot_ini_reader_has_section      (AnotIniReader  *self,
                                                 const char     *section);
const char    *anot_ini_reader_get_value        (AnotIniReader  *self,
                                                 const char     *section,
                                                 const char     *key);
guint          anot_ini_reader_get_line         (AnotIniReader  *self,
                                                 const char     *section,
                                                 const char     *key);
char          *anot_ini_reader_where            (AnotIniReader  *self,
                                                 const char     *section,
                                                 const char     *key);
void           anot_ini_reader_set_error        (AnotIniReader  *self,
                                                 GError        **error,
                                                 const char     *section,
                                                 const char     *key,
                                                 const char     *format,
                                                 ...) G_GNUC_PRINTF (5, 6);

char          *anot_ini_reader_get_default_path (void);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (AnotIniReader, anot_ini_reader_unref)

G_END_DECLS
