#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Commits of unchanged parameters leave the schemes' apply intervals alone.

A paddr kdamond (sampling 5 ms, aggregation 100 ms) with a 'stat' scheme
that matches every region and is applied every APPLY_US (2 s).  Tools that
re-commit periodically (quota tuning, 'damo tune') commit the same
parameters again and again; a commit whose monitoring attributes did not
change must not restart the apply interval, or a scheme whose interval is
longer than the commit period is never applied.  The test counts the
regions the scheme tried (stats/nr_tried) over PERIOD_S with no commit,
then over PERIOD_S with an unchanged commit every COMMIT_EVERY_S: the
second count must be at least half of the first (both see about
PERIOD_S / 2 s applications), and above zero.
"""
import time

import damon_probes as dp

SAMPLE_US, AGGR_US = 5000, 100000
APPLY_US = 2000000
PERIOD_S = 10.0
COMMIT_EVERY_S = 1.0
SCHEME = dp.CTX + '/schemes/0'


def nr_tried():
    dp.state('update_schemes_stats')
    return int(dp.read(SCHEME + '/stats/nr_tried'))


def test():
    dp.setup('paddr', sample_us=SAMPLE_US, aggr_us=AGGR_US)
    dp.write(SCHEME + '/apply_interval_us', APPLY_US)
    dp.state('on')
    time.sleep(1)
    start = nr_tried()
    time.sleep(PERIOD_S)
    quiet = nr_tried() - start
    dp.log('regions tried in %.0f s without commits: %d' % (PERIOD_S, quiet))
    dp.check(quiet > 0, 'the scheme was never applied without commits')

    start = nr_tried()
    nr_commits = 0
    t0 = time.time()
    while time.time() - t0 < PERIOD_S:
        dp.state('commit')
        nr_commits += 1
        time.sleep(COMMIT_EVERY_S)
    busy = nr_tried() - start
    dp.log('regions tried in %.0f s with %d unchanged commits: %d' %
           (time.time() - t0, nr_commits, busy))
    dp.check(busy * 2 >= quiet, 'the scheme tried %d regions with a commit '
             'every %.0f s, %d without: unchanged commits restart its %d s '
             'apply interval' % (busy, COMMIT_EVERY_S, quiet,
                                 APPLY_US // 1000000))


dp.main(test)
