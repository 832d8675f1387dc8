#!/bin/bash
# usage: bench/accuracy.sh
# Benchmark 3: calibration of the estimates' standard errors against
# page-level truth, per window, probe and hotness band, paddr and vaddr
# (bench/accuracy-guest.py says how), table written to
# bench/results/accuracy.md.  NWIN windows per case (default 200); CASES
# (default all: paddr vaddr vaddr-idle).
set -eu
. "$(dirname "$0")/../scripts/lib.sh"
"$REPO/scripts/build-guest.sh"
make -s -C "$REPO/tools" OUT="$BUILD/tools"
raw=$LOGS/bench-accuracy.jsonl
MEM=${MEM:-2G} TIMEOUT=3600 VM_LOG=$LOGS/bench-accuracy.log \
	"$REPO/scripts/run-vm.sh" -e NWIN="${NWIN:-200}" -- python3 "$REPO/bench/accuracy-guest.py" ${CASES:-} |
	grep '^{' >"$raw" || die "the accuracy run failed (log: $LOGS/bench-accuracy.log)"
python3 "$REPO/bench/report.py" accuracy "$raw"
