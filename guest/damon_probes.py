# SPDX-License-Identifier: GPL-2.0
"""Helpers for the project's data attributes monitoring VM tests.

Drives DAMON through its sysfs interface, whose data probes ABI the
series' own Documentation patches in patches/ describe:
Documentation/ABI/testing/sysfs-kernel-mm-damon and
Documentation/admin-guide/mm/damon/usage.rst, as the series adds them.  Also reads the
damon:damon_region_aggregated tracepoint, starts the attr-workload helper,
and computes ground truth from /proc/kpageflags, /proc/kpagecgroup and
/proc/<pid>/pagemap.  Used by vm-tests/, demo/ and bench/, which run in
the guest and import it through the PYTHONPATH that guest/init.sh sets.
"""

import contextlib
import errno
import math
import os
from collections import namedtuple
import re
import struct
import subprocess
import sys
import time

ADMIN = '/sys/kernel/mm/damon/admin'
KD = ADMIN + '/kdamonds/0'
CTX = KD + '/contexts/0'
TRACING = '/sys/kernel/tracing'
CGROOT = '/sys/fs/cgroup'
PAGE = os.sysconf('SC_PAGE_SIZE')
MIB = 1 << 20

# this file is <repo>/guest/damon_probes.py
REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BUILD = os.environ.get('BUILD', os.path.join(REPO, 'build'))
WORKLOAD = os.environ.get('ATTR_WORKLOAD',
                          os.path.join(BUILD, 'tools', 'attr-workload'))

KPF_LRU = 5
KPF_ANON = 12
KPF_THP = 22
KPF_NOPAGE = 20


class Fail(Exception):
    pass


def log(*args):
    print('#', *args, flush=True)


def errname(err):
    """The errno.errorcode name ('EINVAL', 'ENOMEM', 'EBUSY'...) of an
    OSError: how the helpers and the tests report and compare errors."""
    return errno.errorcode.get(err.errno, 'errno %s' % err.errno)


BUSY_RETRIES = [0]   # EBUSY answers that busy_retry() retried


def busy_retry(fn, *args):
    """Call fn(*args) until it does not fail with EBUSY, for up to 1 s.
    The DAMON files that take damon_sysfs_lock with a trylock answer EBUSY
    while a kdamond callback holds it for a moment; like any user, try
    again."""
    for _ in range(200):
        try:
            return fn(*args)
        except OSError as e:
            if errname(e) != 'EBUSY':
                raise
            BUSY_RETRIES[0] += 1
            time.sleep(0.005)
    raise OSError(errno.EBUSY, '%s%r: EBUSY for 1 s' % (fn.__name__, args))


def write_once(path, val):
    """One write(2) of val (bytes, or anything str() takes) to path; returns
    the number of bytes written.  Not through a Python text file: when its
    write fails, closing the file writes the buffer again, and that second
    write could succeed where the first one failed."""
    data = val if isinstance(val, bytes) else str(val).encode()
    # O_TRUNC as a shell's '>': writing '' to tracing/trace clears it only so
    fd = os.open(path, os.O_WRONLY | os.O_TRUNC)
    try:
        return os.write(fd, data)
    finally:
        os.close(fd)


def write(path, val):
    """write_once() to a sysfs file, again on EBUSY (see busy_retry());
    returns the number of bytes written."""
    return busy_retry(write_once, path, val)


def read(path):
    with open(path) as f:
        return f.read().strip()


def write_err(path, val):
    """Write; returns the errno name of a failure ('EINVAL'...; see
    errname()), or None."""
    try:
        write(path, val)
        return None
    except OSError as e:
        return errname(e)


def check(cond, msg):
    if not cond:
        raise Fail(msg)


def check_errors(errors):
    """Log every collected error, then fail if there was any."""
    for e in errors:
        log('error:', e)
    check(not errors, '%d errors (see above); first: %s' %
          (len(errors), errors[0] if errors else ''))


# --- DAMON sysfs ----------------------------------------------------------

def probe_filter(ftype, allow=True, matching=True, path=None, sz=None):
    return {'type': ftype, 'allow': allow, 'matching': matching,
            'path': path, 'sz': sz}


