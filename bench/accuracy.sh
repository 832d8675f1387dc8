#!/bin/bash
# usage: bench/accuracy.sh
# Benchmark 3: accuracy of the estimates vs page-level truth after 1, 5, 10
# and 50 aggregation windows (bench/accuracy-guest.py), table written to
# bench/results/accuracy.md.
set -eu
. "$(dirname "$0")/../scripts/lib.sh"
"$REPO/scripts/build-guest.sh"
make -s -C "$REPO/tools" OUT="$BUILD/tools"
raw=$LOGS/bench-accuracy.jsonl
MEM=${MEM:-2G} TIMEOUT=1800 VM_LOG=$LOGS/bench-accuracy.log \
	"$REPO/scripts/run-vm.sh" -e TICKER=0 -- python3 "$REPO/bench/accuracy-guest.py" |
	grep '^{' >"$raw" || die "the accuracy run failed (log: $LOGS/bench-accuracy.log)"
python3 "$REPO/bench/report.py" accuracy "$raw"
