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


def test_glossary_is_the_attribute_examples(hotels):
    texts = prompts(hotels, "cot")
    assert "such as WiFi, NoiseLevel)" in texts[1]
    assert texts[1].count("Hotels:") == 1


def test_prompt_usage_errors(demo_dir):
    result = anot_run("prompt", "-d", str(demo_dir), "-m", "cot")
    assert result.returncode == 2 and "--request" in result.stderr
    result = anot_run("prompt", "-d", str(demo_dir), "-m", "cot", "--request", "R999")
    assert result.returncode == 2 and "R999" in result.stderr
