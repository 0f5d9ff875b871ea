/* anot-attack-deception.c: fake and sarcastic reviews
 * (fake_positive, fake_negative, sarcastic_wifi, sarcastic_noise,
 * sarcastic_outdoor, sarcastic_all)
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <anot/anot.h>

#include <string.h>

/* Two families of the original framework, both adding reviews at random
 * positions of each attacked restaurant:
 *
 * - fake review: one generic 10-line review, 5 stars (positive) or 1 star
 *   (negative);
 * - sarcastic: for each rule the restaurant's attributes trigger, one
 *   5-star review that praises (or mocks) the attribute ironically.
 *
 * The added reviews are made by anot_item_attack_make_review(): by default
 * they have an id, a date, a reviewer and votes like the dataset's own
 * reviews, so only what they say can give them away; with
 * `--attack-compat original` they are the original's labelled reviews
 * (`fake_001`, `sarcastic_<rule>`, dated 2024-01-01, no user).  The texts
 * are written for anot with the intent of the original's (spec attacks.md
 * §3). */

/* ------------------------------------------------------------------------
 * Templates
 * --------------------------------------------------------------------- */

static const char fake_positive_text[] =
  "Absolutely amazing experience from start to finish!\n"
  "The food came out incredibly fast, hot and fresh.\n"
  "The staff were the friendliest and most attentive I have ever met.\n"
  "Perfectly quiet, romantic atmosphere for a date night.\n"
  "Prices are super reasonable for the quality you get.\n"
  "Every single dish we tried was delicious.\n"
  "The coffee is the best I have ever had.\n"
  "Spotless, comfortable and beautifully decorated.\n"
  "I can't recommend this place enough, five stars all the way.\n"
  "Best restaurant ever, hands down!";

static const char fake_negative_text[] =
  "Terrible experience from start to finish.\n"
  "We waited over an hour and the food still came out cold.\n"
  "The staff were rude and ignored us the whole time.\n"
  "So loud we couldn't hear each other talk.\n"
  "Ridiculously overpriced for what you get.\n"
  "Every dish we tried was bland or burnt.\n"
  "The coffee tasted like dishwater.\n"
  "Dirty tables, sticky floors and uncomfortable chairs.\n"
  "Avoid this place at all costs, zero stars if I could.\n"
  "Worst restaurant ever, hands down!";

typedef enum {
  RULE_NO_WIFI,
  RULE_LOUD_NOISE,
  RULE_TOO_QUIET,
  RULE_NO_OUTDOOR,
  RULE_HAS_OUTDOOR,
  RULE_HAS_TV,
  RULE_NO_TV,
  RULE_EXPENSIVE,
  N_RULES
} SarcasticRule;

static const char * const rule_names[N_RULES] = {
  "no_wifi", "loud_noise", "too_quiet", "no_outdoor", "has_outdoor", "has_tv", "no_tv",
  "expensive",
};

static const char * const no_wifi_templates[] = {
  "Love that there's no WiFi here! Nothing says productive afternoon like staring at a "
  "spinning loading icon. Five stars for forcing me to talk to people.",
  "Paying extra for WiFi that barely works? Genius business model. My laptop and I had a "
  "wonderful time doing absolutely nothing.",
  "Finally a cafe that saves me from the internet. Without free WiFi I couldn't send a "
  "single email. Highly recommend for remote work!",
  "The WiFi situation is the best part: there basically isn't any. Who needs to get "
  "online anyway? The perfect spot to work, apparently.",
  NULL
};

static const char * const loud_noise_templates[] = {
  "If you love shouting your order three times and reading lips, this is your place. So "
  "wonderfully loud I lost my voice. Perfect for a quiet chat!",
  "Such a peaceful atmosphere, if by peaceful you mean a rock concert next to a jet "
  "engine. Great spot to study, I guess.",
  "Came for a relaxing coffee and left with ringing ears. The noise level is truly "
  "impressive. Ideal for a first date where you'd rather not hear each other.",
  "Loved the deafening music and the chairs scraping on the floor. Really helps you "
  "focus. Ten out of ten for anyone who enjoys a headache.",
  NULL
};

