/* fuzz-data-path.c: libFuzzer target for the path language of the data
 * tools, run through the four tools on a small document
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <anot/anot.h>

#include <stdint.h>
#include <string.h>

static JsonNode *document;
static GStrv tool_names;

static void
setup (void)
{
  g_log_set_always_fatal (G_LOG_LEVEL_CRITICAL | G_LOG_LEVEL_WARNING);
  document = json_from_string (
    "{\"items\": {\"1\": {\"name\": \"A\", \"tags\": [\"x\", \"y\"],"
    "  \"attributes\": {\"Good For Kids\": true, \"WiFi\": \"free\", \"Ambience\": {\"hipster\": false}},"
    "  \"reviews\": [{\"text\": \"Great coffee \\u00e9\", \"stars\": 4.5}]},"
    " \"2\": {\"name\": \"B\", \"tags\": [], \"attributes\": {\"WiFi\": null}, \"reviews\": []},"
    " \"3\": {\"name\": \"C\"}},"
    " \"list\": [10, 20, [30, {\"deep\": \"value\"}]], \"empty\": {}, \"n\": null}", NULL);
  tool_names = anot_data_tool_list_builtin ();
}

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput (const uint8_t *data,
                        size_t         size)
{
  g_autofree char *text = NULL;
  g_autoptr(AnotDataPath) path = NULL;
  g_autoptr(GError) error = NULL;

  if (document == NULL)
    setup ();

  text = g_strndup ((const char *) data, size);

  path = anot_data_path_parse (text, &error);
  if (path != NULL)
    {
      g_autofree char *canonical = anot_data_path_to_string (path);
      g_autoptr(AnotDataPath) again = anot_data_path_parse (canonical, NULL);
      g_autofree char *canonical_again = NULL;
      g_autoptr(GPtrArray) matches = NULL;
      g_auto(GStrv) paths = NULL;

      /* The canonical form is a fixed point. */
      if (again == NULL)
        __builtin_trap ();
      canonical_again = anot_data_path_to_string (again);
      if (strcmp (canonical, canonical_again) != 0)
        __builtin_trap ();

      matches = anot_data_path_resolve (path, document, &paths, NULL);
      if (matches != NULL && matches->len != g_strv_length (paths))
        __builtin_trap ();
    }
  else if (error == NULL || !g_utf8_validate (error->message, -1, NULL))
    __builtin_trap ();

  for (guint i = 0; tool_names[i] != NULL; i++)
    {
      g_autoptr(AnotDataTool) tool = anot_data_tool_new (tool_names[i], document);
      g_autoptr(JsonNode) result = NULL;
      g_autofree char *shown = NULL;

      anot_data_tool_set_max_value_length (tool, 1 + size % 40);
      result = anot_data_tool_invoke_path (tool, text);
      if (result == NULL)
        __builtin_trap ();
      shown = anot_tool_result_to_text (result);
      if (!g_utf8_validate (shown, -1, NULL))
        __builtin_trap ();
    }
  return 0;
}
