"""Ranking methods written in Python, run by AnotExperiment like C plugins."""
import json
import os
import subprocess
import sys
import time

import pytest
from gi.repository import Anot, Gio, GLib, GObject

POINT = Anot.METHOD_EXTENSION_POINT_NAME


@Anot.register_method("py-validator-oracle", needs_truth=True)
class ValidatorOracle(Anot.PyMethod):
    """Ranks first the candidates the validator says satisfy the request."""

    def rank(self, query, candidates, k, context):
        # Declared needs_truth: the context holds the full request.
        request = context.get_truth_request()
        assert request.get_id() == query.get_id()
        validator = context.get_validator()
        truth = [validator.evaluate(request, item) for item in candidates]
        return sorted(range(len(candidates)), key=lambda i: truth[i] != Anot.Truth.TRUE)


@Anot.register_method("py-reverse")
class Reverse(Anot.PyMethod):
    """Ranks the candidates in reverse order, with scores."""

    def rank(self, request, candidates, k, context):
        n = len(candidates)
        return [(i, float(i)) for i in reversed(range(n))]


@Anot.register_method("py-failing")
class Failing(Anot.PyMethod):
    """Fails in several ways, depending on the request."""

    def rank(self, request, candidates, k, context):
        rid = request.get_id()
        if rid.endswith("1"):
            raise GLib.Error.new_literal(Gio.io_error_quark(), "backend went away",
                                         int(Gio.IOErrorEnum.TIMED_OUT))
        if rid.endswith("2"):
            raise ZeroDivisionError("no candidates to divide by")
        if rid.endswith("3"):
            return [len(candidates)]  # not a position
        if rid.endswith("4"):
            return "not a ranking"
        return list(range(len(candidates)))


class RawFirst(GObject.Object, Anot.Method):
    """The bare interface, without Anot.PyMethod: Gio.Task by hand."""

    __gtype_name__ = "TestRawFirst"

    def do_rank_async(self, request, candidates, k, context, cancellable, callback, *user_data):
        task = Gio.Task.new(self, cancellable, callback)
        ranking = Anot.Ranking.new()
        for i in range(len(candidates)):
            ranking.append(i, float(len(candidates) - i))
        ranking.set_raw_response(f"raw:{context.get_request_id()}")
        task.return_value(ranking)

    def do_rank_finish(self, result):
        return result.propagate_value().value


def rows_of(exp, n, run=1):
    with open(os.path.join(exp.get_directory(), "clean", f"run_{run}", f"results_{n}.jsonl")) as f:
        return [json.loads(line) for line in f]


def test_registered_like_a_plugin():
    registry = Anot.Registry.get_default()
    names = registry.list(POINT)
    assert "py-validator-oracle" in names and "bm25" in names
    assert registry.get_description(POINT, "py-reverse") == \
        "Ranks the candidates in reverse order, with scores."
    assert registry.lookup_type(POINT, "py-reverse") == Reverse.__gtype__
    method = registry.create_method("py-reverse")
    assert isinstance(method, Reverse)
    assert isinstance(method, Anot.Method)


def test_python_method_through_the_experiment(demo, tmp_path):
    exp = Anot.Experiment(demo, "py-validator-oracle", candidates=10, out=tmp_path)
    assert exp.run_blocking()
    # The gold is the one item satisfying its request (the demo validates),
    # so ranking by the validator's truth puts it first every time.
    rows = rows_of(exp, 10)
    assert len(rows) == len(demo.requests)
    assert all(r["gold_rank"] == 1 and "error" not in r for r in rows)
    assert exp.get_metrics(10, 1).get_hits_at(1) == 1.0
    # Rows of a method handed the truth say so; resuming keeps the mark.
    assert all(r["uses_truth"] is True for r in rows)
    assert all(res.get_uses_truth() for res in exp.results(10))


