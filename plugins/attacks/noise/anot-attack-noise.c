/* anot-attack-noise.c: typos in review text (typo_10, typo_20)
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <anot/anot.h>

#include <string.h>

/* The original's typo attack: in every review of an attacked restaurant,
 * each word longer than 3 characters gets, with probability `rate`, two
 * adjacent characters swapped at a random position.  Unlike the original,
 * the whitespace between words is kept as it was (the original re-joined
 * the words with single spaces, which also removed newlines), so the only
 * change a method sees is the typos; `--attack-compat original` re-joins
 * them as the original did (attacks.md §3). */

GType anot_attack_typo_get_type (void);
#define ANOT_TYPE_ATTACK_TYPO (anot_attack_typo_get_type ())
#define ANOT_ATTACK_TYPO(o) (G_TYPE_CHECK_INSTANCE_CAST ((o), ANOT_TYPE_ATTACK_TYPO, AnotAttackTypo))
#define ANOT_ATTACK_TYPO_GET_CLASS(o) (G_TYPE_INSTANCE_GET_CLASS ((o), ANOT_TYPE_ATTACK_TYPO, AnotAttackTypoClass))

typedef struct
{
  AnotItemAttack parent_instance;
  double rate;
} AnotAttackTypo;

typedef struct
{
  AnotItemAttackClass parent_class;
  double default_rate;
} AnotAttackTypoClass;

G_DEFINE_DYNAMIC_TYPE_EXTENDED (AnotAttackTypo, anot_attack_typo, ANOT_TYPE_ITEM_ATTACK,
                                G_TYPE_FLAG_ABSTRACT, {})

