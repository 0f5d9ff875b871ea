#!/usr/bin/env python3
# bench-expr.py: the Python eval() side of bench-expr
#
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Usage: bench-expr.py SEED.json EXTRACTIONS.json
#
# Evaluates the seed's compute DAG over every item of EXTRACTIONS.json (from
# gen-extractions.py) the way the original framework's executor did: each
# formula compiled once, then eval() per item in a namespace of the
# extractions, the seed's arrays and lookups, restaurant_category and the
# original's functions; a failing step takes 0 or 0.0.  Prints the same
# figures as bench-expr.c, so the two can be compared line by line.

import json
import math
import sys
import time

FUNCTIONS = {
    "log": math.log, "log10": math.log10, "exp": math.exp, "sqrt": math.sqrt,
    "min": min, "max": max, "sum": sum, "len": len, "zip": zip, "abs": abs,
    "round": round, "math": math, "True": True, "False": False,
}

def run_item(seed, codes, item):
    extractions = item["extractions"]
    ns = {"__builtins__": {}}
    ns.update(FUNCTIONS)
    ns["extractions"] = extractions
    ns["restaurant_category"] = item["categories"]
    for a in seed.get("array_assemblies", []):
        field = {"stars": "_stars", "useful": "_useful", "year": "_year"}.get(a["source_field"], a["source_field"])
        ns[a["array_name"]] = [e.get(field) for e in extractions]
    results = {}
    lookups = {}
    for l in seed.get("lookups", []):
        ns[l["name"]] = l["mapping"]
        lookups[l["name"]] = True
        results[l["name"]] = l.get("default")
    failed = 0
    for step, code in zip(seed["computations"] if "computations" in seed else seed["compute_dag"], codes):
        try:
            value = eval(code, ns)
        except Exception:
            failed += 1
            value = 0 if step.get("is_aggregate") else 0.0
        results[step["name"]] = value
        if step["name"] not in lookups:
            ns[step["name"]] = value
    return {f: results.get(f) for f in seed["output_fields"]}, failed

def main():
    seed = json.load(open(sys.argv[1], encoding="utf-8"))
    items = json.load(open(sys.argv[2], encoding="utf-8"))["items"]
    steps = seed["computations"] if "computations" in seed else seed["compute_dag"]
    codes = [compile(s["formula"], s["name"], "eval") for s in steps]

    best = None
    for _ in range(3):
        start = time.process_time()
        failed = 0
        for item in items:
            _, f = run_item(seed, codes, item)
            failed += f
        elapsed = time.process_time() - start
        best = elapsed if best is None else min(best, elapsed)
    n_ex = sum(len(i["extractions"]) for i in items)
    print(f"python eval: {len(steps)} steps, {len(items)} items x {n_ex // len(items)} extractions, "
          f"{failed} failed steps: {best * 1e6 / len(items):.1f} us CPU per item (best of 3)")

    # The whole path from text: each item's extractions as JSON text
    # (written beforehand), json.loads() per item, the DAG, a dict of
    # outputs: the peer of anot_formula_seed_compute_text().
    texts = [json.dumps(item["extractions"]) for item in items]
    best = None
    for _ in range(3):
        start = time.process_time()
        failed = 0
        for item, text in zip(items, texts):
            loaded = {"extractions": json.loads(text), "categories": item["categories"]}
            _, f = run_item(seed, codes, loaded)
            failed += f
        elapsed = time.process_time() - start
        best = elapsed if best is None else min(best, elapsed)
    print(f"python eval from text: {failed} failed steps: {best * 1e6 / len(items):.1f} us CPU per item "
          f"(best of 3), json.loads() per item, dict of outputs")

    # Evaluation only: the namespaces built beforehand.
    namespaces = []
    for item in items:
        ns = {"__builtins__": {}}
        ns.update(FUNCTIONS)
        ns["extractions"] = item["extractions"]
        ns["restaurant_category"] = item["categories"]
        for a in seed.get("array_assemblies", []):
            field = {"stars": "_stars", "useful": "_useful", "year": "_year"}.get(a["source_field"], a["source_field"])
            ns[a["array_name"]] = [e.get(field) for e in item["extractions"]]
        for l in seed.get("lookups", []):
            ns[l["name"]] = l["mapping"]
        namespaces.append(ns)
    lookups = {l["name"] for l in seed.get("lookups", [])}
    best = None
    for _ in range(3):
        start = time.process_time()
        failed = 0
        for ns in namespaces:
            for step, code in zip(steps, codes):
                try:
                    value = eval(code, ns)
                except Exception:
                    failed += 1
                    value = 0 if step.get("is_aggregate") else 0.0
                if step["name"] not in lookups:
                    ns[step["name"]] = value
        elapsed = time.process_time() - start
        best = elapsed if best is None else min(best, elapsed)
    print(f"python eval, evaluation only: {failed} failed steps: {best * 1e6 / len(items):.1f} us CPU per item (best of 3)")

    # One typical formula: a count over the extractions.
    formula = "sum(1 for e in extractions if e['incident_severity'] == 'mild' and e['account_type'] == 'firsthand')"
    code = compile(formula, "n_mild", "eval")
    ns = {"__builtins__": {}}
    ns.update(FUNCTIONS)
    ns["extractions"] = items[0]["extractions"]
    n = 20000
    start = time.process_time()
    for _ in range(n):
        eval(code, ns)
    elapsed = time.process_time() - start
    print(f"python eval: n_mild over {len(items[0]['extractions'])} extractions: {n / elapsed:,.0f} evaluations per CPU second")

if __name__ == "__main__":
    main()
