"""A method is blind: nothing it is handed leads to the gold.

The objects an ordinary method receives in a real experiment (the query, the
candidates, the context, with a router and debug log as in an LLM run) are
walked through every readable GObject property and every accessor the
typelib lists — zero-argument getters, and one-argument getters fed every
short string and small integer seen so far — recursively, until nothing new
is reached.  The walk must not meet a request, condition, validator, verdict
or dataset, nor any string holding a candidate's id outside that candidate,
and every accessor that could lead to the truth must come back empty.
"""
import re

import pytest
from gi.repository import Anot, GLib, GObject, Json

# Accessors only: never a setter, a closer, a copy (a new object made of
# what it is given) or anything that starts work.
READER = re.compile(r"^(get|list|to|has|is|dup|lookup)(_|$)")
# Accessors that lead to the truth when a method is given it.
TRUTHY = re.compile(r"gold|truth|structure|validator|dataset|shorthand|scenario|judgement")
FORBIDDEN = (Anot.Request, Anot.Condition, Anot.Validator, Anot.Verdict, Anot.Dataset)
MAX_SHORT = 40          # strings fed to one-argument getters (names, keys, days)


@Anot.register_backend("py-blind-echo")
class Echo(Anot.PyBackend):
    """Answers every prompt with "1"."""

    def complete(self, request):
        return "1"


class Walk:
    """Everything reachable from one root, each value with a path."""

    def __init__(self):
        self.objects = {}        # id(obj) -> (obj, path)
        self.strings = []        # (text, path)
        self.accessors = []      # (path, accessor name, value)
        self.short = set()
        self.unfed = set()       # (type, accessor) the walk could not call
        self.copies = set()      # id() of objects a dup_*() made
        self.zero_arg = {}       # path -> zero-argument accessors called there

    def add_string(self, text, path):
        self.strings.append((text, path))
        if len(text) <= MAX_SHORT and "\n" not in text:
            self.short.add(text)

    def value(self, value, path):
        if value is None or isinstance(value, (bool, float)):
            return
        if isinstance(value, int):
            return
        if isinstance(value, str):
            self.add_string(value, path)
            return
        if isinstance(value, bytes):
            self.add_string(value.decode("utf-8", "replace"), path)
            return
        if isinstance(value, GObject.GEnum) or isinstance(value, GObject.GFlags):
            assert not isinstance(value, Anot.Truth), path
            return
        if isinstance(value, Json.Node):
            self.add_string(Json.to_string(value, False), path)
            return
        if isinstance(value, Json.Object):
            node = Json.Node.new(Json.NodeType.OBJECT)
            node.set_object(value)
            self.add_string(Json.to_string(node, False), path)
            return
        if isinstance(value, Json.Array):
            node = Json.Node.new(Json.NodeType.ARRAY)
            node.set_array(value)
            self.add_string(Json.to_string(node, False), path)
            return
        if isinstance(value, (list, tuple)):
            for i, element in enumerate(value):
                self.value(element, f"{path}[{i}]")
            return
        if isinstance(value, dict):
            for key, element in value.items():
                self.value(key, f"{path}.key")
                self.value(element, f"{path}[{key!r}]")
            return
        if isinstance(value, GObject.Object):
            self.object(value, path)
            return
        if isinstance(value, GLib.Bytes):
            self.add_string(bytes(value.get_data() or b"").decode("utf-8", "replace"), path)
            return
        # Any other boxed value: its text form is all a method could read.
        self.add_string(repr(value), path)

    def object(self, obj, path):
        if id(obj) in self.objects:
            return
        self.objects[id(obj)] = (obj, path)
        assert not isinstance(obj, FORBIDDEN), f"{path} is a {type(obj).__name__}"
        for pspec in obj.list_properties():
            if pspec.flags & GObject.ParamFlags.READABLE:
                self.value(obj.get_property(pspec.name), f"{path}:{pspec.name}")

    def accessors_of(self, obj):
        """(name, FunctionInfo) of the typelib's methods of obj's types."""
        seen = set()
        for cls in type(obj).__mro__:
            info = cls.__dict__.get("__info__")
            if info is None or not hasattr(info, "get_methods"):
                continue
            if info.get_namespace() != "Anot":
                continue
            for method in info.get_methods():
                name = method.get_name()
                if method.is_method() and READER.match(name) and name not in seen:
                    seen.add(name)
                    yield name, method

    @staticmethod
    def count_for(obj, name):
        """How many positions get_<thing>(i) takes: get_n_<thing>s()."""
        thing = name[len("get_"):]
        for count in (f"get_n_{thing}s", f"get_n_{thing}es", f"get_n_{thing}"):
            if hasattr(obj, count):
                return getattr(obj, count)()
        return None

    def call(self, obj, path, name, args):
        try:
            result = getattr(obj, name)(*args)
        except (GLib.Error, TypeError, ValueError, IndexError, OverflowError):
            return False
        label = f"{path}.{name}({', '.join(map(repr, args))})"
        self.accessors.append((path, name, result))
        if not args:
            self.zero_arg.setdefault(path, set()).add(name)
        if name.startswith("dup_") and isinstance(result, GObject.Object):
            # A fresh copy of part of the receiver: its own keyed accessors
            # would only copy again, without end.
            self.copies.add(id(result))
        self.value(result, label)
        return True

    def run(self, root, path):
        self.value(root, path)
        done = set()
        # Zero-argument accessors, then one-argument ones fed what was seen,
        # then what those reached: a key a method could only guess is not
        # reachable, so three rounds reach everything.
        for _ in range(3):
            pending = [(key, o, p) for key, (o, p) in list(self.objects.items())]
            grew = False
            for key, obj, opath in pending:
                for name, info in self.accessors_of(obj):
                    inputs = [a for a in info.get_arguments()
                              if a.get_direction() != GIRepositoryDirection.OUT]
                    if len(inputs) == 0:
                        feeds = [()]
                    elif len(inputs) == 1 and key not in self.copies:
                        tag = inputs[0].get_type().get_tag_as_string()
                        if tag == "utf8":
                            feeds = [(s,) for s in sorted(self.short)]
                        elif tag in ("guint32", "gint32", "guint64", "gint64"):
                            count = self.count_for(obj, name)
                            if count is None:
                                self.unfed.add((type(obj).__name__, name))
                                continue
                            feeds = [(i,) for i in range(count)]
                        else:
                            self.unfed.add((type(obj).__name__, name))
                            continue
                    else:
                        self.unfed.add((type(obj).__name__, name))
                        continue
                    for args in feeds:
                        if (key, name, args) in done:
                            continue
                        done.add((key, name, args))
                        self.call(obj, opath, name, args)
                        grew = True
            if not grew:
                return


