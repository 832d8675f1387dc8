# SPDX-License-Identifier: GPL-2.0
"""Unit tests of tools/damon-probes-setup (no VM, no DAMON): the config
files it accepts and what it writes for them, the errors that name the file
and the cause, and its all-or-nothing start and its stop on a DAMON sysfs
emulated in memory (FakeSysfs) that can refuse any write.  The real kernel
and systemd run it in vm-tests/ and the packaged boot test."""
import errno
import importlib.machinery
import importlib.util
import os
import subprocess
import sys
import tempfile
import unittest

REPO = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
TOOL = os.environ.get('DPS_TOOL', os.path.join(REPO, 'tools', 'damon-probes-setup'))
EXAMPLE = os.path.join(REPO, 'packaging', 'examples', 'fleet.conf')
loader = importlib.machinery.SourceFileLoader('damon_probes_setup', TOOL)
spec = importlib.util.spec_from_loader(loader.name, loader)
dps = importlib.util.module_from_spec(spec)
loader.exec_module(dps)

IOMEM = """00000000-00000fff : Reserved
00001000-0009fbff : System RAM
0009fc00-0009ffff : Reserved
00100000-7ffdffff : System RAM
  01000000-01ffffff : Kernel code
7ffe0000-7fffffff : Reserved
100000000-17fffffff : System RAM
180000000-1bfffffff : System RAM
"""


class FakeSysfs(dps.Sysfs):
    """kdamonds/ as a dict, behind the tool's own retry: 'on' gives a pid;
    nr_kdamonds answers EBUSY while a kdamond is on, as the kernel does;
    fail = {rel: errno} refuses a write; busy = {rel: n} answers EBUSY to
    the next n reads or writes of rel; stops = {k} makes kdamond k stop by
    itself right after 'on'."""

    def __init__(self, nr=0, on=()):
        super().__init__('/fake/admin')
        self.files = {'kdamonds/nr_kdamonds': str(nr)}
        for k in range(nr):
            self.files['kdamonds/%d/state' % k] = 'on' if k in on else 'off'
            self.files['kdamonds/%d/pid' % k] = str(100 + k) if k in on \
                else '-1'
        self.fail, self.busy, self.stops = {}, {}, set()
        self.writes = []
        self.slept = 0.0
        self.next_pid = 1000

    def sleep(self, s):
        self.slept += s

    def _busy(self, rel):
        if self.busy.get(rel, 0) > 0:
            self.busy[rel] -= 1
            raise OSError(errno.EBUSY, os.strerror(errno.EBUSY))

    def raw_write(self, rel, val):
        self._busy(rel)
        if rel in self.fail:
            raise OSError(self.fail[rel], os.strerror(self.fail[rel]))
        if rel == 'kdamonds/nr_kdamonds' and self.running():
            raise OSError(errno.EBUSY, os.strerror(errno.EBUSY))
        self.writes.append((rel, str(val)))
        if rel == 'kdamonds/nr_kdamonds':
            self.files = {k: v for k, v in self.files.items()
                          if not k.startswith('kdamonds/')}
            for k in range(int(val)):
                self.files['kdamonds/%d/state' % k] = 'off'
                self.files['kdamonds/%d/pid' % k] = '-1'
        elif rel.endswith('/state') and val in ('on', 'off'):
            k = int(rel.split('/')[1])
            if val == 'off' and self.files[rel] == 'off':
                raise OSError(errno.EINVAL, 'not running')
            self.next_pid += 1
            run = val == 'on' and k not in self.stops
            self.files[rel] = 'on' if run else 'off'
            self.files['kdamonds/%d/pid' % k] = \
                str(self.next_pid) if run else '-1'
            return
        self.files[rel] = str(val)

    def raw_read(self, rel):
        self._busy(rel)
        if rel not in self.files:
            raise FileNotFoundError(errno.ENOENT, 'No such file', rel)
        return self.files[rel]

    def running(self):
        return [r for r, v in self.files.items()
                if r.endswith('/state') and v == 'on']


