"""Attacks from Python: C attack plugins, an attack written in Python,
experiments with attacks and the robustness report."""
import json
import os

import pytest
from gi.repository import Anot

POINT = Anot.ATTACK_EXTENSION_POINT_NAME


class Shout(Anot.ItemAttack):
    """Writes every review of an attacked restaurant in capitals."""

    __gtype_name__ = "TestShoutAttack"

    def do_attack_item(self, item, request, seed):
        return [r.copy_with_text(r.get_text().upper()) for r in item.get_reviews()]


Anot.Registry.get_default().register(POINT, Shout.__gtype__, "py_shout", Shout.__doc__)


def shuffled_pool(ds, request_id, seed=43):
    request = ds.lookup_request(request_id)
    pool = Anot.Pool.new(ds, request, 10, Anot.PoolMode.SAMPLED, Anot.ShuffleMode.RANDOM, seed)
    return request, pool.get_shuffled()


def texts(items):
    return [[r.get_text() for r in item.get_reviews()] for item in items]


def test_c_attack_from_python(demo):
    attack = Anot.Registry.get_default().create_attack("inject_hidden")
    assert isinstance(attack, Anot.ItemAttack)
    assert attack.props.category == "injection"
    assert attack.set_parameter("reviews", "2")
    assert attack.get_parameters().get_int_member("reviews") == 2

    request, clean = shuffled_pool(demo, "R01")
    before = texts(clean)
    seed = Anot.attack_derive_seed(43, "inject_hidden", "R01", 10)
    first = attack.apply(clean, request, seed)
    second = attack.apply(clean, request, seed)
    assert texts(first) == texts(second)
    assert texts(first) != before
    assert texts(clean) == before  # the input is not modified

    description = Anot.attack_describe(clean, first, request).get_array()
    for i in range(description.get_length()):
        entry = description.get_object_element(i)
        if entry.get_boolean_member("gold"):
            assert not entry.get_boolean_member("attacked")
            assert first[i] == clean[i]


def test_python_attack_in_an_experiment(demo, tmp_path):
    exp = Anot.Experiment.new(demo, "bm25")
    exp.set_option("out", str(tmp_path))
    exp.set_option("attack", "clean,py_shout")
    exp.set_option("attack.restaurants", "3")
    exp.set_option("limit", "5")
    exp.run(None)
    assert exp.list_attacks() == ["clean", "py_shout"]
    assert exp.get_attack("py_shout").props.restaurants == 3
    assert exp.get_attack("clean") is None
    metrics = exp.get_attack_metrics("py_shout", 10, 1)
    assert metrics.get_total() == 5

    config_path = os.path.join(exp.get_directory(), "py_shout", "run_1", "config.json")
    with open(config_path) as f:
        config = json.load(f)
    assert config["attack_config"]["attack"] == "py_shout"
    assert config["attack_config"]["n_restaurants"] == 3

    # The reviews of the attacked restaurants reached the method in capitals:
    # bm25 folds case, so its results are those of the clean run.
    clean = exp.get_attack_results("clean", 10, 1)
    shout = exp.get_attack_results("py_shout", 10, 1)
    assert [r.get_gold_rank() for r in clean] == [r.get_gold_rank() for r in shout]


def test_robustness_report_from_python(demo, tmp_path):
    exp = Anot.Experiment.new(demo, "bm25")
    exp.set_option("out", str(tmp_path))
    exp.set_option("attack", "both")
    exp.set_option("limit", "4")
    exp.run(None)
    attacks = exp.list_attacks()
    assert attacks[0] == "clean" and "typo_10" in attacks and "heterogeneity" not in attacks

    report = Anot.robustness_report(exp.get_directory(), None).get_object()
    rows = report.get_array_member("results")
    names = [rows.get_object_element(i).get_string_member("attack") for i in range(rows.get_length())]
    assert names[0] == "clean"
    assert sorted(names[1:]) == sorted(a for a in attacks if a != "clean")
    clean = rows.get_object_element(0).get_object_member("hits_at_1").get_double_member("mean")
    assert clean == pytest.approx(exp.get_attack_metrics("clean", 10, 1).get_hits_at(1))
    table = Anot.robustness_report_format(Anot.robustness_report(exp.get_directory(), None))
    assert "fake_positive" in table


