#!/bin/bash
# usage: bench/size.sh
# Benchmark 2: cost vs memory size, in guest instructions (QEMU icount, as
# bench/overhead.sh).  Boots the series' benchmark kernel
# (bench/build-bench.sh) with 1, 2, 4, 8 and 16 GiB (SIZES), runs
# bench/size-guest.py in each (fixed number of regions, 2 probes), and writes
# kdamond's instructions per aggregation next to those of a page-level scan
# giving the same answer to bench/results/size.md.
# Each size is booted BOOTS times (a paddr guest's cost moves between boots
# more than within one: the table shows both).
# Environment: SIZES ("1 2 4 8 16"), BOOTS (2), REPS (5 per boot),
# SEG_SECONDS (4).
set -eu
. "$(dirname "$0")/../scripts/lib.sh"
t=$(date +%s)
kernel=$("$REPO/bench/build-bench.sh" series)
make -s -C "$REPO/tools" OUT="$BUILD/tools"
raw=$LOGS/bench-size.jsonl
: >"$raw"
for b in $(seq "${BOOTS:-2}"); do
	for g in ${SIZES:-1 2 4 8 16}; do
		say "boot $b: guest with $g GiB"
		ICOUNT=1 SMP=1 MEM=${g}G TIMEOUT=3600 VM_LOG=$LOGS/bench-size-$g.log \
			"$REPO/scripts/run-vm.sh" -k "$kernel" -e TICKER=0 -e "REPS=${REPS:-5}" \
			-e "SEG_SECONDS=${SEG_SECONDS:-4}" -e "BOOT=$b" -- \
			python3 "$REPO/bench/size-guest.py" | grep '^{' >>"$raw" ||
			die "the $g GiB run failed (log: $LOGS/bench-size-$g.log)"
	done
done
SERIES=$(cat "$BUILD/x86-bench/bzImage-series.commit") SMP=1 MEM="${SIZES:-1 2 4 8 16} GiB" \
	python3 "$REPO/bench/report.py" size "$raw"
say "bench/size.sh: $(since "$t")s"
