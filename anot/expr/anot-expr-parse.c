/* anot-expr-parse.c: tokenizer and parser of the AnotExpr language
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * A recursive-descent parser for the expression grammar of Python 3
 * (https://docs.python.org/3/reference/expressions.html), minus what the
 * language leaves out on purpose: lambda, assignment expressions, starred
 * arguments, f-strings, bytes, complex numbers, set displays, bitwise
 * operators, await and yield.  Those are refused with a message that names
 * them, rather than a bare "invalid syntax", because the author of a
 * formula is usually an LLM that is told what went wrong.
 *
 * Names starting with two underscores are refused outright: every known
 * escape from a Python sandbox walks dunder attributes (__class__,
 * __globals__, __builtins__, __import__).
 */
#include "config.h"

#define ANOT_EXPR_IMPLEMENTATION

#include "anot-expr-private.h"

#include <math.h>
#include <string.h>

#include "anot-error.h"

typedef enum {
  TOK_END,
  TOK_NEWLINE,
  TOK_NAME,
  TOK_INT,
  TOK_FLOAT,
  TOK_STRING,
  TOK_OP,
} TokKind;

typedef struct {
  TokKind kind;
  guint offset;
  guint end;
  char op[4];             /* TOK_OP */
  const char *name;       /* TOK_NAME: interned in the parser's allocs */
  gint64 i;               /* TOK_INT */
  double f;               /* TOK_FLOAT */
  GString *str;           /* TOK_STRING: decoded, owned by the parser */
} Token;

typedef struct {
  const char *source;
  gsize len;
  gsize pos;
  guint paren_depth;
  Token tok;              /* the current token */
  gboolean have_tok;
  GPtrArray *allocs;
  GHashTable *names;      /* interned identifiers: char * -> same */
  guint *n_slots;
  guint nesting;
  AnotExprFailure *failure;
  gboolean failed;
} Parser;

static gboolean G_GNUC_PRINTF (4, 5)
fail (Parser     *p,
      AnotError   code,
      guint       offset,
      const char *format,
      ...)
{
  va_list args;
  g_autofree char *message = NULL;

  if (p->failed)
    return FALSE;
  p->failed = TRUE;

  va_start (args, format);
  message = g_strdup_vprintf (format, args);
  va_end (args);

  p->failure->code = code;
  p->failure->offset = offset;
  p->failure->message = g_strdup_printf ("%s: %s",
                                         code == ANOT_ERROR_EXPR_SYNTAX ? "SyntaxError" :
                                         code == ANOT_ERROR_EXPR_FORBIDDEN ? "Forbidden" :
                                         code == ANOT_ERROR_EXPR_OVERFLOW ? "OverflowError" :
                                         "LimitError",
                                         message);
  return FALSE;
}

static gpointer
palloc (Parser *p,
        gsize   size)
{
  gpointer mem = g_malloc0 (size);

  g_ptr_array_add (p->allocs, mem);
  return mem;
}

static const char *
intern (Parser     *p,
        const char *str,
        gsize       len)
{
  g_autofree char *key = g_strndup (str, len);
  char *interned = g_hash_table_lookup (p->names, key);

  if (interned == NULL)
    {
      interned = g_steal_pointer (&key);
      g_ptr_array_add (p->allocs, interned);
      g_hash_table_add (p->names, interned);
    }
  return interned;
}

/* ------------------------------------------------------------------------ *
 * Tokenizer
 * ------------------------------------------------------------------------ */

static const char * const keywords[] = {
  "False", "None", "True", "and", "as", "assert", "async", "await", "break",
  "class", "continue", "def", "del", "elif", "else", "except", "finally",
  "for", "from", "global", "if", "import", "in", "is", "lambda", "nonlocal",
  "not", "or", "pass", "raise", "return", "try", "while", "with", "yield",
  NULL
};

static gboolean
is_keyword (const char *name)
{
  return g_strv_contains (keywords, name);
}

static gboolean
is_dunder (const char *name)
{
  return name[0] == '_' && name[1] == '_';
}

static int
hex_value (char c)
{
  if (c >= '0' && c <= '9')
    return c - '0';
  if (c >= 'a' && c <= 'f')
    return c - 'a' + 10;
  if (c >= 'A' && c <= 'F')
    return c - 'A' + 10;
  return -1;
}

static gboolean
lex_number (Parser *p,
            Token  *t)
{
  const char *s = p->source;
  gsize start = p->pos;
  gsize i = start;
  gboolean is_float = FALSE;
  g_autoptr(GString) clean = g_string_new (NULL);

  if (s[i] == '0' && (s[i + 1] == 'x' || s[i + 1] == 'X' || s[i + 1] == 'o' ||
                      s[i + 1] == 'O' || s[i + 1] == 'b' || s[i + 1] == 'B'))
    {
      char kind = g_ascii_tolower (s[i + 1]);
      int base = kind == 'x' ? 16 : kind == 'o' ? 8 : 2;
      guint64 value = 0;
      gsize n_digits = 0;

      i += 2;
      for (;; i++)
        {
          int d;

          if (s[i] == '_' && n_digits > 0 && hex_value (s[i + 1]) >= 0)
            continue;
          d = hex_value (s[i]);
          if (d < 0 || d >= base)
            break;
          if (value > (G_MAXUINT64 - d) / base)
            return fail (p, ANOT_ERROR_EXPR_OVERFLOW, start,
                         "integer literal does not fit in 64 bits");
          value = value * base + d;
          n_digits++;
        }
      if (n_digits == 0 || g_ascii_isalnum (s[i]) || s[i] == '_')
        return fail (p, ANOT_ERROR_EXPR_SYNTAX, start, "invalid %s literal",
                     base == 16 ? "hexadecimal" : base == 8 ? "octal" : "binary");
      if (value > G_MAXINT64)
        return fail (p, ANOT_ERROR_EXPR_OVERFLOW, start,
                     "integer literal does not fit in 64 bits");
      t->kind = TOK_INT;
      t->i = (gint64) value;
      p->pos = i;
      return TRUE;
    }

  /* [digits][.digits][e[sign]digits], underscores between digits. */
  while (g_ascii_isdigit (s[i]) || (s[i] == '_' && g_ascii_isdigit (s[i + 1]) && i > start))
    {
      if (s[i] != '_')
        g_string_append_c (clean, s[i]);
      i++;
    }
  if (s[i] == '.')
    {
      is_float = TRUE;
      g_string_append_c (clean, '.');
      i++;
      while (g_ascii_isdigit (s[i]) || (s[i] == '_' && g_ascii_isdigit (s[i + 1]) && g_ascii_isdigit (s[i - 1])))
        {
          if (s[i] != '_')
            g_string_append_c (clean, s[i]);
          i++;
        }
    }
  if ((s[i] == 'e' || s[i] == 'E') &&
      (g_ascii_isdigit (s[i + 1]) ||
       ((s[i + 1] == '+' || s[i + 1] == '-') && g_ascii_isdigit (s[i + 2]))))
    {
      is_float = TRUE;
      g_string_append_c (clean, 'e');
      i++;
      if (s[i] == '+' || s[i] == '-')
        g_string_append_c (clean, s[i++]);
      while (g_ascii_isdigit (s[i]) || (s[i] == '_' && g_ascii_isdigit (s[i + 1])))
        {
          if (s[i] != '_')
            g_string_append_c (clean, s[i]);
          i++;
        }
    }
  if (s[i] == 'j' || s[i] == 'J')
    return fail (p, ANOT_ERROR_EXPR_SYNTAX, start, "complex numbers are not supported");
  if (g_ascii_isalnum (s[i]) || s[i] == '_')
    return fail (p, ANOT_ERROR_EXPR_SYNTAX, start, "invalid decimal literal");

  p->pos = i;
  if (is_float)
    {
      t->kind = TOK_FLOAT;
      t->f = g_ascii_strtod (clean->str, NULL);
      return TRUE;
    }

  /* Python refuses leading zeros in a non-zero decimal integer. */
  if (clean->len > 1 && clean->str[0] == '0' && strspn (clean->str, "0") != clean->len)
    return fail (p, ANOT_ERROR_EXPR_SYNTAX, start,
                 "leading zeros in decimal integer literals are not permitted");

  {
    guint64 value = 0;

    for (gsize k = 0; k < clean->len; k++)
      {
        int d = clean->str[k] - '0';

        if (value > ((guint64) G_MAXINT64 - d) / 10)
          return fail (p, ANOT_ERROR_EXPR_OVERFLOW, start,
                       "integer literal does not fit in 64 bits");
        value = value * 10 + d;
      }
    t->kind = TOK_INT;
    t->i = (gint64) value;
  }
  return TRUE;
}

