"""Every miss explained: top1_item / top1_conditions in the rows, checked
against the validator, and compare --by-condition against a recount."""

import json
import os
import subprocess

import pytest
from gi.repository import Anot

FIXED = ("misses", "near_misses", "no_failed_condition")


def read_rows(path):
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


def verdicts(validator, request, item):
    """What the validator says of each leaf, keyed as the rows key them."""
    verdict = validator.explain(request, item)
    return {verdict.get_leaf_key(i): int(verdict.get_leaf_truth(i))
            for i in range(verdict.get_n_leaves())}


def kinds_of(request):
    return {leaf.get_aspect(): Anot.evidence_kind_to_string(leaf.get_evidence_kind())
            for leaf in request.get_structure().collect_leaves()}


def failed_conditions(request, verdict_by_key):
    """The conditions an item fails, written afresh from the structure: a
    leaf at -1 (+1 under NOT) counts unless an OR that holds (an AND under
    NOT that fails) makes up for it."""
    keys = iter(verdict_by_key)   # leaves in document order, as the rows key them

    def walk(node, polarity):
        op = node.get_op()
        if op == Anot.ConditionOp.LEAF:
            key = next(keys)
            truth = verdict_by_key[key]
            return truth, [key] if polarity * truth == -1 else []
        if op == Anot.ConditionOp.NOT:
            truth, failed = walk(node.get_child(0), -polarity)
            return -truth, failed
        results = [walk(node.get_child(i), polarity) for i in range(node.get_n_children())]
        truths = [t for t, _ in results]
        truth = min(truths) if op == Anot.ConditionOp.AND else max(truths)
        disjunction = (op == Anot.ConditionOp.OR) == (polarity > 0)
        if disjunction and polarity * truth == 1:
            return truth, []
        return truth, [k for _, f in results for k in f]

    return walk(request.get_structure(), 1)[1]


def recount(rows):
    """compare --by-condition's counts, from the rows, written afresh."""
    out = {}
    for row in rows:
        for group in (None, row["group"]):
            key = (row["method"], row["attack"], row["n_candidates"], group)
            cell = out.setdefault(key, {"rows": 0, "ranked": 0, "kinds": {}, **dict.fromkeys(FIXED, 0)})
            cell["rows"] += 1
            if row["error"] is not None or row["top1_conditions"] is None:
                continue
            cell["ranked"] += 1
            if row["gold_rank"] == 1:
                continue
            failed = row["top1_failed"]
            cell["misses"] += 1
            cell["near_misses"] += len(failed) == 1
            cell["no_failed_condition"] += not failed
            for kind in {row["condition_kinds"][k] for k in failed}:
                cell["kinds"][kind] = cell["kinds"].get(kind, 0) + 1
    return out


def counts_of(by_condition):
    out = {}
    for cell in by_condition["cells"]:
        key = (cell["method"], cell["attack"], cell["n_candidates"], cell["group"])
        out[key] = {"rows": cell["rows"], "ranked": cell["ranked"],
                    "kinds": {k: v["count"] for k, v in cell["kinds"].items() if v["count"]},
                    **{m: cell[m]["count"] for m in FIXED}}
    return out


@pytest.fixture(scope="module")
def philly_bm25(philly, tmp_path_factory):
    """bm25 on philly_cafes at N=10, clean and under fake_negative and
    fake_positive (extra 1- and 5-star reviews: they change what the
    rating conditions would say of the attacked items)."""
    out = tmp_path_factory.mktemp("results")
    exp = Anot.Experiment(philly, "bm25", candidates=[10], out=str(out),
                          attack="clean,fake_negative,fake_positive")
    assert exp.run()
    return out / "bm25_philly_cafes"


