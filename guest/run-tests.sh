#!/bin/bash
# usage (inside the VM, normally via scripts/check-vm.sh):
#   scripts/run-vm.sh -- guest/run-tests.sh [test-name...]
# Runs the project's VM tests (executables in vm-tests/ whose names do not
# start with "_"), then the DAMON kselftests installed in $KST; all of them,
# or only the named ones.
# A test passes with exit 0, skips with exit 4, fails otherwise or when it
# runs out of time, or when the kernel logs a splat (BUG/WARNING/KASAN/
# lockdep/...) while it runs.  A final "kernel-log" test fails on splats
# outside the tests and on kmemleak reports.
# Settings, kselftest style (key=value): vm-tests/settings for the VM tests,
# vm-tests/kselftests.settings for the kselftests: "timeout" (seconds per
# test), "<test>.timeout", and "<test>.skip=<when>: <reason>", the expected
# skips.  A skip or failure of a test that is not an expected skip here
# (<when>: tcg, debug or always) FAILS the run: there are no silent skips.
# A kselftest that fails unexpectedly is re-run up to KST_RERUNS (2) times, a
# timed-out one once; passing then counts as a pass, reported as FLAKY
# (access timing under TCG).
# Prints test output prefixed "# ", one TAP line per test, and finally
# exactly one line "N passed, N failed[, N skipped]" (expected skips count as
# skipped); exits 0 iff nothing failed.
# Environment: KST ($BUILD/kst), KERNEL_KIND (normal or debug),
#   TIMEOUT_SCALE (1; timeouts are multiplied by it).
# Everything is in main() so bash reads the whole file before running it.
SPLAT='BUG:|WARNING:|KASAN:|UBSAN:|Oops|general protection fault, |possible circular locking|possible recursive locking|inconsistent lock state|suspicious RCU usage|Call Trace:|detected stalls|blocked for more than'

main() {
	local kst=${KST:-$BUILD/kst}
	local pids=() tests=() t n=0 pass=0 fail=0 skip=0 flaky="" failed=""
	# the environments whose expected skips apply
	local envs=" always ${KERNEL_KIND:-normal} "
	[ "${HARNESS_ACCEL:-tcg}" != tcg ] || envs+="tcg "

	# the kernel log, independent of "dmesg -C" in some tests
	cat /dev/kmsg >/run/kmsg.log 2>/dev/null &
	pids+=($!)
	# kselftests run from a writable copy
	rm -rf /run/kst && { [ ! -d "$kst" ] || cp -a "$kst" /run/kst; }

	# "<kind> <dir> <name>" for every test, in order
	for t in "$REPO"/vm-tests/*; do
		[[ -f $t && -x $t && ${t##*/} != _* ]] && tests+=("vmt ${t%/*} ${t##*/}")
	done
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
	local kind dir name rc from to res note cfg expect
	for t in "${tests[@]}"; do
		read -r kind dir name <<<"$t"
		n=$((n + 1))
		if [ "$kind" = missing ]; then
			echo "not ok $n $name # no such test"; fail=$((fail + 1)); failed+=" $name"; continue
		fi
		cfg=$REPO/vm-tests/settings
		[ "$kind" = vmt ] || cfg=$REPO/vm-tests/kselftests.settings
		to=$(setting "$cfg" "$name.timeout")
		to=$(( ${to:-$(setting "$cfg" timeout)} * ${TIMEOUT_SCALE:-1} ))
		# an expected skip in this environment: "<when>: <reason>"
		expect=$(setting "$cfg" "$name.skip")
		[[ -n $expect && $envs == *" ${expect%%:*} "* ]] || expect=
		from=$(lines)
		run_one "$dir" "$name" "$to"; rc=$?
		last=$(lines); note=$(splats "$from" "$last")
		res=$(verdict "$rc" "$note")
		# a kselftest that fails unexpectedly gets up to KST_RERUNS more runs
		# (a timed-out one only one more run)
		local tries=0 rc2=$rc max=${KST_RERUNS:-2}
		[ "$rc" -ne 124 ] && [ "$rc" -ne 137 ] || max=$((max < 1 ? max : 1))
		while [ "$res" = fail ] && [ "$kind" = kst ] && [ -z "$note" ] &&
		      [ -z "$expect" ] && [ $tries -lt "$max" ]; do
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
		flaky) echo "ok $n $name # FLAKY: failed first ($(why "$rc")), passed on rerun $tries"
		       pass=$((pass + 1)); flaky+=" $name" ;;
		skip|fail)
			if [ -n "$expect" ] && [ -z "$note" ]; then
				echo "ok $n $name # SKIP expected on ${expect%%:*} ($(why "$rc")):${expect#*:}"
				skip=$((skip + 1))
			elif [ "$res" = skip ]; then
				echo "not ok $n $name # skipped (exit 4), and not an expected skip in ${cfg##*/}"
				fail=$((fail + 1)); failed+=" $name"
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
# setting <file> <key>: the value of "<key>=value" in a kselftest-style
# settings file (the last one wins; empty if none)
setting() {
	awk -v k="$2" 'index($0, k "=") == 1 { v = substr($0, length(k) + 2) } END { print v }' "$1" 2>/dev/null
}
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
why() { case $1 in 124|137) echo "timed out";; 4) echo "skipped";; *) echo "exit=$1";; esac; }

main "$@"
exit
