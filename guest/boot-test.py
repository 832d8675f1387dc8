#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""The packaged boot test's checks, run by boot-test.service in the disk
image that scripts/check-boot.sh makes (Debian 12, systemd as PID 1, the
packaged kernel and damon-probes, Debian's prometheus-node-exporter).
Every line it prints starts with "BOOT-TEST:" on the serial console.

Boot 1 and boot 2 (after a reboot) each check, with no manual step:
  - PID 1 is systemd and the kernel is the packaged one;
  - damon-probes.service, damon-probe-metrics.service and
    prometheus-node-exporter.service are active, with two kdamonds on (one
    per file of /etc/damon-probes);
  - node_exporter's /metrics serves damon_probe_bytes of the three probes
    of /etc/damon-probes/boot-test.conf (anon, the memcg of
    boot-workload.service, 2 MiB THP), and the mean of SCRAPES scrapes of
    each, all bands, is within TOL (or 4 standard errors of that mean) of
    the page-level truth of the monitored ranges (tools/kpage-scan) while
    boot-workload.service keeps its anonymous and THP memory.
Boot 2 then purges damon-probes (dpkg --purge) and checks that no kdamond
runs, no damon-probe-metrics process is left and its .prom file is gone;
prints "BOOT-TEST: PASS" and reboots, which ends QEMU (scripts/check-boot.sh
runs it with -no-reboot and boots twice).  Any failure prints "BOOT-TEST:
FAIL: <why>" and reboots.
"""
import math
import os
import re
import subprocess
import sys
import time
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
os.environ.setdefault('KPAGE_SCAN', os.path.join(HERE, 'kpage-scan'))
import damon_probes as dp  # noqa: E402

PHASE = '/var/lib/boot-test/phase'
KERNEL = os.environ.get('BOOT_TEST_KERNEL', '')
WORKLOAD_CG = '/system.slice/boot-workload.service'
UNITS = ('damon-probes.service', 'damon-probe-metrics.service',
         'prometheus-node-exporter.service', 'boot-workload.service')
FILTERS = {'anon': 'allow anon',
           'memcg': 'allow memcg %s' % WORKLOAD_CG,
           'thp': 'allow hugepage_size 2097152 2097152'}
PROM = '/var/lib/prometheus/node-exporter/damon-probes.prom'
SCRAPES = 6
TOL = 0.10


def say(msg):
    print('BOOT-TEST: %s' % msg, flush=True)


def sh(*cmd):
    return subprocess.run(cmd, capture_output=True, text=True)


def wait(cond, what, timeout=180):
    """Until cond() is true; an exception of cond() (node_exporter not
    listening yet, EBUSY) counts as false until the timeout."""
    t, last = time.time(), None
    while time.time() - t < timeout:
        try:
            if cond():
                return
        except (OSError, dp.Fail, KeyError, ValueError) as e:
            last = e
        time.sleep(2)
    raise dp.Fail('%s: not within %d s%s' % (what, timeout,
                                             ' (%s)' % last if last else ''))


def sysfs_read(path):
    """A DAMON sysfs file, waiting out EBUSY: damon-probe-metrics holds
    DAMON's sysfs lock for one or two aggregation intervals per update."""
    t = time.time()
    while True:
        try:
            return dp.busy_retry(dp.read, path)
        except OSError as e:
            if dp.errname(e) != 'EBUSY' or time.time() - t > 30:
                raise


def labels(line):
    """The labels of a Prometheus text line as a dict (node_exporter
    sorts them by name)."""
    inside = line[line.index('{') + 1:line.rindex('}')]
    return dict(re.findall(r'([a-z_]+)="((?:[^"\\]|\\.)*)"', inside))


def scrape():
    """{probe name: (bytes, stderr)} of kdamond 0 (boot-test.conf; kdamond
    1 is the package's damon-probes.conf), all bands, from node_exporter."""
    with urllib.request.urlopen('http://127.0.0.1:9100/metrics',
                                timeout=30) as r:
        text = r.read().decode()
    est, var = {}, {}
    for line in text.splitlines():
        for name, metric in (('b', 'damon_probe_bytes{'),
                             ('s', 'damon_probe_bytes_stderr{')):
            if not line.startswith(metric):
                continue
            lab = labels(line)
            if lab.get('kdamond') != '0':
                continue
            f = lab['filters']
            v = float(line.split()[-1])
            if name == 'b':
                est[f] = est.get(f, 0) + v
            else:
                var[f] = var.get(f, 0) + v * v
    return {p: (est[f], math.sqrt(var.get(f, 0)))
            for p, f in FILTERS.items() if f in est}


def target_ranges():
    t = dp.CTX + '/targets/0/regions'

    def rd(path):
        return int(sysfs_read(path))
    return [(rd('%s/%d/start' % (t, i)), rd('%s/%d/end' % (t, i)))
            for i in range(rd(t + '/nr_regions'))]


def truth(ranges):
    """{probe name: bytes} of the ranges, from /proc/kpageflags and
    /proc/kpagecgroup."""
    tot = {'anon': 0, 'memcg': 0, 'thp': 0}
    for r in dp.kpage_scan(ranges, dp.CGROOT + WORKLOAD_CG):
        for k in tot:
            tot[k] += r[k]
    return tot


def check_boot(boot):
    exe = os.readlink('/proc/1/exe')
    dp.check(exe.endswith('/systemd'), 'PID 1 is %s' % exe)
    rel = os.uname().release
    dp.check(rel == KERNEL, 'kernel %s, packaged %s' % (rel, KERNEL))
    say('boot %d: kernel %s, PID 1 %s' % (boot, rel, exe))

    def active():
        return all(sh('systemctl', 'is-active', '--quiet', u).returncode == 0
                   for u in UNITS)
    try:
        wait(active, 'the units active')
    finally:
        for u in UNITS:
            say('  %s: %s' % (u, sh('systemctl', 'is-active', u).stdout.strip()))
    for k in (0, 1):
        dp.check(sysfs_read('%s/kdamonds/%d/state' %
                               (dp.ADMIN, k)) == 'on', 'kdamond %d is not on'
                 % k)
    wait(lambda: len(scrape()) == len(FILTERS), 'damon_probe_bytes of the '
         'three probes on node_exporter\'s /metrics')
    ranges = target_ranges()
    sums = {p: [0.0, 0.0, 0.0] for p in FILTERS}   # est, se^2, truth
    last = os.stat(PROM).st_mtime      # the next file is a new window
    for i in range(SCRAPES):
        wait(lambda: os.stat(PROM).st_mtime != last, 'a new .prom file', 60)
        last = os.stat(PROM).st_mtime
        est = scrape()
        tr = truth(ranges)
        for p in FILTERS:
            sums[p][0] += est[p][0] / SCRAPES
            sums[p][1] += est[p][1] ** 2 / SCRAPES ** 2
            sums[p][2] += tr[p] / SCRAPES
    for p, (e, v, t) in sums.items():
        se = math.sqrt(v)
        ok = abs(e - t) <= max(TOL * t, 4 * se)
        say('  %-5s %8.1f +- %5.1f MiB, truth %8.1f MiB: %s' %
            (p, e / dp.MIB, se / dp.MIB, t / dp.MIB, 'ok' if ok else 'OFF'))
        dp.check(ok, '%s estimate %.1f MiB, truth %.1f MiB (tolerance '
                 '%.0f%% or 4 se)' % (p, e / dp.MIB, t / dp.MIB, TOL * 100))
    dp.check(sums['memcg'][2] >= 64 * dp.MIB and sums['thp'][2] >= 16 *
             dp.MIB, 'the workload is not there (truth memcg %.1f, THP %.1f '
             'MiB)' % (sums['memcg'][2] / dp.MIB, sums['thp'][2] / dp.MIB))


def check_purge():
    p = sh('dpkg', '--purge', 'damon-probes')
    dp.check(p.returncode == 0, 'dpkg --purge: %s' % p.stderr.strip())
    say('purged damon-probes')
    nr = int(sysfs_read(dp.ADMIN + '/kdamonds/nr_kdamonds'))
    on = [k for k in range(nr)
          if sysfs_read('%s/kdamonds/%d/state' % (dp.ADMIN, k))
          == 'on']
    dp.check(not on, 'kdamonds %s still on after the purge' % on)
    dp.check(sh('pgrep', '-x', 'damon-probe-met').returncode != 0,
             'damon-probe-metrics still runs after the purge')
    dp.check(not os.path.exists(PROM), '%s left after the purge' % PROM)
    dp.check(not os.path.exists('/etc/damon-probes/damon-probes.conf'),
             'the conffile left after the purge')
    say('after the purge: %d kdamond directories, none on; no '
        'damon-probe-metrics; no %s' % (nr, os.path.basename(PROM)))


def main():
    os.makedirs(os.path.dirname(PHASE), exist_ok=True)
    try:
        with open(PHASE) as f:
            boot = int(f.read())
    except FileNotFoundError:
        boot = 1
    try:
        check_boot(boot)
        if boot == 1:
            with open(PHASE, 'w') as f:
                f.write('2')
            os.sync()
            say('boot 1 passed: rebooting')
            sh('systemctl', 'reboot')
            return
        check_purge()
        say('PASS')
    except Exception as e:      # any: the guest must power off
        say('FAIL: %s: %s' % (type(e).__name__, e))
    os.sync()
    # the guest kernel has no ACPI to power off: a reboot ends QEMU
    # (-no-reboot)
    sh('systemctl', 'reboot')


main()
