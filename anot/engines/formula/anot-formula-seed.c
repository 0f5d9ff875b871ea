/* anot-formula-seed.c: the Formula Seed of General ANoT
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#define ANOT_EXPR_IMPLEMENTATION

#include "anot-formula-seed.h"
#include "anot-formula-seed-private.h"

#include "anot-json-private.h"
#include "anot-text-private.h"

#include <string.h>

#include "anot-error.h"
#include "anot-expr-private.h"
#include "anot-pyliteral-private.h"

/**
 * AnotFormulaSeed:
 *
 * What General ANoT's Phase 1 turns a task formula into, and what its
 * Phase 2 executes for every item: which reviews are relevant
 * (`filter_keywords`), what to extract from each of them
 * (`extraction_fields`, `extraction_prompt`), how to compute the results
 * from the extractions (`compute_dag`, a list of named formulas in the
 * language of [struct@Anot.Expr], each one able to read the ones before)
 * and which results to report (`output_fields`).
 *
 * The keys are fixed by the code, not by the LLM that writes a seed (see
 * `docs/general-anot.md` for the format).  A seed is validated when it is
 * loaded: required keys, their types, the field types and enum values,
 * formulas that parse, every name a formula reads defined by the namespace
 * or an earlier step, every output field defined; an error names the key at
 * fault, such as `compute_dag[3].formula`.
 *
 * The seeds that the original framework's Phase 1 generated have a larger
 * shape, which loads too: the DAG under `computations` (with `depends_on`,
 * `description`, `is_aggregate`, `is_output`), fields typed by `field_type`,
 * and `array_assemblies` (lists over the extractions), `lookups` (tables
 * bound by name) and `name_map`.
 *
 * An #AnotFormulaSeed is immutable once loaded and can be shared between
 * threads.
 */

typedef struct {
  char *name;
  char *type;               /* enum, string, int, float, bool */
  char **values;            /* enum only */
  JsonObject *object;       /* as loaded, for to_json() */
} Field;

typedef struct {
  char *name;
  char *formula;
  AnotExpr *expr;
  gboolean is_aggregate;
  gboolean shadowed;        /* a lookup of the same name hides the step */
  guint32 hash;             /* anot_expr_name_hash() of @name */
  JsonObject *object;
  char *quoted_name;        /* @name as a trace writes it */
  gsize quoted_name_length;
} Step;

typedef struct {
  char *name;
  char *source_field;
} Assembly;

typedef struct {
  char *name;
  char *source_field;
  JsonNode *mapping;
  JsonNode *default_value;  /* nullable */
  AnotExprValue table;      /* the mapping, immortal: shared by all scopes */
} Lookup;

struct _AnotFormulaSeed
{
  int ref_count;
  char *task_name;
  char **filter_keywords;
  char **filter_lower;
  GPtrArray *fields;        /* Field */
  char *extraction_prompt;
  GPtrArray *steps;         /* Step */
  char *dag_key;            /* "compute_dag" or "computations" */
  GPtrArray *assemblies;    /* Assembly */
  GPtrArray *lookups;       /* Lookup */
  JsonNode *array_assemblies;  /* as loaded, nullable */
  JsonNode *lookups_node;
  JsonNode *name_map;
  char **output_fields;
  gssize *output_steps;     /* the last step of each output's name, or -1 */
  char **quoted_outputs;    /* the output fields as a trace writes them */
  gsize *quoted_output_lengths;
  char **warnings;
  /* The steps, ready to run: a step's value reaches the later formulas
   * that read its name, unless a lookup shadows it. */
  AnotExprProgram *program;
};

G_DEFINE_BOXED_TYPE (AnotFormulaSeed, anot_formula_seed, anot_formula_seed_ref, anot_formula_seed_unref)

static const char * const field_types[] = { "enum", "string", "int", "float", "bool", NULL };

/* The names every formula can read besides the steps. */
#define EXTRACTIONS "extractions"
/* The item's categories: `item_category` in any domain, and
 * `restaurant_category`, the original's name, which Formula Seeds written
 * for restaurants (files, caches) read: both are always bound. */
#define CATEGORIES "restaurant_category"
#define ITEM_CATEGORIES "item_category"

static gboolean
is_categories (const char *name)
{
  return strcmp (name, CATEGORIES) == 0 || strcmp (name, ITEM_CATEGORIES) == 0;
}

static void
field_free (gpointer data)
{
  Field *f = data;

  g_free (f->name);
  g_free (f->type);
  g_strfreev (f->values);
  g_clear_pointer (&f->object, json_object_unref);
  g_free (f);
}

static void
step_free (gpointer data)
{
  Step *s = data;

  g_free (s->name);
  g_free (s->quoted_name);
  g_free (s->formula);
  g_clear_pointer (&s->expr, anot_expr_unref);
  g_clear_pointer (&s->object, json_object_unref);
  g_free (s);
}

static void
assembly_free (gpointer data)
{
  Assembly *a = data;

  g_free (a->name);
  g_free (a->source_field);
  g_free (a);
}

static void
lookup_free (gpointer data)
{
  Lookup *l = data;

  g_free (l->name);
  g_free (l->source_field);
  g_clear_pointer (&l->mapping, json_node_unref);
  g_clear_pointer (&l->default_value, json_node_unref);
  anot_expr_value_free_immortal (l->table);
  g_free (l);
}

/* ------------------------------------------------------------------------ *
 * Loading and validation
 * ------------------------------------------------------------------------ */

static gboolean G_GNUC_PRINTF (3, 4)
seed_error (GError     **error,
            AnotError    code,
            const char  *format,
            ...)
{
  va_list args;
  g_autofree char *message = NULL;

  va_start (args, format);
  message = g_strdup_vprintf (format, args);
  va_end (args);
  g_set_error (error, ANOT_ERROR, code, "Formula Seed: %s", message);
  return FALSE;
}

static const char *
json_type_name (JsonNode *node)
{
  if (node == NULL || JSON_NODE_HOLDS_NULL (node))
    return "null";
  if (JSON_NODE_HOLDS_OBJECT (node))
    return "an object";
  if (JSON_NODE_HOLDS_ARRAY (node))
    return "an array";
  switch (json_node_get_value_type (node))
    {
    case G_TYPE_STRING: return "a string";
    case G_TYPE_BOOLEAN: return "a boolean";
    default: return "a number";
    }
}

static gboolean
is_string (JsonNode *node)
{
  return node != NULL && JSON_NODE_HOLDS_VALUE (node) && json_node_get_value_type (node) == G_TYPE_STRING;
}

/* A required or optional string member; *out borrowed. */
static gboolean
get_string (JsonObject  *object,
            const char  *member,
            const char  *path,
            gboolean     required,
            const char **out,
            GError     **error)
{
  JsonNode *node = json_object_get_member (object, member);

  *out = NULL;
  if (node == NULL || (!required && JSON_NODE_HOLDS_NULL (node)))
    {
      if (required)
        return seed_error (error, ANOT_ERROR_MISSING_FIELD, "%s%s: the key is missing", path, member);
      return TRUE;
    }
  if (!is_string (node))
    return seed_error (error, ANOT_ERROR_INVALID_FIELD, "%s%s: must be a string, not %s",
                       path, member, json_type_name (node));
  *out = json_node_get_string (node);
  return TRUE;
}

static gboolean
is_identifier (const char *name)
{
  static const char * const keywords[] = {
    "False", "None", "True", "and", "as", "assert", "async", "await", "break",
    "class", "continue", "def", "del", "elif", "else", "except", "finally",
    "for", "from", "global", "if", "import", "in", "is", "lambda", "nonlocal",
    "not", "or", "pass", "raise", "return", "try", "while", "with", "yield",
    NULL
  };

  if (!(g_ascii_isalpha (name[0]) || name[0] == '_'))
    return FALSE;
  for (const char *p = name; *p != '\0'; p++)
    if (!g_ascii_isalnum (*p) && *p != '_')
      return FALSE;
  if (name[0] == '_' && name[1] == '_')
    return FALSE;
  return !g_strv_contains (keywords, name);
}

/* An array of non-empty strings. */
static char **
get_string_list (JsonObject  *object,
                 const char  *member,
                 gboolean     required,
                 gboolean     non_empty,
                 GError     **error)
{
  JsonNode *node = json_object_get_member (object, member);
  g_autoptr(GPtrArray) list = g_ptr_array_new_with_free_func (g_free);
  JsonArray *array;

  if (node == NULL)
    {
      if (required)
        seed_error (error, ANOT_ERROR_MISSING_FIELD, "%s: the key is missing", member);
      else
        g_ptr_array_add (list, NULL);
      return required ? NULL : (char **) g_ptr_array_free (g_steal_pointer (&list), FALSE);
    }
  if (!JSON_NODE_HOLDS_ARRAY (node))
    {
      seed_error (error, ANOT_ERROR_INVALID_FIELD, "%s: must be an array of strings, not %s",
                  member, json_type_name (node));
      return NULL;
    }
  array = json_node_get_array (node);
  for (guint i = 0; i < json_array_get_length (array); i++)
    {
      JsonNode *item = json_array_get_element (array, i);

      if (!is_string (item) || *json_node_get_string (item) == '\0')
        {
          seed_error (error, ANOT_ERROR_INVALID_FIELD, "%s[%u]: must be a non-empty string, not %s",
                      member, i, is_string (item) ? "an empty string" : json_type_name (item));
          return NULL;
        }
      g_ptr_array_add (list, g_strdup (json_node_get_string (item)));
    }
  if (non_empty && list->len == 0)
    {
      seed_error (error, ANOT_ERROR_INVALID_FIELD, "%s: must not be empty", member);
      return NULL;
    }
  g_ptr_array_add (list, NULL);
  return (char **) g_ptr_array_free (g_steal_pointer (&list), FALSE);
}

