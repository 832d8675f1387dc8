#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The data attributes monitoring RFC's names for the probe hits, kept for
scripts written against it, show exactly what the primary names show.

1. tried_regions/<R>/probe_hits (0400) reads four comma-separated counts,
   as the RFC defined it: probes/<P>/hits of the same region for the
   installed probes, 0 for the others, for 0, 1 and 4 probes.
2. damon:damon_aggregated_v2 has the format file of damon_region_aggregated
   but for its name and id.  With both enabled and probes installed, the
   v2 records are the region_aggregated records, line for line.
3. Without probes, damon_region_aggregated stays silent and v2 fires once
   per region per aggregation window, with an empty probe_hits= field: its
   records are the damon_aggregated records plus ' probe_hits='.
The id and a hash of damon_region_aggregated's format file are logged, to
compare kernels with and without the v2 event.
"""
import hashlib
import os
import re
import time

import damon_probes as dp

EVENTS = dp.TRACING + '/events/damon'
AGG, RAGG, V2 = 'damon_aggregated', 'damon_region_aggregated', \
    'damon_aggregated_v2'
LINE_RE = re.compile(r' (damon_aggregated|damon_region_aggregated|'
                     r'damon_aggregated_v2): (.*)$')
# target_id=%lu nr_regions=%u %lu-%lu: ...
WIN_RE = re.compile(r'^target_id=(\d+) nr_regions=(\d+) (\d+)-')
MAX_PROBES = 4  # DAMON_MAX_PROBES: probe_hits always has this many counts

PROBES = [{'filters': [dp.probe_filter('anon')]},
          {},
          {'filters': [dp.probe_filter('anon', allow=False)]},
          {'filters': [dp.probe_filter('anon', matching=False)]}]


def format_body(event):
    """The event's format file without its name and id lines."""
    text = dp.read('%s/%s/format' % (EVENTS, event))
    return '\n'.join(line for line in text.splitlines()
                     if not line.startswith(('name:', 'ID:')))


def trace(events, seconds):
    """Trace the events over a whole run of kdamond 0 (on, seconds, off),
    so that no window is cut; returns {event: [payload, ...]} in order."""
    dp.write(dp.TRACING + '/tracing_on', 0)
    dp.write(dp.TRACING + '/buffer_size_kb', 16384)
    dp.write(dp.TRACING + '/trace', '')
    for ev in events:
        dp.write('%s/%s/enable' % (EVENTS, ev), 1)
    dp.write(dp.TRACING + '/tracing_on', 1)
    dp.state('on')
    time.sleep(seconds)
    dp.stop()
    dp.write(dp.TRACING + '/tracing_on', 0)
    for ev in events:
        dp.write('%s/%s/enable' % (EVENTS, ev), 0)
    with open(dp.TRACING + '/trace') as f:
        text = f.read()
    dp.write(dp.TRACING + '/trace', '')
    out = {AGG: [], RAGG: [], V2: []}
    for line in text.splitlines():
        m = LINE_RE.search(line)
        if m:
            out[m.group(1)].append(m.group(2))
    return out


def windows(payloads):
    """Split records into aggregation windows (the (target, start) order
    restarts); returns [(nr_regions of each record, count)] per window."""
    wins, last = [], None
    for p in payloads:
        m = WIN_RE.match(p)
        if not m:
            return None
        key = (int(m.group(1)), int(m.group(3)))
        if last is None or key <= last:
            wins.append([])
        wins[-1].append(int(m.group(2)))
        last = key
    return wins


