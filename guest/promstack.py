# SPDX-License-Identifier: GPL-2.0
"""The fleet path on one machine: tools/damon-probe-metrics writing a
textfile, Debian's prometheus-node-exporter serving it with the textfile
collector, and Debian's prometheus scraping node_exporter, all on the
loopback interface; PromQL answers through promtool.  Used by
vm-tests/probes-prometheus.py and demo/prom-demo.py in the guest (the
packages run from the host root the guest shares); works on any host too,
on other ports.
"""
import json
import os
import shutil
import subprocess
import time
import urllib.request

import damon_probes as dp

METRICS_TOOL = os.path.join(dp.BUILD, 'tools', 'damon-probe-metrics')
NODE_EXPORTER = 'prometheus-node-exporter'
PROMETHEUS = 'prometheus'
PROMTOOL = 'promtool'
PROM_FILE = 'damon-probes.prom'


def loopback_up():
    """The guest's lo is down after boot: up it (ip from iproute2)."""
    subprocess.run(['ip', 'link', 'set', 'lo', 'up'], check=True)


class Stack:
    """damon-probe-metrics every interval seconds into workdir/textfile,
    node_exporter on 127.0.0.1:node_port, prometheus on 127.0.0.1:prom_port
    scraping it every scrape_s seconds; stop() ends them all."""

    def __init__(self, workdir, interval=1, scrape_s=1, node_port=9100,
                 prom_port=9090, tool_args=()):
        for cmd in (METRICS_TOOL, NODE_EXPORTER, PROMETHEUS, PROMTOOL):
            if not shutil.which(cmd):
                raise dp.Fail('%s is not installed (scripts/setup-deps.sh '
                              'installs the packages, make -C tools the '
                              'tool)' % cmd)
        self.workdir = workdir
        self.textdir = os.path.join(workdir, 'textfile')
        self.prom_file = os.path.join(self.textdir, PROM_FILE)
        self.url = 'http://127.0.0.1:%d' % prom_port
        self.procs = []
        os.makedirs(self.textdir, exist_ok=True)
        with open(os.path.join(workdir, 'prometheus.yml'), 'w') as f:
            f.write('global:\n'
                    '  scrape_interval: %ds\n'
                    '  evaluation_interval: %ds\n'
                    'scrape_configs:\n'
                    '  - job_name: node\n'
                    '    static_configs:\n'
                    "      - targets: ['127.0.0.1:%d']\n" %
                    (scrape_s, scrape_s, node_port))
        try:
            self.start('metrics', [METRICS_TOOL, '-o', self.prom_file,
                                   '-i', str(interval)] + list(tool_args))
            self.start('node_exporter', [
                NODE_EXPORTER, '--collector.disable-defaults',
                '--collector.textfile',
                '--collector.textfile.directory=' + self.textdir,
                '--web.listen-address=127.0.0.1:%d' % node_port])
            self.start('prometheus', [
                PROMETHEUS,
                '--config.file=' + os.path.join(workdir, 'prometheus.yml'),
                '--storage.tsdb.path=' + os.path.join(workdir, 'data'),
                '--web.listen-address=127.0.0.1:%d' % prom_port])
            self.wait_ready()
        except BaseException:
            self.stop()
            raise

    def start(self, name, cmd):
        log = open(os.path.join(self.workdir, name + '.log'), 'w')
        self.procs.append((name, subprocess.Popen(
            cmd, stdout=log, stderr=subprocess.STDOUT)))

    def stop_metrics(self):
        """Stop the tool only: its last file stays for node_exporter, and
        the tried regions it read last stay in sysfs."""
        for i, (name, p) in enumerate(self.procs):
            if name == 'metrics':
                p.terminate()
                p.wait()
                del self.procs[i]
                return

    def check_running(self):
        for name, p in self.procs:
            if p.poll() is not None:
                raise dp.Fail('%s exited with %s; its log:\n%s' % (
                    name, p.returncode, self.log_tail(name)))

    def log_tail(self, name, lines=20):
        with open(os.path.join(self.workdir, name + '.log')) as f:
            return ''.join(f.readlines()[-lines:])

    def wait_ready(self, timeout=180):
        """Until prometheus answers /-/ready (slow to start under TCG)."""
        deadline = time.time() + timeout
        while True:
            self.check_running()
            try:
                with urllib.request.urlopen(self.url + '/-/ready',
                                            timeout=5) as r:
                    if r.status == 200:
                        return
            except OSError:
                pass
            if time.time() > deadline:
                raise dp.Fail('prometheus not ready after %d s' % timeout)
            time.sleep(1)

    def query(self, expr):
        """promtool query instant: [(labels dict, float value)]."""
        self.check_running()
        p = subprocess.run([PROMTOOL, 'query', 'instant', '-o', 'json',
                            self.url, expr], capture_output=True, text=True)
        if p.returncode:
            raise dp.Fail('promtool query %r: %s' % (expr, p.stderr.strip()))
        res = json.loads(p.stdout)
        return [(s['metric'], float(s['value'][1])) for s in res]

    def value(self, expr):
        """The one value of a query that must have exactly one sample."""
        res = self.query(expr)
        if len(res) != 1:
            raise dp.Fail('%r gave %d samples, not 1: %s' %
                          (expr, len(res), res))
        return res[0][1]

    def wait_samples(self, expr, count, timeout=300):
        """Until count_over_time of expr has count scrapes in its range."""
        deadline = time.time() + timeout
        while True:
            res = self.query(expr)
            if res and min(v for _, v in res) >= count:
                return
            if time.time() > deadline:
                raise dp.Fail('%r: %s after %d s, want %d' %
                              (expr, res, timeout, count))
            time.sleep(2)

    def check_metrics(self):
        """promtool check metrics on the tool's current file."""
        with open(self.prom_file) as f:
            text = f.read()
        p = subprocess.run([PROMTOOL, 'check', 'metrics'], input=text,
                           capture_output=True, text=True)
        if p.returncode:
            raise dp.Fail('promtool check metrics: %s' %
                          (p.stdout + p.stderr).strip())
        return text

    def stop(self):
        for _, p in reversed(self.procs):
            if p.poll() is None:
                p.terminate()
        for _, p in self.procs:
            try:
                p.wait(timeout=30)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()
        self.procs = []
