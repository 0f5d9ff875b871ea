"""Python method files in anot-run: --plugin, ANOT_PLUGIN_PATH, --list,
shards and merge, resume, the CLI's features, and the request deadline.

anot-run embeds the interpreter through the Python loader plugin
(plugins/loaders/python); these tests run the real anot-run on files
written as docs/writing-a-method-in-python.md shows."""
import json
import os
import shutil
import subprocess

import pytest
from gi.repository import Anot

SRC = os.environ["ANOT_TEST_SRCDIR"]
PLUGIN_DIR = os.path.join(SRC, "python-plugin")
MOST_REVIEWED = os.path.join(PLUGIN_DIR, "most_reviewed.py")
LISTWISE = os.path.join(PLUGIN_DIR, "listwise.py")
NEVER = os.path.join(SRC, "python-plugin-hang", "never.py")
SLOW_PLUGIN = os.path.join(os.environ["ANOT_TEST_BUILDDIR"], "slow-plugin")


def anot_run(*args, env=None, check=True, timeout=240):
    full_env = dict(os.environ)
    full_env.update(env or {})
    process = subprocess.run([os.environ["ANOT_RUN"], *[str(a) for a in args]], env=full_env,
                             capture_output=True, text=True, timeout=timeout)
    if check:
        assert process.returncode == 0, process.stdout + process.stderr
    return process


def rows(directory, n=10, run=1, attack="clean"):
    path = os.path.join(directory, attack, f"run_{run}", f"results_{n}.jsonl")
    with open(path) as f:
        return [json.loads(line) for line in f]


def config(directory, run=1, attack="clean"):
    with open(os.path.join(directory, attack, f"run_{run}", "config.json")) as f:
        return json.load(f)["anot"]


def rankings(result_rows):
    return {r["request_id"]: r["pred_indices"] for r in result_rows}


@pytest.fixture(scope="module")
def in_process():
    """The same files, loaded into this process through the registry."""
    registry = Anot.Registry.get_default()
    assert registry.load_plugin(MOST_REVIEWED)
    assert registry.load_plugin(LISTWISE)
    return registry


def test_list_marks_python_methods(tmp_path):
    listing = anot_run("--list", "--plugin", MOST_REVIEWED).stdout
    line = next(l for l in listing.splitlines() if "file-most-reviewed" in l)
    assert f"[Python: {MOST_REVIEWED}]" in line
    assert "Ranks by number of reviews" in line
    # C methods are marked with their module.
    bm25 = next(l for l in listing.splitlines() if l.strip().startswith("bm25"))
    assert "[Python" not in bm25 and "[C: " in bm25 and bm25.endswith("libanot-method-bm25.so]")
    # The library's own tools are built in.
    assert "[built in]" in next(l for l in listing.splitlines() if l.strip().startswith("keys"))


FAKE_BM25 = """
import gi
gi.require_version("Anot", "1.0")
from gi.repository import Anot

@Anot.register_method("bm25", options=[Anot.MethodOption.new_int("depth", 1, 9, 3, "x")])
class FakeBm25(Anot.PyMethod):
    def rank(self, query, candidates, k, context):
        return Anot.Ranking.new_from_indices(list(range(len(candidates))))
"""


def test_a_plugin_does_not_shadow_a_registered_name(tmp_path):
    """A method file defining bm25 is refused, both origins named; the
    built-in bm25 and its options stay.  --plugin-override replaces it."""
    fake = tmp_path / "fake_bm25.py"
    fake.write_text(FAKE_BM25)
    refused = anot_run("--plugin", fake, "-m", "bm25", "--limit", "1", "-o", tmp_path, check=False)
    assert refused.returncode == 2
    assert str(fake) in refused.stderr and "libanot-method-bm25.so" in refused.stderr
    assert "--plugin-override" in refused.stderr
    assert not (tmp_path / "bm25_demo").exists()
    # On the plugin path too: the file is reported, the C method stays, with its options.
    plugins = tmp_path / "plugins"
    plugins.mkdir()
    shutil.copy(fake, plugins / "fake_bm25.py")
    env = {"ANOT_PLUGIN_PATH": os.environ["ANOT_PLUGIN_PATH"] + os.pathsep + str(plugins)}
    listing = anot_run("--list", env=env)
    bm25 = next(l for l in listing.stdout.splitlines() if l.strip().startswith("bm25"))
    assert bm25.endswith("libanot-method-bm25.so]")
    assert str(plugins / "fake_bm25.py") in listing.stderr and "libanot-method-bm25.so" in listing.stderr
    anot_run("-m", "bm25", "-O", "bm25.k1=1.5", "--limit", "1", "-o", tmp_path, "--name", "c", env=env)
    # Asked for explicitly, the file's bm25 replaces it.
    listing = anot_run("--plugin-override", fake, "--list").stdout
    assert f"[Python: {fake}]" in next(l for l in listing.splitlines() if l.strip().startswith("bm25"))
    anot_run("--plugin-override", fake, "-m", "bm25", "--limit", "1", "-o", tmp_path, "--name", "py")
    assert config(tmp_path / "py")["method_plugin"]["file"] == str(fake)


