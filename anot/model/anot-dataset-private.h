/* anot-dataset-private.h: constructors and setters of the data model
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Only the library (the loader, the validator, the experiment runner, ...)
 * and the unit tests may include this header.  None of it is in the GIR:
 * the data model is read-only to bindings and plugins.
 */
#pragma once

#if !defined(ANOT_COMPILATION)
#error "anot-dataset-private.h is private to libanot."
#endif

#include <gio/gio.h>
#include <json-glib/json-glib.h>

#include "anot-condition.h"
#include "anot-dataset.h"
#include "anot-item.h"
#include "anot-json-document.h"
#include "anot-request.h"
#include "anot-review.h"
#include "anot-truth.h"

G_BEGIN_DECLS

/* ------------------------------------------------------------------------ *
 * AnotStore: a reference-counted arena for the strings of many reviews.
 *
 * A benchmark can hold a million reviews; a malloc'd string per field and a
 * JsonObject per review would double the memory of the file.  Reviews copy
 * their strings into a store shared by the whole dataset and keep a
 * reference to it, so a review that outlives its dataset (a Python variable,
 * an attacked copy) stays valid.
 *
 * A store is not thread-safe while it is being filled: fill it from one
 * thread, then share it freely (only the reference count is atomic).
 * ------------------------------------------------------------------------ */

typedef struct _AnotStore AnotStore;

AnotStore  *_anot_store_new         (gsize       block_size);
AnotStore  *_anot_store_ref         (AnotStore  *store);
void        _anot_store_unref       (AnotStore  *store);
const char *_anot_store_add_string  (AnotStore  *store,
                                     const char *str,
                                     gssize      len);
const char *_anot_store_intern      (AnotStore  *store,
                                     const char *str);
/* _anot_store_intern() of @str[0..@len), which need not be NUL-terminated. */
const char *_anot_store_intern_len  (AnotStore  *store,
                                     const char *str,
                                     gsize       len);
gpointer    _anot_store_alloc       (AnotStore  *store,
                                     gsize       size);
/* Room for @size bytes of text (no alignment). */
char       *_anot_store_alloc_chars (AnotStore  *store,
                                     gsize       size);
/* The decoded string @value of @doc, copied (or interned) into @store. */
const char *_anot_store_add_json_string    (AnotStore        *store,
                                            AnotJsonDocument *doc,
                                            int               value);
const char *_anot_store_intern_json_string (AnotStore        *store,
                                            AnotJsonDocument *doc,
                                            int               value);
/* @store keeps @other (a sealed store filled by another thread) alive as
 * long as itself: what points into @other may hold @store alone. */
void        _anot_store_adopt       (AnotStore  *store,
                                     AnotStore  *other);
void        _anot_store_seal        (AnotStore  *store);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (AnotStore, _anot_store_unref)

/* ------------------------------------------------------------------------ *
 * AnotReview
 * ------------------------------------------------------------------------ */

/**
 * AnotReviewFlags:
 *
 * Which optional fields of a review record were present in the file, so
 * anot_review_to_json() writes back what was read and nothing more.
 */
typedef enum {
  ANOT_REVIEW_HAS_DATE               = 1 << 0,
  ANOT_REVIEW_HAS_USEFUL             = 1 << 1,
  ANOT_REVIEW_HAS_FUNNY              = 1 << 2,
  ANOT_REVIEW_HAS_COOL               = 1 << 3,
  ANOT_REVIEW_HAS_USER               = 1 << 4,  /* a `user` object */
  ANOT_REVIEW_HAS_USER_REVIEW_COUNT  = 1 << 5,
  ANOT_REVIEW_HAS_USER_AVERAGE_STARS = 1 << 6,
  ANOT_REVIEW_HAS_USER_YELPING_SINCE = 1 << 7,
  ANOT_REVIEW_HAS_USER_ID            = 1 << 8,
  ANOT_REVIEW_HAS_ASSIGNMENT         = 1 << 9,  /* a user_mapping.json record */
  ANOT_REVIEW_NO_ITEM_ID             = 1 << 10, /* no `business_id` in the JSON, as the
                                                 * original's labelled added reviews */
} AnotReviewFlags;

