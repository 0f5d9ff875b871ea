/* anot-review-forge.c: reviews an attack adds, in the dataset's own form
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "anot-review-forge.h"

#include <stdio.h>
#include <string.h>

#include "anot-attack.h"
#include "anot-condition.h"
#include "anot-dataset-private.h"
#include "anot-error.h"

/**
 * AnotReviewForge:
 *
 * Makes the reviews an attack adds to a candidate look like the real ones
 * in every field a method can see, so that a method cannot tell them apart
 * by their metadata — only by what they say.
 *
 * The original framework labelled its added reviews (`"review_id":
 * "fake_001"`, the date `2024-01-01`, no reviewer): a one-line rule on the
 * id beat its deception attacks, and its robustness numbers partly measured
 * whether a model notices the label.  A forged review has
 *
 * - a `review_id` in the dataset's own format: each character drawn from
 *   the characters the dataset's ids have at that position (so a Yelp id
 *   has 22 base64url characters and ends in `A`, `Q`, `g` or `w`, as the
 *   base64 of 16 bytes does), never one of the dataset's or the
 *   candidates' ids, nor one forged before for the same request.  When
 *   fewer than half of the format's ids are free (a small or sequential id
 *   space such as `rv000` ... `rv039`) the dataset's own numbering
 *   continues (`rv040`, ...; `rev41` after `rev1` ... `rev40`) or, for ids
 *   without one, Yelp's format is used: see #AnotReviewIdShape;
 * - a `date` drawn uniformly inside the item's own review date range, in the
 *   dataset's format, and not before the reviewer joined (`yelping_since`);
 * - a reviewer drawn from the dataset's reviews: every reviewer field of
 *   one real review — `user_id`, the `user` statistics and join date
 *   (`yelping_since`), the reviewer name and `friends` — so they fit
 *   together exactly as that real reviewer's do (taking the account of
 *   one review and the name of another made pairs no real review has,
 *   which told an added review apart).  The reviewer has not reviewed the
 *   item already (neither the account nor the name), preferably appears
 *   nowhere else among the candidates, and is never one whose name the
 *   request's social conditions could count: the request's anchors and
 *   the names its text mentions, with their friends and friends' friends
 *   in the friend graph, are left out, so the truth of G09/G10 requests
 *   does not change;
 * - `useful`, `funny` and `cool` copied from one of the item's reviews;
 * - exactly the fields (keys) the dataset's reviews have.
 *
 * The stars and the text are the attack's.  Where the review goes among the
 * item's reviews is the attack's choice too (a seeded position).
 *
 * A forge serves one request: it knows the candidates (the ids and users a
 * method sees) and the request (its social names).  Reviewers are drawn from
 * the whole dataset when there is one (see _anot_item_get_dataset()), else
 * from the candidates.  Every draw comes from the seed given to
 * anot_review_forge_make(), so the result is a pure function of the
 * candidates, the request, the dataset and the seed.
 */
struct _AnotReviewForge
{
  GObject parent_instance;

  AnotDataset *dataset;           /* nullable */
  GPtrArray   *candidates;
  AnotRequest *request;           /* nullable */

  gboolean     prepared;
  GPtrArray   *population;        /* AnotItem: where reviewers are drawn from */
  GArray      *cumulative;        /* guint: reviews of population[0..i] */
  guint        n_population;
  GHashTable  *known_ids;         /* ids a forged id must not be */
  GHashTable  *candidate_users;   /* user ids the method sees already */
  GHashTable  *social_seeds;      /* anchors of the request and names in its text */
  GHashTable  *excluded_names;    /* the seeds and the names they reach in 2 hops */
  GPtrArray   *forged_ids;        /* owned strings, in known_ids */
  guint        id_len;
  GPtrArray   *id_alphabets;      /* char *: the characters seen at each position */
  AnotReviewIdShape id_shape;
  char        *seq_prefix;        /* ANOT_REVIEW_ID_SHAPE_SEQUENTIAL: the ids' common prefix */
  guint        seq_width;         /* ... the width of their zero-padded number (0: not padded) */
  guint64      seq_next;          /* ... the next number to try */
};

G_DEFINE_FINAL_TYPE (AnotReviewForge, anot_review_forge, G_TYPE_OBJECT)

/* Enough to find a donor that fits when most do; bounded so a dataset
 * where none fits fails instead of looping. */
#define MAX_DRAWS 512

