# Anot.py: Pythonic helpers on top of the introspected Anot-1.0 API
#
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# PyGObject imports this module as gi.overrides.Anot when a program does
# `from gi.repository import Anot`.  Everything the library can do is
# already available through introspection; this module only adds what makes
# it pleasant from Python: sequences instead of get_n_x()/get_x(i) pairs,
# dicts instead of JsonNode, keyword options, a blocking run that Ctrl-C
# cancels cleanly, and base classes for methods and backends written in
# Python.  Nothing here changes what the C API does.

import collections.abc
import contextlib
import functools
import importlib.metadata
import json
import logging
import os
import signal
import sys
import threading
import time
import traceback

from gi.repository import GLib, GObject, Gio, Json

from ..module import get_introspection_module
from ..overrides import override

Anot = get_introspection_module("Anot")

__all__ = []

_log = logging.getLogger("gi.repository.Anot")


def _export(obj):
    __all__.append(obj.__name__)
    return obj


def _json_to_py(node):
    """A JsonNode (or JsonObject / JsonArray) as plain Python values."""
    if node is None:
        return None
    if isinstance(node, Json.Object):
        wrapper = Json.Node.new(Json.NodeType.OBJECT)
        wrapper.set_object(node)
        node = wrapper
    elif isinstance(node, Json.Array):
        wrapper = Json.Node.new(Json.NodeType.ARRAY)
        wrapper.set_array(node)
        node = wrapper
    return json.loads(Json.to_string(node, False))


def _option_text(value):
    if value is None:
        return None
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (list, tuple, set, frozenset)):
        return ",".join(str(v) for v in value)
    if isinstance(value, os.PathLike):
        return os.fspath(value)
    if isinstance(value, GObject.GEnum):
        # attack_compat=Anot.AttackCompat.ORIGINAL -> "original"
        return value.value_nick
    return str(value)


# ---------------------------------------------------------------------------
# Sequences over a dataset


class _IndexedView(collections.abc.Sequence):
    """A read-only sequence over get_n_x() / get_x(i), also indexable by id."""

    __slots__ = ("_owner", "_count", "_get", "_lookup", "_what")

    def __init__(self, owner, count, get, lookup, what):
        self._owner = owner
        self._count = count
        self._get = get
        self._lookup = lookup
        self._what = what

    def __len__(self):
        return self._count(self._owner)

    def __getitem__(self, key):
        if isinstance(key, slice):
            return [self._get(self._owner, i) for i in range(*key.indices(len(self)))]
        if isinstance(key, str):
            found = self._lookup(self._owner, key) if self._lookup else None
            if found is None:
                raise KeyError(key)
            return found
        n = len(self)
        index = key.__index__()
        if index < 0:
            index += n
        if not 0 <= index < n:
            raise IndexError(f"{self._what} index {key} out of range (0..{n - 1})")
        return self._get(self._owner, index)

    def __iter__(self):
        for i in range(len(self)):
            yield self._get(self._owner, i)

    def __contains__(self, value):
        if isinstance(value, str):
            return self._lookup is not None and self._lookup(self._owner, value) is not None
        return any(value == v for v in self)

    def get(self, key, default=None):
        """The element with id `key`, or `default`."""
        try:
            return self[key]
        except (KeyError, IndexError):
            return default

    def __repr__(self):
        return f"<{self._what} list of {len(self)}>"


@_export
class Dataset(Anot.Dataset):
    """A loaded benchmark.

    `dataset.items` and `dataset.requests` are sequences: `len()`, iteration,
    slicing, integer indices and ids (`dataset.requests["R01"]`).
    """

    @staticmethod
    def load(path, cancellable=None):
        return Anot.Dataset.load(os.fspath(path), cancellable)

    @staticmethod
    def load_async(path, cancellable, callback, *user_data):
        return Anot.Dataset.load_async(os.fspath(path), cancellable, callback, *user_data)

    @property
    def items(self):
        return _IndexedView(self, Anot.Dataset.get_n_items, Anot.Dataset.get_item,
                            Anot.Dataset.lookup_item, "item")

    @property
    def requests(self):
        return _IndexedView(self, Anot.Dataset.get_n_requests, Anot.Dataset.get_request,
                            Anot.Dataset.lookup_request, "request")

    @property
    def groups(self):
        return list(self.list_groups())

    def requests_in_group(self, group):
        """The requests of one group (`"G01"`), in dataset order."""
        return [r for r in self.requests if r.get_group() == group]

    def get_friends(self, name):
        """The friends of `name` in the friend graph, or None if `name` is not in it."""
        return _friends(self, name)

    def __repr__(self):
        return (f"<Anot.Dataset {self.get_name()!r}: {self.get_n_items()} items, "
                f"{self.get_n_reviews()} reviews, {self.get_n_requests()} requests>")


Dataset = override(Dataset)


def _friends(owner, name):
    # PyGObject gives [] for a NULL zero-terminated array: the C API's NULL
    # (not in the graph) would read as "no friends".
    found, friends = owner.lookup_friends(name)
    return list(friends or []) if found else None


@_export
class MethodContext(Anot.MethodContext):
    @staticmethod
    def new_for_run(dataset, request_id, n_candidates, seed=42, run=1):
        """The context run `run` of an experiment with `seed` (`--seed`, 42
        by default) gives the method for `request_id` at N = `n_candidates`:
        the same seed, so a seeded method ranks as in that run.  Its pool is
        `Anot.Pool.new(dataset, request, n_candidates, seed=seed + run)`."""
        return Anot.MethodContext.new_for_run(dataset, request_id, n_candidates, seed, run)

    def get_friends(self, name):
        """The friends of `name` in the friend graph, or None if `name` is not in it."""
        return _friends(self, name)


MethodContext = override(MethodContext)


@_export
class Item(Anot.Item):
    """One candidate item (a cafe); `item.reviews` is a list."""

    @property
    def reviews(self):
        return list(self.get_reviews())

    @property
    def attributes(self):
        """The item's attributes as a dict ({} when it has none)."""
        return _json_to_py(self.get_attributes()) or {}

    def to_dict(self):
        """The item's record as in `restaurants.jsonl`, without the fields
        that leak the answer (`llm_score`, `llm_reasoning`): what a method
        may read (`_json_to_py(item.dup_file_record())` has them)."""
        return _json_to_py(self.get_record())

    def __repr__(self):
        return f"<Anot.Item #{self.get_index()} {self.get_id()} {self.get_name()!r}>"


