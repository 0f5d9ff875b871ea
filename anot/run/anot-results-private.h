/* anot-results-private.h: the loaded rows of AnotResults (internal)
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include "anot-results.h"

G_BEGIN_DECLS

/* One run directory (<experiment>/<attack>/run_<R>/) and what its
 * config.json says about the pools it ranked. */
typedef struct
{
  char *directory;        /* the run directory */
  char *experiment;       /* its experiment directory */
  char *label;            /* the method's name, or the experiment's when two differ */
  char *method;
  char *run_name;
  char *attack;
  char *data_name;
  char *data_path;
  char *checksum;
  char *pool;
  char *compat;           /* config.json's compat; NULL before it existed */
  char *shuffle;
  char *model;
  char *provider;
  char *version;
  char *status;
  char *timestamp;
  char *cache;            /* --cache file, or NULL */
  gboolean offline;
  gboolean defense;
  gboolean in_study;      /* its experiment is a study's (study.json beside it) */
  guint64 seed;
  guint64 run_seed;
  guint run;
  guint k;
} AnotResultsRun;

/* One request at one N in one run directory. */
typedef struct
{
  guint run_index;        /* into the runs */
  guint n;
  char *request_id;
  char *group;
  guint gold_rank;        /* 1-based within the top k, 0 when not there */
  guint64 calls;
  guint64 tokens;
  double cost_usd;
  double latency_ms;
  char *error;            /* NULL unless the request failed */
  char *top1_item;        /* NULL: nothing ranked, or a row before the field */
  JsonObject *top1_conditions;  /* condition key → 1, 0, -1; or NULL */
  JsonArray *top1_failed;       /* keys of the conditions it fails; or NULL */
  JsonObject *gold_conditions;
  JsonObject *condition_kinds;  /* condition key → evidence kind; or NULL */
  const char *error_class; /* static; NULL unless the request failed */
  gboolean unscored;      /* the infrastructure failed it: in no metric */
  gboolean shrunk;        /* its prompts were cut to the context window... */
  double dropped_share;   /* ...leaving out this share of the reviews */
  char *raw_response;     /* the method's answer, or NULL */
  guint *preds;           /* the kept 1-based pool positions, best first */
  guint n_preds;
} AnotResultsRow;

const AnotResultsRun *anot_results_peek_run (AnotResults *self,
                                             guint        index);
const AnotResultsRow *anot_results_peek_row (AnotResults *self,
                                             guint        index);

/* Opens trace_<N>.jsonl of a run directory and calls @func for every
 * line that parses, with the request id and the "trace" member; stops
 * early when @func returns FALSE.  A missing file is no error.  Lines that
 * do not parse (a torn last line of a killed run or a full disk) are
 * skipped and counted in @out_n_unreadable (nullable). */
typedef gboolean (*AnotResultsTraceFunc) (const char *request_id,
                                          JsonNode   *trace,
                                          gpointer    user_data);
gboolean anot_results_foreach_trace (const char            *run_directory,
                                     guint                  n,
                                     AnotResultsTraceFunc   func,
                                     gpointer               user_data,
                                     guint                 *out_n_unreadable,
                                     GError               **error);

G_END_DECLS
