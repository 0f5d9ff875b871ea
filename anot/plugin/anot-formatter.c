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
#include "anot-dataset-private.h"
#include "anot-json-private.h"
#include "anot-pyliteral-private.h"
#include "anot-text-private.h"
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
  AnotDomain *domain;
  char *item_label;            /* "Restaurant", the text style's "Restaurant 3:" */
  char *items_label;           /* "Restaurants", its heading */
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
  PROP_DOMAIN,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

static void
anot_formatter_finalize (GObject *object)
{
  AnotFormatter *self = ANOT_FORMATTER (object);

  g_free (self->truncation_mark);
  g_strfreev (self->exclude);
  g_clear_object (&self->domain);
  g_free (self->item_label);
  g_free (self->items_label);

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
    case PROP_DOMAIN:
      g_value_set_object (value, self->domain);
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
    case PROP_DOMAIN:
      anot_formatter_set_domain (self, g_value_get_object (value));
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
  /**
   * AnotFormatter:domain:
   *
   * What the items are: the text style labels each item with the domain's
   * noun ("Hotel 3: …") under a heading of its plural.  %NULL (the default)
   * is restaurants, the original wording.
   */
  properties[PROP_DOMAIN] =
    g_param_spec_object ("domain", NULL, NULL, ANOT_TYPE_DOMAIN,
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
  self->item_label = g_strdup ("Restaurant");
  self->items_label = g_strdup ("Restaurants");
}

/**
 * anot_formatter_set_domain:
 * @self: an #AnotFormatter
 * @domain: (nullable): the benchmark's domain, or %NULL for restaurants
 *
 * Sets #AnotFormatter:domain.
 */
void
anot_formatter_set_domain (AnotFormatter *self,
                           AnotDomain    *domain)
{
  g_return_if_fail (ANOT_IS_FORMATTER (self));
  g_return_if_fail (domain == NULL || ANOT_IS_DOMAIN (domain));

  if (!g_set_object (&self->domain, domain))
    return;
  g_free (self->item_label);
  g_free (self->items_label);
  self->item_label = g_strdup (domain != NULL ? anot_domain_get_item_title (domain) : "Restaurant");
  self->items_label = g_strdup (domain != NULL ? anot_domain_get_items_title (domain) : "Restaurants");
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_DOMAIN]);
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

  anot_formatter_set_domain (self, anot_method_context_get_domain (context));

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
 * Writing values as json.dumps and repr() write them
 *
 * Everything on the prompt path is written straight to text from what the
 * dataset holds (the item's record, the review's fields): no value is
 * copied into another representation first.  The only values built are the
 * decoded attribute strings, which must be parsed as Python literals.
 * ------------------------------------------------------------------------ */

/* The formatter writes valid UTF-8 only (the dataset's strings are
 * validated when loaded), which anot_utf8_count_chars() counts. */
#define count_chars(text, len) ((glong) anot_utf8_count_chars ((text), (len)))

#define BYTES(b) (G_GUINT64_CONSTANT (0x0101010101010101) * (b))
#define HIGH_BITS BYTES (0x80)

/* Whether one of the eight bytes of @w is below @n (n <= 128), or equal to
 * @c: the usual bit tricks, exact for these arguments. */
#define HAS_LESS(w, n) (((w) - BYTES (n)) & ~(w) & HIGH_BITS)
#define HAS_BYTE(w, c) HAS_LESS ((w) ^ BYTES (c), 1)

#define append_space anot_string_append_space
#define append_bytes anot_string_append_bytes

/* "\uXXXX" of a UTF-16 unit. */
static inline void
append_u_escape (GString *out,
                 guint    unit)
{
  static const char hex[] = "0123456789abcdef";
  char *at = append_space (out, 6);

  at[0] = '\\';
  at[1] = 'u';
  at[2] = hex[(unit >> 12) & 0xf];
  at[3] = hex[(unit >> 8) & 0xf];
  at[4] = hex[(unit >> 4) & 0xf];
  at[5] = hex[unit & 0xf];
}

/* json.encoder's py_encode_basestring(_ascii). */
static void
append_json_string (GString    *out,
                    const char *str,
                    gsize       len,
                    gboolean    ensure_ascii)
{
  const char *p = str;
  const char *end = str + len;

  *append_space (out, 1) = '"';
  while (p < end)
    {
      const char *run = p;
      guchar b;
      gunichar c;

      /* Most of a review is printable ASCII: find the end of the run
       * sixteen then eight bytes at a time, then copy it at once. */
      p = anot_json_skip_plain (p, end, TRUE);
      while (p + 8 <= end)
        {
          guint64 w;

          memcpy (&w, p, 8);
          if ((HAS_LESS (w, 0x20) | HAS_BYTE (w, '"') | HAS_BYTE (w, '\\') |
               HAS_BYTE (w, 0x7f) | (w & HIGH_BITS)) != 0)
            break;
          p += 8;
        }
      while (p < end && (guchar) *p >= 0x20 && (guchar) *p < 0x7f && *p != '"' && *p != '\\')
        p++;
      if (p > run)
        append_bytes (out, run, p - run);
      if (p >= end)
        break;

      b = (guchar) *p;
      if (b < 0x80)
        {
          char *at;

          p++;
          switch (b)
            {
            case '"': case '\\': at = append_space (out, 2); at[0] = '\\'; at[1] = (char) b; break;
            case '\n': at = append_space (out, 2); at[0] = '\\'; at[1] = 'n'; break;
            case '\r': at = append_space (out, 2); at[0] = '\\'; at[1] = 'r'; break;
            case '\t': at = append_space (out, 2); at[0] = '\\'; at[1] = 't'; break;
            case '\b': at = append_space (out, 2); at[0] = '\\'; at[1] = 'b'; break;
            case '\f': at = append_space (out, 2); at[0] = '\\'; at[1] = 'f'; break;
            default:
              if (b < 0x20 || (b == 0x7f && ensure_ascii))
                append_u_escape (out, b);
              else
                *append_space (out, 1) = (char) b;
            }
          continue;
        }

      c = g_utf8_get_char_validated (p, end - p);
      if (c == (gunichar) -1 || c == (gunichar) -2)
        {
          /* Not UTF-8 (cannot come from a loaded dataset): keep the data
           * visible rather than fail the whole prompt. */
          append_u_escape (out, 0xfffd);
          p++;
          continue;
        }

      if (!ensure_ascii)
        {
          const char *next = g_utf8_next_char (p);

          append_bytes (out, p, next - p);
          p = next;
        }
      else
        {
          p = g_utf8_next_char (p);
          if (c < 0x10000)
            append_u_escape (out, c);
          else
            {
              gunichar v = c - 0x10000;

              append_u_escape (out, 0xd800 | ((v >> 10) & 0x3ff));
              append_u_escape (out, 0xdc00 | (v & 0x3ff));
            }
        }
    }
  *append_space (out, 1) = '"';
}

