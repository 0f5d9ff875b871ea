"""Anot.Results, Anot.compare() and Anot.write_report() from Python."""

import json
import os
import subprocess

import gi
import pytest
from gi.repository import Anot, GLib


@pytest.fixture(scope="module")
def experiments(demo, tmp_path_factory):
    """bm25 and random (two runs) on the demo benchmark at N = 10 and 20."""
    out = tmp_path_factory.mktemp("results")
    for method, runs in (("bm25", 1), ("random", 2)):
        exp = Anot.Experiment(demo, method, candidates=[10, 20], runs=runs, out=str(out))
        assert exp.run()
    return out


def read_rows(path):
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


def test_load_rows(experiments):
    results = Anot.Results.load(experiments / "bm25_demo", experiments / "random_demo")
    assert isinstance(results, Anot.Results)
    rows = results.rows()
    # 30 requests × 2 N × (1 + 2 runs)
    assert len(rows) == len(results) == 180
    assert {r["method"] for r in rows} == {"bm25", "random"}
    on_disk = read_rows(experiments / "bm25_demo" / "clean" / "run_1" / "results_10.jsonl")
    mine = [r for r in rows if r["method"] == "bm25" and r["n_candidates"] == 10]
    assert [r["request_id"] for r in mine] == [r["request_id"] for r in on_disk]
    assert [r["gold_rank"] for r in mine] == [r["gold_rank"] for r in on_disk]
    assert all(r["hits_at_1"] == (r["gold_rank"] == 1) for r in rows)
    runs = results.runs()
    assert len(runs) == 3
    assert {r["dataset_checksum"] for r in runs} == {demo_checksum(experiments)}
    assert sorted(r["run_seed"] for r in runs if r["method"] == "random") == ["43", "44"]


def demo_checksum(experiments):
    with open(experiments / "bm25_demo" / "clean" / "run_1" / "config.json") as f:
        return json.load(f)["anot"]["dataset_checksum"]


def test_trace(experiments):
    results = Anot.Results.load(experiments / "random_demo")
    trace = results.trace(0)
    assert trace["method"] == "random"
    assert trace["n_candidates"] == results.rows()[0]["n_candidates"]


def test_dataframe(experiments):
    pandas = pytest.importorskip("pandas")
    frame = Anot.Results.load(experiments).to_dataframe()
    assert isinstance(frame, pandas.DataFrame)
    assert len(frame) == 180


def test_compare(experiments):
    comparison = Anot.compare(experiments, baseline="bm25", resamples=2000)
    rows = Anot.Results.load(experiments).rows()
    for cell in comparison["cells"]:
        mine = [r for r in rows if r["method"] == cell["method"] and r["n_candidates"] == cell["n_candidates"]]
        hits = cell["hits_at_1"]
        # With every request in every run, the pooled mean is the plain mean.
        assert hits["mean"] == pytest.approx(sum(r["hits_at_1"] for r in mine) / len(mine))
        assert hits["lower"] <= hits["mean"] <= hits["upper"]
    paired = comparison["paired"]
    assert [(p["method"], p["baseline"], p["n_candidates"]) for p in paired] == [
        ("random", "bm25", 10), ("random", "bm25", 20)]
    assert all(p["runs"] == 1 and p["pairs"] == 30 for p in paired)
    # The same seed gives the same intervals.
    assert Anot.compare(experiments, baseline="bm25", resamples=2000) == comparison


def test_compare_refuses_other_seeds(demo, experiments, tmp_path):
    exp = Anot.Experiment(demo, "random", candidates=10, seed=7, out=str(tmp_path), name="random_seed7")
    assert exp.run()
    with pytest.raises(GLib.Error) as error:
        Anot.compare([experiments / "bm25_demo", tmp_path / "random_seed7"])
    assert error.value.matches(Anot.error_quark(), Anot.Error.NOT_COMPARABLE)
    assert "seed differs" in error.value.message


