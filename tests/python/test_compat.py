"""--compat original runs every LLM method and is recorded: each of the ten
runs through anot-run against the fake LLM server (the golden suite's
scripted replies), config.json says so, and compare names the runs."""
import json
import os
import subprocess

import pytest

LLM_METHODS = ["cot", "ps", "plan_act", "listwise", "weaver", "anot", "react", "aot",
               "general_anot", "lats"]


def run(args, tmp_path):
    env = dict(os.environ, XDG_CONFIG_HOME=str(tmp_path / "config"), HOME=str(tmp_path))
    return subprocess.run([os.environ["ANOT_RUN"]] + args, env=env, stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, text=True, timeout=300)


@pytest.mark.parametrize("method", LLM_METHODS)
def test_compat_original_runs_every_method(method, golden_fake_llm, tmp_path):
    url, _ = golden_fake_llm
    out = tmp_path / "out"
    proc = run(["--method", method, "--compat", "original", "--candidates", "10", "--limit", "2",
                "--backend", "openai", "--base-url", url + "/v1", "--model", "golden-fake",
                "--out", str(out)], tmp_path)
    assert proc.returncode == 0, proc.stdout
    assert "Compat: original" in proc.stdout
    run_dir = out / f"{method}_demo" / "clean" / "run_1"
    with open(run_dir / "config.json") as f:
        config = json.load(f)
    assert config["anot"]["compat"] == "original"
    assert config["anot"]["pool"] == "original"
    assert config["anot"]["options"]["compat"] == "original"
    # The record holds the values the compat mode ran with.
    settings = config["anot"]["method_settings"]
    fixed = {"listwise": ("window", 0), "anot": ("variant", "head"), "plan_act": ("plan", "verbatim")}
    if method in fixed:
        key, value = fixed[method]
        assert settings[key] == {"value": value, "source": "default (--compat original)"}
    if method == "anot":
        # What ANoT-HEAD does not read is recorded as not read.
        assert settings["aggregate"] == {"value": None, "source": "not read with anot.variant=head"}
        assert settings["max_rounds"]["value"] == 10
    with open(run_dir / "results_10.jsonl") as f:
        rows = [json.loads(line) for line in f]
    assert len(rows) == 2
    assert all("error" not in row for row in rows), rows
    if method == "anot":
        # ANoT-HEAD, not ANoT-explore.
        with open(run_dir / "trace_10.jsonl") as f:
            assert all(json.loads(line)["trace"]["variant"] == "head" for line in f)

    # compare says which runs are like for like with the original.
    proc = run(["compare", str(out)], tmp_path)
    assert proc.returncode == 0, proc.stdout
    assert "Like for like with the original framework (--compat original" in proc.stdout
    assert method in proc.stdout.splitlines()[-1]