/**
 * AnotReviewFields:
 * @id: `review_id` (required)
 * @item_id: `business_id` (required)
 * @user_id: (nullable): `user_id`
 * @stars: `stars`
 * @text: `text` (required)
 * @text_len: length of @text in bytes, or -1 if nul-terminated
 * @date: (nullable): `date`
 * @useful: `useful`
 * @funny: `funny`
 * @cool: `cool`
 * @user_review_count: `user.review_count`
 * @user_average_stars: `user.average_stars`
 * @user_yelping_since: (nullable): `user.yelping_since`
 * @flags: which optional fields are present (#AnotReviewFlags; the
 *   %ANOT_REVIEW_HAS_ASSIGNMENT bit is ignored here, see
 *   _anot_review_set_assignment())
 *
 * The fields of a review record, as borrowed pointers: the constructor copies
 * the strings into the store, sharing the ones that repeat across reviews
 * (item id, user id, yelping_since).
 */
typedef struct {
  const char *id;
  const char *item_id;
  const char *user_id;
  double      stars;
  const char *text;
  gssize      text_len;
  const char *date;
  gint64      useful;
  gint64      funny;
  gint64      cool;
  gint64      user_review_count;
  double      user_average_stars;
  const char *user_yelping_since;
  guint       flags;
} AnotReviewFields;

/* @store may be NULL: the review then gets a small store of its own.
 * @position is the 0-based index of the review within its item. */
AnotReview         *anot_review_new_internal        (AnotStore              *store,
                                                     const AnotReviewFields *fields,
                                                     guint                   position);
/* A review whose strings in @fields are already where they will stay
 * (nul-terminated, text_len ignored), in a store that @owner keeps alive;
 * the review keeps @owner.  Position 0 until _anot_review_set_position(). */
AnotReview         *_anot_review_new_borrowing      (AnotStore              *owner,
                                                     const AnotReviewFields *fields);
/* Only before the review is shared, when the loader commits it: sets its
 * position and makes it share its item's id string, @item_id, which the
 * caller has checked is the review's item id.  (Its user id and
 * yelping_since are not interned across reviews: each review's copy stays
 * in its batch's store anyway, so sharing the pointers saved no memory,
 * and the table cost the loader about 13% of its CPU and 50 MB on 1M
 * reviews.) */
void                _anot_review_place              (AnotReview             *self,
                                                     guint                   position,
                                                     const char             *item_id);
/* The reviewer name and the `friends` list of the user_mapping.json record
 * for this review.  Both must live in the review's store (or be static). */
void                _anot_review_set_assignment     (AnotReview             *self,
                                                     const char             *name,
                                                     const char * const     *friends);
gboolean            _anot_review_has_assignment     (AnotReview             *self);
const char * const *_anot_review_get_assigned_friends (AnotReview           *self);
guint               _anot_review_get_flags          (AnotReview             *self);
/* A copy of @self at @position with @text (NULL: the same text); the copy
 * keeps @self alive and shares its strings. */
AnotReview         *_anot_review_copy_at            (AnotReview             *self,
                                                     const char             *text,
                                                     guint                   position);
AnotStore          *_anot_review_get_store          (AnotReview             *self);

/* ------------------------------------------------------------------------ *
 * AnotItem
 * ------------------------------------------------------------------------ */

/* Opening hours as the format spells them (anot-item.c). */
gboolean            _anot_hours_range_is_valid      (const char             *str);
gboolean            _anot_day_name_is_valid         (const char             *day);

guint               _anot_item_get_n_attribute_names (AnotItem             *self);
const char         *_anot_item_get_attribute_name  (AnotItem               *self,
                                                     guint                   i);
/* The attributes a domain without a glossary gives as examples: the
 * benchmark's most common ones. */
void                _anot_domain_set_common_attributes (AnotDomain         *self,
                                                        const char * const *names);

/* The `domain` member of meta.json (the caller names the file). */
AnotDomain         *_anot_domain_new_from_node      (JsonNode               *node,
                                                     GError                **error);

/* Builds an item from its restaurants.jsonl record.  Checks `business_id`
 * and `name` and the types of the fields the item exposes; on error the
 * message is `field “x”: ...` so the loader can prefix the file and line.
 *
 * With @json_text (the line @record was parsed from), the item keeps only
 * the text and parses it again the first time anot_item_get_record() is
 * called: a JsonObject costs several times its text.  Without it, the item
 * keeps a reference to @record, which is sealed.  Strings go to @store (or
 * to a store of the item's own if NULL). */