enum {
  PROP_0,
  PROP_RATE,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

/* Words are what Python's str.split() returns: runs of non-whitespace. */
static char *
typo_text (const char *text,
           double      rate,
           GRand      *rand,
           gboolean    single_spaces,
           gboolean   *out_changed)
{
  GString *out = g_string_sized_new (strlen (text));
  const char *p = text;
  gboolean any_word = FALSE;

  *out_changed = FALSE;
  while (*p != '\0')
    {
      const char *start = p;
      glong n_chars = 0;

      while (*p != '\0' && g_unichar_isspace (g_utf8_get_char (p)))
        p = g_utf8_next_char (p);
      /* " ".join(text.split()): one space between words, none around. */
      if (!single_spaces)
        g_string_append_len (out, start, p - start);
      else if (any_word && *p != '\0')
        g_string_append_c (out, ' ');

      start = p;
      while (*p != '\0' && !g_unichar_isspace (g_utf8_get_char (p)))
        {
          p = g_utf8_next_char (p);
          n_chars++;
        }
      if (n_chars == 0)
        continue;
      any_word = TRUE;

      if (n_chars > 3 && g_rand_double (rand) < rate)
        {
          gint32 pos = g_rand_int_range (rand, 0, (gint32) n_chars - 1);
          const char *a = g_utf8_offset_to_pointer (start, pos);
          const char *b = g_utf8_next_char (a);
          const char *c = g_utf8_next_char (b);

          g_string_append_len (out, start, a - start);
          g_string_append_len (out, b, c - b);
          g_string_append_len (out, a, b - a);
          g_string_append_len (out, c, p - c);
          /* Swapping two equal characters ("coffee") changes nothing. */
          if (c - b != b - a || memcmp (a, b, b - a) != 0)
            *out_changed = TRUE;
        }
      else
        g_string_append_len (out, start, p - start);
    }

  /* The original's re-joined text counts as changed even without a typo:
   * its newlines and double spaces are gone. */
  if (single_spaces && strcmp (out->str, text) != 0)
    *out_changed = TRUE;
  return g_string_free (out, FALSE);
}

static GPtrArray *
anot_attack_typo_attack_item (AnotItemAttack  *attack,
                              AnotItem        *item,
                              AnotRequest     *request,
                              guint64          seed,
                              GError         **error)
{
  AnotAttackTypo *self = ANOT_ATTACK_TYPO (attack);
  GPtrArray *reviews = anot_item_get_reviews (item);
  g_autoptr(GPtrArray) out = g_ptr_array_new_full (reviews->len, g_object_unref);
  g_autoptr(GRand) rand = anot_attack_rand_new (seed);
  gboolean any_change = FALSE;
  gboolean single_spaces = anot_item_attack_get_compat (attack) == ANOT_ATTACK_COMPAT_ORIGINAL;

  for (guint i = 0; i < reviews->len; i++)
    {
      AnotReview *review = g_ptr_array_index (reviews, i);
      gboolean changed;
      g_autofree char *text = typo_text (anot_review_get_text (review), self->rate, rand, single_spaces,
                                         &changed);

      if (changed)
        {
          g_ptr_array_add (out, anot_review_copy_with_text (review, text));
          any_change = TRUE;
        }
      else
        g_ptr_array_add (out, g_object_ref (review));
    }

  return any_change ? g_steal_pointer (&out) : NULL;
}

static void
anot_attack_typo_get_property (GObject    *object,
                               guint       prop_id,
                               GValue     *value,
                               GParamSpec *pspec)
{
  AnotAttackTypo *self = ANOT_ATTACK_TYPO (object);

  switch (prop_id)
    {
    case PROP_RATE:
      g_value_set_double (value, self->rate);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
anot_attack_typo_set_property (GObject      *object,
                               guint         prop_id,
                               const GValue *value,
                               GParamSpec   *pspec)
{
  AnotAttackTypo *self = ANOT_ATTACK_TYPO (object);

  switch (prop_id)
    {
    case PROP_RATE:
      if (self->rate != g_value_get_double (value))
        {
          self->rate = g_value_get_double (value);
          g_object_notify_by_pspec (object, pspec);
        }
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

/* The variant's preset is in its class, which instance_init cannot see
 * yet (it runs with the family's class). */
static void
anot_attack_typo_constructed (GObject *object)
{
  AnotAttackTypo *self = ANOT_ATTACK_TYPO (object);

  G_OBJECT_CLASS (anot_attack_typo_parent_class)->constructed (object);
  self->rate = ANOT_ATTACK_TYPO_GET_CLASS (self)->default_rate;
}

static void
anot_attack_typo_class_init (AnotAttackTypoClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  AnotItemAttackClass *attack_class = (AnotItemAttackClass *) klass;

  object_class->get_property = anot_attack_typo_get_property;
  object_class->set_property = anot_attack_typo_set_property;
  object_class->constructed = anot_attack_typo_constructed;
  attack_class->attack_item = anot_attack_typo_attack_item;
  attack_class->category = "noise";

  properties[PROP_RATE] =
    g_param_spec_double ("rate", NULL, "Probability that a word longer than 3 characters gets a typo",
                         0.0, 1.0, 0.10,
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
anot_attack_typo_class_finalize (AnotAttackTypoClass *klass)
{
}

static void
anot_attack_typo_init (AnotAttackTypo *self)
{
}

typedef struct
{
  const char *name;
  const char *type_name;
  double rate;
  const char *description;
} TypoVariant;

static const TypoVariant variants[] = {
  { "typo_10", "AnotAttackTypo10", 0.10,
    "Swaps two adjacent characters in 10% of the words (longer than 3 characters) of every review" },
  { "typo_20", "AnotAttackTypo20", 0.20,
    "Swaps two adjacent characters in 20% of the words (longer than 3 characters) of every review" },
};

static void
variant_class_init (gpointer klass,
                    gpointer class_data)
{
  const TypoVariant *variant = class_data;

  ((AnotAttackTypoClass *) klass)->default_rate = variant->rate;
}

G_MODULE_EXPORT void
g_io_module_load (GIOModule *module)
{
  anot_attack_typo_register_type (G_TYPE_MODULE (module));
  for (guint i = 0; i < G_N_ELEMENTS (variants); i++)
    {
      GType type = anot_item_attack_register_variant (G_TYPE_MODULE (module), ANOT_TYPE_ATTACK_TYPO,
                                                      variants[i].type_name,
                                                      sizeof (AnotAttackTypoClass),
                                                      sizeof (AnotAttackTypo),
                                                      variant_class_init,
                                                      &variants[i]);

      anot_plugin_implement (ANOT_ATTACK_EXTENSION_POINT_NAME, type, variants[i].name,
                             variants[i].description);
    }
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
