"""The bundled hotels benchmark (data/hotels): it validates, its
groundtruth is the validator's, and every attack runs on every request
(sequential review ids included) adding reviews about hotels."""
import json
import os
import re
import shutil
import subprocess

import pytest
from gi.repository import Anot, GLib

POOL_SIZE = 10
SEED = 43


def attacks():
    # The C attacks (Python test files may register their own).
    names = Anot.Registry.get_default().list(Anot.ATTACK_EXTENSION_POINT_NAME)
    return sorted(n for n in names if not n.startswith("py_"))


def test_domain_and_layout(hotels):
    domain = hotels.get_domain()
    assert not domain.props.is_default
    assert (domain.get_item(), domain.get_items()) == ("hotel", "hotels")
    assert "Pool" in list(domain.get_attribute_names())
    assert hotels.get_items_file() == "items.jsonl"
    hours = [hotels.get_item(i).get_hours("Monday") for i in range(hotels.get_n_items())]
    assert "0:0-24:0" in hours


def test_validates_and_groundtruth_is_the_validators(hotels, hotels_dir, tmp_path):
    validator = Anot.Validator.new(hotels)
    for i in range(hotels.get_n_requests()):
        status, n = validator.check_request(hotels.get_request(i))
        assert (status.value_nick, n) == ("ok", 1), hotels.get_request(i).get_id()

    copy = tmp_path / "hotels"
    shutil.copytree(hotels_dir, copy)
    (copy / "groundtruth.jsonl").unlink()
    subprocess.run([os.environ.get("ANOT_RUN", "anot-run"), "validate", "--data", str(copy),
                    "--write-groundtruth"], check=True, capture_output=True)
    assert (copy / "groundtruth.jsonl").read_bytes() == \
        open(os.path.join(hotels_dir, "groundtruth.jsonl"), "rb").read()


def known_texts(hotels):
    return {r.get_text().lower() for i in range(hotels.get_n_items())
            for r in hotels.get_item(i).get_reviews()}


def attacked_args(hotels, name, i):
    request = hotels.get_request(i)
    pool = Anot.Pool.new(hotels, request, POOL_SIZE, Anot.PoolMode.SAMPLED,
                         Anot.ShuffleMode.RANDOM, SEED)
    return pool.get_shuffled(), request, Anot.attack_derive_seed(SEED, name, request.get_id(),
                                                                  POOL_SIZE)


def test_generic_templates_name_the_domain(hotels, demo):
    assert Anot.AttackTemplates.get_for_dataset(demo).get_set_name() == "restaurant"
    templates = Anot.AttackTemplates.get_for_dataset(hotels)
    assert templates.get_set_name() == "generic"
    own = ["own text"]
    (fake,) = templates.lookup("fake_positive", own)
    assert "Best hotel ever" in fake and "Pool, PetsAllowed and FreeBreakfast" in fake
    assert "THIS HOTEL IS THE ONLY" in templates.lookup("inject_override", own)[0]
    assert Anot.AttackTemplates.get_for_dataset(demo).lookup("fake_positive", own) == own


def hotels_with_templates(hotels_dir, tmp_path, content):
    """A copy of data/hotels with `content` as its attack_templates.json."""
    copy = tmp_path / "hotels"
    shutil.copytree(hotels_dir, copy)
    (copy / "attack_templates.json").write_text(content)
    return copy


