/* anot-attack.c: the adversarial attack interface
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "anot-attack.h"

#include <stdlib.h>
#include <string.h>

#include "anot-error.h"
#include "anot-seed.h"

/**
 * AnotAttack:
 *
 * An adversarial attack on the candidates a method sees.
 *
 * Attacks are plugins registered with the `anot-attack` extension point.  An
 * attack is a pure function of (candidates, request, seed): the same seed
 * gives the same bytes, and the input items are never modified — an attack
 * returns copies built with anot_item_copy_with_reviews().  The item that
 * is the request's gold answer is never attacked.
 *
 * An attack's parameters (how many restaurants and reviews it touches, a
 * rate, a target length) are GObject properties; anot_attack_set_parameter()
 * sets one from text, as `anot-run --attack-option KEY=VALUE` does, and
 * anot_attack_get_parameters() lists them for `config.json`.  Most attacks
 * derive from [class@Anot.ItemAttack], which chooses the items to attack
 * and leaves the gold one alone.
 */

G_DEFINE_INTERFACE (AnotAttack, anot_attack, G_TYPE_OBJECT)

static void
anot_attack_default_init (AnotAttackInterface *iface)
{
}

/* An attack may return copies of items that keep their content; what it
 * must not do is hand the method another gold item. */
static gboolean
same_reviews (AnotItem *a,
              AnotItem *b)
{
  if (a == b)
    return TRUE;
  if (anot_item_get_n_reviews (a) != anot_item_get_n_reviews (b))
    return FALSE;
  for (guint i = 0; i < anot_item_get_n_reviews (a); i++)
    {
      AnotReview *ra = anot_item_get_review (a, i);
      AnotReview *rb = anot_item_get_review (b, i);

      if (strcmp (anot_review_get_id (ra), anot_review_get_id (rb)) != 0 ||
          strcmp (anot_review_get_text (ra), anot_review_get_text (rb)) != 0 ||
          anot_review_get_stars (ra) != anot_review_get_stars (rb))
        return FALSE;
    }
  return TRUE;
}

static gboolean
check_contract (AnotAttack   *self,
                GPtrArray    *candidates,
                GPtrArray    *attacked,
                AnotRequest  *request,
                GError      **error)
{
  const char *gold_id = anot_request_get_gold_item_id (request);
  const char *type_name = G_OBJECT_TYPE_NAME (self);

  if (attacked->len != candidates->len)
    {
      g_set_error (error, ANOT_ERROR, ANOT_ERROR_ATTACK_FAILED,
                   "Attack %s returned %u candidates for %u", type_name,
                   attacked->len, candidates->len);
      return FALSE;
    }

  for (guint i = 0; i < candidates->len; i++)
    {
      AnotItem *clean = g_ptr_array_index (candidates, i);
      AnotItem *item = g_ptr_array_index (attacked, i);

      if (!ANOT_IS_ITEM (item) ||
          strcmp (anot_item_get_id (item), anot_item_get_id (clean)) != 0)
        {
          g_set_error (error, ANOT_ERROR, ANOT_ERROR_ATTACK_FAILED,
                       "Attack %s changed the candidate at position %u", type_name, i);
          return FALSE;
        }
      if (g_strcmp0 (anot_item_get_id (clean), gold_id) == 0 && !same_reviews (clean, item))
        {
          g_set_error (error, ANOT_ERROR, ANOT_ERROR_ATTACK_FAILED,
                       "Attack %s changed the gold item %s of request %s", type_name,
                       gold_id, anot_request_get_id (request));
          return FALSE;
        }
    }

  return TRUE;
}

/**
 * anot_attack_apply:
 * @self: an #AnotAttack
 * @candidates: (element-type Anot.Item): the clean candidates
 * @request: the request the candidates are ranked for
 * @seed: the seed of every random choice the attack makes
 * @error: return location for a #GError
 *
 * Returns an attacked copy of @candidates, in the same order.  @candidates
 * and its items are not modified.
 *
 * The result is checked: an attack that returns another number of
 * candidates, another item at some position, or a changed gold item fails
 * with %ANOT_ERROR_ATTACK_FAILED.
 *
 * Returns: (transfer container) (element-type Anot.Item): the attacked
 *   candidates, or %NULL on error
 */
