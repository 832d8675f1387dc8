#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Access as a data attribute: the page idle filters tell whether a sample
was accessed since it was marked idle, so that a probe finds hot memory as
access monitoring does.

Layout: one process keeps HOT_MIB of anonymous memory hot (one byte per page
written in a loop) and leaves COLD_MIB idle after writing it once.

1. Access monitoring (no weight), vaddr on the process and paddr on the
   biggest System RAM range, probes

     0: allow pgidle_unset                (DAMON's own marking only)
     1: prep set_pgidle; allow pgidle_unset
     2: allow pgidle_set

   Every damon_region_aggregated record of WINDOWS windows: probes 0 and 1
   count what nr_accesses counts.  Both start a window at 0 and take the
   same verdict of every sample, and only merges make them differ: a merge
   rounds nr_accesses' size-weighted average down and the hits' to the
   nearest, so the hits are never below nr_accesses and exceed it by less
   than 3/2 per merge the region took in the window (MERGE_DRIFT allows
   chains of three).  vaddr, in the records inside the workload's areas:
   probe 2 counts the rest of the samples, never more (within SLACK), and
   in all those records together at least COMPLEMENT_MIN of the samples
   are counted by probe 0 or probe 2.  Records fall short, one alone or a
   few together (0.943 of the samples over 20 records in 1 of about 20
   runs): a sample finds no page while migration has the page table entry
   cleared, a region that the operations' update created inside the window
   has fewer samples, and chained merges round the two counts apart.  A
   broken complement counts none or half.  vaddr must also see hot memory (hot
   bytes at least half the hot area), so that the equality is not 0 == 0.
2. Data attributes only, vaddr: probe 'prep set_pgidle; allow pgidle_unset'
   with weight 1, no access check.  The hot bytes it estimates (sum of size
   x hits / samples over the windows' regions) are within TOLERANCE of the
   hot area's size and of what access monitoring (part 1) estimated; the
   regions inside the cold area show at most COLD_MAX of it (a region
   reaching into it from the hot area, which the workload maps next to
   it, carries the hot area's hits over its part: DAMON's resolution, not
   the probe's; the log shows both).
"""
import damon_probes as dp

SAMPLE_US, AGGR_US = 5000, 100000
MAX_HITS = AGGR_US // SAMPLE_US
WINDOWS = 10
SLACK = 2
MERGE_DRIFT = 4
COMPLEMENT_MIN = 0.85
HOT_MIB, COLD_MIB = 16, 64
TOLERANCE = 0.10
COLD_MAX = 0.02

ACCESSED = dp.probe_filter('pgidle_unset')
PROBES_ACCESS = [
    {'filters': [ACCESSED]},
    {'preps': ['set_pgidle'], 'filters': [ACCESSED]},
    {'filters': [dp.probe_filter('pgidle_set')]},
]


def hot_bytes(window, area, probe=None, whole=False):
    """Bytes of the window's regions in area (start, end) estimated hot: by
    nr_accesses, or by the hits of probe; only regions wholly inside area
    if whole."""
    total = 0
    for r in window:
        ov = min(r.end, area.end) - max(r.start, area.start)
        if ov <= 0 or (whole and ov < r.end - r.start):
            continue
        n = r.nr_accesses if probe is None else r.hits[probe]
        total += ov * n / MAX_HITS
    return total


def access_mode(ops, wl):
    """Part 1 on ops; returns the mean hot bytes estimated by nr_accesses
    in the hot area (vaddr) or None (paddr)."""
    dp.setup(ops, pid=wl.pid if ops == 'vaddr' else None,
             sample_us=SAMPLE_US, aggr_us=AGGR_US, min_nr=10, max_nr=1000,
             probes=PROBES_ACCESS)
    dp.state('on')
    windows = dp.trace_windows(WINDOWS, AGGR_US, what=ops)
    dp.stop()
    bad = []
    drift = {}
    nr = hot = nr_inside = complement = short = 0
    for w, win in enumerate(windows):
        for r in win:
            nr += 1
            hot += r.nr_accesses > 0
            h = r.hits
            d = h[0] - r.nr_accesses
            drift[d] = drift.get(d, 0) + 1
            inside = ops == 'vaddr' and any(
                a.start <= r.start and r.end <= a.end
                for a in wl.areas.values())
            if inside:
                nr_inside += 1
                complement += h[0] + h[2]
                short += h[0] + h[2] < MAX_HITS - SLACK
            if (not 0 <= d <= MERGE_DRIFT or
                    not 0 <= h[1] - r.nr_accesses <= MERGE_DRIFT or
                    (inside and h[0] + h[2] > MAX_HITS + SLACK)):
                bad.append('window %d %x-%x nr_accesses %d hits %s' %
                           (w, r.start, r.end, r.nr_accesses, h))
    dp.log('%s access mode: %d records, %d with accesses, %d break the '
           'rules; records by probe 0 hits - nr_accesses: %s' %
           (ops, nr, hot, len(bad),
            ', '.join('%+d: %d' % (d, n) for d, n in sorted(drift.items()))))
    for b in bad[:10]:
        dp.log('  ', b)
    dp.check(not bad, '%s: page idle probes disagree with nr_accesses in %d '
             'of %d records' % (ops, len(bad), nr))
    if ops != 'vaddr':
        return None
    frac = complement / (nr_inside * MAX_HITS) if nr_inside else 0
    dp.log('vaddr: %d records inside the areas, probes 0 + 2 count %.3f of '
           'their samples, %d records short by more than %d' %
           (nr_inside, frac, short, SLACK))
    dp.check(frac >= COMPLEMENT_MIN, 'vaddr: probes 0 (accessed) and 2 (not '
             'accessed) count only %.3f of the samples inside the areas' %
             frac)
    area = wl.areas['anon']
    ests = [hot_bytes(win, area) for win in windows]
    est = sum(ests) / len(ests)
    dp.log('vaddr access mode: hot area %d MiB, nr_accesses estimate %.1f '
           'MiB' % (area.size / dp.MIB, est / dp.MIB))
    dp.check(est >= area.size / 2, 'access monitoring found only %.1f of %d '
             'hot MiB: the workload is not hot enough under this emulator' %
             (est / dp.MIB, area.size / dp.MIB))
    return est


def attrs_only(wl, preps):
    """Part 2: mean (hot area, cold area) estimates of the probe."""
    dp.setup('vaddr', pid=wl.pid, sample_us=SAMPLE_US, aggr_us=AGGR_US,
             min_nr=10, max_nr=1000, probes=[
                 {'weight': 1, 'preps': preps, 'filters': [ACCESSED]}])
    dp.state('on')
    windows = dp.trace_windows(WINDOWS, AGGR_US)
    dp.stop()
    for win in windows:
        for r in win:
            dp.check(r.nr_accesses == 0, 'attributes-only record %x-%x has '
                     'nr_accesses %d' % (r.start, r.end, r.nr_accesses))
    hot = [hot_bytes(win, wl.areas['anon'], 0) for win in windows]
    cold = [hot_bytes(win, wl.areas['cold-anon'], 0, whole=True)
            for win in windows]
    edge = [hot_bytes(win, wl.areas['cold-anon'], 0) for win in windows]
    dp.log('attributes only: cold area estimate %.2f MiB from the regions '
           'inside it, %.2f MiB with those reaching over its edges' %
           (sum(cold) / len(cold) / dp.MIB, sum(edge) / len(edge) / dp.MIB))
    return sum(hot) / len(hot), sum(cold) / len(cold)


def test():
    wl = dp.Workload('--anon', HOT_MIB, '--cold-anon', COLD_MIB, '--hot')
    try:
        run(wl)
    finally:
        wl.stop()


def run(wl):
    hot_sz = wl.areas['anon'].size
    cold_sz = wl.areas['cold-anon'].size
    acc_est = access_mode('vaddr', wl)
    access_mode('paddr', wl)

    hot, cold = attrs_only(wl, ['set_pgidle'])
    dp.log('attributes only, prep set_pgidle: hot area %.1f MiB found of %d '
           '(access monitoring: %.1f), cold area %.2f MiB of %d' %
           (hot / dp.MIB, hot_sz / dp.MIB, acc_est / dp.MIB, cold / dp.MIB,
            cold_sz / dp.MIB))
    dp.check(dp.rel_err(hot, hot_sz) <= TOLERANCE,
             'hot bytes %.1f MiB, truth %d MiB: error above %.0f%%' %
             (hot / dp.MIB, hot_sz / dp.MIB, TOLERANCE * 100))
    dp.check(dp.rel_err(hot, acc_est) <= TOLERANCE,
             'hot bytes %.1f MiB, access monitoring %.1f MiB: difference '
             'above %.0f%%' % (hot / dp.MIB, acc_est / dp.MIB,
                               TOLERANCE * 100))
    dp.check(cold <= COLD_MAX * cold_sz,
             'cold area: %.2f MiB found accessed, at most %.2f allowed' %
             (cold / dp.MIB, COLD_MAX * cold_sz / dp.MIB))


dp.main(test)