def test_benchmark_templates(hotels_dir, tmp_path):
    copy = hotels_with_templates(
        hotels_dir, tmp_path,
        '{"fake_positive": ["A {item} to remember: {attributes}. All the {items} should copy it."]}')
    ds = Anot.Dataset.load(str(copy))
    templates = Anot.AttackTemplates.get_for_dataset(ds)
    assert templates.get_set_name() == "benchmark"
    assert templates.lookup("fake_positive", ["x"]) == \
        ["A hotel to remember: Pool, PetsAllowed and FreeBreakfast. All the hotels should copy it."]
    # Keys the file leaves out come from the generic set.
    assert "HOTEL" in templates.lookup("inject_override", ["x"])[0]
    attack = Anot.Registry.get_default().create_attack("fake_positive")
    attacked = attack.apply(*attacked_args(ds, "fake_positive", 0))
    assert any(r.get_text().startswith("A hotel to remember") for item in attacked
               for r in item.get_reviews())

    for content, where in (('{"fake_positive": []}', "field 'fake_positive'"),
                           ('{"fake_postive": ["x"]}', "field 'fake_postive'"),
                           ('{"inject_hidden": ["ok", 3]}', "field 'inject_hidden[1]'"),
                           ('[1', "attack_templates.json")):
        (copy / "attack_templates.json").write_text(content)
        ds = Anot.Dataset.load(str(copy))
        with pytest.raises(GLib.Error) as info:
            Anot.AttackTemplates.get_for_dataset(ds)
        assert where in info.value.message and "attack_templates.json" in info.value.message
        with pytest.raises(GLib.Error):
            attack.apply(*attacked_args(ds, "fake_positive", 0))


def sequential_forge_shape(hotels):
    forge = Anot.ReviewForge.new(hotels, [], None)
    return forge.get_id_shape()


def test_forge_continues_the_numbering(hotels):
    assert sequential_forge_shape(hotels) == Anot.ReviewIdShape.SEQUENTIAL
    assert Anot.review_id_shape_to_string(Anot.ReviewIdShape.SEQUENTIAL) == "sequential"


def renumbered_hotels(hotels_dir, tmp_path, number):
    """data/hotels with its review ids rv000... written by @number (an int
    → the new id)."""
    copy = tmp_path / "renumbered"
    shutil.copytree(hotels_dir, copy)
    for path in copy.iterdir():
        text = path.read_text()
        path.write_text(re.sub(r"\brv(\d{3})\b", lambda m: number(int(m.group(1))), text))
    return Anot.Dataset.load(str(copy))


@pytest.mark.parametrize("shape, number, added", [
    # Numbers without padding (rev0 ... rev38) continue unpadded: rev39, ...
    ("sequential", lambda n: f"rev{n}", r"rev[1-9]\d*"),
    # A leading zero beside wider numbers is neither one width nor
    # unpadded: no numbering to continue, Yelp's shape.
    ("yelp", lambda n: f"rev{n:02d}" if n < 10 else f"rev{n * 10}", r"[A-Za-z0-9_-]{21}[AQgw]"),
])
def test_forge_continues_unpadded_numbering(hotels_dir, tmp_path, shape, number, added):
    ds = renumbered_hotels(hotels_dir, tmp_path, number)
    forge = Anot.ReviewForge.new(ds, [], None)
    assert Anot.review_id_shape_to_string(forge.get_id_shape()) == shape
    ids = {r.get_id() for i in range(ds.get_n_items()) for r in ds.get_item(i).get_reviews()}
    attack = Anot.Registry.get_default().create_attack("fake_positive")
    n_added = 0
    for i in range(ds.get_n_requests()):
        for item in attack.apply(*attacked_args(ds, "fake_positive", i)):
            for review in item.get_reviews():
                if review.get_id() not in ids:
                    n_added += 1
                    assert re.fullmatch(added, review.get_id()), review.get_id()
                    if shape == "sequential":
                        assert int(review.get_id()[3:]) >= len(ids), review.get_id()
    assert n_added >= ds.get_n_requests()


