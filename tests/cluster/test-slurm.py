#!/usr/bin/env python3
"""docs/examples/slurm on a real Slurm cluster.

Starts munged, slurmctld and slurmd on 127.0.0.1 (slurm_cluster.py),
submits the example with submit.sh — an array of 4 shard tasks against the
fake LLM server, then the merge job that depends on it — waits for both,
and compares the merged experiment byte for byte (after golden.py's
normalisation) with a single-process anot-run of the same options; the
shards' response caches must have been merged too.

Skipped only when the Slurm or munge programs are not installed (.ci/run
installs them, so CI runs it).  TAP output; meson test `slurm`, suite
`cluster`.
"""

import os
import shlex
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, '..', 'golden'))
sys.path.insert(0, HERE)
import golden  # noqa: E402
from slurm_cluster import SlurmCluster, missing_binaries  # noqa: E402

SHARDS = 4


def normalised_tree(root):
    files = {}
    for rel in golden.tree_files(root):
        with open(os.path.join(root, rel), encoding='utf-8') as f:
            files[rel] = golden.normalise(rel, f.read())
    return files


def main():
    missing = missing_binaries()
    if missing:
        print('1..0 # SKIP not installed: %s (Debian: apt-get install slurm-wlm munge)'
              % ', '.join(missing))
        return 0
    print('1..5', flush=True)

    tmp = tempfile.mkdtemp(prefix='anot-slurm-')
    # Slurm's state, sockets and logs; a short path, sockets have a limit.
    cluster_dir = tempfile.mkdtemp(prefix='anot-sl-', dir='/tmp')
    env = golden.run_env(tmp)
    server = golden.FakeLlm(tmp)
    failed = False
    started = time.monotonic()
    try:
        options = ['--method', 'cot', '--scaling', '--runs', '2', '--backend', 'openai',
                   '--model', 'slurm-fake', '--base-url', server.url + '/v1']
        single = os.path.join(tmp, 'single')
        proc = subprocess.run([os.environ['ANOT_RUN']] + options + ['--out', single, '--name', 'exp'],
                              env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                              timeout=300)
        assert proc.returncode == 0, proc.stdout

        # A method of one's own, in Python, through the same scripts: the
        # file is named in ANOT_ARGS; each task loads it, the merge job
        # loads the file config.json records.
        py_options = ['--plugin', os.path.join(os.environ['ANOT_TEST_SRCDIR'], 'python-plugin',
                                               'most_reviewed.py'),
                      '--method', 'file-noisy-stars', '--scaling', '--runs', '2']
        proc = subprocess.run([os.environ['ANOT_RUN']] + py_options + ['--out', single, '--name', 'py'],
                              env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                              timeout=300)
        assert proc.returncode == 0, proc.stdout
        with SlurmCluster(cluster_dir) as cluster:
            print('ok 1 - munged, slurmctld and slurmd up in %.1f s'
                  % (time.monotonic() - started), flush=True)
            results = os.path.join(tmp, 'results')
            job_env = dict(env)
            job_env.update(cluster.env)
            job_env.update({
                'ANOT_RUN': os.environ['ANOT_RUN'],
                'ANOT_ARGS': ' '.join(shlex.quote(o) for o in options),
                'ANOT_OUT': results,
                'ANOT_NAME': 'exp',
                # Two cores on CI: one CPU per task lets two run at once.
                'SBATCH_ARGS': '--cpus-per-task=1',
            })
            submit = os.path.join(os.environ['ANOT_SLURM_EXAMPLES'], 'submit.sh')
            proc = subprocess.run(['bash', submit, str(SHARDS)], env=job_env,
                                  stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                                  timeout=60)
            assert proc.returncode == 0, 'submit.sh: %s' % proc.stdout
            array, merge = proc.stdout.split()
            states = cluster.wait([array, merge], timeout=180)
            logs = ''
            for name in sorted(os.listdir(results)):
                if name.endswith('.out'):
                    with open(os.path.join(results, name), errors='replace') as f:
                        logs += '--- %s\n%s' % (name, f.read())
            if (set(states[array].values()) != {'COMPLETED'} or len(states[array]) != SHARDS or
                    set(states[merge].values()) != {'COMPLETED'}):
                print('not ok 2 - the array and the merge job completed: %r' % states)
                for line in logs.splitlines():
                    print('# ' + line)
                return 1
            print('ok 2 - %d array tasks and the dependent merge job completed (%.1f s)'
                  % (SHARDS, time.monotonic() - started), flush=True)

            py_results = os.path.join(tmp, 'py-results')
            job_env = dict(env)
            job_env.update(cluster.env)
            job_env.update({
                'ANOT_RUN': os.environ['ANOT_RUN'],
                'ANOT_ARGS': ' '.join(shlex.quote(o) for o in py_options),
                'ANOT_OUT': py_results,
                'ANOT_NAME': 'py',
                'SBATCH_ARGS': '--cpus-per-task=1',
            })
            proc = subprocess.run(['bash', submit, str(SHARDS)], env=job_env,
                                  stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                                  timeout=60)
            assert proc.returncode == 0, 'submit.sh: %s' % proc.stdout
            py_array, py_merge = proc.stdout.split()
            py_states = cluster.wait([py_array, py_merge], timeout=180)

        expected = normalised_tree(os.path.join(single, 'exp'))
        actual = normalised_tree(os.path.join(results, 'exp'))
        if expected == actual:
            print('ok 3 - the merged experiment is the single run, byte for byte (%d files)'
                  % len(expected))
        else:
            failed = True
            print('not ok 3 - the merged experiment is the single run')
            for rel in sorted(set(expected) | set(actual)):
                if expected.get(rel) != actual.get(rel):
                    print('# differs: %s' % rel)

        cache = os.path.join(results, 'cache.sqlite')
        shard_caches = [os.path.join(results, 'shards', str(i), 'cache.sqlite') for i in range(SHARDS)]
        if os.path.exists(cache) and all(os.path.exists(c) for c in shard_caches):
            print('ok 4 - one response cache per shard, merged into %s' % os.path.basename(cache))
        else:
            failed = True
            print('not ok 4 - the response caches: %s' % os.listdir(results))

        expected = normalised_tree(os.path.join(single, 'py'))
        actual = normalised_tree(os.path.join(py_results, 'py')) \
            if os.path.isdir(os.path.join(py_results, 'py')) else {}
        if (set(py_states[py_array].values()) == {'COMPLETED'} and
                set(py_states[py_merge].values()) == {'COMPLETED'} and expected == actual):
            print('ok 5 - a Python method file on Slurm: the merge is the single run (%d files)'
                  % len(expected), flush=True)
        else:
            failed = True
            print('not ok 5 - a Python method file on Slurm: %r' % py_states)
            for rel in sorted(set(expected) | set(actual)):
                if expected.get(rel) != actual.get(rel):
                    print('# differs: %s' % rel)
            for name in sorted(os.listdir(py_results)) if os.path.isdir(py_results) else []:
                if name.endswith('.out'):
                    with open(os.path.join(py_results, name), errors='replace') as f:
                        for line in f.read().splitlines():
                            print('# %s: %s' % (name, line))
    finally:
        server.stop()
        if not failed:
            shutil.rmtree(tmp, ignore_errors=True)
            shutil.rmtree(cluster_dir, ignore_errors=True)
        else:
            print('# kept %s and %s' % (tmp, cluster_dir))
    print('# %.1f s in all' % (time.monotonic() - started))
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
