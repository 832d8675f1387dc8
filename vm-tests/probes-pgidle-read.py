#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Page cache that is only read with read(), never mapped, shows up as
accessed through a page idle filter on paddr: no page table has an accessed
bit for it, the read clears the page's idle mark.

Layout: a process in the memory cgroup /MEMCG writes two files of FILE_MIB
each on /dev/shm with write(), never maps them, and then reads one of them
(hot) with pread() over and over, the other one (cold) never again.  DAMON
monitors the biggest System RAM range (paddr) in NR_REGIONS fixed regions,
data attributes only, with probes

  0: prep set_pgidle; reject pgidle_set; allow memcg /MEMCG   (weight 1)
     "accessed during the sampling interval, and in /MEMCG"
  1: allow memcg /MEMCG                                        (weight 0)

The mean estimates (sum of size x hits / samples) over WINDOWS windows:
probe 0 is the hot file within TOLERANCE; probe 1 is within TOLERANCE of the
memory charged to /MEMCG by /proc/kpagecgroup, which holds both files, so
that the cold file is there but not found accessed.
"""
import damon_probes as dp

MEMCG = 'pgidle-read'
FILE_MIB = 16
SAMPLE_US, AGGR_US = 100000, 2000000
MAX_HITS = AGGR_US // SAMPLE_US
NR_REGIONS = 1000
WINDOWS = 8
TOLERANCE = 0.15


def test():
    memcg_path = dp.make_memcg(MEMCG)
    try:
        wl = dp.Workload('--read-file', FILE_MIB, '--cold-read-file',
                         FILE_MIB, '--hot', cgroup='/' + MEMCG)
        try:
            run(wl, memcg_path)
        finally:
            wl.stop()
    finally:
        dp.remove_memcg(MEMCG)


def run(wl, memcg_path):
    maps = open('/proc/%d/maps' % wl.pid).read()
    dp.check('attr-workload.' not in maps, 'the read files are mapped:\n' +
             maps)
    hot_sz = wl.areas['read-file'].size
    dp.setup('paddr', sample_us=SAMPLE_US, aggr_us=AGGR_US,
             min_nr=NR_REGIONS, max_nr=NR_REGIONS, probes=[
                 {'weight': 1, 'preps': ['set_pgidle'], 'filters': [
                     dp.probe_filter('pgidle_set', allow=False),
                     dp.probe_filter('memcg', path='/' + MEMCG)]},
                 {'filters': [dp.probe_filter('memcg', path='/' + MEMCG)]},
             ])
    dp.state('on')
    windows = dp.trace_windows(WINDOWS, AGGR_US, warmup=2)
    start, end = dp.window_range(windows[0])
    truth = dp.kpage_truth(start, end, memcg_path)['memcg']
    dp.stop()
    est = [sum(dp.estimate(win, p, MAX_HITS) for win in windows) /
           len(windows) for p in (0, 1)]
    dp.log('read() only: hot file %d MiB, found accessed in %s %.1f MiB; '
           'charged to it %.1f MiB (kpagecgroup), probe estimate %.1f MiB '
           '(two files of %d MiB)' % (hot_sz / dp.MIB, MEMCG, est[0] / dp.MIB,
                                      truth / dp.MIB, est[1] / dp.MIB,
                                      FILE_MIB))
    dp.check(truth >= 2 * hot_sz, 'only %.1f MiB charged to %s' %
             (truth / dp.MIB, MEMCG))
    dp.check(dp.rel_err(est[1], truth) <= TOLERANCE,
             'memcg estimate %.1f MiB vs truth %.1f MiB: error above %.0f%%'
             % (est[1] / dp.MIB, truth / dp.MIB, TOLERANCE * 100))
    dp.check(dp.rel_err(est[0], hot_sz) <= TOLERANCE,
             'accessed estimate %.1f MiB vs the read file\'s %d MiB: error '
             'above %.0f%%' % (est[0] / dp.MIB, hot_sz / dp.MIB,
                               TOLERANCE * 100))


dp.main(test)
