#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""A memcg probe path names the live memory cgroup, not a removed one of
the same name that charged pages keep around (a "zombie").

For each way of keeping a removed cgroup around:

  page cache  a process in the cgroup writes ZOMBIE_MIB of a tmpfs file
              and exits; the file's pages stay charged to the cgroup;
  swap        the same, and then memory.reclaim swaps the file's pages out
              to a RAM disk (/dev/ram0): the swap entries keep the cgroup's
              memcg id (6.12 keeps the id of a removed memcg while swap
              entries refer to it, and drops it otherwise);

the cgroup is removed (rmdir: it stays as a dying cgroup, counted in
cgroup.stat), created again under the same name, and attr-workload writes
WORKLOAD_MIB of anonymous memory in the new one.  A paddr kdamond with the
probes "allow memcg /<name>" and no filter must then estimate the new
cgroup's memory within TOLERANCE of the truth that tools/kpage-scan reads
from /proc/kpagecgroup, both when the probes are installed by 'on' and by
'commit' to a kdamond that ran without them.  A path resolved to the dying
memcg counts about nothing.
"""
import os
import subprocess
import time

import damon_probes as dp

ZOMBIE_MIB = 32
WORKLOAD_MIB = 64
WINDOWS = 10
TOLERANCE = 0.10
SAMPLE_US, AGGR_US = 5000, 100000
MAX_HITS = AGGR_US // SAMPLE_US
SWAP_DEV = '/dev/ram0'


def nr_dying():
    for line in open(os.path.join(dp.CGROOT, 'cgroup.stat')):
        k, v = line.split()
        if k == 'nr_dying_descendants':
            return int(v)
    raise dp.Fail('no nr_dying_descendants in cgroup.stat')


def memcg_stat(name, key):
    return int(dp.read(os.path.join(dp.CGROOT, name, key)))


def make_zombie(name, swap):
    """Create cgroup name, charge ZOMBIE_MIB of a tmpfs file to it (swapped
    out if swap), and remove it; returns the file, whose pages or swap
    entries keep the removed memcg."""
    cg = dp.make_memcg(name)
    path = '/dev/shm/%s.data' % name

    def enter():
        with open(os.path.join(cg, 'cgroup.procs'), 'w') as f:
            f.write('0')
    subprocess.run(['dd', 'if=/dev/zero', 'of=' + path, 'bs=1M',
                    'count=%d' % ZOMBIE_MIB], check=True,
                   stderr=subprocess.DEVNULL, preexec_fn=enter)
    charged = memcg_stat(name, 'memory.current')
    dp.check(charged >= ZOMBIE_MIB * dp.MIB * 9 // 10,
             'only %d bytes of the tmpfs file were charged to %s' %
             (charged, name))
    if swap:
        err = dp.write_err(os.path.join(cg, 'memory.reclaim'),
                           '%dM' % (2 * ZOMBIE_MIB))
        swapped = memcg_stat(name, 'memory.swap.current')
        dp.log('memory.reclaim: %s; %.1f MiB swapped out, %.1f MiB left '
               'in memory' % (err or 'done', swapped / dp.MIB,
                              memcg_stat(name, 'memory.current') / dp.MIB))
        dp.check(swapped >= ZOMBIE_MIB * dp.MIB // 2,
                 'only %d bytes of %s were swapped out' % (swapped, name))
    dying = nr_dying()
    os.rmdir(cg)
    deadline = time.time() + 10
    while nr_dying() <= dying and time.time() < deadline:
        time.sleep(0.1)
    dp.check(nr_dying() > dying, 'the removed %s is not dying but gone: '
             'nothing keeps it' % name)
    return path


def measure(name, how):
    """Estimate the memcg probe against the truth, with the probes
    installed by 'on' or by 'commit'."""
    memcg_path = os.path.join(dp.CGROOT, name)
    probes = [{'filters': [dp.probe_filter('memcg', path='/' + name)]},
              {'filters': []}]
    dp.setup('paddr', sample_us=SAMPLE_US, aggr_us=AGGR_US, min_nr=100,
             max_nr=1000, probes=probes if how == 'on' else [],
             stat_scheme=False)
    dp.state('on')
    if how == 'commit':
        time.sleep(3 * AGGR_US / 1e6)
        dp.write_probes(probes)
        dp.state('commit')
    windows = dp.trace_windows(WINDOWS, AGGR_US)
    start, end = dp.window_range(windows[0])
    truth = dp.kpage_truth(start, end, memcg_path)['memcg']
    dp.stop()
    for win in windows:
        for r in win:
            dp.check(len(r.hits) == 2 and r.hits[1] == MAX_HITS,
                     'region %x-%x: hits %s' % (r.start, r.end, r.hits))
    est = sum(dp.estimate(w, 0, MAX_HITS) for w in windows) / len(windows)
    err = dp.rel_err(est, truth)
    dp.log('%s: new %s truth %.1f MiB, estimate %.1f MiB, error %.1f%% '
           '(tolerance %.0f%%)' % (how, name, truth / dp.MIB, est / dp.MIB,
                                   err * 100, TOLERANCE * 100))
    return err <= TOLERANCE


def scenario(name, swap):
    path = make_zombie(name, swap)
    wl = None
    try:
        dp.make_memcg(name)
        wl = dp.Workload('--anon', WORKLOAD_MIB, cgroup=name)
        dp.log('%s: removed with %d MiB of tmpfs charged%s, created again; '
               '%d dying cgroups' % (name, ZOMBIE_MIB,
                                     ' and swapped out' if swap else '',
                                     nr_dying()))
        return [measure(name, how) for how in ('on', 'commit')]
    finally:
        if wl:
            wl.stop()
        dp.stop()
        os.unlink(path)
        time.sleep(0.2)
        dp.remove_memcg(name)


def test():
    with dp.ram_swap(SWAP_DEV):
        results = scenario('probe-zombie-cache', False)
        results += scenario('probe-zombie-swap', True)
    dp.check(all(results), 'a probe did not count the live memcg of its '
             'path (on/commit, page cache zombie then swap zombie: %s)' %
             results)


if __name__ == '__main__':
    dp.main(test)