static const char *
normalise_type (const char *type)
{
  static const struct { const char *alias; const char *type; } aliases[] = {
    { "enum", "enum" }, { "categorical", "enum" },
    { "string", "string" }, { "str", "string" }, { "text", "string" },
    { "int", "int" }, { "integer", "int" },
    { "float", "float" }, { "number", "float" }, { "real", "float" },
    { "bool", "bool" }, { "boolean", "bool" },
  };
  g_autofree char *lower = g_ascii_strdown (type, -1);

  for (guint i = 0; i < G_N_ELEMENTS (aliases); i++)
    if (strcmp (lower, aliases[i].alias) == 0)
      return aliases[i].type;
  return NULL;
}

static gboolean
load_fields (AnotFormulaSeed  *self,
             JsonObject       *root,
             GError          **error)
{
  JsonNode *node = json_object_get_member (root, "extraction_fields");
  JsonArray *array;

  if (node == NULL)
    return seed_error (error, ANOT_ERROR_MISSING_FIELD, "extraction_fields: the key is missing");
  if (!JSON_NODE_HOLDS_ARRAY (node))
    return seed_error (error, ANOT_ERROR_INVALID_FIELD, "extraction_fields: must be an array of objects, not %s",
                       json_type_name (node));
  array = json_node_get_array (node);
  if (json_array_get_length (array) == 0)
    return seed_error (error, ANOT_ERROR_INVALID_FIELD, "extraction_fields: must not be empty");

  for (guint i = 0; i < json_array_get_length (array); i++)
    {
      JsonNode *item = json_array_get_element (array, i);
      g_autofree char *path = g_strdup_printf ("extraction_fields[%u].", i);
      JsonObject *object;
      const char *name, *type = NULL, *field_type = NULL;
      const char *normal;
      Field *f;

      if (!JSON_NODE_HOLDS_OBJECT (item))
        return seed_error (error, ANOT_ERROR_INVALID_FIELD, "extraction_fields[%u]: must be an object, not %s",
                           i, json_type_name (item));
      object = json_node_get_object (item);
      if (!get_string (object, "name", path, TRUE, &name, error) ||
          !get_string (object, "type", path, FALSE, &type, error) ||
          !get_string (object, "field_type", path, FALSE, &field_type, error))
        return FALSE;
      if (!is_identifier (name))
        return seed_error (error, ANOT_ERROR_INVALID_FIELD,
                           "%sname: “%s” is not an identifier (letters, digits and _, not starting with a digit)",
                           path, name);
      for (guint k = 0; k < self->fields->len; k++)
        if (strcmp (((Field *) self->fields->pdata[k])->name, name) == 0)
          return seed_error (error, ANOT_ERROR_INVALID_FIELD, "%sname: “%s” is defined twice", path, name);
      if (type == NULL)
        type = field_type;
      if (type == NULL)
        return seed_error (error, ANOT_ERROR_MISSING_FIELD, "%stype: the key is missing", path);
      normal = normalise_type (type);
      if (normal == NULL)
        {
          g_autofree char *allowed = g_strjoinv (", ", (char **) field_types);

          return seed_error (error, ANOT_ERROR_INVALID_FIELD, "%stype: “%s” is not one of %s", path, type, allowed);
        }

      f = g_new0 (Field, 1);
      f->name = g_strdup (name);
      f->type = g_strdup (normal);
      f->object = json_object_ref (object);
      g_ptr_array_add (self->fields, f);

      if (strcmp (normal, "enum") == 0)
        {
          JsonNode *values = json_object_get_member (object, "values");
          JsonArray *va;
          g_autoptr(GPtrArray) list = g_ptr_array_new_with_free_func (g_free);

          if (values == NULL)
            return seed_error (error, ANOT_ERROR_MISSING_FIELD, "%svalues: the key is missing (an enum lists its values)", path);
          if (!JSON_NODE_HOLDS_ARRAY (values))
            return seed_error (error, ANOT_ERROR_INVALID_FIELD, "%svalues: must be an array of strings, not %s",
                               path, json_type_name (values));
          va = json_node_get_array (values);
          for (guint k = 0; k < json_array_get_length (va); k++)
            {
              JsonNode *v = json_array_get_element (va, k);

              if (!is_string (v) || *json_node_get_string (v) == '\0')
                return seed_error (error, ANOT_ERROR_INVALID_FIELD, "%svalues[%u]: must be a non-empty string", path, k);
              for (guint m = 0; m < list->len; m++)
                if (g_ascii_strcasecmp (list->pdata[m], json_node_get_string (v)) == 0)
                  return seed_error (error, ANOT_ERROR_INVALID_FIELD, "%svalues[%u]: “%s” is listed twice",
                                     path, k, json_node_get_string (v));
              g_ptr_array_add (list, g_strdup (json_node_get_string (v)));
            }
          if (list->len == 0)
            return seed_error (error, ANOT_ERROR_INVALID_FIELD, "%svalues: an enum needs at least one value", path);
          /* The values extractions hold, like the constants formulas
           * compare them with: interned, so comparisons are of pointers. */
          for (guint m = 0; m < list->len; m++)
            anot_expr_str_intern (list->pdata[m], strlen (list->pdata[m]), TRUE);
          g_ptr_array_add (list, NULL);
          f->values = (char **) g_ptr_array_free (g_steal_pointer (&list), FALSE);
        }
    }
  return TRUE;
}

static gboolean
load_assemblies_and_lookups (AnotFormulaSeed  *self,
                             JsonObject       *root,
                             GError          **error)
{
  JsonNode *node = json_object_get_member (root, "array_assemblies");

  if (node != NULL && !JSON_NODE_HOLDS_NULL (node))
    {
      JsonArray *array;

      if (!JSON_NODE_HOLDS_ARRAY (node))
        return seed_error (error, ANOT_ERROR_INVALID_FIELD, "array_assemblies: must be an array of objects, not %s",
                           json_type_name (node));
      array = json_node_get_array (node);
      for (guint i = 0; i < json_array_get_length (array); i++)
        {
          JsonNode *item = json_array_get_element (array, i);
          g_autofree char *path = g_strdup_printf ("array_assemblies[%u].", i);
          const char *name, *source;
          Assembly *a;

          if (!JSON_NODE_HOLDS_OBJECT (item))
            return seed_error (error, ANOT_ERROR_INVALID_FIELD, "array_assemblies[%u]: must be an object", i);
          if (!get_string (json_node_get_object (item), "array_name", path, TRUE, &name, error) ||
              !get_string (json_node_get_object (item), "source_field", path, TRUE, &source, error))
            return FALSE;
          if (!is_identifier (name))
            return seed_error (error, ANOT_ERROR_INVALID_FIELD, "%sarray_name: “%s” is not an identifier", path, name);
          a = g_new0 (Assembly, 1);
          a->name = g_strdup (name);
          a->source_field = g_strdup (source);
          g_ptr_array_add (self->assemblies, a);
        }
      self->array_assemblies = json_node_copy (node);
    }

  node = json_object_get_member (root, "lookups");
  if (node != NULL && !JSON_NODE_HOLDS_NULL (node))
    {
      JsonArray *array;

      if (!JSON_NODE_HOLDS_ARRAY (node))
        return seed_error (error, ANOT_ERROR_INVALID_FIELD, "lookups: must be an array of objects, not %s",
                           json_type_name (node));
      array = json_node_get_array (node);
      for (guint i = 0; i < json_array_get_length (array); i++)
        {
          JsonNode *item = json_array_get_element (array, i);
          g_autofree char *path = g_strdup_printf ("lookups[%u].", i);
          JsonObject *object;
          const char *name, *source;
          JsonNode *mapping;
          Lookup *l;

          if (!JSON_NODE_HOLDS_OBJECT (item))
            return seed_error (error, ANOT_ERROR_INVALID_FIELD, "lookups[%u]: must be an object", i);
          object = json_node_get_object (item);
          if (!get_string (object, "name", path, TRUE, &name, error) ||
              !get_string (object, "source_field", path, FALSE, &source, error))
            return FALSE;
          if (!is_identifier (name))
            return seed_error (error, ANOT_ERROR_INVALID_FIELD, "%sname: “%s” is not an identifier", path, name);
          mapping = json_object_get_member (object, "mapping");
          if (mapping == NULL)
            return seed_error (error, ANOT_ERROR_MISSING_FIELD, "%smapping: the key is missing", path);
          if (!JSON_NODE_HOLDS_OBJECT (mapping))
            return seed_error (error, ANOT_ERROR_INVALID_FIELD, "%smapping: must be an object, not %s",
                               path, json_type_name (mapping));
          l = g_new0 (Lookup, 1);
          l->name = g_strdup (name);
          l->source_field = g_strdup (source);
          l->mapping = json_node_copy (mapping);
          l->table = anot_expr_value_make_lookup (anot_expr_value_from_json (mapping));
          anot_expr_value_make_immortal (l->table);
          if (json_object_has_member (object, "default"))
            l->default_value = json_node_copy (json_object_get_member (object, "default"));
          g_ptr_array_add (self->lookups, l);
        }
      self->lookups_node = json_node_copy (node);
    }

  node = json_object_get_member (root, "name_map");
  if (node != NULL && !JSON_NODE_HOLDS_NULL (node))
    {
      if (!JSON_NODE_HOLDS_OBJECT (node))
        return seed_error (error, ANOT_ERROR_INVALID_FIELD, "name_map: must be an object, not %s",
                           json_type_name (node));
      self->name_map = json_node_copy (node);
    }
  return TRUE;
}