@pytest.mark.parametrize("name", attacks())
def test_every_attack_on_every_request(hotels, name):
    n_reviews = sum(hotels.get_item(i).get_n_reviews() for i in range(hotels.get_n_items()))
    attack = Anot.Registry.get_default().create_attack(name)
    if name == "heterogeneity":
        assert attack.set_parameter("target-len", "300")
    added_any = False
    for i in range(hotels.get_n_requests()):
        request = hotels.get_request(i)
        pool = Anot.Pool.new(hotels, request, POOL_SIZE, Anot.PoolMode.SAMPLED,
                             Anot.ShuffleMode.RANDOM, SEED)
        clean = pool.get_shuffled()
        seed = Anot.attack_derive_seed(SEED, name, request.get_id(), POOL_SIZE)
        attacked = attack.apply(clean, request, seed)  # raises on a failed request
        assert len(attacked) == len(clean)
        known = {r.get_id() for item in clean for r in item.get_reviews()}
        added = [r for item in attacked for r in item.get_reviews() if r.get_id() not in known]
        ids = [r.get_id() for r in added]
        assert len(set(ids)) == len(ids)
        for review in added:
            added_any = True
            text = review.get_text().lower()
            assert "hotel" in text, (name, text)
            for word in ("restaurant", "food", "coffee", "cafe", "dish", "fries"):
                assert word not in text, (name, word, text)
            # The dataset's own numbering, continued after its last review.
            match = re.fullmatch(r"rv(\d{3,})", review.get_id())
            assert match and int(match.group(1)) >= n_reviews, review.get_id()
    if name.startswith("fake_") or name in ("sarcastic_all", "sarcastic_wifi"):
        assert added_any
    if name.startswith("inject_"):
        # Injected texts are glued into existing reviews: they talk about
        # hotels too.
        changed = [r.get_text().lower() for i in range(hotels.get_n_requests())
                   for item in attack.apply(*attacked_args(hotels, name, i))
                   for r in item.get_reviews() if r.get_text().lower() not in known_texts(hotels)]
        assert changed
        for text in changed:
            assert "restaurant" not in text and "food" not in text, text



def test_attack_config_records_templates_and_ids(hotels, demo, tmp_path):
    for ds, expected in ((hotels, {"templates": "generic", "review_ids": "sequential"}),
                         (demo, {})):
        exp = Anot.Experiment.new(ds, "bm25")
        exp.set_option("out", str(tmp_path / ds.get_name()))
        exp.set_option("attack", "fake_positive")
        exp.set_option("limit", "3")
        exp.run(None)
        path = os.path.join(exp.get_directory(), "fake_positive", "run_1", "config.json")
        with open(path) as f:
            config = json.load(f)["attack_config"]
        # Absent for the restaurant set in the dataset's own id format, so
        # the restaurant benchmarks' records are unchanged.
        assert {k: config[k] for k in ("templates", "review_ids") if k in config} == expected


def test_sarcastic_rules_read_the_benchmarks_attributes(hotels, demo):
    restaurant = Anot.AttackTemplates.get_for_dataset(demo)
    assert restaurant.get_original_rules()
    assert [restaurant.get_rule_attribute(t) for t in ("wifi", "noise", "outdoor", "tv", "price")] == \
        ["WiFi", "NoiseLevel", "OutdoorSeating", "HasTV", "RestaurantsPriceRange2"]
    templates = Anot.AttackTemplates.get_for_dataset(hotels)
    assert not templates.get_original_rules()
    # Matched in the hotels' own attribute names; none is about noise,
    # outdoor seating or TV, so those rules never fire.
    assert [templates.get_rule_attribute(t) for t in ("wifi", "noise", "outdoor", "tv", "price")] == \
        ["FreeWiFi", None, None, None, "PriceRange"]


@pytest.mark.parametrize("name", ["sarcastic_wifi", "sarcastic_all", "sarcastic_noise",
                                  "sarcastic_outdoor"])
def test_sarcastic_attacks_are_about_hotel_attributes(hotels, name):
    """Each attacked hotel gets one sarcastic review per rule its own
    attributes trigger: no free wifi (FreeWiFi False), expensive
    (PriceRange 3 or 4); nothing for noise or outdoor seating, which the
    hotels' data does not describe."""
    templates = Anot.AttackTemplates.get_for_dataset(hotels)
    wifi_texts = set(templates.lookup("sarcastic_no_wifi", ["x"]))
    price_texts = set(templates.lookup("sarcastic_expensive", ["x"]))
    attack = Anot.Registry.get_default().create_attack(name)
    n_added = 0
    for i in range(hotels.get_n_requests()):
        clean, request, seed = attacked_args(hotels, name, i)
        attacked = attack.apply(clean, request, seed)
        for before, after in zip(clean, attacked):
            known = {r.get_id() for r in before.get_reviews()}
            added = {r.get_text() for r in after.get_reviews() if r.get_id() not in known}
            expected = []
            if before.get_id() != request.get_gold_item_id():
                no_wifi = before.get_attribute("FreeWiFi") == "False"
                expensive = int(before.get_attribute("PriceRange")) >= 3
                if name in ("sarcastic_wifi", "sarcastic_all") and no_wifi:
                    expected.append(wifi_texts)
                if name == "sarcastic_all" and expensive:
                    expected.append(price_texts)
            assert len(added) == len(expected), (name, before.get_id(), added)
            for texts in expected:
                assert len(added & texts) == 1, (name, before.get_id(), added)
            n_added += len(added)
    if name in ("sarcastic_wifi", "sarcastic_all"):
        assert n_added > 0
    else:
        assert n_added == 0


