#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""A 'commit' is all or nothing, even when an allocation fails half way.

A vaddr kdamond runs the old parameters A: one target (process P1), one
stat scheme trying every region, one data probe.  The sysfs files then hold
the new parameters B, which change all three: two targets (P2 in place of
P1, and P3 added), scheme 0 made to try nothing and given a quota goal and
an addr filter, a second stat scheme (with an addr filter) trying every
region, and two probes (the second with a filter).  P2 and P3 reserve 16
and 64 GiB of address space (PROT_NONE, no memory), much more than the
random gaps of a process's layout that DAMON monitors (up to about 1 GiB),
so the bytes of the tried regions tell which processes are monitored.

The kernel's fault injection fails the N-th slab allocation of one task:
/proc/<pid>/task/<tid>/fail-nth, with the failslab stack trace filter
(require-start/end) limited to one kernel function, so that the count
starts at the commit and nothing else of the task is failed; probability
0, so nothing fails otherwise.  fail_page_alloc is kept from injecting
(its filter matches no function): a failed page allocation reaches DAMON
only as a failed slab allocation, and counting the slab refills would make
N depend on the slab state.  Reading fail-nth back tells whether the N-th
allocation happened (0) or not.  N goes 1, 2, ... until the commit makes
no N-th allocation, so every allocation of the commit is failed once:

1. the writer, allocations of damon_sysfs_build_ctx() (building B from
   the files);
2. the kdamond, allocations of damon_commit_ctx() (the dry run on a copy
   of the running context, the probe copies, the schemes, the targets).
   Going back from B to A would only free in the running context, after
   the same allocation sites in the dry run.

After every failed allocation: either the write failed with ENOMEM and the
context is entirely A and running (same kdamond pid, scheme 0 tries every
region, scheme 1 nothing, one probe per tried region, the tried bytes are
those of P1), or the write failed with ENOMEM and kdamond stopped (the
context was partly changed); never a mix such as the new schemes with the
old targets.  The last round, without failure, must commit all of B, and
some kdamond round must have stopped it: failures in the update of the
running context itself were hit.

3. 'commit_schemes_quota_goals' with scheme 0 gaining a second goal and
   scheme 1 a first one, failing the allocations of
   damos_sysfs_set_quota_scores() (all of them: ENOMEM, kdamond on or off)
   and then of damos_commit_quota_goals() (the goals being committed:
   ENOMEM and kdamond off, since some goals may be committed already).

