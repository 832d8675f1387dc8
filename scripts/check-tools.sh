#!/bin/bash
# usage: scripts/check-tools.sh
# Host-side unit tests of the C tools (tools/tests/test_*.py: today
# damon-probe-metrics on DAMON sysfs trees written to a temporary directory,
# no VM), after building tools/ into $BUILD/tools.  Ends with
# "N passed, N failed[, N skipped]"; a skip fails.
set -eu
. "$(dirname "$0")/lib.sh"
log=$LOGS/tools-unit.log
make -s -C "$REPO/tools" OUT="$BUILD/tools" >"$log" 2>&1 ||
	{ tail -20 "$log" >&2; die "building tools/*.c (log: $log)"; }
command -v promtool >/dev/null ||
	die "no promtool (Debian package prometheus: scripts/setup-deps.sh installs it)"
rc=0
DAMON_PROBE_METRICS=$BUILD/tools/damon-probe-metrics \
	python3 -m unittest discover -v -s "$REPO/tools/tests" -p 'test_*.py' >>"$log" 2>&1 || rc=$?
unittest_verdict "$log" "$rc" "tools unit tests"
