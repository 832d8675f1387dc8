#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The most probe work that the sysfs interface allows, on a vaddr target
that page-faults all the time, neither stalls the target's page faults nor
trips the soft lockup detector.

vaddr evaluates the probes of every region's sample under the page table
lock of the sampled page, which the target's own page faults on that page
table wait for.  The work is bounded by the number of probes (4) and of
filters per probe (DAMON_MAX_PROBE_FILTERS, 8):

1. nr_filters 9 and 1000000 fail with EINVAL and change nothing, so 4 x 8
   is the worst case.
2. tools/fault-workload faults on every page of 64 MiB of anonymous memory
   in turn (zapping it after each pass).  Its fault rate is measured for
   MEASURE_S seconds (a) without DAMON, (b) with a vaddr kdamond at
   NR_REGIONS regions (min_nr_regions = max_nr_regions) sampling every
   SAMPLE_US without probes, (c) after committing 4 probes of 8 filters:
   memcg filters of two empty cgroups and a hugepage_size filter of 1 GiB
   that match none of the target's pages, so that every filter of every
   probe is evaluated on every sample, and a last filter that rejects, so
   that every sample is a hit of every probe.
3. In (c) a complete aggregation window of the damon_region_aggregated
   tracepoint has at least NR_REGIONS * 9 / 10 regions, every one with
   aggr/sample hits of each probe: the probes ran on every sample.
4. The rate of (c) is at least MIN_RATIO of the rate of (b), and no single
   fault took longer than MAX_FAULT_S (1 s, 4 s on the debug kernel:
   TCG alone makes some faults take 0.4 s there).  The kernel is run with
   kernel.panic_on_warn=1 (and kernel.softlockup_panic=1 where the soft
   lockup detector is built in, as on the debug kernel), so a soft lockup
   or a warning ends the VM and fails the test; the kernel log must have no
   soft lockup or hung task report either.

