#!/bin/bash
# usage: bench/size.sh
# Benchmark 2: cost vs memory size.  Boots the patched kernel with 1, 2, 4
# and 8 GiB (SIZES), runs bench/size-guest.py in each, and writes the table
# of kdamond CPU per aggregation vs a page-level scan giving the same answer
# to bench/results/size.md.
set -eu
. "$(dirname "$0")/../scripts/lib.sh"
"$REPO/scripts/build-guest.sh"
make -s -C "$REPO/tools" OUT="$BUILD/tools"
raw=$LOGS/bench-size.jsonl
: >"$raw"
for g in ${SIZES:-1 2 4 8}; do
	say "guest with $g GiB"
	MEM=${g}G TIMEOUT=1800 VM_LOG=$LOGS/bench-size-$g.log \
		"$REPO/scripts/run-vm.sh" -e TICKER=0 -e "REPS=${REPS:-3}" -- \
		python3 "$REPO/bench/size-guest.py" | grep '^{' >>"$raw" ||
		die "the $g GiB run failed (log: $LOGS/bench-size-$g.log)"
done
MEM="${SIZES:-1 2 4 8} GiB" python3 "$REPO/bench/report.py" size "$raw"