Then DAMOS inputs that only the build can judge (a memcg filter path naming
no cgroup, an addr filter whose end is below its start) make 'commit' fail
with EINVAL with A still running, and 'on' with EINVAL; and a second writer
can send a command as soon as the first writer's command was handled,
without EBUSY, although the first writer only notices it at its next
100 ms poll.
"""
import os
import subprocess
import sys
import threading
import time

import damon_probes as dp

DBG = '/sys/kernel/debug'
SLAB, PAGE = DBG + '/failslab', DBG + '/fail_page_alloc'
SAMPLE_US, AGGR_US = 5000, 100000
GIB = 1 << 30
MAX_N = 400
SCHEMES = dp.CTX + '/schemes'
STATE = dp.KD + '/state'

RESERVER = '''
import mmap, sys
size = int(sys.argv[1])
m = mmap.mmap(-1, size, flags=mmap.MAP_PRIVATE, prot=0) \
    if size else None
print('ready', flush=True)
sys.stdin.read()
'''


class Reserver:
    """A process that reserves size bytes of address space, no memory."""

    def __init__(self, size):
        self.proc = subprocess.Popen([sys.executable, '-c', RESERVER,
                                      str(size)], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, text=True)
        dp.check(self.proc.stdout.readline().strip() == 'ready',
                 'reserver of %d bytes did not start' % size)
        self.pid = self.proc.pid

    def stop(self):
        self.proc.kill()
        self.proc.wait()


def three_regions_bytes(pid):
    """The bytes DAMON's vaddr ops monitor for pid: from the first to the
    last mapping, less the two biggest gaps between mappings."""
    vmas = []
    with open('/proc/%d/maps' % pid) as f:
        for line in f:
            if line.rstrip().endswith('[vsyscall]'):
                continue
            s, e = (int(x, 16) for x in line.split()[0].split('-'))
            vmas.append((s, e))
    vmas.sort()
    gaps = sorted((vmas[i + 1][0] - vmas[i][1]
                   for i in range(len(vmas) - 1)), reverse=True)
    return vmas[-1][1] - vmas[0][0] - sum(gaps[:2])


# --- the parameters A and B ------------------------------------------------

def write_scheme(i, tries_all, goal=False, addr_filter=False):
    s = '%s/%d' % (SCHEMES, i)
    dp.write(s + '/action', 'stat')
    dp.write(s + '/access_pattern/sz/min', 0)
    dp.write(s + '/access_pattern/sz/max', 2**64 - 1)
    # a vaddr region has at most aggr/sample accesses: 2**32-1 is never met
    dp.write(s + '/access_pattern/nr_accesses/min', 0 if tries_all else
             2**32 - 1)
    dp.write(s + '/access_pattern/nr_accesses/max', 2**32 - 1)
    dp.write(s + '/access_pattern/age/min', 0)
    dp.write(s + '/access_pattern/age/max', 2**32 - 1)
    dp.write(s + '/quotas/goals/nr_goals', 1 if goal else 0)
    if goal:
        dp.write(s + '/quotas/goals/0/target_metric', 'user_input')
        dp.write(s + '/quotas/goals/0/target_value', 10000)
        dp.write(s + '/quotas/goals/0/current_value', 1)
    dp.write(s + '/filters/nr_filters', 1 if addr_filter else 0)
    if addr_filter:
        # the first page, which no process maps: excludes nothing
        dp.write(s + '/filters/0/type', 'addr')
        dp.write(s + '/filters/0/matching', 'Y')
        dp.write(s + '/filters/0/addr_start', 0)
        dp.write(s + '/filters/0/addr_end', 4096)


def write_targets(pids):
    dp.write(dp.CTX + '/targets/nr_targets', len(pids))
    for i, pid in enumerate(pids):
        dp.write('%s/targets/%d/pid_target' % (dp.CTX, i), pid)


def write_a(p1):
    write_targets([p1])
    dp.write(SCHEMES + '/nr_schemes', 1)
    write_scheme(0, tries_all=True)
    dp.write_probes([{'filters': []}])


def write_b(p2, p3):
    write_targets([p2, p3])
    dp.write(SCHEMES + '/nr_schemes', 2)
    write_scheme(0, tries_all=False, goal=True, addr_filter=True)
    write_scheme(1, tries_all=True, addr_filter=True)
    dp.write_probes([{'filters': []},
                     {'filters': [dp.probe_filter('anon')]}])


def tried(scheme):
    """The tried regions of the kernel's scheme, if it has one (the files
    of the other sysfs schemes are left as they were: empty)."""
    if not os.path.isdir(dp.tried_regions_dir(scheme=scheme)):
        return []
    return dp.read_tried_regions(scheme=scheme)


def context(expect):
    """What the running context is made of: 'A', 'B', or a description of
    the mix.  Asks again twice if that is not expect ('A' or 'B'): the
    regions of a new target are set at the next ops update."""
    for _ in range(3):
        dp.state('update_schemes_tried_regions')
        r0, r1 = tried(0), tried(1)
        nr_probes = {len(r.hits) for r in r0 + r1}
        nbytes = sum(r.end - r.start for r in r0 + r1)
        got = 'scheme 0 tries %s, scheme 1 %s, probes %s, %d MiB tried' % (
            'all' if r0 else 'nothing', 'all' if r1 else 'nothing',
            sorted(nr_probes), nbytes >> 20)
        for name, r_all, r_none, probes, want in (
                ('A', r0, r1, 1, A_BYTES[0]), ('B', r1, r0, 2, B_BYTES[0])):
            if (r_all and not r_none and nr_probes == {probes} and
                    abs(nbytes - want) < GIB // 4):
                got = name
        if got == expect:
            break
        time.sleep(AGGR_US / 1e6)
    return got


A_BYTES, B_BYTES = [0], [0]


def write_params(procs, params):
    if params == 'A':
        write_a(procs[0].pid)
    else:
        write_b(procs[1].pid, procs[2].pid)


def start(procs, run, files):
    """kdamond running the parameters run ('A' or 'B'), the files holding
    the parameters files."""
    if dp.read(STATE) == 'on':
        dp.state('off')
    write_params(procs, run)
    dp.state('on')
    write_params(procs, files)
    got = context(run)
    dp.check(got == run, 'kdamond started with %s runs: %s' % (run, got))


# --- fault injection -------------------------------------------------------

def text_symbol(name):
    """[start, end) of a kernel function, from /proc/kallsyms."""
    addrs, start = [], None
    with open('/proc/kallsyms') as f:
        for line in f:
            a, t, sym = line.split()[:3]
            if t not in 'tT':
                continue
            addrs.append(int(a, 16))
            if sym == name and start is None:
                start = int(a, 16)
    dp.check(start, 'no function %s in /proc/kallsyms' % name)
    return start, min(a for a in addrs if a > start)


def faults_setup():
    for d in (SLAB, PAGE):
        dp.write(d + '/probability', 0)
        dp.write(d + '/interval', 1)
        dp.write(d + '/times', -1)
        dp.write(d + '/space', 0)
        dp.write(d + '/verbose', 0)
        dp.write(d + '/task-filter', 'Y')
        dp.write(d + '/ignore-gfp-wait', 'N')
    dp.write(SLAB + '/cache-filter', 'N')
    # no stack lies in [1, 1): fail_page_alloc never injects
    dp.write(PAGE + '/require-start', 1)
    dp.write(PAGE + '/require-end', 1)


def faults_only_in(func):
    start, end = text_symbol(func)
    dp.write(SLAB + '/require-start', start)
    dp.write(SLAB + '/require-end', end)


def faults_reset():
    for d in (SLAB, PAGE):
        dp.write(d + '/require-start', 0)
        dp.write(d + '/require-end', 2**64 - 1)


def fail_nth_path(tid):
    return '/proc/%d/task/%d/fail-nth' % (tid, tid)


def command(cmd):
    """Write cmd to the kdamond's 'state' file with one write(2) (again on
    EBUSY: dp.write()); the errno name of its failure or None."""
    try:
        dp.write(STATE, cmd)
        return None
    except OSError as e:
        return dp.errname(e)


def commit():
    return command('commit')


def settled_state():
    """'on' or 'off', once a kdamond that is stopping has stopped."""
    for _ in range(50):
        if dp.read(STATE) == 'off':
            return 'off'
        time.sleep(0.02)
    return 'on'


def sweep(who, procs, old, new):
    """Fail the N-th allocation in the commit of new to a kdamond running
    old for N = 1, 2, ...; returns the outcome of each round."""
    outcomes = []
    restart = True
    for n in range(1, MAX_N + 1):
        if restart:
            start(procs, old, new)
        kd = dp.kdamond_pid()
        if who == 'writer':
            nth = '/proc/thread-self/fail-nth'
            dp.write(nth, n)
            err = commit()
            left = int(dp.read(nth))
            dp.write(nth, 0)
        else:
            nth = fail_nth_path(kd)
            dp.write(nth, n)
            err = commit()
            try:
                left = int(dp.read(nth))
                dp.write(nth, 0)
            except OSError:
                left = 0        # kdamond is gone: it failed an allocation
        state = settled_state()
        if not left:
            if state == 'off':
                outcome = 'stopped'
                dp.check(err is not None, '%s N=%d: kdamond stopped but '
                         'the commit succeeded' % (who, n))
            else:
                outcome = context(old if err else new)
                dp.check(dp.kdamond_pid() == kd, '%s N=%d: kdamond %d '
                         'was replaced' % (who, n, kd))
            dp.log('%s N=%d: %s, %s' % (who, n, err or 'ok', outcome))
            outcomes.append((n, err, outcome))
            restart = outcome != old
            continue
        # the commit made fewer than n allocations: it must have committed
        dp.check(err is None and state == 'on',
                 '%s N=%d (no allocation failed): %s, kdamond %s' %
                 (who, n, err, state))
        got = context(new)
        dp.check(got == new, '%s N=%d (no allocation failed): %s' %
                 (who, n, got))
        dp.log('%s N=%d: no %dth allocation, %s committed' % (
            who, n, n, new))
        return outcomes
    raise dp.Fail('%s: commit still allocating at N=%d' % (who, MAX_N))


def summarize(who, outcomes, old):
    """Log the runs of equal outcomes; returns the bad rounds."""
    runs = []
    for n, err, outcome in outcomes:
        key = '%s, %s' % (err or 'ok', outcome)
        if runs and runs[-1][2] == key:
            runs[-1][1] = n
        else:
            runs.append([n, n, key])
    dp.log('%s: %d failed allocations: %s' % (
        who, len(outcomes), '; '.join('N=%d..%d %s' % tuple(r)
                                     for r in runs)))
    return [(n, err, o) for n, err, o in outcomes
            if not (err == 'ENOMEM' and o in (old, 'stopped'))]


# --- quota goals ---------------------------------------------------------

def start_b(procs):
    """kdamond running B, with the files asking scheme 0 for a second quota
    goal and scheme 1 for a first one."""
    start(procs, 'B', 'B')
    for i, nr in ((0, 2), (1, 1)):
        goals = '%s/%d/quotas/goals' % (SCHEMES, i)
        dp.write(goals + '/nr_goals', nr)
        for j in range(nr):
            g = '%s/%d' % (goals, j)
            dp.write(g + '/target_metric', 'user_input')
            dp.write(g + '/target_value', 10000 * (j + 1))
            dp.write(g + '/current_value', 1)


def quota_goals_sweep(procs, func):
    """Fail the N-th allocation of func in 'commit_schemes_quota_goals';
    returns (N, errno name, kdamond state) of each failure."""
    faults_only_in(func)
    out = []
    for n in range(1, 100):
        start_b(procs)
        nth = fail_nth_path(dp.kdamond_pid())
        dp.write(nth, n)
        err = command('commit_schemes_quota_goals')
        try:
            left = int(dp.read(nth))
            dp.write(nth, 0)
        except OSError:
            left = 0
        state = settled_state()
        if left:
            dp.check(err is None and state == 'on',
                     '%s N=%d (no allocation failed): %s, kdamond %s' %
                     (func, n, err, state))
            dp.log('%s: %s' % (func, ', '.join(
                'N=%d %s kdamond %s' % o for o in out)))
            return out
        out.append((n, err, state))
    raise dp.Fail('%s still allocating at N=100' % func)


# --- the EINVAL and request slot checks -------------------------------------

def bad_damos_inputs(procs):
    """DAMOS filters only the build can judge fail with EINVAL."""
    bad = 0
    for what, setup in (
            ('a memcg filter path naming no cgroup', lambda f: (
                dp.write(f + '/type', 'memcg'),
                dp.write(f + '/memcg_path', '/no/such/cgroup'))),
            ('an addr filter ending below its start', lambda f: (
                dp.write(f + '/type', 'addr'),
                dp.write(f + '/addr_start', 8192),
                dp.write(f + '/addr_end', 4096)))):
        start(procs, 'A', 'B')
        kd = dp.kdamond_pid()
        f = SCHEMES + '/1/filters/0'
        setup(f)
        err = commit()
        state = settled_state()
        got = context('A') if state == 'on' else 'stopped'
        dp.log('commit with %s: %s, kdamond %s, %s' % (
            what, err, state, got))
        if err != 'EINVAL' or got != 'A' or dp.kdamond_pid() != kd:
            bad += 1
        dp.state('off')
        err = command('on')
        dp.log("'on' with %s: %s" % (what, err))
        if err != 'EINVAL':
            bad += 1
    return bad


def second_writer(procs):
    """A second writer's command goes through as soon as the first one's
    was handled.  The first writer notices only at its next 100 ms poll;
    the second watches the stats that the handling updates."""
    start(procs, 'A', 'B')
    nr_tried = SCHEMES + '/0/stats/nr_tried'
    bad = 0
    for attempt in range(3):
        time.sleep(3 * AGGR_US / 1e6)  # scheme 0 tries regions meanwhile
        before = dp.read(nr_tried)
        first = []
        t = threading.Thread(target=lambda: first.append(
            command('update_schemes_stats')))
        t.start()
        deadline = time.time() + 5
        while dp.read(nr_tried) == before and time.time() < deadline:
            time.sleep(0.001)
        # EBUSY from the lock is momentary; from the request slot it
        # lasts until the first writer polls again
        tries, err = 0, 'EBUSY'
        t0 = time.time()
        while err == 'EBUSY' and time.time() - t0 < 0.03:
            tries += 1
            try:
                fd = os.open(STATE, os.O_WRONLY)
                try:
                    os.write(fd, b'update_schemes_stats')
                    err = None
                finally:
                    os.close(fd)
            except OSError as e:
                err = dp.errname(e)
        t.join()
        dp.log('attempt %d: first writer %s; second writer %s after %d '
               'tries in %.0f ms' % (attempt, first[0] or 'ok', err or 'ok',
                                     tries, (time.time() - t0) * 1000))
        if err or first[0]:
            bad += 1
    return bad


def test():
    if not os.path.isdir(SLAB):
        raise dp.Fail('no %s: CONFIG_FAILSLAB and '
                      'CONFIG_FAULT_INJECTION_DEBUG_FS are needed' % SLAB)
    procs = [Reserver(0), Reserver(16 * GIB), Reserver(64 * GIB)]
    try:
        run(procs)
    finally:
        for p in procs:
            p.stop()
        faults_reset()


def run(procs):
    sizes = [three_regions_bytes(p.pid) for p in procs]
    A_BYTES[0], B_BYTES[0] = sizes[0], sizes[1] + sizes[2]
    dp.log('P1, P2, P3 map %s MiB' % ', '.join(str(s >> 20) for s in sizes))
    dp.check(sizes[1] - sizes[0] > 8 * GIB and sizes[2] - sizes[1] > 32 * GIB,
             'unexpected address space layouts')
    dp.setup('vaddr', pid=procs[0].pid, sample_us=SAMPLE_US,
             aggr_us=AGGR_US, min_nr=3, max_nr=10, probes=())
    dp.write(dp.CTX + '/monitoring_attrs/intervals/update_us', AGGR_US)
    faults_setup()

    bad = []
    faults_only_in('damon_sysfs_build_ctx')
    bad += summarize('writer', sweep('writer', procs, 'A', 'B'), 'A')
    faults_only_in('damon_commit_ctx')
    outcomes = sweep('kdamond', procs, 'A', 'B')
    bad += summarize('kdamond', outcomes, 'A')
    faults_reset()
    stopped = sum(o == 'stopped' for _, _, o in outcomes)
    # building the goals can fail with the context left as it was; once
    # they are being committed, a failure leaves a mix: kdamond must stop
    goals_all = quota_goals_sweep(procs, 'damos_sysfs_set_quota_scores')
    goals_commit = quota_goals_sweep(procs, 'damos_commit_quota_goals')
    dp.check(goals_commit, 'no allocation in damos_commit_quota_goals()')
    bad_goals = [o for o in goals_all if o[1] != 'ENOMEM']
    bad_goals += [o for o in goals_commit
                  if o[1] != 'ENOMEM' or o[2] != 'off']
    faults_reset()
    nr_bad_inputs = bad_damos_inputs(procs)
    nr_busy = second_writer(procs)

    dp.check(not bad, '%d failed allocations left no clean state: %s' % (
        len(bad), '; '.join('N=%d %s %s' % (n, e, o) for n, e, o in bad)))
    dp.check(stopped, 'no failed allocation in the kdamond stopped it: '
             'none hit the running context')
    dp.check(not bad_goals, 'quota goals commits: %s' % ', '.join(
        'N=%d %s kdamond %s' % o for o in bad_goals))
    dp.check(not nr_bad_inputs, '%d bad DAMOS inputs did not fail with '
             'EINVAL and keep A running' % nr_bad_inputs)
    dp.check(not nr_busy, 'the second writer was refused in %d of 3 '
             'attempts' % nr_busy)


if __name__ == '__main__':
    dp.main(test)
