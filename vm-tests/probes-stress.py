#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Random probe rewrites while two kdamonds run: nothing crashes, every
read is well formed, no count exceeds aggr/sample.

kdamond 0 monitors physical memory, kdamond 1 the virtual address space
of a workload (anon, THP and tmpfs file memory, in a child memcg), both
with probes, sampling every 1 ms and aggregating every 20 ms, with the
damon_region_aggregated tracepoint enabled.  Then STRESS_COMMITS (default
10000) 'commit's, each to a random kdamond with a random set of 0-4
probes of 0, 1 or 4 set_pgidle preps and 0-3 filters of random types,
memcg paths (existing, removed, never existing) and hugepage_size ranges
(some with min above max) and weights (some whose weighted sum
overflows), are interleaved at random with update_schemes_tried_regions
plus a read of every hits file, clear_schemes_tried_regions, off/on,
removing and recreating a memcg that probes name, and reading the trace
buffer.
Checked after every step:

- a commit of valid input succeeds, one of invalid input fails with
  EINVAL, and neither stops the kdamond;
- 'on' after 'off' succeeds, unless a probe names a memcg removed since
  its commit: then it fails with EINVAL and the kdamond stays off;
- a tried region has one probes/<P> directory per probe of the last
  successful commit, each hits file one decimal number in 0..20;
- every trace line parses, carries 0..4 hit bytes, each at most 20.

At the end, a probe without filters committed to both kdamonds must count
exactly aggr/sample in every region: the counts still tell the truth.

