#!/bin/bash
# usage (inside the VM, normally via scripts/check-vm.sh):
#   scripts/run-vm.sh -- scripts/vm-run-tests.sh [test-name...]
# Runs the project's VM tests (executables in vm-tests/ whose names do not
# start with "_", and the C tests built into $BUILD/vmtests), then the DAMON
# kselftests installed in $BUILD/kst; all of them, or only the named ones.
# A test passes with exit 0, is skipped with exit 4, fails otherwise or when
# it runs out of time, or when the kernel logs a splat (BUG/WARNING/KASAN/
# lockdep/...) while it runs.  A final "kernel-log" test fails on splats
# outside the tests and on kmemleak reports.
# Under TCG, a ticker runs on every vCPU (see tools/ticker.c) and the TCG_XFAIL
# tests are expected failures.  A kselftest that fails unexpectedly is re-run
# up to KST_RERUNS (2) times, a timed-out one once; passing then counts as a
# pass, reported as FLAKY.  (Measured under TCG on a busy 2-core host:
# damon_nr_regions.py fails ~1 run in 3 because its first sample comes before
# DAMON has split the regions up to min_nr_regions.)
# Prints test output prefixed "# ", one TAP-like line per test, and finally
# exactly one line "N passed, N failed[, N skipped]" (expected failures count
# as skipped); exits 0 iff nothing failed.
# Environment: KST ($BUILD/kst), VMT_BIN ($BUILD/vmtests), TICKER
#   ($BUILD/tools/ticker), KST_TIMEOUT (300 s per kselftest), VMT_TIMEOUT (300 s
#   per VM test; a test's own "# vm-timeout: <s>" line, times VMT_TIMEOUT_SCALE,
#   raises it), XFAIL (more expected failures, names), TICK_NS (1000000).
# Everything is in main() so bash reads the whole file before running it.
TCG_XFAIL="sysfs_update_schemes_tried_regions_wss_estimation.py"
SPLAT='BUG:|WARNING:|KASAN:|UBSAN:|Oops|general protection fault, |possible circular locking|possible recursive locking|inconsistent lock state|suspicious RCU usage|Call Trace:|detected stalls|blocked for more than'

