#!/usr/bin/python3
# bench-render.py: the formatter beside Python's json.dumps of the same items
#
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Usage: bench-render.py BENCH_RENDER DIR [--items N] [--repeat R]
#
# Runs the C benchmark (bench-render) on DIR, which also writes each item's
# text; reads the items back into Python dicts (json.loads) and times
# json.dumps(item, indent=2) on each, the original framework's way of
# writing a candidate (format_ranking_query), in the same run; checks that
# both write the same bytes and prints both times per item and their ratio.

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument('bench_render')
    parser.add_argument('data')
    parser.add_argument('--items', type=int, default=200)
    parser.add_argument('--repeat', type=int, default=5)
    opts = parser.parse_args()

    with tempfile.TemporaryDirectory() as tmp:
        texts_path = os.path.join(tmp, 'items.jsonl')
        out = subprocess.run([opts.bench_render, '--items', str(opts.items), '--repeat', str(opts.repeat),
                              '--write', texts_path, opts.data],
                             check=True, stdout=subprocess.PIPE, text=True).stdout
        with open(texts_path, encoding='utf-8') as f:
            texts = [json.loads(line) for line in f]
    print(out.strip())
    c_us = float(re.search(r'C formatter ([0-9.]+) us', out).group(1))

    items = [json.loads(t) for t in texts]
    for text, item in zip(texts, items):
        if json.dumps(item, indent=2) != text:
            print('bench-render.py: json.dumps writes other bytes than the formatter', file=sys.stderr)
            return 1
    best = None
    for _ in range(opts.repeat):
        start = time.process_time()
        for item in items:
            json.dumps(item, indent=2)
        elapsed = time.process_time() - start
        best = elapsed if best is None else min(best, elapsed)
    py_us = best * 1e6 / len(items)
    print('Python json.dumps(indent=2) %.1f us per item (best of %d, CPU time), same bytes' % (py_us, opts.repeat))
    print('C / Python: %.2fx faster per item' % (py_us / c_us))
    return 0


if __name__ == '__main__':
    sys.exit(main())
