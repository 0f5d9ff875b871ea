#!/usr/bin/env python3
"""Shards against one process: `anot-run --shard I/4` four times (at once),
`anot-run merge`, and the merged directory compared byte for byte with a
single `anot-run` of the same options, after golden.py's normalisation
(wall times, timestamps, the results root, the fake server's port, the
order of trace lines).  Also: a killed shard resumed against a server of
its own and with a budget (options a shard may have of its own), merges
that must refuse (a missing shard, a shard of other options, a request in
two shards), and the shards' response caches merged and replayed offline.

TAP output; run by meson as the test `shards` (suite `cluster`).
"""

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, '..', 'golden'))
import golden  # noqa: E402  (normalise, FakeLlm, run_env, tree_files)

EXPERIMENT = ['--method', 'cot', '--scaling', '--runs', '2', '--attack', 'clean,typo_10',
              '--backend', 'openai', '--model', 'golden-fake']  # priced by golden.run_env
SHARDS = 4


def anot_run(args, env, check=True):
    proc = subprocess.run([os.environ['ANOT_RUN']] + args, env=env, stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, text=True, timeout=600)
    if check and proc.returncode != 0:
        raise AssertionError('anot-run %s exited with %d:\n%s'
                             % (' '.join(args), proc.returncode, proc.stdout))
    return proc


def normalised_tree(root):
    files = {}
    for rel in golden.tree_files(root):
        with open(os.path.join(root, rel), encoding='utf-8') as f:
            files[rel] = golden.normalise(rel, f.read())
    return files


def compare_trees(expected_root, actual_root, replay=False):
    expected = normalised_tree(expected_root)
    actual = normalised_tree(actual_root)
    if replay:
        # A replay marks the answers it took from the cache in the traces.
        actual = {rel: text.replace('"cached":true', '"cached":false') if '/trace_' in rel else text
                  for rel, text in actual.items()}
    problems = []
    for rel in sorted(set(expected) | set(actual)):
        if rel not in actual:
            problems.append('missing in the merge: %s' % rel)
        elif rel not in expected:
            problems.append('only in the merge: %s' % rel)
        elif expected[rel] != actual[rel]:
            import difflib
            diff = difflib.unified_diff(expected[rel].splitlines(), actual[rel].splitlines(),
                                        'single/' + rel, 'merged/' + rel, lineterm='', n=1)
            problems.append('\n'.join(list(diff)[:40]))
    if problems:
        raise AssertionError('\n'.join(problems))
    return len(expected)


class Tap:
    def __init__(self, plan):
        self.n = 0
        self.failed = 0
        print('1..%d' % plan, flush=True)

    def check(self, name, func):
        self.n += 1
        try:
            detail = func()
        except Exception as e:  # noqa: BLE001  (any failure is reported)
            self.failed += 1
            print('not ok %d - %s' % (self.n, name))
            for line in str(e).splitlines():
                print('# ' + line)
        else:
            print('ok %d - %s%s' % (self.n, name, ' # ' + detail if detail else ''), flush=True)


