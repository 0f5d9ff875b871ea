/* anot-study-private.h: what the study tells its cells
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include "anot-study.h"

G_BEGIN_DECLS

AnotStudyCell *anot_study_cell_new            (const char     *label,
                                               const char     *method,
                                               const char     *model,
                                               const char     *attack,
                                               gboolean        defense,
                                               const char     *directory,
                                               AnotExperiment *experiment);
void           anot_study_cell_set_experiment (AnotStudyCell  *self,
                                               AnotExperiment *experiment);

G_END_DECLS
