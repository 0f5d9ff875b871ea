/* test-validator.c: the three-valued validator
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * On the real benchmark ($ANOT_PHILLY_DATA) the expected values are the
 * published gold labels and the facts of evidence.md (§1 totals, §6 quirks,
 * §8 worked examples); facts about the data itself are recomputed here from
 * the items and reviews, not taken from the validator.  Small hand-built
 * datasets cover the rules the benchmark does not use.
 */
#include <math.h>
#include <string.h>

#include <gio/gio.h>
#include <glib/gstdio.h>
#include <anot/anot.h>

#include "anot-test-data.h"

/* ------------------------------------------------------------------------ *
 * Helpers
 * ------------------------------------------------------------------------ */

static AnotRequest *
request (AnotDataset *ds,
         const char  *id)
{
  AnotRequest *r = anot_dataset_lookup_request (ds, id);

  g_assert_nonnull (r);
  return r;
}

static AnotItem *
item (AnotDataset *ds,
      guint        index)
{
  AnotItem *it = anot_dataset_get_item (ds, index);

  g_assert_nonnull (it);
  g_assert_cmpuint (anot_item_get_index (it), ==, index);
  return it;
}

static AnotTruth
leaf_truth (AnotVerdict *verdict,
            const char  *aspect)
{
  AnotTruth truth = 42;

  if (!anot_verdict_lookup_leaf (verdict, aspect, &truth))
    g_error ("no leaf “%s” in the verdict of %s", aspect, anot_verdict_get_request_id (verdict));
  return truth;
}

/* The leaf of a request with the given aspect. */
static AnotCondition *
find_leaf (AnotRequest *req,
           const char  *aspect)
{
  g_autoptr(GPtrArray) leaves = anot_condition_collect_leaves (anot_request_get_structure (req));

  for (guint i = 0; i < leaves->len; i++)
    if (g_strcmp0 (anot_condition_get_aspect (g_ptr_array_index (leaves, i)), aspect) == 0)
      return g_ptr_array_index (leaves, i);
  g_error ("no leaf “%s” in %s", aspect, anot_request_get_id (req));
  return NULL;
}

static AnotCondition *
condition_from_string (const char *json)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) node = json_from_string (json, &error);
  AnotCondition *condition;

  g_assert_no_error (error);
  condition = anot_condition_new_from_json (node, &error);
  g_assert_no_error (error);
  return condition;
}

static gboolean
strv_contains_str (const char * const *strv,
                   const char         *str)
{
  return strv != NULL && g_strv_contains (strv, str);
}

/* ------------------------------------------------------------------------ *
 * The philly_cafes benchmark
 * ------------------------------------------------------------------------ */

/* anot_validator_check_requests() agrees with check_request() one by one
 * on every philly request. */
static void
test_philly_check_requests (void)
{
  AnotDataset *ds = anot_test_get_philly ();
  g_autoptr(AnotValidator) validator = NULL;
  g_autoptr(GPtrArray) requests = g_ptr_array_new ();
  g_autoptr(GArray) statuses = NULL;
  g_autoptr(GArray) n_matches = NULL;

  if (ds == NULL)
    return;
  validator = anot_validator_new (ds);
  for (guint r = 0; r < anot_dataset_get_n_requests (ds); r++)
    g_ptr_array_add (requests, anot_dataset_get_request (ds, r));
  statuses = anot_validator_check_requests (validator, requests, &n_matches);
  for (guint r = 0; r < requests->len; r++)
    {
      guint one_matches = 0;
      AnotGoldStatus one = anot_validator_check_request (validator, requests->pdata[r], &one_matches);

      g_assert_cmpint (g_array_index (statuses, AnotGoldStatus, r), ==, one);
      g_assert_cmpuint (g_array_index (n_matches, guint, r), ==, one_matches);
    }
}

static void
test_philly_all_ok (void)
{
  AnotDataset *ds = anot_test_get_philly ();
  g_autoptr(AnotValidator) validator = NULL;
  guint n_ok = 0;

  if (ds == NULL)
    return;

  validator = anot_validator_new (ds);
  g_assert_true (anot_validator_get_dataset (validator) == ds);
  g_assert_cmpuint (anot_dataset_get_n_requests (ds), ==, 100);
  g_assert_cmpuint (anot_dataset_get_n_items (ds), ==, 50);

  for (guint r = 0; r < anot_dataset_get_n_requests (ds); r++)
    {
      AnotRequest *req = anot_dataset_get_request (ds, r);
      g_autoptr(GPtrArray) matches = anot_validator_find_matches (validator, req);
      guint n_matches = 0;
      AnotGoldStatus status = anot_validator_check_request (validator, req, &n_matches);

      if (status != ANOT_GOLD_STATUS_OK)
        g_test_message ("%s: %s, %u matches", anot_request_get_id (req),
                        anot_gold_status_to_string (status), n_matches);
      else
        n_ok++;

      g_assert_cmpuint (n_matches, ==, matches->len);
      g_assert_cmpuint (matches->len, ==, 1);
      g_assert_cmpstr (anot_item_get_id (g_ptr_array_index (matches, 0)), ==,
                       anot_request_get_gold_item_id (req));
      g_assert_cmpuint (anot_item_get_index (g_ptr_array_index (matches, 0)), ==,
                        anot_request_get_gold_index (req));
    }

  g_assert_cmpuint (n_ok, ==, 100);
}

/* §1 totals, and explain() agreeing with evaluate() on every cell. */
static void
test_philly_totals (void)
{
  AnotDataset *ds = anot_test_get_philly ();
  g_autoptr(AnotValidator) validator = NULL;
  guint roots[3] = { 0, 0, 0 };
  guint n_leaves = 0;
  guint kinds[ANOT_EVIDENCE_REVIEW_GROUP_RATING_NEGATIVE + 1] = { 0 };

  if (ds == NULL)
    return;

  validator = anot_validator_new (ds);
  for (guint r = 0; r < anot_dataset_get_n_requests (ds); r++)
    {
      AnotRequest *req = anot_dataset_get_request (ds, r);
      g_autoptr(GPtrArray) leaves = anot_condition_collect_leaves (anot_request_get_structure (req));

      n_leaves += leaves->len;
      for (guint l = 0; l < leaves->len; l++)
        kinds[anot_condition_get_evidence_kind (g_ptr_array_index (leaves, l))]++;

      for (guint i = 0; i < anot_dataset_get_n_items (ds); i++)
        {
          AnotItem *it = anot_dataset_get_item (ds, i);
          AnotTruth truth = anot_validator_evaluate (validator, req, it);
          g_autoptr(AnotVerdict) verdict = anot_validator_explain (validator, req, it);

          g_assert_cmpint (truth, >=, -1);
          g_assert_cmpint (truth, <=, 1);
          roots[truth + 1]++;
          g_assert_cmpint (anot_verdict_get_truth (verdict), ==, truth);
          g_assert_cmpuint (anot_verdict_get_n_leaves (verdict), ==, leaves->len);
          g_assert_cmpstr (anot_verdict_get_item_id (verdict), ==, anot_item_get_id (it));
          g_assert_cmpstr (anot_verdict_get_request_id (verdict), ==, anot_request_get_id (req));
          for (guint l = 0; l < leaves->len; l++)
            {
              g_assert_true (anot_verdict_get_leaf (verdict, l) == g_ptr_array_index (leaves, l));
              /* A leaf evaluated alone gives what the verdict recorded. */
              if ((i + l) % 7 == 0)
                g_assert_cmpint (anot_validator_evaluate_condition (validator, g_ptr_array_index (leaves, l), it),
                                 ==, anot_verdict_get_leaf_truth (verdict, l));
            }
        }
    }

  g_assert_cmpuint (roots[2], ==, 100);
  g_assert_cmpuint (roots[1], ==, 306);
  g_assert_cmpuint (roots[0], ==, 4594);

  g_assert_cmpuint (n_leaves, ==, 388);
  g_assert_cmpuint (kinds[ANOT_EVIDENCE_ITEM_META], ==, 341);
  g_assert_cmpuint (kinds[ANOT_EVIDENCE_REVIEW_SENTIMENT], ==, 14);
  g_assert_cmpuint (kinds[ANOT_EVIDENCE_REVIEW_TEXT], ==, 12);
  g_assert_cmpuint (kinds[ANOT_EVIDENCE_ITEM_META_HOURS], ==, 10);
  g_assert_cmpuint (kinds[ANOT_EVIDENCE_REVIEW_GROUP_RATING], ==, 6);
  g_assert_cmpuint (kinds[ANOT_EVIDENCE_SOCIAL_RATING], ==, 4);
  g_assert_cmpuint (kinds[ANOT_EVIDENCE_REVIEW_GROUP_RATING_NEGATIVE], ==, 1);
}

/* Counts the root truths of one request over all items. */
static void
count_roots (AnotValidator *validator,
             AnotRequest   *req,
             guint          counts[3])
{
  AnotDataset *ds = anot_validator_get_dataset (validator);

  counts[0] = counts[1] = counts[2] = 0;
  for (guint i = 0; i < anot_dataset_get_n_items (ds); i++)
    counts[anot_validator_evaluate (validator, req, anot_dataset_get_item (ds, i)) + 1]++;
}

/* §8 Example 1 */
static void
test_philly_example_r01 (void)
{
  AnotDataset *ds = anot_test_get_philly ();
  g_autoptr(AnotValidator) validator = NULL;
  g_autoptr(AnotVerdict) v0 = NULL;
  g_autoptr(AnotVerdict) v2 = NULL;
  guint counts[3];
  guint with_drive_thru = 0;

  if (ds == NULL)
    return;
  validator = anot_validator_new (ds);

  v0 = anot_validator_explain (validator, request (ds, "R01"), item (ds, 0));
  g_assert_cmpstr (anot_item_get_name (item (ds, 0)), ==, "Milkcrate Cafe");
  g_assert_cmpint (leaf_truth (v0, "drive_thru"), ==, 1);
  g_assert_cmpint (leaf_truth (v0, "good_for_kids"), ==, 1);
  g_assert_cmpint (leaf_truth (v0, "no_tv"), ==, 1);
  g_assert_cmpint (anot_verdict_get_truth (v0), ==, 1);

  v2 = anot_validator_explain (validator, request (ds, "R01"), item (ds, 2));
  g_assert_cmpstr (anot_item_get_name (item (ds, 2)), ==, "Front Street Cafe");
  g_assert_null (anot_item_get_attribute (item (ds, 2), "DriveThru"));
  g_assert_cmpint (leaf_truth (v2, "drive_thru"), ==, 0);
  g_assert_cmpint (leaf_truth (v2, "good_for_kids"), ==, 1);
  g_assert_cmpint (leaf_truth (v2, "no_tv"), ==, 1);
  g_assert_cmpint (anot_verdict_get_truth (v2), ==, 0);

  for (guint i = 0; i < 50; i++)
    if (anot_item_get_attribute (item (ds, i), "DriveThru") != NULL)
      with_drive_thru++;
  g_assert_cmpuint (with_drive_thru, ==, 4);

  count_roots (validator, request (ds, "R01"), counts);
  g_assert_cmpuint (counts[2], ==, 1);
  g_assert_cmpuint (counts[1], ==, 28);
  g_assert_cmpuint (counts[0], ==, 21);
}

