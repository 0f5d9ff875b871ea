/* test-prompt-templates.c: every prompt template of every method plugin,
 * rendered with a distinct sentinel for each placeholder
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The templates are read from the resources the loaded plugins register
 * (/org/anot/methods/<name>/...), so a template added to any method is
 * checked without naming it here.  The expected text is built by this
 * test's own reading of the template syntax (`{name}` a placeholder, `{{`
 * and `}}` braces), and each sentinel holds placeholder-like text
 * (`{items}`, `{{`) so that a renderer which expanded a value again would
 * change it.
 */
#include "config.h"

#include <anot/anot.h>

#include "anot-llm-job.h"

#include <string.h>

/* The words the renderer takes from the benchmark's domain
 * (anot-llm-job.h); a method may not pass a value under them. */
static const char *domain_words[] = {
  "item", "items", "Item", "Items", "ITEMS", "a_item", "A_item",
  "candidate_items", "attribute_examples", "tool_attribute_examples",
  "plan_attribute", "path_attribute", "path_attribute_quoted",
};

typedef struct {
  char      *path;
  char      *text;
  /* Literal pieces and placeholder names, alternating: piece, name,
   * piece, ..., piece (names[i] sits between pieces[i] and pieces[i+1]). */
  GPtrArray *pieces;
  GPtrArray *names;
} Template;

static void
template_free (gpointer data)
{
  Template *t = data;

  g_free (t->path);
  g_free (t->text);
  g_ptr_array_unref (t->pieces);
  g_ptr_array_unref (t->names);
  g_free (t);
}

static gboolean
is_name_char (char c,
              gboolean first)
{
  return g_ascii_isalpha (c) || c == '_' || (!first && g_ascii_isdigit (c));
}

/* Splits a template into literal pieces and placeholders, or says where a
 * brace is neither a placeholder nor doubled. */
static Template *
template_parse (const char  *path,
                const char  *text,
                char       **problem)
{
  Template *t = g_new0 (Template, 1);
  GString *piece = g_string_new (NULL);

  t->path = g_strdup (path);
  t->text = g_strdup (text);
  t->pieces = g_ptr_array_new_with_free_func (g_free);
  t->names = g_ptr_array_new_with_free_func (g_free);
  *problem = NULL;

  for (const char *p = text; *p != '\0'; p++)
    {
      if ((p[0] == '{' && p[1] == '{') || (p[0] == '}' && p[1] == '}'))
        {
          g_string_append_c (piece, p[0]);
          p++;
        }
      else if (p[0] == '{')
        {
          const char *q = p + 1;

          while (is_name_char (*q, q == p + 1))
            q++;
          if (q == p + 1 || *q != '}')
            {
              *problem = g_strdup_printf ("%s: a single { at byte %td is not a placeholder "
                                          "(write {{ for a brace)", path, p - text);
              break;
            }
          g_ptr_array_add (t->pieces, g_string_free (g_steal_pointer (&piece), FALSE));
          g_ptr_array_add (t->names, g_strndup (p + 1, q - p - 1));
          piece = g_string_new (NULL);
          p = q;
        }
      else if (p[0] == '}')
        {
          *problem = g_strdup_printf ("%s: a single } at byte %td (write }} for a brace)", path, p - text);
          break;
        }
      else
        g_string_append_c (piece, p[0]);
    }
  g_ptr_array_add (t->pieces, g_string_free (piece, FALSE));
  return t;
}

static void
collect (const char *dir,
         GPtrArray  *templates)
{
  g_auto(GStrv) children = g_resources_enumerate_children (dir, G_RESOURCE_LOOKUP_FLAGS_NONE, NULL);

  for (guint i = 0; children != NULL && children[i] != NULL; i++)
    {
      g_autofree char *path = g_strconcat (dir, children[i], NULL);

      if (g_str_has_suffix (children[i], "/"))
        collect (path, templates);
      else if (g_str_has_suffix (children[i], ".txt"))
        {
          g_autoptr(GBytes) bytes = g_resources_lookup_data (path, G_RESOURCE_LOOKUP_FLAGS_NONE, NULL);
          g_autofree char *text = NULL;
          g_autofree char *problem = NULL;
          gsize len;
          const char *data;
          Template *t;

          g_assert_nonnull (bytes);
          data = g_bytes_get_data (bytes, &len);
          /* anot_llm_prompt() drops the file's final newlines. */
          while (len > 0 && (data[len - 1] == '\n' || data[len - 1] == '\r'))
            len--;
          text = g_strndup (data, len);
          t = template_parse (path, text, &problem);
          if (problem != NULL)
            g_error ("%s", problem);
          g_ptr_array_add (templates, t);
        }
    }
}

