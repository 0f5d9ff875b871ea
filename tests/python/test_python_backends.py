"""LLM backends written in Python, reached through the router like plugins."""
import json
import os
import re

import pytest
from gi.repository import Anot, Gio, GLib, GObject

if not hasattr(Anot, "ChatRequest") or not hasattr(Anot.MethodContext, "complete_async"):
    pytest.skip("this AnotBackend interface predates AnotChatRequest", allow_module_level=True)

BACKENDS = Anot.BACKEND_EXTENSION_POINT_NAME


def last_user_message(request):
    return request.get_message_content(request.get_n_messages() - 1)


@Anot.register_backend("py-alphabet")
class Alphabet(Anot.PyBackend):
    """Answers with the numbered candidates of the prompt in name order."""

    model = "alphabet-1"

    def complete(self, request):
        prompt = last_user_message(request)
        if "FAIL" in prompt:
            raise RuntimeError("the model fell over")
        entries = re.findall(r"^\[(\d+)\] (.*)$", prompt, re.MULTILINE)
        order = sorted(entries, key=lambda e: (e[1], int(e[0])))
        completion = Anot.Completion.new(request.get_model() or self.model,
                                         ", ".join(n for n, _ in order))
        completion.set_prompt_tokens(len(prompt.split()))
        completion.set_completion_tokens(len(order))
        return completion


def prompt_for(request, candidates):
    lines = [f"Request: {request.get_text()}"]
    lines += [f"[{i + 1}] {item.get_name()}" for i, item in enumerate(candidates)]
    return "\n".join(lines)


class Listwise(GObject.Object, Anot.Method):
    """A listwise LLM method in Python: one call, the answer parsed."""

    __gtype_name__ = "TestPyListwise"

    def do_rank_async(self, request, candidates, k, context, cancellable, callback, *user_data):
        task = Gio.Task.new(self, cancellable, callback)
        n = len(candidates)

        def on_completion(ctx, result):
            try:
                completion = ctx.complete_finish(result)
            except GLib.Error as error:
                task.return_error(error)
                return
            positions = [int(x) - 1 for x in re.findall(r"\d+", completion.get_text())]
            ranking = Anot.Ranking.new_from_indices([p for p in positions if 0 <= p < n])
            ranking.set_raw_response(completion.get_text())
            task.return_value(ranking)

        prompt = prompt_for(request, candidates)
        if context.get_option("py-listwise.fail") == context.get_request_id():
            prompt += "\nFAIL"
        context.complete_async(Anot.DEFAULT_ROLE, "Rank the candidates.", prompt,
                               cancellable, on_completion)

    def do_rank_finish(self, result):
        return result.propagate_value().value


Anot.Registry.get_default().register(Anot.METHOD_EXTENSION_POINT_NAME, Listwise, "py-listwise")
Anot.Registry.get_default().declare_method_options(
    "py-listwise", [Anot.MethodOption.new_string("fail", None, "the request whose call fails")])


def wait(start):
    loop = GLib.MainLoop()
    box = []

    def done(source, result):
        box.append((source, result))
        loop.quit()

    start(done)
    loop.run()
    return box[0]


def test_backend_registered_and_called_through_the_interface():
    registry = Anot.Registry.get_default()
    assert "py-alphabet" in registry.list(BACKENDS)
    backend = registry.create_backend("py-alphabet")
    assert isinstance(backend, Anot.Backend)
    request = Anot.ChatRequest.new("system", "[1] b\n[2] a\n[3] c")
    # Anot.Backend.complete_async is the C entry point: C calls into Python.
    source, result = wait(lambda cb: Anot.Backend.complete_async(backend, request, None, cb))
    completion = Anot.Backend.complete_finish(backend, result)
    assert completion.get_text() == "2, 1, 3"
    assert completion.get_model() == "alphabet-1"

    failing = Anot.ChatRequest.new(None, "FAIL")
    source, result = wait(lambda cb: Anot.Backend.complete_async(backend, failing, None, cb))
    with pytest.raises(GLib.Error) as info:
        Anot.Backend.complete_finish(backend, result)
    assert info.value.domain == "anot-error-quark"
    assert "RuntimeError: the model fell over" in info.value.message


