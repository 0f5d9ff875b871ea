/* anot-test-backend.h: an LLM backend aimed at the fake server, for tests
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <anot/anot.h>

#include "anot-fake-llm.h"

G_BEGIN_DECLS

AnotBackend *anot_test_backend_new (AnotFakeLlm *server,
                                    const char  *api_key,
                                    const char  *model,
                                    guint        max_retries,
                                    guint        timeout_ms);

G_END_DECLS
