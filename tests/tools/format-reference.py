#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Independent reference for test-formatter: the original framework's string
context of philly candidates, written from the spec (methods.md §0.3 and
evidence.md §5, pass A) with Python's own json.dumps.

    python3 tests/tools/format-reference.py ../shared/data/philly_cafes 0 1 2

prints the SHA-256 and the length of format_ranking_query() for the items
with those 0-based indices (in that order), then of each single item.
"""
import ast
import hashlib
import json
import sys


def pass_a(value):
    if not isinstance(value, str):
        return value
    t = value.strip()
    if t == "None":
        return None
    if t == "True":
        return True
    if t == "False":
        return False
    if (t.startswith("u'") and t.endswith("'")) or (t.startswith('u"') and t.endswith('"')):
        return t[2:-1]
    if (t.startswith("{") and t.endswith("}")) or (t.startswith("[") and t.endswith("]")):
        try:
            v = ast.literal_eval(t)
            if isinstance(v, (dict, list)):
                return v
        except (ValueError, SyntaxError):
            pass
    return value


def load(root):
    with open(f"{root}/restaurants.jsonl") as f:
        rests = [json.loads(line) for line in f if line.strip()]
    with open(f"{root}/user_mapping.json") as f:
        assignments = json.load(f).get("review_assignments", {})
    by_biz = {}
    with open(f"{root}/reviews.jsonl") as f:
        for line in f:
            if line.strip():
                r = json.loads(line)
                by_biz.setdefault(r["business_id"], []).append(r)
    items = []
    for i, rest in enumerate(rests):
        reviews = by_biz.get(rest["business_id"], [])
        recs = {a["review_idx"]: a for a in assignments.get(str(i), [])}
        for k, r in enumerate(reviews):
            a = recs.get(k)
            if a is not None and "user" in r:
                r["user"]["name"] = a["name"]
                r["user"]["friends"] = a.get("friends", [])
        item = {k: v for k, v in rest.items() if k not in ("llm_score", "llm_reasoning")}
        if "attributes" in item and isinstance(item["attributes"], dict):
            item["attributes"] = {k: pass_a(v) for k, v in item["attributes"].items()}
        if isinstance(item.get("categories"), str):
            item["categories"] = [c.strip() for c in item["categories"].split(",") if c.strip()]
        item["reviews"] = reviews
        items.append(item)
    return items


def context(items):
    parts = ["Restaurants:\n"]
    for n, item in enumerate(items, 1):
        parts.append(json.dumps({**item, "index": n}, indent=2))
        parts.append("")
    return "\n".join(parts)


def digest(text):
    return hashlib.sha256(text.encode()).hexdigest(), len(text)


if __name__ == "__main__":
    items = load(sys.argv[1])
    chosen = [items[int(i)] for i in sys.argv[2:]]
    print("context", *digest(context(chosen)))
    for n, item in enumerate(chosen, 1):
        print("item", n, *digest(json.dumps({**item, "index": n}, indent=2)))
