#!/bin/bash
# usage: scripts/check-vm.sh [debug] [test-name...]
# Build the guest kernel (incremental), the DAMON kselftests and the project's
# VM tests, boot the guest and run guest/run-tests.sh in it (all tests, or
# only the named ones, e.g. damon-sysfs-present.sh damos_quota.py).
# Shows the result lines (VERBOSE=1: the whole console); the full console log
# is $LOGS/vm-tests[-debug].log.  Fails naming the failed tests, or the test
# that was running when the guest panicked or timed out.  Last line of output:
# "N passed, N failed[, N skipped]".
# Timeouts and expected skips: vm-tests/settings, vm-tests/kselftests.settings
# (300 s per test; x4 on the debug kernel, the KASAN/lockdep/kmemleak build);
# the whole VM run is killed after TIMEOUT (3600 s; 10800 s debug).
# STRESS_COMMITS: commits of vm-tests/probes-stress.py (500; 1000 on the
# debug kernel); STRESS_SEED, STRESS_SAMPLE_US, STRESS_AGGR_US: passed on.
set -eu
. "$(dirname "$0")/lib.sh"
kind=normal vmopt=()
[ "${1:-}" = debug ] && { kind=debug; vmopt=(--debug); shift; }

"$REPO/scripts/build-guest.sh" $([ $kind = debug ] && echo debug)

say "building the DAMON kselftests and the guest tools"
kst_log=$LOGS/kst-build-$kind.log
# one set of test binaries per kernel kind, so that a normal and a debug run
# can go on at the same time
kst=$BUILD/kst-$kind
damon_kselftests "$TREE" "$kind"
make -C "$REPO/tools" OUT="$BUILD/tools" >>"$kst_log" 2>&1 ||	# ticker, workloads
	{ tail -20 "$kst_log" >&2; die "building tools/*.c (log: $kst_log)"; }

env=(-e "KST=$kst" -e "KERNEL_KIND=$kind" -e "KST_RERUNS=${KST_RERUNS:-2}")
if [ $kind = debug ]; then
	env+=(-e TIMEOUT_SCALE=4 -e "STRESS_COMMITS=${STRESS_COMMITS:-1000}"
	      -e STRESS_SAMPLE_US=5000 -e STRESS_AGGR_US=25000)
	log=$LOGS/vm-tests-debug.log to=${TIMEOUT:-10800}
else
	env+=(-e "STRESS_COMMITS=${STRESS_COMMITS:-500}")
	log=$LOGS/vm-tests.log to=${TIMEOUT:-3600}
fi
for v in STRESS_SEED STRESS_SAMPLE_US STRESS_AGGR_US; do	# passed on when set
	[ -z "${!v:-}" ] || env+=(-e "$v=${!v}")
done
say "running the VM tests in QEMU ($kind kernel; console log: $log)"
show='^(\[[0-9:]+\] |TAP version|1\.\.|ok |not ok |[0-9]+ passed, |# (FLAKY|FAILED|RUN|kernel splat|kmemleak)|VM |VM-|.*(Kernel panic|BUG:|WARNING:|KASAN:))'
[ -n "${VERBOSE:-}" ] && show=.
set +e
VM_LOG=$log TIMEOUT=$to "$REPO/scripts/run-vm.sh" ${vmopt[@]+"${vmopt[@]}"} "${env[@]}" -- \
	"$REPO/guest/run-tests.sh" "$@" 2>&1 | grep --line-buffered -E "$show"
rc=${PIPESTATUS[0]}
set -e

summary=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$log" | tail -1 || true)
if [ "$rc" -eq 0 ] && [[ $summary == *" 0 failed"* ]]; then
	echo "$summary"
	exit 0
fi
# failure: show the output of each failed test, then name them
failed=$(sed -n 's/^not ok [0-9]* \([^ ]*\) # \([^T]\|T[^O]\).*/\1/p' "$log")
for t in $failed; do
	echo "---- output of $t:" >&2
	awk -v t="$t" '$0 == "# RUN " t {p = 1} p; p && /^(ok|not ok) / {p = 0}' "$log" | tail -60 >&2
done
if [ -z "$summary" ]; then
	running=$(sed -n 's/^# RUN //p' "$log" | tail -1)
	passed=$(grep -cE '^ok ' "$log" || true)
	echo "$passed passed, $(( $(wc -w <<<"$failed") + 1 )) failed"
	die "VM tests: the guest did not finish the test run${running:+ (it was running $running)}; see $log"
fi
echo "$summary"
die "VM tests failed:" $failed "(console log: $log)"
