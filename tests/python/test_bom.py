"""A UTF-8 byte order mark at the start of a data file is not part of its
text: Windows editors write one, and the first line used to be refused as
"invalid number at column 1"."""
import os
import shutil

import pytest
from gi.repository import Anot, GLib, Json

BOM = b"\xef\xbb\xbf"


def with_bom(path):
    data = path.read_bytes()
    assert not data.startswith(BOM)
    path.write_bytes(BOM + data)


def test_dataset_files(demo, demo_dir, tmp_path):
    copy = tmp_path / "demo"
    shutil.copytree(demo_dir, copy)
    names = sorted(p.name for p in copy.iterdir() if p.suffix in (".jsonl", ".json"))
    assert {"restaurants.jsonl", "reviews.jsonl", "requests.jsonl", "groundtruth.jsonl",
            "user_mapping.json"} <= set(names)
    for name in names:
        with_bom(copy / name)
    loaded = Anot.Dataset.load(str(copy))
    assert [i.to_dict() for i in loaded.items] == [i.to_dict() for i in demo.items]
    assert [r.to_dict() for r in loaded.requests] == [r.to_dict() for r in demo.requests]
    assert [len(i.reviews) for i in loaded.items] == [len(i.reviews) for i in demo.items]
    validator = Anot.Validator.new(loaded)
    assert all(validator.check_request(r)[0] == Anot.GoldStatus.OK for r in loaded.requests)


def test_only_at_the_start(demo_dir, tmp_path):
    """A BOM elsewhere is still an error, naming the file and line."""
    copy = tmp_path / "demo"
    shutil.copytree(demo_dir, copy)
    path = copy / "requests.jsonl"
    lines = path.read_bytes().split(b"\n")
    lines[1] = BOM + lines[1]
    path.write_bytes(b"\n".join(lines))
    with pytest.raises(GLib.Error) as info:
        Anot.Dataset.load(str(copy))
    assert "requests.jsonl:2" in info.value.message


def test_formula_seed_file(tmp_path):
    source = os.path.join(os.environ["ANOT_TEST_SRCDIR"], "..", "data", "formula-seeds", "g1a-v1.json")
    path = tmp_path / "seed.json"
    shutil.copy(source, path)
    with_bom(path)
    dump = lambda seed: Json.to_string(seed.to_json(), False)
    assert dump(Anot.FormulaSeed.load(str(path), False)) == \
        dump(Anot.FormulaSeed.load(source, False))


def test_config_ini(tmp_path):
    path = tmp_path / "config.ini"
    path.write_bytes(BOM + b"[default]\nbackend = openai\nmodel = gpt-4o-mini\n")
    config = Anot.LlmConfig.new()
    assert config.load_file(str(path))
