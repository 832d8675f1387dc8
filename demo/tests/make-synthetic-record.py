#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Write a SYNTHETIC demo record (record-synthetic.json, next to this file),
the input of the host-side tests of demo/plot.py when no real record is
there.  Not measured: a made-up physical memory layout resembling
demo/attr-demo.py's workload in a 2 GiB guest (hot and cold anonymous and
file memory in the root cgroup, hot anonymous memory and 2 MiB THPs in the
memcg /demo, the rest free or other page cache), DAMON-like regions that
change a little from window to window, and binomial accesses and probe
hits drawn from the layout.  The format is the real one: the record is
made by attr-demo.py's make_record().

A record of a real `make run` (build/demo/record.json, copied to
demo/tests/record.json) replaces it: the tests prefer that one.

usage: python3 demo/tests/make-synthetic-record.py [OUT]   (deterministic)
"""
import importlib.util
import json
import os
import random
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(REPO, 'guest'))
import damon_probes as dp  # noqa: E402


def load_attr_demo():
    spec = importlib.util.spec_from_file_location(
        'attr_demo', os.path.join(REPO, 'demo', 'attr-demo.py'))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


MIB = 1 << 20
PAGE = 4096
CHUNK = 256 << 10            # layout granularity
START, END = 0x100000, 0x7ffe0000   # q35 with 2 GiB: the biggest System RAM
WINDOWS, MAX_HITS, NR_REGIONS = 20, 20, 150
# kind: (MiB, per-sample access probability, anon, memcg /demo, thp, lru)
KINDS = {
    'anon': (96, 0.97, 1, 0, 0, 1),
    'file': (64, 0.95, 0, 0, 0, 1),
    'cold-anon': (128, 0.0, 1, 0, 0, 1),
    'cold-file': (96, 0.0, 0, 0, 0, 1),
    'demo-anon': (48, 0.97, 1, 1, 0, 1),
    'demo-thp': (32, 0.97, 1, 1, 1, 1),
    'other-cache': (180, 0.01, 0, 0, 0, 1),
    'other-anon': (30, 0.05, 1, 0, 0, 1),
}


def layout(rnd):
    """The kind of every CHUNK of [START, END): runs of 1-16 MiB placed at
    random, more of them high up (the page allocator's habit), THP runs
    2 MiB aligned; None is free memory."""
    n = (END - START) // CHUNK
    kinds = [None] * n
    for kind, (mib, *_rest) in KINDS.items():
        left = mib * MIB // CHUNK
        while left > 0:
            run = min(left, rnd.choice([4, 8, 16, 32, 64]))
            for _ in range(1000):
                pos = int(n * (1 - rnd.random() ** 2))
                if kind == 'demo-thp':
                    per = 2 * MIB // CHUNK
                    pos -= (pos * CHUNK + START) % (2 * MIB) // CHUNK
                    run = max(per, run - run % per)
                if pos >= 0 and pos + run <= n and \
                        all(k is None for k in kinds[pos:pos + run]):
                    kinds[pos:pos + run] = [kind] * run
                    left -= run
                    break
            else:
                raise SystemExit('no room for ' + kind)
    return kinds


def prefix_sums(kinds):
    """Per field (access, anon, memcg, thp, lru): cumulative sums of the
    per-chunk values, for the integral over any address range."""
    sums = [[0.0] for _ in range(5)]
    for k in kinds:
        v = KINDS[k][1:] if k else (0.0, 0, 0, 0, 0)
        for f in range(5):
            sums[f].append(sums[f][-1] + v[f])
    return sums


def integral(sums, f, s, e):
    """The integral of field f over [s, e), in chunk-bytes units / CHUNK."""
    def upto(a):
        x = (a - START) / CHUNK
        i = min(int(x), len(sums[f]) - 2)
        return sums[f][i] + (x - i) * (sums[f][i + 1] - sums[f][i])
    return upto(e) - upto(s)


def binomial(rnd, m, p):
    return sum(rnd.random() < p for _ in range(m))


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
        HERE, 'record-synthetic.json')
    rnd = random.Random(20250101)
    kinds = layout(rnd)
    sums = prefix_sums(kinds)
    # the first window's boundaries: most hot/cold edges of the layout and
    # random ones; every next window moves about a tenth of them
    edges = [START + i * CHUNK for i in range(1, len(kinds))
             if (KINDS[kinds[i]][1] if kinds[i] else 0) !=
             (KINDS[kinds[i - 1]][1] if kinds[i - 1] else 0)]
    bounds = set(rnd.sample(edges, min(len(edges), NR_REGIONS * 2 // 3)))
    while len(bounds) < NR_REGIONS - 1:
        bounds.add(rnd.randrange(START, END) // PAGE * PAGE)
    windows, truths = [], []
    for _ in range(WINDOWS):
        for b in rnd.sample(sorted(bounds), len(bounds) // 10):
            bounds.discard(b)
            if rnd.random() < 0.5:
                bounds.add(rnd.randrange(START, END) // PAGE * PAGE)
            else:
                bounds.add(rnd.choice(edges))
        while len(bounds) < NR_REGIONS - 1:
            bounds.add(rnd.randrange(START, END) // PAGE * PAGE)
        pts = [START] + sorted(bounds - {START, END}) + [END]
        win = []
        for s, e in zip(pts, pts[1:]):
            size = e - s
            acc = integral(sums, 0, s, e) * CHUNK / size
            t = {k: int(integral(sums, f, s, e) * CHUNK) // PAGE * PAGE
                 for f, k in ((1, 'anon'), (2, 'memcg'), (3, 'thp'),
                              (4, 'lru'))}
            hits = [binomial(rnd, MAX_HITS, t[k] / size)
                    for k in ('anon', 'memcg', 'thp')]
            win.append(dp.TraceRegion(0, s, e, binomial(rnd, MAX_HITS, acc),
                                      0, hits, len(pts) - 1))
            truths.append(t)
        windows.append(win)
    demo = load_attr_demo()
    rec = demo.make_record(windows, truths,
                           [demo.PROBE_DEFS[p][0] for p in demo.PROBES],
                           23.0, probes=demo.PROBES, max_hits=MAX_HITS)
    rec['kernel'] = 'SYNTHETIC (demo/tests/make-synthetic-record.py)'
    rec['synthetic'] = True
    with open(out, 'w') as f:
        f.write(json.dumps(rec, separators=(',', ':')) + '\n')
    print('%s: %d windows, %d regions, %d bytes' % (
        out, len(windows), sum(len(w) for w in windows), os.path.getsize(out)))


if __name__ == '__main__':
    main()
