#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""vaddr and fvaddr refuse the DAMOS filters that they would ignore to the
opposite effect.

Those operations sets evaluate no page-level DAMOS filter (anon, memcg,
young, hugepage_size) on this kernel.  A rejecting one is ignored, as on
stock 6.12; an allowing one, ignored, would leave the action on everything
("pageout only anonymous memory" paging out file memory as well), and a
hugepage_size filter, new in this series, would be ignored either way.
Checked on a vaddr kdamond monitoring attr-workload, with one 'stat'
scheme, for each CASES entry (type, allow):

- 'commit' to the running kdamond fails with EINVAL for the refused ones,
  and the kdamond keeps running (same pid) and its scheme keeps trying the
  regions; it succeeds for the accepted ones;
- 'on' fails with EINVAL for the refused ones and the kdamond stays off;
  it succeeds for the accepted ones.
The same filters on a paddr kdamond are all accepted by 'on'.
"""

import time

import damon_probes as dp

SAMPLE_US, AGGR_US = 5000, 100000
SDIR = dp.CTX + '/schemes/0'
FDIR = SDIR + '/filters'
# (type, allow, refused on vaddr and fvaddr)
CASES = [('anon', True, True), ('memcg', True, True), ('young', True, True),
         ('hugepage_size', False, True), ('hugepage_size', True, True),
         ('anon', False, False), ('memcg', False, False),
         ('young', False, False), ('addr', True, False),
         ('probe_hits_wsum', True, False)]


def write_filter(ftype, allow):
    dp.write(FDIR + '/nr_filters', 1)
    f = FDIR + '/0'
    dp.write(f + '/type', ftype)
    dp.write(f + '/matching', 'Y')
    dp.write(f + '/allow', 'Y' if allow else 'N')
    if ftype == 'memcg':
        dp.write(f + '/memcg_path', '/')
    elif ftype == 'addr':
        dp.write(f + '/addr_start', 0)
        dp.write(f + '/addr_end', 2**64 - 4096)
    elif ftype in ('hugepage_size', 'probe_hits_wsum'):
        dp.write(f + '/min', 0)
        dp.write(f + '/max', 2**64 - 1)


def try_filter(ops, cmd, ftype, allow, refused):
    """Write the filter, then cmd to the state file: it must fail with
    EINVAL if the filter is refused, and succeed otherwise."""
    what = '%s %s' % ('allow' if allow else 'reject', ftype)
    write_filter(ftype, allow)
    err = dp.write_err(dp.KD + '/state', cmd)
    want = 'EINVAL' if refused else None
    dp.check(err == want, "%s '%s' with a %s DAMOS filter: %s, want %s" %
             (ops, cmd, what, err, want or 'success'))
    return what


def tries_regions(what):
    deadline = time.time() + 30
    while not dp.tried_regions():
        dp.check(time.time() < deadline, 'no tried region %s' % what)
        time.sleep(AGGR_US / 1e6)


def test():
    wl = dp.Workload('--anon', 8, '--file', 8, '--hot')
    try:
        run(wl)
    finally:
        dp.stop()
        wl.stop()


def run(wl):
    dp.setup('vaddr', pid=wl.pid, sample_us=SAMPLE_US, aggr_us=AGGR_US,
             probes=None)
    dp.state('on')
    kd_pid = dp.kdamond_pid()
    tries_regions('before the commits')
    nr_refused = 0
    for ftype, allow, refused in CASES:
        what = try_filter('vaddr', 'commit', ftype, allow, refused)
        dp.check(dp.read(dp.KD + '/state') == 'on' and
                 dp.kdamond_pid() == kd_pid,
                 'kdamond stopped or restarted after the commit of %s' % what)
        nr_refused += refused
    # the running scheme is the last accepted one: a filter that allows
    # everything, so the scheme still tries the regions
    write_filter('addr', True)
    dp.state('commit')
    tries_regions('after the commits')
    dp.stop()
    dp.log('vaddr commit: %d refused with EINVAL, %d accepted; kdamond %d '
           'kept running' % (nr_refused, len(CASES) - nr_refused, kd_pid))

    for ftype, allow, refused in CASES:
        what = try_filter('vaddr', 'on', ftype, allow, refused)
        dp.check(dp.read(dp.KD + '/state') == ('off' if refused else 'on'),
                 "kdamond state after 'on' with %s" % what)
        dp.stop()

    dp.setup('paddr', sample_us=SAMPLE_US, aggr_us=AGGR_US, probes=None)
    for ftype, allow, _ in CASES:
        try_filter('paddr', 'on', ftype, allow, False)
        dp.stop()
    dp.log("'on': the same %d refused on vaddr, all %d accepted on paddr"
           % (nr_refused, len(CASES)))


if __name__ == '__main__':
    dp.main(test)
