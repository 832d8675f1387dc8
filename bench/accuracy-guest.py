#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Guest side of bench/accuracy.sh: are the standard errors calibrated?

For NWIN aggregation windows (damon_region_aggregated tracepoint) of a
static workload, every probe's estimate of every window is compared with
the page-level truth of the same regions (/proc/kpageflags,
/proc/kpagecgroup, /proc/<pid>/pagemap, read once: the workload does not
change), over all regions ('all') and per hotness band:
z = (estimate - truth) / standard error.  Cases:

  paddr  the biggest System RAM range; root cgroup: 160 MiB anonymous,
         128 MiB tmpfs file, 64 MiB THP; child memcg: 96 MiB anonymous,
         32 MiB THP, all written once, then idle.  Probes: anon, not-anon
         (reject anon: every sample whose page is not an anonymous LRU
         folio, free and kernel pages and unmapped addresses included: a
         missing folio has no attribute, as in mainline), memcg, 2 MiB THP
  paddr-hot  the make run demo's layout, hot and cold: root cgroup 96 MiB
         anonymous and 64 MiB file written over and over, 128 MiB anonymous
         and 96 MiB file idle; child memcg 48 MiB anonymous and 32 MiB THP
         written over and over; the same probes: per band, the regions a
         window calls hot or cold are chosen by the same samples that count
         the hits
  vaddr  one process: 128 MiB anonymous, 64 MiB THP, 96 MiB tmpfs file,
         in a child memcg; the same four probes
  ratio  the paddr case's layout at RATIOS samples per window (one
         number, default 20), read as tried regions of the stat scheme, one snapshot
         per window, so that hits above 255 reach the reader (both
         tracepoints show at most ff); the truth is the mean of snapshots
         before and after the windows, as reading them grows the
         benchmark's own memory: run on the series and on mainline
         7.3 (KERNEL names the kernel; mainline has no hugepage_size
         filter, so no thp probe there) by bench/accuracy-mainline.sh.
         Mainline counts hits in 8 bits and refuses more than 255 samples
         per window only for weighted probes
  vaddr-idle  one process: 16 MiB hot (written over and over), 112 MiB
         cold anonymous; probes "accessed" (set_pgidle prep, allow
         pgidle_unset) and "idle" (set_pgidle prep, allow pgidle_set), with
         20 ms samples and 400 ms windows (the hot loop revisits every page
         well within a sample interval)

