/* test-pyliteral.c: Python values, literals and the normalisation passes
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The expected strings below are what CPython 3 prints for the same
 * expressions; the tables of evidence.md §5 and §5.1 are reproduced case by
 * case.
 */
#include <math.h>
#include <string.h>

#include <anot/anot.h>
#include "anot-pyliteral-private.h"

/* B(A(raw)) of a raw attribute string, as the repr of the result. */
static char *
effective_repr (const char *raw)
{
  g_autoptr(AnotPyValue) v = anot_py_value_new_string (raw, -1);
  g_autoptr(AnotPyValue) a = anot_py_normalise_pass_a (v);
  g_autoptr(AnotPyValue) b = anot_py_normalise_pass_b (a);

  return anot_py_value_repr (b);
}

static char *
pass_a_repr (const char *raw)
{
  g_autoptr(AnotPyValue) v = anot_py_value_new_string (raw, -1);
  g_autoptr(AnotPyValue) a = anot_py_normalise_pass_a (v);

  return anot_py_value_repr (a);
}

static char *
pass_b_repr (const char *raw)
{
  g_autoptr(AnotPyValue) v = anot_py_value_new_string (raw, -1);
  g_autoptr(AnotPyValue) b = anot_py_normalise_pass_b (v);

  return anot_py_value_repr (b);
}

static char *
literal_repr (const char *text)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(AnotPyValue) v = anot_py_literal_parse (text, -1, &error);

  if (v == NULL)
    {
      g_assert_error (error, ANOT_ERROR, ANOT_ERROR_PARSE);
      return NULL;
    }
  g_assert_no_error (error);
  return anot_py_value_repr (v);
}

#define assert_repr(func, input, expected) \
  G_STMT_START { \
    g_autofree char *_got = func (input); \
    g_assert_cmpstr (_got, ==, expected); \
  } G_STMT_END

/* evidence.md §5, the table "Results for the raw values in this dataset". */
static void
test_effective_table (void)
{
  assert_repr (effective_repr, "True", "True");
  assert_repr (effective_repr, "False", "False");
  assert_repr (effective_repr, "None", "None");
  assert_repr (effective_repr, "u'free'", "'free'");
  assert_repr (effective_repr, "'free'", "'free'");
  assert_repr (effective_repr, "u'full_bar'", "'full_bar'");
  assert_repr (effective_repr, "'beer_and_wine'", "'beer_and_wine'");
  assert_repr (effective_repr, "u'quiet'", "'quiet'");
  /* The quirk R100 depends on. */
  assert_repr (effective_repr, "u'none'", "None");
  assert_repr (effective_repr, "'none'", "'none'");
  /* Numbers stay strings. */
  assert_repr (effective_repr, "1", "'1'");
  assert_repr (effective_repr, "3", "'3'");
  /* Dicts: key order kept, u'' keys lose the u, values True/False/None. */
  assert_repr (effective_repr,
               "{'garage': False, 'street': True, 'validated': False, 'lot': False, 'valet': False}",
               "{'garage': False, 'street': True, 'validated': False, 'lot': False, 'valet': False}");
  assert_repr (effective_repr,
               "{u'divey': False, 'romantic': None, u'touristy': True}",
               "{'divey': False, 'romantic': None, 'touristy': True}");
  /* Hours pass B unchanged. */
  assert_repr (effective_repr, "8:0-15:0", "'8:0-15:0'");
}

