#!/bin/bash
# usage: bench/build-stock.sh
# Build the reference kernel for the benchmarks: the untouched base (tag
# "base" of $BUILD/linux, checked out as the worktree $BUILD/linux-stock)
# with the same guest config as the patched kernel, in $BUILD/x86-stock.
# Incremental; prints the bzImage path.
set -eu
. "$(dirname "$0")/../scripts/lib.sh"
stock=$BUILD/linux-stock out=$BUILD/x86-stock log=$LOGS/build-x86-stock.log
git -C "$TREE" rev-parse -q --verify refs/tags/base >/dev/null ||
	die "no base tree: run scripts/setup-base.sh"
[ -e "$stock/.git" ] || git -C "$TREE" worktree add -q --detach "$stock" base
TREE=$stock
kconfig_build "$TREE" "$out" x86_64 "$REPO/configs/guest.config"
say "building the stock kernel in $out (log: $log)"
kmake "$out" -j"$JOBS" bzImage >"$log" 2>&1 || { tail -30 "$log"; die "building the stock kernel"; }
echo "$out/arch/x86/boot/bzImage"
