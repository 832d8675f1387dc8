#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""A paddr DAMOS action honours an 'addr' filter that matches memory
outside of its range (matching=N): "act only on this physical range".

Stock 6.12 ran every DAMOS filter of a paddr scheme on each folio,
including the 'addr' and 'target' filters that the core already decided
for the whole region; per folio they never match, so with matching=N they
rejected every folio and the action did nothing.

Layout: swap on /dev/ram0; attr-workload --cold-anon COLD_MIB in the memcg
MEMCG (written once, then never touched).  A paddr context over the
biggest System RAM range runs a 'pageout' scheme for regions with no
access, with two filters that both keep the action off other memory:

  0: addr [lowest, highest physical address of the cold area], matching=N
  1: memcg /MEMCG, matching=N

The cold area's pages are then expected to be swapped out (pagemap bit
62): at least SWAPPED of them within TIMEOUT_S, and the scheme's sz_applied
must be above zero.
"""

import time

import damon_probes as dp

COLD_MIB = 16
SWAPPED = 0.90
TIMEOUT_S = 60
SAMPLE_US, AGGR_US = 5000, 100000
MEMCG = 'damos-addr-test'
SWAP_DEV = '/dev/ram0'
SDIR = dp.CTX + '/schemes/0'


def pagemap(pid, area):
    """(pfns of the present pages, number of swapped-out pages) of an
    area of process pid."""
    ents = dp.pagemap_entries(pid, area.start, area.end)
    pfns = [e & ((1 << 55) - 1) for e in ents if e >> 63 & 1]
    swapped = sum(1 for e in ents if e >> 62 & 1)
    return pfns, swapped


def stat(name):
    dp.state('update_schemes_stats')
    return int(dp.read(SDIR + '/stats/' + name))


def setup_scheme(addr_range, matching):
    dp.setup('paddr', sample_us=SAMPLE_US, aggr_us=AGGR_US, min_nr=10,
             max_nr=1000, probes=None)
    dp.write(SDIR + '/action', 'pageout')
    dp.write(SDIR + '/access_pattern/nr_accesses/max', 0)
    fdir = SDIR + '/filters'
    dp.write(fdir + '/nr_filters', 2)
    dp.write(fdir + '/0/type', 'addr')
    dp.write(fdir + '/0/addr_start', addr_range[0])
    dp.write(fdir + '/0/addr_end', addr_range[1])
    dp.write(fdir + '/0/matching', 'Y' if matching else 'N')
    dp.write(fdir + '/1/type', 'memcg')
    dp.write(fdir + '/1/memcg_path', '/' + MEMCG)
    dp.write(fdir + '/1/matching', 'N')


def run(addr_range, matching, wl, area):
    setup_scheme(addr_range, matching)
    dp.state('on')
    nr_pages = area.size // dp.PAGE
    deadline = time.time() + TIMEOUT_S
    swapped = 0
    while time.time() < deadline:
        time.sleep(2)
        swapped = pagemap(wl.pid, area)[1]
        if swapped >= nr_pages * SWAPPED:
            break
    applied, tried = stat('sz_applied'), stat('sz_tried')
    dp.stop()
    dp.log('addr [%#x, %#x) matching=%s: %d of %d pages swapped out, '
           'sz_tried %d, sz_applied %d' % (addr_range[0], addr_range[1],
                                            'Y' if matching else 'N',
                                            swapped, nr_pages, tried,
                                            applied))
    return swapped / nr_pages, applied


def test():
    dp.make_memcg(MEMCG)
    try:
        with dp.ram_swap(SWAP_DEV):
            wl = None
            try:
                wl = dp.Workload('--cold-anon', COLD_MIB, cgroup=MEMCG)
                area = wl.areas['cold-anon']
                pfns = pagemap(wl.pid, area)[0]
                dp.check(len(pfns) == area.size // dp.PAGE,
                         '%d of %d cold pages present after the setup' %
                         (len(pfns), area.size // dp.PAGE))
                rng = (min(pfns) * dp.PAGE, (max(pfns) + 1) * dp.PAGE)
                dp.log('cold area: %d MiB in physical [%#x, %#x)' %
                       (COLD_MIB, rng[0], rng[1]))

                # "reject non addr": only the range; stock 6.12 rejected all
                frac, applied = run(rng, False, wl, area)
                dp.check(applied > 0, 'pageout applied to nothing with a '
                         'matching=N addr filter')
                dp.check(frac >= SWAPPED, 'only %.0f%% of the cold area '
                         'swapped out with a matching=N addr filter, want '
                         '%.0f%%' % (frac * 100, SWAPPED * 100))
            finally:
                if wl:
                    wl.stop()
                dp.cleanup()
    finally:
        time.sleep(0.2)
        dp.remove_memcg(MEMCG)


if __name__ == '__main__':
    dp.main(test)
