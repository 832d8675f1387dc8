#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Guest side of bench/region-size.sh: the kernel memory one DAMON region
costs, without data probes and with them, measured on the running kernel.

One paddr kdamond monitors NR_REGIONS fixed regions of equal size over the
biggest System RAM range (min = max nr_regions: no split, no merge, no ops
update).  The unreclaimable slab memory (nr_slab_unreclaimable of
/proc/vmstat, per-CPU deltas folded first through /proc/sys/vm/stat_refresh)
is read at each step, after the regions' sysfs directories exist:

  off      the context configured, kdamond off
  on       kdamond running, no probe
  probes   PROBES probes of one 'allow anon' filter committed
  none     the probes removed again by a commit
  stopped  kdamond off again

Bytes per region = the slab growth from "off" divided by NR_REGIONS.  The
slab caches' own sizes (/sys/kernel/slab/<cache>/{object,slab}_size) are
printed beside them.  Prints one JSON object per repetition.  Environment:
KERNEL (label), NR_REGIONS (20000), PROBES (4; 0 for a kernel without
probes), REPS (3), SETTLE_SECONDS (1).
"""
import json
import os
import time

import damon_probes as dp

KERNEL = os.environ.get('KERNEL', 'series')
NR = int(os.environ.get('NR_REGIONS', 20000))
PROBES = int(os.environ.get('PROBES', 4))
REPS = int(os.environ.get('REPS', 3))
SETTLE = float(os.environ.get('SETTLE_SECONDS', 1))
CACHES = ('damon_region', 'damon_probe_counts')


def slab_bytes():
    """Unreclaimable slab memory in bytes, per-CPU deltas folded."""
    dp.write('/proc/sys/vm/stat_refresh', 1)
    v = dict(line.split() for line in open('/proc/vmstat'))
    return int(v['nr_slab_unreclaimable']) * os.sysconf('SC_PAGE_SIZE')


def cache_sizes():
    out = {}
    for c in CACHES:
        d = '/sys/kernel/slab/' + c
        if os.path.isdir(d):
            out[c] = {k: int(dp.read(d + '/' + k))
                      for k in ('object_size', 'slab_size')}
    return out


def equal_regions(nr):
    s, e = dp.biggest_system_ram()
    sz = (e - s) // nr // dp.PAGE * dp.PAGE
    return [(s + i * sz, s + (i + 1) * sz) for i in range(nr)]


def settled_slab_bytes():
    time.sleep(SETTLE)
    return slab_bytes()


def main():
    regions = equal_regions(NR)
    probes = [{'filters': [dp.probe_filter('anon')]} for _ in range(PROBES)]
    dp.write(dp.ADMIN + '/kdamonds/nr_kdamonds', 1)
    dp.setup_kdamond(dp.KD, 'paddr', sample_us=5000, aggr_us=100000,
                     min_nr=NR, max_nr=NR, probes=[] if PROBES else None,
                     stat_scheme=False, regions=regions,
                     update_us=1000 * 1000 * 1000)
    for rep in range(REPS):
        base = settled_slab_bytes()
        rows = {'off': 0}
        dp.state('on')
        rows['on'] = settled_slab_bytes() - base
        if PROBES:
            dp.write_probes(probes)
            dp.state('commit')
            rows['probes'] = settled_slab_bytes() - base
            dp.write_probes([])
            dp.state('commit')
            rows['none'] = settled_slab_bytes() - base
        dp.state('off')
        rows['stopped'] = settled_slab_bytes() - base
        print(json.dumps({'kernel': KERNEL, 'rep': rep, 'nr_regions': NR,
                          'probes': PROBES, 'slab_delta': rows,
                          'caches': cache_sizes()}), flush=True)


main()
