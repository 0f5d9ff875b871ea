#!/usr/bin/python3
# golden.py: anot-run's result files, compared byte for byte with recorded goldens
#
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Runs the built anot-run into a temporary directory for every case below,
# normalises what it wrote (see NORMALISED FIELDS) and compares the result
# with tests/golden/expected/.  Prints TAP, one test point per case.
#
#   golden.py               compare (the meson test `golden`)
#   golden.py --regenerate  rewrite the goldens from the current build
#   golden.py --only REGEX  run only the cases whose name matches REGEX
#
# Environment (set by tests/golden/meson.build): ANOT_RUN, ANOT_FAKE_LLM,
# ANOT_PLUGIN_PATH, ANOT_DATA_DIR, ANOT_PHILLY_DATA.
#
# NORMALISED FIELDS.  Everything else stays byte for byte.  A value is
# replaced by a placeholder string, in the file's own layout, so a change of
# any other byte (number formatting, key order, indentation) still shows.
#
#   every file    "latency_ms", "total_latency_ms", "avg_latency_ms",
#                 "mean_latency_per_run_ms": wall time of LLM calls and of
#                 requests (results rows, usage rows, trace calls and ANoT's
#                 phases and steps, the usage totals of config.json and
#                 summary.json); the clock, not the code, decides them.
#                 "timestamp": the wall clock at which a usage row or
#                 config.json was written.  "time_ms" (ReAct's and LATS's
#                 time per request), "start_ms" and "wall_ms" (Atom of
#                 Thought's atoms and plan): wall times too.
#   config.json   "data_path" (anot.data_path) and "out" (anot.out):
#                 absolute paths of the checkout and of the temporary
#                 results directory.  "version" (anot.version): the release
#                 number, so a version bump is not a result change.
#                 "base-url" (anot.options.base-url): the fake LLM server's
#                 URL, whose port is picked at random.  "concurrency_reached"
#                 (without -j) is removed: the clock decides it.
#                 "method_plugin" of a C method (anot.method_plugin): the
#                 module's path and SHA-256 are the build's; the member is
#                 left out.
#   scaling_summary.json
#                 the wall-time part of "usage" ("686k, $0.69, 1s" keeps
#                 "686k, $0.69" and blanks "1s").
#   trace_*.jsonl lines are sorted by (n_candidates, run, request_id): a
#                 trace line is appended when its request finishes, so the
#                 order is the order of completion under --concurrency.
#                 ANoT's "expansions" array (phase 2) is sorted by "item" for
#                 the same reason: its steps are written in parallel.
#
# After normalising, no file may still hold the temporary directory's or the
# checkout's path: a new field holding one would make the goldens depend on
# the machine, so it fails the test instead of passing by luck.
#
# Philadelphia cases (Yelp-derived data, never copied into the project) are
# stored as SHA-256 digests of the normalised files only, and skipped when
# the data is absent.

import argparse
import difflib
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
EXPECTED = os.path.join(HERE, 'expected')
PHILLY_DIGESTS = os.path.join(EXPECTED, 'philly.sha256')
RULES = os.path.join(HERE, 'fake-llm-rules.json')

# Two distinct base seeds: the default one and another.
SEEDS = (42, 7)
# The fake server's scripted replies make one seed enough for the LLM methods.
LLM_SEED = 42
DIFF_LINES = 200

WALL_TIME_KEYS = ('latency_ms', 'total_latency_ms', 'avg_latency_ms',
                  'mean_latency_per_run_ms', 'timestamp', 'time_ms', 'start_ms', 'wall_ms')
CONFIG_KEYS = {'data_path': '<data-path>', 'out': '<out>',
               'version': '<version>', 'base-url': '<fake-llm-url>'}

# A JSON value that is not an object or array: a string, number, literal.
_SCALAR = r'("(?:[^"\\]|\\.)*"|-?[0-9][0-9.eE+-]*|null|true|false)'


def blank_key(text, key, placeholder):
    pattern = re.compile(r'("%s"\s*:\s*)%s' % (re.escape(key), _SCALAR))
    return pattern.sub(lambda m: m.group(1) + json.dumps(placeholder), text)


