/* test-attack-realism.c: what an attack adds or rewrites cannot be told
 * from the real reviews by any field but the text
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Every check looks from the outside: the attacked candidates are formatted
 * as a method sees them (AnotFormatter), and the reviews in that output are
 * compared with what the dataset's files hold, learnt here independently of
 * the forge.  Each attack has a test of its own.
 */
#include "config.h"

#include <anot/anot.h>
#include <string.h>

static const char * const all_attacks[] = {
  "typo_10", "typo_20",
  "inject_override", "inject_fake_sys", "inject_hidden", "inject_manipulation",
  "fake_positive", "fake_negative",
  "sarcastic_wifi", "sarcastic_noise", "sarcastic_outdoor", "sarcastic_all",
  "heterogeneity",
};

/* ------------------------------------------------------------------------
 * What the dataset's reviews look like, learnt from the loaded records
 * --------------------------------------------------------------------- */

typedef struct
{
  AnotDataset *dataset;
  GHashTable  *signatures;       /* key signature -> 1 */
  guint        id_len;
  GHashTable  *id_chars[64];     /* position -> set of characters (as uints) */
  GHashTable  *users;            /* user_id -> serialized `user` without name/friends */
  GHashTable  *name_friends;     /* "name|friend,friend" -> 1 */
  GHashTable  *reviewers;        /* "user_id\nstats\nname|friends" of each review -> 1 */
  GHashTable  *stars;            /* "%.1f" -> 1 */
  gint64       max_votes;
} Profile;

static char *
node_to_text (JsonNode *node)
{
  return json_to_string (node, FALSE);
}

/* The sorted keys of a review object and of its `user` object. */
static char *
key_signature (JsonObject *review)
{
  GString *out = g_string_new (NULL);
  g_autoptr(GList) keys = g_list_sort (json_object_get_members (review), (GCompareFunc) strcmp);

  for (GList *l = keys; l != NULL; l = l->next)
    {
      g_string_append_printf (out, "%s,", (const char *) l->data);
      if (strcmp (l->data, "user") == 0 &&
          JSON_NODE_HOLDS_OBJECT (json_object_get_member (review, "user")))
        {
          JsonObject *user = json_object_get_object_member (review, "user");
          g_autoptr(GList) user_keys = g_list_sort (json_object_get_members (user),
                                                    (GCompareFunc) strcmp);

          g_string_append (out, "{");
          for (GList *u = user_keys; u != NULL; u = u->next)
            g_string_append_printf (out, "%s,", (const char *) u->data);
          g_string_append (out, "}");
        }
    }
  return g_string_free (out, FALSE);
}

static char *
user_stats (JsonObject *review)
{
  JsonObject *user;
  g_autoptr(JsonObject) copy = json_object_new ();
  g_autoptr(JsonNode) node = json_node_new (JSON_NODE_OBJECT);

  if (!json_object_has_member (review, "user"))
    return g_strdup ("");
  user = json_object_get_object_member (review, "user");
  json_object_set_int_member (copy, "review_count",
                              json_object_get_int_member_with_default (user, "review_count", -1));
  json_object_set_double_member (copy, "average_stars",
                                 json_object_get_double_member_with_default (user, "average_stars", -1));
  json_object_set_string_member (copy, "yelping_since",
                                 json_object_get_string_member_with_default (user, "yelping_since", ""));
  json_node_set_object (node, copy);
  return node_to_text (node);
}

static char *
name_friends (JsonObject *review)
{
  JsonObject *user;
  JsonArray *friends;
  GString *out;

  if (!json_object_has_member (review, "user"))
    return g_strdup ("");
  user = json_object_get_object_member (review, "user");
  if (!json_object_has_member (user, "name"))
    return g_strdup ("");
  out = g_string_new (json_object_get_string_member (user, "name"));
  g_string_append_c (out, '|');
  friends = json_object_get_array_member (user, "friends");
  for (guint i = 0; i < json_array_get_length (friends); i++)
    g_string_append_printf (out, "%s,", json_array_get_string_element (friends, i));
  return g_string_free (out, FALSE);
}

