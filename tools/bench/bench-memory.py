#!/usr/bin/python3
# bench-memory.py: does a run's memory grow with the requests it has done?
#
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Usage: bench-memory.py ANOT_RUN ANOT_FAKE_LLM RULES DIR [--runs R] [--methods M,...]
#                        [-j J] [--margin X]
#
# For each method (default anot, react, lats), runs anot-run at N = 50 on
# DIR against anot-fake-llm (answering from RULES, the golden suite's
# scripted replies), once with one run (one cell of all requests) and once
# with R runs (R cells one after the other), and compares the peak resident
# set sizes of the two processes (wait4's ru_maxrss).  What a finished
# request leaves behind should be its row on disk: the peak of R cells may
# exceed the peak of one by at most the margin (default 1.5x, issue 27's
# goal for a 500-request sweep against its first cell of 100); exit 1 if
# it does.  No Python peer: this is about the C runner's own memory.

import argparse
import os
import subprocess
import sys
import tempfile


def peak_rss_kb(args, env):
    proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
    _, status, usage = os.wait4(proc.pid, 0)
    err = proc.stderr.read().decode('utf-8', 'replace')
    proc.stderr.close()
    if os.waitstatus_to_exitcode(status) != 0:
        raise RuntimeError('%s failed:\n%s' % (' '.join(args), err))
    return usage.ru_maxrss


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument('anot_run')
    parser.add_argument('fake_llm')
    parser.add_argument('rules')
    parser.add_argument('data')
    parser.add_argument('--runs', type=int, default=3)
    parser.add_argument('--methods', default='anot,react,lats')
    parser.add_argument('-j', type=int, default=8)
    parser.add_argument('--margin', type=float, default=1.5)
    opts = parser.parse_args()

    env = dict(os.environ)
    env['LC_ALL'] = 'C.UTF-8'
    failed = False
    with tempfile.TemporaryDirectory(prefix='anot-bench-memory-') as tmp:
        env['XDG_CONFIG_HOME'] = os.path.join(tmp, 'config')
        server = subprocess.Popen([opts.fake_llm, '--rules', opts.rules], stdout=subprocess.PIPE, text=True)
        url = server.stdout.readline().strip()
        try:
            for method in opts.methods.split(','):
                peaks = []
                for runs in (1, opts.runs):
                    out = os.path.join(tmp, '%s-%d' % (method, runs))
                    peaks.append(peak_rss_kb([opts.anot_run, '--method', method, '--data', opts.data,
                                              '-n', '50', '--runs', str(runs), '-j', str(opts.j),
                                              '--seed', '42', '--out', out, '--backend', 'openai',
                                              '--base-url', url + '/v1', '--model', 'bench-fake'], env))
                ratio = peaks[1] / peaks[0]
                ok = ratio <= opts.margin
                failed |= not ok
                print('%-6s peak RSS: 1 cell %d KB, %d cells %d KB: %.2fx (%s %.2fx)'
                      % (method, peaks[0], opts.runs, peaks[1], ratio, 'within' if ok else 'OVER', opts.margin))
        finally:
            server.terminate()
            server.wait(timeout=30)
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
