#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""make run PROM=1, in the guest: the workload and probes of attr-demo.py,
with the results going the fleet way: tools/damon-probe-metrics writes them
to a textfile every second, prometheus-node-exporter serves it, prometheus
scrapes it (all on the loopback), and PromQL answers the questions, printed
next to the page-level truth.

Two kinds of answers:
  - the last window (instant queries on the last file the tool wrote): per
    band and probe, the estimate with its standard error next to the truth
    of the same regions, whose tried regions the tool read last (they stay
    in sysfs until the next update);
  - the mean over WINDOWS seconds (avg_over_time) of each probe's estimate
    of all bands, next to the truth of the whole monitored range.
Environment: WINDOWS (seconds of scrapes to average, 20), SAMPLE_US (5000),
AGGR_US (100000).
"""
import os
import shutil
import sys
import time

import damon_probes as dp
import promstack

WINDOWS = int(os.environ.get('WINDOWS', 20))
SAMPLE_US = int(os.environ.get('SAMPLE_US', 5000))
AGGR_US = int(os.environ.get('AGGR_US', 100000))
MAX_HITS = AGGR_US // SAMPLE_US
MEMCG = 'demo'
WORKDIR = '/tmp/prom-demo'

# as attr-demo.py, in MiB
LAYOUT_ROOT = {'anon': 96, 'file': 64, 'cold-anon': 128, 'cold-file': 96}
LAYOUT_DEMO = {'anon': 48, 'thp': 32}
# probe: (truth key of kpage-scan, filters label of the tool)
PROBES = [('anon', 'allow anon'), ('memcg', 'allow memcg /' + MEMCG),
          ('thp', 'allow hugepage_size 2097152 2097152')]
BANDS = ('hot', 'warm', 'cold')


def mib(b):
    return b / dp.MIB


def main():
    if not os.path.isdir(dp.ADMIN):
        sys.exit('this kernel has no DAMON sysfs interface')
    t0 = time.time()
    memcg_path = dp.make_memcg(MEMCG)
    print('starting the workload: root cgroup %s; memcg /%s %s (MiB)' %
          (LAYOUT_ROOT, MEMCG, LAYOUT_DEMO), flush=True)
    wls = [dp.Workload(*dp.workload_args(LAYOUT_ROOT)),
           dp.Workload(*dp.workload_args(LAYOUT_DEMO), cgroup=MEMCG)]
    stack = None
    try:
        start, end = dp.biggest_system_ram()
        dp.setup('paddr', sample_us=SAMPLE_US, aggr_us=AGGR_US, min_nr=100,
                 max_nr=1000, regions=[(start, end)], probes=[
                     {'filters': [dp.probe_filter('anon')]},
                     {'filters': [dp.probe_filter('memcg',
                                                  path='/' + MEMCG)]},
                     {'filters': [dp.probe_filter(
                         'hugepage_size', sz=(2 * dp.MIB, 2 * dp.MIB))]}])
        dp.state('on')
        promstack.loopback_up()
        shutil.rmtree(WORKDIR, ignore_errors=True)
        print('starting damon-probe-metrics (every 1 s), '
              'prometheus-node-exporter and prometheus on 127.0.0.1',
              flush=True)
        stack = promstack.Stack(WORKDIR, interval=1, scrape_s=1)
        truth0 = dp.kpage_truth(start, end, memcg_path)
        stack.wait_samples('count_over_time(damon_samples_per_window[%ds])'
                           % WINDOWS, WINDOWS - 2)
        truth1 = dp.kpage_truth(start, end, memcg_path)
        means = {label: stack.value(
            'sum(avg_over_time(damon_probe_bytes{filters="%s"}[%ds]))' %
            (label, WINDOWS)) for _, label in PROBES}
        # the last window: stop the tool, let prometheus scrape its last file
        stack.stop_metrics()
        time.sleep(3)
        regions = dp.read_tried_regions()
        truths = dp.kpage_scan([(r.start, r.end) for r in regions],
                               memcg_path)
        last = {}
        for q in ('damon_probe_bytes', 'damon_probe_bytes_stderr'):
            for lab, v in stack.query(q):
                last[(q, lab['filters'], lab['band'])] = v
        hot_anon = ('sum by (instance) (damon_probe_bytes'
                    '{filters="allow anon",band="hot"})')
        cold_memcg = ('sum by (instance) (damon_probe_bytes'
                      '{filters="allow memcg /%s",band="cold"})' % MEMCG)
        answers = [(q, stack.value(q)) for q in (hot_anon, cold_memcg)]
    finally:
        if stack:
            stack.stop()
        dp.stop()
        for w in wls:
            w.stop()
        dp.remove_memcg(MEMCG)

    band_truth = {(k, b): 0 for k, _ in PROBES for b in BANDS}
    for r, t in zip(regions, truths):
        for k, _ in PROBES:
            band_truth[(k, dp.band_of(r.nr_accesses, MAX_HITS))] += t[k]
    print()
    print('The last window (%d regions, %d samples each), instant PromQL '
          'answers next to the truth of the same regions:' %
          (len(regions), MAX_HITS))
    for (q, v), (k, b) in zip(answers, (('anon', 'hot'), ('memcg', 'cold'))):
        print('  %s\n    = %.1f MiB   (truth %.1f MiB)' %
              (q, mib(v), mib(band_truth[(k, b)])))
    print()
    print('%-38s %-5s %20s %10s' % ('filters', 'band', 'est +- stderr MiB',
                                    'true MiB'))
    for k, label in PROBES:
        for b in BANDS:
            print('%-38s %-5s %11.1f +- %5.1f %10.1f' % (
                label, b, mib(last[('damon_probe_bytes', label, b)]),
                mib(last[('damon_probe_bytes_stderr', label, b)]),
                mib(band_truth[(k, b)])))
    print()
    print('The mean of %d s of scrapes, all bands, next to the truth of the '
          'whole monitored range (%.0f MiB):' % (WINDOWS, mib(end - start)))
    for k, label in PROBES:
        q = 'sum(avg_over_time(damon_probe_bytes{filters="%s"}[%ds]))' % (
            label, WINDOWS)
        truth = (truth0[k] + truth1[k]) / 2
        print('  %s\n    = %.1f MiB   (truth %.1f MiB, error %.1f%%)' % (
            q, mib(means[label]), mib(truth),
            dp.rel_err(means[label], truth) * 100))
    print()
    print('legend: band by nr_accesses (hot >= %d of %d samples, cold = 0); '
          'true = LRU pages with the attribute (/proc/kpageflags, '
          '/proc/kpagecgroup)' % ((MAX_HITS + 1) // 2, MAX_HITS))
    print('demo ran %.0f s in the guest' % (time.time() - t0))


main()
