/* anot-plan.c: Atom of Thought plans
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "anot-plan.h"

#include <string.h>

#include "anot-error.h"
#include "anot-parse.h"
#include "anot-plan-private.h"

/**
 * AnotPlan:
 *
 * An Atom of Thought plan: a JSON document the model writes, listing
 * atoms — one tool call each — and what each depends on.  The system,
 * not the model, runs it (see [class@Anot.PlanExecutor]).
 *
 * ```json
 * {"atoms": [
 *   {"id": 1, "kind": "tool", "name": "check_attribute",
 *    "input": {"item": "*", "attribute": "DriveThru", "expected": true}, "dependsOn": []},
 *   {"id": 2, "kind": "tool", "name": "llm_judge",
 *    "input": {"item": "*", "question": "Is it good for kids?"}, "dependsOn": []},
 *   {"id": 3, "kind": "final", "name": "rank",
 *    "input": {"scores": ["$1", "$2"], "weights": [2, 1]}, "dependsOn": [1, 2]}
 * ]}
 * ```
 *
 * An atom has an `id` (an integer or a string), a `kind` (`tool`, the
 * default, or `final`), the `name` of its tool, an `input` object and
 * `dependsOn`, the ids it waits for (`depends_on` is read too).  An input
 * value `"$3"` or `{"ref": 3}` stands for the result of atom 3 and makes
 * atom 3 a dependency even if `dependsOn` omits it.  A bare array of
 * atoms is read as `{"atoms": [...]}`.
 *
 * Parsing keeps going past structural problems (an atom without a name,
 * a `dependsOn` that is not a list) and lists them in
 * anot_plan_get_problems(), so the model can be told about all of them at
 * once; anot_plan_executor_check() adds what needs the tools to know
 * (unknown tools, untyped inputs, cycles).
 */

struct _AnotPlan
{
  GObject parent_instance;

  JsonNode   *root;
  GArray     *atoms;          /* AnotPlanAtom */
  GPtrArray  *problems;       /* char*, NULL-terminated */
};

G_DEFINE_FINAL_TYPE (AnotPlan, anot_plan, G_TYPE_OBJECT)