static gboolean
append_code_point (Parser  *p,
                   GString *out,
                   guint32  c,
                   guint    offset)
{
  if (c > 0x10FFFF)
    return fail (p, ANOT_ERROR_EXPR_SYNTAX, offset, "(unicode error) illegal Unicode character");
  if (c >= 0xD800 && c <= 0xDFFF)
    return fail (p, ANOT_ERROR_EXPR_SYNTAX, offset, "lone surrogates are not supported");
  g_string_append_unichar (out, c);
  return TRUE;
}

static gboolean
lex_string (Parser *p,
            Token  *t,
            gsize   prefix_len)
{
  const char *s = p->source;
  gsize start = p->pos;
  gsize i = start;
  gboolean raw = FALSE;
  char quote;
  gboolean triple;

  for (gsize k = 0; k < prefix_len; k++)
    {
      char c = g_ascii_tolower (s[i + k]);

      if (c == 'f')
        return fail (p, ANOT_ERROR_EXPR_SYNTAX, start, "f-strings are not supported");
      if (c == 'b')
        return fail (p, ANOT_ERROR_EXPR_SYNTAX, start, "bytes literals are not supported");
      if (c == 'r')
        raw = TRUE;
    }
  i += prefix_len;
  quote = s[i];
  triple = s[i + 1] == quote && s[i + 2] == quote;
  i += triple ? 3 : 1;

  if (t->str == NULL)
    t->str = g_string_new (NULL);
  g_string_truncate (t->str, 0);

  for (;;)
    {
      char c = s[i];

      if (i >= p->len)
        return fail (p, ANOT_ERROR_EXPR_SYNTAX, start,
                     triple ? "unterminated triple-quoted string literal"
                            : "unterminated string literal");
      if (c == quote && (!triple || (s[i + 1] == quote && s[i + 2] == quote)))
        {
          i += triple ? 3 : 1;
          break;
        }
      if (c == '\n' && !triple)
        return fail (p, ANOT_ERROR_EXPR_SYNTAX, start, "unterminated string literal");
      if (c != '\\')
        {
          g_string_append_c (t->str, c);
          i++;
          continue;
        }

      /* A backslash. */
      if (i + 1 >= p->len)
        return fail (p, ANOT_ERROR_EXPR_SYNTAX, start, "unterminated string literal");
      if (raw)
        {
          /* In a raw string a backslash still keeps the next character from
           * ending the string, and both stay. */
          g_string_append_c (t->str, '\\');
          g_string_append_c (t->str, s[i + 1]);
          i += 2;
          continue;
        }
      c = s[i + 1];
      i += 2;
      switch (c)
        {
        case '\n': break;
        case '\\': g_string_append_c (t->str, '\\'); break;
        case '\'': g_string_append_c (t->str, '\''); break;
        case '"': g_string_append_c (t->str, '"'); break;
        case 'a': g_string_append_c (t->str, '\a'); break;
        case 'b': g_string_append_c (t->str, '\b'); break;
        case 'f': g_string_append_c (t->str, '\f'); break;
        case 'n': g_string_append_c (t->str, '\n'); break;
        case 'r': g_string_append_c (t->str, '\r'); break;
        case 't': g_string_append_c (t->str, '\t'); break;
        case 'v': g_string_append_c (t->str, '\v'); break;
        case '0': case '1': case '2': case '3':
        case '4': case '5': case '6': case '7':
          {
            guint32 value = c - '0';

            for (int k = 0; k < 2 && s[i] >= '0' && s[i] <= '7'; k++)
              value = value * 8 + (s[i++] - '0');
            if (!append_code_point (p, t->str, value, i))
              return FALSE;
          }
          break;
        case 'x':
        case 'u':
        case 'U':
          {
            int n = c == 'x' ? 2 : c == 'u' ? 4 : 8;
            guint32 value = 0;

            for (int k = 0; k < n; k++)
              {
                int d = hex_value (s[i]);

                if (d < 0)
                  return fail (p, ANOT_ERROR_EXPR_SYNTAX, i,
                               "(unicode error) truncated \\%c escape", c);
                value = value * 16 + d;
                i++;
              }
            if (!append_code_point (p, t->str, value, i))
              return FALSE;
          }
          break;
        case 'N':
          return fail (p, ANOT_ERROR_EXPR_SYNTAX, i - 2, "\\N{...} escapes are not supported");
        default:
          /* Python keeps unknown escapes as they are (with a warning). */
          g_string_append_c (t->str, '\\');
          i--;
          break;
        }
    }

  t->kind = TOK_STRING;
  p->pos = i;
  return TRUE;
}

static gboolean
lex (Parser *p,
     Token  *t)
{
  const char *s = p->source;
  static const char * const three[] = { "**=", "//=", ">>=", "<<=", "...", NULL };
  static const char * const two[] = {
    "**", "//", "==", "!=", "<=", ">=", ":=", "->", "<<", ">>", "+=", "-=",
    "*=", "/=", "%=", "&=", "|=", "^=", "@=", "<>", NULL
  };

  for (;;)
    {
      char c = s[p->pos];

      if (c == ' ' || c == '\t' || c == '\f' || c == '\r')
        p->pos++;
      else if (c == '#')
        {
          while (p->pos < p->len && s[p->pos] != '\n')
            p->pos++;
        }
      else if (c == '\\' && (s[p->pos + 1] == '\n' ||
                             (s[p->pos + 1] == '\r' && s[p->pos + 2] == '\n')))
        p->pos += s[p->pos + 1] == '\n' ? 2 : 3;
      else if (c == '\n' && p->paren_depth > 0)
        p->pos++;
      else
        break;
    }

  t->offset = p->pos;
  memset (t->op, 0, sizeof t->op);

  if (p->pos >= p->len)
    {
      t->kind = TOK_END;
      t->end = p->pos;
      return TRUE;
    }

  {
    char c = s[p->pos];

    if (c == '\n')
      {
        t->kind = TOK_NEWLINE;
        p->pos++;
      }
    else if (g_ascii_isdigit (c) || (c == '.' && g_ascii_isdigit (s[p->pos + 1])))
      {
        if (!lex_number (p, t))
          return FALSE;
      }
    else if (g_ascii_isalpha (c) || c == '_')
      {
        gsize start = p->pos;
        gsize end = start;

        while (g_ascii_isalnum (s[end]) || s[end] == '_')
          end++;
        /* String prefixes: r, u, b, f and their combinations. */
        if (end - start <= 2 && (s[end] == '\'' || s[end] == '"') &&
            strspn (s + start, "rRuUbBfF") >= end - start)
          {
            if (!lex_string (p, t, end - start))
              return FALSE;
          }
        else if ((guchar) s[end] >= 0x80)
          return fail (p, ANOT_ERROR_EXPR_SYNTAX, end,
                       "non-ASCII identifiers are not supported");
        else
          {
            t->kind = TOK_NAME;
            t->name = intern (p, s + start, end - start);
            p->pos = end;
          }
      }
    else if (c == '\'' || c == '"')
      {
        if (!lex_string (p, t, 0))
          return FALSE;
      }
    else if ((guchar) c >= 0x80)
      {
        return fail (p, ANOT_ERROR_EXPR_SYNTAX, p->pos,
                     "invalid character '%.*s'",
                     (int) (g_utf8_next_char (s + p->pos) - (s + p->pos)), s + p->pos);
      }
    else
      {
        gsize n = 0;

        for (guint k = 0; three[k] != NULL && n == 0; k++)
          if (strncmp (s + p->pos, three[k], 3) == 0)
            n = 3;
        for (guint k = 0; two[k] != NULL && n == 0; k++)
          if (strncmp (s + p->pos, two[k], 2) == 0)
            n = 2;
        if (n == 0)
          {
            if (strchr ("+-*/%()[]{},:.<>=!~&|^@;", c) == NULL || c == '\0')
              return fail (p, ANOT_ERROR_EXPR_SYNTAX, p->pos, "invalid character '%c' (U+%04X)",
                           g_ascii_isprint (c) ? c : '?', (guint) (guchar) c);
            n = 1;
          }
        t->kind = TOK_OP;
        memcpy (t->op, s + p->pos, n);
        p->pos += n;

        if (n == 1 && strchr ("([{", c) != NULL)
          p->paren_depth++;
        else if (n == 1 && strchr (")]}", c) != NULL && p->paren_depth > 0)
          p->paren_depth--;
      }
  }

  t->end = p->pos;
  return TRUE;
}

