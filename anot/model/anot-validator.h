/* anot-validator.h
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#if !defined(ANOT_INSIDE) && !defined(ANOT_COMPILATION)
#error "Only <anot/anot.h> can be included directly."
#endif

#include "anot-visibility.h"

#include <glib-object.h>

#include "anot-dataset.h"
#include "anot-verdict.h"

G_BEGIN_DECLS

#define ANOT_TYPE_VALIDATOR (anot_validator_get_type ())
ANOT_AVAILABLE_IN_ALL
G_DECLARE_FINAL_TYPE (AnotValidator, anot_validator, ANOT, VALIDATOR, GObject)

ANOT_AVAILABLE_IN_ALL
AnotValidator  *anot_validator_new                 (AnotDataset    *dataset);
ANOT_AVAILABLE_IN_ALL
AnotDataset    *anot_validator_get_dataset         (AnotValidator  *self);
ANOT_AVAILABLE_IN_ALL
AnotTruth       anot_validator_evaluate            (AnotValidator  *self,
                                                    AnotRequest    *request,
                                                    AnotItem       *item);
ANOT_AVAILABLE_IN_ALL
AnotTruth       anot_validator_evaluate_condition  (AnotValidator  *self,
                                                    AnotCondition  *condition,
                                                    AnotItem       *item);
ANOT_AVAILABLE_IN_ALL
AnotVerdict    *anot_validator_explain             (AnotValidator  *self,
                                                    AnotRequest    *request,
                                                    AnotItem       *item);
ANOT_AVAILABLE_IN_ALL
GPtrArray      *anot_validator_find_matches        (AnotValidator  *self,
                                                    AnotRequest    *request);
ANOT_AVAILABLE_IN_ALL
AnotGoldStatus  anot_validator_check_request       (AnotValidator  *self,
                                                    AnotRequest    *request,
                                                    guint          *out_n_matches);
ANOT_AVAILABLE_IN_ALL
GArray         *anot_validator_check_requests      (AnotValidator  *self,
                                                    GPtrArray      *requests,
                                                    GArray        **out_n_matches);
ANOT_AVAILABLE_IN_ALL
JsonNode       *anot_validator_truth_matrix        (AnotValidator  *self);
ANOT_AVAILABLE_IN_ALL
gboolean        anot_validator_write_groundtruth   (AnotValidator  *self,
                                                    const char     *path,
                                                    guint          *out_n_ok,
                                                    GError        **error);

G_END_DECLS
