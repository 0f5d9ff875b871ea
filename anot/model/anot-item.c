/* anot-item.c
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "anot-item.h"

#include <string.h>

#include "anot-dataset-private.h"
#include "anot-error.h"
#include "anot-json-private.h"

/**
 * AnotItem:
 *
 * One candidate item (a restaurant) of a dataset: its `restaurants.jsonl`
 * record and its reviews.
 *
 * The record is kept whole and unchanged, attribute values included: they
 * are Yelp's Python-flavoured strings (`"True"`, `"u'free'"`,
 * `"{'garage': False, ...}"`), which the validator normalises the way the
 * reference does.  Only the categories are split for convenience.
 *
 * An item is immutable once its dataset is loaded.
 */

/* A string member of `attributes` or `hours`. */
typedef struct {
  const char *key;
  const char *value;
} Pair;

/* A JsonObject per record costs seven times the record's text (a benchmark
 * can have 100k items), so an item keeps the text of its line and parses it
 * again only when someone asks for the record.  What the validator reads
 * (attributes, hours, categories) is kept as strings shared through the
 * dataset's store. */
struct _AnotItem
{
  GObject parent_instance;

  AnotStore          *store;
  const char         *json_text;          /* in the store; NULL if built from an object */
  gsize               json_len;
  JsonObject         *record;             /* set once, on demand if json_text; without
                                           * the hidden fields */
  JsonObject         *file_record;        /* the record given, if not json_text */
  const char         *id;
  const char         *name;
  const char         *city;
  const char         *categories_string;
  const char * const *categories;
  const Pair         *attributes;         /* string-valued members only */
  const Pair         *hours;
  guint               n_attributes;
  guint               n_hours;
  double              stars;
  guint               index;
  GPtrArray          *reviews;
  AnotDatasetLink    *dataset_link;       /* NULL if not loaded from a dataset */
};

struct _AnotDatasetLink
{
  GWeakRef dataset;
};

static void
dataset_link_clear (gpointer data)
{
  g_weak_ref_clear (&((AnotDatasetLink *) data)->dataset);
}

AnotDatasetLink *
_anot_dataset_link_new (AnotDataset *dataset)
{
  AnotDatasetLink *link = g_atomic_rc_box_new0 (AnotDatasetLink);

  g_weak_ref_init (&link->dataset, dataset);
  return link;
}

void
_anot_dataset_link_unref (AnotDatasetLink *link)
{
  g_atomic_rc_box_release_full (link, dataset_link_clear);
}

void
_anot_item_set_dataset_link (AnotItem        *self,
                             AnotDatasetLink *link)
{
  g_return_if_fail (ANOT_IS_ITEM (self));

  g_clear_pointer (&self->dataset_link, _anot_dataset_link_unref);
  if (link != NULL)
    self->dataset_link = g_atomic_rc_box_acquire (link);
}

G_DEFINE_FINAL_TYPE (AnotItem, anot_item, G_TYPE_OBJECT)