def test_top1_conditions_are_the_validators_verdicts(philly, philly_bm25):
    validator = Anot.Validator.new(philly)
    rows = read_rows(philly_bm25 / "clean" / "run_1" / "results_10.jsonl")
    assert len(rows) == 100
    near = 0
    for row in rows:
        request = philly.lookup_request(row["request_id"])
        top1 = philly.lookup_item(row["top1_item"])
        gold = philly.lookup_item(row["gold_restaurant"])
        assert row["top1_conditions"] == verdicts(validator, request, top1), row["request_id"]
        assert row["gold_conditions"] == verdicts(validator, request, gold), row["request_id"]
        assert row["condition_kinds"] == kinds_of(request)
        assert row["top1_failed"] == failed_conditions(request, row["top1_conditions"]), row["request_id"]
        # The first item is the one the method ranked first: pred_indices[0]
        # is its place in the pool, and it is the gold exactly on a hit.
        assert (row["top1_item"] == row["gold_restaurant"]) == (row["gold_rank"] == 1)
        near += len(row["top1_failed"]) == 1 and row["gold_rank"] != 1
    # bm25 misses 57 of 100 at N=10, 11 of them by one condition (9 when
    # the failing alternatives of an OR that holds were counted).
    assert sum(r["gold_rank"] != 1 for r in rows) == 57
    assert near == 11


def test_an_or_that_holds_excuses_its_failing_alternatives(philly, philly_bm25):
    """Requests G07 and G08 nest an OR under an AND: a first item that
    satisfies the OR by one alternative does not fail the others."""
    excused = []
    for attack in ("clean", "fake_negative", "fake_positive"):
        for row in read_rows(philly_bm25 / attack / "run_1" / "results_10.jsonl"):
            minus = [k for k, v in row["top1_conditions"].items() if v == -1]
            assert set(row["top1_failed"]) <= set(minus)
            if row["top1_failed"] != minus and row["gold_rank"] != 1:
                # A hit (the gold) may satisfy a top-level OR by one
                # alternative; a miss can only satisfy a nested one.
                excused.append(row["request_id"])
                assert row["group"] in ("G07", "G08"), row["request_id"]
    assert excused, "no missed first item satisfied an OR by one alternative: nothing was tested"


def test_top1_is_the_first_prediction(philly, philly_bm25):
    """top1_item is the item at pred_indices[0] of the request's pool."""
    rows = read_rows(philly_bm25 / "clean" / "run_1" / "results_10.jsonl")
    for row in rows[:20]:
        request = philly.lookup_request(row["request_id"])
        trial = Anot.Trial.new(philly, request, 10, Anot.PoolMode.SAMPLED, Anot.ShuffleMode.RANDOM,
                               42, 1, None, None)
        shuffled = trial.get_candidates()
        assert shuffled[row["shuffled_preds"][0] - 1].get_id() == row["top1_item"]


def test_under_attack_verdicts_are_the_clean_truth(philly, philly_bm25):
    """Decided on the clean items, not the attacked copies the method saw:
    the verdicts a row carries are the clean ones, and for some rows the
    attacked copy would have been judged otherwise."""
    validator = Anot.Validator.new(philly)
    registry = Anot.Registry.get_default()
    differ = 0
    for attack in ("fake_negative", "fake_positive"):
        rows = read_rows(philly_bm25 / attack / "run_1" / "results_10.jsonl")
        assert len(rows) == 100
        for row in rows:
            request = philly.lookup_request(row["request_id"])
            clean = verdicts(validator, request, philly.lookup_item(row["top1_item"]))
            assert row["top1_conditions"] == clean, (attack, row["request_id"])
            trial = Anot.Trial.new(philly, request, 10, Anot.PoolMode.SAMPLED, Anot.ShuffleMode.RANDOM,
                                   42, 1, registry.create_attack(attack), attack)
            seen = trial.get_candidates()[row["shuffled_preds"][0] - 1]
            assert seen.get_id() == row["top1_item"]
            differ += verdicts(validator, request, seen) != clean
    assert differ > 0, "no attacked first item would be judged differently: the test shows nothing"


