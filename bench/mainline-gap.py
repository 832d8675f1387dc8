#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Where mainline 7.3's kdamond saves instructions per region sample against
stock 6.12, at 0 probes, function by function (bench/mainline-gap.sh).

usage: bench/mainline-gap.py rules <vmlinux>
         the winprof plugin's arguments (bench/winprof/winprof.c) for the
         kernel of <vmlinux>: the windows below, from its symbol table
       bench/mainline-gap.py report <jsonl> <stock vmlinux> <stock counts>
                                    <mainline vmlinux> <mainline counts>
         the guest's JSON lines of both boots and the plugin's counts of
         each -> bench/results/mainline-gap.md (printed too)

Windows (the plugin's window numbers): a TB that starts at the first
instruction of one of these functions opens its window; a TB that starts
inside kdamond_fn switches to the "rest of kdamond" window; one that starts
at __switch_to_asm closes the window.  Counts are exclusive (a function's
own instructions), per instruction address, mapped to the function whose
symbol precedes it (the kernels have no KASLR).
"""
import bisect
import collections
import datetime
import json
import os
import re
import statistics
import subprocess
import sys

from report import per_sample, read_pin

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
WINDOWS = ['damon_pa_prepare_access_checks', 'damon_pa_check_accesses',
           'damon_va_prepare_access_checks', 'damon_va_check_accesses',
           'damon_pa_apply_probes', 'damon_va_apply_probes']
REST = 6            # kdamond_fn and what it calls outside the windows
OPS = {'paddr': {'prepare': 0, 'check': 1, 'apply': 4},
       'vaddr': {'prepare': 2, 'check': 3, 'apply': 5}}
KERNELS = [('stock', 'stock', '6.12'), ('mainline', '0', '7.3')]

# Function groups, first match wins: (key, label, regex).  The causes are
# those bench/results/mainline-gap.md states (read from the annotated
# disassembly of both kernels and their sources); kinds: "DAMON" = a change
# in mainline's mm/damon, "config" = the kernels' configurations (6.12's
# bench kernels are allnoconfig + fragments: SPARSEMEM_VMEMMAP off,
# PREEMPT_NONE, 4-level paging; 7.3 forces SPARSEMEM_VMEMMAP, builds in
# 5-level paging (runtime-folded here) and has PREEMPT_LAZY), "kernel" =
# kernel code outside DAMON that 7.3 changed, "-" = unchanged or not
# attributed.
GROUPS = [
    ('rng', 'damon_rand(): get_random_u32_below() + ChaCha refills -> '
     'prandom_u32_state()',
     r'^(get_random_u32|__get_random_u32_below|chacha_.*|crng_.*|'
     r'_get_random_bytes|memcpy_orig|prandom_u32_state)$'),
    ('loop', 'damon_{pa,va}_{prepare_access_checks,check_accesses} '
     'own code', r'^damon_(pa|va)_(prepare_access_checks|check_accesses)$'),
    ('rate', 'damon_update_region_access_rate',
     r'^damon_update_region_access_rate$'),
    ('young', 'young path: damon_get_folio() -> vm_normal_folio/page(_pmd)',
     r'^vm_normal_(folio|page)(_pmd)?$'),
    ('folio', 'damon_get_folio', r'^damon_get_folio$'),
    ('lock', 'damon_folio_mkold/young + folio_unlock',
     r'^(damon_folio_mkold|damon_folio_young|folio_unlock)$'),
    ('one', 'damon_folio_mkold_one/young_one',
     r'^damon_folio_(mkold|young)_one$'),
    ('ptep', 'damon_ptep/pmdp_mkold + p*_test_and_clear_young',
     r'^(damon_ptep_mkold|damon_pmdp_mkold|ptep_test_and_clear_young|'
     r'pmdp_test_and_clear_young)$'),
    ('rmap', 'rmap_walk/_anon/_file + folio_lock_anon_vma_read',
     r'^(rmap_walk|rmap_walk_anon|rmap_walk_file|__rmap_walk_file|'
     r'folio_lock_anon_vma_read|folio_mapping)$'),
    ('rwsem', 'rwsem: down_read(_trylock)/up_read',
     r'^(down_read_trylock|up_read|down_read)$'),
    ('tree', 'rmap interval trees -> rmap trees',
     r'(interval_tree|rmap_tree)'),
    ('resched', '__cond_resched + rcu_all_qs',
     r'^(__cond_resched|rcu_all_qs)$'),
    ('pvmw', 'page_vma_mapped_walk', r'^page_vma_mapped_walk$'),
    ('vma', 'VMA lookup: walk_page_range + find_vma/mt_find/mas_next_slot/'
     'walk_page_test -> damon_va_walk_page_range + lock_vma_under_rcu/'
     'mas_walk/walk_page_range_vma(_unsafe)',
     r'^(find_vma|mt_find|mas_next_slot|mas_walk|lock_vma_under_rcu|'
     r'damon_va_walk_page_range|walk_page_range|walk_page_test|'
     r'walk_page_range_vma|walk_page_range_vma_unsafe)$'),
    ('walk', 'page table walk: __walk_page_range/walk_pgd_range '
     '(+__pmd_trans_huge_lock)',
     r'^(__walk_page_range|walk_pgd_range|__pmd_trans_huge_lock)$'),
    ('pte', 'PTE map + lock: (__)pte_offset_map(_lock/_nolock/_rw_nolock), '
     'spin lock/unlock',
     r'^(__pte_offset_map_lock|pte_offset_map_lock|pte_offset_map_nolock|'
     r'pte_offset_map_rw_nolock|__pte_offset_map|_raw_spin_lock|'
     r'_raw_spin_unlock)$'),
    ('pmd', 'damon_mkold/young_pmd_entry', r'^damon_(mkold|young)_pmd_entry$'),
    ('mm', 'damon_get_mm/mmput',
     r'^(damon_get_mm.*|get_pid_task|get_task_mm|mmput)$'),
    ('ftrace', 'ftrace function profiler (2-3 traced functions)',
     r'^(function_graph_enter.*|ftrace_.*|prepare_ftrace_return|'
     r'profile_graph_.*|return_to_handler|native_sched_clock|sched_clock.*|'
     r'trace_clock_local|fgraph_.*|p9_virtio_cleanup)$'),
    ('other', 'interrupts and other', r''),
]
LABEL = {k: label for k, label, _ in GROUPS}
LABEL['apply'] = 'damon_pa_apply_probes() window (0 probes)'
# (kind, cause) per group, or per ops where they differ
CAUSES = {
    'rng': ('DAMON', 'per-context PRNG: damon_rand(ctx, ..) draws from '
            'ctx->rnd_state with prandom_u32_state(); 6.12\'s '
            'get_random_u32_below() refills its batch with ChaCha every 24 '
            'calls (2 chacha_permute() of 1292 instructions)'),
    'loop': ('DAMON', 'damon_rand() inlined as a multiply-shift scaling, '
             'addr_unit'),
    'rate': ('DAMON', 'the per-sample nr_accesses_bp moving sum is gone '
             '(damon_nr_accesses_mvsum() computes it on demand)'),
    'young': ('DAMON', 'damon_young_pmd_entry() finds the folio with '
              'vm_normal_folio(_pmd)() under the PTL instead of '
              'damon_get_folio() + folio_put()'),
    'folio': ('config', 'SPARSEMEM_VMEMMAP pfn_to_page() (about -11 per '
              'call), PREEMPT_LAZY and 5-level checks (about +4 per call)'),
    'lock': ('DAMON', 'always folio_trylock() (7.3\'s rmap_walk_anon() '
             'warns without the folio lock)'),
    'one': ('config', 'SPARSEMEM_VMEMMAP folio_pfn() (about -15 per call) + '
            'page_vma_mapped_walk init code (rep stos x9 -> 4 stores)'),
    'ptep': ('kernel', 'mmu_notifier_clear_young() split out, pte_present()'),
    'rmap': ('-', 'unchanged'),
    'rwsem': {'paddr': ('config', 'anon_vma rwsem: PREEMPT_LAZY + the '
                        'contended_release tracepoint test in up_read() '
                        '(8 -> 22 per call)'),
              'vaddr': ('DAMON', 'mmap_lock no longer taken: per-VMA lock '
                        '(lock_vma_under_rcu())')},
    'tree': ('kernel', '7.3\'s rmap rework (anon_rmap_tree / '
             'mapping_rmap_tree)'),
    'resched': ('config', 'PREEMPT_NONE (6.12): cond_resched() in the rmap '
                'walk; a no-op under 7.3\'s PREEMPT_LAZY'),
    'pvmw': ('config', 'runtime p4d folding (5-level paging built in), '
             'spin_unlock out of line (PREEMPT_LAZY: UNINLINE_SPIN_UNLOCK)'),
    'vma': ('DAMON', 'damon_va_walk_page_range(): one VMA lookup under the '
            'per-VMA lock + walk_page_range_vma(); 6.12\'s walk_page_range() '
            'looks up the start VMA and the next one (2 mt_find(), the '
            'second through a gap + mas_next_slot())'),
    'walk': ('config', '5-level paging built in (runtime-folded p4d level) '
             '+ pagewalk\'s install_pte checks'),
    'pte': ('config', 'SPARSEMEM_VMEMMAP (pmd_page() for the split PTL), '
            'pte_offset_map rework'),
    'pmd': ('DAMON', 'pmd_trans_huge_lock(), no folio reference'),
    'mm': ('-', 'unchanged'),
    'ftrace': ('kernel', 'fgraph rework (the profiler the benchmark keeps '
               'on, not DAMON)'),
    'other': ('-', 'not attributed'),
    'apply': ('DAMON', '7.3 runs its probe pass at every sample, probes or '
              'not: damon_get_folio() + folio_put() per region'),
}
KINDS = ['DAMON', 'config', 'kernel', '-']


def cause(g, ops):
    c = CAUSES[g]
    return c[ops] if isinstance(c, dict) else c


def group(func, ops, role):
    """The group of func's instructions in the ops' window role."""
    if role == 'apply':
        return 'apply'
    if func == 'damon_get_folio' and ops == 'vaddr' and role == 'check':
        return 'young'
    for key, _, regex in GROUPS:
        if re.search(regex, func):
            return key
    return 'other'


def symbols(vmlinux):
    """[(address, size, name)] of the text symbols, by address."""
    out = subprocess.run(['nm', '-n', '-S', vmlinux], capture_output=True,
                         text=True, check=True).stdout
    syms = []
    for line in out.splitlines():
        w = line.split()
        if len(w) == 4 and w[2] in 'tTwW':
            syms.append((int(w[0], 16), int(w[1], 16), w[3]))
        elif len(w) == 3 and w[1] in 'tTwW':
            syms.append((int(w[0], 16), 1, w[2]))
    return syms


def rules(vmlinux):
    first = {}
    for a, s, name in symbols(vmlinux):
        first.setdefault(name, (a, s))
    args = ['rule=%d:%x-%x' % (i, first[f][0], first[f][0] + 1)
            for i, f in enumerate(WINDOWS) if f in first]
    a, s = first['kdamond_fn']
    args.append('rule=%d:%x-%x' % (REST, a, a + s))
    a = first['__switch_to_asm'][0]
    args.append('rule=-1:%x-%x' % (a, a + 1))
    return ','.join(args)


def aggregate(vmlinux, counts):
    """The plugin's counts per window and function: {'opens': {window: n},
    'trans': {'from->to': n}, 'windows': {window: {function: [instructions,
    calls]}}} (calls: executions of the function's first instruction)."""
    syms = symbols(vmlinux)
    addrs = [a for a, _, _ in syms]
    starts = {a: name for a, _, name in syms}
    opens, trans = {}, {}
    win = collections.defaultdict(dict)
    for line in open(counts):
        w = line.split()
        if w[0] == 'opens':
            opens[int(w[1])] = int(w[2])
        elif w[0] == 'trans':
            trans['%s->%s' % (w[1], w[2])] = int(w[3])
        else:
            a, n = int(w[1], 16), int(w[2])
            f = syms[bisect.bisect_right(addrs, a) - 1][2]
            c = win[int(w[0])].setdefault(f, [0, 0])
            c[0] += n
            if starts.get(a) == f:
                c[1] += n
    return {'opens': opens, 'trans': trans,
            'windows': {k: dict(sorted(v.items(), key=lambda x: -x[1][0]))
                        for k, v in sorted(win.items())}}


def median_of(rows, k, ops, c, what):
    v = [per_sample(r, what) for r in rows
         if (r['kernel'], r['ops'], r['config']) == (k, ops, c)]
    return statistics.median(v) if v else None


def cell(x, fmt='%.1f'):
    return '-' if x is None else fmt % x


def report(raw, kernels):
    rows = [json.loads(line) for line in open(raw) if line.startswith('{')]
    nr = {r['nr_regions'] for r in rows}
    if len(nr) != 1:
        sys.exit('runs with different region counts: %s' % sorted(nr))
    nr = nr.pop()
    agg = {k: aggregate(v, c) for k, (v, c) in kernels.items()}
    ops_list = [o for o in OPS if any(r['ops'] == o for r in rows)]

    def norm(k, ops):
        return agg[k]['opens'].get(OPS[ops]['check'], 0) * nr

    def per_func(k, ops):
        """{(group, function): [instructions, calls] per region sample}"""
        out = {}
        n = norm(k, ops)
        for role, w in OPS[ops].items():
            for f, (ins, calls) in agg[k]['windows'].get(w, {}).items():
                c = out.setdefault((group(f, ops, role), f), [0.0, 0.0])
                c[0] += ins / n
                c[1] += calls / n
        return out

    def rest(k):
        n = sum(agg[k]['opens'].get(OPS[o]['check'], 0) for o in ops_list) * nr
        return sum(v[0] for v in agg[k]['windows'].get(REST, {}).values()) / n

    pin, mpin = read_pin('base', 'pin'), read_pin('bench', 'mainline.pin')
    reps = max(r['rep'] for r in rows) + 1
    out = [
        '# Mainline 7.3 against stock 6.12 at 0 probes: where kdamond\'s '
        'instructions per region sample go, function by function', '',
        '- date: %s' % datetime.datetime.now().strftime('%Y-%m-%d %H:%M'),
        '- base: Debian %s %s' % (pin['BASE_PKG'], pin['BASE_VERSION']),
        '- guest: QEMU TCG with `-icount shift=0,sleep=off` '
        '(single-threaded), 1 vCPU, 1G memory, configs/guest.config + '
        'configs/bench-prof.config (7.3: the symbols it still has), the '
        'winprof plugin (bench/winprof/winprof.c)',
        '- kernels: "stock" = the base (%s), "mainline" = Debian %s %s (%s): '
        'the bench kernels of bench/mainline.sh' % (
            os.environ.get('STOCK', '?')[:12], mpin['MAINLINE_PKG'],
            mpin['MAINLINE_VERSION'], mpin['MAINLINE_SUITE']),
        '- command: `bench/mainline-gap.sh`', '',
        '## Method', '',
        'The workload, regions and intervals of bench/mainline.sh (results/'
        'mainline.md): %d fixed regions, 5 ms samples, a static 768 MiB '
        'workload; one boot per kernel, stock 6.12 and mainline 7.3 without '
        'probes, %d rounds of %s guest seconds per ops.  A QEMU TCG plugin '
        '(bench/winprof/winprof.c) counts every guest kernel instruction '
        'executed inside windows, exactly, per instruction address: a '
        'window opens when a translation block starts at '
        'damon_{pa,va}_prepare_access_checks(), damon_{pa,va}_check_'
        'accesses() or (7.3) damon_pa_apply_probes(), switches to "rest of '
        'kdamond" when one starts inside kdamond_fn() and closes at '
        '__switch_to_asm.  Addresses map to the functions of each kernel\'s '
        'vmlinux (no KASLR): the counts are exclusive (a function\'s own '
        'instructions) and add up to the windows\' totals, in the unit of '
        'the benchmarks (icount: a rep-string iteration is one '
        'instruction).  Per region sample = count / (calls of '
        'check_accesses x %d regions).  Not the ftrace function profiler: '
        'its per-call cost lands in the parents of the traced functions '
        'and distorts the very counts compared here; it stays on (as in '
        'mainline.md), and its own instructions are a row of the tables.  '
        'Checks below: the kdamond totals reproduce mainline.md, the '
        'windows the profiler\'s sampling time, and both kernels sample '
        'the same pages.' % (nr, reps, round(rows[0]['seconds']), nr), '',
        'Kinds in the tables: "DAMON" = a change in mainline\'s mm/damon; '
        '"config" = the kernels\' configurations: the 6.12 bench kernels are '
        'allnoconfig + the fragments, so SPARSEMEM_VMEMMAP (a prompted '
        'option in 6.12) is off and preemption is PREEMPT_NONE, while 7.3 '
        'forces SPARSEMEM_VMEMMAP, builds in 5-level paging (folded at run '
        'time: the emulated CPU has no LA57) and has PREEMPT_LAZY; '
        '"kernel" = code outside DAMON that 7.3 changed; "-" = unchanged or '
        'not attributed.  The causes come from the annotated disassembly '
        'of both kernels and their sources.', '']

    # checks
    ref = None
    ref_path = os.path.join(REPO, 'bench', 'results', 'mainline.md')
    if os.path.exists(ref_path):
        ref = [json.loads(line) for line in open(ref_path)
               if line.startswith('{"kernel"')]
    out += ['## Checks', '',
            '| ops | kernel | kdamond total | mainline.md total | '
            'sampling windows (plugin) | sampling (ftrace profiler) | rest of '
            'kdamond (plugin, both ops) | kdamond outside both |',
            '|---|---|---|---|---|---|---|---|']
    for ops in ops_list:
        for k, c, name in KERNELS:
            tot = median_of(rows, k, ops, c, 'total')
            win = sum(v[0] for v in per_func(k, ops).values())
            out.append('| %s | %s | %s | %s | %.1f | %s | %.1f | %s |' % (
                ops, name, cell(tot),
                cell(median_of(ref, k, ops, c, 'total') if ref else None),
                win, cell(median_of(rows, k, ops, c, 'sampling')), rest(k),
                cell(tot - win - rest(k) if tot else None)))
    # every transition should be to or from the rest of kdamond
    bad = {k: {t: n for t, n in a['trans'].items()
               if str(REST) not in t.split('->')} for k, a in agg.items()}
    out += ['', 'kdamond total: schedstat ns / region samples (median of '
            'the rounds; mainline.md: its medians of the same kernels); '
            'sampling: the function profiler\'s prepare + check (+ 7.3\'s '
            'apply_probes) times.  "Rest of kdamond" is per region sample '
            'of both ops (the plugin cannot tell them apart there); '
            '"outside" = total - windows - rest: scheduler code around the '
            'context switches, in no window.  Window '
            'transitions: %s.' % (
                'every window is entered from and left to kdamond_fn()'
                if not any(bad.values()) else
                'UNEXPECTED %s' % json.dumps(bad)), '',
            'The same sample population (calls per region sample):', '',
            '| ops | function (window) | 6.12 | 7.3 |', '|---|---|---|---|']
    pop = [('paddr', 'damon_get_folio', ['prepare']),
           ('paddr', 'rmap_walk', ['prepare', 'check']),
           ('paddr', 'rmap_walk_anon', ['prepare', 'check']),
           ('paddr', 'rmap_walk_file|__rmap_walk_file', ['prepare', 'check']),
           ('vaddr', 'damon_ptep_mkold', ['prepare']),
           ('vaddr', 'damon_pmdp_mkold', ['prepare'])]
    for ops, funcs, roles in pop:
        if ops not in ops_list:
            continue
        v = []
        for k, _, _ in KERNELS:
            n = norm(k, ops)
            v.append(sum(agg[k]['windows'].get(OPS[ops][r], {}).get(
                f, [0, 0])[1] for r in roles for f in funcs.split('|')) / n)
        out.append('| %s | %s (%s) | %.3f | %.3f |' % (
            ops, funcs.replace('|', ' / '), ' + '.join(roles), v[0], v[1]))
    out.append('')

    sums = {}
    for ops in ops_list:
        a, b = per_func('stock', ops), per_func('mainline', ops)
        ga, gb = collections.Counter(), collections.Counter()
        for (g, _), v in a.items():
            ga[g] += v[0]
        for (g, _), v in b.items():
            gb[g] += v[0]
        out += ['## %s: instructions per region sample in the sampling '
                'windows' % ops, '',
                '| key | group | 6.12 | 7.3 | 7.3 - 6.12 | kind | cause |',
                '|---|---|---|---|---|---|---|']
        s = sums[ops] = collections.Counter()
        for g in [key for key, _, _ in GROUPS] + ['apply']:
            x, y = ga[g], gb[g]
            if g == 'apply':
                out.append('| | **prepare + check** | **%.1f** | **%.1f** | '
                           '**%+.1f** | | |' % (
                               sum(ga.values()) - ga['apply'],
                               sum(gb.values()) - gb['apply'],
                               sum(gb.values()) - gb['apply'] -
                               sum(ga.values()) + ga['apply']))
            if max(x, y) < 0.05:
                continue
            kind, why = cause(g, ops)
            s['apply' if g == 'apply' else kind] += y - x
            out.append('| %s | %s | %.1f | %.1f | %+.1f | %s | %s |' % (
                g, LABEL[g], x, y, y - x, kind, why))
        out.append('| | **all windows** | **%.1f** | **%.1f** | **%+.1f** '
                   '| | |' % (sum(ga.values()), sum(gb.values()),
                      sum(gb.values()) - sum(ga.values())))
        out += ['', 'Sums of the differences in prepare + check by kind: '
                '%s.' % ', '.join('%s %+.1f' % (kd, s[kd]) for kd in KINDS
                                  if kd in s), '']
        keys = sorted(set(a) | set(b), key=lambda f: -abs(
            b.get(f, [0])[0] - a.get(f, [0])[0]))
        small = [f for f in keys if abs(b.get(f, [0])[0] - a.get(f, [0])[0])
                 < 0.5]
        out += ['Per function (|7.3 - 6.12| >= 0.5), instructions and calls '
                'per region sample (group: the key above):', '',
                '| function | group | 6.12 | 7.3 | 7.3 - 6.12 | calls 6.12 | '
                'calls 7.3 |', '|---|---|---|---|---|---|---|']
        for f in keys:
            if f in small:
                continue
            x, y = a.get(f, [0, 0]), b.get(f, [0, 0])
            out.append('| %s | %s | %.2f | %.2f | %+.2f | %.3f | %.3f |' % (
                f[1], f[0], x[0], y[0], y[0] - x[0], x[1], y[1]))
        out += ['', '%d functions with smaller differences: %+.2f together.'
                % (len(small), sum(b.get(f, [0])[0] - a.get(f, [0])[0]
                                   for f in small)), '']

    # summary
    out += ['## Summary', '']
    for ops in ops_list:
        s = sums[ops]
        out.append('- %s, prepare + check: mainline\'s DAMON code %+.1f, '
                   'configuration %+.1f, other kernel code %+.1f '
                   '(configuration and other kernel code together %+.1f), '
                   'not attributed %+.1f: %+.1f; 7.3\'s apply_probes window '
                   '%+.1f; all windows %+.1f per region sample.' % (
                       ops, s['DAMON'], s['config'], s['kernel'],
                       s['config'] + s['kernel'], s['-'],
                       sum(s.values()) - s['apply'], s['apply'],
                       sum(s.values())))
    out += ['', 'What stays unexplained: the configuration rows are read '
            'from the annotated disassembly of both kernels, not measured '
            '(a 6.12 kernel with 7.3\'s memory model and preemption was not '
            'built), so their split between SPARSEMEM_VMEMMAP, PREEMPT_LAZY '
            'and 5-level paging is an estimate; the "rest of kdamond" '
            '(%.1f -> %.1f) and "outside" columns of the checks are '
            'measured but not broken down; interrupts and other functions '
            'in the windows are not attributed.' % (
                rest('stock'), rest('mainline')), '']
    if 'paddr' in ops_list and 'vaddr' in ops_list:
        pa, va = per_func('stock', 'paddr'), per_func('mainline', 'paddr')
        vs, vm = per_func('stock', 'vaddr'), per_func('mainline', 'vaddr')

        def gsum(d, gs):
            return sum(v[0] for (g, _), v in d.items() if g in gs)
        rng_p = gsum(va, ['rng', 'loop']) - gsum(pa, ['rng', 'loop'])
        rng_v = gsum(vm, ['rng', 'loop']) - gsum(vs, ['rng', 'loop'])
        vma = gsum(vm, ['vma', 'rwsem']) - gsum(vs, ['vma', 'rwsem'])
        young = gsum(vm, ['young']) - gsum(vs, ['young'])
        out += ['What a 6.12 backport could adopt cheaply (DAMON-local, '
                'all of it in 6.12\'s mm):', '',
                '1. damon_rand() from a per-context PRNG '
                '(prandom_u32_state() on a struct rnd_state in damon_ctx, '
                'seeded once) with the multiply-shift scaling: %+.1f (paddr) '
                'and %+.1f (vaddr) per region sample here (damon_rand() and '
                'the loops that inline it).' % (rng_p, rng_v),
                '2. vaddr: vma_lookup() + walk_page_range_vma() under the '
                'same mmap_read_lock instead of walk_page_range(), which '
                'looks up the start VMA and then the next one (a second '
                'mt_find() through a gap + mas_next_slot()); keep the '
                'VM_PFNMAP skip.  Not measured: saves one maple tree search '
                'and walk_page_range()\'s own overhead, an estimated 300 '
                'per walk, 2 walks per region sample, of the %+.1f that '
                '7.3\'s per-VMA lock variant saves (which needs '
                'mm/pagewalk.c\'s PGWALK_VMA_RDLOCK_VERIFY).' % vma,
                '3. damon_young_pmd_entry(): vm_normal_folio() / '
                'vm_normal_folio_pmd() under the PTL instead of '
                'damon_get_folio() + folio_put(): %+.1f (vaddr).' % young,
                '', 'Not cheap or not to adopt: dropping the per-sample '
                'nr_accesses_bp (its users change), always folio_trylock() '
                '(a 7.3 rmap requirement), the apply_probes pass (7.3\'s '
                'probes).  For the benchmarks: 6.12\'s bench kernels could '
                'set CONFIG_SPARSEMEM_VMEMMAP=y (7.3 forces it).', '']
    aggs = []
    for k, a in agg.items():
        aggs.append(json.dumps({'kernel': k, 'opens': a['opens'],
                                'transitions': a['trans']}))
        for w, funcs in a['windows'].items():
            aggs.append(json.dumps({'kernel': k, 'window': w, 'name': (
                WINDOWS + ['kdamond_fn (rest)'])[w], 'functions': funcs}))
    return out, aggs


def main():
    if len(sys.argv) == 3 and sys.argv[1] == 'rules':
        print(rules(sys.argv[2]))
        return
    if len(sys.argv) != 7 or sys.argv[1] != 'report':
        sys.exit(__doc__)
    raw = sys.argv[2]
    lines, aggs = report(raw, {'stock': (sys.argv[3], sys.argv[4]),
                               'mainline': (sys.argv[5], sys.argv[6])})
    text = '\n'.join(lines) + '\n'
    resdir = os.path.join(REPO, 'bench', 'results')
    os.makedirs(resdir, exist_ok=True)
    with open(os.path.join(resdir, 'mainline-gap.md'), 'w') as f:
        f.write(text + '\nRaw data (one JSON line per run):\n\n```\n' +
                open(raw).read() + '```\n\nPer-function aggregate of the '
                'plugin\'s counts (instructions and calls over the whole '
                'boot, per window; window numbers as in '
                'bench/mainline-gap.py):\n\n```\n' + '\n'.join(aggs) +
                '\n```\n')
    print(text)


main()
