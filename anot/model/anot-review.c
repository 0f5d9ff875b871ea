/* anot-review.c
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "anot-review.h"

#include <string.h>

#include "anot-dataset-private.h"
#include "anot-json-private.h"
#include "anot-text-private.h"

/* ------------------------------------------------------------------------ *
 * AnotStore
 * ------------------------------------------------------------------------ */

/* The strings interned so far, by their bytes.  Not a GHashTable of C
 * strings: an item interns some fifty attribute names and values, read
 * straight from the JSON text they are in (not NUL-terminated there), and
 * g_str_hash() and strcmp() over them byte by byte were a tenth of the
 * loader's CPU.  Open addressing; the hash and length are compared before
 * the bytes. */
typedef struct {
  const char *str;
  guint32     hash;
  guint32     len;
} InternSlot;

typedef struct {
  InternSlot *slots;
  guint       mask;        /* slots - 1; 0 when there are none */
  guint       n;
} InternTable;

struct _AnotStore {
  gsize       block_size;
  GPtrArray  *blocks;      /* every allocation, freed with the store */
  char       *cur;         /* free space of the current block */
  gsize       cur_left;
  InternTable interned;    /* only until _anot_store_seal() */
  GPtrArray  *adopted;     /* stores kept alive with this one */
};

static void
anot_store_clear (gpointer data)
{
  AnotStore *store = data;

  g_ptr_array_unref (store->blocks);
  g_clear_pointer (&store->interned.slots, g_free);
  g_clear_pointer (&store->adopted, g_ptr_array_unref);
}

AnotStore *
_anot_store_new (gsize block_size)
{
  AnotStore *store = g_atomic_rc_box_new0 (AnotStore);

  store->block_size = MAX (block_size, 64);
  store->blocks = g_ptr_array_new_with_free_func (g_free);

  return store;
}

AnotStore *
_anot_store_ref (AnotStore *store)
{
  return g_atomic_rc_box_acquire (store);
}

void
_anot_store_unref (AnotStore *store)
{
  g_atomic_rc_box_release_full (store, anot_store_clear);
}

static gpointer
anot_store_take (AnotStore *store,
                 gsize      size,
                 gsize      align)
{
  gsize pad = (align - ((guintptr) store->cur & (align - 1))) & (align - 1);
  gpointer ret;

  if (store->cur == NULL || pad + size > store->cur_left)
    {
      /* Big pieces get a block of their own rather than wasting the rest
       * of the current one. */
      if (size > store->block_size / 8)
        {
          ret = g_malloc (size);
          g_ptr_array_add (store->blocks, ret);
          return ret;
        }

      store->cur = g_malloc (store->block_size);
      store->cur_left = store->block_size;
      g_ptr_array_add (store->blocks, store->cur);
      pad = 0;
    }

  ret = store->cur + pad;
  store->cur += pad + size;
  store->cur_left -= pad + size;

  return ret;
}

const char *
_anot_store_add_string (AnotStore  *store,
                        const char *str,
                        gssize      len)
{
  char *copy;

  if (str == NULL)
    return NULL;
  if (len < 0)
    len = strlen (str);

  copy = anot_store_take (store, len + 1, 1);
  memcpy (copy, str, len);
  copy[len] = '\0';

  return copy;
}

/* The slot of @str[0..@len) in @table: the string there, or an empty slot
 * where it goes. */
static InternSlot *
intern_find (InternTable *table,
             const char  *str,
             gsize        len,
             guint32      hash)
{
  for (guint i = hash & table->mask;; i = (i + 1) & table->mask)
    {
      InternSlot *slot = &table->slots[i];

      if (slot->str == NULL ||
          (slot->hash == hash && slot->len == len && anot_bytes_equal (slot->str, str, len)))
        return slot;
    }
}

