#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Guest side of bench/size.sh, for a guest under QEMU icount (time is
instruction count): in a guest of any memory size, fill 75% of it (root
cgroup: anonymous and tmpfs; child memcg: anonymous, written once, then
idle), drop the page cache that is not mapped, monitor all of its System
RAM in about NR_REGIONS fixed regions of equal size (min = max nr_regions)
with two probes (anon, memcg), and measure REPS times

- kdamond's instructions per aggregation interval (schedstat ns over
  SEG_SECONDS of guest time / aggregations, counted by the function
  profiler's calls of damon_pa_check_accesses / 20 samples), and
- the instructions of tools/kpage-scan computing the same answer (anonymous
  and memcg bytes of every region) page by page.

Prints one JSON object per repetition.
"""
import json
import os
import resource
import time

import damon_probes as dp

REPS = int(os.environ.get('REPS', 5))
SEG = float(os.environ.get('SEG_SECONDS', 4))
NR = int(os.environ.get('NR_REGIONS', 96))
SAMPLE_US, AGGR_US = 5000, 100000
MEMCG = 'bench'
FUNC = 'damon_pa_check_accesses'


def mem_total_mib():
    for line in open('/proc/meminfo'):
        if line.startswith('MemTotal:'):
            return int(line.split()[1]) // 1024
    raise dp.Fail('no MemTotal')


def system_ram():
    """The 'System RAM' ranges of /proc/iomem of 1 MiB or more: all of the
    memory, so that the share of it that the workload fills is the same
    whatever the size (the biggest range alone is 2 GiB of a 4 GiB q35
    guest, where the workload fills it completely)."""
    out = []
    for line in open('/proc/iomem'):
        if line.startswith(' ') or 'System RAM' not in line:
            continue
        s, e = (int(x, 16) for x in line.split(':')[0].strip().split('-'))
        if e + 1 - s >= dp.MIB:
            out.append((s, e + 1))
    return out


def equal_regions(ranges, nr):
    """About nr page-aligned regions of one size covering ranges (a range
    holds as many whole regions as fit): equal sizes and min = max
    nr_regions keep DAMON from splitting or merging them."""
    sz = sum(e - s for s, e in ranges) // nr // dp.PAGE * dp.PAGE
    return [(s + i * sz, s + (i + 1) * sz) for s, e in ranges
            for i in range((e - s) // sz)]


def child_cpu_ns():
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (ru.ru_utime + ru.ru_stime) * 1e9


def calls():
    n = 0
    stat = dp.TRACING + '/trace_stat'
    for name in os.listdir(stat):
        if name.startswith('function'):
            for line in open(os.path.join(stat, name)):
                w = line.split()
                if len(w) >= 4 and w[0] == FUNC:
                    n += int(w[1])
    return n


def main():
    d = '/sys/kernel/mm/transparent_hugepage/khugepaged/'
    if os.path.isdir(d):	# no collapse in the middle (bench/overhead-guest.py)
        dp.write(d + 'scan_sleep_millisecs', 3600 * 1000)
        dp.write(d + 'alloc_sleep_millisecs', 3600 * 1000)
    total = mem_total_mib()
    part = total // 4  # 25% each: root anon, root tmpfs, memcg anon
    memcg_path = dp.make_memcg(MEMCG)
    wls = [dp.Workload('--anon', part, '--file', part),
           dp.Workload('--anon', part, cgroup=MEMCG)]
    # the page cache left from the boot (shared libraries, the guest's
    # files) costs a sample many times what an anonymous page costs, and
    # lands elsewhere at every boot: drop what is not mapped
    dp.write('/proc/sys/vm/drop_caches', 3)
    regions = equal_regions(system_ram(), NR)
    nr = len(regions)
    dp.write(dp.TRACING + '/set_ftrace_filter', FUNC)
    try:
        dp.setup('paddr', sample_us=SAMPLE_US, aggr_us=AGGR_US, min_nr=nr,
                 max_nr=nr, regions=regions, stat_scheme=False, probes=[
                     {'filters': [dp.probe_filter('anon')]},
                     {'filters': [dp.probe_filter('memcg',
                                                  path='/' + MEMCG)]}])
        dp.state('on')
        pid = dp.kdamond_pid()
        time.sleep(0.5)
        for rep in range(REPS):
            dp.write(dp.TRACING + '/function_profile_enabled', 1)
            with open('/proc/%d/schedstat' % pid) as f:
                c0 = int(f.read().split()[0])
            time.sleep(SEG)
            with open('/proc/%d/schedstat' % pid) as f:
                c1 = int(f.read().split()[0])
            dp.write(dp.TRACING + '/function_profile_enabled', 0)
            aggrs = calls() / (AGGR_US / SAMPLE_US)
            s0 = child_cpu_ns()
            dp.kpage_scan(regions, memcg_path)
            scan = child_cpu_ns() - s0
            print(json.dumps({'boot': int(os.environ.get('BOOT', 1)),
                              'mem_gib': round(total / 1024),
                              'mem_mib': total, 'rep': rep, 'regions': nr,
                              'monitored_mib': sum(
                                  e - s for s, e in regions) >> 20,
                              'kdamond_ns_per_aggr': (c1 - c0) / aggrs,
                              'aggregations': aggrs,
                              'scan_ns': scan}), flush=True)
        dp.stop()
    finally:
        for w in wls:
            w.stop()
        dp.remove_memcg(MEMCG)


main()