Item = override(Item)


@_export
class Review(Anot.Review):
    def to_dict(self):
        return _json_to_py(self.to_json())

    def __repr__(self):
        return f"<Anot.Review {self.get_id()} by {self.get_reviewer_name()!r}, {self.get_stars():g} stars>"


Review = override(Review)


@_export
class Request(Anot.Request):
    def to_dict(self):
        """id, group, text, gold and the structure as plain values."""
        return {
            "id": self.get_id(),
            "group": self.get_group(),
            "text": self.get_text(),
            "shorthand": self.get_shorthand(),
            "scenario": self.get_scenario(),
            "gold": self.get_gold_item_id(),
            "gold_index": self.get_gold_index(),
            "structure": self.get_structure().to_dict(),
        }

    def __repr__(self):
        return f"<Anot.Request {self.get_id()} ({self.get_group()}): {self.get_text()!r}>"


Request = override(Request)


@_export
class Query(Anot.Query):
    """A request as a method sees it: id, group and text, nothing else."""

    def to_dict(self):
        return {"id": self.get_id(), "group": self.get_group(), "text": self.get_text()}

    def __repr__(self):
        return f"<Anot.Query {self.get_id()} ({self.get_group()}): {self.get_text()!r}>"


Query = override(Query)


@_export
class Condition(Anot.Condition):
    """A node of a request's structure; iterating it yields its children."""

    def __len__(self):
        return self.get_n_children()

    def __iter__(self):
        for i in range(self.get_n_children()):
            yield self.get_child(i)

    def __bool__(self):
        return True

    @property
    def leaves(self):
        return list(self.collect_leaves())

    def to_dict(self):
        return _json_to_py(self.to_json())


Condition = override(Condition)


@_export
class Verdict(Anot.Verdict):
    @property
    def leaves(self):
        """(condition, truth) pairs, one per leaf, in structure order."""
        return [(self.get_leaf(i), self.get_leaf_truth(i)) for i in range(self.get_n_leaves())]

    def to_dict(self):
        return _json_to_py(self.to_json())


Verdict = override(Verdict)


@_export
class Validator(Anot.Validator):
    def truth_matrix_dict(self):
        """The full truth matrix (request → item → result) as a dict."""
        return _json_to_py(self.truth_matrix())


Validator = override(Validator)


@_export
class Pool(Anot.Pool):
    """A request's candidate pool: iterating it yields the items in pool
    order (dataset order); `pool.shuffled` is the order a method sees."""

    @staticmethod
    def new(dataset, request, n_candidates, mode=Anot.PoolMode.SAMPLED,
            shuffle=Anot.ShuffleMode.RANDOM, seed=43):
        """The pool an experiment builds; the default `seed` (the run seed of
        run 1 with the default `--seed 42`) gives run 1's pool and order."""
        return Anot.Pool.new(dataset, request, n_candidates, mode, shuffle, seed)

    def __len__(self):
        return self.get_size()

    def __iter__(self):
        for i in range(self.get_size()):
            yield self.get_item(i)

    @property
    def shuffled(self):
        return list(self.get_shuffled())


Pool = override(Pool)


# ---------------------------------------------------------------------------
# Rankings and results


@_export
class Ranking(Anot.Ranking):
    """A method's answer: positions into the candidates, best first.

    `list(ranking)` gives the positions, `ranking.scores` their scores.
    """

    @classmethod
    def new_from_indices(cls, indices, scores=None):
        ranking = Anot.Ranking.new()
        indices = list(indices)
        if scores is None:
            scores = [float(len(indices) - i) for i in range(len(indices))]
        for index, score in zip(indices, scores, strict=True):
            ranking.append(int(index), float(score))
        return ranking

    def __len__(self):
        return self.get_length()

    def __iter__(self):
        for i in range(self.get_length()):
            yield self.get_index(i)

    @property
    def scores(self):
        return [self.get_score(i) for i in range(self.get_length())]

    def __repr__(self):
        return f"<Anot.Ranking {list(self)!r}>"


Ranking = override(Ranking)


@_export
class Result(Anot.Result):
    def to_dict(self):
        """The row of `results_<N>.jsonl`, plus `n_candidates` and `run`."""
        row = _json_to_py(self.to_json())
        row["n_candidates"] = self.get_n_candidates()
        row["run"] = self.get_run()
        return row

    def __repr__(self):
        return (f"<Anot.Result {self.get_request_id()} N={self.get_n_candidates()} "
                f"run={self.get_run()} gold_rank={self.get_gold_rank()}>")


Result = override(Result)


@_export
class Metrics(Anot.Metrics):
    def to_dict(self):
        """`{"total", "k", "hits_at": {"1": {"hits", "accuracy"}, …}, "mrr", "groups"}`."""
        return _json_to_py(self.to_json())

    def hits(self):
        """Hits@1..K as a list (index 0 is Hits@1)."""
        return [self.get_hits_at(j) for j in range(1, self.get_k() + 1)]


Metrics = override(Metrics)


@_export
class Usage(Anot.Usage):
    def to_dict(self):
        return _json_to_py(self.to_json())

    @property
    def cost(self):
        """The cost in US dollars, or None when it is unknown: a call's
        model had no price (`unpriced_calls` of them; see `cost_known`).
        Never a default price, and never the priced calls' part alone."""
        return self.get_cost_usd() if self.get_cost_known() else None


Usage = override(Usage)


