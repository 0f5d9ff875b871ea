/* anot-run-common.h: what every anot-run subcommand shares
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
#define ANOT_RUN_EXIT_BUDGET 3
#define ANOT_RUN_EXIT_INCOMPLETE 4
#define ANOT_RUN_EXIT_INTERRUPTED 130
#define ANOT_RUN_EXIT_TERMINATED 143

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
  gboolean batch;
  char *batch_max_size;
  char *batch_max_bytes;
  char *batch_window;
  char *batch_retry;
  char *max_cost;
  char *context_tokens;
  char *rpm;
  char *tpm;
  char **max_cost_roles;
} AnotRunLlmOptions;

void               anot_run_llm_options_add_entries   (AnotRunLlmOptions       *o,
                                                       GOptionContext          *context);
void               anot_run_llm_options_clear         (AnotRunLlmOptions       *o);
gboolean           anot_run_llm_options_choose_model  (const AnotRunLlmOptions *o);
gboolean           anot_run_llm_options_to_config     (const AnotRunLlmOptions *o,
                                                       AnotRunConfig           *config,
                                                       gboolean                 models,
                                                       GError                 **error);
AnotBackendRouter *anot_run_llm_options_create_router (const AnotRunLlmOptions *o,
                                                       GError                 **error);

/* --plugin PATH, for the subcommands that run or list plugins. */
void anot_run_add_plugin_option (GOptionContext *context);

/* The dataset used when --data is not given: $ANOT_DATA_DIR/demo, else the
 * installed demo benchmark. */
char *anot_run_default_data_dir (void);

/* Prints "anot-run[ COMMAND]: MESSAGE" and where to find help on stderr;
 * returns ANOT_RUN_EXIT_USAGE.  @command is NULL for the run command. */
int anot_run_usage_error (const char *command,
                          const char *format,
                          ...) G_GNUC_PRINTF (2, 3);

/* "$1.2346" (@decimals after the point), or "unknown price" for NaN: a
 * call's model had no price, and no figure stands for it. */
char *anot_run_format_cost (double usd,
                            int    decimals);
/* A cost member of a JSON object: NaN when null (unknown price). */
double anot_run_json_cost (JsonObject *object,
                           const char *member);
/* Says on stderr that @models (none: nothing said) have no price, so
 * that their calls' cost is recorded as unknown; @command as for
 * anot_run_usage_error(). */
void anot_run_warn_unpriced (const char         *command,
                             const char * const *models);

G_END_DECLS
