#!/usr/bin/env python3
"""Requests per second of a Python method file: anot-run --plugin against
Anot.Experiment, the same method, in the same run.

The method is the Python guide's asynchronous listwise method
(tests/python-plugin/listwise.py), which awaits complete_async(); the fake
LLM server answers every call after LATENCY ms.  Both sides run the same
requests with the same concurrency; anot-run's figure is given for the
whole process and without its start-up (interpreter, typelib, plugin
file: the time of `anot-run --plugin FILE --list`).

Run it in `meson devenv -C build` (it needs the typelib, the overrides and
ANOT_PLUGIN_PATH):

    /usr/bin/python3 tools/bench/bench-python-plugin.py \
        --anot-run build/tools/anot-run --fake-llm build/tests/fixtures/anot-fake-llm \
        --data ../shared/data/philly_cafes --runs 5 -j 100
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

import gi
gi.require_version("Anot", "1.0")
from gi.repository import Anot

HERE = os.path.dirname(os.path.abspath(__file__))
PLUGIN = os.path.join(HERE, "..", "..", "tests", "python-plugin", "listwise.py")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--anot-run", required=True)
    parser.add_argument("--fake-llm", required=True)
    parser.add_argument("--data", required=True)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("-j", "--concurrency", type=int, default=100)
    parser.add_argument("--latency", type=int, default=200)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()

    work = tempfile.mkdtemp(prefix="bench-python-plugin-")
    rules = os.path.join(work, "rules.json")
    with open(rules, "w") as f:
        json.dump({"latency_ms": [args.latency, args.latency],
                   "rules": [{"match": "Answer with", "reply": "3, 1, 2, 5, 4"}]}, f)
    server = subprocess.Popen([args.fake_llm, "--rules", rules], stdout=subprocess.PIPE,
                              stderr=subprocess.DEVNULL, text=True)
    url = server.stdout.readline().strip() + "/v1"
    plugin = os.path.abspath(PLUGIN)
    try:
        dataset = Anot.Dataset.load(args.data)
        Anot.Registry.get_default().load_plugin(plugin)
        n_requests = len(dataset.requests) * args.runs
        options = dict(backend="openai", base_url=url, model="gpt-4o-mini", candidates=10,
                       runs=args.runs, concurrency=args.concurrency, out=work, force=True)
        cli_args = [args.anot_run, "--plugin", plugin, "-m", "file-listwise", "--data", args.data,
                    "--backend", "openai", "--base-url", url, "--model", "gpt-4o-mini",
                    "-n", "10", "--runs", str(args.runs), "-j", str(args.concurrency),
                    "-o", work, "--force"]

        api, cli, startup = [], [], []
        for i in range(args.repeat):
            start = time.monotonic()
            Anot.Experiment(dataset, "file-listwise", name=f"api{i}", **options).run_blocking()
            api.append(time.monotonic() - start)

            start = time.monotonic()
            subprocess.run(cli_args + ["--name", f"cli{i}"], check=True, stdout=subprocess.DEVNULL)
            cli.append(time.monotonic() - start)

            start = time.monotonic()
            subprocess.run([args.anot_run, "--plugin", plugin, "--list"], check=True,
                           stdout=subprocess.DEVNULL)
            startup.append(time.monotonic() - start)

        api_rate = n_requests / statistics.median(api)
        cli_rate = n_requests / statistics.median(cli)
        run_rate = n_requests / (statistics.median(cli) - statistics.median(startup))
        print(f"{n_requests} requests, -j {args.concurrency}, {args.latency} ms per call, "
              f"median of {args.repeat}")
        print(f"Anot.Experiment          {statistics.median(api):6.2f} s  {api_rate:7.1f} requests/s")
        print(f"anot-run --plugin        {statistics.median(cli):6.2f} s  {cli_rate:7.1f} requests/s"
              f"  ({cli_rate / api_rate:.2f}x)")
        print(f"anot-run without start-up {statistics.median(cli) - statistics.median(startup):5.2f} s"
              f"  {run_rate:7.1f} requests/s  ({run_rate / api_rate:.2f}x; start-up "
              f"{statistics.median(startup):.2f} s)")
    finally:
        server.terminate()
        server.wait()


if __name__ == "__main__":
    sys.exit(main())
