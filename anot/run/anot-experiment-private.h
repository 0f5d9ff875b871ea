/* anot-experiment-private.h: the parts of AnotExperiment and who does what
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * anot-experiment.c            the object: options, prepare, run, accessors
 * anot-experiment-plan.c       options -> the plan: requests, attacks, cells
 * anot-experiment-files.c      the files on disk, and resuming from them
 * anot-experiment-scheduler.c  running the cells' requests on the main loop
 */
#pragma once

#include "anot-experiment.h"

#include "anot-backend-router.h"
#include "anot-call-journal-private.h"
#include "anot-debug-log.h"
#include "anot-ini-reader-private.h"
#include "anot-llm-config.h"
#include "anot-method.h"
#include "anot-run-config-private.h"
#include "anot-trial.h"
#include "anot-validator.h"

G_BEGIN_DECLS

#define CLEAN_ATTACK "clean"

typedef struct _BudgetHold BudgetHold;

/* What experiments that run together share (anot-experiment-gate.c): the
 * requests in flight and one budget. */
typedef struct _AnotRunGate AnotRunGate;

struct _AnotRunGate
{
  grefcount ref_count;
  double limit;                 /* US dollars; 0: no budget */
  double spent;                 /* by every experiment's finished requests */
  double reserved;              /* by their requests in flight */
  guint max_in_flight;          /* 0: no limit */
  guint in_flight;
  gboolean held;                /* nothing starts until anot_run_gate_open() */
  GPtrArray *experiments;       /* AnotExperiment, not referenced */
  GPtrArray *waiting;           /* ...that asked for a slot in vain, in order */
  AnotExperiment *turn;         /* the one whose turn it is, being pumped */
  GSource *wake_source;
};

/* One attack of the experiment ("clean": none). */
typedef struct
{
  char *name;
  AnotAttack *attack;     /* NULL for clean */
  char *dir;              /* <out>/<name>/<attack> */
} AttackEntry;

/* One (attack, run, N) combination and its rows. */
typedef struct
{
  AttackEntry *attack;
  guint run;
  guint n;
  GHashTable *rows;       /* request id -> AnotResult */
  gboolean complete;
  GHashTable *shard_ids;  /* with `shard`: the request ids this shard runs */
  GHashTable *replaced;   /* request ids whose unscored row a resume replaces:
                           * the budget counted what that row cost */

  /* While the cell is open in a run (anot-experiment-scheduler.c) */
  GPtrArray *jobs;              /* AnotRequest still to start */
  guint next_job;
  guint in_flight;
  GOutputStream *append;        /* results_<N>.jsonl */
  GOutputStream *trace_append;  /* trace_<N>.jsonl */
  AnotDebugLog *debug_log;      /* of its run */
} Cell;

struct _AnotExperiment
{
  GObject parent_instance;

  AnotDataset *dataset;
  char *method_name;
  AnotRunConfig *config;        /* as set */
  /* What config.json recorded of config.ini's [method NAME] (key -> value;
   * NULL: nothing), for a resume or a merge: new_for_resume() sets it. */
  gboolean has_recorded_method_file;
  GHashTable *recorded_method_file;
  JsonNode *recorded_method_settings; /* config.json's "method_settings", or NULL */
  /* config.json's "method_plugin", for a resume or a merge: the file the
   * method came from (a C module, a Python file), and its SHA-256. */
  char *recorded_plugin_path;
  char *recorded_plugin_sha256;
  char *recorded_plugin_language;
  /* config.json's "defense_prompt_sha256": the defense text the run sent
   * (NULL: no defense mode, or a run recorded before it was recorded). */
  char *recorded_defense_sha256;
  GPtrArray *option_errors;     /* OptionError: set_option()'s, reported by prepare() */

  /* Made by prepare() (anot-experiment-plan.c) */
  gboolean prepared;
  gboolean resuming;
  gboolean merging;             /* anot_experiment_merge_shards(): nothing is ranked */
  AnotRunConfig *settings;      /* what runs: defaults, N, groups and name resolved */
  char *directory;              /* <out>/<name> */
  GPtrArray *attacks;           /* AttackEntry, in run order */
  GPtrArray *requests;          /* AnotRequest, selected, dataset order */
  GHashTable *kept;             /* N -> GPtrArray of AnotRequest */
  GHashTable *dropped;          /* N -> count */
  GHashTable *skipped;          /* N -> TRUE (larger than the dataset) */
  GPtrArray *cells;             /* Cell, by attack, run, then N */
  guint n_planned;
  AnotMethod *method;
  char *plugin_path;            /* the method's file, when not a C module... */
  char *plugin_language;        /* ...its language ("Python")... */
  char *plugin_sha256;          /* ...and its contents' SHA-256 */
  gboolean uses_truth;          /* the method registered ANOT_PLUGIN_NEEDS_TRUTH */
  AnotValidator *validator;     /* explains rows; handed to truth methods only */
  AnotLlmConfig *llm_config;
  const char *defense_prompt;   /* interned; read once when the run is planned... */
  char *defense_sha256;         /* ...and its SHA-256, which config.json records */
  gboolean config_file_read;    /* config.ini, read once when the run is planned... */
  AnotIniReader *config_file;   /* ...nullable: there was none */
  GHashTable *method_file_settings; /* its [method NAME] as config.json records it, or NULL */
  JsonNode *method_settings;    /* every declared option's effective value and source */
  AnotBackendRouter *router;
  AnotBatchQueue *batch_queue;  /* in batch mode */
  AnotCallJournal *journal;     /* answers.jsonl of the run in progress */
  int lock_fd;                  /* the experiment directory's lock, or -1 */
  AnotDebugLevel debug_level;
  AnotDebugLog *debug_log;      /* of the run in progress */