def test_blind_method_rows_are_unmarked_and_cannot_reach_truth(demo, tmp_path):
    seen = []

    @Anot.register_method("py-peeker")
    class Peeker(Anot.PyMethod):
        """Looks for the truth and records what it found."""

        def rank(self, query, candidates, k, context):
            seen.append((type(query).__name__, context.get_truth_request(),
                         context.get_validator()))
            return list(range(len(candidates)))

    exp = Anot.Experiment(demo, "py-peeker", candidates=5, out=tmp_path, limit=3)
    exp.run_blocking()
    assert seen == [("Query", None, None)] * 3
    assert all("uses_truth" not in r for r in rows_of(exp, 5))
    assert not Anot.Registry.get_default().get_flags(POINT, "py-peeker")
    assert Anot.Registry.get_default().get_flags(POINT, "py-validator-oracle") == \
        Anot.PluginFlags.NEEDS_TRUTH


def test_python_ranking_positions_are_mapped_back(philly, tmp_path):
    exp = Anot.Experiment(philly, "py-reverse", candidates=20, out=tmp_path, limit=10)
    exp.run_blocking()
    for row in rows_of(exp, 20):
        assert row["shuffled_preds"] == [20, 19, 18, 17, 16]
        pool = Anot.Pool.new(philly, philly.requests[row["request_id"]], 20)
        assert row["pred_indices"] == [pool.shuffled_to_pool(p - 1) + 1 for p in row["shuffled_preds"]]


def test_bare_interface_implementation(demo, tmp_path):
    Anot.Registry.get_default().register(POINT, RawFirst, "py-raw-first")
    exp = Anot.Experiment(demo, "py-raw-first", candidates=5, out=tmp_path, limit=3)
    exp.run_blocking()
    rows = rows_of(exp, 5)
    assert [r["shuffled_preds"] for r in rows] == [[1, 2, 3, 4, 5]] * 3
    assert [r["raw_response"] for r in rows] == [f"raw:{r['request_id']}" for r in rows]


def test_errors_become_error_rows(demo, tmp_path):
    ids = [r.get_id() for r in demo.requests if r.get_id()[-1] in "12345"][:5]
    exp = Anot.Experiment(demo, "py-failing", candidates=5, out=tmp_path, requests=ids)
    exp.run_blocking()
    rows = {r["request_id"]: r for r in rows_of(exp, 5)}
    assert set(rows) == set(ids)
    for rid, row in rows.items():
        last = rid[-1]
        if last == "1":
            # A GLib.Error keeps its domain and code.
            assert row["error"] == "G_IO_ERROR_TIMED_OUT: backend went away"
        elif last == "2":
            assert row["error"].startswith("ANOT_ERROR_METHOD_FAILED: ZeroDivisionError: "
                                           "no candidates to divide by (test_python_methods.py:")
        elif last == "3":
            assert row["error"].startswith("ANOT_ERROR_METHOD_FAILED: IndexError: position 5")
        elif last == "4":
            assert row["error"].startswith("ANOT_ERROR_METHOD_FAILED: ")
        else:
            assert "error" not in row and len(row["pred_indices"]) == 5
        if "error" in row:
            assert row["pred_indices"] == [] and row["gold_rank"] == 0


class EscapingAsync(GObject.Object, Anot.Method):
    """The interface by hand, with the slips the guide warns of: an exception
    escaping do_rank_async() (before or after finishing the task) or
    do_rank_finish()."""

    __gtype_name__ = "TestEscapingAsync"

    def do_rank_async(self, request, candidates, k, context, cancellable, callback, *user_data):
        task = Gio.Task.new(self, cancellable, callback)
        last = request.get_id()[-1]
        if last == "1":
            raise ValueError("escaped before the task finished")
        if last == "2":
            task.return_value(Anot.Ranking.new_from_indices(range(len(candidates))))
            raise ValueError("escaped after the task finished")
        if last == "3":
            raise GLib.Error.new_literal(Gio.io_error_quark(), "no route to the backend",
                                         int(Gio.IOErrorEnum.HOST_UNREACHABLE))
        task.return_value(None if last == "4" else
                          Anot.Ranking.new_from_indices(reversed(range(len(candidates)))))

    def do_rank_finish(self, result):
        value = result.propagate_value().value
        if value is None:
            raise KeyError("no ranking in the task")
        return value


