/* test-dataset.c: the data model and the benchmark loader
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <string.h>
#include <glib/gstdio.h>

#include <anot/anot.h>

#include "anot-test-data.h"
#include "anot-dataset-private.h"

/* ------------------------------------------------------------------------ *
 * Helpers
 * ------------------------------------------------------------------------ */


/* Every line of a JSONL file, parsed by json-glib directly (the oracle the
 * loader is checked against). */
static GPtrArray *
read_jsonl_objects (const char *dir,
                    const char *basename)
{
  g_autofree char *path = g_build_filename (dir, basename, NULL);
  g_autofree char *contents = NULL;
  g_auto(GStrv) lines = NULL;
  g_autoptr(GError) error = NULL;
  GPtrArray *objects = g_ptr_array_new_with_free_func ((GDestroyNotify) json_object_unref);

  g_file_get_contents (path, &contents, NULL, &error);
  g_assert_no_error (error);
  lines = g_strsplit (contents, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    {
      g_autoptr(JsonNode) node = NULL;

      if (lines[i][0] == '\0')
        continue;
      node = json_from_string (lines[i], &error);
      g_assert_no_error (error);
      g_ptr_array_add (objects, json_object_ref (json_node_get_object (node)));
    }

  return objects;
}

static JsonNode *
read_json_file (const char *dir,
                const char *basename)
{
  g_autofree char *path = g_build_filename (dir, basename, NULL);
  g_autofree char *contents = NULL;
  g_autoptr(GError) error = NULL;
  JsonNode *node;

  g_file_get_contents (path, &contents, NULL, &error);
  g_assert_no_error (error);
  node = json_from_string (contents, &error);
  g_assert_no_error (error);

  return node;
}

static void
remove_tree (const char *dir)
{
  g_autoptr(GDir) d = g_dir_open (dir, 0, NULL);
  const char *name;

  if (d == NULL)
    return;
  while ((name = g_dir_read_name (d)) != NULL)
    {
      g_autofree char *path = g_build_filename (dir, name, NULL);
      g_remove (path);
    }
  g_rmdir (dir);
}

static void
write_file (const char *dir,
            const char *basename,
            const char *contents)
{
  g_autofree char *path = g_build_filename (dir, basename, NULL);
  g_autoptr(GError) error = NULL;

  g_file_set_contents (path, contents, -1, &error);
  g_assert_no_error (error);
}

/* ------------------------------------------------------------------------ *
 * A small hand-written dataset, broken one way per error case.
 * ------------------------------------------------------------------------ */

enum {
  F_RESTAURANTS,
  F_REVIEWS,
  F_REQUESTS,
  F_GROUNDTRUTH,
  F_USER_MAPPING,
  F_JUDGEMENTS,
  F_META,
  N_FILES
};

static const char * const file_names[N_FILES] = {
  "restaurants.jsonl",
  "reviews.jsonl",
  "requests.jsonl",
  "groundtruth.jsonl",
  "user_mapping.json",
  "judgement_cache.json",
  "meta.json",
};

#define LEAF_WIFI "{\"aspect\": \"wifi\", \"evidence\": {\"kind\": \"item_meta\", \"path\": [\"attributes\", \"WiFi\"], \"true\": \"u'free'\"}}"
#define LEAF_ESPRESSO "{\"aspect\": \"espresso\", \"evidence\": {\"kind\": \"review_text\", \"pattern\": \"espresso\"}}"
#define LEAF_MONDAY "{\"aspect\": \"monday\", \"evidence\": {\"kind\": \"item_meta_hours\", \"path\": [\"hours\", \"Monday\"], \"true\": \"7:0-8:0\"}}"
#define LEAF_TV "{\"aspect\": \"tv\", \"evidence\": {\"path\": [\"attributes\", \"HasTV\"], \"true\": \"False\"}}"

static const char *const base_files[N_FILES] = {
  [F_RESTAURANTS] =
    "{\"business_id\": \"itemA\", \"name\": \"Cafe A\", \"city\": \"Philadelphia\", \"stars\": 4.5, "
    "\"attributes\": {\"WiFi\": \"u'free'\", \"HasTV\": \"False\", \"Weird\": 5}, "
    "\"categories\": \"Coffee & Tea, , Bakeries ,Food\", \"hours\": {\"Monday\": \"8:0-15:0\", \"Tuesday\": null}}\n"
    "{\"business_id\": \"itemB\", \"name\": \"Cafe B\", \"categories\": null}\n",
  [F_REVIEWS] =
    "{\"review_id\": \"r1\", \"business_id\": \"itemA\", \"user_id\": \"u1\", \"stars\": 5.0, "
    "\"text\": \"Great espresso.\", \"date\": \"2020-01-02 03:04:05\", \"useful\": 1, \"funny\": 0, \"cool\": 2, "
    "\"user\": {\"review_count\": 10, \"average_stars\": 4.2, \"yelping_since\": \"2010-01-01 00:00:00\"}}\n"
    "{\"review_id\": \"r2\", \"business_id\": \"itemB\", \"user_id\": \"u2\", \"stars\": 2, \"text\": \"Meh.\"}\n"
    "{\"review_id\": \"r3\", \"business_id\": \"itemA\", \"user_id\": \"u1\", \"stars\": 3.0, "
    "\"text\": \"OK \\\"quoted\\\" text\\nwith a newline \\u00e9\", \"extra\": [1, 2]}\n",
  [F_REQUESTS] =
    "{\"id\": \"R1\", \"group\": \"G02\", \"scenario\": \"Student\", \"text\": \"Wifi and espresso\", "
    "\"shorthand\": \"AND(wifi, espresso)\", \"structure\": {\"op\": \"AND\", \"args\": [" LEAF_WIFI ", " LEAF_ESPRESSO "]}, "
    "\"gold_restaurant\": \"itemA\"}\n"
    "{\"id\": \"R2\", \"group\": \"G01\", \"text\": \"Monday morning\", "
    "\"structure\": {\"op\": \"OR\", \"args\": [" LEAF_MONDAY ", " LEAF_TV "]}, \"gold_restaurant\": \"itemB\"}\n"
    "{\"id\": \"R3\", \"group\": \"G02\", \"text\": \"No op at the root\", "
    "\"structure\": {\"args\": [" LEAF_TV "]}, \"gold_restaurant\": \"itemA\"}\n",
  [F_GROUNDTRUTH] =
    "{\"request_id\": \"R1\", \"gold_restaurant\": \"itemA\", \"gold_idx\": 0, \"status\": \"ok\"}\n"
    "{\"request_id\": \"R2\", \"gold_restaurant\": \"itemB\", \"gold_idx\": 1, \"status\": \"no_match\"}\n"
    "{\"request_id\": \"R3\", \"gold_restaurant\": \"itemA\", \"gold_idx\": 0}\n",
  [F_USER_MAPPING] =
    "{\"friend_graph\": {\"Ann\": [\"Bob\"], \"Bob\": [\"Ann\", \"Cy\"], \"Cy\": []},\n"
    " \"review_assignments\": {\"0\": [{\"review_idx\": 0, \"name\": \"Ann\", \"friends\": [\"Zed\"]},\n"
    "                                  {\"review_idx\": 1, \"name\": \"Bob\"},\n"
    "                                  {\"review_idx\": 5, \"name\": \"Ghost\"}]},\n"
    " \"_meta\": {\"note\": \"ignored\"}}\n",
  [F_JUDGEMENTS] =
    "{\"r1:espresso\": {\"judgement\": \"POSITIVE\"}, \"r3:espresso\": {\"judgement\": \"Mixed\"},\n"
    " \"r2:espresso\": {\"judgement\": \"no\"}, \"r1:wifi\": {\"judgement\": true},\n"
    " \"r2:wifi\": {\"judgement\": false}, \"r3:wifi\": {\"judgement\": \"maybe\"},\n"
    " \"r1:tea\": {\"note\": \"no judgement\"}, \"r9:wine bar\": {\"judgement\": \"pos\"}}\n",
};

/* Writes the base dataset with @file's line @line (1-based) replaced by
 * @text; @line 0 replaces the whole file, and a NULL @text removes it. */
static char *
make_dataset (int         file,
              int         line,
              const char *text)
{
  g_autoptr(GError) error = NULL;
  char *dir = g_dir_make_tmp ("anot-dataset-XXXXXX", &error);

  g_assert_no_error (error);

  for (int f = 0; f < N_FILES; f++)
    {
      if (f != file)
        {
          if (base_files[f] != NULL)
            write_file (dir, file_names[f], base_files[f]);
        }
      else if (text == NULL)
        continue;
      else if (line == 0)
        write_file (dir, file_names[f], text);
      else
        {
          g_auto(GStrv) lines = g_strsplit (base_files[f], "\n", -1);
          g_autofree char *joined = NULL;

          g_assert_cmpuint (line, <=, g_strv_length (lines));
          g_free (lines[line - 1]);
          lines[line - 1] = g_strdup (text);
          joined = g_strjoinv ("\n", lines);
          write_file (dir, file_names[f], joined);
        }
    }

  return dir;
}

/* ------------------------------------------------------------------------ *
 * The small dataset
 * ------------------------------------------------------------------------ */

static void
test_small_dataset (void)
{
  g_autofree char *dir = make_dataset (-1, 0, NULL);
  g_autofree char *expected_name = g_path_get_basename (dir);
  g_autoptr(AnotDataset) ds = NULL;
  g_autoptr(GError) error = NULL;
  g_auto(GStrv) groups = NULL;
  const char * const *cats;
  const char * const *friends;
  AnotItem *a, *b;
  AnotReview *r1, *r2, *r3;
  AnotRequest *req;
  AnotCondition *cond;
  AnotGoldStatus status;
  guint n_items = 0;
  g_autofree char *name = NULL;

  ds = anot_dataset_load (dir, NULL, &error);
  g_assert_no_error (error);
  g_assert_nonnull (ds);

  g_assert_cmpstr (anot_dataset_get_name (ds), ==, expected_name);
  g_assert_true (g_path_is_absolute (anot_dataset_get_path (ds)));
  g_assert_cmpuint (strlen (anot_dataset_get_checksum (ds)), ==, 64);
  g_object_get (ds, "n-items", &n_items, "name", &name, NULL);
  g_assert_cmpuint (n_items, ==, 2);
  g_assert_cmpstr (name, ==, expected_name);
  g_assert_cmpuint (anot_dataset_get_n_reviews (ds), ==, 3);
  g_assert_cmpuint (anot_dataset_get_n_requests (ds), ==, 3);

  /* Items */
  a = anot_dataset_get_item (ds, 0);
  b = anot_dataset_lookup_item (ds, "itemB");
  g_assert_true (anot_dataset_lookup_item (ds, "itemA") == a);
  g_assert_null (anot_dataset_lookup_item (ds, "itemC"));
  g_assert_cmpuint (anot_item_get_index (b), ==, 1);
  g_assert_cmpstr (anot_item_get_name (a), ==, "Cafe A");
  g_assert_cmpstr (anot_item_get_city (a), ==, "Philadelphia");
  g_assert_null (anot_item_get_city (b));
  g_assert_cmpfloat (anot_item_get_stars (a), ==, 4.5);
  cats = anot_item_get_categories (a);
  g_assert_cmpuint (g_strv_length ((GStrv) cats), ==, 3);
  g_assert_cmpstr (cats[0], ==, "Coffee & Tea");
  g_assert_cmpstr (cats[1], ==, "Bakeries");
  g_assert_cmpstr (cats[2], ==, "Food");
  g_assert_cmpstr (anot_item_get_categories_string (a), ==, "Coffee & Tea, , Bakeries ,Food");
  g_assert_nonnull (anot_item_get_categories (b));
  g_assert_null (anot_item_get_categories (b)[0]);
  g_assert_null (anot_item_get_categories_string (b));
  g_assert_cmpstr (anot_item_get_attribute (a, "WiFi"), ==, "u'free'");
  g_assert_null (anot_item_get_attribute (a, "Weird"));     /* not a string */
  g_assert_null (anot_item_get_attribute (a, "Alcohol"));   /* absent */
  g_assert_null (anot_item_get_attribute (b, "WiFi"));      /* no attributes */
  g_assert_cmpstr (anot_item_get_hours (a, "Monday"), ==, "8:0-15:0");
  g_assert_null (anot_item_get_hours (a, "Tuesday"));
  g_assert_null (anot_item_get_hours (b, "Monday"));
  g_assert_true (json_object_has_member (anot_item_get_record (a), "hours"));

  /* Reviews: grouped per item in file order, interleaved in the file. */
  g_assert_cmpuint (anot_item_get_n_reviews (a), ==, 2);
  g_assert_cmpuint (anot_item_get_n_reviews (b), ==, 1);
  r1 = anot_item_get_review (a, 0);
  r3 = anot_item_get_review (a, 1);
  r2 = anot_item_get_review (b, 0);
  g_assert_cmpstr (anot_review_get_id (r1), ==, "r1");
  g_assert_cmpstr (anot_review_get_id (r3), ==, "r3");
  g_assert_cmpuint (anot_review_get_position (r3), ==, 1);
  g_assert_cmpuint (anot_review_get_position (r2), ==, 0);
  g_assert_true (anot_dataset_lookup_review (ds, "r3") == r3);
  g_assert_null (anot_dataset_lookup_review (ds, "r4"));
  g_assert_cmpstr (anot_review_get_item_id (r3), ==, "itemA");
  /* A review shares its item's id string; user ids are equal strings
   * (each review's own copy, in its batch's store). */
  g_assert_cmpstr (anot_review_get_user_id (r1), ==, anot_review_get_user_id (r3));
  g_assert_true (anot_review_get_item_id (r1) == anot_item_get_id (a));
  g_assert_true (anot_review_get_item_id (r1) == anot_review_get_item_id (r3));
  g_assert_cmpstr (anot_review_get_text (r3), ==, "OK \"quoted\" text\nwith a newline \xc3\xa9");
  g_assert_cmpfloat (anot_review_get_stars (r2), ==, 2.0);
  g_assert_cmpstr (anot_review_get_date (r1), ==, "2020-01-02 03:04:05");
  g_assert_null (anot_review_get_date (r2));
  g_assert_cmpint (anot_review_get_useful (r1), ==, 1);
  g_assert_cmpint (anot_review_get_cool (r1), ==, 2);
  g_assert_cmpint (anot_review_get_user_review_count (r1), ==, 10);
  g_assert_true (anot_review_has_user_average_stars (r1));
  g_assert_false (anot_review_has_user_average_stars (r2));
  g_assert_cmpfloat (anot_review_get_user_average_stars (r1), ==, 4.2);
  g_assert_cmpstr (anot_review_get_user_yelping_since (r1), ==, "2010-01-01 00:00:00");
  g_assert_null (anot_review_get_user_yelping_since (r3));

  /* Social layer: names by item index and position, friends from the
   * record or else from the graph. */
  g_assert_cmpstr (anot_review_get_reviewer_name (r1), ==, "Ann");
  g_assert_cmpstr (anot_review_get_reviewer_name (r3), ==, "Bob");
  g_assert_cmpstr (anot_review_get_reviewer_name (r2), ==, "");
  friends = _anot_review_get_assigned_friends (r1);
  g_assert_cmpuint (g_strv_length ((GStrv) friends), ==, 1);
  g_assert_cmpstr (friends[0], ==, "Zed");
  friends = _anot_review_get_assigned_friends (r3);
  g_assert_cmpuint (g_strv_length ((GStrv) friends), ==, 2);
  g_assert_cmpstr (friends[1], ==, "Cy");
  g_assert_false (_anot_review_has_assignment (r2));
  friends = anot_dataset_get_friends (ds, "Bob");
  g_assert_cmpuint (g_strv_length ((GStrv) friends), ==, 2);
  g_assert_cmpstr (friends[0], ==, "Ann");
  g_assert_nonnull (anot_dataset_get_friends (ds, "Cy"));
  g_assert_null (anot_dataset_get_friends (ds, "Cy")[0]);
  g_assert_null (anot_dataset_get_friends (ds, "Zed"));
  g_assert_null (anot_dataset_get_friends (ds, "ann"));

  /* Judgements (evidence.md §6.3) */
  g_assert_cmpint (anot_dataset_get_judgement (ds, "r1", "espresso"), ==, ANOT_JUDGEMENT_POSITIVE);
  g_assert_cmpint (anot_dataset_get_judgement (ds, "r3", "espresso"), ==, ANOT_JUDGEMENT_NEUTRAL);
  g_assert_cmpint (anot_dataset_get_judgement (ds, "r2", "espresso"), ==, ANOT_JUDGEMENT_NEGATIVE);
  g_assert_cmpint (anot_dataset_get_judgement (ds, "r1", "wifi"), ==, ANOT_JUDGEMENT_POSITIVE);
  g_assert_cmpint (anot_dataset_get_judgement (ds, "r2", "wifi"), ==, ANOT_JUDGEMENT_NOT_MENTIONED);
  g_assert_cmpint (anot_dataset_get_judgement (ds, "r3", "wifi"), ==, ANOT_JUDGEMENT_NOT_MENTIONED);
  g_assert_cmpint (anot_dataset_get_judgement (ds, "r1", "tea"), ==, ANOT_JUDGEMENT_NOT_MENTIONED);
  g_assert_cmpint (anot_dataset_get_judgement (ds, "r1", "Espresso"), ==, ANOT_JUDGEMENT_NOT_MENTIONED);
  g_assert_cmpint (anot_dataset_get_judgement (ds, "r2", "latte"), ==, ANOT_JUDGEMENT_NOT_MENTIONED);
  /* A key for a review that is not in the dataset still answers. */
  g_assert_cmpint (anot_dataset_get_judgement (ds, "r9", "wine bar"), ==, ANOT_JUDGEMENT_POSITIVE);

  /* Requests keep file order; groups are distinct and sorted. */
  req = anot_dataset_get_request (ds, 0);
  g_assert_cmpstr (anot_request_get_id (req), ==, "R1");
  g_assert_cmpstr (anot_request_get_scenario (req), ==, "Student");
  g_assert_cmpstr (anot_request_get_shorthand (req), ==, "AND(wifi, espresso)");
  g_assert_cmpstr (anot_request_get_gold_item_id (req), ==, "itemA");
  g_assert_cmpuint (anot_request_get_gold_index (req), ==, 0);
  g_assert_true (_anot_request_get_gold_status (req, &status));
  g_assert_cmpint (status, ==, ANOT_GOLD_STATUS_OK);
  req = anot_dataset_lookup_request (ds, "R2");
  g_assert_true (req == anot_dataset_get_request (ds, 1));
  g_assert_null (anot_request_get_scenario (req));
  g_assert_cmpuint (anot_request_get_gold_index (req), ==, 1);
  g_assert_true (_anot_request_get_gold_status (req, &status));
  g_assert_cmpint (status, ==, ANOT_GOLD_STATUS_NO_MATCH);
  g_assert_false (_anot_request_get_gold_status (anot_dataset_get_request (ds, 2), NULL));
  groups = anot_dataset_list_groups (ds);
  g_assert_cmpuint (g_strv_length (groups), ==, 2);
  g_assert_cmpstr (groups[0], ==, "G01");
  g_assert_cmpstr (groups[1], ==, "G02");

  /* Structures */
  cond = anot_request_get_structure (req);
  g_assert_cmpint (anot_condition_get_op (cond), ==, ANOT_CONDITION_OP_OR);
  g_assert_cmpuint (anot_condition_get_n_children (cond), ==, 2);
  g_assert_cmpint (anot_condition_get_evidence_kind (anot_condition_get_child (cond, 0)), ==,
                   ANOT_EVIDENCE_ITEM_META_HOURS);
  /* A leaf without a kind is item_meta. */
  g_assert_cmpint (anot_condition_get_evidence_kind (anot_condition_get_child (cond, 1)), ==,
                   ANOT_EVIDENCE_ITEM_META);
  g_assert_cmpstr (anot_condition_get_aspect (anot_condition_get_child (cond, 1)), ==, "tv");
  /* A root without op is an AND of its args. */
  cond = anot_request_get_structure (anot_dataset_get_request (ds, 2));
  g_assert_cmpint (anot_condition_get_op (cond), ==, ANOT_CONDITION_OP_AND);
  g_assert_cmpuint (anot_condition_get_n_children (cond), ==, 1);

  remove_tree (dir);
}

/* A review keeps its strings alive after its dataset is gone (a Python
 * variable can outlive the dataset). */
static void
test_review_outlives_dataset (void)
{
  g_autofree char *dir = make_dataset (-1, 0, NULL);
  g_autoptr(GError) error = NULL;
  AnotDataset *ds;
  g_autoptr(AnotReview) review = NULL;
  g_autoptr(JsonObject) json = NULL;

  ds = anot_dataset_load (dir, NULL, &error);
  g_assert_no_error (error);
  review = g_object_ref (anot_dataset_lookup_review (ds, "r1"));
  g_object_unref (ds);

  g_assert_cmpstr (anot_review_get_text (review), ==, "Great espresso.");
  g_assert_cmpstr (anot_review_get_item_id (review), ==, "itemA");
  g_assert_cmpstr (anot_review_get_reviewer_name (review), ==, "Ann");
  json = anot_review_to_json (review);
  g_assert_cmpstr (json_object_get_string_member (json_object_get_object_member (json, "user"), "name"),
                   ==, "Ann");

  remove_tree (dir);
}

static void
test_review_to_json (void)
{
  g_autofree char *dir = make_dataset (-1, 0, NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(AnotDataset) ds = NULL;
  g_autoptr(JsonObject) j1 = NULL;
  g_autoptr(JsonObject) j2 = NULL;
  g_autoptr(GList) members = NULL;
  static const char * const order[] = {
    "review_id", "business_id", "user_id", "stars", "text", "date",
    "useful", "funny", "cool", "user", NULL
  };
  JsonObject *user;
  JsonArray *friends;
  guint i = 0;

  ds = anot_dataset_load (dir, NULL, &error);
  g_assert_no_error (error);

  j1 = anot_review_to_json (anot_dataset_lookup_review (ds, "r1"));
  members = json_object_get_members (j1);
  for (GList *l = members; l != NULL; l = l->next, i++)
    g_assert_cmpstr (l->data, ==, order[i]);
  g_assert_null (order[i]);
  g_assert_cmpfloat (json_object_get_double_member (j1, "stars"), ==, 5.0);
  user = json_object_get_object_member (j1, "user");
  g_assert_cmpint (json_object_get_int_member (user, "review_count"), ==, 10);
  g_assert_cmpfloat (json_object_get_double_member (user, "average_stars"), ==, 4.2);
  g_assert_cmpstr (json_object_get_string_member (user, "name"), ==, "Ann");
  friends = json_object_get_array_member (user, "friends");
  g_assert_cmpuint (json_array_get_length (friends), ==, 1);
  g_assert_cmpstr (json_array_get_string_element (friends, 0), ==, "Zed");

  /* Only what the file had: no date, votes or user for r2; the unknown
   * "extra" member of r3 is not kept. */
  j2 = anot_review_to_json (anot_dataset_lookup_review (ds, "r2"));
  g_assert_cmpuint (json_object_get_size (j2), ==, 5);
  g_assert_false (json_object_has_member (j2, "date"));
  g_assert_false (json_object_has_member (j2, "user"));
  g_clear_pointer (&j2, json_object_unref);
  j2 = anot_review_to_json (anot_dataset_lookup_review (ds, "r3"));
  g_assert_false (json_object_has_member (j2, "extra"));
  /* No user object in the file, but a mapping record: user has the name. */
  user = json_object_get_object_member (j2, "user");
  g_assert_cmpstr (json_object_get_string_member (user, "name"), ==, "Bob");
  g_assert_false (json_object_has_member (user, "average_stars"));

  remove_tree (dir);
}

/* The constructors other parts of the library use (e.g. to build attacked
 * copies) without a dataset or a store. */
static void
test_internal_constructors (void)
{
  AnotReviewFields fields = {
    .id = "x1",
    .item_id = "itemX",
    .user_id = NULL,
    .stars = 4.5,
    .text = "Typo-ed txet and more",
    .text_len = 14,
    .date = "2021-05-06 07:08:09",
    .useful = 3,
    .flags = ANOT_REVIEW_HAS_USEFUL | ANOT_REVIEW_HAS_ASSIGNMENT,
  };
  static const char * const friends[] = { "Bob", NULL };
  g_autoptr(AnotReview) review = NULL;
  g_autoptr(AnotItem) item = NULL;
  g_autoptr(JsonObject) json = NULL;
  g_autoptr(JsonNode) record = NULL;
  g_autoptr(GError) error = NULL;

  review = anot_review_new_internal (NULL, &fields, 0);
  g_assert_cmpstr (anot_review_get_text (review), ==, "Typo-ed txet a");
  g_assert_null (anot_review_get_user_id (review));
  g_assert_cmpstr (anot_review_get_reviewer_name (review), ==, "");
  g_assert_false (_anot_review_has_assignment (review));
  json = anot_review_to_json (review);
  g_assert_cmpint (json_object_get_int_member (json, "useful"), ==, 3);
  g_assert_false (json_object_has_member (json, "funny"));
  g_assert_false (json_object_has_member (json, "user"));
  g_clear_pointer (&json, json_object_unref);

  _anot_review_set_assignment (review, "Ann", friends);
  json = anot_review_to_json (review);
  g_assert_cmpstr (json_object_get_string_member (json_object_get_object_member (json, "user"), "name"),
                   ==, "Ann");

  record = json_from_string ("{\"business_id\": \"itemX\", \"name\": \"X\", "
                             "\"attributes\": {\"WiFi\": \"'no'\"}, \"categories\": \"A,B\"}", &error);
  g_assert_no_error (error);
  item = anot_item_new_internal (NULL, json_node_get_object (record), NULL, -1, 7, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (anot_item_get_index (item), ==, 7);
  g_assert_cmpstr (anot_item_get_attribute (item, "WiFi"), ==, "'no'");
  g_assert_true (anot_item_get_record (item) == json_node_get_object (record));
  g_assert_true (json_object_is_immutable (anot_item_get_record (item)));
  g_assert_cmpstr (anot_item_get_categories (item)[1], ==, "B");
  _anot_item_add_review (item, review);
  g_assert_cmpuint (anot_item_get_n_reviews (item), ==, 1);
}

static gpointer
read_records (gpointer data)
{
  AnotDataset *ds = data;
  GPtrArray *records = g_ptr_array_new ();

  for (guint i = 0; i < anot_dataset_get_n_items (ds); i++)
    g_ptr_array_add (records, anot_item_get_record (anot_dataset_get_item (ds, i)));

  return records;
}

/* Records are parsed on first use; threads sharing a dataset must all get
 * the same one. */
static void
test_record_threads (void)
{
  g_autofree char *dir = make_dataset (-1, 0, NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(AnotDataset) ds = NULL;
  GThread *threads[4];
  g_autoptr(GPtrArray) first = NULL;

  ds = anot_dataset_load (dir, NULL, &error);
  g_assert_no_error (error);

  for (guint t = 0; t < G_N_ELEMENTS (threads); t++)
    threads[t] = g_thread_new ("records", read_records, ds);
  for (guint t = 0; t < G_N_ELEMENTS (threads); t++)
    {
      g_autoptr(GPtrArray) records = g_thread_join (threads[t]);

      if (first == NULL)
        first = g_steal_pointer (&records);
      else
        for (guint i = 0; i < records->len; i++)
          g_assert_true (records->pdata[i] == first->pdata[i]);
    }

  g_assert_cmpstr (json_object_get_string_member (first->pdata[0], "name"), ==, "Cafe A");
  g_assert_true (json_object_is_immutable (first->pdata[1]));
  g_assert_cmpstr (json_object_get_string_member (anot_item_get_attributes (anot_dataset_get_item (ds, 0)),
                                                  "HasTV"), ==, "False");
  g_assert_null (anot_item_get_attributes (anot_dataset_get_item (ds, 1)));

  remove_tree (dir);
}

/* A request whose group_filter reads a review field warns when no review
 * has it: the loader gathers the fields as it commits the reviews and the
 * user_mapping.json assignments, so the warning has to follow both. */
#define GROUP_LEAF(field) \
  "{\"aspect\": \"g\", \"evidence\": {\"kind\": \"review_group_rating\", \"group\": \"g\", " \
  "\"group_filter\": {\"field\": " field ", \"operator\": \"gte\", \"value\": 1}, " \
  "\"metric\": \"avg_stars\", \"threshold\": 4.0, \"operator\": \"gte\"}}"

static guint
count_review_field_warnings (AnotDataset *ds,
                             const char  *field)
{
  const char * const *warnings = anot_dataset_get_warnings (ds);
  g_autofree char *needle = g_strdup_printf ("no review has %s,", field);
  guint n = 0;

  for (guint i = 0; warnings != NULL && warnings[i] != NULL; i++)
    if (strstr (warnings[i], needle) != NULL)
      n++;
  return n;
}

static void
test_review_field_warnings (void)
{
  static const char requests[] =
    "{\"id\": \"R1\", \"group\": \"G01\", \"text\": \"t\", \"structure\": " GROUP_LEAF ("\"funny\"") ", \"gold_restaurant\": \"itemA\"}\n"
    "{\"id\": \"R2\", \"group\": \"G01\", \"text\": \"t\", \"structure\": " GROUP_LEAF ("[\"user\", \"review_count\"]") ", \"gold_restaurant\": \"itemB\"}\n"
    "{\"id\": \"R3\", \"group\": \"G01\", \"text\": \"t\", \"structure\": " GROUP_LEAF ("[\"user\", \"name\"]") ", \"gold_restaurant\": \"itemA\"}\n";
  static const char bare_reviews[] =
    "{\"review_id\": \"r1\", \"business_id\": \"itemA\", \"stars\": 5.0, \"text\": \"Great.\"}\n"
    "{\"review_id\": \"r2\", \"business_id\": \"itemB\", \"stars\": 2, \"text\": \"Meh.\"}\n";
  g_autoptr(GError) error = NULL;
  g_autofree char *full = make_dataset (F_REQUESTS, 0, requests);
  g_autofree char *bare = make_dataset (F_USER_MAPPING, 0, NULL);
  g_autoptr(AnotDataset) with_fields = NULL;
  g_autoptr(AnotDataset) without = NULL;

  /* r1 has votes and a user, and user_mapping.json names reviewers. */
  with_fields = anot_dataset_load (full, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (count_review_field_warnings (with_fields, "\"funny\""), ==, 0);
  g_assert_cmpuint (count_review_field_warnings (with_fields, "[\"user\",\"review_count\"]"), ==, 0);
  g_assert_cmpuint (count_review_field_warnings (with_fields, "[\"user\",\"name\"]"), ==, 0);

  /* Reviews without them and no user_mapping.json: each is warned of. */
  write_file (bare, "requests.jsonl", requests);
  write_file (bare, "reviews.jsonl", bare_reviews);
  without = anot_dataset_load (bare, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (count_review_field_warnings (without, "\"funny\""), ==, 1);
  g_assert_cmpuint (count_review_field_warnings (without, "[\"user\",\"review_count\"]"), ==, 1);
  g_assert_cmpuint (count_review_field_warnings (without, "[\"user\",\"name\"]"), ==, 1);

  remove_tree (full);
  remove_tree (bare);
}

static void
test_optional_files (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(AnotDataset) ds = NULL;
  g_autofree char *dir = make_dataset (F_GROUNDTRUTH, 0, NULL);
  AnotRequest *req;

  g_autofree char *mapping = g_build_filename (dir, "user_mapping.json", NULL);
  g_autofree char *judgements = g_build_filename (dir, "judgement_cache.json", NULL);

  g_assert_cmpint (g_remove (mapping), ==, 0);
  g_assert_cmpint (g_remove (judgements), ==, 0);

  ds = anot_dataset_load (dir, NULL, &error);
  g_assert_no_error (error);

  /* Gold from requests.jsonl */
  req = anot_dataset_lookup_request (ds, "R2");
  g_assert_cmpstr (anot_request_get_gold_item_id (req), ==, "itemB");
  g_assert_cmpuint (anot_request_get_gold_index (req), ==, 1);
  g_assert_false (_anot_request_get_gold_status (req, NULL));
  /* No social layer, no judgements */
  g_assert_cmpstr (anot_review_get_reviewer_name (anot_dataset_lookup_review (ds, "r1")), ==, "");
  g_assert_null (anot_dataset_get_friends (ds, "Ann"));
  g_assert_cmpint (anot_dataset_get_judgement (ds, "r1", "espresso"), ==,
                   ANOT_JUDGEMENT_NOT_MENTIONED);

  remove_tree (dir);
}

/* Blank lines, CRLF line ends and a last line without a newline. */
static void
test_line_format (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(AnotDataset) ds = NULL;
  g_autofree char *dir = make_dataset (-1, 0, NULL);
  g_autofree char *crlf = NULL;
  g_auto(GStrv) lines = g_strsplit (base_files[F_REQUESTS], "\n", -1);

  crlf = g_strjoinv ("\r\n\r\n  \r\n", lines);
  write_file (dir, "requests.jsonl", crlf);
  write_file (dir, "restaurants.jsonl",
              "\n{\"business_id\": \"itemA\", \"name\": \"Cafe A\"}\n\n"
              "{\"business_id\": \"itemB\", \"name\": \"Cafe B\"}");

  ds = anot_dataset_load (dir, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (anot_dataset_get_n_items (ds), ==, 2);
  g_assert_cmpuint (anot_item_get_index (anot_dataset_lookup_item (ds, "itemB")), ==, 1);
  g_assert_cmpuint (anot_dataset_get_n_requests (ds), ==, 3);
  g_assert_cmpstr (anot_request_get_id (anot_dataset_get_request (ds, 2)), ==, "R3");

  remove_tree (dir);
}

/* One line longer than the loader's read buffer. */
static void
test_long_line (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(AnotDataset) ds = NULL;
  g_autofree char *dir = make_dataset (-1, 0, NULL);
  g_autoptr(GString) reviews = g_string_new (base_files[F_REVIEWS]);
  g_autofree char *text = g_strnfill (3 * 1024 * 1024 + 17, 'x');

  g_string_append_printf (reviews,
                          "{\"review_id\": \"r4\", \"business_id\": \"itemB\", \"stars\": 1, \"text\": \"%s\"}\n"
                          "{\"review_id\": \"r5\", \"business_id\": \"itemB\", \"stars\": 1, \"text\": \"short\"}\n",
                          text);
  write_file (dir, "reviews.jsonl", reviews->str);

  ds = anot_dataset_load (dir, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (anot_review_get_text (anot_dataset_lookup_review (ds, "r4")), ==, text);
  g_assert_cmpuint (anot_review_get_position (anot_dataset_lookup_review (ds, "r5")), ==, 2);

  remove_tree (dir);
}

/* Enough reviews for the loader to split them into many batches, with the
 * two items interleaved.  @bad_line (1-based, 0 for none) is replaced by
 * @bad_text. */
#define N_MANY_REVIEWS 6000

static char *
many_reviews (guint       bad_line,
              const char *bad_text)
{
  g_autofree char *padding = g_strnfill (600, 'z');
  GString *out = g_string_new (NULL);

  for (guint i = 1; i <= N_MANY_REVIEWS; i++)
    {
      if (i == bad_line)
        g_string_append_printf (out, "%s\n", bad_text);
      else
        g_string_append_printf (out,
                                "{\"review_id\": \"m%u\", \"business_id\": \"%s\", "
                                "\"stars\": %u, \"text\": \"review %u %s\"}\n",
                                i, i % 3 == 0 ? "itemB" : "itemA", 1 + i % 5, i, padding);
    }

  return g_string_free (out, FALSE);
}

static void
test_many_reviews (void)
{
  g_autofree char *dir = make_dataset (-1, 0, NULL);
  g_autofree char *reviews = many_reviews (0, NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(AnotDataset) ds = NULL;
  g_autoptr(GChecksum) checksum = g_checksum_new (G_CHECKSUM_SHA256);
  AnotItem *a, *b;
  guint n_a = 0, n_b = 0;

  g_assert_cmpuint (strlen (reviews), >, 3 * 1024 * 1024);
  write_file (dir, "reviews.jsonl", reviews);
  ds = anot_dataset_load (dir, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (anot_dataset_get_n_reviews (ds), ==, N_MANY_REVIEWS);

  a = anot_dataset_lookup_item (ds, "itemA");
  b = anot_dataset_lookup_item (ds, "itemB");
  for (guint i = 1; i <= N_MANY_REVIEWS; i++)
    {
      g_autofree char *id = g_strdup_printf ("m%u", i);
      AnotReview *review = anot_dataset_lookup_review (ds, id);
      guint position = i % 3 == 0 ? n_b++ : n_a++;

      g_assert_nonnull (review);
      g_assert_cmpuint (anot_review_get_position (review), ==, position);
      g_assert_true (anot_item_get_review (i % 3 == 0 ? b : a, position) == review);
      g_assert_cmpfloat (anot_review_get_stars (review), ==, 1 + i % 5);
    }
  g_assert_cmpuint (anot_item_get_n_reviews (a), ==, n_a);
  g_assert_cmpuint (anot_item_get_n_reviews (b), ==, n_b);
  /* Ids that are not there, one a prefix of ids that are. */
  g_assert_null (anot_dataset_lookup_review (ds, "m0"));
  g_assert_null (anot_dataset_lookup_review (ds, "m"));
  g_assert_null (anot_dataset_lookup_review (ds, ""));

  /* The checksum covers every block, in order (documented order of the
   * files; this dataset has all six). */
  for (guint f = 0; f < F_META; f++)
    {
      static const int order[] = { F_RESTAURANTS, F_REVIEWS, F_USER_MAPPING,
                                   F_REQUESTS, F_GROUNDTRUTH, F_JUDGEMENTS };
      const char *contents = order[f] == F_REVIEWS ? reviews : base_files[order[f]];

      g_checksum_update (checksum, (const guchar *) contents, strlen (contents));
    }
  g_assert_cmpstr (anot_dataset_get_checksum (ds), ==, g_checksum_get_string (checksum));

  remove_tree (dir);
}

static void
test_many_items (void)
{
  g_autofree char *dir = make_dataset (-1, 0, NULL);
  g_autofree char *padding = g_strnfill (1200, 'q');
  g_autoptr(GString) items = g_string_new (base_files[F_RESTAURANTS]);
  g_autoptr(GError) error = NULL;
  g_autoptr(AnotDataset) ds = NULL;
  AnotItem *item;

  for (guint i = 0; i < 3000; i++)
    g_string_append_printf (items,
                            "{\"business_id\": \"gen%u\", \"name\": \"Generated %u\", "
                            "\"attributes\": {\"WiFi\": \"u'no'\", \"Note\": \"%s\"}, "
                            "\"categories\": \"Cafes, Gen %u\"}\n",
                            i, i, padding, i % 7);
  write_file (dir, "restaurants.jsonl", items->str);

  ds = anot_dataset_load (dir, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (anot_dataset_get_n_items (ds), ==, 3002);
  item = anot_dataset_lookup_item (ds, "gen2999");
  g_assert_cmpuint (anot_item_get_index (item), ==, 3001);
  g_assert_cmpstr (anot_item_get_name (item), ==, "Generated 2999");
  g_assert_cmpstr (anot_item_get_categories (item)[1], ==, "Gen 3");
  g_assert_cmpstr (anot_item_get_attribute (item, "WiFi"), ==, "u'no'");
  g_assert_cmpuint (anot_item_get_n_reviews (anot_dataset_get_item (ds, 0)), ==, 2);
  /* Repeated pieces are shared between neighbouring items (interned per
   * batch of lines). */
  g_assert_cmpstr (anot_item_get_categories (item)[0], ==, "Cafes");
  g_assert_true (anot_item_get_categories (anot_dataset_lookup_item (ds, "gen6"))[0] ==
                 anot_item_get_categories (anot_dataset_lookup_item (ds, "gen5"))[0]);
  g_clear_object (&ds);

  /* A duplicate in the last batch still names its line and the first
   * occurrence's, both 1-based lines of the file */
  g_string_append (items, "{\"business_id\": \"itemA\", \"name\": \"Again\"}\n");
  write_file (dir, "restaurants.jsonl", items->str);
  g_assert_null (anot_dataset_load (dir, NULL, &error));
  g_assert_error (error, ANOT_ERROR, ANOT_ERROR_DUPLICATE_ID);
  g_assert_cmpstr (error->message, ==,
                   "restaurants.jsonl:3003: field “business_id”: duplicate item id “itemA” "
                   "(first at restaurants.jsonl:1)");

  remove_tree (dir);
}

/* Batches are parsed in parallel but the first bad line in the file is the
 * one reported, whichever stage finds it. */
static void
test_many_reviews_errors (void)
{
  static const struct {
    guint       line;
    const char *text;
    guint       line2;
    const char *text2;
    int         code;
    const char *where;
  } cases[] = {
    /* a duplicate (found when committing) before a syntax error (found by
     * a worker) in a later batch */
    { 100, "{\"review_id\": \"m1\", \"business_id\": \"itemA\", \"stars\": 1, \"text\": \"d\"}",
      5000, "{", ANOT_ERROR_DUPLICATE_ID, "reviews.jsonl:100: " },
    /* and the other way round */
    { 100, "{", 5000, "{\"review_id\": \"m1\", \"business_id\": \"itemA\", \"stars\": 1, \"text\": \"d\"}",
      ANOT_ERROR_PARSE, "reviews.jsonl:100: " },
    /* a commit error and a worker error in the same batch */
    { 2001, "{\"review_id\": \"x\", \"business_id\": \"itemZ\", \"stars\": 1, \"text\": \"d\"}",
      2003, "{\"review_id\": \"y\"}", ANOT_ERROR_UNKNOWN_REFERENCE, "reviews.jsonl:2001: " },
    { 2001, "{\"review_id\": \"y\"}",
      2003, "{\"review_id\": \"x\", \"business_id\": \"itemZ\", \"stars\": 1, \"text\": \"d\"}",
      ANOT_ERROR_MISSING_FIELD, "reviews.jsonl:2001: " },
    /* only the last line is bad */
    { N_MANY_REVIEWS, "[]", 0, NULL, ANOT_ERROR_PARSE, "reviews.jsonl:6000: " },
  };

  for (guint c = 0; c < G_N_ELEMENTS (cases); c++)
    {
      g_autofree char *dir = make_dataset (-1, 0, NULL);
      g_autofree char *reviews = many_reviews (cases[c].line, cases[c].text);
      g_autoptr(GError) error = NULL;

      if (cases[c].line2 != 0)
        {
          g_auto(GStrv) lines = g_strsplit (reviews, "\n", -1);

          g_free (lines[cases[c].line2 - 1]);
          lines[cases[c].line2 - 1] = g_strdup (cases[c].text2);
          g_free (reviews);
          reviews = g_strjoinv ("\n", lines);
        }
      write_file (dir, "reviews.jsonl", reviews);

      g_assert_null (anot_dataset_load (dir, NULL, &error));
      g_assert_error (error, ANOT_ERROR, cases[c].code);
      g_assert_true (g_str_has_prefix (error->message, cases[c].where));
      /* A duplicate review id names where it first occurs. */
      if (cases[c].code == ANOT_ERROR_DUPLICATE_ID)
        g_assert_cmpstr (error->message, ==,
                         "reviews.jsonl:100: field “review_id”: duplicate review id “m1” "
                         "(first at reviews.jsonl:1)");

      remove_tree (dir);
    }
}

/* ------------------------------------------------------------------------ *
 * Error cases
 * ------------------------------------------------------------------------ */

typedef struct {
  const char *name;
  int         file;
  int         line;       /* 1-based; 0: whole file */
  const char *text;       /* NULL: remove the file */
  int         code;
  const char *message;    /* exact message, or NULL */
  const char *contains[4];
} ErrorCase;

static const ErrorCase error_cases[] = {
  { "malformed-line", F_REVIEWS, 2, "{\"review_id\": \"r2\", \"business_id\": ",
    ANOT_ERROR_PARSE, NULL, { "reviews.jsonl:2:", "invalid JSON" } },
  { "not-an-object", F_REQUESTS, 2, "[\"R2\"]",
    ANOT_ERROR_PARSE, "requests.jsonl:2: expected a JSON object" },
  { "malformed-document", F_USER_MAPPING, 0, "{\"friend_graph\": {\n  \"Ann\": [\"Bob\",]\n}}",
    ANOT_ERROR_PARSE, NULL, { "user_mapping.json:2:", "invalid JSON" } },
  { "missing-item-name", F_RESTAURANTS, 2, "{\"business_id\": \"itemB\"}",
    ANOT_ERROR_MISSING_FIELD, "restaurants.jsonl:2: field “name”: missing" },
  { "missing-item-id", F_RESTAURANTS, 1, "{\"name\": \"Cafe A\"}",
    ANOT_ERROR_MISSING_FIELD, NULL, { "restaurants.jsonl:1:", "“business_id”" } },
  { "missing-stars", F_REVIEWS, 2, "{\"review_id\": \"r2\", \"business_id\": \"itemB\", \"text\": \"Meh.\"}",
    ANOT_ERROR_MISSING_FIELD, "reviews.jsonl:2: field “stars”: missing" },
  { "missing-text", F_REVIEWS, 3, "{\"review_id\": \"r3\", \"business_id\": \"itemA\", \"stars\": 1}",
    ANOT_ERROR_MISSING_FIELD, NULL, { "reviews.jsonl:3:", "“text”" } },
  { "missing-structure", F_REQUESTS, 2, "{\"id\": \"R2\", \"group\": \"G01\", \"text\": \"t\", \"gold_restaurant\": \"itemB\"}",
    ANOT_ERROR_MISSING_FIELD, NULL, { "requests.jsonl:2:", "“structure”" } },
  { "missing-gold", F_REQUESTS, 2, "{\"id\": \"R2\", \"group\": \"G01\", \"text\": \"t\", \"structure\": " LEAF_TV "}",
    ANOT_ERROR_MISSING_FIELD, NULL, { "requests.jsonl:2:", "“gold_restaurant”" } },
  { "wrong-type-stars", F_REVIEWS, 2, "{\"review_id\": \"r2\", \"business_id\": \"itemB\", \"stars\": \"five\", \"text\": \"Meh.\"}",
    ANOT_ERROR_INVALID_FIELD, "reviews.jsonl:2: field “stars”: expected a number" },
  { "wrong-type-nested", F_REVIEWS, 2, "{\"review_id\": \"r2\", \"business_id\": \"itemB\", \"stars\": 2, \"text\": \"Meh.\", \"user\": {\"average_stars\": \"4\"}}",
    ANOT_ERROR_INVALID_FIELD, "reviews.jsonl:2: field “user.average_stars”: expected a number" },
  { "wrong-type-useful", F_REVIEWS, 1, "{\"review_id\": \"r1\", \"business_id\": \"itemA\", \"stars\": 2, \"text\": \"x\", \"useful\": 1.5}",
    ANOT_ERROR_INVALID_FIELD, "reviews.jsonl:1: field “useful”: expected an integer" },
  { "wrong-type-name", F_RESTAURANTS, 1, "{\"business_id\": \"itemA\", \"name\": 7}",
    ANOT_ERROR_INVALID_FIELD, "restaurants.jsonl:1: field “name”: expected a string" },
  { "wrong-type-attributes", F_RESTAURANTS, 2, "{\"business_id\": \"itemB\", \"name\": \"B\", \"attributes\": \"none\"}",
    ANOT_ERROR_INVALID_FIELD, "restaurants.jsonl:2: field “attributes”: expected an object" },
  { "wrong-type-group", F_REQUESTS, 1, "{\"id\": \"R1\", \"group\": 1, \"text\": \"t\", \"structure\": " LEAF_TV ", \"gold_restaurant\": \"itemA\"}",
    ANOT_ERROR_INVALID_FIELD, "requests.jsonl:1: field “group”: expected a string" },
  { "unknown-evidence-kind", F_REQUESTS, 1,
    "{\"id\": \"R1\", \"group\": \"G02\", \"text\": \"t\", \"structure\": {\"op\": \"AND\", \"args\": [" LEAF_WIFI ", "
    "{\"aspect\": \"x\", \"evidence\": {\"kind\": \"foo\"}}]}, \"gold_restaurant\": \"itemA\"}",
    ANOT_ERROR_INVALID_FIELD,
    "requests.jsonl:1: field “structure.args[1].evidence.kind”: unknown evidence kind “foo”" },
  { "unknown-op-nested", F_REQUESTS, 2,
    "{\"id\": \"R2\", \"group\": \"G01\", \"text\": \"t\", \"structure\": {\"op\": \"AND\", \"args\": [" LEAF_WIFI ", "
    "{\"op\": \"OR\", \"args\": [" LEAF_TV ", {\"op\": \"XOR\", \"args\": []}]}]}, \"gold_restaurant\": \"itemB\"}",
    ANOT_ERROR_INVALID_FIELD,
    "requests.jsonl:2: field “structure.args[1].args[1].op”: unknown op “XOR”" },
  { "leaf-without-evidence", F_REQUESTS, 2,
    "{\"id\": \"R2\", \"group\": \"G01\", \"text\": \"t\", \"structure\": {\"op\": \"AND\", \"args\": [{\"aspect\": \"x\"}]}, \"gold_restaurant\": \"itemB\"}",
    ANOT_ERROR_MISSING_FIELD, "requests.jsonl:2: field “structure.args[0].evidence”: missing" },
  { "item-meta-without-path", F_REQUESTS, 2,
    "{\"id\": \"R2\", \"group\": \"G01\", \"text\": \"t\", \"structure\": {\"op\": \"AND\", \"args\": [{\"aspect\": \"x\", \"evidence\": {\"kind\": \"item_meta\", \"true\": \"True\"}}]}, \"gold_restaurant\": \"itemB\"}",
    ANOT_ERROR_MISSING_FIELD, "requests.jsonl:2: field “structure.args[0].evidence.path”: missing" },
  { "item-meta-path-not-strings", F_REQUESTS, 2,
    "{\"id\": \"R2\", \"group\": \"G01\", \"text\": \"t\", \"structure\": {\"op\": \"AND\", \"args\": [{\"aspect\": \"x\", \"evidence\": {\"path\": [\"attributes\", 3]}}]}, \"gold_restaurant\": \"itemB\"}",
    ANOT_ERROR_INVALID_FIELD, "requests.jsonl:2: field “structure.args[0].evidence.path[1]”: expected a string" },
  { "hours-bad-path", F_REQUESTS, 2,
    "{\"id\": \"R2\", \"group\": \"G01\", \"text\": \"t\", \"structure\": {\"op\": \"AND\", \"args\": [{\"aspect\": \"x\", \"evidence\": {\"kind\": \"item_meta_hours\", \"path\": [\"attributes\", \"Monday\"], \"true\": \"7:0-8:0\"}}]}, \"gold_restaurant\": \"itemB\"}",
    ANOT_ERROR_INVALID_FIELD, NULL, { "requests.jsonl:2:", "“structure.args[0].evidence.path”" } },
  { "hours-without-range", F_REQUESTS, 2,
    "{\"id\": \"R2\", \"group\": \"G01\", \"text\": \"t\", \"structure\": {\"op\": \"AND\", \"args\": [{\"aspect\": \"x\", \"evidence\": {\"kind\": \"item_meta_hours\", \"path\": [\"hours\", \"Monday\"]}}]}, \"gold_restaurant\": \"itemB\"}",
    ANOT_ERROR_MISSING_FIELD, "requests.jsonl:2: field “structure.args[0].evidence.true”: missing" },
  { "structure-not-object", F_REQUESTS, 2,
    "{\"id\": \"R2\", \"group\": \"G01\", \"text\": \"t\", \"structure\": [], \"gold_restaurant\": \"itemB\"}",
    ANOT_ERROR_INVALID_FIELD, "requests.jsonl:2: field “structure”: expected an object" },
  { "duplicate-item", F_RESTAURANTS, 2, "{\"business_id\": \"itemA\", \"name\": \"Again\"}",
    ANOT_ERROR_DUPLICATE_ID, NULL, { "restaurants.jsonl:2:", "“business_id”", "itemA" } },
  { "duplicate-review", F_REVIEWS, 3, "{\"review_id\": \"r1\", \"business_id\": \"itemA\", \"stars\": 1, \"text\": \"again\"}",
    ANOT_ERROR_DUPLICATE_ID, NULL, { "reviews.jsonl:3:", "“review_id”", "r1" } },
  { "duplicate-request", F_REQUESTS, 3,
    "{\"id\": \"R1\", \"group\": \"G01\", \"text\": \"t\", \"structure\": " LEAF_TV ", \"gold_restaurant\": \"itemB\"}",
    ANOT_ERROR_DUPLICATE_ID, NULL, { "requests.jsonl:3:", "“id”", "R1" } },
  { "review-stars-out-of-range", F_REVIEWS, 2, "{\"review_id\": \"r2\", \"business_id\": \"itemA\", \"stars\": 9, \"text\": \"Meh.\"}",
    ANOT_ERROR_INVALID_FIELD, "reviews.jsonl:2: field “stars”: expected a number from 1 to 5" },
  { "review-stars-zero", F_REVIEWS, 2, "{\"review_id\": \"r2\", \"business_id\": \"itemA\", \"stars\": 0, \"text\": \"Meh.\"}",
    ANOT_ERROR_INVALID_FIELD, "reviews.jsonl:2: field “stars”: expected a number from 1 to 5" },
  { "review-of-unknown-item", F_REVIEWS, 2, "{\"review_id\": \"r2\", \"business_id\": \"itemZ\", \"stars\": 2, \"text\": \"Meh.\"}",
    ANOT_ERROR_UNKNOWN_REFERENCE, "reviews.jsonl:2: field “business_id”: unknown item “itemZ”" },
  { "gold-not-an-item", F_REQUESTS, 2,
    "{\"id\": \"R2\", \"group\": \"G01\", \"text\": \"t\", \"structure\": " LEAF_TV ", \"gold_restaurant\": \"itemZ\"}",
    ANOT_ERROR_UNKNOWN_REFERENCE, "requests.jsonl:2: field “gold_restaurant”: unknown item “itemZ”" },
  { "groundtruth-other-gold", F_GROUNDTRUTH, 2, "{\"request_id\": \"R2\", \"gold_restaurant\": \"itemA\", \"gold_idx\": 0, \"status\": \"ok\"}",
    ANOT_ERROR_INVALID_FIELD, NULL, { "groundtruth.jsonl:2:", "“gold_restaurant”", "itemB" } },
  { "groundtruth-wrong-index", F_GROUNDTRUTH, 2, "{\"request_id\": \"R2\", \"gold_restaurant\": \"itemB\", \"gold_idx\": 0, \"status\": \"ok\"}",
    ANOT_ERROR_INVALID_FIELD, NULL, { "groundtruth.jsonl:2:", "“gold_idx”" } },
  { "groundtruth-gold-not-an-item", F_GROUNDTRUTH, 1, "{\"request_id\": \"R1\", \"gold_restaurant\": \"itemZ\", \"gold_idx\": 0}",
    ANOT_ERROR_UNKNOWN_REFERENCE, NULL, { "groundtruth.jsonl:1:", "“gold_restaurant”", "itemZ" } },
  { "groundtruth-unknown-request", F_GROUNDTRUTH, 3, "{\"request_id\": \"R9\", \"gold_restaurant\": \"itemA\", \"gold_idx\": 0}",
    ANOT_ERROR_UNKNOWN_REFERENCE, NULL, { "groundtruth.jsonl:3:", "“request_id”", "R9" } },
  { "groundtruth-duplicate", F_GROUNDTRUTH, 3, "{\"request_id\": \"R1\", \"gold_restaurant\": \"itemA\", \"gold_idx\": 0}",
    ANOT_ERROR_DUPLICATE_ID, NULL, { "groundtruth.jsonl:3:", "“request_id”", "R1" } },
  { "groundtruth-incomplete", F_GROUNDTRUTH, 3, "",
    ANOT_ERROR_MISSING_FIELD, NULL, { "groundtruth.jsonl", "R3" } },
  { "groundtruth-bad-status", F_GROUNDTRUTH, 3, "{\"request_id\": \"R3\", \"gold_restaurant\": \"itemA\", \"gold_idx\": 0, \"status\": \"fine\"}",
    ANOT_ERROR_INVALID_FIELD, NULL, { "groundtruth.jsonl:3:", "“status”" } },
  { "friend-graph-not-names", F_USER_MAPPING, 0, "{\"friend_graph\": {\"Ann\": [\"Bob\", 2]}}",
    ANOT_ERROR_INVALID_FIELD, "user_mapping.json: field “friend_graph.Ann[1]”: expected a string" },
  { "assignment-without-name", F_USER_MAPPING, 0, "{\"review_assignments\": {\"0\": [{\"review_idx\": 0, \"name\": \"Ann\"}, {\"review_idx\": 1}]}}",
    ANOT_ERROR_MISSING_FIELD, "user_mapping.json: field “review_assignments.0[1].name”: missing" },
  { "assignment-unknown-item", F_USER_MAPPING, 0, "{\"review_assignments\": {\"7\": []}}",
    ANOT_ERROR_UNKNOWN_REFERENCE, NULL, { "user_mapping.json:", "“review_assignments.7”" } },
  { "assignment-bad-key", F_USER_MAPPING, 0, "{\"review_assignments\": {\"first\": []}}",
    ANOT_ERROR_INVALID_FIELD, NULL, { "user_mapping.json:", "“review_assignments.first”" } },
  { "judgement-not-object", F_JUDGEMENTS, 0, "{\"r1:tea\": \"positive\"}",
    ANOT_ERROR_INVALID_FIELD, "judgement_cache.json: field “r1:tea”: expected an object" },
  { "judgements-not-object", F_JUDGEMENTS, 0, "[]",
    ANOT_ERROR_PARSE, NULL, { "judgement_cache.json" } },
  /* Mistakes the grammar allows but the format forbids. */
  { "duplicate-aspect", F_REQUESTS, 2,
    "{\"id\": \"R2\", \"group\": \"G01\", \"text\": \"t\", \"structure\": {\"op\": \"AND\", \"args\": [" LEAF_TV ", {\"op\": \"OR\", \"args\": [" LEAF_WIFI ", " LEAF_TV "]}]}, \"gold_restaurant\": \"itemB\"}",
    ANOT_ERROR_DUPLICATE_ID,
    "requests.jsonl:2: field “structure.args[1].args[1].aspect”: duplicate aspect “tv” (also at structure.args[0]); aspects must be unique within a request" },
  { "item-hours-malformed", F_RESTAURANTS, 2, "{\"business_id\": \"itemB\", \"name\": \"B\", \"hours\": {\"Monday\": \"5am-11pm\"}}",
    ANOT_ERROR_INVALID_FIELD, NULL, { "restaurants.jsonl:2: field “hours.Monday”:", "5am-11pm", "H:M-H:M" } },
  { "item-hours-past-midnight-minutes", F_RESTAURANTS, 2, "{\"business_id\": \"itemB\", \"name\": \"B\", \"hours\": {\"Monday\": \"8:0-24:30\"}}",
    ANOT_ERROR_INVALID_FIELD, NULL, { "restaurants.jsonl:2: field “hours.Monday”:" } },
  { "item-hours-unknown-day", F_RESTAURANTS, 2, "{\"business_id\": \"itemB\", \"name\": \"B\", \"hours\": {\"Mon\": \"8:0-9:0\"}}",
    ANOT_ERROR_INVALID_FIELD, NULL, { "restaurants.jsonl:2: field “hours.Mon”:", "unknown day" } },
  { "item-hours-not-string", F_RESTAURANTS, 2, "{\"business_id\": \"itemB\", \"name\": \"B\", \"hours\": {\"Monday\": 8}}",
    ANOT_ERROR_INVALID_FIELD, NULL, { "restaurants.jsonl:2: field “hours.Monday”:" } },
  { "hours-leaf-malformed-range", F_REQUESTS, 2,
    "{\"id\": \"R2\", \"group\": \"G01\", \"text\": \"t\", \"structure\": {\"op\": \"AND\", \"args\": [{\"aspect\": \"x\", \"evidence\": {\"kind\": \"item_meta_hours\", \"path\": [\"hours\", \"Monday\"], \"true\": \"7am-8am\"}}]}, \"gold_restaurant\": \"itemB\"}",
    ANOT_ERROR_INVALID_FIELD, NULL, { "requests.jsonl:2: field “structure.args[0].evidence.true”:", "7am-8am" } },
  { "hours-leaf-unknown-day", F_REQUESTS, 2,
    "{\"id\": \"R2\", \"group\": \"G01\", \"text\": \"t\", \"structure\": {\"op\": \"AND\", \"args\": [{\"aspect\": \"x\", \"evidence\": {\"kind\": \"item_meta_hours\", \"path\": [\"hours\", \"Funday\"], \"true\": \"7:0-8:0\"}}]}, \"gold_restaurant\": \"itemB\"}",
    ANOT_ERROR_INVALID_FIELD, NULL, { "requests.jsonl:2: field “structure.args[0].evidence.path[1]”:", "Funday" } },
  { "review-text-without-pattern", F_REQUESTS, 2,
    "{\"id\": \"R2\", \"group\": \"G01\", \"text\": \"t\", \"structure\": {\"op\": \"AND\", \"args\": [{\"aspect\": \"x\", \"evidence\": {\"kind\": \"review_text\", \"text\": \"cozy\"}}]}, \"gold_restaurant\": \"itemB\"}",
    ANOT_ERROR_MISSING_FIELD, "requests.jsonl:2: field “structure.args[0].evidence.pattern”: missing" },
  { "review-sentiment-without-topic", F_REQUESTS, 2,
    "{\"id\": \"R2\", \"group\": \"G01\", \"text\": \"t\", \"structure\": {\"op\": \"AND\", \"args\": [{\"aspect\": \"x\", \"evidence\": {\"kind\": \"review_sentiment\", \"sentiment\": \"positive\"}}]}, \"gold_restaurant\": \"itemB\"}",
    ANOT_ERROR_MISSING_FIELD, "requests.jsonl:2: field “structure.args[0].evidence.topic”: missing" },
  { "social-anchor-not-in-graph", F_REQUESTS, 2,
    "{\"id\": \"R2\", \"group\": \"G01\", \"text\": \"t\", \"structure\": {\"op\": \"AND\", \"args\": [" LEAF_TV ", {\"aspect\": \"s\", \"evidence\": {\"kind\": \"social_rating\", \"min_stars\": 4, \"social_filter\": {\"friends\": [\"Cy\", \"Dora\"], \"hops\": 1}}}]}, \"gold_restaurant\": \"itemB\"}",
    ANOT_ERROR_UNKNOWN_REFERENCE,
    "requests.jsonl:2: field “structure.args[1].evidence.social_filter.friends[1]”: “Dora” is not in the friend graph (user_mapping.json “friend_graph”)" },
  { "social-anchors-not-names", F_REQUESTS, 2,
    "{\"id\": \"R2\", \"group\": \"G01\", \"text\": \"t\", \"structure\": {\"op\": \"AND\", \"args\": [{\"aspect\": \"s\", \"evidence\": {\"kind\": \"social_rating\", \"social_filter\": {\"friends\": \"Cy\"}}}]}, \"gold_restaurant\": \"itemB\"}",
    ANOT_ERROR_INVALID_FIELD, NULL, { "requests.jsonl:2: field “structure.args[0].evidence.social_filter.friends”" } },
  /* Parameters the rules read as numbers or as one of a few words: a
   * typo would silently change the leaf (a default, the negative rule). */
  { "review-sentiment-unknown-sentiment", F_REQUESTS, 2,
    "{\"id\": \"R2\", \"group\": \"G01\", \"text\": \"t\", \"structure\": {\"op\": \"AND\", \"args\": [{\"aspect\": \"x\", \"evidence\": {\"kind\": \"review_sentiment\", \"topic\": \"tea\", \"sentiment\": \"postive\"}}]}, \"gold_restaurant\": \"itemB\"}",
    ANOT_ERROR_INVALID_FIELD,
    "requests.jsonl:2: field “structure.args[0].evidence.sentiment”: unknown value “postive” (expected “positive”, “negative”)" },
  { "social-hops-not-number", F_REQUESTS, 2,
    "{\"id\": \"R2\", \"group\": \"G01\", \"text\": \"t\", \"structure\": {\"op\": \"AND\", \"args\": [{\"aspect\": \"x\", \"evidence\": {\"kind\": \"social_rating\", \"min_stars\": 4, \"social_filter\": {\"friends\": [\"Cy\"], \"hops\": \"2\"}}}]}, \"gold_restaurant\": \"itemB\"}",
    ANOT_ERROR_INVALID_FIELD,
    "requests.jsonl:2: field “structure.args[0].evidence.social_filter.hops”: expected a number" },
  { "social-min-stars-not-number", F_REQUESTS, 2,
    "{\"id\": \"R2\", \"group\": \"G01\", \"text\": \"t\", \"structure\": {\"op\": \"AND\", \"args\": [{\"aspect\": \"x\", \"evidence\": {\"kind\": \"social_rating\", \"min_stars\": \"5\", \"social_filter\": {\"friends\": [\"Cy\"], \"hops\": 1}}}]}, \"gold_restaurant\": \"itemB\"}",
    ANOT_ERROR_INVALID_FIELD,
    "requests.jsonl:2: field “structure.args[0].evidence.min_stars”: expected a number" },
  { "group-rating-unknown-metric", F_REQUESTS, 2,
    "{\"id\": \"R2\", \"group\": \"G01\", \"text\": \"t\", \"structure\": {\"op\": \"AND\", \"args\": [{\"aspect\": \"x\", \"evidence\": {\"kind\": \"review_group_rating\", \"metric\": \"avg\", \"threshold\": 4, \"operator\": \"gte\"}}]}, \"gold_restaurant\": \"itemB\"}",
    ANOT_ERROR_INVALID_FIELD,
    "requests.jsonl:2: field “structure.args[0].evidence.metric”: unknown value “avg” (expected “count”, “avg_stars”)" },
  { "group-rating-threshold-not-number", F_REQUESTS, 2,
    "{\"id\": \"R2\", \"group\": \"G01\", \"text\": \"t\", \"structure\": {\"op\": \"AND\", \"args\": [{\"aspect\": \"x\", \"evidence\": {\"kind\": \"review_group_rating\", \"metric\": \"count\", \"threshold\": \"4\", \"operator\": \"gte\"}}]}, \"gold_restaurant\": \"itemB\"}",
    ANOT_ERROR_INVALID_FIELD,
    "requests.jsonl:2: field “structure.args[0].evidence.threshold”: expected a number" },
  { "group-filter-unknown-operator", F_REQUESTS, 2,
    "{\"id\": \"R2\", \"group\": \"G01\", \"text\": \"t\", \"structure\": {\"op\": \"AND\", \"args\": [{\"aspect\": \"x\", \"evidence\": {\"kind\": \"review_group_rating\", \"metric\": \"count\", \"threshold\": 4, \"group_filter\": {\"field\": \"date\", \"operator\": \">=\", \"value\": \"2020\"}}}]}, \"gold_restaurant\": \"itemB\"}",
    ANOT_ERROR_INVALID_FIELD,
    "requests.jsonl:2: field “structure.args[0].evidence.group_filter.operator”: unknown value “>=” (expected “gte”, “gt”, “lt”, “lte”)" },
  { "group-negative-cutoff-not-number", F_REQUESTS, 2,
    "{\"id\": \"R2\", \"group\": \"G01\", \"text\": \"t\", \"structure\": {\"op\": \"AND\", \"args\": [{\"aspect\": \"x\", \"evidence\": {\"kind\": \"review_group_rating_negative\", \"condition\": {\"generous_avg_gte\": \"4\"}}}]}, \"gold_restaurant\": \"itemB\"}",
    ANOT_ERROR_INVALID_FIELD,
    "requests.jsonl:2: field “structure.args[0].evidence.condition.generous_avg_gte”: expected a number" },
  /* The gold under its domain-neutral name. */
  { "gold-item-not-an-item", F_REQUESTS, 2,
    "{\"id\": \"R2\", \"group\": \"G01\", \"text\": \"t\", \"structure\": " LEAF_TV ", \"gold_item\": \"itemZ\"}",
    ANOT_ERROR_UNKNOWN_REFERENCE, "requests.jsonl:2: field “gold_item”: unknown item “itemZ”" },
  { "gold-item-disagrees", F_REQUESTS, 2,
    "{\"id\": \"R2\", \"group\": \"G01\", \"text\": \"t\", \"structure\": " LEAF_TV ", \"gold_item\": \"itemA\", \"gold_restaurant\": \"itemB\"}",
    ANOT_ERROR_INVALID_FIELD, NULL, { "requests.jsonl:2: field “gold_item”:", "itemA", "itemB" } },
  /* meta.json */
  { "meta-not-json", F_META, 0, "{\"domain\": ",
    ANOT_ERROR_PARSE, NULL, { "meta.json" } },
  { "meta-not-object", F_META, 0, "[]",
    ANOT_ERROR_PARSE, "meta.json: expected a JSON object" },
  { "domain-without-item", F_META, 0, "{\"domain\": {\"items\": \"hotels\"}}",
    ANOT_ERROR_MISSING_FIELD, "meta.json: field “domain.item”: missing" },
  { "domain-unknown-member", F_META, 0, "{\"domain\": {\"item\": \"hotel\", \"noun\": \"hotels\"}}",
    ANOT_ERROR_INVALID_FIELD, NULL, { "meta.json: field “domain.noun”: unknown member" } },
  { "domain-blank-noun", F_META, 0, "{\"domain\": {\"item\": \" \"}}",
    ANOT_ERROR_INVALID_FIELD, NULL, { "meta.json: field “domain.item”:" } },
  { "domain-attribute-not-string", F_META, 0, "{\"domain\": {\"item\": \"hotel\", \"attributes\": {\"Pool\": true}}}",
    ANOT_ERROR_INVALID_FIELD, NULL, { "meta.json: field “domain.attributes.Pool”:" } },
  { "missing-restaurants", F_RESTAURANTS, 0, NULL,
    ANOT_ERROR_IO, NULL, { "restaurants.jsonl" } },
  { "missing-reviews", F_REVIEWS, 0, NULL,
    ANOT_ERROR_IO, NULL, { "reviews.jsonl" } },
  { "missing-requests", F_REQUESTS, 0, NULL,
    ANOT_ERROR_IO, NULL, { "requests.jsonl" } },
};

static void
test_error_case (gconstpointer data)
{
  const ErrorCase *c = data;
  g_autofree char *dir = make_dataset (c->file, c->line, c->text);
  g_autoptr(GError) error = NULL;
  AnotDataset *ds;

  ds = anot_dataset_load (dir, NULL, &error);
  g_assert_null (ds);
  g_assert_error (error, ANOT_ERROR, c->code);
  g_test_message ("%s: %s", c->name, error->message);
  if (c->message != NULL)
    g_assert_cmpstr (error->message, ==, c->message);
  for (guint i = 0; i < G_N_ELEMENTS (c->contains) && c->contains[i] != NULL; i++)
    g_assert_nonnull (strstr (error->message, c->contains[i]));

  remove_tree (dir);
}

static void
test_error_line_numbers (void)
{
  /* Blank lines count: the message gives the physical line. */
  g_autofree char *dir = make_dataset (-1, 0, NULL);
  g_autoptr(GError) error = NULL;
  g_autofree char *reviews = g_strconcat ("\n\n", base_files[F_REVIEWS],
                                          "{\"review_id\": 5}\n", NULL);

  write_file (dir, "reviews.jsonl", reviews);
  g_assert_null (anot_dataset_load (dir, NULL, &error));
  g_assert_error (error, ANOT_ERROR, ANOT_ERROR_INVALID_FIELD);
  g_assert_cmpstr (error->message, ==, "reviews.jsonl:6: field “review_id”: expected a string");

  remove_tree (dir);
}

static void
test_error_missing_directory (void)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *dir = make_dataset (-1, 0, NULL);
  g_autofree char *missing = g_build_filename (dir, "nope", NULL);
  g_autofree char *file = g_build_filename (dir, "restaurants.jsonl", NULL);

  g_assert_null (anot_dataset_load (missing, NULL, &error));
  g_assert_error (error, ANOT_ERROR, ANOT_ERROR_IO);
  g_assert_nonnull (strstr (error->message, "nope"));
  g_clear_error (&error);

  g_assert_null (anot_dataset_load (file, NULL, &error));
  g_assert_error (error, ANOT_ERROR, ANOT_ERROR_IO);
  g_assert_nonnull (strstr (error->message, "not a directory"));

  remove_tree (dir);
}

static void
test_cancelled (void)
{
  g_autofree char *dir = make_dataset (-1, 0, NULL);
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  g_autoptr(GError) error = NULL;

  g_cancellable_cancel (cancellable);
  g_assert_null (anot_dataset_load (dir, cancellable, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);

  remove_tree (dir);
}


/* ------------------------------------------------------------------------ *
 * Domains: meta.json, items.jsonl, gold_item
 * ------------------------------------------------------------------------ */

static void
test_domain_default (void)
{
  g_autofree char *dir = make_dataset (-1, 0, NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(AnotDataset) ds = anot_dataset_load (dir, NULL, &error);
  g_autoptr(AnotDataset) with_meta = NULL;
  AnotDomain *domain;

  g_assert_no_error (error);
  domain = anot_dataset_get_domain (ds);
  g_assert_true (anot_domain_is_default (domain));
  g_assert_cmpstr (anot_domain_get_item (domain), ==, "restaurant");
  g_assert_cmpstr (anot_domain_get_items (domain), ==, "restaurants");
  g_assert_cmpstr (anot_domain_get_item_title (domain), ==, "Restaurant");
  g_assert_cmpstr (anot_domain_get_items_title (domain), ==, "Restaurants");
  g_assert_null (anot_domain_get_attribute_names (domain)[0]);
  g_assert_cmpstr (anot_dataset_get_items_file (ds), ==, "restaurants.jsonl");

  /* A meta.json without a domain (the original's description of how the
   * data was built) changes nothing, the checksum included. */
  write_file (dir, "meta.json", "{\"name\": \"x\", \"restaurants\": {\"count\": 2}}");
  with_meta = anot_dataset_load (dir, NULL, &error);
  g_assert_no_error (error);
  g_assert_true (anot_domain_is_default (anot_dataset_get_domain (with_meta)));
  g_assert_cmpstr (anot_dataset_get_checksum (with_meta), ==, anot_dataset_get_checksum (ds));

  remove_tree (dir);
}

/* The capitalised nouns of headings and prompts: the first character in
 * title case, outside ASCII too, the rest untouched. */
static void
test_domain_titles (void)
{
  static const struct { const char *item, *items, *item_title, *items_title; } cases[] = {
    { "hotel", "hotels", "Hotel", "Hotels" },
    { "bed and breakfast", "bed and breakfasts", "Bed and breakfast", "Bed and breakfasts" },
    { "\xc3\xa9" "cole", NULL, "\xc3\x89" "cole", "\xc3\x89" "coles" },  /* école */
    { "\xc7\x86ungla", NULL, "\xc7\x85ungla", "\xc7\x85unglas" },  /* ǆ: title case ǅ, not DŽ */
    { "iPhone", NULL, "IPhone", "IPhones" },
    { "Caf\xc3\xa9", "Caf\xc3\xa9s", "Caf\xc3\xa9", "Caf\xc3\xa9s" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(AnotDomain) domain = anot_domain_new (cases[i].item, cases[i].items);

      g_assert_cmpstr (anot_domain_get_item_title (domain), ==, cases[i].item_title);
      g_assert_cmpstr (anot_domain_get_items_title (domain), ==, cases[i].items_title);
      /* The lower-case nouns stay as declared. */
      g_assert_cmpstr (anot_domain_get_item (domain), ==, cases[i].item);
    }
}

static void
test_domain_hotels (void)
{
  static const char meta[] =
    "{\"name\": \"hotels\", \"domain\": {\"item\": \"hotel\", \"items\": \"hotels\", "
    "\"attributes\": {\"Pool\": \"has a swimming pool\", \"WiFi\": \"wireless internet\"}}}";
  g_autofree char *dir = make_dataset (-1, 0, NULL);
  g_autofree char *restaurants = g_build_filename (dir, "restaurants.jsonl", NULL);
  g_autofree char *items = g_build_filename (dir, "items.jsonl", NULL);
  g_autofree char *plain_checksum = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(AnotDataset) plain = NULL;
  g_autoptr(AnotDataset) ds = NULL;
  g_autoptr(AnotDataset) no_plural = NULL;
  g_autoptr(AnotDomain) parsed = NULL;
  AnotDomain *domain;
  const char * const *names;
  g_autofree char *requests = NULL;
  g_auto(GStrv) parts = NULL;

  plain = anot_dataset_load (dir, NULL, &error);
  g_assert_no_error (error);
  plain_checksum = g_strdup (anot_dataset_get_checksum (plain));

  /* Domain-neutral names: items.jsonl and gold_item. */
  g_assert_cmpint (g_rename (restaurants, items), ==, 0);
  parts = g_strsplit (base_files[F_REQUESTS], "\"gold_restaurant\"", -1);
  requests = g_strjoinv ("\"gold_item\"", parts);
  write_file (dir, "requests.jsonl", requests);
  write_file (dir, "meta.json", meta);

  ds = anot_dataset_load (dir, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (anot_dataset_get_items_file (ds), ==, "items.jsonl");
  g_assert_cmpuint (anot_dataset_get_n_items (ds), ==, 2);
  g_assert_cmpstr (anot_request_get_gold_item_id (anot_dataset_get_request (ds, 1)), ==, "itemB");

  domain = anot_dataset_get_domain (ds);
  g_assert_false (anot_domain_is_default (domain));
  g_assert_cmpstr (anot_domain_get_item (domain), ==, "hotel");
  g_assert_cmpstr (anot_domain_get_items (domain), ==, "hotels");
  names = anot_domain_get_attribute_names (domain);
  g_assert_cmpstr (names[0], ==, "Pool");
  g_assert_cmpstr (names[1], ==, "WiFi");
  g_assert_null (names[2]);
  g_assert_cmpstr (anot_domain_get_attribute_description (domain, "Pool"), ==, "has a swimming pool");
  g_assert_null (anot_domain_get_attribute_description (domain, "Spa"));

  /* The domain changes what methods are shown, so it is in the checksum. */
  g_assert_cmpstr (anot_dataset_get_checksum (ds), !=, plain_checksum);

  /* "items" defaults to the singular with an s. */
  write_file (dir, "meta.json", "{\"domain\": {\"item\": \"book\"}}");
  no_plural = anot_dataset_load (dir, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (anot_domain_get_items (anot_dataset_get_domain (no_plural)), ==, "books");
  g_assert_cmpstr (anot_domain_get_items_title (anot_dataset_get_domain (no_plural)), ==, "Books");

  parsed = anot_domain_new_from_json ("{\"item\": \"job\", \"items\": \"jobs\", \"attributes\": {\"Remote\": \"can be done from home\"}}", -1, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (anot_domain_get_attribute_description (parsed, "Remote"), ==, "can be done from home");

  /* Both files at once: which is the benchmark? */
  write_file (dir, "restaurants.jsonl", base_files[F_RESTAURANTS]);
  g_assert_null (anot_dataset_load (dir, NULL, &error));
  g_assert_error (error, ANOT_ERROR, ANOT_ERROR_INVALID_FIELD);
  g_assert_nonnull (strstr (error->message, "items.jsonl"));
  g_assert_nonnull (strstr (error->message, "restaurants.jsonl"));
  g_clear_error (&error);

  /* An items.jsonl error names items.jsonl. */
  g_assert_cmpint (g_unlink (restaurants), ==, 0);
  write_file (dir, "items.jsonl", "{\"business_id\": \"itemA\", \"name\": 3}\n");
  g_assert_null (anot_dataset_load (dir, NULL, &error));
  g_assert_error (error, ANOT_ERROR, ANOT_ERROR_INVALID_FIELD);
  g_assert_cmpstr (error->message, ==, "items.jsonl:1: field “name”: expected a string");

  remove_tree (dir);
}

static void
test_hours_all_day (void)
{
  /* "0:0-24:0" is open around the clock; "0:0-0:0" stays Yelp's empty
   * range. */
  g_autofree char *dir = make_dataset (F_RESTAURANTS, 2,
                                       "{\"business_id\": \"itemB\", \"name\": \"B\", "
                                       "\"hours\": {\"Monday\": \"0:0-24:0\", \"Tuesday\": \"07:30-16:00\", \"Sunday\": \"\"}}");
  g_autoptr(GError) error = NULL;
  g_autoptr(AnotDataset) ds = anot_dataset_load (dir, NULL, &error);

  g_assert_no_error (error);
  g_assert_cmpstr (anot_item_get_hours (anot_dataset_get_item (ds, 1), "Monday"), ==, "0:0-24:0");
  /* A day stored as "" is closed, as the rules read it (dataset-format.md). */
  g_assert_null (anot_item_get_hours (anot_dataset_get_item (ds, 1), "Sunday"));
  remove_tree (dir);
}

/* ------------------------------------------------------------------------ *
 * Conditions on their own
 * ------------------------------------------------------------------------ */

static void
test_condition_from_json (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) node = json_from_string ("{\"op\": \"NOT\", \"args\": [" LEAF_WIFI "]}", &error);
  g_autoptr(JsonNode) bad = json_from_string ("{\"op\": \"AND\", \"args\": [" LEAF_TV ", {\"aspect\": \"y\", \"evidence\": {\"kind\": 3}}]}", &error);
  g_autoptr(JsonNode) leaf_node = json_from_string (LEAF_ESPRESSO, &error);
  g_autoptr(AnotCondition) cond = NULL;
  g_autoptr(AnotCondition) leaf = NULL;
  g_autoptr(JsonNode) back = NULL;
  g_autoptr(GPtrArray) leaves = NULL;
  g_autofree char *aspect = NULL;
  AnotConditionOp op;
  AnotEvidenceKind kind;
  JsonObject *evidence;

  g_assert_no_error (error);

  cond = anot_condition_new_from_json (node, &error);
  g_assert_no_error (error);
  g_assert_cmpint (anot_condition_get_op (cond), ==, ANOT_CONDITION_OP_NOT);
  g_assert_null (anot_condition_get_aspect (cond));
  g_assert_null (anot_condition_get_evidence (cond));
  g_assert_cmpint (anot_condition_get_evidence_kind (cond), ==, ANOT_EVIDENCE_NONE);

  /* The caller's tree is mutable: changing it must not change the
   * condition. */
  json_object_set_string_member (json_node_get_object (node), "op", "OR");
  json_object_remove_member (json_node_get_object (node), "args");
  g_assert_cmpuint (anot_condition_get_n_children (cond), ==, 1);
  evidence = anot_condition_get_evidence (anot_condition_get_child (cond, 0));
  g_assert_cmpstr (json_object_get_string_member (evidence, "true"), ==, "u'free'");

  back = anot_condition_to_json (cond);
  g_assert_cmpstr (json_object_get_string_member (json_node_get_object (back), "op"), ==, "NOT");

  g_object_get (anot_condition_get_child (cond, 0), "op", &op, "evidence-kind", &kind,
                "aspect", &aspect, NULL);
  g_assert_cmpint (op, ==, ANOT_CONDITION_OP_LEAF);
  g_assert_cmpint (kind, ==, ANOT_EVIDENCE_ITEM_META);
  g_assert_cmpstr (aspect, ==, "wifi");

  leaf = anot_condition_new_from_json (leaf_node, &error);
  g_assert_no_error (error);
  leaves = anot_condition_collect_leaves (leaf);
  g_assert_cmpuint (leaves->len, ==, 1);
  g_assert_true (leaves->pdata[0] == leaf);
  g_assert_cmpint (anot_condition_get_evidence_kind (leaf), ==, ANOT_EVIDENCE_REVIEW_TEXT);

  g_assert_null (anot_condition_new_from_json (bad, &error));
  g_assert_error (error, ANOT_ERROR, ANOT_ERROR_INVALID_FIELD);
  g_assert_cmpstr (error->message, ==, "field “args[1].evidence.kind”: expected a string");
}

static void
test_evidence_kind_names (void)
{
  static const char * const names[] = {
    "item_meta", "item_meta_hours", "review_text", "review_sentiment",
    "social_rating", "review_group_rating", "review_group_rating_negative",
  };
  g_autoptr(GEnumClass) klass = g_type_class_ref (ANOT_TYPE_EVIDENCE_KIND);

  g_assert_null (anot_evidence_kind_to_string (ANOT_EVIDENCE_NONE));
  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    {
      AnotEvidenceKind kind = ANOT_EVIDENCE_NONE;

      g_assert_true (_anot_evidence_kind_from_string (names[i], &kind));
      g_assert_cmpint (kind, !=, ANOT_EVIDENCE_NONE);
      g_assert_cmpstr (anot_evidence_kind_to_string (kind), ==, names[i]);
    }
  g_assert_false (_anot_evidence_kind_from_string ("Item_Meta", NULL));
  /* Every enum value but NONE has a name. */
  g_assert_cmpuint (klass->n_values, ==, G_N_ELEMENTS (names) + 1);
}

/* ------------------------------------------------------------------------ *
 * philly_cafes
 * ------------------------------------------------------------------------ */

static void
test_philly_counts (void)
{
  AnotDataset *ds = anot_test_get_philly ();
  g_auto(GStrv) groups = NULL;
  guint n20 = 0, n19 = 0, n_other = 0, total = 0;
  guint n_items, n_reviews, n_requests;
  AnotItem *volo;

  if (ds == NULL)
    return;

  g_assert_cmpstr (anot_dataset_get_name (ds), ==, "philly_cafes");
  g_object_get (ds, "n-items", &n_items, "n-reviews", &n_reviews, "n-requests", &n_requests, NULL);
  g_assert_cmpuint (n_items, ==, 50);
  g_assert_cmpuint (n_reviews, ==, 970);
  g_assert_cmpuint (n_requests, ==, 100);

  for (guint i = 0; i < n_items; i++)
    {
      guint n = anot_item_get_n_reviews (anot_dataset_get_item (ds, i));

      total += n;
      if (n == 20)
        n20++;
      else if (n == 19)
        n19++;
      else
        n_other++;
    }
  g_assert_cmpuint (n20, ==, 39);
  g_assert_cmpuint (n19, ==, 10);
  g_assert_cmpuint (n_other, ==, 1);
  g_assert_cmpuint (total, ==, 970);

  volo = anot_dataset_lookup_item (ds, "k2YJkdLg25xlYjshpeEtkQ");
  g_assert_nonnull (volo);
  g_assert_cmpstr (anot_item_get_name (volo), ==, "Volo Coffeehouse");
  g_assert_cmpuint (anot_item_get_index (volo), ==, 49);
  g_assert_cmpuint (anot_item_get_n_reviews (volo), ==, 0);

  groups = anot_dataset_list_groups (ds);
  g_assert_cmpuint (g_strv_length (groups), ==, 10);
  for (guint i = 0; i < 10; i++)
    {
      g_autofree char *expected = g_strdup_printf ("G%02u", i + 1);
      g_assert_cmpstr (groups[i], ==, expected);
    }
}

static void
test_philly_items (void)
{
  AnotDataset *ds = anot_test_get_philly ();
  const char * const *cats;
  AnotItem *item;
  guint n_open = 0;

  if (ds == NULL)
    return;

  item = anot_dataset_get_item (ds, 0);
  g_assert_cmpstr (anot_item_get_id (item), ==, "e-ZyZc24wgkKafM3pguR2w");
  g_assert_cmpstr (anot_item_get_name (item), ==, "Milkcrate Cafe");
  g_assert_cmpstr (anot_item_get_city (item), ==, "Philadelphia");
  g_assert_cmpfloat (anot_item_get_stars (item), ==, 4.5);
  cats = anot_item_get_categories (item);
  g_assert_cmpuint (g_strv_length ((GStrv) cats), ==, 9);
  g_assert_cmpstr (cats[0], ==, "Books");
  g_assert_cmpstr (cats[1], ==, "Mags");
  g_assert_cmpstr (cats[2], ==, "Music & Video");
  g_assert_cmpstr (cats[8], ==, "Coffee & Tea");
  g_assert_true (g_str_has_prefix (anot_item_get_categories_string (item), "Books, Mags, "));
  /* Raw attribute strings, quirks kept (evidence.md §5) */
  g_assert_cmpstr (anot_item_get_attribute (item, "WiFi"), ==, "u'free'");
  g_assert_cmpstr (anot_item_get_attribute (item, "Alcohol"), ==, "u'none'");
  g_assert_cmpstr (anot_item_get_attribute (item, "DriveThru"), ==, "True");
  g_assert_true (g_str_has_prefix (anot_item_get_attribute (item, "Ambience"), "{'touristy': False"));
  g_assert_cmpstr (anot_item_get_hours (item, "Monday"), ==, "8:0-15:0");
  /* The record a method reads has no field that leaks the answer; the
   * file's record has them. */
  g_assert_false (json_object_has_member (anot_item_get_record (item), "llm_score"));
  g_assert_false (json_object_has_member (anot_item_get_record (item), "llm_reasoning"));
  {
    g_autoptr(JsonObject) file_record = anot_item_dup_file_record (item);

    g_assert_true (json_object_has_member (file_record, "llm_score"));
    g_assert_true (json_object_has_member (file_record, "llm_reasoning"));
    g_assert_cmpuint (json_object_get_size (file_record), ==,
                      json_object_get_size (anot_item_get_record (item)) + 2);
  }
  g_assert_cmpint (json_object_get_int_member (anot_item_get_record (item), "review_count"), ==, 228);

  item = anot_dataset_get_item (ds, 1);
  g_assert_cmpstr (anot_item_get_name (item), ==, "Tria Cafe Rittenhouse");
  g_assert_cmpstr (anot_item_get_attribute (item, "Alcohol"), ==, "'beer_and_wine'");
  /* Example 3: "Tapas Bars" is one of Tria's categories */
  g_assert_true (g_strv_contains (anot_item_get_categories (item), "Tapas Bars"));

  /* Example 2: #9 Friday 7:0-23:0, #6 Friday 11:0-2:0 */
  g_assert_cmpstr (anot_item_get_hours (anot_dataset_get_item (ds, 9), "Friday"), ==, "7:0-23:0");
  g_assert_cmpstr (anot_item_get_hours (anot_dataset_get_item (ds, 6), "Friday"), ==, "11:0-2:0");
  g_assert_null (anot_item_get_attribute (anot_dataset_get_item (ds, 6), "NoiseLevel"));

  /* 41 cafes open (README) */
  for (guint i = 0; i < anot_dataset_get_n_items (ds); i++)
    {
      JsonObject *record = anot_item_get_record (anot_dataset_get_item (ds, i));
      if (json_object_get_int_member (record, "is_open") == 1)
        n_open++;
    }
  g_assert_cmpuint (n_open, ==, 41);
}

static void
test_philly_reviews (void)
{
  AnotDataset *ds = anot_test_get_philly ();
  g_autoptr(GPtrArray) raw = NULL;
  g_autoptr(GHashTable) users = NULL;
  g_autoptr(GHashTable) next_position = NULL;
  guint n_2020 = 0;
  AnotItem *last_drop;
  double harsh_sum = 0;
  guint harsh_n = 0;

  if (ds == NULL)
    return;

  /* Every review, compared with the file parsed independently: position
   * is the order within its business, to_json() gives the record back
   * (plus the reviewer's name and friends). */
  raw = read_jsonl_objects (anot_test_philly_dir (), "reviews.jsonl");
  g_assert_cmpuint (raw->len, ==, 970);
  users = g_hash_table_new (g_str_hash, g_str_equal);
  next_position = g_hash_table_new (g_str_hash, g_str_equal);
  for (guint i = 0; i < raw->len; i++)
    {
      JsonObject *expected = raw->pdata[i];
      const char *id = json_object_get_string_member (expected, "review_id");
      const char *item_id = json_object_get_string_member (expected, "business_id");
      guint position = GPOINTER_TO_UINT (g_hash_table_lookup (next_position, item_id));
      AnotReview *review = anot_dataset_lookup_review (ds, id);
      AnotItem *item = anot_dataset_lookup_item (ds, item_id);
      g_autoptr(JsonObject) json = NULL;
      g_autoptr(JsonNode) a = NULL;
      g_autoptr(JsonNode) b = NULL;
      JsonObject *user;
      g_autoptr(GList) expected_members = NULL;
      g_autoptr(GList) members = NULL;

      g_hash_table_insert (next_position, (gpointer) item_id, GUINT_TO_POINTER (position + 1));
      g_assert_nonnull (review);
      g_assert_cmpuint (anot_review_get_position (review), ==, position);
      g_assert_true (anot_item_get_review (item, position) == review);

      g_assert_cmpstr (anot_review_get_reviewer_name (review), !=, "");
      g_hash_table_add (users, (gpointer) anot_review_get_user_id (review));
      if (strcmp (anot_review_get_date (review), "2020") >= 0)
        n_2020++;

      json = anot_review_to_json (review);
      user = json_object_get_object_member (json, "user");
      g_assert_cmpstr (json_object_get_string_member (user, "name"), ==,
                       anot_review_get_reviewer_name (review));
      g_assert_true (json_object_has_member (user, "friends"));
      json_object_remove_member (user, "name");
      json_object_remove_member (user, "friends");

      expected_members = json_object_get_members (expected);
      members = json_object_get_members (json);
      g_assert_cmpuint (g_list_length (members), ==, g_list_length (expected_members));
      for (GList *l = members, *m = expected_members; l != NULL; l = l->next, m = m->next)
        g_assert_cmpstr (l->data, ==, m->data);
      a = json_node_init_object (json_node_alloc (), json);
      b = json_node_init_object (json_node_alloc (), expected);
      g_assert_true (json_node_equal (a, b));
    }
  /* README: 849 distinct users; 92 reviews from 2020 onwards */
  g_assert_cmpuint (g_hash_table_size (users), ==, 849);
  g_assert_cmpuint (n_2020, ==, 92);

  /* Example 4: La Colombe (#14), k=0 Alice 3 stars, k=8 Rose 5 stars */
  g_assert_cmpstr (anot_item_get_name (anot_dataset_get_item (ds, 14)), ==, "La Colombe Coffee");
  g_assert_cmpstr (anot_review_get_reviewer_name (anot_item_get_review (anot_dataset_get_item (ds, 14), 0)), ==, "Alice");
  g_assert_cmpfloat (anot_review_get_stars (anot_item_get_review (anot_dataset_get_item (ds, 14), 0)), ==, 3.0);
  g_assert_cmpstr (anot_review_get_reviewer_name (anot_item_get_review (anot_dataset_get_item (ds, 14), 8)), ==, "Rose");
  g_assert_cmpfloat (anot_review_get_stars (anot_item_get_review (anot_dataset_get_item (ds, 14), 8)), ==, 5.0);

  /* Example 5: Kung Fu Tea (#4), k=0 Ivy, k=17 Grace */
  g_assert_cmpstr (anot_review_get_reviewer_name (anot_item_get_review (anot_dataset_get_item (ds, 4), 0)), ==, "Ivy");
  g_assert_cmpstr (anot_review_get_reviewer_name (anot_item_get_review (anot_dataset_get_item (ds, 4), 17)), ==, "Grace");

  /* Example 6: Last Drop (#15), reviewers with average_stars < 3.5 gave
   * 4,4,2,4,2,3,1: mean 2.857 */
  last_drop = anot_dataset_get_item (ds, 15);
  g_assert_cmpstr (anot_item_get_name (last_drop), ==, "Last Drop");
  for (guint k = 0; k < anot_item_get_n_reviews (last_drop); k++)
    {
      AnotReview *review = anot_item_get_review (last_drop, k);

      g_assert_true (anot_review_has_user_average_stars (review));
      if (anot_review_get_user_average_stars (review) < 3.5)
        {
          harsh_sum += anot_review_get_stars (review);
          harsh_n++;
        }
    }
  g_assert_cmpuint (harsh_n, ==, 7);
  g_assert_cmpfloat (harsh_sum, ==, 20.0);
}

static void
test_philly_social (void)
{
  AnotDataset *ds = anot_test_get_philly ();
  const char * const *rose, * const *alice;
  g_autoptr(JsonNode) mapping = NULL;
  JsonObject *graph;
  g_autoptr(GList) names = NULL;

  if (ds == NULL)
    return;

  rose = anot_dataset_get_friends (ds, "Rose");
  alice = anot_dataset_get_friends (ds, "Alice");
  g_assert_nonnull (rose);
  g_assert_nonnull (alice);
  g_assert_true (g_strv_contains (rose, "Alice"));
  g_assert_false (g_strv_contains (alice, "Rose"));
  g_assert_cmpuint (g_strv_length ((GStrv) alice), ==, 2);
  g_assert_cmpstr (alice[0], ==, "Bob");
  g_assert_cmpstr (alice[1], ==, "Carol");
  g_assert_null (anot_dataset_get_friends (ds, "alice"));
  g_assert_null (anot_dataset_get_friends (ds, "Nobody"));

  /* The whole graph as in the file: 40 names, 1 or 2 friends, one edge
   * one-way. */
  mapping = read_json_file (anot_test_philly_dir (), "user_mapping.json");
  graph = json_object_get_object_member (json_node_get_object (mapping), "friend_graph");
  names = json_object_get_members (graph);
  g_assert_cmpuint (g_list_length (names), ==, 40);
  for (GList *l = names; l != NULL; l = l->next)
    {
      JsonArray *expected = json_object_get_array_member (graph, l->data);
      const char * const *friends = anot_dataset_get_friends (ds, l->data);
      guint n = g_strv_length ((GStrv) friends);

      g_assert_cmpuint (n, ==, json_array_get_length (expected));
      g_assert_cmpuint (n, >=, 1);
      g_assert_cmpuint (n, <=, 2);
      for (guint i = 0; i < n; i++)
        {
          g_assert_cmpstr (friends[i], ==, json_array_get_string_element (expected, i));
          if (strcmp (l->data, "Rose") != 0 || strcmp (friends[i], "Alice") != 0)
            g_assert_true (g_strv_contains (anot_dataset_get_friends (ds, friends[i]), l->data));
        }
    }
}

static void
test_philly_judgements (void)
{
  AnotDataset *ds = anot_test_get_philly ();
  g_autoptr(JsonNode) cache = NULL;
  g_autoptr(GList) keys = NULL;
  guint counts[4] = { 0, };
  guint boba = 0;

  if (ds == NULL)
    return;

  cache = read_json_file (anot_test_philly_dir (), "judgement_cache.json");
  keys = json_object_get_members (json_node_get_object (cache));
  g_assert_cmpuint (g_list_length (keys), ==, 185);
  for (GList *l = keys; l != NULL; l = l->next)
    {
      JsonObject *entry = json_object_get_object_member (json_node_get_object (cache), l->data);
      const char *review_id = json_object_get_string_member (entry, "review_id");
      const char *aspect = json_object_get_string_member (entry, "aspect");
      AnotJudgement j = anot_dataset_get_judgement (ds, review_id, aspect);

      g_assert_cmpint (j, >=, 0);
      g_assert_cmpint (j, <, 4);
      counts[j]++;
      if (strcmp (aspect, "boba") == 0)
        boba++;
      /* The key is exact: case matters. */
      {
        g_autofree char *upper = g_ascii_strup (aspect, -1);
        g_assert_cmpint (anot_dataset_get_judgement (ds, review_id, upper), ==,
                         ANOT_JUDGEMENT_NOT_MENTIONED);
      }
    }
  g_assert_cmpuint (counts[ANOT_JUDGEMENT_POSITIVE], ==, 138);
  g_assert_cmpuint (counts[ANOT_JUDGEMENT_NEGATIVE], ==, 25);
  g_assert_cmpuint (counts[ANOT_JUDGEMENT_NEUTRAL], ==, 22);
  g_assert_cmpuint (counts[ANOT_JUDGEMENT_NOT_MENTIONED], ==, 0);
  g_assert_cmpuint (boba, ==, 37);
}

static void
count_leaves (AnotCondition *cond,
              guint         *by_kind)
{
  g_autoptr(GPtrArray) leaves = anot_condition_collect_leaves (cond);

  for (guint i = 0; i < leaves->len; i++)
    by_kind[anot_condition_get_evidence_kind (leaves->pdata[i])]++;
}

static void
test_philly_requests (void)
{
  AnotDataset *ds = anot_test_get_philly ();
  g_autoptr(GPtrArray) groundtruth = NULL;
  g_autoptr(GHashTable) golds = NULL;
  guint by_kind[ANOT_EVIDENCE_REVIEW_GROUP_RATING_NEGATIVE + 1] = { 0, };
  guint n_and = 0, n_or = 0, n_leaves = 0;
  AnotRequest *r01;
  g_autofree char *group = NULL;
  g_autoptr(AnotCondition) structure = NULL;
  guint gold_index = 99;

  if (ds == NULL)
    return;

  r01 = anot_dataset_get_request (ds, 0);
  g_assert_cmpstr (anot_request_get_id (r01), ==, "R01");
  g_assert_true (anot_dataset_lookup_request (ds, "R01") == r01);
  g_assert_cmpstr (anot_request_get_gold_item_id (r01), ==, "e-ZyZc24wgkKafM3pguR2w");
  g_assert_cmpuint (anot_request_get_gold_index (r01), ==, 0);
  g_assert_cmpstr (anot_request_get_scenario (r01), ==, "Busy Parent");
  g_assert_cmpstr (anot_request_get_shorthand (r01), ==, "AND(drive_thru, good_for_kids, no_tv)");
  g_object_get (r01, "group", &group, "structure", &structure, "gold-index", &gold_index, NULL);
  g_assert_cmpstr (group, ==, "G01");
  g_assert_true (structure == anot_request_get_structure (r01));
  g_assert_cmpuint (gold_index, ==, 0);
  g_assert_cmpuint (anot_condition_get_n_children (structure), ==, 3);
  g_assert_cmpstr (anot_condition_get_aspect (anot_condition_get_child (structure, 0)), ==, "drive_thru");
  g_assert_cmpstr (anot_dataset_get_request (ds, 99) != NULL ?
                   anot_request_get_id (anot_dataset_get_request (ds, 99)) : NULL, ==, "R100");

  /* Gold indices agree with groundtruth.jsonl, read independently; the
   * 100 answers fall on 20 cafes. */
  groundtruth = read_jsonl_objects (anot_test_philly_dir (), "groundtruth.jsonl");
  golds = g_hash_table_new (NULL, NULL);
  for (guint i = 0; i < groundtruth->len; i++)
    {
      JsonObject *gt = groundtruth->pdata[i];
      AnotRequest *req = anot_dataset_lookup_request (ds, json_object_get_string_member (gt, "request_id"));
      AnotGoldStatus status;

      g_assert_nonnull (req);
      g_assert_cmpint (anot_request_get_gold_index (req), ==, json_object_get_int_member (gt, "gold_idx"));
      g_assert_true (_anot_request_get_gold_status (req, &status));
      g_assert_cmpint (status, ==, ANOT_GOLD_STATUS_OK);
      g_hash_table_add (golds, GUINT_TO_POINTER (anot_request_get_gold_index (req)));
    }
  g_assert_cmpuint (g_hash_table_size (golds), ==, 20);

  /* evidence.md §3: leaf kinds and root operators */
  for (guint i = 0; i < anot_dataset_get_n_requests (ds); i++)
    {
      AnotCondition *root = anot_request_get_structure (anot_dataset_get_request (ds, i));

      if (anot_condition_get_op (root) == ANOT_CONDITION_OP_AND)
        n_and++;
      else if (anot_condition_get_op (root) == ANOT_CONDITION_OP_OR)
        n_or++;
      count_leaves (root, by_kind);
    }
  g_assert_cmpuint (n_and, ==, 80);
  g_assert_cmpuint (n_or, ==, 20);
  g_assert_cmpuint (by_kind[ANOT_EVIDENCE_NONE], ==, 0);
  g_assert_cmpuint (by_kind[ANOT_EVIDENCE_ITEM_META], ==, 341);
  g_assert_cmpuint (by_kind[ANOT_EVIDENCE_REVIEW_SENTIMENT], ==, 14);
  g_assert_cmpuint (by_kind[ANOT_EVIDENCE_REVIEW_TEXT], ==, 12);
  g_assert_cmpuint (by_kind[ANOT_EVIDENCE_ITEM_META_HOURS], ==, 10);
  g_assert_cmpuint (by_kind[ANOT_EVIDENCE_REVIEW_GROUP_RATING], ==, 6);
  g_assert_cmpuint (by_kind[ANOT_EVIDENCE_SOCIAL_RATING], ==, 4);
  g_assert_cmpuint (by_kind[ANOT_EVIDENCE_REVIEW_GROUP_RATING_NEGATIVE], ==, 1);
  for (guint k = 0; k < G_N_ELEMENTS (by_kind); k++)
    n_leaves += by_kind[k];
  g_assert_cmpuint (n_leaves, ==, 388);
}

static void
test_philly_checksum (void)
{
  static const char * const order[] = {
    "restaurants.jsonl", "reviews.jsonl", "user_mapping.json",
    "requests.jsonl", "groundtruth.jsonl", "judgement_cache.json",
  };
  AnotDataset *ds = anot_test_get_philly ();
  g_autoptr(GChecksum) checksum = NULL;

  if (ds == NULL)
    return;

  checksum = g_checksum_new (G_CHECKSUM_SHA256);
  for (guint i = 0; i < G_N_ELEMENTS (order); i++)
    {
      g_autofree char *path = g_build_filename (anot_test_philly_dir (), order[i], NULL);
      g_autofree char *contents = NULL;
      gsize len;

      g_assert_true (g_file_get_contents (path, &contents, &len, NULL));
      g_checksum_update (checksum, (const guchar *) contents, len);
    }
  g_assert_cmpstr (anot_dataset_get_checksum (ds), ==, g_checksum_get_string (checksum));
}

static void
on_loaded (GObject      *source,
           GAsyncResult *result,
           gpointer      user_data)
{
  AnotDataset **out = user_data;
  g_autoptr(GError) error = NULL;

  *out = anot_dataset_load_finish (result, &error);
  g_assert_no_error (error);
  g_main_context_wakeup (NULL);
}

static void
on_load_failed (GObject      *source,
                GAsyncResult *result,
                gpointer      user_data)
{
  GError **out = user_data;

  g_assert_null (anot_dataset_load_finish (result, out));
  g_assert_nonnull (*out);
  g_main_context_wakeup (NULL);
}

static void
test_load_async (void)
{
  g_autofree char *dir = make_dataset (-1, 0, NULL);
  g_autofree char *broken = make_dataset (F_REVIEWS, 2, "{");
  const char *path = anot_test_philly_dir () != NULL ? anot_test_philly_dir () : dir;
  AnotDataset *ds = NULL;
  g_autoptr(AnotDataset) sync_ds = NULL;
  GError *error = NULL;

  anot_dataset_load_async (path, NULL, on_loaded, &ds);
  while (ds == NULL)
    g_main_context_iteration (NULL, TRUE);

  sync_ds = anot_dataset_load (path, NULL, NULL);
  g_assert_cmpstr (anot_dataset_get_checksum (ds), ==, anot_dataset_get_checksum (sync_ds));
  g_assert_cmpuint (anot_dataset_get_n_reviews (ds), ==, anot_dataset_get_n_reviews (sync_ds));
  g_object_unref (ds);

  anot_dataset_load_async (broken, NULL, on_load_failed, &error);
  while (error == NULL)
    g_main_context_iteration (NULL, TRUE);
  g_assert_error (error, ANOT_ERROR, ANOT_ERROR_PARSE);
  g_assert_nonnull (strstr (error->message, "reviews.jsonl:2:"));
  g_clear_error (&error);

  remove_tree (dir);
  remove_tree (broken);
}

int
main (int   argc,
      char *argv[])
{
  int ret;

  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);

  g_test_add_func ("/dataset/small", test_small_dataset);
  g_test_add_func ("/dataset/domain/default", test_domain_default);
  g_test_add_func ("/dataset/domain/hotels", test_domain_hotels);
  g_test_add_func ("/dataset/domain/titles", test_domain_titles);
  g_test_add_func ("/dataset/hours-all-day", test_hours_all_day);
  g_test_add_func ("/dataset/review-outlives-dataset", test_review_outlives_dataset);
  g_test_add_func ("/dataset/review-to-json", test_review_to_json);
  g_test_add_func ("/dataset/internal-constructors", test_internal_constructors);
  g_test_add_func ("/dataset/record-threads", test_record_threads);
  g_test_add_func ("/dataset/optional-files", test_optional_files);
  g_test_add_func ("/dataset/review-field-warnings", test_review_field_warnings);
  g_test_add_func ("/dataset/line-format", test_line_format);
  g_test_add_func ("/dataset/long-line", test_long_line);
  g_test_add_func ("/dataset/many-reviews", test_many_reviews);
  g_test_add_func ("/dataset/many-reviews-errors", test_many_reviews_errors);
  g_test_add_func ("/dataset/many-items", test_many_items);
  g_test_add_func ("/dataset/condition-from-json", test_condition_from_json);
  g_test_add_func ("/dataset/evidence-kind-names", test_evidence_kind_names);
  for (guint i = 0; i < G_N_ELEMENTS (error_cases); i++)
    {
      g_autofree char *path = g_strconcat ("/dataset/error/", error_cases[i].name, NULL);
      g_test_add_data_func (path, &error_cases[i], test_error_case);
    }
  g_test_add_func ("/dataset/error/line-numbers", test_error_line_numbers);
  g_test_add_func ("/dataset/error/missing-directory", test_error_missing_directory);
  g_test_add_func ("/dataset/error/cancelled", test_cancelled);
  g_test_add_func ("/dataset/async", test_load_async);
  g_test_add_func ("/dataset/philly/counts", test_philly_counts);
  g_test_add_func ("/dataset/philly/items", test_philly_items);
  g_test_add_func ("/dataset/philly/reviews", test_philly_reviews);
  g_test_add_func ("/dataset/philly/social", test_philly_social);
  g_test_add_func ("/dataset/philly/judgements", test_philly_judgements);
  g_test_add_func ("/dataset/philly/requests", test_philly_requests);
  g_test_add_func ("/dataset/philly/checksum", test_philly_checksum);

  ret = g_test_run ();

  return ret;
}
