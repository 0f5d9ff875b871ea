/* anot-expr-private.h: the value model, the syntax tree and the evaluator of
 * AnotExpr
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Values are a small tagged union passed by value: None, bool, int and float
 * live in the union; str, list, tuple and dict point to a reference-counted
 * block.  Reference counts are not atomic: a value belongs to one evaluation
 * (one AnotExprScope) at a time.  Constants of a parsed expression are
 * "immortal" (negative count), so one AnotExpr can be evaluated in several
 * threads at once, each with its own scope.
 */
#pragma once

#if !defined(ANOT_COMPILATION)
#error "anot-expr-private.h is private to libanot."
#endif

#include <glib.h>
#include <string.h>
#include <json-glib/json-glib.h>

#include "anot-expr.h"
#include "anot-json-document.h"
#include "anot-json-writer.h"

G_BEGIN_DECLS

/* Internal to the library (hidden, bound without PLT indirection on the
 * evaluator's hot paths); the unit tests of the interpreter link a static
 * copy of the library to reach them (tests/meson.build). */
#define ANOT_EXPR_PRIVATE G_GNUC_INTERNAL

typedef enum {
  ANOT_EXPR_NONE,
  ANOT_EXPR_BOOL,
  ANOT_EXPR_INT,
  ANOT_EXPR_FLOAT,
  /* Reference-counted kinds from here on. */
  ANOT_EXPR_STR,
  ANOT_EXPR_LIST,
  ANOT_EXPR_TUPLE,
  ANOT_EXPR_DICT,
  /* Static kinds: builtin functions and the math module. */
  ANOT_EXPR_FUNC,
  ANOT_EXPR_MODULE,
  /* A generator expression passed as an argument: the callee iterates it
   * lazily (so any() stops at the first true item, as in Python).  It never
   * outlives the call. */
  ANOT_EXPR_GENERATOR,
} AnotExprKind;

typedef struct _AnotExprStr     AnotExprStr;
typedef struct _AnotExprSeq     AnotExprSeq;
typedef struct _AnotExprDict    AnotExprDict;
typedef struct _AnotExprShape   AnotExprShape;
typedef struct _AnotExprSlab    AnotExprSlab;
typedef struct _AnotExprBuiltin AnotExprBuiltin;

typedef struct {
  AnotExprKind kind;
  union {
    gboolean b;
    gint64 i;
    double f;
    AnotExprStr *s;
    AnotExprSeq *seq;
    AnotExprDict *d;
    const AnotExprBuiltin *fn;
    const void *gen;      /* the GENEXP node */
  } u;
} AnotExprValue;

struct _AnotExprStr
{
  int ref_count;          /* < 0: immortal */
  guint32 hash;           /* 0: not computed yet */
  gssize n_chars;         /* -1: not computed yet */
  gsize len;              /* bytes, without the trailing NUL */
  char data[];
};

struct _AnotExprSeq
{
  int ref_count;
  guint len;
  guint alloc;
  AnotExprValue *items;
};

/* Insertion-ordered, like a CPython dict.  Small dicts are scanned; larger
 * ones get an open-addressing index of positions. */
struct _AnotExprDict
{
  int ref_count;
  guint len;
  guint alloc;
  AnotExprValue *keys;
  AnotExprValue *values;
  guint32 *index;         /* position + 1, 0 = empty */
  guint index_size;       /* power of two, or 0 */
  /* A lookup table of a Formula Seed: .get(text, default) returns the value
   * of the first key that occurs in @text, case-insensitively, as the
   * original's lookup wrapper did. */
  gboolean substring_get;
  /* The records of a list bound from JSON share their keys when they have
   * the same members in the same order: @keys then points into @shape
   * (which holds the references), and @values follow the dict in its own
   * block (@values_inline), so a record is one allocation and one or two
   * cache lines.  Adding a key gives the dict arrays of its own first. */
  AnotExprShape *shape;
  gboolean values_inline;
  /* The block it was carved from with the other records of its list
   * (holding a reference on it), or NULL: a block of its own. */
  AnotExprSlab *slab;
};

