/* anot-test-backend.h: an LLM backend aimed at the fake server, and a
 * method run to its end, for the tests that talk to the fake server
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <anot/anot.h>

#include "anot-fake-llm.h"

G_BEGIN_DECLS

AnotFakeLlm *anot_test_fake_llm_start (const char *rules_json,
                                       const char *api_key);

guint        anot_test_count_requests (AnotFakeLlm *server,
                                       const char  *prefix,
                                       const char  *model);

AnotBackend *anot_test_backend_new (AnotFakeLlm *server,
                                    const char  *api_key,
                                    const char  *model,
                                    guint        max_retries,
                                    guint        timeout_ms);

AnotRanking *anot_test_rank        (AnotMethod         *method,
                                    AnotRequest        *request,
                                    GPtrArray          *candidates,
                                    guint               k,
                                    AnotMethodContext  *context,
                                    GCancellable       *cancellable,
                                    GError            **error);

G_END_DECLS
