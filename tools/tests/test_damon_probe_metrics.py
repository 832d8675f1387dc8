# SPDX-License-Identifier: GPL-2.0
"""Unit tests of tools/damon-probe-metrics on DAMON sysfs trees written to a
temporary directory the way the kernel lays them out (no VM, no DAMON):
the estimates and their standard errors, the hotness bands, the filter
labels, 0 and 4 probes, counts above 255, malformed files, kdamonds that
vanish or are replaced while the tool reads them, and the atomic output
that promtool accepts; and on a tree recorded from the guest
(recorded/*.txt).  scripts/check-tools.sh runs them in make check:

    DAMON_PROBE_METRICS=build/tools/damon-probe-metrics \\
        python3 -m unittest discover -v -s tools/tests
"""
import math
import os
import re
import shutil
import stat
import subprocess
import tempfile
import threading
import unittest

REPO = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
TOOL = os.environ.get('DAMON_PROBE_METRICS',
                      os.path.join(REPO, 'build', 'tools',
                                   'damon-probe-metrics'))
MIB = 1 << 20
U64_MAX = 2**64 - 1
U32_MAX = 2**32 - 1


def put(path, val):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, 'w') as f:
        f.write('%s\n' % val)


def flt(ftype, allow=True, matching=True, path=None, sz=None):
    return {'type': ftype, 'allow': allow, 'matching': matching,
            'path': path, 'sz': sz}


STAT_SCHEME = {'action': 'stat', 'sz': (0, U64_MAX),
               'nr_accesses': (0, U32_MAX), 'age': (0, U32_MAX),
               'nr_filters': 0, 'quota_ms': 0, 'quota_bytes': 0}


def write_scheme(sdir, sch, regions):
    put(sdir + '/action', sch['action'])
    for k in ('sz', 'nr_accesses', 'age'):
        put('%s/access_pattern/%s/min' % (sdir, k), sch[k][0])
        put('%s/access_pattern/%s/max' % (sdir, k), sch[k][1])
    put(sdir + '/filters/nr_filters', sch['nr_filters'])
    put(sdir + '/quotas/ms', sch['quota_ms'])
    put(sdir + '/quotas/bytes', sch['quota_bytes'])
    put(sdir + '/quotas/goals/nr_goals', 0)
    put(sdir + '/watermarks/metric', 'none')
    write_tried(sdir + '/tried_regions', regions)


def write_tried(tdir, regions):
    """regions: (start, end, nr_accesses, [hits per probe]); hits None:
    no probes/ directory (a kernel without data probes)."""
    os.makedirs(tdir, exist_ok=True)
    total = 0
    for i, (s, e, acc, hits) in enumerate(regions):
        r = '%s/%d' % (tdir, i)
        put(r + '/start', s)
        put(r + '/end', e)
        put(r + '/nr_accesses', acc)
        put(r + '/age', 3)
        put(r + '/sz_filter_passed', 0)
        if hits is not None:
            os.makedirs(r + '/probes', exist_ok=True)
            for p, h in enumerate(hits):
                put('%s/probes/%d/hits' % (r, p), h)
        total += e - s
    put(tdir + '/total_bytes', total)


def write_kdamond(admin, k, state='on', ops='paddr', sample_us=5000,
                  aggr_us=100000, probes=(), regions=(), schemes=None,
                  targets=None):
    """targets: the paddr ranges [(start, end)] of the one target; default
    the span of the regions."""
    kd = '%s/kdamonds/%d' % (admin, k)
    put(kd + '/state', state)
    put(kd + '/pid', 100 + k)
    put(kd + '/contexts/nr_contexts', 1)
    c = kd + '/contexts/0'
    put(c + '/operations', ops)
    put(c + '/monitoring_attrs/intervals/sample_us', sample_us)
    put(c + '/monitoring_attrs/intervals/aggr_us', aggr_us)
    if probes is not None:
        pb = c + '/monitoring_attrs/probes'
        put(pb + '/nr_probes', len(probes))
        for p, filters in enumerate(probes):
            put('%s/%d/weight' % (pb, p), 0)
            put('%s/%d/filters/nr_filters' % (pb, p), len(filters))
            for i, f in enumerate(filters):
                fd = '%s/%d/filters/%d' % (pb, p, i)
                put(fd + '/type', f['type'])
                put(fd + '/matching', 'Y' if f['matching'] else 'N')
                put(fd + '/allow', 'Y' if f['allow'] else 'N')
                put(fd + '/path', f['path'] or '')
                put(fd + '/min', f['sz'][0] if f['sz'] else 0)
                put(fd + '/max', f['sz'][1] if f['sz'] else 0)
    if targets is None:
        targets = [(min(r[0] for r in regions), max(r[1] for r in regions))
                   ] if regions and ops == 'paddr' else []
    put(c + '/targets/nr_targets', 1)
    put(c + '/targets/0/regions/nr_regions', len(targets))
    for i, (s, e) in enumerate(targets):
        put('%s/targets/0/regions/%d/start' % (c, i), s)
        put('%s/targets/0/regions/%d/end' % (c, i), e)
    schemes = [STAT_SCHEME] if schemes is None else schemes
    put(c + '/schemes/nr_schemes', len(schemes))
    for s, sch in enumerate(schemes):
        write_scheme('%s/schemes/%d' % (c, s), sch, regions)
    return kd