/* Every reviewer field of @review together: the account, its statistics
 * and join date, the name and its friends. */
static char *
reviewer_signature (JsonObject *review)
{
  g_autofree char *stats = user_stats (review);
  g_autofree char *nf = name_friends (review);

  return g_strdup_printf ("%s\n%s\n%s",
                          json_object_get_string_member_with_default (review, "user_id", ""),
                          stats, nf);
}

static void
profile_free (Profile *p)
{
  g_clear_object (&p->dataset);
  g_clear_pointer (&p->signatures, g_hash_table_unref);
  for (guint i = 0; i < G_N_ELEMENTS (p->id_chars); i++)
    g_clear_pointer (&p->id_chars[i], g_hash_table_unref);
  g_clear_pointer (&p->users, g_hash_table_unref);
  g_clear_pointer (&p->name_friends, g_hash_table_unref);
  g_clear_pointer (&p->reviewers, g_hash_table_unref);
  g_clear_pointer (&p->stars, g_hash_table_unref);
  g_free (p);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (Profile, profile_free)

static Profile *
profile_new (AnotDataset *dataset)
{
  Profile *p = g_new0 (Profile, 1);

  p->dataset = g_object_ref (dataset);
  p->signatures = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  p->users = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  p->name_friends = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  p->reviewers = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  p->stars = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);

  for (guint i = 0; i < anot_dataset_get_n_items (dataset); i++)
    {
      AnotItem *item = anot_dataset_get_item (dataset, i);

      for (guint r = 0; r < anot_item_get_n_reviews (item); r++)
        {
          g_autoptr(JsonObject) json = anot_review_to_json (anot_item_get_review (item, r));
          const char *id = json_object_get_string_member (json, "review_id");
          const char *user_id = json_object_get_string_member_with_default (json, "user_id", NULL);

          g_hash_table_add (p->signatures, key_signature (json));
          if (p->id_len == 0)
            p->id_len = strlen (id);
          g_assert_cmpuint (strlen (id), ==, p->id_len);
          g_assert_cmpuint (p->id_len, <=, G_N_ELEMENTS (p->id_chars));
          for (guint c = 0; c < p->id_len; c++)
            {
              if (p->id_chars[c] == NULL)
                p->id_chars[c] = g_hash_table_new (NULL, NULL);
              g_hash_table_add (p->id_chars[c], GUINT_TO_POINTER ((guint) (guchar) id[c]));
            }
          if (user_id != NULL)
            g_hash_table_insert (p->users, g_strdup (user_id), user_stats (json));
          g_hash_table_add (p->name_friends, name_friends (json));
          g_hash_table_add (p->reviewers, reviewer_signature (json));
          g_hash_table_add (p->stars, g_strdup_printf ("%.1f", json_object_get_double_member (json, "stars")));
          p->max_votes = MAX (p->max_votes, json_object_get_int_member_with_default (json, "useful", 0));
          p->max_votes = MAX (p->max_votes, json_object_get_int_member_with_default (json, "funny", 0));
          p->max_votes = MAX (p->max_votes, json_object_get_int_member_with_default (json, "cool", 0));
        }
    }
  /* One record layout in the benchmarks: a single signature. */
  g_assert_cmpuint (g_hash_table_size (p->signatures), ==, 1);
  return p;
}

/* The dataset's id pattern, position by position (a Yelp id is 22
 * base64url characters whose last one is A, Q, g or w). */
static gboolean
id_matches (Profile    *p,
            const char *id)
{
  if (strlen (id) != p->id_len)
    return FALSE;
  for (guint c = 0; c < p->id_len; c++)
    if (!g_hash_table_contains (p->id_chars[c], GUINT_TO_POINTER ((guint) (guchar) id[c])))
      return FALSE;
  return TRUE;
}

static gboolean
same_date_format (const char *a,
                  const char *b)
{
  if (strlen (a) != strlen (b))
    return FALSE;
  for (guint i = 0; a[i] != '\0'; i++)
    if (g_ascii_isdigit (a[i]) != g_ascii_isdigit (b[i]) || (!g_ascii_isdigit (a[i]) && a[i] != b[i]))
      return FALSE;
  return TRUE;
}

