#!/bin/bash
# usage: scripts/run-kunit.sh [no-sysfs] [extra kunit.py run args, e.g. 'damon-sysfs*']
# Build and run the DAMON KUnit suites on UML:
#   tools/testing/kunit/kunit.py run --kunitconfig=configs/kunitconfig --build_dir=$BUILD/kunit
# no-sysfs: configs/kunitconfig-no-sysfs (DAMON_SYSFS=n, MEMCG=n) in
#   $BUILD/kunit-no-sysfs, log $LOGS/kunit-no-sysfs.log.
# Passes only if kunit.py exits 0 AND prints "Testing complete. Ran N tests: passed: N".
# Prints failed/crashed test names on failure; ends with "N passed, N failed".
# Full output: $LOGS/kunit.log.
set -eu
. "$(dirname "$0")/lib.sh"
cfg=$REPO/configs/kunitconfig bdir=$BUILD/kunit log=$LOGS/kunit.log
if [ "${1:-}" = no-sysfs ]; then
	cfg=$REPO/configs/kunitconfig-no-sysfs bdir=$BUILD/kunit-no-sysfs log=$LOGS/kunit-no-sysfs.log
	shift
fi
[ -d "$TREE/.git" ] || die "no kernel tree in $TREE: run scripts/setup-base.sh"

t=$(date +%s)
say "KUnit (UML, ${cfg##*/}): building and running DAMON tests (-j$JOBS${USE_CCACHE:+, ccache})"
rc=0
(cd "$TREE" && ./tools/testing/kunit/kunit.py run --kunitconfig="$cfg" \
	--build_dir="$bdir" --jobs="$JOBS" --make_options "$(make_cc)" "$@") >"$log" 2>&1 || rc=$?

summary=$(grep -E 'Testing complete\.' "$log" | tail -1 | sed 's/^\[[0-9:]*\] //' || true)
total=$(sed -nE 's/.*Ran ([0-9]+) tests:.*/\1/p' <<<"$summary")
total=${total:-0}
num() { sed -nE "s/.*[ :]$1: ([0-9]+).*/\\1/p" <<<"$summary" | grep . || echo 0; }
passed=$(num passed)
failed=$(( $(num failed) + $(num crashed) ))
skipped=$(num skipped)
[ -n "$summary" ] && say "$summary"

if [ $rc -eq 0 ] && [ "$total" -gt 0 ] &&
   grep -qE "Testing complete\. Ran $total tests: passed: $total\$" <<<"$summary"; then
	say "KUnit passed in $(since "$t")s"
	echo "$passed passed, 0 failed"
	exit 0
fi

# failure: say which tests, or show the build/config errors
bad=$(sed -nE 's/^\[[0-9:]*\] \[(FAILED|CRASHED)\] ([^ ]+)$/\2/p' "$log" | paste -sd' ' || true)
if [ -n "$bad" ]; then
	echo "KUnit output of the failing tests:" >&2
	{ grep -E -B8 '\[(FAILED|CRASHED)\]' "$log" | grep -vE '^\[[0-9:]*\] \[PASSED\]' || true; } | tail -60 >&2
else
	{ grep -E -A3 'error:|Error [0-9]+|ERROR:|not in .config|\*\*\*' "$log" || tail -40 "$log"; } | tail -40 >&2
	[ "$failed" -gt 0 ] || failed=1
fi
line="$passed passed, $failed failed"
[ "$skipped" -eq 0 ] || line+=", $skipped skipped"
echo "$line"
[ -z "$bad" ] || die "KUnit: failing test(s): $bad (${summary}; full log: $log)"
die "KUnit: kunit.py rc=$rc, ${summary:-no 'Testing complete' summary line} (full log: $log)"
