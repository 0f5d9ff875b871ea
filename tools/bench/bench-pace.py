#!/usr/bin/python3
# bench-pace.py: anot-run's pace against rate limits and a server's capacity
#
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Two scenes, each against a fresh anot-fake-llm in a process of its own,
# cot on the demo (30 requests, ~22,000 prompt tokens each):
#
#  1. OpenAI's accounting at 600,000 tokens a minute (prompt characters / 4
#     + max_tokens counted when a call is admitted, a sliding window,
#     x-ratelimit-* headers, "Please try again in 1.234s" in the 429 body,
#     no Retry-After), without -j: exit status, rows scored, calls answered
#     429, wall time beside the limit's floor (one window for each window's
#     worth of tokens beyond the first).
#  2. A server that serves 32 calls at full speed (500 ms each) and slows
#     every call in proportion beyond, cot × 16 runs (480 calls): the wall
#     time without -j beside -j 8, 32 and 128, and the most calls in
#     flight at the server.
#
#   bench-pace.py --anot-run build/tools/anot-run --fake-llm build/tests/fixtures/anot-fake-llm
#                 [--window-ms 60000] [--scene tpm|capacity|both]
#
# --window-ms shortens the server's window (and anot's, through
# ANOT_RATE_WINDOW_MS) so the meson benchmark takes seconds, not minutes;
# the floor and the bound scale with it.  There is no Python peer: the
# original framework neither read rate limits nor adapted its concurrency.

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

REPLY = '[1, 2, 3, 4, 5, 6, 7, 8, 9, 10]'


def start_server(fake_llm, rules, tmp, name):
    path = os.path.join(tmp, name + '-rules.json')
    with open(path, 'w') as f:
        json.dump(rules, f)
    log = os.path.join(tmp, name + '-requests.jsonl')
    proc = subprocess.Popen([fake_llm, '--rules', path, '--log', log, '--no-bodies'],
                            stdout=subprocess.PIPE, text=True)
    url = proc.stdout.readline().strip()
    return proc, url, log


def records(log):
    with open(log) as f:
        return [json.loads(line) for line in f if line.strip()]


def peak_in_flight(recs):
    # A call is in flight at the server from its arrival for its latency.
    events = []
    for r in recs:
        events.append((r['time_ms'], 1))
        events.append((r['time_ms'] + r.get('latency_ms', 0), -1))
    events.sort(key=lambda e: (e[0], e[1]))
    peak = cur = 0
    for _, d in events:
        cur += d
        peak = max(peak, cur)
    return peak


def run(anot_run, url, tmp, name, extra, window_ms):
    out = os.path.join(tmp, 'out')
    env = dict(os.environ, OPENAI_API_KEY='sk-bench', ANOT_RATE_WINDOW_MS=str(window_ms))
    args = [anot_run, '--method', 'cot', '--backend', 'openai', '--base-url', url + '/v1',
            '--model', 'fake', '--candidates', '10', '--out', out, '--name', name] + extra
    start = time.monotonic()
    proc = subprocess.run(args, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          text=True)
    wall = time.monotonic() - start
    scored = 0
    for root, _, files in os.walk(os.path.join(out, name)):
        for fn in files:
            if fn.startswith('results_') and fn.endswith('.jsonl'):
                with open(os.path.join(root, fn)) as f:
                    scored += sum(1 for line in f if line.strip() and '"error"' not in line)
    reached = ''
    for line in proc.stdout.splitlines():
        if line.startswith('Calls in flight adapted to at most'):
            reached = line.split()[7]
    return proc.returncode, wall, scored, reached, proc.stdout


