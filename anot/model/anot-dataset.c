/* anot-dataset.c: the type and its lookups
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Loading is in anot-dataset-loader.c (the directory) and
 * anot-dataset-reader.c (the files, record by record).
 */
#include "config.h"

#ifdef HAVE_MALLOC_TRIM
#include <malloc.h>
#endif

#include "anot-dataset.h"

#include <string.h>

#include "anot-dataset-loader-private.h"
#include "anot-dataset-private.h"

/**
 * AnotDataset:
 *
 * A benchmark: candidate items with their reviews, requests with their gold
 * items, and the side data the validator needs (reviewer names, the friend
 * graph, cached per-review LLM judgements).
 *
 * anot_dataset_load() reads a benchmark directory:
 *
 * - `restaurants.jsonl`: one item a line; the index of an item is its
 *   0-based position among the records (blank lines are skipped);
 * - `reviews.jsonl`: one review a line, grouped by `business_id` in file
 *   order;
 * - `user_mapping.json` (optional): `friend_graph` and the reviewer names of
 *   `review_assignments`;
 * - `requests.jsonl`: one request a line, kept in file order;
 * - `groundtruth.jsonl` (optional): must agree with the gold items of the
 *   requests and cover every request;
 * - `judgement_cache.json` (optional): cached judgements keyed
 *   `"<review_id>:<aspect>"`.
 *
 * The #AnotDataset:checksum identifies the version of the data in results:
 * the SHA-256 of the files above concatenated in that order, skipping
 * absent optional files, i.e. `cat restaurants.jsonl reviews.jsonl
 * user_mapping.json requests.jsonl groundtruth.jsonl judgement_cache.json |
 * sha256sum`.
 *
 * Loading parses `restaurants.jsonl` and `reviews.jsonl` in worker threads
 * (one per processor) and computes the checksum in another; the result and
 * the errors are the same as for a sequential read.  Only the fields of a
 * review are kept, not its JSON; an item keeps the text of its line and
 * parses it again when anot_item_get_record() is first called, so a loaded
 * benchmark takes about as much memory as its files.
 *
 * A dataset is immutable once loaded and may be shared between threads.
 */

G_DEFINE_FINAL_TYPE (AnotDataset, anot_dataset, G_TYPE_OBJECT)

