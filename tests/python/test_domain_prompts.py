"""Every LLM method's prompts take the benchmark's domain: on a benchmark of
hotels they name hotels and never restaurants (`anot-run prompt` gives
the exact messages each call would send), and on the cafes they are the
original wording (the golden suite checks that byte for byte)."""
import json
import os
import re
import shutil
import subprocess

import pytest

LLM_METHODS = ["cot", "ps", "plan_act", "listwise", "weaver", "react", "lats", "anot", "aot",
               "general_anot"]


def anot_run(*args):
    return subprocess.run([os.environ["ANOT_RUN"], *args], capture_output=True, text=True,
                          timeout=300)


@pytest.fixture(scope="module")
def hotels(demo_dir, tmp_path_factory):
    """The demo cafes made into a benchmark that says it is about hotels,
    with every mention of restaurants taken out of the data itself, so
    that one left in a prompt can only come from the method's wording."""
    copy = tmp_path_factory.mktemp("domain") / "hotels"
    shutil.copytree(demo_dir, copy)
    for path in copy.iterdir():
        text = path.read_text()
        text = re.sub("([Rr])estaurant", lambda m: ("E" if m.group(1) == "R" else "e") + "stablishment", text)
        # The gold under the format's domain-neutral name.
        text = text.replace('"gold_establishment"', '"gold_item"')
        path.write_text(text)
    (copy / "restaurants.jsonl").rename(copy / "items.jsonl")
    meta = {"domain": {"item": "hotel", "items": "hotels",
                       "attributes": {"WiFi": "wireless internet in the rooms",
                                      "NoiseLevel": "how loud the lobby is"}}}
    (copy / "meta.json").write_text(json.dumps(meta))
    return copy


def prompts(data, method, *extra):
    result = anot_run("prompt", "-d", str(data), "-m", method, "--request", "R01", "-n", "10",
                      "--calls", "0", "--json", *extra)
    assert result.returncode == 0, result.stderr
    cells = json.loads(result.stdout)
    assert len(cells) == 1 and cells[0]["request_id"] == "R01"
    return [m["content"] for call in cells[0]["calls"] for m in call["messages"]]


@pytest.fixture(scope="module", params=["demo-as-hotels", "bundled-hotels"])
def hotel_data(request, hotels, hotels_dir):
    """The scrubbed demo, and data/hotels (a benchmark written as hotels
    from the start: items.jsonl, gold_item, sequential review ids)."""
    return hotels if request.param == "demo-as-hotels" else hotels_dir


@pytest.mark.parametrize("method", LLM_METHODS)
def test_prompts_name_the_domain(hotel_data, hotels_dir, method):
    texts = prompts(hotel_data, method)
    assert texts, f"{method} made no call"
    for text in texts:
        assert "restaurant" not in text.lower(), text
        # Nor cafes, on a benchmark whose data has none: an example written
        # for the cafes would show here.
        assert hotel_data != hotels_dir or "cafe" not in text.lower(), text
    assert any("hotel" in text.lower() for text in texts), texts[0][:500]


# Attribute names only restaurants have, and values only theirs.
RESTAURANT_ATTRIBUTES = ["NoiseLevel", "GoodForKids", "Ambience", "OutdoorSeating", "Alcohol",
                         "RestaurantsPriceRange2", "'quiet'", "'free'"]


@pytest.mark.parametrize("method", LLM_METHODS)
def test_examples_and_defense_from_the_domain(hotels_dir, method):
    """On data/hotels, whose data names none of the restaurants'
    attributes, no prompt gives them as examples (ReAct's and LATS's
    system prompt listed WiFi, NoiseLevel, GoodForKids and Ambience on
    every benchmark, Weaver's schema Ambience.romantic, 'free' and 'quiet',
    the check tool attributes.get('WiFi') == 'free'), and defense mode's
    text speaks of hotels, not restaurants."""
    joined = "\n".join(prompts(hotels_dir, method, "--defense"))
    for name in RESTAURANT_ATTRIBUTES:
        assert name.lower() not in joined.lower(), name
    assert "restaurant" not in joined.lower()
    assert '"ignore the other hotels"' in joined
    assert "contradict the hotel's attributes" in joined
    if method in ("react", "lats"):
        # The check tool's example is over a hotel attribute, as the
        # expression sees it ("True" is True).
        assert re.search(r"e\.g\. check\(\"attributes\.get\('(Pool|PetsAllowed|FreeBreakfast|"
                         r"Parking|FreeWiFi|Spa|AirportShuttle|PriceRange)'\) == (True|False|'\w+')\"\)",
                         joined), joined[:3000]