enum {
  PROP_0,
  PROP_ID,
  PROP_INDEX,
  PROP_NAME,
  PROP_CITY,
  PROP_STARS,
  PROP_CATEGORIES,
  PROP_CATEGORIES_STRING,
  PROP_N_REVIEWS,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

static void
anot_item_finalize (GObject *object)
{
  AnotItem *self = ANOT_ITEM (object);

  g_clear_pointer (&self->record, json_object_unref);
  g_clear_pointer (&self->file_record, json_object_unref);
  g_clear_pointer (&self->reviews, g_ptr_array_unref);
  g_clear_pointer (&self->store, _anot_store_unref);
  g_clear_pointer (&self->dataset_link, _anot_dataset_link_unref);

  G_OBJECT_CLASS (anot_item_parent_class)->finalize (object);
}

static void
anot_item_get_property (GObject    *object,
                        guint       prop_id,
                        GValue     *value,
                        GParamSpec *pspec)
{
  AnotItem *self = ANOT_ITEM (object);

  switch (prop_id)
    {
    case PROP_ID:
      g_value_set_string (value, self->id);
      break;
    case PROP_INDEX:
      g_value_set_uint (value, self->index);
      break;
    case PROP_NAME:
      g_value_set_string (value, self->name);
      break;
    case PROP_CITY:
      g_value_set_string (value, self->city);
      break;
    case PROP_STARS:
      g_value_set_double (value, self->stars);
      break;
    case PROP_CATEGORIES:
      g_value_set_boxed (value, (gpointer) self->categories);
      break;
    case PROP_CATEGORIES_STRING:
      g_value_set_string (value, self->categories_string);
      break;
    case PROP_N_REVIEWS:
      g_value_set_uint (value, self->reviews->len);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
anot_item_class_init (AnotItemClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  const GParamFlags flags = G_PARAM_READABLE | G_PARAM_STATIC_STRINGS;

  object_class->finalize = anot_item_finalize;
  object_class->get_property = anot_item_get_property;

  /**
   * AnotItem:id:
   *
   * The `business_id` of the item.
   */
  properties[PROP_ID] = g_param_spec_string ("id", NULL, NULL, NULL, flags);
  /**
   * AnotItem:index:
   *
   * The 0-based line of the item in `restaurants.jsonl`.
   */
  properties[PROP_INDEX] = g_param_spec_uint ("index", NULL, NULL,
                                              0, G_MAXUINT, 0, flags);
  /**
   * AnotItem:name:
   *
   * The `name` of the item.
   */
  properties[PROP_NAME] = g_param_spec_string ("name", NULL, NULL, NULL, flags);
  /**
   * AnotItem:city:
   *
   * The `city` of the item, or %NULL.
   */
  properties[PROP_CITY] = g_param_spec_string ("city", NULL, NULL, NULL, flags);
  /**
   * AnotItem:stars:
   *
   * The item's average star rating on Yelp (`stars`), 0.0 if absent.
   */
  properties[PROP_STARS] = g_param_spec_double ("stars", NULL, NULL,
                                                -G_MAXDOUBLE, G_MAXDOUBLE, 0.0, flags);
  /**
   * AnotItem:categories:
   *
   * The categories, split and trimmed.
   */
  properties[PROP_CATEGORIES] = g_param_spec_boxed ("categories", NULL, NULL,
                                                    G_TYPE_STRV, flags);
  /**
   * AnotItem:categories-string:
   *
   * The `categories` field as written in the file, or %NULL.
   */
  properties[PROP_CATEGORIES_STRING] = g_param_spec_string ("categories-string", NULL, NULL,
                                                            NULL, flags);
  /**
   * AnotItem:n-reviews:
   *
   * The number of reviews of the item in the dataset (not Yelp's
   * `review_count`).
   */
  properties[PROP_N_REVIEWS] = g_param_spec_uint ("n-reviews", NULL, NULL,
                                                  0, G_MAXUINT, 0, flags);

  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
anot_item_init (AnotItem *self)
{
  self->reviews = g_ptr_array_new_with_free_func (g_object_unref);
}

/* Returns @value, the member @field of an object (its last value if
 * repeated, as json-glib reads it), if it has @kind (INTEGER: any number;
 * for strings @kind is STRING); -1 (no error) if it is absent (-1) or JSON
 * null and @optional; otherwise -1 and an error. */
static int
check_member (AnotJsonDocument  *doc,
              int                value,
              const char        *field,
              AnotJsonKind       kind,
              gboolean           optional,
              GError           **error)
{
  AnotJsonKind actual = anot_json_document_get_kind (doc, value);
  const char *what;

  if (value < 0 || (optional && actual == ANOT_JSON_KIND_NULL))
    {
      if (!optional)
        g_set_error (error, ANOT_ERROR, ANOT_ERROR_MISSING_FIELD,
                     "field “%s”: missing", field);
      return -1;
    }

  if (actual == kind ||
      (kind == ANOT_JSON_KIND_DOUBLE && actual == ANOT_JSON_KIND_INTEGER))
    return value;
  what = kind == ANOT_JSON_KIND_OBJECT ? "an object"
       : kind == ANOT_JSON_KIND_DOUBLE ? "a number"
       : "a string";
  g_set_error (error, ANOT_ERROR, ANOT_ERROR_INVALID_FIELD,
               "field “%s”: expected %s", field, what);
  return -1;
}

/* Split on ",", trimmed, empty pieces dropped (evidence.md §2).  The
 * pieces repeat across items, so they are interned. */
static const char * const *
split_categories (AnotStore  *store,
                  const char *str)
{
  const char **categories;
  guint n = 0, n_pieces = 1;

  if (str == NULL)
    {
      categories = _anot_store_alloc (store, sizeof (char *));
      categories[0] = NULL;
      return categories;
    }

  for (const char *c = str; (c = strchr (c, ',')) != NULL; c++)
    n_pieces++;
  categories = _anot_store_alloc (store, (n_pieces + 1) * sizeof (char *));

  /* As g_strsplit() at "," and g_strstrip() of each piece, without a
   * copy of each: a hundred thousand items have a few categories each. */
  for (const char *p = str;;)
    {
      const char *comma = strchr (p, ',');
      const char *start = p, *end = comma != NULL ? comma : p + strlen (p);

      while (start < end && g_ascii_isspace (*start))
        start++;
      while (end > start && g_ascii_isspace (end[-1]))
        end--;
      if (end > start)
        categories[n++] = _anot_store_intern_len (store, start, (gsize) (end - start));
      if (comma == NULL)
        break;
      p = comma + 1;
    }
  categories[n] = NULL;

  return categories;
}

/* The string members of @object, in @store.  A repeated member counts
 * with its last value, as json-glib reads it: keys are interned, so a
 * repeat is found by pointer. */
static const Pair *
store_pairs (AnotStore        *store,
             AnotJsonDocument *doc,
             int               object,
             guint            *out_n)
{
  guint size = anot_json_document_get_size (doc, object);
  Pair *pairs;
  guint n = 0;
  int key = object + 1;

  *out_n = 0;
  if (size == 0)
    return NULL;

  pairs = _anot_store_alloc (store, size * sizeof (Pair));
  for (guint i = 0; i < size; i++, key = _anot_json_document_get_next (doc, key + 1))
    {
      const char *name = _anot_store_intern_json_string (store, doc, key);
      gboolean is_string = anot_json_document_get_kind (doc, key + 1) == ANOT_JSON_KIND_STRING;
      guint j;

      for (j = 0; j < n && pairs[j].key != name; j++)
        ;
      if (j < n)
        {
          /* An earlier value of the same member: the last one decides. */
          memmove (&pairs[j], &pairs[j + 1], (n - j - 1) * sizeof (Pair));
          n--;
        }
      if (!is_string)
        continue;
      pairs[n].key = name;
      pairs[n].value = _anot_store_intern_json_string (store, doc, key + 1);
      n++;
    }
  *out_n = n;

  return pairs;
}

/* Fields the benchmark's builder computed from the answers: kept in the
 * file, never shown to a method (anot_item_get_record() leaves them out;
 * anot_item_dup_file_record() has them). */
static const char * const hidden_fields[] = { "llm_score", "llm_reasoning" };

static gboolean
is_hidden_field (const char *name)
{
  for (guint i = 0; i < G_N_ELEMENTS (hidden_fields); i++)
    if (strcmp (name, hidden_fields[i]) == 0)
      return TRUE;
  return FALSE;
}

/* @record without the hidden fields, sealed (transfer full; @record itself
 * when it has none). */
static JsonObject *
without_hidden_fields (JsonObject *record)
{
  JsonObject *out;
  JsonObjectIter iter;
  const char *name;
  JsonNode *member;
  gboolean any = FALSE;

  for (guint i = 0; i < G_N_ELEMENTS (hidden_fields); i++)
    any = any || json_object_has_member (record, hidden_fields[i]);
  if (!any)
    {
      if (!json_object_is_immutable (record))
        json_object_seal (record);
      return json_object_ref (record);
    }

  out = json_object_new ();
  json_object_iter_init_ordered (&iter, record);
  while (json_object_iter_next_ordered (&iter, &name, &member))
    if (!is_hidden_field (name))
      json_object_set_member (out, name, json_node_copy (member));
  json_object_seal (out);
  return out;
}

/* The text of a loaded item parsed again (it parsed when the item was
 * built, so this succeeds): the record as in the file. */
static JsonObject *
parse_file_record (AnotItem *self)
{
  g_autoptr(JsonParser) parser = json_parser_new_immutable ();
  g_autoptr(GError) error = NULL;

  if (!json_parser_load_from_data (parser, self->json_text, self->json_len, &error))
    g_error ("item %s: record no longer parses: %s", self->id, error->message);
  return json_object_ref (json_node_get_object (json_parser_get_root (parser)));
}

static const char *
lookup_pair (const Pair *pairs,
             guint       n,
             const char *key)
{
  for (guint i = 0; i < n; i++)
    {
      if (strcmp (pairs[i].key, key) == 0)
        return pairs[i].value;
    }

  return NULL;
}

/* One "H:M" of an opening-hours range: 0 <= H <= 24, 0 <= M <= 59, 24
 * only as 24:0 (the end of a day open around the clock). */
static gboolean
parse_clock (const char  *p,
             const char  *end,
             guint       *minutes)
{
  guint h = 0, m = 0, n = 0;

  for (; p < end && g_ascii_isdigit (*p) && n < 2; p++, n++)
    h = h * 10 + (*p - '0');
  if (n == 0 || p == end || *p++ != ':')
    return FALSE;
  for (n = 0; p < end && g_ascii_isdigit (*p) && n < 2; p++, n++)
    m = m * 10 + (*p - '0');
  if (n == 0 || p != end || m > 59 || h > 24 || (h == 24 && m != 0))
    return FALSE;
  *minutes = h * 60 + m;
  return TRUE;
}

/* Whether @str is an opening-hours range the rules read as the benchmark
 * means it: `"H:M-H:M"` in 24-hour time (zero padding allowed), a start
 * before 24:00.  The validator reads other spellings as "not open", so a
 * `"5am-11pm"` would silently fail every hours condition. */
gboolean
_anot_hours_range_is_valid (const char *str)
{
  const char *dash;
  guint start, end;

  if (str == NULL)
    return FALSE;
  dash = strchr (str, '-');
  if (dash == NULL || strchr (dash + 1, '-') != NULL)
    return FALSE;
  return parse_clock (str, dash, &start) && start < 24 * 60 &&
         parse_clock (dash + 1, dash + 1 + strlen (dash + 1), &end);
}

static const char * const day_names[] = {
  "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday", NULL,
};

gboolean
_anot_day_name_is_valid (const char *day)
{
  return g_strv_contains (day_names, day);
}

/* The string @value of @doc decoded into @buffer if it fits, else into
 * *@heap: a hundred thousand items have a week of hours each. */
static const char *
decode_short (AnotJsonDocument  *doc,
              int                value,
              char              *buffer,
              gsize              size,
              char             **heap)
{
  gsize raw = _anot_json_document_get_raw_length (doc, value);

  if (raw >= size)
    buffer = *heap = g_malloc (raw + 1);
  _anot_json_document_decode_string (doc, value, buffer);
  return buffer;
}

/* Every member of `hours` is a day name and an empty string (closed) or a
 * range. */
static gboolean
check_hours (AnotJsonDocument  *doc,
             int                object,
             GError           **error)
{
  guint size = anot_json_document_get_size (doc, object);
  int key = object + 1;

  for (guint i = 0; i < size; i++, key = _anot_json_document_get_next (doc, key + 1))
    {
      char day_buffer[32], range_buffer[32];
      g_autofree char *day_heap = NULL, *range_heap = NULL;
      const char *day = decode_short (doc, key, day_buffer, sizeof day_buffer, &day_heap);
      const char *range;

      if (!_anot_day_name_is_valid (day))
        {
          g_set_error (error, ANOT_ERROR, ANOT_ERROR_INVALID_FIELD,
                       "field “hours.%s”: unknown day (expected Monday, Tuesday, …, Sunday)", day);
          return FALSE;
        }
      if (anot_json_document_get_kind (doc, key + 1) == ANOT_JSON_KIND_NULL)
        continue;
      if (anot_json_document_get_kind (doc, key + 1) != ANOT_JSON_KIND_STRING)
        {
          g_set_error (error, ANOT_ERROR, ANOT_ERROR_INVALID_FIELD,
                       "field “hours.%s”: expected a string \"H:M-H:M\"", day);
          return FALSE;
        }
      range = decode_short (doc, key + 1, range_buffer, sizeof range_buffer, &range_heap);
      if (range[0] != '\0' && !_anot_hours_range_is_valid (range))
        {
          g_set_error (error, ANOT_ERROR, ANOT_ERROR_INVALID_FIELD,
                       "field “hours.%s”: “%s” is not a range \"H:M-H:M\" in 24-hour time "
                       "(e.g. \"7:30-16:0\"; \"0:0-24:0\" for open all day)", day, range);
          return FALSE;
        }
    }
  return TRUE;
}

/* The members an item is built from, in the order Yelp's files list them. */
enum { BUSINESS_ID, NAME, CITY, STARS, ATTRIBUTES, CATEGORIES, HOURS, N_ITEM_MEMBERS };
static const AnotJsonName item_members[N_ITEM_MEMBERS] = {
  ANOT_JSON_NAME ("business_id"), ANOT_JSON_NAME ("name"), ANOT_JSON_NAME ("city"),
  ANOT_JSON_NAME ("stars"), ANOT_JSON_NAME ("attributes"), ANOT_JSON_NAME ("categories"),
  ANOT_JSON_NAME ("hours"),
};

/* Builds an item from the object @object of @doc (the text of its
 * line).  The record stays as text; see anot_item_get_record(). */
AnotItem *
_anot_item_new_from_document (AnotStore         *store,
                              AnotJsonDocument  *doc,
                              int                object,
                              const char        *json_text,
                              gsize              json_len,
                              GError           **error)
{
  g_autoptr(AnotItem) self = NULL;
  GError *local_error = NULL;
  gboolean own_store;
  int members[N_ITEM_MEMBERS];
  int value;

  g_return_val_if_fail (doc != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  self = g_object_new (ANOT_TYPE_ITEM, NULL);
  own_store = store == NULL;
  self->store = own_store ? _anot_store_new (1024) : _anot_store_ref (store);
  store = self->store;

  /* All members in one pass; checked below in a fixed order. */
  _anot_json_document_find_members (doc, object, item_members, N_ITEM_MEMBERS, members);

#define MEMBER(field, kind, optional) \
  (value = check_member (doc, members[field], item_members[field].name, kind, optional, \
                         &local_error), local_error == NULL)

  if (!MEMBER (BUSINESS_ID, ANOT_JSON_KIND_STRING, FALSE))
    goto fail;
  if (_anot_json_document_get_raw_length (doc, value) == 0)
    {
      g_set_error (error, ANOT_ERROR, ANOT_ERROR_INVALID_FIELD,
                   "field “business_id”: empty id");
      return NULL;
    }
  self->id = _anot_store_add_json_string (store, doc, value);

  if (!MEMBER (NAME, ANOT_JSON_KIND_STRING, FALSE))
    goto fail;
  self->name = _anot_store_add_json_string (store, doc, value);

  if (!MEMBER (CITY, ANOT_JSON_KIND_STRING, TRUE))
    goto fail;
  if (value >= 0)
    self->city = _anot_store_intern_json_string (store, doc, value);

  if (!MEMBER (STARS, ANOT_JSON_KIND_DOUBLE, TRUE))
    goto fail;
  if (value >= 0)
    self->stars = anot_json_document_get_double (doc, value, 0);

  if (!MEMBER (CATEGORIES, ANOT_JSON_KIND_STRING, TRUE))
    goto fail;
  if (value >= 0)
    self->categories_string = _anot_store_add_json_string (store, doc, value);
  self->categories = split_categories (store, self->categories_string);

  if (!MEMBER (ATTRIBUTES, ANOT_JSON_KIND_OBJECT, TRUE))
    goto fail;
  if (value >= 0)
    self->attributes = store_pairs (store, doc, value, &self->n_attributes);

  if (!MEMBER (HOURS, ANOT_JSON_KIND_OBJECT, TRUE))
    goto fail;
  if (value >= 0)
    {
      if (!check_hours (doc, value, &local_error))
        goto fail;
      self->hours = store_pairs (store, doc, value, &self->n_hours);
    }

#undef MEMBER

  if (json_text != NULL)
    {
      self->json_text = _anot_store_add_string (store, json_text, json_len);
      self->json_len = json_len;
    }

  if (own_store)
    _anot_store_seal (store);

  return g_steal_pointer (&self);

fail:
  g_propagate_error (error, local_error);
  return NULL;
}

AnotItem *
anot_item_new_internal (AnotStore   *store,
                        JsonObject  *record,
                        const char  *json_text,
                        gssize       json_len,
                        guint        index,
                        GError     **error)
{
  g_autoptr(AnotJsonDocument) doc = NULL;
  AnotItem *self;

  g_return_val_if_fail (record != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  /* One reader of records: a tree is read as its text. */
  if (json_text == NULL)
    {
      g_autoptr(JsonNode) node = json_node_init_object (json_node_alloc (), record);
      g_autoptr(GString) out = g_string_new (NULL);

      anot_json_write (out, node);
      doc = anot_json_document_new_from_data (out->str, (gssize) out->len, error);
    }
  else
    {
      if (json_len < 0)
        json_len = (gssize) strlen (json_text);
      doc = anot_json_document_new_from_data (json_text, json_len, error);
    }
  if (doc == NULL)
    return NULL;

  self = _anot_item_new_from_document (store, doc, 0, json_text, (gsize) MAX (json_len, 0), error);
  if (self == NULL)
    return NULL;
  self->index = index;
  if (json_text == NULL)
    {
      if (!json_object_is_immutable (record))
        json_object_seal (record);
      self->file_record = json_object_ref (record);
      self->record = without_hidden_fields (record);
    }
  return self;
}

void
_anot_item_set_index (AnotItem *self,
                      guint     index)
{
  g_return_if_fail (ANOT_IS_ITEM (self));

  self->index = index;
}

void
_anot_item_add_review (AnotItem   *self,
                       AnotReview *review)
{
  g_return_if_fail (ANOT_IS_ITEM (self));
  g_return_if_fail (ANOT_IS_REVIEW (review));
  g_return_if_fail (anot_review_get_position (review) == self->reviews->len);

  g_ptr_array_add (self->reviews, g_object_ref (review));
}

/* _anot_item_add_review() taking the caller's reference: the loader adds
 * a million reviews it has no further use for. */
void
_anot_item_take_review (AnotItem   *self,
                        AnotReview *review)
{
  g_ptr_array_add (self->reviews, review);
}

/**
 * anot_item_copy_with_reviews:
 * @self: a #AnotItem
 * @reviews: (element-type Anot.Review) (transfer none): the reviews of the
 *   copy, in order; each must be about @self (same item id)
 *
 * Creates a copy of @self with other reviews: the same record, attributes,
 * hours, index and id, and @reviews in place of its reviews.  This is how
 * an attack builds what a method sees (reviews changed with
 * anot_review_copy_with_text(), added with anot_review_new(), or left out)
 * without modifying the dataset: @self and its reviews are not changed.
 *
 * A review's [property@Anot.Review:position] is its index among the
 * reviews of its item, so a review placed at another index than its
 * position (after an insertion, say) is copied with the new position.
 *
 * Returns: (transfer full): a new #AnotItem
 */
AnotItem *
anot_item_copy_with_reviews (AnotItem  *self,
                             GPtrArray *reviews)
{
  AnotItem *copy;

  g_return_val_if_fail (ANOT_IS_ITEM (self), NULL);
  g_return_val_if_fail (reviews != NULL, NULL);
  for (guint i = 0; i < reviews->len; i++)
    {
      AnotReview *review = g_ptr_array_index (reviews, i);

      g_return_val_if_fail (ANOT_IS_REVIEW (review), NULL);
      g_return_val_if_fail (strcmp (anot_review_get_item_id (review), self->id) == 0, NULL);
    }

  copy = g_object_new (ANOT_TYPE_ITEM, NULL);
  /* The strings are read-only once the item is built: share them. */
  copy->store = _anot_store_ref (self->store);
  copy->json_text = self->json_text;
  copy->json_len = self->json_len;
  copy->record = json_object_ref (anot_item_get_record (self));
  copy->file_record = self->file_record != NULL ? json_object_ref (self->file_record) : NULL;
  copy->id = self->id;
  copy->name = self->name;
  copy->city = self->city;
  copy->categories_string = self->categories_string;
  copy->categories = self->categories;
  copy->attributes = self->attributes;
  copy->hours = self->hours;
  copy->n_attributes = self->n_attributes;
  copy->n_hours = self->n_hours;
  copy->stars = self->stars;
  copy->index = self->index;
  if (self->dataset_link != NULL)
    copy->dataset_link = g_atomic_rc_box_acquire (self->dataset_link);

  for (guint i = 0; i < reviews->len; i++)
    {
      AnotReview *review = g_ptr_array_index (reviews, i);

      if (anot_review_get_position (review) == i)
        g_ptr_array_add (copy->reviews, g_object_ref (review));
      else
        g_ptr_array_add (copy->reviews, _anot_review_copy_at (review, NULL, i));
    }

  return copy;
}

/* The dataset @self was loaded from (also for a copy made with
 * anot_item_copy_with_reviews()), or NULL once it is finalized: items do
 * not keep their dataset alive.  Library-internal (see
 * anot-dataset-private.h): attacks use it, methods must not reach it. */
AnotDataset *
_anot_item_get_dataset (AnotItem *self)
{
  g_return_val_if_fail (ANOT_IS_ITEM (self), NULL);

  if (self->dataset_link == NULL)
    return NULL;
  return g_weak_ref_get (&self->dataset_link->dataset);
}

/**
 * anot_item_get_id:
 * @self: a #AnotItem
 *
 * Gets the `business_id` of the item, unique within its dataset.
 *
 * Returns: (transfer none): the id
 */
const char *
anot_item_get_id (AnotItem *self)
{
  g_return_val_if_fail (ANOT_IS_ITEM (self), NULL);

  return self->id;
}

/**
 * anot_item_get_index:
 * @self: a #AnotItem
 *
 * Gets the index of the item: its 0-based line in `restaurants.jsonl`.
 * Gold indices and the keys of `user_mapping.json` refer to it.
 *
 * Returns: the index
 */
guint
anot_item_get_index (AnotItem *self)
{
  g_return_val_if_fail (ANOT_IS_ITEM (self), 0);

  return self->index;
}

/**
 * anot_item_get_name:
 * @self: a #AnotItem
 *
 * Gets the `name` of the item.
 *
 * Returns: (transfer none): the name
 */
const char *
anot_item_get_name (AnotItem *self)
{
  g_return_val_if_fail (ANOT_IS_ITEM (self), NULL);

  return self->name;
}

/**
 * anot_item_get_city:
 * @self: a #AnotItem
 *
 * Gets the `city` of the item.
 *
 * Returns: (transfer none) (nullable): the city, or %NULL if the record has
 *   none
 */
const char *
anot_item_get_city (AnotItem *self)
{
  g_return_val_if_fail (ANOT_IS_ITEM (self), NULL);

  return self->city;
}

/**
 * anot_item_get_stars:
 * @self: a #AnotItem
 *
 * Gets the item's average star rating on Yelp (`stars`).
 *
 * Returns: the stars, or 0.0 if the record has none
 */
double
anot_item_get_stars (AnotItem *self)
{
  g_return_val_if_fail (ANOT_IS_ITEM (self), 0.0);

  return self->stars;
}

/**
 * anot_item_get_categories:
 * @self: a #AnotItem
 *
 * Gets the categories of the item: the `categories` string split on `,`,
 * each piece trimmed, empty pieces dropped, in file order.
 *
 * Returns: (transfer none) (array zero-terminated=1): the categories; an
 *   empty array if the record has none
 */
const char * const *
anot_item_get_categories (AnotItem *self)
{
  g_return_val_if_fail (ANOT_IS_ITEM (self), NULL);

  return self->categories;
}

/**
 * anot_item_get_categories_string:
 * @self: a #AnotItem
 *
 * Gets the `categories` field as written in the file, e.g.
 * `"Coffee & Tea, Food, Bakeries"`.
 *
 * Returns: (transfer none) (nullable): the string, or %NULL if the record
 *   has none
 */
const char *
anot_item_get_categories_string (AnotItem *self)
{
  g_return_val_if_fail (ANOT_IS_ITEM (self), NULL);

  return self->categories_string;
}

/**
 * anot_item_get_record:
 * @self: a #AnotItem
 *
 * Gets the item's record as read from `restaurants.jsonl` without the
 * fields that leak the answer (`llm_score`, `llm_reasoning`, which the
 * original framework computed from the gold answers and never showed a
 * method): what a method may read.  Records loaded from a file are
 * immutable.  anot_item_dup_file_record() has the whole record.
 *
 * Returns: (transfer none): the record
 */
JsonObject *
anot_item_get_record (AnotItem *self)
{
  g_return_val_if_fail (ANOT_IS_ITEM (self), NULL);

  /* Items are shared between threads once loaded: parse once. */
  if (g_once_init_enter (&self->record))
    {
      g_autoptr(JsonObject) record = parse_file_record (self);

      g_once_init_leave (&self->record, without_hidden_fields (record));
    }

  return self->record;
}

/**
 * anot_item_dup_file_record:
 * @self: a #AnotItem
 *
 * Gets the item's record exactly as in the file, with the fields a method
 * must not see (`llm_score`, `llm_reasoning`): for tools that study how a
 * benchmark was built, never for a method.  Each call of a loaded item
 * parses its line again.
 *
 * Returns: (transfer full): the record
 */
JsonObject *
anot_item_dup_file_record (AnotItem *self)
{
  g_return_val_if_fail (ANOT_IS_ITEM (self), NULL);

  if (self->json_text == NULL)
    return json_object_ref (self->file_record);
  return parse_file_record (self);
}

/* The record as a new reference, without the hidden fields: the cached
 * one when anot_item_get_record() already parsed it, else parsed from the
 * text without keeping it, for a reader that needs it once per item (the
 * validator over a whole dataset, which must not keep a tree per item). */
JsonObject *
_anot_item_dup_record (AnotItem *self)
{
  g_autoptr(JsonObject) record = NULL;

  g_return_val_if_fail (ANOT_IS_ITEM (self), NULL);

  if (g_atomic_pointer_get (&self->record) != NULL || self->json_text == NULL)
    return json_object_ref (anot_item_get_record (self));
  record = parse_file_record (self);
  return without_hidden_fields (record);
}

/* The names of the item's string attributes, in record order (the
 * domain's example attributes are counted from them). */
guint
_anot_item_get_n_attribute_names (AnotItem *self)
{
  return self->n_attributes;
}

const char *
_anot_item_get_attribute_name (AnotItem *self,
                               guint     i)
{
  return self->attributes[i].key;
}

/**
 * anot_item_get_attributes:
 * @self: a #AnotItem
 *
 * Gets the `attributes` object of the record, with the raw string values
 * of the file.
 *
 * Returns: (transfer none) (nullable): the attributes, or %NULL if the
 *   record has none
 */
JsonObject *
anot_item_get_attributes (AnotItem *self)
{
  JsonNode *node;

  g_return_val_if_fail (ANOT_IS_ITEM (self), NULL);

  node = json_object_get_member (anot_item_get_record (self), "attributes");
  if (node == NULL || !JSON_NODE_HOLDS_OBJECT (node))
    return NULL;

  return json_node_get_object (node);
}

/**
 * anot_item_get_attribute:
 * @self: a #AnotItem
 * @name: an attribute name, e.g. `"WiFi"`
 *
 * Gets the raw value of one attribute, e.g. `"u'free'"`.
 *
 * Returns: (transfer none) (nullable): the value, or %NULL if the attribute
 *   is absent or its value is not a string
 */
const char *
anot_item_get_attribute (AnotItem   *self,
                         const char *name)
{
  g_return_val_if_fail (ANOT_IS_ITEM (self), NULL);
  g_return_val_if_fail (name != NULL, NULL);

  return lookup_pair (self->attributes, self->n_attributes, name);
}

/**
 * anot_item_get_hours:
 * @self: a #AnotItem
 * @day: a day name as in the file, e.g. `"Monday"`
 *
 * Gets the opening hours of one day, e.g. `"7:30-16:0"`.
 *
 * Returns: (transfer none) (nullable): the hours, or %NULL if the item is
 *   closed that day: the day is absent, or its value is `""` or not a
 *   string (as the rules read it)
 */
const char *
anot_item_get_hours (AnotItem   *self,
                     const char *day)
{
  const char *value;

  g_return_val_if_fail (ANOT_IS_ITEM (self), NULL);
  g_return_val_if_fail (day != NULL, NULL);

  value = lookup_pair (self->hours, self->n_hours, day);
  return value != NULL && value[0] != '\0' ? value : NULL;
}

/**
 * anot_item_get_n_reviews:
 * @self: a #AnotItem
 *
 * Gets the number of reviews of the item in the dataset.
 *
 * Returns: the number of reviews
 */
guint
anot_item_get_n_reviews (AnotItem *self)
{
  g_return_val_if_fail (ANOT_IS_ITEM (self), 0);

  return self->reviews->len;
}

/**
 * anot_item_get_review:
 * @self: a #AnotItem
 * @position: a position, less than anot_item_get_n_reviews()
 *
 * Gets the review at @position, in `reviews.jsonl` order.
 *
 * Returns: (transfer none): the review
 */
AnotReview *
anot_item_get_review (AnotItem *self,
                      guint     position)
{
  g_return_val_if_fail (ANOT_IS_ITEM (self), NULL);
  g_return_val_if_fail (position < self->reviews->len, NULL);

  return g_ptr_array_index (self->reviews, position);
}

/**
 * anot_item_get_reviews:
 * @self: a #AnotItem
 *
 * Gets all reviews of the item, in `reviews.jsonl` order.
 *
 * Returns: (transfer none) (element-type Anot.Review): the reviews; do not
 *   modify the array
 */
GPtrArray *
anot_item_get_reviews (AnotItem *self)
{
  g_return_val_if_fail (ANOT_IS_ITEM (self), NULL);

  return self->reviews;
}