def sort_expansions(line):
    def repl(m):
        items = re.findall(r'\{[^{}]*\}', m.group(2))
        if ','.join(items) != m.group(2):
            return m.group(0)  # not a flat array of objects: left as it is
        items.sort(key=lambda s: int(re.search(r'"item"\s*:\s*(\d+)', s).group(1))
                   if re.search(r'"item"\s*:\s*(\d+)', s) else -1)
        return m.group(1) + ','.join(items) + ']'
    return re.sub(r'("expansions"\s*:\s*\[)([^\[\]]*)\]', repl, line)


def trace_key(line):
    row = json.loads(line)
    return (row.get('n_candidates', 0), row.get('run', 0), row.get('request_id', ''), line)


def normalise(relpath, text):
    name = os.path.basename(relpath)
    for key in WALL_TIME_KEYS:
        text = blank_key(text, key, '<wall-time>')
    if name == 'config.json':
        for key, placeholder in CONFIG_KEYS.items():
            text = blank_key(text, key, placeholder)
        # Without -j: the calls in flight each server's limit reached, which
        # the clock decides (and a merge of shards cannot know).
        text = re.sub(r',\s*"concurrency_reached"\s*:\s*\{[^{}]*\}', '', text)
        # A C method's module and its SHA-256 are the build's, not a result.
        text = re.sub(r'\n\s*"method_plugin" : \{[^{}]*"language" : "C"[^{}]*\},?', '', text)
    if name == 'scaling_summary.json':
        text = re.sub(r'("usage"\s*:\s*"[^"]*, )[0-9.]+(?:ms|s|m|h)[^"]*"',
                      r'\1<wall-time>"', text)
    if name.startswith('trace_') and name.endswith('.jsonl'):
        lines = [sort_expansions(l) for l in text.splitlines()]
        lines.sort(key=trace_key)
        text = ''.join(l + '\n' for l in lines)
    return text


def tree_files(root):
    out = []
    for dirpath, _, files in os.walk(root):
        for f in files:
            # The one-writer lock names the process that held it.
            if f == '.anot-lock':
                continue
            # The journal of answers: in arrival order, with latencies.
            if f == 'answers.jsonl':
                continue
            out.append(os.path.relpath(os.path.join(dirpath, f), root))
    return sorted(out)


class Case:
    def __init__(self, name, method, data, seed, store, llm=False, args=()):
        self.name, self.method, self.data, self.seed = name, method, data, seed
        self.store, self.llm = store, llm  # store: 'files' or 'sha256'
        self.args = list(args)  # more anot-run options


# The LLM cases: every LLM method with its default prompts, then the
# formatter's other styles and options and attacked reviews through cot,
# so that a change of one byte in any prompt changes a request digest.
LLM_CASES = [(m, m, ()) for m in ('cot', 'listwise', 'anot', 'ps', 'plan_act', 'react',
                                  'lats', 'weaver', 'aot', 'general_anot')] + [
    ('cot-python', 'cot', ('-O', 'format.style=python')),
    ('cot-text', 'cot', ('-O', 'format.style=text', '-O', 'format.max-reviews=2',
                         '-O', 'format.review-chars=80')),
    ('cot-budget', 'cot', ('-O', 'format.item-chars=1500',
                           '-O', 'format.exclude=hours,attributes.Ambience,reviews.user.friends',
                           '-O', 'format.ensure-ascii=false', '-O', 'format.truncation-mark=[cut]',
                           '-O', 'format.first-index=0')),
    ('cot-attacked', 'cot', ('--attack', 'inject_override,sarcastic_noise,typo_10,fake_positive')),
]


def all_cases():
    cases = []
    for data, store in (('demo', 'files'), ('philly', 'sha256')):
        for method in ('bm25', 'random', 'oracle'):
            for seed in SEEDS:
                cases.append(Case('%s/%s-seed%d' % (data, method, seed), method, data, seed, store))
    for name, method, args in LLM_CASES:
        cases.append(Case('llm/%s-seed%d' % (name, LLM_SEED), method, 'demo', LLM_SEED,
                          'files', llm=True, args=args))
    return cases


