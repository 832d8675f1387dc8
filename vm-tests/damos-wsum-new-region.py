#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""A probe_hits_wsum DAMOS filter does not take the zero counts of a region
that appeared while kdamond runs for a measurement.

A paddr context monitors range A (RANGE_MIB of the biggest System RAM
range) in attributes-only mode with one probe without filters, weight 1:
each sample hits, so every region that has seen a whole aggregation
interval has a weighted sum of exactly S = aggr/sample.  Two 'stat'
schemes are applied every APPLY_US, a tenth of the aggregation interval:

  0: allow probe_hits_wsum [0, 2]   "regions the probe barely hit": none
  1: allow probe_hits_wsum [S, S]   every region with a whole window

A 'commit' then adds range B, a disjoint range of the same size.  Its
regions start with zero counts, and the apply passes of the window that
they appear in (and of the next one, whose counts cover only a part of
that window for them) must keep the action off them.  Checked, over
ROUNDS commits that each add B or take it away again: scheme 0 never tries
a byte (sz_tried stays 0), while scheme 1 tries A from the start and, once
B has had a whole window, B too (its tried regions cover A and B).
"""

import time

import damon_probes as dp

RANGE_MIB = 64
SAMPLE_US, AGGR_US = 5000, 100000
APPLY_US = AGGR_US // 10
S = AGGR_US // SAMPLE_US
ROUNDS = 6
SETTLE_S = 2
TIMEOUT_S = 30


def ranges():
    start, end = dp.biggest_system_ram()
    size = RANGE_MIB * dp.MIB
    dp.check(end - start >= 3 * size, 'System RAM range too small')
    a = (start, start + size)
    b = (start + 2 * size, start + 3 * size)
    return a, b


def write_targets(regions):
    tdir = dp.CTX + '/targets/0/regions'
    dp.write(tdir + '/nr_regions', len(regions))
    for i, (s, e) in enumerate(regions):
        dp.write('%s/%d/start' % (tdir, i), s)
        dp.write('%s/%d/end' % (tdir, i), e)


def write_scheme(i, lo, hi):
    sdir = '%s/schemes/%d' % (dp.CTX, i)
    dp.write(sdir + '/action', 'stat')
    dp.write(sdir + '/apply_interval_us', APPLY_US)
    dp.write(sdir + '/access_pattern/sz/max', 2**64 - 1)
    dp.write(sdir + '/access_pattern/nr_accesses/max', 2**32 - 1)
    dp.write(sdir + '/access_pattern/age/max', 2**32 - 1)
    fdir = sdir + '/filters'
    dp.write(fdir + '/nr_filters', 1)
    dp.write(fdir + '/0/type', 'probe_hits_wsum')
    dp.write(fdir + '/0/matching', 'Y')
    dp.write(fdir + '/0/allow', 'Y')
    dp.write(fdir + '/0/min', lo)
    dp.write(fdir + '/0/max', hi)


def sz_tried(i):
    dp.state('update_schemes_stats')
    return int(dp.read('%s/schemes/%d/stats/sz_tried' % (dp.CTX, i)))


def covered(regions, rng):
    """Bytes of rng that the tried regions cover."""
    return sum(max(0, min(r.end, rng[1]) - max(r.start, rng[0]))
               for r in regions)


def wait_covers(scheme, rngs, what):
    """Poll scheme's tried regions until they cover every range of rngs."""
    deadline = time.time() + TIMEOUT_S
    while True:
        dp.state('update_schemes_tried_regions')
        regions = dp.read_tried_regions(scheme=scheme)
        cov = [covered(regions, r) for r in rngs]
        if all(c == r[1] - r[0] for c, r in zip(cov, rngs)):
            return
        dp.check(time.time() < deadline, '%s: scheme %d tried regions cover '
                 '%s of %s bytes' % (what, scheme, cov,
                                     [r[1] - r[0] for r in rngs]))
        time.sleep(AGGR_US / 1e6)


def test():
    a, b = ranges()
    dp.setup('paddr', sample_us=SAMPLE_US, aggr_us=AGGR_US, min_nr=10,
             max_nr=1000, probes=[{'weight': 1, 'filters': []}],
             stat_scheme=False, regions=[a])
    dp.write(dp.CTX + '/schemes/nr_schemes', 2)
    write_scheme(0, 0, 2)
    write_scheme(1, S, S)
    dp.state('on')
    wait_covers(1, [a], 'after on')
    dp.check(sz_tried(0) == 0, 'scheme 0 tried %d bytes after on'
             % sz_tried(0))

    for i in range(ROUNDS):
        grow = i % 2 == 0
        write_targets([a, b] if grow else [a])
        dp.state('commit')
        time.sleep(SETTLE_S)
        tried = sz_tried(0)
        dp.check(tried == 0, 'commit %d (%s range B): scheme 0, allow '
                 'probe_hits_wsum [0, 2], tried %d bytes: zero counts of '
                 'regions without a whole window were taken for hits'
                 % (i, 'adding' if grow else 'removing', tried))
        wait_covers(1, [a, b] if grow else [a], 'commit %d' % i)
    tried1 = sz_tried(1)
    dp.check(tried1 > 0, 'scheme 1 tried nothing')
    dp.log('%d commits adding or removing a %d MiB range: scheme 0 tried 0 '
           'bytes, scheme 1 %d MiB, covering the added range each time'
           % (ROUNDS, RANGE_MIB, tried1 // dp.MIB))


if __name__ == '__main__':
    dp.main(test)
