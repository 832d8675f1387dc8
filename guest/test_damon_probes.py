# SPDX-License-Identifier: GPL-2.0
"""Host-side self-test of damon_probes' pure functions: the trace line
parser, the aggregation windows, the tried regions reader (on a fake sysfs
tree in a temporary directory), the errno names, REPO, and the estimates
with their standard errors.  Needs no DAMON
and no guest; from the repo root:

    PYTHONPATH=guest python3 -m unittest test_damon_probes
    python3 -m unittest discover -s guest
"""
import errno
import os
import shutil
import tempfile
import unittest
from unittest import mock

import damon_probes as dp

PREFIX = '       kdamond.0-131     [001] .....    42.123456: '


def event(tid, nr, start, end, acc, age, hits):
    """A trace buffer line of damon:damon_region_aggregated, in the event's
    own format: "target_id=%lu nr_regions=%u %lu-%lu: %u %u probe_hits=%s"
    with one two-digit hex byte per probe (__print_hex)."""
    return PREFIX + ('damon_region_aggregated: target_id=%d nr_regions=%d '
                     '%d-%d: %d %d probe_hits=%s' % (
                         tid, nr, start, end, acc, age,
                         ' '.join('%02x' % h for h in hits)))


class TraceLine(unittest.TestCase):

    def test_fields(self):
        r = dp.parse_trace_line(event(3, 17, 4294967296, 4299161600, 20, 5,
                                      [0x14, 0, 7, 0x10]) + '\n')
        self.assertEqual(r, dp.TraceRegion(
            target_id=3, start=4294967296, end=4299161600, nr_accesses=20,
            age=5, hits=[20, 0, 7, 16], nr_regions=17))

    def test_saturated(self):
        # 400 hits of one window: the kernel prints ff, never 90
        r = dp.parse_trace_line(PREFIX + 'damon_region_aggregated: '
                                'target_id=0 nr_regions=1 0-4096: 400 0 '
                                'probe_hits=ff 90 00')
        self.assertEqual(r.hits, [255, 0x90, 0])
        self.assertEqual(r.nr_accesses, 400)

    def test_not_the_event(self):
        for line in ('', '# tracer: nop',
                     PREFIX + 'damon_aggregated: target_id=0 nr_regions=1 '
                     '0-4096: 3 1',
                     PREFIX + 'damon_region_aggregated: target_id=0 '
                     'nr_regions=1 0-4096: 3 1 probe_hits=zz'):
            self.assertIsNone(dp.parse_trace_line(line), line)


class Windows(unittest.TestCase):

    def test_complete_windows_only(self):
        lines = [
            # the end of a window cut by the start of tracing
            event(0, 2, 8192, 12288, 1, 1, [1]),
            event(1, 1, 0, 4096, 1, 1, [1]),
            # two complete windows of two targets
            event(0, 2, 4096, 8192, 20, 2, [20]),
            event(0, 2, 8192, 12288, 10, 2, [5]),
            event(1, 1, 0, 4096, 0, 0, [0]),
            'some other line',
            event(0, 2, 4096, 8192, 20, 3, [10]),
            event(0, 2, 8192, 12288, 10, 3, [0xff]),
            event(1, 1, 0, 4096, 0, 1, [0]),
            # a window cut by the end of tracing
            event(0, 2, 4096, 8192, 20, 4, [20]),
        ]
        wins = dp.parse_windows('\n'.join(lines) + '\n')
        self.assertEqual(len(wins), 2)
        self.assertEqual([(r.target_id, r.start, r.end) for r in wins[0]],
                         [(0, 4096, 8192), (0, 8192, 12288), (1, 0, 4096)])
        self.assertEqual([r.age for r in wins[1]], [3, 3, 1])
        self.assertEqual(wins[1][1].hits, [255])
        self.assertEqual(dp.estimate(wins[0], 0, 20), 4096 + 4096 / 4)


def write_file(path, val):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, 'w') as f:
        f.write('%s\n' % val)


