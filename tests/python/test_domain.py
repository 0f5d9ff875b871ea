"""A benchmark says what its items are (meta.json's domain), may name its
files and gold without Yelp's words, and the validator writes its
groundtruth.jsonl."""
import json
import shutil

import pytest
from gi.repository import Anot, GLib

BOM = b"\xef\xbb\xbf"


def test_default_domain(demo):
    domain = demo.get_domain()
    assert domain.props.is_default
    assert (domain.get_item(), domain.get_items()) == ("restaurant", "restaurants")
    assert list(domain.get_attribute_names()) == []
    assert demo.get_items_file() == "restaurants.jsonl"


def test_hotel_domain(demo_dir, tmp_path):
    copy = tmp_path / "hotels"
    shutil.copytree(demo_dir, copy)
    (copy / "restaurants.jsonl").rename(copy / "items.jsonl")
    requests = [json.loads(line) for line in (copy / "requests.jsonl").read_text().splitlines()]
    for r in requests:
        r["gold_item"] = r.pop("gold_restaurant")
    (copy / "requests.jsonl").write_text("".join(json.dumps(r) + "\n" for r in requests))
    meta = {"domain": {"item": "hotel", "items": "hotels",
                       "attributes": {"Pool": "has a swimming pool", "WiFi": "wireless internet"}}}
    (copy / "meta.json").write_bytes(BOM + json.dumps(meta).encode())

    ds = Anot.Dataset.load(str(copy))
    domain = ds.props.domain
    assert not domain.props.is_default
    assert (domain.props.item, domain.props.items) == ("hotel", "hotels")
    assert (domain.get_item_title(), domain.get_items_title()) == ("Hotel", "Hotels")
    assert list(domain.get_attribute_names()) == ["Pool", "WiFi"]
    assert domain.get_attribute_description("WiFi") == "wireless internet"
    assert ds.get_items_file() == "items.jsonl"

    # The groundtruth is rewritten under the domain-neutral name.
    (copy / "groundtruth.jsonl").unlink()
    ok, n_ok = Anot.Validator.new(ds).write_groundtruth(str(copy / "groundtruth.jsonl"))
    assert ok and n_ok == len(requests)
    lines = [json.loads(line) for line in (copy / "groundtruth.jsonl").read_text().splitlines()]
    assert [line["gold_item"] for line in lines] == [r["gold_item"] for r in requests]
    assert all(line["status"] == "ok" for line in lines)
    Anot.Dataset.load(str(copy))


def test_domain_from_json():
    domain = Anot.Domain.new_from_json('{"item": "book"}', -1)
    assert domain.get_items() == "books"
    assert domain.get_items_title() == "Books"
    assert Anot.Domain.new("\u00e9cole", None).get_item_title() == "\u00c9cole"
    with pytest.raises(GLib.Error) as info:
        Anot.Domain.new_from_json('{"item": "book", "plural": "books"}', -1)
    assert "domain.plural" in info.value.message


def test_groundtruth_round_trip(demo_dir, tmp_path):
    copy = tmp_path / "demo"
    shutil.copytree(demo_dir, copy)
    target = copy / "groundtruth.jsonl"
    original = target.read_bytes()
    target.unlink()
    ds = Anot.Dataset.load(str(copy))
    ok, n_ok = Anot.Validator.new(ds).write_groundtruth(str(target))
    assert ok and n_ok == ds.get_n_requests()
    assert target.read_bytes() == original


def test_warnings(philly):
    warnings = list(philly.get_warnings())
    assert len(warnings) == 10
    assert all("review_idx" in w and "ignored" in w for w in warnings)