/* ------------------------------------------------------------------------
 * Helpers
 * --------------------------------------------------------------------- */

static AnotDataset *
load (const char *path)
{
  g_autofree char *probe = g_build_filename (path, "restaurants.jsonl", NULL);
  g_autoptr(GError) error = NULL;
  AnotDataset *dataset;

  if (!g_file_test (probe, G_FILE_TEST_IS_REGULAR))
    return NULL;
  dataset = anot_dataset_load (path, NULL, &error);
  g_assert_no_error (error);
  return dataset;
}

static AnotDataset *
load_demo (void)
{
  g_autofree char *path = g_build_filename (g_getenv ("ANOT_DATA_DIR"), "demo", NULL);
  AnotDataset *dataset = load (path);

  g_assert_nonnull (dataset);
  return dataset;
}

static AnotDataset *
load_philly (void)
{
  const char *path = g_getenv ("ANOT_PHILLY_DATA");

  return path != NULL ? load (path) : NULL;
}

static AnotAttack *
create_attack (const char       *name,
               AnotAttackCompat  compat)
{
  g_autoptr(GError) error = NULL;
  AnotAttack *attack = anot_registry_create_attack (anot_registry_get_default (), name, &error);

  g_assert_no_error (error);
  if (strcmp (name, "heterogeneity") == 0)
    g_assert_true (anot_attack_set_parameter (attack, "target-len", "120", &error));
  g_assert_true (anot_attack_set_parameter (attack, "compat", anot_attack_compat_to_string (compat),
                                            &error));
  g_assert_no_error (error);
  return attack;
}

/* The reviews of candidate @number as the method's JSON context has them. */
static JsonArray *
context_reviews (JsonNode *context,
                 guint     number)
{
  g_autofree char *key = g_strdup_printf ("%u", number);
  JsonObject *items = json_object_get_object_member (json_node_get_object (context), "items");

  return json_object_get_array_member (json_object_get_object_member (items, key), "reviews");
}

typedef struct
{
  guint requests;
  guint added;
  guint rewritten;
  guint social_checked;
} Counts;

/* ------------------------------------------------------------------------
 * The check, one attack on one dataset
 * --------------------------------------------------------------------- */