# One sample line of the exposition format: name, labels, value.
SAMPLE_RE = re.compile(r'^([a-z_]+)(?:\{(.*)\})? (\S+)$')
LABEL_RE = re.compile(r'([a-z_]+)="((?:[^"\\]|\\.)*)"')


def parse(text):
    """{(name, frozenset of label items): value} of the samples; checks that
    every sample's family has HELP and TYPE before it and is one block."""
    out, typed, done, cur = {}, set(), set(), None
    for line in text.splitlines():
        if line.startswith('# TYPE '):
            name = line.split()[2]
            assert name not in typed, 'family %s twice' % name
            typed.add(name)
            continue
        if line.startswith('#'):
            continue
        m = SAMPLE_RE.match(line)
        assert m, 'bad sample line %r' % line
        name, labels, val = m.groups()
        assert name in typed, '%s without TYPE' % name
        if name != cur:
            assert name not in done, '%s not in one block' % name
            if cur:
                done.add(cur)
            cur = name
        lab = frozenset(LABEL_RE.findall(labels or ''))
        out[(name, lab)] = float(val)
    return out


def key(name, **labels):
    return (name, frozenset((k, str(v)) for k, v in labels.items()))


class Base(unittest.TestCase):
    """A temporary admin directory and the tool run on it."""

    def setUp(self):
        self.assertTrue(os.access(TOOL, os.X_OK),
                        '%s is not built (make -C tools)' % TOOL)
        # tmpfs, as sysfs, does not reuse the inode numbers of removed
        # directories at once (ext4 can)
        self.dir = tempfile.mkdtemp(prefix='dpm-test.', dir='/dev/shm'
                                    if os.path.isdir('/dev/shm') else None)
        self.admin = self.dir + '/admin'
        self.out = self.dir + '/out/damon.prom'
        os.makedirs(self.dir + '/out')

    def tearDown(self):
        shutil.rmtree(self.dir)

    def fresh(self):
        """An empty tree and output directory again (for subtests)."""
        shutil.rmtree(self.admin, ignore_errors=True)
        shutil.rmtree(self.dir + '/out')
        os.makedirs(self.dir + '/out')

    def nr_kdamonds(self, n):
        put(self.admin + '/kdamonds/nr_kdamonds', n)

    def run_tool(self, *args, rc=0):
        p = subprocess.run([TOOL, '-s', self.admin, '-o', self.out, '-c', '1',
                            '-N'] + list(args), capture_output=True,
                           text=True, timeout=60)
        self.assertEqual(p.returncode, rc, p.stderr)
        self.stderr = p.stderr
        with open(self.out) as f:
            self.text = f.read()
        return parse(self.text)

