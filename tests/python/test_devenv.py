"""Commands of the README and the guides work from where the user stands:
`meson devenv -C build -w .` keeps the user's directory, and an interpreter
without PyGObject is told so, with the fix, instead of failing with "module
'gi' has no attribute 'require_version'"."""
import os
import shutil
import subprocess
import sys

import pytest

BUILD_ROOT = os.path.dirname(os.environ["ANOT_TEST_BUILDDIR"])


def test_interpreter_without_pygobject_is_told_the_fix():
    # -S leaves out site-packages, where PyGObject lives: Debian's interpreter
    # then looks like pyenv's or conda's, with only anot's gi/overrides on
    # PYTHONPATH.
    run = subprocess.run([sys.executable, "-S", "-c",
                          "import gi; gi.require_version('Anot', '1.0')"],
                         capture_output=True, text=True)
    assert run.returncode == 1
    assert "ImportError" in run.stderr and "has no PyGObject" in run.stderr
    assert sys.executable in run.stderr
    assert "python3-gi" in run.stderr and "pip install PyGObject" in run.stderr
    assert "require_version" not in run.stderr.splitlines()[-1].split(":")[0]


def test_the_real_pygobject_is_used():
    """With PyGObject installed, gi is PyGObject's package, and anot's
    overrides directory is part of gi.overrides."""
    import gi
    import gi.overrides

    ours = os.path.realpath(os.path.join(os.environ["ANOT_TEST_SRCDIR"], "..", "bindings",
                                         "python", "gi"))
    assert os.path.realpath(os.path.dirname(gi.__file__)) != ours
    assert callable(gi.require_version)
    assert os.path.join(ours, "overrides") in map(os.path.realpath, gi.overrides.__path__)


def test_devenv_keeps_the_users_directory(tmp_path):
    meson = shutil.which("meson")
    if meson is None:
        pytest.skip("meson is not on PATH")
    (tmp_path / "scripts").mkdir()
    (tmp_path / "scripts" / "my-method.py").write_text(
        "import os\n"
        "import gi\n"
        "gi.require_version('Anot', '1.0')\n"
        "from gi.repository import Anot\n"
        "ds = Anot.Dataset.load(os.path.join(os.environ['ANOT_DATA_DIR'], 'demo'))\n"
        "Anot.Experiment(ds, 'bm25', candidates=5, limit=2, out='results').run_blocking()\n"
        "print(os.getcwd())\n")
    run = subprocess.run([meson, "devenv", "-C", BUILD_ROOT, "-w", ".", sys.executable,
                          "scripts/my-method.py"], cwd=tmp_path, capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip().splitlines()[-1] == str(tmp_path)
    assert (tmp_path / "results" / "bm25_demo" / "clean" / "run_1" / "results_5.jsonl").is_file()
