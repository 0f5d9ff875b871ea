"""Counting against the context window from Python: counts that stop once
past a limit (enough to refuse a prompt), never given as a prompt's."""
import os

import pytest
from gi.repository import Anot, GLib

if not hasattr(Anot.Tokenizer, "count_up_to"):
    pytest.skip("this Anot predates counting up to a limit", allow_module_level=True)


@Anot.register_backend("py-fit-never-called")
class NeverCalled(Anot.PyBackend):
    """Fitting checks count; they never call the backend."""

    def complete(self, request):
        raise AssertionError("a fit check called the backend")


def reviews_text():
    with open(os.path.join(os.environ["ANOT_DATA_DIR"], "demo", "reviews.jsonl"), encoding="utf-8") as f:
        return f.read()


def test_tokenizer_counts_up_to_a_limit():
    tokenizer = Anot.Tokenizer.new_for_model("gpt-4o-mini")
    text = reviews_text()
    whole = tokenizer.count(text)
    size = len(text.encode("utf-8"))

    assert tokenizer.count_up_to(text, whole) == (whole, size)
    n, counted = tokenizer.count_up_to(text, 1000)
    assert 1000 < n < 1200
    assert 0 < counted < size // 10

    request = Anot.ChatRequest.new("Rank them.", text)
    full = tokenizer.count_request(request)
    n, counted = tokenizer.count_request_up_to(request, 1000)
    assert 1000 < n < full
    assert counted < size // 10
    assert tokenizer.count_request_up_to(request, full) == (full, size + len("Rank them."))


def test_router_check_fit_counted():
    backend = Anot.Registry.get_default().create_backend("py-fit-never-called")
    defaults = Anot.ChatRequest.new(None, None)
    defaults.set_model("gpt-4o-mini")
    router = Anot.BackendRouter.new()
    router.set_route(Anot.DEFAULT_ROLE, "py-fit", backend, defaults)
    router.set_context_tokens(5000)
    text = reviews_text()
    request = Anot.ChatRequest.new("Rank them.", text)
    tokenizer = Anot.Tokenizer.new_for_model("gpt-4o-mini")
    full = tokenizer.count_request(request)
    assert full > 40000

    # The counts: a lower bound just above the room, over a prefix of the
    # bytes, which tells the tokens per byte.
    fits, counted_tokens, counted_bytes, room = router.check_fit_counted(Anot.DEFAULT_ROLE, request)
    assert not fits
    assert room == 5000
    assert 5000 < counted_tokens < 5200
    assert 0 < counted_bytes < len(text.encode("utf-8")) // 5
    assert 0.2 < counted_tokens / counted_bytes < 0.5

    # The same through a method context.
    context = Anot.MethodContext.new(Anot.Dataset.load(os.path.join(os.environ["ANOT_DATA_DIR"], "demo")),
                                     "r", 1)
    context.set_router(router)
    assert context.check_fit_counted(Anot.DEFAULT_ROLE, "Rank them.", text) == \
        (False, counted_tokens, counted_bytes, 5000)

    # The prompt's count is always whole, even after a stopped one.
    request.set_model("gpt-4o-mini")
    assert router.count_prompt_tokens(request) == full

    # check_fit() gives the prompt's tokens (a binding always asks for
    # them), so it counts the prompt whole, past the stopped count.
    with pytest.raises(GLib.Error) as info:
        router.check_fit(Anot.DEFAULT_ROLE, request)
    assert info.value.domain == "anot-error-quark"
    assert f"not sent: the prompt has {full} tokens (o200k_base)" in info.value.message
    assert "maximum context length of 5000 tokens" in info.value.message

    # A prompt that fits is counted whole.
    short = Anot.ChatRequest.new("Rank them.", text[:2000])
    fits, prompt_tokens, room = router.check_fit(Anot.DEFAULT_ROLE, short)
    assert fits and prompt_tokens == tokenizer.count_request(short)
    assert router.check_fit_counted(Anot.DEFAULT_ROLE, short) == \
        (True, prompt_tokens, len("Rank them.") + len(text[:2000].encode("utf-8")), 5000)