static Lookup *
find_lookup (AnotFormulaSeed *self,
             const char      *name)
{
  for (guint i = 0; i < self->lookups->len; i++)
    if (strcmp (((Lookup *) self->lookups->pdata[i])->name, name) == 0)
      return self->lookups->pdata[i];
  return NULL;
}

static gboolean
is_assembly (AnotFormulaSeed *self,
             const char      *name)
{
  for (guint i = 0; i < self->assemblies->len; i++)
    if (strcmp (((Assembly *) self->assemblies->pdata[i])->name, name) == 0)
      return TRUE;
  return FALSE;
}

static gssize
find_step (AnotFormulaSeed *self,
           const char      *name)
{
  for (guint i = 0; i < self->steps->len; i++)
    if (strcmp (((Step *) self->steps->pdata[i])->name, name) == 0)
      return i;
  return -1;
}

static gboolean
load_steps (AnotFormulaSeed  *self,
            JsonObject       *root,
            GError          **error)
{
  JsonNode *dag = json_object_get_member (root, "compute_dag");
  JsonNode *computations = json_object_get_member (root, "computations");
  const char *key = "compute_dag";
  JsonArray *array;

  if (dag != NULL && computations != NULL)
    return seed_error (error, ANOT_ERROR_INVALID_FIELD,
                       "compute_dag and computations are both present; a seed has one compute DAG");
  if (dag == NULL && computations == NULL)
    return seed_error (error, ANOT_ERROR_MISSING_FIELD, "compute_dag: the key is missing");
  if (dag == NULL)
    {
      dag = computations;
      key = "computations";
    }
  self->dag_key = g_strdup (key);
  if (!JSON_NODE_HOLDS_ARRAY (dag))
    return seed_error (error, ANOT_ERROR_INVALID_FIELD, "%s: must be an array of {name, formula} objects, not %s",
                       key, json_type_name (dag));
  array = json_node_get_array (dag);
  if (json_array_get_length (array) == 0)
    return seed_error (error, ANOT_ERROR_INVALID_FIELD, "%s: must not be empty", key);

  for (guint i = 0; i < json_array_get_length (array); i++)
    {
      JsonNode *item = json_array_get_element (array, i);
      g_autofree char *path = g_strdup_printf ("%s[%u].", key, i);
      g_autoptr(GError) local = NULL;
      JsonObject *object;
      JsonNode *aggregate;
      const char *name, *formula;
      gssize other;
      Step *s;

      if (!JSON_NODE_HOLDS_OBJECT (item))
        return seed_error (error, ANOT_ERROR_INVALID_FIELD, "%s[%u]: must be an object, not %s",
                           key, i, json_type_name (item));
      object = json_node_get_object (item);
      if (!get_string (object, "name", path, TRUE, &name, error) ||
          !get_string (object, "formula", path, TRUE, &formula, error))
        return FALSE;
      if (!is_identifier (name))
        return seed_error (error, ANOT_ERROR_INVALID_FIELD,
                           "%sname: “%s” is not an identifier (letters, digits and _, not starting with a digit)",
                           path, name);
      if (strcmp (name, EXTRACTIONS) == 0 || is_categories (name) || is_assembly (self, name))
        return seed_error (error, ANOT_ERROR_INVALID_FIELD,
                           "%sname: “%s” is already an input of the compute DAG", path, name);
      other = find_step (self, name);
      if (other >= 0)
        return seed_error (error, ANOT_ERROR_INVALID_FIELD, "%sname: “%s” is defined twice (also %s[%" G_GSSIZE_FORMAT "])",
                           path, name, key, other);
      aggregate = json_object_get_member (object, "is_aggregate");
      if (aggregate != NULL && !(JSON_NODE_HOLDS_VALUE (aggregate) &&
                                 json_node_get_value_type (aggregate) == G_TYPE_BOOLEAN))
        return seed_error (error, ANOT_ERROR_INVALID_FIELD, "%sis_aggregate: must be a boolean, not %s",
                           path, json_type_name (aggregate));

      s = g_new0 (Step, 1);
      s->name = g_strdup (name);
      s->quoted_name = _anot_json_writer_quote (name, &s->quoted_name_length);
      s->formula = g_strdup (formula);
      s->is_aggregate = aggregate != NULL && json_node_get_boolean (aggregate);
      s->shadowed = find_lookup (self, name) != NULL;
      s->hash = anot_expr_name_hash (name);
      s->object = json_object_ref (object);
      g_ptr_array_add (self->steps, s);

      s->expr = anot_expr_parse (formula, name, &local);
      if (s->expr == NULL)
        return seed_error (error, local->code, "%sformula: %s", path, local->message);
      anot_expr_program_add_step (self->program, s->expr, s->shadowed ? NULL : s->name, s->is_aggregate);
    }
  return TRUE;
}

static gboolean
is_builtin (const char *name)
{
  return g_strv_contains (anot_expr_list_builtins (), name);
}

/* Every name a formula reads is an input, a lookup, a builtin or an
 * earlier step. */
static gboolean
check_names (AnotFormulaSeed  *self,
             gboolean          allow_unresolved,
             GError          **error)
{
  g_autoptr(GPtrArray) warnings = g_ptr_array_new_with_free_func (g_free);

  for (guint i = 0; i < self->steps->len; i++)
    {
      Step *s = self->steps->pdata[i];
      const char * const *names = anot_expr_get_free_names (s->expr);

      if (find_lookup (self, s->name) != NULL)
        g_ptr_array_add (warnings,
                         g_strdup_printf ("%s[%u] (“%s”): the lookup of the same name shadows this step in formulas",
                                          self->dag_key, i, s->name));

      for (guint k = 0; names[k] != NULL; k++)
        {
          const char *name = names[k];
          gssize defined_at;
          g_autofree char *message = NULL;

          if (strcmp (name, EXTRACTIONS) == 0 || is_categories (name) ||
              is_assembly (self, name) || find_lookup (self, name) != NULL)
            continue;
          defined_at = find_step (self, name);
          if (defined_at >= 0 && (guint) defined_at < i)
            continue;
          if (defined_at < 0 && is_builtin (name))
            continue;

          if (defined_at >= 0)
            message = g_strdup_printf ("%s[%u].formula (“%s”): reads “%s” before the step that defines it (%s[%" G_GSSIZE_FORMAT "]); "
                                       "steps must be in dependency order",
                                       self->dag_key, i, s->name, name, self->dag_key, defined_at);
          else
            message = g_strdup_printf ("%s[%u].formula (“%s”): reads “%s”, which is not defined "
                                       "(a formula can read extractions, item_category (or restaurant_category), the array and lookup names, "
                                       "earlier steps and the builtins)",
                                       self->dag_key, i, s->name, name);
          if (!allow_unresolved)
            return seed_error (error, ANOT_ERROR_UNKNOWN_REFERENCE, "%s", message);
          g_ptr_array_add (warnings, g_steal_pointer (&message));
        }
    }

  for (guint i = 0; self->output_fields[i] != NULL; i++)
    if (find_step (self, self->output_fields[i]) < 0 && find_lookup (self, self->output_fields[i]) == NULL)
      return seed_error (error, ANOT_ERROR_UNKNOWN_REFERENCE,
                         "output_fields[%u]: “%s” is not defined by any step of %s",
                         i, self->output_fields[i], self->dag_key);

  g_ptr_array_add (warnings, NULL);
  self->warnings = (char **) g_ptr_array_free (g_steal_pointer (&warnings), FALSE);
  return TRUE;
}

/**
 * anot_formula_seed_new_from_json:
 * @node: a JSON object
 * @allow_unresolved: accept formulas that read names nothing defines (they
 *   fail with a `NameError` when evaluated); the seeds the original framework
 *   generated have such formulas.  The problems become
 *   anot_formula_seed_get_warnings().
 * @error: return location for a #GError
 *
 * Builds and validates a Formula Seed.  Errors name the key at fault:
 * %ANOT_ERROR_MISSING_FIELD for a required key that is absent,
 * %ANOT_ERROR_INVALID_FIELD for a value of the wrong type or not allowed (an
 * unknown field type, an enum without values, a step name defined twice, an
 * empty DAG), the `ANOT_ERROR_EXPR_` codes of anot_expr_parse() for a
 * formula that does not parse, and %ANOT_ERROR_UNKNOWN_REFERENCE for a
 * formula that reads an undefined name or a later step, or an output field
 * no step defines.
 *
 * Returns: (transfer full): the seed, or %NULL on error
 */
