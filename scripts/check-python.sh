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
unittest_verdict "$log" "$rc" "python unit tests"