def test_router_to_a_python_backend(demo):
    backend = Anot.Registry.get_default().create_backend("py-alphabet")
    router = Anot.BackendRouter.new()
    router.set_route(Anot.DEFAULT_ROLE, "py-alphabet", backend, None)
    request = demo.requests[0]
    pool = Anot.Pool.new(demo, request, 6)
    context = Anot.MethodContext.new(demo, request.get_id(), 1)
    context.set_router(router)
    method = Anot.Registry.get_default().create_method("py-listwise")
    ranking = method.rank_blocking(request, pool.shuffled, context)
    names = [item.get_name() for item in pool.shuffled]
    assert list(ranking) == sorted(range(6), key=lambda i: (names[i], i))
    usage = context.get_usage()
    assert usage.get_calls() == 1
    assert usage.get_prompt_tokens() == len(prompt_for(request, pool.shuffled).split())


def test_experiment_with_python_method_and_backend(demo, tmp_path):
    failing_id = demo.requests[2].get_id()
    exp = Anot.Experiment(demo, "py-listwise", candidates=8, out=tmp_path, limit=6,
                          backend="py-alphabet", model="alphabet-2",
                          method_options={"py-listwise.fail": failing_id})
    # A backend that fails is the infrastructure's failure, not the
    # method's: that request is unscored and the run incomplete.
    with pytest.raises(GLib.Error) as info:
        exp.run_blocking()
    assert info.value.matches(Anot.error_quark(), Anot.Error.INCOMPLETE)
    assert "1 of 6 requests could not be scored" in info.value.message
    assert exp.get_metrics(8, 1).get_unscored() == 1
    assert exp.get_metrics(8, 1).get_total() == 5
    [metric_row] = exp.metric_rows()
    assert (metric_row["requests"], metric_row["unscored"]) == (5, 1)
    with open(os.path.join(exp.get_directory(), "clean", "run_1", "results_8.jsonl")) as f:
        rows = {r["request_id"]: r for r in map(json.loads, f)}
    assert len(rows) == 6
    for rid, row in rows.items():
        if rid == failing_id:
            # The router names the backend, the model and the role.
            assert row["error"].startswith("ANOT_ERROR_LLM_SERVER: py-alphabet:alphabet-2 ")
            assert "RuntimeError: the model fell over" in row["error"]
            assert row["error_class"] == "infrastructure"
            assert row["pred_indices"] == []
            continue
        pool = Anot.Pool.new(demo, demo.requests[rid], 8)
        names = [item.get_name() for item in pool.shuffled]
        expected = sorted(range(8), key=lambda i: (names[i], i))[:5]
        assert row["shuffled_preds"] == [p + 1 for p in expected]
        assert row["calls"] == 1
        assert row["completion_tokens"] == 8
        assert list(row["by_model"]) == ["alphabet-2"]
        assert row["raw_response"] == ", ".join(str(p + 1) for p in
                                                sorted(range(8), key=lambda i: (names[i], i)))


@Anot.register_backend("py-odd")
class Odd(Alphabet):
    """Alphabet's answers, as if two \\u0000 escapes had been read as U+FFFD."""

    def complete(self, request):
        completion = super().complete(request)
        completion.set_replaced_characters(2)
        return completion


def test_replaced_characters_reach_a_method_without_trace(demo, tmp_path):
    """py-listwise keeps no trace: the run writes one holding the count of
    characters its answers had replaced, summed over the request's calls."""
    exp = Anot.Experiment(demo, "py-listwise", candidates=5, out=tmp_path, limit=2,
                          backend="py-odd", name="odd")
    assert exp.run_blocking(progress=False)
    with open(os.path.join(exp.get_directory(), "clean", "run_1", "trace_5.jsonl")) as f:
        lines = [json.loads(line) for line in f]
    assert len(lines) == 2
    assert all(line["trace"] == {"replaced_characters": 2} for line in lines)

    # Without replaced characters, no trace at all (as before).
    plain = Anot.Experiment(demo, "py-listwise", candidates=5, out=tmp_path, limit=2,
                            backend="py-alphabet", name="plain")
    assert plain.run_blocking(progress=False)
    path = os.path.join(plain.get_directory(), "clean", "run_1", "trace_5.jsonl")
    assert not os.path.exists(path) or os.path.getsize(path) == 0