def scene_tpm(a, tmp):
    tpm = 600000
    rules = {'latency_ms': 500, 'rules': [{'match': '.*', 'reply': REPLY}],
             'rate_limit': {'style': 'openai', 'tpm': tpm, 'window_ms': a.window_ms}}
    server, url, log = start_server(a.fake_llm, rules, tmp, 'tpm')
    try:
        rc, wall, scored, reached, out = run(a.anot_run, url, tmp, 'tpm', [], a.window_ms)
    finally:
        server.terminate()
        server.wait()
    recs = records(log)
    admitted = [r for r in recs if r['status'] == 200]
    tokens = sum(r['prompt_tokens'] for r in admitted)
    windows_beyond = max(0, -(-tokens // tpm) - 1)
    floor = windows_beyond * a.window_ms / 1000
    # The 10 s are the run's start and end (loading, prompts), which a
    # shorter window does not shorten.
    slack = 10
    bound = 1.15 * floor + slack
    print('Scene 1: OpenAI accounting, %d tokens a window of %.1f s, cot on the demo, no -j'
          % (tpm, a.window_ms / 1000))
    print('  %-28s %s' % ('exit status', rc))
    print('  %-28s %d / 30' % ('requests scored', scored))
    print('  %-28s %d of %d' % ('calls answered 429', len(recs) - len(admitted), len(recs)))
    print('  %-28s %d (%.2f windows)' % ('tokens admitted', tokens, tokens / tpm))
    print('  %-28s %.1f s' % ('wall', wall))
    print('  %-28s %.1f s (1.15 x floor %.1f s + %.1f s)' % ('bound', bound, floor, slack))
    print('  %-28s %s' % ('within', 'yes' if wall <= bound else 'NO'))
    print('  %-28s %s' % ('concurrency reached', reached or '-'))
    if rc != 0:
        print(out)
    return rc == 0 and scored == 30 and len(recs) - len(admitted) <= 2


def scene_capacity(a, tmp):
    rules = {'latency_ms': 500, 'capacity': 32, 'rules': [{'match': '.*', 'reply': REPLY}]}
    rows = []
    for j in ('8', '32', '128', None):
        server, url, log = start_server(a.fake_llm, rules, tmp, 'cap-%s' % (j or 'auto'))
        try:
            extra = ['--runs', '16'] + (['-j', j] if j else [])
            rc, wall, scored, reached, out = run(a.anot_run, url, tmp, 'cap-%s' % (j or 'auto'),
                                                 extra, a.window_ms)
        finally:
            server.terminate()
            server.wait()
        recs = records(log)
        rows.append((j or 'auto', rc, wall, scored, len(recs), peak_in_flight(recs), reached))
        if rc != 0:
            print(out)
    best = min(r[2] for r in rows if r[0] != 'auto')
    auto = [r for r in rows if r[0] == 'auto'][0]
    print('Scene 2: a server of capacity 32 (500 ms a call, slower in proportion beyond), '
          'cot x 16 runs')
    print('  %-6s %4s %8s %7s %6s %10s %9s' % ('-j', 'exit', 'wall', 'scored', 'calls',
                                               'in flight', 'reached'))
    for r in rows:
        print('  %-6s %4d %7.1fs %7d %6d %10d %9s' % (r[0], r[1], r[2], r[3], r[4], r[5],
                                                     r[6] or '-'))
    print('  auto / best fixed: %.2f (bound 1.30)' % (auto[2] / best))
    return all(r[1] == 0 and r[3] == 480 for r in rows) and auto[5] <= 96


def main():
    p = argparse.ArgumentParser()
    p.add_argument('--anot-run', required=True)
    p.add_argument('--fake-llm', required=True)
    p.add_argument('--window-ms', type=int, default=60000)
    p.add_argument('--scene', choices=('tpm', 'capacity', 'both'), default='both')
    a = p.parse_args()
    ok = True
    with tempfile.TemporaryDirectory(prefix='bench-pace-') as tmp:
        if a.scene in ('tpm', 'both'):
            ok = scene_tpm(a, tmp) and ok
        if a.scene in ('capacity', 'both'):
            ok = scene_capacity(a, tmp) and ok
    return 0 if ok else 1


if __name__ == '__main__':
    sys.exit(main())
