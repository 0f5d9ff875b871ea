/* anot-parse.c: reading scores, rankings, JSON and plans out of model text
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include "anot-parse.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "anot-dataset-private.h"
#include "anot-domain.h"
#include "anot-enum-types.h"
#include "anot-item.h"
#include "anot-pyliteral-private.h"

/**
 * AnotParseResult:
 *
 * What a parser read out of a model's text, or why it could not.
 *
 * Parsers never fail with a #GError and never substitute a default
 * silently: an unusable text gives a result whose
 * [property@Anot.ParseResult:ok] is %FALSE, with a
 * [enum@Anot.ParseFailure] reason, a message and the raw text, so a method
 * can record it in its trace.  [method@Anot.ParseResult.to_json] gives that
 * record.
 *
 * The parsers and the rules they try, in order (the rule that matched is
 * [property@Anot.ParseResult:rule]):
 *
 * **Scores** ([func@Anot.parse_score]), on the text without `<think>`
 * blocks: `number` (the whole text is a number: `5`, `**7**`, `8.5`),
 * `tag` (`<score>5</score>`, `<5>`), `json` (`{"score": 5}`), `fraction`
 * (`4/10`; another denominator is rescaled to the scale), `label` (the last
 * `Score: 5`, `Output: 5`, `Rating: 5`, `Final score: 5`, `Answer: 5`),
 * `leading` (`5 — because ...`, `5: ...`, `5. ...`), `sole` (the only
 * number in the text).  Then a refusal (`I can't`, `Please provide`, ...)
 * fails with `refusal`; several numbers without a label fail with
 * `ambiguous`.  A value outside the scale fails with `out-of-range` (the
 * value is kept in [property@Anot.ParseResult:score]).
 *
 * **Rankings** ([func@Anot.parse_ranking]): the answer region is the text
 * after the last answer marker (`ANSWER:`, `Final answer:`, `Ranking:`,
 * `Top-5:`, `Output:`, ...) up to the end of its line, or the lines after
 * it up to a blank line when the marker ends its line; without a marker,
 * a JSON list (`[5, 2, 1]`, `{"ranking": [...]}`) anywhere, else the whole
 * text.  In the region: `brackets` (`[3] > [1] > [2]`), `numbered-list`
 * (lines `1. Cafe X`, `2. [7] ...`, `3) Restaurant 4`: each line's
 * candidate number, or else the candidate whose name the line contains),
 * `list` (a region made only of numbers and separators: `5, 2, 1`,
 * `5 > 2 > 1`, `6 4 8`), `references` (`Restaurant 3`, `item #4`,
 * `candidate 2` in prose), `names` (candidate names in order of first
 * appearance).  When @candidates come from a benchmark with a domain
 * (`meta.json`), its item nouns join the words that introduce a number
 * and that a bare list may hold (`Hotel 3`, `hotels 5, 1`); on the
 * default domain the words are those above.  Without a marker, a refusal fails before the prose rules.
 * Each number is mapped to a position (numbers from 1, or from 0 with
 * %ANOT_PARSE_ZERO_BASED); out-of-range numbers are dropped and listed in
 * [method@Anot.ParseResult.get_dropped]; repeats are dropped and counted.
 * With %ANOT_PARSE_APPEND_MISSING the candidates not named are appended in
 * ascending position (their number is [property@Anot.ParseResult:n-appended]).
 *
 * **JSON** ([func@Anot.parse_json]): each fenced code block, then the whole
 * text, then every balanced `{...}` or `[...]` from left to right; each
 * as JSON (`json`), then as a Python literal with single quotes, `True`,
 * `None` (`python-literal`).
 *
 * **Steps** ([func@Anot.parse_steps]): `## Step n` sections (the `Step:`
 * line of each, else its body joined), else numbered lines (`1.`, `2)`,
 * `Step 3:`), else bullet lines.
 */

struct _AnotParseResult
{
  GObject parent_instance;

  AnotParseKind kind;
  AnotParseFailure failure;
  char *message;
  char *text;
  char *rule;
  double score;
  GArray *indices;     /* guint positions, best first */
  guint n_parsed;
  guint n_duplicates;
  GArray *dropped;     /* gint64 as written */
  JsonNode *json;
  GStrv steps;
};

G_DEFINE_FINAL_TYPE (AnotParseResult, anot_parse_result, G_TYPE_OBJECT)

