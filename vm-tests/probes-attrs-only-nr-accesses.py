#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""In attributes-only monitoring (a probe with a non-zero weight) no access
is checked and nr_accesses is 0 wherever it is read, also right after a
'commit' turned the weights on under a context that had found hot regions.

Layout: a workload keeps HOT_MIB of anonymous memory hot.  DAMON monitors
the biggest System RAM range (paddr) in exactly NR_REGIONS regions
(min_nr_regions == max_nr_regions: the regions can neither be split nor
merged, so a region keeps whatever it holds) with one probe 'allow anon' and
two stat schemes: 0 targets nr_accesses 0..0, 1 everything (the control: it
tries every region of the context).  Both take any size and age.

1. Weight 0 (access monitoring) until the control scheme tries a region
   with nr_accesses >= 1: the regions that the commit finds are hot.
2. Weight 1, 'commit'.  Then READS times over more than three aggregation
   intervals, update_schemes_tried_regions: the control scheme's tried
   regions cover the monitored range, and scheme 0 tried exactly the same
   regions (same count, same ranges, total_bytes == the range) and every
   tried region of both reads nr_accesses 0.  The damon:damon_aggregated
   events of every window after a trace marker written when the commit
   returned show nr_accesses 0.
3. The same from 'on' with weight 1.
"""
import re
import time

import damon_probes as dp

SAMPLE_US, AGGR_US = 5000, 100000
AGGR_S = AGGR_US / 1e6
NR_REGIONS = 16
HOT_MIB = 256
READS = 4
READ_GAP_S = 4 * AGGR_S        # READS reads span >= 12 aggregation intervals
HOT_TIMEOUT_S = 30
U32_MAX, U64_MAX = 2**32 - 1, 2**64 - 1

AGG_EVENT = dp.TRACING + '/events/damon/damon_aggregated'
AGG_RE = re.compile(r'damon_aggregated: target_id=(\d+) nr_regions=(\d+) '
                    r'(\d+)-(\d+): (\d+) (\d+)$')
MARK = 'probes-attrs-only-nr-accesses:'


def setup_schemes():
    """Scheme 0: stat, nr_accesses 0..0; scheme 1: stat, everything."""
    sdir = dp.CTX + '/schemes'
    dp.write(sdir + '/nr_schemes', 2)
    for i, max_acc in ((0, 0), (1, U32_MAX)):
        d = '%s/%d' % (sdir, i)
        dp.write(d + '/action', 'stat')
        for key, lo, hi in (('sz', 0, U64_MAX), ('nr_accesses', 0, max_acc),
                            ('age', 0, U32_MAX)):
            dp.write('%s/access_pattern/%s/min' % (d, key), lo)
            dp.write('%s/access_pattern/%s/max' % (d, key), hi)


def set_weight(weight):
    dp.write(dp.CTX + '/monitoring_attrs/probes/0/weight', weight)


def tried():
    """update_schemes_tried_regions; the tried regions of schemes 0 and 1
    and scheme 0's total_bytes."""
    dp.state('update_schemes_tried_regions')
    zero = dp.read_tried_regions(scheme=0)
    every = dp.read_tried_regions(scheme=1)
    total0 = int(dp.read(dp.tried_regions_dir(scheme=0) + '/total_bytes'))
    return zero, every, total0


def fmt(r):
    return '%x-%x (%.0f MiB) nr_accesses %d' % (
        r.start, r.end, (r.end - r.start) / dp.MIB, r.nr_accesses)


def check_tried(tag, rng, errors):
    """One read of the tried regions: coverage and nr_accesses (see the
    top comment).  Appends what is wrong to errors."""
    zero, every, total0 = tried()
    start, end = rng
    ranges = [(r.start, r.end) for r in every]
    contiguous = all(a[1] == b[0] for a, b in zip(ranges, ranges[1:]))
    if not (ranges and contiguous and ranges[0][0] == start and
            ranges[-1][1] == end and len(ranges) == NR_REGIONS):
        errors.append('%s: the control scheme tried %d regions %s, not %d '
                      'regions covering %x-%x' % (tag, len(ranges), ranges,
                                                  NR_REGIONS, start, end))
    zranges = [(r.start, r.end) for r in zero]
    missing = [r for r in every if (r.start, r.end) not in zranges]
    size0 = sum(e - s for s, e in zranges)
    dp.log('%s: nr_accesses 0..0 tried %d of %d regions, %.1f of %.1f MiB '
           '(total_bytes %.1f MiB); nr_accesses of all: %s' %
           (tag, len(zero), len(every), size0 / dp.MIB,
            (end - start) / dp.MIB, total0 / dp.MIB,
            [r.nr_accesses for r in every]))
    if zranges != ranges or total0 != end - start:
        errors.append('%s: scheme nr_accesses 0..0 tried %d of %d regions '
                      '(%.1f of %.1f MiB, total_bytes %d); not tried: %s' %
                      (tag, len(zero), len(every), size0 / dp.MIB,
                       (end - start) / dp.MIB, total0,
                       ', '.join(fmt(r) for r in missing)))
    nonzero = [r for r in zero + every if r.nr_accesses]
    if nonzero:
        errors.append('%s: tried regions with nr_accesses != 0: %s' %
                      (tag, ', '.join(fmt(r) for r in nonzero)))


