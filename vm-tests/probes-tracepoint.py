#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""damon:damon_region_aggregated carries one hit byte per installed probe,
stays silent without probes, and saturates at ff instead of wrapping.

1. No probe: damon_aggregated fires, damon_region_aggregated never does.
2. One and four probes: every event line has as many hit bytes.
3. aggr/sample = 400 with a no-filter probe (every sample hits): the
   tracepoint prints ff (an 8-bit counter would wrap to 0x90) and the
   tried_regions hits file reads exactly 400.
"""
import time

import damon_probes as dp

AGG_EVENT = dp.TRACING + '/events/damon/damon_aggregated'


def count_events(seconds):
    dp.write(AGG_EVENT + '/enable', 1)
    dp.trace_start()
    time.sleep(seconds)
    text = dp.trace_stop()
    dp.write(AGG_EVENT + '/enable', 0)
    agg = sum(1 for line in text.splitlines()
              if 'damon_aggregated:' in line)
    lines = [line for line in text.splitlines()
             if 'damon_region_aggregated:' in line]
    return agg, lines


def test():
    dp.setup('paddr', sample_us=5000, aggr_us=100000, probes=[])
    dp.state('on')
    agg, lines = count_events(3)
    dp.stop()
    dp.log('no probe: %d damon_aggregated, %d damon_region_aggregated' %
           (agg, len(lines)))
    dp.check(agg > 0, 'kdamond emitted no damon_aggregated event in 3 s')
    dp.check(not lines, 'damon_region_aggregated fired without probes')

    for nr in (1, 4):
        probes = [{'filters': [dp.probe_filter('anon')]}] * nr
        dp.setup('paddr', sample_us=5000, aggr_us=100000, probes=probes)
        dp.state('on')
        _, lines = count_events(3)
        dp.stop()
        dp.check(lines, 'no damon_region_aggregated event with %d probes'
                 % nr)
        for line in lines:
            rec = dp.parse_trace_line(line)
            dp.check(rec, 'malformed event line: %s' % line)
            dp.check(len(rec.hits) == nr,
                     'line with %d probes: %s' % (nr, line))
        dp.log('%d probe(s): %d events, each with %d hit bytes' %
               (nr, len(lines), nr))

    # 400 samples per window: saturation in the trace, exact in sysfs
    dp.setup('paddr', sample_us=1000, aggr_us=400000, probes=[{}])
    dp.state('on')
    windows = dp.trace_windows(2, 400000, what='ratio 400')
    for win in windows:
        for r in win:
            dp.check(r.hits == [0xff], 'region %x-%x: hits %s, want [ff]' %
                     (r.start, r.end, r.hits))
    regions = dp.tried_regions()
    dp.check(regions, 'no tried region at ratio 400')
    for r in regions:
        dp.check(r.hits == [400], 'tried region %x-%x hits %s, want [400]' %
                 (r.start, r.end, r.hits))
    dp.log('ratio 400: trace ff, tried_regions 400 in %d regions' %
           len(regions))


dp.main(test)
