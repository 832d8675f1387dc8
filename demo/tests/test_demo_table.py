# SPDX-License-Identifier: GPL-2.0
"""Host-side tests of demo/attr-demo.py's table: the z and err columns, the
estimates with their standard errors on a case computed by hand, the width
of the table, and the record it prints.  No VM:

    python3 -m unittest discover -s demo/tests
"""
import contextlib
import io
import json
import unittest

import demotest
import damon_probes as dp

ad = demotest.attr_demo()
MIB = dp.MIB


class ZColumn(unittest.TestCase):

    def test_values(self):
        for est, truth, se, want in (
                (10, 8, 1, '+2.0'), (8, 10, 0.5, '-4.0'), (1, 1, 0.3, '+0.0'),
                (9.96, 0, 1, '+10'), (120, 0, 1, '+120'),
                (0, 250, 0.5, '-500'), (5000, 0, 1, '+5e+03')):
            self.assertEqual(ad.fmt_z(est, truth, se), want, (est, truth, se))

    def test_no_error_bar(self):
        self.assertEqual(ad.fmt_z(5, 5, 0), '-')
        self.assertEqual(ad.fmt_z(0.0, 0.0, 0.0), '-')
        self.assertEqual(ad.fmt_z(5, 4, 0), '+inf')
        self.assertEqual(ad.fmt_z(4, 5, 0), '-inf')

    def test_err(self):
        self.assertEqual(ad.fmt_err(102, 100), '2.0%')
        self.assertEqual(ad.fmt_err(50, 100), '50%')
        self.assertEqual(ad.fmt_err(0.5, 0.4), '-')


def table(wins, truths, names, probes, max_hits):
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        ad.report(wins, truths, names, 1.0, probes=probes, max_hits=max_hits)
    return out.getvalue().splitlines()


def row(lines, band):
    return [c.split() for c in next(ln for ln in lines
                                    if ln.startswith(band + ' ')).split('|')]


class Table(unittest.TestCase):

    def test_by_hand(self):
        # one window: a hot 4 MiB region, 5 of 20 samples anonymous, 1.5 MiB
        # anonymous; a cold 2 MiB region, no hit, no anonymous page
        win = [dp.TraceRegion(0, 0, 4 * MIB, 20, 0, [5], 2),
               dp.TraceRegion(0, 4 * MIB, 6 * MIB, 0, 0, [0], 2)]
        truths = [{'anon': 3 * MIB // 2}, {'anon': 0}]
        lines = table([win], truths, ['anon'], ['anon'], 20)
        # est 1 MiB, q = 5.5/21, se sqrt(16 q (1 - q) / 20) = 0.393,
        # z (1 - 1.5) / 0.393 = -1.27; the cold region: 0 hits, q = 0.5/21,
        # se sqrt(4 q (1 - q) / 20) = 0.068, z 0 (estimate = truth); all:
        # se sqrt(0.393^2 + 0.068^2) = 0.399, z -1.25
        self.assertEqual(row(lines, 'hot'),
                         [['hot', '1.0', '4'], ['1.0±0.4', '1.5', '-1.3',
                                                '33%']])
        self.assertEqual(row(lines, 'cold')[1], ['0.0±0.1', '0.0', '+0.0',
                                                 '-'])
        self.assertEqual(row(lines, 'warm')[0], ['warm', '0.0', '0'])
        self.assertEqual(row(lines, 'all'), [['all', '2.0', '6'],
                                             ['1.0±0.4', '1.5', '-1.3',
                                              '33%']])

    def test_record_table(self):
        rec = demotest.load_record()
        wins, truths, keys = demotest.windows_of(rec)
        lines = table(wins, truths, rec['probes'], keys, rec['max_hits'])
        head = next(i for i, ln in enumerate(lines) if ln.startswith('band'))
        for name in rec['probes']:
            self.assertIn(name, lines[head])
        self.assertEqual(lines[head + 1].split('|')[1].split(),
                         ['est±se', 'MiB', 'true', 'z', 'err'])
        for b in ad.BANDS:
            cells = row(lines, b)
            self.assertEqual(len(cells), 1 + len(rec['probes']), b)
            for c in cells[1:]:
                self.assertRegex(c[0], r'^\d+\.\d±\d+\.\d$')
        self.assertTrue(any('z = (est - true) / se' in ln for ln in lines))
        self.assertLessEqual(max(len(ln) for ln in lines), 106)


class Record(unittest.TestCase):

    def test_round_trip(self):
        win = [dp.TraceRegion(0, 4096, 8192, 3, 0, [1, 0, 2], 1)]
        truths = [{'anon': 4096, 'memcg': 0, 'thp': 8192, 'lru': 4096}]
        rec = json.loads(json.dumps(ad.make_record(
            [win, win], truths * 2, ['a', 'm', 't'], 1.0,
            probes=['anon', 'memcg', 'thp'], max_hits=20)))
        self.assertEqual(rec['windows'], 2)
        self.assertEqual(rec['max_hits'], 20)
        self.assertEqual(rec['probes'], ['a', 'm', 't'])
        self.assertEqual(rec['region_fields'],
                         ['start', 'end', 'nr_accesses', 'hits', 'truth'])
        self.assertEqual(rec['regions'],
                         [[[4096, 8192, 3, [1, 0, 2], [4096, 0, 8192]]]] * 2)


if __name__ == '__main__':
    unittest.main()
