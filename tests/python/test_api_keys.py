"""A missing API key for a provider's own endpoint refuses the run before
anything is written, for the LLM roles the method declared; a method that
calls no LLM, the estimate and another server need no key."""

import pytest
from gi.repository import Anot, GLib


@pytest.fixture
def no_keys(monkeypatch, tmp_path):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    monkeypatch.delenv("ANOT_BASE_URL", raising=False)
    # No user config.ini with a key in it.
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))


def experiment(demo, out, method, **options):
    return Anot.Experiment(demo, method, backend="openai", model="gpt-4o-mini",
                           candidates=[5], limit=2, out=out, name="exp", **options)


def test_missing_key_refuses_before_anything_is_written(demo, tmp_path, no_keys):
    exp = experiment(demo, tmp_path, "cot")
    with pytest.raises(GLib.Error) as info:
        exp.check_api_keys()
    assert info.value.matches(Anot.error_quark(), Anot.Error.CONFIG)
    assert "OPENAI_API_KEY" in info.value.message
    assert "role default" in info.value.message
    with pytest.raises(GLib.Error) as info:
        exp.run_blocking(progress=False)
    assert info.value.matches(Anot.error_quark(), Anot.Error.CONFIG)
    assert not (tmp_path / "exp").exists()
    # The estimate sends nothing: it needs no key.
    estimate = experiment(demo, tmp_path, "cot").estimate()
    assert estimate["total"]["calls"] == 2
    assert not (tmp_path / "exp").exists()


def test_no_llm_no_key(demo, tmp_path, no_keys):
    exp = experiment(demo, tmp_path, "bm25")
    assert exp.check_api_keys()
    assert exp.run_blocking(progress=False)
    assert len(exp.results()) == 2


def test_python_method_roles(demo, tmp_path, no_keys):
    @Anot.register_method("py-asks-planner", roles=["planner"])
    class AsksPlanner(Anot.PyMethod):
        def rank(self, request, candidates, k, context):
            raise AssertionError("must not run without a key")

    @Anot.register_method("py-asks-nobody", roles=[])
    class AsksNobody(Anot.PyMethod):
        def rank(self, request, candidates, k, context):
            return list(range(len(candidates)))

    registry = Anot.Registry.get_default()
    assert registry.list_method_roles("py-asks-planner") == ["planner"]
    assert registry.list_method_roles("py-asks-nobody") == []
    with pytest.raises(GLib.Error) as info:
        experiment(demo, tmp_path, "py-asks-planner").check_api_keys()
    assert "role planner" in info.value.message
    assert "OPENAI_API_KEY" in info.value.message
    assert experiment(demo, tmp_path, "py-asks-nobody").check_api_keys()
    # Another server may need no key.
    assert experiment(demo, tmp_path, "py-asks-planner",
                      base_url="http://127.0.0.1:9/v1").check_api_keys()
