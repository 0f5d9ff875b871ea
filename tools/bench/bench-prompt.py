#!/usr/bin/python3
# bench-prompt.py: the whole prompt path, item to request body, beside json.dumps
#
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Usage: bench-prompt.py ANOT_RUN BENCH_RENDER FAKE_LLM DIR [--limit L] [--repeat R]
#                        [--callgrind]
#
# What a user of cot meets per rendered item, end to end: render the
# candidates, count the prompt's characters for the trace, fit it to the
# model's window, record the call, write the request body.  Two runs of
# `anot-run` on DIR (philly_cafes: 50 items, every request's pool of 50
# is every item), cot at N = 50, one with the first L requests (default
# 20) and one with the first request alone; the CPU time per rendered item
# is the difference over the (L - 1) x 50 items the longer run renders
# more, so what both share (start-up, loading the dataset) is taken off:
#
# - `anot-run estimate` with a model without a tokenizer (nothing is
#   tokenized: rendering, counting, the window check, the trace);
# - a direct run (`anot-run --backend openai`) against anot-fake-llm, in a
#   process of its own (its CPU is not counted), answering at once: the
#   same plus the request bodies, the HTTP exchanges and the results.
#
# The Python peer, in the same run: json.dumps(item, indent=2) of the same
# items (the original framework's way of writing a candidate), read back
# from the text bench-render writes for them, after checking that
# json.dumps writes the same bytes.  Each figure is the best of R
# (default 3) runs, CPU time (user + system).  The goal (issue 36): the
# estimate costs at most a third of json.dumps per item.
#
# --callgrind also runs both commands under callgrind and prints, per
# rendered item, the instructions of each stage (inclusive counts of the
# functions that do it, differenced the same way).

import argparse
import json
import os
import re
import resource
import subprocess
import sys
import tempfile
import time

N = 50

# The stages, from callgrind's inclusive counts per function (a name
# absent from a run counts 0; older names are listed beside the current
# ones so that a run of an older tree reads the same way):
# render    the formatter writing the candidates;
# prompt    the template filled around them;
# count     the prompt's characters for the trace;
# fit       the router's window check and token count;
# record    the job's call less the hand-off and the count: the trace
#           record and the chat request;
# key       the call's key for the journal of answers (SHA-256 of the
#           request; callgrind runs Nettle without the CPU's SHA
#           instructions, so this stage is far costlier there than on the
#           CPU);
# hand-off  the method context, router and backend until the call is
#           queued or answered, less the key, the fit and the body;
# body      the request JSON (a direct run only).
JOB = ['anot_llm_job_complete_take_async']
JOB_OLD = ['anot_llm_job_complete_async']
HANDOFF = ['anot_method_context_complete_request_async']
FIT = ['fits_context', 'anot_backend_router_count_prompt_tokens']
COUNT = ['anot_chat_request_get_message_chars']
COUNT_OLD = ['g_utf8_strlen']
BODY = ['write_body']
KEY = ['anot_chat_request_hash']


def stages(c):
    def total(names):
        return sum(c.get(n, 0) for n in names)
    new = total(JOB) > 0
    count = total(COUNT) if new else total(COUNT_OLD)
    handoff = total(HANDOFF)
    return [
        ('render', total(['anot_formatter_format'])),
        ('prompt', total(['domain_fillv'])),
        ('count', count),
        ('fit', total(FIT)),
        ('record', (total(JOB) if new else total(JOB_OLD)) - handoff - count),
        ('key', total(KEY)),
        ('hand-off', handoff - total(KEY) - total(FIT) - total(BODY)),
        ('body', total(BODY)),
        ('whole process', c.get('PROGRAM TOTALS', 0)),
    ]


def cpu_of(args, env):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(args, check=True, stdout=subprocess.DEVNULL, env=env)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def python_dumps_us(bench_render, data, repeat):
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, 'items.jsonl')
        subprocess.run([bench_render, '--items', str(N), '--repeat', '1', '--write', path, data],
                       check=True, stdout=subprocess.DEVNULL)
        with open(path, encoding='utf-8') as f:
            texts = [json.loads(line) for line in f]
    items = [json.loads(t) for t in texts]
    for text, item in zip(texts, items):
        if json.dumps(item, indent=2) != text:
            raise SystemExit('bench-prompt.py: json.dumps writes other bytes than the formatter')
    best = None
    for _ in range(repeat):
        start = time.process_time()
        for item in items:
            json.dumps(item, indent=2)
        elapsed = time.process_time() - start
        best = elapsed if best is None else min(best, elapsed)
    return best * 1e6 / len(items)