static void
append_json_cstring (GString    *out,
                     const char *str,
                     gboolean    ensure_ascii)
{
  if (str == NULL)
    g_string_append (out, "null");
  else
    append_json_string (out, str, strlen (str), ensure_ascii);
}

static void
append_json_float (GString *out,
                   double   x)
{
  if (isnan (x))
    g_string_append (out, "NaN");
  else if (isinf (x))
    g_string_append (out, x > 0 ? "Infinity" : "-Infinity");
  else
    anot_py_append_float_repr (out, x);
}

static void
append_int (GString *out,
            gint64   i)
{
  char text[24];
  int at = sizeof text;
  guint64 u = i < 0 ? -(guint64) i : (guint64) i;

  do
    {
      text[--at] = '0' + (char) (u % 10);
      u /= 10;
    }
  while (u > 0);
  if (i < 0)
    text[--at] = '-';
  g_string_append_len (out, text + at, sizeof text - at);
}

static void
append_indent (GString *out,
               int      indent,
               int      depth)
{
  gsize n = (gsize) indent * depth;
  char *at = append_space (out, 1 + n);

  at[0] = '\n';
  memset (at + 1, ' ', n);
}

/* The separator before a member or element of a JSON container written at
 * @depth; @indent < 0: one line, as json.dumps(indent=None). */
static void
append_json_separator (GString *out,
                       gboolean first,
                       int      indent,
                       int      depth)
{
  if (!first)
    g_string_append_c (out, ',');
  if (indent >= 0)
    append_indent (out, indent, depth + 1);
  else if (!first)
    g_string_append_c (out, ' ');
}

static void
append_json_close (GString *out,
                   gboolean empty,
                   int      indent,
                   int      depth,
                   char     bracket)
{
  if (!empty && indent >= 0)
    append_indent (out, indent, depth);
  g_string_append_c (out, bracket);
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
      append_json_cstring (out, anot_py_value_get_string (key), ensure_ascii);
      return;
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

        append_json_cstring (out, repr, ensure_ascii);
      }
    }
}

/* json.dumps of a Python value (a decoded attribute). */
static void
append_json_py (GString           *out,
                const AnotPyValue *v,
                int                depth,
                int                indent,
                gboolean           ensure_ascii)
{
  guint n;

  switch (anot_py_value_get_kind (v))
    {
    case ANOT_PY_NONE:
      g_string_append (out, "null");
      break;
    case ANOT_PY_BOOL:
      g_string_append (out, anot_py_value_get_bool (v) ? "true" : "false");
      break;
    case ANOT_PY_INT:
      append_int (out, anot_py_value_get_int (v));
      break;
    case ANOT_PY_FLOAT:
      append_json_float (out, anot_py_value_get_float (v));
      break;
    case ANOT_PY_STR:
      append_json_cstring (out, anot_py_value_get_string (v), ensure_ascii);
      break;
    case ANOT_PY_LIST:
    case ANOT_PY_TUPLE:
      n = anot_py_value_get_length (v);
      g_string_append_c (out, '[');
      for (guint i = 0; i < n; i++)
        {
          append_json_separator (out, i == 0, indent, depth);
          append_json_py (out, anot_py_value_get_item (v, i), depth + 1, indent, ensure_ascii);
        }
      append_json_close (out, n == 0, indent, depth, ']');
      break;
    case ANOT_PY_DICT:
      n = anot_py_value_get_length (v);
      g_string_append_c (out, '{');
      for (guint i = 0; i < n; i++)
        {
          append_json_separator (out, i == 0, indent, depth);
          append_json_key (out, anot_py_value_dict_get_key (v, i), ensure_ascii);
          g_string_append (out, ": ");
          append_json_py (out, anot_py_value_get_item (v, i), depth + 1, indent, ensure_ascii);
        }
      append_json_close (out, n == 0, indent, depth, '}');
      break;
    }
}

/* str() of a Python value. */
static void
append_str_py (GString           *out,
               const AnotPyValue *v)
{
  if (anot_py_value_get_kind (v) == ANOT_PY_STR)
    g_string_append (out, anot_py_value_get_string (v));
  else
    anot_py_append_repr (out, v);
}

static gboolean is_excluded (AnotFormatter *self, const char *prefix, const char *name);
static gboolean has_exclusions_under (AnotFormatter *self, const char *prefix);

/* The exclusion prefix of the members of @name's object under @prefix, or
 * NULL when nothing under it is excluded (the object is written whole). */
static char *
nested_prefix (AnotFormatter *self,
               const char    *prefix,
               const char    *name)
{
  g_autofree char *path = NULL;

  if (self == NULL || prefix == NULL)
    return NULL;
  path = g_strconcat (prefix, ".", name, NULL);
  return has_exclusions_under (self, path) ? g_steal_pointer (&path) : NULL;
}

/* How append_node() writes: json.dumps(indent=, ensure_ascii=), or, with
 * @repr, Python's repr() (one line, so @indent is -1). */
typedef struct
{
  gboolean repr;
  int      indent;
  gboolean ensure_ascii;
} NodeStyle;

static const NodeStyle REPR_STYLE = { TRUE, -1, FALSE };

static void
append_node_string (GString         *out,
                    const char      *s,
                    const NodeStyle *style)
{
  if (style->repr)
    anot_py_append_str_repr (out, s, strlen (s));
  else
    append_json_cstring (out, s, style->ensure_ascii);
}

/* json.dumps, or repr(), of the value json.loads() gives for @node.  With
 * @self and a @prefix, the members of objects excluded under @prefix are
 * left out, at every depth of nested objects (not inside arrays). */
static void
append_node (GString         *out,
             JsonNode        *node,
             const NodeStyle *style,
             int              depth,
             AnotFormatter   *self,
             const char      *prefix)
{
  switch (node != NULL ? json_node_get_node_type (node) : JSON_NODE_NULL)
    {
    case JSON_NODE_VALUE:
      {
        GType type = json_node_get_value_type (node);

        if (type == G_TYPE_BOOLEAN)
          {
            gboolean b = json_node_get_boolean (node);

            g_string_append (out, style->repr ? (b ? "True" : "False") : (b ? "true" : "false"));
          }
        else if (type == G_TYPE_INT64)
          append_int (out, json_node_get_int (node));
        else if (type == G_TYPE_DOUBLE && style->repr)
          anot_py_append_float_repr (out, json_node_get_double (node));
        else if (type == G_TYPE_DOUBLE)
          append_json_float (out, json_node_get_double (node));
        else if (type == G_TYPE_STRING)
          append_node_string (out, json_node_get_string (node), style);
        else
          g_string_append (out, style->repr ? "None" : "null");
      }
      break;
    case JSON_NODE_ARRAY:
      {
        JsonArray *array = json_node_get_array (node);
        guint n = json_array_get_length (array);

        g_string_append_c (out, '[');
        for (guint i = 0; i < n; i++)
          {
            append_json_separator (out, i == 0, style->indent, depth);
            append_node (out, json_array_get_element (array, i), style, depth + 1, NULL, NULL);
          }
        append_json_close (out, n == 0, style->indent, depth, ']');
      }
      break;
    case JSON_NODE_OBJECT:
      {
        JsonObjectIter iter;
        const char *name;
        JsonNode *member;
        gboolean first = TRUE;

        g_string_append_c (out, '{');
        json_object_iter_init_ordered (&iter, json_node_get_object (node));
        while (json_object_iter_next_ordered (&iter, &name, &member))
          {
            g_autofree char *inner = NULL;

            if (prefix != NULL && is_excluded (self, prefix, name))
              continue;
            append_json_separator (out, first, style->indent, depth);
            first = FALSE;
            append_node_string (out, name, style);
            g_string_append (out, ": ");
            inner = nested_prefix (self, prefix, name);
            append_node (out, member, style, depth + 1, self, inner);
          }
        append_json_close (out, first, style->indent, depth, '}');
      }
      break;
    case JSON_NODE_NULL:
    default:
      g_string_append (out, style->repr ? "None" : "null");
    }
}