static Token *
peek (Parser *p)
{
  if (!p->have_tok && !p->failed)
    {
      if (lex (p, &p->tok))
        p->have_tok = TRUE;
    }
  if (p->failed)
    {
      /* Make every caller stop at the next check. */
      p->tok.kind = TOK_END;
      return &p->tok;
    }
  return &p->tok;
}

static void
advance (Parser *p)
{
  peek (p);
  p->have_tok = FALSE;
}

static gboolean
at_op (Parser     *p,
       const char *op)
{
  Token *t = peek (p);

  return t->kind == TOK_OP && strcmp (t->op, op) == 0;
}

static gboolean
at_keyword (Parser     *p,
            const char *keyword)
{
  Token *t = peek (p);

  return t->kind == TOK_NAME && strcmp (t->name, keyword) == 0;
}

static gboolean
accept_op (Parser     *p,
           const char *op)
{
  if (at_op (p, op))
    {
      advance (p);
      return TRUE;
    }
  return FALSE;
}

static gboolean
accept_keyword (Parser     *p,
                const char *keyword)
{
  if (at_keyword (p, keyword))
    {
      advance (p);
      return TRUE;
    }
  return FALSE;
}

static gboolean
unexpected (Parser *p)
{
  static const char * const assignments[] = {
    "=", "+=", "-=", "*=", "/=", "//=", "%=", "**=", "&=", "|=", "^=", "@=", "<<=", ">>=", NULL
  };
  Token *t = peek (p);

  if (p->failed)
    return FALSE;
  if (t->kind == TOK_END)
    return fail (p, ANOT_ERROR_EXPR_SYNTAX, t->offset,
                 p->paren_depth > 0 ? "unexpected end of formula (a bracket is never closed)"
                                    : "unexpected end of formula");
  if (t->kind == TOK_OP && strcmp (t->op, ":=") == 0)
    return fail (p, ANOT_ERROR_EXPR_SYNTAX, t->offset, "assignment expressions (:=) are not supported");
  if (t->kind == TOK_OP && g_strv_contains (assignments, t->op))
    return fail (p, ANOT_ERROR_EXPR_SYNTAX, t->offset,
                 "assignments are not allowed: a formula is a single expression (use == to compare)");
  if (t->kind == TOK_OP && strchr ("&|^~@", t->op[0]) != NULL)
    return fail (p, ANOT_ERROR_EXPR_SYNTAX, t->offset, "operator '%s' is not supported", t->op);
  if (t->kind == TOK_OP && (strcmp (t->op, "<<") == 0 || strcmp (t->op, ">>") == 0))
    return fail (p, ANOT_ERROR_EXPR_SYNTAX, t->offset, "operator '%s' is not supported", t->op);
  if (t->kind == TOK_OP && strcmp (t->op, ";") == 0)
    return fail (p, ANOT_ERROR_EXPR_SYNTAX, t->offset,
                 "a formula is a single expression; ';' is not allowed");
  if (t->kind == TOK_NEWLINE)
    return fail (p, ANOT_ERROR_EXPR_SYNTAX, t->offset,
                 "a formula is a single expression; a line break outside brackets ends it");
  if (t->kind == TOK_NAME && is_keyword (t->name) &&
      !g_str_equal (t->name, "True") && !g_str_equal (t->name, "False") && !g_str_equal (t->name, "None"))
    {
      if (g_str_equal (t->name, "lambda"))
        return fail (p, ANOT_ERROR_EXPR_SYNTAX, t->offset, "lambda is not supported");
      if (g_str_equal (t->name, "import") || g_str_equal (t->name, "from"))
        return fail (p, ANOT_ERROR_EXPR_FORBIDDEN, t->offset, "import is not allowed");
      return fail (p, ANOT_ERROR_EXPR_SYNTAX, t->offset,
                   "invalid syntax: '%s' is a statement keyword or misplaced here", t->name);
    }
  return fail (p, ANOT_ERROR_EXPR_SYNTAX, t->offset, "invalid syntax");
}

static gboolean
expect_op (Parser     *p,
           const char *op)
{
  if (accept_op (p, op))
    return TRUE;
  if (p->failed)
    return FALSE;
  if (peek (p)->kind == TOK_END || peek (p)->kind == TOK_NEWLINE)
    return fail (p, ANOT_ERROR_EXPR_SYNTAX, peek (p)->offset,
                 "unexpected end of formula, expected '%s'", op);
  return unexpected (p);
}

/* ------------------------------------------------------------------------ *
 * Tree
 * ------------------------------------------------------------------------ */

static AnotExprNode *
node_new (Parser           *p,
          AnotExprNodeKind  kind,
          guint             offset)
{
  AnotExprNode *n = palloc (p, sizeof (AnotExprNode));

  n->kind = kind;
  n->offset = offset;
  n->depth = 1;
  return n;
}

static guint
depth_of (AnotExprNode *n)
{
  return n != NULL ? n->depth : 0;
}

/* Sets the height of @n from its children; NULL when it is too tall. */
static AnotExprNode *
node_finish (Parser       *p,
             AnotExprNode *n)
{
  guint d = 0;

  if (n == NULL || p->failed)
    return NULL;

  switch (n->kind)
    {
    case ANOT_EXPR_NODE_CONST:
    case ANOT_EXPR_NODE_GLOBAL:
    case ANOT_EXPR_NODE_LOCAL:
      break;
    case ANOT_EXPR_NODE_UNARY:
    case ANOT_EXPR_NODE_NOT:
    case ANOT_EXPR_NODE_BINARY:
      d = MAX (depth_of (n->u.op.a), depth_of (n->u.op.b));
      break;
    case ANOT_EXPR_NODE_AND:
    case ANOT_EXPR_NODE_OR:
    case ANOT_EXPR_NODE_LIST:
    case ANOT_EXPR_NODE_TUPLE:
    case ANOT_EXPR_NODE_DICT:
      for (guint i = 0; i < n->u.seq.n; i++)
        {
          d = MAX (d, depth_of (n->u.seq.items[i]));
          if (n->u.seq.values != NULL)
            d = MAX (d, depth_of (n->u.seq.values[i]));
        }
      break;
    case ANOT_EXPR_NODE_COMPARE:
      d = depth_of (n->u.compare.first);
      for (guint i = 0; i < n->u.compare.n; i++)
        d = MAX (d, depth_of (n->u.compare.rest[i]));
      break;
    case ANOT_EXPR_NODE_IFEXP:
      d = MAX (depth_of (n->u.ifexp.test),
               MAX (depth_of (n->u.ifexp.body), depth_of (n->u.ifexp.orelse)));
      break;
    case ANOT_EXPR_NODE_SUBSCRIPT:
    case ANOT_EXPR_NODE_SLICE:
      d = MAX (MAX (depth_of (n->u.sub.object), depth_of (n->u.sub.index)),
               MAX (depth_of (n->u.sub.lower), MAX (depth_of (n->u.sub.upper), depth_of (n->u.sub.step))));
      break;
    case ANOT_EXPR_NODE_ATTR:
      d = depth_of (n->u.attr.object);
      break;
    case ANOT_EXPR_NODE_CALL:
      d = depth_of (n->u.call.func);
      for (guint i = 0; i < n->u.call.n_args; i++)
        d = MAX (d, depth_of (n->u.call.args[i]));
      for (guint i = 0; i < n->u.call.n_kwargs; i++)
        d = MAX (d, depth_of (n->u.call.kwargs[i]));
      break;
    case ANOT_EXPR_NODE_GENEXP:
    case ANOT_EXPR_NODE_LISTCOMP:
    case ANOT_EXPR_NODE_DICTCOMP:
      d = MAX (depth_of (n->u.comp.elt), depth_of (n->u.comp.value));
      for (guint i = 0; i < n->u.comp.n_clauses; i++)
        {
          AnotExprClause *c = &n->u.comp.clauses[i];

          d = MAX (d, depth_of (c->iter));
          for (guint k = 0; k < c->n_ifs; k++)
            d = MAX (d, depth_of (c->ifs[k]));
        }
      break;
    default:
      break;
    }

  n->depth = d + 1;
  if (n->depth > ANOT_EXPR_MAX_TREE_DEPTH)
    {
      fail (p, ANOT_ERROR_EXPR_LIMIT, n->offset,
            "formula is too deeply nested (more than %d levels)", ANOT_EXPR_MAX_TREE_DEPTH);
      return NULL;
    }
  return n;
}