@_export
class Results(Anot.Results):
    """What experiments left on disk, as rows (see the C documentation).

    `Anot.Results.load("results/cot_demo")` reads every run directory below
    a results root, experiment, attack or run directory; `load()` of several
    directories reads them all.  `rows()` are dicts, `to_dataframe()` a
    pandas DataFrame when pandas is installed, `trace(i)` the trace of row i.
    """

    @staticmethod
    def load(*paths):
        if not paths:
            raise TypeError("Results.load() needs at least one directory")
        results = Anot.Results.new()
        for path in paths:
            results.add_directory(os.fspath(path))
        return results

    def rows(self):
        """One dict per request, N, run and experiment."""
        return _json_to_py(self.get_rows())

    def runs(self):
        """One dict per run directory: its provenance."""
        return _json_to_py(self.get_runs())

    def trace(self, row):
        """The trace of row `row` as plain Python values, or None."""
        return _json_to_py(self.get_trace(row))

    def by_condition(self, resamples=Anot.COMPARISON_DEFAULT_RESAMPLES,
                     seed=Anot.COMPARISON_DEFAULT_SEED, confidence=0.95):
        """Why the first-ranked item was not the gold, as a dict.

        `anot-run compare --by-condition --format json`'s `by_condition`:
        `kinds` (the evidence kinds met) and `cells`, one per method ×
        attack × N × request group (`group` None for all): `ranked`,
        `misses`, `near_misses`, `no_failed_condition` and per kind in
        `kinds`, each `{count, mean, lower, upper}`.
        """
        comparison = Anot.Comparison.new(self)
        comparison.set_resamples(resamples)
        comparison.set_seed(seed)
        comparison.set_confidence(confidence)
        comparison.set_by_condition(True)
        comparison.compute()
        return _json_to_py(comparison.to_json())["by_condition"]

    def to_dataframe(self):
        """The rows as a pandas DataFrame (ImportError without pandas)."""
        import pandas
        return pandas.DataFrame(self.rows())

    def __len__(self):
        return self.get_n_rows()

    def __iter__(self):
        return iter(self.rows())

    def __repr__(self):
        return "<Anot.Results %d rows from %d runs>" % (self.get_n_rows(), self.get_n_runs())


Results = override(Results)


@_export
class Comparison(Anot.Comparison):
    def to_dict(self):
        return _json_to_py(self.to_json())


Comparison = override(Comparison)


def _computed_comparison(results, baseline, resamples, seed, confidence, by_condition=False):
    """An Anot.Comparison of `results` (an Anot.Results, a directory or
    several), computed."""
    if isinstance(results, (str, os.PathLike)):
        results = Results.load(results)
    elif not isinstance(results, Anot.Results):
        results = Results.load(*results)
    comparison = Anot.Comparison.new(results)
    comparison.set_baseline(baseline)
    comparison.set_resamples(resamples)
    comparison.set_seed(seed)
    comparison.set_confidence(confidence)
    comparison.set_by_condition(by_condition)
    comparison.compute()
    return results, comparison


@_export
def compare(results, baseline=None, resamples=Anot.COMPARISON_DEFAULT_RESAMPLES,
            seed=Anot.COMPARISON_DEFAULT_SEED, confidence=0.95, by_condition=False):
    """Methods compared with confidence intervals, as a dict.

    `results` is an `Anot.Results` or one or more directories.  The dict is
    `anot-run compare --format json`: `cells` (every method × attack × N with
    `hits_at_1`, `hits_at_3`, `hits_at_5`, `mrr` as `{mean, lower, upper}`),
    `paired` (every method against `baseline` on the same (request, N, run)
    cells: the difference, its interval and the exact McNemar p-value of
    Hits@1) and `robustness` (attacked against clean); with
    `by_condition=True` also `by_condition` (`anot-run compare
    --by-condition`, see `Results.by_condition()`).  Raises GLib.Error
    (Anot.Error.NOT_COMPARABLE) when pools differ.
    """
    _, comparison = _computed_comparison(results, baseline, resamples, seed, confidence,
                                         by_condition)
    return _json_to_py(comparison.to_json())


@_export
def write_report(results, path, baseline=None, title=None, resamples=Anot.COMPARISON_DEFAULT_RESAMPLES,
                 seed=Anot.COMPARISON_DEFAULT_SEED, confidence=0.95, trace_budget_mb=64):
    """Writes the self-contained HTML report of `anot-run report` to `path`."""
    results, comparison = _computed_comparison(results, baseline, resamples, seed, confidence,
                                               True)
    writer = Anot.ReportWriter.new(results, comparison)
    if title is not None:
        writer.set_title(title)
    writer.set_trace_budget(int(trace_budget_mb * 1024 * 1024))
    writer.write(os.fspath(path))
    return os.fspath(path)


# ---------------------------------------------------------------------------
# Cancellation on Ctrl-C


class _Interrupt:
    """SIGINT handling of cancel_on_interrupt(): the first Ctrl-C cancels."""

    def __init__(self, cancellable, raise_on_second):
        self.cancellable = cancellable
        self.count = 0
        self.raise_on_second = raise_on_second

    def __call__(self, signum, frame):
        self.count += 1
        if self.count == 1:
            self.cancellable.cancel()
        elif self.raise_on_second:
            raise KeyboardInterrupt


def _is_cancelled_error(error):
    return error.matches(Gio.io_error_quark(), Gio.IOErrorEnum.CANCELLED)


@contextlib.contextmanager
def _interrupt_scope(cancellable, raise_on_second):
    """Installs _Interrupt as the SIGINT handler for the block.

    After a Ctrl-C the block ends with KeyboardInterrupt, also when the
    operation it cancelled failed with G_IO_ERROR_CANCELLED.
    """
    state = _Interrupt(cancellable if cancellable is not None else Gio.Cancellable(),
                       raise_on_second)
    in_main_thread = threading.current_thread() is threading.main_thread()
    previous = signal.signal(signal.SIGINT, state) if in_main_thread else None
    try:
        yield state
    except GLib.Error as error:
        if state.count and _is_cancelled_error(error):
            raise KeyboardInterrupt from error
        raise
    finally:
        if in_main_thread:
            signal.signal(signal.SIGINT, previous)
    if state.count:
        raise KeyboardInterrupt


@_export
@contextlib.contextmanager
def cancel_on_interrupt(cancellable=None):
    """Cancel `cancellable` on the first Ctrl-C (SIGINT) inside the block.

    Yields the cancellable (a new one when none is given).  A second Ctrl-C
    raises KeyboardInterrupt at once.  After the block, if a Ctrl-C
    arrived, KeyboardInterrupt is raised, so an interrupted cell still ends
    like an interrupted Python program does — after the operation had the
    chance to write what it had.  Outside the main thread (where Python
    cannot install signal handlers) the block simply runs.
    """
    with _interrupt_scope(cancellable, True) as state:
        yield state.cancellable