/* str() of the value json.loads() gives for @node. */
static void
append_str_node (GString       *out,
                 JsonNode      *node,
                 AnotFormatter *self,
                 const char    *prefix)
{
  if (node != NULL && JSON_NODE_HOLDS_VALUE (node) && json_node_get_value_type (node) == G_TYPE_STRING)
    g_string_append (out, json_node_get_string (node));
  else
    append_node (out, node, &REPR_STYLE, 0, self, prefix);
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
  NodeStyle style = { FALSE, indent, ensure_ascii };
  GString *out;

  g_return_val_if_fail (node != NULL, NULL);

  out = g_string_new (NULL);
  append_node (out, node, &style, 0, NULL, NULL);
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
  GString *out;

  g_return_val_if_fail (node != NULL, NULL);

  out = g_string_new (NULL);
  append_node (out, node, &REPR_STYLE, 0, NULL, NULL);
  return g_string_free (out, FALSE);
}

/**
 * anot_json_to_validator_repr:
 * @node: a #JsonNode, a value of an item's record
 *
 * Writes the Python `repr()` of the value as the validator reads it
 * (anot_validator_evaluate_condition()): a string that spells a Python literal is
 * that literal, so Yelp's `"u'free'"` and `"'free'"` both give `'free'`,
 * `"True"` gives `True` and `"None"` gives `None`.  A listing that shows a
 * model several items' values this way shows each value in one spelling.
 *
 * Returns: (transfer full): the text
 */
char *
anot_json_to_validator_repr (JsonNode *node)
{
  g_autoptr(AnotPyValue) value = NULL;
  g_autoptr(AnotPyValue) read = NULL;

  g_return_val_if_fail (node != NULL, NULL);

  value = anot_py_value_new_from_json (node);
  read = anot_py_normalise_pass_b (value);
  return anot_py_value_repr (read);
}

/* ------------------------------------------------------------------------ *
 * Exclusions
 * ------------------------------------------------------------------------ */

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

/* A copy of the decoded attribute @dict without the keys excluded under
 * @prefix; recurses into nested dicts. */
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
      path = g_strconcat (prefix, ".", name, NULL);
      if (anot_py_value_get_kind (value) == ANOT_PY_DICT)
        anot_py_value_dict_set (out, anot_py_value_ref (key), filter_dict (self, value, path));
      else
        anot_py_value_dict_set (out, anot_py_value_ref (key), anot_py_value_ref (value));
    }
  return out;
}

/* ------------------------------------------------------------------------ *
 * Writing an object member by member, in the JSON or the Python style
 * ------------------------------------------------------------------------ */

typedef struct
{
  GString *out;
  gboolean json;          /* else repr() */
  gboolean ensure_ascii;
  int depth;              /* of the object (JSON, indent 2) */
  gboolean first;
} ObjectWriter;

#define INDENT 2

static void
object_begin (ObjectWriter *w,
              GString      *out,
              gboolean      json,
              gboolean      ensure_ascii,
              int           depth)
{
  w->out = out;
  w->json = json;
  w->ensure_ascii = ensure_ascii;
  w->depth = depth;
  w->first = TRUE;
  g_string_append_c (out, '{');
}

static void
object_key (ObjectWriter *w,
            const char   *key)
{
  if (w->json)
    {
      append_json_separator (w->out, w->first, INDENT, w->depth);
      append_json_cstring (w->out, key, w->ensure_ascii);
    }
  else
    {
      if (!w->first)
        g_string_append (w->out, ", ");
      anot_py_append_str_repr (w->out, key, strlen (key));
    }
  append_bytes (w->out, ": ", 2);
  w->first = FALSE;
}

static void
object_end (ObjectWriter *w)
{
  if (w->json)
    append_json_close (w->out, w->first, INDENT, w->depth, '}');
  else
    g_string_append_c (w->out, '}');
}

static void
object_string (ObjectWriter *w,
               const char   *key,
               const char   *value)
{
  object_key (w, key);
  if (value == NULL)
    g_string_append (w->out, w->json ? "null" : "None");
  else if (w->json)
    append_json_string (w->out, value, strlen (value), w->ensure_ascii);
  else
    anot_py_append_str_repr (w->out, value, strlen (value));
}

static void
object_double (ObjectWriter *w,
               const char   *key,
               double        value)
{
  object_key (w, key);
  if (w->json)
    append_json_float (w->out, value);
  else
    anot_py_append_float_repr (w->out, value);
}

static void
object_int (ObjectWriter *w,
            const char   *key,
            gint64        value)
{
  object_key (w, key);
  append_int (w->out, value);
}

/* ------------------------------------------------------------------------ *
 * Reviews
 * ------------------------------------------------------------------------ */

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

/* Which fields of a review are shown: the record as the original loader
 * shows it (anot_review_to_json()'s fields and order) less the excluded
 * ones. */
typedef struct
{
  gboolean filter;        /* some reviews.* path is excluded */
  gboolean user_filter;   /* some reviews.user.* path is excluded */
} ReviewFilter;

#define REVIEW_SHOWS(self, rf, key) (!(rf)->filter || !is_excluded ((self), "reviews", (key)))
#define USER_SHOWS(self, rf, key) (!(rf)->user_filter || !is_excluded ((self), "reviews.user", (key)))

