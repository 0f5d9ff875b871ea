"""A real single-node Slurm cluster on 127.0.0.1, for tests.

SlurmCluster(tmpdir) generates a munge key and a slurm.conf under @tmpdir,
starts munged, slurmctld and slurmd as the current user (no root needed, no
cgroups: proctrack/linuxproc, task/none), waits until the node is idle, and
stops the three daemons on exit.  Every path, port and socket is private to
@tmpdir, so several clusters (concurrent test runs) do not meet, and nothing
under /etc, /run or /var is read or written.

    with SlurmCluster(tmp) as cluster:
        job = cluster.sbatch(['--array=0-3', 'job.sh'])
        cluster.wait([job])
        assert cluster.job_states(job) == {'COMPLETED'}

Debian 12's slurm-wlm 22.05 and munge 0.5 are what .ci/run installs.
missing_binaries() names what is absent, for a test's skip message.
"""

import getpass
import os
import shutil
import signal
import socket
import subprocess
import time

DAEMONS = ('munged', 'mungekey', 'slurmctld', 'slurmd')
CLIENTS = ('sbatch', 'squeue', 'scontrol', 'sacct', 'sinfo')
NODE = 'anotnode'


def _find(name):
    # The daemons live in /usr/sbin, which a user's PATH often lacks.
    return shutil.which(name) or shutil.which(name, path='/usr/sbin:/sbin')


def missing_binaries():
    return [name for name in DAEMONS + CLIENTS if _find(name) is None]


def _free_ports(count):
    # Bound together so the kernel gives distinct ports; released just
    # before the daemons bind them (a small race others accept too).
    sockets = []
    try:
        for _ in range(count):
            s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            s.bind(('127.0.0.1', 0))
            sockets.append(s)
        return [s.getsockname()[1] for s in sockets]
    finally:
        for s in sockets:
            s.close()


class SlurmError(RuntimeError):
    pass