static void
check_request (Profile       *p,
               AnotValidator *validator,
               AnotAttack    *attack,
               AnotRequest   *request,
               guint64        seed,
               Counts        *counts)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(AnotPool) pool = anot_pool_new (p->dataset, request, 10, ANOT_POOL_MODE_SAMPLED,
                                            ANOT_SHUFFLE_MODE_RANDOM, seed, &error);
  GPtrArray *clean;
  g_autoptr(GPtrArray) attacked = NULL;
  g_autoptr(AnotFormatter) formatter = anot_formatter_new ();
  g_autoptr(JsonNode) clean_context = NULL;
  g_autoptr(JsonNode) context = NULL;
  g_autofree char *text = NULL;
  g_autoptr(GHashTable) seen_ids = g_hash_table_new (g_str_hash, g_str_equal);
  const char *all_lo = NULL, *all_hi = NULL;
  gboolean social = g_strcmp0 (anot_request_get_group (request), "G09") == 0 ||
                    g_strcmp0 (anot_request_get_group (request), "G10") == 0;

  g_assert_no_error (error);
  clean = anot_pool_get_shuffled (pool);
  attacked = anot_attack_apply (attack, clean, request, seed, &error);
  g_assert_no_error (error);
  counts->requests++;

  /* What the method reads: no label anywhere in it. */
  text = anot_formatter_format (formatter, attacked, NULL);
  g_assert_null (strstr (text, "fake_0"));
  g_assert_null (strstr (text, "\"sarcastic_"));
  g_assert_null (strstr (text, "2024-01-01"));

  clean_context = anot_formatter_build_context (formatter, clean);
  context = anot_formatter_build_context (formatter, attacked);
  /* An item without reviews has no range of its own: the candidates'. */
  for (guint i = 0; i < clean->len; i++)
    {
      JsonArray *clean_reviews = context_reviews (clean_context, i + 1);

      for (guint r = 0; r < json_array_get_length (clean_reviews); r++)
        {
          const char *date = json_object_get_string_member (json_array_get_object_element (clean_reviews, r),
                                                            "date");

          if (all_lo == NULL || strcmp (date, all_lo) < 0)
            all_lo = date;
          if (all_hi == NULL || strcmp (date, all_hi) > 0)
            all_hi = date;
        }
    }
  for (guint i = 0; i < clean->len; i++)
    {
      AnotItem *before = g_ptr_array_index (clean, i);
      JsonArray *reviews = context_reviews (context, i + 1);
      JsonArray *clean_reviews = context_reviews (clean_context, i + 1);
      g_autoptr(GHashTable) clean_by_id = g_hash_table_new (g_str_hash, g_str_equal);
      g_autoptr(GHashTable) item_users = g_hash_table_new (g_str_hash, g_str_equal);
      const char *lo = NULL, *hi = NULL, *sample_date = NULL;

      for (guint r = 0; r < json_array_get_length (clean_reviews); r++)
        {
          JsonObject *review = json_array_get_object_element (clean_reviews, r);
          const char *date = json_object_get_string_member (review, "date");

          g_hash_table_insert (clean_by_id, (gpointer) json_object_get_string_member (review, "review_id"),
                               review);
          g_hash_table_add (item_users, (gpointer) json_object_get_string_member (review, "user_id"));
          if (lo == NULL || strcmp (date, lo) < 0)
            lo = date;
          if (hi == NULL || strcmp (date, hi) > 0)
            hi = date;
          sample_date = date;
        }
      if (lo == NULL)
        {
          lo = all_lo;
          hi = sample_date = all_hi;
        }

      for (guint r = 0; r < json_array_get_length (reviews); r++)
        {
          JsonObject *review = json_array_get_object_element (reviews, r);
          const char *id = json_object_get_string_member (review, "review_id");
          JsonObject *original = g_hash_table_lookup (clean_by_id, id);
          g_autofree char *signature = key_signature (review);
          const char *user_id = json_object_get_string_member_with_default (review, "user_id", NULL);

          /* Key set identical to the real reviews'. */
          g_assert_true (g_hash_table_contains (p->signatures, signature));
          /* Ids unique among everything the method sees, in the dataset's
           * pattern. */
          g_assert_false (g_hash_table_contains (seen_ids, id));
          g_hash_table_add (seen_ids, (gpointer) id);
          g_assert_true (id_matches (p, id));
          /* A reviewer of the dataset, with that reviewer's statistics,
           * and a name with a friend list the dataset has. */
          g_assert_nonnull (user_id);
          {
            g_autofree char *stats = user_stats (review);
            g_autofree char *nf = name_friends (review);

            g_autofree char *reviewer = reviewer_signature (review);

            g_assert_cmpstr (g_hash_table_lookup (p->users, user_id), ==, stats);
            g_assert_true (g_hash_table_contains (p->name_friends, nf));
            /* ...and all of them together one real review's: an account
             * with another review's name is a pair no real review has. */
            if (!g_hash_table_contains (p->reviewers, reviewer))
              g_error ("review %s: its reviewer fields fit together as no real review's do:\n%s",
                       id, reviewer);
          }
          if (original != NULL)
            {
              /* Kept or rewritten: every field but the text is its own. */
              g_autoptr(JsonNode) a = json_node_new (JSON_NODE_OBJECT);
              g_autoptr(JsonNode) b = json_node_new (JSON_NODE_OBJECT);
              g_autoptr(JsonObject) a_obj = json_object_new ();
              g_autoptr(JsonObject) b_obj = json_object_new ();
              g_autofree char *a_text = NULL, *b_text = NULL;
              g_autoptr(GList) members = json_object_get_members (review);

              for (GList *l = members; l != NULL; l = l->next)
                if (strcmp (l->data, "text") != 0)
                  {
                    json_object_set_member (a_obj, l->data,
                                            json_node_copy (json_object_get_member (review, l->data)));
                    json_object_set_member (b_obj, l->data,
                                            json_node_copy (json_object_get_member (original, l->data)));
                  }
              json_node_set_object (a, a_obj);
              json_node_set_object (b, b_obj);
              a_text = node_to_text (a);
              b_text = node_to_text (b);
              g_assert_cmpstr (a_text, ==, b_text);
              if (strcmp (json_object_get_string_member (review, "text"),
                          json_object_get_string_member (original, "text")) != 0)
                counts->rewritten++;
              continue;
            }

          /* Added: never an id of the dataset, a date inside the item's
           * own range in its format, plausible stars and votes. */
          counts->added++;
          g_assert_null (anot_dataset_lookup_review (p->dataset, id));
          /* A reviewer who has not reviewed the item yet. */
          g_assert_false (g_hash_table_contains (item_users, user_id));
          g_hash_table_add (item_users, (gpointer) user_id);
          g_assert_nonnull (lo);
          g_assert_true (same_date_format (json_object_get_string_member (review, "date"), sample_date));
          g_assert_cmpstr (json_object_get_string_member (review, "date"), >=, lo);
          g_assert_cmpstr (json_object_get_string_member (review, "date"), <=, hi);
          g_assert_cmpstr (json_object_get_string_member (review, "date"), >=,
                           json_object_get_string_member (json_object_get_object_member (review, "user"),
                                                          "yelping_since"));
          {
            g_autofree char *stars = g_strdup_printf ("%.1f", json_object_get_double_member (review, "stars"));

            g_assert_true (g_hash_table_contains (p->stars, stars));
          }
          g_assert_cmpint (json_object_get_int_member (review, "useful"), >=, 0);
          g_assert_cmpint (json_object_get_int_member (review, "useful"), <=, p->max_votes);
          g_assert_cmpint (json_object_get_int_member (review, "funny"), >=, 0);
          g_assert_cmpint (json_object_get_int_member (review, "funny"), <=, p->max_votes);
          g_assert_cmpint (json_object_get_int_member (review, "cool"), >=, 0);
          g_assert_cmpint (json_object_get_int_member (review, "cool"), <=, p->max_votes);
        }

      /* The friend-request conditions (G09/G10) judge every candidate as
       * they did before the attack. */
      if (social)
        {
          AnotItem *after = g_ptr_array_index (attacked, i);

          g_assert_cmpint (anot_validator_evaluate (validator, request, after), ==,
                           anot_validator_evaluate (validator, request, before));
          counts->social_checked++;
        }
    }
}

