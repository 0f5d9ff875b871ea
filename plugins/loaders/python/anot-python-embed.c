/* anot-python-embed.c: runs Python method files in the process
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Opened by libanot-python.so when the first Python method file is found.
 * In a C program (anot-run) it starts the interpreter anot was built
 * against; in a Python program (a notebook with ANOT_PLUGIN_PATH set) it
 * uses the interpreter already running.  Either way the file is imported
 * as a module of its own, under the GIL, and registers its methods with
 * `@Anot.register_method`, which the registry records as coming from it.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <anot/anot.h>

G_MODULE_EXPORT gboolean anot_python_embed_load_file (const char  *path,
                                                      GError     **error);

/* The loading logic, in Python: it reads best there (tracebacks,
 * importlib).  Each function returns None or the message of an error. */
static const char helper_source[] =
  "import importlib.util, os, re, sys, traceback\n"
  "\n"
  "def interpreter():\n"
  "    return f'{sys.executable or \"python\"} (Python {sys.version.split()[0]}, prefix {sys.prefix})'\n"
  "\n"
  "def check_gi():\n"
  "    try:\n"
  "        import gi\n"
  "        gi.require_version('Anot', '1.0')\n"
  "        from gi.repository import Anot\n"
  "        Anot.register_method\n"
  "    except (ImportError, AttributeError) as exc:\n"
  "        where = getattr(sys.modules.get('gi'), '__file__', None) or \\\n"
  "                getattr(sys.modules.get('gi'), '__path__', None)\n"
  "        found = f' (the gi found is {list(where) if not isinstance(where, str) else where})' \\\n"
  "            if where else ''\n"
  "        return (f'the Python interpreter anot-run embeds, {interpreter()}, cannot use '\n"
  "                f'PyGObject: {type(exc).__name__}: {exc}{found}. Install PyGObject for it '\n"
  "                f'(Debian, Ubuntu: apt install python3-gi); PYTHONHOME and PYTHONPATH must not '\n"
  "                f'point to another Python installation')\n"
  "    except ValueError as exc:\n"
  "        return (f'{exc}: the Anot-1.0 typelib is not found by {interpreter()}; '\n"
  "                f'install anot or set GI_TYPELIB_PATH (meson devenv does)')\n"
  "    return None\n"
  "\n"
  "def load(path):\n"
  "    stem = re.sub(r'\\W', '_', os.path.splitext(os.path.basename(path))[0])\n"
  "    name = f'anot_plugin_{stem}'\n"
  "    n = 1\n"
  "    while name in sys.modules:\n"
  "        n += 1\n"
  "        name = f'anot_plugin_{stem}_{n}'\n"
  "    spec = importlib.util.spec_from_file_location(name, path)\n"
  "    module = importlib.util.module_from_spec(spec)\n"
  "    sys.modules[name] = module\n"
  "    # The file's directory first, so it can import helper modules beside it.\n"
  "    directory = os.path.dirname(os.path.abspath(path))\n"
  "    sys.path.insert(0, directory)\n"
  "    try:\n"
  "        spec.loader.exec_module(module)\n"
  "    except BaseException as exc:\n"
  "        del sys.modules[name]\n"
  "        line = getattr(exc, 'lineno', None) if isinstance(exc, SyntaxError) else None\n"
  "        for frame in traceback.extract_tb(exc.__traceback__):\n"
  "            if os.path.abspath(frame.filename) == os.path.abspath(path):\n"
  "                line = frame.lineno\n"
  "        where = f'line {line}: ' if line else ''\n"
  "        return f'{where}{type(exc).__name__}: {exc}'\n"
  "    finally:\n"
  "        if directory in sys.path:\n"
  "            sys.path.remove(directory)\n"
  "    return None\n";

static GMutex init_lock;
static PyObject *helper;        /* the helper's globals; under the GIL */
static char *init_failure;