/* Every method's templates, from the plugins' resources. */
static GPtrArray *
all_templates (void)
{
  GPtrArray *templates = g_ptr_array_new_with_free_func (template_free);
  AnotRegistry *registry = anot_registry_get_default ();
  g_auto(GStrv) names = anot_registry_list (registry, ANOT_METHOD_EXTENSION_POINT_NAME);
  g_auto(GStrv) methods = NULL;

  /* A module is loaded (and registers its resources) when one of its
   * types is first used. */
  for (guint i = 0; names[i] != NULL; i++)
    {
      g_autoptr(AnotMethod) method = anot_registry_create_method (registry, names[i], NULL);

      g_assert_nonnull (method);
    }
  methods = g_resources_enumerate_children ("/org/anot/methods/", G_RESOURCE_LOOKUP_FLAGS_NONE, NULL);
  g_assert_nonnull (methods);
  collect ("/org/anot/methods/", templates);
  return templates;
}

static char *
sentinel (guint       i,
          const char *name)
{
  /* Text a renderer would change if it read a value again. */
  return g_strdup_printf ("<<S%u:%s {items} {{ }} {%s}>>", i, name, name);
}

static guint
count (const char *haystack,
       const char *needle)
{
  guint n = 0;

  for (const char *p = strstr (haystack, needle); p != NULL; p = strstr (p + 1, needle))
    n++;
  return n;
}

/* The template with each placeholder replaced by value_of(name). */
static char *
expected_text (Template   *t,
               GHashTable *values)
{
  GString *out = g_string_new (g_ptr_array_index (t->pieces, 0));

  for (guint i = 0; i < t->names->len; i++)
    {
      g_string_append (out, g_hash_table_lookup (values, t->names->pdata[i]));
      g_string_append (out, t->pieces->pdata[i + 1]);
    }
  return g_string_free (out, FALSE);
}

/* No placeholder of the template is left, once the values are taken
 * out: the text between them holds no `{name}` (the templates escape no
 * placeholder-like text, so none may come out). */
static void
assert_nothing_left (Template   *t,
                     const char *rendered,
                     GHashTable *values)
{
  g_autofree char *rest = g_strdup (rendered);
  g_autoptr(GRegex) placeholder = g_regex_new ("\\{[A-Za-z_][A-Za-z0-9_]*\\}", 0, 0, NULL);
  GHashTableIter iter;
  gpointer value;

  g_hash_table_iter_init (&iter, values);
  while (g_hash_table_iter_next (&iter, NULL, &value))
    {
      g_auto(GStrv) parts = g_strsplit (rest, value, -1);

      g_free (rest);
      rest = g_strjoinv ("", parts);
    }
  if (g_regex_match (placeholder, rest, 0, NULL))
    g_error ("%s: a placeholder is left in the rendered prompt:\n%s", t->path, rest);
}

static void
test_every_template (void)
{
  g_autoptr(GPtrArray) templates = all_templates ();
  g_autoptr(GHashTable) methods = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  guint n_placeholders = 0;

  /* Every method plugin with prompts is there (ANoT's HEAD ones too). */
  g_assert_cmpuint (templates->len, >=, 50);

  for (guint i = 0; i < templates->len; i++)
    {
      Template *t = templates->pdata[i];
      g_autoptr(GHashTable) values = g_hash_table_new_full (g_str_hash, g_str_equal, NULL, g_free);
      g_autofree char *rendered = NULL;
      g_autofree char *expected = NULL;
      g_auto(GStrv) parts = g_strsplit (t->path, "/", -1);

      g_hash_table_add (methods, g_strdup (parts[4]));
      for (guint n = 0; n < t->names->len; n++)
        if (!g_hash_table_contains (values, t->names->pdata[n]))
          g_hash_table_insert (values, t->names->pdata[n],
                               sentinel (g_hash_table_size (values), t->names->pdata[n]));

      rendered = anot_llm_template_fill_table (t->text, values);
      expected = expected_text (t, values);
      if (g_strcmp0 (rendered, expected) != 0)
        g_error ("%s: rendered\n%s\nexpected\n%s", t->path, rendered, expected);

      /* Each sentinel as many times as its placeholder, and no more. */
      for (guint n = 0; n < t->names->len; n++)
        {
          const char *name = t->names->pdata[n];
          guint wanted = 0;

          for (guint m = 0; m < t->names->len; m++)
            wanted += g_str_equal (t->names->pdata[m], name);
          g_assert_cmpuint (count (rendered, g_hash_table_lookup (values, name)), ==, wanted);
        }
      assert_nothing_left (t, rendered, values);
      n_placeholders += t->names->len;
    }
  g_test_message ("%u templates of %u methods, %u placeholders", templates->len,
                  g_hash_table_size (methods), n_placeholders);
  for (const char *name = "anot"; name != NULL; name = NULL)
    g_assert_true (g_hash_table_contains (methods, name));
  g_assert_cmpuint (g_hash_table_size (methods), >=, 9);
}

/* Through anot_llm_prompt(), as the methods call it: the domain's words
 * come from the domain, the method's values fill only their own places. */
