#!/bin/bash
# usage: scripts/check-configs.sh [variant...]
# Odd builds: compile mm/damon/ of the tree's current checkout for each
# configs/variants/<variant>.config (default: all of them) and fail on any
# error or warning in mm/damon/ or include/linux/damon.h.  A variant's
# header says how it is built:
#   # arch: <ARCH> [<CROSS_COMPILE>]   (default: x86_64, the host gcc)
#   # base: <file in configs/>          (default: guest.config)
# so that the x86 variants change one thing of the guest kernel, and the
# other architectures start, as upstream's DAMON build tests do, from
# allnoconfig plus every DAMON option (configs/damon-all.config).
# The build stops short of vmlinux: the kernel test robot's DAMON failures
# are compile errors, warnings and 64-bit divisions that 32-bit kernels
# cannot link, and mm/damon/ shows all three (the last by its undefined
# symbols: libgcc's division helpers, which neither i386 nor m68k kernels
# provide) in seconds, where a vmlinux per variant costs minutes.
# Output dirs: $BUILD/cfg-<variant>; logs: $LOGS/cfg-<variant>.log.
set -eu
. "$(dirname "$0")/lib.sh"
variants=("$@")
[ ${#variants[@]} -gt 0 ] || for f in "$REPO"/configs/variants/*.config; do
	v=${f##*/}; variants+=("${v%.config}"); done
for v in "${variants[@]}"; do
	frag=$REPO/configs/variants/$v.config
	[ -f "$frag" ] || die "no variant $frag"
	read -r arch cross < <(sed -n 's/^# arch: *//p' "$frag"; echo)
	base=$(sed -n 's/^# base: *//p' "$frag")
	arch=${arch:-x86_64} base=$REPO/configs/${base:-guest.config}
	[ -z "$cross" ] || command -v "${cross}gcc" >/dev/null ||
		die "variant $v: no ${cross}gcc (scripts/setup-deps.sh installs it)"
	out=$BUILD/cfg-$v log=$LOGS/cfg-$v.log
	t=$(date +%s)
	CROSS_COMPILE=$cross kconfig_build "$TREE" "$out" "$arch" "$base" "$frag"
	: >"$log"
	# recompile mm/damon/ every time, so that its warnings reach the log
	rm -f "$out"/mm/damon/*.o
	CROSS_COMPILE=$cross make -C "$TREE" O="$out" ARCH="$arch" \
		"$(CROSS_COMPILE=$cross make_cc)" -j"$JOBS" mm/damon/ >>"$log" 2>&1 ||
		{ grep -E -A3 'error' "$log" | tail -30 >&2; die "variant $v: mm/damon/ does not build (log: $log)"; }
	if grep -E '(mm/damon/|include/linux/damon\.h).*(warning|error):' "$log" >&2; then
		die "variant $v: warnings in mm/damon/ (log: $log)"
	fi
	if "${cross}nm" -u "$out"/mm/damon/*.o |
	   grep -E '\b__(u?(div|mod)di3|u?divmoddi4)$' >&2; then
		die "variant $v: mm/damon/ calls libgcc's 64-bit division, which the kernel does not link (use div_u64() and friends)"
	fi
	say "variant $v: mm/damon/ builds cleanly for $arch ($(ls "$out"/mm/damon/*.o | wc -l) objects, $(since "$t") s)"
done
echo "${#variants[@]} passed, 0 failed"
