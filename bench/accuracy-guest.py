#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Guest side of bench/accuracy.sh: relative error of the estimated bytes
after 1, 5, 10 and 50 aggregation windows, against page-level truth, for:

  paddr-anon     anonymous memory in the physical address space
  paddr-memcg    memory of a child memcg in the physical address space
  vaddr-anon     a process's anonymous memory (vaddr)
  vaddr-thp      its 2 MiB THP-backed memory (hugepage_size filter)
  vaddr-interleaved  anonymous pages interleaved with tmpfs pages at 4 KiB
                 granularity inside one mapping (the hard case for sampling)

Prints one JSON object per case.
"""
import json

import damon_probes as dp

SAMPLE_US, AGGR_US = 5000, 100000
MAX_HITS = AGGR_US // SAMPLE_US
WS = [1, 5, 10, 50]
MEMCG = 'bench'


def errors(windows, probe, truth):
    ests = [dp.estimate(w, probe, MAX_HITS) for w in windows]
    return {str(n): dp.rel_err(sum(ests[:n]) / n, truth) for n in WS
            if n <= len(ests)}


def report(case, windows, probe, truth):
    print(json.dumps({'case': case, 'truth': truth,
                      'errors': errors(windows, probe, truth)}), flush=True)


def paddr():
    memcg_path = dp.make_memcg(MEMCG)
    wls = [dp.Workload('--anon', 160, '--file', 128),
           dp.Workload('--anon', 96, cgroup=MEMCG)]
    try:
        dp.setup('paddr', sample_us=SAMPLE_US, aggr_us=AGGR_US, min_nr=100,
                 max_nr=1000, probes=[
                     {'filters': [dp.probe_filter('anon')]},
                     {'filters': [dp.probe_filter('memcg',
                                                  path='/' + MEMCG)]}])
        dp.state('on')
        windows = dp.trace_windows(max(WS), AGGR_US)
        start = min(r.start for r in windows[0])
        end = max(r.end for r in windows[0])
        truth = dp.kpage_truth(start, end, memcg_path)
        dp.stop()
    finally:
        for w in wls:
            w.stop()
        dp.remove_memcg(MEMCG)
    report('paddr-anon', windows, 0, truth['anon'])
    report('paddr-memcg', windows, 1, truth['memcg'])


def vaddr():
    wl = dp.Workload('--anon', 96, '--thp', 64, '--file', 64,
                     '--interleave', 64)
    try:
        dp.setup('vaddr', pid=wl.pid, sample_us=SAMPLE_US, aggr_us=AGGR_US,
                 min_nr=100, max_nr=1000, probes=[
                     {'filters': [dp.probe_filter('anon')]},
                     {'filters': [dp.probe_filter(
                         'hugepage_size', sz=(2 * dp.MIB, 2 * dp.MIB))]}])
        dp.state('on')
        windows = dp.trace_windows(max(WS), AGGR_US)
        truth = {'anon': 0, 'thp': 0}
        for r in windows[-1]:
            t = dp.pagemap_truth(wl.pid, r.start, r.end)
            truth['anon'] += t['anon']
            truth['thp'] += t['thp']
        dp.stop()
        # the interleaved mapping alone, as its own fvaddr target
        area = wl.areas['interleave']
        dp.setup('fvaddr', pid=wl.pid, sample_us=SAMPLE_US, aggr_us=AGGR_US,
                 min_nr=10, max_nr=1000, regions=[(area.start, area.end)],
                 probes=[{'filters': [dp.probe_filter('anon')]}])
        dp.state('on')
        iwin = dp.trace_windows(max(WS), AGGR_US)
        itruth = dp.pagemap_truth(wl.pid, area.start, area.end)['anon']
        dp.stop()
    finally:
        wl.stop()
    report('vaddr-anon', windows, 0, truth['anon'])
    report('vaddr-thp', windows, 1, truth['thp'])
    report('fvaddr-interleaved-anon', iwin, 0, itruth)


paddr()
vaddr()
