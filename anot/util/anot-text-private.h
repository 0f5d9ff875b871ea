/* anot-text-private.h: small facts about text files
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <string.h>

#include <glib.h>

G_BEGIN_DECLS

/* The length of a UTF-8 byte order mark at the start of @data: 3, or 0
 * when there is none.  Windows editors (Notepad, Excel's "CSV UTF-8") start
 * files with one; it is not part of the text, and a reader that takes it
 * for the first character refuses line 1 ("invalid number at column 1"). */
static inline gsize
anot_utf8_bom_length (const char *data,
                      gsize       length)
{
  return length >= 3 && memcmp (data, "\xEF\xBB\xBF", 3) == 0 ? 3 : 0;
}

G_END_DECLS
