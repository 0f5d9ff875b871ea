/* anot-method-bm25.c: Okapi BM25 of the request text against item text
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <anot/anot.h>

#include <math.h>
#include <string.h>

/* The non-LLM first-stage baseline.  See README.md next to this file for
 * what an item's document is made of and how text is tokenised. */

#define DEFAULT_K1 1.5
#define DEFAULT_B 0.75
#define TRACE_TOP_DEFAULT 5

#define ANOT_TYPE_METHOD_BM25 (anot_method_bm25_get_type ())
G_DECLARE_FINAL_TYPE (AnotMethodBm25, anot_method_bm25, ANOT, METHOD_BM25, GObject)

struct _AnotMethodBm25
{
  GObject parent_instance;
};

static void anot_method_bm25_method_iface_init (AnotMethodInterface *iface);

G_DEFINE_DYNAMIC_TYPE_EXTENDED (AnotMethodBm25, anot_method_bm25, G_TYPE_OBJECT,
                                G_TYPE_FLAG_FINAL,
                                G_IMPLEMENT_INTERFACE_DYNAMIC (ANOT_TYPE_METHOD,
                                                               anot_method_bm25_method_iface_init))

/* Function words, and what contractions leave behind ("it's" gives "it"
 * and "s").  Negations such as "no" and "not" are kept because requests use
 * them ("no TV"). */
static const char * const stopwords[] = {
  "a", "about", "above", "after", "again", "against", "all", "am", "an",
  "and", "any", "are", "as", "at", "be", "because", "been", "before",
  "being", "below", "between", "both", "but", "by", "can", "could", "d",
  "did", "do", "does", "doing", "down", "during", "each", "few", "for",
  "from", "further", "had", "has", "have", "having", "he", "her", "here",
  "hers", "herself", "him", "himself", "his", "how", "i", "if", "in",
  "into", "is", "it", "its", "itself", "just", "ll", "m", "me", "more",
  "most", "my", "myself", "now", "of", "off", "on", "once", "only", "or",
  "other", "our", "ours", "ourselves", "out", "over", "own", "re", "s",
  "same", "she", "should", "so", "some", "such", "t", "than", "that", "the",
  "their", "theirs", "them", "themselves", "then", "there", "these", "they",
  "this", "those", "through", "to", "too", "under", "until", "up", "ve",
  "very", "was", "we", "were", "what", "when", "where", "which", "while",
  "who", "whom", "why", "will", "with", "would", "you", "your", "yours",
  "yourself", "yourselves",
};

/* Built for each ranking: a module-wide table would be left behind when
 * GIO unloads the module. */
static GHashTable *
stopword_set_new (void)
{
  GHashTable *set = g_hash_table_new (g_str_hash, g_str_equal);

  for (guint i = 0; i < G_N_ELEMENTS (stopwords); i++)
    g_hash_table_add (set, (gpointer) stopwords[i]);
  return set;
}

typedef void (*TokenFunc) (const char *token,
                           gpointer    user_data);

/* Lowercases, splits on every character that is not a Unicode letter or
 * digit, drops stopwords.  No stemming. */
static void
tokenize (const char *text,
          GHashTable *stopword_set,
          TokenFunc   func,
          gpointer    user_data)
{
  g_autoptr(GString) token = g_string_new (NULL);
  const char *p = text;
  const char *end = text + strlen (text);

  while (p <= end)
    {
      gunichar c = 0;
      gboolean word_char = FALSE;

      if (p < end && (guchar) *p < 0x80)
        {
          /* ASCII, nearly all of the text: no decoding needed. */
          c = *p >= 'A' && *p <= 'Z' ? *p - 'A' + 'a' : *p;
          word_char = g_ascii_isalnum (*p);
          p++;
          if (word_char)
            {
              g_string_append_c (token, c);
              continue;
            }
        }
      else if (p < end)
        {
          c = g_utf8_get_char_validated (p, end - p);
          if (c == (gunichar) -1 || c == (gunichar) -2)
            {
              /* Invalid UTF-8: the byte separates tokens. */
              c = 0;
              p++;
            }
          else
            {
              word_char = g_unichar_isalnum (c);
              p = g_utf8_next_char (p);
            }
        }
      else
        {
          p++;
        }

      if (word_char)
        {
          g_string_append_unichar (token, g_unichar_tolower (c));
        }
      else if (token->len > 0)
        {
          if (!g_hash_table_contains (stopword_set, token->str))
            func (token->str, user_data);
          g_string_truncate (token, 0);
        }
    }
}

/* Yelp's attribute strings are Python reprs: "u'free'", "'no'", "True",
 * "None", "{'garage': False, 'street': True}".  Returns the readable value,
 * or NULL when there is nothing to say ("None", a dict with no true key). */