def _wait_for(start, finish, interrupt=None):
    """Runs an async operation to completion on a private main context.

    Wakes up every 100 ms so that Python's signal handlers run while it
    waits; a second Ctrl-C (`interrupt.count >= 2`) stops waiting.
    """
    context = GLib.MainContext.new()
    context.push_thread_default()
    try:
        done = []
        start(lambda source, result, *data: done.append(result))
        tick = GLib.timeout_source_new(100)
        tick.set_callback(lambda *args: GLib.SOURCE_CONTINUE)
        tick.attach(context)
        try:
            while not done:
                context.iteration(True)
                if interrupt is not None and interrupt.count >= 2:
                    raise KeyboardInterrupt
        finally:
            tick.destroy()
        return finish(done[0])
    finally:
        context.pop_thread_default()


# ---------------------------------------------------------------------------
# Experiments


def _config_key(key):
    return key.replace("_", "-")


@_export
class RunConfig(Anot.RunConfig):
    """The typed settings of an experiment (see the C documentation for
    every key).

    `Anot.RunConfig(candidates=[10, 20], seed=7)` sets them as keywords:
    values may be str, int, float, bool or lists (`candidates=[10, 20]`),
    underscores in names become dashes (`max_tokens` → `max-tokens`), and
    `method_options={"bm25.k1": 1.2}` become `method.bm25.k1`.  An unknown
    key or a bad value raises GLib.Error naming it.
    """

    def __new__(cls, method_options=None, **options):
        return Anot.RunConfig.new()

    def __init__(self, method_options=None, **options):
        self.update(method_options=method_options, **options)

    def set(self, key, value):
        return Anot.RunConfig.set(self, key, _option_text(value))

    def update(self, method_options=None, **options):
        for key, value in options.items():
            self.set(_config_key(key), value)
        for key, value in (method_options or {}).items():
            self.set("method." + key, value)

    def to_dict(self):
        """The settings that were given, as text."""
        return _json_to_py(self.to_json())


RunConfig = override(RunConfig)


_experiment_merge_shards = Anot.Experiment.merge_shards


@_export
class Experiment(Anot.Experiment):
    """Runs one method over a benchmark; see the C documentation for options.

    `Anot.Experiment(dataset, "bm25", candidates=10, out="/tmp/r")` sets the
    options as keywords, through an Anot.RunConfig (same rules: lists as
    `candidates=[10, 20]`, `max_tokens` → `max-tokens`, enums give their
    nick (`attack_compat=Anot.AttackCompat.ORIGINAL` → `attack-compat=original`,
    the original framework's labelled fake reviews instead of realistic
    ones), `method_options={"bm25.k1": 1.2}` → `method.bm25.k1`,
    `shard=(i, n)` → `shard=i/n`, one of n shards (see merge_shards()); an
    unknown key or a bad value raises GLib.Error at once, naming the key.
    """

    def __init__(self, dataset=None, method=None, method_options=None, **options):
        super().__init__(dataset=dataset, method=method)
        self.set_options(method_options=method_options, **options)

    def set_option(self, key, value):
        config = self.get_config()
        config.set(key, _option_text(value))
        self.set_config(config)

    def set_options(self, method_options=None, **options):
        config = self.get_config()
        for key, value in options.items():
            if key == "shard" and isinstance(value, (tuple, list)):
                index, count = value
                value = "%d/%d" % (index, count)
            config.set(_config_key(key), _option_text(value))
        for key, value in (method_options or {}).items():
            config.set("method." + key, _option_text(value))
        self.set_config(config)

    def run(self, cancellable=None):
        return Anot.Experiment.run(self, cancellable)

    def estimate(self, completion_tokens=300):
        """What running the experiment would cost, without calling any LLM.

        The same figures as `anot-run estimate --json`, as a dict: `rows`
        (one per attack and N: calls, prompt and completion tokens,
        `cost_usd`, `batch_cost_usd`, `incomplete` requests), `total`,
        `tokenizers` (model → encoding, or "approximate"), `call_formula`,
        `prices_as_of` and `unpriced_models` (models without a price: the
        costs are then None, unknown, never a default price).  `completion_tokens` is the answer length
        assumed for a call that sets no max_tokens.  Raises GLib.Error when
        the experiment cannot be prepared.
        """
        return _json_to_py(Anot.Experiment.estimate(self, completion_tokens))

    def preview_prompts(self, max_calls=1):
        """The exact prompts the method would send, without calling any LLM.

        What `anot-run prompt --json` prints, as a list: one dict per
        planned request and cell (`request_id`, `attack`, `n`, `run`,
        `calls`), each call `{model, role, messages}` with the chat
        messages `{role, content}` as sent.  Choose the request with the
        `requests` option; `max_calls` is how many of each request's calls
        to give (0: every call).  Raises GLib.Error when the experiment
        cannot be prepared.
        """
        return _json_to_py(Anot.Experiment.preview_prompts(self, max_calls))

    def run_blocking(self, cancellable=None, progress=None):
        """Runs the experiment; Ctrl-C (or a notebook's interrupt) cancels it.

        On the first Ctrl-C no new request starts, the requests in flight
        are cancelled, the results so far are written (config.json says
        `"interrupted"`) and then KeyboardInterrupt is raised; a second
        Ctrl-C stops waiting at once.  Errors arrive as GLib.Error, also
        G_IO_ERROR_CANCELLED when `cancellable` was cancelled by the caller.

        While it runs it shows what `anot-run` shows on a terminal: for each
        attack, run and N, the requests done, Hits@1 so far and the time
        left, as a tqdm progress bar (`tqdm.auto`: a widget in a notebook;
        Debian's python3-tqdm) or, without tqdm, a text line on stderr.
        `progress=None` shows it in a notebook or when stderr is a
        terminal, `True` always, `False` never.  Returns True.
        """
        if progress is None:
            progress = _interactive()
        with contextlib.ExitStack() as stack:
            if progress:
                stack.enter_context(_Progress(self))
            with _interrupt_scope(cancellable, False) as interrupt:
                return _wait_for(lambda cb: self.run_async(interrupt.cancellable, cb),
                                 self.run_finish, interrupt)

    @contextlib.contextmanager
    def connected(self, signal_name, callback, *args):
        """Connects `callback` to a signal for the duration of the block."""
        handler = self.connect(signal_name, callback, *args)
        try:
            yield handler
        finally:
            self.disconnect(handler)

    @property
    def candidate_counts(self):
        return list(self.get_candidate_counts() or [])

    def results(self, n_candidates=None, run=None):
        """The AnotResult objects of one N and run, or of all of them."""
        out = []
        for r in self._runs(run):
            for n in self._ns(n_candidates):
                out.extend(self.get_results(n, r) or [])
        return out

    def result_rows(self, n_candidates=None, run=None):
        """Results as a list of dicts (rows of `results_<N>.jsonl`, plus
        `n_candidates` and `run`), for every N and run unless given."""
        return [result.to_dict() for result in self.results(n_candidates, run)]

    def metric_rows(self, n_candidates=None, run=None, by_group=False):
        """Metrics as a list of dicts, one per (run, N) — or per (run, N,
        group) with `by_group=True`: `run`, `n_candidates`, (`group`),
        `requests` (scored), `unscored` (failed by the infrastructure, in no
        metric), `hits_at_1`..`hits_at_K`, `mrr`, `shrunk` (share of requests
        whose prompts were cut to the context window) and `reviews_dropped`
        (mean share of reviews that left out).  Skipped Ns are left out."""
        rows = []
        for r in self._runs(run):
            for n in self._ns(n_candidates):
                if self.is_skipped(n):
                    continue
                metrics = self.get_metrics(n, r)
                if metrics is None:
                    continue
                if by_group:
                    for group in metrics.list_groups():
                        rows.append(_metric_row(metrics.get_group(group), r, n, group))
                else:
                    rows.append(_metric_row(metrics, r, n, None))
        return rows

    def _runs(self, run):
        return [run] if run is not None else range(1, self.get_n_runs() + 1)

    def _ns(self, n_candidates):
        return [n_candidates] if n_candidates is not None else self.candidate_counts


