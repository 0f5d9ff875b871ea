/* anot-run.h: the subcommands of the anot-run tool, which anot-run.c dispatches to
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include "anot-run-common.h"

G_BEGIN_DECLS

/* Each subcommand takes the arguments after the subcommand name (argv[0] is
 * the subcommand) and returns an exit code. */
int anot_run_cmd_run      (int argc, char **argv);
int anot_run_cmd_validate (int argc, char **argv);
int anot_run_cmd_list     (int argc, char **argv);
void anot_run_print_method_options (AnotRegistry *registry,
                                    const char   *method,
                                    const char   *indent,
                                    const char   *key_prefix);
int anot_run_cmd_attack   (int argc, char **argv);
int anot_run_cmd_robustness (int argc, char **argv);
int anot_run_cmd_formula  (int argc, char **argv);
int anot_run_cmd_estimate (int argc, char **argv);
int anot_run_cmd_prompt (int argc, char **argv);
int anot_run_cmd_compare  (int argc, char **argv);
int anot_run_cmd_report   (int argc, char **argv);
int anot_run_cmd_merge    (int argc, char **argv);
int anot_run_cmd_cache    (int argc, char **argv);
int anot_run_cmd_study    (int argc, char **argv);

/* anot-run-estimate.c: the `Total:` line of an estimate's "total". */
void anot_run_print_estimate_total (JsonObject *total);
char *anot_run_estimate_money_cell (JsonObject *object,
                                    const char *member);

/* anot-run-compare.c: the options `compare` and `report` share
 * (--baseline, --resamples, --bootstrap-seed, --confidence), and the
 * directories read and compared with them: on failure the error is printed
 * and NULL returned with the exit status in @status. */
typedef struct
{
  char *baseline;
  char *resamples;
  char *seed;
  char *confidence;
  gboolean by_condition;  /* explain the misses (compare --by-condition, the report) */
} AnotRunCompareOptions;

void            anot_run_compare_options_add_entries (AnotRunCompareOptions  *o,
                                                      GOptionContext         *context);
void            anot_run_compare_options_clear       (AnotRunCompareOptions  *o);
AnotComparison *anot_run_compare_options_run         (const AnotRunCompareOptions *o,
                                                      const char             *command,
                                                      char                  **directories,
                                                      AnotResults           **out_results,
                                                      int                    *status);

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (AnotRunCompareOptions, anot_run_compare_options_clear)

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
  /* `robustness --defense-too`: the method must support defense mode,
   * checked before the first (undefended) run starts. */
  gboolean defense_later;
  const char *name_suffix;
  char *directory;
  /* `anot-run estimate`: print the estimate instead of running. */
  gboolean estimate;
  /* The "Exit status:" part of --help, when not the run's. */
  const char *exit_status;
  gboolean json;
  char *completion_tokens;
  /* `anot-run prompt`: print the prompts instead of running. */
  gboolean prompt;
  char *request;
  int calls;
} AnotRunHooks;

/* Prints the prompts @experiment's method sends (text, or JSON); an exit
 * code. */
int anot_run_prompt_experiment (AnotExperiment *experiment,
                                AnotRunHooks   *hooks);

/* Prints the estimate of @experiment (a table, or JSON); an exit code. */
int anot_run_estimate_experiment (AnotExperiment *experiment,
                                  AnotRunHooks   *hooks);

int anot_run_run_experiment (int argc, char **argv, AnotRunHooks *hooks);

G_END_DECLS