static char *
strip_python_quotes (const char *value)
{
  gsize len = strlen (value);

  if (len >= 3 && value[0] == 'u' && value[1] == '\'' && value[len - 1] == '\'')
    return g_strndup (value + 2, len - 3);
  if (len >= 2 && (value[0] == '\'' || value[0] == '"') && value[len - 1] == value[0])
    return g_strndup (value + 1, len - 2);
  return g_strdup (value);
}

static char *
readable_attribute_value (const char *raw)
{
  g_autofree char *value = g_strstrip (g_strdup (raw));
  gsize len = strlen (value);

  if (len == 0 || g_str_equal (value, "None"))
    return NULL;

  if (value[0] == '{' && value[len - 1] == '}')
    {
      g_autoptr(GString) keys = g_string_new (NULL);
      g_auto(GStrv) pairs = NULL;

      value[len - 1] = '\0';
      pairs = g_strsplit (value + 1, ",", -1);
      for (guint i = 0; pairs[i] != NULL; i++)
        {
          char *colon = strchr (pairs[i], ':');
          g_autofree char *key = NULL;

          if (colon == NULL)
            continue;
          *colon = '\0';
          if (!g_str_equal (g_strstrip (colon + 1), "True"))
            continue;
          key = strip_python_quotes (g_strstrip (pairs[i]));
          if (keys->len > 0)
            g_string_append_c (keys, ' ');
          g_string_append (keys, key);
        }
      return keys->len > 0 ? g_string_free (g_steal_pointer (&keys), FALSE) : NULL;
    }

  return strip_python_quotes (value);
}

/* name + categories + "Key value" for each attribute + every review. */
static char *
item_document (AnotItem *item)
{
  GString *doc = g_string_new (NULL);
  const char * const *categories;
  JsonObject *attributes;
  GPtrArray *reviews;

  if (anot_item_get_name (item) != NULL)
    g_string_append (doc, anot_item_get_name (item));

  categories = anot_item_get_categories (item);
  for (guint i = 0; categories != NULL && categories[i] != NULL; i++)
    g_string_append_printf (doc, "\n%s", categories[i]);

  attributes = anot_item_get_attributes (item);
  if (attributes != NULL)
    {
      JsonObjectIter iter;
      const char *key;
      JsonNode *node;

      json_object_iter_init (&iter, attributes);
      while (json_object_iter_next (&iter, &key, &node))
        {
          g_autofree char *value = NULL;

          if (JSON_NODE_HOLDS_VALUE (node) && json_node_get_value_type (node) == G_TYPE_STRING)
            value = readable_attribute_value (json_node_get_string (node));
          if (value != NULL)
            g_string_append_printf (doc, "\n%s %s", key, value);
        }
    }

  reviews = anot_item_get_reviews (item);
  for (guint i = 0; reviews != NULL && i < reviews->len; i++)
    {
      const char *text = anot_review_get_text (g_ptr_array_index (reviews, i));

      if (text != NULL)
        g_string_append_printf (doc, "\n%s", text);
    }

  return g_string_free (doc, FALSE);
}

typedef struct
{
  char *query;
  GPtrArray *documents; /* char *, one per candidate position */
  double k1;
  double b;
  guint n_top;
} Bm25Job;

static void
bm25_job_free (gpointer data)
{
  Bm25Job *job = data;

  g_free (job->query);
  g_ptr_array_unref (job->documents);
  g_free (job);
}

typedef struct
{
  GHashTable *term_index; /* unique query term → position in terms */
  GPtrArray *terms;       /* char *, unique query terms, first-seen order */
  GArray *qtf;            /* guint per term */
} Query;

static void
add_query_token (const char *token,
                 gpointer    user_data)
{
  Query *query = user_data;
  gpointer position;

  if (g_hash_table_lookup_extended (query->term_index, token, NULL, &position))
    {
      g_array_index (query->qtf, guint, GPOINTER_TO_UINT (position))++;
    }
  else
    {
      guint one = 1;
      char *term = g_strdup (token);

      g_hash_table_insert (query->term_index, term, GUINT_TO_POINTER (query->terms->len));
      g_ptr_array_add (query->terms, term);
      g_array_append_val (query->qtf, one);
    }
}

typedef struct
{
  Query *query;
  guint *tf;     /* per query term */
  guint length;  /* tokens in the document */
} DocCount;

static void
add_document_token (const char *token,
                    gpointer    user_data)
{
  DocCount *count = user_data;
  gpointer position;

  count->length++;
  if (g_hash_table_lookup_extended (count->query->term_index, token, NULL, &position))
    count->tf[GPOINTER_TO_UINT (position)]++;
}