enum {
  PROP_0,
  PROP_N_ATOMS,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

static void
atom_clear (gpointer data)
{
  AnotPlanAtom *atom = data;

  g_free (atom->id);
  g_free (atom->kind);
  g_free (atom->name);
  g_clear_pointer (&atom->input, json_object_unref);
  g_strfreev (atom->dependencies);
}

static void
anot_plan_finalize (GObject *object)
{
  AnotPlan *self = ANOT_PLAN (object);

  g_clear_pointer (&self->root, json_node_unref);
  g_array_unref (self->atoms);
  g_ptr_array_unref (self->problems);

  G_OBJECT_CLASS (anot_plan_parent_class)->finalize (object);
}

static void
anot_plan_get_property (GObject    *object,
                        guint       prop_id,
                        GValue     *value,
                        GParamSpec *pspec)
{
  AnotPlan *self = ANOT_PLAN (object);

  switch (prop_id)
    {
    case PROP_N_ATOMS:
      g_value_set_uint (value, self->atoms->len);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
anot_plan_class_init (AnotPlanClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = anot_plan_finalize;
  object_class->get_property = anot_plan_get_property;

  /**
   * AnotPlan:n-atoms:
   *
   * The number of atoms read.
   */
  properties[PROP_N_ATOMS] =
    g_param_spec_uint ("n-atoms", NULL, NULL, 0, G_MAXUINT, 0,
                       G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);

  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
anot_plan_init (AnotPlan *self)
{
  self->atoms = g_array_new (FALSE, TRUE, sizeof (AnotPlanAtom));
  g_array_set_clear_func (self->atoms, atom_clear);
  self->problems = g_ptr_array_new_null_terminated (0, g_free, TRUE);
}

G_GNUC_PRINTF (2, 3)
static void
add_problem (AnotPlan   *self,
             const char *format,
             ...)
{
  va_list args;

  va_start (args, format);
  g_ptr_array_add (self->problems, g_strdup_vprintf (format, args));
  va_end (args);
}

/* An id as text: integers and strings; anything else is not an id. */
char *
_anot_plan_id_from_node (JsonNode *node)
{
  if (node == NULL || !JSON_NODE_HOLDS_VALUE (node))
    return NULL;

  switch (json_node_get_value_type (node))
    {
    case G_TYPE_INT64:
      return g_strdup_printf ("%" G_GINT64_FORMAT, json_node_get_int (node));
    case G_TYPE_DOUBLE:
      {
        double d = json_node_get_double (node);

        if (d == (double) (gint64) d)
          return g_strdup_printf ("%" G_GINT64_FORMAT, (gint64) d);
        return NULL;
      }
    case G_TYPE_STRING:
      {
        const char *s = json_node_get_string (node);

        if (s[0] == '\0')
          return NULL;
        return g_strdup (s[0] == '$' && s[1] != '\0' ? s + 1 : s);
      }
    default:
      return NULL;
    }
}

char *
_anot_plan_value_ref (JsonNode *value)
{
  if (value == NULL)
    return NULL;

  if (JSON_NODE_HOLDS_VALUE (value) && json_node_get_value_type (value) == G_TYPE_STRING)
    {
      const char *s = json_node_get_string (value);

      if (s[0] == '$' && s[1] != '\0')
        return g_strdup (s + 1);
      return NULL;
    }

  if (JSON_NODE_HOLDS_OBJECT (value))
    {
      JsonObject *object = json_node_get_object (value);

      if (json_object_get_size (object) == 1 && json_object_has_member (object, "ref"))
        return _anot_plan_id_from_node (json_object_get_member (object, "ref"));
    }

  return NULL;
}

static void
collect_refs (JsonNode  *value,
              GPtrArray *out)
{
  g_autofree char *ref = _anot_plan_value_ref (value);

  if (ref != NULL)
    {
      g_ptr_array_add (out, g_steal_pointer (&ref));
      return;
    }
  if (JSON_NODE_HOLDS_ARRAY (value))
    {
      JsonArray *array = json_node_get_array (value);

      for (guint i = 0; i < json_array_get_length (array); i++)
        collect_refs (json_array_get_element (array, i), out);
    }
  else if (JSON_NODE_HOLDS_OBJECT (value))
    {
      JsonObjectIter iter;
      const char *name;
      JsonNode *member;

      json_object_iter_init (&iter, json_node_get_object (value));
      while (json_object_iter_next (&iter, &name, &member))
        collect_refs (member, out);
    }
}

static void
add_unique (GPtrArray  *list,
            const char *id)
{
  for (guint i = 0; i < list->len; i++)
    if (strcmp (g_ptr_array_index (list, i), id) == 0)
      return;
  g_ptr_array_add (list, g_strdup (id));
}

static void
read_atom (AnotPlan   *self,
           guint       position,
           JsonNode   *node)
{
  AnotPlanAtom atom = { 0 };
  JsonObject *object;
  JsonNode *member;
  g_autoptr(GPtrArray) deps = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GPtrArray) refs = g_ptr_array_new_with_free_func (g_free);
  g_autofree char *where = NULL;

  if (!JSON_NODE_HOLDS_OBJECT (node))
    {
      add_problem (self, "Atom %u (counting from 1) is not a JSON object", position + 1);
      return;
    }
  object = json_node_get_object (node);

  atom.id = _anot_plan_id_from_node (json_object_get_member (object, "id"));
  if (atom.id == NULL)
    {
      add_problem (self, "Atom %u (counting from 1) has no id (an integer)", position + 1);
      atom.id = g_strdup_printf ("#%u", position + 1);
    }
  where = g_strdup_printf ("Atom %s", atom.id);

  member = json_object_get_member (object, "kind");
  if (member == NULL || JSON_NODE_HOLDS_NULL (member))
    atom.kind = g_strdup ("tool");
  else if (JSON_NODE_HOLDS_VALUE (member) && json_node_get_value_type (member) == G_TYPE_STRING &&
           (strcmp (json_node_get_string (member), "tool") == 0 ||
            strcmp (json_node_get_string (member), "final") == 0))
    atom.kind = g_strdup (json_node_get_string (member));
  else
    {
      add_problem (self, "%s: kind must be \"tool\" or \"final\"", where);
      atom.kind = g_strdup ("tool");
    }

  member = json_object_get_member (object, "name");
  if (member != NULL && JSON_NODE_HOLDS_VALUE (member) &&
      json_node_get_value_type (member) == G_TYPE_STRING && json_node_get_string (member)[0] != '\0')
    atom.name = g_strdup (json_node_get_string (member));
  else
    {
      add_problem (self, "%s has no name (the tool to call)", where);
      atom.name = g_strdup ("");
    }

  member = json_object_get_member (object, "input");
  if (member == NULL || JSON_NODE_HOLDS_NULL (member))
    atom.input = json_object_new ();
  else if (JSON_NODE_HOLDS_OBJECT (member))
    atom.input = json_object_ref (json_node_get_object (member));
  else
    {
      add_problem (self, "%s: input must be a JSON object", where);
      atom.input = json_object_new ();
    }

  member = json_object_get_member (object, "dependsOn");
  if (member == NULL)
    member = json_object_get_member (object, "depends_on");
  if (member != NULL && !JSON_NODE_HOLDS_NULL (member))
    {
      if (!JSON_NODE_HOLDS_ARRAY (member))
        add_problem (self, "%s: dependsOn must be a list of atom ids", where);
      else
        {
          JsonArray *array = json_node_get_array (member);

          for (guint i = 0; i < json_array_get_length (array); i++)
            {
              g_autofree char *dep = _anot_plan_id_from_node (json_array_get_element (array, i));

              if (dep == NULL)
                add_problem (self, "%s: dependsOn[%u] is not an atom id", where, i);
              else
                add_unique (deps, dep);
            }
        }
    }

  {
    JsonNode *input = json_node_init_object (json_node_alloc (), atom.input);

    collect_refs (input, refs);
    json_node_unref (input);
  }
  for (guint i = 0; i < refs->len; i++)
    add_unique (deps, g_ptr_array_index (refs, i));

  g_ptr_array_add (deps, NULL);
  atom.dependencies = (char **) g_ptr_array_steal (deps, NULL);
  g_array_append_val (self->atoms, atom);
}

/**
 * anot_plan_new_from_json:
 * @root: the plan, `{"atoms": [...]}` or a bare array of atoms
 *
 * Reads a plan.  Never fails: structural problems are listed by
 * anot_plan_get_problems().
 *
 * Returns: (transfer full): the plan
 */
AnotPlan *
anot_plan_new_from_json (JsonNode *root)
{
  AnotPlan *self;
  JsonNode *atoms = NULL;

  g_return_val_if_fail (root != NULL, NULL);

  self = g_object_new (ANOT_TYPE_PLAN, NULL);
  self->root = json_node_copy (root);

  if (JSON_NODE_HOLDS_ARRAY (root))
    atoms = root;
  else if (JSON_NODE_HOLDS_OBJECT (root))
    atoms = json_object_get_member (json_node_get_object (root), "atoms");

  if (atoms == NULL || !JSON_NODE_HOLDS_ARRAY (atoms))
    {
      add_problem (self, "The plan must be a JSON object with an \"atoms\" list");
      return self;
    }

  for (guint i = 0; i < json_array_get_length (json_node_get_array (atoms)); i++)
    read_atom (self, i, json_array_get_element (json_node_get_array (atoms), i));
  if (self->atoms->len == 0)
    add_problem (self, "The plan has no atoms");

  return self;
}

/**
 * anot_plan_parse:
 * @text: the model's reply: JSON, possibly in a code fence or among prose
 * @error: return location for a #GError
 *
 * Finds the JSON in @text (see anot_parse_json()) and reads it as a plan.
 * Fails with %ANOT_ERROR_PARSE only if there is no JSON at all; other
 * problems are listed by anot_plan_get_problems().
 *
 * Returns: (transfer full): the plan, or %NULL with @error set
 */
AnotPlan *
anot_plan_parse (const char  *text,
                 GError     **error)
{
  g_autoptr(AnotParseResult) parsed = NULL;

  g_return_val_if_fail (text != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  parsed = anot_parse_json (text);
  if (!anot_parse_result_get_ok (parsed))
    {
      g_set_error (error, ANOT_ERROR, ANOT_ERROR_PARSE, "The reply holds no JSON plan: %s",
                   anot_parse_result_get_message (parsed));
      return NULL;
    }

  return anot_plan_new_from_json (anot_parse_result_get_json (parsed));
}

const AnotPlanAtom *
_anot_plan_get_atom (AnotPlan *self,
                     guint     position)
{
  return &g_array_index (self->atoms, AnotPlanAtom, position);
}

/**
 * anot_plan_get_n_atoms:
 * @self: an #AnotPlan
 *
 * Returns: the number of atoms read
 */
guint
anot_plan_get_n_atoms (AnotPlan *self)
{
  g_return_val_if_fail (ANOT_IS_PLAN (self), 0);
  return self->atoms->len;
}

#define CHECK_POSITION(self, position, value) \
  g_return_val_if_fail (ANOT_IS_PLAN (self), value); \
  g_return_val_if_fail ((position) < (self)->atoms->len, value)

/**
 * anot_plan_get_atom_id:
 * @self: an #AnotPlan
 * @position: an atom's position in the plan
 *
 * Returns: the atom's id, as text
 */
const char *
anot_plan_get_atom_id (AnotPlan *self,
                       guint     position)
{
  CHECK_POSITION (self, position, NULL);
  return g_array_index (self->atoms, AnotPlanAtom, position).id;
}

/**
 * anot_plan_get_atom_kind:
 * @self: an #AnotPlan
 * @position: an atom's position in the plan
 *
 * Returns: `tool` or `final`
 */
const char *
anot_plan_get_atom_kind (AnotPlan *self,
                         guint     position)
{
  CHECK_POSITION (self, position, NULL);
  return g_array_index (self->atoms, AnotPlanAtom, position).kind;
}

/**
 * anot_plan_get_atom_name:
 * @self: an #AnotPlan
 * @position: an atom's position in the plan
 *
 * Returns: the name of the atom's tool (empty if it had none)
 */
const char *
anot_plan_get_atom_name (AnotPlan *self,
                         guint     position)
{
  CHECK_POSITION (self, position, NULL);
  return g_array_index (self->atoms, AnotPlanAtom, position).name;
}

/**
 * anot_plan_get_atom_input:
 * @self: an #AnotPlan
 * @position: an atom's position in the plan
 *
 * Returns: (transfer none): the atom's input, references unresolved
 */
JsonObject *
anot_plan_get_atom_input (AnotPlan *self,
                          guint     position)
{
  CHECK_POSITION (self, position, NULL);
  return g_array_index (self->atoms, AnotPlanAtom, position).input;
}

/**
 * anot_plan_get_atom_dependencies:
 * @self: an #AnotPlan
 * @position: an atom's position in the plan
 *
 * Returns: (transfer none) (array zero-terminated=1): the ids the atom
 *   waits for: its `dependsOn` and the atoms its input refers to
 */
const char * const *
anot_plan_get_atom_dependencies (AnotPlan *self,
                                 guint     position)
{
  CHECK_POSITION (self, position, NULL);
  return (const char * const *) g_array_index (self->atoms, AnotPlanAtom, position).dependencies;
}

/**
 * anot_plan_lookup_atom:
 * @self: an #AnotPlan
 * @id: an atom id
 *
 * Returns: the position of the first atom with @id, or -1
 */
int
anot_plan_lookup_atom (AnotPlan   *self,
                       const char *id)
{
  g_return_val_if_fail (ANOT_IS_PLAN (self), -1);
  g_return_val_if_fail (id != NULL, -1);

  for (guint i = 0; i < self->atoms->len; i++)
    if (strcmp (g_array_index (self->atoms, AnotPlanAtom, i).id, id) == 0)
      return (int) i;
  return -1;
}

/**
 * anot_plan_get_problems:
 * @self: an #AnotPlan
 *
 * Returns: (transfer none) (array zero-terminated=1): the structural
 *   problems found while reading the plan; empty if none
 */
const char * const *
anot_plan_get_problems (AnotPlan *self)
{
  static const char * const none[] = { NULL };

  g_return_val_if_fail (ANOT_IS_PLAN (self), NULL);

  if (self->problems->len == 0)
    return none;
  return (const char * const *) self->problems->pdata;
}

/**
 * anot_plan_to_json:
 * @self: an #AnotPlan
 *
 * Returns: (transfer full): the plan as it was given
 */
JsonNode *
anot_plan_to_json (AnotPlan *self)
{
  g_return_val_if_fail (ANOT_IS_PLAN (self), NULL);
  return json_node_copy (self->root);
}
