/* anot-pool.c: the N candidates a method sees for one request
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "anot-pool.h"

#include "anot-enum-types.h"
#include "anot-error.h"

#include <string.h>

/**
 * AnotPool:
 *
 * The candidate pool of one request: N items of the dataset that include
 * the request's gold item, in two orders.
 *
 * *Pool order* is the selected items sorted by their dataset index; the
 * gold's 0-based position in it is the `gold_idx` of a results row, and
 * predictions are reported in it (1-based `pred_indices`).  *Shuffled order*
 * is what the method sees ([method@Anot.Pool.get_shuffled]);
 * [method@Anot.Pool.shuffled_to_pool] maps it back.
 *
 * How the items are chosen depends on the [enum@Anot.PoolMode]:
 *
 * - %ANOT_POOL_MODE_SAMPLED: the gold plus N − 1 other items drawn
 *   uniformly without replacement;
 * - %ANOT_POOL_MODE_ORIGINAL: the original framework's rule — the N items
 *   that are most often a gold answer over all requests of the dataset
 *   (ties broken by dataset index); a request whose gold is not among them
 *   has no pool (%ANOT_ERROR_GOLD_NOT_IN_POOL).  With N at least the number
 *   of items the pool is the whole dataset.
 *
 * and the order the method sees on the [enum@Anot.ShuffleMode]: unchanged,
 * gold moved to position N / 2 (0-based) with the others keeping their
 * relative order, or a uniform random permutation (a Fisher–Yates shuffle
 * like Python's `random.shuffle`).
 *
 * Every random choice is seeded from the run seed, the request id and N
 * through [func@Anot.seed_derive], so a pool does not depend on which other
 * requests ran, in which order, or how many at once.
 */

struct _AnotPool
{
  GObject parent_instance;

  AnotRequest *request;
  AnotPoolMode mode;
  AnotShuffleMode shuffle;
  guint64 seed;

  GPtrArray *items;         /* AnotItem, pool order */
  guint gold_position;      /* 0-based, pool order */
  GPtrArray *shuffled;      /* AnotItem, the order the method sees */
  guint *to_pool;           /* shuffled position -> pool position */
  guint shuffled_gold_position;
};

G_DEFINE_FINAL_TYPE (AnotPool, anot_pool, G_TYPE_OBJECT)

