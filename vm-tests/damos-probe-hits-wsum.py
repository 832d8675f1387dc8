#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The probe_hits_wsum DAMOS filter acts exactly on the regions whose
weighted data probe hit sum is in its range, as the tried regions show it.

Workload: attr-workload --cold-anon ANON_MIB --cold-file FILE_MIB (a tmpfs
file, not anonymous), monitored by a vaddr context in attributes-only mode
with two probes: P0 [allow anon] of weight 2 and P1 (no filter: every
sample hits) of weight 1.  With S = aggr/sample = 20 samples per window, a
region's weighted sum is 2 * h0 + 20, 20 for file-backed memory and 60 for
anonymous memory; the range [LO, HI] = [50, 60] selects the regions where
at least 15 of 20 samples found an anonymous page.

Part 1, five 'stat' schemes, all applied in the same pass:

  0: no filter              every region
  1: allow probe_hits_wsum  [LO, HI]
  2: reject non wsum        [LO, HI]   (matching=N allow=N): same as 1
  3: reject wsum            [LO, HI]   the complement
  4: allow non wsum         [LO, HI]   (matching=N allow=Y): same as 3

For ROUNDS updates of the tried regions, the wsum of each region of scheme
0 is computed from its probes/<P>/hits files; schemes 1 and 2 must have
exactly the regions in range (same start and end) and schemes 3 and 4
exactly the others, with total_bytes equal to the sum of their sizes.  The
in-range regions must cover at least COVER of the anonymous area and at
most 1 - COVER of the file area, on average over the rounds.
Over the same time, the growth of sz_tried of scheme 1 divided by that of
scheme 0 must be within RATIO_TOL of the mean in-range size fraction of
scheme 0's snapshots.