static void
anot_review_forge_finalize (GObject *object)
{
  AnotReviewForge *self = ANOT_REVIEW_FORGE (object);

  g_clear_object (&self->dataset);
  g_clear_pointer (&self->candidates, g_ptr_array_unref);
  g_clear_object (&self->request);
  g_clear_pointer (&self->population, g_ptr_array_unref);
  g_clear_pointer (&self->cumulative, g_array_unref);
  g_clear_pointer (&self->known_ids, g_hash_table_unref);
  g_clear_pointer (&self->candidate_users, g_hash_table_unref);
  g_clear_pointer (&self->excluded_names, g_hash_table_unref);
  g_clear_pointer (&self->social_seeds, g_hash_table_unref);
  g_clear_pointer (&self->forged_ids, g_ptr_array_unref);
  g_clear_pointer (&self->id_alphabets, g_ptr_array_unref);
  g_clear_pointer (&self->seq_prefix, g_free);

  G_OBJECT_CLASS (anot_review_forge_parent_class)->finalize (object);
}

static void
anot_review_forge_class_init (AnotReviewForgeClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = anot_review_forge_finalize;
}

static void
anot_review_forge_init (AnotReviewForge *self)
{
}

/**
 * anot_review_forge_new:
 * @dataset: (nullable): the dataset the candidates come from; %NULL to
 *   draw reviewers from the candidates only (and to know no friend graph)
 * @candidates: (element-type Anot.Item): the candidates of the request, as
 *   the method is to see them
 * @request: (nullable): the request, whose social names are kept out
 *
 * Creates a forge for the reviews an attack adds to the candidates of one
 * request.  Nothing is computed until the first review is made.
 *
 * Returns: (transfer full): a new #AnotReviewForge
 */
AnotReviewForge *
anot_review_forge_new (AnotDataset *dataset,
                       GPtrArray   *candidates,
                       AnotRequest *request)
{
  AnotReviewForge *self;

  g_return_val_if_fail (dataset == NULL || ANOT_IS_DATASET (dataset), NULL);
  g_return_val_if_fail (candidates != NULL, NULL);
  g_return_val_if_fail (request == NULL || ANOT_IS_REQUEST (request), NULL);

  self = g_object_new (ANOT_TYPE_REVIEW_FORGE, NULL);
  self->dataset = dataset != NULL ? g_object_ref (dataset) : NULL;
  self->candidates = g_ptr_array_new_full (candidates->len, g_object_unref);
  for (guint i = 0; i < candidates->len; i++)
    g_ptr_array_add (self->candidates, g_object_ref (g_ptr_array_index (candidates, i)));
  self->request = request != NULL ? g_object_ref (request) : NULL;

  return self;
}

/* ------------------------------------------------------------------------
 * Preparation (once per forge)
 * --------------------------------------------------------------------- */

static void
add_name_with_friends (AnotReviewForge *self,
                       const char      *name,
                       guint            hops)
{
  const char * const *friends;

  if (hops == 2)
    g_hash_table_add (self->social_seeds, g_strdup (name));
  g_hash_table_add (self->excluded_names, g_strdup (name));
  if (hops == 0 || self->dataset == NULL)
    return;
  friends = anot_dataset_get_friends (self->dataset, name);
  for (guint i = 0; friends != NULL && friends[i] != NULL; i++)
    add_name_with_friends (self, friends[i], hops - 1);
}

/* The names a social condition of the request could count, whatever its
 * hops: the anchors of its social filters and the names its text mentions
 * (the persona's friends) are the seeds.  The validator looks from the
 * reviewer towards the anchors (the reviewer, a friend or a friend's friend
 * is one), and the friend graph is not symmetric (Rose lists Alice, Alice
 * does not list Rose), so name_is_social() walks from the reviewer; the
 * names the seeds reach are left out as well, for a method that reads the
 * graph the other way. */
