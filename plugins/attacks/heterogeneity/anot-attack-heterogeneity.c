/* anot-attack-heterogeneity.c: review texts stretched or cut to one length
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <anot/anot.h>

#include <string.h>

/* The original's heterogeneity attack: `reviews` reviews drawn at random
 * in each attacked restaurant (default 1; -1 for all) get exactly
 * `target-len` characters: a longer text is cut, a shorter one repeated
 * (joined by a space) until it is long enough, then cut.  Empty texts are
 * left alone.  `target-len` has no default: like the original's
 * --attack-target-len it must be given, and `--attack all` leaves this
 * attack out when it is not. */

#define ANOT_TYPE_ATTACK_HETEROGENEITY (anot_attack_heterogeneity_get_type ())
G_DECLARE_FINAL_TYPE (AnotAttackHeterogeneity, anot_attack_heterogeneity,
                      ANOT, ATTACK_HETEROGENEITY, AnotItemAttack)

struct _AnotAttackHeterogeneity
{
  AnotItemAttack parent_instance;
  int target_len;
  int reviews;
};

G_DEFINE_DYNAMIC_TYPE_EXTENDED (AnotAttackHeterogeneity, anot_attack_heterogeneity,
                                ANOT_TYPE_ITEM_ATTACK, G_TYPE_FLAG_FINAL, {})

enum {
  PROP_0,
  PROP_TARGET_LEN,
  PROP_REVIEWS,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

/* Lengths are in characters, as Python's len(). */
static char *
fit_text (const char *text,
          glong       target)
{
  glong n_chars = g_utf8_strlen (text, -1);
  g_autoptr(GString) out = NULL;

  if (n_chars >= target)
    return g_utf8_substring (text, 0, target);

  out = g_string_new (text);
  while (n_chars < target)
    {
      g_string_append_c (out, ' ');
      g_string_append (out, text);
      n_chars = g_utf8_strlen (out->str, -1);
    }
  return g_utf8_substring (out->str, 0, target);
}

static GPtrArray *
anot_attack_heterogeneity_attack_item (AnotItemAttack  *attack,
                                       AnotItem        *item,
                                       AnotRequest     *request,
                                       guint64          seed,
                                       GError         **error)
{
  AnotAttackHeterogeneity *self = ANOT_ATTACK_HETEROGENEITY (attack);
  GPtrArray *reviews = anot_item_get_reviews (item);
  g_autoptr(GPtrArray) out = NULL;
  g_autoptr(GRand) rand = anot_attack_rand_new (seed);
  g_autoptr(GArray) chosen = NULL;
  gboolean any_change = FALSE;

  if (reviews->len == 0)
    return NULL;

  out = g_ptr_array_new_full (reviews->len, g_object_unref);
  for (guint i = 0; i < reviews->len; i++)
    g_ptr_array_add (out, g_object_ref (g_ptr_array_index (reviews, i)));

  chosen = anot_attack_sample (rand, reviews->len,
                               self->reviews < 0 ? reviews->len : (guint) self->reviews);
  for (guint c = 0; c < chosen->len; c++)
    {
      guint position = g_array_index (chosen, guint, c);
      AnotReview *review = g_ptr_array_index (reviews, position);
      const char *text = anot_review_get_text (review);
      g_autofree char *fitted = NULL;

      if (*text == '\0')
        continue;
      fitted = fit_text (text, self->target_len);
      if (strcmp (fitted, text) == 0)
        continue;
      g_ptr_array_index (out, position) = anot_review_copy_with_text (review, fitted);
      g_object_unref (review);
      any_change = TRUE;
    }

  return any_change ? g_steal_pointer (&out) : NULL;
}

static gboolean
anot_attack_heterogeneity_check (AnotItemAttack  *attack,
                                 GError         **error)
{
  AnotAttackHeterogeneity *self = ANOT_ATTACK_HETEROGENEITY (attack);

  if (self->target_len <= 0)
    {
      g_set_error (error, ANOT_ERROR, ANOT_ERROR_INVALID_ARGUMENT,
                   "heterogeneity needs a target length (--attack-target-len L or "
                   "--attack-option target-len=L)");
      return FALSE;
    }
  return TRUE;
}

static void
anot_attack_heterogeneity_get_property (GObject    *object,
                                        guint       prop_id,
                                        GValue     *value,
                                        GParamSpec *pspec)
{
  AnotAttackHeterogeneity *self = ANOT_ATTACK_HETEROGENEITY (object);

  switch (prop_id)
    {
    case PROP_TARGET_LEN:
      g_value_set_int (value, self->target_len);
      break;
    case PROP_REVIEWS:
      g_value_set_int (value, self->reviews);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
anot_attack_heterogeneity_set_property (GObject      *object,
                                        guint         prop_id,
                                        const GValue *value,
                                        GParamSpec   *pspec)
{
  AnotAttackHeterogeneity *self = ANOT_ATTACK_HETEROGENEITY (object);
  int *field;

  switch (prop_id)
    {
    case PROP_TARGET_LEN:
      field = &self->target_len;
      break;
    case PROP_REVIEWS:
      field = &self->reviews;
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      return;
    }
  if (*field != g_value_get_int (value))
    {
      *field = g_value_get_int (value);
      g_object_notify_by_pspec (object, pspec);
    }
}

static void
anot_attack_heterogeneity_class_init (AnotAttackHeterogeneityClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  AnotItemAttackClass *attack_class = ANOT_ITEM_ATTACK_CLASS (klass);

  object_class->get_property = anot_attack_heterogeneity_get_property;
  object_class->set_property = anot_attack_heterogeneity_set_property;
  attack_class->attack_item = anot_attack_heterogeneity_attack_item;
  attack_class->check = anot_attack_heterogeneity_check;
  attack_class->category = "heterogeneity";

  properties[PROP_TARGET_LEN] =
    g_param_spec_int ("target-len", NULL,
                      "Length in characters the chosen reviews get (0: unset, required)",
                      0, G_MAXINT, 0,
                      G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_REVIEWS] =
    g_param_spec_int ("reviews", NULL,
                      "Reviews per attacked item that are stretched or cut (-1: all)",
                      -1, G_MAXINT, 1,
                      G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
anot_attack_heterogeneity_class_finalize (AnotAttackHeterogeneityClass *klass)
{
}

static void
anot_attack_heterogeneity_init (AnotAttackHeterogeneity *self)
{
  self->reviews = 1;
}

G_MODULE_EXPORT void
g_io_module_load (GIOModule *module)
{
  anot_attack_heterogeneity_register_type (G_TYPE_MODULE (module));
  anot_plugin_implement (ANOT_ATTACK_EXTENSION_POINT_NAME, ANOT_TYPE_ATTACK_HETEROGENEITY,
                         "heterogeneity",
                         "Stretches or cuts review texts to --attack-target-len characters "
                         "(required)");
}

G_MODULE_EXPORT void
g_io_module_unload (GIOModule *module)
{
}

G_MODULE_EXPORT char **
g_io_module_query (void)
{
  return g_strsplit (ANOT_ATTACK_EXTENSION_POINT_NAME, "!", -1);
}
