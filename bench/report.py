#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Turn a benchmark's JSON lines into bench/results/<name>.md: the table,
then the raw data it was computed from (git keeps the earlier results).

usage: bench/report.py overhead|size|commit|accuracy|mainline|region-size|... <jsonl file>
"""
import datetime
import json
import os
import statistics
import subprocess
import sys

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def read_pin(*path):
    """The KEY=value lines of a pin file under REPO, as a dict."""
    return dict(line.split('=', 1) for line in
                open(os.path.join(REPO, *path)).read().splitlines()
                if '=' in line and not line.startswith('#'))


def header(title):
    pin = read_pin('base', 'pin')
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


def per_sample(r, what):
    """Instructions per region sample of one segment of overhead-guest.py:
    kdamond's ('total') or the sampling functions' (anything else)."""
    ns = r['cpu_ns'] if what == 'total' else (
        r['check_ns'] + r['prepare_ns'] +
        sum(v[1] for f, v in r.get('profile', {}).items()
            if f.endswith('_apply_probes')))
    return ns / (r['samples'] * r['nr_regions'])


def spread(v):
    """(max - min) / median of v, in %."""
    return (max(v) - min(v)) / statistics.median(v) * 100


def ratio_cell(v):
    return '%.4f [%.4f-%.4f]' % (statistics.median(v), min(v), max(v))


def overhead(rows):
    series, base = os.environ.get('SERIES', '?'), os.environ.get('BASE', '?')
    out = header('Overhead: instructions per region sample with data probes')
    out[-2] = ('- guest: QEMU TCG with `-icount shift=0,sleep=off` '
               '(single-threaded), %s vCPU, %s memory, configs/guest.config + '
               'configs/bench-prof.config' % (os.environ.get('SMP', '1'),
                                              os.environ.get('MEM', '1G')))
    out[-1:-1] = ['- kernels: "series" = %s (tag base + patches/, git am), "stock" = %s '
                  '(tag base), "emulation" = series + '
                  'bench/mainline-approach.diff (an emulation of mainline\'s '
                  'paddr probe pass on this base, not mainline: '
                  'results/mainline.md has mainline 7.3 itself)' % (series[:12], base[:12]),
                  '- command: `bench/overhead.sh`']
    reps = max(r['rep'] for r in rows) + 1
    out += ['Under icount the guest clock advances 1 ns per guest '
            'instruction, so kdamond\'s on-CPU time (schedstat) and the '
            'function profiler\'s times are instruction counts; the host\'s '
            'load cannot move them.  One kdamond, 5 ms sampling, 100 ms '
            'aggregation, %d fixed regions of equal size (min = max '
            'nr_regions: no split, no merge; checked in every segment with the '
            'damon_aggregated tracepoint), a static workload (768 MiB: 640 '
            'anon, 64 THP, 64 tmpfs, written once, then idle).  paddr: the '
            'biggest System RAM range; vaddr: the workload\'s mappings.  '
            '"NxM" = N probes of M filters (memcg of an empty cgroup, 2 MiB '
            'folios, anon: a base page sample evaluates all M).' %
            rows[0]['nr_regions'], '',
            'Per segment (%s guest seconds after a 0.5 s warm-up): "total" = '
            'kdamond schedstat ns / region samples, "sampling" = ns in '
            'damon_*_prepare_access_checks() + damon_*_check_accesses() '
            '(function profiler, callees included) / region samples; region '
            'samples = profiled calls of check_accesses x regions.  Within '
            'one boot the configurations are committed in turn, %d rounds; '
            'a ratio within a boot is taken per round, a ratio across boots '
            '(stock, emulation) pairs round i with round i.  Cells: median '
            '[min-max] over the %d rounds.' % (
                rows[0].get('seconds') and round(rows[0]['seconds']), reps,
                reps), '']
    bad = [r for r in rows if r.get('live_regions') != [r['nr_regions']]]
    if bad:
        out += ['**WARNING**: %d segments saw other region counts: %s' % (
            len(bad), sorted({str(r['live_regions']) for r in bad})), '']

    def per(r, what):
        n = r['samples'] * r['nr_regions']
        if what == 'total':
            return r['cpu_ns'] / n
        return (r['check_ns'] + r['prepare_ns']) / n

    def series_of(k, ops, config, what):
        v = {r['rep']: per(r, what) for r in rows
             if r['kernel'] == k and r['ops'] == ops and r['config'] == config}
        return [v[i] for i in sorted(v)]

    def ratios(a, b):
        return [x / y for x, y in zip(a, b)] if a and b else []

    goals = []
    for ops in sorted({r['ops'] for r in rows}):
        out += ['## %s' % ops, '',
                '| kernel | config | total ns/region sample | vs series 0 '
                'probes | sampling ns/region sample | vs series 0 probes |',
                '|---|---|---|---|---|---|']
        keys = []
        for k in ('stock', 'series', 'emulation'):
            for c in ('stock', '0', '1x1', '1x3', '2x1', '2x3', '4x1', '4x3',
                      '4x3m'):
                if series_of(k, ops, c, 'total'):
                    keys.append((k, c))
        for k, c in keys:
            line = '| %s | %s |' % (k, c)
            for what in ('total', 'sampling'):
                v = series_of(k, ops, c, what)
                z = series_of('series', ops, '0', what)
                line += ' %.1f (spread %.2f%%) | %s |' % (
                    statistics.median(v), spread(v),
                    ratio_cell(ratios(v, z)) if z else '-')
            out.append(line)
        out.append('')
        g = [('series 0 probes / stock', ('series', '0'), ('stock', 'stock'),
              lambda x: x <= 1.005, '<= 1.005'),
             ('series 4x3 / series 0 probes', ('series', '4x3'),
              ('series', '0'), lambda x: x <= 1.05, '<= 1.05'),
             ('series 4x3 / emulation 4x3', ('series', '4x3'),
              ('emulation', '4x3'), lambda x: x < 1, '< 1'),
             ('series 4x3m / series 0 probes', ('series', '4x3m'),
              ('series', '0'), None, 'report'),
             ('series 4x3m / emulation 4x3m', ('series', '4x3m'),
              ('emulation', '4x3m'), None, 'report'),
             ('series 0 probes / emulation 0 probes', ('series', '0'),
              ('emulation', '0'), None, 'report'),
             ('emulation 0 probes / stock', ('emulation', '0'),
              ('stock', 'stock'), None, 'report')]
        for name, a, b, ok, goal in g:
            for what in ('total', 'sampling'):
                v = ratios(series_of(a[0], ops, a[1], what),
                           series_of(b[0], ops, b[1], what))
                if not v:
                    continue
                verdict = ('-' if ok is None else
                           'met' if ok(statistics.median(v)) and
                           ok(max(v)) else 'NOT met')
                goals.append('| %s | %s (%s) | %s | %.2f%% | %s | %s |' % (
                    ops, name, what, ratio_cell(v), spread(v), goal,
                    verdict))
    out += ['## Goals', '',
            '| ops | ratio (cost) | median [min-max] | spread | goal | '
            'verdict |', '|---|---|---|---|---|---|'] + goals
    out += ['', '"spread" = (max - min) / median of the per-round ratios; '
            '"met" needs the median and the max within the goal.']
    return out


def size(rows):
    series = os.environ.get('SERIES', '?')
    out = header('Cost vs memory size: data probes vs a page-level scan')
    out[-2] = ('- guest: QEMU TCG with `-icount shift=0,sleep=off` '
               '(single-threaded), %s vCPU, %s memory, configs/guest.config + '
               'configs/bench-prof.config' % (os.environ.get('SMP', '1'),
                                              os.environ.get('MEM', '?')))
    out[-1:-1] = ['- kernel: the series, %s (tag base + patches/, git am)' %
                  series[:12], '- command: `bench/size.sh`']
    out += ['Instructions (icount: 1 ns of guest time per instruction).  '
            'Guest memory N GiB, a static workload writing 75%% of it once '
            '(root: 25%% anon, 25%% tmpfs; child memcg: 25%% anon), the page '
            'cache that is not mapped dropped before the start.  "kdamond" '
            '= kdamond instructions per aggregation interval (20 samples of '
            'each of the fixed regions of equal size over all System RAM, '
            'min = max nr_regions) with 2 probes (anon, memcg); '
            '"page scan" = instructions of tools/kpage-scan computing the '
            'same per-region anon and memcg bytes from /proc/kpageflags and '
            '/proc/kpagecgroup.  Median [min-max] of %d repetitions in each '
            'of %d boots per size (all boots together); "vs 1 GiB" divides '
            'by the 1 GiB median.' % (
                max(r['rep'] for r in rows) + 1,
                len({r.get('boot', 1) for r in rows})), '',
            '| memory | monitored | regions | kdamond M instr/aggregation | '
            'instr/region sample | vs 1 GiB | page scan M instr | '
            'scan / kdamond |', '|---|---|---|---|---|---|---|---|']
    sizes = sorted({r['mem_gib'] for r in rows})
    ref = None
    for g in sizes:
        rs = [r for r in rows if r['mem_gib'] == g]
        kd = [r['kdamond_ns_per_aggr'] / 1e6 for r in rs]
        # per region sample: 20 samples of each region per aggregation
        ps = [r['kdamond_ns_per_aggr'] / 20 / r['regions'] for r in rs]
        sc = [r['scan_ns'] / 1e6 for r in rs]
        m, p = statistics.median(kd), statistics.median(ps)
        ref = ref or p
        out.append('| %d GiB | %d MiB | %d | %.3f [%.3f-%.3f] | %.0f | '
                   '%.3f [%.3f-%.3f] | %.0f [%.0f-%.0f] | %.0fx |' % (
                       g, rs[0]['monitored_mib'], rs[0]['regions'], m,
                       min(kd), max(kd), p, p / ref, min(ps) / ref,
                       max(ps) / ref, statistics.median(sc), min(sc),
                       max(sc), statistics.median(sc) / m))
    out += ['', '"vs 1 GiB": instructions per region sample divided by the '
            '1 GiB median, [min-max] of the repetitions.', '',
            'Per boot, instructions per region sample (median [min-max]):', '',
            '| memory | ' + ' | '.join('boot %d' % b for b in sorted(
                {r.get('boot', 1) for r in rows})) + ' |',
            '|---|' + '---|' * len({r.get('boot', 1) for r in rows})]
    for g in sizes:
        line = '| %d GiB |' % g
        for b in sorted({r.get('boot', 1) for r in rows}):
            ps = [r['kdamond_ns_per_aggr'] / 20 / r['regions'] for r in rows
                  if r['mem_gib'] == g and r.get('boot', 1) == b]
            line += (' %.0f [%.0f-%.0f] |' % (statistics.median(ps), min(ps),
                                               max(ps)) if ps else ' - |')
        out.append(line)
    return out


def commit(rows):
    series, base = os.environ.get('SERIES', '?'), os.environ.get('BASE', '?')
    out = header('Commit cost vs number of regions')
    out[-2] = ('- guest: QEMU TCG with `-icount shift=0,sleep=off` '
               '(single-threaded), %s vCPU, %s memory, configs/guest.config + '
               'configs/bench-prof.config' % (os.environ.get('SMP', '1'),
                                              os.environ.get('MEM', '?')))
    out[-1:-1] = ['- kernels: the series, %s (tag base + patches/, git am); '
                  'stock, %s (tag base)' % (series[:12], base[:12]),
                  '- command: `bench/commit.sh`']
    reps = max(r['rep'] for r in rows) + 1
    out += ['A paddr kdamond over the biggest System RAM range with '
            'min_nr_regions = max_nr_regions = N and a `stat` scheme; %d '
            'sysfs `commit`s of unchanged parameters per size, each '
            'profiled alone.  "commit" = instructions in damon_commit_ctx() '
            '(icount: 1 ns of guest time per instruction; ftrace function '
            'profiler with graph time, callees included), median [min-max]. '
            ' "allocated" = damon_new_region() calls during the commit '
            'times the slab object size of struct damon_region: memory '
            'the commit allocates and frees before it returns (plus one '
            '16-byte range per run of adjacent regions).  "write" = the '
            'writer\'s guest time for the write(2), which also waits for '
            'the aggregation interval in progress to end (sampling 50 ms, '
            'aggregation 100 ms, stretched by N regions\' sampling).  Stock '
            'builds the parameter context inside kdamond, outside '
            'damon_commit_ctx(); the series builds it in the writer.'
            % reps, '',
            '| regions | stock commit k instr | series commit k instr | '
            'series / stock | series allocated | stock write s | series '
            'write s |', '|---|---|---|---|---|---|---|']
    sizes = sorted({r['regions'] for r in rows})
    for n in sizes:
        st = [r for r in rows if r['regions'] == n and r['kernel'] == 'stock']
        se = [r for r in rows if r['regions'] == n and r['kernel'] == 'series']

        def cell(rs, key, div):
            v = [r[key] / div for r in rs]
            if not v:
                return '-'
            return '%.1f [%.1f-%.1f]' % (statistics.median(v), min(v),
                                         max(v))
        ratio = '-'
        if st and se:
            # commit i of one kernel with commit i of the other
            by_rep = {r['rep']: r['commit_ns'] for r in st}
            v = [r['commit_ns'] / by_rep[r['rep']] for r in se
                 if r['rep'] in by_rep and by_rep[r['rep']]]
            if v:
                ratio = '%.1f [%.1f-%.1f]' % (statistics.median(v), min(v),
                                              max(v))
        alloc = '-'
        if se and se[0].get('region_object_size'):
            b = [r['regions_allocated'] * r['region_object_size'] for r in se]
            alloc = '%.1f MiB (%d regions of %d B)' % (
                statistics.median(b) / 2**20,
                statistics.median([r['regions_allocated'] for r in se]),
                se[0]['region_object_size'])
        out.append('| %d | %s | %s | %s | %s | %s | %s |' % (
            n, cell(st, 'commit_ns', 1e3), cell(se, 'commit_ns', 1e3), ratio,
            alloc, cell(st, 'write_s', 1), cell(se, 'write_s', 1)))
    return out


def kernels_line(stock=False):
    """The header line naming the series and the mainline kernel."""
    pin = read_pin('bench', 'mainline.pin')
    return ('- kernels: "series" = %s (base + patches/), %s"mainline" = '
            'Debian %s %s (%s)' % (
                os.environ.get('SERIES', '?')[:12],
                '"stock" = the base, ' if stock else '', pin['MAINLINE_PKG'],
                pin['MAINLINE_VERSION'], pin['MAINLINE_SUITE']))


def attrs_regions(rows):
    out = header('Region counts in attributes-only monitoring: the series '
                 'and mainline 7.3')
    out[-1:-1] = [kernels_line(),
                  '- command: `bench/attrs-regions.sh`']
    rounds = max(r['round'] for r in rows) + 1
    secs = len(rows[0]['nr_regions'])
    # a column for each of these seconds that the runs have, and the last
    cols = sorted({s for s in (1, 2, 3, 5, 10, 15, 20, 30, 45, 60, 90, 120)
                   if s <= secs} | {secs})
    out += ['paddr on the biggest System RAM range, 5 ms samples, 100 ms '
            'windows, min 10 / max 1000 regions, one `allow anon` probe of '
            'weight 1 ("attrs": attributes only) or 0 ("access": access '
            'monitoring), 128 MiB hot and 256 MiB cold anonymous memory; '
            'the number of regions (tried regions of a stat scheme) every '
            'second from `on` (some of the seconds shown), median [min-max] '
            'of %d rounds.' % rounds, '',
            '| kernel | mode |' + ''.join(' %d s |' % c for c in cols),
            '|---|---|' + '---|' * len(cols)]
    for k in ('series', 'mainline'):
        for m in ('access', 'attrs'):
            runs = [r['nr_regions'] for r in rows
                    if r['kernel'] == k and r['mode'] == m]
            if not runs:
                continue
            cells = []
            for c in cols:
                v = [run[c - 1] for run in runs]
                cells.append('%d [%d-%d]' % (statistics.median(v), min(v),
                                             max(v)))
            out.append('| %s | %s |' % (k, m) +
                       ''.join(' %s |' % c for c in cells))
    return out


def region_size(rows):
    out = header('Memory per region: without data probes and with them')
    out[-1:-1] = [kernels_line(stock=True),
                  '- command: `bench/region-size.sh`']
    nr = rows[0]['nr_regions']
    out += ['One paddr kdamond with %d fixed regions (min = max nr_regions), '
            'the unreclaimable slab memory of the guest (`/proc/vmstat` '
            'nr_slab_unreclaimable, per-CPU counts folded by '
            '`/proc/sys/vm/stat_refresh`) measured from the kdamond\'s '
            'sysfs directories written and the kdamond off; "on": running '
            'without probes, "probes": %d probes of one `allow anon` filter '
            'committed, "removed": the probes removed again by a commit. '
            'Bytes per region = growth / regions, median [min-max] of %d '
            'repetitions in one boot per kernel.  "slab" = the region '
            'cache\'s object size in its slab (`/sys/kernel/slab/'
            'damon_region/slab_size`; the series\' counters: '
            '`damon_probe_counts`).' % (
                nr, max(r['probes'] for r in rows),
                max(r['rep'] for r in rows) + 1), '',
            '| kernel | slab: region (+ counters) | on | probes | removed |',
            '|---|---|---|---|---|']
    for k in ('stock', 'series', 'mainline'):
        kr = [r for r in rows if r['kernel'] == k]
        if not kr:
            continue
        c = kr[0]['caches']
        slab = '%d' % c['damon_region']['slab_size']
        if 'damon_probe_counts' in c:
            slab += ' (+ %d)' % c['damon_probe_counts']['slab_size']
        cells = []
        for step in ('on', 'probes', 'none'):
            v = [r['slab_delta'][step] / r['nr_regions'] for r in kr
                 if step in r['slab_delta']]
            cells.append('%.1f [%.1f-%.1f]' % (statistics.median(v), min(v),
                                                max(v)) if v else '-')
        out.append('| %s | %s | %s |' % (k, slab, ' | '.join(cells)))
    return out


def debian_kernel(rows):
    out = header('The kernel users run: the series on Debian\'s cloud-amd64 '
                 'config against Debian\'s binary kernel')
    out[-2] = ('- guest: QEMU TCG with `-icount shift=0,sleep=off` '
               '(single-threaded), 1 vCPU, 1G memory, a Debian 12 disk '
               'image with both kernels installed by dpkg')
    out[-1:-1] = ['- kernels: "series" = %s (`make deb`: the pinned base '
                  'plus patches/, Debian\'s cloud-amd64 config), "debian" = '
                  '%s (Debian\'s build of the same version and config)' % (
                      os.environ.get('SERIES_DEB', '?'),
                      os.environ.get('DEBIAN_DEB', '?')),
                  '- command: `bench/debian-kernel.sh`']
    reps = max(r['rep'] for r in rows) + 1
    out += ['The method of overhead.md (%d fixed regions, 5 ms samples, a '
            'static 768 MiB workload, %d rounds of %s guest seconds, '
            'configurations interleaved in one boot per kernel), except that '
            'Debian\'s config has no function profiler: the function tracer '
            'counts the calls of damon_*_check_accesses() during each '
            'segment, on both kernels.  "4x3": four probes of mainline\'s '
            'filter types (reject memcg of an empty cgroup twice, allow '
            'anon).  Instructions per region sample: median [min-max] over '
            'the rounds; a ratio between kernels pairs round i with round '
            'i.' % (rows[0]['nr_regions'], reps, round(rows[0]['seconds'])),
            '', '| ops | debian 0 | series 0 | series 0 / debian 0 | '
            'series 4x3 | series 4x3 / 0 |', '|---|---|---|---|---|---|']

    def per_sample(k, ops, c):
        v = sorted((r['rep'], r['cpu_ns'] / (r['samples'] * r['nr_regions']))
                   for r in rows if (r['kernel'], r['ops'], r['config']) ==
                   (k, ops, c))
        return [x for _, x in v]

    def cell(v):
        return '%.1f [%.1f-%.1f]' % (statistics.median(v), min(v), max(v))
    for ops in sorted({r['ops'] for r in rows}):
        d0 = per_sample('debian', ops, 'stock')
        s0 = per_sample('series', ops, '0')
        s4 = per_sample('series', ops, '4x3')
        out.append('| %s | %s | %s | %s | %s | %s |' % (
            ops, cell(d0), cell(s0),
            ratio_cell([a / b for a, b in zip(s0, d0)]), cell(s4),
            ratio_cell([a / b for a, b in zip(s4, s0)])))
    return out


def mainline(rows):
    out = header('Against mainline 7.3: instructions per region sample')
    out[-2] = ('- guest: QEMU TCG with `-icount shift=0,sleep=off` '
               '(single-threaded), 1 vCPU, 1G memory, configs/guest.config + '
               'configs/bench-prof.config (7.3: the symbols it still has)')
    out[-1:-1] = [kernels_line(stock=True),
                  '- command: `bench/mainline.sh` (the method of '
                  '`bench/overhead.sh`: results/overhead.md)']
    reps = max(r['rep'] for r in rows) + 1
    out += ['Per region sample, as in overhead.md: %d fixed regions, 5 ms '
            'samples, a static 768 MiB workload, configurations committed '
            'in turn within one boot per kernel, %d rounds of %s guest '
            'seconds.  Filters as mainline 7.3 has them: "NxM" = N probes '
            'of the M last of (reject memcg of an empty cgroup, reject '
            'memcg of another empty cgroup, allow anon); "4x3m": each probe '
            'its own first memcg.  "total" = kdamond instructions, '
            '"sampling" = instructions in damon_*_prepare_access_checks() + '
            'damon_*_check_accesses() (+ mainline\'s damon_pa_apply_probes(), '
            'which it calls at every sample, probes or not).  Cells: median '
            '[min-max] over the '
            'rounds; a ratio within a kernel is taken per round, one '
            'between kernels pairs round i with round i.' % (
                rows[0]['nr_regions'], reps, round(rows[0]['seconds'])), '']

    def series_of(k, ops, c, what):
        v = sorted((r['rep'], per_sample(r, what)) for r in rows
                   if (r['kernel'], r['ops'], r['config']) == (k, ops, c))
        return [x for _, x in v]

    def ratios(a, b):
        return [x / y for x, y in zip(a, b)] if a and b else []
    configs = ['0', '1x1', '4x1', '4x3', '4x3m']
    for ops in sorted({r['ops'] for r in rows}):
        out += ['## %s' % ops, '',
                '| config | series total | mainline total | series / '
                'mainline | series sampling | mainline sampling |',
                '|---|---|---|---|---|---|']
        for c in configs:
            st, mt = series_of('series', ops, c, 'total'), \
                series_of('mainline', ops, c, 'total')
            ss, ms = series_of('series', ops, c, 'sampling'), \
                series_of('mainline', ops, c, 'sampling')
            if not st or not mt:
                continue
            out.append('| %s | %.1f | %.1f | %s | %.1f | %.1f |' % (
                c, statistics.median(st), statistics.median(mt),
                ratio_cell(ratios(st, mt)), statistics.median(ss),
                statistics.median(ms)))
        st = series_of('stock', ops, 'stock', 'total')
        if st:
            s0 = series_of('series', ops, '0', 'total')
            m0 = series_of('mainline', ops, '0', 'total')
            out += ['', 'Stock 6.12 (the base, no probes): %.1f total per '
                    'region sample; series 0 probes / stock %s; mainline '
                    '0 probes / stock %s: what the two DAMON cores cost '
                    'apart from the probes.' % (
                        statistics.median(st), ratio_cell(ratios(s0, st)),
                        ratio_cell(ratios(m0, st)))]
        out += ['', '| within the kernel | series | mainline |',
                '|---|---|---|']
        for c in configs[1:]:
            cells = []
            for k in ('series', 'mainline'):
                v = ratios(series_of(k, ops, c, 'total'),
                           series_of(k, ops, '0', 'total'))
                cells.append(ratio_cell(v) if v else '-')
            out.append('| %s / 0 | %s | %s |' % (c, cells[0], cells[1]))
        out.append('')
    return out


def accuracy(rows):
    out = header('Accuracy: are the standard errors calibrated?')
    out[-1:-1] = ['- command: `bench/accuracy.sh` (guest side: '
                  '`bench/accuracy-guest.py`, which describes the cases)']
    n = rows[0]['n']
    out += ['Per case and probe, %d aggregation windows of a workload '
            'whose layout does not change (20 samples per region per '
            'window); per window, z = (estimate - page-level truth of the '
            'same regions) / standard error. Goal for every attribute and '
            'ops over all regions: |mean z| <= 0.2 and coverage (share of '
            'windows with |z| <= 2) >= 93%%.  "rel err 10": mean |relative '
            'error| of the mean of 10 consecutive windows.  Standard error '
            'of one region of size S with h hits of m samples: plugin S^2 '
            'p(1-p)/m, p = h/m (what the tools published before this '
            'benchmark); unbiased: over m - 1; shrunk: p = (h + 1/2)/(m + 1) '
            '(what they publish now).  "inf": windows with a standard error '
            'of 0 and an estimate off the truth.  An sd of z below 1 means '
            'error bars wider than the errors.  "truth drift" (paddr): how '
            'much the truth of the whole range changed from a snapshot '
            'before the windows (the truth used) to one after them.' % n,
            '', 'The same estimates on mainline 7.3, side by side with the '
            'series at 20 and 400 samples per window: '
            '[accuracy-mainline](accuracy-mainline.md).', '']
    forms = []
    for r in rows:
        if r['formula'] not in forms:
            forms.append(r['formula'])
    keys = []
    for r in rows:
        k = (r['case'], r['probe'])
        if k not in keys:
            keys.append(k)
    by = {(r['case'], r['probe'], r['band'], r['formula']): r for r in rows}

    def cell(r):
        ok = abs(r['mean_z']) <= 0.2 and r['coverage'] >= 0.93
        return '%+.2f / %.2f / %.1f%%%s%s' % (
            r['mean_z'], r['sd_z'], r['coverage'] * 100,
            ' (%d inf)' % r['inf'] if r['inf'] else '', '' if ok else ' **x**')
    out += ['## All regions: mean z / sd of z / coverage, per standard error '
            'formula', '',
            '| case | probe | truth MiB | estimate MiB | truth drift MiB | '
            'rel err 10 |' + ''.join(' %s |' % f for f in forms),
            '|---|---|---|---|---|---|' + '---|' * len(forms)]
    for c, p in keys:
        r0 = by[(c, p, 'all', forms[0])]
        out.append('| %s | %s | %.1f | %.1f | %s | %s |' % (
            c, p, r0['truth'] / 2**20, r0['est'] / 2**20,
            '%+.1f' % (r0['drift'] / 2**20) if r0.get('drift') is not None
            else '-',
            '%.1f%%' % (r0['rel_err10'] * 100)
            if r0['rel_err10'] is not None else '-') +
            ''.join(' %s |' % cell(by[(c, p, 'all', f)]) for f in forms))
    for f in forms:
        bad = [(c, p) for c, p in keys
               if not (abs(by[(c, p, 'all', f)]['mean_z']) <= 0.2 and
                       by[(c, p, 'all', f)]['coverage'] >= 0.93)]
        out.append('')
        out.append('- %s: goal %s' % (f, 'met for every case and probe'
                                      if not bad else 'NOT met for ' +
                                      ', '.join('%s %s' % b for b in bad)))
    drifted = [(c, p) for c, p in keys
               if by[(c, p, 'all', forms[0])].get('drift') is not None]
    if drifted:
        out += ['', '## Where the truth moved during the windows', '',
                'The truth is a snapshot taken before the windows; a second '
                'one right after them gives the drift.  If an attribute '
                'grows at a steady rate while the windows are counted, the '
                'mean estimate lands half the drift above the first '
                'snapshot: compare the two columns.', '',
                '| case | probe | estimate - truth MiB | drift / 2 MiB |',
                '|---|---|---|---|']
        for c, p in drifted:
            r = by[(c, p, 'all', forms[0])]
            out.append('| %s | %s | %+.1f | %+.1f |' % (
                c, p, (r['est'] - r['truth']) / 2**20,
                r['drift'] / 2**21))
    bands = [b for b in ('hot', 'warm', 'cold')
             if any(k[2] == b for k in by)]
    out += ['', '## Per hotness band (formula %s): mean z / sd of z / '
            'coverage, truth MiB' % forms[-1], '',
            '| case | probe |' + ''.join(' %s |' % b for b in bands),
            '|---|---|' + '---|' * len(bands)]
    for c, p in keys:
        cells = []
        for b in bands:
            r = by.get((c, p, b, forms[-1]))
            cells.append('%s, %.1f' % (cell(r), r['truth'] / 2**20)
                         if r else '-')
        out.append('| %s | %s |' % (c, p) + ''.join(' %s |' % x
                                                    for x in cells))
    return out


def accuracy_mainline(rows):
    out = header('Accuracy side by side: the series and mainline 7.3 at 20 '
                 'and 400 samples per window')
    out[-1:-1] = [kernels_line(),
                  '- command: `bench/accuracy-mainline.sh` (guest side: '
                  '`bench/accuracy-guest.py ratio`)']
    form = 'shrunk'
    rows = [r for r in rows if r['band'] == 'all' and r['formula'] == form]
    out += ['The static paddr layout of [the accuracy benchmark]'
            '(accuracy.md) (anonymous, tmpfs, THP and a child memcg, written '
            'once), 5 ms samples, windows of 20 and 400 samples, each window '
            'read as the tried regions of a stat scheme (the tracepoints of '
            'both kernels print at most 255 hits); per window, the estimate '
            'S * h / m summed over the regions against the page-level truth '
            'of the same regions, the mean of snapshots before and after the '
            'windows (reading the windows grows the benchmark\'s own '
            'anonymous memory, THP included, by up to 13 MiB: "drift").  '
            'Error: mean estimate over mean truth - 1. '
            'z as in accuracy.md (standard error formula "%s"); goal |mean '
            'z| <= 0.2, coverage >= 93%%.  Mainline 7.3 has no hugepage_size '
            'filter (no thp row) and counts hits in 8 bits: at 400 samples a '
            'window\'s count wraps at 256, and mainline refuses such windows '
            'only for weighted probes.' % form, '',
            'Each kernel runs in its own boot, so the truths differ a little.',
            '',
            '| samples per window | probe | series: windows, truth / '
            'estimate (drift) MiB | error | mean z / coverage | mainline: '
            'windows, truth / estimate (drift) MiB | error | mean z / '
            'coverage |',
            '|---|---|---|---|---|---|---|---|']
    by = {(r['kernel'], r['ratio'], r['probe']): r for r in rows}
    keys = []
    for r in rows:
        if (r['ratio'], r['probe']) not in keys:
            keys.append((r['ratio'], r['probe']))
    for ratio, probe in sorted(keys, key=lambda k: k[0]):
        cells = []
        for k in ('series', 'mainline'):
            r = by.get((k, ratio, probe))
            if not r:
                cells += ['-', '-', '-']
                continue
            ok = abs(r['mean_z']) <= 0.2 and r['coverage'] >= 0.93
            cells += ['%d, %.1f / %.1f (%+.1f)' % (
                          r['n'], r['truth'] / 2**20, r['est'] / 2**20,
                          (r.get('drift') or 0) / 2**20),
                      '%+.1f%%' % ((r['est'] / r['truth'] - 1) * 100)
                      if r['truth'] else '-',
                      '%+.2f / %.1f%%%s' % (r['mean_z'], r['coverage'] * 100,
                                            '' if ok else ' **x**')]
        out.append('| %d | %s |' % (ratio, probe) +
                   ''.join(' %s |' % c for c in cells))
    return out


def main():
    kind, path = sys.argv[1], sys.argv[2]
    rows = [json.loads(line) for line in open(path) if line.startswith('{')]
    if not rows:
        sys.exit('no result in %s' % path)
    lines = {'overhead': overhead, 'size': size, 'commit': commit,
             'accuracy': accuracy, 'mainline': mainline,
             'attrs-regions': attrs_regions,
             'region-size': region_size,
             'debian-kernel': debian_kernel,
             'accuracy-mainline': accuracy_mainline}[kind](rows)
    text = '\n'.join(lines) + '\n'
    resdir = os.path.join(REPO, 'bench', 'results')
    os.makedirs(resdir, exist_ok=True)
    with open(os.path.join(resdir, kind + '.md'), 'w') as f:
        f.write(text + '\nRaw data (one JSON line per run):\n\n```\n' +
                open(path).read() + '```\n')
    print(text)


if __name__ == '__main__':
    main()