def test_cli_rankings_equal_the_python_api(philly, philly_dir, in_process, tmp_path):
    """Done when: a method file from the guide runs from anot-run --plugin on
    philly with the same rankings as the Python API."""
    for method, options in (("file-most-reviewed", {}), ("file-noisy-stars", {"file-noisy-stars.noise": 1.0})):
        anot_run("--plugin", MOST_REVIEWED, "-m", method, "--data", philly_dir, "-n", "10",
                 "-o", tmp_path, "--name", "cli-" + method,
                 *[a for key, value in options.items() for a in ("-O", f"{key}={value}")])
        experiment = Anot.Experiment(philly, method, candidates=10, out=str(tmp_path),
                                     name="api-" + method, method_options=options)
        experiment.run_blocking()
        cli = rows(tmp_path / ("cli-" + method))
        assert len(cli) == len(philly.requests) == 100
        assert all(r.get("error") is None for r in cli)
        assert rankings(cli) == rankings(experiment.result_rows(n_candidates=10))


def test_config_records_the_file_and_its_hash(tmp_path):
    plugin = tmp_path / "mine.py"
    shutil.copy(MOST_REVIEWED, plugin)
    anot_run("--plugin", plugin, "-m", "file-most-reviewed", "--limit", "3", "-o", tmp_path,
             "--name", "recorded")
    record = config(tmp_path / "recorded")["method_plugin"]
    import hashlib
    assert record == {"file": str(plugin), "language": "Python",
                      "sha256": hashlib.sha256(plugin.read_bytes()).hexdigest()}
    # A C method records its module, and a resume refuses a rebuilt one.
    module = tmp_path / "modules" / "libanot-method-bm25.so"
    module.parent.mkdir()
    bm25 = next(os.path.join(d, f) for d, _, fs in os.walk(os.environ["ANOT_PLUGIN_PATH"].split(os.pathsep)[0])
                for f in fs if f == "libanot-method-bm25.so")
    shutil.copy(bm25, module)
    env = {"ANOT_PLUGIN_PATH": str(module.parent) + os.pathsep + os.environ["ANOT_PLUGIN_PATH"]}
    anot_run("-m", "bm25", "--limit", "4", "-o", tmp_path, "--name", "c", env=env)
    assert config(tmp_path / "c")["method_plugin"] == {
        "file": str(module), "language": "C", "sha256": hashlib.sha256(module.read_bytes()).hexdigest()}
    results = tmp_path / "c" / "clean" / "run_1" / "results_10.jsonl"
    results.write_text("".join(results.read_text().splitlines(True)[:2]))   # as if killed
    with open(module, "ab") as f:
        f.write(b"\0rebuilt")                      # a rebuild: other bytes, same behaviour
    refused = anot_run("--resume", tmp_path / "c", env=env, check=False)
    assert refused.returncode == 2, refused.stderr
    assert f"the method module {module} was rebuilt since the run started" in refused.stderr


def test_plugin_path_directory_without_option(tmp_path):
    plugins = tmp_path / "plugins"
    plugins.mkdir()
    shutil.copy(MOST_REVIEWED, plugins / "most_reviewed.py")
    # A helper module beside it is imported by method files, not loaded.
    (plugins / "_helper.py").write_text("raise RuntimeError('not a method file')\n")
    env = {"ANOT_PLUGIN_PATH": os.environ["ANOT_PLUGIN_PATH"] + os.pathsep + str(plugins)}
    listing = anot_run("--list", env=env)
    assert f"[Python: {plugins / 'most_reviewed.py'}]" in listing.stdout
    assert "_helper" not in listing.stderr
    run = anot_run("-m", "file-most-reviewed", "--limit", "4", "-o", tmp_path, "--name", "path",
                   env=env)
    assert len(rows(tmp_path / "path")) == 4