def test_benchmark_names_the_sarcastic_attributes(hotels_dir, tmp_path):
    copy = hotels_with_templates(hotels_dir, tmp_path,
                                 '{"sarcastic_attributes": {"outdoor": "Pool", "price": null}}')
    ds = Anot.Dataset.load(str(copy))
    templates = Anot.AttackTemplates.get_for_dataset(ds)
    assert (templates.get_rule_attribute("outdoor"), templates.get_rule_attribute("price"),
            templates.get_rule_attribute("wifi")) == ("Pool", None, "FreeWiFi")
    # Pool True or False: every attacked hotel gets one outdoor review.
    attack = Anot.Registry.get_default().create_attack("sarcastic_outdoor")
    clean, request, seed = attacked_args(ds, "sarcastic_outdoor", 0)
    attacked = attack.apply(clean, request, seed)
    grown = [a.get_n_reviews() - c.get_n_reviews() for c, a in zip(clean, attacked)]
    assert sorted(grown) == [0] + [1] * (len(clean) - 1)

    for content, where in (('{"sarcastic_attributes": ["Pool"]}', "'sarcastic_attributes'"),
                           ('{"sarcastic_attributes": {"pool": "Pool"}}', "'sarcastic_attributes.pool'"),
                           ('{"sarcastic_attributes": {"tv": 3}}', "'sarcastic_attributes.tv'")):
        (copy / "attack_templates.json").write_text(content)
        with pytest.raises(GLib.Error) as info:
            Anot.AttackTemplates.get_for_dataset(Anot.Dataset.load(str(copy)))
        assert where in info.value.message, info.value.message


def test_answers_that_say_hotel(hotels, demo):
    """The words that introduce a candidate's number include the
    benchmark's noun: "Hotel 3" reads as candidate 3 on hotels, as
    "Restaurant 3" does everywhere (the cafes' rules are unchanged)."""
    candidates, _, _ = attacked_args(hotels, "parse", 0)

    def ranking(text, items):
        result = Anot.parse_ranking(text, len(items), items, Anot.ParseFlags(0))
        return result.get_rule(), [i + 1 for i in result.get_indices()]

    assert ranking("Hotel 3 fits best; hotel #7 is close behind.", candidates) == \
        ("references", [3, 7])
    assert ranking("ANSWER:\n1. Hotel 4 (airport shuttle)\n2. hotel 2\n", candidates) == \
        ("answer/numbered-list", [4, 2])
    assert ranking("Hotels 5, 1 and 9", candidates) == ("list", [5, 1, 9])
    # "Restaurant 3" keeps working on hotels.
    assert ranking("Restaurant 3 fits, then item 6 maybe.", candidates) == ("references", [3, 6])

    # On the cafes "hotel" is no such word: the same prose has no reference
    # and its numbers are not a bare list.
    cafes, _, _ = attacked_args(demo, "parse", 0)
    assert ranking("Hotel 3 fits best; hotel #7 is close behind.", cafes) == ("references", [7])
    assert ranking("Hotels 5, 1 and 9", cafes)[0] != "list"


