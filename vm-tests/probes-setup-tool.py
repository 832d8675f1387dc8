#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""tools/damon-probes-setup (what damon-probes.service runs at boot) on the
real DAMON sysfs, without systemd:

  - start with a config of three probes (anon, memcg /setup-test, 2 MiB
    THP) over the default target, every System RAM range: one kdamond on,
    with those probes and filters, the ranges of /proc/iomem, and
    damon-probe-metrics publishes the three probes with the monitored size
    of those ranges; the anonymous estimate sees the workload's 96 MiB
    (at least half of it, over all bands: one window);
  - start again while it runs (a unit restart): a new kdamond, still one;
  - stop: the kdamond off and removed, the record gone;
  - a second file naming a cgroup that does not exist: exit 1 naming that
    file and cause, and no kdamond (the first file's is not started);
  - a kdamond that another tool runs: start refuses, and leaves it running
    with its pid.
"""
import os
import subprocess
import sys

import damon_probes as dp

TOOL = os.path.join(dp.REPO, 'tools', 'damon-probes-setup')
METRICS = os.path.join(dp.BUILD, 'tools', 'damon-probe-metrics')
DIR = '/tmp/setup-test'
CONF, RUN = DIR + '/conf', DIR + '/run'
MEMCG = 'setup-test'
GOOD = """[monitor]
sample = 5ms
aggr = 100ms
[probe anon]
filters = allow anon
[probe memcg]
filters = allow memcg /%s
[probe thp]
filters = allow hugepage_size 2M 2M
""" % MEMCG


def setup_tool(*args):
    p = subprocess.run([sys.executable, TOOL] + list(args) +
                       ['-c', CONF, '-r', RUN], capture_output=True,
                       text=True, timeout=60)
    dp.log('damon-probes-setup %s: rc %d: %s' %
           (' '.join(args), p.returncode, p.stderr.strip()))
    return p


def conf(name, text):
    with open(os.path.join(CONF, name), 'w') as f:
        f.write(text)


def nr_kdamonds():
    return int(dp.read(dp.ADMIN + '/kdamonds/nr_kdamonds'))


def check_running():
    dp.check(nr_kdamonds() == 1, '%d kdamonds' % nr_kdamonds())
    dp.check(dp.read(dp.KD + '/state') == 'on', 'kdamond 0 is not on')
    probes = dp.CTX + '/monitoring_attrs/probes'
    dp.check(dp.read(probes + '/nr_probes') == '3', 'not 3 probes')
    got = [(dp.read('%s/%d/filters/0/type' % (probes, i)),
            dp.read('%s/%d/filters/0/allow' % (probes, i))) for i in range(3)]
    dp.check(got == [('anon', 'Y'), ('memcg', 'Y'), ('hugepage_size', 'Y')],
             'probes %s' % got)
    dp.check(dp.read(probes + '/1/filters/0/path') == '/' + MEMCG,
             'memcg path')
    ranges = dp.system_ram()
    t = dp.CTX + '/targets/0/regions'
    got = [(int(dp.read('%s/%d/start' % (t, i))),
            int(dp.read('%s/%d/end' % (t, i))))
           for i in range(int(dp.read(t + '/nr_regions')))]
    dp.check(got == ranges, 'target ranges %s, System RAM %s' %
             (got, ranges))
    return sum(e - s for s, e in ranges)


def metrics(ram):
    p = subprocess.run([METRICS, '-c', '1', '-o', '-'], capture_output=True,
                       text=True, timeout=120)
    dp.check(p.returncode == 0, 'damon-probe-metrics: %s' % p.stderr)
    est, mon = {}, None
    for line in p.stdout.splitlines():
        if line.startswith('damon_probe_bytes{'):
            f = line.split('filters="')[1].split('"')[0]
            est[f] = est.get(f, 0) + float(line.split()[-1])
        elif line.startswith('damon_monitored_bytes{'):
            mon = float(line.split()[-1])
    want = {'allow anon', 'allow memcg /%s' % MEMCG,
            'allow hugepage_size 2097152 2097152'}
    dp.check(set(est) == want, 'published probes %s' % sorted(est))
    dp.check(mon is not None and abs(mon - ram) < dp.PAGE,
             'monitored %s bytes, System RAM %d' % (mon, ram))
    return est


def test():
    subprocess.run(['rm', '-rf', DIR])
    os.makedirs(CONF)
    dp.make_memcg(MEMCG)
    wl = dp.Workload('--anon', 96, cgroup='/' + MEMCG)
    try:
        run()
    finally:
        wl.stop()
        dp.cleanup()
        os.rmdir(os.path.join(dp.CGROOT, MEMCG))


def run():
    conf('a.conf', GOOD)
    p = setup_tool('start')
    dp.check(p.returncode == 0, 'start failed')
    ram = check_running()
    est = metrics(ram)
    dp.log('estimates: %s' % {k: '%.1f MiB' % (v / dp.MIB)
                              for k, v in est.items()})
    dp.check(est['allow anon'] >= 48 * dp.MIB,
             'anon estimate %.1f MiB, the workload has 96' %
             (est['allow anon'] / dp.MIB))
    pid = int(dp.read(dp.KD + '/pid'))

    p = setup_tool('start')
    dp.check(p.returncode == 0, 'start while running failed')
    check_running()
    dp.check(int(dp.read(dp.KD + '/pid')) != pid, 'the same kdamond')

    p = setup_tool('stop')
    dp.check(p.returncode == 0, 'stop failed')
    dp.check(nr_kdamonds() == 0, '%d kdamonds after stop' % nr_kdamonds())
    dp.check(not os.path.exists(RUN + '/kdamonds'), 'record left')

    conf('b.conf', GOOD.replace('/' + MEMCG, '/no-such-cgroup'))
    p = setup_tool('start')
    dp.check(p.returncode == 1, 'a bad b.conf: rc %d' % p.returncode)
    dp.check("b.conf: [probe memcg]: memcg /no-such-cgroup" in p.stderr,
             'the error does not name b.conf and the cgroup')
    dp.check(nr_kdamonds() == 0, 'a kdamond after a failed start')
    os.unlink(os.path.join(CONF, 'b.conf'))

    dp.setup('paddr', probes=[{'filters': [dp.probe_filter('anon')]}])
    dp.state('on')
    other = int(dp.read(dp.KD + '/pid'))
    p = setup_tool('start')
    dp.check(p.returncode == 1 and 'already running' in p.stderr,
             'start next to another tool\'s kdamond')
    dp.check(dp.read(dp.KD + '/state') == 'on' and
             int(dp.read(dp.KD + '/pid')) == other,
             'the other tool\'s kdamond was touched')


dp.main(test)