/* A review in the JSON (at depth 2) or the Python style. */
static void
append_review_object (AnotFormatter      *self,
                      GString            *out,
                      AnotReview         *review,
                      const char         *text,
                      const ReviewFilter *rf)
{
  guint flags = _anot_review_get_flags (review);
  gboolean json = self->style == ANOT_FORMAT_STYLE_JSON;
  ObjectWriter w;

  object_begin (&w, out, json, self->ensure_ascii, 2);
  if (REVIEW_SHOWS (self, rf, "review_id"))
    object_string (&w, "review_id", anot_review_get_id (review));
  if (!(flags & ANOT_REVIEW_NO_ITEM_ID) && REVIEW_SHOWS (self, rf, "business_id"))
    object_string (&w, "business_id", anot_review_get_item_id (review));
  if (anot_review_get_user_id (review) != NULL && REVIEW_SHOWS (self, rf, "user_id"))
    object_string (&w, "user_id", anot_review_get_user_id (review));
  if (REVIEW_SHOWS (self, rf, "stars"))
    object_double (&w, "stars", anot_review_get_stars (review));
  if (REVIEW_SHOWS (self, rf, "text"))
    object_string (&w, "text", text);
  if (anot_review_get_date (review) != NULL && REVIEW_SHOWS (self, rf, "date"))
    object_string (&w, "date", anot_review_get_date (review));
  if ((flags & ANOT_REVIEW_HAS_USEFUL) && REVIEW_SHOWS (self, rf, "useful"))
    object_int (&w, "useful", anot_review_get_useful (review));
  if ((flags & ANOT_REVIEW_HAS_FUNNY) && REVIEW_SHOWS (self, rf, "funny"))
    object_int (&w, "funny", anot_review_get_funny (review));
  if ((flags & ANOT_REVIEW_HAS_COOL) && REVIEW_SHOWS (self, rf, "cool"))
    object_int (&w, "cool", anot_review_get_cool (review));

  if ((flags & (ANOT_REVIEW_HAS_USER | ANOT_REVIEW_HAS_ASSIGNMENT)) && REVIEW_SHOWS (self, rf, "user"))
    {
      ObjectWriter u;

      object_key (&w, "user");
      object_begin (&u, out, json, self->ensure_ascii, 3);
      if ((flags & ANOT_REVIEW_HAS_USER_REVIEW_COUNT) && USER_SHOWS (self, rf, "review_count"))
        object_int (&u, "review_count", anot_review_get_user_review_count (review));
      if ((flags & ANOT_REVIEW_HAS_USER_AVERAGE_STARS) && USER_SHOWS (self, rf, "average_stars"))
        object_double (&u, "average_stars", anot_review_get_user_average_stars (review));
      if (anot_review_get_user_yelping_since (review) != NULL && USER_SHOWS (self, rf, "yelping_since"))
        object_string (&u, "yelping_since", anot_review_get_user_yelping_since (review));
      if (flags & ANOT_REVIEW_HAS_ASSIGNMENT)
        {
          const char * const *friends = _anot_review_get_assigned_friends (review);

          if (USER_SHOWS (self, rf, "name"))
            object_string (&u, "name", anot_review_get_reviewer_name (review));
          if (USER_SHOWS (self, rf, "friends"))
            {
              guint n = friends != NULL ? g_strv_length ((char **) friends) : 0;

              object_key (&u, "friends");
              g_string_append_c (out, '[');
              for (guint i = 0; i < n; i++)
                {
                  if (json)
                    {
                      append_json_separator (out, i == 0, INDENT, 4);
                      append_json_string (out, friends[i], strlen (friends[i]), self->ensure_ascii);
                    }
                  else
                    {
                      if (i > 0)
                        g_string_append (out, ", ");
                      anot_py_append_str_repr (out, friends[i], strlen (friends[i]));
                    }
                }
              if (json)
                append_json_close (out, n == 0, INDENT, 4, ']');
              else
                g_string_append_c (out, ']');
            }
        }
      object_end (&u);
    }
  object_end (&w);
}

/* The text style of one review: stars, reviewer, date and text first, then
 * every other field shown, so excluding is the only way to hide one. */
static void
append_review_text (AnotFormatter      *self,
                    GString            *out,
                    AnotReview         *review,
                    const char         *text,
                    const ReviewFilter *rf)
{
  guint flags = _anot_review_get_flags (review);
  gboolean has_user = (flags & (ANOT_REVIEW_HAS_USER | ANOT_REVIEW_HAS_ASSIGNMENT)) &&
                      REVIEW_SHOWS (self, rf, "user");
  gboolean has_name = has_user && (flags & ANOT_REVIEW_HAS_ASSIGNMENT) && USER_SHOWS (self, rf, "name");
  gboolean has_date = anot_review_get_date (review) != NULL && REVIEW_SHOWS (self, rf, "date");
  const char *name = anot_review_get_reviewer_name (review);

  g_string_append (out, "- ");
  if (REVIEW_SHOWS (self, rf, "stars"))
    {
      g_string_append_c (out, '[');
      anot_py_append_float_repr (out, anot_review_get_stars (review));
      g_string_append (out, " stars] ");
    }
  if (has_name)
    {
      g_string_append (out, name != NULL ? name : "None");
      if (has_date)
        g_string_append (out, ", ");
    }
  if (has_date)
    g_string_append (out, anot_review_get_date (review));
  if (has_name || has_date)
    g_string_append (out, ": ");
  if (REVIEW_SHOWS (self, rf, "text"))
    g_string_append (out, text != NULL ? text : "None");

  if ((flags & ANOT_REVIEW_HAS_USEFUL) && REVIEW_SHOWS (self, rf, "useful"))
    g_string_append_printf (out, "\n    useful: %" G_GINT64_FORMAT, anot_review_get_useful (review));
  if ((flags & ANOT_REVIEW_HAS_FUNNY) && REVIEW_SHOWS (self, rf, "funny"))
    g_string_append_printf (out, "\n    funny: %" G_GINT64_FORMAT, anot_review_get_funny (review));
  if ((flags & ANOT_REVIEW_HAS_COOL) && REVIEW_SHOWS (self, rf, "cool"))
    g_string_append_printf (out, "\n    cool: %" G_GINT64_FORMAT, anot_review_get_cool (review));
  if (has_user)
    {
      if ((flags & ANOT_REVIEW_HAS_USER_REVIEW_COUNT) && USER_SHOWS (self, rf, "review_count"))
        g_string_append_printf (out, "\n    user review_count: %" G_GINT64_FORMAT,
                                anot_review_get_user_review_count (review));
      if ((flags & ANOT_REVIEW_HAS_USER_AVERAGE_STARS) && USER_SHOWS (self, rf, "average_stars"))
        {
          g_string_append (out, "\n    user average_stars: ");
          anot_py_append_float_repr (out, anot_review_get_user_average_stars (review));
        }
      if (anot_review_get_user_yelping_since (review) != NULL && USER_SHOWS (self, rf, "yelping_since"))
        {
          g_string_append (out, "\n    user yelping_since: ");
          g_string_append (out, anot_review_get_user_yelping_since (review));
        }
      if ((flags & ANOT_REVIEW_HAS_ASSIGNMENT) && USER_SHOWS (self, rf, "friends"))
        {
          const char * const *friends = _anot_review_get_assigned_friends (review);

          g_string_append (out, "\n    user friends: [");
          for (guint i = 0; friends != NULL && friends[i] != NULL; i++)
            {
              if (i > 0)
                g_string_append (out, ", ");
              anot_py_append_str_repr (out, friends[i], strlen (friends[i]));
            }
          g_string_append_c (out, ']');
        }
    }
}

