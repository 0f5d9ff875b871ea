/* anot-test-cli.h: anot-run run as a process while the fake LLM server
 * answers on the test's main loop
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <anot/anot.h>

#include "anot-fake-llm.h"

G_BEGIN_DECLS

/* The model the command-line tests ask the fake server for, and its
 * price (US dollars per million prompt and completion tokens), which
 * anot_test_cli_setup() writes into [prices] of the test's config.ini. */
#define ANOT_TEST_FAKE_MODEL "fake"
#define ANOT_TEST_FAKE_PRICE_INPUT 1.0
#define ANOT_TEST_FAKE_PRICE_OUTPUT 3.0

/* A fixture of the command-line tests: a temporary directory and a
 * started fake server. */
typedef struct
{
  char *root;
  AnotFakeLlm *server;
  char *base_url;       /* OpenAI's: <url>/v1 */
} AnotTestCli;

void         anot_test_cli_setup    (AnotTestCli         *cli,
                                     const char          *tmp_template,
                                     const char          *rules_json);
void         anot_test_cli_teardown (AnotTestCli         *cli);

GSubprocess *anot_test_cli_spawn    (GSubprocessFlags     flags,
                                     const char * const  *argv,
                                     const char * const  *env);
GSubprocess *anot_test_cli_spawn_limited (GSubprocessFlags     flags,
                                          const char * const  *argv,
                                          const char * const  *env,
                                          gsize                max_file_bytes);
int          anot_test_cli_wait     (GSubprocess         *process,
                                     void               (*tick) (gpointer),
                                     gpointer             tick_data,
                                     char               **out_stdout,
                                     char               **out_stderr);

/* How many requests of @method to @path the server recorded. */
guint        anot_test_cli_count_requests (AnotFakeLlm *server,
                                           const char  *method,
                                           const char  *path);

/* Asserts that two tables of a run's rows (request id -> the row's JSON,
 * volatile members removed) hold the same requests with the same rows. */
void         anot_test_assert_same_rows (GHashTable *a,
                                         GHashTable *b);

G_END_DECLS
