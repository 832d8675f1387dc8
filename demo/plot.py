#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Draw a record of demo/attr-demo.py as one PNG (host side).

usage: python3 demo/plot.py RECORD OUT.png

RECORD is the JSON that attr-demo.py prints after "DEMO-RECORD " (what
scripts/run-demo.sh saves as build/demo/record.json), or a console log
holding such a line (the last one is used).  Left: the monitored physical
address space over the aggregation windows, coloured by each region's
access frequency nr_accesses / max_hits (as `damo report heatmap` shows
it).  Right: per hotness band, per probe, the estimated MiB (mean over the
windows) with error bars of two standard errors, next to the page-level
truth of the same regions.  The estimates and standard errors are
damon_probes.region_estimate()'s and mean_se()'s (guest/damon_probes.py),
the bands damon_probes.band_of()'s: those of attr-demo.py's table.

Needs matplotlib (Debian's python3-matplotlib, for /usr/bin/python3); draws
with the Agg backend, no display.  figure() returns the matplotlib Figure,
for tests.
"""
import json
import os
import sys

import matplotlib
matplotlib.use('Agg')
from matplotlib.figure import Figure  # noqa: E402
from matplotlib.lines import Line2D  # noqa: E402
import numpy as np  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))), 'guest'))
import damon_probes as dp  # noqa: E402

RECORD_PREFIX = 'DEMO-RECORD '
FORMAT = 'damon-attr-demo-record 1'
BANDS = dp.BANDS
GIB = 1 << 30
ROWS = 1024          # heatmap rows over the monitored address range


def load(path):
    """The record of file path: the JSON itself, or the last line starting
    with RECORD_PREFIX (a console log).  Checks the format and the fields
    the drawing needs."""
    with open(path) as f:
        text = f.read()
    if not text.lstrip().startswith('{'):
        lines = [ln for ln in text.splitlines()
                 if ln.startswith(RECORD_PREFIX)]
        if not lines:
            raise ValueError('%s: neither a record nor a log with a %r line'
                             % (path, RECORD_PREFIX.strip()))
        text = lines[-1][len(RECORD_PREFIX):]
    rec = json.loads(text)
    if rec.get('format') != FORMAT:
        raise ValueError('%s: format %r, want %r' %
                         (path, rec.get('format'), FORMAT))
    for k in ('sample_us', 'aggr_us', 'max_hits', 'windows', 'probes',
              'regions'):
        if k not in rec:
            raise ValueError('%s: no %r' % (path, k))
    if len(rec['regions']) != rec['windows'] or not rec['windows']:
        raise ValueError('%s: %d windows of regions, windows says %d' %
                         (path, len(rec['regions']), rec['windows']))
    return rec


def summarize(rec):
    """Per band (BANDS), per probe: (mean estimate, its standard error,
    mean truth) in bytes over the record's windows: damon_probes'
    band_summary(), as attr-demo.py's table has them."""
    summ = dp.band_summary(((end - start, nr_accesses, hits, truth)
                            for win in rec['regions']
                            for start, end, nr_accesses, hits, truth in win),
                           rec['max_hits'], rec['windows'],
                           len(rec['probes']))
    return {b: summ[b]['probes'] for b in BANDS}


def heat_grid(rec, rows=ROWS):
    """The heatmap: (grid, base, top), grid[row][window] the access
    frequency nr_accesses / max_hits averaged over the bytes of the row
    (NaN where no region covers it), rows evenly over [base, top), the
    lowest region start and the highest region end of the record."""
    base = min(r[0] for win in rec['regions'] for r in win)
    top = max(r[1] for win in rec['regions'] for r in win)
    edges = np.linspace(base, top, rows + 1)
    grid = np.full((rows, len(rec['regions'])), np.nan)
    for w, win in enumerate(rec['regions']):
        s = np.array([r[0] for r in win], dtype=float)
        e = np.array([r[1] for r in win], dtype=float)
        freq = np.array([r[2] for r in win], dtype=float) / rec['max_hits']
        # bytes of each region below each edge: (rows + 1) x regions
        below = np.clip(edges[:, None], s, e) - s
        covered = np.diff(below.sum(axis=1))
        weighted = np.diff(below @ freq)
        with np.errstate(invalid='ignore', divide='ignore'):
            grid[:, w] = np.where(covered > 0, weighted / covered, np.nan)
    return grid, base, top


def title(rec):
    m = rec['max_hits']
    t = ('DAMON data attributes monitoring, %s: %d windows of %g ms, '
         'a sample every %g ms (%d per window), %d probes' % (
             rec.get('ops', 'paddr'), rec['windows'], rec['aggr_us'] / 1e3,
             rec['sample_us'] / 1e3, m, len(rec['probes'])))
    if rec.get('kernel'):
        t += ', kernel ' + rec['kernel']
    return t


def figure(rec):
    """The picture of a record (load()) as a matplotlib Figure with three
    axes: the heatmap, its colorbar, the bars (per band and probe: the
    estimate, an error bar of +-2 standard errors, a red line at the
    truth)."""
    fig = Figure(figsize=(14, 6), dpi=100, layout='constrained')
    heat, bars = fig.subplots(1, 2, width_ratios=[1, 1.15])
    m, n = rec['max_hits'], rec['windows']
    aggr_s = rec['aggr_us'] / 1e6

    grid, base, top = heat_grid(rec)
    img = heat.imshow(grid, origin='lower', aspect='auto',
                      interpolation='nearest', cmap='inferno', vmin=0,
                      vmax=1, extent=(0, n * aggr_s, 0, (top - base) / GIB))
    heat.set_facecolor('0.85')       # not monitored: grey
    heat.set_xlabel('time (s): one column per %g ms aggregation window'
                    % (aggr_s * 1e3))
    heat.set_ylabel('physical address - 0x%x (GiB)' % base)
    heat.set_title('Access frequency of the monitored physical memory')
    cbar = fig.colorbar(img, ax=heat, pad=0.01)
    cbar.set_label('access frequency: nr_accesses / %d samples' % m)

    summ = summarize(rec)
    probes = rec['probes']
    colors = ['C0', 'C2', 'C1', 'C4', 'C5', 'C6']
    width = 0.8 / len(probes)
    x = np.arange(len(BANDS))
    for i, name in enumerate(probes):
        xs = x + (i - (len(probes) - 1) / 2) * width
        est = np.array([summ[b][i][0] for b in BANDS]) / dp.MIB
        se = np.array([summ[b][i][1] for b in BANDS]) / dp.MIB
        truth = np.array([summ[b][i][2] for b in BANDS]) / dp.MIB
        bars.bar(xs, est, width * 0.9, color=colors[i % len(colors)],
                 label='%s: estimate' % name)
        bars.errorbar(xs, est, yerr=2 * se, fmt='none', ecolor='black',
                      elinewidth=1.2, capsize=3)
        bars.hlines(truth, xs - width * 0.5, xs + width * 0.5,
                    colors='red', linewidth=2, zorder=3, gid='truth')
    bars.set_xticks(x, BANDS)
    bars.set_xlabel('hotness band (hot: nr_accesses >= %d of %d, cold: 0, '
                    'warm: between)' % ((m + 1) // 2, m))
    bars.set_ylabel('MiB (mean over %d windows)' % n)
    bars.set_title('Bytes with each attribute: estimate vs page-level truth')
    bars.grid(axis='y', alpha=0.3)
    handles, labels = bars.get_legend_handles_labels()
    handles += [Line2D([], [], color='black', marker='|', markersize=10,
                       linestyle='none'),
                Line2D([], [], color='red', linewidth=2)]
    labels += ['error bar: estimate ±2 se (sampling)',
               'true (/proc/kpageflags, kpagecgroup)']
    bars.legend(handles, labels, loc='upper left', fontsize='small')
    fig.suptitle(title(rec), fontsize='medium')
    return fig


def main(argv):
    if len(argv) != 3:
        sys.exit('usage: %s RECORD OUT.png' % argv[0])
    rec = load(argv[1])
    fig = figure(rec)
    fig.savefig(argv[2])
    w, h = fig.get_size_inches() * fig.dpi
    print('%s: %d x %d pixels, %d windows of %d regions on average' % (
        argv[2], w, h, rec['windows'],
        sum(len(w) for w in rec['regions']) / rec['windows']))


if __name__ == '__main__':
    main(sys.argv)