static void
collect_excluded_names (AnotReviewForge *self)
{
  AnotCondition *structure;
  const char *text;

  self->excluded_names = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  self->social_seeds = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  if (self->request == NULL)
    return;

  structure = anot_request_get_structure (self->request);
  if (structure != NULL)
    {
      g_autoptr(GPtrArray) leaves = anot_condition_collect_leaves (structure);

      for (guint i = 0; i < leaves->len; i++)
        {
          JsonObject *evidence = anot_condition_get_evidence (g_ptr_array_index (leaves, i));
          JsonNode *filter = evidence ? json_object_get_member (evidence, "social_filter") : NULL;
          JsonNode *friends;

          if (filter == NULL || !JSON_NODE_HOLDS_OBJECT (filter))
            continue;
          friends = json_object_get_member (json_node_get_object (filter), "friends");
          if (friends == NULL || !JSON_NODE_HOLDS_ARRAY (friends))
            continue;
          for (guint j = 0; j < json_array_get_length (json_node_get_array (friends)); j++)
            {
              JsonNode *element = json_array_get_element (json_node_get_array (friends), j);

              if (JSON_NODE_HOLDS_VALUE (element) &&
                  json_node_get_value_type (element) == G_TYPE_STRING)
                add_name_with_friends (self, json_node_get_string (element), 2);
            }
        }
    }

  text = anot_request_get_text (self->request);
  for (const char *p = text; p != NULL && *p != '\0';)
    {
      const char *start;
      g_autofree char *word = NULL;

      while (*p != '\0' && !g_ascii_isalpha (*p))
        p++;
      start = p;
      while (*p != '\0' && (g_ascii_isalpha (*p) || *p == '-' || *p == '\''))
        p++;
      if (p == start)
        break;
      word = g_strndup (start, p - start);
      add_name_with_friends (self, word, 2);
    }
}

/* Whether @name, a friend of it or a friend of a friend is a seed: a
 * review by @name could then count for a 1- or 2-hop social filter. */
static gboolean
name_is_social (AnotReviewForge *self,
                const char      *name,
                guint            hops)
{
  const char * const *friends;

  if (g_hash_table_contains (self->social_seeds, name))
    return TRUE;
  if (hops == 0 || self->dataset == NULL)
    return FALSE;
  friends = anot_dataset_get_friends (self->dataset, name);
  for (guint i = 0; friends != NULL && friends[i] != NULL; i++)
    if (name_is_social (self, friends[i], hops - 1))
      return TRUE;
  return FALSE;
}

/* Yelp's review id format: 22 base64url characters, the last one of the
 * four a 16-byte value can end in. */
