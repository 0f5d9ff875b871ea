"""run_blocking() shows the progress anot-run shows on a terminal."""
import sys

import pytest
from gi.repository import Anot


def run(demo, tmp_path, **kwargs):
    experiment = Anot.Experiment(demo, "bm25", candidates=[5, 10], limit=4, out=str(tmp_path))
    experiment.run_blocking(**kwargs)
    return experiment


def test_text_line_without_tqdm(demo, tmp_path, capsys, monkeypatch):
    monkeypatch.setitem(sys.modules, "tqdm.auto", None)    # import fails
    experiment = run(demo, tmp_path, progress=True)
    err = capsys.readouterr().err
    lines = [line.split("\r")[-1] for line in err.split("\n") if line]
    hits = {n: experiment.get_metrics(n, 1).get_hits_at(1) for n in (5, 10)}
    assert lines == [f"[N=5 run 1] 4/4 requests  Hits@1 {hits[5]:.2f}  ETA --:--",
                     f"[N=10 run 1] 4/4 requests  Hits@1 {hits[10]:.2f}  ETA --:--"]
    assert "[N=5 run 1] 0/4 requests  Hits@1 0.00  ETA --:--" in err


def test_tqdm_bar(demo, tmp_path, capsys):
    pytest.importorskip("tqdm")
    experiment = run(demo, tmp_path, progress=True)
    err = capsys.readouterr().err
    hits = experiment.get_metrics(10, 1).get_hits_at(1)
    assert "N=5 run 1" in err and "N=10 run 1" in err
    assert "4/4" in err and f"Hits@1 {hits:.2f}" in err


def test_off(demo, tmp_path, capsys):
    run(demo, tmp_path / "off", progress=False)
    run(demo, tmp_path / "auto")          # stderr is not a terminal here, nor a notebook
    assert capsys.readouterr().err == ""



def test_old_ipywidgets_are_not_used(monkeypatch):
    """Debian 12's ipywidgets 6 speaks a protocol nbconvert --execute
    fails on: the bar is then drawn as text, and ipywidgets not imported."""
    import importlib.metadata

    from gi.overrides import Anot as overrides

    def version_of(installed):
        def version(name):
            if name != "ipywidgets" or installed is None:
                raise importlib.metadata.PackageNotFoundError(name)
            return installed
        return version

    for installed, works in (("6.0.0", False), ("7.7.1", True), ("8.1.1", True), (None, False)):
        monkeypatch.setattr(importlib.metadata, "version", version_of(installed))
        assert overrides._widgets_work() is works
