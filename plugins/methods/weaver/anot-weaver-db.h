/* anot-weaver-db.h: the candidates as an in-memory SQLite database that
 * model-written SQL may only read
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <anot/anot.h>

G_BEGIN_DECLS

typedef struct _AnotWeaverDb AnotWeaverDb;

/* Work bounds of one query. */
#define ANOT_WEAVER_DB_MAX_STEPS   (20 * 1000 * 1000)  /* VM instructions */
#define ANOT_WEAVER_DB_MAX_MS      2000
#define ANOT_WEAVER_DB_MAX_ROWS    200

/* @context (nullable) answers the reviewers' friend lookups. */
AnotWeaverDb *anot_weaver_db_new      (GPtrArray         *candidates,
                                       AnotFormatter     *formatter,
                                       AnotMethodContext *context,
                                       GError           **error);
void          anot_weaver_db_free     (AnotWeaverDb  *db);

const char   *anot_weaver_db_schema   (AnotWeaverDb  *db);
char         *anot_weaver_db_samples  (AnotWeaverDb  *db,
                                       guint          n_rows);
/* {"columns": [...], "rows": [[...], ...], "n_rows": n, "truncated": b,
 *  "steps": VM instructions run}; NULL and an error (ANOT_ERROR_INVALID_ARGUMENT
 * for refused or failing SQL) otherwise. */
JsonNode     *anot_weaver_db_query    (AnotWeaverDb  *db,
                                       const char    *sql,
                                       GError       **error);
/* Rows of @table, for checking that nothing was changed. */
gint64        anot_weaver_db_count    (AnotWeaverDb  *db,
                                       const char    *table);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (AnotWeaverDb, anot_weaver_db_free)

G_END_DECLS
