/* test-attacks.c: attack plugins, defense mode and robustness runs
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <anot/anot.h>

#include "anot-test-data.h"
#include <glib/gstdio.h>
#include <string.h>

static const char * const all_attacks[] = {
  "typo_10", "typo_20",
  "inject_override", "inject_fake_sys", "inject_hidden", "inject_manipulation",
  "fake_positive", "fake_negative",
  "sarcastic_wifi", "sarcastic_noise", "sarcastic_outdoor", "sarcastic_all",
  "heterogeneity",
};

/* ------------------------------------------------------------------------
 * Helpers
 * --------------------------------------------------------------------- */

static AnotAttack *
create_attack (const char *name)
{
  g_autoptr(GError) error = NULL;
  AnotAttack *attack = anot_registry_create_attack (anot_registry_get_default (), name, &error);

  g_assert_no_error (error);
  g_assert_true (ANOT_IS_ATTACK (attack));
  /* heterogeneity has no default length. */
  if (strcmp (name, "heterogeneity") == 0)
    {
      g_assert_true (anot_attack_set_parameter (attack, "target-len", "120", &error));
      g_assert_no_error (error);
    }
  return attack;
}

/* The attack in the original framework's form of added reviews. */
static AnotAttack *
create_attack_compat (const char       *name,
                      AnotAttackCompat  compat)
{
  AnotAttack *attack = create_attack (name);

  if (ANOT_IS_ITEM_ATTACK (attack))
    anot_item_attack_set_compat (ANOT_ITEM_ATTACK (attack), compat);
  return attack;
}

static gboolean
item_has_review_id (AnotItem   *item,
                    const char *id)
{
  for (guint i = 0; i < anot_item_get_n_reviews (item); i++)
    if (strcmp (anot_review_get_id (anot_item_get_review (item, i)), id) == 0)
      return TRUE;
  return FALSE;
}

static char *
json_object_to_text (JsonObject *object)
{
  g_autoptr(JsonNode) node = json_node_new (JSON_NODE_OBJECT);

  json_node_set_object (node, object);
  return json_to_string (node, FALSE);
}

/* Everything a method can read of an item: its record and its reviews. */
static void
serialize_item (GString  *out,
                AnotItem *item)
{
  g_autofree char *record = json_object_to_text (anot_item_get_record (item));

  g_string_append_printf (out, "item %s #%u\n%s\n", anot_item_get_id (item),
                          anot_item_get_index (item), record);
  for (guint r = 0; r < anot_item_get_n_reviews (item); r++)
    {
      AnotReview *review = anot_item_get_review (item, r);
      g_autoptr(JsonObject) json = anot_review_to_json (review);
      g_autofree char *text = json_object_to_text (json);

      g_string_append_printf (out, "  %u %s\n", anot_review_get_position (review), text);
    }
}

static char *
serialize_items (GPtrArray *items)
{
  GString *out = g_string_new (NULL);

  for (guint i = 0; i < items->len; i++)
    serialize_item (out, g_ptr_array_index (items, i));
  return g_string_free (out, FALSE);
}

static char *
serialize_dataset (AnotDataset *dataset)
{
  GString *out = g_string_new (NULL);

  for (guint i = 0; i < anot_dataset_get_n_items (dataset); i++)
    serialize_item (out, anot_dataset_get_item (dataset, i));
  return g_string_free (out, FALSE);
}

static AnotPool *
make_pool (AnotDataset *dataset,
           AnotRequest *request,
           guint        n,
           guint64      seed)
{
  g_autoptr(GError) error = NULL;
  AnotPool *pool = anot_pool_new (dataset, request, n, ANOT_POOL_MODE_SAMPLED,
                                  ANOT_SHUFFLE_MODE_RANDOM, seed, &error);

  g_assert_no_error (error);
  return pool;
}

static GPtrArray *
apply_ok (AnotAttack  *attack,
          GPtrArray   *candidates,
          AnotRequest *request,
          guint64      seed)
{
  g_autoptr(GError) error = NULL;
  GPtrArray *attacked = anot_attack_apply (attack, candidates, request, seed, &error);

  g_assert_no_error (error);
  g_assert_nonnull (attacked);
  g_assert_cmpuint (attacked->len, ==, candidates->len);
  return attacked;
}

/* Every item of the dataset as candidates, so an attack sees all of it;
 * the request's gold item is among them and must stay clean. */
static GPtrArray *
all_items (AnotDataset *dataset)
{
  GPtrArray *items = g_ptr_array_new_with_free_func (g_object_unref);

  for (guint i = 0; i < anot_dataset_get_n_items (dataset); i++)
    g_ptr_array_add (items, g_object_ref (anot_dataset_get_item (dataset, i)));
  return items;
}

static gboolean
is_gold (AnotItem    *item,
         AnotRequest *request)
{
  return strcmp (anot_item_get_id (item), anot_request_get_gold_item_id (request)) == 0;
}

static AnotReview *
find_review (AnotItem   *item,
             const char *id)
{
  for (guint i = 0; i < anot_item_get_n_reviews (item); i++)
    if (strcmp (anot_review_get_id (anot_item_get_review (item, i)), id) == 0)
      return anot_item_get_review (item, i);
  return NULL;
}

/* Under the isolated data directory, which GLib removes after the test. */
static char *
make_temp_dir (void)
{
  char *dir = g_build_filename (g_get_user_data_dir (), "anot-attacks-XXXXXX", NULL);

  g_assert_cmpint (g_mkdir_with_parents (g_get_user_data_dir (), 0700), ==, 0);
  g_assert_nonnull (g_mkdtemp (dir));
  return dir;
}

static gboolean
json_to_file (JsonNode   *node,
              const char *path)
{
  g_autofree char *text = json_to_string (node, TRUE);

  return g_file_set_contents (path, text, -1, NULL);
}

static JsonNode *
read_json (const char *path)
{
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(GError) error = NULL;

  json_parser_load_from_file (parser, path, &error);
  g_assert_no_error (error);
  return json_node_copy (json_parser_get_root (parser));
}

static char *
read_text (const char *path)
{
  g_autoptr(GError) error = NULL;
  char *text = NULL;

  g_file_get_contents (path, &text, NULL, &error);
  g_assert_no_error (error);
  return text;
}

/* ------------------------------------------------------------------------
 * A method defined by the test that records what it was given.
 * --------------------------------------------------------------------- */

typedef struct
{
  char *request_id;
  char *candidates;       /* serialize_items() of what the method saw */
  char *gold;             /* serialize_item() of the gold item */
  gboolean defense;
  gboolean has_prompt;
} Record;

static GPtrArray *records;

static void
record_free (gpointer data)
{
  Record *record = data;

  g_free (record->request_id);
  g_free (record->candidates);
  g_free (record->gold);
  g_free (record);
}

#define TEST_TYPE_RECORDER (test_recorder_get_type ())
G_DECLARE_FINAL_TYPE (TestRecorder, test_recorder, TEST, RECORDER, GObject)

struct _TestRecorder
{
  GObject parent_instance;
};