static void
test_pass_a (void)
{
  /* Step 1, on the stripped text. */
  assert_repr (pass_a_repr, "  True \n", "True");
  assert_repr (pass_a_repr, " None", "None");
  assert_repr (pass_a_repr, "none", "'none'");
  /* Step 2: prefix and suffix, inner text not checked. */
  assert_repr (pass_a_repr, " u'free' ", "'free'");
  assert_repr (pass_a_repr, "u\"loud\"", "'loud'");
  assert_repr (pass_a_repr, "u'", "''");
  assert_repr (pass_a_repr, "u'a\"", "'u\\'a\"'");
  /* Plain quotes are left to pass B. */
  assert_repr (pass_a_repr, "'none'", "\"'none'\"");
  /* Step 3: only dicts and lists. */
  assert_repr (pass_a_repr, " [1, 'a'] ", "[1, 'a']");
  assert_repr (pass_a_repr, "{}", "{}");
  assert_repr (pass_a_repr, "{'a': 1", "\"{'a': 1\"");
  assert_repr (pass_a_repr, "{1, 2}", "'{1, 2}'");
  /* Step 4: the original, untrimmed string. */
  assert_repr (pass_a_repr, "  'x' ", "\"  'x' \"");
  assert_repr (pass_a_repr, " [1, 2", "' [1, 2'");

  /* Non-strings pass through. */
  {
    g_autoptr(AnotPyValue) v = anot_py_value_new_int (3);
    g_autoptr(AnotPyValue) a = anot_py_normalise_pass_a (v);

    g_assert_true (a == v);
  }
}

static void
test_pass_b (void)
{
  assert_repr (pass_b_repr, "True", "True");
  assert_repr (pass_b_repr, " True", "' True'");
  assert_repr (pass_b_repr, "NONE", "None");
  assert_repr (pass_b_repr, "'none'", "'none'");
  assert_repr (pass_b_repr, "u'no'", "'no'");
  /* Quotes need not match; at least one inner character. */
  assert_repr (pass_b_repr, "\"mixed'", "'mixed'");
  assert_repr (pass_b_repr, "''", "\"''\"");
  assert_repr (pass_b_repr, "'''", "\"'\"");
  assert_repr (pass_b_repr, "'", "\"'\"");
  /* `$` matches before a final newline; `.` does not match one. */
  assert_repr (pass_b_repr, "'x'\n", "'x'");
  assert_repr (pass_b_repr, "'a\nb'", "\"'a\\nb'\"");
  /* Literals: any result type, failures keep the string. */
  assert_repr (pass_b_repr, "[True, None]", "[True, None]");
  assert_repr (pass_b_repr, "{'a': (1,)}", "{'a': (1,)}");
  assert_repr (pass_b_repr, "[1, 2", "'[1, 2'");
  assert_repr (pass_b_repr, "x[1]", "'x[1]'");
  assert_repr (pass_b_repr, "8:0-15:0", "'8:0-15:0'");
}

static void
test_pass_b_cached (void)
{
  g_autoptr(AnotPyValue) plain = anot_py_value_new_string ("free", -1);
  g_autoptr(AnotPyValue) quoted = anot_py_value_new_string ("'none'", -1);
  g_autoptr(AnotPyValue) none = anot_py_value_new_string ("None", -1);
  AnotPyValue *b;

  /* Identity results are the value itself. */
  g_assert_true (anot_py_value_get_pass_b (plain) == plain);
  b = anot_py_value_get_pass_b (quoted);
  g_assert_cmpint (anot_py_value_get_kind (b), ==, ANOT_PY_STR);
  g_assert_cmpstr (anot_py_value_get_string (b), ==, "none");
  g_assert_true (anot_py_value_get_pass_b (quoted) == b);
  g_assert_cmpint (anot_py_value_get_kind (anot_py_value_get_pass_b (none)), ==, ANOT_PY_NONE);
}