/* One review in the current style, at the depth of a review in an item,
 * with its text cut to @chars characters (-1: whole), appended to @out;
 * *cut is set if it was cut. */
static void
append_review (AnotFormatter      *self,
               GString            *out,
               AnotReview         *review,
               glong               chars,
               const ReviewFilter *rf,
               gboolean           *cut)
{
  const char *text = anot_review_get_text (review);
  g_autofree char *short_text = NULL;

  *cut = FALSE;
  if (chars >= 0 && text != NULL && g_utf8_strlen (text, -1) > chars)
    {
      short_text = cut_text (text, (gsize) chars, self->truncation_mark);
      text = short_text;
      *cut = TRUE;
    }

  if (self->style == ANOT_FORMAT_STYLE_TEXT)
    append_review_text (self, out, review, text, rf);
  else
    append_review_object (self, out, review, text, rf);
}

static char *
render_review (AnotFormatter      *self,
               AnotReview         *review,
               glong               chars,
               const ReviewFilter *rf,
               gboolean           *cut)
{
  const char *text = anot_review_get_text (review);
  GString *out = g_string_sized_new (text != NULL ? strlen (text) + 512 : 512);

  append_review (self, out, review, chars, rf, cut);
  return g_string_free (out, FALSE);
}

/* ------------------------------------------------------------------------ *
 * Items
 * ------------------------------------------------------------------------ */

/* An item's text without its reviews: what comes before the list of
 * reviews and what comes after it, so that any prefix of the rendered
 * reviews makes the item's text by concatenation (and its length by
 * addition) without writing the item again. */
typedef struct
{
  GString *head;
  GString *tail;
  gboolean has_reviews;   /* the item shows a list of reviews */
  glong head_chars;
  glong tail_chars;
} ItemFrame;

static void
item_frame_clear (ItemFrame *frame)
{
  if (frame->head != NULL)
    g_string_free (frame->head, TRUE);
  if (frame->tail != NULL)
    g_string_free (frame->tail, TRUE);
}

/* Decoded attribute strings kept, at most this many (then the table is
 * emptied and fills again). */
#define MAX_DECODED 4096

static GMutex decoded_lock;
static GHashTable *decoded_strings;   /* attribute string -> AnotPyValue */

/* @member decoded as the original loader decodes an attribute.  The
 * Yelp-encoded strings ("u'free'", "{'garage': False, ...}") are the same
 * in every prompt that shows their item, and many are shared between
 * items: each is parsed once and its value (immutable once normalised)
 * shared, instead of being parsed as a Python literal on every render. */
static AnotPyValue *
decode_attribute_value (JsonNode *member)
{
  g_autoptr(AnotPyValue) raw = NULL;
  AnotPyValue *decoded = NULL;
  const char *text;

  if (!JSON_NODE_HOLDS_VALUE (member) || json_node_get_value_type (member) != G_TYPE_STRING)
    {
      raw = anot_py_value_new_from_json (member);
      return anot_py_normalise_pass_a (raw);
    }

  text = json_node_get_string (member);
  g_mutex_lock (&decoded_lock);
  if (decoded_strings != NULL)
    decoded = g_hash_table_lookup (decoded_strings, text);
  if (decoded != NULL)
    anot_py_value_ref (decoded);
  g_mutex_unlock (&decoded_lock);
  if (decoded != NULL)
    return decoded;

  raw = anot_py_value_new_from_json (member);
  decoded = anot_py_normalise_pass_a (raw);
  g_mutex_lock (&decoded_lock);
  if (decoded_strings == NULL)
    decoded_strings = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                             (GDestroyNotify) anot_py_value_unref);
  if (g_hash_table_size (decoded_strings) >= MAX_DECODED)
    g_hash_table_remove_all (decoded_strings);
  g_hash_table_replace (decoded_strings, g_strdup (text), anot_py_value_ref (decoded));
  g_mutex_unlock (&decoded_lock);
  return decoded;
}

/* The attribute @member decoded as the original loader decodes it, less
 * the excluded keys; NULL when the attribute itself is excluded. */
static AnotPyValue *
decode_attribute (AnotFormatter *self,
                  const char    *name,
                  JsonNode      *member)
{
  AnotPyValue *decoded;

  if (is_excluded (self, "attributes", name))
    return NULL;
  decoded = decode_attribute_value (member);
  if (anot_py_value_get_kind (decoded) == ANOT_PY_DICT)
    {
      g_autofree char *path = g_strconcat ("attributes.", name, NULL);

      if (has_exclusions_under (self, path))
        {
          AnotPyValue *filtered = filter_dict (self, decoded, path);

          anot_py_value_unref (decoded);
          decoded = filtered;
        }
    }
  return decoded;
}

/* The `categories` string as the loader splits it: pieces stripped, empty
 * ones dropped.  Calls @piece for each. */
static GPtrArray *
split_categories (const char *text)
{
  g_auto(GStrv) parts = g_strsplit (text, ",", -1);
  GPtrArray *out = g_ptr_array_new_with_free_func (g_free);

  for (guint i = 0; parts[i] != NULL; i++)
    {
      char *piece = anot_py_strip (parts[i], strlen (parts[i]));

      if (piece[0] != '\0')
        g_ptr_array_add (out, piece);
      else
        g_free (piece);
    }
  return out;
}

static gboolean
is_categories_string (const char *name,
                      JsonNode   *member)
{
  return g_str_equal (name, "categories") && JSON_NODE_HOLDS_VALUE (member) &&
         json_node_get_value_type (member) == G_TYPE_STRING;
}

static gboolean
is_attributes_object (const char *name,
                      JsonNode   *member)
{
  return g_str_equal (name, "attributes") && JSON_NODE_HOLDS_OBJECT (member);
}

/* A record member's value in the JSON (at depth 1) or the Python style:
 * attributes decoded, categories split, nested objects filtered. */