/* Starts the interpreter unless the process runs one.  Called once. */
static gboolean
start_interpreter (GError **error)
{
  PyConfig config;
  PyStatus status;

  if (Py_IsInitialized ())
    return TRUE;

  PyConfig_InitPythonConfig (&config);
  /* SIGINT stays the program's: anot-run finishes the requests in flight
   * and writes its results on Ctrl-C. */
  config.install_signal_handlers = 0;
  config.parse_argv = 0;
  /* Where the interpreter finds its prefix: the program's own path (or a
   * python3 on PATH, say pyenv's) would give it another installation's
   * standard library and site-packages. */
  status = PyConfig_SetBytesString (&config, &config.program_name, ANOT_PYTHON_EXECUTABLE);
  if (!PyStatus_Exception (status))
    status = Py_InitializeFromConfig (&config);
  PyConfig_Clear (&config);
  if (PyStatus_Exception (status))
    {
      g_set_error (error, ANOT_ERROR, ANOT_ERROR_PLUGIN_LOAD,
                   "cannot start the Python interpreter %s: %s%s%s", ANOT_PYTHON_EXECUTABLE,
                   status.func ? status.func : "", status.func ? ": " : "",
                   status.err_msg ? status.err_msg : "unknown error");
      return FALSE;
    }
  /* The GIL is taken by whoever calls into Python: PyGObject for a
   * method's vfuncs, this file for a load. */
  PyEval_SaveThread ();
  return TRUE;
}

static char *
string_from_python (PyObject *object)
{
  const char *text = object && PyUnicode_Check (object) ? PyUnicode_AsUTF8 (object) : NULL;

  return g_strdup (text ? text : "(no message)");
}

/* The message of the pending Python exception, cleared. */
static char *
fetch_exception (void)
{
  PyObject *type, *value, *traceback;
  PyObject *text;
  char *message;

  PyErr_Fetch (&type, &value, &traceback);
  text = value ? PyObject_Str (value) : NULL;
  message = string_from_python (text);
  Py_XDECREF (text);
  Py_XDECREF (type);
  Py_XDECREF (value);
  Py_XDECREF (traceback);
  return message;
}

/* Calls helper.@function(@arg); NULL when it returned None, else the
 * error's message.  Under the GIL. */
static char *
call_helper (const char *function,
             const char *arg)
{
  PyObject *callable = PyDict_GetItemString (helper, function);
  PyObject *result;
  char *message = NULL;

  result = arg ? PyObject_CallFunction (callable, "s", arg) : PyObject_CallNoArgs (callable);
  if (result == NULL)
    return fetch_exception ();
  if (result != Py_None)
    message = string_from_python (result);
  Py_DECREF (result);
  return message;
}

static gboolean
ensure_ready (GError **error)
{
  gboolean ok = TRUE;

  g_mutex_lock (&init_lock);
  if (helper == NULL && init_failure == NULL)
    {
      g_autoptr(GError) local_error = NULL;

      if (!start_interpreter (&local_error))
        init_failure = g_strdup (local_error->message);
      else
        {
          PyGILState_STATE gil = PyGILState_Ensure ();
          PyObject *globals = PyDict_New ();
          PyObject *result;

          PyDict_SetItemString (globals, "__builtins__", PyEval_GetBuiltins ());
          result = PyRun_String (helper_source, Py_file_input, globals, globals);
          if (result == NULL)
            {
              g_autofree char *message = fetch_exception ();

              init_failure = g_strdup_printf ("the Python loader's helper failed: %s", message);
              Py_DECREF (globals);
            }
          else
            {
              g_autofree char *problem = NULL;

              Py_DECREF (result);
              helper = globals;
              problem = call_helper ("check_gi", NULL);
              if (problem != NULL)
                {
                  init_failure = g_steal_pointer (&problem);
                  Py_CLEAR (helper);
                }
            }
          PyGILState_Release (gil);
        }
    }
  if (init_failure != NULL)
    {
      g_set_error_literal (error, ANOT_ERROR, ANOT_ERROR_PLUGIN_LOAD, init_failure);
      ok = FALSE;
    }
  g_mutex_unlock (&init_lock);

  return ok;
}

/**
 * anot_python_embed_load_file:
 * @path: a Python method file
 * @error: return location for a #GError
 *
 * Imports @path, which registers its methods.
 *
 * Returns: %TRUE when the file ran without an exception
 */
gboolean
anot_python_embed_load_file (const char  *path,
                             GError     **error)
{
  PyGILState_STATE gil;
  g_autofree char *problem = NULL;

  if (!ensure_ready (error))
    return FALSE;

  gil = PyGILState_Ensure ();
  problem = call_helper ("load", path);
  PyGILState_Release (gil);

  if (problem != NULL)
    {
      g_set_error_literal (error, ANOT_ERROR, ANOT_ERROR_PLUGIN_LOAD, problem);
      return FALSE;
    }
  return TRUE;
}