def test_exceptions_escaping_an_async_method_fail_its_request_at_once(demo, tmp_path):
    # PyGObject only prints an exception a vfunc raises: the request used to
    # wait for its deadline and be recorded as a timeout, naming nothing.
    Anot.Registry.get_default().register(POINT, EscapingAsync, "py-escaping-async")
    ids = [r.get_id() for r in demo.requests if r.get_id()[-1] in "12345"][:5]
    assert sorted(i[-1] for i in ids) == list("12345")
    start = time.monotonic()
    exp = Anot.Experiment(demo, "py-escaping-async", candidates=5, out=tmp_path, requests=ids,
                          request_timeout=30)
    exp.run_blocking(progress=False)
    assert time.monotonic() - start < 20
    rows = {r["request_id"]: r for r in rows_of(exp, 5)}
    assert set(rows) == set(ids)
    for rid, row in rows.items():
        last = rid[-1]
        if last == "1":
            assert row["error"].startswith("ANOT_ERROR_METHOD_FAILED: ValueError: escaped before "
                                           "the task finished (test_python_methods.py:")
        elif last == "2":
            # The task finished first: its ranking stands.
            assert "error" not in row and row["shuffled_preds"] == [1, 2, 3, 4, 5]
        elif last == "3":
            # A GLib.Error keeps its domain and code, as from a PyMethod.
            assert row["error"] == "G_IO_ERROR_HOST_UNREACHABLE: no route to the backend"
        elif last == "4":
            assert row["error"].startswith("ANOT_ERROR_METHOD_FAILED: KeyError: 'no ranking in "
                                           "the task' (test_python_methods.py:")
        else:
            assert "error" not in row and row["shuffled_preds"] == [5, 4, 3, 2, 1]


def test_an_escaping_exception_fails_rank_blocking(demo_dir):
    # rank_blocking() has no deadline: without the guard it waited forever,
    # hence the child process and its timeout.
    code = f"""
import gi
gi.require_version("Anot", "1.0")
from gi.repository import Anot, Gio, GLib, GObject

class Escaping(GObject.Object, Anot.Method):
    def do_rank_async(self, request, candidates, k, context, cancellable, callback, *user_data):
        task = Gio.Task.new(self, cancellable, callback)
        raise ValueError("escaped before the task finished")

    def do_rank_finish(self, result):
        return result.propagate_value().value

Anot.Registry.get_default().register(Anot.METHOD_EXTENSION_POINT_NAME, Escaping, "escaping")
dataset = Anot.Dataset.load({demo_dir!r})
request = dataset.requests["R01"]
pool = Anot.Pool.new(dataset, request, 5)
context = Anot.MethodContext.new(dataset, "R01", 1)
try:
    Anot.Registry.get_default().create_method("escaping").rank_blocking(request, pool.shuffled, context)
except GLib.Error as error:
    print(error.matches(Anot.error_quark(), Anot.Error.METHOD_FAILED), error.message)
"""
    child = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert child.returncode == 0, child.stderr
    assert child.stdout.startswith("True ValueError: escaped before the task finished (<string>:")


def test_rank_blocking_raises_the_method_error(demo):
    method = Anot.Registry.get_default().create_method("py-failing")
    request = next(r for r in demo.requests if r.get_id().endswith("2"))
    pool = Anot.Pool.new(demo, request, 5)
    context = Anot.MethodContext.new(demo, request.get_id(), 1)
    with pytest.raises(GLib.Error) as info:
        method.rank_blocking(request, pool.shuffled, context)
    assert info.value.domain == "anot-error-quark"
    assert info.value.code == Anot.Error.METHOD_FAILED
    assert info.value.matches(Anot.error_quark(), Anot.Error.METHOD_FAILED)