/* §8 Example 2 */
static void
test_philly_example_r28 (void)
{
  AnotDataset *ds = anot_test_get_philly ();
  g_autoptr(AnotValidator) validator = NULL;
  g_autoptr(AnotVerdict) v9 = NULL;
  g_autoptr(AnotVerdict) v6 = NULL;
  g_autoptr(AnotVerdict) v10 = NULL;
  AnotRequest *req;
  guint counts[3];

  if (ds == NULL)
    return;
  validator = anot_validator_new (ds);
  req = request (ds, "R28");

  g_assert_cmpstr (anot_item_get_hours (item (ds, 9), "Friday"), ==, "7:0-23:0");
  v9 = anot_validator_explain (validator, req, item (ds, 9));
  g_assert_cmpint (leaf_truth (v9, "friday_late"), ==, 1);
  g_assert_cmpint (leaf_truth (v9, "full_bar"), ==, 1);
  g_assert_cmpint (leaf_truth (v9, "outdoor"), ==, 1);
  g_assert_cmpint (leaf_truth (v9, "average_noise"), ==, 1);
  g_assert_cmpint (leaf_truth (v9, "reservations"), ==, 1);
  g_assert_cmpint (anot_verdict_get_truth (v9), ==, 1);

  /* 11:0-2:0 runs past midnight: [660, 1560] covers 21:00-23:00. */
  g_assert_cmpstr (anot_item_get_hours (item (ds, 6), "Friday"), ==, "11:0-2:0");
  g_assert_cmpstr (anot_item_get_attribute (item (ds, 6), "Alcohol"), ==, "'full_bar'");
  v6 = anot_validator_explain (validator, req, item (ds, 6));
  g_assert_cmpint (leaf_truth (v6, "friday_late"), ==, 1);
  g_assert_cmpint (leaf_truth (v6, "full_bar"), ==, 1);
  g_assert_cmpint (leaf_truth (v6, "outdoor"), ==, 1);
  g_assert_cmpint (leaf_truth (v6, "average_noise"), ==, 0);
  g_assert_cmpint (leaf_truth (v6, "reservations"), ==, 1);
  g_assert_cmpint (anot_verdict_get_truth (v6), ==, 0);

  v10 = anot_validator_explain (validator, req, item (ds, 10));
  g_assert_cmpint (leaf_truth (v10, "friday_late"), ==, 1);
  g_assert_cmpint (leaf_truth (v10, "full_bar"), ==, 1);
  g_assert_cmpint (leaf_truth (v10, "outdoor"), ==, 0);
  g_assert_cmpint (leaf_truth (v10, "average_noise"), ==, 0);
  g_assert_cmpint (anot_verdict_get_truth (v10), ==, 0);

  count_roots (validator, req, counts);
  g_assert_cmpuint (counts[2], ==, 1);
  g_assert_cmpuint (counts[1], ==, 2);
  g_assert_cmpuint (counts[0], ==, 47);
}

/* §8 Example 3 */
static void
test_philly_example_r44 (void)
{
  AnotDataset *ds = anot_test_get_philly ();
  g_autoptr(AnotValidator) validator = NULL;
  g_autoptr(AnotVerdict) v1 = NULL;
  g_autoptr(AnotVerdict) v0 = NULL;
  AnotRequest *req;
  guint counts[3];

  if (ds == NULL)
    return;
  validator = anot_validator_new (ds);
  req = request (ds, "R44");

  v1 = anot_validator_explain (validator, req, item (ds, 1));
  g_assert_cmpstr (anot_item_get_name (item (ds, 1)), ==, "Tria Cafe Rittenhouse");
  g_assert_cmpint (leaf_truth (v1, "cat_tapas_bars"), ==, 1);
  g_assert_cmpint (leaf_truth (v1, "ambience_romantic"), ==, -1);
  g_assert_cmpint (leaf_truth (v1, "Alcohol"), ==, -1);
  g_assert_cmpint (anot_verdict_get_truth (v1), ==, 1);

  g_assert_cmpstr (anot_item_get_attribute (item (ds, 0), "Alcohol"), ==, "u'none'");
  v0 = anot_validator_explain (validator, req, item (ds, 0));
  g_assert_cmpint (leaf_truth (v0, "cat_tapas_bars"), ==, -1);
  g_assert_cmpint (leaf_truth (v0, "ambience_romantic"), ==, -1);
  g_assert_cmpint (leaf_truth (v0, "Alcohol"), ==, 0);
  g_assert_cmpint (anot_verdict_get_truth (v0), ==, 0);

  count_roots (validator, req, counts);
  g_assert_cmpuint (counts[2], ==, 1);
  g_assert_cmpuint (counts[1], ==, 30);
  g_assert_cmpuint (counts[0], ==, 19);
}

/* §8 Example 4 and the one-way Rose edge of §6.8. */
static void
test_philly_example_r82 (void)
{
  AnotDataset *ds = anot_test_get_philly ();
  g_autoptr(AnotValidator) validator = NULL;
  g_autoptr(AnotVerdict) v14 = NULL;
  g_autoptr(AnotVerdict) v20 = NULL;
  g_autoptr(AnotVerdict) v3 = NULL;
  g_autoptr(AnotCondition) forward = NULL;
  g_autoptr(AnotCondition) rose_only = NULL;
  const char * const *alice_friends;
  AnotItem *la_colombe;
  AnotRequest *req;
  guint qualifying = 0;

  if (ds == NULL)
    return;
  validator = anot_validator_new (ds);
  req = request (ds, "R82");
  la_colombe = item (ds, 14);
  g_assert_cmpstr (anot_item_get_name (la_colombe), ==, "La Colombe Coffee");

  v14 = anot_validator_explain (validator, req, la_colombe);
  g_assert_cmpint (leaf_truth (v14, "no_wifi"), ==, 1);
  g_assert_cmpint (leaf_truth (v14, "budget"), ==, 1);
  g_assert_cmpint (leaf_truth (v14, "no_kids"), ==, 1);
  g_assert_cmpint (leaf_truth (v14, "social_rating"), ==, 1);
  g_assert_cmpint (anot_verdict_get_truth (v14), ==, 1);

  /* The data: Alice's own review is 3 stars; Rose's is 5; Rose lists
   * Alice as a friend but Alice does not list Rose. */
  g_assert_cmpstr (anot_review_get_reviewer_name (anot_item_get_review (la_colombe, 0)), ==, "Alice");
  g_assert_cmpfloat (anot_review_get_stars (anot_item_get_review (la_colombe, 0)), ==, 3.0);
  g_assert_cmpstr (anot_review_get_reviewer_name (anot_item_get_review (la_colombe, 8)), ==, "Rose");
  g_assert_cmpfloat (anot_review_get_stars (anot_item_get_review (la_colombe, 8)), ==, 5.0);
  alice_friends = anot_dataset_get_friends (ds, "Alice");
  g_assert_true (strv_contains_str (anot_dataset_get_friends (ds, "Rose"), "Alice"));
  g_assert_false (strv_contains_str (alice_friends, "Rose"));

  /* The only 4+ star review at #14 by someone who qualifies (looking from
   * the reviewer) is Rose's; none is by Alice or a friend Alice lists. */
  for (guint k = 0; k < anot_item_get_n_reviews (la_colombe); k++)
    {
      AnotReview *review = anot_item_get_review (la_colombe, k);
      const char *name = anot_review_get_reviewer_name (review);

      if (anot_review_get_stars (review) < 4)
        continue;
      g_assert_cmpstr (name, !=, "Alice");
      g_assert_false (strv_contains_str (alice_friends, name));
      if (strcmp (name, "Alice") == 0 ||
          strv_contains_str (anot_dataset_get_friends (ds, name), "Alice"))
        {
          g_assert_cmpstr (name, ==, "Rose");
          qualifying++;
        }
    }
  g_assert_cmpuint (qualifying, ==, 1);

  /* A forward-only network, {Alice} and the friends Alice lists, finds
   * nothing at #14; Rose alone is enough. */
  {
    g_autoptr(GString) json = g_string_new ("{\"aspect\": \"fwd\", \"evidence\": {\"kind\": \"social_rating\", "
                                            "\"min_stars\": 4, \"social_filter\": {\"hops\": 0, \"friends\": [\"Alice\"");

    for (guint i = 0; alice_friends != NULL && alice_friends[i] != NULL; i++)
      g_string_append_printf (json, ", \"%s\"", alice_friends[i]);
    g_string_append (json, "]}}}");
    forward = condition_from_string (json->str);
  }
  rose_only = condition_from_string ("{\"aspect\": \"rose\", \"evidence\": {\"kind\": \"social_rating\", "
                                     "\"min_stars\": 4, \"social_filter\": {\"hops\": 0, \"friends\": [\"Rose\"]}}}");
  g_assert_cmpint (anot_validator_evaluate_condition (validator, forward, la_colombe), ==, -1);
  g_assert_cmpint (anot_validator_evaluate_condition (validator, rose_only, la_colombe), ==, 1);
  g_assert_cmpint (anot_validator_evaluate_condition (validator, find_leaf (req, "social_rating"), la_colombe), ==, 1);
  /* R83 relies on the same edge. */
  g_assert_cmpint (anot_validator_evaluate_condition (validator, find_leaf (request (ds, "R83"), "social_rating"),
                                                      la_colombe), ==, 1);
  g_assert_cmpint (anot_validator_evaluate (validator, request (ds, "R83"),
                                            item (ds, anot_request_get_gold_index (request (ds, "R83")))), ==, 1);

  v20 = anot_validator_explain (validator, req, item (ds, 20));
  g_assert_cmpstr (anot_item_get_name (item (ds, 20)), ==, "The Bakeshop on 20th");
  g_assert_cmpint (leaf_truth (v20, "budget"), ==, 1);
  g_assert_cmpint (leaf_truth (v20, "no_kids"), ==, -1);
  g_assert_cmpint (leaf_truth (v20, "social_rating"), ==, 1);
  g_assert_cmpint (anot_verdict_get_truth (v20), ==, -1);

  v3 = anot_validator_explain (validator, req, item (ds, 3));
  g_assert_cmpstr (anot_item_get_attribute (item (ds, 3), "RestaurantsPriceRange2"), ==, "2");
  g_assert_cmpint (leaf_truth (v3, "budget"), ==, -1);
  g_assert_cmpint (anot_verdict_get_truth (v3), ==, -1);
}

