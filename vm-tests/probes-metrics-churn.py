#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""tools/damon-probe-metrics, reading every 0.2 s, while its kdamond changes
under it: commits that flip probe 0 between "allow anon" and "reject anon",
off and on, and the kdamond removed (nr_kdamonds 0) and made again.  The
tool must keep running, publish after every change (the test waits for
a file under the new probes before the next change, up to WAIT_S: a read
takes ~0.3 s on the normal kernel, ~4 s on the debug one), and every file
it publishes must hold one window under the probes its labels name:

  - probe 1 is always "allow anon": with probe 0 "allow anon" too, both
    count the same samples, so their estimates are equal (to the byte);
  - with probe 0 "reject anon", the two are complements: their sum is the
    monitored size, within SLACK (region merges round each probe's
    size-weighted average separately).  A window counted under the old
    probe, or the commit window whose new probe counts 0, is far off: about
    15% of the memory is anonymous here;
  - the bands add up to the monitored range.

Layout: a workload maps 160 MiB of anonymous memory and 128 MiB of a tmpfs
file; DAMON monitors the physical address space.
"""
import os
import re
import shutil
import subprocess
import threading
import time

import damon_probes as dp
import promstack

SAMPLE_US, AGGR_US = 5000, 100000
ROUNDS = 4
SLACK = 0.10
WAIT_S = 120
OUT_DIR = '/tmp/metrics-churn'
OUT = OUT_DIR + '/damon-probes.prom'
SAMPLE_RE = re.compile(r'^([a-z_]+)(?:\{(.*)\})? (\S+)$')
LABEL_RE = re.compile(r'([a-z_]+)="((?:[^"\\]|\\.)*)"')
ANON = dp.probe_filter('anon')
NOT_ANON = dp.probe_filter('anon', allow=False)


def parse(text):
    """{metric name: [(labels dict, value)]}"""
    out = {}
    for line in text.splitlines():
        if line.startswith('#'):
            continue
        m = SAMPLE_RE.match(line)
        dp.check(m, 'bad line %r' % line)
        name, labels, val = m.groups()
        out.setdefault(name, []).append((dict(LABEL_RE.findall(labels or '')),
                                         float(val)))
    return out


class Watcher(threading.Thread):
    """Checks every file the tool publishes (a new inode each time)."""

    def __init__(self, want_bytes):
        super().__init__()
        self.want = want_bytes
        self.stop = threading.Event()
        self.files = 0
        self.by_label = {}
        self.errors = []
        self.changed = threading.Condition()

    def run(self):
        last = None
        while not self.stop.is_set():
            try:
                ino = os.stat(OUT).st_ino
                if ino != last:
                    with open(OUT) as f:
                        text = f.read()
                    last = ino
                    self.check(text)
            except FileNotFoundError:
                pass
            except dp.Fail as e:
                self.errors.append(str(e))
            time.sleep(0.02)

    def check(self, text):
        self.files += 1
        m = parse(text)
        mon = m.get('damon_monitored_bytes', [])
        if not mon:
            self.by_label['(none)'] = self.by_label.get('(none)', 0) + 1
            return
        dp.check(len(mon) == 1, '%d contexts published' % len(mon))
        dp.check(mon[0][1] == self.want, 'monitored %d bytes, want %d' %
                 (mon[0][1], self.want))
        bands = sum(v for _, v in m['damon_band_bytes'])
        dp.check(bands == self.want, 'bands add up to %d, want %d' %
                 (bands, self.want))
        est, label = [0, 0], [None, None]
        for lab, v in m['damon_probe_bytes']:
            p = int(lab['probe'])
            est[p] += v
            label[p] = lab['filters']
        dp.check(label[1] == 'allow anon', 'probe 1 is %r' % label[1])
        with self.changed:
            self.by_label[label[0]] = self.by_label.get(label[0], 0) + 1
            self.changed.notify_all()
        if label[0] == 'allow anon':
            dp.check(abs(est[0] - est[1]) <= 3, 'file %d: probes 0 and 1 '
                     'are both "allow anon" but estimate %d and %d' %
                     (self.files, est[0], est[1]))
        elif label[0] == 'reject anon':
            dp.check(abs(est[0] + est[1] - self.want) <= SLACK * self.want,
                     'file %d: "reject anon" %d + "allow anon" %d is not '
                     'the monitored %d within %.0f%%' %
                     (self.files, est[0], est[1], self.want, SLACK * 100))
        else:
            raise dp.Fail('probe 0 is %r' % label[0])

    def wait_for(self, label, seen, what):
        """Waits for a file past the seen'th with probe 0 named label."""
        with self.changed:
            dp.check(self.changed.wait_for(
                lambda: self.by_label.get(label, 0) > seen, WAIT_S),
                'no file with probe 0 %r within %d s after %s' %
                (label, WAIT_S, what))