def test_rank_blocking_of_a_c_plugin(philly):
    bm25 = Anot.Registry.get_default().create_method("bm25")
    request = philly.requests["R01"]
    pool = Anot.Pool.new(philly, request, 10)
    context = Anot.MethodContext.new(philly, "R01", 1)
    ranking = bm25.rank_blocking(request, pool.shuffled, context, k=5)
    assert sorted(ranking) == list(range(10))
    assert ranking.scores == sorted(ranking.scores, reverse=True)


def test_method_options_and_seed_reach_python(demo, tmp_path):
    seen = {}

    @Anot.register_method("py-spy", options=[
        Anot.MethodOption.new_double("alpha", 0, 1, 0.25, "a weight"),
        Anot.MethodOption.new_choice("mode", ["fast", "slow"], 1, "how"),
    ])
    class Spy(Anot.PyMethod):
        """Records its context."""

        def rank(self, request, candidates, k, context):
            seen[context.get_request_id()] = (context.get_option("py-spy.alpha"), context.get_seed(),
                                              k, len(candidates))
            return range(len(candidates))

    exp = Anot.Experiment(demo, "py-spy", candidates=7, k=3, out=tmp_path, limit=4,
                          method_options={"py-spy.alpha": 0.5})
    exp.run_blocking()
    assert sorted(seen) == sorted(r.get_id() for r in demo.requests[:4])
    assert {v[0] for v in seen.values()} == {"0.5"}
    assert {v[2:] for v in seen.values()} == {(3, 7)}
    # Each request has its own seed, derived from the run seed (42 + 1).
    seeds = {rid: v[1] for rid, v in seen.items()}
    assert len(set(seeds.values())) == len(seeds)
    assert all(seed == Anot.seed_derive(43, f"method:{rid}:7") for rid, seed in seeds.items())
    config_path = os.path.join(exp.get_directory(), "clean", "run_1", "config.json")
    with open(config_path) as f:
        settings = json.load(f)["anot"]["method_settings"]
    assert settings == {"alpha": {"value": 0.5, "source": "method option py-spy.alpha"},
                        "mode": {"value": "slow", "source": "default"}}

    options = Anot.Registry.get_default().list_method_options("py-spy")
    assert [(o.get_name(), o.get_value_type(), o.get_default()) for o in options] == [
        ("alpha", Anot.MethodOptionType.DOUBLE, "0.25"), ("mode", Anot.MethodOptionType.CHOICE, "slow")]
    assert list(options[1].get_choices()) == ["fast", "slow"]


def test_a_signed_integer_option_is_read_with_get_int(demo, tmp_path):
    # MethodOption.new_int declares a signed 64-bit range, which get_uint
    # cannot read (nor name without a critical about the range).
    seen = {}

    @Anot.register_method("py-offset", options=[
        Anot.MethodOption.new_int("offset", -10, 10, -1, "positions to rotate the candidates by")])
    class Offset(Anot.PyMethod):
        """Rotates the candidates by an offset that may be negative."""

        def rank(self, request, candidates, k, context):
            settings = Anot.MethodSettings.new("py-offset")
            settings.load_for_context(context)
            ok, offset = settings.get_int(context, "offset", -1, -10, 10)
            seen[context.get_request_id()] = offset
            return [(i + offset) % len(candidates) for i in range(len(candidates))]

    exp = Anot.Experiment(demo, "py-offset", candidates=5, out=tmp_path, limit=2,
                          method_options={"py-offset.offset": -3})
    exp.run_blocking(progress=False)
    assert set(seen.values()) == {-3}
    assert [r["shuffled_preds"] for r in rows_of(exp, 5)] == [[3, 4, 5, 1, 2]] * 2

    settings = Anot.MethodSettings.new("py-offset")
    context = Anot.MethodContext.new(demo, "R01", 1)
    assert settings.get_int(context, "offset", -1, -10, 10) == (True, -1)
    context.set_option("py-offset.offset", "-11")
    with pytest.raises(GLib.Error) as info:
        settings.get_int(context, "offset", -1, -10, 10)
    assert "py-offset.offset (from method option py-offset.offset): expected an integer from -10 to 10, " \
        "got “-11”" in info.value.message