/* §8 Example 5 */
static void
test_philly_example_r85 (void)
{
  AnotDataset *ds = anot_test_get_philly ();
  g_autoptr(AnotValidator) validator = NULL;
  g_autoptr(AnotVerdict) v4 = NULL;
  g_autoptr(AnotVerdict) v6 = NULL;
  const char * const *ivy;
  AnotRequest *req;
  guint counts[3];

  if (ds == NULL)
    return;
  validator = anot_validator_new (ds);
  req = request (ds, "R85");

  ivy = anot_dataset_get_friends (ds, "Ivy");
  g_assert_nonnull (ivy);
  g_assert_cmpuint (g_strv_length ((char **) ivy), ==, 2);
  g_assert_true (strv_contains_str (ivy, "Grace"));
  g_assert_true (strv_contains_str (ivy, "Kate"));

  v4 = anot_validator_explain (validator, req, item (ds, 4));
  g_assert_cmpstr (anot_item_get_name (item (ds, 4)), ==, "Kung Fu Tea");
  g_assert_cmpint (leaf_truth (v4, "social_boba"), ==, 1);
  g_assert_cmpint (anot_verdict_get_truth (v4), ==, 1);
  g_assert_cmpint (anot_dataset_get_judgement (ds, anot_review_get_id (anot_item_get_review (item (ds, 4), 0)), "boba"),
                   ==, ANOT_JUDGEMENT_POSITIVE);
  g_assert_cmpstr (anot_review_get_reviewer_name (anot_item_get_review (item (ds, 4), 0)), ==, "Ivy");

  v6 = anot_validator_explain (validator, req, item (ds, 6));
  g_assert_cmpint (leaf_truth (v6, "social_boba"), ==, -1);
  g_assert_cmpint (anot_verdict_get_truth (v6), ==, -1);

  count_roots (validator, req, counts);
  g_assert_cmpuint (counts[2], ==, 1);
  g_assert_cmpuint (counts[1], ==, 0);
  g_assert_cmpuint (counts[0], ==, 49);
}

/* Mean stars of the reviews whose reviewer's average is below 3.5. */
static double
harsh_mean (AnotItem *it,
            guint    *n_out)
{
  double sum = 0;
  guint n = 0;

  for (guint k = 0; k < anot_item_get_n_reviews (it); k++)
    {
      AnotReview *review = anot_item_get_review (it, k);

      if (anot_review_has_user_average_stars (review) &&
          anot_review_get_user_average_stars (review) < 3.5)
        {
          sum += anot_review_get_stars (review);
          n++;
        }
    }
  *n_out = n;
  return sum / n;
}

/* §8 Example 6 */
static void
test_philly_example_r33 (void)
{
  AnotDataset *ds = anot_test_get_philly ();
  g_autoptr(AnotValidator) validator = NULL;
  g_autoptr(AnotVerdict) v15 = NULL;
  g_autoptr(AnotVerdict) v36 = NULL;
  g_autoptr(AnotVerdict) v16 = NULL;
  AnotRequest *req;
  guint n;

  if (ds == NULL)
    return;
  validator = anot_validator_new (ds);
  req = request (ds, "R33");

  g_assert_cmpstr (anot_item_get_name (item (ds, 15)), ==, "Last Drop");
  g_assert_cmpstr (anot_item_get_attribute (item (ds, 15), "Alcohol"), ==, "u'none'");
  g_assert_cmpfloat_with_epsilon (harsh_mean (item (ds, 15), &n), 20.0 / 7.0, 1e-12);
  g_assert_cmpuint (n, ==, 7);
  v15 = anot_validator_explain (validator, req, item (ds, 15));
  g_assert_cmpint (leaf_truth (v15, "alcohol_none"), ==, 1);
  g_assert_cmpint (leaf_truth (v15, "noise_quiet"), ==, 1);
  g_assert_cmpint (leaf_truth (v15, "harsh_avg_gte_2.7"), ==, 1);
  g_assert_cmpint (anot_verdict_get_truth (v15), ==, 1);

  g_assert_cmpstr (anot_item_get_name (item (ds, 36)), ==, "Caffeination");
  g_assert_cmpfloat_with_epsilon (harsh_mean (item (ds, 36), &n), 2.286, 1e-3);
  v36 = anot_validator_explain (validator, req, item (ds, 36));
  g_assert_cmpint (leaf_truth (v36, "alcohol_none"), ==, 1);
  g_assert_cmpint (leaf_truth (v36, "noise_quiet"), ==, 1);
  g_assert_cmpint (leaf_truth (v36, "harsh_avg_gte_2.7"), ==, -1);
  g_assert_cmpint (anot_verdict_get_truth (v36), ==, -1);

  g_assert_cmpstr (anot_item_get_name (item (ds, 16)), ==, "Elixr Coffee Roasters");
  g_assert_cmpstr (anot_item_get_attribute (item (ds, 16), "Alcohol"), ==, "'none'");
  g_assert_cmpfloat_with_epsilon (harsh_mean (item (ds, 16), &n), 2.5, 1e-12);
  v16 = anot_validator_explain (validator, req, item (ds, 16));
  g_assert_cmpint (leaf_truth (v16, "alcohol_none"), ==, 1);
  g_assert_cmpint (leaf_truth (v16, "harsh_avg_gte_2.7"), ==, -1);
  g_assert_cmpint (anot_verdict_get_truth (v16), ==, -1);
}

/* §6.1: Alcohol with true:"True" can never be true. */
static void
test_philly_alcohol_true (void)
{
  AnotDataset *ds = anot_test_get_philly ();
  g_autoptr(AnotValidator) validator = NULL;
  g_autoptr(GPtrArray) requests_with_it = g_ptr_array_new ();
  guint n_leaves = 0;

  if (ds == NULL)
    return;
  validator = anot_validator_new (ds);

  for (guint r = 0; r < anot_dataset_get_n_requests (ds); r++)
    {
      AnotRequest *req = anot_dataset_get_request (ds, r);
      g_autoptr(GPtrArray) leaves = anot_condition_collect_leaves (anot_request_get_structure (req));

      for (guint l = 0; l < leaves->len; l++)
        {
          AnotCondition *leaf = g_ptr_array_index (leaves, l);
          JsonObject *evidence = anot_condition_get_evidence (leaf);
          JsonArray *path;
          guint zeros = 0, falses = 0;

          if (anot_condition_get_evidence_kind (leaf) != ANOT_EVIDENCE_ITEM_META ||
              !json_object_has_member (evidence, "true") ||
              g_strcmp0 (json_object_get_string_member (evidence, "true"), "True") != 0)
            continue;
          path = json_object_get_array_member (evidence, "path");
          if (json_array_get_length (path) != 2 ||
              g_strcmp0 (json_array_get_string_element (path, 1), "Alcohol") != 0)
            continue;

          n_leaves++;
          g_assert_cmpstr (anot_condition_get_aspect (leaf), ==, "Alcohol");
          g_ptr_array_add (requests_with_it, (gpointer) anot_request_get_id (req));

          for (guint i = 0; i < anot_dataset_get_n_items (ds); i++)
            {
              AnotItem *it = anot_dataset_get_item (ds, i);
              const char *raw = anot_item_get_attribute (it, "Alcohol");
              gboolean is_null = raw == NULL || strcmp (raw, "None") == 0 || strcmp (raw, "u'none'") == 0;
              AnotTruth truth = anot_validator_evaluate_condition (validator, leaf, it);

              g_assert_cmpint (truth, ==, is_null ? ANOT_TRUTH_UNKNOWN : ANOT_TRUTH_FALSE);
              if (truth == ANOT_TRUTH_UNKNOWN)
                zeros++;
              else
                falses++;
            }
          g_assert_cmpuint (zeros, ==, 30);
          g_assert_cmpuint (falses, ==, 20);
        }
    }

  g_assert_cmpuint (n_leaves, ==, 16);
  {
    static const char *const expected[] = {
      "R44", "R47", "R48", "R51", "R56", "R58", "R59", "R62", "R63", "R65",
      "R66", "R67", "R69", "R70", "R71", "R76",
    };

    g_assert_cmpuint (requests_with_it->len, ==, G_N_ELEMENTS (expected));
    for (guint i = 0; i < G_N_ELEMENTS (expected); i++)
      g_assert_cmpstr (g_ptr_array_index (requests_with_it, i), ==, expected[i]);
  }
}

/* §6.2: the required range 22:0-1:0 is not moved past midnight. */
static void
test_philly_r26_friday_late (void)
{
  AnotDataset *ds = anot_test_get_philly ();
  g_autoptr(AnotValidator) validator = NULL;
  AnotCondition *leaf;

  if (ds == NULL)
    return;
  validator = anot_validator_new (ds);
  leaf = find_leaf (request (ds, "R26"), "friday_late");
  g_assert_cmpstr (json_object_get_string_member (anot_condition_get_evidence (leaf), "true"), ==, "22:0-1:0");

  for (guint i = 0; i < anot_dataset_get_n_items (ds); i++)
    g_assert_cmpint (anot_validator_evaluate_condition (validator, leaf, item (ds, i)), ==, 1);
}

/* §6.1: 'none' and u'none' differ, and R100's gold depends on it. */
static void
test_philly_r100_none (void)
{
  AnotDataset *ds = anot_test_get_philly ();
  g_autoptr(AnotValidator) validator = NULL;
  AnotCondition *leaf;
  guint plain = 0, prefixed = 0;

  if (ds == NULL)
    return;
  validator = anot_validator_new (ds);
  leaf = find_leaf (request (ds, "R100"), "no_alcohol");

  for (guint i = 0; i < anot_dataset_get_n_items (ds); i++)
    {
      AnotItem *it = item (ds, i);
      const char *raw = anot_item_get_attribute (it, "Alcohol");
      AnotTruth truth = anot_validator_evaluate_condition (validator, leaf, it);

      if (g_strcmp0 (raw, "'none'") == 0)
        {
          plain++;
          g_assert_cmpint (truth, ==, 1);
        }
      else if (g_strcmp0 (raw, "u'none'") == 0)
        {
          prefixed++;
          g_assert_cmpint (truth, ==, 0);
        }
      else if (raw == NULL || strcmp (raw, "None") == 0)
        g_assert_cmpint (truth, ==, 0);
      else
        g_assert_cmpint (truth, ==, -1);
    }

  g_assert_cmpuint (plain, ==, 9);
  g_assert_cmpuint (prefixed, ==, 27);
}

static void
test_philly_truth_matrix (void)
{
  AnotDataset *ds = anot_test_get_philly ();
  g_autoptr(AnotValidator) validator = NULL;
  g_autoptr(JsonNode) matrix = NULL;
  JsonObject *root, *requests, *r01, *r44, *cell;

  if (ds == NULL)
    return;
  validator = anot_validator_new (ds);
  matrix = anot_validator_truth_matrix (validator);

  root = json_node_get_object (matrix);
  g_assert_cmpstr (json_object_get_string_member (root, "dataset"), ==, anot_dataset_get_name (ds));
  requests = json_object_get_object_member (root, "requests");
  g_assert_cmpuint (json_object_get_size (requests), ==, 100);

  r01 = json_object_get_object_member (requests, "R01");
  g_assert_cmpstr (json_object_get_string_member (r01, "gold"), ==, "e-ZyZc24wgkKafM3pguR2w");
  g_assert_cmpint (json_object_get_int_member (r01, "gold_idx"), ==, 0);
  g_assert_cmpstr (json_object_get_string_member (r01, "status"), ==, "ok");
  g_assert_cmpint (json_object_get_int_member (r01, "n_matches"), ==, 1);
  g_assert_cmpuint (json_object_get_size (json_object_get_object_member (r01, "items")), ==, 50);
  cell = json_object_get_object_member (json_object_get_object_member (r01, "items"), anot_item_get_id (item (ds, 2)));
  g_assert_cmpint (json_object_get_int_member (cell, "result"), ==, 0);
  g_assert_cmpint (json_object_get_int_member (json_object_get_object_member (cell, "leaves"), "drive_thru"), ==, 0);
  g_assert_cmpint (json_object_get_int_member (json_object_get_object_member (cell, "leaves"), "no_tv"), ==, 1);

  r44 = json_object_get_object_member (requests, "R44");
  cell = json_object_get_object_member (json_object_get_object_member (r44, "items"), anot_item_get_id (item (ds, 0)));
  g_assert_cmpint (json_object_get_int_member (json_object_get_object_member (cell, "leaves"), "Alcohol"), ==, 0);

  /* Every status is ok. */
  for (guint r = 0; r < anot_dataset_get_n_requests (ds); r++)
    {
      JsonObject *entry = json_object_get_object_member (requests,
                                                         anot_request_get_id (anot_dataset_get_request (ds, r)));

      g_assert_cmpstr (json_object_get_string_member (entry, "status"), ==, "ok");
    }
}

