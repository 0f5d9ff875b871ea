"""The Python examples of the guides run as written.

Every ```python block of a guide is executed, in order, in one namespace,
in a scratch directory (so `out="results"` lands there).  Blocks that are
fragments, not programs, are marked ```py instead.
"""
import os
import re

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