enum {
  PROP_0,
  PROP_REQUEST,
  PROP_SIZE,
  PROP_MODE,
  PROP_SHUFFLE,
  PROP_SEED,
  PROP_GOLD_POSITION,
  PROP_SHUFFLED_GOLD_POSITION,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

static GRand *
rand_new_for_scope (guint64     seed,
                    const char *purpose,
                    AnotRequest *request,
                    guint        n)
{
  g_autofree char *scope = g_strdup_printf ("%s:%s:%u", purpose,
                                            anot_request_get_id (request), n);
  guint64 derived = anot_seed_derive (seed, scope);
  guint32 words[2] = { (guint32) (derived & 0xffffffffu), (guint32) (derived >> 32) };

  return g_rand_new_with_seed_array (words, 2);
}

/* ------------------------------------------------------------------------
 * GObject
 * --------------------------------------------------------------------- */

static void
anot_pool_finalize (GObject *object)
{
  AnotPool *self = ANOT_POOL (object);

  g_clear_object (&self->request);
  g_clear_pointer (&self->items, g_ptr_array_unref);
  g_clear_pointer (&self->shuffled, g_ptr_array_unref);
  g_free (self->to_pool);

  G_OBJECT_CLASS (anot_pool_parent_class)->finalize (object);
}

static void
anot_pool_get_property (GObject    *object,
                        guint       prop_id,
                        GValue     *value,
                        GParamSpec *pspec)
{
  AnotPool *self = ANOT_POOL (object);

  switch (prop_id)
    {
    case PROP_REQUEST:
      g_value_set_object (value, self->request);
      break;
    case PROP_SIZE:
      g_value_set_uint (value, self->items ? self->items->len : 0);
      break;
    case PROP_MODE:
      g_value_set_enum (value, self->mode);
      break;
    case PROP_SHUFFLE:
      g_value_set_enum (value, self->shuffle);
      break;
    case PROP_SEED:
      g_value_set_uint64 (value, self->seed);
      break;
    case PROP_GOLD_POSITION:
      g_value_set_uint (value, self->gold_position);
      break;
    case PROP_SHUFFLED_GOLD_POSITION:
      g_value_set_uint (value, self->shuffled_gold_position);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
anot_pool_class_init (AnotPoolClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = anot_pool_finalize;
  object_class->get_property = anot_pool_get_property;

  /**
   * AnotPool:request:
   *
   * The request the pool was built for.
   */
  properties[PROP_REQUEST] =
    g_param_spec_object ("request", NULL, NULL, ANOT_TYPE_REQUEST,
                         G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  /**
   * AnotPool:size:
   *
   * The number of candidates.
   */
  properties[PROP_SIZE] =
    g_param_spec_uint ("size", NULL, NULL, 0, G_MAXUINT, 0,
                       G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  /**
   * AnotPool:mode:
   *
   * How the items were chosen.
   */
  properties[PROP_MODE] =
    g_param_spec_enum ("mode", NULL, NULL, ANOT_TYPE_POOL_MODE, ANOT_POOL_MODE_SAMPLED,
                       G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  /**
   * AnotPool:shuffle:
   *
   * How the shuffled order was made.
   */
  properties[PROP_SHUFFLE] =
    g_param_spec_enum ("shuffle", NULL, NULL, ANOT_TYPE_SHUFFLE_MODE, ANOT_SHUFFLE_MODE_RANDOM,
                       G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  /**
   * AnotPool:seed:
   *
   * The run seed the pool's random choices were derived from.
   */
  properties[PROP_SEED] =
    g_param_spec_uint64 ("seed", NULL, NULL, 0, G_MAXUINT64, 0,
                         G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  /**
   * AnotPool:gold-position:
   *
   * The 0-based position of the gold item in pool order.
   */
  properties[PROP_GOLD_POSITION] =
    g_param_spec_uint ("gold-position", NULL, NULL, 0, G_MAXUINT, 0,
                       G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  /**
   * AnotPool:shuffled-gold-position:
   *
   * The 0-based position of the gold item in the shuffled order.
   */
  properties[PROP_SHUFFLED_GOLD_POSITION] =
    g_param_spec_uint ("shuffled-gold-position", NULL, NULL, 0, G_MAXUINT, 0,
                       G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);

  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
anot_pool_init (AnotPool *self)
{
}

/* ------------------------------------------------------------------------
 * Selection
 * --------------------------------------------------------------------- */

static int
compare_uint (gconstpointer a,
              gconstpointer b)
{
  guint x = *(const guint *) a, y = *(const guint *) b;

  return (x > y) - (x < y);
}

typedef struct
{
  guint index;
  guint count;
} GoldCount;

static int
compare_gold_count (gconstpointer a,
                    gconstpointer b)
{
  const GoldCount *x = a, *y = b;

  if (x->count != y->count)
    return x->count > y->count ? -1 : 1;
  return (x->index > y->index) - (x->index < y->index);
}

/* Fills @selected (dataset indices, unsorted) per the original rule;
 * returns FALSE when @gold is not among them. */
static gboolean
select_original (AnotDataset *dataset,
                 guint        n,
                 guint        gold,
                 GArray      *selected)
{
  guint n_items = anot_dataset_get_n_items (dataset);
  guint n_requests = anot_dataset_get_n_requests (dataset);
  g_autofree GoldCount *counts = NULL;
  gboolean found = FALSE;

  if (n >= n_items)
    {
      for (guint i = 0; i < n_items; i++)
        g_array_append_val (selected, i);
      return TRUE;
    }

  counts = g_new0 (GoldCount, n_items);
  for (guint i = 0; i < n_items; i++)
    counts[i].index = i;
  for (guint r = 0; r < n_requests; r++)
    {
      guint g = anot_request_get_gold_index (anot_dataset_get_request (dataset, r));

      if (g < n_items)
        counts[g].count++;
    }
  qsort (counts, n_items, sizeof (GoldCount), compare_gold_count);

  for (guint i = 0; i < n; i++)
    {
      g_array_append_val (selected, counts[i].index);
      if (counts[i].index == gold)
        found = TRUE;
    }
  return found;
}

static void
select_sampled (AnotDataset *dataset,
                AnotRequest *request,
                guint        n,
                guint        gold,
                guint64      seed,
                GArray      *selected)
{
  guint n_items = anot_dataset_get_n_items (dataset);
  g_autoptr(GRand) rand = rand_new_for_scope (seed, "pool", request, n);
  g_autofree guint *others = g_new (guint, n_items);
  guint n_others = 0;

  for (guint i = 0; i < n_items; i++)
    if (i != gold)
      others[n_others++] = i;

  g_array_append_val (selected, gold);
  /* Partial Fisher–Yates: the first n − 1 slots become a uniform sample. */
  for (guint i = 0; i + 1 < n; i++)
    {
      guint j = i + (guint) g_rand_int_range (rand, 0, (gint32) (n_others - i));
      guint tmp = others[i];

      others[i] = others[j];
      others[j] = tmp;
      g_array_append_val (selected, others[i]);
    }
}

static void
pool_shuffle (AnotPool *self,
              guint     n_requested)
{
  guint n = self->items->len;

  self->to_pool = g_new (guint, n);
  for (guint i = 0; i < n; i++)
    self->to_pool[i] = i;

  switch (self->shuffle)
    {
    case ANOT_SHUFFLE_MODE_NONE:
      break;

    case ANOT_SHUFFLE_MODE_MIDDLE:
      {
        guint target = n / 2;
        guint out = 0;

        /* Remove the gold, keep the others' relative order, and re-insert
         * the gold at n / 2. */
        for (guint i = 0; i < n; i++)
          {
            if (out == target)
              self->to_pool[out++] = self->gold_position;
            if (i != self->gold_position)
              self->to_pool[out++] = i;
          }
        if (out == target)
          self->to_pool[out++] = self->gold_position;
        g_assert (out == n);
      }
      break;

    case ANOT_SHUFFLE_MODE_RANDOM:
      {
        g_autoptr(GRand) rand = rand_new_for_scope (self->seed, "shuffle",
                                                    self->request, n_requested);

        for (guint i = n - 1; i > 0; i--)
          {
            guint j = (guint) g_rand_int_range (rand, 0, (gint32) i + 1);
            guint tmp = self->to_pool[i];

            self->to_pool[i] = self->to_pool[j];
            self->to_pool[j] = tmp;
          }
      }
      break;

    default:
      g_assert_not_reached ();
    }

  self->shuffled = g_ptr_array_new_full (n, g_object_unref);
  for (guint i = 0; i < n; i++)
    {
      g_ptr_array_add (self->shuffled,
                       g_object_ref (g_ptr_array_index (self->items, self->to_pool[i])));
      if (self->to_pool[i] == self->gold_position)
        self->shuffled_gold_position = i;
    }
}

/**
 * anot_pool_new:
 * @dataset: the dataset
 * @request: a request of @dataset
 * @n_candidates: N, the number of candidates (at least 1)
 * @mode: how the items are chosen
 * @shuffle: how the order the method sees is made
 * @seed: the run seed; the pool derives `pool:<request id>:<N>` and
 *   `shuffle:<request id>:<N>` from it with [func@Anot.seed_derive]
 * @error: return location for a #GError
 *
 * Builds the candidate pool of @request.
 *
 * In %ANOT_POOL_MODE_SAMPLED mode, @n_candidates larger than the number of
 * items is an %ANOT_ERROR_INVALID_ARGUMENT error.  In
 * %ANOT_POOL_MODE_ORIGINAL mode, a request whose gold is not among the
 * selected items fails with %ANOT_ERROR_GOLD_NOT_IN_POOL, and
 * @n_candidates at least the number of items selects every item.
 *
 * Returns: (transfer full): the pool, or %NULL with @error set
 */
AnotPool *
anot_pool_new (AnotDataset      *dataset,
               AnotRequest      *request,
               guint             n_candidates,
               AnotPoolMode      mode,
               AnotShuffleMode   shuffle,
               guint64           seed,
               GError          **error)
{
  g_autoptr(AnotPool) self = NULL;
  g_autoptr(GArray) selected = NULL;
  guint n_items, gold;

  g_return_val_if_fail (ANOT_IS_DATASET (dataset), NULL);
  g_return_val_if_fail (ANOT_IS_REQUEST (request), NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  n_items = anot_dataset_get_n_items (dataset);
  gold = anot_request_get_gold_index (request);

  if (n_candidates == 0)
    {
      g_set_error (error, ANOT_ERROR, ANOT_ERROR_INVALID_ARGUMENT,
                   "The number of candidates must be at least 1");
      return NULL;
    }
  if (gold >= n_items)
    {
      g_set_error (error, ANOT_ERROR, ANOT_ERROR_INVALID_ARGUMENT,
                   "Request %s: gold index %u is not an item of the dataset (%u items)",
                   anot_request_get_id (request), gold, n_items);
      return NULL;
    }

  selected = g_array_new (FALSE, FALSE, sizeof (guint));
  switch (mode)
    {
    case ANOT_POOL_MODE_SAMPLED:
      if (n_candidates > n_items)
        {
          g_set_error (error, ANOT_ERROR, ANOT_ERROR_INVALID_ARGUMENT,
                       "Cannot sample %u candidates from a dataset of %u items",
                       n_candidates, n_items);
          return NULL;
        }
      select_sampled (dataset, request, n_candidates, gold, seed, selected);
      break;

    case ANOT_POOL_MODE_ORIGINAL:
      if (!select_original (dataset, n_candidates, gold, selected))
        {
          g_set_error (error, ANOT_ERROR, ANOT_ERROR_GOLD_NOT_IN_POOL,
                       "Request %s: the gold item %s is not among the %u most frequent gold items",
                       anot_request_get_id (request),
                       anot_request_get_gold_item_id (request), n_candidates);
          return NULL;
        }
      break;

    default:
      g_set_error (error, ANOT_ERROR, ANOT_ERROR_INVALID_ARGUMENT,
                   "Unknown pool mode %d", (int) mode);
      return NULL;
    }

  if (shuffle != ANOT_SHUFFLE_MODE_NONE &&
      shuffle != ANOT_SHUFFLE_MODE_MIDDLE &&
      shuffle != ANOT_SHUFFLE_MODE_RANDOM)
    {
      g_set_error (error, ANOT_ERROR, ANOT_ERROR_INVALID_ARGUMENT,
                   "Unknown shuffle mode %d", (int) shuffle);
      return NULL;
    }

  g_array_sort (selected, compare_uint);

  self = g_object_new (ANOT_TYPE_POOL, NULL);
  self->request = g_object_ref (request);
  self->mode = mode;
  self->shuffle = shuffle;
  self->seed = seed;
  self->items = g_ptr_array_new_full (selected->len, g_object_unref);
  for (guint i = 0; i < selected->len; i++)
    {
      guint index = g_array_index (selected, guint, i);

      if (index == gold)
        self->gold_position = i;
      g_ptr_array_add (self->items, g_object_ref (anot_dataset_get_item (dataset, index)));
    }

  pool_shuffle (self, n_candidates);

  return g_steal_pointer (&self);
}

/**
 * anot_pool_get_request:
 * @self: an #AnotPool
 *
 * Returns: (transfer none): the request
 */
AnotRequest *
anot_pool_get_request (AnotPool *self)
{
  g_return_val_if_fail (ANOT_IS_POOL (self), NULL);
  return self->request;
}

/**
 * anot_pool_get_size:
 * @self: an #AnotPool
 *
 * Returns: the number of candidates
 */
guint
anot_pool_get_size (AnotPool *self)
{
  g_return_val_if_fail (ANOT_IS_POOL (self), 0);
  return self->items->len;
}

/**
 * anot_pool_get_item:
 * @self: an #AnotPool
 * @position: a 0-based position in pool order
 *
 * Returns: (transfer none): the item at @position of pool order
 */
AnotItem *
anot_pool_get_item (AnotPool *self,
                    guint     position)
{
  g_return_val_if_fail (ANOT_IS_POOL (self), NULL);
  g_return_val_if_fail (position < self->items->len, NULL);
  return g_ptr_array_index (self->items, position);
}

/**
 * anot_pool_get_gold_position:
 * @self: an #AnotPool
 *
 * Returns: the 0-based position of the gold item in pool order
 */
guint
anot_pool_get_gold_position (AnotPool *self)
{
  g_return_val_if_fail (ANOT_IS_POOL (self), 0);
  return self->gold_position;
}

/**
 * anot_pool_get_shuffled:
 * @self: an #AnotPool
 *
 * Returns: (transfer none) (element-type Anot.Item): the candidates in
 *   the order the method sees them
 */
GPtrArray *
anot_pool_get_shuffled (AnotPool *self)
{
  g_return_val_if_fail (ANOT_IS_POOL (self), NULL);
  return self->shuffled;
}

/**
 * anot_pool_get_shuffled_gold_position:
 * @self: an #AnotPool
 *
 * Returns: the 0-based position of the gold item in the shuffled order
 */
guint
anot_pool_get_shuffled_gold_position (AnotPool *self)
{
  g_return_val_if_fail (ANOT_IS_POOL (self), 0);
  return self->shuffled_gold_position;
}

/**
 * anot_pool_shuffled_to_pool:
 * @self: an #AnotPool
 * @shuffled_position: a 0-based position in the shuffled order
 *
 * Returns: the 0-based position in pool order of the candidate at
 *   @shuffled_position
 */
guint
anot_pool_shuffled_to_pool (AnotPool *self,
                            guint     shuffled_position)
{
  g_return_val_if_fail (ANOT_IS_POOL (self), 0);
  g_return_val_if_fail (shuffled_position < self->items->len, 0);
  return self->to_pool[shuffled_position];
}