static void
append_member_value (AnotFormatter *self,
                     GString       *out,
                     const char    *name,
                     JsonNode      *member)
{
  gboolean json = self->style == ANOT_FORMAT_STYLE_JSON;

  if (is_attributes_object (name, member))
    {
      ObjectWriter w;
      JsonObjectIter iter;
      const char *aname;
      JsonNode *amember;

      object_begin (&w, out, json, self->ensure_ascii, 1);
      json_object_iter_init_ordered (&iter, json_node_get_object (member));
      while (json_object_iter_next_ordered (&iter, &aname, &amember))
        {
          g_autoptr(AnotPyValue) decoded = decode_attribute (self, aname, amember);

          if (decoded == NULL)
            continue;
          object_key (&w, aname);
          if (json)
            append_json_py (out, decoded, 2, INDENT, self->ensure_ascii);
          else
            anot_py_append_repr (out, decoded);
        }
      object_end (&w);
    }
  else if (is_categories_string (name, member))
    {
      g_autoptr(GPtrArray) pieces = split_categories (json_node_get_string (member));

      g_string_append_c (out, '[');
      for (guint i = 0; i < pieces->len; i++)
        {
          const char *piece = g_ptr_array_index (pieces, i);

          if (json)
            {
              append_json_separator (out, i == 0, INDENT, 1);
              append_json_string (out, piece, strlen (piece), self->ensure_ascii);
            }
          else
            {
              if (i > 0)
                g_string_append (out, ", ");
              anot_py_append_str_repr (out, piece, strlen (piece));
            }
        }
      if (json)
        append_json_close (out, pieces->len == 0, INDENT, 1, ']');
      else
        g_string_append_c (out, ']');
    }
  else
    {
      g_autofree char *prefix = has_exclusions_under (self, name) ? g_strdup (name) : NULL;

      NodeStyle style = { !json, json ? INDENT : -1, self->ensure_ascii };

      append_node (out, member, &style, 1, self, prefix);
    }
}

/* A record member's line in the text style: lists joined by ", ", objects
 * as `key=value` joined by "; ", anything else as str(). */
static void
append_member_text (AnotFormatter *self,
                    GString       *out,
                    const char    *name,
                    JsonNode      *member)
{
  g_string_append (out, name);
  g_string_append (out, ": ");

  if (is_attributes_object (name, member))
    {
      JsonObjectIter iter;
      const char *aname;
      JsonNode *amember;
      gboolean first = TRUE;

      json_object_iter_init_ordered (&iter, json_node_get_object (member));
      while (json_object_iter_next_ordered (&iter, &aname, &amember))
        {
          g_autoptr(AnotPyValue) decoded = decode_attribute (self, aname, amember);

          if (decoded == NULL)
            continue;
          if (!first)
            g_string_append (out, "; ");
          first = FALSE;
          g_string_append (out, aname);
          g_string_append_c (out, '=');
          append_str_py (out, decoded);
        }
    }
  else if (is_categories_string (name, member))
    {
      g_autoptr(GPtrArray) pieces = split_categories (json_node_get_string (member));

      for (guint i = 0; i < pieces->len; i++)
        {
          if (i > 0)
            g_string_append (out, ", ");
          g_string_append (out, g_ptr_array_index (pieces, i));
        }
    }
  else if (JSON_NODE_HOLDS_ARRAY (member))
    {
      JsonArray *array = json_node_get_array (member);

      for (guint i = 0; i < json_array_get_length (array); i++)
        {
          if (i > 0)
            g_string_append (out, ", ");
          append_str_node (out, json_array_get_element (array, i), NULL, NULL);
        }
    }
  else if (JSON_NODE_HOLDS_OBJECT (member))
    {
      g_autofree char *prefix = has_exclusions_under (self, name) ? g_strdup (name) : NULL;
      JsonObjectIter iter;
      const char *key;
      JsonNode *value;
      gboolean first = TRUE;

      json_object_iter_init_ordered (&iter, json_node_get_object (member));
      while (json_object_iter_next_ordered (&iter, &key, &value))
        {
          g_autofree char *inner = NULL;

          if (prefix != NULL && is_excluded (self, prefix, key))
            continue;
          if (!first)
            g_string_append (out, "; ");
          first = FALSE;
          g_string_append (out, key);
          g_string_append_c (out, '=');
          inner = nested_prefix (self, prefix, key);
          append_str_node (out, value, self, inner);
        }
    }
  else
    append_str_node (out, member, NULL, NULL);
  g_string_append_c (out, '\n');
}

static gboolean
shows_member (AnotFormatter *self,
              const char    *name)
{
  /* The record has no field that leaks the answer (anot_item_get_record()). */
  return !is_excluded (self, NULL, name) && !g_str_equal (name, "reviews");
}

/* The item's text around its reviews: its record fields in file order
 * (without the blocked and excluded ones, and without the record's own
 * `reviews`, replaced as the loader replaces it), the reviews, `index`. */
static void
build_frame (AnotFormatter *self,
             AnotItem      *item,
             guint          number,
             ItemFrame     *frame)
{
  JsonObject *record = anot_item_get_record (item);
  gboolean show_index = !is_excluded (self, NULL, "index");
  JsonObjectIter iter;
  const char *name;
  JsonNode *member;
  GString *out = g_string_sized_new (4096);

  frame->head = out;
  frame->tail = NULL;
  frame->has_reviews = !is_excluded (self, NULL, "reviews");

  if (self->style == ANOT_FORMAT_STYLE_TEXT)
    {
      JsonNode *name_node = json_object_get_member (record, "name");

      g_string_append (out, self->item_label);
      if (show_index)
        g_string_append_printf (out, " %u", number);
      g_string_append_c (out, ':');
      if (name_node != NULL && shows_member (self, "name"))
        {
          g_string_append_c (out, ' ');
          append_str_node (out, name_node, NULL, NULL);
        }
      g_string_append_c (out, '\n');

      json_object_iter_init_ordered (&iter, record);
      while (json_object_iter_next_ordered (&iter, &name, &member))
        if (shows_member (self, name) && !g_str_equal (name, "name") && !g_str_equal (name, "index"))
          append_member_text (self, out, name, member);
      frame->tail = g_string_new (NULL);
    }
  else
    {
      ObjectWriter w;

      gboolean index_written = FALSE;

      object_begin (&w, out, self->style == ANOT_FORMAT_STYLE_JSON, self->ensure_ascii, 0);
      json_object_iter_init_ordered (&iter, record);
      while (json_object_iter_next_ordered (&iter, &name, &member))
        {
          if (!shows_member (self, name))
            continue;
          if (g_str_equal (name, "index"))
            {
              /* A record's own "index" takes the candidate's number where
               * it stands, as a dict assignment does. */
              object_int (&w, "index", number);
              index_written = TRUE;
              continue;
            }
          object_key (&w, name);
          append_member_value (self, out, name, member);
        }
      if (frame->has_reviews)
        {
          object_key (&w, "reviews");
          frame->tail = g_string_new (NULL);
          w.out = frame->tail;
        }
      if (show_index && !index_written)
        object_int (&w, "index", number);
      object_end (&w);
      if (frame->tail == NULL)
        frame->tail = g_string_new (NULL);
    }

  if (self->item_chars >= 0)
    {
      frame->head_chars = count_chars (frame->head->str, frame->head->len);
      frame->tail_chars = count_chars (frame->tail->str, frame->tail->len);
    }
}