/* evidence.md §5.1: the canonical text contains/not_contains look at. */
static void
test_canonical_text (void)
{
  g_autoptr(AnotPyValue) none = anot_py_value_new_none ();
  g_autoptr(AnotPyValue) t = anot_py_value_new_bool (TRUE);
  g_autoptr(AnotPyValue) s = anot_py_value_new_string ("Full_Bar", -1);
  g_autoptr(AnotPyValue) dict = anot_py_literal_parse ("{'Romantic': False, u'casual': True, 'x': None}", -1, NULL);
  g_autoptr(AnotPyValue) cats = anot_py_value_new_list ();
  g_autoptr(AnotPyValue) quotes = anot_py_value_new_list ();

  g_assert_cmpstr (anot_py_value_get_lower_str (none), ==, "none");
  g_assert_cmpstr (anot_py_value_get_lower_str (t), ==, "true");
  g_assert_cmpstr (anot_py_value_get_lower_str (s), ==, "full_bar");
  /* Cached: the same pointer twice. */
  g_assert_true (anot_py_value_get_lower_str (s) == anot_py_value_get_lower_str (s));
  g_assert_cmpstr (anot_py_value_get_lower_str (dict), ==,
                   "{'romantic': false, 'casual': true, 'x': none}");
  {
    g_autofree char *str = anot_py_value_str (dict);

    g_assert_cmpstr (str, ==, "{'Romantic': False, 'casual': True, 'x': None}");
  }

  anot_py_value_append (cats, anot_py_value_new_string ("Coffee & Tea", -1));
  anot_py_value_append (cats, anot_py_value_new_string ("Tapas Bars", -1));
  g_assert_cmpstr (anot_py_value_get_lower_str (cats), ==, "['coffee & tea', 'tapas bars']");

  /* repr picks double quotes for a string with ' and no ". */
  anot_py_value_append (quotes, anot_py_value_new_string ("it's", -1));
  anot_py_value_append (quotes, anot_py_value_new_string ("a'b\"c", -1));
  anot_py_value_append (quotes, anot_py_value_new_string ("tab\there\\\x01", -1));
  anot_py_value_append (quotes, anot_py_value_new_string ("caf\xc3\xa9\xc2\xa0!", -1));
  {
    g_autofree char *str = anot_py_value_str (quotes);

    g_assert_cmpstr (str, ==, "[\"it's\", 'a\\'b\"c', 'tab\\there\\\\\\x01', 'caf\xc3\xa9\\xa0!']");
  }
}

static void
test_float_repr (void)
{
  static const struct {
    double value;
    const char *repr;
  } cases[] = {
    { 4.0, "4.0" },
    { 2.5, "2.5" },
    { 0.1, "0.1" },
    { -0.0, "-0.0" },
    { 0.0, "0.0" },
    { 1e16, "1e+16" },
    { 1e15, "1000000000000000.0" },
    { 1e-5, "1e-05" },
    { 0.0001, "0.0001" },
    { 1.5e-7, "1.5e-07" },
    { 123456789012345678.0, "1.2345678901234568e+17" },
    { 39.9699745, "39.9699745" },
    { -75.1302068, "-75.1302068" },
    { 1.0 / 3.0, "0.3333333333333333" },
    { 1e100, "1e+100" },
    { 2.857142857142857, "2.857142857142857" },
  };

  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(AnotPyValue) v = anot_py_value_new_float (cases[i].value);
      g_autofree char *str = anot_py_value_str (v);

      g_assert_cmpstr (str, ==, cases[i].repr);
    }

  {
    g_autoptr(AnotPyValue) inf = anot_py_value_new_float (-INFINITY);
    g_autoptr(AnotPyValue) nan = anot_py_value_new_float (NAN);
    g_autofree char *s1 = anot_py_value_str (inf);
    g_autofree char *s2 = anot_py_value_str (nan);

    g_assert_cmpstr (s1, ==, "-inf");
    g_assert_cmpstr (s2, ==, "nan");
  }
}