class TriedRegions(unittest.TestCase):

    def setUp(self):
        self.admin = tempfile.mkdtemp()
        patcher = mock.patch.object(dp, 'ADMIN', self.admin)
        patcher.start()
        self.addCleanup(patcher.stop)
        self.addCleanup(shutil.rmtree, self.admin)

    def region(self, top, name, start, end, acc, age, hits):
        """A tried region directory as mm/damon/sysfs-schemes.c makes it."""
        d = os.path.join(top, name)
        for f, v in (('start', start), ('end', end), ('nr_accesses', acc),
                     ('age', age)):
            write_file(os.path.join(d, f), v)
        os.makedirs(os.path.join(d, 'probes'))
        for p, h in enumerate(hits):
            write_file(os.path.join(d, 'probes', str(p), 'hits'), h)
        return d

    def test_read(self):
        top = dp.tried_regions_dir(1, 2, 3)
        self.assertTrue(top.startswith(self.admin + '/kdamonds/1/contexts/2/'
                                       'schemes/3/tried_regions'))
        write_file(os.path.join(top, 'total_bytes'), 12345)
        # 12 regions: number order, not name order
        for i in range(12):
            self.region(top, str(i), i * 4096, (i + 1) * 4096, i, 2 * i,
                        [400, i, 0][:1 + i % 3])
        regions = dp.read_tried_regions(1, 2, 3)
        self.assertEqual(len(regions), 12)
        self.assertEqual(regions[10], dp.Region(
            start=40960, end=45056, nr_accesses=10, age=20, hits=[400, 10]))
        self.assertEqual([r.start for r in regions],
                         [i * 4096 for i in range(12)])
        self.assertEqual(regions[0].hits, [400])

    def test_no_probes(self):
        top = dp.tried_regions_dir()
        self.region(top, '0', 0, 4096, 1, 1, [])
        self.assertEqual(dp.read_tried_regions(), [dp.Region(0, 4096, 1, 1,
                                                             [])])
        shutil.rmtree(os.path.join(top, '0', 'probes'))
        self.assertEqual(dp.read_tried_regions()[0].hits, [])

    def test_malformed(self):
        top = dp.tried_regions_dir()
        d = self.region(top, '0', 0, 4096, 1, 1, [3, 4])
        write_file(os.path.join(d, 'probes', '1', 'hits'), '-1')
        self.assertRaises(dp.Fail, dp.read_tried_regions)
        write_file(os.path.join(d, 'probes', '1', 'hits'), '4 5')
        self.assertRaises(dp.Fail, dp.read_tried_regions)
        os.rename(os.path.join(d, 'probes', '1'),
                  os.path.join(d, 'probes', '2'))
        self.assertRaises(dp.Fail, dp.read_tried_regions)


class Errors(unittest.TestCase):

    def test_errname(self):
        self.assertEqual(dp.errname(OSError(errno.EINVAL, 'x')), 'EINVAL')
        self.assertEqual(dp.errname(OSError(errno.ENOMEM, 'x')), 'ENOMEM')

    def test_write_err(self):
        d = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, d)
        f = os.path.join(d, 'f')
        open(f, 'w').close()
        self.assertIsNone(dp.write_err(f, 12))
        self.assertEqual(dp.read(f), '12')
        self.assertEqual(dp.write(f, b'on\n'), 3)
        # truncated as by a shell's '>'
        dp.write(f, '')
        self.assertEqual(dp.read(f), '')
        # like sysfs files, the file must exist: a write never creates it
        self.assertEqual(dp.write_err(os.path.join(d, 'g'), 1), 'ENOENT')
        self.assertEqual(dp.write_err(os.path.join(d, 'no', 'f'), 1),
                         'ENOENT')
        self.assertEqual(dp.write_err('/dev/full', 1), 'ENOSPC')
        self.assertEqual(dp.write_err(d, 1), 'EISDIR')

    def test_busy_retry(self):
        answers = [OSError(errno.EBUSY, 'busy')] * 2 + ['done']

        def fn(x):
            a = answers.pop(0)
            if isinstance(a, OSError):
                raise a
            return a + x
        before = dp.BUSY_RETRIES[0]
        self.assertEqual(dp.busy_retry(fn, '!'), 'done!')
        self.assertEqual(dp.BUSY_RETRIES[0] - before, 2)
        with self.assertRaises(OSError) as cm:
            dp.busy_retry(os.stat, '/nonexistent/x')
        self.assertEqual(dp.errname(cm.exception), 'ENOENT')


class Paths(unittest.TestCase):

    def test_repo(self):
        here = os.path.dirname(os.path.abspath(dp.__file__))
        self.assertEqual(os.path.basename(here), 'guest')
        self.assertEqual(dp.REPO, os.path.dirname(here))
        self.assertTrue(os.path.isdir(os.path.join(dp.REPO, 'patches')))