def test_defense_prompt(demo):
    ctx = Anot.MethodContext.new(demo, "R01", 1)
    assert ctx.get_defense_prompt() is None
    ctx.set_defense(True)
    prompt = ctx.get_defense_prompt()
    assert "attack" in prompt and "typos" in prompt
    assert ctx.props.defense


def added_reviews(clean, attacked):
    out = []
    for before, after in zip(clean, attacked):
        ids = {r.get_id() for r in before.get_reviews()}
        out += [r for r in after.get_reviews() if r.get_id() not in ids]
    return out


def test_added_reviews_realistic_by_default(demo):
    attack = Anot.Registry.get_default().create_attack("fake_positive")
    assert attack.props.compat == Anot.AttackCompat.REALISTIC
    request, clean = shuffled_pool(demo, "R01")
    seed = Anot.attack_derive_seed(43, "fake_positive", "R01", 10)
    added = added_reviews(clean, attack.apply(clean, request, seed))
    assert len(added) == len(clean) - 1  # one per non-gold candidate
    real = next(item for item in clean if item.get_n_reviews() > 0).get_review(0)
    for review in added:
        assert len(review.get_id()) == len(real.get_id())
        assert demo.lookup_review(review.get_id()) is None
        assert review.get_user_id() and review.get_reviewer_name()
        assert sorted(review.to_json().get_members()) == sorted(real.to_json().get_members())
        assert not review.get_date().startswith("2024-01-01")

    attack.props.compat = Anot.AttackCompat.ORIGINAL
    labelled = added_reviews(clean, attack.apply(clean, request, seed))
    assert {r.get_id() for r in labelled} == {"fake_001"}
    assert all(r.get_date() == "2024-01-01" and r.get_user_id() is None for r in labelled)
    # Same places and texts in both modes.
    assert [r.get_text() for r in labelled] == [r.get_text() for r in added]


def test_attack_compat_option_from_python(demo, tmp_path):
    exp = Anot.Experiment(demo, "bm25", out=str(tmp_path), attack="fake_positive",
                          attack_compat=Anot.AttackCompat.ORIGINAL, limit=2)
    exp.run()
    config = os.path.join(exp.get_directory(), "fake_positive", "run_1", "config.json")
    with open(config) as f:
        attack_config = json.load(f)["attack_config"]
    assert attack_config["compat"] == "original"
    assert attack_config["parameters"]["compat"] == "original"
    report = Anot.robustness_report(exp.get_directory(), None).get_object()
    assert report.get_string_member("attack_compat") == "original"
    rows = report.get_array_member("results")
    assert rows.get_object_element(0).get_string_member("compat") == "original"

    # A typo in the mode is refused when it is set, naming the key.
    with pytest.raises(Exception, match="attack-compat"):
        Anot.Experiment(demo, "bm25", out=str(tmp_path), attack="clean", attack_compat="labelled")


def test_compat_original_from_python(demo, tmp_path):
    """The one switch: the attacks' labelled reviews and the original pools
    follow from it, and config.json records it."""
    exp = Anot.Experiment(demo, "bm25", out=str(tmp_path), attack="fake_positive",
                          compat=Anot.CompatMode.ORIGINAL, candidates=10)
    exp.run()
    assert exp.props.compat == Anot.CompatMode.ORIGINAL
    assert exp.props.pool_mode == Anot.PoolMode.ORIGINAL
    config = os.path.join(exp.get_directory(), "fake_positive", "run_1", "config.json")
    with open(config) as f:
        config = json.load(f)
    assert config["anot"]["compat"] == "original"
    assert config["anot"]["pool"] == "original"
    assert config["attack_config"]["compat"] == "original"

    # Half like for like is refused before anything runs.
    contradicted = Anot.Experiment(demo, "bm25", out=str(tmp_path), name="x", compat="original",
                                   pool="sampled")
    with pytest.raises(Exception, match="pool sampled"):
        contradicted.prepare()
