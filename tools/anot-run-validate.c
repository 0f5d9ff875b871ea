/* anot-run-validate.c: `anot-run validate`, checking a benchmark's gold labels
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "anot-run.h"

#include <string.h>

static const char *
truth_label (AnotTruth truth)
{
  switch (truth)
    {
    case ANOT_TRUTH_TRUE:
      return "1";
    case ANOT_TRUTH_FALSE:
      return "-1";
    case ANOT_TRUTH_UNKNOWN:
    default:
      return "0";
    }
}

/* Why the gold item is not (the only) match: its own verdict, leaf by leaf,
 * and the other items that match. */
static void
print_diagnosis (AnotValidator *validator,
                 AnotRequest   *request,
                 AnotItem      *gold_item,
                 GPtrArray     *matches)
{
  if (gold_item == NULL)
    g_print ("      gold item “%s” is not in the dataset\n",
             anot_request_get_gold_item_id (request));
  else
    {
      g_autoptr(AnotVerdict) verdict = anot_validator_explain (validator, request, gold_item);
      AnotTruth truth = anot_verdict_get_truth (verdict);

      g_print ("      gold #%u %s evaluates to %s",
               anot_item_get_index (gold_item), anot_item_get_name (gold_item),
               truth_label (truth));
      if (truth != ANOT_TRUTH_TRUE)
        {
          const char *sep = ": ";

          for (guint i = 0; i < anot_verdict_get_n_leaves (verdict); i++)
            {
              AnotTruth leaf = anot_verdict_get_leaf_truth (verdict, i);

              if (leaf == ANOT_TRUTH_TRUE)
                continue;
              g_print ("%s%s=%s", sep,
                       anot_condition_get_aspect (anot_verdict_get_leaf (verdict, i)),
                       truth_label (leaf));
              sep = ", ";
            }
        }
      g_print ("\n");
    }

  for (guint i = 0; i < matches->len; i++)
    {
      AnotItem *item = g_ptr_array_index (matches, i);

      if (item == gold_item)
        continue;
      g_print ("      also matches #%u %s (%s)\n",
               anot_item_get_index (item), anot_item_get_name (item), anot_item_get_id (item));
    }
}

/* Keeps only the selected requests in a truth matrix. */
static void
filter_matrix (JsonNode  *matrix,
               GPtrArray *selected)
{
  JsonObject *requests = json_object_get_object_member (json_node_get_object (matrix), "requests");
  g_autoptr(GList) names = json_object_get_members (requests);
  g_autoptr(GHashTable) keep = g_hash_table_new (g_str_hash, g_str_equal);

  for (guint i = 0; i < selected->len; i++)
    g_hash_table_add (keep, (gpointer) anot_request_get_id (g_ptr_array_index (selected, i)));

  for (GList *l = names; l != NULL; l = l->next)
    if (!g_hash_table_contains (keep, l->data))
      json_object_remove_member (requests, l->data);
}

/* Evaluates every request (or the --request ones) on every item and checks
 * that exactly the gold item satisfies it.  Exit codes: 0 when every gold
 * label is confirmed, 1 when one is not or the dataset cannot be loaded,
 * 2 on usage errors. */