static void
use_yelp_format (AnotReviewForge *self)
{
  static const char base64url[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

  g_ptr_array_set_size (self->id_alphabets, 0);
  self->id_len = 22;
  for (guint p = 0; p < self->id_len; p++)
    g_ptr_array_add (self->id_alphabets, g_strdup (p + 1 < self->id_len ? base64url : "AQgw"));
}

/* Splits @id into a prefix and a trailing run of decimal digits. */
static gboolean
split_numbered_id (const char *id,
                   gsize      *out_prefix_len,
                   guint64    *out_number)
{
  gsize len = strlen (id), start = len;

  while (start > 0 && g_ascii_isdigit (id[start - 1]))
    start--;
  if (start == len || len - start > 18)
    return FALSE;
  *out_prefix_len = start;
  *out_number = g_ascii_strtoull (id + start, NULL, 10);
  return TRUE;
}

/* Whether every review id is one prefix followed by a number, either
 * zero-padded to one width (`rv000` ... `rv039`) or not padded at all
 * (`rev1` ... `rev40`); if so, numbering continues after the largest. */
static gboolean
learn_sequential_ids (AnotReviewForge *self)
{
  const char *first = NULL;
  gsize prefix_len = 0, width = 0;
  gboolean one_width = TRUE, unpadded = TRUE;
  guint64 max = 0;

  for (guint i = 0; i < self->population->len; i++)
    {
      GPtrArray *reviews = anot_item_get_reviews (g_ptr_array_index (self->population, i));

      for (guint j = 0; j < reviews->len; j++)
        {
          const char *id = anot_review_get_id (g_ptr_array_index (reviews, j));
          gsize this_prefix, digits;
          guint64 number;

          if (!split_numbered_id (id, &this_prefix, &number))
            return FALSE;
          digits = strlen (id) - this_prefix;
          if (first == NULL)
            {
              first = id;
              prefix_len = this_prefix;
              width = digits;
            }
          else if (this_prefix != prefix_len || strncmp (id, first, prefix_len) != 0)
            return FALSE;
          one_width = one_width && digits == width;
          /* A leading zero is padding: `rev07` beside `rev123` is neither form. */
          unpadded = unpadded && (digits == 1 || id[this_prefix] != '0');
          max = MAX (max, number);
        }
    }
  if (first == NULL || (!one_width && !unpadded))
    return FALSE;
  self->seq_prefix = g_strndup (first, prefix_len);
  self->seq_width = one_width ? (guint) width : 0;
  self->seq_next = max + 1;
  return TRUE;
}

/* The ids of the learnt format are drawn at random, which needs most of
 * them free: with fewer than half of the format's ids unused (a small or
 * sequential id space), the dataset's numbering is continued, or, when
 * the ids have no numbering, Yelp's format is used. */
static void
choose_id_shape (AnotReviewForge *self)
{
  double space = 1.0;

  for (guint p = 0; p < self->id_alphabets->len && space < 1e18; p++)
    space *= (double) strlen (g_ptr_array_index (self->id_alphabets, p));
  if (space >= 2.0 * ((double) self->n_population + 1.0))
    self->id_shape = ANOT_REVIEW_ID_SHAPE_DATASET;
  else if (learn_sequential_ids (self))
    self->id_shape = ANOT_REVIEW_ID_SHAPE_SEQUENTIAL;
  else
    {
      self->id_shape = ANOT_REVIEW_ID_SHAPE_YELP;
      use_yelp_format (self);
    }
}

/* The characters the ids of the most common length have at each position.
 * At most 4096 ids are read (evenly spaced), so a large dataset costs no
 * more than a benchmark. */
static void
learn_id_format (AnotReviewForge *self)
{
  g_autoptr(GHashTable) lengths = g_hash_table_new (NULL, NULL);
  guint step = MAX (self->n_population / 4096, 1);
  guint best_count = 0;
  GHashTableIter iter;
  gpointer key, value;
  guint k = 0;

  self->id_alphabets = g_ptr_array_new_with_free_func (g_free);
  for (guint i = 0; i < self->population->len; i++)
    {
      GPtrArray *reviews = anot_item_get_reviews (g_ptr_array_index (self->population, i));

      for (guint j = 0; j < reviews->len; j++, k++)
        if (k % step == 0)
          {
            gsize len = strlen (anot_review_get_id (g_ptr_array_index (reviews, j)));
            gpointer len_key = GSIZE_TO_POINTER (len);

            g_hash_table_insert (lengths, len_key,
                                 GUINT_TO_POINTER (GPOINTER_TO_UINT (g_hash_table_lookup (lengths, len_key)) + 1));
          }
    }
  g_hash_table_iter_init (&iter, lengths);
  while (g_hash_table_iter_next (&iter, &key, &value))
    if (GPOINTER_TO_UINT (value) > best_count ||
        (GPOINTER_TO_UINT (value) == best_count && GPOINTER_TO_SIZE (key) < self->id_len))
      {
        best_count = GPOINTER_TO_UINT (value);
        self->id_len = (guint) GPOINTER_TO_SIZE (key);
      }

  if (best_count == 0 || self->id_len == 0)
    {
      /* No review to learn from: Yelp's format. */
      use_yelp_format (self);
      return;
    }

  {
    g_autofree guint8 (*seen)[256] = g_malloc0 (sizeof (*seen) * self->id_len);

    k = 0;
    for (guint i = 0; i < self->population->len; i++)
      {
        GPtrArray *reviews = anot_item_get_reviews (g_ptr_array_index (self->population, i));

        for (guint j = 0; j < reviews->len; j++, k++)
          {
            const char *id = anot_review_get_id (g_ptr_array_index (reviews, j));

            if (k % step != 0 || strlen (id) != self->id_len)
              continue;
            for (guint p = 0; p < self->id_len; p++)
              seen[p][(guint8) id[p]] = 1;
          }
      }
    for (guint p = 0; p < self->id_len; p++)
      {
        GString *alphabet = g_string_new (NULL);

        /* Bytes of multi-byte characters would make invalid UTF-8 when
         * mixed: only ASCII characters are drawn. */
        for (guint c = 1; c < 128; c++)
          if (seen[p][c])
            g_string_append_c (alphabet, (char) c);
        if (alphabet->len == 0)
          g_string_append_c (alphabet, 'x');
        g_ptr_array_add (self->id_alphabets, g_string_free (alphabet, FALSE));
      }
  }
}

static void
prepare (AnotReviewForge *self)
{
  guint total = 0;

  if (self->prepared)
    return;
  self->prepared = TRUE;

  self->population = g_ptr_array_new_with_free_func (g_object_unref);
  if (self->dataset != NULL)
    for (guint i = 0; i < anot_dataset_get_n_items (self->dataset); i++)
      g_ptr_array_add (self->population, g_object_ref (anot_dataset_get_item (self->dataset, i)));
  else
    for (guint i = 0; i < self->candidates->len; i++)
      g_ptr_array_add (self->population, g_object_ref (g_ptr_array_index (self->candidates, i)));

  self->cumulative = g_array_sized_new (FALSE, FALSE, sizeof (guint), self->population->len);
  for (guint i = 0; i < self->population->len; i++)
    {
      total += anot_item_get_n_reviews (g_ptr_array_index (self->population, i));
      g_array_append_val (self->cumulative, total);
    }
  self->n_population = total;

  self->known_ids = g_hash_table_new (g_str_hash, g_str_equal);
  self->candidate_users = g_hash_table_new (g_str_hash, g_str_equal);
  self->forged_ids = g_ptr_array_new_with_free_func (g_free);
  for (guint i = 0; i < self->candidates->len; i++)
    {
      GPtrArray *reviews = anot_item_get_reviews (g_ptr_array_index (self->candidates, i));

      for (guint j = 0; j < reviews->len; j++)
        {
          AnotReview *review = g_ptr_array_index (reviews, j);

          g_hash_table_add (self->known_ids, (gpointer) anot_review_get_id (review));
          if (anot_review_get_user_id (review) != NULL)
            g_hash_table_add (self->candidate_users, (gpointer) anot_review_get_user_id (review));
        }
    }

  collect_excluded_names (self);
  learn_id_format (self);
  choose_id_shape (self);
}

/* ------------------------------------------------------------------------
 * Drawing
 * --------------------------------------------------------------------- */

static AnotReview *
draw_population_review (AnotReviewForge *self,
                        GRand           *rand)
{
  guint target, lo = 0, hi;

  if (self->n_population == 0)
    return NULL;
  target = (guint) g_rand_int_range (rand, 0, (gint32) MIN (self->n_population, G_MAXINT32));
  hi = self->cumulative->len;
  /* The first item whose cumulative count exceeds target. */
  while (lo < hi)
    {
      guint mid = lo + (hi - lo) / 2;

      if (g_array_index (self->cumulative, guint, mid) > target)
        hi = mid;
      else
        lo = mid + 1;
    }
  {
    AnotItem *item = g_ptr_array_index (self->population, lo);
    guint before = lo > 0 ? g_array_index (self->cumulative, guint, lo - 1) : 0;

    return anot_item_get_review (item, target - before);
  }
}

/* Seconds since the epoch of a date written "YYYY-MM-DD[ HH:MM:SS]". */
static gboolean
parse_date (const char *text,
            gint64     *out_seconds)
{
  int y, mo, d, h = 0, mi = 0, s = 0;
  g_autoptr(GDateTime) dt = NULL;

  if (text == NULL || sscanf (text, "%d-%d-%d %d:%d:%d", &y, &mo, &d, &h, &mi, &s) < 3)
    return FALSE;
  dt = g_date_time_new_utc (y, mo, d, h, mi, s);
  if (dt == NULL)
    return FALSE;
  *out_seconds = g_date_time_to_unix (dt);
  return TRUE;
}

typedef struct
{
  gint64      lo, hi;
  gboolean    any;
  gboolean    date_only;           /* "YYYY-MM-DD" rather than with a time */
} DateRange;

static void
date_range_add (DateRange  *range,
                const char *date)
{
  gint64 t;

  if (!parse_date (date, &t))
    return;
  if (!range->any || t < range->lo)
    range->lo = t;
  if (!range->any || t > range->hi)
    range->hi = t;
  if (!range->any)
    range->date_only = strlen (date) <= 10;
  range->any = TRUE;
}

static char *
draw_date (const DateRange *range,
           const char      *not_before,
           GRand           *rand)
{
  gint64 lo = range->lo, hi = range->hi, since, t;
  g_autoptr(GDateTime) dt = NULL;

  if (parse_date (not_before, &since) && since > lo && since <= hi)
    lo = since;
  t = lo + (gint64) (g_rand_double (rand) * (double) (hi - lo + 1));
  t = CLAMP (t, lo, hi);
  dt = g_date_time_new_from_unix_utc (t);
  return g_date_time_format (dt, range->date_only ? "%Y-%m-%d" : "%Y-%m-%d %H:%M:%S");
}

static gboolean
id_is_free (AnotReviewForge *self,
            const char      *id)
{
  return !g_hash_table_contains (self->known_ids, id) &&
         (self->dataset == NULL || anot_dataset_lookup_review (self->dataset, id) == NULL);
}

static char *
keep_id (AnotReviewForge *self,
         char            *id)
{
  g_ptr_array_add (self->forged_ids, g_strdup (id));
  g_hash_table_add (self->known_ids, g_ptr_array_index (self->forged_ids, self->forged_ids->len - 1));
  return id;
}

/* The next number of the dataset's own numbering that no review has
 * (the width grows past `rv999` as a counter would). */
static char *
next_sequential_id (AnotReviewForge *self)
{
  for (;;)
    {
      g_autofree char *id = g_strdup_printf ("%s%0*" G_GUINT64_FORMAT, self->seq_prefix,
                                             (int) self->seq_width, self->seq_next++);

      if (id_is_free (self, id))
        return keep_id (self, g_steal_pointer (&id));
    }
}

static char *
draw_id (AnotReviewForge  *self,
         GRand            *rand,
         GError          **error)
{
  if (self->id_shape == ANOT_REVIEW_ID_SHAPE_SEQUENTIAL)
    return next_sequential_id (self);

  for (guint attempt = 0; attempt < MAX_DRAWS; attempt++)
    {
      g_autofree char *id = g_malloc (self->id_len + 1);

      for (guint p = 0; p < self->id_len; p++)
        {
          const char *alphabet = g_ptr_array_index (self->id_alphabets, p);

          id[p] = alphabet[g_rand_int_range (rand, 0, (gint32) strlen (alphabet))];
        }
      id[self->id_len] = '\0';
      if (!id_is_free (self, id))
        continue;
      return keep_id (self, g_steal_pointer (&id));
    }
  /* Only when the forged ids of one request fill what was free of a
   * format: far beyond any attack's count. */
  g_set_error (error, ANOT_ERROR, ANOT_ERROR_ATTACK_FAILED,
               "Could not draw a review id of the dataset's format that no review has");
  return NULL;
}

/* The reviewer: one real review whose every reviewer field the added
 * review takes (user id, statistics, join date, name, friends), so they fit
 * together as a real reviewer's do.  Its user id (when the dataset has
 * them) has not reviewed the item (nor, when possible, any other
 * candidate) and had joined before the item's last review; its name (when
 * the dataset names reviewers) has not reviewed the item and no social
 * condition of the request can reach it. */
static AnotReview *
draw_reviewer (AnotReviewForge *self,
               GHashTable      *item_users,
               GHashTable      *item_names,
               const DateRange *range,
               gboolean         with_user,
               gboolean         with_name,
               GRand           *rand)
{
  for (guint pass = 0; pass < 2; pass++)
    for (guint attempt = 0; attempt < MAX_DRAWS; attempt++)
      {
        AnotReview *donor = draw_population_review (self, rand);
        const char *user_id, *name;
        gint64 since;

        if (donor == NULL)
          return NULL;
        if (with_user)
          {
            user_id = anot_review_get_user_id (donor);
            if (user_id == NULL)
              continue;
            if (g_hash_table_contains (item_users, user_id) ||
                (pass == 0 && g_hash_table_contains (self->candidate_users, user_id)))
              continue;
            if (range->any && parse_date (anot_review_get_user_yelping_since (donor), &since) &&
                since > range->hi)
              continue;
          }
        if (with_name)
          {
            if (!_anot_review_has_assignment (donor))
              continue;
            name = anot_review_get_reviewer_name (donor);
            if (g_hash_table_contains (item_names, name) ||
                g_hash_table_contains (self->excluded_names, name) ||
                name_is_social (self, name, 2))
              continue;
          }
        return donor;
      }
  return NULL;
}

static gboolean
population_has (AnotReviewForge *self,
                guint            flag)
{
  for (guint i = 0; i < self->population->len; i++)
    {
      GPtrArray *reviews = anot_item_get_reviews (g_ptr_array_index (self->population, i));

      for (guint j = 0; j < reviews->len; j++)
        {
          AnotReview *review = g_ptr_array_index (reviews, j);

          if (flag == ANOT_REVIEW_HAS_ASSIGNMENT ? _anot_review_has_assignment (review)
                                                 : (_anot_review_get_flags (review) & flag) != 0)
            return TRUE;
        }
    }
  return FALSE;
}

/**
 * anot_review_forge_make:
 * @self: an #AnotReviewForge
 * @item: the candidate the review is added to
 * @reviews: (element-type Anot.Review) (nullable): the reviews the attacked
 *   copy of @item has so far (its own and those added before), whose
 *   reviewers the new one must differ from; %NULL for @item's reviews
 * @stars: the star rating
 * @text: the text
 * @seed: the seed of every draw (id, date, reviewer, votes)
 * @error: return location for a #GError
 *
 * Makes a review of @item with @stars and @text whose other fields are
 * drawn as the class description says.  The review's position is 0 until
 * it is placed with anot_item_copy_with_reviews().
 *
 * Returns: (transfer full): a new #AnotReview, or %NULL with @error set
 *   (%ANOT_ERROR_ATTACK_FAILED) when no reviewer or id fits
 */
AnotReview *
anot_review_forge_make (AnotReviewForge  *self,
                        AnotItem         *item,
                        GPtrArray        *reviews,
                        double            stars,
                        const char       *text,
                        guint64           seed,
                        GError          **error)
{
  g_autoptr(GRand) rand = NULL;
  g_autoptr(GHashTable) item_users = g_hash_table_new (g_str_hash, g_str_equal);
  g_autoptr(GHashTable) item_names = g_hash_table_new (g_str_hash, g_str_equal);
  g_autoptr(AnotStore) store = NULL;
  g_autofree char *id = NULL;
  g_autofree char *date = NULL;
  GPtrArray *own = anot_item_get_reviews (item);
  DateRange range = { 0 };
  AnotReview *reviewer = NULL, *user_donor = NULL, *name_donor = NULL, *vote_donor = NULL;
  gboolean with_user, with_name;
  AnotReviewFields fields = { 0 };
  AnotReview *review;

  g_return_val_if_fail (ANOT_IS_REVIEW_FORGE (self), NULL);
  g_return_val_if_fail (ANOT_IS_ITEM (item), NULL);
  g_return_val_if_fail (text != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  prepare (self);
  rand = anot_attack_rand_new (seed);
  if (reviews == NULL)
    reviews = own;

  for (guint i = 0; i < reviews->len; i++)
    {
      AnotReview *r = g_ptr_array_index (reviews, i);

      if (anot_review_get_user_id (r) != NULL)
        g_hash_table_add (item_users, (gpointer) anot_review_get_user_id (r));
      if (_anot_review_has_assignment (r))
        g_hash_table_add (item_names, (gpointer) anot_review_get_reviewer_name (r));
    }

  /* The item's own range; an item without dated reviews takes the
   * candidates'. */
  for (guint i = 0; i < own->len; i++)
    date_range_add (&range, anot_review_get_date (g_ptr_array_index (own, i)));
  for (guint c = 0; !range.any && c < self->candidates->len; c++)
    {
      GPtrArray *other = anot_item_get_reviews (g_ptr_array_index (self->candidates, c));

      for (guint i = 0; i < other->len; i++)
        date_range_add (&range, anot_review_get_date (g_ptr_array_index (other, i)));
    }

  id = draw_id (self, rand, error);
  if (id == NULL)
    return NULL;

  with_user = population_has (self, ANOT_REVIEW_HAS_USER_ID);
  with_name = population_has (self, ANOT_REVIEW_HAS_ASSIGNMENT);
  if (with_user || with_name)
    {
      reviewer = draw_reviewer (self, item_users, item_names, &range, with_user, with_name, rand);
      if (reviewer == NULL)
        {
          g_set_error (error, ANOT_ERROR, ANOT_ERROR_ATTACK_FAILED,
                       "No reviewer of the dataset can review %s: every one has reviewed it "
                       "already or is reached by the social conditions of the request",
                       anot_item_get_id (item));
          return NULL;
        }
      if (with_user)
        user_donor = reviewer;
      if (with_name)
        name_donor = reviewer;
    }
  if (own->len > 0)
    vote_donor = g_ptr_array_index (own, g_rand_int_range (rand, 0, (gint32) own->len));
  else
    vote_donor = user_donor;
  if (range.any)
    date = draw_date (&range, user_donor ? anot_review_get_user_yelping_since (user_donor) : NULL,
                      rand);

  fields.id = id;
  fields.item_id = anot_item_get_id (item);
  fields.stars = stars;
  fields.text = text;
  fields.text_len = -1;
  fields.date = date;
  if (vote_donor != NULL)
    {
      guint flags = _anot_review_get_flags (vote_donor);

      fields.flags |= flags & (ANOT_REVIEW_HAS_USEFUL | ANOT_REVIEW_HAS_FUNNY | ANOT_REVIEW_HAS_COOL);
      fields.useful = anot_review_get_useful (vote_donor);
      fields.funny = anot_review_get_funny (vote_donor);
      fields.cool = anot_review_get_cool (vote_donor);
    }
  if (user_donor != NULL)
    {
      guint flags = _anot_review_get_flags (user_donor);

      fields.user_id = anot_review_get_user_id (user_donor);
      fields.flags |= flags & (ANOT_REVIEW_HAS_USER | ANOT_REVIEW_HAS_USER_REVIEW_COUNT |
                               ANOT_REVIEW_HAS_USER_AVERAGE_STARS);
      fields.user_review_count = anot_review_get_user_review_count (user_donor);
      fields.user_average_stars = anot_review_get_user_average_stars (user_donor);
      fields.user_yelping_since = anot_review_get_user_yelping_since (user_donor);
    }

  store = _anot_store_new (256);
  review = anot_review_new_internal (store, &fields, 0);
  if (name_donor != NULL)
    {
      const char * const *friends = _anot_review_get_assigned_friends (name_donor);
      guint n = friends != NULL ? g_strv_length ((char **) friends) : 0;
      const char **copy = _anot_store_alloc (store, (n + 1) * sizeof (char *));

      /* The assignment's strings must live in the review's store. */
      for (guint i = 0; i < n; i++)
        copy[i] = _anot_store_add_string (store, friends[i], -1);
      copy[n] = NULL;
      _anot_review_set_assignment (review,
                                   _anot_store_add_string (store, anot_review_get_reviewer_name (name_donor), -1),
                                   friends != NULL ? copy : NULL);
    }
  _anot_store_seal (store);

  return review;
}

/**
 * anot_review_forge_get_id_shape:
 * @self: an #AnotReviewForge
 *
 * How the forge makes the ids of the reviews it adds, which depends only
 * on the dataset (or, without one, the candidates): see
 * #AnotReviewIdShape.
 *
 * Returns: the shape of forged review ids
 */
AnotReviewIdShape
anot_review_forge_get_id_shape (AnotReviewForge *self)
{
  g_return_val_if_fail (ANOT_IS_REVIEW_FORGE (self), ANOT_REVIEW_ID_SHAPE_DATASET);

  prepare (self);
  return self->id_shape;
}

/**
 * anot_review_id_shape_to_string:
 * @shape: an #AnotReviewIdShape
 *
 * Returns: `dataset`, `sequential` or `yelp`, as `attack_config` records it
 */
const char *
anot_review_id_shape_to_string (AnotReviewIdShape shape)
{
  switch (shape)
    {
    case ANOT_REVIEW_ID_SHAPE_SEQUENTIAL:
      return "sequential";
    case ANOT_REVIEW_ID_SHAPE_YELP:
      return "yelp";
    case ANOT_REVIEW_ID_SHAPE_DATASET:
    default:
      return "dataset";
    }
}

/**
 * anot_review_new_labelled:
 * @item: the item the review is added to
 * @id: the label, e.g. `fake_001`
 * @stars: the star rating
 * @text: the text
 *
 * Creates a review as the original framework's attacks added them: the id
 * @id, the date `2024-01-01` (%ANOT_ORIGINAL_ADDED_REVIEW_DATE), and only
 * the `review_id`, `stars`, `text` and `date` fields — no user, no votes,
 * no `business_id`.  This is what `--attack-compat original` shows a
 * method.
 *
 * Returns: (transfer full): a new #AnotReview
 */
AnotReview *
anot_review_new_labelled (AnotItem   *item,
                          const char *id,
                          double      stars,
                          const char *text)
{
  AnotReviewFields fields = {
    .id = id,
    .stars = stars,
    .text = text,
    .text_len = -1,
    .date = ANOT_ORIGINAL_ADDED_REVIEW_DATE,
    .flags = ANOT_REVIEW_NO_ITEM_ID,
  };

  g_return_val_if_fail (ANOT_IS_ITEM (item), NULL);
  g_return_val_if_fail (id != NULL, NULL);
  g_return_val_if_fail (text != NULL, NULL);

  fields.item_id = anot_item_get_id (item);
  return anot_review_new_internal (NULL, &fields, 0);
}

/**
 * anot_attack_compat_to_string:
 * @compat: an #AnotAttackCompat
 *
 * Returns: `realistic` or `original`
 */
const char *
anot_attack_compat_to_string (AnotAttackCompat compat)
{
  return compat == ANOT_ATTACK_COMPAT_ORIGINAL ? "original" : "realistic";
}

/**
 * anot_attack_compat_from_string:
 * @text: `realistic` or `original`
 * @out_compat: (out): the mode
 *
 * Parses the value of `--attack-compat`.
 *
 * Returns: %TRUE if @text names a mode
 */
gboolean
anot_attack_compat_from_string (const char       *text,
                                AnotAttackCompat *out_compat)
{
  g_return_val_if_fail (out_compat != NULL, FALSE);

  if (g_strcmp0 (text, "realistic") == 0)
    *out_compat = ANOT_ATTACK_COMPAT_REALISTIC;
  else if (g_strcmp0 (text, "original") == 0)
    *out_compat = ANOT_ATTACK_COMPAT_ORIGINAL;
  else
    return FALSE;
  return TRUE;
}
