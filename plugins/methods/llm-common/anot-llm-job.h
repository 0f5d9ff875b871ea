/* anot-llm-job.h: what every baseline LLM method does around its calls
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * A static helper linked into the cot, ps, plan_act, listwise and weaver
 * plugins (not part of libanot's API): the per-request state, prompt
 * templates, candidate formatting through AnotFormatter, defense mode, LLM
 * calls through the method context, and the per-request trace.
 */
#pragma once

#include <anot/anot.h>

G_BEGIN_DECLS

typedef struct _AnotLlmJob AnotLlmJob;

AnotLlmJob  *anot_llm_job_new                 (const char          *method,
                                               AnotQuery           *request,
                                               GPtrArray           *candidates,
                                               guint                k,
                                               AnotMethodContext   *context,
                                               GCancellable        *cancellable);
void         anot_llm_job_free                (AnotLlmJob          *job);

AnotQuery         *anot_llm_job_get_request    (AnotLlmJob *job);
GPtrArray         *anot_llm_job_get_candidates (AnotLlmJob *job);
guint              anot_llm_job_get_k          (AnotLlmJob *job);
AnotMethodContext *anot_llm_job_get_context    (AnotLlmJob *job);
GCancellable      *anot_llm_job_get_cancellable (AnotLlmJob *job);

/* The formatter of this request: the method's defaults, then the
 * context's format.* options.  Its options go into the trace. */
AnotFormatter *anot_llm_job_get_formatter     (AnotLlmJob          *job,
                                               GError             **error);
/* Formats @subset (NULL: every candidate) and records the coverage under
 * @label in the trace.  The text is the job's, valid until the next
 * format. */
const char  *anot_llm_job_format_candidates   (AnotLlmJob          *job,
                                               const char          *label,
                                               GPtrArray           *subset,
                                               GError             **error);

/* A prompt template of the plugin's GResource (@path), with `{name}`
 * replaced by the value of name in the NULL-terminated name/value pairs;
 * `{{` and `}}` stand for braces.  `{item}`, `{items}`, `{Item}`,
 * `{Items}`, `{ITEMS}`, `{a_item}`, `{A_item}`, `{candidate_items}`,
 * `{attribute_examples}` and `{tool_attribute_examples}` (the same on any
 * domain but the restaurants, where ReAct's and LATS's four) are the
 * benchmark's domain (@context's; restaurants without a context):
 * templates never name the items or their attributes themselves, and a
 * method passing a value under one of these names is a critical (its
 * value would fill every place the template names the items). */
char        *anot_llm_prompt                  (AnotMethodContext   *context,
                                               const char          *path,
                                               ...) G_GNUC_NULL_TERMINATED;
/* @template_text with each `{name}` replaced by @values' string of name
 * (`{{` and `}}` stand for braces), in one pass: no value is expanded
 * again.  A placeholder without a value is a critical and stays as
 * written. */
char        *anot_llm_template_fill_table     (const char          *template_text,
                                               GHashTable          *values);

/* @base, followed by the defense instructions in defense mode. */
char        *anot_llm_system_prompt           (AnotMethodContext   *context,
                                               const char          *base);
char        *anot_llm_job_system_prompt       (AnotLlmJob          *job,
                                               const char          *base);

/* One LLM call, recorded in the trace as {phase, role, system_chars,
 * prompt_chars, output, prompt_tokens, completion_tokens, latency_ms,
 * model, cached, error}. */
void         anot_llm_job_complete_async      (AnotLlmJob          *job,
                                               const char          *phase,
                                               const char          *role,
                                               const char          *system_prompt,
                                               const char          *prompt,
                                               GAsyncReadyCallback  callback,
                                               gpointer             user_data);
/* The same with @prompt (g_malloc()ed) given away: it is the text the
 * router counts and the backend writes into the body, never copied. */
void         anot_llm_job_complete_take_async (AnotLlmJob          *job,
                                               const char          *phase,
                                               const char          *role,
                                               const char          *system_prompt,
                                               char                *prompt,
                                               GAsyncReadyCallback  callback,
                                               gpointer             user_data);
