#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Guest side of bench/overhead.sh, for a guest under QEMU icount (time is
instruction count, 1 ns per instruction): the cost of one region sample of
kdamond with data probes, configurations interleaved in one boot.

One kdamond monitors fixed regions: NR_REGIONS regions of equal size with
min_nr_regions = max_nr_regions = NR_REGIONS, so that DAMON neither splits
nor merges them (a merge would exceed the size limit, a split the maximum),
and no ops update (update_us = 1000 s).  The workload is static
(attr-workload without --hot: every page written once, then idle), so the
guest only runs kdamond and time skips over its sleeps.  For each target
(paddr: the biggest System RAM range; vaddr: the workload's mappings), the
configurations of CONFIGS are committed in turn, REPS rounds; each segment
waits WARM_SECONDS after the commit, then measures SEG_SECONDS of guest time:

  cpu_ns       kdamond's on-CPU time (/proc/<pid>/schedstat), i.e. the
               instructions it ran
  samples      calls of <ops>_check_accesses (ftrace function profiler)
  check_ns     instructions in <ops>_check_accesses, callees included
  prepare_ns   instructions in <ops>_prepare_access_checks

Prints one JSON object per segment.  Environment: KERNEL (label), CONFIGS
("stock" for a kernel without probes), OPS ("paddr vaddr"), REPS (5),
SEG_SECONDS (4), WARM_SECONDS (0.5), NR_REGIONS (96), PROFILE (more
functions for the profiler, reported as "profile": {function: [calls, ns]};
each traced call costs instructions of its own), FILTERS ("series", or
"mainline" for the filter types mainline 7.3 has: anon and memcg only),
COUNT ("profiler", or "tracer" for kernels without the function profiler,
as Debian's: the function tracer counts the calls of <ops>_check_accesses,
check_ns and prepare_ns are then 0).
"""
import json
import os
import time

import damon_probes as dp

KERNEL = os.environ.get('KERNEL', 'series')
CONFIGS = os.environ.get('CONFIGS', '0 1x1 1x3 2x3 4x1 4x3').split()
OPS = os.environ.get('OPS', 'paddr vaddr').split()
REPS = int(os.environ.get('REPS', 5))
SEG = float(os.environ.get("SEG_SECONDS", 4))
WARM = float(os.environ.get('WARM_SECONDS', 0.5))
NR = int(os.environ.get('NR_REGIONS', 96))
PROFILE = os.environ.get('PROFILE', '').split()
FILTERS = os.environ.get('FILTERS', 'series')
COUNT = os.environ.get('COUNT', 'profiler')
MEMCG = 'bench'			# empty: its filter never matches
STAT = dp.TRACING + '/trace_stat'
# workload areas (MiB), each a multiple of NR's region size for vaddr
AREAS = (('--anon', 640), ('--thp', 64), ('--file', 64))


def probes_for(config):
    """N probes of M filters: the M last of memcg (never matches), 2 MiB
    folios (FILTERS=mainline: a second empty memcg, MEMCG + 'x'), anon, so
    that a base page sample evaluates all M filters.  With an "m" suffix
    ("4x3m"), probe i names memcg MEMCG<i>, all empty: the probes test
    N + M - 1 distinct attributes instead of M."""
    if config in ('0', 'stock'):
        return []
    own_memcg = config.endswith('m')
    nr, nf = (int(x) for x in config.rstrip('m').split('x'))

    def filters(i):
        memcg = MEMCG + (str(i) if own_memcg else '')
        second = (dp.probe_filter('memcg', path='/' + MEMCG + 'x',
                                  allow=False) if FILTERS == 'mainline' else
                  dp.probe_filter('hugepage_size', allow=False,
                                  sz=(2 * dp.MIB, 2 * dp.MIB)))
        return [dp.probe_filter('memcg', path='/' + memcg, allow=False),
                second, dp.probe_filter('anon')][-nf:]
    return [{'filters': filters(i)} for i in range(nr)]


def equal_regions(ranges, nr):
    """nr page-aligned regions of one size inside ranges (list of (start,
    end)), each range holding a share proportional to its size."""
    total = sum(e - s for s, e in ranges)
    sz = total // nr // dp.PAGE * dp.PAGE
    out = []
    for s, e in ranges:
        for i in range((e - s) // sz):
            out.append((s + i * sz, s + (i + 1) * sz))
    if len(out) != nr:
        raise dp.Fail('%d regions of %d bytes, not %d' % (len(out), sz, nr))
    return out


VMSTAT = ('nr_free_pages', 'nr_inactive_anon', 'nr_active_anon',
          'nr_inactive_file', 'nr_active_file', 'nr_anon_transparent_hugepages',
          'pgscan_kswapd', 'pgsteal_kswapd', 'pgmigrate_success',
          'compact_migrate_scanned', 'thp_collapse_alloc', 'nr_slab_unreclaimable')


def vmstat():
    """The fields of VMSTAT in /proc/vmstat: the guest's memory state, to
    see what moved when a segment costs more."""
    v = dict(line.split() for line in open('/proc/vmstat'))
    return {k: int(v[k]) for k in VMSTAT if k in v}


def cpu_ns(pid):
    with open('/proc/%d/schedstat' % pid) as f:
        return int(f.read().split()[0])


def profile(funcs):
    """calls and ns of funcs from the function profiler (all CPUs)."""
    calls = dict.fromkeys(funcs, 0)
    ns = dict.fromkeys(funcs, 0)
    for name in os.listdir(STAT):
        if not name.startswith('function'):
            continue
        for line in open(os.path.join(STAT, name)):
            w = line.split()
            if len(w) >= 4 and w[0] in calls and w[3] == 'us':
                calls[w[0]] += int(w[1])
                ns[w[0]] += round(float(w[2]) * 1000)
    return calls, ns


def tracer_calls(func):
    """Calls of func in the function tracer's buffer."""
    with open(dp.TRACING + '/trace') as f:
        return sum(1 for line in f if ': %s <-' % func in line)


def live_regions():
    """The region counts that kdamond reports in the damon_aggregated
    events of 0.2 s (outside the measured segments): only NR if the regions
    stayed fixed."""
    ev = dp.TRACING + '/events/damon/damon_aggregated/enable'
    dp.write(dp.TRACING + '/trace', '')
    dp.write(dp.TRACING + '/tracing_on', 1)
    dp.write(ev, 1)
    time.sleep(0.2)
    dp.write(ev, 0)
    if COUNT == 'tracer':
        dp.write(dp.TRACING + '/tracing_on', 0)
    return sorted({int(w.split('=')[1])
                   for w in open(dp.TRACING + '/trace').read().split()
                   if w.startswith('nr_regions=')})


def traceable(func):
    with open(dp.TRACING + '/available_filter_functions') as f:
        return any(line.split()[0] == func for line in f if line.strip())


def set_ftrace_filter(funcs):
    """Trace exactly funcs: ftrace takes one name per write(2), so a
    truncating open for the first name, then appending ones."""
    for i, fn in enumerate(funcs):
        fd = os.open(dp.TRACING + '/set_ftrace_filter',
                     os.O_WRONLY | (os.O_APPEND if i else os.O_TRUNC))
        try:
            os.write(fd, fn.encode())
        finally:
            os.close(fd)


def commit(config):
    dp.write_probes(probes_for(config))
    dp.state('commit')


def run_ops(ops, wl):
    if ops == 'paddr':
        regions = equal_regions([dp.biggest_system_ram()], NR)
    else:
        regions = equal_regions(sorted((a.start, a.end)
                                       for a in wl.areas.values()), NR)
    funcs = ('damon_%s_check_accesses' % ops[:2],
             'damon_%s_prepare_access_checks' % ops[:2]) + tuple(PROFILE)
    # mainline 7.3 samples the probes in a third callback, called at every
    # sampling interval whether probes are installed or not
    extra = 'damon_%s_apply_probes' % ops[:2]
    if extra not in funcs and traceable(extra):
        funcs += (extra,)
    if COUNT == 'tracer':
        funcs = funcs[:2]
        dp.write(dp.TRACING + '/tracing_on', 0)
        set_ftrace_filter(funcs[:1])
        dp.write(dp.TRACING + '/current_tracer', 'function')
    else:
        set_ftrace_filter(funcs)
    stock = CONFIGS == ['stock']
    dp.write(dp.ADMIN + '/kdamonds/nr_kdamonds', 1)
    dp.setup_kdamond(dp.KD, ops, pid=wl.pid if ops == 'vaddr' else None,
                     sample_us=5000, aggr_us=100000, min_nr=NR, max_nr=NR,
                     probes=None if stock else probes_for(CONFIGS[0]),
                     stat_scheme=False, regions=regions,
                     update_us=1000 * 1000 * 1000)
    dp.state('on')
    pid = dp.kdamond_pid()
    for rep in range(REPS):
        for config in CONFIGS:
            if not stock:
                commit(config)
            time.sleep(WARM)
            if COUNT == 'tracer':
                dp.write(dp.TRACING + '/trace', '')
                dp.write(dp.TRACING + '/tracing_on', 1)
            else:
                dp.write(dp.TRACING + '/function_profile_enabled', 1)
            c0, t0 = cpu_ns(pid), time.monotonic()
            time.sleep(SEG)
            c1, t1 = cpu_ns(pid), time.monotonic()
            if COUNT == 'tracer':
                dp.write(dp.TRACING + '/tracing_on', 0)
                calls = dict.fromkeys(funcs, 0)
                ns = dict.fromkeys(funcs, 0)
                calls[funcs[0]] = tracer_calls(funcs[0])
            else:
                dp.write(dp.TRACING + '/function_profile_enabled', 0)
                calls, ns = profile(funcs)
            live = live_regions()
            print(json.dumps({
                'kernel': KERNEL, 'ops': ops, 'config': config, 'rep': rep,
                'nr_regions': NR, 'seconds': round(t1 - t0, 6),
                'cpu_ns': c1 - c0, 'samples': calls[funcs[0]],
                'check_ns': ns[funcs[0]], 'prepare_ns': ns[funcs[1]],
                'live_regions': live, 'vmstat': vmstat(),
                'profile': {f: [calls[f], ns[f]] for f in funcs[2:]}}),
                flush=True)
    dp.stop()


def quiet_khugepaged():
    """Keep khugepaged asleep for an hour: a collapse in the middle of a
    run turns a THP of the workload into a PTE-mapped large folio whose
    rmap walks cost hundreds of PTE steps, and the paddr cost per sample
    jumps by 20% (seen at 40 guest seconds)."""
    d = '/sys/kernel/mm/transparent_hugepage/khugepaged/'
    if os.path.isdir(d):
        dp.write(d + 'scan_sleep_millisecs', 3600 * 1000)
        dp.write(d + 'alloc_sleep_millisecs', 3600 * 1000)


def main():
    quiet_khugepaged()
    memcgs = [MEMCG, MEMCG + 'x'] + [MEMCG + str(i) for i in range(4)]
    for m in memcgs:
        dp.make_memcg(m)
    wl = dp.Workload(*[x for a in AREAS for x in a])
    try:
        for ops in OPS:
            run_ops(ops, wl)
    finally:
        wl.stop()
        for m in memcgs:
            dp.remove_memcg(m)


main()
