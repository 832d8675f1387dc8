#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""A memcg probe outlives its memory cgroup safely.

A process in a child memcg writes 64 MiB of anonymous memory while a paddr
kdamond runs a probe on that memcg path (the probe keeps the memcg id, not
a reference).  Then, with monitoring running:

1. the probe hits (the memcg has memory);
2. the process exits and the cgroup is removed (rmdir); kdamond keeps
   sampling the freed and reused pages for 10 aggregation windows, and
   every tried region still reads well-formed hit counts;
3. 'commit' with the same path fails with EINVAL, kdamond keeps running
   with the same pid;
4. after the cgroup is created again under the same name, 'commit'
   succeeds and a new process in it is seen by the probe.

Under the debug kernel (scripts/check-vm.sh debug), KASAN checks that no
step touches the removed memcg.
"""
import os
import time

import damon_probes as dp

MEMCG = 'probe-lifetime'
SAMPLE_US, AGGR_US = 5000, 100000
MAX_HITS = AGGR_US // SAMPLE_US


def memcg_hits():
    """Sum over the tried regions of the memcg probe's hits, after
    checking every count is within 0..MAX_HITS."""
    total = 0
    for r in dp.tried_regions():
        dp.check(len(r.hits) == 1 and 0 <= r.hits[0] <= MAX_HITS,
                 'region %x-%x: hits %s' % (r.start, r.end, r.hits))
        total += r.hits[0]
    return total


def wait_hits(what):
    """Hits of the memcg probe seen within 30 s (a busy TCG host samples
    slowly)."""
    deadline = time.time() + 30
    while time.time() < deadline:
        hits = memcg_hits()
        if hits:
            return hits
        time.sleep(AGGR_US / 1e6 * 2)
    raise dp.Fail('the memcg probe saw nothing of %s' % what)


def test():
    dp.make_memcg(MEMCG)
    wl = dp.Workload('--anon', 64, cgroup=MEMCG)
    try:
        run(wl)
    finally:
        wl.stop()
        dp.stop()
        time.sleep(0.2)
        dp.remove_memcg(MEMCG)


def run(wl):
    probes = [{'filters': [dp.probe_filter('memcg', path='/' + MEMCG)]}]
    dp.setup('paddr', sample_us=SAMPLE_US, aggr_us=AGGR_US, probes=probes)
    dp.state('on')
    pid = dp.kdamond_pid()
    dp.log('step 1: %d hits of the live memcg' % wait_hits('the workload'))

    wl.stop()
    os.rmdir(os.path.join(dp.CGROOT, MEMCG))
    time.sleep(10 * AGGR_US / 1e6)
    dp.check(dp.read(dp.KD + '/state') == 'on' and dp.kdamond_pid() == pid,
             'kdamond stopped after the memcg was removed')
    dp.log('step 2: memcg removed, 10 windows later %d hits, kdamond %d '
           'running' % (memcg_hits(), pid))

    err = dp.write_err(dp.KD + '/state', 'commit')
    dp.check(err == 'EINVAL',
             'commit with the removed memcg path: %s, want EINVAL' % err)
    dp.check(dp.read(dp.KD + '/state') == 'on' and dp.kdamond_pid() == pid,
             'kdamond stopped after the failed commit')
    dp.log('step 3: commit with the removed path: EINVAL, kdamond running')

    dp.make_memcg(MEMCG)
    dp.state('commit')
    wl2 = dp.Workload('--anon', 64, cgroup=MEMCG)
    try:
        dp.log('step 4: recreated memcg committed, %d hits' %
               wait_hits('the new workload'))
    finally:
        wl2.stop()


if __name__ == '__main__':
    dp.main(test)