static void
intern_grow (InternTable *table)
{
  InternSlot *old = table->slots;
  guint old_size = table->mask + 1;
  guint size = old != NULL ? 2 * old_size : 64;

  table->slots = g_new0 (InternSlot, size);
  table->mask = size - 1;
  for (guint i = 0; old != NULL && i < old_size; i++)
    if (old[i].str != NULL)
      *intern_find (table, old[i].str, old[i].len, old[i].hash) = old[i];
  g_free (old);
}

/* The interned copy of @str[0..@len) (which need not be NUL-terminated),
 * copied into @store when there is none yet. */
const char *
_anot_store_intern_len (AnotStore  *store,
                  const char *str,
                  gsize       len)
{
  InternTable *table = &store->interned;
  guint32 hash = anot_hash_bytes (str, len);
  InternSlot *slot;

  /* Half full at most, so that probes stay short. */
  if (2 * (table->n + 1) > table->mask + 1)
    intern_grow (table);

  slot = intern_find (table, str, len, hash);
  if (slot->str == NULL)
    {
      slot->str = _anot_store_add_string (store, str, (gssize) len);
      slot->hash = hash;
      slot->len = (guint32) len;
      table->n++;
    }

  return slot->str;
}

/* The interned copy of @str, which is copied into @store when there is
 * none yet. */
const char *
_anot_store_intern (AnotStore  *store,
                    const char *str)
{
  if (str == NULL)
    return NULL;

  return _anot_store_intern_len (store, str, strlen (str));
}

gpointer
_anot_store_alloc (AnotStore *store,
                   gsize      size)
{
  return anot_store_take (store, MAX (size, 1), sizeof (gpointer));
}


char *
_anot_store_alloc_chars (AnotStore *store,
                         gsize      size)
{
  return anot_store_take (store, MAX (size, 1), 1);
}

void
_anot_store_adopt (AnotStore *store,
                   AnotStore *other)
{
  if (store->adopted == NULL)
    store->adopted = g_ptr_array_new_with_free_func ((GDestroyNotify) _anot_store_unref);
  g_ptr_array_add (store->adopted, _anot_store_ref (other));
}

const char *
_anot_store_add_json_string (AnotStore        *store,
                             AnotJsonDocument *doc,
                             int               value)
{
  char *out = _anot_store_alloc_chars (store, _anot_json_document_get_raw_length (doc, value) + 1);

  _anot_json_document_decode_string (doc, value, out);
  return out;
}

const char *
_anot_store_intern_json_string (AnotStore        *store,
                                AnotJsonDocument *doc,
                                int               value)
{
  char buffer[256];
  g_autofree char *heap = NULL;
  const char *bytes;
  gsize len;

  bytes = _anot_json_document_peek_string (doc, value, buffer, sizeof buffer, &heap, &len);
  g_return_val_if_fail (bytes != NULL, NULL);
  return _anot_store_intern_len (store, bytes, len);
}

/* Interning is only useful while a dataset is being loaded; afterwards the
 * table would cost as much as the strings it indexes. */
void
_anot_store_seal (AnotStore *store)
{
  g_clear_pointer (&store->interned.slots, g_free);
  store->interned.mask = 0;
  store->interned.n = 0;
}

/* ------------------------------------------------------------------------ *
 * AnotReview
 * ------------------------------------------------------------------------ */

/**
 * AnotReview:
 *
 * One review of an item, as read from `reviews.jsonl`.
 *
 * A review is immutable.  Its reviewer name comes from `user_mapping.json`
 * (the synthetic social layer of the benchmark); a review without a record
 * there has the empty string as its name.
 *
 * Only the known fields of a review record are kept (unknown fields are
 * dropped when loading); anot_review_to_json() rebuilds the record from them.
 */
struct _AnotReview
{
  GObject parent_instance;

  AnotStore          *store;
  AnotReview         *source;             /* a copy borrows the strings of its source */
  const char         *id;
  const char         *item_id;
  const char         *user_id;
  const char         *text;
  const char         *date;
  const char         *user_yelping_since;
  const char         *reviewer_name;
  const char * const *assigned_friends;
  double              stars;
  double              user_average_stars;
  gint64              useful;
  gint64              funny;
  gint64              cool;
  gint64              user_review_count;
  guint               position;
  guint               flags;
};

