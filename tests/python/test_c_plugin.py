"""The example C plugin of docs/examples/c-plugin: it builds, loads and ranks."""
import json
import os
import re
import subprocess

import pytest
from gi.repository import Anot, GLib

NAME = "example-stars"


@pytest.fixture(scope="module")
def plugin_dir():
    path = os.environ.get("ANOT_EXAMPLE_PLUGIN_DIR", "")
    assert os.path.isfile(os.path.join(path, "libanot-method-example.so")), path
    return path


def expected_order(candidates, min_reviews=0):
    def score(i):
        item = candidates[i]
        return item.get_stars() - (10.0 if item.get_n_reviews() < min_reviews else 0.0)
    return sorted(range(len(candidates)), key=lambda i: (-score(i), i))


def test_loaded_by_the_registry(plugin_dir):
    registry = Anot.Registry.get_default()
    assert NAME in registry.list(Anot.METHOD_EXTENSION_POINT_NAME)
    assert "star rating" in registry.get_description(Anot.METHOD_EXTENSION_POINT_NAME, NAME)
    assert not [m for m in registry.list_failed_modules() if "example" in m]


def test_ranks_by_stars(demo, plugin_dir):
    method = Anot.Registry.get_default().create_method(NAME)
    for request in demo.requests[:10]:
        pool = Anot.Pool.new(demo, request, 12)
        context = Anot.MethodContext.new(demo, request.get_id(), 1)
        ranking = method.rank_blocking(request, pool.shuffled, context)
        assert list(ranking) == expected_order(pool.shuffled)


