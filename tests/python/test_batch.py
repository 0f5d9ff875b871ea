"""Batch mode from Python: the `batch` option of an experiment, against the
fake LLM server (a separate process speaking OpenAI's Batch API)."""
import json
import os
import subprocess

import pytest
from gi.repository import Anot


@pytest.fixture
def fake_llm():
    path = os.environ.get("ANOT_FAKE_LLM")
    if not path:
        pytest.skip("ANOT_FAKE_LLM is not set")
    process = subprocess.Popen([path, "--batch-delay", "200"], stdout=subprocess.PIPE,
                               stderr=subprocess.DEVNULL, text=True)
    try:
        url = process.stdout.readline().strip()
        yield url
    finally:
        process.terminate()
        process.wait()


def test_batch_option(demo, fake_llm, tmp_path):
    exp = Anot.Experiment(demo, "cot", backend="openai", base_url=fake_llm + "/v1",
                          model="gpt-4o-mini", candidates=5, limit=3, batch=True,
                          batch_max_size=2, out=str(tmp_path), name="batched")
    exp.run_blocking()
    queue = exp.get_batch_queue()
    assert queue is not None
    # Three calls, two per batch at most.
    assert queue.get_n_submitted() == 2
    assert queue.get_n_lines_sent() == 3
    with open(tmp_path / "batched" / "batches.jsonl") as f:
        events = [json.loads(line)["event"] for line in f]
    assert events.count("submitted") == 2 and events.count("ended") == 2
    rows = exp.get_results(5, 1)
    assert len(rows) == 3
    assert all(row.get_usage().get_calls() == 1 for row in rows)


def test_batch_option_is_checked(demo):
    with pytest.raises(Exception) as info:
        Anot.Experiment(demo, "cot", batch_retry="sometimes")
    assert "batch-retry" in str(info.value)


def test_estimate_from_python(demo, fake_llm, tmp_path, monkeypatch):
    """Experiment.estimate() gives the figures of `anot-run estimate --json`
    as a dict, calls no LLM, and matches what the run then uses.  A model
    without a price has no cost (None), until config.ini gives one."""
    options = dict(backend="openai", base_url=fake_llm + "/v1", model="fake", candidates=5,
                   limit=3, out=str(tmp_path), name="estimated")
    monkeypatch.setenv("ANOT_CONFIG", str(tmp_path / "none.ini"))
    unpriced = Anot.Experiment(demo, "cot", **options)
    assert unpriced.list_unpriced_models() == ["fake"]
    estimate = unpriced.estimate()
    assert estimate["unpriced_models"] == ["fake"]
    assert estimate["total"]["cost_usd"] is None and estimate["total"]["batch_cost_usd"] is None
    assert estimate["total"]["prompt_tokens"] > 0

    (tmp_path / "prices.ini").write_text("[prices]\nfake = 1.00, 3.00\n")
    monkeypatch.setenv("ANOT_CONFIG", str(tmp_path / "prices.ini"))
    estimate = Anot.Experiment(demo, "cot", **options).estimate()
    assert estimate["method"] == "cot"
    assert estimate["unpriced_models"] == []
    assert estimate["tokenizers"] == {"fake": "approximate"}
    total = estimate["total"]
    assert total["requests"] == 3 and total["calls"] == 3 and total["incomplete"] == 0
    assert abs(total["batch_cost_usd"] - total["cost_usd"] / 2) < 1e-9
    assert not (tmp_path / "estimated").exists()

    exp = Anot.Experiment(demo, "cot", **options)
    exp.run_blocking()
    rows = exp.get_results(5, 1)
    assert sum(row.get_usage().get_prompt_tokens() for row in rows) == total["prompt_tokens"]


def test_batch_spans_cells(demo, fake_llm, tmp_path):
    """In batch mode the cells (attack x run x N) are opened together: the
    first calls of every cell go in one batch, not one batch per cell in
    turn, and the rows are those of a direct run."""
    exp = Anot.Experiment(demo, "cot", backend="openai", base_url=fake_llm + "/v1",
                          model="gpt-4o-mini", candidates=[5, 10], runs=2, limit=3,
                          concurrency=100, batch=True, out=str(tmp_path), name="cells")
    exp.run_blocking()
    queue = exp.get_batch_queue()
    # 2 runs x 2 N x 3 requests, one call each, in one batch.
    assert queue.get_n_lines_sent() == 12
    assert queue.get_n_submitted() == 1
    for run in (1, 2):
        for n in (5, 10):
            rows = exp.get_results(n, run)
            assert sorted(r.get_request_id() for r in rows) == ["R01", "R02", "R03"]
            assert all(r.get_usage().get_calls() == 1 for r in rows)
    for run in (1, 2):
        with open(tmp_path / "cells" / "clean" / ("run_%d" % run) / "config.json") as f:
            assert json.load(f)["anot"]["status"] == "complete"


def test_cancelled_in_flight_from_python(demo, tmp_path):
    """A request's deadline cancels calls on the wire: the experiment
    counts them as cancelled in flight, with an estimated cost, apart from
    the cost of the answers (none here), and says no batch is left."""
    path = os.environ.get("ANOT_FAKE_LLM")
    if not path:
        pytest.skip("ANOT_FAKE_LLM is not set")
    rules = tmp_path / "rules.json"
    rules.write_text(json.dumps({"default_reply": "[1, 2, 3, 4, 5]", "latency_ms": 30000}))
    process = subprocess.Popen([path, "--rules", str(rules)], stdout=subprocess.PIPE,
                               stderr=subprocess.DEVNULL, text=True)
    try:
        url = process.stdout.readline().strip()
        exp = Anot.Experiment(demo, "cot", backend="openai", base_url=url + "/v1",
                              model="gpt-4o-mini", candidates=5, limit=2, concurrency=2,
                              request_timeout=1, out=str(tmp_path), name="cut")
        with pytest.raises(Exception) as info:
            exp.run_blocking()
        assert "could not be scored" in str(info.value)
    finally:
        process.terminate()
        process.wait()
    cancelled = exp.dup_cancelled_usage()
    assert cancelled.get_cancelled_calls() == 2
    assert cancelled.get_cancelled_cost_usd() > 0
    assert cancelled.get_calls() == 0 and cancelled.get_cost_usd() == 0
    with open(tmp_path / "cut" / "clean" / "run_1" / "config.json") as f:
        usage = json.load(f)["usage"]
    assert usage["cancelled_in_flight"]["calls"] == 2
    assert usage["total_cost_usd"] == 0
