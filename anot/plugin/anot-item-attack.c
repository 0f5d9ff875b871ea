/* anot-item-attack.c: attacks that rewrite the reviews of some candidates
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "anot-item-attack.h"

#include "anot-attack-templates.h"

#include "anot-dataset-private.h"
#include "anot-enum-types.h"
#include "anot-error.h"
#include "anot-review-forge.h"
#include "anot-seed.h"

/**
 * AnotItemAttack:
 *
 * The base class of attacks that change the reviews of some candidates:
 * every attack of the original framework (typos, injected instructions,
 * fake and sarcastic reviews, length changes) is one.
 *
 * The class implements [iface@Anot.Attack]: for each request it picks the
 * items to attack — every candidate but the gold one, or
 * [property@Anot.ItemAttack:restaurants] of them drawn at random — and
 * calls the `attack_item` virtual method of the
 * subclass on each, in candidate order.  The other candidates (the gold
 * one always) are passed through untouched.
 *
 * Randomness: the targets are drawn from a #GRand seeded with the request's
 * attack seed (see anot_attack_derive_seed()); each attacked item gets a
 * seed of its own, `anot_seed_derive (seed, "item:<item id>")`, so what
 * happens to one item does not depend on which others are attacked.
 *
 * A subclass sets its [property@Anot.ItemAttack:category] in class_init
 * and may define more parameters as properties.
 *
 * Reviews an attack adds are made with anot_item_attack_make_review(),
 * which gives them the form [property@Anot.ItemAttack:compat] asks for:
 * by default one a method cannot tell from the dataset's own reviews by
 * any field but the text (see #AnotReviewForge).
 */

typedef struct
{
  int restaurants;
  AnotAttackCompat compat;
} AnotItemAttackPrivate;

/* The forge of the apply() running on this thread, for
 * anot_item_attack_make_review(): the attack_item vfunc does not get the
 * candidates, and its signature is fixed by the bindings. */
typedef struct
{
  AnotItemAttack  *attack;
  AnotReviewForge *forge;
} CurrentForge;

static GPrivate current_forge = G_PRIVATE_INIT (NULL);

static void anot_item_attack_attack_iface_init (AnotAttackInterface *iface);
static GPtrArray *call_attack_item (AnotItemAttack  *self,
                                    AnotItem        *item,
                                    AnotRequest     *request,
                                    guint64          seed,
                                    GError         **error);

G_DEFINE_ABSTRACT_TYPE_WITH_CODE (AnotItemAttack, anot_item_attack, G_TYPE_OBJECT,
                                  G_ADD_PRIVATE (AnotItemAttack)
                                  G_IMPLEMENT_INTERFACE (ANOT_TYPE_ATTACK,
                                                         anot_item_attack_attack_iface_init))