class Base(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.dir = self.tmp.name
        self.conf_dir = os.path.join(self.dir, 'conf')
        self.run_dir = os.path.join(self.dir, 'run')
        self.cgroup = os.path.join(self.dir, 'cgroup')
        os.makedirs(self.conf_dir)
        os.makedirs(os.path.join(self.cgroup, 'system.slice'))
        self.iomem = os.path.join(self.dir, 'iomem')
        with open(self.iomem, 'w') as f:
            f.write(IOMEM)
        self.logs = []

    def tearDown(self):
        self.tmp.cleanup()

    def conf(self, text, name='a.conf'):
        path = os.path.join(self.conf_dir, name)
        with open(path, 'w') as f:
            f.write(text)
        return path

    def parse(self, text, name='a.conf'):
        kd = dps.parse_conf(self.conf(text, name), cgroup=self.cgroup)
        dps.resolve_target(kd, self.iomem)
        return kd

    def bad(self, text, *words):
        with self.assertRaises(dps.Error) as cm:
            self.parse(text)
        for w in ('a.conf',) + words:
            self.assertIn(w, str(cm.exception))


class TestConfig(Base):
    def test_example(self):
        """The packaged example: two probes over all System RAM."""
        with open(EXAMPLE) as f:
            kd = self.parse(f.read(), 'fleet.conf')
        w = dict(dps.plan(kd, 0))
        ctx = 'kdamonds/0/contexts/0'
        p = ctx + '/monitoring_attrs/probes'
        self.assertEqual(w[ctx + '/operations'], 'paddr')
        self.assertEqual(w[ctx + '/monitoring_attrs/intervals/sample_us'],
                         5000)
        self.assertEqual(w[ctx + '/monitoring_attrs/intervals/aggr_us'],
                         100000)
        # RAM below 4 GiB in two ranges, the two above merged: 3 ranges
        r = ctx + '/targets/0/regions'
        self.assertEqual(w[r + '/nr_regions'], 3)
        self.assertEqual((w[r + '/0/start'], w[r + '/0/end']),
                         (0x1000, 0x9fc00))
        self.assertEqual((w[r + '/2/start'], w[r + '/2/end']),
                         (0x100000000, 0x1c0000000))
        self.assertEqual(w[p + '/nr_probes'], 2)
        self.assertEqual(w[p + '/0/filters/0/type'], 'anon')
        self.assertEqual(w[p + '/0/filters/0/allow'], 'Y')
        self.assertEqual((w[p + '/1/filters/0/min'], w[p + '/1/filters/0/max']),
                         (2 << 20, 2 << 20))
        self.assertEqual(w[ctx + '/schemes/0/action'], 'stat')
        self.assertEqual(w[ctx + '/schemes/0/access_pattern/sz/max'],
                         2**64 - 1)

    def test_filters_and_probe_settings(self):
        kd = self.parse('[monitor]\nops = paddr\nranges = 0x1000-0x2000 '
                        '4096000-8192000\nsample = 1ms\naggr = 2s\n'
                        'update = 1min\nstat_scheme = no\n'
                        '[probe idle-anon]\nweight = 3\npreps = set_pgidle\n'
                        'filters = allow anon   # anonymous\n'
                        '    reject non pgidle_unset\n')
        w = dps.plan(kd, 1)
        d = dict(w)
        p = 'kdamonds/1/contexts/0/monitoring_attrs/probes/0'
        self.assertEqual(d[p + '/weight'], 3)
        self.assertEqual(d[p + '/preps/0/prep_action'], 'set_pgidle')
        self.assertEqual(d[p + '/filters/nr_filters'], 2)
        self.assertEqual((d[p + '/filters/1/type'], d[p + '/filters/1/allow'],
                          d[p + '/filters/1/matching']),
                         ('pgidle_unset', 'N', 'N'))
        self.assertEqual(d['kdamonds/1/contexts/0/schemes/nr_schemes'], 0)
        self.assertEqual(d['kdamonds/1/contexts/0/monitoring_attrs/'
                           'intervals/update_us'], 60000000)
        self.assertEqual(d['kdamonds/1/contexts/0/targets/0/regions/1/end'],
                         8192000)
        # the count of a directory is written before its entries
        order = [rel for rel, _ in w]
        self.assertLess(order.index(p + '/filters/nr_filters'),
                        order.index(p + '/filters/0/type'))

    def test_none_is_non(self):
        kd = self.parse('[probe a]\nfilters = reject none anon\n'
                        '    allow non memcg /system.slice\n')
        f = kd['probes'][0]['filters']
        self.assertEqual([(x['allow'], x['matching']) for x in f],
                         [(False, False), (True, False)])

    def test_vaddr_pid(self):
        kd = self.parse('[monitor]\nops = vaddr\npid = %d\n'
                        '[probe a]\nfilters = allow anon\n' % os.getpid())
        d = dict(dps.plan(kd, 0))
        self.assertEqual(d['kdamonds/0/contexts/0/targets/0/pid_target'],
                         str(os.getpid()))
        self.assertNotIn('kdamonds/0/contexts/0/targets/0/regions/nr_regions',
                         d)

    def test_errors_name_file_and_cause(self):
        probe = '[probe a]\nfilters = allow anon\n'
        self.bad('[monitor]\nsampel = 5ms\n' + probe, 'sampel', 'unknown')
        self.bad('[monitor]\nsample = 200ms\naggr = 100ms\n' + probe,
                 'sample <= aggr')
        self.bad('[monitor]\nsample = 5 ms s\n' + probe, 'duration')
        self.bad('[monitor]\nnr_regions = 2 10\n' + probe, 'nr_regions')
        self.bad('[monitor]\nops = fvaddr\n' + probe, 'fvaddr')
        self.bad('[monitor]\nops = vaddr\n' + probe, 'pid')
        self.bad('[monitor]\nops = vaddr\npid = 999999999\n' + probe,
                 'no such process')
        self.bad('[monitor]\nranges = 0x2000-0x1000\n' + probe, 'ranges')
        self.bad('[monitor]\nstat_scheme = maybe\n' + probe, 'stat_scheme')
        self.bad('[monitor]\n', 'no [probe NAME]')
        self.bad(''.join('[probe p%d]\nfilters = allow anon\n' % i
                         for i in range(5)), '5 probes, at most 4')
        self.bad('[probes a]\nfilters = allow anon\n', '[probes a]')
        self.bad('[probe a]\nfilters = allow young\n', 'young',
                 'anon, memcg')
        self.bad('[probe a]\nfilters = permit anon\n', 'allow|reject')
        self.bad('[probe a]\nfilters = allow memcg\n', 'memcg takes 1')
        self.bad('[probe a]\nfilters = allow memcg /nope.slice\n',
                 '/nope.slice', 'no such cgroup')
        self.bad('[probe a]\nfilters = allow memcg system.slice\n',
                 'not absolute')
        self.bad('[probe a]\nfilters = allow hugepage_size 2M 4K\n',
                 'min 2097152 > max 4096')
        self.bad('[probe a]\nfilters = allow hugepage_size 2X 4K\n',
                 'not a size')
        self.bad('[probe a]\nweight = -1\nfilters = allow anon\n', 'weight')
        self.bad('[probe a]\npreps = set_young\n', 'set_young')
        self.bad('[probe a]\nfilter = allow anon\n', "'filter'")
        self.bad('[probe a]\nfilters = allow anon\n[probe a]\n', 'already')
        self.bad('filters = allow anon\n', 'no section')
        self.bad('[monitor]\nnr_regions = \u00b3 10\n' + probe, 'nr_regions')
        self.bad('[probe a]\nweight = \u00b2\nfilters = allow anon\n',
                 'weight')
        self.bad('[DEFAULT]\nsample = 5ms\n' + probe, '[DEFAULT]')
        self.bad('[probe a]\nfilters = ' + '\n  allow anon' * 9 + '\n',
                 '9 filters, at most 8')
        self.bad('[probe a]\npreps = ' + 'set_pgidle ' * 5 + '\n',
                 '5 preps, at most 4')
        self.bad('[monitor]\nops = vaddr\npidfile =\n' + probe,
                 'pidfile is empty')
        self.bad('[monitor]\nsample = 99999999999999999999min\n' + probe,
                 'above 2^64-1')
        self.bad('[probe a]\nfilters = allow hugepage_size 2M '
                 '99999999999999999999G\n', 'above 2^64-1')
        self.bad('[monitor]\nsample = 5ms\n[monitor]\n' + probe,
                 'line 3')


class TestStartStop(Base):
    def kds(self, n):
        return [self.parse('[monitor]\nranges = 0x1000-0x100000\n'
                           '[probe a]\nfilters = allow anon\n',
                           '%d.conf' % i) for i in range(n)]

    def start(self, fs, kds):
        dps.start(fs, kds, self.run_dir, self.logs.append)

    def test_start_then_stop(self):
        fs = FakeSysfs()
        self.start(fs, self.kds(2))
        self.assertEqual(sorted(fs.running()),
                         ['kdamonds/0/state', 'kdamonds/1/state'])
        rec = dps.read_record(self.run_dir)
        self.assertEqual([(k, c) for k, _, c in rec],
                         [(0, '0.conf'), (1, '1.conf')])
        self.assertEqual(rec[1][1], int(fs.read('kdamonds/1/pid')))
        self.assertEqual(dps.stop(fs, self.run_dir, self.logs.append), 0)
        self.assertEqual(fs.running(), [])
        self.assertEqual(fs.read('kdamonds/nr_kdamonds'), '0')
        self.assertEqual(dps.read_record(self.run_dir), [])

    def test_refused_on_leaves_nothing(self):
        """The kernel refuses the second kdamond's 'on': the first is
        turned off again and every directory removed."""
        fs = FakeSysfs()
        fs.fail['kdamonds/1/state'] = errno.EINVAL
        with self.assertRaises(dps.Error) as cm:
            self.start(fs, self.kds(2))
        self.assertIn('1.conf', str(cm.exception))
        self.assertIn('EINVAL', str(cm.exception))
        self.assertIn(('kdamonds/0/state', 'off'), fs.writes)
        self.assertEqual(fs.running(), [])
        self.assertEqual(fs.read('kdamonds/nr_kdamonds'), '0')
        self.assertEqual(dps.read_record(self.run_dir), [])

    def test_refused_write_leaves_nothing(self):
        fs = FakeSysfs()
        rel = 'kdamonds/0/contexts/0/monitoring_attrs/probes/0/filters/0/type'
        fs.fail[rel] = errno.EINVAL
        with self.assertRaises(dps.Error) as cm:
            self.start(fs, self.kds(1))
        self.assertIn(rel, str(cm.exception))
        self.assertEqual(fs.running(), [])
        self.assertEqual(fs.read('kdamonds/nr_kdamonds'), '0')

    def test_other_tools_kdamond_untouched(self):
        fs = FakeSysfs(nr=1, on=(0,))
        with self.assertRaises(dps.Error) as cm:
            self.start(fs, self.kds(1))
        self.assertIn('already running', str(cm.exception))
        self.assertEqual(fs.writes, [])

    def test_stop_leaves_a_replaced_kdamond(self):
        """Someone restarted kdamond 0 after us (another pid): stop leaves
        it running and its directories in place."""
        fs = FakeSysfs()
        self.start(fs, self.kds(1))
        fs.files['kdamonds/0/pid'] = '4242'
        self.assertEqual(dps.stop(fs, self.run_dir, self.logs.append), 0)
        self.assertEqual(fs.running(), ['kdamonds/0/state'])
        self.assertEqual(fs.read('kdamonds/nr_kdamonds'), '1')
        self.assertIn('left alone', self.logs[-1])

    def test_busy_is_retried(self):
        """EBUSY (damon-probe-metrics holds DAMON's sysfs lock for an
        update) is waited out, on reads and writes, in start and stop."""
        fs = FakeSysfs()
        fs.busy = {'kdamonds/nr_kdamonds': 3, 'kdamonds/0/state': 5}
        self.start(fs, self.kds(1))
        self.assertEqual(fs.running(), ['kdamonds/0/state'])
        self.assertAlmostEqual(fs.slept, 0.8)
        fs.busy = {'kdamonds/0/state': 4, 'kdamonds/0/pid': 2}
        self.assertEqual(dps.stop(fs, self.run_dir, self.logs.append), 0)
        self.assertEqual(fs.running(), [])
        self.assertEqual(fs.read('kdamonds/nr_kdamonds'), '0')

    def test_busy_for_good(self):
        fs = FakeSysfs()
        fs.busy = {'kdamonds/nr_kdamonds': 10 ** 6}
        with self.assertRaises(dps.Error) as cm:
            self.start(fs, self.kds(1))
        self.assertIn('EBUSY', str(cm.exception))
        self.assertGreaterEqual(fs.slept, dps.Sysfs.BUSY_S)

    def test_refused_off_keeps_the_record(self):
        """A kdamond that does not turn off stays in the record (stop
        fails, the next stop tries again) and its directory stays."""
        fs = FakeSysfs()
        self.start(fs, self.kds(2))
        fs.fail['kdamonds/1/state'] = errno.EPERM
        self.assertEqual(dps.stop(fs, self.run_dir, self.logs.append), 1)
        self.assertEqual(fs.running(), ['kdamonds/1/state'])
        self.assertEqual([r[0] for r in dps.read_record(self.run_dir)], [1])
        self.assertEqual(fs.read('kdamonds/nr_kdamonds'), '2')
        del fs.fail['kdamonds/1/state']
        self.assertEqual(dps.stop(fs, self.run_dir, self.logs.append), 0)
        self.assertEqual(fs.running(), [])
        self.assertEqual(dps.read_record(self.run_dir), [])

    def test_stopped_by_itself(self):
        """A kdamond that stops right after 'on' (a vaddr target that
        exits): start fails and leaves nothing."""
        fs = FakeSysfs()
        fs.stops = {1}
        with self.assertRaises(dps.Error) as cm:
            self.start(fs, self.kds(2))
        self.assertIn('1.conf', str(cm.exception))
        self.assertIn('stopped right after', str(cm.exception))
        self.assertEqual(fs.running(), [])
        self.assertEqual(fs.read('kdamonds/nr_kdamonds'), '0')
        self.assertEqual(dps.read_record(self.run_dir), [])

    def test_failed_rollback_is_said(self):
        """kdamond 1 is refused; turning kdamond 0 off again fails too:
        the error says it is left running."""
        fs = FakeSysfs()
        fs.fail['kdamonds/1/state'] = errno.EINVAL
        orig = fs.raw_write

        def refuse_off(rel, val):
            if rel == 'kdamonds/0/state' and val == 'off':
                raise OSError(errno.EIO, 'no')
            orig(rel, val)
        fs.raw_write = refuse_off
        with self.assertRaises(dps.Error) as cm:
            self.start(fs, self.kds(2))
        self.assertIn('1.conf: the kernel refused it', str(cm.exception))
        self.assertIn('turning kdamond 0 off failed', str(cm.exception))
        self.assertIn('left running', str(cm.exception))

    def test_malformed_record(self):
        os.makedirs(self.run_dir)
        with open(os.path.join(self.run_dir, 'kdamonds'), 'w') as f:
            f.write('0 1001 a.conf\ngarbage\n1\n')
        fs = FakeSysfs()
        self.assertEqual(dps.stop(fs, self.run_dir, self.logs.append), 0)
        self.assertTrue(any('malformed' in m for m in self.logs))

    def test_stop_without_start(self):
        fs = FakeSysfs(nr=1, on=(0,))
        self.assertEqual(dps.stop(fs, self.run_dir, self.logs.append), 0)
        self.assertEqual(fs.writes, [])


class TestCommandLine(Base):
    def run_tool(self, *args):
        return subprocess.run([sys.executable, TOOL] + list(args),
                              capture_output=True, text=True)

    def test_check_prints_the_writes(self):
        self.conf('[monitor]\nranges = 0x1000-0x2000\n'
                  '[probe a]\nfilters = allow anon\n')
        p = self.run_tool('check', '-c', self.conf_dir)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn('kdamonds/0/contexts/0/monitoring_attrs/probes/0/'
                      'filters/0/type anon\n', p.stdout)

    def test_bad_file_fails_before_any_write(self):
        """A bad second file: exit 1, the cause on stderr, and the admin
        directory (here one that does not exist) never opened."""
        self.conf('[monitor]\nranges = 0x1000-0x2000\n'
                  '[probe a]\nfilters = allow anon\n', 'a.conf')
        self.conf('[probe b]\nfilters = allow anonymous\n', 'b.conf')
        p = self.run_tool('start', '-c', self.conf_dir, '-s',
                          os.path.join(self.dir, 'no-admin'), '-r',
                          self.run_dir)
        self.assertEqual(p.returncode, 1)
        self.assertIn("b.conf: [probe b]: filter type 'anonymous'",
                      p.stderr)

    def test_odd_files_skipped(self):
        """A FIFO named *.conf would block the boot: skipped, said."""
        self.conf('[monitor]\nranges = 0x1000-0x2000\n'
                  '[probe a]\nfilters = allow anon\n', 'a.conf')
        os.mkfifo(os.path.join(self.conf_dir, 'b.conf'))
        os.mkdir(os.path.join(self.conf_dir, 'c.conf'))
        p = self.run_tool('check', '-c', self.conf_dir)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn('skipping %s/b.conf' % self.conf_dir, p.stderr)
        self.assertIn('skipping %s/c.conf' % self.conf_dir, p.stderr)

    def test_no_files(self):
        """No config: probes are off, not an error (the unit succeeds)."""
        p = self.run_tool('start', '-c', self.conf_dir, '-s',
                          os.path.join(self.dir, 'no-admin'), '-r',
                          self.run_dir)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn('nothing to start', p.stderr)


if __name__ == '__main__':
    unittest.main()
