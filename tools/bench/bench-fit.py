#!/usr/bin/python3
# bench-fit.py: the cost of fitting prompts to a context window
#
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Usage: bench-fit.py ANOT_RUN DIR [--limit L]
#
# `anot-run estimate --method cot -n 50` on the first L requests of DIR
# (philly_cafes: prompts of about 640k tokens) with gpt-4.1 (a 1M window:
# each prompt counted once, unfitted) and with gpt-4o-mini (a 128k window:
# each prompt fitted), and with a model without a tokenizer (neither
# counted nor fitted: loading and formatting alone).  Prints the CPU time
# of each (child processes' user + system) and the cost of fitting against
# one count of the unfitted prompt, both less the run without counting.
# The original framework has no context fitting: no Python peer.

import argparse
import resource
import subprocess
import sys


def cpu_of(args):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(args, check=True, stdout=subprocess.DEVNULL)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument('anot_run')
    parser.add_argument('data')
    parser.add_argument('--limit', type=int, default=5)
    opts = parser.parse_args()

    base = [opts.anot_run, 'estimate', '--method', 'cot', '--data', opts.data, '-n', '50',
            '--limit', str(opts.limit), '-j', '1']
    times = {}
    for model in ('llama-local', 'gpt-4.1', 'gpt-4o-mini'):
        times[model] = cpu_of(base + ['--model', model])
        print('%-12s %.2f s CPU' % (model, times[model]))
    once = times['gpt-4.1'] - times['llama-local']
    fitted = times['gpt-4o-mini'] - times['llama-local']
    print('counting each unfitted prompt once: %.2f s; fitting each to 128k: %.2f s (%.2fx)'
          % (once, fitted, fitted / once if once > 0 else float('nan')))
    return 0


if __name__ == '__main__':
    sys.exit(main())