struct _AnotExprShape
{
  int ref_count;
  guint len;
  /* Binding from JSON: where each member was in the JsonObject's hash
   * table (up to 64 members), a guess for the next record. */
  guint8 table_pos[64];
  AnotExprValue keys[];
};

#define ANOT_EXPR_VALUE_NONE ((AnotExprValue) { .kind = ANOT_EXPR_NONE })

/* The ref_count of an interned str: immortal (< 0) and the one str of its
 * text in the process, so two interned strs are equal only if they are the
 * same block.  The string constants of formulas are interned (up to a
 * bound), and the keys and short strings bound from JSON that equal one of
 * them share it: e["kind"] == "firsthand" compares pointers. */
#define ANOT_EXPR_INTERNED (-2)

static inline gboolean
anot_expr_str_is_interned (const AnotExprStr *s)
{
  return s->ref_count == ANOT_EXPR_INTERNED;
}

/* Python == of two strs. */
static inline gboolean
anot_expr_str_equal (const AnotExprStr *a,
                     const AnotExprStr *b)
{
  if (a == b)
    return TRUE;
  if (a->len != b->len || (anot_expr_str_is_interned (a) && anot_expr_str_is_interned (b)))
    return FALSE;
  if (a->hash != 0 && b->hash != 0 && a->hash != b->hash)
    return FALSE;
  return memcmp (a->data, b->data, a->len) == 0;
}

/* The interned str of @len bytes at @text, or NULL.  With @insert, interns
 * it when it is not yet (unless too long, holding a NUL or the pool is
 * full: interning is bounded, the pool is never freed). */
ANOT_EXPR_PRIVATE
AnotExprStr  *anot_expr_str_intern         (const char          *text,
                                            gsize                len,
                                            gboolean             insert);

/* Limits of one evaluation; see anot_expr_scope_set_limits(). */
#define ANOT_EXPR_DEFAULT_MAX_STEPS      10000000
#define ANOT_EXPR_DEFAULT_MAX_ITEMS      1000000
#define ANOT_EXPR_DEFAULT_MAX_STRING     (16 * 1024 * 1024)
#define ANOT_EXPR_MAX_DEPTH              100
#define ANOT_EXPR_MAX_SOURCE             (64 * 1024)

static inline gboolean
anot_expr_kind_is_refcounted (AnotExprKind kind)
{
  return kind >= ANOT_EXPR_STR && kind <= ANOT_EXPR_DICT;
}

static inline AnotExprValue
anot_expr_value_ref (AnotExprValue v)
{
  if (anot_expr_kind_is_refcounted (v.kind))
    {
      int *rc = (int *) v.u.s;  /* ref_count is the first member of each */
      if (*rc > 0)
        (*rc)++;
    }
  return v;
}

ANOT_EXPR_PRIVATE
void anot_expr_value_free_block (AnotExprValue v);

static inline void
anot_expr_value_unref (AnotExprValue v)
{
  if (anot_expr_kind_is_refcounted (v.kind))
    {
      int *rc = (int *) v.u.s;
      if (*rc > 0 && --(*rc) == 0)
        anot_expr_value_free_block (v);
    }
}

static inline AnotExprValue
anot_expr_value_int (gint64 i)
{
  return (AnotExprValue) { .kind = ANOT_EXPR_INT, .u.i = i };
}

static inline AnotExprValue
anot_expr_value_float (double f)
{
  return (AnotExprValue) { .kind = ANOT_EXPR_FLOAT, .u.f = f };
}

static inline AnotExprValue
anot_expr_value_bool (gboolean b)
{
  return (AnotExprValue) { .kind = ANOT_EXPR_BOOL, .u.b = !!b };
}

ANOT_EXPR_PRIVATE
AnotExprValue anot_expr_value_new_string   (const char          *str,
                                            gssize               len);
/* The interned str of @text if there is one (comparisons with a
 * formula's constants are then by pointer), else a new one. */
ANOT_EXPR_PRIVATE
AnotExprValue anot_expr_value_new_string_shared (const char     *text);
ANOT_EXPR_PRIVATE
AnotExprValue anot_expr_value_take_string  (char                *str,
                                            gsize                len);