/* A second validator, and items evaluated in any order, give the same
 * answers: the caches do not leak state between requests. */
static void
test_philly_caches (void)
{
  AnotDataset *ds = anot_test_get_philly ();
  g_autoptr(AnotValidator) a = NULL;
  g_autoptr(AnotValidator) b = NULL;

  if (ds == NULL)
    return;
  a = anot_validator_new (ds);
  b = anot_validator_new (ds);

  for (guint r = anot_dataset_get_n_requests (ds); r-- > 0;)
    for (guint i = 0; i < anot_dataset_get_n_items (ds); i += 3)
      {
        AnotRequest *req = anot_dataset_get_request (ds, r);
        AnotItem *it = anot_dataset_get_item (ds, (i * 7 + r) % anot_dataset_get_n_items (ds));

        g_assert_cmpint (anot_validator_evaluate (a, req, it), ==, anot_validator_evaluate (b, req, it));
      }

  /* A validator outliving a condition it compiled, and the other way
   * round, is fine. */
  {
    g_autoptr(AnotCondition) c = condition_from_string ("{\"op\": \"AND\", \"args\": [{\"aspect\": \"x\", "
                                                        "\"evidence\": {\"path\": [\"attributes\", \"WiFi\"], \"contains\": \"free\"}}]}");
    g_autoptr(AnotValidator) c_validator = anot_validator_new (ds);

    g_assert_cmpint (anot_validator_evaluate_condition (c_validator, c, item (ds, 0)), ==, 1);
    g_assert_cmpint (anot_validator_evaluate_condition (a, c, item (ds, 0)), ==, 1);
    g_clear_object (&c_validator);
    g_clear_object (&c);
  }
  g_assert_cmpint (anot_validator_evaluate (a, request (ds, "R01"), item (ds, 0)), ==, 1);
}

/* ------------------------------------------------------------------------ *
 * The demo benchmark
 * ------------------------------------------------------------------------ */

static void
test_demo_all_ok (void)
{
  const char *data_dir = g_getenv ("ANOT_DATA_DIR");
  g_autofree char *demo = NULL;
  g_autofree char *probe = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(AnotDataset) ds = NULL;
  g_autoptr(AnotValidator) validator = NULL;

  if (data_dir != NULL)
    {
      demo = g_build_filename (data_dir, "demo", NULL);
      probe = g_build_filename (demo, "requests.jsonl", NULL);
    }
  if (probe == NULL || !g_file_test (probe, G_FILE_TEST_EXISTS))
    {
      g_test_skip ("the demo benchmark ($ANOT_DATA_DIR/demo) does not exist yet");
      return;
    }

  ds = anot_dataset_load (demo, NULL, &error);
  g_assert_no_error (error);
  validator = anot_validator_new (ds);
  g_assert_cmpuint (anot_dataset_get_n_requests (ds), >, 0);

  for (guint r = 0; r < anot_dataset_get_n_requests (ds); r++)
    {
      AnotRequest *req = anot_dataset_get_request (ds, r);
      guint n_matches;
      AnotGoldStatus status = anot_validator_check_request (validator, req, &n_matches);

      if (status != ANOT_GOLD_STATUS_OK)
        g_error ("demo %s: %s (%u matches)", anot_request_get_id (req),
                 anot_gold_status_to_string (status), n_matches);
    }
}

/* ------------------------------------------------------------------------ *
 * A small hand-built benchmark for the rules the real data does not use
 * ------------------------------------------------------------------------ */

static const char small_restaurants[] =
  "{\"business_id\": \"A\", \"name\": \"Alpha\", \"categories\": \"Coffee & Tea, Wine Bars\", "
  "\"attributes\": {\"WiFi\": \"u'free'\", \"HasTV\": \"True\", \"Noise\": \"'very_loud'\", "
  "\"Parking\": \"{'garage': False, 'street': True}\", \"AllFalse\": \"{'a': False, 'b': False}\", "
  "\"Mixed\": \"{'a': True, 'b': 'x'}\", \"Empty\": \"{}\", \"Nothing\": \"None\"}, "
  "\"hours\": {\"Monday\": \"8:0-15:0\", \"Wednesday\": \"\", \"Saturday\": \"22:0-2:0\"}}\n"
  "{\"business_id\": \"B\", \"name\": \"Beta\", \"categories\": \"Bakeries\", "
  "\"attributes\": {\"WiFi\": \"'no'\"}, \"hours\": {\"Monday\": \"0:0-0:0\", \"Tuesday\": \"0:0-24:0\"}}\n"
  "{\"business_id\": \"C\", \"name\": \"Gamma\", \"categories\": \"Cafes\", "
  "\"attributes\": {\"WiFi\": \"u'paid'\"}, \"hours\": {}}\n";

/* All reviews are Alpha's.  r2 has no date and no user object. */
static const char small_reviews[] =
  "{\"review_id\": \"r0\", \"business_id\": \"A\", \"stars\": 5.0, \"text\": \"great latte\", "
  "\"date\": \"2021-03-01 10:00:00\", \"user\": {\"average_stars\": 4.5, \"review_count\": 10}}\n"
  "{\"review_id\": \"r1\", \"business_id\": \"A\", \"stars\": 2.0, \"text\": \"meh latte\", "
  "\"date\": \"2019-05-01 10:00:00\", \"user\": {\"average_stars\": 3.0}}\n"
  "{\"review_id\": \"r2\", \"business_id\": \"A\", \"stars\": 1.0, \"text\": \"bad\"}\n"
  "{\"review_id\": \"r3\", \"business_id\": \"A\", \"stars\": 4.0, \"text\": \"ok\", "
  "\"date\": \"2020-01-01 00:00:00\", \"user\": {\"average_stars\": 2.0}}\n";

/* Dan lists Eve but Eve lists nobody: REV_QUALIFIES(Dan, [Eve]) holds while
 * Dan is not in NET_FWD([Eve]). */
static const char small_user_mapping[] =
  "{\"friend_graph\": {\"Ann\": [\"Ben\"], \"Ben\": [\"Ann\", \"Cat\"], \"Cat\": [\"Ben\"], "
  "\"Dan\": [\"Eve\"], \"Eve\": []}, "
  "\"review_assignments\": {\"0\": [{\"review_idx\": 0, \"name\": \"Ann\"}, {\"review_idx\": 1, \"name\": \"Ben\"}, "
  "{\"review_idx\": 2, \"name\": \"Cat\"}, {\"review_idx\": 3, \"name\": \"Dan\"}]}}\n";

static const char small_judgements[] =
  "{\"r0:latte\": {\"review_id\": \"r0\", \"business_id\": \"A\", \"aspect\": \"latte\", \"judgement\": \"positive\"}, "
  "\"r1:latte\": {\"review_id\": \"r1\", \"business_id\": \"A\", \"aspect\": \"latte\", \"judgement\": \"negative\"}, "
  "\"r2:latte\": {\"review_id\": \"r2\", \"business_id\": \"A\", \"aspect\": \"latte\", \"judgement\": \"neutral\"}, "
  "\"r3:latte\": {\"review_id\": \"r3\", \"business_id\": \"A\", \"aspect\": \"latte\", \"judgement\": \"positive\"}}\n";

#define LEAF_WIFI_FREE "{\"aspect\": \"wifi_free\", \"evidence\": {\"kind\": \"item_meta\", \"path\": [\"attributes\", \"WiFi\"], \"true\": \"u'free'\"}}"
#define LEAF_WIFI_PAID "{\"aspect\": \"wifi_paid\", \"evidence\": {\"kind\": \"item_meta\", \"path\": [\"attributes\", \"WiFi\"], \"true\": \"u'paid'\"}}"
#define LEAF_WIFI_NONE "{\"aspect\": \"wifi_none\", \"evidence\": {\"kind\": \"item_meta\", \"path\": [\"attributes\", \"WiFi\"], \"true\": \"u'none'\"}}"

/* One request per gold status, and one whose structure is a bare leaf. */
static const char small_requests[] =
  "{\"id\": \"Q1\", \"group\": \"G01\", \"text\": \"free wifi\", \"gold_restaurant\": \"A\", "
  "\"structure\": {\"op\": \"AND\", \"args\": [" LEAF_WIFI_FREE "]}}\n"
  "{\"id\": \"Q2\", \"group\": \"G01\", \"text\": \"no wifi at all\", \"gold_restaurant\": \"A\", "
  "\"structure\": {\"op\": \"AND\", \"args\": [" LEAF_WIFI_NONE "]}}\n"
  "{\"id\": \"Q3\", \"group\": \"G01\", \"text\": \"free wifi\", \"gold_restaurant\": \"B\", "
  "\"structure\": {\"op\": \"AND\", \"args\": [" LEAF_WIFI_FREE "]}}\n"
  "{\"id\": \"Q4\", \"group\": \"G02\", \"text\": \"any wifi\", \"gold_restaurant\": \"A\", "
  "\"structure\": {\"op\": \"OR\", \"args\": [" LEAF_WIFI_FREE ", " LEAF_WIFI_PAID "]}}\n"
  "{\"id\": \"Q5\", \"group\": \"G02\", \"text\": \"any wifi\", \"gold_restaurant\": \"B\", "
  "\"structure\": {\"op\": \"OR\", \"args\": [" LEAF_WIFI_FREE ", " LEAF_WIFI_PAID "]}}\n"
  "{\"id\": \"Q6\", \"group\": \"G02\", \"text\": \"free wifi, bare leaf\", \"gold_restaurant\": \"A\", "
  "\"structure\": " LEAF_WIFI_FREE "}\n";

typedef struct
{
  char *dir;
  AnotDataset *ds;
  AnotValidator *validator;
} Small;

static void
write_file (const char *dir,
            const char *name,
            const char *contents)
{
  g_autofree char *path = g_build_filename (dir, name, NULL);
  g_autoptr(GError) error = NULL;

  g_file_set_contents (path, contents, -1, &error);
  g_assert_no_error (error);
}