class Tool(Base):
    """Trees written here, region by region."""

    def test_estimates_bands_and_stderr(self):
        # 20 samples per window; bands: hot >= 10, warm 1..9, cold 0
        self.nr_kdamonds(1)
        write_kdamond(self.admin, 0, probes=[[flt('anon')]], regions=[
            (0, 4 * MIB, 20, [20]),          # hot, all anon
            (4 * MIB, 12 * MIB, 10, [5]),    # hot, a quarter anon
            (12 * MIB, 14 * MIB, 9, [10]),   # warm, half
            (14 * MIB, 30 * MIB, 0, [1]),    # cold, 1/20
        ])
        m = self.run_tool()
        ctx = dict(kdamond=0, context=0, ops='paddr')
        pb = dict(ctx, probe=0, filters='allow anon')
        self.assertEqual(m[key('damon_probe_bytes', band='hot', **pb)],
                         4 * MIB + 2 * MIB)
        self.assertEqual(m[key('damon_probe_bytes', band='warm', **pb)],
                         1 * MIB)
        self.assertEqual(m[key('damon_probe_bytes', band='cold', **pb)],
                         round(16 * MIB / 20))
        # sd of S * h / 20 is S * sqrt(q (1 - q) / 20), q = (h + 1/2) / 21,
        # summed over the band's regions in quadrature
        def var(size, h):
            q = (h + 0.5) / 21
            return size * size * q * (1 - q) / 20
        self.assertEqual(m[key('damon_probe_bytes_stderr', band='hot', **pb)],
                         round(math.sqrt(var(4 * MIB, 20) +
                                         var(8 * MIB, 5))))
        self.assertEqual(
            m[key('damon_probe_bytes_stderr', band='cold', **pb)],
            round(math.sqrt(var(16 * MIB, 1))))
        self.assertEqual(m[key('damon_band_bytes', band='hot', **ctx)],
                         12 * MIB)
        self.assertEqual(m[key('damon_band_regions', band='hot', **ctx)], 2)
        self.assertEqual(m[key('damon_band_regions', band='warm', **ctx)], 1)
        self.assertEqual(m[key('damon_band_regions', band='cold', **ctx)], 1)
        self.assertEqual(m[key('damon_monitored_bytes', **ctx)], 30 * MIB)
        self.assertEqual(m[key('damon_samples_per_window', **ctx)], 20)
        self.assertEqual(m[key('damon_probe_metrics_skipped_contexts')], 0)

    def test_zero_probes(self):
        self.nr_kdamonds(2)
        # probes/ with nr_probes 0, and a kernel without probes at all
        write_kdamond(self.admin, 0, probes=[], regions=[
            (0, MIB, 0, []), (MIB, 3 * MIB, 20, [])])
        write_kdamond(self.admin, 1, probes=None, regions=[
            (0, MIB, 0, None)])
        m = self.run_tool()
        self.assertFalse([k for k in m if k[0].startswith('damon_probe_bytes')])
        self.assertEqual(m[key('damon_band_bytes', kdamond=0, context=0,
                               ops='paddr', band='hot')], 2 * MIB)
        self.assertEqual(m[key('damon_monitored_bytes', kdamond=1, context=0,
                               ops='paddr')], MIB)
        self.assertEqual(m[key('damon_probe_metrics_skipped_contexts')], 0)

    def test_four_probes_and_labels(self):
        self.nr_kdamonds(1)
        probes = [[], [flt('anon', allow=False, matching=False)],
                  [flt('memcg', path='/a "b"\\c'), flt('anon', allow=False)],
                  [flt('hugepage_size', sz=(2 * MIB, 2 * MIB))]]
        write_kdamond(self.admin, 0, ops='vaddr', probes=probes, regions=[
            (4096, 4096 + 2 * MIB, 20, [20, 0, 7, 255 % 20]),
            (8 * MIB, 10 * MIB, 0, [20, 3, 0, 20])])
        m = self.run_tool()
        labels = ['(no filter)', 'reject none anon',
                  'allow memcg /a "b"\\c, reject anon',
                  'allow hugepage_size 2097152 2097152']
        want = {0: (2 * MIB, 2 * MIB), 1: (0, 2 * MIB * 3 / 20),
                2: (2 * MIB * 7 / 20, 0), 3: (2 * MIB * 15 / 20, 2 * MIB)}
        for p, (hot, cold) in want.items():
            pb = dict(kdamond=0, context=0, ops='vaddr', probe=p)
            esc = labels[p].replace('\\', '\\\\').replace('"', '\\"')
            self.assertEqual(m[key('damon_probe_bytes', filters=esc,
                                   band='hot', **pb)], round(hot), p)
            self.assertEqual(m[key('damon_probe_bytes', filters=esc,
                                   band='cold', **pb)], round(cold), p)
        self.assertIn('filters="allow memcg /a \\"b\\"\\\\c, reject anon"',
                      self.text)

    def test_counts_above_255(self):
        # 1 ms samples, 2 s windows: 2000 samples, counts up to 2000
        self.nr_kdamonds(1)
        write_kdamond(self.admin, 0, sample_us=1000, aggr_us=2000000,
                      probes=[[flt('anon')]], regions=[
                          (0, 64 * MIB, 1500, [1999]),
                          (64 * MIB, 128 * MIB, 300, [256])])
        m = self.run_tool()
        pb = dict(kdamond=0, context=0, ops='paddr', probe=0,
                  filters='allow anon')
        self.assertEqual(m[key('damon_probe_bytes', band='hot', **pb)],
                         round(64 * MIB * 1999 / 2000))
        self.assertEqual(m[key('damon_probe_bytes', band='warm', **pb)],
                         round(64 * MIB * 256 / 2000))
        self.assertEqual(m[key('damon_samples_per_window', kdamond=0,
                               context=0, ops='paddr')], 2000)

    def check_left_out(self, why, **kw):
        """kdamond 1 as kw says is left out with why on stderr; kdamond 0
        is still published."""
        self.nr_kdamonds(2)
        write_kdamond(self.admin, 0, probes=[[flt('anon')]],
                      regions=[(0, MIB, 20, [20])])
        kd = write_kdamond(self.admin, 1, probes=[[flt('anon')]],
                           **kw.get('kdamond', {}))
        if 'mutate' in kw:
            kw['mutate'](kd + '/contexts/0')
        m = self.run_tool()
        self.assertEqual(m[key('damon_probe_bytes', kdamond=0, context=0,
                               ops='paddr', probe=0, filters='allow anon',
                               band='hot')], MIB)
        self.assertFalse([k for k in m if ('kdamond', '1') in k[1]],
                         self.text)
        self.assertIn('kdamond 1 context 0 left out', self.stderr)
        self.assertRegex(self.stderr, why)
        self.assertEqual(m[key('damon_probe_metrics_skipped_contexts')], 1)

    def tried(self, ctx, *path):
        return os.path.join(ctx, 'schemes/0/tried_regions', *path)

    def test_malformed_hits(self):
        self.check_left_out(
            r"0/probes/0/hits: '1x' is not a decimal number",
            kdamond={'regions': [(0, MIB, 0, [1])]},
            mutate=lambda c: put(self.tried(c, '0/probes/0/hits'), '1x'))

    def test_negative_and_empty_numbers(self):
        for bad in ('-1', '', '18446744073709551616'):
            with self.subTest(bad=bad):
                self.fresh()
                self.check_left_out(
                    r'0/end: .* is not a decimal number',
                    kdamond={'regions': [(0, MIB, 0, [1])]},
                    mutate=lambda c: put(self.tried(c, '0/end'), bad))

    def test_hits_above_samples_per_window(self):
        self.check_left_out(r'21 hits, above aggr/sample 20',
                            kdamond={'regions': [(0, MIB, 0, [21])]})

    def test_probe_dirs_not_the_probes(self):
        # 2 probe directories in a region of a context with 1 probe
        self.check_left_out(r'2 probe directories, the context has 1',
                            kdamond={'regions': [(0, MIB, 0, [1, 2])]})

    def test_region_numbers_with_a_gap(self):
        def gap(c):
            os.rename(self.tried(c, '1'), self.tried(c, '2'))
        self.check_left_out(r'entry 1 of 2 is named 2',
                            kdamond={'regions': [(0, MIB, 0, [1]),
                                                 (MIB, 2 * MIB, 0, [1])]},
                            mutate=gap)

    def test_no_scheme_trying_every_region(self):
        for field, val in (('nr_filters', 1), ('quota_ms', 10),
                           ('action', 'pageout'), ('nr_accesses', (1, 20)),
                           ('sz', (0, 1 << 30))):
            with self.subTest(field=field):
                self.fresh()
                sch = dict(STAT_SCHEME)
                sch[field] = val
                self.check_left_out(r'no stat scheme trying every region',
                                    kdamond={'regions': [(0, MIB, 0, [1])],
                                             'schemes': [sch]})

    def test_second_scheme_used(self):
        self.nr_kdamonds(1)
        sch = dict(STAT_SCHEME, nr_filters=1)
        kd = write_kdamond(self.admin, 0, probes=[[flt('anon')]],
                           regions=[(0, MIB, 20, [20])],
                           schemes=[sch, STAT_SCHEME])
        # scheme 0 tried other regions: the tool must read scheme 1's
        write_tried(kd + '/contexts/0/schemes/0/tried_regions',
                    [(0, 64 * MIB, 20, [20])])
        m = self.run_tool()
        self.assertEqual(m[key('damon_monitored_bytes', kdamond=0, context=0,
                               ops='paddr')], MIB)

    def test_kdamond_vanished(self):
        # nr_kdamonds says 3: kdamond 1 is gone, kdamond 2 lost its context
        self.nr_kdamonds(3)
        write_kdamond(self.admin, 0, probes=[[flt('anon')]],
                      regions=[(0, MIB, 20, [10])])
        kd = write_kdamond(self.admin, 2, probes=[[flt('anon')]],
                           regions=[(0, MIB, 20, [10])])
        shutil.rmtree(kd + '/contexts/0')
        m = self.run_tool()
        self.assertEqual(m[key('damon_probe_bytes', kdamond=0, context=0,
                               ops='paddr', probe=0, filters='allow anon',
                               band='hot')], MIB // 2)
        self.assertIn('kdamonds/1/state', self.stderr)
        self.assertIn('kdamond 2 context 0 left out', self.stderr)
        self.assertEqual(m[key('damon_probe_metrics_skipped_contexts')], 1)

    def test_off_kdamond_and_no_kdamonds(self):
        self.nr_kdamonds(1)
        write_kdamond(self.admin, 0, state='off', probes=[[flt('anon')]],
                      regions=[(0, MIB, 20, [10])])
        m = self.run_tool()
        self.assertEqual([k[0] for k in m if k[1]], [])
        self.assertEqual(m[key('damon_probe_metrics_skipped_contexts')], 0)
        shutil.rmtree(self.admin)    # no DAMON sysfs at all: an empty read
        m = self.run_tool('-c', '1', rc=0)
        self.assertEqual([k[0] for k in m if k[1]], [])

    def test_atomic_output_and_promtool(self):
        self.nr_kdamonds(1)
        write_kdamond(self.admin, 0, probes=[[flt('anon')], []],
                      regions=[(0, MIB, 20, [10, 20])])
        self.run_tool('-c', '3', '-i', '0')
        self.assertEqual(os.listdir(self.dir + '/out'), ['damon.prom'])
        self.assertEqual(stat.S_IMODE(os.stat(self.out).st_mode), 0o644)
        p = subprocess.run(['promtool', 'check', 'metrics'], input=self.text,
                           capture_output=True, text=True)
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)

    def test_window_replaced_while_read(self):
        """A second reader's update replaces the tried regions while the
        tool reads them (removes them all, then adds the new ones one by
        one, as the kernel does): every published file has one window
        whole (all hits 20, or all hits 0 with other region bounds), never
        a mix or a part."""
        self.nr_kdamonds(1)
        n = 1000
        win_a = [(i * MIB, (i + 1) * MIB, 20, [20]) for i in range(n)]
        # the same span, other region bounds
        win_b = [(max(0, i * MIB - 4096), (i + 1) * MIB - 4096, 0, [0])
                 for i in range(n - 1)] + [((n - 1) * MIB - 4096, n * MIB,
                                            0, [0])]
        kd = write_kdamond(self.admin, 0, probes=[[flt('anon')]],
                           regions=win_a)
        tdir = kd + '/contexts/0/schemes/0/tried_regions'
        stop = threading.Event()

        def replace():
            wins = [win_b, win_a]
            i = 0
            while not stop.is_set():
                # as the kernel does: remove the old regions, add new ones
                for name in os.listdir(tdir):
                    if name.isdigit():
                        shutil.rmtree(os.path.join(tdir, name))
                write_tried(tdir, wins[i % 2])
                i += 1
                stop.wait(0.3)   # the next update comes a bit later
        t = threading.Thread(target=replace)
        t.start()
        published = skipped = 0
        try:
            for _ in range(40):
                p = subprocess.run([TOOL, '-s', self.admin, '-o', self.out,
                                    '-c', '1', '-N'], capture_output=True,
                                   text=True, timeout=60)
                self.assertEqual(p.returncode, 0, p.stderr)
                with open(self.out) as f:
                    m = parse(f.read())
                pb = key('damon_probe_bytes', kdamond=0, context=0,
                         ops='paddr', probe=0, filters='allow anon',
                         band='hot')
                if pb not in m:
                    skipped += 1
                    continue
                published += 1
                mon = m[key('damon_monitored_bytes', kdamond=0, context=0,
                            ops='paddr')]
                self.assertIn((mon, m[pb]), ((n * MIB, n * MIB),
                                             (n * MIB, 0)))
        finally:
            stop.set()
            t.join()
        print('(%d published, %d left out) ' % (published, skipped),
              end='', flush=True)
        self.assertGreater(published, 0)