def write_probes(probes, ctx=CTX):
    base = ctx + '/monitoring_attrs/probes'
    write(base + '/nr_probes', len(probes))
    for i, p in enumerate(probes):
        pdir = '%s/%d' % (base, i)
        write(pdir + '/weight', p.get('weight', 0))
        # preps only when asked for: kernels before them have no preps/
        if 'preps' in p:
            write(pdir + '/preps/nr_preps', len(p['preps']))
            for j, action in enumerate(p['preps']):
                write('%s/preps/%d/prep_action' % (pdir, j), action)
        filters = p.get('filters', [])
        write(pdir + '/filters/nr_filters', len(filters))
        for j, f in enumerate(filters):
            fdir = '%s/filters/%d' % (pdir, j)
            write(fdir + '/type', f['type'])
            write(fdir + '/matching', 'Y' if f['matching'] else 'N')
            write(fdir + '/allow', 'Y' if f['allow'] else 'N')
            if f.get('path') is not None:
                write(fdir + '/path', f['path'])
            if f.get('sz') is not None:
                write(fdir + '/min', f['sz'][0])
                write(fdir + '/max', f['sz'][1])


def system_ram(merge=True):
    """The top-level 'System RAM' ranges of /proc/iomem as [start, end),
    adjacent ones merged unless merge is False."""
    out = []
    for line in open('/proc/iomem'):
        if line.startswith(' ') or not line.rstrip().endswith(': System RAM'):
            continue
        s, e = (int(x, 16) for x in line.split(' :')[0].split('-'))
        if merge and out and out[-1][1] == s:
            out[-1] = (out[-1][0], e + 1)
        else:
            out.append((s, e + 1))
    if not out:
        raise Fail('no System RAM in /proc/iomem')
    return out


def biggest_system_ram():
    """The largest 'System RAM' range of /proc/iomem, as DAMON_RECLAIM picks
    it: the default physical address range to monitor."""
    return max(system_ram(merge=False), key=lambda r: r[1] - r[0])


def setup(ops='paddr', pid=None, sample_us=5000, aggr_us=100000,
          min_nr=10, max_nr=1000, probes=(), stat_scheme=True,
          regions=None):
    """Configure kdamond 0, the only one, with one context (stopped); the
    arguments are those of setup_kdamond()."""
    if os.path.exists(KD) and read(KD + '/state') == 'on':
        write(KD + '/state', 'off')
    write(ADMIN + '/kdamonds/nr_kdamonds', 1)
    setup_kdamond(KD, ops, pid, sample_us, aggr_us, min_nr, max_nr, probes,
                  stat_scheme, regions)


def setup_kdamond(kd, ops='paddr', pid=None, sample_us=5000, aggr_us=100000,
                  min_nr=10, max_nr=1000, probes=(), stat_scheme=True,
                  regions=None, update_us=1000000):
    """Configure the stopped kdamond directory kd with one context.
    probes=None leaves the probes directory alone (for kernels without it);
    update_us=None leaves the update interval alone.  A paddr context
    monitors the biggest System RAM range unless regions are given."""
    if ops == 'paddr' and not regions:
        regions = [biggest_system_ram()]
    ctx = kd + '/contexts/0'
    write(kd + '/contexts/nr_contexts', 1)
    write(ctx + '/operations', ops)
    attrs = ctx + '/monitoring_attrs'
    write(attrs + '/intervals/sample_us', sample_us)
    write(attrs + '/intervals/aggr_us', aggr_us)
    if update_us is not None:
        write(attrs + '/intervals/update_us', update_us)
    write(attrs + '/nr_regions/min', min_nr)
    write(attrs + '/nr_regions/max', max_nr)
    write(ctx + '/targets/nr_targets', 1)
    if pid is not None:
        write(ctx + '/targets/0/pid_target', pid)
    if regions:
        write(ctx + '/targets/0/regions/nr_regions', len(regions))
        for i, (s, e) in enumerate(regions):
            write('%s/targets/0/regions/%d/start' % (ctx, i), s)
            write('%s/targets/0/regions/%d/end' % (ctx, i), e)
    write(ctx + '/schemes/nr_schemes', 1 if stat_scheme else 0)
    if stat_scheme:
        # a stat scheme trying every region, for tried_regions
        sdir = ctx + '/schemes/0'
        write(sdir + '/action', 'stat')
        write(sdir + '/access_pattern/sz/max', 2**64 - 1)
        write(sdir + '/access_pattern/nr_accesses/max', 2**32 - 1)
        write(sdir + '/access_pattern/age/max', 2**32 - 1)
    if probes is not None:
        write_probes(list(probes), ctx)


def state(cmd):
    write(KD + '/state', cmd)