ANOT_EXPR_PRIVATE
AnotExprValue anot_expr_value_new_list     (guint                reserve);
ANOT_EXPR_PRIVATE
AnotExprValue anot_expr_value_new_tuple    (guint                reserve);
ANOT_EXPR_PRIVATE
AnotExprValue anot_expr_value_new_dict     (void);
/* Both take the references passed in. */
ANOT_EXPR_PRIVATE
void          anot_expr_seq_append         (AnotExprSeq         *seq,
                                            AnotExprValue        item);
ANOT_EXPR_PRIVATE
void          anot_expr_dict_set           (AnotExprDict        *dict,
                                            AnotExprValue        key,
                                            AnotExprValue        value);
/* Borrowed; NULL when absent. */
ANOT_EXPR_PRIVATE
AnotExprValue *anot_expr_dict_lookup       (AnotExprDict        *dict,
                                            AnotExprValue        key);
ANOT_EXPR_PRIVATE
AnotExprValue *anot_expr_dict_lookup_string (AnotExprDict       *dict,
                                            const char          *key);
/* Makes a value immortal (and everything it contains): for constants. */
ANOT_EXPR_PRIVATE
void          anot_expr_value_make_immortal (AnotExprValue       v);
/* Frees an immortal value and everything it contains. */
ANOT_EXPR_PRIVATE
void          anot_expr_value_free_immortal (AnotExprValue       v);

/* Python's type(v).__name__. */
ANOT_EXPR_PRIVATE
const char   *anot_expr_value_type_name    (AnotExprValue        v);
/* Python's bool(v). */
static inline gboolean
anot_expr_value_truthy (AnotExprValue v)
{
  switch (v.kind)
    {
    case ANOT_EXPR_NONE:
      return FALSE;
    case ANOT_EXPR_BOOL:
      return v.u.b;
    case ANOT_EXPR_INT:
      return v.u.i != 0;
    case ANOT_EXPR_FLOAT:
      return v.u.f != 0.0;
    case ANOT_EXPR_STR:
      return v.u.s->len > 0;
    case ANOT_EXPR_LIST:
    case ANOT_EXPR_TUPLE:
      return v.u.seq->len > 0;
    case ANOT_EXPR_DICT:
      return v.u.d->len > 0;
    case ANOT_EXPR_FUNC:
    case ANOT_EXPR_MODULE:
    case ANOT_EXPR_GENERATOR:
    default:
      return TRUE;
    }
}
/* Python ==. */
ANOT_EXPR_PRIVATE
gboolean      anot_expr_value_equal        (AnotExprValue        a,
                                            AnotExprValue        b);
/* Python hash() for the hashable kinds; FALSE for list and dict. */
ANOT_EXPR_PRIVATE
gboolean      anot_expr_value_hash         (AnotExprValue        v,
                                            guint32             *out);
/* Python str() and repr(). */
ANOT_EXPR_PRIVATE
char         *anot_expr_value_str          (AnotExprValue        v);
ANOT_EXPR_PRIVATE
char         *anot_expr_value_repr         (AnotExprValue        v);
/* Exact comparison of an int and a float: -1, 0, 1, or 2 for NaN. */
ANOT_EXPR_PRIVATE
int           anot_expr_compare_int_float  (gint64               i,
                                            double               f);
ANOT_EXPR_PRIVATE
const char   *anot_expr_builtin_get_name   (const AnotExprBuiltin *fn);
/* Code points in a str (cached). */
ANOT_EXPR_PRIVATE
gsize         anot_expr_str_n_chars        (AnotExprStr         *s);

/* JSON: objects become dicts, arrays lists, integers ints, other numbers
 * floats.  A NULL node gives None.  Values that JSON cannot hold (builtin
 * functions, non-finite floats) become null and dict keys become strings. */
ANOT_EXPR_PRIVATE
AnotExprValue anot_expr_value_from_json    (JsonNode            *node);
/* The same, sharing the key strings of objects and the short string
 * values through @keys (char * -> AnotExprValue *, owned by the caller's
 * table; see anot_expr_key_cache_new()): the records of a list repeat their
 * keys and their enum values.  Values are immutable, so sharing is safe. */
