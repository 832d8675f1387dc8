#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Guest side of bench/lookups.sh: count folio lookups and time the paddr
access check with the ftrace function profiler, 4 probes of 3 filters each
(the overhead benchmark's 4x3), sample/aggr 5 ms/100 ms, under a hot
anonymous workload.  Prints one JSON object per run:

  {"kernel": ..., "run": i, "seconds": ..., "calls": {function: hits},
   "usecs": {function: total time including callees}}

Environment: KERNEL (label), RUNS (3), RUN_SECONDS (5).
"""
import json
import os
import time

import damon_probes as dp

KERNEL = os.environ.get('KERNEL', 'one')
RUNS = int(os.environ.get('RUNS', 3))
SECONDS = float(os.environ.get('RUN_SECONDS', 5))
FUNCS = ('damon_get_folio', 'damon_account_probes', 'damon_pa_check_accesses',
         'damon_pa_prepare_access_checks')
MEMCG = 'bench'
STAT = dp.TRACING + '/trace_stat'


def profile():
    """Sum the per-CPU function profiler lines of FUNCS."""
    calls = dict.fromkeys(FUNCS, 0)
    usecs = dict.fromkeys(FUNCS, 0.0)
    for name in os.listdir(STAT):
        if not name.startswith('function'):
            continue
        for line in open(os.path.join(STAT, name)):
            w = line.split()
            if len(w) >= 4 and w[0] in calls and w[3] == 'us':
                calls[w[0]] += int(w[1])
                usecs[w[0]] += float(w[2])
    return calls, usecs


def main():
    dp.make_memcg(MEMCG)
    wls = [dp.Workload('--anon', 256, '--hot'),
           dp.Workload('--anon', 128, '--hot', cgroup=MEMCG)]
    filters = [dp.probe_filter('memcg', path='/' + MEMCG, allow=False),
               dp.probe_filter('hugepage_size', sz=(2 * dp.MIB, 2 * dp.MIB),
                               allow=False),
               dp.probe_filter('anon')]
    dp.write(dp.TRACING + '/set_ftrace_filter', ' '.join(FUNCS))
    try:
        for run in range(RUNS):
            dp.setup('paddr', sample_us=5000, aggr_us=100000, min_nr=10,
                     max_nr=1000, stat_scheme=False,
                     probes=[{'filters': filters}] * 4)
            dp.state('on')
            time.sleep(2)
            dp.write(dp.TRACING + '/function_profile_enabled', 1)
            t0 = time.time()
            time.sleep(SECONDS)
            dp.write(dp.TRACING + '/function_profile_enabled', 0)
            secs = time.time() - t0
            dp.stop()
            calls, usecs = profile()
            print(json.dumps({'kernel': KERNEL, 'run': run, 'seconds': secs,
                              'calls': calls, 'usecs': usecs}), flush=True)
    finally:
        for w in wls:
            w.stop()
        dp.remove_memcg(MEMCG)


main()