AnotItem           *anot_item_new_internal          (AnotStore              *store,
                                                     JsonObject             *record,
                                                     const char             *json_text,
                                                     gssize                  json_len,
                                                     guint                   index,
                                                     GError                **error);
/* Builds an item from the object @object of @doc, which was parsed from
 * @json_text (kept, see anot_item_new_internal(); NULL: no text kept).
 * The checks and error messages are anot_item_new_internal()'s. */
AnotItem           *_anot_item_new_from_document    (AnotStore              *store,
                                                     AnotJsonDocument       *doc,
                                                     int                     object,
                                                     const char             *json_text,
                                                     gsize                   json_len,
                                                     GError                **error);
/* The record, parsed from the text for this caller only unless
 * anot_item_get_record() already keeps it (transfer full). */
JsonObject         *_anot_item_dup_record           (AnotItem               *self);
/* For loaders that build items before they know their index. */
void                _anot_item_set_index            (AnotItem               *self,
                                                     guint                   index);
/* The dataset an item was loaded from, for the code that needs more than
 * the candidates (an attack drawing reviewers from the whole dataset).  The
 * link is weak and shared by every item of the dataset and their copies:
 * one GWeakRef, not one per item. */
typedef struct _AnotDatasetLink AnotDatasetLink;

AnotDatasetLink    *_anot_dataset_link_new          (AnotDataset            *dataset);
void                _anot_dataset_link_unref        (AnotDatasetLink        *link);
void                _anot_item_set_dataset_link     (AnotItem               *self,
                                                     AnotDatasetLink        *link);
/* The dataset @self was loaded from, or NULL (transfer full).  Private on
 * purpose: items are handed to methods, and the dataset holds every
 * request's gold, so a public way from an item to its dataset would undo
 * blind methods (tests/python/test_blind_methods.py). */
AnotDataset        *_anot_item_get_dataset          (AnotItem               *self);
/* Appends @review (a new reference is taken); its position must be the
 * current number of reviews. */
void                _anot_item_add_review           (AnotItem               *self,
                                                     AnotReview             *review);
/* The same, taking the caller's reference; the review's position is its
 * caller's to get right. */
void                _anot_item_take_review          (AnotItem               *self,
                                                     AnotReview             *review);

/* ------------------------------------------------------------------------ *
 * AnotCondition
 * ------------------------------------------------------------------------ */

/* As anot_condition_new_from_json(), but error messages name fields under
 * @field_prefix (e.g. "structure" gives “structure.args[1].evidence.kind”).
 * A root object without "op" but with "args" is an AND group, as in the
 * reference validator. */
AnotCondition      *_anot_condition_new_from_json_at (JsonNode              *node,
                                                      const char            *field_prefix,
                                                      GError               **error);
gboolean            _anot_evidence_kind_from_string  (const char            *str,
                                                      AnotEvidenceKind      *out_kind);

/* ------------------------------------------------------------------------ *
 * AnotRequest
 * ------------------------------------------------------------------------ */

/* Takes copies of the strings and a reference to @structure.  @scenario and
 * @shorthand may be NULL. */
AnotRequest        *anot_request_new_internal       (const char             *id,
                                                     const char             *group,
                                                     const char             *scenario,
                                                     const char             *text,
                                                     const char             *shorthand,
                                                     AnotCondition          *structure,
                                                     const char             *gold_item_id,
                                                     guint                   gold_index);
void                _anot_request_set_gold_index    (AnotRequest            *self,
                                                     guint                   gold_index);
/* The `status` of the request's groundtruth.jsonl line, when there is one. */
void                _anot_request_set_gold_status   (AnotRequest            *self,
                                                     AnotGoldStatus          status);
gboolean            _anot_request_get_gold_status   (AnotRequest            *self,
                                                     AnotGoldStatus         *out_status);
gboolean            _anot_gold_status_from_string   (const char             *str,
                                                     AnotGoldStatus         *out_status);

/* ------------------------------------------------------------------------ *
 * AnotDataset
 * ------------------------------------------------------------------------ */

/* The store holding the dataset's review strings and social names. */
AnotStore          *_anot_dataset_get_store         (AnotDataset            *self);

G_END_DECLS