ANOT_EXPR_PRIVATE
AnotExprValue anot_expr_value_from_json_cached (JsonNode        *node,
                                                GHashTable      *keys);
ANOT_EXPR_PRIVATE
GHashTable   *anot_expr_key_cache_new      (void);
/* The same for a JSON object, a record of a list whose previous record
 * (nullable) is @prev, and for an array of records. */
ANOT_EXPR_PRIVATE
AnotExprValue anot_expr_value_from_json_record (JsonNode        *node,
                                                GHashTable      *keys,
                                                AnotExprDict    *prev);
ANOT_EXPR_PRIVATE
AnotExprValue anot_expr_value_from_json_array_cached (JsonArray *array,
                                                      GHashTable *keys);
/* The same readers for a value of a JSON text: an array of records as
 * anot_expr_value_from_json_array_cached() reads it, anything else as
 * anot_expr_value_from_json_cached(); a record with a repeated member
 * keeps its first position and last value, as json.loads() does. */
ANOT_EXPR_PRIVATE
AnotExprValue anot_expr_value_from_json_document (AnotJsonDocument *doc,
                                                  int               value,
                                                  GHashTable       *keys);
/* anot_expr_value_from_json_document() of a JSON array of flat records
 * (members of unescaped ASCII strings, numbers, booleans and null), read
 * in one pass from @text: %FALSE, with nothing kept, for any other text,
 * valid or not, which the document reader then reads. */
ANOT_EXPR_PRIVATE
gboolean      anot_expr_value_from_json_text (const char    *text,
                                              gsize          length,
                                              GHashTable    *keys,
                                              AnotExprValue *out);
/* Writes @v as anot_expr_value_to_json() builds it. */
ANOT_EXPR_PRIVATE
void          anot_expr_value_write_json   (AnotJsonWriter      *writer,
                                            AnotExprValue        v);
/* Position of @key in @dict, a str the caller has hashed; -1 if absent. */
ANOT_EXPR_PRIVATE
gssize        anot_expr_dict_find_str      (AnotExprDict        *dict,
                                            AnotExprStr         *key);
JsonNode     *anot_expr_value_to_json      (AnotExprValue        v);
/* How many items anot_expr_value_to_json() writes for @v (a list held
 * twice is written twice), counting no further than past @limit: what to
 * check before writing out a value a formula built. */
ANOT_EXPR_PRIVATE
guint64       anot_expr_value_expanded_items (AnotExprValue      v,
                                            guint64              limit);

/* The hash of a variable name in a scope (FNV-1a, never 0): the parser
 * and a Formula Seed compute it once per name, not per lookup. */
static inline guint32
anot_expr_name_hash (const char *name)
{
  guint32 h = 2166136261u;

  for (const guchar *p = (const guchar *) name; *p != '\0'; p++)
    h = (h ^ *p) * 16777619u;
  return h == 0 ? 1 : h;
}

/* Borrowed view of a scope's variable; NULL when unset.  Valid until the
 * scope's variables change. */
ANOT_EXPR_PRIVATE
AnotExprValue *anot_expr_scope_lookup      (AnotExprScope       *scope,
                                            const char          *name);
ANOT_EXPR_PRIVATE
AnotExprValue *anot_expr_scope_lookup_hashed (AnotExprScope     *scope,
                                            const char          *name,
                                            guint32              hash);
/* Takes the reference passed in. */
ANOT_EXPR_PRIVATE
void          anot_expr_scope_take_value   (AnotExprScope       *scope,
                                            const char          *name,
                                            AnotExprValue        value);
ANOT_EXPR_PRIVATE
void          anot_expr_scope_take_value_hashed (AnotExprScope  *scope,
                                            const char          *name,
                                            guint32              hash,
                                            AnotExprValue        value);
/* The same with a name the scope borrows: it must outlive the scope (see
 * anot_expr_scope_keep()). */
