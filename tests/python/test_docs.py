"""The Python examples of the guides run as written.

Every ```python block of a guide is executed, in order, in one namespace,
in a scratch directory (so `out="results"` lands there).  Blocks that are
fragments, not programs, are marked ```py instead.
"""
import json
import os
import re
import warnings

import pytest

DOCS = os.path.join(os.environ["ANOT_TEST_SRCDIR"], "..", "docs")


def python_blocks(name):
    with open(os.path.join(DOCS, name)) as f:
        return re.findall(r"^```python\n(.*?)^```", f.read(), re.S | re.M)


@pytest.mark.parametrize("guide", [
    "writing-a-method-in-python.md",
    "writing-a-method-plugin.md",
    "running-experiments.md",
    "getting-started.md",
])
def test_guide_examples_run(guide, tmp_path, monkeypatch, capsys):
    blocks = python_blocks(guide)
    assert blocks, f"{guide} has no python examples"
    monkeypatch.chdir(tmp_path)
    namespace = {"__name__": "__guide__"}
    for i, block in enumerate(blocks):
        code = compile(block, f"{guide}[python block {i + 1}]", "exec")
        exec(code, namespace)  # the guide's own text, from the source tree
    assert capsys.readouterr().out  # the examples print what they show


def reference_table(name):
    with open(os.path.join(DOCS, name)) as f:
        section = re.search(r"^## What a method can read\n(.*?)(?=^## |\Z)", f.read(), re.S | re.M)
    assert section, f"{name} has no section “What a method can read”"
    return [line for line in section.group(1).splitlines() if line.startswith("|")]


def test_reference_tables_agree():
    python = reference_table("writing-a-method-in-python.md")
    assert len(python) > 10
    assert python == reference_table("writing-a-method-plugin.md")


def python_names(row):
    """The attribute names a row's Python column uses: `item.get_hours("Sunday")`
    gives get_hours, `context.complete_finish(result).get_text()` both calls."""
    column = row.split("|")[3]
    names = set()
    for span in re.findall(r"`([^`]+)`", column):
        if "(" not in span and not re.match(r"[a-z]\w*\.", span):
            continue  # a type name or a value, not something to call or read
        while re.search(r"\([^()]*\)", span):
            span = re.sub(r"\([^()]*\)", "", span)
        names.update(part for part in span.split(".")[1:] if part)
    return names


def test_reference_names_are_used():
    """Each Python name of the table appears in an executed block of the guide."""
    code = "\n".join(python_blocks("writing-a-method-in-python.md"))
    rows = reference_table("writing-a-method-in-python.md")[2:]
    unused = {name for row in rows for name in python_names(row)
              if not re.search(r"\." + re.escape(name) + r"\b", code)}
    assert not unused, f"the table names {sorted(unused)}, which no python block uses"


def test_notebook_is_valid():
    """The quickstart notebook validates against its nbformat schema, cell
    ids included (without them nbformat warns and Jupyter rewrites the file)."""
    nbformat = pytest.importorskip("nbformat")
    with open(os.path.join(DOCS, "examples", "quickstart.ipynb"), encoding="utf-8") as f:
        raw = json.load(f)
    ids = [cell.get("id") for cell in raw["cells"]]
    assert all(ids) and len(set(ids)) == len(ids), ids
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        nbformat.validate(nbformat.from_dict(raw))