static void
small_setup (Small         *fixture,
             gconstpointer  data)
{
  g_autoptr(GError) error = NULL;

  fixture->dir = g_dir_make_tmp ("anot-validator-XXXXXX", &error);
  g_assert_no_error (error);
  write_file (fixture->dir, "restaurants.jsonl", small_restaurants);
  write_file (fixture->dir, "reviews.jsonl", small_reviews);
  write_file (fixture->dir, "user_mapping.json", small_user_mapping);
  write_file (fixture->dir, "judgement_cache.json", small_judgements);
  write_file (fixture->dir, "requests.jsonl", small_requests);

  fixture->ds = anot_dataset_load (fixture->dir, NULL, &error);
  g_assert_no_error (error);
  fixture->validator = anot_validator_new (fixture->ds);
}

static void
small_teardown (Small         *fixture,
                gconstpointer  data)
{
  static const char *const files[] = {
    "restaurants.jsonl", "reviews.jsonl", "user_mapping.json", "judgement_cache.json", "requests.jsonl",
  };

  g_clear_object (&fixture->validator);
  g_clear_object (&fixture->ds);
  for (guint i = 0; i < G_N_ELEMENTS (files); i++)
    {
      g_autofree char *path = g_build_filename (fixture->dir, files[i], NULL);

      g_unlink (path);
    }
  g_rmdir (fixture->dir);
  g_free (fixture->dir);
}

/* The truth of a leaf or group, given as JSON, on item @index. */
static AnotTruth
eval_json (Small      *fixture,
           const char *json,
           guint       index)
{
  g_autoptr(AnotCondition) condition = condition_from_string (json);

  return anot_validator_evaluate_condition (fixture->validator, condition,
                                            anot_dataset_get_item (fixture->ds, index));
}

/* An item_meta leaf with the given evidence members after the path. */
static AnotTruth
eval_meta (Small      *fixture,
           const char *path,
           const char *matchers,
           guint       index)
{
  g_autofree char *json = g_strdup_printf ("{\"aspect\": \"x\", \"evidence\": {\"kind\": \"item_meta\", "
                                           "\"path\": %s%s%s}}",
                                           path, matchers[0] != '\0' ? ", " : "", matchers);

  return eval_json (fixture, json, index);
}

static void
test_small_item_meta (Small         *fixture,
                      gconstpointer  data)
{
  /* Dict of booleans: true if any is, before any matcher; not for dicts
   * with other values or empty dicts. */
  g_assert_cmpint (eval_meta (fixture, "[\"attributes\", \"Parking\"]", "", 0), ==, 1);
  g_assert_cmpint (eval_meta (fixture, "[\"attributes\", \"AllFalse\"]", "", 0), ==, -1);
  g_assert_cmpint (eval_meta (fixture, "[\"attributes\", \"AllFalse\"]", "\"true\": \"False\"", 0), ==, -1);
  g_assert_cmpint (eval_meta (fixture, "[\"attributes\", \"Mixed\"]", "", 0), ==, 0);
  g_assert_cmpint (eval_meta (fixture, "[\"attributes\", \"Empty\"]", "", 0), ==, 0);
  /* No matcher on a boolean. */
  g_assert_cmpint (eval_meta (fixture, "[\"attributes\", \"HasTV\"]", "", 0), ==, 1);
  /* Into a parsed dict. */
  g_assert_cmpint (eval_meta (fixture, "[\"attributes\", \"Parking\", \"street\"]", "\"true\": \"True\"", 0), ==, 1);
  g_assert_cmpint (eval_meta (fixture, "[\"attributes\", \"Parking\", \"valet\"]", "\"true\": \"True\"", 0), ==, 0);
  g_assert_cmpint (eval_meta (fixture, "[\"attributes\", \"WiFi\", \"x\"]", "\"true\": \"True\"", 0), ==, 0);

  /* Only false: -1 on a match, 1 otherwise. */
  g_assert_cmpint (eval_meta (fixture, "[\"attributes\", \"WiFi\"]", "\"false\": \"u'free'\"", 0), ==, -1);
  g_assert_cmpint (eval_meta (fixture, "[\"attributes\", \"WiFi\"]", "\"false\": \"u'paid'\"", 0), ==, 1);
  /* Several matchers: true, then false, then neutral, else unknown. */
  g_assert_cmpint (eval_meta (fixture, "[\"attributes\", \"WiFi\"]", "\"true\": \"u'paid'\", \"false\": \"u'free'\"", 0), ==, -1);
  g_assert_cmpint (eval_meta (fixture, "[\"attributes\", \"WiFi\"]", "\"true\": \"'free'\", \"false\": \"u'free'\"", 0), ==, 1);
  g_assert_cmpint (eval_meta (fixture, "[\"attributes\", \"WiFi\"]", "\"true\": \"x\", \"neutral\": \"u'free'\"", 0), ==, 0);
  g_assert_cmpint (eval_meta (fixture, "[\"attributes\", \"WiFi\"]", "\"true\": \"x\", \"false\": \"y\"", 0), ==, 0);
  /* A JSON null matcher counts as absent. */
  g_assert_cmpint (eval_meta (fixture, "[\"attributes\", \"WiFi\"]", "\"true\": null, \"false\": \"u'paid'\"", 0), ==, 1);

  /* EQ: case-insensitive, then the substring fallback ("loud" is in
   * "very_loud"); a JSON boolean compares with ==; a list is any-of. */
  g_assert_cmpint (eval_meta (fixture, "[\"attributes\", \"WiFi\"]", "\"true\": \"FREE\"", 0), ==, 1);
  g_assert_cmpint (eval_meta (fixture, "[\"attributes\", \"Noise\"]", "\"true\": \"u'loud'\"", 0), ==, 1);
  g_assert_cmpint (eval_meta (fixture, "[\"attributes\", \"Noise\"]", "\"true\": \"u'quiet'\"", 0), ==, -1);
  g_assert_cmpint (eval_meta (fixture, "[\"attributes\", \"HasTV\"]", "\"true\": true", 0), ==, 1);
  g_assert_cmpint (eval_meta (fixture, "[\"attributes\", \"WiFi\"]", "\"true\": true", 0), ==, -1);
  g_assert_cmpint (eval_meta (fixture, "[\"attributes\", \"WiFi\"]", "\"true\": [\"u'paid'\", \"u'free'\"]", 0), ==, 1);

  /* not_contains: a missing value passes. */
  g_assert_cmpint (eval_meta (fixture, "[\"categories\"]", "\"not_contains\": \"wine\"", 0), ==, -1);
  g_assert_cmpint (eval_meta (fixture, "[\"categories\"]", "\"not_contains\": \"Tapas\"", 0), ==, 1);
  g_assert_cmpint (eval_meta (fixture, "[\"attributes\", \"Nope\"]", "\"not_contains\": \"none\"", 0), ==, 1);
  /* contains runs before the missing rule: a missing value reads "none". */
  g_assert_cmpint (eval_meta (fixture, "[\"attributes\", \"Nope\"]", "\"contains\": \"none\"", 0), ==, 1);
  g_assert_cmpint (eval_meta (fixture, "[\"attributes\", \"Nothing\"]", "\"contains\": \"NONE\"", 0), ==, 1);
  g_assert_cmpint (eval_meta (fixture, "[\"attributes\", \"Nope\"]", "\"contains\": \"free\"", 0), ==, -1);
  /* The canonical text of a list spans elements. */
  g_assert_cmpint (eval_meta (fixture, "[\"categories\"]", "\"contains\": \"tea', 'wine\"", 0), ==, 1);
  g_assert_cmpint (eval_meta (fixture, "[\"attributes\", \"Parking\"]", "\"contains\": \"'street': true\"", 0), ==, 1);
  /* not_contains wins over contains. */
  g_assert_cmpint (eval_meta (fixture, "[\"categories\"]", "\"contains\": \"wine\", \"not_contains\": \"wine\"", 0), ==, -1);

  /* not_true (and its alias true_not): a missing value passes. */
  g_assert_cmpint (eval_meta (fixture, "[\"attributes\", \"Nope\"]", "\"not_true\": \"True\"", 0), ==, 1);
  g_assert_cmpint (eval_meta (fixture, "[\"attributes\", \"WiFi\"]", "\"not_true\": \"u'free'\"", 0), ==, -1);
  g_assert_cmpint (eval_meta (fixture, "[\"attributes\", \"WiFi\"]", "\"not_true\": \"u'paid'\"", 0), ==, 1);
  g_assert_cmpint (eval_meta (fixture, "[\"attributes\", \"WiFi\"]", "\"true_not\": \"u'free'\"", 0), ==, -1);
  g_assert_cmpint (eval_meta (fixture, "[\"attributes\", \"WiFi\"]", "\"not_true\": \"\", \"true\": \"u'free'\"", 0), ==, 1);

  /* The missing field. */
  g_assert_cmpint (eval_meta (fixture, "[\"attributes\", \"Nope\"]", "\"true\": \"True\"", 0), ==, 0);
  g_assert_cmpint (eval_meta (fixture, "[\"attributes\", \"Nope\"]", "\"true\": \"True\", \"missing\": -1", 0), ==, -1);
  g_assert_cmpint (eval_meta (fixture, "[\"attributes\", \"Nope\"]", "\"true\": \"True\", \"missing\": 1", 0), ==, 1);
  g_assert_cmpint (eval_meta (fixture, "[\"attributes\", \"Nothing\"]", "\"true\": \"True\", \"missing\": -1", 0), ==, -1);
  /* op/value are ignored. */
  g_assert_cmpint (eval_meta (fixture, "[\"attributes\", \"HasTV\"]", "\"op\": \"true\", \"value\": \"False\", \"true\": \"True\"", 0), ==, 1);
}

static AnotTruth
eval_hours (Small      *fixture,
            const char *day,
            const char *required,
            const char *extra,
            guint       index)
{
  g_autofree char *json = g_strdup_printf ("{\"aspect\": \"h\", \"evidence\": {\"kind\": \"item_meta_hours\", "
                                           "\"path\": [\"hours\", \"%s\"], \"true\": \"%s\"%s}}",
                                           day, required, extra);

  return eval_json (fixture, json, index);
}