def _interactive():
    """True in a Jupyter kernel or when stderr is a terminal."""
    if "ipykernel" in sys.modules:
        return True
    try:
        return sys.stderr.isatty()
    except (AttributeError, ValueError):
        return False


def _widgets_work():
    """Whether tqdm.auto may draw a widget: ipywidgets 7 or later is
    installed.  Without it tqdm.auto warns; and Debian 12's
    python3-ipywidgets 6, once imported in a kernel, announces itself in an
    old protocol on which nbconvert --execute fails (KeyError: 'state').
    Hence the version from the package's metadata, without importing it."""
    try:
        return int(importlib.metadata.version("ipywidgets").split(".")[0]) >= 7
    except (importlib.metadata.PackageNotFoundError, ValueError):
        return False


def _tqdm_class():
    """tqdm's progress bar class for run_blocking(), or None without tqdm."""
    try:
        if "ipykernel" in sys.modules and not _widgets_work():
            # A text bar, which a notebook shows well enough.
            from tqdm.std import tqdm
        else:
            from tqdm.auto import tqdm
    except ImportError:
        tqdm = None
    return tqdm


class _Progress:
    """run_blocking()'s progress: one bar (or text line) per attack, run and
    N, with Hits@1 so far, from the experiment's signals."""

    def __init__(self, experiment):
        self._experiment = experiment
        self._handlers = []
        self._cell = None
        self._tqdm = _tqdm_class()
        self._bar = None
        self._shown = 0.0

    def __enter__(self):
        connect = self._experiment.connect
        self._handlers = [connect("n-started", self._on_started),
                          connect("result", self._on_result),
                          connect("n-finished", self._on_finished)]
        return self

    def __exit__(self, *exc):
        for handler in self._handlers:
            self._experiment.disconnect(handler)
        self._close()
        return False

    def _label(self):
        attack, run, n = self._cell[:3]
        prefix = f"{attack} " if attack and attack != "clean" else ""
        return f"{prefix}N={n} run {run}"

    def _hits_at_1(self):
        attack, run, n = self._cell[:3]
        experiment = self._experiment
        metrics = (experiment.get_attack_metrics(attack, n, run) if attack
                   else experiment.get_metrics(n, run))
        return metrics.get_hits_at(1) if metrics is not None else 0.0

    def _on_started(self, experiment, run, n, total, done):
        self._close()
        self._cell = [experiment.get_current_attack(), run, n, total, done, done, time.monotonic()]
        if self._tqdm is not None:
            self._bar = self._tqdm(total=total, initial=done, desc=self._label(),
                                   unit="request", leave=True)
        self._show(force=True)

    def _on_result(self, experiment, result):
        # Batch mode opens several cells at once: only the last one opened
        # is shown.
        if self._cell is None or (result.get_run(), result.get_n_candidates()) != tuple(self._cell[1:3]):
            return
        self._cell[4] += 1
        if self._bar is not None:
            self._bar.set_postfix_str(f"Hits@1 {self._hits_at_1():.2f}", refresh=False)
            self._bar.update(1)
        else:
            self._show(force=self._cell[4] >= self._cell[3])

    def _on_finished(self, experiment, run, n):
        self._close()

    def _show(self, force=False):
        """The text line of anot-run: [N=10 run 1] 12/30 requests  Hits@1 0.50  ETA 0:03"""
        if self._bar is not None or self._cell is None:
            return
        now = time.monotonic()
        if not force and now - self._shown < 0.2:
            return
        self._shown = now
        _, _, _, total, done, done_at_start, started = self._cell
        eta = "--:--"
        if done > done_at_start and done < total:
            seconds = int((now - started) / (done - done_at_start) * (total - done) + 0.5)
            eta = f"{seconds // 60}:{seconds % 60:02d}"
        sys.stderr.write(f"\r[{self._label()}] {done}/{total} requests  "
                         f"Hits@1 {self._hits_at_1():.2f}  ETA {eta}")
        sys.stderr.flush()

    def _close(self):
        if self._bar is not None:
            self._bar.close()
            self._bar = None
        elif self._cell is not None:
            self._show(force=True)
            sys.stderr.write("\n")
            sys.stderr.flush()
        self._cell = None


