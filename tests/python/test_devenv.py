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


GUIDES = os.path.join(os.environ["ANOT_TEST_SRCDIR"], "..", "docs")
# Blocks that need what a fresh build tree does not give: an installed anot
# (pkg-config), a fake server started by hand, a docs build.
NOT_IN_A_BUILD_TREE = ("pkg-config", "anot-fake-llm", "meson configure")


def sh_blocks(name):
    import re
    with open(os.path.join(GUIDES, name)) as f:
        blocks = re.findall(r"^```sh\n(.*?)^```", f.read(), re.S | re.M)
    return [b for b in blocks if not any(word in b for word in NOT_IN_A_BUILD_TREE)]


def fresh_environment(home):
    """A new terminal's: nothing of the test harness's anot set-up."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("ANOT_", "GI_", "PYTHON")) and k != "LD_LIBRARY_PATH"}
    env["HOME"] = str(home)
    return env


@pytest.mark.parametrize("guide", ["writing-a-method-in-python.md", "writing-a-method-plugin.md"])
def test_guide_commands_run_verbatim_in_devenv(guide, tmp_path):
    """Every shell block of the guides that a build tree can run, run as
    written inside `meson devenv -C build -w .` from a fresh shell: the
    user's ANOT_PLUGIN_PATH adds to the build's plugins (the built-in C
    methods and the Python loader stay)."""
    meson = shutil.which("meson")
    if meson is None:
        pytest.skip("meson is not on PATH")
    philly = os.environ.get("ANOT_PHILLY_DATA", "")
    blocks = sh_blocks(guide)
    assert blocks, f"{guide} has no shell block to run"
    if any("philly_cafes" in b for b in blocks) and not os.path.isdir(philly):
        pytest.skip("the philly_cafes benchmark is absent")
    # Where the guides' commands stand: a directory with `build` in it and
    # the user's method file, beside ../shared/data.
    work = tmp_path / "work"
    work.mkdir()
    os.symlink(BUILD_ROOT, work / "build")
    (tmp_path / "shared" / "data").mkdir(parents=True)
    if os.path.isdir(philly):
        os.symlink(philly, tmp_path / "shared" / "data" / "philly_cafes")
    import re
    with open(os.path.join(GUIDES, "writing-a-method-in-python.md")) as f:
        method = next(b for b in re.findall(r"^```python\n(.*?)^```", f.read(), re.S | re.M)
                      if '@Anot.register_method("most-reviewed"' in b)
    (work / "my_methods.py").write_text("import gi\ngi.require_version('Anot', '1.0')\n"
                                        "from gi.repository import Anot\n\n" + method)
    home = tmp_path / "home"
    home.mkdir()
    for block in blocks:
        lines = block.splitlines()
        # The guide's own `meson devenv -C build -w .` opens the shell the
        # rest is typed in.
        opens_shell = lines[0].strip() == "meson devenv -C build -w ."
        script = "\n".join(lines[1:] if opens_shell else lines)
        run = subprocess.run([meson, "devenv", "-C", "build", "-w", ".", "bash", "-e", "-x", "-c", script],
                             cwd=work, env=fresh_environment(home), capture_output=True, text=True,
                             timeout=600)
        assert run.returncode == 0, f"{guide}:\n{script}\n{run.stdout[-2000:]}\n{run.stderr[-3000:]}"
        assert "Plugin module" not in run.stderr, run.stderr
    if guide == "writing-a-method-plugin.md":
        assert (work / "results" / "example-stars_demo").is_dir()
    else:
        assert (work / "results" / "most-reviewed_philly_cafes").is_dir()
        assert (work / "results" / "most-reviewed_demo").is_dir()