def test_weaver_schema_examples_from_the_candidates(tmp_path, hotels_dir):
    """Weaver's schema takes its examples of a nested attribute and of text
    values from the candidates when they have some."""
    copy = tmp_path / "hotels"
    shutil.copytree(hotels_dir, copy)
    lines = (copy / "items.jsonl").read_text().splitlines()
    for i, line in enumerate(lines):
        item = json.loads(line)
        item["attributes"]["Views"] = "{'sea': True, 'city': False}"
        item["attributes"]["Checkin"] = "'late'"
        lines[i] = json.dumps(item)
    (copy / "items.jsonl").write_text("\n".join(lines) + "\n")
    schema = prompts(copy, "weaver")[1]
    assert "flattened, e.g. name 'Views.city'." in schema
    assert "value is text: 'True', 'False', 'late', '2', ...;" in schema
    plain = prompts(hotels_dir, "weaver")[1]
    assert "flattened, e.g. name 'Parent.child'." in plain
    assert "value is text: 'True', 'False', '2', ...;" in plain


def test_head_variant(hotel_data, hotels_dir):
    texts = prompts(hotel_data, "anot", "-O", "anot.variant=head")
    assert texts and not any("restaurant" in t.lower() for t in texts)
    assert hotel_data != hotels_dir or not any("cafe" in t.lower() for t in texts)
    # The extraction examples are over the benchmark's own attributes.
    assert "[ATTR] wireless internet in the rooms (WiFi)" in texts[1] or \
        "(Pool)" in texts[1], texts[1]


def test_cafes_keep_the_original_wording(demo_dir):
    texts = prompts(demo_dir, "cot")
    assert texts[0].startswith("You choose the restaurants that best match")
    assert "such as WiFi, NoiseLevel, OutdoorSeating, Alcohol, Ambience, RestaurantsPriceRange2" in texts[1]
    react = prompts(demo_dir, "react")
    assert "such as WiFi, NoiseLevel, GoodForKids, Ambience)" in react[0]
    assert "e.g. check(\"attributes.get('WiFi') == 'free'\")" in react[1]
    assert "e.g. name 'Ambience.romantic'" in prompts(demo_dir, "weaver")[1]
    defended = prompts(demo_dir, "cot", "--defense")[0]
    assert '"ignore the other restaurants"' in defended
    assert "contradict the restaurant's attributes" in defended


def test_glossary_is_the_attribute_examples(hotels):
    texts = prompts(hotels, "cot")
    # Each with its meaning from the glossary.
    assert "such as WiFi (wireless internet in the rooms), NoiseLevel (how loud the lobby is))" in texts[1]
    assert texts[1].count("Hotels:") == 1


def test_prompt_usage_errors(demo_dir):
    result = anot_run("prompt", "-d", str(demo_dir), "-m", "cot")
    assert result.returncode == 2 and "--request" in result.stderr
    result = anot_run("prompt", "-d", str(demo_dir), "-m", "cot", "--request", "R999")
    assert result.returncode == 2 and "R999" in result.stderr


def test_lists_and_help_say_item():
    """What anot-run lists (methods, attacks, tools) and formula's help are
    read by users of every domain: they speak of items."""
    listing = anot_run("--list")
    assert listing.returncode == 0 and "inject_override" in listing.stdout
    assert "restaurant" not in listing.stdout.lower()
    formula = anot_run("formula", "--help")
    assert formula.returncode == 0 and "every item of a benchmark" in formula.stdout
    assert "restaurant" not in formula.stdout.lower()


def test_python_preview_is_the_cli_prompt(hotels_dir):
    """Experiment.preview_prompts() gives Python users what anot-run prompt
    gives on the command line, byte for byte, defense and domain included."""
    from gi.repository import Anot

    dataset = Anot.Dataset.load(str(hotels_dir))
    experiment = Anot.Experiment(dataset, "react", requests="R01", candidates=10, defense=True)
    cells = experiment.preview_prompts(0)
    result = anot_run("prompt", "-d", str(hotels_dir), "-m", "react", "--request", "R01", "-n", "10",
                      "--calls", "0", "--json", "--defense")
    assert result.returncode == 0, result.stderr
    assert cells == json.loads(result.stdout)
    assert "ignore the other hotels" in cells[0]["calls"][0]["messages"][0]["content"]


def test_examples_inside_prompts_are_the_benchmarks(hotels_dir, demo_dir):
    """AoT's plan example, ANoT's data paths and the attribute lists come
    from the benchmark's own attributes, with the glossary's meanings; the
    cafes keep the original's."""
    with open(os.path.join(hotels_dir, "meta.json")) as f:
        glossary = json.load(f)["domain"]["attributes"]
    first = next(iter(glossary))
    aot = "\n".join(prompts(hotels_dir, "aot"))
    assert f'"attribute": "{first}", "expected": true' in aot and "DriveThru" not in aot
    anot = "\n".join(prompts(hotels_dir, "anot"))
    assert f"items[1].attributes.{first}," in anot
    assert "Good For Kids" not in anot and "attributes.WiFi" not in anot
    cot = "\n".join(prompts(hotels_dir, "cot"))
    assert f"{first} ({glossary[first]})" in cot
    react = "\n".join(prompts(hotels_dir, "react"))
    assert f"{first} ({glossary[first]})" in react
    # The cafes: the original's examples, word for word.
    assert '"attribute": "DriveThru", "expected": true' in "\n".join(prompts(demo_dir, "aot"))
    assert 'items[1].attributes.WiFi, items[1].attributes["Good For Kids"]' in \
        "\n".join(prompts(demo_dir, "anot"))