static void
test_literal_parse (void)
{
  /* Strings: prefixes, escapes, concatenation, triple quotes. */
  assert_repr (literal_repr, "['\\x41\\u00e9\\n\\101\\q', r'\\n', 'a' \"b\" u'c', '''x'y''']",
               "['A\xc3\xa9\\n" "A\\\\q', '\\\\n', 'abc', \"x'y\"]");
  assert_repr (literal_repr, "[U'x', R'\\'']", "['x', \"\\\\'\"]");
  /* Numbers. */
  assert_repr (literal_repr, "[1_000, 0x1F, 0o17, 0b101, -1.5e3, +2, .5, 5., 00, 1E2]",
               "[1000, 31, 15, 5, -1500.0, 2, 0.5, 5.0, 0, 100.0]");
  assert_repr (literal_repr, "[99999999999999999999999, -99999999999999999999999]",
               "[99999999999999999999999, -99999999999999999999999]");
  /* Containers, trailing commas, comments and newlines inside brackets. */
  assert_repr (literal_repr, "{'a': [1, (2,), (3), ()], 'b': {},\n # note\n 'c': None,}",
               "{'a': [1, (2,), 3, ()], 'b': {}, 'c': None}");
  assert_repr (literal_repr, "(1, 2)", "(1, 2)");
  /* A top-level comma makes a tuple; a newline ends the expression. */
  assert_repr (literal_repr, "{}, 1", "({}, 1)");
  assert_repr (literal_repr, "{},\n", "({},)");
  assert_repr (literal_repr, "[1] # note\n\n", "[1]");
  assert_repr (literal_repr, "[1,\n 2]", "[1, 2]");
  /* Duplicate keys: last value, first position; 1 and True are equal. */
  assert_repr (literal_repr, "{'a': 1, 'b': 2, 'a': 3}", "{'a': 3, 'b': 2}");
  assert_repr (literal_repr, "{1: 'x', True: 'y', 1.0: 'z'}", "{1: 'z'}");

  /* What ast.literal_eval rejects. */
  static const char *const bad[] = {
    "{'a': }", "[1,,2]", "{'a': x}", "[-True]", "[--1]", "[1j]", "[b'x']",
    "['\\N{DASH}']", "[01]", "[1__0]", "[1_]", "[1abc]", "{[1]: 2}", "{1, 2}",
    "['abc]", "['a\nb']", "[1] [2]", "", "   ", "[f'x']", "['\\x0']", "['\\x00']",
    "{**a}", "[1 2]", "[1]\n,2", "[1]\n[2]", "{},\n2",
  };
  for (gsize i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      g_autofree char *got = literal_repr (bad[i]);

      if (got != NULL)
        g_error ("“%s” parsed as %s", bad[i], got);
    }

  /* Deep nesting fails cleanly instead of overflowing the stack. */
  {
    g_autoptr(GString) deep = g_string_new (NULL);
    g_autofree char *got = NULL;

    for (int i = 0; i < 100000; i++)
      g_string_append_c (deep, '[');
    got = literal_repr (deep->str);
    g_assert_null (got);
  }
}