  /* State of a run in progress (anot-experiment-scheduler.c) */
  GTask *task;
  GCancellable *cancellable;
  /* What the requests in flight get: cancelled with the run's
   * cancellable, and on an error that stops the run (a refused key). */
  GCancellable *jobs_cancellable;
  gulong cancelled_handler;
  guint cell_index;             /* the first cell not finished */
  guint next_open;              /* the first cell not opened */
  guint in_flight;
  GError *fatal;
  guint n_unwritten;            /* finished requests whose row the fatal error kept out */
  gboolean pumping;
  gboolean pump_again;

  AnotRunGate *gate;            /* shared with the experiments run beside it */

  /* Budgets (anot-experiment-budget.c) */
  GPtrArray *budgets;           /* Budget */
  guint budget_generation;      /* bumped when the budgets are made again */
  guint n_costed;               /* finished requests counted */
  gboolean over_budget;
  char *budget_message;
  char *budget_option;          /* the option that raises the budget passed */
  AnotUsage *replaced_usage;    /* what the rows a resume runs again had cost:
                                 * paid, though their rows are replaced */
  guint n_replaced;             /* those rows */
  AnotBackendRouter *estimate_router; /* the stand-in's, made on first use */
  AnotMethod *estimate_method;  /* a method of the estimate's own: one may
                                 * keep what it learnt from answers */
  Cell *estimated_cell;         /* the request estimated last... */
  AnotRequest *estimated_request;
  double *estimated_costs;      /* ...its cost per budget */
};

enum {
  SIGNAL_N_STARTED,
  SIGNAL_RESULT,
  SIGNAL_N_FINISHED,
  N_SIGNALS
};

G_GNUC_INTERNAL extern guint anot_experiment_signals[N_SIGNALS];

/* anot-experiment-plan.c */
G_GNUC_INTERNAL gboolean     anot_experiment_plan                (AnotExperiment  *self,
                                                                  GError         **error);
G_GNUC_INTERNAL void         anot_experiment_plan_clear          (AnotExperiment  *self);
G_GNUC_INTERNAL char        *anot_experiment_describe_settings_change (GHashTable *before,
                                                                       GHashTable *after);
G_GNUC_INTERNAL GHashTable  *anot_experiment_read_method_settings_record (JsonObject *anot);
G_GNUC_INTERNAL Cell        *anot_experiment_find_cell           (AnotExperiment  *self,
                                                                  AttackEntry     *attack,
                                                                  guint            run,
                                                                  guint            n);
G_GNUC_INTERNAL AttackEntry *anot_experiment_find_attack         (AnotExperiment  *self,
                                                                  const char      *name);
G_GNUC_INTERNAL guint        anot_experiment_kept_count          (AnotExperiment  *self,
                                                                  guint            n);
G_GNUC_INTERNAL gboolean     anot_experiment_cell_plans          (Cell            *cell,
                                                                  const char      *request_id);
G_GNUC_INTERNAL guint        anot_experiment_cell_planned_count  (AnotExperiment  *self,
                                                                  Cell            *cell);

/* anot-experiment-files.c */
G_GNUC_INTERNAL char        *anot_experiment_run_dir_path        (AttackEntry     *attack,
                                                                  guint            run);
G_GNUC_INTERNAL char        *anot_experiment_run_file_path       (AttackEntry     *attack,
                                                                  guint            run,
                                                                  const char      *prefix,
                                                                  guint            n);
G_GNUC_INTERNAL GPtrArray   *anot_experiment_cell_sorted_rows    (Cell            *cell);
G_GNUC_INTERNAL AnotMetrics *anot_experiment_cell_metrics        (AnotExperiment  *self,
                                                                  Cell            *cell);
G_GNUC_INTERNAL gboolean     anot_experiment_make_directory      (const char      *path,
                                                                  GError         **error);
G_GNUC_INTERNAL gboolean     anot_experiment_write_config        (AnotExperiment  *self,
                                                                  AttackEntry     *attack,
                                                                  guint            run,
                                                                  const char      *status,
                                                                  GError         **error);