def trace_begin():
    dp.write(dp.TRACING + '/tracing_on', 0)
    dp.write(dp.TRACING + '/buffer_size_kb', 4096)
    dp.write(dp.TRACING + '/trace', '')
    dp.write(AGG_EVENT + '/enable', 1)
    dp.write(dp.TRACING + '/tracing_on', 1)


def trace_mark(text):
    dp.write(dp.TRACING + '/trace_marker', MARK + ' ' + text)


def trace_end():
    dp.write(dp.TRACING + '/tracing_on', 0)
    dp.write(AGG_EVENT + '/enable', 0)
    text = dp.read(dp.TRACING + '/trace')
    dp.write(dp.TRACING + '/trace', '')
    return text


def windows_after(text, mark):
    """The damon_aggregated windows after the trace marker line containing
    mark: lists of (start, end, nr_accesses, nr_regions), a new window
    where the address order restarts; a window cut by the end of tracing is
    dropped, one cut by the marker is kept (all its events are after it)."""
    lines = text.splitlines()
    idx = [i for i, line in enumerate(lines) if MARK + ' ' + mark in line]
    dp.check(idx, 'trace marker %r not found' % mark)
    wins, cur = [], []
    for line in lines[idx[0] + 1:]:
        m = AGG_RE.search(line.rstrip())
        if not m:
            continue
        _, nr, s, e, acc, _ = (int(x) for x in m.groups())
        if cur and s <= cur[-1][0]:
            wins.append(cur)
            cur = []
        cur.append((s, e, acc, nr))
    if cur and len(cur) == cur[0][3]:
        wins.append(cur)
    return wins


def check_trace(tag, text, mark, errors):
    wins = windows_after(text, mark)
    bad = [(w, '%x-%x: %d' % (s, e, acc)) for w, win in enumerate(wins)
           for s, e, acc, _ in win if acc]
    dp.log('%s: %d damon_aggregated windows after the marker, %d regions '
           'with nr_accesses != 0' % (tag, len(wins), len(bad)))
    if len(wins) < 3:
        errors.append('%s: only %d damon_aggregated windows after the '
                      'marker' % (tag, len(wins)))
    if bad:
        errors.append('%s: damon_aggregated shows nr_accesses != 0 after the '
                      'marker: %s' % (tag, ', '.join(
                          'window %d %s' % b for b in bad[:10])))


def wait_hot():
    """Wait until the control scheme sees a region with nr_accesses >= 1;
    returns that read's nr_accesses."""
    deadline = time.time() + HOT_TIMEOUT_S
    while time.time() < deadline:
        _, every, _ = tried()
        accs = [r.nr_accesses for r in every]
        if max(accs, default=0) >= 1:
            return accs
        time.sleep(2 * AGGR_S)
    raise dp.Fail('no region with nr_accesses >= 1 in %d s of %d MiB hot '
                  'memory' % (HOT_TIMEOUT_S, HOT_MIB))


def after_commit(rng, errors):
    dp.log('access mode: nr_accesses of the regions before the commit: %s' %
           wait_hot())
    trace_begin()
    set_weight(1)
    dp.state('commit')
    trace_mark('committed')
    for i in range(READS):
        if i:
            time.sleep(READ_GAP_S)
        check_tried('commit read %d' % i, rng, errors)
    check_trace('commit', trace_end(), 'committed', errors)


def from_on(rng, errors):
    trace_begin()
    dp.state('on')
    trace_mark('started')
    time.sleep(5 * AGGR_S)
    for i in range(READS):
        if i:
            time.sleep(READ_GAP_S)
        check_tried('on read %d' % i, rng, errors)
    check_trace('on', trace_end(), 'started', errors)


def test():
    wl = dp.Workload('--anon', HOT_MIB, '--hot')
    rng = dp.biggest_system_ram()
    errors = []
    try:
        dp.setup('paddr', sample_us=SAMPLE_US, aggr_us=AGGR_US,
                 min_nr=NR_REGIONS, max_nr=NR_REGIONS, stat_scheme=False,
                 regions=[rng],
                 probes=[{'filters': [dp.probe_filter('anon')]}])
        setup_schemes()
        dp.state('on')
        after_commit(rng, errors)
        dp.stop()
        # weight 1 is still set in the probe directory
        from_on(rng, errors)
        dp.stop()
    finally:
        wl.stop()
    dp.check_errors(errors)


dp.main(test)
