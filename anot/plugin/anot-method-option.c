/* anot-method-option.c: one option a method declares
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "anot-method-option.h"

#include <math.h>
#include <string.h>

#include "anot-error.h"

/**
 * AnotMethodOption:
 *
 * One option of a ranking method, as the method declares it: its name,
 * the kind of value it takes and the range or choices allowed, its
 * default, and one line of documentation.
 *
 * A method declares all its options when it registers
 * (anot_plugin_declare_method_options() in a C plugin's
 * `g_io_module_load()`, [method@Anot.Registry.declare_method_options] or
 * the `options=` argument of `Anot.register_method` in Python).  Before a
 * run starts, every `-O METHOD.KEY=VALUE`, every key of the `[method
 * METHOD]` section of `config.ini` and every `ANOT_METHOD_KEY` variable
 * of the run's method is checked against the declaration: an unknown key
 * (or a variable of no declared key) or a value out of range stops the
 * run before anything is sent, naming the key (see
 * [class@Anot.MethodSettings]).
 *
 * The value is text on the command line and in files; parsing it is
 * anot_method_option_parse(), which the typed getters of
 * [class@Anot.MethodSettings] follow to the letter.
 */

struct _AnotMethodOption
{
  GObject parent_instance;

  char                 *name;
  char                 *doc;
  AnotMethodOptionType  type;
  double                minimum;
  double                maximum;
  char                **choices;
  char                 *default_text; /* NULL: a string option without default */
  char                 *original_default; /* under --compat original, or NULL: the same */
  gboolean              original_fixed;   /* --compat original admits no other value */
  char                 *applies_key;      /* read only when this option ... */
  char                 *applies_value;    /* ... has this value; NULL: always */
};

G_DEFINE_FINAL_TYPE (AnotMethodOption, anot_method_option, G_TYPE_OBJECT)

static void
anot_method_option_finalize (GObject *object)
{
  AnotMethodOption *self = ANOT_METHOD_OPTION (object);

  g_free (self->name);
  g_free (self->doc);
  g_strfreev (self->choices);
  g_free (self->default_text);
  g_free (self->original_default);
  g_free (self->applies_key);
  g_free (self->applies_value);

  G_OBJECT_CLASS (anot_method_option_parent_class)->finalize (object);
}

static void
anot_method_option_class_init (AnotMethodOptionClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = anot_method_option_finalize;
}

static void
anot_method_option_init (AnotMethodOption *self)
{
}

static AnotMethodOption *
option_new (const char           *name,
            AnotMethodOptionType  type,
            const char           *doc)
{
  AnotMethodOption *self;

  g_return_val_if_fail (name != NULL && name[0] != '\0', NULL);
  g_return_val_if_fail (strchr (name, '.') == NULL && strchr (name, '=') == NULL, NULL);

  self = g_object_new (ANOT_TYPE_METHOD_OPTION, NULL);
  self->name = g_strdup (name);
  self->doc = g_strdup (doc != NULL ? doc : "");
  self->type = type;
  return self;
}

/**
 * anot_method_option_new_int:
 * @name: the key, e.g. `max_steps` (no `.` and no `=`)
 * @minimum: the smallest valid value
 * @maximum: the largest valid value
 * @default_value: the value when nothing sets it
 * @doc: (nullable): one line saying what it changes
 *
 * Returns: (transfer full): an option taking a whole number
 */
AnotMethodOption *
anot_method_option_new_int (const char *name,
                            gint64      minimum,
                            gint64      maximum,
                            gint64      default_value,
                            const char *doc)
{
  AnotMethodOption *self;

  g_return_val_if_fail (minimum <= default_value && default_value <= maximum, NULL);

  self = option_new (name, ANOT_METHOD_OPTION_INT, doc);
  if (self == NULL)
    return NULL;
  self->minimum = (double) minimum;
  self->maximum = (double) maximum;
  self->default_text = g_strdup_printf ("%" G_GINT64_FORMAT, default_value);
  return self;
}

