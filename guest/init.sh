#!/bin/bash
# PID 1 of the test VM; not for running by hand.  scripts/run-vm.sh boots the
# kernel with init=<this file> and HARNESS_RUN=<host run dir>, whose "env" file
# sets the environment and the working directory and either VM_CMD (an array:
# the command to run) or VM_TTY_SIZE (interactive shell).
# Sets up /proc /sys /dev /run, debugfs, tracefs, cgroup2, writable /tmp /var/tmp
# /root (overlays on the read-only host root), runs the command or shell,
# prints "VM-EXIT: rc=N" and powers the VM off.
# For every command: PYTHONPATH has guest/ (damon_probes.py), and under TCG one
# context-switch ticker runs per vCPU (tools/ticker.c: without it TCG hides
# re-set PTE accessed bits from DAMON) unless TICKER=0 (the benchmarks).
# Everything is in main() so that bash has read the whole file before running
# any of it: the host may edit this file (over 9p) while a VM runs.
main() {
	export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
	export HOME=/root TERM=dumb PYTHONDONTWRITEBYTECODE=1
	mount -t proc proc /proc
	mount -t sysfs sysfs /sys
	mountpoint -q /dev || mount -t devtmpfs devtmpfs /dev
	# no udev: the links scripts expect (kselftest's runner writes to /dev/stdout)
	ln -sfn /proc/self/fd /dev/fd
	ln -sf /proc/self/fd/0 /dev/stdin
	ln -sf /proc/self/fd/1 /dev/stdout
	ln -sf /proc/self/fd/2 /dev/stderr
	mkdir -p /dev/pts /dev/shm
	mount -t devpts devpts /dev/pts
	mount -t tmpfs tmpfs /dev/shm
	mount -t tmpfs tmpfs /run
	mount -t debugfs debugfs /sys/kernel/debug
	mountpoint -q /sys/kernel/tracing || mount -t tracefs tracefs /sys/kernel/tracing
	mount -t cgroup2 cgroup2 /sys/fs/cgroup 2>/dev/null
	local d
	for d in /tmp /var/tmp /root; do
		# host contents stay visible, writes go to memory; tmpfs if overlay fails
		mkdir -p "/run/ovl$d/u" "/run/ovl$d/w"
		mount -t overlay overlay -o "lowerdir=$d,upperdir=/run/ovl$d/u,workdir=/run/ovl$d/w" "$d" 2>/dev/null ||
			mount -t tmpfs tmpfs "$d"
	done
	hostname damon-vm 2>/dev/null

	local VM_CMD=() VM_TTY_SIZE="" rc
	# (leading newline: the firmware's last line has none)
	printf '\nVM-INIT: userspace up at %ss, kernel %s\n' "$(cut -d' ' -f1 /proc/uptime)" "$(uname -r)"
	# shellcheck disable=SC1091
	. "$HARNESS_RUN/env" || { echo "VM-INIT: cannot read $HARNESS_RUN/env"; }
	export PYTHONPATH=$REPO/guest${PYTHONPATH:+:$PYTHONPATH}
	local tickers=() c
	if [ "${HARNESS_ACCEL:-tcg}" = tcg ] && [ "${TICKER:-1}" != 0 ] && [ -x "$BUILD/tools/ticker" ]; then
		for c in $(seq 0 $(($(nproc) - 1))); do
			"$BUILD/tools/ticker" "$c" "${TICK_NS:-1000000}" &
			tickers+=($!)
		done
	fi
	if [ ${#VM_CMD[@]} -gt 0 ]; then
		"${VM_CMD[@]}" </dev/null
		rc=$?
	else
		[ -z "$VM_TTY_SIZE" ] || stty -F /dev/ttyS0 rows "${VM_TTY_SIZE% *}" cols "${VM_TTY_SIZE#* }"
		echo "VM-INIT: root shell (host / is read-only; /tmp /root /run are writable in memory). Exit to stop the VM."
		setsid -c bash -l <>/dev/ttyS0 >&0 2>&1
		rc=$?
	fi
	[ ${#tickers[@]} -eq 0 ] || kill "${tickers[@]}" 2>/dev/null
	printf '\nVM-EXIT: rc=%d\n' "$rc"
	# with QEMU's -no-reboot a reboot ends QEMU; exiting PID 1 panics, and
	# panic=-1 reboots, so the fallback ends it too
	reboot -ff 2>/dev/null
	exit "$rc"
}
main "$@"
exit