static gboolean
adds_reviews (const char *name)
{
  return g_str_has_prefix (name, "fake_") || g_str_has_prefix (name, "sarcastic_");
}

static void
check_attack_on (AnotDataset *dataset,
                 const char  *name)
{
  g_autoptr(Profile) p = profile_new (dataset);
  g_autoptr(AnotValidator) validator = anot_validator_new (dataset);
  g_autoptr(AnotAttack) attack = create_attack (name, ANOT_ATTACK_COMPAT_REALISTIC);
  Counts counts = { 0 };
  guint n = anot_dataset_get_n_requests (dataset);

  /* Every third request, and every friend-request one. */
  for (guint r = 0; r < n; r++)
    {
      AnotRequest *request = anot_dataset_get_request (dataset, r);
      const char *group = anot_request_get_group (request);

      if (r % 3 != 0 && g_strcmp0 (group, "G09") != 0 && g_strcmp0 (group, "G10") != 0)
        continue;
      check_request (p, validator, attack, request, anot_attack_derive_seed (43, name,
                                                                               anot_request_get_id (request), 10),
                     &counts);
    }
  g_test_message ("%s on %s: %u requests, %u reviews added, %u rewritten, %u social truths kept",
                  name, anot_dataset_get_name (dataset), counts.requests, counts.added,
                  counts.rewritten, counts.social_checked);
  /* The checks above ran on something. */
  if (adds_reviews (name))
    g_assert_cmpuint (counts.added, >, 0);
  else
    {
      g_assert_cmpuint (counts.added, ==, 0);
      g_assert_cmpuint (counts.rewritten, >, 0);
    }
}