static AnotExprNode *
const_node (Parser        *p,
            AnotExprValue  value,
            guint          offset)
{
  AnotExprNode *n = node_new (p, ANOT_EXPR_NODE_CONST, offset);

  if (value.kind == ANOT_EXPR_STR)
    {
      AnotExprStr *interned = anot_expr_str_intern (value.u.s->data, value.u.s->len, TRUE);
      guint32 hash;

      if (interned != NULL)
        {
          anot_expr_value_unref (value);
          n->u.constant = (AnotExprValue) { .kind = ANOT_EXPR_STR, .u.s = interned };
          return n;
        }
      g_ptr_array_add (p->allocs, value.u.s);
      anot_expr_value_make_immortal (value);
      /* Fill the caches now: evaluations in several threads read them. */
      anot_expr_value_hash (value, &hash);
      anot_expr_str_n_chars (value.u.s);
    }
  n->u.constant = value;
  return n;
}

static gpointer
array_dup (Parser    *p,
           GPtrArray *items)
{
  gpointer *mem = palloc (p, MAX (1, items->len) * sizeof (gpointer));

  if (items->len > 0)
    memcpy (mem, items->pdata, items->len * sizeof (gpointer));
  return mem;
}

/* ------------------------------------------------------------------------ *
 * Grammar
 * ------------------------------------------------------------------------ */

static AnotExprNode *parse_expression (Parser *p);
static AnotExprNode *parse_or (Parser *p);
static AnotExprNode *parse_factor (Parser *p);

static gboolean
enter (Parser *p,
       guint   offset)
{
  if (++p->nesting > ANOT_EXPR_MAX_NESTING)
    return fail (p, ANOT_ERROR_EXPR_LIMIT, offset,
                 "formula is too deeply nested (more than %d levels of brackets or operators)",
                 ANOT_EXPR_MAX_NESTING);
  return TRUE;
}

static void
leave (Parser *p)
{
  p->nesting--;
}

static gboolean
check_name (Parser     *p,
            const char *name,
            guint       offset)
{
  if (is_dunder (name))
    return fail (p, ANOT_ERROR_EXPR_FORBIDDEN, offset,
                 "'%s': names starting with two underscores are not allowed", name);
  return TRUE;
}

static gboolean
parse_target (Parser         *p,
              AnotExprTarget *target);

/* target_list: target (',' target)* [','] */
static gboolean
parse_target_list (Parser         *p,
                   AnotExprTarget *target,
                   gboolean        in_brackets)
{
  g_autoptr(GArray) items = g_array_new (FALSE, TRUE, sizeof (AnotExprTarget));
  AnotExprTarget first = { 0 };
  gboolean tuple = FALSE;

  target->offset = peek (p)->offset;
  if (!parse_target (p, &first))
    return FALSE;
  g_array_append_val (items, first);
  while (at_op (p, ","))
    {
      AnotExprTarget next = { 0 };

      advance (p);
      tuple = TRUE;
      if (at_keyword (p, "in") || (in_brackets && (at_op (p, ")") || at_op (p, "]"))))
        break;
      if (!parse_target (p, &next))
        return FALSE;
      g_array_append_val (items, next);
    }

  if (!tuple)
    {
      *target = first;
      return TRUE;
    }
  target->name = NULL;
  target->n_items = items->len;
  target->items = palloc (p, items->len * sizeof (AnotExprTarget));
  memcpy (target->items, items->data, items->len * sizeof (AnotExprTarget));
  return TRUE;
}

static gboolean
parse_target (Parser         *p,
              AnotExprTarget *target)
{
  Token *t = peek (p);

  target->offset = t->offset;
  if (t->kind == TOK_NAME && !is_keyword (t->name))
    {
      if (!check_name (p, t->name, t->offset))
        return FALSE;
      target->name = t->name;
      target->slot = (*p->n_slots)++;
      target->n_items = 0;
      advance (p);
      return TRUE;
    }
  if (at_op (p, "(") || at_op (p, "["))
    {
      const char *close = at_op (p, "(") ? ")" : "]";
      gboolean ok;

      if (!enter (p, t->offset))
        return FALSE;
      advance (p);
      ok = parse_target_list (p, target, TRUE) && expect_op (p, close);
      leave (p);
      if (ok && target->n_items == 0 && target->name == NULL)
        return unexpected (p);
      return ok;
    }
  if (t->kind == TOK_OP && strcmp (t->op, "*") == 0)
    return fail (p, ANOT_ERROR_EXPR_SYNTAX, t->offset, "starred targets are not supported");
  if (t->kind == TOK_NAME)
    return fail (p, ANOT_ERROR_EXPR_SYNTAX, t->offset, "cannot assign to keyword '%s'", t->name);
  return fail (p, ANOT_ERROR_EXPR_SYNTAX, t->offset, "invalid target after 'for'");
}

/* comp_for: ('for' target_list 'in' or_test ('if' or_test)*)+ */
static AnotExprNode *
parse_comprehension (Parser           *p,
                     AnotExprNodeKind  kind,
                     AnotExprNode     *elt,
                     AnotExprNode     *value,
                     guint             offset)
{
  g_autoptr(GArray) clauses = g_array_new (FALSE, TRUE, sizeof (AnotExprClause));
  AnotExprNode *n;

  while (accept_keyword (p, "for"))
    {
      AnotExprClause clause = { 0 };
      g_autoptr(GPtrArray) ifs = g_ptr_array_new ();

      if (!parse_target_list (p, &clause.target, FALSE))
        return NULL;
      if (!accept_keyword (p, "in"))
        {
          unexpected (p);
          return NULL;
        }
      clause.iter = parse_or (p);
      if (clause.iter == NULL)
        return NULL;
      while (at_keyword (p, "if"))
        {
          AnotExprNode *cond;

          advance (p);
          cond = parse_or (p);
          if (cond == NULL)
            return NULL;
          g_ptr_array_add (ifs, cond);
        }
      clause.n_ifs = ifs->len;
      clause.ifs = array_dup (p, ifs);
      g_array_append_val (clauses, clause);
    }
  if (at_keyword (p, "async"))
    {
      unexpected (p);
      return NULL;
    }

  n = node_new (p, kind, offset);
  n->u.comp.elt = elt;
  n->u.comp.value = value;
  n->u.comp.n_clauses = clauses->len;
  n->u.comp.clauses = palloc (p, clauses->len * sizeof (AnotExprClause));
  memcpy (n->u.comp.clauses, clauses->data, clauses->len * sizeof (AnotExprClause));
  return node_finish (p, n);
}

static gboolean
reject_starred (Parser *p)
{
  if (at_op (p, "*") || at_op (p, "**"))
    return fail (p, ANOT_ERROR_EXPR_SYNTAX, peek (p)->offset, "starred expressions are not supported");
  return TRUE;
}