static void
test_small_hours (Small         *fixture,
                  gconstpointer  data)
{
  g_assert_cmpint (eval_hours (fixture, "Monday", "9:0-10:0", "", 0), ==, 1);
  g_assert_cmpint (eval_hours (fixture, "Monday", "8:0-15:0", "", 0), ==, 1);
  g_assert_cmpint (eval_hours (fixture, "Monday", "7:0-8:0", "", 0), ==, -1);
  /* Unparsable item hours and required ranges are refused when loading
   * (test-dataset); "0:0-24:0" is a day open around the clock. */
  g_assert_cmpint (eval_hours (fixture, "Tuesday", "9:0-10:0", "", 1), ==, 1);
  g_assert_cmpint (eval_hours (fixture, "Tuesday", "0:0-24:0", "", 1), ==, 1);
  g_assert_cmpint (eval_hours (fixture, "Tuesday", "22:0-1:0", "", 1), ==, 1);
  g_assert_cmpint (eval_hours (fixture, "Monday", "0:0-24:0", "", 0), ==, -1);
  /* Empty or absent day: the missing field, default unknown. */
  g_assert_cmpint (eval_hours (fixture, "Wednesday", "9:0-10:0", "", 0), ==, 0);
  g_assert_cmpint (eval_hours (fixture, "Sunday", "9:0-10:0", "", 0), ==, 0);
  g_assert_cmpint (eval_hours (fixture, "Sunday", "9:0-10:0", ", \"missing\": -1", 0), ==, -1);
  g_assert_cmpint (eval_hours (fixture, "Wednesday", "9:0-10:0", ", \"missing\": 1", 0), ==, 1);
  g_assert_cmpint (eval_hours (fixture, "Monday", "9:0-10:0", "", 2), ==, 0);
  /* The item's range wraps past midnight, the required one does not. */
  g_assert_cmpint (eval_hours (fixture, "Saturday", "23:0-1:30", "", 0), ==, 1);
  g_assert_cmpint (eval_hours (fixture, "Saturday", "21:0-23:0", "", 0), ==, -1);
  g_assert_cmpint (eval_hours (fixture, "Saturday", "23:0-2:30", "", 0), ==, 1);
  g_assert_cmpint (eval_hours (fixture, "Saturday", "23:0-23:30", "", 0), ==, 1);
  /* 0:0-0:0 is the range [0, 0]. */
  g_assert_cmpint (eval_hours (fixture, "Monday", "7:0-8:0", "", 1), ==, -1);
  g_assert_cmpint (eval_hours (fixture, "Monday", "0:0-0:0", "", 1), ==, 1);
}

#define AND_OF(a, b) "{\"op\": \"AND\", \"args\": [" a ", " b "]}"
#define OR_OF(a, b) "{\"op\": \"OR\", \"args\": [" a ", " b "]}"
/* Leaves that are 1, -1 and 0 on item 0. */
#define T LEAF_WIFI_FREE
#define F LEAF_WIFI_PAID
#define U "{\"aspect\": \"u\", \"evidence\": {\"path\": [\"attributes\", \"Nope\"], \"true\": \"True\"}}"

static void
test_small_logic (Small         *fixture,
                  gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) node = NULL;
  g_autoptr(AnotCondition) unknown_op = NULL;
  g_autoptr(AnotCondition) unknown_kind = NULL;

  g_assert_cmpint (eval_json (fixture, T, 0), ==, 1);
  g_assert_cmpint (eval_json (fixture, F, 0), ==, -1);
  g_assert_cmpint (eval_json (fixture, U, 0), ==, 0);

  g_assert_cmpint (eval_json (fixture, AND_OF (T, U), 0), ==, 0);
  g_assert_cmpint (eval_json (fixture, AND_OF (U, F), 0), ==, -1);
  g_assert_cmpint (eval_json (fixture, AND_OF (T, T), 0), ==, 1);
  g_assert_cmpint (eval_json (fixture, OR_OF (F, U), 0), ==, 0);
  g_assert_cmpint (eval_json (fixture, OR_OF (U, T), 0), ==, 1);
  g_assert_cmpint (eval_json (fixture, OR_OF (F, F), 0), ==, -1);
  g_assert_cmpint (eval_json (fixture, AND_OF (OR_OF (F, U), AND_OF (T, T)), 0), ==, 0);

  /* NOT with one child inverts; with any other number it is unknown. */
  g_assert_cmpint (eval_json (fixture, "{\"op\": \"NOT\", \"args\": [" T "]}", 0), ==, -1);
  g_assert_cmpint (eval_json (fixture, "{\"op\": \"NOT\", \"args\": [" F "]}", 0), ==, 1);
  g_assert_cmpint (eval_json (fixture, "{\"op\": \"NOT\", \"args\": [" U "]}", 0), ==, 0);
  g_assert_cmpint (eval_json (fixture, "{\"op\": \"NOT\", \"args\": [" T ", " T "]}", 0), ==, 0);
  g_assert_cmpint (eval_json (fixture, "{\"op\": \"NOT\", \"args\": []}", 0), ==, 0);
  g_assert_cmpint (eval_json (fixture, "{\"op\": \"NOT\", \"args\": [" AND_OF (F, T) "]}", 0), ==, 1);

  /* Empty args, or none at all, are unknown. */
  g_assert_cmpint (eval_json (fixture, "{\"op\": \"AND\", \"args\": []}", 0), ==, 0);
  g_assert_cmpint (eval_json (fixture, "{\"op\": \"OR\", \"args\": []}", 0), ==, 0);
  g_assert_cmpint (eval_json (fixture, "{\"op\": \"OR\"}", 0), ==, 0);

  /* A root without op is an AND (an OR would give 1 here). */
  g_assert_cmpint (eval_json (fixture, "{\"args\": [" T ", " F "]}", 0), ==, -1);

  /* Any op other than AND and NOT is an OR (§4), and an unknown evidence
   * kind is unknown (§3).  The condition parser may refuse both. */
  node = json_from_string ("{\"op\": \"XOR\", \"args\": [" F ", " T "]}", NULL);
  unknown_op = anot_condition_new_from_json (node, &error);
  if (unknown_op != NULL)
    g_assert_cmpint (anot_validator_evaluate_condition (fixture->validator, unknown_op,
                                                        anot_dataset_get_item (fixture->ds, 0)), ==, 1);
  else
    {
      g_assert_error (error, ANOT_ERROR, ANOT_ERROR_INVALID_FIELD);
      g_test_message ("the condition parser refuses the op “XOR”: %s", error->message);
      g_clear_error (&error);
    }

  g_clear_pointer (&node, json_node_unref);
  node = json_from_string ("{\"aspect\": \"k\", \"evidence\": {\"kind\": \"crystal_ball\"}}", NULL);
  unknown_kind = anot_condition_new_from_json (node, &error);
  if (unknown_kind != NULL)
    g_assert_cmpint (anot_validator_evaluate_condition (fixture->validator, unknown_kind,
                                                        anot_dataset_get_item (fixture->ds, 0)), ==, 0);
  else
    {
      g_assert_error (error, ANOT_ERROR, ANOT_ERROR_INVALID_FIELD);
      g_test_message ("the condition parser refuses the kind “crystal_ball”: %s", error->message);
    }

  if (unknown_op == NULL || unknown_kind == NULL)
    g_test_skip ("unknown ops and evidence kinds are refused when conditions are parsed, "
                 "so the validator's OR / unknown fallbacks for them cannot be reached");
}

static void
test_small_statuses (Small         *fixture,
                     gconstpointer  data)
{
  static const struct {
    const char *id;
    AnotGoldStatus status;
    guint n_matches;
  } cases[] = {
    { "Q1", ANOT_GOLD_STATUS_OK, 1 },
    { "Q2", ANOT_GOLD_STATUS_NO_MATCH, 0 },
    { "Q3", ANOT_GOLD_STATUS_GOLD_NOT_MATCH, 1 },
    { "Q4", ANOT_GOLD_STATUS_MULTI_MATCH, 2 },
    { "Q5", ANOT_GOLD_STATUS_MULTI_MATCH_NO_GOLD, 2 },
    { "Q6", ANOT_GOLD_STATUS_NO_MATCH, 0 },
  };
  AnotRequest *q6;
  AnotItem *alpha;
  g_autoptr(GPtrArray) all = g_ptr_array_new ();
  g_autoptr(GArray) statuses = NULL;
  g_autoptr(GArray) n_all = NULL;

  /* Every request at once, item by item: the same statuses and counts,
   * and no evaluation view left on any item (first, while the fixture's
   * items have none). */
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    g_ptr_array_add (all, request (fixture->ds, cases[i].id));
  statuses = anot_validator_check_requests (fixture->validator, all, &n_all);
  g_assert_cmpuint (statuses->len, ==, G_N_ELEMENTS (cases));
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_assert_cmpstr (anot_gold_status_to_string (g_array_index (statuses, AnotGoldStatus, i)), ==,
                       anot_gold_status_to_string (cases[i].status));
      g_assert_cmpuint (g_array_index (n_all, guint, i), ==, cases[i].n_matches);
    }
  for (guint i = 0; i < anot_dataset_get_n_items (fixture->ds); i++)
    g_assert_null (g_object_get_data (G_OBJECT (anot_dataset_get_item (fixture->ds, i)),
                                      "anot-validator-item-view"));

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      guint n_matches = 42;
      AnotGoldStatus status = anot_validator_check_request (fixture->validator,
                                                            request (fixture->ds, cases[i].id),
                                                            &n_matches);

      g_assert_cmpstr (anot_gold_status_to_string (status), ==, anot_gold_status_to_string (cases[i].status));
      g_assert_cmpuint (n_matches, ==, cases[i].n_matches);
    }

  g_assert_cmpstr (anot_gold_status_to_string (ANOT_GOLD_STATUS_OK), ==, "ok");
  g_assert_cmpstr (anot_gold_status_to_string (ANOT_GOLD_STATUS_NO_MATCH), ==, "no_match");
  g_assert_cmpstr (anot_gold_status_to_string (ANOT_GOLD_STATUS_GOLD_NOT_MATCH), ==, "gold_not_match");
  g_assert_cmpstr (anot_gold_status_to_string (ANOT_GOLD_STATUS_MULTI_MATCH), ==, "multi_match");
  g_assert_cmpstr (anot_gold_status_to_string (ANOT_GOLD_STATUS_MULTI_MATCH_NO_GOLD), ==, "multi_match_no_gold");

  /* A bare leaf as the structure is an AND of no args for the request, but
   * the leaf itself is true. */
  q6 = request (fixture->ds, "Q6");
  alpha = anot_dataset_get_item (fixture->ds, 0);
  g_assert_cmpint (anot_condition_get_op (anot_request_get_structure (q6)), ==, ANOT_CONDITION_OP_LEAF);
  g_assert_cmpint (anot_validator_evaluate (fixture->validator, q6, alpha), ==, 0);
  g_assert_cmpint (anot_validator_evaluate_condition (fixture->validator, anot_request_get_structure (q6), alpha), ==, 1);
  {
    g_autoptr(AnotVerdict) verdict = anot_validator_explain (fixture->validator, q6, alpha);
    g_autoptr(JsonNode) json = anot_verdict_to_json (verdict);
    g_autofree char *text = json_to_string (json, FALSE);

    g_assert_cmpint (anot_verdict_get_truth (verdict), ==, 0);
    g_assert_cmpuint (anot_verdict_get_n_leaves (verdict), ==, 1);
    g_assert_cmpint (anot_verdict_get_leaf_truth (verdict, 0), ==, 1);
    g_assert_false (anot_verdict_lookup_leaf (verdict, "nope", NULL));
    g_assert_cmpstr (text, ==,
                     "{\"request_id\":\"Q6\",\"item_id\":\"A\",\"result\":0,"
                     "\"leaves\":[{\"aspect\":\"wifi_free\",\"kind\":\"item_meta\",\"result\":1}]}");
  }

  /* The matches of an OR, in dataset order. */
  {
    g_autoptr(GPtrArray) matches = anot_validator_find_matches (fixture->validator, request (fixture->ds, "Q4"));

    g_assert_cmpuint (matches->len, ==, 2);
    g_assert_cmpstr (anot_item_get_id (g_ptr_array_index (matches, 0)), ==, "A");
    g_assert_cmpstr (anot_item_get_id (g_ptr_array_index (matches, 1)), ==, "C");
  }

  /* The matrix's statuses agree. */
  {
    g_autoptr(JsonNode) matrix = anot_validator_truth_matrix (fixture->validator);
    JsonObject *requests = json_object_get_object_member (json_node_get_object (matrix), "requests");
    JsonObject *q3 = json_object_get_object_member (requests, "Q3");

    g_assert_cmpstr (json_object_get_string_member (q3, "status"), ==, "gold_not_match");
    g_assert_cmpint (json_object_get_int_member (q3, "gold_idx"), ==, 1);
    g_assert_cmpstr (json_object_get_string_member (json_object_get_object_member (requests, "Q5"), "status"),
                     ==, "multi_match_no_gold");
  }
}