def setup(start, end, first):
    dp.setup('paddr', sample_us=SAMPLE_US, aggr_us=AGGR_US, min_nr=100,
             max_nr=1000, regions=[(start, end)],
             probes=[{'filters': [first]}, {'filters': [ANON]}])
    dp.state('on')


def commit_probe0(flt):
    dp.write_probes([{'filters': [flt]}, {'filters': [ANON]}])
    dp.state('commit')


def test():
    wl = dp.Workload('--anon', 160, '--file', 128)
    try:
        run()
    finally:
        wl.stop()


def run():
    start, end = dp.biggest_system_ram()
    page = os.sysconf('SC_PAGE_SIZE')
    want = (end + page - 1) // page * page - start // page * page
    setup(start, end, ANON)
    shutil.rmtree(OUT_DIR, ignore_errors=True)
    os.makedirs(OUT_DIR)
    tool = subprocess.Popen([promstack.METRICS_TOOL, '-o', OUT, '-i', '0.2'],
                            stderr=subprocess.PIPE, text=True)
    watcher = Watcher(want)
    watcher.start()
    changes = 0
    try:
        watcher.wait_for('allow anon', 0, 'the start')
        for r in range(ROUNDS):
            for step in ('reject', 'allow', 'off-on', 'remove'):
                want = 'reject anon' if step == 'reject' else 'allow anon'
                seen = watcher.by_label.get(want, 0)
                if step == 'reject':
                    commit_probe0(NOT_ANON)
                elif step == 'allow':
                    commit_probe0(ANON)
                elif step == 'off-on':
                    dp.state('off')
                    time.sleep(0.5)
                    dp.state('on')
                else:
                    # nr_kdamonds 0: the kdamond is gone.  Reading state
                    # answers EBUSY while the tool's update holds the lock
                    dp.busy_retry(dp.cleanup)
                    time.sleep(0.5)
                    dp.busy_retry(setup, start, end, ANON)
                changes += 1
                watcher.wait_for(want, seen, '%s of round %d' % (step, r))
                dp.check(tool.poll() is None, 'the tool exited (%s) after '
                         '%s of round %d' % (tool.returncode, step, r))
    finally:
        time.sleep(1)
        watcher.stop.set()
        watcher.join()
        tool.terminate()
        _, err = tool.communicate()
    left_out = err.count('left out')
    dp.log('%d changes; %d files published: probe 0 %s; %d reads left a '
           'context out (changing while read)' %
           (changes, watcher.files, watcher.by_label, left_out))
    dp.check_errors(watcher.errors)
    dp.check(tool.returncode in (0, -15), 'the tool ended with %s' %
             tool.returncode)
    for label in ('allow anon', 'reject anon'):
        dp.check(watcher.by_label.get(label, 0) >= ROUNDS,
                 'only %d files with probe 0 %r' %
                 (watcher.by_label.get(label, 0), label))


dp.main(test)