static void
test_equality (void)
{
  g_autoptr(AnotPyValue) t = anot_py_value_new_bool (TRUE);
  g_autoptr(AnotPyValue) one = anot_py_value_new_int (1);
  g_autoptr(AnotPyValue) onef = anot_py_value_new_float (1.0);
  g_autoptr(AnotPyValue) halff = anot_py_value_new_float (1.5);
  g_autoptr(AnotPyValue) s1 = anot_py_value_new_string ("1", -1);
  g_autoptr(AnotPyValue) list = anot_py_literal_parse ("[1]", -1, NULL);
  g_autoptr(AnotPyValue) tuple = anot_py_literal_parse ("(1,)", -1, NULL);
  g_autoptr(AnotPyValue) d1 = anot_py_literal_parse ("{'a': 1, 'b': [True]}", -1, NULL);
  g_autoptr(AnotPyValue) d2 = anot_py_literal_parse ("{'b': [1], 'a': 1.0}", -1, NULL);
  g_autoptr(AnotPyValue) d3 = anot_py_literal_parse ("{'b': [1], 'a': 2}", -1, NULL);
  g_autoptr(AnotPyValue) none = anot_py_value_new_none ();

  g_assert_true (anot_py_value_equal (t, one));
  g_assert_true (anot_py_value_equal (one, onef));
  g_assert_false (anot_py_value_equal (onef, halff));
  g_assert_false (anot_py_value_equal (s1, one));
  g_assert_false (anot_py_value_equal (list, tuple));
  g_assert_true (anot_py_value_equal (d1, d2));
  g_assert_false (anot_py_value_equal (d1, d3));
  g_assert_true (anot_py_value_equal (none, NULL));
  g_assert_false (anot_py_value_equal (none, s1));

  g_assert_false (anot_py_value_truthy (NULL));
  g_assert_false (anot_py_value_truthy (none));
  g_assert_true (anot_py_value_truthy (t));
  g_assert_true (anot_py_value_truthy (d3));
  {
    g_autoptr(AnotPyValue) empty = anot_py_value_new_dict ();
    g_autoptr(AnotPyValue) zero = anot_py_value_new_float (0.0);
    g_autoptr(AnotPyValue) empty_str = anot_py_value_new_string ("", 0);

    g_assert_false (anot_py_value_truthy (empty));
    g_assert_false (anot_py_value_truthy (zero));
    g_assert_false (anot_py_value_truthy (empty_str));
  }
}

static void
test_json (void)
{
  g_autoptr(JsonNode) node = json_from_string ("{\"a\": [1, 2.0, true, null, \"x\"], \"b\": {\"c\": 4.5}}", NULL);
  g_autoptr(AnotPyValue) v = anot_py_value_new_from_json (node);
  g_autofree char *str = anot_py_value_str (v);

  g_assert_cmpstr (str, ==, "{'a': [1, 2.0, True, None, 'x'], 'b': {'c': 4.5}}");
  g_assert_nonnull (anot_py_value_dict_lookup_string (v, "b"));
  g_assert_null (anot_py_value_dict_lookup_string (v, "c"));
}

static void
test_large_dict_index (void)
{
  g_autoptr(AnotPyValue) dict = anot_py_value_new_dict ();
  g_autoptr(AnotPyValue) key = anot_py_value_new_string ("k17", -1);

  for (int i = 0; i < 40; i++)
    {
      char name[16];

      g_snprintf (name, sizeof name, "k%d", i);
      anot_py_value_dict_set (dict, anot_py_value_new_string (name, -1), anot_py_value_new_int (i));
    }
  /* Overwrite through the index. */
  anot_py_value_dict_set (dict, anot_py_value_new_string ("k3", -1), anot_py_value_new_int (-3));
  anot_py_value_dict_set (dict, anot_py_value_new_int (5), anot_py_value_new_int (55));

  g_assert_cmpuint (anot_py_value_get_length (dict), ==, 41);
  g_assert_cmpint (anot_py_value_get_int (anot_py_value_dict_lookup_string (dict, "k3")), ==, -3);
  g_assert_cmpint (anot_py_value_get_int (anot_py_value_dict_lookup (dict, key)), ==, 17);
  g_assert_cmpstr (anot_py_value_get_string (anot_py_value_dict_get_key (dict, 3)), ==, "k3");
  {
    g_autoptr(AnotPyValue) five = anot_py_value_new_float (5.0);

    g_assert_cmpint (anot_py_value_get_int (anot_py_value_dict_lookup (dict, five)), ==, 55);
  }
}