enum {
  PROP_0,
  PROP_NAME,
  PROP_PATH,
  PROP_CHECKSUM,
  PROP_N_ITEMS,
  PROP_N_REVIEWS,
  PROP_N_REQUESTS,
  PROP_DOMAIN,
  PROP_ITEMS_FILE,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

const char * const _anot_dataset_empty_strv[] = { NULL };

#define LARGE_DATASET_REVIEWS 100000

static void
anot_dataset_finalize (GObject *object)
{
  AnotDataset *self = ANOT_DATASET (object);
#ifdef HAVE_MALLOC_TRIM
  guint n_reviews = self->n_reviews;
#endif

  g_clear_pointer (&self->name, g_free);
  g_clear_pointer (&self->path, g_free);
  g_clear_pointer (&self->checksum, g_free);
  /* The tables only borrow from the objects and the store. */
  g_clear_pointer (&self->items_by_id, g_hash_table_unref);
  g_clear_pointer (&self->reviews_by_id, _anot_id_table_free);
  g_clear_pointer (&self->requests_by_id, g_hash_table_unref);
  g_clear_pointer (&self->friend_graph, g_hash_table_unref);
  g_clear_pointer (&self->judgements, g_hash_table_unref);
  g_clear_pointer (&self->items, g_ptr_array_unref);
  g_clear_pointer (&self->requests, g_ptr_array_unref);
  g_clear_pointer (&self->store, _anot_store_unref);
  g_clear_pointer (&self->link, _anot_dataset_link_unref);
  g_clear_object (&self->domain);
  g_clear_pointer (&self->items_file, g_free);
  g_clear_pointer (&self->warnings, g_ptr_array_unref);

#ifdef HAVE_MALLOC_TRIM
  /* A large dataset's million small objects and its string blocks leave
   * free memory in every loader thread's malloc arena, which glibc keeps:
   * the next load (a notebook reading the data again, bench-load
   * --repeat) then peaks at that much above one load (1.27x the files
   * against 1.14x on the 1M-review set).  Small datasets are not worth
   * the walk over the arenas. */
  if (n_reviews >= LARGE_DATASET_REVIEWS)
    malloc_trim (0);
#endif
  G_OBJECT_CLASS (anot_dataset_parent_class)->finalize (object);
}

static void
anot_dataset_get_property (GObject    *object,
                           guint       prop_id,
                           GValue     *value,
                           GParamSpec *pspec)
{
  AnotDataset *self = ANOT_DATASET (object);

  switch (prop_id)
    {
    case PROP_NAME:
      g_value_set_string (value, self->name);
      break;
    case PROP_PATH:
      g_value_set_string (value, self->path);
      break;
    case PROP_CHECKSUM:
      g_value_set_string (value, self->checksum);
      break;
    case PROP_N_ITEMS:
      g_value_set_uint (value, self->items->len);
      break;
    case PROP_N_REVIEWS:
      g_value_set_uint (value, self->n_reviews);
      break;
    case PROP_N_REQUESTS:
      g_value_set_uint (value, self->requests->len);
      break;
    case PROP_DOMAIN:
      g_value_set_object (value, self->domain);
      break;
    case PROP_ITEMS_FILE:
      g_value_set_string (value, self->items_file);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
anot_dataset_class_init (AnotDatasetClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  const GParamFlags flags = G_PARAM_READABLE | G_PARAM_STATIC_STRINGS;

  object_class->finalize = anot_dataset_finalize;
  object_class->get_property = anot_dataset_get_property;

  /**
   * AnotDataset:name:
   *
   * The name of the dataset: the base name of its directory.
   */
  properties[PROP_NAME] = g_param_spec_string ("name", NULL, NULL, NULL, flags);
  /**
   * AnotDataset:path:
   *
   * The absolute path of the dataset directory.
   */
  properties[PROP_PATH] = g_param_spec_string ("path", NULL, NULL, NULL, flags);
  /**
   * AnotDataset:checksum:
   *
   * The SHA-256 (lowercase hex) of the files read, in a fixed order; see
   * #AnotDataset.
   */
  properties[PROP_CHECKSUM] = g_param_spec_string ("checksum", NULL, NULL, NULL, flags);
  /**
   * AnotDataset:n-items:
   *
   * The number of items.
   */
  properties[PROP_N_ITEMS] = g_param_spec_uint ("n-items", NULL, NULL,
                                                0, G_MAXUINT, 0, flags);
  /**
   * AnotDataset:n-reviews:
   *
   * The number of reviews, over all items.
   */
  properties[PROP_N_REVIEWS] = g_param_spec_uint ("n-reviews", NULL, NULL,
                                                  0, G_MAXUINT, 0, flags);
  /**
   * AnotDataset:n-requests:
   *
   * The number of requests.
   */
  properties[PROP_N_REQUESTS] = g_param_spec_uint ("n-requests", NULL, NULL,
                                                   0, G_MAXUINT, 0, flags);
  /**
   * AnotDataset:domain:
   *
   * What the items are (`meta.json`'s `domain`); a benchmark that declares
   * none is about restaurants (#AnotDomain:is-default).
   */
  properties[PROP_DOMAIN] = g_param_spec_object ("domain", NULL, NULL,
                                                 ANOT_TYPE_DOMAIN, flags);
  /**
   * AnotDataset:items-file:
   *
   * The file the items were read from: `restaurants.jsonl` (the original
   * name) or `items.jsonl`.
   */
  properties[PROP_ITEMS_FILE] = g_param_spec_string ("items-file", NULL, NULL, NULL, flags);

  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static const char *
review_id_of (gconstpointer review)
{
  return anot_review_get_id ((AnotReview *) review);
}

static void
anot_dataset_init (AnotDataset *self)
{
  /* Review strings are the bulk of a dataset: big blocks keep the
   * per-block waste and the number of allocations low. */
  self->store = _anot_store_new (1 << 20);
  self->link = _anot_dataset_link_new (self);
  self->items = g_ptr_array_new_with_free_func (g_object_unref);
  self->items_by_id = g_hash_table_new (g_str_hash, g_str_equal);
  self->reviews_by_id = _anot_id_table_new (review_id_of);
  self->requests = g_ptr_array_new_with_free_func (g_object_unref);
  self->requests_by_id = g_hash_table_new (g_str_hash, g_str_equal);
  self->friend_graph = g_hash_table_new (g_str_hash, g_str_equal);
  self->judgements = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  self->domain = anot_domain_new_default ();
  self->items_file = g_strdup ("restaurants.jsonl");
  self->warnings = g_ptr_array_new_with_free_func (g_free);
  g_ptr_array_add (self->warnings, NULL);
}


/* Warnings are the loader's; the list is the dataset's. */
void
_anot_dataset_add_warning (AnotDataset *self,
                           const char  *format,
                           ...)
{
  va_list args;

  va_start (args, format);
  g_ptr_array_index (self->warnings, self->warnings->len - 1) = g_strdup_vprintf (format, args);
  va_end (args);
  g_ptr_array_add (self->warnings, NULL);
}


/* ------------------------------------------------------------------------ *
 * Accessors
 * ------------------------------------------------------------------------ */

AnotStore *
_anot_dataset_get_store (AnotDataset *self)
{
  g_return_val_if_fail (ANOT_IS_DATASET (self), NULL);

  return self->store;
}

/**
 * anot_dataset_get_name:
 * @self: a #AnotDataset
 *
 * Gets the name of the dataset, the base name of its directory (e.g.
 * `"philly_cafes"`).
 *
 * Returns: (transfer none): the name
 */
const char *
anot_dataset_get_name (AnotDataset *self)
{
  g_return_val_if_fail (ANOT_IS_DATASET (self), NULL);

  return self->name;
}

/**
 * anot_dataset_get_path:
 * @self: a #AnotDataset
 *
 * Gets the absolute path of the dataset directory.
 *
 * Returns: (transfer none) (type filename): the path
 */
const char *
anot_dataset_get_path (AnotDataset *self)
{
  g_return_val_if_fail (ANOT_IS_DATASET (self), NULL);

  return self->path;
}

/**
 * anot_dataset_get_checksum:
 * @self: a #AnotDataset
 *
 * Gets the SHA-256 of the dataset's files (lowercase hex), which identifies
 * the version of the data in results.  See #AnotDataset for the definition.
 *
 * Returns: (transfer none): the checksum
 */
const char *
anot_dataset_get_checksum (AnotDataset *self)
{
  g_return_val_if_fail (ANOT_IS_DATASET (self), NULL);

  return self->checksum;
}

/**
 * anot_dataset_get_domain:
 * @self: an #AnotDataset
 *
 * Gets what the benchmark's items are (see #AnotDomain).
 *
 * Returns: (transfer none): the domain; the restaurant domain when
 *   `meta.json` declares none
 */
AnotDomain *
anot_dataset_get_domain (AnotDataset *self)
{
  g_return_val_if_fail (ANOT_IS_DATASET (self), NULL);
  return self->domain;
}

/**
 * anot_dataset_get_warnings:
 * @self: an #AnotDataset
 *
 * Gets what the loader accepted but a benchmark author would want to
 * know: records it ignored, each message naming the file and the field
 * (e.g. a `review_assignments` record for a review the item does not
 * have).  `anot-run validate` prints them.
 *
 * Returns: (transfer none) (array zero-terminated=1): the messages, empty
 *   when there are none
 */
const char * const *
anot_dataset_get_warnings (AnotDataset *self)
{
  g_return_val_if_fail (ANOT_IS_DATASET (self), NULL);
  return (const char * const *) self->warnings->pdata;
}

/**
 * anot_dataset_get_items_file:
 * @self: an #AnotDataset
 *
 * Returns: the name of the file the items were read from:
 *   `restaurants.jsonl` or `items.jsonl`
 */
const char *
anot_dataset_get_items_file (AnotDataset *self)
{
  g_return_val_if_fail (ANOT_IS_DATASET (self), NULL);
  return self->items_file;
}

/**
 * anot_dataset_get_n_items:
 * @self: a #AnotDataset
 *
 * Gets the number of items.
 *
 * Returns: the number of items
 */
guint
anot_dataset_get_n_items (AnotDataset *self)
{
  g_return_val_if_fail (ANOT_IS_DATASET (self), 0);

  return self->items->len;
}

/**
 * anot_dataset_get_item:
 * @self: a #AnotDataset
 * @index: an item index, less than anot_dataset_get_n_items()
 *
 * Gets the item at @index (its 0-based line in `restaurants.jsonl`).
 *
 * Returns: (transfer none): the item
 */
AnotItem *
anot_dataset_get_item (AnotDataset *self,
                       guint        index)
{
  g_return_val_if_fail (ANOT_IS_DATASET (self), NULL);
  g_return_val_if_fail (index < self->items->len, NULL);

  return g_ptr_array_index (self->items, index);
}

/**
 * anot_dataset_lookup_item:
 * @self: a #AnotDataset
 * @item_id: a `business_id`
 *
 * Finds an item by id.
 *
 * Returns: (transfer none) (nullable): the item, or %NULL if there is none
 */
AnotItem *
anot_dataset_lookup_item (AnotDataset *self,
                          const char  *item_id)
{
  g_return_val_if_fail (ANOT_IS_DATASET (self), NULL);
  g_return_val_if_fail (item_id != NULL, NULL);

  return g_hash_table_lookup (self->items_by_id, item_id);
}

/**
 * anot_dataset_get_n_reviews:
 * @self: a #AnotDataset
 *
 * Gets the number of reviews, over all items.
 *
 * Returns: the number of reviews
 */
guint
anot_dataset_get_n_reviews (AnotDataset *self)
{
  g_return_val_if_fail (ANOT_IS_DATASET (self), 0);

  return self->n_reviews;
}

/**
 * anot_dataset_lookup_review:
 * @self: a #AnotDataset
 * @review_id: a `review_id`
 *
 * Finds a review by id.
 *
 * Returns: (transfer none) (nullable): the review, or %NULL if there is none
 */
AnotReview *
anot_dataset_lookup_review (AnotDataset *self,
                            const char  *review_id)
{
  g_return_val_if_fail (ANOT_IS_DATASET (self), NULL);
  g_return_val_if_fail (review_id != NULL, NULL);

  return _anot_id_table_lookup (self->reviews_by_id, review_id);
}

/**
 * anot_dataset_get_n_requests:
 * @self: a #AnotDataset
 *
 * Gets the number of requests.
 *
 * Returns: the number of requests
 */
guint
anot_dataset_get_n_requests (AnotDataset *self)
{
  g_return_val_if_fail (ANOT_IS_DATASET (self), 0);

  return self->requests->len;
}

/**
 * anot_dataset_get_request:
 * @self: a #AnotDataset
 * @index: a request index, less than anot_dataset_get_n_requests()
 *
 * Gets a request, in the order of `requests.jsonl`.
 *
 * Returns: (transfer none): the request
 */
AnotRequest *
anot_dataset_get_request (AnotDataset *self,
                          guint        index)
{
  g_return_val_if_fail (ANOT_IS_DATASET (self), NULL);
  g_return_val_if_fail (index < self->requests->len, NULL);

  return g_ptr_array_index (self->requests, index);
}

/**
 * anot_dataset_lookup_request:
 * @self: a #AnotDataset
 * @request_id: a request id, e.g. `"R01"`
 *
 * Finds a request by id.
 *
 * Returns: (transfer none) (nullable): the request, or %NULL if there is
 *   none
 */
AnotRequest *
anot_dataset_lookup_request (AnotDataset *self,
                             const char  *request_id)
{
  g_return_val_if_fail (ANOT_IS_DATASET (self), NULL);
  g_return_val_if_fail (request_id != NULL, NULL);

  return g_hash_table_lookup (self->requests_by_id, request_id);
}

static int
compare_strings (gconstpointer a,
                 gconstpointer b)
{
  return strcmp (*(const char * const *) a, *(const char * const *) b);
}

/**
 * anot_dataset_list_groups:
 * @self: a #AnotDataset
 *
 * Lists the distinct request groups, sorted (byte order).
 *
 * Returns: (transfer full) (array zero-terminated=1): the groups
 */
char **
anot_dataset_list_groups (AnotDataset *self)
{
  g_autoptr(GPtrArray) groups = NULL;
  g_autoptr(GHashTable) seen = NULL;

  g_return_val_if_fail (ANOT_IS_DATASET (self), NULL);

  groups = g_ptr_array_new ();
  seen = g_hash_table_new (g_str_hash, g_str_equal);
  for (guint i = 0; i < self->requests->len; i++)
    {
      const char *group = anot_request_get_group (g_ptr_array_index (self->requests, i));

      if (g_hash_table_add (seen, (gpointer) group))
        g_ptr_array_add (groups, g_strdup (group));
    }

  g_ptr_array_sort (groups, compare_strings);
  g_ptr_array_add (groups, NULL);

  return (char **) g_ptr_array_free (g_steal_pointer (&groups), FALSE);
}

/**
 * anot_dataset_get_friends:
 * @self: a #AnotDataset
 * @name: a reviewer name
 *
 * Gets the friends of @name in the friend graph of `user_mapping.json`, in
 * file order.  The graph need not be symmetric (in philly_cafes, `Rose`
 * lists `Alice` but not the other way round).
 *
 * Returns: (transfer none) (array zero-terminated=1) (nullable): the
 *   friends, or %NULL if @name is not a key of the graph
 */
const char * const *
anot_dataset_get_friends (AnotDataset *self,
                          const char  *name)
{
  g_return_val_if_fail (ANOT_IS_DATASET (self), NULL);
  g_return_val_if_fail (name != NULL, NULL);

  return g_hash_table_lookup (self->friend_graph, name);
}

/**
 * anot_dataset_lookup_friends:
 * @self: a #AnotDataset
 * @name: a reviewer name
 * @friends: (out) (optional) (transfer none) (array zero-terminated=1):
 *   return location for the friends, %NULL if @name is not a key
 *
 * Looks @name up in the friend graph, telling a name without friends (an
 * empty list) from a name not in the graph, which bindings cannot tell
 * from anot_dataset_get_friends()'s return value.
 *
 * Returns: whether @name is a key of the graph
 */
gboolean
anot_dataset_lookup_friends (AnotDataset         *self,
                             const char          *name,
                             const char * const **friends)
{
  const char * const *found;

  g_return_val_if_fail (ANOT_IS_DATASET (self), FALSE);
  g_return_val_if_fail (name != NULL, FALSE);

  found = anot_dataset_get_friends (self, name);
  if (friends != NULL)
    *friends = found;
  return found != NULL;
}

/**
 * anot_dataset_get_judgement:
 * @self: a #AnotDataset
 * @review_id: a `review_id`
 * @aspect: an aspect, used exactly as written (case and spaces kept)
 *
 * Looks up the cached LLM judgement of a review about an aspect, by the key
 * `"<review_id>:<aspect>"` of `judgement_cache.json`.  The entry's
 * `judgement` is mapped after lowercasing: `positive`, `pos`, `true`, `yes`
 * to positive; `negative`, `neg`, `false`, `no` to negative; `neutral`,
 * `mixed` to neutral; JSON `true` to positive; anything else, and an absent
 * key, to not-mentioned.
 *
 * Returns: the judgement
 */
AnotJudgement
anot_dataset_get_judgement (AnotDataset *self,
                            const char  *review_id,
                            const char  *aspect)
{
  char stack_key[256];
  g_autofree char *heap_key = NULL;
  const char *key;
  gsize id_len, aspect_len;

  g_return_val_if_fail (ANOT_IS_DATASET (self), ANOT_JUDGEMENT_NOT_MENTIONED);
  g_return_val_if_fail (review_id != NULL, ANOT_JUDGEMENT_NOT_MENTIONED);
  g_return_val_if_fail (aspect != NULL, ANOT_JUDGEMENT_NOT_MENTIONED);

  if (g_hash_table_size (self->judgements) == 0)
    return ANOT_JUDGEMENT_NOT_MENTIONED;

  /* The validator asks for every review of every item: avoid a malloc. */
  id_len = strlen (review_id);
  aspect_len = strlen (aspect);
  if (id_len + aspect_len + 2 <= sizeof stack_key)
    {
      memcpy (stack_key, review_id, id_len);
      stack_key[id_len] = ':';
      memcpy (stack_key + id_len + 1, aspect, aspect_len + 1);
      key = stack_key;
    }
  else
    key = heap_key = g_strconcat (review_id, ":", aspect, NULL);

  return GPOINTER_TO_INT (g_hash_table_lookup (self->judgements, key));
}
