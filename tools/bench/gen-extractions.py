#!/usr/bin/env python3
# gen-extractions.py: synthetic General ANoT extractions for bench-expr
#
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Writes one JSON document: {"items": [{"categories": str, "extractions":
# [...]}, ...]}, each extraction shaped like the g1a_allergy judgments after
# anot_formula_seed_make_extraction(): the three G1a enum fields, then _idx,
# _year, _stars and _useful.  Incidents, interactions and years are drawn
# far more often than in the real data so that every branch of the
# formulas runs.  Deterministic for a given --seed.

import argparse
import json
import random

CATEGORIES = [
    "Thai, Restaurants", "Pizza, Italian, Restaurants", "Chinese, Asian Fusion",
    "American (Traditional), Bars", "Vietnamese, Noodles", "Burgers, Fast Food",
    "Mexican, Tacos", "Indian, Vegetarian", "Japanese, Sushi Bars", "Cafes",
]

def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--items", type=int, default=1000)
    parser.add_argument("--extractions", type=int, default=50)
    parser.add_argument("--seed", type=int, default=3)
    parser.add_argument("--out", required=True)
    args = parser.parse_args()

    rng = random.Random(args.seed)
    items = []
    for _ in range(args.items):
        extractions = []
        for idx in range(args.extractions):
            severity = rng.choices(["none", "mild", "moderate", "severe"], [80, 10, 6, 4])[0]
            account = "none" if severity == "none" and rng.random() < 0.8 else \
                rng.choice(["firsthand", "secondhand", "hypothetical"])
            interaction = rng.choices(["none", "positive", "negative", "betrayal"], [70, 15, 10, 5])[0]
            extractions.append({
                "incident_severity": severity,
                "account_type": account,
                "safety_interaction": interaction,
                "_idx": idx,
                "_year": rng.randint(2012, 2024),
                "_stars": float(rng.randint(1, 5)),
                "_useful": rng.randint(0, 12),
            })
        items.append({"categories": rng.choice(CATEGORIES), "extractions": extractions})
    with open(args.out, "w", encoding="utf-8") as out:
        json.dump({"items": items}, out)

if __name__ == "__main__":
    main()