def read_callgrind(path):
    """Inclusive instructions per function name (its largest entry)."""
    text = subprocess.run(['callgrind_annotate', '--inclusive=yes', '--threshold=100', path],
                          check=True, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                          text=True).stdout
    counts = {}
    for line in text.splitlines():
        m = re.match(r'\s*([\d,]+) \([^)]*\)\s+(\S+)', line)
        if not m:
            continue
        value = int(m.group(1).replace(',', ''))
        where = m.group(2)
        if where == 'PROGRAM':
            counts['PROGRAM TOTALS'] = value
            continue
        fn = where.rsplit(':', 1)[-1]
        counts[fn] = max(counts.get(fn, 0), value)
    return counts


def callgrind_stages(args, env, tmp, name):
    out = os.path.join(tmp, name + '.callgrind')
    subprocess.run(['valgrind', '--tool=callgrind', '--callgrind-out-file=' + out] + args,
                   check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    return read_callgrind(out)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument('anot_run')
    parser.add_argument('bench_render')
    parser.add_argument('fake_llm')
    parser.add_argument('data')
    parser.add_argument('--limit', type=int, default=20)
    parser.add_argument('--repeat', type=int, default=3)
    parser.add_argument('--callgrind', action='store_true')
    parser.add_argument('--goal', type=float, default=3.0)
    opts = parser.parse_args()

    env = dict(os.environ)
    env['LC_ALL'] = 'C.UTF-8'
    items_more = (opts.limit - 1) * N
    failed = False
    with tempfile.TemporaryDirectory(prefix='anot-bench-prompt-') as tmp:
        env['XDG_CONFIG_HOME'] = os.path.join(tmp, 'config')
        # The fake model has a price, so that runs do not warn of it.
        os.makedirs(os.path.join(tmp, 'config', 'anot'))
        with open(os.path.join(tmp, 'config', 'anot', 'config.ini'), 'w') as f:
            f.write('[prices]\nbench-fake = 0.15, 0.60\n')
        rules = os.path.join(tmp, 'rules.json')
        with open(rules, 'w') as f:
            json.dump({'default_reply': '1, 2, 3, 4, 5'}, f)
        server = subprocess.Popen([opts.fake_llm, '--rules', rules], stdout=subprocess.PIPE, text=True)
        url = server.stdout.readline().strip()
        try:
            common = ['--method', 'cot', '--data', opts.data, '-n', str(N), '-j', '1', '--seed', '42']

            def estimate(limit):
                return [opts.anot_run, 'estimate'] + common + ['--model', 'llama-local',
                                                               '--limit', str(limit)]

            def direct(limit, out):
                return [opts.anot_run] + common + ['--backend', 'openai', '--base-url', url + '/v1',
                                                   '--model', 'bench-fake', '--limit', str(limit),
                                                   '--out', out, '--force']

            runs = {
                'estimate': (estimate(1), estimate(opts.limit)),
                'direct run': (direct(1, os.path.join(tmp, 'one')),
                               direct(opts.limit, os.path.join(tmp, 'all'))),
            }
            py_us = python_dumps_us(opts.bench_render, opts.data, opts.repeat)
            print('%d requests at N = %d against 1: %d rendered items more; %d runs each, best CPU time'
                  % (opts.limit, N, items_more, opts.repeat))
            print('Python json.dumps(indent=2): %.1f us per item (same bytes as the formatter)' % py_us)
            for label, (one, many) in runs.items():
                t1 = min(cpu_of(one, env) for _ in range(opts.repeat))
                tn = min(cpu_of(many, env) for _ in range(opts.repeat))
                us = (tn - t1) * 1e6 / items_more
                ratio = py_us / us if us > 0 else float('inf')
                print('%-10s  1 request %.3f s, %d requests %.3f s: %.1f us per item, '
                      'json.dumps / anot = %.2fx' % (label, t1, opts.limit, tn, us, ratio))
                if label == 'estimate':
                    met = ratio >= opts.goal
                    print('goal: estimate at most 1/%.0f of json.dumps per item: %s'
                          % (opts.goal, 'met' if met else 'NOT met'))
                    failed |= not met
            if opts.callgrind:
                print('\ninstructions per rendered item (callgrind, inclusive; %d requests less 1)'
                      % opts.limit)
                per_run = {}
                for label, (one, many) in runs.items():
                    a = callgrind_stages(one, env, tmp, label.replace(' ', '-') + '-1')
                    b = callgrind_stages(many, env, tmp, label.replace(' ', '-') + '-n')
                    per_run[label] = (a, b)
                print('%-16s %14s %14s' % ('stage', 'estimate', 'direct run'))
                rows = {}
                for label in runs:
                    a, b = per_run[label]
                    for (stage, x), (_, y) in zip(stages(a), stages(b)):
                        rows.setdefault(stage, []).append((y - x) / items_more)
                for stage, cells in rows.items():
                    print('%-16s %14.0f %14.0f' % (stage, cells[0], cells[1]))
        finally:
            server.terminate()
            server.wait()
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
