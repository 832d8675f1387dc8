#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The fleet path end to end: tools/damon-probe-metrics writes the probe
results of a running paddr kdamond to a textfile every second, Debian's
prometheus-node-exporter serves it with its textfile collector, and Debian's
prometheus scrapes that every second, all on the guest's loopback.  PromQL
through promtool then gives the estimates.

Layout, as probes-paddr-estimate.py: a workload in the root cgroup maps 160
MiB of anonymous memory and 128 MiB of a tmpfs file; one in the memcg
"prom-test" maps 96 MiB of anonymous memory.  Probes: allow anon, allow
memcg /prom-test, allow hugepage_size 2M..2M.

Checks: promtool check metrics accepts the file; node_exporter read it
without error; Prometheus has 3 probes x 3 bands of damon_probe_bytes and of
damon_probe_bytes_stderr, damon_samples_per_window 20, damon_monitored_bytes
the monitored range, no skipped context; and the mean over WINDOW_S seconds
of the anon and memcg estimates (all bands) is within TOLERANCE of the
page-level truth (tools/kpage-scan of the monitored range, once Prometheus
runs and at the end: its memory and node_exporter's are anonymous too), the
tolerance of the value tests.
"""
import os
import shutil

import damon_probes as dp
import promstack

TOLERANCE = 0.10
SAMPLE_US, AGGR_US = 5000, 100000
MAX_HITS = AGGR_US // SAMPLE_US
WINDOW_S = 20
MEMCG = 'prom-test'
WORKDIR = '/tmp/prom-test'
FILTERS = {'anon': 'allow anon', 'memcg': 'allow memcg /' + MEMCG,
           'thp': 'allow hugepage_size 2097152 2097152'}


def test():
    with dp.paddr_layout(MEMCG) as memcg_path:
        run(memcg_path)


def run(memcg_path):
    start, end = dp.biggest_system_ram()
    dp.setup('paddr', sample_us=SAMPLE_US, aggr_us=AGGR_US, min_nr=100,
             max_nr=1000, regions=[(start, end)], probes=[
                 {'filters': [dp.probe_filter('anon')]},
                 {'filters': [dp.probe_filter('memcg', path='/' + MEMCG)]},
                 {'filters': [dp.probe_filter('hugepage_size',
                                              sz=(2 * dp.MIB, 2 * dp.MIB))]},
             ])
    dp.state('on')
    promstack.loopback_up()
    shutil.rmtree(WORKDIR, ignore_errors=True)
    stack = promstack.Stack(WORKDIR, interval=1, scrape_s=1)
    try:
        # the truth with the stack's own memory, as DAMON sees it
        truth0 = dp.kpage_truth(start, end, memcg_path)
        stack.wait_samples('count_over_time(damon_samples_per_window[%ds])'
                           % WINDOW_S, WINDOW_S - 5)
        truth1 = dp.kpage_truth(start, end, memcg_path)
        check_stack(stack, start, end)
        results = {k: stack.value(
            'sum(avg_over_time(damon_probe_bytes{filters="%s"}[%ds]))' %
            (FILTERS[k], WINDOW_S)) for k in FILTERS}
        hot_anon = stack.value('sum by (instance) (damon_probe_bytes'
                               '{filters="allow anon",band="hot"})')
        cold_memcg = stack.value('sum by (instance) (damon_probe_bytes'
                                 '{filters="%s",band="cold"})' %
                                 FILTERS['memcg'])
        dp.log('now: hot anon %.1f MiB, cold memcg /%s %.1f MiB' %
               (hot_anon / dp.MIB, MEMCG, cold_memcg / dp.MIB))
    finally:
        stack.stop()
    dp.stop()

    ok = True
    for k, est in results.items():
        truth = (truth0[k] + truth1[k]) / 2
        err = dp.rel_err(est, truth)
        checked = k != 'thp'
        dp.log('%-6s truth %8.1f MiB  PromQL mean of %d s %8.1f MiB  error '
               '%5.1f%%  %s' % (k, truth / dp.MIB, WINDOW_S, est / dp.MIB,
                               err * 100, '(tolerance %.0f%%)' %
                               (TOLERANCE * 100) if checked else
                               '(not checked)'))
        ok = ok and (not checked or err <= TOLERANCE)
    dp.check(ok, 'a PromQL estimate is off the truth by more than %.0f%%' %
             (TOLERANCE * 100))


def check_stack(stack, start, end):
    text = stack.check_metrics()
    dp.log('promtool check metrics: ok (%d lines)' % len(text.splitlines()))
    dp.check(stack.value('node_textfile_scrape_error') == 0,
             'node_exporter could not read the textfile')
    for name in ('damon_probe_bytes', 'damon_probe_bytes_stderr'):
        n = stack.value('count(%s)' % name)
        dp.check(n == 9, '%d series of %s, want 3 probes x 3 bands' %
                 (n, name))
    for k, f in FILTERS.items():
        n = stack.value('count(damon_probe_bytes{filters="%s"})' % f)
        dp.check(n == 3, '%d series with filters="%s", want 3' % (n, f))
    dp.check(stack.value('damon_samples_per_window') == MAX_HITS,
             'damon_samples_per_window is not %d' % MAX_HITS)
    page = os.sysconf('SC_PAGE_SIZE')
    want = (end + page - 1) // page * page - start // page * page
    mon = stack.value('damon_monitored_bytes')
    dp.check(mon == want, 'damon_monitored_bytes %d, the range has %d' %
             (mon, want))
    dp.check(stack.value('sum(damon_band_bytes)') == want,
             'the bands do not add up to the monitored bytes')
    dp.check(stack.value('damon_probe_metrics_skipped_contexts') == 0,
             'the tool left the context out')
    dp.log('%d regions; samples per window %d; the tool read in %.3f s' % (
        stack.value('sum(damon_band_regions)'), MAX_HITS,
        stack.value('damon_probe_metrics_read_seconds')))


dp.main(test)
