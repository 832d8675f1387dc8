# SPDX-License-Identifier: GPL-2.0
"""Host-side tests of demo/plot.py: it renders the recorded record
(record.json, of a real `make run`) into
a valid PNG of a sensible size, its figure has the heatmap, the colorbar
and the bars with the bands' and probes' labels, the bars and error bars
are the estimates and +-2 standard errors computed here by hand, and the
heatmap averages access frequencies over the bytes of each row.  Needs
matplotlib (Debian's python3-matplotlib, for /usr/bin/python3); no VM:

    /usr/bin/python3 -m unittest discover -s demo/tests
"""
import contextlib
import io
import json
import math
import os
import struct
import tempfile
import unittest
from unittest import mock

import numpy as np

import demotest
import damon_probes as dp
import plot

GIB = 1 << 30


def png_info(path):
    """(width, height) from a PNG's IHDR, after checking the signature."""
    with open(path, 'rb') as f:
        head = f.read(33)
    if head[:8] != b'\x89PNG\r\n\x1a\n':
        raise AssertionError('%s: no PNG signature: %r' % (path, head[:8]))
    length, kind = struct.unpack('>I4s', head[8:16])
    if kind != b'IHDR' or length != 13:
        raise AssertionError('%s: first chunk %r of %d bytes, not IHDR' %
                             (path, kind, length))
    return struct.unpack('>II', head[16:24])


def by_hand(rec):
    """Per band, per probe: (mean estimate, standard error, mean truth) in
    MiB, written out again: est = sum S h / m, var = sum S^2 q (1-q) / m,
    q = (h + 1/2) / (m + 1), over all windows; mean / n, se = sqrt(var) / n."""
    m, n = rec['max_hits'], rec['windows']
    out = {}
    for band in plot.BANDS:
        res = []
        for i in range(len(rec['probes'])):
            est = var = truth = 0.0
            for win in rec['regions']:
                for s, e, acc, hits, tr in win:
                    b = ('hot' if 2 * acc >= m else 'warm' if acc else 'cold')
                    if band not in (b, 'all'):
                        continue
                    q = (hits[i] + 0.5) / (m + 1)
                    est += (e - s) * hits[i] / m
                    var += (e - s) ** 2 * q * (1 - q) / m
                    truth += tr[i]
            res.append((est / n / dp.MIB, math.sqrt(var) / n / dp.MIB,
                        truth / n / dp.MIB))
        out[band] = res
    return out