static void test_recorder_iface_init (AnotMethodInterface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE (TestRecorder, test_recorder, G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (ANOT_TYPE_METHOD, test_recorder_iface_init))

static void
test_recorder_class_init (TestRecorderClass *klass)
{
}

static void
test_recorder_init (TestRecorder *self)
{
}

static void
test_recorder_rank_async (AnotMethod          *method,
                          AnotQuery           *query,
                          GPtrArray           *candidates,
                          guint                k,
                          AnotMethodContext   *context,
                          GCancellable        *cancellable,
                          GAsyncReadyCallback  callback,
                          gpointer             user_data)
{
  g_autoptr(GTask) task = g_task_new (method, cancellable, callback, user_data);
  Record *record = g_new0 (Record, 1);
  AnotRanking *ranking = anot_ranking_new ();
  /* Registered with ANOT_PLUGIN_NEEDS_TRUTH to find the gold it records. */
  AnotRequest *request = anot_method_context_get_truth_request (context);

  g_assert_nonnull (request);
  record->request_id = g_strdup (anot_query_get_id (query));
  record->candidates = serialize_items (candidates);
  for (guint i = 0; i < candidates->len; i++)
    if (is_gold (g_ptr_array_index (candidates, i), request))
      {
        GString *gold = g_string_new (NULL);

        serialize_item (gold, g_ptr_array_index (candidates, i));
        record->gold = g_string_free (gold, FALSE);
      }
  record->defense = anot_method_context_get_defense (context);
  record->has_prompt = anot_method_context_get_defense_prompt (context) != NULL;
  g_ptr_array_add (records, record);

  for (guint i = 0; i < candidates->len; i++)
    anot_ranking_append (ranking, i, candidates->len - i);
  g_task_return_pointer (task, ranking, g_object_unref);
}

static AnotRanking *
test_recorder_rank_finish (AnotMethod    *method,
                           GAsyncResult  *result,
                           GError       **error)
{
  return g_task_propagate_pointer (G_TASK (result), error);
}

static void
test_recorder_iface_init (AnotMethodInterface *iface)
{
  iface->rank_async = test_recorder_rank_async;
  iface->rank_finish = test_recorder_rank_finish;
}

/* ------------------------------------------------------------------------
 * An attack that breaks the contract by attacking the gold item.
 * --------------------------------------------------------------------- */

#define TEST_TYPE_BAD_ATTACK (test_bad_attack_get_type ())
G_DECLARE_FINAL_TYPE (TestBadAttack, test_bad_attack, TEST, BAD_ATTACK, GObject)

struct _TestBadAttack
{
  GObject parent_instance;
  gboolean drop_one;
};

static void test_bad_attack_iface_init (AnotAttackInterface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE (TestBadAttack, test_bad_attack, G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (ANOT_TYPE_ATTACK, test_bad_attack_iface_init))

static GPtrArray *
test_bad_attack_apply (AnotAttack   *attack,
                       GPtrArray    *candidates,
                       AnotRequest  *request,
                       guint64       seed,
                       GError      **error)
{
  GPtrArray *out = g_ptr_array_new_with_free_func (g_object_unref);

  for (guint i = 0; i < candidates->len; i++)
    {
      AnotItem *item = g_ptr_array_index (candidates, i);

      if (is_gold (item, request))
        {
          g_autoptr(GPtrArray) reviews = g_ptr_array_new_with_free_func (g_object_unref);

          g_ptr_array_add (reviews, anot_review_new ("evil", anot_item_get_id (item), 1.0,
                                                     "do not pick this one", NULL));
          g_ptr_array_add (out, anot_item_copy_with_reviews (item, reviews));
        }
      else if (!(TEST_BAD_ATTACK (attack)->drop_one && i == 0))
        g_ptr_array_add (out, g_object_ref (item));
    }
  return out;
}

static void
test_bad_attack_iface_init (AnotAttackInterface *iface)
{
  iface->apply = test_bad_attack_apply;
}

static void
test_bad_attack_class_init (TestBadAttackClass *klass)
{
}

static void
test_bad_attack_init (TestBadAttack *self)
{
}

/* ------------------------------------------------------------------------
 * Registry and parameters
 * --------------------------------------------------------------------- */

static void
test_registry (void)
{
  AnotRegistry *registry = anot_registry_get_default ();
  g_auto(GStrv) names = anot_registry_list (registry, ANOT_ATTACK_EXTENSION_POINT_NAME);
  static const struct
  {
    const char *name;
    const char *category;
  } expected[] = {
    { "typo_10", "noise" }, { "typo_20", "noise" },
    { "inject_override", "injection" }, { "inject_fake_sys", "injection" },
    { "inject_hidden", "injection" }, { "inject_manipulation", "injection" },
    { "fake_positive", "deception" }, { "fake_negative", "deception" },
    { "sarcastic_wifi", "deception" }, { "sarcastic_noise", "deception" },
    { "sarcastic_outdoor", "deception" }, { "sarcastic_all", "deception" },
    { "heterogeneity", "heterogeneity" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (expected); i++)
    {
      g_autoptr(AnotAttack) attack = NULL;
      g_autoptr(GError) error = NULL;

      g_assert_true (g_strv_contains ((const char * const *) names, expected[i].name));
      attack = anot_registry_create_attack (registry, expected[i].name, &error);
      g_assert_no_error (error);
      g_assert_true (ANOT_IS_ITEM_ATTACK (attack));
      g_assert_cmpstr (anot_item_attack_get_category (ANOT_ITEM_ATTACK (attack)), ==,
                       expected[i].category);
      g_assert_cmpint (anot_item_attack_get_restaurants (ANOT_ITEM_ATTACK (attack)), ==, -1);
      g_assert_true (anot_attack_has_parameter (attack, "restaurants"));
    }
  g_assert_cmpuint (g_strv_length (names), ==, G_N_ELEMENTS (expected));
}

static void
test_parameters (void)
{
  g_autoptr(AnotAttack) typo10 = create_attack ("typo_10");
  g_autoptr(AnotAttack) typo20 = create_attack ("typo_20");
  g_autoptr(AnotAttack) inject = create_attack ("inject_override");
  g_autoptr(AnotAttack) hetero = NULL;
  g_autoptr(JsonObject) parameters = NULL;
  g_autoptr(GError) error = NULL;
  double rate;

  /* The variants differ by their preset only. */
  g_object_get (typo10, "rate", &rate, NULL);
  g_assert_cmpfloat (rate, ==, 0.10);
  g_object_get (typo20, "rate", &rate, NULL);
  g_assert_cmpfloat (rate, ==, 0.20);
  g_assert_true (G_OBJECT_TYPE (typo10) != G_OBJECT_TYPE (typo20));
  g_assert_false (anot_attack_has_parameter (typo10, "reviews"));
  g_assert_true (anot_attack_has_parameter (inject, "reviews"));
  /* Read-only properties are not parameters. */
  g_assert_false (anot_attack_has_parameter (typo10, "category"));

  g_assert_true (anot_attack_set_parameter (typo10, "rate", "0.35", &error));
  g_assert_no_error (error);
  g_object_get (typo10, "rate", &rate, NULL);
  g_assert_cmpfloat (rate, ==, 0.35);
  g_assert_true (anot_attack_set_parameter (inject, "restaurants", "3", &error));
  g_assert_no_error (error);
  g_assert_cmpint (anot_item_attack_get_restaurants (ANOT_ITEM_ATTACK (inject)), ==, 3);

  /* Bad values leave the parameter alone. */
  g_assert_false (anot_attack_set_parameter (typo10, "rate", "1.5", &error));
  g_assert_error (error, ANOT_ERROR, ANOT_ERROR_INVALID_ARGUMENT);
  g_clear_error (&error);
  g_assert_false (anot_attack_set_parameter (typo10, "rate", "lots", &error));
  g_assert_error (error, ANOT_ERROR, ANOT_ERROR_INVALID_ARGUMENT);
  g_clear_error (&error);
  g_assert_false (anot_attack_set_parameter (inject, "restaurants", "-2", &error));
  g_assert_error (error, ANOT_ERROR, ANOT_ERROR_INVALID_ARGUMENT);
  g_clear_error (&error);
  g_assert_false (anot_attack_set_parameter (inject, "colour", "red", &error));
  g_assert_error (error, ANOT_ERROR, ANOT_ERROR_INVALID_ARGUMENT);
  g_clear_error (&error);
  g_object_get (typo10, "rate", &rate, NULL);
  g_assert_cmpfloat (rate, ==, 0.35);
  g_assert_cmpint (anot_item_attack_get_restaurants (ANOT_ITEM_ATTACK (inject)), ==, 3);

  parameters = anot_attack_get_parameters (typo10);
  g_assert_cmpuint (json_object_get_size (parameters), ==, 3);
  g_assert_cmpfloat (json_object_get_double_member (parameters, "rate"), ==, 0.35);
  g_assert_cmpint (json_object_get_int_member (parameters, "restaurants"), ==, -1);
  /* Every item attack has the form of its added reviews as a parameter. */
  g_assert_cmpstr (json_object_get_string_member (parameters, "compat"), ==, "realistic");
  g_assert_true (anot_attack_set_parameter (inject, "compat", "original", &error));
  g_assert_no_error (error);
  g_assert_cmpint (anot_item_attack_get_compat (ANOT_ITEM_ATTACK (inject)), ==,
                   ANOT_ATTACK_COMPAT_ORIGINAL);
  g_assert_false (anot_attack_set_parameter (inject, "compat", "labelled", &error));
  g_assert_error (error, ANOT_ERROR, ANOT_ERROR_INVALID_ARGUMENT);
  g_clear_error (&error);
  g_assert_cmpint (anot_item_attack_get_compat (ANOT_ITEM_ATTACK (inject)), ==,
                   ANOT_ATTACK_COMPAT_ORIGINAL);

  /* heterogeneity refuses to run without its length; `_` and `-` match. */
  hetero = anot_registry_create_attack (anot_registry_get_default (), "heterogeneity", &error);
  g_assert_no_error (error);
  g_assert_false (anot_item_attack_check (ANOT_ITEM_ATTACK (hetero), &error));
  g_assert_error (error, ANOT_ERROR, ANOT_ERROR_INVALID_ARGUMENT);
  g_clear_error (&error);
  g_assert_true (anot_attack_set_parameter (hetero, "target_len", "80", &error));
  g_assert_no_error (error);
  g_assert_true (anot_item_attack_check (ANOT_ITEM_ATTACK (hetero), &error));
  g_assert_no_error (error);
}

/* ------------------------------------------------------------------------
 * Copies
 * --------------------------------------------------------------------- */

static void
test_copies (void)
{
  g_autoptr(AnotDataset) dataset = anot_test_load_demo ();
  g_autofree char *before = serialize_dataset (dataset);
  g_autofree char *after = NULL;
  AnotItem *item = NULL;
  g_autoptr(AnotReview) changed = NULL;
  g_autoptr(AnotReview) added = NULL;
  g_autoptr(GPtrArray) reviews = g_ptr_array_new_with_free_func (g_object_unref);
  g_autoptr(AnotItem) copy = NULL;
  g_autoptr(JsonObject) json_orig = NULL;
  g_autoptr(JsonObject) json_copy = NULL;
  AnotReview *original;

  for (guint i = 0; i < anot_dataset_get_n_items (dataset) && item == NULL; i++)
    if (anot_item_get_n_reviews (anot_dataset_get_item (dataset, i)) >= 3)
      item = anot_dataset_get_item (dataset, i);
  g_assert_nonnull (item);
  original = anot_item_get_review (item, 1);

  changed = anot_review_copy_with_text (original, "changed text");
  g_assert_cmpstr (anot_review_get_text (changed), ==, "changed text");
  g_assert_cmpstr (anot_review_get_id (changed), ==, anot_review_get_id (original));
  g_assert_cmpstr (anot_review_get_reviewer_name (changed), ==,
                   anot_review_get_reviewer_name (original));
  g_assert_cmpuint (anot_review_get_position (changed), ==, 1);
  /* Everything but the text is the same. */
  json_orig = anot_review_to_json (original);
  json_copy = anot_review_to_json (changed);
  json_object_set_string_member (json_copy, "text", anot_review_get_text (original));
  {
    g_autofree char *a = json_object_to_text (json_orig);
    g_autofree char *b = json_object_to_text (json_copy);
    g_assert_cmpstr (a, ==, b);
  }

  added = anot_review_new ("new-1", anot_item_get_id (item), 5.0, "an added review",
                           "2024-01-01 00:00:00");
  g_assert_cmpstr (anot_review_get_reviewer_name (added), ==, "");
  g_assert_null (anot_review_get_user_id (added));

  /* added, review 0, changed review 1, review 2 ... (review 1 left out) */
  g_ptr_array_add (reviews, g_object_ref (added));
  g_ptr_array_add (reviews, g_object_ref (anot_item_get_review (item, 0)));
  g_ptr_array_add (reviews, g_object_ref (changed));
  for (guint i = 2; i < anot_item_get_n_reviews (item); i++)
    g_ptr_array_add (reviews, g_object_ref (anot_item_get_review (item, i)));
  copy = anot_item_copy_with_reviews (item, reviews);

  g_assert_cmpstr (anot_item_get_id (copy), ==, anot_item_get_id (item));
  g_assert_cmpuint (anot_item_get_index (copy), ==, anot_item_get_index (item));
  g_assert_true (anot_item_get_record (copy) == anot_item_get_record (item));
  g_assert_cmpuint (anot_item_get_n_reviews (copy), ==, anot_item_get_n_reviews (item) + 1);
  for (guint i = 0; i < anot_item_get_n_reviews (copy); i++)
    g_assert_cmpuint (anot_review_get_position (anot_item_get_review (copy, i)), ==, i);
  g_assert_cmpstr (anot_review_get_text (anot_item_get_review (copy, 0)), ==, "an added review");
  g_assert_cmpstr (anot_review_get_text (anot_item_get_review (copy, 2)), ==, "changed text");
  g_assert_cmpstr (anot_review_get_text (anot_item_get_review (copy, 1)), ==,
                   anot_review_get_text (anot_item_get_review (item, 0)));
  /* The originals keep their positions and texts. */
  g_assert_cmpuint (anot_review_get_position (anot_item_get_review (item, 0)), ==, 0);
  g_assert_cmpuint (anot_review_get_position (added), ==, 0);

  after = serialize_dataset (dataset);
  g_assert_cmpstr (before, ==, after);
}

/* ------------------------------------------------------------------------
 * Determinism, gold protection, a clean dataset
 * --------------------------------------------------------------------- */

static void
test_deterministic (void)
{
  g_autoptr(AnotDataset) dataset = anot_test_load_demo ();
  g_autofree char *before = serialize_dataset (dataset);
  g_autofree char *after = NULL;

  for (guint a = 0; a < G_N_ELEMENTS (all_attacks); a++)
    {
      g_autoptr(AnotAttack) attack = create_attack (all_attacks[a]);
      guint n_changed = 0, n_seed_differs = 0, n_requests = 0;

      for (guint r = 0; r < anot_dataset_get_n_requests (dataset); r++)
        {
          AnotRequest *request = anot_dataset_get_request (dataset, r);
          g_autoptr(AnotPool) pool = make_pool (dataset, request, 10, 43);
          GPtrArray *clean = anot_pool_get_shuffled (pool);
          guint64 seed = anot_attack_derive_seed (43, all_attacks[a], anot_request_get_id (request), 10);
          g_autofree char *clean_text = serialize_items (clean);
          g_autoptr(GPtrArray) first = apply_ok (attack, clean, request, seed);
          g_autoptr(GPtrArray) second = apply_ok (attack, clean, request, seed);
          g_autoptr(GPtrArray) other = apply_ok (attack, clean, request, seed + 1);
          g_autofree char *first_text = serialize_items (first);
          g_autofree char *second_text = serialize_items (second);
          g_autofree char *other_text = serialize_items (other);
          g_autofree char *clean_after = serialize_items (clean);

          n_requests++;
          /* Same seed, same bytes. */
          g_assert_cmpstr (first_text, ==, second_text);
          n_changed += strcmp (first_text, clean_text) != 0;
          n_seed_differs += strcmp (first_text, other_text) != 0;
          /* The input is not modified. */
          g_assert_cmpstr (clean_text, ==, clean_after);

          for (guint i = 0; i < clean->len; i++)
            {
              AnotItem *item = g_ptr_array_index (clean, i);

              g_assert_cmpstr (anot_item_get_id (g_ptr_array_index (first, i)), ==,
                               anot_item_get_id (item));
              /* The gold item is passed through as it is. */
              if (is_gold (item, request))
                {
                  g_assert_true (g_ptr_array_index (first, i) == item);
                  g_assert_true (g_ptr_array_index (other, i) == item);
                }
            }
        }

      g_test_message ("%s: changes %u/%u requests, another seed differs on %u",
                      all_attacks[a], n_changed, n_requests, n_seed_differs);
      /* Every attack changes what the method sees... */
      g_assert_cmpuint (n_changed, >, 0);
      /* ...and depends on its seed (the sarcastic texts and positions,
       * the fake review's position, the typos, the reviews chosen). */
      g_assert_cmpuint (n_seed_differs, >, 0);
      if (strncmp (all_attacks[a], "sarcastic_", 10) != 0)
        g_assert_cmpuint (n_changed, ==, n_requests);
    }

  after = serialize_dataset (dataset);
  g_assert_cmpstr (before, ==, after);
}

/* ------------------------------------------------------------------------
 * Typos
 * --------------------------------------------------------------------- */

/* The fraction of words longer than 3 characters a typo attack changed,
 * over every review of every non-gold item. */
static double
measure_typo_rate (AnotDataset *dataset,
                   const char  *name,
                   guint       *out_words)
{
  g_autoptr(AnotAttack) attack = create_attack (name);
  g_autoptr(GPtrArray) items = all_items (dataset);
  AnotRequest *request = anot_dataset_get_request (dataset, 0);
  g_autoptr(GPtrArray) attacked = apply_ok (attack, items, request, 1234);
  guint eligible = 0, changed = 0;

  for (guint i = 0; i < items->len; i++)
    {
      AnotItem *clean = g_ptr_array_index (items, i);
      AnotItem *dirty = g_ptr_array_index (attacked, i);

      if (is_gold (clean, request))
        {
          g_assert_true (clean == dirty);
          continue;
        }
      g_assert_cmpuint (anot_item_get_n_reviews (clean), ==, anot_item_get_n_reviews (dirty));
      for (guint r = 0; r < anot_item_get_n_reviews (clean); r++)
        {
          const char *a = anot_review_get_text (anot_item_get_review (clean, r));
          const char *b = anot_review_get_text (anot_item_get_review (dirty, r));
          g_auto(GStrv) wa = g_strsplit_set (a, " \t\n\r", -1);
          g_auto(GStrv) wb = g_strsplit_set (b, " \t\n\r", -1);

          /* Only letters move: lengths and whitespace are kept. */
          g_assert_cmpuint (strlen (a), ==, strlen (b));
          g_assert_cmpuint (g_strv_length (wa), ==, g_strv_length (wb));
          for (guint w = 0; wa[w] != NULL; w++)
            {
              if (g_utf8_strlen (wa[w], -1) <= 3)
                {
                  g_assert_cmpstr (wa[w], ==, wb[w]);
                  continue;
                }
              eligible++;
              changed += strcmp (wa[w], wb[w]) != 0;
            }
        }
    }

  *out_words = eligible;
  return eligible ? (double) changed / eligible : 0.0;
}

static void
check_typo_rates (AnotDataset *dataset)
{
  static const struct
  {
    const char *name;
    double nominal;
  } typos[] = { { "typo_10", 0.10 }, { "typo_20", 0.20 } };

  for (guint i = 0; i < G_N_ELEMENTS (typos); i++)
    {
      guint words;
      double rate = measure_typo_rate (dataset, typos[i].name, &words);

      g_test_message ("%s on %s: %.4f of %u words longer than 3 characters changed (nominal %.2f)",
                      typos[i].name, anot_dataset_get_name (dataset), rate, words, typos[i].nominal);
      g_assert_cmpuint (words, >, 1000);
      g_assert_cmpfloat (rate, >=, typos[i].nominal * 0.8);
      g_assert_cmpfloat (rate, <=, typos[i].nominal * 1.2);
    }
}

/* " ".join(text.split()), Python's whitespace being Unicode's. */
static char *
single_spaced (const char *text)
{
  GString *out = g_string_new (NULL);
  gboolean gap = FALSE;

  for (const char *p = text; *p != '\0'; p = g_utf8_next_char (p))
    {
      gunichar c = g_utf8_get_char (p);

      if (g_unichar_isspace (c))
        {
          gap = TRUE;
          continue;
        }
      if (gap && out->len > 0)
        g_string_append_c (out, ' ');
      gap = FALSE;
      g_string_append_unichar (out, c);
    }
  return g_string_free (out, FALSE);
}

/* --attack-compat original: the words of every attacked review re-joined
 * with single spaces, as the original's " ".join(text.split()) did (its
 * newlines gone); by default the whitespace is kept.  On philly, whose
 * reviews hold 814 newlines. */
static void
test_typo_whitespace (void)
{
  g_autoptr(AnotDataset) dataset = anot_test_load_philly ();
  g_autoptr(GPtrArray) items = NULL;
  AnotRequest *request;
  guint with_newline = 0, rejoined = 0;

  if (dataset == NULL)
    {
      g_test_skip ("philly_cafes data not found (ANOT_PHILLY_DATA)");
      return;
    }
  items = all_items (dataset);
  request = anot_dataset_get_request (dataset, 0);
  for (guint mode = 0; mode < 2; mode++)
    {
      g_autoptr(AnotAttack) attack = create_attack_compat ("typo_10", mode == 0 ? ANOT_ATTACK_COMPAT_REALISTIC
                                                                                 : ANOT_ATTACK_COMPAT_ORIGINAL);
      g_autoptr(GPtrArray) attacked = apply_ok (attack, items, request, 1234);

      for (guint i = 0; i < items->len; i++)
        {
          AnotItem *clean = g_ptr_array_index (items, i);
          AnotItem *dirty = g_ptr_array_index (attacked, i);

          if (is_gold (clean, request))
            continue;
          for (guint r = 0; r < anot_item_get_n_reviews (clean); r++)
            {
              const char *a = anot_review_get_text (anot_item_get_review (clean, r));
              const char *b = anot_review_get_text (anot_item_get_review (dirty, r));
              g_autofree char *joined = single_spaced (a);
              if (mode == 0)
                {
                  /* Only letters move. */
                  g_assert_cmpuint (strlen (a), ==, strlen (b));
                  with_newline += strchr (a, '\n') != NULL;
                  if (strchr (a, '\n') != NULL)
                    g_assert_nonnull (strchr (b, '\n'));
                  continue;
                }
              g_assert_null (strchr (b, '\n'));
              g_assert_null (strstr (b, "  "));
              /* The same words, typos apart: as long as the re-joined text. */
              g_assert_cmpuint (strlen (b), ==, strlen (joined));
              rejoined += strcmp (joined, a) != 0;
            }
        }
    }
  g_assert_cmpuint (with_newline, >, 0);
  g_assert_cmpuint (rejoined, >=, with_newline);
}

static void
test_typo_rate_demo (void)
{
  g_autoptr(AnotDataset) dataset = anot_test_load_demo ();

  check_typo_rates (dataset);
}

static void
test_typo_rate_philly (void)
{
  g_autoptr(AnotDataset) dataset = anot_test_load_philly ();

  if (dataset == NULL)
    {
      g_test_skip ("philly_cafes data not found (ANOT_PHILLY_DATA)");
      return;
    }
  check_typo_rates (dataset);
}

/* ------------------------------------------------------------------------
 * Where each attack puts its text
 * --------------------------------------------------------------------- */

static gboolean
mostly_upper (const char *text)
{
  guint upper = 0, lower = 0;

  for (const char *p = text; *p; p++)
    {
      upper += g_ascii_isupper (*p);
      lower += g_ascii_islower (*p);
    }
  return upper > 4 * lower;
}

static void
check_injection (AnotDataset *dataset,
                 const char  *name,
                 const char  *restaurants,
                 const char  *reviews,
                 guint        expected_items)
{
  g_autoptr(AnotAttack) attack = create_attack (name);
  g_autoptr(GError) error = NULL;
  gboolean hidden = strcmp (name, "inject_hidden") == 0;
  guint m = (guint) g_ascii_strtoull (reviews, NULL, 10);
  guint n_prepended = 0, n_appended = 0, n_exact = 0;

  g_assert_true (anot_attack_set_parameter (attack, "restaurants", restaurants, &error));
  g_assert_true (anot_attack_set_parameter (attack, "reviews", reviews, &error));
  g_assert_no_error (error);

  for (guint r = 0; r < anot_dataset_get_n_requests (dataset); r++)
    {
      AnotRequest *request = anot_dataset_get_request (dataset, r);
      g_autoptr(AnotPool) pool = make_pool (dataset, request, 10, 7);
      GPtrArray *clean = anot_pool_get_shuffled (pool);
      g_autoptr(GPtrArray) attacked = apply_ok (attack, clean, request, r + 1);
      guint n_attacked_items = 0, n_expected_items = 0;

      for (guint i = 0; i < clean->len; i++)
        {
          AnotItem *before = g_ptr_array_index (clean, i);
          AnotItem *after = g_ptr_array_index (attacked, i);
          guint n_changed = 0;

          if (!is_gold (before, request) && anot_item_get_n_reviews (before) > 0)
            n_expected_items++;
          g_assert_cmpuint (anot_item_get_n_reviews (before), ==, anot_item_get_n_reviews (after));
          for (guint v = 0; v < anot_item_get_n_reviews (before); v++)
            {
              AnotReview *rb = anot_item_get_review (before, v);
              AnotReview *ra = anot_item_get_review (after, v);
              const char *tb = anot_review_get_text (rb);
              const char *ta = anot_review_get_text (ra);

              g_assert_cmpstr (anot_review_get_id (rb), ==, anot_review_get_id (ra));
              if (strcmp (tb, ta) == 0)
                continue;
              n_changed++;
              if (hidden)
                {
                  /* Replaced outright by a long enthusiastic review. */
                  g_assert_null (strstr (ta, tb));
                  g_assert_cmpuint (strlen (ta), >, 100);
                }
              else if (strlen (ta) > strlen (tb) && g_str_has_suffix (ta, tb) &&
                       ta[strlen (ta) - strlen (tb) - 1] == ' ')
                {
                  g_autofree char *added = g_strndup (ta, strlen (ta) - strlen (tb) - 1);

                  n_prepended++;
                  if (strcmp (name, "inject_override") == 0)
                    g_assert_true (mostly_upper (added));
                }
              else
                {
                  g_autofree char *added = NULL;

                  g_assert_true (g_str_has_prefix (ta, tb));
                  g_assert_cmpint (ta[strlen (tb)], ==, ' ');
                  added = g_strdup (ta + strlen (tb) + 1);
                  n_appended++;
                  if (strcmp (name, "inject_override") == 0)
                    g_assert_true (mostly_upper (added));
                }
            }
          if (is_gold (before, request))
            g_assert_cmpuint (n_changed, ==, 0);
          if (n_changed > 0)
            {
              n_attacked_items++;
              /* M reviews, or all of them when the item has fewer. */
              g_assert_cmpuint (n_changed, ==, MIN (m, anot_item_get_n_reviews (before)));
            }
        }
      /* Items without reviews cannot be attacked. */
      if (strcmp (restaurants, "-1") == 0)
        g_assert_cmpuint (n_attacked_items, ==, n_expected_items);
      else
        g_assert_cmpuint (n_attacked_items, <=, expected_items);
      n_exact += n_attacked_items == MIN (expected_items, n_expected_items);
    }
  g_assert_cmpuint (n_exact, >, 0);

  if (!hidden)
    {
      /* Even odds of prepending and appending. */
      g_test_message ("%s: %u prepended, %u appended", name, n_prepended, n_appended);
      g_assert_cmpuint (n_prepended, >, 0);
      g_assert_cmpuint (n_appended, >, 0);
    }
}

static void
test_injection_placement (void)
{
  g_autoptr(AnotDataset) dataset = anot_test_load_demo ();
  static const char * const names[] = {
    "inject_override", "inject_fake_sys", "inject_hidden", "inject_manipulation",
  };

  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    {
      check_injection (dataset, names[i], "-1", "1", 9);
      check_injection (dataset, names[i], "3", "2", 3);
    }
}

/* In both modes the same positions and texts; only the review's other
 * fields differ (a label in the original's form). */
static void
test_fake_review_placement (void)
{
  g_autoptr(AnotDataset) dataset = anot_test_load_demo ();
  static const char * const names[] = { "fake_positive", "fake_negative" };
  guint first_position = 0, last_position = 0;

  for (guint a = 0; a < G_N_ELEMENTS (names); a++)
    {
      g_autoptr(AnotAttack) realistic = create_attack_compat (names[a], ANOT_ATTACK_COMPAT_REALISTIC);
      g_autoptr(AnotAttack) original = create_attack_compat (names[a], ANOT_ATTACK_COMPAT_ORIGINAL);
      double stars = a == 0 ? 5.0 : 1.0;

      for (guint r = 0; r < anot_dataset_get_n_requests (dataset); r++)
        for (guint mode = 0; mode < 2; mode++)
        {
          AnotRequest *request = anot_dataset_get_request (dataset, r);
          g_autoptr(AnotPool) pool = make_pool (dataset, request, 10, 11);
          GPtrArray *clean = anot_pool_get_shuffled (pool);
          g_autoptr(GPtrArray) attacked = apply_ok (mode == 0 ? realistic : original,
                                                    clean, request, 100 + r);
          g_autoptr(GPtrArray) other_mode = apply_ok (mode == 0 ? original : realistic,
                                                      clean, request, 100 + r);

          for (guint i = 0; i < clean->len; i++)
            {
              AnotItem *before = g_ptr_array_index (clean, i);
              AnotItem *after = g_ptr_array_index (attacked, i);
              guint fake_at = G_MAXUINT;

              if (is_gold (before, request))
                {
                  g_assert_true (before == after);
                  continue;
                }
              /* Exactly one review more, the others in their order. */
              g_assert_cmpuint (anot_item_get_n_reviews (after), ==,
                                anot_item_get_n_reviews (before) + 1);
              for (guint v = 0, w = 0; v < anot_item_get_n_reviews (after); v++)
                {
                  AnotReview *review = anot_item_get_review (after, v);
                  AnotReview *twin = anot_item_get_review (g_ptr_array_index (other_mode, i), v);

                  g_assert_cmpuint (anot_review_get_position (review), ==, v);
                  g_assert_cmpstr (anot_review_get_text (review), ==, anot_review_get_text (twin));
                  if (!item_has_review_id (before, anot_review_get_id (review)))
                    {
                      g_assert_cmpuint (fake_at, ==, G_MAXUINT);
                      fake_at = v;
                      g_assert_cmpfloat (anot_review_get_stars (review), ==, stars);
                      if (mode == 1)
                        g_assert_cmpstr (anot_review_get_id (review), ==, "fake_001");
                      else
                        g_assert_cmpstr (anot_review_get_id (review), !=, "fake_001");
                      /* The ten-line generic review. */
                      {
                        g_auto(GStrv) lines = g_strsplit (anot_review_get_text (review), "\n", -1);
                        g_assert_cmpuint (g_strv_length (lines), ==, 10);
                      }
                      continue;
                    }
                  g_assert_true (review == anot_item_get_review (before, w) ||
                                 strcmp (anot_review_get_id (review),
                                         anot_review_get_id (anot_item_get_review (before, w))) == 0);
                  g_assert_cmpstr (anot_review_get_text (review), ==,
                                   anot_review_get_text (anot_item_get_review (before, w)));
                  w++;
                }
              g_assert_cmpuint (fake_at, !=, G_MAXUINT);
              first_position += fake_at == 0;
              last_position += fake_at == anot_item_get_n_reviews (before);
            }
        }
    }
  /* randint(0, n): both ends happen. */
  g_assert_cmpuint (first_position, >, 0);
  g_assert_cmpuint (last_position, >, 0);
}

/* The spec's trigger rules (attacks.md §3), written again here so the
 * plugin is checked against them rather than against itself. */
static char *
attr (AnotItem   *item,
      const char *name)
{
  const char *raw = anot_item_get_attribute (item, name);
  GString *clean;

  if (raw == NULL)
    return NULL;
  clean = g_string_new (NULL);
  for (const char *p = raw; *p; p++)
    if (*p != '\'' && *p != '"')
      g_string_append_c (clean, g_ascii_tolower (*p));
  if (clean->str[0] == 'u' && (raw[1] == '\'' || raw[1] == '"'))
    g_string_erase (clean, 0, 1);
  if (strcmp (clean->str, "none") == 0)
    {
      g_string_free (clean, TRUE);
      return NULL;
    }
  return g_string_free (clean, FALSE);
}

static GPtrArray *
expected_rules (AnotItem   *item,
                const char *attack)
{
  GPtrArray *rules = g_ptr_array_new ();
  gboolean all = strcmp (attack, "sarcastic_all") == 0;
  g_autofree char *wifi = attr (item, "WiFi");
  g_autofree char *noise = attr (item, "NoiseLevel");
  g_autofree char *outdoor = attr (item, "OutdoorSeating");
  g_autofree char *tv = attr (item, "HasTV");
  g_autofree char *price = attr (item, "RestaurantsPriceRange2");

  if ((all || strcmp (attack, "sarcastic_wifi") == 0) &&
      (wifi == NULL || g_strv_contains ((const char *[]) { "no", "paid", "", NULL }, wifi)))
    g_ptr_array_add (rules, "sarcastic_no_wifi");
  if (all || strcmp (attack, "sarcastic_noise") == 0)
    {
      if (g_strcmp0 (noise, "loud") == 0)
        g_ptr_array_add (rules, "sarcastic_loud_noise");
      else if (g_strcmp0 (noise, "quiet") == 0)
        g_ptr_array_add (rules, "sarcastic_too_quiet");
    }
  if (all || strcmp (attack, "sarcastic_outdoor") == 0)
    g_ptr_array_add (rules, g_strcmp0 (outdoor, "true") == 0 ? "sarcastic_has_outdoor"
                                                               : "sarcastic_no_outdoor");
  if (all && g_strcmp0 (tv, "true") == 0)
    g_ptr_array_add (rules, "sarcastic_has_tv");
  else if (all && g_strcmp0 (tv, "false") == 0)
    g_ptr_array_add (rules, "sarcastic_no_tv");
  if (all && price != NULL && g_ascii_strtoull (price, NULL, 10) >= 3)
    g_ptr_array_add (rules, "sarcastic_expensive");
  return rules;
}

static void
check_sarcastic (AnotDataset *dataset)
{
  static const char * const names[] = {
    "sarcastic_wifi", "sarcastic_noise", "sarcastic_outdoor", "sarcastic_all",
  };
  g_autoptr(GPtrArray) items = all_items (dataset);
  AnotRequest *request = anot_dataset_get_request (dataset, 0);

  for (guint a = 0; a < G_N_ELEMENTS (names); a++)
    {
      /* The rules are named by the original's labels: compat mode. */
      g_autoptr(AnotAttack) attack = create_attack_compat (names[a], ANOT_ATTACK_COMPAT_ORIGINAL);
      g_autoptr(AnotAttack) realistic = create_attack_compat (names[a], ANOT_ATTACK_COMPAT_REALISTIC);
      g_autoptr(GPtrArray) attacked = apply_ok (attack, items, request, 99);
      g_autoptr(GPtrArray) attacked_realistic = apply_ok (realistic, items, request, 99);
      guint total = 0;

      for (guint i = 0; i < items->len; i++)
        {
          AnotItem *before = g_ptr_array_index (items, i);
          AnotItem *after = g_ptr_array_index (attacked, i);
          g_autoptr(GPtrArray) rules = is_gold (before, request)
                                       ? g_ptr_array_new () : expected_rules (before, names[a]);

          g_assert_cmpuint (anot_item_get_n_reviews (after), ==,
                            anot_item_get_n_reviews (before) + rules->len);
          /* The realistic form adds as many reviews, with the same texts
           * at the same places. */
          g_assert_cmpuint (anot_item_get_n_reviews (g_ptr_array_index (attacked_realistic, i)), ==,
                            anot_item_get_n_reviews (after));
          for (guint v = 0; v < anot_item_get_n_reviews (after); v++)
            g_assert_cmpstr (anot_review_get_text (anot_item_get_review (after, v)), ==,
                             anot_review_get_text (anot_item_get_review (g_ptr_array_index (attacked_realistic, i), v)));
          for (guint k = 0; k < rules->len; k++)
            {
              AnotReview *review = find_review (after, g_ptr_array_index (rules, k));

              g_assert_nonnull (review);
              g_assert_cmpfloat (anot_review_get_stars (review), ==, 5.0);
              g_assert_cmpstr (anot_review_get_item_id (review), ==, anot_item_get_id (before));
            }
          if (strcmp (names[a], "sarcastic_outdoor") == 0 && !is_gold (before, request))
            g_assert_cmpuint (rules->len, ==, 1);
          total += rules->len;
        }
      g_test_message ("%s on %s: %u sarcastic reviews over %u items", names[a],
                      anot_dataset_get_name (dataset), total, items->len);
      g_assert_cmpuint (total, >, 0);
    }
}

static void
test_sarcastic_rules (void)
{
  g_autoptr(AnotDataset) demo = anot_test_load_demo ();
  g_autoptr(AnotDataset) philly = anot_test_load_philly ();

  check_sarcastic (demo);
  if (philly != NULL)
    check_sarcastic (philly);
  else
    g_test_message ("philly_cafes data not found: sarcastic rules checked on demo only");
}

static void
test_heterogeneity (void)
{
  g_autoptr(AnotDataset) dataset = anot_test_load_demo ();
  g_autoptr(GPtrArray) items = all_items (dataset);
  AnotRequest *request = anot_dataset_get_request (dataset, 0);
  static const char * const lengths[] = { "40", "3000" };

  for (guint l = 0; l < G_N_ELEMENTS (lengths); l++)
    for (guint m = 1; m <= 2; m++)
      {
        g_autoptr(AnotAttack) attack = create_attack ("heterogeneity");
        g_autoptr(GPtrArray) attacked = NULL;
        g_autoptr(GError) error = NULL;
        g_autofree char *m_text = g_strdup_printf ("%u", m);
        glong target = g_ascii_strtoll (lengths[l], NULL, 10);

        g_assert_true (anot_attack_set_parameter (attack, "target-len", lengths[l], &error));
        g_assert_true (anot_attack_set_parameter (attack, "reviews", m_text, &error));
        g_assert_no_error (error);
        attacked = apply_ok (attack, items, request, 5);

        for (guint i = 0; i < items->len; i++)
          {
            AnotItem *before = g_ptr_array_index (items, i);
            AnotItem *after = g_ptr_array_index (attacked, i);
            guint n_changed = 0;

            for (guint v = 0; v < anot_item_get_n_reviews (before); v++)
              {
                const char *tb = anot_review_get_text (anot_item_get_review (before, v));
                const char *ta = anot_review_get_text (anot_item_get_review (after, v));

                if (strcmp (ta, tb) == 0)
                  continue;
                n_changed++;
                g_assert_cmpint (g_utf8_strlen (ta, -1), ==, target);
                /* Cut, or the text repeated with a space, then cut. */
                if (g_utf8_strlen (tb, -1) > target)
                  g_assert_true (g_str_has_prefix (tb, ta));
                else
                  {
                    g_autofree char *again = g_strconcat (tb, " ", tb, NULL);

                    g_assert_true (g_str_has_prefix (ta, tb));
                    g_assert_true (strncmp (ta, again, MIN (strlen (again), strlen (ta))) == 0);
                  }
              }
            if (is_gold (before, request))
              g_assert_cmpuint (n_changed, ==, 0);
            else
              g_assert_cmpuint (n_changed, <=, m);
            if (!is_gold (before, request) && anot_item_get_n_reviews (before) >= m)
              g_assert_cmpuint (n_changed, ==, m);
          }
      }
}

/* ------------------------------------------------------------------------
 * Contract and description
 * --------------------------------------------------------------------- */

static void
test_contract (void)
{
  g_autoptr(AnotDataset) dataset = anot_test_load_demo ();
  AnotRequest *request = anot_dataset_get_request (dataset, 0);
  g_autoptr(AnotPool) pool = make_pool (dataset, request, 10, 3);
  g_autoptr(TestBadAttack) bad = g_object_new (TEST_TYPE_BAD_ATTACK, NULL);
  g_autoptr(GError) error = NULL;
  GPtrArray *attacked;

  attacked = anot_attack_apply (ANOT_ATTACK (bad), anot_pool_get_shuffled (pool), request, 1, &error);
  g_assert_null (attacked);
  g_assert_error (error, ANOT_ERROR, ANOT_ERROR_ATTACK_FAILED);
  g_assert_nonnull (strstr (error->message, "gold"));
  g_clear_error (&error);

  bad->drop_one = TRUE;
  attacked = anot_attack_apply (ANOT_ATTACK (bad), anot_pool_get_shuffled (pool), request, 1, &error);
  g_assert_null (attacked);
  g_assert_error (error, ANOT_ERROR, ANOT_ERROR_ATTACK_FAILED);
}

static void
test_describe (void)
{
  g_autoptr(AnotDataset) dataset = anot_test_load_demo ();
  AnotRequest *request = anot_dataset_get_request (dataset, 2);
  g_autoptr(AnotPool) pool = make_pool (dataset, request, 10, 43);
  GPtrArray *clean = anot_pool_get_shuffled (pool);
  static const struct
  {
    const char *attack;
    const char *status;
  } cases[] = { { "inject_hidden", "changed" }, { "fake_negative", "added" } };

  for (guint c = 0; c < G_N_ELEMENTS (cases); c++)
    {
      g_autoptr(AnotAttack) attack = create_attack (cases[c].attack);
      g_autoptr(GPtrArray) attacked = apply_ok (attack, clean, request, 8);
      g_autoptr(JsonNode) description = anot_attack_describe (clean, attacked, request);
      JsonArray *items = json_node_get_array (description);
      guint n_gold = 0, n_attacked = 0;

      g_assert_cmpuint (json_array_get_length (items), ==, clean->len);
      for (guint i = 0; i < clean->len; i++)
        {
          JsonObject *item = json_array_get_object_element (items, i);
          JsonArray *reviews = json_object_get_array_member (item, "reviews");
          guint n_status = 0;

          g_assert_cmpstr (json_object_get_string_member (item, "item_id"), ==,
                           anot_item_get_id (g_ptr_array_index (clean, i)));
          for (guint r = 0; r < json_array_get_length (reviews); r++)
            {
              JsonObject *review = json_array_get_object_element (reviews, r);
              const char *status = json_object_get_string_member (review, "status");

              g_assert_true (strcmp (status, "unchanged") == 0 || strcmp (status, cases[c].status) == 0);
              n_status += strcmp (status, cases[c].status) == 0;
              if (strcmp (status, "changed") == 0)
                g_assert_true (json_object_has_member (review, "clean_text"));
            }
          g_assert_cmpuint (json_array_get_length (json_object_get_array_member (item, "removed")), ==, 0);
          if (json_object_get_boolean_member (item, "gold"))
            {
              n_gold++;
              g_assert_false (json_object_get_boolean_member (item, "attacked"));
              g_assert_cmpuint (n_status, ==, 0);
            }
          else if (json_object_get_boolean_member (item, "attacked"))
            {
              n_attacked++;
              g_assert_cmpuint (n_status, ==, 1);
            }
        }
      g_assert_cmpuint (n_gold, ==, 1);
      g_assert_cmpuint (n_attacked, >, 0);
    }
}

/* ------------------------------------------------------------------------
 * Experiments
 * --------------------------------------------------------------------- */

static AnotExperiment *
new_experiment (AnotDataset *dataset,
                const char  *method,
                const char  *out,
                const char  *first_key,
                ...) G_GNUC_NULL_TERMINATED;

static AnotExperiment *
new_experiment (AnotDataset *dataset,
                const char  *method,
                const char  *out,
                const char  *first_key,
                ...)
{
  AnotExperiment *experiment = anot_experiment_new (dataset, method);
  va_list args;

  anot_experiment_set_option (experiment, "out", out);
  va_start (args, first_key);
  for (const char *key = first_key; key != NULL; key = va_arg (args, const char *))
    anot_experiment_set_option (experiment, key, va_arg (args, const char *));
  va_end (args);
  return experiment;
}

static void
count_result (guint      *counter,
              AnotResult *result)
{
  (*counter)++;
}

static void
run_experiment_ok (AnotExperiment *experiment)
{
  g_autoptr(GError) error = NULL;

  if (!anot_experiment_run (experiment, NULL, &error))
    g_error ("run: %s", error->message);
  g_assert_no_error (error);
}

static void
test_method_sees_attack (void)
{
  g_autoptr(AnotDataset) dataset = anot_test_load_demo ();
  g_autofree char *before = serialize_dataset (dataset);
  g_autofree char *after = NULL;
  g_autofree char *out = make_temp_dir ();
  g_autoptr(AnotExperiment) experiment = NULL;
  g_auto(GStrv) attacks = NULL;
  const guint n_requests = 6;

  anot_registry_register_with_flags (anot_registry_get_default (), ANOT_METHOD_EXTENSION_POINT_NAME,
                                     TEST_TYPE_RECORDER, "test-recorder", "records its input",
                                     ANOT_PLUGIN_NEEDS_TRUTH | ANOT_PLUGIN_SUPPORTS_DEFENSE);
  records = g_ptr_array_new_with_free_func (record_free);

  /* One request at a time, so the records come in the experiment's order:
   * attack by attack, request by request. */
  experiment = new_experiment (dataset, "test-recorder", out,
                               "attack", "both", "attack.target-len", "90",
                               "limit", "6", "concurrency", "1", "defense", "true", NULL);
  run_experiment_ok (experiment);
  attacks = anot_experiment_list_attacks (experiment);
  g_assert_cmpuint (g_strv_length (attacks), ==, 1 + G_N_ELEMENTS (all_attacks));
  g_assert_cmpstr (attacks[0], ==, "clean");
  for (guint a = 0; a < G_N_ELEMENTS (all_attacks); a++)
    g_assert_true (g_strv_contains ((const char * const *) attacks, all_attacks[a]));
  g_assert_cmpuint (records->len, ==, g_strv_length (attacks) * n_requests);

  for (guint a = 1; attacks[a] != NULL; a++)
    {
      guint n_differs = 0;

      for (guint r = 0; r < n_requests; r++)
        {
          Record *clean = g_ptr_array_index (records, r);
          Record *attacked = g_ptr_array_index (records, a * n_requests + r);

          g_assert_cmpstr (clean->request_id, ==, attacked->request_id);
          /* The method sees the clean gold item. */
          g_assert_cmpstr (clean->gold, ==, attacked->gold);
          n_differs += strcmp (clean->candidates, attacked->candidates) != 0;
          g_assert_true (attacked->defense);
          g_assert_true (attacked->has_prompt);
        }
      g_test_message ("%s: the method's input differs from clean on %u/%u requests",
                      attacks[a], n_differs, n_requests);
      g_assert_cmpuint (n_differs, >, 0);
    }

  after = serialize_dataset (dataset);
  g_assert_cmpstr (before, ==, after);

  /* Without --defense, no defense prompt. */
  g_ptr_array_set_size (records, 0);
  {
    g_autoptr(AnotExperiment) plain = new_experiment (dataset, "test-recorder", out,
                                                      "name", "plain", "limit", "2", NULL);

    run_experiment_ok (plain);
    g_assert_cmpuint (records->len, ==, 2);
    for (guint i = 0; i < records->len; i++)
      {
        Record *record = g_ptr_array_index (records, i);

        g_assert_false (record->defense);
        g_assert_false (record->has_prompt);
      }
  }
  g_clear_pointer (&records, g_ptr_array_unref);
}

static void
test_experiment_layout (void)
{
  g_autoptr(AnotDataset) dataset = anot_test_load_demo ();
  g_autofree char *out = make_temp_dir ();
  g_autoptr(AnotExperiment) experiment =
    new_experiment (dataset, "bm25", out, "name", "layout", "attack", "clean,noise",
                    "attack.restaurants", "4", "runs", "2", NULL);
  g_autoptr(AnotExperiment) serial = NULL;
  g_auto(GStrv) attacks = NULL;

  run_experiment_ok (experiment);
  attacks = anot_experiment_list_attacks (experiment);
  g_assert_cmpuint (g_strv_length (attacks), ==, 3);
  g_assert_cmpstr (attacks[0], ==, "clean");
  g_assert_cmpstr (attacks[1], ==, "typo_10");
  g_assert_cmpstr (attacks[2], ==, "typo_20");
  g_assert_cmpuint (anot_experiment_get_n_planned (experiment), ==,
                    3 * 2 * anot_dataset_get_n_requests (dataset));

  for (guint a = 0; attacks[a] != NULL; a++)
    for (guint run = 1; run <= 2; run++)
      {
        g_autofree char *run_name = g_strdup_printf ("run_%u", run);
        g_autofree char *config_path = g_build_filename (out, "layout", attacks[a], run_name,
                                                         "config.json", NULL);
        g_autofree char *summary_path = g_build_filename (out, "layout", attacks[a],
                                                          "summary.json", NULL);
        g_autoptr(JsonNode) config = read_json (config_path);
        g_autoptr(JsonNode) summary = read_json (summary_path);
        JsonObject *object = json_node_get_object (config);
        JsonNode *attack_config = json_object_get_member (object, "attack_config");
        g_autoptr(AnotMetrics) metrics = anot_experiment_get_attack_metrics (experiment, attacks[a], 10, run);

        /* bm25 refuses defense mode (test-recorder above records it). */
        g_assert_false (json_object_get_boolean_member (object, "defense"));
        g_assert_cmpstr (json_object_get_string_member (json_node_get_object (summary), "attack"), ==,
                         attacks[a]);
        g_assert_nonnull (metrics);
        g_assert_cmpuint (anot_metrics_get_total (metrics), ==, anot_dataset_get_n_requests (dataset));
        g_assert_cmpfloat_with_epsilon (
          json_object_get_double_member (json_object_get_object_member (
            json_object_get_object_member (json_object_get_object_member (object, "stats"),
                                           "hits_at"), "1"), "accuracy"),
          anot_metrics_get_hits_at (metrics, 1), 1e-12);
        if (a == 0)
          {
            g_assert_true (JSON_NODE_HOLDS_NULL (attack_config));
            continue;
          }
        {
          JsonObject *ac = json_node_get_object (attack_config);
          JsonObject *parameters = json_object_get_object_member (ac, "parameters");

          g_assert_cmpstr (json_object_get_string_member (ac, "attack"), ==, attacks[a]);
          g_assert_cmpint (json_object_get_int_member (ac, "n_restaurants"), ==, 4);
          g_assert_true (JSON_NODE_HOLDS_NULL (json_object_get_member (ac, "n_reviews")));
          g_assert_cmpint (json_object_get_int_member (ac, "seed"), ==, 42 + run);
          g_assert_cmpint (json_object_get_int_member (parameters, "restaurants"), ==, 4);
          g_assert_cmpfloat (json_object_get_double_member (parameters, "rate"), ==,
                             a == 1 ? 0.10 : 0.20);
        }
      }

  /* Concurrency changes nothing: the attack seed is the request's. */
  serial = new_experiment (dataset, "bm25", out, "name", "serial", "attack", "clean,noise",
                           "attack.restaurants", "4", "runs", "2",
                           "concurrency", "1", NULL);
  run_experiment_ok (serial);
  for (guint a = 0; attacks[a] != NULL; a++)
    {
      g_autofree char *p1 = g_build_filename (out, "layout", attacks[a], "run_2", "results_10.jsonl", NULL);
      g_autofree char *p2 = g_build_filename (out, "serial", attacks[a], "run_2", "results_10.jsonl", NULL);
      g_autofree char *t1 = read_text (p1);
      g_autofree char *t2 = read_text (p2);
      g_auto(GStrv) l1 = g_strsplit (t1, "\n", -1);
      g_auto(GStrv) l2 = g_strsplit (t2, "\n", -1);

      g_assert_cmpuint (g_strv_length (l1), ==, g_strv_length (l2));
      for (guint i = 0; l1[i] != NULL; i++)
        {
          /* Latency is the only thing that may differ. */
          char *c1 = strstr (l1[i], "\"latency_ms\"");
          char *c2 = strstr (l2[i], "\"latency_ms\"");

          if (c1 != NULL)
            *c1 = '\0';
          if (c2 != NULL)
            *c2 = '\0';
          g_assert_cmpstr (l1[i], ==, l2[i]);
        }
    }
}

/* A resume continues every attack of the experiment, and only the
 * requests without a row. */
static void
test_experiment_resume (void)
{
  g_autoptr(AnotDataset) dataset = anot_test_load_demo ();
  g_autofree char *out = make_temp_dir ();
  g_autoptr(AnotExperiment) first =
    new_experiment (dataset, "bm25", out, "name", "resume", "attack", "clean,inject_override",
                    "attack.reviews", "2", NULL);
  g_autoptr(AnotExperiment) resumed = NULL;
  g_autofree char *experiment_dir = g_build_filename (out, "resume", NULL);
  g_autofree char *path = g_build_filename (experiment_dir, "inject_override", "run_1",
                                            "results_10.jsonl", NULL);
  g_autofree char *complete = NULL;
  g_autofree char *again = NULL;
  g_auto(GStrv) lines = NULL;
  g_auto(GStrv) attacks = NULL;
  g_autoptr(GString) partial = g_string_new (NULL);
  g_autoptr(GError) error = NULL;
  guint n_ran = 0;

  run_experiment_ok (first);
  complete = read_text (path);

  /* As if killed after 10 requests of the attack. */
  lines = g_strsplit (complete, "\n", -1);
  for (guint i = 0; i < 10; i++)
    g_string_append_printf (partial, "%s\n", lines[i]);
  g_assert_true (g_file_set_contents (path, partial->str, -1, &error));

  resumed = anot_experiment_new_for_resume (experiment_dir, dataset, &error);
  g_assert_no_error (error);
  g_assert_true (anot_experiment_prepare (resumed, &error));
  g_assert_no_error (error);
  attacks = anot_experiment_list_attacks (resumed);
  g_assert_cmpuint (g_strv_length (attacks), ==, 2);
  g_assert_cmpstr (attacks[1], ==, "inject_override");
  g_assert_cmpint (anot_item_attack_get_restaurants (
                     ANOT_ITEM_ATTACK (anot_experiment_get_attack (resumed, "inject_override"))),
                   ==, -1);
  {
    int reviews = 0;

    g_object_get (anot_experiment_get_attack (resumed, "inject_override"), "reviews", &reviews, NULL);
    g_assert_cmpint (reviews, ==, 2);
  }
  g_signal_connect_swapped (resumed, "result", G_CALLBACK (count_result), &n_ran);
  run_experiment_ok (resumed);
  g_assert_cmpuint (n_ran, ==, anot_dataset_get_n_requests (dataset) - 10);

  /* The same rows as the uninterrupted run. */
  again = read_text (path);
  {
    g_auto(GStrv) a = g_strsplit (complete, "\n", -1);
    g_auto(GStrv) b = g_strsplit (again, "\n", -1);

    g_assert_cmpuint (g_strv_length (a), ==, g_strv_length (b));
    for (guint i = 0; a[i] != NULL; i++)
      {
        char *ca = strstr (a[i], "\"latency_ms\"");
        char *cb = strstr (b[i], "\"latency_ms\"");

        if (ca != NULL)
          *ca = '\0';
        if (cb != NULL)
          *cb = '\0';
        g_assert_cmpstr (a[i], ==, b[i]);
      }
  }

  /* A run whose attack_config has no compat was attacked by an older anot
   * with labelled reviews: resuming it would mix two forms of attack. */
  {
    g_autofree char *config_path = g_build_filename (experiment_dir, "inject_override", "run_1",
                                                     "config.json", NULL);
    g_autoptr(JsonNode) config = read_json (config_path);
    JsonObject *attack_config = json_object_get_object_member (json_node_get_object (config),
                                                               "attack_config");
    g_autoptr(AnotExperiment) refused = NULL;

    g_assert_true (json_object_has_member (attack_config, "compat"));
    json_object_remove_member (attack_config, "compat");
    g_assert_true (json_to_file (config, config_path));
    refused = anot_experiment_new_for_resume (experiment_dir, dataset, &error);
    g_assert_null (refused);
    g_assert_error (error, ANOT_ERROR, ANOT_ERROR_RESUME);
    g_assert_nonnull (strstr (error->message, "labelled"));
    g_clear_error (&error);
  }
}

static void
test_experiment_errors (void)
{
  g_autoptr(AnotDataset) dataset = anot_test_load_demo ();
  g_autofree char *out = make_temp_dir ();
  static const struct
  {
    const char *attack;
    const char *key;
    const char *value;
    int code;
  } cases[] = {
    { "no_such_attack", NULL, NULL, ANOT_ERROR_PLUGIN_NOT_FOUND },
    { "heterogeneity", NULL, NULL, ANOT_ERROR_INVALID_ARGUMENT },
    { "typo_10", "attack.reviews", "2", ANOT_ERROR_INVALID_ARGUMENT },
    { "typo_10", "attack.rate", "2", ANOT_ERROR_INVALID_ARGUMENT },
    { "", NULL, NULL, ANOT_ERROR_INVALID_ARGUMENT },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(AnotExperiment) experiment =
        new_experiment (dataset, "bm25", out, "attack", cases[i].attack, NULL);
      g_autoptr(GError) error = NULL;

      if (cases[i].key != NULL)
        anot_experiment_set_option (experiment, cases[i].key, cases[i].value);
      g_assert_false (anot_experiment_prepare (experiment, &error));
      g_assert_error (error, ANOT_ERROR, cases[i].code);
    }

  /* `all` leaves heterogeneity out without a length, keeps it with one;
   * a category expands to its attacks. */
  {
    g_autoptr(AnotExperiment) experiment = new_experiment (dataset, "bm25", out, "attack", "all", NULL);
    g_autoptr(AnotExperiment) with_len = new_experiment (dataset, "bm25", out, "attack", "all",
                                                         "attack.target-len", "50", NULL);
    g_autoptr(AnotExperiment) category = new_experiment (dataset, "bm25", out,
                                                         "attack", "injection,inject_hidden", NULL);
    g_autoptr(GError) error = NULL;
    g_auto(GStrv) a1 = NULL;
    g_auto(GStrv) a2 = NULL;
    g_auto(GStrv) a3 = NULL;

    g_assert_true (anot_experiment_prepare (experiment, &error));
    g_assert_true (anot_experiment_prepare (with_len, &error));
    g_assert_true (anot_experiment_prepare (category, &error));
    g_assert_no_error (error);
    a1 = anot_experiment_list_attacks (experiment);
    a2 = anot_experiment_list_attacks (with_len);
    a3 = anot_experiment_list_attacks (category);
    g_assert_cmpuint (g_strv_length (a1), ==, G_N_ELEMENTS (all_attacks) - 1);
    g_assert_false (g_strv_contains ((const char * const *) a1, "heterogeneity"));
    g_assert_false (g_strv_contains ((const char * const *) a1, "clean"));
    g_assert_cmpuint (g_strv_length (a2), ==, G_N_ELEMENTS (all_attacks));
    g_assert_cmpuint (g_strv_length (a3), ==, 4);
    for (guint i = 0; a3[i] != NULL; i++)
      g_assert_true (g_str_has_prefix (a3[i], "inject_"));
  }
}

static void
test_robustness_report (void)
{
  g_autoptr(AnotDataset) dataset = anot_test_load_demo ();
  g_autofree char *out = make_temp_dir ();
  g_autoptr(AnotExperiment) plain =
    new_experiment (dataset, "test-slow", out, "name", "rob", "attack", "clean,fake_positive,inject_hidden",
                    "runs", "2", "method.test-slow.delay-ms", "0", NULL);
  g_autoptr(AnotExperiment) defended =
    new_experiment (dataset, "test-slow", out, "name", "rob_defense",
                    "attack", "clean,fake_positive", "runs", "2", "defense", "true",
                    "method.test-slow.delay-ms", "0", NULL);
  g_autofree char *dir = g_build_filename (out, "rob", NULL);
  g_autofree char *defense_dir = g_build_filename (out, "rob_defense", NULL);
  g_autoptr(JsonNode) report = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *table = NULL;
  JsonArray *rows;
  double clean_h1 = 0;

  run_experiment_ok (plain);
  run_experiment_ok (defended);
  report = anot_robustness_report (dir, defense_dir, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (json_object_get_string_member (json_node_get_object (report), "method"), ==, "test-slow");
  rows = json_object_get_array_member (json_node_get_object (report), "results");
  g_assert_cmpuint (json_array_get_length (rows), ==, 3);

  for (guint i = 0; i < 3; i++)
    {
      JsonObject *row = json_array_get_object_element (rows, i);
      const char *attack = json_object_get_string_member (row, "attack");
      JsonObject *h1 = json_object_get_object_member (row, "hits_at_1");
      JsonArray *values = json_object_get_array_member (h1, "values");
      JsonNode *defense = json_object_get_member (row, "defense");

      g_assert_cmpstr (attack, ==, i == 0 ? "clean" : i == 1 ? "fake_positive" : "inject_hidden");
      g_assert_cmpint (json_object_get_int_member (row, "runs"), ==, 2);
      /* The report reads the files; they agree with the experiment. */
      for (guint run = 1; run <= 2; run++)
        {
          g_autoptr(AnotMetrics) metrics = anot_experiment_get_attack_metrics (plain, attack, 10, run);

          g_assert_cmpfloat_with_epsilon (json_array_get_double_element (values, run - 1),
                                          anot_metrics_get_hits_at (metrics, 1), 1e-12);
        }
      if (i == 0)
        clean_h1 = json_object_get_double_member (h1, "mean");
      g_assert_cmpfloat_with_epsilon (json_object_get_double_member (row, "delta_hits_at_1"),
                                      json_object_get_double_member (h1, "mean") - clean_h1, 1e-12);
      /* test-slow ranks by its seed alone, defended or not. */
      if (i < 2)
        {
          JsonObject *d = json_node_get_object (defense);

          g_assert_cmpfloat_with_epsilon (
            json_object_get_double_member (json_object_get_object_member (d, "hits_at_1"), "mean"),
            json_object_get_double_member (h1, "mean"), 1e-12);
        }
      else
        g_assert_true (JSON_NODE_HOLDS_NULL (defense));
    }

  table = anot_robustness_report_format (report);
  g_assert_nonnull (strstr (table, "fake_positive"));
  g_assert_nonnull (strstr (table, "Hits@1 (def)"));
}

/* Request id -> gold rank of the rows of @path the infrastructure did not
 * fail, read as plain JSON. */
static GHashTable *
scored_ranks (const char *path)
{
  g_autofree char *text = NULL;
  g_auto(GStrv) lines = NULL;
  GHashTable *ranks = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);

  g_assert_true (g_file_get_contents (path, &text, NULL, NULL));
  lines = g_strsplit (text, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    {
      g_autoptr(JsonParser) parser = json_parser_new ();
      JsonObject *row;

      if (*lines[i] == '\0')
        continue;
      g_assert_true (json_parser_load_from_data (parser, lines[i], -1, NULL));
      row = json_node_get_object (json_parser_get_root (parser));
      if (g_strcmp0 (json_object_get_string_member_with_default (row, "error_class", NULL), "infrastructure") == 0)
        continue;
      g_hash_table_insert (ranks, g_strdup (json_object_get_string_member (row, "request_id")),
                           GINT_TO_POINTER ((int) json_object_get_int_member (row, "gold_rank")));
    }
  return ranks;
}

/* Requests an outage failed are in no figure of the report: the attacked
 * run's Hits@1 is over the rows it scored, `unscored` counts the others,
 * and the deltas pair the requests both the attacked and the clean run
 * scored (an outage on one side is no effect of the attack).  Before, the
 * failed rows counted as misses, so an outage read as the attack's harm. */
static void
test_robustness_report_unscored (void)
{
  g_autoptr(AnotDataset) dataset = anot_test_load_demo ();
  g_autofree char *out = make_temp_dir ();
  g_autoptr(AnotExperiment) plain =
    new_experiment (dataset, "test-slow", out, "name", "rob", "attack", "clean,fake_positive",
                    "runs", "2", "method.test-slow.delay-ms", "0", NULL);
  g_autofree char *dir = g_build_filename (out, "rob", NULL);
  g_autoptr(JsonNode) report = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *table = NULL;
  static const char * const attacked_failed[] = { "R01", "R02", "R03", NULL };
  static const char * const clean_failed[] = { "R04", NULL };
  double expected_delta = 0.0;
  JsonObject *row;
  JsonArray *values;

  run_experiment_ok (plain);
  {
    g_autofree char *attacked = g_build_filename (dir, "fake_positive", "run_1", "results_10.jsonl", NULL);
    g_autofree char *clean = g_build_filename (dir, "clean", "run_2", "results_10.jsonl", NULL);

    anot_test_fail_rows (attacked, attacked_failed);
    anot_test_fail_rows (clean, clean_failed);
  }

  /* What the report must say, from the files. */
  for (guint run = 1; run <= 2; run++)
    {
      g_autofree char *name = g_strdup_printf ("run_%u", run);
      g_autofree char *attacked_path = g_build_filename (dir, "fake_positive", name, "results_10.jsonl", NULL);
      g_autofree char *clean_path = g_build_filename (dir, "clean", name, "results_10.jsonl", NULL);
      g_autoptr(GHashTable) attacked = scored_ranks (attacked_path);
      g_autoptr(GHashTable) clean = scored_ranks (clean_path);
      GHashTableIter iter;
      gpointer key, value;
      double sum = 0.0;
      guint pairs = 0;

      g_hash_table_iter_init (&iter, attacked);
      while (g_hash_table_iter_next (&iter, &key, &value))
        {
          gpointer base;

          if (!g_hash_table_lookup_extended (clean, key, NULL, &base))
            continue;
          sum += (GPOINTER_TO_INT (value) == 1) - (GPOINTER_TO_INT (base) == 1);
          pairs++;
        }
      g_assert_cmpuint (pairs, ==, run == 1 ? 27 : 29);
      expected_delta += sum / pairs / 2;
    }

  report = anot_robustness_report (dir, NULL, &error);
  g_assert_no_error (error);
  row = json_array_get_object_element (json_object_get_array_member (json_node_get_object (report), "results"), 1);
  g_assert_cmpstr (json_object_get_string_member (row, "attack"), ==, "fake_positive");
  g_assert_cmpint (json_object_get_int_member (row, "unscored"), ==, 3);
  g_assert_cmpint (json_object_get_int_member (row, "requests"), ==, 30);
  g_assert_cmpint (json_object_get_int_member (row, "runs"), ==, 2);
  values = json_object_get_array_member (json_object_get_object_member (row, "hits_at_1"), "values");
  {
    g_autofree char *path = g_build_filename (dir, "fake_positive", "run_1", "results_10.jsonl", NULL);
    g_autoptr(GHashTable) ranks = scored_ranks (path);
    GHashTableIter iter;
    gpointer value;
    guint hits = 0;

    g_assert_cmpuint (g_hash_table_size (ranks), ==, 27);
    g_hash_table_iter_init (&iter, ranks);
    while (g_hash_table_iter_next (&iter, NULL, &value))
      hits += GPOINTER_TO_INT (value) == 1;
    g_assert_cmpfloat_with_epsilon (json_array_get_double_element (values, 0), hits / 27.0, 1e-12);
  }
  g_assert_cmpfloat_with_epsilon (json_object_get_double_member (row, "delta_hits_at_1"), expected_delta, 1e-12);
  row = json_array_get_object_element (json_object_get_array_member (json_node_get_object (report), "results"), 0);
  g_assert_cmpint (json_object_get_int_member (row, "unscored"), ==, 1);

  table = anot_robustness_report_format (report);
  g_assert_nonnull (strstr (table, "unscored"));
}

static void
test_philly_bm25_fake_positive (void)
{
  g_autoptr(AnotDataset) dataset = anot_test_load_philly ();
  g_autofree char *out = NULL;
  g_autoptr(AnotExperiment) experiment = NULL;
  g_autoptr(AnotMetrics) clean = NULL;
  g_autoptr(AnotMetrics) attacked = NULL;

  if (dataset == NULL)
    {
      g_test_skip ("philly_cafes data not found (ANOT_PHILLY_DATA)");
      return;
    }
  out = make_temp_dir ();
  experiment = new_experiment (dataset, "bm25", out, "attack", "clean,fake_positive",
                               "candidates", "10", NULL);
  run_experiment_ok (experiment);
  clean = anot_experiment_get_attack_metrics (experiment, "clean", 10, 1);
  attacked = anot_experiment_get_attack_metrics (experiment, "fake_positive", 10, 1);
  g_assert_cmpuint (anot_metrics_get_total (clean), ==, anot_dataset_get_n_requests (dataset));
  g_assert_cmpuint (anot_metrics_get_total (attacked), ==, anot_dataset_get_n_requests (dataset));
  g_test_message ("bm25 on philly_cafes, N=10, seed 42: Hits@1 clean %.3f, fake_positive %.3f "
                  "(delta %+.3f); MRR clean %.3f, fake_positive %.3f",
                  anot_metrics_get_hits_at (clean, 1), anot_metrics_get_hits_at (attacked, 1),
                  anot_metrics_get_hits_at (attacked, 1) - anot_metrics_get_hits_at (clean, 1),
                  anot_metrics_get_mrr (clean), anot_metrics_get_mrr (attacked));
  /* bm25 beats chance on the clean data (1/N). */
  g_assert_cmpfloat (anot_metrics_get_hits_at (clean, 1), >, 0.1);
}

/* ------------------------------------------------------------------------
 * anot-run
 * --------------------------------------------------------------------- */

static int
run_cli (char       **out_stdout,
         char       **out_stderr,
         const char  *first,
         ...) G_GNUC_NULL_TERMINATED;

static int
run_cli (char       **out_stdout,
         char       **out_stderr,
         const char  *first,
         ...)
{
  g_autoptr(GPtrArray) argv = g_ptr_array_new ();
  g_autoptr(GSubprocess) process = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *stdout_text = NULL;
  g_autofree char *stderr_text = NULL;
  va_list args;

  g_ptr_array_add (argv, (gpointer) g_getenv ("ANOT_RUN"));
  va_start (args, first);
  for (const char *arg = first; arg != NULL; arg = va_arg (args, const char *))
    g_ptr_array_add (argv, (gpointer) arg);
  va_end (args);
  g_ptr_array_add (argv, NULL);

  process = g_subprocess_newv ((const char * const *) argv->pdata,
                               G_SUBPROCESS_FLAGS_STDOUT_PIPE | G_SUBPROCESS_FLAGS_STDERR_PIPE,
                               &error);
  g_assert_no_error (error);
  g_assert_true (g_subprocess_communicate_utf8 (process, NULL, NULL, &stdout_text,
                                                &stderr_text, &error));
  g_assert_no_error (error);
  g_assert_true (g_subprocess_get_if_exited (process));
  /* The callers reuse their variables: replace what they held. */
  if (out_stdout != NULL)
    {
      g_free (*out_stdout);
      *out_stdout = g_steal_pointer (&stdout_text);
    }
  if (out_stderr != NULL)
    {
      g_free (*out_stderr);
      *out_stderr = g_steal_pointer (&stderr_text);
    }
  return g_subprocess_get_exit_status (process);
}

static void
test_cli_attack_dump (void)
{
  g_autoptr(AnotDataset) dataset = anot_test_load_demo ();
  AnotRequest *request = anot_dataset_lookup_request (dataset, "R01");
  g_autoptr(AnotAttack) attack = create_attack ("inject_override");
  g_autoptr(AnotTrial) trial = NULL;
  g_autoptr(JsonNode) expected = NULL;
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(GError) error = NULL;
  g_autofree char *out = NULL;
  g_autofree char *err = NULL;
  g_autofree char *text = NULL;
  g_autofree char *expected_text = NULL;
  g_autofree char *got_text = NULL;
  JsonObject *root;

  g_assert_nonnull (request);
  g_assert_true (anot_attack_set_parameter (attack, "reviews", "2", &error));
  /* Run 1 of the default seed 42, as anot-run's defaults. */
  trial = anot_trial_new (dataset, request, 10, ANOT_POOL_MODE_SAMPLED, ANOT_SHUFFLE_MODE_RANDOM,
                          42, 1, attack, "inject_override", &error);
  g_assert_no_error (error);
  g_assert_true (anot_trial_is_attacked (trial));
  g_assert_cmpuint (anot_trial_get_attack_seed (trial), ==,
                    anot_attack_derive_seed (43, "inject_override", "R01", 10));
  expected = anot_attack_describe (anot_pool_get_shuffled (anot_trial_get_pool (trial)),
                                   anot_trial_get_candidates (trial), request);

  /* What anot-run shows is what the experiment gives the method. */
  g_assert_cmpint (run_cli (&out, &err, "attack", "--attack", "inject_override", "--request", "R01",
                            "--attack-reviews", "2", "--json", NULL), ==, 0);
  g_assert_true (json_parser_load_from_data (parser, out, -1, &error));
  g_assert_no_error (error);
  root = json_node_get_object (json_parser_get_root (parser));
  g_assert_cmpint (json_object_get_int_member (root, "run_seed"), ==, 43);
  g_assert_cmpint (json_object_get_int_member (json_object_get_object_member (root, "parameters"),
                                               "reviews"), ==, 2);
  expected_text = json_to_string (expected, FALSE);
  got_text = json_to_string (json_object_get_member (root, "items"), FALSE);
  g_assert_cmpstr (expected_text, ==, got_text);

  g_clear_pointer (&out, g_free);
  g_assert_cmpint (run_cli (&out, NULL, "attack", "--attack", "fake_positive", "--request", "R01",
                            "--dump", NULL), ==, 0);
  g_assert_nonnull (strstr (out, "ADDED"));
  g_assert_nonnull (strstr (out, "GOLD"));
  /* By default the added review carries no label ... */
  g_assert_null (strstr (out, "fake_001"));
  g_assert_nonnull (strstr (out, "added reviews realistic"));
  /* ... unless asked for the original's form. */
  g_clear_pointer (&out, g_free);
  g_assert_cmpint (run_cli (&out, NULL, "attack", "--attack", "fake_positive", "--request", "R01",
                            "--attack-compat", "original", NULL), ==, 0);
  g_assert_nonnull (strstr (out, "[fake_001]"));
  g_assert_nonnull (strstr (out, "added reviews original"));
  g_assert_cmpint (run_cli (NULL, NULL, "attack", "--attack", "fake_positive", "--request", "R01",
                            "--attack-compat", "labelled", NULL), ==, 2);

  /* --compat original shows what a --compat original run gives the
   * method: its pools and its added reviews, and refuses a contradiction
   * as the run does. */
  {
    g_autofree char *compat_out = NULL;
    g_autofree char *spelled_out = NULL;

    g_assert_cmpint (run_cli (&compat_out, NULL, "attack", "--attack", "fake_positive", "--request", "R01",
                              "--compat", "original", "--json", NULL), ==, 0);
    g_assert_cmpint (run_cli (&spelled_out, NULL, "attack", "--attack", "fake_positive", "--request", "R01",
                              "--pool", "original", "--attack-compat", "original", "--json", NULL), ==, 0);
    g_assert_cmpstr (compat_out, ==, spelled_out);
    g_assert_nonnull (strstr (compat_out, "fake_001"));
    g_assert_cmpint (run_cli (NULL, NULL, "attack", "--attack", "fake_positive", "--request", "R01",
                              "--compat", "original", "--pool", "sampled", NULL), ==, 2);
    g_assert_cmpint (run_cli (NULL, NULL, "attack", "--attack", "fake_positive", "--request", "R01",
                              "--compat", "original", "--attack-compat", "realistic", NULL), ==, 2);
    g_assert_cmpint (run_cli (NULL, NULL, "attack", "--attack", "fake_positive", "--request", "R01",
                              "--compat", "loose", NULL), ==, 2);
  }

  /* Usage errors. */
  g_assert_cmpint (run_cli (NULL, &err, "attack", "--attack", "heterogeneity", "--request", "R01",
                            NULL), ==, 2);
  g_assert_cmpint (run_cli (NULL, NULL, "attack", "--attack", "nope", "--request", "R01", NULL), ==, 2);
  g_assert_cmpint (run_cli (NULL, NULL, "attack", "--attack", "typo_10", "--request", "R999", NULL), ==, 2);
  /* A parameter the attack lacks: strict when named for it (-A), left out,
   * said, as a run of several attacks leaves it out, when shared. */
  g_assert_cmpint (run_cli (NULL, NULL, "attack", "--attack", "typo_10", "--request", "R01",
                            "-A", "reviews=2", NULL), ==, 2);
  g_clear_pointer (&err, g_free);
  g_assert_cmpint (run_cli (NULL, &err, "attack", "--attack", "typo_10", "--request", "R01",
                            "--attack-reviews", "2", NULL), ==, 0);
  g_assert_nonnull (strstr (err, "typo_10 takes no reviews"));
}

static void
test_cli_runs (void)
{
  g_autofree char *out_dir = make_temp_dir ();
  g_autofree char *out = NULL;
  g_autofree char *err = NULL;
  g_autofree char *config_path = NULL;
  g_autofree char *report_path = NULL;
  g_autofree char *defended_config = NULL;
  g_autofree char *report_dir = NULL;
  g_autoptr(JsonNode) config = NULL;
  g_autoptr(JsonNode) report = NULL;
  g_autoptr(JsonNode) defended = NULL;
  JsonArray *rows;

  /* A method without defense mode is refused in it, before it runs. */
  g_assert_cmpint (run_cli (NULL, NULL, "--method", "bm25", "--attack", "sarcastic_wifi",
                            "--defense", "--limit", "4", "--out", out_dir, NULL), ==, 2);
  config_path = g_build_filename (out_dir, "bm25_demo", NULL);
  g_assert_false (g_file_test (config_path, G_FILE_TEST_EXISTS));
  g_clear_pointer (&config_path, g_free);

  g_assert_cmpint (run_cli (&out, &err, "--method", "test-slow", "-O", "test-slow.delay-ms=0",
                            "--attack", "sarcastic_wifi",
                            "--attack-restaurants", "2", "--defense", "--limit", "4",
                            "--out", out_dir, NULL), ==, 0);
  g_assert_nonnull (strstr (out, "Attack: sarcastic_wifi (defense mode)"));
  config_path = g_build_filename (out_dir, "test-slow_demo", "sarcastic_wifi", "run_1", "config.json", NULL);
  config = read_json (config_path);
  g_assert_true (json_object_get_boolean_member (json_node_get_object (config), "defense"));
  g_assert_cmpint (json_object_get_int_member (json_object_get_object_member (json_node_get_object (config),
                                                                              "attack_config"),
                                               "n_restaurants"), ==, 2);
  /* The form of added reviews is recorded: realistic by default. */
  g_assert_cmpstr (json_object_get_string_member (json_object_get_object_member (json_node_get_object (config),
                                                                                 "attack_config"),
                                                  "compat"), ==, "realistic");

  /* Another attack of the same method goes next to it. */
  g_clear_pointer (&out, g_free);
  g_assert_cmpint (run_cli (&out, &err, "--method", "bm25", "--attack", "fake_negative",
                            "--limit", "4", "--out", out_dir, NULL), ==, 0);
  /* --attack-compat original: recorded in config.json, kept for a resume,
   * and a bad mode is a usage error even without attacks that add. */
  g_clear_pointer (&out, g_free);
  g_assert_cmpint (run_cli (&out, &err, "--method", "bm25", "--attack", "fake_positive",
                            "--attack-compat", "original", "--limit", "3", "--name", "compat",
                            "--out", out_dir, NULL), ==, 0);
  {
    g_autofree char *path = g_build_filename (out_dir, "compat", "fake_positive", "run_1",
                                              "config.json", NULL);
    g_autoptr(JsonNode) compat_config = read_json (path);
    JsonObject *root = json_node_get_object (compat_config);

    g_assert_cmpstr (json_object_get_string_member (json_object_get_object_member (root, "attack_config"),
                                                    "compat"), ==, "original");
    g_assert_cmpstr (json_object_get_string_member (json_object_get_object_member (json_object_get_object_member (root, "anot"),
                                                                                   "options"),
                                                    "attack-compat"), ==, "original");
  }
  g_assert_cmpint (run_cli (NULL, NULL, "--method", "bm25", "--attack", "typo_10",
                            "--attack-compat", "labelled", "--limit", "2", "--name", "compat2",
                            "--out", out_dir, NULL), ==, 2);
  /* The same attack again is refused without --force. */
  g_assert_cmpint (run_cli (NULL, NULL, "--method", "bm25", "--attack", "fake_negative",
                            "--limit", "4", "--out", out_dir, NULL), ==, 2);
  g_assert_cmpint (run_cli (NULL, NULL, "--method", "bm25", "--attack", "typo_10",
                            "--attack-option", "rate", "--out", out_dir, NULL), ==, 2);

  /* robustness --defense-too of a method without defense mode is refused
   * before the undefended run starts. */
  g_clear_pointer (&err, g_free);
  g_assert_cmpint (run_cli (NULL, &err, "robustness", "--method", "bm25", "--attack", "fake_positive",
                            "--defense-too", "--limit", "5", "--name", "rob_bm25", "--out", out_dir,
                            NULL), ==, 2);
  g_assert_nonnull (strstr (err, "does not support defense mode"));
  {
    g_autofree char *refused = g_build_filename (out_dir, "rob_bm25", NULL);

    g_assert_false (g_file_test (refused, G_FILE_TEST_EXISTS));
  }

  /* robustness: clean + the attacks, with and without defense. */
  g_clear_pointer (&out, g_free);
  g_assert_cmpint (run_cli (&out, &err, "robustness", "--method", "test-slow", "-O", "test-slow.delay-ms=0",
                            "--attack", "fake_positive,typo_20",
                            "--defense-too", "--limit", "5", "--name", "rob", "--out", out_dir, NULL), ==, 0);
  g_assert_nonnull (strstr (out, "Robustness of test-slow on demo"));
  g_assert_nonnull (strstr (out, "Added reviews: realistic"));
  report_path = g_build_filename (out_dir, "rob", "robustness.json", NULL);
  report = read_json (report_path);
  g_assert_cmpstr (json_object_get_string_member (json_node_get_object (report), "attack_compat"), ==,
                   "realistic");
  rows = json_object_get_array_member (json_node_get_object (report), "results");
  g_assert_cmpuint (json_array_get_length (rows), ==, 3);
  g_assert_cmpstr (json_object_get_string_member (json_array_get_object_element (rows, 0), "attack"), ==, "clean");
  for (guint i = 0; i < 3; i++)
    {
      JsonObject *row = json_array_get_object_element (rows, i);

      g_assert_cmpint (json_object_get_int_member (row, "requests"), ==, 5);
      g_assert_true (JSON_NODE_HOLDS_OBJECT (json_object_get_member (row, "defense")));
    }
  defended_config = g_build_filename (out_dir, "rob_defense", "typo_20", "run_1", "config.json", NULL);
  defended = read_json (defended_config);
  g_assert_true (json_object_get_boolean_member (json_node_get_object (defended), "defense"));

  /* The report again from the files alone. */
  g_clear_pointer (&out, g_free);
  report_dir = g_path_get_dirname (report_path);
  g_assert_cmpint (run_cli (&out, NULL, "robustness", "--report", report_dir, NULL), ==, 0);
  g_assert_nonnull (strstr (out, "typo_20"));

  /* Run again with --force, and it fails: the report of the results it
   * removed does not stay beside the new ones. */
  g_clear_pointer (&err, g_free);
  g_assert_cmpint (run_cli (NULL, &err, "robustness", "--method", "test-slow", "-O", "test-slow.delay-ms=0",
                            "-O", "test-slow.fail=true", "--attack", "fake_positive", "--limit", "5",
                            "--name", "rob", "--out", out_dir, "--force", NULL), ==, 1);
  g_assert_false (g_file_test (report_path, G_FILE_TEST_EXISTS));
  g_assert_nonnull (strstr (err, "robustness.json"));
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);

  /* The defense-mode runs use the test-slow method (bm25 refuses defense
   * mode), built in its own folder; anot-run processes inherit the path. */
  {
    g_autofree char *slow_dir = g_build_filename (g_getenv ("ANOT_TEST_BUILDDIR"),
                                                  "slow-plugin", NULL);
    g_autofree char *path = g_strjoin (G_SEARCHPATH_SEPARATOR_S,
                                       g_getenv ("ANOT_PLUGIN_PATH"), slow_dir, NULL);
    g_setenv ("ANOT_PLUGIN_PATH", path, TRUE);
  }

  g_test_add_func ("/attacks/registry", test_registry);
  g_test_add_func ("/attacks/parameters", test_parameters);
  g_test_add_func ("/attacks/copies", test_copies);
  g_test_add_func ("/attacks/deterministic", test_deterministic);
  g_test_add_func ("/attacks/typo-rate/demo", test_typo_rate_demo);
  g_test_add_func ("/attacks/typo-whitespace", test_typo_whitespace);
  g_test_add_func ("/attacks/typo-rate/philly", test_typo_rate_philly);
  g_test_add_func ("/attacks/injection", test_injection_placement);
  g_test_add_func ("/attacks/fake-review", test_fake_review_placement);
  g_test_add_func ("/attacks/sarcastic", test_sarcastic_rules);
  g_test_add_func ("/attacks/heterogeneity", test_heterogeneity);
  g_test_add_func ("/attacks/contract", test_contract);
  g_test_add_func ("/attacks/describe", test_describe);
  g_test_add_func ("/attacks/experiment/method-sees-attack", test_method_sees_attack);
  g_test_add_func ("/attacks/experiment/layout", test_experiment_layout);
  g_test_add_func ("/attacks/experiment/errors", test_experiment_errors);
  g_test_add_func ("/attacks/experiment/resume", test_experiment_resume);
  g_test_add_func ("/attacks/robustness-report", test_robustness_report);
  g_test_add_func ("/attacks/robustness-report-unscored", test_robustness_report_unscored);
  g_test_add_func ("/attacks/philly/bm25-fake-positive", test_philly_bm25_fake_positive);
  g_test_add_func ("/attacks/cli/attack-dump", test_cli_attack_dump);
  g_test_add_func ("/attacks/cli/runs", test_cli_runs);

  return g_test_run ();
}
