"""The bundled hotels benchmark (data/hotels): it validates, its
groundtruth is the validator's, and every attack runs on every request
(sequential review ids included) adding reviews about hotels."""
import os
import re
import shutil
import subprocess

import pytest
from gi.repository import Anot

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


def sequential_forge_shape(hotels):
    forge = Anot.ReviewForge.new(hotels, [], None)
    return forge.get_id_shape()


def test_forge_continues_the_numbering(hotels):
    assert sequential_forge_shape(hotels) == Anot.ReviewIdShape.SEQUENTIAL
    assert Anot.review_id_shape_to_string(Anot.ReviewIdShape.SEQUENTIAL) == "sequential"


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
            # The dataset's own numbering, continued after its last review.
            match = re.fullmatch(r"rv(\d{3,})", review.get_id())
            assert match and int(match.group(1)) >= n_reviews, review.get_id()
    if name.startswith("fake_"):
        assert added_any
