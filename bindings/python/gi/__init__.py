# gi/__init__.py: the uninstalled build tree's stand-in for PyGObject's gi
#
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# `meson devenv` and the tests put bindings/python on PYTHONPATH so that
# PyGObject finds gi.overrides.Anot here.  Without this file the directory
# would be a namespace package named gi, and an interpreter without
# PyGObject (pyenv's or conda's python3 first on PATH) would import it
# silently and fail later with "module 'gi' has no attribute
# 'require_version'".  Instead this file finds the interpreter's own
# PyGObject and runs it as the gi package, with this directory still part
# of it (PyGObject's gi/__init__.py does the same with pkgutil.extend_path),
# or says which interpreter lacks PyGObject and how to get it.  It is not
# installed: an installed anot puts Anot.py into PyGObject's own
# gi/overrides.

import os as _os
import sys as _sys

_here = _os.path.dirname(_os.path.abspath(__file__))


def _find_pygobject():
    for entry in _sys.path:
        directory = _os.path.join(_os.path.abspath(entry or _os.getcwd()), "gi")
        init = _os.path.join(directory, "__init__.py")
        if directory != _here and _os.path.isfile(init):
            return init
    return None


_real = _find_pygobject()
if _real is None:
    raise ImportError(
        f"{_sys.executable} has no PyGObject (the Python module gi): only anot's "
        f"overrides ({_here}) are on its path.  Run Python code that uses anot with "
        "Debian's /usr/bin/python3 and its python3-gi package (sudo apt install "
        "python3-gi), for instance `meson devenv -C build -w . /usr/bin/python3 "
        "script.py`, or install PyGObject into this interpreter (pip install "
        "PyGObject, which needs libgirepository1.0-dev and libcairo2-dev).",
        name="gi")

__path__ = [_os.path.dirname(_real), _here]
__file__ = _real
with open(_real, "rb") as _f:
    exec(compile(_f.read(), _real, "exec"))  # PyGObject's own gi/__init__.py
del _f, _real
