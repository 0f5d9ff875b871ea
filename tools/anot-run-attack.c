/* anot-run-attack.c: `anot-run attack`, show what an attack does to a request
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "anot-run.h"

#include <string.h>

typedef struct
{
  char *attack;
  char *request;
  char *data;
  char *candidates;
  char *pool;
  char *shuffle;
  char *seed;
  char *run;
  char **attack_options;
  char *attack_restaurants;
  char *attack_reviews;
  char *attack_target_len;
  char *attack_compat;
  char *compat;
  gboolean dump;
  gboolean json;
} AttackOptions;

/* --attack-compat: checked even for an attack that adds no review, so a
 * typo in the mode is not silently ignored. */
static gboolean
anot_run_set_attack_compat (AnotAttack  *attack,
                            const char  *mode,
                            GError     **error)
{
  AnotAttackCompat compat;

  if (mode == NULL)
    return TRUE;
  if (!anot_attack_compat_from_string (mode, &compat))
    {
      g_set_error (error, ANOT_ERROR, ANOT_ERROR_INVALID_ARGUMENT,
                   "Invalid value “%s” for --attack-compat: expected realistic or original", mode);
      return FALSE;
    }
  if (ANOT_IS_ITEM_ATTACK (attack))
    anot_item_attack_set_compat (ANOT_ITEM_ATTACK (attack), compat);
  return TRUE;
}

static void
attack_options_clear (AttackOptions *o)
{
  g_free (o->attack);
  g_free (o->request);
  g_free (o->data);
  g_free (o->candidates);
  g_free (o->pool);
  g_free (o->shuffle);
  g_free (o->seed);
  g_free (o->run);
  g_strfreev (o->attack_options);
  g_free (o->attack_restaurants);
  g_free (o->attack_reviews);
  g_free (o->attack_target_len);
  g_free (o->attack_compat);
  g_free (o->compat);
}

static gboolean
parse_number (const char  *name,
              const char  *text,
              guint64      min,
              guint64      max,
              guint64      fallback,
              guint64     *out,
              GError     **error)
{
  if (text == NULL)
    {
      *out = fallback;
      return TRUE;
    }
  if (!g_ascii_string_to_unsigned (text, 10, min, max, out, NULL))
    {
      g_set_error (error, ANOT_ERROR, ANOT_ERROR_INVALID_ARGUMENT,
                   "invalid value “%s” for --%s", text, name);
      return FALSE;
    }
  return TRUE;
}

static gboolean
parse_enum_nick (GType        type,
                 const char  *name,
                 const char  *text,
                 int          fallback,
                 int         *out,
                 GError     **error)
{
  g_autoptr(GEnumClass) klass = NULL;
  GEnumValue *value;

  if (text == NULL)
    {
      *out = fallback;
      return TRUE;
    }
  klass = g_type_class_ref (type);
  value = g_enum_get_value_by_nick (klass, text);
  if (value == NULL)
    {
      g_set_error (error, ANOT_ERROR, ANOT_ERROR_INVALID_ARGUMENT,
                   "invalid value “%s” for --%s", text, name);
      return FALSE;
    }
  *out = value->value;
  return TRUE;
}

static void
print_indented (const char *text)
{
  g_auto(GStrv) lines = g_strsplit (text, "\n", -1);

  for (guint i = 0; lines[i] != NULL; i++)
    g_print ("        %s\n", lines[i]);
}

/* The text view of anot_attack_describe(): what the method sees, with the
 * changed and added reviews marked. */
static void
print_description (JsonArray *items,
                   gboolean   dump)
{
  for (guint i = 0; i < json_array_get_length (items); i++)
    {
      JsonObject *item = json_array_get_object_element (items, i);
      JsonArray *reviews = json_object_get_array_member (item, "reviews");
      JsonArray *removed = json_object_get_array_member (item, "removed");
      guint n_changed = 0, n_added = 0;

      for (guint r = 0; r < json_array_get_length (reviews); r++)
        {
          const char *status = json_object_get_string_member (json_array_get_object_element (reviews, r),
                                                              "status");

          n_changed += strcmp (status, "changed") == 0;
          n_added += strcmp (status, "added") == 0;
        }

      g_print ("\n[%u] %s (%s)%s — ", (guint) json_object_get_int_member (item, "position") + 1,
               json_object_get_string_member (item, "name"),
               json_object_get_string_member (item, "item_id"),
               json_object_get_boolean_member (item, "gold") ? " GOLD" : "");
      if (!json_object_get_boolean_member (item, "attacked"))
        g_print ("not attacked, %u reviews\n", json_array_get_length (reviews));
      else
        g_print ("attacked: %u changed, %u added, %u removed of %u reviews\n", n_changed,
                 n_added, json_array_get_length (removed), json_array_get_length (reviews));

      for (guint r = 0; r < json_array_get_length (reviews); r++)
        {
          JsonObject *review = json_array_get_object_element (reviews, r);
          const char *status = json_object_get_string_member (review, "status");
          gboolean touched = strcmp (status, "unchanged") != 0;

          if (!dump && !touched)
            continue;
          g_print ("    review %u [%s] %.1f stars%s\n",
                   (guint) json_object_get_int_member (review, "position"),
                   json_object_get_string_member (review, "review_id"),
                   json_object_get_double_member (review, "stars"),
                   strcmp (status, "changed") == 0 ? "  CHANGED" :
                   strcmp (status, "added") == 0 ? "  ADDED" : "");
          print_indented (json_object_get_string_member (review, "text"));
          if (strcmp (status, "changed") == 0)
            {
              g_print ("      was:\n");
              print_indented (json_object_get_string_member (review, "clean_text"));
            }
        }
      for (guint r = 0; r < json_array_get_length (removed); r++)
        g_print ("    REMOVED [%s]\n",
                 json_object_get_string_member (json_array_get_object_element (removed, r),
                                                "review_id"));
    }
}