ANOT_EXPR_PRIVATE
void          anot_expr_scope_take_value_static (AnotExprScope  *scope,
                                            const char          *name,
                                            guint32              hash,
                                            AnotExprValue        value);
/* Room for @n variables, so that filling the scope does not grow it. */
ANOT_EXPR_PRIVATE
void          anot_expr_scope_reserve      (AnotExprScope       *scope,
                                            guint                n);
/* Keeps @data alive as long as @scope (one owner per scope: a Formula Seed
 * whose names the scope borrows); @free_func drops it. */
ANOT_EXPR_PRIVATE
void          anot_expr_scope_keep         (AnotExprScope       *scope,
                                            gpointer             data,
                                            GDestroyNotify       free_func);

/* ------------------------------------------------------------------------ *
 * Syntax tree
 * ------------------------------------------------------------------------ */

typedef enum {
  ANOT_EXPR_NODE_CONST,
  ANOT_EXPR_NODE_GLOBAL,     /* a name looked up in the scope, then builtins */
  ANOT_EXPR_NODE_LOCAL,      /* a comprehension variable: a slot */
  ANOT_EXPR_NODE_UNARY,
  ANOT_EXPR_NODE_BINARY,
  ANOT_EXPR_NODE_AND,
  ANOT_EXPR_NODE_OR,
  ANOT_EXPR_NODE_NOT,
  ANOT_EXPR_NODE_COMPARE,
  ANOT_EXPR_NODE_IFEXP,
  ANOT_EXPR_NODE_SUBSCRIPT,
  ANOT_EXPR_NODE_SLICE,
  ANOT_EXPR_NODE_ATTR,
  ANOT_EXPR_NODE_CALL,
  ANOT_EXPR_NODE_LIST,
  ANOT_EXPR_NODE_TUPLE,
  ANOT_EXPR_NODE_DICT,
  ANOT_EXPR_NODE_GENEXP,
  ANOT_EXPR_NODE_LISTCOMP,
  ANOT_EXPR_NODE_DICTCOMP,
} AnotExprNodeKind;

typedef enum {
  ANOT_EXPR_OP_ADD,
  ANOT_EXPR_OP_SUB,
  ANOT_EXPR_OP_MUL,
  ANOT_EXPR_OP_DIV,
  ANOT_EXPR_OP_FLOORDIV,
  ANOT_EXPR_OP_MOD,
  ANOT_EXPR_OP_POW,
  ANOT_EXPR_OP_NEG,
  ANOT_EXPR_OP_POS,
  ANOT_EXPR_OP_EQ,
  ANOT_EXPR_OP_NE,
  ANOT_EXPR_OP_LT,
  ANOT_EXPR_OP_LE,
  ANOT_EXPR_OP_GT,
  ANOT_EXPR_OP_GE,
  ANOT_EXPR_OP_IN,
  ANOT_EXPR_OP_NOT_IN,
  ANOT_EXPR_OP_IS,
  ANOT_EXPR_OP_IS_NOT,
} AnotExprOp;

typedef struct _AnotExprNode   AnotExprNode;
typedef struct _AnotExprTarget AnotExprTarget;
typedef struct _AnotExprClause AnotExprClause;

/* A comprehension target: a name (n_items == 0) or a tuple of targets. */
struct _AnotExprTarget
{
  const char *name;
  guint slot;
  guint offset;
  guint n_items;
  AnotExprTarget *items;
};

typedef struct _AnotExprFast AnotExprFast;

struct _AnotExprClause
{
  AnotExprTarget target;
  AnotExprNode *iter;
  guint n_ifs;
  AnotExprNode **ifs;
  /* The filters compiled by anot_expr_compile_fast(), one per if, or NULL
   * when one of them is not a shape it compiles; and the most steps they
   * can take together. */
  AnotExprFast **fast_ifs;
  guint64 fast_max_steps;
};

