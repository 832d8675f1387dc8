#!/bin/bash
# usage: bench/profile.sh
# Where the probes' instructions go: boots the series' benchmark kernel
# (bench/build-bench.sh) twice under QEMU icount, as bench/overhead.sh, with
# the function profiler also tracing damon_account_probes() (first boot) and
# damon_probe_hit() (second boot), for 0, 1x1, 1x3, 4x1 and 4x3 probes x
# filters on paddr and vaddr, and writes bench/results/profile.md.  Each
# traced call adds the profiler's own instructions, so the table reads
# differences between configurations, which cancel them.
# Environment: REPS (5), SEG_SECONDS (2).
set -eu
. "$(dirname "$0")/../scripts/lib.sh"
t=$(date +%s)
kernel=$("$REPO/bench/build-bench.sh" series)
make -s -C "$REPO/tools" OUT="$BUILD/tools"
raw=$LOGS/bench-profile.jsonl
: >"$raw"
for fn in damon_account_probes damon_probe_hit; do
	say "profiling $fn"
	ICOUNT=1 SMP=1 MEM=1G TIMEOUT=3600 VM_LOG=$LOGS/bench-profile-$fn.log \
		"$REPO/scripts/run-vm.sh" -k "$kernel" -e TICKER=0 -e KERNEL=series \
		-e "CONFIGS=0 1x1 1x3 4x1 4x3" -e "REPS=${REPS:-5}" \
		-e "SEG_SECONDS=${SEG_SECONDS:-2}" -e "PROFILE=$fn" -- \
		python3 "$REPO/bench/overhead-guest.py" | grep '^{' >>"$raw" ||
		die "the $fn run failed (log: $LOGS/bench-profile-$fn.log)"
done
SERIES=$(cat "$BUILD/x86-bench/bzImage-series.commit") SMP=1 MEM=1G python3 "$REPO/bench/report.py" profile "$raw"
say "bench/profile.sh: $(since "$t")s"