Under the debug kernel (KASAN, lockdep, list debugging; check-vm.sh
debug) the kernel log check of the harness makes races visible.
STRESS_SEED makes a run reproducible; STRESS_SAMPLE_US and STRESS_AGGR_US
change the intervals (kdamond takes a commit only after an aggregation).
"""
import os
import random
import time

import damon_probes as dp

SAMPLE_US = int(os.environ.get('STRESS_SAMPLE_US', 1000))
AGGR_US = int(os.environ.get('STRESS_AGGR_US', 20000))
MAX_HITS = AGGR_US // SAMPLE_US
MEMCGS = ('stress-a', 'stress-b')     # stress-b is removed and recreated
PATHS = ('/', '/stress-a', '/stress-b', '/stress-never', '/stress-a/x')
TYPES = ('anon', 'memcg', 'hugepage_size', 'pgidle_unset', 'pgidle_set')
SIZES = (0, 4096, 8192, 1 << 20, 2 << 20, 1 << 30, 2**64 - 1)


def kd_dir(i):
    return '%s/kdamonds/%d' % (dp.ADMIN, i)


def ctx_dir(i):
    return kd_dir(i) + '/contexts/0'


class Kdamond:
    """One kdamond and the probes it last applied successfully."""

    def __init__(self, idx, ops, pid=None):
        self.idx, self.ops, self.pid = idx, ops, pid
        self.good = []      # probes the running context has

    def configure(self):
        dp.setup_kdamond(kd_dir(self.idx), self.ops, pid=self.pid,
                         sample_us=SAMPLE_US, aggr_us=AGGR_US, max_nr=200,
                         probes=self.good, update_us=None)

    def cmd(self, cmd):
        """Write cmd to the state file; returns the error name or None."""
        return dp.write_err(kd_dir(self.idx) + '/state', cmd)

    def check_running(self, what):
        dp.check(dp.read(kd_dir(self.idx) + '/state') == 'on',
                 'kdamond %d is off after %s' % (self.idx, what))


def random_probes(rng):
    probes = []
    for _ in range(rng.randint(0, 4)):
        filters = []
        for _ in range(rng.randint(0, 3)):
            ftype = rng.choice(TYPES)
            f = dp.probe_filter(ftype, allow=rng.random() < 0.5,
                                matching=rng.random() < 0.5)
            if ftype == 'memcg':
                f['path'] = rng.choice(PATHS)
            elif ftype == 'hugepage_size':
                f['sz'] = (rng.choice(SIZES), rng.choice(SIZES))
            filters.append(f)
        probes.append({'weight': rng.choice((0, 0, 1, 7, 200000000,
                                              2**32 - 1)),
                       'preps': ['set_pgidle'] * rng.choice((0, 0, 1, 4)),
                       'filters': filters})
    return probes


def valid(probes, memcg_alive):
    """Whether the commit of probes must succeed."""
    # the weighted hit sum of a region must fit in the u32 it is kept in
    if sum(p.get('weight', 0) for p in probes) * MAX_HITS > 2**32 - 1:
        return False
    for p in probes:
        for f in p['filters']:
            if f['type'] == 'memcg':
                name = f['path'].strip('/')
                if f['path'] != '/' and not memcg_alive.get(name):
                    return False
            if f['type'] == 'hugepage_size' and f['sz'][0] > f['sz'][1]:
                return False
    return True


def read_regions(kd, stats):
    """update_schemes_tried_regions and read every tried region's files
    (dp.read_tried_regions() fails on a malformed value and on probe
    directories other than 0..N-1); returns the Regions."""
    err = kd.cmd('update_schemes_tried_regions')
    dp.check(err is None, 'update_schemes_tried_regions of kdamond %d: %s'
             % (kd.idx, err))
    regions = dp.read_tried_regions(kd.idx)
    for r in regions:
        dp.check(len(r.hits) == len(kd.good),
                 'kdamond %d region %x-%x has %d probe dirs, %d probes '
                 'committed' % (kd.idx, r.start, r.end, len(r.hits),
                                len(kd.good)))
        for p, h in enumerate(r.hits):
            dp.check(h <= MAX_HITS, 'kdamond %d region %x-%x probe %d '
                     'hits %d' % (kd.idx, r.start, r.end, p, h))
        stats['hits files'] += len(r.hits)
        stats['regions'] += 1
    return regions


def check_trace(stats):
    with open(dp.TRACING + '/trace') as f:
        text = f.read()
    dp.write(dp.TRACING + '/trace', '')
    for line in text.splitlines():
        if 'damon_region_aggregated:' not in line:
            continue
        rec = dp.parse_trace_line(line)
        dp.check(rec, 'malformed trace line: %s' % line)
        dp.check(1 <= len(rec.hits) <= 4 and max(rec.hits) <= MAX_HITS,
                 'trace line with hits %s: %s' % (rec.hits, line))
        stats['trace lines'] += 1


def check_truth(kds, stats):
    """After the stress, the counts still tell the truth: a probe without
    filters hits every sample, so each region's count of the last complete
    window is exactly aggr/sample."""
    for kd in kds:
        kd.good = [{'filters': []}, {'filters': [dp.probe_filter('anon')]}]
        dp.write_probes(kd.good, ctx_dir(kd.idx))
        err = kd.cmd('commit')
        dp.check(err is None, 'final commit to kdamond %d: %s' % (kd.idx, err))
    # the commit takes effect at an aggregation, the counts after the next
    # complete window: poll, for up to 60 s on a slow (debug, busy) guest
    for kd in kds:
        deadline = time.time() + 60
        while True:
            hits = [r.hits[0] for r in read_regions(kd, stats)]
            if hits and all(h == MAX_HITS for h in hits):
                break
            dp.check(time.time() < deadline,
                     'kdamond %d: the no-filter probe counted %s, want %d '
                     'in every region' % (kd.idx, sorted(set(hits)),
                                          MAX_HITS))
            time.sleep(AGGR_US / 1e6 * 4)
        dp.log('kdamond %d: the no-filter probe hit all %d samples in each '
               'of %d regions' % (kd.idx, MAX_HITS, len(hits)))


def test():
    for name in MEMCGS:
        dp.make_memcg(name)
    wl = dp.Workload('--anon', 32, '--thp', 16, '--file', 16, '--hot',
                     cgroup=MEMCGS[0])
    try:
        run(wl)
    finally:
        # kdamonds first: the vaddr one stops by itself once its target
        # exits, and 'off' then fails with EPERM
        for i in (1, 0):
            if os.path.exists(kd_dir(i)) and \
                    dp.read(kd_dir(i) + '/state') == 'on':
                dp.write(kd_dir(i) + '/state', 'off')
        wl.stop()
        dp.write(dp.EVENT + '/enable', 0)
        dp.write(dp.TRACING + '/trace', '')
        time.sleep(0.2)
        for name in MEMCGS:
            dp.remove_memcg(name)


def run(wl):
    commits = int(os.environ.get('STRESS_COMMITS', 10000))
    seed = int(os.environ.get('STRESS_SEED', time.time()))
    rng = random.Random(seed)
    dp.log('%d commits, seed %d' % (commits, seed))
    memcg_alive = {name: True for name in MEMCGS}

    dp.write(dp.ADMIN + '/kdamonds/nr_kdamonds', 2)
    kds = [Kdamond(0, 'paddr'), Kdamond(1, 'vaddr', wl.pid)]
    for kd in kds:
        kd.good = [{'filters': [dp.probe_filter('anon')]}]
        kd.configure()
        dp.check(kd.cmd('on') is None, 'kdamond %d does not start' % kd.idx)
    dp.write(dp.TRACING + '/buffer_size_kb', 4096)
    dp.write(dp.TRACING + '/trace', '')
    dp.write(dp.EVENT + '/enable', 1)
    dp.write(dp.TRACING + '/tracing_on', 1)

    stats = dict.fromkeys(('commits ok', 'commits EINVAL', 'regions',
                           'hits files', 'trace lines', 'clears',
                           'restarts', 'on EINVAL', 'rmdirs'), 0)
    t0 = time.time()
    done = 0
    secs = {}
    while done < commits:
        kd = rng.choice(kds)
        op = rng.random()
        t_op = time.time()
        if op < 0.80:
            probes = random_probes(rng)
            expect = valid(probes, memcg_alive)
            dp.write_probes(probes, ctx_dir(kd.idx))
            err = kd.cmd('commit')
            done += 1
            dp.check((err is None) == expect,
                     'commit #%d to kdamond %d: %s, expected %s: %s' %
                     (done, kd.idx, err, 'success' if expect else 'EINVAL',
                      probes))
            dp.check(err in (None, 'EINVAL'), 'commit #%d: %s' % (done, err))
            kd.check_running('commit #%d' % done)
            if err is None:
                kd.good = probes
                stats['commits ok'] += 1
            else:
                stats['commits EINVAL'] += 1
                dp.write_probes(kd.good, ctx_dir(kd.idx))
        elif op < 0.90:
            read_regions(kd, stats)
        elif op < 0.94:
            err = kd.cmd('clear_schemes_tried_regions')
            dp.check(err is None, 'clear_schemes_tried_regions: %s' % err)
            stats['clears'] += 1
        elif op < 0.97:
            err = kd.cmd('off')
            dp.check(err is None, 'off of kdamond %d: %s' % (kd.idx, err))
            err = kd.cmd('on')
            if valid(kd.good, memcg_alive):
                dp.check(err is None, 'on of kdamond %d: %s' % (kd.idx, err))
            else:
                # 'on' builds the context from the files again: a probe
                # naming a memcg removed since its commit fails it, and
                # the kdamond stays off until the memcg is back
                dp.check(err == 'EINVAL', 'on of kdamond %d naming a '
                         'removed memcg: %s, expected EINVAL' % (kd.idx, err))
                dp.check(dp.read(kd_dir(kd.idx) + '/state') == 'off',
                         'kdamond %d runs after a failed on' % kd.idx)
                dp.make_memcg(MEMCGS[1])
                memcg_alive[MEMCGS[1]] = True
                err = kd.cmd('on')
                dp.check(err is None, 'on of kdamond %d once the memcg is '
                         'back: %s' % (kd.idx, err))
                stats['on EINVAL'] += 1
            stats['restarts'] += 1
        elif op < 0.99:
            name = MEMCGS[1]
            if memcg_alive[name]:
                dp.remove_memcg(name)
            else:
                dp.make_memcg(name)
            memcg_alive[name] = not memcg_alive[name]
            stats['rmdirs'] += 1
        else:
            check_trace(stats)
        kind = ('commit' if op < 0.80 else 'update' if op < 0.90 else
                'clear' if op < 0.94 else 'off/on' if op < 0.97 else
                'memcg' if op < 0.99 else 'trace')
        secs[kind] = secs.get(kind, 0) + time.time() - t_op
        if done and done % 1000 == 0 and op < 0.80:
            dp.log('%d commits, %.0f s' % (done, time.time() - t0))
    for kd in kds:
        kd.check_running('the stress')
        read_regions(kd, stats)
    check_trace(stats)
    check_truth(kds, stats)
    dp.log('%.0f s: %s' % (time.time() - t0, ', '.join(
        '%s %d' % kv for kv in stats.items())))
    dp.log('EBUSY answers retried (damon_probes.busy_retry()): %d' %
           dp.BUSY_RETRIES[0])
    dp.log('seconds spent: %s' % ', '.join(
        '%s %.0f' % kv for kv in sorted(secs.items())))
    dp.check(stats['commits ok'] > 0 and stats['commits EINVAL'] > 0,
             'the random commits did not cover both outcomes')
    dp.check(stats['trace lines'] > 0, 'no trace line was checked')


if __name__ == '__main__':
    dp.main(test)
