"""gi.overrides.Anot: the Pythonic helpers, checked against the plain API."""
import json
import os
import signal
import threading

import pytest
from gi.repository import Anot, GLib, Json


def test_overrides_come_from_the_build_tree():
    import gi.overrides.Anot as overrides

    # PYTHONPATH points at bindings/python; an installed copy must not win.
    assert os.path.samefile(
        os.path.dirname(overrides.__file__),
        os.path.join(os.environ["ANOT_TEST_SRCDIR"], "..", "bindings", "python", "gi", "overrides"))
    assert Anot.Dataset is overrides.Dataset


def test_dataset_sequences(demo):
    items, requests = demo.items, demo.requests
    assert len(items) == demo.get_n_items()
    assert len(requests) == demo.get_n_requests()
    assert [i.get_id() for i in items] == [demo.get_item(n).get_id() for n in range(demo.get_n_items())]
    assert items[-1].get_id() == demo.get_item(demo.get_n_items() - 1).get_id()
    assert [r.get_id() for r in requests[1:4]] == [demo.get_request(n).get_id() for n in (1, 2, 3)]
    first = requests[0]
    assert requests[first.get_id()].get_id() == first.get_id()
    assert first.get_id() in requests and "no-such-id" not in requests
    assert requests.get("no-such-id") is None
    with pytest.raises(KeyError):
        requests["no-such-id"]
    with pytest.raises(IndexError):
        items[len(items)]
    gold = items[first.get_gold_item_id()]
    assert gold.get_index() == first.get_gold_index()
    assert demo.groups == list(demo.list_groups())
    grouped = sum(len(demo.requests_in_group(g)) for g in demo.groups)
    assert grouped == len(requests)
    assert "demo" in repr(demo)


def test_items_and_reviews_as_python_values(demo, demo_dir):
    with open(os.path.join(demo_dir, "restaurants.jsonl")) as f:
        records = [json.loads(line) for line in f if line.strip()]
    for item, record in zip(demo.items, records, strict=True):
        assert item.to_dict() == record
        assert item.attributes == (record.get("attributes") or {})
        assert [r.get_id() for r in item.reviews] == [item.get_review(i).get_id()
                                                     for i in range(item.get_n_reviews())]
    review = next(r for i in demo.items for r in i.reviews)
    as_dict = review.to_dict()
    assert as_dict["review_id"] == review.get_id()
    assert as_dict["stars"] == review.get_stars()


def test_request_structure_as_dict(demo, demo_dir):
    with open(os.path.join(demo_dir, "requests.jsonl")) as f:
        rows = {r["id"]: r for r in (json.loads(line) for line in f if line.strip())}
    for request in demo.requests:
        d = request.to_dict()
        assert d["text"] == rows[d["id"]]["text"]
        assert d["gold"] == request.get_gold_item_id()
        structure = request.get_structure()
        assert d["structure"] == structure.to_dict()
        assert len(structure) == structure.get_n_children()
        assert [c.to_dict() for c in structure] == [structure.get_child(i).to_dict()
                                                    for i in range(len(structure))]
        assert [leaf.get_aspect() for leaf in structure.leaves] == \
            [leaf.get_aspect() for leaf in structure.collect_leaves()]


def test_verdict_leaves_and_truth_matrix(demo):
    validator = Anot.Validator.new(demo)
    request = demo.requests[0]
    gold = demo.items[request.get_gold_item_id()]
    verdict = validator.explain(request, gold)
    assert verdict.get_truth() == Anot.Truth.TRUE
    assert [t for _, t in verdict.leaves] == [verdict.get_leaf_truth(i)
                                              for i in range(verdict.get_n_leaves())]
    assert [c.get_aspect() for c, _ in verdict.leaves] == \
        [leaf.get_aspect() for leaf in request.get_structure().leaves]
    matrix = validator.truth_matrix_dict()
    assert matrix == json.loads(Json.to_string(validator.truth_matrix(), False))


def test_pool_matches_the_experiment(demo, tmp_path):
    exp = Anot.Experiment(demo, "bm25", candidates=10, out=tmp_path, limit=5)
    exp.run()
    for row in exp.result_rows():
        request = demo.requests[row["request_id"]]
        pool = Anot.Pool.new(demo, request, 10)  # run 1 of the default seed
        assert len(pool) == 10
        assert list(pool)[row["gold_idx"]].get_id() == request.get_gold_item_id()
        assert pool.shuffled[row["shuffled_gold_pos"] - 1].get_id() == request.get_gold_item_id()
        # Positions the method saw map back to pool positions.
        for shuffled, pooled in zip(row["shuffled_preds"], row["pred_indices"], strict=True):
            assert pool.shuffled[shuffled - 1].get_id() == list(pool)[pooled - 1].get_id()


