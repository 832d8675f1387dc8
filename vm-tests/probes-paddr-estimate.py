#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Physical address monitoring with data probes estimates the bytes of
anonymous memory and of a memory cgroup's memory within a stated tolerance.

Layout: a workload in the root cgroup maps 160 MiB of anonymous memory and
128 MiB of a tmpfs file (not anonymous); a second one in the child memcg
"probe-test" maps 96 MiB of anonymous memory.  DAMON monitors the physical
address space with four probes:

  0: allow anon               (anonymous memory)
  1: allow memcg /probe-test  (memory charged to the child memcg)
  2: no filter                (every sample: hits == aggr/sample, exactly)
  3: reject anon              (the complement of 0: hits0 + hits3 == max,
                               within SLACK: region merges round each
                               probe's size-weighted average separately)

Over WINDOWS aggregation windows read from the damon_region_aggregated
tracepoint, the estimate sum(size * hits / max_hits) of probes 0 and 1 is
compared with the ground truth that tools/kpage-scan reads from
/proc/kpageflags and /proc/kpagecgroup (LRU pages only: the probes see only LRU folios) at the
start and the end of the run.  Tolerance: TOLERANCE relative error of the
mean estimate.  Probes 2 and 3 are checked exactly in every region of every
window, and the tried_regions hits files must agree with the same rules.
"""

import damon_probes as dp

WINDOWS = 10
TOLERANCE = 0.10
SAMPLE_US, AGGR_US = 5000, 100000
MAX_HITS = AGGR_US // SAMPLE_US
SLACK = 2
MEMCG = 'probe-test'


def test():
    with dp.paddr_layout(MEMCG) as memcg_path:
        run(memcg_path)


def run(memcg_path):
    dp.setup('paddr', sample_us=SAMPLE_US, aggr_us=AGGR_US, min_nr=100,
             max_nr=1000, probes=[
                 {'filters': [dp.probe_filter('anon')]},
                 {'filters': [dp.probe_filter('memcg', path='/' + MEMCG)]},
                 {'filters': []},
                 {'filters': [dp.probe_filter('anon', allow=False)]},
             ])
    dp.state('on')
    windows = dp.trace_windows(WINDOWS, AGGR_US)
    start, end = dp.window_range(windows[0])
    truth0 = dp.kpage_truth(start, end, memcg_path)

    for w, win in enumerate(windows):
        for r in win:
            dp.check(len(r.hits) == 4, 'window %d: %d hit bytes, want 4' %
                     (w, len(r.hits)))
            dp.check(r.hits[2] == MAX_HITS, 'window %d region %x-%x: '
                     'no-filter probe hit %d/%d samples' %
                     (w, r.start, r.end, r.hits[2], MAX_HITS))
            dp.check(abs(r.hits[0] + r.hits[3] - MAX_HITS) <= SLACK,
                     'window %d region %x-%x: anon %d + non-anon %d is '
                     'not %d +- %d' % (w, r.start, r.end, r.hits[0],
                                       r.hits[3], MAX_HITS, SLACK))
        dp.check(sum(r.end - r.start for r in win) == end - start,
                 'window %d does not cover the monitored range' % w)

    regions = dp.tried_regions()
    dp.check(regions, 'no tried region')
    for r in regions:
        dp.check(len(r.hits) == 4, 'tried region %x-%x has %d probe dirs' %
                 (r.start, r.end, len(r.hits)))
        dp.check(r.hits[2] == MAX_HITS and
                 abs(r.hits[0] + r.hits[3] - MAX_HITS) <= SLACK,
                 'tried region %x-%x hits %s break the exact rules' %
                 (r.start, r.end, r.hits))
    truth1 = dp.kpage_truth(start, end, memcg_path)
    dp.stop()

    ok = True
    for probe, key in ((0, 'anon'), (1, 'memcg')):
        ests = [dp.estimate(win, probe, MAX_HITS) for win in windows]
        est = sum(ests) / len(ests)
        truth = (truth0[key] + truth1[key]) / 2
        err = dp.rel_err(est, truth)
        dp.log('%-6s truth %8.1f MiB  estimate %8.1f MiB (windows %.1f..%.1f)'
               '  error %5.1f%%  (tolerance %.0f%%)' %
               (key, truth / dp.MIB, est / dp.MIB, min(ests) / dp.MIB,
                max(ests) / dp.MIB, err * 100, TOLERANCE * 100))
        ok = ok and err <= TOLERANCE
    dp.log('monitored %.1f MiB in %d..%d regions' %
           ((end - start) / dp.MIB, min(len(w) for w in windows),
            max(len(w) for w in windows)))
    dp.check(ok, 'estimate error above tolerance')


dp.main(test)
