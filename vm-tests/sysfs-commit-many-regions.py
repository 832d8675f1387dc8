#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""A commit works however many regions the running context has.

A paddr kdamond over the biggest System RAM range with min_nr_regions =
max_nr_regions = NR_REGIONS (300,000: more than the 262,144 ranges of 16
bytes that one kmalloc() can hold with 4 KiB pages), sampling 100 ms,
aggregation 1 s, and a 'stat' scheme matching every region, whose
stats/nr_tried tells how many regions the context has.  Once it has
more than 262,144, a commit that lowers min_nr_regions to 10 must
succeed, and the kdamond must go on aggregating: the scheme tries regions
again after the commit.
"""
import time

import damon_probes as dp

SAMPLE_US, AGGR_US = 100000, 1000000
NR_REGIONS = 300000
KMALLOC_RANGES = 262144
COMMIT_S = 120.0
DEADLINE_S = 240.0
SCHEME = dp.CTX + '/schemes/0'
ATTRS = dp.CTX + '/monitoring_attrs/nr_regions'


def nr_tried():
    dp.state('update_schemes_stats')
    return int(dp.read(SCHEME + '/stats/nr_tried'))


def test():
    ram = dp.biggest_system_ram()
    pages = (ram[1] - ram[0]) // dp.PAGE
    dp.check(pages >= NR_REGIONS, 'the biggest System RAM range has %d '
             'pages, fewer than %d regions' % (pages, NR_REGIONS))
    dp.setup('paddr', sample_us=SAMPLE_US, aggr_us=AGGR_US,
             min_nr=NR_REGIONS, max_nr=NR_REGIONS)
    dp.state('on')
    deadline = time.time() + DEADLINE_S
    tried = 0
    while time.time() < deadline:
        time.sleep(AGGR_US / 1e6)
        tried = nr_tried()
        if tried:
            break
    dp.log('the first application tried %d regions' % tried)
    dp.check(tried > KMALLOC_RANGES, 'the scheme tried %d regions in its '
             'first application, want more than %d' % (tried,
                                                        KMALLOC_RANGES))
    dp.write(ATTRS + '/min', 10)
    answer, secs = dp.commit_in_child(COMMIT_S)
    dp.log('commit lowering min_nr_regions to 10 at %d regions answered %s '
           'after %.1f s' % (tried, answer, secs))
    dp.check(answer == 'ok', 'the commit at %d regions answered %s, want '
             'ok' % (tried, answer))
    dp.check(dp.read(dp.KD + '/state') == 'on', 'kdamond stopped after the '
             'commit')
    start, t0 = nr_tried(), time.time()
    while time.time() < deadline and nr_tried() == start:
        time.sleep(AGGR_US / 1e6)
    dp.check(nr_tried() > start, 'the scheme tried no region in the %.0f s '
             'after the commit' % (time.time() - t0))


dp.main(test)