enum {
  PROP_0,
  PROP_KIND,
  PROP_OK,
  PROP_FAILURE,
  PROP_MESSAGE,
  PROP_TEXT,
  PROP_RULE,
  PROP_SCORE,
  PROP_N_PARSED,
  PROP_N_APPENDED,
  PROP_N_DUPLICATES,
  PROP_JSON,
  PROP_STEPS,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

static void
anot_parse_result_finalize (GObject *object)
{
  AnotParseResult *self = ANOT_PARSE_RESULT (object);

  g_free (self->message);
  g_free (self->text);
  g_free (self->rule);
  g_array_unref (self->indices);
  g_array_unref (self->dropped);
  g_clear_pointer (&self->json, json_node_unref);
  g_strfreev (self->steps);

  G_OBJECT_CLASS (anot_parse_result_parent_class)->finalize (object);
}

static void
anot_parse_result_get_property (GObject    *object,
                                guint       prop_id,
                                GValue     *value,
                                GParamSpec *pspec)
{
  AnotParseResult *self = ANOT_PARSE_RESULT (object);

  switch (prop_id)
    {
    case PROP_KIND:
      g_value_set_enum (value, self->kind);
      break;
    case PROP_OK:
      g_value_set_boolean (value, self->failure == ANOT_PARSE_FAILURE_NONE);
      break;
    case PROP_FAILURE:
      g_value_set_enum (value, self->failure);
      break;
    case PROP_MESSAGE:
      g_value_set_string (value, self->message);
      break;
    case PROP_TEXT:
      g_value_set_string (value, self->text);
      break;
    case PROP_RULE:
      g_value_set_string (value, self->rule);
      break;
    case PROP_SCORE:
      g_value_set_double (value, self->score);
      break;
    case PROP_N_PARSED:
      g_value_set_uint (value, self->n_parsed);
      break;
    case PROP_N_APPENDED:
      g_value_set_uint (value, self->indices->len - self->n_parsed);
      break;
    case PROP_N_DUPLICATES:
      g_value_set_uint (value, self->n_duplicates);
      break;
    case PROP_JSON:
      g_value_set_boxed (value, self->json);
      break;
    case PROP_STEPS:
      g_value_set_boxed (value, self->steps);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
anot_parse_result_class_init (AnotParseResultClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GParamFlags flags = G_PARAM_READABLE | G_PARAM_STATIC_STRINGS;

  object_class->finalize = anot_parse_result_finalize;
  object_class->get_property = anot_parse_result_get_property;

  /**
   * AnotParseResult:kind:
   *
   * What the parser looked for.
   */
  properties[PROP_KIND] =
    g_param_spec_enum ("kind", NULL, NULL, ANOT_TYPE_PARSE_KIND, ANOT_PARSE_KIND_SCORE, flags);

  /**
   * AnotParseResult:ok:
   *
   * Whether the parse succeeded.
   */
  properties[PROP_OK] = g_param_spec_boolean ("ok", NULL, NULL, FALSE, flags);

  /**
   * AnotParseResult:failure:
   *
   * Why the parse failed, or %ANOT_PARSE_FAILURE_NONE.
   */
  properties[PROP_FAILURE] =
    g_param_spec_enum ("failure", NULL, NULL, ANOT_TYPE_PARSE_FAILURE, ANOT_PARSE_FAILURE_NONE, flags);

  /**
   * AnotParseResult:message:
   *
   * A sentence on the failure, or on what was dropped; %NULL if there is
   * nothing to say.
   */
  properties[PROP_MESSAGE] = g_param_spec_string ("message", NULL, NULL, NULL, flags);

  /**
   * AnotParseResult:text:
   *
   * The text as the model wrote it.
   */
  properties[PROP_TEXT] = g_param_spec_string ("text", NULL, NULL, NULL, flags);

  /**
   * AnotParseResult:rule:
   *
   * The name of the rule that found the value (see [class@Anot.ParseResult]),
   * or %NULL.
   */
  properties[PROP_RULE] = g_param_spec_string ("rule", NULL, NULL, NULL, flags);

  /**
   * AnotParseResult:score:
   *
   * The score a score parse found (also when it is out of range); NaN if
   * none.
   */
  properties[PROP_SCORE] =
    g_param_spec_double ("score", NULL, NULL, -G_MAXDOUBLE, G_MAXDOUBLE, 0, flags);

  /**
   * AnotParseResult:n-parsed:
   *
   * How many of the ranking's positions the text named.
   */
  properties[PROP_N_PARSED] = g_param_spec_uint ("n-parsed", NULL, NULL, 0, G_MAXUINT, 0, flags);

  /**
   * AnotParseResult:n-appended:
   *
   * How many positions were appended because the text did not name them.
   */
  properties[PROP_N_APPENDED] = g_param_spec_uint ("n-appended", NULL, NULL, 0, G_MAXUINT, 0, flags);

  /**
   * AnotParseResult:n-duplicates:
   *
   * How many repeated candidate references were dropped.
   */
  properties[PROP_N_DUPLICATES] = g_param_spec_uint ("n-duplicates", NULL, NULL, 0, G_MAXUINT, 0, flags);

  /**
   * AnotParseResult:json:
   *
   * The JSON value a JSON parse found.
   */
  properties[PROP_JSON] = g_param_spec_boxed ("json", NULL, NULL, JSON_TYPE_NODE, flags);

  /**
   * AnotParseResult:steps:
   *
   * The steps a steps parse found.
   */
  properties[PROP_STEPS] = g_param_spec_boxed ("steps", NULL, NULL, G_TYPE_STRV, flags);

  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
anot_parse_result_init (AnotParseResult *self)
{
  self->indices = g_array_new (FALSE, FALSE, sizeof (guint));
  self->dropped = g_array_new (FALSE, FALSE, sizeof (gint64));
  self->score = NAN;
}

static AnotParseResult *
result_new (AnotParseKind  kind,
            const char    *text)
{
  AnotParseResult *self = g_object_new (ANOT_TYPE_PARSE_RESULT, NULL);

  self->kind = kind;
  self->text = g_strdup (text != NULL ? text : "");
  return self;
}

G_GNUC_PRINTF (3, 4)
static AnotParseResult *
result_fail (AnotParseResult  *self,
             AnotParseFailure  failure,
             const char       *format,
             ...)
{
  va_list args;

  self->failure = failure;
  g_free (self->message);
  va_start (args, format);
  self->message = g_strdup_vprintf (format, args);
  va_end (args);
  return self;
}

/**
 * anot_parse_result_get_kind:
 * @self: a #AnotParseResult
 *
 * Gets [property@Anot.ParseResult:kind].
 *
 * Returns: what the parser looked for
 */
AnotParseKind
anot_parse_result_get_kind (AnotParseResult *self)
{
  g_return_val_if_fail (ANOT_IS_PARSE_RESULT (self), 0);
  return self->kind;
}

/**
 * anot_parse_result_get_ok:
 * @self: a #AnotParseResult
 *
 * Gets [property@Anot.ParseResult:ok].
 *
 * Returns: whether the parse succeeded
 */
gboolean
anot_parse_result_get_ok (AnotParseResult *self)
{
  g_return_val_if_fail (ANOT_IS_PARSE_RESULT (self), FALSE);
  return self->failure == ANOT_PARSE_FAILURE_NONE;
}

/**
 * anot_parse_result_get_failure:
 * @self: a #AnotParseResult
 *
 * Gets [property@Anot.ParseResult:failure].
 *
 * Returns: why the parse failed
 */
AnotParseFailure
anot_parse_result_get_failure (AnotParseResult *self)
{
  g_return_val_if_fail (ANOT_IS_PARSE_RESULT (self), 0);
  return self->failure;
}

/**
 * anot_parse_result_get_message:
 * @self: a #AnotParseResult
 *
 * Gets [property@Anot.ParseResult:message].
 *
 * Returns: (transfer none) (nullable): the message
 */
const char *
anot_parse_result_get_message (AnotParseResult *self)
{
  g_return_val_if_fail (ANOT_IS_PARSE_RESULT (self), NULL);
  return self->message;
}

/**
 * anot_parse_result_get_text:
 * @self: a #AnotParseResult
 *
 * Gets [property@Anot.ParseResult:text].
 *
 * Returns: (transfer none): the raw text
 */
const char *
anot_parse_result_get_text (AnotParseResult *self)
{
  g_return_val_if_fail (ANOT_IS_PARSE_RESULT (self), NULL);
  return self->text;
}

/**
 * anot_parse_result_get_rule:
 * @self: a #AnotParseResult
 *
 * Gets [property@Anot.ParseResult:rule].
 *
 * Returns: (transfer none) (nullable): the rule that matched
 */
const char *
anot_parse_result_get_rule (AnotParseResult *self)
{
  g_return_val_if_fail (ANOT_IS_PARSE_RESULT (self), NULL);
  return self->rule;
}

/**
 * anot_parse_result_get_score:
 * @self: a #AnotParseResult
 *
 * Gets [property@Anot.ParseResult:score].
 *
 * Returns: the score, or NaN
 */
double
anot_parse_result_get_score (AnotParseResult *self)
{
  g_return_val_if_fail (ANOT_IS_PARSE_RESULT (self), NAN);
  return self->score;
}

/**
 * anot_parse_result_get_indices:
 * @self: a #AnotParseResult
 * @n_indices: (out): return location for the number of positions
 *
 * Gets the ranking a ranking parse found: 0-based positions into the
 * candidates, best first, without repeats; the first
 * [property@Anot.ParseResult:n-parsed] come from the text.
 *
 * Returns: (transfer none) (array length=n_indices): the positions
 */
const guint *
anot_parse_result_get_indices (AnotParseResult *self,
                               guint           *n_indices)
{
  g_return_val_if_fail (ANOT_IS_PARSE_RESULT (self), NULL);
  g_return_val_if_fail (n_indices != NULL, NULL);

  *n_indices = self->indices->len;
  return (const guint *) self->indices->data;
}

/**
 * anot_parse_result_get_n_parsed:
 * @self: a #AnotParseResult
 *
 * Gets [property@Anot.ParseResult:n-parsed].
 *
 * Returns: the number of positions named by the text
 */
guint
anot_parse_result_get_n_parsed (AnotParseResult *self)
{
  g_return_val_if_fail (ANOT_IS_PARSE_RESULT (self), 0);
  return self->n_parsed;
}

/**
 * anot_parse_result_get_n_appended:
 * @self: a #AnotParseResult
 *
 * Gets [property@Anot.ParseResult:n-appended].
 *
 * Returns: the number of positions appended
 */
guint
anot_parse_result_get_n_appended (AnotParseResult *self)
{
  g_return_val_if_fail (ANOT_IS_PARSE_RESULT (self), 0);
  return self->indices->len - self->n_parsed;
}

/**
 * anot_parse_result_get_n_duplicates:
 * @self: a #AnotParseResult
 *
 * Gets [property@Anot.ParseResult:n-duplicates].
 *
 * Returns: the number of repeated references dropped
 */
guint
anot_parse_result_get_n_duplicates (AnotParseResult *self)
{
  g_return_val_if_fail (ANOT_IS_PARSE_RESULT (self), 0);
  return self->n_duplicates;
}

/**
 * anot_parse_result_get_dropped:
 * @self: a #AnotParseResult
 * @n_dropped: (out): return location for the number of values
 *
 * Gets the candidate numbers, as written, that a ranking parse dropped
 * because no candidate has them.
 *
 * Returns: (transfer none) (array length=n_dropped): the numbers
 */
const gint64 *
anot_parse_result_get_dropped (AnotParseResult *self,
                               guint           *n_dropped)
{
  g_return_val_if_fail (ANOT_IS_PARSE_RESULT (self), NULL);
  g_return_val_if_fail (n_dropped != NULL, NULL);

  *n_dropped = self->dropped->len;
  return (const gint64 *) self->dropped->data;
}

/**
 * anot_parse_result_get_json:
 * @self: a #AnotParseResult
 *
 * Gets [property@Anot.ParseResult:json].
 *
 * Returns: (transfer none) (nullable): the value
 */
JsonNode *
anot_parse_result_get_json (AnotParseResult *self)
{
  g_return_val_if_fail (ANOT_IS_PARSE_RESULT (self), NULL);
  return self->json;
}

/**
 * anot_parse_result_get_steps:
 * @self: a #AnotParseResult
 *
 * Gets [property@Anot.ParseResult:steps].
 *
 * Returns: (transfer none) (nullable) (array zero-terminated=1): the steps
 */
const char * const *
anot_parse_result_get_steps (AnotParseResult *self)
{
  g_return_val_if_fail (ANOT_IS_PARSE_RESULT (self), NULL);
  return (const char * const *) self->steps;
}

static const char *
nick (GType type,
      int   value)
{
  g_autoptr(GEnumClass) klass = g_type_class_ref (type);
  GEnumValue *v = g_enum_get_value (klass, value);

  return v != NULL ? v->value_nick : "unknown";
}

/**
 * anot_parse_result_to_json:
 * @self: a #AnotParseResult
 *
 * Builds the trace record of the parse: `kind`, `ok`, `failure` (the
 * nick, e.g. `refusal`, or null), `message`, `rule`, and what was found:
 * `score`; `positions` (0-based), `n_parsed`, `n_appended`, `duplicates`,
 * `dropped`; `json`; `steps`.  The raw text is not included: traces keep
 * it next to the record.
 *
 * Returns: (transfer full): a JSON object node
 */
JsonNode *
anot_parse_result_to_json (AnotParseResult *self)
{
  g_autoptr(JsonBuilder) b = json_builder_new ();

  g_return_val_if_fail (ANOT_IS_PARSE_RESULT (self), NULL);

  json_builder_begin_object (b);
  json_builder_set_member_name (b, "kind");
  json_builder_add_string_value (b, nick (ANOT_TYPE_PARSE_KIND, self->kind));
  json_builder_set_member_name (b, "ok");
  json_builder_add_boolean_value (b, self->failure == ANOT_PARSE_FAILURE_NONE);
  json_builder_set_member_name (b, "failure");
  if (self->failure == ANOT_PARSE_FAILURE_NONE)
    json_builder_add_null_value (b);
  else
    json_builder_add_string_value (b, nick (ANOT_TYPE_PARSE_FAILURE, self->failure));
  json_builder_set_member_name (b, "message");
  if (self->message != NULL)
    json_builder_add_string_value (b, self->message);
  else
    json_builder_add_null_value (b);
  json_builder_set_member_name (b, "rule");
  if (self->rule != NULL)
    json_builder_add_string_value (b, self->rule);
  else
    json_builder_add_null_value (b);

  switch (self->kind)
    {
    case ANOT_PARSE_KIND_SCORE:
      json_builder_set_member_name (b, "score");
      if (isnan (self->score))
        json_builder_add_null_value (b);
      else
        json_builder_add_double_value (b, self->score);
      break;
    case ANOT_PARSE_KIND_RANKING:
      json_builder_set_member_name (b, "positions");
      json_builder_begin_array (b);
      for (guint i = 0; i < self->indices->len; i++)
        json_builder_add_int_value (b, g_array_index (self->indices, guint, i));
      json_builder_end_array (b);
      json_builder_set_member_name (b, "n_parsed");
      json_builder_add_int_value (b, self->n_parsed);
      json_builder_set_member_name (b, "n_appended");
      json_builder_add_int_value (b, self->indices->len - self->n_parsed);
      json_builder_set_member_name (b, "duplicates");
      json_builder_add_int_value (b, self->n_duplicates);
      json_builder_set_member_name (b, "dropped");
      json_builder_begin_array (b);
      for (guint i = 0; i < self->dropped->len; i++)
        json_builder_add_int_value (b, g_array_index (self->dropped, gint64, i));
      json_builder_end_array (b);
      break;
    case ANOT_PARSE_KIND_JSON:
      json_builder_set_member_name (b, "json");
      if (self->json != NULL)
        json_builder_add_value (b, json_node_copy (self->json));
      else
        json_builder_add_null_value (b);
      break;
    case ANOT_PARSE_KIND_STEPS:
      json_builder_set_member_name (b, "steps");
      json_builder_begin_array (b);
      for (guint i = 0; self->steps != NULL && self->steps[i] != NULL; i++)
        json_builder_add_string_value (b, self->steps[i]);
      json_builder_end_array (b);
      break;
    }
  json_builder_end_object (b);

  return json_builder_get_root (b);
}

/**
 * anot_parse_result_to_ranking:
 * @self: a #AnotParseResult of a ranking parse
 *
 * Builds an [class@Anot.Ranking] of the positions, best first, scored
 * n, n − 1, ..., 1 for n positions, with the raw text as its raw response.
 * A failed parse gives an empty ranking.
 *
 * Returns: (transfer full): a new ranking
 */
AnotRanking *
anot_parse_result_to_ranking (AnotParseResult *self)
{
  AnotRanking *ranking;
  guint n;

  g_return_val_if_fail (ANOT_IS_PARSE_RESULT (self), NULL);

  ranking = anot_ranking_new ();
  n = self->indices->len;
  for (guint i = 0; i < n; i++)
    anot_ranking_append (ranking, g_array_index (self->indices, guint, i), (double) (n - i));
  anot_ranking_set_raw_response (ranking, self->text);
  return ranking;
}

/* ------------------------------------------------------------------------ *
 * Shared helpers
 * ------------------------------------------------------------------------ */

static GRegex *
regex_get (GRegex     **cache,
           const char  *pattern,
           GRegexCompileFlags flags)
{
  if (g_once_init_enter (cache))
    {
      g_autoptr(GError) error = NULL;
      GRegex *re = g_regex_new (pattern, flags | G_REGEX_OPTIMIZE, 0, &error);

      g_assert_no_error (error);
      g_once_init_leave (cache, re);
    }
  return *cache;
}

#define REGEX(name, pattern, flags)                     \
  static GRegex *                                       \
  re_##name (void)                                      \
  {                                                     \
    static GRegex *cache;                               \
    return regex_get (&cache, pattern, flags);          \
  }

/* The text a model meant as its answer: without reasoning blocks that some
 * models print before it. */
REGEX (think, "<think>.*?(</think>|$)", G_REGEX_CASELESS | G_REGEX_DOTALL)

static char *
strip_reasoning (const char *text)
{
  g_autofree char *stripped = g_regex_replace_literal (re_think (), text, -1, 0, "", 0, NULL);

  if (stripped == NULL)
    stripped = g_strdup (text);
  return g_strstrip (g_steal_pointer (&stripped));
}

/* Declining, or asking for what the prompt already gave. */
REGEX (refusal,
       "\\b(I\\s+(can['’]?t|cannot|can\\s+not|am\\s+unable|['’]m\\s+unable|am\\s+not\\s+able|"
       "['’]m\\s+not\\s+able|don['’]?t\\s+have|do\\s+not\\s+have|won['’]?t|need\\s+(more|the)\\b)|"
       "please\\s+(provide|share|supply|confirm|paste|send)|could\\s+you\\s+(provide|share|clarify)|"
       "can\\s+you\\s+(provide|share|clarify)|I['’]m\\s+sorry|sorry,\\s+(but\\s+)?I|as\\s+an\\s+AI|"
       "unable\\s+to\\s+(determine|answer|rank|evaluate|help)|not\\s+enough\\s+information|"
       "insufficient\\s+(data|information))",
       G_REGEX_CASELESS)

static gboolean
looks_like_refusal (const char *text)
{
  return g_regex_match (re_refusal (), text, 0, NULL);
}

static gboolean
parse_number (const char *s,
              double     *out)
{
  char *end = NULL;
  double v;

  errno = 0;
  v = g_ascii_strtod (s, &end);
  if (end == s || errno != 0 || !isfinite (v))
    return FALSE;
  *out = v;
  return TRUE;
}

/* ------------------------------------------------------------------------ *
 * Scores
 * ------------------------------------------------------------------------ */

#define NUM "([-+]?\\d+(?:\\.\\d+)?)"

REGEX (score_whole, "^[\\s*_\"'`(\\[]*" NUM "[\\s*_\"'`)\\].]*$", 0)
REGEX (score_tag, "<\\s*score\\s*>\\s*" NUM "\\s*<\\s*/\\s*score\\s*>|<\\s*" NUM "\\s*>", G_REGEX_CASELESS)
REGEX (score_fraction, NUM "\\s*/\\s*(\\d+(?:\\.\\d+)?)\\b", 0)
REGEX (score_label,
       "\\b(?:final\\s+score|overall\\s+score|score|rating|output|answer|final\\s+answer|overall|final)"
       "\\s*[*_]*\\s*(?:\\(\\s*[^)]{0,20}\\))?\\s*[:=]?\\s*[*_]*\\s*" NUM "(?!\\s*/)",
       G_REGEX_CASELESS)
REGEX (score_leading, "^[\\s*_]*" NUM "[*_]*\\s*(?:—|–|-|:|\\.(?!\\d)|,|\\)|\\s+[A-Za-z(])", 0)
REGEX (number, "(?<![\\w.])[-+]?\\d+(?:\\.\\d+)?(?![\\w])", 0)

static gboolean
match_number (GRegex     *re,
              const char *text,
              gboolean    last,
              double     *out,
              double     *second)
{
  g_autoptr(GMatchInfo) info = NULL;
  gboolean found = FALSE;

  if (!g_regex_match (re, text, 0, &info))
    return FALSE;
  do
    {
      int count = g_match_info_get_match_count (info);

      for (int group = 1; group < count; group++)
        {
          g_autofree char *s = g_match_info_fetch (info, group);

          if (s != NULL && s[0] != '\0' && parse_number (s, out))
            {
              if (second != NULL && group + 1 < count)
                {
                  g_autofree char *d = g_match_info_fetch (info, group + 1);

                  if (d == NULL || !parse_number (d, second))
                    continue;
                }
              found = TRUE;
              break;
            }
        }
      if (found && !last)
        return TRUE;
    }
  while (g_match_info_next (info, NULL));

  return found;
}

static gboolean
score_from_json (const char *text,
                 double     *out)
{
  g_autoptr(AnotParseResult) j = NULL;
  JsonObject *o;
  JsonNode *m;

  if (strchr (text, '{') == NULL)
    return FALSE;
  j = anot_parse_json (text);
  if (!anot_parse_result_get_ok (j) || !JSON_NODE_HOLDS_OBJECT (j->json))
    return FALSE;
  o = json_node_get_object (j->json);
  m = json_object_get_member (o, "score");
  if (m == NULL)
    m = json_object_get_member (o, "rating");
  if (m == NULL || !JSON_NODE_HOLDS_VALUE (m))
    return FALSE;
  if (json_node_get_value_type (m) == G_TYPE_INT64 || json_node_get_value_type (m) == G_TYPE_DOUBLE)
    {
      *out = json_node_get_double (m);
      return TRUE;
    }
  if (json_node_get_value_type (m) == G_TYPE_STRING)
    return parse_number (json_node_get_string (m), out);
  return FALSE;
}

/**
 * anot_parse_score:
 * @text: (nullable): the model's text
 * @min_score: the lowest valid score
 * @max_score: the highest valid score
 *
 * Reads a score on the scale [@min_score, @max_score] out of @text with
 * the rules listed in [class@Anot.ParseResult].  Covers every format of
 * the original's `parse_score` (`5`, `<5>`, `<score>5</score>`, `4/10`,
 * `Score: 5`, `Output: 5`, `5 — because ...`), but where the original
 * clamped or defaulted to 0, this fails with a reason.
 *
 * Returns: (transfer full): the result
 */
AnotParseResult *
anot_parse_score (const char *text,
                  double      min_score,
                  double      max_score)
{
  AnotParseResult *self = result_new (ANOT_PARSE_KIND_SCORE, text);
  g_autofree char *t = NULL;
  double v = NAN, denom = 0;
  const char *rule = NULL;
  g_autoptr(GMatchInfo) info = NULL;
  guint n_numbers = 0;
  double first = NAN;

  g_return_val_if_fail (min_score <= max_score, self);

  t = strip_reasoning (self->text);
  if (t[0] == '\0')
    return result_fail (self, ANOT_PARSE_FAILURE_EMPTY, "The reply is empty");

  if (match_number (re_score_whole (), t, FALSE, &v, NULL))
    rule = "number";
  else if (match_number (re_score_tag (), t, FALSE, &v, NULL))
    rule = "tag";
  else if (score_from_json (t, &v))
    rule = "json";
  else if (match_number (re_score_fraction (), t, FALSE, &v, &denom) && denom > 0)
    {
      rule = "fraction";
      if (denom != max_score && max_score > 0)
        v = v / denom * max_score;
    }
  else if (match_number (re_score_label (), t, TRUE, &v, NULL))
    rule = "label";
  else if (match_number (re_score_leading (), t, FALSE, &v, NULL))
    rule = "leading";

  if (rule == NULL)
    {
      if (looks_like_refusal (t))
        return result_fail (self, ANOT_PARSE_FAILURE_REFUSAL,
                            "The model did not give a score (it declined or asked for more information)");

      if (g_regex_match (re_number (), t, 0, &info))
        {
          do
            {
              g_autofree char *s = g_match_info_fetch (info, 0);
              double x;

              if (parse_number (s, &x) && (n_numbers == 0 || x != first))
                {
                  if (n_numbers == 0)
                    first = x;
                  n_numbers++;
                }
            }
          while (g_match_info_next (info, NULL));
        }
      if (n_numbers == 1)
        {
          v = first;
          rule = "sole";
        }
      else if (n_numbers > 1)
        return result_fail (self, ANOT_PARSE_FAILURE_AMBIGUOUS,
                            "The reply holds %u different numbers and none is marked as the score",
                            n_numbers);
      else
        return result_fail (self, ANOT_PARSE_FAILURE_NOT_FOUND, "The reply holds no number");
    }

  self->rule = g_strdup (rule);
  self->score = v;
  if (v < min_score || v > max_score)
    return result_fail (self, ANOT_PARSE_FAILURE_OUT_OF_RANGE,
                        "Score %g is outside %g..%g", v, min_score, max_score);
  return self;
}

/* ------------------------------------------------------------------------ *
 * Rankings
 * ------------------------------------------------------------------------ */

REGEX (answer_marker,
       "(?:^|(?<=[^\\w]))(?:final\\s+answer|answer|final\\s+ranking|ranking|ranked\\s+list|"
       "ranked\\s+order|final\\s+order|order|your\\s+ranking|top[\\s-]*\\d*|output|result|selection|"
       "recommendations?|best\\s+match(?:es)?)\\s*[*_]*\\s*(?:\\([^)\\n]{0,30}\\))?\\s*[*_]*\\s*[:=]",
       G_REGEX_CASELESS)
REGEX (bracket_ref, "\\[\\s*#?\\s*(\\d+)\\s*\\]", 0)
REGEX (list_line, "^\\s*(?:[-*•]\\s*)?(?:#{1,6}\\s*)?\\(?(\\d+)[.):]\\s+(.*)$", 0)
/* The words that may introduce a candidate's number ("restaurant 3",
 * "item #4"), and those a bare list may hold besides numbers.  @extra is
 * where a benchmark's own item nouns go ("|hotel", "|hotels"): empty on
 * the default domain, so its patterns are the ones every result was
 * parsed with.  (No pattern holds a '%': they are also printf formats.) */
#define LINE_REF_PATTERN(extra) \
  "^[\\s*_\"'`]*(?:(?:restaurant|item|candidate|option|index|no\\.?|number|cafe" extra "|#)\\s*#?\\s*)?" \
  "\\[?\\(?(\\d+)\\b"
#define PROSE_REF_PATTERN(extra) \
  "\\b(?:restaurant|item|candidate|option|index|cafe" extra "|no\\.)\\s*#?\\s*\\[?(\\d+)\\b|#(\\d+)\\b"
#define LIST_ONLY_PATTERN(extra) \
  "^(?:[\\s\\d,;:>\\[\\]()#.\\-–—→|/&*_\"'`]|\\b(?:and|then|or|item|items|restaurant|restaurants|" \
  "candidate|candidates|index|indices|top|rank|ranking|best|answer|final|output|is|are|the|" \
  "order|indexes|numbers?|k" extra ")\\b)*$"

REGEX (line_ref, LINE_REF_PATTERN (""), G_REGEX_CASELESS)
REGEX (prose_ref, PROSE_REF_PATTERN (""), G_REGEX_CASELESS)
REGEX (integer, "(?<![\\w.])(\\d+)(?![\\w]|\\.\\d)", 0)
REGEX (list_only, LIST_ONLY_PATTERN (""), G_REGEX_CASELESS)

/* The three patterns with a domain's nouns, compiled once per domain. */
typedef struct
{
  GRegex *line_ref;
  GRegex *prose_ref;
  GRegex *list_only;
} NounRegexes;

static void
noun_regexes_free (gpointer data)
{
  NounRegexes *r = data;

  g_regex_unref (r->line_ref);
  g_regex_unref (r->prose_ref);
  g_regex_unref (r->list_only);
  g_free (r);
}

/* "bed and breakfast" -> "|bed\s+and\s+breakfast". */
static char *
noun_alternative (const char *noun)
{
  g_autofree char *escaped = g_regex_escape_string (noun, -1);
  g_auto(GStrv) words = g_strsplit (escaped, "\\ ", -1);
  g_autofree char *joined = g_strjoinv ("\\s+", words);

  return g_strconcat ("|", joined, NULL);
}

/* The patterns for @candidates' benchmark, NULL for the default domain
 * (or candidates not from a dataset): the static ones apply. */
static const NounRegexes *
noun_regexes (GPtrArray *candidates)
{
  GQuark quark;
  g_autoptr(AnotDataset) dataset = NULL;
  AnotDomain *domain;
  NounRegexes *r;

  if (candidates == NULL || candidates->len == 0)
    return NULL;
  dataset = _anot_item_get_dataset (g_ptr_array_index (candidates, 0));
  domain = dataset != NULL ? anot_dataset_get_domain (dataset) : NULL;
  if (domain == NULL || anot_domain_is_default (domain))
    return NULL;
  quark = g_quark_from_static_string ("anot-parse-noun-regexes");
  r = g_object_get_qdata (G_OBJECT (domain), quark);
  if (r != NULL)
    return r;

  {
    g_autofree char *item = noun_alternative (anot_domain_get_item (domain));
    g_autofree char *items = noun_alternative (anot_domain_get_items (domain));
    g_autofree char *both = g_strconcat (item, items, NULL);
    g_autofree char *line_ref = g_strdup_printf (LINE_REF_PATTERN ("%s"), item);
    g_autofree char *prose_ref = g_strdup_printf (PROSE_REF_PATTERN ("%s"), item);
    g_autofree char *list_only = g_strdup_printf (LIST_ONLY_PATTERN ("%s"), both);

    r = g_new0 (NounRegexes, 1);
    r->line_ref = g_regex_new (line_ref, G_REGEX_CASELESS | G_REGEX_OPTIMIZE, 0, NULL);
    r->prose_ref = g_regex_new (prose_ref, G_REGEX_CASELESS | G_REGEX_OPTIMIZE, 0, NULL);
    r->list_only = g_regex_new (list_only, G_REGEX_CASELESS | G_REGEX_OPTIMIZE, 0, NULL);
    g_assert (r->line_ref != NULL && r->prose_ref != NULL && r->list_only != NULL);
  }
  /* Two threads may race to set it: the first one kept wins. */
  if (!g_object_replace_qdata (G_OBJECT (domain), quark, NULL, r, noun_regexes_free, NULL))
    {
      noun_regexes_free (r);
      r = g_object_get_qdata (G_OBJECT (domain), quark);
    }
  return r;
}

typedef struct
{
  AnotParseResult *result;
  guint n;
  gboolean zero_based;
  gboolean *seen;
  /* re_line_ref() and co., or their forms with the benchmark's nouns. */
  GRegex *line_ref;
  GRegex *prose_ref;
  GRegex *list_only;
} RankBuilder;

static void
rank_add (RankBuilder *rb,
          gint64       value)
{
  gint64 pos = rb->zero_based ? value : value - 1;

  if (pos < 0 || pos >= (gint64) rb->n)
    {
      g_array_append_val (rb->result->dropped, value);
      return;
    }
  if (rb->seen[pos])
    {
      rb->result->n_duplicates++;
      return;
    }
  rb->seen[pos] = TRUE;
  {
    guint p = (guint) pos;

    g_array_append_val (rb->result->indices, p);
  }
}

static gint64
to_int64 (const char *digits)
{
  guint64 v;

  /* Longer than any candidate count: out of range either way. */
  if (!g_ascii_string_to_unsigned (digits, 10, 0, G_MAXINT64, &v, NULL))
    return G_MAXINT64;
  return (gint64) v;
}

/* Adds every group-1 (or group-2) number matched by @re in @region. */
static guint
collect (RankBuilder *rb,
         GRegex      *re,
         const char  *region)
{
  g_autoptr(GMatchInfo) info = NULL;
  guint found = 0;

  if (!g_regex_match (re, region, 0, &info))
    return 0;
  do
    {
      int count = g_match_info_get_match_count (info);

      for (int group = 1; group < count; group++)
        {
          g_autofree char *s = g_match_info_fetch (info, group);

          if (s != NULL && s[0] != '\0')
            {
              rank_add (rb, to_int64 (s));
              found++;
              break;
            }
        }
    }
  while (g_match_info_next (info, NULL));
  return found;
}

/* Candidate names in @text by first appearance; longer names first so
 * "Milkcrate Cafe" is not read as "Milk". */
static guint
collect_names (RankBuilder *rb,
               const char  *text,
               GPtrArray   *candidates,
               gboolean     first_only)
{
  g_autofree char *lower = g_utf8_casefold (text, -1);
  g_autofree gssize *where = g_new0 (gssize, candidates->len);
  g_autofree guint *order = g_new0 (guint, candidates->len);
  guint n_found = 0;

  for (guint i = 0; i < candidates->len; i++)
    {
      AnotItem *item = g_ptr_array_index (candidates, i);
      g_autofree char *name = g_utf8_casefold (anot_item_get_name (item), -1);
      const char *hit;

      where[i] = -1;
      if (strlen (name) < 3)
        continue;
      hit = strstr (lower, name);
      if (hit == NULL)
        continue;
      /* A longer name found at an overlapping place wins. */
      for (guint j = 0; j < candidates->len; j++)
        {
          g_autofree char *other = NULL;
          const char *ohit;

          if (j == i)
            continue;
          other = g_utf8_casefold (anot_item_get_name (g_ptr_array_index (candidates, j)), -1);
          if (strlen (other) <= strlen (name) || strstr (other, name) == NULL)
            continue;
          ohit = strstr (lower, other);
          while (ohit != NULL && hit != NULL && hit >= ohit && hit < ohit + strlen (other))
            {
              hit = strstr (hit + 1, name);
              if (hit != NULL && hit >= ohit + strlen (other))
                ohit = strstr (ohit + 1, other);
            }
        }
      if (hit == NULL)
        continue;
      where[i] = hit - lower;
      order[n_found++] = i;
    }

  /* Sort by first appearance (insertion sort: N is small). */
  for (guint a = 1; a < n_found; a++)
    for (guint b = a; b > 0 && where[order[b]] < where[order[b - 1]]; b--)
      {
        guint t = order[b];

        order[b] = order[b - 1];
        order[b - 1] = t;
      }

  for (guint a = 0; a < n_found && (!first_only || a < 1); a++)
    rank_add (rb, rb->zero_based ? order[a] : order[a] + 1);
  return first_only ? MIN (n_found, 1) : n_found;
}

/* "1. Cafe X" / "2. [7] Cafe Y": every list line of @region. */
static guint
collect_numbered_list (RankBuilder *rb,
                       const char  *region,
                       GPtrArray   *candidates)
{
  g_auto(GStrv) lines = g_strsplit (region, "\n", -1);
  guint n_lines = 0, found = 0;
  gint64 expect = -1;

  for (guint i = 0; lines[i] != NULL; i++)
    {
      g_autoptr(GMatchInfo) info = NULL;
      g_autofree char *num = NULL;
      g_autofree char *rest = NULL;
      gint64 rank;

      if (!g_regex_match (re_list_line (), lines[i], 0, &info))
        continue;
      num = g_match_info_fetch (info, 1);
      rest = g_match_info_fetch (info, 2);
      rank = to_int64 (num);
      /* The list numbering must count up, or these are not rank lines. */
      if (expect >= 0 && rank != expect)
        continue;
      expect = rank + 1;
      n_lines++;

      {
        g_autoptr(GMatchInfo) ref = NULL;
        gboolean found_ref = g_regex_match (re_bracket_ref (), rest, 0, &ref);

        if (!found_ref)
          {
            /* A failed match still returns its match info. */
            g_clear_pointer (&ref, g_match_info_free);
            found_ref = g_regex_match (rb->line_ref, rest, 0, &ref);
          }
        if (found_ref)
          {
            g_autofree char *s = g_match_info_fetch (ref, 1);

            rank_add (rb, to_int64 (s));
            found++;
            continue;
          }
      }
      if (candidates != NULL && collect_names (rb, rest, candidates, TRUE) > 0)
        found++;
    }
  return n_lines >= 1 ? found : 0;
}

/* The region after the last answer marker that names something. */
static char *
answer_region (const char *text)
{
  g_autoptr(GMatchInfo) info = NULL;
  GArray *ends = g_array_new (FALSE, FALSE, sizeof (int));
  char *region = NULL;

  if (g_regex_match (re_answer_marker (), text, 0, &info))
    {
      do
        {
          int start, end;

          g_match_info_fetch_pos (info, 0, &start, &end);
          g_array_append_val (ends, end);
        }
      while (g_match_info_next (info, NULL));
    }

  for (guint i = ends->len; i > 0 && region == NULL; i--)
    {
      const char *p = text + g_array_index (ends, int, i - 1);
      const char *eol = strchr (p, '\n');
      g_autofree char *line = g_strstrip (eol != NULL ? g_strndup (p, eol - p) : g_strdup (p));

      if (line[0] != '\0' && strpbrk (line, "0123456789") != NULL)
        region = g_steal_pointer (&line);
      else if (line[0] == '\0' && eol != NULL)
        {
          /* The marker ends its line: the block after it, up to a blank
           * line. */
          const char *start = eol + 1;
          const char *blank;

          while (*start == '\n' || *start == ' ' || *start == '\t' || *start == '\r')
            start++;
          blank = strstr (start, "\n\n");
          region = blank != NULL ? g_strndup (start, blank - start) : g_strdup (start);
          if (region[0] == '\0')
            g_clear_pointer (&region, g_free);
        }
      else if (line[0] != '\0')
        region = g_steal_pointer (&line);  /* names after the marker */
    }

  g_array_unref (ends);
  return region;
}

static gboolean
ranking_from_json (RankBuilder *rb,
                   const char  *text)
{
  g_autoptr(AnotParseResult) j = NULL;
  JsonNode *node;
  JsonArray *array = NULL;
  guint found = 0;

  if (strpbrk (text, "[{") == NULL)
    return FALSE;
  j = anot_parse_json (text);
  if (!anot_parse_result_get_ok (j))
    return FALSE;
  node = j->json;
  if (JSON_NODE_HOLDS_ARRAY (node))
    array = json_node_get_array (node);
  else if (JSON_NODE_HOLDS_OBJECT (node))
    {
      static const char * const keys[] = { "ranking", "rank", "order", "indices", "answer", "top_k", "result" };
      JsonObject *o = json_node_get_object (node);

      for (guint i = 0; i < G_N_ELEMENTS (keys) && array == NULL; i++)
        {
          JsonNode *m = json_object_get_member (o, keys[i]);

          if (m != NULL && JSON_NODE_HOLDS_ARRAY (m))
            array = json_node_get_array (m);
        }
    }
  if (array == NULL)
    return FALSE;

  for (guint i = 0; i < json_array_get_length (array); i++)
    {
      JsonNode *e = json_array_get_element (array, i);

      if (JSON_NODE_HOLDS_VALUE (e) && json_node_get_value_type (e) == G_TYPE_INT64)
        {
          rank_add (rb, json_node_get_int (e));
          found++;
        }
      else if (JSON_NODE_HOLDS_VALUE (e) && json_node_get_value_type (e) == G_TYPE_STRING)
        {
          const char *s = json_node_get_string (e);

          if (s[0] != '\0' && strspn (s, "0123456789") == strlen (s))
            {
              rank_add (rb, to_int64 (s));
              found++;
            }
        }
    }
  return found > 0;
}

/* Runs the region rules; returns the rule name or NULL. */
static const char *
rank_region (RankBuilder *rb,
             const char  *region,
             GPtrArray   *candidates,
             gboolean     prose)
{
  guint before = rb->result->dropped->len;

  /* A permutation written with brackets: [3] > [1] > [2]. */
  {
    g_autoptr(GMatchInfo) info = NULL;
    guint n_brackets = 0;

    if (g_regex_match (re_bracket_ref (), region, 0, &info))
      do n_brackets++; while (g_match_info_next (info, NULL));
    if (n_brackets >= 2 || (n_brackets == 1 && !prose))
      {
        collect (rb, re_bracket_ref (), region);
        if (rb->result->indices->len > 0 || rb->result->dropped->len > before)
          return "brackets";
      }
  }

  if (strchr (region, '\n') != NULL || g_regex_match (re_list_line (), region, 0, NULL))
    {
      if (collect_numbered_list (rb, region, candidates) > 0)
        return "numbered-list";
    }

  if (g_regex_match (rb->list_only, region, 0, NULL))
    {
      if (collect (rb, re_integer (), region) > 0)
        return "list";
    }

  if (collect (rb, rb->prose_ref, region) > 0)
    return "references";

  if (!prose)
    {
      /* An answer line with words around the numbers: "3, then 1". */
      if (collect (rb, re_integer (), region) > 0)
        return "numbers";
    }

  if (candidates != NULL && collect_names (rb, region, candidates, FALSE) > 0)
    return "names";

  return NULL;
}

/* ANOT_PARSE_ORIGINAL: the original harness's parse_indices over the
 * whole text, nothing stripped, nothing appended (the original ranked
 * only what the text named). */
static AnotParseResult *
ranking_original (AnotParseResult *self,
                  guint            n_candidates,
                  AnotParseFlags   flags)
{
  g_autofree guint *indices = NULL;
  guint n = 0;

  indices = anot_parse_indices_compat (self->text, n_candidates, G_MAXUINT,
                                       flags & ANOT_PARSE_ZERO_BASED, &n);
  self->rule = g_strdup ("original");
  for (guint i = 0; i < n; i++)
    {
      guint position = indices[i] - 1;

      g_array_append_val (self->indices, position);
    }
  self->n_parsed = n;
  if (n == 0)
    {
      if (self->text == NULL || self->text[0] == '\0')
        return result_fail (self, ANOT_PARSE_FAILURE_EMPTY, "The reply is empty");
      return result_fail (self, ANOT_PARSE_FAILURE_NOT_FOUND,
                          "The reply has no number between 1 and %u", n_candidates);
    }
  return self;
}

/**
 * anot_parse_ranking:
 * @text: (nullable): the model's text
 * @n_candidates: the number of candidates
 * @candidates: (nullable) (element-type Anot.Item): the candidates in the
 *   order the model saw them, to recognise answers that name them instead
 *   of numbering them
 * @flags: options
 *
 * Reads an ordered list of candidates out of @text with the rules listed
 * in [class@Anot.ParseResult].  The result's positions are 0-based.
 *
 * Returns: (transfer full): the result
 */
AnotParseResult *
anot_parse_ranking (const char     *text,
                    guint           n_candidates,
                    GPtrArray      *candidates,
                    AnotParseFlags  flags)
{
  AnotParseResult *self = result_new (ANOT_PARSE_KIND_RANKING, text);
  g_autofree char *t = NULL;
  g_autofree char *region = NULL;
  g_autofree gboolean *seen = NULL;
  const char *rule = NULL;
  RankBuilder rb;

  g_return_val_if_fail (candidates == NULL || candidates->len == n_candidates, self);

  if (flags & ANOT_PARSE_ORIGINAL)
    return ranking_original (self, n_candidates, flags);

  t = strip_reasoning (self->text);
  if (t[0] == '\0')
    return result_fail (self, ANOT_PARSE_FAILURE_EMPTY, "The reply is empty");

  seen = g_new0 (gboolean, MAX (n_candidates, 1));
  rb.result = self;
  rb.n = n_candidates;
  rb.zero_based = (flags & ANOT_PARSE_ZERO_BASED) != 0;
  rb.seen = seen;
  {
    const NounRegexes *nouns = noun_regexes (candidates);

    rb.line_ref = nouns != NULL ? nouns->line_ref : re_line_ref ();
    rb.prose_ref = nouns != NULL ? nouns->prose_ref : re_prose_ref ();
    rb.list_only = nouns != NULL ? nouns->list_only : re_list_only ();
  }

  region = answer_region (t);
  if (region != NULL)
    {
      rule = rank_region (&rb, region, candidates, FALSE);
      if (rule != NULL)
        {
          g_autofree char *name = g_strconcat ("answer/", rule, NULL);

          rule = g_intern_string (name);
        }
    }

  if (rule == NULL)
    {
      /* A bracket permutation reads as JSON lists of one element. */
      g_autoptr(GMatchInfo) info = NULL;
      guint n_brackets = 0;

      if (g_regex_match (re_bracket_ref (), t, 0, &info))
        do n_brackets++; while (g_match_info_next (info, NULL));
      if (n_brackets >= 2 && collect (&rb, re_bracket_ref (), t) > 0)
        rule = "brackets";
    }

  if (rule == NULL && ranking_from_json (&rb, t))
    rule = "json";

  if (rule == NULL)
    {
      /* The whole text: a bare list is fine, prose must not be a
       * refusal. */
      if (g_regex_match (rb.list_only, t, 0, NULL) && collect (&rb, re_integer (), t) > 0)
        rule = "list";
      else if (looks_like_refusal (t))
        return result_fail (self, ANOT_PARSE_FAILURE_REFUSAL,
                            "The model did not rank the candidates (it declined or asked for more information)");
      else
        rule = rank_region (&rb, t, candidates, TRUE);
    }

  self->n_parsed = self->indices->len;
  if (rule != NULL)
    self->rule = g_strdup (rule);

  if (self->indices->len == 0)
    {
      if (self->dropped->len > 0)
        return result_fail (self, ANOT_PARSE_FAILURE_OUT_OF_RANGE,
                            "Every candidate number in the reply is outside %s..%u",
                            rb.zero_based ? "0" : "1", rb.zero_based ? n_candidates - 1 : n_candidates);
      return result_fail (self, ANOT_PARSE_FAILURE_NOT_FOUND, "The reply names no candidate");
    }

  if (self->dropped->len > 0)
    self->message = g_strdup_printf ("%u out-of-range candidate number%s dropped",
                                     self->dropped->len, self->dropped->len == 1 ? "" : "s");

  if (flags & ANOT_PARSE_APPEND_MISSING)
    for (guint i = 0; i < n_candidates; i++)
      if (!seen[i])
        g_array_append_val (self->indices, i);

  return self;
}

/* ------------------------------------------------------------------------ *
 * JSON
 * ------------------------------------------------------------------------ */

REGEX (fence, "```[\\w+-]*[ \\t]*\\n?(.*?)```", G_REGEX_DOTALL)

static JsonNode *
py_to_json_node (const AnotPyValue *v)
{
  JsonNode *node;

  switch (anot_py_value_get_kind (v))
    {
    case ANOT_PY_NONE:
      return json_node_new (JSON_NODE_NULL);
    case ANOT_PY_BOOL:
      node = json_node_new (JSON_NODE_VALUE);
      json_node_set_boolean (node, anot_py_value_get_bool (v));
      return node;
    case ANOT_PY_INT:
      node = json_node_new (JSON_NODE_VALUE);
      json_node_set_int (node, anot_py_value_get_int (v));
      return node;
    case ANOT_PY_FLOAT:
      node = json_node_new (JSON_NODE_VALUE);
      json_node_set_double (node, anot_py_value_get_float (v));
      return node;
    case ANOT_PY_STR:
      node = json_node_new (JSON_NODE_VALUE);
      json_node_set_string (node, anot_py_value_get_string (v));
      return node;
    case ANOT_PY_LIST:
    case ANOT_PY_TUPLE:
      {
        JsonArray *a = json_array_new ();

        for (guint i = 0; i < anot_py_value_get_length (v); i++)
          json_array_add_element (a, py_to_json_node (anot_py_value_get_item (v, i)));
        node = json_node_new (JSON_NODE_ARRAY);
        json_node_take_array (node, a);
        return node;
      }
    case ANOT_PY_DICT:
      {
        JsonObject *o = json_object_new ();

        for (guint i = 0; i < anot_py_value_get_length (v); i++)
          {
            g_autofree char *key = anot_py_value_str (anot_py_value_dict_get_key (v, i));

            json_object_set_member (o, key, py_to_json_node (anot_py_value_get_item (v, i)));
          }
        node = json_node_new (JSON_NODE_OBJECT);
        json_node_take_object (node, o);
        return node;
      }
    }
  return json_node_new (JSON_NODE_NULL);
}

/* Parses @s as JSON, else as a Python literal; sets *rule. */
static JsonNode *
try_json (const char  *s,
          gsize        len,
          const char **rule)
{
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(AnotPyValue) py = NULL;

  if (len == 0)
    return NULL;
  if (json_parser_load_from_data (parser, s, (gssize) len, NULL) && json_parser_get_root (parser) != NULL)
    {
      *rule = "json";
      return json_node_copy (json_parser_get_root (parser));
    }
  py = anot_py_literal_parse (s, (gssize) len, NULL);
  if (py != NULL && (anot_py_value_get_kind (py) == ANOT_PY_DICT ||
                     anot_py_value_get_kind (py) == ANOT_PY_LIST))
    {
      *rule = "python-literal";
      return py_to_json_node (py);
    }
  return NULL;
}

/* The end of the balanced bracket group starting at @p, or NULL. */
static const char *
balanced_end (const char *p)
{
  char stack[64];
  guint depth = 0;
  char quote = 0;

  for (; *p != '\0'; p++)
    {
      if (quote != 0)
        {
          if (*p == '\\' && p[1] != '\0')
            p++;
          else if (*p == quote)
            quote = 0;
          continue;
        }
      switch (*p)
        {
        case '"':
        case '\'':
          /* An apostrophe in prose inside brackets is not a string. */
          if (*p == '\'' && depth > 0 && p[-1] != '\0' && g_ascii_isalpha (p[-1]))
            break;
          quote = *p;
          break;
        case '{':
        case '[':
          if (depth == sizeof stack)
            return NULL;
          stack[depth++] = *p == '{' ? '}' : ']';
          break;
        case '}':
        case ']':
          if (depth == 0 || stack[depth - 1] != *p)
            return NULL;
          if (--depth == 0)
            return p + 1;
          break;
        default:
          break;
        }
    }
  return NULL;
}

/**
 * anot_parse_json:
 * @text: (nullable): the model's text
 *
 * Finds a JSON value in @text: fenced code blocks first, then the whole
 * text, then each balanced `{...}` or `[...]` from left to right; each
 * candidate is read as JSON, then as a Python literal (single quotes,
 * `True`, `None`).  The first that parses is the result.
 *
 * Returns: (transfer full): the result
 */
AnotParseResult *
anot_parse_json (const char *text)
{
  AnotParseResult *self = result_new (ANOT_PARSE_KIND_JSON, text);
  g_autofree char *t = NULL;
  g_autoptr(GMatchInfo) info = NULL;
  const char *rule = NULL;
  gboolean saw_bracket = FALSE;

  t = strip_reasoning (self->text);
  if (t[0] == '\0')
    return result_fail (self, ANOT_PARSE_FAILURE_EMPTY, "The reply is empty");

  if (g_regex_match (re_fence (), t, 0, &info))
    {
      do
        {
          int start, end;

          g_match_info_fetch_pos (info, 1, &start, &end);
          if (start >= 0)
            {
              g_autofree char *block = g_strstrip (g_strndup (t + start, end - start));

              self->json = try_json (block, strlen (block), &rule);
              if (self->json != NULL)
                {
                  self->rule = g_strconcat ("fence/", rule, NULL);
                  return self;
                }
            }
        }
      while (g_match_info_next (info, NULL));
    }

  self->json = try_json (t, strlen (t), &rule);
  if (self->json != NULL)
    {
      self->rule = g_strdup (rule);
      return self;
    }

  for (const char *p = t; *p != '\0'; p++)
    {
      const char *end;

      if (*p != '{' && *p != '[')
        continue;
      saw_bracket = TRUE;
      end = balanced_end (p);
      if (end == NULL)
        continue;
      self->json = try_json (p, end - p, &rule);
      if (self->json != NULL)
        {
          self->rule = g_strconcat ("embedded/", rule, NULL);
          return self;
        }
    }

  if (saw_bracket)
    return result_fail (self, ANOT_PARSE_FAILURE_INVALID, "The reply holds brackets but no valid JSON");
  if (looks_like_refusal (t))
    return result_fail (self, ANOT_PARSE_FAILURE_REFUSAL, "The model declined or asked for more information");
  return result_fail (self, ANOT_PARSE_FAILURE_NOT_FOUND, "The reply holds no JSON");
}

/* ------------------------------------------------------------------------ *
 * Steps
 * ------------------------------------------------------------------------ */

REGEX (step_header, "^\\s*#{1,6}\\s*step\\s*(\\d+)\\b[^\\n]*$", G_REGEX_CASELESS | G_REGEX_MULTILINE)
REGEX (step_line, "^\\s*(?:step\\s*)?(\\d+)\\s*[.):]\\s*(\\S.*)$", G_REGEX_CASELESS)
REGEX (step_field, "^\\s*[*_]*step[*_]*\\s*:\\s*(\\S.*)$", G_REGEX_CASELESS)
REGEX (bullet_line, "^\\s*[-*•]\\s+(\\S.*)$", 0)

/**
 * anot_parse_steps:
 * @text: (nullable): the model's text
 * @max_steps: keep at most this many steps; 0 for all
 *
 * Reads the steps of a plan: `## Step n` sections (the `Step:` line of
 * each, else its body joined with spaces), else numbered lines (`1.`,
 * `2)`, `Step 3:`; the numbers are removed), else bullet lines.
 *
 * Returns: (transfer full): the result
 */
AnotParseResult *
anot_parse_steps (const char *text,
                  guint       max_steps)
{
  AnotParseResult *self = result_new (ANOT_PARSE_KIND_STEPS, text);
  g_autoptr(GStrvBuilder) builder = g_strv_builder_new ();
  g_autofree char *t = NULL;
  g_auto(GStrv) lines = NULL;
  guint n = 0;
  g_autoptr(GMatchInfo) info = NULL;

  t = strip_reasoning (self->text);
  if (t[0] == '\0')
    return result_fail (self, ANOT_PARSE_FAILURE_EMPTY, "The reply is empty");

  if (g_regex_match (re_step_header (), t, 0, &info))
    {
      GArray *starts = g_array_new (FALSE, FALSE, sizeof (int));

      do
        {
          int s, e;

          g_match_info_fetch_pos (info, 0, &s, &e);
          g_array_append_val (starts, e);
        }
      while (g_match_info_next (info, NULL));

      for (guint i = 0; i < starts->len && (max_steps == 0 || n < max_steps); i++)
        {
          int s = g_array_index (starts, int, i);
          const char *end = i + 1 < starts->len ? NULL : t + strlen (t);
          g_autofree char *body = NULL;
          g_auto(GStrv) body_lines = NULL;
          g_autoptr(GString) joined = g_string_new (NULL);
          char *step = NULL;

          if (end == NULL)
            {
              /* Up to the start of the next header line. */
              const char *next = t + g_array_index (starts, int, i + 1);

              while (next > t + s && next[-1] != '\n')
                next--;
              end = next;
            }
          body = g_strndup (t + s, end - (t + s));
          body_lines = g_strsplit (body, "\n", -1);
          for (guint j = 0; body_lines[j] != NULL; j++)
            {
              g_autoptr(GMatchInfo) f = NULL;

              if (g_regex_match (re_step_field (), body_lines[j], 0, &f))
                {
                  step = g_strstrip (g_match_info_fetch (f, 1));
                  break;
                }
              g_strstrip (body_lines[j]);
              if (body_lines[j][0] != '\0')
                {
                  if (joined->len > 0)
                    g_string_append_c (joined, ' ');
                  g_string_append (joined, body_lines[j]);
                }
            }
          if (step == NULL && joined->len > 0)
            step = g_strdup (joined->str);
          if (step != NULL)
            {
              g_strv_builder_add (builder, step);
              g_free (step);
              n++;
            }
        }
      g_array_unref (starts);
      if (n > 0)
        self->rule = g_strdup ("sections");
    }

  lines = g_strsplit (t, "\n", -1);
  if (n == 0)
    {
      for (guint i = 0; lines[i] != NULL && (max_steps == 0 || n < max_steps); i++)
        {
          g_autoptr(GMatchInfo) m = NULL;

          if (g_regex_match (re_step_line (), lines[i], 0, &m))
            {
              {
                g_autofree char *v = g_strstrip (g_match_info_fetch (m, 2));

                g_strv_builder_add (builder, v);
              }
              n++;
            }
        }
      if (n > 0)
        self->rule = g_strdup ("numbered");
    }
  if (n == 0)
    {
      for (guint i = 0; lines[i] != NULL && (max_steps == 0 || n < max_steps); i++)
        {
          g_autoptr(GMatchInfo) m = NULL;

          if (g_regex_match (re_bullet_line (), lines[i], 0, &m))
            {
              {
                g_autofree char *v = g_strstrip (g_match_info_fetch (m, 1));

                g_strv_builder_add (builder, v);
              }
              n++;
            }
        }
      if (n > 0)
        self->rule = g_strdup ("bullets");
    }

  self->steps = g_strv_builder_end (builder);
  if (n == 0)
    {
      if (looks_like_refusal (t))
        return result_fail (self, ANOT_PARSE_FAILURE_REFUSAL, "The model declined or asked for more information");
      return result_fail (self, ANOT_PARSE_FAILURE_NOT_FOUND, "The reply holds no numbered or bulleted steps");
    }
  return self;
}

/* ------------------------------------------------------------------------ *
 * The original's parsers, for comparison and for reproducing its numbers
 * ------------------------------------------------------------------------ */

/* Python's \w for str patterns: alphanumerics and the underscore. */
static gboolean
py_is_word (gunichar c)
{
  return c == '_' || g_unichar_isalnum (c);
}

/* Successive matches of Python's re.finditer(r"\b(\d+)\b", text) on a str:
 * maximal runs of Unicode decimal digits with no word character on
 * either side. */
typedef struct
{
  const char *p;
  gunichar prev;
} PyNumberScan;

static void
py_number_scan_init (PyNumberScan *scan,
                     const char   *text)
{
  scan->p = text != NULL && g_utf8_validate (text, -1, NULL) ? text : "";
  scan->prev = 0;
}

static gboolean
py_number_scan_next (PyNumberScan *scan,
                     guint64      *value,
                     gboolean     *overflow)
{
  while (*scan->p != '\0')
    {
      gunichar c = g_utf8_get_char (scan->p);

      if (g_unichar_isdigit (c) && !py_is_word (scan->prev))
        {
          const char *q = scan->p;
          gunichar next;

          *value = 0;
          *overflow = FALSE;
          while (*q != '\0' && g_unichar_isdigit (g_utf8_get_char (q)))
            {
              int d = g_unichar_digit_value (g_utf8_get_char (q));

              if (*value > (G_MAXUINT64 - 9) / 10)
                *overflow = TRUE;
              else
                *value = *value * 10 + (guint64) d;
              scan->prev = g_utf8_get_char (q);
              q = g_utf8_next_char (q);
            }
          scan->p = q;
          next = *q != '\0' ? g_utf8_get_char (q) : 0;
          if (!py_is_word (next))
            return TRUE;
          continue;
        }
      scan->prev = c;
      scan->p = g_utf8_next_char (scan->p);
    }
  return FALSE;
}

/**
 * anot_parse_indices_compat:
 * @text: (nullable): the text
 * @max_index: N, the highest valid number
 * @k: stop after this many numbers
 * @flags: %ANOT_PARSE_ZERO_BASED to read numbers 0..@max_index − 1 and add
 *   1 to each, as the ANoT traces of 2026-01-03..06 did; other flags are
 *   ignored
 * @n_indices: (out): return location for the number of values
 *
 * The original harness's `parse_indices(text, max_index, k)`: scans
 * `\b(\d+)\b` left to right (Unicode digits and word boundaries, as
 * Python's `re` does on str) and keeps each integer in 1..@max_index the
 * first time it appears, stopping after @k.  Any number counts, so
 * `top-5: [1, 2, 3, 4, 5]` gives 5, 1, 2, 3, 4.  Nothing qualifying gives
 * an empty array.
 *
 * Returns: (transfer full) (array length=n_indices): the 1-based numbers
 */
guint *
anot_parse_indices_compat (const char     *text,
                           guint           max_index,
                           guint           k,
                           AnotParseFlags  flags,
                           guint          *n_indices)
{
  gboolean zero_based = (flags & ANOT_PARSE_ZERO_BASED) != 0;
  GArray *out = g_array_new (FALSE, FALSE, sizeof (guint));
  PyNumberScan scan;
  guint64 value;
  gboolean overflow;

  g_return_val_if_fail (n_indices != NULL, NULL);

  py_number_scan_init (&scan, text);
  while (out->len < k && py_number_scan_next (&scan, &value, &overflow))
    {
      gboolean dup = FALSE;
      guint v;

      if (overflow)
        continue;
      if (zero_based)
        {
          if (value >= max_index)
            continue;
          value++;
        }
      else if (value < 1 || value > max_index)
        continue;
      v = (guint) value;
      for (guint i = 0; i < out->len; i++)
        if (g_array_index (out, guint, i) == v)
          dup = TRUE;
      if (!dup)
        g_array_append_val (out, v);
    }

  *n_indices = out->len;
  return (guint *) g_array_free (out, FALSE);
}

REGEX (c_bracket_number, "\\[(\\d+)\\]", 0)
REGEX (c_first_number, "\\d+", 0)
REGEX (c_numbered_line, "^\\s*\\d+[.)]\\s*\\[?(\\d+)\\]?", G_REGEX_MULTILINE)

/* Appends @value unless it is 0 or already there. */
static void
listwise_add (GArray  *out,
              guint64  value)
{
  guint v;

  if (value == 0 || value > G_MAXUINT)
    return;
  v = (guint) value;
  for (guint i = 0; i < out->len; i++)
    if (g_array_index (out, guint, i) == v)
      return;
  g_array_append_val (out, v);
}

/* Every match of @re (group @group) in @text. */
static void
listwise_collect (GArray     *out,
                  GRegex     *re,
                  int         group,
                  const char *text)
{
  g_autoptr(GMatchInfo) info = NULL;

  g_regex_match (re, text, 0, &info);
  while (g_match_info_matches (info))
    {
      g_autofree char *digits = g_match_info_fetch (info, group);

      listwise_add (out, g_ascii_strtoull (digits, NULL, 10));
      g_match_info_next (info, NULL);
    }
}

/* The first number of each piece of @text split on @separator. */
static void
listwise_split (GArray     *out,
                const char *text,
                const char *separator)
{
  g_auto(GStrv) pieces = g_strsplit (text, separator, -1);

  for (guint i = 0; pieces[i] != NULL; i++)
    {
      g_autoptr(GMatchInfo) info = NULL;

      if (g_regex_match (re_c_first_number (), pieces[i], 0, &info))
        {
          g_autofree char *digits = g_match_info_fetch (info, 0);

          listwise_add (out, g_ascii_strtoull (digits, NULL, 10));
        }
    }
}

/**
 * anot_parse_listwise_compat:
 * @text: (nullable): the text
 * @k: keep this many numbers
 * @n_indices: (out): return location for the number of values
 *
 * The original Listwise method's own parser: the first of these rules
 * that yields a number — every `[n]`; when the text has `>`, the first
 * number of each piece between them; when it has `,`, the same between
 * commas; numbered-list lines `1. [n]` or `1) n`; every number from 1 to
 * 50 — each list without zeros and repeats, cut to @k; nothing gives `1`.
 * The numbers are not checked against N: the original's harness then
 * dropped those above N ([func@Anot.parse_indices_compat]).  The
 * original's sixth rule, `[n]` found in the candidates' text, is left
 * out: the JSON records it searched hold no bracketed numbers.
 *
 * Returns: (transfer full) (array length=n_indices): the 1-based numbers
 */
guint *
anot_parse_listwise_compat (const char *text,
                            guint       k,
                            guint      *n_indices)
{
  GArray *out = g_array_new (FALSE, FALSE, sizeof (guint));
  const char *t = text != NULL ? text : "";

  g_return_val_if_fail (n_indices != NULL, NULL);

  listwise_collect (out, re_c_bracket_number (), 1, t);
  if (out->len == 0 && strchr (t, '>') != NULL)
    listwise_split (out, t, ">");
  if (out->len == 0 && strchr (t, ',') != NULL)
    listwise_split (out, t, ",");
  if (out->len == 0)
    listwise_collect (out, re_c_numbered_line (), 1, t);
  if (out->len == 0)
    {
      g_autoptr(GMatchInfo) info = NULL;

      g_regex_match (re_c_first_number (), t, 0, &info);
      while (g_match_info_matches (info))
        {
          g_autofree char *digits = g_match_info_fetch (info, 0);
          guint64 value = g_ascii_strtoull (digits, NULL, 10);

          if (value >= 1 && value <= 50)
            listwise_add (out, value);
          g_match_info_next (info, NULL);
        }
    }
  if (out->len == 0)
    listwise_add (out, 1);
  if (out->len > k)
    g_array_set_size (out, MAX (k, 1));

  *n_indices = out->len;
  return (guint *) g_array_free (out, FALSE);
}

REGEX (c_tag, "<(?:score)?>(\\d+)<", G_REGEX_CASELESS)
REGEX (c_angle, "<(\\d+)>", 0)
REGEX (c_frac, "(\\d+)/10", 0)
REGEX (c_label, "(?:score|output)[:\\s]*(\\d+)", G_REGEX_CASELESS)
REGEX (c_leading, "^(\\d+)\\s*[—\\-:.]", 0)
REGEX (c_final, "(?:final|overall)[^:]*:\\s*(\\d+)", G_REGEX_CASELESS)

static gboolean
compat_group (GRegex     *re,
              const char *text,
              gint64     *out)
{
  g_autoptr(GMatchInfo) info = NULL;
  g_autofree char *s = NULL;

  if (!g_regex_match (re, text, 0, &info))
    return FALSE;
  s = g_match_info_fetch (info, 1);
  *out = to_int64 (s);
  return TRUE;
}

/**
 * anot_parse_score_compat:
 * @text: (nullable): the text
 *
 * The original ANoT's `parse_score`: a 0–10 integer by the first rule that
 * applies to the stripped text — all digits and ≤ 10; `<score>N<` or
 * `<N<` (clamped); `<N>` if ≤ 10; `N/10` (clamped); `score`/`output`
 * followed by N (clamped); a leading N followed by `—`, `-`, `:` or `.` if
 * ≤ 10; `final`/`overall` ... `:` N if ≤ 10; the first `\b\d+\b` if ≤ 10,
 * else 0; otherwise 0.  So `-1` gives 1 and `Score: 12` gives 10.
 *
 * Returns: the score, 0..10
 */
int
anot_parse_score_compat (const char *text)
{
  g_autofree char *t = NULL;
  gint64 v;

  if (text == NULL)
    return 0;
  t = anot_py_strip (text, strlen (text));

  if (t[0] != '\0' && strspn (t, "0123456789") == strlen (t))
    {
      v = to_int64 (t);
      if (v <= 10)
        return (int) v;
    }
  if (compat_group (re_c_tag (), t, &v))
    return (int) CLAMP (v, 0, 10);
  if (compat_group (re_c_angle (), t, &v) && v <= 10)
    return (int) v;
  if (compat_group (re_c_frac (), t, &v))
    return (int) CLAMP (v, 0, 10);
  if (compat_group (re_c_label (), t, &v))
    return (int) CLAMP (v, 0, 10);
  if (compat_group (re_c_leading (), t, &v) && v <= 10)
    return (int) v;
  if (compat_group (re_c_final (), t, &v) && v <= 10)
    return (int) v;

  {
    PyNumberScan scan;
    guint64 first;
    gboolean overflow;

    py_number_scan_init (&scan, t);
    if (py_number_scan_next (&scan, &first, &overflow))
      return !overflow && first <= 10 ? (int) first : 0;
  }
  return 0;
}

REGEX (c_tri_answer, "(?:ANSWER|FINAL ANSWER):\\s*(-?[01])", G_REGEX_CASELESS)
REGEX (c_tri_standalone, "(?:^|[:\\s])(-1|0|1)(?:\\s|$|\\.)", 0)

/**
 * anot_parse_tri_state_compat:
 * @text: (nullable): the text
 *
 * The original's `parse_final_answer`: -1, 0 or 1 by the first rule that
 * applies — the stripped text is exactly `-1`, `0` or `1`; `Answer:` or
 * `Final answer:` followed by one of them; a standalone `-1`, `0` or `1`
 * after the start, a colon or a space and before a space, the end or a
 * period; the words `negative` (-1), `positive` (1), `neutral` (0),
 * `not recommend` (-1), `recommend` without `not` anywhere (1); else 0.
 *
 * Returns: -1, 0 or 1
 */
int
anot_parse_tri_state_compat (const char *text)
{
  g_autofree char *t = NULL;
  g_autofree char *lower = NULL;
  g_autoptr(GMatchInfo) info = NULL;

  if (text == NULL)
    return 0;
  t = anot_py_strip (text, strlen (text));
  if (g_str_equal (t, "-1"))
    return -1;
  if (g_str_equal (t, "0"))
    return 0;
  if (g_str_equal (t, "1"))
    return 1;

  if (g_regex_match (re_c_tri_answer (), t, 0, &info))
    {
      g_autofree char *s = g_match_info_fetch (info, 1);

      return s[0] == '-' ? -1 : (s[0] == '1' ? 1 : 0);
    }
  g_clear_pointer (&info, g_match_info_free);
  if (g_regex_match (re_c_tri_standalone (), t, 0, &info))
    {
      g_autofree char *s = g_match_info_fetch (info, 1);

      return s[0] == '-' ? -1 : (s[0] == '1' ? 1 : 0);
    }

  lower = g_utf8_strdown (t, -1);
  if (strstr (lower, "negative") != NULL)
    return -1;
  if (strstr (lower, "positive") != NULL)
    return 1;
  if (strstr (lower, "neutral") != NULL)
    return 0;
  if (strstr (lower, "not recommend") != NULL)
    return -1;
  if (strstr (lower, "recommend") != NULL && strstr (lower, "not") == NULL)
    return 1;
  return 0;
}
