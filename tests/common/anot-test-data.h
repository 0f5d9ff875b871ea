/* anot-test-data.h: the benchmarks the tests run on
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <anot/anot.h>

G_BEGIN_DECLS

AnotDataset *anot_test_get_demo       (void);
AnotDataset *anot_test_get_philly     (void);
const char  *anot_test_philly_dir     (void);
AnotDataset *anot_test_load_demo      (void);
AnotDataset *anot_test_load_philly    (void);

/* Removes @path and everything below it (links are removed, not
 * followed): the tests' temporary directories. */
void         anot_test_remove_tree    (const char *path);

G_END_DECLS