struct _AnotExprNode
{
  AnotExprNodeKind kind;
  guint offset;           /* bytes into the source, for error positions */
  guint depth;            /* height of the subtree, bounded by the parser */
  /* SUBSCRIPT by a constant string: where the key was found last time, an
   * inline cache for dicts of the same layout (read and written with
   * relaxed atomics: several threads may evaluate one tree). */
  guint cache;
  union {
    AnotExprValue constant;
    struct {
      const char *name;
      guint slot;         /* LOCAL only */
    } name;
    struct {
      AnotExprOp op;
      AnotExprNode *a;
      AnotExprNode *b;
    } op;
    struct {
      guint n;
      AnotExprNode **items;   /* AND, OR, LIST, TUPLE; DICT keys */
      AnotExprNode **values;  /* DICT values */
    } seq;
    struct {
      AnotExprNode *first;
      guint n;
      AnotExprOp *ops;
      AnotExprNode **rest;
    } compare;
    struct {
      AnotExprNode *test;
      AnotExprNode *body;
      AnotExprNode *orelse;
    } ifexp;
    struct {
      AnotExprNode *object;
      AnotExprNode *index;    /* SUBSCRIPT */
      AnotExprNode *lower;    /* SLICE: each may be NULL */
      AnotExprNode *upper;
      AnotExprNode *step;
    } sub;
    struct {
      AnotExprNode *object;
      const char *name;
    } attr;
    struct {
      AnotExprNode *func;
      guint n_args;
      AnotExprNode **args;
      guint n_kwargs;
      const char **kwnames;
      AnotExprNode **kwargs;
    } call;
    struct {
      AnotExprNode *elt;      /* DICTCOMP: the key */
      AnotExprNode *value;    /* DICTCOMP only */
      guint n_clauses;
      AnotExprClause *clauses;
    } comp;
  } u;
};

struct _AnotExpr
{
  int ref_count;          /* atomic */
  char *source;
  char *name;             /* nullable */
  GPtrArray *allocs;      /* the tree, names and constants */
  AnotExprNode *root;
  guint n_slots;          /* comprehension variables */
  guint n_free;
  const char **free_names;  /* NULL-terminated; borrowed from @allocs */
  const AnotExprBuiltin **free_builtins;  /* the builtin of each free name, or NULL */
  guint32 *free_hashes;   /* anot_expr_name_hash() of each free name */
};

/* A variable of a scope. */
typedef struct {
  char *name;
  guint32 hash;
  gboolean owned;         /* else borrowed, see anot_expr_scope_keep() */
  AnotExprValue value;
} AnotExprVar;

#define SCOPE_CHUNK 16
#define SCOPE_VAR(scope, i) (&(scope)->chunks[(i) / SCOPE_CHUNK][(i) % SCOPE_CHUNK])

struct _AnotExprScope
{
  int ref_count;          /* atomic */
  /* The variables, in no particular order, and an open-addressing index
   * of their positions (+ 1; 0 = empty) by name hash: lookups by a
   * precomputed hash cost a probe and a strcmp(). */
  AnotExprVar **chunks;   /* SCOPE_CHUNK variables each */
  guint n_vars;
  guint alloc_vars;
  guint32 *index;
  guint index_size;       /* power of two, at least twice n_vars */
  gpointer kept;
  GDestroyNotify kept_free;
  /* The Formula Seed whose anot_formula_seed_new_scope() filled the scope,
   * until a variable is added: then its steps' names are not in it. */
  gpointer filled_by;
  GHashTable *builtins;   /* enabled builtin names, or NULL for all */
  guint32 builtin_mask;   /* the same, by anot_expr_builtin_index() */
  guint64 max_steps;
  guint max_items;
  gsize max_string;
  guint64 last_steps;
};

/* A builtin function, a method or the math module.  See anot-expr-eval.c. */
ANOT_EXPR_PRIVATE
const AnotExprBuiltin *anot_expr_builtin_lookup (const char *name);
ANOT_EXPR_PRIVATE
const char * const    *anot_expr_builtin_names  (void);
/* Position of @fn among the builtins (< 32). */
ANOT_EXPR_PRIVATE
guint                  anot_expr_builtin_index  (const AnotExprBuiltin *fn);

/* A dict whose .get(text, default) returns the value of the first key that
 * occurs in @text, case-insensitively: a lookup table of a Formula Seed.
 * Takes the reference passed in; returns it. */
