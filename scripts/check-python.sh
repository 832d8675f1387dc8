#!/bin/bash
# usage: scripts/check-python.sh
# Host-side unit tests, no VM: of the guest's Python helpers (guest/test_*.py:
# parsers, the tried-regions reader on recorded input, the standard errors)
# and of the demo (demo/tests/test_*.py: the table's columns, and
# demo/plot.py rendering a recorded demo record into a PNG, with matplotlib).
# One unittest run of every test_*.py module of both directories, with
# Debian's /usr/bin/python3 ($DEB_PYTHON), whose python3-matplotlib
# setup-deps.sh installs.  Ends with "N passed, N failed[, N skipped]"; a
# skip fails.
set -eu
. "$(dirname "$0")/lib.sh"
log=$LOGS/python-unit.log
mods=()
for f in "$REPO"/guest/test_*.py "$REPO"/demo/tests/test_*.py; do
	[ -e "$f" ] || continue
	f=${f##*/}
	mods+=("${f%.py}")
done
rc=0
# (from $LOGS: no module of the current directory comes first)
(cd "$LOGS" && PYTHONPATH=$REPO/guest:$REPO/demo/tests "$DEB_PYTHON" -m unittest -v "${mods[@]}") >"$log" 2>&1 || rc=$?
unittest_verdict "$log" "$rc" "python unit tests"