def test_plugin_directory_option_and_c_module(tmp_path):
    """--plugin takes a directory of method files, and a C module."""
    run = anot_run("--plugin", PLUGIN_DIR, "--plugin", SLOW_PLUGIN, "--list")
    assert "file-listwise" in run.stdout and "file-noisy-stars" in run.stdout
    assert "test-slow" in run.stdout


def test_shards_merge_into_the_single_run(tmp_path):
    """Two shards of a Python method, merged, are the single run's rows."""
    common = ["--plugin", MOST_REVIEWED, "-m", "file-noisy-stars", "-n", "5,10", "--runs", "2",
              "-o", tmp_path]
    anot_run(*common, "--name", "single")
    for i in range(2):
        anot_run(*common, "--shard", f"{i}/2", "--name", f"shard{i}")
    # Merging needs no --plugin: nothing is ranked again.
    anot_run("merge", tmp_path / "merged", tmp_path / "shard0", tmp_path / "shard1")
    for run in (1, 2):
        for n in (5, 10):
            strip = lambda rs: sorted((r["request_id"], r["pred_indices"]) for r in rs)
            assert strip(rows(tmp_path / "merged", n, run)) == strip(rows(tmp_path / "single", n, run))
    assert config(tmp_path / "merged")["method_plugin"] == config(tmp_path / "single")["method_plugin"]


def test_merge_refuses_shards_of_another_file(tmp_path):
    plugin = tmp_path / "mine.py"
    shutil.copy(MOST_REVIEWED, plugin)
    common = ["--plugin", plugin, "-m", "file-most-reviewed", "--limit", "4", "-o", tmp_path]
    anot_run(*common, "--shard", "0/2", "--name", "s0")
    plugin.write_text(plugin.read_text() + "\n# changed\n")
    anot_run(*common, "--shard", "1/2", "--name", "s1")
    merge = anot_run("merge", tmp_path / "m", tmp_path / "s0", tmp_path / "s1", check=False)
    assert merge.returncode != 0
    assert str(plugin) in merge.stderr and "different versions" in merge.stderr


def test_merge_agrees_with_resume_on_the_method_file(tmp_path):
    """merge refuses a method file edited after the shards ran, as resume
    does; with the file moved away it needs no method (nothing is ranked)
    and says nothing of resuming."""
    plugin = tmp_path / "mine.py"
    shutil.copy(MOST_REVIEWED, plugin)
    common = ["--plugin", plugin, "-m", "file-most-reviewed", "--limit", "4", "-o", tmp_path]
    anot_run(*common, "--shard", "0/2", "--name", "s0")
    anot_run(*common, "--shard", "1/2", "--name", "s1")
    shards = [tmp_path / "s0", tmp_path / "s1"]
    plugin.write_text(plugin.read_text() + "\n# edited after the shards ran\n")
    refused = anot_run("merge", tmp_path / "m", *shards, check=False)
    assert refused.returncode != 0
    assert f"its method file {plugin} changed since the shards ran" in refused.stderr
    assert "Cannot resume" not in refused.stderr
    assert not (tmp_path / "m").exists()
    plugin.unlink()
    merged = anot_run("merge", tmp_path / "m", *shards, check=False)
    assert merged.returncode == 0, merged.stderr
    assert "Cannot resume" not in merged.stderr
    assert len(rows(tmp_path / "m")) == 4
    assert config(tmp_path / "m")["method_plugin"] == config(tmp_path / "s0")["method_plugin"]


