/* anot-formula-seed-private.h: the COMPUTE of a seed, written part by part
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include "anot-formula-seed.h"
#include "anot-expr-private.h"

G_BEGIN_DECLS

/* One evaluation of a seed's DAG kept for writing: the trace's `steps`
 * and `outputs` can then go wherever a caller's document wants them (the
 * execute result puts `n_failed` before `outputs` and `steps` last). */
typedef struct
{
  AnotFormulaSeed *seed;        /* borrowed */
  const char *categories;       /* borrowed */
  gboolean original;
  AnotExprValue *values;
  gboolean *succeeded;
  AnotExprFailure *failures;
  guint n_failed;
} AnotFormulaSeedRun;

/* Reads @extractions (a JSON array as text) and runs the DAG into @run;
 * FALSE with @error (ANOT_ERROR_PARSE, naming the byte) when the text is
 * not JSON or not an array.  @run then needs no clearing. */
gboolean _anot_formula_seed_run_text          (AnotFormulaSeed    *self,
                                               const char         *extractions,
                                               gssize              length,
                                               const char         *categories,
                                               gboolean            original,
                                               AnotFormulaSeedRun *run,
                                               GError            **error);
/* The trace's `steps` array / `outputs` object, where a value may go. */
void     _anot_formula_seed_run_write_steps   (AnotFormulaSeedRun *run,
                                               AnotJsonWriter     *writer);
void     _anot_formula_seed_run_write_outputs (AnotFormulaSeedRun *run,
                                               AnotJsonWriter     *writer);
void     _anot_formula_seed_run_clear         (AnotFormulaSeedRun *run);

G_END_DECLS