def test_min_reviews_option(demo, plugin_dir):
    method = Anot.Registry.get_default().create_method(NAME)
    counts = sorted(item.get_n_reviews() for item in demo.items)
    threshold = counts[len(counts) // 2]  # about half the items fall short
    request = demo.requests[0]
    pool = Anot.Pool.new(demo, request, len(demo.items))
    context = Anot.MethodContext.new(demo, request.get_id(), 1)
    context.set_option("example-stars.min-reviews", str(threshold))
    ranking = list(method.rank_blocking(request, pool.shuffled, context))
    assert ranking == expected_order(pool.shuffled, threshold)
    assert ranking != expected_order(pool.shuffled)
    short = [pool.shuffled[i].get_n_reviews() < threshold for i in ranking]
    assert short == sorted(short)  # every item short of reviews comes last

    context.set_option("example-stars.min-reviews", "many")
    with pytest.raises(GLib.Error) as info:
        method.rank_blocking(request, pool.shuffled, context)
    assert info.value.matches(Anot.error_quark(), Anot.Error.INVALID_ARGUMENT)
    assert "example-stars.min-reviews" in info.value.message


def test_run_by_anot_run(demo, demo_dir, plugin_dir, tmp_path):
    env = dict(os.environ)
    env["ANOT_PLUGIN_PATH"] = os.pathsep.join([plugin_dir, env.get("ANOT_PLUGIN_PATH", "")])
    listing = subprocess.run([os.environ["ANOT_RUN"], "--list"], env=env,
                             capture_output=True, text=True, check=True)
    assert NAME in listing.stdout

    run = subprocess.run([os.environ["ANOT_RUN"], "--method", NAME, "--data", demo_dir,
                          "--candidates", "10", "--out", str(tmp_path), "-O",
                          "example-stars.min-reviews=3"],
                         env=env, capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    path = tmp_path / f"{NAME}_demo" / "clean" / "run_1" / "results_10.jsonl"
    rows = [json.loads(line) for line in path.read_text().splitlines()]
    assert len(rows) == len(demo.requests)
    for row in rows:
        pool = Anot.Pool.new(demo, demo.requests[row["request_id"]], 10)
        assert row["shuffled_preds"] == [i + 1 for i in expected_order(pool.shuffled, 3)[:5]]
        assert "error" not in row


LISTWISE = "example-listwise"


@pytest.fixture
def fake_llm(tmp_path):
    """The fake LLM server answering every prompt with "3, 1, 2"; its log
    keeps the request bodies, so a test reads the prompts the method wrote."""
    path = os.environ.get("ANOT_FAKE_LLM")
    if not path:
        pytest.skip("ANOT_FAKE_LLM is not set")
    rules = tmp_path / "rules.json"
    rules.write_text(json.dumps({"rules": [{"match": "Candidates:", "reply": "3, 1, 2"}]}))
    log = tmp_path / "requests.jsonl"
    process = subprocess.Popen([path, "--rules", str(rules), "--log", str(log)],
                               stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        yield process.stdout.readline().strip(), log
    finally:
        process.terminate()
        process.wait()


def prompts(log):
    bodies = [json.loads(line)["body"] for line in log.read_text().splitlines()]
    return {m["content"].split(":", 1)[0]: m["content"]
            for body in bodies for m in body["messages"] if m["role"] == "user"}


def systems(log):
    bodies = [json.loads(line)["body"] for line in log.read_text().splitlines()]
    return {m["content"] for body in bodies for m in body["messages"] if m["role"] == "system"}


def run_listwise(demo, url, out, reviews):
    exp = Anot.Experiment(demo, LISTWISE, backend="openai", base_url=url + "/v1", model="fake",
                          candidates=6, limit=4, out=str(out),
                          method_options={f"{LISTWISE}.reviews": reviews})
    exp.run_blocking()
    return exp


def test_listwise_reads_every_field(demo, plugin_dir, fake_llm, tmp_path):
    url, log = fake_llm
    exp = run_listwise(demo, url, tmp_path / "a", 2)
    rows = exp.result_rows(n_candidates=6)
    assert len(rows) == 4
    seen = prompts(log)
    assert len(seen) == 4
    # A method that made calls names its LLM; one that made none does not
    # (tests/python/test_results.py).
    run = Anot.Results.load(str(tmp_path / "a")).runs()[0]
    assert (run["provider"], run["model"]) == ("openai", "fake")
    for row in rows:
        assert not row.get("error"), row["error"]
        assert row["raw_response"] == "3, 1, 2"
        assert row["shuffled_preds"][:3] == [3, 1, 2]
        request = demo.requests[row["request_id"]]
        prompt = seen[f"Request {request.get_id()} ({request.get_group() or 'no group'})"]
        assert request.get_text() in prompt
        pool = Anot.Pool.new(demo, request, 6)
        blocks = prompt.split("\n[")[1:]
        assert len(blocks) == 6
        for number, (item, block) in enumerate(zip(pool.shuffled, blocks), 1):
            head = f"{number}] {item.get_name()} ({item.get_stars():.1f} stars; "
            assert block.startswith(head + ", ".join(item.get_categories()) + ") at "
                                    f"{item.to_dict()['address']}, {item.get_city()}\n"), block
            assert f"Sunday: {item.get_hours('Sunday') or 'closed'};" in block
            assert (f"{len(item.attributes)} attributes in all; {item.get_n_reviews()} reviews\n"
                    in block + "\n")
            shown = [line[4:] for line in block.splitlines() if line.startswith("    ")]
            assert len(shown) == min(2, item.get_n_reviews())
            texts = [review.get_text() for review in item.reviews]
            assert all(text in texts for text in shown)
            for review in item.reviews:
                if review.get_text() in shown:
                    friends = demo.get_friends(review.get_reviewer_name()) or []
                    assert (f"by {review.get_reviewer_name() or 'someone'} ({len(friends)} friends); "
                            f"votes: {review.get_useful()} useful, {review.get_funny()} funny, "
                            f"{review.get_cool()} cool; the reviewer: "
                            f"{review.get_user_review_count()} reviews since "
                            f"{review.get_user_yelping_since() or '?'}") in block
    # The demo declares no domain: restaurants.
    assert systems(log) == {"You rank restaurants for a customer."}


def test_listwise_names_the_benchmarks_domain(hotels, plugin_dir, fake_llm, tmp_path):
    """The guide's example takes the items' noun from the context, so on a
    benchmark of hotels its prompts name hotels, as the built-in methods'
    do (test_hotels_methods.py)."""
    url, log = fake_llm
    exp = Anot.Experiment(hotels, LISTWISE, backend="openai", base_url=url + "/v1", model="fake",
                          candidates=6, limit=2, out=str(tmp_path), defense=True)
    exp.run_blocking()
    assert all(not row.get("error") for row in exp.result_rows(n_candidates=6))
    (system,) = systems(log)
    assert system.startswith("You rank hotels for a customer.\n\nBefore you judge")
    assert not re.search(r"restaurants?|cafe", log.read_text(), re.IGNORECASE)


def test_listwise_is_seeded_and_reads_its_option(demo, plugin_dir, fake_llm, tmp_path):
    url, log = fake_llm
    run_listwise(demo, url, tmp_path / "a", 1)
    first = prompts(log)
    log.write_text("")
    run_listwise(demo, url, tmp_path / "b", 1)
    assert prompts(log) == first      # the same reviews, chosen with the request's seed
    for prompt in first.values():
        assert prompt.count("\n  - ") <= 6 and "\n  - " in prompt
    log.write_text("")
    run_listwise(demo, url, tmp_path / "c", 0)
    assert all("\n  - " not in prompt for prompt in prompts(log).values())
