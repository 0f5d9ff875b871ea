"""The baseline LLM methods, the candidate formatter and the output parsers
from Python.  (The methods' HTTP behaviour is tested in C against the fake
server, tests/methods/test-baselines.c; here a Python backend answers.)"""
import json
import re

import pytest
from gi.repository import Anot

if not hasattr(Anot, "Formatter") or not hasattr(Anot, "parse_ranking"):
    pytest.skip("this libanot has no formatter or parsers", allow_module_level=True)


def names_in_prompt(prompt):
    # Top-level "name" members of the JSON records, in candidate order.
    return [json.loads('"%s"' % n) for n in re.findall(r'^  "name": "((?:[^"\\]|\\.)*)",$',
                                                          prompt, re.MULTILINE)]


@Anot.register_backend("py-baseline-names")
class ByName(Anot.PyBackend):
    """Ranks the candidates of the prompt by name, in the answer format the
    prompt asks for."""

    model = "names-1"

    def complete(self, request):
        prompt = request.get_message_content(request.get_n_messages() - 1)
        names = names_in_prompt(prompt)
        order = sorted(range(len(names)), key=lambda i: (names[i], i))
        if "Your ranking:" in prompt:
            text = " > ".join(f"[{i + 1}]" for i in order)
        else:
            text = "Compared them all.\nANSWER: " + ", ".join(str(i + 1) for i in order[:3])
        return Anot.Completion.new(self.model, text)


def test_formatter_matches_the_json_it_builds(demo):
    items = [demo.get_item(i) for i in range(4)]
    formatter = Anot.Formatter.new()
    formatter.props.max_reviews = 2
    text, stats = formatter.format(items)
    assert text.startswith("Restaurants:\n\n{\n")
    blocks = text[len("Restaurants:\n\n"):].rstrip("\n").split("\n\n")
    assert len(blocks) == 4
    for number, (block, item) in enumerate(zip(blocks, items), 1):
        record = json.loads(block)
        assert record["index"] == number
        assert record["business_id"] == item.get_id()
        assert len(record["reviews"]) == min(2, item.get_n_reviews())
        assert "llm_score" not in record
    coverage = json.loads(Anot.json_dumps(stats, -1, True))
    assert coverage["reviews_included"] == sum(min(2, i.get_n_reviews()) for i in items)
    assert coverage["chars"] == len(text)


def test_parsers():
    r = Anot.parse_ranking("Ranking:\n1. Cafe 4\n2. Cafe 2\n3. Cafe 4", 5, None, Anot.ParseFlags.APPEND_MISSING)
    assert r.props.ok and r.props.rule == "answer/numbered-list"
    assert list(r.get_indices()) == [3, 1, 0, 2, 4]
    assert r.props.n_parsed == 2 and r.props.n_appended == 3 and r.props.n_duplicates == 1
    s = Anot.parse_score("I'd say <score>7</score>.", 0, 10)
    assert s.props.ok and s.props.score == 7 and s.props.rule == "tag"
    bad = Anot.parse_ranking("Please provide the reviews for items 1-10.", 10, None, 0)
    assert not bad.props.ok and bad.props.failure == Anot.ParseFailure.REFUSAL
    trace = json.loads(Anot.json_dumps(bad.to_json(), -1, True))
    assert trace["failure"] == "refusal" and trace["positions"] == []
    assert list(Anot.parse_indices_compat("top-5: [1, 2, 3, 4, 5]", 10, 5, 0)) == [5, 1, 2, 3, 4]


@pytest.mark.parametrize("name", ["cot", "ps", "plan_act", "listwise", "weaver"])
def test_method_from_python(demo, name):
    backend = Anot.Registry.get_default().create_backend("py-baseline-names")
    router = Anot.BackendRouter.new()
    router.set_route(Anot.DEFAULT_ROLE, "py-baseline-names", backend, None)
    request = demo.requests[0]
    pool = Anot.Pool.new(demo, request, 6)
    context = Anot.MethodContext.new(demo, request.get_id(), 1)
    context.set_router(router)
    method = Anot.Registry.get_default().create_method(name)
    ranking = method.rank_blocking(request, pool.shuffled, context)
    names = [item.get_name() for item in pool.shuffled]
    expected = sorted(range(6), key=lambda i: (names[i], i))
    got = list(ranking)
    if name == "listwise":
        assert got == expected
    else:
        assert got == expected[:3]
    trace = json.loads(Anot.json_dumps(ranking.get_trace(), -1, True))
    assert trace["method"] == name
    assert trace["n_calls"] == context.get_usage().get_calls()
    assert trace["calls"][-1]["parse"]["ok"]