/**
 * anot_method_option_new_double:
 * @name: the key
 * @minimum: the smallest valid value
 * @maximum: the largest valid value
 * @default_value: the value when nothing sets it
 * @doc: (nullable): one line saying what it changes
 *
 * Returns: (transfer full): an option taking a number
 */
AnotMethodOption *
anot_method_option_new_double (const char *name,
                               double      minimum,
                               double      maximum,
                               double      default_value,
                               const char *doc)
{
  AnotMethodOption *self;
  char buffer[G_ASCII_DTOSTR_BUF_SIZE];

  g_return_val_if_fail (minimum <= default_value && default_value <= maximum, NULL);

  self = option_new (name, ANOT_METHOD_OPTION_DOUBLE, doc);
  if (self == NULL)
    return NULL;
  self->minimum = minimum;
  self->maximum = maximum;
  /* The shortest text that reads back as the same number (0.9, not
   * 0.90000000000000002). */
  g_ascii_formatd (buffer, sizeof buffer, "%.15g", default_value);
  if (g_ascii_strtod (buffer, NULL) != default_value)
    g_ascii_formatd (buffer, sizeof buffer, "%.17g", default_value);
  self->default_text = g_strdup (buffer);
  return self;
}

/**
 * anot_method_option_new_boolean:
 * @name: the key
 * @default_value: the value when nothing sets it
 * @doc: (nullable): one line saying what it changes
 *
 * Returns: (transfer full): an option taking `true` or `false`
 */
AnotMethodOption *
anot_method_option_new_boolean (const char *name,
                                gboolean    default_value,
                                const char *doc)
{
  AnotMethodOption *self = option_new (name, ANOT_METHOD_OPTION_BOOLEAN, doc);

  if (self == NULL)
    return NULL;
  self->default_text = g_strdup (default_value ? "true" : "false");
  return self;
}

/**
 * anot_method_option_new_choice:
 * @name: the key
 * @choices: (array zero-terminated=1): the valid words
 * @default_index: the index in @choices of the default
 * @doc: (nullable): one line saying what it changes
 *
 * Returns: (transfer full): an option taking one of @choices (compared
 *   without regard to ASCII case)
 */
AnotMethodOption *
anot_method_option_new_choice (const char         *name,
                               const char * const *choices,
                               guint               default_index,
                               const char         *doc)
{
  AnotMethodOption *self;

  g_return_val_if_fail (choices != NULL && default_index < g_strv_length ((char **) choices), NULL);

  self = option_new (name, ANOT_METHOD_OPTION_CHOICE, doc);
  if (self == NULL)
    return NULL;
  self->choices = g_strdupv ((char **) choices);
  self->default_text = g_strdup (choices[default_index]);
  return self;
}

/**
 * anot_method_option_new_string:
 * @name: the key
 * @default_value: (nullable): the value when nothing sets it, or %NULL
 *   for none
 * @doc: (nullable): one line saying what it changes
 *
 * Returns: (transfer full): an option taking any text
 */
AnotMethodOption *
anot_method_option_new_string (const char *name,
                               const char *default_value,
                               const char *doc)
{
  AnotMethodOption *self = option_new (name, ANOT_METHOD_OPTION_STRING, doc);

  if (self == NULL)
    return NULL;
  self->default_text = g_strdup (default_value);
  return self;
}

/**
 * anot_method_option_get_name:
 * @self: an option
 *
 * Returns: the key, without the method's prefix
 */
const char *
anot_method_option_get_name (AnotMethodOption *self)
{
  g_return_val_if_fail (ANOT_IS_METHOD_OPTION (self), NULL);
  return self->name;
}

/**
 * anot_method_option_get_doc:
 * @self: an option
 *
 * Returns: its one line of documentation (maybe empty)
 */