static AnotTruth
eval_review_leaf (Small      *fixture,
                  const char *kind,
                  const char *members,
                  guint       index)
{
  g_autofree char *json = g_strdup_printf ("{\"aspect\": \"r\", \"evidence\": {\"kind\": \"%s\"%s%s}}",
                                           kind, members[0] != '\0' ? ", " : "", members);

  return eval_json (fixture, json, index);
}

static void
test_small_reviews (Small         *fixture,
                    gconstpointer  data)
{
  AnotDataset *ds = fixture->ds;

  /* The data as loaded. */
  g_assert_cmpuint (anot_item_get_n_reviews (anot_dataset_get_item (ds, 0)), ==, 4);
  g_assert_cmpstr (anot_review_get_reviewer_name (anot_item_get_review (anot_dataset_get_item (ds, 0), 3)), ==, "Dan");
  g_assert_false (anot_review_has_user_average_stars (anot_item_get_review (anot_dataset_get_item (ds, 0), 2)));

  /* review_text, plain: positive judgement anywhere; no reviews: unknown. */
  g_assert_cmpint (eval_review_leaf (fixture, "review_text", "\"pattern\": \"latte\"", 0), ==, 1);
  g_assert_cmpint (eval_review_leaf (fixture, "review_text", "\"pattern\": \"mocha\"", 0), ==, -1);
  g_assert_cmpint (eval_review_leaf (fixture, "review_text", "\"pattern\": \"LATTE\"", 0), ==, -1);
  g_assert_cmpint (eval_review_leaf (fixture, "review_text", "\"pattern\": \"latte\"", 1), ==, 0);
  g_assert_cmpint (eval_review_leaf (fixture, "review_text", "\"pattern\": \"\"", 0), ==, -1);

  /* review_text, social: looking from the reviewer (Dan lists Eve). */
  g_assert_cmpint (eval_review_leaf (fixture, "review_text",
                                     "\"pattern\": \"latte\", \"social_filter\": {\"friends\": [\"Eve\"], \"hops\": 1}", 0), ==, 1);
  g_assert_cmpint (eval_review_leaf (fixture, "review_text",
                                     "\"pattern\": \"latte\", \"social_filter\": {\"friends\": [\"Eve\"], \"hops\": 0}", 0), ==, -1);
  g_assert_cmpint (eval_review_leaf (fixture, "review_text",
                                     "\"pattern\": \"latte\", \"social_filter\": {\"friends\": [\"Ann\"], \"hops\": 1}", 1), ==, -1);
  /* min_matches is read inside social_filter only. */
  g_assert_cmpint (eval_review_leaf (fixture, "review_text",
                                     "\"pattern\": \"latte\", \"social_filter\": {\"friends\": [\"Ann\"], \"hops\": 2, \"min_matches\": 2}", 0), ==, -1);
  g_assert_cmpint (eval_review_leaf (fixture, "review_text",
                                     "\"pattern\": \"latte\", \"social_filter\": {\"friends\": [\"Ann\", \"Eve\"], \"hops\": 1, \"min_matches\": 2}", 0), ==, 1);
  g_assert_cmpint (eval_review_leaf (fixture, "review_text",
                                     "\"pattern\": \"latte\", \"min_matches\": 0, \"social_filter\": {\"friends\": [\"Zed\"], \"hops\": 1}", 0), ==, -1);

  /* review_sentiment: NET_FWD, expanding from the anchors. */
  g_assert_cmpint (eval_review_leaf (fixture, "review_sentiment",
                                     "\"topic\": \"latte\", \"sentiment\": \"positive\", \"min_positive\": 1, "
                                     "\"social_filter\": {\"friends\": [\"Eve\"], \"hops\": 1}", 0), ==, -1);
  g_assert_cmpint (eval_review_leaf (fixture, "review_sentiment",
                                     "\"topic\": \"latte\", \"social_filter\": {\"friends\": [\"Dan\"], \"hops\": 1}", 0), ==, 1);
  /* Ben's network {Ben, Ann, Cat}: one positive, one negative. */
  g_assert_cmpint (eval_review_leaf (fixture, "review_sentiment",
                                     "\"topic\": \"latte\", \"social_filter\": {\"friends\": [\"Ben\"], \"hops\": 2}", 0), ==, -1);
  g_assert_cmpint (eval_review_leaf (fixture, "review_sentiment", "\"topic\": \"latte\"", 0), ==, 1);
  g_assert_cmpint (eval_review_leaf (fixture, "review_sentiment", "\"topic\": \"latte\", \"min_positive\": 3", 0), ==, -1);
  g_assert_cmpint (eval_review_leaf (fixture, "review_sentiment",
                                     "\"topic\": \"latte\", \"sentiment\": \"negative\"", 0), ==, 1);
  g_assert_cmpint (eval_review_leaf (fixture, "review_sentiment",
                                     "\"topic\": \"latte\", \"sentiment\": \"negative\", \"min_negative\": 2", 0), ==, -1);
  g_assert_cmpint (eval_review_leaf (fixture, "review_sentiment", "\"topic\": \"\"", 0), ==, -1);
  g_assert_cmpint (eval_review_leaf (fixture, "review_sentiment", "\"topic\": \"latte\"", 1), ==, -1);

  /* social_rating: REV_QUALIFIES; no reviews or no filter: false. */
  g_assert_cmpint (eval_review_leaf (fixture, "social_rating",
                                     "\"min_stars\": 4, \"social_filter\": {\"friends\": [\"Eve\"], \"hops\": 1}", 0), ==, 1);
  g_assert_cmpint (eval_review_leaf (fixture, "social_rating",
                                     "\"min_stars\": 4.5, \"social_filter\": {\"friends\": [\"Eve\"], \"hops\": 1}", 0), ==, -1);
  g_assert_cmpint (eval_review_leaf (fixture, "social_rating",
                                     "\"social_filter\": {\"friends\": [\"Cat\"], \"hops\": 2}", 0), ==, 1);
  g_assert_cmpint (eval_review_leaf (fixture, "social_rating",
                                     "\"social_filter\": {\"friends\": [\"Cat\"], \"hops\": 1}", 0), ==, -1);
  g_assert_cmpint (eval_review_leaf (fixture, "social_rating", "\"min_stars\": 1", 0), ==, -1);
  g_assert_cmpint (eval_review_leaf (fixture, "social_rating", "\"social_filter\": {}", 0), ==, -1);
  g_assert_cmpint (eval_review_leaf (fixture, "social_rating",
                                     "\"social_filter\": {\"friends\": [\"Ann\"], \"hops\": 1}", 1), ==, -1);
}

static void
test_small_group_rating (Small         *fixture,
                         gconstpointer  data)
{
  /* Dates compare as strings; r2 (no date) is skipped: r0 and r3. */
  g_assert_cmpint (eval_review_leaf (fixture, "review_group_rating",
                                     "\"group_filter\": {\"field\": \"date\", \"operator\": \"gte\", \"value\": \"2020-01-01\"}, "
                                     "\"metric\": \"count\", \"threshold\": 2, \"operator\": \"gte\"", 0), ==, 1);
  g_assert_cmpint (eval_review_leaf (fixture, "review_group_rating",
                                     "\"group_filter\": {\"field\": \"date\", \"operator\": \"gte\", \"value\": \"2020-01-01\"}, "
                                     "\"metric\": \"count\", \"threshold\": 3, \"operator\": \"gte\"", 0), ==, -1);
  g_assert_cmpint (eval_review_leaf (fixture, "review_group_rating",
                                     "\"group_filter\": {\"field\": \"date\", \"operator\": \"lt\", \"value\": \"2020-01-01\"}, "
                                     "\"metric\": \"count\", \"threshold\": 1, \"operator\": \"lte\"", 0), ==, 1);
  /* Harsh reviewers, r2 (no user) skipped: (2 + 4) / 2 = 3.0. */
  g_assert_cmpint (eval_review_leaf (fixture, "review_group_rating",
                                     "\"group_filter\": {\"field\": [\"user\", \"average_stars\"], \"operator\": \"lt\", \"value\": 3.5}, "
                                     "\"metric\": \"avg_stars\", \"threshold\": 3.0, \"operator\": \"gte\"", 0), ==, 1);
  g_assert_cmpint (eval_review_leaf (fixture, "review_group_rating",
                                     "\"group_filter\": {\"field\": [\"user\", \"average_stars\"], \"operator\": \"lt\", \"value\": 3.5}, "
                                     "\"metric\": \"avg_stars\", \"threshold\": 3.0, \"operator\": \"gt\"", 0), ==, -1);
  /* A string value against numbers compares as doubles. */
  g_assert_cmpint (eval_review_leaf (fixture, "review_group_rating",
                                     "\"group_filter\": {\"field\": \"stars\", \"operator\": \"gte\", \"value\": \"4\"}, "
                                     "\"metric\": \"count\", \"threshold\": 2, \"operator\": \"gte\"", 0), ==, 1);
  /* A path the validator has no shortcut for: only r0 has a review count. */
  g_assert_cmpint (eval_review_leaf (fixture, "review_group_rating",
                                     "\"group_filter\": {\"field\": [\"user\", \"review_count\"], \"operator\": \"gt\", \"value\": 5}, "
                                     "\"metric\": \"count\", \"threshold\": 1, \"operator\": \"gte\"", 0), ==, 1);
  /* No filter: every review (count 4, mean 3.0); defaults avg_stars / gte 0. */
  g_assert_cmpint (eval_review_leaf (fixture, "review_group_rating",
                                     "\"metric\": \"count\", \"threshold\": 4", 0), ==, 1);
  g_assert_cmpint (eval_review_leaf (fixture, "review_group_rating", "\"threshold\": 3.0", 0), ==, 1);
  g_assert_cmpint (eval_review_leaf (fixture, "review_group_rating", "\"threshold\": 3.01", 0), ==, -1);
  /* An empty group has no average. */
  g_assert_cmpint (eval_review_leaf (fixture, "review_group_rating",
                                     "\"group_filter\": {\"field\": \"date\", \"operator\": \"gte\", \"value\": \"2030\"}, "
                                     "\"metric\": \"avg_stars\", \"threshold\": 0, \"operator\": \"gte\"", 0), ==, -1);
  /* An unknown metric or operator, which the reference made -1, is
   * refused with the condition (tests/model/test-dataset.c has the
   * messages). */
  for (guint i = 0; i < 2; i++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(JsonNode) node = json_from_string (i == 0 ? "{\"aspect\": \"r\", \"evidence\": {\"kind\": \"review_group_rating\", \"metric\": \"median\"}}"
                                                          : "{\"aspect\": \"r\", \"evidence\": {\"kind\": \"review_group_rating\", \"operator\": \"eq\"}}",
                                                   NULL);

      g_assert_null (anot_condition_new_from_json (node, &error));
      g_assert_error (error, ANOT_ERROR, ANOT_ERROR_INVALID_FIELD);
    }
  /* No reviews. */
  g_assert_cmpint (eval_review_leaf (fixture, "review_group_rating", "\"metric\": \"count\"", 1), ==, -1);

  /* review_group_rating_negative: generous r0 (5), harsh r1, r3 (mean 3);
   * r2 has no average and is in neither group. */
  g_assert_cmpint (eval_review_leaf (fixture, "review_group_rating_negative",
                                     "\"condition\": {\"generous_avg_gte\": 4.0, \"harsh_avg_lt\": 2.0}", 0), ==, 1);
  g_assert_cmpint (eval_review_leaf (fixture, "review_group_rating_negative",
                                     "\"condition\": {\"generous_avg_gte\": 4.0, \"harsh_avg_lt\": 3.5}", 0), ==, -1);
  g_assert_cmpint (eval_review_leaf (fixture, "review_group_rating_negative",
                                     "\"condition\": {\"generous_avg_gte\": 4.0, \"harsh_avg_lt\": 2.5}", 0), ==, 1);
  g_assert_cmpint (eval_review_leaf (fixture, "review_group_rating_negative",
                                     "\"condition\": {\"generous_avg_gte\": 5.5, \"harsh_avg_lt\": 3.5}", 0), ==, 1);
  g_assert_cmpint (eval_review_leaf (fixture, "review_group_rating_negative", "", 1), ==, 1);
}

