#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The main job, run inside the guest: start a workload with a known layout,
monitor the physical address space with data probes, and print how much of
the hot, warm and cold memory is anonymous, belongs to the memcg /demo and
is backed by 2 MiB huge pages, next to the ground truth.

Environment (all optional): WINDOWS (aggregation windows to average, 20),
SAMPLE_US (5000), AGGR_US (100000), PROBES (comma-separated subset of
"anon,memcg,thp"; default all three).
"""
import os
import sys
import time

import damon_probes as dp

WINDOWS = int(os.environ.get('WINDOWS', 20))
SAMPLE_US = int(os.environ.get('SAMPLE_US', 5000))
AGGR_US = int(os.environ.get('AGGR_US', 100000))
PROBES = [p for p in os.environ.get('PROBES', 'anon,memcg,thp').split(',')
          if p]
MAX_HITS = AGGR_US // SAMPLE_US
MEMCG = 'demo'

# attr-workload arguments and what they map, in MiB
LAYOUT_ROOT = {'anon': 96, 'file': 64, 'cold-anon': 128, 'cold-file': 96}
LAYOUT_DEMO = {'anon': 48, 'thp': 32}

PROBE_DEFS = {
    'anon': ('anon', {'filters': [dp.probe_filter('anon')]}),
    'memcg': ('memcg:/' + MEMCG,
              {'filters': [dp.probe_filter('memcg', path='/' + MEMCG)]}),
    'thp': ('2M THP', {'filters': [dp.probe_filter(
        'hugepage_size', sz=(2 * dp.MIB, 2 * dp.MIB))]}),
}
TRUTH_KEY = {'anon': 'anon', 'memcg': 'memcg', 'thp': 'thp'}


def main():
    if not os.path.isdir(dp.ADMIN):
        sys.exit('this kernel has no DAMON sysfs interface')
    t0 = time.time()
    memcg_path = dp.make_memcg(MEMCG)
    print('starting the workload: root cgroup %s; memcg /%s %s (MiB, all '
          'written once; "anon"/"file"/"thp" areas stay hot)' %
          (LAYOUT_ROOT, MEMCG, LAYOUT_DEMO), flush=True)
    wls = [dp.Workload(*dp.workload_args(LAYOUT_ROOT)),
           dp.Workload(*dp.workload_args(LAYOUT_DEMO), cgroup=MEMCG)]
    try:
        names = [PROBE_DEFS[p][0] for p in PROBES]
        dp.setup('paddr', sample_us=SAMPLE_US, aggr_us=AGGR_US, min_nr=100,
                 max_nr=1000, probes=[PROBE_DEFS[p][1] for p in PROBES])
        dp.state('on')
        print('DAMON paddr monitoring with %d probe(s): %s; collecting %d '
              'aggregation windows' % (len(PROBES), ', '.join(names),
                                       WINDOWS), flush=True)
        # let DAMON find the hot memory first
        time.sleep(max(1.0, 5 * AGGR_US / 1e6))
        windows = dp.trace_windows(WINDOWS, AGGR_US)
        dp.stop()
        # page-level truth of every region of every window, at the end
        ranges = [(r.start, r.end) for win in windows for r in win]
        truths = iter(dp.kpage_scan(ranges, memcg_path))
    finally:
        for w in wls:
            w.stop()
        dp.remove_memcg(MEMCG)
    if len(windows) < WINDOWS:
        sys.exit('only %d complete windows were traced' % len(windows))
    report(windows, truths, names, time.time() - t0)


def report(windows, truths, names, elapsed):
    bands = ['hot', 'warm', 'cold', 'all']
    acc = {b: {'regions': 0, 'total': 0.0,
               'est': [0.0] * len(PROBES), 'truth': [0.0] * len(PROBES)}
           for b in bands}
    for win in windows:
        for r in win:
            truth = next(truths)
            for b in (dp.band_of(r.nr_accesses, MAX_HITS), 'all'):
                a = acc[b]
                a['regions'] += 1
                a['total'] += r.end - r.start
                for i, p in enumerate(PROBES):
                    a['est'][i] += (r.end - r.start) * r.hits[i] / MAX_HITS
                    a['truth'][i] += truth[TRUTH_KEY[p]]
    n = len(windows)
    mib = dp.MIB * n
    print()
    print('Hot/cold memory by data attribute: paddr, %d windows of %d ms, '
          '%d samples per window' % (n, AGGR_US // 1000, MAX_HITS))
    head = '%-5s %8s %10s' % ('band', 'regions', 'total')
    sub = '%-5s %8s %10s' % ('', '(mean)', 'MiB')
    for name in names:
        head += ' | %-27s' % name
        sub += ' | %8s %8s %8s' % ('est MiB', 'true MiB', 'error')
    print(head)
    print(sub)
    print('-' * len(sub))
    for b in bands:
        a = acc[b]
        line = '%-5s %8.1f %10.1f' % (b, a['regions'] / n, a['total'] / mib)
        for i in range(len(PROBES)):
            est, truth = a['est'][i] / mib, a['truth'][i] / mib
            err = ('%7.1f%%' % (abs(est - truth) / truth * 100)
                   if truth >= 1 else '%8s' % '-')
            line += ' | %8.1f %8.1f %8s' % (est, truth, err)
        print(line)
    print('-' * len(sub))
    print('legend: band by nr_accesses (hot >= %d of %d samples, cold = 0); '
          'est = sum(region size x hits / %d); true = LRU pages with the '
          'attribute in the same regions (/proc/kpageflags, '
          '/proc/kpagecgroup); error = |est - true| / true' %
          (MAX_HITS // 2, MAX_HITS, MAX_HITS))
    print('demo ran %.0f s in the guest' % elapsed)


main()