const char *
anot_method_option_get_doc (AnotMethodOption *self)
{
  g_return_val_if_fail (ANOT_IS_METHOD_OPTION (self), NULL);
  return self->doc;
}

/**
 * anot_method_option_get_value_type:
 * @self: an option
 *
 * Returns: the kind of value it takes
 */
AnotMethodOptionType
anot_method_option_get_value_type (AnotMethodOption *self)
{
  g_return_val_if_fail (ANOT_IS_METHOD_OPTION (self), ANOT_METHOD_OPTION_STRING);
  return self->type;
}

/**
 * anot_method_option_get_minimum:
 * @self: an option
 *
 * Returns: the smallest valid value of a number option (0 otherwise)
 */
double
anot_method_option_get_minimum (AnotMethodOption *self)
{
  g_return_val_if_fail (ANOT_IS_METHOD_OPTION (self), 0);
  return self->minimum;
}

/**
 * anot_method_option_get_maximum:
 * @self: an option
 *
 * Returns: the largest valid value of a number option (0 otherwise)
 */
double
anot_method_option_get_maximum (AnotMethodOption *self)
{
  g_return_val_if_fail (ANOT_IS_METHOD_OPTION (self), 0);
  return self->maximum;
}

/**
 * anot_method_option_get_choices:
 * @self: an option
 *
 * Returns: (array zero-terminated=1) (nullable) (transfer none): the valid
 *   words of a choice, %NULL for other kinds
 */
const char * const *
anot_method_option_get_choices (AnotMethodOption *self)
{
  g_return_val_if_fail (ANOT_IS_METHOD_OPTION (self), NULL);
  return (const char * const *) self->choices;
}

/**
 * anot_method_option_get_default:
 * @self: an option
 *
 * Returns: (nullable): the default as text (`3`, `1.5`, `true`, a choice),
 *   or %NULL for a string option without one
 */
const char *
anot_method_option_get_default (AnotMethodOption *self)
{
  g_return_val_if_fail (ANOT_IS_METHOD_OPTION (self), NULL);
  return self->default_text;
}

/**
 * anot_method_option_get_original_default:
 * @self: an option
 *
 * Returns: (nullable): the default under `--compat original` (the
 *   original framework's value) when it differs from
 *   anot_method_option_get_default(), else %NULL
 */
const char *
anot_method_option_get_original_default (AnotMethodOption *self)
{
  g_return_val_if_fail (ANOT_IS_METHOD_OPTION (self), NULL);
  return self->original_default;
}

/**
 * anot_method_option_set_original_default:
 * @self: an option
 * @value: (nullable): the default under `--compat original` (as text, a
 *   valid value), or %NULL for the ordinary default
 *
 * Declares that like-for-like runs with the original framework
 * (%ANOT_COMPAT_MODE_ORIGINAL) start from another default: the method's
 * getters then return it when nothing sets the option, and `config.json`
 * records it with the source `default (--compat original)`.
 */
void
anot_method_option_set_original_default (AnotMethodOption *self,
                                         const char       *value)
{
  g_autoptr(JsonNode) parsed = NULL;

  g_return_if_fail (ANOT_IS_METHOD_OPTION (self));
  if (value != NULL)
    {
      parsed = anot_method_option_parse (self, value, NULL);
      g_return_if_fail (parsed != NULL);
    }
  g_free (self->original_default);
  self->original_default = g_strdup (value);
}

/**
 * anot_method_option_with_original_default: (skip)
 * @self: (transfer full): an option
 * @value: the default under `--compat original`
 *
 * anot_method_option_set_original_default(), returning @self: for the
 * list of anot_plugin_declare_method_options().
 *
 * Returns: (transfer full): @self
 */
AnotMethodOption *
anot_method_option_with_original_default (AnotMethodOption *self,
                                          const char       *value)
{
  anot_method_option_set_original_default (self, value);
  return self;
}