The standard error of one region's estimate S * h / m (h hits of m
samples) is computed three ways (damon_probes.region_estimate()):
'plugin' S^2 p (1-p) / m with p = h/m, 'unbiased' the same over m - 1,
'shrunk' p = (h + 1/2) / (m + 1) over m.  Prints one JSON line per case,
probe, band and formula: n windows, mean truth and estimate, mean z, sd
of z, coverage (|z| <= 2), the number of infinite z (se 0, estimate off),
and the mean |relative error| of the mean of each 10 consecutive windows.
"""
import json
import math
import os
import sys
import time

import damon_probes as dp

NWIN = int(os.environ.get('NWIN', 200))
FORMULAS = ('plugin', 'unbiased', 'shrunk')
MEMCG = 'calib'
KPF_LRU, KPF_ANON, KPF_THP = dp.KPF_LRU, dp.KPF_ANON, dp.KPF_THP
THP = dp.probe_filter('hugepage_size', sz=(2 * dp.MIB, 2 * dp.MIB))
PROBES = [('anon', {'filters': [dp.probe_filter('anon')]}),
          ('not-anon', {'filters': [dp.probe_filter('anon', allow=False)]}),
          ('memcg', {'filters': [dp.probe_filter('memcg', path='/' + MEMCG)]}),
          ('thp', {'filters': [THP]})]
IDLE_PROBES = [('accessed', {'preps': ['set_pgidle'], 'filters': [
                   dp.probe_filter('pgidle_unset')]}),
               ('idle', {'preps': ['set_pgidle'], 'filters': [
                   dp.probe_filter('pgidle_set')]})]


def touched(n):
    """A buffer of n bytes whose every page is already there."""
    buf = bytearray(n)
    for i in range(0, n, dp.PAGE):
        buf[i] = 1
    return buf


def read_u64s(path, buf):
    with open(path, 'rb', buffering=0) as f:
        got = f.readinto(buf)
    return memoryview(buf)[:got - got % 8].cast('Q')


class PhysTruth:
    """The attributes of every PFN, from one snapshot of /proc/kpageflags
    and /proc/kpagecgroup."""

    def __init__(self, bufs, memcg_ino):
        # the buffers exist before any snapshot is read (PhysTruth.buffers):
        # the snapshots see the benchmark's memory as it is during the
        # windows (allocating one after a read made anonymous and THP
        # estimates 5 MiB above the truth)
        self.flags = read_u64s('/proc/kpageflags', bufs[0])
        self.cgs = read_u64s('/proc/kpagecgroup', bufs[1])
        self.ino = memcg_ino

    @staticmethod
    def buffers(end_pfn):
        return touched(end_pfn * 8), touched(end_pfn * 8)

    def totals(self):
        """Bytes of every attribute over all PFNs."""
        t = {'anon': 0, 'thp': 0, 'memcg': 0}
        for pfn in range(len(self.flags)):
            for k in self.kinds(pfn):
                t[k] += dp.PAGE
        return t

    def kinds(self, pfn):
        f = self.flags[pfn] if pfn < len(self.flags) else 0
        if not f >> KPF_LRU & 1:
            return ()
        k = ['anon'] if f >> KPF_ANON & 1 else []
        if f >> KPF_THP & 1:
            k.append('thp')
        if self.ino and self.cgs[pfn] == self.ino:
            k.append('memcg')
        return k


class Prefix:
    """Prefix sums over pages [base, base + n) of the attributes that
    kinds(page index) returns."""

    def __init__(self, names, base, n, kinds):
        self.base = base
        self.sums = {k: [0] * (n + 1) for k in names}
        run = dict.fromkeys(names, 0)
        for i in range(n):
            for k in kinds(i):
                if k in run:
                    run[k] += 1
            for k in names:
                self.sums[k][i + 1] = run[k]

    def bytes(self, name, start, end):
        """Bytes with the attribute in [start, end) (byte addresses; pages
        counted whole when they start inside)."""
        s = self.sums[name]
        lo = max(0, (start + dp.PAGE - 1) // dp.PAGE - self.base)
        hi = min(len(s) - 1, max(lo, (end + dp.PAGE - 1) // dp.PAGE -
                                 self.base))
        return (s[hi] - s[lo]) * dp.PAGE


def memcg_ino(path):
    return os.stat(path).st_ino


def collect(ops, pid, probes, sample_us, aggr_us, truth, after=None):
    """NWIN windows of a kdamond with probes, and truth() called after
    the warm-up, before the windows (after() right after them): the
    benchmark holds still while the windows are traced (the trace is
    parsed once, at the end), so that its own memory does not grow into
    the truth."""
    dp.setup(ops, pid=pid, sample_us=sample_us, aggr_us=aggr_us, min_nr=100,
             max_nr=1000, probes=[p for _, p in probes])
    dp.state('on')
    time.sleep(20 * aggr_us / 1e6)
    t = truth()
    dp.trace_start()
    time.sleep(NWIN * aggr_us / 1e6 * 1.1 + 1)
    if after:
        after()
    for _ in range(30):
        with open(dp.TRACING + '/trace') as f:
            text = f.read()
        windows = dp.parse_windows(text)
        if len(windows) >= NWIN:
            break
        time.sleep(NWIN * aggr_us / 1e6 / 4 + 1)
    dp.trace_stop()
    dp.stop()
    dp.check(len(windows) >= NWIN, '%s: %d windows, want %d' %
             (ops, len(windows), NWIN))
    return windows[:NWIN], t


def report(case, names, windows, max_hits, truth_of, drift=None, extra=None):
    """truth_of(name, start, end): bytes of [start, end) with the
    attribute of probe name; drift: {name: bytes the truth changed by
    from before the windows to after them}; extra: keys added to every
    row."""
    for pi, name in enumerate(names):
        # per window and band: est, var per formula, truth
        per = {b: [] for b in dp.BANDS}
        for win in windows:
            acc = {b: [0.0, [0.0] * len(FORMULAS), 0] for b in dp.BANDS}
            for r in win:
                size = r.end - r.start
                if name == 'not-anon':
                    t = size - truth_of('anon', r.start, r.end)
                else:
                    t = truth_of(name, r.start, r.end)
                for b in (dp.band_of(r.nr_accesses, max_hits), 'all'):
                    a = acc[b]
                    for fi, form in enumerate(FORMULAS):
                        est, var = dp.region_estimate(size, r.hits[pi],
                                                      max_hits, form)
                        a[1][fi] += var
                    a[0] += est
                    a[2] += t
            for b in dp.BANDS:
                per[b].append(acc[b])
        for b in dp.BANDS:
            rows = per[b]
            for fi, form in enumerate(FORMULAS):
                row = summary(case, name, b, form, fi, rows)
                if drift is not None and b == 'all':
                    row['drift'] = drift.get(name)
                row.update(extra or {})
                print(json.dumps(row), flush=True)


def summary(case, name, band, form, fi, rows):
    zs, infs = [], 0
    for est, var, truth in rows:
        se = math.sqrt(var[fi])
        if se == 0:
            if est == truth:
                zs.append(0.0)
            else:
                infs += 1
                zs.append(math.copysign(math.inf, est - truth))
        else:
            zs.append((est - truth) / se)
    finite = [z for z in zs if math.isfinite(z)]
    mean_z = sum(finite) / len(finite) if finite else 0.0
    sd_z = (math.sqrt(sum((z - mean_z) ** 2 for z in finite) /
                      max(1, len(finite) - 1)) if finite else 0.0)
    blocks = []
    for i in range(0, len(rows) - 9, 10):
        e = sum(r[0] for r in rows[i:i + 10]) / 10
        t = sum(r[2] for r in rows[i:i + 10]) / 10
        if t > 0:
            blocks.append(abs(e - t) / t)
    return {'case': case, 'probe': name, 'band': band, 'formula': form,
            'n': len(rows), 'truth': sum(r[2] for r in rows) / len(rows),
            'est': sum(r[0] for r in rows) / len(rows),
            'mean_z': mean_z, 'sd_z': sd_z,
            'coverage': sum(1 for z in zs if abs(z) <= 2) / len(zs),
            'inf': infs,
            'rel_err10': sum(blocks) / len(blocks) if blocks else None}


def paddr_workloads(case):
    """The workloads of the paddr cases: 'paddr' (static) or 'paddr-hot'."""
    if case == 'paddr':
        return [dp.Workload('--anon', 160, '--file', 128, '--thp', 64),
                dp.Workload('--anon', 96, '--thp', 32, cgroup=MEMCG)]
    return [dp.Workload('--anon', 96, '--file', 64, '--cold-anon', 128,
                        '--cold-file', 96, '--hot'),
            dp.Workload('--anon', 48, '--thp', 32, '--hot', cgroup=MEMCG)]


def phys_drift(before, after):
    """{probe name: bytes} the truth changed by from PhysTruth before to
    PhysTruth after."""
    t0, t1 = before.totals(), after.totals()
    drift = {k: t1[k] - t0[k] for k in t0}
    drift['not-anon'] = -drift['anon']
    return drift


def phys_prefix(phys, windows):
    """Prefix sums of PhysTruth phys over the range the paddr windows'
    regions cover (every window covers the same monitored range)."""
    start = min(r.start for w in windows for r in w)
    end = max(r.end for w in windows for r in w)
    base = start // dp.PAGE
    return Prefix(['anon', 'thp', 'memcg'], base,
                  (end + dp.PAGE - 1) // dp.PAGE - base,
                  lambda i: phys.kinds(base + i))


def paddr(case='paddr'):
    memcg_path = dp.make_memcg(MEMCG)
    wls = paddr_workloads(case)
    try:
        ino = memcg_ino(memcg_path)
        bufs = PhysTruth.buffers(max_pfn()), PhysTruth.buffers(max_pfn())
        post = []
        windows, phys = collect(
            'paddr', None, PROBES, 5000, 100000,
            lambda: PhysTruth(bufs[0], ino),
            lambda: post.append(PhysTruth(bufs[1], ino)))
        drift = phys_drift(phys, post[0])
        pre = phys_prefix(phys, windows)
    finally:
        for w in wls:
            w.stop()
        dp.remove_memcg(MEMCG)
    report(case, [n for n, _ in PROBES], windows, 20, pre.bytes, drift)


class Spans:
    """Prefix sums of the virtual pages of every address range the
    windows' regions cover (merged: vaddr regions span three areas with
    the gaps between them left out); bytes() as Prefix's."""

    def __init__(self, pid, windows, names, kinds_of):
        spans = []
        for start, end in sorted({(r.start, r.end) for w in windows
                                  for r in w}):
            if spans and start <= spans[-1][1]:
                spans[-1][1] = max(spans[-1][1], end)
            else:
                spans.append([start, end])
        self.spans = []
        for start, end in spans:
            base = start // dp.PAGE
            n = (end + dp.PAGE - 1) // dp.PAGE - base
            ents = dp.pagemap_entries(pid, base * dp.PAGE,
                                      (base + n) * dp.PAGE)

            def kinds(i, ents=ents, base=base):
                e = ents[i]
                if not e >> 63 & 1:
                    return ()
                return kinds_of(e & ((1 << 55) - 1), base + i)
            self.spans.append((start, end, Prefix(names, base, n, kinds)))

    def bytes(self, name, start, end):
        for s, e, pre in self.spans:
            if s <= start < e:
                return pre.bytes(name, start, end)
        raise dp.Fail('region %x-%x outside the spans' % (start, end))


