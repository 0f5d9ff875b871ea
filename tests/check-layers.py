#!/usr/bin/env python3
"""The layers of anot/ (docs/architecture.md): every #include of a library
header must point to the same folder or to a layer below, and no header
may reach itself through its includes.  Exits 1 naming each violation."""
import os
import re
import sys

# Layer → the layers it may include (besides itself).
ALLOWED = {
    "util": set(),
    "model": {"util"},
    "llm": {"util"},
    "expr": {"util"},
    "plugin": {"util", "model", "llm", "expr"},
    "run": {"util", "model", "llm", "expr", "plugin"},
    "engines/agent": {"util", "model", "llm", "expr", "plugin"},
    "engines/lwt": {"util", "model", "llm", "expr", "plugin"},
    "engines/plan": {"util", "model", "llm", "expr", "plugin"},
    "engines/formula": {"util", "model", "llm", "expr", "plugin"},
}
# Generated headers and the umbrella header, at the top of anot/.
TOP = {"anot.h", "anot-version.h", "anot-enum-types.h", "config.h"}
INCLUDE = re.compile(r'^\s*#\s*include\s+["<](?:anot/)?([\w.-]+\.h)[">]', re.M)


def main(src):
    layer_of = {}
    for layer in ALLOWED:
        for name in os.listdir(os.path.join(src, layer)):
            if name.endswith((".c", ".h")):
                layer_of[name] = layer
    problems = []
    graph = {}
    for name, layer in sorted(layer_of.items()):
        with open(os.path.join(src, layer, name)) as f:
            text = f.read()
        targets = [t for t in INCLUDE.findall(text) if t.startswith("anot-") or t in TOP]
        graph[name] = [t for t in targets if t in layer_of]
        for target in targets:
            if target in TOP and target != "config.h" and target != "anot-enum-types.h" \
                    and target != "anot-version.h":
                problems.append(f"{layer}/{name} includes the umbrella header {target}")
                continue
            other = layer_of.get(target)
            if other is None:
                if target not in TOP:
                    problems.append(f"{layer}/{name} includes {target}, which no layer holds")
                continue
            if other != layer and other not in ALLOWED[layer]:
                problems.append(f"{layer}/{name} includes {other}/{target}: "
                                f"{layer} may not depend on {other}")
    # Include cycles among the library's own files.
    state = {}

    def visit(node, path):
        state[node] = "open"
        for nxt in graph.get(node, []):
            if state.get(nxt) == "open":
                cycle = path[path.index(nxt):] + [nxt]
                problems.append("include cycle: " + " -> ".join(cycle))
            elif nxt not in state:
                visit(nxt, path + [nxt])
        state[node] = "done"

    for node in sorted(graph):
        if node not in state:
            visit(node, [node])
    for p in problems:
        print(p)
    print(f"{len(layer_of)} files in {len(ALLOWED)} layers, {len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else
                  os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "anot")))
