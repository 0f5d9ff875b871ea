/* anot-llm-config-private.h: AnotLlmConfig internals
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include "anot-llm-config.h"

G_BEGIN_DECLS

/* Routers created from now on send every role to @stand_in (NULL: the
 * configured backends), with the roles' configured models and
 * generation settings: a cost estimate runs the methods without calling
 * any LLM. */
G_GNUC_INTERNAL
void anot_llm_config_set_stand_in (AnotLlmConfig *self,
                                   AnotBackend   *stand_in);

/* Whether @name (upper-case, `MAX_TOKENS`) is a key the environment
 * variables ANOT_<ROLE>_<KEY> set for a role. */
G_GNUC_INTERNAL
gboolean anot_llm_config_is_role_env_key (const char *name);

G_END_DECLS