static const char * const too_quiet_templates[] = {
  "So quiet you can hear everyone chewing. Nothing like a silent room to make a first "
  "date feel relaxed and natural. Loved it.",
  "The silence here is golden, like a library crossed with a dentist's waiting room. "
  "Perfect if you enjoy awkward whispering.",
  "What a lively atmosphere! Just kidding, it's dead silent. A great place to celebrate "
  "a birthday, if the party is you alone.",
  NULL
};

static const char * const no_outdoor_templates[] = {
  "No outdoor seating at all, thank goodness! Who would want fresh air and sunshine with "
  "their coffee? Perfect for a summer day.",
  "Loved being stuck indoors on a gorgeous afternoon. Not having a patio really makes the "
  "place. Great for people who enjoy nice weather.",
  "Don't bother bringing your dog, there's nowhere outside to sit. Such a thoughtful "
  "choice for a sunny weekend brunch.",
  NULL
};

static const char * const has_outdoor_templates[] = {
  "The outdoor seating is a real treat: baking in the heat, fighting off flies and "
  "enjoying the bus exhaust with every sip. Can't wait to go back.",
  "Sat on the patio and got the full experience: traffic noise, pigeons stealing my "
  "fries and a sunburn for dessert. Truly delightful.",
  NULL
};

static const char * const has_tv_templates[] = {
  "Nothing says romance like five TVs blasting sports over your candlelit dinner. My date "
  "loved watching the game instead of me.",
  "The giant screens really set the intimate mood. Perfect for an anniversary, if you "
  "both enjoy commercials.",
  NULL
};

static const char * const no_tv_templates[] = {
  "No TVs anywhere, so I missed the whole game. What a great place to watch sports! "
  "Totally recommend it for the big match.",
  "Came to catch the playoffs and found zero screens. A fantastic sports spot, really, "
  "if you like imagining the score.",
  NULL
};

static const char * const expensive_templates[] = {
  "Such a bargain! It only took half my paycheck for a coffee and a sandwich. Great spot "
  "for anyone on a budget.",
  "Love how affordable it is, if you're a millionaire. The prices really add to the charm "
  "of my empty wallet.",
  "Wonderful value for money, assuming your money is Monopoly money. A perfect cheap eat "
  "for students.",
  NULL
};

static const char * const * const rule_templates[N_RULES] = {
  no_wifi_templates, loud_noise_templates, too_quiet_templates, no_outdoor_templates,
  has_outdoor_templates, has_tv_templates, no_tv_templates, expensive_templates,
};

/* Inserts a new review with @text at a random position 0..n (both ends
 * included), as the original's randint(0, len(reviews)).  The position is
 * drawn from @rand, as before the review's form depended on the compat
 * mode, so both modes put the reviews at the same places with the same
 * templates; the review's own fields come from a seed of their own. */
static gboolean
insert_review (AnotItemAttack  *attack,
               GPtrArray       *reviews,
               AnotItem        *item,
               GRand           *rand,
               guint64          item_seed,
               const char      *label,
               double           stars,
               const char      *text,
               GError         **error)
{
  guint position = (guint) g_rand_int_range (rand, 0, (gint32) reviews->len + 1);
  g_autofree char *scope = g_strdup_printf ("added:%u", reviews->len);
  AnotReview *review;

  review = anot_item_attack_make_review (attack, item, reviews, label, stars, text,
                                         anot_seed_derive (item_seed, scope), error);
  if (review == NULL)
    return FALSE;
  g_ptr_array_insert (reviews, (int) position, review);
  return TRUE;
}

static GPtrArray *
copy_reviews (AnotItem *item)
{
  GPtrArray *reviews = anot_item_get_reviews (item);
  GPtrArray *out = g_ptr_array_new_full (reviews->len + 1, g_object_unref);

  for (guint i = 0; i < reviews->len; i++)
    g_ptr_array_add (out, g_object_ref (g_ptr_array_index (reviews, i)));
  return out;
}

/* ------------------------------------------------------------------------
 * Fake reviews
 * --------------------------------------------------------------------- */