static void
bm25_thread (GTask        *task,
             gpointer      source_object,
             gpointer      task_data,
             GCancellable *cancellable)
{
  Bm25Job *job = task_data;
  guint n = job->documents->len;
  g_autoptr(GHashTable) term_index = NULL;
  g_autoptr(GPtrArray) terms = NULL;
  g_autoptr(GArray) qtf = NULL;
  g_autofree guint *tf = NULL;     /* n × n_terms, row per document */
  g_autofree guint *lengths = NULL;
  g_autofree guint *df = NULL;
  g_autofree double *idf = NULL;
  g_autofree double *scores = NULL;
  g_autoptr(AnotRanking) ranking = NULL;
  g_autoptr(JsonBuilder) builder = NULL;
  g_autoptr(GHashTable) stopword_set = stopword_set_new ();
  Query query;
  guint n_terms;
  double total_length = 0, avgdl;

  term_index = g_hash_table_new (g_str_hash, g_str_equal);
  terms = g_ptr_array_new_with_free_func (g_free);
  qtf = g_array_new (FALSE, FALSE, sizeof (guint));
  query = (Query) { term_index, terms, qtf };
  tokenize (job->query, stopword_set, add_query_token, &query);
  n_terms = terms->len;

  tf = g_new0 (guint, (gsize) n * MAX (n_terms, 1));
  lengths = g_new0 (guint, MAX (n, 1));
  for (guint d = 0; d < n; d++)
    {
      DocCount count = { &query, tf + (gsize) d * n_terms, 0 };

      if (g_task_return_error_if_cancelled (task))
        return;
      tokenize (g_ptr_array_index (job->documents, d), stopword_set, add_document_token, &count);
      lengths[d] = count.length;
      total_length += count.length;
    }
  avgdl = n > 0 ? total_length / n : 0;

  df = g_new0 (guint, MAX (n_terms, 1));
  idf = g_new0 (double, MAX (n_terms, 1));
  for (guint t = 0; t < n_terms; t++)
    {
      for (guint d = 0; d < n; d++)
        if (tf[(gsize) d * n_terms + t] > 0)
          df[t]++;
      /* BM25+-style idf: never negative, so a term in most documents still
       * counts a little instead of penalising the documents that have it. */
      idf[t] = log (1.0 + (n - df[t] + 0.5) / (df[t] + 0.5));
    }

  scores = g_new0 (double, MAX (n, 1));
  for (guint d = 0; d < n; d++)
    {
      double norm = avgdl > 0 ? lengths[d] / avgdl : 0;

      for (guint t = 0; t < n_terms; t++)
        {
          double f = tf[(gsize) d * n_terms + t];

          if (f > 0)
            scores[d] += g_array_index (qtf, guint, t) * idf[t] * f * (job->k1 + 1) /
                         (f + job->k1 * (1 - job->b + job->b * norm));
        }
    }

  ranking = anot_ranking_new_from_scores (scores, n);

  builder = json_builder_new ();
  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "method");
  json_builder_add_string_value (builder, "bm25");
  json_builder_set_member_name (builder, "k1");
  json_builder_add_double_value (builder, job->k1);
  json_builder_set_member_name (builder, "b");
  json_builder_add_double_value (builder, job->b);
  json_builder_set_member_name (builder, "n_candidates");
  json_builder_add_int_value (builder, n);
  json_builder_set_member_name (builder, "avgdl");
  json_builder_add_double_value (builder, avgdl);
  json_builder_set_member_name (builder, "query_terms");
  json_builder_begin_array (builder);
  for (guint t = 0; t < n_terms; t++)
    {
      json_builder_begin_object (builder);
      json_builder_set_member_name (builder, "term");
      json_builder_add_string_value (builder, g_ptr_array_index (terms, t));
      json_builder_set_member_name (builder, "qtf");
      json_builder_add_int_value (builder, g_array_index (qtf, guint, t));
      json_builder_set_member_name (builder, "df");
      json_builder_add_int_value (builder, df[t]);
      json_builder_set_member_name (builder, "idf");
      json_builder_add_double_value (builder, idf[t]);
      json_builder_end_object (builder);
    }
  json_builder_end_array (builder);
  json_builder_set_member_name (builder, "top");
  json_builder_begin_array (builder);
  for (guint r = 0; r < MIN (job->n_top, anot_ranking_get_length (ranking)); r++)
    {
      guint d = anot_ranking_get_index (ranking, r);

      json_builder_begin_object (builder);
      json_builder_set_member_name (builder, "position");
      json_builder_add_int_value (builder, d);
      json_builder_set_member_name (builder, "score");
      json_builder_add_double_value (builder, scores[d]);
      json_builder_set_member_name (builder, "length");
      json_builder_add_int_value (builder, lengths[d]);
      json_builder_set_member_name (builder, "matched");
      json_builder_begin_object (builder);
      for (guint t = 0; t < n_terms; t++)
        if (tf[(gsize) d * n_terms + t] > 0)
          {
            json_builder_set_member_name (builder, g_ptr_array_index (terms, t));
            json_builder_add_int_value (builder, tf[(gsize) d * n_terms + t]);
          }
      json_builder_end_object (builder);
      json_builder_end_object (builder);
    }
  json_builder_end_array (builder);
  json_builder_end_object (builder);

  {
    g_autoptr(JsonNode) trace = json_builder_get_root (builder);

    anot_ranking_set_trace (ranking, trace);
  }

  g_task_return_pointer (task, g_steal_pointer (&ranking), g_object_unref);
}

