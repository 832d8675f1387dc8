#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Virtual address monitoring with data probes (beyond mainline, which
counts nothing for vaddr targets) estimates a process's anonymous and
THP-backed bytes within a stated tolerance.

Layout: one process maps 96 MiB of anonymous base pages (MADV_NOHUGEPAGE),
64 MiB of anonymous memory with MADV_HUGEPAGE (THP "always" or "madvise"),
and 64 MiB of a tmpfs file, all written once.  DAMON monitors the process
(vaddr) with four probes:

  0: allow anon
  1: allow hugepage_size 2 MiB..2 MiB
  2: no filter   (hits == aggr/sample in every region, exactly)
  3: reject anon (hits0 + hits3 == aggr/sample within SLACK: region merges
     round each probe's size-weighted average separately)

The mean estimate over WINDOWS windows of the damon_region_aggregated
tracepoint is compared with the truth of the same address ranges read from
/proc/<pid>/pagemap and /proc/kpageflags (present LRU pages only).
Tolerance: TOLERANCE relative error.
"""

import damon_probes as dp

WINDOWS = 10
TOLERANCE = 0.10
SAMPLE_US, AGGR_US = 5000, 100000
MAX_HITS = AGGR_US // SAMPLE_US
SLACK = 2


def test():
    wl = dp.Workload('--anon', 96, '--thp', 64, '--file', 64)
    try:
        run(wl)
    finally:
        wl.stop()


def run(wl):
    dp.setup('vaddr', pid=wl.pid, sample_us=SAMPLE_US, aggr_us=AGGR_US,
             min_nr=100, max_nr=1000, probes=[
                 {'filters': [dp.probe_filter('anon')]},
                 {'filters': [dp.probe_filter('hugepage_size',
                                              sz=(2 * dp.MIB, 2 * dp.MIB))]},
                 {'filters': []},
                 {'filters': [dp.probe_filter('anon', allow=False)]},
             ])
    dp.state('on')
    windows = dp.trace_windows(WINDOWS, AGGR_US)
    for w, win in enumerate(windows):
        for r in win:
            dp.check(len(r.hits) == 4, 'window %d: %d hit bytes' %
                     (w, len(r.hits)))
            dp.check(r.hits[2] == MAX_HITS and
                     abs(r.hits[0] + r.hits[3] - MAX_HITS) <= SLACK,
                     'window %d region %x-%x: hits %s break the exact '
                     'rules' % (w, r.start, r.end, r.hits))
    # the truth over the ranges that DAMON monitored (it changes only on
    # mmap/munmap, and the workload does neither after the setup)
    ranges = sorted((r.start, r.end) for r in windows[-1])
    truth = {'anon': 0, 'thp': 0}
    for s, e in ranges:
        t = dp.pagemap_truth(wl.pid, s, e)
        truth['anon'] += t['anon']
        truth['thp'] += t['thp']
    dp.stop()
    thp_area = wl.areas['thp'].size
    dp.log('workload: anon %d MiB + thp area %d MiB; truth: anon %.1f MiB,'
           ' THP-backed %.1f MiB' % (wl.areas['anon'].size / dp.MIB,
                                      thp_area / dp.MIB,
                                      truth['anon'] / dp.MIB,
                                      truth['thp'] / dp.MIB))
    dp.check(truth['thp'] >= thp_area / 2,
             'the guest backed only %.1f MiB of %d MiB with THP' %
             (truth['thp'] / dp.MIB, thp_area / dp.MIB))
    ok = True
    for probe, key in ((0, 'anon'), (1, 'thp')):
        ests = [dp.estimate(win, probe, MAX_HITS) for win in windows]
        est = sum(ests) / len(ests)
        err = dp.rel_err(est, truth[key])
        dp.log('%-5s truth %8.1f MiB  estimate %8.1f MiB (windows %.1f..%.1f)'
               '  error %5.1f%%  (tolerance %.0f%%)' %
               (key, truth[key] / dp.MIB, est / dp.MIB, min(ests) / dp.MIB,
                max(ests) / dp.MIB, err * 100, TOLERANCE * 100))
        ok = ok and err <= TOLERANCE
    dp.check(ok, 'estimate error above tolerance')


dp.main(test)