G_DEFINE_FINAL_TYPE (AnotReview, anot_review, G_TYPE_OBJECT)

enum {
  PROP_0,
  PROP_ID,
  PROP_ITEM_ID,
  PROP_USER_ID,
  PROP_STARS,
  PROP_TEXT,
  PROP_DATE,
  PROP_USEFUL,
  PROP_FUNNY,
  PROP_COOL,
  PROP_REVIEWER_NAME,
  PROP_POSITION,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

static void
anot_review_finalize (GObject *object)
{
  AnotReview *self = ANOT_REVIEW (object);

  g_clear_pointer (&self->store, _anot_store_unref);
  g_clear_object (&self->source);

  G_OBJECT_CLASS (anot_review_parent_class)->finalize (object);
}

static void
anot_review_get_property (GObject    *object,
                          guint       prop_id,
                          GValue     *value,
                          GParamSpec *pspec)
{
  AnotReview *self = ANOT_REVIEW (object);

  switch (prop_id)
    {
    case PROP_ID:
      g_value_set_string (value, self->id);
      break;
    case PROP_ITEM_ID:
      g_value_set_string (value, self->item_id);
      break;
    case PROP_USER_ID:
      g_value_set_string (value, self->user_id);
      break;
    case PROP_STARS:
      g_value_set_double (value, self->stars);
      break;
    case PROP_TEXT:
      g_value_set_string (value, self->text);
      break;
    case PROP_DATE:
      g_value_set_string (value, self->date);
      break;
    case PROP_USEFUL:
      g_value_set_int64 (value, self->useful);
      break;
    case PROP_FUNNY:
      g_value_set_int64 (value, self->funny);
      break;
    case PROP_COOL:
      g_value_set_int64 (value, self->cool);
      break;
    case PROP_REVIEWER_NAME:
      g_value_set_string (value, self->reviewer_name);
      break;
    case PROP_POSITION:
      g_value_set_uint (value, self->position);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
anot_review_class_init (AnotReviewClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  const GParamFlags flags = G_PARAM_READABLE | G_PARAM_STATIC_STRINGS;

  object_class->finalize = anot_review_finalize;
  object_class->get_property = anot_review_get_property;

  /**
   * AnotReview:id:
   *
   * The `review_id` of the review.
   */
  properties[PROP_ID] = g_param_spec_string ("id", NULL, NULL, NULL, flags);
  /**
   * AnotReview:item-id:
   *
   * The `business_id` of the reviewed item.
   */
  properties[PROP_ITEM_ID] = g_param_spec_string ("item-id", NULL, NULL, NULL, flags);
  /**
   * AnotReview:user-id:
   *
   * The `user_id` of the reviewer (a Yelp id), or %NULL.
   */
  properties[PROP_USER_ID] = g_param_spec_string ("user-id", NULL, NULL, NULL, flags);
  /**
   * AnotReview:stars:
   *
   * The star rating of the review.
   */
  properties[PROP_STARS] = g_param_spec_double ("stars", NULL, NULL,
                                                -G_MAXDOUBLE, G_MAXDOUBLE, 0.0, flags);
  /**
   * AnotReview:text:
   *
   * The text of the review.
   */
  properties[PROP_TEXT] = g_param_spec_string ("text", NULL, NULL, NULL, flags);
  /**
   * AnotReview:date:
   *
   * The `date` of the review (`"YYYY-MM-DD HH:MM:SS"`), or %NULL.
   */
  properties[PROP_DATE] = g_param_spec_string ("date", NULL, NULL, NULL, flags);
  /**
   * AnotReview:useful:
   *
   * The `useful` vote count.
   */
  properties[PROP_USEFUL] = g_param_spec_int64 ("useful", NULL, NULL,
                                                G_MININT64, G_MAXINT64, 0, flags);
  /**
   * AnotReview:funny:
   *
   * The `funny` vote count.
   */
  properties[PROP_FUNNY] = g_param_spec_int64 ("funny", NULL, NULL,
                                               G_MININT64, G_MAXINT64, 0, flags);
  /**
   * AnotReview:cool:
   *
   * The `cool` vote count.
   */
  properties[PROP_COOL] = g_param_spec_int64 ("cool", NULL, NULL,
                                              G_MININT64, G_MAXINT64, 0, flags);
  /**
   * AnotReview:reviewer-name:
   *
   * The synthetic reviewer name from `user_mapping.json`, or the empty
   * string when the review has no record there.
   */
  properties[PROP_REVIEWER_NAME] = g_param_spec_string ("reviewer-name", NULL, NULL,
                                                        "", flags);
  /**
   * AnotReview:position:
   *
   * The 0-based index of the review among the reviews of its item, in file
   * order.
   */
  properties[PROP_POSITION] = g_param_spec_uint ("position", NULL, NULL,
                                                 0, G_MAXUINT, 0, flags);

  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
anot_review_init (AnotReview *self)
{
  self->reviewer_name = "";
}

AnotReview *
anot_review_new_internal (AnotStore              *store,
                          const AnotReviewFields *fields,
                          guint                   position)
{
  AnotReview *self;
  gboolean own_store;

  g_return_val_if_fail (fields != NULL, NULL);
  g_return_val_if_fail (fields->id != NULL, NULL);
  g_return_val_if_fail (fields->item_id != NULL, NULL);
  g_return_val_if_fail (fields->text != NULL, NULL);

  self = g_object_new (ANOT_TYPE_REVIEW, NULL);

  own_store = store == NULL;
  self->store = own_store ? _anot_store_new (512) : _anot_store_ref (store);
  store = self->store;

  self->id = _anot_store_add_string (store, fields->id, -1);
  self->item_id = _anot_store_intern (store, fields->item_id);
  self->text = _anot_store_add_string (store, fields->text, fields->text_len);
  self->stars = fields->stars;
  self->position = position;
  self->flags = fields->flags & ~ANOT_REVIEW_HAS_ASSIGNMENT;

  if (fields->user_id != NULL)
    {
      self->user_id = _anot_store_intern (store, fields->user_id);
      self->flags |= ANOT_REVIEW_HAS_USER_ID;
    }
  else
    self->flags &= ~ANOT_REVIEW_HAS_USER_ID;

  if (fields->date != NULL)
    {
      self->date = _anot_store_add_string (store, fields->date, -1);
      self->flags |= ANOT_REVIEW_HAS_DATE;
    }
  else
    self->flags &= ~ANOT_REVIEW_HAS_DATE;

  if (self->flags & ANOT_REVIEW_HAS_USEFUL)
    self->useful = fields->useful;
  if (self->flags & ANOT_REVIEW_HAS_FUNNY)
    self->funny = fields->funny;
  if (self->flags & ANOT_REVIEW_HAS_COOL)
    self->cool = fields->cool;

  if (self->flags & ANOT_REVIEW_HAS_USER)
    {
      if (self->flags & ANOT_REVIEW_HAS_USER_REVIEW_COUNT)
        self->user_review_count = fields->user_review_count;
      if (self->flags & ANOT_REVIEW_HAS_USER_AVERAGE_STARS)
        self->user_average_stars = fields->user_average_stars;
      if (fields->user_yelping_since != NULL)
        {
          /* One user writes many reviews: share the string. */
          self->user_yelping_since = _anot_store_intern (store, fields->user_yelping_since);
          self->flags |= ANOT_REVIEW_HAS_USER_YELPING_SINCE;
        }
      else
        self->flags &= ~ANOT_REVIEW_HAS_USER_YELPING_SINCE;
    }
  else
    self->flags &= ~(ANOT_REVIEW_HAS_USER_REVIEW_COUNT |
                     ANOT_REVIEW_HAS_USER_AVERAGE_STARS |
                     ANOT_REVIEW_HAS_USER_YELPING_SINCE);

  /* Nothing else will be added to a store of our own. */
  if (own_store)
    _anot_store_seal (store);

  return self;
}

AnotReview *
_anot_review_new_borrowing (AnotStore              *owner,
                            const AnotReviewFields *fields)
{
  AnotReview *self;

  g_return_val_if_fail (owner != NULL, NULL);
  g_return_val_if_fail (fields != NULL, NULL);

  self = g_object_new (ANOT_TYPE_REVIEW, NULL);
  self->store = _anot_store_ref (owner);
  self->id = fields->id;
  self->item_id = fields->item_id;
  self->text = fields->text;
  self->stars = fields->stars;
  self->user_id = fields->user_id;
  self->date = fields->date;
  self->useful = fields->useful;
  self->funny = fields->funny;
  self->cool = fields->cool;
  self->user_review_count = fields->user_review_count;
  self->user_average_stars = fields->user_average_stars;
  self->user_yelping_since = fields->user_yelping_since;
  /* The same flags as anot_review_new_internal() derives. */
  self->flags = fields->flags & ~(ANOT_REVIEW_HAS_ASSIGNMENT | ANOT_REVIEW_HAS_USER_ID |
                                  ANOT_REVIEW_HAS_DATE | ANOT_REVIEW_HAS_USER_YELPING_SINCE);
  if (fields->user_id != NULL)
    self->flags |= ANOT_REVIEW_HAS_USER_ID;
  if (fields->date != NULL)
    self->flags |= ANOT_REVIEW_HAS_DATE;
  if (!(self->flags & ANOT_REVIEW_HAS_USER))
    self->flags &= ~(ANOT_REVIEW_HAS_USER_REVIEW_COUNT | ANOT_REVIEW_HAS_USER_AVERAGE_STARS);
  else if (fields->user_yelping_since != NULL)
    self->flags |= ANOT_REVIEW_HAS_USER_YELPING_SINCE;
  if (!(self->flags & ANOT_REVIEW_HAS_USER))
    self->user_yelping_since = NULL;
  return self;
}

void
_anot_review_place (AnotReview *self,
                    guint       position,
                    const char *item_id)
{
  /* The loader found the item by this review's item id: no strcmp()
   * again for each of a million reviews. */
  g_return_if_fail (ANOT_IS_REVIEW (self));

  self->position = position;
  self->item_id = item_id;
}

/**
 * anot_review_new:
 * @id: the `review_id`
 * @item_id: the `business_id` of the reviewed item
 * @stars: the star rating
 * @text: the text
 * @date: (nullable): the `date`, e.g. `"2024-01-01 00:00:00"`
 *
 * Creates a review that comes from no file, for instance the fake review an
 * attack adds to an item.  It has no user, no votes and no reviewer name;
 * its position is 0 until it is placed in an item with
 * anot_item_copy_with_reviews().
 *
 * Returns: (transfer full): a new #AnotReview
 */
AnotReview *
anot_review_new (const char *id,
                 const char *item_id,
                 double      stars,
                 const char *text,
                 const char *date)
{
  AnotReviewFields fields = {
    .id = id,
    .item_id = item_id,
    .stars = stars,
    .text = text,
    .text_len = -1,
    .date = date,
  };

  g_return_val_if_fail (id != NULL, NULL);
  g_return_val_if_fail (item_id != NULL, NULL);
  g_return_val_if_fail (text != NULL, NULL);

  return anot_review_new_internal (NULL, &fields, 0);
}

AnotReview *
_anot_review_copy_at (AnotReview *self,
                      const char *text,
                      guint       position)
{
  AnotReview *copy;

  g_return_val_if_fail (ANOT_IS_REVIEW (self), NULL);

  copy = g_object_new (ANOT_TYPE_REVIEW, NULL);
  /* Every string but a new text stays where it is: the copy keeps its
   * source (and so the source's store) alive instead of duplicating it. */
  copy->source = g_object_ref (self);
  copy->id = self->id;
  copy->item_id = self->item_id;
  copy->user_id = self->user_id;
  copy->date = self->date;
  copy->user_yelping_since = self->user_yelping_since;
  copy->reviewer_name = self->reviewer_name;
  copy->assigned_friends = self->assigned_friends;
  copy->stars = self->stars;
  copy->user_average_stars = self->user_average_stars;
  copy->useful = self->useful;
  copy->funny = self->funny;
  copy->cool = self->cool;
  copy->user_review_count = self->user_review_count;
  copy->flags = self->flags;
  copy->position = position;

  if (text != NULL)
    {
      gsize len = strlen (text);

      copy->store = _anot_store_new (len + 1);
      copy->text = _anot_store_add_string (copy->store, text, len);
      _anot_store_seal (copy->store);
    }
  else
    {
      copy->store = _anot_store_ref (self->store);
      copy->text = self->text;
    }

  return copy;
}

/**
 * anot_review_copy_with_text:
 * @self: a #AnotReview
 * @text: the new text
 *
 * Creates a copy of @self whose text is @text; every other field (id,
 * stars, date, user, reviewer name and friends, position) is the same.
 * @self is not modified.  This is how an attack changes what a method
 * reads without touching the dataset.
 *
 * Returns: (transfer full): a new #AnotReview
 */
AnotReview *
anot_review_copy_with_text (AnotReview *self,
                            const char *text)
{
  g_return_val_if_fail (ANOT_IS_REVIEW (self), NULL);
  g_return_val_if_fail (text != NULL, NULL);

  return _anot_review_copy_at (self, text, self->position);
}

void
_anot_review_set_assignment (AnotReview         *self,
                             const char         *name,
                             const char * const *friends)
{
  g_return_if_fail (ANOT_IS_REVIEW (self));

  self->reviewer_name = name != NULL ? name : "";
  self->assigned_friends = friends;
  self->flags |= ANOT_REVIEW_HAS_ASSIGNMENT;
}

gboolean
_anot_review_has_assignment (AnotReview *self)
{
  g_return_val_if_fail (ANOT_IS_REVIEW (self), FALSE);

  return (self->flags & ANOT_REVIEW_HAS_ASSIGNMENT) != 0;
}

const char * const *
_anot_review_get_assigned_friends (AnotReview *self)
{
  g_return_val_if_fail (ANOT_IS_REVIEW (self), NULL);

  return self->assigned_friends;
}

guint
_anot_review_get_flags (AnotReview *self)
{
  g_return_val_if_fail (ANOT_IS_REVIEW (self), 0);

  return self->flags;
}

AnotStore *
_anot_review_get_store (AnotReview *self)
{
  g_return_val_if_fail (ANOT_IS_REVIEW (self), NULL);

  return self->store;
}

/**
 * anot_review_get_id:
 * @self: a #AnotReview
 *
 * Gets the `review_id` of the review, unique within its dataset.
 *
 * Returns: (transfer none): the review id
 */
const char *
anot_review_get_id (AnotReview *self)
{
  g_return_val_if_fail (ANOT_IS_REVIEW (self), NULL);

  return self->id;
}

/**
 * anot_review_get_item_id:
 * @self: a #AnotReview
 *
 * Gets the `business_id` of the item the review is about.
 *
 * Returns: (transfer none): the item id
 */
const char *
anot_review_get_item_id (AnotReview *self)
{
  g_return_val_if_fail (ANOT_IS_REVIEW (self), NULL);

  return self->item_id;
}

/**
 * anot_review_get_user_id:
 * @self: a #AnotReview
 *
 * Gets the `user_id` of the reviewer.
 *
 * Returns: (transfer none) (nullable): the user id, or %NULL if the record
 *   has none
 */
const char *
anot_review_get_user_id (AnotReview *self)
{
  g_return_val_if_fail (ANOT_IS_REVIEW (self), NULL);

  return self->user_id;
}

/**
 * anot_review_get_stars:
 * @self: a #AnotReview
 *
 * Gets the star rating of the review.
 *
 * Returns: the stars (1.0 to 5.0 in Yelp data)
 */
double
anot_review_get_stars (AnotReview *self)
{
  g_return_val_if_fail (ANOT_IS_REVIEW (self), 0.0);

  return self->stars;
}

/**
 * anot_review_get_text:
 * @self: a #AnotReview
 *
 * Gets the text of the review.
 *
 * Returns: (transfer none): the text
 */
const char *
anot_review_get_text (AnotReview *self)
{
  g_return_val_if_fail (ANOT_IS_REVIEW (self), NULL);

  return self->text;
}

/**
 * anot_review_get_date:
 * @self: a #AnotReview
 *
 * Gets the `date` of the review as written in the file
 * (`"YYYY-MM-DD HH:MM:SS"` in Yelp data).
 *
 * Returns: (transfer none) (nullable): the date, or %NULL if the record has
 *   none
 */
const char *
anot_review_get_date (AnotReview *self)
{
  g_return_val_if_fail (ANOT_IS_REVIEW (self), NULL);

  return self->date;
}

/**
 * anot_review_get_useful:
 * @self: a #AnotReview
 *
 * Gets the `useful` vote count.
 *
 * Returns: the count, 0 if the record has none
 */
gint64
anot_review_get_useful (AnotReview *self)
{
  g_return_val_if_fail (ANOT_IS_REVIEW (self), 0);

  return self->useful;
}

/**
 * anot_review_get_funny:
 * @self: a #AnotReview
 *
 * Gets the `funny` vote count.
 *
 * Returns: the count, 0 if the record has none
 */
gint64
anot_review_get_funny (AnotReview *self)
{
  g_return_val_if_fail (ANOT_IS_REVIEW (self), 0);

  return self->funny;
}

/**
 * anot_review_get_cool:
 * @self: a #AnotReview
 *
 * Gets the `cool` vote count.
 *
 * Returns: the count, 0 if the record has none
 */
gint64
anot_review_get_cool (AnotReview *self)
{
  g_return_val_if_fail (ANOT_IS_REVIEW (self), 0);

  return self->cool;
}

/**
 * anot_review_get_position:
 * @self: a #AnotReview
 *
 * Gets the 0-based index of the review among the reviews of its item, in
 * the order of `reviews.jsonl`.  This is the `review_idx` that
 * `user_mapping.json` refers to.
 *
 * Returns: the position
 */
guint
anot_review_get_position (AnotReview *self)
{
  g_return_val_if_fail (ANOT_IS_REVIEW (self), 0);

  return self->position;
}

/**
 * anot_review_get_reviewer_name:
 * @self: a #AnotReview
 *
 * Gets the synthetic reviewer name that `user_mapping.json` assigns to the
 * review.  The social conditions of the validator compare these names
 * case-sensitively.
 *
 * Returns: (transfer none): the name, or the empty string (never %NULL) if
 *   the dataset has no record for this review
 */
const char *
anot_review_get_reviewer_name (AnotReview *self)
{
  g_return_val_if_fail (ANOT_IS_REVIEW (self), "");

  return self->reviewer_name;
}

/**
 * anot_review_has_user_average_stars:
 * @self: a #AnotReview
 *
 * Whether the record has a `user.average_stars` value.  The validator skips
 * reviews without one when it filters on that field.
 *
 * Returns: %TRUE if anot_review_get_user_average_stars() is meaningful
 */
gboolean
anot_review_has_user_average_stars (AnotReview *self)
{
  g_return_val_if_fail (ANOT_IS_REVIEW (self), FALSE);

  return (self->flags & ANOT_REVIEW_HAS_USER_AVERAGE_STARS) != 0;
}

/**
 * anot_review_get_user_average_stars:
 * @self: a #AnotReview
 *
 * Gets the reviewer's mean rating over all their Yelp reviews
 * (`user.average_stars`).
 *
 * Returns: the mean, or 0.0 if the record has none (see
 *   anot_review_has_user_average_stars())
 */
double
anot_review_get_user_average_stars (AnotReview *self)
{
  g_return_val_if_fail (ANOT_IS_REVIEW (self), 0.0);

  return self->user_average_stars;
}

/**
 * anot_review_get_user_review_count:
 * @self: a #AnotReview
 *
 * Gets the reviewer's total number of Yelp reviews (`user.review_count`).
 *
 * Returns: the count, 0 if the record has none
 */
gint64
anot_review_get_user_review_count (AnotReview *self)
{
  g_return_val_if_fail (ANOT_IS_REVIEW (self), 0);

  return self->user_review_count;
}

/**
 * anot_review_get_user_yelping_since:
 * @self: a #AnotReview
 *
 * Gets the date the reviewer joined Yelp (`user.yelping_since`).
 *
 * Returns: (transfer none) (nullable): the date, or %NULL if the record has
 *   none
 */
const char *
anot_review_get_user_yelping_since (AnotReview *self)
{
  g_return_val_if_fail (ANOT_IS_REVIEW (self), NULL);

  return self->user_yelping_since;
}

/**
 * anot_review_to_json:
 * @self: a #AnotReview
 *
 * Builds the review record back as a JSON object, with the fields in the
 * order of `reviews.jsonl` (`review_id`, `business_id`, `user_id`, `stars`,
 * `text`, `date`, `useful`, `funny`, `cool`, `user`).  Optional fields are
 * written only if the file had them.  As the original framework's loader
 * does, the `user` object also gets the reviewer's `name` and `friends`
 * (a list of names) when `user_mapping.json` has a record for the review.
 *
 * Returns: (transfer full): a new #JsonObject
 */
JsonObject *
anot_review_to_json (AnotReview *self)
{
  JsonObject *obj;

  g_return_val_if_fail (ANOT_IS_REVIEW (self), NULL);

  obj = json_object_new ();
  json_object_set_string_member (obj, "review_id", self->id);
  /* The original's labelled added reviews had no business_id: an attack's
   * compatibility mode reproduces them as they were. */
  if (!(self->flags & ANOT_REVIEW_NO_ITEM_ID))
    json_object_set_string_member (obj, "business_id", self->item_id);
  if (self->user_id != NULL)
    json_object_set_string_member (obj, "user_id", self->user_id);
  json_object_set_double_member (obj, "stars", self->stars);
  json_object_set_string_member (obj, "text", self->text);
  if (self->date != NULL)
    json_object_set_string_member (obj, "date", self->date);
  if (self->flags & ANOT_REVIEW_HAS_USEFUL)
    json_object_set_int_member (obj, "useful", self->useful);
  if (self->flags & ANOT_REVIEW_HAS_FUNNY)
    json_object_set_int_member (obj, "funny", self->funny);
  if (self->flags & ANOT_REVIEW_HAS_COOL)
    json_object_set_int_member (obj, "cool", self->cool);

  if (self->flags & (ANOT_REVIEW_HAS_USER | ANOT_REVIEW_HAS_ASSIGNMENT))
    {
      JsonObject *user = json_object_new ();

      if (self->flags & ANOT_REVIEW_HAS_USER_REVIEW_COUNT)
        json_object_set_int_member (user, "review_count", self->user_review_count);
      if (self->flags & ANOT_REVIEW_HAS_USER_AVERAGE_STARS)
        json_object_set_double_member (user, "average_stars", self->user_average_stars);
      if (self->user_yelping_since != NULL)
        json_object_set_string_member (user, "yelping_since", self->user_yelping_since);

      if (self->flags & ANOT_REVIEW_HAS_ASSIGNMENT)
        {
          JsonArray *friends = json_array_new ();

          json_object_set_string_member (user, "name", self->reviewer_name);
          for (guint i = 0; self->assigned_friends != NULL && self->assigned_friends[i] != NULL; i++)
            json_array_add_string_element (friends, self->assigned_friends[i]);
          json_object_set_array_member (user, "friends", friends);
        }

      json_object_set_object_member (obj, "user", user);
    }

  return obj;
}
