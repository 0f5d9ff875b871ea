"""Introspection coverage: the public C API is the API Python sees."""
import os
import re
import xml.etree.ElementTree as ET

import pytest
from gi.repository import Anot

CORE = "{http://www.gtk.org/introspection/core/1.0}"
C = "{http://www.gtk.org/introspection/c/1.0}"
GLIB = "{http://www.gtk.org/introspection/glib/1.0}"
SRC = os.path.join(os.environ["ANOT_TEST_SRCDIR"], "..", "anot")


@pytest.fixture(scope="module")
def gir():
    path = os.environ.get("ANOT_GIR", "")
    if not os.path.isfile(path):
        pytest.skip("ANOT_GIR does not name the generated Anot-1.0.gir")
    return ET.parse(path).getroot()


def library_files():
    """Every source and header of the library, by base name (the layer
    folders of anot/ hold one flat namespace of file names)."""
    found = {}
    for folder, _, names in os.walk(SRC):
        for name in names:
            if name.endswith((".c", ".h")):
                found[name] = os.path.join(folder, name)
    return found


def public_headers():
    with open(os.path.join(SRC, "anot.h")) as f:
        names = re.findall(r'#include "(anot-[\w-]+\.h)"', f.read())
    files = library_files()
    return [files[n] for n in names if n in files]


def declared_functions():
    found = {}
    for header in public_headers():
        with open(header) as f:
            text = re.sub(r"/\*.*?\*/", "", f.read(), flags=re.S)
        for m in re.finditer(r"^[A-Za-z_][\w \t\*]*?\b(anot_\w+)\s*\(", text, re.M):
            found[m.group(1)] = os.path.basename(header)
    return found


def skipped_functions():
    skipped = set()
    for path in library_files().values():
        with open(path) as f:
            skipped.update(re.findall(r"\* (anot_\w+):\s*\(skip\)", f.read()))
    return skipped


def test_every_public_function_is_in_the_gir(gir):
    known = set()
    for node in gir.iter():
        for attr in (C + "identifier", GLIB + "get-type", GLIB + "error-domain"):
            if node.get(attr):
                known.add(node.get(attr))
    declared = declared_functions()
    assert len(declared) > 100
    missing = sorted(f"{name} ({header})" for name, header in declared.items()
                     if name not in known and name not in skipped_functions())
    assert missing == [], "public functions that bindings cannot see"


def test_only_varargs_and_skipped_are_not_introspectable(gir):
    skipped = skipped_functions()
    bad = []
    for node in gir.iter():
        tag = node.tag.replace(CORE, "")
        if tag not in ("function", "method", "constructor") or node.get("introspectable") != "0":
            continue
        params = node.find(CORE + "parameters")
        varargs = params is not None and any(p.find(CORE + "varargs") is not None for p in params)
        if not varargs and node.get(C + "identifier") not in skipped:
            bad.append(node.get(C + "identifier"))
    assert bad == [], "annotate these, or mark them (skip) when they are C-only"


def test_every_symbol_resolves_in_python():
    # Loading each class, interface, enum and function from the typelib
    # catches types the GIR names but cannot resolve.
    names = [n for n in dir(Anot) if not n.startswith("_")]
    assert "Experiment" in names and "Method" in names
    for name in names:
        value = getattr(Anot, name)
        if isinstance(value, type):
            for attr in dir(value):
                if not attr.startswith("_"):
                    getattr(value, attr)