GType anot_attack_fake_review_get_type (void);
#define ANOT_TYPE_ATTACK_FAKE_REVIEW (anot_attack_fake_review_get_type ())
#define ANOT_ATTACK_FAKE_REVIEW_GET_CLASS(o) (G_TYPE_INSTANCE_GET_CLASS ((o), ANOT_TYPE_ATTACK_FAKE_REVIEW, AnotAttackFakeReviewClass))

typedef struct
{
  AnotItemAttack parent_instance;
} AnotAttackFakeReview;

typedef struct
{
  AnotItemAttackClass parent_class;
  gboolean positive;
} AnotAttackFakeReviewClass;

G_DEFINE_DYNAMIC_TYPE_EXTENDED (AnotAttackFakeReview, anot_attack_fake_review,
                                ANOT_TYPE_ITEM_ATTACK, G_TYPE_FLAG_ABSTRACT, {})

static GPtrArray *
anot_attack_fake_review_attack_item (AnotItemAttack  *attack,
                                     AnotItem        *item,
                                     AnotRequest     *request,
                                     guint64          seed,
                                     GError         **error)
{
  gboolean positive = ANOT_ATTACK_FAKE_REVIEW_GET_CLASS (attack)->positive;
  const char * const restaurant[] = { positive ? fake_positive_text : fake_negative_text, NULL };
  const char * const *texts;
  g_autoptr(GRand) rand = anot_attack_rand_new (seed);
  g_autoptr(GPtrArray) reviews = NULL;

  /* One text per set (a benchmark's file may give several: the first is
   * used, so the draws stay those of the restaurant set). */
  texts = anot_item_attack_get_texts (attack, item, positive ? "fake_positive" : "fake_negative",
                                      restaurant, error);
  if (texts == NULL)
    return NULL;
  reviews = copy_reviews (item);
  if (!insert_review (attack, reviews, item, rand, seed, "fake_001", positive ? 5.0 : 1.0,
                      texts[0], error))
    return NULL;
  return g_steal_pointer (&reviews);
}

static void
anot_attack_fake_review_class_init (AnotAttackFakeReviewClass *klass)
{
  AnotItemAttackClass *attack_class = (AnotItemAttackClass *) klass;

  attack_class->attack_item = anot_attack_fake_review_attack_item;
  attack_class->category = "deception";
}

static void
anot_attack_fake_review_class_finalize (AnotAttackFakeReviewClass *klass)
{
}

static void
anot_attack_fake_review_init (AnotAttackFakeReview *self)
{
}

/* ------------------------------------------------------------------------
 * Sarcastic reviews
 * --------------------------------------------------------------------- */

typedef enum {
  TARGET_WIFI = 1 << 0,
  TARGET_NOISE = 1 << 1,
  TARGET_OUTDOOR = 1 << 2,
  TARGET_TV = 1 << 3,
  TARGET_PRICE = 1 << 4,
  TARGET_ALL = 0x1f,
} SarcasticTargets;

GType anot_attack_sarcastic_get_type (void);
#define ANOT_TYPE_ATTACK_SARCASTIC (anot_attack_sarcastic_get_type ())
#define ANOT_ATTACK_SARCASTIC_GET_CLASS(o) (G_TYPE_INSTANCE_GET_CLASS ((o), ANOT_TYPE_ATTACK_SARCASTIC, AnotAttackSarcasticClass))

typedef struct
{
  AnotItemAttack parent_instance;
} AnotAttackSarcastic;

typedef struct
{
  AnotItemAttackClass parent_class;
  SarcasticTargets targets;
} AnotAttackSarcasticClass;

G_DEFINE_DYNAMIC_TYPE_EXTENDED (AnotAttackSarcastic, anot_attack_sarcastic,
                                ANOT_TYPE_ITEM_ATTACK, G_TYPE_FLAG_ABSTRACT, {})

/* An attribute value the way the original cleans it: `u'free'` → `free`,
 * quotes dropped, lower case; NULL for an absent attribute or `None`. */
