#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Bad input to every data probe sysfs file fails with the exact error and
changes nothing, neither the files nor the running context.

A paddr kdamond runs with two probes: probe 0 has no filter (every sample
hits) and probe 1 one set_pgidle prep and one hugepage_size filter.  Then:

1. Every file under monitoring_attrs/probes/ is written with bad values
   (negative, too big, non-numeric, empty, overlong, an embedded NUL, bad
   0x/octal forms, trailing garbage, wrong type and action names, overlong
   paths), one write(2) each, and more than 4 probes, 4 preps or 8 filters
   per probe.  Each
   must fail with EINVAL, or ERANGE for a number too big for the file's
   type (kstrto*()'s error, passed through as mainline does), except the
   empty write, which sysfs answers with 0 bytes written; after every write the whole probes tree reads back as
   before.
2. Valid but unusual forms parse as kstrto*() with base 0 does (0x10 is
   16, 010 is 8, a trailing newline is fine), as the other DAMON files do.
3. Inputs that only the commit can judge (memcg path that names no cgroup,
   empty memcg path, hugepage_size min above max, nr_probes 4 with one bad
   probe) make 'commit' fail with EINVAL while kdamond keeps running the
   old probes: same pid, two probe directories per tried region.
4. The tried-region probe files are read-only (EACCES on open for write)
   and read back as one decimal number no greater than aggr/sample.
5. The DAMOS filter files of the stat scheme that the series adds or
   extends ('type' with hugepage_size and probe_hits_wsum, 'allow', 'min',
   'max') take the same bad inputs with the same result, the scheme's
   filters tree unchanged; a probe_hits_wsum or hugepage_size DAMOS filter
   whose min is above its max makes 'commit' fail with EINVAL while the
   kdamond keeps running; a valid one is committed.
"""
import os

import damon_probes as dp

PROBES = dp.CTX + '/monitoring_attrs/probes'
SAMPLE_US, AGGR_US = 5000, 100000
MAX_HITS = AGGR_US // SAMPLE_US

# bad inputs for each kind of file
NUM_BAD = [b'-1', b'abc', b'1x', b' 1', b'1 ', b'1\n\n', b'0x', b'08',
           b'0x1g', b'1.5', b'1\x002', b'\x001', b'\n', b'+-1', b'1e3',
           b'9' * 5000]
UINT_BAD = NUM_BAD + [b'4294967296', b'99999999999999999999999']
ULONG_BAD = NUM_BAD + [b'18446744073709551616', b'0x10000000000000000']
BOOL_BAD = [b'2', b'x', b'-1', b'o', b'\n', b'Y\x00', b'\x00Y', b' Y',
            b'x' * 5000]
TYPE_BAD = [b'Anon', b'ANON', b'anon2', b' anon', b'anon x', b'anon\n\n',
            b'anon\x00', b'memcg\x00x', b'hugepage', b'pgidle', b'\n',
            b'addr', b'young', b'x' * 5000]
ACTION_BAD = [b'foo', b'Set_pgidle', b'set_pgidle2', b' set_pgidle',
              b'set_pgidle x', b'set_pgidle\n\n', b'set_pgidle\x00',
              b'\x00set_pgidle', b'pgidle', b'\n', b'x' * 5000]
PATH_BAD = [b'/' * 4096, b'a' * 5000, b'/x\x00y', b'\x00']
# The stock 'type' and 'matching' files of DAMOS filters stop parsing at a
# NUL ("anon\0x" is anon, "Y\0" is Y); only the files the series adds
# refuse NULs, so these two are not fuzzed with NULs after a valid prefix.
DAMOS_TYPE_BAD = [b'probe_hits', b'probe_hits_wsum2', b'Probe_hits_wsum',
                  b'\x00probe_hits_wsum', b'wsum', b'hugepage',
                  b'hugepage_size x', b'pgidle_set', b'\n', b'x' * 5000]
DAMOS_MATCHING_BAD = [v for v in BOOL_BAD if v != b'Y\x00']
FILTERS = dp.CTX + '/schemes/0/filters'
# numbers too big for the file's type: kstrto*()'s -ERANGE, passed through
# as mainline and the stock DAMON files do
RANGE = {v: 'ERANGE' for v in [b'4294967296', b'99999999999999999999999',
                               b'18446744073709551616',
                               b'0x10000000000000000', b'2147483648',
                               b'9' * 5000]}


def raw_write(path, data):
    """One write(2) of data (again on EBUSY); returns (errno name or None,
    bytes written)."""
    try:
        return None, dp.write(path, data)
    except OSError as e:
        return dp.errname(e), 0


def snapshot(top=PROBES):
    """Every file under top and its content."""
    snap = {}
    for d, _, files in os.walk(top):
        for f in files:
            snap[os.path.join(d, f)] = dp.busy_retry(dp.read,
                                                  os.path.join(d, f))
    return snap


def fuzz(path, bad, expect='EINVAL', special=None, top=PROBES):
    """Write every bad value to path; the write must fail with expect (or
    special[value]) and the tree under top (the probes tree by default)
    must not change.  Returns the number of inputs tried."""
    before = snapshot(top)
    for val in bad:
        want = (special or {}).get(val, expect)
        err, n = raw_write(path, val)
        dp.check(err == want, '%s <- %r: got %s (%d bytes), want %s' %
                 (path, val[:40], err, n, want))
        after = snapshot(top)
        dp.check(after == before, '%s <- %r changed the tree: %s' %
                 (path, val[:40], sorted(k for k in after
                                         if after[k] != before.get(k))))
    # the empty write is a no-op in sysfs
    err, n = raw_write(path, b'')
    dp.check(err is None and n == 0, '%s <- empty: %s %d' % (path, err, n))
    dp.check(snapshot(top) == before, '%s <- empty changed the tree' % path)
    return len(bad) + 1


def parses(path, forms):
    """Valid unusual forms and the value each reads back as."""
    old = dp.busy_retry(dp.read, path)
    for val, shown in forms:
        err, _ = raw_write(path, val)
        dp.check(err is None, '%s <- %r failed: %s' % (path, val, err))
        got = dp.busy_retry(dp.read, path)
        dp.check(got == shown, '%s <- %r reads %s, want %s' %
                 (path, val, got, shown))
    raw_write(path, old.encode())
    return len(forms)


def commit_fails(kd_pid, why):
    err = dp.write_err(dp.KD + '/state', 'commit')
    dp.check(err == 'EINVAL',
             'commit with %s: %s, want EINVAL' % (why, err))
    dp.check(dp.read(dp.KD + '/state') == 'on' and
             dp.kdamond_pid() == kd_pid,
             'kdamond stopped or restarted after the failed commit (%s)' %
             why)
    check_running(why)


def check_running(why):
    """The running context still has the two probes of the setup."""
    regions = dp.tried_regions()
    dp.check(regions, 'no tried region after %s' % why)
    for r in regions:
        dp.check(len(r.hits) == 2, 'region %x-%x has %d probe dirs after %s'
                 % (r.start, r.end, len(r.hits), why))
        dp.check(all(0 <= h <= MAX_HITS for h in r.hits),
                 'region %x-%x hits %s out of 0..%d' %
                 (r.start, r.end, r.hits, MAX_HITS))
    dp.check(sum(r.hits[0] for r in regions) > 0,
             'the no-filter probe hit nothing after %s' % why)


def test():
    probes = [{'filters': []},
              {'weight': 3, 'preps': ['set_pgidle'],
               'filters': [dp.probe_filter('hugepage_size',
                                           sz=(2 << 20, 2 << 20))]}]
    dp.setup('paddr', sample_us=SAMPLE_US, aggr_us=AGGR_US, probes=probes)
    dp.state('on')
    kd_pid = dp.kdamond_pid()
    tried = 0

    p0, p1 = PROBES + '/0', PROBES + '/1'
    f = p1 + '/filters/0'
    tried += fuzz(PROBES + '/nr_probes', UINT_BAD + [b'5', b'2147483648'],
                  special=RANGE)
    tried += fuzz(p0 + '/weight', UINT_BAD, special=RANGE)
    # more than DAMON_MAX_PROBE_FILTERS (8) filters per probe
    tried += fuzz(p1 + '/filters/nr_filters', UINT_BAD + [
        b'9', b'0x9', b'011', b'1000000', b'2147483647', b'2147483648'],
        special=RANGE)
    # more than DAMON_MAX_PROBE_PREPS (4) preps per probe
    tried += fuzz(p1 + '/preps/nr_preps', UINT_BAD + [
        b'5', b'0x5', b'2147483647', b'2147483648'], special=RANGE)
    tried += fuzz(p1 + '/preps/0/prep_action', ACTION_BAD)
    tried += fuzz(f + '/type', TYPE_BAD)
    tried += fuzz(f + '/matching', BOOL_BAD)
    tried += fuzz(f + '/allow', BOOL_BAD)
    tried += fuzz(f + '/path', PATH_BAD)
    tried += fuzz(f + '/min', ULONG_BAD, special=RANGE)
    tried += fuzz(f + '/max', ULONG_BAD, special=RANGE)
    dp.log('%d bad writes to 11 probe files: exact errors, nothing changed'
           % tried)

    forms = parses(p1 + '/weight', [(b'0x10', '16'), (b'010', '8'),
                                    (b'7\n', '7'), (b'4294967295',
                                                    '4294967295')])
    forms += parses(f + '/min', [(b'0x200000', '2097152'), (b'00', '0'),
                                 (b'18446744073709551615',
                                  '18446744073709551615')])
    forms += parses(f + '/matching', [(b'yes', 'Y'), (b'0', 'N'),
                                      (b'on', 'Y'), (b'off', 'N')])
    forms += parses(f + '/type', [(b'anon\n', 'anon'), (b'pgidle_set',
                                                        'pgidle_set')])
    forms += parses(p1 + '/preps/0/prep_action', [(b'set_pgidle\n',
                                                   'set_pgidle')])
    forms += parses(f + '/path', [(b'/a/b\n', '/a/b'), (b'\n', '')])
    dp.log('%d unusual but valid forms read back as kstrto*() base 0 '
           'parses them' % forms)

    # the running context has not changed through all of that
    check_running('the bad writes')
    dp.check(dp.kdamond_pid() == kd_pid, 'kdamond restarted')

    # inputs that only the commit can judge
    good = snapshot()
    dp.write(f + '/type', 'memcg')
    dp.write(f + '/path', '/no/such/cgroup')
    commit_fails(kd_pid, 'a memcg path naming no cgroup')
    dp.write(f + '/path', '')
    commit_fails(kd_pid, 'an empty memcg path')
    dp.write(f + '/path', '/')
    dp.write(f + '/type', 'hugepage_size')
    dp.write(f + '/min', 4096 * 2)
    dp.write(f + '/max', 4096)
    commit_fails(kd_pid, 'hugepage_size min above max')
    dp.write_probes([{'filters': []}] * 3 + [{'filters': [
        dp.probe_filter('memcg', path='/no/such/cgroup')]}])
    commit_fails(kd_pid, 'four probes, the last one bad')
    dp.log('4 commits with inputs only the commit can judge: EINVAL, '
           'kdamond %d kept running the old 2 probes' % kd_pid)

    # and a good commit still works afterwards
    dp.write_probes(probes)
    dp.check(snapshot() == good, 'rewriting the setup did not restore it')
    dp.state('commit')

    # tried region probe files: read-only, one decimal number each
    files = 0
    top = dp.tried_regions_dir()
    for d, _, names in os.walk(top):
        if '/probes/' not in d + '/':
            continue
        for name in names:
            path = os.path.join(d, name)
            try:
                os.close(os.open(path, os.O_WRONLY))
                raise dp.Fail('%s opens for writing' % path)
            except PermissionError:
                pass
            val = dp.busy_retry(dp.read, path)
            dp.check(val.isdigit() and int(val) <= MAX_HITS,
                     '%s reads %r' % (path, val))
            files += 1
    dp.check(files > 0, 'no tried-region probe file to check')
    dp.log('%d tried-region probe files: read-only, values in 0..%d' %
           (files, MAX_HITS))

    test_damos_filters(kd_pid)


def test_damos_filters(kd_pid):
    """Part 5: the DAMOS filter files of the stat scheme."""
    dp.write(FILTERS + '/nr_filters', 1)
    f = FILTERS + '/0'
    dp.write(f + '/type', 'probe_hits_wsum')
    dp.write(f + '/min', 1)
    dp.write(f + '/max', 2)
    tried = fuzz(f + '/type', DAMOS_TYPE_BAD, top=FILTERS)
    tried += fuzz(f + '/allow', BOOL_BAD, top=FILTERS)
    tried += fuzz(f + '/matching', DAMOS_MATCHING_BAD, top=FILTERS)
    tried += fuzz(f + '/min', ULONG_BAD, special=RANGE, top=FILTERS)
    tried += fuzz(f + '/max', ULONG_BAD, special=RANGE, top=FILTERS)
    dp.log('%d bad writes to 5 DAMOS filter files: exact errors, nothing '
           'changed' % tried)
    forms = parses(f + '/allow', [(b'yes', 'Y'), (b'0', 'N'), (b'on', 'Y'),
                                  (b'N\n', 'N')])
    forms += parses(f + '/min', [(b'0x10', '16'), (b'010', '8'),
                                 (b'18446744073709551615',
                                  '18446744073709551615')])
    forms += parses(f + '/type', [(b'hugepage_size\n', 'hugepage_size'),
                                  (b'probe_hits_wsum', 'probe_hits_wsum')])
    dp.log('%d unusual but valid forms of DAMOS filter inputs' % forms)

    for ftype, lo, hi in (('probe_hits_wsum', 5, 4),
                          ('hugepage_size', 8192, 4096)):
        dp.write(f + '/type', ftype)
        dp.write(f + '/allow', 'Y')
        dp.write(f + '/min', lo)
        dp.write(f + '/max', hi)
        commit_fails(kd_pid, 'a %s DAMOS filter with min above max' % ftype)
    # a valid range is committed, and every region passes it (weight 3
    # times hits of at most aggr/sample)
    dp.write(f + '/type', 'probe_hits_wsum')
    dp.write(f + '/matching', 'Y')
    dp.write(f + '/min', 0)
    dp.write(f + '/max', 3 * MAX_HITS)
    dp.state('commit')
    check_running('a valid probe_hits_wsum DAMOS filter')
    dp.check(dp.kdamond_pid() == kd_pid, 'kdamond restarted')
    dp.log('2 commits with DAMOS filter ranges of min above max: EINVAL, '
           'kdamond %d kept running; a valid range is committed' % kd_pid)


if __name__ == '__main__':
    dp.main(test)
