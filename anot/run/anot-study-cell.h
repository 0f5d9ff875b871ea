/* anot-study-cell.h: one cell of a study
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#if !defined(ANOT_INSIDE) && !defined(ANOT_COMPILATION)
#error "Only <anot/anot.h> can be included directly."
#endif

#include "anot-visibility.h"

#include "anot-experiment.h"

G_BEGIN_DECLS

#define ANOT_TYPE_STUDY_CELL (anot_study_cell_get_type ())
ANOT_AVAILABLE_IN_ALL
G_DECLARE_FINAL_TYPE (AnotStudyCell, anot_study_cell, ANOT, STUDY_CELL, GObject)

ANOT_AVAILABLE_IN_ALL
const char     *anot_study_cell_get_name       (AnotStudyCell *self);
ANOT_AVAILABLE_IN_ALL
const char     *anot_study_cell_get_label      (AnotStudyCell *self);
ANOT_AVAILABLE_IN_ALL
const char     *anot_study_cell_get_method     (AnotStudyCell *self);
ANOT_AVAILABLE_IN_ALL
const char     *anot_study_cell_get_model      (AnotStudyCell *self);
ANOT_AVAILABLE_IN_ALL
const char     *anot_study_cell_get_attack     (AnotStudyCell *self);
ANOT_AVAILABLE_IN_ALL
gboolean        anot_study_cell_get_defense    (AnotStudyCell *self);
ANOT_AVAILABLE_IN_ALL
const char     *anot_study_cell_get_directory  (AnotStudyCell *self);
ANOT_AVAILABLE_IN_ALL
AnotExperiment *anot_study_cell_get_experiment (AnotStudyCell *self);
ANOT_AVAILABLE_IN_ALL
GPtrArray      *anot_study_cell_get_results    (AnotStudyCell *self);

G_END_DECLS