/* '(' ... ')': unit, parenthesised expression, tuple or generator */
static AnotExprNode *
parse_paren (Parser *p,
             guint   offset)
{
  g_autoptr(GPtrArray) items = g_ptr_array_new ();
  AnotExprNode *first;
  AnotExprNode *n;
  gboolean tuple = FALSE;

  if (accept_op (p, ")"))
    {
      n = node_new (p, ANOT_EXPR_NODE_TUPLE, offset);
      n->u.seq.items = array_dup (p, items);
      return node_finish (p, n);
    }
  if (!reject_starred (p))
    return NULL;
  first = parse_expression (p);
  if (first == NULL)
    return NULL;
  if (at_keyword (p, "for"))
    {
      n = parse_comprehension (p, ANOT_EXPR_NODE_GENEXP, first, NULL, offset);
      if (n == NULL || !expect_op (p, ")"))
        return NULL;
      return n;
    }
  g_ptr_array_add (items, first);
  while (accept_op (p, ","))
    {
      AnotExprNode *next;

      tuple = TRUE;
      if (at_op (p, ")"))
        break;
      if (!reject_starred (p))
        return NULL;
      next = parse_expression (p);
      if (next == NULL)
        return NULL;
      g_ptr_array_add (items, next);
    }
  if (!expect_op (p, ")"))
    return NULL;
  if (!tuple)
    return first;

  n = node_new (p, ANOT_EXPR_NODE_TUPLE, offset);
  n->u.seq.n = items->len;
  n->u.seq.items = array_dup (p, items);
  return node_finish (p, n);
}

static AnotExprNode *
parse_list (Parser *p,
            guint   offset)
{
  g_autoptr(GPtrArray) items = g_ptr_array_new ();
  AnotExprNode *n;

  if (!accept_op (p, "]"))
    {
      AnotExprNode *first;

      if (!reject_starred (p))
        return NULL;
      first = parse_expression (p);
      if (first == NULL)
        return NULL;
      if (at_keyword (p, "for"))
        {
          n = parse_comprehension (p, ANOT_EXPR_NODE_LISTCOMP, first, NULL, offset);
          if (n == NULL || !expect_op (p, "]"))
            return NULL;
          return n;
        }
      g_ptr_array_add (items, first);
      while (accept_op (p, ","))
        {
          AnotExprNode *next;

          if (at_op (p, "]"))
            break;
          if (!reject_starred (p))
            return NULL;
          next = parse_expression (p);
          if (next == NULL)
            return NULL;
          g_ptr_array_add (items, next);
        }
      if (!expect_op (p, "]"))
        return NULL;
    }

  n = node_new (p, ANOT_EXPR_NODE_LIST, offset);
  n->u.seq.n = items->len;
  n->u.seq.items = array_dup (p, items);
  return node_finish (p, n);
}

static AnotExprNode *
parse_dict (Parser *p,
            guint   offset)
{
  g_autoptr(GPtrArray) keys = g_ptr_array_new ();
  g_autoptr(GPtrArray) values = g_ptr_array_new ();
  AnotExprNode *n;

  if (!accept_op (p, "}"))
    {
      AnotExprNode *key;
      AnotExprNode *value;

      if (at_op (p, "**"))
        return fail (p, ANOT_ERROR_EXPR_SYNTAX, peek (p)->offset,
                     "dict unpacking (**) is not supported"), NULL;
      key = parse_expression (p);
      if (key == NULL)
        return NULL;
      if (!at_op (p, ":"))
        {
          if (p->failed)
            return NULL;
          fail (p, ANOT_ERROR_EXPR_SYNTAX, offset,
                "set displays and set comprehensions are not supported");
          return NULL;
        }
      advance (p);
      value = parse_expression (p);
      if (value == NULL)
        return NULL;
      if (at_keyword (p, "for"))
        {
          n = parse_comprehension (p, ANOT_EXPR_NODE_DICTCOMP, key, value, offset);
          if (n == NULL || !expect_op (p, "}"))
            return NULL;
          return n;
        }
      g_ptr_array_add (keys, key);
      g_ptr_array_add (values, value);
      while (accept_op (p, ","))
        {
          if (at_op (p, "}"))
            break;
          key = parse_expression (p);
          if (key == NULL || !expect_op (p, ":"))
            return NULL;
          value = parse_expression (p);
          if (value == NULL)
            return NULL;
          g_ptr_array_add (keys, key);
          g_ptr_array_add (values, value);
        }
      if (!expect_op (p, "}"))
        return NULL;
    }

  n = node_new (p, ANOT_EXPR_NODE_DICT, offset);
  n->u.seq.n = keys->len;
  n->u.seq.items = array_dup (p, keys);
  n->u.seq.values = array_dup (p, values);
  return node_finish (p, n);
}

static AnotExprNode *
parse_atom (Parser *p)
{
  Token *t = peek (p);
  guint offset = t->offset;

  switch (t->kind)
    {
    case TOK_INT:
      advance (p);
      return const_node (p, anot_expr_value_int (t->i), offset);
    case TOK_FLOAT:
      advance (p);
      return const_node (p, anot_expr_value_float (t->f), offset);
    case TOK_STRING:
      {
        g_autoptr(GString) text = g_string_new_len (t->str->str, t->str->len);

        advance (p);
        /* Adjacent literals concatenate. */
        while (peek (p)->kind == TOK_STRING)
          {
            g_string_append_len (text, p->tok.str->str, p->tok.str->len);
            advance (p);
          }
        if (p->failed)
          return NULL;
        return const_node (p, anot_expr_value_new_string (text->str, text->len), offset);
      }
    case TOK_NAME:
      if (g_str_equal (t->name, "True") || g_str_equal (t->name, "False"))
        {
          gboolean b = g_str_equal (t->name, "True");

          advance (p);
          return const_node (p, anot_expr_value_bool (b), offset);
        }
      if (g_str_equal (t->name, "None"))
        {
          advance (p);
          return const_node (p, ANOT_EXPR_VALUE_NONE, offset);
        }
      if (is_keyword (t->name))
        {
          unexpected (p);
          return NULL;
        }
      if (!check_name (p, t->name, offset))
        return NULL;
      {
        AnotExprNode *n = node_new (p, ANOT_EXPR_NODE_GLOBAL, offset);

        n->u.name.name = t->name;
        advance (p);
        return n;
      }
    case TOK_OP:
      {
        AnotExprNode *n = NULL;
        char c = t->op[0];

        if (t->op[1] != '\0' || strchr ("([{", c) == NULL)
          {
            if (strcmp (t->op, "...") == 0)
              fail (p, ANOT_ERROR_EXPR_SYNTAX, offset, "Ellipsis is not supported");
            else
              unexpected (p);
            return NULL;
          }
        if (!enter (p, offset))
          return NULL;
        advance (p);
        if (c == '(')
          n = parse_paren (p, offset);
        else if (c == '[')
          n = parse_list (p, offset);
        else
          n = parse_dict (p, offset);
        leave (p);
        return n;
      }
    case TOK_END:
    case TOK_NEWLINE:
    default:
      unexpected (p);
      return NULL;
    }
}

