#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""After a 'commit' changes a probe's filters, no window reported after the
commit shows counts gathered under the probe's old definition.

Probes are positional: probe 0 of the tracepoint and of the tried regions
is whatever probe 0 is now.  'commit' is applied by the kdamond at the end
of an aggregation window, before that window's counters are reported and
reset; counts gathered under the old filters must not be reported under the
new ones (they may be discarded, i.e. read 0, or never be reported).

Layout: the workload maps ANON_MIB of anonymous memory in base pages, all
written once (then idle), so every sample of a region inside that mapping
is an anonymous LRU page.  DAMON monitors that mapping of the process
(vaddr, the mapping as the target's region, no ops update during the test)
with probe 0 'allow anon' (weight 0): every region hits in every sample,
MAX_HITS per window.  Then probe 0 is committed as 'reject anon': every
region hits in no sample.  (The checks below look at the regions inside
the mapping, all of them here.)

1. Same number of probes: [allow anon] -> [reject anon].
   update_schemes_tried_regions right after the 'commit' write returned,
   and again one aggregation interval later: probe 0 hits 0.  The stat
   scheme is applied at every sampling interval, so the first read shows
   the last complete window's copy of the counts, that of the window that
   the commit closed (AGGR_US is long compared with the up to 100 ms that
   the 'commit' write takes to return).  The damon_region_aggregated
   windows after a trace marker written when the commit returned: probe 0
   hits 0.  (That marker comes after the events of the window that the
   commit closed, which the kdamond emits right after the commit.)
2. A new number of probes: [allow anon] -> [reject anon, no filter].  The
   events with two hit bytes are exactly those of the windows reported
   after the commit, from the one that the commit closed on: there, probe
   0 hits 0 (probe 1, the no-filter probe, hits MAX_HITS from the next
   window on), and in the windows before, probe 0 hits MAX_HITS (else the
   test could not see stale counts).  Tried regions as in 1.

No tolerance: the LRU add batches are drained (drop_caches) after the
workload's setup, so every page of the mapping is an anonymous LRU page.
The regions are fixed (min_nr_regions == max_nr_regions == NR_REGIONS: no
split, no merge), so a region never holds counts of another region, by a
merge or by a split that copies the counts (also the last complete
window's copy that tried regions read).

Not checked: the opposite change, [reject anon] -> [allow anon].  The old
probe counts 0 in these regions, which is also what discarded counts read,
so no observation tells a stale window from a discarded one.
"""
import time

import damon_probes as dp

SAMPLE_US, AGGR_US = 5000, 500000
AGGR_S = AGGR_US / 1e6
MAX_HITS = AGGR_US // SAMPLE_US
ANON_MIB = 128
NR_REGIONS = 20
UPDATE_US = 3600 * 1000000
PRE_WINDOWS = 3
POST_WINDOWS = 4
MARK = 'probes-commit-relabel: committed'
ALLOW_ANON = {'filters': [dp.probe_filter('anon')]}
REJECT_ANON = {'filters': [dp.probe_filter('anon', allow=False)]}
NO_FILTER = {'filters': []}


def inside(r, area):
    return area.start <= r.start and r.end <= area.end


def hits_ok(hits, want):
    """want: the wanted hits, one per probe; None takes any count."""
    return len(hits) == len(want) and all(
        w is None or h == w for h, w in zip(hits, want))


def check_windows(tag, windows, area, want, errors):
    """The hits of every region inside area must be want (hits_ok());
    returns the number of regions checked."""
    nr_inside = 0
    for w, win in enumerate(windows):
        regs = [r for r in win if inside(r, area)]
        nr_inside += len(regs)
        if len(regs) != len(win):
            errors.append('%s window %d: %d of %d regions outside the '
                          'mapping' % (tag, w, len(win) - len(regs),
                                       len(win)))
        bad = [r for r in regs if not hits_ok(r.hits, want)]
        dp.log('%s window %d: %d regions, %d inside the mapping, hits %s' %
               (tag, w, len(win), len(regs),
                sorted({tuple(r.hits) for r in regs})))
        if bad:
            errors.append('%s window %d: %d of %d regions inside the mapping '
                          'have hits %s, want %s: %s' % (
                              tag, w, len(bad), len(regs),
                              sorted({tuple(r.hits) for r in bad}), want,
                              ', '.join('%x-%x' % (r.start, r.end)
                                        for r in bad[:5])))
    return nr_inside


def check_tried(tag, area, want, errors):
    regions = dp.tried_regions()
    regs = [r for r in regions if inside(r, area)]
    dp.log('%s: %d tried regions, %d inside the mapping, hits %s' %
           (tag, len(regions), len(regs),
            sorted({tuple(r.hits) for r in regs})))
    if not regs:
        errors.append('%s: no tried region inside the mapping' % tag)
    bad = [r for r in regs if not hits_ok(r.hits, want)]
    if bad:
        errors.append('%s: %d of %d tried regions inside the mapping have '
                      'hits %s, want %s (the old allow-anon probe counts '
                      '%d)' % (tag, len(bad), len(regs),
                               sorted({tuple(r.hits) for r in bad}), want,
                               MAX_HITS))


def start(wl, probes):
    area = wl.areas['anon']
    dp.setup('vaddr', pid=wl.pid, sample_us=SAMPLE_US, aggr_us=AGGR_US,
             min_nr=NR_REGIONS, max_nr=NR_REGIONS, probes=probes,
             regions=[(area.start, area.end)])
    # no ops update within the test: it would replace the regions by the
    # process's three regions
    dp.write(dp.CTX + '/monitoring_attrs/intervals/update_us', UPDATE_US)
    # apply the stat scheme at every sample: tried regions then show the
    # last complete window's copy of the counts
    dp.write(dp.CTX + '/schemes/0/apply_interval_us', SAMPLE_US)
    dp.trace_start()
    dp.state('on')
    time.sleep((PRE_WINDOWS + 1) * AGGR_S)


def commit_and_read(probes, area, errors):
    """Commit probes, check the tried regions; returns the trace."""
    want = [0] + [None] * (len(probes) - 1)
    dp.write_probes(probes)
    dp.state('commit')
    dp.write(dp.TRACING + '/trace_marker', MARK)
    check_tried('tried regions right after the commit', area, want, errors)
    time.sleep(AGGR_S)
    check_tried('tried regions one aggregation later', area, want, errors)
    time.sleep((POST_WINDOWS + 1) * AGGR_S)
    text = dp.trace_stop()
    dp.stop()
    return text


def same_nr_probes(area, errors):
    dp.log('1. [allow anon] -> [reject anon]')
    text = commit_and_read([REJECT_ANON], area, errors)
    lines = text.splitlines()
    marks = [i for i, line in enumerate(lines) if MARK in line]
    dp.check(marks, 'trace marker not found')
    post = dp.parse_windows('\n'.join(lines[marks[0] + 1:]))
    dp.check(len(post) >= POST_WINDOWS, '%d complete windows after the '
             'marker, want >= %d' % (len(post), POST_WINDOWS))
    dp.check(check_windows('after the marker', post, area, [0], errors) > 0,
             'no region inside the mapping after the commit')


def new_nr_probes(area, errors):
    dp.log('2. [allow anon] -> [reject anon, no filter]')
    text = commit_and_read([REJECT_ANON, NO_FILTER], area, errors)
    windows = dp.parse_windows(text)
    for w, win in enumerate(windows):
        dp.check(len({len(r.hits) for r in win}) == 1,
                 'window %d mixes hit byte counts' % w)
    pre = [win for win in windows if len(win[0].hits) == 1]
    post = [win for win in windows if len(win[0].hits) == 2]
    dp.check(len(pre) >= 1 and len(post) >= POST_WINDOWS and
             windows == pre + post,
             '%d complete windows before the commit (want >= 1), %d after '
             '(want >= %d), in that order' % (len(pre), len(post),
                                               POST_WINDOWS))
    dp.check(check_windows('before', pre[-PRE_WINDOWS:], area, [MAX_HITS],
                           errors) > 0,
             'no region inside the mapping before the commit')
    dp.check(check_windows('commit', post[:1], area, [0, None],
                           errors) > 0,
             'no region inside the mapping in the commit window')
    check_windows('after', post[1:], area, [0, MAX_HITS], errors)


def test():
    wl = dp.Workload('--anon', ANON_MIB)
    area = wl.areas['anon']
    errors = []
    try:
        # the last faulted pages may still wait in per-CPU LRU add
        # batches (not LRU yet, so no attribute): drain them
        dp.write('/proc/sys/vm/drop_caches', 1)
        start(wl, [ALLOW_ANON])
        same_nr_probes(area, errors)
        start(wl, [ALLOW_ANON])
        new_nr_probes(area, errors)
    finally:
        wl.stop()
    dp.check_errors(errors)


dp.main(test)
