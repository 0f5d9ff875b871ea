"""What a method can read is what the guides' reference table says.

The table of "What a method can read" (writing-a-method-in-python.md, the
same in writing-a-method-plugin.md) is walked against the GIR: every
Python name it gives exists on the object it is read from.  A small
benchmark written here holds each edge case the table names (a day stored
as "", a reviewer not in the friend graph, a name in it without friends,
fields that leak the answer, absent optional fields), and each reads as the
table says, in Python and through the C API the same way.
"""
import json
import re

import gi

gi.require_version("Anot", "1.0")
from gi.repository import Anot  # noqa: E402

from test_docs import python_names, reference_table  # noqa: E402

ITEMS = [
    {"business_id": "a1", "name": "Edge", "city": "Town", "stars": 4.0,
     "attributes": {"WiFi": "u'free'"}, "categories": "Cafes, Food",
     "hours": {"Monday": "", "Tuesday": "8:0-15:0", "Wednesday": None},
     "llm_score": 9, "llm_reasoning": "the gold of R01"},
    {"business_id": "a2", "name": "Bare"},
]
REVIEWS = [
    {"review_id": "r1", "business_id": "a1", "stars": 5, "text": "Lovely.",
     "date": "2020-01-02 03:04:05", "user_id": "u1",
     "user": {"review_count": 3, "average_stars": 4.5, "yelping_since": "2019-01-01"}},
    {"review_id": "r2", "business_id": "a1", "stars": 2, "text": "Slow."},
    {"review_id": "r3", "business_id": "a2", "stars": 3, "text": "Fine."},
]
MAPPING = {
    "friend_graph": {"Ada": ["Bo"], "Bo": [], "Cy": ["Ada"]},
    "review_assignments": {
        "0": [{"review_idx": 0, "name": "Ada", "friends": ["Zoe", "Yan"]},
              {"review_idx": 1, "name": "Nobody"}],
    },
}
REQUEST = {"id": "R01", "group": "G01", "text": "A cafe with wifi.", "gold_item": "a1",
           "structure": {"aspect": "wifi", "evidence": {
               "kind": "item_meta", "path": ["attributes", "WiFi"], "true": "free"}}}


def write_benchmark(path):
    path.mkdir()
    for name, rows in (("items.jsonl", ITEMS), ("reviews.jsonl", REVIEWS),
                       ("requests.jsonl", [REQUEST])):
        (path / name).write_text("".join(json.dumps(r) + "\n" for r in rows))
    (path / "user_mapping.json").write_text(json.dumps(MAPPING))
    return Anot.Dataset.load(str(path))


def test_table_names_exist_on_their_objects(tmp_path):
    ds = write_benchmark(tmp_path / "edge")
    request = ds.requests["R01"]
    item = ds.items[0]
    context = Anot.MethodContext.new(ds, "R01", 1)
    receivers = {
        "query": Anot.Query.new_for_request(request),
        "item": item,
        "review": item.reviews[0],
        "context": context,
        "settings": Anot.MethodSettings.new("mine"),
    }
    rows = reference_table("writing-a-method-in-python.md")[2:]
    missing, checked = [], set()
    for row in rows:
        column = row.split("|")[3]
        for receiver, obj in receivers.items():
            # The first name of a chain is the receiver's
            # (`context.get_domain().get_items()`: get_domain).
            for name in re.findall(r"`" + receiver + r"\.(\w+)", column):
                checked.add(receiver)
                if not hasattr(obj, name):
                    missing.append(f"{receiver}.{name}")
    assert not missing, f"the table names {missing}, which the GIR does not have"
    assert checked == set(receivers)
    # Every Python name of the table exists somewhere in the namespace.
    everything = set().union(*(dir(o) for o in receivers.values()), dir(Anot.Completion),
                             dir(Anot.Domain), dir(Anot))
    assert {n for row in rows for n in python_names(row)} - everything - {"reviews", "attributes"} == set()