/* The original's labelled reviews, field for field: and the checks above
 * would catch every one of them. */
static void
check_compat_on (AnotDataset *dataset,
                 const char  *name)
{
  g_autoptr(Profile) p = profile_new (dataset);
  g_autoptr(AnotAttack) attack = create_attack (name, ANOT_ATTACK_COMPAT_ORIGINAL);
  g_autoptr(AnotAttack) realistic = create_attack (name, ANOT_ATTACK_COMPAT_REALISTIC);
  g_autoptr(AnotFormatter) formatter = anot_formatter_new ();
  guint added = 0;

  for (guint r = 0; r < anot_dataset_get_n_requests (dataset); r += 7)
    {
      AnotRequest *request = anot_dataset_get_request (dataset, r);
      g_autoptr(GError) error = NULL;
      g_autoptr(AnotPool) pool = anot_pool_new (dataset, request, 10, ANOT_POOL_MODE_SAMPLED,
                                                ANOT_SHUFFLE_MODE_RANDOM, 43, &error);
      GPtrArray *clean = anot_pool_get_shuffled (pool);
      guint64 seed = anot_attack_derive_seed (43, name, anot_request_get_id (request), 10);
      g_autoptr(GPtrArray) attacked = anot_attack_apply (attack, clean, request, seed, &error);
      g_autoptr(GPtrArray) attacked_realistic = anot_attack_apply (realistic, clean, request, seed, &error);
      g_autoptr(JsonNode) context = NULL;
      g_autoptr(JsonNode) context_realistic = NULL;

      g_assert_no_error (error);
      context = anot_formatter_build_context (formatter, attacked);
      context_realistic = anot_formatter_build_context (formatter, attacked_realistic);
      for (guint i = 0; i < clean->len; i++)
        {
          AnotItem *before = g_ptr_array_index (clean, i);
          JsonArray *reviews = context_reviews (context, i + 1);
          JsonArray *reviews_realistic = context_reviews (context_realistic, i + 1);

          /* Same texts at the same places in both modes. */
          g_assert_cmpuint (json_array_get_length (reviews), ==, json_array_get_length (reviews_realistic));
          for (guint r2 = 0; r2 < json_array_get_length (reviews); r2++)
            {
              JsonObject *review = json_array_get_object_element (reviews, r2);
              const char *id = json_object_get_string_member (review, "review_id");
              g_autoptr(GList) keys = NULL;
              g_autofree char *signature = NULL;

              g_assert_cmpstr (json_object_get_string_member (review, "text"), ==,
                               json_object_get_string_member (json_array_get_object_element (reviews_realistic, r2),
                                                              "text"));
              if (anot_dataset_lookup_review (dataset, id) != NULL)
                continue;
              added++;
              /* {review_id, stars, text, date} only, as the original wrote. */
              keys = json_object_get_members (review);
              g_assert_cmpuint (g_list_length (keys), ==, 4);
              g_assert_cmpstr (keys->data, ==, "review_id");
              g_assert_true (json_object_has_member (review, "stars"));
              g_assert_true (json_object_has_member (review, "text"));
              g_assert_cmpstr (json_object_get_string_member (review, "date"), ==, "2024-01-01");
              if (g_str_has_prefix (name, "fake_"))
                {
                  g_assert_cmpstr (id, ==, "fake_001");
                  g_assert_cmpfloat (json_object_get_double_member (review, "stars"), ==,
                                     strcmp (name, "fake_positive") == 0 ? 5.0 : 1.0);
                }
              else
                {
                  g_assert_true (g_str_has_prefix (id, "sarcastic_"));
                  g_assert_cmpfloat (json_object_get_double_member (review, "stars"), ==, 5.0);
                }
              /* What the realistic checks reject. */
              signature = key_signature (review);
              g_assert_false (g_hash_table_contains (p->signatures, signature));
              g_assert_false (id_matches (p, id));
            }
          g_assert_false (anot_item_get_n_reviews (before) > json_array_get_length (reviews));
        }
    }
  g_assert_cmpuint (added, >, 0);
}

