#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Guest side of bench/size.sh: in a guest of any memory size, fill ~60% of
it (root cgroup: anonymous and tmpfs; child memcg: anonymous), monitor the
physical address space with two probes (anon, memcg), and measure

- kdamond's CPU time per aggregation interval, and
- the CPU time of tools/kpage-scan computing the same answer (anonymous and
  memcg bytes of every DAMON region) page by page,

REPS times each.  Prints one JSON object with the medians.
"""
import json
import os
import resource
import statistics
import time

import damon_probes as dp

REPS = int(os.environ.get('REPS', 3))
SAMPLE_US, AGGR_US = 5000, 100000
MEMCG = 'bench'


def mem_total_mib():
    for line in open('/proc/meminfo'):
        if line.startswith('MemTotal:'):
            return int(line.split()[1]) // 1024
    raise dp.Fail('no MemTotal')


def child_cpu_ns():
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (ru.ru_utime + ru.ru_stime) * 1e9


def main():
    total = mem_total_mib()
    part = total // 5  # 20% each: root anon, root tmpfs, memcg anon
    memcg_path = dp.make_memcg(MEMCG)
    wls = [dp.Workload('--anon', part, '--file', part),
           dp.Workload('--anon', part, cgroup=MEMCG)]
    try:
        dp.setup('paddr', sample_us=SAMPLE_US, aggr_us=AGGR_US, min_nr=10,
                 max_nr=1000, probes=[
                     {'filters': [dp.probe_filter('anon')]},
                     {'filters': [dp.probe_filter('memcg',
                                                  path='/' + MEMCG)]}])
        dp.state('on')
        pid = dp.kdamond_pid()
        time.sleep(1)
        kd, scan, nr_regions = [], [], []
        for _ in range(REPS):
            with open('/proc/%d/schedstat' % pid) as f:
                c0 = int(f.read().split()[0])
            t0 = time.time()
            time.sleep(3)
            with open('/proc/%d/schedstat' % pid) as f:
                c1 = int(f.read().split()[0])
            t1 = time.time()
            kd.append((c1 - c0) / ((t1 - t0) * 1e6 / AGGR_US) / 1e6)
            regions = dp.tried_regions()
            nr_regions.append(len(regions))
            s0 = child_cpu_ns()
            dp.kpage_scan([(r.start, r.end) for r in regions], memcg_path)
            scan.append((child_cpu_ns() - s0) / 1e6)
        dp.stop()
    finally:
        for w in wls:
            w.stop()
        dp.remove_memcg(MEMCG)
    print(json.dumps({'mem_gib': round(total / 1024),
                      'regions': int(statistics.median(nr_regions)),
                      'kdamond_ms': statistics.median(kd),
                      'scan_ms': statistics.median(scan)}), flush=True)


main()