static void
test_str_helpers (void)
{
  g_autofree char *a = anot_py_strip ("\xc2\xa0 x y\t\xe3\x80\x80", strlen ("\xc2\xa0 x y\t\xe3\x80\x80"));
  g_autofree char *b = anot_py_strip ("\x1c\x1fz\xe2\x80\x8b", strlen ("\x1c\x1fz\xe2\x80\x8b"));
  g_autofree char *c = anot_py_lower ("\xc3\x89" "COLE Wine BAR");
  double d;

  g_assert_cmpstr (a, ==, "x y");
  /* U+200B is not whitespace for str.strip(). */
  g_assert_cmpstr (b, ==, "z\xe2\x80\x8b");
  g_assert_cmpstr (c, ==, "\xc3\xa9" "cole wine bar");

  g_assert_true (anot_py_parse_int (" 08 ", &d));
  g_assert_cmpfloat (d, ==, 8);
  g_assert_true (anot_py_parse_int ("+1_0", &d));
  g_assert_cmpfloat (d, ==, 10);
  g_assert_true (anot_py_parse_int ("\xd9\xa3", &d));  /* ARABIC-INDIC DIGIT THREE */
  g_assert_cmpfloat (d, ==, 3);
  g_assert_false (anot_py_parse_int ("1__0", NULL));
  g_assert_false (anot_py_parse_int ("_1", NULL));
  g_assert_false (anot_py_parse_int ("", NULL));
  g_assert_false (anot_py_parse_int ("7a", NULL));
  g_assert_false (anot_py_parse_int ("1.0", NULL));

  g_assert_true (anot_py_parse_float (" 3.5\n", &d));
  g_assert_cmpfloat (d, ==, 3.5);
  g_assert_true (anot_py_parse_float ("1_0.5", &d));
  g_assert_cmpfloat (d, ==, 10.5);
  g_assert_true (anot_py_parse_float ("-1e3", &d));
  g_assert_cmpfloat (d, ==, -1000);
  g_assert_true (anot_py_parse_float ("-Infinity", &d));
  g_assert_true (isinf (d) && d < 0);
  g_assert_false (anot_py_parse_float ("2020-01-01", NULL));
  g_assert_false (anot_py_parse_float ("0x10", NULL));
  g_assert_false (anot_py_parse_float (".", NULL));
  g_assert_false (anot_py_parse_float ("1e", NULL));
}

/* float repr: the fast path for few decimals and the general one agree with
 * CPython's repr() (values printed by CPython 3.11). */