/**
 * anot_method_option_get_original_fixed:
 * @self: an option
 *
 * Returns: whether `--compat original` admits only the original's value
 *   (see anot_method_option_set_original_fixed())
 */
gboolean
anot_method_option_get_original_fixed (AnotMethodOption *self)
{
  g_return_val_if_fail (ANOT_IS_METHOD_OPTION (self), FALSE);
  return self->original_fixed;
}

/**
 * anot_method_option_set_original_fixed:
 * @self: an option
 * @fixed: whether `--compat original` admits only the original's value
 *
 * Declares that a like-for-like run with the original framework
 * (%ANOT_COMPAT_MODE_ORIGINAL) cannot take another value than the
 * original's (anot_method_option_get_original_default(), else the
 * ordinary default): ANoT-HEAD for `anot.variant`, one call over all N
 * for `listwise.window`.  Any other value set by `-O`, the environment or
 * `config.ini` is then a usage error before the run, naming the option
 * and the compat mode, rather than a run that silently ignores it while
 * `config.json` records it.
 */
void
anot_method_option_set_original_fixed (AnotMethodOption *self,
                                       gboolean          fixed)
{
  g_return_if_fail (ANOT_IS_METHOD_OPTION (self));
  self->original_fixed = !!fixed;
}

/**
 * anot_method_option_with_original_fixed: (skip)
 * @self: (transfer full): an option
 * @value: the one value `--compat original` admits
 *
 * anot_method_option_set_original_default() and
 * anot_method_option_set_original_fixed(), returning @self: for the list
 * of anot_plugin_declare_method_options().
 *
 * Returns: (transfer full): @self
 */
AnotMethodOption *
anot_method_option_with_original_fixed (AnotMethodOption *self,
                                        const char       *value)
{
  anot_method_option_set_original_default (self, value);
  anot_method_option_set_original_fixed (self, TRUE);
  return self;
}

/**
 * anot_method_option_set_applies_when:
 * @self: an option
 * @key: (nullable): another option of the same method, or %NULL for none
 * @value: (nullable): the value of @key under which @self is read
 *
 * Declares that the method reads @self only when its option @key has
 * @value (`anot.aggregate` only with `anot.variant=explore`).  A run in
 * which @key has another value refuses @self when something sets it (it
 * would do nothing), and `config.json` records it as not read, not with
 * a value the run did not use.
 */
void
anot_method_option_set_applies_when (AnotMethodOption *self,
                                     const char       *key,
                                     const char       *value)
{
  g_return_if_fail (ANOT_IS_METHOD_OPTION (self));
  g_return_if_fail ((key == NULL) == (value == NULL));

  g_free (self->applies_key);
  g_free (self->applies_value);
  self->applies_key = g_strdup (key);
  self->applies_value = g_strdup (value);
}

/**
 * anot_method_option_get_applies_key:
 * @self: an option
 *
 * Returns: (nullable): the option on which reading @self depends
 *   (anot_method_option_set_applies_when()), or %NULL
 */
const char *
anot_method_option_get_applies_key (AnotMethodOption *self)
{
  g_return_val_if_fail (ANOT_IS_METHOD_OPTION (self), NULL);
  return self->applies_key;
}

/**
 * anot_method_option_get_applies_value:
 * @self: an option
 *
 * Returns: (nullable): the value of anot_method_option_get_applies_key()
 *   under which @self is read, or %NULL
 */
const char *
anot_method_option_get_applies_value (AnotMethodOption *self)
{
  g_return_val_if_fail (ANOT_IS_METHOD_OPTION (self), NULL);
  return self->applies_value;
}

/**
 * anot_method_option_with_applies_when: (skip)
 * @self: (transfer full): an option
 * @key: another option of the same method
 * @value: the value of @key under which @self is read
 *
 * anot_method_option_set_applies_when(), returning @self: for the list
 * of anot_plugin_declare_method_options().
 *
 * Returns: (transfer full): @self
 */