class _StudyProgress:
    """Study.run_blocking()'s progress: one bar (or text line) over every
    cell's requests, naming the cell of the last one done, as `anot-run
    study` shows on a terminal."""

    def __init__(self, study):
        self._study = study
        self._handler = None
        self._tqdm = _tqdm_class()
        self._bar = None
        self._total = 0
        self._done = 0
        self._done_at_start = 0
        self._started = 0.0
        self._shown = 0.0

    def __enter__(self):
        self._total = self._study.get_n_planned()
        self._done = self._done_at_start = self._study.get_n_done()
        self._started = time.monotonic()
        if self._tqdm is not None:
            self._bar = self._tqdm(total=self._total, initial=self._done,
                                   desc=f"study {self._study.get_name()}", unit="request", leave=True)
        self._handler = self._study.connect("result", self._on_result)
        return self

    def __exit__(self, *exc):
        self._study.disconnect(self._handler)
        if self._bar is not None:
            self._bar.close()
        else:
            self._show(None, force=True)
            sys.stderr.write("\n")
            sys.stderr.flush()
        return False

    def _on_result(self, study, cell, result):
        # Rows a retry round replaces count again: never past the plan.
        if self._done >= self._total:
            return
        self._done += 1
        if self._bar is not None:
            self._bar.set_postfix_str(cell.get_name(), refresh=False)
            self._bar.update(1)
        else:
            self._show(cell, force=self._done >= self._total)

    def _show(self, cell, force=False):
        """The text line of anot-run study: [study cot@gpt-4o-mini/clean] 12/80 requests  ETA 0:03"""
        now = time.monotonic()
        if not force and now - self._shown < 0.2:
            return
        self._shown = now
        eta = "--:--"
        ran = self._done - self._done_at_start
        if 0 < ran and self._done < self._total:
            seconds = int((now - self._started) / ran * (self._total - self._done) + 0.5)
            eta = f"{seconds // 60}:{seconds % 60:02d}"
        name = cell.get_name() if cell is not None else self._study.get_name()
        sys.stderr.write(f"\r[study {name}] {self._done}/{self._total} requests  ETA {eta}")
        sys.stderr.flush()


@_export
class Study(Anot.Study):
    """A study file: methods × models × attacks × defense run as one (see
    docs/studies.md).

    `Anot.Study.load("robustness.ini")` reads and checks it (GLib.Error
    naming the file, line and key when it is refused); `cells()` are its
    `Anot.StudyCell`s, `estimate()` a dict of what it would cost,
    `run_blocking()` runs it (continuing one started before), and
    `to_dataframe()` has every cell's rows, methods named with their
    models.
    """

    def run_blocking(self, cancellable=None, progress=None):
        """Runs every cell; Ctrl-C (or a notebook's interrupt) cancels it.

        Like Experiment.run_blocking(): on the first Ctrl-C no new request
        starts, the requests in flight are cancelled, every cell's results
        so far are written and KeyboardInterrupt is raised.  A study
        stopped by its budget raises GLib.Error Anot.Error.BUDGET, one left
        with unscored requests Anot.Error.INCOMPLETE, after writing
        everything (report included).  `progress` as for experiments.
        Returns True.
        """
        if progress is None:
            progress = _interactive()
        with contextlib.ExitStack() as stack:
            if progress:
                stack.enter_context(_StudyProgress(self))
            with _interrupt_scope(cancellable, False) as interrupt:
                return _wait_for(lambda cb: self.run_async(interrupt.cancellable, cb),
                                 self.run_finish, interrupt)

    def cells(self):
        """The cells, by experiment (in the file's order) then attack."""
        return list(self.get_cells())

    def estimate(self, completion_tokens=300):
        """What every cell would cost, and the total, as a dict (no LLM called)."""
        return _json_to_py(Anot.Study.estimate(self, completion_tokens))

    def results(self):
        """The rows written so far, as Anot.Results (methods named with their models)."""
        return self.load_results()

    def to_dataframe(self):
        """Every cell's rows as a pandas DataFrame (ImportError without pandas)."""
        return self.load_results().to_dataframe()

    def __repr__(self):
        return "<Anot.Study %s: %d cells>" % (self.get_name(), len(self.get_cells()))


Study = override(Study)


def _metric_row(metrics, run, n, group):
    row = {"run": run, "n_candidates": n}
    if group is not None:
        row["group"] = group
    row["requests"] = metrics.get_total()
    # Beside the figures: requests the infrastructure failed (in none of
    # them), and how much of the data prompts cut to the context window left.
    row["unscored"] = metrics.get_unscored()
    for j in range(1, metrics.get_k() + 1):
        row[f"hits_at_{j}"] = metrics.get_hits_at(j)
    row["mrr"] = metrics.get_mrr()
    row["shrunk"] = metrics.get_shrunk_share()
    row["reviews_dropped"] = metrics.get_dropped_share()
    return row


Experiment = override(Experiment)


@_export
def merge_shards(out_directory, shard_directories, force=False):
    """`anot-run merge` from Python: merges the shard directories of one
    experiment (each run with `shard=(i, n)`) into `out_directory`, the
    directory one process would have written; paths may be os.PathLike.
    Raises GLib.Error (Anot.Error.SHARDS) naming the shard, option or
    requests at fault, or after writing (Anot.Error.INCOMPLETE) when the
    infrastructure failed some requests in the shards (unscored), as a run
    does.  Anot.Experiment.merge_shards() is the same with strings and
    `force` required."""
    return _experiment_merge_shards(os.fspath(out_directory),
                                    [os.fspath(d) for d in shard_directories], force)


# ---------------------------------------------------------------------------
# Registry


@_export
class Registry(Anot.Registry):
    def register(self, extension_point, type, name, description=None):
        """Registers a GObject type — or a Python class, whose GType is used."""
        self.register_with_flags(extension_point, type, name, description, Anot.PluginFlags(0))

    def register_with_flags(self, extension_point, type, name, description, flags):
        """Like register(), declaring `flags` (Anot.PluginFlags.NEEDS_TRUTH)."""
        gtype = getattr(type, "__gtype__", type)
        if description is None:
            description = _first_doc_line(type)
        Anot.Registry.register_with_flags(self, extension_point, gtype, name, description, flags)

    def methods(self):
        return list(self.list(Anot.METHOD_EXTENSION_POINT_NAME))

    def backends(self):
        return list(self.list(Anot.BACKEND_EXTENSION_POINT_NAME))


Registry = override(Registry)


def _first_doc_line(cls):
    doc = getattr(cls, "__doc__", None) or ""
    for line in doc.strip().splitlines():
        if line.strip():
            return line.strip()
    return None