Part 2, a real action: swap on /dev/ram0 and a 'pageout' scheme with
"allow probe_hits_wsum LO HI", first applied after WARMUP_S: at least
SWAPPED of the anonymous area is swapped out and at least KEPT of the file
area is still mapped (pagemap bits 62 and 63).
"""

import time

import damon_probes as dp

ANON_MIB, FILE_MIB = 16, 16
SAMPLE_US, AGGR_US = 5000, 100000
S = AGGR_US // SAMPLE_US
WEIGHTS = (2, 1)
LO, HI = 50, 60
ROUNDS = 8
RATIO_TOL = 0.10
WARMUP_S = 3
SWAPPED, KEPT = 0.90, 0.90
COVER = 0.90
TIMEOUT_S = 60
SWAP_DEV = '/dev/ram0'
U64_MAX = 2**64 - 1
U32_MAX = 2**32 - 1

# (matching, allow) of the filter of schemes 1-4; None: no filter
VARIANTS = [None, (True, True), (False, False), (True, False), (False, True)]


def probes():
    return [{'weight': WEIGHTS[0], 'filters': [dp.probe_filter('anon')]},
            {'weight': WEIGHTS[1], 'filters': []}]


def write_scheme(i, action, variant, apply_us=0):
    sdir = '%s/schemes/%d' % (dp.CTX, i)
    dp.write(sdir + '/action', action)
    dp.write(sdir + '/apply_interval_us', apply_us)
    dp.write(sdir + '/access_pattern/sz/max', U64_MAX)
    dp.write(sdir + '/access_pattern/nr_accesses/max', U32_MAX)
    dp.write(sdir + '/access_pattern/age/max', U32_MAX)
    fdir = sdir + '/filters'
    dp.write(fdir + '/nr_filters', 0 if variant is None else 1)
    if variant is None:
        return
    dp.write(fdir + '/0/type', 'probe_hits_wsum')
    dp.write(fdir + '/0/min', LO)
    dp.write(fdir + '/0/max', HI)
    dp.write(fdir + '/0/matching', 'Y' if variant[0] else 'N')
    dp.write(fdir + '/0/allow', 'Y' if variant[1] else 'N')


def wsum(r):
    return sum(w * h for w, h in zip(WEIGHTS, r.hits))


def span(regions):
    return sum(r.end - r.start for r in regions)


def stat(i, name):
    return int(dp.read('%s/schemes/%d/stats/%s' % (dp.CTX, i, name)))


def overlap(regions, area):
    return sum(max(0, min(r.end, area.end) - max(r.start, area.start))
               for r in regions)


def one_round(errors, cover, areas):
    """Update the tried regions once; check every scheme's set against
    scheme 0's; returns (in-range bytes, all bytes) of scheme 0, and adds
    the in-range bytes of each area to cover."""
    dp.state('update_schemes_tried_regions')
    tried = [dp.read_tried_regions(scheme=i) for i in range(len(VARIANTS))]
    base = tried[0]
    if not base:
        errors.append('scheme 0 tried no region')
        return 0, 0
    for r in base:
        if len(r.hits) != 2 or r.hits[1] != S or r.nr_accesses != 0:
            errors.append('region %x-%x: hits %s nr_accesses %d' %
                          (r.start, r.end, r.hits, r.nr_accesses))
    inside = [r for r in base if LO <= wsum(r) <= HI]
    outside = [r for r in base if not LO <= wsum(r) <= HI]
    for name, area in areas.items():
        cover[name] = cover.get(name, 0) + overlap(inside, area)
    for i, v in enumerate(VARIANTS[1:], 1):
        want = inside if v[0] == v[1] else outside
        got = tried[i]
        if [(r.start, r.end, r.hits) for r in got] != \
                [(r.start, r.end, r.hits) for r in want]:
            errors.append('scheme %d (matching=%s allow=%s): %d regions, '
                          'want %d; first differences %s' %
                          (i, v[0], v[1], len(got), len(want),
                           sorted(set((r.start, r.end) for r in got) ^
                                  set((r.start, r.end) for r in want))[:4]))
        total = int(dp.read(dp.tried_regions_dir(scheme=i) + '/total_bytes'))
        if total != span(want):
            errors.append('scheme %d total_bytes %d, want %d' %
                          (i, total, span(want)))
    return span(inside), span(base)


def part_stat(wl):
    dp.setup('vaddr', pid=wl.pid, sample_us=SAMPLE_US, aggr_us=AGGR_US,
             min_nr=10, max_nr=1000, probes=probes(), stat_scheme=False)
    dp.write(dp.CTX + '/schemes/nr_schemes', len(VARIANTS))
    for i, v in enumerate(VARIANTS):
        write_scheme(i, 'stat', v)
    dp.state('on')
    time.sleep(WARMUP_S)

    errors, fracs, cover = [], [], {}
    areas = {k: wl.areas[k] for k in ('cold-anon', 'cold-file')}
    dp.state('update_schemes_stats')
    tried0 = [stat(0, 'sz_tried'), stat(1, 'sz_tried')]
    nr_in = nr_out = 0
    for _ in range(ROUNDS):
        inside, total = one_round(errors, cover, areas)
        if total:
            fracs.append(inside / total)
        nr_in += inside > 0
        nr_out += inside < total
        time.sleep(0.5)
    dp.state('update_schemes_stats')
    tried1 = [stat(0, 'sz_tried'), stat(1, 'sz_tried')]
    dp.stop()
    dp.check_errors(errors)
    dp.check(nr_in and nr_out, 'in-range regions in %d rounds, others in %d: '
             'the workload gives no contrast' % (nr_in, nr_out))

    ratio = (tried1[1] - tried0[1]) / (tried1[0] - tried0[0])
    mean = sum(fracs) / len(fracs)
    anon = cover['cold-anon'] / ROUNDS / areas['cold-anon'].size
    fil = cover['cold-file'] / ROUNDS / areas['cold-file'].size
    dp.log('tried regions: %d rounds, in-range fraction %.4f..%.4f (mean '
           '%.4f) of %.1f MiB; sz_tried growth ratio of the allow scheme '
           '%.4f; in range: %.1f%% of the anonymous area, %.1f%% of the file '
           'area' % (len(fracs), min(fracs), max(fracs), mean,
                     total / dp.MIB, ratio, anon * 100, fil * 100))
    dp.check(anon >= COVER and fil <= 1 - COVER,
             'in-range regions cover %.1f%% of the anonymous area and %.1f%% '
             'of the file area' % (anon * 100, fil * 100))
    dp.check(abs(ratio - mean) <= RATIO_TOL * mean,
             'sz_tried ratio %.3f is not within %.0f%% of %.3f' %
             (ratio, RATIO_TOL * 100, mean))


def pagemap_state(pid, area):
    """(present pages, swapped pages) of an area of process pid."""
    ents = dp.pagemap_entries(pid, area.start, area.end)
    return (sum(1 for e in ents if e >> 63 & 1),
            sum(1 for e in ents if e >> 62 & 1))


def part_pageout(wl):
    with dp.ram_swap(SWAP_DEV):
        try:
            dp.setup('vaddr', pid=wl.pid, sample_us=SAMPLE_US,
                     aggr_us=AGGR_US, min_nr=10, max_nr=1000,
                     probes=probes(), stat_scheme=False)
            dp.write(dp.CTX + '/schemes/nr_schemes', 1)
            write_scheme(0, 'pageout', (True, True), WARMUP_S * 1000000)
            anon = wl.areas['cold-anon']
            anon_pages = ANON_MIB * dp.MIB // dp.PAGE
            fil = wl.areas['cold-file']
            file_pages = FILE_MIB * dp.MIB // dp.PAGE
            dp.state('on')
            deadline = time.time() + TIMEOUT_S
            while time.time() < deadline:
                time.sleep(2)
                if pagemap_state(wl.pid, anon)[1] >= anon_pages * SWAPPED:
                    break
            # one more apply interval, for anything it would do to the file
            time.sleep(WARMUP_S)
            dp.state('update_schemes_stats')
            applied = stat(0, 'sz_applied')
            dp.stop()
            a_present, a_swapped = pagemap_state(wl.pid, anon)
            f_present, f_swapped = pagemap_state(wl.pid, fil)
            dp.log('pageout of wsum [%d, %d]: anon area %d of %d pages '
                   'swapped out (%d present); file area %d of %d pages '
                   'present (%d swapped); sz_applied %d' %
                   (LO, HI, a_swapped, anon_pages, a_present, f_present,
                    file_pages, f_swapped, applied))
            dp.check(a_swapped >= anon_pages * SWAPPED,
                     'only %d of %d anonymous pages swapped out' %
                     (a_swapped, anon_pages))
            dp.check(f_present >= file_pages * KEPT,
                     'only %d of %d file pages left mapped' %
                     (f_present, file_pages))
        finally:
            dp.cleanup()


def test():
    wl = dp.Workload('--cold-anon', ANON_MIB, '--cold-file', FILE_MIB)
    try:
        part_stat(wl)
        part_pageout(wl)
    finally:
        wl.stop()


if __name__ == '__main__':
    dp.main(test)