AnotMethodOption *
anot_method_option_with_applies_when (AnotMethodOption *self,
                                      const char       *key,
                                      const char       *value)
{
  anot_method_option_set_applies_when (self, key, value);
  return self;
}

/**
 * anot_method_option_check_compat:
 * @self: an option
 * @compat: the run's compat mode
 * @text: (nullable): the value set, or %NULL when nothing sets it
 * @source: (nullable): where @text comes from (`method option
 *   listwise.window`, `environment ANOT_LISTWISE_WINDOW`, `PATH:LINE
 *   [method listwise]`)
 * @prefix: (nullable): the method's name, to write the option `METHOD.KEY`
 * @error: return location for a #GError
 *
 * Errors: %ANOT_ERROR_INVALID_ARGUMENT when @compat is
 * %ANOT_COMPAT_MODE_ORIGINAL, the option is fixed under it and @text is
 * another value than the original's.
 *
 * Returns: %TRUE when @text may be used under @compat
 */
gboolean
anot_method_option_check_compat (AnotMethodOption  *self,
                                 AnotCompatMode     compat,
                                 const char        *text,
                                 const char        *source,
                                 const char        *prefix,
                                 GError           **error)
{
  const char *fixed_text;
  g_autoptr(JsonNode) given = NULL;
  g_autoptr(JsonNode) fixed = NULL;

  g_return_val_if_fail (ANOT_IS_METHOD_OPTION (self), FALSE);

  if (compat != ANOT_COMPAT_MODE_ORIGINAL || !self->original_fixed || text == NULL)
    return TRUE;
  fixed_text = self->original_default != NULL ? self->original_default : self->default_text;
  given = anot_method_option_parse (self, text, NULL);
  fixed = anot_method_option_parse (self, fixed_text, NULL);
  /* An ill-typed value is the parser's error to report. */
  if (given == NULL || fixed == NULL || json_node_equal (given, fixed))
    return TRUE;
  g_set_error (error, ANOT_ERROR, ANOT_ERROR_INVALID_ARGUMENT,
               "%s%s%s=%s (from %s) contradicts --compat original, which runs it with %s%s%s=%s "
               "as the original did; drop the setting or run without --compat original",
               prefix ? prefix : "", prefix ? "." : "", self->name, text,
               source ? source : "its setting",
               prefix ? prefix : "", prefix ? "." : "", self->name, fixed_text);
  return FALSE;
}

static char *
format_bound (double value)
{
  char buffer[G_ASCII_DTOSTR_BUF_SIZE];

  if (value >= (double) G_MAXINT64 || value >= G_MAXDOUBLE)
    return g_strdup ("∞");
  if (value == floor (value) && fabs (value) < 1e15)
    return g_strdup_printf ("%.0f", value);
  return g_strdup (g_ascii_formatd (buffer, sizeof buffer, "%g", value));
}

/**
 * anot_method_option_describe_type:
 * @self: an option
 *
 * Returns: (transfer full): the values it takes in words, as usage errors
 *   and `anot-run --list` say them: `an integer from 1 to 32`, `one of
 *   ucb, greedy`, ...
 */
char *
anot_method_option_describe_type (AnotMethodOption *self)
{
  g_autofree char *low = NULL;
  g_autofree char *high = NULL;
  g_autofree char *list = NULL;

  g_return_val_if_fail (ANOT_IS_METHOD_OPTION (self), NULL);

  switch (self->type)
    {
    case ANOT_METHOD_OPTION_INT:
    case ANOT_METHOD_OPTION_DOUBLE:
      low = format_bound (self->minimum);
      high = format_bound (self->maximum);
      if (self->maximum >= (double) G_MAXINT64 || self->maximum >= G_MAXDOUBLE ||
          (self->type == ANOT_METHOD_OPTION_INT && self->maximum >= (double) G_MAXUINT))
        return g_strdup_printf ("%s ≥ %s", self->type == ANOT_METHOD_OPTION_INT ? "an integer" : "a number",
                                low);
      return g_strdup_printf ("%s from %s to %s",
                              self->type == ANOT_METHOD_OPTION_INT ? "an integer" : "a number",
                              low, high);
    case ANOT_METHOD_OPTION_BOOLEAN:
      return g_strdup ("true or false");
    case ANOT_METHOD_OPTION_CHOICE:
      list = g_strjoinv (", ", self->choices);
      return g_strdup_printf ("one of %s", list);
    case ANOT_METHOD_OPTION_STRING:
    default:
      return g_strdup ("text");
    }
}

