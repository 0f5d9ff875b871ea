import os

import gi
import pytest

gi.require_version("Anot", "1.0")
gi.require_version("Json", "1.0")


@pytest.fixture(scope="session")
def demo_dir():
    return os.path.join(os.environ["ANOT_DATA_DIR"], "demo")


@pytest.fixture(scope="session")
def philly_dir():
    path = os.environ.get("ANOT_PHILLY_DATA", "")
    if not path or not os.path.isdir(path):
        pytest.skip("philly_cafes benchmark not found (set ANOT_PHILLY_DATA)")
    return path


@pytest.fixture(scope="session")
def demo(demo_dir):
    """The demo benchmark, loaded once (datasets are immutable)."""
    from gi.repository import Anot

    return Anot.Dataset.load(demo_dir)


@pytest.fixture(scope="session")
def philly(philly_dir):
    from gi.repository import Anot

    return Anot.Dataset.load(philly_dir)


@pytest.fixture(scope="session")
def hotels_dir():
    """The bundled hotels benchmark (data/hotels): another domain than
    restaurants, items.jsonl, gold_item and sequential review ids."""
    return os.path.join(os.environ["ANOT_DATA_DIR"], "hotels")


@pytest.fixture(scope="session")
def hotels(hotels_dir):
    from gi.repository import Anot

    return Anot.Dataset.load(hotels_dir)


@pytest.fixture(scope="session")
def golden_fake_llm(tmp_path_factory):
    """anot-fake-llm answering from the golden suite's scripted replies
    (tests/golden/fake-llm-rules.json), for the whole session: its URL and
    the file where it logs every request it receives."""
    import subprocess

    path = os.environ.get("ANOT_FAKE_LLM")
    if not path:
        pytest.skip("ANOT_FAKE_LLM is not set")
    rules = os.path.join(os.environ["ANOT_TEST_SRCDIR"], "golden", "fake-llm-rules.json")
    log = tmp_path_factory.mktemp("golden-fake-llm") / "requests.jsonl"
    process = subprocess.Popen([path, "--rules", rules, "--log", str(log)],
                               stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        yield process.stdout.readline().strip(), log
    finally:
        process.terminate()
        process.wait()