@pytest.mark.parametrize("options, named", [
    ({"py-spy.alpah": 0.5}, "py-spy.alpah (did you mean py-spy.alpha?)"),
    ({"py-spy.alpha": "abc"}, "py-spy.alpha (from method option py-spy.alpha): expected a number from 0 to 1"),
    ({"py-spy.alpha": 2}, "expected a number from 0 to 1, got “2”"),
    ({"py-spy.mode": "medium"}, "expected one of fast, slow"),
    ({"bm25.k1": 1}, "an option of the method bm25"),
    ({"format.styel": "json"}, "did you mean format.style?"),
])
def test_method_options_checked_before_the_run(demo, tmp_path, options, named):
    @Anot.register_method("py-spy", uses_formatter=True, options=[
        Anot.MethodOption.new_double("alpha", 0, 1, 0.25, "a weight"),
        Anot.MethodOption.new_choice("mode", ["fast", "slow"], 1, "how"),
    ])
    class Spy(Anot.PyMethod):
        """Never runs."""

        def rank(self, request, candidates, k, context):
            raise AssertionError("ran despite a bad option")

    exp = Anot.Experiment(demo, "py-spy", candidates=7, out=tmp_path, name="bad", limit=2,
                          method_options=options)
    with pytest.raises(GLib.Error) as error:
        exp.run_blocking()
    assert error.value.matches(Anot.error_quark(), Anot.Error.INVALID_ARGUMENT)
    assert named in error.value.message
    assert not os.path.exists(os.path.join(tmp_path, "bad"))


def test_an_option_compat_original_fixes(demo, tmp_path):
    """An option declared fixed under --compat original takes the original's
    value there; another value is refused before the run, naming the option
    and the compat mode, and config.json records the value used."""
    mode = Anot.MethodOption.new_choice("mode", ["ours", "theirs"], 0, "whose way")
    mode.set_original_default("theirs")
    mode.set_original_fixed(True)
    assert mode.get_original_fixed()
    seen = set()

    @Anot.register_method("py-compat", options=[mode])
    class Compat(Anot.PyMethod):
        """Records the option it was given."""

        def rank(self, request, candidates, k, context):
            seen.add(context.get_option("py-compat.mode"))
            return range(len(candidates))

    refused = Anot.Experiment(demo, "py-compat", candidates=5, out=tmp_path, name="refused", limit=1,
                              compat="original", method_options={"py-compat.mode": "ours"})
    with pytest.raises(GLib.Error) as error:
        refused.run_blocking()
    assert error.value.matches(Anot.error_quark(), Anot.Error.INVALID_ARGUMENT)
    assert ("py-compat.mode=ours (from method option py-compat.mode) contradicts --compat original"
            in error.value.message)
    assert not os.path.exists(os.path.join(tmp_path, "refused"))

    # Also a C method's: listwise's one call over all N.
    listwise = Anot.Experiment(demo, "listwise", candidates=5, out=tmp_path, name="lw", limit=1,
                               compat=Anot.CompatMode.ORIGINAL, method_options={"listwise.window": 20})
    with pytest.raises(GLib.Error, match=r"listwise.window=20 .* contradicts --compat original"):
        listwise.prepare()

    for name, options, recorded in [("theirs", {}, {"value": "theirs", "source": "default (--compat original)"}),
                                    ("spelled", {"py-compat.mode": "THEIRS"},
                                     {"value": "theirs", "source": "method option py-compat.mode"})]:
        exp = Anot.Experiment(demo, "py-compat", candidates=5, out=tmp_path, name=name, limit=1,
                              compat="original", method_options=options)
        exp.run_blocking()
        with open(os.path.join(exp.get_directory(), "clean", "run_1", "config.json")) as f:
            assert json.load(f)["anot"]["method_settings"]["mode"] == recorded

    # Without --compat the option takes any of its values.
    exp = Anot.Experiment(demo, "py-compat", candidates=5, out=tmp_path, name="ours", limit=1,
                          method_options={"py-compat.mode": "ours"})
    exp.run_blocking()
    assert "ours" in seen


