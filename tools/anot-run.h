/* anot-run.h: subcommands of the anot-run tool
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <anot/anot.h>

G_BEGIN_DECLS

/* Exit codes, documented in `anot-run --help`. */
#define ANOT_RUN_EXIT_OK 0
#define ANOT_RUN_EXIT_FAILED 1
#define ANOT_RUN_EXIT_USAGE 2
#define ANOT_RUN_EXIT_INTERRUPTED 130

/* Each subcommand takes the arguments after the subcommand name (argv[0] is
 * the subcommand) and returns an exit code. */
int anot_run_cmd_run      (int argc, char **argv);
int anot_run_cmd_validate (int argc, char **argv);
int anot_run_cmd_list     (int argc, char **argv);

/* The dataset used when --data is not given: $ANOT_DATA_DIR/demo, else the
 * installed demo benchmark. */
char *anot_run_default_data_dir (void);

G_END_DECLS