def check_tried_regions(nr, errors):
    dp.setup('paddr', sample_us=5000, aggr_us=100000, probes=PROBES[:nr])
    dp.state('on')
    time.sleep(1.5)
    dp.state('update_schemes_tried_regions')
    d = dp.tried_regions_dir()
    names = dp._numbered(d)
    if not names:
        errors.append('%d probes: no tried region' % nr)
    sample = None
    for name in names:
        r = '%s/%s' % (d, name)
        if not os.path.exists(r + '/probe_hits'):
            errors.append('%d probes: no %s/probe_hits' % (nr, r))
            break
        mode = os.stat(r + '/probe_hits').st_mode & 0o777
        if mode != 0o400:
            errors.append('%s/probe_hits has mode %o, not 400' % (r, mode))
        with open(r + '/probe_hits') as f:
            raw = f.read()
        pdir = r + '/probes'
        probes = dp._numbered(pdir)
        if probes != [str(i) for i in range(nr)]:
            errors.append('%d probes: %s has %s' % (nr, pdir, probes))
        hits = [dp.read('%s/%s/hits' % (pdir, p)) for p in probes]
        want = ','.join(hits + ['0'] * (MAX_PROBES - len(hits))) + '\n'
        if raw != want:
            errors.append('%d probes: %s/probe_hits reads %r, the hits '
                          'files %r' % (nr, r, raw, want))
        sample = sample or raw.strip()
    dp.stop()
    dp.log('%d probe(s): probe_hits of %d tried regions equal the hits '
           'files (first %r)' % (nr, len(names), sample))


def test():
    errors = []
    rid = dp.read('%s/%s/id' % (EVENTS, RAGG))
    digest = hashlib.sha1(format_body(RAGG).encode()).hexdigest()[:12]
    dp.log('%s: id %s, format file (without name and id) sha1 %s' %
           (RAGG, rid, digest))

    for nr in (0, 1, 4):
        check_tried_regions(nr, errors)

    if not os.path.isdir('%s/%s' % (EVENTS, V2)):
        errors.append('no tracepoint damon:%s' % V2)
        dp.check_errors(errors)
    dp.log('%s: id %s' % (V2, dp.read('%s/%s/id' % (EVENTS, V2))))
    if format_body(V2) != format_body(RAGG):
        errors.append('the format files of %s and %s differ:\n%s\n%s' %
                      (V2, RAGG, format_body(V2), format_body(RAGG)))

    # probes installed: v2 == region_aggregated, record for record
    for nr in (1, 4):
        dp.setup('paddr', sample_us=5000, aggr_us=100000,
                 probes=PROBES[:nr])
        rec = trace([RAGG, V2], 2)
        if not rec[RAGG]:
            errors.append('%d probes: no %s record' % (nr, RAGG))
        if rec[V2] != rec[RAGG]:
            diff = next((i for i, (a, b) in
                         enumerate(zip(rec[V2], rec[RAGG])) if a != b),
                        min(len(rec[V2]), len(rec[RAGG])))
            errors.append('%d probes: %d %s and %d %s records differ from '
                          'record %d' % (nr, len(rec[V2]), V2,
                                         len(rec[RAGG]), RAGG, diff))
        dp.log('%d probe(s): %d %s records, %d %s records, equal: %s '
               '(first %r)' % (nr, len(rec[RAGG]), RAGG, len(rec[V2]), V2,
                               rec[V2] == rec[RAGG],
                               rec[V2][0] if rec[V2] else None))

    # no probe: only v2, one per region per window, empty probe_hits=
    dp.setup('paddr', sample_us=5000, aggr_us=100000, probes=[])
    rec = trace([AGG, RAGG, V2], 2)
    if rec[RAGG]:
        errors.append('no probes: %d %s records' % (len(rec[RAGG]), RAGG))
    want = [p + ' probe_hits=' for p in rec[AGG]]
    if not want:
        errors.append('no probes: no %s record' % AGG)
    if rec[V2] != want:
        errors.append('no probes: the %d %s records are not the %d %s '
                      'records plus " probe_hits=" (first %r)' %
                      (len(rec[V2]), V2, len(rec[AGG]), AGG,
                       rec[V2][0] if rec[V2] else None))
    wins = windows(rec[V2]) or []
    bad = [w for w in wins if any(n != len(w) for n in w)]
    if not wins or bad:
        errors.append('no probes: %d of %d %s windows do not hold one record '
                      'per region' % (len(bad), len(wins), V2))
    dp.log('no probe: %d %s, %d %s, %d %s records in %d windows of %s '
           'regions (first %r)' %
           (len(rec[AGG]), AGG, len(rec[RAGG]), RAGG, len(rec[V2]), V2,
            len(wins), sorted(set(len(w) for w in wins)),
            rec[V2][0] if rec[V2] else None))
    dp.check_errors(errors)


dp.main(test)
