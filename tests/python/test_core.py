"""The core library as a notebook sees it through GObject introspection."""
import json
import os

import pytest
from gi.repository import Anot, GLib


def test_load_demo_and_validate(demo_dir):
    ds = Anot.Dataset.load(demo_dir, None)
    assert ds.props.name == "demo"
    assert ds.get_n_items() >= 20
    assert ds.get_n_reviews() >= 150
    assert ds.get_n_requests() >= 20
    validator = Anot.Validator.new(ds)
    for i in range(ds.get_n_requests()):
        req = ds.get_request(i)
        status, n_matches = validator.check_request(req)
        assert status == Anot.GoldStatus.OK, req.get_id()
        assert n_matches == 1


def test_check_requests_item_by_item(demo):
    """Validator.check_requests() checks every request in one pass over the
    items and agrees with check_request() one by one."""
    validator = Anot.Validator.new(demo)
    requests = [demo.get_request(i) for i in range(demo.get_n_requests())]
    statuses, n_matches = validator.check_requests(requests)
    assert len(statuses) == len(requests) == len(n_matches) > 0
    for request, status, n in zip(requests, statuses, n_matches):
        assert (status, n) == tuple(validator.check_request(request)), request.get_id()


def test_philly_truth_per_leaf(philly_dir):
    ds = Anot.Dataset.load(philly_dir, None)
    assert (ds.get_n_items(), ds.get_n_reviews(), ds.get_n_requests()) == (50, 970, 100)
    validator = Anot.Validator.new(ds)
    r82 = ds.lookup_request("R82")
    la_colombe = ds.get_item(14)
    verdict = validator.explain(r82, la_colombe)
    assert verdict.get_truth() == Anot.Truth.TRUE
    leaves = [verdict.get_leaf(i) for i in range(verdict.get_n_leaves())]
    assert len(leaves) == 4
    # The social leaf holds only because of the one-way Rose -> Alice edge.
    assert ds.get_item(14).get_review(8).get_reviewer_name() == "Rose"
    found, truth = verdict.lookup_leaf(leaves[3].get_aspect())
    assert found and truth == Anot.Truth.TRUE
    matches = validator.find_matches(r82)
    assert [m.get_id() for m in matches] == [r82.get_gold_item_id()]


def test_load_error_is_a_glib_error(tmp_path):
    (tmp_path / "restaurants.jsonl").write_text('{"business_id": "a", "name": "A"}\n{oops\n')
    for name in ("reviews.jsonl", "requests.jsonl"):
        (tmp_path / name).write_text("")
    try:
        Anot.Dataset.load(str(tmp_path), None)
    except GLib.Error as e:
        assert e.domain == "anot-error-quark"
        assert e.code == Anot.Error.PARSE
        assert "restaurants.jsonl:2" in e.message
    else:
        raise AssertionError("loading a malformed line must fail")


def test_registry_lists_baselines():
    registry = Anot.Registry.get_default()
    names = registry.list(Anot.METHOD_EXTENSION_POINT_NAME)
    for name in ("bm25", "random", "oracle"):
        assert name in names
        assert registry.get_description(Anot.METHOD_EXTENSION_POINT_NAME, name)


def test_experiment_bm25_results(demo_dir, tmp_path):
    ds = Anot.Dataset.load(demo_dir, None)
    exp = Anot.Experiment.new(ds, "bm25")
    exp.set_option("candidates", "10")
    exp.set_option("out", str(tmp_path))
    exp.set_option("seed", "7")
    assert exp.run(None)
    metrics = exp.get_metrics(10, 1)
    assert metrics.get_total() == ds.get_n_requests()
    hits1 = metrics.get_hits_at(1)
    assert 0.0 <= hits1 <= 1.0
    results = exp.get_results(10, 1)
    assert len(results) == ds.get_n_requests()
    rows = []
    with open(os.path.join(exp.get_directory(), "clean", "run_1", "results_10.jsonl")) as f:
        rows = [json.loads(line) for line in f]
    assert [r["request_id"] for r in rows] == sorted(r.get_request_id() for r in results)
    hits_from_rows = sum(1 for r in rows if r["pred_indices"][:1] == [r["gold_idx"] + 1])
    assert abs(hits_from_rows / len(rows) - hits1) < 1e-9


def test_formula_seed_compute_text_matches_the_tree_path():
    """FormulaSeed.compute_text() takes the extractions as JSON text and
    returns the trace as text: the same trace compute() builds from a
    json-glib array, and a parse error for text that is not an array."""
    from gi.repository import Json

    root = os.path.dirname(os.environ["ANOT_TEST_SRCDIR"])
    seed = Anot.FormulaSeed.load(os.path.join(root, "data", "formula-seeds", "g1a-v1.json"), False)
    severities = ["none", "mild", "moderate", "severe"]
    accounts = ["none", "firsthand", "secondhand", "hypothetical"]
    interactions = ["none", "positive", "negative", "betrayal"]
    extractions = [
        {"incident_severity": severities[i % 4], "account_type": accounts[(i // 4) % 4],
         "safety_interaction": interactions[(i * 7) % 4], "review_year": 2015 + i % 9,
         "_idx": i, "_year": 2015 + i % 9, "_stars": 1 + i % 5, "_useful": i % 3}
        for i in range(40)
    ]
    text = json.dumps(extractions)
    for original in (False, True):
        trace_text, n_failed = seed.compute_text(text.encode(), "Cafes, Coffee & Tea", original)
        tree, n_failed_tree = seed.compute(Json.from_string(text).get_array(), "Cafes, Coffee & Tea", original)
        assert n_failed == n_failed_tree
        trace = json.loads(trace_text)
        assert trace == json.loads(Json.to_string(Json.Node.alloc().init_object(tree), False))
        assert trace["n_failed"] == n_failed
        assert trace["outputs"]["n_mild"] == sum(1 for e in extractions if e["incident_severity"] == "mild"
                                                 and e["account_type"] == "firsthand")
    with pytest.raises(GLib.Error) as info:
        seed.compute_text(b'{"not": "a list"}', None, False)
    assert info.value.matches(Anot.error_quark(), Anot.Error.PARSE), info.value.message