def test_by_condition_counts_match_a_recount(philly_bm25, tmp_path):
    results = Anot.Results.load(philly_bm25)
    rows = results.rows()
    assert len(rows) == 300
    want = recount(rows)
    got = counts_of(results.by_condition(resamples=200))
    assert got == want
    clean_all = got[("bm25", "clean", 10, None)]
    assert clean_all["ranked"] == 100 and clean_all["misses"] == 57 and clean_all["near_misses"] == 11
    assert sum(1 for k in got if k[3] is not None and k[1] == "clean") == 10   # G01..G10

    # The command line gives the same in every format.
    anot_run = os.environ["ANOT_RUN"]
    printed = subprocess.run([anot_run, "compare", str(philly_bm25), "--by-condition", "--format", "json",
                              "--resamples", "200"], capture_output=True, text=True, check=True).stdout
    assert counts_of(json.loads(printed)["by_condition"]) == want
    csv = subprocess.run([anot_run, "compare", str(philly_bm25), "--by-condition", "--format", "csv",
                          "--resamples", "200"], capture_output=True, text=True, check=True).stdout
    lines = csv.splitlines()
    assert lines[0].endswith(",group,count")
    from_csv = {}
    for line in lines[1:]:
        fields = line.split(",")
        if fields[0] != "by_condition":
            assert fields[-2:] == ["", ""]
            continue
        group = None if fields[-2] == "all" else fields[-2]
        key = ("bm25", fields[3], int(fields[4]), group)
        from_csv.setdefault(key, {})[fields[7]] = int(fields[-1])
    for key, cell in want.items():
        assert from_csv[key]["ranked"] == cell["ranked"]
        for m in FIXED:
            assert from_csv[key][m] == cell[m]
        for kind, count in cell["kinds"].items():
            assert from_csv[key][kind] == count
    for fmt in ("text", "markdown", "latex"):
        text = subprocess.run([anot_run, "compare", str(philly_bm25), "--by-condition", "--format", fmt,
                               "--resamples", "200"], capture_output=True, text=True, check=True).stdout
        assert "near misses" in text and "review_group_rating" in text.replace("\\_", "_"), fmt
    plain = subprocess.run([anot_run, "compare", str(philly_bm25), "--format", "csv", "--resamples", "200"],
                           capture_output=True, text=True, check=True).stdout
    assert "by_condition" not in plain and not plain.splitlines()[0].endswith(",count")


def test_intervals_hold_their_share(philly_bm25):
    by_condition = Anot.Results.load(philly_bm25).by_condition(resamples=500)
    for cell in by_condition["cells"]:
        for e in [cell[m] for m in FIXED] + list(cell["kinds"].values()):
            assert e["lower"] <= e["mean"] <= e["upper"]
            # The share is over requests, runs pooled: one run here, so count / ranked.
            assert e["mean"] == pytest.approx(e["count"] / cell["ranked"])


def test_old_rows_still_load(philly_bm25, tmp_path):
    """Rows written before anot recorded the first item load, and are no
    ranked rows for --by-condition."""
    import shutil

    run = tmp_path / "old" / "clean" / "run_1"
    shutil.copytree(philly_bm25 / "clean" / "run_1", run)
    rows = read_rows(run / "results_10.jsonl")
    with open(run / "results_10.jsonl", "w") as f:
        for row in rows:
            for field in ("top1_item", "top1_conditions", "top1_failed", "gold_conditions", "condition_kinds"):
                del row[field]
            f.write(json.dumps(row) + "\n")
    results = Anot.Results.load(tmp_path / "old")
    loaded = results.rows()
    assert len(loaded) == 100 and all(r["top1_conditions"] is None for r in loaded)
    cell = [c for c in results.by_condition(resamples=10)["cells"] if c["group"] is None][0]
    assert cell["rows"] == 100 and cell["ranked"] == 0 and cell["misses"]["mean"] is None


def test_bad_conditions_are_refused(tmp_path):
    row = {"request_id": "R01", "pred_indices": [1], "gold_idx": 0,
           "top1_conditions": {"wifi": 2}}
    from gi.repository import GLib, Json
    parser = Json.Parser()
    parser.load_from_data(json.dumps(row), -1)
    with pytest.raises(GLib.Error, match="top1_conditions.*wifi.*not 1, 0 or -1"):
        Anot.Result.new_from_json(parser.get_root().get_object())