ANOT_EXPR_PRIVATE
AnotExprValue anot_expr_value_make_lookup  (AnotExprValue        dict);

/* What went wrong in a parse or an evaluation, before it becomes a
 * GError. */
typedef struct {
  AnotError code;
  guint offset;           /* bytes into the source */
  char *message;          /* "NameError: name 'x' is not defined" */
} AnotExprFailure;

/* Nesting of brackets and unary operators the parser accepts, and the
 * height of the tree: both bound the recursion of parser and evaluator. */
#define ANOT_EXPR_MAX_NESTING 200
#define ANOT_EXPR_MAX_TREE_DEPTH 1000

/* The parser: builds the tree of @source in memory owned by @allocs (a
 * GPtrArray with g_free as its free function; constants are immortal values
 * whose blocks are in @allocs too), resolves comprehension variables to
 * slots and appends the free names (borrowed from @allocs) to @free_names
 * in order of first use. */
ANOT_EXPR_PRIVATE
AnotExprNode *anot_expr_parse_tree         (const char          *source,
                                            GPtrArray           *allocs,
                                            guint               *n_slots,
                                            GPtrArray           *free_names,
                                            AnotExprFailure     *failure);

ANOT_EXPR_PRIVATE
void          anot_expr_failure_clear      (AnotExprFailure     *failure);

/* Compiles the comprehension filters of the tree under @root that test
 * fields of the comprehension variable against string constants
 * (x["k"] == "v", x["k"] != "v", x["k"] in ("a", "b"), and/or/not of
 * those) into programs the evaluator runs without the general machinery.
 * Memory goes to @allocs. */
ANOT_EXPR_PRIVATE
void          anot_expr_compile_fast       (AnotExprNode        *root,
                                            GPtrArray           *allocs);
/* Whether the evaluator may use its fast paths (compiled filters, the
 * fast filter tests); FALSE makes it take the general path everywhere, so
 * the tests can compare the two.  Default TRUE; for tests only. */
ANOT_EXPR_PRIVATE
void          anot_expr_set_fast_paths     (gboolean             enabled);

/* Evaluates @self in @scope.  On success, *result holds a new reference.
 * On failure, @failure is filled in (when not NULL). */
ANOT_EXPR_PRIVATE
gboolean      anot_expr_eval_value         (AnotExpr            *self,
                                            AnotExprScope       *scope,
                                            AnotExprValue       *result,
                                            AnotExprFailure     *failure);
/* A program: expressions run in order over one scope, each reading the
 * values of the ones before it by name (a Formula Seed's compute DAG).  The
 * names the expressions read are gathered in one table when the program is
 * built, so that a run looks each up in the scope once, not once per
 * expression that reads it, and one evaluator state serves every step. */
typedef struct {
  AnotExpr *expr;
  guint *free_index;      /* each free name of @expr: its position in the table */
  gint target;            /* the table position the value goes to, or -1 */
  gboolean integral;      /* a failed step is 0 (else 0.0) in the original's mode */
  gint count_group;       /* its AnotExprCountGroup, or -1 */
  AnotExprClause *count;  /* then the clause of its generator expression */
} AnotExprProgramStep;

/* Steps of the shape sum(1 for x in NAME if FILTER) over the same NAME
 * (anot_expr_count_name()): a run counts them all in one pass over NAME,
 * when NAME and sum are what they are for every step (no step writes
 * them), falling back to evaluating each step when the pass cannot give
 * the value (or error) the step would. */
#define ANOT_EXPR_COUNT_MAX_MEMBERS 16

typedef struct _AnotExprCountPass AnotExprCountPass;

typedef struct {
  guint iter;             /* NAME's table position */
  guint sum;              /* sum's */
  GArray *members;        /* guint: the steps */
  AnotExprCountPass *pass;  /* the members' filters, ready to run */
} AnotExprCountGroup;