def main():
    tap = Tap(8)
    tmp = tempfile.mkdtemp(prefix='anot-shards-')
    env = golden.run_env(tmp)
    server = golden.FakeLlm(tmp)
    url = server.url + '/v1'
    experiment = EXPERIMENT + ['--base-url', url]
    single = os.path.join(tmp, 'single', 'exp')
    merged = os.path.join(tmp, 'merged', 'exp')

    def shard_dir(i):
        return os.path.join(tmp, 'shard_%d' % i)

    def shard_args(i, extra=()):
        return experiment + list(extra) + ['--shard', '%d/%d' % (i, SHARDS),
                                           '--out', shard_dir(i), '--name', 'exp',
                                           '--cache', os.path.join(shard_dir(i), 'cache.sqlite')]

    try:
        def run_all():
            anot_run(experiment + ['--out', os.path.join(tmp, 'single'), '--name', 'exp'], env)
            procs = [subprocess.Popen([os.environ['ANOT_RUN']] + shard_args(i), env=env,
                                      stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
                     for i in range(SHARDS)]
            outputs = [p.communicate(timeout=600)[0] for p in procs]
            for i, p in enumerate(procs):
                if p.returncode != 0:
                    raise AssertionError('shard %d exited with %d:\n%s' % (i, p.returncode, outputs[i]))
            # Each shard planned a quarter of the cells (120 requests in all).
            planned = [int(o.split(': ')[1].split()[0]) for o in outputs]
            if sum(planned) != 240 or max(planned) - min(planned) > 1:
                raise AssertionError('shards planned %r requests' % planned)
            anot_run(['merge', merged] + [os.path.join(shard_dir(i), 'exp') for i in range(SHARDS)], env)
            return 'shards planned %s requests' % planned
        tap.check('4 shards at once and a merge', run_all)

        tap.check('the merge is byte for byte the single run',
                  lambda: '%d files identical' % compare_trees(single, merged))

        def resume_killed_shard():
            # A shard killed mid-run: half of one results file, a torn line.
            path = os.path.join(shard_dir(2), 'exp', 'typo_10', 'run_2', 'results_20.jsonl')
            with open(path) as f:
                lines = f.readlines()
            with open(path, 'w') as f:
                f.writelines(lines[:len(lines) // 2])
                f.write('{"request_id": "R0')
            refused = anot_run(['merge', merged + '-partial']
                               + [os.path.join(shard_dir(i), 'exp') for i in range(SHARDS)],
                               env, check=False)
            if refused.returncode != 2 or 'missing from the shards' not in refused.stdout \
                    or 'shard 2/4' not in refused.stdout:
                raise AssertionError('merge of an unfinished shard: %d\n%s'
                                     % (refused.returncode, refused.stdout))
            # Without its cache, so the requests run again are asked again
            # (with it they would be answered from it, and their traces say so),
            # and without its journal of answers (answers.jsonl), which a
            # resume replays instead of asking again.
            os.unlink(os.path.join(shard_dir(2), 'exp', 'answers.jsonl'))
            # Resumed against a server of its own and with a budget, as a
            # Slurm task on another node would be: options a shard may
            # have of its own, which the merge must not refuse.
            os.makedirs(os.path.join(tmp, 'own_server'))
            own_server = golden.FakeLlm(os.path.join(tmp, 'own_server'))
            try:
                anot_run(['--resume', os.path.join(shard_dir(2), 'exp'),
                          '--base-url', own_server.url + '/v1', '--max-cost', '1000'], env)
            finally:
                own_server.stop()
            with open(own_server.log) as f:
                asked = sum(1 for _ in f)
            if asked == 0:
                raise AssertionError('the resumed shard did not ask its own server')
            anot_run(['merge', '--force', merged]
                     + [os.path.join(shard_dir(i), 'exp') for i in range(SHARDS)], env)
            # A second merge into it (the loser of two at once) names the
            # options merge has: not run's --resume or --name.
            again = anot_run(['merge', merged]
                             + [os.path.join(shard_dir(i), 'exp') for i in range(SHARDS)], env,
                             check=False)
            if again.returncode != 2 or '--force' not in again.stdout \
                    or '--name' in again.stdout or '--resume' in again.stdout:
                raise AssertionError('merge into a merged directory: %d\n%s'
                                     % (again.returncode, again.stdout))
            return '%d files identical after the resume (%d calls to its own server)' \
                % (compare_trees(single, merged), asked)
        tap.check('a killed shard resumes; the merge refuses it until then', resume_killed_shard)

        def refusals():
            dirs = [os.path.join(shard_dir(i), 'exp') for i in range(SHARDS)]
            out = os.path.join(tmp, 'refused', 'exp')
            proc = anot_run(['merge', out] + dirs[:3], env, check=False)
            assert proc.returncode == 2 and 'Shard 3/4 missing' in proc.stdout, proc.stdout
            other = os.path.join(tmp, 'other_seed')
            anot_run(experiment + ['--seed', '7', '--shard', '3/4', '--out', other, '--name', 'exp'], env)
            proc = anot_run(['merge', out] + dirs[:3] + [os.path.join(other, 'exp')], env, check=False)
            assert proc.returncode == 2 and '“seed”' in proc.stdout, proc.stdout
            # A shard whose config.ini gave the method other settings (cot
            # declares no option, so a run refuses any key of [method cot]:
            # the record of one is written into a copy of a shard).
            other_settings = os.path.join(tmp, 'other_settings')
            shutil.copytree(dirs[3], os.path.join(other_settings, 'exp'))
            for root, _, files in os.walk(os.path.join(other_settings, 'exp')):
                if 'config.json' in files:
                    path = os.path.join(root, 'config.json')
                    with open(path) as f:
                        config = json.load(f)
                    config['anot']['method_settings_file'] = {'example_setting': '7'}
                    with open(path, 'w') as f:
                        json.dump(config, f, indent=2)
            proc = anot_run(['merge', out] + dirs[:3] + [os.path.join(other_settings, 'exp')], env,
                            check=False)
            assert proc.returncode == 2 and 'different method settings' in proc.stdout \
                and 'example_setting = 7 was added' in proc.stdout, proc.stdout
            # A row copied into a second shard.
            dup = os.path.join(tmp, 'dup')
            shutil.copytree(dirs[1], os.path.join(dup, 'exp'))
            src = os.path.join(dirs[0], 'clean', 'run_1', 'results_10.jsonl')
            dst = os.path.join(dup, 'exp', 'clean', 'run_1', 'results_10.jsonl')
            with open(src) as f:
                first = f.readline()
            with open(dst, 'a') as f:
                f.write(first)
            proc = anot_run(['merge', out, dirs[0], os.path.join(dup, 'exp')] + dirs[2:], env,
                            check=False)
            assert proc.returncode == 2 and 'is in two shards' in proc.stdout, proc.stdout
            assert not os.path.exists(out) or not os.listdir(out), 'a refused merge wrote files'
            return None
        tap.check('merges that must refuse name the shard, option or request', refusals)

        def unscored():
            # A shard whose server went away for two requests: their rows
            # are the infrastructure's failures, as an outage writes them.
            dirs = [os.path.join(shard_dir(i), 'exp') for i in range(SHARDS)]
            outage = os.path.join(tmp, 'outage')
            shutil.copytree(dirs[1], os.path.join(outage, 'exp'))
            path = os.path.join(outage, 'exp', 'clean', 'run_1', 'results_10.jsonl')
            with open(path) as f:
                rows = [json.loads(line) for line in f if line.strip()]
            for row in rows[:2]:
                row.update(pred_indices=[], shuffled_preds=[], gold_rank=0, error_class='infrastructure',
                           error='ANOT_ERROR_LLM_CONNECTION: Cannot reach the server')
            with open(path, 'w') as f:
                f.writelines(json.dumps(row) + '\n' for row in rows)
            out = os.path.join(tmp, 'merged_outage', 'exp')
            proc = anot_run(['merge', out, dirs[0], os.path.join(outage, 'exp')] + dirs[2:], env,
                            check=False)
            # Merged, but not read as done: a job merging what the shards
            # left must see the experiment is incomplete.
            assert proc.returncode == 4, proc.stdout
            assert 'Merged %d shards into %s' % (SHARDS, out) in proc.stdout, proc.stdout
            assert re.search(r'\b2 of \d+ requests of the experiment could not be scored', proc.stdout), \
                proc.stdout
            assert 'anot-run --resume %s' % out in proc.stdout, proc.stdout
            with open(os.path.join(out, 'clean', 'summary.json')) as f:
                summary = f.read()
            assert '"unscored"' in summary, summary
            return None
        tap.check('a merge of shards with unscored requests says so and exits 4', unscored)

        def cancelled():
            # A shard that cut a call on the wire (Ctrl-C, a deadline): its
            # journal holds the estimate, which the merged summaries count,
            # and the merged journal holds every shard's lines.
            dirs = [os.path.join(shard_dir(i), 'exp') for i in range(SHARDS)]
            cut = os.path.join(tmp, 'cut')
            shutil.copytree(dirs[1], os.path.join(cut, 'exp'))
            with open(os.path.join(cut, 'exp', 'answers.jsonl'), 'a') as f:
                f.write(json.dumps({'cancelled': True, 'scope': 'clean/1/10/R01', 'role': 'default',
                                    'prompt_tokens': 1000, 'completion_tokens': 300,
                                    'estimated_cost_usd': 0.25}) + '\n')
            shards = [dirs[0], os.path.join(cut, 'exp')] + dirs[2:]
            out = os.path.join(tmp, 'merged_cut', 'exp')
            anot_run(['merge', out] + shards, env)
            lines = 0
            for d in shards:
                path = os.path.join(d, 'answers.jsonl')
                if os.path.exists(path):
                    with open(path) as f:
                        lines += sum(1 for _ in f)
            with open(os.path.join(out, 'answers.jsonl')) as f:
                merged_lines = sum(1 for _ in f)
            assert merged_lines == lines, (merged_lines, lines)
            for path in (os.path.join(out, 'clean', 'run_1', 'config.json'),
                         os.path.join(out, 'clean', 'summary.json')):
                with open(path) as f:
                    usage = json.load(f)['usage']
                assert usage['cancelled_in_flight'] == {'calls': 1, 'prompt_tokens': 1000,
                                                        'completion_tokens': 300,
                                                        'estimated_cost_usd': 0.25}, usage
            with open(os.path.join(out, 'clean', 'run_2', 'config.json')) as f:
                assert 'cancelled_in_flight' not in json.load(f)['usage']
            return '%d journal lines merged' % merged_lines
        tap.check('a merge counts the calls the shards cancelled in flight', cancelled)

        def caches():
            merged_cache = os.path.join(tmp, 'cache.sqlite')
            proc = anot_run(['cache', 'merge', merged_cache]
                            + [os.path.join(shard_dir(i), 'cache.sqlite') for i in range(SHARDS)], env)
            return proc.stdout.strip()
        tap.check('anot-run cache merge', caches)

        def offline_replay():
            server.stop()  # nothing may reach it now
            replay = os.path.join(tmp, 'replay')
            anot_run(experiment + ['--out', replay, '--name', 'exp', '--offline',
                                   '--cache', os.path.join(tmp, 'cache.sqlite')], env)
            return '%d files identical (traces: cached flags aside)' \
                % compare_trees(single, os.path.join(replay, 'exp'), replay=True)
        tap.check('the merged cache replays the whole experiment offline', offline_replay)
    finally:
        if server.proc.poll() is None:
            server.stop()
        if tap.failed == 0:
            shutil.rmtree(tmp, ignore_errors=True)
        else:
            print('# kept %s' % tmp)
    return 1 if tap.failed else 0


if __name__ == '__main__':
    sys.exit(main())
