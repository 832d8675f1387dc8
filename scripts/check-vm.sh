#!/bin/bash
# usage: scripts/check-vm.sh [debug] [test-name...]
# Build the guest kernel (incremental), the DAMON kselftests and the project's
# VM tests, boot the guest and run scripts/vm-run-tests.sh in it (all tests, or
# only the named ones, e.g. damon-sysfs-present.sh damos_quota.py).
# Shows the result lines (VERBOSE=1: the whole console); the full console log
# is $LOGS/vm-tests[-debug].log.  Fails naming the failed tests, or the test
# that was running when the guest panicked or timed out.  Last line of output:
# "N passed, N failed[, N skipped]".
# Per-test timeout 300 s (sysfs.sh needs ~60 s on an idle 2-core host, 2-3x
# that on a busy one); the whole VM run is killed after TIMEOUT (1800 s).
# debug: the KASAN/lockdep/kmemleak kernel: 1200 s per test, 10800 s in all;
#   expected failures there: debugfs_target_ids_pid_leak.sh (KASAN's
#   quarantine delays frees) and damon_nr_regions.py (failed 3 of 3 runs:
#   "tried regions is not created", the debug kernel is too slow for it).
#   The point of that run is the kernel-log check (KASAN, lockdep, kmemleak).
# XFAIL="a.py b.sh" adds expected failures.
# STRESS_COMMITS: commits of vm-tests/probes-stress.py (500; 1000 on the
# debug kernel); STRESS_SEED, STRESS_SAMPLE_US, STRESS_AGGR_US: passed on.
set -eu
. "$(dirname "$0")/lib.sh"
kind=normal vmopt=()
[ "${1:-}" = debug ] && { kind=debug; vmopt=(--debug); shift; }

"$REPO/scripts/build-guest.sh" $([ $kind = debug ] && echo debug)

say "building the DAMON kselftests and the VM tests"
kst_log=$LOGS/kst-build-$kind.log
# one set of test binaries per kernel kind, so that a normal and a debug run
# can go on at the same time
kst=$BUILD/kst-$kind vmt=$BUILD/vmtests-$kind
rm -rf "$kst" "$vmt"
make -C "$TREE/tools/testing/selftests" TARGETS=damon O="$BUILD/kst-build-$kind" \
	install INSTALL_PATH="$kst" >"$kst_log" 2>&1 ||
	{ tail -20 "$kst_log" >&2; die "building the DAMON kselftests (log: $kst_log)"; }
make -C "$REPO/vm-tests" OUT="$vmt" >>"$kst_log" 2>&1 ||
	{ tail -20 "$kst_log" >&2; die "building vm-tests/*.c (log: $kst_log)"; }
make -C "$REPO/tools" OUT="$BUILD/tools" >>"$kst_log" 2>&1 ||	# ticker, workloads
	{ tail -20 "$kst_log" >&2; die "building tools/*.c (log: $kst_log)"; }

if [ $kind = debug ]; then
	env=(-e KST_TIMEOUT=1200 -e VMT_TIMEOUT=1200 -e VMT_TIMEOUT_SCALE=4
	     -e "STRESS_COMMITS=${STRESS_COMMITS:-1000}" -e STRESS_SAMPLE_US=5000 -e STRESS_AGGR_US=25000
	     -e "KST_RERUNS=${KST_RERUNS:-2}" -e "XFAIL=debugfs_target_ids_pid_leak.sh damon_nr_regions.py ${XFAIL:-}")
	log=$LOGS/vm-tests-debug.log to=${TIMEOUT:-10800}
else
	env=(-e KST_TIMEOUT=300 -e VMT_TIMEOUT=300
	     -e "STRESS_COMMITS=${STRESS_COMMITS:-500}" -e "KST_RERUNS=${KST_RERUNS:-2}" -e "XFAIL=${XFAIL:-}")
	log=$LOGS/vm-tests.log to=${TIMEOUT:-1800}
fi
env+=(-e "KST=$kst" -e "VMT_BIN=$vmt")
for v in STRESS_SEED STRESS_SAMPLE_US STRESS_AGGR_US; do	# passed on when set
	[ -z "${!v:-}" ] || env+=(-e "$v=${!v}")
done
say "running the VM tests in QEMU ($kind kernel; console log: $log)"
show='^(\[[0-9:]+\] |TAP version|1\.\.|ok |not ok |[0-9]+ passed, |# (FLAKY|FAILED|RUN|kernel splat|kmemleak)|VM |VM-|.*(Kernel panic|BUG:|WARNING:|KASAN:))'
[ -n "${VERBOSE:-}" ] && show=.
set +e
VM_LOG=$log TIMEOUT=$to "$REPO/scripts/run-vm.sh" ${vmopt[@]+"${vmopt[@]}"} "${env[@]}" -- \
	"$REPO/scripts/vm-run-tests.sh" "$@" 2>&1 | grep --line-buffered -E "$show"
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