/* Returns the completion, or NULL and @error; *record (borrowed) is the
 * call's trace record either way, so a parse result can be added to it. */
AnotCompletion *anot_llm_job_complete_finish  (AnotLlmJob          *job,
                                               GAsyncResult        *result,
                                               JsonObject         **record,
                                               GError             **error);
/* anot_llm_job_complete_finish() for a call whose prompt shows reviews:
 * when the prompt was too long for the model and a review per candidate
 * of @shown (NULL: every candidate) could be dropped
 * (anot_llm_job_shrink_reviews()), returns NULL with *@retry set and no
 * error: the caller sends the call again. */
AnotCompletion *anot_llm_job_complete_finish_shrinking (AnotLlmJob    *job,
                                                        GAsyncResult  *result,
                                                        GPtrArray     *shown,
                                                        JsonObject   **record,
                                                        gboolean      *retry,
                                                        GError       **error);
void         anot_llm_job_record_parse        (AnotLlmJob          *job,
                                               JsonObject          *record,
                                               AnotParseResult     *parse);

guint        anot_llm_job_get_n_calls         (AnotLlmJob          *job);
/* Extra top-level trace members. */
void         anot_llm_job_set_trace_member    (AnotLlmJob          *job,
                                               const char          *name,
                                               JsonNode            *value);
/* The trace: method, request, n_candidates, k, defense, formatting,
 * calls, n_calls, n_failed_calls, prompt_tokens, completion_tokens,
 * extra members, and @result. */
JsonNode    *anot_llm_job_build_trace         (AnotLlmJob          *job);

/* The ranking of a final answer: the parse's positions (appending the
 * candidates not named), with the raw text and the trace.  A failed parse
 * gives an empty ranking: the failure is in the trace. */
AnotRanking *anot_llm_job_ranking_from_parse  (AnotLlmJob          *job,
                                               AnotParseResult     *parse,
                                               const char          *raw_text);
/* How a final answer is read: ANOT_PARSE_ORIGINAL under --compat
 * original (the original harness's parse_indices), else the robust rules. */
AnotParseFlags anot_llm_job_parse_flags       (AnotLlmJob          *job);
/* The ranking of @completion, a final answer naming candidates: parsed,
 * the parse recorded in the call's @record, then as
 * anot_llm_job_ranking_from_parse(). */
AnotRanking *anot_llm_job_rank_answer         (AnotLlmJob          *job,
                                               JsonObject          *record,
                                               AnotCompletion      *completion);

/* "Pick the single best ..." for k = 1, "Pick the top k ..." otherwise,
 * from the plugin's prompts (instruction-top1.txt, instruction-topk.txt
 * under @prefix). */
char        *anot_llm_job_instruction         (AnotLlmJob          *job,
                                               const char          *prefix);
/* The compact task description, @prefix/task.txt, with {k}, {n},
 * {request} and {below}: " below" when the prompt lists the items after
 * it (@listed), nothing in a plan call that shows none. */
char        *anot_llm_job_task                (AnotLlmJob          *job,
                                               const char          *prefix,
                                               gboolean             listed);

/* Adaptive truncation, as the original harness did for string-context
 * methods: whether @error says the prompt was too long for the model
 * (HTTP 400 naming the context length or token limit). */
gboolean     anot_llm_error_is_context_overflow (const GError    *error);
/* Lowers the formatter's max-reviews to one less than the most reviews any
 * of @shown (NULL: every candidate) had in the last prompt, and counts the
 * retry in the trace (truncation_retries, final_max_reviews).  FALSE when
 * no review is left to drop. */
gboolean     anot_llm_job_shrink_reviews      (AnotLlmJob          *job,
                                               GPtrArray           *shown);

/* Text kept between the calls of one request (a plan). */
void         anot_llm_job_set_text            (AnotLlmJob          *job,
                                               const char          *text);
const char  *anot_llm_job_get_text            (AnotLlmJob          *job);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (AnotLlmJob, anot_llm_job_free)

G_END_DECLS