static void
test_every_template_with_domain (void)
{
  g_autoptr(GPtrArray) templates = all_templates ();
  g_autoptr(AnotDomain) domain = anot_domain_new_default ();
  g_autofree char *items_upper = g_utf8_strup (anot_domain_get_items (domain), -1);

  for (guint i = 0; i < templates->len; i++)
    {
      Template *t = templates->pdata[i];
      g_autoptr(GHashTable) values = g_hash_table_new_full (g_str_hash, g_str_equal, NULL, g_free);
      /* Up to twelve of the method's own values, as name/value pairs. */
      const char *args[24] = { NULL };
      guint n_args = 0;
      g_autofree char *rendered = NULL;
      g_autofree char *expected = NULL;

      g_hash_table_insert (values, "items", g_strdup (anot_domain_get_items (domain)));
      g_hash_table_insert (values, "item", g_strdup (anot_domain_get_item (domain)));
      g_hash_table_insert (values, "Items", g_strdup (anot_domain_get_items_title (domain)));
      g_hash_table_insert (values, "Item", g_strdup (anot_domain_get_item_title (domain)));
      g_hash_table_insert (values, "ITEMS", g_strdup (items_upper));
      for (guint n = 0; n < t->names->len; n++)
        {
          const char *name = t->names->pdata[n];
          gboolean of_domain = FALSE;

          for (guint w = 0; w < G_N_ELEMENTS (domain_words); w++)
            of_domain |= g_str_equal (name, domain_words[w]);
          if (of_domain || g_hash_table_contains (values, name))
            continue;
          g_assert_cmpuint (n_args, <, G_N_ELEMENTS (args));
          g_hash_table_insert (values, (gpointer) name, sentinel (n, name));
          args[n_args++] = name;
          args[n_args++] = g_hash_table_lookup (values, name);
        }
      rendered = anot_llm_prompt (NULL, t->path,
                                  args[0], args[1], args[2], args[3], args[4], args[5],
                                  args[6], args[7], args[8], args[9], args[10], args[11],
                                  args[12], args[13], args[14], args[15], args[16], args[17],
                                  args[18], args[19], args[20], args[21], args[22], args[23],
                                  NULL);
      /* The five words this test names; the others (articles, examples)
       * only have to leave no placeholder behind. */
      for (guint n = 0; n < t->names->len; n++)
        if (!g_hash_table_contains (values, t->names->pdata[n]))
          g_hash_table_insert (values, t->names->pdata[n], NULL);
      {
        g_autoptr(GPtrArray) unknown = g_ptr_array_new ();
        GHashTableIter iter;
        gpointer key, value;

        g_hash_table_iter_init (&iter, values);
        while (g_hash_table_iter_next (&iter, &key, &value))
          if (value == NULL)
            g_ptr_array_add (unknown, key);
        if (unknown->len == 0)
          {
            expected = expected_text (t, values);
            if (g_strcmp0 (rendered, expected) != 0)
              g_error ("%s: rendered\n%s\nexpected\n%s", t->path, rendered, expected);
          }
        for (guint u = 0; u < unknown->len; u++)
          g_hash_table_remove (values, unknown->pdata[u]);
      }
      for (guint n = 0; n < t->names->len; n++)
        {
          const char *value = g_hash_table_lookup (values, t->names->pdata[n]);

          if (value != NULL && g_str_has_prefix (value, "<<S"))
            {
              guint wanted = 0;

              for (guint m = 0; m < t->names->len; m++)
                wanted += g_str_equal (t->names->pdata[m], t->names->pdata[n]);
              g_assert_cmpuint (count (rendered, value), ==, wanted);
            }
        }
      assert_nothing_left (t, rendered, values);
    }
}

/* A method's value under a word of the domain is refused loudly (it
 * would fill every place the template names the items). */
static void
test_domain_word_refused (void)
{
  if (g_test_subprocess ())
    {
      g_autofree char *text = NULL;
      g_autoptr(AnotMethod) method = anot_registry_create_method (anot_registry_get_default (), "anot", NULL);

      g_assert_nonnull (method);
      text = anot_llm_prompt (NULL, "/org/anot/methods/anot/head-ruleout.txt",
                              "conditions", "1. WiFi = free", "items", "Item 1: WiFi='free'", NULL);
      return;
    }
  g_test_trap_subprocess (NULL, 0, G_TEST_SUBPROCESS_DEFAULT);
  g_test_trap_assert_failed ();
  g_test_trap_assert_stderr ("*{items} is the benchmark's word*");
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);

  g_test_add_func ("/prompt-templates/sentinels", test_every_template);
  g_test_add_func ("/prompt-templates/sentinels-with-domain", test_every_template_with_domain);
  g_test_add_func ("/prompt-templates/domain-word-refused", test_domain_word_refused);

  return g_test_run ();
}
