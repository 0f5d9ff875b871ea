/* anot-formatter.c: how candidates are shown to a model
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include "anot-formatter.h"
#include "anot-formatter-private.h"
#include "anot-method-option.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "anot-enum-types.h"
#include "anot-error.h"
#include "anot-pyliteral-private.h"
#include "anot-review.h"

/**
 * AnotFormatter:
 *
 * Turns a list of candidate items into the text a model reads.  Every LLM
 * method formats its candidates with a formatter, so the options below
 * mean the same thing for all of them.
 *
 * With the default options the output of [method@Anot.Formatter.format]
 * is byte for byte the original framework's string context
 * (`format_ranking_query(items, "string")`):
 *
 * ```
 * Restaurants:
 *
 * {
 *   "business_id": "...",
 *   ...
 *   "reviews": [ ... ],
 *   "index": 1
 * }
 *
 * {
 *   ...
 *   "index": 2
 * }
 * ```
 *
 * Each item is its `restaurants.jsonl` record in file order without the
 * fields that leak the answer (`llm_score`, `llm_reasoning`), with the
 * attribute strings decoded the way the original loader decodes them
 * (`"True"` becomes `true`, `"u'free'"` becomes `"free"`,
 * `"{'hipster': False}"` becomes an object, `"'free'"` stays as it is), the
 * `categories` string split into a list, then `"reviews"`: every review of
 * the item in file order with its `user` object, to which the reviewer's
 * synthetic `name` and `friends` are added, then `"index"`.  The JSON is
 * written as Python's `json.dumps(indent=2)` writes it: `\uXXXX` escapes
 * for everything outside printable ASCII, `": "` after keys, floats as
 * Python prints them (`4.0`).
 *
 * Options (properties, or `format.*` context options through
 * [method@Anot.Formatter.apply_options]):
 *
 * - [property@Anot.Formatter:style]: JSON (default), the Python `repr()` of
 *   the dict context, or compact text;
 * - [property@Anot.Formatter:max-reviews]: keep the first M reviews of
 *   each item (the original's `max_reviews`);
 * - [property@Anot.Formatter:review-chars]: cut each review text to C
 *   characters, ending it with the truncation mark;
 * - [property@Anot.Formatter:item-chars]: a budget of characters per
 *   candidate: reviews are kept in order while the candidate's text fits,
 *   the first one that does not fit is cut to the room left (if at least
 *   50 characters of text fit), the rest are dropped.  The record without
 *   reviews is always shown whole, even when it alone exceeds the budget;
 * - [property@Anot.Formatter:truncation-mark]: appended to cut texts
 *   (default `...`);
 * - [property@Anot.Formatter:first-index]: the number of the first
 *   candidate (default 1);
 * - [property@Anot.Formatter:ensure-ascii]: `\uXXXX` escapes (default, as
 *   the original) or UTF-8;
 * - [property@Anot.Formatter:exclude]: fields to leave out, as paths:
 *   `hours`, `attributes.Ambience`, `reviews.user.friends`.
 */

/* A cut text shorter than this is not worth showing. */
#define MIN_CUT_CHARS 50

struct _AnotFormatter
{
  GObject parent_instance;

  AnotFormatStyle style;
  int max_reviews;
  int review_chars;
  int item_chars;
  char *truncation_mark;
  guint first_index;
  gboolean ensure_ascii;
  char **exclude;
};

G_DEFINE_FINAL_TYPE (AnotFormatter, anot_formatter, G_TYPE_OBJECT)