def test_environment_variable_of_no_declared_key(demo, tmp_path, monkeypatch):
    """ANOT_<METHOD>_<KEY> for a key the run's method does not declare is
    refused before the run, with the nearest declared variable; the
    project's own ANOT_ variables, LLM role settings and the variables of
    a method whose name extends this one's are not its options."""
    for name in ("py-pre", "py-pre-fix", "test", "plugin"):
        @Anot.register_method(name, options=[Anot.MethodOption.new_int("mode", 0, 9, 1, "a mode")])
        class Any(Anot.PyMethod):
            """Ranks in order."""

            def rank(self, request, candidates, k, context):
                return range(len(candidates))

    def run(method, name):
        exp = Anot.Experiment(demo, method, candidates=5, out=tmp_path, name=name, limit=1)
        exp.run_blocking()
        return exp

    monkeypatch.setenv("ANOT_PY_PRE_MODDE", "2")
    with pytest.raises(GLib.Error) as error:
        run("py-pre", "typo")
    assert error.value.matches(Anot.error_quark(), Anot.Error.INVALID_ARGUMENT)
    assert ("Environment variable ANOT_PY_PRE_MODDE sets no option of the method py-pre "
            "(did you mean ANOT_PY_PRE_MODE?)") in error.value.message
    assert not os.path.exists(os.path.join(tmp_path, "typo"))
    monkeypatch.delenv("ANOT_PY_PRE_MODDE")

    # py-pre-fix's option, an LLM role's model, and ANOT_PY_PRE_MODE itself.
    monkeypatch.setenv("ANOT_PY_PRE_FIX_MODE", "3")
    monkeypatch.setenv("ANOT_PY_PRE_JUDGE_MODEL", "small")
    monkeypatch.setenv("ANOT_PY_PRE_MAX_TOKENS", "100")
    monkeypatch.setenv("ANOT_PY_PRE_MODE", "4")
    exp = run("py-pre", "fine")
    with open(os.path.join(exp.get_directory(), "clean", "run_1", "config.json")) as f:
        assert json.load(f)["anot"]["method_settings"]["mode"] == {
            "value": 4, "source": "environment ANOT_PY_PRE_MODE"}
    # ...but py-pre-fix refuses what is not its own.
    monkeypatch.setenv("ANOT_PY_PRE_FIX_MODES", "3")
    with pytest.raises(GLib.Error, match="ANOT_PY_PRE_FIX_MODES sets no option of the method py-pre-fix"):
        run("py-pre-fix", "fix")

    # The test suite's own ANOT_TEST_SRCDIR and ANOT_PLUGIN_PATH are set.
    assert os.environ.get("ANOT_TEST_SRCDIR") and os.environ.get("ANOT_PLUGIN_PATH")
    run("test", "test")
    run("plugin", "plugin")
    monkeypatch.setenv("ANOT_PLUGIN_MOD", "1")
    with pytest.raises(GLib.Error, match="ANOT_PLUGIN_MOD .*did you mean ANOT_PLUGIN_MODE"):
        run("plugin", "plugin2")