class GIRepositoryDirection:
    OUT = 1   # GIDirection: IN 0, OUT 1, INOUT 2


def handed_objects(demo, tmp_path, request_ids):
    """What the experiment hands an ordinary method, per request."""
    handed = []

    @Anot.register_method("py-blind-probe", supports_defense=True,
                          options=[Anot.MethodOption.new_int("alpha", 0, 9, 0, "unused")])
    class Probe(Anot.PyMethod):
        """Keeps what it is handed."""

        def rank(self, query, candidates, k, context):
            walk = Walk()
            walk.run(query, "query")
            walk.run(list(candidates), "candidates")
            walk.run(context, "context")
            handed.append((query, list(candidates), context, walk))
            return list(range(len(candidates)))

    exp = Anot.Experiment(demo, "py-blind-probe", candidates=10, out=tmp_path,
                          requests=",".join(request_ids), backend="py-blind-echo",
                          attack="clean,fake_positive", defense=True,
                          method_options={"py-blind-probe.alpha": "1"})
    GLib.setenv("ANOT_DEBUG", "3", True)
    try:
        exp.run_blocking()
    finally:
        GLib.unsetenv("ANOT_DEBUG")
    return handed


@pytest.fixture(scope="module")
def walks(demo, tmp_path_factory):
    return handed_objects(demo, tmp_path_factory.mktemp("blind"), ["R01", "R02", "R03"])


def test_the_walk_reaches_everything_handed(walks):
    # Two attacks (clean, fake_positive) x three requests.
    assert len(walks) == 6
    for query, candidates, context, walk in walks:
        types = {type(o).__name__ for o, _ in walk.objects.values()}
        # Not a vacuous walk: the query, every item with its reviews, the
        # context with its router, usage and debug log were all reached.
        assert {"Query", "Item", "Review", "MethodContext", "Usage", "BackendRouter",
                "DebugLog"} <= types, types
        assert len(walk.objects) > len(candidates) * 2
        assert context.get_option("py-blind-probe.alpha") == "1"
        assert any(name == "get_option" and value == "1" for _, name, value in walk.accessors)
        assert any(name == "get_friends" for _, name, _ in walk.accessors)


def test_no_truth_is_reachable(walks, demo):
    for query, candidates, context, walk in walks:
        request = demo.requests[query.get_id()]
        gold = request.get_gold_item_id()
        assert gold in {c.get_id() for c in candidates}
        ids = {c.get_id(): i for i, c in enumerate(candidates)}

        for text, path in walk.strings:
            # A candidate's id appears only inside that candidate's own data:
            # nothing outside the gold item names the gold.
            for item_id, i in ids.items():
                if item_id in text:
                    assert path.startswith(f"candidates[{i}]"), (item_id, path)
            if request.get_shorthand():
                assert request.get_shorthand() not in text, path

        for path, name, value in walk.accessors:
            if TRUTHY.search(name):
                assert value is None, f"{path}.{name} gave {value!r}"

        assert query.to_dict() == {"id": request.get_id(), "group": request.get_group(),
                                   "text": request.get_text()}


def test_the_gold_item_looks_like_any_other(walks, demo):
    """The gold candidate answers the same accessors and has the same
    properties as every other candidate: no member exists only for it."""
    for query, candidates, context, walk in walks:
        gold = demo.requests[query.get_id()].get_gold_item_id()
        gold_pos = next(i for i, c in enumerate(candidates) if c.get_id() == gold)
        expected = walk.zero_arg[f"candidates[{gold_pos}]"]
        assert "get_id" in expected and "get_record" in expected
        for i, item in enumerate(candidates):
            assert walk.zero_arg[f"candidates[{i}]"] == expected
            assert {p.name for p in item.list_properties()} == \
                {p.name for p in candidates[gold_pos].list_properties()}


def test_truth_methods_get_it_and_only_they(demo, tmp_path):
    got = []

    @Anot.register_method("py-blind-oracle", needs_truth=True)
    class Oracle(Anot.PyMethod):
        """Declares it needs the truth."""

        def rank(self, query, candidates, k, context):
            request = context.get_truth_request()
            got.append((query.get_id(), request.get_gold_item_id(),
                        context.get_validator() is not None))
            return [i for i, c in enumerate(candidates)
                    if c.get_id() == request.get_gold_item_id()]

    exp = Anot.Experiment(demo, "py-blind-oracle", candidates=10, out=tmp_path,
                          requests="R01,R02")
    exp.run_blocking()
    assert got == [(r, demo.requests[r].get_gold_item_id(), True) for r in ("R01", "R02")]
    assert all(r.get_uses_truth() and r.get_gold_rank() == 1 for r in exp.results(10))
