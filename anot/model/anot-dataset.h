/* anot-dataset.h
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#if !defined(ANOT_INSIDE) && !defined(ANOT_COMPILATION)
#error "Only <anot/anot.h> can be included directly."
#endif

#include "anot-visibility.h"
#include "anot-domain.h"

#include <gio/gio.h>

#include "anot-item.h"
#include "anot-request.h"
#include "anot-truth.h"

G_BEGIN_DECLS

#define ANOT_TYPE_DATASET (anot_dataset_get_type ())
ANOT_AVAILABLE_IN_ALL
G_DECLARE_FINAL_TYPE (AnotDataset, anot_dataset, ANOT, DATASET, GObject)

ANOT_AVAILABLE_IN_ALL
AnotDataset        *anot_dataset_load              (const char          *path,
                                                    GCancellable        *cancellable,
                                                    GError             **error);
ANOT_AVAILABLE_IN_ALL
void                anot_dataset_load_async        (const char          *path,
                                                    GCancellable        *cancellable,
                                                    GAsyncReadyCallback  callback,
                                                    gpointer             user_data);
ANOT_AVAILABLE_IN_ALL
AnotDataset        *anot_dataset_load_finish       (GAsyncResult        *result,
                                                    GError             **error);

ANOT_AVAILABLE_IN_ALL
const char         *anot_dataset_get_name          (AnotDataset         *self);
ANOT_AVAILABLE_IN_ALL
const char         *anot_dataset_get_path          (AnotDataset         *self);
ANOT_AVAILABLE_IN_ALL
const char         *anot_dataset_get_checksum      (AnotDataset         *self);
ANOT_AVAILABLE_IN_ALL
AnotDomain         *anot_dataset_get_domain        (AnotDataset         *self);
ANOT_AVAILABLE_IN_ALL
const char         *anot_dataset_get_items_file    (AnotDataset         *self);
ANOT_AVAILABLE_IN_ALL
const char * const *anot_dataset_get_warnings      (AnotDataset         *self);
ANOT_AVAILABLE_IN_ALL
guint               anot_dataset_get_n_items       (AnotDataset         *self);
ANOT_AVAILABLE_IN_ALL
AnotItem           *anot_dataset_get_item          (AnotDataset         *self,
                                                    guint                index);
ANOT_AVAILABLE_IN_ALL
AnotItem           *anot_dataset_lookup_item       (AnotDataset         *self,
                                                    const char          *item_id);
ANOT_AVAILABLE_IN_ALL
guint               anot_dataset_get_n_reviews     (AnotDataset         *self);
ANOT_AVAILABLE_IN_ALL
AnotReview         *anot_dataset_lookup_review     (AnotDataset         *self,
                                                    const char          *review_id);
ANOT_AVAILABLE_IN_ALL
guint               anot_dataset_get_n_requests    (AnotDataset         *self);
ANOT_AVAILABLE_IN_ALL
AnotRequest        *anot_dataset_get_request       (AnotDataset         *self,
                                                    guint                index);
ANOT_AVAILABLE_IN_ALL
AnotRequest        *anot_dataset_lookup_request    (AnotDataset         *self,
                                                    const char          *request_id);
ANOT_AVAILABLE_IN_ALL
char              **anot_dataset_list_groups       (AnotDataset         *self);
ANOT_AVAILABLE_IN_ALL
const char * const *anot_dataset_get_friends       (AnotDataset         *self,
                                                    const char          *name);
ANOT_AVAILABLE_IN_ALL
gboolean            anot_dataset_lookup_friends    (AnotDataset         *self,
                                                    const char          *name,
                                                    const char * const **friends);
ANOT_AVAILABLE_IN_ALL
AnotJudgement       anot_dataset_get_judgement     (AnotDataset         *self,
                                                    const char          *review_id,
                                                    const char          *aspect);

G_END_DECLS