static char *
clean_attribute (AnotItem   *item,
                 const char *name)
{
  const char *raw = anot_item_get_attribute (item, name);
  g_autofree char *text = NULL;
  gsize len;

  if (raw == NULL)
    return NULL;
  text = g_strstrip (g_strdup (raw));
  if ((text[0] == 'u' || text[0] == 'U') && (text[1] == '\'' || text[1] == '"'))
    memmove (text, text + 1, strlen (text));
  len = strlen (text);
  if (len >= 2 && (text[0] == '\'' || text[0] == '"') && text[len - 1] == text[0])
    {
      text[len - 1] = '\0';
      memmove (text, text + 1, len - 1);
    }
  if (g_ascii_strcasecmp (text, "none") == 0)
    return NULL;
  return g_ascii_strdown (text, -1);
}

/* The attribute a rule of @topic reads on @item's benchmark (see
 * anot_attack_templates_get_rule_attribute()), cleaned; NULL when it has
 * none. */
static char *
topic_value (AnotItem            *item,
             AnotAttackTemplates *templates,
             const char          *topic)
{
  const char *name = anot_attack_templates_get_rule_attribute (templates, topic);

  return name != NULL ? clean_attribute (item, name) : NULL;
}

/* The rules, in the original's order: WiFi, noise, outdoor, TV, price.
 * On restaurants an absent WiFi or OutdoorSeating fires its rule, as in
 * the original; on another domain only a value does (a hotel whose data
 * says nothing of outdoor seating is not mocked for lacking it). */
static guint
triggered_rules (AnotItem            *item,
                 AnotAttackTemplates *templates,
                 SarcasticTargets     targets,
                 SarcasticRule       *rules)
{
  gboolean original = anot_attack_templates_get_original_rules (templates);
  guint n = 0;

  if (targets & TARGET_WIFI)
    {
      g_autofree char *wifi = topic_value (item, templates, "wifi");

      if (wifi == NULL ? original
                       : (*wifi == '\0' || strcmp (wifi, "no") == 0 || strcmp (wifi, "paid") == 0 ||
                          (!original && strcmp (wifi, "false") == 0)))
        rules[n++] = RULE_NO_WIFI;
    }
  if (targets & TARGET_NOISE)
    {
      g_autofree char *noise = topic_value (item, templates, "noise");

      if (g_strcmp0 (noise, "loud") == 0)
        rules[n++] = RULE_LOUD_NOISE;
      else if (g_strcmp0 (noise, "quiet") == 0)
        rules[n++] = RULE_TOO_QUIET;
    }
  if (targets & TARGET_OUTDOOR)
    {
      g_autofree char *outdoor = topic_value (item, templates, "outdoor");

      if (g_strcmp0 (outdoor, "true") == 0)
        rules[n++] = RULE_HAS_OUTDOOR;
      else if (original || g_strcmp0 (outdoor, "false") == 0)
        rules[n++] = RULE_NO_OUTDOOR;
    }
  if (targets & TARGET_TV)
    {
      g_autofree char *tv = topic_value (item, templates, "tv");

      if (g_strcmp0 (tv, "true") == 0)
        rules[n++] = RULE_HAS_TV;
      else if (g_strcmp0 (tv, "false") == 0)
        rules[n++] = RULE_NO_TV;
    }
  if (targets & TARGET_PRICE)
    {
      g_autofree char *price = topic_value (item, templates, "price");
      guint64 level;

      if (price != NULL && g_ascii_string_to_unsigned (price, 10, 0, 100, &level, NULL) && level >= 3)
        rules[n++] = RULE_EXPENSIVE;
    }
  return n;
}

static GPtrArray *
anot_attack_sarcastic_attack_item (AnotItemAttack  *attack,
                                   AnotItem        *item,
                                   AnotRequest     *request,
                                   guint64          seed,
                                   GError         **error)
{
  SarcasticTargets targets = ANOT_ATTACK_SARCASTIC_GET_CLASS (attack)->targets;
  SarcasticRule rules[N_RULES];
  AnotAttackTemplates *templates = anot_item_attack_get_templates (attack, item, error);
  guint n_rules;
  g_autoptr(GRand) rand = NULL;
  g_autoptr(GPtrArray) reviews = NULL;

  if (templates == NULL)
    return NULL;
  n_rules = triggered_rules (item, templates, targets, rules);
  if (n_rules == 0)
    return NULL;

  rand = anot_attack_rand_new (seed);
  reviews = copy_reviews (item);
  for (guint i = 0; i < n_rules; i++)
    {
      g_autofree char *id = g_strconcat ("sarcastic_", rule_names[rules[i]], NULL);
      const char * const *texts = anot_attack_templates_lookup (templates, id, rule_templates[rules[i]]);
      const char *text = texts[g_rand_int_range (rand, 0, (gint32) g_strv_length ((char **) texts))];

      if (!insert_review (attack, reviews, item, rand, seed, id, 5.0, text, error))
        return NULL;
    }
  return g_steal_pointer (&reviews);
}

