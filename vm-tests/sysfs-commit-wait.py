#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""A 'commit' write never waits for ever, and its answer tells the truth.

The writer of a command that needs the kdamond ('commit',
'update_schemes_stats', ...) hands it to the kdamond and waits until the
kdamond has handled it.  Three ways that wait can go wrong:

1. Deactivated by watermarks.  While a scheme's watermarks keep the
   context deactivated, the kdamond runs no sampling interval; a 'commit'
   must still be applied (from the watermarks check), not wait until the
   watermarks let the context run.  The only scheme here has the
   'free_mem_rate' metric with 'low' LOW_DROP per thousand below the free
   memory rate at the start, so the context runs until attr-workload maps
   a quarter of the memory, somewhere inside an aggregation interval.
   Then a 'commit' that sets the metric to 'none' and min_nr_regions to
   MIN_NR must return 0 within COMMIT_S.  The commit lands in the middle of
   the interval that the deactivation interrupted: that interval restarts,
   so that no window counts more samples than it has.  The only probe has
   no filter (it hits on every sample), so every region of every complete
   window, before and after the commit, has exactly MAX_HITS hits; and
   the windows traced after the commit returned have MIN_NR regions or
   more.  Three rounds, since the deactivation interrupts an interval
   right at its start one time in MAX_HITS.
2. A killed writer.  A 'commit' waits for the end of the aggregation
   interval, up to an hour here (AGGR_LONG_US); SIGKILL must end the
   writer within KILL_S, withdraw the request and free the one request
   slot: 'update_schemes_stats' then succeeds.
3. A kdamond that stops first.  The vaddr target of a kdamond exits while
   a 'commit' waits for the end of a long aggregation interval: the
   kdamond stops without handling the request, which was not applied, so
   the write must fail (ECANCELED), not report success.

Each writer is a child process, so that the test can time it, kill it and
read its errno.  In 2 and 3 the writer is known to wait in the kernel when
another command fails with EBUSY (the request slot is taken).  A writer
that is stuck is released by turning the kdamond off, so a failing kernel
fails this test instead of hanging it.
"""
import signal
import subprocess
import sys
import time

import damon_probes as dp

SAMPLE_US, AGGR_US = 5000, 100000
MAX_HITS = AGGR_US // SAMPLE_US
AGGR_LONG_US = 3600 * 1000000
MIN_NR = 40
LOW_DROP = 100
ROUNDS = 3
STABLE_S = 1.0
COMMIT_S = 5.0
KILL_S = 2.0
DEADLINE_S = 30.0
WMARKS = dp.CTX + '/schemes/0/watermarks'
MARK = 'sysfs-commit-wait: committed'
ALL = [{'filters': []}]

# the writer: prints "ok" or the errno name of the failed write
WRITER = '''
import errno, os, sys
try:
    fd = os.open(sys.argv[1], os.O_WRONLY)
    os.write(fd, sys.argv[2].encode())
    print('ok')
except OSError as e:
    print(errno.errorcode.get(e.errno, e.errno))
'''


def start_writer(cmd):
    return subprocess.Popen([sys.executable, '-c', WRITER,
                             dp.KD + '/state', cmd],
                            stdout=subprocess.PIPE, text=True)


def wait_writer(proc, timeout):
    """The writer's answer, or None if it did not end within timeout."""
    try:
        out, _ = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        return None
    return out.strip()


def wait_in_kernel(proc):
    """Wait until the writer's request takes the request slot: another
    command then fails with EBUSY (not retried here)."""
    deadline = time.time() + DEADLINE_S
    while time.time() < deadline:
        dp.check(proc.poll() is None, 'the writer returned %s before the '
                 'kdamond could handle its request' % wait_writer(proc, 1))
        try:
            dp.write_once(dp.KD + '/state', 'update_schemes_stats')
        except OSError as e:
            if dp.errname(e) == 'EBUSY':
                return
            raise
        time.sleep(0.05)
    raise dp.Fail('the writer did not take the request slot in %.0f s' %
                  DEADLINE_S)


def release(proc, tag, errors):
    """Turn the kdamond off so that a stuck writer returns; reap it."""
    dp.stop()
    answer = wait_writer(proc, 10)
    dp.log('%s: the writer answered %s after the kdamond stopped' %
           (tag, answer))
    if answer is None:
        errors.append('%s: the writer is still stuck after the kdamond '
                      'stopped' % tag)
        proc.kill()


def trace_read():
    with open(dp.TRACING + '/trace') as f:
        return f.read()


def wait_stable():
    """Wait until no event is traced for STABLE_S: deactivated."""
    deadline = time.time() + DEADLINE_S
    last = trace_read()
    while time.time() < deadline:
        time.sleep(STABLE_S)
        cur = trace_read()
        if cur == last:
            return
        last = cur
    raise dp.Fail('the context was not deactivated in %.0f s' % DEADLINE_S)


def wait_windows(nr):
    """Wait until nr complete windows are traced after the marker."""
    deadline = time.time() + DEADLINE_S
    while time.time() < deadline:
        time.sleep(AGGR_US / 1e6 * 2)
        text = trace_read()
        if MARK in text and len(dp.parse_windows(
                text.split(MARK, 1)[1])) >= nr:
            return
    dp.log('fewer than %d windows after the commit in %.0f s' %
           (nr, DEADLINE_S))