G_GNUC_INTERNAL gboolean     anot_experiment_repair_trace_file   (const char      *path,
                                                                  GHashTable      *rows,
                                                                  GError         **error);
G_GNUC_INTERNAL gboolean     anot_experiment_write_cell_files    (AnotExperiment  *self,
                                                                  Cell            *cell,
                                                                  const char      *status,
                                                                  gboolean         run_over,
                                                                  GError         **error);
G_GNUC_INTERNAL gboolean     anot_experiment_load_existing_rows  (AnotExperiment  *self,
                                                                  GError         **error);
G_GNUC_INTERNAL gboolean     anot_experiment_open_directories    (AnotExperiment  *self,
                                                                  GError         **error);
G_GNUC_INTERNAL gboolean     anot_experiment_lock_directory      (AnotExperiment  *self,
                                                                  GError         **error);
G_GNUC_INTERNAL void         anot_experiment_unlock_directory    (AnotExperiment  *self);

G_GNUC_INTERNAL char        *anot_experiment_find_config         (const char      *directory,
                                                                  char           **out_experiment_dir);
/* anot-experiment-budget.c */
G_GNUC_INTERNAL void         anot_experiment_budget_reset        (AnotExperiment  *self);
G_GNUC_INTERNAL void         anot_experiment_budget_add_result   (AnotExperiment  *self,
                                                                  AnotResult      *result);
G_GNUC_INTERNAL void         anot_experiment_budget_remove_usage (AnotExperiment  *self,
                                                                  AnotUsage       *usage);
G_GNUC_INTERNAL gboolean     anot_experiment_budget_reserve      (AnotExperiment  *self,
                                                                  Cell            *cell,
                                                                  AnotRequest     *request,
                                                                  BudgetHold     **out_hold);
G_GNUC_INTERNAL void         anot_experiment_budget_attach       (AnotExperiment    *self,
                                                                  BudgetHold        *hold,
                                                                  AnotMethodContext *context);
G_GNUC_INTERNAL void         anot_experiment_budget_release      (AnotExperiment  *self,
                                                                  BudgetHold      *hold);
G_GNUC_INTERNAL void         anot_experiment_budget_clear        (AnotExperiment  *self);
G_GNUC_INTERNAL GError      *anot_experiment_budget_error        (AnotExperiment  *self);

/* anot-experiment-estimate.c */
G_GNUC_INTERNAL AnotUsage   *anot_experiment_estimate_request    (AnotExperiment    *self,
                                                                  AnotBackendRouter *router,
                                                                  AnotMethod        *method,
                                                                  Cell              *cell,
                                                                  AnotRequest       *request,
                                                                  gboolean          *incomplete,
                                                                  guint             *max_calls);
G_GNUC_INTERNAL AnotBackendRouter *anot_experiment_new_estimate_router (AnotExperiment  *self,
                                                                        guint            completion_tokens,
                                                                        GError         **error);
G_GNUC_INTERNAL double       anot_experiment_batch_cost          (AnotBackendRouter *router,
                                                                  AnotUsage         *usage);

/* anot-experiment-gate.c */
G_GNUC_INTERNAL AnotRunGate *anot_run_gate_new                   (double           max_cost,
                                                                  guint            max_in_flight);
G_GNUC_INTERNAL AnotRunGate *anot_run_gate_ref                   (AnotRunGate     *self);
G_GNUC_INTERNAL void         anot_run_gate_unref                 (AnotRunGate     *self);
G_GNUC_INTERNAL void         anot_run_gate_open                  (AnotRunGate     *self);
G_GNUC_INTERNAL gboolean     anot_run_gate_has_slot              (AnotRunGate     *self,
                                                                  AnotExperiment  *experiment);
G_GNUC_INTERNAL void         anot_run_gate_release_slot          (AnotRunGate     *self);
G_GNUC_INTERNAL void         anot_experiment_set_gate            (AnotExperiment  *self,
                                                                  AnotRunGate     *gate);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (AnotRunGate, anot_run_gate_unref)

/* anot-experiment-scheduler.c */
G_GNUC_INTERNAL void         anot_experiment_pump                (AnotExperiment  *self);
G_GNUC_INTERNAL AnotMethodContext *anot_experiment_new_method_context (AnotExperiment *self,
                                                                        AnotTrial      *trial);
G_GNUC_INTERNAL void         anot_experiment_start               (AnotExperiment  *self);
/* -j auto: requests in flight (the HTTP backends' cap is 64 calls), and
 * in batch mode the default -j had before auto. */
#define ANOT_EXPERIMENT_AUTO_REQUESTS_IN_FLIGHT 64
#define ANOT_EXPERIMENT_BATCH_REQUESTS_IN_FLIGHT 8
G_GNUC_INTERNAL guint        anot_experiment_requests_in_flight  (AnotExperiment  *self);

G_END_DECLS
