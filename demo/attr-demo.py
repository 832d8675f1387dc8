#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The main job, run inside the guest: start a workload with a known layout,
monitor the physical address space with data probes, and print how much of
the hot, warm and cold memory is anonymous, belongs to the memcg /demo and
is backed by 2 MiB huge pages, each estimate with its standard error,
next to the ground truth; then one line "DEMO-RECORD <json>" with every
region of every window and its truth, which scripts/run-demo.sh keeps off
the screen, saves as build/demo/record.json and draws with demo/plot.py.

Environment (all optional): WINDOWS (aggregation windows to average, 20),
SAMPLE_US (5000), AGGR_US (100000), PROBES (comma-separated subset of
"anon,memcg,thp"; default all three).
"""
import json
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
BANDS = dp.BANDS
RECORD_PREFIX = 'DEMO-RECORD '


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
        truths = dp.kpage_scan(ranges, memcg_path)
    finally:
        for w in wls:
            w.stop()
        dp.remove_memcg(MEMCG)
    if len(windows) < WINDOWS:
        sys.exit('only %d complete windows were traced' % len(windows))
    elapsed = time.time() - t0
    report(windows, truths, names, elapsed)
    rec = make_record(windows, truths, names, elapsed)
    print(RECORD_PREFIX + json.dumps(rec, separators=(',', ':')), flush=True)


def summarize(windows, truths, probes=None, max_hits=None):
    """Per band (BANDS) the mean number of regions and bytes per window,
    and per probe the mean estimate over the windows with its standard
    error and the mean truth: {band: {'regions', 'total', 'est': [..],
    'se': [..], 'truth': [..]}}, in bytes (damon_probes.band_summary()).
    truths are kpage_scan()'s dicts, one per region of every window in
    order."""
    probes = PROBES if probes is None else probes
    max_hits = MAX_HITS if max_hits is None else max_hits
    regions = (r for win in windows for r in win)
    summ = dp.band_summary(((r.end - r.start, r.nr_accesses, r.hits,
                             [t[TRUTH_KEY[p]] for p in probes])
                            for r, t in zip(regions, truths)),
                           max_hits, len(windows), len(probes))
    return {b: {'regions': a['regions'], 'total': a['total'],
                'est': [e for e, _, _ in a['probes']],
                'se': [se for _, se, _ in a['probes']],
                'truth': [t for _, _, t in a['probes']]}
            for b, a in summ.items()}


def fmt_z(est, truth, se):
    """The z column: (est - truth) / se, how many standard errors the
    estimate is off the truth, in at most 4 characters up to |z| < 1000
    ('+2.5', '-12', '+1e+03'); '-' when se is 0 and est == truth, '+inf'
    or '-inf' when se is 0 and they differ."""
    if se == 0:
        if est == truth:
            return '-'
        return '+inf' if est > truth else '-inf'
    z = (est - truth) / se
    if abs(round(z, 1)) < 10:
        return '%+.1f' % z
    return '%+.0f' % z if abs(round(z)) < 1000 else '%+.0e' % z


def fmt_err(est, truth):
    """The err column: |est - truth| / truth in percent ('2.3%', '17%'),
    '-' where the truth is under 1 (MiB, as the table has them)."""
    if truth < 1:
        return '-'
    e = abs(est - truth) / truth * 100
    return '%.1f%%' % e if e < 9.95 else '%.0f%%' % e


def report(windows, truths, names, elapsed, probes=None, max_hits=None):
    """Print the table: per band the mean regions and MiB per window, and
    per probe the mean estimate with its standard error, the truth, z and
    the relative error (106 columns with three probes)."""
    probes = PROBES if probes is None else probes
    max_hits = MAX_HITS if max_hits is None else max_hits
    summ = summarize(windows, truths, probes, max_hits)
    n = len(windows)
    print()
    print('Hot/cold memory by data attribute: paddr, %d windows of %d ms, '
          '%d samples per window' % (n, AGGR_US // 1000, max_hits))
    # band regions total | per probe: est±se true z err
    head = '%-4s %7s %6s' % ('band', 'regions', 'total')
    sub = '%-4s %7s %6s' % ('', '', 'MiB')
    for name in names:
        head += ' | %-26s' % name[:26]
        sub += ' | %10s %5s %4s %4s' % ('est±se MiB', 'true', 'z', 'err')
    print(head.rstrip())
    print(sub)
    print('-' * len(sub))
    for b in BANDS:
        a = summ[b]
        line = '%-4s %7.1f %6.0f' % (b, a['regions'], a['total'] / dp.MIB)
        for i in range(len(probes)):
            est, se = a['est'][i] / dp.MIB, a['se'][i] / dp.MIB
            truth = a['truth'][i] / dp.MIB
            line += ' | %5.1f±%-4.1f %5.1f %4s %4s' % (
                est, se, truth, fmt_z(est, truth, se), fmt_err(est, truth))
        print(line)
    print('-' * len(sub))
    print('legend: band by nr_accesses (hot >= %d of m = %d samples, cold = '
          '0); MiB per window,' % ((max_hits + 1) // 2, max_hits))
    print('  the mean of n = %d windows; est±se = sum(region size x p), '
          'p = hits / m, and its' % n)
    print('  standard error from the sampling (binomial hits): '
          'sqrt(sum(size^2 q (1-q) / m)) / n,')
    print('  q = (hits + 1/2) / (m + 1) (bench/results/accuracy.md); true '
          '= LRU pages with the attribute in the same')
    print('  regions (/proc/kpageflags, /proc/kpagecgroup); z = (est - '
          'true) / se: |z| <= 2-3 is')
    print('  sampling noise, "inf": se = 0 and est != true; err = '
          '|est - true| / true ("-": true < 1 MiB)')
    print('demo ran %.0f s in the guest' % elapsed)


def make_record(windows, truths, names, elapsed, probes=None,
                max_hits=None):
    """What demo/plot.py draws, as one JSON-able dict: the settings, and
    per window per region [start, end, nr_accesses, [hits per probe],
    [truth bytes per probe]] (record['region_fields'])."""
    probes = PROBES if probes is None else probes
    truths = iter(truths)
    regions = []
    for win in windows:
        rw = []
        for r in win:
            t = next(truths)
            rw.append([r.start, r.end, r.nr_accesses, list(r.hits),
                       [t[TRUTH_KEY[p]] for p in probes]])
        regions.append(rw)
    return {
        'format': 'damon-attr-demo-record 1',
        'ops': 'paddr',
        'kernel': os.uname().release,
        'sample_us': SAMPLE_US, 'aggr_us': AGGR_US,
        'max_hits': MAX_HITS if max_hits is None else max_hits,
        'windows': len(windows),
        'probes': list(names), 'probe_keys': list(probes),
        'truth': 'bytes of LRU pages with the attribute '
                 '(/proc/kpageflags, /proc/kpagecgroup), read after '
                 'the last window',
        'elapsed_s': round(elapsed, 1),
        'region_fields': ['start', 'end', 'nr_accesses', 'hits', 'truth'],
        'regions': regions,
    }


if __name__ == '__main__':
    main()