/* The boolean words every getter accepts. */
static gboolean
parse_boolean (const char *text,
               gboolean   *out_value)
{
  if (g_ascii_strcasecmp (text, "true") == 0 || g_ascii_strcasecmp (text, "yes") == 0 ||
      strcmp (text, "1") == 0)
    *out_value = TRUE;
  else if (g_ascii_strcasecmp (text, "false") == 0 || g_ascii_strcasecmp (text, "no") == 0 ||
           strcmp (text, "0") == 0)
    *out_value = FALSE;
  else
    return FALSE;
  return TRUE;
}

/**
 * anot_method_option_parse:
 * @self: an option
 * @text: (nullable): the value as text, or %NULL for the default
 * @error: return location for a #GError
 *
 * Reads @text as @self takes it: an integer (`%ANOT_METHOD_OPTION_INT`,
 * base 10, in range), a finite number in range, a boolean word, one of
 * the choices (returned as the declared spelling) or any text.
 *
 * Errors: %ANOT_ERROR_INVALID_ARGUMENT when @text is not a valid value;
 * the message is `expected …, got “…”` for the caller to prefix with the
 * key and where the value came from.
 *
 * Returns: (transfer full) (nullable): the typed value (a JSON null for a
 *   string option without default and without @text)
 */
JsonNode *
anot_method_option_parse (AnotMethodOption  *self,
                          const char        *text,
                          GError           **error)
{
  g_return_val_if_fail (ANOT_IS_METHOD_OPTION (self), NULL);

  if (text == NULL)
    text = self->default_text;
  if (text == NULL)
    return json_node_init_null (json_node_alloc ());

  switch (self->type)
    {
    case ANOT_METHOD_OPTION_INT:
      {
        gint64 value;

        if (g_ascii_string_to_signed (text, 10, (gint64) self->minimum, (gint64) self->maximum,
                                      &value, NULL))
          return json_node_init_int (json_node_alloc (), value);
        break;
      }
    case ANOT_METHOD_OPTION_DOUBLE:
      {
        char *end = NULL;
        double value = g_ascii_strtod (text, &end);

        if (end != text && *end == '\0' && isfinite (value) &&
            value >= self->minimum && value <= self->maximum)
          return json_node_init_double (json_node_alloc (), value);
        break;
      }
    case ANOT_METHOD_OPTION_BOOLEAN:
      {
        gboolean value;

        if (parse_boolean (text, &value))
          return json_node_init_boolean (json_node_alloc (), value);
        break;
      }
    case ANOT_METHOD_OPTION_CHOICE:
      for (guint i = 0; self->choices[i] != NULL; i++)
        if (g_ascii_strcasecmp (text, self->choices[i]) == 0)
          return json_node_init_string (json_node_alloc (), self->choices[i]);
      break;
    case ANOT_METHOD_OPTION_STRING:
    default:
      return json_node_init_string (json_node_alloc (), text);
    }

  {
    g_autofree char *expected = anot_method_option_describe_type (self);

    g_set_error (error, ANOT_ERROR, ANOT_ERROR_INVALID_ARGUMENT,
                 "expected %s, got “%s”", expected, text);
  }
  return NULL;
}