@_export
def register_method(name, description=None, needs_truth=False, options=None,
                    supports_defense=False, roles=None, uses_formatter=False):
    """Class decorator: registers a Python method class under `name`.

    `description` defaults to the first line of the class's docstring.
    A method is blind: it is handed an Anot.Query (id, group, text) and a
    context without the dataset, gold or validator.  `needs_truth=True`
    (an oracle-style check of the harness, never a result) registers it
    with Anot.PluginFlags.NEEDS_TRUTH: its context then offers
    `get_truth_request()` and `get_validator()`, and its result rows carry
    `"uses_truth": true`.

    `options` declares every option the method reads, a list of
    Anot.MethodOption (`Anot.MethodOption.new_int("alpha", 0, 10, 1,
    "what it changes")`, `new_double`, `new_boolean`, `new_choice`,
    `new_string`): before a run, `method_options={"NAME.alpha": ...}`, `-O`
    and config.ini's `[method NAME]` are checked against it (an unknown
    key or a bad value raises GLib.Error naming it), and config.json
    records every declared option's value.  A method without `options`
    takes none.  `supports_defense=True` declares that every call showing
    the model data adds `context.get_defense_prompt()` when it is not
    None (Anot.PluginFlags.SUPPORTS_DEFENSE); without it a run in defense
    mode is refused.  `uses_formatter=True` declares that the method writes
    its candidates with an Anot.Formatter to which it applies the context's
    options (`formatter.apply_options(context)`): only then does it take
    the `format.*` options (refused otherwise, since they would do nothing),
    and config.json records their values (Anot.PluginFlags.USES_FORMATTER).

    `roles` declares the LLM roles the method calls through its context
    (`["default"]`, `["planner", "scorer"]`; `[]` for a method that
    calls no LLM): before a run, the backend of each is checked, and a
    provider's own endpoint without an API key raises GLib.Error
    (Anot.Error.CONFIG, naming OPENAI_API_KEY or ANTHROPIC_API_KEY) before
    anything is written.  Without `roles` the key is checked at the
    method's first call instead.
    """
    flags = Anot.PluginFlags.NEEDS_TRUTH if needs_truth else Anot.PluginFlags(0)
    if supports_defense:
        flags |= Anot.PluginFlags.SUPPORTS_DEFENSE
    if uses_formatter:
        flags |= Anot.PluginFlags.USES_FORMATTER
    declared = list(options or [])
    for option in declared:
        if not isinstance(option, Anot.MethodOption):
            raise TypeError(f"options of {name}: {option!r} is not an Anot.MethodOption")

    def decorate(cls):
        registry = Registry.get_default()
        registry.register_with_flags(Anot.METHOD_EXTENSION_POINT_NAME, cls, name, description, flags)
        registry.declare_method_options(name, declared)
        if roles is not None:
            registry.declare_method_roles(name, list(roles))
        return cls
    return decorate


@_export
def register_backend(name, description=None):
    """Class decorator: registers a Python backend class under `name`."""
    def decorate(cls):
        Registry.get_default().register(Anot.BACKEND_EXTENSION_POINT_NAME, cls, name, description)
        return cls
    return decorate


# ---------------------------------------------------------------------------
# Methods and backends written in Python


def _error_from_exception(exc, code):
    """An ANOT_ERROR GLib.Error for a Python exception; GLib.Errors pass.

    The message names the exception type and where it was raised, since
    the results row keeps only the message; the full traceback goes to the
    `gi.repository.Anot` logger at DEBUG level.
    """
    if isinstance(exc, GLib.Error):
        return exc
    message = f"{type(exc).__name__}: {exc}"
    frames = traceback.extract_tb(exc.__traceback__)
    if frames:
        message += f" ({os.path.basename(frames[-1].filename)}:{frames[-1].lineno})"
    _log.debug("%s", "".join(traceback.format_exception(exc)))
    return GLib.Error.new_literal(Anot.error_quark(), message, int(code))


def _cancelled_error(message):
    return GLib.Error.new_literal(Gio.io_error_quark(), message, int(Gio.IOErrorEnum.CANCELLED))


def _run_in_task(task, cancellable, work, convert, error_code):
    """Finishes `task` with convert(work()), or with the error it raised.

    Every path returns the task: a task that never returns would leave the
    experiment waiting for it forever.
    """
    if cancellable is not None and cancellable.is_cancelled():
        task.return_error(_cancelled_error("Operation was cancelled"))
        return
    try:
        value = convert(work())
    except KeyboardInterrupt:
        # A Ctrl-C landing inside Python code cancels the whole run.
        if cancellable is not None:
            cancellable.cancel()
        task.return_error(_cancelled_error("Interrupted"))
    except Exception as exc:  # GLib.Error is an Exception too
        task.return_error(_error_from_exception(exc, error_code))
    except BaseException as exc:
        task.return_error(_error_from_exception(exc, error_code))
        raise
    else:
        task.return_value(value)


def _to_ranking(value, n_candidates):
    if isinstance(value, Anot.Ranking):
        return value
    indices = []
    scores = []
    for entry in value:
        if isinstance(entry, tuple):
            index, score = entry
        else:
            index, score = entry, None
        index = int(index)
        if not 0 <= index < n_candidates:
            raise IndexError(f"position {index} is not a candidate (0..{n_candidates - 1})")
        indices.append(index)
        scores.append(score)
    if all(s is None for s in scores):
        scores = None
    elif any(s is None for s in scores):
        raise ValueError("give a score for every position or for none")
    return Ranking.new_from_indices(indices, scores)


# The name of the task a guarded do_rank_async() fails its request with.
_ESCAPED_TASK_NAME = "anot-python-method-exception"


def _guard_rank_async(rank_async):
    """Wraps a Python do_rank_async() so that an exception escaping it fails
    the request at once.

    PyGObject only prints an exception a vfunc raises: the task the method
    made is never completed, so the request would wait for its deadline
    (an hour by default) and be recorded as a timeout, with the exception's
    name nowhere in the results.  Instead the request fails with the
    exception, as a PyMethod's rank() does.  The callback is forwarded once:
    a method that finished its task before it raised keeps its ranking (the
    exception is logged), and a task it finishes after the failure is
    ignored.
    """
    @functools.wraps(rank_async)
    def guarded(self, request, candidates, k, context, cancellable, callback, *user_data):
        forwarded = []

        def forward(source, result, *unused):
            if forwarded:
                _log.warning("%s.do_rank_async(): its request %s had already finished; "
                             "a later completion is ignored", type(self).__name__,
                             context.get_request_id())
                return
            forwarded.append(True)
            callback(source, result)

        try:
            rank_async(self, request, candidates, k, context, cancellable, forward, *user_data)
        except BaseException as exc:
            if isinstance(exc, KeyboardInterrupt):
                # As in a PyMethod: a Ctrl-C landing in Python code cancels.
                if cancellable is not None:
                    cancellable.cancel()
                error = _cancelled_error("Interrupted")
            else:
                error = _error_from_exception(exc, Anot.Error.METHOD_FAILED)
                _log.warning("%s.do_rank_async() raised for request %s: %s",
                             type(self).__name__, context.get_request_id(), error.message)
            task = Gio.Task.new(self, cancellable, forward)
            task.set_name(_ESCAPED_TASK_NAME)
            task.return_error(error)
            if not isinstance(exc, Exception):
                raise
    guarded._anot_guarded = True
    return guarded


