/* fuzz-lwt.c: libFuzzer target for the LWT script parser, its layering
 * and template rendering
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <anot/anot.h>

#include <stdint.h>
#include <string.h>

static JsonObject *values;

static void
setup (void)
{
  g_autoptr(JsonNode) node = NULL;

  /* A criticial means an API was misused on some input: a bug. */
  g_log_set_always_fatal (G_LOG_LEVEL_CRITICAL | G_LOG_LEVEL_WARNING);
  node = json_from_string ("{\"0\": \"[1, 2, {'x': 3}]\", \"1\": \"{\\\"k\\\": [\\\"v\\\"]}\","
                           " \"a\": \"abc\", \"query\": \"a cafe\","
                           " \"context\": {\"1\": {\"name\": \"A\", \"attributes\": {\"WiFi\": \"free\"},"
                           " \"reviews\": [{\"text\": \"Great coffee\"}]}}}", NULL);
  values = json_object_ref (json_node_get_object (node));
}

static void
exercise (AnotLwtScript *script)
{
  g_autofree char *text = NULL;
  g_autoptr(AnotLwtScript) again = NULL;

  for (guint i = 0; i < anot_lwt_script_get_n_layers (script); i++)
    g_strfreev (anot_lwt_script_list_layer (script, i));
  for (guint i = 0; i < anot_lwt_script_get_n_steps (script); i++)
    {
      AnotLwtStep *step = anot_lwt_script_get_step (script, i);
      g_autofree char *rendered = anot_lwt_step_render (step, values, 64);
      g_auto(GStrv) refs = anot_lwt_step_list_references (step);

      if (!g_utf8_validate (rendered, -1, NULL))
        __builtin_trap ();
    }
  (void) anot_lwt_script_get_output_step (script);
  (void) anot_lwt_script_has_cycle (script);
  anot_lwt_script_validate (script, NULL);

  /* What it writes reads back to as many steps. */
  text = anot_lwt_script_to_string (script);
  again = anot_lwt_script_parse (text, ANOT_LWT_PARSE_FLAGS_LENIENT, NULL);
  if (again == NULL || anot_lwt_script_get_n_steps (again) != anot_lwt_script_get_n_steps (script))
    __builtin_trap ();
}

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput (const uint8_t *data,
                        size_t         size)
{
  g_autofree char *text = NULL;

  if (values == NULL)
    setup ();

  text = g_strndup ((const char *) data, size);
  for (guint mode = 0; mode < 2; mode++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(AnotLwtScript) script =
        anot_lwt_script_parse (text, mode ? ANOT_LWT_PARSE_FLAGS_LENIENT : ANOT_LWT_PARSE_FLAGS_NONE, &error);

      if (script == NULL)
        {
          if (error == NULL || !g_utf8_validate (error->message, -1, NULL))
            __builtin_trap ();
          continue;
        }
      exercise (script);
    }
  return 0;
}