AnotFormulaSeed *
anot_formula_seed_new_from_json (JsonNode  *node,
                                 gboolean   allow_unresolved,
                                 GError   **error)
{
  g_autoptr(AnotFormulaSeed) self = NULL;
  JsonObject *root;
  const char *task_name = NULL;
  const char *prompt = NULL;

  g_return_val_if_fail (node != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (!JSON_NODE_HOLDS_OBJECT (node))
    {
      seed_error (error, ANOT_ERROR_PARSE, "the document must be a JSON object, not %s", json_type_name (node));
      return NULL;
    }
  root = json_node_get_object (node);

  self = g_new0 (AnotFormulaSeed, 1);
  self->ref_count = 1;
  self->fields = g_ptr_array_new_with_free_func (field_free);
  self->steps = g_ptr_array_new_with_free_func (step_free);
  self->program = anot_expr_program_new ();
  self->assemblies = g_ptr_array_new_with_free_func (assembly_free);
  self->lookups = g_ptr_array_new_with_free_func (lookup_free);

  if (!get_string (root, "task_name", "", FALSE, &task_name, error))
    return NULL;
  self->task_name = g_strdup (task_name);

  self->filter_keywords = get_string_list (root, "filter_keywords", TRUE, TRUE, error);
  if (self->filter_keywords == NULL)
    return NULL;
  self->filter_lower = g_new0 (char *, g_strv_length (self->filter_keywords) + 1);
  for (guint i = 0; self->filter_keywords[i] != NULL; i++)
    self->filter_lower[i] = anot_py_lower (self->filter_keywords[i]);

  if (!load_fields (self, root, error))
    return NULL;

  if (!get_string (root, "extraction_prompt", "", TRUE, &prompt, error))
    return NULL;
  if (strstr (prompt, "{review_text}") == NULL)
    {
      seed_error (error, ANOT_ERROR_INVALID_FIELD,
                  "extraction_prompt: must contain the placeholder {review_text} "
                  "(also available: {review_date}, {review_stars}, {review_useful})");
      return NULL;
    }
  self->extraction_prompt = g_strdup (prompt);

  if (!load_assemblies_and_lookups (self, root, error) ||
      !load_steps (self, root, error))
    return NULL;

  self->output_fields = get_string_list (root, "output_fields", TRUE, TRUE, error);
  if (self->output_fields == NULL)
    return NULL;

  if (!check_names (self, allow_unresolved, error))
    return NULL;
  self->output_steps = g_new (gssize, g_strv_length (self->output_fields) + 1);
  self->quoted_outputs = g_new0 (char *, g_strv_length (self->output_fields) + 1);
  self->quoted_output_lengths = g_new (gsize, g_strv_length (self->output_fields) + 1);
  for (guint i = 0; self->output_fields[i] != NULL; i++)
    {
      self->quoted_outputs[i] = _anot_json_writer_quote (self->output_fields[i], &self->quoted_output_lengths[i]);
      self->output_steps[i] = -1;
      for (guint k = self->steps->len; k > 0 && self->output_steps[i] < 0; k--)
        if (strcmp (((Step *) self->steps->pdata[k - 1])->name, self->output_fields[i]) == 0)
          self->output_steps[i] = k - 1;
    }
  return g_steal_pointer (&self);
}

/**
 * anot_formula_seed_new_from_data:
 * @data: JSON text
 * @length: its length in bytes, or -1 when it is nul-terminated
 * @allow_unresolved: as for anot_formula_seed_new_from_json()
 * @error: return location for a #GError
 *
 * Parses @data and builds a seed as anot_formula_seed_new_from_json() does;
 * text that is not JSON fails with %ANOT_ERROR_PARSE.
 *
 * Returns: (transfer full): the seed, or %NULL on error
 */
AnotFormulaSeed *
anot_formula_seed_new_from_data (const char  *data,
                                 gssize       length,
                                 gboolean     allow_unresolved,
                                 GError     **error)
{
  g_autoptr(JsonParser) parser = json_parser_new_immutable ();
  g_autoptr(GError) local = NULL;

  g_return_val_if_fail (data != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (!json_parser_load_from_data (parser, data, length, &local))
    {
      seed_error (error, ANOT_ERROR_PARSE, "not valid JSON: %s", local->message);
      return NULL;
    }
  return anot_formula_seed_new_from_json (json_parser_get_root (parser), allow_unresolved, error);
}

/**
 * anot_formula_seed_load:
 * @path: (type filename): a JSON file
 * @allow_unresolved: as for anot_formula_seed_new_from_json()
 * @error: return location for a #GError
 *
 * Loads a seed from a file; error messages start with @path.
 *
 * Returns: (transfer full): the seed, or %NULL on error
 */
AnotFormulaSeed *
anot_formula_seed_load (const char  *path,
                        gboolean     allow_unresolved,
                        GError     **error)
{
  g_autofree char *contents = NULL;
  gsize length, bom;
  g_autoptr(GError) local = NULL;
  AnotFormulaSeed *self;

  g_return_val_if_fail (path != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (!g_file_get_contents (path, &contents, &length, &local))
    {
      g_set_error (error, ANOT_ERROR, ANOT_ERROR_IO, "%s: %s", path, local->message);
      return NULL;
    }
  bom = anot_utf8_bom_length (contents, length);
  self = anot_formula_seed_new_from_data (contents + bom, length - bom, allow_unresolved, &local);
  if (self == NULL)
    g_set_error (error, ANOT_ERROR, local->code, "%s: %s", path, local->message);
  return self;
}

/**
 * anot_formula_seed_ref:
 * @self: an #AnotFormulaSeed
 *
 * Returns: (transfer full): @self
 */
AnotFormulaSeed *
anot_formula_seed_ref (AnotFormulaSeed *self)
{
  g_return_val_if_fail (self != NULL, NULL);

  g_atomic_int_inc (&self->ref_count);
  return self;
}

/**
 * anot_formula_seed_unref:
 * @self: (transfer full): an #AnotFormulaSeed
 *
 * Drops a reference; frees @self when it was the last one.
 */
void
anot_formula_seed_unref (AnotFormulaSeed *self)
{
  g_return_if_fail (self != NULL);

  if (!g_atomic_int_dec_and_test (&self->ref_count))
    return;
  g_free (self->task_name);
  g_strfreev (self->filter_keywords);
  g_strfreev (self->filter_lower);
  g_ptr_array_unref (self->fields);
  g_free (self->extraction_prompt);
  g_ptr_array_unref (self->steps);
  g_free (self->dag_key);
  g_ptr_array_unref (self->assemblies);
  g_ptr_array_unref (self->lookups);
  g_clear_pointer (&self->array_assemblies, json_node_unref);
  g_clear_pointer (&self->lookups_node, json_node_unref);
  g_clear_pointer (&self->name_map, json_node_unref);
  g_strfreev (self->output_fields);
  g_free (self->output_steps);
  g_strfreev (self->quoted_outputs);
  g_free (self->quoted_output_lengths);
  g_strfreev (self->warnings);
  anot_expr_program_free (self->program);
  g_free (self);
}

/* ------------------------------------------------------------------------ *
 * Saving
 * ------------------------------------------------------------------------ */

static JsonNode *
strv_to_json (char **strv)
{
  JsonArray *array = json_array_new ();
  JsonNode *node = json_node_new (JSON_NODE_ARRAY);

  for (guint i = 0; strv != NULL && strv[i] != NULL; i++)
    json_array_add_string_element (array, strv[i]);
  json_node_take_array (node, array);
  return node;
}

/* A copy of @object with @first members in front, @skip left out. */
static JsonObject *
reorder (JsonObject         *object,
         const char * const *first,
         const char * const *skip)
{
  JsonObject *out = json_object_new ();
  g_autoptr(GList) members = json_object_get_members (object);

  for (guint i = 0; first[i] != NULL; i++)
    if (json_object_has_member (object, first[i]))
      json_object_set_member (out, first[i], json_node_copy (json_object_get_member (object, first[i])));
  for (GList *l = members; l != NULL; l = l->next)
    if (!g_strv_contains (first, l->data) && (skip == NULL || !g_strv_contains (skip, l->data)))
      json_object_set_member (out, l->data, json_node_copy (json_object_get_member (object, l->data)));
  return out;
}

/**
 * anot_formula_seed_to_json:
 * @self: an #AnotFormulaSeed
 *
 * The seed in the format of `docs/general-anot.md`: `task_name`,
 * `filter_keywords`, `extraction_fields` (each field typed by `type`),
 * `extraction_prompt`, `compute_dag`, `output_fields`, then
 * `array_assemblies`, `lookups` and `name_map` when the seed has them.
 * Members a field or a step carried beyond the fixed ones (`description`,
 * `depends_on`, ...) are kept.  Loading the result gives the same seed.
 *
 * Returns: (transfer full): a JSON object
 */
JsonNode *
anot_formula_seed_to_json (AnotFormulaSeed *self)
{
  static const char * const field_first[] = { "name", "type", "values", NULL };
  static const char * const field_skip[] = { "field_type", NULL };
  static const char * const step_first[] = { "name", "formula", NULL };
  JsonObject *root = json_object_new ();
  JsonArray *fields = json_array_new ();
  JsonArray *steps = json_array_new ();
  JsonNode *node;

  g_return_val_if_fail (self != NULL, NULL);

  if (self->task_name != NULL)
    json_object_set_string_member (root, "task_name", self->task_name);
  json_object_set_member (root, "filter_keywords", strv_to_json (self->filter_keywords));
  for (guint i = 0; i < self->fields->len; i++)
    {
      Field *f = self->fields->pdata[i];
      JsonObject *object = reorder (f->object, field_first, field_skip);

      json_object_set_string_member (object, "type", f->type);
      json_array_add_object_element (fields, reorder (object, field_first, NULL));
      json_object_unref (object);
    }
  json_object_set_array_member (root, "extraction_fields", fields);
  json_object_set_string_member (root, "extraction_prompt", self->extraction_prompt);
  for (guint i = 0; i < self->steps->len; i++)
    json_array_add_object_element (steps, reorder (((Step *) self->steps->pdata[i])->object, step_first, NULL));
  json_object_set_array_member (root, "compute_dag", steps);
  json_object_set_member (root, "output_fields", strv_to_json (self->output_fields));
  if (self->array_assemblies != NULL)
    json_object_set_member (root, "array_assemblies", json_node_copy (self->array_assemblies));
  if (self->lookups_node != NULL)
    json_object_set_member (root, "lookups", json_node_copy (self->lookups_node));
  if (self->name_map != NULL)
    json_object_set_member (root, "name_map", json_node_copy (self->name_map));

  node = json_node_new (JSON_NODE_OBJECT);
  json_node_take_object (node, root);
  return node;
}

/**
 * anot_formula_seed_save:
 * @self: an #AnotFormulaSeed
 * @path: (type filename): the file to write
 * @error: return location for a #GError
 *
 * Writes anot_formula_seed_to_json() to @path (indented, UTF-8), replacing
 * the file atomically.
 *
 * Returns: %TRUE on success
 */
gboolean
anot_formula_seed_save (AnotFormulaSeed  *self,
                        const char       *path,
                        GError          **error)
{
  g_autoptr(JsonNode) node = NULL;
  g_autoptr(JsonGenerator) generator = json_generator_new ();
  g_autofree char *text = NULL;
  g_autoptr(GError) local = NULL;

  g_return_val_if_fail (self != NULL, FALSE);
  g_return_val_if_fail (path != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  node = anot_formula_seed_to_json (self);
  json_generator_set_root (generator, node);
  json_generator_set_pretty (generator, TRUE);
  json_generator_set_indent (generator, 2);
  text = json_generator_to_data (generator, NULL);
  if (!g_file_set_contents (path, text, -1, &local))
    {
      g_set_error (error, ANOT_ERROR, ANOT_ERROR_IO, "%s: %s", path, local->message);
      return FALSE;
    }
  return TRUE;
}

/* ------------------------------------------------------------------------ *
 * Getters
 * ------------------------------------------------------------------------ */

/**
 * anot_formula_seed_get_task_name:
 * @self: an #AnotFormulaSeed
 *
 * Returns: (transfer none) (nullable): the `task_name`, if the seed has one
 */
const char *
anot_formula_seed_get_task_name (AnotFormulaSeed *self)
{
  g_return_val_if_fail (self != NULL, NULL);

  return self->task_name;
}

/**
 * anot_formula_seed_get_filter_keywords:
 * @self: an #AnotFormulaSeed
 *
 * Returns: (transfer none) (array zero-terminated=1): the `filter_keywords`
 */
const char * const *
anot_formula_seed_get_filter_keywords (AnotFormulaSeed *self)
{
  g_return_val_if_fail (self != NULL, NULL);

  return (const char * const *) self->filter_keywords;
}

/**
 * anot_formula_seed_get_extraction_prompt:
 * @self: an #AnotFormulaSeed
 *
 * Returns: (transfer none): the `extraction_prompt`, with its placeholders
 */
const char *
anot_formula_seed_get_extraction_prompt (AnotFormulaSeed *self)
{
  g_return_val_if_fail (self != NULL, NULL);

  return self->extraction_prompt;
}

/**
 * anot_formula_seed_get_n_extraction_fields:
 * @self: an #AnotFormulaSeed
 *
 * Returns: the number of `extraction_fields`
 */
guint
anot_formula_seed_get_n_extraction_fields (AnotFormulaSeed *self)
{
  g_return_val_if_fail (self != NULL, 0);

  return self->fields->len;
}

static Field *
get_field (AnotFormulaSeed *self,
           guint            position)
{
  g_return_val_if_fail (self != NULL, NULL);
  g_return_val_if_fail (position < self->fields->len, NULL);

  return self->fields->pdata[position];
}

/**
 * anot_formula_seed_get_extraction_field_name:
 * @self: an #AnotFormulaSeed
 * @position: a field, below anot_formula_seed_get_n_extraction_fields()
 *
 * Returns: (transfer none): the name of the field
 */
const char *
anot_formula_seed_get_extraction_field_name (AnotFormulaSeed *self,
                                             guint            position)
{
  Field *f = get_field (self, position);

  return f != NULL ? f->name : NULL;
}

/**
 * anot_formula_seed_get_extraction_field_type:
 * @self: an #AnotFormulaSeed
 * @position: a field, below anot_formula_seed_get_n_extraction_fields()
 *
 * The type, normalised: `enum`, `string`, `int`, `float` or `bool` (a seed
 * may also write `integer`, `number`, `boolean`, `text`, ...).
 *
 * Returns: (transfer none): the type of the field
 */
const char *
anot_formula_seed_get_extraction_field_type (AnotFormulaSeed *self,
                                             guint            position)
{
  Field *f = get_field (self, position);

  return f != NULL ? f->type : NULL;
}

/**
 * anot_formula_seed_get_extraction_field_values:
 * @self: an #AnotFormulaSeed
 * @position: a field, below anot_formula_seed_get_n_extraction_fields()
 *
 * Returns: (transfer none) (array zero-terminated=1) (nullable): the values
 *   of an enum field, %NULL for other types
 */
const char * const *
anot_formula_seed_get_extraction_field_values (AnotFormulaSeed *self,
                                               guint            position)
{
  Field *f = get_field (self, position);

  return f != NULL ? (const char * const *) f->values : NULL;
}

/**
 * anot_formula_seed_get_n_steps:
 * @self: an #AnotFormulaSeed
 *
 * Returns: the number of steps of the compute DAG
 */
guint
anot_formula_seed_get_n_steps (AnotFormulaSeed *self)
{
  g_return_val_if_fail (self != NULL, 0);

  return self->steps->len;
}

static Step *
get_step (AnotFormulaSeed *self,
          guint            position)
{
  g_return_val_if_fail (self != NULL, NULL);
  g_return_val_if_fail (position < self->steps->len, NULL);

  return self->steps->pdata[position];
}

/**
 * anot_formula_seed_get_step_name:
 * @self: an #AnotFormulaSeed
 * @position: a step, below anot_formula_seed_get_n_steps()
 *
 * Returns: (transfer none): the name the step defines
 */
const char *
anot_formula_seed_get_step_name (AnotFormulaSeed *self,
                                 guint            position)
{
  Step *s = get_step (self, position);

  return s != NULL ? s->name : NULL;
}

/**
 * anot_formula_seed_get_step_formula:
 * @self: an #AnotFormulaSeed
 * @position: a step, below anot_formula_seed_get_n_steps()
 *
 * Returns: (transfer none): the formula of the step
 */
const char *
anot_formula_seed_get_step_formula (AnotFormulaSeed *self,
                                    guint            position)
{
  Step *s = get_step (self, position);

  return s != NULL ? s->formula : NULL;
}

/**
 * anot_formula_seed_get_step_expr:
 * @self: an #AnotFormulaSeed
 * @position: a step, below anot_formula_seed_get_n_steps()
 *
 * Returns: (transfer none): the parsed formula of the step
 */
AnotExpr *
anot_formula_seed_get_step_expr (AnotFormulaSeed *self,
                                 guint            position)
{
  Step *s = get_step (self, position);

  return s != NULL ? s->expr : NULL;
}

/**
 * anot_formula_seed_get_output_fields:
 * @self: an #AnotFormulaSeed
 *
 * Returns: (transfer none) (array zero-terminated=1): the `output_fields`
 */
const char * const *
anot_formula_seed_get_output_fields (AnotFormulaSeed *self)
{
  g_return_val_if_fail (self != NULL, NULL);

  return (const char * const *) self->output_fields;
}

/**
 * anot_formula_seed_get_warnings:
 * @self: an #AnotFormulaSeed
 *
 * What a lenient load (`allow_unresolved`) let through: formulas that read
 * names nothing defines or later steps, and steps shadowed by a lookup of
 * the same name.  Each message names the step, as validation errors do.
 *
 * Returns: (transfer none) (array zero-terminated=1): the messages, empty
 *   for a seed without problems
 */
const char * const *
anot_formula_seed_get_warnings (AnotFormulaSeed *self)
{
  g_return_val_if_fail (self != NULL, NULL);

  return (const char * const *) self->warnings;
}

/* ------------------------------------------------------------------------ *
 * Phase 2: filter, prompt, extraction, compute
 * ------------------------------------------------------------------------ */

/**
 * anot_formula_seed_matches_text:
 * @self: an #AnotFormulaSeed
 * @text: a review's text
 *
 * The FILTER of Phase 2: whether some keyword occurs in @text as a plain
 * substring, ignoring case (both are lowercased the way Python's
 * `str.lower()` does; no word boundaries, so `nut` matches "donut").  The
 * original lowercased only the text, so a keyword with a capital letter
 * never matched there.
 *
 * Returns: whether the review is relevant
 */
gboolean
anot_formula_seed_matches_text (AnotFormulaSeed *self,
                                const char      *text)
{
  g_autofree char *lower = NULL;

  g_return_val_if_fail (self != NULL, FALSE);
  g_return_val_if_fail (text != NULL, FALSE);

  lower = anot_py_lower (text);
  for (guint i = 0; self->filter_lower[i] != NULL; i++)
    if (strstr (lower, self->filter_lower[i]) != NULL)
      return TRUE;
  return FALSE;
}

/**
 * anot_formula_seed_format_prompt:
 * @self: an #AnotFormulaSeed
 * @review_text: the review's text
 * @review_date: (nullable): its date, as the dataset writes it
 * @review_stars: its star rating
 * @review_useful: its useful votes
 *
 * The extraction prompt of one review: `{review_text}`, `{review_date}`,
 * `{review_stars}` (as Python's `str()` of a float, `4.0`) and
 * `{review_useful}` replaced.  The placeholders are replaced in one pass
 * over the prompt, so a review whose text contains `{review_stars}` is not
 * altered (the original's chain of `str.replace()` calls would substitute
 * inside the review text).
 *
 * Returns: (transfer full): the prompt
 */
char *
anot_formula_seed_format_prompt (AnotFormulaSeed *self,
                                 const char      *review_text,
                                 const char      *review_date,
                                 double           review_stars,
                                 gint64           review_useful)
{
  GString *out;
  g_autofree char *stars = NULL;

  g_return_val_if_fail (self != NULL, NULL);
  g_return_val_if_fail (review_text != NULL, NULL);

  stars = anot_expr_value_str (anot_expr_value_float (review_stars));
  out = g_string_sized_new (strlen (self->extraction_prompt) + strlen (review_text) + 64);
  for (const char *p = self->extraction_prompt; *p != '\0'; p++)
    {
      if (*p == '{')
        {
          if (g_str_has_prefix (p, "{review_text}"))
            {
              g_string_append (out, review_text);
              p += strlen ("{review_text}") - 1;
              continue;
            }
          if (g_str_has_prefix (p, "{review_date}"))
            {
              g_string_append (out, review_date != NULL ? review_date : "");
              p += strlen ("{review_date}") - 1;
              continue;
            }
          if (g_str_has_prefix (p, "{review_stars}"))
            {
              g_string_append (out, stars);
              p += strlen ("{review_stars}") - 1;
              continue;
            }
          if (g_str_has_prefix (p, "{review_useful}"))
            {
              g_string_append_printf (out, "%" G_GINT64_FORMAT, review_useful);
              p += strlen ("{review_useful}") - 1;
              continue;
            }
        }
      g_string_append_c (out, *p);
    }
  return g_string_free (out, FALSE);
}

static JsonNode *
lookup_member (JsonObject *reply,
               const char *name)
{
  JsonNode *node;
  g_autoptr(GList) members = NULL;

  if (reply == NULL)
    return NULL;
  node = json_object_get_member (reply, name);
  if (node != NULL)
    return node;
  members = json_object_get_members (reply);
  for (GList *l = members; l != NULL; l = l->next)
    if (g_ascii_strcasecmp (l->data, name) == 0)
      return json_object_get_member (reply, l->data);
  return NULL;
}

/* The value of @field in @reply, coerced to the field's type; FALSE (and
 * the type's default) when it cannot be. */
static gboolean
coerce (Field      *field,
        JsonNode   *value,
        JsonObject *into)
{
  gboolean scalar = value != NULL && JSON_NODE_HOLDS_VALUE (value);
  GType vt = scalar ? json_node_get_value_type (value) : G_TYPE_INVALID;

  if (strcmp (field->type, "enum") == 0)
    {
      if (vt == G_TYPE_STRING)
        {
          g_autofree char *trimmed = g_strstrip (g_strdup (json_node_get_string (value)));

          for (guint i = 0; field->values[i] != NULL; i++)
            if (g_utf8_collate (trimmed, field->values[i]) == 0 ||
                g_ascii_strcasecmp (trimmed, field->values[i]) == 0)
              {
                json_object_set_string_member (into, field->name, field->values[i]);
                return TRUE;
              }
        }
      json_object_set_string_member (into, field->name, field->values[0]);
      return FALSE;
    }
  if (strcmp (field->type, "int") == 0)
    {
      gint64 i = 0;
      gboolean ok = FALSE;

      if (vt == G_TYPE_INT64)
        {
          i = json_node_get_int (value);
          ok = TRUE;
        }
      else if (vt == G_TYPE_DOUBLE && json_node_get_double (value) == (gint64) json_node_get_double (value))
        {
          i = (gint64) json_node_get_double (value);
          ok = TRUE;
        }
      else if (vt == G_TYPE_STRING)
        {
          g_autofree char *trimmed = g_strstrip (g_strdup (json_node_get_string (value)));
          char *end = NULL;

          i = g_ascii_strtoll (trimmed, &end, 10);
          ok = *trimmed != '\0' && end != NULL && *end == '\0';
          if (!ok)
            i = 0;
        }
      json_object_set_int_member (into, field->name, i);
      return ok;
    }
  if (strcmp (field->type, "float") == 0)
    {
      double f = 0.0;
      gboolean ok = FALSE;

      if (vt == G_TYPE_INT64 || vt == G_TYPE_DOUBLE)
        {
          f = json_node_get_double (value);
          ok = TRUE;
        }
      else if (vt == G_TYPE_STRING)
        {
          ok = anot_py_parse_float (json_node_get_string (value), &f);
          if (!ok)
            f = 0.0;
        }
      json_object_set_double_member (into, field->name, f);
      return ok;
    }
  if (strcmp (field->type, "bool") == 0)
    {
      gboolean b = FALSE;
      gboolean ok = FALSE;

      if (vt == G_TYPE_BOOLEAN)
        {
          b = json_node_get_boolean (value);
          ok = TRUE;
        }
      else if (vt == G_TYPE_STRING)
        {
          const char *s = json_node_get_string (value);

          if (g_ascii_strcasecmp (s, "true") == 0 || g_ascii_strcasecmp (s, "yes") == 0)
            ok = b = TRUE;
          else if (g_ascii_strcasecmp (s, "false") == 0 || g_ascii_strcasecmp (s, "no") == 0)
            ok = TRUE;
        }
      json_object_set_boolean_member (into, field->name, b);
      return ok;
    }

  /* string */
  if (vt == G_TYPE_STRING)
    {
      json_object_set_string_member (into, field->name, json_node_get_string (value));
      return TRUE;
    }
  if (scalar)
    {
      AnotExprValue v = anot_expr_value_from_json (value);
      g_autofree char *text = anot_expr_value_str (v);

      anot_expr_value_unref (v);
      json_object_set_string_member (into, field->name, text);
      return TRUE;
    }
  json_object_set_string_member (into, field->name, "");
  return FALSE;
}

static gint64
year_of (const char *date)
{
  gint64 year = 0;
  gsize n = 0;

  if (date == NULL)
    return 2020;
  while (g_ascii_isdigit (date[n]) && n < 9)
    year = year * 10 + (date[n++] - '0');
  if (n == 0 || (date[n] != '-' && date[n] != '\0'))
    return 2020;
  return year;
}

/**
 * anot_formula_seed_make_extraction:
 * @self: an #AnotFormulaSeed
 * @reply: (nullable): the extraction LLM's answer for one review, parsed
 * @review_idx: the review's position among its item's reviews
 * @review_date: (nullable): the review's date (`YYYY-MM-DD ...`)
 * @review_stars: its star rating
 * @review_useful: its useful votes
 * @n_invalid: (out) (optional): how many fields of @reply were missing or
 *   could not be coerced to their type
 *
 * One element of `extractions`, the list the compute DAG reads: every
 * extraction field of the seed, in the seed's order, coerced to its type
 * (an enum value matched ignoring case and surrounding spaces, numbers from
 * numeric strings, ...), then `_idx`, `_year` (the number before the first
 * `-` of the date, 2020 when there is none), `_stars` and `_useful`.  A
 * field that is missing or cannot be coerced takes its type's default: the
 * first value of an enum, 0, 0.0, false or "".
 *
 * Returns: (transfer full): the extraction
 */
JsonObject *
anot_formula_seed_make_extraction (AnotFormulaSeed *self,
                                   JsonObject      *reply,
                                   gint64           review_idx,
                                   const char      *review_date,
                                   double           review_stars,
                                   gint64           review_useful,
                                   guint           *n_invalid)
{
  JsonObject *out;
  guint invalid = 0;

  g_return_val_if_fail (self != NULL, NULL);

  out = json_object_new ();
  for (guint i = 0; i < self->fields->len; i++)
    {
      Field *f = self->fields->pdata[i];

      if (!coerce (f, lookup_member (reply, f->name), out))
        invalid++;
    }
  json_object_set_int_member (out, "_idx", review_idx);
  json_object_set_int_member (out, "_year", year_of (review_date));
  json_object_set_double_member (out, "_stars", review_stars);
  json_object_set_int_member (out, "_useful", review_useful);
  if (n_invalid != NULL)
    *n_invalid = invalid;
  return out;
}

static AnotExprValue
assemble (Assembly      *a,
          AnotExprValue  extractions)
{
  const char *member = a->source_field;
  guint n = extractions.u.seq->len;
  AnotExprValue list = anot_expr_value_new_list (n);

  if (strcmp (member, "stars") == 0)
    member = "_stars";
  else if (strcmp (member, "useful") == 0)
    member = "_useful";
  else if (strcmp (member, "year") == 0)
    member = "_year";
  /* The records mostly share their key blocks (see AnotExprDict): where
   * the member was in the previous record is tried first, by pointer. */
  AnotExprStr *last_key = NULL;
  guint hint = 0;

  for (guint i = 0; i < n; i++)
    {
      AnotExprValue e = extractions.u.seq->items[i];
      AnotExprValue *v = NULL;

      if (e.kind == ANOT_EXPR_DICT)
        {
          AnotExprDict *d = e.u.d;

          if (hint < d->len && d->keys[hint].kind == ANOT_EXPR_STR && d->keys[hint].u.s == last_key)
            v = &d->values[hint];
          else
            for (guint k = 0; k < d->len; k++)
              if (d->keys[k].kind == ANOT_EXPR_STR && strcmp (d->keys[k].u.s->data, member) == 0 &&
                  d->keys[k].u.s->len == strlen (member))
                {
                  v = &d->values[k];
                  hint = k;
                  last_key = d->keys[k].u.s;
                  break;
                }
        }
      /* Room for @n was reserved. */
      list.u.seq->items[i] = v != NULL ? anot_expr_value_ref (*v) : ANOT_EXPR_VALUE_NONE;
    }
  list.u.seq->len = n;
  return list;
}

/* The value of the first key of @l's mapping that occurs in @categories,
 * ignoring case; the default when none does. */
static JsonNode *
lookup_initial (Lookup     *l,
                const char *categories)
{
  if (l->source_field != NULL && is_categories (l->source_field) && categories != NULL)
    {
      JsonObject *mapping = json_node_get_object (l->mapping);
      g_autoptr(GList) members = json_object_get_members (mapping);
      g_autofree char *haystack = anot_py_lower (categories);

      for (GList *m = members; m != NULL; m = m->next)
        {
          g_autofree char *needle = anot_py_lower (m->data);

          if (strstr (haystack, needle) != NULL)
            return json_node_copy (json_object_get_member (mapping, m->data));
        }
    }
  return l->default_value != NULL ? json_node_copy (l->default_value) : json_node_new (JSON_NODE_NULL);
}

/* anot_formula_seed_new_scope() with the extractions already a list
 * (taken). */
static AnotExprScope *
new_scope_with_list (AnotFormulaSeed *self,
                     AnotExprValue    list,
                     const char      *categories,
                     gboolean         original)
{
  AnotExprScope *scope = anot_expr_scope_new ();

  if (original)
    anot_expr_scope_set_builtins (scope, anot_expr_get_original_builtins ());
  /* The steps' names are borrowed from the seed, which the scope keeps. */
  anot_expr_scope_keep (scope, anot_formula_seed_ref (self), (GDestroyNotify) anot_formula_seed_unref);
  anot_expr_scope_reserve (scope, 3 + self->assemblies->len + self->lookups->len + self->steps->len);
  /* The names are the seed's (which the scope keeps) or literals: not
   * copied. */
  for (guint i = 0; i < self->assemblies->len; i++)
    {
      Assembly *a = self->assemblies->pdata[i];

      anot_expr_scope_take_value_static (scope, a->name, anot_expr_name_hash (a->name), assemble (a, list));
    }
  anot_expr_scope_take_value_static (scope, EXTRACTIONS, anot_expr_name_hash (EXTRACTIONS), list);
  anot_expr_scope_take_value_static (scope, CATEGORIES, anot_expr_name_hash (CATEGORIES),
                                     anot_expr_value_new_string (categories != NULL ? categories : "", -1));
  anot_expr_scope_take_value_static (scope, ITEM_CATEGORIES, anot_expr_name_hash (ITEM_CATEGORIES),
                                     anot_expr_value_new_string (categories != NULL ? categories : "", -1));
  for (guint i = 0; i < self->lookups->len; i++)
    {
      Lookup *l = self->lookups->pdata[i];

      anot_expr_scope_take_value_static (scope, l->name, anot_expr_name_hash (l->name), l->table);
    }
  scope->filled_by = self;
  return scope;
}

/**
 * anot_formula_seed_new_scope:
 * @self: an #AnotFormulaSeed
 * @extractions: (nullable): the item's extractions, from
 *   anot_formula_seed_make_extraction(), in review order
 * @categories: (nullable): the item's categories string, the formulas'
 *   `item_category` (and `restaurant_category`, its original name)
 * @original: restrict the builtins to the original framework's namespace
 *   (anot_expr_get_original_builtins())
 *
 * The namespace the compute DAG of one item reads: `extractions`,
 * `item_category` and `restaurant_category` (the same string), each array of `array_assemblies` (a list over the
 * extractions of one field, or of `_stars`, `_useful`, `_year` for
 * `stars`, `useful`, `year`) and each lookup of `lookups` by name (its
 * mapping, whose `.get(text, default)` returns the value of the first key
 * occurring in @text, ignoring case).  anot_formula_seed_evaluate() then
 * adds the steps.
 *
 * Returns: (transfer full): a new scope
 */
AnotExprScope *
anot_formula_seed_new_scope (AnotFormulaSeed *self,
                             JsonArray       *extractions,
                             const char      *categories,
                             gboolean         original)
{
  AnotExprValue list;
  guint n;

  g_return_val_if_fail (self != NULL, NULL);

  n = extractions != NULL ? json_array_get_length (extractions) : 0;
  if (n > 0)
    {
      /* The records repeat their keys: one string per key name. */
      g_autoptr(GHashTable) keys = anot_expr_key_cache_new ();

      list = anot_expr_value_from_json_array_cached (extractions, keys);
    }
  else
    list = anot_expr_value_new_list (0);
  return new_scope_with_list (self, list, categories, original);
}

/**
 * anot_formula_seed_evaluate:
 * @self: an #AnotFormulaSeed
 * @scope: a scope from anot_formula_seed_new_scope()
 * @original: a failed step takes the value 0 (`is_aggregate` steps) or
 *   0.0 and the evaluation goes on, as in the original framework's
 *   executor; otherwise it leaves its name undefined, so the steps that
 *   read it fail too (with a `NameError`)
 *
 * Evaluates the compute DAG in order, each step's value stored in @scope
 * under its name (except a step named like a lookup: the lookup shadows it
 * in formulas, as in the original).  No step's failure stops the others.
 * anot_formula_seed_compute() does the same and also records a trace.
 *
 * Returns: the number of steps that failed
 */
guint
anot_formula_seed_evaluate (AnotFormulaSeed *self,
                            AnotExprScope   *scope,
                            gboolean         original)
{
  guint n = self->steps->len;
  AnotExprValue results_inline[64];
  gboolean succeeded_inline[64];
  g_autofree AnotExprValue *results_heap = NULL;
  g_autofree gboolean *succeeded_heap = NULL;
  AnotExprValue *results = results_inline;
  gboolean *succeeded = succeeded_inline;
  guint failed;

  g_return_val_if_fail (self != NULL, 0);
  g_return_val_if_fail (scope != NULL, 0);

  if (n > G_N_ELEMENTS (results_inline))
    {
      results = results_heap = g_new (AnotExprValue, n);
      succeeded = succeeded_heap = g_new (gboolean, n);
    }
  /* No failures to fill in: nobody reads the messages here, so they are
   * not formatted. */
  failed = anot_expr_program_run (self->program, scope, original, results, succeeded, NULL);
  /* The names can be borrowed when the scope keeps @self alive, and need
   * no looking for when nothing but the inputs was put in it (no step is
   * named like an input). */
  anot_expr_program_store (self->program, scope, original, results, succeeded,
                           scope->kept == self, scope->filled_by == self);
  return failed;
}

/* Runs the DAG for a trace: a value too large to write out (a list
 * holding one list many times, written in full each time) fails there:
 * the later steps had it, the trace cannot. */
static guint
run_for_trace (AnotFormulaSeed *self,
               AnotExprScope   *scope,
               gboolean         original,
               AnotExprValue   *values,
               gboolean        *succeeded,
               AnotExprFailure *failures)
{
  guint failed = anot_expr_program_run (self->program, scope, original, values, succeeded, failures);

  for (guint i = 0; i < self->steps->len; i++)
    if (succeeded[i] && anot_expr_value_expanded_items (values[i], scope->max_items) > scope->max_items)
      {
        succeeded[i] = FALSE;
        failed++;
        failures[i].code = ANOT_ERROR_EXPR_LIMIT;
        failures[i].offset = 0;
        failures[i].message = g_strdup_printf ("LimitError: the value, written out, holds more than %u items",
                                               scope->max_items);
        anot_expr_value_unref (values[i]);
        values[i] = ANOT_EXPR_VALUE_NONE;
      }
  return failed;
}

/**
 * anot_formula_seed_compute:
 * @self: an #AnotFormulaSeed
 * @extractions: (nullable): the item's extractions, from
 *   anot_formula_seed_make_extraction(), in review order
 * @categories: (nullable): the item's categories string, the formulas'
 *   `item_category` (and `restaurant_category`, its original name)
 * @original: reproduce the original framework's executor: only the
 *   builtins its namespace had (anot_expr_get_original_builtins()), and a
 *   failed step takes the value 0 (`is_aggregate` steps) or 0.0 and the
 *   evaluation goes on
 * @n_failed: (out) (optional): the number of steps that failed
 *
 * The COMPUTE of Phase 2: anot_formula_seed_new_scope() and
 * anot_formula_seed_evaluate(), with a trace.
 *
 * A step that fails is recorded with its error and never stops the others.
 * So is, with a `LimitError`, a step whose value written out would hold
 * more items than the scope's limit (a list holding one list many times);
 * the steps after it still read the value.
 * Unless @original is set, a failed step leaves its name undefined, so steps
 * that read it fail too (with a `NameError`), and its outputs are null.
 *
 * The result is the trace of the evaluation: `steps`, one
 * `{"name", "value", "error"}` per step in order (`error` is null or
 * `"<Python exception>: <message>"`; a failed step also has `message`, the
 * full error naming the formula and the column, and `column`), `outputs`,
 * the value of each output field (a lookup's default, or its first match
 * when its `source_field` is `item_category` or `restaurant_category`, unless a step of the
 * same name ran), and `n_failed`.
 *
 * Returns: (transfer full): the trace
 */
JsonObject *
anot_formula_seed_compute (AnotFormulaSeed *self,
                           JsonArray       *extractions,
                           const char      *categories,
                           gboolean         original,
                           guint           *n_failed)
{
  g_autoptr(AnotExprScope) scope = NULL;
  g_autofree JsonNode **results = NULL;
  g_autofree AnotExprValue *values = NULL;
  g_autofree gboolean *succeeded = NULL;
  g_autofree AnotExprFailure *failures = NULL;
  JsonObject *trace = json_object_new ();
  JsonArray *steps = json_array_new ();
  JsonObject *outputs = json_object_new ();
  guint failed = 0;

  g_return_val_if_fail (self != NULL, NULL);

  scope = anot_formula_seed_new_scope (self, extractions, categories, original);
  results = g_new0 (JsonNode *, self->steps->len);
  values = g_new (AnotExprValue, self->steps->len);
  succeeded = g_new (gboolean, self->steps->len);
  failures = g_new0 (AnotExprFailure, self->steps->len);

  failed = run_for_trace (self, scope, original, values, succeeded, failures);
  for (guint i = 0; i < self->steps->len; i++)
    {
      Step *s = self->steps->pdata[i];
      JsonObject *entry = json_object_new ();

      json_object_set_string_member (entry, "name", s->name);
      if (succeeded[i])
        {
          results[i] = anot_expr_value_to_json (values[i]);
          json_object_set_member (entry, "value", json_node_ref (results[i]));
          json_object_set_null_member (entry, "error");
        }
      else
        {
          g_autoptr(GError) error = anot_expr_failure_to_error (s->expr, &failures[i]);
          guint line, column;

          anot_expr_offset_to_position (s->formula, failures[i].offset, &line, &column);
          results[i] = original ? anot_expr_value_to_json (values[i]) : json_node_new (JSON_NODE_NULL);
          json_object_set_member (entry, "value", json_node_ref (results[i]));
          json_object_set_string_member (entry, "error", failures[i].message);
          json_object_set_string_member (entry, "message", error->message);
          json_object_set_int_member (entry, "column", column);
          anot_expr_failure_clear (&failures[i]);
        }
      json_array_add_object_element (steps, entry);
    }
  /* The scope is dropped below: the values need not be stored in it. */
  for (guint i = 0; i < self->steps->len; i++)
    anot_expr_value_unref (values[i]);

  for (guint i = 0; self->output_fields[i] != NULL; i++)
    {
      const char *name = self->output_fields[i];
      JsonNode *v = NULL;

      /* The last step of that name, else the lookup's initial value. */
      if (self->output_steps[i] >= 0)
        v = json_node_ref (results[self->output_steps[i]]);
      if (v == NULL)
        {
          Lookup *l = find_lookup (self, name);

          v = l != NULL ? lookup_initial (l, categories) : json_node_new (JSON_NODE_NULL);
        }
      json_object_set_member (outputs, name, v);
    }
  for (guint i = 0; i < self->steps->len; i++)
    json_node_unref (results[i]);

  json_object_set_array_member (trace, "steps", steps);
  json_object_set_object_member (trace, "outputs", outputs);
  json_object_set_int_member (trace, "n_failed", failed);
  if (n_failed != NULL)
    *n_failed = failed;
  return trace;
}

/**
 * anot_formula_seed_compute_text:
 * @self: an #AnotFormulaSeed
 * @extractions: (array length=length) (element-type guint8): the item's
 *   extractions as a JSON array (see anot_formula_seed_compute())
 * @length: the length of @extractions in bytes, or -1 if it is
 *   nul-terminated
 * @categories: (nullable): the item's categories string
 * @original: as for anot_formula_seed_evaluate()
 * @n_failed: (out) (optional): the number of steps that failed
 * @error: return location for a #GError
 *
 * anot_formula_seed_compute() from JSON text to JSON text: the
 * extractions are read in place (no json-glib tree) and the trace is
 * written as it is made, the same trace compute() builds, written
 * compactly.  This is the whole per-item path of General ANoT's Phase 2
 * for callers that hold text (a file, an LLM answer, a pipe).
 *
 * Returns: (transfer full) (nullable): the trace as JSON text, or %NULL
 *   with @error set (%ANOT_ERROR_PARSE) when @extractions is not a JSON
 *   array
 */
char *
anot_formula_seed_compute_text (AnotFormulaSeed  *self,
                                const char       *extractions,
                                gssize            length,
                                const char       *categories,
                                gboolean          original,
                                guint            *n_failed,
                                GError          **error)
{
  AnotFormulaSeedRun run;
  g_autoptr(AnotJsonWriter) writer = NULL;
  gsize text_length;

  g_return_val_if_fail (self != NULL, NULL);
  g_return_val_if_fail (extractions != NULL || length == 0, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (!_anot_formula_seed_run_text (self, extractions, length, categories, original, &run, error))
    return NULL;

  /* A hundred bytes a step: written without growing, and taken as it
   * is. */
  writer = _anot_json_writer_new_sized (128 * (self->steps->len + 8));
  anot_json_writer_begin_object (writer);
  anot_json_writer_set_member_name (writer, "steps");
  _anot_formula_seed_run_write_steps (&run, writer);
  anot_json_writer_set_member_name (writer, "outputs");
  _anot_formula_seed_run_write_outputs (&run, writer);
  anot_json_writer_set_member_name (writer, "n_failed");
  anot_json_writer_add_int_value (writer, run.n_failed);
  anot_json_writer_end_object (writer);

  if (n_failed != NULL)
    *n_failed = run.n_failed;
  _anot_formula_seed_run_clear (&run);
  return _anot_json_writer_steal_text (writer, &text_length);
}

gboolean
_anot_formula_seed_run_text (AnotFormulaSeed    *self,
                             const char         *extractions,
                             gssize              length,
                             const char         *categories,
                             gboolean            original,
                             AnotFormulaSeedRun *run,
                             GError            **error)
{
  g_autoptr(AnotExprScope) scope = NULL;
  g_autoptr(GHashTable) keys = NULL;
  AnotExprValue list;

  memset (run, 0, sizeof *run);
  if (length < 0)
    length = (gssize) strlen (extractions);
  keys = anot_expr_key_cache_new ();
  /* Extractions as anot writes them and LLMs answer them read in one
   * pass; anything else (and every error) through the document. */
  if (!anot_expr_value_from_json_text (extractions, (gsize) length, keys, &list))
    {
      g_autoptr(AnotJsonDocument) doc = _anot_json_document_new_reusable ();
      GError *local_error = NULL;
      gsize offset = 0;

      if (!_anot_json_document_reparse (doc, extractions, (gsize) length, &offset, &local_error))
        {
          g_set_error (error, ANOT_ERROR, ANOT_ERROR_PARSE, "extractions: %s", local_error->message);
          g_error_free (local_error);
          return FALSE;
        }
      if (anot_json_document_get_kind (doc, 0) != ANOT_JSON_KIND_ARRAY)
        {
          g_set_error (error, ANOT_ERROR, ANOT_ERROR_PARSE, "extractions: expected a JSON array, not %s",
                       anot_json_document_get_kind (doc, 0) == ANOT_JSON_KIND_OBJECT ? "an object" : "a scalar");
          return FALSE;
        }
      list = anot_expr_value_from_json_document (doc, 0, keys);
    }

  /* The scope of anot_formula_seed_new_scope(), the list read from the
   * text. */
  scope = new_scope_with_list (self, list, categories, original);

  run->seed = self;
  run->categories = categories;
  run->original = original;
  run->values = g_new (AnotExprValue, self->steps->len);
  run->succeeded = g_new (gboolean, self->steps->len);
  run->failures = g_new0 (AnotExprFailure, self->steps->len);
  run->n_failed = run_for_trace (self, scope, original, run->values, run->succeeded, run->failures);
  return TRUE;
}

void
_anot_formula_seed_run_write_steps (AnotFormulaSeedRun *run,
                                    AnotJsonWriter     *writer)
{
  AnotFormulaSeed *self = run->seed;
  g_autoptr(GString) message = NULL;

  anot_json_writer_begin_array (writer);
  for (guint i = 0; i < self->steps->len; i++)
    {
      Step *s = self->steps->pdata[i];

      anot_json_writer_begin_object (writer);
      _anot_json_writer_set_literal_member_name (writer, "name");
      _anot_json_writer_add_quoted_string_value (writer, s->quoted_name, s->quoted_name_length);
      _anot_json_writer_set_literal_member_name (writer, "value");
      if (run->succeeded[i] || run->original)
        anot_expr_value_write_json (writer, run->values[i]);
      else
        anot_json_writer_add_null_value (writer);
      _anot_json_writer_set_literal_member_name (writer, "error");
      if (run->succeeded[i])
        anot_json_writer_add_null_value (writer);
      else
        {
          guint column;

          /* The message of anot_expr_failure_to_error(), without a GError. */
          if (message == NULL)
            message = g_string_sized_new (128);
          g_string_truncate (message, 0);
          anot_expr_failure_append_message (s->expr, &run->failures[i], message, &column);
          anot_json_writer_add_string_value (writer, run->failures[i].message);
          _anot_json_writer_set_literal_member_name (writer, "message");
          anot_json_writer_add_string_value (writer, message->str);
          _anot_json_writer_set_literal_member_name (writer, "column");
          anot_json_writer_add_int_value (writer, column);
        }
      anot_json_writer_end_object (writer);
    }
  anot_json_writer_end_array (writer);
}

void
_anot_formula_seed_run_write_outputs (AnotFormulaSeedRun *run,
                                      AnotJsonWriter     *writer)
{
  AnotFormulaSeed *self = run->seed;

  anot_json_writer_begin_object (writer);
  for (guint i = 0; self->output_fields[i] != NULL; i++)
    {
      const char *name = self->output_fields[i];
      gssize step = self->output_steps[i];

      _anot_json_writer_set_quoted_member_name (writer, self->quoted_outputs[i], self->quoted_output_lengths[i]);
      /* The last step of that name, else the lookup's initial value. */
      if (step >= 0)
        {
          if (run->succeeded[step] || run->original)
            anot_expr_value_write_json (writer, run->values[step]);
          else
            anot_json_writer_add_null_value (writer);
        }
      else
        {
          Lookup *l = find_lookup (self, name);
          g_autoptr(JsonNode) v = l != NULL ? lookup_initial (l, run->categories) : json_node_new (JSON_NODE_NULL);

          anot_json_writer_add_value (writer, v);
        }
    }
  anot_json_writer_end_object (writer);
}

void
_anot_formula_seed_run_clear (AnotFormulaSeedRun *run)
{
  if (run->seed == NULL)
    return;
  for (guint i = 0; i < run->seed->steps->len; i++)
    {
      anot_expr_value_unref (run->values[i]);
      anot_expr_failure_clear (&run->failures[i]);
    }
  g_clear_pointer (&run->values, g_free);
  g_clear_pointer (&run->succeeded, g_free);
  g_clear_pointer (&run->failures, g_free);
  run->seed = NULL;
}
