"""An LLM backend implemented with the raw PyGObject interface (no helper
class), registered by name and driven by the C side: the configuration and
router that create it, the response cache in front of it, and the
experiment runner."""
import json
import os

import pytest
from gi.repository import Anot, Gio, GLib, GObject

if not hasattr(Anot, "ChatRequest") or not hasattr(Anot, "LlmConfig"):
    pytest.skip("this Anot predates AnotChatRequest and AnotLlmConfig", allow_module_level=True)


class Counter(GObject.Object, Anot.Backend):
    """Answers "<n>" where n is the number of words of the last user
    message; remembers every call it got."""

    __gtype_name__ = "TestRawCounterBackend"
    calls = []

    def do_complete_async(self, request, cancellable, callback, *user_data):
        task = Gio.Task.new(self, cancellable, callback)
        last = request.get_message_content(request.get_n_messages() - 1)
        Counter.calls.append({"role": request.get_role(), "request": request.get_request_id(),
                              "model": request.get_model(), "prompt": last,
                              "temperature": request.get_temperature()})
        words = len(last.split())
        completion = Anot.Completion.new(request.get_model() or "counter", str(words))
        completion.set_prompt_tokens(words)
        completion.set_completion_tokens(1)
        task.return_value(completion)

    def do_complete_finish(self, result):
        return result.propagate_value().value


Anot.Registry.get_default().register(Anot.BACKEND_EXTENSION_POINT_NAME, Counter.__gtype__,
                                     "py-counter", "Counts the words of the prompt")


def wait(start):
    loop = GLib.MainLoop()
    box = []

    def done(source, result, *args):
        box.append(result)
        loop.quit()

    start(done)
    loop.run()
    return box[0]


def test_created_and_routed_by_the_c_configuration():
    Counter.calls.clear()
    config = Anot.LlmConfig.new()
    config.set_environment([])
    config.set(Anot.DEFAULT_ROLE, "backend", "py-counter")
    config.set(Anot.DEFAULT_ROLE, "model", "count-1")
    config.add_role_spec("judge=py-counter:count-2")
    router = config.create_router()
    assert isinstance(router.get_backend("judge"), Counter)
    assert router.get_backend_name("judge") == "py-counter"

    request = Anot.ChatRequest.new("system", "one two three")
    result = wait(lambda cb: router.complete_async("judge", request, None, cb))
    completion = router.complete_finish(result)
    assert completion.get_text() == "3"
    assert completion.get_role() == "judge"
    # The C router filled in the role's model and the default temperature;
    # count-2 has no price, so the call's cost is unknown (no default).
    assert Counter.calls[-1]["model"] == "count-2"
    assert Counter.calls[-1]["role"] == "judge"
    assert Counter.calls[-1]["temperature"] == 0.0
    assert completion.props.cost_known is False
    assert not router.has_price("count-2")
    usage = Anot.Usage.new()
    usage.add_completion(completion)
    assert usage.cost is None and usage.props.unpriced_calls == 1
    assert usage.get_prompt_tokens() == 3
    assert usage.to_dict()["total_cost_usd"] is None
    # With a price given, the router prices it.
    router.set_price("count-2", 1.0, 3.0)
    result = wait(lambda cb: router.complete_async("judge", request, None, cb))
    completion = router.complete_finish(result)
    assert completion.props.cost_known is True
    assert completion.get_cost_usd() == pytest.approx(3 / 1e6 * 1.0 + 1 / 1e6 * 3.0)
    # The caller's request is not changed.
    assert request.get_model() is None and request.get_role() is None


def test_behind_the_c_response_cache(tmp_path):
    Counter.calls.clear()
    cache = Anot.ResponseCache.new(str(tmp_path / "cache.sqlite"))
    cached = Anot.CachedBackend.new(Counter(), "py-counter", cache, False)
    request = Anot.ChatRequest.new(None, "a b c d")
    request.set_model("m")
    first = Anot.Backend.complete_finish(
        cached, wait(lambda cb: Anot.Backend.complete_async(cached, request, None, cb)))
    again = Anot.Backend.complete_finish(
        cached, wait(lambda cb: Anot.Backend.complete_async(cached, request, None, cb)))
    assert first.get_text() == again.get_text() == "4"
    assert not first.get_cached() and again.get_cached()
    assert len(Counter.calls) == 1

    offline = Anot.CachedBackend.new(None, "py-counter", cache, True)
    other = Anot.ChatRequest.new(None, "never asked")
    other.set_request_id("R09")
    other.set_role("scorer")
    result = wait(lambda cb: Anot.Backend.complete_async(offline, other, None, cb))
    with pytest.raises(GLib.Error) as info:
        Anot.Backend.complete_finish(offline, result)
    assert info.value.code == Anot.Error.CACHE_MISS
    assert "request R09, role scorer" in info.value.message


class OneCall(GObject.Object, Anot.Method):
    """Asks the "scorer" role to count the request's words, ranks in
    order."""

    __gtype_name__ = "TestRawOneCallMethod"

    def do_rank_async(self, request, candidates, k, context, cancellable, callback, *user_data):
        task = Gio.Task.new(self, cancellable, callback)

        def on_done(ctx, result, *args):
            try:
                completion = ctx.complete_finish(result)
            except GLib.Error as error:
                task.return_error(error)
                return
            ranking = Anot.Ranking.new()
            for i in range(len(candidates)):
                ranking.append(i, float(len(candidates) - i))
            ranking.set_raw_response(completion.get_text())
            task.return_value(ranking)

        context.complete_async("scorer", None, request.get_text(), cancellable, on_done)

    def do_rank_finish(self, result):
        return result.propagate_value().value


Anot.Registry.get_default().register(Anot.METHOD_EXTENSION_POINT_NAME, OneCall.__gtype__,
                                     "py-one-call", "One LLM call per request")


def test_used_by_the_c_runner(demo_dir, tmp_path):
    Counter.calls.clear()
    dataset = Anot.Dataset.load(demo_dir, None)
    exp = Anot.Experiment.new(dataset, "py-one-call")
    for key, value in {"out": str(tmp_path), "limit": "4", "candidates": "5",
                       "backend": "py-counter", "model": "count-9", "concurrency": "4"}.items():
        exp.set_option(key, value)
    assert exp.run(None)

    assert len(Counter.calls) == 4
    assert {c["role"] for c in Counter.calls} == {"scorer"}
    run_dir = os.path.join(exp.get_directory(), "clean", "run_1")
    with open(os.path.join(run_dir, "results_5.jsonl")) as f:
        rows = [json.loads(line) for line in f]
    texts = {dataset.lookup_request(r["request_id"]).get_text(): r for r in rows}
    for call in Counter.calls:
        row = texts[call["prompt"]]
        assert row["request_id"] == call["request"]
        assert row["raw_response"] == str(len(call["prompt"].split()))
        assert row["prompt_tokens"] == len(call["prompt"].split())
        assert row["by_role"]["scorer"]["calls"] == 1
        assert list(row["by_model"]) == ["count-9"]
    with open(os.path.join(run_dir, "config.json")) as f:
        llm = json.load(f)["llm_config"]
    assert llm["provider"] == "py-counter" and llm["model"] == "count-9"