def _guard_rank_finish(rank_finish):
    """Wraps a Python do_rank_finish(): it propagates the failure of a guarded
    do_rank_async(), and turns an exception other than GLib.Error into
    ANOT_ERROR_METHOD_FAILED naming it (PyGObject would otherwise return no
    ranking and no error)."""
    @functools.wraps(rank_finish)
    def guarded(self, result):
        if isinstance(result, Gio.Task) and result.get_name() == _ESCAPED_TASK_NAME:
            return result.propagate_value()   # raises the task's error
        try:
            return rank_finish(self, result)
        except GLib.Error:
            raise
        except Exception as exc:
            raise _error_from_exception(exc, Anot.Error.METHOD_FAILED) from exc
    guarded._anot_guarded = True
    return guarded


@_export
class Method(Anot.Method):
    def __init_subclass__(cls, **kwargs):
        # Runs before PyGObject hooks the class's do_* functions up as its
        # vfuncs, so the guarded versions are the ones C calls.
        super().__init_subclass__(**kwargs)
        for name, guard in (("do_rank_async", _guard_rank_async),
                            ("do_rank_finish", _guard_rank_finish)):
            function = cls.__dict__.get(name)
            if callable(function) and not getattr(function, "_anot_guarded", False):
                setattr(cls, name, guard(function))

    def rank_blocking(self, request, candidates, context, k=5, cancellable=None):
        """Ranks `candidates` for `request` and waits for the Anot.Ranking.

        For trying a method on one request in a notebook; `request` is an
        Anot.Request (the method is handed its blind Anot.Query, as in an
        experiment) or an Anot.Query, `context` an Anot.MethodContext
        (`Anot.MethodContext.new_for_run(dataset, request_id, n)`, run 1's, plus options
        or a router when the method needs them).  Errors arrive as
        GLib.Error; Ctrl-C cancels the call.
        """
        if isinstance(request, Anot.Request):
            request = Anot.Query.new_for_request(request)
        with _interrupt_scope(cancellable, False) as interrupt:
            return _wait_for(
                lambda cb: Anot.Method.rank_async(self, request, list(candidates), k, context,
                                                  interrupt.cancellable, cb),
                lambda result: Anot.Method.rank_finish(self, result),
                interrupt)


Method = override(Method)


@_export
class PyMethod(GObject.Object, Method):
    """Base class for a ranking method written in Python.

    Subclass it, implement `rank()`, and register the class::

        @Anot.register_method("longest", "Ranks by the number of reviews")
        class Longest(Anot.PyMethod):
            def rank(self, request, candidates, k, context):
                return sorted(range(len(candidates)),
                              key=lambda i: -candidates[i].get_n_reviews())

    `rank()` runs on the experiment's main context, one request at a time;
    it returns an Anot.Ranking, a list of positions into `candidates` (best
    first), or a list of (position, score) pairs.  A GLib.Error it raises
    becomes the request's error as it is; any other exception becomes
    ANOT_ERROR_METHOD_FAILED with the exception's type and message.
    Methods that wait for LLM calls implement `do_rank_async()` and
    `do_rank_finish()` themselves (see writing-a-method-in-python.md).
    """

    __gtype_name__ = "AnotPyMethod"
    # PyGObject registers no GType for classes of gi.overrides modules.
    __module__ = "gi.repository.Anot"

    def rank(self, request, candidates, k, context):
        raise NotImplementedError(f"{type(self).__name__} does not implement rank()")

    def do_rank_async(self, request, candidates, k, context, cancellable, callback, *user_data):
        task = Gio.Task.new(self, cancellable, callback)
        candidates = list(candidates)
        _run_in_task(task, cancellable,
                     lambda: self.rank(request, candidates, k, context),
                     lambda value: _to_ranking(value, len(candidates)),
                     Anot.Error.METHOD_FAILED)

    def do_rank_finish(self, result):
        return result.propagate_value()[1]



def _backend_error_code():
    # A Python backend that fails is, to its caller, a server that failed.
    return getattr(Anot.Error, "LLM_SERVER", Anot.Error.METHOD_FAILED)


@_export
class PyBackend(GObject.Object, Anot.Backend):
    """Base class for an LLM backend written in Python.

    Implement `complete(request)`, where `request` is an Anot.ChatRequest,
    returning the answer's text (a str) or an Anot.Completion; register the
    class with `Anot.register_backend("name")`.  Like `PyMethod.rank()`, it
    runs on the caller's main context; exceptions become errors of the call.
    """

    __gtype_name__ = "AnotPyBackend"
    # PyGObject registers no GType for classes of gi.overrides modules.
    __module__ = "gi.repository.Anot"

    model = "python"

    def complete(self, request):
        raise NotImplementedError(f"{type(self).__name__} does not implement complete()")

    def do_complete_async(self, *args):
        # (inputs…, cancellable, callback[, user_data]): PyGObject passes the
        # hidden user_data too; whatever precedes the cancellable is passed
        # on to complete().
        index = max(i for i, a in enumerate(args) if callable(a))
        inputs, cancellable, callback = args[:index - 1], args[index - 1], args[index]
        task = Gio.Task.new(self, cancellable, callback)
        _run_in_task(task, cancellable, lambda: self.complete(*inputs),
                     self._to_completion, _backend_error_code())

    def do_complete_finish(self, result):
        return result.propagate_value()[1]

    def _to_completion(self, value):
        if isinstance(value, Anot.Completion):
            return value
        if not isinstance(value, str):
            raise TypeError(f"complete() returned {type(value).__name__}, not str or Anot.Completion")
        return Anot.Completion.new(self.model, value)