def vaddr():
    memcg_path = dp.make_memcg(MEMCG)
    wl = dp.Workload('--anon', 128, '--thp', 64, '--file', 96, cgroup=MEMCG)
    try:
        ino = memcg_ino(memcg_path)
        bufs = PhysTruth.buffers(max_pfn())
        windows, phys = collect('vaddr', wl.pid, PROBES, 5000, 100000,
                                lambda: PhysTruth(bufs, ino))
        pre = Spans(wl.pid, windows, ['anon', 'thp', 'memcg'],
                    lambda pfn, vpage: phys.kinds(pfn))
    finally:
        wl.stop()
        dp.remove_memcg(MEMCG)
    report('vaddr', [n for n, _ in PROBES], windows, 20, pre.bytes)


def vaddr_idle():
    wl = dp.Workload('--anon', 16, '--cold-anon', 112, '--hot')
    try:
        bufs = PhysTruth.buffers(max_pfn())
        windows, phys = collect('vaddr', wl.pid, IDLE_PROBES, 20000, 400000,
                                lambda: PhysTruth(bufs, 0))
        hot = wl.areas['anon']

        def kinds_of(pfn, vpage):
            if not phys.kinds(pfn):
                return ()
            a = vpage * dp.PAGE
            return ('accessed',) if hot.start <= a < hot.end else ('idle',)
        pre = Spans(wl.pid, windows, ['accessed', 'idle'], kinds_of)
    finally:
        wl.stop()
    report('vaddr-idle', [n for n, _ in IDLE_PROBES], windows, 20, pre.bytes)