def test_format_options_belong_to_methods_using_the_formatter(demo, tmp_path):
    """format.* is taken only by a method that writes its candidates with
    the formatter, and config.json records every format.* value it used,
    defaults included."""
    shown = []

    @Anot.register_method("py-formats", uses_formatter=True)
    class Formats(Anot.PyMethod):
        """Formats its candidates as the context says."""

        def rank(self, request, candidates, k, context):
            formatter = Anot.Formatter.new()
            formatter.apply_options(context)
            shown.append(formatter.props.max_reviews)
            return range(len(candidates))

    @Anot.register_method("py-plain")
    class Plain(Anot.PyMethod):
        """Never formats its candidates."""

        def rank(self, request, candidates, k, context):
            return range(len(candidates))

    refused = Anot.Experiment(demo, "py-plain", candidates=5, out=tmp_path, name="plain", limit=1,
                              method_options={"format.max-reviews": 3})
    with pytest.raises(GLib.Error, match="py-plain does not write its candidates with the formatter"):
        refused.run_blocking()
    assert not os.path.exists(os.path.join(tmp_path, "plain"))

    exp = Anot.Experiment(demo, "py-formats", candidates=5, out=tmp_path, name="formats", limit=1,
                          method_options={"format.max-reviews": 3})
    exp.run_blocking()
    assert shown == [3]
    with open(os.path.join(exp.get_directory(), "clean", "run_1", "config.json")) as f:
        settings = json.load(f)["anot"]["method_settings"]
    assert settings["format.max-reviews"] == {"value": 3, "source": "method option format.max-reviews"}
    assert settings["format.style"] == {"value": "json", "source": "default"}
    assert settings["format.first-index"] == {"value": 1, "source": "default"}
    assert settings["format.exclude"] == {"value": None, "source": "default"}
    assert sorted(settings) == sorted("format." + key for key in (
        "style", "max-reviews", "review-chars", "item-chars", "truncation-mark", "first-index",
        "ensure-ascii", "exclude"))


def test_defense_needs_a_method_that_applies_it(demo, tmp_path):
    exp = Anot.Experiment(demo, "py-reverse", candidates=5, out=tmp_path, limit=1, defense=True)
    with pytest.raises(GLib.Error) as error:
        exp.run_blocking()
    assert "does not support defense mode" in error.value.message


def test_reregistering_a_name_replaces_the_class(demo, tmp_path):
    # What re-running a notebook cell does.
    for answer in ([0, 1, 2], [2, 1, 0]):
        @Anot.register_method("py-cell")
        class Cell(Anot.PyMethod):
            """A notebook cell."""

            def rank(self, request, candidates, k, context, answer=answer):
                return answer

        exp = Anot.Experiment(demo, "py-cell", candidates=3, out=tmp_path, limit=2, force=True)
        exp.run_blocking()
        assert [r["shuffled_preds"] for r in rows_of(exp, 3)] == [[a + 1 for a in answer]] * 2


def test_a_class_that_is_no_method_is_refused():
    class NotAMethod(GObject.Object):
        __gtype_name__ = "TestNotAMethod"

    registry = Anot.Registry.get_default()
    registry.register(POINT, NotAMethod, "py-not-a-method")
    assert "py-not-a-method" not in registry.list(POINT)
    with pytest.raises(GLib.Error) as info:
        registry.create_method("py-not-a-method")
    assert info.value.matches(Anot.error_quark(), Anot.Error.PLUGIN_NOT_FOUND)


def test_unknown_method_is_a_glib_error(demo, tmp_path):
    exp = Anot.Experiment(demo, "no-such-method", out=tmp_path)
    with pytest.raises(GLib.Error) as info:
        exp.run_blocking()
    assert info.value.domain == GLib.quark_to_string(Anot.error_quark())
    assert info.value.code == Anot.Error.PLUGIN_NOT_FOUND
    assert "no-such-method" in info.value.message


def test_bad_option_is_a_glib_error(demo, tmp_path):
    exp = Anot.Experiment(demo, "bm25", candidates=1000, out=tmp_path)
    with pytest.raises(GLib.Error) as info:
        exp.prepare()
    assert info.value.code == Anot.Error.INVALID_ARGUMENT
    assert "1000" in info.value.message