static AnotExprNode *
parse_call (Parser       *p,
            AnotExprNode *func,
            guint         offset)
{
  g_autoptr(GPtrArray) args = g_ptr_array_new ();
  g_autoptr(GPtrArray) kwnames = g_ptr_array_new ();
  g_autoptr(GPtrArray) kwargs = g_ptr_array_new ();
  AnotExprNode *n;

  while (!at_op (p, ")"))
    {
      Token *t = peek (p);
      AnotExprNode *arg;

      if (p->failed)
        return NULL;
      if (!reject_starred (p))
        return NULL;

      /* name '=' expression: a keyword argument.  One token of lookahead
       * is not enough, so peek at the source after the name. */
      if (t->kind == TOK_NAME && !is_keyword (t->name))
        {
          gsize k = t->end;

          while (p->source[k] == ' ' || p->source[k] == '\t' || p->source[k] == '\n' || p->source[k] == '\r')
            k++;
          if (p->source[k] == '=' && p->source[k + 1] != '=')
            {
              const char *name = t->name;
              guint name_offset = t->offset;

              if (!check_name (p, name, name_offset))
                return NULL;
              for (guint i = 0; i < kwnames->len; i++)
                if (g_str_equal (kwnames->pdata[i], name))
                  return fail (p, ANOT_ERROR_EXPR_SYNTAX, name_offset,
                               "keyword argument repeated: %s", name), NULL;
              advance (p);
              if (!expect_op (p, "="))
                return NULL;
              arg = parse_expression (p);
              if (arg == NULL)
                return NULL;
              g_ptr_array_add (kwnames, (gpointer) name);
              g_ptr_array_add (kwargs, arg);
              if (!accept_op (p, ","))
                break;
              continue;
            }
        }

      arg = parse_expression (p);
      if (arg == NULL)
        return NULL;
      if (at_keyword (p, "for"))
        {
          arg = parse_comprehension (p, ANOT_EXPR_NODE_GENEXP, arg, NULL, arg->offset);
          if (arg == NULL)
            return NULL;
          /* f(a, x for x in y) and f(x for x in y, b) */
          if (args->len > 0 || kwargs->len > 0 || at_op (p, ","))
            return fail (p, ANOT_ERROR_EXPR_SYNTAX, arg->offset,
                         "generator expression must be parenthesized"), NULL;
        }
      if (kwargs->len > 0)
        return fail (p, ANOT_ERROR_EXPR_SYNTAX, arg->offset,
                     "positional argument follows keyword argument"), NULL;
      g_ptr_array_add (args, arg);
      if (!accept_op (p, ","))
        break;
    }
  if (!expect_op (p, ")"))
    return NULL;

  n = node_new (p, ANOT_EXPR_NODE_CALL, offset);
  n->u.call.func = func;
  n->u.call.n_args = args->len;
  n->u.call.args = array_dup (p, args);
  n->u.call.n_kwargs = kwargs->len;
  n->u.call.kwnames = array_dup (p, kwnames);
  n->u.call.kwargs = array_dup (p, kwargs);
  return node_finish (p, n);
}

/* subscript: expression | slice | tuple of expressions */
static AnotExprNode *
parse_subscript (Parser       *p,
                 AnotExprNode *object,
                 guint         offset)
{
  AnotExprNode *bounds[3] = { NULL, NULL, NULL };
  AnotExprNode *n;
  guint part = 0;
  gboolean is_slice = FALSE;

  for (;;)
    {
      if (!at_op (p, ":") && !at_op (p, "]") && !(is_slice && at_op (p, ",")))
        {
          bounds[part] = parse_expression (p);
          if (bounds[part] == NULL)
            return NULL;
        }
      if (part < 2 && accept_op (p, ":"))
        {
          is_slice = TRUE;
          part++;
          continue;
        }
      break;
    }

  if (!is_slice && at_op (p, ","))
    {
      /* a[i, j]: the index is a tuple. */
      g_autoptr(GPtrArray) items = g_ptr_array_new ();
      AnotExprNode *tuple;

      g_ptr_array_add (items, bounds[0]);
      while (accept_op (p, ","))
        {
          AnotExprNode *next;

          if (at_op (p, "]"))
            break;
          next = parse_expression (p);
          if (next == NULL)
            return NULL;
          g_ptr_array_add (items, next);
        }
      tuple = node_new (p, ANOT_EXPR_NODE_TUPLE, bounds[0]->offset);
      tuple->u.seq.n = items->len;
      tuple->u.seq.items = array_dup (p, items);
      bounds[0] = node_finish (p, tuple);
      if (bounds[0] == NULL)
        return NULL;
    }
  if (at_op (p, ":") || (is_slice && at_op (p, ",")))
    return fail (p, ANOT_ERROR_EXPR_SYNTAX, peek (p)->offset, "invalid slice"), NULL;
  if (!expect_op (p, "]"))
    return NULL;

  if (is_slice)
    {
      n = node_new (p, ANOT_EXPR_NODE_SLICE, offset);
      n->u.sub.object = object;
      n->u.sub.lower = bounds[0];
      n->u.sub.upper = bounds[1];
      n->u.sub.step = bounds[2];
    }
  else
    {
      if (bounds[0] == NULL)
        return unexpected (p), NULL;
      n = node_new (p, ANOT_EXPR_NODE_SUBSCRIPT, offset);
      n->u.sub.object = object;
      n->u.sub.index = bounds[0];
    }
  return node_finish (p, n);
}

/* primary: atom ('.' NAME | '(' args ')' | '[' subscript ']')* */
static AnotExprNode *
parse_primary (Parser *p)
{
  AnotExprNode *n = parse_atom (p);
  guint trailers = 0;

  while (n != NULL && !p->failed)
    {
      Token *t = peek (p);
      guint offset = t->offset;

      if (t->kind != TOK_OP)
        break;
      if (strcmp (t->op, ".") == 0)
        {
          AnotExprNode *attr;

          advance (p);
          t = peek (p);
          if (t->kind != TOK_NAME || is_keyword (t->name))
            return unexpected (p), NULL;
          if (!check_name (p, t->name, t->offset))
            return NULL;
          attr = node_new (p, ANOT_EXPR_NODE_ATTR, t->offset);
          attr->u.attr.object = n;
          attr->u.attr.name = t->name;
          advance (p);
          n = node_finish (p, attr);
        }
      else if (strcmp (t->op, "(") == 0)
        {
          advance (p);
          if (!enter (p, offset))
            return NULL;
          n = parse_call (p, n, offset);
          leave (p);
        }
      else if (strcmp (t->op, "[") == 0)
        {
          advance (p);
          if (!enter (p, offset))
            return NULL;
          n = parse_subscript (p, n, offset);
          leave (p);
        }
      else
        break;

      /* Trailers chain without recursion, so count them as nesting. */
      if (++trailers > ANOT_EXPR_MAX_NESTING)
        return fail (p, ANOT_ERROR_EXPR_LIMIT, offset,
                     "formula is too deeply nested (more than %d calls, attributes or subscripts in a row)",
                     ANOT_EXPR_MAX_NESTING), NULL;
    }
  return p->failed ? NULL : n;
}

/* power: primary ['**' factor] */
static AnotExprNode *
parse_power (Parser *p)
{
  AnotExprNode *base = parse_primary (p);

  if (base != NULL && at_op (p, "**"))
    {
      guint offset = peek (p)->offset;
      AnotExprNode *n;
      AnotExprNode *exponent;

      advance (p);
      exponent = parse_factor (p);
      if (exponent == NULL)
        return NULL;
      n = node_new (p, ANOT_EXPR_NODE_BINARY, offset);
      n->u.op.op = ANOT_EXPR_OP_POW;
      n->u.op.a = base;
      n->u.op.b = exponent;
      return node_finish (p, n);
    }
  return base;
}

/* factor: ('+' | '-') factor | power */
static AnotExprNode *
parse_factor (Parser *p)
{
  if (at_op (p, "-") || at_op (p, "+"))
    {
      guint offset = peek (p)->offset;
      gboolean neg = at_op (p, "-");
      AnotExprNode *operand;
      AnotExprNode *n;

      advance (p);
      if (!enter (p, offset))
        return NULL;
      operand = parse_factor (p);
      leave (p);
      if (operand == NULL)
        return NULL;
      /* Fold "-1" so that negative literals cost nothing. */
      if (operand->kind == ANOT_EXPR_NODE_CONST && neg)
        {
          if (operand->u.constant.kind == ANOT_EXPR_INT && operand->u.constant.u.i != G_MININT64)
            {
              operand->u.constant.u.i = -operand->u.constant.u.i;
              operand->offset = offset;
              return operand;
            }
          if (operand->u.constant.kind == ANOT_EXPR_FLOAT)
            {
              operand->u.constant.u.f = -operand->u.constant.u.f;
              operand->offset = offset;
              return operand;
            }
        }
      n = node_new (p, ANOT_EXPR_NODE_UNARY, offset);
      n->u.op.op = neg ? ANOT_EXPR_OP_NEG : ANOT_EXPR_OP_POS;
      n->u.op.a = operand;
      return node_finish (p, n);
    }
  if (at_op (p, "~"))
    return unexpected (p), NULL;
  if (at_keyword (p, "await"))
    return fail (p, ANOT_ERROR_EXPR_SYNTAX, peek (p)->offset, "await is not supported"), NULL;
  return parse_power (p);
}

static AnotExprNode *
binary (Parser       *p,
        AnotExprOp    op,
        AnotExprNode *a,
        AnotExprNode *b,
        guint         offset)
{
  AnotExprNode *n = node_new (p, ANOT_EXPR_NODE_BINARY, offset);

  n->u.op.op = op;
  n->u.op.a = a;
  n->u.op.b = b;
  return node_finish (p, n);
}