def collect_tried(probes, sample_us, aggr_us, nwin, truth, after):
    """nwin windows of a paddr kdamond with probes, each the tried regions
    of one update_schemes_tried_regions (the stat scheme applies at every
    window end, where both kernels show the counts of the window just
    completed), between truth() and after().  The windows are kept as
    tuples, so that the benchmark's own anonymous memory hardly grows
    between the two (keeping Regions and building the truth's prefix sums
    first grew it by 32 MiB, much of it THP, which the windows then
    counted)."""
    dp.setup('paddr', sample_us=sample_us, aggr_us=aggr_us, min_nr=100,
             max_nr=1000, probes=[p for _, p in probes])
    dp.state('on')
    time.sleep(max(3, 5 * aggr_us / 1e6))
    t = truth()
    windows = [[(r.start, r.end, r.nr_accesses, tuple(r.hits))
                for r in dp.tried_regions()] for _ in range(nwin)]
    after()
    dp.stop()
    return [[dp.Region(s, e, a, 0, list(h)) for s, e, a, h in w]
            for w in windows], t


def ratio():
    """One ratio (RATIOS, one number) per process: the process's memory
    from an earlier ratio would be in the next one's windows."""
    kernel = os.environ.get('KERNEL', 'series')
    r = int(os.environ.get('RATIOS', '20'))
    probes = PROBES if kernel == 'series' else PROBES[:3]
    memcg_path = dp.make_memcg(MEMCG)
    wls = paddr_workloads('paddr')
    try:
        ino = memcg_ino(memcg_path)
        bufs = PhysTruth.buffers(max_pfn()), PhysTruth.buffers(max_pfn())
        post = []
        nwin = NWIN if r <= 100 else max(20, NWIN // 2)
        windows, phys = collect_tried(
            probes, 5000, 5000 * r, nwin, lambda: PhysTruth(bufs[0], ino),
            lambda: post.append(PhysTruth(bufs[1], ino)))
        drift = phys_drift(phys, post[0])
        pres = [phys_prefix(t, windows) for t in (phys, post[0])]

        def truth_of(name, s, e):
            # the benchmark's own memory grows while it reads the windows
            # (reading tried_regions: 13 MiB of anonymous memory, THP,
            # over 200 windows), and the estimates follow it: compare them
            # with the mean of the truths before and after the windows
            return sum(p.bytes(name, s, e) for p in pres) / 2
        report('ratio', [n for n, _ in probes], windows, r, truth_of,
               drift, extra={'kernel': kernel, 'ratio': r})
    finally:
        for w in wls:
            w.stop()
        dp.remove_memcg(MEMCG)


def max_pfn():
    """One past the highest PFN of System RAM."""
    return max(e for _, e in dp.system_ram()) // dp.PAGE + 1


CASES = {'paddr': paddr, 'paddr-hot': lambda: paddr('paddr-hot'),
         'vaddr': vaddr, 'vaddr-idle': vaddr_idle, 'ratio': ratio}
for c in (sys.argv[1:] or [c for c in CASES if c != 'ratio']):
    CASES[c]()