def test_experiment_keyword_options(demo, tmp_path):
    exp = Anot.Experiment(demo, "bm25", candidates=[5, 10], out=tmp_path, name="kw",
                          seed=7, runs=2, force=True, limit=6,
                          method_options={"bm25.k1": 1})
    assert exp.run_blocking()
    with open(os.path.join(exp.get_directory(), "clean", "run_1", "config.json")) as f:
        config = json.load(f)["anot"]
    assert config["candidates"] == [5, 10]
    assert config["seed"] == 7 and config["runs"] == 2
    assert config["method_options"] == {"bm25.k1": "1"}
    # Every declared option's effective value, defaults included.
    assert config["method_settings"] == {
        "k1": {"value": 1.0, "source": "method option bm25.k1"},
        "b": {"value": 0.75, "source": "default"},
    }
    assert exp.candidate_counts == [5, 10]


def test_results_and_metrics_as_dicts(demo, tmp_path):
    exp = Anot.Experiment(demo, "bm25", candidates=[5, 10], out=tmp_path, runs=2)
    exp.run_blocking()
    rows = exp.result_rows()
    assert len(rows) == 2 * 2 * len(demo.requests)
    for n in (5, 10):
        for run in (1, 2):
            path = os.path.join(exp.get_directory(), "clean", f"run_{run}", f"results_{n}.jsonl")
            with open(path) as f:
                on_disk = [json.loads(line) for line in f]
            mine = [{k: v for k, v in r.items() if k not in ("n_candidates", "run", "latency_ms")}
                    for r in exp.result_rows(n, run)]
            assert mine == [{k: v for k, v in r.items() if k != "latency_ms"} for r in on_disk]
            assert all(r["n_candidates"] == n and r["run"] == run for r in exp.result_rows(n, run))

    metric_rows = exp.metric_rows()
    assert [(r["run"], r["n_candidates"]) for r in metric_rows] == [(1, 5), (1, 10), (2, 5), (2, 10)]
    for m in metric_rows:
        results = exp.result_rows(m["n_candidates"], m["run"])
        hits1 = sum(1 for r in results if r["gold_rank"] == 1) / len(results)
        assert m["hits_at_1"] == pytest.approx(hits1)
        assert m["requests"] == len(results)
        mrr = sum(1 / r["gold_rank"] for r in results if r["gold_rank"]) / len(results)
        assert m["mrr"] == pytest.approx(mrr)
    by_group = exp.metric_rows(n_candidates=10, run=1, by_group=True)
    assert sorted(r["group"] for r in by_group) == sorted(
        {r["group"] for r in exp.result_rows(10, 1)})
    assert sum(r["requests"] for r in by_group) == len(demo.requests)
    total_hits = sum(r["hits_at_1"] * r["requests"] for r in by_group)
    assert total_hits / len(demo.requests) == pytest.approx(exp.get_metrics(10, 1).get_hits_at(1))
    assert exp.get_metrics(10, 1).to_dict()["total"] == len(demo.requests)
    assert exp.get_metrics(10, 1).hits() == [exp.get_metrics(10, 1).get_hits_at(j) for j in range(1, 6)]


def test_experiment_skipped_n_left_out_of_metric_rows(demo, tmp_path):
    exp = Anot.Experiment(demo, "random", scaling=True, out=tmp_path, limit=3)
    exp.run_blocking()
    skipped = [n for n in exp.candidate_counts if exp.is_skipped(n)]
    assert skipped and all(n > len(demo.items) for n in skipped)
    assert {r["n_candidates"] for r in exp.metric_rows()} == \
        {n for n in exp.candidate_counts if n <= len(demo.items)}


def test_connected_disconnects(demo, tmp_path):
    seen = []
    exp = Anot.Experiment(demo, "random", candidates=5, out=tmp_path, limit=4)
    with exp.connected("result", lambda e, r: seen.append(r.get_request_id())):
        exp.run_blocking()
    assert sorted(seen) == sorted(r.get_id() for r in demo.requests[:4])
    again = Anot.Experiment(demo, "random", candidates=5, out=tmp_path, limit=4, force=True)
    n = len(seen)
    again.run_blocking()
    assert len(seen) == n