/* term: factor (('*' | '/' | '//' | '%') factor)* */
static AnotExprNode *
parse_term (Parser *p)
{
  AnotExprNode *n = parse_factor (p);

  while (n != NULL)
    {
      AnotExprOp op;
      guint offset = peek (p)->offset;
      AnotExprNode *rhs;

      if (at_op (p, "*"))
        op = ANOT_EXPR_OP_MUL;
      else if (at_op (p, "/"))
        op = ANOT_EXPR_OP_DIV;
      else if (at_op (p, "//"))
        op = ANOT_EXPR_OP_FLOORDIV;
      else if (at_op (p, "%"))
        op = ANOT_EXPR_OP_MOD;
      else if (at_op (p, "@"))
        return unexpected (p), NULL;
      else
        break;
      advance (p);
      rhs = parse_factor (p);
      if (rhs == NULL)
        return NULL;
      n = binary (p, op, n, rhs, offset);
    }
  return n;
}

/* arith: term (('+' | '-') term)* */
static AnotExprNode *
parse_arith (Parser *p)
{
  AnotExprNode *n = parse_term (p);

  while (n != NULL && (at_op (p, "+") || at_op (p, "-")))
    {
      guint offset = peek (p)->offset;
      AnotExprOp op = at_op (p, "+") ? ANOT_EXPR_OP_ADD : ANOT_EXPR_OP_SUB;
      AnotExprNode *rhs;

      advance (p);
      rhs = parse_term (p);
      if (rhs == NULL)
        return NULL;
      n = binary (p, op, n, rhs, offset);
    }
  if (n != NULL && (at_op (p, "&") || at_op (p, "|") || at_op (p, "^") ||
                    at_op (p, "<<") || at_op (p, ">>")))
    return unexpected (p), NULL;
  return n;
}

static gboolean
comparison_op (Parser     *p,
               AnotExprOp *op)
{
  Token *t = peek (p);

  if (t->kind == TOK_OP)
    {
      static const struct { const char *text; AnotExprOp op; } ops[] = {
        { "==", ANOT_EXPR_OP_EQ }, { "!=", ANOT_EXPR_OP_NE }, { "<", ANOT_EXPR_OP_LT },
        { "<=", ANOT_EXPR_OP_LE }, { ">", ANOT_EXPR_OP_GT }, { ">=", ANOT_EXPR_OP_GE },
      };

      for (guint i = 0; i < G_N_ELEMENTS (ops); i++)
        if (strcmp (t->op, ops[i].text) == 0)
          {
            *op = ops[i].op;
            advance (p);
            return TRUE;
          }
      if (strcmp (t->op, "<>") == 0)
        return fail (p, ANOT_ERROR_EXPR_SYNTAX, t->offset, "invalid syntax: use != instead of <>");
      return FALSE;
    }
  if (t->kind != TOK_NAME)
    return FALSE;
  if (g_str_equal (t->name, "in"))
    {
      *op = ANOT_EXPR_OP_IN;
      advance (p);
      return TRUE;
    }
  if (g_str_equal (t->name, "is"))
    {
      advance (p);
      *op = accept_keyword (p, "not") ? ANOT_EXPR_OP_IS_NOT : ANOT_EXPR_OP_IS;
      return TRUE;
    }
  if (g_str_equal (t->name, "not"))
    {
      guint offset = t->offset;

      advance (p);
      if (!accept_keyword (p, "in"))
        return fail (p, ANOT_ERROR_EXPR_SYNTAX, offset, "invalid syntax: 'not' here must be 'not in'");
      *op = ANOT_EXPR_OP_NOT_IN;
      return TRUE;
    }
  return FALSE;
}

/* comparison: arith (comp_op arith)* */
static AnotExprNode *
parse_comparison (Parser *p)
{
  AnotExprNode *first = parse_arith (p);
  g_autoptr(GArray) ops = NULL;
  g_autoptr(GPtrArray) rest = NULL;
  AnotExprOp op;
  AnotExprNode *n;
  guint offset;

  if (first == NULL)
    return NULL;
  offset = peek (p)->offset;
  while (comparison_op (p, &op))
    {
      AnotExprNode *rhs = parse_arith (p);

      if (rhs == NULL)
        return NULL;
      if (ops == NULL)
        {
          ops = g_array_new (FALSE, FALSE, sizeof (AnotExprOp));
          rest = g_ptr_array_new ();
        }
      g_array_append_val (ops, op);
      g_ptr_array_add (rest, rhs);
    }
  if (p->failed)
    return NULL;
  if (ops == NULL)
    return first;

  n = node_new (p, ANOT_EXPR_NODE_COMPARE, offset);
  n->u.compare.first = first;
  n->u.compare.n = ops->len;
  n->u.compare.ops = palloc (p, ops->len * sizeof (AnotExprOp));
  memcpy (n->u.compare.ops, ops->data, ops->len * sizeof (AnotExprOp));
  n->u.compare.rest = array_dup (p, rest);
  return node_finish (p, n);
}

/* not_test: 'not' not_test | comparison */
static AnotExprNode *
parse_not (Parser *p)
{
  if (at_keyword (p, "not"))
    {
      guint offset = peek (p)->offset;
      AnotExprNode *operand;
      AnotExprNode *n;

      advance (p);
      if (!enter (p, offset))
        return NULL;
      operand = parse_not (p);
      leave (p);
      if (operand == NULL)
        return NULL;
      n = node_new (p, ANOT_EXPR_NODE_NOT, offset);
      n->u.op.a = operand;
      return node_finish (p, n);
    }
  return parse_comparison (p);
}

static AnotExprNode *
parse_bool_chain (Parser           *p,
                  const char       *keyword,
                  AnotExprNodeKind  kind,
                  AnotExprNode     *(*operand) (Parser *))
{
  AnotExprNode *first = operand (p);
  g_autoptr(GPtrArray) items = NULL;
  AnotExprNode *n;

  if (first == NULL)
    return NULL;
  while (at_keyword (p, keyword))
    {
      AnotExprNode *next;

      advance (p);
      next = operand (p);
      if (next == NULL)
        return NULL;
      if (items == NULL)
        {
          items = g_ptr_array_new ();
          g_ptr_array_add (items, first);
        }
      g_ptr_array_add (items, next);
    }
  if (items == NULL)
    return first;

  n = node_new (p, kind, first->offset);
  n->u.seq.n = items->len;
  n->u.seq.items = array_dup (p, items);
  return node_finish (p, n);
}

static AnotExprNode *
parse_and (Parser *p)
{
  return parse_bool_chain (p, "and", ANOT_EXPR_NODE_AND, parse_not);
}

static AnotExprNode *
parse_or (Parser *p)
{
  return parse_bool_chain (p, "or", ANOT_EXPR_NODE_OR, parse_and);
}

/* expression: or_test ['if' or_test 'else' expression] */
static AnotExprNode *
parse_expression (Parser *p)
{
  guint offset = peek (p)->offset;
  AnotExprNode *body;
  AnotExprNode *n;

  if (at_keyword (p, "lambda"))
    return fail (p, ANOT_ERROR_EXPR_SYNTAX, offset, "lambda is not supported"), NULL;
  if (at_keyword (p, "yield"))
    return fail (p, ANOT_ERROR_EXPR_SYNTAX, offset, "yield is not supported"), NULL;
  if (!enter (p, offset))
    return NULL;

  body = parse_or (p);
  if (body != NULL && at_keyword (p, "if"))
    {
      guint if_offset = peek (p)->offset;
      AnotExprNode *test;
      AnotExprNode *orelse;

      advance (p);
      test = parse_or (p);
      if (test == NULL)
        goto out;
      if (!accept_keyword (p, "else"))
        {
          if (!p->failed)
            fail (p, ANOT_ERROR_EXPR_SYNTAX, peek (p)->offset,
                  "expected 'else' after 'if' expression");
          body = NULL;
          goto out;
        }
      orelse = parse_expression (p);
      if (orelse == NULL)
        {
          body = NULL;
          goto out;
        }
      n = node_new (p, ANOT_EXPR_NODE_IFEXP, if_offset);
      n->u.ifexp.test = test;
      n->u.ifexp.body = body;
      n->u.ifexp.orelse = orelse;
      body = node_finish (p, n);
    }
  if (body != NULL && at_op (p, ":="))
    {
      unexpected (p);
      body = NULL;
    }

out:
  leave (p);
  return p->failed ? NULL : body;
}

