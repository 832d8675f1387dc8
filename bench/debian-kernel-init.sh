#!/bin/bash
# PID 1 of bench/debian-kernel.sh's disk image (kernel command line
# init=/usr/local/lib/bench/init): mounts what bench/overhead-guest.py
# needs, runs it with the variables of bench.env, prints its JSON lines
# and "BENCH-EXIT: rc=N" on the console and powers the guest off.
export PATH=/usr/sbin:/usr/bin:/sbin:/bin
mountpoint -q /proc || mount -t proc proc /proc
mountpoint -q /sys || mount -t sysfs sysfs /sys
mountpoint -q /dev || mount -t devtmpfs devtmpfs /dev
mkdir -p /dev/shm
mount -t tmpfs tmpfs /dev/shm
mount -t tmpfs tmpfs /run
mount -t tmpfs tmpfs /tmp
mount -t tracefs tracefs /sys/kernel/tracing
mount -t cgroup2 cgroup2 /sys/fs/cgroup
echo +memory >/sys/fs/cgroup/cgroup.subtree_control
exec >/dev/ttyS0 2>&1
d=/usr/local/lib/bench
set -a
. "$d/bench.env"
set +a
echo "BENCH-KERNEL: $(uname -r)"
cd "$d" && python3 "$d/overhead-guest.py"
echo "BENCH-EXIT: rc=$?"
sync
echo o >/proc/sysrq-trigger
sleep 10
