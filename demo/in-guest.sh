#!/bin/bash
# PID 1's command for the demo (scripts/run-demo.sh): under TCG, start one
# context-switch ticker per vCPU (tools/ticker.c: without it TCG hides the
# re-set PTE accessed bits from DAMON), then run the demo.
. "$(dirname "$0")/../scripts/lib.sh"
if [ "${HARNESS_ACCEL:-tcg}" = tcg ]; then
	for c in $(seq 0 $(($(nproc) - 1))); do
		"$BUILD/tools/ticker" "$c" 1000000 &
	done
fi
python3 "$REPO/demo/attr-demo.py"
rc=$?
kill $(jobs -p) 2>/dev/null
exit $rc