def test_ranking_sequence():
    ranking = Anot.Ranking.new_from_indices([2, 0, 1])
    assert list(ranking) == [2, 0, 1]
    assert len(ranking) == 3
    assert ranking.scores == sorted(ranking.scores, reverse=True)
    scored = Anot.Ranking.new_from_indices([1, 0], [0.5, 0.25])
    assert scored.scores == [0.5, 0.25]
    with pytest.raises(ValueError):
        Anot.Ranking.new_from_indices([1, 0], [0.5])


def test_cancel_on_interrupt_cancels_then_raises():
    with pytest.raises(KeyboardInterrupt):
        with Anot.cancel_on_interrupt() as cancellable:
            assert not cancellable.is_cancelled()
            signal.raise_signal(signal.SIGINT)
            assert cancellable.is_cancelled()
    # The previous handler is back.
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


def test_cancel_on_interrupt_outside_the_main_thread():
    outcome = []

    def work():
        with Anot.cancel_on_interrupt() as cancellable:
            outcome.append(cancellable.is_cancelled())

    t = threading.Thread(target=work)
    t.start()
    t.join()
    assert outcome == [False]


def test_philly_validates(philly):
    validator = Anot.Validator.new(philly)
    assert len(philly.requests) == 100
    for request in philly.requests:
        status, n_matches = validator.check_request(request)
        assert (status, n_matches) == (Anot.GoldStatus.OK, 1), request.get_id()
        assert [i.get_id() for i in validator.find_matches(request)] == [request.get_gold_item_id()]


def test_philly_bm25_rows_reproduced_one_request_at_a_time(philly, tmp_path):
    exp = Anot.Experiment(philly, "bm25", candidates=10, out=tmp_path)
    exp.run_blocking()
    rows = exp.result_rows()
    assert len(rows) == 100
    bm25 = Anot.Registry.get_default().create_method("bm25")
    for row in rows:
        request = philly.requests[row["request_id"]]
        pool = Anot.Pool.new(philly, request, 10)
        context = Anot.MethodContext.new(philly, request.get_id(),
                                         Anot.seed_derive(43, f"method:{request.get_id()}:10"))
        ranking = bm25.rank_blocking(request, pool.shuffled, context)
        assert [p + 1 for p in list(ranking)[:5]] == row["shuffled_preds"]
        gold_rank = row["shuffled_preds"].index(row["shuffled_gold_pos"]) + 1 \
            if row["shuffled_gold_pos"] in row["shuffled_preds"] else 0
        assert row["gold_rank"] == gold_rank
    hits1 = sum(r["gold_rank"] == 1 for r in rows) / len(rows)
    assert exp.metric_rows()[0]["hits_at_1"] == pytest.approx(hits1)


def test_run_config_keywords_and_errors(demo, tmp_path):
    config = Anot.RunConfig(candidates=[10, 20], seed=7, method_options={"bm25.k1": 1.2})
    assert config.to_dict() == {"candidates": "10,20", "seed": "7", "method.bm25.k1": "1.2"}
    assert list(config.get_candidates()) == [10, 20]
    with pytest.raises(GLib.Error, match="“nope”"):
        Anot.RunConfig(nope=1)
    with pytest.raises(GLib.Error, match="“abc” for k"):
        config.set("k", "abc")
    assert config.get_k() == 5

    exp = Anot.Experiment(demo, "bm25", limit=2, out=tmp_path)
    with pytest.raises(GLib.Error, match="“bogus”"):
        exp.set_option("bogus", 1)
    with pytest.raises(GLib.Error, match="“bogus”"):
        Anot.Experiment(demo, "bm25", bogus=1)
    assert exp.get_config().to_dict() == {"limit": "2", "out": str(tmp_path)}
    exp.run_blocking()
    assert exp.get_metrics(10, 1).get_total() == 2


def test_trial_is_what_the_method_sees(demo):
    request = demo.lookup_request("R01")
    attack = Anot.Registry.get_default().create_attack("typo_10")
    clean = Anot.Trial.new(demo, request, 10, Anot.PoolMode.SAMPLED, Anot.ShuffleMode.RANDOM,
                           42, 1, None, None)
    attacked = Anot.Trial.new(demo, request, 10, Anot.PoolMode.SAMPLED,
                              Anot.ShuffleMode.RANDOM, 42, 1, attack, "typo_10")
    assert clean.get_run_seed() == 43
    assert attacked.get_attack_seed() == Anot.attack_derive_seed(43, "typo_10", "R01", 10)
    assert [i.get_id() for i in clean.get_candidates()] == \
        [i.get_id() for i in attacked.get_candidates()]
    assert attacked.is_attacked() and not clean.is_attacked()