enum {
  PROP_0,
  PROP_STYLE,
  PROP_MAX_REVIEWS,
  PROP_REVIEW_CHARS,
  PROP_ITEM_CHARS,
  PROP_TRUNCATION_MARK,
  PROP_FIRST_INDEX,
  PROP_ENSURE_ASCII,
  PROP_EXCLUDE,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

/* Fields never shown: they were computed from the answers. */
static const char * const blocked_fields[] = { "llm_score", "llm_reasoning" };

static void
anot_formatter_finalize (GObject *object)
{
  AnotFormatter *self = ANOT_FORMATTER (object);

  g_free (self->truncation_mark);
  g_strfreev (self->exclude);

  G_OBJECT_CLASS (anot_formatter_parent_class)->finalize (object);
}

static void
anot_formatter_get_property (GObject    *object,
                             guint       prop_id,
                             GValue     *value,
                             GParamSpec *pspec)
{
  AnotFormatter *self = ANOT_FORMATTER (object);

  switch (prop_id)
    {
    case PROP_STYLE:
      g_value_set_enum (value, self->style);
      break;
    case PROP_MAX_REVIEWS:
      g_value_set_int (value, self->max_reviews);
      break;
    case PROP_REVIEW_CHARS:
      g_value_set_int (value, self->review_chars);
      break;
    case PROP_ITEM_CHARS:
      g_value_set_int (value, self->item_chars);
      break;
    case PROP_TRUNCATION_MARK:
      g_value_set_string (value, self->truncation_mark);
      break;
    case PROP_FIRST_INDEX:
      g_value_set_uint (value, self->first_index);
      break;
    case PROP_ENSURE_ASCII:
      g_value_set_boolean (value, self->ensure_ascii);
      break;
    case PROP_EXCLUDE:
      g_value_set_boxed (value, self->exclude);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
anot_formatter_set_property (GObject      *object,
                             guint         prop_id,
                             const GValue *value,
                             GParamSpec   *pspec)
{
  AnotFormatter *self = ANOT_FORMATTER (object);

  switch (prop_id)
    {
    case PROP_STYLE:
      anot_formatter_set_style (self, g_value_get_enum (value));
      break;
    case PROP_MAX_REVIEWS:
      anot_formatter_set_max_reviews (self, g_value_get_int (value));
      break;
    case PROP_REVIEW_CHARS:
      anot_formatter_set_review_chars (self, g_value_get_int (value));
      break;
    case PROP_ITEM_CHARS:
      anot_formatter_set_item_chars (self, g_value_get_int (value));
      break;
    case PROP_TRUNCATION_MARK:
      anot_formatter_set_truncation_mark (self, g_value_get_string (value));
      break;
    case PROP_FIRST_INDEX:
      anot_formatter_set_first_index (self, g_value_get_uint (value));
      break;
    case PROP_ENSURE_ASCII:
      anot_formatter_set_ensure_ascii (self, g_value_get_boolean (value));
      break;
    case PROP_EXCLUDE:
      anot_formatter_set_exclude (self, g_value_get_boxed (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
anot_formatter_class_init (AnotFormatterClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = anot_formatter_finalize;
  object_class->get_property = anot_formatter_get_property;
  object_class->set_property = anot_formatter_set_property;

  /**
   * AnotFormatter:style:
   *
   * How the candidates are written.
   */
  properties[PROP_STYLE] =
    g_param_spec_enum ("style", NULL, NULL,
                       ANOT_TYPE_FORMAT_STYLE, ANOT_FORMAT_STYLE_JSON,
                       G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);

  /**
   * AnotFormatter:max-reviews:
   *
   * The number of reviews kept per item, the first ones in file order;
   * -1 for all of them.
   */
  properties[PROP_MAX_REVIEWS] =
    g_param_spec_int ("max-reviews", NULL, NULL,
                      -1, G_MAXINT, -1,
                      G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);

  /**
   * AnotFormatter:review-chars:
   *
   * The number of characters kept of each review text (the truncation mark
   * is added after them); -1 for whole texts.
   */
  properties[PROP_REVIEW_CHARS] =
    g_param_spec_int ("review-chars", NULL, NULL,
                      -1, G_MAXINT, -1,
                      G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);

  /**
   * AnotFormatter:item-chars:
   *
   * The budget of characters of one candidate's formatted text; -1 for
   * none.  Reviews are dropped from the end (the last one kept may be cut)
   * until the candidate fits; the record itself is never cut.
   */
  properties[PROP_ITEM_CHARS] =
    g_param_spec_int ("item-chars", NULL, NULL,
                      -1, G_MAXINT, -1,
                      G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);

  /**
   * AnotFormatter:truncation-mark:
   *
   * The text appended to a cut review text.
   */
  properties[PROP_TRUNCATION_MARK] =
    g_param_spec_string ("truncation-mark", NULL, NULL,
                         "...",
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);

  /**
   * AnotFormatter:first-index:
   *
   * The number given to the first candidate (`"index"` and the keys of the
   * dict context); the original numbers from 1.
   */
  properties[PROP_FIRST_INDEX] =
    g_param_spec_uint ("first-index", NULL, NULL,
                       0, G_MAXUINT / 2, 1,
                       G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);

  /**
   * AnotFormatter:ensure-ascii:
   *
   * Whether JSON output escapes every character outside printable ASCII as
   * `\uXXXX`, as Python's `json.dumps` does by default.
   */
  properties[PROP_ENSURE_ASCII] =
    g_param_spec_boolean ("ensure-ascii", NULL, NULL,
                          TRUE,
                          G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);

  /**
   * AnotFormatter:exclude:
   *
   * Fields left out, as dotted paths from the item: `hours`,
   * `attributes.WiFi`, `reviews.useful`, `reviews.user.friends`.
   * `llm_score` and `llm_reasoning` are always left out.
   */
  properties[PROP_EXCLUDE] =
    g_param_spec_boxed ("exclude", NULL, NULL,
                        G_TYPE_STRV,
                        G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);

  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
anot_formatter_init (AnotFormatter *self)
{
  self->style = ANOT_FORMAT_STYLE_JSON;
  self->max_reviews = -1;
  self->review_chars = -1;
  self->item_chars = -1;
  self->truncation_mark = g_strdup ("...");
  self->first_index = 1;
  self->ensure_ascii = TRUE;
  self->exclude = g_new0 (char *, 1);
}

/**
 * anot_formatter_new:
 *
 * Creates a formatter with the original framework's settings: JSON, every
 * review, nothing cut, candidates numbered from 1.
 *
 * Returns: (transfer full): a new #AnotFormatter
 */
AnotFormatter *
anot_formatter_new (void)
{
  return g_object_new (ANOT_TYPE_FORMATTER, NULL);
}

GPtrArray *
anot_formatter_list_options (void)
{
  static const char * const styles[] = { "json", "python", "text", NULL };
  GPtrArray *options = g_ptr_array_new_with_free_func (g_object_unref);

  /* The formatter's own defaults; a method may start from others (its
   * README says so), which these options then replace. */
  g_ptr_array_add (options, anot_method_option_new_choice ("style", styles, 0,
                                                           "how items are written: json, python (repr of the dict context) or text"));
  g_ptr_array_add (options, anot_method_option_new_int ("max-reviews", -1, G_MAXINT, -1,
                                                        "keep the first M reviews of each item (-1: all)"));
  g_ptr_array_add (options, anot_method_option_new_int ("review-chars", -1, G_MAXINT, -1,
                                                        "cut each review to this many characters (-1: no cut)"));
  g_ptr_array_add (options, anot_method_option_new_int ("item-chars", -1, G_MAXINT, -1,
                                                        "cut each item's text to this many characters (-1: no cut)"));
  g_ptr_array_add (options, anot_method_option_new_string ("truncation-mark", "...",
                                                           "what ends a cut text"));
  g_ptr_array_add (options, anot_method_option_new_int ("first-index", 0, 1, 1,
                                                        "the number of the first item (0 or 1)"));
  g_ptr_array_add (options, anot_method_option_new_choice ("ensure-ascii", (const char * const[]) { "true", "false", NULL }, 0,
                                                           "escape non-ASCII characters as \\uXXXX"));
  g_ptr_array_add (options, anot_method_option_new_string ("exclude", NULL,
                                                           "comma-separated paths of fields to leave out"));
  return options;
}

static gboolean
parse_int_option (const char  *key,
                  const char  *text,
                  gint64       min,
                  gint64       max,
                  int         *out,
                  GError     **error)
{
  gint64 value;

  if (!g_ascii_string_to_signed (text, 10, min, max, &value, NULL))
    {
      g_set_error (error, ANOT_ERROR, ANOT_ERROR_INVALID_ARGUMENT,
                   "Option %s: expected an integer between %" G_GINT64_FORMAT
                   " and %" G_GINT64_FORMAT ", got “%s”", key, min, max, text);
      return FALSE;
    }
  *out = (int) value;
  return TRUE;
}

/**
 * anot_formatter_apply_options:
 * @self: a #AnotFormatter
 * @context: the method context whose options to read
 * @error: return location for a #GError
 *
 * Reads the `format.*` options of @context and sets the matching
 * properties; options that are not set leave the property as it is, so a
 * method can set its own defaults first.
 *
 * | option | property | values |
 * | --- | --- | --- |
 * | `format.style` | style | `json`, `python`, `text` |
 * | `format.max-reviews` | max-reviews | -1 or ≥ 0 |
 * | `format.review-chars` | review-chars | -1 or ≥ 0 |
 * | `format.item-chars` | item-chars | -1 or ≥ 0 |
 * | `format.truncation-mark` | truncation-mark | text |
 * | `format.first-index` | first-index | 0 or 1 |
 * | `format.ensure-ascii` | ensure-ascii | `true`, `false` |
 * | `format.exclude` | exclude | comma-separated paths |
 *
 * Returns: %TRUE on success; %FALSE with %ANOT_ERROR_INVALID_ARGUMENT if
 *   a value is invalid (the formatter is then partly updated)
 */
gboolean
anot_formatter_apply_options (AnotFormatter      *self,
                              AnotMethodContext  *context,
                              GError            **error)
{
  const char *text;
  int value;

  g_return_val_if_fail (ANOT_IS_FORMATTER (self), FALSE);
  g_return_val_if_fail (ANOT_IS_METHOD_CONTEXT (context), FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if ((text = anot_method_context_get_option (context, "format.style")) != NULL)
    {
      if (g_ascii_strcasecmp (text, "json") == 0)
        anot_formatter_set_style (self, ANOT_FORMAT_STYLE_JSON);
      else if (g_ascii_strcasecmp (text, "python") == 0)
        anot_formatter_set_style (self, ANOT_FORMAT_STYLE_PYTHON);
      else if (g_ascii_strcasecmp (text, "text") == 0)
        anot_formatter_set_style (self, ANOT_FORMAT_STYLE_TEXT);
      else
        {
          g_set_error (error, ANOT_ERROR, ANOT_ERROR_INVALID_ARGUMENT,
                       "Option format.style: expected json, python or text, got “%s”", text);
          return FALSE;
        }
    }

  if ((text = anot_method_context_get_option (context, "format.max-reviews")) != NULL)
    {
      if (!parse_int_option ("format.max-reviews", text, -1, G_MAXINT, &value, error))
        return FALSE;
      anot_formatter_set_max_reviews (self, value);
    }

  if ((text = anot_method_context_get_option (context, "format.review-chars")) != NULL)
    {
      if (!parse_int_option ("format.review-chars", text, -1, G_MAXINT, &value, error))
        return FALSE;
      anot_formatter_set_review_chars (self, value);
    }

  if ((text = anot_method_context_get_option (context, "format.item-chars")) != NULL)
    {
      if (!parse_int_option ("format.item-chars", text, -1, G_MAXINT, &value, error))
        return FALSE;
      anot_formatter_set_item_chars (self, value);
    }

  if ((text = anot_method_context_get_option (context, "format.truncation-mark")) != NULL)
    anot_formatter_set_truncation_mark (self, text);

  if ((text = anot_method_context_get_option (context, "format.first-index")) != NULL)
    {
      if (!parse_int_option ("format.first-index", text, 0, 1, &value, error))
        return FALSE;
      anot_formatter_set_first_index (self, (guint) value);
    }

  if ((text = anot_method_context_get_option (context, "format.ensure-ascii")) != NULL)
    {
      if (g_ascii_strcasecmp (text, "true") == 0)
        anot_formatter_set_ensure_ascii (self, TRUE);
      else if (g_ascii_strcasecmp (text, "false") == 0)
        anot_formatter_set_ensure_ascii (self, FALSE);
      else
        {
          g_set_error (error, ANOT_ERROR, ANOT_ERROR_INVALID_ARGUMENT,
                       "Option format.ensure-ascii: expected true or false, got “%s”", text);
          return FALSE;
        }
    }

  if ((text = anot_method_context_get_option (context, "format.exclude")) != NULL)
    {
      g_auto(GStrv) parts = g_strsplit (text, ",", -1);
      g_autoptr(GStrvBuilder) builder = g_strv_builder_new ();
      g_auto(GStrv) paths = NULL;

      for (guint i = 0; parts[i] != NULL; i++)
        {
          g_strstrip (parts[i]);
          if (parts[i][0] != '\0')
            g_strv_builder_add (builder, parts[i]);
        }
      paths = g_strv_builder_end (builder);
      anot_formatter_set_exclude (self, (const char * const *) paths);
    }

  return TRUE;
}

#define DEFINE_ACCESSORS(type, name, field, PROP, check)                  \
  type                                                                    \
  anot_formatter_get_##name (AnotFormatter *self)                         \
  {                                                                       \
    g_return_val_if_fail (ANOT_IS_FORMATTER (self), 0);                   \
    return self->field;                                                   \
  }                                                                       \
  void                                                                    \
  anot_formatter_set_##name (AnotFormatter *self,                         \
                             type           value)                        \
  {                                                                       \
    g_return_if_fail (ANOT_IS_FORMATTER (self));                          \
    g_return_if_fail (check);                                             \
    if (self->field == value)                                             \
      return;                                                             \
    self->field = value;                                                  \
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP]);         \
  }

/**
 * anot_formatter_get_style:
 * @self: a #AnotFormatter
 *
 * Gets [property@Anot.Formatter:style].
 *
 * Returns: the style
 */
/**
 * anot_formatter_set_style:
 * @self: a #AnotFormatter
 * @style: the style
 *
 * Sets [property@Anot.Formatter:style].
 */
DEFINE_ACCESSORS (AnotFormatStyle, style, style, PROP_STYLE,
                  value <= ANOT_FORMAT_STYLE_TEXT)

/**
 * anot_formatter_get_max_reviews:
 * @self: a #AnotFormatter
 *
 * Gets [property@Anot.Formatter:max-reviews].
 *
 * Returns: the number of reviews kept per item, or -1 for all
 */
/**
 * anot_formatter_set_max_reviews:
 * @self: a #AnotFormatter
 * @max_reviews: the number of reviews kept per item, or -1 for all
 *
 * Sets [property@Anot.Formatter:max-reviews].
 */
DEFINE_ACCESSORS (int, max_reviews, max_reviews, PROP_MAX_REVIEWS, value >= -1)

/**
 * anot_formatter_get_review_chars:
 * @self: a #AnotFormatter
 *
 * Gets [property@Anot.Formatter:review-chars].
 *
 * Returns: the characters kept of each review text, or -1
 */
/**
 * anot_formatter_set_review_chars:
 * @self: a #AnotFormatter
 * @review_chars: the characters kept of each review text, or -1
 *
 * Sets [property@Anot.Formatter:review-chars].
 */
DEFINE_ACCESSORS (int, review_chars, review_chars, PROP_REVIEW_CHARS, value >= -1)

/**
 * anot_formatter_get_item_chars:
 * @self: a #AnotFormatter
 *
 * Gets [property@Anot.Formatter:item-chars].
 *
 * Returns: the per-candidate character budget, or -1
 */
/**
 * anot_formatter_set_item_chars:
 * @self: a #AnotFormatter
 * @item_chars: the per-candidate character budget, or -1
 *
 * Sets [property@Anot.Formatter:item-chars].
 */
DEFINE_ACCESSORS (int, item_chars, item_chars, PROP_ITEM_CHARS, value >= -1)

/**
 * anot_formatter_get_first_index:
 * @self: a #AnotFormatter
 *
 * Gets [property@Anot.Formatter:first-index].
 *
 * Returns: the number of the first candidate
 */
/**
 * anot_formatter_set_first_index:
 * @self: a #AnotFormatter
 * @first_index: the number of the first candidate
 *
 * Sets [property@Anot.Formatter:first-index].
 */
DEFINE_ACCESSORS (guint, first_index, first_index, PROP_FIRST_INDEX, value <= G_MAXUINT / 2)

/**
 * anot_formatter_get_ensure_ascii:
 * @self: a #AnotFormatter
 *
 * Gets [property@Anot.Formatter:ensure-ascii].
 *
 * Returns: whether non-ASCII characters are escaped
 */
/**
 * anot_formatter_set_ensure_ascii:
 * @self: a #AnotFormatter
 * @ensure_ascii: whether to escape non-ASCII characters
 *
 * Sets [property@Anot.Formatter:ensure-ascii].
 */
DEFINE_ACCESSORS (gboolean, ensure_ascii, ensure_ascii, PROP_ENSURE_ASCII, TRUE)

#undef DEFINE_ACCESSORS

/**
 * anot_formatter_get_truncation_mark:
 * @self: a #AnotFormatter
 *
 * Gets [property@Anot.Formatter:truncation-mark].
 *
 * Returns: (transfer none): the mark
 */
const char *
anot_formatter_get_truncation_mark (AnotFormatter *self)
{
  g_return_val_if_fail (ANOT_IS_FORMATTER (self), NULL);

  return self->truncation_mark;
}

/**
 * anot_formatter_set_truncation_mark:
 * @self: a #AnotFormatter
 * @mark: (nullable): the text appended to cut texts; %NULL for none
 *
 * Sets [property@Anot.Formatter:truncation-mark].
 */
void
anot_formatter_set_truncation_mark (AnotFormatter *self,
                                    const char    *mark)
{
  g_return_if_fail (ANOT_IS_FORMATTER (self));

  if (mark == NULL)
    mark = "";
  if (g_strcmp0 (self->truncation_mark, mark) == 0)
    return;
  g_free (self->truncation_mark);
  self->truncation_mark = g_strdup (mark);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_TRUNCATION_MARK]);
}

/**
 * anot_formatter_get_exclude:
 * @self: a #AnotFormatter
 *
 * Gets [property@Anot.Formatter:exclude].
 *
 * Returns: (transfer none) (array zero-terminated=1): the excluded paths
 */
const char * const *
anot_formatter_get_exclude (AnotFormatter *self)
{
  g_return_val_if_fail (ANOT_IS_FORMATTER (self), NULL);

  return (const char * const *) self->exclude;
}

/**
 * anot_formatter_set_exclude:
 * @self: a #AnotFormatter
 * @exclude: (nullable) (array zero-terminated=1): dotted paths of the
 *   fields to leave out
 *
 * Sets [property@Anot.Formatter:exclude].
 */
void
anot_formatter_set_exclude (AnotFormatter      *self,
                            const char * const *exclude)
{
  g_return_if_fail (ANOT_IS_FORMATTER (self));

  g_strfreev (self->exclude);
  self->exclude = exclude != NULL ? g_strdupv ((char **) exclude) : g_new0 (char *, 1);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_EXCLUDE]);
}

/* ------------------------------------------------------------------------ *
 * json.dumps and repr of Python values
 * ------------------------------------------------------------------------ */

/* json.encoder's py_encode_basestring(_ascii). */
static void
append_json_string (GString    *out,
                    const char *str,
                    gsize       len,
                    gboolean    ensure_ascii)
{
  const char *p = str;
  const char *end = str + len;

  g_string_append_c (out, '"');
  while (p < end)
    {
      guchar b = (guchar) *p;
      gunichar c;

      if (b < 0x80)
        {
          p++;
          switch (b)
            {
            case '"': g_string_append (out, "\\\""); break;
            case '\\': g_string_append (out, "\\\\"); break;
            case '\n': g_string_append (out, "\\n"); break;
            case '\r': g_string_append (out, "\\r"); break;
            case '\t': g_string_append (out, "\\t"); break;
            case '\b': g_string_append (out, "\\b"); break;
            case '\f': g_string_append (out, "\\f"); break;
            default:
              if (b < 0x20 || (b == 0x7f && ensure_ascii))
                g_string_append_printf (out, "\\u%04x", b);
              else
                g_string_append_c (out, (char) b);
            }
          continue;
        }

      c = g_utf8_get_char_validated (p, end - p);
      if (c == (gunichar) -1 || c == (gunichar) -2)
        {
          /* Not UTF-8 (cannot come from a loaded dataset): keep the data
           * visible rather than fail the whole prompt. */
          g_string_append (out, "\\ufffd");
          p++;
          continue;
        }
      p = g_utf8_next_char (p);

      if (!ensure_ascii)
        g_string_append_unichar (out, c);
      else if (c < 0x10000)
        g_string_append_printf (out, "\\u%04x", c);
      else
        {
          gunichar v = c - 0x10000;

          g_string_append_printf (out, "\\u%04x\\u%04x",
                                  0xd800 | ((v >> 10) & 0x3ff),
                                  0xdc00 | (v & 0x3ff));
        }
    }
  g_string_append_c (out, '"');
}

static void
append_json_float (GString *out,
                   double   x)
{
  g_autoptr(AnotPyValue) v = NULL;
  g_autofree char *repr = NULL;

  if (isnan (x))
    {
      g_string_append (out, "NaN");
      return;
    }
  if (isinf (x))
    {
      g_string_append (out, x > 0 ? "Infinity" : "-Infinity");
      return;
    }
  v = anot_py_value_new_float (x);
  repr = anot_py_value_repr (v);
  g_string_append (out, repr);
}

static void
append_indent (GString *out,
               int      indent,
               int      depth)
{
  g_string_append_c (out, '\n');
  for (int i = 0; i < indent * depth; i++)
    g_string_append_c (out, ' ');
}

/* A dict key as json.dumps converts it. */
static void
append_json_key (GString           *out,
                 const AnotPyValue *key,
                 gboolean           ensure_ascii)
{
  switch (anot_py_value_get_kind (key))
    {
    case ANOT_PY_STR:
      {
        const char *s = anot_py_value_get_string (key);

        append_json_string (out, s, strlen (s), ensure_ascii);
        return;
      }
    case ANOT_PY_BOOL:
      g_string_append (out, anot_py_value_get_bool (key) ? "\"true\"" : "\"false\"");
      return;
    case ANOT_PY_NONE:
      g_string_append (out, "\"null\"");
      return;
    case ANOT_PY_INT:
      g_string_append_printf (out, "\"%" G_GINT64_FORMAT "\"", anot_py_value_get_int (key));
      return;
    case ANOT_PY_FLOAT:
      g_string_append_c (out, '"');
      append_json_float (out, anot_py_value_get_float (key));
      g_string_append_c (out, '"');
      return;
    default:
      {
        /* json.dumps raises TypeError here; tuples cannot come from JSON
         * or from the attribute strings of a dataset. */
        g_autofree char *repr = anot_py_value_repr (key);

        append_json_string (out, repr, strlen (repr), ensure_ascii);
      }
    }
}

typedef struct
{
  int indent;             /* < 0: no newlines (json.dumps(indent=None)) */
  gboolean ensure_ascii;
  /* The value whose text is given pre-rendered (the reviews of an item, so
   * a budget can be met without rendering every review again). */
  const AnotPyValue *hook;
  GPtrArray *hook_texts;  /* of char *, each at depth + 1 */
} DumpOptions;

static void
append_json (GString           *out,
             const AnotPyValue *v,
             int                depth,
             const DumpOptions *o)
{
  guint n;

  if (v == o->hook && o->hook_texts != NULL)
    {
      if (o->hook_texts->len == 0)
        {
          g_string_append (out, "[]");
          return;
        }
      g_string_append_c (out, '[');
      for (guint i = 0; i < o->hook_texts->len; i++)
        {
          if (i > 0)
            g_string_append_c (out, ',');
          if (o->indent >= 0)
            append_indent (out, o->indent, depth + 1);
          else if (i > 0)
            g_string_append_c (out, ' ');
          g_string_append (out, g_ptr_array_index (o->hook_texts, i));
        }
      if (o->indent >= 0)
        append_indent (out, o->indent, depth);
      g_string_append_c (out, ']');
      return;
    }

  switch (anot_py_value_get_kind (v))
    {
    case ANOT_PY_NONE:
      g_string_append (out, "null");
      break;
    case ANOT_PY_BOOL:
      g_string_append (out, anot_py_value_get_bool (v) ? "true" : "false");
      break;
    case ANOT_PY_INT:
      g_string_append_printf (out, "%" G_GINT64_FORMAT, anot_py_value_get_int (v));
      break;
    case ANOT_PY_FLOAT:
      append_json_float (out, anot_py_value_get_float (v));
      break;
    case ANOT_PY_STR:
      {
        const char *s = anot_py_value_get_string (v);

        append_json_string (out, s, strlen (s), o->ensure_ascii);
      }
      break;
    case ANOT_PY_LIST:
    case ANOT_PY_TUPLE:
      n = anot_py_value_get_length (v);
      if (n == 0)
        {
          g_string_append (out, "[]");
          break;
        }
      g_string_append_c (out, '[');
      for (guint i = 0; i < n; i++)
        {
          if (i > 0)
            g_string_append_c (out, ',');
          if (o->indent >= 0)
            append_indent (out, o->indent, depth + 1);
          else if (i > 0)
            g_string_append_c (out, ' ');
          append_json (out, anot_py_value_get_item (v, i), depth + 1, o);
        }
      if (o->indent >= 0)
        append_indent (out, o->indent, depth);
      g_string_append_c (out, ']');
      break;
    case ANOT_PY_DICT:
      n = anot_py_value_get_length (v);
      if (n == 0)
        {
          g_string_append (out, "{}");
          break;
        }
      g_string_append_c (out, '{');
      for (guint i = 0; i < n; i++)
        {
          if (i > 0)
            g_string_append_c (out, ',');
          if (o->indent >= 0)
            append_indent (out, o->indent, depth + 1);
          else if (i > 0)
            g_string_append_c (out, ' ');
          append_json_key (out, anot_py_value_dict_get_key (v, i), o->ensure_ascii);
          g_string_append (out, ": ");
          append_json (out, anot_py_value_get_item (v, i), depth + 1, o);
        }
      if (o->indent >= 0)
        append_indent (out, o->indent, depth);
      g_string_append_c (out, '}');
      break;
    }
}

/* repr() with a pre-rendered value, as append_json. */
static void
append_repr (GString           *out,
             const AnotPyValue *v,
             const DumpOptions *o)
{
  AnotPyType kind = anot_py_value_get_kind (v);
  guint n;

  if (v == o->hook && o->hook_texts != NULL)
    {
      g_string_append_c (out, '[');
      for (guint i = 0; i < o->hook_texts->len; i++)
        {
          if (i > 0)
            g_string_append (out, ", ");
          g_string_append (out, g_ptr_array_index (o->hook_texts, i));
        }
      g_string_append_c (out, ']');
      return;
    }

  if (kind == ANOT_PY_DICT)
    {
      n = anot_py_value_get_length (v);
      g_string_append_c (out, '{');
      for (guint i = 0; i < n; i++)
        {
          if (i > 0)
            g_string_append (out, ", ");
          append_repr (out, anot_py_value_dict_get_key (v, i), o);
          g_string_append (out, ": ");
          append_repr (out, anot_py_value_get_item (v, i), o);
        }
      g_string_append_c (out, '}');
    }
  else if (kind == ANOT_PY_LIST)
    {
      n = anot_py_value_get_length (v);
      g_string_append_c (out, '[');
      for (guint i = 0; i < n; i++)
        {
          if (i > 0)
            g_string_append (out, ", ");
          append_repr (out, anot_py_value_get_item (v, i), o);
        }
      g_string_append_c (out, ']');
    }
  else
    {
      g_autofree char *repr = anot_py_value_repr (v);

      g_string_append (out, repr);
    }
}

static AnotPyValue *
py_from_json (JsonNode *node)
{
  return anot_py_value_new_from_json (node);
}

/**
 * anot_json_dumps:
 * @node: a #JsonNode
 * @indent: spaces per level, or -1 for one line
 * @ensure_ascii: whether to escape every character outside printable ASCII
 *
 * Writes @node as Python's `json.dumps(value, indent=indent,
 * ensure_ascii=ensure_ascii)` writes the value `json.loads()` would give
 * for it: `", "` and `": "` separators, lower-case `\uXXXX` escapes (UTF-16
 * surrogate pairs above U+FFFF), floats as Python's `repr()` writes them
 * (`4.0`, `1e-05`), `NaN` and `Infinity`, integers without a decimal point.
 *
 * Returns: (transfer full): the text
 */
char *
anot_json_dumps (JsonNode *node,
                 int       indent,
                 gboolean  ensure_ascii)
{
  g_autoptr(AnotPyValue) v = NULL;
  GString *out = g_string_new (NULL);
  DumpOptions o = { indent, ensure_ascii, NULL, NULL };

  g_return_val_if_fail (node != NULL, NULL);

  v = py_from_json (node);
  append_json (out, v, 0, &o);
  return g_string_free (out, FALSE);
}

/**
 * anot_json_to_python_repr:
 * @node: a #JsonNode
 *
 * Writes the Python `repr()` of the value `json.loads()` would give for the
 * node, such as `{'key': 'value', 'flag': True, 'none': None}`, strings
 * quoted as Python quotes them.  This is what a model sees when a Python program
 * puts a dict into an f-string.
 *
 * Returns: (transfer full): the text
 */
char *
anot_json_to_python_repr (JsonNode *node)
{
  g_autoptr(AnotPyValue) v = NULL;

  g_return_val_if_fail (node != NULL, NULL);

  v = py_from_json (node);
  return anot_py_value_repr (v);
}

/* ------------------------------------------------------------------------ *
 * Building an item
 * ------------------------------------------------------------------------ */

static gboolean
is_blocked (const char *name)
{
  for (guint i = 0; i < G_N_ELEMENTS (blocked_fields); i++)
    if (g_str_equal (name, blocked_fields[i]))
      return TRUE;
  return FALSE;
}

/* Whether @prefix.@name (or @name without a prefix) is excluded. */
static gboolean
is_excluded (AnotFormatter *self,
             const char    *prefix,
             const char    *name)
{
  gsize plen = prefix != NULL ? strlen (prefix) : 0;

  for (guint i = 0; self->exclude[i] != NULL; i++)
    {
      const char *path = self->exclude[i];

      if (plen > 0)
        {
          if (strncmp (path, prefix, plen) != 0 || path[plen] != '.')
            continue;
          path += plen + 1;
        }
      if (g_str_equal (path, name))
        return TRUE;
    }
  return FALSE;
}

/* A copy of @dict without the keys excluded under @prefix; recurses into
 * nested dicts. */
static AnotPyValue *
filter_dict (AnotFormatter     *self,
             const AnotPyValue *dict,
             const char        *prefix)
{
  AnotPyValue *out = anot_py_value_new_dict ();
  guint n = anot_py_value_get_length (dict);

  for (guint i = 0; i < n; i++)
    {
      AnotPyValue *key = anot_py_value_dict_get_key (dict, i);
      AnotPyValue *value = anot_py_value_get_item (dict, i);
      const char *name;
      g_autofree char *path = NULL;

      if (anot_py_value_get_kind (key) != ANOT_PY_STR)
        {
          anot_py_value_dict_set (out, anot_py_value_ref (key), anot_py_value_ref (value));
          continue;
        }
      name = anot_py_value_get_string (key);
      if (is_excluded (self, prefix, name))
        continue;
      path = prefix != NULL ? g_strconcat (prefix, ".", name, NULL) : g_strdup (name);
      if (anot_py_value_get_kind (value) == ANOT_PY_DICT)
        anot_py_value_dict_set (out, anot_py_value_ref (key), filter_dict (self, value, path));
      else
        anot_py_value_dict_set (out, anot_py_value_ref (key), anot_py_value_ref (value));
    }
  return out;
}

static gboolean
has_exclusions_under (AnotFormatter *self,
                      const char    *prefix)
{
  gsize plen = strlen (prefix);

  for (guint i = 0; self->exclude[i] != NULL; i++)
    if (strncmp (self->exclude[i], prefix, plen) == 0 && self->exclude[i][plen] == '.')
      return TRUE;
  return FALSE;
}

/* The text of @text cut to @n characters plus the mark. */
static char *
cut_text (const char *text,
          gsize       n,
          const char *mark)
{
  const char *end = g_utf8_offset_to_pointer (text, n);
  GString *out = g_string_new_len (text, end - text);

  g_string_append (out, mark);
  return g_string_free (out, FALSE);
}

/* A review as the original loader shows it, with its text cut to @chars
 * characters (-1: whole). *cut is set if it was cut. */
static AnotPyValue *
build_review (AnotFormatter *self,
              AnotReview    *review,
              glong          chars,
              gboolean      *cut)
{
  g_autoptr(JsonObject) obj = anot_review_to_json (review);
  g_autoptr(JsonNode) node = json_node_new (JSON_NODE_OBJECT);
  g_autoptr(AnotPyValue) raw = NULL;
  AnotPyValue *out;
  const char *text = anot_review_get_text (review);

  *cut = FALSE;
  if (chars >= 0 && text != NULL && g_utf8_strlen (text, -1) > chars)
    {
      g_autofree char *short_text = cut_text (text, (gsize) chars, self->truncation_mark);

      json_object_set_string_member (obj, "text", short_text);
      *cut = TRUE;
    }

  json_node_set_object (node, obj);
  raw = py_from_json (node);
  if (has_exclusions_under (self, "reviews"))
    out = filter_dict (self, raw, "reviews");
  else
    out = anot_py_value_ref (raw);
  return out;
}

/* The item without reviews: record fields in file order, decoded as the
 * original loader decodes them, "reviews" as an empty list placeholder
 * (returned in *reviews_slot, borrowed) and "index". */
static AnotPyValue *
build_item_base (AnotFormatter  *self,
                 AnotItem       *item,
                 guint           number,
                 AnotPyValue   **reviews_slot)
{
  JsonObject *record = anot_item_get_record (item);
  AnotPyValue *dict = anot_py_value_new_dict ();
  AnotPyValue *reviews = anot_py_value_new_list ();
  JsonObjectIter iter;
  const char *name;
  JsonNode *member;

  json_object_iter_init_ordered (&iter, record);
  while (json_object_iter_next_ordered (&iter, &name, &member))
    {
      AnotPyValue *value;

      if (is_blocked (name) || is_excluded (self, NULL, name))
        continue;

      if (g_str_equal (name, "attributes") && JSON_NODE_HOLDS_OBJECT (member))
        {
          JsonObjectIter aiter;
          const char *aname;
          JsonNode *amember;

          value = anot_py_value_new_dict ();
          json_object_iter_init_ordered (&aiter, json_node_get_object (member));
          while (json_object_iter_next_ordered (&aiter, &aname, &amember))
            {
              g_autoptr(AnotPyValue) raw = py_from_json (amember);
              AnotPyValue *decoded;

              if (is_excluded (self, "attributes", aname))
                continue;
              decoded = anot_py_normalise_pass_a (raw);
              if (anot_py_value_get_kind (decoded) == ANOT_PY_DICT)
                {
                  g_autofree char *path = g_strconcat ("attributes.", aname, NULL);

                  if (has_exclusions_under (self, path))
                    {
                      AnotPyValue *filtered = filter_dict (self, decoded, path);

                      anot_py_value_unref (decoded);
                      decoded = filtered;
                    }
                }
              anot_py_value_dict_set (value, anot_py_value_new_string (aname, -1), decoded);
            }
        }
      else if (g_str_equal (name, "categories") && JSON_NODE_HOLDS_VALUE (member) &&
               json_node_get_value_type (member) == G_TYPE_STRING)
        {
          g_auto(GStrv) parts = g_strsplit (json_node_get_string (member), ",", -1);

          value = anot_py_value_new_list ();
          for (guint i = 0; parts[i] != NULL; i++)
            {
              g_autofree char *piece = anot_py_strip (parts[i], strlen (parts[i]));

              if (piece[0] != '\0')
                anot_py_value_append (value, anot_py_value_new_string (piece, -1));
            }
        }
      else if (g_str_equal (name, "reviews"))
        continue; /* replaced below, as the loader does */
      else
        {
          value = py_from_json (member);
          if (anot_py_value_get_kind (value) == ANOT_PY_DICT && has_exclusions_under (self, name))
            {
              AnotPyValue *filtered = filter_dict (self, value, name);

              anot_py_value_unref (value);
              value = filtered;
            }
        }

      anot_py_value_dict_set (dict, anot_py_value_new_string (name, -1), value);
    }

  if (!is_excluded (self, NULL, "reviews"))
    {
      anot_py_value_dict_set (dict, anot_py_value_new_string ("reviews", -1), reviews);
      *reviews_slot = reviews;
    }
  else
    {
      anot_py_value_unref (reviews);
      *reviews_slot = NULL;
    }
  if (!is_excluded (self, NULL, "index"))
    anot_py_value_dict_set (dict, anot_py_value_new_string ("index", -1),
                            anot_py_value_new_int (number));
  return dict;
}

/* ------------------------------------------------------------------------ *
 * Rendering
 * ------------------------------------------------------------------------ */

static void
append_text_value (GString           *out,
                   const AnotPyValue *v)
{
  g_autofree char *s = anot_py_value_str (v);

  g_string_append (out, s);
}

/* The text style of one review. */
static char *
render_review_text (const AnotPyValue *review)
{
  GString *out = g_string_new ("- ");
  AnotPyValue *stars = anot_py_value_dict_lookup_string (review, "stars");
  AnotPyValue *date = anot_py_value_dict_lookup_string (review, "date");
  AnotPyValue *user = anot_py_value_dict_lookup_string (review, "user");
  AnotPyValue *name = user != NULL ? anot_py_value_dict_lookup_string (user, "name") : NULL;
  AnotPyValue *text = anot_py_value_dict_lookup_string (review, "text");
  guint n = anot_py_value_get_length (review);

  if (stars != NULL)
    {
      g_string_append_c (out, '[');
      append_text_value (out, stars);
      g_string_append (out, " stars] ");
    }
  if (name != NULL)
    {
      append_text_value (out, name);
      if (date != NULL)
        g_string_append (out, ", ");
    }
  if (date != NULL)
    append_text_value (out, date);
  if (name != NULL || date != NULL)
    g_string_append (out, ": ");
  if (text != NULL)
    append_text_value (out, text);

  /* Every other field, so excluding is the only way to hide one. */
  for (guint i = 0; i < n; i++)
    {
      AnotPyValue *key = anot_py_value_dict_get_key (review, i);
      const char *k = anot_py_value_get_kind (key) == ANOT_PY_STR ? anot_py_value_get_string (key) : "";

      if (g_str_equal (k, "stars") || g_str_equal (k, "date") || g_str_equal (k, "text") ||
          g_str_equal (k, "review_id") || g_str_equal (k, "business_id") || g_str_equal (k, "user_id"))
        continue;
      if (g_str_equal (k, "user"))
        {
          AnotPyValue *u = anot_py_value_get_item (review, i);
          guint m = anot_py_value_get_length (u);

          for (guint j = 0; j < m; j++)
            {
              AnotPyValue *uk = anot_py_value_dict_get_key (u, j);

              if (anot_py_value_get_kind (uk) == ANOT_PY_STR &&
                  g_str_equal (anot_py_value_get_string (uk), "name"))
                continue;
              g_string_append (out, "\n    user ");
              append_text_value (out, uk);
              g_string_append (out, ": ");
              append_text_value (out, anot_py_value_get_item (u, j));
            }
          continue;
        }
      g_string_append (out, "\n    ");
      append_text_value (out, key);
      g_string_append (out, ": ");
      append_text_value (out, anot_py_value_get_item (review, i));
    }
  return g_string_free (out, FALSE);
}

static void
render_item_text (GString           *out,
                  const AnotPyValue *item,
                  const AnotPyValue *reviews,
                  GPtrArray         *review_texts,
                  guint              n_reviews_total)
{
  AnotPyValue *index = anot_py_value_dict_lookup_string (item, "index");
  AnotPyValue *name = anot_py_value_dict_lookup_string (item, "name");
  guint n = anot_py_value_get_length (item);

  g_string_append (out, "Restaurant");
  if (index != NULL)
    {
      g_string_append_c (out, ' ');
      append_text_value (out, index);
    }
  g_string_append (out, ":");
  if (name != NULL)
    {
      g_string_append_c (out, ' ');
      append_text_value (out, name);
    }
  g_string_append_c (out, '\n');

  for (guint i = 0; i < n; i++)
    {
      AnotPyValue *key = anot_py_value_dict_get_key (item, i);
      AnotPyValue *value = anot_py_value_get_item (item, i);
      const char *k = anot_py_value_get_kind (key) == ANOT_PY_STR ? anot_py_value_get_string (key) : "";

      if (g_str_equal (k, "name") || g_str_equal (k, "index"))
        continue;

      if (value == reviews)
        {
          g_string_append_printf (out, "reviews (%u of %u):\n",
                                  review_texts != NULL ? review_texts->len : 0, n_reviews_total);
          for (guint j = 0; review_texts != NULL && j < review_texts->len; j++)
            {
              g_string_append (out, "  ");
              g_string_append (out, g_ptr_array_index (review_texts, j));
              g_string_append_c (out, '\n');
            }
          continue;
        }

      append_text_value (out, key);
      g_string_append (out, ": ");
      if (anot_py_value_get_kind (value) == ANOT_PY_LIST)
        {
          guint m = anot_py_value_get_length (value);

          for (guint j = 0; j < m; j++)
            {
              if (j > 0)
                g_string_append (out, ", ");
              append_text_value (out, anot_py_value_get_item (value, j));
            }
        }
      else if (anot_py_value_get_kind (value) == ANOT_PY_DICT)
        {
          guint m = anot_py_value_get_length (value);

          for (guint j = 0; j < m; j++)
            {
              if (j > 0)
                g_string_append (out, "; ");
              append_text_value (out, anot_py_value_dict_get_key (value, j));
              g_string_append_c (out, '=');
              append_text_value (out, anot_py_value_get_item (value, j));
            }
        }
      else
        append_text_value (out, value);
      g_string_append_c (out, '\n');
    }
}

/* One review in the current style, at the depth of a review in an item. */
static char *
render_review (AnotFormatter     *self,
               const AnotPyValue *review)
{
  GString *out;
  DumpOptions o = { 2, self->ensure_ascii, NULL, NULL };

  switch (self->style)
    {
    case ANOT_FORMAT_STYLE_JSON:
      out = g_string_new (NULL);
      append_json (out, review, 2, &o);
      return g_string_free (out, FALSE);
    case ANOT_FORMAT_STYLE_PYTHON:
      return anot_py_value_repr (review);
    case ANOT_FORMAT_STYLE_TEXT:
    default:
      return render_review_text (review);
    }
}

static char *
render_item (AnotFormatter     *self,
             const AnotPyValue *item,
             const AnotPyValue *reviews,
             GPtrArray         *review_texts,
             guint              n_reviews_total)
{
  GString *out = g_string_new (NULL);
  DumpOptions o = { 2, self->ensure_ascii, reviews, review_texts };

  switch (self->style)
    {
    case ANOT_FORMAT_STYLE_JSON:
      append_json (out, item, 0, &o);
      break;
    case ANOT_FORMAT_STYLE_PYTHON:
      append_repr (out, item, &o);
      break;
    case ANOT_FORMAT_STYLE_TEXT:
      render_item_text (out, item, reviews, review_texts, n_reviews_total);
      break;
    }
  return g_string_free (out, FALSE);
}

static glong
text_chars (const char *text)
{
  return g_utf8_strlen (text, -1);
}

typedef struct
{
  guint reviews_total;
  guint reviews_included;
  guint reviews_cut;
  gboolean over_budget;
} ItemStats;

/* Renders @item; fills @stats; returns the text and, in *out_value, the
 * item with the reviews that were kept. */
static char *
format_item_full (AnotFormatter  *self,
                  AnotItem       *item,
                  guint           number,
                  ItemStats      *stats,
                  AnotPyValue   **out_value)
{
  g_autoptr(AnotPyValue) base = NULL;
  g_autoptr(GPtrArray) reviews = g_ptr_array_new_with_free_func ((GDestroyNotify) anot_py_value_unref);
  g_autoptr(GPtrArray) texts = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GArray) cut_flags = g_array_new (FALSE, FALSE, sizeof (gboolean));
  AnotPyValue *slot = NULL;
  guint n_reviews = anot_item_get_n_reviews (item);
  guint n_shown;
  char *text;

  memset (stats, 0, sizeof *stats);
  base = build_item_base (self, item, number, &slot);
  stats->reviews_total = n_reviews;

  n_shown = slot == NULL ? 0 : n_reviews;
  if (self->max_reviews >= 0 && (guint) self->max_reviews < n_shown)
    n_shown = (guint) self->max_reviews;

  for (guint i = 0; i < n_shown; i++)
    {
      gboolean cut;
      AnotPyValue *r = build_review (self, anot_item_get_review (item, i), self->review_chars, &cut);

      g_array_append_val (cut_flags, cut);
      g_ptr_array_add (reviews, r);
      g_ptr_array_add (texts, render_review (self, r));
    }

  text = render_item (self, base, slot, texts, n_reviews);

  if (self->item_chars >= 0 && text_chars (text) > self->item_chars)
    {
      /* Binary search for the most whole reviews that fit. */
      guint lo = 0, hi = texts->len;
      g_autoptr(GPtrArray) prefix = g_ptr_array_new ();

      while (lo < hi)
        {
          guint mid = (lo + hi + 1) / 2;
          g_autofree char *t = NULL;

          g_ptr_array_set_size (prefix, 0);
          for (guint i = 0; i < mid; i++)
            g_ptr_array_add (prefix, g_ptr_array_index (texts, i));
          t = render_item (self, base, slot, prefix, n_reviews);
          if (text_chars (t) <= self->item_chars)
            lo = mid;
          else
            hi = mid - 1;
        }

      g_free (text);
      g_ptr_array_set_size (prefix, 0);
      for (guint i = 0; i < lo; i++)
        g_ptr_array_add (prefix, g_ptr_array_index (texts, i));
      text = render_item (self, base, slot, prefix, n_reviews);

      if (text_chars (text) > self->item_chars)
        stats->over_budget = TRUE;
      else if (lo < texts->len)
        {
          /* Cut the next review's text to the room left. */
          AnotReview *review = anot_item_get_review (item, lo);
          const char *rtext = anot_review_get_text (review);
          glong full = rtext != NULL ? text_chars (rtext) : 0;
          glong room = self->item_chars - text_chars (text);
          glong keep = MIN (full, room);

          for (guint attempt = 0; attempt < 8 && keep >= MIN_CUT_CHARS; attempt++)
            {
              gboolean cut;
              g_autoptr(AnotPyValue) r = build_review (self, review, keep, &cut);
              char *rt = render_review (self, r);
              g_autofree char *t = NULL;
              glong over;

              g_ptr_array_add (prefix, rt);
              t = render_item (self, base, slot, prefix, n_reviews);
              over = text_chars (t) - self->item_chars;
              g_ptr_array_remove_index (prefix, prefix->len - 1);

              if (over <= 0)
                {
                  /* Keep the cut version in place of the whole one. */
                  g_ptr_array_set_size (texts, lo);
                  g_ptr_array_set_size (reviews, lo);
                  g_array_set_size (cut_flags, lo);
                  g_ptr_array_add (texts, rt);
                  g_ptr_array_add (reviews, g_steal_pointer (&r));
                  g_array_append_val (cut_flags, cut);
                  g_free (text);
                  text = g_steal_pointer (&t);
                  lo++;
                  break;
                }
              g_free (rt);
              keep -= over;
            }
        }

      if (texts->len > lo)
        {
          g_ptr_array_set_size (texts, lo);
          g_ptr_array_set_size (reviews, lo);
          g_array_set_size (cut_flags, lo);
        }
    }

  stats->reviews_included = reviews->len;
  for (guint i = 0; i < cut_flags->len; i++)
    if (g_array_index (cut_flags, gboolean, i))
      stats->reviews_cut++;

  if (out_value != NULL)
    {
      if (slot != NULL)
        {
          /* The kept reviews go into the (still private) placeholder. */
          for (guint i = 0; i < reviews->len; i++)
            anot_py_value_append (slot, anot_py_value_ref (g_ptr_array_index (reviews, i)));
        }
      *out_value = g_steal_pointer (&base);
    }

  return text;
}

/**
 * anot_formatter_format_item:
 * @self: a #AnotFormatter
 * @item: the candidate
 * @number: the candidate's number (its `"index"`)
 *
 * Formats one candidate as [method@Anot.Formatter.format] does, without
 * the header and the blank line after it.
 *
 * Returns: (transfer full): the text
 */
char *
anot_formatter_format_item (AnotFormatter *self,
                            AnotItem      *item,
                            guint          number)
{
  ItemStats stats;

  g_return_val_if_fail (ANOT_IS_FORMATTER (self), NULL);
  g_return_val_if_fail (ANOT_IS_ITEM (item), NULL);

  return format_item_full (self, item, number, &stats, NULL);
}

/**
 * anot_formatter_build_item:
 * @self: a #AnotFormatter
 * @item: the candidate
 * @number: the candidate's number (its `"index"`)
 *
 * Builds the candidate as the model sees it, as JSON: the record with its
 * attributes decoded, categories as a list, the reviews kept by the
 * options (and cut as they are cut in the text) and `"index"`.
 *
 * Returns: (transfer full): a JSON object node
 */
JsonNode *
anot_formatter_build_item (AnotFormatter *self,
                           AnotItem      *item,
                           guint          number)
{
  g_autoptr(AnotPyValue) value = NULL;
  g_autofree char *text = NULL;
  ItemStats stats;

  g_return_val_if_fail (ANOT_IS_FORMATTER (self), NULL);
  g_return_val_if_fail (ANOT_IS_ITEM (item), NULL);

  text = format_item_full (self, item, number, &stats, &value);
  return anot_py_value_to_json (value);
}

/**
 * anot_formatter_build_context:
 * @self: a #AnotFormatter
 * @candidates: (element-type Anot.Item): the candidates, in the order the
 *   model sees them
 *
 * Builds the original's dict context, `{"items": {"1": {...}, "2": {...}}}`:
 * each candidate as [method@Anot.Formatter.build_item] builds it, keyed by
 * its number as a string.
 *
 * Returns: (transfer full): a JSON object node
 */
JsonNode *
anot_formatter_build_context (AnotFormatter *self,
                              GPtrArray     *candidates)
{
  JsonObject *items;
  JsonObject *root;
  JsonNode *node;

  g_return_val_if_fail (ANOT_IS_FORMATTER (self), NULL);
  g_return_val_if_fail (candidates != NULL, NULL);

  items = json_object_new ();
  for (guint i = 0; i < candidates->len; i++)
    {
      guint number = self->first_index + i;
      g_autofree char *key = g_strdup_printf ("%u", number);

      json_object_set_member (items, key,
                              anot_formatter_build_item (self, g_ptr_array_index (candidates, i), number));
    }
  root = json_object_new ();
  json_object_set_object_member (root, "items", items);
  node = json_node_new (JSON_NODE_OBJECT);
  json_node_take_object (node, root);
  return node;
}

/**
 * anot_formatter_format:
 * @self: a #AnotFormatter
 * @candidates: (element-type Anot.Item): the candidates, in the order the
 *   model sees them
 * @stats: (out) (optional) (transfer full): return location for the
 *   coverage of the text, a JSON object: `restaurants`, `reviews_total`,
 *   `reviews_included`, `reviews_dropped`, `max_reviews_per_item` (null
 *   when unlimited), `reviews_cut`, `items_over_budget`, `chars`
 *
 * Formats @candidates, numbered from
 * [property@Anot.Formatter:first-index] in the order given.
 *
 * - JSON style: `"Restaurants:\n\n"`, then each candidate followed by
 *   `"\n\n"`, except the last, followed by `"\n"` (the original's
 *   `"\n".join(["Restaurants:\n", item, "", item, ""])`).
 * - Python style: the `repr()` of `{'items': {'1': {...}, ...}}`.
 * - Text style: `"Restaurants:\n\n"`, then each candidate's lines and a
 *   blank line.
 *
 * Returns: (transfer full): the text
 */
char *
anot_formatter_format (AnotFormatter  *self,
                       GPtrArray      *candidates,
                       JsonNode      **stats)
{
  GString *out;
  guint total = 0, included = 0, cut = 0, over = 0;

  g_return_val_if_fail (ANOT_IS_FORMATTER (self), NULL);
  g_return_val_if_fail (candidates != NULL, NULL);

  if (self->style == ANOT_FORMAT_STYLE_PYTHON)
    out = g_string_new ("{'items': {");
  else
    out = g_string_new ("Restaurants:\n\n");

  for (guint i = 0; i < candidates->len; i++)
    {
      guint number = self->first_index + i;
      ItemStats s;
      g_autofree char *text = format_item_full (self, g_ptr_array_index (candidates, i), number, &s, NULL);

      total += s.reviews_total;
      included += s.reviews_included;
      cut += s.reviews_cut;
      over += s.over_budget ? 1 : 0;

      switch (self->style)
        {
        case ANOT_FORMAT_STYLE_JSON:
          g_string_append (out, text);
          g_string_append (out, i + 1 < candidates->len ? "\n\n" : "\n");
          break;
        case ANOT_FORMAT_STYLE_PYTHON:
          g_string_append_printf (out, "%s'%u': %s", i > 0 ? ", " : "", number, text);
          break;
        case ANOT_FORMAT_STYLE_TEXT:
          g_string_append (out, text);
          g_string_append_c (out, '\n');
          break;
        }
    }

  if (self->style == ANOT_FORMAT_STYLE_PYTHON)
    g_string_append (out, "}}");

  if (stats != NULL)
    {
      JsonObject *o = json_object_new ();

      json_object_set_int_member (o, "restaurants", candidates->len);
      json_object_set_int_member (o, "reviews_included", included);
      json_object_set_int_member (o, "reviews_total", total);
      json_object_set_int_member (o, "reviews_dropped", total - included);
      if (self->max_reviews >= 0)
        json_object_set_int_member (o, "max_reviews_per_item", self->max_reviews);
      else
        json_object_set_null_member (o, "max_reviews_per_item");
      json_object_set_int_member (o, "reviews_cut", cut);
      json_object_set_int_member (o, "items_over_budget", over);
      json_object_set_int_member (o, "chars", g_utf8_strlen (out->str, out->len));
      *stats = json_node_new (JSON_NODE_OBJECT);
      json_node_take_object (*stats, o);
    }

  return g_string_free (out, FALSE);
}
