#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Guest side of bench/attrs-regions.sh: how many regions DAMON keeps in
attributes-only monitoring, against access monitoring of the same input.

A paddr context on the biggest System RAM range (5 ms samples, 100 ms
windows, min 10 / max 1000 regions, a stat scheme trying every region)
with one 'allow anon' probe, of weight 1 (attributes only) or 0 (access
monitoring), while attr-workload keeps HOT_MIB of anonymous memory hot and
COLD_MIB idle.  Every second for DURATION seconds from 'on', the number of
tried regions (update_schemes_tried_regions).  Prints one JSON object per
mode and round: {"kernel", "mode", "round", "t": [s...], "nr_regions": [...]}.
Environment: KERNEL (a label), REPS (2), DURATION (20).
"""
import json
import os
import time

import damon_probes as dp

KERNEL = os.environ.get('KERNEL', 'series')
REPS = int(os.environ.get('REPS', 2))
DURATION = int(os.environ.get('DURATION', 20))
HOT_MIB, COLD_MIB = 128, 256


def run(mode, rnd):
    weight = 1 if mode == 'attrs' else 0
    dp.setup('paddr', sample_us=5000, aggr_us=100000, min_nr=10, max_nr=1000,
             probes=[{'weight': weight,
                      'filters': [dp.probe_filter('anon')]}])
    t0 = time.time()
    dp.state('on')
    ts, counts = [], []
    for s in range(1, DURATION + 1):
        time.sleep(max(0, t0 + s - time.time()))
        regions = dp.tried_regions()
        ts.append(round(time.time() - t0, 2))
        counts.append(len(regions))
    dp.stop()
    print(json.dumps({'kernel': KERNEL, 'mode': mode, 'round': rnd,
                      't': ts, 'nr_regions': counts}), flush=True)


def test():
    wl = dp.Workload('--anon', HOT_MIB, '--hot', '--cold-anon', COLD_MIB)
    try:
        for rnd in range(REPS):
            for mode in ('access', 'attrs'):
                run(mode, rnd)
    finally:
        wl.stop()


dp.main(test)
