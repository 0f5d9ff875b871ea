#!/usr/bin/env python3
"""libanot exports its public API and nothing else.

Compares the dynamic symbols of the shared library (nm -D) with the
functions of the GIR and those the public headers declare (C-only ones,
such as varargs functions, are declared but not introspectable):
- an exported symbol that is not public API fails (internals must stay
  hidden: G_GNUC_INTERNAL or simply no ANOT_AVAILABLE_IN_ALL);
- a GIR function the library does not export fails (Python could not call
  it: a declaration lacks ANOT_AVAILABLE_IN_ALL).

usage: check-exports.py LIBANOT.so Anot-1.0.gir ANOT_SOURCE_DIR BUILD_ANOT_DIR
"""
import os
import re
import subprocess
import sys
import xml.etree.ElementTree as ET

CORE = "{http://www.gtk.org/introspection/core/1.0}"
C = "{http://www.gtk.org/introspection/c/1.0}"
GLIB = "{http://www.gtk.org/introspection/glib/1.0}"


def exported(library):
    out = subprocess.run(["nm", "-D", "--defined-only", library],
                         check=True, capture_output=True, text=True).stdout
    symbols = set()
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[1] in "TDBRVWiu":
            symbols.add(parts[2].split("@")[0])
    return symbols


def gir_functions(gir):
    root = ET.parse(gir).getroot()
    names = set()
    for node in root.iter():
        tag = node.tag.replace(CORE, "")
        if tag in ("function", "method", "constructor") and node.get(C + "identifier"):
            names.add(node.get(C + "identifier"))
        if node.get(GLIB + "get-type") and node.get(GLIB + "get-type") != "intern":
            names.add(node.get(GLIB + "get-type"))
    return names


def declared(src, build):
    with open(os.path.join(src, "anot.h")) as f:
        headers = set(re.findall(r'#include "(anot-[\w-]+\.h)"', f.read()))
    names = set()
    for folder in (src, build):
        for path, _, files in os.walk(folder):
            for name in files:
                if name not in headers:
                    continue
                with open(os.path.join(path, name)) as f:
                    text = re.sub(r"/\*.*?\*/", "", f.read(), flags=re.S)
                for m in re.finditer(r"ANOT_AVAILABLE_IN_ALL\s+(?:G_DECLARE_\w+\s*\(\s*\w+\s*,\s*(\w+)|[^;(]*?\b(anot_\w+)\s*\()", text):
                    names.add(m.group(1) + "_get_type" if m.group(1) else m.group(2))
    return names


def main(library, gir, src, build):
    symbols = exported(library)
    in_gir = gir_functions(gir)
    public = in_gir | declared(src, build)
    problems = []
    for name in sorted(symbols - public):
        problems.append(f"exported but not public API: {name}")
    for name in sorted(in_gir - symbols):
        problems.append(f"in the GIR but not exported (missing ANOT_AVAILABLE_IN_ALL?): {name}")
    for p in problems:
        print(p)
    print(f"{len(symbols)} exported symbols, {len(in_gir)} GIR functions, {len(problems)} problems")
    return 1 if problems or len(symbols) < 100 else 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:5]))