def test_items_is_the_attack_parameter_restaurants(hotels_dir):
    """`items` (--attack-items, -A items=N, attack.items) is the
    domain-neutral name of the item attacks' `restaurants`, which the
    records keep."""
    attack = Anot.Registry.get_default().create_attack("fake_positive")
    assert attack.has_parameter("items")
    assert attack.set_parameter("items", "3")
    assert attack.props.restaurants == 3

    def attacked(*options):
        result = subprocess.run([os.environ["ANOT_RUN"], "attack", "-d", hotels_dir, "--attack",
                                 "fake_positive", "--request", "R01", "--json", *options],
                                capture_output=True, text=True, timeout=60)
        assert result.returncode == 0, result.stderr
        described = json.loads(result.stdout)
        return described["parameters"]["restaurants"], sum(
            any(r["status"] == "added" for r in item["reviews"]) for item in described["items"])

    assert attacked("--attack-items", "2") == (2, 2)
    assert attacked("--attack-restaurants", "4") == (4, 4)
    assert attacked("-A", "items=1") == (1, 1)


def test_attack_items_option(hotels, tmp_path):
    exp = Anot.Experiment.new(hotels, "bm25")
    exp.set_option("out", str(tmp_path))
    exp.set_option("attack", "fake_positive")
    exp.set_option("attack.items", "3")
    exp.set_option("limit", "1")
    exp.run(None)
    with open(os.path.join(exp.get_directory(), "fake_positive", "run_1", "config.json")) as f:
        config = json.load(f)["attack_config"]
    assert config["n_restaurants"] == 3 and config["parameters"]["restaurants"] == 3


def test_attack_command_takes_the_shared_options_as_a_run_does(hotels_dir):
    """`anot-run attack` accepts the options of a run of several attacks:
    --attack-target-len goes to heterogeneity, and is left out (said) for an
    attack without it, as `run --attack all` leaves it out; -A stays strict."""
    def attack(*options):
        return subprocess.run([os.environ["ANOT_RUN"], "attack", "-d", hotels_dir, "--request", "R01",
                               "--json", *options], capture_output=True, text=True, timeout=60)

    typo = attack("--attack", "typo_10", "--attack-target-len", "300")
    assert typo.returncode == 0, typo.stderr
    assert "typo_10 takes no target-len" in typo.stderr
    assert "target-len" not in json.loads(typo.stdout)["parameters"]
    het = attack("--attack", "heterogeneity", "--attack-target-len", "300")
    assert het.returncode == 0, het.stderr
    assert json.loads(het.stdout)["parameters"]["target-len"] == 300 and not het.stderr
    strict = attack("--attack", "typo_10", "-A", "target-len=300")
    assert strict.returncode == 2 and "no parameter" in strict.stderr


def reviewer_of(review):
    """Every reviewer field of a review together, as a method sees them."""
    record = review.to_dict()
    user = record.get("user", {})
    return (record.get("user_id"), user.get("review_count"), user.get("average_stars"),
            user.get("yelping_since"), user.get("name"), tuple(user.get("friends", ())))


@pytest.mark.parametrize("benchmark", ["hotels", "demo", "philly"])
def test_added_reviewers_fit_together_as_real_ones(benchmark, request):
    """Every reviewer field of an added review (id, statistics, join date,
    name, friends) is one real reviewer's: measured over every attack that
    adds reviews, on every request, the count of added reviews whose
    reviewer fields fit together as no real review's do is 0, as it is
    for the real ones (attacks.md)."""
    ds = request.getfixturevalue(benchmark)
    real = {reviewer_of(r) for i in range(ds.get_n_items()) for r in ds.get_item(i).get_reviews()}
    ids = {r.get_id() for i in range(ds.get_n_items()) for r in ds.get_item(i).get_reviews()}
    n_added, mismatched = 0, []
    for name in attacks():
        attack = Anot.Registry.get_default().create_attack(name)
        if name == "heterogeneity":
            continue   # changes lengths, adds nothing
        for i in range(ds.get_n_requests()):
            for item in attack.apply(*attacked_args(ds, name, i)):
                for review in item.get_reviews():
                    if review.get_id() in ids:
                        continue
                    n_added += 1
                    if reviewer_of(review) not in real:
                        mismatched.append((name, review.get_id(), reviewer_of(review)))
    assert n_added > ds.get_n_requests()
    assert not mismatched, f"{len(mismatched)} of {n_added} added reviews: {mismatched[:3]}"