def run_env(tmp):
    env = {k: v for k, v in os.environ.items()
           if not (k.startswith('ANOT_') or k.startswith('OPENAI_') or k.startswith('ANTHROPIC_'))}
    for k in ('ANOT_PLUGIN_PATH', 'ANOT_DATA_DIR'):
        if k in os.environ:
            env[k] = os.environ[k]
    # No user configuration (config.ini) may reach the runs, and numbers
    # are formatted in one locale.  The fake model's price is the test's
    # own config.ini (anot has no default price: without one the costs
    # would be null), at the figures the expected files were made with.
    env['XDG_CONFIG_HOME'] = os.path.join(tmp, 'config')
    os.makedirs(os.path.join(tmp, 'config', 'anot'), exist_ok=True)
    with open(os.path.join(tmp, 'config', 'anot', 'config.ini'), 'w', encoding='utf-8') as f:
        f.write('[prices]\ngolden-fake = 1.00, 3.00\n')
    env['HOME'] = tmp
    env['LC_ALL'] = 'C.UTF-8'
    return env


class FakeLlm:
    """anot-fake-llm as a process of its own, answering from RULES."""

    def __init__(self, tmp):
        self.log = os.path.join(tmp, 'fake-llm.jsonl')
        self.proc = subprocess.Popen([os.environ['ANOT_FAKE_LLM'], '--rules', RULES,
                                      '--log', self.log],
                                     stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        self.url = self.proc.stdout.readline().strip()
        if not self.url.startswith('http://'):
            self.stop()
            raise RuntimeError('anot-fake-llm did not start')

    def stop(self):
        self.proc.terminate()
        self.proc.wait(timeout=30)


def run_case(case, tmp, philly):
    out = os.path.join(tmp, 'out')
    # -j 8: without -j the calls in flight adapt, and config.json records
    # the most reached, which the clock decides.
    args = [os.environ['ANOT_RUN'], '--method', case.method, '--scaling',
            '--seed', str(case.seed), '--out', out, '-j', '8'] + case.args
    if case.data == 'philly':
        args += ['--data', philly]
    server = None
    if case.llm:
        server = FakeLlm(tmp)
        args += ['--backend', 'openai', '--base-url', server.url + '/v1', '--model', 'golden-fake']
    try:
        proc = subprocess.run(args, env=run_env(tmp), stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, text=True, timeout=600)
    finally:
        if server is not None:
            server.stop()
    if proc.returncode != 0:
        raise RuntimeError('anot-run exited with %d:\n%s' % (proc.returncode, proc.stdout))

    files = {}
    data_dir = os.path.realpath(philly if case.data == 'philly'
                                else os.path.join(os.environ['ANOT_DATA_DIR'], 'demo'))
    for rel in tree_files(out):
        with open(os.path.join(out, rel), encoding='utf-8') as f:
            text = normalise(rel, f.read())
        for leak in (tmp, os.path.realpath(tmp), data_dir, os.path.dirname(data_dir)):
            if leak in text:
                raise RuntimeError('%s still holds the path %s after normalising: '
                                   'a new field to normalise in golden.py?' % (rel, leak))
        files[rel] = text
    if server is not None:
        files['fake-llm-requests.txt'] = llm_requests(server.log)
    return files


def llm_requests(log):
    """What reached the server: one line per request, sorted (they arrive
    in parallel), with the tokens the server counted and a digest of the
    request body (model, messages, parameters), cut to 64 bits:
    enough to see a change, a quarter of the size."""
    lines = []
    with open(log, encoding='utf-8') as f:
        for line in f:
            r = json.loads(line)
            body = json.dumps(r['body'], sort_keys=True, ensure_ascii=False)
            lines.append('%s %s %s %s %d %d %s\n' % (
                r['method'], r['path'], r['status'], r.get('fault'),
                r['prompt_tokens'], r['completion_tokens'],
                hashlib.sha256(body.encode('utf-8')).hexdigest()[:16]))
    return ''.join(sorted(lines))


def sha256(text):
    return hashlib.sha256(text.encode('utf-8')).hexdigest()


def read_digests():
    digests = {}
    if os.path.exists(PHILLY_DIGESTS):
        with open(PHILLY_DIGESTS, encoding='utf-8') as f:
            for line in f:
                digest, path = line.rstrip('\n').split('  ', 1)
                digests[path] = digest
    return digests


def expected_files(case):
    root = os.path.join(EXPECTED, case.name)
    files = {}
    if os.path.isdir(root):
        for rel in tree_files(root):
            with open(os.path.join(root, rel), encoding='utf-8') as f:
                files[rel] = f.read()
    return files


def compare(case, got, digests):
    """Returns a list of diagnostic lines, empty when everything matches."""
    if case.store == 'sha256':
        prefix = case.name + '/'
        want = {p[len(prefix):]: d for p, d in digests.items() if p.startswith(prefix)}
        got_d = {rel: sha256(text) for rel, text in got.items()}
        msgs = []
        for rel in sorted(set(want) | set(got_d)):
            if rel not in got_d:
                msgs.append('%s: %s expected but not written' % (case.name, rel))
            elif rel not in want:
                msgs.append('%s: %s written but not in the goldens' % (case.name, rel))
            elif want[rel] != got_d[rel]:
                msgs.append('%s: %s differs (sha256 %s, golden %s)' % (case.name, rel, got_d[rel], want[rel]))
        return msgs

    want = expected_files(case)
    msgs, diffed = [], False
    for rel in sorted(set(want) | set(got)):
        if rel not in got:
            msgs.append('%s: %s expected but not written' % (case.name, rel))
        elif rel not in want:
            msgs.append('%s: %s written but not in the goldens' % (case.name, rel))
        elif want[rel] != got[rel]:
            msgs.append('%s: %s differs' % (case.name, rel))
            if not diffed:
                diffed = True
                diff = list(difflib.unified_diff(
                    want[rel].splitlines(keepends=True), got[rel].splitlines(keepends=True),
                    'expected/%s/%s' % (case.name, rel), 'got/%s/%s' % (case.name, rel)))
                msgs += [l.rstrip('\n') for l in diff[:DIFF_LINES]]
                if len(diff) > DIFF_LINES:
                    msgs.append('... (%d more diff lines)' % (len(diff) - DIFF_LINES))
    return msgs


def write_expected(case, got, digests):
    if case.store == 'sha256':
        prefix = case.name + '/'
        for p in [p for p in digests if p.startswith(prefix)]:
            del digests[p]
        for rel, text in got.items():
            digests[prefix + rel] = sha256(text)
        return
    root = os.path.join(EXPECTED, case.name)
    shutil.rmtree(root, ignore_errors=True)
    for rel, text in got.items():
        path = os.path.join(root, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, 'w', encoding='utf-8', newline='') as f:
            f.write(text)


def main():
    parser = argparse.ArgumentParser(description='anot-run results against recorded goldens')
    parser.add_argument('--regenerate', action='store_true',
                        help='rewrite tests/golden/expected from the current build')
    parser.add_argument('--only', metavar='REGEX', help='only the cases whose name matches')
    opts = parser.parse_args()

    for var in ('ANOT_RUN', 'ANOT_FAKE_LLM', 'ANOT_PLUGIN_PATH', 'ANOT_DATA_DIR'):
        if not os.environ.get(var):
            print('golden.py: %s is not set (run it through meson test or meson devenv)' % var,
                  file=sys.stderr)
            return 2
    philly = os.environ.get('ANOT_PHILLY_DATA', '')
    have_philly = bool(philly) and os.path.exists(os.path.join(philly, 'requests.jsonl'))

    cases = [c for c in all_cases() if not opts.only or re.search(opts.only, c.name)]
    digests = read_digests()
    failed = 0
    print('1..%d' % len(cases))
    for i, case in enumerate(cases, 1):
        if case.data == 'philly' and not have_philly:
            print('ok %d - %s # SKIP philly_cafes data absent (%s)' % (i, case.name, philly or 'unset'))
            continue
        with tempfile.TemporaryDirectory(prefix='anot-golden-') as tmp:
            try:
                got = run_case(case, tmp, philly)
            except (RuntimeError, subprocess.SubprocessError, OSError, ValueError) as e:
                print('not ok %d - %s' % (i, case.name))
                print('\n'.join('# ' + l for l in str(e).splitlines()))
                failed += 1
                continue
        if opts.regenerate:
            write_expected(case, got, digests)
            print('ok %d - %s # regenerated (%d files)' % (i, case.name, len(got)))
            continue
        msgs = compare(case, got, digests)
        if msgs:
            failed += 1
            print('not ok %d - %s' % (i, case.name))
            print('\n'.join('# ' + l for l in msgs))
        else:
            print('ok %d - %s (%d files)' % (i, case.name, len(got)))

    if opts.regenerate:
        with open(PHILLY_DIGESTS, 'w', encoding='utf-8') as f:
            for path in sorted(digests):
                f.write('%s  %s\n' % (digests[path], path))
        if not have_philly:
            print('# philly_cafes absent: its digests were kept as they were', file=sys.stderr)
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
