"""The asynchronous API from Python: run_async, cancellation, Ctrl-C, resume."""
import json
import os
import signal

import pytest
from gi.repository import Anot, Gio, GLib, GObject

DELAY_MS = 15


class Slow(GObject.Object, Anot.Method):
    """Answers after DELAY_MS without blocking, honours cancellation."""

    __gtype_name__ = "TestSlowMethod"

    def do_rank_async(self, request, candidates, k, context, cancellable, callback, *user_data):
        task = Gio.Task.new(self, cancellable, callback)
        n = len(candidates)
        state = {}

        def finish(error=None):
            if state.get("done"):
                return
            state["done"] = True
            state["source"].destroy()
            if state.get("handler"):
                cancellable.disconnect(state["handler"])
            if error is not None:
                task.return_error(error)
            else:
                task.return_value(Anot.Ranking.new_from_indices(range(n)))

        # Sources go to the thread-default context: the experiment may run
        # on a private one (run_blocking() does).
        source = GLib.timeout_source_new(DELAY_MS)
        source.set_callback(lambda *a: finish() or GLib.SOURCE_REMOVE)
        source.attach(GLib.MainContext.ref_thread_default())
        state["source"] = source
        if cancellable is not None:
            def on_cancelled(c):
                # Not from inside cancel(): finish on the next iteration.
                idle = GLib.idle_source_new()
                idle.set_callback(lambda *a: finish(GLib.Error.new_literal(
                    Gio.io_error_quark(), "cancelled", int(Gio.IOErrorEnum.CANCELLED))) or False)
                idle.attach(GLib.MainContext.ref_thread_default())
            state["handler"] = cancellable.connect(on_cancelled)

    def do_rank_finish(self, result):
        return result.propagate_value().value


Anot.Registry.get_default().register(Anot.METHOD_EXTENSION_POINT_NAME, Slow, "py-slow")


def config_of(exp, run=1):
    with open(os.path.join(exp.get_directory(), "clean", f"run_{run}", "config.json")) as f:
        return json.load(f)


def rows_of(exp, n, run=1):
    with open(os.path.join(exp.get_directory(), "clean", f"run_{run}", f"results_{n}.jsonl")) as f:
        return [json.loads(line) for line in f]


def test_run_async_on_a_main_loop(demo, tmp_path):
    exp = Anot.Experiment(demo, "py-slow", candidates=5, out=tmp_path, concurrency=30)
    loop = GLib.MainLoop()
    outcome = []
    started = []
    exp.connect("n-started", lambda e, run, n, n_requests, n_done: started.append((run, n, n_requests)))

    def done(source, result):
        outcome.append(source.run_finish(result))
        loop.quit()

    exp.run_async(None, done)
    loop.run()
    assert outcome == [True]
    assert started == [(1, 5, len(demo.requests))]
    assert config_of(exp)["anot"]["status"] == "complete"


def test_cancel_mid_run_then_resume(demo, tmp_path):
    n_requests = len(demo.requests)
    exp = Anot.Experiment(demo, "py-slow", candidates=5, out=tmp_path, concurrency=2)
    cancellable = Gio.Cancellable()
    finished = []

    def on_result(e, result):
        finished.append(result.get_request_id())
        if len(finished) == 4:
            cancellable.cancel()

    exp.connect("result", on_result)
    with pytest.raises(GLib.Error) as info:
        exp.run_blocking(cancellable)
    assert info.value.matches(Gio.io_error_quark(), Gio.IOErrorEnum.CANCELLED)
    assert config_of(exp)["anot"]["status"] == "interrupted"
    partial = rows_of(exp, 5)
    # The two requests in flight were cancelled: no rows for them, and no
    # new request started after the cancellation.
    assert 4 <= len(partial) < n_requests
    assert sorted(r["request_id"] for r in partial) == sorted(finished)

    resumed = Anot.Experiment.new_for_resume(exp.get_directory(), demo)
    assert resumed.run_blocking()
    rows = rows_of(resumed, 5)
    assert sorted(r["request_id"] for r in rows) == sorted(r.get_id() for r in demo.requests)
    assert config_of(resumed)["anot"]["status"] == "complete"

    # Same rows as a run that was never interrupted.
    fresh = Anot.Experiment(demo, "py-slow", candidates=5, out=tmp_path, name="fresh",
                            concurrency=8)
    fresh.run_blocking()
    strip = lambda rs: [{k: v for k, v in r.items() if k != "latency_ms"} for r in rs]
    assert strip(rows) == strip(rows_of(fresh, 5))


def test_ctrl_c_interrupts_run_blocking(demo, tmp_path):
    exp = Anot.Experiment(demo, "py-slow", candidates=5, out=tmp_path, concurrency=2)
    count = []

    def on_result(e, result):
        count.append(1)
        if len(count) == 3:
            signal.raise_signal(signal.SIGINT)

    exp.connect("result", on_result)
    with pytest.raises(KeyboardInterrupt):
        exp.run_blocking()
    assert config_of(exp)["anot"]["status"] == "interrupted"
    assert 3 <= len(rows_of(exp, 5)) < len(demo.requests)
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


def test_dataset_load_async(demo_dir):
    loop = GLib.MainLoop()
    got = []

    def done(source, result):
        try:
            got.append(Anot.Dataset.load_finish(result))
        except GLib.Error as e:
            got.append(e)
        loop.quit()

    Anot.Dataset.load_async(demo_dir, None, done)
    loop.run()
    assert isinstance(got[0], Anot.Dataset) and len(got[0].requests) > 0

    cancellable = Gio.Cancellable()
    cancellable.cancel()
    got.clear()
    Anot.Dataset.load_async(demo_dir, cancellable, done)
    loop.run()
    assert isinstance(got[0], GLib.Error)
    assert got[0].matches(Gio.io_error_quark(), Gio.IOErrorEnum.CANCELLED)
