#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Monitoring resumes after a commit that removes the deactivating scheme.

A paddr kdamond whose only scheme has 'free_mem_rate' watermarks that the
guest's free memory is above (high HIGH_DROP per thousand below the free
memory rate at the start) runs no sampling interval: no damon_aggregated
event is traced.  Writing 0 to nr_schemes and committing must return 0
within COMMIT_S, and with no scheme left nothing deactivates the context:
windows must be traced again within RESUME_S.  A kernel that keeps
waiting for the watermarks of the schemes it had (the wait time is not
recomputed once the scheme list is empty) traces nothing until 'off'.
"""
import time

import damon_probes as dp

SAMPLE_US, AGGR_US = 5000, 100000
WMARK_INTERVAL_US = 100000
HIGH_DROP = 50
COMMIT_S = 5.0
RESUME_S = 3.0
WMARKS = dp.CTX + '/schemes/0/watermarks'
EVENT = dp.TRACING + '/events/damon/damon_aggregated'


def trace_on():
    dp.write(dp.TRACING + '/tracing_on', 0)
    dp.write(dp.TRACING + '/trace', '')
    dp.write(EVENT + '/enable', 1)
    dp.write(dp.TRACING + '/tracing_on', 1)


def nr_events():
    with open(dp.TRACING + '/trace') as f:
        return sum(1 for line in f if 'damon_aggregated:' in line)


def trace_off():
    dp.write(dp.TRACING + '/tracing_on', 0)
    dp.write(EVENT + '/enable', 0)
    dp.write(dp.TRACING + '/trace', '')


def test():
    rate = dp.free_mem_rate()
    dp.check(rate > HIGH_DROP + 2, 'free memory rate %d per thousand: too '
             'little free memory for the test' % rate)
    dp.setup('paddr', sample_us=SAMPLE_US, aggr_us=AGGR_US)
    dp.write(WMARKS + '/metric', 'free_mem_rate')
    dp.write(WMARKS + '/interval_us', WMARK_INTERVAL_US)
    dp.write(WMARKS + '/high', rate - HIGH_DROP)
    dp.write(WMARKS + '/mid', rate - HIGH_DROP - 1)
    dp.write(WMARKS + '/low', rate - HIGH_DROP - 2)
    trace_on()
    try:
        dp.state('on')
        time.sleep(1)
        dp.write(dp.TRACING + '/trace', '')
        time.sleep(RESUME_S)
        before = nr_events()
        dp.log('free rate %d per thousand, high mark %d: %d windows traced '
               'in %.0f s before the commit' % (rate, rate - HIGH_DROP,
                                                before, RESUME_S))
        dp.check(before == 0, 'the watermarks did not deactivate the '
                 'context: %d windows traced' % before)
        dp.write(dp.CTX + '/schemes/nr_schemes', 0)
        t0 = time.time()
        answer, _ = dp.commit_in_child(COMMIT_S)
        dp.log('commit removing the only scheme answered %s after %.2f s'
               % (answer, time.time() - t0))
        dp.check(answer == 'ok', 'the commit answered %s, want ok' % answer)
        time.sleep(RESUME_S)
        after = nr_events()
        dp.log('%d windows traced in %.0f s after the commit' %
               (after, RESUME_S))
        dp.check(dp.read(dp.KD + '/state') == 'on', 'kdamond stopped')
        dp.check(after > 0, 'no window traced in %.0f s after a commit left '
                 'no scheme: monitoring did not resume' % RESUME_S)
    finally:
        trace_off()


dp.main(test)