def test_edge_cases_read_as_documented(tmp_path):
    ds = write_benchmark(tmp_path / "edge")
    edge, bare = ds.items[0], ds.items[1]
    context = Anot.MethodContext.new(ds, "R01", 1)

    # Hours: a day stored as "" is closed, as is one stored as null or absent.
    assert edge.get_hours("Tuesday") == "8:0-15:0"
    assert edge.get_hours("Monday") is None
    assert edge.get_hours("Wednesday") is None
    assert edge.get_hours("Sunday") is None
    assert bare.get_hours("Monday") is None

    # The friend graph: a name not in it is None, a key without friends [].
    assert context.get_friends("Ada") == ["Bo"]
    assert context.get_friends("Bo") == []
    assert context.get_friends("Nobody") is None
    assert context.get_friends("Zoe") is None
    assert context.lookup_friends("Nobody") == (False, [])
    assert ds.get_friends("Nobody") is None and ds.get_friends("Bo") == []
    # A review's own list is in its record; without one, the graph's entry.
    reviews = edge.reviews
    assert reviews[0].to_dict()["user"]["friends"] == ["Zoe", "Yan"]
    assert reviews[0].get_reviewer_name() == "Ada"
    assert reviews[1].to_dict()["user"]["friends"] == []
    assert bare.reviews[0].get_reviewer_name() == ""

    # The record a method reads has no field that leaks the answer; the
    # file's record (for the tools) has them.
    record = edge.to_dict()
    assert "llm_score" not in record and "llm_reasoning" not in record
    assert record["name"] == "Edge" and record["hours"]["Monday"] == ""
    full = Anot.Item.dup_file_record(edge)
    assert full.get_int_member("llm_score") == 9
    assert not edge.get_record().has_member("llm_reasoning")

    # Absent optional fields.
    assert bare.get_city() is None and bare.get_stars() == 0.0
    assert list(bare.get_categories()) == [] and bare.attributes == {}
    assert edge.get_attribute("WiFi") == "u'free'" and edge.get_attribute("Noise") is None
    assert reviews[1].get_date() is None and reviews[1].get_user_yelping_since() is None
    assert reviews[1].get_user_review_count() == 0 and not reviews[1].has_user_average_stars()
    assert reviews[0].get_user_average_stars() == 4.5


def test_context_for_run_has_the_runs_seed(tmp_path):
    """MethodContext.new_for_run(ds, id, N, seed, run) is the context run R
    of an experiment gives the method: the seeds a method sees in a run of
    two are those of the contexts built for runs 1 and 2."""
    ds = Anot.Dataset.load(str(__import__("os").path.join(__import__("os").environ["ANOT_DATA_DIR"], "demo")))
    seen = {}

    @Anot.register_method("test-seed-recorder")
    class SeedRecorder(Anot.PyMethod):
        def rank(self, request, candidates, k, context):
            seen.setdefault((request.get_id(), len(candidates)), set()).add(context.get_seed())
            return list(range(len(candidates)))

    Anot.Experiment(ds, "test-seed-recorder", candidates=5, runs=2, seed=7, limit=2,
                    out=str(tmp_path)).run_blocking(progress=False)
    assert len(seen) == 2
    for (request_id, n), seeds in seen.items():
        built = {Anot.MethodContext.new_for_run(ds, request_id, n, seed=7, run=r).get_seed()
                 for r in (1, 2)}
        assert seeds == built and len(built) == 2
        # The constructor's third argument is a seed, not a run.
        assert Anot.MethodContext.new(ds, request_id, 1).get_seed() not in seeds


def test_validate_warns_of_names_no_item_has(tmp_path):
    """A request on an attribute, path or review field that no item or
    review has is warned of, naming file, line and field; --strict refuses."""
    import os
    import subprocess
    write_benchmark(tmp_path / "edge")
    odd = [
        {"id": "R02", "group": "G01", "text": "Pets allowed.", "gold_item": "a1",
         "structure": {"op": "AND", "args": [
             {"aspect": "wifi", "evidence": {"kind": "item_meta", "path": ["attributes", "WiFi"],
                                             "true": "free"}},
             {"aspect": "pets", "evidence": {"kind": "item_meta", "path": ["attributes", "PetAllowed"],
                                             "true": "True"}}]}},
        {"id": "R03", "group": "G01", "text": "Recent praise.", "gold_item": "a1",
         "structure": {"aspect": "recent", "evidence": {
             "kind": "review_group_rating", "group": "recent",
             "group_filter": {"field": ["user", "karma"], "operator": "gte", "value": 1},
             "metric": "avg_stars", "threshold": 4.0, "operator": "gte"}}},
    ]
    with open(tmp_path / "edge" / "requests.jsonl", "a") as f:
        f.write("".join(json.dumps(r) + "\n" for r in odd))

    def validate(*options):
        return subprocess.run([os.environ["ANOT_RUN"], "validate", "-d", str(tmp_path / "edge"), *options],
                              capture_output=True, text=True, timeout=60)

    run = validate()
    assert ('requests.jsonl:2: field “structure.args[1].evidence.path”: no item has '
            '["attributes","PetAllowed"]') in run.stderr, run.stderr
    assert ('requests.jsonl:3: field “structure.evidence.group_filter.field”: no review has '
            '["user","karma"]') in run.stderr, run.stderr
    assert "WiFi" not in run.stderr          # an attribute some item has: no warning
    strict = validate("--strict")
    assert strict.returncode == 1 and "refused with --strict" in strict.stderr
    # The benchmarks the project ships have none.
    for bundled in ("demo", "hotels"):
        clean = subprocess.run([os.environ["ANOT_RUN"], "validate", "--strict", "-d",
                                os.path.join(os.environ["ANOT_DATA_DIR"], bundled)],
                               capture_output=True, text=True, timeout=120)
        assert clean.returncode == 0, clean.stderr
