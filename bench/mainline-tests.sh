#!/bin/bash
# usage: bench/mainline-tests.sh
# Mainline 7.3's own DAMON tests, so that bench/mainline.sh compares two
# working kernels: its KUnit suites on UML (mm/damon/tests/.kunitconfig, the
# config mainline ships), and its DAMON kselftests in the project's guest
# booted with the mainline benchmark kernel (bench/build-bench.sh mainline),
# run by guest/run-tests.sh as the series' kselftests are (same timeouts,
# re-runs and expected skips of vm-tests/kselftests.settings).
# Prints both results and the names of the tests that did not pass; exits 0
# even then (it measures mainline, it does not gate the series).  Logs:
# $LOGS/kunit-mainline.log, $LOGS/vm-mainline-kst.log.
set -eu
. "$(dirname "$0")/../scripts/lib.sh"
ml=$BUILD/mainline
[ -d "$ml/mm/damon" ] || die "no mainline tree in $ml: run bench/setup-mainline.sh"
t=$(date +%s)

say "mainline KUnit (UML, mm/damon/tests/.kunitconfig)"
(cd "$ml" && ./tools/testing/kunit/kunit.py run --kunitconfig=mm/damon/tests/.kunitconfig \
	--build_dir="$BUILD/kunit-mainline" --jobs="$JOBS" --make_options "$(make_cc)" \
	--json="$LOGS/kunit-mainline.json") >"$LOGS/kunit-mainline.log" 2>&1 || true
grep -E 'Testing complete|FAILED|SKIPPED' "$LOGS/kunit-mainline.log" | sed 's/^\[[0-9:]*\] //' || true

say "mainline DAMON kselftests in the guest"
kernel=$("$REPO/bench/build-bench.sh" mainline | tail -1)
kst=$BUILD/kst-mainline
damon_kselftests "$ml" mainline
make -s -C "$REPO/tools" OUT="$BUILD/tools"
mapfile -t names < <(sed 's/^damon://' "$kst/kselftest-list.txt")
VM_LOG=$LOGS/vm-mainline-kst.log TIMEOUT=3600 "$REPO/scripts/run-vm.sh" -k "$kernel" \
	-e "KST=$kst" -e KST_RERUNS=2 -- "$REPO/guest/run-tests.sh" "${names[@]}" 2>&1 |
	grep -a -E '^(ok |not ok |[0-9]+ passed, )' || true
say "bench/mainline-tests.sh: $(since "$t")s"