/* ------------------------------------------------------------------------ *
 * Name resolution
 * ------------------------------------------------------------------------ */

typedef struct {
  const char *name;
  guint slot;
} Binding;

static void resolve (AnotExprNode *n, GArray *chain, GPtrArray *free_names);

static void
bind_target (AnotExprTarget *target,
             GArray         *chain)
{
  if (target->n_items == 0)
    {
      Binding b = { target->name, target->slot };

      g_array_append_val (chain, b);
      return;
    }
  for (guint i = 0; i < target->n_items; i++)
    bind_target (&target->items[i], chain);
}

static void
resolve_all (AnotExprNode **nodes,
             guint          n,
             GArray        *chain,
             GPtrArray     *free_names)
{
  for (guint i = 0; i < n; i++)
    resolve (nodes[i], chain, free_names);
}

static void
resolve (AnotExprNode *n,
         GArray       *chain,
         GPtrArray    *free_names)
{
  if (n == NULL)
    return;

  switch (n->kind)
    {
    case ANOT_EXPR_NODE_GLOBAL:
      for (guint i = chain->len; i > 0; i--)
        {
          Binding *b = &g_array_index (chain, Binding, i - 1);

          if (b->name == n->u.name.name)  /* interned */
            {
              n->kind = ANOT_EXPR_NODE_LOCAL;
              n->u.name.slot = b->slot;
              return;
            }
        }
      /* The slot of a free name is its index in @free_names: the
       * evaluator looks each name up once per evaluation. */
      for (guint i = 0; i < free_names->len; i++)
        if (free_names->pdata[i] == n->u.name.name)
          {
            n->u.name.slot = i;
            return;
          }
      n->u.name.slot = free_names->len;
      g_ptr_array_add (free_names, (gpointer) n->u.name.name);
      break;
    case ANOT_EXPR_NODE_UNARY:
    case ANOT_EXPR_NODE_NOT:
    case ANOT_EXPR_NODE_BINARY:
      resolve (n->u.op.a, chain, free_names);
      resolve (n->u.op.b, chain, free_names);
      break;
    case ANOT_EXPR_NODE_AND:
    case ANOT_EXPR_NODE_OR:
    case ANOT_EXPR_NODE_LIST:
    case ANOT_EXPR_NODE_TUPLE:
      resolve_all (n->u.seq.items, n->u.seq.n, chain, free_names);
      break;
    case ANOT_EXPR_NODE_DICT:
      for (guint i = 0; i < n->u.seq.n; i++)
        {
          resolve (n->u.seq.items[i], chain, free_names);
          resolve (n->u.seq.values[i], chain, free_names);
        }
      break;
    case ANOT_EXPR_NODE_COMPARE:
      resolve (n->u.compare.first, chain, free_names);
      resolve_all (n->u.compare.rest, n->u.compare.n, chain, free_names);
      break;
    case ANOT_EXPR_NODE_IFEXP:
      resolve (n->u.ifexp.body, chain, free_names);
      resolve (n->u.ifexp.test, chain, free_names);
      resolve (n->u.ifexp.orelse, chain, free_names);
      break;
    case ANOT_EXPR_NODE_SUBSCRIPT:
    case ANOT_EXPR_NODE_SLICE:
      resolve (n->u.sub.object, chain, free_names);
      resolve (n->u.sub.index, chain, free_names);
      resolve (n->u.sub.lower, chain, free_names);
      resolve (n->u.sub.upper, chain, free_names);
      resolve (n->u.sub.step, chain, free_names);
      break;
    case ANOT_EXPR_NODE_ATTR:
      resolve (n->u.attr.object, chain, free_names);
      break;
    case ANOT_EXPR_NODE_CALL:
      resolve (n->u.call.func, chain, free_names);
      resolve_all (n->u.call.args, n->u.call.n_args, chain, free_names);
      resolve_all (n->u.call.kwargs, n->u.call.n_kwargs, chain, free_names);
      break;
    case ANOT_EXPR_NODE_GENEXP:
    case ANOT_EXPR_NODE_LISTCOMP:
    case ANOT_EXPR_NODE_DICTCOMP:
      {
        guint base = chain->len;

        /* The first iterable is evaluated outside the comprehension;
         * later clauses see the targets of earlier ones. */
        for (guint i = 0; i < n->u.comp.n_clauses; i++)
          {
            AnotExprClause *c = &n->u.comp.clauses[i];

            resolve (c->iter, chain, free_names);
            bind_target (&c->target, chain);
            resolve_all (c->ifs, c->n_ifs, chain, free_names);
          }
        resolve (n->u.comp.elt, chain, free_names);
        resolve (n->u.comp.value, chain, free_names);
        g_array_set_size (chain, base);
      }
      break;
    case ANOT_EXPR_NODE_CONST:
    case ANOT_EXPR_NODE_LOCAL:
    default:
      break;
    }
}

/* ------------------------------------------------------------------------ *
 * Entry point
 * ------------------------------------------------------------------------ */

AnotExprNode *
anot_expr_parse_tree (const char      *source,
                      GPtrArray       *allocs,
                      guint           *n_slots,
                      GPtrArray       *free_names,
                      AnotExprFailure *failure)
{
  Parser p = { 0 };
  AnotExprNode *root = NULL;
  gsize len = strlen (source);
  const char *bad = NULL;

  p.source = source;
  p.len = len;
  p.allocs = allocs;
  p.names = g_hash_table_new (g_str_hash, g_str_equal);
  p.n_slots = n_slots;
  p.failure = failure;
  *n_slots = 0;

  if (len > ANOT_EXPR_MAX_SOURCE)
    fail (&p, ANOT_ERROR_EXPR_LIMIT, 0, "formula is longer than %d bytes", ANOT_EXPR_MAX_SOURCE);
  else if (!g_utf8_validate (source, len, &bad))
    fail (&p, ANOT_ERROR_EXPR_SYNTAX, bad - source, "formula is not valid UTF-8");
  else
    {
      /* Python's eval() ignores leading spaces and tabs. */
      while (source[p.pos] == ' ' || source[p.pos] == '\t')
        p.pos++;
      while (peek (&p)->kind == TOK_NEWLINE)
        advance (&p);

      if (peek (&p)->kind == TOK_END && !p.failed)
        fail (&p, ANOT_ERROR_EXPR_SYNTAX, p.tok.offset, "empty formula");
      else
        {
          AnotExprNode *first = parse_expression (&p);

          /* A bare tuple at the top: "a, b". */
          if (first != NULL && at_op (&p, ","))
            {
              g_autoptr(GPtrArray) items = g_ptr_array_new ();
              AnotExprNode *tuple;

              g_ptr_array_add (items, first);
              while (accept_op (&p, ","))
                {
                  AnotExprNode *next;

                  if (peek (&p)->kind == TOK_END || peek (&p)->kind == TOK_NEWLINE)
                    break;
                  next = parse_expression (&p);
                  if (next == NULL)
                    break;
                  g_ptr_array_add (items, next);
                }
              tuple = node_new (&p, ANOT_EXPR_NODE_TUPLE, first->offset);
              tuple->u.seq.n = items->len;
              tuple->u.seq.items = array_dup (&p, items);
              first = node_finish (&p, tuple);
            }

          while (first != NULL && peek (&p)->kind == TOK_NEWLINE)
            advance (&p);
          if (first != NULL && peek (&p)->kind != TOK_END)
            unexpected (&p);
          if (!p.failed)
            root = first;
        }
    }

  if (p.tok.str != NULL)
    g_string_free (p.tok.str, TRUE);
  g_hash_table_unref (p.names);

  if (root != NULL)
    {
      g_autoptr(GArray) chain = g_array_new (FALSE, FALSE, sizeof (Binding));

      resolve (root, chain, free_names);
    }
  return root;
}