def kdamond_pid():
    return int(read(KD + '/pid'))


def stop():
    if os.path.exists(KD) and read(KD + '/state') == 'on':
        state('off')


def commit_in_child(timeout):
    """Write 'commit' to kdamond 0's state in a child process, so that a
    write that does not return cannot hang the test: ('ok' or the errno
    name, seconds), or (None, seconds) if it did not return within timeout
    seconds, after which kdamond 0 is turned off to end the write."""
    t0 = time.time()
    proc = subprocess.Popen(
        [sys.executable, '-c', 'import os, sys, errno\n'
         'try:\n'
         '    fd = os.open(sys.argv[1], os.O_WRONLY)\n'
         '    os.write(fd, b"commit")\n'
         '    print("ok")\n'
         'except OSError as e:\n'
         '    print(errno.errorcode.get(e.errno, e.errno))\n',
         KD + '/state'], stdout=subprocess.PIPE, text=True)
    try:
        out, _ = proc.communicate(timeout=timeout)
        return out.strip(), time.time() - t0
    except subprocess.TimeoutExpired:
        stop()
        proc.communicate()
        return None, time.time() - t0


def free_mem_rate():
    """MemFree / MemTotal in per thousand: DAMOS watermarks' free_mem_rate
    metric."""
    info = {}
    for line in open('/proc/meminfo'):
        k, v = line.split(':')
        info[k] = int(v.split()[0])
    return info['MemFree'] * 1000 // info['MemTotal']


def cleanup():
    """Stop and remove the kdamond directories, for the next test."""
    stop()
    write(ADMIN + '/kdamonds/nr_kdamonds', 0)


# One tried region: hits is a list of one int per probe, in probe order.
Region = namedtuple('Region', 'start end nr_accesses age hits')


def tried_regions_dir(kdamond=0, context=0, scheme=0):
    return '%s/kdamonds/%d/contexts/%d/schemes/%d/tried_regions' % (
        ADMIN, kdamond, context, scheme)


def _numbered(d):
    """The numbered entries of directory d, in number order."""
    return sorted((n for n in os.listdir(d) if n.isdigit()), key=int)


def _read_count(path):
    """The unsigned decimal number a sysfs file shows (Fail otherwise)."""
    val = read(path)
    check(val.isdigit(), '%s reads %r, not a decimal number' % (path, val))
    return int(val)


def read_tried_regions(kdamond=0, context=0, scheme=0):
    """The tried regions of a scheme as they are now (no update command), in
    address order, as Regions: <R>/{start,end,nr_accesses,age} and the
    <R>/probes/<P>/hits of every probe.  Fails on a value that is not one
    decimal number and on probe directories that are not 0..N-1."""
    d = tried_regions_dir(kdamond, context, scheme)
    out = []
    for name in _numbered(d):
        r = '%s/%s' % (d, name)
        hits = []
        pdir = r + '/probes'
        if os.path.isdir(pdir):
            probes = _numbered(pdir)
            check(probes == [str(i) for i in range(len(probes))],
                  '%s has probe directories %s' % (pdir, probes))
            hits = [_read_count('%s/%s/hits' % (pdir, p)) for p in probes]
        out.append(Region(_read_count(r + '/start'), _read_count(r + '/end'),
                          _read_count(r + '/nr_accesses'),
                          _read_count(r + '/age'), hits))
    return out


def tried_regions():
    """update_schemes_tried_regions of kdamond 0, then the Regions of its
    scheme 0 (read_tried_regions())."""
    state('update_schemes_tried_regions')
    return read_tried_regions()


# --- the damon_region_aggregated tracepoint -------------------------------

EVENT = TRACING + '/events/damon/damon_region_aggregated'
# "target_id=%lu nr_regions=%u %lu-%lu: %u %u probe_hits=%s", the hits one
# two-digit hex byte per probe (__print_hex), a count above 255 shown as ff
TRACE_RE = re.compile(
    r'damon_region_aggregated: target_id=(\d+) nr_regions=(\d+) '
    r'(\d+)-(\d+): (\d+) (\d+) probe_hits=([0-9a-f ]*)$')

# One damon_region_aggregated event: hits is a list of one int per probe;
# nr_regions is the number of regions of the target in that window.
TraceRegion = namedtuple('TraceRegion', 'target_id start end nr_accesses age '
                         'hits nr_regions')


