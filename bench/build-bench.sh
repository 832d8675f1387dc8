#!/bin/bash
# usage: bench/build-bench.sh series|mainline|stock...
# Build the benchmark kernels, configs/guest.config + configs/bench-prof.config
# (the ftrace function profiler), in the worktree $BUILD/linux-bench of $TREE
# with one output directory, $BUILD/x86-bench, so that switching kernels
# rebuilds only what differs: "series" (branch series of $TREE), "mainline"
# (the series + bench/mainline-approach.diff) and "stock" (tag base).
# Prints the path of each bzImage ($BUILD/x86-bench/bzImage-<kernel>).
set -eu
. "$(dirname "$0")/../scripts/lib.sh"
wt=$BUILD/linux-bench out=$BUILD/x86-bench log=$LOGS/build-x86-bench.log
series=$(git -C "$TREE" rev-parse series) base=$(git -C "$TREE" rev-parse base)
[ -e "$wt/.git" ] || git -C "$TREE" worktree add -q --detach "$wt" "$series"
: >"$log"
for k in "$@"; do
	git -C "$wt" checkout -q -- mm/damon
	case $k in
	series|mainline) git -C "$wt" checkout -q --detach "$series" ;;
	stock) git -C "$wt" checkout -q --detach "$base" ;;
	*) die "unknown kernel '$k' (series, mainline, stock)" ;;
	esac
	[ "$k" != mainline ] || git -C "$wt" apply "$REPO/bench/mainline-approach.diff"
	kconfig_build "$wt" "$out" x86_64 "$REPO/configs/guest.config" "$REPO/configs/bench-prof.config"
	say "building the '$k' kernel (log: $log)"
	TREE=$wt kmake "$out" -j"$JOBS" bzImage >>"$log" 2>&1 || { tail -30 "$log"; die "building '$k'"; }
	cp "$out/arch/x86/boot/bzImage" "$out/bzImage-$k"
	git -C "$wt" checkout -q -- mm/damon
	echo "$out/bzImage-$k"
done
