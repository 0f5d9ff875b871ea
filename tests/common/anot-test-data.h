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

/* ANOT_TEST_TIME_SCALE (tests/meson.build: 4 under the sanitizers, 1
 * otherwise): the factor by which a test stretches the latencies and
 * time limits whose order it checks, since every call costs several
 * times more under AddressSanitizer on a loaded machine. */
guint        anot_test_time_scale     (void);

/* The heap in use, the arena's blocks and the mmap()ed ones, for tests
 * that check what a change keeps.  Not under AddressSanitizer, whose heap
 * mallinfo2() does not see: such tests skip the measurement there. */
gsize        anot_test_heap_in_use    (void);

/* Rewrites the rows of @ids (NULL-terminated) in the results file @path
 * as an outage leaves them (no prediction, error class infrastructure),
 * keeping what they cost. */
void         anot_test_fail_rows      (const char         *path,
                                       const char * const *ids);

G_END_DECLS
