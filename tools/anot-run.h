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
int anot_run_cmd_attack   (int argc, char **argv);
int anot_run_cmd_robustness (int argc, char **argv);
int anot_run_cmd_formula  (int argc, char **argv);
int anot_run_cmd_compare  (int argc, char **argv);
int anot_run_cmd_report   (int argc, char **argv);

/* anot-run-compare.c: the directories read and compared (shared by
 * `compare` and `report`); the bootstrap options checked (a usage error is
 * printed and FALSE returned). */
AnotComparison *anot_run_compare_directories     (char        **directories,
                                                  const char   *baseline,
                                                  guint         resamples,
                                                  guint64       seed,
                                                  double        confidence,
                                                  AnotResults **out_results,
                                                  GError      **error);
gboolean        anot_run_parse_bootstrap_options (const char   *command,
                                                  const char   *resamples_text,
                                                  const char   *seed_text,
                                                  const char   *confidence_text,
                                                  guint        *resamples,
                                                  guint64      *seed,
                                                  double       *confidence);

/* How `anot-run robustness` runs its experiments through the run command:
 * the attack list becomes "clean,<--attack, default all>", defense mode
 * may be forced and the experiment name suffixed.  The experiment
 * directory is returned in @directory (free it). */
typedef struct
{
  const char *parameter_string;
  const char *summary;
  gboolean robustness;
  gboolean defense;
  const char *name_suffix;
  char *directory;
} AnotRunHooks;

int anot_run_run_experiment (int argc, char **argv, AnotRunHooks *hooks);

/* The LLM options every subcommand that calls an LLM takes
 * (anot-run-llm.c): --backend, --model, --base-url, --role, --temperature,
 * --max-tokens, --cache, --offline. */
typedef struct
{
  char *backend;
  char *model;
  char *base_url;
  char **roles;
  char *temperature;
  char *max_tokens;
  char *cache;
  gboolean offline;
} AnotRunLlmOptions;

void               anot_run_llm_options_add_entries   (AnotRunLlmOptions       *o,
                                                       GOptionContext          *context);
void               anot_run_llm_options_clear         (AnotRunLlmOptions       *o);
gboolean           anot_run_llm_options_choose_model  (const AnotRunLlmOptions *o);
void               anot_run_llm_options_apply         (const AnotRunLlmOptions *o,
                                                       AnotExperiment          *experiment,
                                                       gboolean                 models);
AnotBackendRouter *anot_run_llm_options_create_router (const AnotRunLlmOptions *o,
                                                       GError                 **error);

/* The dataset used when --data is not given: $ANOT_DATA_DIR/demo, else the
 * installed demo benchmark. */
char *anot_run_default_data_dir (void);

/* Prints "anot-run[ COMMAND]: MESSAGE" and where to find help on stderr;
 * returns ANOT_RUN_EXIT_USAGE.  @command is NULL for the run command. */
int anot_run_usage_error (const char *command,
                          const char *format,
                          ...) G_GNUC_PRINTF (2, 3);

G_END_DECLS