def parse_trace_line(line):
    """The damon:damon_region_aggregated event of one trace buffer line as
    a TraceRegion, or None if the line is no such event (or malformed)."""
    m = TRACE_RE.search(line.rstrip())
    if not m:
        return None
    tid, nr, s, e, acc, age, hits = m.groups()
    return TraceRegion(int(tid), int(s), int(e), int(acc), int(age),
                       [int(h, 16) for h in hits.split()], int(nr))


def trace_start():
    write(TRACING + '/tracing_on', 0)
    write(TRACING + '/buffer_size_kb', 16384)
    write(TRACING + '/trace', '')
    write(EVENT + '/enable', 1)
    write(TRACING + '/tracing_on', 1)


def trace_stop():
    write(TRACING + '/tracing_on', 0)
    write(EVENT + '/enable', 0)
    with open(TRACING + '/trace') as f:
        text = f.read()
    write(TRACING + '/trace', '')
    return text


def parse_windows(text):
    """Split the event lines into aggregation windows: a window starts where
    the (target, address) order restarts.  Windows missing regions (cut by
    the start or the end of tracing) are dropped.  Each window is a list of
    TraceRegion (see parse_trace_line())."""
    windows, cur, last = [], [], None
    for line in text.splitlines():
        rec = parse_trace_line(line)
        if rec is None:
            continue
        if last is not None and (rec.target_id, rec.start) <= last:
            windows.append(cur)
            cur = []
        cur.append(rec)
        last = (rec.target_id, rec.start)
    windows.append(cur)
    complete = []
    for win in windows:
        per_target = {}
        for rec in win:
            per_target.setdefault(rec.target_id, []).append(rec)
        if win and all(len(recs) == recs[0].nr_regions
                       for recs in per_target.values()):
            complete.append(win)
    return complete


def trace_windows(nr_windows, aggr_us, timeout=None, warmup=10, what=None):
    """Collect nr_windows complete aggregation windows, after letting
    warmup windows pass (DAMON starts with one region per target range and
    splits them at every aggregation until min_nr_regions is reached).
    Fails if fewer were traced before the timeout; what names the run in
    that message."""
    time.sleep(warmup * aggr_us / 1e6)
    trace_start()
    timeout = timeout or max(60, nr_windows * aggr_us / 1e6 * 20)
    deadline = time.time() + timeout
    text = ''
    windows = []
    while time.time() < deadline:
        time.sleep(max(0.5, aggr_us / 1e6 * 2))
        with open(TRACING + '/trace') as f:
            text = f.read()
        windows = parse_windows(text)
        if len(windows) >= nr_windows:
            break
    trace_stop()
    check(len(windows) >= nr_windows, '%sgot %d complete windows in %.0f s, '
          'want %d' % (what + ': ' if what else '', len(windows), timeout,
                       nr_windows))
    return windows[:nr_windows]


def estimate(window, probe, max_hits):
    """Bytes estimated to have the probe's attributes in one window (a
    list of regions with start, end and hits)."""
    return sum((r.end - r.start) * r.hits[probe] / max_hits for r in window)


def region_estimate(size, hits, max_hits, formula='shrunk'):
    """The bytes of one region estimated to have a probe's attributes in
    one aggregation window, and the variance of that estimate from the
    sampling, as a tuple (est, var).

    A region of size S was sampled m = max_hits = aggr_us / sample_us
    times, each time at a random address, and h of the m sampled pages
    matched the probe.  For an attribute that does not change during the
    window h is binomial(m, q), q the fraction of the region's bytes with
    the attribute, so est = S * h / m (unbiased: E[est] = S * q) and
    var = S^2 q (1 - q) / m, with q estimated by formula:

      'shrunk'    (h + 1/2) / (m + 1), the default: h = 0 or m do not
                  claim that the region is all of one kind
      'plugin'    h / m: no variance at all for h = 0 or m
      'unbiased'  h / m, over m - 1 instead of m

    bench/results/accuracy.md measures the three against page-level truth
    (200 windows per case, paddr and vaddr): with 'plugin' and 'unbiased'
    windows of regions that were all of one kind but a page lost their
    error bar (coverage 69-77%); 'shrunk' covers >= 93% where the truth
    holds still.  The regions are sampled independently: the variance of
    a sum over regions (a band) is the sum of their variances; the mean of
    such sums over n windows has variance sum / n^2 (mean_se()).
    tools/damon-probe-metrics.c computes the same (summarize()).  It covers
    the sampling only, not regions whose attribute changes within the
    window nor hits saturated by the tracepoint's one byte per probe."""
    p = hits / max_hits
    if formula == 'plugin':
        return size * p, size * size * p * (1 - p) / max_hits
    if formula == 'unbiased':
        return size * p, size * size * p * (1 - p) / max(1, max_hits - 1)
    if formula == 'shrunk':
        q = (hits + 0.5) / (max_hits + 1)
        return size * p, size * size * q * (1 - q) / max_hits
    raise ValueError('no standard error formula %r' % formula)