def load_recorded(name, admin):
    """Write a recorded tree: recorded/<name>.txt has one line per file of
    the DAMON sysfs admin directory, "<path> <content>", as read in the
    guest (the recorder copied every readable file)."""
    with open(os.path.join(os.path.dirname(__file__), 'recorded',
                           name + '.txt')) as f:
        for line in f:
            path, _, val = line.rstrip('\n').partition(' ')
            put(os.path.join(os.path.dirname(admin), path), val)


class Recorded(Base):
    """paddr-4probes.txt: a paddr kdamond of the guest with 1 ms samples
    and 400 ms windows (400 samples: counts above 255), a stat scheme
    trying every region, 10 tried regions and 4 probes (allow anon; allow
    memcg /rec; no filter; allow hugepage_size 2M, reject none anon), read
    right after update_schemes_tried_regions while attr-workload held 64
    MiB anonymous and 32 MiB tmpfs memory and 32 MiB anonymous in /rec."""

    def setUp(self):
        super().setUp()
        load_recorded('paddr-4probes', self.admin)
        self.tried = (self.admin + '/kdamonds/0/contexts/0/schemes/0/'
                      'tried_regions')

    def regions(self):
        """(size, nr_accesses, [hits]) of every recorded region."""
        def rd(name):
            with open('%s/%d/%s' % (self.tried, r, name)) as f:
                return int(f.read())
        out = []
        for r in range(10):
            out.append((rd('end') - rd('start'), rd('nr_accesses'),
                        [rd('probes/%d/hits' % p) for p in range(4)]))
        return out

    def test_recorded_tree(self):
        m = self.run_tool()
        ctx = dict(kdamond=0, context=0, ops='paddr')
        labels = ['allow anon', 'allow memcg /rec', '(no filter)',
                  'allow hugepage_size 2097152 2097152, reject none anon']
        regions = self.regions()
        self.assertEqual(max(h for _, _, hits in regions for h in hits), 400)
        for p, label in enumerate(labels):
            for b in ('hot', 'warm', 'cold'):
                inb = [(sz, hits[p]) for sz, acc, hits in regions
                       if (acc * 2 >= 400) == (b == 'hot') and
                       (acc == 0) == (b == 'cold')]
                pb = dict(ctx, probe=p, filters=label, band=b)
                self.assertEqual(m[key('damon_probe_bytes', **pb)],
                                 round(sum(sz * h / 400 for sz, h in inb)))
                self.assertEqual(
                    m[key('damon_probe_bytes_stderr', **pb)],
                    round(math.sqrt(sum(sz * sz * ((h + .5) / 401) *
                                        (1 - (h + .5) / 401) / 400
                                        for sz, h in inb))))
        # recorded facts: the no-filter probe hit every sample
        self.assertEqual(m[key('damon_probe_bytes', probe=2,
                               filters='(no filter)', band='cold', **ctx)],
                         2146304000)
        self.assertEqual(m[key('damon_monitored_bytes', **ctx)], 2146304000)
        self.assertEqual(m[key('damon_samples_per_window', **ctx)], 400)
        self.assertEqual(m[key('damon_band_regions', band='cold', **ctx)], 10)

    def test_recorded_tree_truncated_hits(self):
        # a hits file read empty, as a region removed mid-read can give
        put(self.tried + '/7/probes/2/hits', '')
        self.run_tool()
        self.assertIn('7/probes/2/hits: \'\' is not a decimal number',
                      self.stderr)
        self.assertNotIn('damon_probe_bytes{', self.text)

    def test_recorded_tree_region_gone(self):
        shutil.rmtree(self.tried + '/9')
        self.run_tool()
        # a window without its last region does not cover the target
        self.assertIn('the tried regions cover', self.stderr)
        self.assertNotIn('damon_probe_bytes{', self.text)


if __name__ == '__main__':
    unittest.main()
