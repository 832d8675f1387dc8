#!/bin/bash
# usage: scripts/check-configs.sh [variant...]
# Odd builds: compile mm/damon/ of the tree's current checkout with
# configs/guest.config plus each configs/variants/<variant>.config (default:
# all of them; i386 is built with ARCH=i386), and fail on any error or
# warning in mm/damon/ or include/linux/damon.h.  Output dirs:
# $BUILD/cfg-<variant>; logs: $LOGS/cfg-<variant>.log.
set -eu
. "$(dirname "$0")/lib.sh"
variants=("$@")
[ ${#variants[@]} -gt 0 ] || for f in "$REPO"/configs/variants/*.config; do
	v=${f##*/}; variants+=("${v%.config}"); done
for v in "${variants[@]}"; do
	frag=$REPO/configs/variants/$v.config
	[ -f "$frag" ] || die "no variant $frag"
	out=$BUILD/cfg-$v log=$LOGS/cfg-$v.log arch=x86_64
	[ "$v" = i386 ] && arch=i386
	t=$(date +%s)
	kconfig_build "$TREE" "$out" "$arch" "$REPO/configs/guest.config" "$frag"
	: >"$log"
	# recompile mm/damon/ every time, so that its warnings reach the log
	rm -f "$out"/mm/damon/*.o
	make -C "$TREE" O="$out" ARCH=$arch "$(make_cc)" -j"$JOBS" mm/damon/ >>"$log" 2>&1 ||
		{ grep -E -A3 'error' "$log" | tail -30 >&2; die "variant $v: mm/damon/ does not build (log: $log)"; }
	if grep -E '(mm/damon/|include/linux/damon\.h).*(warning|error):' "$log" >&2; then
		die "variant $v: warnings in mm/damon/ (log: $log)"
	fi
	say "variant $v: mm/damon/ builds cleanly ($(ls "$out"/mm/damon/*.o | wc -l) objects, $(since "$t") s)"
done
echo "${#variants[@]} passed, 0 failed"