def mean_se(est_sum, var_sum, n):
    """The mean over n windows of an estimate whose n per-window values
    sum to est_sum and whose variances sum to var_sum, and its standard
    error: (est_sum / n, sqrt(var_sum) / n) (see region_estimate())."""
    return est_sum / n, math.sqrt(var_sum) / n


BANDS = ['hot', 'warm', 'cold', 'all']


def band_summary(regions, max_hits, nr_windows, nr_probes):
    """Per hotness band (BANDS: band_of()'s and 'all') the mean number of
    regions and bytes per window, and per probe (mean estimate, its
    standard error, mean truth) in bytes over nr_windows windows, from
    regions, the (size, nr_accesses, hits, truths) of every region of every
    window: {band: {'regions', 'total', 'probes': [(est, se, truth)]}}.
    region_estimate() and mean_se() give the estimates and their errors."""
    acc = {b: {'regions': 0, 'total': 0,
               'probes': [[0.0, 0.0, 0.0] for _ in range(nr_probes)]}
           for b in BANDS}
    for size, nr_accesses, hits, truths in regions:
        for b in (band_of(nr_accesses, max_hits), 'all'):
            a = acc[b]
            a['regions'] += 1
            a['total'] += size
            for i in range(nr_probes):
                est, var = region_estimate(size, hits[i], max_hits)
                sums = a['probes'][i]
                sums[0] += est
                sums[1] += var
                sums[2] += truths[i]
    return {b: {'regions': a['regions'] / nr_windows,
                'total': a['total'] / nr_windows,
                'probes': [mean_se(e, v, nr_windows) + (t / nr_windows,)
                           for e, v, t in a['probes']]}
            for b, a in acc.items()}


# --- ground truth --------------------------------------------------------

KPAGE_SCAN = os.environ.get('KPAGE_SCAN',
                            os.path.join(BUILD, 'tools', 'kpage-scan'))


def kpage_scan(ranges, memcg_path=None):
    """Page-level truth of physical address ranges by tools/kpage-scan: for
    each (start, end), a dict of the bytes of its LRU pages that are 'lru',
    'anon', 'memcg' (charged to the cgroup directory memcg_path) and
    'thp'."""
    cmd = [KPAGE_SCAN] + (['--memcg', memcg_path] if memcg_path else [])
    out = subprocess.run(cmd, input=''.join('%d %d\n' % r for r in ranges),
                         capture_output=True, text=True, check=True).stdout
    res = []
    for line in out.splitlines():
        v = [int(x) for x in line.split()]
        res.append({'lru': v[2], 'anon': v[3], 'memcg': v[4], 'thp': v[5]})
    if len(res) != len(ranges):
        raise Fail('kpage-scan answered %d of %d ranges' %
                   (len(res), len(ranges)))
    return res


def window_range(window):
    """The address range [start, end) that a window's regions cover."""
    return (min(r.start for r in window), max(r.end for r in window))


def kpage_truth(start, end, memcg_path=None):
    """Page-level truth of one physical address range (see kpage_scan)."""
    return kpage_scan([(start, end)], memcg_path)[0]


def pagemap_entries(pid, start, end):
    """The /proc/<pid>/pagemap entries of the pages of virtual range
    [start, end): bit 63 present, bit 62 swapped, bits 0-54 the PFN."""
    first, last = start // PAGE, end // PAGE
    with open('/proc/%d/pagemap' % pid, 'rb') as pm:
        pm.seek(first * 8)
        return struct.unpack('%dQ' % (last - first),
                             pm.read((last - first) * 8))