enum {
  PROP_0,
  PROP_RESTAURANTS,
  PROP_CATEGORY,
  PROP_COMPAT,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

static GPtrArray *
anot_item_attack_apply (AnotAttack   *attack,
                        GPtrArray    *candidates,
                        AnotRequest  *request,
                        guint64       seed,
                        GError      **error)
{
  AnotItemAttack *self = ANOT_ITEM_ATTACK (attack);
  AnotItemAttackPrivate *priv = anot_item_attack_get_instance_private (self);
  const char *gold_id = anot_request_get_gold_item_id (request);
  g_autoptr(GArray) others = g_array_new (FALSE, FALSE, sizeof (guint));
  g_autofree gboolean *target = g_new0 (gboolean, candidates->len + 1);
  g_autoptr(GPtrArray) out = NULL;
  g_autoptr(GRand) rand = NULL;
  g_autoptr(AnotDataset) dataset = NULL;
  g_autoptr(AnotReviewForge) forge = NULL;
  CurrentForge current, *previous;

  if (!anot_item_attack_check (self, error))
    return NULL;

  /* Cheap until an attack adds a review: the forge prepares lazily. */
  if (candidates->len > 0)
    dataset = _anot_item_get_dataset (g_ptr_array_index (candidates, 0));
  forge = anot_review_forge_new (dataset, candidates, request);
  current.attack = self;
  current.forge = forge;
  previous = g_private_get (&current_forge);

  for (guint i = 0; i < candidates->len; i++)
    if (g_strcmp0 (anot_item_get_id (g_ptr_array_index (candidates, i)), gold_id) != 0)
      g_array_append_val (others, i);

  rand = anot_attack_rand_new (seed);
  if (priv->restaurants < 0 || (guint) priv->restaurants >= others->len)
    {
      for (guint i = 0; i < others->len; i++)
        target[g_array_index (others, guint, i)] = TRUE;
    }
  else
    {
      g_autoptr(GArray) chosen = anot_attack_sample (rand, others->len, (guint) priv->restaurants);

      for (guint i = 0; i < chosen->len; i++)
        target[g_array_index (others, guint, g_array_index (chosen, guint, i))] = TRUE;
    }

  out = g_ptr_array_new_full (candidates->len, g_object_unref);
  for (guint i = 0; i < candidates->len; i++)
    {
      AnotItem *item = g_ptr_array_index (candidates, i);
      g_autofree char *scope = NULL;
      g_autoptr(GPtrArray) reviews = NULL;
      GError *local_error = NULL;

      if (!target[i])
        {
          g_ptr_array_add (out, g_object_ref (item));
          continue;
        }

      scope = g_strdup_printf ("item:%s", anot_item_get_id (item));
      g_private_set (&current_forge, &current);
      reviews = call_attack_item (self, item, request, anot_seed_derive (seed, scope),
                                  &local_error);
      g_private_set (&current_forge, previous);
      if (local_error != NULL)
        {
          g_propagate_error (error, local_error);
          return NULL;
        }
      if (reviews == NULL)
        g_ptr_array_add (out, g_object_ref (item));
      else
        g_ptr_array_add (out, anot_item_copy_with_reviews (item, reviews));
    }

  return g_steal_pointer (&out);
}

static void
anot_item_attack_attack_iface_init (AnotAttackInterface *iface)
{
  iface->apply = anot_item_attack_apply;
}

static gboolean
anot_item_attack_real_check (AnotItemAttack  *self,
                             GError         **error)
{
  return TRUE;
}

static void
anot_item_attack_get_property (GObject    *object,
                               guint       prop_id,
                               GValue     *value,
                               GParamSpec *pspec)
{
  AnotItemAttack *self = ANOT_ITEM_ATTACK (object);
  AnotItemAttackPrivate *priv = anot_item_attack_get_instance_private (self);

  switch (prop_id)
    {
    case PROP_RESTAURANTS:
      g_value_set_int (value, priv->restaurants);
      break;
    case PROP_CATEGORY:
      g_value_set_string (value, anot_item_attack_get_category (self));
      break;
    case PROP_COMPAT:
      g_value_set_enum (value, priv->compat);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
anot_item_attack_set_property (GObject      *object,
                               guint         prop_id,
                               const GValue *value,
                               GParamSpec   *pspec)
{
  AnotItemAttack *self = ANOT_ITEM_ATTACK (object);

  switch (prop_id)
    {
    case PROP_RESTAURANTS:
      anot_item_attack_set_restaurants (self, g_value_get_int (value));
      break;
    case PROP_COMPAT:
      anot_item_attack_set_compat (self, g_value_get_enum (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
anot_item_attack_class_init (AnotItemAttackClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->get_property = anot_item_attack_get_property;
  object_class->set_property = anot_item_attack_set_property;
  klass->check = anot_item_attack_real_check;

  /**
   * AnotItemAttack:restaurants:
   *
   * How many non-gold candidates to attack, drawn at random per request;
   * -1 (the default) or a number at least as large as the non-gold
   * candidates attacks them all (`--attack-restaurants`).
   */
  properties[PROP_RESTAURANTS] =
    g_param_spec_int ("restaurants", NULL, NULL, -1, G_MAXINT, -1,
                      G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  /**
   * AnotItemAttack:category:
   *
   * The family of the attack (`noise`, `injection`, `deception`, ...), or
   * %NULL.
   */
  properties[PROP_CATEGORY] =
    g_param_spec_string ("category", NULL, NULL, NULL,
                         G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  /**
   * AnotItemAttack:compat:
   *
   * The form of the reviews the attack adds (`--attack-compat`): realistic
   * (the default), or the original framework's labelled reviews to compare
   * with its published numbers.  Attacks that only change texts are the
   * same in both modes.
   */
  properties[PROP_COMPAT] =
    g_param_spec_enum ("compat", NULL, NULL, ANOT_TYPE_ATTACK_COMPAT,
                       ANOT_ATTACK_COMPAT_REALISTIC,
                       G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);

  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
anot_item_attack_init (AnotItemAttack *self)
{
  AnotItemAttackPrivate *priv = anot_item_attack_get_instance_private (self);

  priv->restaurants = -1;
}

/**
 * anot_item_attack_get_restaurants:
 * @self: an #AnotItemAttack
 *
 * Returns: the number of non-gold candidates attacked per request, -1 for
 *   all
 */
int
anot_item_attack_get_restaurants (AnotItemAttack *self)
{
  AnotItemAttackPrivate *priv;

  g_return_val_if_fail (ANOT_IS_ITEM_ATTACK (self), -1);

  priv = anot_item_attack_get_instance_private (self);
  return priv->restaurants;
}

/**
 * anot_item_attack_set_restaurants:
 * @self: an #AnotItemAttack
 * @restaurants: how many non-gold candidates to attack, -1 for all
 *
 * Sets [property@Anot.ItemAttack:restaurants].
 */
void
anot_item_attack_set_restaurants (AnotItemAttack *self,
                                  int             restaurants)
{
  AnotItemAttackPrivate *priv;

  g_return_if_fail (ANOT_IS_ITEM_ATTACK (self));
  g_return_if_fail (restaurants >= -1);

  priv = anot_item_attack_get_instance_private (self);
  if (priv->restaurants == restaurants)
    return;
  priv->restaurants = restaurants;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_RESTAURANTS]);
}

/**
 * anot_item_attack_get_compat:
 * @self: an #AnotItemAttack
 *
 * Returns: the form of the reviews the attack adds
 */
AnotAttackCompat
anot_item_attack_get_compat (AnotItemAttack *self)
{
  AnotItemAttackPrivate *priv;

  g_return_val_if_fail (ANOT_IS_ITEM_ATTACK (self), ANOT_ATTACK_COMPAT_REALISTIC);

  priv = anot_item_attack_get_instance_private (self);
  return priv->compat;
}

/**
 * anot_item_attack_set_compat:
 * @self: an #AnotItemAttack
 * @compat: the form of the reviews the attack adds
 *
 * Sets [property@Anot.ItemAttack:compat].
 */
void
anot_item_attack_set_compat (AnotItemAttack   *self,
                             AnotAttackCompat  compat)
{
  AnotItemAttackPrivate *priv;

  g_return_if_fail (ANOT_IS_ITEM_ATTACK (self));
  g_return_if_fail (compat == ANOT_ATTACK_COMPAT_REALISTIC || compat == ANOT_ATTACK_COMPAT_ORIGINAL);

  priv = anot_item_attack_get_instance_private (self);
  if (priv->compat == compat)
    return;
  priv->compat = compat;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_COMPAT]);
}

/**
 * anot_item_attack_make_review:
 * @self: an #AnotItemAttack
 * @item: the candidate the review is added to
 * @reviews: (element-type Anot.Review) (nullable): the reviews of the
 *   attacked copy of @item so far; %NULL for @item's own
 * @label: the id the original framework gave such a review, e.g.
 *   `fake_001` (used only by %ANOT_ATTACK_COMPAT_ORIGINAL)
 * @stars: the star rating
 * @text: the text
 * @seed: the seed of the review's other fields, e.g.
 *   `anot_seed_derive (item_seed, "added:0")`
 * @error: return location for a #GError
 *
 * Makes a review for an attack to add to @item, in the form
 * [property@Anot.ItemAttack:compat] asks for.  Realistic reviews come from
 * the #AnotReviewForge of the request being attacked when called from
 * `attack_item` (so ids are unique across the candidates), or from one for
 * @item alone otherwise.  The caller inserts the review where it wants.
 *
 * Returns: (transfer full): a new #AnotReview, or %NULL with @error set
 */
AnotReview *
anot_item_attack_make_review (AnotItemAttack  *self,
                              AnotItem        *item,
                              GPtrArray       *reviews,
                              const char      *label,
                              double           stars,
                              const char      *text,
                              guint64          seed,
                              GError         **error)
{
  AnotItemAttackPrivate *priv;
  CurrentForge *current;
  g_autoptr(AnotReviewForge) forge = NULL;

  g_return_val_if_fail (ANOT_IS_ITEM_ATTACK (self), NULL);
  g_return_val_if_fail (ANOT_IS_ITEM (item), NULL);
  g_return_val_if_fail (label != NULL, NULL);
  g_return_val_if_fail (text != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  priv = anot_item_attack_get_instance_private (self);
  if (priv->compat == ANOT_ATTACK_COMPAT_ORIGINAL)
    return anot_review_new_labelled (item, label, stars, text);

  current = g_private_get (&current_forge);
  if (current != NULL && current->attack == self)
    forge = g_object_ref (current->forge);
  else
    {
      g_autoptr(AnotDataset) dataset = _anot_item_get_dataset (item);
      g_autoptr(GPtrArray) alone = g_ptr_array_new ();

      g_ptr_array_add (alone, item);
      forge = anot_review_forge_new (dataset, alone, NULL);
    }
  return anot_review_forge_make (forge, item, reviews, stars, text, seed, error);
}

/**
 * anot_item_attack_get_category:
 * @self: an #AnotItemAttack
 *
 * Returns: (nullable): the family of the attack, e.g. `noise`
 */
const char *
anot_item_attack_get_category (AnotItemAttack *self)
{
  g_return_val_if_fail (ANOT_IS_ITEM_ATTACK (self), NULL);

  return ANOT_ITEM_ATTACK_GET_CLASS (self)->category;
}

/**
 * anot_item_attack_check:
 * @self: an #AnotItemAttack
 * @error: return location for a #GError
 *
 * Checks that the parameters allow the attack to run (for instance that a
 * parameter without a default is set).  The experiment calls it before a
 * run, so a bad parameter is a usage error rather than a failed request.
 *
 * Returns: %TRUE when the attack can run; else %FALSE with @error set
 *   (%ANOT_ERROR_INVALID_ARGUMENT)
 */
gboolean
anot_item_attack_check (AnotItemAttack  *self,
                        GError         **error)
{
  AnotItemAttackClass *klass;

  g_return_val_if_fail (ANOT_IS_ITEM_ATTACK (self), FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  klass = ANOT_ITEM_ATTACK_GET_CLASS (self);
  return klass->check == NULL || klass->check (self, error);
}

/**
 * AnotItemAttackClass::attack_item:
 * @self: an #AnotItemAttack
 * @item: a non-gold candidate chosen for attack
 * @request: the request the candidates are ranked for
 * @seed: the seed of this item's random choices
 * @error: return location for a #GError
 *
 * Computes the reviews of the attacked copy of @item: reviews of @item
 * (unchanged, or copied with anot_review_copy_with_text()) and new ones
 * (anot_review_new()), in the order the method is to see them.  @item is
 * not modified.
 *
 * The array and a reference on each review belong to the caller, so that
 * reviews created by a Python implementation stay alive (in C, return an
 * array made with `g_ptr_array_new_with_free_func (g_object_unref)`).
 *
 * Returns: (transfer full) (element-type Anot.Review) (nullable): the
 *   reviews, or %NULL to leave @item as it is (or on error)
 */

/* Takes the result of the vfunc, whatever made it: the caller owns a
 * reference on each review. */
static GPtrArray *
call_attack_item (AnotItemAttack  *self,
                  AnotItem        *item,
                  AnotRequest     *request,
                  guint64          seed,
                  GError         **error)
{
  AnotItemAttackClass *klass = ANOT_ITEM_ATTACK_GET_CLASS (self);
  GPtrArray *reviews;

  if (klass->attack_item == NULL)
    {
      g_set_error (error, ANOT_ERROR, ANOT_ERROR_ATTACK_FAILED,
                   "Attack %s does not implement attack_item", G_OBJECT_TYPE_NAME (self));
      return NULL;
    }
  reviews = klass->attack_item (self, item, request, seed, error);
  if (reviews != NULL)
    g_ptr_array_set_free_func (reviews, g_object_unref);
  return reviews;
}

/**
 * anot_item_attack_register_variant: (skip)
 * @module: the plugin's #GTypeModule
 * @family: an #AnotItemAttack subclass registered by the same module
 * @type_name: the name of the new type, e.g. `AnotAttackTypo10`
 * @class_size: sizeof the class structure of @family
 * @instance_size: sizeof the instance structure of @family
 * @class_init: sets the variant's presets in the class of @family
 * @class_data: passed to @class_init
 *
 * Registers a final subclass of @family that only differs by presets its
 * @class_init stores in the class structure (a rate, a template set, ...).
 * One plugin can so register several named attacks (`typo_10` and
 * `typo_20`) without a type definition each: the registry creates attacks
 * by type, so every name needs a type of its own.  (The sizes are
 * arguments because the type system does not report them for the dynamic
 * types of a plugin.)
 *
 * Returns: the new type
 */
GType
anot_item_attack_register_variant (GTypeModule    *module,
                                   GType           family,
                                   const char     *type_name,
                                   gsize           class_size,
                                   gsize           instance_size,
                                   GClassInitFunc  class_init,
                                   gconstpointer   class_data)
{
  GTypeInfo info = { 0 };

  g_return_val_if_fail (G_IS_TYPE_MODULE (module), G_TYPE_INVALID);
  g_return_val_if_fail (g_type_is_a (family, ANOT_TYPE_ITEM_ATTACK), G_TYPE_INVALID);
  g_return_val_if_fail (type_name != NULL, G_TYPE_INVALID);
  g_return_val_if_fail (class_size <= G_MAXUINT16 && instance_size <= G_MAXUINT16, G_TYPE_INVALID);

  info.class_size = (guint16) class_size;
  info.class_init = class_init;
  info.class_data = class_data;
  info.instance_size = (guint16) instance_size;

  return g_type_module_register_type (module, family, type_name, &info, G_TYPE_FLAG_FINAL);
}

/**
 * anot_item_attack_get_texts:
 * @self: an #AnotItemAttack
 * @item: the attacked item (the dataset it comes from decides the set)
 * @key: the template key, e.g. `fake_positive`
 * @restaurant: (array zero-terminated=1): the attack's own texts for @key
 *   (the restaurant set)
 * @error: return location for a #GError
 *
 * The texts an attack adds for @key on @item's benchmark: @restaurant for
 * a benchmark of restaurants, else the generic set written from its
 * domain, or its own `attack_templates.json` (see #AnotAttackTemplates).
 *
 * Returns: (transfer none) (array zero-terminated=1) (nullable): the
 *   texts, or %NULL with @error set when the benchmark's templates file is
 *   not valid
 */
const char * const *
anot_item_attack_get_texts (AnotItemAttack      *self,
                            AnotItem            *item,
                            const char          *key,
                            const char * const  *restaurant,
                            GError             **error)
{
  AnotAttackTemplates *templates;

  g_return_val_if_fail (ANOT_IS_ITEM_ATTACK (self), NULL);
  g_return_val_if_fail (ANOT_IS_ITEM (item), NULL);
  g_return_val_if_fail (key != NULL, NULL);
  g_return_val_if_fail (restaurant != NULL, NULL);

  templates = anot_item_attack_get_templates (self, item, error);
  if (templates == NULL)
    return NULL;
  return anot_attack_templates_lookup (templates, key, restaurant);
}

/**
 * anot_item_attack_get_templates:
 * @self: an #AnotItemAttack
 * @item: the attacked item (the dataset it comes from decides the set)
 * @error: return location for a #GError
 *
 * The attack texts and sarcastic rule attributes of @item's benchmark
 * (anot_attack_templates_get_for_dataset()).
 *
 * Returns: (transfer none) (nullable): the templates, or %NULL with
 *   @error set when the benchmark's templates file is not valid
 */
AnotAttackTemplates *
anot_item_attack_get_templates (AnotItemAttack  *self,
                                AnotItem        *item,
                                GError         **error)
{
  g_autoptr(AnotDataset) dataset = NULL;

  g_return_val_if_fail (ANOT_IS_ITEM_ATTACK (self), NULL);
  g_return_val_if_fail (ANOT_IS_ITEM (item), NULL);

  dataset = _anot_item_get_dataset (item);
  return anot_attack_templates_get_for_dataset (dataset, error);
}