class Render(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        cls.path = demotest.record_path()
        cls.rec = plot.load(cls.path)
        cls.fig = plot.figure(cls.rec)
        # the order of creation: the heatmap, the bars, the colorbar
        axes = cls.fig.axes + [None] * 3
        cls.heat, cls.bars, cls.cbar = axes[:3]

    def test_png(self):
        with tempfile.TemporaryDirectory() as d:
            out = os.path.join(d, 'attributes.png')
            with contextlib.redirect_stdout(io.StringIO()):
                plot.main(['plot.py', self.path, out])
            w, h = png_info(out)
            size = os.path.getsize(out)
        self.assertTrue(800 <= w <= 4000 and 400 <= h <= 3000, (w, h))
        self.assertTrue(20e3 <= size <= 2e6, size)

    def test_panels(self):
        # the heatmap, its colorbar, the bars
        self.assertEqual(len(self.fig.axes), 3, self.fig.axes)
        self.assertEqual(len(self.heat.images), 1)
        self.assertIs(self.heat.images[0].colorbar.ax, self.cbar)
        self.assertIn('nr_accesses', self.cbar.get_ylabel())
        self.assertIn('address', self.heat.get_ylabel())
        self.assertIn('%d windows of %g ms' % (
            self.rec['windows'], self.rec['aggr_us'] / 1e3),
            self.fig._suptitle.get_text())

    def test_labels(self):
        self.assertEqual([t.get_text() for t in self.bars.get_xticklabels()],
                         plot.BANDS)
        legend = [t.get_text() for t in self.bars.get_legend().get_texts()]
        for name in self.rec['probes']:
            self.assertIn('%s: estimate' % name, legend)
        self.assertTrue(any('±2 se' in t for t in legend), legend)
        self.assertTrue(any(t.startswith('true') for t in legend), legend)

    def test_bars_and_error_bars(self):
        want = by_hand(self.rec)
        nb, npr = len(plot.BANDS), len(self.rec['probes'])
        bars = [p for c in self.bars.containers
                if type(c).__name__ == 'BarContainer' for p in c]
        errs = [c for c in self.bars.containers
                if type(c).__name__ == 'ErrorbarContainer']
        truths = [c for c in self.bars.collections if c.get_gid() == 'truth']
        self.assertEqual((len(bars), len(errs), len(truths)),
                         (nb * npr, npr, npr))
        for i in range(npr):
            segs = errs[i].lines[2][0].get_segments()
            lines = truths[i].get_segments()
            for j, band in enumerate(plot.BANDS):
                est, se, truth = want[band][i]
                self.assertAlmostEqual(bars[i * nb + j].get_height(), est,
                                       places=6)
                (_, lo), (_, hi) = segs[j]
                self.assertAlmostEqual((lo + hi) / 2, est, places=6)
                self.assertAlmostEqual((hi - lo) / 2, 2 * se, places=6,
                                       msg='%s %s' % (band, i))
                self.assertAlmostEqual(lines[j][0][1], truth, places=6)

    def test_table_agrees(self):
        # the picture's numbers are attr-demo.py's table's
        ad = demotest.attr_demo()
        wins, truths, keys = demotest.windows_of(self.rec)
        table = ad.summarize(wins, truths, keys, self.rec['max_hits'])
        pic = plot.summarize(self.rec)
        for b in plot.BANDS:
            for i in range(len(keys)):
                for k, v in zip(('est', 'se', 'truth'), pic[b][i]):
                    self.assertAlmostEqual(table[b][k][i], v, delta=1e-3)


class Heatmap(unittest.TestCase):

    def test_grid(self):
        rec = {'max_hits': 20, 'regions': [
            # window 0: the low GiB always accessed, the high one never
            [[0, GIB, 20, [], []], [GIB, 2 * GIB, 0, [], []]],
            # window 1: a quarter GiB accessed in half of the samples, a
            # quarter not, the rest in all samples
            [[0, GIB // 4, 10, [], []], [GIB // 4, GIB // 2, 0, [], []],
             [GIB // 2, 2 * GIB, 20, [], []]]]}
        grid, base, top = plot.heat_grid(rec, rows=4)
        self.assertEqual((base, top), (0, 2 * GIB))
        np.testing.assert_allclose(grid, [[1, 0.25], [1, 1], [0, 1], [0, 1]])

    def test_gap(self):
        rec = {'max_hits': 10, 'regions': [
            [[0, GIB, 5, [], []], [3 * GIB, 4 * GIB, 10, [], []]]]}
        grid, _, _ = plot.heat_grid(rec, rows=4)
        self.assertEqual(grid[0][0], 0.5)
        self.assertTrue(np.isnan(grid[1][0]) and np.isnan(grid[2][0]))
        self.assertEqual(grid[3][0], 1.0)


class Load(unittest.TestCase):

    def test_console_log(self):
        with open(demotest.record_path()) as f:
            text = f.read()
        with tempfile.TemporaryDirectory() as d:
            log = os.path.join(d, 'demo.log')
            with open(log, 'w') as f:
                f.write('VM-INIT: userspace up\nband regions total\n' +
                        plot.RECORD_PREFIX + text.strip() +
                        '\nVM-EXIT: rc=0\n')
            self.assertEqual(plot.load(log), json.loads(text))
            bad = os.path.join(d, 'bad.json')
            with open(bad, 'w') as f:
                json.dump({'format': 'something else'}, f)
            with self.assertRaises(ValueError):
                plot.load(bad)


class Demo(unittest.TestCase):

    def test_main_prints_record(self):
        # attr-demo.py's main() with damon_probes' guest side replaced by
        # the recorded windows: the table, then one DEMO-RECORD line that
        # plot.load() reads back as the same regions
        ad = demotest.attr_demo()
        rec = plot.load(demotest.record_path())
        wins, truths, keys = demotest.windows_of(rec)
        # the record's settings, as run-demo.sh passes them
        for k, v in (('PROBES', keys), ('MAX_HITS', rec['max_hits']),
                     ('WINDOWS', rec['windows']),
                     ('SAMPLE_US', rec['sample_us']),
                     ('AGGR_US', rec['aggr_us'])):
            setattr(ad, k, v)

        class Workload:
            def __init__(self, *args, **kwargs):
                pass

            def stop(self):
                pass

        out = io.StringIO()
        with tempfile.TemporaryDirectory() as d, \
                mock.patch.multiple(ad.dp, ADMIN=d, Workload=Workload,
                                    make_memcg=lambda name: d,
                                    remove_memcg=lambda name: None,
                                    setup=mock.DEFAULT, state=mock.DEFAULT,
                                    stop=mock.DEFAULT), \
                mock.patch.object(ad.dp, 'trace_windows',
                                  return_value=wins), \
                mock.patch.object(ad.dp, 'kpage_scan', return_value=truths), \
                mock.patch.object(ad.time, 'sleep'), \
                contextlib.redirect_stdout(out):
            ad.main()
            log = os.path.join(d, 'demo.log')
            with open(log, 'w') as f:
                f.write(out.getvalue())
            got = plot.load(log)
        lines = out.getvalue().splitlines()
        self.assertEqual(sum(ln.startswith(plot.RECORD_PREFIX)
                             for ln in lines), 1)
        self.assertTrue(lines[-1].startswith(plot.RECORD_PREFIX))
        self.assertTrue(any(ln.startswith('hot ') for ln in lines))
        self.assertEqual(got['regions'], rec['regions'])
        self.assertEqual(got['probes'], rec['probes'])
        self.assertEqual((got['windows'], got['sample_us'], got['aggr_us']),
                         (rec['windows'], rec['sample_us'], rec['aggr_us']))
        self.assertLess(len(lines[-1]), 400e3)


if __name__ == '__main__':
    unittest.main()