def test_not_and_nested_or(demo_dir, tmp_path):
    """top1_failed under NOT and nested ORs, on the demo benchmark with its
    requests rewritten: each request's leaves regrouped as
    AND(NOT(first), rest...), OR(NOT(AND(all)), first), ... shapes."""
    import shutil

    data = tmp_path / "demo_not"
    shutil.copytree(demo_dir, data)
    requests = read_rows(data / "requests.jsonl")

    def leaves(node):
        return [node] if "aspect" in node else [l for a in node["args"] for l in leaves(a)]

    # Each leaf once: the loader refuses a request that repeats an aspect.
    shapes = [
        lambda ls: {"op": "AND", "args": [{"op": "NOT", "args": [ls[0]]}] + ls[1:]},
        lambda ls: {"op": "OR", "args": [{"op": "NOT", "args": [{"op": "AND", "args": ls[:-1]}]}, ls[-1]]},
        lambda ls: {"op": "AND", "args": [ls[0], {"op": "OR", "args": [{"op": "NOT", "args": [ls[-1]]}]
                                                  + ls[1:-1]}]},
        lambda ls: {"op": "NOT", "args": [{"op": "OR", "args": ls}]},
    ]
    with open(data / "requests.jsonl", "w") as f:
        for i, request in enumerate(requests):
            ls = leaves(request["structure"])
            request["structure"] = shapes[i % len(shapes) if len(ls) >= 3 else 0](ls)
            f.write(json.dumps(request) + "\n")
    dataset = Anot.Dataset.load(str(data))
    out = tmp_path / "results"
    assert Anot.Experiment(dataset, "bm25", candidates=[10], out=str(out)).run()
    rows = read_rows(out / "bm25_demo_not" / "clean" / "run_1" / "results_10.jsonl")
    assert len(rows) == len(requests)
    validator = Anot.Validator.new(dataset)
    for row in rows:
        request = dataset.lookup_request(row["request_id"])
        assert row["top1_conditions"] == verdicts(validator, request, dataset.lookup_item(row["top1_item"]))
        assert row["top1_failed"] == failed_conditions(request, row["top1_conditions"]), row["request_id"]
    # Under a NOT a satisfied leaf is the failure: some rows show it.
    assert any(row["top1_conditions"][k] == 1 for row in rows for k in row["top1_failed"])


def test_resume_and_merge_carry_the_fields(demo, tmp_path):
    """A run cut short and resumed, and three shards merged, write the same
    rows (first item and verdicts included) as one uninterrupted run."""
    single = Anot.Experiment(demo, "bm25", candidates=[10], out=str(tmp_path / "single"))
    assert single.run()
    want = read_rows(tmp_path / "single" / "bm25_demo" / "clean" / "run_1" / "results_10.jsonl")
    assert all(r["top1_item"] and r["top1_conditions"] and "top1_failed" in r for r in want)

    cut = Anot.Experiment(demo, "bm25", candidates=[10], out=str(tmp_path / "cut"))
    assert cut.run()
    path = tmp_path / "cut" / "bm25_demo" / "clean" / "run_1" / "results_10.jsonl"
    lines = path.read_text().splitlines(True)
    path.write_text("".join(lines[:len(lines) // 2]))   # killed half way
    resumed = Anot.Experiment.new_for_resume(cut.get_directory(), demo)
    assert resumed.run_blocking()
    assert read_rows(path) == want

    for i in range(3):
        assert Anot.Experiment(demo, "bm25", candidates=[10], out=str(tmp_path / ("s%d" % i)),
                               name="exp", shard=(i, 3)).run()
    assert Anot.merge_shards(tmp_path / "merged" / "exp",
                             [tmp_path / ("s%d" % i) / "exp" for i in range(3)])
    assert read_rows(tmp_path / "merged" / "exp" / "clean" / "run_1" / "results_10.jsonl") == want
