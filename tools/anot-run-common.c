/* anot-run-common.c: what every anot-run subcommand shares
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "anot-run-common.h"

/**
 * anot_run_default_data_dir:
 *
 * The benchmark used when `--data` is not given: `$ANOT_DATA_DIR/demo`
 * when the variable is set (the build tree and tests set it), else the
 * installed demo benchmark.
 *
 * Returns: (transfer full): a directory path
 */
char *
anot_run_default_data_dir (void)
{
  const char *env = g_getenv ("ANOT_DATA_DIR");

  if (env != NULL && *env != '\0')
    return g_build_filename (env, "demo", NULL);
  return g_build_filename (ANOT_PKGDATADIR, "demo", NULL);
}

int
anot_run_usage_error (const char *command,
                      const char *format,
                      ...)
{
  g_autofree char *message = NULL;
  g_autofree char *prefix = command != NULL ? g_strdup_printf ("anot-run %s", command)
                                            : g_strdup ("anot-run");
  va_list args;

  va_start (args, format);
  message = g_strdup_vprintf (format, args);
  va_end (args);

  g_printerr ("%s: %s\nTry “%s --help”.\n", prefix, message, prefix);
  return ANOT_RUN_EXIT_USAGE;
}