static void
test_float_repr_decimals (void)
{
  static const struct { double x; const char *repr; } cases[] = {
    { 4.0, "4.0" }, { 3.77, "3.77" }, { 0.1, "0.1" }, { 2.675, "2.675" },
    { 1e15, "1000000000000000.0" }, { 1e16, "1e+16" }, { 123456.789, "123456.789" },
    { -0.0, "-0.0" }, { 0.0, "0.0" }, { 0.001, "0.001" }, { 0.0001, "0.0001" },
    { 1e-05, "1e-05" }, { 0.3, "0.3" }, { 1.0 / 3, "0.3333333333333333" }, { 4.5, "4.5" },
    { 0.5, "0.5" }, { 1.005, "1.005" }, { 99999999999999.99, "99999999999999.98" },
    { -2.25, "-2.25" }, { 5e-324, "5e-324" }, { 1.7976931348623157e308, "1.7976931348623157e+308" },
    { 0.07, "0.07" }, { 1234.5678, "1234.5678" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(GString) out = g_string_new (NULL);

      anot_py_append_float_repr (out, cases[i].x);
      g_assert_cmpstr (out->str, ==, cases[i].repr);
    }
}

/* The digits of a repr: its mantissa's digits without leading or trailing
 * zeros, and the exponent of its first digit. */
static void
repr_digits (const char *repr,
             char       *digits,
             int        *exp10)
{
  const char *p = repr;
  const char *e = strchr (repr, 'e');
  int n = 0, point = -1, first = -1, pos = 0;

  if (*p == '-')
    p++;
  for (; *p != '\0' && *p != 'e'; p++)
    {
      if (*p == '.')
        {
          point = pos;
          continue;
        }
      if (first < 0 && *p != '0')
        first = pos;
      if (first >= 0)
        digits[n++] = *p;
      pos++;
    }
  if (point < 0)
    point = pos;
  while (n > 1 && digits[n - 1] == '0')
    n--;
  digits[n] = '\0';
  *exp10 = (first >= 0 ? point - first - 1 : 0) + (e != NULL ? atoi (e + 1) : 0);
}

/* float repr of any double: reads back as the same double, and its digits
 * are the shortest that do, correctly rounded (what CPython's repr()
 * prints), whichever way they were found.  Random bit patterns (normal and
 * subnormal numbers) and random decimals of 1 to 17 digits. */
static void
test_float_repr_shortest (void)
{
  g_autoptr(GRand) rand = g_rand_new_with_seed (27);

  for (guint i = 0; i < 60000; i++)
    {
      g_autoptr(GString) out = g_string_new (NULL);
      char digits[32], rounded[64], shorter[64];
      int exp10;
      double x;
      gsize n;

      if (i % 2 == 0)
        {
          guint64 bits = ((guint64) g_rand_int (rand) << 32) | g_rand_int (rand);

          memcpy (&x, &bits, sizeof x);
          if (isnan (x) || isinf (x))
            continue;
        }
      else
        {
          char text[64];
          int nd = g_rand_int_range (rand, 1, 18);
          gint64 mantissa = 0;

          for (int d = 0; d < nd; d++)
            mantissa = mantissa * 10 + g_rand_int_range (rand, d == 0 ? 1 : 0, 10);
          g_snprintf (text, sizeof text, "%" G_GINT64_FORMAT "e%d", mantissa, g_rand_int_range (rand, -330, 300));
          x = g_ascii_strtod (text, NULL);
          if (x == 0 || isinf (x))
            continue;
        }

      anot_py_append_float_repr (out, x);
      g_assert_cmpfloat (g_ascii_strtod (out->str, NULL), ==, x);
      repr_digits (out->str, digits, &exp10);
      n = strlen (digits);
      /* The correctly rounded n digits... */
      {
        char fmt[16], got[32];
        int got_exp;

        g_snprintf (fmt, sizeof fmt, "%%.%de", (int) n - 1);
        g_ascii_formatd (rounded, sizeof rounded, fmt, x);
        repr_digits (rounded, got, &got_exp);
        if (g_strcmp0 (got, digits) != 0 || got_exp != exp10)
          g_error ("%.17g: repr %s, %zu digits correctly rounded %s", x, out->str, n, rounded);
      }
      /* ... and no fewer read back. */
      if (n > 1)
        {
          char fmt[16];

          g_snprintf (fmt, sizeof fmt, "%%.%de", (int) n - 2);
          g_ascii_formatd (shorter, sizeof shorter, fmt, x);
          if (g_ascii_strtod (shorter, NULL) == x)
            g_error ("%.17g: repr %s, but %s reads back too", x, out->str, shorter);
        }
    }
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);

  g_test_add_func ("/pyliteral/effective-table", test_effective_table);
  g_test_add_func ("/pyliteral/pass-a", test_pass_a);
  g_test_add_func ("/pyliteral/pass-b", test_pass_b);
  g_test_add_func ("/pyliteral/pass-b-cached", test_pass_b_cached);
  g_test_add_func ("/pyliteral/canonical-text", test_canonical_text);
  g_test_add_func ("/pyliteral/float-repr", test_float_repr);
  g_test_add_func ("/pyliteral/literal-parse", test_literal_parse);
  g_test_add_func ("/pyliteral/equality", test_equality);
  g_test_add_func ("/pyliteral/json", test_json);
  g_test_add_func ("/pyliteral/large-dict-index", test_large_dict_index);
  g_test_add_func ("/pyliteral/str-helpers", test_str_helpers);
  g_test_add_func ("/pyliteral/float-repr-decimals", test_float_repr_decimals);
  g_test_add_func ("/pyliteral/float-repr-shortest", test_float_repr_shortest);

  return g_test_run ();
}
