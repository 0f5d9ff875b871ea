"""Shards and their merge from Python: Anot.Experiment(..., shard=(i, n))
and Anot.merge_shards()."""

import os

import pytest
from gi.repository import Anot, GLib

FILES = ("results_10.jsonl", "results_20.jsonl", "scaling_summary.json")


def run(demo, out, **options):
    experiment = Anot.Experiment(demo, "bm25", scaling=True, runs=2, out=out, name="exp", **options)
    assert experiment.run_blocking()
    return experiment


def test_three_shards_merge_to_the_single_run(demo, tmp_path):
    run(demo, tmp_path / "single")
    planned = []
    for i in range(3):
        shard = run(demo, tmp_path / ("shard%d" % i), shard=(i, 3))
        planned.append(shard.get_n_planned())
        assert shard.get_config().get("shard") == "%d/3" % i
    # 30 requests, N = 10 and 20, 2 runs: 120 cells dealt to 3 shards.
    assert planned == [40, 40, 40]

    assert Anot.merge_shards(tmp_path / "merged" / "exp",
                             [tmp_path / ("shard%d" % i) / "exp" for i in range(3)])
    for run_dir in ("run_1", "run_2"):
        for name in FILES:
            single = tmp_path / "single" / "exp" / "clean" / run_dir / name
            merged = tmp_path / "merged" / "exp" / "clean" / run_dir / name
            assert merged.read_bytes() == single.read_bytes(), name
    assert ((tmp_path / "merged" / "exp" / "clean" / "summary.json").read_bytes() ==
            (tmp_path / "single" / "exp" / "clean" / "summary.json").read_bytes())


def test_a_missing_shard_is_named(demo, tmp_path):
    for i in (0, 2):
        run(demo, tmp_path / ("shard%d" % i), shard=(i, 3))
    with pytest.raises(GLib.Error) as info:
        Anot.Experiment.merge_shards(str(tmp_path / "merged" / "exp"),
                                     [str(tmp_path / "shard0" / "exp"),
                                      str(tmp_path / "shard2" / "exp")], False)
    assert info.value.matches(Anot.error_quark(), Anot.Error.SHARDS)
    assert "Shard 1/3 missing" in info.value.message
    assert not os.path.exists(tmp_path / "merged" / "exp")


def test_a_merge_of_unscored_rows_raises_incomplete(demo, tmp_path):
    """As a run with requests the infrastructure failed: the merged
    directory is written, and the merge raises ANOT_ERROR_INCOMPLETE naming
    how many and the resume."""
    import json

    for i in range(2):
        run(demo, tmp_path / ("shard%d" % i), shard=(i, 2))
    path = tmp_path / "shard1" / "exp" / "clean" / "run_1" / "results_10.jsonl"
    rows = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    for row in rows[:3]:
        row.update(pred_indices=[], shuffled_preds=[], gold_rank=0, error_class="infrastructure",
                   error="ANOT_ERROR_LLM_CONNECTION: Cannot reach the server")
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    merged = tmp_path / "merged" / "exp"
    with pytest.raises(GLib.Error) as info:
        Anot.merge_shards(merged, [tmp_path / ("shard%d" % i) / "exp" for i in range(2)])
    assert info.value.matches(Anot.error_quark(), Anot.Error.INCOMPLETE)
    assert "3 of 120 requests of the experiment could not be scored" in info.value.message
    assert "anot-run --resume %s" % merged in info.value.message
    assert (merged / "clean" / "summary.json").exists()


def test_bad_shard_values(demo):
    for value in ((3, 3), (0, 0), "1"):
        with pytest.raises(GLib.Error) as info:
            Anot.Experiment(demo, "bm25", shard=value)
        assert "shard" in info.value.message


def test_one_writer_per_directory(demo, tmp_path):
    """A directory another process holds is refused with ANOT_ERROR_BUSY
    naming the holder; the lock is free again once the run ended."""
    import fcntl
    import subprocess
    import sys

    exp_dir = tmp_path / "exp"
    exp_dir.mkdir()
    # Another process holds the lock, as a running anot-run would.
    holder = subprocess.Popen(
        [sys.executable, "-c",
         "import fcntl, sys, time\n"
         "f = open(sys.argv[1], 'w')\n"
         "fcntl.flock(f, fcntl.LOCK_EX)\n"
         "f.write('PID 4242 on host elsewhere\\n'); f.flush()\n"
         "print('locked', flush=True)\n"
         "time.sleep(60)\n", str(exp_dir / ".anot-lock")],
        stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "locked"
        with pytest.raises(GLib.Error) as info:
            run(demo, tmp_path)
        assert info.value.matches(Anot.error_quark(), Anot.Error.BUSY)
        assert "PID 4242 on host elsewhere" in info.value.message
        assert not (exp_dir / "clean").exists()
    finally:
        holder.kill()
        holder.wait()

    # The kernel released the killed holder's lock: the run goes ahead and
    # lets go of it when it ends, so a resume in this process can follow.
    first = run(demo, tmp_path)
    with open(exp_dir / ".anot-lock") as f:
        fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
        fcntl.flock(f, fcntl.LOCK_UN)
    assert first.get_n_planned() == 120