/* The list of the first @m of @texts as it stands in the item. */
static void
append_reviews (AnotFormatter *self,
                GString       *out,
                GPtrArray     *texts,
                guint          m,
                guint          n_total)
{
  switch (self->style)
    {
    case ANOT_FORMAT_STYLE_JSON:
      g_string_append_c (out, '[');
      for (guint i = 0; i < m; i++)
        {
          append_json_separator (out, i == 0, INDENT, 1);
          g_string_append (out, g_ptr_array_index (texts, i));
        }
      append_json_close (out, m == 0, INDENT, 1, ']');
      break;
    case ANOT_FORMAT_STYLE_PYTHON:
      g_string_append_c (out, '[');
      for (guint i = 0; i < m; i++)
        {
          if (i > 0)
            g_string_append (out, ", ");
          g_string_append (out, g_ptr_array_index (texts, i));
        }
      g_string_append_c (out, ']');
      break;
    case ANOT_FORMAT_STYLE_TEXT:
      g_string_append_printf (out, "reviews (%u of %u):\n", m, n_total);
      for (guint i = 0; i < m; i++)
        {
          g_string_append (out, "  ");
          g_string_append (out, g_ptr_array_index (texts, i));
          g_string_append_c (out, '\n');
        }
      break;
    }
}

/* The characters append_reviews() writes, from the characters of each
 * review's text. */
static glong
reviews_chars (AnotFormatter *self,
               const glong   *chars,
               guint          m,
               guint          n_total)
{
  glong sum = 0;

  for (guint i = 0; i < m; i++)
    sum += chars[i];

  switch (self->style)
    {
    case ANOT_FORMAT_STYLE_JSON:
      /* "[", then per review ",\n    " (no comma for the first), "\n  ]" */
      return m == 0 ? 2 : 1 + sum + m * (1 + INDENT * 2) + (m - 1) + 1 + INDENT + 1;
    case ANOT_FORMAT_STYLE_PYTHON:
      return 2 + sum + (m > 0 ? 2 * (glong) (m - 1) : 0);
    case ANOT_FORMAT_STYLE_TEXT:
    default:
      {
        char header[64];

        return g_snprintf (header, sizeof header, "reviews (%u of %u):\n", m, n_total) +
               sum + 3 * (glong) m;
      }
    }
}

static glong
item_chars (AnotFormatter   *self,
            const ItemFrame *frame,
            const glong     *chars,
            guint            m,
            guint            n_total)
{
  return frame->head_chars + frame->tail_chars +
         (frame->has_reviews ? reviews_chars (self, chars, m, n_total) : 0);
}

typedef struct
{
  guint reviews_total;
  guint reviews_included;
  guint reviews_cut;
  gboolean over_budget;
} ItemStats;

/* Renders @item into @out; fills @stats and, if not NULL, @limits with the
 * characters each review shown was cut to (-1: whole). */
