#!/usr/bin/env python3
"""The C guide is the code that builds.

Usage: check-doc-blocks.py GUIDE.md EXAMPLE.c...

Every ```c block of GUIDE must be found, line by line and in order, as one
contiguous stretch of one of the EXAMPLE files (blank lines and trailing
spaces aside), and every `anot_*` function the guide's section "What a
method can read" names must be called in an EXAMPLE file.  The build
compiles the examples with -Wall -Werror and the Python tests load them, so
a block that passes here compiles and runs.  Exits 1 naming each block
that drifted, with the first line that no longer matches.
"""
import re
import sys

BLOCK = re.compile(r"^```c\n(.*?)^```", re.S | re.M)
REFERENCE = re.compile(r"^## What a method can read\n(.*?)(?=^## |\Z)", re.S | re.M)


def significant(text):
    return [line.rstrip() for line in text.splitlines() if line.strip()]


def find(block, lines):
    """Index where @block starts in @lines, else (None, longest matched prefix, where)."""
    best, where = 0, None
    for start in range(len(lines)):
        n = 0
        while n < len(block) and start + n < len(lines) and lines[start + n] == block[n]:
            n += 1
        if n == len(block):
            return start, n, start
        if n > best:
            best, where = n, start
    return None, best, where


def main(guide, examples):
    with open(guide, encoding="utf-8") as f:
        text = f.read()
    sources = {}
    for path in examples:
        with open(path, encoding="utf-8") as f:
            sources[path] = f.read()
    files = {path: significant(source) for path, source in sources.items()}

    failures = []
    blocks = BLOCK.findall(text)
    if not blocks:
        failures.append(f"{guide}: no ```c block at all")
    for number, block in enumerate(blocks, 1):
        wanted = significant(block)
        line_no = text[:text.find(block)].count("\n") + 1
        best = (0, None, None)
        for path, lines in files.items():
            start, n, where = find(wanted, lines)
            if start is not None:
                break
            if n > best[0]:
                best = (n, path, where)
        else:
            n, path, where = best
            if path is None:
                failures.append(f"{guide}:{line_no}: c block {number} (“{wanted[0]}”) is in no example")
            else:
                failures.append(f"{guide}:{line_no}: c block {number} drifted from {path}: its line "
                                f"{n + 1} “{wanted[n]}” is “{files[path][where + n] if where + n < len(files[path]) else '(end of file)'}” there")

    reference = REFERENCE.search(text)
    if reference is None:
        failures.append(f"{guide}: no section “## What a method can read”")
    else:
        everything = "\n".join(sources.values())
        table = "\n".join(line for line in reference.group(1).splitlines() if line.startswith("|"))
        if not table:
            failures.append(f"{guide}: “What a method can read” has no table")
        for name in sorted(set(re.findall(r"\banot_\w+(?= ?\()", table))):
            if not re.search(r"\b" + name + r"\b", everything):
                failures.append(f"{guide}: “What a method can read” names {name}(), which no example calls")

    for failure in failures:
        print(failure, file=sys.stderr)
    if not failures:
        print(f"{len(blocks)} c blocks of {guide} found in {len(examples)} examples")
    return 1 if failures else 0


if __name__ == "__main__":
    if len(sys.argv) < 3:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    sys.exit(main(sys.argv[1], sys.argv[2:]))
