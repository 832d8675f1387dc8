#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Turn a benchmark's JSON lines into bench/results/<name>.md: the table,
then the raw data it was computed from (git keeps the earlier results).

usage: bench/report.py overhead|size|accuracy|lookups <jsonl file>
"""
import datetime
import json
import os
import statistics
import subprocess
import sys

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def header(title):
    pin = dict(line.split('=', 1) for line in
               open(os.path.join(REPO, 'base', 'pin')).read().splitlines()
               if '=' in line and not line.startswith('#'))
    commit = subprocess.run(['git', '-C', REPO, 'log', '-1', '--format=%h',
                             '--', 'patches'], capture_output=True,
                            text=True).stdout.strip() or 'uncommitted'
    return [
        '# %s' % title, '',
        '- date: %s' % datetime.datetime.now().strftime('%Y-%m-%d %H:%M'),
        '- base: Debian %s %s' % (pin['BASE_PKG'], pin['BASE_VERSION']),
        '- series: patches/ at repo commit %s' % commit,
        '- guest: QEMU TCG, %s vCPUs, %s memory, configs/guest.config' % (
            os.environ.get('SMP', '2'), os.environ.get('MEM', '2G')),
        '']


def overhead(rows):
    out = header('Overhead: kdamond CPU time with data probes')
    out += ['kdamond CPU time per second of monitoring, physical address '
            'space, workload: 384 MiB hot anonymous + 128 MiB hot tmpfs. '
            'Config "NxM" = N probes of M filters each; "stock" = DAMON of '
            'the unpatched base.  Median of %d runs, ratio to the stock '
            'median, [min-max] of the per-run ratios.' %
            (max(r['run'] for r in rows) + 1), '']
    ivs = sorted({r['intervals'] for r in rows},
                 key=lambda s: int(s.split('/')[1][:-2]))
    configs = ['stock', '0', '1x1', '1x3', '2x1', '2x3', '4x1', '4x3']
    cell = {}
    for iv in ivs:
        for c in configs:
            v = [r['cpu_ns'] / r['seconds'] / 1e6 for r in rows
                 if r['intervals'] == iv and r['config'] == c]
            if v:
                cell[iv, c] = v
    line = '| config |' + ''.join(' %s ms/s | vs stock |' % iv for iv in ivs)
    out += [line, '|---' * (1 + 2 * len(ivs)) + '|']
    for c in configs:
        if not any((iv, c) in cell for iv in ivs):
            continue
        line = '| %s |' % c
        for iv in ivs:
            v = cell.get((iv, c))
            base = cell.get((iv, 'stock'))
            if not v:
                line += ' - | - |'
                continue
            med = statistics.median(v)
            line += ' %.2f |' % med
            if base:
                b = statistics.median(base)
                line += ' %.3f [%.3f-%.3f] |' % (med / b, min(v) / b,
                                                 max(v) / b)
            else:
                line += ' - |'
        out.append(line)
    goals = []
    for iv in ivs:
        if (iv, 'stock') in cell and (iv, '0') in cell and (iv, '4x3') in cell:
            s = statistics.median(cell[iv, 'stock'])
            z = statistics.median(cell[iv, '0'])
            f = statistics.median(cell[iv, '4x3'])
            goals.append('- %s: 0 probes / stock = %.3f (goal <= 1.01: %s); '
                         '4x3 / 0 probes = %.3f (goal <= 1.05: %s)' %
                         (iv, z / s, 'met' if z / s <= 1.01 else 'NOT met',
                          f / z, 'met' if f / z <= 1.05 else 'NOT met'))
    return out + [''] + goals


def size(rows):
    out = header('Cost vs memory size: data probes vs a page-level scan')
    out += ['Guest memory N GiB, workload touching ~60% of it (2/3 '
            'anonymous, 1/3 of it in a child memcg).  "kdamond" = kdamond '
            'CPU time per aggregation (20 samples of every region) with 2 '
            'probes (anon, memcg); "page scan" = CPU time of tools/kpage-scan '
            'computing the same per-region anon and memcg bytes from '
            '/proc/kpageflags and /proc/kpagecgroup.  Medians of the '
            'repetitions.', '',
            '| memory | regions | kdamond ms/aggregation | page scan ms | '
            'scan / kdamond |', '|---|---|---|---|---|']
    for r in sorted(rows, key=lambda r: r['mem_gib']):
        out.append('| %d GiB | %d | %.2f | %.1f | %.1fx |' % (
            r['mem_gib'], r['regions'], r['kdamond_ms'], r['scan_ms'],
            r['scan_ms'] / r['kdamond_ms']))
    return out


def accuracy(rows):
    out = header('Accuracy: estimated bytes vs page-level truth')
    out += ['Relative error |estimate - truth| / truth of the mean estimate '
            'over the first W aggregation windows (5 ms samples, 100 ms '
            'windows: 20 samples per region per window).  The VM tests '
            '(vm-tests/probes-*-estimate.py) use a 10% tolerance at 10 '
            'windows.', '']
    ws = sorted({w for r in rows for w in r['errors']}, key=int)
    out += ['| case | truth MiB |' + ''.join(' W=%s |' % w for w in ws),
            '|---|---|' + '---|' * len(ws)]
    for r in rows:
        out.append('| %s | %.1f |' % (r['case'], r['truth'] / 2**20) +
                   ''.join(' %.1f%% |' % (r['errors'][w] * 100) for w in ws))
    worst = max(r['errors']['10'] for r in rows if '10' in r['errors'])
    out += ['', '- worst error after 10 windows: %.1f%% (goal <= 5%%: %s)' %
            (worst * 100, 'met' if worst <= 0.05 else 'NOT met')]
    return out


def lookups(rows):
    out = header('Folio lookups: the access check\'s folio shared with the '
                 'probes vs a second lookup')
    out += ['Physical address monitoring, 4 probes of 3 filters, 5 ms/100 ms, '
            '384 MiB hot anonymous workload; kernels built with the ftrace '
            'function profiler (configs/bench-prof.config).  "one" = the '
            'series, "two" = the series + bench/two-lookups.diff (the probes '
            'look the folio up again, as a separate probe pass does).  '
            'damon_account_probes() runs once per region sample; per region '
            'sample the series looks a folio up for the mkold of the sampling '
            'preparation and once for the access check and all probes '
            '(ideal 2), the variant once more (ideal 3).  The profiler counts '
            'a little above the ideal in both kernels because the mkold of '
            'the preparation looks the folio up again for each of its '
            'mappings in damon_ptep_mkold() (stock code); the difference of '
            'the two kernels is the cost of the second lookup.  The time of '
            'damon_pa_check_accesses() includes its callees and the '
            'profiler\'s own cost and is dominated by TCG noise; compare the '
            'ratio only, and only from a run on an otherwise idle machine.', '',
            '| kernel | runs | region samples/s | lookups / region sample '
            '| check_accesses us/call (median) | kdamond lookups/s |',
            '|---|---|---|---|---|---|']
    med, lk = {}, {}
    for k in ('one', 'two'):
        rs = [r for r in rows if r['kernel'] == k]
        if not rs:
            continue
        per = [r['calls']['damon_get_folio'] /
               r['calls']['damon_account_probes'] for r in rs]
        us = [r['usecs']['damon_pa_check_accesses'] /
              r['calls']['damon_pa_check_accesses'] for r in rs]
        med[k] = statistics.median(us)
        lk[k] = statistics.median(per)
        out.append('| %s | %d | %.0f | %.3f | %.1f | %.0f |' % (
            k, len(rs), statistics.median(
                r['calls']['damon_account_probes'] / r['seconds']
                for r in rs),
            statistics.median(per), med[k], statistics.median(
                r['calls']['damon_get_folio'] / r['seconds'] for r in rs)))
    if len(med) == 2:
        out += ['', '- lookups per region sample, two - one: %+.2f' %
                (lk['two'] - lk['one']),
                '- check_accesses time per call, two / one: %.2fx '
                '(per-run values in the raw data below)' %
                (med['two'] / med['one'])]
    return out


def main():
    kind, path = sys.argv[1], sys.argv[2]
    rows = [json.loads(line) for line in open(path) if line.startswith('{')]
    if not rows:
        sys.exit('no result in %s' % path)
    lines = {'overhead': overhead, 'size': size, 'accuracy': accuracy,
             'lookups': lookups}[kind](
        rows)
    text = '\n'.join(lines) + '\n'
    resdir = os.path.join(REPO, 'bench', 'results')
    os.makedirs(resdir, exist_ok=True)
    with open(os.path.join(resdir, kind + '.md'), 'w') as f:
        f.write(text + '\nRaw data (one JSON line per run):\n\n```\n' +
                open(path).read() + '```\n')
    print(text)


main()