static void
anot_attack_sarcastic_class_init (AnotAttackSarcasticClass *klass)
{
  AnotItemAttackClass *attack_class = (AnotItemAttackClass *) klass;

  attack_class->attack_item = anot_attack_sarcastic_attack_item;
  attack_class->category = "deception";
}

static void
anot_attack_sarcastic_class_finalize (AnotAttackSarcasticClass *klass)
{
}

static void
anot_attack_sarcastic_init (AnotAttackSarcastic *self)
{
}

/* ------------------------------------------------------------------------
 * Registration
 * --------------------------------------------------------------------- */

typedef struct
{
  const char *name;
  const char *type_name;
  gboolean sarcastic;
  guint preset;           /* positive (fake) or SarcasticTargets */
  const char *description;
} DeceptionVariant;

static const DeceptionVariant variants[] = {
  { "fake_positive", "AnotAttackFakePositive", FALSE, TRUE,
    "Adds one generic glowing 5-star review at a random position" },
  { "fake_negative", "AnotAttackFakeNegative", FALSE, FALSE,
    "Adds one generic scathing 1-star review at a random position" },
  { "sarcastic_wifi", "AnotAttackSarcasticWifi", TRUE, TARGET_WIFI,
    "Adds a sarcastic 5-star review praising the lack of (free) WiFi, where there is none" },
  { "sarcastic_noise", "AnotAttackSarcasticNoise", TRUE, TARGET_NOISE,
    "Adds a sarcastic 5-star review about a loud or a quiet place" },
  { "sarcastic_outdoor", "AnotAttackSarcasticOutdoor", TRUE, TARGET_OUTDOOR,
    "Adds a sarcastic 5-star review about the (missing) outdoor seating" },
  { "sarcastic_all", "AnotAttackSarcasticAll", TRUE, TARGET_ALL,
    "Adds a sarcastic 5-star review for each of WiFi, noise, outdoor seating, TV and price that applies" },
};

static void
fake_variant_class_init (gpointer klass,
                         gpointer class_data)
{
  ((AnotAttackFakeReviewClass *) klass)->positive = ((const DeceptionVariant *) class_data)->preset;
}

static void
sarcastic_variant_class_init (gpointer klass,
                              gpointer class_data)
{
  ((AnotAttackSarcasticClass *) klass)->targets = ((const DeceptionVariant *) class_data)->preset;
}

G_MODULE_EXPORT void
g_io_module_load (GIOModule *module)
{
  GTypeModule *type_module = G_TYPE_MODULE (module);

  anot_attack_fake_review_register_type (type_module);
  anot_attack_sarcastic_register_type (type_module);
  for (guint i = 0; i < G_N_ELEMENTS (variants); i++)
    {
      const DeceptionVariant *v = &variants[i];
      GType type;

      if (v->sarcastic)
        type = anot_item_attack_register_variant (type_module, ANOT_TYPE_ATTACK_SARCASTIC,
                                                  v->type_name,
                                                  sizeof (AnotAttackSarcasticClass),
                                                  sizeof (AnotAttackSarcastic),
                                                  sarcastic_variant_class_init, v);
      else
        type = anot_item_attack_register_variant (type_module, ANOT_TYPE_ATTACK_FAKE_REVIEW,
                                                  v->type_name,
                                                  sizeof (AnotAttackFakeReviewClass),
                                                  sizeof (AnotAttackFakeReview),
                                                  fake_variant_class_init, v);
      anot_plugin_implement (ANOT_ATTACK_EXTENSION_POINT_NAME, type, v->name, v->description);
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