int
anot_run_cmd_validate (int    argc,
                       char **argv)
{
  g_autoptr(GOptionContext) context = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(AnotDataset) dataset = NULL;
  g_autoptr(AnotValidator) validator = NULL;
  g_autoptr(GPtrArray) selected = g_ptr_array_new ();
  g_autoptr(GArray) statuses = NULL;
  g_autoptr(GArray) all_n_matches = NULL;
  g_autofree char *data = NULL;
  g_autofree char *request_list = NULL;
  gboolean json = FALSE;
  gboolean write_groundtruth = FALSE;
  gboolean strict = FALSE;
  guint n_ok = 0;
  const GOptionEntry entries[] = {
    { "data", 'd', 0, G_OPTION_ARG_FILENAME, &data,
      "Benchmark directory (default: the demo benchmark)", "DIR" },
    { "json", 0, 0, G_OPTION_ARG_NONE, &json,
      "Print the truth matrix (every request on every item, leaf by leaf) as JSON", NULL },
    { "request", 'r', 0, G_OPTION_ARG_STRING, &request_list,
      "Only these requests (comma-separated ids)", "R01,R02,..." },
    { "write-groundtruth", 0, 0, G_OPTION_ARG_NONE, &write_groundtruth,
      "Write DIR/groundtruth.jsonl from the validator's findings (every request)", NULL },
    { "strict", 0, 0, G_OPTION_ARG_NONE, &strict,
      "Refuse the benchmark (exit 1) when there is a warning, e.g. a request on an attribute "
      "or review field no item or review has", NULL },
    G_OPTION_ENTRY_NULL
  };

  /* So that --help reads "anot-run validate [OPTION…]". */
  g_set_prgname ("anot-run validate");
  context = g_option_context_new (NULL);
  g_option_context_set_summary (context,
                                "Check the gold labels of a benchmark: evaluate every request on every\n"
                                "item with the three-valued validator and report, per request, how many\n"
                                "items satisfy it and whether the only one is the gold item.\n\n"
                                "Records the loader ignored (see the dataset format guide), and\n"
                                "requests on an attribute, path or review field that no item or\n"
                                "review has, are printed as warnings first (--strict: refused).\n"
                                "--write-groundtruth writes the benchmark's\n"
                                "groundtruth.jsonl (the gold of every request, its index and the status\n"
                                "found), replacing the file.\n\n"
                                "Exit status: 0 if every label is confirmed, 1 if one is not or the\n"
                                "data cannot be loaded, 2 on usage errors.");
  g_option_context_add_main_entries (context, entries, NULL);
  if (!g_option_context_parse (context, &argc, &argv, &error))
    {
      g_printerr ("anot-run validate: %s\n", error->message);
      return ANOT_RUN_EXIT_USAGE;
    }
  if (argc > 1)
    {
      g_printerr ("anot-run validate: unexpected argument “%s”\n", argv[1]);
      return ANOT_RUN_EXIT_USAGE;
    }

  if (data == NULL)
    data = anot_run_default_data_dir ();

  dataset = anot_dataset_load (data, NULL, &error);
  if (dataset == NULL)
    {
      g_printerr ("anot-run validate: %s\n", error->message);
      return ANOT_RUN_EXIT_FAILED;
    }
  validator = anot_validator_new (dataset);

  {
    const char * const *warnings = anot_dataset_get_warnings (dataset);

    for (guint i = 0; warnings[i] != NULL; i++)
      g_printerr ("warning: %s\n", warnings[i]);
    if (strict && warnings[0] != NULL)
      {
        g_printerr ("anot-run validate: %u warning%s, refused with --strict\n",
                    g_strv_length ((char **) warnings), warnings[1] != NULL ? "s" : "");
        return ANOT_RUN_EXIT_FAILED;
      }
  }

  if (write_groundtruth)
    {
      g_autofree char *path = NULL;

      if (request_list != NULL || json)
        {
          g_printerr ("anot-run validate: --write-groundtruth covers every request and prints "
                      "the usual report; it does not go with --request or --json\n");
          return ANOT_RUN_EXIT_USAGE;
        }
      path = g_build_filename (anot_dataset_get_path (dataset), "groundtruth.jsonl", NULL);
      if (!anot_validator_write_groundtruth (validator, path, NULL, &error))
        {
          g_printerr ("anot-run validate: %s\n", error->message);
          return ANOT_RUN_EXIT_FAILED;
        }
    }

  if (request_list != NULL)
    {
      g_auto(GStrv) ids = g_strsplit (request_list, ",", -1);

      for (guint i = 0; ids[i] != NULL; i++)
        {
          AnotRequest *request;

          g_strstrip (ids[i]);
          if (ids[i][0] == '\0')
            continue;
          request = anot_dataset_lookup_request (dataset, ids[i]);
          if (request == NULL)
            {
              g_printerr ("anot-run validate: no request “%s” in %s\n", ids[i], data);
              return ANOT_RUN_EXIT_USAGE;
            }
          g_ptr_array_add (selected, request);
        }
      if (selected->len == 0)
        {
          g_printerr ("anot-run validate: --request: no request ids given\n");
          return ANOT_RUN_EXIT_USAGE;
        }
    }
  else
    {
      for (guint i = 0; i < anot_dataset_get_n_requests (dataset); i++)
        g_ptr_array_add (selected, anot_dataset_get_request (dataset, i));
    }

  if (json)
    {
      g_autoptr(JsonNode) matrix = anot_validator_truth_matrix (validator);
      g_autoptr(JsonGenerator) generator = json_generator_new ();
      g_autofree char *text = NULL;
      JsonObject *requests;

      if (request_list != NULL)
        filter_matrix (matrix, selected);

      requests = json_object_get_object_member (json_node_get_object (matrix), "requests");
      for (guint i = 0; i < selected->len; i++)
        {
          JsonObject *entry = json_object_get_object_member (requests,
                                                             anot_request_get_id (g_ptr_array_index (selected, i)));

          if (entry != NULL && g_strcmp0 (json_object_get_string_member (entry, "status"), "ok") == 0)
            n_ok++;
        }

      json_generator_set_root (generator, matrix);
      json_generator_set_pretty (generator, TRUE);
      text = json_generator_to_data (generator, NULL);
      g_print ("%s\n", text);

      return n_ok == selected->len ? ANOT_RUN_EXIT_OK : ANOT_RUN_EXIT_FAILED;
    }

  /* Item by item, so that the memory stays the dataset's on a large set. */
  statuses = anot_validator_check_requests (validator, selected, &all_n_matches);
  for (guint r = 0; r < selected->len; r++)
    {
      AnotRequest *request = g_ptr_array_index (selected, r);
      const char *gold = anot_request_get_gold_item_id (request);
      AnotItem *gold_item = gold != NULL ? anot_dataset_lookup_item (dataset, gold) : NULL;
      const char *group = anot_request_get_group (request);
      guint n_matches = g_array_index (all_n_matches, guint, r);
      AnotGoldStatus status = g_array_index (statuses, AnotGoldStatus, r);

      if (gold_item != NULL)
        g_print ("%-5s %-4s matches=%u  gold=%s (#%u %s)  %s\n",
                 anot_request_get_id (request), group != NULL ? group : "",
                 n_matches, gold, anot_item_get_index (gold_item),
                 anot_item_get_name (gold_item), anot_gold_status_to_string (status));
      else
        g_print ("%-5s %-4s matches=%u  gold=%s (not an item)  %s\n",
                 anot_request_get_id (request), group != NULL ? group : "",
                 n_matches, gold != NULL ? gold : "(none)",
                 anot_gold_status_to_string (status));

      if (status == ANOT_GOLD_STATUS_OK)
        n_ok++;
      else
        {
          g_autoptr(GPtrArray) matches = anot_validator_find_matches (validator, request);

          print_diagnosis (validator, request, gold_item, matches);
        }
    }

  g_print ("%u/%u requests ok\n", n_ok, selected->len);
  if (write_groundtruth)
    g_print ("Wrote %s/groundtruth.jsonl (%u requests)\n", anot_dataset_get_path (dataset), selected->len);

  return n_ok == selected->len ? ANOT_RUN_EXIT_OK : ANOT_RUN_EXIT_FAILED;
}
