#!/usr/bin/python3
# bench-load.py: the Python peer of bench-load, loading a benchmark
# directory the way the original framework did: json.loads() per line into
# dicts (restaurants.jsonl, reviews.jsonl, requests.jsonl,
# groundtruth.jsonl), json.load() of the two whole-file documents, kept in
# memory like anot's dataset.
#
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Usage: bench-load.py DIR
# Prints one line: "python-load: wall S cpu S peak-rss BYTES records N".
import json
import os
import resource
import sys
import time


def load_jsonl(path, records):
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.strip():
                records.append(json.loads(line))


def load_json(path):
    if not os.path.exists(path):
        return None
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def main():
    if len(sys.argv) != 2:
        print("Usage: bench-load.py DIR", file=sys.stderr)
        return 2
    root = sys.argv[1]
    wall = time.perf_counter()
    cpu = time.process_time()
    items, reviews, requests, truth = [], [], [], []
    load_jsonl(os.path.join(root, "restaurants.jsonl"), items)
    load_jsonl(os.path.join(root, "reviews.jsonl"), reviews)
    mapping = load_json(os.path.join(root, "user_mapping.json"))
    load_jsonl(os.path.join(root, "requests.jsonl"), requests)
    if os.path.exists(os.path.join(root, "groundtruth.jsonl")):
        load_jsonl(os.path.join(root, "groundtruth.jsonl"), truth)
    judgements = load_json(os.path.join(root, "judgement_cache.json"))
    # Reviews grouped by item, as the original's loader kept them.
    by_item = {}
    for review in reviews:
        by_item.setdefault(review["business_id"], []).append(review)
    wall = time.perf_counter() - wall
    cpu = time.process_time() - cpu
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    n = len(items) + len(reviews) + len(requests) + len(truth)
    assert mapping is None or isinstance(mapping, dict)
    assert judgements is None or isinstance(judgements, dict)
    print(f"python-load: wall {wall:.3f} cpu {cpu:.3f} peak-rss {rss} records {n}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
