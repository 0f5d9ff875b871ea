#!/usr/bin/python3
# bench-load-compare.py: the loader beside Python's json, in one run.
#
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Usage: bench-load-compare.py BENCH_LOAD DIR [--runs K] [--repeat R]
#                              [--cpu-goal X] [--rss-goal Y]
#
# Alternates K times: `bench-load --repeat R DIR` (anot_dataset_load() R
# times in one process) and bench-load.py (json.loads() per line, the
# original framework's way), so that both see the same machine load.  For
# each pair it prints anot's CPU seconds per load (the median of its R
# loads, helper threads included), Python's, their ratio, and anot's peak
# RSS over its R loads against the files' size (a repeated load must not
# peak above one load: memory freed by the first has to be reusable).
#
# The goals (issue 36) are for the 100k-item, 1M-review set
# (gen-synthetic.py's default size): --cpu-goal 3 (Python CPU / anot CPU,
# the median over the pairs) and --rss-goal 1.3 (the highest peak).  Exit
# 1 when a goal given is missed.  On small sets the process's fixed costs
# (thread start, read buffers, the interpreter) weigh more, so meson's
# `load-compare` benchmark on the 10k set reports without goals.

import argparse
import os
import re
import statistics
import subprocess
import sys


def run_anot(bench_load, directory, repeat):
    out = subprocess.run([bench_load, '--repeat', str(repeat), directory],
                         check=True, capture_output=True, text=True).stdout
    cpus = [float(m) for m in re.findall(r'^load \d+: .* CPU ([0-9.]+) s$', out, re.M)]
    peak = float(re.search(r'^peak RSS: +([0-9.]+) MiB \(([0-9.]+) x', out, re.M).group(2))
    return statistics.median(cpus), peak


def run_python(directory):
    script = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'bench-load.py')
    out = subprocess.run([sys.executable, script, directory],
                         check=True, capture_output=True, text=True).stdout
    return float(re.search(r'cpu ([0-9.]+)', out).group(1))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument('bench_load')
    parser.add_argument('directory')
    parser.add_argument('--runs', type=int, default=3)
    parser.add_argument('--repeat', type=int, default=3)
    parser.add_argument('--cpu-goal', type=float)
    parser.add_argument('--rss-goal', type=float)
    args = parser.parse_args()

    ratios, peaks = [], []
    for i in range(args.runs):
        anot_cpu, peak = run_anot(args.bench_load, args.directory, args.repeat)
        python_cpu = run_python(args.directory)
        ratios.append(python_cpu / anot_cpu)
        peaks.append(peak)
        print('pair %d: anot %.3f s CPU a load, Python %.3f s: %.2fx; anot peak RSS %.2fx the files '
              '(%d loads); load average %s'
              % (i + 1, anot_cpu, python_cpu, ratios[-1], peak, args.repeat,
                 open('/proc/loadavg').read().split()[0]), flush=True)

    ratio = statistics.median(ratios)
    failed = False
    line = 'median CPU ratio %.2fx (%.2f-%.2f)' % (ratio, min(ratios), max(ratios))
    if args.cpu_goal is not None:
        met = ratio >= args.cpu_goal
        failed |= not met
        line += ' (goal >= %.2fx: %s)' % (args.cpu_goal, 'met' if met else 'NOT met')
    print(line)
    line = 'highest peak RSS %.2fx the files' % max(peaks)
    if args.rss_goal is not None:
        met = max(peaks) <= args.rss_goal
        failed |= not met
        line += ' (goal <= %.2fx: %s)' % (args.rss_goal, 'met' if met else 'NOT met')
    print(line)
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