def pagemap_truth(pid, start, end):
    """Count the present pages of virtual range [start, end) of pid that
    are LRU, anonymous and THP-backed, through pagemap and kpageflags."""
    res = {'present': 0, 'lru': 0, 'anon': 0, 'thp': 0}
    with open('/proc/kpageflags', 'rb') as fl:
        for ent in pagemap_entries(pid, start, end):
            if not ent >> 63 & 1:
                continue
            res['present'] += 1
            pfn = ent & ((1 << 55) - 1)
            fl.seek(pfn * 8)
            fv = struct.unpack('Q', fl.read(8))[0]
            if fv >> KPF_LRU & 1:
                res['lru'] += 1
                if fv >> KPF_ANON & 1:
                    res['anon'] += 1
                if fv >> KPF_THP & 1:
                    res['thp'] += 1
    return {k: v * PAGE for k, v in res.items()}


# --- workload and memcg --------------------------------------------------

# One mapping of attr-workload ("area <name> <start> <end> <size>").
Area = namedtuple('Area', 'start end size')


class Workload:
    """attr-workload, optionally started inside a cgroup; areas maps the
    name of each of its mappings to an Area."""

    def __init__(self, *args, cgroup=None):
        cmd = [WORKLOAD] + [str(a) for a in args]
        pre = None
        if cgroup:
            procs = os.path.join(CGROOT, cgroup.lstrip('/'), 'cgroup.procs')

            def pre():
                with open(procs, 'w') as f:
                    f.write('0')
        self.proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True,
                                     preexec_fn=pre)
        self.areas = {}
        for line in self.proc.stdout:
            w = line.split()
            if w[0] == 'area':
                self.areas[w[1]] = Area(int(w[2], 16), int(w[3], 16),
                                        int(w[4]))
            elif w[0] == 'ready':
                break
        else:
            raise Fail('attr-workload exited: rc %s' % self.proc.wait())
        self.pid = self.proc.pid

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait()


@contextlib.contextmanager
def ram_swap(dev='/dev/ram0'):
    """Swap on the RAM disk dev (CONFIG_BLK_DEV_RAM) for as long as the
    with-block runs, for the tests whose DAMOS actions page out."""
    check(os.path.exists(dev), 'no %s: CONFIG_BLK_DEV_RAM' % dev)
    subprocess.run(['mkswap', dev], check=True, stdout=subprocess.DEVNULL)
    subprocess.run(['swapon', dev], check=True)
    try:
        yield
    finally:
        subprocess.run(['swapoff', dev])


def make_memcg(name):
    """Create the child cgroup name with the memory controller; returns its
    directory."""
    write(CGROOT + '/cgroup.subtree_control', '+memory')
    path = os.path.join(CGROOT, name)
    os.makedirs(path, exist_ok=True)
    return path


def remove_memcg(name):
    path = os.path.join(CGROOT, name)
    if os.path.isdir(path):
        os.rmdir(path)


@contextlib.contextmanager
def paddr_layout(memcg):
    """The physical address space layout of the paddr value tests: 160 MiB
    of anonymous and 128 MiB of file-backed memory in the root cgroup and
    96 MiB of anonymous memory in the child cgroup memcg, for as long as
    the with-block runs; yields the child cgroup's directory."""
    memcg_path = make_memcg(memcg)
    try:
        root = Workload('--anon', 160, '--file', 128)
        try:
            child = Workload('--anon', 96, cgroup=memcg)
            try:
                yield memcg_path
            finally:
                child.stop()
        finally:
            root.stop()
    finally:
        remove_memcg(memcg)


def band_of(nr_accesses, max_hits):
    """The hotness band of a region, as the demos and
    tools/damon-probe-metrics define it: 'hot' if it was found accessed in
    half or more of the max_hits samples of a window, 'cold' if in none,
    else 'warm'."""
    if nr_accesses * 2 >= max_hits:
        return 'hot'
    return 'warm' if nr_accesses else 'cold'


def workload_args(layout):
    """attr-workload arguments for a {'anon': MiB, ...} layout, with the
    hot/cold access pattern (--hot)."""
    args = []
    for k, v in layout.items():
        args += ['--' + k, v]
    return args + ['--hot']


def rel_err(est, truth):
    return abs(est - truth) / truth if truth else float('inf')


def main(test):
    """Run test(), print its verdict, always stop DAMON; exit code for the
    runner (0 pass, 1 fail, 4 skip)."""
    if not os.path.isdir(ADMIN):
        log('SKIP: no DAMON sysfs')
        sys.exit(4)
    try:
        test()
    except Fail as e:
        log('FAIL:', e)
        sys.exit(1)
    finally:
        try:
            cleanup()
        except OSError:
            pass
    log('PASS')
    sys.exit(0)
