#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Guest side of bench/commit.sh, for a guest under QEMU icount (time is
instruction count): the cost of a sysfs 'commit' as the running context's
region count grows.

For each count N in SIZES, a paddr kdamond over the biggest System RAM
range with min_nr_regions = max_nr_regions = N (sampling SAMPLE_US,
aggregation AGGR_US) and a 'stat' scheme trying every region, whose
stats/nr_tried tells when the context has its N regions.  Then REPS
commits of unchanged parameters, each measured alone with the function
profiler (graph time, so callees included):

- ns: the time of damon_commit_ctx(), which under icount counts the
  instructions kdamond spends in the commit;
- regions_allocated: the calls of damon_new_region() during the commit
  (kdamond neither splits nor merges N equal regions with min = max = N),
  which with the slab object size of struct damon_region gives the memory
  the commit allocates and frees again;
- the writer's wall (guest) time of the write, which also waits for the
  end of the aggregation interval in progress.

Prints one JSON object per commit.  KERNEL names the kernel for the report;
on a kernel without data probes (stock) the probes directory is left alone.
"""
import json
import os
import time

import damon_probes as dp

SIZES = [int(x) for x in os.environ.get(
    'SIZES', '1000 10000 100000 300000').split()]
REPS = int(os.environ.get('REPS', 5))
KERNEL = os.environ.get('KERNEL', 'series')
SAMPLE_US, AGGR_US = 50000, 100000
FUNCS = ['damon_commit_ctx', 'damon_new_region']
SCHEME = dp.CTX + '/schemes/0'
DEADLINE_S = 1800


def profile():
    """{function: (hits, total ns)} summed over the CPUs."""
    out = {}
    stat = dp.TRACING + '/trace_stat'
    for name in os.listdir(stat):
        if not name.startswith('function'):
            continue
        for line in open(os.path.join(stat, name)):
            w = line.split()
            if len(w) >= 4 and w[0] in FUNCS:
                hits, ns = out.get(w[0], (0, 0.0))
                # "Time" is printed with its unit: "1234.567 us"
                t = float(w[2]) * {'ns': 1, 'us': 1e3, 'ms': 1e6,
                                   's': 1e9}.get(w[3], 1e3)
                out[w[0]] = (hits + int(w[1]), ns + t)
    return out


def nr_tried():
    dp.state('update_schemes_stats')
    return int(dp.read(SCHEME + '/stats/nr_tried'))


def object_size():
    try:
        return int(dp.read('/sys/kernel/slab/damon_region/object_size'))
    except OSError:
        return None


def measure(n):
    probes = None if KERNEL == 'stock' else ()
    dp.setup('paddr', sample_us=SAMPLE_US, aggr_us=AGGR_US, min_nr=n,
             max_nr=n, probes=probes)
    dp.state('on')
    deadline = time.time() + DEADLINE_S
    while nr_tried() < n:
        dp.check(time.time() < deadline, 'no %d regions in %d s' %
                 (n, DEADLINE_S))
        time.sleep(AGGR_US / 1e6)
    for rep in range(REPS):
        # enabling the profiler resets its counts
        dp.write(dp.TRACING + '/function_profile_enabled', 1)
        t0 = time.monotonic()
        dp.state('commit')
        wall = time.monotonic() - t0
        dp.write(dp.TRACING + '/function_profile_enabled', 0)
        prof = profile()
        hits, ns = prof.get('damon_commit_ctx', (0, 0.0))
        dp.check(hits == 1, '%d calls of damon_commit_ctx in one commit'
                 % hits)
        print(json.dumps({'kernel': KERNEL, 'regions': n, 'rep': rep,
                          'commit_ns': ns,
                          'regions_allocated':
                              prof.get('damon_new_region', (0, 0))[0],
                          'region_object_size': object_size(),
                          'write_s': wall}), flush=True)
    dp.stop()


def main():
    ram = dp.biggest_system_ram()
    pages = (ram[1] - ram[0]) // dp.PAGE
    dp.check(pages >= max(SIZES), 'the biggest System RAM range has %d '
             'pages, fewer than %d regions' % (pages, max(SIZES)))
    dp.write(dp.TRACING + '/set_ftrace_filter', ' '.join(FUNCS))
    dp.write(dp.TRACING + '/current_tracer', 'nop')
    for n in SIZES:
        measure(n)
    dp.write(dp.TRACING + '/set_ftrace_filter', '')


main()