def deactivated_round(rnd, errors):
    rate = dp.free_mem_rate()
    dp.setup('paddr', sample_us=SAMPLE_US, aggr_us=AGGR_US, probes=ALL)
    dp.write(WMARKS + '/metric', 'free_mem_rate')
    dp.write(WMARKS + '/interval_us', SAMPLE_US)
    dp.write(WMARKS + '/high', 1000)
    dp.write(WMARKS + '/mid', 0)
    dp.write(WMARKS + '/low', rate - LOW_DROP)
    dp.trace_start()
    dp.state('on')
    time.sleep(5 * AGGR_US / 1e6)
    wl = dp.Workload('--anon', int(open('/proc/meminfo').readline().split()[1])
                     // 4 // 1024)
    try:
        wait_stable()
        dp.log('round %d: free rate %d -> %d per thousand, deactivated' %
               (rnd, rate, dp.free_mem_rate()))
        dp.write(WMARKS + '/metric', 'none')
        dp.write(dp.CTX + '/monitoring_attrs/nr_regions/min', MIN_NR)
        t0 = time.time()
        proc = start_writer('commit')
        answer = wait_writer(proc, COMMIT_S)
        dp.log('round %d: commit answered %s after %.2f s' %
               (rnd, answer, time.time() - t0))
        if answer is None:
            errors.append('round %d: the commit did not return within '
                          '%.0f s while the context was deactivated' %
                          (rnd, COMMIT_S))
            release(proc, 'deactivated', errors)
            dp.trace_stop()
            return
        dp.write(dp.TRACING + '/trace_marker', MARK)
        if answer != 'ok':
            errors.append('round %d: the commit failed: %s' % (rnd, answer))
        wait_windows(3)
        text = dp.trace_stop()
    finally:
        wl.stop()
    dp.stop()
    windows = dp.parse_windows(text)
    after = dp.parse_windows(text.split(MARK, 1)[1])
    nr = [len(w) for w in after]
    bad = sorted({h for w in windows for r in w for h in r.hits
                  if h != MAX_HITS})
    dp.log('round %d: %d windows, %d after the commit, regions %s, hits '
           'other than %d: %s' % (rnd, len(windows), len(after), nr,
                                  MAX_HITS, bad))
    if bad:
        errors.append('round %d: windows count %s hits of the no-filter '
                      'probe, want %d: an interval counted more samples '
                      'than it had' % (rnd, bad, MAX_HITS))
    if len(after) < 3:
        errors.append('round %d: %d windows traced after the commit, want '
                      '>= 3: not activated' % (rnd, len(after)))
    if any(n < MIN_NR for n in nr):
        errors.append('round %d: windows after the commit have %s regions, '
                      'want >= %d' % (rnd, nr, MIN_NR))


def deactivated(errors):
    dp.log('1. commit while watermarks deactivate the context')
    for rnd in range(ROUNDS):
        deactivated_round(rnd, errors)


def killed(errors):
    dp.log('2. a writer killed while its commit waits')
    dp.setup('paddr', sample_us=SAMPLE_US, aggr_us=AGGR_LONG_US, probes=ALL)
    dp.state('on')
    proc = start_writer('commit')
    wait_in_kernel(proc)
    t0 = time.time()
    proc.send_signal(signal.SIGKILL)
    answer = wait_writer(proc, KILL_S)
    if answer is None:
        errors.append('SIGKILL did not end the waiting writer within %.0f s'
                      % KILL_S)
        release(proc, 'killed', errors)
        return
    dp.log('the killed writer ended after %.2f s' % (time.time() - t0))
    dp.check(proc.returncode == -signal.SIGKILL, 'writer exit %s' %
             proc.returncode)
    proc = start_writer('update_schemes_stats')
    answer = wait_writer(proc, COMMIT_S)
    dp.log('update_schemes_stats after the kill: %s' % answer)
    if answer != 'ok':
        errors.append('update_schemes_stats after the killed commit: %s, '
                      'want ok (the request slot must be free)' % answer)
        if answer is None:
            release(proc, 'update_schemes_stats', errors)
    dp.stop()


def target_exits(errors):
    dp.log('3. the kdamond stops before handling the commit')
    target = subprocess.Popen(['sleep', '3600'])
    try:
        dp.setup('vaddr', pid=target.pid, sample_us=SAMPLE_US,
                 aggr_us=AGGR_LONG_US, probes=ALL)
        dp.state('on')
        proc = start_writer('commit')
        wait_in_kernel(proc)
    finally:
        target.kill()
        target.wait()
    answer = wait_writer(proc, COMMIT_S)
    dp.log('the commit answered %s after its target exited' % answer)
    if answer is None:
        errors.append('the commit did not return within %.0f s of the '
                      'target exiting' % COMMIT_S)
        release(proc, 'target exits', errors)
        return
    state = dp.read(dp.KD + '/state')
    dp.check(state == 'off', 'kdamond state %s after its only target '
             'exited' % state)
    if answer != 'ECANCELED':
        errors.append('the commit that the kdamond never handled answered '
                      '%s, want ECANCELED' % answer)


def test():
    errors = []
    deactivated(errors)
    killed(errors)
    target_exits(errors)
    dp.check_errors(errors)


dp.main(test)
