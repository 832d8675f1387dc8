#!/bin/bash
# usage: scripts/check-python.sh
# Host-side unit tests of the guest's Python helpers (guest/test_*.py:
# parsers and the tried-regions reader on recorded input, no VM), with
# unittest.  Ends with "N passed, N failed[, N skipped]"; a skip fails.
set -eu
. "$(dirname "$0")/lib.sh"
log=$LOGS/python-unit.log
rc=0
PYTHONPATH=$REPO/guest python3 -m unittest discover -v -s "$REPO/guest" -p 'test_*.py' >"$log" 2>&1 || rc=$?
total=$(sed -nE 's/^Ran ([0-9]+) tests? in .*/\1/p' "$log")
bad=$(grep -cE ' \.\.\. (FAIL|ERROR|skipped)' "$log" || true)
skipped=$(grep -cE ' \.\.\. skipped' "$log" || true)
if [ "$rc" -ne 0 ] || [ -z "$total" ] || [ "$total" -eq 0 ] || [ "$bad" -ne 0 ]; then
	grep -E ' \.\.\. (FAIL|ERROR|skipped)|^(FAIL|ERROR):' "$log" >&2 || tail -20 "$log" >&2
	echo "$(( ${total:-0} - bad )) passed, $(( bad > 0 ? bad : 1 )) failed"
	die "python unit tests: rc=$rc (log: $log)"
fi
echo "$total passed, 0 failed"