main() {
	local kst=${KST:-$BUILD/kst} vmt=${VMT_BIN:-$BUILD/vmtests} ticker=${TICKER:-$BUILD/tools/ticker}
	local xfail=" ${XFAIL:-} " pids=() tests=() t n=0 pass=0 fail=0 skip=0 flaky="" failed=""
	[ "${HARNESS_ACCEL:-tcg}" != tcg ] || xfail+=" $TCG_XFAIL "

	# the kernel log, independent of "dmesg -C" in some tests
	cat /dev/kmsg >/run/kmsg.log 2>/dev/null &
	pids+=($!)
	if [ "${HARNESS_ACCEL:-tcg}" = tcg ] && [ -x "$ticker" ]; then
		for t in $(seq 0 $(($(nproc) - 1))); do "$ticker" "$t" "${TICK_NS:-1000000}" & pids+=($!); done
	fi
	# kselftests run from a writable copy
	rm -rf /run/kst && { [ ! -d "$kst" ] || cp -a "$kst" /run/kst; }

	# "<kind> <dir> <name>" for every test, in order
	for t in "$REPO"/vm-tests/*; do
		[[ -f $t && -x $t && ${t##*/} != _* ]] && tests+=("vmt ${t%/*} ${t##*/}")
	done
	for t in "$vmt"/*; do [[ -f $t && -x $t ]] && tests+=("vmt $vmt ${t##*/}"); done
	if [ -f /run/kst/kselftest-list.txt ]; then
		while IFS=: read -r c t; do tests+=("kst /run/kst/$c $t"); done </run/kst/kselftest-list.txt
	else
		echo "# WARNING: no kselftests installed in $kst"
	fi
	if [ $# -gt 0 ]; then
		local sel=() want found
		for want in "$@"; do
			found=
			for t in "${tests[@]}"; do [ "${t##* }" = "$want" ] && sel+=("$t") && found=1; done
			[ -n "$found" ] || sel+=("missing - $want")
		done
		tests=("${sel[@]}")
	fi

	echo "TAP version 13"
	echo "1..$((${#tests[@]} + 1))"
	local boot_end last; boot_end=$(lines); last=$boot_end
	local kind dir name rc from to res note
	for t in "${tests[@]}"; do
		read -r kind dir name <<<"$t"
		n=$((n + 1))
		if [ "$kind" = missing ]; then
			echo "not ok $n $name # no such test"; fail=$((fail + 1)); failed+=" $name"; continue
		fi
		to=$([ "$kind" = kst ] && echo "${KST_TIMEOUT:-300}" || echo "${VMT_TIMEOUT:-300}")
		# a VM test that needs longer says so in a "# vm-timeout: <s>" line
		# (seconds on the normal kernel; times VMT_TIMEOUT_SCALE, default 1)
		local own; own=$(sed -n 's/^# vm-timeout: \([0-9]*\)$/\1/p' "$dir/$name" 2>/dev/null | head -1)
		[ -z "$own" ] || [ "$((own * ${VMT_TIMEOUT_SCALE:-1}))" -le "$to" ] || to=$((own * ${VMT_TIMEOUT_SCALE:-1}))
		from=$(lines)
		run_one "$dir" "$name" "$to"; rc=$?
		last=$(lines); note=$(splats "$from" "$last")
		res=$(verdict "$rc" "$note")
		# a kselftest that fails unexpectedly gets up to KST_RERUNS more runs
		# (a timed-out one only one more run)
		local tries=0 rc2=$rc max=${KST_RERUNS:-2}
		[ "$rc" -ne 124 ] && [ "$rc" -ne 137 ] || max=$((max < 1 ? max : 1))
		while [ "$res" = fail ] && [ "$kind" = kst ] && [ -z "$note" ] &&
		      [[ $xfail != *" $name "* ]] && [ $tries -lt "$max" ]; do
			tries=$((tries + 1))
			echo "# $name failed ($(why "$rc2")); running it again ($tries/$max: access timing under TCG is flaky)"
			from=$(lines)
			run_one "$dir" "$name" "$to"; rc2=$?
			last=$(lines); note=$(splats "$from" "$last")
			[ "$(verdict "$rc2" "$note")" != pass ] || res=flaky
		done
		[ -z "$note" ] || printf '# kernel splat while %s ran:\n%s\n' "$name" "$(sed 's/^/#   /' <<<"$note")"
		case $res in
		pass)  echo "ok $n $name"; pass=$((pass + 1)) ;;
		skip)  echo "ok $n $name # SKIP"; skip=$((skip + 1)) ;;
		flaky) echo "ok $n $name # FLAKY: failed first ($(why "$rc")), passed on rerun $tries"
		       pass=$((pass + 1)); flaky+=" $name" ;;
		fail)
			if [[ $xfail == *" $name "* ]] && [ -z "$note" ]; then
				echo "not ok $n $name # TODO expected failure ($(why "$rc"))"; skip=$((skip + 1))
			else
				echo "not ok $n $name # $(why "$rc")${note:+, kernel splat}"; fail=$((fail + 1)); failed+=" $name"
			fi ;;
		esac
	done

	# kernel log outside the tests (boot, and after the last test), and kmemleak
	n=$((n + 1))
	note=$(splats 0 "$boot_end"; splats "$last" end)
	if [ -e /sys/kernel/debug/kmemleak ]; then
		echo scan >/sys/kernel/debug/kmemleak; sleep 5; echo scan >/sys/kernel/debug/kmemleak
		local leaks; leaks=$(grep -c '^unreferenced object' /sys/kernel/debug/kmemleak)
		echo "# kmemleak: $leaks unreferenced objects"
		[ "$leaks" -eq 0 ] || note+=$'\n'$(head -60 /sys/kernel/debug/kmemleak)
	fi
	if [ -z "$note" ]; then
		echo "ok $n kernel-log"; pass=$((pass + 1))
	else
		sed 's/^/#   /' <<<"$note"
		echo "not ok $n kernel-log # kernel splats/leaks outside the tests"; fail=$((fail + 1)); failed+=" kernel-log"
	fi
	kill "${pids[@]}" 2>/dev/null
	[ -z "$flaky" ] || echo "# FLAKY (passed on rerun):$flaky"
	[ -z "$failed" ] || echo "# FAILED:$failed"
	if [ "$skip" -gt 0 ]; then echo "$pass passed, $fail failed, $skip skipped"
	else echo "$pass passed, $fail failed"; fi
	[ "$fail" -eq 0 ]
}

lines() { wc -l </run/kmsg.log; }
# kernel log lines (from, to] that look like a splat; to=end: up to the end
splats() {
	local to=$2
	[ "$to" = end ] && to='$' || [ "$to" -gt "$1" ] || return 0
	sed -n "$(($1 + 1)),${to}p" /run/kmsg.log | grep -E "$SPLAT" | cut -d';' -f2- | head -40
}
run_one() { # <dir> <name> <timeout>
	echo "# RUN $2"
	(cd "$1" && timeout -k 5 "$3" "./$2" </dev/null 2>&1) | sed -u 's/^/# /'
	return "${PIPESTATUS[0]}"
}
verdict() { # <rc> <splat note>
	if [ -n "$2" ]; then echo fail
	elif [ "$1" -eq 0 ]; then echo pass
	elif [ "$1" -eq 4 ]; then echo skip
	else echo fail; fi
}
why() { case $1 in 124|137) echo "timed out";; *) echo "exit=$1";; esac; }

main "$@"
exit