def test_resume_loads_the_file_and_refuses_a_changed_one(tmp_path):
    plugin = tmp_path / "mine.py"
    shutil.copy(MOST_REVIEWED, plugin)
    anot_run("--plugin", plugin, "-m", "file-most-reviewed", "--limit", "6", "-o", tmp_path,
             "--name", "r")
    results = tmp_path / "r" / "clean" / "run_1" / "results_10.jsonl"
    lines = results.read_text().splitlines(True)
    results.write_text("".join(lines[:3]))          # as if killed after three rows
    # The resume loads the recorded file by itself.
    resumed = anot_run("--resume", tmp_path / "r")
    assert "Ran 3 requests (3 already done)" in resumed.stdout
    assert len(rows(tmp_path / "r")) == 6

    results.write_text("".join(lines[:3]))
    plugin.write_text(plugin.read_text() + "\n# edited\n")
    refused = anot_run("--resume", tmp_path / "r", check=False)
    assert refused.returncode == 2
    assert f"the method file {plugin} changed since the run started" in refused.stderr


def test_broken_file_names_file_and_line(tmp_path):
    plugin = tmp_path / "broken.py"
    plugin.write_text("import gi\n\nundefined_name\n")
    run = anot_run("--plugin", plugin, "-m", "x", check=False)
    assert run.returncode == 2
    assert f"{plugin}: line 3: NameError" in run.stderr
    empty = tmp_path / "empty.py"
    empty.write_text("x = 1\n")
    run = anot_run("--plugin", empty, "--list", check=False)
    assert run.returncode == 2 and "registered no method" in run.stderr
    missing = anot_run("--plugin", tmp_path / "nowhere.py", "--list", check=False)
    assert missing.returncode == 2 and "no such file" in missing.stderr


def test_interpreter_without_pygobject_is_named(tmp_path):
    """pyenv's Python (no PyGObject) as the embedded interpreter's home."""
    homes = [os.path.join(root, v) for root in [os.path.expanduser("~/.pyenv/versions")]
             if os.path.isdir(root) for v in sorted(os.listdir(root)) if v.startswith("3.11")]
    if not homes:
        pytest.skip("no Python 3.11 other than Debian's to point PYTHONHOME at")
    run = anot_run("--plugin", MOST_REVIEWED, "--list", env={"PYTHONHOME": homes[0]},
                   check=False)
    assert run.returncode == 2
    assert "cannot use PyGObject" in run.stderr and "python3-gi" in run.stderr
    assert homes[0] in run.stderr


def test_cli_features_reach_a_python_method(tmp_path):
    """--scaling, robustness with attacks, and estimate."""
    anot_run("--plugin", MOST_REVIEWED, "-m", "file-most-reviewed", "--scaling", "--limit", "2",
             "-o", tmp_path, "--name", "scaling")
    assert len(rows(tmp_path / "scaling", n=20)) == 2
    robust = anot_run("robustness", "--plugin", MOST_REVIEWED, "-m", "file-most-reviewed",
                      "--attack", "typo_10", "--limit", "2", "-o", tmp_path)
    assert "typo_10" in robust.stdout
    estimate = anot_run("estimate", "--plugin", MOST_REVIEWED, "-m", "file-most-reviewed",
                        "--limit", "2", "--json")
    assert json.loads(estimate.stdout)["method"] == "file-most-reviewed"