NR_FILTERS=<n> in the environment uses n filters per probe instead of the
limit and skips step 1: how the unbounded filters of v1 were shown to stall
the target.
"""
import os
import signal
import subprocess
import time

import damon_probes as dp

LIMIT = 8                       # DAMON_MAX_PROBE_FILTERS
NR_PROBES = 4                   # DAMON_MAX_PROBES
NR_FILTERS = int(os.environ.get('NR_FILTERS', LIMIT))
NR_REGIONS = int(os.environ.get('NR_REGIONS', 10000))
SAMPLE_US = 1000
AGGR_US = 20 * SAMPLE_US
MAX_HITS = AGGR_US // SAMPLE_US
AREA_MIB = 64
MEASURE_S = float(os.environ.get('MEASURE_S', 10))
MIN_RATIO = 0.5
# longest fault allowed: the debug kernel (TIMEOUT_SCALE=4) is slower
MAX_FAULT_S = 1.0 * float(os.environ.get('TIMEOUT_SCALE', 1))
CGROUPS = ('worst-case-a', 'worst-case-b')
FAULT_WORKLOAD = os.path.join(dp.BUILD, 'tools', 'fault-workload')
SYSCTLS = {'kernel/panic_on_warn': '1', 'kernel/softlockup_panic': '1'}


class FaultWorkload:
    """tools/fault-workload: faults on AREA_MIB of anonymous memory."""

    def __init__(self):
        self.proc = subprocess.Popen([FAULT_WORKLOAD, str(AREA_MIB)],
                                     stdout=subprocess.PIPE, text=True)
        for line in self.proc.stdout:
            if line.startswith('ready'):
                break
        else:
            raise dp.Fail('fault-workload exited: rc %s' % self.proc.wait())
        self.pid = self.proc.pid

    def measure(self, what):
        """Faults per second and the longest fault in seconds, over
        MEASURE_S seconds."""
        os.kill(self.pid, signal.SIGUSR1)
        self.proc.stdout.readline()     # the faults before this window
        time.sleep(MEASURE_S)
        os.kill(self.pid, signal.SIGUSR1)
        w = self.proc.stdout.readline().split()
        dp.check(len(w) == 6 and w[0] == 'faults',
                 'fault-workload said %r' % w)
        faults, ns, max_ns = int(w[1]), int(w[3]), int(w[5])
        rate = faults / (ns / 1e9)
        dp.log('%s: %d faults in %.1f s: %.0f faults/s, longest fault '
               '%.1f ms' % (what, faults, ns / 1e9, rate, max_ns / 1e6))
        return rate, max_ns / 1e9

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait()


def check_limit():
    """nr_filters above the limit fails and changes nothing."""
    dp.write_probes([{'filters': [dp.probe_filter('anon')] * 2}])
    nr = dp.CTX + '/monitoring_attrs/probes/0/filters/nr_filters'
    for bad in (LIMIT + 1, 1000000):
        err = dp.write_err(nr, bad)
        dp.check(err == 'EINVAL' and dp.read(nr) == '2',
                 'nr_filters %d: %s, nr_filters reads %s; want EINVAL, 2'
                 % (bad, err, dp.read(nr)))
    dp.check(dp.write_err(nr, LIMIT) is None, 'nr_filters %d failed' % LIMIT)
    dp.log('nr_filters %d and 1000000: EINVAL; %d: fine' % (LIMIT + 1, LIMIT))


def worst_probes():
    """NR_PROBES probes of NR_FILTERS filters, none of which matches the
    target's pages but the last, which rejects: every filter is evaluated on
    every sample and every sample hits."""
    probes = []
    for p in range(NR_PROBES):
        filters = []
        for i in range(NR_FILTERS - 1):
            if i % 4 == 3:
                filters.append(dp.probe_filter(
                    'hugepage_size', sz=(1 << 30, 1 << 30)))
            else:
                filters.append(dp.probe_filter(
                    'memcg', path='/' + CGROUPS[(p + i) % 2]))
        filters.append(dp.probe_filter('memcg', allow=False,
                                       path='/' + CGROUPS[p % 2]))
        probes.append({'filters': filters})
    return probes


def check_windows():
    windows = dp.trace_windows(1, AGGR_US, timeout=600, warmup=2)
    win = windows[0]
    dp.check(len(win) >= NR_REGIONS * 9 // 10,
             '%d regions, want at least %d' % (len(win),
                                               NR_REGIONS * 9 // 10))
    bad = [r for r in win if r.hits != [MAX_HITS] * NR_PROBES]
    dp.check(not bad, '%d of %d regions missed probe hits, e.g. %x-%x: %s'
             % (len(bad), len(win), bad[0].start, bad[0].end, bad[0].hits)
             if bad else '')
    dp.log('one window: %d regions, each with %d hits of each of %d probes '
           'of %d filters' % (len(win), MAX_HITS, NR_PROBES, NR_FILTERS))


def kernel_log():
    return subprocess.run(['dmesg'], capture_output=True,
                          text=True).stdout


def test():
    old = {}
    for k, v in SYSCTLS.items():
        path = '/proc/sys/' + k
        if os.path.exists(path):
            old[path] = dp.read(path)
            dp.write(path, v)
    dp.log('sysctls: %s' % ', '.join('%s=%s' % (k[len('/proc/sys/'):],
                                                 dp.read(k)) for k in old))
    log_before = len(kernel_log())
    for cg in CGROUPS:
        dp.make_memcg(cg)
    wl = FaultWorkload()
    try:
        run(wl)
    finally:
        # DAMON first: a vaddr kdamond stops by itself once its target
        # exits, and 'off' would then fail with EPERM
        dp.stop()
        wl.stop()
        for cg in CGROUPS:
            dp.remove_memcg(cg)
        for path, v in old.items():
            dp.write(path, v)
    splats = [line for line in kernel_log()[log_before:].splitlines()
              if 'soft lockup' in line or 'blocked for more than' in line]
    dp.check(not splats, 'kernel log: %s' % splats[:3])


def run(wl):
    dp.setup('vaddr', pid=wl.pid, sample_us=SAMPLE_US, aggr_us=AGGR_US,
             min_nr=NR_REGIONS, max_nr=NR_REGIONS, probes=[],
             stat_scheme=False)
    if 'NR_FILTERS' not in os.environ:
        check_limit()
    dp.write_probes([])

    rate0, _ = wl.measure('no DAMON')
    dp.state('on')
    rate1, max1 = wl.measure('vaddr kdamond, %d regions, sampling every '
                             '%d us, no probe' % (NR_REGIONS, SAMPLE_US))
    t = time.time()
    dp.write_probes(worst_probes())
    dp.state('commit')
    dp.log('%d probes x %d filters written and committed in %.1f s' %
           (NR_PROBES, NR_FILTERS, time.time() - t))
    rate2, max2 = wl.measure('the same with %d probes x %d filters' %
                             (NR_PROBES, NR_FILTERS))
    dp.log('fault rate with probes / without: %.2f (without DAMON: %.0f/s)'
           % (rate2 / rate1, rate0))
    dp.check(rate2 >= MIN_RATIO * rate1,
             'the probes cut the fault rate from %.0f/s to %.0f/s' %
             (rate1, rate2))
    dp.check(max2 <= MAX_FAULT_S, 'a fault took %.2f s with the probes '
             '(%.3f s without)' % (max2, max1))
    check_windows()
    dp.check(dp.read(dp.KD + '/state') == 'on', 'kdamond stopped')


if __name__ == '__main__':
    if not os.access(FAULT_WORKLOAD, os.X_OK):
        dp.log('FAIL: no %s (make -C tools)' % FAULT_WORKLOAD)
        raise SystemExit(1)
    dp.main(test)