static void
format_item_full (AnotFormatter  *self,
                  AnotItem       *item,
                  guint           number,
                  ItemStats      *stats,
                  GString        *out,
                  GArray         *limits)
{
  ItemFrame frame = { 0 };
  g_autoptr(GPtrArray) texts = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GArray) chars = g_array_new (FALSE, FALSE, sizeof (glong));
  g_autoptr(GArray) cut_flags = g_array_new (FALSE, FALSE, sizeof (gboolean));
  g_autoptr(GArray) kept = g_array_new (FALSE, FALSE, sizeof (glong));
  guint n_reviews = anot_item_get_n_reviews (item);
  ReviewFilter rf;
  guint n_shown;

  memset (stats, 0, sizeof *stats);
  stats->reviews_total = n_reviews;
  build_frame (self, item, number, &frame);

  rf.filter = has_exclusions_under (self, "reviews");
  rf.user_filter = rf.filter && has_exclusions_under (self, "reviews.user");

  n_shown = frame.has_reviews ? n_reviews : 0;
  if (self->max_reviews >= 0 && (guint) self->max_reviews < n_shown)
    n_shown = (guint) self->max_reviews;

  if (self->item_chars < 0 && limits == NULL)
    {
      /* No budget: every review is written where it stands, once. */
      g_string_append_len (out, frame.head->str, frame.head->len);
      if (frame.has_reviews)
        {
          if (self->style == ANOT_FORMAT_STYLE_TEXT)
            g_string_append_printf (out, "reviews (%u of %u):\n", n_shown, n_reviews);
          else
            g_string_append_c (out, '[');
          for (guint i = 0; i < n_shown; i++)
            {
              gboolean cut;

              if (self->style == ANOT_FORMAT_STYLE_JSON)
                append_json_separator (out, i == 0, INDENT, 1);
              else if (self->style == ANOT_FORMAT_STYLE_PYTHON && i > 0)
                g_string_append (out, ", ");
              else if (self->style == ANOT_FORMAT_STYLE_TEXT)
                g_string_append (out, "  ");
              append_review (self, out, anot_item_get_review (item, i), self->review_chars, &rf, &cut);
              if (self->style == ANOT_FORMAT_STYLE_TEXT)
                g_string_append_c (out, '\n');
              if (cut)
                stats->reviews_cut++;
            }
          if (self->style == ANOT_FORMAT_STYLE_JSON)
            append_json_close (out, n_shown == 0, INDENT, 1, ']');
          else if (self->style == ANOT_FORMAT_STYLE_PYTHON)
            g_string_append_c (out, ']');
        }
      g_string_append_len (out, frame.tail->str, frame.tail->len);
      stats->reviews_included = n_shown;
      item_frame_clear (&frame);
      return;
    }

  for (guint i = 0; i < n_shown; i++)
    {
      gboolean cut;
      glong limit = self->review_chars;
      char *text = render_review (self, anot_item_get_review (item, i), limit, &rf, &cut);
      /* Lengths matter only to a budget. */
      glong c = self->item_chars >= 0 ? count_chars (text, strlen (text)) : 0;

      g_ptr_array_add (texts, text);
      g_array_append_val (chars, c);
      g_array_append_val (cut_flags, cut);
      g_array_append_val (kept, limit);
    }

  if (self->item_chars >= 0 &&
      item_chars (self, &frame, (glong *) chars->data, texts->len, n_reviews) > self->item_chars)
    {
      /* The most whole reviews that fit: lengths add up, so no text is
       * written while searching. */
      guint lo = 0, hi = texts->len;
      glong *c = (glong *) chars->data;

      while (lo < hi)
        {
          guint mid = (lo + hi + 1) / 2;

          if (item_chars (self, &frame, c, mid, n_reviews) <= self->item_chars)
            lo = mid;
          else
            hi = mid - 1;
        }

      if (item_chars (self, &frame, c, lo, n_reviews) > self->item_chars)
        stats->over_budget = TRUE;
      else if (lo < texts->len)
        {
          /* Cut the next review's text to the room left. */
          AnotReview *review = anot_item_get_review (item, lo);
          const char *rtext = anot_review_get_text (review);
          glong full = rtext != NULL ? g_utf8_strlen (rtext, -1) : 0;
          glong room = self->item_chars - item_chars (self, &frame, c, lo, n_reviews);
          glong keep = MIN (full, room);

          for (guint attempt = 0; attempt < 8 && keep >= MIN_CUT_CHARS; attempt++)
            {
              gboolean cut;
              char *rt = render_review (self, review, keep, &rf, &cut);
              glong over;

              c[lo] = count_chars (rt, strlen (rt));
              over = item_chars (self, &frame, c, lo + 1, n_reviews) - self->item_chars;
              if (over <= 0)
                {
                  /* The cut version in place of the whole one. */
                  g_free (g_ptr_array_index (texts, lo));
                  g_ptr_array_index (texts, lo) = rt;
                  g_array_index (cut_flags, gboolean, lo) = cut;
                  g_array_index (kept, glong, lo) = keep;
                  lo++;
                  break;
                }
              g_free (rt);
              keep -= over;
            }
        }

      g_ptr_array_set_size (texts, lo);
      g_array_set_size (cut_flags, lo);
      g_array_set_size (kept, lo);
    }

  stats->reviews_included = texts->len;
  for (guint i = 0; i < cut_flags->len; i++)
    if (g_array_index (cut_flags, gboolean, i))
      stats->reviews_cut++;
  if (limits != NULL)
    g_array_append_vals (limits, kept->data, kept->len);

  g_string_append_len (out, frame.head->str, frame.head->len);
  if (frame.has_reviews)
    append_reviews (self, out, texts, texts->len, n_reviews);
  g_string_append_len (out, frame.tail->str, frame.tail->len);
  item_frame_clear (&frame);
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
  GString *out;

  g_return_val_if_fail (ANOT_IS_FORMATTER (self), NULL);
  g_return_val_if_fail (ANOT_IS_ITEM (item), NULL);

  out = g_string_new (NULL);
  format_item_full (self, item, number, &stats, out, NULL);
  return g_string_free (out, FALSE);
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
  g_autoptr(GString) text = NULL;
  g_autoptr(GArray) limits = NULL;
  g_autoptr(GPtrArray) texts = NULL;
  g_autoptr(AnotFormatter) json = NULL;
  g_autoptr(GError) error = NULL;
  JsonNode *node;
  ItemFrame frame = { 0 };
  ReviewFilter rf;
  ItemStats stats;

  g_return_val_if_fail (ANOT_IS_FORMATTER (self), NULL);
  g_return_val_if_fail (ANOT_IS_ITEM (item), NULL);

  /* Which reviews are kept, and how far each is cut, depends on the text
   * of the formatter's style; the value is that selection written as JSON
   * and read back, so the value and the text cannot disagree. */
  text = g_string_new (NULL);
  limits = g_array_new (FALSE, FALSE, sizeof (glong));
  format_item_full (self, item, number, &stats, text, limits);

  json = anot_formatter_new ();
  anot_formatter_set_exclude (json, (const char * const *) self->exclude);
  anot_formatter_set_truncation_mark (json, self->truncation_mark);
  rf.filter = has_exclusions_under (json, "reviews");
  rf.user_filter = rf.filter && has_exclusions_under (json, "reviews.user");

  texts = g_ptr_array_new_with_free_func (g_free);
  for (guint i = 0; i < limits->len; i++)
    {
      gboolean cut;

      g_ptr_array_add (texts, render_review (json, anot_item_get_review (item, i),
                                             g_array_index (limits, glong, i), &rf, &cut));
    }
  build_frame (json, item, number, &frame);
  g_string_truncate (text, 0);
  g_string_append_len (text, frame.head->str, frame.head->len);
  if (frame.has_reviews)
    append_reviews (json, text, texts, texts->len, stats.reviews_total);
  g_string_append_len (text, frame.tail->str, frame.tail->len);
  item_frame_clear (&frame);

  /* The project's reader, not json-glib's parser (a GScanner a document:
   * two thirds of the time of building a philly context). */
  node = anot_json_parse (text->str, text->len, &error);
  if (node == NULL)
    g_error ("anot_formatter_build_item: item %s does not read back: %s",
             anot_item_get_id (item), error->message);
  json_node_seal (node);
  return node;
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
 * - JSON style: `"Restaurants:\n\n"` (the domain's plural, see #AnotFormatter:domain), then each candidate followed by
 *   `"\n\n"`, except the last, followed by `"\n"` (the original's
 *   `"\n".join(["Restaurants:\n", item, "", item, ""])`).
 * - Python style: the `repr()` of `{'items': {'1': {...}, ...}}`.
 * - Text style: `"Restaurants:\n\n"`, then each candidate's lines and a
 *   blank line.
 *
 * Returns: (transfer full): the text
 */
/* Room for the text of @candidates, so that megabytes of reviews are
 * written once rather than copied as the string doubles: each review's
 * text with an eighth more for its escapes, and its other members.  Too
 * much costs nothing but address space (pages never written are never
 * touched); too little, a reallocation. */
static gsize
estimate_size (GPtrArray *candidates)
{
  gsize size = 4096;

  for (guint i = 0; i < candidates->len; i++)
    {
      AnotItem *item = g_ptr_array_index (candidates, i);
      guint n = anot_item_get_n_reviews (item);

      size += 8192;
      for (guint r = 0; r < n; r++)
        {
          const char *text = anot_review_get_text (anot_item_get_review (item, r));
          gsize length = text != NULL ? strlen (text) : 0;

          size += length + length / 8 + 768;
        }
    }
  return size;
}

char *
anot_formatter_format (AnotFormatter  *self,
                       GPtrArray      *candidates,
                       JsonNode      **stats)
{
  GString *out;
  guint total = 0, included = 0, cut = 0, over = 0;

  g_return_val_if_fail (ANOT_IS_FORMATTER (self), NULL);
  g_return_val_if_fail (candidates != NULL, NULL);

  out = g_string_sized_new (estimate_size (candidates));
  if (self->style == ANOT_FORMAT_STYLE_PYTHON)
    g_string_append (out, "{'items': {");
  else
    g_string_append_printf (out, "%s:\n\n", self->items_label);

  for (guint i = 0; i < candidates->len; i++)
    {
      guint number = self->first_index + i;
      ItemStats s;

      if (self->style == ANOT_FORMAT_STYLE_PYTHON)
        g_string_append_printf (out, "%s'%u': ", i > 0 ? ", " : "", number);
      format_item_full (self, g_ptr_array_index (candidates, i), number, &s, out, NULL);
      if (self->style == ANOT_FORMAT_STYLE_JSON)
        g_string_append (out, i + 1 < candidates->len ? "\n\n" : "\n");
      else if (self->style == ANOT_FORMAT_STYLE_TEXT)
        g_string_append_c (out, '\n');

      total += s.reviews_total;
      included += s.reviews_included;
      cut += s.reviews_cut;
      over += s.over_budget ? 1 : 0;
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
      json_object_set_int_member (o, "chars", count_chars (out->str, out->len));
      *stats = json_node_new (JSON_NODE_OBJECT);
      json_node_take_object (*stats, o);
    }

  return g_string_free (out, FALSE);
}
