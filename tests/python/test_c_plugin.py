"""The example C plugin of docs/examples/c-plugin: it builds, loads and ranks."""
import json
import os
import subprocess

import pytest
from gi.repository import Anot, GLib

NAME = "example-stars"


@pytest.fixture(scope="module")
def plugin_dir():
    path = os.environ.get("ANOT_EXAMPLE_PLUGIN_DIR", "")
    assert os.path.isfile(os.path.join(path, "libanot-method-example.so")), path
    return path


def expected_order(candidates, min_reviews=0):
    def score(i):
        item = candidates[i]
        return item.get_stars() - (10.0 if item.get_n_reviews() < min_reviews else 0.0)
    return sorted(range(len(candidates)), key=lambda i: (-score(i), i))


def test_loaded_by_the_registry(plugin_dir):
    registry = Anot.Registry.get_default()
    assert NAME in registry.list(Anot.METHOD_EXTENSION_POINT_NAME)
    assert "star rating" in registry.get_description(Anot.METHOD_EXTENSION_POINT_NAME, NAME)
    assert not [m for m in registry.list_failed_modules() if "example" in m]


def test_ranks_by_stars(demo, plugin_dir):
    method = Anot.Registry.get_default().create_method(NAME)
    for request in demo.requests[:10]:
        pool = Anot.Pool.new(demo, request, 12)
        context = Anot.MethodContext.new(demo, request.get_id(), 1)
        ranking = method.rank_blocking(request, pool.shuffled, context)
        assert list(ranking) == expected_order(pool.shuffled)


def test_min_reviews_option(demo, plugin_dir):
    method = Anot.Registry.get_default().create_method(NAME)
    counts = sorted(item.get_n_reviews() for item in demo.items)
    threshold = counts[len(counts) // 2]  # about half the items fall short
    request = demo.requests[0]
    pool = Anot.Pool.new(demo, request, len(demo.items))
    context = Anot.MethodContext.new(demo, request.get_id(), 1)
    context.set_option("example-stars.min-reviews", str(threshold))
    ranking = list(method.rank_blocking(request, pool.shuffled, context))
    assert ranking == expected_order(pool.shuffled, threshold)
    assert ranking != expected_order(pool.shuffled)
    short = [pool.shuffled[i].get_n_reviews() < threshold for i in ranking]
    assert short == sorted(short)  # every item short of reviews comes last

    context.set_option("example-stars.min-reviews", "many")
    with pytest.raises(GLib.Error) as info:
        method.rank_blocking(request, pool.shuffled, context)
    assert info.value.matches(Anot.error_quark(), Anot.Error.INVALID_ARGUMENT)
    assert "example-stars.min-reviews" in info.value.message


def test_run_by_anot_run(demo, demo_dir, plugin_dir, tmp_path):
    env = dict(os.environ)
    env["ANOT_PLUGIN_PATH"] = os.pathsep.join([plugin_dir, env.get("ANOT_PLUGIN_PATH", "")])
    listing = subprocess.run([os.environ["ANOT_RUN"], "--list"], env=env,
                             capture_output=True, text=True, check=True)
    assert NAME in listing.stdout

    run = subprocess.run([os.environ["ANOT_RUN"], "--method", NAME, "--data", demo_dir,
                          "--candidates", "10", "--out", str(tmp_path), "-O",
                          "example-stars.min-reviews=3"],
                         env=env, capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    path = tmp_path / f"{NAME}_demo" / "clean" / "run_1" / "results_10.jsonl"
    rows = [json.loads(line) for line in path.read_text().splitlines()]
    assert len(rows) == len(demo.requests)
    for row in rows:
        pool = Anot.Pool.new(demo, demo.requests[row["request_id"]], 10)
        assert row["shuffled_preds"] == [i + 1 for i in expected_order(pool.shuffled, 3)[:5]]
        assert "error" not in row
