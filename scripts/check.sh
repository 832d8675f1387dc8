#!/bin/bash
# usage: scripts/check.sh [--full]        (make check / make check-full)
# The project's whole test run, in this order, stopping at the first real
# failure with a message naming the stage and the patch or test:
#   deps        scripts/setup-deps.sh      apt packages (root)
#   damo        scripts/setup-damo.sh      damo 3.4 unpacked from Debian's package
#   base        scripts/setup-base.sh      pinned base tree in $BUILD/linux
#   install     scripts/check-install.sh   the set-up path in a fresh minimal
#                                          Debian 12 root (debootstrap)
#   python      scripts/check-python.sh    unit tests of guest/damon_probes.py
#   tools       scripts/check-tools.sh     unit tests of tools/ (damon-probe-metrics)
#   deb         scripts/build-deb.sh tools  the damon-probes package, lintian-clean
#   links       scripts/check-links.py     relative links of the Markdown files resolve
#   series      scripts/check-series.sh    every patch applies; x86 guest builds after each
#   checkpatch  scripts/check-checkpatch.sh  --strict: 0 errors/warnings (CHECKs justified)
#   sparse      scripts/check-sparse.sh    no new sparse warnings in mm/damon/
#   kunit       scripts/run-kunit.sh       DAMON KUnit on UML
#   kunit-nosysfs scripts/run-kunit.sh no-sysfs  the same without DAMON_SYSFS and MEMCG
#   kunit-i386  scripts/run-kunit.sh i386  the same suites on 32-bit x86 in QEMU
#   configs     scripts/check-configs.sh   mm/damon/ builds warning-free with MEMCG=n,
#                                          THP=n, DAMON_PADDR=n, for i386 (with and
#                                          without PAE), arm64 (4K, 16K, 64K pages)
#                                          and m68k, without 64-bit divisions
#   vm          scripts/check-vm.sh        DAMON kselftests + vm-tests/ in QEMU
#   boot        scripts/check-boot.sh      the guest kernel and damon-probes as
#                                          Debian packages in a Debian 12 disk
#                                          image booted with systemd as PID 1
# --full adds:
#   debug-build scripts/build-guest.sh debug  (KASAN, lockdep, kmemleak, ...)
#   debug-vm    scripts/check-vm.sh debug     the VM tests on that kernel
#   stress      STRESS_COMMITS=10000 scripts/check-vm.sh probes-stress.py
#               (normal kernel: the debug kernel is too slow for 10k commits)
# Prints the wall time of each stage and, as the last line,
# "N passed, N failed[, N skipped]": every stage counts as one check, except
# those that report tests (patches built, patches checkpatched, KUnit cases,
# VM tests), which count those instead.  Stage logs: $LOGS/check-<stage>.log.
set -u
. "$(dirname "$0")/lib.sh"
S=$REPO/scripts
full=
case ${1:-} in --full) full=1 ;; "") ;; *) die "usage: $0 [--full]" ;; esac

passed=0 failed=0 skipped=0 times=()
t0=$(date +%s)
finish() { # <rc>
	echo
	echo "Stage wall times:"
	printf '  %s\n' "${times[@]}"
	printf '  %-12s %5ss\n' total "$(since "$t0")"
	printf '%s\n' "${times[@]}" "total $(since "$t0")s" >"$LOGS/check-timings.txt"
	if [ "$1" -eq 0 ]; then echo "CHECK PASSED"; fi
	if [ "$skipped" -gt 0 ]; then echo "$passed passed, $failed failed, $skipped skipped"
	else echo "$passed passed, $failed failed"; fi
	exit "$1"
}
stage() { # <name> <command...>
	local name=$1 t rc log=$LOGS/check-$1.log p=0 f=0 s=0 line msg
	shift
	t=$(date +%s)
	echo
	say "==== $name: ${*#"$S"/}"
	"$@" 2>&1 | tee "$log"
	rc=${PIPESTATUS[0]}
	times+=("$(printf '%-12s %5ss  %s' "$name" "$(since "$t")" "$([ "$rc" = 0 ] && echo ok || echo FAILED)")")
	line=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$log" | tail -1 || true)
	if [ -n "$line" ]; then
		read -r p f s < <(sed -E 's/^([0-9]+) passed, ([0-9]+) failed(, ([0-9]+) skipped)?.*/\1 \2 \4/' <<<"$line")
		s=${s:-0}
	fi
	[ $((p + f + s)) -gt 0 ] || { [ "$rc" = 0 ] && p=1 || f=1; }
	[ "$rc" = 0 ] || [ "$f" -gt 0 ] || f=1
	passed=$((passed + p)) failed=$((failed + f)) skipped=$((skipped + s))
	if [ "$rc" != 0 ]; then
		msg=$(grep -E '^(FAILED|VM FAILED): ' "$log" | tail -1 | sed -E 's/^(VM )?FAILED: //' || true)
		echo
		echo "CHECK FAILED at stage '$name': ${msg:-$* exited with $rc} (log: $log)"
		finish 1
	fi
}

stage deps       "$S/setup-deps.sh"
stage damo       "$S/setup-damo.sh"
stage base       "$S/setup-base.sh"
stage install    "$S/check-install.sh"
stage python     "$S/check-python.sh"
stage tools      "$S/check-tools.sh"
stage deb        "$S/build-deb.sh" tools
stage links      "$S/check-links.py"
stage series     "$S/check-series.sh"
stage checkpatch "$S/check-checkpatch.sh"
stage sparse     "$S/check-sparse.sh"
stage kunit      "$S/run-kunit.sh"
stage kunit-nosysfs "$S/run-kunit.sh" no-sysfs
stage kunit-i386 "$S/run-kunit.sh" i386
stage configs    "$S/check-configs.sh"
stage vm         "$S/check-vm.sh"
stage boot       "$S/check-boot.sh"
if [ -n "$full" ]; then
	stage debug-build "$S/build-guest.sh" debug
	stage debug-vm    "$S/check-vm.sh" debug
	stage stress      env STRESS_COMMITS=10000 TIMEOUT=7200 "$S/check-vm.sh" probes-stress.py
fi
finish 0