@pytest.fixture
def fake_llm(tmp_path):
    path = os.environ.get("ANOT_FAKE_LLM")
    if not path:
        pytest.skip("ANOT_FAKE_LLM is not set")
    rules = tmp_path / "rules.json"
    rules.write_text(json.dumps({"rules": [{"match": "Answer with", "reply": "3, 1, 2, 5, 4"}]}))
    process = subprocess.Popen([path, "--rules", str(rules), "--batch-delay", "100"],
                               stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        yield process.stdout.readline().strip()
    finally:
        process.terminate()
        process.wait()


def test_llm_method_file_with_budget_and_batch(demo, fake_llm, in_process, tmp_path):
    """An LLM method file: direct calls with --max-cost, and --batch."""
    llm = ["--backend", "openai", "--base-url", fake_llm + "/v1", "--model", "gpt-4o-mini"]
    anot_run("--plugin", LISTWISE, "-m", "file-listwise", *llm, "-n", "5", "--limit", "4",
             "--max-cost", "10", "-o", tmp_path, "--name", "direct", "-j", "4")
    direct = rows(tmp_path / "direct", n=5)
    assert all(r["calls"] == 1 and r["pred_indices"][:3] == [3, 1, 2] or r.get("error") is None
               for r in direct)
    experiment = Anot.Experiment(demo, "file-listwise", backend="openai",
                                 base_url=fake_llm + "/v1", model="gpt-4o-mini", candidates=5,
                                 limit=4, out=str(tmp_path), name="api")
    experiment.run_blocking()
    assert rankings(direct) == rankings(experiment.result_rows(n_candidates=5))

    anot_run("--plugin", LISTWISE, "-m", "file-listwise", *llm, "-n", "5", "--limit", "4",
             "--batch", "-o", tmp_path, "--name", "batch", "-j", "4")
    assert rankings(rows(tmp_path / "batch", n=5)) == rankings(direct)


@pytest.mark.parametrize("plugin,method,option", [
    (NEVER, "file-never", "file-never.hang"),
    (SLOW_PLUGIN, "test-slow", "test-slow.hang"),
])
def test_a_method_that_never_finishes_costs_its_request(plugin, method, option, tmp_path):
    """Python and C methods that never complete two requests, even when
    cancelled: the run ends, those rows name the deadline, the rest ran."""
    delay = ["-O", "test-slow.delay-ms=5"] if method == "test-slow" else []
    run = anot_run("--plugin", plugin, "-m", method, "-O", f"{option}=R01,R03", *delay,
                   "--limit", "6", "-j", "2",
                   "--request-timeout", "1", "-o", tmp_path, "--name", "hang", timeout=60)
    result = {r["request_id"]: r for r in rows(tmp_path / "hang")}
    assert len(result) == 6
    for request_id in ("R01", "R03"):
        assert result[request_id]["error"].startswith("ANOT_ERROR_METHOD_TIMEOUT: ")
        assert "deadline of 1 s (--request-timeout)" in result[request_id]["error"]
        assert result[request_id]["pred_indices"] == []
    assert all(r.get("error") is None and len(r["pred_indices"]) == 5
               for i, r in result.items() if i not in ("R01", "R03"))
    assert "Ran 6 requests" in run.stdout


def test_request_timeout_from_python(demo, tmp_path):
    """The deadline from the Python API: Registry.load_plugin() and the
    request_timeout keyword."""
    assert Anot.Registry.get_default().load_plugin(NEVER)
    experiment = Anot.Experiment(demo, "file-never", candidates=5, limit=3, request_timeout=1,
                                 method_options={"file-never.hang": "R02"}, out=str(tmp_path))
    experiment.run_blocking()
    result = {r["request_id"]: r for r in experiment.result_rows()}
    assert result["R02"]["error"].startswith("ANOT_ERROR_METHOD_TIMEOUT: ")
    assert result["R01"].get("error") is None and result["R03"].get("error") is None
    origin, language = Anot.Registry.get_default().get_origin(Anot.METHOD_EXTENSION_POINT_NAME,
                                                             "file-never")
    assert (origin, language) == (NEVER, "Python")


def test_ctrl_c_abandons_a_method_that_ignores_it(tmp_path):
    """Interrupted, a run waits a few seconds for a method that ignores the
    cancellation, then stops without a row for its request (a resume runs
    it again)."""
    import signal
    import time
    process = subprocess.Popen([os.environ["ANOT_RUN"], "--plugin", NEVER, "-m", "file-never",
                                "-O", "file-never.hang=R01", "--limit", "4", "--request-timeout", "0",
                                "-o", str(tmp_path), "--name", "int"],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    results = tmp_path / "int" / "clean" / "run_1" / "results_10.jsonl"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if results.exists() and len(results.read_text().splitlines()) == 3:
            break
        time.sleep(0.1)
    assert len(results.read_text().splitlines()) == 3, "the other requests did not finish"
    process.send_signal(signal.SIGINT)
    start = time.monotonic()
    stdout, stderr = process.communicate(timeout=60)
    assert process.returncode == 130, stdout + stderr
    assert time.monotonic() - start < 30
    assert sorted(r["request_id"] for r in rows(tmp_path / "int")) == ["R02", "R03", "R04"]


def test_estimate_does_not_hang_on_a_method_that_never_finishes():
    run = anot_run("estimate", "--plugin", NEVER, "-m", "file-never", "-O", "file-never.hang=R02",
                   "--limit", "3", "--request-timeout", "1", "--json", timeout=60)
    assert json.loads(run.stdout)["total"]["incomplete"] == 1