static void
test_attack (gconstpointer data)
{
  const char *name = data;
  g_autoptr(AnotDataset) demo = load_demo ();
  g_autoptr(AnotDataset) philly = load_philly ();

  check_attack_on (demo, name);
  if (adds_reviews (name))
    check_compat_on (demo, name);
  if (philly == NULL)
    {
      g_test_message ("philly_cafes data not found: %s checked on demo only", name);
      return;
    }
  check_attack_on (philly, name);
  if (adds_reviews (name))
    check_compat_on (philly, name);
}

/* Same seed, same bytes; another seed, other draws. */
static void
test_deterministic (void)
{
  g_autoptr(AnotDataset) demo = load_demo ();
  g_autoptr(AnotAttack) attack = create_attack ("sarcastic_all", ANOT_ATTACK_COMPAT_REALISTIC);
  g_autoptr(AnotFormatter) formatter = anot_formatter_new ();
  AnotRequest *request = anot_dataset_get_request (demo, 4);
  g_autoptr(GError) error = NULL;
  g_autoptr(AnotPool) pool = anot_pool_new (demo, request, 10, ANOT_POOL_MODE_SAMPLED,
                                            ANOT_SHUFFLE_MODE_RANDOM, 43, &error);
  GPtrArray *clean = anot_pool_get_shuffled (pool);
  g_autoptr(GPtrArray) a = anot_attack_apply (attack, clean, request, 7, &error);
  g_autoptr(GPtrArray) b = anot_attack_apply (attack, clean, request, 7, &error);
  g_autoptr(GPtrArray) c = anot_attack_apply (attack, clean, request, 8, &error);
  g_autofree char *ta = anot_formatter_format (formatter, a, NULL);
  g_autofree char *tb = anot_formatter_format (formatter, b, NULL);
  g_autofree char *tc = anot_formatter_format (formatter, c, NULL);

  g_assert_no_error (error);
  g_assert_cmpstr (ta, ==, tb);
  g_assert_cmpstr (ta, !=, tc);
}

/* Without its dataset (a Python attack applied to hand-made candidates),
 * the forge draws from the candidates and still keeps their form. */
static void
test_forge_without_dataset (void)
{
  g_autoptr(AnotDataset) demo = load_demo ();
  g_autoptr(GPtrArray) candidates = g_ptr_array_new ();
  g_autoptr(AnotReviewForge) forge = NULL;
  g_autoptr(AnotReview) review = NULL;
  g_autoptr(GError) error = NULL;
  AnotItem *item = NULL;

  for (guint i = 0; i < anot_dataset_get_n_items (demo) && candidates->len < 5; i++)
    if (anot_item_get_n_reviews (anot_dataset_get_item (demo, i)) > 3)
      g_ptr_array_add (candidates, anot_dataset_get_item (demo, i));
  item = g_ptr_array_index (candidates, 0);
  forge = anot_review_forge_new (NULL, candidates, NULL);
  review = anot_review_forge_make (forge, item, NULL, 4.0, "Nice place.", 5, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (anot_review_get_item_id (review), ==, anot_item_get_id (item));
  g_assert_cmpfloat (anot_review_get_stars (review), ==, 4.0);
  g_assert_cmpuint (strlen (anot_review_get_id (review)), ==,
                    strlen (anot_review_get_id (anot_item_get_review (item, 0))));
  g_assert_null (anot_dataset_lookup_review (demo, anot_review_get_id (review)));
  g_assert_nonnull (anot_review_get_user_id (review));
  g_assert_cmpstr (anot_review_get_reviewer_name (review), !=, "");
  g_assert_nonnull (anot_review_get_date (review));
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);

  for (guint i = 0; i < G_N_ELEMENTS (all_attacks); i++)
    {
      g_autofree char *path = g_strdup_printf ("/attack-realism/%s", all_attacks[i]);

      g_test_add_data_func (path, all_attacks[i], test_attack);
    }
  g_test_add_func ("/attack-realism/deterministic", test_deterministic);
  g_test_add_func ("/attack-realism/forge-without-dataset", test_forge_without_dataset);

  return g_test_run ();
}