class SlurmCluster:
    def __init__(self, tmpdir, cpus=None, startup_timeout=30):
        self.dir = os.path.abspath(tmpdir)
        self.cpus = cpus or max(2, os.cpu_count() or 2)
        self.startup_timeout = startup_timeout
        self.user = getpass.getuser()
        self.procs = {}
        self.conf = os.path.join(self.dir, 'slurm.conf')
        self.munge_socket = os.path.join(self.dir, 'munge', 'munge.socket.2')
        self.env = dict(os.environ)
        self.env['SLURM_CONF'] = self.conf
        # The client commands find munged through slurm.conf's AuthInfo.

    # -- set-up -------------------------------------------------------------

    def _path(self, *parts):
        return os.path.join(self.dir, *parts)

    def _write_munge_key(self):
        munge_dir = self._path('munge')
        os.makedirs(munge_dir, mode=0o700, exist_ok=True)
        os.chmod(munge_dir, 0o700)
        key = os.path.join(munge_dir, 'munge.key')
        subprocess.run([_find('mungekey'), '--create', '--keyfile=' + key, '--force'],
                       check=True, capture_output=True)
        os.chmod(key, 0o600)
        return key

    def _write_conf(self):
        ctld_port, slurmd_port = _free_ports(2)
        for d in ('state', 'spool', 'log', 'run'):
            os.makedirs(self._path(d), exist_ok=True)
        memory = 1024
        lines = [
            'ClusterName=anottest',
            'SlurmctldHost=localhost(127.0.0.1)',
            'SlurmUser=%s' % self.user,
            'SlurmdUser=%s' % self.user,
            'SlurmctldPort=%d' % ctld_port,
            'SlurmdPort=%d' % slurmd_port,
            'AuthType=auth/munge',
            'CredType=cred/munge',
            'AuthInfo=socket=%s' % self.munge_socket,
            'StateSaveLocation=%s' % self._path('state'),
            'SlurmdSpoolDir=%s' % self._path('spool'),
            'SlurmctldPidFile=%s' % self._path('run', 'slurmctld.pid'),
            'SlurmdPidFile=%s' % self._path('run', 'slurmd.pid'),
            'SlurmctldLogFile=%s' % self._path('log', 'slurmctld.log'),
            'SlurmdLogFile=%s' % self._path('log', 'slurmd.log'),
            'SlurmctldDebug=info',
            'SlurmdDebug=info',
            # No cgroups: plain process tracking, no task containment.
            'ProctrackType=proctrack/linuxproc',
            'TaskPlugin=task/none',
            'JobAcctGatherType=jobacct_gather/none',
            'AccountingStorageType=accounting_storage/none',
            'JobCompType=jobcomp/none',
            'SwitchType=switch/none',
            'MpiDefault=none',
            'SchedulerType=sched/backfill',
            'SelectType=select/cons_tres',
            'SelectTypeParameters=CR_CPU',
            'ReturnToService=2',
            'MinJobAge=300',
            'SlurmctldTimeout=30',
            'SlurmdTimeout=30',
            'InactiveLimit=0',
            'KillWait=5',
            'Waittime=0',
            'NodeName=%s NodeHostname=localhost NodeAddr=127.0.0.1 CPUs=%d RealMemory=%d State=UNKNOWN'
            % (NODE, self.cpus, memory),
            'PartitionName=test Nodes=%s Default=YES MaxTime=INFINITE State=UP' % NODE,
        ]
        with open(self.conf, 'w') as f:
            f.write('\n'.join(lines) + '\n')

    def _start(self, name, argv):
        log = open(self._path('log', name + '.out'), 'w')
        self.procs[name] = subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT,
                                            env=self.env, start_new_session=True)
        log.close()

    def _log_tail(self, name, lines=30):
        text = ''
        for path in (self._path('log', name + '.log'), self._path('log', name + '.out')):
            try:
                with open(path, errors='replace') as f:
                    text += '--- %s\n' % path + ''.join(f.readlines()[-lines:])
            except OSError:
                pass
        return text

    def _wait_for(self, what, predicate, daemon):
        deadline = time.monotonic() + self.startup_timeout
        while time.monotonic() < deadline:
            if predicate():
                return
            proc = self.procs.get(daemon)
            if proc is not None and proc.poll() is not None:
                raise SlurmError('%s exited with status %s while waiting for %s\n%s'
                                 % (daemon, proc.returncode, what, self._log_tail(daemon)))
            time.sleep(0.2)
        raise SlurmError('timed out waiting for %s\n%s' % (what, self._log_tail(daemon)))

    def start(self):
        os.makedirs(self.dir, exist_ok=True)
        key = self._write_munge_key()
        self._write_conf()
        munge_dir = self._path('munge')
        self._start('munged', [
            _find('munged'), '--foreground', '--force',
            '--key-file=' + key,
            '--socket=' + self.munge_socket,
            '--pid-file=' + os.path.join(munge_dir, 'munged.pid'),
            '--seed-file=' + os.path.join(munge_dir, 'munged.seed'),
            '--log-file=' + self._path('log', 'munged.log'),
        ])
        self._wait_for('munged\'s socket', lambda: os.path.exists(self.munge_socket), 'munged')
        # -i: ignore state a previous cluster in this directory left.
        self._start('slurmctld', [_find('slurmctld'), '-D', '-i', '-f', self.conf])
        self._wait_for('slurmctld', lambda: self._run(['scontrol', 'ping'], check=False)
                       .stdout.find('UP') >= 0, 'slurmctld')
        self._start('slurmd', [_find('slurmd'), '-D', '-N', NODE, '-f', self.conf])
        self._wait_for('the node to be idle', self._node_idle, 'slurmd')
        return self

    def _node_idle(self):
        out = self._run(['sinfo', '-h', '-N', '-o', '%t'], check=False).stdout.split()
        return out == ['idle']

    def stop(self):
        # slurmd first, so it does not wait for a controller that is gone.
        for name in ('slurmd', 'slurmctld', 'munged'):
            proc = self.procs.pop(name, None)
            if proc is None or proc.poll() is not None:
                continue
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()

    def __enter__(self):
        try:
            return self.start()
        except BaseException:
            self.stop()
            raise

    def __exit__(self, *exc):
        self.stop()
        return False

    # -- use ----------------------------------------------------------------

    def _run(self, argv, check=True, cwd=None):
        argv = [_find(argv[0])] + list(argv[1:])
        result = subprocess.run(argv, capture_output=True, text=True, env=self.env, cwd=cwd)
        if check and result.returncode != 0:
            raise SlurmError('%s failed (%d): %s%s' % (' '.join(argv), result.returncode,
                                                        result.stdout, result.stderr))
        return result

    def sbatch(self, args, cwd=None, env=None):
        """Submits a batch job; returns its job id."""
        argv = [_find('sbatch'), '--parsable'] + list(args)
        full_env = dict(self.env)
        if env:
            full_env.update(env)
        result = subprocess.run(argv, capture_output=True, text=True, env=full_env, cwd=cwd)
        if result.returncode != 0:
            raise SlurmError('sbatch %s failed: %s%s' % (' '.join(args), result.stdout,
                                                         result.stderr))
        return result.stdout.strip().split(';')[0]

    def job_states(self, job_id):
        """The states of a job's tasks (an array's too), by task id."""
        out = self._run(['scontrol', '-o', 'show', 'job', job_id], check=False).stdout
        states = {}
        for line in out.splitlines():
            fields = dict(f.split('=', 1) for f in line.split() if '=' in f)
            task = fields.get('ArrayTaskId', fields.get('JobId'))
            states[task] = fields.get('JobState')
        return states

    def wait(self, job_ids, timeout=120):
        """Waits until no job of @job_ids is pending or running; returns
        every task's final state, by job id and task."""
        deadline = time.monotonic() + timeout
        final = ('COMPLETED', 'FAILED', 'CANCELLED', 'TIMEOUT', 'NODE_FAIL',
                 'OUT_OF_MEMORY', 'BOOT_FAIL', 'DEADLINE', 'PREEMPTED')
        while True:
            states = {job: self.job_states(job) for job in job_ids}
            if all(s and all(v in final for v in s.values()) for s in states.values()):
                return states
            if time.monotonic() > deadline:
                raise SlurmError('jobs still not finished after %d s: %r\n%s\n%s'
                                 % (timeout, states, self._log_tail('slurmctld'),
                                    self._log_tail('slurmd')))
            time.sleep(0.3)