/* ------------------------------------------------------------------------ *
 * anot-run validate
 * ------------------------------------------------------------------------ */

static gboolean
run_cli (const char * const  *args,
         int                 *out_status,
         char               **out_stdout,
         char               **out_stderr)
{
  const char *anot_run = g_getenv ("ANOT_RUN");
  g_autoptr(GPtrArray) argv = g_ptr_array_new ();
  g_autoptr(GSubprocess) proc = NULL;
  g_autoptr(GError) error = NULL;

  if (anot_run == NULL || !g_file_test (anot_run, G_FILE_TEST_IS_EXECUTABLE))
    {
      g_test_skip ("anot-run is not built ($ANOT_RUN)");
      return FALSE;
    }

  g_ptr_array_add (argv, (gpointer) anot_run);
  g_ptr_array_add (argv, (gpointer) "validate");
  for (guint i = 0; args[i] != NULL; i++)
    g_ptr_array_add (argv, (gpointer) args[i]);
  g_ptr_array_add (argv, NULL);

  proc = g_subprocess_newv ((const char * const *) argv->pdata,
                            G_SUBPROCESS_FLAGS_STDOUT_PIPE | G_SUBPROCESS_FLAGS_STDERR_PIPE, &error);
  g_assert_no_error (error);
  g_subprocess_communicate_utf8 (proc, NULL, NULL, out_stdout, out_stderr, &error);
  g_assert_no_error (error);
  g_assert_true (g_subprocess_get_if_exited (proc));
  *out_status = g_subprocess_get_exit_status (proc);
  return TRUE;
}

static void
test_cli_philly (void)
{
  const char *path = g_getenv ("ANOT_PHILLY_DATA");
  g_autofree char *out = NULL;
  g_autofree char *err = NULL;
  int status;

  if (anot_test_get_philly () == NULL)
    return;

  {
    const char *args[] = { "--data", path, NULL };

    if (!run_cli (args, &status, &out, &err))
      return;
    g_assert_cmpint (status, ==, 0);
    g_assert_nonnull (strstr (out, "100/100 requests ok"));
    g_assert_nonnull (strstr (out, "gold=e-ZyZc24wgkKafM3pguR2w (#0 Milkcrate Cafe)  ok"));
    g_assert_true (g_regex_match_simple ("^R01 +G01 +matches=1 ", out, G_REGEX_MULTILINE, 0));
    g_clear_pointer (&out, g_free);
    g_clear_pointer (&err, g_free);
  }

  {
    const char *args[] = { "--data", path, "--json", NULL };
    g_autoptr(JsonParser) parser = json_parser_new ();
    g_autoptr(GError) error = NULL;
    JsonObject *requests, *cell;

    if (!run_cli (args, &status, &out, &err))
      return;
    g_assert_cmpint (status, ==, 0);
    json_parser_load_from_data (parser, out, -1, &error);
    g_assert_no_error (error);
    requests = json_object_get_object_member (json_node_get_object (json_parser_get_root (parser)), "requests");
    g_assert_cmpuint (json_object_get_size (requests), ==, 100);
    /* R44 on Milkcrate: Alcohol u'none' is null, so true:"True" is unknown. */
    cell = json_object_get_object_member (json_object_get_object_member (json_object_get_object_member (requests, "R44"),
                                                                         "items"),
                                          "e-ZyZc24wgkKafM3pguR2w");
    g_assert_cmpint (json_object_get_int_member (cell, "result"), ==, 0);
    g_assert_cmpint (json_object_get_int_member (json_object_get_object_member (cell, "leaves"), "Alcohol"), ==, 0);
    g_clear_pointer (&out, g_free);
    g_clear_pointer (&err, g_free);
  }

  {
    const char *args[] = { "--data", path, "--request", "R01,R82", NULL };

    if (!run_cli (args, &status, &out, &err))
      return;
    g_assert_cmpint (status, ==, 0);
    g_assert_nonnull (strstr (out, "2/2 requests ok"));
    g_assert_null (strstr (out, "R44"));
  }
}

static void
test_cli_errors (Small         *fixture,
                 gconstpointer  data)
{
  g_autofree char *out = NULL;
  g_autofree char *err = NULL;
  g_autofree char *missing = g_build_filename (fixture->dir, "no-such-dir", NULL);
  int status;

  /* Mismatches: exit 1 and a diagnosis. */
  {
    const char *args[] = { "--data", fixture->dir, NULL };

    if (!run_cli (args, &status, &out, &err))
      return;
    g_assert_cmpint (status, ==, 1);
    g_assert_nonnull (strstr (out, "1/6 requests ok"));
    g_assert_nonnull (strstr (out, "gold_not_match"));
    g_assert_nonnull (strstr (out, "multi_match_no_gold"));
    g_assert_nonnull (strstr (out, "also matches #2 Gamma (C)"));
    g_assert_nonnull (strstr (out, "gold #0 Alpha evaluates to -1: wifi_none=-1"));
    g_clear_pointer (&out, g_free);
    g_clear_pointer (&err, g_free);
  }
  {
    const char *args[] = { "--data", fixture->dir, "--request", "Q1", NULL };

    if (!run_cli (args, &status, &out, &err))
      return;
    g_assert_cmpint (status, ==, 0);
    g_assert_nonnull (strstr (out, "1/1 requests ok"));
    g_clear_pointer (&out, g_free);
    g_clear_pointer (&err, g_free);
  }
  {
    const char *args[] = { "--data", fixture->dir, "--json", "--request", "Q3", NULL };
    g_autoptr(JsonParser) parser = json_parser_new ();
    g_autoptr(GError) error = NULL;
    JsonObject *requests;

    if (!run_cli (args, &status, &out, &err))
      return;
    g_assert_cmpint (status, ==, 1);
    json_parser_load_from_data (parser, out, -1, &error);
    g_assert_no_error (error);
    requests = json_object_get_object_member (json_node_get_object (json_parser_get_root (parser)), "requests");
    g_assert_cmpuint (json_object_get_size (requests), ==, 1);
    g_assert_cmpstr (json_object_get_string_member (json_object_get_object_member (requests, "Q3"), "status"),
                     ==, "gold_not_match");
    g_clear_pointer (&out, g_free);
    g_clear_pointer (&err, g_free);
  }

  /* Usage errors: exit 2. */
  {
    const char *args[] = { "--data", fixture->dir, "--no-such-option", NULL };

    if (!run_cli (args, &status, &out, &err))
      return;
    g_assert_cmpint (status, ==, 2);
    g_clear_pointer (&out, g_free);
    g_clear_pointer (&err, g_free);
  }
  {
    const char *args[] = { "--data", fixture->dir, "--request", "Q99", NULL };

    if (!run_cli (args, &status, &out, &err))
      return;
    g_assert_cmpint (status, ==, 2);
    g_assert_nonnull (strstr (err, "Q99"));
    g_clear_pointer (&out, g_free);
    g_clear_pointer (&err, g_free);
  }

  /* A dataset that does not load: exit 1 with the error. */
  {
    const char *args[] = { "--data", missing, NULL };

    if (!run_cli (args, &status, &out, &err))
      return;
    g_assert_cmpint (status, ==, 1);
    g_assert_nonnull (strstr (err, "anot-run validate: "));
  }
}

int
main (int    argc,
      char **argv)
{
  int ret;

  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);

  g_test_add_func ("/validator/philly/all-ok", test_philly_all_ok);
  g_test_add_func ("/validator/philly/check-requests", test_philly_check_requests);
  g_test_add_func ("/validator/philly/totals", test_philly_totals);
  g_test_add_func ("/validator/philly/example-r01", test_philly_example_r01);
  g_test_add_func ("/validator/philly/example-r28", test_philly_example_r28);
  g_test_add_func ("/validator/philly/example-r44", test_philly_example_r44);
  g_test_add_func ("/validator/philly/example-r82-rose", test_philly_example_r82);
  g_test_add_func ("/validator/philly/example-r85", test_philly_example_r85);
  g_test_add_func ("/validator/philly/example-r33", test_philly_example_r33);
  g_test_add_func ("/validator/philly/alcohol-true", test_philly_alcohol_true);
  g_test_add_func ("/validator/philly/r26-friday-late", test_philly_r26_friday_late);
  g_test_add_func ("/validator/philly/r100-none", test_philly_r100_none);
  g_test_add_func ("/validator/philly/truth-matrix", test_philly_truth_matrix);
  g_test_add_func ("/validator/philly/caches", test_philly_caches);
  g_test_add_func ("/validator/demo/all-ok", test_demo_all_ok);
  g_test_add ("/validator/small/item-meta", Small, NULL, small_setup, test_small_item_meta, small_teardown);
  g_test_add ("/validator/small/hours", Small, NULL, small_setup, test_small_hours, small_teardown);
  g_test_add ("/validator/small/logic", Small, NULL, small_setup, test_small_logic, small_teardown);
  g_test_add ("/validator/small/statuses", Small, NULL, small_setup, test_small_statuses, small_teardown);
  g_test_add ("/validator/small/reviews", Small, NULL, small_setup, test_small_reviews, small_teardown);
  g_test_add ("/validator/small/group-rating", Small, NULL, small_setup, test_small_group_rating, small_teardown);
  g_test_add_func ("/validator/cli/philly", test_cli_philly);
  g_test_add ("/validator/cli/errors", Small, NULL, small_setup, test_cli_errors, small_teardown);

  ret = g_test_run ();
  return ret;
}