typedef struct {
  GPtrArray *names;       /* the table: borrowed from the steps' expressions */
  GArray *hashes;         /* guint32, anot_expr_name_hash() of each name */
  GArray *builtins;       /* const AnotExprBuiltin *, or NULL */
  /* Whether a run starts the name with its value in the scope (then the
   * builtin), else undefined: FALSE only for the names of steps that no
   * step reads before they are written. */
  GArray *from_scope;     /* gboolean */
  GArray *steps;          /* AnotExprProgramStep */
  GArray *written;        /* gboolean per name: a step's target */
  GArray *count_groups;   /* AnotExprCountGroup */
  guint max_free;
  guint max_slots;
} AnotExprProgram;

/* The clause of sum(1 for x in NAME if FILTER), with FILTER a test of
 * fields of x against string constants that the evaluator compiled; else
 * NULL. */
ANOT_EXPR_PRIVATE
AnotExprClause *anot_expr_count_clause     (AnotExpr            *self);

/* How many steps programs have counted in a pass with others so far, in
 * this process; for tests. */
ANOT_EXPR_PRIVATE
guint         anot_expr_get_counted_steps  (void);

/* The filters of @group's steps, as a run of @program counts them. */
ANOT_EXPR_PRIVATE
AnotExprCountPass *anot_expr_count_pass_new (const AnotExprProgram *program,
                                            const AnotExprCountGroup *group);
ANOT_EXPR_PRIVATE
void          anot_expr_count_pass_free    (AnotExprCountPass   *pass);

ANOT_EXPR_PRIVATE
AnotExprProgram *anot_expr_program_new     (void);
ANOT_EXPR_PRIVATE
void          anot_expr_program_free       (AnotExprProgram     *program);
/* Appends @expr (a reference is taken), whose value is stored under
 * @target (nullable: nowhere; borrowed, it must outlive @program) for the
 * later steps. */
ANOT_EXPR_PRIVATE
void          anot_expr_program_add_step   (AnotExprProgram     *program,
                                            AnotExpr            *expr,
                                            const char          *target,
                                            gboolean             integral);
/* Runs @program's steps in order in @scope, which is not changed (but its
 * last step count).  results[i] gets step i's value, a new reference (on
 * failure 0 or 0.0 with @original, else None) and succeeded[i] whether it
 * ran.  A failed step's name is 0 or 0.0 for the later steps with
 * @original, else undefined.  @failures (nullable) gets each failed step's
 * failure (zero-filled by the caller; the failures it fills in must be
 * cleared); without it the messages are not formatted.  Returns the number
 * of failed steps. */
/* Stores in @scope what anot_expr_program_run() gave: each step's value
 * under its target name, in order (a failed step's name is removed, unless
 * with @original), taking the references in @results; the value of a step
 * without a target is dropped.  @borrow_names: the scope may borrow the
 * names (it keeps what owns them alive); @absent: no target name is in
 * the scope yet, they need no looking for. */
ANOT_EXPR_PRIVATE
void          anot_expr_program_store      (const AnotExprProgram *program,
                                            AnotExprScope       *scope,
                                            gboolean             original,
                                            AnotExprValue       *results,
                                            const gboolean      *succeeded,
                                            gboolean             borrow_names,
                                            gboolean             absent);
ANOT_EXPR_PRIVATE
guint         anot_expr_program_run        (const AnotExprProgram *program,
                                            AnotExprScope       *scope,
                                            gboolean             original,
                                            AnotExprValue       *results,
                                            gboolean            *succeeded,
                                            AnotExprFailure     *failures);
/* "formula “name”, column 12: NameError: ..." from a failure. */
ANOT_EXPR_PRIVATE
GError       *anot_expr_failure_to_error   (AnotExpr            *self,
                                            const AnotExprFailure *failure);
/* The same message appended to @out, without a GError (a trace writes one
 * per failed step); *@column (optional) is the column it names. */
ANOT_EXPR_PRIVATE
void          anot_expr_failure_append_message (AnotExpr              *self,
                                                const AnotExprFailure *failure,
                                                GString               *out,
                                                guint                 *column);
/* 1-based line and column (in characters) of a byte offset. */
ANOT_EXPR_PRIVATE
void          anot_expr_offset_to_position (const char          *source,
                                            guint                offset,
                                            guint               *line,
                                            guint               *column);

G_END_DECLS
