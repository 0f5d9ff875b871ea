"""Studies from Python: Anot.Study.load(), cells(), estimate(),
run_blocking() with its progress, to_dataframe(), against the fake LLM
server (a separate process)."""
import json
import os
import subprocess

import pytest
from gi.repository import Anot, GLib


@pytest.fixture
def fake_llm(tmp_path_factory):
    path = os.environ.get("ANOT_FAKE_LLM")
    if not path:
        pytest.skip("ANOT_FAKE_LLM is not set")
    rules = tmp_path_factory.mktemp("study-fake-llm") / "rules.json"
    rules.write_text('{"default_reply": "[3, 1, 2, 5, 4]"}')
    process = subprocess.Popen([path, "--rules", str(rules)],
                               stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        yield process.stdout.readline().strip()
    finally:
        process.terminate()
        process.wait()


@pytest.fixture(autouse=True)
def prices(tmp_path, monkeypatch):
    """gpt-4.1-mini is not in the built-in price table: its price (OpenAI's
    list price) is the tests' own config.ini's, as a user would give it."""
    path = tmp_path / "prices.ini"
    path.write_text("[prices]\ngpt-4.1-mini = 0.40, 1.60\n")
    monkeypatch.setenv("ANOT_CONFIG", str(path))
    return path


def write_study(tmp_path, url, extra=""):
    path = tmp_path / "study.ini"
    path.write_text(
        "[study]\n"
        "name = grid\n"
        "limit = 4\n"
        "attacks = clean, typo_10\n"
        "backend = openai\n"
        f"base_url = {url}/v1\n"
        f"out = {tmp_path / 'out'}\n"
        "baseline = bm25\n"
        f"{extra}\n"
        "[method bm25]\n"
        "[method cot]\n"
        "models = gpt-4o-mini, gpt-4.1-mini\n")
    return path


def test_load_cells_estimate_run_dataframe(fake_llm, tmp_path, capfd):
    study = Anot.Study.load(str(write_study(tmp_path, fake_llm)))
    assert isinstance(study, Anot.Study)
    cells = study.cells()
    assert [c.get_name() for c in cells] == [
        "bm25/clean", "bm25/typo_10",
        "cot@gpt-4o-mini/clean", "cot@gpt-4o-mini/typo_10",
        "cot@gpt-4.1-mini/clean", "cot@gpt-4.1-mini/typo_10"]
    assert cells[2].props.model == "gpt-4o-mini" and cells[2].props.attack == "clean"
    assert cells[0].get_model() is None
    assert study.props.n_planned == 24

    estimate = study.estimate()
    assert estimate["total"]["requests"] == 24
    assert estimate["total"]["calls"] == sum(c["calls"] for c in estimate["cells"]) == 16
    assert estimate["total"]["cost_usd"] == pytest.approx(sum(c["cost_usd"] for c in estimate["cells"]))

    assert study.run_blocking(progress=True)
    err = capfd.readouterr().err
    assert "24/24" in err  # the progress: a tqdm bar, or anot-run study's line

    frame = study.to_dataframe()
    assert len(frame) == 24
    assert set(frame["method"]) == {"bm25", "cot@gpt-4o-mini", "cot@gpt-4.1-mini"}
    assert set(frame["attack"]) == {"clean", "typo_10"}
    assert (tmp_path / "out" / "grid" / "report.html").exists()
    assert "cot@gpt-4.1-mini" in (tmp_path / "out" / "grid" / "comparison.md").read_text()
    record = json.loads((tmp_path / "out" / "grid" / "study.json").read_text())
    assert len(record["cells"]) == 6

    # Loaded again, it continues: everything is done.
    again = Anot.Study.load(str(write_study(tmp_path, fake_llm)))
    again.get_cells()
    assert again.run_blocking(progress=False)
    assert len(again.to_dataframe()) == 24


def test_a_refused_file_names_line_and_key(fake_llm, tmp_path):
    with pytest.raises(GLib.Error) as info:
        Anot.Study.load(str(write_study(tmp_path, fake_llm, "seeed = 3")))
    assert info.value.matches(Anot.error_quark(), Anot.Error.CONFIG)
    assert "study.ini:9: [study] seeed:" in info.value.message


def test_a_budget_refuses_a_model_without_a_price(fake_llm, tmp_path, monkeypatch):
    """max_cost cannot count calls it cannot price: refused before anything
    is written or sent."""
    monkeypatch.setenv("ANOT_CONFIG", str(tmp_path / "none.ini"))
    study = Anot.Study.load(str(write_study(tmp_path, fake_llm, "max_cost = 5")))
    with pytest.raises(GLib.Error) as info:
        study.run_blocking(progress=False)
    assert info.value.matches(Anot.error_quark(), Anot.Error.CONFIG)
    assert "“gpt-4.1-mini”" in info.value.message and "[prices]" in info.value.message
    assert not (tmp_path / "out").exists()


def test_the_budget_stops_it(fake_llm, tmp_path):
    study = Anot.Study.load(str(write_study(tmp_path, fake_llm, "max_cost = 0.02")))
    with pytest.raises(GLib.Error) as info:
        study.run_blocking(progress=False)
    assert info.value.matches(Anot.error_quark(), Anot.Error.BUDGET)
    spent = sum(row["cost_usd"] for row in study.results().rows())
    assert 0 < spent <= 0.02