class StdError(unittest.TestCase):
    """region_estimate() and mean_se() on cases computed by hand: S h / m
    and S^2 q (1 - q) / m, q = h / m ('plugin') or (h + 1/2) / (m + 1)
    ('shrunk', the default); a sum over n windows has variance sum / n^2."""

    def test_region(self):
        # S = 4, h = 5 of m = 20: p = 1/4, est 1, var 16 * 3/16 / 20
        est, var = dp.region_estimate(4, 5, 20, 'plugin')
        self.assertAlmostEqual(est, 1.0)
        self.assertAlmostEqual(var, 0.15)
        # S = 2, h = 10 of 20: p = 1/2, est 1, var 4 * 1/4 / 20
        est, var = dp.region_estimate(2, 10, 20, 'plugin')
        self.assertAlmostEqual(est, 1.0)
        self.assertAlmostEqual(var, 0.05)
        # the default: q = 10.5/21 = 1/2 here too
        self.assertEqual(dp.region_estimate(2, 10, 20),
                         dp.region_estimate(2, 10, 20, 'shrunk'))
        self.assertAlmostEqual(dp.region_estimate(2, 10, 20)[1], 0.05)
        # bytes: 4 MiB, 1 hit of 20: est 1/5 MiB, var (4 MiB)^2 19/400 / 20
        est, var = dp.region_estimate(4 << 20, 1, 20, 'plugin')
        self.assertEqual(est, (4 << 20) / 20)
        self.assertAlmostEqual(var / (1 << 40), 16 * 19 / 400 / 20)

    def test_none_and_all(self):
        # the plug-in p = 0 or 1: no variance
        self.assertEqual(dp.region_estimate(4096, 0, 20, 'plugin'),
                         (0.0, 0.0))
        self.assertEqual(dp.region_estimate(4096, 20, 20, 'plugin'),
                         (4096.0, 0.0))
        self.assertEqual(dp.region_estimate(1 << 30, 7, 7, 'plugin'),
                         (1 << 30, 0.0))
        # the default keeps one, the same for none and all (q and 1 - q)
        n, a = dp.region_estimate(4096, 0, 20), dp.region_estimate(4096, 20,
                                                                   20)
        self.assertEqual((n[0], a[0]), (0.0, 4096.0))
        self.assertAlmostEqual(n[1], 4096 ** 2 * (0.5 / 21) * (20.5 / 21) /
                               20)
        self.assertAlmostEqual(n[1], a[1])

    def test_formulas(self):
        # S = 4, h = 5 of 20: unbiased 16 * 3/16 / 19; shrunk q = 5.5/21
        self.assertAlmostEqual(dp.region_estimate(4, 5, 20, 'unbiased')[1],
                               3 / 19)
        q = 5.5 / 21
        self.assertEqual(dp.region_estimate(4, 5, 20, 'shrunk'),
                         (1.0, 16 * q * (1 - q) / 20))
        # shrunk: h = 0 and h = m keep a variance, the estimate stays S h / m
        est, var = dp.region_estimate(4096, 0, 20, 'shrunk')
        self.assertEqual(est, 0.0)
        self.assertAlmostEqual(var, 4096 ** 2 * (0.5 / 21) * (20.5 / 21) / 20)
        est, var = dp.region_estimate(4096, 20, 20, 'shrunk')
        self.assertEqual(est, 4096.0)
        self.assertGreater(var, 0)
        # one sample: unbiased falls back to m = 1 rather than dividing by 0
        self.assertEqual(dp.region_estimate(8, 1, 1, 'unbiased'), (8.0, 0.0))
        with self.assertRaises(ValueError):
            dp.region_estimate(8, 1, 2, 'nonesuch')

    def test_mean_of_windows(self):
        # window 1: (4, 5 of 20) and (2, 20 of 20): est 1 + 2, var 0.15
        # window 2: (2, 10 of 20): est 1, var 0.05; mean 2, se sqrt(.2) / 2
        wins = [[(4, 5), (2, 20)], [(2, 10)]]
        est = var = 0.0
        for win in wins:
            for size, hits in win:
                e, v = dp.region_estimate(size, hits, 20, 'plugin')
                est += e
                var += v
        mean, se = dp.mean_se(est, var, len(wins))
        self.assertAlmostEqual(mean, 2.0)
        self.assertAlmostEqual(se, 0.2 ** 0.5 / 2)
        self.assertEqual(dp.mean_se(0.0, 0.0, 3), (0.0, 0.0))


if __name__ == '__main__':
    unittest.main()
