#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Guest side of bench/overhead.sh: kdamond CPU time of physical address
monitoring with 0, 1, 2 and 4 probes of 1 and 3 filters each, under a fixed
workload, for two interval settings.  Prints one JSON object per run:

  {"kernel": ..., "intervals": "5ms/100ms", "config": "4x3", "run": i,
   "cpu_ns": ..., "seconds": ...}

Environment: KERNEL (label), RUNS (5), RUN_SECONDS (4), CONFIGS (space-separated
subset of "0 1x1 1x3 2x1 2x3 4x1 4x3"; "stock" means no probe interface).
"""
import json
import os
import time

import damon_probes as dp

KERNEL = os.environ.get('KERNEL', 'patched')
RUNS = int(os.environ.get('RUNS', 5))
SECONDS = float(os.environ.get('RUN_SECONDS', 4))
CONFIGS = os.environ.get('CONFIGS', '0 1x1 1x3 2x1 2x3 4x1 4x3').split()
INTERVALS = [(5000, 100000), (5000, 2000000)]
MEMCG = 'bench'


def probes_for(config):
    if config in ('0', 'stock'):
        return []
    nr, nf = (int(x) for x in config.split('x'))
    filters = [dp.probe_filter('memcg', path='/' + MEMCG, allow=False),
               dp.probe_filter('hugepage_size', sz=(2 * dp.MIB, 2 * dp.MIB),
                               allow=False),
               dp.probe_filter('anon')][-nf:]
    return [{'filters': filters}] * nr


def cpu_ns(pid):
    with open('/proc/%d/schedstat' % pid) as f:
        return int(f.read().split()[0])


def one_run(config, sample_us, aggr_us):
    dp.setup('paddr', sample_us=sample_us, aggr_us=aggr_us,
             min_nr=10, max_nr=1000, stat_scheme=False,
             probes=None if config == 'stock' else probes_for(config))
    dp.state('on')
    pid = dp.kdamond_pid()
    time.sleep(0.5)
    c0, t0 = cpu_ns(pid), time.time()
    time.sleep(SECONDS)
    c1, t1 = cpu_ns(pid), time.time()
    dp.stop()
    return c1 - c0, t1 - t0


def main():
    dp.make_memcg(MEMCG)
    wls = [dp.Workload('--anon', 256, '--file', 128, '--hot'),
           dp.Workload('--anon', 128, '--hot', cgroup=MEMCG)]
    try:
        for run in range(RUNS):
            for sample_us, aggr_us in INTERVALS:
                for config in CONFIGS:
                    ns, secs = one_run(config, sample_us, aggr_us)
                    print(json.dumps({
                        'kernel': KERNEL, 'config': config, 'run': run,
                        'intervals': '%dms/%dms' % (sample_us // 1000,
                                                    aggr_us // 1000),
                        'cpu_ns': ns, 'seconds': secs}), flush=True)
    finally:
        for w in wls:
            w.stop()
        dp.remove_memcg(MEMCG)


main()