/* The shared options (--attack-items, --attack-reviews,
 * --attack-target-len) go to the attack when it takes them and are left
 * out, said, when it does not: as a run of several attacks (`--attack
 * all`) gives each the ones it takes, so the command line of such a run
 * shows any of its attacks.  --attack-option stays strict. */
static gboolean
set_parameter (AnotAttack  *attack,
               const char  *attack_name,
               const char  *name,
               const char  *option,
               const char  *value,
               GError     **error)
{
  if (value == NULL)
    return TRUE;
  if (!anot_attack_has_parameter (attack, name))
    {
      g_printerr ("anot-run attack: %s takes no %s; --%s is left out, as a run of several "
                  "attacks leaves it out for this one\n",
                  attack_name, name, option);
      return TRUE;
    }
  return anot_attack_set_parameter (attack, name, value, error);
}

/* Shows the candidates of one request the way an experiment with the same
 * options hands them to the method under an attack: same pool, same
 * shuffle, same attack seed. */
int
anot_run_cmd_attack (int    argc,
                     char **argv)
{
  AttackOptions o = { 0 };
  g_autoptr(GOptionContext) context = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(AnotDataset) dataset = NULL;
  g_autoptr(AnotAttack) attack = NULL;
  g_autoptr(AnotTrial) trial = NULL;
  g_autoptr(JsonNode) description = NULL;
  g_autofree char *default_data = anot_run_default_data_dir ();
  AnotRequest *request;
  guint64 n, seed, run, run_seed, attack_seed;
  int pool_mode, shuffle, compat;
  int status = ANOT_RUN_EXIT_OK;
  const GOptionEntry entries[] = {
    { "attack", 'a', 0, G_OPTION_ARG_STRING, &o.attack,
      "The attack (see anot-run --list); required", "NAME" },
    { "request", 0, 0, G_OPTION_ARG_STRING, &o.request,
      "The request, e.g. R01; required", "ID" },
    { "data", 'd', 0, G_OPTION_ARG_FILENAME, &o.data,
      "Benchmark directory (default: the demo benchmark)", "DIR" },
    { "candidates", 'n', 0, G_OPTION_ARG_STRING, &o.candidates,
      "Candidate pool size N (default 10)", "N" },
    { "pool", 0, 0, G_OPTION_ARG_STRING, &o.pool,
      "Pool selection: sampled (default) or original", "MODE" },
    { "shuffle", 0, 0, G_OPTION_ARG_STRING, &o.shuffle,
      "Candidate order: none, middle or random (default)", "MODE" },
    { "seed", 0, 0, G_OPTION_ARG_STRING, &o.seed,
      "Base seed of the experiment (default 42)", "SEED" },
    { "run", 0, 0, G_OPTION_ARG_STRING, &o.run,
      "Which run (default 1): run R uses seed+R", "R" },
    { "attack-option", 'A', 0, G_OPTION_ARG_STRING_ARRAY, &o.attack_options,
      "Attack parameter (repeatable)", "KEY=VALUE" },
    { "attack-items", 0, 0, G_OPTION_ARG_STRING, &o.attack_restaurants,
      "Non-gold candidates each attack touches per request (default: all)", "R" },
    { "attack-restaurants", 0, 0, G_OPTION_ARG_STRING, &o.attack_restaurants,
      "--attack-items under its original name", "R" },
    { "attack-reviews", 0, 0, G_OPTION_ARG_STRING, &o.attack_reviews,
      "Reviews per attacked item for injection and heterogeneity (default 1)", "M" },
    { "attack-target-len", 0, 0, G_OPTION_ARG_STRING, &o.attack_target_len,
      "Target length of heterogeneity", "L" },
    { "attack-compat", 0, 0, G_OPTION_ARG_STRING, &o.attack_compat,
      "Form of added reviews: realistic (default, like the dataset's) or original "
      "(the original's labelled fake_001, 2024-01-01, no user)", "MODE" },
    { "compat", 0, 0, G_OPTION_ARG_STRING, &o.compat,
      "none (default) or original: the candidates of a run with --compat original "
      "(--pool original, --attack-compat original)", "MODE" },
    { "dump", 0, 0, G_OPTION_ARG_NONE, &o.dump,
      "Print every review of every candidate, not only the attacked ones", NULL },
    { "json", 0, 0, G_OPTION_ARG_NONE, &o.json,
      "Print the description as JSON (see anot_attack_describe())", NULL },
    G_OPTION_ENTRY_NULL
  };

  context = g_option_context_new ("— show what an attack does to one request");
  g_option_context_add_main_entries (context, entries, NULL);
  anot_run_add_plugin_option (context);
  g_option_context_set_summary (context,
    "Builds the candidates of one request exactly as `anot-run --attack NAME` does\n"
    "(same pool, shuffle and attack seed for the same --data, --candidates, --pool,\n"
    "--shuffle, --seed and --run) and prints what the method sees under the attack:\n"
    "every candidate in the order shown, which reviews were changed or added, and\n"
    "the clean text of the changed ones.  The dataset is not modified.");

  if (!g_option_context_parse (context, &argc, &argv, &error))
    {
      status = anot_run_usage_error ("attack", "%s", error->message);
      goto out;
    }
  if (argc > 1)
    {
      status = anot_run_usage_error ("attack", "unexpected argument “%s”", argv[1]);
      goto out;
    }
  if (o.attack == NULL || o.request == NULL)
    {
      status = anot_run_usage_error ("attack", "--attack and --request are required");
      goto out;
    }

  if (!parse_number ("candidates", o.candidates, 1, G_MAXUINT, 10, &n, &error) ||
      !parse_number ("seed", o.seed, 0, G_MAXUINT64, 42, &seed, &error) ||
      !parse_number ("run", o.run, 1, 1000, 1, &run, &error) ||
      !parse_enum_nick (ANOT_TYPE_POOL_MODE, "pool", o.pool, ANOT_POOL_MODE_SAMPLED,
                        &pool_mode, &error) ||
      !parse_enum_nick (ANOT_TYPE_SHUFFLE_MODE, "shuffle", o.shuffle, ANOT_SHUFFLE_MODE_RANDOM,
                        &shuffle, &error) ||
      !parse_enum_nick (ANOT_TYPE_COMPAT_MODE, "compat", o.compat, ANOT_COMPAT_MODE_NONE,
                        &compat, &error))
    {
      status = anot_run_usage_error ("attack", "%s", error->message);
      goto out;
    }
  /* What `anot-run --compat original` implies, refused against a setting
   * that contradicts it, as the run refuses it. */
  if (compat == ANOT_COMPAT_MODE_ORIGINAL)
    {
      if (o.pool != NULL && pool_mode != ANOT_POOL_MODE_ORIGINAL)
        {
          status = anot_run_usage_error ("attack", "compat original uses pool original; pool %s contradicts it",
                                         o.pool);
          goto out;
        }
      if (o.attack_compat != NULL && g_strcmp0 (o.attack_compat, "original") != 0)
        {
          status = anot_run_usage_error ("attack",
                                         "compat original uses attack-compat original; attack-compat %s "
                                         "contradicts it", o.attack_compat);
          goto out;
        }
      pool_mode = ANOT_POOL_MODE_ORIGINAL;
      g_free (o.attack_compat);
      o.attack_compat = g_strdup ("original");
    }

  attack = anot_registry_create_attack (anot_registry_get_default (), o.attack, &error);
  if (attack == NULL ||
      !set_parameter (attack, o.attack, "restaurants", "attack-items", o.attack_restaurants, &error) ||
      !set_parameter (attack, o.attack, "reviews", "attack-reviews", o.attack_reviews, &error) ||
      !set_parameter (attack, o.attack, "target-len", "attack-target-len", o.attack_target_len, &error) ||
      !anot_run_set_attack_compat (attack, o.attack_compat, &error))
    {
      status = anot_run_usage_error ("attack", "%s", error->message);
      goto out;
    }
  for (guint i = 0; o.attack_options != NULL && o.attack_options[i] != NULL; i++)
    {
      const char *eq = strchr (o.attack_options[i], '=');
      g_autofree char *key = NULL;

      if (eq == NULL || eq == o.attack_options[i])
        {
          status = anot_run_usage_error ("attack", "invalid --attack-option “%s”: expected KEY=VALUE",
                                       o.attack_options[i]);
          goto out;
        }
      key = g_strndup (o.attack_options[i], eq - o.attack_options[i]);
      if (!anot_attack_set_parameter (attack, key, eq + 1, &error))
        {
          status = anot_run_usage_error ("attack", "%s", error->message);
          goto out;
        }
    }
  if (ANOT_IS_ITEM_ATTACK (attack) && !anot_item_attack_check (ANOT_ITEM_ATTACK (attack), &error))
    {
      status = anot_run_usage_error ("attack", "%s", error->message);
      goto out;
    }

  dataset = anot_dataset_load (o.data ? o.data : default_data, NULL, &error);
  if (dataset == NULL)
    {
      g_printerr ("anot-run attack: cannot load the benchmark %s: %s\n",
                  o.data ? o.data : default_data, error->message);
      status = ANOT_RUN_EXIT_FAILED;
      goto out;
    }
  request = anot_dataset_lookup_request (dataset, o.request);
  if (request == NULL)
    {
      status = anot_run_usage_error ("attack", "unknown request “%s”", o.request);
      goto out;
    }

  trial = anot_trial_new (dataset, request, (guint) n, pool_mode, shuffle, seed, (guint) run,
                          attack, o.attack, &error);
  if (trial == NULL)
    {
      /* The pool's errors are the options' fault; the attack's are not. */
      if (g_error_matches (error, ANOT_ERROR, ANOT_ERROR_INVALID_ARGUMENT) ||
          g_error_matches (error, ANOT_ERROR, ANOT_ERROR_GOLD_NOT_IN_POOL))
        status = anot_run_usage_error ("attack", "%s", error->message);
      else
        {
          g_printerr ("anot-run attack: %s\n", error->message);
          status = ANOT_RUN_EXIT_FAILED;
        }
      goto out;
    }
  run_seed = anot_trial_get_run_seed (trial);
  attack_seed = anot_trial_get_attack_seed (trial);
  description = anot_attack_describe (anot_pool_get_shuffled (anot_trial_get_pool (trial)),
                                      anot_trial_get_candidates (trial), request);

  if (o.json)
    {
      g_autoptr(JsonGenerator) generator = json_generator_new ();
      g_autoptr(JsonBuilder) builder = json_builder_new ();
      g_autoptr(JsonNode) root = NULL;
      g_autofree char *text = NULL;
      g_autofree char *seed_text = g_strdup_printf ("%" G_GUINT64_FORMAT, attack_seed);
      g_autoptr(JsonObject) parameters = anot_attack_get_parameters (attack);
      JsonNode *parameters_node = json_node_new (JSON_NODE_OBJECT);

      json_node_set_object (parameters_node, parameters);
      json_builder_begin_object (builder);
      json_builder_set_member_name (builder, "attack");
      json_builder_add_string_value (builder, o.attack);
      json_builder_set_member_name (builder, "parameters");
      json_builder_add_value (builder, parameters_node);
      json_builder_set_member_name (builder, "request_id");
      json_builder_add_string_value (builder, o.request);
      json_builder_set_member_name (builder, "candidates");
      json_builder_add_int_value (builder, (gint64) n);
      json_builder_set_member_name (builder, "run_seed");
      json_builder_add_int_value (builder, (gint64) run_seed);
      /* A string: JSON integers are signed 64-bit, seeds are not. */
      json_builder_set_member_name (builder, "attack_seed");
      json_builder_add_string_value (builder, seed_text);
      json_builder_set_member_name (builder, "items");
      json_builder_add_value (builder, json_node_copy (description));
      json_builder_end_object (builder);

      root = json_builder_get_root (builder);
      json_generator_set_root (generator, root);
      json_generator_set_pretty (generator, TRUE);
      text = json_generator_to_data (generator, NULL);
      g_print ("%s\n", text);
    }
  else
    {
      g_print ("Attack %s on request %s of %s (N=%u, run %u, run seed %" G_GUINT64_FORMAT
               ", attack seed %" G_GUINT64_FORMAT "%s%s)\n",
               o.attack, o.request, anot_dataset_get_name (dataset), (guint) n, (guint) run,
               run_seed, attack_seed,
               ANOT_IS_ITEM_ATTACK (attack) ? ", added reviews " : "",
               ANOT_IS_ITEM_ATTACK (attack)
               ? anot_attack_compat_to_string (anot_item_attack_get_compat (ANOT_ITEM_ATTACK (attack)))
               : "");
      g_print ("Request: %s\n", anot_request_get_text (request));
      g_print ("Candidates in the order the method sees them%s:\n",
               o.dump ? "" : " (unchanged reviews hidden; --dump shows them)");
      print_description (json_node_get_array (description), o.dump);
    }

out:
  attack_options_clear (&o);
  return status;
}
