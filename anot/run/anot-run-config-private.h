/* anot-run-config-private.h: what the experiment reads of its settings
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include "anot-run-config.h"

G_BEGIN_DECLS

/* The typed values; a field of a key that was not given holds its default
 * (see the table in anot-run-config.c). */
struct _AnotRunConfig
{
  gatomicrefcount ref_count;
  guint64 given;                /* bit i: keys[i] was set */
  GArray *candidates;           /* guint, in the order given */
  gboolean scaling;
  int compat;                   /* AnotCompatMode */
  int pool;                     /* AnotPoolMode */
  int shuffle;                  /* AnotShuffleMode */
  guint64 k;
  guint64 seed;
  guint64 runs;
  guint64 concurrency;
  guint64 limit;                /* 0: all requests */
  GStrv requests;               /* NULL: every request */
  GStrv groups;                 /* NULL: every group */
  char *out;
  char *name;                   /* NULL: <method>_<dataset> */
  gboolean force;
  gboolean defense;
  char *attack;                 /* as given: names, categories, all, ... */
  int attack_compat;            /* AnotAttackCompat */
  char *backend;
  char *model;
  char *base_url;
  char *temperature;
  char *max_tokens;
  char *role;                   /* ROLE=BACKEND:MODEL, comma-separated */
  char *cache;
  gboolean offline;
  int debug;                    /* AnotDebugLevel */
  guint shard_index;            /* --shard I/N: this process runs shard I */
  guint shard_count;            /* ...of N; 0 when the run is not sharded */
  gboolean batch;               /* through the providers' batch APIs */
  guint64 batch_max_size;
  guint64 batch_max_bytes;
  guint64 batch_window;         /* seconds; 0: none */
  guint64 request_timeout;      /* seconds; 0: none */
  int batch_retry;              /* AnotBatchRetry */
  double max_cost;              /* US dollars; 0: no budget */
  char *max_cost_role;          /* ROLE=USD,... */
  guint64 context_tokens;       /* 0: the price table's */
  char *rpm;                    /* requests per minute, as text; NULL: none */
  char *tpm;                    /* tokens per minute, as text; NULL: none */
  GHashTable *method_options;   /* KEY -> value, of `method.KEY` */
  GHashTable *attack_options;   /* KEY -> value, of `attack.KEY` */
};

/* One LLM setting of the default role: its value (NULL when not given)
 * and its key in AnotLlmConfig; @index runs from 0 until it returns NULL. */
const char *anot_run_config_get_llm_setting (const AnotRunConfig *self,
                                             guint                index,
                                             const char         **out_llm_key);

/* The non-empty, stripped parts of a comma-separated list. */
char      **anot_run_config_split_list      (const char          *text);

void        anot_run_config_take_groups     (AnotRunConfig       *self,
                                             GStrv                groups);
void        anot_run_config_set_candidates  (AnotRunConfig       *self,
                                             const guint         *ns,
                                             guint                n_ns);

/* config.json: the typed members of its "anot" object, then "options", the
 * settings as text that a resume restores (see write_options()). */
void        anot_run_config_write_record    (const AnotRunConfig *self,
                                             JsonBuilder         *builder);
void        anot_run_config_write_resume_options (const AnotRunConfig *self,
                                             JsonBuilder         *builder);
gboolean    anot_run_config_merge_resume_options (AnotRunConfig *self,
                                             JsonObject          *options,
                                             GError             **error);
/* Applies `compat original` to the settings it implies (pool,
 * attack-compat), or fails when one of them was given another value. */
gboolean    anot_run_config_apply_compat    (AnotRunConfig       *self,
                                             GError             **error);

/* Whether shards of one experiment must agree on @key: FALSE for the keys
 * that say where calls go and what they may cost (base-url, batch*,
 * max-cost*), not what they answer. */
gboolean    anot_run_config_key_is_per_shard (const char         *key);

G_END_DECLS
