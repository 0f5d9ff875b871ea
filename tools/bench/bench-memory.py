#!/usr/bin/python3
# bench-memory.py: does a run's memory grow with the requests it has done?
#
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Usage: bench-memory.py ANOT_RUN ANOT_FAKE_LLM RULES DIR [--methods M,...] [-j J]
#                        [--history-margin X] [--first-cell-margin X] [--goal X]
#                        [--limit L]
#
# For each method (default anot, react, lats), against anot-fake-llm
# (answering from RULES, the golden suite's scripted replies) on DIR:
#
#   1. the --scaling sweep (N = 10..50, one cell after the other), its RSS
#      sampled from /proc/PID/status every 0.1 s: VmHWM when each cell's
#      rows are all written, VmRSS then, and the process's peak (wait4);
#   2. a run of N = 10 alone and a run of N = 50 alone, their peaks.
#
# Two readings (issue 27):
#
#   history: the sweep's peak against the largest single-N run's peak.  A
#     finished request should leave its row on disk, not its objects, so
#     400 requests done before the N = 50 cell must not raise the peak
#     above what N = 50 alone needs.  Exit 1 when the sweep peaks above
#     --history-margin (default 1.25: runs of one command differ by up to
#     ~10% with the timing of the requests in flight) times it.
#   first cell: the sweep's peak against its first cell's.  Exit 1 above
#     --first-cell-margin (default 1.6).  Issue 27's goal is 1.5x (--goal,
#     reported as met or not): a 50-candidate request in flight
#     legitimately holds more than a 10-candidate one (its prompts, its
#     dict context), so this ratio cannot fall below N = 50 alone /
#     N = 10 alone, which is printed beside it; the margin leaves room
#     for the ~5% that runs of one command differ by.
#
# No Python peer: this is about the C runner's own memory.

import argparse
import glob
import os
import re
import subprocess
import sys
import tempfile
import time


def vm_status(pid):
    values = {}
    try:
        with open('/proc/%d/status' % pid) as f:
            for line in f:
                key, _, rest = line.partition(':')
                if key in ('VmRSS', 'VmHWM'):
                    values[key] = int(rest.split()[0])
    except OSError:
        pass
    return values


def count_lines(path):
    try:
        with open(path, 'rb') as f:
            return sum(1 for _ in f)
    except OSError:
        return 0


def run(args, env, out, n_requests):
    """Runs anot-run; returns (peak KB, [(N, HWM KB, RSS KB) per cell])."""
    proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
    cells = {}
    last = {}
    while True:
        # wait4, not poll(): its rusage has the peak (ru_maxrss).
        pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
        if pid != 0:
            break
        status = vm_status(proc.pid)
        if status:
            last = status
            for path in glob.glob(os.path.join(out, '*', '*', 'run_*', 'results_*.jsonl')):
                n = int(re.search(r'results_(\d+)\.jsonl$', path).group(1))
                if n not in cells and count_lines(path) >= n_requests:
                    cells[n] = (status['VmHWM'], status['VmRSS'])
        time.sleep(0.1)
    err = proc.stderr.read().decode('utf-8', 'replace')
    proc.stderr.close()
    if os.waitstatus_to_exitcode(status) != 0:
        raise RuntimeError('%s failed:\n%s' % (' '.join(args), err))
    # A cell finished between the last two samples: the last reading stands.
    for path in glob.glob(os.path.join(out, '*', '*', 'run_*', 'results_*.jsonl')):
        n = int(re.search(r'results_(\d+)\.jsonl$', path).group(1))
        if n not in cells and last:
            cells[n] = (last['VmHWM'], last['VmRSS'])
    peak = max(usage.ru_maxrss, last.get('VmHWM', 0))
    return peak, [(n,) + cells[n] for n in sorted(cells)]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument('anot_run')
    parser.add_argument('fake_llm')
    parser.add_argument('rules')
    parser.add_argument('data')
    parser.add_argument('--methods', default='anot,react,lats')
    parser.add_argument('-j', type=int, default=32)
    parser.add_argument('--limit', type=int, default=0, help='requests per cell (default: all)')
    parser.add_argument('--history-margin', type=float, default=1.25)
    parser.add_argument('--first-cell-margin', type=float, default=1.6)
    parser.add_argument('--goal', type=float, default=1.5)
    opts = parser.parse_args()

    n_requests = count_lines(os.path.join(opts.data, 'requests.jsonl'))
    if opts.limit > 0:
        n_requests = min(n_requests, opts.limit)

    env = dict(os.environ)
    env['LC_ALL'] = 'C.UTF-8'
    failed = False
    with tempfile.TemporaryDirectory(prefix='anot-bench-memory-') as tmp:
        env['XDG_CONFIG_HOME'] = os.path.join(tmp, 'config')
        server = subprocess.Popen([opts.fake_llm, '--rules', opts.rules], stdout=subprocess.PIPE, text=True)
        url = server.stdout.readline().strip()
        try:
            print('%d requests a cell, -j %d' % (n_requests, opts.j))
            for method in opts.methods.split(','):
                peaks = {}
                for label, extra in (('sweep', ['--scaling']), ('10', ['-n', '10']), ('50', ['-n', '50'])):
                    out = os.path.join(tmp, '%s-%s' % (method, label))
                    args = [opts.anot_run, '--method', method, '--data', opts.data,
                            '-j', str(opts.j), '--seed', '42', '--out', out, '--backend', 'openai',
                            '--base-url', url + '/v1', '--model', 'bench-fake'] + extra
                    if opts.limit > 0:
                        args += ['--limit', str(opts.limit)]
                    peaks[label], cells = run(args, env, out, n_requests)
                    if label == 'sweep':
                        sweep_cells = cells
                first = sweep_cells[0][1]
                print('%s sweep, per cell (N: VmHWM / VmRSS at its last row, KB): %s; peak %d KB'
                      % (method, ', '.join('%d: %d / %d' % c for c in sweep_cells), peaks['sweep']))
                print('%s N=10 alone peak %d KB, N=50 alone peak %d KB (%.2fx N=10)'
                      % (method, peaks['10'], peaks['50'], peaks['50'] / peaks['10']))
                history = peaks['sweep'] / max(peaks['10'], peaks['50'])
                ok = history <= opts.history_margin
                failed |= not ok
                print('%s history: sweep peak / largest single-N peak = %.2fx (%s %.2fx)'
                      % (method, history, 'within' if ok else 'OVER', opts.history_margin))
                goal = peaks['sweep'] / first
                ok = goal <= opts.first_cell_margin
                failed |= not ok
                print('%s first cell: sweep peak / first cell = %.2fx (%s %.2fx; issue 27 goal %.2fx: %s; '
                      'N=50 alone / N=10 alone = %.2fx)'
                      % (method, goal, 'within' if ok else 'OVER', opts.first_cell_margin,
                         opts.goal, 'met' if goal <= opts.goal else 'not met',
                         peaks['50'] / peaks['10']))
                sys.stdout.flush()
        finally:
            server.terminate()
            server.wait(timeout=30)
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