static void
anot_method_bm25_rank_async (AnotMethod          *method,
                             AnotQuery           *request,
                             GPtrArray           *candidates,
                             guint                k,
                             AnotMethodContext   *context,
                             GCancellable        *cancellable,
                             GAsyncReadyCallback  callback,
                             gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(AnotMethodSettings) settings = anot_method_settings_new ("bm25");
  Bm25Job *job;
  double k1, b;

  task = g_task_new (method, cancellable, callback, user_data);
  g_task_set_source_tag (task, anot_method_bm25_rank_async);
  g_task_set_name (task, "[anot] bm25 rank");

  if (!anot_method_settings_load_for_context (settings, context, &error) ||
      !anot_method_settings_get_double (settings, context, "k1", DEFAULT_K1, 0, G_MAXDOUBLE, &k1,
                                        &error) ||
      !anot_method_settings_get_double (settings, context, "b", DEFAULT_B, 0, 1, &b, &error))
    {
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }

  if (g_task_return_error_if_cancelled (task))
    return;

  /* Items are read here, on the caller's thread; the thread only sees
   * plain strings. */
  job = g_new0 (Bm25Job, 1);
  job->query = g_strdup (anot_query_get_text (request) ? anot_query_get_text (request) : "");
  job->documents = g_ptr_array_new_full (candidates->len, g_free);
  job->k1 = k1;
  job->b = b;
  job->n_top = k > 0 ? k : TRACE_TOP_DEFAULT;
  for (guint i = 0; i < candidates->len; i++)
    g_ptr_array_add (job->documents, item_document (g_ptr_array_index (candidates, i)));
  g_task_set_task_data (task, job, bm25_job_free);

  g_task_run_in_thread (task, bm25_thread);
}

static AnotRanking *
anot_method_bm25_rank_finish (AnotMethod    *method,
                              GAsyncResult  *result,
                              GError       **error)
{
  g_return_val_if_fail (g_task_is_valid (result, method), NULL);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == anot_method_bm25_rank_async, NULL);

  return g_task_propagate_pointer (G_TASK (result), error);
}

static void
anot_method_bm25_method_iface_init (AnotMethodInterface *iface)
{
  iface->rank_async = anot_method_bm25_rank_async;
  iface->rank_finish = anot_method_bm25_rank_finish;
}

static void
anot_method_bm25_class_init (AnotMethodBm25Class *klass)
{
}

static void
anot_method_bm25_class_finalize (AnotMethodBm25Class *klass)
{
}

static void
anot_method_bm25_init (AnotMethodBm25 *self)
{
}

G_MODULE_EXPORT void
g_io_module_load (GIOModule *module)
{
  anot_method_bm25_register_type (G_TYPE_MODULE (module));
  anot_plugin_implement (ANOT_METHOD_EXTENSION_POINT_NAME,
                         ANOT_TYPE_METHOD_BM25, "bm25",
                         "Okapi BM25 (k1=1.5, b=0.75) of the request against each item's name, "
                         "categories, attributes and reviews; the non-LLM baseline");
  anot_plugin_declare_method_options ("bm25",
                                      anot_method_option_new_double ("k1", 0, G_MAXDOUBLE, DEFAULT_K1, "term-frequency saturation"),
                                      anot_method_option_new_double ("b", 0, 1, DEFAULT_B, "document-length normalisation (0: none, 1: full)"),
                                      NULL);
  /* It calls no LLM: a run needs no API key. */
  anot_plugin_declare_method_roles ("bm25", NULL);
}

G_MODULE_EXPORT void
g_io_module_unload (GIOModule *module)
{
}

G_MODULE_EXPORT char **
g_io_module_query (void)
{
  return g_strsplit (ANOT_METHOD_EXTENSION_POINT_NAME, "!", -1);
}