def test_compare_and_report_over_request_subsets(demo, experiments, tmp_path):
    """An expensive method on 5 of the 30 requests: compare and report work,
    each table over its own requests, the pairs over the 5, counted."""
    exp = Anot.Experiment(demo, "random", candidates=10, limit=5, out=str(tmp_path), name="random_5")
    assert exp.run()
    dirs = [experiments / "bm25_demo", tmp_path / "random_5"]
    comparison = Anot.compare(dirs, baseline="bm25", resamples=200)
    requests = {(c["method"], c["n_candidates"]): c["requests"] for c in comparison["cells"]}
    assert requests == {("bm25", 10): 30, ("bm25", 20): 30, ("random", 10): 5}
    (pair,) = comparison["paired"]
    assert (pair["method"], pair["n_candidates"], pair["pairs"], pair["requests"]) == ("random", 10, 5, 5)
    assert pair["unpaired"] == {"method": 0, "baseline": 25}
    run = subprocess.run([os.environ["ANOT_RUN"], "compare", *map(str, dirs), "--baseline", "bm25",
                          "--resamples", "200"], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    assert ("random against bm25 at N=10: paired on the 5 (request, run) cells both ran; "
            "0 only random ran, 25 only bm25") in run.stdout
    report = subprocess.run([os.environ["ANOT_RUN"], "report", *map(str, dirs), "-o",
                             str(tmp_path / "report.html"), "--resamples", "200"],
                            capture_output=True, text=True)
    assert report.returncode == 0, report.stderr


def test_write_report(experiments, tmp_path):
    path = Anot.write_report(experiments, tmp_path / "report.html", baseline="bm25", title="T & <b>",
                             resamples=200)
    html = open(path, encoding="utf-8").read()
    assert html.startswith("<!DOCTYPE html>")
    assert "<title>T &amp; &lt;b&gt;</title>" in html
    assert "default-src 'none'" in html
    assert html.count('<circle class="pt"') == 2 * 2 * 3   # 2 methods × N=10, 20 × 3 plots
    assert 'id="anot-data"' in html


def test_statistics_from_python():
    ok, mean, lower, upper = Anot.Comparison.bootstrap_interval([1.0] * 20, 1000, 42, 0.95)
    assert ok and (mean, lower, upper) == (1.0, 1.0, 1.0)
    ok, mean, lower, upper = Anot.Comparison.bootstrap_interval([1.0, 0.0] * 50, 10000, 42, 0.95)
    assert mean == 0.5 and 0.38 < lower < 0.45 and 0.55 < upper < 0.62
    # Exact binomial: 2 * (1 + 10 + 45) / 1024
    assert Anot.Comparison.mcnemar_p(2, 8) == pytest.approx(0.109375, abs=1e-15)
    assert Anot.Comparison.cell_seed(42, "a") != Anot.Comparison.cell_seed(42, "b")


def test_no_llm_named_for_runs_without_calls(experiments):
    """bm25 and random call no LLM: neither config.json nor Results name the
    configured default model (tests/python/test_c_plugin.py checks that an
    LLM method's runs do)."""
    with open(experiments / "bm25_demo" / "clean" / "run_1" / "config.json") as f:
        assert json.load(f)["llm_config"] == {"provider": None, "model": None}
    runs = Anot.Results.load(experiments).runs()
    assert len(runs) == 3
    assert all(run["provider"] is None and run["model"] is None for run in runs)
    with open(experiments / "random_demo" / "clean" / "summary.json") as f:
        assert json.load(f)["model"] is None


@pytest.fixture(scope="module")
def incomplete(experiments, tmp_path_factory):
    """bm25's results with three requests the infrastructure failed (one
    row from before "error_class" existed, classified by its error code)
    and two whose prompts were shrunk to the context window."""
    import shutil
    out = tmp_path_factory.mktemp("incomplete")
    shutil.copytree(experiments / "bm25_demo", out / "bm25_demo")
    shutil.copytree(experiments / "random_demo", out / "random_demo")
    path = out / "bm25_demo" / "clean" / "run_1" / "results_10.jsonl"
    rows = read_rows(path)
    for i, row in enumerate(rows[:3]):
        row["error"] = "ANOT_ERROR_LLM_CONNECTION: Cannot reach the server"
        if i > 0:
            row["error_class"] = "infrastructure"
    rows[3]["error"] = "ANOT_ERROR_METHOD_FAILED: the answer is not a ranking"
    rows[3]["error_class"] = "method"
    rows[4]["context_fit"] = {"reviews_dropped": 60, "reviews": 80, "calls_fitted": 1}
    rows[5]["context_fit"] = {"reviews_dropped": 20, "reviews": 80, "calls_fitted": 2}
    with open(path, "w") as f:
        for row in rows:
            f.write(json.dumps(row) + "\n")
    return out, rows


def test_unscored_rows(incomplete):
    out, on_disk = incomplete
    results = Anot.Results.load(out / "bm25_demo")
    rows = [r for r in results.rows() if r["n_candidates"] == 10]
    unscored = [r for r in rows if not r["scored"]]
    assert [r["request_id"] for r in unscored] == [r["request_id"] for r in on_disk[:3]]
    assert all(r["error_class"] == "infrastructure" and r["hits_at_1"] is None for r in unscored)
    failed = [r for r in rows if r["error_class"] == "method"]
    assert len(failed) == 1 and failed[0]["scored"] and failed[0]["hits_at_1"] is not None
    shrunk = {r["request_id"]: r["reviews_dropped_share"] for r in rows if r["shrunk"]}
    assert shrunk == {on_disk[4]["request_id"]: 0.75, on_disk[5]["request_id"]: 0.25}

    # Every row as an Anot.Result, and the metrics of them all.
    gi.require_version("Json", "1.0")
    from gi.repository import Json
    metrics = Anot.Metrics.new(5)
    for row in on_disk:
        parser = Json.Parser()
        parser.load_from_data(json.dumps(row), -1)
        result = Anot.Result.new_from_json(parser.get_root().get_object())
        metrics.add_result(result)
        if row is on_disk[0] or row is on_disk[1]:
            assert result.get_error_class() == "infrastructure"
            assert not result.is_scored()
        if row is on_disk[4]:
            assert result.get_context_fit() == (True, 60, 80, 1)
    scored = on_disk[3:]
    assert metrics.get_unscored() == 3
    assert metrics.get_total() == len(scored)
    assert metrics.get_hits_at(1) == pytest.approx(sum(r["gold_rank"] == 1 for r in scored) / len(scored))
    assert metrics.get_shrunk_share() == pytest.approx(2 / len(scored))
    assert metrics.get_dropped_share() == pytest.approx(1.0 / len(scored))
    stats = metrics.to_dict()
    assert stats["unscored"] == 3
    assert stats["context_fit"]["shrunk"] == pytest.approx(2 / len(scored))


def test_compare_unscored(incomplete):
    out, on_disk = incomplete
    comparison = Anot.compare(Anot.Results.load(out), baseline="random", resamples=100)
    cell = next(c for c in comparison["cells"]
                if c["method"] == "bm25" and c["n_candidates"] == 10)
    assert cell["unscored"] == 3
    assert cell["requests"] == len(on_disk) - 3
    scored = on_disk[3:]
    assert cell["hits_at_1"]["mean"] == pytest.approx(sum(r["gold_rank"] == 1 for r in scored) / len(scored))
    assert cell["shrunk"] == pytest.approx(2 / len(scored))
    pair = next(p for p in comparison["paired"]
                if p["method"] == "bm25" and p["n_candidates"] == 10)
    # random's run 1 is paired with bm25's only run, on the cells both scored.
    assert pair["excluded"] == 3
    assert pair["pairs"] == len(on_disk) - 3
    assert any("3 of 30 rows unscored" in w for w in comparison["warnings"])
    assert any("left out" in w for w in comparison["warnings"])
    assert any("shrunk" in w for w in comparison["warnings"])