GPtrArray *
anot_attack_apply (AnotAttack   *self,
                   GPtrArray    *candidates,
                   AnotRequest  *request,
                   guint64       seed,
                   GError      **error)
{
  AnotAttackInterface *iface;
  g_autoptr(GPtrArray) attacked = NULL;
  GError *local_error = NULL;

  g_return_val_if_fail (ANOT_IS_ATTACK (self), NULL);
  g_return_val_if_fail (candidates != NULL, NULL);
  g_return_val_if_fail (ANOT_IS_REQUEST (request), NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  iface = ANOT_ATTACK_GET_IFACE (self);
  g_return_val_if_fail (iface->apply != NULL, NULL);
  attacked = iface->apply (self, candidates, request, seed, &local_error);
  if (attacked == NULL)
    {
      if (local_error == NULL)
        local_error = g_error_new (ANOT_ERROR, ANOT_ERROR_ATTACK_FAILED,
                                   "Attack %s returned no candidates and no error",
                                   G_OBJECT_TYPE_NAME (self));
      g_propagate_error (error, local_error);
      return NULL;
    }
  if (local_error != NULL)
    {
      g_propagate_error (error, local_error);
      return NULL;
    }
  if (!check_contract (self, candidates, attacked, request, error))
    return NULL;

  return g_steal_pointer (&attacked);
}

/* ------------------------------------------------------------------------
 * Parameters
 * --------------------------------------------------------------------- */

static GParamSpec *
find_parameter (AnotAttack *self,
                const char *name)
{
  g_autofree char *canonical = g_strdup (name);
  GParamSpec *pspec;

  /* `target_len` and `target-len` are the same parameter. */
  g_strdelimit (canonical, "_", '-');
  pspec = g_object_class_find_property (G_OBJECT_GET_CLASS (self), canonical);
  /* `items`, the domain-neutral name of the item attacks' `restaurants`:
   * the property keeps the original's name, which every recorded
   * configuration and `attack_config.n_restaurants` use. */
  if (pspec == NULL && strcmp (canonical, "items") == 0)
    pspec = g_object_class_find_property (G_OBJECT_GET_CLASS (self), "restaurants");
  if (pspec == NULL ||
      (pspec->flags & (G_PARAM_READABLE | G_PARAM_WRITABLE)) != (G_PARAM_READABLE | G_PARAM_WRITABLE) ||
      (pspec->flags & G_PARAM_CONSTRUCT_ONLY) != 0)
    return NULL;
  return pspec;
}

/**
 * anot_attack_has_parameter:
 * @self: an #AnotAttack
 * @name: a parameter name, e.g. `restaurants` (`_` and `-` are the same;
 *   `items` is `restaurants`)
 *
 * Whether @self has a parameter @name: a readable and writable property.
 *
 * Returns: %TRUE if anot_attack_set_parameter() can set @name
 */
gboolean
anot_attack_has_parameter (AnotAttack *self,
                           const char *name)
{
  g_return_val_if_fail (ANOT_IS_ATTACK (self), FALSE);
  g_return_val_if_fail (name != NULL, FALSE);

  return find_parameter (self, name) != NULL;
}

static gboolean
parse_value (GParamSpec  *pspec,
             const char  *text,
             GValue      *value,
             GError     **error)
{
  GType type = G_PARAM_SPEC_VALUE_TYPE (pspec);
  GType fundamental = G_TYPE_FUNDAMENTAL (type);

  g_value_init (value, type);

  if (fundamental == G_TYPE_STRING)
    {
      g_value_set_string (value, text);
      return TRUE;
    }
  if (fundamental == G_TYPE_BOOLEAN)
    {
      if (g_ascii_strcasecmp (text, "true") == 0 || strcmp (text, "1") == 0 ||
          g_ascii_strcasecmp (text, "yes") == 0)
        g_value_set_boolean (value, TRUE);
      else if (g_ascii_strcasecmp (text, "false") == 0 || strcmp (text, "0") == 0 ||
               g_ascii_strcasecmp (text, "no") == 0)
        g_value_set_boolean (value, FALSE);
      else
        goto invalid;
      return TRUE;
    }
  if (fundamental == G_TYPE_INT || fundamental == G_TYPE_INT64 || fundamental == G_TYPE_LONG)
    {
      gint64 number;

      if (!g_ascii_string_to_signed (text, 10, G_MININT64, G_MAXINT64, &number, NULL))
        goto invalid;
      if (fundamental == G_TYPE_INT)
        {
          if (number < G_MININT || number > G_MAXINT)
            goto invalid;
          g_value_set_int (value, (int) number);
        }
      else if (fundamental == G_TYPE_LONG)
        {
          if (number < G_MINLONG || number > G_MAXLONG)
            goto invalid;
          g_value_set_long (value, (long) number);
        }
      else
        g_value_set_int64 (value, number);
    }
  else if (fundamental == G_TYPE_UINT || fundamental == G_TYPE_UINT64 || fundamental == G_TYPE_ULONG)
    {
      guint64 number;

      if (!g_ascii_string_to_unsigned (text, 10, 0, G_MAXUINT64, &number, NULL))
        goto invalid;
      if (fundamental == G_TYPE_UINT)
        {
          if (number > G_MAXUINT)
            goto invalid;
          g_value_set_uint (value, (guint) number);
        }
      else if (fundamental == G_TYPE_ULONG)
        {
          if (number > G_MAXULONG)
            goto invalid;
          g_value_set_ulong (value, (gulong) number);
        }
      else
        g_value_set_uint64 (value, number);
    }
  else if (fundamental == G_TYPE_DOUBLE || fundamental == G_TYPE_FLOAT)
    {
      char *end = NULL;
      double number = g_ascii_strtod (text, &end);

      if (*text == '\0' || end == NULL || *end != '\0')
        goto invalid;
      if (fundamental == G_TYPE_DOUBLE)
        g_value_set_double (value, number);
      else
        g_value_set_float (value, (float) number);
    }
  else if (fundamental == G_TYPE_ENUM)
    {
      g_autoptr(GEnumClass) klass = g_type_class_ref (type);
      GEnumValue *ev = g_enum_get_value_by_nick (klass, text);

      if (ev == NULL)
        ev = g_enum_get_value_by_name (klass, text);
      if (ev == NULL)
        goto invalid;
      g_value_set_enum (value, ev->value);
      return TRUE;
    }
  else
    {
      g_set_error (error, ANOT_ERROR, ANOT_ERROR_INVALID_ARGUMENT,
                   "Parameter “%s” has type %s, which cannot be set from text",
                   pspec->name, g_type_name (type));
      return FALSE;
    }

  /* g_param_value_validate() clamps out-of-range values: refuse them. */
  if (g_param_value_validate (pspec, value))
    goto invalid;
  return TRUE;

invalid:
  {
    g_auto(GValue) dflt = G_VALUE_INIT;
    g_autofree char *dflt_text = NULL;

    g_value_init (&dflt, G_TYPE_STRING);
    if (g_value_type_transformable (type, G_TYPE_STRING))
      {
        g_auto(GValue) tmp = G_VALUE_INIT;

        g_value_init (&tmp, type);
        g_param_value_set_default (pspec, &tmp);
        g_value_transform (&tmp, &dflt);
        dflt_text = g_value_dup_string (&dflt);
      }
    g_set_error (error, ANOT_ERROR, ANOT_ERROR_INVALID_ARGUMENT,
                 "Invalid value “%s” for attack parameter “%s” (%s%s%s)", text, pspec->name,
                 g_type_name (type), dflt_text ? ", default " : "", dflt_text ? dflt_text : "");
    return FALSE;
  }
}

/**
 * anot_attack_set_parameter:
 * @self: an #AnotAttack
 * @name: a parameter name (`_` and `-` are the same; `items` is the
 *   domain-neutral name of `restaurants`)
 * @value: the value as text: a decimal number, `true`/`false`, an enum nick
 *   or a string, depending on the parameter's type
 * @error: return location for a #GError
 *
 * Sets a parameter from text.  Unknown parameters and values that do not
 * parse or are out of range fail with %ANOT_ERROR_INVALID_ARGUMENT and
 * leave @self unchanged.
 *
 * Returns: %TRUE when the parameter was set
 */
gboolean
anot_attack_set_parameter (AnotAttack  *self,
                           const char  *name,
                           const char  *value,
                           GError     **error)
{
  g_auto(GValue) gvalue = G_VALUE_INIT;
  GParamSpec *pspec;

  g_return_val_if_fail (ANOT_IS_ATTACK (self), FALSE);
  g_return_val_if_fail (name != NULL, FALSE);
  g_return_val_if_fail (value != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  pspec = find_parameter (self, name);
  if (pspec == NULL)
    {
      g_set_error (error, ANOT_ERROR, ANOT_ERROR_INVALID_ARGUMENT,
                   "Attack %s has no parameter “%s”", G_OBJECT_TYPE_NAME (self), name);
      return FALSE;
    }
  if (!parse_value (pspec, value, &gvalue, error))
    return FALSE;
  g_object_set_property (G_OBJECT (self), pspec->name, &gvalue);
  return TRUE;
}

static int
compare_pspec_names (gconstpointer a,
                     gconstpointer b)
{
  return strcmp ((*(GParamSpec * const *) a)->name, (*(GParamSpec * const *) b)->name);
}

/**
 * anot_attack_get_parameters:
 * @self: an #AnotAttack
 *
 * Lists the parameters of @self (its readable and writable properties) and
 * their current values, sorted by name: numbers and booleans as JSON
 * values, enums by nick, strings as strings (or null).
 *
 * Returns: (transfer full): a new #JsonObject
 */
JsonObject *
anot_attack_get_parameters (AnotAttack *self)
{
  g_autofree GParamSpec **pspecs = NULL;
  JsonObject *obj;
  guint n_pspecs;

  g_return_val_if_fail (ANOT_IS_ATTACK (self), NULL);

  obj = json_object_new ();
  pspecs = g_object_class_list_properties (G_OBJECT_GET_CLASS (self), &n_pspecs);
  qsort (pspecs, n_pspecs, sizeof (GParamSpec *), compare_pspec_names);
  for (guint i = 0; i < n_pspecs; i++)
    {
      GParamSpec *pspec = pspecs[i];
      g_auto(GValue) value = G_VALUE_INIT;
      GType fundamental = G_TYPE_FUNDAMENTAL (G_PARAM_SPEC_VALUE_TYPE (pspec));

      if (find_parameter (self, pspec->name) != pspec)
        continue;
      g_value_init (&value, G_PARAM_SPEC_VALUE_TYPE (pspec));
      g_object_get_property (G_OBJECT (self), pspec->name, &value);

      switch (fundamental)
        {
        case G_TYPE_BOOLEAN:
          json_object_set_boolean_member (obj, pspec->name, g_value_get_boolean (&value));
          break;
        case G_TYPE_INT:
          json_object_set_int_member (obj, pspec->name, g_value_get_int (&value));
          break;
        case G_TYPE_UINT:
          json_object_set_int_member (obj, pspec->name, g_value_get_uint (&value));
          break;
        case G_TYPE_LONG:
          json_object_set_int_member (obj, pspec->name, g_value_get_long (&value));
          break;
        case G_TYPE_ULONG:
          json_object_set_int_member (obj, pspec->name, (gint64) g_value_get_ulong (&value));
          break;
        case G_TYPE_INT64:
          json_object_set_int_member (obj, pspec->name, g_value_get_int64 (&value));
          break;
        case G_TYPE_UINT64:
          json_object_set_int_member (obj, pspec->name, (gint64) g_value_get_uint64 (&value));
          break;
        case G_TYPE_DOUBLE:
          json_object_set_double_member (obj, pspec->name, g_value_get_double (&value));
          break;
        case G_TYPE_FLOAT:
          json_object_set_double_member (obj, pspec->name, g_value_get_float (&value));
          break;
        case G_TYPE_STRING:
          if (g_value_get_string (&value) != NULL)
            json_object_set_string_member (obj, pspec->name, g_value_get_string (&value));
          else
            json_object_set_null_member (obj, pspec->name);
          break;
        case G_TYPE_ENUM:
          {
            g_autoptr(GEnumClass) klass = g_type_class_ref (G_PARAM_SPEC_VALUE_TYPE (pspec));
            GEnumValue *ev = g_enum_get_value (klass, g_value_get_enum (&value));

            json_object_set_string_member (obj, pspec->name, ev ? ev->value_nick : "");
          }
          break;
        default:
          break;
        }
    }

  return obj;
}

/* ------------------------------------------------------------------------
 * Helpers for implementations
 * --------------------------------------------------------------------- */

/**
 * anot_attack_derive_seed:
 * @run_seed: the seed of the run
 * @attack: the attack's registered name, e.g. `typo_10`
 * @request_id: the request's id
 * @n_candidates: the candidate count N
 *
 * The seed an experiment passes to anot_attack_apply() for one request:
 * `anot_seed_derive (run_seed, "attack:<attack>:<request id>:<N>")`.  It
 * depends on nothing else — not on the order or concurrency of requests,
 * not on the process — so an attacked run is reproducible, and the same
 * request gets the same attacked text in every experiment with that run
 * seed.  (The original framework re-seeded Python's global RNG with
 * Python's per-process string hash, so its attacked text differed from
 * run to run.)
 *
 * Returns: the seed
 */
guint64
anot_attack_derive_seed (guint64     run_seed,
                         const char *attack,
                         const char *request_id,
                         guint       n_candidates)
{
  g_autofree char *scope = NULL;

  g_return_val_if_fail (attack != NULL, 0);
  g_return_val_if_fail (request_id != NULL, 0);

  scope = g_strdup_printf ("attack:%s:%s:%u", attack, request_id, n_candidates);
  return anot_seed_derive (run_seed, scope);
}

/**
 * anot_attack_rand_new: (skip)
 * @seed: a 64-bit seed
 *
 * Creates the random number generator of an attack from its seed, the way
 * the experiment's pools do: a #GRand seeded with the two 32-bit halves of
 * @seed (low word first).
 *
 * Returns: (transfer full): a new #GRand; free it with g_rand_free()
 */
GRand *
anot_attack_rand_new (guint64 seed)
{
  guint32 words[2] = { (guint32) (seed & 0xffffffffu), (guint32) (seed >> 32) };

  return g_rand_new_with_seed_array (words, 2);
}

/**
 * anot_attack_sample: (skip)
 * @rand: a #GRand
 * @n: the population size
 * @k: how many to draw; more than @n draws all @n
 *
 * Draws min(@k, @n) distinct indices from 0..@n−1 without replacement, in
 * the order drawn (a partial Fisher–Yates shuffle), like Python's
 * `random.sample (range (n), k)`.
 *
 * Returns: (transfer full) (element-type guint): the indices
 */
GArray *
anot_attack_sample (GRand *rand,
                    guint  n,
                    guint  k)
{
  g_autofree guint *pool = NULL;
  GArray *out;

  g_return_val_if_fail (rand != NULL, NULL);

  k = MIN (k, n);
  out = g_array_sized_new (FALSE, FALSE, sizeof (guint), k);
  if (k == 0)
    return out;

  pool = g_new (guint, n);
  for (guint i = 0; i < n; i++)
    pool[i] = i;
  for (guint i = 0; i < k; i++)
    {
      guint j = i + (guint) g_rand_int_range (rand, 0, (gint32) (n - i));
      guint tmp = pool[i];

      pool[i] = pool[j];
      pool[j] = tmp;
      g_array_append_val (out, pool[i]);
    }
  return out;
}

static AnotReview *
find_review (AnotItem   *item,
             const char *review_id)
{
  for (guint i = 0; i < anot_item_get_n_reviews (item); i++)
    {
      AnotReview *review = anot_item_get_review (item, i);

      if (strcmp (anot_review_get_id (review), review_id) == 0)
        return review;
    }
  return NULL;
}

/**
 * anot_attack_describe:
 * @clean: (element-type Anot.Item): the candidates before the attack
 * @attacked: (element-type Anot.Item): what anot_attack_apply() returned
 *   for them
 * @request: the request
 *
 * Describes what an attack changed, for `anot-run attack --dump` and for
 * notebooks: a JSON array with one object per candidate, in order:
 *
 * - `position` (0-based), `item_id`, `name`, `gold` (whether it is the
 *   request's gold item), `attacked` (whether any review differs);
 * - `reviews`: every review the method sees, as `position`, `review_id`,
 *   `stars`, `status` (`unchanged`, `changed` or `added`), `text`, and
 *   `clean_text` for changed ones;
 * - `removed`: the reviews of the clean item the method does not see
 *   (`review_id`, `text`).
 *
 * Reviews are matched by `review_id`.
 *
 * Returns: (transfer full): a JSON array
 */
JsonNode *
anot_attack_describe (GPtrArray   *clean,
                      GPtrArray   *attacked,
                      AnotRequest *request)
{
  g_autoptr(JsonBuilder) builder = json_builder_new ();
  const char *gold_id;

  g_return_val_if_fail (clean != NULL, NULL);
  g_return_val_if_fail (attacked != NULL, NULL);
  g_return_val_if_fail (clean->len == attacked->len, NULL);
  g_return_val_if_fail (ANOT_IS_REQUEST (request), NULL);

  gold_id = anot_request_get_gold_item_id (request);
  json_builder_begin_array (builder);
  for (guint i = 0; i < clean->len; i++)
    {
      AnotItem *before = g_ptr_array_index (clean, i);
      AnotItem *after = g_ptr_array_index (attacked, i);
      gboolean any_change = FALSE;

      json_builder_begin_object (builder);
      json_builder_set_member_name (builder, "position");
      json_builder_add_int_value (builder, i);
      json_builder_set_member_name (builder, "item_id");
      json_builder_add_string_value (builder, anot_item_get_id (after));
      json_builder_set_member_name (builder, "name");
      json_builder_add_string_value (builder, anot_item_get_name (after));
      json_builder_set_member_name (builder, "gold");
      json_builder_add_boolean_value (builder, g_strcmp0 (anot_item_get_id (after), gold_id) == 0);

      json_builder_set_member_name (builder, "reviews");
      json_builder_begin_array (builder);
      for (guint r = 0; r < anot_item_get_n_reviews (after); r++)
        {
          AnotReview *review = anot_item_get_review (after, r);
          AnotReview *original = find_review (before, anot_review_get_id (review));
          const char *status;

          if (original == NULL)
            status = "added";
          else if (strcmp (anot_review_get_text (original), anot_review_get_text (review)) != 0 ||
                   anot_review_get_stars (original) != anot_review_get_stars (review))
            status = "changed";
          else
            status = "unchanged";
          if (original == NULL || strcmp (status, "changed") == 0)
            any_change = TRUE;

          json_builder_begin_object (builder);
          json_builder_set_member_name (builder, "position");
          json_builder_add_int_value (builder, r);
          json_builder_set_member_name (builder, "review_id");
          json_builder_add_string_value (builder, anot_review_get_id (review));
          json_builder_set_member_name (builder, "stars");
          json_builder_add_double_value (builder, anot_review_get_stars (review));
          json_builder_set_member_name (builder, "status");
          json_builder_add_string_value (builder, status);
          json_builder_set_member_name (builder, "text");
          json_builder_add_string_value (builder, anot_review_get_text (review));
          if (strcmp (status, "changed") == 0)
            {
              json_builder_set_member_name (builder, "clean_text");
              json_builder_add_string_value (builder, anot_review_get_text (original));
            }
          json_builder_end_object (builder);
        }
      json_builder_end_array (builder);

      json_builder_set_member_name (builder, "removed");
      json_builder_begin_array (builder);
      for (guint r = 0; r < anot_item_get_n_reviews (before); r++)
        {
          AnotReview *review = anot_item_get_review (before, r);

          if (find_review (after, anot_review_get_id (review)) != NULL)
            continue;
          any_change = TRUE;
          json_builder_begin_object (builder);
          json_builder_set_member_name (builder, "review_id");
          json_builder_add_string_value (builder, anot_review_get_id (review));
          json_builder_set_member_name (builder, "text");
          json_builder_add_string_value (builder, anot_review_get_text (review));
          json_builder_end_object (builder);
        }
      json_builder_end_array (builder);

      json_builder_set_member_name (builder, "attacked");
      json_builder_add_boolean_value (builder, any_change);
      json_builder_end_object (builder);
    }
  json_builder_end_array (builder);

  return json_builder_get_root (builder);
}
